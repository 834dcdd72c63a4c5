#!/usr/bin/python3
# Independent reference for tests/lua/test_capacity_intervals.lua (task fixg46): a one-run load
# point's percentile SLO interval from one vLLM benchmark file of tests/data/queue_sim.py, numpy
# and tests/data/seqstats.py alone (no llmdlua code): TTFTs in send order (start_times); the
# ranks' design effect (seqstats.deff) and the percentile's indicator's (seqstats.quantile_deff,
# Geyer's initial positive sequence on 1{x <= the value at rank ceil(n q)}), the larger read;
# unknown below 50 effective requests (n / deff); else the order statistics at 1-based ranks
# floor(n q - h) and ceil(n q + h), h = 1.959964 sqrt(n deff q (1 - q)), 0 / inf off the sample.
"""pct_ci_ref.py FILE PCT -> JSON {n, deff_ranks, deff_indicator, deff, lo, hi} (ms; lo, hi null: unknown)"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqstats import deff, quantile_deff  # noqa: E402


def main():
    d = json.load(open(sys.argv[1]))
    pct = float(sys.argv[2])
    order = np.argsort(np.array(d["start_times"], float), kind="stable")
    x = np.array(d["ttfts"], float)[order]
    n, q = len(x), pct / 100
    dr, dq = deff(x), quantile_deff(x, pct)
    dd = max(dr, dq)
    out = {"n": n, "deff_ranks": dr, "deff_indicator": dq, "deff": dd, "lo": None, "hi": None}
    if n / dd >= 50:
        s = np.sort(x)
        h = 1.959964 * math.sqrt(n * dd * q * (1 - q))
        rl, ru = math.floor(n * q - h), math.ceil(n * q + h)
        out["lo"] = s[rl - 1] * 1000 if rl >= 1 else 0.0
        out["hi"] = s[ru - 1] * 1000 if ru <= n else math.inf
    print(json.dumps(out))


if __name__ == "__main__":
    main()
