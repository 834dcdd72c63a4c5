-- llmd.kvcache: what a run's vLLM metrics and logs say about the KV cache.
--
--   local kv = require("llmd.kvcache").analyze(results_dir, run)
--   kv.available, kv.reason, kv.hits, kv.queries, kv.misses, kv.hit_rate_pct, ...
--
-- Actual totals are counter increases between the first and last scrape of each pod
-- (llm-d-benchmark's results/metrics/raw/*_metrics.log), summed over pods and engines.
-- The "sum of max" figure is what llm-d-benchmark's processed summary gives (each pod's
-- largest cumulative value): it includes whatever the counters held before the run.
local lfs = require "lfs"
local pf = require "llmd.prom_files"

local M = {}

local HITS, QUERIES = "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"

M.SUM_OF_MAX_WHY = "The sum of each pod's largest counter value includes everything the counters had "
  .. "counted before the benchmark window (model warm-up, earlier runs), so it overstates this run's traffic."
-- when a counter restarted during the run, its largest value misses what the old process
-- had counted: the sum of max can then fall below the actual increase
M.SUM_OF_MAX_UNDER = "A counter restarted during the run (its value dropped or its _created time moved), so "
  .. "its largest value misses what was counted before the restart: the sum of max understates this run's traffic."

-- What the analysis may read under root (the run's results folder; with --link, the
-- user's own folder): a real folder, a regular file, or a link to a regular file inside
-- root. A link out of root (to /etc, to another run), to a folder, a dangling one and a
-- special file (a FIFO would block the read) are never followed; each is noted once in
-- g.left_out ("rel -> target: ..."), as llmd.runmodel words the links it does not follow.
-- Nothing is ever written here.
local function guard(root)
  local rm = require "llmd.runmodel"
  local g = { left_out = {} }
  local real_root, seen = nil, {}
  local function note(p, text)
    if seen[p] then return end
    seen[p] = true
    local rel = p:sub(1, #root + 1) == root .. "/" and p:sub(#root + 2) or p
    g.left_out[#g.left_out + 1] = rel .. text
  end
  function g.dir(p)
    if p == root then return lfs.attributes(p, "mode") == "directory" end
    local mode = lfs.symlinkattributes(p, "mode")
    if mode == "link" and lfs.attributes(p, "mode") == "directory" then
      note(p, (" -> %s: a link out of the results folder (or to a folder), not followed")
        :format(tostring(lfs.symlinkattributes(p, "target"))))
    end
    return mode == "directory"
  end
  function g.file(p)
    local mode = lfs.symlinkattributes(p, "mode")
    if mode == "file" then return true end
    if mode == "link" then
      real_root = real_root or rm.realpath(root)
      local real = rm.realpath(p)
      if real and real_root and rm.inside(real_root, real) and lfs.attributes(real, "mode") == "file" then
        return true
      end
      note(p, (" -> %s: a link out of the results folder (or to a folder), not followed")
        :format(tostring(lfs.symlinkattributes(p, "target"))))
    elseif mode then
      note(p, (": a %s, not a regular file (not read)"):format(mode))
    end
    return false
  end
  return g
end

-- The first folder under root (up to 4 levels) that satisfies pred(path); only real
-- folders are entered (g.dir).
local function find(g, root, pred, depth)
  depth = depth or 4
  if pred(root) then return root end
  if depth == 0 or not g.dir(root) then return nil end
  local names = {}
  for n in lfs.dir(root) do
    if n ~= "." and n ~= ".." and g.dir(root .. "/" .. n) then names[#names + 1] = n end
  end
  table.sort(names)
  for _, n in ipairs(names) do
    local hit = find(g, root .. "/" .. n, pred, depth - 1)
    if hit then return hit end
  end
end

local function scrapes_in(g)
  return function(d)
    if not d:match("/raw$") or not g.dir(d) then return false end
    for n in lfs.dir(d) do
      if n:match("_%d+_metrics%.log$") and g.file(d .. "/" .. n) then return true end
    end
    return false
  end
end

-- "GPU KV cache size: 1,234,567 tokens" in the vLLM pod logs (logs/*.log). g: what may be
-- read (made here when not given).
function M.cache_sizes(root, g)
  g = g or guard(root)
  local logs = find(g, root, function(d)
    return (d:match("/logs$") or d:match("/vllm%-logs$")) and g.dir(d)
  end)
  if not logs then return nil end
  local sizes, total = {}, 0
  local names = {}
  for n in lfs.dir(logs) do
    if n:match("%.log$") and g.file(logs .. "/" .. n) then names[#names + 1] = n end
  end
  table.sort(names)
  for _, n in ipairs(names) do
    local f = io.open(logs .. "/" .. n, "rb")
    if f then
      for line in f:lines() do
        local num = line:match("GPU KV cache size: ([%d,]+) tokens")
        if num and not n:match("%.previous%.log$") then
          local v = tonumber((num:gsub(",", "")))
          sizes[#sizes + 1] = { pod = (n:gsub("%.log$", "")), tokens = v }
          total = total + v
          break
        end
      end
      f:close()
    end
  end
  if #sizes == 0 then return nil end
  return { pods = sizes, total = total, dir = logs }
end

-- The lines of a scrape that hold the named metrics (name followed by '{' or ' '), found by
-- plain search: the timeline reads three metrics out of hundreds.
local TIMELINE = { "vllm:kv_cache_usage_perc", HITS, QUERIES }
local function timeline_lines(text)
  local out = {}
  for _, name in ipairs(TIMELINE) do
    local pat = "\n" .. name
    local pos = 1
    while true do
      local s = text:find(pat, pos, true)
      if not s then break end
      local e = text:find("\n", s + 1, true) or #text + 1
      local c = text:sub(s + 1 + #name, s + 1 + #name)
      if c == "{" or c == " " then out[#out + 1] = text:sub(s + 1, e - 1) end
      pos = e
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- A collector of per-scrape values: on_scrape for prom_files.read_raw_dir (scrapes in time
-- order), then finish() -> { {t = seconds since the first round, usage_pct = mean over the
-- round's scrapes (nil when none said), hit_rate_pct = prefix-cache hits / queries over
-- the interval ending there, summed over pods (nil without queries)}, ... }.
-- A round is the scrapes of one pass over the pods: a new one starts when a scrape comes
-- half the usual interval (the median gap between a pod's scrapes) after the round's
-- first, so a pod that joins late lands at its own time. A counter's increase is from the
-- same series' previous scrape (a drop is a restart: the new value is the increase).
function M.timeline_collector()
  local prom = require "llmd.prom"
  local scrapes, last_t, last = {}, {}, {}
  local gaps = {}
  local c = {}
  function c.on_scrape(pod, t, text, path)
    local s = { t = t, usage = 0, nusage = 0, dh = 0, dq = 0, nq = 0 }
    if last_t[pod] and t > last_t[pod] then gaps[#gaps + 1] = t - last_t[pod] end
    last_t[pod] = t
    local samples = prom.parse(timeline_lines(text), { tolerant = true, name = path })
    for _, smp in ipairs(samples) do
      local v = smp.value
      if v == v and v ~= math.huge and v ~= -math.huge then
        if smp.name == "vllm:kv_cache_usage_perc" then
          s.usage, s.nusage = s.usage + v * 100, s.nusage + 1
        else
          local keys = {}
          for k, x in pairs(smp.labels) do keys[#keys + 1] = k .. "=" .. x end
          table.sort(keys)
          local id = pod .. "\0" .. smp.name .. "\0" .. table.concat(keys, ",")
          local prev = last[id]
          last[id] = v
          if prev then
            local d = v >= prev and v - prev or v -- a reset: the counter started again from 0
            if smp.name == HITS then s.dh = s.dh + d else s.dq, s.nq = s.dq + d, s.nq + 1 end
          end
        end
      end
    end
    scrapes[#scrapes + 1] = s
  end
  function c.finish()
    table.sort(gaps)
    local half = #gaps > 0 and gaps[(#gaps + 1) // 2] / 2 or math.huge
    local rounds, r = {}, nil
    for _, s in ipairs(scrapes) do
      if not r or s.t - r.first >= half then
        r = { first = s.t, tsum = 0, n = 0, usage = 0, nusage = 0, dh = 0, dq = 0, nq = 0 }
        rounds[#rounds + 1] = r
      end
      r.tsum, r.n = r.tsum + s.t, r.n + 1
      r.usage, r.nusage = r.usage + s.usage, r.nusage + s.nusage
      r.dh, r.dq, r.nq = r.dh + s.dh, r.dq + s.dq, r.nq + s.nq
    end
    local out, t0 = {}, nil
    for _, x in ipairs(rounds) do
      local t = x.tsum / x.n
      t0 = t0 or t
      out[#out + 1] = {
        t = t - t0,
        usage_pct = x.nusage > 0 and x.usage / x.nusage or nil,
        hit_rate_pct = x.nq > 0 and x.dq > 0 and x.dh / x.dq * 100 or nil,
      }
    end
    return out
  end
  return c
end

-- inference-perf's *_prometheus_metrics.json (its Prometheus-query summaries) in root or
-- the run's folder: they hold no vLLM counter, only a prefix_cache_hit_percent mean per
-- stage. Why the prefix-cache figures are unknown beside them, or nil when there are none.
local NO_COUNTERS_FROM = "the counters come from metrics/raw/*_metrics.log or metrics/processed/metrics_summary.json, "
  .. "which the results lack"
local function prometheus_summaries(g, root, dir)
  local files, seen = {}, {}
  for _, d in ipairs { root, dir } do
    if d and not seen[d] and g.dir(d) then
      seen[d] = true
      for n in lfs.dir(d) do
        if n:match("_prometheus_metrics%.json$") and g.file(d .. "/" .. n) then files[#files + 1] = d .. "/" .. n end
      end
    end
  end
  if #files == 0 then return nil end
  table.sort(files)
  local json = require "llmd.json"
  local lo, hi, nonzero = math.huge, -math.huge, false
  for _, f in ipairs(files) do
    local ok, d = pcall(json.read, f)
    local succ = ok and type(d) == "table" and type(d.successes) == "table" and d.successes or {}
    local function mean(k)
      local b = succ[k]
      return type(b) == "table" and type(b.mean) == "number" and b.mean or nil
    end
    local hp, use = mean("prefix_cache_hit_percent"), mean("kv_cache_usage_percentage")
    if hp then lo, hi = math.min(lo, hp), math.max(hi, hp) end
    if (hp and hp ~= 0) or (use and use ~= 0) then nonzero = true end
  end
  local what = ("%d *_prometheus_metrics.json file%s in the results, inference-perf's Prometheus-query summaries "
    .. "such as %s, hold no vLLM prefix-cache counters"):format(#files, #files == 1 and "" or "s",
      files[1]:match("[^/]+$"))
  if not nonzero then
    return what .. ", and their prefix_cache_hit_percent and kv_cache_usage_percentage are 0 in every file, so they "
      .. "say nothing of the cache either; " .. NO_COUNTERS_FROM
  end
  local range = lo <= hi and (lo == hi and ("%.4g %%"):format(lo) or ("%.4g to %.4g %%"):format(lo, hi)) or "none"
  return what .. (", only a prefix_cache_hit_percent mean per file, %s, an estimate not read as hits and "
    .. "queries; "):format(range) .. NO_COUNTERS_FROM
end

function M.analyze(root, run)
  local kv = { available = false }
  root = root:gsub("(.)/+$", "%1")
  local g = guard(root)
  kv.size = M.cache_sizes(root, g)
  local ok_requests = run and run.overall and run.overall.values.requests_ok
  local input_tokens = run and run.overall and run.overall.values.input_tokens_total
  local raw = find(g, root, scrapes_in(g))
  local summary_path = find(g, root, function(d)
    return g.dir(d) and g.file(d .. "/metrics_summary.json")
  end)
  summary_path = summary_path and summary_path .. "/metrics_summary.json"
  local summary
  if summary_path then
    summary = pf.read_metrics_summary(summary_path)
    if summary.status ~= "ok" then summary = nil end
  end
  if raw then
    local tl = M.timeline_collector()
    local agg, info = pf.read_raw_dir(raw, { match = { "vllm:*" }, on_scrape = tl.on_scrape,
      readable = function(path) return g.file(path) end })
    kv.timeline = tl.finish()
    local count = require("llmd.template").helpers.count
    kv.source = ("%s of %s in %s"):format(count(info.scrapes, "scrape"), count(#info.pods, "pod"), raw)
    kv.window = { start = info.start, finish = info.finish }
    kv.failed_scrapes = #info.failed
    kv.hits = agg:counter_total(HITS)
    kv.queries = agg:counter_total(QUERIES)
    if kv.hits and kv.queries then
      kv.available = true
      kv.misses = kv.queries - kv.hits
      kv.hit_rate_pct = kv.queries > 0 and kv.hits / kv.queries * 100 or nil
      kv.misses_per_request = ok_requests and ok_requests > 0 and kv.misses / ok_requests or nil
      kv.hits_per_request = ok_requests and ok_requests > 0 and kv.hits / ok_requests or nil
      kv.cached_share_pct = input_tokens and input_tokens > 0 and kv.hits / input_tokens * 100 or nil
      -- why a figure is missing, for the report's N/A cells
      kv.na = {}
      if not kv.hit_rate_pct then kv.na.hit_rate_pct = "no prefix-cache queries in the scrapes" end
      if not (ok_requests and ok_requests > 0) then
        local why = "no completed request counted in the results"
        kv.na.misses_per_request, kv.na.hits_per_request = why, why
      end
      if not kv.cached_share_pct then kv.na.cached_share_pct = "the run's input token count is unknown" end
      kv.warnings = {}
      if kv.cached_share_pct and kv.cached_share_pct > 100 then
        -- more cached tokens than the run sent: the scrapes saw traffic that was not this run's
        kv.warnings[#kv.warnings + 1] = ("the scrapes count %d cache hits but the run sent %d input tokens: "
          .. "they include other traffic, so per-request figures are not shown"):format(kv.hits, input_tokens)
        kv.cached_share_pct, kv.hits_per_request, kv.misses_per_request = nil, nil, nil
        local why = "other traffic in the scrapes, see below"
        kv.na.cached_share_pct, kv.na.hits_per_request, kv.na.misses_per_request = why, why, why
      end
      kv.sum_of_max = {
        hits = agg:counter_total(HITS, { mode = "max" }),
        queries = agg:counter_total(QUERIES, { mode = "max" }),
      }
      local u = agg:gauge_summary("vllm:kv_cache_usage_perc")
      if u and u.count > 0 then
        kv.usage = { mean = u.mean * 100, p90 = u.p90 * 100, max = u.max * 100 }
      end
    else
      kv.reason = ("the scrapes in %s have no %s / %s (vLLM v1 names)"):format(raw, HITS, QUERIES)
    end
  end
  if summary then
    local agg = summary.aggregated or {}
    local hr = agg["vllm:prefix_cache_hit_rate"]
    if hr then
      kv.time_avg = { mean = hr.mean, p90 = hr.p90, p95 = hr.p95, source = summary_path }
    else
      kv.time_avg_why = ("%s has no vllm:prefix_cache_hit_rate aggregate"):format(summary_path)
    end
    if not kv.sum_of_max and summary.sum_of_max[HITS] then
      kv.sum_of_max = { hits = summary.sum_of_max[HITS], queries = summary.sum_of_max[QUERIES] }
    end
    if not kv.available then
      kv.summary_only = true
      kv.reason = kv.reason or ("no raw scrapes, only %s, whose counters are not increases over the run"):format(
        summary_path)
    end
  end
  if kv.sum_of_max and kv.hits and kv.sum_of_max.hits == kv.hits and kv.sum_of_max.queries == kv.queries then
    kv.sum_of_max_same = true
  end
  if not summary and not kv.time_avg_why then
    kv.time_avg_why = "no metrics/processed/metrics_summary.json, which the time-averaged hit rate is read from"
  end
  if not kv.available and not kv.reason then
    kv.reason = prometheus_summaries(g, root, run and run.dir)
      or "no vLLM metrics in the results (metrics/raw/*_metrics.log or metrics/processed/metrics_summary.json)"
  end
  table.sort(g.left_out)
  kv.left_out = g.left_out
  return kv
end

-- The prefix-cache figures the KV analysis found, into the run's overall metrics (so
-- run_state.json and run_model.json say what the report's KV section says); without
-- data, the analysis's reason.
function M.put(run, kv)
  local rm = require "llmd.runmodel"
  -- what the analysis did not read is said, once (llmd.harness names the links it saw)
  local said = {}
  for _, w in ipairs(run.warnings or {}) do said[w] = true end
  for _, l in ipairs(kv.left_out or {}) do
    local w = "KV cache analysis: " .. l
    if not said[l] and not said[w] then rm.warn(run, "%s", w) end
  end
  local set = run.overall
  local keys = { "prefix_cache_hits", "prefix_cache_queries", "prefix_cache_hit_rate_pct" }
  if kv.available then
    local src = "vLLM's Prometheus counters (" .. tostring(kv.source) .. ")"
    rm.put(set, "prefix_cache_hits", kv.hits, src)
    rm.put(set, "prefix_cache_queries", kv.queries, src)
    if kv.hit_rate_pct then
      rm.put(set, "prefix_cache_hit_rate_pct", kv.hit_rate_pct, src)
    else
      set.values.prefix_cache_hit_rate_pct = nil
      set.na.prefix_cache_hit_rate_pct = "no prefix-cache queries during the run"
    end
  else
    for _, k in ipairs(keys) do
      if set.values[k] == nil then set.na[k] = "from vLLM's Prometheus counters: " .. tostring(kv.reason) end
    end
  end
end

return M
