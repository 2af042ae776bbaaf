#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_chat.sh - `skit chat` with piped stdin: two messages, /skills,
# /plan, /exit; the conversation carries over (the second request holds
# the first answer; the cassette's "expect" checks it too); one run
# folder for the session.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1

printf 'hello from the user\n/skills\n/plan\n\nsecond message\n/exit\nnot sent\n' |
	timeout 60 "$SKIT" chat --yes --root "project=$W/skills" --runs-dir "$W/runs" \
		--model "replay:$CASS/chat.jsonl" --request-log "$T/req.jsonl" \
		>"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "chat"
has "$T/out" "FIRST-ANSWER-XYZ" "first answer"
has "$T/out" "SECOND-ANSWER" "second answer"
has "$T/out" "alpha" "/skills lists alpha"
has "$T/out" "epsilon" "/skills lists epsilon"
has "$T/out" "Greet the user" "/plan shows the plan"
lines "$T/req.jsonl" 3 "three requests (/exit stops; REPL commands are local)"
req 3
has "$T/req3" "FIRST-ANSWER-XYZ" "request 3 carries the first answer"
has "$T/req3" "hello from the user" "request 3 carries the first message"
lacks "$T/req.jsonl" "not sent" "nothing after /exit"
lacks "$T/req.jsonl" "\"text\":\"/skills" "/skills is not sent to the model"
lacks "$T/req.jsonl" "\"text\":\"/plan" "/plan is not sent to the model"
the_run
has "$RUN/events.jsonl" '"text":"second message"' "one run for the session"
[ "$(json_get "$RUN/run.json" '["status"]')" = ok ] && reg_pass ||
	reg_fail "chat run.json status"

# a failing message does not end the session
rm -rf "$W/runs" "$T/req.jsonl"
printf '/nosuch\nhello from the user\n' |
	timeout 60 "$SKIT" chat --yes --root "project=$W/skills" --runs-dir "$W/runs" \
		--model "replay:$CASS/chat.jsonl" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "chat after /nosuch"
has "$T/err" "nosuch" "chat reports /nosuch"
has "$T/out" "FIRST-ANSWER-XYZ" "chat goes on after /nosuch"

# chat takes no arguments
run chat --model "replay:$CASS/chat.jsonl" extra
expect_rc 2 "chat with an argument"

reg_done
