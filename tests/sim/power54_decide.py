#!/usr/bin/python3
"""Power and A/A false winners of compare.lua's verdict on rate ladders (task power54), and which rule
withheld each verdict that named nobody.

Each trial: one serving A and one B from tests/sim/audit53_harness.py (the same generator audit53 used:
a FIFO server of --slots slots, Poisson arrivals, every harness's files from the same requests), compared
by LLMDLUA compare.lua per harness at --slo. A and B take their own options, so an A/A pair at a failure
rate (--a "--fail 0.05" --b "--fail 0.05") is as easy as a B with more slots (--b "--slots 25").

Prints one JSON line per trial (per harness: verdict kind, higher, the rule that withheld it), then a table
per harness: winners named A / B, and rule -> count for the verdicts that named nobody.

Run: /usr/bin/python3 tests/sim/power54_decide.py LLMDLUA OUTDIR --b "--slots 25" --trials 20
     [--a "..."] [--rates 4,6,8,9,10,11] [--dur 30] [--repeat 2] [--slo ttft_p90_ms=500] [--harnesses vllm,vagg]
     [--first 1] [--right b]
"""
import argparse, json, os, shlex, shutil, subprocess, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "audit53_harness.py")
ap = argparse.ArgumentParser()
ap.add_argument("llmdlua")
ap.add_argument("out")
ap.add_argument("--a", default="", help="generator options of A")
ap.add_argument("--b", default="", help="generator options of B")
ap.add_argument("--trials", type=int, default=10)
ap.add_argument("--first", type=int, default=1)
ap.add_argument("--rates", default="4,6,8,9,10,11")
ap.add_argument("--dur", default="30")
ap.add_argument("--repeat", default="2")
ap.add_argument("--slo", default="ttft_p90_ms=500")
ap.add_argument("--harnesses", default="vllm,vagg")
ap.add_argument("--right", default=None, help="the run that truly sustains more (a, b), none for A/A")
a = ap.parse_args()
L = os.path.abspath(a.llmdlua)
HS = a.harnesses.split(",")
os.makedirs(a.out, exist_ok=True)


def gen(d, seed, extra):
    subprocess.run([sys.executable, GEN, d, "--rates", a.rates, "--dur", a.dur, "--repeat", a.repeat,
                    "--seed", str(seed), "--harnesses", ",".join(HS)] + shlex.split(extra),
                   check=True, stdout=subprocess.DEVNULL)


def end_key(c):
    """What set one end of a capacity range: the SLO metric it crossed (limiting), or its kind."""
    if not isinstance(c, dict):
        return "none"
    return c.get("limiting") or c.get("kind") or "?"


def rule(doc):
    """Which rule withheld a verdict that named nobody (a short code)."""
    ve = doc["verdict"]
    kind, reason = ve.get("kind") or "", ve.get("reason") or ""
    cap = doc.get("capacity") or {}
    ev = cap.get("evidence") or {}
    if ev.get("token_explained") or ev.get("token_same"):
        return "token rule"
    if "too coarse" in reason:
        return "load steps too coarse (means' brackets overlap)"
    if kind == "about the same":
        return "about the same (bounded within threshold)"
    if "practical threshold" in reason or kind == "at least as high":
        return "below practical threshold"
    ca, cb = cap.get("a") or {}, cap.get("b") or {}
    ia, ib = ca.get("interval"), cb.get("interval")
    def fig(c):  # a capacity below the lowest load tried is below every figure
        return 0.0 if c.get("kind") == "below_lowest" else c.get("rps")
    if ia and ib and fig(ca) is not None and fig(cb) is not None:
        hi, lo = (ib, ia) if fig(cb) >= fig(ca) else (ia, ib)
        # the overlap: the higher run's bad-end capacity (upper_ends) against the lower run's good-end one
        return "repeats' intervals overlap: higher's low end by %s, lower's high end by %s" % (
            end_key(hi.get("upper_ends")), end_key(lo.get("lower_ends")))
    if ia or ib:
        return "repeats' intervals overlap (a capacity without a figure: %s / %s)" % (ca.get("kind"), cb.get("kind"))
    return "other: " + reason[:80]


def compare(da, db, ws):
    os.makedirs(ws, exist_ok=True)
    out = subprocess.run([L, "compare.lua", "--a", da, "--b", db, "--a-label", "A", "--b-label", "B", "--parent", ws,
                          "--slo", a.slo, "--quiet"], capture_output=True, text=True)
    w = [x[len("Workspace: "):] for x in out.stdout.splitlines() if x.startswith("Workspace: ")]
    if out.returncode != 0 or not w:
        return {"error": (out.stderr.strip() or out.stdout.strip())[:400], "rc": out.returncode}
    doc = json.load(open(os.path.join(w[0], "comparison.json")))
    ve = doc["verdict"]
    cap = doc.get("capacity") or {}
    r = {"kind": ve.get("kind"), "higher": ve.get("higher"), "reason": ve.get("reason"), "settle": ve.get("settle"),
         "cap_a": (cap.get("a") or {}).get("text"), "cap_b": (cap.get("b") or {}).get("text"),
         "range_a": ((cap.get("a") or {}).get("interval") or {}).get("text"),
         "range_b": ((cap.get("b") or {}).get("interval") or {}).get("text")}
    if not ve.get("higher"):
        r["rule"] = rule(doc)
    shutil.rmtree(w[0])
    return r


rows = []
for t in range(a.first, a.first + a.trials):
    da = os.path.join(a.out, "t%d_A" % t)
    db = os.path.join(a.out, "t%d_B" % t)
    gen(da, 1000 + t, a.a)
    gen(db, 5000 + t, a.b)
    res = {h: compare(os.path.join(da, h), os.path.join(db, h), os.path.join(a.out, "ws")) for h in HS}
    rows.append({"trial": t, "res": res})
    print(json.dumps(rows[-1]), flush=True)
    shutil.rmtree(da), shutil.rmtree(db)

for h in HS:
    rs = [r["res"][h] for r in rows]
    sys.stderr.write("%s: %d trials, A named %d, B named %d (right: %s)\n" % (
        h, len(rs), sum(x.get("higher") == "a" for x in rs), sum(x.get("higher") == "b" for x in rs), a.right))
    for k, n in Counter(x.get("rule") or x.get("error", "")[:60] for x in rs if not x.get("higher")).most_common():
        sys.stderr.write("  %3d  %s\n" % (n, k))
