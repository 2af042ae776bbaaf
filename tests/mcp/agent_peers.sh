#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_peers.sh - `skit run` (driven by a replay model) calls the tools of
# real MCP servers from npm: @modelcontextprotocol/server-everything and
# @modelcontextprotocol/server-filesystem, over stdio, and
# server-everything over Streamable HTTP. Read-only tools run; a write needs approval and is refused without a terminal; a
# --deny pattern hides a server's tools; the environment is scrubbed;
# server-everything's resources are listed and read; no server is left
# running.
#
# The npm packages come from scripts/mcp-agent-deps.sh (pinned, into the
# build tree). Exit 77 (CTest: skipped) only when they cannot be
# installed. Environment (set by CMake): SKIT, SKIT_SOURCE_DIR,
# SKIT_TEST_DIR, SKIT_MCP_AGENT_NODE.
set -u

: "${SKIT_SOURCE_DIR:=$(pwd)}"
: "${SKIT:=$SKIT_SOURCE_DIR/build/skit}"
: "${SKIT_TEST_DIR:=${TMPDIR:-/tmp}/skit-mcp-agent-$$}"
: "${SKIT_MCP_AGENT_NODE:=$SKIT_SOURCE_DIR/build/mcp-agent-node}"
failures=0
checks=0

fail() {
	failures=$((failures + 1))
	echo "FAIL: $*"
}

has() {
	checks=$((checks + 1))
	grep -F -q -e "$2" "$1" || { fail "$3: '$2' not in $(basename "$1")"; head -c 2000 "$1"; echo; }
}

lacks() {
	checks=$((checks + 1))
	! grep -F -q -e "$2" "$1" || fail "$3: '$2' unexpectedly in $(basename "$1")"
}

sh "$SKIT_SOURCE_DIR/scripts/mcp-agent-deps.sh" "$SKIT_MCP_AGENT_NODE"
st=$?
[ "$st" -eq 0 ] || exit "$st"
N=$SKIT_MCP_AGENT_NODE/node_modules/@modelcontextprotocol

rm -rf "$SKIT_TEST_DIR"
mkdir -p "$SKIT_TEST_DIR/proj/skills/a" "$SKIT_TEST_DIR/data" || exit 1
W=$(cd "$SKIT_TEST_DIR" && pwd -P)
HOME=$W/home
XDG_CONFIG_HOME=$W/xdg
export HOME XDG_CONFIG_HOME LC_ALL=C
printf -- '---\nname: a\ndescription: A skill.\n---\nbody\n' >"$W/proj/skills/a/SKILL.md"
echo "FS-PEER-MARKER" >"$W/data/hello.txt"
cat >"$W/user.json" <<JSON
{"mcpServers": {
  "everything": {"command": "node", "args": ["$N/server-everything/dist/index.js", "stdio"],
                 "env": {"PEER_VAR": "peer-value"}},
  "fs": {"command": "node", "args": ["$N/server-filesystem/dist/index.js", "$W/data"]}}}
JSON
cat >"$W/c.jsonl" <<JSON
{"tool_calls": [{"id": "p1", "name": "mcp__everything__echo", "arguments": {"message": "PEER-ECHO"}}, {"id": "p2", "name": "mcp__everything__get-sum", "arguments": {"a": 20, "b": 22}}, {"id": "p3", "name": "mcp__fs__read_text_file", "arguments": {"path": "$W/data/hello.txt"}}]}
{"tool_calls": [{"id": "p4", "name": "mcp__fs__write_file", "arguments": {"path": "$W/data/new.txt", "content": "WRITTEN"}}, {"id": "p5", "name": "mcp__everything__get-env", "arguments": {}}]}
{"text": "PEERS-DONE"}
JSON

# prun ARGS...: skit run without a terminal.
prun() {
	rm -f "$W/req.jsonl"
	rm -rf "$W/runs"
	(cd "$W/proj" && FOO_SECRET=leak timeout 300 "$SKIT" run --project "$W/proj" \
		--root "project=$W/proj/skills" --runs-dir "$W/runs" \
		--request-log "$W/req.jsonl" --config "$W/user.json" \
		--model "replay:$W/c.jsonl" "$@" go </dev/null >"$W/out" 2>"$W/err")
	rc=$?
	checks=$((checks + 1))
	[ "$rc" -eq 0 ] || { fail "skit run $*: exit $rc"; cat "$W/err"; }
}

prun
has "$W/out" "PEERS-DONE" "the run ends with the model's answer"
has "$W/req.jsonl" '{"name":"mcp__everything__echo","description"' \
	"server-everything's tools are offered"
has "$W/req.jsonl" '{"name":"mcp__fs__read_text_file","description"' \
	"server-filesystem's tools are offered"
has "$W/req.jsonl" "PEER-ECHO" "echo answered"
has "$W/req.jsonl" "42" "get-sum answered"
has "$W/req.jsonl" "FS-PEER-MARKER" "read_text_file (readOnlyHint) ran"
has "$W/req.jsonl" "tool 'mcp__fs__write_file' is not available now" \
	"write_file needs approval: refused without a terminal"
[ ! -e "$W/data/new.txt" ] || fail "the refused write happened"
set -- "$W"/runs/*/
has "$1/events.jsonl" '"type":"approval","tool":"mcp__fs__read_text_file"' "calls are audited"

# --allow approves the write; the environment is scrubbed.
prun --allow 'mcp__fs__write_file' --allow 'mcp__everything__*'
has "$W/data/new.txt" "WRITTEN" "an allowed write ran"
has "$W/req.jsonl" "peer-value" "the configured env reaches the server"
lacks "$W/req.jsonl" "FOO_SECRET" "the rest of the environment does not"

# --deny by server: its tools are hidden.
prun --deny mcp__fs
lacks "$W/req.jsonl" '{"name":"mcp__fs__read_text_file","description"' \
	"a denied server's tools are hidden"
has "$W/req.jsonl" "tool 'mcp__fs__read_text_file' is not available now" \
	"a call to a denied tool is refused"
lacks "$W/req.jsonl" "FS-PEER-MARKER" "and do not run"
has "$W/req.jsonl" "PEER-ECHO" "the other server still works"

# Resources: server-everything's static documents, listed and read with
# list_mcp_resources and read_mcp_resource.
cp "$W/c.jsonl" "$W/c-tools.jsonl"
cat >"$W/c.jsonl" <<JSON
{"tool_calls": [{"id": "r1", "name": "list_mcp_resources", "arguments": {"server": "everything"}}, {"id": "r2", "name": "read_mcp_resource", "arguments": {"server": "everything", "uri": "demo://resource/static/document/structure.md"}}]}
{"text": "RES-DONE"}
JSON
prun
has "$W/out" "RES-DONE" "a run that reads a real server's resources"
has "$W/req.jsonl" "Resources of MCP server everything:" "list_mcp_resources answered"
has "$W/req.jsonl" "- demo://resource/static/document/structure.md (structure.md, text/markdown)" \
	"a static document is listed"
has "$W/req.jsonl" "demo://resource/static/document/structure.md (text/markdown):" \
	"read_mcp_resource names it"
has "$W/req.jsonl" "# Everything Server - Project Structure" "and gives its text"
cp "$W/c-tools.jsonl" "$W/c.jsonl"

# Streamable HTTP: server-everything's own HTTP mode (PORT from the
# environment; it binds every interface, and skit reaches it on
# 127.0.0.1), on a port that was free a moment before.
SE_PID=
se_start() {
	for try in 1 2 3; do
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		: >"$W/se.err"
		PORT=$port node "$N/server-everything/dist/index.js" streamableHttp \
			>"$W/se.out" 2>"$W/se.err" &
		SE_PID=$!
		i=0
		while [ $i -lt 600 ] && kill -0 "$SE_PID" 2>/dev/null &&
			! grep -q "listening on port" "$W/se.err"; do
			sleep 0.1
			i=$((i + 1))
		done
		grep -q "listening on port" "$W/se.err" && return 0
		kill "$SE_PID" 2>/dev/null
		wait "$SE_PID" 2>/dev/null
	done
	fail "server-everything did not start in HTTP mode: $(tail -n 3 "$W/se.err")"
	return 1
}
if se_start; then
	cat >"$W/http.json" <<JSON
{"mcpServers": {"web": {"url": "http://127.0.0.1:$port/mcp", "headers": {"X-Skit-Test": "peer"}}}}
JSON
	cat >"$W/c.jsonl" <<JSON
{"tool_calls": [{"id": "h1", "name": "mcp__web__echo", "arguments": {"message": "HTTP-PEER-ECHO"}}, {"id": "h2", "name": "mcp__web__get-sum", "arguments": {"a": 19, "b": 23}}, {"id": "h3", "name": "mcp__web__toggle-simulated-logging", "arguments": {}}]}
{"text": "HTTP-DONE"}
JSON
	prun --config "$W/http.json"
	has "$W/out" "HTTP-DONE" "the HTTP run ends with the model's answer"
	has "$W/req.jsonl" '{"name":"mcp__web__echo","description"' \
		"server-everything's tools are offered over HTTP"
	has "$W/req.jsonl" "HTTP-PEER-ECHO" "echo answered over HTTP"
	has "$W/req.jsonl" "The sum of 19 and 23 is 42" "get-sum answered over HTTP"
	has "$W/req.jsonl" "tool 'mcp__web__toggle-simulated-logging' is not available now" \
		"a tool without readOnlyHint is refused without a terminal"
	has "$W/se.out" "Received session termination request" \
		"the session is ended with DELETE"
	set -- "$W"/runs/*/
	has "$1/events.jsonl" '"type":"mcp_server","name":"web","command":null,"url":"http://127.0.0.1:' \
		"the HTTP server's start is audited"
	has "$1/events.jsonl" '"tools":13' "all its tools were listed"
	# A --deny pattern refuses one tool; the others still run.
	prun --config "$W/http.json" --deny 'mcp__web__get-sum'
	has "$W/req.jsonl" "tool 'mcp__web__get-sum' is not available now" \
		"a denied HTTP tool is refused"
	lacks "$W/req.jsonl" "is 42" "and does not run"
	has "$W/req.jsonl" "HTTP-PEER-ECHO" "the other tools still run"
	kill "$SE_PID" 2>/dev/null
	wait "$SE_PID" 2>/dev/null
fi

checks=$((checks + 1))
if pgrep -f "$N/server-" >/dev/null 2>&1; then
	fail "a server process outlived its run"
fi
echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
