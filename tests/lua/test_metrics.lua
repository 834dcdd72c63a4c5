-- llmd.metrics: the catalogue holds the report's metric set, prints values with their
-- units and unknown ones as N/A with a reason, and computes deltas with the right sense.
-- Expected strings are written out by hand.
local t = require "testlib"
local metrics = require "llmd.metrics"

t.test("the catalogue holds at least the report's set, each fully described", function()
  local want = { "throughput_req_s", "throughput_tok_s", "throughput_total_tok_s",
    "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "ttft_mean_ms", "ttft_p50_ms",
    "ttft_p90_ms", "ttft_p99_ms", "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms", "itl_mean_ms",
    "itl_p90_ms", "ntpot_mean_ms", "error_rate_pct", "requests_ok", "requests_failed",
    "requests_incomplete", "input_tokens_total", "output_tokens_total", "duration_s",
    "prefix_cache_hits", "prefix_cache_queries", "prefix_cache_hit_rate_pct" }
  for _, k in ipairs(want) do
    local m = metrics.get(k)
    t.ok(m.label ~= "" and m.unit ~= "" and m.formula ~= "", k)
    t.ok(m.better == "higher" or m.better == "lower" or m.better == "none", k .. " better")
  end
  local seen = {}
  for _, m in ipairs(metrics.list) do
    t.ok(not seen[m.key], "duplicate " .. m.key)
    seen[m.key] = true
  end
  t.raises("unknown metric 'ttft_p95_msx'", metrics.get, "ttft_p95_msx")
  -- did you mean, as parse_slo has it (by hand: ttft_p9_ms is ttft_p90_ms less one '0')
  t.raises("metrics.get: unknown metric 'ttft_p9_ms' (did you mean 'ttft_p90_ms'?)", metrics.get, "ttft_p9_ms")
  t.raises("metrics.get: unknown metric 'zzzz' (expected one of llmd.metrics.list's keys, such as 'ttft_p90_ms')",
    metrics.get, "zzzz")
  -- what is not a key at all: the message says what a key is and what came, never a
  -- table's address or "unknown metric 'nil'" (harden51 #5)
  local want_key = "metrics.get: key: expected a metric key, a string such as 'ttft_p90_ms' (one of "
    .. "llmd.metrics.list's keys), got "
  t.raises(want_key .. "table", metrics.get, {})
  t.raises(want_key .. "nil", metrics.get, nil)
  t.raises(want_key .. "nil", metrics.get)
  t.raises(want_key .. "the number 5", metrics.get, 5)
  t.ok(metrics.get("ttft_p90_ms").key == "ttft_p90_ms", "the example the message gives is a key")
  local ok, err = pcall(metrics.get, {})
  t.ok(not ok and not tostring(err):find("0x", 1, true), "no address in: " .. tostring(err))
end)

t.test("values print with units; unknown is N/A with its reason, never 0", function()
  t.eq(metrics.format("ttft_p90_ms", 231.46), "231.5 ms")
  t.eq(metrics.format("throughput_tok_s", 28634.925), "28,634.9 tok/s")
  t.eq(metrics.format("requests_ok", 1200), "1,200")
  t.eq(metrics.format("output_tokens_total", 1599800), "1,599,800 tokens")
  t.eq(metrics.format("error_rate_pct", 2.5), "2.50 %")
  t.eq(metrics.format("tpot_mean_ms", 4.126, nil, { bare = true }), "4.13") -- (4.125 is an exact tie: printf gives 4.12)
  t.eq(metrics.format("ttft_p90_ms", nil, "not streamed: no first-token time"),
    "N/A (not streamed: no first-token time)")
  t.eq(metrics.format("ttft_p90_ms", nil), "N/A")
  t.raises("NaN is not a value", metrics.format, "ttft_p90_ms", 0 / 0)
  t.raises("a string is not a value", metrics.format, "ttft_p90_ms", "12")
end)

t.test("deltas know which direction is better", function()
  -- the kubecon stage-4 TTFT p90: 3180 ms baseline, 230 ms treatment
  local d = metrics.delta("ttft_p90_ms", 3180, 230)
  t.eq(d.diff, -2950)
  t.near(d.pct, -92.767295597484, 1e-9) -- -2950 / 3180 * 100
  t.eq(d.better, true)
  t.eq(metrics.delta("throughput_req_s", 10, 12).better, true)
  t.eq(metrics.delta("throughput_req_s", 10, 8).better, false)
  t.eq(metrics.delta("requests_ok", 10, 12).better, nil) -- a count that only describes
  t.eq(metrics.delta("error_rate_pct", 0, 5).pct, nil)   -- no percentage of 0
  t.eq(metrics.delta("ttft_p90_ms", nil, 5), nil)        -- unknown stays unknown
  t.eq(metrics.delta("ttft_p90_ms", 5, 5).better, nil)
end)

-- Session 37's lead fixes, each with its expectation worked out by hand beside it.
-- (Formerly test_lead37.lua.)
do
  t.test("metrics.na: one level of parentheses, but a formula's group keeps its grouping as [...]", function()
    -- by hand: the drain-reduced rate's formula read "completed /, window - least latency," in
    -- every N/A cell and Verdict that quoted it (agg37, newuser37's p1)
    t.eq(metrics.na("the drain-reduced rate (completed / (window - least latency)) was short"),
      "N/A (the drain-reduced rate, completed / [window - least latency] was short)")
    t.eq(metrics.na("no e2el statistics (the run's --percentile-metrics left out e2el)"),
      "N/A (no e2el statistics, the run's --percentile-metrics left out e2el)")
    t.eq(metrics.na("a (b (c)) d"), "N/A (a, b, c d)")
    t.eq(metrics.na("x × (1 − e)"), "N/A (x × [1 − e])")
  end)
end
