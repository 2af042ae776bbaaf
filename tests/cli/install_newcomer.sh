#!/bin/sh
# install_newcomer.sh - install and uninstall on the path a new user
# takes: no --root, a scratch HOME, a project made with `git init`,
# relative paths, no terminal (issue 35, points 7, 10 and 11).
#
# - 7: `skit uninstall NAME` of a skill installed in the other scope says
#   where it is and the command that removes it; a misspelt name gets
#   "did you mean";
# - 10: `skit install` says when a skill loaded with warnings, and, in a
#   project the user has not trusted, that the agent leaves it out until
#   `skit trust`;
# - 11: installing again from another ref with the same files reports the
#   change of source (what `skit update` follows), not "already up to
#   date".
. "$(dirname "$0")/registry_lib.inc"
reg_setup

skill "$W/src" pdf "Work with PDF files."
mkdir -p "$W/src/colon"
printf -- '---\nname: colon\ndescription: Notes: kept short.\n---\nBody.\n' \
	>"$W/src/colon/SKILL.md"
mkdir -p "$W/proj" && cd "$W/proj" && git init -q . || exit 1

# --- 10: an untrusted project, a skill with a warning
run install ../src/pdf </dev/null
expect_rc 0 "install into an untrusted project"
has "$T/err" "leave its skills out until you run 'skit trust $W/proj'" "install names skit trust"
lacks "$T/err" "warning" "a clean skill has no warning"
run install ../src/colon </dev/null
expect_rc 0 "install a skill that loads with a warning"
has "$T/err" "warning: colon loaded with 1 warning (description-unquoted-colon" "install names the warning"
has "$T/err" "skit validate $W/proj/.agents/skills/colon" "and how to see it"
run trust . </dev/null
expect_rc 0 "trust the project"
run install ../src/pdf --force </dev/null
expect_rc 0 "install again in a trusted project"
lacks "$T/err" "skit trust" "no trust note once trusted"

# --- 7: uninstall in the wrong scope, and a misspelt name
run install --scope user ../src/pdf </dev/null
expect_rc 0 "install into the user scope too"
run uninstall pdf </dev/null
expect_rc 0 "uninstall from the project"
run uninstall pdf </dev/null
expect_rc 2 "uninstall again: not in the project"
has "$T/err" "hint: pdf is installed in the user scope ($HOME/.agents/skills): skit uninstall --scope user pdf" "the other scope is named"
run uninstall clon </dev/null
expect_rc 2 "a misspelt name"
has "$T/err" "hint: did you mean 'colon'?" "did you mean"
run uninstall --scope user pfd </dev/null
expect_rc 2 "a misspelt name in the user scope"
has "$T/err" "hint: did you mean 'pdf'?" "did you mean, user scope"
run uninstall --scope user pdf </dev/null
expect_rc 0 "the hint's command works"

# --- 11: the same files from another ref
mkdir -p "$W/repo" && cp -r "$W/src/pdf" "$W/repo/" || exit 1
(cd "$W/repo" && git init -q . && git add . &&
	git -c user.name=t -c user.email=t@example.org commit -q -m one &&
	git tag v1) || exit 1
run install "file://$W/repo" </dev/null
expect_rc 0 "install from the default branch"
run install "file://$W/repo#v1" </dev/null
expect_rc 0 "install the same files from a tag"
has "$T/out" "changed the source of pdf (same files): file://$W/repo -> file://$W/repo#v1" "the change of source is reported"
lacks "$T/out" "already up to date" "not 'already up to date'"
has .agents/skills/.skit-lock.json "\"source\": \"file://$W/repo#v1\"" "the lock follows the tag"
run install "file://$W/repo#v1" --json </dev/null
expect_rc 0 "install again from the tag"
has "$T/out" '"previous_source": null' "nothing changed this time"
run install "file://$W/repo" --json </dev/null
has "$T/out" "\"previous_source\": \"file://$W/repo#v1\"" "JSON names the previous source"

reg_done
