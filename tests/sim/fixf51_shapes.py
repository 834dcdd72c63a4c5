#!/usr/bin/python3
"""fixf51: chance that ONE configuration's run (5 stages of n requests, lengths i.i.d.
lognormal) is flagged as two workloads by the new shape rule, independent of llmdlua:
a stage's mean differs from stage 1's where |a - b| - 0.05 max(a, b) > z sqrt(sa^2/na + sb^2/nb),
z the two-sided Bonferroni z for 4 stages x 2 kinds at 5 %. Per pair = 1 - (1 - p)^2.
Also the power on a 10 % shift of every stage's output lengths between two runs (whole-run
means, 5 x n requests each, z for 6 statistics, means only here)."""
import numpy as np
from statistics import NormalDist
rng = np.random.default_rng(11)
z8 = NormalDist().inv_cdf(1 - 0.05 / 16); z6 = NormalDist().inv_cdf(1 - 0.05 / 12)
def draw(m, n, sig): return np.maximum(1, np.round(m * rng.lognormal(0, sig, n)))
def far(a, b, z):
    se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return abs(a.mean() - b.mean()) - 0.05 * max(a.mean(), b.mean()) > z * se
def flagged(n, sig):
    st = [(draw(512, n, sig), draw(64, n, sig)) for _ in range(5)]
    return any(far(st[0][k], st[i][k], z8) for i in range(1, 5) for k in (0, 1))
print("n  sigma  P(run flagged)  P(pair flagged)")
for n in (100, 300, 1000):
    for sig in (0.1, 0.3, 0.5):
        p = np.mean([flagged(n, sig) for _ in range(2000)])
        print(n, sig, round(p, 4), round(1 - (1 - p) ** 2, 4))
for n in (300, 1000):
    hits = np.mean([far(draw(64, 5 * n, 0.3), draw(70.4, 5 * n, 0.3), z6) for _ in range(2000)])
    print("10 %% shift, %d a stage (%d a run), sigma 0.3: mean flagged in %.3f" % (n, 5 * n, hits))
