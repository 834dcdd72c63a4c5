#!/usr/bin/python3
"""Expected figures for tests/lua/test_harness.lua (task fixb39, item 1).

tests/data/fixd38/IPS2: a 2-stage inference-perf run (40 requests a stage at 2 and 4 req/s).
The requests are placed in stages as inference-perf runs them: the first 40 by start time are
stage 0. Computed here from the per-request file alone (numpy's linear percentile, inference-
perf's own), independent of llmdlua's code: each stage's counts, window (last end - first start
over every request of the stage, inference-perf's benchmark_time_seconds), request rate
(successes / window), output tokens (server usage, else the client's count), ITL (every gap
between a success's consecutive output_token_times, pooled), NTPOT ((end - start) / the client's
output token count) and how many TPOT samples the stage has.

Run: /usr/bin/python3 tests/sim/fixb39_ref.py
"""
import json
import os

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "fixd38")

reqs = json.load(open(os.path.join(HERE, "IPS2", "per_request_lifecycle_metrics.json")))
reqs.sort(key=lambda r: r["start_time"])
for i in range(2):
    st = reqs[40 * i:40 * (i + 1)]
    ok = [r for r in st if not r["error"]]
    window = max(r["end_time"] for r in st) - min(r["start_time"] for r in st)
    rm = [r["info"]["response_metrics"] for r in ok]
    out = sum((m.get("server_usage") or {}).get("completion_tokens") or m["output_tokens"] for m in rm)
    gaps = [b - a for m in rm for a, b in zip(m["output_token_times"], m["output_token_times"][1:])]
    ntpot = [(r["end_time"] - r["start_time"]) / m["output_tokens"] for r, m in zip(ok, rm)]
    tpot = [m for m in rm if len(m["output_token_times"]) > 1 and m["output_tokens"] > 1]
    print("IPS2 stage %d: ok %d failed %d; window %.6f s; %.6f req/s; output tokens %d; ITL mean %.6f ms, "
          "p90 %.6f ms, %d gaps; NTPOT mean %.6f ms; TPOT samples %d" % (
              i, len(ok), len(st) - len(ok), window, len(ok) / window, out, np.mean(gaps) * 1e3,
              np.percentile(gaps, 90) * 1e3, len(gaps), np.mean(ntpot) * 1e3, len(tpot)))
