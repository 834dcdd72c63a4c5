#!/usr/bin/python3
"""Does a TTFT mean's effect interval know how much the mean varies between runs? (task fixh44)

fixa44's pair (tests/lua/test_effect_interval.lua): one server (queue_sim_ip.py: 8 slots, 0.1 s
+ 99 x 0.02 s a request, noise 0.3, 300 s at 2 req/s), A's client giving up on a request still
queued after 0.5 s, B's waiting; its TTFT mean row read "+30.9 % (95 % interval +10.5 % to
+55.0 %)" beside the rank test's p = 0.181. Over --seeds seeds of each configuration at 2 req/s
this prints: each side's mean TTFT over the seeds and its spread (the truth the one-run
standard error estimates); the true effect on the mean, B against A (the ratio of the means
over all the seeds); and, for each one-run design effect, how often the row's interval (the
ratio's, llmd.decision sample_effect: log(m_b / m_a) -+ z sqrt(sum (s / m)^2 d / n), d the
larger side's) covers that true effect over the pairs (A seed k, B seed k), and how often,
between two seeds of the waiting configuration (an A/A pair), it leaves out 0. The design
effects: none (1); the ranks' in send order (seqstats.deff, the one the report's test uses, and
its mean interval did before fixj44); the values' (Geyer's sum on the centred values: the report's
mean interval's since fixj44, llmd.decision.value_design_effect); batch means of 20 batches.
numpy, tests/data/queue_sim_ip.py and seqstats only: no llmdlua code.

Run: /usr/bin/python3 tests/sim/mean_deff_coverage.py [--seeds 80]   (about 2 s a seed)
Session 44 (80 seeds): true effect +19.3 %; coverage 61 % (d 1), 80 % (ranks', as the report),
95 % (values'), 94 % (batch means); A/A intervals off 0: none 22, ranks' 11, values' 0, batch means 0 of 40.
Rerun in fixj44 (the same 80 seeds): the same figures.

Then (task fixa45) one run's own mean interval, as llmd.loadpoints.mean_ci gives a mean SLO's at a
load measured once (mean -+ z s / sqrt(n / d), told where n / d >= 50): for each configuration and
design effect, of the runs it is told at, how often it covers the mean over the seeds, and how
often it lies wholly below or wholly above it (a load read as meeting, or failing, an SLO on the
mean it does not). fixa45 (the same 80 seeds): A, ranks' told 80, covers 81 %, below 8, above 7;
values' told 80, 91 %, 7, 0. B, ranks' told 80, 68 %, 21, 5; values' told 75, 83 %, 13, 0.
The effects' figures above are unchanged with seqstats.value_deff in place of this script's copy.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.dont_write_bytecode = True
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
from seqstats import deff, value_deff  # noqa: E402

Z = 1.959964
ap = argparse.ArgumentParser()
ap.add_argument("--seeds", type=int, default=80)
ap.add_argument("--first", type=int, default=101)
a = ap.parse_args()


def run(out, seed, timeout):
    """The first stage's successful TTFTs (s), in send order, of one queue_sim_ip.py run at 2 req/s."""
    cmd = [sys.executable, os.path.join(DATA, "queue_sim_ip.py"), out, "--rates", "2", "--slots", "8", "--ttft0",
           "0.1", "--tpot", "0.02", "--outtok", "100", "--dur", "300", "--noise", "0.3", "--seed", str(seed)]
    if timeout:
        cmd += ["--timeout", "0.5"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    reqs = sorted(json.load(open(os.path.join(out, "per_request_lifecycle_metrics.json"))),
                  key=lambda r: r["start_time"])
    x = []
    for r in reqs:
        tt = (r["info"]["response_metrics"].get("output_token_times") or []) if r.get("error") is None else []
        if len(tt) > 1:
            x.append(tt[0] - r["start_time"])
    return np.array(x)


def batch_deff(x, k=20):
    b = len(x) // k
    y = x[:b * k].reshape(k, b).mean(1)
    return b * y.var(ddof=1) / x.var(ddof=1)


def se_log(x, d):
    return x.std(ddof=1) / math.sqrt(len(x) / d) / x.mean()


with tempfile.TemporaryDirectory() as tmp:
    seeds = range(a.first, a.first + a.seeds)
    A = [run(os.path.join(tmp, "to%d" % s), s, True) for s in seeds]
    B = [run(os.path.join(tmp, "w%d" % s), s, False) for s in seeds]
ma, mb = np.array([x.mean() for x in A]), np.array([x.mean() for x in B])
for name, m in (("A (timeout 0.5 s)", ma), ("B (waits)", mb)):
    print("%s: mean TTFT over the seeds %.1f ms, its sd %.1f ms (sd of its log %.3f)" % (
        name, m.mean() * 1e3, m.std(ddof=1) * 1e3, np.log(m).std(ddof=1)))
true = math.log(mb.mean() / ma.mean())
print("true effect on the mean, B against A: %+.1f %%" % (100 * (math.exp(true) - 1)))
for name, f in (("none", lambda x: 1.0), ("ranks'", deff), ("values'", value_deff), ("batch means", batch_deff)):
    cov = 0
    for x, y in zip(A, B):
        d = max(f(x), f(y), 1.0)
        cov += abs(math.log(y.mean() / x.mean()) - true) <= Z * math.hypot(se_log(x, d), se_log(y, d))
    off, pairs = 0, 0
    for i in range(0, len(B) - 1, 2):
        x, y = B[i], B[i + 1]
        d = max(f(x), f(y), 1.0)
        off += abs(math.log(y.mean() / x.mean())) > Z * math.hypot(se_log(x, d), se_log(y, d))
        pairs += 1
    print("design effect %-12s covers the true effect in %3.0f %% of %d pairs; A/A intervals off 0: %d of %d" % (
        name, 100 * cov / len(A), len(A), off, pairs))
for cname, runs, m in (("A (timeout 0.5 s)", A, ma), ("B (waits)", B, mb)):
    truth = m.mean()
    for name, f in (("ranks'", deff), ("values'", value_deff)):
        told, cov, below, above = 0, 0, 0, 0
        for x in runs:
            d = max(1.0, f(x))
            if len(x) / d < 50:
                continue
            h = Z * x.std(ddof=1) / math.sqrt(len(x) / d)
            told += 1
            cov += abs(x.mean() - truth) <= h
            below += x.mean() + h < truth
            above += x.mean() - h > truth
        print("%s, one run's mean interval, design effect %-8s: told %d of %d, covers %.0f %%, wholly below %d, "
              "wholly above %d" % (cname, name, told, len(runs), 100 * cov / max(told, 1), below, above))
