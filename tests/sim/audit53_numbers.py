#!/usr/bin/python3
"""Check llmdlua's per-load figures for each harness against numpy on the generated requests
(audit53_harness.py's truth.json). Usage: audit53_numbers.py DATA_DIR COMPARISON_JSON_BY_HARNESS...
(each argument h=path/to/comparison.json; DATA_DIR's run is the comparison's A)."""
import json, sys
import numpy as np
truth = json.load(open(sys.argv[1] + "/truth.json"))["points"]
KEYS = [("ttft_p50_ms", "ttft_s", 50), ("ttft_p90_ms", "ttft_s", 90), ("ttft_p99_ms", "ttft_s", 99),
        ("latency_p90_ms", "e2e_s", 90), ("tpot_p90_ms", "tpot_s", 90), ("itl_p90_ms", None, 90),
        ("ttft_mean_ms", "ttft_s", None)]
bad = 0
for arg in sys.argv[2:]:
    h, path = arg.split("=", 1)
    doc = json.load(open(path))
    pts = doc["load_points"]["a"]
    for p in pts:
        tr = [t for t in truth if abs(t["rate"] - p["offered"]) < 1e-9]
        v = p["values"]
        for key, arr, q in KEYS:
            if arr is None:
                exp = np.mean([t["itl_p"]["90"] * 1000 for t in tr]) if len(tr) == 1 else None
            else:
                x = np.concatenate([np.array(t[arr]) * 1000 for t in tr])
                exp = float(x.mean()) if q is None else float(np.percentile(x, q))
            got = v.get(key)
            if exp is None:
                continue
            if got is None:
                print("%-5s %5g %-15s N/A (%s) expected %.2f" % (h, p["offered"], key, (p.get("na") or {}).get(key), exp))
                continue
            rel = abs(got - exp) / exp
            flag = "  <-- %.2f %%" % (rel * 100) if rel > 0.005 else ""
            bad += bool(flag)
            if flag or "-v" in sys.argv[0:1]:
                print("%-5s %5g %-15s got %.3f expected %.3f%s" % (h, p["offered"], key, got, exp, flag))
        # the harness's own throughput: successes / window (first send to last answer)
        if len(tr) == 1:
            t = tr[0]
            exp = t["ok"] / t["window_s"]
            got = p.get("harness_rps")
            if got is None or abs(got - exp) / exp > 0.005:
                print("%-5s %5g harness_rps got %s expected %.3f" % (h, p["offered"], got, exp)); bad += 1
print("figures off by > 0.5 %%: %d" % bad)
