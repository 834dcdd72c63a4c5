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

-- Days from 1970-01-01 to y-m-d (proleptic Gregorian), after Howard Hinnant's
-- days_from_civil.
local function days_from_civil(y, m, d)
  y = m <= 2 and y - 1 or y
  local era = (y >= 0 and y or y - 399) // 400
  local yoe = y - era * 400
  local doy = (153 * (m + (m > 2 and -3 or 9)) + 2) // 5 + d - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  return era * 146097 + doe - 719468
end

-- "2026-02-16T09:20:32+0000" (date +%Y-%m-%dT%H:%M:%S%z) -> Unix seconds, or nil.
function M.parse_timestamp(s)
  local y, mo, d, h, mi, se, sign, oh, om =
    s:match("^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d)([%+%-])(%d%d):?(%d%d)$")
  if not y then
    y, mo, d, h, mi, se = s:match("^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d)Z$")
    if not y then return nil end
    sign, oh, om = "+", "00", "00"
  end
  local t = days_from_civil(tonumber(y), tonumber(mo), tonumber(d)) * 86400
    + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(se)
  local off = tonumber(oh) * 3600 + tonumber(om) * 60
  return sign == "+" and t - off or t + off
end

local FILE = "^(.+)_(%d+)_metrics%.log$"

-- The <pod>_<epoch>_metrics.log files of dir in time order, then by pod: their number,
-- and at(i) -> {name =, pod =, t =}. Counters need their scrapes in time order, so every
-- file is listed before the first is read; a day of scrapes of many pods is hundreds of
-- thousands of files, so the list holds one integer per file (epoch * 2^16 + the pod's
-- rank) and names are rebuilt from pod and epoch. When one cannot be (an epoch written
-- with a leading zero, more than 65536 pods), the list keeps every name instead.
local function list_files(dir, readable)
  local times, pods = {}, {}
  for name in lfs.dir(dir) do
    local pod, ts = name:match(FILE)
    if pod and readable and not readable(dir .. "/" .. name) then pod = nil end
    if pod then
      local t = math.tointeger(tonumber(ts))
      -- (ts is digits: only a leading zero makes the name other than pod_t's; a byte
      -- looked at, not tostring, a sixtieth of a scrape's instructions)
      if not t or t >= 1 << 46 or (#ts > 1 and ts:byte(1) == 48) or (#pods >= 1 << 16 and not times[pod]) then
        times = nil
        break
      end
      local l = times[pod]
      if not l then
        l = {}
        times[pod] = l
        pods[#pods + 1] = pod
      end
      l[#l + 1] = t
    end
  end
  if times then
    table.sort(pods)
    local keys = {}
    for rank, pod in ipairs(pods) do
      for _, t in ipairs(times[pod]) do keys[#keys + 1] = t << 16 | (rank - 1) end
      times[pod] = nil
    end
    table.sort(keys)
    return #keys, function(i)
      local k = keys[i]
      local pod, t = pods[(k & 0xFFFF) + 1], k >> 16
      return { name = pod .. "_" .. t .. "_metrics.log", pod = pod, t = t }
    end
  end
  local files = {}
  for name in lfs.dir(dir) do
    local pod, t = name:match(FILE)
    if pod and readable and not readable(dir .. "/" .. name) then pod = nil end
    if pod then files[#files + 1] = { name = name, pod = pod, t = tonumber(t) } end
  end
  table.sort(files, function(a, b)
    if a.t ~= b.t then return a.t < b.t end
    return a.pod < b.pod
  end)
  return #files, function(i) return files[i] end
end

-- opts: match (metric name patterns for the aggregator), tolerant, aggregator (one to add
-- to), on_scrape (function(pod, t, text, path) for every scrape fed, in time order),
-- readable (function(path): false leaves that file out unread, e.g. a link out of the run).
-- Returns the aggregator and {files=, scrapes=, failed = { {file=, pod=, t=, reason=} },
-- pods = {sorted names}, start=, finish=}.
function M.read_raw_dir(dir, opts)
  opts = opts or {}
  if lfs.attributes(dir, "mode") ~= "directory" then
    error(dir .. ": not a folder (expected llm-d-benchmark's results/metrics/raw)", 2)
  end
  local nfiles, file_at = list_files(dir, opts.readable)
  if nfiles == 0 then
    error(dir .. ": no <pod>_<epoch>_metrics.log files", 2)
  end
  local agg = opts.aggregator or prom.aggregator { match = opts.match, tolerant = opts.tolerant }
  -- the files are read into one buffer of the aggregator, in C, their "# Key: value" header
  -- lines read there too: only the header's Pod and Timestamp (and the text, for
  -- on_scrape) become Lua strings; the generational collector handles those short-lived
  -- strings far more cheaply (the caller's mode is restored below). No stat per file: a
  -- 0-byte file is told by read_raw.
  local mode = collectgarbage("generational")
  local on_scrape = opts.on_scrape
  local info = { files = nfiles, scrapes = 0, failed = {}, pods = {} }
  local pods = {}
  local last_stamp, last_t
  local ok, err = pcall(function()
    for i = 1, nfiles do
      local f = file_at(i)
      local path = dir .. "/" .. f.name
      local read, hpod, stamp, warning, text = agg:read_raw(path, on_scrape ~= nil)
      if not read then
        -- a 0-byte file (the scrape's write died, or the disk was full): a failed scrape, said
        -- as what it is, not read as a scrape without the metrics
        info.failed[#info.failed + 1] = { file = f.name, pod = f.pod, t = f.t, reason = "empty file", empty = true }
        goto continue
      end
      if hpod and hpod ~= f.pod then
        error(("%s: the header says pod %s, the file name %s"):format(path, hpod, f.pod), 0)
      end
      local header_t
      if stamp then
        -- the pods of one scrape round mostly share its Timestamp: read once
        if stamp ~= last_stamp then last_stamp, last_t = stamp, M.parse_timestamp(stamp) end
        header_t = last_t
        if not header_t then
          error(("%s: cannot read the header's Timestamp %q (expected 2026-02-16T09:20:32+0000)")
            :format(path, stamp), 0)
        end
      end
      if header_t and math.abs(header_t - f.t) > 300 then
        error(("%s: the header's Timestamp %s is %d s away from the file name's %d")
          :format(path, stamp, header_t - f.t, f.t), 0)
      end
      if warning then -- a line "# Warning: ..." (collect_metrics.sh's failed scrape)
        info.failed[#info.failed + 1] = { file = f.name, pod = f.pod, t = f.t, reason = warning }
      else
        agg:add_read(f.pod, f.t, path)
        if on_scrape then on_scrape(f.pod, f.t, text, path) end
        info.scrapes = info.scrapes + 1
        pods[f.pod] = true
      end
      ::continue::
    end
  end)
  collectgarbage(mode)
  if not ok then error(err, 0) end
  for p in pairs(pods) do info.pods[#info.pods + 1] = p end
  table.sort(info.pods)
  info.start, info.finish = file_at(1).t, file_at(nfiles).t
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
