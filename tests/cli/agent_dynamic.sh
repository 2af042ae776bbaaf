#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_dynamic.sh - a skill body's dynamic context through `skit run`:
# a `!`command`` outside fences runs as a shell call (with --yes) and its
# output replaces it, one inside a fence stays as written, and
# "dynamic_context": false in the config leaves the body untouched.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1
S=$W/skills
mkdir -p "$S/dyn"
printf -- '---\nname: dyn\ndescription: Dynamic context.\n---\nNow: !`echo DYN-$1-OUT`\n```\n!`echo FENCE-KEPT`\n```\n' >"$S/dyn/SKILL.md"

agent --model "replay:$CASS/final.jsonl" --request-log "$T/req.jsonl" '/dyn' 'x'
expect_rc 0 "/dyn"
has "$T/req.jsonl" 'Now: DYN-x-OUT' "the command's output in its place"
has "$T/req.jsonl" '!`echo FENCE-KEPT`' "a fenced command stays as written"
lacks "$T/req.jsonl" 'echo DYN-x-OUT' "the command text is gone"
the_run
has "$RUN/events.jsonl" '"origin":"dynamic_context"' "the call is in the trail"
has "$RUN/events.jsonl" '"command":"echo DYN-x-OUT"' "its shell_run too"

rm -rf "$W/runs" "$T/req.jsonl"
printf '{"dynamic_context": false}\n' >"$W/cfg.json"
agent --config "$W/cfg.json" --model "replay:$CASS/final.jsonl" \
	--request-log "$T/req.jsonl" '/dyn' 'x'
expect_rc 0 "/dyn, switched off"
has "$T/req.jsonl" 'Now: !`echo DYN-x-OUT`' "off: the body as written"
the_run
lacks "$RUN/events.jsonl" '"shell_run"' "off: nothing ran"

# --no-dynamic-context: off for this run, whatever the config says.
rm -rf "$W/runs" "$T/req.jsonl"
agent --no-dynamic-context --model "replay:$CASS/final.jsonl" \
	--request-log "$T/req.jsonl" '/dyn' 'x'
expect_rc 0 "/dyn with --no-dynamic-context"
has "$T/req.jsonl" 'Now: !`echo DYN-x-OUT`' "the flag: the body as written"
the_run
lacks "$RUN/events.jsonl" '"shell_run"' "the flag: nothing ran"

printf '{"dynamic_context": "no"}\n' >"$W/cfg.json"
agent --config "$W/cfg.json" --model "replay:$CASS/final.jsonl" '/dyn' 'x'
expect_rc 1 "a non-boolean switch"
has "$T/err" 'dynamic_context: expected true or false' "the error names the key"
reg_done
