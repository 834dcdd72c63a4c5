#!/usr/bin/env python3
"""fixh53: expected values of tests/lua/test_token_orders.lua's "about the same" held to the tokens
(numpy only; the ladder's model, as tests/sim/fixa53_tokens.py: a decode-bound server of C output
tokens/s, TPOT 0.04 / (1 - L out / C) s times exp(0.1 z), p90 at z = z_0.9).

A on 750 tok/s with 50 output tokens a request; B on a server 4 % slower, 720 tok/s, with 48 (4 %
shorter outputs, inside the workload match's 5 %). Capacity at TPOT p90 <= 170 ms,
L = C / out (1 - 40 e^(0.1 z) / X): the same req/s for both (C / out is 15 for both), so the
figures read "about the same"; held to A's tokens (B's request rate divided by 1 / 0.96) B's is
0.96 of A's: -4.00 %, beyond the practical threshold of 2 %. The loads 10.9 and 11.1 req/s
bracket it (TPOT p90 there printed: below and above 170 ms for both).
"""
import numpy as np

z90 = 1.2815515655446004
J = np.exp(0.1 * z90)


def cap_tpot(X_ms, out, C):
    return C / out * (1 - 40 * J / X_ms)


def tpot(L, out, C):
    return 40 * J / (1 - L * out / C)


la, lb = cap_tpot(170, 50, 750), cap_tpot(170, 48, 720)
print("capacity at TPOT p90 <= 170 ms: A %.4f, B %.4f req/s, B / A %+.4f %%, held (x 0.96) %+.4f %%"
      % (la, lb, (lb / la - 1) * 100, (0.96 * lb / la - 1) * 100))
for L in (10.9, 11.1):
    print("  TPOT p90 at %.1f req/s: A %.2f ms, B %.2f ms" % (L, tpot(L, 50, 750), tpot(L, 48, 720)))
# the largest gap the one-run brackets [10.9, 11.1] allow, held: A's 11.1 against B's 10.9 x 0.96
print("largest held gap A over B: %+.3f %% (A's bracket top 11.1 against B's bottom 10.9 x 0.96)"
      % ((11.1 / (10.9 * 0.96) - 1) * 100))
# in output tok/s (capacity x out): A 549.40, B 527.42, B / A -4.00 %: beyond the threshold in tok/s
print("capacity in output tok/s: A %.2f, B %.2f (%+.2f %%)" % (la * 50, lb * 48, (lb * 48 / (la * 50) - 1) * 100))
