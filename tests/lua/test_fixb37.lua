-- Session 37's decision-layer fixes (newuser37 #4, #5, #6, #11; audit37 #5, #6): the
-- max sustained search past a point it cannot judge, the no-SLO latency clause at a load
-- both runs sustained, capacity bounded at the last sustained load, and the texts that
-- name no direction or sameness the tests do not show.
--
-- Runs are hand-made (testlib.run_of); every expected figure is worked out by hand in the
-- comment beside it.
local t = require "testlib"
local report = require "llmd.report"
local lp = require "llmd.loadpoints"
local decision = require "llmd.decision"
local proc_ok_numpy = require("llmd.proc").run({ "/usr/bin/python3", "-c", "import numpy" }).ok

local function sd(label, run)
  return { label = label, state = { label = label, stack = {} }, run = run, kv = {} }
end

local function build(a, b, slo)
  return report.build { a = sd("x", a), b = sd("y", b), slo = slo or {}, generated = 0 }
end

-- A run offered 10, 20, 30, ... req/s (stage i at 10 i), achieving achieved[i], with TTFT
-- p90 ttft[i] (50 ms where not given) and, where few[i], only few[i] requests completed.
local function run(achieved, ttft, few)
  local stages = {}
  for i, r in ipairs(achieved) do
    stages[i] = { rate = 10 * i, values = { throughput_req_s = r, ttft_p90_ms = ttft and ttft[i] or 50,
      error_rate_pct = 0, requests_ok = few and few[i] or nil } }
  end
  return t.run_of(stages)
end

local function sat(r) return lp.saturation(lp.points(r), {}) end

t.test("max sustained: a point too thin to judge is settled by a higher load that kept up", function()
  -- 10, 15, 30, 40 achieved at 10-40 offered; point 2 completed 10 requests (< 20) and fell
  -- short (15 < 19): it cannot be judged. Points 3 and 4 kept up (30 >= 28.5, 40 >= 38): a
  -- server that kept up with 40 req/s kept up with 20 too, so it never saturated, >= 40.
  local s = sat(run({ 10, 15, 30, 40 }, nil, { nil, 10 }))
  t.eq({ s.none, s.unknown, s.max_sustained_rps }, { true, nil, 40 })
  t.eq(s.resolved, { { point = 2, offered = 20, by = 3, by_offered = 30 } })
  t.ok(s.reason:find("load point 2 (20 req/s offered) could not be judged on its own, but load point 3, at 30 req/s "
    .. "offered, kept up with its successful requests alone, so the server kept up with the lower load too", 1, true),
    s.reason)
  -- ... and saturated later (30 < 38 at 40 offered): max sustained the highest achieved
  -- below point 4, max(10, 15, 30) = 30
  s = sat(run({ 10, 15, 30, 30 }, nil, { nil, 10 }))
  t.eq({ s.point, s.max_sustained_rps }, { 4, 30 })
  t.ok(s.resolved, "resolved listed")
end)

t.test("max sustained: an unjudged point no higher load settles stays unknown", function()
  -- point 2 thin, point 3 clearly saturated (20 < 28.5): the limit lies between 10 (point 1,
  -- the last known sustained) and 20 (the most at any load), the figure 10 "up to" 20, the
  -- unjudged point widening the range (fixd39; before: unknown)
  local s = sat(run({ 10, 15, 20 }, nil, { nil, 10 }))
  t.eq({ s.unknown, s.point, s.max_sustained_rps, s.ceiling_rps, s.sustained_upto }, { nil, 3, 10, 20, 1 })
  t.ok(s.reason:find("(too few requests to judge saturation: load point 2", 1, true), s.reason)
  -- point 3 thin as well, last: nothing above settles point 2
  s = sat(run({ 10, 15, 20 }, nil, { nil, 10, 10 }))
  t.eq({ s.unknown, s.sustained_upto }, { true, 1 })
  t.ok(s.reason:find("too few requests to judge saturation: load point 2", 1, true), s.reason)
  -- a later point short but thin does not settle it either: only one that clearly kept up
  s = sat(run({ 10, 15, 20, 40 }, nil, { nil, 10, 10 }))
  t.eq({ s.none, s.unknown, s.max_sustained_rps }, { true, nil, 40 })
end)

t.test("no SLO: latencies at the highest load both are known to have sustained", function()
  -- x: 10, 20, 22 at 10, 20, 30 offered: saturated at point 3 (22 < 28.5), sustained to 20
  -- offered. y: 10, 15 (10 requests: unjudged), 16 (10 requests: unjudged too, so nothing
  -- above point 2 bounds it): unknown, known to have sustained only 10 offered. The highest load both sustained: 10 req/s offered, where
  -- TTFT p90 is 50 ms (x) and 60 ms (y): +20.0 %, above the 2 % threshold: untested, no
  -- direction named. (Before: compared at 30 offered, past x's saturation.)
  local m = build(run({ 10, 20, 22 }, { 50, 50, 900 }), run({ 10, 15, 16 }, { 60, 60, 100 }, { nil, 10, 10 }))
  t.eq(m.verdict.kind, "cannot say")
  t.ok(m.verdict.text:find(" At 10 req/s offered (10.00 req/s achieved by both), the highest load both sustained, y's "
    .. "latencies are untested: TTFT p90 +20.0 % (no test at this load: no per-request samples from both "
    .. "runs there). --slo gives capacity within an SLO.", 1, true),
    m.verdict.text)
  t.eq({ m.no_slo_latency.load, m.no_slo_latency.sustained, m.verdict.latency.how }, { 10, true, "untested" })
end)

t.test("no SLO: no load both sustained, so the latencies are not compared", function()
  -- x: 5 and 6 at 10 and 20 offered: saturated at its lowest load (5 < 9.5). y: 5 at 10 (10
  -- requests: unjudged), 12 at 20 (< 19: saturated): unknown, nothing known sustained. The
  -- highest load both measured, 20 offered, is past x's saturation and not known sustained
  -- by y: no latency compared there.
  local m = build(run({ 5, 6 }, { 900, 1900 }), run({ 5, 12 }, { 100, 200 }, { 10 }))
  t.eq(m.verdict.kind, "cannot say")
  t.eq(m.no_slo_latency.sustained, false)
  t.eq(m.verdict.latency.how, "not compared")
  t.ok(m.verdict.text:find(" Their latencies are not compared: no load both runs measured is one both are known to "
    .. "have sustained: at 20 req/s offered (6.00 req/s achieved by x, 12.00 req/s by y), the highest load both "
    .. "measured, x is past its saturation there and y is not known to have sustained it (its saturation is "
    .. "unknown), so a latency there is a queue's, not the server's. --slo gives capacity within an SLO.", 1, true),
    m.verdict.text)
  t.ok(not m.verdict.text:find("latencies are higher", 1, true) and not m.verdict.text:find("lower on", 1, true))
end)

t.test("no SLO: differences below the practical threshold name no direction", function()
  -- spans that overlap (x 20-22, y 21-21.5: cannot order); at 20 offered, both sustained,
  -- TTFT p90 50 ms (x) and 50.5 ms (y): +1.0 % of x, 0.995 % of their mean, below 2 %
  local m = build(run({ 10, 20, 22 }), run({ 10, 21, 21.5 }, { 50, 50.5, 50 }))
  t.eq(m.verdict.latency.how, "within the practical threshold")
  t.ok(m.verdict.text:find("the highest load both sustained, y's latencies are within the practical threshold of 2.0 "
    .. "% (TTFT p90 +1.0 %; untested).", 1, true), m.verdict.text)
  -- 50 against 49 ms: -2.0 % of x, 2.02 % of their mean (1 / 49.5): above, untested
  m = build(run({ 10, 20, 22 }), run({ 10, 21, 21.5 }, { 50, 49, 50 }))
  t.eq(m.verdict.latency.how, "untested")
  -- (untested, never "not shown to differ", which reads as sameness: fixa38)
  t.ok(m.verdict.text:find("y's latencies are untested: TTFT p90 -2.0 % (no test at this load: no per-request "
    .. "samples from both runs there).", 1, true), m.verdict.text)
  t.ok(report.no_slo_latency_text(m.no_slo_latency, { label = "x" }, { label = "y" }, 2):find(
    "y's latencies against x's are untested at this load: TTFT p90 49.0 ms vs 50.0 ms (-2.0 %) (y − x; no test at "
    .. "this load: no per-request samples from both runs there)", 1, true))
end)

t.test("capacity: no crossing read at or past a point whose saturation is unknown", function()
  local slo = decision.parse_slo("ttft_p90_ms=200", "--slo")
  -- 10, 20, 25, 28 achieved at 10-40 offered; point 3 completed 10 requests and fell short
  -- (25 < 28.5): unjudged; point 4 saturated (28 < 38): unknown, known sustained to point 2.
  -- TTFT p90 100, 150, 250, 400: the SLO (200) is crossed between points 2 and 3, which
  -- read as about 20 + (200 - 150) / (250 - 150) x 5 = 22.5 req/s at 25 offered, into the
  -- unjudged point. Bounded instead: at least point 2's 20 req/s.
  local r = run({ 10, 20, 25, 28 }, { 100, 150, 250, 400 }, { nil, nil, 10 })
  local pts = lp.points(r)
  local c = lp.capacity(pts, slo, lp.saturation(pts, { slo = slo }))
  t.eq({ c.kind, c.rps, c.bound }, { "last_sustained", 20, "lower" })
  t.ok(c.reason:find("load point 3 could not be judged", 1, true), c.reason)
  -- TTFT 100, 150, 190, 400: crossed between points 3 and 4, about 25 + 10 / 210 x 3 =
  -- 25.14 req/s "at about 30.48 req/s offered", past the unjudged point into the saturated
  -- one; bounded at 20 as well
  r = run({ 10, 20, 25, 28 }, { 100, 150, 190, 400 }, { nil, nil, 10 })
  pts = lp.points(r)
  c = lp.capacity(pts, slo, lp.saturation(pts, { slo = slo }))
  t.eq({ c.kind, c.rps, c.offered }, { "last_sustained", 20, nil })
  -- the Headline says which bound it is
  local m = build(r, run({ 10, 20, 30, 40 }, { 100, 150, 190, 400 }), slo)
  -- (cap37: the default 5 % failure limit is named beside the SLO)
  local row = t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)")
  t.ok(row.a_text:find("≥ 20.00 req/s (the last load known to be sustained)", 1, true), row.a_text)
end)

t.test("a test that left out loads as too dependent is no finding of sameness (newuser37 #11)", function()
  -- decision.verdict on a van Elteren test of 1 of 2 sustained strata (the other, 45/s,
  -- too dependent), p = 0.62 (not significant): "not shown to differ", with how much was
  -- untested, never "no clear difference"; one point's test is a plain Mann-Whitney, named so
  -- (fixa38: not "van Elteren, 1 point")
  local test = { test = "mann_whitney", name = "van_elteren", z = 0.49, p = 0.62, strata = 1,
    dependent = { "45/s" }, sustained_strata = 2 }
  local v = decision.verdict { key = "ttft_p90_ms", a = 482.6, b = 173.7, test = test }
  t.eq({ v.verdict, v.partial }, { "not shown to differ", true })
  t.eq(v.note, "untested at 1 of 2 loads (too dependent: 45/s), which the figures pool; Mann-Whitney at 1 load "
    .. "point, the one tested, p = 0.62")
  -- the same test with nothing left out: no clear difference, as before
  test.dependent = nil
  t.eq(decision.verdict({ key = "ttft_p90_ms", a = 482.6, b = 173.7, test = test }).verdict, "no clear difference")
end)

if proc_ok_numpy then
  t.test("a test that left out loads as too dependent: the report, on the simulated server", function()
    -- tests/data/queue_sim.py (as test_tests36.lua): a FIFO server of 320 slots, 0.1 s + 99 x
    -- 0.15 s a request, Poisson arrivals for 60 s at 4 and 20 req/s, seeds 101 and 102. At
    -- 20/s the TTFTs in send order are too dependent to test (test_tests36.lua checks the
    -- design effect against Python); 4/s alone is tested, p > 0.05. The TTFT p90 rows differ
    -- by -84.5 % in the pooled figures: not shown to differ (main: "no clear difference").
    local proc = require "llmd.proc"
    local json = require "llmd.json"
    local root = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
    local d = t.tmpdir()
    for _, s in ipairs { 101, 102 } do
      local r = proc.run { "/usr/bin/python3", root .. "/tests/data/queue_sim.py", d .. "/s" .. s, "--rates", "4,20",
        "--slots", "320", "--ttft0", "0.1", "--tpot", "0.15", "--outtok", "100", "--seed", tostring(s) }
      t.eq(r.code, 0, r.stdout .. r.stderr)
    end
    local r = proc.run { root .. "/llmdlua", root .. "/lua/compare.lua", "--a", d .. "/s101", "--b", d .. "/s102",
      "--parent", d .. "/out", "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local ws = t.workspaces(d .. "/out")[1]
    local model = json.decode(t.read(ws .. "/comparison.json"))
    local seen = 0
    for _, row in ipairs(model.perf) do
      if row.evidence and row.evidence:find("too dependent", 1, true) then
        seen = seen + 1
        t.ok(row.verdict ~= "no clear difference", row.key .. ": " .. tostring(row.verdict))
        t.ok(row.evidence:find("^untested at 1 of 2 loads %(too dependent: 20/s%)"), row.evidence)
        t.ok(not row.evidence:find("1 points", 1, true), row.evidence)
      end
    end
    t.ok(seen > 0, "a row left 20/s out")
    local md = t.read(ws .. "/comparison_report.md")
    t.ok(md:find("Not shown to differ, as tested at only some of the loads both runs sustained (untested at 1 of 2 "
      .. "loads, too dependent: 20/s), which the whole-run figures pool: ", 1, true), md)
  end)
end

if proc_ok_numpy then
  t.test("reason texts: requests, not repeats; all-or-none load points; samples all one value; 0 tok/s", function()
    -- tests/data/edge_vllm.py (audit37's hand-made vLLM --save-detailed files)
    local proc = require "llmd.proc"
    local json = require "llmd.json"
    local root = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
    local d = t.tmpdir()
    local g = proc.run { "/usr/bin/python3", root .. "/tests/data/edge_vllm.py", d }
    t.eq(g.code, 0, g.stdout .. g.stderr)
    local function compare(a, b)
      local parent = d .. "/out_" .. a .. b
      local r = proc.run { root .. "/llmdlua", root .. "/lua/compare.lua", "--a", d .. "/" .. a, "--b", d .. "/" .. b,
        "--parent", parent, "--quiet" }
      t.eq(r.code, 0, r.stderr)
      local ws = t.workspaces(parent)[1]
      local m = json.decode(t.read(ws .. "/comparison.json"))
      local rows = {}
      for _, row in ipairs(m.perf) do rows[row.key] = row end
      return m, rows, t.read(ws .. "/comparison_report.md")
    end
    -- e1: 2 requests a side, TTFT 100 ms against 200 ms: the exact test's least p is
    -- 2 / C(4, 2) = 0.333; it tested 2 and 2 requests (main: "0 and 0 repeats")
    local _, rows, md = compare("e1a", "e1b")
    t.eq(rows.ttft_p90_ms.verdict, "not shown to differ")
    t.eq(rows.ttft_p90_ms.evidence, "exact Mann-Whitney, p = 0.333: 2 and 2 requests can give no p below 0.333, so "
      .. "this test cannot show a difference; not in the Holm family")
    t.ok(md:find("tested only on requests too few for any outcome of the exact test to reach p < 0.05", 1, true), md)
    t.ok(not md:find("tested only on repeats", 1, true))
    -- e2: 2 and 4 req/s no failure in either run, 8 req/s every one of 480 failed in both:
    -- the same rate at every load point (main: "too few requests failed" with 480 of 840)
    local m
    m, rows = compare("e2a", "e2b")
    t.eq(rows.error_rate_pct.verdict, "no clear difference")
    t.ok(rows.error_rate_pct.evidence:find("^at each of the 3 load points both measured either no request failed in "
      .. "both runs or every one did %(480 of 840 and 480 of 840 failed in all%)"), rows.error_rate_pct.evidence)
    -- its point 3 completed none: 0 req/s and 0 output tok/s (main: tok/s N/A, "the achieved
    -- rate unknown")
    local p3 = m.load_points.a[3]
    t.eq({ p3.achieved_rps, p3.output_tps }, { 0, 0 })
    -- e3: 200 requests a side, every TTFT 100 ms and latency 2 s: samples, all one value
    -- (main: "no per-request samples or repeats from both runs")
    _, rows, md = compare("e3a", "e3b")
    t.eq(rows.ttft_p90_ms.evidence, "identical values; the 200 and 200 per-request samples are all one value: nothing "
      .. "to rank")
    t.ok(md:find("the metrics with per-request samples from both runs have every sample one value, nothing to rank",
      1, true), md)
  end)
end
