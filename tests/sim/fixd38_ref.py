#!/usr/bin/python3
"""Expected figures for tests/lua/test_result_consistency.lua (task fixd38, audit38 finding 1).

tests/data/fixd38/IPS and IPS2: two 2-stage inference-perf runs (40 requests a stage at 2 and
4 req/s; audit38's files). IPS's stage_1_lifecycle_metrics.json has its TTFT p90 set 5 % high
(above that file's own p95); IPS2's stage files agree with its requests. The requests are
placed in stages as inference-perf runs them: the first 40 by start time are stage 0.

Computed here from the per-request files alone with numpy's linear percentile (inference-perf's
own), independent of llmdlua's code: each stage's TTFT and E2E p90 (successes only), and what
the stage files say.

Run: /usr/bin/python3 tests/sim/fixd38_ref.py
"""
import json
import os

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "fixd38")

for run in ("IPS", "IPS2"):
    reqs = json.load(open(os.path.join(HERE, run, "per_request_lifecycle_metrics.json")))
    reqs.sort(key=lambda r: r["start_time"])
    for i in range(2):
        st = reqs[40 * i:40 * (i + 1)]
        ok = [r for r in st if not r["error"]]
        ttft = [r["info"]["response_metrics"]["output_token_times"][0] - r["start_time"] for r in ok]
        e2e = [r["end_time"] - r["start_time"] for r in ok]
        tt = [r["info"]["response_metrics"]["output_token_times"] for r in ok]
        tpot = [(t[-1] - t[0]) / (r["info"]["response_metrics"]["output_tokens"] - 1) for t, r in zip(tt, ok)]
        f = json.load(open(os.path.join(HERE, run, "stage_%d_lifecycle_metrics.json" % i)))
        lat = f["successes"]["latency"]
        print("%s stage %d: ok %d failed %d; TTFT p90 %.4f ms (stage file %.4f), p50 %.4f, p99 %.4f; "
              "E2E p90 %.4f ms (stage file %.4f); TPOT p90 %.4f ms (stage file %.4f)" % (
                  run, i, len(ok), len(st) - len(ok), np.percentile(ttft, 90) * 1e3,
                  lat["time_to_first_token"]["p90"] * 1e3, np.percentile(ttft, 50) * 1e3,
                  np.percentile(ttft, 99) * 1e3, np.percentile(e2e, 90) * 1e3,
                  lat["request_latency"]["p90"] * 1e3, np.percentile(tpot, 90) * 1e3,
                  lat["time_per_output_token"]["p90"] * 1e3))
