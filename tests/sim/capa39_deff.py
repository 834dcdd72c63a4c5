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
"""
import argparse
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))
from fifo_server import Fifo  # noqa: E402
from seqstats import deff, midranks  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--slots", type=int, default=20)
ap.add_argument("--rates", default="8,10")
ap.add_argument("--seeds", type=int, default=60)
ap.add_argument("--q", type=float, default=90)
a = ap.parse_args()
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
    ttft, e2e = [], []
    for s in srv.starts:
        f, begin = srv.take(s)
        t = (begin - s) + Opts.ttft0 * f
        lat = t + srv.gaps(f).sum()
        srv.release(s + lat)
        ttft.append(t * 1000)
        e2e.append(lat * 1000)
    return {"ttft": np.array(ttft), "e2e": np.array(e2e)}


def detrended(x):
    """The mid-ranks less their least-squares line in send order (fixa37's reading)."""
    r = midranks(x)
    t = np.arange(1, len(x) + 1)
    return r - np.polyval(np.polyfit(t, r, 1), t)


def interval(x, d, q):
    """percentile_ci's ends (ranks n q -+ z sqrt(n d q (1 - q))), None below 50 effective requests."""
    n = len(x)
    if n / d < 50:
        return None
    half = Z * np.sqrt(d * q * (1 - q) / n)
    lo = np.percentile(x, (q - half) * 100) if (q - half) * n >= 1 else 0
    hi = np.percentile(x, (q + half) * 100) if (q + half) * n <= n - 1 else np.inf
    return lo, hi


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
