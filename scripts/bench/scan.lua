-- The llmdlua side of `make bench`: one streaming pass per shape, the same summary
-- as ref.py, plus peak RSS and samples kept.
-- usage: llmdlua scan.lua SHAPE FILE [sketch]
local scan, stats, json = require "llmd.scan", require "llmd.stats", require "llmd.json"
local shape, path, sketch = arg[1], arg[2], arg[3] == "sketch"
-- the number-dense shapes are read like the text-heavy ones of the same writer
shape = ({ ip_tokens = "inference_perf", vllm_itls = "vllm_bench", csv_floats = "csv" })[shape] or shape

local function acc()
  return stats.new(sketch and { sketch = 0.01 } or nil)
end

local out, accs = {}, {}
if shape == "inference_perf" then
  local itl, ttft, e2e = acc(), acc(), acc()
  scan.json(path, {
    { "$[*].info.response_metrics.output_token_times", itl, reduce = "diffs" },
    -- the fields as arguments, as the harness's own reader takes them (inference_perf.lua)
    { "$[*]", function(start, finish, t0)
        ttft:add(t0 - start)
        e2e:add(finish - start)
      end, fields = { "start_time", "end_time", "info.response_metrics.output_token_times[0]" }, args = true },
  })
  accs = { itl = itl, ttft = ttft, e2e = e2e }
elseif shape == "vllm_bench" then
  local ttft, itl, e2e = acc(), acc(), acc()
  scan.json(path, { { "$.ttfts[*]", ttft }, { "$.itls[*][*]", itl }, { "$.latencies[*]", e2e } })
  accs = { ttft = ttft, itl = itl, e2e = e2e }
elseif shape == "guidellm" then
  local ttft, e2e, itl = acc(), acc(), acc()
  local base = "$.benchmarks[*].requests.successful[*]."
  scan.json(path, { { base .. "time_to_first_token_ms", ttft }, { base .. "request_latency", e2e },
    { base .. "inter_token_latency_ms", itl } })
  accs = { ttft = ttft, e2e = e2e, itl = itl }
elseif shape == "csv" then
  local ttft, tpot, e2e = acc(), acc(), acc()
  -- in parts at once when LLMDLUA_THREADS allows (bench.sh: 1 for the serial figure)
  out.parts = scan.csv(path, { { "ttft_ms", ttft }, { "tpot_ms", tpot }, { "e2e_ms", e2e } }).parts
  accs = { ttft = ttft, tpot = tpot, e2e = e2e }
elseif shape == "prom" then
  -- the same four numbers as ref.py, in its summary's slots: hit rate, hits, queries,
  -- and the TTFT p90 from bucket increases
  local agg = require("llmd.prom_files").read_raw_dir(path)
  local hits = agg:counter_total("vllm:prefix_cache_hits_total")
  local queries = agg:counter_total("vllm:prefix_cache_queries_total")
  out.kv = { count = 1, mean = agg:ratio("vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"),
    p50 = hits, p90 = queries, p99 = agg:histogram_quantile("vllm:time_to_first_token_seconds", 0.9) }
else
  error("unknown shape " .. tostring(shape), 0)
end

local kept = 0
for name, s in pairs(accs) do
  out[name] = s:summary { 50, 90, 99 }
  out[name].method, out[name].stddev, out[name].sample_stddev = nil, nil, nil
  out[name].min, out[name].max, out[name].sum, out[name].relative_error = nil, nil, nil, nil
  if not sketch then kept = kept + s:count() end
end
local f = assert(io.open("/proc/self/status"))
out.rss_kb = tonumber(f:read("a"):match("VmHWM:%s*(%d+)"))
f:close()
out.kept = kept
print(json.encode(out))
