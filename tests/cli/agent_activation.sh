#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_activation.sh - `skit run` activating skills from the user's
# side: /name with arguments (substituted in the body), $name mentions,
# an unknown /name (exit 1, no request sent), disable-model-invocation
# and user-invocable: false; and the JSON action protocol.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1
S=$W/skills
mkdir -p "$S/greet" "$S/manual" "$S/nouser"
printf -- '---\nname: greet\ndescription: Greets people.\n---\nGREET-BODY first=$1 second=$2 all=[$ARGUMENTS] dir=${SKILL_DIR} cdir=${CLAUDE_SKILL_DIR}\n' >"$S/greet/SKILL.md"
printf -- '---\nname: manual\ndescription: MANUAL-DESC-TEXT only the user starts this.\ndisable-model-invocation: true\n---\nMANUAL-BODY\n' >"$S/manual/SKILL.md"
printf -- '---\nname: nouser\ndescription: NOUSER-DESC-TEXT background.\nuser-invocable: false\n---\nNOUSER-BODY\n' >"$S/nouser/SKILL.md"

# /name ARGS
agent --model "replay:$CASS/final.jsonl" --request-log "$T/req.jsonl" \
	'/greet' 'hello' '"big world"'
expect_rc 0 "/greet"
has "$T/out" "FINAL-ANSWER" "/greet answer"
has "$T/req.jsonl" "GREET-BODY first=hello second=big world" "/greet \$1 \$2"
has "$T/req.jsonl" 'all=[hello \"big world\"]' "/greet \$ARGUMENTS"
has "$T/req.jsonl" "dir=$S/greet" "/greet \${SKILL_DIR}"
has "$T/req.jsonl" "cdir=$S/greet" "\${CLAUDE_SKILL_DIR}, Claude Code's name, too"
the_run
has "$RUN/events.jsonl" '"trigger":"user"' "/greet audited as user"

# $name
rm -rf "$W/runs" "$T/req.jsonl"
agent --model "replay:$CASS/final.jsonl" --request-log "$T/req.jsonl" \
	'Please use $alpha for this'
expect_rc 0 "\$alpha"
has "$T/req.jsonl" "BODY-MARKER-alpha" "\$alpha loads the body"
lacks "$T/req.jsonl" "BODY-MARKER-beta" "\$alpha only"
the_run
has "$RUN/events.jsonl" '"trigger":"mention"' "\$alpha audited as mention"

# /unknown: exit 1, one line, nothing sent
rm -rf "$W/runs" "$T/req.jsonl"
agent --model "replay:$CASS/final.jsonl" --request-log "$T/req.jsonl" \
	'/nosuch do it'
expect_rc 1 "/nosuch"
has "$T/err" "nosuch" "/nosuch names the skill"
[ ! -s "$T/req.jsonl" ] && reg_pass || reg_fail "/nosuch sent a request"
the_run
json_ok "$RUN/run.json" "/nosuch run.json"
[ "$(json_get "$RUN/run.json" '["status"]')" = error ] && reg_pass ||
	reg_fail "/nosuch run.json status error"

# disable-model-invocation: not in the index, refused to the model...
rm -rf "$W/runs" "$T/req.jsonl"
agent --model "replay:$CASS/manual.jsonl" --request-log "$T/req.jsonl" \
	'use manual'
expect_rc 0 "model tries manual"
lacks "$T/req.jsonl" "MANUAL-DESC-TEXT" "manual not in the index"
lacks "$T/req.jsonl" "MANUAL-BODY" "manual not activated by the model"
has "$T/req.jsonl" '"is_error":true' "use_skill manual is an error"
# ...but the user can
rm -rf "$W/runs" "$T/req.jsonl"
agent --model "replay:$CASS/final.jsonl" --request-log "$T/req.jsonl" /manual
expect_rc 0 "/manual"
has "$T/req.jsonl" "MANUAL-BODY" "/manual loads the body"

# user-invocable: false
rm -rf "$W/runs" "$T/req.jsonl"
agent --model "replay:$CASS/final.jsonl" --request-log "$T/req.jsonl" /nouser
expect_rc 1 "/nouser refused"
[ ! -s "$T/req.jsonl" ] && reg_pass || reg_fail "/nouser sent a request"

# the JSON action protocol
rm -rf "$W/runs" "$T/req.jsonl"
agent --json-actions --model "replay:$CASS/actions.jsonl" \
	--request-log "$T/req.jsonl" 'act'
expect_rc 0 "--json-actions"
has "$T/out" "All done: ACTIONS-FINAL" "--json-actions answer"
lines "$T/req.jsonl" 4 "--json-actions: four requests"
for i in 1 2 3 4; do
	req $i
	has "$T/req$i" '"tools":[]' "--json-actions: no native tools (req $i)"
done
lacks "$T/req1" "BODY-MARKER-alpha" "actions: req 1"
has "$T/req2" "BODY-MARKER-alpha" "actions: use_skill action"
has "$T/req3" "RES-MARKER-alpha" "actions: fenced read action"
has "$T/req4" "malformed" "actions: malformed action answered"
the_run
has "$RUN/events.jsonl" '"json_actions":true' "run_start json_actions"

reg_done
