#!/usr/bin/env python3
"""fixb52: A/A pairs of one server failing FAIL % of its requests at random, no error-rate SLO
given (the default 5 % failure limit applies): how often compare.lua's Verdict names an order.

  fixb52_failure_limit.py LLMDLUA OUTDIR [--pairs 20] [--fail 5] [--mode slo|sustained]

Each pair: two runs of tests/sim/fixb52_tokens.py (same server, 200 output tokens a request,
lognormal sigma 0.3, seeds 2k+1 and 2k+2), loads 4, 6, 8, 10, 12 req/s of 300 requests,
each request failing with probability FAIL % (an HTTP 503). mode slo: --slo
latency_p90_ms=8000 (capacity within it and the default failure limit); sustained: no SLO,
answers capped at 3000 output tokens/s (max sustained throughput). Prints each pair's Verdict
kind and the count of pairs whose Verdict names a run ("A sustains more load" / "B ...").
The truth is one server: every named order is a false one.
"""
import argparse, os, re, subprocess, sys, glob

ap = argparse.ArgumentParser()
ap.add_argument("llmdlua"); ap.add_argument("out")
ap.add_argument("--pairs", type=int, default=20)
ap.add_argument("--fail", type=float, default=5.0)
ap.add_argument("--mode", default="slo")
a = ap.parse_args()
gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixb52_tokens.py")
named = 0
for k in range(a.pairs):
    d = os.path.join(a.out, "%s-%02d" % (a.mode, k))
    extra = ["--sat", "--rates", "10,12,14,16,18"] if a.mode == "sustained" else []
    for side, seed in (("A", 2 * k + 1), ("B", 2 * k + 2)):
        if not os.path.isdir(os.path.join(d, side)):
            subprocess.run([sys.executable, gen, os.path.join(d, side), "200", str(seed), "--fail", str(a.fail)]
                           + extra, check=True)
    ws = os.path.join(d, "ws-" + re.sub(r"\W", "_", a.llmdlua))
    subprocess.run(["rm", "-rf", ws]); os.makedirs(ws)
    argv = [a.llmdlua, "compare.lua", "--a", os.path.join(d, "A"), "--b", os.path.join(d, "B"),
            "--a-label", "A", "--b-label", "B", "--parent", ws, "--quiet"]
    if a.mode == "slo":
        argv += ["--slo", "latency_p90_ms=8000"]
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    md = glob.glob(os.path.join(ws, "*", "comparison_report.md"))
    line = ""
    if md:
        for l in open(md[0]):
            if l.startswith("**Verdict:**"):
                line = l.strip(); break
    is_named = bool(re.match(r"\*\*Verdict:\*\* [AB] sustains more load", line))
    named += is_named
    print("%02d %s %s" % (k, "NAMED" if is_named else "-", line[:230]), flush=True)
print("pairs %d, a run named in %d" % (a.pairs, named))
