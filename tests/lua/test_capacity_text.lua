-- Task fixa40: capacity / max sustained / treatments wording and numbers left by session 39.
-- Each test names its finding; expected values by hand from the points given, as said beside
-- each (queue_sim.py runs: the figures the lead found on them, re-derived from the model's
-- own saturation facts, which test_fixh39 pins).
local t = require "testlib"
local report = require "llmd.report"
local decision = require "llmd.decision"

local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end

-- a run offered p[1] req/s that achieved p[2] with TTFT p90 p[3] ms (10 output tokens a
-- request), every point's p90 known exactly (t.with_samples)
local function ttft_run(points)
  local stages = {}
  for i, p in ipairs(points) do
    stages[i] = { rate = p[1], values = { throughput_req_s = p[2], ttft_p90_ms = p[3], throughput_tok_s = 10 * p[2],
      error_rate_pct = 0 } }
  end
  return t.with_samples(t.run_of(stages))
end

local function ttft_model(x, y, slo)
  return report.build { a = sd("x", x), b = sd("y", y), slo = slo and decision.parse_slo(slo) or nil, generated = 0 }
end

-- 2. A lower run whose capacity lies below its lowest load: the least gap the loads allow
--    (the other's lowest pass against that load) under the threshold leaves the order
--    standing (its span reaches down to 0); what measuring below that load would tell is
--    said beside it (Verdict and Summary), as below_threshold_reason's dead branch said.
t.test("2: an order whose lower run failed at its lowest load says what measuring below it would tell", function()
  -- x fails TTFT p90 <= 100 ms at its lowest load, 10 req/s (150 ms): below 10. y meets it at
  -- 10.1 (50 ms) and fails at 20 (150): between 10.1 and 20. Least gap 10.1 against 10:
  -- 0.1 / 10.05 = +1.0 % of their mean, under 2 %; largest 20 against 0: +200 % (by hand)
  local m = ttft_model(ttft_run { { 10, 10, 150 }, { 20, 20, 300 } },
    ttft_run { { 10.1, 10.1, 50 }, { 20, 20, 150 } }, "ttft_p90_ms=100")
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.higher, ev.least_below_threshold }, { "untested", "b", true })
  t.near(ev.margin_pct, 0.1 / 10.05 * 100, 1e-9)
  local advice = "To tell by how much: measure x below its lowest load, 10.00 req/s."
  t.contains(m.verdict.text, "It is higher by at least +1.0 % of their mean, below the practical threshold of 2.0 %, "
    .. "and up to +200.0 %. " .. advice)
  t.eq(m.verdict.settle, advice)
  t.contains(m.summary, "y is higher by at least +1.0 % of their mean, below the practical threshold of 2.0 %, and "
    .. "up to +200.0 %. " .. advice)
  -- no below_lowest wording is left in the not-shown-to-differ reason (its branch is gone)
  local r = decision.below_threshold_reason({ margin_higher = "b", beyond_ceiling = true, sustained_rps = 3.52,
    ceiling_rps = 3.5, margin_hi = 3.52, margin_lo = 3.5, margin_pct = 0.57, margin_lo_kind = "below_lowest" },
    { a = "x", b = "y", min_effect = 2, rate = function(v) return ("%.2f req/s"):format(v) end,
      pct = function(v) return ("%+.1f %%"):format(v) end })
  t.eq(r, "the measured loads put y's capacity above x's (y sustained 3.52 req/s and x never achieved more than "
    .. "3.50 req/s at any load), but only 3.52 req/s against 3.50 req/s (+0.6 % of their mean), below the practical "
    .. "threshold of 2.0 %")
  -- an estimate (not below its lowest load) on the lower side: no such advice
  m = ttft_model(ttft_run { { 10, 10, 50 }, { 20, 20, 150 } }, ttft_run { { 10, 10, 50 }, { 30, 30, 150 } },
    "ttft_p90_ms=100")
  t.lacks(m.verdict.text, "To tell by how much")
end)

-- 3. Spans that meet at one load (a least gap of 0): where they meet, never "higher by a
--    least gap of 0 (they meet at one load)".
t.test("3: a least gap of 0 says where the ranges meet", function()
  local pct = function(v) return ("%+.1f %%"):format(v) end
  local rate = function(v) return ("%.2f req/s"):format(v) end
  local ev = { least_below_threshold = true, margin_pct = 0, margin_hi = 20, margin_lo = 20, margin_max_pct = 100 }
  t.eq(decision.least_gap_text(ev, pct, 2, rate), ": their ranges meet at 20.00 req/s, so the least gap is 0, below "
    .. "the practical threshold of 2.0 %, and the largest is +100.0 % of their mean")
  ev.same_load = { offered = 20, load_type = "rate" }
  ev.margin_max_pct = nil
  t.eq(decision.least_gap_text(ev, pct, 2, rate), ": their ranges meet at one load (20 req/s offered), so the least "
    .. "gap is 0, below the practical threshold of 2.0 %, and the largest has no upper end")
  -- compare.lua's Summary of two runs that meet at 20 req/s offered (test_decision's case:
  -- x met TTFT p90 <= 100 ms at 20 where y failed it; x 30 against y 10 allow (30 - 10) / 20
  -- = +100 % of their mean, by hand)
  local x = ttft_run { { 10, 10, 40 }, { 20, 20, 90 }, { 30, 30, 150 } }
  local y = ttft_run { { 10, 10, 60 }, { 20, 20, 120 }, { 30, 30, 200 } }
  local m = ttft_model(x, y, "ttft_p90_ms=100")
  t.contains(m.summary, "x is higher: their ranges meet at one load (20 req/s offered), so the least gap is 0, below "
    .. "the practical threshold of 2.0 %, and the largest is +100.0 % of their mean.")
  t.lacks(m.summary, "least gap of 0 (they meet")
end)

t.test("2: the same advice beside a winner of the repeats whose lower run failed at its lowest load", function()
  -- test_lead33's pair: base fails TTFT p95 <= 230 ms at its only load (3.594 req/s) in every
  -- repeat, fast meets it there: their ranges meet at that load, fast's has no upper end
  local a, b = t.slo_split_pair()
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "base", "--b-label", "fast", "--slo", "ttft_p95_ms=230" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(ws .. "/comparison_report.md")
  local advice = "To tell by how much: measure base below its lowest load, 3.59 req/s."
  t.contains(md:match("%*%*Verdict:%*%*[^\n]*"), "and the largest has no upper end. " .. advice)
  t.contains(md:match("## Summary\n\n(.-)\n\n## "), "and the largest has no upper end. " .. advice)
end)
