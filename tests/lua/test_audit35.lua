-- Session 35 audit (audit35): numbers and words of sessions 33-34 recomputed from the files
-- with python3 (numpy-free, my own code in the audit's /tmp/au35-fx) or by hand, as written
-- beside each expected value.
local t = require "testlib"
local lp = require "llmd.loadpoints"
local decision = require "llmd.decision"
local report = require "llmd.report"

-- offered 10..50 req/s; TTFT p90 50, 80, 150, 170, 190 ms (all within 200 ms); point 3
-- failed 6 % of its 1000 requests (achieved 30 x 0.94 = 28.2 req/s: answered 30, kept up),
-- point 5 achieved 40 of 50 (80 %: saturated). Every point 1000 requests.
local function failures_then_saturated()
  local achieved = { 10, 20, 28.2, 40, 40 }
  local errors = { 0, 0, 6, 0, 0 }
  local ttft = { 50, 80, 150, 170, 190 }
  local stages = {}
  for i = 1, 5 do
    stages[i] = { rate = 10 * i, values = { throughput_req_s = achieved[i], ttft_p90_ms = ttft[i],
      throughput_tok_s = 100 * achieved[i], error_rate_pct = errors[i],
      requests_ok = math.floor(1000 * (1 - errors[i] / 100) + 0.5), requests_failed = 10 * errors[i] } }
  end
  return t.run_of(stages)
end

t.test("capacity's reason calls its figure the max sustained throughput only when it is that figure", function()
  local slo = decision.parse_slo("ttft_p90_ms=200", "--slo")
  local points = lp.points(failures_then_saturated())
  local sat = lp.saturation(points, { slo = slo })
  -- by hand: point 3 failed 6 % > 5 % (no error-rate SLO) at a load it kept up with (28.2 /
  -- 0.94 = 30 answered): a failures point, so the max sustained throughput is point 2's 20 req/s;
  -- point 5 (40 of 50, 80 %) saturated
  t.eq({ sat.point, sat.max_sustained_rps }, { 5, 20 })
  local c = lp.capacity(points, slo, sat)
  -- every TTFT p90 <= 200 ms before saturation: the capacity is at least point 4's 40 req/s,
  -- the documented exception (above the max sustained throughput, no error-rate SLO)
  t.eq({ c.kind, c.rps }, { "saturated", 40 })
  -- it read "The capacity is at least 40 req/s, the max sustained throughput" beside a max
  -- sustained throughput of 20 req/s
  t.ok(not c.reason:find("40 req/s, the max sustained throughput", 1, true), c.reason)
  t.ok(c.reason:find("The capacity is at least 40 req/s, the highest achieved rate before saturation (above the "
    .. "max sustained throughput, 20 req/s, which failed requests at load point 3 cut)", 1, true), c.reason)
  -- without the failures the two are one figure, said as before
  local run = failures_then_saturated()
  run.stages[3].metrics.values.throughput_req_s = 30
  run.stages[3].metrics.values.error_rate_pct = 0
  run.stages[3].metrics.values.requests_ok, run.stages[3].metrics.values.requests_failed = 1000, 0
  points = lp.points(run)
  c = lp.capacity(points, slo)
  t.ok(c.reason:find("The capacity is at least 40 req/s, the max sustained throughput; measure", 1, true), c.reason)
end)

t.test("capacity N/A for an SLO metric unknown at one load point says where, not 'not in this run's files'", function()
  -- lp.capacity of TTFT p90 unknown at the lowest load only (as compare.lua on the kubecon
  -- baseline with stage_0's time_to_first_token.p90 null gives it): missing = {every = false}
  local stages = {}
  for i = 1, 4 do
    stages[i] = { rate = 10 * i, values = { throughput_req_s = 10 * i, ttft_p90_ms = i > 1 and 50 * i or nil,
      throughput_tok_s = 100 * i, error_rate_pct = 0 } }
  end
  local c = lp.capacity(lp.points(t.run_of(stages)), decision.parse_slo("ttft_p90_ms=200", "--slo"))
  t.eq({ c.kind, c.missing[1].every, c.missing[1].points }, { "unknown", false, { 1 } })
  local text = report.capacity_text(c)
  t.ok(not text:find("not in this run's files", 1, true), text)
  t.eq(text, "N/A (TTFT p90 unknown at load point 1, see the Summary)")
  -- unknown at every load point: the files lack it, as before
  for i = 1, 4 do stages[i].values.ttft_p90_ms = nil end
  c = lp.capacity(lp.points(t.run_of(stages)), decision.parse_slo("ttft_p90_ms=200", "--slo"))
  t.eq(report.capacity_text(c), "N/A (TTFT p90 not in this run's files, see the Summary)")
end)
