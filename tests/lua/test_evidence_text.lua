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

t.test("change column: a decrease that rounds to zero shows its first digit (-0.04 %), as its delta, never '-0.0 %'",
  function()
  local H = template.helpers
  -- aa12 vs aa13 ITL p99: delta -0.01 ms, CSV change -0.042 %: it read "+0.0 %" (before fixh40),
  -- then "-0.0 %" (a signed zero, fixb44: verify43b's "-0.0 %" for -0.01 %). One rule since
  -- fixb44: a figure that rounds to zero at its decimals takes up to two more to show its first
  -- digit, with its sign; still zero there, or zero, "+0.0". By hand: -0.042 at two decimals
  -- -0.04; -0.01 at two -0.01; -0.004 at three (two + one) -0.004; -0.0004 at three -0.000,
  -- so "+0.0"; -0.05001 at one -0.1 (not a zero: as before)
  t.eq({ H.pct(-0.042), H.pct(0.042), H.pct(-0.01), H.pct(-0.05001), H.signed(-0.004, 2), H.pct(-0.0004),
    H.pct(0) }, { "-0.04 %", "+0.04 %", "-0.01 %", "-0.1 %", "-0.004", "+0.0 %", "+0.0 %" })
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

-- x and y offered and achieved 10-40 req/s (never saturated: no SLO, both lower bounds, so
-- the Verdict quotes their latencies at 40 req/s); 200 TTFTs a point spread evenly over 0.9 to
-- 1.1 times its p90 (x 20, 40, 60, 80 ms; y 1.3 times them). At 30 req/s both design effects
-- are 10: 200 requests carry 20 independent ones, fewer than 50, too dependent to test
-- (decision.dependence_reason). So the TTFT test is over 10, 20 and 40 req/s: 3 of the 4 load
-- points, every x TTFT below every y TTFT at each (x at most 1.1 x, y at least 1.17 x): by
-- hand, complete separation, p < 1e-9 (as test_fixb39 3)
local function dependent_at_30()
  local report, stats = require "llmd.report", require "llmd.stats"
  local function run(p90s)
    local stages = {}
    for i, p in ipairs(p90s) do
      local rate = 10 * i
      stages[i] = { rate = rate, values = { throughput_req_s = rate, ttft_p90_ms = p, throughput_tok_s = 10 * rate,
        error_rate_pct = 0, requests_ok = 200, requests_failed = 0 } }
    end
    local r = t.run_of(stages)
    r.overall.values = { ttft_p90_ms = p90s[#p90s] }
    for i, st in ipairs(r.stages) do
      local acc = stats.new()
      for k = 1, 200 do acc:add(p90s[i] / 1000 * (0.9 + 0.2 * ((k * 37) % 200) / 200)) end
      st.metrics.samples, st.metrics.sample_deff = { ttft = acc }, { ttft = i == 3 and 10 or 1 }
    end
    return r
  end
  local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
  return report.build { a = sd("x", run { 20, 40, 60, 80 }), b = sd("y", run { 26, 52, 78, 104 }), generated = 0 }
end

-- fixb42 2. The Performance Results' test named beside a latency said which loads it pooled
--    as "over all load points", even where it left some out (too dependent to test) or each
--    run had one load point.
t.test("a latency's Performance Results test says which loads it pooled: 3 of 4, one too dependent", function()
  local report = require "llmd.report"
  local m = dependent_at_30()
  -- (104 / 80 - 1 = +30.0 %, by hand; the test's own effect over its 3 loads, fixg42: see below)
  t.contains(m.verdict.text, "y's latencies against x's: TTFT p90 +30.0 % (Performance Results, over 3 of 4 load "
    .. "points (1 left out: too dependent to test at 30/s): x better, p < 1e-9; y +30.0 % vs x over those loads, 95 % "
    .. "interval ")
  t.lacks(m.verdict.text, "over all load points")
  -- comparison.json carries the same facts: the loads tested, of how many, and the one left out
  local row = t.perf_row(report.plain(m), "ttft_p90_ms")
  t.eq(row.sig.scope, { tested = { "10/s", "20/s", "40/s" }, total = 4,
    left = { { why = "too dependent to test", loads = { "30/s" } } } })
  -- fixd43 (newuser43): the CSV's note, and the JSON's, say it too, in the Verdict's words
  -- (main: an empty note beside the winner "A better"); the note is the CSV's 11th column
  local scope = "tested over 3 of 4 load points (1 left out: too dependent to test at 30/s)"
  t.eq(row.note, scope)
  local c = t.csv_row(report.csv(m), "ttft_p90_ms")
  t.eq({ c[7], c[11] }, { "A better", scope })
end)

t.test("a latency's Performance Results test of one load point a run says so, not 'over all load points'",
  function()
  -- (audit41's --rates 4, as test_fixh41: "(Performance Results, over all load points: a1
  -- better ...)" of runs with one load point each.) inference-perf runs of one stage, 60
  -- requests at 4 req/s (tests/lua/ipsynth.lua): A answers request k in 0.4 + 0.01 (7k mod 10)
  -- s, B in 0.02 + 1.5 x (0.38 + 0.01 (7k mod 10)): every B latency (>= 0.59 s) above every A
  -- one (<= 0.49 s), by hand: p < 1e-9 (python3 in test_fixa38). (7k mod 10, not k mod 10:
  -- a rising saw has neighbours alike in send order, lag-1 correlation 0.423 above 2 / sqrt(60)
  -- = 0.258, which since fixi45 no test takes for independent; 7k's is -0.25, python3)
  local ipsynth = require "ipsynth"
  local d = t.tmpdir()
  local a = ipsynth.run(d .. "/a", { { rate = 4, n = 60, latency = function(k) return 0.4 + 0.01 * (7 * k % 10) end } },
    { per_request = true })
  local b = ipsynth.run(d .. "/b", { { rate = 4, n = 60,
    latency = function(k) return 0.02 + (0.38 + 0.01 * (7 * k % 10)) * 1.5 end } }, { per_request = true })
  local c = t.compare_ab(a, b, { "--a-label", "A", "--b-label", "B", "--harness", "inference-perf" })
  local verdict = c.md:match("\n%*%*Verdict:%*%* ([^\n]*)")
  t.contains(verdict, "(Performance Results, at the one load point each run has (4/s): A better, p < 1e-9")
  t.lacks(c.md, "over all load points")
  t.eq(t.perf_row(c.json, "latency_p90_ms").sig.scope, { one_each = true, paired = true, loads = { "4/s", "4/s" },
    tested = { "4/s" }, total = 1 })
end)

-- fixg42 3. A win named on a test of only some load points quoted the whole-run figures' gap
--    ("y +30.0 % vs x": 104 against 80 ms, the 40 req/s figures), which the test did not
--    compare as such: its effect over the loads it tested is another number.
t.test("Summary: a win on a test of 3 of 4 load points quotes the test's effect there, with its interval", function()
  local m = dependent_at_30()
  -- the test's effect (decision's row_effect: B against A at each tested point, weighted n_a n_b
  -- / (n_a + n_b), equal here): y's samples are 1.3 times x's at every point, so every quantile
  -- is too, and at each point 1.3 - 1 = +30.0 % (by hand; since fixa43 B against A, on the
  -- whole-run figures' scale, so here the same number: before, +26.087 % of their mean beside
  -- the figures' +30.0 %); the sentence says which loads it is over, never the whole run
  local summary = m.summary
  t.contains(summary, "x is better in TTFT p90 (y +30.0 % vs x over 3 of 4 load points (1 left out: too dependent "
    .. "to test at 30/s), 95 % interval ")
  -- the interval quoted is the row's own (Performance Results: "this row within the load points
  -- tested: +30.0 % (95 % interval LO to HI)"), one pair of numbers in both places
  local row = t.perf_row(require("llmd.report").plain(m), "ttft_p90_ms")
  t.near(row.effect_pct, 30, 1e-9)
  local iv = row.evidence:match("this row within the load points tested: %+30%.0 %% %((95 %% interval [^)]+)%)")
  t.ok(iv, row.evidence)
  t.contains(summary, "(1 left out: too dependent to test at 30/s), " .. iv .. ", p < 1e-9)")
  t.ok(row.effect_lo < 30 and row.effect_hi > 30, "the interval holds the effect")
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

-- verify42: a test that left out the loads where a run was overloaded was said to be "at the
-- loads both sustained" even where it tested only some of them (2/s and 3/s of the 4 both
-- sustained, 4/s and 5/s too dependent), beside a 17-fold gap at 5/s it never looked at.
t.test("a test at the loads both sustained says how many of them it tested, and which it left out", function()
  -- the scopes decision.stratified_mann_whitney keeps (test_scope): 5 pairs, 1 overloaded, 1
  -- measured by one run only; by hand: 5 + 1 = 6 points, 6 - 1 - 1 = 4 both sustained
  local scope = { tested = { "2/s", "3/s" }, total = 6, left = {
    { why = "too dependent to test", loads = { "4/s", "5/s" } }, { why = "a run overloaded", loads = { "6/s (A)" } },
    { why = "measured by one run only", loads = { "8/s (A)" } } } }
  t.eq(decision.test_scope_text { scope = scope, overloaded = {} },
    "at 2 of the 4 loads both sustained (2 left out: too dependent to test at 4/s, 5/s)")
  -- every load both sustained tested: the words that were always true of it
  t.eq(decision.test_scope_text { scope = { tested = { "2/s", "3/s" }, total = 3,
    left = { { why = "a run overloaded", loads = { "6/s" } } } } }, "at the loads both sustained")
  -- a saved test without a scope (an older comparison.json) claims no more than it knows
  t.eq(decision.test_scope_text { overloaded = {} }, "at the loads both sustained that it tested")
end)

t.test("the table's note and the latency clause give the loads both sustained that the test covered", function()
  local report, stats = require "llmd.report", require "llmd.stats"
  -- x and y offered 10-50 req/s; x achieved each, y only 30 of the 50 (overloaded there, by
  -- hand far below 95 % of the offered load), so the TTFT test leaves 50/s out. At 30 req/s
  -- the design effects are 10: 200 requests carry 20 independent ones, fewer than 50, too
  -- dependent to test (decision.dependence_reason), so it tests 10, 20 and 40 req/s: 3 of the 4
  -- loads both sustained. 200 TTFTs a point evenly over 0.9 to 1.1 times its p90 (as the test
  -- above); y's `k` times x's.
  local function run(p90s, last)
    local stages = {}
    for i, p in ipairs(p90s) do
      local rate = 10 * i
      local got = i == #p90s and last or rate
      stages[i] = { rate = rate, values = { throughput_req_s = got, ttft_p90_ms = p, throughput_tok_s = 10 * got,
        error_rate_pct = 0, requests_ok = 200, requests_failed = 0 } }
    end
    local r = t.run_of(stages)
    r.overall.values = { ttft_p90_ms = p90s[#p90s] }
    for i, st in ipairs(r.stages) do
      local acc = stats.new()
      for k = 1, 200 do acc:add(p90s[i] / 1000 * (0.9 + 0.2 * ((k * 37) % 200) / 200)) end
      st.metrics.samples, st.metrics.sample_deff = { ttft = acc }, { ttft = i == 3 and 10 or 1 }
    end
    return r
  end
  local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
  local want = "at 3 of the 4 loads both sustained (1 left out: too dependent to test at 30/s)"
  -- y 1.3 times x: every y TTFT above every x TTFT at each tested load (x at most 1.1 p, y at
  -- least 1.17 p), complete separation, by hand p < 1e-9: x's lower there
  local m = report.build { a = sd("x", run({ 20, 40, 60, 80, 100 }, 50)),
    b = sd("y", run({ 26, 52, 78, 104, 900 }, 30)), generated = 0 }
  local row = t.perf_row(report.plain(m), "ttft_p90_ms")
  t.contains(row.note, "the test finds x's values lower " .. want)
  t.lacks(row.note, "at the loads both sustained")
  local all = m.verdict.text .. "\n" .. m.summary
  t.contains(all, "Performance Results, " .. want .. ": x's lower, p < 1e-9")
  t.lacks(all, "Performance Results, at the loads both sustained")
  -- the same values in both: no clear difference, at those 3 of the 4
  m = report.build { a = sd("x", run({ 20, 40, 60, 80, 100 }, 50)), b = sd("y", run({ 20, 40, 60, 80, 900 }, 30)),
    generated = 0 }
  row = t.perf_row(report.plain(m), "ttft_p90_ms")
  t.contains(row.note, "the test finds no clear difference " .. want)
end)

-- newuser47b V3: the no-SLO latency clause quotes each figure at the highest load both
-- sustained; where that load is the one its row's test left out (too dependent), the test beside
-- the figure is the other loads', not the figure's: "TTFT p90 +280.9 % (Performance Results, at 5
-- of the 6 loads ... (1 left out: too dependent to test at 8/s): no clear difference ...)" read
-- as "+281 % means nothing".
t.test("a latency figure at a load its test left out is said untested there, the test the other loads'", function()
  local report, stats = require "llmd.report", require "llmd.stats"
  -- as the test above, but the too dependent load is 40 req/s (design effect 10 at point 4),
  -- the highest load both sustained (y achieves 30 of the 50 offered: overloaded there). The
  -- figure there, by hand: y 104 ms against x 80 ms, +30.0 %; the test covers 10, 20 and 30
  -- req/s, 3 of the 4 loads both sustained
  local function run(p90s, last)
    local stages = {}
    for i, p in ipairs(p90s) do
      local rate = 10 * i
      local got = i == #p90s and last or rate
      stages[i] = { rate = rate, values = { throughput_req_s = got, ttft_p90_ms = p, throughput_tok_s = 10 * got,
        error_rate_pct = 0, requests_ok = 200, requests_failed = 0 } }
    end
    local r = t.run_of(stages)
    r.overall.values = { ttft_p90_ms = p90s[#p90s] }
    for i, st in ipairs(r.stages) do
      local acc = stats.new()
      for k = 1, 200 do acc:add(p90s[i] / 1000 * (0.9 + 0.2 * ((k * 37) % 200) / 200)) end
      st.metrics.samples, st.metrics.sample_deff = { ttft = acc }, { ttft = i == 4 and 10 or 1 }
    end
    return r
  end
  local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
  local m = report.build { a = sd("x", run({ 20, 40, 60, 80, 100 }, 50)),
    b = sd("y", run({ 26, 52, 78, 104, 900 }, 30)), generated = 0 }
  local scope = "at 3 of the 4 loads both sustained (1 left out: too dependent to test at 40/s)"
  t.contains(m.summary, "TTFT p90 104.0 ms vs 80.0 ms (+30.0 %; untested at this load, which its test left out; "
    .. "at the other loads, Performance Results, " .. scope .. ": x's lower, p < 1e-9)")
  t.lacks(m.summary, "(+30.0 %; Performance Results")
end)

t.test("fixk45 2: a load past saturation that met the SLOs above a failing one does not make the capacity "
  .. "non-monotone", function()
  local lp = require "llmd.loadpoints"
  -- t2_3_a-like (queue_sim.py --rates 6,7,8,8.5 --slots 20 --timeout 1 --seed 2007, --slo
  -- ttft_mean_ms=300): met at points 1, 2, failed at 3, met at 4; saturated from point 3
  -- (sat.point = 3). Only sustained loads place a capacity (points 1, 2): by hand the capacity is
  -- at least point 2's 7 req/s, the last before saturation, a lower bound; main said
  -- non-monotone, "meeting them there places no capacity"
  local pts = {}
  local ttft = { 100, 110, 400, 250 }
  for i, v in ipairs(ttft) do
    pts[i] = { index = i, achieved_rps = 5 + i, offered = 5 + i, load_type = "rate",
      values = { ttft_mean_ms = v, error_rate_pct = 0 }, na = {} }
  end
  local slo = { { key = "ttft_mean_ms", max = 300 } }
  local c = lp.capacity(pts, slo, { point = 3 })
  t.eq(c.kind, "saturated")
  t.eq(c.bound, "lower")
  t.near(c.rps, 7, 0)
  -- every sustained load fails and only a saturated one meets: below the lowest load
  ttft = { 400, 450, 500, 250 }
  for i, v in ipairs(ttft) do pts[i].values.ttft_mean_ms = v end
  c = lp.capacity(pts, slo, { point = 3 })
  t.eq(c.kind, "below_lowest")
  t.eq(c.first_failing, 1)
  -- a sustained load that met them above a failing one still reopens the crossing, the saturated
  -- pass listed beside it (passed {1, 3}, saturated {4}; sat.point = 4)
  ttft = { 100, 400, 250, 250 }
  for i, v in ipairs(ttft) do pts[i].values.ttft_mean_ms = v end
  c = lp.capacity(pts, slo, { point = 4 })
  t.eq(c.kind, "non_monotone")
  t.eq(c.passed, { 1, 3 })
  t.eq(c.saturated, { 4 })
end)
