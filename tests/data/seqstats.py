# Shared by the tests' independent references (deff_ref.py, err_ref.py): numpy alone, no
# llmdlua code. A sequence's design effect in the order given (requests in send order):
# mid-ranks (ties averaged), centred; lag-k autocorrelation sum(r_t r_t+k) / sum(r_t^2);
# Geyer's initial positive sequence (pairs rho_2m + rho_2m+1, rho_0 = 1, added while
# positive, lags up to min(2000, n - 2)), tau = -1 + 2 sum, at least 1; 1 below 100 values
# or with one value only (no spread). value_deff: the same sum on the values centred on their
# mean, not their ranks (a mean's interval's, task fixj44). quantile_deff: value_deff of a
# percentile's indicator series (a percentile's interval's, with the ranks', task fixe45).
import numpy as np


def midranks(x):
    """1-based ranks of x, ties given their mean rank."""
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    xs = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and xs[j + 1] == xs[i]:
            j += 1
        r[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return r


def deff(x):
    """Geyer's design effect of the sequence x (a numpy array) in its order."""
    n = len(x)
    if n < 100:
        return 1.0
    return geyer(midranks(x) - (n + 1) / 2)


def geyer(c):
    """Geyer's initial positive sequence sum of the centred series c (lags up to 2000): max(1, tau)."""
    n = len(c)
    c0 = float(np.dot(c, c))
    if c0 <= 0:
        return 1.0

    def rho(k):
        return float(np.dot(c[:n - k], c[k:])) / c0

    tau, m, maxlag = -1.0, 0, min(2000, n - 2)
    while 2 * m + 1 <= maxlag:
        g = (1.0 if m == 0 else rho(2 * m)) + rho(2 * m + 1)
        if g <= 0:
            break
        tau += 2 * g
        m += 1
    return max(1.0, tau)


def value_deff(x):
    """Geyer's design effect of the values of x (a numpy array) centred on their mean, in its order."""
    n = len(x)
    if n < 100 or np.all(x == x[0]):
        return 1.0
    return geyer(x - x.mean())


def quantile_deff(x, pct):
    """The design effect of x's percentile pct (a percentile's interval's, task fixe45): value_deff of the
    indicator 1{x <= v} in x's order, v the value at the nearest rank ceil(n pct / 100) (1-based)."""
    if len(x) == 0:
        return 1.0
    v = np.sort(x)[max(1, int(np.ceil(len(x) * pct / 100))) - 1]
    return value_deff((x <= v).astype(float))
