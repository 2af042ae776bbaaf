#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# fake_server.py - a TEST FIXTURE, not a real MCP server: a minimal stdio
# MCP peer for tests/cli/agent_mcp.sh whose tools misbehave on purpose.
#   echo   (readOnlyHint) returns its "text" argument
#   env    (readOnlyHint) returns the names of its environment variables
#   write  (no hint: an execute call) returns WRITE-RAN
#   crash  exits in the middle of the call, without an answer
#   hang   never answers (and creates hang.started beside this file)
#   big    (readOnlyHint) 100 KiB of text ending in BIG-END
#   huge   (readOnlyHint) answers with one line of 9 MiB
# With the argument "deaf" it stops reading its input after tools/list.
# Resources: two pages of resources/list (fake://notes, fake://blob, then
# fake://long and fake://hostile, whose MIME type holds a line break);
# resources/read gives text, a blob, or an error (fake://hostile-error: a
# message whose 500th byte is inside a character). With "loop" every
# page names the same next cursor.
import json
import os
import sys
import time

TOOLS = [
    {"name": "echo", "description": "Echo the text.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
     "annotations": {"readOnlyHint": True}},
    {"name": "env", "description": "Environment variable names.",
     "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
    {"name": "write", "description": "A call that changes something.",
     "inputSchema": {"type": "object"}},
    {"name": "crash", "description": "Dies mid-call.", "inputSchema": {"type": "object"}},
    {"name": "hang", "description": "Never answers.", "inputSchema": {"type": "object"}},
    {"name": "big", "description": "A long answer.",
     "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
    {"name": "huge", "description": "An oversized message.",
     "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
    {"name": "bad name!", "description": "A name no provider accepts.",
     "inputSchema": {"type": "object"}},
]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def text(mid, s):
    send({"jsonrpc": "2.0", "id": mid,
          "result": {"content": [{"type": "text", "text": s}]}})


for line in sys.stdin:
    msg = json.loads(line)
    mid, method = msg.get("id"), msg.get("method")
    if method == "initialize":
        # a log notification and a request first: the client must cope
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "data": "starting"}})
        send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}, "resources": {}},
            "serverInfo": {"name": "fake", "version": "0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS}})
        if sys.argv[1:2] == ["deaf"]:
            time.sleep(3600)
    elif method == "tools/call":
        name = msg["params"]["name"]
        args = msg["params"].get("arguments", {})
        if name == "echo":
            text(mid, "ECHO:" + args.get("text", ""))
        elif name == "env":
            text(mid, "ENV:" + ",".join(sorted(os.environ)))
        elif name == "write":
            text(mid, "WRITE-RAN")
        elif name == "crash":
            sys.stdout.write('{"jsonrpc": "2.0", "id": ')
            sys.stdout.flush()
            os._exit(3)
        elif name == "big":
            text(mid, "B" * (100 * 1024) + "BIG-END")
        elif name == "huge":
            text(mid, "H" * (9 * 1024 * 1024))
        elif name == "hang":
            # say the call arrived (tests wait for it, not for a pause)
            here = os.path.dirname(os.path.abspath(__file__))
            open(os.path.join(here, "hang.started"), "w").close()
            time.sleep(3600)
    elif method == "resources/list":
        if sys.argv[1:2] == ["loop"]:
            send({"jsonrpc": "2.0", "id": mid, "result": {"resources": [
                {"uri": "fake://again", "name": "again"}],
                "nextCursor": "same"}})
        elif msg.get("params", {}).get("cursor") == "page2":
            send({"jsonrpc": "2.0", "id": mid, "result": {"resources": [
                {"uri": "fake://long", "name": "long",
                 "description": "D" * 500},
                {"uri": "fake://hostile", "name": "hostile",
                 "mimeType": "text/plain\n- fake://injected (x)"}]}})
        else:
            send({"jsonrpc": "2.0", "id": mid, "result": {"resources": [
                {"uri": "fake://notes", "name": "notes",
                 "mimeType": "text/plain", "description": "The notes."},
                {"uri": "fake://blob", "name": "blob",
                 "mimeType": "image/png"}], "nextCursor": "page2"}})
    elif method == "resources/read":
        uri = msg["params"]["uri"]
        if uri == "fake://notes":
            send({"jsonrpc": "2.0", "id": mid, "result": {"contents": [
                {"uri": uri, "mimeType": "text/plain",
                 "text": "NOTES-RESOURCE\x1b[31m"}]}})
        elif uri == "fake://blob":
            send({"jsonrpc": "2.0", "id": mid, "result": {"contents": [
                {"uri": uri, "mimeType": "image/png", "blob": "iVBORw0K"}]}})
        elif uri == "fake://hostile-error":
            send({"jsonrpc": "2.0", "id": mid, "error": {
                "code": -32002, "message": "E" * 499 + "\u00e9tat"}})
        else:
            send({"jsonrpc": "2.0", "id": mid, "error": {
                "code": -32002, "message": "Resource not found: " + uri}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid,
              "error": {"code": -32601, "message": "no such method"}})
