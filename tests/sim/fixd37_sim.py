#!/usr/bin/python3
"""Throughput winners from the load generator (task fixd37, audit37 finding 1 follow-up).

Two runs of 3 repeats of one load point, 240 requests a repeat, 64 output tokens a request,
as tests/lua/test_saturation.lua writes them: request k of a repeat sent at 100 + (k - 1) / rate,
answered 2 + (k - 1) x (gap - 1 / rate) s later (gap: the server answering every gap s from
its first answer; without one, every request answered L s after it was sent).

The figures the test expects, computed here from the requests alone with numpy (independent
of llmdlua's Lua code), by the definitions README.md gives:
* sent: (n - 1) x 0.8 / (the sends' 90th - 10th percentile), the sends over their middle 80 %;
* pace: sent / the least-squares slope of the answers' times on the sends' (at least 1);
* kept up where the pace is 95 % or more of the sent rate;
* Welch's t on the repeats' paces, its two-sided p by integrating Student's t density.

Run: /usr/bin/python3 tests/sim/fixd37_sim.py
"""
import math

import numpy as np

N, SHARE = 240, 0.95


def repeat(rate, L=2.0, gap=None):
    k = np.arange(N)
    starts = 100 + k / rate
    lat = 2 + k * (gap - 1 / rate) if gap else np.full(N, L)
    ends = starts + lat
    q10, q90 = np.percentile(starts, [10, 90])
    sent = (N - 1) * 0.8 / (q90 - q10)
    slope = np.polyfit(starts, ends, 1)[0]
    pace = sent / max(slope, 1)
    return sent, pace


def t_p(t, df):
    """Two-sided p of Student's t with df degrees of freedom (Simpson on the density)."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    f = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)  # noqa: E731
    a, m = 0.0, 20000
    h = abs(t) / m
    s = f(0) + f(abs(t)) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, m))
    return max(0.0, 1 - 2 * s * h / 3)


def welch(xa, xb):
    xa, xb = np.array(xa), np.array(xb)
    va, vb = xa.var(ddof=1) / len(xa), xb.var(ddof=1) / len(xb)
    t = (xb.mean() - xa.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(xa) - 1) + vb ** 2 / (len(xb) - 1))
    return t, df, t_p(t, df)


def run(name, reps):
    sent, pace = zip(*(repeat(*r) for r in reps))
    kept = all(p >= SHARE * s for s, p in zip(sent, pace))
    print(f"{name}: sent {['%.6f' % x for x in sent]} mean {np.mean(sent):.6f}; pace "
          f"{['%.6f' % x for x in pace]} mean {np.mean(pace):.6f} ({np.mean(pace) * 64:.4f} tok/s); "
          f"kept up {kept}")
    return pace


print("case 1, both kept up (A sends 4.00/3.98/4.02 answered in 2 s; B 4.14/4.12/4.16 in 11 s):")
a = run("short", [(4.00, 2), (3.98, 2), (4.02, 2)])
b = run("long", [(4.14, 11), (4.12, 11), (4.16, 11)])
t, df, p = welch(a, b)
print(f"  Welch t {t:.6f} df {df:.4f} p {p:.3g}: what main tested and called 'long better'")

print("case 2, B saturated (sent at 4/s, answered every 1 / 3.00, 1 / 3.02, 1 / 2.98 s):")
a = run("kept", [(4.00, 2), (3.98, 2), (4.02, 2)])
b = run("sat", [(4.0, 2, 1 / 3.00), (4.0, 2, 1 / 3.02), (4.0, 2, 1 / 2.98)])
t, df, p = welch(a, b)
pct = (np.mean(b) - np.mean(a)) / ((np.mean(a) + np.mean(b)) / 2) * 100
print(f"  Welch t {t:.6f} df {df:.4f} p {p:.3g}; change {(np.mean(b) / np.mean(a) - 1) * 100:.4f} % "
      f"(effect vs the mean of both {pct:.4f} %)")
