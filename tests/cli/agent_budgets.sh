#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_budgets.sh - `skit run` budgets end a run with a clear message,
# exit 1 and run.json status "limit": --max-turns, --max-tool-calls,
# --max-tokens, --max-script-runs; a cassette that runs out is an error
# (exit 1); --script-timeout stops a sleeping script. Never a hang.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1

# limit_run DESCRIPTION WORD: exit 1, WORD on stderr, status "limit"
limit_run() {
	expect_rc 1 "$1"
	has "$T/err" "$2" "$1: message"
	lines "$T/err" 1 "$1: one line on stderr"
	the_run
	[ "$(json_get "$RUN/run.json" '["status"]')" = limit ] && reg_pass ||
		reg_fail "$1: run.json status $(json_get "$RUN/run.json" '["status"]')"
	[ "$(json_get "$RUN/run.json" '["exit"]')" = 1 ] && reg_pass ||
		reg_fail "$1: run.json exit"
	rm -rf "$W/runs"
}

agent --quiet --max-turns 3 --model "replay:$CASS/loop.jsonl" loop
limit_run "--max-turns 3" "--max-turns"

agent --quiet --max-tool-calls 2 --model "replay:$CASS/many_calls.jsonl" go
limit_run "--max-tool-calls 2" "--max-tool-calls"

agent --quiet --max-tokens 100 --model "replay:$CASS/tokens.jsonl" go
limit_run "--max-tokens 100" "--max-tokens"

agent --quiet --max-script-runs 2 --model "replay:$CASS/script_budget.jsonl" go
limit_run "--max-script-runs 2" "--max-script-runs"

# --json on a limit: still one JSON document, answer null
agent --json --max-turns 2 --model "replay:$CASS/loop.jsonl" loop
expect_rc 1 "--json --max-turns 2"
json_ok "$T/out" "--json on a limit"
[ "$(json_get "$T/out" '["status"]')" = limit ] && reg_pass ||
	reg_fail "--json status limit"
[ "$(json_get "$T/out" '["answer"]')" = None ] && reg_pass ||
	reg_fail "--json answer null on a limit"
has "$T/out" "--max-turns" "--json error message"
rm -rf "$W/runs"

# the cassette runs out
agent --quiet --model "replay:$CASS/exhausted.jsonl" go
expect_rc 1 "exhausted cassette"
has "$T/err" "no response" "exhausted cassette: message"
the_run
[ "$(json_get "$RUN/run.json" '["status"]')" = error ] && reg_pass ||
	reg_fail "exhausted: run.json status error"
rm -rf "$W/runs"

# --script-timeout 1 on `sleep 30`
start=$(date +%s)
agent --quiet --script-timeout 1 --model "replay:$CASS/slow.jsonl" \
	--request-log "$T/req.jsonl" go
end=$(date +%s)
expect_rc 0 "--script-timeout 1"
# The script sleeps 30 s: ending well before that proves it was stopped,
# however loaded the machine (no tighter bound that assumes an idle one).
[ $((end - start)) -lt 25 ] && reg_pass ||
	reg_fail "--script-timeout 1 took $((end - start)) s"
has "$T/req.jsonl" "timed out" "the model is told the script timed out"
lacks "$T/req.jsonl" "SLEPT-THROUGH" "the script was stopped"
the_run
has "$RUN/events.jsonl" '"timed_out":true' "script_run timed_out"

# bad budget values are usage errors
for opt in "--max-turns 0" "--max-turns x" "--max-tokens -1" \
	"--script-timeout 0" "--max-tool-calls 1e3"; do
	# shellcheck disable=SC2086
	agent $opt --model "replay:$CASS/final.jsonl" go
	expect_rc 2 "$opt"
done

reg_done
