#!/usr/bin/python3
# Independent reference for tests/lua/test_latency_rows.lua (task fixb40): the effect
# intervals of the rows tested on repeats and of the error rate, with numpy alone (no
# llmdlua code; Student's t quantile by numerical integration of its density, not by the
# incomplete beta function llmd.stattest uses).
#
#   repeats JSON: [[A's values, B's values], ...] per load point -> {pct, lo, hi}: the
#     effect of B's mean against A's, 100 (m_b / m_a - 1) (fixa43: the Change column's
#     scale), over the points of the log ratios' mean weighted n_a n_b / (n_a + n_b), L = sum
#     w log(m_b / m_a) / sum w, est = 100 (exp(L) - 1); its interval that of the ratio of the
#     means (fixi42): L -+ t(0.975, df) sqrt(sum w^2 se^2) / sum w, se^2 = qa + qb = s_a^2 /
#     (n_a m_a^2) + s_b^2 / (n_b m_b^2) (the delta method's variance of log m_b - log m_a), df Welch-Satterthwaite's (sum w^2 se^2)^2 / sum w^4
#     (qa^2 / (n_a - 1) + qb^2 / (n_b - 1)), each end back as 100 (exp(x) - 1).
#   counts JSON: [[failed_a, n_a, failed_b, n_b, deff], ...] per load point -> {pct, lo, hi,
#     pp, pp_lo, pp_hi}: the Mantel-Haenszel rate difference (weights n_a n_b / (n_a + n_b))
#     with Newcombe's hybrid score interval (Newcombe 1998, method 10) from each rate's
#     Wilson interval at n / deff requests, over several points combined by MOVER (Zou &
#     Donner): lower D - sqrt(sum c^2 ((p_b - l_b)^2 + (u_a - p_a)^2)), upper D + sqrt(sum
#     c^2 ((u_b - p_b)^2 + (p_a - l_a)^2)); relative (session 43): the ratio of the weighted
#     rates m = sum c p, its interval by MOVER on the log scale from each weighted rate's
#     MOVER interval (an end unbounded where a rate's interval reaches 0); null where A's is 0.
#   files DIR_A DIR_B FIELD: repeats from two folders of vllm bench serve files (queue_sim.py
#     --repeat), each file one repeat, its FIELD (mean_tpot_ms, p90_tpot_ms) the value, the
#     load points by request_rate, paired where both runs measured the rate.
#   log-files DIR_A DIR_B FIELD: one load point's repeats as in files (fixa51: the test of a
#     row on the repeats of one load point each, decision.sized_repeat_test): Welch on the
#     values' natural logs, the effect 100 (exp(d) - 1) of d = mean log b - mean log a (the
#     ratio of the geometric means), its interval d -+ t(0.975, df) se with se^2 = var(log a) /
#     n_a + var(log b) / n_b and df Welch-Satterthwaite's on the logs; also t, df and the
#     two-sided p (the t density integrated as t_quantile's) -> {pct, lo, hi, t, df, p}.
#   count-files DIR_A DIR_B: the counts mode on two folders of one vllm bench serve file each:
#     failed = requests whose error is not empty, of all; deff the larger of the two runs'
#     failure indicators' (1 failed, 0 not) design effects in file order (seqstats.deff).
"""effect_interval_ref.py repeats|counts JSON -> JSON; files|log-files DIR_A DIR_B FIELD | count-files DIR_A DIR_B -> JSON"""
import json
import math
import sys

import numpy as np

Z = 1.959964


def t_quantile(p, df):
    # the t density integrated on a fine grid (trapezoids) from 0, then the crossing of p
    x = np.linspace(0, 60, 600001)
    logc = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    f = np.exp(logc - (df + 1) / 2 * np.log1p(x * x / df))
    cdf = 0.5 + np.concatenate([[0], np.cumsum((f[1:] + f[:-1]) / 2 * np.diff(x))])
    return float(np.interp(p, cdf, x))


def repeats(strata):
    sw = swl = swv = sdf = 0.0
    for a, b in strata:
        a, b = np.array(a, float), np.array(b, float)
        ma, mb = a.mean(), b.mean()
        w = len(a) * len(b) / (len(a) + len(b))
        sw += w
        swl += w * math.log(mb / ma)
        qa = a.var(ddof=1) / len(a) / ma ** 2
        qb = b.var(ddof=1) / len(b) / mb ** 2
        swv += w * w * (qa + qb)
        sdf += w ** 4 * (qa * qa / (len(a) - 1) + qb * qb / (len(b) - 1))
    L = swl / sw
    h = t_quantile(0.975, swv * swv / sdf) * math.sqrt(swv) / sw
    return {"pct": 100 * (math.exp(L) - 1), "lo": 100 * (math.exp(L - h) - 1), "hi": 100 * (math.exp(L + h) - 1)}


def t_two_sided(t, df):
    # 2 x the t density integrated from |t| outward (trapezoids on a fine grid, out to 2000)
    x = np.concatenate([np.linspace(abs(t), abs(t) + 60, 600001), np.linspace(abs(t) + 60, 2000, 200001)[1:]])
    logc = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    f = np.exp(logc - (df + 1) / 2 * np.log1p(x * x / df))
    return float(2 * np.sum((f[1:] + f[:-1]) / 2 * np.diff(x)))


def log_repeats(strata):
    ((a, b),) = strata
    la, lb = np.log(np.array(a, float)), np.log(np.array(b, float))
    qa, qb = la.var(ddof=1) / len(la), lb.var(ddof=1) / len(lb)
    d = lb.mean() - la.mean()
    df = (qa + qb) ** 2 / (qa * qa / (len(la) - 1) + qb * qb / (len(lb) - 1))
    h = t_quantile(0.975, df) * math.sqrt(qa + qb)
    t = d / math.sqrt(qa + qb)
    return {"pct": 100 * (math.exp(d) - 1), "lo": 100 * (math.exp(d - h) - 1), "hi": 100 * (math.exp(d + h) - 1),
            "t": t, "df": df, "p": t_two_sided(t, df)}


def counts(strata):
    w = np.array([s[1] * s[3] / (s[1] + s[3]) for s in strata])
    c = w / w.sum()
    pa = np.array([s[0] / s[1] for s in strata])
    pb = np.array([s[2] / s[3] for s in strata])

    def wil(p, n):
        # Wilson's score interval: the roots of (p - P)^2 = Z^2 P (1 - P) / n
        a = 1 + Z * Z / n
        bq = -(2 * p + Z * Z / n)
        cq = p * p
        disc = math.sqrt(bq * bq - 4 * a * cq)
        return max(0.0, (-bq - disc) / (2 * a)), min(1.0, (-bq + disc) / (2 * a))

    la, ua, lb, ub = [], [], [], []
    for s, xa, xb in zip(strata, pa, pb):
        d = max(1.0, s[4])
        lo, hi = wil(xa, s[1] / d)
        la.append(lo)
        ua.append(hi)
        lo, hi = wil(xb, s[3] / d)
        lb.append(lo)
        ub.append(hi)
    la, ua, lb, ub = map(np.array, (la, ua, lb, ub))
    D = float((c * (pb - pa)).sum())
    lo = D - math.sqrt(float((c * c * ((pb - lb) ** 2 + (ua - pa) ** 2)).sum()))
    hi = D + math.sqrt(float((c * c * ((ub - pb) ** 2 + (pa - la) ** 2)).sum()))
    out = {"pct": None, "lo": None, "hi": None, "pp": D * 100, "pp_lo": lo * 100, "pp_hi": hi * 100}
    ma, mb = float((c * pa).sum()), float((c * pb).sum())
    if ma <= 0:
        return out
    # the ratio mb / ma of the weighted rates (session 43): each weighted rate's interval by
    # MOVER for a sum, then MOVER for log mb - log ma; an end whose rate interval reaches 0 is
    # unbounded (-100 % below, None above); B's rate 0: u_b / l_a above
    lra = ma - math.sqrt(float((c * c * (pa - la) ** 2).sum()))
    ura = ma + math.sqrt(float((c * c * (ua - pa) ** 2).sum()))
    lrb = mb - math.sqrt(float((c * c * (pb - lb) ** 2).sum()))
    urb = mb + math.sqrt(float((c * c * (ub - pb) ** 2).sum()))
    out["pct"] = 100 * (mb / ma - 1)
    if mb <= 0:
        out["lo"], out["hi"] = -100.0, (100 * (urb / lra - 1) if lra > 0 else None)
        return out
    r = math.log(mb / ma)
    out["lo"] = 100 * (math.exp(r - math.hypot(math.log(mb) - math.log(lrb), math.log(ura) - math.log(ma))) - 1) \
        if lrb > 0 else -100.0
    out["hi"] = 100 * (math.exp(r + math.hypot(math.log(urb) - math.log(mb), math.log(ma) - math.log(lra))) - 1) \
        if lra > 0 else None
    return out


def files(da, db, field):
    import glob
    by = []
    for d in (da, db):
        g = {}
        for f in sorted(glob.glob(d + "/*.json")):
            j = json.load(open(f))
            g.setdefault(j["request_rate"], []).append(j[field])
        by.append(g)
    return [[by[0][r], by[1][r]] for r in sorted(by[0]) if r in by[1]]


def count_files(da, db):
    import glob
    sys.dont_write_bytecode = True
    from seqstats import deff
    out = []
    for d in (da, db):
        (f,) = glob.glob(d + "/*.json")
        e = np.array([0.0 if x == "" else 1.0 for x in json.load(open(f))["errors"]])
        out.append((int(e.sum()), len(e), deff(e)))
    return [[out[0][0], out[0][1], out[1][0], out[1][1], max(1.0, out[0][2], out[1][2])]]


kind = sys.argv[1]
if kind == "count-files":
    print(json.dumps(counts(count_files(sys.argv[2], sys.argv[3]))))
elif kind == "log-files":
    print(json.dumps(log_repeats(files(sys.argv[2], sys.argv[3], sys.argv[4]))))
elif kind == "files":
    print(json.dumps(repeats(files(sys.argv[2], sys.argv[3], sys.argv[4]))))
else:
    data = json.loads(sys.argv[2])
    print(json.dumps(repeats(data) if kind == "repeats" else counts(data)))
