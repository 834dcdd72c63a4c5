-- A pass and a fail at one offered load: the order they give two capacities, and the gap
-- that order allows (audit47 F2, F4).
local t = require "testlib"
local decision = require "llmd.decision"

-- Two capacities with repeats whose 95 % intervals lie on opposite sides of the SLO at 8 req/s
-- offered: "a" met it there (achieved 7.88 req/s), "b" failed it (achieved fail_rps). By hand,
-- the shape of audit47's t7_12_0 (r5_12 vs r5_0, --slo ttft_p90_ms=316): every repeat of A met
-- TTFT p90 at 8 req/s offered (171-307 ms), every one of B failed it (326-1644 ms), B's sends
-- achieving 8.26 req/s there, A's 7.88.
local function pair(fail_rps)
  local a = { kind = "interpolated", rps = 8.4, last_passing_rps = 7.88, passing_offered = 8, first_failing_rps = 8.9,
    failing_offered = 9, load_type = "rate" }
  local b = { kind = "interpolated", rps = 7.3, last_passing_rps = 6.95, passing_offered = 7,
    first_failing_rps = fail_rps, failing_offered = 8, load_type = "rate" }
  local ca, cb = {}, {}
  for k, v in pairs(a) do ca[k] = v end
  for k, v in pairs(b) do cb[k] = v end
  ca.interval = { upper_ends = a, lower_ends = a, lo = 7.88, hi = 8.9 }
  cb.interval = { upper_ends = b, lower_ends = b, lo = 6.95, hi = fail_rps }
  -- each rate's 95 % interval +-0.5 req/s (audit47's numpy t-intervals of the repeats' rates
  -- were +-0.24 to +-0.63 req/s): ranges apart by 0.38 req/s (7.88 against 7.50) are apart
  -- only within the noise of their rates, sqrt(0.5^2 + 0.5^2) = 0.71 (decision.ceiling_noise_order),
  -- so the load orders them, not the gap between their ranges
  ca.rate_noise = { fig_lo = 7.88 - 0.5, fig_n = 480, fig_repeats = 5, top_hi = 8.9 + 0.5, top_n = 480 }
  cb.rate_noise = { fig_lo = 6.95 - 0.5, fig_n = 480, fig_repeats = 5, top_hi = fail_rps + 0.5, top_n = 480 }
  return ca, cb
end

t.test("a pass and a fail at one offered load order two capacities whichever run's sends achieved more there",
  function()
    -- the failing run achieving less (7.50 against 7.88 req/s) ordered them on main; achieving
    -- more by under 1 % (7.90) too; by more (8.26, +4.8 %: the sends' Poisson noise, about
    -- +-0.5 req/s over a 60 s load at 8 req/s) did not, and read "within the noise of the
    -- repeats there ... more repeats could settle it" though both sides were settled
    for _, f in ipairs { 7.50, 7.90, 8.26 } do
      local ca, cb = pair(f)
      local who, at = decision.capacity_touch_at(ca, cb, true)
      t.eq(who, "a", f)
      t.eq({ at.offered, at.passed_rps, at.failed_rps }, { 8, 7.88, f }, f)
      -- and swapped, the mirror
      t.eq((decision.capacity_touch_at(cb, ca, true)), "b", f)
    end
  end)

t.test("an order by a pass and a fail at one offered load names no winner: its least gap is 0", function()
  -- the same pair whichever way the sends went: the achieved rates at one offered load differ
  -- by send noise, so the gap the order allows starts at 0 (by the rows' rule, a winner only
  -- where the whole gap is beyond the practical threshold, fixh46): "not shown to differ", a
  -- at least as high, never "A higher" (main named A by 2.38 % in audit47's s5ab1084_2, A's
  -- 9.75 against B's 9.52 req/s at the same 10 req/s offered)
  for _, f in ipairs { 7.50, 8.26 } do
    local ca, cb = pair(f)
    local ev = decision.capacity_evidence(ca, cb, 2)
    t.eq({ ev.verdict, ev.winner, ev.ordered, ev.least_below_threshold, ev.margin_higher, ev.margin_pct },
      { "not shown to differ", nil, nil, true, "a", 0 }, f)
    t.eq(ev.same_load, { offered = 8, load_type = "rate" }, f)
    t.eq({ ev.passed_rps, ev.failed_rps }, { 7.88, f }, f)
    -- swapped: the mirror
    local ev2 = decision.capacity_evidence(cb, ca, 2)
    t.eq({ ev2.verdict, ev2.winner, ev2.least_below_threshold, ev2.margin_higher }, { "not shown to differ", nil, true,
      "b" }, f)
  end
end)

-- audit47's t7_12_13 (r5_12 against r5_13, an A/A pair, --slo ttft_p90_ms=388), by hand from
-- its files (numpy percentile of each repeat's TTFTs): every repeat of A met TTFT p90 at 8
-- req/s offered (171-307 ms) and every one of B failed it (469-863 ms), 5 each: both sides
-- settled there by the sign test. But at 9 req/s one of B's 5 repeats met it (326 ms, the others
-- 984-2228 ms: the repeats' t-interval 335-2378 ms), so B's good end (each point as good as its
-- repeats allow) fails at 8, meets at 9 and fails at 10: non-monotone, B's range up to 9.44
-- req/s. What leaves the order open is B's repeats at 9 req/s, not the noise at 8.
local function t7_pair()
  local a = { kind = "interpolated", rps = 7.98, last_passing_rps = 7.88, passing_offered = 8, first_failing_rps = 9.02,
    failing_offered = 9, load_type = "rate" }
  local b = { kind = "interpolated", rps = 7.74, last_passing_rps = 6.91, passing_offered = 7, first_failing_rps = 8.42,
    failing_offered = 8, load_type = "rate" }
  local b_good = { kind = "non_monotone", first_failing = 2, first_failing_rps = 8.42, passed = { 1, 3 },
    failed = { 2, 4 }, passed_offered = { 7, 9 }, failed_offered = { 8, 10 } }
  local ca, cb = {}, {}
  for k, v in pairs(a) do ca[k] = v end
  for k, v in pairs(b) do cb[k] = v end
  ca.interval = { upper_ends = a, lower_ends = a, lo = 7.88, hi = 9.02 }
  cb.interval = { upper_ends = b, lower_ends = b_good, lo = 6.91, hi = 9.44 }
  return ca, cb, a, b
end

t.test("a pass and a fail at one offered load left open by another load's repeats say which load and whose",
  function()
    local report = require "llmd.report"
    local ca, cb = t7_pair()
    local ev = decision.capacity_evidence(ca, cb, 2)
    t.eq({ ev.verdict, ev.winner, ev.steps_cannot_order }, { "not shown to differ", nil, true })
    local sl = ev.open_same_load
    t.eq({ sl.offered, sl.passed }, { 8, "a" })
    t.eq(sl.open, { { run = "b", offered = 9, room = "meet" } })
    -- on main: "... 8 req/s offered, within the noise of the repeats there: no other load steps
    -- would order them, but more repeats at that load could settle it", of a load both settled
    local text = report.same_load_open_text("r5_12", "r5_13", sl)
    t.eq(text, "r5_12 met the SLOs and r5_13 failed them by their means at the same offered load, 8 req/s offered, "
      .. "as both runs' repeats there bear out; but r5_13's repeats at 9 req/s offered, a higher load, leave room "
      .. "for it meeting them there: more repeats of r5_13 at 9 req/s offered could settle it")
    t.lacks(text, "within the noise")
    -- swapped: the mirror, B the run that passed
    local ev2 = decision.capacity_evidence(cb, ca, 2)
    t.eq(ev2.open_same_load.open, { { run = "a", offered = 9, room = "meet" } })
    t.eq(ev2.open_same_load.passed, "b")
  end)

t.test("a pass and a fail at one offered load left open by one run's repeats there name that run", function()
  local report = require "llmd.report"
  local ca, cb, _, b = t7_pair()
  -- B settled on both ends (it fails at 8 however good its repeats allow), A's repeats at 8
  -- straddle the limit: A's bad end fails there (an interpolated capacity from 7 to 8)
  cb.interval.lower_ends = b
  ca.interval.upper_ends = { kind = "interpolated", rps = 7.5, last_passing_rps = 6.9, passing_offered = 7,
    first_failing_rps = 7.88, failing_offered = 8, load_type = "rate" }
  local sl = decision.same_load_pass_fail(ca, cb)
  t.eq(sl.open, { { run = "a", offered = 8, room = "fail" } })
  t.eq(report.same_load_open_text("x", "y", sl), "x met the SLOs and y failed them by their means at the same offered "
    .. "load, 8 req/s offered, within the noise of x's repeats there: more repeats of x at 8 req/s offered could "
    .. "settle it")
  -- both runs' repeats there: the words that always said it (verify44 #2, test_capacity_repeats)
  cb.interval.lower_ends = { kind = "interpolated", rps = 8.5, last_passing_rps = 8.42, passing_offered = 8,
    first_failing_rps = 9.1, failing_offered = 9, load_type = "rate" }
  sl = decision.same_load_pass_fail(ca, cb)
  t.eq(sl.open, { { run = "a", offered = 8, room = "fail" }, { run = "b", offered = 8, room = "meet" } })
  t.eq(report.same_load_open_text("x", "y", sl), "x met the SLOs and y failed them by their means at the same offered "
    .. "load, 8 req/s offered, within the noise of the repeats there: no other load steps would order them, but more "
    .. "repeats at that load could settle it")
end)

-- audit47's x1084_0_14 (r5_0 against r5_14, --slo ttft_p90_ms=1084), numpy on the files, each
-- load's 5 repeats' TTFT p90 and their Student t 95 % interval: A at 9 req/s 109-3296 ms (mean
-- 1703: fails by it), B at 9 607-1180 ms (mean 893: meets), B at 8 -128-1309 ms (mean 590). B
-- met the SLO and A failed it by their means at 9 req/s; both runs' repeats straddle the limit
-- there, and B's at 8 as well: each load's side on both ends (interval.ends) names all three,
-- where the capacities' ends alone named B's 8 and read "as both runs' repeats there bear out".
t.test("a same-load order open at several loads names each, read off every load's side on both ends", function()
  local report = require "llmd.report"
  local function ends(list)
    local out = {}
    for i, e in ipairs(list) do
      out[i] = { offered = e[1], load_type = "rate", bad = e[2], good = e[3], past = e[4] }
    end
    return out
  end
  local ca = { kind = "interpolated", rps = 8.55, passing_offered = 8, failing_offered = 9, load_type = "rate",
    interval = { ends = ends { { 7, true, true }, { 8, false, true }, { 9, false, true }, { 10, false, false, true } } } }
  local cb = { kind = "saturated", rps = 8.68, passing_offered = 9, load_type = "rate",
    interval = { ends = ends { { 7, true, true }, { 8, false, true }, { 9, false, true }, { 10, false, false, true } } } }
  local sl = decision.same_load_pass_fail(ca, cb)
  t.eq({ sl.offered, sl.passed }, { 9, "b" })
  t.eq(sl.open, { { run = "b", offered = 8, room = "fail" }, { run = "b", offered = 9, room = "fail" },
    { run = "a", offered = 9, room = "meet" } })
  t.eq(report.same_load_open_text("A", "B", sl), "B met the SLOs and A failed them by their means at the same offered "
    .. "load, 9 req/s offered, within the noise of both runs' repeats there; but B's repeats at 8 req/s offered, a lower "
    .. "load, leave room for it failing them there: more repeats of A at 9 req/s offered and of B at 8 and 9 req/s "
    .. "offered could settle it")
  -- a load past saturation that meets the SLOs at its good end reopens nothing (lp.capacity's rule)
  ca.interval.ends[4].good = true
  t.eq(#decision.same_load_pass_fail(ca, cb).open, 3)
end)

-- The same shape from files, through treatments.lua: exp-7 vLLM summaries (t.exp7_summary),
-- three repeats a load at 7, 8, 9 and 10 req/s offered, each repeat's TTFT p99 below, against
-- --slo ttft_p99_ms=200. By numpy (mean +- 4.302652729911275 x sd / sqrt 3, t(0.975, 2)): A at
-- 9 req/s 150/250/350 ms, mean 250 (fails), interval 1.6-498.4; B at 9 120/190/260 ms, mean
-- 190 (meets), 16.1-363.9; B at 8 100/180/260 ms, mean 180, -18.7-378.7; every other load
-- settled (100-102 ms, 150-152 ms, 400-420 ms). B met the SLO and A failed it by their means at 9
-- req/s offered (achieved 8.7 and 9.0, so the means' brackets overlap): both runs' repeats
-- straddle 200 ms at 9, and B's at 8. compare.lua names all three; the ranking, whose ranges
-- kept no per-load sides, named B's 8 only ("within the noise of A's repeats there ... of B at
-- 8 req/s offered").
t.test("the treatments ranking names every load whose repeats leave a same-load order open, as compare.lua does",
  function()
    local json = require "llmd.json"
    local proc = require "llmd.proc"
    local root = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
    local d = t.tmpdir()
    local function dir(name, points)
      t.mkdir(d .. "/" .. name)
      local n = 0
      for _, p in ipairs(points) do
        for _, v in ipairs(p[3]) do
          local doc = t.exp7_summary(p[1], p[2])
          for _, q in ipairs { "mean", "median", "p95" } do doc[q .. "_ttft_ms"] = 50 end
          doc.p99_ttft_ms = v
          n = n + 1
          t.write(("%s/%s/benchmark_%02d.json"):format(d, name, n), json.encode(doc))
        end
      end
    end
    dir("A", { { 7, 6.96, { 100, 101, 102 } }, { 8, 7.95, { 150, 151, 152 } }, { 9, 9.0, { 150, 250, 350 } },
      { 10, 9.93, { 400, 410, 420 } } })
    dir("B", { { 7, 6.97, { 100, 101, 102 } }, { 8, 7.96, { 100, 180, 260 } }, { 9, 8.7, { 120, 190, 260 } },
      { 10, 9.94, { 400, 410, 420 } } })
    local r = proc.run { root .. "/llmdlua", root .. "/lua/treatments.lua", "--run", "A=" .. d .. "/A", "--run",
      "B=" .. d .. "/B", "--slo", "ttft_p99_ms=200", "--out", d .. "/out", "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local want = "B met the SLOs and A failed them by their means at the same offered load, 9 req/s offered, within "
      .. "the noise of both runs' repeats there; but B's repeats at 8 req/s offered, a lower load, leave room for it "
      .. "failing them there: more repeats of A at 9 req/s offered and of B at 8 and 9 req/s offered could settle it"
    t.contains(t.read(d .. "/out/treatment_report.md"), want)
    local j = json.read(d .. "/out/treatments.json")
    local ev = j.ranking[1].evidence
    t.eq({ j.ranking[1].label, ev.verdict, ev.steps_cannot_order }, { "B", "not shown to differ", true })
    -- the record the text is worded from, by treatment and place
    t.eq(ev.open_same_load, { offered = 9, load_type = "rate", passed = "B", passed_place = "this", open = {
      { treatment = "B", place = "this", offered = 8, room = "fail" },
      { treatment = "B", place = "this", offered = 9, room = "fail" },
      { treatment = "A", place = "next", offered = 9, room = "meet" } } })
    -- compare.lua's Verdict of the same pair, word for word
    r = proc.run { root .. "/llmdlua", root .. "/lua/compare.lua", "--a", d .. "/A", "--b", d .. "/B", "--a-label",
      "A", "--b-label", "B", "--slo", "ttft_p99_ms=200", "--parent", d .. "/cmp", "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local ws = r.stdout:match("Workspace: ([^\n]+)")
    t.contains(t.read(ws .. "/comparison_report.md"), want)
  end)
