#!/usr/bin/python3
"""The four Mann-Whitney tests between the synthetic vLLM detailed fixture ("vsyn") and
"vsyn3", the auditor's variant of it (TTFT of the k-th successful request x FS[k], ITL gaps
x 0.93, latencies moved by both), computed independently of llmdlua with the standard
library only: ranks with ties averaged, U of the first sample, the normal approximation
with tie correction, two-sided p = erfc(|z| / sqrt 2). With at most 60 samples in all the
p is the exact one instead (every split of the pooled mid-ranks enumerated with
itertools.combinations, p = 2 min(P(W <= w), P(W >= w)) of the second sample's rank sum,
capped at 1). ITL gaps are pooled over the requests and z divided by sqrt(gaps per
request) (the design effect the README states), normal whatever their number.
tests/lua/test_family.lua quotes these numbers and builds vsyn3 the same way.

usage: python3 tests/data/family_expectations.py ../shared/fixtures
"""
import itertools
import json
import math
import os
import sys
from collections import Counter

# the auditor's factors (make_vsyn3.py): one per successful request, in order
FS = [1.017191764212727, 1.6700623805300583, 1.4451634581219468, 1.5138354903459565,
      1.1487250127157742, 1.794034729740852, 1.687957223036232]

with open(os.path.join(sys.argv[1], "vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json")) as f:
    a = json.load(f)
b = json.loads(json.dumps(a))
ok = [i for i, e in enumerate(b["errors"]) if not e]
for j, i in enumerate(ok):
    old = b["ttfts"][i]
    b["ttfts"][i] = old * FS[j]
    b["latencies"][i] += old * (FS[j] - 1)
    b["itls"][i] = [g * 0.93 for g in b["itls"][i]]
    b["latencies"][i] -= sum(g * 0.07 / 0.93 for g in b["itls"][i])


def good(d, k):
    return [v for v, e in zip(d[k], d["errors"]) if not e]


def mann_whitney(x, y):
    n1, n2 = len(x), len(y)
    pooled = sorted(x + y)
    n = n1 + n2
    first = {}
    for i, v in enumerate(pooled):
        first.setdefault(v, i)
    ties = Counter(pooled)
    r1 = sum(first[v] + (ties[v] + 1) / 2 for v in x)
    u = r1 - n1 * (n1 + 1) / 2
    t = sum(c ** 3 - c for c in ties.values())
    z = (u - n1 * n2 / 2) / math.sqrt(n1 * n2 / 12 * ((n + 1) - t / (n * (n - 1))))
    return z


def p_of(z):
    return math.erfc(abs(z) / math.sqrt(2))


def exact_p(x, y):
    pooled = sorted(x + y)
    first = {}
    for i, v in enumerate(pooled):
        first.setdefault(v, i)
    ties = Counter(pooled)
    # doubled mid-ranks, integers: exact comparisons of the sums
    r2 = [2 * first[v] + ties[v] + 1 for v in x + y]
    w = sum(r2[len(x):])
    lo = hi = total = 0
    for c in itertools.combinations(range(len(r2)), len(y)):
        s = sum(r2[i] for i in c)
        total += 1
        lo += s <= w
        hi += s >= w
    return min(1.0, 2 * min(lo, hi) / total)


def p_mw(x, y):
    return exact_p(x, y) if len(x) + len(y) <= 60 else p_of(mann_whitney(x, y))


def tpot(d):
    return [(lat - ttft) / (o - 1) for lat, ttft, o, e in
            zip(d["latencies"], d["ttfts"], d["output_lens"], d["errors"]) if not e and o > 1]


print("e2e ", repr(p_mw(good(a, "latencies"), good(b, "latencies"))))
print("ttft", repr(p_mw(good(a, "ttfts"), good(b, "ttfts"))))
print("tpot", repr(p_mw(tpot(a), tpot(b))))
ga = [g for r in good(a, "itls") for g in r]
gb = [g for r in good(b, "itls") for g in r]
m = (len(ga) + len(gb)) / (len(good(a, "ttfts")) + len(good(b, "ttfts")))
print("itl ", repr(p_of(mann_whitney(ga, gb) / math.sqrt(m))), "gaps per request", m)
