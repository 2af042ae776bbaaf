#!/bin/sh
# newcomer_complete.sh - the shell completions offer an option's values
# (issue 35, point 13): --format, --scope, --sandbox, --report and --model
# complete to the words the command accepts instead of file names. Bash
# is driven as it calls a completion (COMP_WORDS split at ':' as bash
# splits them, COMP_LINE, COMP_POINT), fish for real when installed; and
# every value `skit __complete values` offers is one its command takes.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
C=$SKIT_SOURCE_DIR/completions
BIN=$(cd "$(dirname "$SKIT")" && pwd)
mkdir -p "$W/proj" && cd "$W/proj" && git init -q . || exit 1
skill .agents/skills good "Good skill. Use when testing."
mkdir -p cassettes && : >cassettes/demo.jsonl

# --- __complete values
run __complete values validate --format </dev/null
expect_rc 0 "__complete values validate --format"
has "$T/out" "reference" "validate --format values"
run __complete values run --sandbox </dev/null
has "$T/out" "workspace-write" "run --sandbox values"
run __complete values validate --scope </dev/null
lines "$T/out" 0 "an option the command lacks has no values"
run __complete values run --allow </dev/null
lines "$T/out" 0 "a free-text option has no values"
run __complete values nonsense --format </dev/null
expect_rc 2 "__complete values of an unknown command"

# Every value offered is accepted by its command.
value_ok() { # CMD OPT VALUE ARGS...: the command runs and does not refuse VALUE
	c=$1 o=$2 v=$3
	shift 3
	run "$c" "$o" "$v" "$@" </dev/null
	if [ "$rc" -le 1 ] && ! grep -q -- "$v" "$T/err"; then
		reg_pass
	else
		reg_fail "skit $c $o $v refused: $(head -n 2 "$T/err")"
	fi
}
for v in $("$SKIT" __complete values validate --format); do
	value_ok validate --format "$v" .agents/skills/good
done
for v in $("$SKIT" __complete values to-prompt --format); do
	value_ok to-prompt --format "$v" .agents/skills/good
done
for v in $("$SKIT" __complete values scan --format); do
	value_ok scan --format "$v" .agents/skills/good
done
for v in $("$SKIT" __complete values list --scope); do
	value_ok list --scope "$v" --installed
done
"$SKIT" eval --help >"$T/h" 2>&1
"$SKIT" run --help >>"$T/h" 2>&1
for v in $("$SKIT" __complete values eval --report) \
	$("$SKIT" __complete values run --sandbox); do
	has "$T/h" "$v" "the value '$v' is one the help names"
done
for v in $("$SKIT" __complete values run --model); do
	case $v in
	openai:?* | anthropic:?* | replay:) reg_pass ;;
	*) reg_fail "--model value '$v' is no PROVIDER:MODEL" ;;
	esac
done

# --- bash, as bash calls the function
bash_complete() { # LINE WORD...: COMP_WORDS are the words after LINE
	line=$1
	shift
	(PATH="$BIN:$PATH" bash -c '
		. "$1"; line=$2; shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE=$line; COMP_POINT=${#line}
		_skit; printf "%s\n" "${COMPREPLY[@]}"' bash "$C/skit.bash" "$line" "$@") \
		>"$T/comp" 2>&1
}
if command -v bash >/dev/null 2>&1; then
	bash_complete "skit validate --format " skit validate --format ""
	has "$T/comp" "reference" "bash: --format values"
	lacks "$T/comp" "cassettes" "bash: --format offers no file names"
	bash_complete "skit run --sandbox re" skit run --sandbox re
	has "$T/comp" "read-only" "bash: --sandbox value"
	lines "$T/comp" 1 "bash: one --sandbox value starts with 're'"
	bash_complete "skit install --scope " skit install --scope ""
	has "$T/comp" "user" "bash: --scope values"
	# bash splits "openai:gpt" at ':' and replaces only what follows it
	bash_complete "skit run --model openai:gpt-4.1-m" skit run --model openai : gpt-4.1-m
	has "$T/comp" "gpt-4.1-mini" "bash: --model after 'openai:'"
	lacks "$T/comp" "openai:" "bash: the part before ':' is not repeated"
	bash_complete "skit run --model anth" skit run --model anth
	has "$T/comp" "anthropic:claude-sonnet-4-5" "bash: --model provider"
	bash_complete "skit run --model replay:cass" skit run --model replay : cass
	has "$T/comp" "cassettes" "bash: replay: completes a file"
	bash_complete "skit validate --st" skit validate --st
	has "$T/comp" "--strict" "bash: options still complete"
else
	reg_fail "bash is missing"
fi

# --- fish, for real
if command -v fish >/dev/null 2>&1; then
	(PATH="$BIN:$PATH" fish -c "source '$C/skit.fish'
		complete -C'skit validate --format '
		complete -C'skit chat --sandbox '") >"$T/comp" 2>&1
	has "$T/comp" "reference" "fish: --format values"
	has "$T/comp" "full-access" "fish: --sandbox values"
	lacks "$T/comp" "cassettes" "fish: values, not file names"
	(PATH="$BIN:$PATH" fish -c "source '$C/skit.fish'
		complete -C'skit validate '") >"$T/comp" 2>&1
	has "$T/comp" "cassettes" "fish: a path operand still completes files"
else
	echo "NOTE: fish not installed; its value completion not driven"
fi
# --- zsh: the file parses
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$C/_skit" && reg_pass || reg_fail "zsh: _skit does not parse"
fi
reg_done
