#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_usage.sh - `skit run` / `skit chat` usage: --help, bad flags, a
# missing task, bad --model values (exit 2, one line); and that no secret
# from the environment reaches a script, the request log or the audit
# trail.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1

run run --help
expect_rc 0 "run --help"
has "$T/out" "usage: skit run" "run --help"
has "$T/out" "--max-turns" "run --help lists budgets"
run chat --help
expect_rc 0 "chat --help"
has "$T/out" "usage: skit chat" "chat --help"
run run --bogus x
expect_rc 2 "run --bogus"
run chat --bogus
expect_rc 2 "chat --bogus"
run run --model
expect_rc 2 "run --model without a value"
agent --model "replay:$CASS/final.jsonl"
expect_rc 2 "run without a task"
has "$T/err" "TASK" "missing task message"
agent --model "replay:$CASS/final.jsonl" ""
expect_rc 2 "run with an empty task"
agent --model nope:x go
expect_rc 2 "--model nope:x"
lines "$T/err" 1 "--model nope:x: one line"
agent --model replay:/missing/cassette.jsonl go
expect_rc 2 "--model replay:/missing"
lines "$T/err" 1 "--model replay:/missing: one line"
has "$T/err" "/missing/cassette.jsonl" "the cassette is named"
agent --model replay: go
expect_rc 2 "--model replay: (no file)"
printf '{"text": 5}\n' >"$T/bad.jsonl"
agent --model "replay:$T/bad.jsonl" go
[ "$rc" -ne 0 ] && reg_pass || reg_fail "malformed cassette accepted"
lines "$T/err" 1 "malformed cassette: one line"

# the task from stdin
printf 'task from stdin' | timeout 60 "$SKIT" run --yes --root "project=$W/skills" \
	--no-audit --model "replay:$CASS/final.jsonl" \
	--request-log "$T/req.jsonl" - >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "run -"
has "$T/req.jsonl" "task from stdin" "the task read from stdin"
[ ! -d "$W/runs" ] || [ -z "$(ls "$W/runs")" ] && reg_pass ||
	reg_fail "--no-audit wrote a run"

# search_skills: offered when the index is cut, or with --search
rm -f "$T/req.jsonl"
agent --no-audit --model "replay:$CASS/final.jsonl" --request-log "$T/req.jsonl" go
lacks "$T/req.jsonl" '"name":"search_skills"' "no search_skills when all fit"
rm -f "$T/req.jsonl"
agent --no-audit --search --model "replay:$CASS/final.jsonl" \
	--request-log "$T/req.jsonl" go
has "$T/req.jsonl" '"name":"search_skills"' "search_skills with --search"
rm -f "$T/req.jsonl"
agent --no-audit --budget 200 --model "replay:$CASS/final.jsonl" \
	--request-log "$T/req.jsonl" go
has "$T/req.jsonl" '"name":"search_skills"' "search_skills when the index is cut"

# secrets in the environment never reach a script, a request or the trail
rm -f "$T/req.jsonl"
cat >"$T/env.jsonl" <<'EOC'
{"tool_calls": [{"id": "u1", "name": "use_skill", "arguments": {"name": "scr"}}]}
{"tool_calls": [{"id": "e1", "name": "run_skill_script", "arguments": {"skill": "scr", "path": "scripts/env.sh"}}]}
{"text": "FINAL-ANSWER"}
EOC
OPENAI_API_KEY=sk-test-secret-123456 ANTHROPIC_API_KEY=sk-ant-secret-654321 \
	GITHUB_TOKEN=ghp-secret-token-777 AWS_SECRET_ACCESS_KEY=aws-secret-999 \
	SKIT_CLI_PRIVATE=private-value-888 SSH_AUTH_SOCK=/tmp/agent-sock-555 \
	agent --model "replay:$T/env.jsonl" --request-log "$T/req.jsonl" env
expect_rc 0 "env run"
has "$T/req.jsonl" "ENV-START" "the env script ran"
the_run
for s in sk-test-secret-123456 sk-ant-secret-654321 ghp-secret-token-777 \
	aws-secret-999 private-value-888 /tmp/agent-sock-555 OPENAI_API_KEY \
	SSH_AUTH_SOCK; do
	lacks "$T/req.jsonl" "$s" "script environment"
	if grep -rqF -e "$s" "$RUN"; then
		reg_fail "$s in the audit trail"
	else
		reg_pass
	fi
	lacks "$T/out" "$s" "stdout"
	lacks "$T/err" "$s" "stderr"
done

reg_done
