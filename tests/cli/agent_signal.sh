#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_signal.sh - Ctrl-C during `skit run`: SIGINT while a script
# sleeps stops the script and the run quickly; exit 130, run.json status
# "canceled", events.jsonl readable, no script left behind. In `skit
# chat`, Ctrl-C stops the current answer, not the session.
#
# No step assumes an idle machine: SIGINT is sent once the script's own
# process is seen running (not after a fixed pause), and "quickly" means
# well before the script's 30 s sleep would have ended, however long a
# loaded machine takes to get there.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1
SCRIPT=$W/skills/scr/scripts/sleep.sh

# script_running: wait (at most 60 s) until the sleeping script runs.
script_running() {
	n=0
	while [ $n -lt 600 ] && ! pgrep -f "$SCRIPT" >/dev/null 2>&1; do
		sleep 0.1
		n=$((n + 1))
	done
	[ $n -lt 600 ]
}

# ends_within PID SECONDS: wait until PID has ended, at most SECONDS.
ends_within() {
	n=0
	while kill -0 "$1" 2>/dev/null && [ $n -lt $(($2 * 10)) ]; do
		sleep 0.1
		n=$((n + 1))
	done
	! kill -0 "$1" 2>/dev/null
}

# no_script: the script is gone (polled: a killed process takes a moment
# to be reaped on a busy machine).
no_script() {
	n=0
	while [ $n -lt 100 ] && pgrep -f "$SCRIPT" >/dev/null 2>&1; do
		sleep 0.1
		n=$((n + 1))
	done
	[ $n -lt 100 ] && reg_pass || reg_fail "$1: the script survived SIGINT"
}

"$SKIT" run --yes --root "project=$W/skills" --runs-dir "$W/runs" \
	--workdir "$W/work" --quiet --model "replay:$CASS/slow.jsonl" \
	go >"$T/out" 2>"$T/err" &
pid=$!
script_running && reg_pass || reg_fail "the script never started"
start=$(date +%s)
kill -INT "$pid"
# it must end well before the script's sleep (30 s) would have
if ! ends_within "$pid" 25; then
	reg_fail "skit run still running 25 s after SIGINT"
	kill -KILL "$pid"
fi
wait "$pid"
rc=$?
[ $(($(date +%s) - start)) -lt 25 ] && reg_pass ||
	reg_fail "skit run took $(($(date +%s) - start)) s to stop after SIGINT"
expect_rc 130 "SIGINT"
the_run
jsonl_ok "$RUN/events.jsonl" "events.jsonl after SIGINT"
json_ok "$RUN/run.json" "run.json after SIGINT"
[ "$(json_get "$RUN/run.json" '["status"]')" = canceled ] && reg_pass ||
	reg_fail "run.json status $(json_get "$RUN/run.json" '["status"]')"
lacks "$T/out" "FINAL-ANSWER" "no answer after SIGINT"
no_script "run"

# skit chat: SIGINT during the script; the next message is answered
rm -rf "$W/runs" "$T/chat.pid" "$T/int.time"
{
	printf 'go\n'
	if script_running; then
		n=0
		while [ ! -s "$T/chat.pid" ] && [ $n -lt 100 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		date +%s >"$T/int.time"
		kill -INT "$(cat "$T/chat.pid")"
	fi
	printf 'after the interrupt\n'
} | {
	exec "$SKIT" chat --yes --root "project=$W/skills" --runs-dir "$W/runs" \
		--workdir "$W/work" --quiet --model "replay:$CASS/slow.jsonl" \
		--request-log "$T/chat-req.jsonl" >"$T/out" 2>"$T/err"
} &
pid=$!
echo "$pid" >"$T/chat.pid"
if ! ends_within "$pid" 120; then
	reg_fail "skit chat still running 120 s after the start"
	kill -KILL "$pid"
fi
wait "$pid"
rc=$?
expect_rc 0 "chat after SIGINT"
if [ -s "$T/int.time" ]; then
	reg_pass
	[ $(($(date +%s) - $(cat "$T/int.time"))) -lt 25 ] && reg_pass ||
		reg_fail "chat took 25 s or more after SIGINT: the script ran on"
else
	reg_fail "chat: the script never started"
fi
has "$T/err" "cancel" "chat reports the interrupted answer"
has "$T/out" "FINAL-ANSWER" "chat answers the next message"
has "$T/chat-req.jsonl" "after the interrupt" "the next message reached the model"
lacks "$T/chat-req.jsonl" "SLEPT-THROUGH" "the script was stopped"
no_script "chat"

reg_done
