"""A tiny OpenAI-compatible server for the fake cluster's `kubectl port-forward`.

usage: python3 mockvllm.py PORT ok|fail|status [REMOTE_PORT]
Serves GET /v1/models and POST /v1/completions on 127.0.0.1:PORT until killed
(or 300 s, so a failed test cannot leave it behind for long). "fail": 503 on both;
"status": Istio's status port, which answers /healthz/ready and 404 for the rest.
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, MODE = int(sys.argv[1]), sys.argv[2]
REMOTE = sys.argv[3] if len(sys.argv) > 3 else "8000"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if MODE == "status":
            if self.path == "/healthz/ready":
                return self.send(200, {})
            return self.send(404, {})
        if MODE == "fail":
            return self.send(503, {"error": {"message": "no ready endpoints"}})
        if self.path == "/v1/models":
            return self.send(200, {"object": "list", "data": [{"id": "Qwen/Qwen3-0.6B", "object": "model"}]})
        self.send(404, {"error": "not found"})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n) or b"{}")
        if MODE in ("fail", "status"):
            return self.send(503 if MODE == "fail" else 404, {"error": {"message": "no ready endpoints"}})
        if self.path == "/v1/completions":
            return self.send(200, {"id": "cmpl-1", "model": body.get("model"),
                                   "choices": [{"index": 0, "text": " Hello", "finish_reason": "length"}],
                                   "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
        self.send(404, {"error": "not found"})


server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
threading.Timer(300, server.shutdown).start()
print("Forwarding from 127.0.0.1:%d -> %s" % (PORT, REMOTE), flush=True)
server.serve_forever()
