#!/usr/bin/python3
"""Does a percentile's effect interval know how much p90 and p99 vary between runs? (task fixe45)

The comparison rows' p50/p90/p99 effect (llmd.decision sample_effect, figure_se): each side's
95 % interval of the percentile from the order statistics at n q -+ z sqrt(n d q (1 - q))
(llmd.loadpoints.percentile_ci, ranks rounded outward), its width on the log scale over 2 z the
standard error of its log; the effect's interval log(v_b / v_a) -+ z sqrt(se_a^2 + se_b^2), d
one design effect for both sides, the larger side's. Session 44 measured a mean's (tests/sim/
mean_deff_coverage.py); this measures a percentile's, over --seeds seeds of TTFT series of
queue_sim.py's server (fifo_server.Fifo, 20 slots, 0.1 s + 99 x 0.02 s a request, noise 0.1, --dur
(600) s of Poisson arrivals, about 2.1 s a request: 9.5 req/s the most it serves):
  near capacity (7 and 8.5 req/s, waits in bursts: dependent requests) and well below it (3
  req/s, next to no waiting: independent ones);
  A/A pairs (seed k and k + 1 of one server, the truth 0) and a known shift (B: 22 slots, or at
  3 req/s ttft0 0.13 s, against A);
  the truth: each configuration's percentile over --truth-seeds further runs pooled (a very long
  simulation of the same --dur s runs, from an empty server each time, as a benchmark's are).
For each design effect: 1; the ranks' in send order (seqstats.deff, what the rows use before
fixe45); the indicator series 1{x <= v}'s own (seqstats.quantile_deff: Geyer's sum on it
centred, v the sample's value at the percentile's nearest rank: the variance of the share of
requests at or below v, which is what moves the order statistic); the larger of those two (what
the rows use since fixe45); how often the 95 % interval covers the true effect. numpy, fifo_server.py and
seqstats.py only: no llmdlua code.

Run: /usr/bin/python3 tests/data/pct_deff_coverage.py [--seeds 300] [--truth-seeds 300] [--dur 600]
(TTFT as queue_sim.py makes it: the same draws in the same order, so seed s is queue_sim.py
--seed s's first load point. About 25 minutes on a shared machine.)
fixe45 (--seeds 200 --truth-seeds 200, 600 s): coverage of TTFT p90 / p99, ranks' -> larger:
  7 req/s A/A           p90 68.5 -> 86.0 %   p99 93.2 -> 95.6 % (bounded in 161 -> 68 of 200)
  7 req/s 20 vs 22      p90 54.5 -> 78.5 %   p99 80.4 -> 92.4 % (184 -> 92)
  8.5 req/s A/A         p90 94.0 -> 94.6 %   p99 unbounded either way (the indicator's alone: 4 bounded, 2 cover)
  8.5 req/s 20 vs 22    p90 92.6 -> 94.3 %   p99 unbounded either way (the indicator's alone: 7, 4 cover)
  3 req/s (both)        p90 96.0 -> 96.0 %   p99 97.5 -> 97.5 %;  design effect 1 near capacity: 16-38 %
  (--dur 60, 400 pairs: 7 req/s p90 89.7 -> 94.1 % A/A, 70.0 -> 78.5 % 20 vs 22; 8.5 req/s p90 bounded
  in 10-65 runs of 400; 3 req/s 98.8 -> 99.0 %.) The indicator's alone runs short where it is small by
  chance (a tail's sparse indicator), so the rows read the larger of it and the ranks'.
"""
import argparse
import math
import sys

sys.dont_write_bytecode = True
import numpy as np  # noqa: E402

import fifo_server  # noqa: E402
from seqstats import deff, quantile_deff  # noqa: E402

fifo_server.np = np
Z = 1.959964


class Opt:
    slots, ttft0, tpot, outtok, dur, noise = 20, 0.1, 0.02, 100, 60.0, 0.1


def ttfts(seed, rate, **kw):
    """The TTFTs (s), in send order, of queue_sim.py --seed seed --rates rate (no failures)."""
    a = Opt()
    for k, v in kw.items():
        setattr(a, k, v)
    rng = np.random.default_rng(seed)
    srv = fifo_server.Fifo(rng, a, 1000.0, rate)
    out = np.empty(srv.n)
    for i, s in enumerate(srv.starts):
        f, begin = srv.take(s)
        rng.random()  # queue_sim.py's --fail draw
        ttft = (begin - s) + a.ttft0 * f
        gaps = srv.gaps(f)
        srv.release(s + ttft + gaps.sum())
        out[i] = ttft
    return out


def se_log(x, pct, d):
    """percentile_ci's interval of x's percentile at design effect d, its log width over 2 z; None off the sample."""
    n, q = len(x), pct / 100
    v = np.percentile(x, pct)
    h = Z * math.sqrt(n * d * q * (1 - q))
    rl, ru = math.floor(n * q - h), math.ceil(n * q + h)
    if rl < 1 or ru > n:
        return None
    xs = np.sort(x)
    lo, hi = min(xs[rl - 1], v), max(xs[ru - 1], v)
    return (math.log(hi) - math.log(lo)) / (2 * Z)


RULES = (("none", lambda x, p: 1.0), ("ranks'", lambda x, p: deff(x)), ("indicator's", quantile_deff),
         ("larger", lambda x, p: max(deff(x), quantile_deff(x, p))))


def study(name, a_cfg, b_cfg, seeds, truth_seeds, first):
    """Coverage of each rule's interval for p90 and p99 over the pairs (A seed k, B seed k)."""
    rate_a, kw_a = a_cfg
    rate_b, kw_b = b_cfg
    aa = a_cfg == b_cfg
    pool_a = np.concatenate([ttfts(50000 + s, rate_a, **kw_a) for s in range(truth_seeds)])
    pool_b = pool_a if aa else np.concatenate([ttfts(90000 + s, rate_b, **kw_b) for s in range(truth_seeds)])
    A = [ttfts(first + 2 * s, rate_a, **kw_a) for s in range(seeds)]
    B = [ttfts(first + 2 * s + 1, rate_b, **kw_b) for s in range(seeds)]
    for pct in (90, 99):
        true = 0.0 if aa else math.log(np.percentile(pool_b, pct) / np.percentile(pool_a, pct))
        line = []
        for rname, f in RULES:
            cov = k = 0
            ds = []
            for x, y in zip(A, B):
                d = max(1.0, f(x, pct), f(y, pct))
                sa, sb = se_log(x, pct, d), se_log(y, pct, d)
                if sa is None or sb is None:
                    continue
                k += 1
                ds.append(d)
                L = math.log(np.percentile(y, pct) / np.percentile(x, pct))
                cov += abs(L - true) <= Z * math.hypot(sa, sb)
            line.append("%s %5.1f %% (d %.2f, %d)" % (rname, 100 * cov / max(k, 1), np.median(ds) if ds else 0, k))
        print("%-26s p%d true %+6.1f %% | %s" % (name, pct, 100 * (math.exp(true) - 1), " | ".join(line)), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=300)
    ap.add_argument("--truth-seeds", type=int, default=300)
    ap.add_argument("--first", type=int, default=1001)
    ap.add_argument("--dur", type=float, default=600.0, help="seconds of arrivals a run (default 600)")
    a = ap.parse_args()
    Opt.dur = a.dur
    print("case p | rule coverage (median d, pairs with a bounded interval)")
    for name, ca, cb in (("7 req/s A/A", (7.0, {}), (7.0, {})),
                         ("7 req/s 20 vs 22 slots", (7.0, {}), (7.0, {"slots": 22})),
                         ("8.5 req/s A/A", (8.5, {}), (8.5, {})),
                         ("8.5 req/s 20 vs 22 slots", (8.5, {}), (8.5, {"slots": 22})),
                         ("3 req/s A/A", (3.0, {}), (3.0, {})),
                         ("3 req/s ttft0 0.1 vs 0.13", (3.0, {}), (3.0, {"ttft0": 0.13}))):
        study(name, ca, cb, a.seeds, a.truth_seeds, a.first)


if __name__ == "__main__":
    main()
