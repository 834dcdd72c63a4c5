-- llmd.prom_files: llm-d-benchmark's Prometheus files.
--
--   local pf = require "llmd.prom_files"
--   local agg, info = pf.read_raw_dir("results/metrics/raw" [, { match = {...} }])
--   local summary = pf.read_metrics_summary("results/metrics/processed/metrics_summary.json")
--
-- read_raw_dir feeds every <pod>_<epoch>_metrics.log of the folder, in time order, to an
-- llmd.prom aggregator (pod and time from the file name, checked against the header);
-- scrapes that failed ("# Warning: Failed to collect metrics ...") are listed, not fed.
--
-- read_metrics_summary reads the processed summary, for results that have nothing
-- else. Its numbers are not increases: llm-d-benchmark pools every scrape, so a
-- counter's per-pod "max" is its last value, including whatever it counted before the
-- benchmark. They are returned under names that say so.
local lfs = require "lfs"
local json = require "llmd.json"
local prom = require "llmd.prom"

local M = {}

-- "2026-02-16T09:20:32+0000" (date +%Y-%m-%dT%H:%M:%S%z) -> Unix seconds, or nil (in C:
-- read_raw_dir's reading checks every file's header with it).
M.parse_timestamp = prom.parse_timestamp

-- How far a header's Timestamp may be from its file name's epoch, in seconds.
local MAX_SKEW = 300

-- opts: match (metric name patterns for the aggregator), tolerant, aggregator (one to add
-- to), on_scrape (function(pod, t, text, path) for every scrape fed, in time order),
-- readable (function(path): false leaves that file out unread, e.g. a link out of the run).
-- Returns the aggregator and {files=, scrapes=, failed = { {file=, pod=, t=, reason=} },
-- pods = {sorted names}, start=, finish=}.
--
-- The <pod>_<epoch>_metrics.log files are listed, sorted (time, then pod: counters need
-- their scrapes in time order) and read in C by agg:read_dir, a call for the folder: per
-- file it reads, checks the header and adds, with no Lua; what it found comes back as data,
-- and what to make of it is said here.
function M.read_raw_dir(dir, opts)
  opts = opts or {}
  if lfs.attributes(dir, "mode") ~= "directory" then
    error(dir .. ": not a folder (expected llm-d-benchmark's results/metrics/raw)", 2)
  end
  local agg = opts.aggregator or prom.aggregator { match = opts.match, tolerant = opts.tolerant }
  -- the generational collector handles on_scrape's short-lived texts far more cheaply (the
  -- caller's mode is restored below)
  local mode = collectgarbage("generational")
  local ok, info, issue = pcall(agg.read_dir, agg, dir,
    { readable = opts.readable, on_scrape = opts.on_scrape, max_skew = MAX_SKEW })
  collectgarbage(mode)
  if not ok then error(info, 0) end
  if issue then
    if issue.kind == "pod" then
      error(("%s: the header says pod %s, the file name %s"):format(issue.path, issue.header_pod, issue.pod), 0)
    elseif issue.kind == "stamp" then
      error(("%s: cannot read the header's Timestamp %q (expected 2026-02-16T09:20:32+0000)")
        :format(issue.path, issue.stamp), 0)
    end
    -- (an epoch beyond an integer is a float: written without a fraction, as the others)
    local function whole(x) return math.tointeger(x) or ("%.0f"):format(x) end
    error(("%s: the header's Timestamp %s is %s s away from the file name's %s")
      :format(issue.path, issue.stamp, whole(issue.header_t - issue.t), whole(issue.t)), 0)
  end
  if info.files == 0 then
    error(dir .. ": no <pod>_<epoch>_metrics.log files", 2)
  end
  for _, f in ipairs(info.failed) do
    -- a 0-byte file (the scrape's write died, or the disk was full): a failed scrape, said
    -- as what it is, not read as a scrape without the metrics; else the text of its line
    -- "# Warning: ..." (collect_metrics.sh's failed scrape)
    if f.empty then f.reason = "empty file" end
  end
  return agg, info
end

-- Reads metrics_summary.json. Returns
--   { status = "ok" | "no_data", pods = { [pod] = { [metric] = Stats } },
--     aggregated = { [metric] = Stats },
--     sum_of_max = { [metric] = number },        -- Σ over pods of each counter's max
--     hit_rate_time_avg_pct = number | nil,      -- mean over scrapes of cumulative hits/queries
--     external_hit_rate_time_avg_pct = number | nil,
--     caveat = "..." }
-- where Stats is the file's {mean, stddev, min, p25..p99, max, count, unit}.
function M.read_metrics_summary(path)
  -- a file that cannot be read or parsed is reported at the caller's line, as the checks
  -- below are (not at this module's)
  local rok, d = pcall(json.read, path)
  if not rok then error(require("llmd.errors").text(d), 2) end
  if type(d) ~= "table" or json.is_array(d) then
    error(path .. ": expected an object of pods (llm-d-benchmark's metrics_summary.json)", 2)
  end
  if d._info and d._info.status == "no_data" then
    return { status = "no_data", message = d._info.message, pods = {}, sum_of_max = {} }
  end
  local out = {
    status = "ok", pods = {}, sum_of_max = {},
    caveat = "processed summary: counters are the sum over pods of each one's largest "
      .. "scraped value (it includes anything counted before the benchmark), and hit rates "
      .. "are means over scrapes of cumulative ratios, not increases over the run",
  }
  for pod, block in pairs(d) do
    if pod == "_aggregated" then
      out.aggregated = block.metrics or {}
    elseif pod:sub(1, 1) ~= "_" then
      if type(block) ~= "table" or type(block.metrics) ~= "table" then
        error(("%s: pod %s has no 'metrics' object"):format(path, pod), 2)
      end
      out.pods[pod] = block.metrics
      for metric, st in pairs(block.metrics) do
        if metric:match("_total$") then
          if type(st) ~= "table" or type(st.max) ~= "number" then
            error(("%s: %s of pod %s has no numeric 'max'"):format(path, metric, pod), 2)
          end
          out.sum_of_max[metric] = (out.sum_of_max[metric] or 0) + st.max
        end
      end
    end
  end
  local agg = out.aggregated or {}
  local hr = agg["vllm:prefix_cache_hit_rate"]
  out.hit_rate_time_avg_pct = hr and hr.mean or nil
  local ehr = agg["vllm:external_prefix_cache_hit_rate"]
  out.external_hit_rate_time_avg_pct = ehr and ehr.mean or nil
  return out
end

return M
