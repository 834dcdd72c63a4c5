#!/usr/bin/python3
# fixi42: coverage of a relative effect's 95 % interval, old (estimate -+ z se on the effect's scale,
# decision.lua before fixi42) against new (the ratio's, on the log scale), lognormal latencies, 4000 seeds a
# case (numpy alone; takes minutes): /usr/bin/python3 tests/data/effect_interval_coverage.py
# Coverage of the relative effect's 95 % interval (200 (b - a) / (a + b), %), old (estimate -+ z se
# on the effect's scale) vs new (log ratio -+ z se_log, back-transformed), lognormal latencies.
import numpy as np
import math
def _tq(df):
    x = np.linspace(0, 80, 200001)
    logc = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    f = np.exp(logc - (df + 1) / 2 * np.log1p(x * x / df))
    cdf = 0.5 + np.concatenate([[0], np.cumsum((f[1:] + f[:-1]) / 2 * np.diff(x))])
    return float(np.interp(0.975, cdf, x))
DFS = np.concatenate([np.arange(1, 10, 0.02), np.arange(10, 200, 0.5)])
TQ = np.array([_tq(d) for d in DFS])
def tq(df): return float(np.interp(df, DFS, TQ))
Z = 1.959964
rng = np.random.default_rng(42)
def g(L): return 200 * np.tanh(L / 2)
def fig(x, stat):
    n = len(x)
    if stat == "mean":
        v = x.mean(); se = x.std(ddof=1) / np.sqrt(n)
        return v, se, se / v
    q = stat / 100; v = np.percentile(x, stat)
    h = Z * np.sqrt(n * q * (1 - q)); rl, ru = int(np.floor(n * q - h)), int(np.ceil(n * q + h))
    if rl < 1 or ru > n: return v, None, None
    xs = np.sort(x); lo, hi = min(xs[rl - 1], v), max(xs[ru - 1], v)
    return v, (hi - lo) / (2 * Z), (np.log(hi) - np.log(lo)) / (2 * Z)
def truth(stat, mu, s):
    return np.exp(mu + s * s / 2) if stat == "mean" else np.exp(mu + s * 1.2815515655446004)
def run(stat, n, s, ratio, seeds=4000):
    tr = g(np.log(truth(stat, np.log(ratio), s) / truth(stat, 0, s)))
    co = cn = k = below_old = below_new = 0; wo = wn = 0
    for _ in range(seeds):
        a = rng.lognormal(0, s, n); b = rng.lognormal(np.log(ratio), s, n)
        fa, sa, la = fig(a, stat); fb, sb, lb = fig(b, stat)
        if sa is None or sb is None: continue
        k += 1
        e = 200 * (fb - fa) / (fa + fb)
        h = Z * np.sqrt(sa * sa + sb * sb) / ((fa + fb) / 2) * 100
        o = (e - h, e + h)
        L = np.log((200 + e) / (200 - e)); hl = Z * np.sqrt(la * la + lb * lb)
        nw = (g(L - hl), g(L + hl))
        co += o[0] <= tr <= o[1]; cn += nw[0] <= tr <= nw[1]
        below_old += o[0] < -100 or o[1] > 100; below_new += nw[0] < -100 or nw[1] > 100
    return k, co / k, cn / k, below_old / k, below_new / k
def rep(n, s, ratio, seeds=4000):
    # repeats' means (each repeat's value lognormal), Welch
    tr = g(np.log(ratio)); co = cn = 0; out = 0
    for _ in range(seeds):
        a = rng.lognormal(0, s, n); b = rng.lognormal(np.log(ratio), s, n)
        ma, mb, va, vb = a.mean(), b.mean(), a.var(ddof=1), b.var(ddof=1)
        m = (ma + mb) / 2; e = (mb - ma) / m * 100
        qa, qb = va / n / m ** 2 * 1e4, vb / n / m ** 2 * 1e4
        df = (qa + qb) ** 2 / (qa * qa / (n - 1) + qb * qb / (n - 1))
        h = tq(df) * np.sqrt(qa + qb)
        ga, gb = va / n / ma ** 2, vb / n / mb ** 2
        dfl = (ga + gb) ** 2 / (ga * ga / (n - 1) + gb * gb / (n - 1))
        L = np.log((200 + e) / (200 - e)); hl = tq(dfl) * np.sqrt(ga + gb)
        co += e - h <= tr <= e + h; cn += g(L - hl) <= tr <= g(L + hl)
        out += e - h < -200 or e + h > 200
    return co / seeds, cn / seeds, out / seeds
print("stat n sigma ratio | kept old_cover new_cover old_past100 new_past100")
for stat in ("mean", 90):
    for n in (60, 200):
        for s in (0.5, 1.0):
            for ratio in (1.0, 1.3, 3.0):
                print(stat, n, s, ratio, "|", *["%.4f" % x if isinstance(x, float) else x for x in run(stat, n, s, ratio)])
print("repeats n sigma ratio | old_cover new_cover old_past200")
for n in (3, 5):
    for s in (0.05, 0.3, 1.0):
        for ratio in (1.0, 1.3, 3.0):
            print(n, s, ratio, "|", *["%.4f" % x for x in rep(n, s, ratio)])
