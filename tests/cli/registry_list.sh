#!/bin/sh
# SPDX-License-Identifier: MIT
# registry_list.sh - `skit list`: precedence and shadowing, --all, --json,
# --root labels, help and usage errors, one-line descriptions.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

mkdir -p p/pdf
printf -- '---\nname: pdf\ndescription: |-\n  Project PDF, extract\n  text and tables.\n---\nBody.\n' \
	>p/pdf/SKILL.md
skill p zeta
skill u pdf "User PDF."
skill u alpha
mkdir -p p/broken
printf -- '---\nname: broken\n---\n' >p/broken/SKILL.md
printf 'not a skill\n' >p/README.md

# --help: usage and options on stdout, exit 0
run list --help
expect_rc 0 "list --help"
has "$T/out" "usage: skit list" "list --help"
has "$T/out" "--root" "list --help names the roots options"
has "$T/out" "--json" "list --help"

# usage errors: exit 2, one line and a hint on stderr
run list --bogus
expect_rc 2 "unknown option"
has "$T/err" "unknown option '--bogus'" "unknown option"
has "$T/err" "skit list --help" "usage hint"
run list extra-arg
expect_rc 2 "unexpected argument"
run list --root
expect_rc 2 "--root without a value"
has "$T/err" "needs a value" "--root without a value"

# active skills: root precedence, then name; one line each
run list --root project=p --root user=u
expect_rc 0 "list"
lines "$T/out" 3 "list: active skills only"
head -n 1 "$T/out" | grep -q '^pdf  *project  *\[shadows user\] Project PDF, extract text and tables\.$' &&
	reg_pass || reg_fail "list: first line is the project pdf, on one line"
sed -n 2p "$T/out" | grep -q '^zeta  *project ' && reg_pass ||
	reg_fail "list: zeta second (project root, by name)"
sed -n 3p "$T/out" | grep -q '^alpha  *user  *The alpha skill\.$' &&
	reg_pass || reg_fail "list: alpha from the user root last"
lacks "$T/out" "$(printf '\033')" "no colour when stdout is not a TTY"

# not a TTY: long descriptions are not cut
long=$(printf 'word %.0s' $(seq 1 60))
skill u long "$long"
run list --root project=p --root user=u
has "$T/out" "$(printf '%s' "$long" | sed 's/ *$//')" "no truncation off a TTY"
rm -rf u/long

# --all: shadowed and skipped copies with why; exit 0 regardless
run list --all --root project=p --root user=u
expect_rc 0 "list --all with a skipped skill"
lines "$T/out" 5 "list --all"
has "$T/out" "[shadowed by project] User PDF." "list --all shadowed"
has "$T/out" "[skipped] Missing required field in frontmatter: description" \
	"list --all skipped reason"
head -n 1 "$T/out" | grep -q '^alpha' && reg_pass ||
	reg_fail "list --all: ordered by name"

# labels: one unlabelled --root is "root"; several are root1, root2...
run list --root p
grep -q '^pdf  *root  ' "$T/out" && reg_pass ||
	reg_fail "a lone --root is labelled root"
run list --root p --root u
has "$T/out" "root1" "several roots: root1"
has "$T/out" "root2" "several roots: root2"

# --json: an array of entries with their state
run list --json --all --root project=p --root user=u
expect_rc 0 "list --json"
json_ok "$T/out" "list --json"
has "$T/out" '"state": "shadowed"' "list --json shadowed state"
has "$T/out" '"state": "skipped"' "list --json skipped state"
has "$T/out" '"reason": "project"' "list --json shadowed reason"
has "$T/out" '"description": "Project PDF, extract\ntext and tables."' \
	"list --json keeps the description as is"
has "$T/out" "\"file\": \"$W/p/pdf/SKILL.md\"" "list --json absolute file"
has "$T/out" '"user_invocable": true' "list --json flags"
run list --json --root project=p --root user=u
lacks "$T/out" '"state": "skipped"' "list --json without --all"
run list --json --root "$W/nowhere"
expect_rc 2 "list --json of a missing --root: missing input"
has "$T/err" "nowhere" "the missing root is named"
mkdir -p "$W/empty-root"
run list --json --root "$W/empty-root"
expect_rc 0 "list --json of an empty root"
has "$T/out" "[]" "an empty array"

# hostile text in a description cannot reach the terminal raw (checked
# via --json escaping; the terminal path is tested by registry_hostile.sh)
mkdir -p e/esc
printf -- '---\nname: esc\ndescription: "bell\\a esc\\e[31m"\n---\n' \
	>e/esc/SKILL.md
run list --json --root e
has "$T/out" 'bell\u0007 esc\u001b[31m' "list --json escapes controls"
json_ok "$T/out" "list --json with controls"

reg_done
