#!/usr/bin/env python3
"""fixa53: expected values of tests/lua/test_token_orders.lua's fixa53 cases (numpy only).

Independent of llmdlua: the model test_token_orders.lua's ladder() builds by construction. A
decode-bound server of C output tokens/s (processor sharing): at request rate L with out output
tokens a request, rho = L out / C, TPOT 0.04 / (1 - rho) s times exp(0.1 z), TTFT 50 ms, E2E
0.05 + (out - 1) TPOT; a p90 at z = z_0.9.

1. Capacity at a per-token SLO (TPOT p90 <= X): the load where rho reaches 1 - 0.04 e^(0.1 z) / X,
   L = C / out x that. One server, B's outputs 4 % shorter: B / A = 50 / 48 exactly, whatever the
   curve's shape; held to A's tokens (the request rate divided by 1 / 0.96) it is 1: the lighter
   load is all of the order, and the req/s division alone holds it. Moving the TPOT limit as
   well (the row's load-curve rule, F(r L) / F(L)) would count the lighter load twice.
2. Capacity in output tok/s = rho C at the limit: at a per-token SLO the same for any output
   length (shorter outputs do not raise it); at an E2E SLO of X ms, 1 - rho = (out - 1) 0.04
   e^(0.1 z) / (X - 0.05): shorter outputs raise it, and B read at the moved limit X x 0.96
   gives A's again.
3. The rows at the loads both sustained (the max sustained Verdict's latencies): see
   tests/sim/fixg52_curve.py (E2E p90 B / A -17.2 % at 12 req/s, what B's lighter load
   explains -16.6 %; TPOT -13.8 % and -13.2 %); printed again here for those loads.
"""
import numpy as np

z90 = 1.2815515655446004
J = np.exp(0.1 * z90)


def cap_tpot(X_ms, out, C):
    return C / out * (1 - 40 * J / X_ms)


def rho_e2e(X_ms, out):
    return 1 - (out - 1) * 40 * J / (X_ms - 50)


print("1. capacity at TPOT p90 <= 170 ms (req/s), and 2. in output tok/s")
for C_b in (750, 900):
    la, lb = cap_tpot(170, 50, 750), cap_tpot(170, 48, C_b)
    print("  B's server %d tok/s: A %.4f, B %.4f req/s, B / A %+.4f %%, held (x 0.96) %+.4f %%;"
          " tok/s A %.2f, B %.2f (%+.4f %%)" % (C_b, la, lb, (lb / la - 1) * 100, (0.96 * lb / la - 1) * 100,
                                               la * 50, lb * 48, (lb * 48 / (la * 50) - 1) * 100))
print("2. capacity in output tok/s at E2E p90 <= 8000 ms, one server of 750 tok/s")
ta, tb, tb2 = rho_e2e(8000, 50) * 750, rho_e2e(8000, 48) * 750, rho_e2e(8000 * 0.96, 48) * 750
print("  A %.2f, B %.2f tok/s (%+.3f %%); B at the moved limit 7680 ms %.2f (%+.4f %% of A's)"
      % (ta, tb, (tb / ta - 1) * 100, tb2, (tb2 / ta - 1) * 100))
# (a faster B, 900 tok/s, at the E2E SLO: tok/s beyond what the moved limit explains)
print("  B on 900 tok/s at 7680 ms: %.2f tok/s (%+.2f %% of A's)"
      % (rho_e2e(7680, 48) * 900, (rho_e2e(7680, 48) * 900 / ta - 1) * 100))


def e2e(rate, out, cap):
    return 0.05 + (out - 1) * 0.04 / (1 - rate * out / cap) * J


def tpot(rate, out, cap):
    return 40 * J / (1 - rate * out / cap)


print("3. the rows at the loads both sustained")
for R, capb in (([10.4, 10.85, 11.35, 12], 750), ([2, 3, 4], 900)):
    for name, f, k in (("E2E p90", e2e, 0.96), ("TPOT p90", tpot, 1.0)):
        FA = [f(r, 50, 750) for r in R]
        for r in R:
            ratio = f(r, 48, capb) / f(r, 50, 750)
            x = 0.96 * r
            fx = np.interp(x, R, FA) if x >= R[0] else FA[0] + (x - R[0]) * (FA[1] - FA[0]) / (R[1] - R[0])
            ex = k * fx / f(r, 50, 750)
            print("  B on %d tok/s, %s at %5g req/s: B / A %+.1f %%, explained %+.1f %%, left %+.1f %%"
                  % (capb, name, r, (ratio - 1) * 100, (ex - 1) * 100, (ratio / ex - 1) * 100))
