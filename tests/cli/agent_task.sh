#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_task.sh - subagents through `skit run` (issue 31): the task tool
# (what the subagent is shown and offered, its audit sub-run linked both
# ways, the trace, the totals), its calls decided by the main agent's
# policy (refused without a terminal, run with --yes, narrowed by the
# call's tools), --deny Task, a turn budget shared with the main agent,
# an agent profile of a trusted project, a skill with context: fork
# (/name ARG, its dynamic context in the subagent, agent: that names no
# profile reported), web_search through an MCP server named as the
# search backend (and a subagent using the parent's MCP server), and
# three subagents at once against an OpenAI-style
# server (tests/support/openai_stub.py). Cassettes: tests/fixtures/agent/
# task*.jsonl, fork.jsonl, search.jsonl. A subagent continued with
# send_message: task_message.jsonl.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1
printf 'DATA-MARKER\n' >"$W/data.txt"

# trun CASSETTE ARGS...: skit run in $W with the trace, the request log
# and the trail in $W/runs (emptied first).
trun() {
	cass=$1
	shift
	rm -f "$T/req.jsonl"
	rm -rf "$W/runs"
	timeout 120 "$SKIT" run --project "$W" --root "project=$W/skills" \
		--runs-dir "$W/runs" --workdir "$W/work" --trace \
		--request-log "$T/req.jsonl" --model "replay:$CASS/$cass" \
		"$@" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
}

# ---- a subagent's run ---------------------------------------------------
trun task.jsonl --yes --json PARENT-INPUT
expect_rc 0 "a run with a task"
has "$T/out" '"answer": "FINAL: done."' "the main agent's answer"
# the totals count the subagent's turns and calls
[ "$(json_get "$T/out" '["turns"]')" = 4 ] && reg_pass ||
	reg_fail "turns: $(json_get "$T/out" '["turns"]'), expected 4"
[ "$(json_get "$T/out" '["tool_calls"]')" = 2 ] && reg_pass ||
	reg_fail "tool calls: $(json_get "$T/out" '["tool_calls"]')"
req 4
lacks "$T/req4" "DATA-MARKER" "the file stays in the subagent"
has "$T/req4" "CHILD-ANSWER" "the answer reaches the main agent"
has "$T/err" "task 1: read the data -> tasks/" "the trace names the sub-run"
has "$T/err" "task 1: turn 1:" "the subagent's lines are prefixed"
has "$T/err" "task 1: ok (2 turns, 1 tool calls)" "how it ended"
the_run
has "$RUN/events.jsonl" '"type":"subagent_start","id":"t1"' "subagent_start"
has "$RUN/events.jsonl" '"type":"subagent_end","id":"t1"' "subagent_end"
sub=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["type"] == "subagent_start": print(e["run"])' "$RUN/events.jsonl")
if [ -f "$RUN/$sub/events.jsonl" ] && [ -f "$RUN/$sub/run.json" ]; then
	reg_pass
	jsonl_ok "$RUN/$sub/events.jsonl" "the sub-run's events"
	head -n 1 "$RUN/$sub/events.jsonl" >"$T/first"
	has "$T/first" '"type":"parent"' "the sub-run names its parent first"
	has "$T/first" "\"run\":\"$(basename "$RUN")\"" "by its id"
	has "$RUN/$sub/events.jsonl" '"name":"read_file"' "its tool call"
	[ "$(json_get "$RUN/$sub/run.json" '["status"]')" = ok ] && reg_pass ||
		reg_fail "the sub-run's status"
else
	reg_fail "no sub-run at $RUN/$sub"
fi

# ---- send_message: a subagent continued ------------------------------------
trun task_message.jsonl --yes PARENT-INPUT
expect_rc 0 "a run that continues a subagent"
has "$T/out" "FINAL: continued." "the main agent's answer"
has "$T/err" "task 1: message: ask about the file" "the trace shows the message"
req 5
has "$T/req5" "DATA-MARKER" "the subagent keeps its own conversation"
lacks "$T/req5" "PARENT-INPUT" "and never sees the main agent's"
the_run
has "$RUN/events.jsonl" '"type":"subagent_message","id":"m1"' \
	"the message is audited"

# ---- the policy decides a subagent's calls --------------------------------
trun task_shell.jsonl go
expect_rc 0 "subagents without a terminal"
has "$T/req.jsonl" "tool 'shell' is not available now" \
	"without a terminal a subagent is not offered shell"
lacks "$T/req.jsonl" "SHELL-RAN-IN-CHILD\\n" "and its call did not run"
trun task_shell.jsonl --yes go
expect_rc 0 "subagents with --yes"
has "$T/req.jsonl" "SHELL-RAN-IN-CHILD" "--yes approves a subagent's call"
lacks "$T/req.jsonl" "NARROWED-SHELL-RAN\\n" "never past the call's tools"
has "$T/req.jsonl" "tool 'shell' is not available now" \
	"a task narrowed to Read is not offered shell"
trun task.jsonl --yes --deny Task go
expect_rc 0 "--deny Task"
has "$T/req.jsonl" "tool 'task' is not available now" "--deny Task refuses it"

# ---- budgets ---------------------------------------------------------------
trun task_budget.jsonl --yes --max-turns 3 go
expect_rc 1 "a subagent spends the turn budget"
has "$T/err" "turn budget exhausted" "the main agent stops too"
the_run
[ "$(json_get "$RUN/run.json" '["status"]')" = limit ] && reg_pass ||
	reg_fail "status: $(json_get "$RUN/run.json" '["status"]')"
has "$RUN/events.jsonl" '"status":"limit"' "the subagent ended on the limit"

# ---- a profile of a trusted project -----------------------------------------
mkdir -p "$W/.agents/agents"
printf -- '---\nname: reviewer\ndescription: Reviews.\ntools: Read, Grep\n---\nPROFILE-INSTRUCTIONS: review.\n' \
	>"$W/.agents/agents/reviewer.md"
trun task_profile.jsonl --yes go
expect_rc 1 "a profile of a project not trusted"
has "$T/req.jsonl" "no agent profile named 'reviewer'" "is not read"
"$SKIT" trust "$W" >/dev/null 2>&1
trun task_profile.jsonl --yes go
expect_rc 0 "a profile of a trusted project"
has "$T/out" "FINAL: reviewed." "the profile's subagent answered"

# ---- context: fork -----------------------------------------------------------
mkdir -p "$W/skills/forky"
printf -- '---\nname: forky\ndescription: Forks.\ncontext: fork\nagent: nobody\nallowed-tools: Read Bash(echo:*)\n---\nFORK-BODY for $ARGUMENTS\n!`echo FORK-CONTEXT-OUT`\n' \
	>"$W/skills/forky/SKILL.md"
trun fork.jsonl --yes /forky ARG-ONE
expect_rc 0 "a context: fork skill"
has "$T/out" "FINAL: forked." "the main agent went on"
has "$T/err" "skill forky runs as task 1 (context: fork)" "the trace says it forked"
has "$T/err" "agent 'nobody' not used: no agent profile named 'nobody'" \
	"agent: without a profile is reported"
the_run
has "$RUN/events.jsonl" '"code":"agent-profile-missing"' "and noted in the trail"
has "$RUN/events.jsonl" '"type":"subagent_start","skill":"forky"' "subagent_start"

# agent: Explore, Claude Code's built-in agent: no file needed, read-only
printf -- '---\nname: forky\ndescription: Forks.\ncontext: fork\nagent: Explore\n---\nFORK-BODY for $ARGUMENTS\n!`echo FORK-CONTEXT-OUT`\n' \
	>"$W/skills/forky/SKILL.md"
trun fork.jsonl --yes /forky ARG-ONE
expect_rc 0 "a context: fork skill with agent: Explore"
has "$T/out" "FINAL: forked." "the main agent went on"
lacks "$T/err" "not used" "Explore is found without a file"
has "$T/req.jsonl" "You explore a codebase" "the subagent got Explore's instructions"
the_run
has "$RUN/events.jsonl" '"profile":"Explore"' "the trail names the profile"
req 1
case $(sed -n 1p "$T/req.jsonl") in
*'"name":"write_file"'* | *'"name":"shell"'*) reg_fail "Explore was offered a write or a shell" ;;
*'"name":"read_file"'*) reg_pass ;;
*) reg_fail "Explore was not offered read_file" ;;
esac

# ---- web_search through an MCP server ------------------------------------------
cp "$SKIT_SOURCE_DIR/tests/mcp/fake/fake_server.py" "$W/fake_server.py"
printf '{"mcpServers": {"fake": {"command": "python3", "args": ["%s"], "webSearch": "echo"}}}\n' \
	"$W/fake_server.py" >"$W/search.json"
trun search.jsonl --config "$W/search.json" go
expect_rc 0 "web_search without approval"
lacks "$T/req.jsonl" '{"name":"web_search","description"' \
	"a network tool: not offered without a terminal"
has "$T/req.jsonl" "tool 'web_search' is not available now" "nor run"
trun search.jsonl --config "$W/search.json" --allow WebSearch go
expect_rc 0 "web_search allowed"
has "$T/req.jsonl" '{"name":"web_search","description"' \
	"web_search is offered with a backend"
has "$T/req.jsonl" 'Web search results for \"SEARCH-QUERY\" (untrusted web content' \
	"the results, framed"
has "$T/req.jsonl" "ECHO:SEARCH-QUERY" "the backend got the query"
trun search.jsonl --config "$W/search.json" --allow WebSearch --no-network go
has "$T/req.jsonl" "tool 'web_search' is not available now" "--no-network refuses it"
trun search.jsonl go
lacks "$T/req.jsonl" '{"name":"web_search","description"' \
	"no backend: not offered"
# a subagent gets its parent's MCP servers, web_search included
trun task_mcp.jsonl --config "$W/search.json" --allow 'mcp__fake__*' \
	--allow WebSearch go
expect_rc 0 "MCP tools in a subagent"
has "$T/out" "FINAL: mcp in a subagent." "the subagent used the parent's server"
the_run
sub=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["type"] == "subagent_start": print(e["run"])' "$RUN/events.jsonl")
has "$RUN/$sub/events.jsonl" '"name":"mcp__fake__echo"' "its trail has the MCP call"

# ---- three at once -------------------------------------------------------------
mkdir -p "$W/stub"
python3 "$SKIT_SOURCE_DIR/tests/support/openai_stub.py" \
	"$CASS/task_parallel.jsonl" "$W/stub/port" "$T/stub.log" "$W/stub" &
stub=$!
n=0
while [ ! -s "$W/stub/port" ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
rm -rf "$W/runs"
OPENAI_BASE_URL="http://127.0.0.1:$(cat "$W/stub/port")/v1" \
	OPENAI_API_KEY=sk-stub timeout 120 "$SKIT" run --project "$W" \
	--root "project=$W/skills" --runs-dir "$W/runs" --workdir "$W/work" \
	--model openai:stub-model --yes go </dev/null >"$T/out" 2>"$T/err"
rc=$?
kill "$stub" 2>/dev/null
wait "$stub" 2>/dev/null
expect_rc 0 "three subagents"
has "$T/out" "FINAL: all done." "the main agent's answer"
if python3 - "$W/stub" <<'PY'; then reg_pass; else reg_fail "the subagents did not overlap"; fi
import json, os, sys
d = sys.argv[1]
recs = [json.load(open(os.path.join(d, f))) for f in sorted(os.listdir(d)) if f.endswith(".json")]
t = [r["time"] for r in recs]
# requests 2-4 are the subagents'; each answer takes 1.5 s: at once,
# they all arrive before the first is answered
sys.exit(0 if len(t) == 5 and max(t[1:4]) - min(t[1:4]) < 1.2 else 1)
PY
reg_done
