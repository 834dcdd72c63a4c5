-- Task fixc41: the intervals of the ITL (token gaps pooled over requests) count the requests,
-- not the gaps, as their independent units; NTPOT's mean has an interval of its own from the
-- per-request NTPOTs, and none (with why) without them.
-- Expected values: tests/data/fixc41_ref.py (numpy and tests/data/seqstats.py, no llmdlua
-- code), run on the same 150 requests as fixc41_requests below.
local t = require "testlib"
local rm = require "llmd.runmodel"
local lp = require "llmd.loadpoints"

-- 150 requests sent 0.5 s apart, request i with m_i = 20 + (37 i mod 61) gaps of its own pace
-- 0.02 (1 + 0.5 sin(1.3 i)) s (times 1 + 0.1 ((7 k + i) mod 5 - 2) for gap k), TTFT 0.1 s,
-- m_i + 1 output tokens: a run whose requests differ in pace far more than their gaps do
local function fixc41_set()
  local a = rm.accumulator()
  for i = 1, 150 do
    local m = 20 + (37 * i) % 61
    local pace = 0.02 * (1 + 0.5 * math.sin(1.3 * i))
    local s = 0
    for k = 1, m do
      local g = pace * (1 + 0.1 * (((7 * k + i) % 5) - 2))
      a.itl:add(g)
      s = s + g
    end
    local start, e2e = 0.5 * i, 0.1 + s
    a.add_done(start, start + e2e, e2e, 0.1, s / m, e2e / (m + 1), 100, m + 1)
  end
  local set = rm.set()
  rm.fill(set, a, "linear")
  return set
end

local function point(set)
  return { offered = 2, load_type = "rate", achieved_rps = 2, values = set.values,
    per_request = { samples = set.samples, deff = set.sample_deff } }
end

t.test("ITL intervals: the requests are the units (design effect from the requests' paces), not the gaps",
  function()
  local set = fixc41_set()
  -- fixc41_ref.py: 7530 gaps, the TPOTs' design effect 1.509472, Kish's 1.118159, the gaps' 72.986632
  t.near(set.sample_deff.itl_gaps, 72.986632, 1e-4)
  t.near(set.sample_deff.itl, 1.509472, 1e-4) -- (the ITL test's request-level one, unchanged)
  local lo, hi, info = lp.mean_ci(point(set), "itl_mean_ms")
  -- 20.070673 ms -+: 18.589910 to 21.551436 (main, the gaps counted: 19.857724 to 20.283622)
  t.near(lo, 18.589910, 1e-4)
  t.near(hi, 21.551436, 1e-4)
  t.eq(info.n, 7530)
  -- the p90's: order statistics 6341 and 7213: 29.051674 to 33.178223 ms (main: 30.394460 to 31.300359)
  lo, hi = lp.percentile_ci(point(set), "itl_p90_ms")
  t.near(lo, 29.051674, 1e-4)
  t.near(hi, 33.178223, 1e-4)
end)

t.test("ITL gaps without the requests' TPOTs: each request's gaps one unit", function()
  local a = rm.accumulator()
  -- 200 requests of 10 gaps each (1..10 ms), no TPOT recorded: 2000 gaps / 200 requests x 1
  for i = 1, 200 do
    for k = 1, 10 do a.itl:add(k / 1000) end
    a.add_done(i, i + 1, 1, 0.1, nil, 0.1, 10, 11)
  end
  t.near(rm.gap_design_effect(a, 1), 10, 1e-12)
end)

t.test("NTPOT mean: an interval from the per-request NTPOTs, none without them (with why)", function()
  local set = fixc41_set()
  t.eq(lp.mean_key("ntpot_mean_ms"), "ntpot")
  -- fixc41_ref.py: 21.811534 ms, design effect 1.498186: 20.448007 to 23.175062
  local lo, hi, info = lp.slo_ci(point(set), "ntpot_mean_ms")
  t.near(lo, 20.448007, 1e-4)
  t.near(hi, 23.175062, 1e-4)
  t.near(info.deff, 1.498186, 1e-4)
  -- a summary file's point: no interval, and why
  local p = { offered = 2, load_type = "rate", achieved_rps = 2, values = { ntpot_mean_ms = 21.8 },
    per_request = { samples = {} } }
  local l2, h2, why = lp.slo_ci(p, "ntpot_mean_ms")
  t.eq({ l2, h2 }, { nil, nil })
  t.ok(tostring(why):find("no per-request data", 1, true), tostring(why))
  -- an NTPOT SLO is weighed within that noise: a point without per-request data leaves the
  -- capacity's noise unknown, said why (main: the SLO was not weighed at all, nil)
  local pts = { { offered = 1, load_type = "rate", achieved_rps = 1, values = { ntpot_mean_ms = 10 } },
    { offered = 2, load_type = "rate", achieved_rps = 2, values = { ntpot_mean_ms = 30 } } }
  for i, q in ipairs(pts) do q.index = i end
  local r = lp.capacity_noise(pts, { { key = "ntpot_mean_ms", max = 20 } })
  t.ok(r and r.unknown and r.unknown:find("no per-request data", 1, true), r and r.unknown)
end)

t.test("capacity_rate_noise: the figure's rate noise read once, where the capacity's span starts", function()
  -- loads 4, 6, 8 req/s achieved, 200, 300 and 400 successes; TTFT p90 100, 100, 900 ms
  -- against 500: an estimate between 6 (last passing) and 8
  local function pt(r, n, v)
    return { offered = r, load_type = "rate", achieved_rps = r, values = { requests_ok = n, ttft_p90_ms = v } }
  end
  local pts = { pt(4, 200, 100), pt(6, 300, 100), pt(8, 400, 900) }
  for i, p in ipairs(pts) do p.index = i end
  local c = lp.capacity(pts, { { key = "ttft_p90_ms", max = 500 } })
  t.eq({ c.kind, c.last_passing_rps }, { "interpolated", 6 })
  -- (M.capacity no longer reads it: the span is not known yet)
  t.eq(c.rate_noise, nil)
  -- the span starts at the last passing load, 6: hand arithmetic, 6 - 1.959964 x 6 / sqrt(300)
  -- = 5.321049 (main's capacity_rate_noise gave the same, at the figure's load)
  local z = lp.capacity_rate_noise(pts, c)
  t.near(z.fig_lo, 5.321049, 1e-6)
  t.eq(z.fig_n, 300)
  -- a noise range that starts at 4.5 (between the loads 4 and 6): read at 4's interval, scaled
  -- to 4.5: 4.5 x (4 - 1.959964 x 4 / sqrt(200)) / 4 = 4.5 - 1.959964 x 4.5 / sqrt(200) = 3.876343
  -- (main: llmd.report moved it there afterwards, llmd.treatments never did)
  c.noise = { lo = 4.5, hi = 7 }
  z = lp.capacity_rate_noise(pts, c)
  t.near(z.fig_lo, 3.876343, 1e-6)
  t.eq(z.fig_n, 200)
end)

t.test("ITL with too few effective units: why counts token gaps, not requests", function()
  local acc = require("llmd.stats").new()
  for k = 1, 1000 do acc:add(k / 1000) end
  -- 1000 gaps at the gaps' design effect 25: 40 effective, fewer than 50
  local p = { values = { itl_p90_ms = 900 }, per_request = { samples = { itl = acc }, deff = { itl_gaps = 25 } } }
  local lo, hi, why = lp.percentile_ci(p, "itl_p90_ms")
  t.eq({ lo, hi }, { nil, nil })
  t.eq(why, "its 1000 token gaps carry about 40 independent ones (design effect 25)")
end)
