#!/usr/bin/python3
"""Does every harness give the same decision for the same serving? (task audit53)

For each trial: one simulated serving A and one B (tests/sim/audit53_harness.py, the same requests
written as vllm bench serve detailed (vllm) and aggregate-only (vagg), bench_serving/inferencemax
(imax), inference-perf (ip), guidellm with every request (gl) and sample_size=0 (gl0), and BR v0.2
(br)), compared by llmdlua compare.lua per harness at one SLO. Prints one JSON line per trial and
harness (verdict kind, higher, capacity figures, per-point achieved rate / limiting figure / pass),
then a table: false winners, right orders, and where harnesses disagree on the same data.

Scenarios (B against A; A: 20 slots, 100 output tokens, no failures):
  aa    same server, another seed            d10  22 slots (+10 % capacity)   d25  25 slots (+25 %)
  tok5  105 output tokens (5 % longer)       f2   2 % of requests fail        f8   8 % fail

Run: /usr/bin/python3 tests/sim/audit53_decide.py LLMDLUA OUTDIR --scenario aa --trials 30
     [--rates 4,6,8,9,10,11] [--dur 30] [--repeat 2] [--slo ttft_p90_ms=500] [--harnesses ...] [--keep]
"""
import argparse, json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "audit53_harness.py")
ap = argparse.ArgumentParser()
ap.add_argument("llmdlua")
ap.add_argument("out")
ap.add_argument("--scenario", default="aa")
ap.add_argument("--trials", type=int, default=10)
ap.add_argument("--first", type=int, default=1)
ap.add_argument("--rates", default="4,6,8,9,10,11")
ap.add_argument("--dur", default="30")
ap.add_argument("--repeat", default="2")
ap.add_argument("--slo", default="ttft_p90_ms=500")
ap.add_argument("--harnesses", default="vllm,imax,ip,gl,br,vagg,gl0")
ap.add_argument("--keep", action="store_true", help="keep the generated data and workspaces")
ap.add_argument("--concurrency", action="store_true", help="a concurrency ladder (--rates are users)")
a = ap.parse_args()
L = os.path.abspath(a.llmdlua)
HS = a.harnesses.split(",")
B_OPTS = {"aa": [], "d10": ["--slots", "22"], "d25": ["--slots", "25"], "tok5": ["--outtok", "105"],
          "f2": ["--fail", "0.02"], "f8": ["--fail", "0.08"]}[a.scenario]
os.makedirs(a.out, exist_ok=True)


def gen(d, seed, extra):
    if not os.path.isdir(d):
        subprocess.run([sys.executable, GEN, d, "--rates", a.rates, "--dur", a.dur, "--repeat", a.repeat,
                        "--seed", str(seed), "--harnesses", ",".join(HS)] + extra
                       + (["--concurrency"] if a.concurrency else []), check=True, stdout=subprocess.DEVNULL)


def compare(da, db, ws):
    os.makedirs(ws, exist_ok=True)
    out = subprocess.run([L, "compare.lua", "--a", da, "--b", db, "--a-label", "A", "--b-label", "B", "--parent", ws,
                          "--slo", a.slo, "--quiet"], capture_output=True, text=True)
    w = [l[len("Workspace: "):] for l in out.stdout.splitlines() if l.startswith("Workspace: ")]
    if out.returncode != 0 or not w:
        return {"error": (out.stderr.strip() or out.stdout.strip())[:400], "rc": out.returncode}
    doc = json.load(open(os.path.join(w[0], "comparison.json")))
    ve = doc["verdict"]
    r = {"kind": ve.get("kind"), "higher": ve.get("higher"), "basis": ve.get("basis"), "text": ve.get("text"),
         "ws": w[0]}
    cap = doc.get("capacity") or {}
    lim = a.slo.split("=")[0]
    for s in ("a", "b"):
        c = cap.get(s) or {}
        r["cap_" + s] = {"kind": c.get("kind"), "rps": c.get("rps"), "text": c.get("text"), "limiting": c.get("limiting")}
        pts = []
        for p in (doc.get("load_points") or {}).get(s) or []:
            v = p.get("values") or {}
            pts.append({"offered": p.get("offered"), "rep": p.get("repeats"), "ach": p.get("achieved_rps"),
                        "basis": p.get("rate_basis"), "meets": p.get("meets_slo"), lim: v.get(lim),
                        "err": p.get("error_rate_pct"), "na": (p.get("na") or {}).get(lim)})
        r["pts_" + s] = pts
    # the performance rows (whole-run figures) and the headline rows: each one's verdict and figures
    r["perf"] = {x.get("key"): [x.get("verdict"), x.get("a"), x.get("b")] for x in doc.get("perf") or []}
    r["head"] = {x.get("key"): x.get("evidence") for x in doc.get("headline") or []}
    if not a.keep:
        shutil.rmtree(w[0])
    return r


rows = []
for t in range(a.first, a.first + a.trials):
    da = os.path.join(a.out, "%s_t%d_A" % (a.scenario, t))
    db = os.path.join(a.out, "%s_t%d_B" % (a.scenario, t))
    gen(da, 1000 + t, [])
    gen(db, 5000 + t, B_OPTS)
    res = {}
    for h in HS:
        res[h] = compare(os.path.join(da, h), os.path.join(db, h), os.path.join(a.out, "ws"))
    line = {"scenario": a.scenario, "trial": t, "res": res}
    rows.append(line)
    print(json.dumps(line), flush=True)
    if not a.keep:
        shutil.rmtree(da), shutil.rmtree(db)

right = {"aa": None, "d10": "b", "d25": "b", "tok5": None, "f2": "a", "f8": "a"}[a.scenario]
sys.stderr.write("| harness | trials | winner named A | B | kinds | disagrees with vllm (kind/higher) | errors |\n")
for h in HS:
    rs = [r["res"][h] for r in rows]
    ka = {}
    for x in rs:
        ka[x.get("kind", "ERR")] = ka.get(x.get("kind", "ERR"), 0) + 1
    dis = sum(1 for r in rows if (r["res"][h].get("kind"), r["res"][h].get("higher")) !=
              (r["res"]["vllm"].get("kind"), r["res"]["vllm"].get("higher")))
    sys.stderr.write("| %s | %d | %d | %d | %s | %d | %d |\n" % (
        h, len(rs), sum(x.get("higher") == "a" for x in rs), sum(x.get("higher") == "b" for x in rs),
        ", ".join("%s %d" % kv for kv in sorted(ka.items(), key=lambda kv: str(kv[0]))), dis,
        sum("error" in x for x in rs)))
sys.stderr.write("right winner: %s\n" % right)
