-- llmd.comparison: phases 3 and 4 of a comparison, shared by compare.lua, analyze.lua and
-- the cluster flow: read both runs, build the report, write every output, say where.
--
--   local cmp = require "llmd.comparison"
--   local side = cmp.extract_side(w, "a", state, opts)  -- {x, label, state, run, kv}
--   local model = cmp.report(w, side_a, side_b, opts)    -- writes report, json, csv, script
local charts = require "llmd.charts"
local decision = require "llmd.decision"
local harness = require "llmd.harness"
local host = require "llmd.host"
local json = require "llmd.json"
local kvcache = require "llmd.kvcache"
local lfs = require "lfs"
local lp = require "llmd.loadpoints"
local metrics = require "llmd.metrics"
local report = require "llmd.report"
local rm = require "llmd.runmodel"
local template = require "llmd.template"
local tl = require "llmd.timeline"
local ws = require "llmd.workspace"

local M = {}

M.TEMPLATES = { "comparison_report.md", "run_comparison.sh", "comparison_report.html" }
M.CHART_TEMPLATES = { "charts/style.gp" }
for _, n in ipairs(charts.NAMES) do M.CHART_TEMPLATES[#M.CHART_TEMPLATES + 1] = "charts/" .. n .. ".gp" end
for _, n in ipairs(charts.EXTRA_TEMPLATES) do M.CHART_TEMPLATES[#M.CHART_TEMPLATES + 1] = "charts/" .. n .. ".gp" end

-- The SLOs of a comparison: opts.slo (a parsed list: --slo, or the plan's), else the
-- run states' slo (from the info files; both must agree when both give one), else {}.
function M.resolve_slo(A, B, opts)
  if opts and opts.slo then return opts.slo end
  local lists = {}
  for _, s in ipairs { A, B } do
    local st = s.state or s
    if type(st.slo) == "table" and next(st.slo) ~= nil then
      local where = st.slo_from and ("%s: slo"):format(st.slo_from) or ("run %s's info: slo"):format(st.label)
      lists[#lists + 1] = { label = st.label, slo = decision.parse_slo(st.slo, where), from = st.slo_from }
    end
  end
  if #lists == 2 and not decision.same_slo(lists[1].slo, lists[2].slo) then
    local function whose(l)
      return l.from and ("%s (recorded in %s)"):format(l.label, l.from) or l.label
    end
    error(("the runs' %s give different SLOs (%s: %s; %s: %s); one SLO applies to both: give it with --slo")
      :format((lists[1].from or lists[2].from) and "info files and records" or "info files", whose(lists[1]),
        decision.slo_phrase(lists[1].slo), whose(lists[2]), decision.slo_phrase(lists[2].slo)), 0)
  end
  return lists[1] and lists[1].slo or {}
end

-- Where the comparison's SLOs (slo, parsed) came from, where no --slo gave them: the runs'
-- records (run_state.json) or info files that state them, in words for the report ("from
-- s-a's record (ws-a/run_state.json); s-b's states none, so it is applied to both runs"), so a
-- reader knows that one run's SLO judged the other too (audit50 M3: the report said "SLO: TTFT
-- p90 <= 200.0 ms" and never where it came from). nil where neither run states one, or the
-- SLOs are not theirs (a plan's).
function M.slo_source(A, B, slo)
  if type(slo) ~= "table" or #slo == 0 then return nil end
  local from, none = {}, {}
  for _, s in ipairs { A, B } do
    local st = s.state or s
    -- (a plan's run records the SLO its comparison held it to, --slo's or the plan's: not its own)
    if st.slo_by and not st.slo_from then return nil end
    local own = type(st.slo) == "table" and next(st.slo) ~= nil
      and select(2, pcall(decision.parse_slo, st.slo, "slo")) or nil
    if type(own) == "table" and decision.same_slo(own, slo) then
      from[#from + 1] = st.slo_from and ("%s's record (%s)"):format(st.label, st.slo_from)
        or ("%s's info file"):format(st.label)
    elseif own == nil then
      none[#none + 1] = st.label
    else
      return nil
    end
  end
  if #from == 0 then return nil end
  if #from == 2 then return ("from %s and %s, which state the same"):format(from[1], from[2]) end
  return ("from %s; %s's states none, so it is applied to both runs"):format(from[1], none[1])
end

-- Every string in v (tables walked, keys too, each once) with the folder from replaced
-- by to, where it is a whole path component: from/..., or from at the end; but the
-- tables in keep, left as they are.
local function swap_paths(v, from, to, keep)
  local seen = {}
  local function swap(str)
    local out, at = nil, 1
    while true do
      local i, j = str:find(from, at, true)
      if not i then break end
      local after = str:sub(j + 1, j + 1)
      if after == "" or after == "/" or not after:match("[%w%-_%.]") then
        out = out or {}
        out[#out + 1] = str:sub(at, i - 1)
        out[#out + 1] = to
        at = j + 1
      else
        out = out or {}
        out[#out + 1] = str:sub(at, j)
        at = j + 1
      end
    end
    if not out then return str end
    out[#out + 1] = str:sub(at)
    return table.concat(out)
  end
  local function walk(t)
    if seen[t] or keep[t] then return end
    seen[t] = true
    local renamed = {}
    for k, val in next, t do
      if type(val) == "string" then
        local nv = swap(val)
        if nv ~= val then t[k] = nv end
      elseif type(val) == "table" then
        walk(val)
      end
      if type(k) == "string" then
        local nk = swap(k)
        if nk ~= k then renamed[#renamed + 1] = { k, nk } end
      elseif type(k) == "table" then
        walk(k)
      end
    end
    for _, r in ipairs(renamed) do t[r[2]], t[r[1]] = t[r[1]], nil end
  end
  if type(v) == "table" then walk(v) end
end
M.swap_paths = swap_paths

-- The load stages the benchmark config sent asks for: {workload =, rates = {req/s, ...}},
-- from its workload: (the one the state names, else its only one) load.stages' rates; nil
-- where the config is absent (nothing more), or nil, why (the words "the results' stages were
-- not checked against ..." can end with) and invalid (true where a rate given is no positive
-- number: a config no harness runs, "rate: 16O", newuser53 #3) where it names no stages with
-- a rate each. A config that is not YAML raises its reader's error.
function M.config_stages(path, state)
  if lfs.attributes(path, "mode") ~= "file" then return nil end
  local ok, cfg = pcall(require("llmd.yaml").load_file, path)
  -- (a config that is not YAML: its reader's error, not a stage check passed over)
  if not ok then error(require("llmd.errors").text(cfg), 0) end
  if type(cfg) ~= "table" or type(cfg.workload) ~= "table" then return nil, "it has no workload: mapping" end
  local want = type(state) == "table" and type(state.benchmark) == "table" and state.benchmark.workload or nil
  local name, wl
  if type(want) == "string" and type(cfg.workload[want]) == "table" then
    name, wl = want, cfg.workload[want]
  else
    local names = {}
    for k, v in pairs(cfg.workload) do
      names[#names + 1] = tostring(k)
      name, wl = k, v
    end
    table.sort(names)
    if #names > 1 then
      return nil, ("it has %d workloads (%s) and the run does not record which ran"):format(#names,
        table.concat(names, ", "))
    end
    if #names == 0 then return nil, "its workload: mapping is empty" end
  end
  local load = type(wl) == "table" and type(wl.load) == "table" and wl.load or nil
  local stages = load and type(load.stages) == "table" and load.stages or nil
  if not stages or #stages == 0 then return nil, ("its workload %s gives no load.stages"):format(tostring(name)) end
  local rates = {}
  for i, st in ipairs(stages) do
    local r = type(st) == "table" and st.rate or nil
    if r == nil then
      return nil, ("its workload %s's load.stages.%d gives no rate"):format(tostring(name), i - 1)
    end
    if type(r) ~= "number" or r ~= r or r <= 0 then
      return nil, ("its workload %s asks for load.stages.%d.rate %s, which is not a positive number (no harness "
        .. "runs it)"):format(tostring(name), i - 1, type(r) == "string" and ("'" .. r .. "'") or tostring(r)), true
    end
    rates[i] = r
  end
  return { workload = tostring(name), rates = rates, data = type(wl.data) == "table" and wl.data or nil }
end

-- The token lengths an inference-perf data config (a workload's data:, or its config.yaml's)
-- asks for: {input =, output =, input_how =, output_how =} (per request; either nil where it
-- does not say), or nil. shared_prefix: system_prompt_len + question_len (a question_distribution's
-- mean instead where given), output_len (an output_distribution's mean); random and synthetic:
-- input_distribution's and output_distribution's means, within their min and max. Other types
-- (shareGPT, datasets, traces) state no length.
function M.asked_lengths(data)
  if type(data) ~= "table" then return nil end
  local function n(x) return type(x) == "number" and x == x and x >= 0 and x or nil end
  local function dist_mean(d)
    if type(d) ~= "table" or not n(d.mean) then return nil end
    local m = d.mean
    if n(d.min) and m < d.min then m = d.min end
    if n(d.max) and d.max > 0 and m > d.max then m = d.max end
    return m
  end
  local out = {}
  if data.type == "shared_prefix" and type(data.shared_prefix) == "table" then
    local sp = data.shared_prefix
    local q, qhow = dist_mean(sp.question_distribution), "question_distribution.mean"
    if not q then q, qhow = n(sp.question_len), "question_len" end
    if n(sp.system_prompt_len) and q then
      out.input = sp.system_prompt_len + q
      out.input_how = ("shared_prefix system_prompt_len %g + %s %g"):format(sp.system_prompt_len, qhow, q)
    end
    local o = dist_mean(sp.output_distribution)
    if o then out.output, out.output_how = o, ("shared_prefix output_distribution.mean %g"):format(o)
    elseif n(sp.output_len) then out.output, out.output_how = sp.output_len, ("shared_prefix output_len %g")
      :format(sp.output_len) end
  elseif data.type == "random" or data.type == "synthetic" then
    local i, o = dist_mean(data.input_distribution), dist_mean(data.output_distribution)
    if i then out.input, out.input_how = i, ("input_distribution mean %g"):format(i) end
    if o then out.output, out.output_how = o, ("output_distribution mean %g"):format(o) end
  end
  if not out.input and not out.output then return nil end
  return out
end

-- How far a run's mean token lengths per request may lie from what its data config asks for
-- before a data check says so (relative, either way): a prompt is re-tokenised after it is
-- generated and a chat template adds its own tokens, an answer may end at its EOS before the
-- length asked, a distribution is clipped at its min and max: a few per cent, rarely more. And
-- the factor beyond which the Verdict warns too: a harness that ran another data config (the
-- fake cluster's recorded 204 input and 62 output tokens against 4,200 and 300 asked, newuser55 #3).
M.LENGTH_TOLERANCE, M.LENGTH_FAR = 0.25, 2

-- The requests' measured mean lengths (the whole run's token totals over its completed
-- requests) against those its data config asks for (M.asked_lengths): beyond M.LENGTH_TOLERANCE
-- a data check naming both (kind "config_lengths", far = beyond M.LENGTH_FAR either way, which
-- the Verdict warns of: llmd.report.lengths_text). where: the config, as shown; workload: its
-- name or nil.
function M.check_config_lengths(run, data, where, workload)
  local asked = M.asked_lengths(data)
  local v = run.overall and run.overall.values or {}
  local ok = v.requests_ok
  if not asked or type(ok) ~= "number" or ok <= 0 then return end
  local parts, far, got = {}, false, {}
  for _, k in ipairs { "input", "output" } do
    local total = v[k .. "_tokens_total"]
    local want = asked[k]
    if type(total) == "number" and want and want > 0 then
      local mean = total / ok
      got[k] = mean
      local r = mean / want
      if math.abs(r - 1) > M.LENGTH_TOLERANCE then
        parts[#parts + 1] = ("%s %.1f tokens per request measured, %s asked (%s)"):format(k, mean,
          metrics.group_thousands(("%g"):format(want)), asked[k .. "_how"])
        if r > M.LENGTH_FAR or r < 1 / M.LENGTH_FAR then far = true end
      end
    end
  end
  if #parts == 0 then return end
  local text = ("the requests are not the lengths the benchmark config asks for: %s; %s, more than %d %% apart "
    .. "(a harness that ran another data config, or prompts and answers other than asked?)"):format(
    workload and ("%s's workload %s"):format(where, workload) or where, table.concat(parts, "; "),
    math.floor(M.LENGTH_TOLERANCE * 100 + 0.5))
  rm.warn(run, "%s", text)
  run.checks = run.checks or {}
  run.checks[#run.checks + 1] = { kind = "config_lengths", text = text, far = far, input = got.input,
    output = got.output, asked_input = asked.input, asked_output = asked.output }
  if run.status == "ok" then run.status = "warnings" end
end

-- Results whose load stages (their count, each stage's requested rate) are not those the
-- benchmark config sent asks for are another run's (the wrong folder on the results PVC, an
-- old experiment's): a data check naming both, which makes the run's status "warnings".
-- Where the config sent is there but its stages cannot be read (several workloads, none
-- recorded; a stage with no rate), the check is N/A and said so, with why: never passed over
-- in silence; a config whose rate is no positive number (rate: 16O) is one no harness runs,
-- so results beside it are not known to be its run: a config_mismatch too. Silent where the
-- config or the results' rates are unknown. path: run-x/benchmark/config.yaml.
function M.check_config_stages(run, path, state)
  local cfg, why, invalid = M.config_stages(path, state)
  local shown = path:match("[^/]+/[^/]+/[^/]+$") or path
  -- (the lengths its data: asks for, against the requests': the config sent, else the one
  -- inference-perf wrote beside its results)
  if cfg and cfg.data then
    M.check_config_lengths(run, cfg.data, shown, cfg.workload)
  elseif lfs.attributes(path, "mode") ~= "file" and type(run.data_config) == "table" then
    M.check_config_lengths(run, run.data_config.data, run.data_config.file)
  end
  if not run.stages or #run.stages == 0 then return end
  local function rates(list, each)
    local lo, hi, all = math.huge, -math.huge, {}
    for _, r in ipairs(list) do lo, hi, all[#all + 1] = math.min(lo, r), math.max(hi, r), ("%g"):format(r) end
    local n = #list
    return ("%d stage%s (%s req/s)"):format(n, n == 1 and "" or "s", each and table.concat(all, ", ")
      or lo == hi and ("%g"):format(lo) or ("%g–%g"):format(lo, hi))
  end
  local got = {}
  for _, st in ipairs(run.stages) do
    if type(st.rate) ~= "number" then got = nil; break end
    got[#got + 1] = st.rate
  end
  if not cfg then
    if not why then return end
    if invalid then
      local text = ("the results do not match the benchmark config sent: %s: %s; the results hold %s, so they are "
        .. "not known to be this run's"):format(shown, why, got and rates(got) or (#run.stages .. " stages"))
      rm.warn(run, "%s", text)
      run.checks = run.checks or {}
      run.checks[#run.checks + 1] = { kind = "config_mismatch", text = text }
      if run.status == "ok" then run.status = "warnings" end
    else
      rm.warn(run, "load stages N/A: the results' stages were not checked against the benchmark config sent (%s: "
        .. "%s)", shown, why)
    end
    return
  end
  if not got then return end
  local same = #got == #cfg.rates
  for i = 1, same and #got or 0 do
    if not lp.close(got[i], cfg.rates[i]) then same = false end
  end
  if same then return end
  -- (the range, or each rate where the counts agree: then a rate differs)
  local each = #got == #cfg.rates
  local text = ("the results do not match the benchmark config sent: %s's workload %s asks for %s, the results hold "
    .. "%s; are they this run's (the wrong results folder, another experiment's)?"):format(
    shown, cfg.workload, rates(cfg.rates, each), rates(got, each))
  rm.warn(run, "%s", text)
  run.checks = run.checks or {}
  run.checks[#run.checks + 1] = { kind = "config_mismatch", text = text }
  if run.status == "ok" then run.status = "warnings" end
end

-- A vLLM container of the run that restarted (a crash, an OOM kill) or a serving pod
-- replaced before or during its benchmark (llmd.cluster's attempt loop, run_state.json's
-- server_restarts: {during =, text =}): a data check each, which makes the run's status
-- "warnings"; one during the benchmark (kept because no attempt ran without one) is also
-- run.server_restarted, which the Verdict warns of.
function M.check_server_restarts(run, state)
  local list = type(state.server_restarts) == "table" and state.server_restarts or {}
  for _, e in ipairs(list) do
    if type(e) == "table" and type(e.text) == "string" then
      rm.warn(run, "%s", e.text)
      run.checks = run.checks or {}
      run.checks[#run.checks + 1] = { kind = "server_restart", text = e.text, during = e.during == true }
      if e.during == true then run.server_restarted = run.server_restarted or e.text end
      if run.status == "ok" then run.status = "warnings" end
    end
  end
end

-- Repeats of a load that are copies of one recording (llmd.loadpoints.scaled_copy): a data
-- check (kind "replayed_repeats"), which makes the run's status "warnings" and which the
-- Verdict says; the load points read them as measured once.
function M.check_replayed_repeats(run, state)
  local text = lp.replayed_text(run, "run " .. tostring(state.label or "?"))
  if not text then return end
  rm.warn(run, "%s", text)
  run.checks = run.checks or {}
  run.checks[#run.checks + 1] = { kind = "replayed_repeats", text = text }
  if run.status == "ok" then run.status = "warnings" end
end

-- Reads run x's results into a side. opts: harness, warmup, percentile_method, sketch,
-- require_results (a folder without recognisable results is an error, not a failed run),
-- slo (a parsed SLO list: requests are counted against its per-request thresholds for
-- goodput). from: the folder to read, when not the workspace's copy (results read in
-- place, copied afterwards: ws.read_in_place); the side names the copy all the same,
-- but in warnings, which name the user's files.
function M.extract_side(w, x, state, opts, from)
  opts = opts or {}
  local dir = ws.run_dir(w, x) .. "/results"
  local read_dir = from or dir
  local eo = {}
  for k, v in pairs(opts) do eo[k] = v end
  -- the SLOs goodput is counted against: the comparison's, else the run's own info file's
  local slo = opts.slo
  if not slo and type(state.slo) == "table" and next(state.slo) ~= nil then
    slo = decision.parse_slo(state.slo, ("run %s's info: slo"):format(state.label))
  end
  eo.slo, opts = slo, eo
  eo.goodput = slo and decision.request_thresholds(slo) or nil
  local run = harness.extract(read_dir, eo)
  tl.mark("read " .. x)
  if run.no_results and opts.require_results then
    error(("run %s (%s): %s"):format(x, state.label, run.reasons[1]), 0)
  end
  -- (before the warnings are renamed below: a *_prometheus_metrics.json --tolerant leaves
  -- out is one of them)
  local kv = kvcache.analyze(read_dir, run, eo)
  -- warnings name the user's files, not the workspace's copies
  if type(state.source_path) == "string" then
    local copy, to = dir:gsub("%p", "%%%0"), state.source_path:gsub("%%", "%%%%")
    for i, wline in ipairs(run.warnings) do run.warnings[i] = wline:gsub(copy, to) end
  end
  -- what the import left out (links out of the results folder, special files) is said
  for _, s in ipairs(type(state.import_skipped) == "table" and state.import_skipped or {}) do
    rm.warn(run, "not imported: %s", s)
  end
  M.check_config_stages(run, ws.run_dir(w, x) .. "/benchmark/config.yaml", state)
  M.check_server_restarts(run, state)
  M.check_replayed_repeats(run, state)
  if from then
    -- as if the copy had been read: the warnings name the user's files (as above), the
    -- rest the copy
    swap_paths(run, from, dir, { [run.warnings] = true })
    swap_paths(kv, from, dir, {})
  end
  kvcache.put(run, kv)
  tl.mark("kv " .. x)
  return { x = x, label = state.label, state = state, run = run, kv = kv, slo = opts.slo }
end


-- compare.lua's work on one existing run: imports it into run-x (copied, or linked with
-- job.link), reads it, saves its state and model; returns the side. job: label, plan
-- (ws.plan_import's), info, link, opts (extract_side's), extract_options (how the
-- results were read, kept in the state so that analyze.lua reads them the same way).
-- The same code whether the parent runs it or a child does (llmd.parallel).
function M.import_side(w, x, job)
  -- read where they are and copied afterwards (M.copy_later), where that is the same
  local later = not job.link and ws.read_in_place(w, job.plan)
  local state = ws.import(w, x, { label = job.label, plan = job.plan, info = job.info, link = job.link,
    later = later, info_where = job.info_where })
  tl.mark("import " .. x)
  state.extract_options = job.extract_options
  local side = M.extract_side(w, x, state, job.opts, later and job.plan.root or nil)
  M.save_run(w, side)
  tl.mark("save " .. x)
  return side
end

-- Does state carry every catalogue metric (a value or "N/A")?
-- run_state.json's names for the catalogue's figures that another figure of the report shares
-- a name with: its metrics hold the harness's own completed / window (the catalogue's
-- throughput_req_s, llmd.metrics), while comparison.csv's and comparison.json's
-- throughput_req_s is the answers' pace or the drain-reduced rate (the decision layer's
-- achieved_rps: 7.095 against 5.865 req/s, audit49 F6). One meaning per name: the harness's
-- figures are harness_throughput_* here, as the load points' harness_rps / harness_tps are;
-- a run_state.json written before (the old names) is read all the same (M.state_metric).
M.STATE_NAMES = { throughput_req_s = "harness_throughput_req_s", throughput_tok_s = "harness_throughput_tok_s",
  throughput_total_tok_s = "harness_throughput_total_tok_s" }

-- A catalogue figure of run_state.json's metrics (or metrics_reasons: part), by the
-- catalogue's key: its name there (M.STATE_NAMES), else the name older workspaces wrote.
function M.state_metric(state, key, part)
  local t = state[part or "metrics"]
  if type(t) ~= "table" then return nil end
  local v = t[M.STATE_NAMES[key] or key]
  if v == nil then v = t[key] end
  return v
end

function M.metrics_complete(state)
  if type(state.metrics) ~= "table" then return false end
  for _, m in ipairs(metrics.list) do
    if M.state_metric(state, m.key) == nil then return false end
  end
  return true
end

-- Saves the run's metrics into run_state.json and the whole run model beside it.
function M.save_run(w, side)
  local st, run = side.state, side.run
  local mt, why = json.object {}, json.object {}
  for _, m in ipairs(metrics.list) do
    local v = run.overall.values[m.key]
    if v == math.huge then v = "+inf" elseif v == -math.huge then v = "-inf" end
    local name = M.STATE_NAMES[m.key] or m.key
    mt[name] = v ~= nil and v or "N/A"
    if v == nil then why[name] = run.overall.na[m.key] or "unknown" end
  end
  st.metrics, st.metrics_reasons = mt, why
  st.status = run.status
  -- a run cut short (llmd.harness: run.partial): its figures are not a complete run's
  st.partial = run.partial
  -- the SLOs goodput was counted against (analyze.lua re-reads the results for others)
  st.goodput_slo = decision.slo_phrase(side.slo or {})
  st.status_reasons = json.array(run.reasons)
  st.benchmark = st.benchmark or {}
  if st.benchmark.harness == nil or st.benchmark.harness == "unknown" then st.benchmark.harness = run.harness end
  ws.write_state(w.path, side.x, st)
  local doc = rm.to_plain(run)
  doc.kv = report.plain(side.kv)
  json.write(ws.run_dir(w, side.x) .. "/run_model.json", doc)
end

-- A side from what the workspace saved (analyze.lua), or nil when it cannot be trusted.
function M.saved_side(w, x, state)
  local p = ws.run_dir(w, x) .. "/run_model.json"
  if not M.metrics_complete(state) or lfs.attributes(p, "mode") ~= "file" then return nil end
  local doc = json.read(p)
  local run = rm.from_plain(doc, p)
  -- run_state.json's metrics are the record: they win over the saved model
  for _, m in ipairs(metrics.list) do
    local v = M.state_metric(state, m.key)
    if v == "+inf" then v = math.huge end
    if type(v) == "number" then
      run.overall.values[m.key], run.overall.na[m.key] = v, nil
    else
      run.overall.values[m.key] = nil
      run.overall.na[m.key] = M.state_metric(state, m.key, "metrics_reasons") or run.overall.na[m.key] or "unknown"
    end
  end
  local kv = type(doc.kv) == "table" and doc.kv or { available = false, reason = "not saved" }
  local side = { x = x, label = state.label, state = state, run = run, kv = kv }
  side.old_saturation = M.old_saturation(doc, run)
  if side.old_saturation then
    run.warnings = run.warnings or {}
    run.warnings[#run.warnings + 1] = ("%s; %s reads the results again and judges saturation by the pace or the "
      .. "drain-reduced rate"):format(side.old_saturation, M.reextract_command(w.path))
    -- (the verdict says it too, per run: its figures rest on the saturation, llmd.report)
    run.old_rule = M.reextract_command(w.path)
  end
  local gpus = M.old_gpus(doc, run)
  if gpus then
    -- (the per-GPU figures N/A with it, llmd.report's gpus_of; a warning in the Data checks, and
    -- on stderr from analyze.lua)
    run.gpus_stale = ("%s; %s reads the results again"):format(gpus, M.reextract_command(w.path))
    run.warnings = run.warnings or {}
    run.warnings[#run.warnings + 1] = run.gpus_stale
  end
  return side
end

-- Why a saved model's GPU count is one replica's, or nil: since session 43 a v0.2 benchmark
-- report's stack counts count x replicas GPUs (llmd.harness.benchmark_report), and models
-- saved since say so (gpus_replicas_saved); one saved before, whose stack has more than one
-- replica (its replicas row), kept one replica's count, which would make every per-GPU figure
-- too high by that factor. (With one replica each the two rules agree: nothing to say.)
function M.old_gpus(doc, run)
  if doc.gpus_replicas_saved == true or type(run.gpus) ~= "number" then return nil end
  if run.gpus_source ~= "the benchmark report's stack" then return nil end
  local reps = type(run.config) == "table" and run.config.replicas
  if type(reps) ~= "string" then return nil end
  local more = false
  for n in reps:gmatch("%d+") do if tonumber(n) > 1 then more = true end end
  if not more then return nil end
  return ("its GPU count, %d from the benchmark report's stack, was saved before GPUs were counted as count × "
    .. "replicas (replicas %s): one replica's, so its per-GPU figures are N/A"):format(run.gpus, reps)
end

-- A path as one shell word: bare where it holds nothing a shell reads, else single-quoted.
local function shell_word(path)
  return path:match("^[%w@%%+=:,./_%-]+$") and path or "'" .. path:gsub("'", "'\"'\"'") .. "'"
end

-- The command that reads a workspace's results again (analyze.lua --reextract), its path as
-- one shell word.
function M.reextract_command(path)
  return ("`llmdlua analyze.lua %s --reextract`"):format(shell_word(path))
end

-- A run model saved before saturation was judged without the drain (doc: run_model.json,
-- run: rm.from_plain of it): where a rate-based stage has no per-request pace, its saturation
-- is judged by the achieved rate, whose window counts the last requests' own latency (a
-- server that kept up with long answers reads saturated). The text that says so, or nil (a
-- model saved since, which has each stage's drain-reduced figures where its files give them).
-- Likewise a model saved before the answers' pace was read by the slope of their finish times
-- on their start times (llmd.runmodel.pace): a paced stage without `slope` had its answers'
-- rate read over the middle 80 % of their own finish times, which a spread of latencies widens
-- as a queue would (a server that kept up can read saturated), and that rate is the one
-- max sustained throughput and capacity rank. (Every pace read since has a slope, or no
-- answers' rate at all where the slope cannot be read.) Both said where both apply.
--
-- A model saved since but before files with latency statistics only were judged by their
-- bounds (no drain_stats_saved: llmd.runmodel.drain_from_stats): its stages of such files
-- (vLLM without latencies, inferencemax, benchmark reports) are judged by the achieved rate
-- likewise, said so.
-- (guidellm's aggregate-only benchmarks too, before their drain-reduced rate was read from
-- request_latency: no guidellm_drain_saved; llmd.harness.guidellm)
local STATS_ONLY = { ["vllm-benchmark"] = true, inferencemax = true, ["benchmark-report"] = true }
local function stats_only_stages(doc, run)
  if doc.drain_saved ~= true then return {} end
  if doc.harness == "guidellm" then
    if doc.guidellm_drain_saved == true then return {} end
  elseif doc.drain_stats_saved == true or not STATS_ONLY[doc.harness] then
    return {}
  end
  -- (only a stage a statistics-only record is made for: successes and a window; with no e2e
  -- statistic at p5 or below one too, since agg37b: a shortfall N/A, not the old rule)
  local function has_record(st)
    local v = st.metrics and st.metrics.values or {}
    return type(v.requests_ok) == "number" and v.requests_ok > 0 and type(v.duration_s) == "number"
      and v.duration_s > 0
  end
  local stages = {}
  for _, st in ipairs(run.stages) do
    if not st.warmup and type(st.rate) == "number" and st.rate > 0 and not st.pace and not st.drain and has_record(st)
    then
      stages[#stages + 1] = tostring(st.index)
    end
  end
  return stages
end
function M.old_saturation(doc, run)
  local stages, spans, failed, bounded = {}, {}, {}, stats_only_stages(doc, run)
  for _, st in ipairs(run.stages) do
    if not st.warmup and type(st.rate) == "number" and st.rate > 0 then
      local pace = st.pace
      if not pace and doc.drain_saved ~= true then
        stages[#stages + 1] = tostring(st.index)
      elseif type(pace) == "table" and type(pace.answer_rps) == "number" and type(pace.slope) ~= "number" then
        spans[#spans + 1] = tostring(st.index)
      elseif type(pace) == "table" and type(pace.slope) == "number" and pace.slope_of == nil
        and type(pace.succeeded) == "number" and type(pace.answered) == "number" and pace.succeeded >= 3
        and pace.succeeded < pace.answered then
        -- (a slope fitted through failed requests too, before it ran through the successes)
        failed[#failed + 1] = tostring(st.index)
      end
    end
  end
  local function which(list)
    return ("stage%s %s %s"):format(#list == 1 and "" or "s", table.concat(list, ", "), #list == 1 and "is" or "are")
  end
  local parts = {}
  if #spans > 0 then
    parts[#parts + 1] = ("saved before llmdlua read the answers' pace by the slope of their finish times on their "
      .. "start times: %s judged by the answers' rate over the middle 80 %% of their own finish times, which a spread "
      .. "of latencies widens as a queue would (a server that kept up can read saturated), and ranked by it"):format(
      which(spans))
  end
  if #failed > 0 then
    parts[#parts + 1] = ("saved before llmdlua fitted the answers' pace through the successful requests only: %s "
      .. "judged by a slope through its failed requests too, which vLLM records with latency 0, so that a crashed "
      .. "repeat's queue can read kept up"):format(which(failed))
  end
  if #stages > 0 then
    parts[#parts + 1] = ("saved before llmdlua judged saturation without per-request start times by the "
      .. "drain-reduced rate, completed / (window - least latency): %s judged by the achieved rate, which also counts "
      .. "the last requests' own latency (a server that kept up with long answers can read saturated)"):format(
      which(stages))
  end
  if #bounded > 0 and doc.harness == "guidellm" then
    parts[#parts + 1] = ("saved before llmdlua read guidellm's benchmarks without their requests by the drain-reduced "
      .. "rate, completed / (window - request_latency's least): %s judged by the achieved rate, which also counts the "
      .. "last requests' own latency (a server that kept up with long answers can read saturated)")
      :format(which(bounded))
  elseif #bounded > 0 then
    parts[#parts + 1] = ("saved before llmdlua bounded the least latency of files with latency statistics only by "
      .. "their lowest e2e percentile (a shortfall N/A where nothing bounds it): %s judged by the achieved rate, which "
      .. "also counts the last requests' own latency (a server that kept up with long answers can read saturated)")
      :format(which(bounded))
  end
  if #parts == 0 then return nil end
  return table.concat(parts, "; ")
end

-- The templates folder to render with: the workspace's own copy when it has one.
function M.templates_dir(w)
  local own = w.path .. "/templates"
  if lfs.attributes(own .. "/comparison_report.md", "mode") == "file" then return own end
  return host.root .. "/templates"
end

-- The template called name (e.g. "charts/errors.gp"): from tdir, else the installed one
-- (a workspace made before that template existed).
function M.template_path(tdir, name)
  local p = tdir .. "/" .. name
  if lfs.attributes(p, "mode") == "file" then return p end
  return host.root .. "/templates/" .. name
end

-- The workspace's own templates (WORKSPACE/templates/) that differ from this llmdlua's, by
-- name ("charts/latency_throughput.gp"): a copy made by an earlier version, or the user's
-- edits. The copies carry no version marker, so the two cannot be told apart: analyze.lua
-- draws with them as they are (never rewriting the user's files) and says once which they
-- are and how to take this version's (M.templates_note).
function M.templates_differ(w)
  local own, out = w.path .. "/templates", {}
  if own == host.root .. "/templates" then return out end
  local names = {}
  for _, n in ipairs(M.TEMPLATES) do names[#names + 1] = n end
  for _, n in ipairs(M.CHART_TEMPLATES) do names[#names + 1] = n end
  local function read(p)
    local f = io.open(p, "rb")
    if not f then return nil end
    local text = f:read("a")
    f:close()
    return text
  end
  for _, name in ipairs(names) do
    local mine = read(own .. "/" .. name)
    if mine and mine ~= read(host.root .. "/templates/" .. name) then out[#out + 1] = name end
  end
  return out
end

-- One line saying which of the workspace's templates differ from this version's (names:
-- M.templates_differ) and how to refresh them; nil where none does.
function M.templates_note(w, names)
  if #names == 0 then return nil end
  local dir = w.path .. "/templates"
  local one = #names == 1
  return ("Note: %d of the workspace's templates %s from this llmdlua's (%s): %s made by an earlier version "
    .. "(whose charts lack what this one draws) or your own edits, used as %s; to draw with this version's, "
    .. "delete %s from %s (your edits go with %s) and run %s again: a missing template is copied in from %s")
    :format(#names, one and "differs" or "differ", table.concat(names, ", "), one and "a copy" or "copies",
    one and "it is" or "they are", one and "it" or "them", shell_word(dir), one and "it" or "them",
    "`llmdlua analyze.lua " .. shell_word(w.path) .. "`", host.root .. "/templates")
end

local function copy_templates(w, from)
  local to = w.path .. "/templates"
  local names = {}
  for _, n in ipairs(M.TEMPLATES) do names[#names + 1] = n end
  for _, n in ipairs(M.CHART_TEMPLATES) do names[#names + 1] = n end
  for _, name in ipairs(names) do
    local src, dst = M.template_path(from, name), to .. "/" .. name
    if src ~= dst and (from ~= to or lfs.attributes(dst, "mode") ~= "file") then
      local f = io.open(src, "rb")
      if f then
        local text = f:read("a")
        f:close()
        ws.mkdir_p(dst:match("^(.*)/[^/]*$"))
        ws.write_text(dst, text)
      end
    end
  end
end

-- Starts drawing the charts that do not need the comparison model (llmd.charts.NEEDS_MODEL),
-- from the two sides alone: gnuplot draws them while the caller builds the model (idle:
-- M.spawn_charts' gnuplot, else one started here). M.charts takes what this returns
-- (charts.abort(early.pending) stops it if the caller fails first).
function M.start_charts(w, A, B, tdir, idle)
  local names = {}
  for _, name in ipairs(charts.NAMES) do
    if not charts.NEEDS_MODEL[name] then names[#names + 1] = name end
  end
  local early = { gp = charts.gnuplot(), list = charts.prepare(nil, A, B, names) }
  if early.gp then
    early.pending = charts.start(early.list, function(name) return M.template_path(tdir, name) end,
      w.path .. "/charts", early.gp, idle)
  end
  return early
end

-- Starts the gnuplot that will draw the comparison's charts (llmd.charts.spawn_idle), idle
-- until M.start_charts and M.charts give it the charts: its start, most of its time, is
-- spent while the runs are read or the model is built. Returns what M.start_charts, M.charts
-- and M.report take (opts.charts_idle); llmd.charts.abort_idle stops it. nil without gnuplot.
function M.spawn_charts(w)
  return charts.spawn_idle(w.path .. "/charts", charts.gnuplot())
end

-- The charts of the comparison (llmd.charts), drawn into WORKSPACE/charts/ when gnuplot
-- is there; model.charts for the templates either way (its failed: the charts gnuplot
-- failed to draw, left out with the reason). early: M.start_charts' for the same sides
-- (else started here); idle: M.spawn_charts' (ended here: drawn, or stopped).
function M.charts(w, model, A, B, tdir, early, idle)
  early = early or M.start_charts(w, A, B, tdir, idle)
  local failed = {}
  local gp, out = early.gp, w.path .. "/charts"
  local names, by = {}, {}
  for _, c in ipairs(early.list) do by[c.name] = c end
  for _, name in ipairs(charts.NAMES) do
    if not by[name] then names[#names + 1] = name end
  end
  local ok, late = pcall(charts.prepare, model, A, B, names)
  if not ok then
    charts.abort(early.pending)
    charts.abort_idle(idle)
    error(late, 0)
  end
  for _, c in ipairs(late) do by[c.name] = c end
  charts.model_notes(model, early.list)
  local list = {}
  for _, name in ipairs(charts.NAMES) do list[#list + 1] = by[name] end
  if gp then
    local templates = function(name) return M.template_path(tdir, name) end
    local started, pending = pcall(charts.start, late, templates, out, gp, idle)
    if not started then
      charts.abort(early.pending)
      error(pending, 0)
    end
    -- a chart gnuplot fails to draw (a template edited wrong, a text gnuplot misreads) is
    -- left out with gnuplot's words as its reason: the report is written all the same, and
    -- the caller says it failed (M.report's chart_failures)
    failed = charts.finish({ early.pending, pending }, charts.NAMES, { keep_going = true })
    charts.remove_stale(list, out)
  elseif lfs.attributes(out, "mode") == "directory" then
    charts.abort_idle(idle)
    charts.remove_stale(list, out)
  end
  local section = charts.section(list, not gp and charts.NO_GNUPLOT or nil)
  section.failed = failed
  return section
end

-- What is known of a run, for run_comparison.sh: its state's keys, and the load stages as
-- the report shows them. run_state.json holds load_stages only where they were stated (an
-- info file's or the plan's load_stages:); the stages the result files hold are read by the
-- harness (run.stages), so those are shown, marked so, and a run that names none says why
-- instead of "unknown".
local function state_text(state, run)
  local lines = { ("label: %s"):format(state.label), ("timestamp: %s"):format(tostring(state.timestamp)) }
  -- (an imported run llmdlua benchmarked: where its configuration was read)
  if type(state.config_from) == "string" then lines[#lines + 1] = state.config_from end
  for _, part in ipairs { "stack", "benchmark" } do
    for _, k in ipairs(ws.STATE_KEYS[part]) do
      local v = tostring((state[part] or {})[k] or "unknown")
      if part == "benchmark" and k == "load_stages" and v:match("^unknown") then
        local read = report.stages_read(run)
        if read then
          lines[#lines + 1] = ("benchmark.load_stages: %s (read from the results)"):format(read)
        else
          lines[#lines + 1] = ("(benchmark.load_stages left out: %s, and the result files name no load stage)")
            :format(v:match("^unknown %((.*)%)$") or "not stated")
        end
      else
        lines[#lines + 1] = ("%s.%s: %s"):format(part, k, v)
      end
    end
  end
  lines[#lines + 1] = "results: " .. tostring(state.results_path or "unknown")
  return table.concat(lines, "\n")
end

-- The warning that two runs hold the same results, byte for byte (files: how many), or the
-- same figures in other bytes (files nil): one run compared with itself. dir_a, dir_b: the
-- folders as the user knows them. bases (rm.throughput_bases_differ, with the same figures):
-- the two read their throughput two ways (a run and its benchmark reports), which the
-- warning says, since the figures the report ranks then differ although the harness's are
-- equal (the trial's "every figure ... is equal" beside capacities of 7.54 and 7.25 req/s).
-- rerun: the two recorded the same configuration (report.same_recorded_config: a run and its
-- re-run), where "give the other run's results folder" is no advice: the re-run's own
-- results are what it lacks.
function M.identical_text(dir_a, label_a, dir_b, label_b, files, bases, rerun)
  local text = M.identical_text_plain(dir_a, label_a, dir_b, label_b, files, bases)
  if not rerun then return text end
  return (text:gsub("; give the other run's results folder$", "; both recorded the same configuration (a re-run), "
    .. "so only the re-run's own results, measured again, show its run-to-run variation"))
end

function M.identical_text_plain(dir_a, label_a, dir_b, label_b, files, bases)
  if files then
    return ("the two runs' results are identical (same files): %s (%s) and %s (%s) hold the same %d file%s, "
      .. "byte for byte, so this compares one measurement with itself, not two configurations; give the other "
      .. "run's results folder"):format(dir_a, label_a, dir_b, label_b, files, files == 1 and "" or "s")
  end
  if bases then
    return ("%s (%s) and %s (%s) hold the same results (the files differ, but every figure their harness "
      .. "recorded at every load point is equal to the last digit: the same requests, saved twice), read two ways: "
      .. "%s's throughput is %s, %s's %s, so the capacities, max sustained throughputs and achieved rates below "
      .. "differ by that reading alone, not by any configuration: this compares a run with itself, not two "
      .. "configurations; give the other run's results folder"):format(dir_a, label_a, dir_b, label_b, label_a,
      bases.a, label_b, bases.b)
  end
  return ("%s (%s) and %s (%s) hold the same results (the files differ, but every figure of every load "
    .. "point is equal to the last digit: the same requests, saved twice): this compares a run with itself, not "
    .. "two configurations; give the other run's results folder"):format(dir_a, label_a, dir_b, label_b)
end

-- compare.lua's check that the two runs are not one (the same files byte for byte, or the
-- same figures), on the workspace's results (run-x/results, copies or links): the text of
-- M.identical_text, or nil. Every path to a report runs it (compare.lua --a/--b does it on
-- the user's folders before copying them; --plan and --resume, analyze.lua here).
function M.identical(w, A, B)
  local plans = {}
  for _, s in ipairs { A, B } do
    local ok, plan = pcall(ws.plan_import, ws.run_dir(w, s.x) .. "/results")
    plans[#plans + 1] = ok and plan or { files = {} }
  end
  local function where(s)
    local st = s.state or {}
    return tostring(type(st.source_path) == "string" and st.source_path or ws.run_dir(w, s.x) .. "/results")
  end
  local function pairs_of(files)
    local out = {}
    for i, f in ipairs(files) do out[i] = { rel = f.rel, path = f.from } end
    return out
  end
  local fa = plans[1].files
  local rerun = report.same_recorded_config(A.state, B.state)
  if rm.same_files(pairs_of(fa), pairs_of(plans[2].files)) then
    return M.identical_text(where(A), A.label, where(B), B.label, #fa, nil, rerun)
  end
  if rm.same_figures(A.run, B.run) then
    return M.identical_text(where(A), A.label, where(B), B.label, nil, rm.throughput_bases_differ(A.run, B.run),
      rerun)
  end
  return nil
end

-- A result file of one run that is byte for byte one of the other run's (rm.shared_files),
-- where the two folders are not the same files throughout (an A/A check, M.identical): a file
-- copied from the other run, read as this run's (a load point, a summary): refused, naming both
-- files, as no figure of the comparison can be trusted to be its run's (newuser55 #1: B's
-- stage 3 in A's folder gave A's verdict 127.76 req/s, B's figure). Each run's files are read
-- where the user has them (state.source_path) where they still are, else the workspace's copy.
function M.check_shared_files(w, A, B)
  local function files_of(s)
    local out = {}
    local root = ws.run_dir(w, s.x) .. "/results"
    local src = type(s.state) == "table" and type(s.state.source_path) == "string" and s.state.source_path or nil
    for _, p in ipairs(type(s.run) == "table" and type(s.run.files) == "table" and s.run.files or {}) do
      if type(p) == "string" then
        local rel = p:match("/run%-[ab]/results/(.+)$")
        local mine = rel and src and (src .. "/" .. rel)
        if mine and lfs.attributes(mine, "mode") == "file" then
          out[#out + 1] = mine
        elseif rel and lfs.attributes(root .. "/" .. rel, "mode") == "file" then
          out[#out + 1] = root .. "/" .. rel
        elseif lfs.attributes(p, "mode") == "file" then
          out[#out + 1] = p
        end
      end
    end
    return out
  end
  local pairs_ = rm.shared_files(files_of(A), files_of(B))
  if #pairs_ == 0 then return end
  local more = #pairs_ - 1
  error(("run A (%s)'s result file %s is byte for byte run B (%s)'s %s: one measurement cannot be both runs' (a "
    .. "file copied from the other run's folder?), so the comparison is refused%s; give each run its own results")
    :format(A.label, pairs_[1][1], B.label, pairs_[1][2],
      more > 0 and (" (and %d more such pair%s)"):format(more, more == 1 and "" or "s") or ""), 0)
end

-- The helm releases a deploy command (its argv) installs, upgrades or removes: helm
-- upgrade/install's release; helmfile apply/sync's are the run's (what its deploy added, in
-- run-x/deployed.json: the helmfile's releases); none for anything else.
local function deploy_releases(argv, recorded)
  local tool = tostring(argv[1] or ""):match("([^/]+)$") or ""
  local args = {}
  for i = 2, #argv do args[#args + 1] = tostring(argv[i]) end
  if tool ~= "helm" and tool ~= "helmfile" then return {} end
  local ok, p = pcall(require("llmd.k8s").parse, tool, args)
  if not ok then return {} end
  local verb = p.words[1]
  if tool == "helm" and (verb == "upgrade" or verb == "install") then
    for _, f in ipairs(p.flags) do
      if f.name == "generate-name" or f.name == "name-template" then return {} end
    end
    return { p.words[2] }
  elseif tool == "helmfile" and (verb == "apply" or verb == "sync") then
    return recorded
  end
  return {}
end

-- run_comparison.sh's deploy lines for run x: its recorded deploy command ("(cd DIR && ...)",
-- as commands list it) -> "deploy X DIR RELEASES COMMAND", the script's function that refuses
-- a release there that this comparison did not deploy (templates/run_comparison.sh).
local function deploy_lines(w, x)
  local out = {}
  local path = ws.run_dir(w, x) .. "/deployed.json"
  if lfs.attributes(path, "mode") ~= "file" then return out end
  -- (a record that is not JSON: its reader's error, not a script without its deploy lines)
  local d = json.read(path)
  if type(d) ~= "table" then return out end
  local recorded = {}
  for _, n in ipairs(type(d.releases) == "table" and d.releases or {}) do recorded[#recorded + 1] = tostring(n) end
  local sh = template.helpers.sh
  for _, e in ipairs(type(d.deploy_commands) == "table" and d.deploy_commands or {}) do
    if type(e) == "table" and type(e.command) == "string" and type(e.argv) == "table" and #e.argv > 0 then
      out[e.command] = ("deploy %s %s %s %s"):format(x, sh(tostring(e.dir or ".")),
        sh(table.concat(deploy_releases(e.argv, recorded), " ")), require("llmd.k8s").cmdline(e.argv))
    end
  end
  return out
end

-- What run_comparison.sh is written from, as the workspace recorded it: each run's
-- commands, its benchmark command, its teardown as it ran, the results PVC and the gateway
-- Service (run-x/deployed.json), its benchmark configuration (run-x/benchmark/config.yaml)
-- and the namespace (cluster.json), all written by compare.lua --plan. M.report takes from
-- here what its caller does not give: analyze.lua, or a --resume that did not run the
-- benchmark again, re-writes the script as the comparison wrote it. {} where nothing was
-- recorded (a comparison of existing runs).
function M.script_records(w)
  local rec = { commands = {}, bench_commands = {}, teardown_commands = {}, config_text = {}, service_commands = {} }
  local function read_json(p)
    if lfs.attributes(p, "mode") ~= "file" then return nil end
    -- (one that is not JSON: its reader's error, not a script missing what it recorded)
    local v = json.read(p)
    return type(v) == "table" and v or nil
  end
  local function strings(list)
    if type(list) ~= "table" or #list == 0 then return nil end
    local out = {}
    for i, c in ipairs(list) do out[i] = tostring(c) end
    return out
  end
  -- (run b's record last: it holds the PVC and gateway the comparison ended with)
  for _, x in ipairs { "a", "b" } do
    local dir = ws.run_dir(w, x)
    local d = read_json(dir .. "/deployed.json")
    if d then
      rec.commands[x] = strings(d.commands)
      rec.bench_commands[x] = type(d.bench_command) == "string" and d.bench_command or nil
      rec.teardown_commands[x] = strings(d.teardown_commands)
      rec.service_commands[x] = type(d.service_command) == "string" and d.service_command or nil
      if type(d.pvc) == "string" and d.pvc ~= "" then rec.pvc = d.pvc end
      if type(d.gateway_svc) == "string" and d.gateway_svc ~= "" then rec.gateway_svc = d.gateway_svc end
    end
    local f = io.open(dir .. "/benchmark/config.yaml", "rb")
    if f then
      rec.config_text[x] = f:read("a")
      f:close()
    end
  end
  local c = read_json(w.path .. "/cluster.json")
  if c and type(c.namespace) == "string" then rec.namespace = c.namespace end
  return rec
end

-- The folders the workspace w was written in: where it is now, and where its runs' states
-- say their results were (run-x/results of the folder it was made in, before a copy or a
-- move), and was (analyze.lua's list of those, when it has read the states as this
-- folder's); longest first.
local function workspace_roots(w, A, B, was)
  local roots, seen = {}, {}
  local function add(p)
    if type(p) == "string" and p ~= "" and p ~= "/" and not seen[p] then
      seen[p] = true
      roots[#roots + 1] = p
    end
  end
  add(w.path)
  for _, p in ipairs(was or {}) do add(p) end
  for _, s in ipairs { A, B } do
    local rp = type(s.state) == "table" and s.state.results_path
    if type(rp) == "string" then add(rp:match("^(.+)/run%-" .. s.x .. "/results$")) end
  end
  table.sort(roots, function(p, q) return #p > #q end)
  return roots
end
M.workspace_roots = workspace_roots

-- A command line as run_comparison.sh shows it (its words quoted as llmd.template's sh
-- quotes them) with every word that is the workspace (one of roots) or a path in it, also
-- as a flag's value (--config=PATH), written "$COMPARISON_DIR"/...: uncommented, the line
-- uses the folder the script is in, so that a copy of the workspace works on its own files.
local DIR = '"$COMPARISON_DIR"'
local function in_workspace_word(word, root, esc, bare)
  local q = word:sub(1, 1) == "'"
  if not q and not bare then return word end -- (a root that needs quotes is only ever quoted)
  local body = q and word:sub(2) or word
  local flag = body:match("^%-%-?%w[%w%-_.]*=") or ""
  local rest = body:sub(#flag + 1)
  local r = q and esc or root
  if rest:sub(1, #r) ~= r then return word end
  local after = rest:sub(#r + 1)
  if q then
    local lead = flag ~= "" and "'" .. flag .. "'" or ""
    if after == "'" then return lead .. DIR end
    if after:sub(1, 1) == "/" then return lead .. DIR .. "'" .. after end
  elseif after == "" or after:sub(1, 1) == "/" then
    return flag .. DIR .. after
  end
  return word
end

function M.in_workspace(cmd, roots)
  for _, root in ipairs(roots) do
    local esc = root:gsub("'", "'\\''")
    local bare = template.helpers.sh(root) == root
    local out, i = {}, 1
    while i <= #cmd do
      local sp = cmd:match("^ +", i)
      if sp then
        out[#out + 1] = sp
        i = i + #sp
      else
        -- one word: quoted ('...', with '\'' inside), else up to the next space
        local j
        if cmd:sub(i, i) == "'" then
          local k = i
          while true do
            local close = cmd:find("'", k + 1, true)
            if not close then
              j = #cmd
              break
            end
            if cmd:sub(close, close + 3) == "'\\''" then
              k = close + 3
            else
              j = close
              break
            end
          end
          -- (a quoted word runs on to the next space: 'a'b is one word)
          j = (cmd:find(" ", j + 1, true) or #cmd + 1) - 1
        else
          j = (cmd:find(" ", i, true) or #cmd + 1) - 1
        end
        out[#out + 1] = in_workspace_word(cmd:sub(i, j), root, esc, bare)
        i = j + 1
      end
    end
    cmd = table.concat(out)
  end
  return cmd
end

-- Renders and writes the report, comparison.json, comparison.csv and run_comparison.sh.
-- opts: generated (epoch), significance (saved tests by metric key), commands ({a=, b=}),
-- config_text ({a=, b=}), namespace, pvc, gateway_svc, quiet, slo (parsed list; default:
-- the info files'), min_effect (%). The model it returns has chart_failures: one line for
-- each chart gnuplot failed to draw (written without it, its reason in the report), which
-- the caller says as an error once the report is written.
function M.report(w, A, B, opts)
  opts = opts or {}
  if A.label == B.label then
    error(("both runs are labelled '%s'; give them different labels (--a-label / --b-label)"):format(A.label), 0)
  end
  local tdir = M.templates_dir(w)
  -- identical runs: checked here when the caller did not (opts.identical false: checked,
  -- not identical), and said on stderr as compare.lua says it
  local identical = opts.identical
  if identical == nil then
    identical = M.identical(w, A, B)
    if identical then io.stderr:write(opts.prog or "compare.lua", ": warning: ", identical, "\n") end
  end
  -- (the same files throughout is an A/A check, said above; some of them shared is a copy)
  if not identical then M.check_shared_files(w, A, B) end
  -- the charts' gnuplot is started (opts.charts_idle: by the caller, earlier still), and
  -- given the charts drawn from the sides alone: it starts and draws them on the other core
  -- while the model is built (the significance tests take a while on large runs)
  local idle = opts.charts_idle
  if idle == nil then idle = M.spawn_charts(w) end
  -- (the throughputs on one basis before any chart draws them: llmd.report.like_for_like)
  report.like_for_like(A, B)
  local early_ok, early = pcall(M.start_charts, w, A, B, tdir, idle)
  if not early_ok then
    charts.abort_idle(idle)
    error(early, 0)
  end
  local slo = M.resolve_slo(A, B, opts)
  local built, model = pcall(report.build, { workspace = w.path, a = A, b = B, generated = opts.generated,
    significance = opts.significance, slo = slo, min_effect = opts.min_effect,
    identical = identical or nil, slo_where = opts.slo_where or "SLO",
    slo_source = opts.slo_where ~= "--slo" and M.slo_source(A, B, slo) or nil })
  if not built then
    charts.abort(early.pending)
    charts.abort_idle(idle)
    error(model, 0)
  end
  -- --slo over a run's own slo: (which it replaces for both runs): said, never silently, naming
  -- where that SLO came from: the run's info file, the record it was imported with, or (a
  -- --plan run's run_state.json, slo_by) the plan's slo: or the --slo its comparison was given,
  -- said once where both runs record the same
  if opts.slo and opts.slo_where == "--slo" then
    local at, said = 1, {}
    for _, s in ipairs { A, B } do
      local st = s.state or {}
      if type(st.slo) == "table" and next(st.slo) ~= nil then
        local pok, own = pcall(decision.parse_slo, st.slo, "slo")
        if pok and not decision.same_slo(own, opts.slo) then
          local whose
          if st.slo_from then
            whose = ("the slo: of %s's record, %s"):format(st.label, st.slo_from)
          elseif st.slo_by then
            local other = (s == A and B or A).state or {}
            local both = other.slo_by == st.slo_by and not other.slo_from and type(other.slo) == "table"
              and decision.same_slo(select(2, pcall(decision.parse_slo, other.slo, "slo")) or {}, own)
            whose = ("%s, which %s (slo_by: %s)"):format(st.slo_by == "plan" and "the plan's slo:"
              or "the --slo the comparison was made with", both and "both runs' run_state.json record"
              or ("%s's run_state.json records"):format(st.label), st.slo_by)
          else
            whose = ("the slo: of %s's info file"):format(st.label)
          end
          local line = ("--slo replaced %s (%s): this report applies %s to both runs"):format(whose,
            decision.slo_phrase(own), decision.slo_phrase(opts.slo))
          if not said[line] then
            said[line] = true
            table.insert(model.slo_checks, at, line)
            at = at + 1
          end
        end
      end
    end
  end
  -- the comparison's own SLO (the one compare.lua applied: its --slo, the plan's slo:, or the
  -- runs' info files and records), which a later analyze.lua without --slo applies again: an
  -- analyze.lua --slo holds for its own report only (opts.slo_own: analyze.lua's, kept)
  local own = opts.slo_own or slo
  local own_list = json.array {}
  for _, e in ipairs(own) do own_list[#own_list + 1] = { key = e.key, max = e.max } end
  model.comparison_slo = own_list
  model.comparison_slo_by = opts.slo_own_by or (#own == 0 and "none given")
    or (opts.slo_where == "--slo" and "compare.lua's --slo")
    or (((A.state or {}).slo_by == "plan") and "the plan's slo:")
    or (((A.state or {}).slo_by == "--slo") and "compare.lua's --slo")
    or "the runs' info files or records"
  -- the comparison's own practical threshold (compare.lua's --min-effect, else the default),
  -- which a later analyze.lua without --min-effect applies again, as its SLO (tidy55: an
  -- analyze.lua --min-effect stuck to every later report; opts.min_effect_own: analyze.lua's, kept)
  model.comparison_min_effect = opts.min_effect_own or model.min_effect
  model.comparison_min_effect_by = opts.min_effect_own_by
    or (opts.min_effect and (opts.prog == "analyze.lua" and "analyze.lua's --min-effect (the comparison recorded "
      .. "none)" or "compare.lua's --min-effect"))
    or "the default"
  -- an SLO that looks like it is in the wrong unit: said here too, as the Data checks say it
  for _, c in ipairs(model.slo_checks) do io.stderr:write(opts.prog or "compare.lua", ": warning: ", c, "\n") end
  tl.mark("report model")
  model.charts = M.charts(w, model, A, B, tdir, early, idle)
  tl.mark("charts")
  -- the report's files are rendered first and written as one set at the end (ws.write_set):
  -- a failure (a full disk) leaves the earlier report whole, never a markdown of one verdict
  -- beside a JSON, CSV and HTML of another (audit48 S6)
  local text = template.render_file(tdir .. "/comparison_report.md", model)
  local out = w.path .. "/comparison_report.md"
  tl.mark("markdown")
  local html_out = w.path .. "/comparison_report.html"
  local html = template.render_file(M.template_path(tdir, "comparison_report.html"), model)
  tl.mark("html")
  -- comparison.json: which charts were drawn and why not, without their SVG
  local chart_list = model.charts
  model.charts = { note = chart_list.note, list = {} }
  for _, c in ipairs(chart_list.list) do
    model.charts.list[#model.charts.list + 1] = { name = c.name, title = c.title, drawn = c.drawn,
      reason = c.reason, file = c.file, notes = c.notes }
  end
  local plain = report.plain(model)
  plain.directions = report.directions(model)
  -- the matched load's test by the name the performance rows' test field uses (decision.test_code):
  -- its test object's own test is the family's, mann_whitney for an exact or a stratified test too
  local mp = model.matched_point
  if type(plain.matched_point) == "table" and type(mp) == "table" and type(mp.test) == "table" then
    plain.matched_point.test_name = decision.test_code(mp.test)
  end
  model.charts = chart_list
  local json_text = json.encode(plain, { indent = 2 }) .. "\n" -- (as json.write writes it)
  local csv = report.csv(model)
  tl.mark("json, csv")

  local sides = {}
  -- what the caller does not give, as the workspace recorded it (analyze.lua gives nothing)
  local rec = M.script_records(w)
  local roots = workspace_roots(w, A, B, opts.workspace_was)
  local function given(key, x)
    local v = (opts[key] or {})[x]
    if v == nil or (type(v) == "table" and #v == 0) then v = rec[key][x] end
    return v
  end
  for _, s in ipairs { A, B } do
    local st = s.state
    -- the benchmark command (the one recorded as such, else run_only.sh) is written as
    -- "benchmark X COMMAND": the script's function that checks it (templates/run_comparison.sh)
    local bench = given("bench_commands", s.x)
    local deploys = deploy_lines(w, s.x)
    local commands = {}
    local listed = (opts.commands or {})[s.x]
    if listed == nil or #listed == 0 then listed = st.commands end
    if type(listed) ~= "table" or #listed == 0 then listed = rec.commands[s.x] end
    for i, c in ipairs(listed or {}) do
      c = tostring(c)
      local first = c:match("^%S+") or ""
      if c == bench or (not bench and (first == "run_only.sh" or first:match("/run_only%.sh$"))) then
        c = ("benchmark %s %s"):format(s.x, c)
      elseif deploys[c] then
        c = deploys[c]
      elseif c == rec.service_commands[s.x] then
        -- the baseline Service step 40 made, from the manifest it kept: through service()
        c = ("service %s %s %s"):format(s.x, template.helpers.sh(require("llmd.cluster").BASELINE_SVC), c)
      end
      commands[#commands + 1] = M.in_workspace(c, roots)
      -- (after the deploy lines, the wait for the stack's pods, as step 30 waited)
      local nxt = listed[i + 1] ~= nil and tostring(listed[i + 1]) or nil
      if deploys[tostring(listed[i])] and not (nxt and deploys[nxt]) then
        commands[#commands + 1] = "wait_ready " .. s.x
      end
    end
    local teardown, teardown_raw, teardown_svc = {}, {}, {}
    for i, c in ipairs(given("teardown_commands", s.x) or {}) do
      teardown[i] = M.in_workspace(tostring(c), roots)
      -- the command alone ("teardown X WHAT COMMAND": WHAT one word, quoted when it has a
      -- space), for the lines a stop of the script prints: what to run to remove it; the
      -- baseline Service's apart (printed only when the script made it: one there before is
      -- not its to delete)
      local what_rest = teardown[i]:match("^teardown %a+ (.*)$")
      local what, rest
      if what_rest then
        what, rest = what_rest:match("^'([^']*)' (.*)$")
        if not what then what, rest = what_rest:match("^([^%s']+) (.*)$") end
      end
      local list = (what or ""):match("^Service ") and teardown_svc or teardown_raw
      list[#list + 1] = rest or teardown[i]
    end
    -- an imported run llmdlua benchmarked: its own comparison's commands, as recorded
    local recorded = {}
    if #commands == 0 and st.imported and type(st.recorded_commands) == "table" then
      for i, c in ipairs(st.recorded_commands) do recorded[i] = tostring(c) end
    end
    sides[#sides + 1] = {
      recorded_commands = recorded, commands_from = tostring(st.commands_from or ""),
      x = s.x, label = s.label, imported = st.imported and true or false, source = st.source_path or "unknown",
      state_text = state_text(st, s.run), config_text = given("config_text", s.x) or "", commands = commands,
      -- its teardown as it ran ("teardown X WHAT COMMAND": the script's function)
      teardown = teardown, teardown_raw = table.concat(teardown_raw, "\n"),
      teardown_svc = table.concat(teardown_svc, "\n"),
    }
  end
  local function known(v) return v ~= nil and v ~= "unknown" and v or nil end
  -- how long the script's wait_ready waits: the plan's timeouts, as step 30 waited
  local timeouts = require("llmd.cluster").TIMEOUTS
  local ready_timeout, ready_poll = timeouts.ready, timeouts.poll
  if lfs.attributes(w.path .. "/plan.yaml", "mode") == "file" then
    local pok, plan = pcall(require("llmd.yaml").load_file, w.path .. "/plan.yaml")
    local t = pok and type(plan) == "table" and type(plan.timeouts) == "table" and plan.timeouts or {}
    if type(t.ready) == "number" and t.ready >= 0 then ready_timeout = t.ready end
    if type(t.poll) == "number" and t.poll >= 0 then ready_poll = t.poll end
  end
  local script = template.render_file(tdir .. "/run_comparison.sh", {
    ready_timeout = ("%d"):format(math.ceil(ready_timeout)), ready_poll = ("%g"):format(ready_poll),
    generated = model.generated, workspace = w.path, a = { label = A.label }, b = { label = B.label },
    prog = opts.prog or "compare.lua",
    namespace = opts.namespace or rec.namespace or known(A.state.stack and A.state.stack.namespace) or "",
    pvc = opts.pvc or rec.pvc or "", gateway_svc = opts.gateway_svc or rec.gateway_svc or "", sides = sides,
    llmdlua = require("llmd.parallel").exe() or "llmdlua",
    -- the llmdlua that wrote the script by its path (it need not be on PATH); LLMDLUA
    -- in the environment names another. The workspace is the script's own folder
    -- ($COMPARISON_DIR), so a copy re-generates its own report, not this one.
    analyze = template.safe(("# the llmdlua that wrote this script (set LLMDLUA to use another one)\n"
      .. "LLMDLUA=${LLMDLUA:-%s}\n\"$LLMDLUA\" analyze.lua \"$COMPARISON_DIR\""):format(
      template.helpers.sh(require("llmd.parallel").exe() or "llmdlua"))),
  })
  -- run_comparison.sh is the user's to edit (README: uncomment its lines): one that differs
  -- from what llmdlua last wrote there is kept, and the new one goes beside it (newuserd51 5)
  local script_to, script_kept = M.script_target(w.path, script)
  ws.write_set({ { out, text }, { html_out, html }, { w.path .. "/comparison.json", json_text },
    { w.path .. "/comparison.csv", csv }, { script_to, script, "755" } },
    "the report (comparison_report.md and .html, comparison.json, comparison.csv, run_comparison.sh) is as it was "
    .. "(charts/ and the runs' run_state.json may be this report's already): make room and write it again")
  if not script_kept then M.record_written(w.path, "run_comparison.sh", script) end
  if script_kept then
    io.stderr:write(("%s: %s\n"):format(opts.prog or "compare.lua", script_kept))
  end
  model.script_kept = script_kept
  tl.mark("script, written")
  copy_templates(w, tdir)
  tl.mark("templates")
  model.text = text
  model.path = out
  model.html_path = html_out
  model.chart_failures = {}
  for _, c in ipairs(chart_list.failed or {}) do
    model.chart_failures[#model.chart_failures + 1] = ("the %s chart was not drawn (the report says so): %s")
      :format(c.name, c.failed)
  end
  return model
end

-- What llmdlua last wrote of the files in a workspace a user may edit (run_comparison.sh):
-- WRITTEN, {NAME = "fnv1a64:HEX"}, the hash of each as written. A file on disk whose hash is
-- not the one recorded was changed since (edited by its user) and is never written over.
M.WRITTEN = "llmdlua-written.json"

local function text_hash(text) return "fnv1a64:" .. require("llmd.br").hash(text) end

local function read_written(dir)
  local ok, t = pcall(json.read, dir .. "/" .. M.WRITTEN)
  return ok and type(t) == "table" and t or {}
end

-- Records text as what llmdlua wrote to dir/name (a failed write is an error naming the file).
function M.record_written(dir, name, text)
  local t = read_written(dir)
  t[name] = text_hash(text)
  ws.write_text(dir .. "/" .. M.WRITTEN, json.encode(t, { indent = 2 }) .. "\n")
end

-- Whether text is what llmdlua last recorded writing as dir/name (M.record_written).
function M.is_written(dir, name, text)
  return read_written(dir)[name] == text_hash(text)
end

-- Where run_comparison.sh's new text goes in the workspace at dir: its own path, unless the file
-- there was edited since llmdlua wrote it - its hash is not the one recorded (M.WRITTEN), or,
-- with none recorded (a workspace of an older llmdlua), it differs from the new text by more than
-- its "Written by" line - which is kept, and the new text goes to run_comparison.sh.new. Returns
-- the path, and the line saying so when the file was kept.
function M.script_target(dir, text)
  local path = dir .. "/run_comparison.sh"
  local f = io.open(path, "rb")
  if not f then return path end
  local old = f:read("a") or ""
  f:close()
  local rec = read_written(dir)["run_comparison.sh"]
  local same
  if rec then same = text_hash(old) == rec
  else
    local function body(x) return (x:gsub("\n# Written by llmdlua [^\n]*", "", 1)) end
    same = body(old) == body(text)
  end
  if same or old == text then return path end
  local q = require("llmd.template").helpers.sh(path)
  return path .. ".new", ("%s was edited since llmdlua wrote it: kept as it is; the script as llmdlua writes it "
    .. "now is %s.new (compare them, e.g. diff %s %s.new)"):format(path, path, q, q)
end

-- The files a comparison's report is, in the workspace (M.report writes them, in this order).
local REPORT_FILES = { "comparison_report.md", "comparison_report.html", "comparison.json", "comparison.csv",
  "run_comparison.sh" }

-- Those of REPORT_FILES the workspace at path holds.
local function report_files_held(path)
  local have = {}
  for _, n in ipairs(REPORT_FILES) do
    if lfs.attributes(path .. "/" .. n, "mode") == "file" then have[#have + 1] = n end
  end
  return have
end

-- What is on disk of the report in the workspace at path after the step that writes it failed
-- (before: M.report_snapshot taken as the step started; err: why it failed): each report file
-- is written whole (a temporary, renamed into place), so what it holds is one report or
-- another, and the reader must know which. Returns the line compare.lua says: "so there is
-- none" only where none of the report's files is there; a report this attempt wrote whole (its
-- four files re-written: a failure after them, a templates copy or the record of the script),
-- complete; an earlier report's files as they were, not this attempt's; or which are whose.
function M.report_failure(path, before, err)
  before = before or {}
  local now = M.report_snapshot(path)
  local new, old = {}, {}
  for _, n in ipairs(REPORT_FILES) do
    if now[n] then
      if before[n] == nil or now[n] ~= before[n] then new[#new + 1] = n else old[#old + 1] = n end
    end
  end
  local function count(list)
    local k = 0
    for _, n in ipairs(list) do if n ~= "run_comparison.sh" then k = k + 1 end end
    return k
  end
  if count(new) + count(old) == 0 then
    return ("failed while writing the comparison report, so there is none: %s"):format(err)
  end
  -- (what is on disk first: the error may run over several lines)
  if count(new) == #REPORT_FILES - 1 then
    return ("failed after writing the comparison report, which is on disk and complete, written whole by this "
      .. "attempt (%s%s), but the workspace is not marked complete (--resume %s --step 100 writes it again): %s")
      :format(table.concat(new, ", "), #old > 0 and ("; " .. table.concat(old, ", ") .. " as it was") or "",
        template.helpers.sh(path), err)
  end
  if #new == 0 then
    return ("failed while writing the comparison report; the report on disk (%s) is an earlier one's, as it was "
      .. "before this attempt, not this attempt's: %s"):format(table.concat(old, ", "), err)
  end
  return ("failed while writing the comparison report; on disk, %s written by this attempt and %s an earlier "
    .. "report's: not one report, so none of it is complete (write it again: --resume %s --step 100): %s"):format(
    table.concat(new, ", "), table.concat(old, ", "), template.helpers.sh(path), err)
end

-- What compare.lua says when a Ctrl-C comes after the workspace at path is complete (while it
-- prints the report, or records the last step): nothing is lost, what is there, how to see it.
-- prog: the script (default compare.lua); what: what was done (default "the comparison was
-- complete").
function M.interrupted_complete(path, prog, what)
  return ("%s: interrupted after %s; nothing is lost: the workspace %s holds "
    .. "%s.\nTo see the report: %s/comparison_report.md, or llmdlua analyze.lua %s (re-generates and prints it)")
    :format(prog or "compare.lua", what or "the comparison was complete", path,
      table.concat(report_files_held(path), ", "), path, template.helpers.sh(path))
end

-- Every file a report's run (re-)writes in the workspace at path: REPORT_FILES, each run's
-- saved state and model (analyze.lua re-reads the results into them) and the charts' files
-- (charts/NAME.svg, NAME.dat), by identity (proc.file_id: device, inode, size, times).
-- Each one is written whole to a temporary name and renamed into place, so one re-written
-- has another identity. {[name] = id}; for M.interrupted_analyze.
function M.report_snapshot(path)
  local proc = require "llmd.proc"
  local ids = {}
  local names = {}
  for _, n in ipairs(REPORT_FILES) do names[#names + 1] = n end
  for _, x in ipairs { "a", "b" } do
    names[#names + 1] = ("run-%s/run_state.json"):format(x)
    names[#names + 1] = ("run-%s/run_model.json"):format(x)
  end
  if lfs.attributes(path .. "/charts", "mode") == "directory" then
    for n in lfs.dir(path .. "/charts") do
      if not n:match("^%.") then names[#names + 1] = "charts/" .. n end
    end
  end
  for _, n in ipairs(names) do
    if lfs.attributes(path .. "/" .. n, "mode") == "file" then ids[n] = proc.file_id(path .. "/" .. n) end
  end
  return ids
end

-- What analyze.lua says when a Ctrl-C stops it re-generating the report of the workspace at
-- path (before: M.report_snapshot when it started; done: the report was re-generated whole):
-- which files it had re-written and which are still the last report's, so that a report
-- of two generations (other SLOs, other figures) is never taken for one. The results are
-- never touched, and every file is whole (written to a temporary name, renamed into place).
-- options: what the run was given that shapes the report ({"--slo", "ttft_p90_ms=150"}),
-- repeated in the command it says to run again: without them analyze.lua would take the
-- SLOs of whichever comparison.json is in place, the last report's or this run's.
function M.interrupted_analyze(path, before, done, options)
  local sh = template.helpers.sh
  local words = { "llmdlua analyze.lua", sh(path) }
  for _, x in ipairs(options or {}) do words[#words + 1] = sh(x) end
  local prog, again = "analyze.lua", table.concat(words, " ")
  if done then return M.interrupted_complete(path, prog, "the report was re-generated") end
  local now = M.report_snapshot(path)
  local new, old, charts_new, charts_old, gone = {}, {}, 0, 0, {}
  local names = {}
  for n in pairs(now) do names[#names + 1] = n end
  for n in pairs(before) do if not now[n] then names[#names + 1] = n end end
  table.sort(names, function(x, y)
    -- the report's files in the order written, then the runs', then the charts
    local function key(n)
      for i, r in ipairs(REPORT_FILES) do if r == n then return ("0%02d"):format(i) end end
      return (n:match("^charts/") and "2" or "1") .. n
    end
    return key(x) < key(y)
  end)
  for _, n in ipairs(names) do
    local chart = n:match("^charts/")
    if not now[n] then
      gone[#gone + 1] = n
    elseif now[n] ~= before[n] then
      if chart then charts_new = charts_new + 1 else new[#new + 1] = n end
    elseif chart then
      charts_old = charts_old + 1
    else
      old[#old + 1] = n
    end
  end
  local function with_charts(list, n)
    local out = {}
    for _, x in ipairs(list) do out[#out + 1] = x end
    if n > 0 then out[#out + 1] = ("%d file%s in charts/"):format(n, n == 1 and "" or "s") end
    return out
  end
  new = with_charts(new, charts_new)
  old = with_charts(old, charts_old)
  if #new == 0 and #gone == 0 then
    return ("%s: interrupted before it re-wrote anything; the workspace %s is as it was (%s, the last report's), "
      .. "its results untouched.\nTo re-generate the report: %s"):format(prog, path,
      #old > 0 and table.concat(old, ", ") or "no report files", again)
  end
  return ("%s: interrupted while re-generating the report; the workspace %s now mixes two reports: re-written "
    .. "by this run: %s; still the last report's: %s%s. Each file is whole and the results are untouched, but the "
    .. "two sets may disagree (other SLOs, other figures): do not read them as one report.\nTo make them one "
    .. "again: %s"):format(prog, path, #new > 0 and table.concat(new, ", ") or "none",
    #old > 0 and table.concat(old, ", ") or "none",
    #gone > 0 and ("; removed (not drawn this time): " .. table.concat(gone, ", ")) or "", again)
end

-- Says on stderr each result file --tolerant left out of model's runs (the report's banner
-- and Verdict say them too, but a user reading the terminal, --quiet or not, must not miss
-- that the figures lack them): "PROG: warning: run b (cut): left out (--tolerant): FILE: why",
-- one line a file, as treatments.lua says them.
function M.say_left_out(model, prog)
  for _, x in ipairs { "a", "b" } do
    local side = model[x] or {}
    for _, what in ipairs(side.left_out or {}) do
      io.stderr:write(("%s: warning: run %s (%s): left out (--tolerant): %s\n"):format(prog, x, tostring(side.label),
        what))
    end
  end
end

-- "HTML report with charts: PATH" (or why without charts), and a blank line.
function M.html_line(model)
  local c = model.charts or {}
  return ("HTML report%s: %s\n"):format(c.available and " with charts" or c.note and " (no charts: gnuplot not found)"
    or " (no chart had data)", model.html_path)
end

-- The closing message: where everything is, as a tree.
function M.tree(w)
  local lines = { w.path .. "/" }
  local function entries(dir)
    local names = {}
    for n in lfs.dir(dir) do
      -- (not the workspace's lock file: llmd.workspace.lock's, no part of its contents)
      if n ~= "." and n ~= ".." and n ~= ws.LOCK then names[#names + 1] = n end
    end
    table.sort(names)
    return names
  end
  local NOTE = {
    ["comparison_report.md"] = "the report",
    ["comparison_report.html"] = "the report with its charts, one file (open in a browser)",
    ["charts"] = "the charts as SVG, and the data gnuplot drew them from",
    ["comparison.json"] = "the whole comparison model",
    ["comparison.csv"] = "the performance table, capacity, max sustained",
    ["run_comparison.sh"] = "reproduce the runs (review first)",
    ["run_comparison.sh.new"] = "the script as llmdlua writes it now (run_comparison.sh was edited: kept)",
    [M.WRITTEN] = "what llmdlua last wrote (an edited run_comparison.sh is kept)",
    ["templates"] = "edit these, then: llmdlua analyze.lua " .. w.path,
    ["run_state.json"] = "configuration and metrics",
    ["run_model.json"] = "the extracted run model",
    ["results"] = "the results",
    ["commands.log"] = "every cluster command",
    ["steps.json"] = "each step's outcome",
  }
  local function walk(dir, prefix, depth)
    local names = entries(dir)
    for i, n in ipairs(names) do
      local last = i == #names
      local p = dir .. "/" .. n
      local mode = lfs.symlinkattributes(p, "mode")
      local is_dir = lfs.attributes(p, "mode") == "directory"
      local target = mode == "link" and (" -> " .. tostring(lfs.symlinkattributes(p, "target"))) or ""
      local label = n .. (is_dir and "/" or "") .. target
      if NOTE[n] then label = ("%-24s %s"):format(label, NOTE[n]) end
      lines[#lines + 1] = prefix .. (last and "└── " or "├── ") .. label
      if is_dir and depth > 0 and n ~= "results" and n ~= "templates" and mode ~= "link" then
        walk(p, prefix .. (last and "    " or "│   "), depth - 1)
      end
    end
  end
  walk(w.path, "", 1)
  return table.concat(lines, "\n")
end

return M
