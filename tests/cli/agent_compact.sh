#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_compact.sh - the context window, against a fake model that has
# one (tests/support/window_model.py answers 400 context_length_exceeded
# past it, as OpenAI does): a scripted 200-turn chat in a 16k-token
# window never passes it, every compaction keeps the active skill's body,
# and every message is answered; a provider's context-length error
# compacts once and retries; a tool result too large for the window is
# cut with a note; Ctrl-C during a reply leaves an assistant turn saying
# so, which the next request carries.
. "$(dirname "$0")/agent_lib.inc"
agent_world
P=$W/proj
mkdir -p "$P/.agents"
cd "$P" || exit 1

start_model() { # start_model WINDOW: the fake model, its port in $PORT
	rm -f "$T/port" "$T/model.log"
	python3 "$SKIT_SOURCE_DIR/tests/support/window_model.py" "$T/port" \
		"$T/model.log" "$1" &
	MODEL_PID=$!
	n=0
	while [ ! -s "$T/port" ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	PORT=$(cat "$T/port")
}
stop_model() {
	kill "$MODEL_PID" 2>/dev/null
	wait "$MODEL_PID" 2>/dev/null
}
chat_with() { # chat_with ARGS... < input: skit chat against the fake model
	OPENAI_API_KEY=sk-test OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" \
		timeout 300 "$SKIT" chat --yes --root "project=$W/skills" \
		--runs-dir "$W/runs" --no-stream --model openai:gpt-fake "$@" \
		>"$T/out" 2>"$T/err"
	rc=$?
}
count() { # count FILE PYTHON-EXPR: entries of the model log matching
	python3 -c 'import json,sys
n=0
for l in open(sys.argv[1]):
    e=json.loads(l)
    if eval(sys.argv[2]): n+=1
print(n)' "$1" "$2"
}

# --- 200 turns in a 16k window
start_model 16000
{
	echo "/alpha start the long task"
	i=2
	while [ $i -le 200 ]; do
		echo "message number $i"
		i=$((i + 1))
	done
} >"$T/long-in"
chat_with --context-window 16000 <"$T/long-in"
stop_model
expect_rc 0 "a 200-turn chat in a 16k window"
answered=$(grep -c '^REPLY-' "$T/out")
[ "$answered" -eq 200 ] && reg_pass || reg_fail "200 messages, $answered answered"
over=$(count "$T/model.log" 'e["overflow"]')
[ "$over" -eq 0 ] && reg_pass || reg_fail "$over requests passed the window"
comp=$(count "$T/model.log" 'e["kind"] == "compact"')
[ "$comp" -ge 3 ] && reg_pass || reg_fail "only $comp compactions in 200 turns"
# every chat request after a compaction carries the summary and the body
lost=$(count "$T/model.log" 'e["kind"] == "chat" and e["summary"] and "BODY-MARKER-alpha" not in e["markers"]')
[ "$lost" -eq 0 ] && reg_pass || reg_fail "$lost compacted requests lost the active skill's body"
with=$(count "$T/model.log" 'e["kind"] == "chat" and e["summary"]')
[ "$with" -gt 100 ] && reg_pass || reg_fail "only $with requests carried a summary"
last=$(tail -n 1 "$T/model.log")
case $last in *'message number 200'*) reg_pass ;; *) reg_fail "the last request is not message 200: $last" ;; esac
RUN=$(ls -td "$W"/runs/*/ | head -n 1)
events=$(grep -c '"type":"compaction"' "$RUN/events.jsonl")
[ "$events" -eq "$comp" ] && reg_pass || reg_fail "$events compaction events for $comp compactions"
has "$RUN/events.jsonl" '"tokens_before"' "the event has the tokens before"
has "$RUN/events.jsonl" '"tokens_after"' "and after"
# the session resumes in its compacted form
has "$RUN/session.jsonl" '"type":"compact"' "the session records the compaction"
run runs list --runs-dir "$W/runs"
has "$T/out" "alpha start the long task" "runs list shows the chat's first line"

# --- the same with Anthropic's API, and with the JSON action protocol
for mode in anthropic actions; do
	rm -rf "$W/runs"
	start_model 8000
	{
		echo "/alpha start the $mode task"
		i=2
		while [ $i -le 60 ]; do
			echo "message number $i"
			i=$((i + 1))
		done
	} >"$T/mid-in"
	if [ $mode = anthropic ]; then
		ANTHROPIC_API_KEY=sk-ant-test ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" \
			timeout 300 "$SKIT" chat --yes --root "project=$W/skills" \
			--runs-dir "$W/runs" --no-stream --model anthropic:claude-fake \
			--context-window 8000 <"$T/mid-in" >"$T/out" 2>"$T/err"
		rc=$?
	else
		chat_with --context-window 8000 --json-actions <"$T/mid-in"
	fi
	stop_model
	expect_rc 0 "60 turns in an 8k window ($mode)"
	answered=$(grep -c '^REPLY-' "$T/out")
	[ "$answered" -eq 60 ] && reg_pass || reg_fail "$mode: 60 messages, $answered answered"
	over=$(count "$T/model.log" 'e["overflow"]')
	[ "$over" -eq 0 ] && reg_pass || reg_fail "$mode: $over requests passed the window"
	comp=$(count "$T/model.log" 'e["kind"] == "compact"')
	[ "$comp" -ge 2 ] && reg_pass || reg_fail "$mode: only $comp compactions"
	lost=$(count "$T/model.log" 'e["kind"] == "chat" and e["summary"] and "BODY-MARKER-alpha" not in e["markers"]')
	[ "$lost" -eq 0 ] && reg_pass || reg_fail "$mode: $lost compacted requests lost the skill's body"
done

# --- the window from the user's config; a bad value is refused
mkdir -p "$XDG_CONFIG_HOME/skit"
printf '{"context_window": "big"}\n' >"$XDG_CONFIG_HOME/skit/config.json"
agent --model "replay:$CASS/final.jsonl" "go"
expect_rc 1 "a context_window that is not a number"
has "$T/err" "context_window: expected a whole number" "the error names the key"
printf '{"context_window": 4096}\n' >"$XDG_CONFIG_HOME/skit/config.json"
head -c 20000 /dev/zero | tr '\0' 'y' >"$P/cfg.txt"
printf '%s\n' '{"tool_calls": [{"id": "r1", "name": "read_file", "arguments": {"path": "cfg.txt"}}]}' \
	'{"text": "CFG-DONE", "expect": {"contains": ["result cut from"]}}' >"$T/cfg.jsonl"
agent --model "replay:$T/cfg.jsonl" "read cfg.txt"
expect_rc 0 "the window from the user config"
has "$T/out" "CFG-DONE" "the config's window cut the result"
rm -f "$XDG_CONFIG_HOME/skit/config.json" "$P/cfg.txt"

# --- the provider says the request is too long: compact once, retry
rm -rf "$W/runs"
OVERFLOW_AT=4 start_model 100000
printf 'one\ntwo\nthree\nfour\nfive\n' >"$T/short-in"
chat_with --context-window 100000 --trace <"$T/short-in"
stop_model
expect_rc 0 "a chat through a context-length error"
answered=$(grep -c '^REPLY-' "$T/out")
[ "$answered" -eq 5 ] && reg_pass || reg_fail "5 messages, $answered answered"
has "$T/err" "did not fit the model's context window" "the trace says why it compacts"
RUN=$(ls -td "$W"/runs/*/ | head -n 1)
has "$RUN/events.jsonl" '"reason":"overflow"' "the compaction is recorded as an overflow"
over=$(count "$T/model.log" 'e["overflow"]')
[ "$over" -eq 1 ] && reg_pass || reg_fail "$over overflowing requests, expected the one forced"

# --- a tool result larger than the window allows is cut with a note
head -c 20000 /dev/zero | tr '\0' 'x' >"$P/big.txt"
printf '%s\n' '{"tool_calls": [{"id": "r1", "name": "read_file", "arguments": {"path": "big.txt"}}]}' \
	'{"text": "READ-DONE", "expect": {"contains": ["result cut from"]}}' >"$T/big.jsonl"
agent --model "replay:$T/big.jsonl" --context-window 4096 --request-log "$T/req.jsonl" --trace "read big.txt"
expect_rc 0 "a result too large for the window"
has "$T/err" "to fit the context window" "the trace says the result was cut"
req 2
has "$T/req2" "to fit the model's context window" "the model is told"
rm -f "$P/big.txt"

# --- Ctrl-C during a reply: the conversation says the reply was cut
rm -rf "$W/runs" "$T/req.jsonl"
printf '%s\n' '{"text": "TOO-LATE", "delay_ms": 20000}' '{"text": "NEXT-ANSWER"}' >"$T/slow"
python3 "$SKIT_SOURCE_DIR/tests/support/openai_stub.py" "$T/slow" "$T/sport" "$T/stub.log" &
stub=$!
n=0
while [ ! -s "$T/sport" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
SPORT=$(cat "$T/sport")
OPENAI_API_KEY=sk-test OPENAI_BASE_URL="http://127.0.0.1:$SPORT/v1" \
	"$SKIT" run --yes --root "project=$W/skills" --runs-dir "$W/runs" \
	--model openai:gpt-fake "the first question" >"$T/out" 2>"$T/err" &
pid=$!
n=0
while [ ! -s "$T/stub.log" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
kill -INT $pid
wait $pid
rc=$?
expect_rc 130 "Ctrl-C during the reply"
OPENAI_API_KEY=sk-test OPENAI_BASE_URL="http://127.0.0.1:$SPORT/v1" \
	timeout 60 "$SKIT" run --yes --root "project=$W/skills" --runs-dir "$W/runs" \
	--model openai:gpt-fake --continue "the second question" >"$T/out" 2>"$T/err"
rc=$?
kill $stub 2>/dev/null
wait $stub 2>/dev/null
expect_rc 0 "the next message after Ctrl-C"
has "$T/out" "NEXT-ANSWER" "it is answered"
sed -n 2p "$T/stub.log" >"$T/second"
python3 -c 'import json,sys
m=json.load(open(sys.argv[1]))["messages"]
roles=[x["role"] for x in m if x["role"] != "system"]
assert roles == ["user", "assistant", "user"], roles
assert "interrupted by the user" in m[-2]["content"], m[-2]' "$T/second" 2>"$T/py-err" &&
	reg_pass || reg_fail "the second request: $(tail -n 1 "$T/py-err")"

reg_done
