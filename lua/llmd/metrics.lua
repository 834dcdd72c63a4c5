-- llmd.metrics: the metric catalogue, the one place a metric's meaning lives.
--
--   local metrics = require "llmd.metrics"
--   local m = metrics.get("ttft_p90_ms")    -- {key, label, unit, better, formula, format}
--   metrics.format("ttft_p90_ms", 231.5)    -- "231.5 ms"
--   metrics.format("ttft_p90_ms", nil, "not streamed: no first-token time")  -- "N/A (not streamed: ...)"
--   metrics.delta("ttft_p90_ms", 3180, 231) -- {diff = -2949, pct = -92.7..., better = true}
--
-- Harness mappings fill these keys (by formula, in these units); reports print them.
-- A value the harness cannot give is unknown, with a reason: never 0, never a
-- neighbouring metric under this name.
local M = {}

-- better: "higher" or "lower" is better, or "none" (a count that only describes).
local LIST = {
  { "throughput_req_s", "Request throughput", "req/s", "higher",
    "completed requests / (last end - first start) over the measured stages", "%.3f" },
  { "throughput_tok_s", "Output token throughput", "tok/s", "higher",
    "output tokens of completed requests / (last end - first start)", "%.1f" },
  { "throughput_total_tok_s", "Total token throughput", "tok/s", "higher",
    "(input + output tokens of completed requests) / (last end - first start)", "%.1f" },
  { "latency_mean_ms", "End-to-end latency mean", "ms", "lower",
    "mean over completed requests of (end - start)", "%.1f" },
  { "latency_p50_ms", "End-to-end latency p50", "ms", "lower",
    "median over completed requests of (end - start)", "%.1f" },
  { "latency_p90_ms", "End-to-end latency p90", "ms", "lower",
    "90th percentile over completed requests of (end - start)", "%.1f" },
  { "latency_p99_ms", "End-to-end latency p99", "ms", "lower",
    "99th percentile over completed requests of (end - start)", "%.1f" },
  { "latency_all_p50_ms", "E2E latency p50, failures as +inf", "ms", "lower",
    "median over completed and failed requests of (end - start), each failure counted as +inf", "%.1f" },
  { "latency_all_p90_ms", "E2E latency p90, failures as +inf", "ms", "lower",
    "90th percentile over completed and failed requests, each failure counted as +inf", "%.1f" },
  { "latency_all_p99_ms", "E2E latency p99, failures as +inf", "ms", "lower",
    "99th percentile over completed and failed requests, each failure counted as +inf", "%.1f" },
  { "ttft_mean_ms", "TTFT mean", "ms", "lower",
    "mean over completed streamed requests of (first token - start)", "%.1f" },
  { "ttft_p50_ms", "TTFT p50", "ms", "lower", "median of (first token - start)", "%.1f" },
  { "ttft_p90_ms", "TTFT p90", "ms", "lower", "90th percentile of (first token - start)", "%.1f" },
  { "ttft_p99_ms", "TTFT p99", "ms", "lower", "99th percentile of (first token - start)", "%.1f" },
  { "tpot_mean_ms", "TPOT mean", "ms", "lower",
    "mean per request of (e2e - ttft) / (output tokens - 1): vLLM's TPOT, guidellm's ITL", "%.2f" },
  { "tpot_p50_ms", "TPOT p50", "ms", "lower", "median per request of (e2e - ttft) / (output tokens - 1)",
    "%.2f" },
  { "tpot_p90_ms", "TPOT p90", "ms", "lower",
    "90th percentile per request of (e2e - ttft) / (output tokens - 1)", "%.2f" },
  { "tpot_p99_ms", "TPOT p99", "ms", "lower",
    "99th percentile per request of (e2e - ttft) / (output tokens - 1)", "%.2f" },
  { "itl_mean_ms", "ITL mean", "ms", "lower",
    "mean of every gap between successive tokens (or chunks), pooled over requests", "%.2f" },
  { "itl_p90_ms", "ITL p90", "ms", "lower", "90th percentile of every gap between successive tokens, pooled",
    "%.2f" },
  { "itl_p99_ms", "ITL p99", "ms", "lower", "99th percentile of every gap between successive tokens, pooled",
    "%.2f" },
  { "ntpot_mean_ms", "NTPOT mean", "ms", "lower",
    "mean per request of e2e / output tokens: guidellm's TPOT, inference-perf's NTPOT", "%.2f" },
  { "error_rate_pct", "Error rate", "%", "lower", "failed / (succeeded + failed) x 100", "%.2f" },
  { "requests_ok", "Requests completed", "count", "none", "requests that succeeded", "%d" },
  { "requests_failed", "Requests failed", "count", "lower", "requests that ended in an error", "%d" },
  { "requests_incomplete", "Requests incomplete", "count", "none",
    "requests cut off (cancelled, or still running at the end of a stage)", "%d" },
  { "input_tokens_total", "Input tokens", "tokens", "none", "input tokens of completed requests", "%d" },
  { "output_tokens_total", "Output tokens", "tokens", "none", "output tokens of completed requests", "%d" },
  { "duration_s", "Duration", "s", "none", "last end - first start over the measured stages", "%.1f" },
  { "prefix_cache_hits", "Prefix cache hits", "tokens", "none",
    "increase over the run of vllm:prefix_cache_hits_total, summed over pods", "%d" },
  { "prefix_cache_queries", "Prefix cache queries", "tokens", "none",
    "increase over the run of vllm:prefix_cache_queries_total, summed over pods", "%d" },
  { "prefix_cache_hit_rate_pct", "Prefix cache hit rate", "%", "higher",
    "prefix_cache_hits / prefix_cache_queries x 100 (unknown when there were no queries)", "%.1f" },
}

local by_key = {}
M.list = {}
for i, e in ipairs(LIST) do
  local m = { key = e[1], label = e[2], unit = e[3], better = e[4], formula = e[5], format = e[6], order = i }
  M.list[i] = m
  by_key[m.key] = m
end

-- The entry of key; an unknown key is an error naming it (a typo must not pass).
function M.get(key)
  local m = by_key[key]
  if not m then error(("unknown metric '%s' (see llmd.metrics.list)"):format(tostring(key)), 2) end
  return m
end

function M.has(key) return by_key[key] ~= nil end

-- The value as printed, with its unit: "231.5 ms", "1,204 tokens"; nil -> "N/A (reason)".
function M.group_thousands(s)
  local sign, int, rest = s:match("^([%-]?)(%d+)(.*)$")
  if not int then return s end
  int = int:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
  return sign .. int .. rest
end

function M.format(key, value, na_reason, opts)
  local m = M.get(key)
  if value == nil then
    return na_reason and ("N/A (" .. na_reason .. ")") or "N/A"
  end
  if type(value) ~= "number" then
    error(("metric '%s': a %s is not a value (use nil with a reason for unknown)"):format(key, type(value)), 2)
  end
  if value ~= value then error(("metric '%s': NaN is not a value (use nil with a reason)"):format(key), 2) end
  local text
  if value == math.huge or value == -math.huge then
    -- a percentile that lands on a failed request (latency_all_*): say so, not "inf ms"
    return value > 0 and "+inf (failed requests)" or "-inf"
  elseif m.format == "%d" then
    text = M.group_thousands(("%.0f"):format(value))
  else
    text = M.group_thousands(m.format:format(value))
  end
  if opts and opts.bare then return text end
  if m.unit == "%" then return text .. " %" end
  if m.unit == "count" then return text end
  return text .. " " .. m.unit
end

-- b against a (the baseline): {diff = b - a, pct = diff / |a| x 100 (nil when a is 0),
-- better = true | false | nil (equal, "none" metrics, or unknown)}. Unknown when
-- either side is unknown.
function M.delta(key, a, b)
  local m = M.get(key)
  if a == nil or b == nil then return nil end
  local diff = b - a
  if a == b then diff = 0 end  -- +inf vs +inf: equal, not NaN
  local finite = math.abs(a) ~= math.huge and math.abs(b) ~= math.huge
  local pct = a ~= 0 and finite and diff / math.abs(a) * 100 or nil
  local better
  if diff ~= 0 and m.better ~= "none" then
    better = (m.better == "higher") == (diff > 0)
  end
  return { diff = diff, pct = pct, better = better }
end

return M
