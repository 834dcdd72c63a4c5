"""A mock benchmark client for `autobench.lua run` tests: sends requests to a server and
writes a result file in `vllm bench serve --save-result` form (aggregates in ms).

usage: python3 mockclient.py BASE_URL NUM_PROMPTS OUTPUT_LEN RESULT_FILE
Latencies are measured for real; TTFT is taken as the whole request time (the mock does not
stream), TPOT as 0.5 ms, so the numbers are plausible, not meaningful.
"""
import json
import sys
import time
import urllib.request

base, n, out_len, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
lat, ok, failed = [], 0, 0
t0 = time.monotonic()
for _ in range(n):
    req = urllib.request.Request(base + "/v1/completions",
                                 data=json.dumps({"model": "mock", "prompt": "hi", "max_tokens": out_len}).encode(),
                                 headers={"Content-Type": "application/json"})
    s = time.monotonic()
    try:
        urllib.request.urlopen(req, timeout=10).read()
        lat.append((time.monotonic() - s) * 1000)
        ok += 1
    except Exception:
        failed += 1
dur = time.monotonic() - t0
if ok == 0:
    print("every request failed", file=sys.stderr)
    sys.exit(1)
lat.sort()


def pct(p):
    return lat[min(len(lat) - 1, int(round(p / 100 * (len(lat) - 1))))]


res = {"date": "20260101-000000", "backend": "openai", "model_id": "mock", "num_prompts": n,
       "request_rate": "inf", "max_concurrency": 1, "duration": dur, "completed": ok, "failed": failed,
       "total_input_tokens": 8 * ok, "total_output_tokens": out_len * ok,
       "request_throughput": ok / dur, "output_throughput": out_len * ok / dur,
       "total_token_throughput": (8 + out_len) * ok / dur,
       "mean_ttft_ms": sum(lat) / len(lat), "median_ttft_ms": pct(50), "p99_ttft_ms": pct(99),
       "mean_tpot_ms": 0.5, "median_tpot_ms": 0.5, "p99_tpot_ms": 0.5,
       "mean_itl_ms": 0.5, "median_itl_ms": 0.5, "p99_itl_ms": 0.5,
       "mean_e2el_ms": sum(lat) / len(lat), "median_e2el_ms": pct(50), "p99_e2el_ms": pct(99)}
with open(path, "w") as f:
    json.dump(res, f)
print("wrote %s: %d ok, %d failed" % (path, ok, failed))
