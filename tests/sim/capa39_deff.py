#!/usr/bin/python3
"""Does one run's percentile interval know how much its percentile varies between runs? (task capa39)

A load point measured once carries its percentile's 95 % interval from its own requests'
order statistics, counted as n / deff independent ones (deff: the design effect of the
latencies in send order; llmd.loadpoints.percentile_ci). Task capa39 asked whether that deff
should be read on latencies with their straight-line trend in send order taken out (as
fixa37's queue test reads it), to find a real +20 % capacity gap more often. This measures,
for queue_sim.py's FIFO server (2.1 s a request, Poisson arrivals, 60 s a load), over many
seeds of one load:
- the between-run spread of the percentile (its standard deviation over the seeds), and the
  design effect that spread implies: (that SD / the SD one run's order statistics give with
  deff 1)^2, against the deff each run estimates, raw and detrended (medians over the seeds);
- how often the one-run interval (where it is told: n / deff >= 50) covers the median of the
  percentile over the seeds, raw and detrended.
numpy and tests/data (fifo_server, seqstats) only: no llmdlua code.

Run: /usr/bin/python3 tests/sim/capa39_deff.py [--slots 20] [--rates 8,10] [--seeds 60] [--q 90]
(about 2 s a seed and rate)

--coverage (task calib39): instead, over a grid of loads given as utilisations rho (--rhos, of
the capacity slots / 2.1 s), for TTFT p90, E2E p90, TPOT mean and TPOT p90, how often the
interval llmd.loadpoints.percentile_ci gives (ranks rounded outward: the order statistics at
floor(n q - h) and ceil(n q + h), 1-based, h = z sqrt(n d q (1 - q)); off the ends: open) covers
the median over the seeds (a mean's: mean -+ z s / sqrt(n / d)), where it is told: n / d >= 50
(as now), and where it is told under the gate "d <= D" too (calib39's rule: no interval where
the requests' own design effect shows the queue that near capacity makes the one-run estimate
too small), for each D of --gates.
Run: /usr/bin/python3 tests/sim/capa39_deff.py --coverage [--slots 20] [--rhos 0.3,0.5,0.7,0.84,0.9,0.97]
     [--seeds 30] [--gates 1.5,2,3]

--batch (task cover40): the same coverage of TTFT p90 and E2E p90 with other one-run variances
of the percentile: batch means (bm) and overlapping batch means (obm) of the indicator
1{x <= the run's p90} in send order, batches of n^(1/2) (.5) and n^(2/3) (.67) requests, the
design effect b s^2 / (q (1 - q)) (s^2: the batch means' variance; obm's the usual
n b / ((n - b + 1)(n - b)) sum of squares), alone or as the larger of it and Geyer's with z
replaced by Student's t for the batches' degrees of freedom (k - 1; obm 1.5 (k - 1)): "max(g,
bm.5)t". Each told / covers, as --coverage, at the outward ranks, with the median design effect.
Run: /usr/bin/python3 tests/sim/capa39_deff.py --batch [--slots 20] [--rhos 0.5,0.65,0.77,0.84,0.9] [--seeds 200]

--meancov (task fixa45): a mean SLO's interval at a load measured once (llmd.loadpoints.mean_ci:
mean -+ z s / sqrt(n / d), told where n / d >= 50) with d the ranks' design effect (seqstats.deff,
what mean_ci read before fixa45) and with the values' own (seqstats.value_deff, Geyer's sum on the
values centred on their mean: what the comparison rows' mean intervals read since fixj44), for
TTFT, E2E and TPOT means: of the runs each is told at, the share covering the mean over the seeds
(the truth a run's mean estimates), and how often the interval lies wholly below it (a load
read as meeting an SLO on the mean it fails, the error that settles a capacity order too soon).
TTFT p90's (ranks', outward) beside them for reference.
Run: /usr/bin/python3 tests/sim/capa39_deff.py --meancov [--slots 20] [--rhos 0.3,0.5,0.7,0.84,0.9] [--seeds 100]
fixa45, 200 seeds, rhos 0.5,0.6,0.7,0.77,0.84,0.9 (told / covers / wholly below, ranks' against values'):
TTFT mean 200/.83/28 against 196/.85/29 at 0.5, 199/.43/108 against 173/.42/100 at 0.6, 181/.51/87
against 116/.41/69 at 0.7, 144/.47/77 against 66/.21/52 at 0.77, 61/.16/51 against 20/.00/20 at 0.84,
17/.00/17 against 6/.00/6 at 0.9; E2E mean alike to 0.6, then 196/.88/19 against 193/.90/17, 178/.69/52
against 170/.72/46, 127/.50/63 against 108/.50/54, 53/.09/48 against 38/.11/34; TPOT mean (not queued
here) 95-98 % either way; TTFT p90 (ranks') .97 .94 .80 .74 .64 .18, as --coverage found. So the values'
own reads fewer loads as meeting a mean they fail, but neither is nominal near capacity: a minute's
TTFT mean is skewed by the rare minutes whose queue built (below half covered from rho 0.6).
"""
import argparse
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))
from fifo_server import Fifo, need_numpy  # noqa: E402
from seqstats import deff, midranks, value_deff  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--slots", type=int, default=20)
ap.add_argument("--rates", default="8,10")
ap.add_argument("--seeds", type=int, default=60)
ap.add_argument("--q", type=float, default=90)
ap.add_argument("--coverage", action="store_true")
ap.add_argument("--rhos", default="0.3,0.5,0.7,0.84,0.9,0.97")
ap.add_argument("--gates", default="1.5,2,3")
ap.add_argument("--batch", action="store_true")
ap.add_argument("--meancov", action="store_true")
a = ap.parse_args()
need_numpy()
Z = 1.959964


class Opts:
    """queue_sim.py's defaults: 0.1 s to the first token, 100 tokens 20 ms apart, noise 0.1."""
    ttft0, tpot, outtok, dur, noise = 0.1, 0.02, 100, 60, 0.1

    def __init__(self, slots):
        self.slots = slots


def one_load(slots, rate, seed):
    """TTFTs and end-to-end latencies (ms), in send order, of one load as queue_sim.py draws it."""
    rng = np.random.default_rng(seed)
    srv = Fifo(rng, Opts(slots), 1000.0, rate)
    ttft, e2e, tpot = [], [], []
    for s in srv.starts:
        f, begin = srv.take(s)
        t = (begin - s) + Opts.ttft0 * f
        g = srv.gaps(f)
        lat = t + g.sum()
        srv.release(s + lat)
        ttft.append(t * 1000)
        e2e.append(lat * 1000)
        tpot.append(g.mean() * 1000)
    return {"ttft": np.array(ttft), "e2e": np.array(e2e), "tpot": np.array(tpot)}


def detrended(x):
    """The mid-ranks less their least-squares line in send order (fixa37's reading)."""
    r = midranks(x)
    t = np.arange(1, len(x) + 1)
    return r - np.polyval(np.polyfit(t, r, 1), t)


def interval(x, d, q):
    """percentile_ci's ends before task calib39 (the linear percentiles at q -+ z sqrt(d q (1 - q) / n), widened
    to the figure), None below 50 effective requests."""
    n = len(x)
    if n / d < 50:
        return None
    half = Z * np.sqrt(d * q * (1 - q) / n)
    lo = np.percentile(x, (q - half) * 100) if (q - half) * n >= 1 else 0
    hi = np.percentile(x, (q + half) * 100) if (q + half) * n <= n - 1 else np.inf
    v = np.percentile(x, q * 100)
    return min(lo, v), max(hi, v)


def outward(x, d, q):
    """percentile_ci's ends after calib39: the order statistics at ranks floor(n q - h) and
    ceil(n q + h) (1-based; below 1 or above n: open), h = z sqrt(n d q (1 - q)), widened to
    the figure; None below 50 effective requests."""
    n = len(x)
    if n / d < 50:
        return None
    xs = np.sort(x)
    h = Z * np.sqrt(n * d * q * (1 - q))
    v = np.percentile(x, q * 100)
    rl, ru = int(np.floor(n * q - h)), int(np.ceil(n * q + h))
    lo = xs[rl - 1] if rl >= 1 else 0
    hi = xs[ru - 1] if ru <= n else np.inf
    return min(lo, v), max(hi, v)


def mean_iv(x, d):
    n = len(x)
    if n / d < 50:
        return None
    h = Z * x.std(ddof=1) / np.sqrt(n / d)
    return x.mean() - h, x.mean() + h


def t_quantile(df, z=Z):
    """Student's t quantile for z's level, df degrees of freedom (Cornish-Fisher, within 0.002 from df 5)."""
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def batch_deff(x, q, expo, overlap):
    """The design effect of the indicator 1{x <= the q percentile} in send order from (overlapping) batch
    means of n^expo requests, and its degrees of freedom."""
    n = len(x)
    ind = (x <= np.percentile(x, q * 100)).astype(float)
    b = max(2, int(round(n ** expo)))
    k = n // b
    if overlap:
        c = np.concatenate([[0], np.cumsum(ind)])
        m = (c[b:] - c[:-b]) / b
        var = n * b / ((n - b + 1) * (n - b)) * np.sum((m - ind.mean()) ** 2)
        return var / (q * (1 - q)), 1.5 * (k - 1)
    m = ind[:k * b].reshape(k, b).mean(axis=1)
    return b * m.var(ddof=1) / (q * (1 - q)), k - 1


def outward_z(x, d, q, z):
    """outward() with the quantile z given (Student's t for batch means)."""
    n = len(x)
    if n / d < 50:
        return None
    xs = np.sort(x)
    h = z * np.sqrt(n * d * q * (1 - q))
    v = np.percentile(x, q * 100)
    rl, ru = int(np.floor(n * q - h)), int(np.ceil(n * q + h))
    lo = xs[rl - 1] if rl >= 1 else 0
    hi = xs[ru - 1] if ru <= n else np.inf
    return min(lo, v), max(hi, v)


if a.meancov:
    cap = a.slots / 2.1
    rhos = a.rhos if a.rhos != ap.get_default("rhos") else "0.3,0.5,0.7,0.84,0.9"
    print("slots %d (capacity %.2f req/s), %d seeds a load (60 s each); each: told (n / d >= 50) / covers the "
          "mean over the seeds / wholly below it (median d)" % (a.slots, cap, a.seeds))
    print("| rho | metric | ranks' d | values' d |")
    print("|---|---|---|---|")
    for rho in [float(r) for r in rhos.split(",")]:
        rate = round(rho * cap, 2)
        runs = [one_load(a.slots, rate, s + 1) for s in range(a.seeds)]
        for kind in ("ttft", "e2e", "tpot"):
            truth = np.mean([r[kind].mean() for r in runs])
            cells = []
            for f in (deff, value_deff):
                told, cov, below, ds = 0, 0, 0, []
                for r in runs:
                    d = max(1.0, f(r[kind]))
                    ds.append(d)
                    iv = mean_iv(r[kind], d)
                    if iv is not None:
                        told += 1
                        cov += iv[0] <= truth <= iv[1]
                        below += iv[1] < truth
                cells.append("%d / %s / %d (%.1f)" % (told, ("%.2f" % (cov / told)) if told else "-", below,
                                                      np.median(ds)))
            print("| %.2f | %s mean | %s |" % (rho, kind, " | ".join(cells)), flush=True)
        med = np.median([np.percentile(r["ttft"], 90) for r in runs])
        ivs = [outward(r["ttft"], max(1.0, deff(r["ttft"])), 0.9) for r in runs]
        told = [iv for iv in ivs if iv is not None]
        print("| %.2f | ttft p90 (median) | %d / %s / %d | - |" % (
            rho, len(told), ("%.2f" % np.mean([lo <= med <= hi for lo, hi in told])) if told else "-",
            sum(hi < med for lo, hi in told)), flush=True)
    sys.exit(0)

if a.batch:
    cap = a.slots / 2.1
    rhos = a.rhos if a.rhos != ap.get_default("rhos") else "0.5,0.65,0.77,0.84,0.9"
    methods = ["geyer", "bm.5", "bm.67", "obm.5", "obm.67", "max(g,bm.5)t", "max(g,bm.67)t", "max(g,obm.5)t",
               "max(g,obm.67)t"]
    print("slots %d (capacity %.2f req/s), %d seeds a load (60 s each): p90's interval told (n / d >= 50) / share "
          "covering the median over the seeds (median d)" % (a.slots, cap, a.seeds))
    print("| rho | metric | %s |" % " | ".join(methods))
    print("|---|---|%s" % ("---|" * len(methods)))
    q = 0.9
    for rho in [float(r) for r in rhos.split(",")]:
        rate = round(rho * cap, 2)
        runs = [one_load(a.slots, rate, s + 1) for s in range(a.seeds)]
        for kind in ("ttft", "e2e"):
            med = np.median([np.percentile(r[kind], 90) for r in runs])
            res = {m: [] for m in methods}
            ds = {m: [] for m in methods}
            for r in runs:
                x = r[kind]
                g = max(1.0, deff(x))
                cand = {"geyer": (g, Z)}
                for e, nm in ((0.5, ".5"), (2 / 3, ".67")):
                    for ov, pre in ((False, "bm"), (True, "obm")):
                        d, df = batch_deff(x, q, e, ov)
                        cand[pre + nm] = (max(1.0, d), Z)
                        cand["max(g,%s%s)t" % (pre, nm)] = (max(g, d), t_quantile(df))
                for m in methods:
                    d, z = cand[m]
                    iv = outward_z(x, d, q, z)
                    ds[m].append(d)
                    res[m].append(None if iv is None else (iv[0] <= med <= iv[1]))

            def cell(m):
                told = [c for c in res[m] if c is not None]
                return "%d / %s (%.0f)" % (len(told), ("%.2f" % np.mean(told)) if told else "-", np.median(ds[m]))
            print("| %.2f | %s p90 | %s |" % (rho, kind, " | ".join(cell(m) for m in methods)), flush=True)
    sys.exit(0)

if a.coverage:
    gates = [float(g) for g in a.gates.split(",")]
    cap = a.slots / 2.1
    print("slots %d (capacity %.2f req/s), %d seeds a load (60 s each); covers: of the runs an interval is told "
          "(n / d >= 50), the share covering the median over the seeds (before: the linear percentiles at q -+ h / n "
          "before calib39; then the order statistics at the outward ranks)" % (a.slots, cap, a.seeds))
    print("| rho | req/s | metric | d estimated (median; 10-90 %%) | before (linear ranks): told / covers"
          " | told / covers | %s |" % " | ".join("d <= %g: told / covers" % g for g in gates))
    print("|---|---|---|---|---|---|%s" % ("---|" * len(gates)))
    for rho in [float(r) for r in a.rhos.split(",")]:
        rate = round(rho * cap, 2)
        runs = [one_load(a.slots, rate, s + 1) for s in range(a.seeds)]
        for kind, stat in (("ttft", 90), ("e2e", 90), ("tpot", "mean"), ("tpot", 90)):
            figs, ds, ivs, old = [], [], [], []
            for r in runs:
                x = r[kind]
                d = max(1.0, deff(x))
                ds.append(d)
                if stat == "mean":
                    figs.append(x.mean())
                    ivs.append(mean_iv(x, d))
                    old.append(ivs[-1])
                else:
                    figs.append(np.percentile(x, stat))
                    ivs.append(outward(x, d, stat / 100))
                    old.append(interval(x, d, stat / 100))
            med = np.median(figs)

            def cover(keep, ivs=ivs):
                told = [iv for iv, d in zip(ivs, ds) if iv is not None and keep(d)]
                if not told:
                    return "0 / -"
                return "%d / %.2f" % (len(told), np.mean([lo <= med <= hi for lo, hi in told]))
            print("| %.2f | %g | %s %s | %.1f (%.1f-%.1f) | %s | %s | %s |" % (
                rho, rate, kind, stat if stat == "mean" else "p%d" % stat, np.median(ds), np.percentile(ds, 10),
                np.percentile(ds, 90), cover(lambda d: True, old), cover(lambda d: True),
                " | ".join(cover(lambda d, g=g: d <= g) for g in gates)), flush=True)
    sys.exit(0)

q = a.q / 100
print("slots %d, p%g over %d seeds a load (60 s each)" % (a.slots, a.q, a.seeds))
print("| load | metric | requests | p%g median (10th-90th %% over seeds) | deff the spread implies"
      " | deff estimated: raw"
      " | detrended | raw interval told / covers median | detrended told / covers |" % a.q)
print("|---|---|---|---|---|---|---|---|---|")
for rate in [float(r) for r in a.rates.split(",")]:
    runs = [one_load(a.slots, rate, s + 1) for s in range(a.seeds)]
    for kind in ("ttft", "e2e"):
        ps, sd1, dr, dl, ir, il = [], [], [], [], [], []
        for r in runs:
            x = r[kind]
            n = len(x)
            ps.append(np.percentile(x, a.q))
            h = np.sqrt(q * (1 - q) / n)
            sd1.append((np.percentile(x, (q + h) * 100) - np.percentile(x, (q - h) * 100)) / 2)
            dr.append(deff(x))
            dl.append(deff(detrended(x)))
            ir.append(interval(x, dr[-1], q))
            il.append(interval(x, dl[-1], q))
        med = np.median(ps)

        def cover(iv):
            told = [v for v in iv if v is not None]
            return "%d / %s" % (len(told), ("%.2f" % np.mean([lo <= med <= hi for lo, hi in told])) if told else "-")
        print("| %g req/s | %s | %d | %.0f (%.0f-%.0f) | %.0f | %.0f | %.0f | %s | %s |" % (
            rate, kind, n, med, np.percentile(ps, 10), np.percentile(ps, 90),
            (np.std(ps, ddof=1) / np.median(sd1)) ** 2,
            np.median(dr), np.median(dl), cover(ir), cover(il)), flush=True)
