#!/usr/bin/python3
"""fixi40: one `vllm bench serve --save-result --save-detailed` load point written in four
ways under OUTDIR, and the figures expected of it on stdout (JSON, numpy):
  real/p1.json    the dict built in vLLM's writer's order (vllm/benchmarks/serve.py: the setup
                  keys date..num_prompts, request_rate..max_concurrency, then benchmark()'s
                  result: duration..total_token_throughput, the per-request arrays, the
                  statistics), json.dump as the writer does
  sorted/p1.json  the same dict, json.dumps(sort_keys=True) (a re-serialised file: `itls`,
                  ~0.6 MB, before `num_prompts` and `request_throughput`)
  bestof/p1.json  bench_serving's (inferencemax) layout with `best_of`, sorted likewise
  cut/p1.json     sorted/p1.json cut at its middle
Usage: fixi40_vllm_order.py OUTDIR"""
import json, os, sys
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(40)
n, olen = 400, 64
ttfts = [float(x) for x in 0.1 + 0.01 * rng.random(n)]
itls = [[float(x) for x in 0.02 + 0.001 * rng.random(olen - 1)] for _ in range(n)]
lats = [ttfts[i] + sum(itls[i]) for i in range(n)]
starts = [i * 0.1 for i in range(n)]
dur = max(starts[i] + lats[i] for i in range(n)) - starts[0]
d = {"date": "20261204-120000", "endpoint_type": "openai", "backend": "openai", "label": None, "model_id": "m",
     "tokenizer_id": "m", "num_prompts": n, "request_rate": 10.0, "burstiness": 1.0, "max_concurrency": None,
     "duration": dur, "completed": n, "failed": 0, "total_input_tokens": 100 * n, "total_output_tokens": olen * n,
     "request_throughput": n / dur, "request_goodput": None, "output_throughput": olen * n / dur,
     "total_token_throughput": (100 + olen) * n / dur, "input_lens": [100] * n, "output_lens": [olen] * n,
     "ttfts": ttfts, "itls": itls, "latencies": lats, "start_times": starts, "queue_times": [0.0] * n,
     "generated_texts": ["x" * 40] * n, "errors": [""] * n}
T, E = np.array(ttfts) * 1000, np.array(lats) * 1000
G = np.array([g for r in itls for g in r]) * 1000
P = (E - T) / (olen - 1)
for name, a in (("ttft", T), ("tpot", P), ("itl", G), ("e2el", E)):
    d["mean_%s_ms" % name], d["median_%s_ms" % name] = float(a.mean()), float(np.median(a))
    d["std_%s_ms" % name], d["p99_%s_ms" % name] = float(a.std()), float(np.percentile(a, 99))
for sub in ("real", "sorted", "bestof", "cut"):
    os.makedirs(os.path.join(out, sub), exist_ok=True)
with open(os.path.join(out, "real/p1.json"), "w") as f:
    json.dump(d, f)
text = json.dumps(d, sort_keys=True)
with open(os.path.join(out, "sorted/p1.json"), "w") as f:
    f.write(text)
with open(os.path.join(out, "cut/p1.json"), "w") as f:
    f.write(text[:len(text) // 2])
b = {k: v for k, v in d.items() if k not in ("endpoint_type", "label", "failed", "latencies", "start_times",
                                              "queue_times")}
b["best_of"] = 1
with open(os.path.join(out, "bestof/p1.json"), "w") as f:
    json.dump(b, f, sort_keys=True)
print(json.dumps({"completed": n, "ttft_p50_ms": float(np.percentile(T, 50)), "itl_mean_ms": float(G.mean()),
                  "latency_p99_ms": float(np.percentile(E, 99)),
                  "num_prompts_at": text.index('"num_prompts"'),
                  "request_throughput_at": text.index('"request_throughput"')}))
