#!/usr/bin/python3
"""interval56: does llmd.loadpoints.repeats_failures_differ (chi-square over each repeat's failed of finished
requests divided by the repeats' one design effect, lp.repeats_deff) tell a crash in one repeat from timeouts
that come in bursts near capacity?

Each draw: R repeats of one load point of tests/data/queue_sim.py's server (the same model, re-drawn here: a FIFO
of --slots slots, a request needing 0.1 f s to its first token and 99 gaps of lognormal(log(0.02 f), 0.05) s, f
lognormal(0, 0.1); Poisson sends at --rate for --dur s; a request still waiting for a slot --timeout s after it
was sent fails, TimeoutError, its slot left free). A crash: in repeat 1, the server down --crash seconds from the
middle of the run on, every request sent then failing at once (queue_sim.py --error-bursts's 503). --burst
S,L: errors at random in every repeat, a share S in runs of mean length L (audit53_harness.py --fail-burst's kind). Each draw's
failure indicators in send order go to llmdlua (LUA below, the code under study: decision.design_effect for each
repeat, as llmd.runmodel.outcome_design_effect reads them, then lp.repeats_failures_differ), which prints for
each draw whether the repeats differ: the current rule, and the candidate rules of the same script.

  A/A rate:  draws without a crash read as "differ" (a crash said where there is none);
  miss rate: draws with a crash read as not differing.

Run: /usr/bin/python3 tests/sim/interval56_crash.py LLMDLUA [--draws 400] [--seed 56] [--rate 9.5] [--dur 40]
     [--slots 20] [--timeout 2] [--repeats 3] [--crash 0]
"""
import argparse, heapq, json, os, subprocess, sys, tempfile
import numpy as np

LUA = r'''
local json, lp, decision = require "llmd.json", require "llmd.loadpoints", require "llmd.decision"
local f = assert(io.open(arg[1])); local draws = json.decode(f:read("a")); f:close()
local alt = dofile(arg[2])
for _, d in ipairs(draws) do
  local failed, total, deff = {}, {}, {}
  for j, seq in ipairs(d) do
    local k = 0
    for _, x in ipairs(seq) do k = k + x end
    failed[j], total[j] = k, #seq
    deff[j] = k > 0 and decision.design_effect(seq) or 1
  end
  local h = lp.repeats_failures_differ(failed, total, deff)
  local g = alt and alt(failed, total, deff) or nil
  print(("%s %s %s %s"):format(table.concat(failed, "/"), h and (h.differ and "differ" or "alike") or "none",
    g == nil and "none" or (g and "differ" or "alike"), table.concat(deff, "/")))
end
'''


def bursts(rng, n, share, mean_len):
    # a two-state chain: a burst ends with chance 1 / L a request, one starts with chance q, share = q L / (1 + q L)
    q = share / (mean_len * (1 - share))
    out, on = [], rng.random() < share
    for _ in range(n):
        on = (rng.random() >= 1 / mean_len) if on else (rng.random() < q)
        out.append(on)
    return out


def repeat(rng, a, crash):
    n = int(round(a.rate * a.dur))
    starts = np.cumsum(rng.exponential(1 / a.rate, n))
    err = bursts(rng, n, *a.burst) if a.burst else [False] * n
    free = [starts[0]] * a.slots
    heapq.heapify(free)
    down0 = a.dur / 2
    out = []
    for i, s in enumerate(starts):
        if (crash and down0 <= s < down0 + crash) or err[i]:
            out.append(1)
            continue
        f = rng.lognormal(0, 0.1)
        begin = max(s, heapq.heappop(free))
        if a.timeout is not None and begin - s > a.timeout:
            heapq.heappush(free, begin)
            out.append(1)
            continue
        lat = (begin - s) + 0.1 * f + rng.lognormal(np.log(0.02 * f), 0.05, 99).sum()
        heapq.heappush(free, s + lat)
        out.append(0)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("llmdlua")
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--seed", type=int, default=56)
    ap.add_argument("--rate", type=float, default=9.5)
    ap.add_argument("--dur", type=float, default=40)
    ap.add_argument("--slots", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=2.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--crash", type=float, default=0.0)
    ap.add_argument("--burst", default=None, metavar="S,L",
                    help="errors at random in bursts: a share S of requests failing, in runs of mean length L "
                         "(a two-state chain in send order), beside the queue's own timeouts")
    ap.add_argument("--alt", default=None, help="a Lua file returning function(failed, total, deff) -> differ")
    a = ap.parse_args()
    a.burst = [float(x) for x in a.burst.split(",")] if a.burst else None
    if a.timeout <= 0:
        a.timeout = None
    rng = np.random.default_rng([a.seed, int(a.rate * 100), int(a.crash * 100), a.repeats])
    draws = [[repeat(rng, a, a.crash if j == 0 else 0) for j in range(a.repeats)] for _ in range(a.draws)]
    with tempfile.TemporaryDirectory() as tmp:
        dj, dl = os.path.join(tmp, "d.json"), os.path.join(tmp, "s.lua")
        json.dump(draws, open(dj, "w"))
        open(dl, "w").write(LUA)
        alt = a.alt or os.path.join(tmp, "none.lua")
        if not a.alt:
            open(alt, "w").write("return nil\n")
        out = subprocess.run([a.llmdlua, dl, dj, alt], capture_output=True, text=True, check=True).stdout.split("\n")
    rows = [r.split() for r in out if r]
    for col, name in ((1, "current"), (2, "alt")):
        if name == "alt" and not a.alt:
            continue
        k = sum(r[col] == "differ" for r in rows)
        print("rate %g dur %g timeout %s R=%d crash %gs: %s differ in %d of %d (%.3f); no failure in %d" % (
            a.rate, a.dur, a.timeout, a.repeats, a.crash, name, k, len(rows), k / len(rows),
            sum(r[1] == "none" for r in rows)))
    if os.environ.get("SHOW"):
        for r in rows[:int(os.environ["SHOW"])]:
            print(" ".join(r))


if __name__ == "__main__":
    main()
