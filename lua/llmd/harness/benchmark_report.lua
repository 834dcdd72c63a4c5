-- llm-d-benchmark's Benchmark Report (BR), v0.1, v0.2 and v0.2.1, YAML or JSON: one
-- report per native result file, so one per load stage.
--
-- Only aggregates are in a BR, in the units its `units` field names (inference-perf
-- reports keep seconds, the others ms, guidellm's request_latency is in s). The converter
-- copies names, not meanings: a report made from guidellm has guidellm's ITL under
-- inter_token_latency (the catalogue's TPOT) and guidellm's TPOT under
-- time_per_output_token (the catalogue's NTPOT); they are mapped by meaning here.
local rm = require "llmd.runmodel"

local M = {
  name = "benchmark-report",
  percentile_method = "linear",
  -- what detect accepts (looks_like_br), as the "looked for" error lists it
  describe = "llm-d-benchmark's report v0.1 / v0.2 / v0.2.1: benchmark_report*.yaml, .yml or .json, or another "
    .. ".yaml, .yml or .json file whose first 64 KiB reads like one: a version with request_performance (v0.1) "
    .. "or, in YAML, metrics: and scenario: (v0.2), or one that opens with the results and whose whole top level "
    .. "has the version (keys sorted)",
}

local function num(v) return type(v) == "number" and v ~= math.huge and v or nil end

-- A rate field and the same rate from the report's counts and duration further apart than
-- this (relative) contradict each other (as llmd.runmodel.crosscheck's 1 %).
M.RATE_TOLERANCE = 0.01

-- 1131224 -> "1,131,224", 22637.19 -> "22,637.19", 10.0056 -> "10.006"
local function group(v)
  local s = math.abs(v) >= 100 and ("%.2f"):format(v) or ("%.3f"):format(v)
  s = s:gsub("%.?0+$", "")
  return require("llmd.metrics").group_thousands(s)
end
local function metrics_fmt_s(v) return (("%.3f"):format(v):gsub("%.?0+$", "")) end

local HEAD = 65536

-- The top-level keys of a report whose head does not reach them (keys re-sorted: results or
-- metrics first, megabytes of time series before scenario and version): {version = "0.2",
-- scenario = true}, read from the whole file: a YAML file's lines that start a top-level key,
-- a JSON file's top level by llmd.scan (which skips the values of the other keys).
local function whole_top(path)
  local top = {}
  if path:match("%.json$") then
    pcall(require("llmd.scan").json, path, {
      { "$.version", function(v) top.version = v end },
      { "$.scenario", function() top.scenario = true end, fields = { "stack" } },
    })
  else
    local f = io.open(path, "rb")
    if not f then return top end
    for line in f:lines() do
      local v = line:match("^version:%s*(.-)%s*$")
      if v then top.version = v:gsub("^['\"]", ""):gsub("['\"]$", "") end
      if line:match("^scenario:") then top.scenario = true end
    end
    f:close()
  end
  return top
end

local function looks_like_br(name, head, path)
  if name:match("^benchmark_report.*%.ya?ml$") or name:match("^benchmark_report.*%.json$") then return true end
  if not (name:match("%.ya?ml$") or name:match("%.json$")) or not head then return false end
  local has_version = head:find("\nversion:", 1, true) or head:find("^version:") or head:find('"version"%s*:%s*"0%.')
  local perf = head:find("request_performance", 1, true) ~= nil
  local v01 = head:find("\nmetrics:", 1, true) or head:find("^metrics:")
  if has_version then return perf or (v01 ~= nil and head:find("scenario:", 1, true) ~= nil) end
  -- a head of a whole 64 KiB that opens with the results (v0.2's request_performance, v0.1's
  -- metrics:) and holds no version: the keys re-sorted, told by the file's whole top level
  if #head < HEAD or not (perf or v01) or not path then return false end
  local top = whole_top(path)
  return type(top.version) == "string" and top.version:match("^0%.") ~= nil and (perf or top.scenario == true)
end

function M.detect(dir)
  local order = rm.group_files(dir, function(f) return looks_like_br(f.name, rm.peek(f.path, HEAD), f.path) end)
  -- a v0.2 report and the v0.1 one of the same native file: the v0.2 one
  for _, c in ipairs(order) do
    local v02 = {}
    for _, p in ipairs(c.files) do
      local native = p:match("benchmark_report_v0%.2[%.%d]*,_(.+)$")
      if native then v02[native] = true end
    end
    local kept = {}
    for _, p in ipairs(c.files) do
      local native = p:match("benchmark_report,_(.+)$")
      if not (native and v02[native]) then kept[#kept + 1] = p end
    end
    c.files = kept
  end
  return order
end

-- "PT49.97206788184121S", "PT1M30S", "PT1H" -> seconds
local function iso_duration(s)
  if type(s) == "number" then return s end
  if type(s) ~= "string" or not s:match("^PT") then return nil end
  local total, any = 0, false
  for v, unit in s:gmatch("(%d+%.?%d*)([HMS])") do
    any = true
    total = total + tonumber(v) * (unit == "H" and 3600 or unit == "M" and 60 or 1)
  end
  return any and total or nil
end

local TO_MS = { s = 1000, ["s/token"] = 1000, ms = 1, ["ms/token"] = 1 }

-- catalogue prefix <- BR latency key, for every tool but guidellm
local LAT = {
  ttft = "time_to_first_token", tpot = "time_per_output_token", itl = "inter_token_latency",
  ntpot = "normalized_time_per_output_token", latency = "request_latency",
}
-- a BR converted from guidellm: by meaning. Its inter_token_latency is guidellm's
-- token-weighted distribution: the mean is the pooled gap mean (itl_mean_ms), the
-- percentiles are token-weighted (itl_tw_*); its time_per_output_token has no catalogue key
local LAT_GUIDELLM = { ttft = "time_to_first_token", latency = "request_latency" }
local BR_PCTS = { { "mean", "mean" }, { "p50", "p50" }, { "p90", "p90" }, { "p95", "p95" }, { "p99", "p99" },
  { "p999", "p99p9" } }

local function map(set, br, path, stage_fallback)
  local v01 = br.version == "0.1" or br.version == 0.1
  local load = type(br.scenario) == "table" and type(br.scenario.load) == "table" and br.scenario.load or {}
  local std = type(load.standardized) == "table" and load.standardized or {}
  local tool = v01 and load.name or std.tool
  local agg
  if v01 then
    agg = type(br.metrics) == "table" and br.metrics or nil
  else
    local r = type(br.results) == "table" and br.results or {}
    agg = type(r.request_performance) == "table" and r.request_performance.aggregate or nil
  end
  if type(agg) ~= "table" then
    error(("%s: no %s (expected a benchmark report with aggregate results)")
      :format(path, v01 and "metrics" or "results.request_performance.aggregate"), 0)
  end
  local src = rm.SUMMARY .. " (benchmark report of " .. tostring(tool or "an unknown tool") .. ")"
  local method = tool == "guidellm" and "nearest" or "linear"
  local req = type(agg.requests) == "table" and agg.requests or {}
  local total, failures, inc = num(req.total), num(req.failures), num(req.incomplete)
  if not total or not failures then
    error(path .. ": requests.total and requests.failures must be numbers", 0)
  end
  local ok = total - failures - (inc or 0)
  rm.put(set, "requests_ok", ok, src .. ": total - failures - incomplete")
  rm.put(set, "requests_failed", failures, src)
  if inc then rm.put(set, "requests_incomplete", inc, src) end
  if ok + failures > 0 then rm.put(set, "error_rate_pct", failures / (ok + failures) * 100, src) end
  local lat = type(agg.latency) == "table" and agg.latency or {}
  for prefix, brkey in pairs(tool == "guidellm" and LAT_GUIDELLM or LAT) do
    local s = lat[brkey]
    for _, ww in ipairs(BR_PCTS) do
      local w, bw = ww[1], ww[2]
      local key = prefix .. "_" .. w .. "_ms"
      if require("llmd.metrics").has(key) then
        if type(s) ~= "table" then
          rm.unknown(set, key, ok == 0 and "no successful requests" or ("the report has no latency." .. brkey))
        else
          local scale = TO_MS[s.units]
          if not scale then
            error(("%s: latency.%s.units is %s; expected s, s/token, ms or ms/token")
              :format(path, brkey, tostring(s.units)), 0)
          end
          if num(s[bw]) then
            rm.put(set, key, s[bw] * scale, src .. ": latency." .. brkey, w ~= "mean" and method or nil)
          else
            rm.unknown(set, key, ("latency.%s has no %s"):format(brkey, bw))
          end
        end
      end
    end
  end
  -- NTPOT from inference-perf: its statistics are inference-perf's summary's (native_to_br0_2
  -- copies them), which count a success without output tokens as NTPOT 0; the same rule as a
  -- stage file read directly (llmd.harness.inference_perf.ntpot_zeros, on the statistic in
  -- inference-perf's own names and seconds): its min > 0 keeps the mean, else N/A with the bracket
  local nt = lat.normalized_time_per_output_token
  if tool == "inference-perf" and ok > 0 and type(nt) == "table" and set.values.ntpot_mean_ms then
    local to_s = TO_MS[nt.units] / 1000
    local sd = {}
    for k, v in pairs(nt) do
      if num(v) and k ~= "units" then
        local name = k == "p50" and "median" or k == "p0p1" and "p0.1" or k == "p99p9" and "p99.9" or k
        sd[name] = v * to_s
      end
    end
    local why, fine, bracket, exact = require("llmd.harness.inference_perf").ntpot_zeros(sd, ok)
    if exact then
      -- (exactly one 0 in it: the mean without it is the figure; the statistic as read kept
      -- for a report written again, set.ntpot_raw, see inference_perf)
      set.ntpot_raw = sd
      set.values.ntpot_mean_ms = exact
      set.source.ntpot_mean_ms = ("%s (%s)"):format(set.source.ntpot_mean_ms, fine)
    elseif why then
      set.values.ntpot_mean_ms, set.source.ntpot_mean_ms, set.method.ntpot_mean_ms = nil, nil, nil
      rm.unknown(set, "ntpot_mean_ms", why)
      rm.put_bounds(set, "ntpot_mean_ms", bracket)
      -- (the report has the statistic: no "stage lacks NTPOT" data check, llmd.harness)
      set.explained = set.explained or {}
      set.explained.ntpot = true
    else
      set.source.ntpot_mean_ms = ("%s (%s)"):format(set.source.ntpot_mean_ms, fine)
      set.ntpot_min_s = sd.min
    end
    -- (its percentiles by the same rule, fixf44)
    require("llmd.harness.inference_perf").ntpot_percentile_zeros(set, sd, ok)
  end
  if tool == "guidellm" then
    local gl = require "llmd.harness.guidellm"
    local s = lat.inter_token_latency
    local scale = type(s) == "table" and TO_MS[s.units]
    if type(s) == "table" and scale then
      if num(s.mean) then
        rm.put(set, "itl_mean_ms", s.mean * scale, src .. ": latency.inter_token_latency mean (guidellm's, "
          .. "weighted by output tokens - 1: the pooled gap mean)")
      end
      for _, ww in ipairs(BR_PCTS) do
        local key = "itl_tw_" .. ww[1] .. "_ms"
        if require("llmd.metrics").has(key) and num(s[ww[2]]) then
          rm.put(set, key, s[ww[2]] * scale, src .. ": latency.inter_token_latency (token-weighted)", method)
        end
      end
    end
    for _, m in ipairs(require("llmd.metrics").list) do
      if m.key:match("^tpot_") then rm.unknown(set, m.key, gl.NO_TPOT) end
      if m.key:match("^itl_p") then rm.unknown(set, m.key, gl.NO_ITL) end
    end
    rm.unknown_all(set, "ntpot", gl.NO_NTPOT)
  end
  rm.latency_all_from_summary(set, failures, inc, src, method)
  local dur
  if v01 then
    dur = type(agg.time) == "table" and num(agg.time.duration)
  else
    dur = type(br.run) == "table" and type(br.run.time) == "table" and iso_duration(br.run.time.duration)
  end
  if dur then rm.put(set, "duration_s", dur, src) end
  -- token totals from mean lengths: each converter averaged over a different population
  local inl, outl = req.input_length, req.output_length
  local in_n = (tool == "vllm-benchmark" or tool == "inferencemax") and total or ok
  local out_n = tool == "inferencemax" and total or ok
  local in_tok, out_tok
  if type(inl) == "table" and num(inl.mean) then
    in_tok = math.floor(inl.mean * in_n + 0.5)
    rm.put(set, "input_tokens_total", in_tok, src .. ": mean input length x requests")
  end
  if type(outl) == "table" and num(outl.mean) then
    out_tok = math.floor(outl.mean * out_n + 0.5)
    rm.put(set, "output_tokens_total", out_tok, src .. ": mean output length x requests")
  end
  -- The rates: the catalogue's (completed, or tokens, / the duration) where the report has
  -- the counts and run.time.duration; the file's own rate field where it has no duration.
  -- Both, and more than RATE_TOLERANCE apart: the file contradicts itself, the rate is N/A
  -- with both figures as the reason (and a data check, M.extract), never either one as if
  -- it were known.
  local tp = type(agg.throughput) == "table" and agg.throughput or {}
  local function rate(new, old)
    local v = tp[new]
    if type(v) == "table" then return num(v.mean) end
    return num(tp[old])
  end
  local dur_field = v01 and "metrics.time.duration" or "run.time.duration"
  local dur_text = dur and metrics_fmt_s(dur)
  local clashes = {}
  local function put_rate(key, field, old, count, count_text, unit)
    local reported = rate(field, old)
    local field_text = v01 and ("throughput." .. old) or ("throughput." .. field .. ".mean")
    local computed = dur and dur > 0 and count and count / dur or nil
    if computed and reported and math.abs(computed - reported) > M.RATE_TOLERANCE * math.max(computed, reported) then
      local why = ("%s is %s %s, but %s / %s = %s / %s s = %s %s: the file's rates cannot both be right")
        :format(field_text, group(reported), unit, count_text, dur_field, group(count), dur_text, group(computed), unit)
      rm.unknown(set, key, why)
      clashes[#clashes + 1] = { key = key, computed = computed, reported = reported, text = why,
        apart_pct = math.abs(computed - reported) / math.max(computed, reported) * 100 }
    elseif computed then
      rm.put(set, key, computed, src .. (": %s / %s"):format(count_text, dur_field))
    elseif reported then
      rm.put(set, key, reported, src .. ": " .. field_text)
    end
  end
  put_rate("throughput_req_s", "request_rate", "requests_per_sec", ok, "completed requests", "req/s")
  put_rate("throughput_tok_s", "output_token_rate", "output_tokens_per_sec", out_tok, "output tokens", "tok/s")
  put_rate("throughput_total_tok_s", "total_token_rate", "total_tokens_per_sec", in_tok and out_tok
    and in_tok + out_tok, "input + output tokens", "tok/s")
  -- Its requests' least latency as the report bounds it (request_latency's min, else its
  -- lowest percentile), for the drain-reduced rate (llmd.runmodel.drain_from_stats): from
  -- the tools whose window is first request to last answer, or longer (inference-perf's
  -- run.time; a longer window only lowers the rate's lower bound, and no report holds a
  -- queue's evidence). Not guidellm's: its measured window may leave the drain out.
  local drain
  if tool == "vllm-benchmark" or tool == "inferencemax" or tool == "inference-perf" then
    local rl = lat.request_latency
    local scale = type(rl) == "table" and TO_MS[rl.units]
    local pcts = {}
    if scale then
      for _, x in ipairs { { 0.1, "p0p1" }, { 1, "p1" }, { 5, "p5" }, { 10, "p10" }, { 25, "p25" }, { 50, "p50" },
        { 75, "p75" }, { 90, "p90" }, { 95, "p95" }, { 99, "p99" }, { 99.9, "p99p9" } } do
        if num(rl[x[2]]) then pcts[#pcts + 1] = { x[1], rl[x[2]] * scale / 1000, x[2] } end
      end
    end
    drain = rm.drain_from_stats(ok, dur, pcts, scale and num(rl.min) and rl.min * scale / 1000 or nil)
  elseif tool == "guidellm" then
    -- its window, guidellm's measured one, may start after a warmup (the report does not say):
    -- no least latency to take out, but its completed / window still counts the last answers'
    -- latency, so a shortfall of it is not read as saturation (audit53 F1)
    drain = rm.drain_from_stats(ok, dur, {}, nil)
    if drain then
      drain.least_why = "a benchmark report of guidellm does not say whether its measured window started at the "
        .. "first request sent or after a warmup, so no least latency can be taken out of it"
    end
  end
  local stage = num(std.stage) or stage_fallback
  -- why the offered load is unknown (the Load Curves' Offered cell says it)
  local offered_why
  if v01 then
    offered_why = "a BR v0.1 report states no offered load (its scenario.load.args are the harness's own "
      .. "arguments, not a standardized rate or concurrency)"
  elseif not (num(std.rate_qps) and num(std.rate_qps) > 0) and not (num(std.concurrency) and num(std.concurrency) >= 1)
  then
    offered_why = "scenario.load.standardized has neither rate_qps nor concurrency"
  end
  return {
    drain = drain, offered_why = offered_why,
    tool = tool, tool_version = std.tool_version, stage = stage,
    rate = num(std.rate_qps), concurrency = num(std.concurrency), method = method,
    requests = { total = total, ok = ok, failed = failures, incomplete = inc }, clashes = clashes,
  }
end

-- The inference engines a report describes, as instances: { role, accelerator, count (one
-- instance's accelerators), replicas (nil: not stated), parallelism = "tp=8 ...", image }, and
-- the model(s) and where it says them, by its version's schema:
-- - v0.2 (scenario.stack): each inference engine's (kind inference_engine) role, replicas,
--   model.name, accelerator{model, count, parallelism} and tool_version; a generic component's
--   model too (llmd.br's, with the model the results named; or, by an older llmdlua, a string).
--   Its accelerator.count is one replica's: the schema calls it "Total utilized accelerator
--   count", but llm-d-benchmark's converter (native_to_br0_2) writes tp x dp_local, what one
--   pod holds, beside replicas, as the maintainers' example has it (count 8 for tp=8, replicas 2):
--   so the engine uses count x replicas.
-- - v0.1 (scenario.host / platform / model): scenario.model.name; scenario.host.accelerator[i]
--   {model, memory (GB), count, parallelism} is one host of the role scenario.host.type[i],
--   scenario.platform.engine[i] its engine {name, version}: one replica each.
local function engines(br, v01)
  local sc = type(br.scenario) == "table" and br.scenario or {}
  local out, models = {}, {}
  local function add_model(v)
    for _, x in ipairs(models) do if x == v then return end end
    models[#models + 1] = v
  end
  local function par_text(p)
    if type(p) ~= "table" then return nil end
    local t = {}
    for _, k in ipairs { "tp", "dp", "pp", "ep" } do
      if p[k] ~= nil then t[#t + 1] = k .. "=" .. tostring(p[k]) end
    end
    return #t > 0 and table.concat(t, " ") or nil
  end
  if v01 then
    local m = type(sc.model) == "table" and sc.model.name
    if m ~= nil and m ~= "" then add_model(tostring(m)) end
    local host = type(sc.host) == "table" and sc.host or {}
    local types = type(host.type) == "table" and host.type or {}
    local eng = type(sc.platform) == "table" and type(sc.platform.engine) == "table" and sc.platform.engine or {}
    for i, acc in ipairs(type(host.accelerator) == "table" and host.accelerator or {}) do
      if type(acc) == "table" then
        local e = type(eng[i]) == "table" and eng[i] or {}
        local name = acc.model ~= nil and tostring(acc.model) or nil
        if name and num(acc.memory) then name = ("%s %g GB"):format(name, acc.memory) end
        local image = e.name ~= nil and (tostring(e.name) .. (e.version ~= nil and (" " .. tostring(e.version)) or ""))
        out[#out + 1] = { role = types[i] ~= nil and tostring(types[i]) or nil, accelerator = name,
          count = num(acc.count), replicas = 1, parallelism = par_text(acc.parallelism), image = image }
      end
    end
    return out, models, "scenario.host and scenario.model"
  end
  for _, comp in ipairs(type(sc.stack) == "table" and sc.stack or {}) do
    local s = type(comp) == "table" and comp.standardized
    if type(s) == "table" and type(s.model) == "table" and s.model.name ~= nil then
      add_model(tostring(s.model.name))
    elseif type(s) == "table" and s.kind == "generic" and (type(s.model) == "string" and s.model ~= "") then
      add_model(s.model)
    end
    if type(s) == "table" and (s.kind == "inference_engine" or s.kind == nil) then
      local acc = type(s.accelerator) == "table" and s.accelerator or {}
      out[#out + 1] = { role = s.role ~= nil and tostring(s.role) or nil,
        accelerator = acc.model ~= nil and tostring(acc.model):gsub("%-", " ") or nil, count = num(acc.count),
        replicas = num(s.replicas), parallelism = par_text(acc.parallelism),
        image = s.tool_version ~= nil and tostring(s.tool_version) or nil }
    end
  end
  return out, models, "scenario.stack"
end

-- The accelerators the engines use in all (each instance's count x its replicas), or nil
-- when no engine states a count, or one that does leaves its replicas unstated.
local function accelerators(list)
  local total, any = 0, false
  for _, e in ipairs(list) do
    if e.count then
      if not e.replicas then return nil end
      total, any = total + e.count * e.replicas, true
    end
  end
  return any and total > 0 and total or nil
end

-- The report's configuration rows (model, hardware, parallelism, image, replicas), per role
-- where there are several, and the model the results name (run.model, as every reader sets
-- it: llmd.decision.model_of). Hardware is each role's accelerators in all, with how they are
-- made up: "16× NVIDIA H100 80GB HBM3 (decode: 2 replicas × 8)", so that the row agrees with
-- the GPUs the per-GPU figures divide by (accelerators above).
local function stack_config(run, br, path, v01)
  local list, models, where = engines(br, v01)
  local function add(t, v) for _, x in ipairs(t) do if x == v then return end end t[#t + 1] = v end
  local function suffix(role) return role and (" (" .. role .. ")") or "" end
  -- instances grouped by role and accelerator, in the report's order
  local groups, hw, par, img, reps = {}, {}, {}, {}, {}
  local by_role = {}
  for _, e in ipairs(list) do
    if e.accelerator then
      local k = tostring(e.role) .. "\0" .. e.accelerator
      if not groups[k] then
        groups[k] = { role = e.role, accelerator = e.accelerator, parts = {} }
        groups[#groups + 1] = groups[k]
      end
      local g = groups[k]
      g.parts[#g.parts + 1] = e
      if e.parallelism then add(par, e.parallelism .. suffix(e.role)) end
    end
    if e.image then add(img, e.image .. suffix(e.role)) end
    if e.replicas then
      local r = tostring(e.role)
      if not by_role[r] then
        by_role[r] = { role = e.role, n = 0 }
        by_role[#by_role + 1] = by_role[r]
      end
      by_role[r].n = by_role[r].n + e.replicas
    end
  end
  for _, g in ipairs(groups) do
    local total, n, counts, unknown = 0, 0, {}, false
    for _, e in ipairs(g.parts) do
      if not e.count or not e.replicas then unknown = true break end
      total, n = total + e.count * e.replicas, n + e.replicas
      for _ = 1, e.replicas do counts[#counts + 1] = e.count end
    end
    local text
    if unknown then
      -- a count without replicas (or none): what the report says, the whole unknown
      local e = g.parts[1]
      text = (e.count and ("%d× "):format(e.count) or "") .. g.accelerator
        .. (e.count and " per replica, replicas not stated" or ", count not stated")
        .. suffix(g.role)
    else
      local same = true
      for _, c in ipairs(counts) do if c ~= counts[1] then same = false end end
      local made = n > 1 and (same and ("%d replicas × %d"):format(n, counts[1]) or table.concat(counts, " + "))
      text = ("%d× %s"):format(total, g.accelerator)
      if made and g.role then
        text = text .. (" (%s: %s)"):format(g.role, made)
      elseif made then
        text = text .. (" (%s)"):format(made)
      else
        text = text .. suffix(g.role)
      end
    end
    add(hw, text)
  end
  for _, r in ipairs(by_role) do add(reps, ("%d"):format(r.n) .. suffix(r.role)) end
  local src = path .. ": " .. where
  rm.config(run, "model", table.concat(models, ", "), src)
  -- (the model the results name, as every reader sets it: llmd.decision.model_of; a stack of
  -- several models keeps them as a list too, run.models, which llmd.decision.check_served_model
  -- holds each against the server's names: their joined text names none of them)
  if #models > 0 then run.model = table.concat(models, ", ") end
  if #models > 1 then run.models = models end
  rm.config(run, "hardware", table.concat(hw, "; "), src)
  rm.config(run, "parallelism", table.concat(par, "; "), src)
  rm.config(run, "image", table.concat(img, "; "), src)
  rm.config(run, "replicas", table.concat(reps, "; "), src)
  return accelerators(list), where
end

-- The first NaN in the document (YAML .nan, JSON NaN) as "a.b[2].c", or nil: a report
-- holding one is malformed, and the user is told where, not "metric x: NaN".
local function find_nan(v, where)
  if type(v) == "number" and v ~= v then return where end
  if type(v) ~= "table" then return nil end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local sub = math.type(k) == "integer" and ("%s[%d]"):format(where, k - 1)
      or (where == "" and tostring(k) or where .. "." .. tostring(k))
    local found = find_nan(v[k], sub)
    if found then return found end
  end
end

-- Why a report that parsed is still not whole (a truncated file reads as valid YAML when
-- cut at a line's end, and one cut inside a number gives a wrong number), or nil.
local function incomplete(path, br)
  if path:match("%.ya?ml$") then
    local f = io.open(path, "rb")
    if f then
      local size = f:seek("end")
      f:seek("set", math.max(0, size - 1))
      local last = f:read(1)
      f:close()
      if size > 0 and last ~= "\n" then
        return "does not end with a newline, as every YAML writer ends a file: truncated?"
      end
    end
  end
  local v01 = br.version == "0.1" or br.version == 0.1
  local agg
  if v01 then
    agg = br.metrics
  else
    agg = type(br.results) == "table" and type(br.results.request_performance) == "table"
      and br.results.request_performance.aggregate
  end
  if type(agg) ~= "table" then return nil end -- map() says what is missing
  local req = type(agg.requests) == "table" and agg.requests or {}
  local ok = (num(req.total) or 0) - (num(req.failures) or 0) - (num(req.incomplete) or 0)
  -- (no throughput section where the report has a duration: the rates are counts over it,
  -- and a report written from a run whose rates were unknown has none)
  local dur = v01 and type(agg.time) == "table" and num(agg.time.duration)
    or not v01 and type(br.run) == "table" and type(br.run.time) == "table" and iso_duration(br.run.time.duration)
  if ok > 0 then
    for _, k in ipairs { "latency", "throughput" } do
      if type(agg[k]) ~= "table" and not (k == "throughput" and dur) then
        return ("has %d successful request%s but no %s section: truncated or incomplete"):format(ok,
          ok == 1 and "" or "s", k)
      end
    end
  end
  for k, st in pairs(type(agg.latency) == "table" and agg.latency or {}) do
    if type(st) == "table" and (st.units == nil or st.mean == nil) then
      return ("latency.%s has no %s (every statistic has units and mean): truncated or incomplete")
        :format(k, st.units == nil and "units" or "mean")
    end
  end
end

-- llm-d-benchmark's native_to_br0_2 writes stage 0 for every vllm-benchmark and inferencemax
-- file (FORMATS.md: "load.standardized.stage ... 0 | 0"), one report per native file, into the
-- folder that holds them all: a sweep of rates is a folder of reports all "stage 0" (audit50
-- M2: refused as "both are stage 0 ... copy each into a folder of its own", no ladder possible).
-- Such a stage (st: its tool and index read) takes its place from its load instead.
local ZERO_STAGE_TOOLS = { ["vllm-benchmark"] = true, inferencemax = true }
local function zero_stage(st)
  return st.index == 0 and ZERO_STAGE_TOOLS[tostring(st.tool)] == true
end

-- The stages of a folder of such reports (every one zero_stage) numbered by their offered
-- load: the rate-based ones by rate_qps, then the concurrency-based ones by concurrency, ties
-- (repeats of one load) in file order. An error where a stage is not such a report, or states
-- neither load.
local function renumber_zero_stages(run)
  for _, st in ipairs(run.stages) do
    if not zero_stage(st) then
      error(("%s: stage %d of %s, in a folder of %s reports all numbered stage 0 (numbered by their load): a "
        .. "folder holds one run's reports"):format(st.file, st.index, tostring(st.tool),
        "vllm-benchmark or inferencemax"), 0)
    end
    if not ((st.rate and st.rate > 0) or (st.concurrency and st.concurrency >= 1)) then
      error(("%s: stage 0 like every report in its folder (%s's mapping numbers every file 0), and "
        .. "scenario.load.standardized has neither rate_qps nor concurrency to order them by: pass one of the "
        .. "files, or copy each into a folder of its own"):format(st.file, tostring(st.tool)), 0)
    end
  end
  local order = {}
  for i, st in ipairs(run.stages) do order[st] = i end
  table.sort(run.stages, function(x, y)
    local xr, yr = x.rate and x.rate > 0, y.rate and y.rate > 0
    if xr ~= yr then return xr end
    local xv = xr and x.rate or x.concurrency
    local yv = yr and y.rate or y.concurrency
    if xv ~= yv then return xv < yv end
    return order[x] < order[y]
  end)
  for i, st in ipairs(run.stages) do st.index = i - 1 end
end

-- The load a stage offered, for a data check's message: " at 20 req/s offered", " at
-- concurrency 8", or "" when the report states neither.
local function offered_text(st)
  if st.rate and st.rate > 0 then return (" at %s req/s offered"):format(group(st.rate)) end
  if st.concurrency and st.concurrency >= 1 and st.concurrency < math.huge then
    return (" at concurrency %d"):format(st.concurrency)
  end
  return ""
end

function M.extract(c, opts)
  opts = opts or {}
  local run = rm.start(M, c)
  local groups = rm.error_groups()
  local tools, versions = {}, {}
  local renumber = false
  for i, path in ipairs(c.files) do
    local br = rm.load(path)
    if type(br) ~= "table" then error(path .. ": expected a mapping (a benchmark report)", 0) end
    local nan = find_nan(br, "")
    if nan then error(("%s: %s is .nan (expected a number, or the key left out when unknown)"):format(path, nan), 0) end
    local why = incomplete(path, br)
    if why and not opts.tolerant then
      error(("%s: %s (--tolerant leaves the file out with a warning)"):format(path, why), 0)
    elseif why then
      rm.warn(run, "left out (--tolerant): %s: %s", path, why)
      goto next_file
    end
    local st = rm.stage(i - 1)
    st.file = path
    local info = map(st.metrics, br, path, i - 1)
    if i == 1 then
      local gpus, where = stack_config(run, br, path, br.version == "0.1" or br.version == 0.1)
      if gpus then run.gpus, run.gpus_source = gpus, "the benchmark report's " .. (where == "scenario.stack"
        and "stack" or "scenario.host") end
    end
    st.index, st.rate, st.concurrency, st.offered_why = info.stage, info.rate, info.concurrency, info.offered_why
    st.duration = st.metrics.values.duration_s
    st.requests = info.requests
    st.tool = info.tool
    st.drain = info.drain
    run.percentile_method = info.method
    -- (its data checks are said after the files are read: a stage 0 of a folder of stage-0
    -- reports takes its number from its load then, renumber_zero_stages, and the check names it)
    st.clashes = info.clashes
    tools[tostring(info.tool)] = info.tool_version or tools[tostring(info.tool)] or false
    versions[tostring(br.version)] = true
    if info.requests.failed > 0 then
      rm.stage_errors(groups, st).add(nil, "cause not recorded (a benchmark report keeps only a count)",
        info.requests.failed)
    end
    for _, other in ipairs(run.stages) do
      if other.index == st.index then
        local function dir_of(f) return f:match("^(.*)/[^/]*$") or "." end
        if dir_of(other.file) == dir_of(path) and zero_stage(other) and zero_stage(st) then
          -- (reports of a tool whose mapping numbers every file stage 0, in one folder:
          -- ordered by their load below, renumber_zero_stages)
          renumber = true
          break
        end
        if dir_of(other.file) == dir_of(path) then
          -- one folder: no folder to pass holds only one of them
          error(("%s and %s: both are stage %d, in one folder, so they are not one run's load points: pass one "
            .. "of the files (extract.lua FILE), or copy each into a folder of its own for compare.lua or "
            .. "treatments.lua"):format(other.file, path, st.index), 0)
        end
        error(("%s and %s: both are stage %d; pass one run's folder"):format(other.file, path, st.index), 0)
      end
    end
    run.stages[#run.stages + 1] = st
    ::next_file::
  end
  local tl, vl = {}, {}
  for t in pairs(tools) do tl[#tl + 1] = t end
  for v in pairs(versions) do vl[#vl + 1] = v end
  table.sort(tl)
  table.sort(vl)
  if renumber then renumber_zero_stages(run) end
  for _, st in ipairs(run.stages) do
    for _, cl in ipairs(st.clashes) do
      -- a data check, as llmd.runmodel.crosscheck's: the report lists it, the run is "warnings"
      rm.warn(run, "%s (stage %d%s, file %s): N/A: %s", cl.key, st.index, offered_text(st), st.file, cl.text)
      run.checks = run.checks or {}
      run.checks[#run.checks + 1] = { key = cl.key, kind = "rate_field_contradicts_counts", stage = st.index,
        file = st.file, computed = cl.computed, reported = cl.reported, apart_pct = cl.apart_pct,
        text = run.warnings[#run.warnings] }
    end
    st.clashes = nil
  end
  run.tool = table.concat(tl, ", ")
  run.version = table.concat(vl, ", ")
  if #tl == 1 and tools[tl[1]] then run.tool_version = tools[tl[1]] end
  rm.finish_stages(run, opts)
  return rm.close(run, rm.measured(run), groups, "the source harness's count, as the report's mean lengths")
end

return M
