#!/usr/bin/python3
"""A/A and A/B tallies of capacity at an SLO (task capa38: the same server named a winner in 1 of 5 pairs).

Makes pairs of runs with tests/data/queue_sim.py (a FIFO server, Poisson arrivals, 60 s a rate,
2.1 s a request; 20 slots: capacity 9.52 req/s) and compares each pair with llmdlua compare.lua,
reading the lead verdict from comparison.json: a pair "names a winner" where verdict.higher is set.
- A/A: 20 slots against 20 slots, seeds 2i-1 and 2i: every winner named is a false one.
- A/B: 24 (or 10) slots against 20, one seed each: the right winner is the 24-slot (20-slot) run.

Run: /usr/bin/python3 tests/sim/capa38_sim.py LLMDLUA (a built llmdlua beside its lua/ and templates/) [--pairs 50] [--ab 20] [--slo ttft_p90_ms=500,...]
     [--rates 2,4,...,12] [--dur 60] [--repeat 1]   (the design: loads, seconds a load, repeats of each; capa39)
(about 1 s a comparison; the runs are written under a temporary folder and removed after)
"""
import argparse, json, os, subprocess, sys, tempfile, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
SIM = os.path.join(HERE, "..", "data", "queue_sim.py")
RATES = "2,4,6,8,10,12"

ap = argparse.ArgumentParser()
ap.add_argument("llmdlua")
ap.add_argument("--pairs", type=int, default=50)
ap.add_argument("--ab", type=int, default=20)
ap.add_argument("--slo", default="ttft_p90_ms=500,ttft_p90_ms=1000")
ap.add_argument("--rates", default=RATES, help="the offered loads, req/s (queue_sim.py --rates)")
ap.add_argument("--dur", type=float, default=60, help="seconds a load (queue_sim.py --dur)")
ap.add_argument("--repeat", type=int, default=1, help="repeats of each load in a run (queue_sim.py --repeat)")
a = ap.parse_args()
tmp = tempfile.mkdtemp(prefix="capa38_")


def run(slots, seed):
    d = os.path.join(tmp, "k%d_s%d" % (slots, seed))
    if not os.path.isdir(d):
        subprocess.run([sys.executable, SIM, d, "--rates", a.rates, "--dur", str(a.dur), "--slots", str(slots),
                        "--seed", str(seed), "--repeat", str(a.repeat)],
                       check=True, stdout=subprocess.DEVNULL)
    return d


def higher(da, db, slo):
    ws = os.path.join(tmp, "ws")
    os.makedirs(ws, exist_ok=True)
    out = subprocess.run([a.llmdlua, "compare.lua", "--a", da, "--b", db, "--parent", ws, "--slo", slo, "--quiet"],
                         capture_output=True, text=True)
    w = [l[len("Workspace: "):] for l in out.stdout.splitlines() if l.startswith("Workspace: ")]
    if out.returncode != 0 or not w:
        sys.exit("capa38_sim.py: %s compare.lua failed on %s and %s: %s" % (a.llmdlua, da, db, out.stderr.strip()))
    v = json.load(open(os.path.join(w[0], "comparison.json")))["verdict"]
    shutil.rmtree(w[0])
    if v.get("interval_coverage") == "narrow_near_capacity":
        narrow.append(v.get("higher"))
    return v.get("higher")


narrow = []  # the winners named whose order rests on intervals that may be narrow near capacity (cover40)


def flagged():
    """ ' (k of them resting on intervals that may be narrow near capacity)', emptying the tally."""
    n = len(narrow)
    del narrow[:]
    return " (%d of them resting on intervals that may be narrow near capacity)" % n


try:
    for slo in a.slo.split(","):
        aa = [higher(run(20, 2 * i - 1), run(20, 2 * i), slo) for i in range(1, a.pairs + 1)]
        print("%s A/A (20 vs 20 slots): %d of %d name a winner%s" % (slo, sum(x in ("a", "b") for x in aa), len(aa),
                                                                    flagged()))
        for k in (24, 10):
            ab = [higher(run(20, 1000 + s), run(k, 2000 + s), slo) for s in range(1, a.ab + 1)]
            right = "b" if k > 20 else "a"
            print("%s A/B (20 vs %d slots): right winner %d of %d, wrong %d%s" % (
                slo, k, sum(x == right for x in ab), len(ab), sum(x in ("a", "b") and x != right for x in ab),
                flagged()))
        sys.stdout.flush()
finally:
    shutil.rmtree(tmp)
