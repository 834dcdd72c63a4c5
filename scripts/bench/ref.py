#!/usr/bin/env python3
"""The other tools of `make bench`, as users run them today. Each prints the same JSON
summary as scan.lua (count, mean, p50, p90, p99 per metric), plus its own peak RSS.

usage: ref.py TOOL SHAPE FILE

TOOL:
  python             json.load (csv.DictReader for CSV), sorted lists, math.fsum; the
                     percentiles with numpy's linear interpolation, written out
  numpy              json.load, then np.array / np.diff / np.concatenate, np.percentile
                     (linear) and np.mean
  pandas             pandas.read_csv of the three columns, np.percentile and np.mean
  prometheus_client  prometheus_client's text parser over every raw scrape
  handparser         a hand-written parser: each non-# line split into name, labels, value
Both Prometheus tools compute the same increases (with counter resets) and Prometheus'
histogram_quantile as scan.lua's llmd.prom_files.
"""
import json
import math
import resource
import sys

tool, shape, path = sys.argv[1], sys.argv[2], sys.argv[3]
# the number-dense shapes are read like the text-heavy ones of the same writer
shape = {"ip_tokens": "inference_perf", "vllm_itls": "vllm_bench", "csv_floats": "csv"}.get(shape, shape)
TOOLS = {"inference_perf": ("python", "numpy"), "vllm_bench": ("python", "numpy"),
         "guidellm": ("python", "numpy"), "csv": ("python", "pandas"),
         "prom": ("prometheus_client", "handparser")}
if tool not in TOOLS.get(shape, ()):
    sys.exit("ref.py: no tool %r for shape %r (expected one of %s)"
             % (tool, shape, ", ".join(TOOLS.get(shape, ("none",)))))


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


def py_summary(xs):
    xs = sorted(xs)
    return {"count": len(xs), "mean": math.fsum(xs) / len(xs),
            "p50": pct(xs, 50), "p90": pct(xs, 90), "p99": pct(xs, 99)}


def np_summary(x):
    import numpy as np
    x = np.asarray(x, dtype=np.float64)
    p50, p90, p99 = np.percentile(x, [50, 90, 99])
    return {"count": int(x.size), "mean": float(np.mean(x)),
            "p50": float(p50), "p90": float(p90), "p99": float(p99)}


def prom_files(folder):
    """the raw scrapes in time order, each with its pod"""
    import glob
    import os
    import re
    files = sorted(glob.glob(os.path.join(folder, "*_metrics.log")),
                   key=lambda p: (int(re.search(r"_(\d+)_metrics", p).group(1)), p))
    return [(re.match(r"(.+)_\d+_metrics\.log$", os.path.basename(p)).group(1), p) for p in files]


def prom_samples_client(text):
    from prometheus_client.parser import text_string_to_metric_families
    for fam in text_string_to_metric_families(text):
        for smp in fam.samples:
            yield smp.name, tuple(sorted(smp.labels.items())), smp.value


def prom_samples_hand(text):
    # what a user writes instead of a library: one split per line. The label text is
    # kept as written (one exporter writes a series' labels in the same order each time).
    for line in text.split("\n"):
        if not line or line[0] == "#":
            continue
        brace = line.find("{")
        if brace >= 0:
            close = line.rfind("}")
            name, labels, value = line[:brace], line[brace + 1:close], line[close + 1:].split()[0]
        else:
            name, value = line.split()[:2]
            labels = ""
        yield name, labels, float(value)


def le_of(labels):
    if isinstance(labels, tuple):
        return float(dict(labels)["le"])
    i = labels.index('le="') + 4
    return float(labels[i:labels.index('"', i)])


def prom(samples):
    last, inc = {}, {}
    for pod, fpath in prom_files(path):
        with open(fpath) as f:
            text = f.read()
        for name, labels, v in samples(text):
            key = (pod, name, labels)
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
            le = le_of(k[2])
            buckets[le] = buckets.get(le, 0.0) + v
    les = sorted(buckets)
    cum = [buckets[b] for b in les]
    rank = 0.9 * cum[-1]
    b = next(i for i, c in enumerate(cum) if c >= rank)
    start, below = (0.0, 0.0) if b == 0 else (les[b - 1], cum[b - 1])
    q90 = les[-2] if b == len(les) - 1 else start + (les[b] - start) * (rank - below) / (cum[b] - below)
    hits, queries = total("vllm:prefix_cache_hits_total"), total("vllm:prefix_cache_queries_total")
    # scan.lua's slots: hit rate, hits, queries, TTFT p90
    return {"kv": {"count": 1, "mean": hits / queries, "p50": hits, "p90": queries, "p99": q90}}


def load_json():
    with open(path) as f:
        return json.load(f)


out = {}
if shape == "inference_perf" and tool == "python":
    itl, ttft, e2e = [], [], []
    for r in load_json():
        t = r["info"]["response_metrics"]["output_token_times"]
        itl += [b - a for a, b in zip(t, t[1:])]
        ttft.append(t[0] - r["start_time"])
        e2e.append(r["end_time"] - r["start_time"])
    out = {"itl": py_summary(itl), "ttft": py_summary(ttft), "e2e": py_summary(e2e)}
elif shape == "inference_perf":
    import numpy as np
    d = load_json()
    times = [r["info"]["response_metrics"]["output_token_times"] for r in d]
    start = np.array([r["start_time"] for r in d])
    out = {"itl": np_summary(np.concatenate([np.diff(t) for t in times])),
           "ttft": np_summary(np.array([t[0] for t in times]) - start),
           "e2e": np_summary(np.array([r["end_time"] for r in d]) - start)}
elif shape == "vllm_bench":
    d = load_json()
    if tool == "python":
        out = {"ttft": py_summary(d["ttfts"]), "itl": py_summary([x for l in d["itls"] for x in l]),
               "e2e": py_summary(d["latencies"])}
    else:
        import numpy as np
        out = {"ttft": np_summary(d["ttfts"]), "itl": np_summary(np.concatenate(d["itls"])),
               "e2e": np_summary(d["latencies"])}
elif shape == "guidellm":
    d = load_json()
    reqs = [r for b in d["benchmarks"] for r in b["requests"]["successful"]]
    summary = py_summary if tool == "python" else np_summary
    out = {"ttft": summary([r["time_to_first_token_ms"] for r in reqs]),
           "e2e": summary([r["request_latency"] for r in reqs]),
           "itl": summary([r["inter_token_latency_ms"] for r in reqs])}
elif shape == "csv" and tool == "python":
    import csv
    ttft, tpot, e2e = [], [], []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            ttft.append(float(r["ttft_ms"]))
            tpot.append(float(r["tpot_ms"]))
            e2e.append(float(r["e2e_ms"]))
    out = {"ttft": py_summary(ttft), "tpot": py_summary(tpot), "e2e": py_summary(e2e)}
elif shape == "csv":
    # pandas' default C parser and float converter, as users call it; only the three
    # columns (usecols), the fastest way pandas offers here
    import pandas as pd
    df = pd.read_csv(path, usecols=["ttft_ms", "tpot_ms", "e2e_ms"])
    out = {"ttft": np_summary(df["ttft_ms"].to_numpy()), "tpot": np_summary(df["tpot_ms"].to_numpy()),
           "e2e": np_summary(df["e2e_ms"].to_numpy())}
elif shape == "prom":
    out = prom(prom_samples_client if tool == "prometheus_client" else prom_samples_hand)
out["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(out, sort_keys=True))
