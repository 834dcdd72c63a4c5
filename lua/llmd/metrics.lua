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

-- The measured window, the one duration every rate is over (see README "Metric catalogue").
M.WINDOW = "the measured window: first request start to last request end over the measured stages, "
  .. "idle time between stages included"

-- better: "higher" or "lower" is better, or "none" (a count that only describes).
local LIST = {
  { "throughput_req_s", "Request throughput", "req/s", "higher", "completed requests / duration_s", "%.3f" },
  { "throughput_tok_s", "Output token throughput", "tok/s", "higher",
    "output_tokens_total / duration_s", "%.1f" },
  { "throughput_total_tok_s", "Total token throughput", "tok/s", "higher",
    "(input_tokens_total + output_tokens_total) / duration_s", "%.1f" },
}

-- percentile keys: p50, p90, p95, p99 and p999 (the 99.9th), where the data holds them
M.PCTS = { { "p50", 50 }, { "p90", 90 }, { "p95", 95 }, { "p99", 99 }, { "p999", 99.9 } }
local PNAME = { p50 = "median", p90 = "90th percentile", p95 = "95th percentile", p99 = "99th percentile",
  p999 = "99.9th percentile" }
local PLABEL = { p50 = "p50", p90 = "p90", p95 = "p95", p99 = "p99", p999 = "p99.9" }

local function dist(prefix, label, what, fmt, with_mean)
  if with_mean then
    LIST[#LIST + 1] = { prefix .. "_mean_ms", label .. " mean", "ms", "lower", "mean " .. what, fmt }
  end
  for _, p in ipairs(M.PCTS) do
    LIST[#LIST + 1] = { prefix .. "_" .. p[1] .. "_ms", label .. " " .. PLABEL[p[1]], "ms", "lower",
      PNAME[p[1]] .. " " .. what, fmt }
  end
end

dist("latency", "End-to-end latency", "over completed requests of (end - start)", "%.1f", true)
for _, p in ipairs { "p50", "p90", "p99" } do
  LIST[#LIST + 1] = { "latency_all_" .. p .. "_ms", "E2E latency " .. p .. ", failures as +inf", "ms", "lower",
    PNAME[p] .. " over completed and failed requests of (end - start), each failure counted as +inf", "%.1f" }
end
dist("ttft", "TTFT", "over completed streamed requests of (first token - start)", "%.1f", true)
dist("tpot", "TPOT", "per request of (last token - first token) / (output tokens - 1), over requests "
  .. "with more than one output token: vLLM's and inference-perf's TPOT", "%.2f", true)
LIST[#LIST + 1] = { "itl_mean_ms", "ITL mean", "ms", "lower",
  "every gap between successive tokens (or chunks), pooled over requests: sum(last - first token) / "
  .. "sum(output tokens - 1); guidellm's inter-token latency mean", "%.2f" }
for _, p in ipairs(M.PCTS) do
  LIST[#LIST + 1] = { "itl_" .. p[1] .. "_ms", "ITL " .. PLABEL[p[1]], "ms", "lower",
    PNAME[p[1]] .. " of every gap between successive tokens (or chunks), pooled over requests", "%.2f" }
end
for _, p in ipairs { "p50", "p90", "p95", "p99" } do
  LIST[#LIST + 1] = { "itl_tw_" .. p .. "_ms", "ITL " .. PLABEL[p] .. ", token-weighted", "ms", "lower",
    PNAME[p] .. " of each request's mean token gap, each request counted once per gap (output tokens - 1): "
    .. "guidellm's inter-token latency percentiles (not the pooled gaps)", "%.2f" }
end
for _, e in ipairs {
  { "ntpot_mean_ms", "NTPOT mean", "ms", "lower",
    "mean per completed request of (end - start) / output tokens: inference-perf's NTPOT", "%.2f" },
} do LIST[#LIST + 1] = e end
-- (NTPOT's percentiles, inference-perf's too: an SLO may be set on them, fixf44; no
-- Performance row, llmd.report.PERF_KEYS)
dist("ntpot", "NTPOT", "per completed request of (end - start) / output tokens: inference-perf's NTPOT", "%.2f")
for _, e in ipairs {
  { "error_rate_pct", "Error rate", "%", "lower", "failed / (succeeded + failed) x 100", "%.2f" },
  { "requests_ok", "Requests completed", "count", "none", "requests that succeeded", "%d" },
  { "requests_failed", "Requests failed", "count", "lower", "requests that ended in an error", "%d" },
  { "requests_incomplete", "Requests incomplete", "count", "none",
    "requests cut off (cancelled, or still running at the end of a stage)", "%d" },
  { "input_tokens_total", "Input tokens", "tokens", "none", "input tokens of completed requests", "%d" },
  { "output_tokens_total", "Output tokens", "tokens", "none", "output tokens of completed requests", "%d" },
  { "duration_s", "Duration", "s", "none", M.WINDOW, "%.1f" },
  { "prefix_cache_hits", "Prefix cache hits", "tokens", "none",
    "increase over the run of vllm:prefix_cache_hits_total (older vLLM: vllm:gpu_prefix_cache_hits_total), summed "
    .. "over pods (a reset, seen as a drop or a new _created, starts a new series)", "%d" },
  { "prefix_cache_queries", "Prefix cache queries", "tokens", "none",
    "increase over the run of vllm:prefix_cache_queries_total (older vLLM: vllm:gpu_prefix_cache_queries_total), "
    .. "summed over pods", "%d" },
  { "prefix_cache_hit_rate_pct", "Prefix cache hit rate", "%", "higher",
    "prefix_cache_hits / prefix_cache_queries x 100 (unknown when there were no queries)", "%.1f" },
} do LIST[#LIST + 1] = e end

local by_key = {}
M.list = {}
for i, e in ipairs(LIST) do
  local m = { key = e[1], label = e[2], unit = e[3], better = e[4], formula = e[5], format = e[6], order = i }
  M.list[i] = m
  by_key[m.key] = m
end

-- The entry of key; an unknown key is an error naming it (a typo must not pass).
function M.get(key)
  if type(key) ~= "string" then
    -- (a table's or nil's tostring is no metric name: say what a key is)
    error(("metrics.get: key: expected a metric key, a string such as 'ttft_p90_ms' (one of llmd.metrics.list's "
      .. "keys), got %s"):format(type(key) == "number" and ("the number " .. tostring(key)) or type(key)), 2)
  end
  local m = by_key[key]
  if not m then
    local near = M.closest(key)
    error(("metrics.get: unknown metric '%s' (%s)"):format(key,
      near and ("did you mean '%s'?"):format(near)
        or "expected one of llmd.metrics.list's keys, such as 'ttft_p90_ms'"), 2)
  end
  return m
end

function M.has(key) return by_key[key] ~= nil end

-- What a user may type for a key: e2e_* for latency_* (the report says "End-to-end latency"
-- and "E2E"), e.g. e2e_p90_ms -> latency_p90_ms; and vLLM's benchmark names, which its
-- result files use: e2el for the end-to-end latency (e2el_p90_ms), the percentile before the
-- metric (p90_ttft_ms, p99_e2el_ms, p99.9_itl_ms), median for p50 and mean (median_tpot_ms,
-- mean_e2el_ms), NTPOT's too (ntpot_median_ms). The key itself when it is no alias (nor one
-- of a key that does not exist).
local VLLM_METRIC = { ttft = "ttft", tpot = "tpot", itl = "itl", e2el = "latency", e2e = "latency", ntpot = "ntpot" }
local function stat_key(stat)
  if stat == "median" then return "p50" end
  if stat == "p99.9" then return "p999" end
  return stat
end
function M.canonical(key)
  key = tostring(key)
  local rest = key:match("^e2e_(.+)$") or key:match("^e2el_(.+)$")
  if rest and by_key["latency_" .. rest] then return "latency_" .. rest end
  -- vLLM's order: <stat>_<metric>_ms
  local stat, metric = key:match("^([%w%.]+)_(%w+)_ms$")
  if stat and VLLM_METRIC[metric] then
    local k = ("%s_%s_ms"):format(VLLM_METRIC[metric], stat_key(stat))
    if by_key[k] then return k end
  end
  -- <metric>_<stat>_ms with vLLM's metric or stat name (e2el_median_ms, ttft_median_ms)
  metric, stat = key:match("^(%w+)_([%w%.]+)_ms$")
  if metric and VLLM_METRIC[metric] then
    local k = ("%s_%s_ms"):format(VLLM_METRIC[metric], stat_key(stat))
    if by_key[k] then return k end
  end
  return key
end

local distance = require("llmd.opts").distance

-- The known key closest to key among those keep(m) accepts (every key without keep): one
-- that key begins (ttft_p95 -> ttft_p95_ms), else the nearest by edit distance if it is
-- within a third of the key's length; nil when none is close.
function M.closest(key, keep)
  key = tostring(key)
  local best, best_d
  for _, m in ipairs(M.list) do
    if not keep or keep(m) then
      if m.key:sub(1, #key) == key and #key >= 3 then
        local d = #m.key - #key -- the shortest completion
        if not best_d or d < best_d then best, best_d = m.key, d end
      end
    end
  end
  if best then return best end
  for _, m in ipairs(M.list) do
    if not keep or keep(m) then
      local d = distance(key, m.key)
      if d <= math.max(1, #key // 3) and (not best_d or d < best_d) then best, best_d = m.key, d end
    end
  end
  return best
end

-- The value as printed, with its unit: "231.5 ms", "1,204 tokens"; nil -> "N/A (reason)".
function M.group_thousands(s)
  local sign, int, rest = s:match("^([%-]?)(%d+)(.*)$")
  if not int then return s end
  int = int:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
  return sign .. int .. rest
end

-- "N/A (reason)" with one level of parentheses: a reason's own "(...)" (most come from the
-- harness mappings, written to stand alone) become ", ...", innermost first, so that
-- "no e2el statistics (the run's --percentile-metrics left out e2el)" reads
-- "N/A (no e2el statistics, the run's --percentile-metrics left out e2el)"; a group after an
-- operator (a formula's) becomes "[...]" instead. nil -> "N/A".
function M.na(reason)
  if reason == nil then return "N/A" end
  local r = tostring(reason)
  for _ = 1, 8 do
    local n
    r, n = r:gsub("([^%s]?)(%s*)%(([^()]*)%)", function(before, space, inner)
      -- (a formula's group, "completed / (window - least latency)", keeps its grouping as
      -- "[...]": as ", ..." it would read "completed /, window - least latency,")
      if before:match("^[/*+=×÷−-]$") then return before .. space .. "[" .. inner .. "]" end
      return before .. ", " .. inner
    end)
    if n == 0 then break end
  end
  r = r:gsub("^, ", ""):gsub(", ,", ",")
  return "N/A (" .. r .. ")"
end

-- The decimals, from d up to most (d + 3 unless given), at which every value in xs prints
-- apart from ref, the limit or threshold it is judged against: 35.406 beside an SLO of 35.4
-- at d = 1 takes 2 ("35.41", never "35.4", which reads as meeting it); most where even that
-- many do not part them (a value equal to ref: "35.400", exactly at it). The one digit rule of every
-- figure printed beside its limit (M.format's opts.limit, llmd.decision's pct_near, the
-- capacity's bracket around a limit).
function M.decimals_apart(xs, ref, d, most)
  most = most or d + 3
  if type(ref) ~= "number" or ref ~= ref or math.abs(ref) == math.huge then return d end
  for dp = d, most do
    local f, apart = "%." .. dp .. "f", true
    for _, x in ipairs(xs) do
      if type(x) == "number" and x == x and math.abs(x) ~= math.huge
        and f:format(x) == f:format(ref) then apart = false end
    end
    if apart then return dp end
  end
  return most
end

-- opts: bare (no unit), limit (the SLO limit the value is read against: as many more
-- decimals as M.decimals_apart takes to show its side of it).
function M.format(key, value, na_reason, opts)
  local m = M.get(key)
  if value == nil then
    return M.na(na_reason)
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
    local fmt, d = m.format, tonumber(m.format:match("^%%%.(%d)f$"))
    -- (opts.decimals: a figure's own precision where a report's rule sets one, M.rate_text)
    if d and opts and opts.decimals then fmt, d = "%." .. opts.decimals .. "f", opts.decimals end
    if d and opts and opts.limit then fmt = "%." .. M.decimals_apart({ value }, opts.limit, d) .. "f" end
    text = M.group_thousands(fmt:format(value))
  end
  if opts and opts.bare then return text end
  if m.unit == "%" then return text .. " %" end
  if m.unit == "count" then return text end
  return text .. " " .. m.unit
end

-- The decimals of a request rate (req/s) wherever a report prints one as a figure: a capacity,
-- a max sustained throughput, a rate in a sentence, a load table's throughput. The one rule of
-- compare.lua (llmd.report's rate_text) and treatments.lua (ties56: treatments printed a
-- capacity as 3.485 req/s where compare printed the same one as 3.49).
M.RATE_DECIMALS = 2

-- A request rate as the reports print it, "3.49 req/s" (M.RATE_DECIMALS); nil: N/A with
-- na_reason. opts as M.format's (bare: no unit; limit: as many more decimals as part it from
-- a limit).
-- A rate that rounds to zero at those decimals, but is none, takes up to two more to show its
-- first digit ("-0.005 req/s", never "-0.00" or "0.00" for a gap's end below 0).
function M.rate_text(value, na_reason, opts)
  local o = { decimals = M.RATE_DECIMALS }
  for k, v in pairs(opts or {}) do o[k] = v end
  local text = M.format("throughput_req_s", value, na_reason, o)
  if type(value) == "number" and value == value and math.abs(value) ~= math.huge then
    for more = 1, 2 do
      if text:find("[1-9]") or math.abs(value) < 1e-9 then break end
      o.decimals = M.RATE_DECIMALS + more
      text = M.format("throughput_req_s", value, na_reason, o)
    end
    -- (a zero at every decimals tried is one: never signed)
    if not text:find("[1-9]") then text = text:gsub("^%-", "") end
  end
  return text
end

-- b against a (the baseline) in percent, (b - a) / |a| x 100: the Change column's, and every
-- relative effect's (llmd.decision effect_pct); 0 when equal, nil when either is unknown or
-- infinite, or a is 0 (no baseline to be relative to).
function M.change_pct(a, b)
  if a == nil or b == nil then return nil end
  if a == b then return 0 end
  if a == 0 or math.abs(a) == math.huge or math.abs(b) == math.huge or a ~= a or b ~= b then return nil end
  return (b - a) / math.abs(a) * 100
end

-- b against a (the baseline): {diff = b - a, pct = diff / |a| x 100 (nil when a is 0),
-- better = true | false | nil (equal, "none" metrics, or unknown)}. Unknown when
-- either side is unknown.
function M.delta(key, a, b)
  local m = M.get(key)
  if a == nil or b == nil then return nil end
  local diff = b - a
  if a == b then diff = 0 end  -- +inf vs +inf: equal, not NaN
  -- (0 against 0 and infinite figures: no percent, N/A in the table)
  local finite = math.abs(a) ~= math.huge and math.abs(b) ~= math.huge
  local pct = a ~= 0 and finite and M.change_pct(a, b) or nil
  local better
  if diff ~= 0 and m.better ~= "none" then
    better = (m.better == "higher") == (diff > 0)
  end
  return { diff = diff, pct = pct, better = better }
end

return M
