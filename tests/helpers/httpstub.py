#!/usr/bin/env python3
"""httpstub: a scripted HTTP server for loopbench's end-to-end tests (standard library only).

    httpstub.py --port-file FILE --log FILE --script FILE

Listens on 127.0.0.1 on a port the kernel picks, writes that port to --port-file (whole:
written aside, then renamed), and serves until SIGTERM or SIGINT.

Every request is appended to --log, before it is answered, as one JSON line:

    {"method": "POST", "path": "/repos/o/r/issues/7/comments?page=1",
     "headers": {"authorization": "Bearer ...", "content-type": "application/json", ...},
     "body": "..."}

Header names are lower-cased (repeated ones joined with ", "); the body (as long as its
Content-Length says: chunked uploads are not read) is decoded as UTF-8, bad bytes replaced.

--script is a JSON list of canned responses:

    [{"method": "GET", "path": "/repos/o/r/issues/7/comments", "status": 200,
      "headers": {"Link": "<http://x/?page=2>; rel=\\"next\\""}, "body": [{"id": 1}]},
     {"method": "POST", "status": 502, "times": 2},
     {"status": 201, "body": {"id": 9}}]

A request takes the first entry, in list order, that has uses left, whose "method" (when
given) is the request's and whose "path" (when given) starts the request's path and
query. Each entry serves once, or "times" times (-1: for ever). "status" defaults to 200;
a string "body" is sent as it is, anything else as JSON with Content-Type
application/json (unless "headers" gives one). When no entry matches, the answer is 404
with {"message": "httpstub: no scripted response for METHOD PATH"}.
"""

import argparse
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    def __init__(self, entries):
        if not isinstance(entries, list):
            raise ValueError("the script must be a JSON list of responses")
        self.entries = [dict(e, uses_left=e.get("times", 1)) for e in entries]
        self.lock = threading.Lock()

    def take(self, method, path):
        with self.lock:
            for entry in self.entries:
                if entry["uses_left"] == 0:
                    continue
                if entry.get("method", method) != method:
                    continue
                if not path.startswith(entry.get("path", "")):
                    continue
                entry["uses_left"] -= 1
                return entry
        return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = headers[key] + ", " + value if key in headers else value
        self.server.record({"method": self.command, "path": self.path, "headers": headers,
                            "body": body.decode("utf-8", "replace")})

        entry = self.server.script.take(self.command, self.path)
        if entry is None:
            entry = {"status": 404, "body": {"message": "httpstub: no scripted response for "
                                             f"{self.command} {self.path}"}}
        reply_headers = dict(entry.get("headers", {}))
        reply = entry.get("body", "")
        if not isinstance(reply, str):
            reply = json.dumps(reply)
            if not any(k.lower() == "content-type" for k in reply_headers):
                reply_headers["Content-Type"] = "application/json"
        data = reply.encode("utf-8")
        self.send_response(entry.get("status", 200))
        for name, value in reply_headers.items():
            self.send_header(name, str(value))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = answer

    def log_message(self, format, *args):  # the JSON log is the record
        pass


class StubServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script, log_path):
        super().__init__(("127.0.0.1", 0), Handler)
        self.script = script
        self.log_file = open(log_path, "a", encoding="utf-8")
        self.log_lock = threading.Lock()

    def record(self, request):
        with self.log_lock:
            self.log_file.write(json.dumps(request) + "\n")
            self.log_file.flush()


def stop(signum, frame):
    raise SystemExit(0)


def main():
    parser = argparse.ArgumentParser(description="scripted HTTP server for tests")
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--script", required=True)
    args = parser.parse_args()
    with open(args.script, encoding="utf-8") as f:
        script = Script(json.load(f))

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server = StubServer(script, args.log)
    aside = args.port_file + ".tmp"
    with open(aside, "w", encoding="utf-8") as f:
        f.write(f"{server.server_address[1]}\n")
    os.replace(aside, args.port_file)
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
        server.log_file.close()


if __name__ == "__main__":
    sys.exit(main())
