#!/usr/bin/env python3
"""A raw scrape folder that defeats a cache keyed by line position (a label that
changes, a reordered scrape, a series that disappears and comes back, a new family
late in a scrape, a reset, NaN, CRLF, exponents), and its aggregates computed here
with the standard library alone: a line parser of its own, increases with resets,
Prometheus' histogram_quantile, the gauges' statistics. Writes
tests/lua/prom_cache_expected.lua.

usage: python3 tests/data/prom_cache_expectations.py > tests/lua/prom_cache_expected.lua
"""
import math
import re
import time

T0 = 1771233602
M = "Qwen/Qwen3-0.6B"


def lab(**kw):
    return "{" + ",".join(f'{k}="{v}"' for k, v in kw.items()) + "}"


def scrape(pod, i, blocks, crlf=False):
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime(T0 + 15 * i))
    head = f"# Timestamp: {stamp}\n# Pod: {pod}\n# PodIP: 10.0.0.1\n# Source: prometheus_metrics\n\n"
    body = "\n".join(line for b in blocks for line in b) + "\n"
    if crlf:
        body = body.replace("\n", "\r\n")
    return head + body + "\n"


def gauge(v, model=M):
    return ["# HELP vllm:num_requests_running Number of requests in model execution batches.",
            "# TYPE vllm:num_requests_running gauge",
            f"vllm:num_requests_running{lab(engine=0, model_name=model)} {v}"]


def counter(name, v):
    return [f"# HELP vllm:{name}_total {name}.", f"# TYPE vllm:{name}_total counter",
            f"vllm:{name}_total{lab(engine=0, model_name=M)} {v}",
            f"# HELP vllm:{name}_created {name}.", f"# TYPE vllm:{name}_created gauge",
            f"vllm:{name}_created{lab(engine=0, model_name=M)} {float(T0 - 600)}"]


def hist(b1, b2, inf, s):
    h = "vllm:time_to_first_token_seconds"
    return [f"# HELP {h} Histogram of time to first token in seconds.", f"# TYPE {h} histogram",
            f'{h}_bucket{{engine="0",le="0.1",model_name="{M}"}} {b1}',
            f'{h}_bucket{{engine="0",le="1.0",model_name="{M}"}} {b2}',
            f'{h}_bucket{{engine="0",le="+Inf",model_name="{M}"}} {inf}',
            f"{h}_count{lab(engine=0, model_name=M)} {inf}", f"{h}_sum{lab(engine=0, model_name=M)} {s}",
            f"{h}_created{lab(engine=0, model_name=M)} {float(T0 - 600)}"]


files = {}
# pod a: the model label of the gauge changes at 2 (and stays), 3 is reordered, hits is
# missing from 4 and back at 5 below its last value (a reset), a new family comes at 4
run_a = [3, 4, 5, 2, 6, 1]
q_a = [100, 250, 400, 700, 900, 1000]
h_a = [40, 100, 180, 300, None, 50]
hb_a = [(1, 3, 4, 0.8), (2, 5, 7, 1.5), (4, 8, 10, 2.3), (5, 10, 14, 3.1), (6, 13, 18, 4.0),
        (8, 15, 20, 4.6)]
for i in range(6):
    g = gauge(f"{float(run_a[i])}", M if i < 2 else M + "-v2")
    q = counter("prefix_cache_queries", f"{float(q_a[i])}")
    hits = counter("prefix_cache_hits", f"{float(h_a[i])}") if h_a[i] is not None else []
    hi = hist(*[float(x) for x in hb_a[i]])
    blocks = [hi, g, q, hits] if i == 3 else [g, q, hits, hi]
    if i >= 4:
        blocks.append(["# HELP vllm:num_preemptions_total Preemptions.",
                       "# TYPE vllm:num_preemptions_total counter",
                       f"vllm:num_preemptions_total{lab(engine=0, model_name=M)} {2.0 if i == 4 else 5.0}"])
    files[f"vllm-a_{T0 + 15 * i}_metrics.log"] = scrape("vllm-a", i, blocks)
# pod b: the same lines every time; NaN at 3, CRLF at 2, exponents at 4, and at 5 a
# series new to a family typed by a # TYPE line that came long before
run_b = ["1.0", "2.0", "2.0", "NaN", "3.0", "0.0"]
q_b = [1000, 1100, 1300, 1600, 2000, 2500]
h_b = [500, 560, 650, 800, 1000, 1300]
hb_b = [(0, 2, 2, 0.3), (1, 4, 6, 1.1), (1, 5, 8, 1.6), (3, 8, 11, 2.5), (3, 10, 14, 3.3),
        (4, 12, 16, 3.9)]
for i in range(6):
    fmt = (lambda x: f"{x:.1e}") if i == 4 else (lambda x: repr(float(x)))
    blocks = [gauge(run_b[i]), counter("prefix_cache_queries", fmt(q_b[i])),
              counter("prefix_cache_hits", fmt(h_b[i])), hist(*[fmt(x) for x in hb_b[i]])]
    if i == 5:
        blocks.append([f"vllm:time_to_first_token_seconds_count{lab(engine=1, model_name=M)} 3.0"])
    files[f"vllm-b_{T0 + 15 * i}_metrics.log"] = scrape("vllm-b", i, blocks, crlf=(i == 2))

# ---- the aggregates, from the texts ------------------------------------------------
LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?[ \t]+(\S+)[ \t]*$')
series = {}  # (pod, name, sorted labels) -> [(t, v)], v may be NaN
types = {}
order = sorted(files, key=lambda n: (int(n.split("_")[1]), n))
for name in order:
    pod, t = name.split("_")[0], float(name.split("_")[1])
    for line in files[name].split("\n"):
        line = line.rstrip("\r")
        m = re.match(r"^# TYPE (\S+) (\S+)$", line)
        if m:
            types[m.group(1)] = m.group(2)
        if not line or line.startswith("#"):
            continue
        mm = LINE.match(line)
        assert mm, line
        labels = tuple(sorted(re.findall(r'(\w+)="([^"]*)"', mm.group(2) or "")))
        series.setdefault((pod, mm.group(1), labels), []).append((t, float(mm.group(3))))


def increase(pts):
    vs = [v for _, v in pts if not math.isnan(v)]
    return sum(b - a if b >= a else b for a, b in zip(vs, vs[1:]))


def resets(pts):
    vs = [v for _, v in pts if not math.isnan(v)]
    return sum(1 for a, b in zip(vs, vs[1:]) if b < a)


def total(metric):
    return math.fsum(increase(p) for k, p in series.items() if k[1] == metric)


def quantile(q, metric):
    buckets = {}
    for k, p in series.items():
        if k[1] == metric + "_bucket":
            le = float(dict(k[2])["le"])
            buckets[le] = buckets.get(le, 0.0) + increase(p)
    les = sorted(buckets)
    cum = [buckets[b] for b in les]
    rank = q * cum[-1]
    b = next(i for i, c in enumerate(cum) if c >= rank)
    if b == len(les) - 1:
        return les[-2]
    start, below = (0.0, 0.0) if b == 0 else (les[b - 1], cum[b - 1])
    return start + (les[b] - start) * (rank - below) / (cum[b] - below)


gv, tw_sum, tw_dur = [], 0.0, 0.0
for k, p in series.items():
    if k[1] == "vllm:num_requests_running":
        pts = [(t, v) for t, v in p if not math.isnan(v)]
        gv += [v for _, v in pts]
        for (ta, va), (tb, _) in zip(pts, pts[1:]):
            tw_sum += va * (tb - ta)
            tw_dur += tb - ta
hits = total("vllm:prefix_cache_hits_total")
queries = total("vllm:prefix_cache_queries_total")
h = "vllm:time_to_first_token_seconds"
exp = {
    "series": len(series),
    "hits": hits, "queries": queries, "ratio": hits / queries,
    "hits_resets": sum(resets(p) for k, p in series.items() if k[1] == "vllm:prefix_cache_hits_total"),
    "preemptions": total("vllm:num_preemptions_total"),
    "preemptions_type": types["vllm:num_preemptions_total"],
    "new_count_type": types["vllm:time_to_first_token_seconds"],
    "ttft_p50": quantile(0.5, h), "ttft_p90": quantile(0.9, h),
    "ttft_mean": total(h + "_sum") / total(h + "_count"),
    "running_count": len(gv), "running_mean": math.fsum(gv) / len(gv),
    "running_min": min(gv), "running_max": max(gv), "running_series": sum(
        1 for k in series if k[1] == "vllm:num_requests_running"),
    "running_twm": tw_sum / tw_dur,
}
# a malformed value late in a scrape of pod a that is otherwise the last one
bad = files[order[-2]].replace(f"_sum{lab(engine=0, model_name=M)} 4.6", f"_sum{lab(engine=0, model_name=M)} 4x6")
assert bad != files[order[-2]]
exp["bad_line"] = bad.split("\n").index(next(line for line in bad.split("\n") if " 4x6" in line)) + 1


def lua(v):
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "\\r").replace("\n", "\\n") + '"'
    if isinstance(v, float):
        return repr(v)
    return str(v)


print("-- Generated by tests/data/prom_cache_expectations.py (python3 stdlib); do not edit.")
print("return {")
print("  files = {")
for n in order:
    print(f"    {{ name = {lua(n)}, text = {lua(files[n])} }},")
print("  },")
print(f"  bad = {{ name = {lua('vllm-a_' + str(T0 + 90) + '_metrics.log')}, text = {lua(bad.replace(time.strftime('%H:%M:%S', time.gmtime(T0 + 75)), time.strftime('%H:%M:%S', time.gmtime(T0 + 90))))} }},")
for k in sorted(exp):
    print(f"  {k} = {lua(exp[k])},")
print("}")
