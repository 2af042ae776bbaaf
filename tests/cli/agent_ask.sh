#!/bin/sh
# agent_ask.sh - ask_user (issue 31): on a terminal the question and its
# numbered options are shown and the answer (a number, or the user's own
# words) reaches the model; with no terminal the model is told no one can
# answer and to go on by its own judgment; the trail records the
# questions.
. "$(dirname "$0")/agent_lib.inc"
agent_world
if ! python3 -c 'import pty' 2>/dev/null; then
	reg_fail "python3 with pty is needed for this test"
	reg_done
fi
cd "$W" || exit 1

# On a terminal: "2" picks CSV, then words of the user's own.
rm -f "$T/req.jsonl"
printf '%s\n' '2\r' 'add the totals\r' | NO_COLOR=1 timeout 60 python3 \
	"$SKIT_SOURCE_DIR/tests/support/ptydrive.py" "$T/screen" -- \
	"$SKIT" run --root "project=$W/skills" --runs-dir "$W/runs" \
	--workdir "$W/work" --request-log "$T/req.jsonl" \
	--model "replay:$CASS/ask.jsonl" go
rc=$?
expect_rc 0 "run with questions on a terminal"
tr -d '\r' <"$T/screen" >"$T/s"
has "$T/s" "Which format should the report use?" "the question is shown"
has "$T/s" "  2) CSV" "with numbered options"
has "$T/req.jsonl" "The user answered: CSV" "a number picks its option"
has "$T/req.jsonl" "The user answered: add the totals" "own words are the answer"
has "$T/s" "ASK-DONE" "the run went on"
the_run
has "$RUN/events.jsonl" '"type":"user_question","question":"Which format should the report use?","options":3,"multi":false,"answered":true' \
	"the trail records the question"

# No terminal: the model is told, and the run goes on.
rm -f "$T/req.jsonl"
rm -rf "$W/runs"
agent --quiet --model "replay:$CASS/ask.jsonl" --request-log "$T/req.jsonl" go
expect_rc 0 "run with questions and no terminal"
has "$T/req.jsonl" "No one can answer a question now" "the model is told no one can answer"
has "$T/req.jsonl" "Go on by your own judgment" "and what to do"
lacks "$T/req.jsonl" "The user answered" "no answer is made up"
has "$T/out" "ASK-DONE" "the run finished"
the_run
has "$RUN/events.jsonl" '"answered":false' "the trail says it was not answered"
reg_done
