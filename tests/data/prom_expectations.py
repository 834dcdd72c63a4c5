#!/usr/bin/python3
"""Expected Prometheus aggregates of the fixtures, computed independently of llmdlua:
prometheus_client's own text parser reads the raw scrapes; increases (with counter
resets), ratios, gauge statistics (numpy) and histogram_quantile (as Prometheus
documents it) are written out here. Writes tests/lua/prom_expected.lua.

usage: /usr/bin/python3 tests/data/prom_expectations.py ../shared/fixtures > tests/lua/prom_expected.lua
(Debian's python3 with python3-prometheus-client 0.16 and python3-numpy.)
"""
import glob
import json
import math
import os
import re
import sys

import numpy as np
from prometheus_client.parser import text_string_to_metric_families

F = sys.argv[1]
raw = sorted(glob.glob(os.path.join(F, "prometheus/synthetic-raw/*_metrics.log")),
             key=lambda p: (int(re.search(r"_(\d+)_metrics", p).group(1)), p))

series = {}  # (pod, name, labels) -> [(t, v)]
for path in raw:
    pod, t = re.match(r"(.+)_(\d+)_metrics\.log$", os.path.basename(path)).groups()
    text = open(path).read()
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            key = (pod, s.name, tuple(sorted(s.labels.items())))
            series.setdefault(key, []).append((float(t), s.value))
window_start = min(t for pts in series.values() for t, _ in pts)


def increase(key):
    pts = series[key]
    inc = 0.0
    for (_, a), (_, b) in zip(pts, pts[1:]):
        inc += b - a if b >= a else b
    # counted from 0 inside the window when its _created time is inside it
    pod, name, labels = key
    base = re.sub(r"_(total|bucket|sum|count)$", "", name)
    clabels = tuple((k, v) for k, v in labels if k != "le")
    created = series.get((pod, base + "_created", clabels))
    if created and window_start <= created[0][1] <= pts[0][0]:
        inc += pts[0][1]
    return inc


def total(name):
    return sum(increase(k) for k in series if k[1] == name)


def hist_quantile(name, q):
    buckets = {}
    for k in series:
        if k[1] == name + "_bucket":
            le = float(dict(k[2])["le"])
            buckets[le] = buckets.get(le, 0.0) + increase(k)
    les = sorted(buckets)
    cum = [buckets[b] for b in les]
    for i in range(1, len(cum)):
        cum[i] = max(cum[i], cum[i - 1])
    if not les or les[-1] != math.inf or cum[-1] <= 0:
        return None
    rank = q * cum[-1]
    b = next(i for i, c in enumerate(cum) if c >= rank)
    if b == len(les) - 1:
        return les[-2]
    start = 0.0 if b == 0 else les[b - 1]
    below = 0.0 if b == 0 else cum[b - 1]
    return start + (les[b] - start) * (rank - below) / (cum[b] - below)


def gauge(name):
    vals, tw_sum, tw_dur = [], 0.0, 0.0
    for k, pts in series.items():
        if k[1] != name:
            continue
        vals += [v for _, v in pts]
        for (t0, v0), (t1, _) in zip(pts, pts[1:]):
            tw_sum += v0 * (t1 - t0)
            tw_dur += t1 - t0
    a = np.array(vals)
    return {"count": len(a), "mean": a.mean(), "min": a.min(), "max": a.max(),
            "p50": np.percentile(a, 50), "p90": np.percentile(a, 90),
            "p99": np.percentile(a, 99), "time_weighted_mean": tw_sum / tw_dur}


def lua(x):
    if x is None:
        return "nil"
    if isinstance(x, dict):
        return "{ " + ", ".join(f"{k} = {lua(v)}" for k, v in x.items()) + " }"
    return repr(float(x))


hits, queries = total("vllm:prefix_cache_hits_total"), total("vllm:prefix_cache_queries_total")
out = {
    "hits": hits, "queries": queries, "hit_rate": hits / queries if queries else None,
    "hits_max": sum(max(v for _, v in pts) for k, pts in series.items()
                    if k[1] == "vllm:prefix_cache_hits_total"),
    "prompt_tokens": total("vllm:prompt_tokens_total"),
    "ttft_p50": hist_quantile("vllm:time_to_first_token_seconds", 0.5),
    "ttft_p90": hist_quantile("vllm:time_to_first_token_seconds", 0.9),
    "ttft_p99": hist_quantile("vllm:time_to_first_token_seconds", 0.99),
    "ttft_mean": total("vllm:time_to_first_token_seconds_sum")
    / total("vllm:time_to_first_token_seconds_count"),
    "e2e_p90": hist_quantile("vllm:e2e_request_latency_seconds", 0.9),
    "kv": gauge("vllm:kv_cache_usage_perc"),
    "series": len(series),
}
# the single vLLM scrape: samples, families and types as prometheus_client reads them
one = open(os.path.join(F, "prometheus/synthetic-vllm_metrics_scrape.txt")).read()
fams = list(text_string_to_metric_families(one))
out["scrape_samples"] = sum(len(f.samples) for f in fams)
out["scrape_running"] = next(s.value for f in fams for s in f.samples
                             if s.name == "vllm:num_requests_running")
out["scrape_queries"] = next(s.value for f in fams for s in f.samples
                             if s.name == "vllm:prefix_cache_queries_total")
ms = json.load(open(os.path.join(F, "metrics-summary/synthetic-metrics_summary.json")))
out["ms_hits_sum_of_max"] = sum(p["metrics"]["vllm:prefix_cache_hits_total"]["max"]
                                for k, p in ms.items() if not k.startswith("_"))
out["ms_hit_rate_pct"] = ms["_aggregated"]["metrics"]["vllm:prefix_cache_hit_rate"]["mean"]
print("-- Generated by tests/data/prom_expectations.py (prometheus_client parser + numpy);"
      " do not edit.")
print("return {")
for k, v in out.items():
    print(f"  {k} = {lua(v)},")
print("}")
