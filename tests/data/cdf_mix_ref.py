#!/usr/bin/python3
"""Reference for the CDF charts' mix of load points (fixa42): the end-to-end latency
quantiles of the requests of some stages of an inference-perf per-request file, each stage
weighted equally, computed apart from llmdlua.

usage: cdf_mix_ref.py PER_REQUEST_JSON COUNTS USE QS
  COUNTS  the stages' request counts, in send order (the file holds them stage by stage)
  USE     the stages to mix (0-based), e.g. 0,1
  QS      the percentiles wanted, e.g. 25,50,90,99

Prints JSON {"grid": {q: ms}, "pooled": {q: ms}}: "grid" is the mix as the chart draws it
(each stage's numpy linear percentiles at p0..p99, p99.5, p99.9, p100; the share at or below
x linear between them; the mix's share the mean of the stages'; its quantile q the least x
whose share reaches q, by bisection); "pooled" is numpy's linear percentile of the stages'
requests taken together (the same thing where the stages have equal counts, up to the
grid's interpolation)."""
import json
import sys

import numpy as np

GRID = [float(q) for q in range(100)] + [99.5, 99.9, 100.0]


def share(grid, x):
    """The share (%) of a stage at or below x: linear between its grid's points."""
    if x < grid[0]:
        return 0.0
    i = 0
    while i < len(grid) - 1 and grid[i + 1] <= x:
        i += 1
    if i == len(grid) - 1:
        return GRID[i]
    a, b = grid[i], grid[i + 1]
    return GRID[i] + (GRID[i + 1] - GRID[i]) * (x - a) / (b - a)


def main():
    path, counts, use, qs = sys.argv[1:5]
    counts = [int(n) for n in counts.split(",")]
    use = [int(s) for s in use.split(",")]
    qs = [float(q) for q in qs.split(",")]
    with open(path) as f:
        recs = json.load(f)
    stages, i = [], 0
    for n in counts:
        stages.append(recs[i:i + n])
        i += n
    samples = [np.array([(r["end_time"] - r["start_time"]) * 1000.0 for r in stages[s]]) for s in use]
    grids = [list(np.percentile(xs, GRID, method="linear")) for xs in samples]
    lo, hi = min(g[0] for g in grids), max(g[-1] for g in grids)
    out = {"grid": {}, "pooled": {}}
    pooled = np.concatenate(samples)
    for q in qs:
        a, b = lo, hi
        for _ in range(200):
            mid = (a + b) / 2
            if sum(share(g, mid) for g in grids) / len(grids) >= q - 1e-9:
                b = mid
            else:
                a = mid
        out["grid"]["%g" % q] = b
        out["pooled"]["%g" % q] = float(np.percentile(pooled, q, method="linear"))
    print(json.dumps(out))


main()
