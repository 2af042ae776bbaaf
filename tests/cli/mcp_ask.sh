#!/bin/sh
# SPDX-License-Identifier: MIT
# mcp_ask.sh - ask_user over `skit mcp` (stdio): a client that declared
# the elicitation capability gets an elicitation/create request with the
# question and the options, and its answer is the tool's result (accept,
# decline, cancel, an error response); a request the client sends while
# the question is open is answered after it, in order; a client without
# the capability, and one that goes away, get the no-one-to-ask result.
# Scripted client first; then the official TypeScript SDK's client when
# its packages are installed (tests/mcp, scripts/mcp-deps.sh).
. "$(dirname "$0")/registry_lib.inc"
reg_setup
cd "$W" || exit 1
skill r alpha "Says alpha."

# client.py EXPECTED_ELICITS: drive skit mcp over a pipe; prints results
cat >client.py <<'PY'
import json, subprocess, sys
skit, mode = sys.argv[1], sys.argv[2]
p = subprocess.Popen([skit, "mcp", "--no-config", "--root", "r"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(o):
    p.stdin.write(json.dumps(o) + "\n"); p.stdin.flush()
def recv():
    line = p.stdout.readline()
    if not line:
        print("EOF"); sys.exit(0)
    return json.loads(line)
caps = {} if mode == "nocap" else {"elicitation": {}}
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": caps,
    "clientInfo": {"name": "t", "version": "1"}}})
recv()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
def ask(i, args):
    send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
          "params": {"name": "ask_user", "arguments": args}})
if mode == "nocap":
    ask(2, {"question": "Q?"})
    print("RESULT", json.dumps(recv()["result"]))
    sys.exit(0)
ask(2, {"question": "Which colour?", "options": ["red", "blue"]})
m = recv()
print("ELICIT", json.dumps(m))
# a request sent while the question is open, before the answer
send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
if mode == "gone":
    p.stdin.close()
    print("RESULT", json.dumps(recv().get("result")))
    sys.exit(0)
reply = {"accept": {"action": "accept", "content": {"choice": "blue", "other": "OWN-WORDS"}},
         "decline": {"action": "decline"}, "cancel": {"action": "cancel"}}
if mode == "error":
    send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -1, "message": "no"}})
else:
    send({"jsonrpc": "2.0", "id": m["id"], "result": reply[mode]})
first, second = recv(), recv()
print("FIRST", first["id"], json.dumps(first.get("result")))
print("SECOND", second["id"], json.dumps(second.get("result")))
p.stdin.close(); p.wait()
PY

for mode in accept decline cancel error gone nocap; do
	timeout 60 python3 client.py "$SKIT" $mode >"$T/$mode" 2>"$T/$mode.err"
	[ $? -eq 0 ] && reg_pass || reg_fail "$mode: the client failed: $(tail -n 3 "$T/$mode.err")"
done

has() {
	if grep -q -- "$2" "$1"; then reg_pass; else reg_fail "$3: no '$2' in $(cat "$1")"; fi
}
lacks() {
	if grep -q -- "$2" "$1"; then reg_fail "$3: '$2' in $(cat "$1")"; else reg_pass; fi
}
has "$T/accept" '"method": "elicitation/create"' "accept: the request"
has "$T/accept" 'Which colour?' "accept: the question"
has "$T/accept" '2. blue' "accept: the options in the message"
has "$T/accept" '"enum": \["red", "blue"\]' "accept: the options as the enum"
# the tool call is answered first, then the ping sent meanwhile
has "$T/accept" '^FIRST 2 .*blue.*OWN-WORDS' "accept: the answer is the result"
has "$T/accept" '^SECOND 3 {}' "accept: the ping, after"
has "$T/decline" '^FIRST 2 .*declined to answer' "decline"
has "$T/cancel" '^FIRST 2 .*dismissed the question' "cancel"
has "$T/error" '^FIRST 2 .*No one can answer' "an error response"
has "$T/error" '"isError": true' "an error response is an error result"
has "$T/gone" '^RESULT .*No one can answer' "the client went away"
has "$T/nocap" 'No one can answer' "no capability: no one to ask"
lacks "$T/nocap" 'elicitation/create' "no capability: never asked"

# The official SDK's client, when tests/mcp's packages are installed.
NODE_DIR=${SKIT_MCP_NODE:-$SKIT_SOURCE_DIR/build/mcp-node}
if command -v node >/dev/null 2>&1 &&
	[ -d "$NODE_DIR/node_modules/@modelcontextprotocol/sdk" ]; then
	mkdir -p sdk
	cp "$SKIT_SOURCE_DIR/tests/mcp/elicit.mjs" sdk/elicit.mjs
	ln -s "$NODE_DIR/node_modules" sdk/node_modules
	printf '{"type":"module"}\n' >sdk/package.json
	if timeout 120 node sdk/elicit.mjs "$SKIT" r >"$T/sdk" 2>&1; then
		reg_pass
	else
		reg_fail "the SDK client: $(grep FAIL "$T/sdk" || tail -n 5 "$T/sdk")"
	fi
	has "$T/sdk" "ok: the answer is the tool's result" "SDK: the answer"
else
	echo "note: the MCP SDK is not installed ($NODE_DIR); scripted client only"
fi
reg_done
