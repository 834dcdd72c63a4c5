#!/usr/bin/python3
"""vLLM without start times (task fixa37, audit37 finding 2): the queue evidence, a rank sum
of the last tenth of the latencies (in the order sent) against the others, took dependent
latencies for independent ones and called kept-up servers saturated. Its z is now divided by
the square root of the design effect of the latencies in send order, read (as Hamed & Rao's
modified trend test, 1998) on their ranks with their straight-line trend in send order taken
out, so that a queue's own trend does not count as dependence.

A FIFO server with 10 slots, each request served in 0.1 + 1.98 x lognormal(0, 0.1) s
(capacity about 4.78 req/s), Poisson sends for 60 s. The random numbers come from a
SplitMix64 generator that tests/lua/test_saturation.lua repeats, so
that the test's requests are these. Independent of llmdlua's Lua code (numpy, pandas).

Run: /usr/bin/python3 tests/sim/fixa37_sim.py        (the test's cases)
     /usr/bin/python3 tests/sim/fixa37_sim.py rates 200  (the false and true rates by seed)
"""
import heapq
import math
import os
import sys

import numpy as np
import pandas as pd

# Geyer's design effect on the mid-ranks: the one copy the tests' references share
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))
from seqstats import deff  # noqa: E402

SHARE, QUEUE_CHANCE, K, DUR = 0.95, 0.05, 10, 60


class Gen:
    """SplitMix64 (Steele, Lea & Flood 2014), as the Lua test's: 53-bit uniforms in (0, 1)."""

    def __init__(self, seed):
        self.x = seed

    def u(self):
        M = (1 << 64) - 1
        self.x = (self.x + 0x9E3779B97F4A7C15) & M
        z = self.x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
        z ^= z >> 31
        return ((z >> 11) + 0.5) / 2 ** 53

    def exp(self, rate):
        return -math.log(self.u()) / rate

    def normal(self):  # Box-Muller, the cosine branch only
        u1, u2 = self.u(), self.u()
        return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)


def sim(seed, rate):
    """Send times and latencies of int(rate * DUR) requests."""
    g = Gen(seed)
    n = int(rate * DUR)
    starts, t = [], 100.0
    for _ in range(n):
        starts.append(t)
        t += g.exp(rate)
    svc = [0.1 + 1.98 * math.exp(0.1 * g.normal()) for _ in range(n)]
    free = [starts[0]] * K
    lat = []
    for s, v in zip(starts, svc):
        f = heapq.heappop(free)
        e = max(f, s) + v
        heapq.heappush(free, e)
        lat.append(e - s)
    return np.array(starts), np.array(lat)


def judge(starts, lat, rate):
    n = len(lat)
    ends = starts + lat
    # with start times: the pace (answers' slope on the sends), kept up at >= 95 %
    slope = np.polyfit(starts, ends, 1)[0]
    kept = 1 / slope >= SHARE
    # without: the drain-reduced rate against the offered rate
    window = ends.max() - starts.min()
    red = n / (window - lat.min())
    m = n // 10
    rk = pd.Series(lat).rank(method="average").to_numpy()
    _, counts = np.unique(lat, return_counts=True)
    ties = float((counts ** 3 - counts).sum())
    var = m * (n - m) / 12 * ((n + 1) - ties / (n * (n - 1)))
    z = (rk[n - m:].sum() - m * (n + 1) / 2) / math.sqrt(var)
    # the ranks less their least-squares line in send order
    t = np.arange(n)
    resid = rk - np.polyval(np.polyfit(t, rk, 1), t)
    d = 1.0 if np.abs(resid).max() < 1e-9 * n else deff(resid)
    old = 0.5 * math.erfc(z / math.sqrt(2))
    new = 0.5 * math.erfc(z / math.sqrt(d) / math.sqrt(2))
    short = red < SHARE * rate
    return dict(n=n, kept=kept, pace=1 / slope, red=red, short=short, z=z, deff=d, old=old, new=new,
                sat_old=short and old <= QUEUE_CHANCE, sat_new=short and new <= QUEUE_CHANCE, m=m,
                window=window, lmin=lat.min())


def show(label, seed, rate):
    s, lat = sim(seed, rate)
    j = judge(s, lat, rate)
    print(f"{label}: seed {seed} at {rate} req/s, {j['n']} requests: pace {j['pace']:.4f} (kept up: {j['kept']}), "
          f"drain-reduced {j['red']:.10g} req/s ({j['red'] / rate * 100:.2f} %, short: {j['short']}); "
          f"last {j['m']}: z {j['z']:.6f}, chance {j['old']:.6g} (saturated: {j['sat_old']}); "
          f"design effect {j['deff']:.6f}, chance {j['new']:.6g} (saturated: {j['sat_new']})")


# the test's cases: kept up (by the pace) but called saturated before, and an overload
CASES = [("kept 4", 4, 4.4), ("kept 58", 58, 4.4), ("overloaded 1", 1, 6.0)]

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "rates":
        N = int(sys.argv[2])
        for rate in (4.0, 4.4, 4.6, 5.0, 5.5, 6.0):
            c = dict(kept=0, old=0, new=0, sat_old=0, sat_new=0)
            for seed in range(1, N + 1):
                s, lat = sim(seed, rate)
                j = judge(s, lat, rate)
                c["kept"] += j["kept"]
                c["old"] += j["kept"] and j["sat_old"]
                c["new"] += j["kept"] and j["sat_new"]
                c["sat_old"] += j["sat_old"]
                c["sat_new"] += j["sat_new"]
            print(f"{rate} req/s, {N} seeds: kept up by the pace {c['kept']}; of those called saturated without "
                  f"start times: before {c['old']}, now {c['new']}; called saturated in all: before {c['sat_old']}, "
                  f"now {c['sat_new']}")
    else:
        for label, seed, rate in CASES:
            show(label, seed, rate)
