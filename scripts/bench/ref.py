#!/usr/bin/env python3
"""The reference a user runs today: json.load (csv.DictReader for CSV), then
sorted-list percentiles with numpy's linear interpolation. Prints the same JSON
summary as scan.lua, plus its own peak RSS.

usage: ref.py SHAPE FILE
"""
import csv
import json
import math
import resource
import sys

shape, path = sys.argv[1], sys.argv[2]


def pct(sorted_x, p):
    h = (p / 100.0) * (len(sorted_x) - 1)
    lo = math.floor(h)
    if lo >= len(sorted_x) - 1:
        return sorted_x[-1]
    a, b, t = sorted_x[lo], sorted_x[lo + 1], h - lo
    if a == b or t == 0:
        return a
    d = b - a
    return b - d * (1 - t) if t >= 0.5 else a + d * t


def summary(xs):
    xs = sorted(xs)
    return {"count": len(xs), "mean": math.fsum(xs) / len(xs),
            "p50": pct(xs, 50), "p90": pct(xs, 90), "p99": pct(xs, 99)}


out = {}
if shape == "inference_perf":
    d = json.load(open(path))
    itl, ttft, e2e = [], [], []
    for r in d:
        t = r["info"]["response_metrics"]["output_token_times"]
        itl += [b - a for a, b in zip(t, t[1:])]
        ttft.append(t[0] - r["start_time"])
        e2e.append(r["end_time"] - r["start_time"])
    out = {"itl": summary(itl), "ttft": summary(ttft), "e2e": summary(e2e)}
elif shape == "vllm_bench":
    d = json.load(open(path))
    out = {"ttft": summary(d["ttfts"]), "itl": summary([x for l in d["itls"] for x in l]),
           "e2e": summary(d["latencies"])}
elif shape == "guidellm":
    d = json.load(open(path))
    reqs = [r for b in d["benchmarks"] for r in b["requests"]["successful"]]
    out = {"ttft": summary([r["time_to_first_token_ms"] for r in reqs]),
           "e2e": summary([r["request_latency"] for r in reqs]),
           "itl": summary([r["inter_token_latency_ms"] for r in reqs])}
elif shape == "csv":
    ttft, tpot, e2e = [], [], []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            ttft.append(float(r["ttft_ms"]))
            tpot.append(float(r["tpot_ms"]))
            e2e.append(float(r["e2e_ms"]))
    out = {"ttft": summary(ttft), "tpot": summary(tpot), "e2e": summary(e2e)}
elif shape == "prom":
    # prometheus_client's own text parser over every raw scrape, in time order; the
    # same increases (with resets) and Prometheus' histogram_quantile
    import glob
    import os
    import re
    from prometheus_client.parser import text_string_to_metric_families
    files = sorted(glob.glob(os.path.join(path, "*_metrics.log")),
                   key=lambda p: (int(re.search(r"_(\d+)_metrics", p).group(1)), p))
    last, inc = {}, {}
    for fpath in files:
        pod = re.match(r"(.+)_\d+_metrics\.log$", os.path.basename(fpath)).group(1)
        for fam in text_string_to_metric_families(open(fpath).read()):
            for smp in fam.samples:
                key = (pod, smp.name, tuple(sorted(smp.labels.items())))
                v = smp.value
                if key in last:
                    p = last[key]
                    inc[key] = inc.get(key, 0.0) + (v - p if v >= p else v)
                else:
                    inc[key] = 0.0
                last[key] = v

    def total(name):
        return sum(v for k, v in inc.items() if k[1] == name)

    buckets = {}
    for k, v in inc.items():
        if k[1] == "vllm:time_to_first_token_seconds_bucket":
            le = float(dict(k[2])["le"])
            buckets[le] = buckets.get(le, 0.0) + v
    les = sorted(buckets)
    cum = [buckets[b] for b in les]
    rank = 0.9 * cum[-1]
    b = next(i for i, c in enumerate(cum) if c >= rank)
    start, below = (0.0, 0.0) if b == 0 else (les[b - 1], cum[b - 1])
    q90 = les[-2] if b == len(les) - 1 else start + (les[b] - start) * (rank - below) / (cum[b] - below)
    hits, queries = total("vllm:prefix_cache_hits_total"), total("vllm:prefix_cache_queries_total")
    out = {"kv": {"count": 1, "mean": hits / queries, "p50": hits, "p90": queries, "p99": q90}}
out["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(out, sort_keys=True))
