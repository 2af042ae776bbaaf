#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# fake_http_server.py - a TEST FIXTURE, not a real MCP server: a minimal
# Streamable HTTP MCP peer on 127.0.0.1 for tests/cli/agent_mcp.sh, whose
# tools misbehave on purpose. Real servers: tests/mcp/agent_peers.sh.
#
#     fake_http_server.py PORT_FILE LOG_FILE
#
# It writes its port to PORT_FILE and appends one JSON line per request to
# LOG_FILE: {"method", "session", "version", "accept", "x_test",
# "last_event_id", "body"}. Messages after initialize must carry its
# session id (none: 400; another: 404, as for a session it forgot) and a
# protocol version (else 400). Sessions are fake-session-0123, then 0124...
# Tools:
#   echo    (readOnlyHint) an SSE answer, after a ping request to the
#           client and a log notification
#   resume  (readOnlyHint) a stream that ends before its answer; the
#           answer comes on GET with Last-Event-ID
#   big     (readOnlyHint) a JSON answer of 100 KiB of text + BIG-END
#   huge    (readOnlyHint) an SSE event of 9 MiB
#   write   (no hint: an execute call) returns WRITE-RAN
#   crash   starts an SSE answer, then the server process exits
#   drop    closes the connection without a byte of answer
#   hang    never answers
#   forget  answers FORGOTTEN, then forgets the session (404 from then on)
import http.server
import json
import os
import sys
import time

STATE = {"session": None, "next": 123}
PORT_FILE, LOG = sys.argv[1], sys.argv[2]

TOOLS = [
    {"name": n, "description": d, "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": ro}}
    for n, d, ro in [
        ("echo", "Echo the text.", True),
        ("resume", "An answer on a resumed stream.", True),
        ("big", "A long answer.", True),
        ("huge", "An oversized message.", True),
        ("write", "A call that changes something.", False),
        ("crash", "Dies mid-call.", False),
        ("drop", "Drops the connection.", True),
        ("hang", "Never answers.", True),
        ("forget", "Forgets the session.", True),
    ]
]


def result(mid, res):
    return {"jsonrpc": "2.0", "id": mid, "result": res}


def text(mid, s):
    return result(mid, {"content": [{"type": "text", "text": s}]})


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def record(self, body):
        h = self.headers
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps({
                "method": self.command, "session": h.get("Mcp-Session-Id"),
                "version": h.get("MCP-Protocol-Version"),
                "accept": h.get("Accept"), "x_test": h.get("X-Test"),
                "last_event_id": h.get("Last-Event-ID"), "body": body}) + "\n")

    def reply(self, status, obj=None, headers=()):
        data = json.dumps(obj).encode() if obj is not None else b""
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if obj is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def sse_start(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()

    def event(self, obj, eid=None):
        out = ("id: %s\n" % eid if eid else "") + "event: message\n"
        out += "data: " + json.dumps(obj) + "\n\n"
        self.wfile.write(out.encode())
        self.wfile.flush()

    def session_ok(self):
        sid = self.headers.get("Mcp-Session-Id")
        if sid is None or sid != STATE["session"]:
            self.reply(400 if sid is None else 404, {
                "jsonrpc": "2.0", "id": None, "error": {
                    "code": -32000, "message": "no valid session id"}})
            return False
        if not self.headers.get("MCP-Protocol-Version"):
            self.reply(400, {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32000, "message": "no protocol version"}})
            return False
        return True

    def do_DELETE(self):
        self.record(None)
        self.reply(200 if self.session_ok() else 400)

    def do_GET(self):
        self.record(None)
        if not self.session_ok():
            return
        last = self.headers.get("Last-Event-ID")
        if not last or not last.startswith("resume-"):
            self.reply(405)
            return
        self.sse_start()
        self.event(text(int(last.split("-")[1]), "RESUMED"), "resume-end")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n).decode()
        self.record(body)
        msg = json.loads(body)
        mid, method = msg.get("id"), msg.get("method")
        if method == "initialize":
            STATE["session"] = "fake-session-%04d" % STATE["next"]
            STATE["next"] += 1
            self.reply(200, result(mid, {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake-http", "version": "0"}}),
                [("Mcp-Session-Id", STATE["session"])])
            return
        if not self.session_ok():
            return
        if method is None or mid is None:
            self.reply(202)  # a notification, or an answer to our ping
            return
        if method == "tools/list":
            self.sse_start()
            self.event({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "listing"}})
            self.event(result(mid, {"tools": TOOLS}))
            return
        if method != "tools/call":
            self.reply(200, {"jsonrpc": "2.0", "id": mid, "error": {
                "code": -32601, "message": "no such method"}})
            return
        name = msg["params"]["name"]
        args = msg["params"].get("arguments", {})
        if name == "echo":
            self.sse_start()
            # a priming event: an id and no data
            self.wfile.write(b"id: prime-0\ndata: \n\n")
            self.event({"jsonrpc": "2.0", "id": "srv-ping", "method": "ping"})
            self.event({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "echoing"}})
            self.event(text(mid, "ECHO:" + args.get("text", "")), "e-1")
        elif name == "resume":
            self.sse_start()
            self.wfile.write(("id: resume-%d\nretry: 50\ndata: \n\n"
                              % mid).encode())
        elif name == "big":
            self.reply(200, text(mid, "B" * (100 * 1024) + "BIG-END"))
        elif name == "huge":
            self.sse_start()
            self.event(text(mid, "H" * (9 * 1024 * 1024)))
        elif name == "write":
            self.reply(200, text(mid, "WRITE-RAN"))
        elif name == "crash":
            self.sse_start()
            self.wfile.write(b'event: message\ndata: {"jsonrpc": "2.0", ')
            self.wfile.flush()
            os._exit(3)
        elif name == "drop":
            self.close_connection = True
            self.connection.shutdown(2)  # SHUT_RDWR: no status line
        elif name == "hang":
            time.sleep(3600)
        elif name == "forget":
            STATE["session"] = "forgotten"
            self.reply(200, text(mid, "FORGOTTEN"))
        else:
            self.reply(200, {"jsonrpc": "2.0", "id": mid, "error": {
                "code": -32602, "message": "no such tool"}})


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(PORT_FILE + ".tmp", "w", encoding="utf-8") as f:
    f.write(str(server.server_address[1]))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
