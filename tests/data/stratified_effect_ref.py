#!/usr/bin/python3
# Independent reference for tests/lua/test_design_effect.lua: a latency row's effect within the load
# points a stratified test compared, from two vllm bench serve --save-detailed folders
# (queue_sim.py's), with numpy alone (no llmdlua code). Per point (the rates given, both
# runs'): TPOT per successful request = (latency - ttft) / (output tokens - 1) in file order
# (send order); the row's figure: the mean, or np.percentile (linear) at p; the effect B
# against A, 100 (b / a - 1) (fixa43: the Change column's scale), over the points of their
# log ratios' mean weighted n_a n_b / (n_a + n_b), L = sum w log(b / a) / sum w, est = 100
# (exp(L) - 1). Its 95 % interval that of a ratio (fixi42): L -+ 1.959964 sqrt(sum w^2
# (la^2 + lb^2)) / sum w, each end back as 100 (exp(x) - 1); la, lb each side's standard
# error of the log of its figure, from its design effect d (seqstats.deff in send order,
# the larger of the two sides', at least 1; a mean's the values' own, seqstats.value_deff,
# task fixj44; a percentile's the larger of that and its indicator's, seqstats.quantile_deff,
# task fixe45): the mean's s / sqrt(n / d) / mean (ddof 1); a
# percentile's (log hi - log lo) / (2 z), lo and hi the order statistics at 1-based ranks
# floor(n q - h) and ceil(n q + h), h = z sqrt(n d q (1 - q)) (widened to the figure),
# unbounded where a rank is below 1 or above n, or n / d < 50.
"""stratified_effect_ref.py DIR_A DIR_B RATES STATS [tpot | ttft] -> JSON {stat: {pct, lo, hi, need}} (lo, hi
null: unbounded, need then the requests a load point would need, the most over the points); TTFT: each successful
request's ttft"""
import glob
import json
import sys

import numpy as np

sys.dont_write_bytecode = True
from seqstats import deff, quantile_deff, value_deff  # noqa: E402

Z = 1.959964


KIND = sys.argv[5] if len(sys.argv) > 5 else "tpot"


def load(d):
    out = {}
    for f in glob.glob(d + "/*.json"):
        j = json.load(open(f))
        if KIND == "ttft":
            t = [tt * 1000 for tt, e in zip(j["ttfts"], j["errors"]) if e == ""]
        else:
            t = [(lat - tt) / (o - 1) * 1000 for lat, tt, o, e in
                 zip(j["latencies"], j["ttfts"], j["output_lens"], j["errors"]) if e == "" and o > 1]
        out[j["request_rate"]] = np.array(t)
    return out


def fig_se(x, stat, d):
    n = len(x)
    if stat == "mean":
        v = x.mean()
        return v, (x.std(ddof=1) / np.sqrt(n / d) / v if n / d >= 50 else None)
    q = stat / 100
    v = np.percentile(x, stat)
    if n / d < 50:
        return v, None
    h = Z * np.sqrt(n * d * q * (1 - q))
    rl, ru = int(np.floor(n * q - h)), int(np.ceil(n * q + h))
    if rl < 1 or ru > n:
        return v, None
    xs = np.sort(x)
    lo, hi = min(xs[rl - 1], v), max(xs[ru - 1], v)
    return v, (np.log(hi) - np.log(lo)) / (2 * Z)


def need(stat, d):
    # the fewest requests whose figure has a standard error at design effect d (task fixb40:
    # what would settle an unbounded row): n / d >= 50, and a percentile's ranks inside 1..n
    n = int(np.ceil(50 * d))
    if stat == "mean":
        return n
    q = stat / 100
    while True:
        h = Z * np.sqrt(n * d * q * (1 - q))
        if n / d >= 50 and np.floor(n * q - h) >= 1 and np.ceil(n * q + h) <= n:
            return n
        n += 1


a, b = load(sys.argv[1]), load(sys.argv[2])
rates = [float(x) for x in sys.argv[3].split(",")]
res = {}
for s in sys.argv[4].split(","):
    stat = "mean" if s == "mean" else float(s)
    sw = swl = swv = 0.0
    bounded = True
    most = 0
    for r in rates:
        xa, xb = a[r], b[r]
        d = max(1.0, value_deff(xa), value_deff(xb)) if stat == "mean" else max(
            1.0, deff(xa), deff(xb), quantile_deff(xa, stat), quantile_deff(xb, stat))
        fa, sa = fig_se(xa, stat, d)
        fb, sb = fig_se(xb, stat, d)
        w = len(xa) * len(xb) / (len(xa) + len(xb))
        sw += w
        swl += w * np.log(fb / fa)
        if sa is None or sb is None:
            bounded = False
            most = max(most, need(stat, d))
        else:
            swv += w * w * (sa * sa + sb * sb)
    L = swl / sw
    h = Z * np.sqrt(swv) / sw
    res[s] = {"pct": 100 * (np.exp(L) - 1), "lo": 100 * (np.exp(L - h) - 1) if bounded else None,
              "hi": 100 * (np.exp(L + h) - 1) if bounded else None,
              "need": None if bounded else most}
print(json.dumps(res))
