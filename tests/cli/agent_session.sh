#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_session.sh - sessions: every run keeps its conversation in the run
# folder's session.jsonl; `skit run --continue` and `skit chat --resume`
# send the same conversation to the model again (the request log shows
# it); a skill changed on disk is activated again, a removed one dropped;
# a session cut by kill -9 continues where it stopped; a damaged session
# or one of another format is refused and nothing runs; `skit runs list`
# shows the sessions; chat's /clear, /resume, /model, /compact, /context.
. "$(dirname "$0")/agent_lib.inc"
agent_world
P=$W/proj
mkdir -p "$P/.agents"
cd "$P" || exit 1

cass() { # cass NAME LINE...: a cassette in $T/NAME.jsonl
	f=$T/$1.jsonl
	shift
	printf '%s\n' "$@" >"$f"
}

# --- a run is a session
cass one '{"tool_calls": [{"id": "u1", "name": "use_skill", "arguments": {"name": "alpha"}}]}' \
	'{"tool_calls": [{"id": "p1", "name": "update_plan", "arguments": {"steps": [{"step": "Say hello", "status": "in_progress"}]}}]}' \
	'{"text": "FIRST-RUN-ANSWER"}'
agent --model "replay:$T/one.jsonl" "first task about PINEAPPLE"
expect_rc 0 "first run"
the_run
RUN1=$RUN
ID1=$(basename "$RUN1")
[ -f "$RUN1/session.jsonl" ] && reg_pass || reg_fail "no session.jsonl in the run folder"
jsonl_ok "$RUN1/session.jsonl" "session.jsonl"
has "$RUN1/session.jsonl" '"format":"skit-session"' "the header names the format"
has "$RUN1/session.jsonl" '"type":"skill"' "the activation is recorded"
has "$RUN1/session.jsonl" '"digest":"' "with the digest set of its files"
has "$RUN1/session.jsonl" 'Say hello' "the plan is recorded"
has "$RUN1/session.jsonl" 'FIRST-RUN-ANSWER' "the answer is recorded"

# --- the API key never reaches the session file (redacted as in events)
printf '%s\n' '{"text": "the key is sk-test-SECRETKEY-0123456789"}' >"$T/key.jsonl"
python3 "$SKIT_SOURCE_DIR/tests/support/openai_stub.py" "$T/key.jsonl" "$T/kport" "$T/key.log" &
kstub=$!
n=0
while [ ! -s "$T/kport" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
OPENAI_API_KEY=sk-test-SECRETKEY-0123456789 OPENAI_BASE_URL="http://127.0.0.1:$(cat "$T/kport")/v1" \
	timeout 60 "$SKIT" run --root "project=$W/skills" --runs-dir "$W/keyruns" \
	--model openai:gpt-x "echo sk-test-SECRETKEY-0123456789 please" >"$T/out" 2>"$T/err" </dev/null
rc=$?
kill $kstub 2>/dev/null
expect_rc 0 "a run with an API key in its conversation"
lacks "$(ls -d "$W"/keyruns/*/)session.jsonl" "SECRETKEY" "the key is redacted in session.jsonl"
has "$(ls -d "$W"/keyruns/*/)session.jsonl" "[REDACTED]" "as [REDACTED]"

# --- run --continue: the same conversation goes to the model
cass two '{"text": "SECOND-RUN-ANSWER", "expect": {"contains": ["PINEAPPLE", "FIRST-RUN-ANSWER", "BODY-MARKER-alpha", "and now MANGO"]}}'
agent --model "replay:$T/two.jsonl" --request-log "$T/req.jsonl" --continue "and now MANGO"
expect_rc 0 "run --continue"
has "$T/out" "SECOND-RUN-ANSWER" "the continued run answers"
has "$T/err" "continuing session $ID1" "it says which session it continues"
has "$T/err" "first task about PINEAPPLE" "... and its first line"
req 1
has "$T/req1" "first task about PINEAPPLE" "request 1 holds the first task"
has "$T/req1" "FIRST-RUN-ANSWER" "... the first answer"
has "$T/req1" "BODY-MARKER-alpha" "... the active skill's body"
has "$T/req1" "and now MANGO" "... and the new message"
RUN2=$(ls -td "$W"/runs/*/ | head -n 1)
RUN2=${RUN2%/}
has "$RUN2/session.jsonl" "\"resumed_from\":\"$ID1\"" "the new session names the one it continues"
has "$RUN2/events.jsonl" '"type":"session_resumed"' "the trail records the resume"
has "$RUN2/session.jsonl" 'Say hello' "the plan carries over"

# --- runs list shows sessions and their first line
run runs list --runs-dir "$W/runs"
expect_rc 0 "runs list"
has "$T/out" "first task about PINEAPPLE" "runs list shows the first line"
has "$T/out" "first task about PINEAPPLE (continued: and now MANGO)" \
	"a resumed session: its first line, then the run's"
run runs list --runs-dir "$W/runs" --json
has "$T/out" "\"resumed_from\": \"$ID1\"" "runs list --json names the session continued"
run runs show "$(basename "$RUN2")" --runs-dir "$W/runs"
has "$T/out" "$ID1" "runs show names the session continued"

# --- a skill changed on disk is activated again; the model is told
printf '\nBODY-MARKER-CHANGED\n' >>"$W/skills/alpha/SKILL.md"
cass three '{"text": "THIRD", "expect": {"contains": ["changed on disk", "BODY-MARKER-CHANGED", "third message"]}}'
agent --model "replay:$T/three.jsonl" --trace --continue "third message"
expect_rc 0 "continue after a skill changed"
has "$T/err" "changed on disk" "the trace says the skill changed"

# --- a skill removed is dropped; the model is told to stop following it
mv "$W/skills/alpha" "$T/alpha.away"
cass four '{"text": "FOURTH", "expect": {"contains": ["is no longer available", "fourth message"]}}'
agent --model "replay:$T/four.jsonl" --trace --continue "fourth message"
expect_rc 0 "continue after a skill was removed"
has "$T/err" "dropped" "the trace says the skill was dropped"
mv "$T/alpha.away" "$W/skills/alpha"

# --- resume by id (any earlier session), and a unique prefix of one
cass five '{"text": "FIVE", "expect": {"contains": ["first task about PINEAPPLE", "fifth"]}, "expect_not": ["and now MANGO"]}'
agent --model "replay:$T/five.jsonl" --resume "$ID1" "fifth"
expect_rc 0 "run --resume ID"
has "$T/err" "continuing session $ID1" "resume by id"

# --- damaged sessions are refused whole, and nothing runs
LAST=$(ls -td "$W"/runs/*/ | head -n 1)
LAST=${LAST%/}
cp "$LAST/session.jsonl" "$T/good.jsonl"
rm -f "$T/req.jsonl"
# a line in the middle that is not JSON
sed '3s/.*/{not json/' "$T/good.jsonl" >"$LAST/session.jsonl"
agent --model "replay:$CASS/final.jsonl" --request-log "$T/req.jsonl" --continue "go on"
expect_rc 2 "a damaged session"
has "$T/err" "line 3" "the error names the line"
has "$T/err" "not loaded" "and says nothing was loaded"
[ ! -s "$T/req.jsonl" ] && reg_pass || reg_fail "a model request was sent for a damaged session"
# a missing line (a gap in the sequence)
sed '4d' "$T/good.jsonl" >"$LAST/session.jsonl"
agent --model "replay:$CASS/final.jsonl" --continue "go on"
expect_rc 2 "a session with a line missing"
has "$T/err" "out of sequence" "the gap is named"
# another format version
sed '1s/"version":1/"version":99/' "$T/good.jsonl" >"$LAST/session.jsonl"
agent --model "replay:$CASS/final.jsonl" --continue "go on"
expect_rc 2 "a session of another format"
has "$T/err" "format 99" "the error names the format"
# a session file open to other users (as a repository's planted one is:
# git checks files out 0644) is not taken
cp "$T/good.jsonl" "$LAST/session.jsonl"
chmod 0644 "$LAST/session.jsonl"
agent --model "replay:$CASS/final.jsonl" --resume "$(basename "$LAST")" "go on"
expect_rc 1 "a session file open to others"
has "$T/err" "was not written by your skit" "the error says why"
cass open '{"text": "OPEN"}'
agent --model "replay:$T/open.jsonl" --continue "go on"
expect_rc 0 "--continue passes over a session file open to others"
lacks "$T/err" "continuing session $(basename "$LAST")" "... to the user's own last one"
chmod 0600 "$LAST/session.jsonl"
# a last record cut short (what a crash leaves) is left out; the rest loads
head -c -20 "$T/good.jsonl" >"$LAST/session.jsonl"
cass six '{"text": "SIX"}'
agent --model "replay:$T/six.jsonl" --resume "$(basename "$LAST")" "go on"
expect_rc 0 "a session whose last record was cut short"
cp "$T/good.jsonl" "$LAST/session.jsonl"

# --- kill -9 during a script: the session continues where it stopped
rm -rf "$W/runs"
mkdir -p "$W/runs"
cass kill '{"tool_calls": [{"id": "k1", "name": "use_skill", "arguments": {"name": "scr"}}]}' \
	'{"tool_calls": [{"id": "k2", "name": "run_skill_script", "arguments": {"skill": "scr", "path": "scripts/sleep.sh"}}]}' \
	'{"text": "NEVER"}'
"$SKIT" run --yes --root "project=$W/skills" --runs-dir "$W/runs" --workdir "$W/work" \
	--model "replay:$T/kill.jsonl" "task KILLED-MIDWAY" >"$T/out" 2>"$T/err" &
pid=$!
n=0
while ! grep -q '"run_skill_script"' "$W"/runs/*/events.jsonl 2>/dev/null && [ $n -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
pkill -9 -f "$W/skills/scr/scripts/sleep.sh" 2>/dev/null
cass after '{"text": "AFTER-KILL", "expect": {"contains": ["KILLED-MIDWAY", "the session stopped before", "SCR-BODY", "carry on"]}}'
agent --model "replay:$T/after.jsonl" --request-log "$T/req.jsonl" --continue "carry on"
expect_rc 0 "continue after kill -9"
has "$T/out" "AFTER-KILL" "the continued session answers"
req 1
has "$T/req1" '"tool_call_id":"k2"' "the interrupted call is answered in the history"

# --- no session of this project
rm -rf "$W/runs2"
agent --model "replay:$CASS/final.jsonl" --runs-dir "$W/runs2" --continue "x"
expect_rc 2 "--continue with no session"
has "$T/err" "no session of this project" "says there is none"

# --- chat: --resume, /context, /compact, /model, /clear, /resume
rm -rf "$W/runs" "$T/req.jsonl"
mkdir -p "$W/runs"
cass chat1 '{"text": "CHAT-ONE"}' '{"text": "CHAT-TWO"}'
printf 'remember KIWI\nsecond line\n/exit\n' |
	timeout 60 "$SKIT" chat --yes --root "project=$W/skills" --runs-dir "$W/runs" \
		--model "replay:$T/chat1.jsonl" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "first chat"
cass chat2 '{"text": "RESUMED-ANSWER", "expect": {"contains": ["remember KIWI", "CHAT-TWO", "after resume"]}}' \
	'{"text": "SUMMARY-TEXT of the chat"}' \
	'{"text": "AFTER-COMPACT", "expect": {"contains": ["SUMMARY-TEXT", "after compact"], "not_contains": ["remember KIWI"]}}'
cass chat3 '{"text": "AFTER-CLEAR", "expect": {"not_contains": ["SUMMARY-TEXT", "remember KIWI"]}}' \
	'{"text": "AFTER-RESUME-AGAIN", "expect": {"contains": ["SUMMARY-TEXT", "AFTER-COMPACT", "again"], "not_contains": ["after clear"]}}'
printf 'after resume\n/context\n/compact keep the fruit\nafter compact\n/model replay:%s\n/clear\nafter clear\n/resume\nagain\n/exit\n' "$T/chat3.jsonl" >"$T/chat-in"
timeout 60 "$SKIT" chat --yes --root "project=$W/skills" --runs-dir "$W/runs" \
	--model "replay:$T/chat2.jsonl" --request-log "$T/req.jsonl" --resume <"$T/chat-in" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "chat --resume with session commands"
has "$T/out" "RESUMED-ANSWER" "the resumed chat carries the conversation"
has "$T/out" "context: about" "/context reports the window"
has "$T/out" "AFTER-COMPACT" "the compacted conversation goes on"
has "$T/req.jsonl" "keep the fruit" "/compact's focus reaches the summary request"
has "$T/out" "from the next message" "/model switches the model"
has "$T/out" "New session" "/clear starts a new session"
has "$T/out" "AFTER-CLEAR" "the cleared session answers"
has "$T/out" "AFTER-RESUME-AGAIN" "/resume continues the last session with a conversation"
grep -q '"type":"compaction"' "$W"/runs/*/events.jsonl && reg_pass ||
	reg_fail "no compaction event in the trail"

# a /resume that cannot start leaves the chat in its session
OLD=$(ls -td "$W"/runs/*/ | tail -n 1)
OLD=${OLD%/}
chmod 0644 "$OLD/session.jsonl"
cass stay '{"text": "STILL-HERE"}'
printf '/resume %s\nare you there\n/exit\n' "$(basename "$OLD")" |
	timeout 60 "$SKIT" chat --yes --root "project=$W/skills" --runs-dir "$W/runs" \
		--model "replay:$T/stay.jsonl" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "chat after a /resume that failed"
has "$T/err" "was not written by your skit" "the failed /resume says why"
has "$T/out" "STILL-HERE" "the chat goes on in its own session"

reg_done
