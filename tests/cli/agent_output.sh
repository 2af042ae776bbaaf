#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_output.sh - what `skit run` and `skit chat` print on stdout: the
# answer with or without --no-stream, and the texts of separate model
# turns on lines of their own.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1
TALK=$SKIT_SOURCE_DIR/tests/api/scenarios/plan_talk.jsonl

agent --model "replay:$TALK" "plan and answer"
expect_rc 0 "run"
printf 'Let me plan.\nAll done.\n' >"$T/want"
cmp -s "$T/out" "$T/want" && reg_pass ||
	reg_fail "run: turns on their own lines, got: $(cat "$T/out")"

agent --no-stream --model "replay:$TALK" "plan and answer"
expect_rc 0 "run --no-stream"
cmp -s "$T/out" "$T/want" && reg_pass ||
	reg_fail "run --no-stream prints the texts, got: $(cat "$T/out")"

agent --no-stream --json --model "replay:$TALK" "plan and answer"
expect_rc 0 "run --no-stream --json"
has "$T/out" '"answer": "All done."' "--json holds the answer"
lacks "$T/out" "Let me plan.All" "--json: nothing streamed before the JSON"

for mode in "" --no-stream; do
	printf 'plan and answer\n' |
		timeout 60 "$SKIT" chat --yes --root "project=$W/skills" \
			--runs-dir "$W/runs" $mode --model "replay:$TALK" \
			>"$T/out" 2>"$T/err"
	rc=$?
	expect_rc 0 "chat $mode"
	cmp -s "$T/out" "$T/want" && reg_pass ||
		reg_fail "chat $mode: turns on their own lines, got: $(cat "$T/out")"
done
reg_done
