"""A small HTTP server for llmd.http's tests, on 127.0.0.1 only.

usage: python3 httpd.py PORTFILE
Binds an ephemeral port, writes it to PORTFILE, serves until GET /quit or 120 s
without a request (so a failed test run cannot leave it behind for long).
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

last_request = time.monotonic()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, ctype="text/plain", extra=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def echo(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode() if n else ""
        self.send(200, json.dumps({
            "method": self.command, "path": self.path, "body": body,
            "headers": {k.lower(): v for k, v in self.headers.items()},
        }), "application/json", [("X-Multi", "a"), ("X-Multi", "b")])

    def do_POST(self):
        self.echo()

    def do_PUT(self):
        self.echo()

    def do_GET(self):
        global last_request
        last_request = time.monotonic()
        if self.path == "/quit":
            self.send(200, "bye")
            threading.Thread(target=self.server.shutdown).start()
        elif self.path.startswith("/status/"):
            self.send(int(self.path.split("/")[2]), "status body")
        elif self.path == "/slow":
            time.sleep(3)
            self.send(200, "late")
        elif self.path == "/redirect":
            self.send(302, "", extra=[("Location", "/echo")])
        elif self.path == "/sse":
            # events as an OpenAI-compatible server streams them, split across writes,
            # with a comment, a multi-line data field, a named event, CRLF line ends
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            chunks = [b": keep-alive\n\n", b"data: {\"n\": 1}\n\n", b"data: {\"n\"",
                      b": 2}\n\nevent: usage\ndata: line1\ndata: line2\nid: 7\n\n",
                      b"data: three\r\n\r\n", b"data: [DONE]\n\n"]
            for c in chunks:
                self.wfile.write(c)
                self.wfile.flush()
                time.sleep(0.02)
            self.close_connection = True
        else:
            self.echo()


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True

    def watchdog():
        while time.monotonic() - last_request < 120:
            time.sleep(1)
        srv.shutdown()

    threading.Thread(target=watchdog, daemon=True).start()
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


main()
