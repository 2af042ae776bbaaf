#!/usr/bin/env python3
"""window_model.py - a fake model with a context window, for the session
and compaction tests: an OpenAI Chat Completions server (POST
/v1/chat/completions) and an Anthropic Messages one (POST /v1/messages)
on 127.0.0.1, each with the provider's own overflow error.

    window_model.py PORT_FILE LOG_FILE WINDOW

Each request's size is its body's length / 4, in tokens. A request over
WINDOW tokens gets what OpenAI answers then: HTTP 400 with the code
context_length_exceeded and "maximum context length is WINDOW tokens".
A compaction request (its system prompt starts "You compact") gets a
summary naming how many messages it read; any other request gets a reply
of FILL bytes (environment, default 1200) naming the request's number,
with usage reporting the request's size. Requests are not streamed (the
tests pass --no-stream).

Environment: FILL, and OVERFLOW_AT=N: the N-th chat request is answered
with the 400 whatever its size (a provider that counts differently).
Each request is logged to LOG_FILE as one JSON line: {"n", "kind":
"chat"|"compact", "tokens", "overflow", "markers": the BODY-MARKER-*
strings it holds, "summary": whether it holds a compacted summary,
"last_user": the last user message's first 80 characters}.
"""
import http.server
import json
import os
import re
import sys
import threading

PORT_FILE, LOG, WINDOW = sys.argv[1], sys.argv[2], int(sys.argv[3])
FILL = int(os.environ.get("FILL", "1200"))
OVERFLOW_AT = int(os.environ.get("OVERFLOW_AT", "0"))
LOCK = threading.Lock()
STATE = {"n": 0, "chat": 0}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        req = json.loads(body)
        tokens = (len(body) + 3) // 4
        msgs = req.get("messages", [])
        anthropic = self.path.endswith("/messages")
        if anthropic:
            system = req.get("system", "")
        else:
            system = msgs[0].get("content", "") if msgs and msgs[0].get("role") in ("system", "developer") else ""
        if isinstance(system, list):
            system = " ".join(p.get("text", "") for p in system)
        kind = "compact" if system.startswith("You compact") else "chat"
        text = json.dumps(msgs)
        users = [m for m in msgs if m.get("role") == "user"]
        last_user = users[-1].get("content", "") if users else ""
        if isinstance(last_user, list):
            last_user = " ".join(p.get("text", "") for p in last_user)
        with LOCK:
            STATE["n"] += 1
            n = STATE["n"]
            if kind == "chat":
                STATE["chat"] += 1
            chat_n = STATE["chat"]
        overflow = tokens > WINDOW or (kind == "chat" and chat_n == OVERFLOW_AT)
        entry = {"n": n, "kind": kind, "tokens": tokens, "overflow": overflow,
                 "markers": sorted(set(re.findall(r"BODY-MARKER-[a-z]+", text))),
                 "summary": "<summary>" in text,
                 "last_user": last_user[:80]}
        with LOCK, open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        if overflow and anthropic:
            self.reply(400, {"type": "error", "error": {
                "type": "invalid_request_error",
                "message": "prompt is too long: %d tokens > %d maximum" % (tokens, WINDOW)}})
            return
        if overflow:
            self.reply(400, {"error": {
                "message": "This model's maximum context length is %d tokens. "
                           "However, your messages resulted in %d tokens." % (WINDOW, tokens),
                "type": "invalid_request_error", "param": "messages",
                "code": "context_length_exceeded"}})
            return
        if kind == "compact":
            content = "SUMMARY-OF-%d: the user sent numbered messages; all were answered." % n
        else:
            head = "REPLY-%d " % chat_n
            content = head + ("lorem ipsum " * (FILL // 12 + 1))[:max(0, FILL - len(head))]
        if anthropic:
            self.reply(200, {
                "id": "msg_%d" % n, "type": "message", "role": "assistant",
                "model": req.get("model", "m"), "stop_reason": "end_turn",
                "content": [{"type": "text", "text": content}],
                "usage": {"input_tokens": tokens, "output_tokens": (len(content) + 3) // 4}})
            return
        self.reply(200, {
            "id": "cmpl-%d" % n, "object": "chat.completion", "model": req.get("model", "m"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": tokens, "completion_tokens": (len(content) + 3) // 4,
                      "total_tokens": tokens + (len(content) + 3) // 4}})


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
