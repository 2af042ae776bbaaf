#!/bin/sh
# hostile_c.sh - HOSTILE.md part C (frontmatter and YAML) through the CLI,
# plus SPEC-RULES.md's deliberate differences 2 and 3 (fences are whole
# lines; invalid UTF-8, NUL, a SKILL.md directory, an unreadable file give a
# clean one-line error). Every case: no crash, no hang, the exit status and
# the key message. The cases of part C that the reference handles (C4 magic
# keys, C6, C7, C9, C13, C14, C15, C8 CRLF/CR/BOM) are exact cases of
# cases.txt, run by spec_validate/spec_props/spec_prompt/spec_eol.

. "${SKIT_SOURCE_DIR:-$(dirname "$0")/../..}/tests/cli/spec_lib.inc"
spec_setup

TIMEOUT=
if command -v timeout >/dev/null 2>&1; then
	TIMEOUT="timeout 20"
fi

# run DIR ARGS... : spec_run under a time limit (a hang is a failure).
run() {
	_d=$1
	shift
	(cd "$_d" && exec $TIMEOUT "$SKIT" "$@") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}

# mk NAME : a fresh case folder $W/NAME/NAME; the SKILL.md comes on stdin.
mk() {
	rm -rf "${W:?}/$1"
	mkdir -p "$W/$1/$1"
	cat >"$W/$1/$1/SKILL.md"
}

# rejected NAME [TEXT...] : validate --format reference and the text format
# reject the skill cleanly: exit 1, nothing on stdout, stderr
# "Validation failed for NAME:" plus ONE message line that contains every
# TEXT; the text format prints exactly one error line.
rejected() {
	_rj=$1
	shift
	run "$W/$_rj" validate --format reference "$_rj"
	spec_no_crash "$_rj" || return
	spec_expect_rc "$_rj" 1
	spec_expect_empty "$_rj: stdout" "$T/out"
	if [ "$(sed -n 1p "$T/err")" = "Validation failed for $_rj:" ]; then
		spec_pass
	else
		spec_fail "$_rj: first stderr line: $(sed -n 1p "$T/err" | head -c 200)"
	fi
	spec_expect_lines "$_rj: one message" "$T/err" 2
	for _t; do
		spec_expect_grep "$_rj" "$T/err" "$_t"
	done
	run "$W/$_rj" validate "$_rj"
	spec_no_crash "$_rj (text)" || return
	spec_expect_rc "$_rj (text)" 1
	_e=$(grep -c ': error: ' "$T/err")
	if [ "$_e" -eq 1 ]; then
		spec_pass
	else
		spec_fail "$_rj (text): $_e error lines, expected 1: $(head -c 300 "$T/err")"
	fi
}

# accepted NAME : validate --format reference says "Valid skill: NAME".
accepted() {
	run "$W/$1" validate --format reference "$1"
	spec_no_crash "$1" || return
	spec_expect_rc "$1" 0
	spec_expect_grep "$1" "$T/out" "Valid skill: $1"
}

# props_equal NAME JSON : read-properties prints JSON (plus a newline).
props_equal() {
	run "$W/$1" read-properties "$1"
	spec_no_crash "$1 read-properties" || return
	printf '%s\n' "$2" >"$T/want"
	if [ "$rc" -eq 0 ] && cmp -s "$T/want" "$T/out"; then
		spec_pass
	else
		spec_fail "$1: read-properties (exit $rc)"
		diff -u "$T/want" "$T/out" | head -20
		head -c 300 "$T/err"
	fi
}

# The prefix of every YAML syntax error.
YAML="Invalid YAML in frontmatter: "

# ---------------------------------------------------------------- C1
# Alias bombs: anchors are rejected before anything is expanded.
{
	printf -- '---\nname: c1-alias-bomb\ndescription: x\nmetadata:\n'
	printf '  a: &a\n'
	for i in 1 2 3 4 5 6 7 8 9 10; do printf '    - lol\n'; done
	prev=a
	for l in b c d e f g h i; do
		printf '  %s: &%s\n' "$l" "$l"
		for i in 1 2 3 4 5 6 7 8 9 10; do printf '    - *%s\n' "$prev"; done
		prev=$l
	done
	printf -- '---\n'
} | mk c1-alias-bomb
rejected c1-alias-bomb "$YAML" "Found confusing disallowed anchor token"
{
	printf -- '---\nname: c1-alias-bomb-flow\ndescription: x\nmetadata:\n'
	printf '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
	prev=a
	for l in b c d e f g h i; do
		printf '  %s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n' "$l" "$l" \
			"$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev"
		prev=$l
	done
	printf -- '---\n'
} | mk c1-alias-bomb-flow
rejected c1-alias-bomb-flow "$YAML"
# An alias alone (no anchor): undefined.
printf -- '---\nname: c1-alias\ndescription: *x\n---\n' | mk c1-alias
rejected c1-alias "$YAML"

# ---------------------------------------------------------------- C2
# Deep nesting: an error, never a stack overflow.
{
	printf -- '---\nname: c2-brackets-100k\ndescription: x\nmetadata: '
	spec_rep '[' 100000
	printf -- '\n---\n'
} | mk c2-brackets-100k
rejected c2-brackets-100k
{
	printf -- '---\nname: c2-brackets-60k\ndescription: x\nmetadata: '
	spec_rep '[' 60000
	printf -- '\n---\n'
} | mk c2-brackets-60k
rejected c2-brackets-60k "$YAML"
{
	printf -- '---\nname: c2-dashes\ndescription: x\nmetadata:\n  '
	spec_rep '- ' 20000
	printf -- 'x\n---\n'
} | mk c2-dashes
rejected c2-dashes
{
	printf -- '---\nname: c2-braces\ndescription: x\nmetadata: '
	spec_rep '{a: ' 10000
	printf -- '\n---\n'
} | mk c2-braces
rejected c2-braces "$YAML"
# Real skills nest 6 levels: depth 8 stays valid (exact case
# yaml-nesting-depth-8 checks the output).

# ---------------------------------------------------------------- C3
printf -- '---\nname: !!python/object/apply:os.system ["id"]\ndescription: x\n---\n' |
	mk c3-python-tag
rejected c3-python-tag "$YAML" "Found disallowed tag tokens"
printf -- '---\nname: c3-js-tag\ndescription: !!js/function "function () {}"\n---\n' |
	mk c3-js-tag
rejected c3-js-tag "$YAML" "Found disallowed tag tokens"
printf -- '---\nname: !foo c3-custom-tag\ndescription: x\n---\n' | mk c3-custom-tag
rejected c3-custom-tag "$YAML" "Found disallowed tag tokens"
printf -- '---\n!!map\nname: c3-doc-tag\ndescription: x\n---\n' | mk c3-doc-tag
rejected c3-doc-tag "$YAML"

# ---------------------------------------------------------------- C4
printf -- '---\nname: c4-merge\ndescription: x\n<<: *x\n---\n' | mk c4-merge
rejected c4-merge "$YAML"
printf -- '---\nname: c4-merge-anchor\ndescription: x\nbase: &x\n  license: MIT\n<<: *x\n---\n' |
	mk c4-merge-anchor
rejected c4-merge-anchor "$YAML" "Found confusing disallowed anchor token"

# ---------------------------------------------------------------- C5
printf -- '---\nname: c5-dup\ndescription: x\nname: evil\n---\n' | mk c5-dup
rejected c5-dup "$YAML" "Duplicate key 'name' found"
printf -- '---\nname: c5-dup-quoted\n"name": evil\ndescription: x\n---\n' | mk c5-dup-quoted
rejected c5-dup-quoted "$YAML" "Duplicate key 'name' found"
printf -- '---\nname: c5-dup-nested\ndescription: x\nmetadata:\n  a: 1\n  a: 2\n---\n' |
	mk c5-dup-nested
rejected c5-dup-nested "$YAML" "Duplicate key 'a' found"

# ---------------------------------------------------------------- C6
# name: yes stays the string "yes" (exact cases yaml-name-yes, yaml-scalars).
printf -- '---\nname: yes\ndescription: on\nlicense: off\ncompatibility: 0x1F\nmetadata:\n  v: 1.0\n---\n' |
	mk yes
accepted yes
props_equal yes '{
  "name": "yes",
  "description": "on",
  "license": "off",
  "compatibility": "0x1F",
  "metadata": {
    "v": "1.0"
  }
}'

# ---------------------------------------------------------------- C8
# Deliberate difference 2: fences are whole lines.
printf -- '---js\nname: c8-js\ndescription: x\n---\n' | mk c8-js
rejected c8-js "SKILL.md must start with YAML frontmatter (---)"
printf -- '---javascript\nmodule.exports = { name: "c8-javascript" }\n---\n' | mk c8-javascript
rejected c8-javascript "SKILL.md must start with YAML frontmatter (---)"
printf -- '---name: c8-glued\ndescription: x\n---\n' | mk c8-glued
rejected c8-glued "SKILL.md must start with YAML frontmatter (---)"
printf -- '----\nname: c8-four\ndescription: x\n---\n' | mk c8-four
rejected c8-four "SKILL.md must start with YAML frontmatter (---)"
printf -- '+++\nname = "c8-toml"\n+++\n' | mk c8-toml
rejected c8-toml "SKILL.md must start with YAML frontmatter (---)"
# "---" inside a value does not end the frontmatter.
printf -- '---\nname: c8-inner\ndescription: "a---b"\n---\n' | mk c8-inner
accepted c8-inner
props_equal c8-inner '{
  "name": "c8-inner",
  "description": "a---b"
}'
printf -- '---\nname: c8-inner-plain\ndescription: A --- B\n---\n' | mk c8-inner-plain
props_equal c8-inner-plain '{
  "name": "c8-inner-plain",
  "description": "A --- B"
}'
printf -- '---\nname: c8-inner-block\ndescription: |\n  before\n  ---\n  after\n---\n' |
	mk c8-inner-block
props_equal c8-inner-block '{
  "name": "c8-inner-block",
  "description": "before\n---\nafter"
}'
# A closing line that is not exactly "---" does not close.
printf -- '---\nname: c8-trailing\ndescription: x\n--- trailing\n' | mk c8-trailing
rejected c8-trailing "SKILL.md frontmatter not properly closed with ---"
printf -- '---\nname: c8-indented\ndescription: x\n  ---\n' | mk c8-indented
rejected c8-indented
printf -- '---\nname: c8-no-close\ndescription: x\n...\n' | mk c8-no-close
rejected c8-no-close "SKILL.md frontmatter not properly closed with ---"
printf -- '---' | mk c8-only-fence
rejected c8-only-fence "SKILL.md frontmatter not properly closed with ---"
printf -- '---\r\nname: c8-crlf-close\r\ndescription: x\r\n---\r\n' | mk c8-crlf-close
accepted c8-crlf-close
# A BOM before a valid CRLF skill (every exact case: spec_eol.sh).
printf -- '\357\273\277---\r\nname: c8-bom-crlf\r\ndescription: x\r\n---\r\n' | mk c8-bom-crlf
accepted c8-bom-crlf

# ---------------------------------------------------------------- C9
printf -- '---\nname: c9-colon\ndescription: Use for X: Y\n---\n' | mk c9-colon
rejected c9-colon "$YAML"

# ---------------------------------------------------------------- C11
# A 1 MiB description: an error that names a limit, no crash.
{
	printf -- '---\nname: c11-1mib\ndescription: '
	head -c 1048576 /dev/zero | tr '\0' 'd'
	printf -- '\n---\n'
} | mk c11-1mib
rejected c11-1mib
if grep -qi 'limit\|exceed\|larger than\|too \(large\|long\|big\)' "$T/err"; then
	spec_pass
else
	spec_fail "c11-1mib: the error does not name a limit: $(head -c 300 "$T/err")"
fi
# Over the 64 KiB frontmatter cap (70,000-character description).
{
	printf -- '---\nname: c11-cap\ndescription: '
	spec_rep dddddddddd 7000
	printf -- '\n---\n'
} | mk c11-cap
rejected c11-cap
# Just under the cap: a 60,000-character metadata value is fine.
{
	printf -- '---\nname: c11-under-cap\ndescription: x\nmetadata:\n  big: '
	spec_rep vvvvvvvvvv 6000
	printf -- '\n---\n'
} | mk c11-under-cap
accepted c11-under-cap
# 100,000 keys.
{
	printf -- '---\nname: c11-100k-keys\ndescription: x\n'
	awk 'BEGIN { for (i = 0; i < 100000; i++) printf "k%d: v\n", i }'
	printf -- '---\n'
} | mk c11-100k-keys
rejected c11-100k-keys
# Long keys: YAML limits an implicit key to 1024 characters (ruamel and
# libyaml alike). 1024: the reference's unknown-field message with the key;
# 1025 and 50,000 (under the cap): a YAML error.
key=$(spec_rep kkkkkkkk 128)
printf -- '---\nname: c11-key-1024\ndescription: x\n%s: v\n---\n' "$key" | mk c11-key-1024
rejected c11-key-1024 "  - Unexpected fields in frontmatter: $key. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed."
printf -- '---\nname: c11-key-1025\ndescription: x\n%sk: v\n---\n' "$key" | mk c11-key-1025
rejected c11-key-1025 "$YAML"
printf -- '---\nname: c11-key-50000\ndescription: x\n%s: v\n---\n' "$(spec_rep kkkkkkkkkk 5000)" |
	mk c11-key-50000
rejected c11-key-50000 "$YAML"
# A 1,000-item list: allowed-tools is not validated (valid), and
# read-properties lists the items (checked against the reference).
{
	printf -- '---\nname: c11-list\ndescription: x\nallowed-tools:\n'
	awk 'BEGIN { for (i = 0; i < 1000; i++) print "  - a" }'
	printf -- '---\n'
} | mk c11-list
accepted c11-list
props_equal c11-list "$(
	printf '{\n  "name": "c11-list",\n  "description": "x",\n  "allowed-tools": [\n'
	awk 'BEGIN { for (i = 0; i < 999; i++) print "    \"a\","; print "    \"a\"" }'
	printf '  ]\n}'
)"
# A 10,000-item list (60 KB, under the frontmatter cap): the reference
# accepts it; skit may accept it or stop at a node limit, cleanly.
{
	printf -- '---\nname: c11-list-10k\ndescription: x\nallowed-tools:\n'
	awk 'BEGIN { for (i = 0; i < 10000; i++) print "  - a" }'
	printf -- '---\n'
} | mk c11-list-10k
run "$W/c11-list-10k" validate --format reference c11-list-10k
if spec_no_crash c11-list-10k; then
	case $rc in
	0) spec_expect_grep c11-list-10k "$T/out" "Valid skill: c11-list-10k" ;;
	1) spec_expect_lines "c11-list-10k: one message" "$T/err" 2 ;;
	*) spec_fail "c11-list-10k: exit status $rc" ;;
	esac
fi

# A 10 MiB single line.
{
	printf -- '---\nname: c11-10mib\ndescription: '
	head -c 10485760 /dev/zero | tr '\0' 'x'
	printf -- '\n---\n'
} | mk c11-10mib
rejected c11-10mib

# ---------------------------------------------------------------- C12
# Deliberate difference 3: invalid UTF-8 and NUL give one clean error.
printf -- '---\nn\377me: c12\ndescription: x\n---\n' | mk c12-utf8-byte5
rejected c12-utf8-byte5
if grep -qi 'utf-\?8' "$T/err"; then spec_pass; else
	spec_fail "c12-utf8-byte5: message does not say UTF-8: $(cat "$T/err")"
fi
printf -- '---\nname: c12-overlong\ndescription: a\300\257b\n---\n' | mk c12-overlong
rejected c12-overlong
printf -- '---\nname: c12-surrogate\ndescription: a\355\240\200b\n---\n' | mk c12-surrogate
rejected c12-surrogate
printf -- '---\nname: c12-truncated\ndescription: a\342\202\n---\n' | mk c12-truncated
rejected c12-truncated
printf -- '---\nname: c12-nul\ndescription: a\000b\n---\n' | mk c12-nul
rejected c12-nul
if grep -qi 'nul' "$T/err"; then spec_pass; else
	spec_fail "c12-nul: message does not mention NUL: $(cat "$T/err")"
fi
# UTF-16 with a BOM.
printf '\377\376-\000-\000-\000\n\000n\000a\000m\000e\000:\000 \000x\000\n\000-\000-\000-\000\n\000' |
	mk c12-utf16
rejected c12-utf16
# C0 and C1 controls, U+FFFE: YAML forbids them raw (the reference
# crashes with a traceback here); escaped in double quotes they are fine.
for c in 'c12-c0:\001' 'c12-esc:\033' 'c12-c1:\302\200' 'c12-c1-9f:\302\237' 'c12-fffe:\357\277\276'; do
	n=${c%%:*}
	printf -- "---\nname: $n\ndescription: a${c#*:}b\n---\n" | mk "$n"
	rejected "$n"
	if grep -q "$YAML\|[Cc]ontrol" "$T/err"; then spec_pass; else
		spec_fail "$n: expected an Invalid YAML (or control character) message: $(cat "$T/err")"
	fi
done
printf -- '---\nname: c12-escaped\ndescription: "bell \\a, esc \\e, nel \\x85 end\\x85"\n---\n' |
	mk c12-escaped
accepted c12-escaped
props_equal c12-escaped '{
  "name": "c12-escaped",
  "description": "bell \u0007, esc \u001b, nel \u0085 end"
}'

# SKILL.md is a directory; SKILL.md cannot be read.
rm -rf "$W/c12-dir"
mkdir -p "$W/c12-dir/c12-dir/SKILL.md"
rejected c12-dir
run "$W/c12-dir" read-properties c12-dir
spec_no_crash "c12-dir read-properties" && {
	spec_expect_rc "c12-dir read-properties" 1
	spec_expect_lines "c12-dir read-properties: one line" "$T/err" 1
}
if [ "$(id -u)" -ne 0 ]; then
	printf -- '---\nname: c12-unreadable\ndescription: x\n---\n' | mk c12-unreadable
	chmod 000 "$W/c12-unreadable/c12-unreadable/SKILL.md"
	rejected c12-unreadable
	chmod 644 "$W/c12-unreadable/c12-unreadable/SKILL.md"
fi

# ---------------------------------------------------------------- C10
# A skill that fails to parse is not listed, and takes nothing else with it
# silently: to-prompt fails as a whole.
run "$W" to-prompt yes/yes c5-dup/c5-dup
spec_no_crash "c10 to-prompt" && {
	spec_expect_rc "c10: to-prompt with a broken skill" 1
	spec_expect_empty "c10: to-prompt stdout" "$T/out"
}
for n in c12-nul c12-utf8-byte5 c11-cap c2-brackets-100k; do
	run "$W" to-prompt "$n/$n"
	spec_no_crash "$n to-prompt" && {
		spec_expect_rc "$n: to-prompt" 1
		spec_expect_empty "$n: to-prompt stdout" "$T/out"
		spec_expect_lines "$n: to-prompt one line" "$T/err" 1
	}
	run "$W" read-properties "$n/$n"
	spec_no_crash "$n read-properties" && {
		spec_expect_rc "$n: read-properties" 1
		spec_expect_empty "$n: read-properties stdout" "$T/out"
		spec_expect_lines "$n: read-properties one line" "$T/err" 1
	}
done

spec_done
