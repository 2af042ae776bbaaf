#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_signal.sh - Ctrl-C during `skit run`: SIGINT while a script
# sleeps stops the script and the run quickly; exit 130, run.json status
# "canceled", events.jsonl readable, no script left behind. In `skit
# chat`, Ctrl-C stops the current answer, not the session.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1

"$SKIT" run --yes --root "project=$W/skills" --runs-dir "$W/runs" \
	--workdir "$W/work" --quiet --model "replay:$CASS/slow.jsonl" \
	go >"$T/out" 2>"$T/err" &
pid=$!
# wait (at most ~10 s) until the script is running
i=0
while [ $i -lt 100 ]; do
	if grep -q '"run_skill_script"' "$W"/runs/*/events.jsonl 2>/dev/null; then
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
[ $i -lt 100 ] && reg_pass || reg_fail "the script never started"
sleep 0.3
kill -INT "$pid"
# it must end within ~5 s
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 "$pid" 2>/dev/null; then
	reg_fail "skit run still running 5 s after SIGINT"
	kill -KILL "$pid"
fi
wait "$pid"
rc=$?
expect_rc 130 "SIGINT"
the_run
jsonl_ok "$RUN/events.jsonl" "events.jsonl after SIGINT"
json_ok "$RUN/run.json" "run.json after SIGINT"
[ "$(json_get "$RUN/run.json" '["status"]')" = canceled ] && reg_pass ||
	reg_fail "run.json status $(json_get "$RUN/run.json" '["status"]')"
lacks "$T/out" "FINAL-ANSWER" "no answer after SIGINT"
if pgrep -f "$W/skills/scr/scripts/sleep.sh" >/dev/null 2>&1; then
	reg_fail "the script survived SIGINT"
else
	reg_pass
fi

# skit chat: SIGINT during the script; the next message is answered
rm -rf "$W/runs"
{
	printf 'go\n'
	i=0
	while [ $i -lt 100 ] && ! grep -q '"run_skill_script"' \
		"$W"/runs/*/events.jsonl 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.3
	kill -INT "$(cat "$T/chat.pid")"
	sleep 0.5
	printf 'after the interrupt\n'
} | {
	exec "$SKIT" chat --yes --root "project=$W/skills" --runs-dir "$W/runs" \
		--workdir "$W/work" --quiet --model "replay:$CASS/slow.jsonl" \
		>"$T/out" 2>"$T/err"
} &
pid=$!
echo "$pid" >"$T/chat.pid"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 150 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 "$pid" 2>/dev/null; then
	reg_fail "skit chat still running 15 s after the start"
	kill -KILL "$pid"
fi
wait "$pid"
rc=$?
expect_rc 0 "chat after SIGINT"
has "$T/err" "cancel" "chat reports the interrupted answer"
has "$T/out" "FINAL-ANSWER" "chat answers the next message"
lacks "$T/out" "SLEPT-THROUGH" "the script was stopped"

reg_done
