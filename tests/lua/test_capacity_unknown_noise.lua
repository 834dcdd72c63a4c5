-- Capacities read off summary files (one percentile per load, no per-request data: its noise
-- unknown) order two runs only where no small latency difference could swap the pass and the
-- fail that decide it (task fixn50, audit50 F3): decision.unknown_noise_orders, the band
-- lp.capacity_noise gives such a capacity (lp.UNKNOWN_NOISE_BAND).
local t = require "testlib"
local lp = require "llmd.loadpoints"
local decision = require "llmd.decision"
local report = require "llmd.report"

-- rows: {offered req/s, achieved req/s, TTFT p90 ms}; summary figures only (no per-request data)
local function run(rows)
  local stages = {}
  for i, r in ipairs(rows) do
    stages[i] = { rate = r[1], values = { throughput_req_s = r[2], ttft_p90_ms = r[3], throughput_tok_s = r[2] * 100,
      error_rate_pct = 0 } }
  end
  return t.run_of(stages)
end

local function model(slo, ra, rb)
  local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
  return report.build { a = sd("x", ra), b = sd("y", rb), slo = decision.parse_slo(slo), generated = 0 }
end

-- The advice where the order is open on both runs' unknown noise (x and y summary files), written
-- out here, not read from llmd.report
local UNKNOWN_SETTLE = "To settle it: per-request data for x and y (each request's latencies, not only the files' "
  .. "percentiles: vllm bench serve with --save-detailed, guidellm's report with its requests, inference-perf's "
  .. "per-request file), or repeats of each load, to tell how far the percentiles that decide the order vary; more "
  .. "loads would not settle it, as each one's pass or fail would rest on one percentile of unknown noise too."

t.test("an A/A pair of summary files whose latency is flat near the SLO names no winner (audit50 F3)", function()
  -- ra211 and ra212 of /tmp/audit50-f3 (queue_sim.py, one server, seeds 211 and 212): each
  -- file's request_throughput and p90_ttft_ms, read with python3's json module (offered here as
  -- achieved, so that no load reads as saturated: a Poisson send's shortfall aside)
  local x = run { { 0.9182, 0.9182, 212.9 }, { 2.1997, 2.1997, 202.8 }, { 2.873, 2.873, 201.7 },
    { 4.1222, 4.1222, 202.1 } }
  local y = run { { 1.0981, 1.0981, 193.0 }, { 1.82, 1.82, 197.0 }, { 2.6557, 2.6557, 199.5 },
    { 3.8571, 3.8571, 201.9 } }
  local m = model("ttft_p90_ms=200", x, y)
  local ca, cb, ev = m.capacity.a, m.capacity.b, m.capacity.evidence
  t.eq({ ca.kind, cb.kind }, { "below_lowest", "interpolated" })
  t.ok(ca.noise_unknown and cb.noise_unknown, "summary files")
  -- the measured loads put y above (it met 200 ms up to 2.66 req/s, x failed it at 0.92: the
  -- old 25 % rule named y "+192.7 %"), but x's 212.9 / 1.1 = 193.5 ms and y's 193.0 x 1.1 =
  -- 212.3 ms (by hand) swap that: x's band reaches up with no end, y's from 0
  t.eq({ ev.verdict, ev.higher, ev.winner, ev.ordered, ev.measured_higher, ev.order_open },
    { "untested", nil, nil, nil, "b", true })
  t.eq(ca.noise_band.lo, 0)
  t.eq(ca.noise_band.hi, nil) -- (no upper end)
  t.eq(cb.noise_band.lo, 0)
  t.ok(not decision.unknown_noise_orders(ca, cb, "b", false, 192.7), "no order whatever the gap")
  t.ok(m.headline[1].delta_text:find("either may be higher", 1, true), m.headline[1].delta_text)
  t.ok(m.verdict.text:find("^Cannot say which sustains more load"), m.verdict.text)
  t.ok(m.headline[1].evidence:find("too near the limit", 1, true), m.headline[1].evidence)
  -- (fixs50) what settles it is what tells that noise: per-request data for both (both are
  -- summary files) or repeats, said once for the two, in the Verdict's text too
  t.eq(m.verdict.settle, UNKNOWN_SETTLE)
  t.ok(m.verdict.text:sub(-#UNKNOWN_SETTLE) == UNKNOWN_SETTLE, m.verdict.text)
end)

t.test("summary files: a bound whose order the unknown noise leaves open is settled by that noise, not more loads",
  function()
  -- (fixs50; br117/br118 of /tmp/audit50-f3 at 113 ms: "measure loads where that capacity lies
  -- ... br117 between ...", where the cause is the files' unknown noise) x met 200 ms at every
  -- load (never violated: at least 4 req/s), y failed it at its lowest, 1 req/s: measured, x
  -- above; but x's 198 x 1.1 = 217.8 ms and y's 205 / 1.1 = 186.4 ms (by hand) swap the pass
  -- and the fail, so no order, and loads above x's 4 req/s would rest on one percentile each
  -- too: the advice is per-request data or repeats, never "measure loads above"
  local x = run { { 1, 1, 195 }, { 2, 2, 196 }, { 3, 3, 197 }, { 4, 4, 198 } }
  local y = run { { 1, 1, 205 }, { 2, 2, 206 }, { 3, 3, 207 }, { 4, 4, 208 } }
  local m = model("ttft_p90_ms=200", x, y)
  local ca, cb, ev = m.capacity.a, m.capacity.b, m.capacity.evidence
  t.eq({ ca.kind, cb.kind }, { "never_violated", "below_lowest" })
  t.eq({ ev.verdict, ev.higher, ev.measured_higher, ev.order_open }, { "untested", nil, "a", true })
  t.ok(ev.noise_unknown, "open on the unknown noise")
  t.eq(m.verdict.settle, UNKNOWN_SETTLE)
  t.ok(not m.verdict.text:find("measure loads", 1, true), m.verdict.text)
end)

t.test("summary files: a fail far beyond the limit below a pass far within it still orders them", function()
  -- x: 300 ms at 30 req/s, 300 / 1.1 = 272.7 > 200 (by hand): a fail whatever 10 %; y: 150 ms at
  -- 40 req/s, 150 x 1.1 = 165 <= 200: a pass whatever 10 %. y's 40 against x's 30 is 40 / 30 - 1
  -- = +33.3 % (beyond decision.UNKNOWN_NOISE_GAP, 25 %): y higher
  local x = run { { 10, 10, 100 }, { 20, 20, 120 }, { 30, 30, 300 }, { 40, 40, 900 } }
  local y = run { { 10, 10, 100 }, { 20, 20, 110 }, { 30, 30, 130 }, { 40, 40, 150 } }
  local m = model("ttft_p90_ms=200", x, y)
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.higher, ev.ordered }, { "untested", "b", true })
  t.near(m.capacity.a.noise_band.lo, 20, 0)
  t.near(m.capacity.a.noise_band.hi, 30, 0)
  t.near(m.capacity.b.noise_band.lo, 40, 0)
  -- the same loads with y's pass at 40 req/s 2.5 % within the limit (195 ms: x 1.1 = 214.5,
  -- beyond): its band starts at its 30 req/s, where x failed: no order (the old rule: 28.6 %, y
  -- higher)
  y = run { { 10, 10, 100 }, { 20, 20, 110 }, { 30, 30, 130 }, { 40, 40, 195 } }
  m = model("ttft_p90_ms=200", x, y)
  ev = m.capacity.evidence
  t.eq({ ev.higher, ev.winner, ev.ordered, ev.measured_higher }, { nil, nil, nil, "b" })
  t.near(m.capacity.b.noise_band.lo, 30, 0)
  -- the band's width is the rule's: 10 %
  t.eq(lp.UNKNOWN_NOISE_BAND, 10)
end)

-- (tidy55) Why the order is open names the loads and which of decision.unknown_noise_orders'
-- two conditions failed, per GPU too: it said only "too close, or too near the limit" (the
-- Evidence), nothing (compare.lua's per-GPU Verdict) or "too close to order them"
-- (treatments.lua per GPU), naming no load. x: fails 200 ms at 30 req/s (300 ms), passes at
-- 20 (120 ms); y: passes at 30 (130 ms) and at 40 (195 ms, 2.5 % within the limit). By hand:
-- y's 40 against x's 30 is 40 / 30 - 1 = +33.3 %, beyond the 25 %; with each
-- figure 10 % off, x's 120 x 1.1 = 132 passes and 300 / 1.1 = 272.7 fails whatever the noise
-- (x between 20 and 30), y's 130 x 1.1 = 143 passes, 195 x 1.1 = 214.5 may fail (y from 30 up,
-- no upper end: it never failed): y's span meets x's at 30, so no order.
local X_NEAR = { { 10, 10, 100 }, { 20, 20, 120 }, { 30, 30, 300 }, { 40, 40, 900 } }
local Y_NEAR = { { 10, 10, 100 }, { 20, 20, 110 }, { 30, 30, 130 }, { 40, 40, 195 } }
local NEAR_WHY = "and the measured loads put y's capacity at 40.00 req/s per GPU or more and x's at 30.00 req/s per GPU "
  .. "or less, the one 33.3 % above the other, but the figures that decide it lie too near the limit: with each summary "
  .. "figure 10 % off either way, x's capacity may lie between 20.00 req/s per GPU and 30.00 req/s per GPU and y's at "
  .. "30.00 req/s per GPU or more, which do not keep y above"

local function doubled(rows)
  local out = {}
  for i, r in ipairs(rows) do out[i] = { r[1] * 2, r[2] * 2, r[3] } end
  return out
end

t.test("tidy55: which condition leaves the order open, and at which loads", function()
  local m = model("ttft_p90_ms=200", run(X_NEAR), run(Y_NEAR))
  local w = m.capacity.evidence.noise_unknown_why
  t.eq(w.cond, "near_limit")
  -- (truth56: the Change column's scale, 100 (40 / 30 - 1) = 33.33 % by python, not 28.57 % of their mean)
  t.near(w.margin_pct, 33.33333333333333, 1e-9)
  t.eq({ w.a.lo, w.a.hi, w.b.lo, w.b.hi }, { 20, 30, 30, nil })
  -- the same loads with y failing at 40 (400 ms) and passing at 30: y's 30 against x's 30, 0 %
  -- apart (by hand), under the 25 %: too close, whatever the figures
  m = model("ttft_p90_ms=200", run { { 10, 10, 100 }, { 20, 20, 120 }, { 30, 30, 150 }, { 40, 40, 400 } },
    run { { 10, 10, 100 }, { 20, 20, 110 }, { 30, 30, 130 }, { 40, 40, 150 }, { 45, 45, 400 } })
  w = m.capacity.evidence.noise_unknown_why
  t.eq({ w.cond, w.margin_pct }, { "close", 0 })
  t.ok(m.verdict.text:find("and the loads that decide it lie too close: the measured loads put y's capacity at "
    .. "40.00 req/s or more and x's at 40.00 req/s or less, the one 0.0 % above the other, and a pass and a fail that "
    .. "each rest on one percentile of unknown noise order two runs only from 25.0 % apart.", 1, true), m.verdict.text)
end)

t.test("tidy55: the per-GPU Verdict and treatments.lua per GPU name the loads that leave the order open", function()
  -- y on 2 GPUs at twice x's loads: per GPU the pair above
  local function sd(label, r, g) return { label = label, state = { label = label, stack = { gpus = g } }, run = r,
    kv = {} } end
  local m = report.build { a = sd("x", run(X_NEAR), 1), b = sd("y", run(doubled(Y_NEAR)), 2),
    slo = decision.parse_slo("ttft_p90_ms=200"), generated = 0 }
  t.ok(m.verdict.text:find("^Cannot say which sustains more load per GPU"), m.verdict.text)
  t.ok(m.verdict.text:find("either may be higher: each load's pass or fail rests on one measured percentile whose "
    .. "noise these files cannot tell (no per-request data), " .. NEAR_WHY .. ". To settle it", 1, true),
    m.verdict.text)
  local tr = require "llmd.treatments"
  local list = tr.load({ { label = "x", dirs = { "/x" }, gpus = 1 }, { label = "y", dirs = { "/y" }, gpus = 2 } },
    { cache = { ["/x"] = run(X_NEAR), ["/y"] = run(doubled(Y_NEAR)) } })
  local v = tr.model(list, { slo = decision.parse_slo("ttft_p90_ms=200") }).verdict
  -- (treatments.lua writes its rates with compare.lua's 2 decimals since ties56)
  t.ok(v:find("y and x per GPU: untested, and either may be higher: y ≥ 40.00 req/s per GPU, x between 20.00 req/s "
    .. "and 30.00 req/s per GPU, but each pass or fail rests on one measured percentile whose noise these files "
    .. "cannot tell (no per-request data), " .. NEAR_WHY .. " (", 1, true), v)
end)

t.test("tidy55: treatments.lua on totals never says spans apart 'overlap' where the unknown noise leaves it open",
  function()
  -- the pair above on one GPU each: y's span from 40 req/s up and x's 20 to 30 lie apart, so
  -- "which overlap" (the order_open branch's words) was untrue; the unknown noise's why instead
  local tr = require "llmd.treatments"
  local list = tr.load({ { label = "x", dirs = { "/x" } }, { label = "y", dirs = { "/y" } } },
    { cache = { ["/x"] = run(X_NEAR), ["/y"] = run(Y_NEAR) } })
  local m = tr.model(list, { slo = decision.parse_slo("ttft_p90_ms=200") })
  local text = m.ranking[1].vs_next_text
  t.eq(m.ranking[1].label, "y")
  t.ok(not text:find("which overlap", 1, true), text)
  t.ok(text:find("either may be higher: each load's pass or fail rests on one measured percentile whose noise these "
    .. "files cannot tell (no per-request data), " .. NEAR_WHY:gsub(" per GPU", ""), 1, true),
    text)
end)

t.test("truth56: the unknown-noise gap is on the Change column's scale, one scale with every margin", function()
  -- x passes 200 ms at 30 req/s (130 ms; x 1.1 = 143, a pass whatever 10 %) and fails at 40
  -- (300 ms; / 1.1 = 272.7, a fail whatever 10 %); y passes at 50 (150 ms; x 1.1 = 165) and fails
  -- at 60 (900 ms). The bands keep x in 30-40 and y in 50-60, apart: only the 25 % rule decides.
  -- y's 50 against x's 40 is 100 (50 / 40 - 1) = 25.0 % on the Change column's scale (python3),
  -- exactly decision.UNKNOWN_NOISE_GAP: ordered; of their mean it was 100 x 10 / 45 = 22.2 %
  -- (python3), "too close", on main
  local x = run { { 10, 10, 100 }, { 20, 20, 120 }, { 30, 30, 130 }, { 40, 40, 300 }, { 50, 50, 900 } }
  local y = run { { 10, 10, 100 }, { 20, 20, 110 }, { 30, 30, 120 }, { 40, 40, 130 }, { 50, 50, 150 },
    { 60, 60, 900 } }
  local m = model("ttft_p90_ms=200", x, y)
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.higher, ev.ordered, ev.noise_unknown_why }, { "untested", "b", true, nil })
  t.near(ev.margin_pct, 25.0, 1e-12)
  t.ok(decision.unknown_noise_orders(m.capacity.a, m.capacity.b, "b", false, ev.margin_pct), "at the rule's 25 %")
  -- the same with y's pass at 49.9 req/s: 100 (49.9 / 40 - 1) = 24.75 % (python3), under 25 %:
  -- too close, said on the same scale
  y = run { { 10, 10, 100 }, { 20, 20, 110 }, { 30, 30, 120 }, { 40, 40, 130 }, { 49.9, 49.9, 150 },
    { 60, 60, 900 } }
  m = model("ttft_p90_ms=200", x, y)
  ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.higher, ev.ordered, ev.measured_higher }, { "untested", nil, nil, "b" })
  t.eq(ev.noise_unknown_why.cond, "close")
  t.near(ev.noise_unknown_why.margin_pct, 24.75, 1e-9)
  t.ok(m.verdict.text:find("the measured loads put y's capacity at 49.90 req/s or more and x's at 40.00 req/s or "
    .. "less, the one 24.8 % above the other, and a pass and a fail that each rest on one percentile of unknown noise "
    .. "order two runs only from 25.0 % apart", 1, true), m.verdict.text)
end)
