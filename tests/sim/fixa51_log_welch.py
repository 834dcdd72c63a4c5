#!/usr/bin/python3
"""fixa51: expected figures for decision.sized_repeat_test, Welch's t on the log values with the
ratio of the geometric means' interval from the same t and df, computed here independently of
the Lua code (numpy only, no scipy): Student's t CDF from the regularized incomplete beta function
(Lentz's continued fraction, Numerical Recipes' betacf), the quantile by bisection on that CDF.

usage: tests/sim/fixa51_log_welch.py A1,A2,... B1,B2,... [raw]
prints t, df, two-sided p, the effect (B against A, %) and its 95 % interval; "raw": on the
values themselves (difference over A's mean), as for repeats with a value at or below 0.
"""
import math
import sys

import numpy as np


def betacf(a, b, x):
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < eps:
            return h
    raise RuntimeError("betacf did not converge")


def betainc(a, b, x):
    """regularized incomplete beta I_x(a, b)"""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * betacf(b, a, 1 - x) / b


def t_two_sided(t, df):
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(q, df):
    # upper quantile: P(T <= x) = q, q > 0.5, bisection on the two-sided tail
    lo, hi = 0.0, 1e6
    for _ in range(300):
        mid = (lo + hi) / 2
        if 1 - t_two_sided(mid, df) / 2 < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def welch(a, b, log=True):
    a, b = np.asarray(a, float), np.asarray(b, float)
    la, lb = (np.log(a), np.log(b)) if log else (a, b)
    qa, qb = la.var(ddof=1) / len(la), lb.var(ddof=1) / len(lb)
    d = lb.mean() - la.mean()
    t = d / math.sqrt(qa + qb)
    df = (qa + qb) ** 2 / (qa * qa / (len(la) - 1) + qb * qb / (len(lb) - 1))
    p = t_two_sided(t, df)
    h = t_quantile(0.975, df) * math.sqrt(qa + qb)
    if log:
        pct = [100 * (math.exp(v) - 1) for v in (d, d - h, d + h)]
    else:
        pct = [100 * v / la.mean() for v in (d, d - h, d + h)]
    return t, df, p, pct


if __name__ == "__main__":
    xs = [float(v) for v in sys.argv[1].split(",")]
    ys = [float(v) for v in sys.argv[2].split(",")]
    log = not (len(sys.argv) > 3 and sys.argv[3] == "raw")
    t, df, p, (e, lo, hi) = welch(xs, ys, log)
    print("t = %.6f  df = %.6f  p = %.10g  effect %+.4f %%  95 %% interval %+.4f %% to %+.4f %%" % (t, df, p, e, lo, hi))
