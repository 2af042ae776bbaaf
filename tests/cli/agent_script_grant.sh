#!/bin/sh
# agent_script_grant.sh - the approval flag suggested for a refused
# script names its skill, and approves that skill's script only: not
# another skill's script of the same path.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1
printf '%s\n' \
	'{"tool_calls": [{"id": "u1", "name": "use_skill", "arguments": {"name": "alpha"}}, {"id": "u2", "name": "use_skill", "arguments": {"name": "beta"}}]}' \
	'{"tool_calls": [{"id": "s1", "name": "run_skill_script", "arguments": {"skill": "alpha", "path": "scripts/run.sh"}}]}' \
	'{"tool_calls": [{"id": "s2", "name": "run_skill_script", "arguments": {"skill": "beta", "path": "scripts/run.sh"}}]}' \
	'{"text": "DONE"}' >"$T/two.jsonl"

# grun ARGS...: the two-skill cassette, no terminal, no --yes
grun() {
	rm -f "$T/req.jsonl"
	timeout 60 "$SKIT" run --root "project=$W/skills" --runs-dir "$W/runs" \
		--workdir "$W/work" --quiet --request-log "$T/req.jsonl" \
		--model "replay:$T/two.jsonl" "$@" go </dev/null >"$T/out" 2>"$T/err"
	rc=$?
}

grun
expect_rc 0 "refusals end the run normally"
has "$T/err" "--allow 'run_skill_script(alpha:scripts/run.sh)'" \
	"the suggested flag names the skill"
has "$T/err" "--allow 'run_skill_script(beta:scripts/run.sh)'" \
	"each refused script gets its own"
lacks "$T/err" "run_skill_script(scripts/run.sh:*)" "no flag without the skill"

grun --allow 'run_skill_script(alpha:scripts/run.sh)'
has "$T/req.jsonl" "SCRIPT-OUT-alpha" "the grant runs alpha's script"
lacks "$T/req.jsonl" "SCRIPT-OUT-beta" "and not beta's script of the same path"
has "$T/err" "--allow 'run_skill_script(beta:scripts/run.sh)'" \
	"beta's script is still refused, with its own flag"

# The printed command line approves exactly what it names.
cmd=$(sed -n 's/^  to approve it, run: skit //p' "$T/err" | head -n 1)
rm -f "$T/req.jsonl"
eval "timeout 60 \"\$SKIT\" $cmd" </dev/null >"$T/out" 2>"$T/err"
has "$T/req.jsonl" "SCRIPT-OUT-beta" "the printed command runs beta's script"
has "$T/req.jsonl" "SCRIPT-OUT-alpha" "and alpha's, from the earlier flag"

# issue: the narrowest --allow for "rm -rf build :*" was
# --allow 'Bash(rm -rf build :*)', a prefix rule for every "rm -rf
# build ...". The hint must grant that call only: here, --yes.
printf '%s\n' \
	'{"tool_calls": [{"id": "r1", "name": "shell", "arguments": {"command": "rm -rf build :*"}}]}' \
	'{"text": "DONE"}' >"$T/rm.jsonl"
mkdir -p "$W/work/build"
rm -f "$T/req.jsonl"
timeout 60 "$SKIT" run --root "project=$W/skills" --runs-dir "$W/runs" \
	--workdir "$W/work" --quiet --request-log "$T/req.jsonl" \
	--allow 'Bash(true)' --model "replay:$T/rm.jsonl" go </dev/null \
	>"$T/out" 2>"$T/err"
has "$T/err" "shell: rm -rf build :*" "the call is refused and shown"
lacks "$T/err" "Bash(rm -rf build :*)" "no prefix rule is suggested"
has "$T/err" "to approve it, run: skit run --yes" "the hint falls back to --yes"
[ -d "$W/work/build" ] && reg_pass || reg_fail "the refused call ran"
reg_done
