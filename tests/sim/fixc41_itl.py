#!/usr/bin/python3
"""Do one run's 95 % intervals of the ITL mean and percentile cover? (task fixc41)

Token gaps (ITL) are pooled over requests, and the gaps of one request are not independent:
they share the request's batch (a busy moment slows every gap of the requests then decoding)
and its own pace. The interval llmd.loadpoints gave (before fixc41) counted each gap as a
sample, n = gaps, with the requests' design effect in send order (TPOT's). This draws runs of
a server whose decode step drifts slowly (an AR(1) log-slowdown, the batch's load), each
request with an effect of its own and gaps with noise and occasional prefill stalls, and
measures over many seeds how often each interval covers the median over the seeds:
- gaps:     n = gaps, deff = the per-request mean gaps' (TPOT's) design effect (the old rule)
- cluster:  the request as the unit: the ratio mean sum(gaps) / sum(counts) with residuals
            r_i = m_i (tpot_i - mean) / mean(m) (m_i the request's gaps, tpot_i their mean),
            Var = var(r) deff(r) / requests, deff(r) in send order; as a design effect of the
            gaps: deff = gaps var(r) deff(r) / (requests var(gaps)); the percentile's interval
            read with that same design effect (order statistics, as percentile_ci)
- tpotk:    what llmdlua does (llmd.runmodel.gap_design_effect): it keeps each request's TPOT in
            send order and the output lengths, not the two paired, so "cluster" with the
            unweighted TPOTs' relative variance times Kish's 1 + CV^2 of the lengths, and the
            TPOTs' design effect; at least d_tpot
- indic:    (a reference llmdlua cannot compute: it keeps no gaps by request) the percentile's
            cluster variance from each request's count of gaps at or below the run's percentile
Results (100 seeds each, 4 req/s, 120 s, 10-400 gaps a request; coverage of the ITL mean, p90):
  --tau 2 (the batch's drift lasts 2 s):  gaps 35 %, 32 %;  cluster 90, 92;  tpotk 95, 97
  --drift 0.0001 (requests' own pace):     gaps 48, 40;      cluster 95, 90;  tpotk 96, 93
  --tau 2 --req 0.3:                       gaps 27, 24;      cluster 86, 93;  tpotk 92, 98
  --tau 5:                                 gaps 31, 25;      cluster 89, 91
  --tau 15 (40 seeds):                     gaps 25, 15;      cluster 70, 68  (a drift as slow as an
  eighth of the run: one run's design effect cannot see it, capa39_deff.py's finding near capacity)
numpy and tests/data/seqstats (Geyer's design effect) only: no llmdlua code.
Run: /usr/bin/python3 tests/sim/fixc41_itl.py [--seeds 300] [--rate 4] [--dur 120] [--q 90]
"""
import argparse
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))
from seqstats import deff  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--seeds", type=int, default=300)
ap.add_argument("--rate", type=float, default=4.0)
ap.add_argument("--dur", type=float, default=120.0)
ap.add_argument("--q", type=float, default=90)
ap.add_argument("--drift", type=float, default=0.25, help="sd of the log slowdown")
ap.add_argument("--tau", type=float, default=15.0, help="its correlation time (s)")
ap.add_argument("--req", type=float, default=0.15, help="sd of a request's own log pace")
ap.add_argument("--noise", type=float, default=0.3, help="sd of a gap's log noise")
ap.add_argument("--stall", type=float, default=0.03, help="chance of a 100 ms prefill stall a gap")
a = ap.parse_args()
Z = 1.959964


def one_run(seed):
    rng = np.random.default_rng(seed)
    step = 0.1  # slowdown grid (s)
    ng = int((a.dur + 60) / step) + 1
    phi = np.exp(-step / a.tau)
    s = np.empty(ng)
    s[0] = rng.normal(0, a.drift)
    e = rng.normal(0, a.drift * np.sqrt(1 - phi * phi), ng)
    for k in range(1, ng):
        s[k] = phi * s[k - 1] + e[k]
    starts = np.cumsum(rng.exponential(1 / a.rate, int(a.rate * a.dur * 1.5)))
    starts = starts[starts < a.dur]
    gaps, m, tpot = [], [], []
    for t0 in starts:
        mi = int(rng.integers(10, 400))
        u = rng.normal(0, a.req)
        t = t0 + 0.1
        g = np.empty(mi)
        for k in range(mi):
            x = 0.02 * np.exp(s[min(int(t / step), ng - 1)] + u + rng.normal(0, a.noise))
            if rng.random() < a.stall:
                x += 0.1
            g[k] = x
            t += x
        gaps.append(g)
        m.append(mi)
        tpot.append(g.mean())
    return gaps, np.array(m, float), np.array(tpot)


def cis(gaps, m, tpot, q):
    allg = np.concatenate(gaps)
    n, nr = len(allg), len(m)
    mean = allg.mean()
    srt = np.sort(allg)
    pq = srt[int(np.ceil(n * q / 100)) - 1]  # nearest rank
    d_t = deff(tpot)
    r = m * (tpot - mean) / m.mean()
    d_c = max(1.0, n * r.var(ddof=1) * deff(r) / (nr * allg.var(ddof=1)))
    # what llmdlua keeps: each request's mean gap (TPOT) in send order and the accumulators of
    # the gaps and of the output lengths (m + 1), not the two paired: the unweighted TPOTs'
    # relative variance times Kish's 1 + CV^2 of the lengths for the unequal weights
    ln = m + 1
    kish = 1 + ln.var() / ln.mean() ** 2
    d_k = max(d_t, n * mean ** 2 * tpot.var(ddof=1) / tpot.mean() ** 2 * kish * d_t / (nr * allg.var(ddof=1)))
    out = {}
    for name, d in (("gaps", d_t), ("cluster", d_c), ("tpotk", d_k)):
        h = Z * np.sqrt(allg.var(ddof=1) * d / n)
        out["mean_" + name] = (mean - h, mean + h)
        qq = q / 100
        hh = Z * np.sqrt(n * d * qq * (1 - qq))
        rl, ru = int(np.floor(n * qq - hh)), int(np.ceil(n * qq + hh))
        out["pct_" + name] = (srt[rl - 1] if rl >= 1 else 0, srt[ru - 1] if ru <= n else np.inf)
        out["deff_" + name] = d
    # the indicator's own cluster variance (reference)
    c = np.array([(g <= pq).sum() for g in gaps], float)
    ri = (c - (q / 100) * m) / m.mean()
    d_i = max(1.0, n * ri.var(ddof=1) * deff(ri) / (nr * (q / 100) * (1 - q / 100)))
    qq = q / 100
    hh = Z * np.sqrt(n * d_i * qq * (1 - qq))
    rl, ru = int(np.floor(n * qq - hh)), int(np.ceil(n * qq + hh))
    out["pct_indic"] = (srt[rl - 1] if rl >= 1 else 0, srt[ru - 1] if ru <= n else np.inf)
    out["deff_indic"] = d_i
    return mean, pq, out


res = [cis(*one_run(seed), a.q) for seed in range(a.seeds)]
tm = np.median([x[0] for x in res])
tp = np.median([x[1] for x in res])
print(f"rate {a.rate}/s, {a.dur:.0f} s, {a.seeds} seeds; ITL mean median {tm * 1000:.3f} ms, "
      f"p{a.q:g} median {tp * 1000:.3f} ms")
for key, truth in (("mean_gaps", tm), ("mean_cluster", tm), ("mean_tpotk", tm), ("pct_gaps", tp),
                   ("pct_cluster", tp), ("pct_tpotk", tp), ("pct_indic", tp)):
    cov = np.mean([x[2][key][0] <= truth <= x[2][key][1] for x in res])
    w = np.median([(x[2][key][1] - x[2][key][0]) * 1000 for x in res])
    dk = "deff_" + key.split("_")[1]
    print(f"  {key:13s} covers {100 * cov:5.1f} %  median width {w:8.3f} ms  median deff "
          f"{np.median([x[2][dk] for x in res]):7.2f}")
