#!/usr/bin/python3
"""truth55: does compare.lua's verdict point the right way on CONCURRENCY ladders, where the truth is known?

Each trial: one serving A and one B from tests/sim/audit53_harness.py --concurrency (closed loops of C users
for --dur s against a FIFO server of K slots; every harness's files from the same requests: vllm bench serve
with --max-concurrency (vllm, vagg), inference-perf concurrent stages (ip), guidellm concurrent (gl, gl0),
inferencemax (imax), llm-d-benchmark's BR (br)), compared by LLMDLUA compare.lua per harness at --slo.

Scenarios (the truth, by construction; A: 20 slots, 0.1 + 99 x 0.02 s a request, 9.6 req/s at most):
  better    B 23 slots, same speed: equal latency below 20 users, 15 % more req/s at the SLO    (right: b)
  equal     B = A (A/A): any winner named is a false winner                                      (right: none)
  crossing  B 14 slots, 20 % faster (0.08 + 99 x 0.016 s): B lower latency and 25 % more req/s at
            4-12 users, but saturates at 8.4 req/s, A at 9.6: A sustains more within the SLO    (right: a)
For every trial and harness: verdict kind, the run it names (higher), and for the crossing whether the
report's Summary says that B is better anywhere (a crossing must not read as one winner everywhere).

Run: /usr/bin/python3 tests/sim/truth55_ladders.py LLMDLUA OUTDIR --scenario better [--trials 20] [--first 1]
     [--levels 4,8,12,16,20,24,28,32] [--dur 30] [--repeat 2] [--slo ttft_p90_ms=500]
     [--harnesses vllm,vagg,ip,gl,gl0,imax,br]
"""
import argparse, json, os, re, shutil, subprocess, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "audit53_harness.py")
SCEN = {"better": ("", "--slots 23", "b"), "equal": ("", "", None),
        "crossing": ("", "--slots 14 --ttft0 0.08 --tpot 0.016", "a")}
ap = argparse.ArgumentParser()
ap.add_argument("llmdlua")
ap.add_argument("out")
ap.add_argument("--scenario", choices=sorted(SCEN), required=True)
ap.add_argument("--trials", type=int, default=20)
ap.add_argument("--first", type=int, default=1)
ap.add_argument("--levels", default="4,8,12,16,20,24,28,32")
ap.add_argument("--dur", default="30")
ap.add_argument("--repeat", default="2")
ap.add_argument("--slo", default="ttft_p90_ms=500")
ap.add_argument("--harnesses", default="vllm,vagg,ip,gl,gl0,imax,br")
a = ap.parse_args()
L = os.path.abspath(a.llmdlua)
HS = a.harnesses.split(",")
xa, xb, right = SCEN[a.scenario]
os.makedirs(a.out, exist_ok=True)


def gen(d, seed, extra):
    subprocess.run([sys.executable, GEN, d, "--concurrency", "--rates", a.levels, "--dur", a.dur, "--repeat",
                    a.repeat, "--seed", str(seed), "--harnesses", ",".join(HS)] + extra.split(),
                   check=True, stdout=subprocess.DEVNULL)


def compare(da, db, ws):
    os.makedirs(ws, exist_ok=True)
    out = subprocess.run([L, "compare.lua", "--a", da, "--b", db, "--a-label", "A", "--b-label", "B", "--parent", ws,
                          "--slo", a.slo, "--quiet"], capture_output=True, text=True)
    w = [x[len("Workspace: "):] for x in out.stdout.splitlines() if x.startswith("Workspace: ")]
    if out.returncode != 0 or not w:
        return {"error": (out.stderr.strip() or out.stdout.strip())[:400], "rc": out.returncode}
    doc = json.load(open(os.path.join(w[0], "comparison.json")))
    md = open(os.path.join(w[0], "comparison_report.md")).read()
    ve = doc["verdict"]
    summary = (re.search(r"## Summary\n\n(.*?)\n\n## ", md, re.S) or [None, ""])[1]
    r = {"kind": ve.get("kind"), "higher": ve.get("higher"), "reason": (ve.get("reason") or "")[:200],
         "banner": "different load ladders" in md,
         # the Summary names B better somewhere (lower latencies at the loads both sustained, or one load's)
         "summary_b_better": "B's values are lower in" in summary or bool(re.search(
             r"B's [^.;]*? is [0-9.,]+ % lower than A's", summary)),
         "summary": summary[:600]}
    shutil.rmtree(w[0])
    return r


rows = []
for t in range(a.first, a.first + a.trials):
    da, db = os.path.join(a.out, "t%d_A" % t), os.path.join(a.out, "t%d_B" % t)
    gen(da, 1000 + t, xa)
    gen(db, 5000 + t, xb)
    res = {h: compare(os.path.join(da, h), os.path.join(db, h), os.path.join(a.out, "ws")) for h in HS}
    rows.append({"trial": t, "res": res})
    print(json.dumps(rows[-1]), flush=True)
    shutil.rmtree(da), shutil.rmtree(db)

for h in HS:
    rs = [r["res"][h] for r in rows]
    sys.stderr.write("%s %s: %d trials, A named %d, B named %d, none %d, errors %d (right: %s)\n" % (
        a.scenario, h, len(rs), sum(x.get("higher") == "a" for x in rs), sum(x.get("higher") == "b" for x in rs),
        sum(not x.get("higher") and "error" not in x for x in rs), sum("error" in x for x in rs), right))
    for k, n in Counter(x.get("kind") or x.get("error", "")[:60] for x in rs if not x.get("higher")).most_common():
        sys.stderr.write("  %3d  %s\n" % (n, k))
