-- Task fixh39 (verification trial findings on main 7f98a23):
-- 1. A run saturated already at its lowest load has no max sustained figure, but its limit
--    lies below that load and at most its ceiling (the most it achieved at any load): another
--    run that sustained more than that ceiling is above it by the measured loads (compare.lua
--    and treatments.lua), untested; two runs both saturated at their lowest load are not
--    ordered (the A/A guard).
-- Expected values by hand from the points given, as said beside each.
local t = require "testlib"
local tr = require "llmd.treatments"
local report = require "llmd.report"
local decision = require "llmd.decision"
local stats = require "llmd.stats"

-- a run offered rates[i] req/s that achieved got[i] (TTFT p90 100 ms everywhere)
local function run(rates, got)
  local stages = {}
  for i, r in ipairs(rates) do
    stages[i] = { rate = r, values = { throughput_req_s = got[i], ttft_p90_ms = 100, throughput_tok_s = 10 * got[i],
      error_rate_pct = 0 } }
  end
  return t.run_of(stages)
end

local model = t.xy_model -- (no SLO)

-- x: offered 6, 8, 10 req/s, achieved 4.7, 4.8, 4.85: 4.7 < 0.95 x 6 = 5.7, saturated at its
-- lowest load, ceiling 4.85 (its most). y: achieved 6, 8, 9.4: 6 ≥ 5.7, 8 ≥ 7.6, 9.4 < 9.5:
-- saturated at load 3, max sustained 8 (its most before), ceiling 9.4. 8 > 4.85, by
-- (8 - 4.85) / ((8 + 4.85) / 2) = 49 % of their mean, beyond the practical threshold of 5 %.
local X_RATES, X_GOT = { 6, 8, 10 }, { 4.7, 4.8, 4.85 }
local Y_GOT = { 6, 8, 9.4 }

t.test("1: saturated at its lowest load, below another's figure: ordered by the loads (decision)", function()
  local sx = { point = 1, ceiling_rps = 4.85, offered = 6 }
  local sy = { point = 3, max_sustained_rps = 8, ceiling_rps = 9.4 }
  t.ok(decision.saturated_lowest(sx), "x saturated at its lowest load")
  t.ok(not decision.saturated_lowest(sy), "y did not")
  local order, sp = decision.sustained_order(sx, 1, sy, 1, decision.MIN_EFFECT)
  t.eq(order, "b")
  t.eq(sp.la, 0)
  t.eq(sp.ha, 4.85)
  t.eq(sp.lb, 8.0)
  t.eq(decision.sustained_order(sy, 1, sx, 1, decision.MIN_EFFECT), "a")
  -- y sustained 4.5 < x's ceiling 4.85: x's limit may be above it: no order
  t.eq(decision.sustained_order(sx, 1, { point = 3, max_sustained_rps = 4.5, ceiling_rps = 5 }, 1), nil)
  -- A/A: both saturated at their lowest load: no order, no spans, whatever the ceilings
  local o2, sp2 = decision.sustained_order(sx, 1, { point = 1, ceiling_rps = 9 }, 1)
  t.eq(o2, nil)
  t.eq(sp2, nil)
  -- a run cut at its lowest load by its failures (a crashed repeat: test_failsat) is not
  -- bounded by what it achieved while failing: no order
  local sf = { point = 1, ceiling_rps = 4.85, cause = "failures" }
  t.ok(not decision.saturated_lowest(sf), "cut by failures")
  t.eq(decision.sustained_order(sf, 1, sy, 1, decision.MIN_EFFECT), nil)
end)

t.test("1: compare.lua's verdict and row order a run saturated at its lowest load below the other", function()
  local m = model(run(X_RATES, X_GOT), run(X_RATES, Y_GOT))
  t.eq(m.saturation.a.point, 1)
  t.eq(m.saturation.b.max_sustained_rps, 8.0)
  t.eq(m.verdict.kind, "ordered")
  t.eq(m.verdict.higher, "b")
  t.contains(m.verdict.text, "the measured loads order them")
  t.contains(t.headline_row(m, "Max sustained throughput").evidence,
    "y sustained 8.00 req/s, x never achieved more than 4.85 req/s at any load")
  -- A/A: both saturated at their lowest load (x and a copy of it): no order
  m = model(run(X_RATES, X_GOT), run(X_RATES, { 4.6, 4.9, 5.0 }))
  t.eq(m.verdict.kind, "cannot say")
  t.eq(m.verdict.higher, nil)
  t.contains(m.verdict.text, "a max sustained throughput is unknown")
end)

t.test("1: treatments.lua ranks the one with a figure above the one saturated at its lowest load", function()
  local x = t.treatment("x", { { 6, 4.7, 100 }, { 8, 4.8, 100 }, { 10, 4.85, 100 } })
  local y = t.treatment("y", { { 6, 6, 100 }, { 8, 8, 100 }, { 10, 9.4, 100 } })
  local m = tr.model { x, y }
  t.lacks(m.verdict, "nothing to rank it against")
  t.contains(m.verdict, "y sustains the most load (max sustained throughput)")
  t.contains(m.verdict, "x saturated already at its lowest load and never achieved more than 4.850 req/s at any load")
  t.eq(m.ranking[2].label, "x")
  t.eq(m.ranking[2].below[1], "y")
  -- A/A: both saturated at their lowest load: nothing ranked, no order said
  local x2 = t.treatment("x2", { { 6, 4.6, 100 }, { 8, 4.9, 100 }, { 10, 5.0, 100 } })
  m = tr.model { x, x2 }
  t.lacks(m.verdict, "sustains the most load")
  t.eq(m.ranking[1].below, nil)
  t.eq(m.ranking[2].below, nil)
end)



-- 4. The ranking's note on shared ranks comes from the table, never the fixed "two at "1=",
--    then 3" under a table where four share 1= and there is no 3.
t.test("4: the note on shared ranks reads the table", function()
  -- four treatments alike (10, 20, 25 achieved at 10, 20, 30 offered: each max sustained 20,
  -- ceiling 25, one run per load): untested, the loads order none, so all four share 1=
  local list = {}
  for i, l in ipairs { "a", "b", "c", "d" } do
    list[i] = t.treatment(l, { { 10, 10, 100 }, { 20, 20, 120 }, { 30, 25, 3000 } })
  end
  local m = tr.model(list)
  for i = 1, 4 do t.eq(m.ranking[i].rank_text, "1=") end
  t.eq(tr.rank_share_text(m.ranking), 'here four at "1=", none after them')
  local out = t.tmpdir()
  list.identical = {}
  tr.write_report(out, list, {})
  local md = t.read(out .. "/treatment_report.md")
  t.contains(md, 'share a rank, marked "=": here four at "1=", none after them.')
  t.lacks(md, 'two at "1=", then 3')
  -- by hand: 1=, 1=, 3 reads "two at 1=, then 3"; 1, 2 reads that none shares
  t.eq(tr.rank_share_text { { rank = 1, tied = true }, { rank = 1, tied = true }, { rank = 3 } },
    'here two at "1=", then 3')
  t.eq(tr.rank_share_text { { rank = 1 }, { rank = 2 } }, "here no place shares a rank")
  t.eq(tr.rank_share_text { { rank = 1 }, { rank = 2, tied = true }, { rank = 2, tied = true }, { rank = 2, tied = true } },
    'here three at "2=", none after them')
end)

-- 3. A lower-bound capacity whose load points' 95 % intervals widen its span below the bound:
--    its cell says the bound is the measured one ("measured ≥ 20.00 req/s (...; with each
--    load's 95 % interval: between 10.00 and 25.00)"), never a bare "≥" beside a span from
--    below it; its tok/s cell shows the span in tok/s the gap beside it uses.
t.test("3: a bound beside a span its intervals widen is the measured one; the tok/s cell shows the span", function()
  -- x: offered 10, 20, 30 req/s, achieved 10, 20, 25 (25 < 0.95 x 30: saturated at 30, its
  -- ceiling 25), 10 output tokens a request. TTFT p90: 100 ms at 10 (every request at 100),
  -- at 20 1000 requests at 0.999, 1.998, ..., 999 ms: p90 899.2 ms, under the SLO of 900, but
  -- its 95 % interval (order statistics 881 to 919, as test_fixa39's ramp scaled by 0.999)
  -- straddles 900; at 30 2000 ms. So x is "≥ 20.00 (the last load before saturation)", and
  -- on the intervals' upper ends it may fail at 20: its span 10 (the last load known to
  -- pass) to 25 (its ceiling), by hand. In tok/s: 100 to 250. y: 100 ms at 10 and 20, 2000 at
  -- 30, achieved as offered: crosses between 20 and 30, known: 20 to 30 (200 to 300 tok/s).
  -- B - A: 20 - 25 = -5.00 to 30 - 10 = +20.00 req/s; -50.0 to +200.0 tok/s (by hand).
  local function srun(points)
    local stages = {}
    for i, p in ipairs(points) do
      stages[i] = { rate = p.rate, values = { throughput_req_s = p.got, ttft_p90_ms = p.p90,
        throughput_tok_s = 10 * p.got, error_rate_pct = 0 } }
    end
    local r = t.run_of(stages)
    for i, p in ipairs(points) do
      local acc = stats.new()
      for k = 1, 1000 do acc:add((p.ramp and k * 0.999 or p.p90) / 1000) end
      r.stages[i].metrics.samples, r.stages[i].metrics.sample_deff = { ttft = acc }, { ttft = 1 }
    end
    return r
  end
  local x = srun { { rate = 10, got = 10, p90 = 100 }, { rate = 20, got = 20, p90 = 899.2, ramp = true },
    { rate = 30, got = 25, p90 = 2000 } }
  local y = srun { { rate = 10, got = 10, p90 = 100 }, { rate = 20, got = 20, p90 = 100 },
    { rate = 30, got = 30, p90 = 2000 } }
  local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
  local m = report.build { a = sd("x", x), b = sd("y", y), slo = decision.parse_slo("ttft_p90_ms=900"), generated = 0 }
  local row = t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 900.0 ms and Error rate ≤ 5 % by default)")
  t.eq(row.a_text, "measured ≥ 20.00 req/s (the last load before saturation; with each load's 95 % interval: "
    .. "between 10.00 and 25.00)")
  t.eq(row.delta_text, "-5.00 to +20.00 req/s (the measured loads cannot order them)")
  local trow = t.headline_row(m, "Capacity at SLO, output tok/s")
  t.eq(trow.a_text, "measured ≥ 200.0 tok/s (with each load's 95 % interval: between 100.0 and 250.0 tok/s)")
  t.eq(trow.delta_text, "-50.0 to +200.0 tok/s (the measured loads cannot order them)")
end)

-- 2. On the Pareto front, a treatment that never saturated is never beaten (its max
--    sustained throughput is a lower bound, which may be above the other's in truth), but
--    where another's figures are ahead of it the front says so, and why it is not compared
--    (pareto_not_compared, lower_bound = true), never silence.
t.test("2: Pareto: one never saturated, behind another's figures: not compared, said so", function()
  -- a and c offered and achieved 10 and 20 req/s: never saturated, each ≥ 20.000 req/s. At
  -- 20 req/s (the common load) 200 TTFTs evenly spaced 0.100-0.300 s (a: p90 280.0 ms) and
  -- 0.110-0.330 s (c: 308.0 ms); their 95 % intervals 270.9-288.9 and 297.9-317.8 ms (python3
  -- numpy order statistics at ranks 171 and 189, as test_treat39's a and c): apart. By the figures a is ahead on TTFT p90 and no
  -- lower on throughput (20 against 20), but c's ≥ 20 may be above a's 20 in truth.
  local function nt(label, lo, hi)
    local x = t.treatment(label, { { 10, 10, 100 }, { 20, 20, (lo + 0.9 * (hi - lo)) * 1000 } })
    local acc = stats.new()
    for _, v in ipairs(t.spread(lo, hi, 200)) do acc:add(v) end
    x.run.stages[2].metrics.samples, x.run.stages[2].metrics.sample_deff = { ttft = acc }, { ttft = 1 }
    return x
  end
  local m = tr.model { nt("a", 0.100, 0.300), nt("c", 0.110, 0.330) }
  t.eq(m.pareto_latency, "TTFT p90")
  t.eq(#m.dominated, 0)
  table.sort(m.front)
  t.eq(m.front, { "a", "c" })
  t.eq(#m.pareto_not_compared, 1)
  local d = m.pareto_not_compared[1]
  t.eq({ d.label, d.other, d.would, d.lower_bound }, { "c", "a", "on TTFT p90", true })
  t.contains(d.why, "c never saturated: its max sustained throughput, ≥ 20.000 req/s, is a lower bound, which may be "
    .. "above a's 20.000 req/s in truth")
  t.contains(d.why, "TTFT p90 280.0 ms against 308.0 ms: beyond noise: the 95 % intervals of the two percentiles, "
    .. "from each one's requests (order statistics, n / design effect) are apart, 270.9–288.9 ms against "
    .. "297.9–317.8 ms")
  -- a is behind on nothing: no entry for it
  for _, e in ipairs(m.pareto_not_compared) do t.ok(e.label ~= "a", e.label) end
end)

t.test("1: saturated at its lowest load: the Summary's reason for nothing tested is that no load both sustained",
  function()
  -- tests/data/queue_sim.py (2.1 s a request): 10 slots serve at most 10 / 2.1 = 4.76 req/s,
  -- so offered 6 and 8 req/s are both past its saturation; 20 slots (9.52 req/s) keep up with
  -- both. No load point both runs sustained, which every latency row says; the Summary said
  -- "no metric has per-request samples or repeats from both runs", untrue of these vLLM
  -- detailed files (on main)
  if not t.have_numpy() then return end
  local proc = require "llmd.proc"
  local d = t.tmpdir()
  local function sim(name, slots)
    local r = proc.run { "/usr/bin/python3", t.root() .. "/tests/data/queue_sim.py", d .. "/" .. name, "--rates",
      "6,8", "--slots", tostring(slots), "--seed", "3" }
    t.eq(r.code, 0, r.stderr)
    return d .. "/" .. name
  end
  local harness = require "llmd.harness"
  local function sd(label, dir) return { label = label, state = { label = label }, run = harness.extract(dir, {}),
    kv = {} } end
  local m = report.build { a = sd("k10", sim("k10", 10)), b = sd("k20", sim("k20", 20)), generated = 0 }
  local untested = 0
  for _, r in ipairs(m.perf) do
    if r.verdict == "untested" then
      untested = untested + 1
      t.contains(r.evidence, "no load point both runs sustained")
    end
  end
  t.ok(untested > 0, "rows untested")
  t.contains(m.summary, "Nothing could be tested: no load point both runs sustained (past saturation the latency "
    .. "measures the queue, which grows with time, not the server), so none names a winner")
  t.lacks(m.summary, "no metric has per-request samples")
end)
