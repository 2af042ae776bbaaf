# bash completion for skit. The words come from `skit __complete`, so the
# commands, options and skill names are always those of the installed skit.

_skit() {
	local cur prev cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=""
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$(skit __complete commands 2>/dev/null)" -- "$cur"))
		return
	fi
	# An option's value (--format, --scope, --sandbox, --model...). Bash
	# splits words at ':' (openai:gpt-4.1), so the option and the value
	# typed so far are read from the line itself.
	local line=${COMP_LINE:0:COMP_POINT} word opt vals
	word=${line##*[[:space:]]}
	opt=${line%"$word"}
	opt=${opt%"${opt##*[![:space:]]}"}
	opt=${opt##*[[:space:]]}
	if [[ $opt == --* ]]; then
		vals=$(skit __complete values "$cmd" "$opt" 2>/dev/null)
		if [[ -n $vals ]]; then
			if [[ $opt == --model && $word == replay:* ]]; then
				COMPREPLY=($(compgen -f -- "${word#replay:}"))
				[[ $COMP_WORDBREAKS == *:* ]] ||
					COMPREPLY=("${COMPREPLY[@]/#/replay:}")
				return
			fi
			COMPREPLY=($(compgen -W "$vals" -- "$word"))
			# with ':' a word break, bash replaces only what follows it
			if [[ $word == *:* && $COMP_WORDBREAKS == *:* ]]; then
				COMPREPLY=("${COMPREPLY[@]#"${word%:*}:"}")
			fi
			return
		fi
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(skit __complete options "$cmd" 2>/dev/null)" -- "$cur"))
		return
	fi
	case $prev in
	--root|--project|--workdir|--runs-dir|--out|-o|--config)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	esac
	case $cmd in
	show|uninstall|verify|update|scan)
		COMPREPLY=($(compgen -W "$(skit __complete skills 2>/dev/null)" -- "$cur")) ;;
	help)
		COMPREPLY=($(compgen -W "$(skit __complete commands 2>/dev/null)" -- "$cur")) ;;
	run|chat)
		if [[ $cur == /* && $cur != */*/* ]]; then
			COMPREPLY=($(compgen -P / -W "$(skit __complete skills 2>/dev/null)" -- "${cur#/}"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	*)
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -F _skit skit
