-- A one-run load point's percentile interval near capacity: called 95 %, it covers far less
-- there (tests/sim/capa39_deff.py --coverage; README "Near capacity an interval called 95 %
-- covers far less"). Such points are marked where they are used: each one-run point's
-- interval_coverage ("nominal" below 0.6 of its run's ceiling, "narrow_near_capacity" at or
-- above it), the capacity cell's caveat where the span rests on them, and a capacity order
-- that rests only on them says so in the Verdict and comparison.json.
local t = require "testlib"
local json = require "llmd.json"
local report = require "llmd.report"
local decision = require "llmd.decision"
local lp = require "llmd.loadpoints"

-- one stage a load at rates 10, 20, 30, 40 req/s (achieved = offered), TTFT p90 as given,
-- 1000 independent requests each at that value (t.with_samples: every interval is the value)
local function run(p90s)
  local stages = {}
  for i, v in ipairs(p90s) do
    local r = 10 * i
    stages[i] = { rate = r, values = { throughput_req_s = r, ttft_p90_ms = v, throughput_tok_s = 10 * r,
      error_rate_pct = 0 } }
  end
  return t.with_samples(t.run_of(stages))
end

local function model(ra, rb)
  local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
  return report.build { a = sd("x", ra), b = sd("y", rb), slo = decision.parse_slo("ttft_p90_ms=500"), generated = 0 }
end

local CAP = "Capacity at SLO (TTFT p90 ≤ 500.0 ms and Error rate ≤ 5 % by default)"

t.test("interval_coverage: a one-run point at or above 0.6 of its run's ceiling is narrow_near_capacity", function()
  -- ceiling 10 req/s (the most achieved): 0.6 x 10 = 6 (by hand), so 5.9 is nominal and 6.0
  -- and 10 are narrow; a repeated point (its repeats' spread is its interval) and one without
  -- per-request data (no interval) get none
  local pr = {}
  local pts = { { achieved_rps = 2, per_request = pr }, { achieved_rps = 5.9, per_request = pr },
    { achieved_rps = 6.0, per_request = pr }, { achieved_rps = 8, repeats = 3, per_request = pr },
    { achieved_rps = 9 }, { achieved_rps = 10, per_request = pr } }
  local c = lp.interval_coverage(pts)
  t.eq({ c[1], c[2], c[3], c[4], c[5], c[6] }, { "nominal", "nominal", "narrow_near_capacity", nil, nil,
    "narrow_near_capacity" })
  -- an unknown achieved rate: unknown, no mark
  t.eq(lp.interval_coverage { { per_request = pr }, { achieved_rps = 4, per_request = pr } },
    { [2] = "narrow_near_capacity" })
end)

t.test("an order resting only on near-capacity one-run intervals says so; it stands", function()
  -- x meets 500 ms up to 30 req/s and fails at 40; y fails already at 30. Both ceilings are 40,
  -- so 0.6 x 40 = 24 (by hand): 10 and 20 req/s are nominal, 30 and 40 narrow. The order
  -- (x met the SLOs at 30 req/s, y already failed them at 30, the same load) rests on x's pass
  -- at 30 and y's fail at 30, both narrow: with those intervals unknown, x is known to meet
  -- it only up to 20 and y is known to fail it nowhere (30 and 40 open), so nothing orders
  -- them. On main: no interval_coverage anywhere, and the Verdict read as a plain order.
  local m = model(run { 100, 100, 100, 2000 }, run { 100, 100, 2000, 2000 })
  local js = json.decode(json.encode(report.plain(m)))
  t.eq(js.verdict.higher, "a")
  t.eq(js.verdict.interval_coverage, "narrow_near_capacity")
  t.eq(js.capacity.evidence.interval_coverage, "narrow_near_capacity")
  t.eq(js.capacity.evidence.narrow_loads, {
    { run = "a", point = 3, offered = 30, load_type = "rate", achieved_rps = 30 },
    { run = "b", point = 3, offered = 30, load_type = "rate", achieved_rps = 30 } })
  local cov = {}
  for i, e in ipairs(js.capacity.a.noise.coverage) do cov[i] = e.point .. " " .. e.interval_coverage end
  t.eq(cov, { "1 nominal", "2 nominal", "3 narrow_near_capacity", "4 narrow_near_capacity" })
  t.ok(js.verdict.text:find("Untested (one run per load), but the measured loads order them.", 1, true),
    js.verdict.text)
  t.ok(js.verdict.text:find(" It rests on loads measured once near capacity (x at 30 req/s offered, y at 30 req/s "
    .. "offered: at or above 60 % of its run's ceiling), whose 95 % intervals may be narrow", 1, true), js.verdict.text)
  t.ok(js.verdict.text:find("repeats of those loads settle it.", 1, true), js.verdict.text)
  -- each cell whose span rests on them says so
  local row = t.headline_row(m, CAP)
  t.ok(row.a_text:find("interval may be narrow near capacity: repeats settle it", 1, true), row.a_text)
  t.ok(row.b_text:find("interval may be narrow near capacity: repeats settle it", 1, true), row.b_text)
end)

t.test("an order a nominal pass and fail decide stays nominal; a cell resting on narrow points still says so", function()
  -- x meets 500 ms at every load (a lower bound, >= 40); y fails from 20 req/s on. y's ceiling
  -- 40: 0.6 x 40 = 24, so y's fail at 20 is nominal, and x's pass at 20 too (its ceiling 40):
  -- the order holds with the narrow points' intervals unknown, so interval_coverage is
  -- "nominal" and the Verdict adds nothing. x's bound (>= 40) rests on its passes at 30 and 40,
  -- both narrow: its cell says so. y's span (10 to 20) rests on its pass at 10 and its fail at
  -- 20, both nominal (its narrow fails at 30 and 40 lie above a nominal fail): no caveat.
  local m = model(run { 100, 100, 100, 100 }, run { 100, 2000, 2000, 2000 })
  local js = json.decode(json.encode(report.plain(m)))
  t.eq(js.verdict.higher, "a")
  t.eq(js.verdict.interval_coverage, "nominal")
  t.eq(js.capacity.evidence.interval_coverage, "nominal")
  t.eq(js.capacity.evidence.narrow_loads, nil)
  t.ok(not js.verdict.text:find("near capacity", 1, true), js.verdict.text)
  t.eq(js.capacity.a.noise.narrow, true)
  t.eq(js.capacity.b.noise.narrow, false)
  local row = t.headline_row(m, CAP)
  t.ok(row.a_text:find("interval may be narrow near capacity: repeats settle it", 1, true), row.a_text)
  t.ok(not row.b_text:find("narrow", 1, true), row.b_text)
end)

t.test("repeats at every load: no interval_coverage (the repeats' spread is the interval)", function()
  local pts = { { achieved_rps = 10, repeats = 3, per_request = {} }, { achieved_rps = 20, repeats = 3 } }
  t.eq(lp.interval_coverage(pts), {})
end)
