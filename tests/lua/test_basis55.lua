-- Task basis55: texts that misstate the evidence behind a capacity order.
local t = require "testlib"
local report = require "llmd.report"
local lp = require "llmd.loadpoints"

-- a run offered each rate `reps[i]` times (stages within 1 % of each other are repeats of one
-- load point), TTFT p90 50 ms everywhere
local function run_reps(rates, reps)
  local stages = {}
  for i, r in ipairs(rates) do
    for _ = 1, reps[i] do
      stages[#stages + 1] = { rate = r, values = { throughput_req_s = r, ttft_p90_ms = 50, error_rate_pct = 0 } }
    end
  end
  return t.with_samples(t.run_of(stages))
end

-- 1. truth55: B had 2 repeats at every load, both capacities had ranges from repeats (no
--    interval_why on either), yet the Summary's basis read "one run per load for B".
t.test("1: ranges from repeats on both sides say the repeats per load, never 'one run per load'", function()
  local A = { label = "A", run = run_reps({ 4, 8, 12 }, { 2, 2, 2 }) }
  local B = { label = "B", run = run_reps({ 4, 8, 12 }, { 2, 3, 2 }) }
  -- (the repeats as counted by hand from the stages above: A 2 at each, B 2, 3, 2)
  local na, nb = {}, {}
  for i, p in ipairs(lp.points(A.run)) do na[i] = p.repeats end
  for i, p in ipairs(lp.points(B.run)) do nb[i] = p.repeats end
  t.eq({ na, nb }, { { 2, 2, 2 }, { 2, 3, 2 } })
  local ca, cb = { kind = "interpolated", interval = { lo = 1, hi = 2 } }, { kind = "interpolated", interval = { lo = 1, hi = 2 } }
  local txt = report.no_test_text(A, B, ca, cb)
  t.lacks(txt, "one run per load")
  t.eq(txt, "repeats at every load point (2 per load for A, 2-3 per load for B): no test")
  -- one side without repeats keeps its reason
  cb = { kind = "interpolated", interval_why = "one run per load" }
  t.eq(report.no_test_text(A, B, ca, cb), "one run per load for B: no test")
end)

-- 2. newuser55: two treatments holding the same results that never violated the SLO read
--    "... ≥ 158.938 req/s, ... ≥ 158.938 req/s: not comparable"; the README keeps "not comparable"
--    for unlike workloads or loads. Two lower bounds at the highest load cannot be ordered.
t.test("2: two never-violated capacities (an A/A pair) are 'cannot say ... measure higher loads', not 'not comparable'", function()
  local tr = require "llmd.treatments"
  local decision = require "llmd.decision"
  -- both meet TTFT p90 <= 500 ms at every load (100 ms), the highest achieved 158.938 req/s:
  -- by hand, both capacities are "≥ 158.938", the highest load measured, 158.94 in 2 decimals
  local pts = { { 50, 100 }, { 100, 100 }, { 158.938, 100 } }
  local a, b = t.ttft_treatment("rr", pts), t.ttft_treatment("precise", pts)
  -- (the pair M.identical_treatments finds in byte-identical files, given here as it records it)
  local list = { a, b, identical_pairs = { { a = "rr", b = "precise" } } }
  local m = tr.model(list, { slo = decision.parse_slo("ttft_p90_ms=500") })
  t.lacks(m.verdict_line, "not comparable")
  t.contains(m.verdict_line, "cannot say: both met the SLO at every load measured, up to 158.94 req/s; measure "
    .. "higher loads")
end)
