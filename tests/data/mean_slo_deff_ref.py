#!/usr/bin/python3
"""Expected values of tests/lua/test_capacity_mean_slo.lua's design-effect cases (task fixa45),
numpy and seqstats only (no llmdlua code).

1000 TTFTs in send order: x_i = 100 + (s_i >> 16) mod 100 ms, s_i = (1103515245 s_(i-1) + 12345)
mod 2^31 from s_0 = 12345 (a fixed LCG, the same integers in Lua), the 20 requests i = 401..420
1500 ms longer (a queue's long waits, together). Their mean -+ 1.959964 sd / sqrt(n / d) (ddof
1; llmd.loadpoints.mean_ci) with d the ranks' design effect (seqstats.deff) and with the values'
own (seqstats.value_deff: Geyer's initial positive sequence on the values centred on their mean).
"""
import math
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqstats import deff, value_deff  # noqa: E402

Z = 1.959964
s, x = 12345, []
for i in range(1, 1001):
    s = (s * 1103515245 + 12345) % 2 ** 31
    x.append(100 + (s >> 16) % 100 + (1500 if 401 <= i <= 420 else 0))
x = np.array(x, float)
m, sd, n = x.mean(), x.std(ddof=1), len(x)
print("mean %.9f ms, sd %.9f ms" % (m, sd))
for name, d in (("ranks'", deff(x)), ("values'", value_deff(x))):
    h = Z * sd * math.sqrt(d / n)
    print("%-8s design effect %.9f: %.9f to %.9f ms" % (name, d, m - h, m + h))
