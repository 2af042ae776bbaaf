#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_tool_search.sh - deferred tools in `skit run`, as a user has it:
# the user config (~/.config/skit/config.json, no --config) names an MCP
# server (tests/mcp/fake/fake_server.py) and "tool_search": "always"; the
# run is in the project's folder, without --root. The server's tools
# leave the requests, tool_search names them, the model loads one and
# calls it; "never" (and a bad value) in the same file.
. "$(dirname "$0")/agent_lib.inc"
agent_world
mkdir -p "$W/proj/.agents" "$XDG_CONFIG_HOME/skit"
cp "$SKIT_SOURCE_DIR/tests/mcp/fake/fake_server.py" "$W/fake_server.py"
cfg() {
	printf '{"tool_search": %s, "mcpServers": {"fake": {"command": "python3", "args": ["%s"]}}}\n' \
		"$1" "$W/fake_server.py" >"$XDG_CONFIG_HOME/skit/config.json"
}
trun() {
	rm -f "$T/req.jsonl"
	(cd "$W/proj" && timeout 120 "$SKIT" run --quiet \
		--request-log "$T/req.jsonl" --model "replay:$CASS/$1" go \
		</dev/null >"$T/out" 2>"$T/err")
	rc=$?
}

cfg '"always"'
trun tool_search_mcp.jsonl
expect_rc 0 "a run with deferred MCP tools"
has "$T/out" "TS-DONE" "the run ends with the model's answer"
req 1
lacks "$T/req1" '{"name":"mcp__fake__echo"' \
	"a deferred tool is not in the first request"
has "$T/req1" '"name":"tool_search"' "tool_search is offered"
has "$T/req1" "Deferred tools: mcp__fake__" \
	"its description names the deferred tools"
req 2
has "$T/req2" '## mcp__fake__echo' "the search result holds the tool"
has "$T/req2" '{"name":"mcp__fake__echo"' \
	"the loaded tool is offered from the next request"
req 3
has "$T/req3" 'ECHO:LOADED' "the loaded tool ran"
set -- "$W"/proj/.agents/runs/*/
has "$1/events.jsonl" '"type":"tools_deferred"' "the deferral is audited"

cfg '"never"'
trun final.jsonl
expect_rc 0 "a run with tool_search never"
req 1
has "$T/req1" '{"name":"mcp__fake__echo"' "never: the tools are offered"
lacks "$T/req1" '"name":"tool_search"' "never: no tool_search"

cfg '"sometimes"'
trun final.jsonl
expect_rc 1 "a bad tool_search value"
has "$T/err" 'tool_search: expected "auto", "always" or "never"' \
	"the error names the key and the values"
reg_done
