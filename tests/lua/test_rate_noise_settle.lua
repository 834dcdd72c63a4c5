-- A Verdict of "cannot say" because the two rates' noise is too wide (short loads) says what
-- would settle it, as the latency rows do, and how long: loads k = (half-width / gap)^2 times
-- as long (a rate's 95 % interval is its count's, Poisson, so it narrows as the square root of
-- the requests), or as many repeats (task fixb41 #5). Main said only "more requests at each
-- load (longer loads) or repeats would tell", in the reason.
-- The runs: test_sustained_order.lua's pair (x max sustained 20, ceiling 22 from 330
-- requests; y 24.5 from 368, ceiling 25). /usr/bin/python3, z = 1.959963984540054:
--   h = hypot(24.5 z / sqrt(368), 22 z / sqrt(330)) = 3.4496372805850535, gap 2.5,
--   k = (h / 2.5)^2 = 1.9039995788163588, ceil(k 368) = 701, ceil(k 330) = 629,
--   k 368 / 24.5 = 28.6 s, 368 / 24.5 = 15.0 s.
local t = require "testlib"
local report = require "llmd.report"
local decision = require "llmd.decision"

local function pair(k)
  local function stages(offered, achieved, counts)
    local s = {}
    for i, r in ipairs(achieved) do
      s[i] = { rate = offered[i], values = { throughput_req_s = r, ttft_p90_ms = 50, error_rate_pct = 0,
        requests_ok = counts[i] * k } }
    end
    return t.run_of(s)
  end
  return stages({ 10, 20, 30 }, { 10, 20, 22 }, { 150, 300, 330 }), stages({ 10, 20, 25, 30 }, { 10, 20, 24.5, 25 },
    { 150, 300, 368, 375 })
end
local function sd(label, r) return { label = label, state = { label = label, stack = {} }, run = r, kv = {} } end

local SETTLE = "To settle it: loads about 1.9 times as long: about 701 and 629 requests at those loads, not 368 and "
  .. "330 (about 29 s at 24.50 req/s, not 15 s), or as many repeats of them, would put a gap of 2.50 req/s beyond "
  .. "the noise, if it holds."

t.test("no SLO: the max sustained order within the rates' noise says how long the loads would have to be", function()
  local x, y = pair(1)
  local m = report.build { a = sd("x", x), b = sd("y", y), slo = {}, generated = 0 }
  t.eq(m.verdict.kind, "cannot say")
  t.eq(m.verdict.settle, SETTLE)
  t.contains(m.verdict.text, "; more requests at each load (longer loads) or repeats would tell. " .. SETTLE)
  -- 16 times the requests: ordered, nothing to settle
  x, y = pair(16)
  m = report.build { a = sd("x", x), b = sd("y", y), slo = {}, generated = 0 }
  t.eq({ m.verdict.kind, m.verdict.settle }, { "ordered", nil })
end)

t.test("capacity at an SLO: a bound above the other's ceiling within the noise says the same", function()
  local x, y = pair(1)
  local m = report.build { a = sd("x", x), b = sd("y", y), slo = decision.parse_slo("ttft_p90_ms=100"),
    generated = 0 }
  t.eq(m.verdict.kind, "cannot say")
  t.contains(m.verdict.settle or "", SETTLE:sub(#"To settle it: " + 1))
  t.contains(m.verdict.text, SETTLE:sub(#"To settle it: " + 1))
end)

t.test("a gap so small against the noise that longer loads are no practical way says so", function()
  -- gap 0.01 req/s with half-width 3.45: k = (3.45 / 0.01)^2 = 119,000, over 100 times
  local s = decision.noise_settle_text({ gap = 0.01, gap_lo = 0.01 - 3.45, fig_n = 368, ceil_n = 330, fig_rps = 24.5 },
    function(v) return ("%.2f req/s"):format(v) end)
  t.eq(s, "the gap, 0.01 req/s, is so small against the noise of those rates that only loads over 100 times as long "
    .. "(or as many repeats) could put it beyond that noise")
end)
