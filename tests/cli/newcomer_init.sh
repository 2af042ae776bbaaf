#!/bin/sh
# newcomer_init.sh - `skit init` on a new user's path (issue 35, point 2):
# HOME a scratch folder, a project made with `git init`, no terminal.
#
# - `skit init NAME` in a project (or in one of its subfolders) creates
#   <project>/.agents/skills/NAME, says so, and `list`, `show` and the
#   agent's `/NAME` find the skill once the project is trusted;
# - `skit init PATH/NAME` creates exactly that folder, as `cargo new
#   path/x` does (the name is the last component, parents are made);
# - outside any project, `skit init NAME` creates ./NAME and says it is
#   in no skills root; `--scope user` puts it in ~/.agents/skills.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
P=$W/proj
mkdir -p "$P/src/deep" && cd "$P" && git init -q . || exit 1

run init my-skill --description "Say hello. Use when greeting." </dev/null
expect_rc 0 "init NAME in a project"
[ -f .agents/skills/my-skill/SKILL.md ] && reg_pass ||
	reg_fail "init NAME did not create .agents/skills/my-skill"
[ ! -e my-skill ] && reg_pass || reg_fail "init NAME also created ./my-skill"
has "$T/out" "Created .agents/skills/my-skill (project:agents" "init says where"
has "$T/err" "skit trust" "init in an untrusted project says how to trust it"
run list </dev/null
has "$T/out" "my-skill" "list finds the new skill"
run show my-skill </dev/null
expect_rc 0 "show finds the new skill"
run validate .agents/skills/my-skill </dev/null
expect_rc 0 "the new skill is valid"

# From a subfolder: still the project's skills folder.
cd "$P/src/deep" || exit 1
run init other-skill </dev/null
expect_rc 0 "init NAME in a subfolder"
[ -f "$P/.agents/skills/other-skill/SKILL.md" ] && reg_pass ||
	reg_fail "init NAME in a subfolder missed the project's root"
has "$T/out" "$P/.agents/skills/other-skill" "the absolute path from a subfolder"
cd "$P" || exit 1

# The agent finds it once the project is trusted (offline model).
run trust </dev/null
expect_rc 0 "trust"
printf '%s\n' '{"text": "hello"}' >"$T/cassette.jsonl"
run run --model "replay:$T/cassette.jsonl" "/my-skill now" </dev/null
expect_rc 0 "the agent runs /my-skill"
lacks "$T/err" "no skill named" "the agent knows /my-skill"

# PATH/NAME, as cargo new: exactly there, parents made.
run init skills/my-tool </dev/null
expect_rc 0 "init PATH/NAME"
[ -f skills/my-tool/SKILL.md ] && reg_pass ||
	reg_fail "init skills/my-tool did not create skills/my-tool"
grep -q '^name: my-tool$' skills/my-tool/SKILL.md && reg_pass ||
	reg_fail "init PATH/NAME: the name is not the last component"
run init ./here-skill/ </dev/null
expect_rc 0 "init ./NAME/"
[ -f here-skill/SKILL.md ] && reg_pass || reg_fail "init ./NAME/ missed ./"
run init skills/My_Tool </dev/null
expect_rc 2 "init PATH/bad-name"
has "$T/err" "'My_Tool' is not a valid skill name" "the bad component is named"
has "$T/err" "try 'my-tool'" "the suggestion is for the last component"
run init --scope user skills/x </dev/null
expect_rc 2 "--scope with a path"
run init my-skill </dev/null
expect_rc 1 "init over an existing skill"
has "$T/err" "already exists" "init refuses an existing folder"

# Outside any project (a folder of HOME: the search stops there):
# ./NAME, and a note that no root holds it.
mkdir -p "$HOME/loose" && cd "$HOME/loose" || exit 1
run init loose-skill </dev/null
expect_rc 0 "init NAME outside a project"
[ -f loose-skill/SKILL.md ] && reg_pass || reg_fail "outside a project: ./NAME"
has "$T/err" "in no skills root" "outside a project: init says so"
run init --scope user mine </dev/null
expect_rc 0 "init --scope user"
[ -f "$HOME/.agents/skills/mine/SKILL.md" ] && reg_pass ||
	reg_fail "--scope user: not in ~/.agents/skills"
run list </dev/null
has "$T/out" "mine" "list finds the user's new skill"
run init --scope project nope </dev/null
expect_rc 2 "--scope project outside a project"
has "$T/err" "no project here" "--scope project outside a project"
reg_done
