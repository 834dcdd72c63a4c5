-- Capacity at SLO with repeats (audit40 #1, #2):
-- 1. a load point past saturation whose repeats' TTFT p90 t-interval, clipped at 0, reached
--    below the SLO counted as meeting it at the interval's good end: a load that met the SLO
--    above one that clearly failed it (non-monotone), so the range the repeats allow was
--    open above ("≥ 9.98 req/s", "at least +2.3 %") past the run's own ceiling. Past
--    saturation a mean above the SLO fails it, at both ends, as a one-run point's percentile
--    does there; and an end left open by a non-monotone capacity stops at the run's ceiling.
-- 2. a crashed repeat (its failures beyond chance against its siblings', over the error-rate
--    limit) made the capacities "not shown to differ" at any load, also past saturation, or
--    where another SLO fails beyond doubt: no capacity can lie there, so a crash there leaves
--    the order as the rest of the evidence gives it. Where the crash rule holds, the Headline's
--    Delta and the CSV give no gap beside "not shown to differ".
-- Expected values by hand or python3 (statistics.stdev, t(0.975, 2) = 4.302652729911275),
-- written beside each case.
local t = require "testlib"
local lp = require "llmd.loadpoints"
local decision = require "llmd.decision"
local report = require "llmd.report"

-- (testlib.repeats_run: offered x 60 requests a repeat, 100 output tokens a request)
local rrun = t.repeats_run

-- A load point at rate with one repeat per TTFT p90 in ttfts, each keeping up (achieved =
-- offered, no failures), but for repeat `crash`, which failed 12 % of its requests (and
-- achieved 88 % of the offered).
local function rep(rate, ttfts, crash)
  local r = {}
  for k, v in ipairs(ttfts) do
    r[k] = { rate * (crash == k and 0.88 or 1), v, crash == k and math.floor(rate * 60 * 0.12) or 0 }
  end
  return { rate, r }
end

local function sd(label, run) return { label = label, state = { label = label }, run = run, kv = {} } end
local SLO = decision.parse_slo("ttft_p90_ms=500")
local CAP_ROW = "Capacity at SLO (TTFT p90 ≤ 500.0 ms and Error rate ≤ 5 % by default)"

local function csv_row(m)
  for _, r in ipairs(report.curve_rows(m)) do
    if r.key == "capacity_at_slo_rps" then return r end
  end
end

t.test("a saturated load whose repeats' interval reaches below the SLO does not meet it (audit40 #1)", function()
  -- 10, 20, 30 req/s kept up; 40 req/s achieved 30, 31, 32 (mean 31, 77.5 %: saturated).
  -- TTFT p90 t-intervals (python3): 110 [85.2, 134.8]; 300 [51.6, 548.4]; 820 [770.3, 869.7];
  -- 9333.3 [-14145.8 (0), 32812.5] at the saturated load. Main read 40 req/s as meeting
  -- 500 ms at its good end (0), above 30 req/s failing it (770.3): non-monotone, range open
  -- above (hi = inf). Now 40 req/s fails (mean 9333 > 500): the good end crosses between 20
  -- (51.6) and 30 (770.3), bracket 20..30 (achieved means); the bad end between 10 (134.8)
  -- and 20 (548.4), bracket 10..20; the means between 20 (300) and 30 (820): range 10..30,
  -- within the most achieved at any load, 31.
  local pts = lp.points(rrun {
    { 10, { { 10, 100 }, { 10, 110 }, { 10, 120 } } },
    { 20, { { 20, 200 }, { 20, 300 }, { 20, 400 } } },
    { 30, { { 29.9, 800 }, { 30, 820 }, { 30.1, 840 } } },
    { 40, { { 30, 2000 }, { 31, 6000 }, { 32, 20000 } } } })
  local sat = lp.saturation(pts, { slo = SLO })
  t.eq(sat.point, 4)
  local iv = lp.capacity_interval(pts, SLO)
  t.eq({ iv.low.kind, iv.high.kind }, { "interpolated", "interpolated" })
  t.near(iv.lo, 10, 1e-9)
  t.near(iv.hi, 30, 1e-9)
  t.near(iv.top, 31, 1e-9)
  t.ok(iv.hi <= iv.top, "the range stops at the run's most achieved")
  -- and no more repeats are asked of the saturated load: nothing would settle it (its mean
  -- fails); only 20 req/s, whose interval 51.6..548.4 straddles 500, is listed
  local list = lp.unclear_loads(pts, SLO, nil, sat)
  t.eq(#list, 1)
  t.eq({ list[1].point, list[1].remedy }, { 2, "more repeats" })
end)

t.test("a non-monotone good end stops at the first load that failed beyond doubt (audit40 #1, fixg49)", function()
  -- means 110, 820, 600 (fail from 20 req/s on: monotone), 40 req/s saturated (31 of 40).
  -- t-intervals (python3): 20 req/s 770.3..869.7 fails beyond doubt; 30 req/s (200, 600,
  -- 1000) -393.7 (0)..1593.7 straddles 500, kept up. On the good ends 30 req/s meets 500 ms
  -- above 20's failure: non-monotone, open above before audit40 (hi = inf), then stopped at
  -- the most the run achieved at any load (31); since fixg49 (audit49 F4) it ends at 20 req/s,
  -- which failed even at its good end: no capacity lies at or above a load that certainly
  -- failed (30's pass is a note). The bad ends cross between 10 (134.8) and 20 (869.7): lo 10.
  local pts = lp.points(rrun {
    { 10, { { 10, 100 }, { 10, 110 }, { 10, 120 } } },
    { 20, { { 20, 800 }, { 20, 820 }, { 20, 840 } } },
    { 30, { { 29.9, 200 }, { 30, 600 }, { 30.1, 1000 } } },
    { 40, { { 30, 2000 }, { 31, 6000 }, { 32, 20000 } } } })
  local iv = lp.capacity_interval(pts, SLO)
  t.eq({ iv.low.kind, iv.high.kind }, { "interpolated", "non_monotone" })
  t.near(iv.lo, 10, 1e-9)
  t.near(iv.hi, 20, 1e-9)
  t.eq(iv.high.cut, { point = 2, rps = 20, offered = 20 })
  -- in output tok/s likewise: 20 req/s's, 100 x 20
  t.near(iv.hi_tps, 2000, 1e-6)
end)

-- A: capacity between 10 and 20 req/s by every end; B: between 30 and 40.
local function run_a(crash)
  return rrun { rep(10, { 100, 110, 120 }, crash), rep(20, { 800, 820, 840 }), rep(30, { 900, 950, 1000 }),
    rep(40, { 1000, 1100, 1200 }) }
end
local function run_b(extra)
  local list = { rep(10, { 100, 110, 120 }), rep(20, { 200, 210, 220 }), rep(30, { 300, 310, 320 }),
    rep(40, { 800, 820, 840 }, extra == "crash at 40" and 2 or nil) }
  if extra == "crash past saturation" then
    -- 50 req/s offered: 41, 40 and 42 achieved (82 %, saturated with the crash or without it:
    -- 41 and 42 of 50 are 82 % and 84 %); repeat 2 failed 600 of 3000 (20 %), the others none
    list[#list + 1] = { 50, { { 41, 400, 0 }, { 40, 3000, 600 }, { 42, 9000, 0 } } }
  end
  return rrun(list)
end

t.test("a crash past saturation, or where another SLO fails beyond doubt, leaves the order (audit40 #2)", function()
  for _, case in ipairs { "crash past saturation", "crash at 40" } do
    local m = report.build { a = sd("A", run_a()), b = sd("B", run_b(case)), slo = SLO, generated = 0 }
    -- python3 chi-square on 0, 600, 0 of 3000 (or 0, 288, 0 of 2400 at 40 req/s): p < 1e-9,
    -- over the 5 % limit in one repeat, within it in two: main's crash rule took the order.
    -- Past saturation no capacity lies (B's saturated at 50: 41 of 50); at 40 req/s B's TTFT
    -- p90 interval 770.3..869.7 fails 500 ms whatever its error rate
    t.eq(decision.error_slo_dispersion(m.b.run or run_b(case), lp.points(run_b(case)), SLO), nil)
    local ev = m.capacity.evidence
    -- A's range 10..20, B's 30..40 (30..38.4 where the crashed repeat's 35.2 req/s is in 40's
    -- mean, (40 + 35.2 + 40) / 3): apart, B higher
    t.eq({ ev.verdict, ev.winner, ev.overdispersed }, { "B higher", "b", nil })
    t.eq(csv_row(m).order, "b_higher")
    local h = t.headline_row(m, CAP_ROW)
    t.ok(h.delta_text:match("^%+10%.00 to %+"), h.delta_text)
  end
end)

t.test("a crash at a load where a capacity could lie: no order, and no gap beside it (audit40 #2)", function()
  -- A's repeat 2 at its lowest load failed 72 of 600 (12 %; siblings 0): the crash decides
  -- whether A meets the 5 % limit there. A's range reaches down to 0 (the error rate's
  -- t-interval, 4 % +- 4.303 x 6.93 / sqrt 3 = -13.2..21.2 %, straddles 5 %), its top 20; B's
  -- 30..40: apart, which main's Delta gave as "+10.00 to +40.00 req/s" beside "not shown to
  -- differ"
  -- (its files name every failure a server error: a crash, llmd.decision.failures_kind; where
  -- they name none the Delta says the cause is unknown, fixb45: test_crash_direction)
  local ra = run_a(2)
  for _, st in ipairs(ra.stages) do
    st.failure_kinds = { timeout = 0, error = st.metrics.values.requests_failed or 0, unknown = 0 }
  end
  local m = report.build { a = sd("A", ra), b = sd("B", run_b()), slo = SLO, generated = 0 }
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.winner }, { "not shown to differ", nil })
  t.eq(ev.overdispersed.a.point, 1)
  local h = t.headline_row(m, CAP_ROW)
  t.eq(h.delta_text, "N/A (a crashed repeat decides whether the error-rate SLO holds: either may be higher)")
  t.eq(h.pct_text, h.delta_text)
  local r = csv_row(m)
  t.eq({ r.order, r.delta }, { "either_may_be_higher", nil })
  t.lacks(r.note, "B - A from the measured loads", "csv note")
  t.contains(m.verdict_line or m.summary, "not shown to differ", "verdict")
end)

-- fixh42: ranges from repeats on both sides were an order whatever the noise of the achieved
-- rates they are read at (decision.ceiling_noise_order skipped them): audit42's cAy >= 10.12
-- req/s against cB's ceiling 9.60 was "Shown by the repeats ... apart" in the capacity row
-- beside the max sustained row's "within the noise of the rates" for the same two rates. The
-- ranges come of the SLO metrics' intervals at loads read by their means; the rates' own
-- 95 % intervals (count, widened to the repeats' t-interval where their rates differ beyond it,
-- loadpoints.rate_interval) decide
-- whether a range above the other's end is an order, by one rule with the max sustained row.
-- Runs: x offered 10, 20, 30 achieved 10, 20, 23 (saturated at 30: bound >= 20, ceiling 23);
-- y offered 10, 20, 25, 30 achieved 10, 20, 24.5, 25 (bound >= 24.5, ceiling 25); each load 3
-- repeats whose rates are spread +-d about the mean, TTFT p90 51, 52, 53 ms (SLO 100 ms: every
-- load meets it), each repeat 150, 300, 330 (x) / 150, 300, 368, 375 (y) requests times k.
local function noise_pair(k, d)
  local function stages(offered, achieved, counts)
    local s = {}
    for i, r in ipairs(achieved) do
      for j = 1, 3 do
        s[#s + 1] = { rate = offered[i], values = { throughput_req_s = r + (j - 2) * d, ttft_p90_ms = 50 + j,
          error_rate_pct = 0, requests_ok = counts[i] * k } }
      end
    end
    return t.run_of(s)
  end
  local x = stages({ 10, 20, 30 }, { 10, 20, 23 }, { 150, 300, 330 })
  local y = stages({ 10, 20, 25, 30 }, { 10, 20, 24.5, 25 }, { 150, 300, 368, 375 })
  return report.build { a = sd("x", x), b = sd("y", y), slo = decision.parse_slo("ttft_p90_ms=100"), generated = 0 },
    x, y
end
local NOISE_CAP_ROW = "Capacity at SLO (TTFT p90 ≤ 100.0 ms and Error rate ≤ 5 % by default)"

t.test("ranges from repeats apart within the noise of the rates order nothing, as the max sustained row (fixh42)",
  function()
  -- /usr/bin/python3, z = 1.959963984540054: y's 24.5 from 3 x 368 = 1104 requests, half-width
  -- 24.5 z / sqrt(1104) = 1.4452; x's ceiling 23 from 990, 23 z / sqrt(990) = 1.4327 (the
  -- repeats' t-interval, 4.302652729911275 x 0.1 / sqrt(3) = 0.2484, narrower); the gap 1.5,
  -- half-width hypot = 2.0350129124351404: from -0.5350129124351404 to 3.5350129124351404.
  -- Main: "B higher", winner y, "Shown by the repeats at every load point".
  local m = noise_pair(1, 0.1)
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.winner, ev.within_noise, ev.order_open }, { "untested", nil, "b", true })
  t.near(ev.noise.gap_lo, -0.5350129124351404, 1e-9)
  t.near(ev.noise.gap_hi, 3.5350129124351404, 1e-9)
  t.eq({ m.verdict.kind, m.verdict.higher }, { "cannot say", nil })
  t.lacks(m.verdict.text, "Shown by the repeats")
  -- the why, in the Verdict and the row's Evidence
  local why = "the measured loads put y above x only within the noise of those rates: y's 24.50 req/s less x's "
    .. "23.00 req/s, 1.50 req/s, has a 95 % interval from -0.54 req/s to 3.54 req/s (from 1104 and 990 requests)"
  t.contains(m.verdict.text, "untested (repeats at every load point), and either may be higher: " .. why)
  local cap, sus = t.headline_row(m, NOISE_CAP_ROW), t.headline_row(m, "Max sustained throughput")
  -- (the finding first, then its basis, readable56)
  t.contains(cap.evidence_text or cap.evidence, "untested, and either may be higher (repeats at every load point, "
    .. "ranges 20.00–23.00 req/s (A) and 24.50–25.00 req/s (B), from the measured loads around the capacities on the "
    .. "means and on both ends of the repeats' 95 % intervals): " .. why)
  -- both rows give the same gap: -0.54 (the noise's end) to y's 25 less x's 20 = +5.00 req/s
  -- widened by the same half-width, 2.0350129124351404 (audit47 F3: both ends carry the noise
  -- the Evidence quotes; numpy: 7.035012912435141)
  t.eq({ cap.delta_text, cap.pct_text }, { sus.delta_text, sus.pct_text })
  t.eq(cap.delta_text, "-0.54 to +7.04 req/s (within the noise of the rates: either may be higher)")
end)

t.test("ranges from repeats apart beyond the rates' noise order; the repeats' spread widens that noise (fixh42)",
  function()
  -- 16 times the requests: half-widths 24.5 z / sqrt(17664) = 0.3613 and 23 z / sqrt(15840) =
  -- 0.3582, above the t-interval 0.2484: hypot 0.5087532281087851, gap_lo 0.9912 > 0: y higher
  local m = noise_pair(16, 0.1)
  t.eq({ m.capacity.evidence.verdict, m.capacity.evidence.winner }, { "B higher", "b" })
  t.eq(m.verdict.kind, "winner")
  -- the same counts, the repeats' rates +-0.5 apart: within their counts' noise (interval56,
  -- loadpoints.repeat_rates_differ: Cochran's Q 4.905 and 4.991, p = 0.0861 and 0.0824 > 0.05,
  -- python3: se_j^2 = x_j sum(x) / n, n = 3 x 16 x 368 and 3 x 16 x 330), so the counts' interval
  -- stays and the order with it, the gap from 0.9912 (fixh42 took the t-interval, 1.2421 a side:
  -- "within the noise")
  m = noise_pair(16, 0.5)
  t.eq({ m.capacity.evidence.verdict, m.capacity.evidence.winner }, { "B higher", "b" })
  -- +-1.0 apart: beyond them (Q 19.63 and 19.97, p = 5.5e-05 and 4.6e-05): their t-interval
  -- 4.302652729749464 x 1.0 / sqrt(3) = 2.484137711750331 on both rates, wider than the counts':
  -- hypot 3.5131, the gap from -2.0131012427597845 (python3): within the noise
  m = noise_pair(16, 1.0)
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.winner, ev.within_noise }, { "untested", nil, "b" })
  t.near(ev.noise.gap_lo, -2.0131012427597845, 1e-9)
end)

t.test("treatments.lua: ranges from repeats apart within the rates' noise share a rank, with why (fixh42)", function()
  local _, x, y = noise_pair(1, 0.1)
  local function treatment(label, r) return { label = label, run = r, runs = { r }, dirs = { label }, status = "ok",
    reasons = {} } end
  local m = require("llmd.treatments").model({ treatment("x", x), treatment("y", y) },
    { slo = decision.parse_slo("ttft_p90_ms=100") })
  -- the same noise as compare.lua's (python3 above: 1.50 req/s, -0.535 to 3.535); main: y "1",
  -- x "2", "above x (...): the capacities' ranges (...) do not overlap"
  t.eq({ m.ranking[1].label, m.ranking[1].rank_text, m.ranking[2].rank_text }, { "y", "1=", "1=" })
  t.contains(m.ranking[1].vs_next_text, "and either may be higher: the measured loads put this one above x only "
    .. "within the noise of those rates: this one's 24.50 req/s less x's 23.00 req/s, 1.50 req/s, has a 95 % "
    .. "interval from -0.54 req/s to 3.54 req/s (from 1104 and 990 requests)")
end)

-- fixd43: the repeats "to settle it" asks of a load whose repeats' interval straddles an SLO
-- were the fewest whose t-interval, mean and sd as measured, just clears it: a count that
-- clears it about 60 % of the time. newuser43, queue_sim.py --rates 3,4,5,6 --repeat 2 --slots
-- 10 --seed 31 (A): its TTFT p90s at 4 req/s, 3012.77 and 1071.76 ms (numpy.percentile of each
-- file's ttfts, 90), mean 2042.265, sd 1372.501 against 500 ms: main said "6 repeats, not 2
-- ... 6 would clear it". /usr/bin/python3, 2,000,000 normal draws of n values (numpy
-- default_rng(43), mean and sd as measured), the t-interval (t(0.975, n - 1)) wholly above
-- 500 ms in: n = 3 0.20941, 6 0.60005, 8 0.77766, 9 0.83844; the noncentral t by numerical
-- integration (numpy, trapezoid over s / sd, 200001 steps): 0.20983, 0.60016, 0.77779,
-- 0.83847. 80 % needs 9. B (--slots 11 --seed 32) at 3 req/s: 255.117766 and 118.443028 ms,
-- mean 186.780, sd 96.644: below 500 ms with n = 3 in 0.79470 of draws (integral 0.79556),
-- 4 in 0.98229 (0.98237): 4, where main said 3.
t.test("the repeats that settle a load are sized for 80 % chance, as the longer loads are (fixd43)", function()
  local stattest = require "llmd.stattest"
  for n, want in pairs { [3] = 0.20983, [6] = 0.60016, [8] = 0.77779, [9] = 0.83847 } do
    t.near(stattest.t_interval_power(2042.265 - 500, 1372.501, n), want, 2e-5)
  end
  t.near(stattest.t_interval_power(500 - 186.780397, 96.64363405669471, 3), 0.79556, 2e-5)
  t.near(stattest.t_interval_power(500 - 186.780397, 96.64363405669471, 4), 0.98237, 2e-5)
  -- rates 10, 20, 30 (repeated_run): 20 req/s straddles 500 ms (0 to 14373.7), 10 and 30 do not
  -- Sized on the spread as measured, 2 repeats at 2042.3 ms (sd 1372.5) asked for 9, which clear
  -- it in 84 % of draws of that mean and sd; but from 2 repeats the spread is one degree of
  -- freedom, and such counts on audit53's ladders cleared in 36 % of draws of the real server
  -- (task power54, tests/sim/power54_settle.py). Sized on the spread's upper 80 % confidence
  -- limit, 1372.501 / sqrt(chi2(0.2, 1) = 0.0641848) = 5417.47 ms (python3), no count up to 10
  -- clears it: "more than 10 repeats may be needed".
  local x = t.repeated_run { { 100, 120 }, { 3012.77, 1071.76 }, { 9000, 9100 } }
  local list = lp.unclear_loads(lp.points(x), SLO, nil)
  t.eq(#list, 1)
  t.eq({ list[1].point, list[1].remedy, list[1].repeats, list[1].need, list[1].spread_limited },
    { 2, "more repeats", 2, nil, true })
  t.near(list[1].sd_plan, 5417.474, 0.01)
  -- (mean 186.78, sd 96.64: 4 as measured; at the limit 381.47, 10 clear it in 63.8 %, numpy)
  local y = t.repeated_run { { 255.117766, 118.443028 }, { 9000, 9100 } }
  local ey = lp.unclear_loads(lp.points(y), SLO, nil)[1]
  t.eq({ ey.need, ey.spread_limited }, { nil, true })
  -- 3 repeats 640, 740, 840 ms (mean 740, sd 100, interval 491.6 to 988.4 ms): the upper 80 %
  -- limit of the spread 100 sqrt(2 / 0.4462871) = 211.69 ms; 8 repeats of that clear 500 ms in
  -- 78.5 % of numpy draws, 9 in 84.5 % (python3, 400,000 draws each): 9
  local z = t.repeated_run { { 100, 120 }, { 640, 740, 840 }, { 9000, 9100 } }
  local ez = lp.unclear_loads(lp.points(z), SLO, nil)[1]
  t.eq({ ez.point, ez.need, ez.repeats }, { 2, 9, 3 })
  t.near(ez.sd_plan, 211.6936, 1e-3)
  -- the Verdict says the chance, as the longer loads' advice does (decision.noise_settle_text)
  local b = t.repeated_run { { 100, 120 }, { 150, 170 }, { 3012.77, 1071.76 }, { 9000, 9100 } }
  local m = report.build { a = sd("x", x), b = sd("y", b), slo = SLO, generated = 0 }
  t.eq(m.verdict.kind, "no clear difference")
  -- (the interval's lower end is clipped at 0 and says so, audit47 F6: numpy, mean 2042.265 -
  -- t(0.975, 1) 12.706204736174698 x sd 1372.501 / sqrt 2 = -10289.17 ms)
  t.contains(m.verdict.text, "To settle it: x at 20 req/s offered: more than 10 repeats may be needed (TTFT p90 "
    .. "2,042.3 ms over 2 repeats, their 95 % interval 0.0 ms (clipped at 0 from the t-interval's -10,289.2 ms) to "
    .. "14,373.7 ms, across the 500.0 ms limit; their spread, 1,372.5 ms, is measured on 1 degree of freedom, and at "
    .. "its upper 80 % confidence limit, 5,417.5 ms, 10 repeats would clear it with less than 80 % chance); y at 30 "
    .. "req/s offered: more than 10 repeats may be needed")
  local mz = report.build { a = sd("x", z), b = sd("y", b), slo = SLO, generated = 0 }
  t.contains(mz.verdict.text, "x at 20 req/s offered: 9 repeats, not 3 (TTFT p90 740.0 ms, the repeats' 95 % interval "
    .. "491.6 ms to 988.4 ms, across the 500.0 ms limit; 9 would clear it with 80 % chance if their mean is truly as "
    .. "measured and their spread no more than 211.7 ms, the upper 80 % confidence limit of the 100.0 ms measured)")
end)

t.test("chi2_quantile and sd_upper: the spread's upper confidence limit (power54)", function()
  local stattest = require "llmd.stattest"
  -- python3: chi2(0.2, 1) = NormalDist().inv_cdf(0.6)^2, chi2(0.2, 2) = -2 ln 0.8
  t.near(stattest.chi2_quantile(0.2, 1), 0.0641848, 1e-7)
  t.near(stattest.chi2_quantile(0.2, 2), 0.4462871, 1e-7)
  t.near(stattest.sd_upper(1372.501, 2, 0.8), 5417.4726, 1e-3)
  t.near(stattest.sd_upper(100, 3, 0.8), 211.6936, 1e-3)
end)

-- Defects of the two-run comparison left by session 30 (the lead's cmpfix brief, session 31),
-- each reproduced: every test here fails without its fix. Expected values are worked by
-- hand or by python3 (numpy) on the fixture files, as said beside them.
-- (Formerly test_compare_fixes.lua.)
do
  local json = require "llmd.json"
  local render = t.render_report

  local function cap_model(ra, rb, slo)
    return report.build { a = sd("x", ra), b = sd("y", rb), slo = decision.parse_slo(slo or "ttft_p90_ms=200"),
      generated = 0, workspace = "/tmp/cmpfix" }
  end

  -- Item 3: "no clear difference" in capacity beside a wide gap read as sameness. Two runs of
  -- repeats (t.repeated_run: point i at 10 i req/s, TTFT p90 per repeat as listed); each
  -- point's 95 % interval mean +- t(0.975, 2) sd / sqrt 3 (/usr/bin/python3, numpy):
  --   x {50,60,70} {150,160,170} {290,300,310}: upper ends 84.84 184.84 324.84, lower ends
  --     35.16 135.16 275.16: every end crosses 200 ms between 20 and 30 req/s: range 20-30
  --   y {50,60,70} {100,110,120} {150,160,250} {250,260,270}: upper ends cross between 20 and
  --     30 (323.48 at 30), the means (186.67 at 30, 260 at 40) and the lower ends (49.85,
  --     235.16) between 30 and 40: range 20-40
  -- The ranges overlap and the means' brackets (20-30, 30-40) do not: "no clear difference".
  -- The gap they allow, y against x: 20 / 30 - 1 = -33.3 % to 40 / 20 - 1 = +100.0 % (by hand).
  local X_REP = { { 50, 60, 70 }, { 150, 160, 170 }, { 290, 300, 310 } }
  local Y_REP = { { 50, 60, 70 }, { 100, 110, 120 }, { 150, 160, 250 }, { 250, 260, 270 } }

  t.test("3: decision.no_clear_difference_text says the gap the overlapping ranges allow", function()
    local pct = function(v) return ("%+.1f %%"):format(v) end
    t.eq(decision.no_clear_difference_text({ lo_pct = -17.8, hi_pct = 438 }, pct, "y vs x"),
      "either may be higher — the repeats' ranges overlap; the gap could be anywhere from -17.8 % to +438.0 % (y vs x)")
    t.eq(decision.no_clear_difference_text({ lo_pct = -17.8, hi_pct = math.huge }, pct),
      "either may be higher — the repeats' ranges overlap; the gap could be anything from -17.8 % up")
    t.eq(decision.no_clear_difference_text({ lo_pct = -17.8, hi_pct = 2000 }, pct),
      "either may be higher — the repeats' ranges overlap; the gap could be anything from -17.8 % up")
    t.eq(decision.no_clear_difference_text({ hi_pct = 12 }, pct),
      "either may be higher — the repeats' ranges overlap; the gap could be anything up to +12.0 %")
    t.eq(decision.no_clear_difference_text(nil, pct),
      "either may be higher — the repeats' ranges overlap; the ranges leave room for any gap")
  end)

  t.test("3: capacity 'no clear difference' is printed with the gap its ranges allow: md, HTML, JSON, CSV", function()
    local m = cap_model(t.repeated_run(X_REP), t.repeated_run(Y_REP))
    local ev = m.capacity.evidence
    t.eq(ev.verdict, "no clear difference") -- the verdict itself is kept (other code reads it)
    t.eq({ m.capacity.a.interval.lo, m.capacity.a.interval.hi, m.capacity.b.interval.lo, m.capacity.b.interval.hi },
      { 20, 30, 20, 40 })
    local want = "either may be higher — the repeats' ranges overlap; the gap could be anywhere from -33.3 % to "
      .. "+100.0 % (y vs x)"
    -- the Summary and the Headline's evidence (both capacity rows)
    t.ok(m.summary:find("Capacity within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: 22.86 req/s (the repeats allow 20.00–30.00 req/s) for "
      .. "x, 31.82 req/s (the repeats allow 20.00–40.00 req/s) for y: no clear difference (measured with repeats): "
      .. want, 1, true), m.summary)
    -- (verdict55: the Verdict's own words, measured and no difference found, never "Cannot say",
    -- the words of what these data cannot decide, which it printed before)
    t.eq(m.verdict.kind, "no clear difference")
    t.eq(m.verdict.text:match("^[^:]*"), "No clear difference in capacity within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % "
      .. "by default")
    t.contains(m.verdict.text, "measured with repeats at every load point, whose ranges overlap, so neither is shown "
      .. "higher, nor are they shown the same (B − A: -33.3 % to +100.0 %): no winner.")
    t.lacks(m.verdict.text, "Cannot say")
    t.ok(not m.summary:find("No clear difference in capacity", 1, true), m.summary)
    for _, label in ipairs { "Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)", "Capacity at SLO, output tok/s" } do
      local row = t.headline_row(m, label)
      -- (the finding first, its basis after it, readable56)
      t.eq(row.evidence:sub(-#want + #"either may be higher"), want:sub(#"either may be higher" + 1))
      t.eq(row.evidence:sub(1, #"either may be higher (repeats at every load point"),
        "either may be higher (repeats at every load point")
    end
    -- the rendered reports
    for _, name in ipairs { "comparison_report.md", "comparison_report.html" } do
      local text = render(name, m)
      -- (what follows "either may be higher": the Headline rows put their basis between, readable56)
      local tail = want:sub(#"either may be higher" + 1)
      local w = name:match("html$") and tail:gsub("'", "&#39;") or tail -- (HTML escapes the apostrophe)
      local _, n = text:gsub(w:gsub("%p", "%%%0"), "")
      t.ok(n >= 3, name .. ": " .. n) -- the Summary and the two Headline rows
      t.ok(not text:find("they overlap, no clear difference", 1, true), name)
    end
    -- comparison.json: the gap beside the verdict
    local plain = json.decode(json.encode(report.plain(m)))
    t.eq(plain.capacity.evidence.verdict, "no clear difference")
    t.near(plain.capacity.evidence.gap_lo_pct, -100 / 3, 1e-9)
    t.near(plain.capacity.evidence.gap_hi_pct, 100, 1e-9)
    t.eq(plain.capacity.evidence.text, want)
    -- the CSV: the verdict cell kept, the note opens with the gap
    local line = report.csv(m):match("\ncapacity_at_slo_rps,[^\n]*")
    t.ok(line:find(',no clear difference,,,,"' .. want .. "; x: 22.86 req/s", 1, true), line)
    -- per GPU (2 GPUs each): the ranges halved, 10-15 and 10-20 req/s, the same gap (10 / 15 - 1,
    -- 20 / 10 - 1: by hand), said on the per-GPU row, in its JSON evidence and its CSV row
    local function gsd(label, run) return { label = label, state = { label = label, stack = { gpus = 2 } }, run = run,
      kv = {} } end
    m = report.build { a = gsd("x", t.repeated_run(X_REP)), b = gsd("y", t.repeated_run(Y_REP)),
      slo = decision.parse_slo("ttft_p90_ms=200"), generated = 0, workspace = "/tmp/cmpfix" }
    t.eq(m.capacity.per_gpu.evidence.verdict, "no clear difference")
    local ev_gpu = t.headline_row(m, "Capacity at SLO per GPU").evidence
    -- (the finding, its basis, then the rest, readable56)
    t.eq(ev_gpu:sub(-#want + #"either may be higher"), want:sub(#"either may be higher" + 1))
    t.eq(ev_gpu:sub(1, #"either may be higher ("), "either may be higher (")
    t.eq(json.decode(json.encode(report.plain(m))).capacity.per_gpu.evidence.text, want)
    line = report.csv(m):match("\ncapacity_at_slo_rps_per_gpu,[^\n]*")
    t.ok(line:find(",no clear difference,", 1, true) and line:find(want, 1, true), line)
  end)
end

-- A pass against a clear fail at one offered rate (newuser44 #3): two queue_sim.py servers,
-- 20 slots (seed 21) and 12 (seed 23), rates 2, 4, 6, 8 req/s, 3 repeats each. At 6 req/s
-- offered rA's TTFT p90 is 117.4, 113.0, 115.1 ms (mean 115.2, t-interval 109.8-120.6) and
-- rB's 2365.0, 4183.9, 2881.9 ms (mean 3143.6, t-interval 815.3-5472.0): python3 on the
-- files' p90_ttft_ms, statistics.stdev, t(0.975, 2) = 4.302652729911275: the intervals lie on
-- opposite sides of 500 ms. On main the Verdict said "Cannot say": the spans (rA from 5.75
-- req/s, rB up to its ceiling 5.62) are apart only within the noise of those achieved rates,
-- but both were sent 6 req/s, so that load orders them.
local function queue_pair(specs, slo)
  local proc = require "llmd.proc"
  local harness = require "llmd.harness"
  local d = t.tmpdir()
  local sides = {}
  for i, s in ipairs(specs) do
    local dir = d .. "/" .. s.label
    local r = proc.run { "/usr/bin/python3", t.root() .. "/tests/data/queue_sim.py", dir, "--rates", s.rates,
      "--slots", tostring(s.slots), "--seed", tostring(s.seed), "--repeat", "3", table.unpack(s.extra or {}) }
    t.eq(r.code, 0, r.stderr)
    sides[i] = { label = s.label, state = { label = s.label }, run = harness.extract(dir, {}), kv = {} }
  end
  return report.build { a = sides[1], b = sides[2], generated = 0, slo = decision.parse_slo(slo or "ttft_p90_ms=500") }
end

local function headline_row(m, key)
  for _, r in ipairs(m.headline) do if r.key == key then return r end end
end

t.test("a pass and a clear fail at one offered rate order the capacities, whatever the achieved rates' noise, "
  .. "but name no winner", function()
  if not t.have_numpy() then return end
  local m = queue_pair { { label = "rA", rates = "2,4,6,8", slots = 20, seed = 21 },
    { label = "rB", rates = "2,4,6,8", slots = 12, seed = 23 } }
  local ev = m.capacity.evidence
  -- ordered by that load (rA at least as high), but its least gap is 0: the two achieved
  -- rates there, 5.75 and 5.62 req/s, differ by the sends' noise (audit47 F2: main named rA
  -- the winner on a margin read off estimates beside them)
  t.eq({ ev.verdict, ev.winner, ev.least_below_threshold, ev.margin_higher, ev.margin_pct },
    { "not shown to differ", nil, true, "a", 0 })
  t.eq(ev.same_load.offered, 6.0)
  t.contains(m.verdict.text, "rA's capacity within TTFT p90 ≤ 500.0 ms and Error rate ≤ 5 % by default is at least as "
    .. "high as rB's (by a gap from 0, under the practical threshold of 2.0 %, with no upper end): not shown to be higher "
    .. "by the practical threshold, no winner.")
  t.contains(m.verdict.text, "put rA at least as high as rB (rA met the SLOs at 5.75 req/s and rB already failed "
    .. "them at 5.57 req/s, at the same load (6 req/s offered))")
  t.contains(m.verdict.text, "the gap may be negligible.")
  -- the order is known, its size is not: the gap's end beside 0 is 0 (the spans' 0.13 req/s
  -- apart lie within the noise of the rates, 95 % interval -0.36 to 0.62 req/s)
  local row = headline_row(m, "capacity")
  t.eq({ row.delta_text, row.pct_text }, { "0 or less, no lower end", "0 or less, no lower end" })
  t.contains(m.summary, "neither run is named higher")
end)

t.test("an A/A pair near the limit is not ordered by its pass and fail at one offered rate", function()
  -- one server twice (queue_sim.py, 20 slots, seeds 3202 and 3203, rates 4, 6, 8, 9, 10, 3
  -- repeats): at 8 req/s offered x's TTFT p90 means 403 ms (t-interval 207-599) and y's 741 ms
  -- (-335-1817; python3 as above): a pass and a fail by the means, but both intervals hold
  -- the 500 ms limit, so the latency's noise, not the servers, may have put them apart
  if not t.have_numpy() then return end
  local m = queue_pair { { label = "x", rates = "4,6,8,9,10", slots = 20, seed = 3202 },
    { label = "y", rates = "4,6,8,9,10", slots = 20, seed = 3203 } }
  local ev = m.capacity.evidence
  t.ok(not ev.winner and not ev.ordered, ev.verdict)
  -- (measured with repeats, no difference found: "No clear difference", its own words since
  -- verdict55; "Cannot say which sustains more load" before, the undecidable case's words)
  t.ok(m.verdict.text:find("^No clear difference in capacity"), m.verdict.text)
end)

-- verify44 #3: the same pass and fail orders them in output tok/s too. rA/rB as above, every
-- request 100 output tokens (queue_sim.py's default): the tok/s ranges the repeats allow are
-- >= 575.4 (rA) and 372.4-562.2 tok/s (rB), the req/s ones times 100 (5.75 and 3.72-5.62
-- req/s, the rows above; 562.2 < 575.4 by hand). On main the tok/s row said "the order in req/s
-- does not carry over to output tok/s ... either may be higher" (decision.capacity_touch_tps
-- lacked the relaxed same-load rule of decision.capacity_touch_at).
t.test("a pass and a clear fail at one offered rate order the capacities in tok/s too (verify44 #3)", function()
  if not t.have_numpy() then return end
  local m = queue_pair { { label = "rA", rates = "2,4,6,8", slots = 20, seed = 21 },
    { label = "rB", rates = "2,4,6,8", slots = 12, seed = 23 } }
  t.eq(decision.capacity_touch_tps(m.capacity.a, m.capacity.b), "a")
  local row = headline_row(m, "capacity_tps")
  t.eq({ row.delta_text, row.pct_text }, { "0 or less, no lower end", "0 or less, no lower end" })
  t.lacks(row.evidence, "does not carry over")
  -- (the req/s order names no winner, its least gap 0 (audit47 F2): nor does the tok/s row)
  t.contains(row.evidence, "not shown to be higher by the practical threshold, no winner")
  t.lacks(row.evidence, "rA higher")
end)

-- verify44 #2: one load point, 9.5 req/s offered, 20 slots, 40 s a repeat, a 2 s client
-- timeout (queue_sim.py --dur 40 --timeout 2), seeds 602 (x) and 603 (y). TTFT p90 of the
-- repeats (python3 on the files' p90_ttft_ms, statistics.stdev, t(0.975, 2) as above): x
-- 731.9, 1777.6, 892.3 ms (mean 1133.9, t-interval -265.0-2532.9), y 1743.6, 1546.4, 1879.4 ms
-- (mean 1723.2, 1307.3-2139.1): x passes 1,500 ms by its mean and y fails, at the same offered
-- load, both intervals holding the limit. There are no load steps to blame: more repeats at
-- that load could settle it. On main: "the load steps are too coarse to order them, whatever
-- the repeats".
t.test("a pass and a fail by the means at one offered load: repeats there would settle it (verify44 #2)", function()
  if not t.have_numpy() then return end
  local extra = { "--dur", "40", "--timeout", "2" }
  local m = queue_pair({ { label = "x", rates = "9.5", slots = 20, seed = 602, extra = extra },
    { label = "y", rates = "9.5", slots = 20, seed = 603, extra = extra } }, "ttft_p90_ms=1500")
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.winner, ev.open_same_load and ev.open_same_load.offered,
    ev.open_same_load and ev.open_same_load.passed }, { "not shown to differ", nil, 9.5, "a" })
  t.contains(m.verdict.text, "x met the SLOs and y failed them by their means at the same offered load, 9.5 req/s "
    .. "offered, within the noise of the repeats there: no other load steps would order them, but more repeats at "
    .. "that load could settle it")
  t.lacks(m.verdict.text, "too coarse")
  t.lacks(m.summary, "too coarse")
  t.lacks(headline_row(m, "capacity").evidence, "too coarse")
end)

-- verify44 #1: the same setup, seeds 604 (x) and 605 (y): x's repeats failed 11, 0 and 22 of
-- 380 requests, every one an asyncio TimeoutError (python3 over the files' errors). Timeouts
-- in one repeat are a queue near capacity, not "a crash" (said on main, Verdict and evidence).
t.test("repeats that disagree on the error rate by timeouts are not called a crash (verify44 #1)", function()
  if not t.have_numpy() then return end
  local extra = { "--dur", "40", "--timeout", "2" }
  local m = queue_pair({ { label = "x", rates = "9.5", slots = 20, seed = 604, extra = extra },
    { label = "y", rates = "9.5", slots = 20, seed = 605, extra = extra } }, "ttft_p90_ms=1500")
  local ev = m.capacity.evidence
  -- (intervals55: timeouts come in bursts, and the repeats' counts are read over their one
  -- design effect in send order, loadpoints.repeats_deff: 11, 0 and 22 of 380 are then within
  -- the bursts' noise, no repeat the odd one, nothing said of one repeat at all)
  -- (interval56, tests/sim/interval56_crash.py, this server re-drawn in numpy, the rule itself run
  -- by llmdlua: of 400 draws of 3 repeats at 9.5 req/s with no crash, 34 (8.5 %) had a repeat of 0
  -- beside one of 22 or more, so 11/0/22 is within this queue's noise; the rule read 82 of 400
  -- (20.5 %) as differing: the queue's timeouts vary between repeats beyond what the design
  -- effect measured within a repeat of 380 allows. It misses crashes: a 2 s or 5 s outage in one
  -- repeat (every request sent then failing at once) was read as differing in 2 and 1 of 400 at
  -- 9.5 req/s, 0 and 0 of 400 at 8 req/s where no other request failed (0, 0 and 40 of 320 "alike":
  -- the one failing repeat's design effect, about its run of 40, is the repeats' one). Each
  -- repeat tested against the others on the others' design effect caught 200 of 200 such crashes
  -- but read 97 of 200 crash-free draws at 9.5 req/s and 63 of 200 with errors in bursts (3 %,
  -- runs of 5, 6 req/s) as differing: not adopted. Run:
  --   /usr/bin/python3 tests/sim/interval56_crash.py ./llmdlua --draws 400 [--rate 8] [--crash 2]
  --   [--burst 0.03,5 --rate 6] [--alt tests/sim/interval56_loo.lua: that candidate])
  t.eq(ev.overdispersed and ev.overdispersed.a, nil)
  local row = headline_row(m, "capacity")
  t.lacks(m.verdict.text, "in one repeat")
  t.lacks(m.verdict.text, "crash")
  t.lacks(row.evidence, "crash")
end)

-- decision.failures_kind: a crash only where the files say errors, unknown where they do not
-- say (hand-made kinds)
t.test("the kind of a load point's failures, as its files say", function()
  local function k(to, er, un) return decision.failures_kind { failure_kinds = { timeout = to, error = er, unknown = un } } end
  t.eq({ k(33, 0, 0), k(0, 5, 0), k(3, 5, 0), k(3, 0, 1), k(0, 0, 0) },
    { "timeouts", "errors", "errors_timeouts", "unknown", "unknown" })
  t.eq(decision.failures_kind {}, "unknown")
end)

-- fixe46: a load whose every one of 5 repeats failed the SLO by 1.2 to 6 times was left open
-- by its repeats' t-interval, clipped at 0 (the spread of a queue near capacity is skewed and
-- wide), so the range the repeats allow ran up to the next load and two runs 30 % apart in
-- capacity were "Cannot say" whatever the repeats. With 5 or more repeats all on one side of
-- the SLO that side holds at both ends (a sign test: 2^-5 = 3.1 % if the median were within
-- it). TTFT p90s: queue_sim.py --rates 6,7,8,9,10 --repeat 5, 20 slots --seed 2 (A) and 26
-- slots --seed 2 (B), rounded to the ms; each load kept up (achieved = offered).
-- /usr/bin/python3 (statistics.stdev, t(0.975, 4) = 2.7764451051977987):
-- A 8 req/s: mean 449.8, 308.71..590.89 (straddles 500); A 9 req/s: mean 1393.0, t-interval
-- 113.55..2672.45 (straddles), yet its least repeat 576 > 500; A 10: 1207.91..4328.89 (fails).
-- B 10 req/s: mean 280.0, 104.50..455.50 (meets); every B load meets 500 ms at both ends.
local SIGN_A = { rep(6, { 123, 114, 113, 113, 115 }), rep(7, { 242, 115, 120, 242, 169 }),
  rep(8, { 482, 573, 480, 264, 450 }), rep(9, { 988, 760, 576, 1516, 3125 }), rep(10, { 3831, 4048, 997, 2837, 2129 }) }
local SIGN_B = { rep(6, { 115, 114, 113, 113, 112 }), rep(7, { 113, 114, 114, 114, 113 }),
  rep(8, { 116, 114, 114, 112, 112 }), rep(9, { 122, 117, 113, 209, 354 }), rep(10, { 268, 411, 115, 172, 434 }) }

t.test("5 repeats that all fail a load fail it beyond doubt, however wide their t-interval (fixe46)", function()
  local pts = lp.points(rrun(SIGN_A))
  local iv = lp.capacity_interval(pts, SLO)
  -- bad end: 7 req/s (hi 255.15) meets, 8 (hi 590.89) fails: 7..8; good end: 8 (lo 308.71)
  -- meets, 9 fails by the sign test (least repeat 576): 8..9 (main: 9 met at 113.55, 10 failed:
  -- 9..10); the means' 449.8 and 1393.0: 8 + 50.2 / 943.2 = 8.053223
  t.near(iv.lo, 7, 1e-9)
  t.near(iv.hi, 9, 1e-9)
  t.near(lp.capacity(pts, SLO).rps, 8 + 50.2 / 943.2, 1e-6)
  -- no more repeats are asked of 9 req/s: they settled it; 8 req/s still straddles
  local list = lp.unclear_loads(pts, SLO, nil, lp.saturation(pts, { slo = SLO }))
  t.eq(#list, 1)
  t.eq({ list[1].point, list[1].remedy }, { 3, "more repeats" })
  -- the Verdict: B (never violated, >= 10 at both ends) over A (at most 9): apart
  local m = report.build { a = sd("s20", rrun(SIGN_A)), b = sd("s26", rrun(SIGN_B)), slo = SLO, generated = 0 }
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.winner }, { "B higher", "b" })
  t.eq({ m.verdict.kind, m.verdict.higher }, { "winner", "b" })
  -- and the Evidence says what settled 9 req/s
  local sg = m.capacity.a.interval.sign
  t.eq({ #sg, sg[1].point, sg[1].offered, sg[1].repeats, sg[1].side }, { 1, 4, 9, 5, "fail" })
  local h = t.headline_row(m, CAP_ROW)
  t.contains(h.evidence_text or h.evidence, "both ends of the repeats' 95 % intervals; where each of 5 or more repeats "
    .. "of a load lay on one side of an SLO, on that side at both ends (a sign test)", "evidence")
end)

t.test("4 repeats all failing, or 5 not all on one side, leave the t-interval's range (fixe46)", function()
  -- A's 9 req/s with one repeat within 500 ms: 988, 760, 476, 1516, 3125 (python3: mean 1373.0,
  -- t-interval 67.99..2678.01): not all on one side, it meets 500 ms at its good end, as on main
  local list = {}
  for i, x in ipairs(SIGN_A) do list[i] = x end
  list[4] = rep(9, { 988, 760, 476, 1516, 3125 })
  local iv = lp.capacity_interval(lp.points(rrun(list)), SLO)
  t.near(iv.hi, 10, 1e-9)
  -- 4 repeats a load (the first 4 of each), 9 req/s's all failing but with a t-interval that
  -- straddles: 576, 3125, 700, 4000 (python3: mean 2100.25, t(0.975, 3) = 3.182446305284263:
  -- -647.12..4847.62): fewer than 5, the sign test says nothing (2^-4 = 6.25 %); 8 req/s's
  -- 482, 573, 480, 264 meet 500 ms at the good end, 10's 3831, 4048, 997, 2837 fail it at both
  local four = {}
  for i, x in ipairs(SIGN_A) do
    local r = {}
    for k = 1, 4 do r[k] = x[2][k] end
    four[i] = { x[1], r }
  end
  four[4] = rep(9, { 576, 3125, 700, 4000 })
  iv = lp.capacity_interval(lp.points(rrun(four)), SLO)
  t.near(iv.hi, 10, 1e-9)
end)

t.test("an A/A pair of 5 repeats a load names no winner, the sign test used where it holds (fixe46)", function()
  -- B: the same 20-slot server, --seed 3 (A is SIGN_A, --seed 2). python3, as above: B's 8
  -- req/s 390, 408, 828, 492, 398 (mean 503.2, t-interval 272.1..734.3) straddles 500 ms, its
  -- 9 req/s 977, 398, 661, 1152, 759 (one within 500: no sign test; 428.8..1150.0) too, 10
  -- fails (1912.6..4832.2): B's range 7..10, A's 7..9 (9 failed by all 5): they overlap.
  local b = { rep(6, { 114, 114, 119, 115, 119 }), rep(7, { 118, 193, 312, 126, 131 }),
    rep(8, { 390, 408, 828, 492, 398 }), rep(9, { 977, 398, 661, 1152, 759 }), rep(10, { 1378, 3580, 3786, 3615, 4503 }) }
  local iv = lp.capacity_interval(lp.points(rrun(b)), SLO)
  t.near(iv.lo, 7, 1e-9)
  t.near(iv.hi, 10, 1e-9)
  local m = report.build { a = sd("A", rrun(SIGN_A)), b = sd("B", rrun(b)), slo = SLO, generated = 0 }
  t.eq(m.capacity.evidence.winner, nil)
  t.ok(m.verdict.kind ~= "winner" and m.verdict.kind ~= "ordered", m.verdict.kind)
  t.eq(m.verdict.higher, nil)
end)
