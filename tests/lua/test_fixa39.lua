-- Task fixa39: the capacity's Delta, Change, cells and evidence agree with the evidence
-- (session 38's leftovers). The gap cut at 0 beside "either may be higher" and
-- comparison.json's evidence.higher where the order is open are in test_tpsfix and
-- test_decision; here the shape of noise.unclear[] in comparison.json, the cells of a
-- capacity whose span the noise widens, and the wording of an order below the threshold.
local t = require "testlib"
local json = require "llmd.json"
local report = require "llmd.report"
local decision = require "llmd.decision"
local stats = require "llmd.stats"

local function run(points)
  local stages = {}
  for i, p in ipairs(points) do
    stages[i] = { rate = p.rate, values = { throughput_req_s = p.rate, ttft_p90_ms = p.p90,
      throughput_tok_s = 10 * p.rate, error_rate_pct = 0 } }
  end
  local r = t.run_of(stages)
  for i, p in ipairs(points) do
    local acc = stats.new()
    for _, v in ipairs(p.samples) do acc:add(v / 1000) end
    r.stages[i].metrics.samples, r.stages[i].metrics.sample_deff = { ttft = acc }, { ttft = 1 }
  end
  return r
end

local function same(ms, n)
  local xs = {}
  for k = 1, n or 1000 do xs[k] = ms end
  return xs
end

local function model(ra, rb, slo)
  local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
  return report.build { a = sd("x", ra), b = sd("y", rb), slo = decision.parse_slo(slo), generated = 0 }
end

t.test("noise.unclear[] has one shape in comparison.json: reason, n, deff, effective_n", function()
  -- x's point 2: 1000 TTFTs of 1, 2, ..., 1000 ms, p90 900.1 ms; its 95 % interval 881.5 to
  -- 918.7 ms (test_capa38, numpy) straddles the SLO of 900 ms: unclear, with n = 1000 and
  -- deff 1 (every sample independent), 1000 effective. Point 3: 40 requests, fewer than 50
  -- effective (loadpoints.SLO_CI_MIN_EFFECTIVE): unknown, n = 40, deff 1. On main the first
  -- came out as why = {n = 1000, deff = 1} (a table where the other was a string)
  local ramp = {}
  for k = 1, 1000 do ramp[k] = k end
  local x = run { { rate = 10, p90 = 100, samples = same(100) }, { rate = 20, p90 = 900.1, samples = ramp },
    { rate = 30, p90 = 950, samples = same(950, 40) }, { rate = 40, p90 = 2000, samples = same(2000) } }
  local y = run { { rate = 10, p90 = 100, samples = same(100) }, { rate = 20, p90 = 100, samples = same(100) },
    { rate = 30, p90 = 2000, samples = same(2000) } }
  local m = model(x, y, "ttft_p90_ms=900")
  local js = json.decode(json.encode(report.plain(m)))
  local u = js.capacity.a.noise.unclear
  t.eq(#u, 2, json.encode(u))
  t.eq({ u[1].point, u[1].key, u[1].reason, u[1].n, u[1].deff, u[1].effective_n, u[1].why },
    { 2, "ttft_p90_ms", "its interval straddles the SLO", 1000, 1, 1000, nil })
  t.eq({ u[2].point, u[2].reason, u[2].n, u[2].deff, u[2].effective_n, u[2].why },
    { 3, "its 40 requests carry about 40 independent ones (design effect 1)", 40, 1, 40, nil })
  -- y has none: an empty list, [] (never {}, which a reader takes for an object)
  t.ok(json.encode(report.plain(m)):find('"unclear":[]', 1, true), "empty unclear as []")
  -- the consumer reads either producer shape (why as text, or the interval's {n, deff})
  t.eq(report.unclear_of { { point = 1, key = "k", why = { n = 200, deff = 4 } }, { point = 2, key = "k",
    why = "no per-request data to tell its uncertainty (a summary file)" } },
    { { point = 1, key = "k", reason = "its interval straddles the SLO", n = 200, deff = 4, effective_n = 50 },
      { point = 2, key = "k", reason = "no per-request data to tell its uncertainty (a summary file)" } })
end)
