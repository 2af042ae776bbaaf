#!/bin/sh
# SPDX-License-Identifier: MIT
# registry_show.sh - `skit show NAME`: the body (level 2), then the level-3
# paths; --source for a shadowed copy; --json; unknown and skipped names.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1

skill p pdf-tools "Project PDF tools."
mkdir -p p/pdf-tools/scripts p/pdf-tools/references
printf '#!/bin/sh\necho secret-content\n' >p/pdf-tools/scripts/run.sh
printf 'reference-text\n' >p/pdf-tools/references/guide.md
skill u pdf-tools "User PDF tools."
skill u weather
mkdir -p p/broken
printf -- '---\nname: broken\n---\n' >p/broken/SKILL.md
R="--root project=p --root user=u"

run show --help
expect_rc 0 "show --help"
has "$T/out" "usage: skit show NAME" "show --help"
has "$T/out" "--source" "show --help"

run show
expect_rc 2 "show without NAME"
has "$T/err" "missing NAME" "show without NAME"
run show a b
expect_rc 2 "show with two names"

# body, then the file list (paths only: contents are never printed)
run show pdf-tools $R
expect_rc 0 "show pdf-tools"
head -n 1 "$T/out" | grep -q '^# pdf-tools$' && reg_pass ||
	reg_fail "show: the body comes first"
has "$T/out" "Body of pdf-tools." "show: body"
has "$T/out" "Files:" "show: Files heading"
has "$T/out" "  references/guide.md" "show: level-3 path"
has "$T/out" "  scripts/" "show: folders end in /"
has "$T/out" "  scripts/run.sh" "show: script path"
lacks "$T/out" "secret-content" "show never prints file contents"
lacks "$T/out" "SKILL.md" "show does not list SKILL.md itself"
lacks "$T/out" "name: pdf-tools" "show prints the body, not the frontmatter"

# --source picks a shadowed copy
run show pdf-tools --source user $R
expect_rc 0 "show --source user"
has "$T/out" "Files: none" "show: a skill with no other files"
run show pdf-tools --source builtin $R
expect_rc 2 "show --source with no such root"
has "$T/err" "no root is labelled 'builtin'" "show --source unknown"
run show weather --source project $R
expect_rc 2 "show --source: name not in that root"
has "$T/err" "no skill named 'weather' in project" "show --source miss"

# unknown names: one line, exit 1, close names suggested
run show pdf-tool $R
expect_rc 2 "show unknown"
has "$T/err" "skit show: no skill named 'pdf-tool'" "show unknown"
has "$T/err" "Did you mean: pdf-tools?" "show suggests"
run show zzzzzzzz $R
lacks "$T/err" "Did you mean" "no suggestion when nothing is close"

# a skipped skill says why
run show broken $R
expect_rc 1 "show skipped"
has "$T/err" "is skipped: Missing required field in frontmatter: description" \
	"show skipped reason"

run show pdf-tools --json $R
expect_rc 0 "show --json"
json_ok "$T/out" "show --json"
has "$T/out" '"body": "# pdf-tools\n\nBody of pdf-tools."' "show --json body"
has "$T/out" '"scripts/run.sh"' "show --json files"
has "$T/out" '"scripts/"' "show --json folders"
has "$T/out" '"state": "active"' "show --json state"

reg_done
