-- Task fixj41: the treatments' Pareto front must rest on the evidence the ranking uses.
-- 1. A treatment without a max sustained figure (saturated already at its lowest load) is
--    unknown, not dominated: it was left out, and the front named the other alone (README's
--    old queue_sim example: s24 alone beside a Verdict that names none).
-- 2. Latency at a common load where both are saturated is each overloaded server's queue
--    (which grows with the run's length): no evidence, so no domination rests on it.
-- Expected outcomes by hand from the points given, as said beside each.
local t = require "testlib"
local tr = require "llmd.treatments"

local function has(list, v)
  for _, x in ipairs(list) do if x == v then return true end end
  return false
end

t.test("1: a treatment without a max sustained figure is never left out, nor left to a front of one unsaid",
  function()
  -- x: offered 6, 8, 10 req/s, achieved 4.7, 4.8, 4.85: 4.7 < 0.95 x 6 = 5.7, saturated at
  -- its lowest load, no max sustained figure. y: achieved 6, 8, 10 (never saturated). On main
  -- (session 41) the front was { "y" } alone, x "left out"; then x was on the front, "unknown,
  -- not beaten", beside a Verdict that puts y above it by the measured loads (10 against x's
  -- ceiling 4.85, +106 %). fixj42: x is beaten on throughput by y, and no worse on TTFT p90 at
  -- the common load (10 req/s: 100 ms each, x's an overloaded server's queue), said with the
  -- Verdict's evidence. (One that no other sustains more than stays unknown, on the front:
  -- test_treatments.lua, "one saturated at every load is beaten ...".)
  local x = t.ttft_treatment("x", { { 6, 100 }, { 8, 100 }, { 10, 100 } })
  for i, got in ipairs { 4.7, 4.8, 4.85 } do x.run.stages[i].metrics.values.throughput_req_s = got end
  local y = t.ttft_treatment("y", { { 6, 100 }, { 8, 100 }, { 10, 100 } })
  local m = tr.model { x, y }
  t.eq(m.treatments[1].max_rps, nil)
  t.eq(m.front, { "y" })
  t.eq(m.pareto_unknown, {})
  t.eq({ #m.dominated, m.dominated[1].label, m.dominated[1].by }, { 1, "x", "y" })
  t.contains(m.verdict, "the measured loads put y above it")
  -- the report says the same: x listed, beaten, with the evidence, never left out
  local p = tr.write_report(t.tmpdir(), { x, y }, {})
  t.contains(p.text, "while no worse on the other: **y**.")
  t.contains(p.text, "\n- x: beaten on max sustained throughput, no worse on TTFT p90 by y: max sustained throughput "
    .. "10.000 req/s against at most 4.850 req/s (untested, but the measured loads order them")
  t.lacks(p.text, "unknown, not beaten")
  t.ok(has(m.front, "y"))
end)

t.test("2: both saturated at the common load: no domination on their latencies there, said why", function()
  -- a: offered 2, 4, 6, 8 req/s, achieved 2, 3, 3.1, 3.2: 3 < 0.95 x 4 = 3.8, saturated at 4,
  -- max sustained 2 (ceiling 3.2). b: offered 6, 8, achieved 6, 7: 7 < 0.95 x 8 = 7.6,
  -- saturated at 8, max sustained 6. Their sustained loads (2; 6) share none within both
  -- ranges (a's 2 is below b's lowest, 6), so the common load is the highest both reached,
  -- 8 req/s, where both are saturated. By the figures b beats a on both (6 > a's ceiling
  -- 3.2; TTFT p90 900 against 9,000 ms, each exact: 1000 equal samples), and on main a was
  -- "beaten on both by b". Both latencies there are overloads' queues: not comparable, so b
  -- is not known to be no worse on latency and a is not beaten: on the front with b.
  local a = t.ttft_treatment("a", { { 2, 100 }, { 4, 2000 }, { 6, 5000 }, { 8, 9000 } })
  for i, got in ipairs { 2, 3, 3.1, 3.2 } do a.run.stages[i].metrics.values.throughput_req_s = got end
  local b = t.ttft_treatment("b", { { 6, 100 }, { 8, 900 } })
  b.run.stages[2].metrics.values.throughput_req_s = 7
  local m = tr.model { a, b }
  t.eq(m.common_load, 8)
  t.eq(#m.saturated_at_common, 2)
  t.eq(m.pareto_latency, "TTFT p90")
  t.eq(#m.dominated, 0)
  t.ok(has(m.front, "a") and has(m.front, "b"), table.concat(m.front, ", "))
  t.eq(#m.pareto_not_compared, 1)
  local d = m.pareto_not_compared[1]
  t.eq({ d.label, d.other, d.saturated }, { "a", "b", true })
  t.contains(d.why, "both are saturated at the common load")
  t.contains(d.why, "TTFT p90 900.0 ms against 9,000.0 ms")
  t.lacks(m.verdict, "beaten")
end)
