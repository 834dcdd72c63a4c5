"""A mock OpenAI-compatible serving framework for `autobench.lua run` tests.

usage: python3 mockserver.py [MODEL] [--flag value | --flag]... --port PORT
It serves MODEL (the positional argument, else --model-path; --served-model-name wins), as
vLLM and SGLang name it in /v1/models. Streamed completions ("stream": true) are sent as
server-sent events like vLLM's: the first token after MOCK_TTFT_MS (default 20), each next
one after MOCK_TPOT_MS (default 2), then "data: [DONE]"; unstreamed ones after the same time.
Its behaviour follows --max-num-seqs (any other flag is accepted and ignored):
  1 or absent  answers /health, /v1/models and /v1/completions
  2            never starts listening (a server that does not come up)
  3            writes a CUDA out-of-memory error to stderr and exits 1 while loading
  4            answers the first completion (a client's test prompt), then every one is HTTP 500
  5            answers 5 completions, then writes a CUDA out-of-memory error and exits 1
               (a crash in the middle of a benchmark)
  6            answers, but /v1/models lists another model (someone else's server)
  7            answers /health, but /v1/models is HTTP 401 (as behind --api-key)
  8            answers every completion HTTP 200 with no text: one chunk of empty text, no usage
               (a broken server whose answers are empty; vLLM's client counts them as successes)
  9            answers every completion HTTP 200 with a body that is no server-sent event (an HTML
               page: a proxy's error page)
  10           answers 3 completions, then its engine dies out of memory as vLLM V1's does: the log
               lines vLLM writes (EngineCore encountered a fatal error, torch.OutOfMemoryError,
               AsyncLLM output_handler failed, EngineDeadError), and the API server goes on: every
               completion HTTP 500, /health 503 (as with VLLM_KEEP_ALIVE_ON_ENGINE_DEATH=1)
  11           answers 1 completion, then its engine core process dies (no memory error): "Engine
               core proc EngineCore_DP0 died unexpectedly, shutting down client.", the rest as 10
MOCK_REQUEST_LOG: a file to which the body of every completion request is appended (JSONL).
Stops after 120 s without a request, so a failed test cannot leave it behind for long.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = sys.argv[1:]
opts = {}
positional = []
i = 0
while i < len(args):
    a = args[i]
    if a.startswith("--"):
        if i + 1 < len(args) and not args[i + 1].startswith("--"):
            opts[a[2:]] = args[i + 1]
            i += 1
        else:
            opts[a[2:]] = True
    else:
        positional.append(a)
    i += 1
port = int(opts["port"])
mode = str(opts.get("max-num-seqs", opts.get("max_num_seqs", "1")))
model = opts.get("served-model-name") or (positional[0] if positional else opts.get("model-path", "mock"))
ttft = float(os.environ.get("MOCK_TTFT_MS", "20")) / 1000
tpot = float(os.environ.get("MOCK_TPOT_MS", "2")) / 1000
request_log = os.environ.get("MOCK_REQUEST_LOG")
# (its first line says it is a mock, as the fake cluster labels its nodes llmdlua.dev/simulated:
# autobench.lua marks the rows of a server whose log says so, never a measurement of the model)
print("llmdlua.dev/simulated: tests/autobench/mockserver.py, a mock server that loads no model", flush=True)
print("mock server starting, pid %d, mode %s, model %s, port %d" % (os.getpid(), mode, model, port), flush=True)
if mode == "2":
    time.sleep(120)
    sys.exit(0)
if mode == "3":
    sys.stderr.write("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    sys.exit(1)
last = time.monotonic()
lock = threading.Lock()
completions = 0
engine_dead = False


def vllm_log(who, level, where, text):
    """One line as vLLM logs it: "(EngineCore_DP0 pid=413) ERROR 11-10 12:30:57 [core.py:710] ..."."""
    sys.stderr.write("(%s pid=%d) %s %s [%s] %s\n" % (who, os.getpid(), level, time.strftime("%m-%d %H:%M:%S"),
                                                      where, text))


def engine_dies(oom):
    """The log of a vLLM V1 engine that died (its API server lives on)."""
    global engine_dead
    engine_dead = True
    if oom:
        core = "EngineCore_DP0"
        vllm_log(core, "ERROR", "core.py:710", "EngineCore encountered a fatal error.")
        vllm_log(core, "ERROR", "core.py:710", "Traceback (most recent call last):")
        vllm_log(core, "ERROR", "core.py:710", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. "
                 "GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.")
    else:
        vllm_log("APIServer", "ERROR", "core_client.py:564",
                 "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.")
    vllm_log("APIServer", "ERROR", "async_llm.py:420", "AsyncLLM output_handler failed.")
    vllm_log("APIServer", "ERROR", "async_llm.py:420", "vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
             "encountered an issue. See stack trace (above) for the root cause.")
    sys.stderr.flush()


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
        if self.path == "/health":
            return self.send(503 if engine_dead else 200, {})
        if self.path == "/v1/models" and mode == "7":
            return self.send(401, {"error": "Unauthorized"})
        if self.path == "/v1/models":
            served = "someone-else/other-model" if mode == "6" else model
            return self.send(200, {"object": "list", "data": [{"id": served, "object": "model", "root": served}]})
        self.send(404, {})

    def do_POST(self):
        global completions, last
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) or b"{}"
        body = json.loads(raw)
        with lock:
            completions += 1
            count = completions
            if request_log:
                with open(request_log, "a") as f:
                    f.write(json.dumps(body) + "\n")
        if mode == "5" and count > 5:
            sys.stderr.write("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB\n")
            sys.stderr.flush()
            os._exit(1)
        if mode == "4" and count > 1:
            return self.send(500, {"error": {"message": "internal error"}})
        if mode in ("10", "11") and count > (3 if mode == "10" else 1):
            with lock:
                if not engine_dead:
                    engine_dies(mode == "10")
            sys.stderr.write('(APIServer pid=%d) INFO:     127.0.0.1:%d - "POST %s HTTP/1.1" 500 Internal Server Error\n'
                             % (os.getpid(), self.client_address[1], self.path))
            sys.stderr.flush()
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if mode == "9":
            data = b"<html><body>502 Bad Gateway</body></html>\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        k = 0 if mode == "8" else int(body.get("max_tokens", 4))
        if mode == "8" and body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            time.sleep(ttft)
            chunk = {"choices": [{"index": 0, "text": "", "finish_reason": "stop"}]}
            self.wfile.write(("data: %s\n\ndata: [DONE]\n\n" % json.dumps(chunk)).encode())
            self.wfile.flush()
            return
        if not body.get("stream"):
            time.sleep(ttft + tpot * max(0, k - 1))
            return self.send(200, {"choices": [{"text": " x" * k}],
                                   "usage": {"prompt_tokens": 8, "completion_tokens": k}})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for j in range(k):
            time.sleep(ttft if j == 0 else tpot)
            chunk = {"choices": [{"index": 0, "text": " x", "finish_reason": "length" if j == k - 1 else None}]}
            self.wfile.write(("data: %s\n\n" % json.dumps(chunk)).encode())
            self.wfile.flush()
        usage = {"choices": [], "usage": {"prompt_tokens": 8, "completion_tokens": k}}
        self.wfile.write(("data: %s\n\ndata: [DONE]\n\n" % json.dumps(usage)).encode())
        self.wfile.flush()
        last = time.monotonic()


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)


def idle():
    while time.monotonic() - last < 120:
        time.sleep(1)
    server.shutdown()


threading.Thread(target=idle, daemon=True).start()
server.serve_forever()
