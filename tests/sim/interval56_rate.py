#!/usr/bin/python3
"""interval56: the 95 % interval of a repeated load point's request rate, which the max sustained throughput and the
ceiling carry (llmd.loadpoints.rate_interval) and which decision.sustained_order orders two runs beyond. Two rules:

  current: the count's interval (Poisson, r -+ z r / sqrt(n), n the repeats' successes summed) widened to the
           repeats' Student-t interval of the rate (mean -+ t_{R-1} sd / sqrt(R), clipped at 0): the wider ends.
  new:     the count's interval, unless the repeats' rates differ beyond it (Cochran's Q over the repeats' rates
           r_j, each with standard error r_j / sqrt(n_j), n_j = n r_j / sum(r): the point's count shared by
           rate, as the repeats of a load run equally long; p < 0.05): then the wider ends as above.

Independently of llmd (numpy only, seeded). Each run is a rate ladder (--ladder, req/s, --dur s a repeat,
--repeats R), Poisson sends at each load into one server of capacity --mu req/s (20 slots; a request holds a
slot for s ~ Gamma(4) / 4 x 20 / mu s, mean 20 / mu), FIFO, its latency its wait (Lindley's recursion on the
slots' pooled work, s / 20 a request) plus s; a repeat's rate is its answers' pace as llmd.runmodel.pace reads
a vLLM file with send times: the sends' rate over their middle 80 %, (n - 1) 0.8 / (t90 - t10), over the slope
of finish on send time (at least 1), its count 0.8 (n - 1) (llmd.loadpoints.rate_interval's); no client
timeout. Between-repeat variation (--vary): none; spread
(each repeat's capacity x exp(N(0, 0.05))); slow (each repeat, with chance 0.25, on a node of 0.8 x the
capacity). A load is kept up where its repeats' mean rate is >= 95 % of their mean sends' rate (the answers
against the pace reference, llmd.loadpoints.SATURATION_SHARE);
the max sustained throughput is the mean rate of the load below the first one not kept up, the ceiling the
highest mean rate at any load, the span [figure, max(ceiling, figure)] (no load saturated: no upper end). The
truth of a load's rate: the mean of its rate over --truth draws of a repeat (with the variation). Counted:

  coverage  the share of runs whose max sustained figure's interval holds the truth at its load;
  width     the median half-width of that interval ((hi - lo) / 2, req/s);
  A/A       pairs of runs of one truth (capacity mu both) where one is named higher: its figure above the
            other's span and the gap (figure - other's ceiling) beyond sqrt(h_fig^2 + h_ceil^2) (the
            half-widths below the figure and above the ceiling), as decision.sustained_order; with its 95 %
            Wilson interval;
  power     the same where B's capacity is mu x (1 + effect), B named higher.

Run: /usr/bin/python3 tests/sim/interval56_rate.py [--pairs 1000] [--seed 56] [--repeats 2,3,4,5]
     [--vary none,spread,slow] [--effects 0,10,25,50]
"""
import argparse, math
import numpy as np

Z = 1.959963984540054
T975 = {1: 12.706204736174707, 2: 4.302652729749464, 3: 3.182446305284263, 4: 2.7764451051977987,
        5: 2.5705818356363146}  # scipy.stats.t.ppf(0.975, df)
SLOTS = 20
PACE = 0.8  # llmd.runmodel.PACE_SHARE


def chi2_sf(x, df):
    """Upper tail of chi-square with df degrees of freedom (df = 1..4: closed forms)."""
    if df == 1:
        return math.erfc(math.sqrt(x / 2))
    if df == 2:
        return math.exp(-x / 2)
    if df == 3:
        return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    if df == 4:
        return math.exp(-x / 2) * (1 + x / 2)
    raise ValueError(df)


def repeat_rate(rng, lam, mu, dur):
    n = rng.poisson(lam * dur)
    if n == 0:
        return 0.0, 0, 0.0
    t = np.sort(rng.uniform(0, dur, n))
    s = rng.gamma(4.0, 1 / 4.0, n) * SLOTS / mu
    x = s[:-1] / SLOTS - np.diff(t)
    c = np.concatenate([[0.0], np.cumsum(x)])
    w = c - np.minimum.accumulate(np.minimum(c, 0.0))
    f = t + w + s
    q10, q90 = np.percentile(t, [10, 90])
    send = (n - 1) * PACE / (q90 - q10)
    vs, ve, vl = t.var(), f.var(), (w + s).var()
    b = (vs + ve - vl) / (2 * vs)
    return send / max(b, 1.0), PACE * (n - 1), send


def capacity(rng, mu, vary):
    if vary == "spread":
        return mu * math.exp(rng.normal(0, 0.05))
    if vary == "slow" and rng.random() < 0.25:
        return mu * 0.8
    return mu


def point(rng, lam, mu, dur, reps, vary):
    rs, ns, ss = [], [], []
    for _ in range(reps):
        r, n, send = repeat_rate(rng, lam, capacity(rng, mu, vary), dur)
        rs.append(r)
        ns.append(n)
        ss.append(send)
    return np.array(rs), np.array(ns), np.mean(ss)


def interval(rs, ns, rule):
    r, n = rs.mean(), ns.sum()
    half = Z * r / math.sqrt(n)
    lo, hi = max(r - half, 0.0), r + half
    R = len(rs)
    widen = rule == "current"
    if rule == "new":
        se2 = rs ** 2 / (n * rs / rs.sum())  # each repeat's count its share of the point's by its rate, as the Lua
        w = 1 / se2
        m = (w * rs).sum() / w.sum()
        q = (w * (rs - m) ** 2).sum()
        widen = chi2_sf(q, R - 1) < 0.05
    if widen:
        th = T975[R - 1] * rs.std(ddof=1) / math.sqrt(R)
        lo, hi = min(lo, max(r - th, 0.0)), max(hi, r + th)
    return r, lo, hi


def run(rng, ladder, mu, dur, reps, vary):
    pts = [point(rng, lam, mu, dur, reps, vary) for lam in ladder]
    means = [p[0].mean() for p in pts]
    sat = next((i for i in range(len(ladder)) if means[i] < 0.95 * pts[i][2]), None)
    ci = int(np.argmax(means))
    return {"pts": pts, "fig": None if sat == 0 else (len(ladder) - 1 if sat is None else sat - 1),
            "none": sat is None, "ceil": ci}


def span(rn, rule):
    ceil = interval(*rn["pts"][rn["ceil"]][:2], rule)
    if rn["fig"] is None:
        return None, 0.0, ceil[0], ceil
    fig = interval(*rn["pts"][rn["fig"]][:2], rule)
    hi = math.inf if rn["none"] else max(ceil[0], fig[0])
    return fig, fig[0], hi, ceil


def higher(ra, rb, rule):
    """'a', 'b' or None, as decision.sustained_order without a threshold."""
    fa, la, ha, ca = span(ra, rule)
    fb, lb, hb, cb = span(rb, rule)
    for name, f, lo, hi_other, c in (("a", fa, la, hb, cb), ("b", fb, lb, ha, ca)):
        if f is not None and lo > hi_other:
            gap = f[0] - c[0]
            half = math.sqrt((f[0] - f[1]) ** 2 + (c[2] - c[0]) ** 2)
            if gap - half > 0:
                return name
    return None


def wilson(k, n):
    p = k / n
    d = 1 + Z * Z / n
    c = (p + Z * Z / (2 * n)) / d
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return max(c - h, 0.0), min(c + h, 1.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=56)
    ap.add_argument("--repeats", default="2,3,4,5")
    ap.add_argument("--vary", default="none,spread,slow")
    ap.add_argument("--effects", default="0,10,25,50")
    ap.add_argument("--mu", type=float, default=9.6)
    ap.add_argument("--dur", type=float, default=60.0)
    ap.add_argument("--ladder", default="4,6,8,9,10,11,12,13,14,16")
    ap.add_argument("--truth", type=int, default=3000)
    a = ap.parse_args()
    ladder = [float(x) for x in a.ladder.split(",")]
    rules = ("current", "new")
    for vary in a.vary.split(","):
        rng = np.random.default_rng([a.seed, len(vary)])
        truth = [np.mean([repeat_rate(rng, lam, capacity(rng, a.mu, vary), a.dur)[0] for _ in range(a.truth)])
                 for lam in ladder]
        for reps in (int(x) for x in a.repeats.split(",")):
            for eff in (int(x) for x in a.effects.split(",")):
                rng = np.random.default_rng([a.seed, reps, eff, len(vary)])
                cov, wid, win, runs = {r: 0 for r in rules}, {r: [] for r in rules}, {r: 0 for r in rules}, 0
                for _ in range(a.pairs):
                    ra = run(rng, ladder, a.mu, a.dur, reps, vary)
                    rb = run(rng, ladder, a.mu * (1 + eff / 100), a.dur, reps, vary)
                    for rule in rules:
                        if eff == 0:
                            for rn in (ra, rb):
                                if rn["fig"] is not None and not rn["none"]:
                                    _, lo, hi = interval(*rn["pts"][rn["fig"]][:2], rule)
                                    cov[rule] += lo <= truth[rn["fig"]] <= hi
                                    wid[rule].append((hi - lo) / 2)
                        h = higher(ra, rb, rule)
                        win[rule] += (h is not None) if eff == 0 else (h == "b")
                    runs += 2
                for rule in rules:
                    k = win[rule]
                    lo, hi = wilson(k, a.pairs)
                    what = "A/A false winner" if eff == 0 else "power +%d %%" % eff
                    extra = ""
                    if eff == 0:
                        extra = "  coverage %.3f (%d figures)  median half-width %.3f req/s" % (
                            cov[rule] / max(len(wid[rule]), 1), len(wid[rule]), float(np.median(wid[rule])))
                    print("vary=%-6s R=%d %-7s %-16s %4d/%d = %.3f [%.3f, %.3f]%s" % (
                        vary, reps, rule, what, k, a.pairs, k / a.pairs, lo, hi, extra), flush=True)


if __name__ == "__main__":
    main()
