#!/usr/bin/env python3
"""openai_stub.py - an OpenAI-compatible chat completions server for the
CLI tests, on 127.0.0.1.

    openai_stub.py RESPONSES PORT_FILE LOG_FILE

RESPONSES is a JSONL file of assistant messages ({"content": ...} or
{"tool_calls": [{"name": ..., "arguments": {...}}]}), answered in order to
POST /v1/chat/completions (a 500 once they run out). The chosen port is
written to PORT_FILE; each request body is appended to LOG_FILE as one
line. Runs until killed.
"""
import http.server
import json
import os
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f
                if line.strip() and not line.startswith("#")]


RESPONSES = load(sys.argv[1])
LOG = sys.argv[3]


def reply(message, n):
    msg = {"role": "assistant", "content": message.get("content")}
    if "tool_calls" in message:
        msg["tool_calls"] = [
            {"id": "call_%d_%d" % (n, i), "type": "function",
             "function": {"name": c["name"],
                          "arguments": json.dumps(c["arguments"])}}
            for i, c in enumerate(message["tool_calls"])]
    return {"id": "stub-%d" % n, "object": "chat.completion",
            "choices": [{"index": 0, "message": msg,
                         "finish_reason": "tool_calls"
                         if "tool_calls" in message else "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10}}


class Handler(http.server.BaseHTTPRequestHandler):
    served = 0

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(body.decode("utf-8", "replace").replace("\n", " ") + "\n")
        n = Handler.served
        Handler.served += 1
        if self.path != "/v1/chat/completions" or n >= len(RESPONSES):
            status, out = 500, {"error": {"message": "no response left"}}
        else:
            status, out = 200, reply(RESPONSES[n], n)
        data = json.dumps(out).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[2] + ".tmp", "w", encoding="utf-8") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
