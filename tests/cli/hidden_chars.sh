#!/bin/sh
# hidden_chars.sh - one sanitiser for hidden characters (C0/C1 controls,
# bidi overrides and isolates, zero-width and TAG characters): every
# to-prompt format drops them (--strict keeps the reference's bytes),
# list/search/show on a terminal show U+FFFD, JSON keeps them escaped, and
# the body lint warns, so `validate --strict` fails a zero-width-laden
# body (HOSTILE C15).

. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

# octal escapes: U+200B zero-width space, U+202E right-to-left override,
# U+2066 left-to-right isolate, U+E0041 TAG LATIN CAPITAL LETTER A
ZW='\342\200\213'
RLO='\342\200\256'
LRI='\342\201\246'
TAG='\363\240\201\201'
mkdir -p r/zw
printf -- "---\nname: zw\ndescription: Safe${ZW}${ZW} tool ${RLO}evil${LRI} end ${TAG}x\n---\n# Zero width\n\nDo the task.${ZW}${ZW}${ZW}${ZW}${ZW}${ZW}${ZW}${ZW}${TAG}${TAG}\n" \
	>r/zw/SKILL.md
# the raw bytes of each hidden character, for grep -F
zw=$(printf "$ZW")
rlo=$(printf "$RLO")
lri=$(printf "$LRI")
tag=$(printf "$TAG")
rep=$(printf '\357\277\275')

no_hidden() { # FILE DESCRIPTION
	for c in "$zw" "$rlo" "$lri" "$tag"; do
		if grep -F -q -e "$c" "$1"; then
			reg_fail "$2: a hidden character got through"
			return
		fi
	done
	reg_pass
}

# ---- to-prompt: every format drops them
for fmt in xml markdown json; do
	run to-prompt --format "$fmt" r/zw
	expect_rc 0 "to-prompt --format $fmt"
	no_hidden "$T/out" "to-prompt --format $fmt"
	has "$T/out" "tool evil end x" "to-prompt --format $fmt keeps the text"
done
run to-prompt r/zw
no_hidden "$T/out" "to-prompt (default XML)"
# --strict is the reference's output byte for byte
run to-prompt --strict r/zw
has "$T/out" "$zw" "to-prompt --strict keeps the reference's bytes"

# ---- list and search: U+FFFD where a hidden character was
run list --root r
no_hidden "$T/out" "list"
has "$T/out" "Safe$rep$rep tool ${rep}evil$rep end" "list shows U+FFFD"
run search tool --root r
no_hidden "$T/out" "search"
has "$T/out" "zw" "search finds the skill"
# JSON keeps the exact string, escaped
run list --json --root r
no_hidden "$T/out" "list --json"
has "$T/out" 'Safe\u200b\u200b tool \u202eevil\u2066 end \udb40\udc41x' \
	"list --json keeps the text, escaped"
run show --json zw --root r
has "$T/out" '\u200b\u200b\u200b' "show --json keeps the body, escaped"

# ---- show on a terminal
if script -qec true /dev/null >/dev/null 2>&1; then
	script -qec "'$SKIT' show zw --root r" /dev/null >"$T/tty" 2>&1
	no_hidden "$T/tty" "show on a terminal"
	has "$T/tty" "Do the task.$rep$rep" "show on a terminal: U+FFFD"
else
	echo "note: no script(1); the terminal check is skipped"
fi
# (a pipe gets the body as it is)
run show zw --root r
has "$T/out" "Do the task.$zw" "show into a pipe: the body as written"

# ---- the body lint
run validate r/zw
expect_rc 0 "validate: hidden characters are warnings"
has "$T/err" "the body holds 10 invisible" "validate: the body lint counts them"
has "$T/err" "[hidden-unicode]" "validate: its code"
run validate --strict r/zw
expect_rc 1 "validate --strict fails a zero-width-laden body"
run validate --format reference r/zw
expect_rc 0 "validate --format reference: the reference's verdict"

reg_done
