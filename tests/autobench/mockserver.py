"""A mock OpenAI-compatible serving framework for `autobench.lua run` tests.

usage: python3 mockserver.py [MODEL] [--flag value | --flag]... --port PORT
Its behaviour follows --max-num-seqs (any other flag is accepted and ignored):
  1 or absent  answers /health, /v1/models and /v1/completions
  2            never starts listening (a server that does not come up)
  3            writes a CUDA out-of-memory error to stderr and exits 1
  4            answers, but every completion is an HTTP 500
Stops after 120 s without a request, so a failed test cannot leave it behind for long.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = sys.argv[1:]
opts = {}
i = 0
while i < len(args):
    a = args[i]
    if a.startswith("--"):
        if i + 1 < len(args) and not args[i + 1].startswith("--"):
            opts[a[2:]] = args[i + 1]
            i += 1
        else:
            opts[a[2:]] = True
    i += 1
port = int(opts["port"])
mode = str(opts.get("max-num-seqs", opts.get("max_num_seqs", "1")))
print("mock server starting, mode %s" % mode, flush=True)
if mode == "2":
    time.sleep(120)
    sys.exit(0)
if mode == "3":
    sys.stderr.write("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    sys.exit(1)
last = time.monotonic()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, status, obj):
        global last
        last = time.monotonic()
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path in ("/health", "/v1/models"):
            return self.send(200, {"data": [{"id": "mock"}]})
        self.send(404, {})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n) or b"{}")
        if mode == "4":
            return self.send(500, {"error": {"message": "internal error"}})
        time.sleep(0.01)
        k = int(body.get("max_tokens", 4))
        self.send(200, {"choices": [{"text": " x" * k}], "usage": {"prompt_tokens": 8, "completion_tokens": k}})


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)


def idle():
    while time.monotonic() - last < 120:
        time.sleep(1)
    server.shutdown()


threading.Thread(target=idle, daemon=True).start()
server.serve_forever()
