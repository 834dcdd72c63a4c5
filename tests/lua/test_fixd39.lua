-- Task fixd39 (audit of main d77aef0):
-- 1. a load point that could not be judged (too few requests, or a shortfall the scatter may
--    explain) below a point that clearly saturated made the whole max sustained throughput
--    N/A, and the run fell out of the ranking; now the clear saturation bounds the limit: the
--    figure is the last load known to be sustained, the limit up to the most achieved at any
--    load (the unjudged point widens that range);
-- 2. a max sustained point that answered 95-97.5 % of its sends is marked "mildly overloaded"
--    beside the figure (treatments.lua marked it only at the common load);
-- 3. comparison.json wrote an empty capacity noise.unclear (and an empty side of a test's
--    overloaded loads) as {} where the other side's is a list: empty lists are [].
-- Expected values are hand arithmetic on the hand-made load points (each said where used).
local t = require "testlib"
local json = require "llmd.json"
local lp = require "llmd.loadpoints"
local report = require "llmd.report"
local decision = require "llmd.decision"

-- rate-based stages {offered, achieved req/s, completed requests}
local function run(list)
  local stages = {}
  for i, x in ipairs(list) do
    stages[i] = { rate = x[1], values = { throughput_req_s = x[2], requests_ok = x[3], error_rate_pct = 0,
      ttft_p90_ms = x[4] } }
  end
  return t.run_of(stages)
end

t.test("an unjudged load below a clear saturation widens the max sustained range, never N/A (audit39 #1)", function()
  -- point 3: 27 of 30 req/s (90 %, below 95 %) from 15 requests (fewer than 20: too few to
  -- judge); point 4: 28 of 40 req/s (70 %), 1680 requests: clearly saturated
  local pts = lp.points(run { { 10, 10, 600 }, { 20, 19.8, 1188 }, { 30, 27, 15 }, { 40, 28, 1680 } })
  local s = lp.saturation(pts)
  t.ok(not s.unknown, s.reason)
  -- by hand: the most achieved up to point 2 (the last judged sustained) is 19.8; the most at
  -- any load is 28 (point 4)
  t.eq({ s.point, s.max_sustained_rps, s.ceiling_rps, s.sustained_upto }, { 4, 19.8, 28, 2 })
  t.eq(s.unjudged.points, { 3 })
  t.contains(s.reason, "load point 3 (30 req/s offered) could not be judged (too few requests")
  t.contains(s.reason, "lies between 19.800 req/s, the most up to load point 2, the last known to be sustained, and "
    .. "28.000 req/s, the most at any load")
  -- beside the figure, in every output
  t.eq(lp.sustained_failure_notes(s), { "load point 3 (30 req/s offered) could not be judged, load point 4 saturated" })
  -- past saturation at an achieved rate above the most below the saturated point (27, point
  -- 3's), not in between (19.8 to 27: not known either way)
  t.eq({ lp.saturated_at(s, 25), lp.saturated_at(s, 27.5) }, { false, true })
  t.eq({ lp.point_saturated(s, pts[3]), lp.point_saturated(s, pts[4]) }, { false, true })
  -- the common load stops below the unjudged point (20 req/s offered), against a run that
  -- kept up at every load
  local other = lp.points(run { { 10, 10, 600 }, { 20, 20, 1200 }, { 30, 30, 1800 }, { 40, 40, 2400 } })
  local cl = lp.common_load({ { points = pts, saturation = s }, { points = other, saturation = lp.saturation(other) } })
  t.eq({ cl.load, cl.sustained }, { 20, true })
  -- with an SLO: the capacity is at least the last load known sustained, as before
  local pts2 = lp.points(run { { 10, 10, 600, 50 }, { 20, 19.8, 1188, 60 }, { 30, 27, 15, 70 }, { 40, 28, 1680, 90 } })
  local c = lp.capacity(pts2, decision.parse_slo("ttft_p90_ms=200"))
  t.eq({ c.kind, c.rps, c.ceiling_rps }, { "last_sustained", 19.8, 28 })
end)

t.test("several unjudged loads: all of them named; settled together by a higher load that kept up", function()
  local s = lp.saturation(lp.points(run { { 10, 10, 600 }, { 20, 18, 10 }, { 30, 27, 15 }, { 40, 28, 1680 } }))
  t.eq({ s.point, s.max_sustained_rps, s.sustained_upto }, { 4, 10, 1 })
  t.eq(s.unjudged.points, { 2, 3 })
  t.contains(lp.sustained_failure_notes(s)[1], "load points 2 and 3 could not be judged")
  -- kept up at 40 req/s (39.5, 98.75 %): points 2 and 3 kept up too, both said (main: point 2 only)
  s = lp.saturation(lp.points(run { { 10, 10, 600 }, { 20, 18, 10 }, { 30, 27, 15 }, { 40, 39.5, 2370 } }))
  t.ok(s.none and not s.unknown, s.reason)
  local settled = {}
  for _, r in ipairs(s.resolved) do settled[#settled + 1] = r.point end
  t.eq(settled, { 2, 3 })
  t.contains(s.reason, "load point 3 (30 req/s offered) could not be judged on its own")
end)

t.test("an unjudged lowest load: still unknown (no load is known to be sustained)", function()
  local s = lp.saturation(lp.points(run { { 10, 9, 10 }, { 20, 12, 720 } }))
  t.eq({ s.unknown, s.max_sustained_rps }, { true, nil })
  t.contains(s.reason, "too few requests to judge saturation")
end)

t.test("a max sustained point that answered 95-97.5 % of its sends is marked mildly overloaded (audit39 #2)",
  function()
  -- 9.65 of 10 req/s: 96.5 % (hand), kept up by the 95 % rule, below 97.5 %; then 15 of 20 (75 %)
  local s = lp.saturation(lp.points(run { { 10, 9.65, 579 }, { 20, 15, 900 } }))
  t.eq({ s.point, s.max_sustained_rps }, { 2, 9.65 })
  t.eq({ s.edge.point, s.edge.share_text }, { 1, "96.5" })
  t.eq(lp.sustained_failure_notes(s), { "mildly overloaded there: answered 96.5 % of its sends at load point 1 (10 "
    .. "req/s offered), kept up by the 95 % rule but below 97.5 %, at the edge of its limit" })
  -- 9.76 of 10 (97.6 %): not marked; a run that never saturated, its highest load at 19.3 of
  -- 20 (96.5 %): marked
  t.eq(lp.saturation(lp.points(run { { 10, 9.76, 586 }, { 20, 15, 900 } })).edge, nil)
  s = lp.saturation(lp.points(run { { 10, 10, 600 }, { 20, 19.3, 1158 } }))
  t.ok(s.none, s.reason)
  t.eq({ s.edge.point, s.edge.share_text }, { 2, "96.5" })
end)

t.test("capacity noise: no unclear point encodes as [] in comparison.json, never {} (audit39 #3)", function()
  -- TTFT p90 50, 100 and 300 ms at 10, 20, 30 req/s, each exactly so (1000 requests at that
  -- value: t.with_samples), against 200 ms: no point's interval straddles the SLO
  local r = t.with_samples(run { { 10, 10, 600, 50 }, { 20, 20, 1200, 100 }, { 30, 30, 1800, 300 } })
  local pts = lp.points(r)
  local nz = lp.capacity_noise(pts, decision.parse_slo("ttft_p90_ms=200"))
  t.ok(nz and not nz.unknown, nz and nz.unknown)
  t.eq(json.encode(nz.unclear), "[]")
  local plain = report.plain { capacity = { b = { noise = report.noise_of(nz) } } }
  t.contains(json.encode(plain), '"unclear":[]')
end)

-- The audit's runs: tests/data/queue_sim.py, 20 slots (9.52 req/s at most), 2 to 12 req/s,
-- 3 repeats, seeds 11 (A) and 12 (B)
local function sim(d, name, seed, extra)
  local proc = require "llmd.proc"
  local args = { t.PY, t.root() .. "/tests/data/queue_sim.py", d .. "/" .. name, "--rates", "2,4,6,8,10,12",
    "--slots", "20", "--seed", tostring(seed) }
  for _, a in ipairs(extra or {}) do args[#args + 1] = a end
  local r = proc.run(args)
  t.eq(r.code, 0, r.stderr)
  return d .. "/" .. name
end

t.test("treatments.lua: B, whose 10 req/s could not be judged below a clear saturation at 12, is ranked", function()
  if not t.have_numpy() then return end
  local proc = require "llmd.proc"
  local d = t.tmpdir()
  local a, b = sim(d, "a", 11, { "--repeat", "3" }), sim(d, "b", 12, { "--repeat", "3" })
  local out = d .. "/tr"
  local r = proc.run { t.root() .. "/llmdlua", t.root() .. "/lua/treatments.lua", "--run", "A=" .. a, "--run",
    "B=" .. b, "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local j = json.read(out .. "/treatments.json")
  local md = t.read(out .. "/treatment_report.md")
  local B = j.treatments[2]
  t.eq(B.label, "B")
  -- its figure: the most its load points 1-4 achieved (the Load points table's 8 req/s row:
  -- the throughputs there rise with the load), not N/A
  local at8 = md:match("### B.-| 8 req/s | ([%d.]+) |")
  t.ok(at8 and B.max_sustained_rps, md)
  t.eq(("%.3f"):format(B.max_sustained_rps), at8)
  t.eq(B.saturation.point, 6)
  t.eq(B.saturation.unjudged.points, { 5 })
  -- the limits overlap (B up to 9.559 at 12 req/s): neither is placed above the other
  t.eq({ j.ranking[1].rank_text, j.ranking[2].rank_text }, { "1=", "1=" })
  t.lacks(md, "B: left out")
  -- A's figure is read at 10 req/s, where it answered 95 to 97.5 % of its sends: marked there
  local A = j.treatments[1]
  t.eq(A.saturation.max_sustained_mild.point, 5)
  t.ok(A.saturation.max_sustained_mild.share_pct >= 95 and A.saturation.max_sustained_mild.share_pct < 97.5,
    A.saturation.max_sustained_mild.share_text)
  t.contains(md, "mildly overloaded there: answered " .. A.saturation.max_sustained_mild.share_text
    .. " % of its sends at load point 5 (10 req/s offered)")
end)

t.test("comparison.json: a side with no overloaded load in a test's strata is [], never {} (audit39 #3)", function()
  -- 20 slots saturate at 10 and 12 req/s (9.52 req/s at most), 30 slots (14.3) never do
  if not t.have_numpy() then return end
  local proc = require "llmd.proc"
  local d = t.tmpdir()
  local a, b = sim(d, "a", 7), sim(d, "b", 8, { "--slots", "30" })
  local args = { t.root() .. "/llmdlua", t.root() .. "/lua/compare.lua", "--a", a, "--b", b, "--parent", d .. "/c",
    "--quiet" }
  local r = proc.run(args)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ws = r.stdout:match("Workspace: ([^\n]+)")
  local cj = json.read(ws .. "/comparison.json")
  local seen = 0
  for _, row in ipairs(cj.perf) do
    local ov = type(row.sig) == "table" and row.sig.overloaded
    if ov then
      seen = seen + 1
      t.ok(json.is_array(ov.a) and json.is_array(ov.b), row.key)
      t.eq(#ov.b, 0, row.key)
    end
  end
  t.ok(seen > 0, "no test left out an overloaded load")
end)

t.test("treatments per GPU: two lower bounds and a pair not shown to differ, in the totals' words (audit39 #4)",
  function()
  if not t.have_numpy() then return end
  local proc = require "llmd.proc"
  local d = t.tmpdir()
  -- 24 slots on 2 GPUs (11.4 req/s at most) and 16 on 1 (7.6), TTFT p90 <= 100 s: neither run
  -- fails the SLO before saturating, so both capacities are lower bounds (the last load before
  -- saturation); main said "k16 and k24 per GPU: not known", as if data were missing
  local k24, k16 = sim(d, "k24", 4, { "--slots", "24" }), sim(d, "k16", 5, { "--slots", "16" })
  local out = d .. "/tr"
  local r = proc.run { t.root() .. "/llmdlua", t.root() .. "/lua/treatments.lua", "--run", "k24=" .. k24, "--run",
    "k16=" .. k16, "--gpus", "k24=2,k16=1", "--slo", "ttft_p90_ms=100000", "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local md = t.read(out .. "/treatment_report.md")
  local j = json.read(out .. "/treatments.json")
  local cap = {}
  for _, x in ipairs(j.treatments) do cap[x.label] = x.capacity.rps end
  -- the per-GPU figures: the totals over 1 and 2 GPUs (hand)
  t.contains(md, ("k16 and k24 per GPU: not comparable: both capacities are only lower bounds, ≥ %.3f req/s and "
    .. "≥ %.3f req/s per GPU, so either may be higher"):format(cap.k16, cap.k24 / 2))
  t.lacks(md, "per GPU: not known")
  -- the same server twice (3 repeats each, seeds 11 and 12) on 2 GPUs each, and k24 on 1: A
  -- and B per GPU are the totals halved, so the gap the per-GPU spans allow is the totals'
  -- (a ratio of two figures each halved); main said "not shown to differ" with no gap
  local a, b = sim(d, "a", 11, { "--repeat", "3" }), sim(d, "b", 12, { "--repeat", "3" })
  out = d .. "/tr2"
  r = proc.run { t.root() .. "/llmdlua", t.root() .. "/lua/treatments.lua", "--run", "A=" .. a, "--run", "B=" .. b,
    "--run", "k24=" .. k24, "--gpus", "A=2,B=2,k24=1", "--slo", "ttft_p90_ms=500", "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  md = t.read(out .. "/treatment_report.md")
  local lo, hi = md:match("the gap could be anywhere from (%S+ %%) to (%S+ %%) %(A vs B%)")
  t.ok(lo, md)
  t.contains(md, ("A and B per GPU: not shown to differ (A %s to %s vs B per GPU)"):format(lo, hi))
end)

t.test("compare.lua: a run bounded by a saturation above its unjudged load is ordered by the measured loads", function()
  -- x: 10, 20, 22 req/s at 10, 20, 30 offered: saturated at 30 (22 < 28.5), 20 sustained, up
  -- to 22. y: 10, then 15 from 10 requests (too few to judge), then 16 of 30 (1000 requests,
  -- clearly saturated): y's limit lies between 10 and 16, below x's 20 whatever lies between the
  -- loads. By hand, y against x from 10 / 22 - 1 = -54.5 % to 16 / 20 - 1 = -20.0 %. On main
  -- y's max sustained was N/A and nothing was said of the order.
  local function r(achieved, few)
    local stages = {}
    for i, v in ipairs(achieved) do
      stages[i] = { rate = 10 * i, values = { throughput_req_s = v, ttft_p90_ms = 50, error_rate_pct = 0,
        requests_ok = few[i] } }
    end
    return t.run_of(stages)
  end
  local function sd(label, run_) return { label = label, state = { label = label, stack = {} }, run = run_, kv = {} } end
  local m = report.build { a = sd("x", r({ 10, 20, 22 }, { 600, 1200, 1320 })),
    b = sd("y", r({ 10, 15, 16 }, { 600, 10, 1000 })), slo = {}, generated = 0 }
  t.eq(m.verdict.kind, "ordered")
  t.contains(m.verdict.text, "x sustains more load (max sustained throughput; no SLO given): 20.00 req/s against "
    .. "10.00 req/s for y (y -54.5 % to -20.0 % vs x)")
end)
