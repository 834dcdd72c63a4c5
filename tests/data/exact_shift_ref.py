#!/usr/bin/python3
# Independent reference for tests/lua/test_exact_repeats_interval.lua (task fixc52 #4): the
# exact two-sided Mann-Whitney test of repeats one side of which is constant, and the interval
# that test keeps (the shifts d of B's values it does not refuse at 5 %), on the values'
# natural logs; no llmdlua code.
#   argv: a JSON list of cases [[A's values, B's values], ...] -> a JSON list of {p, pct, lo,
#   hi} (hi, lo null where every shift is kept), 100 (exp(x) - 1) of each.
# The p by brute force: every split of the pooled mid-ranks (itertools.combinations), not a
# recursion over rank sums; the mid-ranks by counting the values below and equal, a shifted
# B value y - d compared with an A value x as y - x with d (so y - x == d is a tie). The
# interval: the p tried at every difference y - x, inside every gap between two and beyond
# both ends, the kept set's hull; the estimate the median of the differences (Hodges-Lehmann).
import itertools
import json
import math
import sys


def p_value(xs, ys, d):
    # pooled: (side, value); comparisons in the shifted frame
    pool = [("a", x) for x in xs] + [("b", y) for y in ys]

    def cmp(e, f):
        (se, ve), (sf, vf) = e, f
        if se == sf:
            return (ve > vf) - (ve < vf)
        if se == "b":  # e is y - d against x = vf
            diff = ve - vf
            return (diff > d) - (diff < d)
        diff = vf - ve  # f is y - d against x = ve
        return (d > diff) - (d < diff)

    n = len(pool)
    ranks = []
    for e in pool:
        below = sum(1 for f in pool if cmp(f, e) < 0)
        equal = sum(1 for f in pool if cmp(f, e) == 0)
        ranks.append(below + (equal + 1) / 2)
    nb = len(ys)
    w = sum(ranks[len(xs):])
    le = ge = total = 0
    for comb in itertools.combinations(range(n), nb):
        s = sum(ranks[i] for i in comb)
        total += 1
        if s <= w + 1e-9:
            le += 1
        if s >= w - 1e-9:
            ge += 1
    return min(1.0, 2 * min(le, ge) / total)


def case(a, b):
    xs, ys = [math.log(v) for v in a], [math.log(v) for v in b]
    diffs = sorted(y - x for x in xs for y in ys)
    m = len(diffs)
    hl = diffs[(m - 1) // 2] if m % 2 else (diffs[m // 2 - 1] + diffs[m // 2]) / 2
    distinct = sorted(set(diffs))
    cands = [(distinct[0] - 1, -math.inf, distinct[0])]
    for i, d in enumerate(distinct):
        cands.append((d, d, d))
        if i + 1 < len(distinct):
            cands.append(((d + distinct[i + 1]) / 2, d, distinct[i + 1]))
    cands.append((distinct[-1] + 1, distinct[-1], math.inf))
    kept = [(lo, hi) for (d, lo, hi) in cands if p_value(xs, ys, d) >= 0.05]
    lo, hi = min(k[0] for k in kept), max(k[1] for k in kept)
    pct = lambda v: 100 * (math.exp(v) - 1)
    bounded = math.isfinite(lo) and math.isfinite(hi)
    return {"p": p_value(xs, ys, 0.0), "pct": pct(hl), "lo": pct(lo) if bounded else None,
            "hi": pct(hi) if bounded else None}


print(json.dumps([case(a, b) for a, b in json.loads(sys.argv[1])]))
