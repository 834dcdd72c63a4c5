-- Evidence texts a verification trial (nu40b) found misleading (fixh40).
-- Expected values by hand, as said at each.
local t = require "testlib"
local decision = require "llmd.decision"
local template = require "llmd.template"

t.test("error-rate evidence: 'bursts' only where the design effect is clearly above 1", function()
  -- fe91 vs fe92 (independent failures): design effect 1.25, what independent failures' one-run
  -- estimate scatters to; it used to read "(1.25: they come in bursts)"
  local small = decision.test_name { test = "cmh", deff = 1.25, strata = 3 }
  t.ok(small:find("design effect in send order (1.25)", 1, true), small)
  t.ok(not small:find("burst", 1, true), small)
  -- the README's timeout example: 6.73 is well past the 2 (a doubled variance) that says bursts
  local big = decision.test_name { test = "cmh", deff = 6.73 }
  t.ok(big:find("(6.73: they come in bursts)", 1, true), big)
  -- exactly 2 (the threshold, by hand) says bursts; 1.99 does not
  t.ok(decision.test_name({ test = "cmh", deff = 2 }):find("bursts", 1, true))
  t.ok(not decision.test_name({ test = "cmh", deff = 1.99 }):find("bursts", 1, true))
end)

t.test("change column: a decrease that rounds to zero reads -0.0 %, as its delta", function()
  local H = template.helpers
  -- aa12 vs aa13 ITL p99: delta -0.01 ms, CSV change -0.042 %: by hand -0.042 at one decimal is
  -- 0.0 with the delta's minus sign; it used to read "+0.0 %"
  t.eq(H.pct(-0.042), "-0.0 %")
  t.eq(H.pct(0.042), "+0.0 %")
  t.eq(H.pct(-0.05001), "-0.1 %")
  t.eq(H.signed(-0.004, 2), "-0.00")
end)

t.test("non-monotone capacity: loads past saturation that met the SLOs are listed as saturated, never to repeat",
  function()
  local lp = require "llmd.loadpoints"
  -- ab69-like (nu40b): TPOT p90 <= 23 ms met at points 1, 4, 5, failed at 2, 3; points 6, 7 past
  -- saturation (sat.point = 6) met it too. By hand: passed {1, 4, 5}, saturated {6, 7}, and the
  -- loads to repeat run from the first failure (2) to the last pass below saturation (5)
  local pts = {}
  local tpot = { 20, 24, 25, 22, 22.5, 22.7, 22.8 }
  for i, v in ipairs(tpot) do
    pts[i] = { index = i, achieved_rps = i, offered = i, values = { tpot_p90_ms = v, error_rate_pct = 0 } }
  end
  local slo = { { key = "tpot_p90_ms", max = 23 } }
  local c = lp.capacity(pts, slo, { point = 6 })
  t.eq(c.kind, "non_monotone")
  t.eq(c.passed, { 1, 4, 5 })
  t.eq(c.saturated, { 6, 7 })
  t.ok(c.brief:find("met every SLO at 1, 4, 5 req/s, failed TPOT p90 at 2, 3 req/s", 1, true), c.brief)
  t.ok(c.brief:find("saturated at 6, 7 req/s", 1, true), c.brief)
  -- no saturation known: as before, every pass listed as met
  local c0 = lp.capacity(pts, slo, nil)
  t.eq(c0.passed, { 1, 4, 5, 6, 7 })
end)

t.test("Summary: a large whole-run gap marked not comparable (overloaded loads pooled) is picked to be explained",
  function()
  local report = require "llmd.report"
  local pool = "the whole-run figures pool load points where a run was overloaded, which the test left out"
  -- aa11 vs b20 (nu40b): TTFT p90 -98.5 % and p95 -98.8 %, both not comparable; the SLO metric
  -- (TTFT p90) is the one named, though p95's gap is larger; a -30 % gap is below 50 %: none;
  -- a not-comparable row for another reason is not this one
  local model = { slo = { { key = "ttft_p90_ms", max = 2000 } }, perf = {
    { key = "ttft_p95_ms", verdict = "not comparable", pct = -98.8, note = pool },
    { key = "ttft_p90_ms", verdict = "not comparable", pct = -98.5, note = pool },
    { key = "tpot_p90_ms", verdict = "no clear difference", pct = -99, note = pool } } }
  t.eq(report.overloaded_gap(model).key, "ttft_p90_ms")
  t.eq(report.overloaded_gap { perf = { { key = "x", verdict = "not comparable", pct = -30, note = pool } } }, nil)
  t.eq(report.overloaded_gap { perf = { { key = "x", verdict = "not comparable", pct = -90, note = "other" } } }, nil)
end)

-- Session 33 lead fixes of the new-user trial: capacity texts that read a gap not measured
-- as a gap measured at 0.
-- (Formerly test_lead33.lua.)
do
  t.test("an exact test that cannot decide says when ties, not the number of repeats, are why", function()
    local d = require "llmd.decision"
    -- error rates 0, 0, 0 % against 0, 10, 0 %: five of the six values tie at 0, so each of
    -- the C(6, 3) = 20 splits only says on which side the one 10 lies: 10 splits put it in A,
    -- 10 in B, and the two-sided exact p of the most extreme split is 2 x 10 / 20 = 1 (by
    -- hand); 3 and 3 values all different could reach 2 / C(6, 3) = 0.1
    local tst = d.repeat_test({ 0, 0, 0 }, { 0, 10, 0 })
    t.eq({ tst.test, tst.p_min }, { "exact_mann_whitney", 1 })
    local r = d.verdict { key = "error_rate_pct", a = 0, b = 10 / 3, test = tst }
    t.ok(r.note:find("whose values tie across the runs, so no split of these values could give a p below 1 (3 and 3 "
      .. "repeats of values all different could reach 0.1)", 1, true), r.note)
    -- 0, 0, 0 against 2, 3, 4: no ties across; the least p is 0.1, said as before
    local r2 = d.verdict { key = "error_rate_pct", a = 0, b = 3, test = d.repeat_test({ 0, 0, 0 }, { 2, 3, 4 }) }
    t.eq(r2.verdict, "not shown to differ")
    t.ok(r2.note:find("3 and 3 repeats (A's repeats all one value) can give no p below 0.1,", 1, true), r2.note)
  end)
end
