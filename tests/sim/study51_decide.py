#!/usr/bin/python3
"""A/A false capacity winners and power on a 20 % capacity gap, with each candidate remedy (task study51).

capa38_sim.py's pairs (tests/data/queue_sim.py, 2.1 s a request, 20 slots: capacity 9.52 req/s;
loads 2,4,...,12 req/s of 60 s each, one run a load) compared by llmdlua compare.lua at one TTFT
p90 SLO, reading verdict.higher from comparison.json:
- A/A: 20 slots against 20, seeds 2i-1 and 2i (capa38_sim.py's): every winner named is false;
- A/B: 20 slots (seed 1000+s) against 24 (seed 2000+s): capacity 11.43, 20 % more; the right
  winner is B.
Each pair is compared once a variant, the runs made once: LLMDLUA_STUDY51 = base (as main),
nbr, relax1, relax2, x6, bm5 (llmd.loadpoints' and llmd.runmodel's study51 hook, branch
study51-hook, never merged: the design effect of each one-run load's percentile SLO raised to the
remedy's, bm5 with Student's t; tests/sim/study51_remedy.py says each; on main every variant is
base). Also how many named orders were marked narrow_near_capacity, and, from the A/A pairs, how
many runs' capacity low end (the last load of a certain pass, noise.upper_ends.passing_offered)
lies above the true capacity (the highest load whose p90 over the A/A runs pooled meets the SLO).

study51 (TTFT p90 SLO; base = as main):
- 60 s loads (the defaults): A/A 0 of 30 winners at 500 and at 1000 ms with base, nbr, relax1,
  relax2 and x6; 24 against 20 slots: 0 of 20 for each. --small 10 --big 20 (a 100 % gap): base
  14 of 20 at 500 ms (15 at 1000), nbr 1 (1), bm5 7, x6 3, relax1 0;
- --dur 120 --outtok 50 --rhos 0.5,0.6,0.7,0.8,0.85,0.9,0.95,1.05 (study50_cov.py's design):
  A/A 0 of 20 winners with every variant at 500 ms (base, nbr, relax1, x6, bm5) and at 300
  (base, nbr, relax1, x6); 24 against 20 slots at 500 ms: base 2 of 20, nbr 2, relax1 0, x6 0,
  bm5 0; at 300 ms 0 for each. Capacity low end above the true one (--aa 15 --ab 0): base 1 of 30
  at 500 ms, 0 of 30 at 300; nbr 0 and 0; bm5 (--aa 20) 0 of 40 at 500.

Run: /usr/bin/python3 tests/sim/study51_decide.py LLMDLUA [--aa 30] [--ab 20] [--slo ttft_p90_ms=500]
     [--variants base,nbr,relax1,x6] [--dur 60] [--rates 2,4,6,8,10,12 | --rhos 0.5,...] [--small 20] [--big 24]
     [--outtok 100]
"""
import argparse, json, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SIM = os.path.join(HERE, "..", "data", "queue_sim.py")
ap = argparse.ArgumentParser()
ap.add_argument("llmdlua")
ap.add_argument("--aa", type=int, default=30)
ap.add_argument("--ab", type=int, default=20)
ap.add_argument("--slo", default="ttft_p90_ms=500")
ap.add_argument("--variants", default="base,nbr,relax1,x6")
ap.add_argument("--dur", type=float, default=60)
ap.add_argument("--rates", default="2,4,6,8,10,12")
ap.add_argument("--big", type=int, default=24)
ap.add_argument("--small", type=int, default=20)
ap.add_argument("--outtok", type=int, default=100, help="queue_sim.py --outtok: 100 is 2.1 s a request, 50 is 1.1 s")
ap.add_argument("--rhos", default="", help="the loads as shares of the small server's capacity (instead of --rates)")
a = ap.parse_args()
L = os.path.abspath(a.llmdlua)
tmp = tempfile.mkdtemp(prefix="study51_decide_")
if a.rhos:
    cap = a.small / (0.1 + (a.outtok - 1) * 0.02)
    a.rates = ",".join("%g" % round(float(r) * cap, 3) for r in a.rhos.split(","))
VS = a.variants.split(",")


def run(slots, seed):
    d = os.path.join(tmp, "k%d_s%d" % (slots, seed))
    if not os.path.isdir(d):
        subprocess.run([sys.executable, SIM, d, "--rates", a.rates, "--dur", str(a.dur), "--slots", str(slots),
                        "--seed", str(seed), "--outtok", str(a.outtok)], check=True, stdout=subprocess.DEVNULL)
    return d


def verdict(da, db, slo, v):
    ws = os.path.join(tmp, "ws")
    os.makedirs(ws, exist_ok=True)
    env = dict(os.environ, LLMDLUA_STUDY51=v)
    out = subprocess.run([L, "compare.lua", "--a", da, "--b", db, "--parent", ws, "--slo", slo, "--quiet"],
                         capture_output=True, text=True, env=env)
    w = [l[len("Workspace: "):] for l in out.stdout.splitlines() if l.startswith("Workspace: ")]
    if out.returncode != 0 or not w:
        sys.exit("study51_decide.py: compare.lua failed on %s and %s: %s" % (da, db, out.stderr.strip()))
    doc = json.load(open(os.path.join(w[0], "comparison.json")))
    ve = doc["verdict"]
    shutil.rmtree(w[0])
    # each run's capacity low end: the offered load of its last certain pass (noise.upper_ends)
    low = {}
    for s in ("a", "b"):
        n = ((doc.get("capacity") or {}).get(s) or {}).get("noise") or {}
        low[s] = (n.get("upper_ends") or {}).get("passing_offered")
    return ve.get("higher"), ve.get("interval_coverage") == "narrow_near_capacity", low


try:
    for slo in a.slo.split(","):
        aa = {v: [] for v in VS}
        pool = {}  # the A/A runs' TTFTs pooled by load: the true p90 of each load
        ab = {v: [] for v in VS}
        for i in range(1, a.aa + 1):
            da, db = run(a.small, 2 * i - 1), run(a.small, 2 * i)
            for v in VS:
                aa[v].append(verdict(da, db, slo, v))
            for d in (da, db):
                for f in os.listdir(d):
                    j = json.load(open(os.path.join(d, f)))
                    pool.setdefault(float(j["request_rate"]), []).extend(
                        t * 1000 for t, e in zip(j["ttfts"], j["errors"]) if e == "")
            shutil.rmtree(da), shutil.rmtree(db)
        for s in range(1, a.ab + 1):
            da, db = run(a.small, 1000 + s), run(a.big, 2000 + s)
            for v in VS:
                ab[v].append(verdict(da, db, slo, v))
            shutil.rmtree(da), shutil.rmtree(db)
        lim = float(slo.split("=")[1])
        import numpy as np
        truth = [r for r in sorted(pool) if np.percentile(pool[r], 90) <= lim]
        tcap = max(truth) if truth else 0
        print("true p90 by load (the %d A/A runs pooled): %s; the highest load within %g ms: %g req/s" % (
            2 * a.aa, ", ".join("%g: %.0f" % (r, np.percentile(pool[r], 90)) for r in sorted(pool)), lim, tcap))
        print("| SLO | variant | A/A winners named (narrow) | A/B %d vs %d slots: right (narrow) | wrong "
              "| A/A runs whose capacity low end passes a load above the true capacity |" % (a.small, a.big))
        print("|---|---|---|---|---|---|")
        for v in VS:
            print("| %s | %s | %d of %d (%d) | %d of %d (%d) | %d | %s |" % (
                slo, v, sum(h in ("a", "b") for h, _, _ in aa[v]), len(aa[v]), sum(n for h, n, _ in aa[v] if h),
                sum(h == "b" for h, _, _ in ab[v]), len(ab[v]), sum(n for h, n, _ in ab[v] if h == "b"),
                sum(h == "a" for h, _, _ in ab[v]),
                "%d of %d" % (sum((x[2][s] or 0) > tcap + 1e-9 for x in aa[v] for s in "ab"), 2 * len(aa[v]))))
        sys.stdout.flush()
finally:
    shutil.rmtree(tmp)
