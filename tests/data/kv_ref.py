#!/usr/bin/python3
"""The KV-cache section's figures of one results folder, computed independently of llmdlua
(llmd.kvcache): the raw scrapes (metrics/raw/<pod>_<epoch>_metrics.log) read with
prometheus_client's own text parser, the processed summary (metrics/processed/
metrics_summary.json) with json. Prints one JSON object.

usage: /usr/bin/python3 tests/data/kv_ref.py RESULTS_DIR

Counters: each series' increase over its scrapes as Prometheus' increase() takes it, without
extrapolation: the sum of its rises, and after a restart (its value fell, or its _created time
moved: the process restarted) the value it restarted to, counted from 0; a series whose _created
time lies between the first scrape read and its own first sample counted from 0 inside the
window, so its first value is part of the increase. Totals sum the series over pods and labels.
Gauges (KV usage): every sample pooled, numpy's mean, linear 90th percentile and max, x 100.
Per pod: the window its counter series cover (the latest first sample, the earliest last one, a
series created inside the window covering from the window's start) and its restarts (the most
of any one series: a process restart resets every series at once).
"""
import json
import os
import re
import sys

import numpy as np
from prometheus_client.parser import text_string_to_metric_families

HITS, QUERIES = "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"
OLD_HITS, OLD_QUERIES = "vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_queries_total"
PRE, SUCC = "vllm:num_preemptions_total", "vllm:request_success_total"
USAGE, OLD_USAGE = "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"

root = sys.argv[1]
raw = os.path.join(root, "metrics", "raw")
files = []
if os.path.isdir(raw):
    for n in os.listdir(raw):
        m = re.match(r"(.+)_(\d+)_metrics\.log$", n)
        if m:
            files.append((int(m.group(2)), m.group(1), os.path.join(raw, n)))
files.sort()

series = {}  # (pod, name, labels) -> {t: value}
failed, added = [], []
for t, pod, path in files:
    text = open(path, encoding="utf-8").read()
    if text == "" or re.search(r"^# Warning:", text, re.M):
        failed.append((pod, t))
        continue
    added.append((pod, t))
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            series.setdefault((pod, s.name, tuple(sorted(s.labels.items()))), {})[float(t)] = s.value

out = {"files": len(files), "failed": len(failed)}
if added:
    t_min = min(t for _, t in added)
    out["start"], out["finish"] = files[0][0], files[-1][0]

    def created_of(key):
        pod, name, labels = key
        return series.get((pod, re.sub(r"_total$", "", name) + "_created", labels), {})

    def walk(key):
        """increase, restarts, first_t, last_t, created inside the window"""
        pts = sorted(series[key].items())
        cr = created_of(key)
        inc, resets = 0.0, 0
        for (ta, a), (tb, b) in zip(pts, pts[1:]):
            moved = ta in cr and tb in cr and cr[ta] != cr[tb]
            if b < a or moved:
                inc += b
                resets += 1
            else:
                inc += b - a
        t0 = pts[0][0]
        inside = t0 in cr and t_min <= cr[t0] <= t0
        if inside:
            inc += pts[0][1]
        return inc, resets, t0, pts[-1][0], inside

    names = {k[1] for k in series}
    if HITS in names and QUERIES in names:
        hn, qn = HITS, QUERIES
    elif OLD_HITS in names and OLD_QUERIES in names:
        hn, qn = OLD_HITS, OLD_QUERIES
    else:
        hn = qn = None

    def total(name, by_pod=False):
        keys = [k for k in series if k[1] == name]
        if not keys:
            return None
        if by_pod:
            per = {}
            for k in keys:
                per[k[0]] = per.get(k[0], 0.0) + walk(k)[0]
            return per
        return sum(walk(k)[0] for k in keys)

    if hn:
        out["hits"], out["queries"] = total(hn), total(qn)
        out["hit_rate_pct"] = out["hits"] / out["queries"] * 100 if out["queries"] else None
        # llm-d-benchmark's "sum of max" (process_metrics.py): a pod's values of every label
        # set and scrape pooled, their largest taken, summed over pods
        pooled = {}
        for k in series:
            if k[1] == hn:
                pooled[k[0]] = max(pooled.get(k[0], -np.inf), max(series[k].values()))
        out["hits_max_sum"] = sum(pooled.values())
    out["preemptions"] = total(PRE)
    out["requests"] = total(SUCC)
    out["requests_by_pod"] = total(SUCC, by_pod=True)
    un = USAGE if USAGE in names else OLD_USAGE if OLD_USAGE in names else None
    if un:
        vals = np.array([v for k, pts in series.items() if k[1] == un for v in pts.values()], dtype=float)
        out["usage"] = {"mean": float(vals.mean() * 100), "p90": float(np.percentile(vals, 90) * 100),
                        "max": float(vals.max() * 100), "count": int(vals.size)}
    # each pod's window and restarts over the counters the section reads
    pods = {}
    for k in series:
        if k[1] in (hn, qn, PRE, SUCC) and k[1] is not None:
            inc, resets, t0, t1, inside = walk(k)
            p = pods.setdefault(k[0], {"from": -1e300, "to": 1e300, "resets": 0})
            p["from"] = max(p["from"], out["start"] if inside else t0)
            p["to"] = min(p["to"], t1)
            p["resets"] = max(p["resets"], resets)
    out["pods"] = pods
    # the timeline, for folders whose every pod is scraped at every epoch: per epoch the mean
    # usage over the engines (x 100) and the hit rate of the increases since the previous epoch
    # (none at the first), each increase by the same reset rule
    epochs = sorted({t for _, t in added})

    def step(key, ta, tb):
        pts, cr = series[key], created_of(key)
        if tb not in pts:
            return 0.0
        if ta not in pts:
            return pts[tb] if tb in cr and t_min <= cr[tb] <= tb else 0.0
        moved = ta in cr and tb in cr and cr[ta] != cr[tb]
        return pts[tb] if pts[tb] < pts[ta] or moved else pts[tb] - pts[ta]

    rounds = []
    for i, tb in enumerate(epochs):
        r = {"t": tb - epochs[0]}
        u = [pts[tb] for k, pts in series.items() if k[1] == un and tb in pts] if un else []
        r["usage_pct"] = float(np.mean(u) * 100) if u else None
        if i > 0 and hn:
            dh = sum(step(k, epochs[i - 1], tb) for k in series if k[1] == hn)
            dq = sum(step(k, epochs[i - 1], tb) for k in series if k[1] == qn)
            r["hit_rate_pct"] = dh / dq * 100 if dq > 0 else None
        rounds.append(r)
    out["rounds"] = rounds

summ = os.path.join(root, "metrics", "processed", "metrics_summary.json")
if os.path.exists(summ):
    d = json.load(open(summ, encoding="utf-8"))
    som, lacking = {}, {}
    vpods = {p: b["metrics"] for p, b in d.items() if not p.startswith("_")
             and any(m.startswith("vllm:") for m in b.get("metrics", {}))}
    for name in (HITS, QUERIES, PRE):
        have = [p for p in vpods if name in vpods[p]]
        if have:
            som[name] = sum(vpods[p][name]["max"] for p in have)
            lacking[name] = {p: (vpods[p][SUCC]["max"] if SUCC in vpods[p] else None)
                             for p in vpods if p not in have}
    out["summary"] = {"sum_of_max": som, "lacking": lacking,
                      "hit_rate_mean": d.get("_aggregated", {}).get("metrics", {}).get(
                          "vllm:prefix_cache_hit_rate", {}).get("mean")}

json.dump(out, sys.stdout, sort_keys=True)
print()
