#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_plan_mode.sh - plan mode as a user has it (docs/agent.md, "Plan
# mode"), in the project's folder with the default config: `skit run
# --plan-mode` offers only tools that read; on a terminal the plan is
# shown with "Approve this plan?" and, approved, the model writes; with
# --yes it is approved as a call would be; with neither, plan mode stays
# on and nothing is written. `skit chat`'s /plan-mode turns it on.
. "$(dirname "$0")/agent_lib.inc"
agent_world
if ! python3 -c 'import pty' 2>/dev/null; then
	reg_fail "python3 with pty is needed for this test"
	reg_done
fi
P=$W/proj
mkdir -p "$P/.agents"
printf 'DATA-MARKER\n' >"$P/data.txt"
cd "$P" || exit 1

# No terminal, no --yes: no one approves; nothing is written.
rm -f "$T/req.jsonl"
run run --plan-mode --trace --request-log "$T/req.jsonl" \
	--model "replay:$CASS/plan_mode.jsonl" go </dev/null
expect_rc 0 "run --plan-mode without a terminal"
has "$T/err" "plan mode on: only tools that read" "the trace says plan mode is on"
has "$T/req.jsonl" "tool 'write_file' is not available in plan mode" \
	"a write is refused in plan mode"
has "$T/req.jsonl" "DATA-MARKER" "a read runs"
has "$T/req.jsonl" "no one can approve a plan here: plan mode stays on" \
	"no one approves the plan"
[ ! -e "$P/early.txt" ] && [ ! -e "$P/out.txt" ] && reg_pass ||
	reg_fail "a file was written in plan mode"
set -- "$P"/.agents/runs/*/
has "$1/events.jsonl" '"type":"plan_mode","on":true,"by":"the program"' \
	"the trail records plan mode"
has "$1/events.jsonl" '"decision":"no one to ask"' "and the plan's fate"
rm -rf "$P/.agents/runs"

# --yes approves the plan; the write after it runs.
run run --plan-mode --yes --quiet --model "replay:$CASS/plan_mode.jsonl" go \
	</dev/null
expect_rc 0 "run --plan-mode --yes"
has "$P/out.txt" "PLAN-OUT" "the approved plan's write ran"
[ ! -e "$P/early.txt" ] && reg_pass || reg_fail "the early write ran"
rm -f "$P/out.txt"
rm -rf "$P/.agents/runs"

# On a terminal: the plan is shown and approved. (The folder is
# trusted first, so that the first run on a terminal does not ask.)
run trust "$P"
expect_rc 0 "skit trust"
rm -f "$T/req.jsonl"
# "1" approves the plan; "y" the write, which needs approval as always.
printf '%s\n' '1\r' 'y\r' | NO_COLOR=1 timeout 60 python3 \
	"$SKIT_SOURCE_DIR/tests/support/ptydrive.py" "$T/screen" -- \
	"$SKIT" run --plan-mode --request-log "$T/req.jsonl" \
	--model "replay:$CASS/plan_mode.jsonl" go
rc=$?
expect_rc 0 "run --plan-mode on a terminal"
tr -d '\r' <"$T/screen" >"$T/s"
has "$T/s" "  | Approve this plan?" "the question is shown"
has "$T/s" "  | 1. Write PLAN-OUT to out.txt." \
	"with the plan, line by line, behind a bar"
has "$T/s" "1) Yes: carry out the plan" "and the choices"
# a long line of the plan is cut behind bars: it cannot end in a line
# that passes for a choice
grep -q '^  2) Yes' "$T/s" && reg_fail "a line of the plan passed for a choice" ||
	reg_pass
has "$T/s" "  | xxxx" "a long line goes on behind a bar"
has "$T/req.jsonl" "The user approved the plan" "the model is told"
has "$P/out.txt" "PLAN-OUT" "the approved plan's write ran"
has "$T/s" "PLAN-MODE-DONE" "the run went on"

# chat: /plan-mode on, then off.
printf '/plan-mode on\n/plan-mode\n/plan-mode off\n/plan-mode maybe\n' |
	timeout 60 "$SKIT" chat --quiet --model "replay:$CASS/final.jsonl" \
		>"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "chat with /plan-mode"
has "$T/out" "plan mode on: only tools that read, until you approve the model's plan" \
	"/plan-mode on"
has "$T/out" "plan mode off" "/plan-mode off"
has "$T/err" "/plan-mode takes on or off" "a bad argument is named"
reg_done
