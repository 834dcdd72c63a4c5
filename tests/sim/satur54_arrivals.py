#!/usr/bin/python3
"""satur54: does the arrivals' own noise read as a queue where the files give no send times or schedule?

Servings of tests/sim/audit53_harness.py's FIFO server (20 slots, 0.1 + 99 x 0.02 s a request: about
9.6 req/s), Poisson sends at each rate for --dur s, written as inference-perf's stage files without the
per-request file and (ipn) without load_summary.schedule_delay (inference-perf before v0.6.1), (ips) with
it, and as vLLM without --save-detailed (vagg), inferencemax (imax), guidellm with sample_size=0 (gl0) and
llm-d-benchmark's BR (br). Each folder's saturation is read by llmdlua (llmd.harness.extract,
llmd.loadpoints.saturation) and counted: "saturated" below capacity is a wrong number; "unknown" is N/A.

Run: /usr/bin/python3 tests/sim/satur54_arrivals.py LLMDLUA OUTDIR [--seeds 101-130] [--rates 2,4,6,8]
     (--rates 12,14 for servings past capacity: there "saturated" is the right call)
"""
import argparse, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("llmdlua")
ap.add_argument("out")
ap.add_argument("--seeds", default="101-130")
ap.add_argument("--rates", default="2,4,6,8")
ap.add_argument("--dur", default="30")
ap.add_argument("--harnesses", default="ipn,ips,vagg,imax,gl0,br")
a = ap.parse_args()
lo, hi = (int(x) for x in a.seeds.split("-"))
HS = a.harnesses.split(",")
LUA = os.path.join(a.out, "sat.lua")
os.makedirs(a.out, exist_ok=True)
with open(LUA, "w") as f:
    f.write('local harness, lp = require "llmd.harness", require "llmd.loadpoints"\n'
            'local s = lp.saturation(lp.points(harness.extract(arg[1])))\n'
            'print(s.point and "saturated " .. s.point or s.unknown and "unknown" or "kept_up")\n')
count = {h: {} for h in HS}
for seed in range(lo, hi + 1):
    d = os.path.join(a.out, "r%s_s%d" % (a.rates.replace(",", "_"), seed))
    if not os.path.isdir(d):
        subprocess.run([sys.executable, os.path.join(HERE, "audit53_harness.py"), d, "--rates", a.rates, "--dur",
                        a.dur, "--seed", str(seed), "--harnesses", "ip,gl0,vagg,imax,br"], check=True,
                       stdout=subprocess.DEVNULL)
        for v in ("ips", "ipn"):
            os.makedirs(os.path.join(d, v))
            for name in os.listdir(os.path.join(d, "ip")):
                if name == "per_request_lifecycle_metrics.json":
                    continue
                x = json.load(open(os.path.join(d, "ip", name)))
                if v == "ipn":
                    x["load_summary"].pop("schedule_delay", None)
                json.dump(x, open(os.path.join(d, v, name), "w"))
    for h in HS:
        r = subprocess.run([a.llmdlua, LUA, os.path.join(d, h)], capture_output=True, text=True)
        k = (r.stdout.strip().splitlines() or ["error"])[-1]
        count[h][k] = count[h].get(k, 0) + 1
for h in HS:
    print("%-5s %s" % (h, ", ".join("%s %d" % kv for kv in sorted(count[h].items()))))
