#!/usr/bin/python3
"""Expected values of tests/lua/test_design_effect.lua (task fixc41), numpy and seqstats only.

150 requests i = 1..150 sent 0.5 s apart; m_i = 20 + (37 i mod 61) token gaps, each
pace_i (1 + 0.1 ((7 k + i) mod 5 - 2)), pace_i = 0.02 (1 + 0.5 sin(1.3 i)) s; TTFT 0.1 s;
E2E = TTFT + the gaps' sum; m_i + 1 output tokens; TPOT (E2E - TTFT) / m_i; NTPOT E2E / (m_i + 1).
The ITL gaps' design effect, the requests their clusters (llmd.runmodel.gap_design_effect):
gaps mean(g)^2 var(tpot) / mean(tpot)^2 (1 + var(out) / mean(out)^2) d_tpot / (requests
var(g)), at least d_tpot; the intervals as llmd.loadpoints.mean_ci and percentile_ci.
Since fixa45 a mean's interval reads the values' own design effect (seqstats.value_deff, Geyer's
sum on the values centred on their mean): the ITL mean's the gaps' formula above with the TPOTs'
values' own in d_tpot's place, NTPOT mean's the NTPOTs' values' own.
"""
import math
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqstats import deff, value_deff  # noqa: E402

Z = 1.959964
gaps, tpot, ntpot, outl = [], [], [], []
for i in range(1, 151):
    m = 20 + (37 * i) % 61
    pace = 0.02 * (1 + 0.5 * math.sin(1.3 * i))
    g = [pace * (1 + 0.1 * (((7 * k + i) % 5) - 2)) for k in range(1, m + 1)]
    gaps += g
    s = sum(g)
    e2e = 0.1 + s
    tpot.append(s / m)
    ntpot.append(e2e / (m + 1))
    outl.append(m + 1)
g, tp, nt, ol = np.array(gaps), np.array(tpot), np.array(ntpot), np.array(outl, float)
d_t = deff(tp)
kish = 1 + ol.var() / ol.mean() ** 2
d_g = max(d_t, len(g) * g.mean() ** 2 * tp.var(ddof=1) / tp.mean() ** 2 * kish * d_t / (len(tp) * g.var(ddof=1)))
print(f"gaps {len(g)}  d_tpot {d_t:.6f}  kish {kish:.6f}  itl_gaps deff {d_g:.6f}")
for name, d in (("main (d_tpot)", d_t), ("fixc41", d_g)):
    h = Z * math.sqrt(g.var(ddof=1) * d / len(g)) * 1000
    print(f"  ITL mean {g.mean() * 1000:.6f} ms, {name}: {g.mean() * 1000 - h:.6f} to {g.mean() * 1000 + h:.6f}")
    n, q = len(g), 0.9
    hh = Z * math.sqrt(n * d * q * (1 - q))
    rl, ru = math.floor(n * q - hh), math.ceil(n * q + hh)
    s = np.sort(g)
    print(f"  ITL p90 interval {name}: ranks {rl}, {ru}: {s[rl - 1] * 1000:.6f} to {s[ru - 1] * 1000:.6f} ms")
d_n = deff(nt)
h = Z * nt.std(ddof=1) / math.sqrt(len(nt) / d_n) * 1000
print(f"NTPOT mean {nt.mean() * 1000:.6f} ms, deff {d_n:.6f}: {nt.mean() * 1000 - h:.6f} to {nt.mean() * 1000 + h:.6f}")
d_tv = value_deff(tp)
d_gv = max(d_tv, len(g) * g.mean() ** 2 * tp.var(ddof=1) / tp.mean() ** 2 * kish * d_tv / (len(tp) * g.var(ddof=1)))
h = Z * math.sqrt(g.var(ddof=1) * d_gv / len(g)) * 1000
print(f"fixa45: TPOT values' deff {d_tv:.6f}, itl_gaps_mean {d_gv:.6f}: ITL mean {g.mean() * 1000 - h:.6f} to "
      f"{g.mean() * 1000 + h:.6f}")
d_nv = value_deff(nt)
h = Z * nt.std(ddof=1) / math.sqrt(len(nt) / d_nv) * 1000
print(f"fixa45: NTPOT values' deff {d_nv:.6f}: NTPOT mean {nt.mean() * 1000 - h:.6f} to {nt.mean() * 1000 + h:.6f}")
