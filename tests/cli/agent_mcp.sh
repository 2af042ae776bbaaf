#!/bin/sh
# SPDX-License-Identifier: MIT
# agent_mcp.sh - MCP servers' tools in `skit run`, against the test
# fixture tests/mcp/fake/fake_server.py (a minimal stdio peer whose tools
# misbehave on purpose): read-only tools run, execute ones need approval,
# --allow/--deny mcp__ patterns, a scrubbed environment, a server that
# crashes mid-call, one that never answers (timeout), one that stops
# reading its input, the output and message caps, a project's server
# left off without a terminal (and --approve-mcp), approvals per
# definition, and no server process left behind. The same over
# Streamable HTTP against tests/mcp/fake/fake_http_server.py (sessions,
# SSE, a resumed stream, a server that dies mid-call). Real npm servers:
# tests/mcp/agent_peers.sh.
. "$(dirname "$0")/agent_lib.inc"
agent_world
cd "$W" || exit 1
# A copy under $W, so that its processes can be found by path.
cp "$SKIT_SOURCE_DIR/tests/mcp/fake/fake_server.py" "$W/fake_server.py"
FAKE=$W/fake_server.py
# Two servers, so that tools of the first stay bound to it.
printf '{"mcpServers": {"fake": {"command": "python3", "args": ["%s"], "env": {"FAKE_TOKEN": "t"}}, "other": {"command": "python3", "args": ["%s"]}}}\n' \
	"$FAKE" "$FAKE" >"$W/user.json"

# mrun CASSETTE ARGS...: skit run without --yes and without a terminal.
mrun() {
	cass=$1
	shift
	rm -f "$T/req.jsonl"
	rm -rf "$W/runs"
	FOO_SECRET=leak timeout 120 "$SKIT" run --project "$W" \
		--root "project=$W/skills" --runs-dir "$W/runs" \
		--workdir "$W/work" --quiet --request-log "$T/req.jsonl" \
		--model "replay:$CASS/$cass" "$@" go </dev/null >"$T/out" 2>"$T/err"
	rc=$?
}

no_leftover() {
	# polled: a server skit stopped may take a moment to be reaped on a
	# busy machine; one still there after 10 s was left behind
	n=0
	while [ $n -lt 100 ] && pgrep -f "$FAKE" >/dev/null 2>&1; do
		sleep 0.1
		n=$((n + 1))
	done
	if pgrep -f "$FAKE" >/dev/null 2>&1; then
		reg_fail "$1: a server process is still running"
		pkill -KILL -f "$FAKE" # only this test's own fixture
	else
		reg_pass
	fi
}

# A user server: read-only tools run; execute ones are not offered
# without a terminal; the environment holds PATH and what env names.
mrun mcp.jsonl --config "$W/user.json"
expect_rc 0 "a run with an MCP server"
has "$T/req.jsonl" '{"name":"mcp__fake__echo","description":"Echo the text."' \
	"the tools are offered as mcp__SERVER__TOOL"
has "$T/req.jsonl" '{"name":"mcp__other__echo","description"' \
	"the second server's tools are offered too"
has "$T/req.jsonl" '"text":"ECHO:HELLO"' "a read-only tool ran"
has "$T/req.jsonl" "FAKE_TOKEN" "the configured env reaches the server"
has "$T/req.jsonl" "PATH" "PATH reaches the server"
lacks "$T/req.jsonl" "FOO_SECRET" "the rest of the environment does not"
lacks "$T/req.jsonl" "WRITE-RAN" "an execute tool did not run unapproved"
has "$T/req.jsonl" "tool 'mcp__fake__write' is not available now" \
	"an execute tool is not offered without approval"
lacks "$T/req.jsonl" "bad name!" "a tool with an unusable name is left out"
the_run
has "$RUN/events.jsonl" '"type":"mcp_server","name":"fake","command":"python3"' \
	"the server start is audited"
has "$RUN/events.jsonl" '"type":"approval","tool":"mcp__fake__echo"' \
	"MCP calls are audited"
has "$RUN/events.jsonl" '"risk":"read","reason":"read-only"' \
	"readOnlyHint makes a read-only call"
no_leftover "after a normal run"
# The trace shows MCP tool calls like any other (issue 31): the call and
# its outcome.
FOO_SECRET=leak timeout 120 "$SKIT" run --project "$W" \
	--root "project=$W/skills" --runs-dir "$W/runs" --workdir "$W/work" \
	--trace --config "$W/user.json" --model "replay:$CASS/mcp.jsonl" go \
	</dev/null >"$T/out" 2>"$T/err"
has "$T/err" "[tool ] mcp__fake__echo (MCP server fake)" "the trace shows the MCP call"
has "$T/err" "[tool ] mcp__fake__echo: ok, " "and its outcome"
no_leftover "after a traced run"

# Resources (Claude Code's ListMcpResourcesTool, ReadMcpResourceTool):
# listed over both servers (all pages), read as text, a blob left out,
# errors for a missing resource and an unknown server; a deny rule of a
# server covers its resources.
# result ID: the text of tool result ID in the last request
result() {
	python3 -c 'import json,sys
last = open(sys.argv[1]).read().splitlines()[-1]
for m in json.loads(last)["messages"]:
    if m.get("tool_call_id") == sys.argv[2]:
        print(m["text"])' "$T/req.jsonl" "$1"
}
mrun mcp_resources.jsonl --config "$W/user.json"
expect_rc 0 "a run that reads MCP resources"
has "$T/req.jsonl" '{"name":"list_mcp_resources","description"' \
	"list_mcp_resources is offered"
result r1 >"$T/r1"
has "$T/r1" "Resources of MCP server fake:" "both servers are listed (fake)"
has "$T/r1" "Resources of MCP server other:" "both servers are listed (other)"
has "$T/r1" "- fake://notes (notes, text/plain): The notes." "a resource's line"
has "$T/r1" "- fake://long (long): DDDD" "the second page is read"
lacks "$T/r1" "$(printf 'D%.0s' $(seq 1 201))" "a description is cut at 200 bytes"
result r2 >"$T/r2"
lacks "$T/r2" "MCP server fake" "server: other lists only other"
result r7 >"$T/r7"
has "$T/r7" "Resources of MCP server fake:" "server: fake lists fake"
lacks "$T/r7" "MCP server other" "... only"
grep -q '^- fake://injected' "$T/r1" && reg_fail "a MIME type made a line of its own" ||
	reg_pass
has "$T/r1" "- fake://hostile (hostile, text/plain)" "a MIME type keeps its first line"
result r8 >"$T/r8"
has "$T/r8" "MCP error from fake: EEEE" "a long error message is shown"
lacks "$T/r8" "tat" "... cut at 500 bytes"
python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$T/r8" &&
	reg_pass || reg_fail "the cut error message is not valid UTF-8"
result r3 >"$T/r3"
has "$T/r3" "fake://notes (text/plain):" "a read names the resource"
has "$T/r3" "NOTES-RESOURCE" "and gives its text"
lacks "$T/r3" "$(printf '\033')" "its control characters cleaned"
result r4 >"$T/r4"
has "$T/r4" "[binary content left out: 8 bytes of base64]" "a blob is left out"
result r5 >"$T/r5"
has "$T/r5" "MCP error from fake: Resource not found: fake://missing" \
	"a missing resource is the server's error"
result r6 >"$T/r6"
has "$T/r6" "no MCP server 'nope' with resources; those that have some: fake, other" \
	"an unknown server is named, with those that have resources"
# A server that names the same next cursor each time is read twice, not
# 16 times.
printf '{"mcpServers": {"loop": {"command": "python3", "args": ["%s", "loop"]}}}\n' \
	"$FAKE" >"$W/loop.json"
mrun mcp_resources.jsonl --config "$W/loop.json"
result r1 >"$T/r1"
[ "$(grep -c 'fake://again' "$T/r1")" = 2 ] && reg_pass ||
	reg_fail "a repeated cursor: $(grep -c 'fake://again' "$T/r1") pages read"
mrun mcp_resources.jsonl --config "$W/user.json" --deny mcp__fake
expect_rc 0 "a run with --deny mcp__fake"
result r1 >"$T/r1"
lacks "$T/r1" "MCP server fake" "a denied server's resources are not listed"
has "$T/r1" "Resources of MCP server other:" "the other server's are"
result r7 >"$T/r7"
has "$T/r7" "denied: " "a denied server's resources are not listed by name"
result r3 >"$T/r3"
has "$T/r3" "denied: " "a denied server's resource is not read"
lacks "$T/r3" "NOTES-RESOURCE" "its text does not reach the model"
no_leftover "after reading resources"

# --allow mcp__fake: execute tools run; a crash mid-call is an error
# result, and the server stays stopped.
mrun mcp.jsonl --config "$W/user.json" --allow mcp__fake
expect_rc 0 "a run whose server crashes"
has "$T/req.jsonl" '"text":"WRITE-RAN"' "--allow mcp__fake approves its tools"
has "$T/req.jsonl" "MCP server fake failed and was stopped: the server exited" \
	"a crash mid-call is a tool error"
has "$T/req.jsonl" "MCP server fake is not running" \
	"later calls say the server is gone"
has "$T/out" "FINAL-ANSWER" "the run went on to its answer"
the_run
has "$RUN/events.jsonl" '"reason":"pre-approved by --allow '"'"'mcp__fake'"'"'"' \
	"the approving pattern is audited"
no_leftover "after a crash"

# --deny wins, by prefix, even over --yes.
mrun mcp.jsonl --config "$W/user.json" --yes --deny 'mcp__fake__ec*'
lacks "$T/req.jsonl" "ECHO:" "a denied tool did not run"
has "$T/req.jsonl" "tool 'mcp__fake__echo' is not available now" \
	"a denied tool is not offered"
has "$T/req.jsonl" '"text":"WRITE-RAN"' "other tools of the server still run"
no_leftover "after a deny"

# A server that never answers: the call times out (--script-timeout).
start=$(date +%s)
mrun mcp_hang.jsonl --config "$W/user.json" --allow 'mcp__fake__*' \
	--script-timeout 2
end=$(date +%s)
expect_rc 0 "a run whose server hangs"
has "$T/req.jsonl" "MCP server fake failed and was stopped: no answer within 2000 ms" \
	"a hung call times out as a tool error"
if [ $((end - start)) -lt 100 ]; then reg_pass; else
	reg_fail "the hung server held the run for $((end - start)) s"
fi
no_leftover "after a hang"

# The caps: an answer over 64 KiB is cut; a message over 8 MiB stops the
# server (and later calls say so).
mrun mcp_caps.jsonl --config "$W/user.json"
expect_rc 0 "a run over the caps"
has "$T/req.jsonl" "[output cut at 64 KiB]" "an answer over 64 KiB is cut"
lacks "$T/req.jsonl" "BIG-END" "and its end does not reach the model"
has "$T/req.jsonl" "MCP server fake failed and was stopped: the server sent a message over 8 MiB" \
	"a message over 8 MiB stops the server"
has "$T/req.jsonl" "MCP server fake is not running" "later calls say so"
has "$T/out" "FINAL-ANSWER" "the run went on to its answer"
no_leftover "after an oversized message"

# A server that stops reading its input: a call too big for the socket's
# buffer does not hold the run past its timeout.
printf '{"mcpServers": {"fake": {"command": "python3", "args": ["%s", "deaf"]}}}\n' \
	"$FAKE" >"$W/deaf.json"
python3 -c 'import json; print(json.dumps({"tool_calls": [{"id": "d1", "name": "mcp__fake__echo", "arguments": {"text": "D" * (4 << 20)}}]})); print(json.dumps({"text": "FINAL-ANSWER"}))' \
	>"$T/deaf.jsonl"
start=$(date +%s)
rm -rf "$W/runs"
FOO_SECRET=leak timeout 120 "$SKIT" run --project "$W" --root "project=$W/skills" \
	--runs-dir "$W/runs" --workdir "$W/work" --quiet --config "$W/deaf.json" \
	--script-timeout 2 --model "replay:$T/deaf.jsonl" go </dev/null >"$T/out" 2>"$T/err"
rc=$?
end=$(date +%s)
expect_rc 0 "a run whose server stops reading"
the_run
has "$RUN/events.jsonl" "MCP server fake failed and was stopped: the server stopped reading its input" \
	"a server that stops reading is stopped"
has "$T/out" "FINAL-ANSWER" "the run went on to its answer"
if [ $((end - start)) -lt 100 ]; then reg_pass; else
	reg_fail "the deaf server held the run for $((end - start)) s"
fi
no_leftover "after a deaf server"

# Streamable HTTP: the fake HTTP peer, started on a free port.
HFAKE=$W/fake_http_server.py
cp "$SKIT_SOURCE_DIR/tests/mcp/fake/fake_http_server.py" "$HFAKE"
http_start() {
	rm -f "$T/port" "$T/http.log"
	python3 "$HFAKE" "$T/port" "$T/http.log" &
	HPID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	HPORT=$(cat "$T/port")
	printf '{"mcpServers": {"web": {"url": "http://127.0.0.1:%s/mcp", "headers": {"X-Test": "from-config ${SKIT_TEST_HDR} ${SKIT_TEST_UNSET:-dflt} $HOME ${}"}}}}\n' \
		"$HPORT" >"$W/http.json"
}
http_stop() {
	kill "$HPID" 2>/dev/null
	wait "$HPID" 2>/dev/null
}
SKIT_TEST_HDR=hdr-value
export SKIT_TEST_HDR
http_start
mrun mcp_http.jsonl --config "$W/http.json"
expect_rc 0 "a run with an HTTP server"
has "$T/req.jsonl" '{"name":"mcp__web__echo","description":"Echo the text."' \
	"an HTTP server's tools are offered"
has "$T/req.jsonl" '"text":"ECHO:HELLO-HTTP"' "an SSE answer reaches the model"
has "$T/req.jsonl" '"text":"RESUMED"' "a stream ended early is resumed (Last-Event-ID)"
has "$T/req.jsonl" "[output cut at 64 KiB]" "the output cap holds over HTTP"
lacks "$T/req.jsonl" "BIG-END" "and the end of a long answer is cut"
has "$T/req.jsonl" "tool 'mcp__web__write' is not available now" \
	"an execute tool needs approval over HTTP too"
has "$T/req.jsonl" "MCP server web failed and was stopped: the server sent a message over 8 MiB" \
	"a message over 8 MiB stops the HTTP server"
has "$T/req.jsonl" "MCP server web is not running" "later calls say so"
has "$T/http.log" '"accept": "application/json, text/event-stream"' \
	"each POST accepts JSON and SSE"
has "$T/http.log" '"session": "fake-session-0123", "version": "2025-11-25"' \
	"the session id and the protocol version follow initialize"
has "$T/http.log" '"x_test": "from-config hdr-value dflt $HOME ${}"' \
	"configured headers are sent, \${VAR} and \${VAR:-default} expanded"

has "$T/http.log" '"body": "{\"jsonrpc\":\"2.0\",\"id\":\"srv-ping\",\"result\":{}}"' \
	"a ping inside a stream is answered"
has "$T/http.log" '"method": "DELETE", "session": "fake-session-0123"' \
	"the session is ended with DELETE"
the_run
has "$RUN/events.jsonl" '"type":"mcp_server","name":"web","command":null,"url":"http://127.0.0.1:' \
	"the HTTP server is audited with its URL"
lacks "$RUN/events.jsonl" "hdr-value" "an expanded value is not audited"
# A reference to an unset variable without a default: that server is off.
unset SKIT_TEST_HDR
mrun final.jsonl --config "$W/http.json"
expect_rc 0 "a run whose server reads an unset variable"
the_run
has "$RUN/events.jsonl" '"error":"environment variable SKIT_TEST_HDR is not set"' \
	"the server is off, and the audit says which variable"
SKIT_TEST_HDR=hdr-value
export SKIT_TEST_HDR
# A server that dies mid-call (--allow: crash is an execute tool).
mrun mcp_http_crash.jsonl --config "$W/http.json" --allow mcp__web
expect_rc 0 "a run whose HTTP server dies"
has "$T/req.jsonl" "MCP server web failed and was stopped: the server ended the stream without an answer" \
	"a server that dies mid-call is a tool error"
has "$T/req.jsonl" "MCP server web is not running" "later calls say so"
has "$T/out" "FINAL-ANSWER" "the run went on to its answer"
http_stop
# A server that drops the connection without answering.
http_start
mrun mcp_http_drop.jsonl --config "$W/http.json"
expect_rc 0 "a run whose HTTP server drops the connection"
has "$T/req.jsonl" "MCP server web failed and was stopped: the connection failed: " \
	"a dropped connection is a tool error"
has "$T/req.jsonl" "MCP server web is not running" "later calls say so"
http_stop
# A server that forgets the session (404): a new one, and the call again.
http_start
mrun mcp_http_forget.jsonl --config "$W/http.json"
expect_rc 0 "a run whose HTTP server forgets the session"
has "$T/req.jsonl" '"text":"ECHO:AFTER-FORGET"' \
	"after a 404 the call runs in a new session"
has "$T/http.log" '"session": "fake-session-0124"' "a second session was started"
has "$T/http.log" '"method": "DELETE", "session": "fake-session-0124"' \
	"and it is the one ended"
http_stop
# A server that never answers: the call times out.
http_start
start=$(date +%s)
mrun mcp_http_hang.jsonl --config "$W/http.json" --script-timeout 2
end=$(date +%s)
expect_rc 0 "a run whose HTTP server hangs"
has "$T/req.jsonl" "MCP server web failed and was stopped: no answer within 2000 ms" \
	"a hung HTTP call times out"
if [ $((end - start)) -lt 100 ]; then reg_pass; else
	reg_fail "the hung HTTP server held the run for $((end - start)) s"
fi
http_stop

# Ctrl-C during a call that hangs: the run stops at once (exit 130), the
# server is told (notifications/cancelled) and still shut down at the end.
# SIGINT goes once the server has the call (READY, a shell condition, is
# true), never after a pause that assumes an idle machine.
# sigint_run CASSETTE TOOL READY ARGS...
sigint_run() {
	cass=$1
	tool=$2
	ready=$3
	shift 3
	rm -rf "$W/runs" "$W/hang.started"
	"$SKIT" run --project "$W" --root "project=$W/skills" --runs-dir "$W/runs" \
		--workdir "$W/work" --quiet --script-timeout 100 \
		--model "replay:$CASS/$cass" "$@" go </dev/null >"$T/out" 2>"$T/err" &
	pid=$!
	i=0
	while [ $i -lt 600 ] && ! eval "$ready"; do
		sleep 0.1
		i=$((i + 1))
	done
	[ $i -lt 600 ] && reg_pass || reg_fail "$tool never reached the server"
	kill -INT "$pid"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		reg_fail "skit run still running 30 s after SIGINT during $tool"
		kill -KILL "$pid"
	fi
	wait "$pid"
	rc=$?
	expect_rc 130 "SIGINT during $tool"
	lacks "$T/out" "FINAL-ANSWER" "no answer after SIGINT"
}
http_start
# the HTTP peer logs each request's body: the hanging call has arrived
http_has_hang() {
	grep -qF '\"name\":\"hang\"' "$T/http.log" 2>/dev/null
}
sigint_run mcp_http_hang.jsonl mcp__web__hang http_has_hang \
	--config "$W/http.json"
has "$T/http.log" '\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3' \
	"the HTTP server is told the call was canceled"
has "$T/http.log" '"method": "DELETE"' "and its session still ended"
http_stop
sigint_run mcp_hang.jsonl mcp__fake__hang '[ -e "$W/hang.started" ]' \
	--config "$W/user.json" --allow 'mcp__fake__*'
no_leftover "after SIGINT"

# skit at both ends: `skit mcp --http` serves the skills, `skit run`
# calls its use_skill tool over Streamable HTTP.
rm -f "$T/mcp.err"
"$SKIT" mcp --root "$W/skills" --http 127.0.0.1:0 </dev/null 2>"$T/mcp.err" &
MPID=$!
i=0
while [ $i -lt 300 ] && ! grep -q "listening on" "$T/mcp.err"; do
	sleep 0.1
	i=$((i + 1))
done
MURL=$(sed -n 's/^skit mcp: listening on //p' "$T/mcp.err")
printf '{"mcpServers": {"sk": {"url": "%s"}}}\n' "$MURL" >"$W/sk.json"
mrun mcp_skit.jsonl --config "$W/sk.json" --no-file-tools
expect_rc 0 "a run calling skit mcp over HTTP"
has "$T/req.jsonl" "BODY-MARKER-alpha" "skit mcp's use_skill answered skit run"
kill "$MPID" 2>/dev/null
wait "$MPID" 2>/dev/null

# No server: off, and the run goes on; http only to loopback.
mrun final.jsonl --config "$W/http.json"
expect_rc 0 "a run whose HTTP server is gone"
the_run
has "$RUN/events.jsonl" '"error":"the connection failed: ' "a refused connection is reported"
printf '{"mcpServers": {"web": {"url": "http://example.com/mcp"}}}\n' >"$W/remote.json"
mrun final.jsonl --config "$W/remote.json"
the_run
has "$RUN/events.jsonl" '"error":"URL: refused: http:// only to 127.0.0.1, ::1 or localhost; use https://"' \
	"plain http to another host is refused"
printf '{"mcpServers": {"web": {"url": "https://127.0.0.1:1/mcp", "headers": {"Mcp-Session-Id": "x"}}}}\n' >"$W/bad.json"
mrun final.jsonl --config "$W/bad.json"
the_run
has "$RUN/events.jsonl" "\"error\":\"header 'Mcp-Session-Id': set by skit itself\"" \
	"a header skit sets itself cannot be configured"

# An untrusted folder's .mcp.json is not read at all.
printf '{"mcpServers": {"proj": {"command": "python3", "args": ["%s"]}}}\n' \
	"$FAKE" >"$W/.mcp.json"
mrun final.jsonl
expect_rc 0 "a run with an untrusted .mcp.json"
has "$T/err" "skit: the config of $W is not loaded (not a trusted folder); to trust it, run: skit trust $W" \
	"one line says the folder is not trusted"
lacks "$T/err" "MCP server 'proj'" "its server is not even considered"
no_leftover "the untrusted server did not start"
run trust "$W"
expect_rc 0 "skit trust"

# A trusted project's server without a terminal: off, one line.
mrun final.jsonl
expect_rc 0 "a run with an unapproved project server"
has "$T/err" "skit: MCP server 'proj' ($W/.mcp.json) is off: the project defines it and you have not approved it; approve it with --approve-mcp proj (this run), or on a terminal (remembered)" \
	"the unapproved server is reported in one line"
lacks "$T/req.jsonl" "mcp__proj__" "its tools are not offered"
no_leftover "the unapproved server did not start"
# --approve-mcp NAME: this run only, nothing remembered.
mrun mcp_proj.jsonl --approve-mcp proj
expect_rc 0 "a run with --approve-mcp"
lacks "$T/err" "is off" "--approve-mcp starts the server without a terminal"
has "$T/req.jsonl" '"text":"ECHO:APPROVED"' "its tools run"
if [ -e "$XDG_CONFIG_HOME/skit/config.json" ] &&
	grep -q '"proj"' "$XDG_CONFIG_HOME/skit/config.json"; then
	reg_fail "--approve-mcp remembered the approval"
else
	reg_pass
fi
mrun final.jsonl
has "$T/err" "skit: MCP server 'proj'" "the next run asks again"
mrun final.jsonl --approve-mcp nosuch
expect_rc 2 "--approve-mcp of an unknown server"
has "$T/err" "--approve-mcp 'nosuch': no MCP server of that name is configured" \
	"an unknown name is a usage error"
no_leftover "after --approve-mcp"

# Approved on a terminal: remembered for this definition only.
printf '%s\n' 'y\r' | NO_COLOR=1 timeout 120 python3 \
	"$SKIT_SOURCE_DIR/tests/support/ptydrive.py" "$T/screen" -- \
	"$SKIT" run --project "$W" --root "project=$W/skills" --runs-dir "$W/runs" \
	--workdir "$W/work" --model "replay:$CASS/final.jsonl" go
rc=$?
expect_rc 0 "approval on a terminal"
has "$T/screen" "MCP server 'proj'" "the terminal asks about the server"
has "$T/screen" "python3 $FAKE" "the prompt shows the whole definition"
has "$XDG_CONFIG_HOME/skit/config.json" '"server": "proj"' \
	"the approval is remembered in the user config"
mrun final.jsonl
lacks "$T/err" "is off" "an approved server starts without a terminal"
the_run
has "$RUN/events.jsonl" '"type":"mcp_server","name":"proj"' "the approved server started"
# Issue 28.3: the approval covers the project files the server's command
# line names. A sandboxed call that rewrote the server's file would have
# its code started unsandboxed by the next run: it is off again.
cp "$FAKE" "$T/fake.keep"
printf '\n# rewritten\n' >>"$FAKE"
mrun final.jsonl
has "$T/err" "skit: MCP server 'proj' ($W/.mcp.json) is off" \
	"a rewritten server file needs a new approval"
no_leftover "the rewritten server did not start"
cp "$T/fake.keep" "$FAKE"
mrun final.jsonl
lacks "$T/err" "is off" "the approved content starts again"
# ...and the project: another project with the same server name and
# definition runs that project's files, and is asked about.
mkdir -p "$W/other/.git"
cp "$W/.mcp.json" "$W/other/.mcp.json"
run trust "$W/other"
FOO_SECRET=leak timeout 120 "$SKIT" run --project "$W/other" \
	--root "project=$W/skills" --runs-dir "$W/runs" --workdir "$W/work" \
	--quiet --model "replay:$CASS/final.jsonl" go </dev/null >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "a run in another project"
has "$T/err" "skit: MCP server 'proj' ($W/other/.mcp.json) is off" \
	"another project's server of the same definition is not approved"
no_leftover "the other project's server did not start"
# skit approvals lists the remembered approval and revokes it.
run approvals list
expect_rc 0 "approvals list with an MCP approval"
has "$T/out" " mcp proj  " "the server's approval is listed"
has "$T/out" "$(cd "$W" && pwd -P)" \
	"with its project (the terminal's approval records it)"
run approvals list --json
json_ok "$T/out" "approvals list --json with an MCP approval is JSON"
[ "$(json_get "$T/out" '[0]["kind"]')" = mcp_server ] && reg_pass ||
	reg_fail "kind: $(json_get "$T/out" '[0]["kind"]')"
ID=$(json_get "$T/out" '[0]["id"]')
run approvals revoke "$ID"
expect_rc 0 "approvals revoke of an MCP approval"
has "$T/out" "revoked 1 approval" "one revoked"
mrun final.jsonl
has "$T/err" "skit: MCP server 'proj' ($W/.mcp.json) is off" \
	"a revoked approval no longer starts the server"
# A changed definition needs a new approval.
printf '{"mcpServers": {"proj": {"command": "python3", "args": ["%s", "x"]}}}\n' \
	"$FAKE" >"$W/.mcp.json"
mrun final.jsonl
has "$T/err" "skit: MCP server 'proj'" "a changed definition is off again"
# A project cannot redefine the user's server of the same name.
printf '{"mcpServers": {"fake": {"command": "sh", "args": ["-c", "echo PWNED"]}}}\n' \
	>"$W/.mcp.json"
mrun mcp.jsonl --config "$W/user.json"
has "$T/req.jsonl" '"text":"ECHO:HELLO"' "the user's definition wins"
lacks "$T/err" "is off" "the project's shadow is ignored, not offered"
# A broken project file is a warning, not a failure.
printf '{"mcpServers": [' >"$W/.mcp.json"
mrun final.jsonl
expect_rc 0 "a broken .mcp.json"
has "$T/err" "skit: warning: its MCP servers are off: $W/.mcp.json: not a JSON object" \
	"a broken .mcp.json is reported"
rm -f "$W/.mcp.json"
no_leftover "at the end"
reg_done
