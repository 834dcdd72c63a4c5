-- llmd.kvcache: what a run's vLLM metrics and logs say about the KV cache.
--
--   local kv = require("llmd.kvcache").analyze(results_dir, run)
--   kv.available, kv.reason, kv.hits, kv.queries, kv.misses, kv.hit_rate_pct, ...
--
-- Actual totals are counter increases between the first and last scrape of each pod
-- (llm-d-benchmark's results/metrics/raw/*_metrics.log), summed over pods and engines.
-- The "sum of max" figure is what llm-d-benchmark's processed summary gives (each pod's
-- largest cumulative value): it includes whatever the counters held before the first
-- scrape, and misses what a counter counted before it restarted.
-- Its lists (left_out, notes, warnings, checks, timeline, failed_pods) are json.array even
-- when empty, so run_model.json writes [] for them, never {} (an object to its readers).
local lfs = require "lfs"
local json = require "llmd.json"
local pf = require "llmd.prom_files"

local M = {}

local HITS, QUERIES = "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"
-- the names older vLLM gave them (v0, and v1 before 0.10), and its KV usage gauge's
-- (FORMATS.md §7: readers accept both sets; the v1 names win where a scrape has both)
local OLD_HITS, OLD_QUERIES = "vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_queries_total"

local SUCCESS = "vllm:request_success_total"
-- requests evicted from the KV cache to make room (recomputed or swapped later): KV pressure
local PREEMPTIONS = "vllm:num_preemptions_total"

-- What the "sum of max" (each pod's largest value of a counter, summed: llm-d-benchmark's
-- processed summary's figure) is for a run, and why it differs from the actual increase.
-- som: kv.sum_of_max ({hits, queries, source = "raw" | the summary's path, summary = the
-- summary's path beside raw scrapes with its summary_hits, summary_queries, hits_before (in
-- the first scrapes), resets (of the hit counters), pooled_pods (pods with several label sets
-- of the hit counter: data-parallel engines, whose values the summary pools before taking the
-- largest), summary_why (why the summary's own figure is unknown)}); actual_hits: kv.hits or nil.
-- Returns what, why.
function M.sum_of_max_text(som, actual_hits)
  local num = require("llmd.template").helpers.num
  if som.source ~= "raw" then
    return ("from llm-d-benchmark's processed summary (%s)"):format(som.source or "metrics_summary.json"),
      "It includes everything the counters had counted before the benchmark window (model warm-up, earlier runs), "
        .. "and a counter that restarted during the run loses what it counted before the restart, so it is not this "
        .. "run's traffic."
  end
  local what = "computed from the raw scrapes (the run has no processed summary, metrics_summary.json)"
  if som.summary and som.summary_hits then
    what = ("computed from the raw scrapes; the processed summary (%s) gives %s hits / %s queries"):format(
      som.summary, num(som.summary_hits), num(som.summary_queries))
  elseif som.summary and som.summary_why then
    what = ("computed from the raw scrapes; the processed summary's own figure is unknown (%s)"):format(
      som.summary_why)
  elseif som.summary then
    what = ("computed from the raw scrapes; the processed summary (%s) has no prefix-cache counters")
      :format(som.summary)
  end
  local why = {}
  if (som.hits_before or 0) > 0 then
    why[#why + 1] = ("each pod's first scrape already held what its counters had counted before the benchmark "
      .. "window (%s hits: model warm-up, earlier runs), which the largest values include"):format(num(som.hits_before))
  end
  if (som.resets or 0) > 0 then
    why[#why + 1] = ("a counter restarted during the run (its value dropped or its _created time moved: %s), so its "
      .. "largest value misses what was counted before the restart"):format(
      require("llmd.template").helpers.count(som.resets, "restart"))
  end
  if (som.pooled_pods or 0) > 0 then
    why[#why + 1] = ("on %s with several data-parallel engines (label sets) it takes the largest engine's value, "
      .. "not their sum"):format(require("llmd.template").helpers.count(som.pooled_pods, "pod"))
  end
  local dir = actual_hits and (som.hits > actual_hits and "overstates" or som.hits < actual_hits and "understates")
  local text = #why > 0 and (table.concat(why, "; and "):gsub("^%l", string.upper)) or "It counts otherwise"
  return what, text .. (dir and (": here it %s this run's traffic."):format(dir) or ".")
end

-- The failed scrapes by pod: { {pod =, count =}, ... } in pod order.
local function failed_by_pod(failed)
  local by, out = {}, json.array {}
  for _, f in ipairs(failed) do
    if not by[f.pod] then
      by[f.pod] = { pod = f.pod, count = 0 }
      out[#out + 1] = by[f.pod]
    end
    by[f.pod].count = by[f.pod].count + 1
  end
  table.sort(out, function(a, b) return a.pod < b.pod end)
  return out
end

-- What the failed scrapes were: "a '# Warning:' line instead of metrics", "an empty file",
-- or both with their counts.
local function failed_kinds(failed)
  local empty = 0
  for _, f in ipairs(failed) do if f.empty then empty = empty + 1 end end
  local warn = #failed - empty
  if empty == 0 then return "a '# Warning:' line instead of metrics" end
  if warn == 0 then return empty == 1 and "an empty file" or "empty files" end
  return ("%d with a '# Warning:' line instead of metrics, %d empty file%s"):format(warn, empty,
    empty == 1 and "" or "s")
end

local function failed_text(info, pods)
  local list = {}
  for _, p in ipairs(pods) do list[#list + 1] = ("%s %d"):format(p.pod, p.count) end
  local n = #info.failed
  return ("%d of %d scrapes failed (%s; by pod: %s): the totals count each "
    .. "counter's increase across a gap from the scrapes around it (a failed first or last scrape shortens that "
    .. "pod's window), and the timeline leaves out the rounds that lack a pod"):format(n, n + info.scrapes,
    failed_kinds(info.failed), table.concat(list, ", "))
end

-- How far vLLM's count of finished requests may be outside the harness's counts: the 1 %
-- of every data check (llmd.runmodel.crosscheck).
M.COVERAGE_TOL = 0.01

-- Do the scrapes count the run's requests? vLLM's vllm:request_success_total rises once
-- per request an engine finished, whatever the finished_reason (stop, length, abort,
-- error). Over scrapes that span the run its increase is at least the harness's completed
-- requests and at most its completed + failed + incomplete (a failed request may never
-- have reached an engine), each within COVERAGE_TOL. Scrapes of part of the run count
-- fewer; other traffic (warm-up requests the harness leaves out, other clients, a request
-- counted on both its prefill and its decode pod) more. served: the increase (nil: never
-- scraped); values: the run's overall values; window: seconds from the first scrape to
-- the last. nil when it agrees, else {na = the per-request figures' N/A reason, text = the
-- data check's line (nil when there is nothing to check against), scope = the caveat the
-- figures still shown (totals, hit rate, preemptions) carry: "includes other traffic: 105
-- requests finished against 8 sent" (nil when unchecked)}.
function M.coverage(served, values, window)
  local H = require("llmd.template").helpers
  local ok = values.requests_ok
  local sent = ok + (values.requests_failed or 0) + (values.requests_incomplete or 0)
  if served == nil then
    return { na = ("unchecked: the scrapes have no %s, so whether they cover the run's requests is unknown"):format(
      SUCCESS) }
  end
  if served < ok * (1 - M.COVERAGE_TOL) then
    return { na = "the scrapes cover only part of the run, see below",
      scope = ("covers only part of the run: %s requests finished against %s completed"):format(H.num(served),
        H.num(ok)),
      text = ("vLLM's %s rose by %s over the %s s from the first scrape to the last, but the harness completed %s "
        .. "requests (%s %% of them seen): the scrapes cover only part of the run, so the per-request KV figures "
        .. "are not shown, and the totals, the hit rate and the preemptions are those of part of the run"):format(
        SUCCESS, H.num(served), H.num(window), H.num(ok), H.num(served / ok * 100, 1)) }
  end
  if served > sent * (1 + M.COVERAGE_TOL) then
    return { na = "the scrapes count other requests too, see below",
      scope = ("includes other traffic: %s requests finished against %s sent"):format(H.num(served), H.num(sent)),
      text = ("vLLM's %s rose by %s over the %s s from the first scrape to the last, but the harness sent %s "
        .. "requests: the scrapes count other requests too (other traffic, warm-up requests the harness leaves out, "
        .. "or each request counted on both its prefill and its decode pod), so the per-request KV figures are not "
        .. "shown, and the totals, the hit rate and the preemptions are the server's over all its traffic, not this "
        .. "run's"):format(SUCCESS, H.num(served), H.num(window), H.num(sent)) }
  end
  return nil
end

-- What the analysis may read under root (the run's results folder; with --link, the
-- user's own folder): a real folder, a regular file, or a link to a regular file inside
-- root. A link out of root (to /etc, to another run), to a folder, a dangling one and a
-- special file (a FIFO would block the read) are never followed; each is noted once in
-- g.left_out ("rel -> target: ..."), as llmd.runmodel words the links it does not follow.
-- Nothing is ever written here.
local function guard(root)
  local rm = require "llmd.runmodel"
  local g = { left_out = json.array {} }
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

-- The model a vLLM server's start-up line in its log names, or nil: the name it serves the model
-- under, which requests ask for and its metrics' model_name label carries (vLLM's
-- get_served_model_name: the first --served-model-name, else the model). vLLM logs its arguments
-- once at start-up: "non-default args: {'model_tag': 'Qwen/Qwen3-0.6B', 'served_model_name':
-- ['qwen'], ...}" (vllm/entrypoints/utils.py log_non_default_args, a Python dict's repr), before
-- that (up to 0.8) all of them, "args: Namespace(..., model='Qwen/Qwen3-0.6B', ...,
-- served_model_name=None, ...)"; the newest also "vLLM server version V, serving model M"
-- (log_version_and_model: the model, not its served name). A model equal to vLLM's default is no
-- non-default arg: then model_tag (vllm serve's positional model) names it. Returns name, what the
-- line was ("non-default args" | "args: Namespace" | "serving model").
function M.log_model(line)
  local names, kind = M.log_names(line)
  if names then return names[1], kind end
  return nil
end

-- Every name a vLLM server's start-up line (M.log_model's) gives its model, the one requests use
-- first: each --served-model-name, then the model (a path or a hub id) and vllm serve's positional
-- model_tag, each once; or nil. A request naming any of them names this server's model (a
-- benchmark's own --model, vLLM's model_id, is often the path or hub id while it sends the served
-- name). Returns the list and what the line was, as M.log_model.
function M.log_names(line)
  local q = "(['\"])(.-)%1" -- a Python str's repr: '...', or "..." where it holds a '
  local body, open, sep, kind = line:match("non%-default args: (%b{})"), "[{,]%s*'", "': ", "non-default args"
  if not body then
    body, open, sep, kind = line:match("args: Namespace(%b())"), "[(,]%s*", "=", "args: Namespace"
  end
  if not body then
    local m = line:match("vLLM server version %S+, serving model (%S+)")
    if m then return { m }, "serving model" end
    return nil
  end
  local out, seen = {}, {}
  local function add(v)
    if v and v ~= "" and not seen[v] then seen[v], out[#out + 1] = true, v end
  end
  -- (served_model_name is a list: ['a', 'b'])
  local list = body:match(open .. "served_model_name" .. sep .. "(%b[])")
  if list then
    for _, v in list:gmatch(q) do add(v) end
  else
    add(select(2, body:match(open .. "served_model_name" .. sep .. q)))
  end
  for _, k in ipairs { "model", "model_tag" } do
    add(select(2, body:match(open .. k .. sep .. q)))
  end
  if #out == 0 then return nil end
  return out, kind
end

-- The vLLM pod logs (logs/*.log, or vllm-logs/*.log; not a restarted container's
-- .previous.log), each read once, line by line, for what the analysis takes from them:
-- "GPU KV cache size: 1,234,567 tokens" (see M.cache_sizes) and the model its start-up line
-- names (M.log_model: the last such line, the server's latest start; its arguments line before
-- a "serving model" one). g: what may be read (made here when not given). Returns
-- { dir =, names = {file names}, sizes = { {pod =, tokens =, engines =}, ... }, total =,
-- models = { {pod =, model =, file =}, ... } } or nil, why.
function M.read_logs(root, g)
  g = g or guard(root)
  local logs = find(g, root, function(d)
    return (d:match("/logs$") or d:match("/vllm%-logs$")) and g.dir(d)
  end)
  if not logs then return nil, "no vLLM logs in the results: no logs/ or vllm-logs/ folder" end
  local out = { dir = logs, names = {}, sizes = {}, total = 0, models = {} }
  local names = out.names
  for n in lfs.dir(logs) do
    if n:match("%.log$") and not n:match("%.previous%.log$") and g.file(logs .. "/" .. n) then
      names[#names + 1] = n
    end
  end
  table.sort(names)
  for _, n in ipairs(names) do
    local f = io.open(logs .. "/" .. n, "rb")
    if f then
      local by, ranks = {}, {}
      local args_model, serving_model
      for line in f:lines() do
        local at, num = line:match("()GPU KV cache size: ([%d,]+) tokens")
        local v = num and tonumber((num:gsub(",", "")))
        if v then
          local rank = line:sub(1, at - 1):match("_DP(%d+)[%s_]") or ""
          if not by[rank] then ranks[#ranks + 1] = rank end
          by[rank] = v
        elseif line:find("args: ", 1, true) or line:find("serving model ", 1, true) then
          local m, kind = M.log_names(line)
          if kind == "serving model" then serving_model = m elseif m then args_model = m end
        end
      end
      f:close()
      local pod = (n:gsub("%.log$", ""))
      if #ranks > 0 then
        local tokens = 0
        for _, r in ipairs(ranks) do tokens = tokens + by[r] end
        out.sizes[#out.sizes + 1] = { pod = pod, tokens = tokens, engines = #ranks }
        out.total = out.total + tokens
      end
      -- (names: every name the line gives, M.log_names: a results' model equal to any is this server's)
      local m = args_model or serving_model
      if m then out.models[#out.models + 1] = { pod = pod, model = m[1], names = json.array(m), file = n } end
    end
  end
  return out
end

-- "GPU KV cache size: 1,234,567 tokens" in the vLLM pod logs (logs/*.log). vLLM logs it
-- once per engine (kv_cache_utils, logger.info_once in the engine core's process): a pod
-- serving with data parallelism (--data-parallel-size) has one engine, and one cache, per
-- rank, each line prefixed with its process ("(EngineCore_DP1 pid=102) INFO ..."; a
-- worker's "(Worker_DP1_TP0 pid=...)" names the same rank). A pod's size is the sum over
-- its ranks; lines naming no rank are one engine; a rank logged again (a reprint) counts
-- once, with its last value. g: what may be read (made here when not given); logs: what
-- M.read_logs returned (read here when not given).
-- Returns { pods = { {pod =, tokens =, engines =}, ... }, total =, dir = } or nil.
function M.cache_sizes(root, g, logs, why)
  if not logs and not why then logs, why = M.read_logs(root, g) end
  if not logs then return nil, why end
  if #logs.names == 0 then return nil, ("no vLLM logs in the results: %s has no *.log file"):format(logs.dir) end
  if #logs.sizes == 0 then return nil, ("no 'GPU KV cache size' line in the vLLM logs in %s"):format(logs.dir) end
  return { pods = logs.sizes, total = logs.total, dir = logs.dir }
end

-- The models vLLM's scrapes in folder raw name: the model_name label (the served model's name,
-- as M.log_model's) that every vllm: sample carries, by pod. A vLLM process serves one model, so
-- each pod's first and last scrape say it (each read from its end inwards past a failed or empty
-- scrape): cheap beside the whole KV analysis, and the same for compare.lua (which reads every
-- scrape anyway) and treatments.lua (which reads none). g: what may be read.
-- { {model =, pods = {sorted names}}, ... } sorted by model; {} where no scrape carries the label.
function M.scrape_models(g, raw)
  local times, pods = {}, {}
  for n in lfs.dir(raw) do
    local pod, ts = n:match("^(.+)_(%d+)_metrics%.log$")
    if pod and g.file(raw .. "/" .. n) then
      if not times[pod] then times[pod], pods[#pods + 1] = {}, pod end
      table.insert(times[pod], { t = tonumber(ts), name = n })
    end
  end
  local by, out = {}, {}
  local function read(pod, f)
    local h = io.open(raw .. "/" .. f.name, "rb")
    if not h then return false end
    local text = h:read("a") or ""
    h:close()
    local found = false
    for line in text:gmatch("[^\n]+") do
      local m = line:match("^vllm:[^{]*{.-model_name=\"([^\"]*)\"")
      if m and m ~= "" then
        found = true
        local e = by[m]
        if not e then
          e = { model = m, pods = {}, seen = {} }
          by[m], out[#out + 1] = e, e
        end
        if not e.seen[pod] then e.seen[pod], e.pods[#e.pods + 1] = true, pod end
      end
    end
    return found
  end
  for _, pod in ipairs(pods) do
    local l = times[pod]
    table.sort(l, function(x, y) return x.t < y.t end)
    local first
    for i = 1, #l do if read(pod, l[i]) then first = i; break end end
    for i = #l, (first or #l) + 1, -1 do if read(pod, l[i]) then break end end
  end
  table.sort(out, function(x, y) return x.model < y.model end)
  for _, e in ipairs(out) do
    e.seen = nil
    table.sort(e.pods)
  end
  return out
end

-- The sources of the model the server names, for M.served_model: the scrapes' (M.scrape_models)
-- and the logs' (M.read_logs: logs, why, where already read), with their folders relative to
-- root as the results name them ("metrics/raw", "logs"). { scrape_models =, scrape_dir =,
-- log_models =, log_dir = }, each absent where it names nothing.
function M.model_sources(root, g, logs, logs_why)
  root = root:gsub("(.)/+$", "%1")
  g = g or guard(root)
  local function rel(p) return p:sub(1, #root + 1) == root .. "/" and p:sub(#root + 2) or p end
  if not logs and not logs_why then logs = M.read_logs(root, g) end
  local out = {}
  if logs and #logs.models > 0 then out.log_models, out.log_dir = json.array(logs.models), rel(logs.dir) end
  local raw = find(g, root, scrapes_in(g))
  local models = raw and M.scrape_models(g, raw) or {}
  if #models > 0 then out.scrape_models, out.scrape_dir = json.array(models), rel(raw) end
  return out
end

-- The lines of a scrape the timeline reads, found by plain search (three metrics out of
-- hundreds): the # TYPE lines first (a counter is a counter only when typed so, and a
-- restart is seen by its _created companion), then the samples (name followed by '{' or
-- ' ').
local USAGE, OLD_USAGE = "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"
local HITS_CREATED, QUERIES_CREATED = "vllm:prefix_cache_hits_created", "vllm:prefix_cache_queries_created"
local OLD_HITS_CREATED, OLD_QUERIES_CREATED = "vllm:gpu_prefix_cache_hits_created",
  "vllm:gpu_prefix_cache_queries_created"
local TIMELINE = { USAGE, HITS, QUERIES, HITS_CREATED, QUERIES_CREATED, OLD_USAGE, OLD_HITS, OLD_QUERIES,
  OLD_HITS_CREATED, OLD_QUERIES_CREATED }
-- 0.0.4 types each series (..._total, ..._created), OpenMetrics the family
local TYPED = { USAGE, HITS, QUERIES, HITS_CREATED, QUERIES_CREATED, "vllm:prefix_cache_hits",
  "vllm:prefix_cache_queries", OLD_USAGE, OLD_HITS, OLD_QUERIES, OLD_HITS_CREATED, OLD_QUERIES_CREATED,
  "vllm:gpu_prefix_cache_hits", "vllm:gpu_prefix_cache_queries" }

-- The prefix-cache counters' names in a set of scraped names (have[name] = true): the v1
-- pair where both are there, else the older pair where both are, else nil.
function M.prefix_names(have)
  if have[HITS] and have[QUERIES] then return HITS, QUERIES end
  if have[OLD_HITS] and have[OLD_QUERIES] then return OLD_HITS, OLD_QUERIES end
  return nil
end
local function find_lines(text, prefix, names, out)
  for _, name in ipairs(names) do
    local pat = "\n" .. prefix .. name
    local pos = 1
    while true do
      local s = text:find(pat, pos, true)
      if not s then break end
      local e = text:find("\n", s + 1, true) or #text + 1
      local c = text:sub(s + #pat, s + #pat)
      if c == "{" or c == " " then out[#out + 1] = text:sub(s + 1, e - 1) end
      pos = e
    end
  end
  return out
end
local function timeline_lines(text)
  local out = find_lines(text, "# TYPE ", TYPED, {})
  return table.concat(find_lines(text, "", TIMELINE, out), "\n") .. "\n"
end

-- A collector of per-scrape values: on_scrape for prom_files.read_raw_dir (scrapes in time
-- order), then finish(failed) (read_raw_dir's info.failed) -> points, left_out, where
-- points = { {t = seconds since the first round, pods = how many pods the point covers,
-- usage_pct = mean over those pods' engines, each vllm:kv_cache_usage_perc series once, so a
-- data-parallel rank counts as much as a pod (nil when none said), hit_rate_pct = prefix-cache hits /
-- queries since the previous point, summed over pods (nil without queries, or when a pod of
-- the point has no earlier scrape)}, ... } and left_out = the rounds not shown.
-- A round is the scrapes of one pass over the pods: a new one starts when a scrape comes
-- half the usual interval (the median gap between a pod's scrapes) after the round's
-- first, or when its pod is already in the round. A round that lacks a pod then running
-- (one scraped, or whose scrape failed, within an interval before and after it: a failed
-- scrape, or pods scraped more than half an interval apart) is no mean over the pods: it
-- is left out, and its counts go to the next point shown.
-- The counters' increases come from an llmd.prom aggregator of their own, fed the same
-- scrapes as the totals: one reset rule (a drop, or a moved _created) for both, and the
-- increases over the timeline's points add up to the totals.
function M.timeline_collector()
  local prom = require "llmd.prom"
  local counters = prom.aggregator { match = { HITS, QUERIES, HITS_CREATED, QUERIES_CREATED, OLD_HITS, OLD_QUERIES,
    OLD_HITS_CREATED, OLD_QUERIES_CREATED }, tolerant = true }
  local scrapes, last_t, gaps = {}, {}, {}
  local hits_sofar, queries_sofar = 0, 0
  local c = {}
  function c.on_scrape(pod, t, text, path)
    local s = { pod = pod, t = t, usage = 0, nusage = 0, prev = last_t[pod] ~= nil }
    local old_usage, old_n = 0, 0
    if last_t[pod] and t > last_t[pod] then gaps[#gaps + 1] = t - last_t[pod] end
    last_t[pod] = t
    local lines = timeline_lines(text)
    for _, smp in ipairs(prom.parse(lines, { tolerant = true, name = path })) do
      local v = smp.value
      if v == v and v ~= math.huge and v ~= -math.huge then
        if smp.name == USAGE then
          s.usage, s.nusage = s.usage + v * 100, s.nusage + 1
        elseif smp.name == OLD_USAGE then
          old_usage, old_n = old_usage + v * 100, old_n + 1
        end
      end
    end
    if s.nusage == 0 then s.usage, s.nusage = old_usage, old_n end -- (the older name, where the v1 one is not)
    counters:add(pod, lines, t, path)
    local have = {}
    for _, n in ipairs(counters:names()) do have[n] = true end
    local hn, qn = M.prefix_names(have)
    local h, q = hn and counters:counter_total(hn) or 0, qn and counters:counter_total(qn) or 0
    s.dh, s.dq = h - hits_sofar, q - queries_sofar
    hits_sofar, queries_sofar = h, q
    scrapes[#scrapes + 1] = s
  end
  function c.finish(failed)
    table.sort(gaps)
    local gap = #gaps > 0 and gaps[(#gaps + 1) // 2] or 0
    local half = gap > 0 and gap / 2 or math.huge
    local rounds, r = {}, nil
    for _, s in ipairs(scrapes) do
      if not r or s.t - r.first >= half or r.pods[s.pod] then
        r = { first = s.t, tsum = 0, n = 0, usage = 0, nusage = 0, dh = 0, dq = 0, pods = {}, all_prev = true }
        rounds[#rounds + 1] = r
      end
      r.pods[s.pod] = true
      r.tsum, r.n = r.tsum + s.t, r.n + 1
      r.usage, r.nusage = r.usage + s.usage, r.nusage + s.nusage
      r.dh, r.dq = r.dh + s.dh, r.dq + s.dq
      r.all_prev = r.all_prev and s.prev
    end
    -- each pod's first and last scrape, failed ones included: it runs from an interval
    -- before the first to an interval after the last
    local span = {}
    local function extend(pod, t)
      local sp = span[pod]
      if sp then sp[1], sp[2] = math.min(sp[1], t), math.max(sp[2], t) else span[pod] = { t, t } end
    end
    for _, s in ipairs(scrapes) do extend(s.pod, s.t) end
    for _, f in ipairs(failed or {}) do extend(f.pod, f.t) end
    local out, t0, dh, dq, left = json.array {}, nil, 0, 0, 0
    for _, x in ipairs(rounds) do
      local t = x.tsum / x.n
      t0 = t0 or t
      local whole = true
      for pod, sp in pairs(span) do
        if not x.pods[pod] and ((t >= sp[1] and t <= sp[2]) or (t > sp[1] - gap and t < sp[2] + gap)) then
          whole = false
        end
      end
      dh, dq = dh + x.dh, dq + x.dq
      if whole then
        local rate = x.all_prev and dq > 0 and dh / dq * 100 or nil
        out[#out + 1] = {
          t = t - t0, pods = x.n,
          usage_pct = x.nusage > 0 and x.usage / x.nusage or nil,
          hit_rate_pct = rate and rate == rate and rate ~= math.huge and rate ~= -math.huge and rate or nil,
        }
        dh, dq = 0, 0
      else
        left = left + 1
      end
    end
    return out, left
  end
  return c
end

-- inference-perf's *_prometheus_metrics.json (its Prometheus-query summaries) in root or
-- the run's folder: they hold no vLLM counter, only a prefix_cache_hit_percent mean per
-- stage. Why the prefix-cache figures are unknown beside them, or nil when there are none.
-- A file that cannot be read as JSON is the reader's error (file:line:col), or with
-- opts.tolerant left out with a warning in the run's data checks (llmd.runmodel.tolerate):
-- never read as zeros. "0 in every file" only when every file read holds both means, 0.
local NO_COUNTERS_FROM = "the counters come from metrics/raw/*_metrics.log or metrics/processed/metrics_summary.json, "
  .. "which the results lack"
local function prometheus_summaries(g, root, dir, run, opts)
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
  local rm = require "llmd.runmodel"
  local lo, hi, nonzero, zeros, left = math.huge, -math.huge, false, 0, 0
  for _, f in ipairs(files) do
    local ok, d = rm.tolerate(run or { warnings = {} }, opts, f, json.read, f)
    if not ok then left = left + 1 end
    local succ = type(d) == "table" and type(d.successes) == "table" and d.successes or {}
    local function mean(k)
      local b = succ[k]
      return type(b) == "table" and type(b.mean) == "number" and b.mean or nil
    end
    local hp, use = mean("prefix_cache_hit_percent"), mean("kv_cache_usage_percentage")
    if hp then lo, hi = math.min(lo, hp), math.max(hi, hp) end
    if (hp and hp ~= 0) or (use and use ~= 0) then nonzero = true end
    if hp == 0 and use == 0 then zeros = zeros + 1 end
  end
  local what = ("%d *_prometheus_metrics.json file%s in the results, inference-perf's Prometheus-query summaries "
    .. "such as %s, hold no vLLM prefix-cache counters"):format(#files, #files == 1 and "" or "s",
      files[1]:match("[^/]+$"))
  if left > 0 then
    what = what .. (" (%d left out, --tolerant: unreadable, see Data checks)"):format(left)
  end
  local read = #files - left
  if read > 0 and not nonzero and zeros == read then
    return what .. (", and their prefix_cache_hit_percent and kv_cache_usage_percentage are 0 in every file%s, so "
      .. "they say nothing of the cache either; "):format(left > 0 and " read" or "") .. NO_COUNTERS_FROM
  end
  if lo > hi then
    return what .. (read > 0 and ", and none of them holds a prefix_cache_hit_percent mean either; " or "; ")
      .. NO_COUNTERS_FROM
  end
  local range = lo == hi and ("%.4g %%"):format(lo) or ("%.4g to %.4g %%"):format(lo, hi)
  return what .. (", only a prefix_cache_hit_percent mean per file, %s, an estimate not read as hits and "
    .. "queries; "):format(range) .. NO_COUNTERS_FROM
end

-- Which of the scrapes' vLLM pods (those with any vllm:* series) lack every series of names (one
-- counter family, summed over pods: its total is the other pods' alone). A pod lacking it whose
-- vllm:request_success_total rose (it finished requests), or that has no such counter either
-- (whether it served any is not known), makes the run's total unknown: {unknown = why}; one
-- whose requests counter did not rise served nothing and is left out: {note = what}. nil where
-- every vLLM pod has the family, or none has it (the caller says why then). audit52 F3: pod p2
-- without prefix-cache counters served half of B's requests; B's totals were p1's alone, its hit
-- rate 50.0 % "higher in B", its cached tokens per request p1's hits over both pods' requests.
function M.pods_lacking(agg, names)
  local has, pods = {}, {}
  for _, n in ipairs(agg:names()) do
    for _, s in ipairs(agg:series(n)) do
      if not pods[s.pod] then pods[s.pod], pods[#pods + 1] = true, s.pod end
    end
  end
  local any = false
  for _, n in ipairs(names) do
    for _, s in ipairs(agg:names()) do
      if s == n then
        for _, x in ipairs(agg:series(n)) do has[x.pod], any = true, true end
      end
    end
  end
  if not any then return nil end
  table.sort(pods)
  local served = {}
  for _, s in ipairs(agg:names()) do
    if s == SUCCESS then served = agg:counter_total(SUCCESS, { by = { "pod" } }) or {} end
  end
  local busy, why, idle = {}, {}, {}
  for _, pod in ipairs(pods) do
    if not has[pod] then
      local n = served[pod]
      if n == 0 then
        idle[#idle + 1] = pod
      else
        busy[#busy + 1] = pod
        why[#why + 1] = n and ("%s finished %s requests by its %s"):format(pod, require("llmd.template").helpers.num(n),
          SUCCESS) or ("%s has no %s either, so whether it served requests is unknown"):format(pod, SUCCESS)
      end
    end
  end
  local what = table.concat(names, " / ")
  local out = {}
  if #busy > 0 then
    out.unknown = ("%s %s %s no %s, and %s: the run's total is unknown, as the other pods' counters hold only their "
      .. "part"):format(#busy > 1 and "pods" or "pod", table.concat(busy, ", "), #busy > 1 and "have" or "has", what,
      table.concat(why, "; "))
  end
  if #idle > 0 then
    out.note = ("%s %s %s no %s and finished no request, its %s not rising: left out of %s total"):format(
      #idle > 1 and "pods" or "pod", table.concat(idle, ", "), #idle > 1 and "have" or "has", what, SUCCESS,
      #names > 1 and "their" or "its")
  end
  return (out.unknown or out.note) and out or {}
end

-- Which part of the scrape window each pod's counters cover, and how often they restarted: a
-- counter missing from a pod's first or last scrapes (they failed, or the pod was not scraped
-- then, or its scrapes lacked the counter) gives an increase over a shorter window than the
-- other pods', a delta short by whatever it counted outside it. agg: the aggregator; names: the
-- counters the totals read; files: every scrape file, failed ones too, { {pod =, t =, failed =}
-- }; start, finish: the first and last file's time. A series created inside the window (its
-- _created between the first scrape read and its own first sample: a pod started during the
-- run) counted from 0 there and covers the window's start. A pod's window is the latest start
-- and the earliest end of its series; it falls short where it starts or ends more than half
-- the usual interval (the median gap between a pod's files) inside the window, so a round whose
-- pods were scraped a few seconds apart is no gap. Returns { pods = { {pod =, from =, to =,
-- resets = (the most of any one of its series: a process restart resets every series at
-- once), start_gap =, end_gap =, before =, after = (why: what its files were outside its
-- window)} ... } in pod order, interval = }.
function M.counter_windows(agg, names, files, start, finish)
  local per, gaps, last = {}, {}, {}
  local sorted = {}
  for _, f in ipairs(files) do sorted[#sorted + 1] = f end
  table.sort(sorted, function(a, b) return a.t < b.t end)
  for _, f in ipairs(sorted) do
    if last[f.pod] and f.t > last[f.pod] then gaps[#gaps + 1] = f.t - last[f.pod] end
    last[f.pod] = f.t
  end
  table.sort(gaps)
  local interval = #gaps > 0 and gaps[(#gaps + 1) // 2] or 0
  local tol = interval / 2
  local t_min = agg:info().start
  local have = {}
  for _, n in ipairs(agg:names()) do have[n] = true end
  for _, n in ipairs(names) do
    for _, s in ipairs(have[n] and agg:series(n) or {}) do
      if s.samples > 0 then
        local p = per[s.pod]
        if not p then
          p = { pod = s.pod, from = -math.huge, to = math.huge, resets = 0 }
          per[s.pod] = p
        end
        local inside = s.created and t_min and s.created >= t_min and s.created <= s.first_t
        p.from = math.max(p.from, inside and start or s.first_t)
        p.to = math.min(p.to, s.last_t)
        p.resets = math.max(p.resets, s.resets)
      end
    end
  end
  local out = json.array {}
  for _, p in pairs(per) do
    p.start_gap = p.from > start + tol
    p.end_gap = p.to < finish - tol
    -- what the pod's files were where its counters are not: failed scrapes, scrapes without
    -- them, or no file at all (the pod not scraped then)
    local function why(lo, hi)
      local failed, plain = json.array {}, json.array {}
      for _, f in ipairs(sorted) do
        if f.pod == p.pod and f.t >= lo and f.t <= hi then
          local list = f.failed and failed or plain
          list[#list + 1] = f.t
        end
      end
      return { failed = failed, without = plain }
    end
    if p.start_gap then p.before = why(start, p.from - tol) end
    if p.end_gap then p.after = why(p.to + tol, finish) end
    out[#out + 1] = p
  end
  table.sort(out, function(a, b) return a.pod < b.pod end)
  return { pods = out, interval = interval }
end

-- The words for M.counter_windows's pods that fall short, seconds counted from start: a list
-- of "p2's only from +15 s to +60 s (its scrape at +0 s failed)" and the whole window's words
-- ("+0 s to +60 s"), or nil where none falls short.
local function window_words(w, start, finish)
  local num = require("llmd.template").helpers.num
  local function at(list)
    local x = {}
    for i, v in ipairs(list) do x[i] = "+" .. num(v - start) .. " s" end
    if #x <= 1 then return x[1] or "" end
    return table.concat(x, ", ", 1, #x - 1) .. " and " .. x[#x]
  end
  local function said(what, side)
    if #what.failed > 0 then
      return ("its scrape%s at %s failed"):format(#what.failed > 1 and "s" or "", at(what.failed))
    elseif #what.without > 0 then
      return ("its scrape%s at %s lacked the counters"):format(#what.without > 1 and "s" or "", at(what.without))
    end
    return side == "before" and "no scrape of it before then, and its counters were not created during the window"
      or "no scrape of it after then"
  end
  local out = {}
  for _, p in ipairs(w.pods) do
    if p.start_gap or p.end_gap then
      local why = {}
      if p.start_gap then why[#why + 1] = said(p.before, "before") end
      if p.end_gap then why[#why + 1] = said(p.after, "after") end
      out[#out + 1] = ("%s's only from +%s s to +%s s (%s)"):format(p.pod, num(p.from - start), num(p.to - start),
        table.concat(why, "; "))
    end
  end
  if #out == 0 then return nil end
  return out, ("+0 s to +%s s"):format(num(finish - start))
end

-- M.pods_lacking's rule on llm-d-benchmark's processed summary (prom_files.read_metrics_summary,
-- read from path), for a run without raw scrapes: its "sum of max" of a counter family is the sum
-- over the pods that have it, so a vLLM pod (one with any vllm:* metric) lacking every metric of
-- names makes it unknown, unless that pod's vllm:request_success_total is 0 in every scrape (its
-- largest value, pooled over finished_reason, 0: it finished no request, and is left out, said).
-- The summary keeps no increase: a largest value above 0 says the pod finished requests at some
-- time, and that is enough to make the sum the other pods' part. nil where every vLLM pod has the
-- family or none has it, else {unknown =, note =} as M.pods_lacking's.
function M.summary_pods_lacking(summary, names, path)
  local pods, has, any, lacking_of = {}, {}, false, {}
  for pod, metrics in pairs(summary.pods or {}) do
    local vllm = false
    for m in pairs(metrics) do
      if m:match("^vllm:") then vllm = true end
    end
    if vllm then pods[#pods + 1] = pod end
    -- (a pod lacking one of the pair has the pair's ratio wrong as much as one lacking both)
    local lacks = {}
    for _, n in ipairs(names) do
      if metrics[n] then any = true else lacks[#lacks + 1] = n end
    end
    has[pod] = #lacks == 0 or nil
    lacking_of[pod] = table.concat(lacks, " / ")
  end
  if not any then return nil end
  table.sort(pods)
  local num = require("llmd.template").helpers.num
  local busy, idle = {}, {}
  for _, pod in ipairs(pods) do
    if not has[pod] then
      local st = summary.pods[pod][SUCCESS]
      local n = type(st) == "table" and type(st.max) == "number" and st.max or nil
      if n == 0 then
        idle[#idle + 1] = pod
      else
        busy[#busy + 1] = ("%s has no %s, and %s"):format(pod, lacking_of[pod], n
          and ("finished requests, its %s reaching %s"):format(SUCCESS, num(n))
          or ("no %s either, so whether it served requests is unknown"):format(SUCCESS))
      end
    end
  end
  local out = {}
  if #busy > 0 then
    out.unknown = ("in %s, %s %s: a sum over the pods is the other pods' part alone, so it is unknown"):format(path,
      #busy > 1 and "pods" or "pod", table.concat(busy, "; "))
  end
  if #idle > 0 then
    out.note = ("in %s, %s %s %s no %s and finished no request, its %s 0 in every scrape: left out of the summary's "
      .. "sum"):format(path, #idle > 1 and "pods" or "pod", table.concat(idle, ", "), #idle > 1 and "have" or "has",
      table.concat(names, " / "), SUCCESS)
  end
  return (out.unknown or out.note) and out or {}
end

-- opts: tolerant (a malformed *_prometheus_metrics.json left out with a warning in run's
-- data checks, not an error).
function M.analyze(root, run, opts)
  local kv = { available = false }
  root = root:gsub("(.)/+$", "%1")
  local g = guard(root)
  local logs, logs_why = M.read_logs(root, g)
  kv.size, kv.size_why = M.cache_sizes(root, g, logs, logs_why)
  -- the model the server names, where the results may not (llmd.decision.model_of reads it)
  for k, v in pairs(M.model_sources(root, g, logs, logs_why)) do kv[k] = v end
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
  local raw_prefix_unknown
  if raw then
    local tl = M.timeline_collector()
    local files = {}
    local agg, info = pf.read_raw_dir(raw, { match = { "vllm:*" }, on_scrape = function(pod, t, text, path)
      files[#files + 1] = { pod = pod, t = t }
      tl.on_scrape(pod, t, text, path)
    end, readable = function(path) return g.file(path) end })
    for _, f in ipairs(info.failed) do files[#files + 1] = { pod = f.pod, t = f.t, failed = true } end
    local left
    kv.timeline, left = tl.finish(info.failed)
    local count = require("llmd.template").helpers.count
    kv.source = ("%s of %s in %s"):format(count(info.scrapes, "scrape"), count(#info.pods, "pod"), raw)
    kv.window = { start = info.start, finish = info.finish }
    kv.failed_scrapes = #info.failed
    kv.notes = json.array {}
    if #info.failed > 0 then
      kv.failed_pods = failed_by_pod(info.failed)
      kv.notes[#kv.notes + 1] = failed_text(info, kv.failed_pods)
    end
    if left > 0 then
      kv.timeline_left_out = left
      kv.timeline_note = ("%d of %d rounds of scrapes are left out of the timeline: each lacks a pod then running "
        .. "(a failed scrape, or pods scraped more than half an interval apart), so it is no mean over the pods; "
        .. "their counts go to the next point shown"):format(left, left + #kv.timeline)
    end
    -- each counter on its own: the prefix-cache pair (v1 names, else the older ones) and
    -- the preemptions, each N/A for its own reason where the scrapes lack it
    local have = {}
    for _, n in ipairs(agg:names()) do have[n] = true end
    local hits_name, queries_name = M.prefix_names(have)
    kv.counter_names = hits_name and { hits = hits_name, queries = queries_name } or nil
    -- a family summed over pods that some vLLM pod lacks: its total is the others' alone, so
    -- it is unknown where that pod served requests (M.pods_lacking)
    local prefix_gap = hits_name and M.pods_lacking(agg, { hits_name, queries_name })
    local preempt_gap = have[PREEMPTIONS] and M.pods_lacking(agg, { PREEMPTIONS })
    local success_gap = have[SUCCESS] and M.pods_lacking(agg, { SUCCESS })
    kv.notes = kv.notes or json.array {}
    for _, gap in ipairs { prefix_gap or {}, preempt_gap or {}, success_gap or {} } do
      if gap.note then kv.notes[#kv.notes + 1] = gap.note end
    end
    if prefix_gap and prefix_gap.unknown then
      raw_prefix_unknown = prefix_gap.unknown
      -- (the timeline's hit rates sum the same counters over the pods: the other pods' alone)
      for _, pt in ipairs(kv.timeline or {}) do pt.hit_rate_pct = nil end
      local why = "no prefix-cache hit rate over time: " .. prefix_gap.unknown
      kv.timeline_note = kv.timeline_note and (kv.timeline_note .. "; " .. why) or why
    end
    if hits_name and not prefix_gap.unknown then
      kv.hits = agg:counter_total(hits_name)
      kv.queries = agg:counter_total(queries_name)
    end
    local prefix = kv.hits ~= nil and kv.queries ~= nil
    kv.preemptions = have[PREEMPTIONS] and not preempt_gap.unknown and agg:counter_total(PREEMPTIONS) or nil
    if prefix or kv.preemptions ~= nil or hits_name or have[PREEMPTIONS] then
      kv.available = true
      -- why a figure is missing, for the report's N/A cells
      kv.na = {}
      if prefix_gap and prefix_gap.unknown then
        for _, f in ipairs { "hits", "queries", "misses", "hit_rate_pct", "misses_per_request", "hits_per_request",
          "cached_share_pct" } do
          kv.na[f] = prefix_gap.unknown
        end
      elseif prefix then
        kv.misses = kv.queries - kv.hits
        kv.hit_rate_pct = kv.queries > 0 and kv.hits / kv.queries * 100 or nil
        kv.misses_per_request = ok_requests and ok_requests > 0 and kv.misses / ok_requests or nil
        kv.hits_per_request = ok_requests and ok_requests > 0 and kv.hits / ok_requests or nil
        kv.cached_share_pct = input_tokens and input_tokens > 0 and kv.hits / input_tokens * 100 or nil
        if not kv.hit_rate_pct then kv.na.hit_rate_pct = "no prefix-cache queries in the scrapes" end
        if not (ok_requests and ok_requests > 0) then
          local why = "no completed request counted in the results"
          kv.na.misses_per_request, kv.na.hits_per_request = why, why
        end
        if not kv.cached_share_pct then kv.na.cached_share_pct = "the run's input token count is unknown" end
      else
        local why = ("the scrapes have no prefix-cache counters (%s / %s, or the older %s / %s)"):format(HITS,
          QUERIES, OLD_HITS, OLD_QUERIES)
        for _, f in ipairs { "hits", "queries", "misses", "hit_rate_pct", "misses_per_request", "hits_per_request",
          "cached_share_pct" } do
          kv.na[f] = why
        end
      end
      kv.warnings, kv.checks = json.array {}, json.array {}
      -- preemptions: the counter's increase over the scrapes (the hits' reset rule), and per
      -- 1,000 completed requests; unknown (never 0) where the scrapes lack the counter
      if preempt_gap and preempt_gap.unknown then
        kv.na.preemptions, kv.na.preemptions_per_1k = preempt_gap.unknown, preempt_gap.unknown
      elseif kv.preemptions == nil then
        kv.na.preemptions = ("the scrapes have no %s"):format(PREEMPTIONS)
        kv.na.preemptions_per_1k = kv.na.preemptions
      elseif ok_requests and ok_requests > 0 then
        kv.preemptions_per_1k = kv.preemptions / ok_requests * 1000
      else
        kv.na.preemptions_per_1k = "no completed request counted in the results"
      end
      local function drop_per_request(why)
        if prefix then
          kv.cached_share_pct, kv.hits_per_request, kv.misses_per_request = nil, nil, nil
          kv.na.cached_share_pct, kv.na.hits_per_request, kv.na.misses_per_request = why, why, why
        end
        if kv.preemptions_per_1k then kv.preemptions_per_1k, kv.na.preemptions_per_1k = nil, why end
      end
      kv.vllm_requests = not (success_gap and success_gap.unknown) and agg:counter_total(SUCCESS) or nil
      local cover = ok_requests and ok_requests > 0 and M.coverage(kv.vllm_requests, run.overall.values,
        info.finish - info.start)
      if cover and success_gap and success_gap.unknown then
        cover.na = ("unchecked: %s"):format(success_gap.unknown)
      end
      if cover then
        -- the counters and the harness's counts describe different traffic: a per-request
        -- figure would divide one by the other
        if cover.text then
          kv.warnings[#kv.warnings + 1] = cover.text
          kv.checks[#kv.checks + 1] = { key = "kv_requests", kind = "scrape_coverage", computed = kv.vllm_requests,
            reported = ok_requests, source = "vLLM's " .. SUCCESS, text = cover.text }
        end
        drop_per_request(cover.na)
        kv.scope = cover.scope
      elseif kv.cached_share_pct and kv.cached_share_pct > 100 then
        -- more cached tokens than the run sent: the scrapes saw traffic that was not this run's
        kv.warnings[#kv.warnings + 1] = ("the scrapes count %d cache hits but the run sent %d input tokens: "
          .. "they include other traffic, so per-request figures are not shown"):format(kv.hits, input_tokens)
        drop_per_request("other traffic in the scrapes, see below")
        local num = require("llmd.template").helpers.num
        kv.scope = ("includes other traffic: %s tokens of cache hits against %s input tokens sent"):format(
          num(kv.hits), num(input_tokens))
      end
      -- each pod's counters over the window (M.counter_windows): a restart is said with how the
      -- totals take it; a pod whose counters miss the window's start or end makes the totals
      -- short by what it counted there, which only vLLM's own request count can bound
      local used = json.array {}
      for _, n in ipairs { hits_name, queries_name, PREEMPTIONS, SUCCESS } do
        if n and have[n] then used[#used + 1] = n end
      end
      local win = M.counter_windows(agg, used, files, info.start, info.finish)
      local H = require("llmd.template").helpers
      local restarted, longest = {}, 0
      for _, p in ipairs(win.pods) do
        if p.resets > 0 then
          restarted[#restarted + 1] = ("%s (%s)"):format(p.pod, H.count(p.resets, "restart"))
          -- (a restart may fall anywhere between two scrapes read: the longest such gap of the pod's)
          local prev
          for _, f in ipairs(files) do
            if f.pod == p.pod and not f.failed then
              if prev then longest = math.max(longest, f.t - prev) end
              prev = f.t
            end
          end
        end
      end
      kv.counter_windows = win.pods
      if #restarted > 0 then
        kv.notes[#kv.notes + 1] = ("vLLM's counters restarted during the scrapes (a value fell, or its _created time "
          .. "moved: the process restarted) on %s %s: each total adds a counter's increase before a restart to what it "
          .. "counted from 0 after it, as Prometheus' increase() does; what it counted between its last scrape before "
          .. "a restart and the restart is in no scrape, so the totals may miss up to %s s of that pod's counts (the "
          .. "longest gap between its scrapes read)"):format(#restarted > 1 and "pods" or "pod",
          table.concat(restarted, ", "), H.num(longest))
      end
      local short, whole = window_words(win, info.start, info.finish)
      if short then
        local which = ("%s counters cover only part of the scrapes' %s, %s: what %s counted outside that is in no "
          .. "total"):format(#short > 1 and "some pods'" or "a pod's", whole, table.concat(short, "; "),
          #short > 1 and "they" or "it")
        kv.short_window = which
        if ok_requests and ok_requests > 0 and kv.vllm_requests and not cover then
          -- vLLM's own count of finished requests over the same scrapes still has the run's
          -- (within M.COVERAGE_TOL): the part outside held next to nothing of it
          kv.notes[#kv.notes + 1] = ("%s, but vLLM's %s over the scrapes (%s) counts the harness's %s completed "
            .. "requests (within %s %%), so the figures stand for the run"):format(which, SUCCESS,
            H.num(kv.vllm_requests), H.num(ok_requests), H.num(M.COVERAGE_TOL * 100))
        else
          -- nothing bounds what is missing: the figures are said to be of the window they cover,
          -- no rate compares the runs on them, and no per-request figure divides them
          kv.warnings[#kv.warnings + 1] = which .. ", and nothing here bounds how much that is (vLLM's "
            .. SUCCESS .. " against the harness's completed requests " .. (cover and cover.text and "is off, see above"
              or "cannot be checked") .. "), so the totals and the rates are those of the window covered"
          drop_per_request((#short > 1 and "some pods'" or "a pod's") .. " counters cover only part of the scrapes, "
            .. "see below")
          kv.scope = kv.scope or ("covers part of the scrapes: %s"):format(table.concat(short, "; "))
        end
      end
      -- (llm-d-benchmark's process_metrics.py pools a pod's label sets before it takes the
      -- largest value: a pod's data-parallel engines give one largest value, not one each)
      local function sum_of_max(name)
        local per = {}
        for _, x in ipairs(agg:series(name)) do
          if x.max then per[x.pod] = math.max(per[x.pod] or x.max, x.max) end
        end
        local sum = 0
        for _, v in pairs(per) do sum = sum + v end
        return sum
      end
      kv.sum_of_max = prefix and { hits = sum_of_max(hits_name), queries = sum_of_max(queries_name), source = "raw" }
        or nil
      if kv.sum_of_max then
        local n, several = {}, 0
        for _, x in ipairs(agg:series(hits_name)) do
          n[x.pod] = (n[x.pod] or 0) + 1
          if n[x.pod] == 2 then several = several + 1 end
        end
        kv.sum_of_max.pooled_pods = several
      end
      -- what makes it differ from the increase: counts from before the first scrape (in
      -- it), restarts (a largest value misses what came before one)
      local before, resets = 0, 0
      local t_min = agg:info().start
      for _, s in ipairs(prefix and agg:series(hits_name) or {}) do
        resets = resets + s.resets
        -- a counter created inside the window counted its first value there (the increase's
        -- rule, llmd.prom: created from the first scrape read up to its own first sample)
        if s.first and not (s.created and s.created >= t_min and s.created <= s.first_t) then
          before = before + s.first
        end
      end
      if kv.sum_of_max then kv.sum_of_max.hits_before, kv.sum_of_max.resets = before, resets end
      local u = (have[USAGE] or have[OLD_USAGE]) and agg:gauge_summary(have[USAGE] and USAGE or OLD_USAGE)
      if u and u.count > 0 then
        kv.usage = { mean = u.mean * 100, p90 = u.p90 * 100, max = u.max * 100 }
      end
    elseif info.scrapes == 0 and #info.failed > 0 then
      -- no scrape was read at all: what the files were, not "no such metric"
      kv.reason = ("every scrape in %s failed (%s of %s: %s)"):format(raw, #info.failed, #info.failed,
        failed_kinds(info.failed))
    else
      kv.reason = ("the scrapes in %s have no prefix-cache counters (%s / %s, or the older %s / %s) and no %s")
        :format(raw, HITS, QUERIES, OLD_HITS, OLD_QUERIES, PREEMPTIONS)
    end
  end
  if summary then
    -- the summary's pair (v1 names where a pod has them, else the older), each summed over the
    -- pods that have it: unknown where a vLLM pod lacks it and finished requests (as the raw
    -- scrapes' rule, M.pods_lacking), and so is the time-averaged hit rate, pooled over the
    -- same pods' per-scrape ratios; unknown too where the raw scrapes found the pair unknown
    local shave = {}
    for _, metrics in pairs(summary.pods) do
      for m in pairs(metrics) do shave[m] = true end
    end
    local sh_name, sq_name = M.prefix_names(shave)
    local sgap = sh_name and M.summary_pods_lacking(summary, { sh_name, sq_name }, summary_path)
    if sgap and sgap.note then
      kv.notes = kv.notes or json.array {}
      kv.notes[#kv.notes + 1] = sgap.note
    end
    local unknown = raw_prefix_unknown or sgap and sgap.unknown
    local agg = summary.aggregated or {}
    local hr = agg["vllm:prefix_cache_hit_rate"] or agg["vllm:gpu_prefix_cache_hit_rate"] -- (v1 name, else the older)
    if unknown then
      kv.time_avg_why = "no time-averaged hit rate: " .. unknown
    elseif hr then
      kv.time_avg = { mean = hr.mean, p90 = hr.p90, p95 = hr.p95, source = summary_path }
    else
      kv.time_avg_why = ("%s has no vllm:prefix_cache_hit_rate aggregate"):format(summary_path)
    end
    local sm = summary.sum_of_max
    local sh, sq = sh_name and sm[sh_name], sq_name and sm[sq_name]
    if unknown then sh, sq = nil, nil end
    if unknown and not raw_prefix_unknown then
      -- (said once, under the table: the raw scrapes' own reason is on their rows)
      kv.notes = kv.notes or json.array {}
      kv.notes[#kv.notes + 1] = "the processed summary's \"sum of max\" and time-averaged hit rate are not shown: "
        .. unknown
    end
    if not kv.sum_of_max and sh then
      kv.sum_of_max = { hits = sh, queries = sq, source = summary_path }
    elseif kv.sum_of_max then
      -- the summary is there too: its own figure (pooled its own way) is said beside
      kv.sum_of_max.summary = summary_path
      kv.sum_of_max.summary_hits, kv.sum_of_max.summary_queries = sh, sq
      kv.sum_of_max.summary_why = unknown
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
    kv.reason = prometheus_summaries(g, root, run and run.dir, run, opts)
      or "no vLLM metrics in the results (metrics/raw/*_metrics.log or metrics/processed/metrics_summary.json)"
  end
  table.sort(g.left_out)
  kv.left_out = g.left_out
  return kv
end

-- The model the server says it served (for llmd.decision.model_of, after what the results and
-- the info file name): the model_name label of vLLM's scrapes (M.scrape_models), else the
-- start-up line of its pod logs (M.log_model). {name =, source =}, or {several = {names}, source
-- =, why =} where they name more than one (which one the requests reached is not known: none is
-- picked), or nil where neither names any. kv: M.analyze's.
function M.served_model(kv)
  local count = require("llmd.template").helpers.count
  local sm, lm = kv.scrape_models, kv.log_models
  local names, parts, source, what = {}, {}, nil, nil
  if type(sm) == "table" and #sm > 0 then
    local dir = kv.scrape_dir or "metrics/raw"
    source = ("the model_name label of vLLM's metrics in %s"):format(dir)
    what = source .. " names"
    for _, e in ipairs(sm) do
      names[#names + 1] = e.model
      parts[#parts + 1] = ("%s on %s %s"):format(e.model, #e.pods == 1 and "pod" or "pods", table.concat(e.pods, ", "))
    end
  elseif type(lm) == "table" and #lm > 0 then
    local dir = kv.log_dir or "logs"
    source = ("vLLM's start-up arguments in %s/%s%s"):format(dir, lm[1].file,
      #lm > 1 and (" and %s more"):format(count(#lm - 1, "log")) or "")
    what = ("vLLM's start-up arguments in %s name"):format(dir)
    local pods_of = {}
    for _, e in ipairs(lm) do
      if not pods_of[e.model] then
        pods_of[e.model] = {}
        names[#names + 1] = e.model
      end
      table.insert(pods_of[e.model], e.file)
    end
    table.sort(names)
    for _, m in ipairs(names) do
      parts[#parts + 1] = ("%s in %s"):format(m, table.concat(pods_of[m], ", "))
    end
  end
  if #names == 0 then return nil end
  -- every name the server answers to, by where it was read (the scrapes, then each set of logs
  -- giving the same names: a served name and the model's path or hub id), for
  -- llmd.decision.check_served_model: { {where =, names = {...}}, ... }
  local answers = json.array {}
  if type(sm) == "table" and #sm > 0 then
    local all = {}
    for _, e in ipairs(sm) do all[#all + 1] = e.model end
    answers[1] = { where = ("the model_name label of vLLM's metrics in %s"):format(kv.scrape_dir or "metrics/raw"),
      names = json.array(all) }
  end
  local by_names = {}
  for _, e in ipairs(type(lm) == "table" and lm or {}) do
    local ns = type(e.names) == "table" and e.names or { e.model }
    local key = table.concat(ns, "\0")
    local a = by_names[key]
    if not a then
      a = { files = {}, names = json.array(ns) }
      by_names[key] = a
      answers[#answers + 1] = a
    end
    a.files[#a.files + 1] = (kv.log_dir or "logs") .. "/" .. e.file
  end
  for _, a in ipairs(answers) do
    if a.files then
      a.where = ("vLLM's start-up arguments in %s"):format(table.concat(a.files, ", "))
      a.files = nil
    end
  end
  if #names == 1 then return { name = names[1], source = source, answers = answers } end
  return { several = json.array(names), source = source, answers = answers,
    why = ("%s %d models, %s and %s, and which one the benchmark's requests reached is not known"):format(what,
      #names, table.concat(parts, ", ", 1, #parts - 1), parts[#parts]) }
end

-- The prefix-cache figures the KV analysis found, into the run's overall metrics (so
-- run_state.json and run_model.json say what the report's KV section says); without
-- data, the analysis's reason.
function M.put(run, kv)
  local rm = require "llmd.runmodel"
  -- (and the model the server names: llmd.decision.model_of reads it after the results' own;
  -- one the results' model is not among is a data check, llmd.decision.check_served_model)
  run.served_model = M.served_model(kv)
  require("llmd.decision").check_served_model(run)
  -- what the analysis did not read is said, once (llmd.harness names the links it saw)
  local said = {}
  for _, w in ipairs(run.warnings or {}) do said[w] = true end
  for _, l in ipairs(kv.left_out or {}) do
    local w = "KV cache analysis: " .. l
    if not said[l] and not said[w] then rm.warn(run, "%s", w) end
  end
  -- the scrapes and the harness's counts disagree: a data check (the run is "warnings")
  for _, c in ipairs(kv.checks or {}) do
    local w = "KV cache analysis: " .. c.text
    if not said[w] then
      rm.warn(run, "%s", w)
      run.checks = run.checks or {}
      local chk = {}
      for k, v in pairs(c) do chk[k] = v end
      chk.text = w
      run.checks[#run.checks + 1] = chk
      if run.status == "ok" then run.status = "warnings" end
    end
  end
  local set = run.overall
  local keys = { "prefix_cache_hits", "prefix_cache_queries", "prefix_cache_hit_rate_pct" }
  if kv.available and (kv.hits == nil or kv.queries == nil) then
    -- (scrapes with the preemptions but no prefix-cache counters)
    for _, k in ipairs(keys) do
      if set.values[k] == nil then
        set.na[k] = "from vLLM's Prometheus counters: " .. tostring(kv.na and kv.na.hits or "no prefix-cache counters")
      end
    end
  elseif kv.available then
    -- (counters that count more, or less, than this run's requests: said with the figure)
    local src = "vLLM's Prometheus counters (" .. tostring(kv.source) .. ")" .. (kv.scope and ("; " .. kv.scope) or "")
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
