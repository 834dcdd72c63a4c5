#!/usr/bin/python3
"""Is compare.lua's error-rate advice "N repeats of that load, not R ... N would clear it with 80 % chance if
its error rate is truly as measured and its failures as bursty" true? (task intervals55)

For a pooled count (failed of total over R repeats, design effect d in send order), independently of
llmd (math.lgamma binomial sums; the Clopper-Pearson ends by bisection on the exact binomial tails, each
tail 0.025 at z = 1.959964): the fewest N in R+1..50 whose pooled interval of floor(N x total / R / d)
effective requests clears the limit with >= 80 % chance, exactly; then a numpy simulation of it: N repeats
of total / R requests each, failures at the measured share, independent (d = 1) or in bursts (a two-state
Markov chain in send order whose design effect (1 + rho) / (1 - rho) is d: rho = (d - 1) / (d + 1)), the
counts read on d as llmd reads them, and the share of draws whose pooled interval clears the limit.

Usage: intervals55_error_settle.py FAILED TOTAL REPEATS LIMIT_PCT [DEFF] [DRAWS]
Prints: need (or none), the exact chance at need and need - 1, the simulated chance at need.
"""
import math, sys
import numpy as np

MAX_REPEATS = 50  # llmd.loadpoints.SETTLE_MAX_ERROR_REPEATS
Z_TAIL = 0.024999895  # two-sided 1.959964 -> each tail (1 - 0.95000021) / 2


LF = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, 20001)))])  # log k!, k <= 20000


def pmf(n, p):
    """P(K = k) for k = 0..n, K ~ Binomial(n, p), from log factorials."""
    k = np.arange(n + 1)
    return np.exp(LF[n] - LF[k] - LF[n - k] + k * math.log(p) + (n - k) * math.log1p(-p))


def binom_cdf(k, n, p):
    """P(K <= k)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return min(1.0, float(pmf(n, p)[:k + 1].sum()))


def cp(k, n, tail=Z_TAIL):
    """Clopper-Pearson ends of k of n (whole): lo solves P(K >= k | p) = tail, hi P(K <= k | p) = tail
    (each by bisection: P(K >= k | p) rises with p, P(K <= k | p) falls)."""
    def bis(f, rising):
        a, b = 0.0, 1.0
        for _ in range(60):
            m = (a + b) / 2
            if (f(m) > tail) == rising:
                b = m
            else:
                a = m
        return (a + b) / 2
    lo = 0.0 if k == 0 else bis(lambda p: 1 - binom_cdf(k - 1, n, p), True)
    hi = 1.0 if k == n else bis(lambda p: binom_cdf(k, n, p), False)
    return lo, hi


def power(n, q, lim):
    """Exact chance over K ~ Binomial(n, q) that cp(K, n) clears lim on q's side: every k walked whose
    chance is above 1e-12 (the rest can change the sum by less than n x 1e-12)."""
    pm = pmf(n, q)
    tot = 0.0
    for k in np.nonzero(pm > 1e-12)[0]:
        lo, hi = cp(int(k), n)
        if (q > lim and lo > lim) or (q < lim and hi <= lim):
            tot += pm[k]
    return tot


def need(failed, total, repeats, lim_pct, d=1.0):
    q, lim = failed / total, lim_pct / 100
    per = total / repeats
    for r in range(repeats + 1, MAX_REPEATS + 1):
        n = int(math.floor(r * per / d))
        if n >= 1 and power(n, q, lim) >= 0.8:
            return r
    return None


def simulate(r, per, q, lim, d, draws, rng):
    """Share of draws of r repeats (per requests each) whose pooled interval, on counts over d, clears."""
    rho = (d - 1) / (d + 1)
    hit = 0
    for _ in range(draws):
        k = 0
        for _ in range(r):
            if d <= 1:
                k += rng.binomial(int(per), q)
            else:
                # two-state chain: P(fail | fail) = q + rho (1 - q), P(fail | ok) = q (1 - rho); lag-1 correlation rho
                st = rng.random() < q
                k += st
                u = rng.random(int(per) - 1)
                for x in u:
                    st = x < (q + rho * (1 - q) if st else q * (1 - rho))
                    k += st
        n_eff = r * per / d
        k_eff = k / d
        # (a real-valued count: the Beta quantiles via bisection on the regularised incomplete beta are what
        # llmd does; here rounded to the nearest whole effective count, as the exact sizing's floor is)
        ke, ne = int(round(k_eff)), int(math.floor(n_eff))
        ke = min(ke, ne)
        lo, hi = cp(ke, ne)
        hit += (q > lim and lo > lim) or (q < lim and hi <= lim)
    return hit / draws


if __name__ == "__main__":
    f, t, R, L = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    d = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
    draws = int(sys.argv[6]) if len(sys.argv) > 6 else 2000
    N = need(f, t, R, L, d)
    q, lim, per = f / t, L / 100, t / R
    if N is None:
        print("need none up to %d" % MAX_REPEATS)
        sys.exit(0)
    pe = power(int(math.floor(N * per / d)), q, lim)
    pb = power(int(math.floor((N - 1) * per / d)), q, lim) if N - 1 > R else float("nan")
    sim = simulate(N, per, q, lim, d, draws, np.random.default_rng(55))
    print("need %d (requests %d): exact chance %.4f at %d, %.4f at %d; simulated %.3f of %d draws" % (
        N, round(N * per), pe, N, pb, N - 1, sim, draws))
