#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_disclosure.sh - progressive disclosure through `skit run
# --request-log`: a marker planted in every body, reference and script;
# no body or reference reaches a request before its activation/read, and
# the markers of skills never activated never appear. Then the audit
# trail of that run (events.jsonl, run.json), and `--json`.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1

agent --model "replay:$CASS/disclosure.jsonl" --request-log "$T/req.jsonl" \
	"Do the alpha thing"
expect_rc 0 "disclosure run"
has "$T/out" "DONE-DISCLOSURE" "the answer is printed"
lines "$T/req.jsonl" 4 "four model requests"
for i in 1 2 3 4; do req $i; done

# request 1: the index only
has "$T/req1" "The alpha skill, for alpha tasks." "req 1 has the index"
for n in alpha beta gamma delta epsilon; do
	lacks "$T/req1" "BODY-MARKER-$n" "req 1 (before any activation)"
	lacks "$T/req1" "RES-MARKER-$n" "req 1 (before any read)"
done
# request 2: alpha's body, not its reference
has "$T/req2" "BODY-MARKER-alpha" "req 2 after use_skill alpha"
lacks "$T/req2" "RES-MARKER-alpha" "req 2 before the read"
lacks "$T/req2" "BODY-MARKER-beta" "req 2 before use_skill beta"
# request 3: the reference
has "$T/req3" "RES-MARKER-alpha" "req 3 after the read"
lacks "$T/req3" "BODY-MARKER-beta" "req 3 before use_skill beta"
lacks "$T/req3" "SCRIPT-OUT-alpha" "req 3 before the script ran"
# request 4: beta's body and the script's output
has "$T/req4" "BODY-MARKER-beta" "req 4 after use_skill beta"
has "$T/req4" "SCRIPT-OUT-alpha one two" "req 4 has the script output"
for n in gamma delta epsilon; do
	lacks "$T/req.jsonl" "BODY-MARKER-$n" "never activated"
	lacks "$T/req.jsonl" "RES-MARKER-$n" "never activated"
	lacks "$T/req.jsonl" "SCRIPT-OUT-$n" "never run"
done
lacks "$T/req.jsonl" "RES-MARKER-beta" "beta's reference never read"
for n in alpha beta gamma delta epsilon; do
	lacks "$T/req.jsonl" "SRC-MARKER-$n" "a script's source is never shown"
done

# the audit trail
the_run
for t in run_start user_input model_request model_response tool_call \
	tool_result skill_activated resource_read script_run run_end; do
	has "$RUN/events.jsonl" "\"type\":\"$t\"" "events.jsonl has $t"
done
has "$RUN/events.jsonl" '"trigger":"model"' "skill_activated by the model"
has "$RUN/events.jsonl" '"stdout_sha256":"' "script_run has stdout_sha256"
has "$RUN/events.jsonl" '"exit_code":0' "script_run has exit_code"
json_ok "$RUN/run.json" "run.json"
[ "$(json_get "$RUN/run.json" '["status"]')" = ok ] && reg_pass ||
	reg_fail "run.json status ok"
[ "$(json_get "$RUN/run.json" '["exit"]')" = 0 ] && reg_pass ||
	reg_fail "run.json exit 0"
jsonl_ok "$RUN/events.jsonl" "events.jsonl"
jsonl_ok "$T/req.jsonl" "the request log"

# --json: one JSON document with answer, status and the run folder
rm -rf "$W/runs"
agent --json --model "replay:$CASS/disclosure.jsonl" "Do the alpha thing"
expect_rc 0 "run --json"
json_ok "$T/out" "run --json output"
[ "$(json_get "$T/out" '["answer"]')" = DONE-DISCLOSURE ] && reg_pass ||
	reg_fail "--json answer"
[ "$(json_get "$T/out" '["status"]')" = ok ] && reg_pass ||
	reg_fail "--json status"
the_run
[ "$(json_get "$T/out" '["run_dir"]')" = "$RUN" ] && reg_pass ||
	reg_fail "--json run_dir: $(json_get "$T/out" '["run_dir"]') != $RUN"
[ "$(json_get "$T/out" '["skills"]')" = "['alpha', 'beta']" ] && reg_pass ||
	reg_fail "--json skills"

reg_done
