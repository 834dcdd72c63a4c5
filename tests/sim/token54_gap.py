#!/usr/bin/env python3
"""token54: expected values of tests/lua/test_token_orders.lua's "no clear difference" held to
the tokens (numpy only).

Runs of repeats, point i at 10 i req/s, the SLO metric's p90 per repeat as listed (the pair of
test_capacity_repeats' item 3). Each point's 95 % interval: mean +- t(0.975, 2) sd / sqrt(3)
(t(0.975, 2) = 4.302652729911275, scipy.stats.t.ppf; numpy has no t quantile). A run's range
from its repeats: from the last load whose interval's upper end meets the SLO (below the first
that does not) to the first load whose lower end fails it; the means' bracket likewise.
The gap y against x: y's lower end over x's upper end - 1, y's upper end over x's lower end - 1.
Held to the other's tokens (outputs 4 % shorter: the request rate up to 1 / 0.96 higher for
them), the favoured run's lower end x 0.96.
"""
import numpy as np

T975_2 = 4.302652729911275


def ends(reps):
    r = np.array(reps, dtype=float)
    m, s = r.mean(axis=1), r.std(axis=1, ddof=1)
    h = T975_2 * s / np.sqrt(r.shape[1])
    return m - h, m, m + h


def bracket(vals, slo):
    """(last load meeting slo before the first failing, first load failing)"""
    lo, hi = 0.0, np.inf
    for i, v in enumerate(vals):
        if v > slo:
            hi = 10.0 * (i + 1)
            break
        lo = 10.0 * (i + 1)
    return lo, hi


def rng(reps, slo):
    lo_e, m, hi_e = ends(reps)
    return bracket(hi_e, slo)[0], bracket(lo_e, slo)[1], bracket(m, slo)


X = [[50, 60, 70], [150, 160, 170], [290, 300, 310]]
Y = [[50, 60, 70], [100, 110, 120], [150, 160, 250], [250, 260, 270]]
for name, reps in (("x", X), ("y", Y)):
    lo_e, m, hi_e = ends(reps)
    print(name, "interval lower ends", np.round(lo_e, 2), "means", np.round(m, 2), "upper ends", np.round(hi_e, 2))
    print(name, "range at 200 ms: %g-%g req/s, the means' bracket %g-%g" % (*rng(reps, 200)[:2], *rng(reps, 200)[2]))
(xl, xh, _), (yl, yh, _) = rng(X, 200), rng(Y, 200)
print("gap y vs x as measured: %+.4f %% to %+.4f %%" % ((yl / xh - 1) * 100, (yh / xl - 1) * 100))
print("y's outputs 4 %% shorter, y held to x's tokens: %+.4f %% to %+.4f %%"
      % ((yl * 0.96 / xh - 1) * 100, (yh / xl - 1) * 100))
print("x's outputs 4 %% shorter, x held to y's tokens: %+.4f %% to %+.4f %%"
      % ((yl / xh - 1) * 100, (yh / (xl * 0.96) - 1) * 100))
# at an E2E p90 SLO of 200 ms, y2's second point 160, 170, 180 ms (upper end 194.84): y2's outputs
# 4 % shorter move its limit to 200 x 0.96 = 192 ms, where its range's lower end falls to 10
Y2 = [[50, 60, 70], [160, 170, 180], [150, 160, 250], [250, 260, 270]]
(y2l, y2h, y2m), (y2l_, _, _) = rng(Y2, 200), rng(Y2, 192)
print("y2 range at 200 ms: %g-%g (means %g-%g), at 192 ms from %g" % (y2l, y2h, *y2m, y2l_))
print("gap y2 vs x as measured: %+.4f %% to %+.4f %%, held: %+.4f %% to %+.4f %%"
      % ((y2l / xh - 1) * 100, (y2h / xl - 1) * 100, (min(y2l, y2l_) * 0.96 / xh - 1) * 100, (y2h / xl - 1) * 100))
# per GPU: y on 2 GPUs at 22 i req/s (its range 44-88, the means' bracket 66-88: per GPU 22-44 and
# 33-44) against x on 1 GPU (20-30, means 20-30)
print("per GPU y vs x as measured: %+.4f %% to %+.4f %%, held: %+.4f %% to %+.4f %%"
      % ((yl * 1.1 / xh - 1) * 100, (yh * 1.1 / xl - 1) * 100, (yl * 1.1 * 0.96 / xh - 1) * 100,
         (yh * 1.1 / xl - 1) * 100))

# compare.lua end to end, max sustained throughput about the same as measured, held to the tokens
# not (test_token_orders "FIFO" test): a FIFO server answering cap requests/s, request k of n sent at
# (k - 1) / r, done at max(sent, k / cap) + 0.4 s. Below cap it keeps up (its rate r); above, its
# answers come at cap. A: cap 15.01, loads 14, 15, 16 (sustained 15, most 15.01); B: cap 15.27,
# loads 14, 15.25, 17 (sustained 15.25, most 15.27), outputs 48 against A's 50.
sa, ca_, sb, cb_ = 15.0, 15.01, 15.25, 15.27


def mean_gap(lo, hi):
    return (hi - lo) / ((hi + lo) / 2) * 100


print("max sustained: least gap %+.4f %%, largest %+.4f %% of their mean (both within 2 %%)"
      % (mean_gap(ca_, sb), mean_gap(sa, cb_)))
print("held to A's tokens: B's 15.25 x 0.96 = %.4f, A above by up to %+.4f %% of their mean (beyond 2 %%)"
      % (sb * 0.96, mean_gap(sb * 0.96, ca_)))
# the rates' noise (Poisson, 60000 requests a load): each 95 % half-width 1.96 r / sqrt(n); the least
# gap (0.24 req/s) must clear both combined for an order: sqrt(hA^2 + hB^2)
n = 60000
h = np.hypot(1.959964 * ca_ / np.sqrt(n), 1.959964 * sb / np.sqrt(n))
print("the two rates' combined 95 %% half-width at n = %d: %.4f req/s, below the least gap %.2f" % (n, h, sb - ca_))
# the capacity in output tok/s (each range's ends x its run's output tokens a request): x 1000-1500,
# y 960-1920 tok/s. x's longer outputs may raise its tok/s (less prefill an output token): x's
# lower end held, / (1 / 0.96); shorter outputs never raise y's. At the E2E SLO y's range read at
# 192 ms starts at 10 req/s, 480 tok/s.
xt, yt = (xl * 50, xh * 50), (yl * 48, yh * 48)
print("tok/s y vs x as measured: %+.4f %% to %+.4f %%; held (x's lower end x 0.96): up to %+.4f %%; at the E2E SLO "
      "y's lower end 480 tok/s: from %+.4f %%" % ((yt[0] / xt[1] - 1) * 100, (yt[1] / xt[0] - 1) * 100,
                                                (yt[1] / (xt[0] * 0.96) - 1) * 100, (min(y2l, y2l_) * 48 / xt[1] - 1) * 100))

# treatments.lua, max sustained "no clear difference" (test_token_orders "treatments' max sustained"):
# a's max sustained point (15 req/s offered) repeats 14.3, 14.4, 14.5 req/s, b's 14.4, 15.0, 15.6;
# each limit's range from the lower end of its point's 95 % interval (t(0.975, 2)) up to its
# interval's upper end or its ceiling (a 14.5, b 15.75), whichever higher
a_pt, b_pt = np.array([14.3, 14.4, 14.5]), np.array([14.4, 15.0, 15.6])


def ci(x):
    h = T975_2 * x.std(ddof=1) / np.sqrt(len(x))
    return x.mean() - h, x.mean() + h


(alo, ahi), (blo, bhi) = ci(a_pt), ci(b_pt)
ahi, bhi = max(ahi, 14.5), max(bhi, 15.75)
print("max sustained b vs a as measured: %+.4f %% to %+.4f %%, b held to a's tokens (x 0.96): from %+.4f %%"
      % ((blo / ahi - 1) * 100, (bhi / alo - 1) * 100, (blo * 0.96 / ahi - 1) * 100))
