#!/usr/bin/python3
# fixi42: coverage of a relative effect's 95 % interval, old (estimate -+ z se on the effect's scale,
# decision.lua before fixi42) against new (the ratio's, on the log scale), lognormal latencies, 4000 seeds a
# case (numpy alone; takes minutes): /usr/bin/python3 tests/data/effect_interval_coverage.py
# fixa44: on the scale session 43 adopted for every relative effect (decision.lua's header): B against A,
# 100 (b / a - 1), so -100 % at the least and unbounded above. "lin" is the difference's interval over A's
# figure, est -+ z se(b - a) / a (decision.lua linear_interval, the fallback where a figure is not above 0;
# its lower end clamped at -100 %: lin_below-100 counts the intervals the clamp cut, whose unclamped end
# said B's figure could be below 0); "ratio" the log ratio's, 100 (exp(log(b / a) -+ z se_log) - 1)
# (decision.lua ratio_interval, what every row uses where both figures are above 0), never below -100 %.
# Both are checked against the true effect on that scale, 100 (true b / true a - 1).
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
def g(L): return 100 * (np.exp(L) - 1)  # a log ratio on the B-against-A scale
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
    cl = cr = k = below_lin = 0
    for _ in range(seeds):
        a = rng.lognormal(0, s, n); b = rng.lognormal(np.log(ratio), s, n)
        fa, sa, la = fig(a, stat); fb, sb, lb = fig(b, stat)
        if sa is None or sb is None: continue
        k += 1
        e = 100 * (fb / fa - 1)
        h = Z * np.sqrt(sa * sa + sb * sb) / fa * 100
        lin = (max(-100, e - h), e + h)
        L = np.log(fb / fa); hl = Z * np.sqrt(la * la + lb * lb)
        rat = (g(L - hl), g(L + hl))
        cl += lin[0] <= tr <= lin[1]; cr += rat[0] <= tr <= rat[1]
        below_lin += e - h < -100
    return k, cl / k, cr / k, below_lin / k
def rep(n, s, ratio, seeds=4000):
    # repeats' means (each repeat's value lognormal), Welch (decision.lua repeat_effect, one stratum)
    tr = g(np.log(ratio)); cl = cr = 0; below = 0
    for _ in range(seeds):
        a = rng.lognormal(0, s, n); b = rng.lognormal(np.log(ratio), s, n)
        ma, mb, va, vb = a.mean(), b.mean(), a.var(ddof=1), b.var(ddof=1)
        e = 100 * (mb / ma - 1)
        qa, qb = va / n, vb / n
        df = (qa + qb) ** 2 / (qa * qa / (n - 1) + qb * qb / (n - 1))
        h = tq(df) * np.sqrt(qa + qb) / ma * 100
        ga, gb = va / n / ma ** 2, vb / n / mb ** 2
        dfl = (ga + gb) ** 2 / (ga * ga / (n - 1) + gb * gb / (n - 1))
        L = np.log(mb / ma); hl = tq(dfl) * np.sqrt(ga + gb)
        cl += max(-100, e - h) <= tr <= e + h; cr += g(L - hl) <= tr <= g(L + hl)
        below += e - h < -100
    return cl / seeds, cr / seeds, below / seeds
print("stat n sigma ratio | kept lin_cover ratio_cover lin_below-100")
for stat in ("mean", 90):
    for n in (60, 200):
        for s in (0.5, 1.0):
            for ratio in (1.0, 1.3, 3.0):
                print(stat, n, s, ratio, "|", *["%.4f" % x if isinstance(x, float) else x for x in run(stat, n, s, ratio)])
print("repeats n sigma ratio | lin_cover ratio_cover lin_below-100")
for n in (3, 5):
    for s in (0.05, 0.3, 1.0):
        for ratio in (1.0, 1.3, 3.0):
            print(n, s, ratio, "|", *["%.4f" % x for x in rep(n, s, ratio)])
