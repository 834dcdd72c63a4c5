#!/usr/bin/python3
# Independent reference for tests/lua/test_decision.lua's ladders (testlib.latency_ladder: TTFTs
# 50 + i and 200 + i ms at 2/s and 10/s, B shifted): a row's effect within the load points and
# its 95 % interval, B against A (fixa43), as tests/data/stratified_effect_ref.py computes them (numpy alone; fewer
# than 100 requests a point: design effect 1). Prints the figures the test asserts.
import numpy as np
Z = 1.959964
def fig_se(x, q):
    n = len(x); v = np.percentile(x, q * 100)
    if n < 50: return v, None
    # the order statistics at 1-based ranks floor(n q - h) and ceil(n q + h), h = z sqrt(n q (1 - q))
    h = Z * np.sqrt(n * q * (1 - q)); rl, ru = int(np.floor(n * q - h)), int(np.ceil(n * q + h))
    if rl < 1 or ru > n: return v, None
    xs = np.sort(x)
    lo, hi = min(xs[rl - 1], v), max(xs[ru - 1], v)
    return v, (np.log(hi) - np.log(lo)) / (2 * Z)  # (the log figure's: the interval of a ratio, fixi42)
def eff(strata, q):
    sw = swl = swv = 0; bounded = True
    for a, b in strata:
        fa, sa = fig_se(a, q); fb, sb = fig_se(b, q)
        w = len(a) * len(b) / (len(a) + len(b))
        sw += w; swl += w * np.log(fb / fa)
        if sa is None or sb is None: bounded = False
        else: swv += w * w * (sa * sa + sb * sb)
    L = swl / sw; est = 100 * (np.exp(L) - 1); h = Z * swv ** 0.5 / sw
    return (est, 100 * (np.exp(L - h) - 1), 100 * (np.exp(L + h) - 1)) if bounded else (est, None, None)
for n in (40, 60):
    i = np.arange(1, n + 1)
    for sh in (5.5, 20):
        A = [50 + i, 200 + i]; B = [x + sh for x in A]
        print(n, sh, "ttft p90", eff(list(zip(A, B)), 0.9))
        print(n, sh, "e2e p90", eff([(a + 500, b + 500) for a, b in zip(A, B)], 0.9))
