-- The order of two max sustained throughputs (decision.sustained_order) holds only beyond the
-- noise of the rates it is read off (audit40 #1): a point that kept up achieved its own
-- Poisson send rate, so "A sustained 9.76 req/s, B never achieved more than 9.74" said of two
-- runs of one server named a winner by 0.02 req/s. compare.lua and treatments.lua read one rule.
local t = require "testlib"
local report = require "llmd.report"
local decision = require "llmd.decision"
local tr = require "llmd.treatments"

-- Runs of one stage per offered rate (10 req/s apart from 10 up), each with its achieved rate
-- and the successes counted in its window.
local function run(achieved, counts)
  local stages = {}
  for i, r in ipairs(achieved) do
    stages[i] = { rate = i <= 2 and 10 * i or nil, values = { throughput_req_s = r, ttft_p90_ms = 50,
      error_rate_pct = 0, requests_ok = counts[i] } }
  end
  return stages
end

-- x offered 10, 20, 30 req/s, achieved 10, 20, 22 (22 < 95 % of 30: saturated at point 3):
-- max sustained 20, ceiling 22. y offered 10, 20, 25, 30, achieved 10, 20, 24.5, 25 (24.5 >=
-- 23.75 kept up, 25 < 28.5 saturated): max sustained 24.5, ceiling 25. The spans (x 20-22, y
-- 24.5-25) are apart, by 10.8 % of their mean, beyond the 2 % threshold: ordered on main
-- whatever the counts. Counts of a 15 s load (n = rate x 15: y's 24.5 from 368 requests, x's
-- 22 from 330) and of a 60 s one, 16 times more (5888, 5280).
local OFFERED_X, OFFERED_Y = { 10, 20, 30 }, { 10, 20, 25, 30 }
local function pair(k)
  local function stages(offered, achieved, counts)
    local s = run(achieved, counts)
    for i, st in ipairs(s) do
      st.rate = offered[i]
      st.values.requests_ok = counts[i] * k
    end
    return t.run_of(s)
  end
  return stages(OFFERED_X, { 10, 20, 22 }, { 150, 300, 330 }), stages(OFFERED_Y, { 10, 20, 24.5, 25 },
    { 150, 300, 368, 375 })
end

local function sd(label, r) return { label = label, state = { label = label, stack = {} }, run = r, kv = {} } end

t.test("compare.lua: spans apart by less than the noise of the rates order nothing", function()
  local x, y = pair(1)
  local m = report.build { a = sd("x", x), b = sd("y", y), slo = {}, generated = 0 }
  -- /usr/bin/python3: z = 1.959963984540054 (scipy.stats.norm.ppf(0.975)); y's figure 24.5
  -- from 368 requests, half-width 24.5 z / sqrt(368); x's ceiling 22 from 330, 22 z /
  -- sqrt(330); the gap 24.5 - 22 = 2.5 with half-width math.hypot of the two, 3.4496...: from
  -- -0.9496372805850535 to 5.949637280585053, reaching below 0
  t.eq(m.verdict.kind, "cannot say")
  t.eq(m.verdict.higher, nil)
  local clause = "the measured loads put y above (y sustained 24.50 req/s, x never achieved more than 22.00 req/s "
    .. "at any load), but within the noise of those rates: y's figure less x's ceiling, 2.50 req/s, has a 95 % "
    .. "interval from -0.95 req/s to 5.95 req/s (y's figure from 368 requests, x's ceiling from 330), so either may "
    .. "be higher; for these rates, more requests at each load (longer loads, rather than repeats) would tell"
  t.contains(m.verdict.text, "Cannot say which sustains more load (max sustained throughput; no SLO given): ")
  t.contains(m.verdict.text, clause)
  local row = t.headline_row(m, "Max sustained throughput")
  t.contains(row.evidence, clause .. ": no winner")
  t.lacks(row.evidence, "order them")
end)

t.test("compare.lua: the same spans from 16 times the requests are ordered", function()
  local x, y = pair(16)
  local m = report.build { a = sd("x", x), b = sd("y", y), slo = {}, generated = 0 }
  -- the gap 2.5 less math.hypot(24.5 z / sqrt(5888), 22 z / sqrt(5280)) = 1.6375906798537367
  -- above 0: beyond the noise, ordered, untested (one run per load)
  t.eq({ m.verdict.kind, m.verdict.higher }, { "ordered", "b" })
  t.contains(t.headline_row(m, "Max sustained throughput").evidence, "but the measured loads order them: y sustained "
    .. "24.50 req/s, x never achieved more than 22.00 req/s at any load")
end)

t.test("decision.sustained_order: the noise ends it reads, and an unknown count leaves the spans alone", function()
  local lp = require "llmd.loadpoints"
  local function sat(offered, achieved, counts)
    local s = run(achieved, counts)
    for i, st in ipairs(s) do st.rate = offered[i] end
    return lp.saturation(lp.points(t.run_of(s)))
  end
  local sx = sat(OFFERED_X, { 10, 20, 22 }, { 150, 300, 330 })
  local sy = sat(OFFERED_Y, { 10, 20, 24.5, 25 }, { 150, 300, 368, 375 })
  local order, sp = decision.sustained_order(sx, 1, sy, 1, decision.MIN_EFFECT)
  t.eq(order, nil)
  t.eq(sp.within_noise, "b")
  t.near(sp.noise.fig_lo, 21.9968304564178, 1e-9)
  t.near(sp.noise.ceil_hi, 24.373634260724412, 1e-9)
  t.eq({ sp.noise.fig_n, sp.noise.ceil_n }, { 368, 330 })
  t.near(sp.noise.gap_lo, -0.9496372805850535, 1e-9)
  t.near(sp.noise.gap_hi, 5.949637280585053, 1e-9)
  -- per GPU (y on 2 GPUs, x on 1): y's span 12.25-12.5 below x's 20-22; x's figure 20 from
  -- 300 requests, 20 (1 - z / sqrt(300)) = 17.736828531847657, y's ceiling per GPU 25 / 2 (1
  -- + z / sqrt(375)) = 13.76515131188166: the gap 7.5 less math.hypot of the half-widths,
  -- 4.907211359131887, above 0: ordered, x higher
  order, sp = decision.sustained_order(sy, 2, sx, 1, decision.MIN_EFFECT)
  t.eq(order, "b")
  t.near(sp.noise.fig_lo, 17.736828531847657, 1e-9)
  t.near(sp.noise.ceil_hi, 13.76515131188166, 1e-9)
  t.near(sp.noise.gap_lo, 4.907211359131887, 1e-9)
  -- no counts (files that count no requests): the spans alone, as before, said so
  local ux = sat(OFFERED_X, { 10, 20, 22 }, {})
  local uy = sat(OFFERED_Y, { 10, 20, 24.5, 25 }, {})
  order, sp = decision.sustained_order(ux, 1, uy, 1, decision.MIN_EFFECT)
  t.eq(order, "b")
  t.eq(sp.noise.unknown, true)
end)

t.test("treatments.lua ranks by the same rule: within the noise, one shared rank", function()
  local function treatment(label, offered, achieved, counts, k)
    local s = run(achieved, counts)
    for i, st in ipairs(s) do
      st.rate = offered[i]
      st.values.requests_ok = counts[i] * k
    end
    local r = t.run_of(s)
    return { label = label, run = r, runs = { r }, dirs = { label }, status = "ok", reasons = {} }
  end
  local function model(k)
    return tr.model { treatment("x", OFFERED_X, { 10, 20, 22 }, { 150, 300, 330 }, k),
      treatment("y", OFFERED_Y, { 10, 20, 24.5, 25 }, { 150, 300, 368, 375 }, k) }
  end
  -- 15 s loads: the gap's interval -0.950 to 5.950 (above): no place (main: "1" and "2", the
  -- measured loads ordering them)
  local m = model(1)
  t.eq({ m.ranking[1].label, m.ranking[1].rank_text, m.ranking[2].rank_text }, { "y", "1=", "1=" })
  t.eq(m.ranking[1].order_certain, nil)
  t.contains(m.ranking[1].vs_next_text, "but within the noise of those rates: this one's figure less x's ceiling, "
    .. "2.50 req/s, has a 95 % interval from -0.95 req/s to 5.95 req/s (this one's figure from 368 requests, x's "
    .. "ceiling from 330)")
  -- 60 s loads: the gap's lower end 1.638 above 0: y first, untested, as compare.lua orders them
  m = model(16)
  t.eq({ m.ranking[1].label, m.ranking[1].rank_text, m.ranking[2].rank_text }, { "y", "1", "2" })
  t.eq(m.ranking[1].order_certain, true)
end)

t.test("compare.lua on audit40's A/A pair (one server, seeds 1008 and 1009, 15 s loads) names no winner", function()
  if not t.have_numpy() then return end
  local proc, json = require "llmd.proc", require "llmd.json"
  local d = t.tmpdir()
  local function sim(name, seed)
    local r = proc.run { t.PY, t.root() .. "/tests/data/queue_sim.py", d .. "/" .. name, "--slots", "20",
      "--rates", "6,8,9,10,11,14", "--dur", "15", "--seed", tostring(seed) }
    t.eq(r.code, 0, r.stderr)
    return d .. "/" .. name
  end
  local a, b = sim("a", 1008), sim("b", 1009)
  local r = proc.run { t.root() .. "/llmdlua", t.root() .. "/lua/compare.lua", "--a", a, "--b", b, "--a-label", "A",
    "--b-label", "B", "--parent", d .. "/out", "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ws = r.stdout:match("Workspace: ([^\n]+)")
  local v = json.read(ws .. "/comparison.json").verdict
  -- main: kind "ordered", higher "a": A answered 9.758 req/s at 11 offered (kept up), B
  -- never more than 9.740; from 165 and 150 requests their intervals overlap widely
  t.eq({ v.kind, v.higher }, { "cannot say", nil })
  t.contains(v.text, "but within the noise of those rates")
end)

-- Capacity at an SLO that every load meets: each run's capacity is a lower bound at its last
-- load before saturation (x >= 20, never above its ceiling 22; y >= 24.5, ceiling 25). y's
-- bound above x's ceiling is the same order read off a ceiling as the max sustained one
-- (fixg40: an A/A pair, aa16 >= 4.82 req/s against aa15's ceiling 4.79, was "the order holds
-- whatever the bounds"), held to the same noise (decision.gap_noise).
t.test("capacity at an SLO: a bound above the other's ceiling within the noise orders nothing", function()
  local x, y = pair(1)
  local slo = decision.parse_slo("ttft_p90_ms=100")
  local m = report.build { a = sd("x", x), b = sd("y", y), slo = slo, generated = 0 }
  local ev = m.capacity.evidence
  -- the same ends as the max sustained order above (/usr/bin/python3, z = 1.959963984540054):
  -- y's 24.5 from 368 requests, lower end 24.5 (1 - z / sqrt(368)) = 21.9968304564178; x's
  -- ceiling 22 from 330, upper end 22 (1 + z / sqrt(330)) = 24.373634260724412; the gap 2.5
  -- from -0.9496372805850535 to 5.949637280585053: within the noise (main: beyond_ceiling,
  -- "untested, but y sustains more load", the verdict naming y)
  t.eq({ ev.verdict, ev.ordered, ev.beyond_ceiling, ev.within_noise, ev.order_open }, { "untested", nil, nil, "b", true })
  t.near(ev.noise.gap_lo, -0.9496372805850535, 1e-9)
  t.near(ev.noise.gap_hi, 5.949637280585053, 1e-9)
  t.eq({ ev.noise.fig_n, ev.noise.ceil_n }, { 368, 330 })
  t.eq(m.verdict.higher, nil)
  t.lacks(m.verdict.text, "whatever the bounds")
  -- the Delta and Change cells run to the noise's end (main: "+2.50 to +5.00 req/s", read as
  -- y higher): from the gap's lower end, -0.9496 req/s, -4.3165 % of x's ceiling 22 (python3
  -- -0.9496372805850535 / 22 * 100 = -4.316533093568425), to y's ceiling 25 against x's 20,
  -- +5.00 req/s, widened by the same half-width (audit47 F3: both ends carry the noise,
  -- /usr/bin/python3 numpy: 5 + hypot(24.5 - 21.99683, 24.37363 - 22) = 8.449637280585053,
  -- / 20 * 100 = +42.248 %); the max sustained row the same
  local want = { "-0.95 to +8.45 req/s (within the noise of the rates: either may be higher)", "-4.3 % to +42.2 %" }
  for _, label in ipairs { "Capacity at SLO (TTFT p90 ≤ 100.0 ms and Error rate ≤ 5 % by default)",
    "Max sustained throughput" } do
    local row = t.headline_row(m, label)
    t.eq({ row.delta_text, row.pct_text }, want)
  end
  -- 16 times the requests (60 s loads): the gap's lower end 1.6375906798537367 (above) is
  -- above 0: ordered beyond the ceiling, y higher, untested
  x, y = pair(16)
  m = report.build { a = sd("x", x), b = sd("y", y), slo = slo, generated = 0 }
  ev = m.capacity.evidence
  t.eq({ ev.ordered, ev.beyond_ceiling, ev.higher or ev.measured_higher }, { true, true, "b" })
  t.eq(m.verdict.higher, "b")
end)
