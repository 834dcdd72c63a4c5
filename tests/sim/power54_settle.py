#!/usr/bin/python3
"""Are compare.lua's "N repeats would clear it with 80 % chance" claims true? (task power54)

For each such claim in the settle texts of tests/sim/power54_decide.py's JSON lines (vllm harness), draw N
repeats of that load from the same simulated server (audit53_harness.py's FIFO model in numpy: --slots
slots, Poisson arrivals for 30 s, 0.1 s + 99 x 0.02 s a request, lognormal noise 0.1) 400 times, and
count how often their 95 % t-interval of TTFT p90 clears 500 ms on the side of the claim's mean; then
the same with N sized on the spread's upper 80 % / 90 % confidence limit (sd sqrt(1 / chi2(q, 1)),
chi2(0.2, 1) = 0.064185, chi2(0.1, 1) = 0.015791) instead of the spread as measured.
Usage: power54_settle.py SLOTS_A SLOTS_B FILE.jsonl...   (main's texts; audit53 ladders: 20 25)"""
import heapq, json, re, sys
import numpy as np


def p90(slots, rate, dur, rng):
    n = int(round(rate * dur))
    starts = np.cumsum(rng.exponential(1 / rate, n))
    free = [starts[0]] * slots
    heapq.heapify(free)
    T = []
    for s in starts:
        f = rng.lognormal(0, 0.1)
        b = max(s, heapq.heappop(free))
        first = b + 0.1 * f
        end = first + rng.lognormal(np.log(0.02 * f), 0.05, 99).sum() + 0.001
        heapq.heappush(free, end)
        T.append(first - s)
    return np.percentile(np.array(T) * 1000, 90)


TQ = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365, 9: 2.306, 10: 2.262}
rng = np.random.default_rng(5)
cache = {}
sa, sb = int(sys.argv[1]), int(sys.argv[2])


def draws(slots, rate):
    if (slots, rate) not in cache:
        cache[(slots, rate)] = np.array([p90(slots, rate, 30, rng) for _ in range(400)])
    return cache[(slots, rate)]


def power(gap, sd, n):
    x = rng.normal(0, sd, (4000, n))
    m, h = x.mean(1), TQ[n] * x.std(1, ddof=1) / np.sqrt(n)
    return (m + gap - h > 0).mean()


claims = []
for f in sys.argv[3:]:
    for line in open(f):
        r = json.loads(line)["res"].get("vllm", {})
        for m in re.finditer(r"(A|B) at ([\d.]+) req/s offered: (\d+) repeats, not 2 \(TTFT p90 ([\d,.]+) ms, the "
                             r"repeats' 95 % interval .*? to ([\d,.]+) ms, across", r.get("settle") or ""):
            mean, hi = float(m.group(4).replace(",", "")), float(m.group(5).replace(",", ""))
            claims.append((m.group(1), float(m.group(2)), int(m.group(3)), mean, (hi - mean) / (12.706 / np.sqrt(2))))
for F, name in ((1, "as measured"), (np.sqrt(1 / 0.064185), "sd UCL 80%"), (np.sqrt(1 / 0.015791), "sd UCL 90%")):
    res, none = [], 0
    for run, rate, _, mean, sd in claims:
        need = next((n for n in range(3, 11) if power(abs(mean - 500), sd * F, n) >= 0.8), None)
        if need is None:
            none += 1
            continue
        xs = draws(sa if run == "A" else sb, rate)
        g = xs[:len(xs) // need * need].reshape(-1, need)
        mm, h = g.mean(1), TQ[need] * g.std(1, ddof=1) / np.sqrt(need)
        res.append(((mm - h > 500) if mean > 500 else (mm + h <= 500)).mean())
    print("%-11s claims with a count %d (none up to 10: %d), mean chance they clear %s" % (
        name, len(res), none, "%.2f" % np.mean(res) if res else "n/a"))
