#!/usr/bin/python3
"""mixed_repeats_ref.py TEMPLATE OUTDIR: the fixb51 pair (tests/lua/test_mixed_repeats.lua) and its
expected test, computed here from the values written, with no llmdlua code.

A: 3 repeats at each of 1, 2 and 3 req/s; B: 3 repeats at 1 and 2 req/s, one run at 3 req/s. Each
file is a vllm bench serve --save-detailed result (TEMPLATE's fields, 60 requests sent 1/rate s apart,
32 output tokens, no failure). The TPOTs are drawn (numpy, seed 51) around 20 ms for A and 19.9 ms for
B, each repeat shifted by a repeat-level offset (runs of one server differ); their order in a file is
the draw's, and every file's lag-1 correlation (of the values and of their ranks) is checked below
2 / sqrt(60): llmdlua's design effect of fewer than 100 values is then 1.

The expected test (fixb51's rule, written independently here):
  repeats part: the loads both repeated (1, 2 req/s), each repeat's TPOT mean a unit, van Elteren's
    statistic (sum over the loads of B's rank sum / (n + 1)), its exact two-sided p by enumerating
    every split of each load's 6 means (2 min(P(S <= s), P(S >= s))), and its z: the normal score of
    that p with the direction of A's U against its mean;
  per-request part: the load one run measured once (3 req/s), A's 180 TPOTs (its repeats merged)
    against B's 60: Mann-Whitney's normal z, A's U, no ties, design effect 1;
  combined: Stouffer, each load weighted alike, z = (sqrt(1) z_q + sqrt(2) z_r) / sqrt(3),
    p = erfc(|z| / sqrt 2).
Prints JSON: {p_requests, z_requests, p_repeats, z_repeats, z, p, spread_p_min (the least Cochran's Q p
of a side's repeats at a load, which must stay above 0.05 / 5)}."""
import itertools, json, math, os, sys
from statistics import NormalDist
import numpy as np

src, out = sys.argv[1], sys.argv[2]
d = json.load(open(src))
for k in list(d):
    if k.startswith(("mean_", "median_", "std_", "p0", "p1", "p2", "p5", "p7", "p9")):
        del d[k]
rng = np.random.default_rng(51)
N = 60


def lag1(x):
    x = np.asarray(x, float) - np.mean(x)
    return float(np.sum(x[1:] * x[:-1]) / np.sum(x * x))


def draw(centre):
    while True:
        v = centre + rng.normal(0, 1.2, N)
        r = np.argsort(np.argsort(v)).astype(float)
        if abs(lag1(v)) < 2 / math.sqrt(N) and abs(lag1(r)) < 2 / math.sqrt(N):
            return v


fileno = [0]


def write(path, rate, tpot_ms):
    ttft = [50.0 + (7 * i % 13) for i in range(N)]
    lat = [t + p * 31 for t, p in zip(ttft, tpot_ms)]
    fileno[0] += 1
    e = dict(d, date="20260301-10%04d" % fileno[0], num_prompts=N, completed=N, failed=0, request_rate=rate,
             max_concurrency=None, duration=(N - 1) / rate + max(lat) / 1000, total_input_tokens=256 * N,
             total_output_tokens=32 * N)
    e.update(ttfts=[x / 1000 for x in ttft], latencies=[x / 1000 for x in lat], output_lens=[32] * N,
             errors=[""] * N, start_times=[100 + i / rate for i in range(N)], input_lens=[256] * N,
             itls=[[(l - x) / 1000 / 31] * 31 for x, l in zip(ttft, lat)], generated_texts=["x"] * N,
             queue_times=[0.0] * N)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump(e, open(path, "w"))
    # the TPOT as llmdlua reads it back, (latency - ttft) / (output tokens - 1), from the values written
    return [(b - a) / 31 * 1000 for a, b in zip(e["ttfts"], e["latencies"])]


vals = {}  # (side, rate) -> list of repeats' TPOT lists
offsets = {"a": [0.0, 0.05, -0.05], "b": [-0.05, 0.0, 0.05]}
for side, centre in (("a", 20.0), ("b", 19.9)):
    for rate in (1, 2, 3):
        reps = 1 if (side == "b" and rate == 3) else 3
        for k in range(reps):
            v = draw(centre + offsets[side][k])
            got = write("%s/%s/result_r%d_%d.json" % (out, side, rate, k), rate, list(v))
            vals.setdefault((side, rate), []).append(got)

# repeats part: the exact van Elteren over the loads both repeated
strata = [([np.mean(x) for x in vals[("a", r)]], [np.mean(x) for x in vals[("b", r)]]) for r in (1, 2)]


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    for k, i in enumerate(order):
        r[i] = k + 1.0
    return r


dists, observed, u_dev = [], 0.0, 0.0
for a, b in strata:
    allv = a + b
    rk = ranks(allv)
    n = len(allv)
    observed += sum(rk[len(a):]) / (n + 1)
    dists.append([sum(rk[i] for i in c) / (n + 1) for c in itertools.combinations(range(n), len(b))])
    ua = sum(1.0 for x in a for y in b if x > y)
    u_dev += (ua - len(a) * len(b) / 2) / (n + 1)
tot = lo = hi = 0
eps = 1e-9
for combo in itertools.product(*dists):
    s = sum(combo)
    tot += 1
    lo += s <= observed + eps
    hi += s >= observed - eps
p_r = min(1.0, 2 * min(lo, hi) / tot)
z_r = 0.0 if p_r >= 1 else math.copysign(NormalDist().inv_cdf(1 - p_r / 2), u_dev)

# per-request part: Mann-Whitney at 3 req/s, A's repeats merged
xa = np.concatenate(vals[("a", 3)])
xb = np.asarray(vals[("b", 3)][0])
ua = float(sum(np.sum(x > xb) for x in xa))
n1, n2 = len(xa), len(xb)
z_q = (ua - n1 * n2 / 2) / math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
p_q = math.erfc(abs(z_q) / math.sqrt(2))

z = (math.sqrt(1) * z_q + math.sqrt(2) * z_r) / math.sqrt(3)
# Cochran's Q of each side's repeats at each load it repeated (their means, se = sd / sqrt(n)):
# none may flag spread (p below 0.05 over the 5 checks), or llmdlua tests the row over the
# repeats alone (its once_spread)


def cochran(reps):
    m = [np.mean(x) for x in reps]
    w = [len(x) / np.var(x, ddof=1) for x in reps]
    mw = sum(wi * mi for wi, mi in zip(w, m)) / sum(w)
    q = sum(wi * (mi - mw) ** 2 for wi, mi in zip(w, m))
    return math.exp(-q / 2)  # the chi-square tail with 2 degrees of freedom


spread = min(cochran(v) for v in vals.values() if len(v) == 3)
print(json.dumps({"p_requests": p_q, "z_requests": z_q, "p_repeats": p_r, "z_repeats": z_r, "z": z,
                  "p": math.erfc(abs(z) / math.sqrt(2)), "spread_p_min": spread}))
