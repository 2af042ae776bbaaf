#!/usr/bin/env python3
"""openai_stub.py - a scripted model server for the CLI tests, on
127.0.0.1: OpenAI Chat Completions and the Anthropic Messages API, each
answered as one JSON object or, when the request says "stream": true, as
Server-Sent Events in the provider's own shape.

    openai_stub.py RESPONSES PORT_FILE LOG_FILE [RECORD_DIR]

RESPONSES is a JSONL file of answers, served in order to POST
/v1/chat/completions or /v1/messages (a 500 once they run out). An answer
is {"content" or "text": ..., "tool_calls": [{"id"?, "name",
"arguments": {...} or "..."}], "usage": {"input_tokens", "output_tokens"},
"delay_ms": N}: the replay cassette format of docs/models.md, whose
"expect" and "stop_reason" are ignored here. An answer {"status": 429,
"retry_after": S} is that status with a retry-after header instead.
Blank lines and lines starting with "#" are skipped.

The chosen port is written to PORT_FILE; each request body is appended to
LOG_FILE as one line. With RECORD_DIR, each request is also written there
as NNNN.json: {"method", "path", "headers": {lower-case name: value},
"body": the body text, "time": the server's monotonic clock on arrival,
"status": the status answered}. Runs until killed.
"""
import http.server
import json
import os
import sys
import threading
import time


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f
                if line.strip() and not line.startswith("#")]


RESPONSES = load(sys.argv[1])
LOG = sys.argv[3]
RECORD = sys.argv[4] if len(sys.argv) > 4 else None
LOCK = threading.Lock()


def calls_of(answer, n, prefix):
    out = []
    for i, c in enumerate(answer.get("tool_calls") or []):
        args = c.get("arguments", {})
        text = args if isinstance(args, str) else json.dumps(args)
        out.append({"id": c.get("id") or "%s_%d_%d" % (prefix, n, i),
                    "name": c["name"], "arguments": text})
    return out


def text_of(answer):
    t = answer.get("text", answer.get("content"))
    return t if isinstance(t, str) else ""


def usage_of(answer):
    u = answer.get("usage") or {}
    return u.get("input_tokens", 100), u.get("output_tokens", 10)


# ---- OpenAI ---------------------------------------------------------------

def openai_whole(answer, n):
    calls = calls_of(answer, n, "call")
    msg = {"role": "assistant",
           "content": text_of(answer) if text_of(answer) or not calls
           else None}
    if calls:
        msg["tool_calls"] = [
            {"id": c["id"], "type": "function",
             "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls]
    tin, tout = usage_of(answer)
    return {"id": "stub-%d" % n, "object": "chat.completion",
            "created": 0, "model": "stub",
            "choices": [{"index": 0, "message": msg,
                         "finish_reason": "tool_calls" if calls
                         else "stop"}],
            "usage": {"prompt_tokens": tin, "completion_tokens": tout,
                      "total_tokens": tin + tout}}


def openai_events(answer, n):
    calls = calls_of(answer, n, "call")
    text = text_of(answer)
    tin, tout = usage_of(answer)

    def chunk(delta, finish=None):
        return {"id": "stub-%d" % n, "object": "chat.completion.chunk",
                "created": 0, "model": "stub",
                "choices": [{"index": 0, "delta": delta,
                             "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    for i in range(0, len(text), 7):
        yield chunk({"content": text[i:i + 7]})
    for i, c in enumerate(calls):
        yield chunk({"tool_calls": [{"index": i, "id": c["id"],
                                     "type": "function",
                                     "function": {"name": c["name"],
                                                  "arguments": ""}}]})
        for k in range(0, len(c["arguments"]), 9):
            yield chunk({"tool_calls": [{"index": i, "function": {
                "arguments": c["arguments"][k:k + 9]}}]})
    yield chunk({}, "tool_calls" if calls else "stop")
    yield {"id": "stub-%d" % n, "object": "chat.completion.chunk",
           "created": 0, "model": "stub", "choices": [],
           "usage": {"prompt_tokens": tin, "completion_tokens": tout,
                     "total_tokens": tin + tout}}
    yield "[DONE]"


# ---- Anthropic ------------------------------------------------------------

def anthropic_whole(answer, n):
    calls = calls_of(answer, n, "toolu")
    content = []
    if text_of(answer):
        content.append({"type": "text", "text": text_of(answer)})
    for c in calls:
        try:
            args = json.loads(c["arguments"])
        except ValueError:
            args = None
        # The API's input is always an object.
        content.append({"type": "tool_use", "id": c["id"], "name": c["name"],
                        "input": args if isinstance(args, dict) else {}})
    tin, tout = usage_of(answer)
    return {"id": "msg_stub_%d" % n, "type": "message", "role": "assistant",
            "model": "stub", "content": content,
            "stop_reason": "tool_use" if calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": tin, "output_tokens": tout}}


def anthropic_events(answer, n):
    whole = anthropic_whole(answer, n)
    tin, tout = usage_of(answer)
    start = dict(whole, content=[], stop_reason=None,
                 usage={"input_tokens": tin, "output_tokens": 1})
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for i, b in enumerate(whole["content"]):
        if b["type"] == "text":
            yield "content_block_start", {
                "type": "content_block_start", "index": i,
                "content_block": {"type": "text", "text": ""}}
            for k in range(0, len(b["text"]), 7):
                yield "content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "text_delta",
                              "text": b["text"][k:k + 7]}}
        else:
            yield "content_block_start", {
                "type": "content_block_start", "index": i,
                "content_block": dict(b, input={})}
            text = json.dumps(b["input"])
            for k in range(0, len(text), 9):
                yield "content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta",
                              "partial_json": text[k:k + 9]}}
        yield "content_block_stop", {"type": "content_block_stop",
                                     "index": i}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": whole["stop_reason"],
                                      "stop_sequence": None},
                            "usage": {"output_tokens": tout}}
    yield "message_stop", {"type": "message_stop"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    served = 0

    def record(self, body, n, arrived, status):
        if not RECORD:
            return
        rec = {"method": self.command, "path": self.path,
               "headers": {k.lower(): v for k, v in self.headers.items()},
               "body": body.decode("utf-8", "replace"),
               "time": arrived, "status": status}
        name = os.path.join(RECORD, "%04d.json" % (n + 1))
        with open(name + ".tmp", "w", encoding="utf-8") as f:
            json.dump(rec, f)
        os.rename(name + ".tmp", name)

    def send(self, status, ctype, data):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        arrived = time.monotonic()
        # Requests may come from parallel clients: number them once each.
        with LOCK:
            n = Handler.served
            Handler.served += 1
            with open(LOG, "a", encoding="utf-8") as f:
                f.write(body.decode("utf-8", "replace").replace("\n", " ")
                        + "\n")
        kind = {"/v1/chat/completions": "openai",
                "/v1/messages": "anthropic"}.get(self.path)
        answer = RESPONSES[n] if kind and n < len(RESPONSES) else None
        status = 500 if answer is None else answer.get("status", 200)
        self.record(body, n, arrived, status)
        if answer is None:
            data = json.dumps({"error": {"message": "no response left"}})
            self.send(500, "application/json", data.encode())
            return
        if status != 200:
            data = json.dumps({"error": {"message": "rate limited"}})
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if "retry_after" in answer:
                self.send_header("Retry-After", str(answer["retry_after"]))
            self.end_headers()
            self.wfile.write(data.encode())
            return
        time.sleep(answer.get("delay_ms", 0) / 1000.0)
        try:
            stream = json.loads(body).get("stream") is True
        except ValueError:
            stream = False
        if not stream:
            out = (openai_whole if kind == "openai"
                   else anthropic_whole)(answer, n)
            self.send(200, "application/json", json.dumps(out).encode())
            return
        parts = []
        if kind == "openai":
            for ev in openai_events(answer, n):
                parts.append("data: %s\n\n" % (
                    ev if isinstance(ev, str) else json.dumps(ev)))
        else:
            for name, ev in anthropic_events(answer, n):
                parts.append("event: %s\ndata: %s\n\n" % (
                    name, json.dumps(ev)))
        self.send(200, "text/event-stream", "".join(parts).encode())

    def log_message(self, *args):
        pass


def orphan_watch(parent):
    # A test killed from outside (e.g. a CTest timeout) must not leave
    # the server running with its output pipe open.
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(0)


threading.Thread(target=orphan_watch, args=(os.getppid(),),
                 daemon=True).start()
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(sys.argv[2] + ".tmp", "w", encoding="utf-8") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
