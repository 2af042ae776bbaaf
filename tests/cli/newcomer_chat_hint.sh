#!/bin/sh
# newcomer_chat_hint.sh - a mistyped slash command in `skit chat` gets a
# "did you mean" (issue 35, point 13), on a user's path: a project made
# with `git init` and trusted, the example skills installed, HOME a
# scratch folder, chat read from a pipe (no terminal), an offline model.
. "$(dirname "$0")/registry_lib.inc"
reg_setup
EX=$SKIT_SOURCE_DIR/examples/skills
mkdir -p "$W/proj" && cd "$W/proj" && git init -q . || exit 1
"$SKIT" install "$EX/csv-report" >/dev/null 2>&1 </dev/null || reg_fail "install"
"$SKIT" trust >/dev/null 2>&1 </dev/null || reg_fail "trust"
printf '{"text": "ok"}\n{"text": "ok"}\n{"text": "ok"}\n' >"$T/cassette.jsonl"

printf '/skils\n/csv-reprt data.csv\n/plna\n/xyzzy\n/exit\n' |
	timeout 60 "$SKIT" chat --model "replay:$T/cassette.jsonl" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "chat with mistyped slash commands"
has "$T/err" "no skill named 'skils'" "chat says /skils is unknown"
has "$T/err" "Did you mean '/skills'?" "/skils: did you mean /skills"
has "$T/err" "Did you mean '/csv-report'?" "/csv-reprt: did you mean the skill"
has "$T/err" "Did you mean '/plan'?" "/plna: did you mean /plan"
n=$(grep -c "Did you mean" "$T/err")
[ "$n" = 3 ] && reg_pass || reg_fail "$n hints for 3 typos and one far-off word"
# skit run: a mistyped skill gets the hint; chat's own commands are not
# offered, as run has none
timeout 60 "$SKIT" run --model "replay:$T/cassette.jsonl" "/csv-reprt data.csv" \
	>"$T/out" 2>"$T/err" </dev/null
rc=$?
expect_rc 1 "run with a mistyped skill"
has "$T/err" "Did you mean '/csv-report'?" "run /csv-reprt: did you mean the skill"
timeout 60 "$SKIT" run --model "replay:$T/cassette.jsonl" "/skils" \
	>"$T/out" 2>"$T/err" </dev/null
lacks "$T/err" "Did you mean '/skills'?" "run does not offer chat's /skills"
reg_done
