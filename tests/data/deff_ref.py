#!/usr/bin/python3
# Independent reference for tests/lua/test_design_effect.lua: the Mann-Whitney test between two
# one-stage inference-perf runs (their per_request_lifecycle_metrics.json), with each run's
# design effect in send order, computed here from the files with numpy alone (no llmdlua
# code): requests sorted by start_time; a kind's values are the requests that have it
# (TTFT = first token time - start, needs more than one token time; TPOT = (last - first) /
# (output_tokens - 1); E2E = end - start; NTPOT = E2E / output_tokens, 0 without one); each
# run's design effect: seqstats.py's deff (Geyer's initial positive sequence on the centred
# mid-ranks; 1 below 100 values). The test's variance (tie-corrected, n1 n2 / 12 ((N + 1) -
# sum(t^3 - t) / (N (N - 1)))) times the larger side's design effect; z = (U_A - n1 n2 / 2) /
# sqrt(var), > 0: A's values larger. ITL: every gap of the successes pooled, z divided by the
# square root of gaps per request and of the larger side's TPOT design effect (a request's mean
# gap).
"""deff_ref.py DIR_A DIR_B KIND (ttft | latency | tpot | ntpot | itl) -> JSON {z, deff_a, deff_b, n_a, n_b}
(and but for itl mean_pct, mean_lo, mean_hi: the mean row's effect and its 95 % interval)"""
import json
import math
import os
import sys

import numpy as np

from seqstats import deff, midranks, value_deff


def load(d):
    reqs = json.load(open(os.path.join(d, "per_request_lifecycle_metrics.json")))
    reqs = [r for r in reqs if r.get("error") is None]
    reqs.sort(key=lambda r: r["start_time"])
    return reqs


def values(reqs, kind):
    out = []
    for r in reqs:
        rm = r["info"]["response_metrics"]
        times = rm.get("output_token_times") or []
        if kind == "latency":
            out.append(r["end_time"] - r["start_time"])
        elif kind == "ttft" and len(times) > 1:
            out.append(times[0] - r["start_time"])
        elif kind == "tpot" and len(times) > 1 and rm["output_tokens"] > 1:
            out.append((times[-1] - times[0]) / (rm["output_tokens"] - 1))
        elif kind == "ntpot":
            n = rm["output_tokens"]
            out.append((r["end_time"] - r["start_time"]) / n if n > 0 else 0.0)
    return np.array(out, float)


def mw(a, b):
    n1, n2 = len(a), len(b)
    allv = np.concatenate([a, b])
    r = midranks(allv)
    u = r[:n1].sum() - n1 * (n1 + 1) / 2
    n = n1 + n2
    _, t = np.unique(allv, return_counts=True)
    var = n1 * n2 / 12 * ((n + 1) - float(np.sum(t.astype(float) ** 3 - t)) / (n * (n - 1)))
    return u, var


def main():
    da, db, kind = sys.argv[1:4]
    ra, rb = load(da), load(db)
    if kind == "itl":
        def gaps(reqs):
            return np.concatenate([np.diff(r["info"]["response_metrics"]["output_token_times"]) for r in reqs])
        ga, gb = gaps(ra), gaps(rb)
        u, var = mw(ga, gb)
        d_a, d_b = deff(values(ra, "tpot")), deff(values(rb, "tpot"))
        m = (len(ga) + len(gb)) / (len(ra) + len(rb))
        z = (u - len(ga) * len(gb) / 2) / np.sqrt(var) / np.sqrt(m) / np.sqrt(max(1.0, d_a, d_b))
        print(json.dumps({"z": z, "deff_a": d_a, "deff_b": d_b, "n_a": len(ra), "n_b": len(rb)}))
        return
    a, b = values(ra, kind), values(rb, kind)
    d_a, d_b = deff(a), deff(b)
    u, var = mw(a, b)
    d = max(1.0, d_a, d_b)
    z = (u - len(a) * len(b) / 2) / np.sqrt(var * d)
    # the mean row's effect: B's mean against A's, 100 (fb / fa - 1) (fixa43), its 95 %
    # interval that of the ratio of the means (fixi42): on the log scale, log(fb / fa) -+
    # 1.959964 sqrt(se_a^2 / fa^2 + se_b^2 / fb^2), each mean's standard error sd / sqrt(n /
    # dm), dm the larger of the values' own design effects (seqstats.value_deff, task fixj44:
    # not the ranks'), each end back as 100 (exp(x) - 1)
    fa, fb = a.mean(), b.mean()
    dm = max(1.0, value_deff(a), value_deff(b))
    sl = math.sqrt(a.var(ddof=1) / (len(a) / dm) / fa ** 2 + b.var(ddof=1) / (len(b) / dm) / fb ** 2)
    L = math.log(fb / fa)
    print(json.dumps({"z": z, "deff_a": d_a, "deff_b": d_b, "n_a": len(a), "n_b": len(b),
                      "mean_pct": 100 * (fb / fa - 1), "mean_lo": 100 * (math.exp(L - 1.959964 * sl) - 1),
                      "mean_hi": 100 * (math.exp(L + 1.959964 * sl) - 1)}))


if __name__ == "__main__":
    main()
