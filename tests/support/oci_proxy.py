#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""oci_proxy.py - a small HTTP proxy in front of a local OCI registry,
for tests/cli/oci_*.sh.

usage: oci_proxy.py MODE UPSTREAM_PORT PORT_FILE LOG_FILE

Listens on 127.0.0.1 (a free port, written to PORT_FILE once listening),
forwards every request to 127.0.0.1:UPSTREAM_PORT and appends
"METHOD PATH" to LOG_FILE. MODE:
  log       forward as it is
  blob      flip the last byte of every blob GET body (a wrong digest)
  manifest  add a space to every manifest GET body, keeping the
            registry's Docker-Content-Digest header
  huge      answer every manifest GET with 5 MiB of JSON
  long      append 1 MiB to every blob GET body (more than announced)
  bigsize   announce a 1 TiB layer in every manifest GET, without the
            registry's Docker-Content-Digest header (a tag cannot be
            checked otherwise)
  elsewhere point every upload Location at another origin
  bearer    demand a Bearer token: without "Authorization: Bearer
            tok-123" answer 401 with a WWW-Authenticate: Bearer challenge
            whose realm is this proxy's /token, which gives tok-123 for
            Basic user:secret and 401 otherwise
"""
import base64
import http.client
import http.server
import json
import sys

MODE, UP, PORT_FILE, LOG = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
TOKEN = "tok-123"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        with open(LOG, "a") as f:
            f.write("%s %s\n" % (self.command, self.path))
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        port = self.server.server_address[1]
        if MODE == "bearer":
            if self.path.startswith("/token"):
                want = "Basic " + base64.b64encode(b"user:secret").decode()
                if self.headers.get("Authorization") != want:
                    return self.reply(401, b'{"errors":[]}')
                return self.reply(200, json.dumps({"token": TOKEN}).encode(),
                                  [("Content-Type", "application/json")])
            if self.headers.get("Authorization") != "Bearer " + TOKEN:
                ch = ('Bearer realm="http://127.0.0.1:%d/token",'
                      'service="skit-test",scope="repository:team/x:pull,push"'
                      % port)
                return self.reply(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}',
                                  [("WWW-Authenticate", ch)])
        c = http.client.HTTPConnection("127.0.0.1", UP, timeout=60)
        hdrs = {k: v for k, v in self.headers.items()
                if k.lower() not in ("host", "authorization", "connection")}
        hdrs["Host"] = "127.0.0.1:%d" % port
        c.request(self.command, self.path, body=body if n else None, headers=hdrs)
        r = c.getresponse()
        data = r.read()
        if self.command == "GET" and r.status == 200:
            if MODE == "blob" and "/blobs/" in self.path and data:
                data = data[:-1] + bytes([data[-1] ^ 1])
            if MODE == "manifest" and "/manifests/" in self.path:
                data = data + b" "
            if MODE == "bigsize" and "/manifests/" in self.path:
                m = json.loads(data)
                m["layers"][0]["size"] = 1 << 40
                data = json.dumps(m).encode()
            if MODE == "huge" and "/manifests/" in self.path:
                data = b'{"pad":"' + b"x" * (5 << 20) + b'"}'
            if MODE == "long" and "/blobs/" in self.path:
                data = data + b"\0" * (1 << 20)
        out = []
        for k, v in r.getheaders():
            if k.lower() in ("content-length", "connection", "transfer-encoding"):
                continue
            if MODE == "bigsize" and k.lower() == "docker-content-digest":
                continue
            if MODE == "elsewhere" and k.lower() == "location":
                v = "http://127.0.0.2:9" + v[v.index("/v2/"):]
            out.append((k, v))
        self.reply(r.status, data, out)
        c.close()

    do_GET = do_HEAD = do_PUT = do_POST = do_PATCH = do_DELETE = handle_any


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(PORT_FILE + ".tmp", PORT_FILE)
srv.serve_forever()
