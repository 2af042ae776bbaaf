#!/bin/sh
# docs_commands.sh - the skit command lines shown in docs/*.md and
# README.md name real commands and real options: for every line of a
# code block that starts with `skit` (or `$ skit`), the command exists
# (`skit help CMD` succeeds) and each --long option it uses is listed by
# that command's --help (for `skit runs list|show|prune`, the
# subcommand's). Lines that are skit's output ("skit install: ...") are
# not commands. README's tour is also run for real (readme_tour.sh).
. "$(dirname "$0")/registry_lib.inc"
reg_setup

for f in "$SKIT_SOURCE_DIR"/README.md "$SKIT_SOURCE_DIR"/docs/*.md; do
	awk -v f="$(basename "$f")" '
		/^```/ { inb = !inb; next }
		inb {
			l = $0
			sub(/^\$ /, "", l)
			if (l ~ /^skit [a-z]/) print f "\t" l
		}' "$f"
done >"$T/cmds"
[ -s "$T/cmds" ] && reg_pass || reg_fail "no command lines found in the docs"

while IFS="$(printf '\t')" read -r file line; do
	# Drop a trailing comment, then split into words.
	cmdline=$(printf '%s\n' "$line" | sed 's/[[:space:]]#.*$//')
	set -f
	# shellcheck disable=SC2086
	set -- $cmdline
	set +f
	verb=$2
	case $verb in
	*:) continue ;;       # output such as "skit install: ..."
	esac
	# A line showing a mistyped command says so in its comment: then
	# skit must say it too.
	case $line in
	*"unknown command '$verb'"*)
		if "$SKIT" "$verb" >/dev/null 2>"$T/err" </dev/null; then
			reg_fail "$file: '$verb' is a command after all: $line"
		else
			has "$T/err" "unknown command '$verb'" "$file: $line"
		fi
		continue
		;;
	esac
	if ! "$SKIT" help "$verb" >"$T/help" 2>/dev/null; then
		reg_fail "$file: unknown command '$verb': $line"
		continue
	fi
	if [ "$verb" = runs ] && [ $# -ge 3 ]; then
		case $3 in
		list | show | prune) "$SKIT" runs "$3" --help >"$T/help" 2>/dev/null ;;
		esac
	fi
	ok=1
	for w in "$@"; do
		case $w in
		--*)
			opt=${w%%=*}
			opt=${opt%%[!-a-z0-9]*}
			[ "$opt" = "--" ] && continue
			# A mistyped option shown on purpose: skit must refuse
			# it as the comment says.
			case $line in
			*"unknown option '$opt'"*)
				"$SKIT" "$verb" "$opt" >/dev/null 2>"$T/err" </dev/null
				has "$T/err" "unknown option '$opt'" "$file: $line"
				continue
				;;
			esac
			if ! grep -q -- "$opt\([^-a-z0-9]\|$\)" "$T/help"; then
				reg_fail "$file: 'skit $verb' has no option $opt: $line"
				ok=0
			fi
			;;
		esac
	done
	[ $ok = 1 ] && reg_pass
done <"$T/cmds"
reg_done
