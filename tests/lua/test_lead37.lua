-- Session 37's lead fixes, each with its expectation worked out by hand beside it.
local t = require "testlib"
local rm = require "llmd.runmodel"
local stats = require "llmd.stats"

t.test("audit37 #7: the answers' pace is held to the sends' rate when latencies shrink over the run", function()
  -- 30 requests sent one a second (start k, k = 0..29), latencies shrinking from 10 s to 1 s
  -- (10 - 9k/29): finish = 10 + k (1 - 9/29), an exact line of slope 20/29 = 0.6897 on the
  -- starts. Sends over their middle 80 %: numpy's linear p10 and p90 of 0..29 are 2.9 and
  -- 26.1, so (30 - 1) x 0.8 / 23.2 = 1.0 req/s. The slope alone would put the answers at
  -- 1.0 / 0.6897 = 1.45 req/s, above the sends: held to 1.0 (every request succeeded).
  local starts, ends, oks, lats = stats.new(), stats.new(), stats.new(), stats.new()
  local add = stats.adder(starts, ends, oks, lats)
  for k = 0, 29 do
    local lat = 10 - 9 * k / 29
    add(k, k + lat, k + lat, lat)
  end
  local p = rm.pace(starts, ends, oks, lats)
  t.near(p.send_rps, 1.0, 1e-12)
  t.near(p.slope, 20 / 29, 1e-9)
  t.near(p.answer_rps, 1.0, 1e-12)
  t.near(p.success_rps, 1.0, 1e-12)
  -- a slope above 1 (latencies growing: 1 s to 10 s) still divides: 1.0 / (38/29) = 29/38
  starts, ends, oks, lats = stats.new(), stats.new(), stats.new(), stats.new()
  add = stats.adder(starts, ends, oks, lats)
  for k = 0, 29 do
    local lat = 1 + 9 * k / 29
    add(k, k + lat, k + lat, lat)
  end
  p = rm.pace(starts, ends, oks, lats)
  t.near(p.slope, 38 / 29, 1e-9)
  t.near(p.answer_rps, 29 / 38, 1e-9)
end)

t.test("metrics.na: one level of parentheses, but a formula's group keeps its grouping as [...]", function()
  local metrics = require "llmd.metrics"
  -- by hand: the drain-reduced rate's formula read "completed /, window - least latency," in
  -- every N/A cell and Verdict that quoted it (agg37, newuser37's p1)
  t.eq(metrics.na("the drain-reduced rate (completed / (window - least latency)) was short"),
    "N/A (the drain-reduced rate, completed / [window - least latency] was short)")
  t.eq(metrics.na("no e2el statistics (the run's --percentile-metrics left out e2el)"),
    "N/A (no e2el statistics, the run's --percentile-metrics left out e2el)")
  t.eq(metrics.na("a (b (c)) d"), "N/A (a, b, c d)")
  t.eq(metrics.na("x × (1 − e)"), "N/A (x × [1 − e])")
end)
