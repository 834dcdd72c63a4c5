#!/usr/bin/env python3
"""fixg52: expected values of tests/lua/test_token_orders.lua's load-curve token rule (numpy only).

Independent of llmdlua: the ratios test_token_orders.lua's ladder() builds by construction.
A decode-bound server of C output tokens/s (processor sharing): at request rate L with out
output tokens a request, rho = L out / C, TPOT 0.04 / (1 - rho) s times exp(0.1 z), E2E
0.05 + (out - 1) TPOT; its p90 at z = z_0.9. A lighter workload (outputs r = 0.96 times the
other's) at L loads the server as the heavier one at r L: what the lengths explain at L is
r x F(r L) / F(L), F the heavier run's E2E p90 interpolated on its ladder (numpy.interp;
below its lowest load, its lowest two's line extended).
"""
import numpy as np

# the unit test's curve: A's E2E 5000, 6000, 8000 ms at 10, 11, 12 req/s
F = lambda x: np.interp(x, [10, 11, 12], [5000, 6000, 8000])
lo = 0.96 * F(11.52) / 8000
print("at 12 req/s: %.6f %%; at 10 (extrapolated): %.6f %%" % ((lo - 1) * 100, (0.96 * 4600 / 5000 - 1) * 100))
print("a row -20..-18 %% divided: upper end %.4f %%" % ((0.82 / lo - 1) * 100))
print("B heavier: B / A up to %+.10f %%" % ((8000 / (0.96 * F(11.52)) - 1) * 100))

z90 = 1.2815515655446004
def e2e(rate, out, cap):
    return 0.05 + (out - 1) * 0.04 / (1 - rate * out / cap) * np.exp(0.1 * z90)

for R, capb in (([10.4, 10.85, 11.35, 12], 750), ([2, 3, 4], 900)):
    print("ladder", R, "B's server", capb, "tokens/s")
    FA = [e2e(r, 50, 750) for r in R]
    for r in R:
        ratio = e2e(r, 48, capb) / e2e(r, 50, 750)
        x = 0.96 * r
        fx = np.interp(x, R, FA) if x >= R[0] else FA[0] + (x - R[0]) * (FA[1] - FA[0]) / (R[1] - R[0])
        ex = 0.96 * fx / e2e(r, 50, 750)
        print("  %5g req/s: B / A %+.1f %%, explained %+.1f %%, left %+.1f %%"
              % (r, (ratio - 1) * 100, (ex - 1) * 100, (ratio / ex - 1) * 100))

# fixh52: the per-token rows (TPOT, ITL) on the same ladders. TPOT p90 0.04 / (1 - rho) s
# times exp(0.1 z_0.9); a lighter workload at L loads the server as the heavier one at r L, and
# each of its tokens is no shorter for its length: what the lengths explain at L is F(r L) / F(L),
# F the heavier run's TPOT (no r factor, as a whole request's time has).
def tpot(rate, out, cap):
    return 40 * np.exp(0.1 * z90) / (1 - rate * out / cap)

for R, capb in (([10.4, 10.85, 11.35, 12], 750), ([2, 3, 4], 900)):
    print("TPOT p90, ladder", R, "B's server", capb, "tokens/s")
    FA = [tpot(r, 50, 750) for r in R]
    for r in R:
        ratio = tpot(r, 48, capb) / tpot(r, 50, 750)
        x = 0.96 * r
        fx = np.interp(x, R, FA) if x >= R[0] else FA[0] + (x - R[0]) * (FA[1] - FA[0]) / (R[1] - R[0])
        ex = fx / tpot(r, 50, 750)
        print("  %5g req/s: B / A %+.1f %%, explained %+.1f %%, left %+.1f %%"
              % (r, (ratio - 1) * 100, (ex - 1) * 100, (ratio / ex - 1) * 100))
# the unit test's curve (test_token_orders.lua): A's TPOT 40, 50, 80 ms at 10, 11, 12 req/s
G = lambda x: np.interp(x, [10, 11, 12], [40, 50, 80])
print("TPOT at 12 req/s: %.6f %%; at 10 (extrapolated): %.6f %%"
      % ((G(11.52) / 80 - 1) * 100, ((40 - 0.4 * 10) / 40 - 1) * 100))
