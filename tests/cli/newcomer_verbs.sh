#!/bin/sh
# newcomer_verbs.sh - the verbs users of npm, cargo, gh and `npx skills`
# type (issue 35, point 5), in a project made with `git init`, HOME a
# scratch folder, no terminal: `add`, `ls`, `rm` and `remove` run
# install, list and uninstall under those commands' own names; `delete`
# is not guessed into an action but gets "Did you mean 'skit
# uninstall'?"; a typo of an alias names the command it stands for.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
EX=$SKIT_SOURCE_DIR/examples/skills
mkdir -p "$W/proj" && cd "$W/proj" && git init -q . || exit 1

run add "$EX/csv-report" </dev/null
expect_rc 0 "skit add DIR"
[ -f .agents/skills/csv-report/SKILL.md ] && reg_pass ||
	reg_fail "skit add did not install into .agents/skills"
run ls </dev/null
expect_rc 0 "skit ls"
has "$T/out" "csv-report" "skit ls lists the skill"
run ls --installed </dev/null
has "$T/out" "csv-report" "skit ls --installed"
run ls --bogus </dev/null
expect_rc 2 "skit ls --bogus"
has "$T/err" "Try 'skit list --help'." "an alias's errors name the command"
run help rm </dev/null
expect_rc 0 "skit help rm"
has "$T/out" "usage: skit uninstall" "help of an alias is the command's"

run delete csv-report </dev/null
expect_rc 2 "skit delete"
has "$T/err" "unknown command 'delete'" "delete is not a command"
has "$T/err" "Did you mean 'skit uninstall'?" "delete suggests uninstall"
[ -d .agents/skills/csv-report ] && reg_pass ||
	reg_fail "skit delete removed the skill"
run remvoe csv-report </dev/null
expect_rc 2 "a typo of remove"
has "$T/err" "Did you mean 'skit uninstall'?" "a typo of an alias"

run rm csv-report </dev/null
expect_rc 0 "skit rm NAME"
[ ! -e .agents/skills/csv-report ] && reg_pass ||
	reg_fail "skit rm left the skill"
run add "$EX/pdf-text" </dev/null
run remove pdf-text </dev/null
expect_rc 0 "skit remove NAME"
[ ! -e .agents/skills/pdf-text ] && reg_pass ||
	reg_fail "skit remove left the skill"

run --help </dev/null
has "$T/out" "Aliases: add (install), ls (list), rm and remove (uninstall)." \
	"skit --help names the aliases"
reg_done
