#!/bin/sh
# newcomer_list.sh - `skit list` on the path a new user takes: no --root,
# the default roots of a scratch HOME, a project made with `git init`, no
# terminal (issue 35, points 1 and 6).
#
# - `skit install DIR` then `skit list --installed` lists the skill from
#   the project's default root (project:agents), and a `--scope user`
#   install from the user's;
# - `skit list` (and `skit search`) with no skills at all is not silent:
#   one stderr line names how many roots were searched and where to look
#   next, and stdout stays empty for scripts.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
EX=$SKIT_SOURCE_DIR/examples/skills

# --- 6: nothing anywhere (HOME is empty, a fresh project)
mkdir -p "$W/empty" && cd "$W/empty" && git init -q . || exit 1
run list </dev/null
expect_rc 0 "list with no skills"
lines "$T/out" 0 "list with no skills: stdout"
lines "$T/err" 1 "list with no skills: one stderr line"
if grep -Eq "^skit list: no skills found in the [0-9]+ roots searched \(0 exist\)" "$T/err"; then
	reg_pass
else
	reg_fail "empty list: no count of the roots searched: $(cat "$T/err")"
fi
has "$T/err" "skit doctor" "empty list names doctor"
run search "csv report" </dev/null
expect_rc 0 "search with no skills"
if grep -Eq "^skit search: no skills in the [0-9]+ roots searched" "$T/err"; then
	reg_pass
else
	reg_fail "search with no skills: $(cat "$T/err")"
fi
run list --json </dev/null
expect_rc 0 "list --json with no skills"
has "$T/out" "[]" "empty JSON array"

# --- 1: a project made with git init; install, then list --installed
mkdir -p "$W/proj" && cd "$W/proj" && git init -q . || exit 1
run list --installed </dev/null
expect_rc 0 "list --installed with nothing installed"
lines "$T/out" 0 "nothing on stdout when nothing is installed"
has "$T/err" "nothing installed by skit here yet" "one line on stderr says so"
run list --installed --json </dev/null
lacks "$T/err" "nothing installed" "--json stays quiet on stderr"
run install "$EX/csv-report" </dev/null
expect_rc 0 "install into the project"
run list --installed </dev/null
expect_rc 0 "list --installed"
has "$T/out" "csv-report" "list --installed shows the project install"
has "$T/out" "project" "list --installed names the scope"
run list --installed --json </dev/null
expect_rc 0 "list --installed --json"
has "$T/out" '"name": "csv-report"' "JSON lists the project install"
run install --scope user "$EX/pdf-text" </dev/null
expect_rc 0 "install --scope user"
run list --installed --scope user </dev/null
expect_rc 0 "list --installed --scope user"
has "$T/out" "pdf-text" "the user install is listed"
lacks "$T/out" "csv-report" "--scope user leaves the project out"
run list --installed </dev/null
has "$T/out" "csv-report" "both scopes: project"
has "$T/out" "pdf-text" "both scopes: user"
reg_done
