#!/usr/bin/python3
"""Hand-made `vllm bench serve --save-detailed` files for edge cases (audit37's gen_edge.py),
written under the folder given: e1a, e1b (one point of 2 requests each), e2a, e2b (2, 4 and
8 req/s for 60 s, every request failed at 8 req/s, B's latencies 1.3 times A's) and e3a,
e3b (200 requests, every latency 2.0 s and TTFT 0.1 s on both sides).

Usage: edge_vllm.py OUTDIR"""
import json, os, sys
import numpy as np
PCT = [0.1, 1, 5, 10, 25, 75, 90, 95, 99, 99.9]
def write(path, rate, starts, lats, ttfts, errs, outlen=100, conc=None, extra=None):
    n = len(starts); ok = [i for i in range(n) if not errs[i]]
    ends = [starts[i] + lats[i] for i in ok]
    dur = (max(ends + [starts[-1]]) - starts[0]) if n else 0
    d = {"date": "20260215-100000", "backend": "openai", "label": None, "model_id": "m", "tokenizer_id": "m",
         "num_prompts": n, "request_rate": rate, "burstiness": 1.0, "max_concurrency": conc,
         "duration": dur, "completed": len(ok), "failed": n - len(ok),
         "total_input_tokens": 500 * len(ok), "total_output_tokens": outlen * len(ok),
         "request_throughput": len(ok) / dur if dur else 0, "request_goodput": None,
         "output_throughput": outlen * len(ok) / dur if dur else 0,
         "total_token_throughput": 600 * len(ok) / dur if dur else 0,
         "input_lens": [500] * n, "output_lens": [outlen if not errs[i] else 0 for i in range(n)],
         "ttfts": [ttfts[i] if not errs[i] else 0 for i in range(n)],
         "itls": [[(lats[i] - ttfts[i]) / (outlen - 1)] * (outlen - 1) if not errs[i] else [] for i in range(n)],
         "latencies": [lats[i] if not errs[i] else 0 for i in range(n)], "start_times": list(starts),
         "generated_texts": [""] * n, "errors": ["" if not e else "Traceback\nHTTP 503\n" for e in errs]}
    T = np.array([ttfts[i] for i in ok]) * 1000; E = np.array([lats[i] for i in ok]) * 1000
    P = np.array([(lats[i] - ttfts[i]) / (outlen - 1) for i in ok]) * 1000
    for name, arr in (("ttft", T), ("tpot", P), ("itl", P), ("e2el", E)):
        if len(arr) == 0:
            arr = np.array([0.0])
        d["mean_%s_ms" % name] = float(arr.mean()); d["median_%s_ms" % name] = float(np.median(arr))
        d["std_%s_ms" % name] = float(arr.std())
        for p in PCT: d["p%g_%s_ms" % (p, name)] = float(np.percentile(arr, p))
    if extra: d.update(extra)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump(d, open(path, "w"))


def main(out):
    os.chdir(out)
    rng = np.random.default_rng(5)
    # E1: one-point runs of 2 requests
    write("e1a/p1.json", 2.0, [0.0, 0.5], [1.0, 1.1], [0.1, 0.1], [False, False])
    write("e1b/p1.json", 2.0, [0.0, 0.5], [2.0, 2.1], [0.2, 0.2], [False, False])
    # E2: all-failed point at the top of a 3-point ladder, kept-up elsewhere
    for lab, sc in (("e2a", 1.0), ("e2b", 1.3)):
        for r in (2, 4, 8):
            n = r * 60; s = np.cumsum(rng.exponential(1 / r, n)); l = sc * (2 + 0.1 * rng.standard_normal(n))
            errs = [r == 8] * n
            write(f"{lab}/r{r}.json", float(r), s, l, 0.1 * np.ones(n), errs)
    # E3: identical latencies (ties) on both sides, 1 point, 200 requests
    for lab in ("e3a", "e3b"):
        n = 200; s = np.arange(n) / 4.0
        write(f"{lab}/r4.json", 4.0, s, np.full(n, 2.0), np.full(n, 0.1), [False] * n)


if __name__ == "__main__":
    main(sys.argv[1])
