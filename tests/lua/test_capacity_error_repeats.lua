-- The error rate of a repeated load point is weighed against its limit (an error-rate SLO, or
-- the default 5 % failure limit) on its repeats' requests pooled, not on the Student t interval
-- of the repeats' shares (task power54). With 2 repeats that interval is their mean -+ 12.7
-- standard errors from one degree of freedom: 7.5 % and 9.2 % of 240 requests read "up to
-- 18.9 %, down to 0", so a run failing 8 % of its requests at every load was allowed to stay
-- within 5 % at its repeats' good end, and on rate ladders of 2 repeats a B failing 8 % against
-- an A failing none named no winner in 56 of 56 verdicts (audit53; tests/sim/power54_decide.py).
-- Where the repeats' failures differ beyond chance (a crash in one), the t-interval stays.
-- Expected values: python3 (tests of task power54), the binomial tails summed exactly
-- (math.comb) and each end found by bisection (lo solves P(X >= k | p) = 0.025, hi solves
-- P(X <= k | p) = 0.025), as test_capacity_error_slo.lua's; the chi-square of two groups by
-- hand, its p erfc(sqrt(x2 / 2)); the t-interval with t(0.975, 1) = 12.706204736.
local t = require "testlib"
local lp = require "llmd.loadpoints"
local decision = require "llmd.decision"

-- (testlib.repeats_run: offered x 60 requests a repeat; {achieved, TTFT p90, failed} a repeat)
local rrun = t.repeats_run
local SLO = decision.parse_slo("ttft_p90_ms=500")

t.test("repeats_error_ends: the pooled requests' exact interval, not the repeats' t-interval", function()
  -- 4 req/s, 240 requests a repeat, 18 and 22 failed (7.5 %, 9.17 %): pooled 40 of 480,
  -- Clopper-Pearson 6.020046 % to 11.174836 % (python3): beyond 5 % for certain. The
  -- repeats' t-interval: 8.333 -+ 12.706 x 1.1785 / sqrt 2 = -2.26 (clipped at 0) to 18.92 %.
  -- (chi-square of 18/240 against 22/240: 0.436, p 0.509: no more spread than chance)
  local pts = lp.points(rrun { { 4, { { 4, 100, 18 }, { 4, 100, 22 } } } })
  local p = pts[1]
  t.eq(p.repeat_counts.failed, { 18, 22 })
  t.eq(p.repeat_counts.total, { 240, 240 })
  -- (the t-interval is kept beside it; the point's interval, which every chart, table and
  -- comparison.json field draws, is the pooled one the capacity reads, task intervals55)
  t.near(p.ci.error_rate_pct.t_interval.hi, 18.92, 0.01)
  t.eq(p.ci.error_rate_pct.t_interval.clipped, true)
  t.near(p.ci.error_rate_pct.lo, 6.020046, 1e-5)
  t.near(p.ci.error_rate_pct.hi, 11.174836, 1e-5)
  t.eq({ p.ci.error_rate_pct.basis, p.ci.error_rate_pct.clipped }, { "pooled requests", nil })
  local e = lp.repeats_error_ends(p)
  t.near(e.lo, 6.020046, 1e-5)
  t.near(e.hi, 11.174836, 1e-5)
  t.eq({ e.pooled.failed, e.pooled.total }, { 40, 480 })
  -- and so the capacity range reads it (repeats_ends of the default failure limit)
  local ends = lp.repeats_ends(p, "error_rate_pct", 5)
  t.near(ends.lo, 6.020046, 1e-5)
  -- a share at the limit stays unclear: 12 and 12 of 240, 24 of 480, 3.229511 % to 7.348509 %
  local q = lp.points(rrun { { 4, { { 4, 100, 12 }, { 4, 100, 12 } } } })[1]
  local u = lp.repeats_error_ends(q)
  t.near(u.lo, 3.229511, 1e-5)
  t.near(u.hi, 7.348509, 1e-5)
  -- what would settle it: more requests at that load, with the pooled interval and counts
  local s = lp.unclear_loads({ q }, lp.capacity_slo(SLO), nil, nil)
  t.eq({ #s, s[1].remedy, s[1].key, s[1].pooled.failed, s[1].pooled.total }, { 1, "repeats", "error_rate_pct", 24, 480 })
  t.near(s[1].lo, 3.229511, 1e-5)
end)

t.test("repeats_error_ends: a crash in one repeat keeps the repeats' t-interval", function()
  -- 0 and 40 of 240 failed: chi-square 43.64, p 3.95e-11 (python3): the failures differ
  -- between repeats beyond chance, so the pooled count is no measure of their noise
  local p = lp.points(rrun { { 4, { { 4, 100, 0 }, { 4, 100, 40 } } } })[1]
  t.eq(lp.repeats_error_ends(p), nil)
  local ends = lp.repeats_ends(p, "error_rate_pct", 5)
  t.eq(ends, p.ci.error_rate_pct)
end)

t.test("repeats_error_ends: each repeat's counts read on its failures' design effect", function()
  -- 8 and 8 of 300 failed with design effect 2 each: 4 of 150 twice, 8 of 300 pooled, 1.158157
  -- to 5.186581 % (python3, as test_capacity_error_slo.lua's 8 of 300)
  local e = lp.repeats_error_ends({ values = { error_rate_pct = 8 / 300 * 100 },
    repeat_counts = { failed = { 8, 8 }, total = { 300, 300 }, deff = { 2, 2 } } })
  t.near(e.lo, 1.158157, 1e-5)
  t.near(e.hi, 5.186581, 1e-5)
  -- (no counts: nil, the t-interval stays; nor where no repeat failed a request: 0 of 60 twice
  -- would reach 2.98 % pooled, 0 of 30 twice 5.96 %, where the identical zeros were met)
  t.eq(lp.repeats_error_ends({ values = {} }), nil)
  t.eq(lp.repeats_error_ends({ values = { error_rate_pct = 0 },
    repeat_counts = { failed = { 0, 0 }, total = { 30, 30 }, deff = { 1, 1 } } }), nil)
end)

t.test("a run failing 8 % at every load is below its lowest load at both ends of its repeats", function()
  -- 4, 6, 8 req/s, 2 repeats of 240, 360, 480 requests, TTFT p90 100 ms (never near 500):
  -- 18+22 of 480 (6.020 to 11.175 %), 27+31 of 720 (6.174 to 10.289 %), 36+42 of 960 (6.475 to
  -- 10.037 %), python3: every load fails 5 % for certain. Main read each load's good end as
  -- its t-interval's (down to 0 %), met 5 % there at every load, and the range ran up to the
  -- top load (8 req/s): a run that fails 8 % of everything "may" sustain 8 req/s.
  local pts = lp.points(rrun {
    { 4, { { 4, 100, 18 }, { 4, 100, 22 } } },
    { 6, { { 6, 100, 27 }, { 6, 100, 31 } } },
    { 8, { { 8, 100, 36 }, { 8, 100, 42 } } } })
  local iv = lp.capacity_interval(pts, SLO)
  t.eq({ iv.low.kind, iv.high.kind }, { "below_lowest", "below_lowest" })
  t.near(iv.lo, 0, 1e-9)
  t.near(iv.hi, 4, 1e-9)
  -- and no more repeats are asked there: every load is settled
  t.eq(#lp.unclear_loads(pts, lp.capacity_slo(SLO), nil, lp.saturation(pts, { slo = SLO })), 0)
end)

t.test("repeats whose failures are alike to the request still give the capacity's range", function()
  -- 36 of 240 failed in each repeat at 4 req/s (15 %): their shares are identical, so their
  -- t-interval is one point, but the error rate is read on their pooled requests, 72 of 480,
  -- Clopper-Pearson 11.925355 % to 18.513304 % (python3, as above): beyond 5 % for certain,
  -- below the lowest load at both ends. Main said "repeats identical: Error rate is 15.00 % in
  -- each of the 2 repeats of load point 1, no spread to estimate" and gave no range.
  local pts = lp.points(rrun {
    { 4, { { 4, 100, 36 }, { 4, 100, 36 } } },
    { 8, { { 8, 100, 72 }, { 8, 100, 73 } } } })
  local e = lp.repeats_ends(pts[1], "error_rate_pct", 5)
  t.near(e.lo, 11.925355, 1e-5)
  t.near(e.hi, 18.513304, 1e-5)
  local iv, why = lp.capacity_interval(pts, SLO)
  t.eq(why, nil)
  t.eq({ iv.low.kind, iv.high.kind }, { "below_lowest", "below_lowest" })
  -- 1 and 2 of 240 at 4 req/s (3 of 480: 0.129076 % to 1.815571 %, within 5 %), 36 and 36 of
  -- 240 at 8 req/s (36 of 480: 5.307919 % to 10.232183 %, beyond it): the capacity lies
  -- between the two loads at both ends
  local q = lp.points(rrun {
    { 4, { { 4, 100, 1 }, { 4, 100, 2 } } },
    { 8, { { 8, 100, 36 }, { 8, 100, 36 } } } })
  local iq, wq = lp.capacity_interval(q, SLO)
  t.eq(wq, nil)
  t.eq({ iq.low.kind, iq.high.kind }, { "interpolated", "interpolated" })
  t.eq({ iq.low.failing_offered, iq.high.failing_offered, iq.low.passing_offered, iq.high.passing_offered },
    { 8, 8, 4, 4 })
  -- (identical zeros stay as they were: no pooled interval, M.repeats_error_ends)
  local z = lp.points(rrun {
    { 4, { { 4, 100, 0 }, { 4, 100, 0 } } },
    { 8, { { 8, 100, 36 }, { 8, 100, 36 } } } })
  t.eq(select(2, lp.capacity_interval(z, SLO)),
    "repeats identical: Error rate is 0.00 % in each of the 2 repeats of load point 1, no spread to estimate")
end)

t.test("failures in bursts: the row test and the interval read one rule on the effective counts", function()
  -- 4 req/s, 2 repeats of 240 requests, 6 and 20 failed, each repeat's failures in bursts of
  -- design effect 4 in send order. On the raw counts the chi-square is 7.970, p 0.00476 (python3:
  -- sum (x - n q)^2 / (n q (1 - q)), p erfc(sqrt(x2 / 2))): "differ"; on the counts over their
  -- design effect (1.5 and 5 of 60) 1.993, p 0.158: within the noise of bursts. Main's row test
  -- (decision.failure_dispersion) read the raw counts and said the repeats differ (the pooled
  -- counts no test) while the capacity's interval (lp.repeats_error_ends) read the effective
  -- ones and pooled them: one run, two answers. Now both pool.
  local run = rrun { { 4, { { 4, 100, 6 }, { 4, 100, 20 } } } }
  for _, st in ipairs(run.stages) do st.metrics.sample_deff = { failed = 4 } end
  local pts = lp.points(run)
  local h = lp.repeats_failures_differ({ 6, 20 }, { 240, 240 }, { 4, 4 })
  t.near(h.x2, 1.992545, 1e-5)
  t.near(h.p, 0.158075, 1e-5)
  t.eq(h.differ, false)
  local raw = lp.repeats_failures_differ({ 6, 20 }, { 240, 240 })
  t.near(raw.x2, 7.970180, 1e-5)
  t.eq(raw.differ, true)
  t.eq(decision.failure_dispersion(run, pts), nil)
  t.ok(lp.repeats_error_ends(pts[1]) ~= nil)
  -- independent failures (design effect 1, as without per-request data) at those counts differ
  -- for both: the row test names the repeats' spread, the interval keeps the t-interval
  local run1 = rrun { { 4, { { 4, 100, 6 }, { 4, 100, 20 } } } }
  local p1 = lp.points(run1)
  local d = decision.failure_dispersion(run1, p1)
  t.near(d.p, 0.004755, 1e-5)
  t.eq(d.text, "load point 1: 6 of 240 and 20 of 240 failed, chi-square heterogeneity p = 0.00476")
  t.eq(lp.repeats_error_ends(p1[1]), nil)
  -- a crash beyond the bursts' noise still differs for both, and the text says on what counts:
  -- 0 and 40 of 240 at design effect 2: 0 and 20 of 120, chi-square 21.82, p 2.99e-06 (python3)
  local run2 = rrun { { 4, { { 4, 100, 0 }, { 4, 100, 40 } } } }
  for _, st in ipairs(run2.stages) do st.metrics.sample_deff = { failed = 2 } end
  local p2 = lp.points(run2)
  local d2 = decision.failure_dispersion(run2, p2)
  t.near(d2.x2, 21.818182, 1e-5)
  t.eq(d2.text, "load point 1: 0 of 240 and 40 of 240 failed, chi-square heterogeneity on the counts over their "
    .. "failures' design effect in send order (2.0) p = 3.0e-06")
  t.eq(lp.repeats_error_ends(p2[1]), nil)
end)

t.test("a repeat without failures shares its siblings' design effect: no crash read from bursts", function()
  -- 11 of 120 failed in bursts (design effect 9.9, as llmd measured one repeat of
  -- tests/sim/audit53_harness.py --fail 0.03 --fail-burst 5 --seed 7 at 4 req/s) and 0 of 120
  -- (no failure: no design effect measured, read 1 on its own). Read each on its own, 1.11 of
  -- 12.1 against 0 of 120: chi-square 11.09, p 8.7e-04, "a crash"; on the raw counts 11.53, p
  -- 6.9e-04 (main's row test). Bursts of 5 at 3 % leave a repeat of 120 without a failure about
  -- half the time (0.72 bursts expected: e^-0.72 = 0.49). The repeats alike (what is tested)
  -- share one design effect, 9.9 (lp.repeats_deff: their failures' weighted mean): 1.11 of 12.1
  -- against 0 of 12.1, chi-square 1.164, p 0.281 (python3, as above): pooled, by both rules.
  t.near(lp.repeats_deff({ 11, 0 }, { 9.9, 1 }), 9.9, 1e-12)
  t.near(lp.repeats_deff({ 6, 2 }, { 3, 1.5 }), (6 * 3 + 2 * 1.5) / 8, 1e-12)
  t.eq(lp.repeats_deff({ 0, 0 }, { 1, 1 }), 1)
  local h = lp.repeats_failures_differ({ 11, 0 }, { 120, 120 }, { 9.9, 1 })
  t.near(h.x2, 1.164483, 1e-5)
  t.near(h.p, 0.280538, 1e-5)
  t.eq({ h.differ, h.deff }, { false, 9.9 })
  local run = rrun { { 2, { { 2, 100, 11 }, { 2, 100, 0 } } } }
  run.stages[1].metrics.sample_deff = { failed = 9.9 }
  local pts = lp.points(run)
  t.eq(decision.failure_dispersion(run, pts), nil)
  -- (and the interval pools them on that one design effect: 11 of 240 read as 1.111 of 24.24)
  local e = lp.repeats_error_ends(pts[1])
  t.eq({ e.pooled.failed, e.pooled.total }, { 11, 240 })
  t.near(e.pooled.eff_n, 240 / 9.9, 1e-9)
end)

t.test("the charts draw the error rate's interval the verdict read", function()
  -- 18 and 22 of 240 (above): the one-point chart's bar and the load curves' whisker reach
  -- 6.020046 to 11.174836 % (the pooled requests' Clopper-Pearson, python3 above), not the
  -- repeats' t-interval of 0 to 18.92 %
  local charts = require "llmd.charts"
  local p = lp.points(rrun { { 4, { { 4, 100, 18 }, { 4, 100, 22 } } } })[1]
  local v, lo, hi, bar = charts.point_dot(p, { key = "error_rate_pct", label = "Error rate" }, "a", {}, {})
  t.near(v, 100 * 40 / 480, 1e-9)
  t.near(lo, 6.020046, 1e-5)
  t.near(hi, 11.174836, 1e-5)
  t.eq(bar, 1)
  t.near(lp.ci_of(p, "error_rate_pct").hi, 11.174836, 1e-5)
  -- 36 of 240 in each repeat: main drew no bar ("repeats identical, no spread to estimate")
  -- where the verdict read 11.925355 to 18.513304 % from their 72 of 480
  local q = lp.points(rrun { { 4, { { 4, 100, 36 }, { 4, 100, 36 } } } })[1]
  local no_ci = {}
  local _, qlo, qhi, qbar = charts.point_dot(q, { key = "error_rate_pct", label = "Error rate" }, "a", no_ci, {})
  t.eq({ qbar, no_ci.a }, { 1, nil })
  t.near(qlo, 11.925355, 1e-5)
  t.near(qhi, 18.513304, 1e-5)
  -- a crash in one repeat (0 and 40 of 240): the t-interval stays, and says so
  local c = lp.points(rrun { { 4, { { 4, 100, 0 }, { 4, 100, 40 } } } })[1]
  t.eq({ c.ci.error_rate_pct.basis, c.ci.error_rate_pct.t_interval }, { "repeats", nil })
  t.eq(c.ci.error_rate_pct.clipped, true)
end)

t.test("an unclear error rate's advice: how many repeats clear the limit with 80 % chance", function()
  -- The count each advice names, and whether it is true, from tests/sim/intervals55_error_settle.py
  -- (python3, independent of llmd: Clopper-Pearson by bisection on exact binomial tails, the
  -- chance over every count walked; then 1000 numpy draws of that many repeats at the measured
  -- share, failures independent or in bursts of that design effect):
  --   16 of 480 over 2 repeats against 5 %: 5 repeats (1200 requests), chance 0.813 (0.681 at 4),
  --     simulated 0.809;
  --   34 of 480: 5 (0.858; 0.753 at 4), simulated 0.850;
  --   30 of 480 (6.25 %): 12 (0.832; 0.7998 at 11), simulated 0.835;
  --   12 of 480: 3 (0.934), simulated 0.933;
  --   36 of 480 at design effect 2: 7 (0.837; 0.780 at 6), simulated (bursts) 0.832.
  for _, c in ipairs { { 16, 1, 5, 1200 }, { 34, 1, 5, 1200 }, { 30, 1, 12, 2880 }, { 12, 1, 3, 720 },
    { 36, 2, 7, 1680 } } do
    local r, n = lp.error_repeats_needed({ failed = c[1], total = 480, eff_n = 480 / c[2] }, 2, 5)
    t.eq({ c[1], c[2], r, n }, { c[1], c[2], c[3], c[4] })
  end
  -- at the limit itself no count clears it; 24 of 480 at design effect 1 either (5 %)
  t.eq(lp.error_repeats_needed({ failed = 24, total = 480, eff_n = 480 }, 2, 5), nil)
  -- 26 of 480 (5.4 %): more than 50 repeats (12,000 requests give the exact chance 0.538, python3 above)
  t.eq(lp.error_repeats_needed({ failed = 26, total = 480, eff_n = 480 }, 2, 5), nil)
  -- and unclear_loads gives it with its point: 8 and 8 of 240 at 4 req/s (16 of 480)
  local q = lp.points(rrun { { 4, { { 4, 100, 8 }, { 4, 100, 8 } } } })[1]
  local s = lp.unclear_loads({ q }, lp.capacity_slo(SLO), nil, nil)
  t.eq({ #s, s[1].remedy, s[1].need, s[1].need_requests, s[1].repeats }, { 1, "repeats", 5, 1200, 2 })
  -- the exact chance itself (python3 above: 1200 requests at 16 / 480, 0.8134)
  t.near(require("llmd.stattest").cp_power(1200, 16 / 480, 0.05, 0.95), 0.8134, 5e-4)
end)
