#!/usr/bin/python3
# Independent reference for tests/lua/test_design_effect.lua: the error rate's test between two
# runs of vllm bench serve files (queue_sim.py's: one load point a file), or of inference-perf
# runs with a per-request file (queue_sim_ip.py's, several stages), computed here from the
# files with numpy alone (no llmdlua code). Per load point (request_rate) and
# side: the failure indicator (errors[i] != "": 1, else 0) of every request sorted by
# start_times; its design effect, seqstats.py's deff (Geyer's initial positive sequence on
# the centred mid-ranks; 1 below 100 values or with one outcome only). d = the larger
# side's; a point with min(n_a, n_b) / d < 50 is left out (too dependent).
# Cochran-Mantel-Haenszel: z = sum(x_a - n_a m / N) / sqrt(sum d n_a n_b m (N - m) /
# (N^2 (N - 1))), > 0: A fails more. Importable (points, deff) without running.
"""err_ref.py DIR_A DIR_B -> JSON {z (null: no stratum with a failure), strata, deff: {rate: d},
dependent: [rate...]}"""
import glob
import json
import os
import sys

import numpy as np

from seqstats import deff


def ip_points(d):
    # an inference-perf run (queue_sim_ip.py's): the per-request file has no stage ids; its
    # requests sorted by start_time, the k-th block of stage_k's load_summary.count is stage k
    # (the stages are apart in time: a block ends before the next stage's first send)
    reqs = json.load(open(os.path.join(d, "per_request_lifecycle_metrics.json")))
    starts = np.array([r["start_time"] for r in reqs])
    fail = np.array([0.0 if r["error"] is None else 1.0 for r in reqs])[np.argsort(starts, kind="stable")]
    out, at, k = {}, 0, 0
    while os.path.exists(os.path.join(d, "stage_%d_lifecycle_metrics.json" % k)):
        st = json.load(open(os.path.join(d, "stage_%d_lifecycle_metrics.json" % k)))
        n = st["load_summary"]["count"]
        out[st["load_summary"]["requested_rate"]] = fail[at:at + n]
        at, k = at + n, k + 1
    assert at == len(reqs)
    return out


def points(d):
    if os.path.exists(os.path.join(d, "per_request_lifecycle_metrics.json")):
        return ip_points(d)
    out = {}
    for f in glob.glob(os.path.join(d, "*.json")):
        j = json.load(open(f))
        order = np.argsort(np.array(j["start_times"]), kind="stable")
        fail = np.array([1.0 if j["errors"][i] else 0.0 for i in order])
        out[j["request_rate"]] = fail
    return out


def main():
    pa, pb = points(sys.argv[1]), points(sys.argv[2])
    num = var = 0.0
    strata, deffs, dependent = 0, {}, []
    for rate in sorted(pa):
        fa, fb = pa[rate], pb[rate]
        d = max(deff(fa), deff(fb))
        deffs[str(rate)] = d
        n1, n2 = len(fa), len(fb)
        if min(n1, n2) / d < 50:
            dependent.append(rate)
            continue
        strata += 1
        a, m, n = fa.sum(), fa.sum() + fb.sum(), n1 + n2
        if 0 < m < n:
            num += a - n1 * m / n
            var += d * n1 * n2 * m * (n - m) / (n * n * (n - 1))
    # (z null where no stratum had a failure: no test, and JSON has no NaN)
    z = num / np.sqrt(var) if var > 0 else None
    print(json.dumps({"z": z, "strata": strata, "deff": deffs, "dependent": dependent}))


if __name__ == "__main__":
    main()
