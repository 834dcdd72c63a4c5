"""A stand-in for `vllm bench serve` in `autobench.lua run` tests: the same flags (those
below; any other flag is accepted and ignored), real streamed HTTP requests, and a result file
in the format `vllm bench serve --save-result` writes (vllm/benchmarks/serve.py, see
../shared/fixtures/FORMATS.md section 3).

usage: python3 mockclient.py [bench serve] --base-url URL [--endpoint /v1/completions]
  [--model M] [--num-prompts N] [--random-output-len N] [--max-concurrency N]
  [--extra-body JSON] [--percentile-metrics ttft,tpot,itl,e2el] [--metric-percentiles 50,99]
  [--ready-check-timeout-sec 600] [--save-result --result-dir D --result-filename F]
MOCK_READY_CHECK_S: the default of --ready-check-timeout-sec (600, as vLLM's).

Like vLLM it first waits for the endpoint (up to --ready-check-timeout-sec), then sends one
test prompt and exits 1 ("Initial test run failed") when that fails; when every benchmark
request fails it still writes the file, with 0 for every statistic (numpy of an empty list
"or 0"), as vLLM does.
"""
import json
import os
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

argv = sys.argv[1:]
if argv[:2] == ["bench", "serve"]:
    argv = argv[2:]
opts = {}
i = 0
while i < len(argv):
    a = argv[i]
    if a.startswith("--"):
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            opts[a[2:]] = argv[i + 1]
            i += 1
        else:
            opts[a[2:]] = True
    i += 1

base = opts["base-url"]
endpoint = opts.get("endpoint", "/v1/completions")
model = opts.get("model", "mock")
n = int(opts.get("num-prompts", 10))
out_len = int(opts.get("random-output-len", 4))
conc = int(opts["max-concurrency"]) if "max-concurrency" in opts else None
extra = json.loads(opts["extra-body"]) if "extra-body" in opts else {}
metrics = str(opts.get("percentile-metrics", "ttft,tpot,itl")).split(",")
pcts = [float(p) for p in str(opts.get("metric-percentiles", "99")).split(",")]
# tests shorten the wait through the environment (vLLM's default is 600 s)
ready_timeout = float(opts.get("ready-check-timeout-sec", os.environ.get("MOCK_READY_CHECK_S", 600)))


def request():
    """One streamed completion: (ok, ttft s, latency s, itls s, output tokens, error), read as vLLM's
    async_request_openai_completions reads it: each non-empty line, SSE comments (":") skipped, is JSON
    after "data: " (anything else is an error: the request failed); a chunk with choices is a token's
    time; success only once a chunk with choices came ("Never received a valid chunk to calculate
    TTFT"); the output tokens are usage's completion_tokens, else the text's tokens (the mock's text
    is " x" a token, so its words stand for the tokenizer's count)."""
    body = {"model": model, "prompt": "hi", "max_tokens": out_len, "stream": True}
    body.update(extra)
    req = urllib.request.Request(base + endpoint, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    s = time.perf_counter()
    ttft, itls, last, text, usage_tokens = None, [], s, "", None
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            for line in r:
                line = line.strip()
                if not line:
                    continue
                line = line.decode()
                if line.startswith(":"):
                    continue
                line = line[6:] if line.startswith("data: ") else line
                if line == "[DONE]":
                    continue
                chunk = json.loads(line)
                if chunk.get("choices"):
                    now = time.perf_counter()
                    if ttft is None:
                        ttft = now - s
                    else:
                        itls.append(now - last)
                    last = now
                    text += chunk["choices"][0].get("text") or ""
                elif chunk.get("usage"):
                    usage_tokens = chunk["usage"].get("completion_tokens")
        if ttft is None:
            return False, None, None, [], 0, "Never received a valid chunk to calculate TTFT."
        tokens = usage_tokens or len(text.split())
        return True, ttft, last - s, itls, tokens, ""
    except Exception as e:  # the real client records the error text per request
        return False, None, None, [], 0, str(e)


# wait for the endpoint, as vLLM's --ready-check-timeout-sec does
t0 = time.monotonic()
while True:
    ok = request()
    if ok[0]:
        break
    if time.monotonic() - t0 >= ready_timeout:
        print("Initial test run failed - Please make sure benchmark arguments are correctly specified. "
              "Error: %s" % ok[5], file=sys.stderr)
        sys.exit(1)
    time.sleep(0.2)
print("Initial test run completed. Starting main benchmark run...", flush=True)

start = time.perf_counter()
with ThreadPoolExecutor(max_workers=conc or n) as ex:
    outs = list(ex.map(lambda _: request(), range(n)))
dur = time.perf_counter() - start
good = [o for o in outs if o[0]]
completed = len(good)


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def percentile(xs, p):
    # numpy's default (linear) on a sorted copy; numpy.percentile(0, p) == 0 for an empty list "or 0"
    if not xs:
        return 0.0
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100
    f = int(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def std(xs):
    if not xs:
        return 0.0
    m = mean(xs)
    return (sum((x - m) ** 2 for x in xs) / len(xs)) ** 0.5


values = {
    "ttft": [o[1] for o in good],
    "tpot": [(o[2] - o[1]) / (o[4] - 1) for o in good if o[4] > 1],
    "itl": [x for o in good for x in o[3]],
    "e2el": [o[2] for o in good],
}
res = {
    "date": time.strftime("%Y%m%d-%H%M%S"), "endpoint_type": "openai", "backend": "openai", "label": None,
    "model_id": model, "tokenizer_id": model, "num_prompts": n, "request_rate": "inf", "burstiness": 1.0,
    "max_concurrency": conc, "duration": dur, "completed": completed, "failed": n - completed,
    "total_input_tokens": 8 * completed, "total_output_tokens": sum(o[4] for o in good),
    "request_throughput": completed / dur, "request_goodput": None,
    "output_throughput": sum(o[4] for o in good) / dur,
    "total_token_throughput": (8 * completed + sum(o[4] for o in good)) / dur,
}
for m in ("ttft", "tpot", "itl", "e2el"):
    if m not in metrics:
        continue
    xs = [x * 1000 for x in values[m]]
    res["mean_%s_ms" % m] = mean(xs)
    res["median_%s_ms" % m] = percentile(xs, 50)
    res["std_%s_ms" % m] = std(xs)
    for p in pcts:
        res["p%s_%s_ms" % (int(p) if p == int(p) else p, m)] = percentile(xs, p)
res["latencies"] = [o[2] for o in good]
if completed == 0:
    print("All requests failed. This is likely due to a misconfiguration on the benchmark arguments.",
          file=sys.stderr)
if opts.get("save-result"):
    path = os.path.join(opts.get("result-dir", "."), opts.get("result-filename", "result.json"))
    with open(path, "w") as f:
        json.dump(res, f)
    print("wrote %s: %d ok, %d failed" % (path, completed, n - completed))
