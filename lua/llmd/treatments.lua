-- llmd.treatments: the comparison across N treatments - llm-d-benchmark's
-- treatment_comparison.csv, and the decision-grade figures per treatment.
--
--   local tr = require "llmd.treatments"
--   local list = tr.load({ { label = "conc8", dirs = { "results/conc8" } }, ... }, opts)
--   tr.csv_text(list)          -- treatment_comparison.csv (upstream's columns, CRLF)
--   local m = tr.model(list, { slo = decision.parse_slo(...) })   -- figures, ranking, Pareto front
--
-- A treatment is one or more result folders of any harness llmdlua reads; several
-- folders of one treatment are repeats of it (their stages are combined, so a load point
-- measured in each gets a confidence interval from llmd.loadpoints), never separate
-- treatments.
local br = require "llmd.br"
local decision = require "llmd.decision"
local harness = require "llmd.harness"
local lp = require "llmd.loadpoints"
local yaml = require "llmd.yaml"
local yo = require "llmd.yamlout"

local M = {}

local same_files -- (below)

-- Two runs that are one: the same figures (llmd.runmodel.same_figures, compare.lua's rule)
-- or the same files.
local function same_results(r1, r2) return require("llmd.runmodel").same_figures(r1, r2) or same_files(r1, r2) end

-- A results folder as warnings show it: relative to the parent of base (the --results
-- folder or the experiment workspace: "res/a/stage_3.json", naming the folder the user
-- gave), else to the current folder where it lies inside it, else as it is. Every
-- occurrence of a folder inside base in text (a reader's message naming a file there) is
-- shortened the same way by M.shown_text.
function M.shown_dir(base, dir)
  dir = tostring(dir)
  local function under(root)
    root = root and root:gsub("/+$", "")
    if root and root ~= "" and dir:sub(1, #root + 1) == root .. "/" then return dir:sub(#root + 2) end
  end
  local rel = base and under(base)
  if rel then
    local name = base:gsub("/+$", ""):match("([^/]+)$")
    return name and (name .. "/" .. rel) or rel
  end
  -- (from the current folder only where no ".." leads back out of it: "tests/../../x" is
  -- no shorter to read than the path given)
  local cwd_rel = under(require("lfs").currentdir())
  if cwd_rel and not ("/" .. cwd_rel .. "/"):find("/../", 1, true) then return cwd_rel end
  return dir
end
function M.shown_text(base, dir, text)
  local shown = M.shown_dir(base, dir)
  if shown == dir then return text end
  local out = tostring(text):gsub(dir:gsub("%p", "%%%0") .. "/", (shown:gsub("%%", "%%%%")) .. "/")
  return out
end

-- Reads every treatment's folders (opts: harness, warmup, cache = {dir = run model read
-- before}; list.base: the --results folder or the workspace, M.shown_dir). Returns the
-- list with .runs (one run model per folder) and .run (their stages combined, for the load
-- points). Two folders of one treatment with the same figures are
-- an error: a copy is not a repeat, and counted twice it would give the capacity a range of
-- width 0, a certainty no measurement gave.
function M.load(list, opts)
  opts = opts or {}
  local seen = {}
  for i, t in ipairs(list) do
    if type(t.label) ~= "string" or t.label == "" then error(("treatment %d: no label"):format(i), 0) end
    if seen[t.label] then error(("two treatments are labelled %s"):format(t.label), 0) end
    seen[t.label] = true
    t.runs, t.by_dir = {}, {}
    for _, d in ipairs(t.dirs) do
      local cached = opts.cache and opts.cache[d]
      local ok, run
      if cached then ok, run = true, cached
      else
        ok, run = pcall(harness.extract, d, { harness = opts.harness, warmup = opts.warmup, tolerant = opts.tolerant })
        -- the model the server names, from the sources compare.lua reads (vLLM's scrapes, first
        -- and last of each pod, and its logs' start-up line: llmd.kvcache.model_sources, without
        -- the KV analysis), and its data check against the results' (decision.check_served_model)
        if ok and type(run) == "table" and not run.no_results and run.served_model == nil then
          local kvcache = require "llmd.kvcache"
          run.served_model = kvcache.served_model(kvcache.model_sources(d))
          decision.check_served_model(run)
        end
      end
      if ok and run.no_results then
        ok, run = false, ("%s: no results (%s)"):format(d, table.concat(run.reasons, "; "))
      end
      if not ok then
        -- the reader's message names the file and where in it; where in llmdlua's own Lua the
        -- reader was called is of no use to the user (as compare.lua and extract.lua say it)
        run = require("llmd.errors").text(run)
        -- the CSV may still be made from the folder's benchmark reports, as upstream does
        if not M.br_files(d)[1] then error(("treatment %s: %s"):format(t.label, tostring(run)), 0) end
        t.load_error = ("treatment %s: %s"):format(t.label, tostring(run))
      else
        t.runs[#t.runs + 1] = run
        t.by_dir[d] = run
      end
    end
    if t.load_error then goto next_treatment end
    -- the accelerator count compare.lua recorded for a workspace's run (run_state.json's
    -- stack.gpus: a plan's info: {gpus: N} or an info file's), read as compare.lua reads it
    -- (llmd.workspace.stack_gpus): the per-GPU figures are then the same in both reports;
    -- --gpus wins. Two folders of one treatment recording different counts: an error
    if not t.gpus then
      local ws = require "llmd.workspace"
      for _, d in ipairs(t.dirs) do
        local g, file, bad, why = ws.recorded_gpus(d)
        if bad then
          -- (a record that cannot be read: the count is unknown, said, never one read further up)
          io.stderr:write(("warning: treatment %s: %s: not read (%s): its GPU count is unknown (give --gpus %s=N)\n")
            :format(t.label, bad, why, t.label))
        end
        if g and t.recorded_gpus and t.recorded_gpus ~= g then
          error(("treatment %s: %s records gpus %s, %s records %s: give --gpus %s=N"):format(t.label,
            t.recorded_gpus_file, t.recorded_gpus, file, g, t.label), 0)
        end
        if g then t.recorded_gpus, t.recorded_gpus_file = g, file end
      end
    end
    for j = 2, #t.runs do
      for k = 1, j - 1 do
        if same_results(t.runs[k], t.runs[j]) then
          error(("treatment %s: %s and %s hold the same figures in every stage: one run copied, not two "
            .. "measurements; give each repeat once (a repeat is a new run of the benchmark)"):format(
            t.label, t.runs[k].dir or t.dirs[k], t.runs[j].dir or t.dirs[j]), 0)
        end
      end
    end
    if opts.repeats then M.check_ladders(t) end
    -- repeats: every folder's stages, as measurements of the same load points. Each one a
    -- copy with an index of its own in the combined run: the load points name their stages
    -- by index, and every folder numbers its own from 0, so that the repeats' request
    -- counts were all read from one folder's stage (a crashed repeat's 60 of 200 failed
    -- read three times, never over-dispersed); folder_index keeps the folder's own number.
    -- One folder keeps its own numbers (its texts name its stages)
    local stages = {}
    local function add(st)
      if #t.runs == 1 then stages[#stages + 1] = st; return end
      local c = {}
      for k, v in pairs(st) do c[k] = v end
      c.folder_index, c.index = st.index, #stages
      stages[#stages + 1] = c
    end
    for _, run in ipairs(t.runs) do
      for _, st in ipairs(run.stages) do add(st) end
      if #run.stages == 0 then add { index = 0, metrics = run.overall, warmup = false } end
    end
    -- one folder: its whole-run figures too (loadpoints reads them for a one-stage run, the
    -- CDF chart its whole-run quantile grid for a run of one point: llmd.charts.point_grids)
    local one = #t.runs == 1 and t.runs[1] or nil
    t.run = { stages = stages, harness = t.runs[1].harness,
      overall = one and one.overall or require("llmd.runmodel").set(), warnings = {},
      cdf = one and one.cdf or nil, cdf_count = one and one.cdf_count or nil }
    -- load points that sent different requests (two workloads in one treatment, compare.lua's
    -- data check, over its folders combined): no capacity or max sustained throughput read
    -- across them (M.model)
    decision.check_request_shapes(t.run)
    t.status = "ok"
    t.reasons = {}
    t.partial, t.model_doubt, t.model_doubt_short = {}, {}, {}
    for _, run in ipairs(t.runs) do
      -- (the folder relative to the --results folder or the workspace, M.shown_dir; not
      -- said again before a message that names a file in it)
      local function said(msg)
        local shown = M.shown_dir(list.base, run.dir)
        msg = M.shown_text(list.base, run.dir, msg)
        if msg:find(shown .. "/", 1, true) then return msg end
        return ("%s: %s"):format(shown, msg)
      end
      -- a run cut short is read and marked (its status says so), not taken for a complete one
      if run.partial then t.partial[#t.partial + 1] = said(run.partial) end
      -- results naming another model than their server's (decision.check_served_model's data
      -- check): said in the Verdict, as a run cut short is, and on standard error
      for _, c in ipairs(run.checks or {}) do
        if c.kind == "served_model_mismatch" then t.model_doubt[#t.model_doubt + 1] = said(c.text) end
      end
      -- and its short form (decision.check_served_model's, without compare.lua's pointer to its
      -- Data checks section, which this report has not), for the Verdict's first line
      local sm = type(run.served_model) == "table" and run.served_model or {}
      if type(sm.mismatch) == "string" then
        local short = sm.mismatch:gsub(" %(see Data checks%)$", "")
        local dup = false
        for _, x in ipairs(t.model_doubt_short) do dup = dup or x == short end
        if not dup then t.model_doubt_short[#t.model_doubt_short + 1] = short end
      end
      -- a file --tolerant left out: a load point or stage fewer, said wherever the status is
      for _, w in ipairs(run.warnings or {}) do
        if w:find("^left out %(%-%-tolerant%)") then t.partial[#t.partial + 1] = said(w) end
      end
      -- "warnings" is a usable run (llmd.runmodel.failed), as compare.lua reads it
      if require("llmd.runmodel").failed(run) then
        t.status = "failed"
        for _, r in ipairs(run.reasons) do t.reasons[#t.reasons + 1] = said(r) end
      end
    end
    ::next_treatment::
  end
  list.identical, list.identical_pairs = M.identical_treatments(list)
  return list
end

-- The folders of one label given as repeats (--run x=a --run x=b) are measurements of one
-- configuration at the same loads. Two folders that are each a ladder of loads (two or more
-- load points), and whose loads mostly do not match (fewer than half of the shorter
-- ladder's loads in the other, offered within llmd.loadpoints' 1 %), are two
-- configurations or two sweeps, not repeats: merged, one shared load would read as
-- repeated and the max sustained throughput of one be taken from the other's ladder. An
-- error naming the label, both folders and the loads that differ. (A folder of one load
-- point is one point of a ladder split over folders; an experiment's setup treatment, whose
-- folders are its load points, is not checked: opts.repeats is false for it.)
local function loads_text(pts)
  local by = {}
  for _, p in ipairs(pts) do
    by[p.load_type] = by[p.load_type] or {}
    table.insert(by[p.load_type], ("%g"):format(p.offered))
  end
  local out = {}
  if by.rate then out[#out + 1] = table.concat(by.rate, ", ") .. " req/s offered" end
  if by.concurrency then out[#out + 1] = "concurrency " .. table.concat(by.concurrency, ", ") end
  return table.concat(out, "; ")
end

function M.check_ladders(t)
  local ladders = {}
  for j, run in ipairs(t.runs) do
    local pts = lp.points(run)
    for _, p in ipairs(pts) do
      -- a load point without an offered load: no ladder to match
      if not (p.offered and p.load_type) then pts = nil; break end
    end
    ladders[j] = pts
  end
  for j = 2, #t.runs do
    for k = 1, j - 1 do
      local a, b = ladders[k], ladders[j]
      if a and b and #a >= 2 and #b >= 2 then
        local function only(x, y)
          local out = {}
          for _, p in ipairs(x) do
            local found = false
            for _, q in ipairs(y) do
              if p.load_type == q.load_type and lp.close(p.offered, q.offered) then found = true; break end
            end
            if not found then out[#out + 1] = p end
          end
          return out
        end
        local oa, ob = only(a, b), only(b, a)
        local shared = #a - #oa
        if shared * 2 < math.min(#a, #b) then
          local da, db = t.runs[k].dir or t.dirs[k], t.runs[j].dir or t.dirs[j]
          error(("treatment %s: %s and %s are not repeats of one configuration: their load ladders mostly differ "
            .. "(%d of %d and %d loads shared; only %s has %s, only %s has %s); give each its own label (repeats are "
            .. "folders measured at the same loads)"):format(t.label, da, db, shared, #a, #b, da,
            loads_text(oa), db, loads_text(ob)), 0)
        end
      end
    end
  end
end

-- Whether two runs' result files are the same bytes (llmd.runmodel.same_files, each file by
-- its name relative to its run's folder).
function same_files(r1, r2)
  local function pairs_of(run)
    local out = {}
    for i, p in ipairs(run.files or {}) do
      out[i] = { rel = p:sub(1, #run.dir + 1) == run.dir .. "/" and p:sub(#run.dir + 2) or p, path = p }
    end
    return out
  end
  return require("llmd.runmodel").same_files(pairs_of(r1), pairs_of(r2))
end

-- Treatments with different labels whose folders hold the same results (the same files byte
-- for byte, or the same figures in every stage: a folder copied, or re-serialised): one
-- warning each pair, for stderr and the report. Any ranking between them compares a run with
-- itself.
function M.identical_treatments(list)
  -- (and, second, each pair as {a =, b = labels, bytes = the same files, workloads = the two
  -- workloads' names where they differ}: the Verdict's caveat)
  local out, pairs_found = {}, {}
  for j = 2, #list do
    for k = 1, j - 1 do
      local a, b = list[k], list[j]
      local found
      for _, ra in ipairs(a.runs or {}) do
        for _, rb in ipairs(b.runs or {}) do
          if not found and same_results(ra, rb) then found = { ra, rb } end
        end
      end
      if found then
        local bytes = same_files(found[1], found[2])
        local d1, d2 = M.shown_dir(list.base, found[1].dir), M.shown_dir(list.base, found[2].dir)
        -- (in compare.lua's words, llmd.comparison.identical_text: the figures their harness
        -- recorded are equal, and where one folder's files hold per-request times and the
        -- other's do not, the throughput is read two ways, so the figures ranked differ by that
        -- reading alone, never "every figure is equal" beside capacities that differ)
        local how = bytes and "the same files, byte for byte"
          or "the files differ, but every figure their harness recorded at every load point is equal to the last "
            .. "digit: the same requests, saved twice"
        local bases = not bytes and require("llmd.runmodel").throughput_bases_differ(found[1], found[2])
        if bases then
          how = ("%s, read two ways: %s's throughput is %s, %s's %s, so the capacities, max sustained throughputs and "
            .. "achieved rates below differ by that reading alone, not by any configuration"):format(how, a.label,
            bases.a, b.label, bases.b)
        end
        pairs_found[#pairs_found + 1] = { a = a.label, b = b.label, bytes = bytes or nil,
          two_ways = bases and true or nil,
          workloads = a.workload and b.workload and a.workload ~= b.workload and { a.workload, b.workload } or nil }
        if a.workload and b.workload and a.workload ~= b.workload then
          -- of two workloads (an experiment's run treatments): never compared with each
          -- other, so no "run with itself"; but one set of results cannot be both workloads'
          out[#out + 1] = ("treatments %s and %s hold the same results (%s and %s: %s), though they are of two "
            .. "different workloads (%s and %s): the same results were given for both, likely a mistake (a folder "
            .. "copied, or a workload that did not change what was sent); give each workload's own results")
            :format(a.label, b.label, d1, d2, how, a.workload, b.workload)
        else
          out[#out + 1] = ("treatments %s and %s hold the same results (%s and %s: %s): this compares a run with "
            .. "itself, not two configurations; give each treatment's own results"):format(a.label, b.label, d1, d2,
              how)
        end
      end
    end
  end
  return out, pairs_found
end

-- Do labels a and b hold the same results (pairs: M.identical_treatments' second value), of
-- one workload (a comparison of a run with itself)?
function M.same_results_pair(pairs_found, a, b)
  for _, p in ipairs(pairs_found or {}) do
    if not p.workloads and ((p.a == a and p.b == b) or (p.a == b and p.b == a)) then return true end
  end
  return false
end

-- The Verdict's caveat where treatments hold the same results (pairs: M.identical_treatments'
-- second value): said in the headline itself, not only in the warning below it, since a
-- comparison of a run with itself tells no configurations apart. "" where none.
function M.identical_caveat(pairs_found)
  if not pairs_found or #pairs_found == 0 then return "" end
  local said, self = {}, false
  for _, p in ipairs(pairs_found) do
    said[#said + 1] = ("%s and %s hold the same results (%s%s)"):format(p.a, p.b,
      p.bytes and "byte for byte" or p.two_ways and "in other files, read two ways" or "in other files", p.workloads
      and (", though of two workloads, %s and %s: likely a mistake"):format(p.workloads[1], p.workloads[2]) or "")
    self = self or not p.workloads
  end
  return ("Caveat: %s%s. "):format(table.concat(said, "; "), self
    and ": each a run compared with itself, so nothing here tells those configurations apart (see the warnings)" or "")
end

-- treatment_comparison.csv --------------------------------------------------------------

local AGG = "results.request_performance.aggregate."
M.CSV_COLUMNS = {
  { "ttft_mean_s", AGG .. "latency.time_to_first_token.mean" },
  { "ttft_p50_s", AGG .. "latency.time_to_first_token.p50" },
  { "ttft_p99_s", AGG .. "latency.time_to_first_token.p99" },
  { "tpot_mean_s", AGG .. "latency.time_per_output_token.mean" },
  { "tpot_p99_s", AGG .. "latency.time_per_output_token.p99" },
  { "itl_mean_s", AGG .. "latency.inter_token_latency.mean" },
  { "itl_p99_s", AGG .. "latency.inter_token_latency.p99" },
  { "e2e_mean_s", AGG .. "latency.request_latency.mean" },
  { "e2e_p99_s", AGG .. "latency.request_latency.p99" },
  { "output_tps", AGG .. "throughput.output_token_rate.mean" },
  { "request_qps", AGG .. "throughput.request_rate.mean" },
  { "total_tps", AGG .. "throughput.total_token_rate.mean" },
  { "total_requests", AGG .. "requests.total" },
  { "failures", AGG .. "requests.failures" },
  { "session_rate_qps", "results.session_performance.sessions.session_rate.mean" },
  { "session_duration_mean_s", "results.session_performance.sessions.session_duration.mean" },
  { "session_duration_p50_s", "results.session_performance.sessions.session_duration.p50" },
  { "session_duration_p99_s", "results.session_performance.sessions.session_duration.p99" },
  { "events_per_session_mean", "results.session_performance.sessions.events_per_session.mean" },
  { "events_cancelled_per_session_mean", "results.session_performance.sessions.events_cancelled_per_session.mean" },
  { "input_tokens_per_session_mean", "results.session_performance.sessions.input_tokens_per_session.mean" },
  { "output_tokens_per_session_mean", "results.session_performance.sessions.output_tokens_per_session.mean" },
  { "total_sessions", "results.session_performance.sessions.total" },
  { "failed_sessions", "results.session_performance.sessions.failed" },
  { "input_len_mean", AGG .. "requests.input_length.mean" },
  { "output_len_mean", AGG .. "requests.output_length.mean" },
  { "tool", "scenario.load.standardized.tool" },
  { "rate_qps", "scenario.load.standardized.rate_qps" },
}

-- latency columns are seconds: a report in ms (upstream writes ms for guidellm,
-- vllm-benchmark and inferencemax) is converted by its units field, never copied as is
local TO_S = { s = 1, ["s/token"] = 1, ms = 0.001, ["ms/token"] = 0.001 }

local function get(doc, path)
  local v = doc
  for part in path:gmatch("[^.]+") do
    if type(v) ~= "table" or v == yaml.null then return nil end
    v = v[part]
  end
  if v == yaml.null then return nil end
  return v
end

-- Python's repr of a number (what upstream's csv writer prints): 10, 10.0, 0.1, 1e-05.
function M.pyrepr(v)
  if math.type(v) == "integer" then return tostring(v) end
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  local s
  for p = 0, 16 do
    s = ("%." .. p .. "e"):format(v)
    if tonumber(s) == v then break end
  end
  local sign, d1, frac, e = s:match("^(%-?)(%d)%.?(%d*)e([-+]%d+)$")
  local exp = tonumber(e)
  local digits = (d1 .. frac):gsub("0+$", "")
  if digits == "" then digits = "0" end
  if exp >= -4 and exp < 16 then
    local out
    if exp >= 0 then
      if #digits <= exp + 1 then
        out = digits .. ("0"):rep(exp + 1 - #digits) .. ".0"
      else
        out = digits:sub(1, exp + 1) .. "." .. digits:sub(exp + 2)
      end
    else
      out = "0." .. ("0"):rep(-exp - 1) .. digits
    end
    return sign .. out
  end
  local m = digits:sub(1, 1) .. (#digits > 1 and ("." .. digits:sub(2)) or "")
  return ("%s%se%s%02d"):format(sign, m, exp < 0 and "-" or "+", math.abs(exp))
end

local function csv_field(v)
  if v == nil then return "" end
  local s
  if type(v) == "number" then s = M.pyrepr(v)
  elseif type(v) == "boolean" then s = v and "True" or "False"
  else s = tostring(v) end
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

-- The v0.2 benchmark reports directly in dir, sorted (upstream's glob
-- benchmark_report_v0.2*yaml).
function M.br_files(dir)
  local lfs = require "lfs"
  local out = {}
  if lfs.attributes(dir, "mode") ~= "directory" then return out end
  for name in lfs.dir(dir) do
    if name:match("^benchmark_report_v0%.2.*yaml$") and lfs.attributes(dir .. "/" .. name, "mode") == "file" then
      out[#out + 1] = name
    end
  end
  table.sort(out)
  return out
end

-- One row per benchmark report (load point) of each treatment, as upstream's
-- cross-treatment summary makes them: from the reports themselves when the treatment's
-- results are reports, else from the reports llmd.br makes of them.
function M.csv_rows(list)
  local rows = {}
  for _, t in ipairs(list) do
    local docs = {}
    local by_dir = t.by_dir or {}
    for _, d in ipairs(t.dirs) do
      local files = M.br_files(d)
      -- (each row's stage of the run read, and the file it came from: treatment_comparison_sources.csv)
      local run = by_dir[d]
      local function stage_where(key, v)
        for _, st in ipairs(run and run.stages or {}) do if st[key] == v then return st end end
      end
      if #files > 0 then
        for _, name in ipairs(files) do
          docs[#docs + 1] = { name = name, doc = yaml.load_file(d .. "/" .. name), path = d .. "/" .. name,
            stage = stage_where("file", d .. "/" .. name) }
        end
      else
        if not run then error(t.load_error or ("treatment %s: %s was not read"):format(t.label, d), 0) end
        for _, r in ipairs(br.build(run, { version = "0.2" })) do
          local st = stage_where("index", r.stage)
          docs[#docs + 1] = { name = r.name, doc = yo.plain(r.doc), stage = st, path = st and st.file or d }
        end
      end
    end
    table.sort(docs, function(a, b) return a.name < b.name end)
    for _, d in ipairs(docs) do
      local row = { t.label, d.name, path = d.path, stage = d.stage, base = list.base, load_error = t.load_error }
      for ci, c in ipairs(M.CSV_COLUMNS) do
        local v = get(d.doc, c[2])
        local unit_path = c[2]:match("^(.*latency%.[%w_]+)%.%w+$")
        if type(v) == "number" and unit_path and c[1]:match("_s$") then
          local units = get(d.doc, unit_path .. ".units")
          local scale = TO_S[units]
          if not scale then
            error(("%s (treatment %s): %s.units is %s; expected s, s/token, ms or ms/token"):format(d.name, t.label,
              unit_path, tostring(units)), 0)
          end
          if scale ~= 1 then v = v * scale end
        end
        if type(v) == "table" then v = nil end
        row[2 + ci] = v
      end
      rows[#rows + 1] = row
    end
  end
  return rows
end

function M.csv_text(list)
  local head = { "treatment", "source_file" }
  for _, c in ipairs(M.CSV_COLUMNS) do head[#head + 1] = c[1] end
  local lines = { table.concat(head, ",") }
  for _, row in ipairs(M.csv_rows(list)) do
    local cells = {}
    for i = 1, #head do cells[i] = csv_field(row[i]) end
    lines[#lines + 1] = table.concat(cells, ",")
  end
  return table.concat(lines, "\r\n") .. "\r\n"
end

-- treatment_comparison_sources.csv: beside upstream's CSV, which keeps its columns byte for
-- byte (scripts and upstream's own tools read it), one row for each of its rows, in its order:
-- the row's treatment and source_file (its keys), the file it came from (source_path: the
-- same basename on every row of an experiment), and the rates side by side: request_qps, the
-- harness's rate upstream's CSV has (completed / window: the reports' "Harness req/s"), and
-- throughput_rps_ranked / output_tps_ranked, the load point's throughput the reports rank
-- and chart (their "Throughput req/s", treatments.json's max_sustained_rps), with
-- rate_basis, how that was read (pace: the answers' pace; drain, drain_stats: the
-- drain-reduced rate; pace_as_drain: a paced run's on the drain-reduced basis of a treatment of
-- its workload whose files are statistics-only, M.like_for_like; harness: the harness's own).
-- Empty where unknown (the run not read).
M.SOURCES_COLUMNS = { "treatment", "source_file", "source_path", "request_qps", "throughput_rps_ranked",
  "output_tps_ranked", "rate_basis" }
function M.csv_sources_text(list)
  local qps
  for i, c in ipairs(M.CSV_COLUMNS) do if c[1] == "request_qps" then qps = 2 + i end end
  local lines = { table.concat(M.SOURCES_COLUMNS, ",") }
  -- (the figure ranked: on the basis each workload's treatments are ranked on, M.like_for_like;
  -- none ranked where a treatment could not be read, M.model's error: each on its own then).
  -- M.like_for_like sets run.rate_like: it is given copies, so that the model the other
  -- writers read after this one is as it was given (a writer changes no figure of another's)
  local like, ranked = {}, true
  for _, t in ipairs(list) do if t.load_error or not t.run then ranked = false end end
  for _, g in ipairs(ranked and M.workload_groups(list) or {}) do
    local copies = {}
    for i, t in ipairs(g.list) do
      local run = {}
      for k, v in pairs(t.run) do run[k] = v end
      copies[i] = { label = t.label, run = run, load_error = t.load_error }
    end
    M.like_for_like(copies)
    for _, c in ipairs(copies) do like[c.label] = c.run.rate_like end
  end
  for _, row in ipairs(M.csv_rows(list)) do
    local p = row.stage and lp.points({ stages = { row.stage }, rate_like = like[row[1]] })[1] or {}
    local cells = {}
    for i, v in ipairs { row[1], row[2], row.path and M.shown_dir(row.base, row.path), row[qps], p.achieved_rps,
      p.output_tps, p.rate_like and "pace_as_drain" or p.rate_basis } do
      cells[i] = csv_field(v)
    end
    for i = 1, #M.SOURCES_COLUMNS do cells[i] = cells[i] or "" end
    lines[#lines + 1] = table.concat(cells, ",")
  end
  return table.concat(lines, "\r\n") .. "\r\n"
end

-- The N-way model ------------------------------------------------------------------------

local metrics = require "llmd.metrics"

local function finite(x) return type(x) == "number" and x == x and math.abs(x) ~= math.huge end

-- Each treatment's capacity read again at other limits (M.model's capacity_at), by its model
-- entry: what decision.capacity_token_check reads the higher one at, its SLO limits moved by
-- what its token lengths could explain.
local recompute_capacity = setmetatable({}, { __mode = "k" })

-- The token rule's options for an order of nxt (decision's a) against x (b) (fixb52): the
-- token gap of their requests (decision.token_gap, nil where none is beyond its noise or the
-- workloads differ beyond the tolerance), with slo and each side's capacity read again
-- (per: a function of a treatment and its capacity, per GPU where the ranking is; nil: totals).
local function token_opts(x, nxt, slo, per)
  local ea, eb = nxt.requests_set, x.requests_set
  if not (ea and eb) or #decision.token_difference_texts(eb, ea) > 0 then return nil end
  local gap = decision.token_gap(ea, eb)
  if not next(gap) then return nil end
  return { token_gap = gap, slo = slo, recompute = function(side, slo2)
    local t = side == "a" and nxt or x
    local f = recompute_capacity[t]
    if not f then return nil end
    local c = f(slo2)
    return per and per(t, c) or c
  end }
end
M.token_opts = token_opts

-- The token gap of two treatments' requests, a decision's a against its b (decision.token_gap;
-- nil where none is beyond its noise, or their workloads differ beyond the tolerance, which
-- the texts say otherwise): what decision.sustained_order and decision.verdict weigh an order
-- of request rates against.
local function tgap(a, b)
  local ea, eb = a and a.requests_set, b and b.requests_set
  if not (ea and eb) or #decision.token_difference_texts(eb, ea) > 0 then return nil end
  local gap = decision.token_gap(ea, eb)
  return next(gap) and gap or nil
end
M.tgap = tgap

-- Why two treatments' limits (decision.sustained_order's spans) or capacities
-- (decision.capacity_evidence's evidence), ev, name no order or no sameness where the token
-- lengths of their requests hold them (ev.token_explained: an order they can explain, fixb52;
-- ev.token_same: a gap within the practical threshold they can take beyond it, fixh53), in
-- compare.lua's words: "the measured loads put x above y (x sustained 15.86 req/s, y never
-- achieved more than 15.13 req/s at any load), but the requests differ (...), which alone can
-- explain it: ..." | "within the practical threshold of 2 % as measured, but the requests
-- differ (...): held to y's tokens (...), y may be above x by up to +6.1 %, ...". la, lb: the
-- labels of decision's a and b; rate: the formatter of one rate (the figures an order is read
-- on, where ev holds spans; nil: none said). nil where neither holds them. The one text of
-- every place that reads those orders (token54: five places fell through to words without it).
local function token_reason(ev, la, lb, rate)
  if not ev then return nil end
  local function fmt(k, v) return metrics.format(k, v) end
  local te = ev.token_explained
  if te then
    local hi, lo = te.higher == "b" and lb or la, te.higher == "b" and la or lb
    local hf, lf = te.higher == "b" and ev.lb or ev.la, te.higher == "b" and ev.ha or ev.hb
    local figs = rate and hf and lf and (" (%s sustained %s, %s never achieved more than %s at any load)"):format(hi,
      rate(hf), lo, rate(lf)) or ""
    return ("the measured loads put %s above %s%s, %s"):format(hi, lo, figs, decision.token_order_text(te, hi, lo,
      decision.MIN_EFFECT, fmt))
  end
  local ts = ev.token_same
  if ts then
    return decision.token_same_text(ts, ts.favoured == "b" and lb or la, ts.favoured == "b" and la or lb,
      decision.MIN_EFFECT, fmt)
  end
  return nil
end
M.token_reason = token_reason

-- A percentage of a gap as compare.lua prints it ("+22.8 %", "+1,000.0 %")
local function gap_pct(v) return require("llmd.template").helpers.pct(v) end
-- a rate on totals where a least gap's ranges meet (decision.least_gap_text)
local function gap_rate(v) return metrics.rate_text(v) end

-- The figures each end of a two-ended gap between capacities is between, this one's (cb)
-- against the next one's (ca), as compare.lua's Verdict says them: its lower end this one's
-- lowest against the next's highest, its upper end this one's highest against the next's
-- lowest (decision.capacity_gap over decision.capacity_span): {this_lo, next_hi, this_hi,
-- next_lo} in req/s; nil where the gap (text: its words) is not those two ratios as they are
-- (an end open, set to 0 or widened by the rates' noise).
local function gap_figures(g, text, ca, cb)
  if not (g and text and text:match("^%S+ %% to %S+ %%$") and g.lo_pct and g.hi_pct) then return nil end
  if g.hi_pct == math.huge then return nil end
  local alo, ahi = decision.capacity_span(ca)
  local blo, bhi = decision.capacity_span(cb)
  if not (alo > 0 and ahi > 0 and ahi ~= math.huge and bhi ~= math.huge) then return nil end
  local function same(x, y) return math.abs(x - y) <= 1e-9 * math.max(1, math.abs(y)) end
  if not (same(g.lo_pct, (blo / ahi - 1) * 100) and same(g.hi_pct, (bhi / alo - 1) * 100)) then return nil end
  return { this_lo = blo, next_hi = ahi, this_hi = bhi, next_lo = alo }
end

-- Those figures in words, this one labelled lb, the next la, so that "+22.6 % to +83.7 %"
-- beside "about 163.591 against ≥ 92.213" can be worked out from what is printed: ", from
-- chunked's 127.760 against vllm's 104.238 req/s to chunked's 169.427 against vllm's 92.213
-- req/s: the ends of the two treatments' ranges"; what: the ranges' name (nil: a capacity's,
-- by what they come from). "" where gap_figures gives none.
local function change_ends(g, text, ca, cb, la, lb, what)
  local f = gap_figures(g, text, ca, cb)
  if not f then return "" end
  local function r(v) return metrics.rate_text(v, nil, { bare = true }) end
  what = what or (ca.interval and cb.interval) and "the two ranges their repeats allow"
    or ((ca.noise or cb.noise) and not (ca.interval or cb.interval))
      and "the two treatments' ranges with each load's 95 % interval"
    or "the two treatments' ranges"
  return (", from %s's %s against %s's %s req/s to %s's %s against %s's %s req/s: the ends of %s"):format(
    lb, r(f.this_lo), la, r(f.next_hi), lb, r(f.this_hi), la, r(f.next_lo), what)
end

-- treatments.json's record of those figures, one meaning a number: the gap's lower end is
-- lower.this_rps against lower.next_rps, its upper end upper.this_rps against upper.next_rps
-- (this place's lowest against the next's highest, this place's highest against the next's
-- lowest); nil where gap_figures gives none.
local function gap_ends_record(g, text, ca, cb)
  local f = gap_figures(g, text, ca, cb)
  if not f then return nil end
  return { lower = { this_rps = f.this_lo, next_rps = f.next_hi }, upper = { this_rps = f.this_hi,
    next_rps = f.next_lo } }
end

-- A capacity's lower bound (c) whose span ends at its treatment's ceiling, beside a gap with
-- both ends (text): that upper end, which the gap is read off, said with the figure, as
-- compare.lua's Verdict says it (" (at most 104.238 req/s: the most it achieved at any load
-- measured)"); "" otherwise (a ceiling that failed the SLOs: the figure says "below" it).
local function bound_top(c, text)
  if not (c and text and text:match("^%S+ %% to %S+ %%$") and decision.capacity_is_bound(c) and c.ceiling_rps)
    or c.ceiling_failing then
    return ""
  end
  local _, top = decision.capacity_span(c)
  if top ~= c.ceiling_rps then return "" end
  return (" (at most %s: the most it achieved at any load measured)"):format(metrics.rate_text(top))
end

-- "no clear difference" with the gap g allows (llmd.decision.no_clear_difference_text, the
-- text compare.lua prints; g: b - a, who: "b vs a"), its first words naming the next place:
-- "either this or base (67.720 req/s) may be higher — the repeats' ranges overlap; the gap
-- could be anywhere from -17.8 % to +438.5 % (chunked vs base)". held: the gap held to the two
-- treatments' tokens in words (decision.token_held_gap_text), or nil.
local function no_clear_difference(g, who, vs, held)
  return (decision.no_clear_difference_text(g, gap_pct, who, held):gsub("^either may be higher", function()
    return "either this or " .. vs .. " may be higher"
  end))
end

-- latency rows compared at the common load, where every treatment has p90 (else each p90 is
-- replaced by the percentile M.latency_choice finds: the model's latency_keys)
M.LATENCY_KEYS = { "ttft_p50_ms", "ttft_p90_ms", "ttft_p99_ms", "tpot_p90_ms", "itl_p90_ms", "latency_p90_ms",
  "latency_p99_ms" }

-- The latency percentiles a comparison reads at its common load (the latency table, the
-- Pareto front's E2E latency, the load-point tables): for TTFT, TPOT, ITL and E2E latency
-- each, the first percentile of llmd.loadpoints.PERCENTILE_ORDER (p90 first) that every
-- treatment has at its load points with a known achieved rate, else the first some have
-- (common = false) - the rule the charts' panels follow (llmd.loadpoints.latency_columns):
-- vLLM's benchmark records p50, p95 and p99 and no p90 unless asked, and p95 against p90
-- would not be like for like. T: the treatments ({label, points}). Returns {ttft =, tpot =,
-- itl =, latency = latency_columns' column}, a metric no treatment has any percentile of
-- left out. (TPOT and ITL are columns of their own here; the charts' one panel draws TPOT,
-- else ITL.)
function M.latency_choice(T)
  local lists = {}
  for i, x in ipairs(T) do
    lists[i] = {}
    for _, p in ipairs(x.points) do if finite(p.achieved_rps) then lists[i][#lists[i] + 1] = p end end
  end
  local out = {}
  for _, hide in ipairs { "itl_", "tpot_" } do
    local function has(p, key) return key:sub(1, #hide) ~= hide and finite(p.values[key]) end
    for _, col in ipairs(lp.latency_columns(lists, has)) do
      local metric = col.key:match("^(%a+)_")
      col.labels = {} -- (col.has[i] is T[i]'s: by label, for a workload's part of T)
      for i, x in ipairs(T) do col.labels[i] = x.label end
      out[metric] = out[metric] or col
    end
  end
  return out
end

-- M.LATENCY_KEYS with each p90 replaced by the percentile choice (M.latency_choice) has for
-- its metric (a metric no treatment has keeps its p90, N/A with the reason), each key once.
local function latency_keys(choice)
  local keys, seen = {}, {}
  for _, k in ipairs(M.LATENCY_KEYS) do
    local metric = k:match("^(%a+)_p90_ms$")
    if metric and choice[metric] then k = choice[metric].key end
    if not seen[k] then seen[k], keys[#keys + 1] = true, k end
  end
  return keys
end

-- Why the treatment labelled label has no value for key where the percentile choice is not
-- shared (choice's column for key with common = false, label not among those that have it):
-- "the treatments share no E2E latency percentile: only a has E2E latency p90"; nil otherwise.
local function unshared_why(choice, key, label)
  for _, col in pairs(choice) do
    if col.key == key and not col.common then
      local some, this = {}, nil
      for j, h in ipairs(col.has) do
        if h then some[#some + 1] = col.labels[j] end
        if col.labels[j] == label then this = h end
      end
      if this == false then
        local head = metrics.get(col.key).label -- (as the table's head names it)
        return ("the treatments share no %s percentile: only %s %s %s"):format(head:gsub(" p[%d.]+$", ""),
          table.concat(some, ", "), #some == 1 and "has" or "have", head)
      end
    end
  end
end

local function fmt(key, v) return metrics.format(key, v) end

-- A treatment that answered at least llmd.loadpoints.SATURATION_SHARE (95 %) of what it
-- was sent at the common load, but less than this share, is marked "mildly overloaded"
-- there: the lower half of the 5 % the saturation rule allows for noise (a server that
-- keeps up answers what it gets, 100 %, by its pace, which no latency moves). The same mark
-- at its max sustained point: llmd.loadpoints.saturation's edge.
M.MILD_OVERLOAD_SHARE = lp.MILD_OVERLOAD_SHARE

-- The noise of a latency (key) at the common load (what the Pareto front's "beyond noise" is
-- weighed on, and the bars' whiskers): the 95 % interval of its repeats' mean (a repeated
-- point), else of its percentile from its own requests (llmd.loadpoints.percentile_ci: order
-- statistics with the effective sample size n / design effect, as a load point's pass or fail
-- of a percentile SLO), never a width made up: {lo, hi, basis = "repeats" | "requests"},
-- {unclear = why} (repeats all one value, too few effective requests: the noise is known to
-- be there, its size not), or {unknown = why} (a summary file: no per-request data,
-- llmd.decision.UNKNOWN_NOISE_GAP).
local function point_noise(key, p)
  if (p.repeats or 1) >= 2 then
    local ci = p.ci and p.ci[key]
    if ci and ci.identical then return { unclear = "its repeats are all one value, no spread to estimate" } end
    if ci and finite(ci.lo) and finite(ci.hi) then return { lo = ci.lo, hi = ci.hi, basis = "repeats" } end
    return { unclear = "its repeats give no interval of it" }
  end
  local lo, hi, info = lp.percentile_ci(p, key)
  if lo then return { lo = lo, hi = hi, basis = "requests" } end
  if not p.per_request or tostring(info):find("^no per%-request data") then return { unknown = tostring(info) } end
  return { unclear = tostring(info) }
end

-- The noise (as point_noise) of a latency measured at the common load (p1), or interpolated
-- between p1 and p2: the span of both points' intervals (all the measurements say of it).
function M.latency_noise(key, p1, p2)
  local a = point_noise(key, p1)
  if not p2 then return a end
  local b = point_noise(key, p2)
  if a.unclear or b.unclear then return { unclear = a.unclear or b.unclear } end
  if a.unknown or b.unknown then return { unknown = a.unknown or b.unknown } end
  return { lo = math.min(a.lo, b.lo), hi = math.max(a.hi, b.hi), basis = a.basis == b.basis and a.basis or "mixed" }
end

-- The point of pts measured at load x on axis (llmd.loadpoints.axis; default the achieved
-- rate) within the repeat tolerance, or nil.
local function point_at(pts, x, axis)
  for _, p in ipairs(pts) do
    local l = lp.load_of(p, axis)
    if l and lp.close(l, x) then return p end
  end
end

-- Repeat samples of the throughput at a treatment's max sustained point (nil without repeats).
local function throughput_samples(t)
  local p = t.max_point
  if not p or not p.ci or not p.ci.throughput_req_s then return nil end
  return p.ci.throughput_req_s.samples
end

-- A usable treatment's Status: "ok", or what a reader must know beside it: a run cut short
-- or a file left out ("partial: ..."), a repeat that crashed among clean ones ("1 of 3
-- repeats failed 61 % at 40 req/s": llmd.loadpoints.crashed_repeats_text).
local function status_ok_text(x)
  local parts = {}
  if #(x.partial or {}) > 0 then parts[#parts + 1] = "partial: " .. table.concat(x.partial, "; ") end
  parts[#parts + 1] = lp.crashed_repeats_text(x.saturation)
  return #parts > 0 and table.concat(parts, "; ") or "ok"
end

-- Max sustained throughput as the tables print it: a run that never saturated has a lower
-- bound, and where repeats leave a point possibly saturated, that is said.
local function sustained_brief(rps, sat)
  local f = metrics.rate_text(rps)
  -- failed requests beside the figure, as compare.lua says them (llmd.loadpoints)
  local notes = lp.sustained_failure_notes(sat)
  local function with_notes(text, first) return lp.with_notes(text, first, notes) end
  if not sat.none then
    -- where between it and the most the treatment achieved at any load the limit lies, the
    -- load steps do not say (compare.lua's "(up to …, its most at any load)")
    if sat.ceiling_rps and sat.ceiling_rps > rps then
      return with_notes(f, ("up to %s, its most at any load%s"):format(
        metrics.rate_text(sat.ceiling_rps), lp.ceiling_crash_text(sat, function(r)
          return metrics.rate_text(r)
        end)))
    end
    return with_notes(f)
  end
  if sat.near then
    return with_notes("≥ " .. f, ("never saturated by the means; not certain at load point%s %s"):format(
      #sat.near == 1 and "" or "s", table.concat(sat.near, ", ")))
  end
  return with_notes("≥ " .. f, "never saturated")
end

-- Where a treatment's max sustained throughput limit may lie, as a range: from the lower end
-- of its max sustained point's 95 % interval (its figure, one run per load) up to the most
-- it achieved at any load (its ceiling: its limit lies between its figure and that) or the
-- interval's upper end where higher; no upper end where it never saturated. In words:
local SUSTAINED_RANGE_WHAT = "from the lower end of the repeats' 95 % interval at its max sustained load point "
  .. "to the most it achieved at any load (no upper end where it never saturated)"
-- as a capacity of llmd.decision (a saturated one, or a lower bound) with that range, so that
-- the gap two of them allow is decision.capacity_gap's: the difference of the limits of a
-- (the next place) and b (this one), b - a.
local function sustained_capacity(x)
  local ci = x.max_point and x.max_point.ci and x.max_point.ci.throughput_req_s
  local lo, hi = x.max_rps, x.max_rps
  if ci and finite(ci.lo) and finite(ci.hi) then lo, hi = math.min(ci.lo, lo), math.max(ci.hi, hi) end
  local sat = x.saturation
  if sat.none then hi = math.huge elseif finite(sat.ceiling_rps) then hi = math.max(hi, sat.ceiling_rps) end
  return { kind = sat.none and "never_violated" or "saturated", rps = x.max_rps, interval = { lo = lo, hi = hi } }
end
-- Where a treatment achieved its ceiling (the most it achieved at any load), in words beside
-- "achieved up to N": "at a saturated load", or, where that load failed more requests than
-- the error-rate limit (llmd.loadpoints.failing), "at a load where 12 % of its requests
-- failed, more than ...": failures, not overload.
local function ceiling_load_text(x, slo)
  local ceil = x.saturation and x.saturation.ceiling_rps
  for _, p in ipairs(finite(ceil) and x.points or {}) do
    if finite(p.achieved_rps) and lp.close(p.achieved_rps, ceil) then
      local f = lp.failing(p, { slo = slo })
      if f then return "at a load where " .. f end
    end
  end
  return "at a saturated load"
end

local function sustained_gap(a, b)
  if not (a.max_rps and b.max_rps) then return nil end
  return decision.capacity_gap(sustained_capacity(a), sustained_capacity(b))
end

-- A capacity at SLO (llmd.loadpoints.capacity) as the tables print it: the figure, "≥"
-- where it is a lower bound, and in words why; with repeats at every load point, the range
-- they allow beside it (its figure then the means' reading), in compare.lua's words and
-- numbers (llmd.report.capacity_text, given this report's figures), so that the two tools
-- show one capacity the same way and no table hides the repeats' disagreement.
local function rate_figure(v) return metrics.rate_text(v) end
local function capacity_brief(c)
  local g = lp.capacity_gives(c)
  if (g == "estimate" or g == "lower") and c.rps or g == "below" and c.lowest_rps then
    return require("llmd.report").capacity_text(c, rate_figure)
  end
  if c.kind == "non_monotone" then return metrics.na("non-monotone: " .. c.brief) end
  return metrics.na(c.reason or "unknown")
end

-- The requests treatment t sent (its whole-run figures: token totals over its completed
-- requests, over all its folders), for the workload check: what it measured it sent.
local function requests_set(t)
  if #t.runs == 1 then return t.runs[1].overall end
  local v = {}
  for _, run in ipairs(t.runs) do
    for _, k in ipairs { "requests_ok", "input_tokens_total", "output_tokens_total" } do
      local y = run.overall.values[k]
      if y == nil then v[k] = false elseif v[k] ~= false then v[k] = (v[k] or 0) + y end
    end
  end
  for k, y in pairs(v) do if y == false then v[k] = nil end end
  return { values = v }
end

-- How treatment t was driven: "rate", "concurrency", or nil (unknown, or mixed).
local function load_type(pts)
  local kind
  for _, p in ipairs(pts) do
    if p.load_type ~= "rate" and p.load_type ~= "concurrency" then return nil end
    if kind and p.load_type ~= kind then return nil end
    kind = p.load_type
  end
  return kind
end

-- What two treatments' measured workloads differ by (texts, empty when they match or the
-- difference is unknown): the requests they sent, token lengths per request beyond the
-- workload match's 5 % (llmd.decision.token_differences, mean and p50/p90), how they
-- were driven (rate against concurrency), and the model that answered (where both name
-- one). Not the load steps: a harness's sweep sets each run's rates from its own
-- saturation probe (inference-perf), so one workload profile gives
-- each server its own ladder, and the ranking's evidence already says where the steps
-- cannot order two figures.
local function workload_differences(a, b)
  local out = decision.token_difference_texts(a.requests_set, b.requests_set)
  if a.load_type and b.load_type and a.load_type ~= b.load_type then
    out[#out + 1] = ("driven by %s vs by %s"):format(a.load_type, b.load_type)
  end
  -- another model answers other requests in other times, as compare.lua's workload match
  -- says (llmd.decision.MEASURE_FIELDS): never ranked together
  if a.model and b.model and a.model ~= b.model then
    out[#out + 1] = ("model: %s vs %s"):format(a.model, b.model)
  end
  -- how the loads were sent: the client's cap on requests in flight at a load both measured,
  -- each load's duration beyond 2x (llmd.decision.load_differences, compare.lua's rule): a
  -- capped client's latencies leave out its wait, a short load's queue has no time to grow
  -- (audit52 F1: c/short capped at 16 ranked with uncapped ones, its TTFT p90 114 ms vs 257-401)
  for _, d in ipairs(decision.load_differences(a.points or {}, b.points or {})) do
    out[#out + 1] = d.text
    a.sent_apart, b.sent_apart = true, true
  end
  return out
end

-- A measured workload in a few words: "rate sweep, 7999.0 input and 200.0 output tokens per
-- request" (token means over the completed requests), for the report.
local function signature_text(sig, how_sent)
  local v = sig.requests_set and sig.requests_set.values or {}
  local function mean(k)
    local n, total = v.requests_ok, v[k]
    if n and total and n > 0 then return ("%.1f"):format(total / n) end
  end
  local i, o = mean("input_tokens_total"), mean("output_tokens_total")
  local how = sig.load_type and (sig.load_type .. " sweep") or "load type unknown"
  local text = i and o and ("%s, %s input and %s output tokens per request"):format(how, i, o)
    or (how .. ", token lengths per request unknown")
  if not how_sent then return text end
  -- (parts set apart by how the loads were sent: each part's cap and load durations, so that
  -- two parts of the same requests do not read alike)
  local caps, lo, hi, none = {}, math.huge, 0, false
  for _, p in ipairs(sig.points or {}) do
    if p.client_cap == "none" then none = true end
    if type(p.client_cap) == "number" and not caps[p.client_cap] then
      caps[p.client_cap] = true
      caps[#caps + 1] = p.client_cap
    end
    local d = decision.load_duration(p)
    if d then lo, hi = math.min(lo, d), math.max(hi, d) end
  end
  table.sort(caps)
  local function g(x) return ("%.3g"):format(x) end
  text = text .. (#caps > 0 and (", client capped at %s requests in flight"):format(table.concat(caps, "/"))
    or none and ", no client cap reached" or "")
  if hi > 0 then text = text .. (", %s s loads"):format(g(lo) == g(hi) and g(lo) or (g(lo) .. "–" .. g(hi))) end
  return text
end

-- The workloads of a list: its treatments grouped by t.workload (an experiment's run
-- treatment, set by M.experiment_list, or treatments.lua's --workload), in the order of
-- their first treatment, and each such group split further by what its treatments measured
-- they sent (workload_differences: token lengths per request beyond 5 %, rate against
-- concurrency): a treatment joins the first part of its group whose every treatment it
-- matches, else starts a part of its own, so that no two treatments of one part differ. A
-- group split in parts names each part by its place ("workload 2"; "short, part 2" in a
-- named one) and describes it by its first treatment's measured workload (signature: "rate
-- sweep, 23997.0 input and 200.0 output tokens per request"). Returns the groups ({workload
-- =, list =, signature = (split groups only), named = the name given or nil}), with .order
-- (label -> place in the list) and .apart (texts: each treatment that starts a part, what
-- sets it apart from each earlier part). One group, workload nil, when no treatment names a
-- workload and every one matches every other.
function M.workload_groups(list)
  local named, by, order = {}, {}, {}
  for i, t in ipairs(list) do
    local w = t.workload or ""
    if not by[w] then
      by[w] = { workload = t.workload, list = {} }
      named[#named + 1] = by[w]
    end
    local g = by[w].list
    g[#g + 1] = t
    order[t.label] = i -- (the list's order, kept in the model's treatments)
  end
  local groups = { order = order, apart = {} }
  for _, g in ipairs(named) do
    local parts = {}
    for _, t in ipairs(g.list) do
      -- (a treatment read without its load points has no measured workload: M.model says why)
      local sig = { label = t.label }
      if not t.load_error and t.run then
        sig.points = lp.points(t.run)
        sig.requests_set, sig.load_type = requests_set(t), load_type(sig.points)
        -- (the model its runs name, where they name one and agree, by the one rule,
        -- decision.model_of: the results', else what vLLM's scrapes or logs name; runs of one
        -- treatment that name two models leave it unknown here)
        for _, run in ipairs(t.runs or { t.run }) do
          local m = decision.model_of { run = run }
          -- (results naming a model their server does not: not taken on the results' word)
          if type(run.served_model) == "table" and run.served_model.mismatch then m = false end
          if m == false then sig.model = false
          elseif m and sig.model == nil then sig.model = m elseif m and sig.model ~= m then sig.model = false end
        end
        sig.model = sig.model or nil
      end
      local home, why = nil, {}
      for _, part in ipairs(parts) do
        local d
        for _, u in ipairs(part.sigs) do
          d = workload_differences(sig, u)
          if #d > 0 then
            why[#why + 1] = ("%s vs %s: %s"):format(t.label, u.label, table.concat(d, "; "))
            break
          end
        end
        if #d == 0 then home = part; break end
      end
      if not home then
        home = { list = {}, sigs = {} }
        parts[#parts + 1] = home
        for _, x in ipairs(why) do groups.apart[#groups.apart + 1] = x end
      end
      home.list[#home.list + 1] = t
      home.sigs[#home.sigs + 1] = sig
    end
    local how_sent = false
    for _, part in ipairs(parts) do
      for _, sig in ipairs(part.sigs) do if sig.sent_apart then how_sent = true end end
    end
    if how_sent then groups.sent_apart = true end
    for k, part in ipairs(parts) do
      local name = g.workload
      if #parts > 1 then name = g.workload and ("%s, part %d"):format(g.workload, k) or ("workload %d"):format(k) end
      groups[#groups + 1] = { workload = name, list = part.list, named = g.workload,
        signature = #parts > 1 and signature_text(part.sigs[1], how_sent) or nil }
    end
  end
  return groups
end

-- Treatments of different workloads (an experiment's run treatments: another rate, other
-- prefix groups, other requests) are never ranked, tested or set on one Pareto front
-- together: a setup on a lighter workload would "beat" one on a heavier. Each workload is
-- ranked on its own (its own common load, its own Holm family), and the model holds the
-- rankings one after another, each place marked with its workload.
-- A text of one workload's treatments in their setups' names ("one/r1 decode.replicas 1"
-- read "one decode.replicas 1"), where every label is an experiment's setup/run pair; nil
-- otherwise. Such a text the same in every workload is said once (newuser47 F8).
local function in_setups(text, labels)
  for _, l in ipairs(labels) do
    local setup = l:match("^(.+)/[^/]+$")
    if not setup then return nil end
    text = text:gsub(l:gsub("%p", "%%%0"), (setup:gsub("%%", "%%%%")))
  end
  return text
end

-- The one text every workload's t (subs[i][k], in its setups' names) reads the same, or nil.
local function same_in_every(subs, k)
  if #subs < 2 then return nil end
  local first
  for _, x in ipairs(subs) do
    local text = x[k] and in_setups(x[k], x.labels)
    if not text or (first and text ~= first) then return nil end
    first = text
  end
  return first
end

local function grouped_model(groups, opts)
  local m = { slo = opts.slo or {}, treatments = {}, notes = {}, ranking = {}, front = {}, dominated = {},
    pareto_excluded = {}, pareto_not_compared = {}, pareto_within_noise = {}, pareto_unknown = {},
    saturated_at_common = {}, failing_at_common = {},
    mild_at_common = {},
    common_unlike = {}, workloads = {}, in_doubt = {} }
  m.slo_text = #m.slo > 0 and decision.capacity_phrase(m.slo) or nil
  -- one latency percentile per metric over every workload's treatments (M.latency_choice), so
  -- that the one latency table holds one percentile in each column and every workload's
  -- Pareto front reads the same one
  local all = {}
  for _, g in ipairs(groups) do
    for _, t in ipairs(g.list) do
      if t.load_error then error(t.load_error .. " (the comparison needs every treatment's results)", 0) end
      all[#all + 1] = { label = t.label, points = lp.points(t.run) }
    end
  end
  local choice = M.latency_choice(all)
  local parts, commons, size, cost_said, subs = {}, {}, 0, {}, {}
  for _, g in ipairs(groups) do
    local sub = M.model(g.list, { slo = opts.slo, one_workload = true, latency_choice = choice })
    local w = g.workload
    m.rank_by, m.pareto_latency, m.pareto_latency_key = sub.rank_by, sub.pareto_latency, sub.pareto_latency_key
    m.pareto_latency_note = sub.pareto_latency_note
    -- (each workload's treatments on one throughput basis, M.like_for_like: said per workload)
    if sub.rate_like then
      m.rate_like = (m.rate_like and (m.rate_like .. ". ") or "") .. ("%s: %s"):format(w, sub.rate_like)
    end
    m.latency_choice, m.latency_keys = sub.latency_choice, sub.latency_keys
    local labels = {}
    for _, x in ipairs(sub.treatments) do
      x.workload = w
      m.treatments[#m.treatments + 1] = x
      labels[#labels + 1] = x.label
    end
    for _, r in ipairs(sub.ranking) do
      r.workload = w
      m.ranking[#m.ranking + 1] = r
    end
    for _, k in ipairs { "front", "dominated", "pareto_excluded", "pareto_not_compared", "pareto_within_noise",
      "pareto_unknown", "saturated_at_common",
      "failing_at_common", "mild_at_common", "common_unlike", "in_doubt" } do
      for _, d in ipairs(sub[k] or {}) do
        if type(d) == "table" then d.workload = w end
        m[k][#m[k] + 1] = d
      end
    end
    size = size + (sub.family and sub.family.size or 0)
    -- GPU columns in the one ranking table where any workload's treatments have a count; the
    -- front's cost note per workload, named
    if sub.gpu_columns then m.gpu_columns = true end
    if sub.pareto_cost then
      m.pareto_costs = m.pareto_costs or {}
      m.pareto_costs[#m.pareto_costs + 1] = ("%s: %s"):format(w, sub.pareto_cost)
    end
    -- (the front's cost note is said once below where every workload's is the same)
    -- (never a best on totals between treatments on different numbers of accelerators)
    -- (nor where the first is above the next but not ahead of every other one: not_ahead)
    local best = not sub.cost and sub.ranking[1] and sub.ranking[1].proven and not sub.ranking[1].not_ahead
      and sub.ranking[1].label or nil
    m.workloads[#m.workloads + 1] = { workload = w, treatments = labels, verdict = sub.verdict, best = best or false,
      verdict_line = sub.verdict_line,
      common_text = sub.common_text or false, common_why = sub.common_why or false, family = sub.family,
      common_load = sub.common_load or false, common_axis = sub.common_axis or false,
      signature = g.signature or false, latency_at_common = M.latency_at_common_json(sub.latency_at_common_test),
      cost = sub.cost and sub.cost.text or false }
    -- in a few words, never "not shown to differ" where the measured loads order the first
    -- two (untested, but an order: its own verdict says so next)
    local r1 = sub.ranking[1]
    local lead = best and ("best: %s."):format(best)
      or sub.latency_best and ("best at the common load: %s (lower %s, shown by repeats)."):format(sub.latency_best,
        table.concat((function()
          local n = {}
          for i, k in ipairs(sub.latency_at_common_test.keys) do n[i] = metrics.get(k).label end
          return n
        end)(), " and "))
      or r1 and r1.order_certain and not r1.not_ahead and ("%s first by the figures, above %s as the measured "
        .. "loads order them, untested (no treatment shown best by repeats)."):format(r1.label, sub.ranking[2].label)
      or "not shown to differ (no treatment shown best)."
    -- fewer than two ranked: nothing was compared, so nothing is "not shown to differ"; its
    -- own verdict says what there is ("only one/rate1 was measured; nothing to compare it with")
    local n_ranked = 0
    for _, r in ipairs(sub.ranking) do if r.rank then n_ranked = n_ranked + 1 end end
    local verdict = sub.verdict
    if n_ranked < 2 and not best then
      lead = nil
      if verdict:match("^Only ") or verdict:match("^No ") then verdict = verdict:sub(1, 1):lower() .. verdict:sub(2) end
    end
    parts[#parts + 1] = ("%s (%s%s): %s%s"):format(g.named and ("Workload " .. w) or w:gsub("^w", "W"),
      g.signature and (g.signature .. "; ") or "", table.concat(labels, ", "), lead and (lead .. " ") or "", verdict)
    -- its cost note in the setups' words (an experiment's pairs "one/rate1" read "one"), to be
    -- said once where every workload's is the same (below)
    if sub.cost and verdict:find(sub.cost.text, 1, true) then
      local norm = in_setups(sub.cost.text, labels)
      cost_said[#parts] = norm and { text = sub.cost.text, norm = norm }
    end
    commons[#commons + 1] = ("%s at %s"):format(w, sub.common_text or metrics.na(sub.common_why))
    subs[#subs + 1] = { labels = labels, cost_why = sub.cost and sub.cost_line and sub.cost_line.why,
      cost_rest = sub.cost and sub.cost_line and sub.cost_line.rest, pareto_cost = sub.pareto_cost }
    -- (what would settle its order per GPU, as its line says it: the report says it once, in
    -- the note above the ranking, M.present)
    m.cost_settles = m.cost_settles or {}
    if sub.cost and sub.cost.settle_first then m.cost_settles[#m.cost_settles + 1] = sub.cost.settle_first end
  end
  -- the treatments as the list gives them (the tables' order), each marked with its workload
  local at = groups.order
  table.sort(m.treatments, function(a, b) return at[a.label] < at[b.label] end)
  m.common_by_workload = table.concat(commons, "; ")
  m.family = { method = "holm", alpha = decision.ALPHA, size = size, per_workload = true }
  -- where the workloads come from: named (an experiment's run treatments, --workload), and
  -- told apart by the requests the treatments measured they sent
  local named = false
  for _, g in ipairs(groups) do if g.named then named = true end end
  local source = named and (groups.source or "run treatments") or nil
  if #groups.apart > 0 then
    local what = groups.sent_apart and "the requests sent, or how they were sent," or "the requests sent"
    source = source and (source .. (", split where %s differ"):format(what)) or ("told apart by %s"):format(
      groups.sent_apart and "the requests sent and how they were sent" or "the requests sent")
  end
  m.workload_apart, m.workload_source = groups.apart, source
  -- the headline: a cost caveat every workload shares said once, before them (as the
  -- Verdict below says it), each workload then with what it adds (per GPU), if anything
  local lines = {}
  local why = same_in_every(subs, "cost_why")
  if why then
    lines[1] = why:gsub(": ", ", in every workload: ", 1) .. ", so none is named best on totals (see below)."
  end
  for i, g in ipairs(groups) do
    local text = m.workloads[i].verdict_line
    if why then text = subs[i].cost_rest end
    if text ~= "" then
      lines[#lines + 1] = ("%s: %s"):format(g.named and ("Workload " .. g.workload) or g.workload:gsub("^w", "W"), text)
    end
  end
  m.verdict_line = table.concat(lines, " ")
  -- the Pareto front's cost note likewise
  local pareto = same_in_every(subs, "pareto_cost")
  if pareto then m.pareto_costs = { "in every workload, " .. pareto } end
  -- one cost note, the same for every workload (an experiment's setups under each run
  -- treatment): said once, before the workloads, not repeated in each (newuser47 F8)
  local once = ""
  local same = #parts > 1
  for i = 1, #parts do
    if not cost_said[i] or cost_said[i].norm ~= cost_said[1].norm then same = false end
  end
  if same then
    for i = 1, #parts do
      local a, b = parts[i]:find(cost_said[i].text .. " ", 1, true)
      if a then parts[i] = parts[i]:sub(1, a - 1) .. parts[i]:sub(b + 1) end
    end
    local body = cost_said[1].norm:match("^Not like for like on cost: (.*)$")
    once = body and (" Not like for like on cost, in every workload: " .. body)
      or (" In every workload: " .. cost_said[1].norm)
    -- (and once above the ranking: "These places are on totals")
    m.cost_every = once:sub(2)
  end
  m.verdict = ("%d workloads (%s), each ranked on its own: a treatment is compared only with those of its own "
    .. "workload, never across workloads.%s%s %s"):format(#groups, source, #groups.apart > 0
    and (" Apart, as they measured what they sent: %s."):format(table.concat(groups.apart, "; ")) or "", once,
    table.concat(parts, " "))
  return m
end

-- The treatments labelled in labels (tied at the top of the ranking) compared on latency at
-- the common load: on the SLOs' latency metrics (else the TTFT percentile the latency table
-- compares), each treatment's repeats at that load against the lowest one's, by the
-- decision layer's test on repeats (Welch, or the exact test), every test of this one family
-- Holm-adjusted. A treatment is named (best) only where it has the lowest figure of every
-- metric and each of its tests is below alpha after the adjustment and at least the
-- practical threshold (decision.MIN_EFFECT); otherwise the text says why none is. One past
-- its saturation, or failing requests, at the common load is compared with none, and then
-- none is named ("x is past its saturation there, so a latency there is a queue's, not the
-- server's"). Returns {best = label | nil, text, tests = {{key, a, b, p, p_adjusted}},
-- unsustained = {those not compared so}} or nil (no common load, no latency metric).
function M.latency_at_common(m, T, labels, slo)
  if not m.common_load then return nil end
  local keys = {}
  for _, s in ipairs(slo or {}) do
    if metrics.get(s.key).unit == "ms" then keys[#keys + 1] = s.key end
  end
  if #keys == 0 and m.latency_choice.ttft and m.latency_choice.ttft.common then
    keys[1] = m.latency_choice.ttft.key
  end
  if #keys == 0 then return nil end
  local by = {}
  for _, x in ipairs(T) do by[x.label] = x end
  local where = m.common_text and ("at the common load (%s)"):format(m.common_text) or "at the common load"
  local tests, fam_in, untested, lowest = {}, {}, {}, {}
  -- a treatment past its saturation at the common load (the load every treatment sustained
  -- does not exist, llmd.loadpoints.common_load's fallback: the highest inside every measured
  -- range), or failing requests there beyond the limit: its latencies there are a queue's
  -- waits, or of the requests that succeeded only, not its service's, so it is compared with
  -- none (compare.lua's rule: a load not both sustained is not compared) and none is named
  -- fastest (M.model's saturated_at_common and failing_at_common)
  local compared, sat, failing = {}, {}, {}
  for _, l in ipairs(labels) do
    local x = by[l]
    if x.saturated_at_common then sat[#sat + 1] = l
    elseif x.failing_at_common then failing[#failing + 1] = l
    else compared[#compared + 1] = l end
  end
  if #sat > 0 then
    untested[#untested + 1] = ("%s %s past %s saturation there, so a latency there is a queue's, not the server's")
      :format(table.concat(sat, " and "), #sat == 1 and "is" or "are", #sat == 1 and "its" or "their")
  end
  if #failing > 0 then
    untested[#untested + 1] = ("%s %s requests there beyond the failure limit, so %s latencies there are of the "
      .. "requests that succeeded only"):format(table.concat(failing, " and "), #failing == 1 and "fails" or "fail",
      #failing == 1 and "its" or "their")
  end
  local norep = {} -- the treatments with no repeats at the common load, in order (by label: interpolated)
  for _, key in ipairs(keys) do
    local low
    for _, l in ipairs(compared) do
      local e = by[l].at_common[key]
      local v = e and e.value
      if v == nil then
        untested[#untested + 1] = ("%s's %s is unknown there"):format(l, metrics.get(key).label)
      elseif not (e.ci and e.ci.samples) then
        -- (said once for every key and treatment after the loop: newuser54 F3)
        if not norep[l] then norep[#norep + 1] = l; norep[l] = {} end
        norep[l].interpolated = norep[l].interpolated or e.interpolated
      elseif not low or v < by[low].at_common[key].value then
        low = l
      end
    end
    lowest[key] = low
    if low then
      for _, l in ipairs(compared) do
        local e, el = by[l].at_common[key], by[low].at_common[key]
        if l ~= low and e and e.value and e.ci and e.ci.samples then
          local r = decision.sized_repeat_test(e.ci.samples, el.ci.samples)
          local row = { key = key, best = low, other = l, a = e.value, b = el.value, test = r }
          tests[#tests + 1] = row
          if r and r.p then fam_in[#fam_in + 1] = { id = #tests, p = r.p } end
        end
      end
    end
  end
  -- the treatments with no repeats there, once: "neither" / "none" where that is every one
  if #norep > 0 then
    local who
    if #norep == #labels and #labels == 2 then who = "neither has repeats measured there"
    elseif #norep == #labels then who = "none has repeats measured there"
    else
      who = ("%s %s no repeats measured there"):format(table.concat(norep, " and "), #norep == 1 and "has" or "have")
    end
    local interp = {}
    for _, l in ipairs(norep) do if norep[l].interpolated then interp[#interp + 1] = l end end
    if #interp == 1 and #norep == 1 then who = who .. " (its figure is interpolated)"
    elseif #interp > 0 and #interp == #norep then who = who .. " (their figures are interpolated)"
    elseif #interp > 0 then
      who = who .. (" (the figure%s of %s %s interpolated)"):format(#interp == 1 and "" or "s",
        table.concat(interp, " and "), #interp == 1 and "is" or "are")
    end
    untested[#untested + 1] = who
  end
  local fam = decision.family(fam_in)
  local best, shown, parts = nil, true, {}
  local held_per_token = false
  for _, key in ipairs(keys) do
    if best == nil then best = lowest[key] elseif lowest[key] ~= best then shown = false end
  end
  if #untested > 0 or not best then shown = false end
  for i, row in ipairs(tests) do
    row.p, row.p_adjusted = row.test and row.test.p or nil, fam.adjusted[i]
    local eff = decision.effect_pct(row.a, row.b)
    row.effect_pct = eff
    local ok = row.p_adjusted and row.p_adjusted < decision.ALPHA and eff
      and decision.magnitude(eff) >= decision.MIN_EFFECT
    -- the whole 95 % interval of the difference over the repeats beyond the practical
    -- threshold, as every tested row's (decision.effect_size): else what it is, and no best
    local e, size_note = row.test and row.test.row_effect, nil
    if ok and e and e.pct then
      local size
      size, size_note = decision.effect_size(row.test, e, decision.MIN_EFFECT, row.other, row.best)
      ok = size == "beyond"
      if e.lo and e.hi then row.effect_lo, row.effect_hi = e.lo, e.hi end
    end
    -- treatments whose token lengths differ beyond their noise (tgap): a latency they move names
    -- no lowest within what they explain (decision.token_effect, compare.lua's rows' rule)
    -- (on the treatments' own load curves, where the common load is a request rate: a lighter
    -- workload is a lighter load there, decision.token_effect; fixg52)
    local curve = m.common_axis ~= "concurrency" and {
      tested = { m.common_load }, a = decision.load_curve(by[row.other].points, row.key, m.common_axis),
      b = decision.load_curve(by[row.best].points, row.key, m.common_axis) } or nil
    local te = ok and eff and decision.token_effect(row.key, tgap(by[row.other], by[row.best]),
      e and e.lo or eff, e and e.hi or eff, decision.MIN_EFFECT, curve)
    if te and te.explained then ok, size_note, row.token_explained = false, te.note, true end
    held_per_token = held_per_token or (row.token_explained and decision.per_token(row.key)) or false
    if not ok then shown = false end
    local how
    if not row.p then
      how = ("untested: %s"):format(row.test and row.test.identical and "the repeats are identical"
        or "no test of these repeats")
    else
      how = ("%s, p = %s, Holm-adjusted %s over %d test%s"):format(
        decision.test_name(row.test), decision.fmt_p(row.p),
        decision.fmt_p(row.p_adjusted), fam.size, fam.size == 1 and "" or "s")
      if not ok then
        -- (B against A, as every effect; where a fall reaches the threshold, decision.effect_size's words)
        how = how .. (eff and decision.magnitude(eff) < decision.MIN_EFFECT
          and ("; %s, below the practical threshold of %g %%%s"):format(decision.pct_near(eff, decision.MIN_EFFECT),
            decision.MIN_EFFECT, eff < 0 and (" (a fall reaches it at %+.2f %%)"):format(
              decision.fall_threshold(decision.MIN_EFFECT)) or "")
          or size_note and ("; " .. size_note) or "; not shown to differ")
      end
    end
    parts[#parts + 1] = ("%s %s %s against %s for %s (%s)"):format(row.best, metrics.get(row.key).label,
      metrics.format(row.key, row.b), metrics.format(row.key, row.a), row.other, how)
  end
  -- (a held latency points at the per-token figures only where they are not held themselves,
  -- as compare.lua's rows: decision.PER_TOKEN_ADVICE; fixh52)
  if held_per_token then
    for i, p in ipairs(parts) do
      local j = p:find(decision.PER_TOKEN_ADVICE, 1, true)
      while j do
        p = p:sub(1, j - 1) .. p:sub(j + #decision.PER_TOKEN_ADVICE)
        j = p:find(decision.PER_TOKEN_ADVICE, 1, true)
      end
      parts[i] = p
    end
  end
  local names = {}
  for _, key in ipairs(keys) do names[#names + 1] = metrics.get(key).label end
  local what = table.concat(names, " and ")
  local res = { keys = keys, tests = tests, family_size = fam.size, unsustained = {} }
  -- (the ones not compared, as past saturation or failing requests at the common load)
  for _, l in ipairs(sat) do res.unsustained[#res.unsustained + 1] = l end
  for _, l in ipairs(failing) do res.unsustained[#res.unsustained + 1] = l end
  if shown then
    res.best = best
    -- (not "best at" an unmeasured load: the figure is at the load every one sustained)
    res.text = ("%s has the lowest %s %s, shown by repeats: %s.")
      :format(best, what, where, table.concat(parts, "; "))
  else
    res.text = ("Nor is one shown lower on %s %s%s%s."):format(what, where,
      #parts > 0 and (": " .. table.concat(parts, "; ")) or "",
      #untested > 0 and ((#parts > 0 and "; " or ": ") .. table.concat(untested, "; ")) or "")
  end
  return res
end

-- The lower bounds whose order only higher loads can tell, each one's part of
-- decision.bounds_advice: by max sustained throughput, the treatments xs that never
-- saturated, each measured above its highest load, up to where it stops keeping up
-- (sustained_bounds); by capacity at SLO (capacity_bounds, x this place, nxt the next), each
-- one whose capacity is a lower bound that only its own higher loads can order
-- (llmd.report.deciding_bound: both bounds, its figure the lower, or the other below its
-- lowest load), measured where it lies (llmd.report.bound_settle). cx, cn: the capacities the
-- order reads (per GPU: llmd.report.capacity_per's; default the totals'): which bound decides
-- is read off them, but the loads named are the treatment's own offered loads, in total, the
-- ones a user sets.
local function sustained_bounds(xs)
  local bounds = {}
  for _, x in ipairs(xs) do
    local top
    for _, p in ipairs(x.points or {}) do
      if p.offered and (not top or p.offered > top.offered) then top = p end
    end
    bounds[#bounds + 1] = decision.above_bound_text(x.label, top and top.load_type and lp.load_text(top.load_type,
      top.offered), "it stops keeping up")
  end
  return bounds
end

local function capacity_bounds(x, nxt, cx, cn)
  local rep = require "llmd.report"
  cx, cn = cx or x.capacity, cn or nxt.capacity
  local bounds = {}
  for _, y in ipairs { { x, cx, cn }, { nxt, cn, cx } } do
    if rep.deciding_bound(y[2], y[3]) then
      bounds[#bounds + 1] = rep.bound_settle(y[1].points, y[1].saturation, y[1], y[2])
    end
  end
  return bounds
end

-- What settles the order of treatments whose max sustained throughput is only a lower bound
-- (never saturated), xs the bound treatments, in compare.lua's words: "To settle it: measure
-- loads where each max sustained throughput lies, above its lower bound: ...".
local function bounds_settle(xs)
  return "To settle it: " .. decision.bounds_advice(sustained_bounds(xs), "max sustained throughput") .. "."
end

-- What settles the order of two treatments by capacity at SLO where a lower bound decides it
-- (x this place, nxt the next), in compare.lua's Verdict's words (capacity_bounds,
-- decision.bounds_advice): "To settle it: measure loads where each capacity lies, above its
-- lower bound: x above 30 req/s offered, its highest load, up to where an SLO fails or it
-- saturates; ...". nil where no lower bound decides it.
local function capacity_bounds_settle(x, nxt)
  local bounds = capacity_bounds(x, nxt)
  if #bounds == 0 then return nil end
  return "To settle it: " .. decision.bounds_advice(bounds, "capacity") .. "."
end

-- Whether the treatments ranked (x.gpus: their accelerator counts, nil unknown) are like for
-- like on cost: nil when every count is known and equal, or none is known (nothing says they
-- differ); otherwise {text = the banner, differ = true when two known counts differ,
-- unknown = labels, per_gpu = {{label, gpus, value}} in order per GPU (figures only,
-- untested) where every count is known}. totals_first: whether the ranking on totals names
-- a first (no other place shares its rank); only then is the order per GPU set against it.
-- totals_ranks: each label's rank text on totals; the places whose rank per GPU differs are
-- named (rank_moved). settle: what would settle the orders per GPU left open, in the totals'
-- words (capacity_bounds, sustained_bounds, decision.noise_settle_text), each treatment at its
-- own offered loads; settle_first: of the pairs that leave no first per GPU (the Verdict line).
-- The words before treatment x's figure, as its total says them: a capacity's from
-- llmd.report.capacity_prefix (the one source: "measured ≥ ", "≥ ", "< ", "about "), a max
-- sustained throughput's "≥ " where it never saturated.
local function figure_prefix(x, by_cap)
  if by_cap then return require("llmd.report").capacity_prefix(x.capacity) end
  return x.saturation and x.saturation.none and "≥ " or ""
end

-- ahead(k, j) for k < j: ordered(k, j), or a chain k < m1 < ... < j of ordered pairs (memoised).
local function chain_order(ordered)
  local memo = {}
  local function ahead(k, j)
    local key = k .. ":" .. j
    if memo[key] == nil then
      memo[key] = ordered(k, j) and true or false
      for mid = k + 1, j - 1 do
        if not memo[key] and ahead(k, mid) and ahead(mid, j) then memo[key] = true end
      end
    end
    return memo[key]
  end
  return ahead
end

-- The tie rule of every order of treatments by a figure: of two equal figures, the treatment
-- given first (x.given_order: --run as written, --results' folders in their order, an
-- experiment's treatments as its file lists them), then the label; a strict weak order, so
-- that table.sort is deterministic. Where it decides a place, the ranking says so ("tied: x
-- and y ...", M.model).
function M.given_before(a, b)
  local ga, gb = a.given_order or math.huge, b.given_order or math.huge
  if ga ~= gb then return ga < gb end
  return a.label < b.label
end

-- The ranking's order: the higher figure (rank_value, req/s) first; equal figures by
-- M.given_before. The evidence may then swap neighbours (M.model).
function M.rank_before(a, b)
  if a.rank_value ~= b.rank_value then return a.rank_value > b.rank_value end
  return M.given_before(a, b)
end

-- The places tied at the top of a ranking (ranked: its places in order, each with rank_value,
-- its figure in req/s; by_cap: ranked by capacity at SLO, else by max sustained throughput):
-- the indexes of the first place and of every place whose figure is of the same kind (an
-- estimate, a lower bound "≥", a bound below the lowest load "<": llmd.loadpoints.capacity_gives;
-- by max sustained throughput, a limit or a lower bound where it never saturated) and lies
-- within the practical threshold of the first's: decision.order_gap_pct, the one scale every
-- threshold of llmd.decision is judged on (the higher against the lower), below
-- decision.MIN_EFFECT, or one rate within float rounding (decision.same_rate). Read on the
-- numbers, never on the printed text: 3.4852 and 3.4849 req/s tie whether they print as 3.485
-- twice or as 3.49 and 3.48, and 0.0012 against 0.0014 req/s (+16.7 %) is no tie although both
-- print 0.001 (ties56: the text rule flipped exp-7's tie with the precision).
function M.tied_at_top(ranked, by_cap)
  local function kind(x)
    if by_cap then return lp.capacity_gives(x.capacity) end
    return x.saturation and x.saturation.none == true and "lower" or "limit"
  end
  local first = ranked[1]
  local out = { 1 }
  if not first then return {} end
  for i = 2, #ranked do
    local x = ranked[i]
    local a, b = first.rank_value, x.rank_value
    if kind(x) == kind(first) and type(a) == "number" and type(b) == "number" then
      local g = decision.order_gap_pct(a, b)
      if decision.same_rate(a, b) or (g and math.abs(g) < decision.MIN_EFFECT) then out[#out + 1] = i end
    end
  end
  return out
end

-- Ranks from a partial order (audit40 #3): n places in the order of their figures, and
-- ordered(k, j) (k < j) true where the evidence puts place k ahead of place j. Place i's rank
-- is 1 + the number of places k < i ordered ahead of it, directly or by a chain k ahead of
-- m ahead of i: a tie (no order either way) is not transitive, so x ahead of z with y tied
-- with both gives x 1, y 1, z 2, never all three 1. Where the order is total this is
-- standard competition ranking (1, 1, 3 for two tied at the top above a third).
function M.partial_ranks(n, ordered)
  local ahead = chain_order(ordered)
  local ranks = {}
  for i = 1, n do
    local above = 0
    for k = 1, i - 1 do
      if ahead(k, i) then above = above + 1 end
    end
    ranks[i] = above + 1
  end
  return ranks
end

-- The pairs {k, j} (k < j) whose ranks (ranks[i], M.partial_ranks of ordered) differ though the
-- evidence orders k ahead of j neither directly nor by a chain of ordered pairs: x level with
-- y, y above z, x and z unordered give x "1=", y "1=", z "2", which reads as x ahead of z. Both
-- rankings (on totals, per GPU) name these pairs, so that no order the evidence does not show
-- is read off the ranks.
function M.unordered_across_ranks(n, ranks, ordered)
  local ahead = chain_order(ordered)
  local out = {}
  for k = 1, n - 1 do
    for j = k + 1, n do
      if ranks[k] < ranks[j] and not ahead(k, j) then out[#out + 1] = { k, j } end
    end
  end
  return out
end

-- What is known of the treatments' hardware (list: the treatments, x.gpus their accelerator
-- counts, x.hardware the replicas their values give): known (those with a count), unknown
-- (labels), n (how many different counts), replicas ("one decode.replicas 1; two
-- decode.replicas 2") where no count is known but the replicas differ. The one reading behind
-- both cost notes (M.cost_note, M.hardware_note).
local function hardware_of(list)
  local known, unknown, counts = {}, {}, {}
  for _, x in ipairs(list) do
    if x.gpus then
      known[#known + 1] = x
      counts[x.gpus] = true
    else
      unknown[#unknown + 1] = x.label
    end
  end
  local n = 0
  for _ in pairs(counts) do n = n + 1 end
  local hw = { known = known, unknown = unknown, n = n }
  if #known == 0 then
    -- no count known, but the values the setups were deployed with say their replicas
    -- differ (an experiment's decode.replicas 1 against 2): more hardware, not known how much
    local reps, kinds = {}, {}
    for _, x in ipairs(list) do
      if x.hardware then
        reps[#reps + 1] = ("%s %s"):format(x.label, x.hardware)
        kinds[x.hardware] = true
      end
    end
    local k = 0
    for _ in pairs(kinds) do k = k + 1 end
    if k >= 2 then
      table.sort(reps)
      hw.replicas = table.concat(reps, "; ")
    end
  end
  return hw
end

-- Where an experiment's setups' GPU counts are given (M.setup_gpus reads them from the values:
-- replicas x parallelism.tensor x parallelism.data per role), said where they are unknown.
M.GPUS_HINT = "the values give no parallelism.tensor: set decode.parallelism.tensor in the experiment's "
  .. "setup.constants or setup treatments, or give treatments.lua WORKSPACE --gpus SETUP=N"

function M.cost_note(ranked, by_cap, totals_first, totals_ranks, slo)
  local hw = hardware_of(ranked)
  local known, unknown, n = hw.known, hw.unknown, hw.n
  if #known == 0 then
    if not hw.replicas then return nil end
    return { differ = true, unknown = unknown, replicas = hw.replicas,
      text = ("Not like for like on cost: the setups' replicas differ (%s), "
      .. "and their GPU counts are unknown (%s), so %s is "
      .. "not compared per GPU and the totals below, which favour the one with more hardware, name no winner on "
      .. "cost."):format(hw.replicas, M.GPUS_HINT, by_cap and "capacity at SLO" or "max sustained throughput") }
  end
  if n == 1 and #unknown == 0 then return nil end
  local what = by_cap and "capacity at SLO" or "max sustained throughput"
  local parts = {}
  for _, x in ipairs(known) do
    parts[#parts + 1] = ("%s %g GPU%s"):format(x.label, x.gpus, x.gpus == 1 and "" or "s")
  end
  local res = { differ = n > 1, unknown = unknown }
  if #unknown > 0 then
    res.text = ("Not like for like on cost: %s; %s unknown (give --gpus LABEL=N), so %s is not compared per GPU "
      .. "and the totals below, which favour the one with more hardware, name no winner on cost."):format(
      table.concat(parts, ", "), table.concat(unknown, ", "), what)
    return res
  end
  -- every count known, and they differ: the figures per GPU, in their order. A capacity
  -- below the lowest load has no figure but its bound, that load's achieved rate ("< X"):
  -- per GPU, X per GPU (value), sorted below every figure as on totals (sort)
  local per = {}
  for _, x in ipairs(known) do
    local v = x.rank_value
    local below = by_cap and x.capacity and x.capacity.kind == "below_lowest"
    local shown_v = below and x.capacity.lowest_rps or (not below and v) or nil
    per[#per + 1] = { label = x.label, gpus = x.gpus, given_order = x.given_order,
      value = shown_v and shown_v / x.gpus or nil,
      sort = v and v / x.gpus or nil, bound = below and "below" or nil,
      text = shown_v and ("%s%s per GPU"):format(figure_prefix(x, by_cap),
        metrics.rate_text(shown_v / x.gpus))
      or "unknown" }
  end
  -- (equal figures per GPU in the order the treatments were given, as on totals: M.rank_before)
  table.sort(per, function(a, b)
    if (a.sort or -1) ~= (b.sort or -1) then return (a.sort or -1) > (b.sort or -1) end
    return M.given_before(a, b)
  end)
  for _, p in ipairs(per) do p.sort, p.given_order = nil, nil end
  local texts = {}
  for i, p in ipairs(per) do texts[i] = ("%s %s"):format(p.label, p.text) end
  res.per_gpu = per
  -- by capacity, each place per GPU against the next by compare.lua's per-GPU rule: both
  -- capacities (their ranges from repeats, their brackets) divided by the accelerators
  -- (report.capacity_per), then decision.capacity_evidence; by max sustained throughput,
  -- the figures only
  local shown
  local by = {}
  for _, x in ipairs(known) do by[x.label] = x end
  -- one pair per GPU, x (the higher figure) against o: whether the evidence orders x above
  -- o, and the words for it
  local pair
  if by_cap then
    -- by capacity: both capacities (their ranges from repeats, their brackets) divided by the
    -- accelerators (report.capacity_per), then decision.capacity_evidence, compare.lua's rule
    local per_cap = require("llmd.report").capacity_per
    local function rate(v) return metrics.rate_text(v) end
    pair = function(x, nxt)
      local cx, cn = per_cap(x.capacity, x.gpus), per_cap(nxt.capacity, nxt.gpus)
      local opts = { runs = { nxt, x }, error_dispersion = { a = nxt.error_dispersion, b = x.error_dispersion } }
      for k, v in pairs(token_opts(x, nxt, slo, function(t, c) return per_cap(c, t.gpus) end) or {}) do opts[k] = v end
      local ev = decision.capacity_evidence(cn, cx, decision.MIN_EFFECT, opts)
      local above = ev.verdict == "B higher" or ev.ordered or ev.beyond_ceiling
      -- what would settle an order left open, as on totals: a lower bound that decides it
      -- (read off the capacities per GPU) measured higher, at its own offered loads, and spans
      -- apart within the noise of their rates measured longer (decision.noise_settle_text, its
      -- rates per GPU, so no seconds)
      local settle
      if not above and ev.verdict ~= "A higher" and ev.order_open and ev.noise_unknown then
        -- (open on summary files' unknown noise: what tells that noise, not loads above a
        -- bound, compare.lua's Verdict's words - fixs50)
        settle = { unknown = require("llmd.report").unknown_noise_advice(x, nxt, cx, cn) }
      elseif not above and ev.verdict ~= "A higher" then
        settle = { bounds = capacity_bounds(x, nxt, cx, cn), noise = ev.within_noise and ev.noise
          and decision.noise_settle_text(ev.noise, function(v) return rate(v) .. " per GPU" end, true) or nil }
      end
      local said
      if ev.verdict == "B higher" then
        said = ("%s above %s per GPU, shown by repeats"):format(x.label, nxt.label)
      elseif ev.verdict == "A higher" then
        said = ("%s above %s per GPU by the repeats, against the figures"):format(nxt.label, x.label)
      elseif ev.ordered and ev.passed_rps and ev.failed_rps then
        said = ("%s above %s per GPU: untested, but the measured loads order them: %s met the SLO at %s "
          .. "per GPU, %s already failed it at %s per GPU"):format(x.label, nxt.label, x.label, rate(ev.passed_rps),
          nxt.label, rate(ev.failed_rps))
      elseif ev.beyond_ceiling and ev.ceiling_rps then
        said = ("%s above %s per GPU: untested, but %s achieved at most %s per GPU at any load"):format(
          x.label, nxt.label, nxt.label, rate(ev.ceiling_rps))
      elseif ev.token_explained or ev.token_same then
        -- (held by the two treatments' token lengths: compare.lua's words, token_reason; it read
        -- "not shown to differ" with the gap alone, token54)
        said = ("%s and %s per GPU: %s: not shown to differ per GPU"):format(x.label, nxt.label,
          token_reason(ev, nxt.label, x.label))
      else
        local both_below = x.capacity.kind == "below_lowest" and nxt.capacity.kind == "below_lowest"
        -- (untested: where the capacities lie per GPU, the spans the evidence weighs, which
        -- overlap: each one-run point's percentile noise or the repeats' range widens the
        -- measured bracket, decision.capacity_span; the bracket alone may look apart)
        local function bracket(c)
          local cp = per_cap(c.capacity, c.gpus)
          if not decision.capacity_bracket(cp) then return nil end
          local lo, hi = decision.capacity_span(cp)
          if not lo then return nil end
          if hi == math.huge then return ("%s ≥ %s per GPU"):format(c.label, rate(lo)) end
          if lo == 0 then return ("%s < %s per GPU"):format(c.label, rate(hi)) end
          return ("%s between %s and %s per GPU"):format(c.label, rate(lo), rate(hi))
        end
        local bx, bn = bracket(x), bracket(nxt)
        -- in the totals' words: two lower bounds are untested, and either may be higher (not
        -- "not known", which reads as missing data, nor "not comparable", which reads as runs of
        -- unlike kinds: fixc51); a pair not shown to differ with the gap their per-GPU spans
        -- allow, this one against the next (decision.capacity_gap)
        local gap = decision.gap_pct_text(decision.capacity_gap(cn, cx), gap_pct)
        local cap_unknown = x.capacity.kind == "unknown" and x or nxt.capacity.kind == "unknown" and nxt or nil
        said = ("%s and %s per GPU: %s"):format(x.label, nxt.label,
          both_below and "not compared: both fail the SLO already at their lowest load, so neither capacity is known"
          or ev.verdict == "unknown" and decision.capacity_is_bound(cx) and decision.capacity_is_bound(cn)
            and cx.rps and cn.rps and ("untested, and either may be higher: both only lower bounds, ≥ %s and ≥ %s "
              .. "per GPU, which leave room for either order%s"):format(rate(cx.rps), rate(cn.rps), bx and bn
              and (" (the spans the evidence weighs overlap: %s, %s)"):format(bx, bn) or "")
          or ev.verdict == "unknown" and cap_unknown and ("not comparable: %s's capacity is unknown (%s)"):format(
            cap_unknown.label, tostring(cap_unknown.capacity.reason))
          or ev.verdict == "unknown" and "not comparable: the evidence cannot order them"
          or ev.verdict == "untested" and ev.noise_unknown and bx and bn
            and ("untested, and either may be higher: %s, %s, but each pass or fail rests on one measured percentile "
              .. "whose noise these files cannot tell (no per-request data)%s"):format(bx, bn,
              -- (the loads and the condition that leave it open, tidy55: "too close" named none)
              (function()
                local why = decision.unknown_noise_text(ev.noise_unknown_why, ev,
                  function(v) return rate(v) .. " per GPU" end, nxt.label, x.label)
                return why and (", and " .. why) or ", too close to order them"
              end)())
          -- (spans apart by less than the noise of the rates they are read at: the ranking's and
          -- compare.lua's words, decision.capacity_noise_text, its rates per GPU; "cannot order
          -- them" reads as spans that overlap beside two that do not)
          or ev.verdict == "untested" and ev.within_noise and ev.noise and ("untested, and either may be higher: %s")
            :format(decision.capacity_noise_text(ev.noise, function(v) return rate(v) .. " per GPU" end,
              ev.within_noise == "b" and x.label or nxt.label, ev.within_noise == "b" and nxt.label or x.label))
          or ev.verdict == "untested" and (bx and bn and ("untested, and the measured loads cannot order them: %s, %s")
            :format(bx, bn) or "untested, not ordered")
          -- (ranges from repeats that overlap: the gap held to the tokens beside it where the
          -- requests differ, decision.capacity_token_gap, token54)
          or ("not shown to differ%s"):format(gap and (" (%s %s vs %s per GPU%s)"):format(x.label, gap, nxt.label,
            decision.token_held_gap_text(ev.token_held, gap_pct, nxt.label, x.label,
              function(k, v) return metrics.format(k, v) end)) or ""))
      end
      -- (a crash in the higher one's repeats that can only have lowered it: said, as by totals)
      if ev.crash_in_higher then
        local t = require("llmd.report").crash_in_higher_text((ev.winner or ev.higher) == "a" and nxt or x,
          ev.crash_in_higher)
        said = ("%s; %s"):format(said, t:sub(1, 1):lower() .. t:sub(2))
      end
      -- (treatments.json's vs_next per GPU: two lower bounds are "untested", as the totals' vs_next
      -- and the text say, not capacity_evidence's "unknown")
      local verdict = ev.verdict
      if verdict == "unknown" and decision.capacity_is_bound(cx) and decision.capacity_is_bound(cn) then
        verdict = "untested"
      end
      return above, said, verdict, settle
    end
  else
    -- by max sustained throughput, compare.lua's per-GPU rule (decision.sustained_order):
    -- each limit lies between its figure and its ceiling (no upper end where it never
    -- saturated), per GPU each divided by its own count; only spans apart order two, and two
    -- that never saturated never are (two lower bounds: each kept up with what it was sent)
    local function rate(v) return metrics.rate_text(v) .. " per GPU" end
    local function range(l, h)
      if h == math.huge then return "≥ " .. rate(l) end
      if l == h then return rate(l) end
      return ("%s–%s"):format(metrics.rate_text(l):gsub(" req/s$", ""), rate(h))
    end
    pair = function(x, nxt)
      local order, sp = decision.sustained_order(nxt.saturation, nxt.gpus, x.saturation, x.gpus,
        decision.MIN_EFFECT, nil, tgap(nxt, x))
      if order == "b" then
        return true, ("%s above %s per GPU: untested, but the measured loads order them: %s sustained %s, %s "
          .. "never achieved more than %s at any load"):format(x.label, nxt.label, x.label, rate(sp.lb), nxt.label,
          rate(sp.ha)), "ordered"
      end
      -- (an order, or a gap within the practical threshold, that the two treatments' token lengths
      -- hold: compare.lua's words, token_reason; it read "the measured loads cannot order them")
      local tr = token_reason(sp, nxt.label, x.label, rate)
      if tr then
        return false, ("%s and %s per GPU: %s: not shown to differ per GPU"):format(x.label, nxt.label, tr),
          "not ordered"
      end
      if sp and sp.least_below_threshold then
        -- (a least gap below the practical threshold, the largest beyond it: at least as high,
        -- no order, decision.sustained_order, as compare.lua's row)
        local hi, lo = sp.margin_higher == "b" and x or nxt, sp.margin_higher == "b" and nxt or x
        return false, ("%s and %s per GPU: the measured loads put %s at least as high as %s (%s sustained %s, %s never "
          .. "achieved more than %s at any load)%s: the gap may be negligible, %s"):format(x.label,
          nxt.label, hi.label, lo.label, hi.label, rate(sp.margin_hi), lo.label, rate(sp.margin_lo),
          (decision.least_gap_text(sp, gap_pct, decision.MIN_EFFECT, rate):gsub("^ by", ", by"):gsub("^: ", ", ")),
          decision.AT_LEAST_NO_WINNER), "not ordered"
      end
      if sp and sp.below_threshold then
        -- (compare.lua's rule: an order by less than the practical threshold is none)
        local hi, lo = sp.below_threshold == "b" and x or nxt, sp.below_threshold == "b" and nxt or x
        return false, ("%s and %s per GPU: the measured loads put %s above (%s sustained %s, %s never achieved "
          .. "more than %s at any load), but only by %s%s within the practical threshold of %g %%: "
          .. "about the same"):format(x.label, nxt.label, hi.label, hi.label,
          rate(sp.below_threshold == "b" and sp.lb or sp.la), lo.label,
          rate(sp.below_threshold == "b" and sp.ha or sp.hb), ("%.1f %%"):format(sp.margin_pct),
          decision.largest_within_text(sp.margin_max_pct), decision.MIN_EFFECT),
          "not ordered"
      end
      if sp and sp.within_noise then
        -- (spans apart by less than the noise of their rates: compare.lua's rule, one function;
        -- what would settle it, loads longer, as on totals, its rates per GPU, so no seconds)
        local hi, lo = sp.within_noise == "b" and x or nxt, sp.within_noise == "b" and nxt or x
        return false, ("%s and %s per GPU: the measured loads put %s above (%s sustained %s, %s never achieved "
          .. "more than %s at any load), %s"):format(x.label, nxt.label, hi.label, hi.label,
          rate(sp.within_noise == "b" and sp.lb or sp.la), lo.label, rate(sp.within_noise == "b" and sp.ha or sp.hb),
          decision.sustained_noise_text(sp, rate, hi.label, lo.label)), "not ordered",
          { bounds = {}, noise = decision.noise_settle_text(sp.noise, rate, true) }
      end
      -- (spans that overlap: the ones that never saturated measured higher, as on totals)
      local open = {}
      for _, y in ipairs { x, nxt } do
        if sp and y.saturation.none == true then open[#open + 1] = y end
      end
      return false, sp and ("%s and %s per GPU: the measured loads cannot order them: %s %s, %s %s"):format(
        x.label, nxt.label, x.label, range(sp.lb, sp.hb), nxt.label, range(sp.la, sp.ha))
        or ("%s and %s per GPU: not known"):format(x.label, nxt.label), "not ordered",
        { bounds = sustained_bounds(open) }
    end
  end
  local said = {}
  -- (what would settle each pair left open, {a, b, settle}; those of the first per GPU apart)
  local open, open_first = {}, {}
  for i = 1, #per - 1 do
    local above, text, verdict, settle = pair(by[per[i].label], by[per[i + 1].label])
    per[i].vs_next = by_cap and verdict or (above and "ordered" or "not ordered")
    per[i].above = above or false
    said[#said + 1] = text
    if i == 1 and above then shown = per[1].label end
    if settle then
      open[#open + 1] = { a = per[i].label, b = per[i + 1].label, settle = settle }
      if i == 1 then open_first[1] = open[#open] end
    end
  end
  -- a first per GPU is ahead of every other treatment, not only of the next: the first
  -- against each one further down, and where the evidence does not order the two, the text
  -- names the pair ("x is not shown ahead of z per GPU: ...") and there is no first per GPU
  -- (x above y and y level with z would otherwise read as x first)
  if shown then
    for j = 3, #per do
      local above, text, _, settle = pair(by[per[1].label], by[per[j].label])
      if not above then
        shown = nil
        if settle then
          open[#open + 1] = { a = per[1].label, b = per[j].label, settle = settle }
          open_first[#open_first + 1] = open[#open]
        end
        local rest = text:gsub("^" .. per[1].label:gsub("%p", "%%%0") .. " and " .. per[j].label:gsub("%p", "%%%0")
          .. " per GPU: ", "")
        said[#said + 1] = ("%s is not shown ahead of %s per GPU: %s"):format(per[1].label, per[j].label, rest)
      end
    end
  end
  res.best_per_gpu = shown
  -- the rank per GPU (per[i].rank_text, "1=" where shared), by the partial order as on
  -- totals (M.partial_ranks): 1 + the places the evidence orders ahead of it (x above y and
  -- y level with z, but x not shown ahead of z: x and z "1=", y "2"; best_per_gpu names none)
  local ahead = {}
  local function ordered(i, j)
    local key = i .. ":" .. j
    if ahead[key] == nil then
      ahead[key] = (i + 1 == j and per[i].above) or (i + 1 ~= j and pair(by[per[i].label], by[per[j].label])) or false
    end
    return ahead[key]
  end
  local rank_of = M.partial_ranks(#per, ordered)
  for i = 1, #per do per[i].rank = rank_of[i] end
  -- a place ranked above another that the evidence does not order it above, directly or by a
  -- chain (x level with y, y above z, x and z unordered: x "1=", z "2", which reads as x ahead
  -- of z), named with why, as the totals name the pairs their ranks leave unordered (audit50b
  -- F3: A 1=, B 1=, C 2 per GPU, A's pair with C never said); M.unordered_across_ranks
  -- (neighbours are said above, each against the next)
  for _, e in ipairs(M.unordered_across_ranks(#per, rank_of, ordered)) do
    if e[2] > e[1] + 1 and not shown then
      local a, b = per[e[1]].label, per[e[2]].label
      local _, text = pair(by[a], by[b])
      local rest = text:gsub("^" .. a:gsub("%p", "%%%0") .. " and " .. b:gsub("%p", "%%%0") .. " per GPU: ", "")
      said[#said + 1] = ("%s is not shown ahead of %s per GPU, though ranked above it: %s"):format(a, b, rest)
    end
  end
  res.evidence = said
  if #said > 0 then texts[#texts] = texts[#texts] .. "; " .. table.concat(said, "; ") end
  local count = {}
  for _, p in ipairs(per) do count[p.rank] = (count[p.rank] or 0) + 1 end
  for _, p in ipairs(per) do p.rank_text = tostring(p.rank) .. (count[p.rank] > 1 and "=" or "") end
  for _, p in ipairs(per) do p.above = nil end
  -- the order per GPU against the totals' only where the evidence names a first per GPU: two
  -- figures the measured loads cannot order name none (as compare.lua says of them)
  res.text = ("Not like for like on cost: %s. Per GPU, %s: %s (%s; a lower bound stays one)%s."):format(
    table.concat(parts, ", "), what, table.concat(texts, ", "), by_cap and "each against the next per GPU as "
    .. "compare.lua orders them" or "each against the next per GPU as compare.lua orders them, untested",
    shown and ranked[1] and shown ~= ranked[1].label and totals_first
      and ("; the order per GPU is not the totals' order: %s first per GPU, %s on totals"):format(shown,
        ranked[1].label) or "")
  -- the places the rank per GPU puts otherwise than the rank on totals (totals_ranks: label to
  -- the totals' rank text), named, so that a place beaten on totals is not read as beaten per
  -- GPU: each rank per GPU rests on the same evidence rules as the totals' (M.partial_ranks)
  local moved = {}
  for _, p in ipairs(per) do
    local tr = (totals_ranks or {})[p.label]
    if tr and tr ~= p.rank_text then
      moved[#moved + 1] = ("%s %s per GPU (%s on totals)"):format(p.label, p.rank_text, tr)
    end
  end
  if #moved > 0 then
    res.rank_moved = moved
    res.text = ("%s The rank per GPU is not the rank on totals for %s: %s."):format(res.text,
      #moved == 1 and "one place" or (#moved .. " places"), table.concat(moved, ", "))
  end
  -- what would settle the orders per GPU left open (pair's settle: lower bounds that decide
  -- them, measured higher; spans within the noise of their rates, measured longer), in the
  -- totals' words, each treatment at its own offered loads; res.settle_first: of the pairs
  -- that leave no first per GPU, for the Verdict line
  local function settle_text(list)
    local bounds, seen, noise = {}, {}, {}
    for _, e in ipairs(list) do
      for _, b in ipairs(e.settle.bounds or {}) do
        if not seen[b] then seen[b], bounds[#bounds + 1] = true, b end
      end
      if e.settle.noise then noise[#noise + 1] = e end
    end
    local out = {}
    if #bounds > 0 then out[1] = decision.bounds_advice(bounds, by_cap and "capacity" or "max sustained throughput") end
    for _, e in ipairs(list) do
      if e.settle.unknown then out[#out + 1] = e.settle.unknown end
    end
    for _, e in ipairs(noise) do
      out[#out + 1] = (#list > 1 and ("%s against %s: "):format(e.a, e.b) or "") .. e.settle.noise
    end
    if #out == 0 then return nil end
    return ("To settle the order per GPU (each treatment at its own offered loads, in total): %s."):format(
      table.concat(out, "; "))
  end
  res.settle = settle_text(open)
  res.settle_first = not shown and settle_text(open_first) or nil
  -- (of fewer pairs than the whole order's: what settles the first place, said so, so that the
  -- Verdict's list is not read as the whole order's with a treatment left out)
  if res.settle_first and res.settle_first ~= res.settle then
    res.settle_first = res.settle_first:gsub("^To settle the order per GPU", "To settle which is first per GPU")
  end
  if res.settle then res.text = res.text .. " " .. res.settle end
  return res
end

-- The cost note where the ranking has fewer than two places (list: every treatment not
-- failed, ranked or not): the hardware is the treatments', whether or not their figure is
-- known, and the totals the report still shows (max sustained throughput, the Pareto front)
-- favour the one with more of it. nil when like for like (every count known and equal) or
-- nothing says otherwise; else as M.cost_note's, with no order per GPU (unranked = true).
function M.hardware_note(list)
  local hw = hardware_of(list)
  local said
  if hw.replicas then
    said = ("the setups' replicas differ (%s), and their GPU counts are unknown (%s)"):format(hw.replicas,
      M.GPUS_HINT)
  elseif #hw.known > 0 and (hw.n > 1 or #hw.unknown > 0) then
    local parts = {}
    for _, x in ipairs(hw.known) do
      parts[#parts + 1] = ("%s %g GPU%s"):format(x.label, x.gpus, x.gpus == 1 and "" or "s")
    end
    said = table.concat(parts, ", ") .. (#hw.unknown > 0 and ("; %s unknown (give --gpus LABEL=N)"):format(
      table.concat(hw.unknown, ", ")) or "")
  else
    return nil
  end
  return { differ = hw.replicas ~= nil or hw.n > 1, unknown = hw.unknown, replicas = hw.replicas, unranked = true,
    text = ("Not like for like on cost: %s, so the totals below (max sustained throughput, the Pareto front), which "
      .. "favour the one with more hardware, name no winner on cost."):format(said) }
end

-- M.latency_at_common's result as treatments.json holds it (false when there was none).
function M.latency_at_common_json(r)
  if not r then return false end
  local json = require "llmd.json"
  local tests = {}
  for i, row in ipairs(r.tests) do
    tests[i] = { key = row.key, lowest = row.best, other = row.other, lowest_value = row.b, other_value = row.a,
      -- (the test's name as comparison.json's perf[].test gives it: "welch_log" where it read the log values)
      test = row.test and decision.test_code(row.test) or false, p = row.p or false,
      p_adjusted = row.p_adjusted or false, effect_pct = row.effect_pct or false }
  end
  return { best = r.best or false, keys = json.array(r.keys), tests = json.array(tests), family_size = r.family_size,
    text = r.text, unsustained = json.array(r.unsustained or {}) }
end

-- The report's first line (m.verdict_line): which treatment sustains the most load (by
-- m.rank_by: capacity at SLO, or max sustained throughput without SLOs), its figure against
-- the next one's, by how much, and how sure; read off the ranking's first place and its
-- evidence against the next (proven: shown by repeats; order_certain: untested, but the
-- measured loads order them), never a computation of its own, so that it names a treatment
-- first only where the ranking does. Where the treatments ran on different numbers of
-- accelerators, none is named best on totals (m.cost); where the ranking has fewer than two
-- places to compare, the first sentence of the verdict paragraph.
function M.verdict_line(m, ranked, failed, by_cap)
  local r1, r2 = m.ranking[1], m.ranking[2]
  local function fig(text) return (tostring(text):gsub(" %(.*$", "")) end
  local more = #ranked > 2 and "the most load" or "more load"
  local within = by_cap and ("within " .. tostring(m.slo_text)) or "(max sustained throughput; no SLO given)"
  local line
  if m.cost then
    -- (per GPU: the first's figure against the next one's, as the cost note gives them)
    local per = m.cost.per_gpu or {}
    local figs = m.cost.best_per_gpu and per[1] and per[2] and per[1].label == m.cost.best_per_gpu
      and (": %s against %s for %s"):format(per[1].text, per[2].text, per[2].label) or ""
    -- (what is known: the GPU counts differ, or only the replicas, the counts unknown; or a
    -- count is unknown)
    local unknown = m.cost.unknown or {}
    local why = m.cost.replicas and ("Not like for like on cost: the setups' replicas differ (%s) and their GPU "
      .. "counts are unknown"):format(m.cost.replicas)
      or #unknown > 0 and (m.cost.differ and ("Not like for like on cost: the treatments ran on different numbers "
        .. "of accelerators, and the GPU count of %s is unknown") or ("Not known to be like for like on cost: the GPU "
        .. "count of %s is unknown")):format(table.concat(unknown, ", "))
      or "Not like for like on cost: the treatments ran on different numbers of accelerators"
    -- (nothing ranked to name: what the ranking says first, then the caveat)
    local first = m.cost.unranked and ((m.verdict:match("^(.-%.)%s") or m.verdict) .. " ") or ""
    local gpu = m.cost.best_per_gpu and ("per GPU, %s comes first%s, by the evidence (see below)"):format(
      m.cost.best_per_gpu, figs) or (#per >= 2 and "per GPU, none is shown first either (see below)") or nil
    -- (what would settle which comes first per GPU, as r1.settle below says it on totals)
    local settle = not m.cost.best_per_gpu and m.cost.settle_first and (" " .. m.cost.settle_first) or ""
    line = ("%s%s, so none is named best on totals%s.%s"):format(first, why, gpu and ("; " .. gpu) or " (see below)",
      settle)
    -- (the caveat, and the line without it, for a Verdict over workloads that share it:
    -- grouped_model says it once, before them)
    local rest = {}
    if first ~= "" then rest[#rest + 1] = first:sub(1, -2) end
    if gpu then rest[#rest + 1] = gpu:sub(1, 1):upper() .. gpu:sub(2) .. "." end
    if settle ~= "" then rest[#rest + 1] = settle:sub(2) end
    m.cost_line = { why = why, rest = table.concat(rest, " ") }
  elseif #ranked < 2 or not (r1 and r2) or r1.failed or r2.failed
    or (by_cap and ranked[1].capacity.kind == "below_lowest") then
    line = m.verdict:match("^(.-%.)%s") or m.verdict
  else
    local l1, l2 = ranked[1].label, ranked[2].label
    local ev = r1.evidence or {}
    local gap = r1.gap_text and (" (%s %s vs %s%s)"):format(l1, r1.gap_text, l2, r1.gap_ends or "") or ""
    -- (a lower bound beside a two-ended gap says its upper end, as compare.lua's Verdict does)
    local tops = r1.gap_tops or {}
    if r1.not_ahead then
      -- above the next, but not ahead of every other one (the ranking's shared rank 1)
      local figs, said, shared = {}, {}, {}
      for _, r in ipairs(m.ranking) do
        figs[r.label] = r.text
        if r.rank == 1 then shared[#shared + 1] = r.label end
      end
      for _, p in ipairs(r1.not_ahead) do
        said[#said + 1] = ("%s is not shown ahead of %s %s"):format(p.label, p.not_ahead_of, fig(figs[p.not_ahead_of]))
      end
      line = ("No treatment is shown to be best %s: %s %s is above %s %s, but %s (%s share rank 1)."):format(within,
        l1, fig(r1.text), l2, fig(r2.text), table.concat(said, "; "), table.concat(shared, ", "))
    elseif r1.proven then
      line = ("%s sustains %s %s: %s%s against %s%s for %s%s. Shown by repeats."):format(l1, more, within,
        fig(r1.text), tops.this or "", fig(r2.text), tops.next or "", l2, gap)
    elseif r1.order_certain then
      line = ("%s sustains %s %s: %s%s against %s%s for %s%s. Untested (%s), but the measured loads order them.")
        :format(l1, more, within, fig(r1.text), tops.this or "", fig(r2.text), tops.next or "", l2, gap,
          tostring(ev.basis or "no repeats"))
    else
      local why = {
        untested = "untested, and the measured loads do not order them",
        ["no clear difference"] = "no clear difference",
        ["not shown to differ"] = "not shown to differ",
        negligible = "a negligible difference",
        ["not comparable"] = "not comparable",
      }
      -- ("not comparable" where the evidence leaves room for either order says so plainly:
      -- untested, either may be higher, capa38)
      line = ("No treatment is shown to be best %s: %s %s, %s %s: %s."):format(within, l1, fig(r1.text), l2,
        fig(r2.text), r1.both_never_rps and r1.vs_next == "not comparable" and ("cannot say: both met the SLO at every "
          .. "load measured, up to %s; measure higher loads"):format(
            require("llmd.report").rate_text(r1.both_never_rps))
          or r1.either and ("untested, and either may be higher" .. (r1.either_why and (": " .. r1.either_why)
          or "")) or why[r1.vs_next] or tostring(r1.vs_next))
      -- (what would settle it, where the ranking's text knows: compare.lua's Verdict's words)
      if r1.settle then line = line .. " " .. r1.settle end
    end
  end
  if #failed > 0 then
    local names = {}
    for _, x in ipairs(failed) do names[#names + 1] = x.label end
    local not_ranked = ("Not ranked (a run failed its health check): %s."):format(table.concat(names, ", "))
    line = line .. " " .. not_ranked
    if m.cost_line then
      m.cost_line.rest = m.cost_line.rest == "" and not_ranked or (m.cost_line.rest .. " " .. not_ranked)
    end
  end
  return line
end

-- The places whose figure their treatment's own files leave in doubt, as compare.lua's
-- Verdict says it (llmd.report.doubtful_figures: two files of one of its runs disagree on a
-- figure the ranking reads, its load points' throughput, counts or error rate, and by
-- capacity its SLO metrics, and nothing settles which is right; a disagreement the
-- per-request data settle puts nothing in doubt). Sets x.in_doubt on the treatment
-- ({keys, figures: their names, checks: the data checks' lines, text}), r.in_doubt on its
-- place in the ranking (said beside its rank), m.in_doubt (the lines under the ranking)
-- and a warning after m.verdict and m.verdict_line. slo: the SLOs the ranking reads (nil:
-- by max sustained throughput). A treatment whose run failed its health check has no
-- place to doubt.
local function mark_in_doubt(m, list, slo)
  local report = require "llmd.report"
  local by_label, by_x = {}, {}
  for _, t in ipairs(list) do by_label[t.label] = t end
  for _, x in ipairs(m.treatments) do
    local t = by_label[x.label]
    local keys, seen, checks = {}, {}, {}
    for _, run in ipairs(t and t.runs or {}) do
      local _, order, texts = report.doubtful_figures(run, slo)
      for _, k in ipairs(order) do
        if not seen[k] then
          seen[k] = true
          keys[#keys + 1] = k
        end
      end
      -- (a repeat's lines name its folder: the treatment has several)
      for _, c in ipairs(texts) do
        checks[#checks + 1] = #t.runs > 1 and ("%s: %s"):format(M.shown_dir(list.base, run.dir),
          M.shown_text(list.base, run.dir, c)) or c
      end
    end
    if #keys > 0 and x.status ~= "failed" then
      local figures = report.figure_names(keys)
      x.in_doubt = { keys = keys, figures = figures, checks = require("llmd.json").array(checks),
        text = ("%s's own files disagree on figures this ranking reads (%s), with nothing to settle which is right")
          :format(x.label, table.concat(figures, ", ")) }
    end
    by_x[x.label] = x
  end
  m.in_doubt = {}
  local said = {}
  for _, r in ipairs(m.ranking) do
    local x = by_x[r.label]
    if r.rank and x and x.in_doubt then
      r.in_doubt = x.in_doubt
      said[#said + 1] = ("%s's own files disagree on figures this ranking reads (%s)"):format(x.label,
        table.concat(x.in_doubt.figures, ", "))
      m.in_doubt[#m.in_doubt + 1] = { label = x.label, keys = x.in_doubt.keys, figures = x.in_doubt.figures,
        checks = x.in_doubt.checks }
    end
  end
  if #said > 0 then
    local warn = (" Warning: %s, with nothing to settle which is right, so %s in doubt (see the Ranking)."):format(
      table.concat(said, "; "), #said == 1 and "its place is" or "their places are")
    m.verdict = m.verdict .. warn
    if m.verdict_line then m.verdict_line = m.verdict_line .. warn end
  end
end

-- Throughput on one basis (fixb51; compare.lua's llmd.report.like_for_like, audit50 M4): where
-- some treatments' throughput is their answers' pace (per-request start and finish times) and
-- others' the drain-reduced rate (completed / (window - least latency), their files holding no
-- per-request start times), the paced ones are read on the drain-reduced basis, from their own
-- successes, window and least latency (run.rate_like, which llmd.loadpoints.points reads), so
-- that the ranking, the Pareto front and the charts set every treatment on the one basis all
-- their files support: for long requests the two readings of the same requests differ by about
-- the latencies' spread over the send span (12 % in audit50's case), more than many a
-- difference between servers. Of several drain-reduced treatments' bases, the loosest (a
-- percentile bound over the exact minimum, the higher percentile), as llmd.loadpoints.like_basis
-- takes it among one run's points. Set on every treatment of list (nil where not). Returns the
-- sentence that says so, nil where nothing changed.
function M.like_for_like(list)
  local live, pts = {}, {}
  for _, t in ipairs(list) do
    if t.run and not t.load_error then
      t.run.rate_like = nil
      live[#live + 1] = t
    end
  end
  for i, t in ipairs(live) do pts[i] = lp.points(t.run) end
  local basis, paced, drained, is_paced, is_drained = nil, {}, {}, {}, {}
  for i = 1, #live do
    for j = 1, #live do
      local b = i ~= j and (lp.like_basis(pts[i], pts[j])) or nil
      if b then
        if not is_paced[i] then is_paced[i], paced[#paced + 1] = true, i end
        if not is_drained[j] then is_drained[j], drained[#drained + 1] = true, j end
        if not basis or b.kind == "percentile" and (basis.kind ~= "percentile" or (b.q or 0) > (basis.q or 0)) then
          basis = b
        end
      end
    end
  end
  if not basis then return nil end
  local drain_labels = {}
  for _, j in ipairs(drained) do drain_labels[#drain_labels + 1] = live[j].label end
  local others = table.concat(drain_labels, ", ")
  local read, kept, example = {}, {}, nil
  for _, i in ipairs(paced) do
    local t = live[i]
    t.run.rate_like = { kind = basis.kind, q = basis.q, label = basis.label, other = others }
    local at
    for _, p in ipairs(lp.points(t.run)) do if p.rate_like then at = p end end
    if at then
      read[#read + 1] = t.label
      example = example or { label = t.label, p = at }
    else
      -- (paced stages without their least latency: left on their own basis, said)
      t.run.rate_like = nil
      kept[#kept + 1] = t.label
    end
  end
  local words = others .. "'s files hold"
  local least = basis.kind == "percentile"
    and ("e2e %s as %s's files give theirs, the lower bound"):format(basis.label or ("p%g"):format(basis.q), others)
    or ("least latency, as %s's files give theirs"):format(others)
  local parts = {}
  if #read > 0 then
    local e = example
    parts[#parts + 1] = ("%s's throughput figures (max sustained, capacity, ranking, Pareto front, charts) are read on "
      .. "%s's basis, the drain-reduced rate, completed / (window - least latency), from %s own successes, window "
      .. "and %s: %s no per-request start times, so the pace of the answers (from per-request times) would compare "
      .. "two readings, not two servers (%s at %g req/s offered: its pace %.4g req/s, on this basis %.4g); whether "
      .. "a load kept up is still judged by the pace"):format(table.concat(read, ", "), others,
      #read == 1 and "its" or "their", (#read == 1 and "its own " or "their own ") .. least, words, e.label,
      e.p.offered, e.p.rate_like.pace_rps, e.p.rate_like.rps)
  end
  if #kept > 0 then
    parts[#parts + 1] = ("%s's throughput is its answers' pace and %s's the drain-reduced rate, and %s's paced "
      .. "stages keep no least latency to read it on that basis: the two differ by how they are read, by about the "
      .. "spread of the latencies over the send span (for long requests often 10 %% or more): read no throughput "
      .. "order between them smaller than that"):format(
      table.concat(kept, ", "), others, table.concat(kept, ", "))
  end
  return table.concat(parts, ". ")
end

-- opts.slo: llmd.decision.parse_slo's list. Returns the model the templates render.
-- Whether the measured loads put z above x, a treatment saturated already at its lowest load
-- (no max sustained throughput: it sustains less than that load and at most its ceiling, the
-- most it achieved at any load): z's figure above that ceiling by the practical threshold
-- (decision.sustained_order, as compare.lua reads k10 against k20), on one workload; untested.
-- The spans (sp.lb: z's figure) or nil, then, where the token lengths of their requests hold
-- such an order (token_reason), why z is not put above x ("the measured loads put z above x
-- (...), but the requests differ ..."). The ranking's order and the Pareto front's alike.
local function above_saturated_lowest(x, z)
  if not decision.saturated_lowest(x.saturation) then return nil end
  if #decision.token_difference_texts(x.requests_set, z.requests_set) > 0 then return nil end
  local order, sp = decision.sustained_order(x.saturation, 1, z.saturation, 1, decision.MIN_EFFECT, nil, tgap(x, z))
  if order == "b" then return sp end
  return nil, token_reason(sp, x.label, z.label, function(v) return metrics.rate_text(v) end)
end

function M.model(list, opts)
  opts = opts or {}
  if not opts.one_workload then
    local groups = M.workload_groups(list)
    groups.source = list.workload_source
    -- (each workload's ranking knows which of its treatments hold the same results)
    for _, g in ipairs(groups) do g.list.identical_pairs = g.list.identical_pairs or list.identical_pairs end
    if #groups > 1 then return grouped_model(groups, opts) end
  end
  local slo = opts.slo or {}
  -- (slo_text: what the capacity is read within, the default failure limit too where no
  -- error-rate SLO is given, as compare.lua's: decision.capacity_phrase)
  local m = { slo = slo, slo_text = #slo > 0 and decision.capacity_phrase(slo) or nil, treatments = {}, notes = {} }
  -- (every treatment's throughput on one basis before any figure is drawn from it: fixb51)
  m.rate_like = M.like_for_like(list)
  -- "the SLO" with one, "the SLOs" with several (the default failure limit counted)
  local words = decision.slo_words(lp.capacity_slo(slo))
  for _, t in ipairs(list) do
    if t.load_error then error(t.load_error .. " (the comparison needs every treatment's results)", 0) end
    local pts = lp.points(t.run)
    local sat = lp.saturation(pts, { slo = slo })
    -- its accelerator count: given (--gpus), else the one compare.lua recorded for the run
    -- (run_state.json, M.load), else the results' (a benchmark report's stack), else, in an
    -- experiment, the values its setup was deployed with (M.setup_gpus)
    local results_gpus = t.run.gpus and t.run.gpus > 0 and t.run.gpus or nil
    local gpus = tonumber(t.gpus) or t.recorded_gpus or results_gpus or t.values_gpus
    local x = { label = t.label, status = t.status, reasons = t.reasons, partial = t.partial, harness = t.run.harness,
      gpus = gpus, gpus_source = t.gpus and "given" or t.recorded_gpus and ("recorded in " .. t.recorded_gpus_file)
        or results_gpus and (t.run.gpus_source or "the results")
        or gpus and "the setup's values (plan/values-override.yaml)" or nil,
      hardware = t.hardware,
      folders = #t.dirs, points = pts, n_points = #pts, saturation = sat,
      -- an error-rate SLO its repeats disagree on beyond chance: it orders no capacity
      error_dispersion = decision.error_slo_dispersion(t.run, pts, slo) }
    local reps = 0
    for _, p in ipairs(pts) do reps = math.max(reps, p.repeats) end
    x.repeats = reps
    -- a treatment whose load points sent different requests: N/A with why, as compare.lua
    local mixed = decision.mixed_sustained_reason(t.run, t.label, true)
    x.max_rps = not mixed and finite(sat.max_sustained_rps) and sat.max_sustained_rps or nil
    if mixed then
      x.max_rps_why = mixed
    elseif not x.max_rps and lp.failed_lowest_text(sat) then
      -- more failed than the error-rate limit at the lowest load, in compare.lua's words
      -- (one crashed repeat among clean ones: each repeat's share, not the mean alone)
      x.max_rps_why = lp.failed_lowest_text(sat)
    elseif not x.max_rps and not sat.unknown and sat.point == 1 then
      x.max_rps_why = "saturated already at the lowest load point"
    elseif not x.max_rps then
      x.max_rps_why = sat.reason
    end
    if x.max_rps then
      x.max_point = point_at(pts, x.max_rps)
      x.max_output_tps = x.max_point and x.max_point.output_tps
    end
    -- its capacity at the limits slo_ (at the SLOs given; again at limits a token gap moves, for
    -- decision.capacity_token_check: M.recompute_capacity)
    local function capacity_at(slo_)
      local mixed_capacity = #slo_ > 0 and decision.mixed_requests_reason(t.run, t.label, true)
      local cap = mixed_capacity and { kind = "unknown", reason = mixed_capacity } or lp.capacity(pts, slo_, sat)
      -- the range the repeats allow the capacity (every load point repeated), as compare.lua
      -- reads it: the decision layer's capacity evidence compares these ranges
      if #slo_ > 0 then
        local iv, why = lp.capacity_interval(pts, slo_, cap)
        if iv then
          cap.interval = { lo = iv.lo, hi = iv.hi, top = iv.top, upper_ends = lp.interval_end(iv.low),
            lower_ends = lp.interval_end(iv.high), sign = iv.sign,
            -- each load's side of the SLOs on both ends: every load whose repeats leave a
            -- same-load order open, as compare.lua names them (decision.same_load_pass_fail)
            ends = iv.ends }
        else
          cap.interval_why = why
          -- one measured percentile per load: its uncertainty, as compare.lua weighs it
          local nz = lp.capacity_noise(pts, slo_, cap)
          if nz and nz.unknown then
            cap.noise_unknown = nz.unknown
            -- (what no small latency difference can move: decision.capacity_evidence's band rule)
            cap.noise_band = nz.band
          elseif nz then
            -- (with the span its intervals known to run narrow near capacity would leave: the cell's
            -- caveat, as compare.lua's)
            cap.noise = require("llmd.report").noise_of(nz, lp.capacity_noise(pts, slo_, cap,
              { open_narrow = true }))
          end
        end
        -- the loads its evidence leaves unclear, and what would settle each, as compare.lua
        -- keeps them (llmd.report capacity_settle's advice reads them)
        cap.settle = require("llmd.report").settle_of(lp.unclear_loads(pts, slo_,
          cap.noise and cap.noise.unclear, sat))
      end
      -- the figure's and the ceiling's rate noise where its span starts, as compare.lua reads them
      -- (lp.capacity_rate_noise: at the span's start, a repeats' range or noise below the figure)
      cap.rate_noise = lp.capacity_rate_noise(pts, cap)
      return cap
    end
    x.capacity = capacity_at(slo)
    recompute_capacity[x] = capacity_at
    local lo, hi
    for _, p in ipairs(pts) do
      if p.achieved_rps then
        lo = math.min(lo or p.achieved_rps, p.achieved_rps)
        hi = math.max(hi or p.achieved_rps, p.achieved_rps)
      end
    end
    x.min_achieved, x.max_achieved = lo, hi
    -- the requests it sent (token lengths per request, over all its folders), for the
    -- workload check of the capacity evidence
    x.requests_set = requests_set(t)
    m.treatments[#m.treatments + 1] = x
  end
  local T = m.treatments

  -- the common load (llmd.loadpoints.common_load, the rule compare.lua's matched load
  -- follows): the highest load every treatment sustained (each one's max sustained
  -- throughput, before its saturation as llmd.loadpoints.saturation finds it, the ladder's
  -- "Saturated" in compare.lua), so that no latency compared there is an overloaded
  -- server's; where there is none (a treatment saturated already at its lowest load, or a
  -- max sustained unknown), the highest achieved rate inside every treatment's measured
  -- range, with each treatment saturated there marked
  -- (and before a load it answered short with its failures in bursts, a queue timing requests
  -- out: decision.point_unsustained, the tests' rule; list[i] is T[i]'s, one each, in order)
  local runs = {}
  for i, x in ipairs(T) do
    runs[i] = { points = x.points, saturation = x.saturation,
      unsustained = function(p) return decision.point_unsustained(x.saturation, p, list[i].run, #x.points) end }
  end
  -- (a load point that failed requests, beyond the error-rate SLO or else 5 %, is no load
  -- sustained: llmd.loadpoints.failing)
  local cl, none = lp.common_load(runs, { slo = slo })
  if cl then
    -- on the runs' load axis (the offered concurrency or rate when every treatment was driven
    -- by it: past saturation the achieved rate is flat and would pair different overloads);
    -- common_rps only on the achieved axis
    m.common_rps, m.common_sustained, m.common_load, m.common_axis = cl.rps, cl.sustained, cl.load, cl.axis
    m.common_text = cl.axis == "achieved" and (metrics.rate_text(cl.rps) .. " achieved")
      or lp.load_text(cl.axis, cl.load)
  elseif none.ranges then
    -- no load lies in every treatment's measured range; say each range, and which
    -- treatments did share a load (within 1 %, as repeats are one load point), so that
    -- "do not overlap" is not read as "no two overlap"
    local ranges, groups, seen = {}, {}, {}
    for i, x in ipairs(T) do
      ranges[#ranges + 1] = ("%s %s"):format(x.label, lp.range_text(none.ranges[i].lo, none.ranges[i].hi, none.axis))
      if not seen[i] then
        local g = { x.label }
        for j = i + 1, #T do
          local y = T[j]
          -- on the common axis (the ranges': offered, or achieved)
          local rx, ry = none.ranges[i], none.ranges[j]
          local lo, hi = math.max(rx.lo, ry.lo), math.min(rx.hi, ry.hi)
          if not seen[j] and (lo <= hi or lp.close(lo, hi)) then g[#g + 1] = y.label; seen[j] = true end
        end
        if #g > 1 then groups[#groups + 1] = table.concat(g, ", ") end
      end
    end
    m.common_why = ("no load lies within every treatment's measured range (%s)"):format(table.concat(ranges, "; "))
    if #groups > 0 then
      m.common_why = m.common_why .. ("; only some share a load: %s (compare those with compare.lua)")
        :format(table.concat(groups, "; "))
    end
  else
    m.common_why = "an achieved rate is unknown"
  end
  m.saturated_at_common = {}
  for _, x in ipairs(T) do
    -- past the last sustained load point: what the server pushed through an overload
    local p = m.common_load and point_at(x.points, m.common_load, m.common_axis)
    if m.common_load and (p and lp.point_saturated(x.saturation, p)
      or not p and lp.saturated_on(x.saturation, x.points, m.common_axis, m.common_load)) then
      x.saturated_at_common = true
      m.saturated_at_common[#m.saturated_at_common + 1] = {
        label = x.label, reason = x.max_rps and ("it sustains at most %s; %s"):format(
          metrics.rate_text(x.max_rps), x.saturation.reason) or x.max_rps_why }
    end
  end
  -- at or next to a load point that failed requests (llmd.loadpoints.failing): its latencies
  -- there are of the requests that succeeded only, never a sustained load's
  m.failing_at_common = {}
  for _, x in ipairs(T) do
    if m.common_load then
      local _, interp, p, q = lp.at(x.points, m.common_load, "achieved_rps", m.common_axis)
      local why
      for _, y in ipairs { p, interp and q or nil } do
        local f = type(y) == "table" and lp.failing(y, { slo = slo })
        if f and not why then
          why = ("at load point %d (%s)%s %s"):format(y.index, lp.load_text(m.common_axis, lp.load_of(y,
            m.common_axis)), interp and ", one of the two its figures there are interpolated between," or "", f)
        end
      end
      if why then
        x.failing_at_common = true
        m.failing_at_common[#m.failing_at_common + 1] = { label = x.label, reason = why }
      end
    end
  end
  -- answered only just enough of its sends at the common load for the 95 % rule to count it
  -- as kept up (llmd.loadpoints.saturation), in the lower half of what that rule allows: a
  -- server at the edge of its limit, whose latencies there may already be a queue's (TTFT
  -- far above its lower loads'). Marked, with the share, never left to read as any other
  -- sustained load (the rule itself unchanged): {label, share (%), reason}
  m.mild_at_common = {}
  for _, x in ipairs(T) do
    if m.common_load and not x.saturated_at_common then
      local _, interp, p, q = lp.at(x.points, m.common_load, "achieved_rps", m.common_axis)
      -- (the one rule of llmd.loadpoints.mild_overload, which marks a max sustained point
      -- too: only where the files bound the share below that, as a drain-reduced rate from
      -- completed / window alone is a lower bound with no upper end, and marks nothing)
      local worst, wp, most
      for _, y in ipairs { p, interp and q or nil } do
        local sh, hi
        if type(y) == "table" then sh, hi = lp.mild_overload(y) end
        if sh and not (worst and worst <= sh) then worst, wp, most = sh, y, hi end
      end
      if worst then
        local pct = lp.share_text(worst, most)
        x.mild_at_common = ("mildly overloaded: answered %s %% of sends"):format(pct)
        m.mild_at_common[#m.mild_at_common + 1] = { label = x.label, share_text = pct,
          share_pct = tonumber(("%.1f"):format(worst * 100)),
          reason = ("at load point %d (%s)%s it answered %s %% of the requests it was sent: the %d %% rule counts "
            .. "that as kept up, but below %g %% a server is at the edge of its limit, and its latencies there may "
            .. "already be a queue's"):format(wp.index, lp.load_text(m.common_axis, lp.load_of(wp, m.common_axis)),
            interp and ", one of the two its figures there are interpolated between," or "", pct,
            lp.SATURATION_SHARE * 100, lp.MILD_OVERLOAD_SHARE * 100) }
      end
    end
  end
  -- treatments whose requests differ in length: their latencies at one load do not compare
  -- configurations (a request 39 times longer takes longer on any server)
  m.common_unlike = {}
  for i = 1, #T do
    for j = i + 1, #T do
      local d = decision.token_difference_texts(T[i].requests_set, T[j].requests_set)
      if #d > 0 then
        m.common_unlike[#m.common_unlike + 1] = ("%s vs %s: %s"):format(T[i].label, T[j].label, table.concat(d, "; "))
      end
    end
  end
  -- the percentiles compared (every treatment's p90, else the one they share: M.latency_choice;
  -- an experiment's workloads are given one choice over all of them, so that one table's
  -- columns hold one percentile each)
  m.latency_choice = opts.latency_choice or M.latency_choice(T)
  m.latency_keys = latency_keys(m.latency_choice)
  for _, x in ipairs(T) do
    x.at_common = {}
    for _, key in ipairs(m.latency_keys) do
      local e = { key = key, label = metrics.get(key).label }
      if m.common_load then
        local v, interp, p1, p2 = lp.at(x.points, m.common_load, key, m.common_axis)
        -- where nil, lp.at's second value is why (a rate achieved at more than one load)
        local why = v == nil and type(interp) == "string" and interp or nil
        -- (a percentile the others have and this one has at none of its load points)
        local unshared = v == nil and unshared_why(m.latency_choice, key, x.label) or nil
        e.unshared = unshared
        if v == nil then interp = nil end
        e.value, e.interpolated = v, interp
        if v and interp then
          -- the two measured load points it lies between, and their own values: all the
          -- measurements say of it (the Pareto front compares no more than these)
          local vl, vh = lp.field(p1, key), lp.field(p2, key)
          e.between = { lo = math.min(vl, vh), hi = math.max(vl, vh), lo_load = lp.load_of(p1, m.common_axis),
            hi_load = lp.load_of(p2, m.common_axis), lo_point = p1.index, hi_point = p2.index }
        end
        local p = point_at(x.points, m.common_load, m.common_axis)
        if p and p.ci and p.ci[key] and not interp then e.ci = p.ci[key] end
        e.text = v and metrics.format(key, v, nil, { limit = lp.slo_limit(m.slo, key) })
          or metrics.na(unshared or p and not interp and p.na[key] or why
            or "not measured at this load, nor on both sides of it")
        if e.ci and e.ci.identical then
          -- an interval of width 0 from identical repeats would read as certainty
          e.text = e.text .. (" (repeats identical, no spread to estimate; n = %d)"):format(e.ci.n)
        elseif e.ci then
          -- a t-interval reaching below 0 is clipped there (llmd.stattest.mean_ci), and says so
          e.text = e.text .. (" (95 %% CI %s - %s, n=%d%s)"):format(fmt(key, e.ci.lo), fmt(key, e.ci.hi), e.ci.n,
            e.ci.clipped and ("; lower end clipped at 0 from the t-interval's %s: too wide to bound it below"):format(
              fmt(key, e.ci.t_lo)) or "")
        end
        if v and interp then e.text = e.text .. " (interpolated)" end
        -- a point within 1 % of the common load stands for it (llmd.loadpoints.at): said with
        -- its own load on the common axis (its achieved rate, or the rate or concurrency it
        -- was offered), so that the cell does not read as measured at the common load itself
        local own = p and lp.load_of(p, m.common_axis)
        if v and not interp and own and own ~= m.common_load then
          if m.common_axis == "achieved" then e.measured_rps = own else e.measured_load = own end
          e.text = e.text .. (" (measured at %s, within 1 %%)"):format(m.common_axis == "achieved"
            and metrics.rate_text(own) or lp.load_text(m.common_axis, own))
        end
      else
        e.text = metrics.na(m.common_why)
      end
      x.at_common[#x.at_common + 1] = e
      x.at_common[key] = e
    end
  end

  -- ranking: by capacity at the SLOs when given, else by max sustained throughput
  local by_cap = #slo > 0
  m.rank_by = by_cap and "capacity at SLO" or "max sustained throughput"
  local ranked, unranked, failed = {}, {}, {}
  for i, x in ipairs(T) do
    -- (the order the treatments were given in: --run as written, --results' folders, an
    -- experiment's treatments; what lists equal figures, M.rank_before)
    x.given_order = i
    -- an unknown capacity is unranked: never ranked by max sustained throughput instead
    local v = x.max_rps
    if by_cap then v = x.capacity.kind == "below_lowest" and 0 or x.capacity.rps end
    -- a treatment whose health check failed (a harness traceback, a run cut short) is
    -- listed apart, with its reason: never ranked, never compared, never on the Pareto front
    -- (as compare.lua names no winner with a broken run: its figures say nothing of its
    -- configuration, and a crashed run's higher figures would rank it first)
    if x.status == "failed" then v = nil end
    x.rank_value = v
    if x.status == "failed" then failed[#failed + 1] = x
    elseif v then ranked[#ranked + 1] = x else unranked[#unranked + 1] = x end
  end
  local function failed_why(x)
    return ("its run failed its health check (%s)"):format(table.concat(x.reasons or {}, "; "))
  end
  table.sort(ranked, M.rank_before)
  m.ranking = {}
  -- evidence that each place is above the next: Welch on the repeats of both, where both
  -- were repeated. The tests of the ranking are one family (README: "How a comparison
  -- decides"): Holm-adjusted together, so that no place is called shown by chance among many.
  -- a figure that is only a lower bound (never saturated; a capacity never violated or met
  -- at the last load before saturation) can be below the other's in truth: nothing is
  -- shown against it, and it is not tested (the achieved rates of two unsaturated runs
  -- differ by the load they were offered, not by what they can sustain)
  local function lower_bound(x)
    if by_cap then return x.capacity.bound == "lower" end
    return x.saturation.none == true
  end
  local function figure(x)
    if by_cap then return capacity_brief(x.capacity) end
    return sustained_brief(x.max_rps, x.saturation)
  end
  -- by capacity: the decision layer's evidence between two capacities, as compare.lua
  -- reads it for two runs (a = the next, b = this place), so that both tools say the same
  -- of the same two runs
  -- (opts with the token rule's, token_opts: an order their token lengths explain names no place)
  local function with_token(x, nxt, o, per)
    for k, v in pairs(token_opts(x, nxt, slo, per) or {}) do o[k] = v end
    return o
  end
  local function capacity_ev(x, nxt)
    -- a treatment whose health check failed is never ordered (as compare.lua): the
    -- evidence checks the two runs itself
    return decision.capacity_evidence(nxt.capacity, x.capacity, decision.MIN_EFFECT,
      -- the texts give this place's figure first, as the sentence names it first ("x: not
      -- comparable with nxt (...): mean <x's> vs <nxt's>")
      with_token(x, nxt, { workload_differs = decision.token_difference_texts(x.requests_set, nxt.requests_set),
        runs = { nxt, x }, error_dispersion = { a = nxt.error_dispersion, b = x.error_dispersion } }))
  end
  -- where the evidence puts the next place above this one ("A higher": ranges from repeats
  -- that meet at the same load, the next one meeting the SLOs there on the upper ends of its
  -- intervals where this one failed them on the lower ends, although this one's figure is
  -- the higher), the evidence decides the order: the two swap places, as often as needed
  -- (at most one pass per treatment)
  if by_cap then
    for _ = 1, #ranked do
      local swapped = false
      for i = 1, #ranked - 1 do
        local ev = capacity_ev(ranked[i], ranked[i + 1])
        -- (also where the loads order them by less than the practical threshold: listed in
        -- the loads' order, "about the same" or "at least as high", never above by the figures alone)
        if ev.verdict == "A higher" or ((ev.below_threshold or ev.least_below_threshold) and ev.margin_higher == "a")
          then
          ranked[i], ranked[i + 1] = ranked[i + 1], ranked[i]
          swapped = true
        end
      end
      if not swapped then break end
    end
  end
  -- Why two capacities name no higher one, by treatment (compare.lua's rule, llmd.report's
  -- no_test_text): "one run per load", "one run per load for vllm", "for b, 3 of 7 load
  -- points with one run only"; nil where both have a range from repeats.
  local function untested_why(x, nxt)
    local one = "one run per load"
    local wx, wn = x.capacity.interval_why, nxt.capacity.interval_why
    if (wx == nil or wx == one) and (wn == nil or wn == one) then
      if wx and wn then return one end
      if wx or wn then return ("%s for %s"):format(one, wx and x.label or nxt.label) end
      return nil
    end
    local parts = {}
    if wx then parts[#parts + 1] = ("for %s, %s"):format(x.label, wx) end
    if wn then parts[#parts + 1] = ("for %s, %s"):format(nxt.label, wn) end
    return table.concat(parts, "; ")
  end
  -- (each ranking place's near-capacity caveat, by place, where its order rests on one; and
  -- the sentence of a crash its order stands despite, llmd.report.crash_in_higher_text)
  local narrow_said, crash_said = {}, {}
  local function capacity_place(r, x, nxt)
    local ev = capacity_ev(x, nxt)
    -- an order resting only on one-run intervals known to run narrow near capacity: said, as
    -- compare.lua's Verdict says it (llmd.report narrow_check; task fixf40)
    local rep = require "llmd.report"
    rep.narrow_check(ev, nxt.capacity, x.capacity, decision.MIN_EFFECT,
      { workload_differs = decision.token_difference_texts(x.requests_set, nxt.requests_set), runs = { nxt, x },
        error_dispersion = { a = nxt.error_dispersion, b = x.error_dispersion } })
    -- the evidence's sides by the treatments' labels (its a is the next place, its b this
    -- one): "higher: chunked", never decision's internal "B higher"; winner, higher and
    -- within_range are labels too, and *_place says the side for scripts ("this" | "next")
    local label = { a = nxt.label, b = x.label }
    local place = { a = "next", b = "this" }
    local verdict = ev.verdict
    if verdict == "A higher" or verdict == "B higher" then
      verdict = "higher: " .. label[verdict == "A higher" and "a" or "b"]
    end
    -- (basis: "repeats", or why there is no range, naming the treatment without one)
    r.evidence = { verdict = verdict, basis = ev.basis ~= "repeats" and untested_why(x, nxt) or ev.basis,
      winner = label[ev.winner], winner_place = place[ev.winner],
      higher = label[ev.higher], higher_place = place[ev.higher],
      -- (the larger figure where the order is open: no winner, never named higher)
      measured_higher = label[ev.measured_higher], measured_higher_place = place[ev.measured_higher],
      beyond_ceiling = ev.beyond_ceiling, ceiling_rps = ev.ceiling_rps, order_open = ev.order_open,
      sustained_rps = ev.sustained_rps, differences = ev.differences, within_range = label[ev.within_range],
      within_range_place = place[ev.within_range],
      ordered = ev.ordered, failed_rps = ev.failed_rps, passed_rps = ev.passed_rps, broken = ev.broken,
      same_load = ev.same_load, gap = nil, interval_coverage = ev.interval_coverage }
    if ev.narrow_loads then
      local loads = {}
      for i, l in ipairs(ev.narrow_loads) do
        loads[i] = { treatment = label[l.run], place = place[l.run], point = l.point, offered = l.offered,
          load_type = l.load_type, achieved_rps = l.achieved_rps }
      end
      r.evidence.narrow_loads = require("llmd.json").array(loads)
    end
    -- a pass and a fail by the means at one offered load left open (decision.same_load_pass_fail):
    -- which treatment's repeats at which loads leave it open, by label and place, as
    -- comparison.json's evidence.open_same_load says it by run
    local sl = ev.open_same_load
    if sl then
      local open = {}
      for i, e in ipairs(sl.open or {}) do
        open[i] = { treatment = label[e.run], place = place[e.run], offered = e.offered, room = e.room }
      end
      r.evidence.open_same_load = { offered = sl.offered, load_type = sl.load_type, passed = label[sl.passed],
        passed_place = place[sl.passed], open = require("llmd.json").array(open) }
    end
    -- the range of this one's capacity minus the next's; an end without a limit is left out
    local g = decision.capacity_gap(nxt.capacity, x.capacity)
    if g then
      local plain = {}
      for k, v in pairs(g) do if finite(v) then plain[k] = v end end
      r.evidence.gap = plain
    end
    local nf = figure(nxt)
    local ceiling = ev.beyond_ceiling and ("%s's figure is a lower bound, but %s achieved at most %s at any load "
      .. "measured, below %s's %s"):format(nxt.label, nxt.label, metrics.rate_text(ev.ceiling_rps),
      x.label, figure(x)) or nil
    -- the gap as compare.lua states it: the range both capacities' spans allow (each one's
    -- measured bracket or its repeats' range, within its ceiling), this over the next
    -- ("at least +37.8 %" where the upper end is unbounded or beyond decision.GAP_PCT_MAX)
    local gap = decision.gap_pct_text(g, gap_pct)
    r.gap_text = gap
    -- (the Verdict's: the figures each end is between, and a lower bound's upper end)
    r.gap_ends = change_ends(g, gap, nxt.capacity, x.capacity, nxt.label, x.label)
    r.gap_tops = { this = bound_top(x.capacity, gap), next = bound_top(nxt.capacity, gap) }
    -- with its direction, as compare.lua says it: "chunked +22.8 % to +83.7 % vs vllm"
    local gap_vs = gap and ("%s %s vs %s"):format(x.label, gap, nxt.label)
    if r.evidence.gap then
      r.evidence.gap.pct_text = gap
      -- (the four figures its two ends are between, as the Verdict names them)
      r.evidence.gap.ends = gap_ends_record(g, gap, nxt.capacity, x.capacity)
    end
    if ev.verdict == "B higher" and ev.same_load then
      -- ranges that meet at one load, where the repeats' intervals lie on opposite sides of the SLOs
      r.vs_next, r.proven = "B better", true
      r.vs_next_text = ("above %s (%s): at the same load (%s), this one met %s at %s and %s already failed %s at %s, "
        .. "on the 95 %% intervals of both treatments' repeats"):format(nxt.label, nf,
        ev.same_load.load_type == "concurrency" and ("concurrency %g"):format(ev.same_load.offered)
        or ("%g req/s offered"):format(ev.same_load.offered), words.the,
        metrics.rate_text(ev.passed_rps), nxt.label, words.it,
        metrics.rate_text(ev.failed_rps))
      if x.rank_value < nxt.rank_value then
        -- placed above a higher figure by that evidence: said, so that the order is not
        -- read as the figures'
        r.above_higher_figure = true
        r.vs_next_text = r.vs_next_text .. (", so it ranks above %s, although %s's figure is the higher: this one's, "
          .. "%s, %s"):format(nxt.label, nxt.label, figure(x), decision.capacity_is_bound(x.capacity)
          and "is only a lower bound" or "is an estimate between two measured loads")
      end
    elseif ev.verdict == "B higher" then
      r.vs_next, r.proven = "B better", true
      r.vs_next_text = ("above %s (%s): the capacities' ranges (%s) do not overlap"):format(
        nxt.label, nf, decision.range_what(x.capacity, nxt.capacity)) .. (ceiling and ("; " .. ceiling) or "")
    elseif ev.token_explained then
      -- an order the two treatments' token lengths can explain (decision.capacity_token_check,
      -- fixb52): no order named, said with the token figures, as compare.lua says it
      local te = ev.token_explained
      local hi, lo = te.higher == "b" and "this one" or nxt.label, te.higher == "b" and nxt.label or "this one"
      r.vs_next, r.proven, r.token_explained = "not shown to differ", false, te
      r.vs_next_text = ("not shown to differ from %s (%s): the measured loads put %s above %s, %s"):format(nxt.label,
        nf, hi, lo, decision.token_order_text(te, hi, lo, decision.MIN_EFFECT,
          function(k, v) return metrics.format(k, v) end))
      r.evidence.token_explained = te
    elseif ev.token_same then
      -- figures within the threshold that are not about the same held to the two treatments'
      -- tokens (decision.capacity_token_same, fixh53): either may be higher, as compare.lua says it
      local ts = ev.token_same
      local fav, other = ts.favoured == "b" and "this one" or nxt.label, ts.favoured == "b" and nxt.label or "this one"
      r.vs_next, r.proven, r.either = "not shown to differ", false, true
      r.vs_next_text = ("not shown to differ from %s (%s): %s"):format(nxt.label, nf, decision.token_same_text(ts, fav,
        other, decision.MIN_EFFECT, function(k, v) return metrics.format(k, v) end))
      r.evidence.token_same = ts
    elseif ev.steps_cannot_order then
      -- both cross the SLOs between loads that overlap: the steps cannot order them, and
      -- "no clear difference" would read as sameness (the README's rule)
      local la, ha = decision.means_span(nxt.capacity)
      local lb, hb = decision.means_span(x.capacity)
      r.vs_next, r.proven, r.steps_cannot_order = "not shown to differ", false, true
      if ev.open_same_load then
        -- (one offered load, a pass and a fail by the means within the repeats' noise: no steps
        -- to blame; repeats there would settle it, as compare.lua says)
        r.vs_next_text = ("not shown to differ from %s (%s): %s"):format(nxt.label, nf,
          require("llmd.report").same_load_open_text(nxt.label, x.label, ev.open_same_load))
      else
        r.vs_next_text = ("not shown to differ from %s (%s): the measured loads place this one's %s between %s and "
          .. "%s and %s's between %s and %s, so the load steps cannot order them, whatever the repeats"):format(
          nxt.label, nf, m.rank_by, metrics.rate_text(lb), metrics.rate_text(hb),
          nxt.label, metrics.rate_text(la), metrics.rate_text(ha))
      end
      r.evidence.steps_cannot_order = true
    elseif ev.overdispersed then
      -- an error-rate SLO whose repeats disagree beyond chance (one repeat's failures) orders nothing
      local parts = {}
      for _, y in ipairs { { nxt, ev.overdispersed.a }, { x, ev.overdispersed.b } } do
        if y[2] then
          parts[#parts + 1] = ("%s's repeats at load point %d disagree on the error-rate SLO beyond chance (%s)")
            :format(y[1].label, y[2].point, y[2].text)
        end
      end
      r.vs_next, r.proven, r.overdispersed = "not shown to differ", false, true
      -- (what the files say that repeat's failures were, as compare.lua's Verdict says it: "a
      -- crash in one" only for errors, llmd.report.dispersion_cause_text)
      r.vs_next_text = ("not shown to differ from %s (%s): %s, so whether it holds varies between repeats (%s), not "
        .. "with the configuration"):format(nxt.label, nf, table.concat(parts, "; "),
        require("llmd.report").dispersion_cause_text(ev.overdispersed))
    elseif ev.below_threshold then
      -- the measured loads order them, but by less than the practical threshold at both ends
      -- of the gap: no order named, and no practical difference either: about the same, the
      -- code of that meaning ("negligible", as two figures within the threshold whose spans
      -- keep it within; it read "not shown to differ", the open case's, fixb53)
      r.vs_next, r.proven, r.below_threshold = "negligible", false, true
      -- in compare.lua's words for the same two runs (decision.below_threshold_reason: one
      -- wording, both ends of the gap)
      r.vs_next_text = ("about the same as %s (%s): %s"):format(nxt.label, nf,
        decision.below_threshold_reason(ev, { a = nxt.label, b = x.label, slo = lp.capacity_slo(slo),
          min_effect = decision.MIN_EFFECT,
          rate = function(v) return metrics.rate_text(v) end, pct = gap_pct }))
      r.evidence.below_threshold, r.evidence.margin_pct, r.evidence.margin_max_pct = true, ev.margin_pct,
        ev.margin_max_pct
    elseif ev.least_below_threshold then
      -- the loads put one above, but by a least gap below the practical threshold, the largest
      -- beyond it (or with no upper end): at least as much, no winner (decision.capacity_evidence's
      -- verdict is "not shown to differ" wherever it sets this since fixh46; decision.least_below_reason,
      -- compare.lua's words)
      r.vs_next, r.proven = "not shown to differ", false
      -- ("at least as high as", never "no clear difference", which reads as sameness beside a
      -- gap up to +200 %: audit51b D3)
      r.vs_next_text = ("at least as high as %s (%s), %s: %s"):format(nxt.label, nf, decision.AT_LEAST_NO_WINNER,
        decision.least_below_reason(ev, { a = nxt.label, b = x.label, slo = lp.capacity_slo(slo),
          min_effect = decision.MIN_EFFECT, repeats = x.capacity.interval ~= nil and nxt.capacity.interval ~= nil,
          rate = gap_rate, pct = gap_pct }))
      r.evidence.least_below_threshold, r.evidence.margin_pct, r.evidence.margin_max_pct = true, ev.margin_pct,
        ev.margin_max_pct
    elseif ev.open_range then
      -- overlapping ranges, one open-ended: room for any gap, so no sameness either
      r.vs_next, r.proven, r.open_range = "not shown to differ", false, true
      r.vs_next_text = ("not shown to differ from %s (%s): the capacities' ranges (%s) overlap, but one is open-ended "
        .. "(no upper end, or no lower one), so they leave room for any gap"):format(nxt.label, nf,
        decision.range_what(x.capacity, nxt.capacity))
      r.evidence.open_range = true
    elseif ev.verdict == "no clear difference" then
      -- with the gap the ranges allow, this one over the next, in the decision layer's words
      -- (compare.lua's): overlapping ranges say the repeats cannot order the two, not that
      -- they are alike (-17.8 % to +438.5 % is no sameness)
      -- (the treatments' requests differ in length within the tolerance: the gap held to their
      -- tokens beside the measured one, decision.capacity_token_gap, as compare.lua; token54)
      r.vs_next, r.proven = "no clear difference", false
      r.vs_next_text = ("%s; the ranges are %s, so neither an order nor sameness is shown"):format(
        no_clear_difference(g, ("%s vs %s"):format(x.label, nxt.label), ("%s (%s)"):format(nxt.label, nf),
          decision.token_held_gap_text(ev.token_held, gap_pct, nxt.label, x.label,
            function(k, v) return metrics.format(k, v) end)),
        decision.range_what(x.capacity, nxt.capacity))
      r.evidence.token_held = ev.token_held
    elseif ev.verdict == "not shown to differ" then
      -- figures within the threshold, but brackets that allow a wider gap, either way: no
      -- sameness, and the gap with its direction (this one against the next)
      r.vs_next, r.proven = "not shown to differ", false
      r.vs_next_text = ("not shown to differ from %s (%s; the figures are within %g %%, but the measured loads allow "
        .. "%s)"):format(nxt.label, nf, decision.MIN_EFFECT, gap_vs or "any gap")
    elseif ev.verdict == "about the same" then
      r.vs_next, r.proven = "negligible", false
      r.vs_next_text = ("about the same as %s (%s; within %g %%)"):format(nxt.label, nf, decision.MIN_EFFECT)
    elseif ev.verdict == "broken" then
      r.vs_next, r.proven = "not comparable", false
      r.vs_next_text = ("not compared with %s (%s): %s; a broken run's figures say nothing of its configuration")
        :format(nxt.label, nf, table.concat(ev.broken, "; "))
    elseif ev.verdict == "not comparable" then
      r.vs_next, r.proven = "not comparable", false
      r.vs_next_text = ("not comparable with %s (%s): the workloads differ (%s), and a treatment whose requests "
        .. "are longer sustains fewer of them"):format(nxt.label, nf, table.concat(ev.differences, "; "))
    elseif ev.verdict == "untested" and ev.within_noise and ev.noise then
      -- spans apart (ranges from repeats, or measured brackets) by less than the noise of the
      -- rates they are read at (decision.ceiling_noise_order): compare.lua's words, with why
      r.vs_next, r.proven, r.either = "untested", false, true
      r.vs_next_text = ("untested against %s (%s), and either may be higher: %s"):format(nxt.label, nf,
        decision.capacity_noise_text(ev.noise, function(v) return metrics.rate_text(v) end,
          ev.within_noise == "b" and "this one" or nxt.label, ev.within_noise == "b" and nxt.label or "this one"))
    elseif ev.verdict == "untested" and ev.within_range then
      r.vs_next, r.proven, r.either = "untested", false, true
      -- (in the Verdict's words: untested, and either may be higher, then why; never "not
      -- comparable", which reads as "of different kinds", treat39)
      r.vs_next_text = ("untested against %s (%s), and either may be higher: %s figure lies within the range %s "
        .. "repeats allow"):format(nxt.label, nf, ev.within_range == "a" and "this one's" or (nxt.label .. "'s"),
        ev.within_range == "a" and (nxt.label .. "'s") or "this one's")
    elseif ev.verdict == "untested" and ev.order_open and nxt.capacity.kind == "below_lowest" then
      r.vs_next, r.proven, r.either = "untested", false, true
      r.vs_next_text = ("untested against %s, and either may be higher: %s's %s, %s, leaves room for any capacity "
        .. "below that load, this one's %s included"):format(nxt.label, nxt.label, m.rank_by, nf, figure(x))
      r.settle = capacity_bounds_settle(x, nxt)
    elseif ev.verdict == "untested" and ev.order_open and decision.capacity_is_bound(nxt.capacity) then
      r.vs_next, r.proven, r.either = "untested", false, true
      r.vs_next_text = ("untested against %s, and either may be higher: %s's %s, %s, is only a lower bound")
        :format(nxt.label, nxt.label, m.rank_by, nf)
      -- (what would settle it: the lower bounds measured higher, compare.lua's Verdict's words)
      r.settle = capacity_bounds_settle(x, nxt)
    elseif ev.verdict == "untested" and ev.order_open and ev.noise_unknown then
      -- (summary files' unknown noise: the spans may lie apart, so never "which overlap"; the
      -- loads and the condition that leave it open, as compare.lua's Evidence says them, tidy55)
      r.vs_next, r.proven, r.either = "untested", false, true
      local why = decision.unknown_noise_text(ev.noise_unknown_why, ev, gap_rate, nxt.label, x.label)
      r.vs_next_text = ("untested against %s (%s), and either may be higher: each load's pass or fail rests on one "
        .. "measured percentile whose noise these files cannot tell (no per-request data)%s"):format(nxt.label, nf,
        why and (", and " .. why) or ", too close to order them")
    elseif ev.verdict == "untested" and ev.order_open then
      -- an interpolated figure is an estimate: the measured loads leave room for either order
      -- (the spans decision.capacity_span orders by, each named and in its cell's digits, so
      -- that the sentence and the capacity column give one range one meaning)
      local span = require("llmd.report").capacity_span_text
      r.vs_next, r.proven, r.either = "untested", false, true
      r.vs_next_text = ("untested against %s (%s), and either may be higher: the measured loads place this one's "
        .. "%s %s and %s's %s, which overlap"):format(nxt.label, nf, m.rank_by, span(x.capacity),
        nxt.label, span(nxt.capacity))
    elseif ev.verdict == "untested" then
      r.vs_next, r.proven = "untested", false
      r.order_certain = ev.ordered or nil
      local measured = ev.ordered and not ev.beyond_ceiling and ev.failed_rps and ("; the measured loads order them: "
        .. "this one met %s at %s, %s already failed %s at %s"):format(words.the, metrics.rate_text(
        ev.passed_rps), nxt.label, words.it, metrics.rate_text(ev.failed_rps)) or ""
      r.vs_next_text = ("higher than %s's %s by the figures%s, untested: %s"):format(nxt.label, nf,
        gap_vs and (" (" .. gap_vs .. ")") or "", r.evidence.basis or "no range of the capacities from repeats")
        .. (ceiling and ("; " .. ceiling) or "") .. measured
    elseif decision.capacity_is_bound(nxt.capacity) and decision.capacity_is_bound(x.capacity) then
      -- two lower bounds (A/A copies among them) are runs of one kind whose order is open:
      -- untested, and either may be higher, never "not comparable", which reads as unlike runs
      r.vs_next, r.proven, r.either = "untested", false, true
      r.either_why = "both only lower bounds"
      r.vs_next_text = ("untested against %s, and either may be higher: both only lower bounds, %s and %s, which "
        .. "leave room for either order (as compare.lua says of two bounds)"):format(nxt.label, figure(x), nf)
      r.settle = capacity_bounds_settle(x, nxt)
    else
      r.vs_next, r.proven = "not comparable", false
      r.vs_next_text = (nxt.capacity.kind == "below_lowest" and x.capacity.kind == "below_lowest")
          and ("not comparable with %s (%s): both fail %s already at their lowest load, so neither capacity "
            .. "is known and neither is named higher (as compare.lua says)"):format(nxt.label, nf, words.the)
        or ("not comparable with %s (%s): %s"):format(nxt.label, nf,
          (x.capacity.kind == "unknown" or nxt.capacity.kind == "unknown")
            and ("a capacity is unknown (%s)"):format(
              tostring((x.capacity.kind == "unknown" and x or nxt).capacity.reason))
            or "the evidence cannot order them")
    end
    -- an order left open on summary files' unknown noise (decision.capacity_evidence's
    -- noise_unknown): settled by what tells that noise, per-request data or repeats, never by
    -- measuring above a bound, whose loads would rest on it too (compare.lua's Verdict, fixs50)
    if ev.verdict == "untested" and ev.order_open and ev.noise_unknown then
      local advice = require("llmd.report").unknown_noise_advice(x, nxt, x.capacity, nxt.capacity)
      r.settle = advice and ("To settle it: " .. advice .. ".") or r.settle
    end
    -- what would settle an order left open, or tell by how much where the gap may be
    -- negligible: compare.lua's Verdict's advice for the same two runs (llmd.report
    -- capacity_settle, one source for both: audit50b F2), unless a lower bound's advice above
    -- says it already; shown beside the place's evidence and, for the first, in the Verdict
    if not r.settle and not r.proven and not r.order_certain then
      r.settle = rep.capacity_settle({ slo = slo, load_points = { a = nxt.points, b = x.points },
        saturation = { a = nxt.saturation, b = x.saturation } }, { label = nxt.label }, { label = x.label },
        nxt.capacity, x.capacity, ev, "", false)
    end
    -- a crash in the higher place's repeats that can only have lowered it: the order stands,
    -- said as compare.lua's Verdict says it (llmd.report crash_in_higher_text, fixb41); the
    -- evidence keeps the load point
    if ev.crash_in_higher and r.vs_next_text then
      local hi = ev.winner or ev.higher
      local t = rep.crash_in_higher_text(hi == "a" and nxt or x, ev.crash_in_higher)
      r.vs_next_text = ("%s; %s"):format(r.vs_next_text, t:sub(1, 1):lower() .. t:sub(2))
      r.evidence.crash_in_higher = { treatment = label[hi], place = place[hi], point = ev.crash_in_higher.point }
      crash_said[r] = t -- (and the verdict paragraph: below)
    end
    -- (the order stands, with the loads it rests on and that repeats of them settle it)
    if ev.interval_coverage == "narrow_near_capacity" and r.vs_next_text then
      local t = rep.narrow_verdict_text(ev, { label = nxt.label }, { label = x.label })
      r.vs_next_text = ("%s; %s"):format(r.vs_next_text, t:sub(1, 1):lower() .. t:sub(2, -2))
      -- (and the verdict paragraph, which may not quote this place's evidence: below)
      narrow_said[r] = ("%s's place above %s %s"):format(x.label, nxt.label, t:sub(4))
    end
  end
  -- by max sustained throughput as by capacity (llmd.decision.capacity_evidence): two
  -- treatments whose requests differ in length (llmd.decision.token_differences, the
  -- workload match's rule) are different workloads, neither ranked above the other nor tested
  -- The repeats' test only where both max sustained points are one offered load (lp.same_load,
  -- the Pareto front's rule): at two loads it compares the loads, not the treatments - a
  -- kept-up point's throughput is its sending rate, so 5 against 4 req/s is "significant" by
  -- construction (p = 0.000387 in an A/A set, s51) - and its p would enter the Holm family,
  -- stating every other place's test as one of more. There the place is untested (two_loads:
  -- why), and the measured loads' rule with the rates' noise (decision.sustained_order, as
  -- compare.lua's) decides it below, out of the family.
  local tests, untested, differs, fam_in, two_loads = {}, {}, {}, {}, {}
  for i, x in ipairs(ranked) do
    local nxt = ranked[i + 1]
    if nxt and not by_cap then
      differs[i] = decision.token_difference_texts(x.requests_set, nxt.requests_set) -- this place's first
    end
    if nxt and not by_cap and #differs[i] == 0 and not lower_bound(nxt) and x.status ~= "failed"
      and nxt.status ~= "failed" then
      local xa, xb = throughput_samples(nxt), throughput_samples(x)
      local px, pn = x.max_point, nxt.max_point
      if xa and xb and not lp.same_load(px, pn) then
        two_loads[i] = (px and pn and px.offered and pn.offered)
          and ("the max sustained points are two offered loads (%s at %s, %s at %s), where a kept-up point's "
            .. "throughput is its sending rate: their repeats' test would compare the loads, not the treatments")
            :format(x.label, lp.load_text(px.load_type, px.offered), nxt.label, lp.load_text(pn.load_type, pn.offered))
          or "the offered load of a max sustained point is unknown, so their repeats' test may compare two loads"
        xa, xb = nil, nil
      end
      if xa and xb then
        -- Welch, or the exact test where a side's repeats are all one value (the decision
        -- layer's test on repeats, as compare.lua uses it), with the difference's interval over
        -- the repeats: a place above only where it is beyond the practical threshold
        tests[i], untested[i] = decision.sized_repeat_test(xa, xb, "over the max sustained points' repeats")
        local v = decision.verdict { key = "throughput_req_s", a = nxt.rank_value, b = x.rank_value, test = tests[i],
          token_gap = tgap(nxt, x) }
        if v.p_value ~= nil and v.verdict ~= "not comparable" and not v.cannot_decide then
          fam_in[#fam_in + 1] = { id = i, p = tests[i].p }
        end
      end
    end
  end
  local fam = decision.family(fam_in)
  -- why a place by max sustained throughput is untested: which treatment has no repeats at
  -- its max sustained load point ("vllm has no repeats ...", "neither has ...")
  local function no_repeats_why(x, nxt)
    local missing = {}
    for _, y in ipairs { x, nxt } do
      if not throughput_samples(y) then missing[#missing + 1] = y.label end
    end
    if #missing == 2 then
      return ("neither %s nor %s has repeats at its max sustained load point"):format(missing[1], missing[2])
    end
    if #missing == 1 then return ("%s has no repeats at its max sustained load point"):format(missing[1]) end
    return "no repeats of the max sustained load point on both sides"
  end
  m.family = { method = "holm", alpha = decision.ALPHA, size = fam.size }
  for i, x in ipairs(ranked) do
    -- (r.rank: set below, once every place's evidence against the next is known)
    -- (value: the figure as its text bounds it, value_kind saying how: "estimate", "at_least" (≥)
    -- or "below" (a capacity below the lowest load tried: < that load's rate); never the 0 that
    -- ranks such a capacity last)
    local r = { rank = i, label = x.label, text = figure(x) }
    r.value, r.value_kind = x.rank_value, lower_bound(x) and "at_least" or "estimate"
    if by_cap and x.capacity.kind == "below_lowest" then r.value, r.value_kind = x.capacity.lowest_rps, "below" end
    local nxt = ranked[i + 1]
    if nxt and by_cap then
      capacity_place(r, x, nxt)
    elseif nxt and (x.status == "failed" or nxt.status == "failed") then
      -- a treatment whose health check failed is never ordered (as compare.lua)
      local y = x.status == "failed" and x or nxt
      r.vs_next, r.proven = "not comparable", false
      r.vs_next_text = ("not compared with %s (%s): %s's run failed its health check (%s); a broken run's figures "
        .. "say nothing of its configuration"):format(nxt.label, figure(nxt), y.label,
        table.concat(y.reasons or {}, "; "))
    elseif nxt and #differs[i] > 0 then
      r.vs_next, r.proven = "not comparable", false
      r.evidence = { verdict = "not comparable", differences = differs[i] }
      r.vs_next_text = ("not comparable with %s (%s): the workloads differ (%s), and a treatment whose requests "
        .. "are longer sustains fewer of them"):format(nxt.label, figure(nxt), table.concat(differs[i], "; "))
    elseif nxt and lower_bound(nxt) then
      r.vs_next, r.proven, r.either = "untested", false, true
      r.vs_next_text = ("untested against %s, and either may be higher: %s's %s, %s, is only a lower bound")
        :format(nxt.label, nxt.label, m.rank_by, figure(nxt))
      -- (what would settle it: the lower bounds measured higher, compare.lua's Verdict's words)
      r.settle = bounds_settle(lower_bound(x) and { x, nxt } or { nxt })
    elseif nxt then
      local test = tests[i]
      local v = decision.verdict { key = "throughput_req_s", a = nxt.rank_value, b = x.rank_value, test = test,
        label_a = nxt.label, label_b = x.label, token_gap = tgap(nxt, x),
        p_adjusted = fam.adjusted[i], family_size = fam.adjusted[i] and fam.size or nil,
        untested_why = untested[i] and ("the repeats cannot be tested: " .. untested[i])
          or two_loads[i] or no_repeats_why(x, nxt) }
      r.vs_next = v.verdict
      r.p_value, r.p_adjusted, r.family_size, r.adjusted_away = v.p_value, v.p_adjusted, v.family_size,
        v.adjusted_away
      -- "Welch p = 0.0123" or, among several tests, "Welch p = 0.0123, Holm-adjusted 0.0369 over 3 tests"
      local ptext = v.p_value and decision.test_p_text(test, ("%.3g"):format(v.p_value))
      if v.cannot_decide or v.identical then ptext = v.note end
      if ptext and v.p_adjusted and (v.family_size or 1) > 1 then
        ptext = ptext .. (", Holm-adjusted %.3g over %d tests"):format(v.p_adjusted, v.family_size)
      end
      -- significant, but its interval not wholly beyond the practical threshold (or too small,
      -- or unbounded: with what would settle it): decision.effect_size's words, as compare.lua's rows
      if v.size and v.note then ptext = (ptext and (ptext .. "; ") or "") .. v.note end
      -- a test that could not show a difference, whatever the figures (too few repeats), is
      -- "not shown to differ from", never "no clear difference", which reads as sameness
      if v.too_few then
        ptext = ("%s: the smallest p these %d and %d repeats allow, too few to show a difference"):format(ptext,
          test.n_a or 0, test.n_b or 0)
      end
      -- "no clear difference" with the gap the two limits' ranges allow (sustained_gap), in
      -- the decision layer's words, as by capacity: a test that found no difference says
      -- nothing of sameness (-3.0 % to +25.0 % is none)
      local ncd, ncd_gap
      if v.verdict == "no clear difference" then
        local g = sustained_gap(nxt, x)
        local who = ("%s vs %s"):format(x.label, nxt.label)
        local pt = ptext or v.note or "untested"
        -- (a two-ended gap names the four figures its ends are between, as by capacity: the
        -- limits' ranges, each from its figure's interval to its ceiling, sustained_capacity)
        local gt = g and decision.gap_pct_text(g, gap_pct)
        local sa, sb = sustained_capacity(nxt), sustained_capacity(x)
        local ends = g and change_ends(g, gt, sa, sb, nxt.label, x.label, "the two limits' ranges") or ""
        if g then
          ncd_gap = { pct_text = gt, ends = gap_ends_record(g, gt, sa, sb) }
          for k, val in pairs(g) do if finite(val) then ncd_gap[k] = val end end
        end
        if g and g.lo_rps <= 0 and g.hi_rps >= 0 then
          -- (the gap held to the two treatments' tokens beside it, where their requests differ
          -- within the tolerance: decision.sustained_token_gap, as by capacity; token54)
          local la, ha = decision.capacity_span(sa)
          local lb, hb = decision.capacity_span(sb)
          local held = decision.sustained_token_gap(g, { la = la, ha = ha, lb = lb, hb = hb }, tgap(nxt, x))
          if held and ncd_gap then ncd_gap.token_held = held end
          ncd = ("%s; each limit's range is %s"):format(no_clear_difference(g, who .. ends,
            ("%s (%s)"):format(nxt.label, pt), decision.token_held_gap_text(held, gap_pct, nxt.label, x.label)),
            SUSTAINED_RANGE_WHAT)
        elseif g then
          -- ranges apart, and still no difference the test shows after the Holm adjustment:
          -- the gap, with no word of an overlap, and never "no clear difference", which reads
          -- as sameness beside a gap the ranges keep one side of 0 (nor "either may be higher":
          -- the ranges leave one order)
          ncd = ("not shown to differ from %s by the test (%s), though the ranges of the two limits (each %s) lie "
            .. "apart: %s %s vs %s%s"):format(nxt.label, pt, SUSTAINED_RANGE_WHAT, x.label, gt, nxt.label, ends)
        else
          -- (no range known for one of them: either may be higher)
          ncd = ("either this or %s (%s) may be higher: the range of a limit is not known"):format(nxt.label, pt)
        end
      end
      -- the gap as a reader takes it, this one's figure over the next one's (+193.6 % for 91.32
      -- against 31.10 req/s), not the symmetric effect size the threshold reads (+98.4 %)
      r.vs_next_text = v.verdict == "B better" and nxt.rank_value > 0 and ("above %s (%s, %s)"):format(
        nxt.label, ptext, gap_pct((x.rank_value / nxt.rank_value - 1) * 100))
        or v.verdict == "B better" and ("above %s (%s)"):format(nxt.label, ptext)
        or v.verdict == "untested" and ("untested against %s: %s"):format(nxt.label, v.note or "")
        or v.verdict == "not shown to differ" and ("not shown to differ from %s%s"):format(nxt.label,
          ptext and (" (" .. ptext .. ")") or "")
        or ncd
        or ("%s vs %s%s"):format(v.verdict, nxt.label, ptext and (" (" .. ptext .. ")") or "")
      -- the test compares the two max sustained points; each treatment's limit lies between
      -- its figure and its ceiling (the most it achieved at any load). Where the next one's
      -- ceiling reaches above this one's figure, the load steps cannot order the limits
      -- (compare.lua's "the load steps cannot order them"): no place is shown, and whatever
      -- the test of the two points said, the limits are "not shown to differ", never "no
      -- clear difference" or "negligible", which read as sameness the steps cannot show
      local ceil = nxt.saturation.ceiling_rps
      -- the order of the two limits by the measured loads (compare.lua's rule)
      -- (the same rule for an order the test shows: the spans apart beyond the noise of the two
      -- rates, decision.gap_noise, never the spans alone)
      local sorder, ssp = decision.sustained_order(nxt.saturation, 1, x.saturation, 1, decision.MIN_EFFECT, nil,
        tgap(nxt, x))
      local tested = { ["B better"] = "differ", ["no clear difference"] = "do not clearly differ",
        negligible = "differ by less than the practical threshold" }
      if tested[v.verdict] and ceil and x.max_rps and ceil > x.max_rps then
        r.vs_next, r.steps_cannot_order = "not shown to differ", true
        r.vs_next_text = ("not shown to differ from %s: the max sustained points %s (%s, %s), but %s achieved "
          .. "up to %s %s, above this one's %s, so the load steps cannot order their limits")
          :format(nxt.label, tested[v.verdict], ptext or "untested", gap_pct((x.rank_value / nxt.rank_value - 1) * 100),
          nxt.label, metrics.rate_text(ceil), ceiling_load_text(nxt, slo),
          metrics.rate_text(x.max_rps))
      elseif two_loads[i] and ceil and x.max_rps and ceil > x.max_rps then
        -- (no test at two offered loads, two_loads; the next one's ceiling above this one's
        -- figure leaves the limits unordered, as where a test was made: said so)
        r.vs_next, r.steps_cannot_order = "not shown to differ", true
        r.vs_next_text = ("not shown to differ from %s: %s; %s achieved up to %s %s, above this one's %s, so the load "
          .. "steps cannot order their limits"):format(nxt.label, two_loads[i], nxt.label,
          metrics.rate_text(ceil), ceiling_load_text(nxt, slo), metrics.rate_text(
          x.max_rps))
      elseif v.verdict == "B better" and ssp and ssp.within_noise == "b" then
        -- the test orders the two max sustained points, but each limit lies between its figure
        -- and its ceiling, and the next one's ceiling is below this one's figure by less than
        -- the noise of the two rates (decision.sustained_order's rule, decision.gap_noise): the
        -- next one's limit may be as high, so the limits are not ordered, as where its ceiling
        -- is above this one's figure (the branch above)
        r.vs_next, r.steps_cannot_order = "not shown to differ", true
        r.vs_next_text = ("not shown to differ from %s: the max sustained points differ (%s, %s), but %s "
          .. "achieved up to %s %s, below this one's %s %s"):format(nxt.label, ptext or "untested",
          gap_pct((x.rank_value / nxt.rank_value - 1) * 100), nxt.label, metrics.rate_text(ceil),
          ceiling_load_text(nxt, slo), metrics.rate_text(x.max_rps),
          decision.sustained_noise_text(ssp, function(q) return metrics.rate_text(q) end, "this one",
          nxt.label))
      elseif ssp and ssp.token_explained and ssp.token_explained.higher == "b"
        and v.verdict ~= "A better" then
        -- an order of the two limits (or the repeats' test of their points) that the two
        -- treatments' token lengths can explain (decision.sustained_order, decision.verdict:
        -- fixb52): no order, said with the token figures, as compare.lua says it
        r.vs_next, r.either, r.token_explained = "not shown to differ", true, ssp.token_explained
        r.vs_next_text = ("not shown to differ from %s (%s): the measured loads put this one above %s (it sustained "
          .. "%s, %s never achieved more than %s at any load), %s"):format(nxt.label, ptext or "untested", nxt.label,
          gap_rate(ssp.lb), nxt.label,
          gap_rate(ssp.ha), decision.token_order_text(ssp.token_explained, "this one", nxt.label, decision.MIN_EFFECT))
        r.either_why = ("the token lengths of %s's and %s's requests can explain the order"):format(x.label, nxt.label)
      elseif ssp and ssp.token_same and v.verdict ~= "A better" then
        -- limits the measured loads put within the practical threshold, but not held to the two
        -- treatments' tokens (decision.sustained_token_same, fixh53): either may be higher, as
        -- compare.lua says it, never "about the same"
        local ts = ssp.token_same
        local fav = ts.favoured == "b" and "this one" or nxt.label
        local other = ts.favoured == "b" and nxt.label or "this one"
        r.vs_next, r.either = "not shown to differ", true
        r.vs_next_text = ("not shown to differ from %s (%s): %s"):format(nxt.label, ptext or "untested",
          decision.token_same_text(ts, fav, other, decision.MIN_EFFECT))
        r.either_why = ("the token lengths of %s's and %s's requests can take their gap beyond the practical threshold")
          :format(x.label, nxt.label)
      elseif ssp and ssp.least_below_threshold and ssp.margin_higher == "b" then
        -- the limits' spans apart beyond the noise of their rates, but their least gap (the
        -- next one's ceiling against this one's figure) below the practical threshold while the
        -- largest reaches beyond it: no order, whatever the test of the two points said (its
        -- limits may be as close as that least gap), as compare.lua says it
        -- (decision.sustained_order: a winner only where the whole gap is beyond the threshold,
        -- the latency rows' rule). (Both below it cannot be: the largest is at least the
        -- figures' gap.)
        r.vs_next, r.steps_cannot_order = "not shown to differ", true
        r.evidence = { least_below_threshold = true, margin_pct = ssp.margin_pct,
          margin_max_pct = ssp.margin_max_pct }
        r.vs_next_text = ("%s; the measured loads put this one at least as high as %s (it sustained %s, %s never "
          .. "achieved more than %s at any load)%s: the gap may be negligible, %s"):format(
          r.vs_next_text, nxt.label, gap_rate(ssp.margin_hi), nxt.label, gap_rate(ssp.margin_lo),
          (decision.least_gap_text(ssp, gap_pct, decision.MIN_EFFECT, gap_rate):gsub("^ by", ", by"):gsub("^: ", ", ")),
          decision.AT_LEAST_NO_WINNER)
      elseif ssp and ssp.below_threshold == "b" and v.verdict == "untested" then
        -- untested limits the measured loads put apart by less than the practical threshold at
        -- both ends of the gap (decision.sustained_order's below_threshold): about the same, as
        -- compare.lua's row says it ("negligible", the ranking's code of that meaning; it was
        -- said "untested" alone, as if nothing bounded the gap, fixb53)
        r.vs_next = "negligible"
        r.evidence = { below_threshold = true, margin_pct = ssp.margin_pct, margin_max_pct = ssp.margin_max_pct }
        r.vs_next_text = ("%s; the measured loads put this one above %s (it sustained %s, %s never achieved more than "
          .. "%s at any load), but only by %s%s within the practical threshold of %g %%: about the "
          .. "same"):format(r.vs_next_text, nxt.label, gap_rate(ssp.lb), nxt.label, gap_rate(ssp.ha),
          gap_pct(ssp.margin_pct), decision.largest_within_text(ssp.margin_max_pct),
          decision.MIN_EFFECT)
      elseif sorder == "b" and (v.verdict == "untested" or ((v.verdict == "no clear difference"
        or v.verdict == "not shown to differ") and (sustained_gap(nxt, x) or { lo_rps = -1 }).lo_rps > 0)) then
        -- untested, or a test that showed nothing (after Holm, or could show nothing: too few
        -- repeats) of limits whose ranges (each from the lower end of its repeats' interval)
        -- lie apart, and the next one never achieved
        -- this one's figure at any load: its limit lies below this one's whatever lies between
        -- the loads (compare.lua's "the measured loads order them", decision.sustained_order,
        -- its least gap held to the practical threshold as there): an order, said as one, and
        -- ranked as one (a place of its own, as the untested case's)
        -- (sorder names an order only where its least gap is beyond the practical threshold:
        -- one below it is the branch above, no order)
        r.order_certain = true
        r.evidence = { verdict = "untested", ordered = true, ceiling_rps = ceil, sustained_rps = x.max_rps,
          basis = v.note }
        r.vs_next_text = r.vs_next_text .. ("; %sthe measured loads order them: this one sustained %s, %s never "
          .. "achieved more than %s at any load"):format(v.verdict ~= "untested" and "but " or "",
          metrics.rate_text(x.max_rps), nxt.label, metrics.rate_text(ceil))
      elseif v.verdict == "untested" and ssp and ssp.within_noise == "b" then
        -- the next one never achieved this one's figure at any load, but by less than the
        -- noise of the two rates (decision.sustained_order, compare.lua's rule): no order
        local function rate(q) return metrics.rate_text(q) end
        r.vs_next_text = r.vs_next_text .. ("; the measured loads put this one above (it sustained %s, %s never "
          .. "achieved more than %s at any load), %s"):format(rate(ssp.lb), nxt.label, rate(ssp.ha),
          decision.sustained_noise_text(ssp, rate, "this one", nxt.label))
        -- (within the noise is no order: the Verdict says either may be higher, as this text
        -- does, and how long the loads would have to be, as compare.lua's Verdict)
        r.either = true
        r.either_why = ("the measured loads put %s above %s only within the noise of those rates"):format(x.label,
          nxt.label)
        local ns = decision.noise_settle_text(ssp.noise, rate)
        r.settle = ns and ("To settle it: " .. ns .. ".") or nil
      elseif v.verdict == "untested" and lower_bound(x) then
        -- this one never saturated: its figure is a lower bound, and the next one's limit may
        -- lie up to its ceiling, above it: either may be higher, whatever the repeats
        -- (audit40 #3: "neither has repeats at its max sustained load point" was said instead)
        r.either = true
        r.vs_next_text = ("untested against %s, and either may be higher: %s's %s, %s, is only a lower bound%s")
          :format(nxt.label, x.label, m.rank_by, figure(x), ceil and (", and %s achieved up to %s at some load")
          :format(nxt.label, metrics.rate_text(ceil)) or "")
        r.settle = bounds_settle({ x, lower_bound(nxt) and nxt or nil })
      end
      r.proven = r.vs_next == "B better"
      -- placed above the next (shown by repeats, or ordered by the measured loads): the gap of
      -- the two limits' ranges, where it has both ends, for the Verdict, with the four figures
      -- they are between, as compare.lua's Verdict gives its Change (+62.5 % to +88.9 % for the
      -- kubecon pair: 169.427 / 104.238 and 174.221 / 92.213); a lower bound's none (no upper end)
      if r.proven or r.order_certain then
        local g = sustained_gap(nxt, x)
        local gt = g and decision.gap_pct_text(g, gap_pct)
        local sa, sb = sustained_capacity(nxt), sustained_capacity(x)
        local rec = g and gap_ends_record(g, gt, sa, sb)
        if rec then
          r.gap_text = gt
          r.gap_ends = change_ends(g, gt, sa, sb, nxt.label, x.label, "the two limits' ranges")
          r.evidence = r.evidence or {}
          r.evidence.gap = { pct_text = gt, ends = rec }
          for k, val in pairs(g) do if finite(val) then r.evidence.gap[k] = val end end
        end
      end
      -- the gap the "no clear difference" text gives, where the text kept it (treatments.json:
      -- its ends and the four figures, as by capacity's evidence.gap)
      if ncd_gap and ncd and r.vs_next_text:find(ncd, 1, true) then
        r.evidence = r.evidence or {}
        r.evidence.gap = ncd_gap
      end
    end
    -- two treatments holding the same results (M.identical_treatments, the Verdict's caveat):
    -- no difference to find between them, whatever their figures' bounds leave open
    if nxt and M.same_results_pair(list.identical_pairs, x.label, nxt.label) then
      r.vs_next, r.proven, r.order_certain, r.either, r.either_why, r.settle = "not comparable", false, nil, nil, nil,
        nil
      r.same_results = nxt.label
      r.vs_next_text = ("the same results as %s (an A/A check: no difference to find)"):format(nxt.label)
    end
    -- two capacities that never violated the SLOs: lower bounds at the highest loads measured,
    -- which cannot be ordered (not "not comparable", which the README keeps for unlike runs)
    if by_cap and nxt and x.capacity.kind == "never_violated" and nxt.capacity.kind == "never_violated"
      and x.capacity.rps and nxt.capacity.rps then
      r.both_never_rps = math.max(x.capacity.rps, nxt.capacity.rps)
    end
    -- two places of equal figures (by capacity, two below their lowest loads among them, each
    -- ranked at 0): which is listed first is the tie rule's, M.rank_before, and said so
    -- (two holding the same results are said so instead: their order decides nothing)
    if nxt and x.rank_value == nxt.rank_value and M.given_before(x, nxt) and not r.same_results then
      local below = by_cap and x.capacity.kind == "below_lowest"
      r.tie_order = ("tied: %s and %s, %s, listed in the order given"):format(x.label, nxt.label,
        below and "both below their lowest loads" or "the same figure")
      r.vs_next_text = (r.vs_next_text and (r.vs_next_text .. "; ") or "") .. r.tie_order
    end
    m.ranking[#m.ranking + 1] = r
  end
  -- The rank of a place is 1 + the number of places the evidence orders ahead of it (shown
  -- above by repeats, or ordered by the measured loads, directly or by a chain of ordered
  -- pairs; M.partial_ranks): tied, not shown to differ, untested, not comparable
  -- (capacities below their lowest loads, "< X" and "< Y", among them) put none above the
  -- other. The evidence is a partial order, and a tie is not transitive: x above z by the
  -- loads, y ordered against neither, are x "1=", y "1=", z "2" (audit40 #3: all three
  -- shared 1 where the Pareto section said x beats z). Where the order is total it is
  -- standard competition ranking: two at 1 are "1=", the next is 3 (rank_text, below). The
  -- rows keep the order of the figures, so a place below may hold a smaller rank where no
  -- place is known ahead of it. A pair further apart is ordered by the same evidence as two neighbours (by
  -- capacity: capacity_place; by max sustained throughput: the measured loads, as compare.lua
  -- and the order per GPU read them, untested: the tests are the neighbours' Holm family), or
  -- by a chain of ordered pairs between them. The pairs left unordered within a shared rank
  -- are named with the place above (r.not_ahead) and in the verdict.
  local direct, ahead = {}, {}
  local function pair_direct(k, j)
    local key = k .. ":" .. j
    if direct[key] then return direct[key][1], direct[key][2] end
    local x, z = ranked[k], ranked[j]
    local above, why
    if j == k + 1 then
      above, why = m.ranking[k].proven or m.ranking[k].order_certain or false, m.ranking[k].vs_next_text
    elseif by_cap then
      local r = {}
      capacity_place(r, x, z)
      above, why = r.proven or r.order_certain or false, r.vs_next_text
    else
      local differ = decision.token_difference_texts(x.requests_set, z.requests_set)
      local order, sp = decision.sustained_order(z.saturation, 1, x.saturation, 1, decision.MIN_EFFECT, nil,
        tgap(z, x))
      above = #differ == 0 and order == "b"
      local function rate(v) return metrics.rate_text(v) end
      why = #differ > 0 and ("not comparable with %s: the workloads differ (%s)"):format(z.label,
        table.concat(differ, "; "))
        or lower_bound(z) and ("untested against %s, and either may be higher: %s's %s, %s, is only a lower bound")
          :format(z.label, z.label, m.rank_by, figure(z))
        -- (held by the two treatments' token lengths: why, token_reason; token54)
        or token_reason(sp, z.label, "this one", rate) and ("untested against %s, and not shown to differ: %s"):format(
          z.label, token_reason(sp, z.label, "this one", rate))
        or sp and ("untested against %s, and the measured loads do not order them: this one sustained %s, %s "
          .. "achieved up to %s at some load%s"):format(z.label, rate(sp.lb), z.label, rate(sp.ha),
          sp.below_threshold and (", within the practical threshold of %g %%"):format(decision.MIN_EFFECT)
          or sp.within_noise == "b" and (", " .. decision.sustained_noise_text(sp, rate, "this one", z.label))
          or "")
        or ("untested against %s: not known"):format(z.label)
    end
    -- (the pair's text names this one by its label: "x's capacity at SLO", "x sustained")
    why = why and why:gsub("this one", (x.label:gsub("%%", "%%%%")))
    direct[key] = { above, why }
    return above, why
  end
  local function ordered(k, j)
    local key = k .. ":" .. j
    if ahead[key] == nil then
      ahead[key] = pair_direct(k, j) or false
      for mid = k + 1, j - 1 do
        if not ahead[key] and ordered(k, mid) and ordered(mid, j) then ahead[key] = true end
      end
    end
    return ahead[key]
  end
  local rank_of = M.partial_ranks(#ranked, ordered)
  for i = 1, #ranked do m.ranking[i].rank = rank_of[i] end
  -- where a place is ordered above the next but shares its rank with a place below it, the
  -- pairs of that rank the evidence does not order, said with it (every output prints
  -- vs_next_text)
  for i = 1, #ranked - 1 do
    local r = m.ranking[i]
    local shared_below = false
    for j = i + 1, #ranked do
      if m.ranking[j].rank == r.rank then shared_below = true end
    end
    if (r.proven or r.order_certain) and shared_below then
      r.not_ahead = require("llmd.json").array {}
      local said = {}
      -- (the pairs across this place's link: each one keeps the next from a rank of its own)
      for k = 1, i do
        for j = i + 1, #ranked do
          if m.ranking[k].rank == r.rank and m.ranking[j].rank == r.rank and not ordered(k, j) then
            local _, why = pair_direct(k, j)
            r.not_ahead[#r.not_ahead + 1] = { label = ranked[k].label, not_ahead_of = ranked[j].label, text = why }
            said[#said + 1] = ("%s is not shown ahead of %s (%s)"):format(ranked[k].label, ranked[j].label, why)
          end
        end
      end
      r.not_ahead_text = ("but it shares rank %d: %s"):format(r.rank, table.concat(said, "; "))
      r.vs_next_text = ("%s; %s"):format(r.vs_next_text, r.not_ahead_text)
    end
  end
  -- a place ranked above one further down that the evidence does not order it above, directly
  -- or by a chain (x level with y, y above z, x and z unordered: x "1=", z "2"), named with the
  -- place ranked above, as the order per GPU names it (M.unordered_across_ranks, audit50b F3)
  -- (neighbours' evidence is the upper one's own vs_next_text already)
  for _, e in ipairs(M.unordered_across_ranks(#ranked, rank_of, ordered)) do
    if e[2] == e[1] + 1 then goto next_pair end
    local r = m.ranking[e[1]]
    local _, why = pair_direct(e[1], e[2])
    r.ranked_above_unordered = r.ranked_above_unordered or require("llmd.json").array {}
    r.ranked_above_unordered[#r.ranked_above_unordered + 1] = { label = ranked[e[1]].label,
      not_ahead_of = ranked[e[2]].label, text = why }
    r.vs_next_text = ("%s; %s is not shown ahead of %s, though ranked above it (%s)"):format(r.vs_next_text or "",
      ranked[e[1]].label, ranked[e[2]].label, why)
    ::next_pair::
  end
  -- the rank as every output prints it: "1=" where places share it, else "1"
  local count = {}
  for _, r in ipairs(m.ranking) do count[r.rank] = (count[r.rank] or 0) + 1 end
  for _, r in ipairs(m.ranking) do
    r.tied = count[r.rank] > 1
    r.rank_text = tostring(r.rank) .. (r.tied and "=" or "")
  end
  -- an unranked one saturated already at its lowest load sustains less than that load and
  -- at most its ceiling (the most it achieved at any load): the ranked ones whose figure is
  -- above that ceiling, by the practical threshold, are above it by the measured loads
  -- (decision.sustained_order, as compare.lua reads k10 against k20), untested; others not
  -- (below_lowest_of[x.label] = {labels above it}, text)
  local below_lowest_of = {}
  for _, x in ipairs(by_cap and {} or unranked) do
    local above, parts, held = {}, {}, {}
    for _, z in ipairs(ranked) do
      local sp, why = above_saturated_lowest(x, z)
      if sp then
        above[#above + 1] = z.label
        parts[#parts + 1] = ("%s sustained %s"):format(z.label, metrics.rate_text(sp.lb))
      elseif why then
        -- (an order the two treatments' token lengths can explain: not put above it, and why)
        held[#held + 1] = ("%s is not shown above it: %s"):format(z.label, why)
      end
    end
    local text = #above > 0 and ("untested, but the measured loads put %s above it: %s, %s saturated already at its "
      .. "lowest load and never achieved more than %s at any load"):format(table.concat(above, ", "),
      table.concat(parts, ", "), x.label, metrics.rate_text(x.saturation.ceiling_rps)) or nil
    if #held > 0 then text = (text and (text .. "; ") or "") .. table.concat(held, "; ") end
    if text then
      below_lowest_of[x.label] = { above = #above > 0 and above or nil, text = text }
    end
  end
  for _, x in ipairs(unranked) do
    local b = below_lowest_of[x.label]
    m.ranking[#m.ranking + 1] = { label = x.label, text = metrics.na(tostring(by_cap and x.capacity.reason
      or x.max_rps_why)), vs_next_text = b and b.text or nil, below = b and b.above or nil }
  end
  for _, x in ipairs(failed) do
    m.ranking[#m.ranking + 1] = { label = x.label, failed = true, vs_next = "not comparable", proven = false,
      text = "not ranked: its run failed", vs_next_text = ("left out of the ranking, the Pareto front and every "
        .. "comparison: %s; a broken run's figures say nothing of its configuration"):format(failed_why(x)) }
  end
  -- the broken ones in a few words, said with every verdict
  local function failed_text()
    local parts = {}
    for _, x in ipairs(failed) do parts[#parts + 1] = ("%s: %s"):format(x.label, failed_why(x)) end
    return ("Not ranked, compared or set on the Pareto front (a broken run's figures say nothing of its "
      .. "configuration): %s."):format(table.concat(parts, "; "))
  end
  -- the unranked ones in a few words: "c's capacity at SLO is unknown (why)"
  local function unknown_text()
    local parts = {}
    for _, x in ipairs(unranked) do
      parts[#parts + 1] = ("%s's %s is unknown (%s)"):format(x.label, m.rank_by, tostring(by_cap and x.capacity.reason
        or x.max_rps_why))
    end
    return table.concat(parts, "; ")
  end
  if #ranked == 0 and #failed > 0 and #unranked == 0 then
    m.verdict = ("No treatment can be ranked: %s."):format(#failed == 1 and "its run failed its health check"
      or "every one's run failed its health check")
  elseif #ranked == 0 and #failed > 0 then
    m.verdict = ("No treatment can be ranked: %s; the other runs failed their health check."):format(unknown_text())
  elseif #ranked == 0 then
    m.verdict = "No treatment can be ranked: " .. m.rank_by .. " is unknown for every one."
  elseif #ranked == 1 and by_cap and ranked[1].capacity.kind == "below_lowest" then
    -- "< X" is a bound below the lowest load, not a known capacity
    m.verdict = ("%s fails %s already at its lowest load, %s: its %s is not known, and there is nothing to rank it "
      .. "against%s."):format(ranked[1].label, words.the, m.ranking[1].text, m.rank_by,
      #unranked > 0 and ("; " .. unknown_text()) or "")
  elseif #ranked == 1 then
    -- (the others' runs failed: left out, said next; no order of any kind is claimed)
    m.verdict = #failed > 0 and #unranked == 0 and ("Only %s was measured; nothing to compare it with.")
      :format(ranked[1].label)
      or #failed > 0 and ("Only %s can be ranked; nothing to rank it against."):format(ranked[1].label)
      or ("Only %s has a known %s; nothing to rank it against."):format(ranked[1].label, m.rank_by)
    -- (the others saturated at their lowest load below its figure: it sustains more than
    -- they, by the measured loads, untested)
    local low, held = {}, {}
    for _, x in ipairs(unranked) do
      local b = below_lowest_of[x.label]
      if b and b.above then
        low[#low + 1] = ("%s (%s)"):format(x.label, b.text)
      elseif b then
        -- (not put below it: the token lengths of their requests can explain the order, token54)
        held[#held + 1] = ("%s has no figure (%s)"):format(x.label, b.text)
      end
    end
    if #low > 0 and #failed == 0 and #low == #unranked then
      m.verdict = ("%s sustains the most load (%s): %s; %s, but %s below it: %s.")
        :format(ranked[1].label, m.rank_by, m.ranking[1].text, #low == 1 and "the other has no figure"
        or "the others have no figure", #low == 1 and "is" or "are", table.concat(low, "; "))
    elseif #low > 0 then
      m.verdict = ("%s It sustains more than %s."):format(m.verdict, table.concat(low, "; "))
    end
    if #held > 0 then m.verdict = ("%s %s."):format(m.verdict, table.concat(held, "; ")) end
  elseif by_cap and ranked[1].capacity.kind == "below_lowest" then
    -- every one failed the SLOs at its lowest load (ranked at 0, the lowest): no figure is
    -- the highest, and "< X" against "< Y" orders nothing; where some capacity is unknown
    -- (unranked), "every one" is said of those with a bound only, and the others named
    local parts = {}
    for i, x in ipairs(ranked) do parts[i] = ("%s %s"):format(x.label, m.ranking[i].text) end
    m.verdict = ("No treatment is shown to be best: every one%s fails %s already at its lowest load (%s), so no "
      .. "capacity is known to order them%s."):format(#unranked > 0 and (" with a %s figure"):format(m.rank_by) or "",
      words.the, table.concat(parts, "; "), #unranked > 0 and ("; %s"):format(unknown_text()) or "")
  elseif m.ranking[1].not_ahead then
    -- ordered above the next, but not ahead of every other one: no first is named, and the
    -- pairs the evidence leaves unordered are said (x above y, y and z unordered, x and z too)
    local r1, shared, pairs_said = m.ranking[1], {}, {}
    for i, r in ipairs(m.ranking) do if r.rank == 1 then shared[#shared + 1] = ranked[i].label end end
    for _, p in ipairs(r1.not_ahead) do
      pairs_said[#pairs_said + 1] = ("%s is not shown ahead of %s (%s)"):format(p.label, p.not_ahead_of, p.text)
    end
    m.verdict = ("No treatment is shown to be best: %s, %s, is above %s, %s (%s), but %s; %s share rank 1.")
      :format(ranked[1].label, r1.text, ranked[2].label, m.ranking[2].text, r1.proven and "shown by repeats"
      or "untested, but the measured loads order them", table.concat(pairs_said, "; "), table.concat(shared, ", "))
  elseif not by_cap and m.ranking[1].order_certain then
    -- untested, but the measured loads order the two limits: the order of the figures, as
    -- by capacity, never "no treatment is shown to be best" beside an order that holds
    local r1, ev = m.ranking[1], m.ranking[1].evidence
    m.verdict = ("Highest %s by the figures: %s, %s, against %s for %s; %s (%s), so no winner is shown by "
      .. "repeats. The measured loads order them: %s sustained %s, %s never achieved more than %s at any load.")
      :format(m.rank_by, ranked[1].label, r1.text, m.ranking[2].text, ranked[2].label,
      r1.vs_next == "untested" and "untested" or "not shown by the test", tostring(ev.basis),
      ranked[1].label, metrics.rate_text(ev.sustained_rps), ranked[2].label,
      metrics.rate_text(ev.ceiling_rps))
  elseif m.ranking[1].proven and m.ranking[1].above_higher_figure then
    -- first by the evidence, below the second's figure: "the highest" would misread it
    m.verdict = ("%s ranks first by %s, %s, shown by repeats %s."):format(ranked[1].label, m.rank_by,
      m.ranking[1].text, m.ranking[1].vs_next_text)
  elseif m.ranking[1].proven then
    m.verdict = ("%s has the highest %s, %s, shown above %s by repeats."):format(ranked[1].label, m.rank_by,
      m.ranking[1].text, ranked[2].label)
  elseif by_cap and m.ranking[1].vs_next == "untested" and not m.ranking[1].either then
    -- the order of the figures, as compare.lua states it for two runs: no winner shown
    local r1, ev = m.ranking[1], m.ranking[1].evidence
    m.verdict = ("Highest %s by the figures: %s, %s, against %s for %s%s; untested (%s), so no winner is shown "
      .. "by repeats."):format(m.rank_by, ranked[1].label, r1.text, m.ranking[2].text, ranked[2].label,
      r1.gap_text and (" (%s %s vs %s)"):format(ranked[1].label, r1.gap_text, ranked[2].label) or "",
      ev.basis or "no range of the capacities from repeats")
    if ev.beyond_ceiling then
      m.verdict = m.verdict .. (" %s's figure is a lower bound, but %s achieved at most %s at any load measured: "
        .. "it cannot reach %s's."):format(ranked[2].label, ranked[2].label,
        metrics.rate_text(ev.ceiling_rps), ranked[1].label)
    elseif ev.ordered then
      m.verdict = m.verdict .. (" The measured loads order them: %s met %s at %s, %s already failed %s at %s.")
        :format(ranked[1].label, words.the, metrics.rate_text(ev.passed_rps), ranked[2].label,
        words.it, metrics.rate_text(ev.failed_rps))
    end
  else
    -- the same figure (and the same kind of figure) at the top is a tie, not "the highest"
    -- (M.tied_at_top: on the numbers, by the practical threshold, never on the printed text)
    local tied_i = M.tied_at_top(ranked, by_cap)
    local tied = {}
    for _, i in ipairs(tied_i) do tied[#tied + 1] = ranked[i].label end
    -- the figure without its ceiling: "19.950 req/s (up to 21.200 req/s, its most at any
    -- load)" and "19.950 req/s (up to 20.800 ...)" are the same figure, whatever the most each
    -- achieved past it (for the words only: which places tie is decided above)
    local function fig(text) return (text:gsub(" %(up to [^)]*%)$", "")) end
    -- the tied figures as printed: one where they print alike, else each with its label
    local function tied_figure()
      local texts, alike = {}, true
      for _, i in ipairs(tied_i) do
        texts[#texts + 1] = ("%s %s"):format(ranked[i].label, fig(m.ranking[i].text))
        if fig(m.ranking[i].text) ~= fig(m.ranking[1].text) then alike = false end
      end
      if alike then return fig(m.ranking[1].text) end
      return ("within the practical threshold of %g %% (%s)"):format(decision.MIN_EFFECT, table.concat(texts, ", "))
    end
    if #tied > 1 then
      m.tied_at_top = tied
      -- (a place holding the next one's results "holds the same results as", never "is")
      local is = m.ranking[1].same_results and "holds" or "is"
      m.verdict = ("No treatment is shown to be best: %s tie at the highest figure of %s, %s; %s %s %s."):format(
        table.concat(tied, " and "), m.rank_by, tied_figure(), ranked[1].label, is, m.ranking[1].vs_next_text)
      -- the figure that ties them orders nothing, but their latency at the common load may:
      -- tested there (as compare.lua's matched load), so that a treatment clearly faster is
      -- named, never "not shown to differ" beside a table that shows it
      local at_load = M.latency_at_common(m, T, tied, slo)
      if at_load and at_load.best then
        -- the evidence first: the one shown faster, then why the ranking's figure cannot say
        m.latency_best, m.latency_at_common_test = at_load.best, at_load
        m.verdict = ("%s is best at the common load: %s The %s does not order them: %s tie at its highest "
          .. "figure, %s; %s %s %s."):format(at_load.best, at_load.text, m.rank_by, table.concat(tied, " and "),
          tied_figure(), ranked[1].label, is, m.ranking[1].vs_next_text)
      elseif at_load then
        m.latency_at_common_test = at_load
        m.verdict = m.verdict .. " " .. at_load.text
      end
    else
      m.verdict = ("No treatment is shown to be best: %s has the highest figure of %s, %s, but %s."):format(
        ranked[1].label, m.rank_by, m.ranking[1].text, m.ranking[1].vs_next_text)
    end
  end

  -- an order of the ranking that rests on one-run loads measured near capacity (the rank
  -- table's caveat, llmd.report narrow_verdict_text): the verdict paragraph repeats it,
  -- unless it quotes that place's evidence already
  for _, r in ipairs(m.ranking) do
    local said = narrow_said[r]
    if said and not m.verdict:find(said:match("%(.*$"), 1, true) then m.verdict = m.verdict .. " " .. said end
  end
  -- an order that stands although a crash is in the higher place's repeats: the verdict
  -- paragraph says so as the rank table does (the same sentence, compare.lua's Verdict's),
  -- unless it quotes that place's evidence already; below the first place, naming the pair
  for i, r in ipairs(m.ranking) do
    local crash = crash_said[r]
    if crash and ranked[i + 1] and not m.verdict:find(crash:sub(2), 1, true) then
      m.verdict = ("%s %s."):format(m.verdict, i == 1 and crash or ("%s above %s: %s"):format(r.label,
        ranked[i + 1].label, crash:sub(1, 1):lower() .. crash:sub(2)))
    end
  end
  -- one saturated already at its lowest load, among several ranked ones: said in the Verdict
  -- too (its row's note alone was all), with the ones the measured loads put above it
  if #ranked > 1 then
    local low = {}
    for _, x in ipairs(unranked) do
      local bl = below_lowest_of[x.label]
      if bl then low[#low + 1] = ("%s has no figure (%s)"):format(x.label, bl.text) end
    end
    if #low > 0 then m.verdict = ("%s %s."):format(m.verdict, table.concat(low, "; ")) end
  end

  -- treatments on different numbers of accelerators are not like for like on cost: a setup
  -- with more hardware "wins" on totals. Said first, with the figures per GPU where every
  -- count is known (as compare.lua's per-GPU rows), and no winner named on totals
  -- (the totals' first, for "not the totals' order", only where no other place shares its rank)
  local first_alone = true
  for i = 2, #m.ranking do
    if m.ranking[i].rank == 1 then first_alone = false end
  end
  local totals_ranks = {}
  for _, r in ipairs(m.ranking) do totals_ranks[r.label] = r.rank_text end
  local cost = M.cost_note(ranked, by_cap, first_alone, totals_ranks, slo)
  if cost then
    m.cost = cost
    m.latency_best = nil
    m.verdict = cost.text .. " On totals (not per GPU): " .. m.verdict
  else
    -- the hardware is every treatment's (not failed), whether its figure is known or not.
    -- Nothing to order per GPU (no figure known, or one): the caveat is said after what the
    -- ranking says, as the totals below still compare unlike hardware (newuser45: capacity
    -- N/A for both made it vanish beside a Pareto front on totals). Ranked ones alike beside
    -- an unranked one unlike: the ranking is like for like, the Pareto front is not
    local all = {}
    for _, x in ipairs(ranked) do all[#all + 1] = x end
    for _, x in ipairs(unranked) do all[#all + 1] = x end
    local note = M.hardware_note(all)
    if #ranked < 2 then
      m.cost = note
      if note then m.verdict = m.verdict .. " " .. note.text end
    else
      m.pareto_unlike = note -- (the hardware note: what differs, for the front's)
    end
  end

  if #failed > 0 then m.verdict = m.verdict .. " " .. failed_text() end

  -- places not ordered because the workloads differ (by capacity or by max sustained
  -- throughput): said in the headline, so that "highest" is never read across workloads
  local apart = {}
  for i, r in ipairs(m.ranking) do
    if r.vs_next == "not comparable" and r.evidence and r.evidence.differences and ranked[i + 1] then
      apart[#apart + 1] = ("%s and %s"):format(r.label, ranked[i + 1].label)
    end
  end
  if #apart > 0 then
    m.verdict = m.verdict .. (" Not ranked against each other, the workloads differ: %s."):format(
      table.concat(apart, "; "))
  end

  m.verdict_line = M.verdict_line(m, ranked, failed, by_cap)

  -- the Pareto front: no other treatment has both higher max sustained throughput and
  -- lower E2E latency at the common load, at the percentile the latency table compares (p90
  -- where every treatment has it: M.latency_choice)
  local lat_col = m.latency_choice.latency
  -- where not every treatment has a percentile of E2E latency (vLLM's benchmark without e2el
  -- in --percentile-metrics), the front is built on a latency they all have, TTFT, else
  -- TPOT, else ITL, and says so (m.pareto_latency_note), never "none" for want of E2E latency
  if not (lat_col and lat_col.common) then
    for _, metric in ipairs { "ttft", "tpot", "itl" } do
      local c = m.latency_choice[metric]
      if c and c.common then
        m.pareto_latency_note = ("%s, as not every treatment has a percentile of E2E latency (%s)"):format(
          metrics.get(c.key).label, lat_col and "only some have one" or "none has one")
        lat_col = c
        break
      end
    end
  end
  local lat_key = lat_col and lat_col.key or "latency_p90_ms"
  m.pareto_latency, m.pareto_latency_key = metrics.get(lat_key).label, lat_key
  m.front, m.dominated, m.pareto_excluded, m.pareto_within_noise = {}, {}, {}, {}
  -- a treatment without a figure the front needs (no max sustained throughput, no latency
  -- at the common load) is unknown, never dominated: on the front, marked unknown, as no
  -- other is shown to beat it (a front of s24 alone, s10 saturated at its lowest load left
  -- out, read as a winner the Verdict does not name)
  m.pareto_unknown = {}
  local cand = {}
  for _, x in ipairs(T) do
    local e = x.at_common[lat_key]
    local l = e.value
    -- what the measurements say of its latency there: its own point's value, or, where it is
    -- interpolated, only that it lies between the values of the two measured points around it
    -- (latency does not fall as the load rises); the interpolated figure itself is no evidence
    if x.status == "failed" then
      m.pareto_excluded[#m.pareto_excluded + 1] = { label = x.label, why = failed_why(x) }
    elseif x.max_rps and l then
      local _, interp, p1, p2 = lp.at(x.points, m.common_load, lat_key, m.common_axis)
      cand[#cand + 1] = { x = x, tp = x.max_rps, lat = l, lat_lo = e.between and e.between.lo or l,
        lat_hi = e.between and e.between.hi or l, between = e.between,
        noise = type(p1) == "table" and M.latency_noise(lat_key, p1, interp == true and p2 or nil)
          or { unclear = "its measured point there is not known" } }
    else
      -- (why, where no percentile of E2E latency is shared: this one has none, or none has any)
      local lat_why = e.unshared or not lat_col and "no treatment has a percentile of E2E latency at its load points"
      -- (unknown = true: not beaten, not placed; the front is of those with both figures only)
      m.pareto_unknown[#m.pareto_unknown + 1] = x.label
      m.pareto_excluded[#m.pareto_excluded + 1] = { label = x.label, unknown = true,
        why = not x.max_rps and ("max sustained throughput unknown: " .. tostring(x.max_rps_why))
          or ("%s at the common load unknown%s"):format(m.pareto_latency, lat_why and (": " .. lat_why) or "") }
    end
  end
  -- treatments whose requests differ in length (beyond the workload match's tolerance)
  -- are different workloads: neither beats the other, whatever the figures
  m.pareto_not_compared = {}
  -- c is beaten by o only where it is worse on both axes (no better on either by the figures)
  -- and worse beyond noise on at least one: one draw of a p90 differs by 10 % between two
  -- runs of one configuration, and read off the figures alone six copies of one server split
  -- the front (newuser38b: a front of 3). Each axis is first better by a gap a reader can act
  -- on, at least the practical threshold (decision.MIN_EFFECT, as every verdict), then shown
  -- beyond its noise:
  -- - throughput, the rule the ranking orders max sustained throughput by: c's limit lies
  --   between its figure and its ceiling (the most it achieved at any load; one never
  --   saturated has no upper end), and the threshold applies to the least gap the two
  --   limits' spans allow, o's figure against c's ceiling (30 against ≥ 40 req/s is no
  --   domination where c achieved 39.8 at some load: its limit may be 39.8); where both max
  --   sustained points have repeats, their test (Welch, or the exact test:
  --   decision.repeat_test) must show o higher at p < alpha; else the measured loads order
  --   them (c never achieved o's figure at any load), untested, as the ranking's order_certain;
  -- - latency: both latencies' 95 % intervals (latency_noise: the repeats', else the
  --   percentile's from its requests) apart; where either has no per-request data (a summary
  --   file: its noise unknown), the least gap at least decision.UNKNOWN_NOISE_GAP, the rule
  --   one measured percentile of unknown noise orders capacities by; where the noise is
  --   there but its size cannot be told (too few effective requests, identical repeats), no
  --   domination on latency.
  local function tp_span(x)
    local sat = x.saturation
    return decision.capacity_span { kind = sat.none and "never_violated" or "saturated", rps = x.max_rps,
      ceiling_rps = not sat.none and sat.ceiling_rps or nil }
  end
  local function rate(v) return metrics.rate_text(v) end
  local function tp_better(o, c)
    local o_lo = tp_span(o.x)
    local _, c_hi = tp_span(c.x)
    local least = decision.effect_pct(c_hi, o_lo)
    return least ~= nil and least >= decision.MIN_EFFECT
  end
  -- whether o's throughput is above c's beyond noise, and the words for it
  local function tp_shown(o, c)
    local xc, xo = throughput_samples(c.x), throughput_samples(o.x)
    local _, c_hi = tp_span(c.x)
    local loads = ("%s never achieved more than %s at any load"):format(c.x.label, rate(c_hi))
    -- (the repeats' test only where both max sustained points are one offered load: at two
    -- loads it compares the loads, not the treatments - a kept-up point's throughput is its
    -- sending rate, so 5 against 4 req/s is "significant" by construction, and which
    -- treatment passed the higher load by its rule was chance in an A/A set, audit51b D2;
    -- there the measured loads' rule below, with the rates' noise, decides)
    local pc, po = c.x.max_point, o.x.max_point
    if xc and xo and not lp.same_load(pc, po) then
      xc, xo = nil, nil
    end
    if xc and xo then
      -- (the ranking's test, its interval held to the practical threshold: decision.sized_repeat_test)
      local test = decision.sized_repeat_test(xc, xo, "over the max sustained points' repeats")
      local v = decision.verdict { key = "throughput_req_s", a = c.tp, b = o.tp, test = test, label_a = c.x.label,
        label_b = o.x.label, token_gap = tgap(c.x, o.x) }
      local ptext = v.p_value and decision.test_p_text(test, decision.fmt_p(v.p_value)) or v.note or "untested"
      if v.p_value and v.size and v.note then ptext = ptext .. "; " .. v.note end
      if v.verdict == "B better" then return true, ("shown by repeats, %s; %s"):format(ptext, loads) end
      return false, ("the repeats do not show it (%s)"):format(ptext)
    end
    -- (spans apart by less than the noise of the two rates order nothing: the ranking's rule,
    -- decision.sustained_order, each run's divisor read off its figure)
    local sc, so_ = c.x.saturation, o.x.saturation
    local nc = (c.x.max_rps or 0) > 0 and sc.max_sustained_rps and sc.max_sustained_rps / c.x.max_rps or 1
    local no = (o.x.max_rps or 0) > 0 and so_.max_sustained_rps and so_.max_sustained_rps / o.x.max_rps or 1
    local order, sp = decision.sustained_order(sc, nc, so_, no, nil, nil, tgap(c.x, o.x))
    -- (an order the two treatments' token lengths can explain orders nothing: fixb52; token_reason,
    -- the one text of such orders)
    local tr = order ~= "b" and token_reason(sp, c.x.label, o.x.label, rate)
    if tr then return false, tr end
    if order ~= "b" and sp and sp.within_noise == "b" then
      return false, ("the measured loads put it above, %s"):format(decision.sustained_noise_text(sp, rate,
        o.x.label, c.x.label))
    end
    return true, ("untested, but the measured loads order them: %s"):format(loads)
  end
  -- (how far o's latency may be lower than c's for its requests' token lengths alone: a factor
  -- its figures are held to, 1 where they are alike within noise; decision.token_favour)
  local function lat_tok(o, c) return (decision.token_favour(lat_key, tgap(c.x, o.x) or {}, "b")) end
  local function lat_gap(o, c, measured)
    local f = lat_tok(o, c)
    local gap = decision.effect_pct(o.lat * f, c.lat)
    if not (gap and gap >= decision.MIN_EFFECT) then return false end
    return not measured or o.lat_hi * f < c.lat_lo
  end
  local function noise_text(z)
    if z.noise.hi == math.huge then return ("%s or more"):format(fmt(lat_key, z.noise.lo)) end
    return ("%s–%s"):format((fmt(lat_key, z.noise.lo):gsub(" ms$", "")), fmt(lat_key, z.noise.hi))
  end
  -- whether o's latency is below c's beyond noise, and the words for it
  local function lat_shown(o, c)
    local no, nc = o.noise, c.noise
    if no.lo and nc.lo then
      local how = no.basis == "repeats" and nc.basis == "repeats" and "the repeats' 95 % intervals"
        or no.basis == "requests" and nc.basis == "requests"
          and "the 95 % intervals of the two percentiles, from each one's requests (order statistics, n / design "
            .. "effect)"
        or "their 95 % intervals (from repeats, or from the requests)"
      local f = lat_tok(o, c)
      if no.hi < nc.lo and no.hi * f >= nc.lo then
        return false, ("%s are apart, %s against %s, but no further than the requests' token lengths alone can "
          .. "move them (%s's up to %.1f %% lower for them)"):format(how, noise_text(o), noise_text(c), o.x.label,
          (1 - 1 / f) * 100)
      end
      if no.hi < nc.lo then
        return true, ("beyond noise: %s are apart, %s against %s"):format(how, noise_text(o), noise_text(c))
      end
      return false, ("%s overlap, %s against %s"):format(how, noise_text(o), noise_text(c))
    end
    if no.unclear or nc.unclear then
      local z = no.unclear and o or c
      return false, ("%s's noise there cannot be told: %s"):format(z.x.label, z.noise.unclear)
    end
    -- (a summary file: the least gap the measured spans allow against the unknown noise's rule)
    -- (on the scale of every unknown-noise gap, the capacities' too: the Change column's, the
    -- higher latency against the lower, decision.order_gap_pct; of their mean before truth56)
    local least = decision.order_gap_pct(o.lat_hi, c.lat_lo)
    local z = no.unknown and o or c
    local why = ("%s has %s"):format(z.x.label, z.noise.unknown)
    if least and least >= decision.UNKNOWN_NOISE_GAP then
      return true, ("beyond noise: %.1f %% apart, at least the %g %% a figure of unknown noise needs, as %s"):format(
        least, decision.UNKNOWN_NOISE_GAP, why)
    end
    return false, ("%s apart, less than the %g %% a figure of unknown noise needs, as %s"):format(
      least and ("%.1f %%"):format(least) or "too little", decision.UNKNOWN_NOISE_GAP, why)
  end
  -- How o's figures beat c's ("both", "throughput", "latency"), or nil: o no worse on either
  -- axis and better by the practical threshold on one (a max that is only a lower bound,
  -- never saturated, may be higher in truth: never beaten). With measured = true, the
  -- latencies as the measurements place them (lat_lo..lat_hi: a point's own value, or the
  -- span of the two measured points an interpolated value lies between): o is no worse only
  -- where its span ends at or below c's, and better only where it ends below it. A value
  -- interpolated across a wide gap in one treatment's load steps would else "lose" to
  -- another's measured nearer the load, with nothing measured to show it (a subset of the
  -- other's load points is beaten by itself).
  -- (bound = true: as if c's figure were its limit, for what the figures alone would say of
  -- a c that never saturated, said beside the front: never a domination)
  local function fig_beats(o, c, measured, bound)
    if o == c or (c.x.saturation.none and not bound) or o.tp < c.tp then return nil end
    local no_worse = o.lat <= c.lat
    if measured then no_worse = o.lat_hi <= c.lat_lo end
    local tp_b, lat_b = tp_better(o, c), lat_gap(o, c, measured)
    if not (no_worse and (tp_b or lat_b)) then return nil end
    return tp_b and lat_b and "both" or tp_b and "throughput" or "latency"
  end
  -- Of the axes the figures put o ahead on (fig), those shown beyond noise ("both",
  -- "throughput", "latency" or nil), and each axis's words.
  local function shown_beats(o, c, fig)
    local tp_ok, tp_why, lat_ok, lat_why = false, nil, false, nil
    if fig == "both" or fig == "throughput" then tp_ok, tp_why = tp_shown(o, c) end
    if fig == "both" or fig == "latency" then lat_ok, lat_why = lat_shown(o, c) end
    local on = tp_ok and lat_ok and "both" or tp_ok and "throughput" or lat_ok and "latency" or nil
    return on, tp_why, lat_why
  end
  local function would_text(how)
    return how == "both" and "on both" or how == "throughput" and "on max sustained throughput"
      or ("on %s"):format(m.pareto_latency)
  end
  -- the figures and the evidence on each axis ("max sustained throughput 9.553 req/s against
  -- 9.309 req/s, no higher beyond noise (...); End-to-end latency p90 at 8 req/s offered ...")
  local function pareto_evidence(c, o, tp_why, lat_why)
    local e = ("max sustained throughput %s against %s (%s); %s at %s %s against %s (%s)"):format(
      rate(o.tp), rate(c.tp), tp_why or "no lower by the figures", m.pareto_latency, m.common_text,
      fmt(lat_key, o.lat), fmt(lat_key, c.lat), lat_why or "no higher by the figures")
    for _, z in ipairs { o, c } do
      -- an interpolated latency counts only as the span measured around it: said with it
      if z.between then
        e = e .. ("; %s's is interpolated between %s and %s measured around it"):format(z.x.label,
          fmt(lat_key, z.between.lo), fmt(lat_key, z.between.hi))
      end
    end
    for _, y in ipairs { c.x, o.x } do
      if y.saturated_at_common then
        e = e .. ("; %s's latency there is an overloaded server's (saturated at that load)"):format(y.label)
      end
      if y.failing_at_common then
        e = e .. ("; %s's latency there is of the requests that succeeded only (it failed requests at that load)")
          :format(y.label)
      end
      if y.mild_at_common then
        e = e .. ("; %s is %s there"):format(y.label, y.mild_at_common)
      end
    end
    return e
  end
  -- where a latency was interpolated: the measured values that bound it, in words
  local function span_text(c)
    local b = c.between
    if not b then return ("%s's measured there, %s"):format(c.x.label, fmt(lat_key, c.lat)) end
    return ("%s's between its load points at %s and %s (%s and %s)"):format(c.x.label,
      lp.load_text(m.common_axis, b.lo_load), lp.load_text(m.common_axis, b.hi_load), fmt(lat_key, b.lo),
      fmt(lat_key, b.hi))
  end
  -- A c that never saturated: its max sustained throughput is a lower bound, which may be
  -- above any other's figure in truth, so no other is known to be no worse on throughput and
  -- none beats it; but where another's figures are ahead of it (no lower throughput, and a
  -- latency no higher and lower by the threshold, or the throughput ahead too), the front
  -- says so and why it is not compared (pareto_not_compared, bound = true), never silence.
  local function bound_not_compared(c)
    for _, o in ipairs(cand) do
      local fig = fig_beats(o, c, true, true) or fig_beats(o, c, false, true)
      if fig then
        local _, lw = lat_shown(o, c)
        local eff = decision.effect_pct(c.tp, o.tp)
        m.pareto_not_compared[#m.pareto_not_compared + 1] = { label = c.x.label, other = o.x.label,
          would = would_text(fig), lower_bound = true,
          why = ("%s never saturated: its max sustained throughput, ≥ %s, is a lower bound, which may be above %s's "
            .. "%s in truth: untested, and either may be higher, as the ranking says, whatever the figures' gap of "
            .. "%s; so %s is not known to be no worse on throughput and beats it on nothing; %s %s against %s: "
            .. "%s"):format(
            c.x.label, rate(c.tp), o.x.label, rate(o.tp), eff and gap_pct(eff) or "an unknown amount",
            o.x.label, m.pareto_latency, fmt(lat_key, o.lat), fmt(lat_key, c.lat), lw or "no higher by the figures") }
      end
    end
  end
  for _, c in ipairs(cand) do
    local by, how, tp_why, lat_why
    local noise = {}
    if c.x.saturation.none then bound_not_compared(c) end
    for _, o in ipairs(cand) do
      local measured = fig_beats(o, c, true)
      local fig = measured or fig_beats(o, c, false)
      if fig then
        local differ = decision.token_difference_texts(c.x.requests_set, o.x.requests_set)
        if #differ > 0 then
          m.pareto_not_compared[#m.pareto_not_compared + 1] = { label = c.x.label, other = o.x.label,
            would = would_text(fig), why = ("the workloads differ: %s"):format(table.concat(differ, "; ")) }
        elseif c.x.saturated_at_common and o.x.saturated_at_common then
          -- both overloaded there: each latency is its queue, which grows with the run's
          -- length, so neither is "no worse" on latency (the latency chart's rule): no evidence
          m.pareto_not_compared[#m.pareto_not_compared + 1] = { label = c.x.label, other = o.x.label,
            would = would_text(fig), saturated = true,
            why = ("both are saturated at the common load (%s): %s %s against %s is each overloaded server's "
              .. "queue, which grows with the run's length, not comparable, so %s is not known to be no worse on "
              .. "it"):format(m.common_text or "", m.pareto_latency, fmt(lat_key, o.lat), fmt(lat_key, c.lat),
              o.x.label) }
        elseif measured then
          local on, tw, lw = shown_beats(o, c, measured)
          if on then
            by, how, tp_why, lat_why = o, on, tw, lw
            break
          end
          -- ahead by the figures, within noise on every axis they put o ahead on
          local why = {}
          if tw then
            why[#why + 1] = ("max sustained throughput %s against %s: %s"):format(rate(o.tp), rate(c.tp), tw)
          end
          if lw then
            why[#why + 1] = ("%s %s against %s: %s"):format(m.pareto_latency, fmt(lat_key, o.lat), fmt(lat_key, c.lat),
              lw)
          end
          noise[#noise + 1] = { label = c.x.label, other = o.x.label, would = would_text(measured),
            why = table.concat(why, "; ") }
        else
          -- by the figures o would beat c, but only through an interpolated latency the
          -- measurements around it do not bear out
          m.pareto_not_compared[#m.pareto_not_compared + 1] = { label = c.x.label, other = o.x.label,
            would = would_text(fig), interpolated = true,
            why = ("%s at %s is %s for %s against %s for %s by the figures, but interpolated: the measurements "
              .. "place %s and %s, which overlap, so which is lower is not shown"):format(m.pareto_latency,
              m.common_text, fmt(lat_key, o.lat), o.x.label, fmt(lat_key, c.lat), c.x.label, span_text(o),
              span_text(c)) }
        end
      end
    end
    if by then
      -- beaten beyond noise on both axes, or on one and no worse on the other by the figures
      -- (equal figures, or a gap within the threshold or the noise)
      local beaten = how == "both" and "beaten on both"
        or how == "throughput" and ("beaten on max sustained throughput, no worse on %s"):format(m.pareto_latency)
        or ("beaten on %s, no worse on max sustained throughput"):format(m.pareto_latency)
      m.dominated[#m.dominated + 1] = { label = c.x.label, by = by.x.label, beaten = beaten, on = how,
        evidence = pareto_evidence(c, by, tp_why, lat_why) }
    else
      m.front[#m.front + 1] = c.x.label
      -- on the front though another's figures are ahead: said, with why the noise hides it
      for _, d in ipairs(noise) do m.pareto_within_noise[#m.pareto_within_noise + 1] = d end
    end
  end
  -- one saturated already at its lowest load has no max sustained throughput, but is not
  -- "not beaten" by one the measured loads put above it (the Verdict's order): beaten on
  -- throughput there, and no worse on latency where that one's measured latency at the common
  -- load is at or below its own, an overloaded server's queue, which only grows with the
  -- run's length (never where both are saturated there: two queues, not comparable, said)
  local unknown_left = {}
  for _, l in ipairs(m.pareto_unknown) do
    local x, beaten
    for _, y in ipairs(T) do if y.label == l then x = y end end
    local e = x and x.at_common[lat_key]
    for _, o in ipairs(x and cand or {}) do
      local sp, held
      if not beaten then sp, held = above_saturated_lowest(x, o.x) end
      if held then
        -- (an order the two treatments' token lengths can explain beats nothing: why, token54)
        m.pareto_not_compared[#m.pareto_not_compared + 1] = { label = l, other = o.x.label,
          would = "on max sustained throughput", token = true, why = held }
      end
      if sp then
        local lat = e and e.value
        local loads = ("untested, but the measured loads order them: %s sustained %s, %s saturated already at its "
          .. "lowest load and never achieved more than %s at any load"):format(o.x.label, rate(sp.lb), l,
          rate(x.saturation.ceiling_rps))
        if lat and not o.x.saturated_at_common and o.lat_hi <= lat then
          -- (an interpolated latency counts only as the span measured around it)
          local o_lat = o.between and ("%s, measured %s–%s"):format(fmt(lat_key, o.lat), fmt(lat_key, o.lat_lo),
            fmt(lat_key, o.lat_hi)) or fmt(lat_key, o.lat)
          beaten = { label = l, by = o.x.label, on = "throughput",
            beaten = ("beaten on max sustained throughput, no worse on %s"):format(m.pareto_latency),
            evidence = ("max sustained throughput %s against at most %s (%s); %s at %s %s against %s (%s)"):format(
              rate(o.tp), rate(x.saturation.ceiling_rps), loads, m.pareto_latency, m.common_text, o_lat,
              fmt(lat_key, lat), x.saturated_at_common and ("%s is saturated there: its figure is an overloaded "
              .. "server's queue, which only grows with the run's length"):format(l) or "no higher by the figures") }
        else
          m.pareto_not_compared[#m.pareto_not_compared + 1] = { label = l, other = o.x.label,
            would = "on max sustained throughput", saturated = o.x.saturated_at_common or nil,
            why = ("%s; but %s at %s is %s"):format(loads, m.pareto_latency, m.common_text or "the common load",
              not lat and "unknown for " .. l or o.x.saturated_at_common
                and ("an overloaded server's queue in both (saturated there), not comparable")
                or ("%s for %s against %s for %s, higher"):format(fmt(lat_key, o.lat), o.x.label,
                  fmt(lat_key, lat), l)) }
        end
      end
    end
    if beaten then
      m.dominated[#m.dominated + 1] = beaten
      for i = #m.pareto_excluded, 1, -1 do
        if m.pareto_excluded[i].label == l then table.remove(m.pareto_excluded, i) end
      end
    else
      unknown_left[#unknown_left + 1] = l
    end
  end
  m.pareto_unknown = unknown_left
  -- the unknown ones too: no other is shown to beat them
  for _, l in ipairs(m.pareto_unknown) do m.front[#m.front + 1] = l end
  -- (each domination per GPU, where the GPU counts differ or some are unknown: said beside
  -- it, and the ones beaten on totals only in the summary too)
  if m.cost or m.pareto_unlike then M.dominated_per_gpu(m, T) end
  -- the summary says what the Pareto section says, with the same evidence
  if #m.dominated > 0 then
    local parts, all_both = {}, true
    for _, d in ipairs(m.dominated) do if d.on ~= "both" then all_both = false end end
    for _, d in ipairs(m.dominated) do
      parts[#parts + 1] = ("%s by %s"):format(d.label, d.by) .. (all_both and "" or (": " .. d.beaten))
    end
    m.verdict = m.verdict .. (" On max sustained throughput and %s at the common load together, %sbeyond noise on "
      .. "at least one of them (see the Pareto front): %s %s (%s)."):format(m.pareto_latency,
      (m.cost or m.pareto_unlike) and "on totals, " or "",
      #parts == 1 and "one treatment is" or (#parts .. " treatments are"),
      all_both and "beaten on both" or "beaten", table.concat(parts, "; "))
    if m.pareto_not_beaten_per_gpu then
      local t = m.pareto_not_beaten_per_gpu
      m.verdict = ("%s %s."):format(m.verdict, t:sub(1, 1):upper() .. t:sub(2))
    end
  end
  -- a place whose figure its own files leave in doubt: said beside it and in the verdict
  mark_in_doubt(m, list, by_cap and slo or nil)
  -- result files --tolerant left out: said in the verdict, as compare.lua's Verdict says them
  -- (llmd.report.left_out_text; fixj45: only the status column said them)
  local left = {}
  for _, t in ipairs(list) do left[#left + 1] = require("llmd.report").left_out_text(t.label, t.runs or {}) end
  if #left > 0 then
    local warn = (" Warning: %s."):format(table.concat(left, "; "))
    m.verdict = m.verdict .. warn
    if m.verdict_line then m.verdict_line = m.verdict_line .. warn end
  end
  M.gpu_figures(m, T, by_cap)
  return m
end

-- A ranking place's figure per GPU (x: the treatment, r: its place): value and text, "≥ 45.679
-- req/s per GPU", "< 1.777 req/s per GPU" (a capacity below the lowest load: that load's rate
-- per GPU), each as its total says it, divided by the treatment's accelerators; N/A with why
-- where the count or the figure is unknown.
local function per_gpu_figure(x, by_cap, r)
  if r.failed then return nil, "" end
  if not (x and x.gpus) then return nil, metrics.na("GPU count unknown: give --gpus LABEL=N") end
  local function f(v) return metrics.rate_text(v / x.gpus) .. " per GPU" end
  if by_cap then
    local c = x.capacity
    if c.kind == "below_lowest" and c.lowest_rps then
      return c.lowest_rps / x.gpus, figure_prefix(x, true) .. f(c.lowest_rps)
    end
    if lp.capacity_has_figure(c) and c.rps then return c.rps / x.gpus, figure_prefix(x, true) .. f(c.rps) end
    return nil, metrics.na("capacity at SLO unknown")
  end
  if x.max_rps then return x.max_rps / x.gpus, (x.saturation.none and "≥ " or "") .. f(x.max_rps) end
  return nil, metrics.na("max sustained throughput unknown")
end

-- How each domination of the Pareto front on totals (m.dominated) compares per GPU, where the
-- treatments' GPU counts differ or some are unknown (m.cost; T the treatments): on max
-- sustained throughput, by compare.lua's rule (decision.sustained_order), beside a latency
-- read at one total load, which is no load per GPU (d.per_gpu); and the treatments beaten on
-- totals whose beater the measured loads do not put above them per GPU (it is above, or they
-- cannot order the two), named in m.pareto_not_beaten_per_gpu: the front per GPU may hold
-- them (a 2-GPU treatment at 1.8 times a 1-GPU one's throughput beats it on totals only).
function M.dominated_per_gpu(m, T)
  local by = {}
  for _, x in ipairs(T) do by[x.label] = x end
  local function rate(v) return metrics.rate_text(v) .. " per GPU" end
  local above, open = {}, {}
  for _, d in ipairs(m.dominated) do
    local c, o = by[d.label], by[d.by]
    if not (c and o and c.gpus and o.gpus) then
      d.per_gpu = ("on totals; not compared per GPU: the GPU count of %s is unknown"):format(
        c and c.gpus and d.by or d.label)
    else
      local order, sp = decision.sustained_order(c.saturation, c.gpus, o.saturation, o.gpus, decision.MIN_EFFECT, nil,
        tgap(c, o))
      local fig = ("%s %s%s, %s %s%s"):format(d.label, c.saturation.none and "≥ " or "",
        sp and rate(sp.la) or "unknown", d.by, o.saturation.none and "≥ " or "", sp and rate(sp.lb) or "unknown")
      d.per_gpu = ("on totals; per GPU, max sustained throughput %s: %s"):format(fig,
        order == "b" and ("%s above, as the measured loads order them"):format(d.by)
        or order == "a" and ("%s above, as the measured loads order them: not beaten per GPU"):format(d.label)
        -- (a least gap below the practical threshold, the largest beyond it: no order,
        -- decision.sustained_order, the one at least as high said)
        or sp and sp.least_below_threshold and ("%s at least as high by the measured loads%s: the gap may be "
          .. "negligible, %s"):format(
          sp.margin_higher == "b" and d.by or d.label,
          (decision.least_gap_text(sp, gap_pct, decision.MIN_EFFECT, rate):gsub("^ by", ", by"):gsub("^: ", ", ")),
          decision.AT_LEAST_NO_WINNER)
        -- (an order, or a gap within the practical threshold, that the two treatments' token
        -- lengths hold: compare.lua's words, token_reason; it read "the measured loads cannot
        -- order them per GPU", and a gap within the threshold so held still did, token54)
        or token_reason(sp, d.label, d.by, rate) and ("%s: not shown to differ per GPU"):format(
          token_reason(sp, d.label, d.by, rate))
        or sp and sp.below_threshold and ("%s above by the measured loads, but only by %.1f %%%s within "
          .. "the practical threshold of %g %%: about the same per GPU"):format(
          sp.below_threshold == "b" and d.by or d.label, sp.margin_pct,
          decision.largest_within_text(sp.margin_max_pct), decision.MIN_EFFECT)
        -- (spans the loads put apart by less than the noise of their rates: compare.lua's words,
        -- decision.sustained_noise_text; "cannot order them" read as spans that overlap)
        or sp and sp.within_noise and ("the measured loads put %s above (%s never achieved more than %s at any "
          .. "load), %s: not shown to differ per GPU"):format(sp.within_noise == "b" and d.by or d.label,
          sp.within_noise == "b" and d.label or d.by, rate(sp.within_noise == "b" and sp.ha or sp.hb),
          decision.sustained_noise_text(sp, rate, sp.within_noise == "b" and d.by or d.label,
            sp.within_noise == "b" and d.label or d.by))
        or "the measured loads cannot order them per GPU")
      if order == "a" then
        above[#above + 1] = ("%s (per GPU above %s on max sustained throughput, by the measured loads)"):format(
          d.label, d.by)
      elseif order ~= "b" then
        open[#open + 1] = ("%s (per GPU not shown below %s on max sustained throughput)"):format(d.label, d.by)
      end
    end
  end
  local named = {}
  for _, l in ipairs(above) do named[#named + 1] = l end
  for _, l in ipairs(open) do named[#named + 1] = l end
  m.pareto_not_beaten_per_gpu = #named > 0 and ("beaten on totals only: %s; a front per GPU may hold %s"):format(
    table.concat(named, ", "), #named == 1 and "it" or "them") or nil
end

-- The GPU counts beside the ranking and the Pareto front (m: M.model's, T its treatments):
-- with any count known, each place's GPUs and its figure per GPU (r.gpus, r.per_gpu_value,
-- r.per_gpu_text; m.gpu_columns); where the counts differ or some are unknown (m.cost), the
-- front is on totals, not like for like on cost (m.pareto_cost), and each domination says
-- how the two compare per GPU on max sustained throughput, by compare.lua's rule
-- (decision.sustained_order), beside a latency read at one total load, which is no load
-- per GPU (d.per_gpu).
function M.gpu_figures(m, T, by_cap)
  local by = {}
  for _, x in ipairs(T) do
    by[x.label] = x
    if x.gpus then m.gpu_columns = true end
  end
  if m.gpu_columns then
    -- the rank per GPU beside the rank on totals: the cost note's where the counts differ
    -- (its order per GPU and evidence), the rank itself where every count is the same (each
    -- figure divided by one number: the same order, the same evidence); none where a count
    -- is unknown (r.per_gpu_rank_why)
    local per_rank = {}
    for _, p in ipairs(m.cost and m.cost.per_gpu or {}) do per_rank[p.label] = p.rank_text end
    for _, r in ipairs(m.ranking) do
      r.gpus = by[r.label] and by[r.label].gpus or nil
      r.per_gpu_value, r.per_gpu_text = per_gpu_figure(by[r.label], by_cap, r)
      if r.rank_text then
        r.per_gpu_rank = m.cost and (per_rank[r.label] or (m.cost.unranked and r.rank_text))
          or (not m.cost and r.rank_text) or nil
        if not r.per_gpu_rank then
          local unknown = m.cost and m.cost.unknown or {}
          r.per_gpu_rank_why = ("the GPU count of %s unknown"):format(#unknown > 0 and table.concat(unknown, ", ")
            or "a treatment")
        end
      end
    end
  end
  if not (m.cost or m.pareto_unlike) then return end
  local counts = {}
  for _, x in ipairs(T) do
    if x.status ~= "failed" then
      counts[#counts + 1] = x.gpus and ("%s %s"):format(x.label, require("llmd.template").helpers.count(x.gpus, "GPU"))
        or ("%s unknown"):format(x.label)
    end
  end
  -- what differs: the GPU counts, or (none known) the setups' replicas, the counts unknown
  local replicas = (m.cost or m.pareto_unlike or {}).replicas
  local unlike = replicas and ("whose replicas differ (%s) and whose GPU counts are unknown"):format(replicas)
    or ("on different or unknown numbers of GPUs (%s)"):format(table.concat(counts, ", "))
  m.pareto_cost = ("the front is on totals, of treatments %s: it compares different amounts of hardware, and a "
    .. "latency at one total load is not one at the same load per GPU, so no domination below is one per GPU")
    :format(unlike)
  -- (the treatments beaten on totals whose beater the order per GPU does not put above them)
  if m.pareto_not_beaten_per_gpu then
    m.pareto_cost = ("%s; %s"):format(m.pareto_cost, m.pareto_not_beaten_per_gpu)
  end
end

-- Rendering --------------------------------------------------------------------------------

local function num(key, v, why, slo)
  -- (a rate in compare.lua's precision, metrics.rate_text's)
  return v and metrics.format(key, v, nil, { bare = true, limit = slo and lp.slo_limit(slo, key),
    decimals = key == "throughput_req_s" and metrics.RATE_DECIMALS or nil })
    or metrics.na(why or "not in the results")
end

-- What the templates print: the model plus its figures as text.
-- How the ranking table below shares its ranks, from that table (ranking: m.ranking, its
-- rows with rank, tied and, across workloads, workload): the first shared rank as it reads,
-- "here four at "1=", none after them", "here two at "1=", then 3"; "here no place shares a
-- rank" where none does; "here no place is ranked ..." where every place is "-". Never a
-- fixed example the table may contradict.
local NUM_WORDS = { "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten" }
function M.rank_share_text(ranking)
  for _, r in ipairs(ranking or {}) do
    if r.rank and r.tied then
      -- (the places of that rank in its workload, wherever they stand: ranks from a partial
      -- order need not be contiguous, M.partial_ranks; then the next rank after it)
      local n, nxt = 0, nil
      for _, q in ipairs(ranking) do
        if q.workload == r.workload and q.rank then
          if q.rank == r.rank then n = n + 1 end
          if q.rank > r.rank and (not nxt or q.rank < nxt) then nxt = q.rank end
        end
      end
      local after = nxt and (", then %d"):format(nxt) or ", none after them"
      return ('here %s at "%d="%s'):format(NUM_WORDS[n] or tostring(n), r.rank, after)
    end
  end
  -- (every place "-": nothing ranked, which "no place shares a rank" would not say)
  local any = false
  for _, r in ipairs(ranking or {}) do if r.rank then any = true end end
  if not any and ranking and #ranking > 0 then
    return 'here no place is ranked (each is "-": its figure unknown or its run failed), so none shares a rank'
  end
  return "here no place shares a rank"
end

function M.present(m, opts)
  opts = opts or {}
  local v = { experiment = opts.experiment or false, unit = opts.unit or false,
    generated = os.date("!%Y-%m-%d %H:%M:%S UTC", opts.generated or os.time()),
    verdict = m.verdict, verdict_line = m.verdict_line or m.verdict, slo_text = m.slo_text or false,
    rate_like = m.rate_like or false,
    -- the --slo suggested where none was given: on a TTFT percentile every treatment's files
    -- record (llmd.report.slo_suggestion, compare.lua's choice of one)
    slo_example = (function()
      local lists = {}
      for _, x in ipairs(m.treatments or {}) do lists[#lists + 1] = x.points or {} end
      return require("llmd.report").slo_suggestion(lists)
    end)(),
    rank_by = m.rank_by, family = m.family, ranking = m.ranking, front = m.front, dominated = m.dominated,
    pareto_excluded = m.pareto_excluded, rank_share_text = M.rank_share_text(m.ranking),
    pareto_unknown = #(m.pareto_unknown or {}) > 0 and m.pareto_unknown or false,
    pareto_latency = m.pareto_latency, common_rps = m.common_rps, common_why = m.common_why,
    pareto_latency_note = m.pareto_latency_note or false,
    -- the places in doubt, each with the data checks that put it there (mark_in_doubt)
    in_doubt_notes = (function()
      local notes = {}
      for _, d in ipairs(m.in_doubt or {}) do
        notes[#notes + 1] = ("%s%s: %s"):format(d.label, d.workload and (" (" .. d.workload .. ")") or "",
          table.concat(d.checks, "; "))
      end
      return #notes > 0 and notes or false
    end)(),
    -- the places below are on totals: what the headline says of the GPU counts, per workload
    cost_notes = (function()
      local notes = {}
      if m.cost then notes[1] = m.cost.text end
      if m.cost_every then return { m.cost_every } end
      for _, w in ipairs(m.workloads or {}) do
        if w.cost then notes[#notes + 1] = (#m.workloads > 1 and (w.workload .. ": ") or "") .. w.cost end
      end
      return #notes > 0 and notes or false
    end)(),
    common_axis = m.common_axis,
    -- GPUs and the ranked figure per GPU beside each place, where any count is known; the
    -- Pareto front's note that it is on totals where the counts differ or are unknown
    gpu_columns = m.gpu_columns or false,
    -- a rank per GPU beside the rank where the counts differ or some are unknown (where they
    -- are all the same it is the rank itself: treatment_ranking.csv only)
    rank_per_gpu_column = m.gpu_columns and (m.cost ~= nil or (function()
      for _, w in ipairs(m.workloads or {}) do if w.cost then return true end end
      return false
    end)()) or false,
    pareto_costs = m.pareto_cost and { m.pareto_cost } or m.pareto_costs or false,
    pareto_not_compared = m.pareto_not_compared or {}, pareto_within_noise = m.pareto_within_noise or {},
    common_text = m.common_text, common_load = m.common_load,
    common_sustained = m.common_sustained or false, saturated_at_common = m.saturated_at_common or {},
    failing_at_common = m.failing_at_common or {}, mild_at_common = m.mild_at_common or {},
    common_unlike = m.common_unlike or {}, latency_labels = {}, treatments = {},
    workloads = m.workloads or false, common_by_workload = m.common_by_workload or false,
    workload_source = m.workload_source or false, workload_apart = m.workload_apart or {},
    -- (in req/s only: this report shows no capacity in output tok/s)
    capacity_definition = decision.CAPACITY_DEFINITION_RPS, throughput_definition = lp.THROUGHPUT_DEFINITION }
  -- the cost note (figures per GPU, their order, what would settle it: often 170 words) is
  -- said once in the report, above the ranking it qualifies ("These places are on totals");
  -- the Verdict says its first sentence and where the rest is, so the decision on totals is
  -- not buried under it, and its line no longer repeats what would settle it (newuser49 #10:
  -- the same paragraph three times). treatments.json keeps the whole verdict.
  for _, note in ipairs(v.cost_notes or {}) do
    local full = note:gsub("^[^:]-: (Not like for like on cost)", "%1")
    local a, b = v.verdict:find(full, 1, true)
    local first = full:match("^(.-%.) ")
    if a and first then
      v.verdict = v.verdict:sub(1, a - 1) .. first:sub(1, -2)
        .. "; the figures per GPU and their order are above the ranking (\"These places are on totals\")."
        .. v.verdict:sub(b + 1)
    end
  end
  for _, settle in ipairs(m.cost_settles or { m.cost and m.cost.settle_first or nil }) do
    local a, b = v.verdict_line:find(" " .. settle, 1, true)
    if a and v.cost_notes and v.verdict_line ~= v.verdict then
      v.verdict_line = v.verdict_line:sub(1, a - 1)
        .. " What would settle it: above the ranking." .. v.verdict_line:sub(b + 1)
    end
  end
  for _, key in ipairs(m.latency_keys or M.LATENCY_KEYS) do
    v.latency_labels[#v.latency_labels + 1] = metrics.get(key).label
  end
  -- a column at another percentile than p90, and one only some treatments have: why
  local choice = m.latency_choice or {}
  local other, notes = {}, {}
  for _, metric in ipairs { "ttft", "tpot", "itl", "latency" } do
    local col = choice[metric]
    if col and col.common and col.pct ~= "p90" then other[#other + 1] = metrics.get(col.key).label end
    if col and not col.common then
      local some = {}
      for j, h in ipairs(col.has) do if h then some[#some + 1] = col.labels[j] end end
      notes[#notes + 1] = ("%s: only %s %s it; the treatments share no percentile of it, so the others' "
        .. "cells are N/A."):format(metrics.get(col.key).label, table.concat(some, ", "),
        #some == 1 and "has" or "have")
    end
  end
  if #other > 0 then
    table.insert(notes, 1, ("%s: at the percentile every treatment's results hold (p90 is not in all of them).")
      :format(table.concat(other, ", ")))
  end
  v.latency_note = #notes > 0 and table.concat(notes, " ") or false
  -- the load-point tables' latency columns: TTFT, TPOT and E2E at the percentiles compared
  local PCT = { p50 = "p50", p90 = "p90", p95 = "p95", p99 = "p99", p999 = "p99.9" }
  local point_keys = {}
  for _, c in ipairs { { "ttft", "TTFT" }, { "tpot", "TPOT" }, { "latency", "E2E" } } do
    local col = choice[c[1]]
    local key = col and col.key or (c[1] .. "_p90_ms")
    point_keys[c[1]] = key
    v["point_" .. c[1] .. "_label"] = ("%s %s (ms)"):format(c[2], PCT[key:match("_(p%d+)_ms$")])
  end
  -- (the common load's rule names the error-rate SLO where one is given: llmd.loadpoints.failing)
  v.error_slo = false
  for _, s in ipairs(m.slo or {}) do if s.key == "error_rate_pct" then v.error_slo = true end end
  -- the load-point table's columns beyond its fixed ones: every SLO metric it does not show
  -- already (TTFT p95 for --slo ttft_p95_ms=300), with its unit
  v.slo_cols = {}
  local shown = { [point_keys.ttft] = true, [point_keys.tpot] = true, [point_keys.latency] = true,
    error_rate_pct = true }
  for _, s in ipairs(m.slo or {}) do
    if not shown[s.key] then
      local mm = metrics.get(s.key)
      v.slo_cols[#v.slo_cols + 1] = { key = s.key, label = ("%s (%s), SLO ≤ %g"):format(mm.label, mm.unit, s.max) }
    elseif s.key ~= "error_rate_pct" and not s.key:find("_p90_ms$") then
      -- a column at the percentile the treatments share (TTFT p95 of vLLM's sweeps) that an
      -- SLO is on: said in its head, as the SLO's own column would (the p90 columns as ever)
      for metric, key in pairs(point_keys) do
        if key == s.key then
          v["point_" .. metric .. "_label"] = ("%s, SLO ≤ %g"):format(v["point_" .. metric .. "_label"], s.max)
        end
      end
    end
  end
  for _, x in ipairs(m.treatments) do
    local t = { label = x.label, workload = x.workload or false, harness = x.harness or "?", n_points = x.n_points,
      repeats = x.repeats,
      max_text = x.max_rps and sustained_brief(x.max_rps, x.saturation) or metrics.na(x.max_rps_why),
      tps_text = x.max_output_tps and metrics.format("throughput_tok_s", x.max_output_tps)
        or metrics.na(not x.max_rps and "no max sustained load point"
          or x.max_point and x.max_point.na.throughput_tok_s or "output tok/s unknown at that point"),
      status_text = x.status == "ok" and status_ok_text(x) or ("failed: " .. table.concat(x.reasons, "; ")),
      latency_cells = {}, point_rows = {} }
    t.capacity_text = capacity_brief(x.capacity)
    t.saturated_at_common = x.saturated_at_common or false
    t.failing_at_common = x.failing_at_common or false
    t.mild_at_common = x.mild_at_common or false
    for _, e in ipairs(x.at_common) do t.latency_cells[#t.latency_cells + 1] = e.text end
    for _, p in ipairs(x.points) do
      local slo_cells = {}
      for _, c in ipairs(v.slo_cols) do
        slo_cells[#slo_cells + 1] = num(c.key, p.values[c.key], p.na[c.key], m.slo)
      end
      t.point_rows[#t.point_rows + 1] = {
        slo = slo_cells,
        offered = p.offered and (("%g"):format(p.offered) .. (p.load_type == "concurrency" and " users" or " req/s"))
          or "unknown",
        achieved = num("throughput_req_s", p.achieved_rps, "achieved rate unknown"),
        harness = num("throughput_req_s", p.harness_rps, "achieved rate unknown"),
        tps = num("throughput_tok_s", p.output_tps, p.na.throughput_tok_s),
        ttft = num(point_keys.ttft, p.values[point_keys.ttft], p.na[point_keys.ttft], m.slo),
        tpot = num(point_keys.tpot, p.values[point_keys.tpot], p.na[point_keys.tpot], m.slo),
        e2e = num(point_keys.latency, p.values[point_keys.latency], p.na[point_keys.latency], m.slo),
        err = num("error_rate_pct", p.values.error_rate_pct, p.na.error_rate_pct, m.slo),
        repeats = p.repeats,
      }
    end
    v.treatments[#v.treatments + 1] = t
  end
  -- the latency table's rows grouped by workload (each workload's rows together, in the
  -- order the workloads are ranked, each in the list's order), as only rows of one workload
  -- are compared; without workloads, the list's order
  v.latency_treatments = {}
  local wrank = {}
  for i, w in ipairs(m.workloads or {}) do wrank[w.workload] = i end
  for i, t in ipairs(v.treatments) do v.latency_treatments[i] = { t = t, i = i } end
  table.sort(v.latency_treatments, function(a, b)
    local wa, wb = wrank[a.t.workload] or 0, wrank[b.t.workload] or 0
    if wa ~= wb then return wa < wb end
    return a.i < b.i
  end)
  for i, x in ipairs(v.latency_treatments) do v.latency_treatments[i] = x.t end
  return v
end

-- Writes treatment_report.md, treatment_report.html and treatments.json into out.
-- Returns {md =, html =, text = the markdown, model = m, chart_failures = a line for each
-- chart gnuplot failed to draw, written without it}.
function M.write_report(out, list, opts)
  local template = require "llmd.template"
  local ws = require "llmd.workspace"
  local json = require "llmd.json"
  local host = require "llmd.host"
  local m = M.model(list, opts)
  -- treatments read from runs cut short: said first, before any ranking
  local partial = {}
  for _, t in ipairs(list) do
    for _, p in ipairs(t.partial or {}) do partial[#partial + 1] = ("treatment %s: %s"):format(t.label, p) end
    for _, p in ipairs(t.model_doubt or {}) do partial[#partial + 1] = ("treatment %s: %s"):format(t.label, p) end
  end
  if #partial > 0 then
    m.verdict = ("Warning: %s. %s"):format(table.concat(partial, ". Warning: "), m.verdict or "")
  end
  -- a treatment whose results name another model than its server does: the Verdict's first
  -- words too, as compare.lua's "like for like not verified: A's model in doubt" (README), before
  -- the ranking it puts in doubt; the whole warning is the paragraph under it
  local doubt = {}
  for _, t in ipairs(list) do
    for _, d in ipairs(t.model_doubt_short or {}) do doubt[#doubt + 1] = ("treatment %s's model in doubt: %s"):format(
      t.label, d) end
  end
  if #doubt > 0 then
    m.verdict_line = ("Warning: like for like not verified: %s (see below). %s"):format(table.concat(doubt, "; "),
      m.verdict_line or m.verdict or "")
  end
  -- treatments that are one run under two labels: said first, before any ranking
  if list.identical and #list.identical > 0 then
    m.verdict = ("Warning: %s. %s"):format(table.concat(list.identical, ". Warning: "), m.verdict or "")
    m.identical = list.identical
    -- (the headline says it too: the Verdict is what is read)
    m.verdict_line = M.identical_caveat(list.identical_pairs) .. (m.verdict_line or "")
  end
  -- setup treatments deployed alike (M.same_setups): the headline says it is an A/A check
  if list.same_config then
    m.same_config = list.same_config
    m.verdict_line = ("Caveat: %s. %s"):format(list.same_config, m.verdict_line or "")
  end
  -- what the design has and nothing here measured (an experiment's failed standup): named
  -- first, with its status; the Treatments section and treatments.json say why
  m.not_measured = list.not_measured or {}
  if #m.not_measured > 0 then
    local said = {}
    for _, x in ipairs(m.not_measured) do said[#said + 1] = ("%s (%s)"):format(x.label, x.status) end
    m.verdict = ("Not measured, so in no comparison below: %s. %s"):format(table.concat(said, ", "), m.verdict or "")
  end
  -- cells run on a simulated cluster: the Verdict's first words and a warning above it (said first: after the
  -- other warnings and caveats, which it puts before)
  m.simulated = list.simulated or false
  if list.simulated then
    m.verdict = ("Warning: %s. %s"):format(list.simulated, m.verdict or "")
    m.verdict_line = ("Simulated cluster, not a measurement (recorded results replayed; see below): %s"):format(
      m.verdict_line or "")
  end
  local v = M.present(m, opts)
  v.not_measured = false
  if #m.not_measured > 0 then
    v.not_measured = {}
    for _, x in ipairs(m.not_measured) do
      v.not_measured[#v.not_measured + 1] = ("%s (%s: %s)"):format(x.label, x.status, x.reason)
    end
  end
  local tdir = opts.templates or (host.root .. "/templates")
  -- charts: drawn where gnuplot is, else the note says why not. A chart gnuplot fails to
  -- draw (a template edited wrong) is left out with gnuplot's words as its reason, the
  -- report written all the same (as compare.lua's): paths.chart_failures, one line each,
  -- for the caller to say as an error once everything is in place
  local charts = require "llmd.charts"
  local clist = M.charts(m, list)
  local gp = charts.gnuplot()
  local chart_failures = {}
  if gp then
    local failed = charts.finish({ charts.start(clist, tdir, out .. "/charts", gp) }, nil, { keep_going = true })
    charts.remove_stale(clist, out .. "/charts")
    for _, c in ipairs(failed) do
      chart_failures[#chart_failures + 1] = ("the %s chart was not drawn (the report says so): %s"):format(c.name,
        c.failed)
    end
  end
  v.charts = charts.section(clist, not gp and charts.NO_GNUPLOT or nil)
  for _, c in ipairs(v.charts.list) do c.print_text = c.svg and M.print_text_pct(c.svg, c.print_landscape) end
  local md = template.render_file(tdir .. "/treatments_report.md", v)
  local html = template.render_file(tdir .. "/treatments_report.html", v)  -- the engine escapes for HTML
  local paths = { md = out .. "/treatment_report.md", html = out .. "/treatment_report.html", text = md, model = m,
    chart_failures = chart_failures }
  ws.write_text(paths.md, md)
  ws.write_text(paths.html, html)
  -- the figures, for scripts (load points without their stage lists)
  local plain = { verdict = m.verdict, verdict_line = m.verdict_line or m.verdict,
    -- (the paced treatments read on the drain-reduced basis, M.like_for_like: its sentence)
    rate_like = m.rate_like,
    identical = json.array(m.identical or {}), rank_by = m.rank_by, not_measured = json.array(m.not_measured),
    common_rps = m.common_rps, common_load = m.common_load, common_axis = m.common_axis,
    common_sustained = m.common_sustained, saturated_at_common = json.array(m.saturated_at_common),
    failing_at_common = json.array(m.failing_at_common or {}),
    mild_at_common = json.array(m.mild_at_common or {}),
    common_unlike = json.array(m.common_unlike or {}),
    latency_at_common = M.latency_at_common_json(m.latency_at_common_test),
    cost = m.cost and { text = m.cost.text, differ = m.cost.differ, unknown = json.array(m.cost.unknown),
      per_gpu = m.cost.per_gpu and json.array(m.cost.per_gpu) or false, best_per_gpu = m.cost.best_per_gpu or false,
      evidence = m.cost.evidence and json.array(m.cost.evidence) or false,
      rank_moved = m.cost.rank_moved and json.array(m.cost.rank_moved) or false, settle = m.cost.settle or false,
      settle_first = m.cost.settle_first or false }
      or false,
    dominated = json.array(m.dominated), front = json.array(m.front),
    pareto_not_beaten_per_gpu = m.pareto_not_beaten_per_gpu or false,
    pareto_excluded = json.array(m.pareto_excluded or {}), pareto_unknown = json.array(m.pareto_unknown or {}),
    pareto_not_compared = json.array(m.pareto_not_compared or {}),
    pareto_within_noise = json.array(m.pareto_within_noise or {}),
    family = m.family, workloads = m.workloads and json.array(m.workloads) or nil,
    -- the latency percentiles compared (p90 where every treatment has it, else the one they
    -- share) and the one the Pareto front reads, by key and as labelled in the reports
    latency_keys = json.array(m.latency_keys or {}), pareto_latency = m.pareto_latency,
    pareto_latency_note = m.pareto_latency_note,
    pareto_latency_key = m.pareto_latency_key, latency_note = v.latency_note or nil,
    workload_apart = m.workload_apart and json.array(m.workload_apart) or nil,
    pareto_cost = m.pareto_cost or (m.pareto_costs and table.concat(m.pareto_costs, " ")) or nil,
    -- the places whose figure their own files leave in doubt (label, keys, figures, checks)
    in_doubt = json.array(m.in_doubt or {}),
    -- results made on a simulated cluster (the fake's replayed files), as comparison.json's
    -- simulated: the text the reports say first, false when none was
    simulated = m.simulated or false,
    ranking = json.array {}, treatments = json.array {} }
  -- each place's vs_next in words of its own: "above" (shown higher than the next place) and
  -- "below", never decision.verdict's internal sides ("B better": the test's b is this place)
  local VS_NEXT = { ["B better"] = "above", ["A better"] = "below" }
  for _, r in ipairs(m.ranking) do
    local copy = {}
    for k, val in pairs(r) do copy[k] = val end
    copy.vs_next = VS_NEXT[r.vs_next] or r.vs_next
    plain.ranking[#plain.ranking + 1] = copy
  end
  -- JSON has no infinity: a range open above has no hi
  local function plain_capacity(c)
    local copy = {}
    for k, val in pairs(c) do copy[k] = val end
    if c.interval then copy.interval = { lo = c.interval.lo, top = c.interval.top,
      hi = c.interval.hi ~= math.huge and c.interval.hi or nil } end
    -- (the range one run per load leaves, lp.capacity_noise: open above, no hi)
    if c.noise then
      copy.noise = {}
      for k, val in pairs(c.noise) do
        if not (val == math.huge or val == -math.huge) then copy.noise[k] = val end
      end
      -- (the span with the intervals known to run narrow counted as unknown, likewise)
      if c.noise.if_narrow_open then
        copy.noise.if_narrow_open = {}
        for k, val in pairs(c.noise.if_narrow_open) do
          if not (val == math.huge or val == -math.huge) then copy.noise.if_narrow_open[k] = val end
        end
      end
    end
    return copy
  end
  -- each latency at the common load: its key, label, value (none where N/A) and the text the
  -- reports print (the reason where N/A)
  local function at_common_plain(x)
    local cells = {}
    for _, e in ipairs(x.at_common or {}) do
      cells[#cells + 1] = { key = e.key, label = e.label, value = e.value, interpolated = e.interpolated or nil,
        text = e.text }
    end
    return cells
  end
  for _, x in ipairs(m.treatments) do
    -- what the reports say goes here too: why max sustained is N/A (never only a missing
    -- key, read as 0 or none), the saturation's cause ("failures": failed requests, not
    -- overload) and each repeat's share of failed requests where they differ
    local sat = x.saturation
    plain.treatments[#plain.treatments + 1] = { label = x.label, workload = x.workload, status = x.status,
      status_reasons = x.status == "failed" and json.array(x.reasons or {}) or nil,
      -- a repeat that crashed (failed more than the error-rate limit among clean ones), as the
      -- Status column says it
      crashed_repeats = lp.crashed_repeats_text(sat), max_sustained_rps = x.max_rps,
      max_sustained_why = not x.max_rps and tostring(x.max_rps_why or "unknown") or nil,
      max_sustained_output_tps = x.max_output_tps,
      max_sustained_output_tps_why = x.max_output_tps == nil and (x.max_rps and "the output throughput is unknown at "
        .. "the max sustained load point" or "no max sustained load point") or nil,
      capacity = plain_capacity(x.capacity), repeats = x.repeats,
      -- figures its own files disagree on that the ranking reads (keys, figures, checks, text)
      in_doubt = x.in_doubt,
      -- its accelerators (given with --gpus, or the results'), and its figures per GPU
      gpus = x.gpus, gpus_source = x.gpus_source,
      max_sustained_rps_per_gpu = x.gpus and x.max_rps and x.max_rps / x.gpus or nil,
      capacity_rps_per_gpu = x.gpus and (lp.capacity_has_figure(x.capacity) and x.capacity.rps
        or x.capacity.kind == "below_lowest" and x.capacity.lowest_rps) and (x.capacity.rps
        or x.capacity.lowest_rps) / x.gpus or nil,
      latency_at_common = json.array(at_common_plain(x)),
      load_points = x.n_points, saturation = { reason = sat.reason, point = sat.point, cause = sat.cause,
        none = sat.none or nil, unknown = sat.unknown or nil,
        failed_pct = sat.failed_pct, repeats_failed_pct = sat.repeats_failed_pct
          and json.array(sat.repeats_failed_pct) or nil,
        -- the error-rate limit a sustained load may fail (llmd.loadpoints.error_limit) and the
        -- sustained loads that failed requests within it
        error_limit_pct = (sat.limit or sat.failures and sat.failures.limit or {}).pct,
        failed_within = sat.failed_within and json.array(sat.failed_within) or nil,
        -- its max sustained point mildly overloaded (answered 95 to 97.5 % of its sends), and
        -- the loads below its saturation point that could not be judged (the figure is then
        -- the last load known to be sustained, the limit up to its ceiling)
        max_sustained_mild = sat.edge and { point = sat.edge.point, offered = sat.edge.offered,
          share_pct = tonumber(("%.1f"):format(sat.edge.share * 100)), share_text = sat.edge.share_text } or nil,
        unjudged = sat.unjudged and { points = json.array(sat.unjudged.points), sustained_upto = sat.sustained_upto,
          reason = sat.unjudged.reason } or nil } }
  end
  json.write(out .. "/treatments.json", plain)
  ws.write_text(out .. "/treatment_ranking.csv", M.ranking_csv_text(m))
  paths.charts = gp and clist or nil -- (the charts drawn, or left out with the reason)
  return paths
end

-- The ranking as a table for scripts (treatment_ranking.csv, CRLF as the other CSV): one row
-- per place, in the reports' order, with its workload, rank ("1=" where shared; empty where
-- not ranked), figure (value: empty where unknown; value_kind: estimate, at_least or below, the bound
-- "< X" of a capacity below the lowest load being X, never 0; text as the reports print it), GPUs and
-- figure per GPU (empty where the count is unknown), and its evidence against the next.
-- (treatment_comparison.csv keeps upstream's columns, byte for byte.)
-- (at_common_load: what the latency table marks beside the treatment at its common load:
-- "saturated here", "failing requests here", "mildly overloaded: answered 95.6 % of sends")
-- (in_doubt: where the place's own files disagree on a figure the ranking reads, with nothing
-- to settle which is right, the reports' "In doubt: ..." (treatments.json's in_doubt); empty
-- where nothing is in doubt)
M.RANKING_CSV_COLUMNS = { "workload", "rank", "treatment", "rank_by", "value_rps", "value_kind", "text", "gpus",
  "value_rps_per_gpu", "per_gpu_text", "rank_per_gpu", "evidence_against_next", "at_common_load", "in_doubt",
  "interval_coverage" }
function M.ranking_csv_text(m)
  local lines = { table.concat(M.RANKING_CSV_COLUMNS, ",") }
  local by_label = {}
  for _, x in ipairs(m.treatments or {}) do by_label[x.label] = x end
  for _, r in ipairs(m.ranking) do
    local x, marks = by_label[r.label] or {}, {}
    if x.saturated_at_common then marks[#marks + 1] = "saturated here" end
    if x.failing_at_common then marks[#marks + 1] = "failing requests here" end
    if x.mild_at_common then marks[#marks + 1] = x.mild_at_common end
    local row = { r.workload, r.rank_text, r.label, m.rank_by, r.rank_text and r.value,
      r.rank_text and r.value and r.value_kind, r.text, r.gpus,
      r.per_gpu_value, r.per_gpu_text, r.per_gpu_rank, r.vs_next_text, table.concat(marks, "; "),
      r.in_doubt and r.in_doubt.text or nil,
      -- (an order against the next place of one-run loads: nominal, or narrow_near_capacity
      -- where it rests only on intervals measured near capacity, llmd.report narrow_check)
      r.evidence and r.evidence.interval_coverage or nil }
    local cells = {}
    for i = 1, #M.RANKING_CSV_COLUMNS do cells[i] = csv_field(row[i]) end
    lines[#lines + 1] = table.concat(cells, ",")
  end
  return table.concat(lines, "\r\n") .. "\r\n"
end

-- The files of a comparison, in the order they go into place (the charts first: the reports
-- show them).
local OUTPUTS = { "treatments.json", "treatment_ranking.csv", "treatment_report.md", "treatment_report.html",
  "treatment_comparison.csv", "treatment_comparison_sources.csv" }
M.OUTPUTS = OUTPUTS

-- Writes the comparison into out (made when missing): treatment_comparison.csv and, when
-- every treatment has its load points, the report (M.write_report: treatment_report.md and
-- .html, treatments.json, charts/). All of it is written into a folder of its own inside out
-- first and moved into place once complete, so a failure (a full disk, a folder where a file
-- goes, Ctrl-C) leaves out as it was: no new CSV or charts beside an older report, no folder
-- this run made; the files of an earlier comparison in out are replaced only by a complete
-- set. A chart gnuplot fails to draw is no such failure: the report says why it is not
-- drawn, and that chart's older picture and data are removed (paths.chart_failures names
-- it, for the caller to say). A treatment read without its load points (t.load_error) still
-- gets the CSV, which upstream makes from its benchmark reports, and then raises. Returns
-- write_report's paths (csv, md, html, text, model, chart_failures).
-- Holds the output folder out for the rest of this process (an flock on the folder itself:
-- no lock file is written into a folder of the user's): two treatments.lua writing one --out
-- at once both said they wrote it, and one's files replaced the other's, file by file
-- (audit48 S9). true, or nil and one line.
local held_out = {}
function M.hold_out(out)
  local proc = require "llmd.proc"
  local real = proc.realpath(out) or out
  if held_out[real] then return true end
  local ok, why = proc.lock(real, "")
  if ok then
    held_out[real] = true
    return true
  end
  if ok == nil then return nil, ("%s: cannot lock the output folder: %s"):format(out, tostring(why)) end
  return nil, ("%s: another process is writing this output folder (another treatments.lua with the same --out): two "
    .. "at once would mix their reports; wait for it to end, or give another --out"):format(out)
end

-- Printed, a chart's text the size of the tables' (8 pt, the print CSS of
-- treatments_report.html): the percentage its SVG text is set to there ("110%"), from its
-- viewBox and the page the CSS gives it, on Letter: upright 8.5 in less 1.2 cm margins, 543.97
-- pt wide, the chart at most 8.3 in (597.6 pt) high; sideways (landscape: its class
-- print-landscape) 11 in less 1 cm margins, 735.31 pt wide, at most 6 in (432 pt) high. The
-- canvas scales by the lesser of width and height (the SVG's aspect kept), so gnuplot's
-- 12-unit labels print at 12 x that scale: 7.25 pt for a 900 x 906 chart upright, 8.17 pt for
-- 1080 x 480 sideways. Before, every chart's text 125 % larger printed the kubecon pair's
-- (chromium, Letter) at 7.15 pt (the first, held to 8.3 in high) and 9.76 pt beside tables at
-- 8.67 pt (the body's 12 pt, shrunk to fit the widest table). On A4, 3 % narrower, the charts
-- print 3 % smaller; a chart so tall that its labels would need more than 125 % gets 125 %.
-- nil where the SVG has no viewBox (the CSS then leaves its text as drawn).
M.PRINT_TABLE_PT = 8
function M.print_text_pct(svg, landscape)
  local w, h = tostring(svg):match('viewBox="%s*[-%d.]+%s+[-%d.]+%s+([%d.]+)%s+([%d.]+)%s*"')
  w, h = tonumber(w), tonumber(h)
  if not (w and h and w > 0 and h > 0) then return nil end
  local cm = 72 / 2.54
  local pw, ph = 8.5 * 72 - 2 * 1.2 * cm, 8.3 * 72
  if landscape then pw, ph = 11 * 72 - 2 * cm, 6 * 72 end
  local scale = math.min(pw / w, ph / h)
  -- (at most a quarter larger, as every chart printed before: a chart held to the page's
  -- height, 900 x 1122 for four CDF panels, needs 125 % already, and its panels' y labels,
  -- longer than their panels are high, would run further into the next)
  return ("%.0f%%"):format(math.min(125, 100 * M.PRINT_TABLE_PT / (12 * scale)))
end

function M.write_outputs(out, list, opts)
  local ws = require "llmd.workspace"
  local lfs = require "lfs"
  out = out:gsub("(.)/+$", "%1")
  -- the folders about to be made (deepest first), removed again after a failure; a dangling
  -- link on the way is an error naming it (llmd.workspace.missing_folders)
  local made = ws.missing_folders(out)
  ws.mkdir_p(out)
  -- held to the end of this process: another treatments.lua writing this --out is refused
  -- (treatments.lua holds it already when the folder was there at its start)
  local lok, lerr = M.hold_out(out)
  if not lok then
    for _, d in ipairs(made) do lfs.rmdir(d) end
    error(lerr, 0)
  end
  local stage, why
  for _ = 1, 100 do
    local try = ("%s/.treatments-writing-%d"):format(out, math.random(1, 1 << 30))
    local ok, err = lfs.mkdir(try)
    if ok then
      stage = try
      break
    end
    why = err
    -- (only a name taken is worth another try: a read-only folder or a full disk is not)
    if not tostring(err):find("exists", 1, true) then break end
  end
  if not stage then
    error(("%s: cannot create a folder to write the comparison in: %s"):format(out, tostring(why)), 0)
  end
  local function move(name)
    local ok, err = os.rename(stage .. "/" .. name, out .. "/" .. name)
    if not ok then error(("%s/%s: cannot write: %s"):format(out, name, tostring(err)), 0) end
  end
  -- An earlier report in out (opts.keep_previous): moved aside whole, beside out, before
  -- anything of this one goes in (newuserd51 6: a second treatments.lua with other --gpus or
  -- --slo replaced the first's report, without a word under --quiet). Returns the folder it
  -- went to (nil: none there, or --replace) and the earlier report's time (nil: none there).
  local function set_aside()
    local earlier
    for _, name in ipairs(OUTPUTS) do
      earlier = earlier or lfs.attributes(out .. "/" .. name, "modification")
    end
    if not (earlier and opts.keep_previous) then return nil, earlier end
    local base = ("%s-previous-%s"):format(out, os.date("%Y%m%d-%H%M%S", earlier))
    local aside, why2
    for n = 1, 100 do
      local try = n == 1 and base or ("%s-%d"):format(base, n)
      local ok, err = lfs.mkdir(try)
      if ok then aside = try break end
      why2 = err
      if not tostring(err):find("exists", 1, true) then break end
    end
    if not aside then
      error(("%s: cannot make a folder to keep the earlier report in (%s): %s; nothing was changed (--replace "
        .. "writes over it)"):format(out, base, tostring(why2)), 0)
    end
    for _, name in ipairs(OUTPUTS) do
      if lfs.attributes(out .. "/" .. name, "mode") == "file" then
        local ok, err = os.rename(out .. "/" .. name, aside .. "/" .. name)
        if not ok then error(("%s/%s: cannot move it to %s: %s"):format(out, name, aside, tostring(err)), 0) end
      end
    end
    if lfs.attributes(out .. "/charts", "mode") == "directory" then
      local ok, err = os.rename(out .. "/charts", aside .. "/charts")
      if not ok then error(("%s/charts: cannot move it to %s: %s"):format(out, aside, tostring(err)), 0) end
    end
    return aside, earlier
  end
  local ok, res = pcall(function()
    ws.write_text(stage .. "/treatment_comparison.csv", M.csv_text(list))
    ws.write_text(stage .. "/treatment_comparison_sources.csv", M.csv_sources_text(list))
    for _, t in ipairs(list) do
      if t.load_error then
        -- the earlier report first kept aside (it was written over by these two CSVs), or
        -- (--replace) its files other than them removed: the folder holds this comparison's
        -- CSVs alone, never beside an earlier report that would read as theirs
        local aside, earlier = set_aside()
        local said = ""
        if aside then
          said = ("; the earlier report there (written %s) is kept in %s"):format(
            os.date("%Y-%m-%d %H:%M:%S", earlier), aside)
        elseif earlier then
          for _, name in ipairs(OUTPUTS) do
            if name ~= "treatment_comparison.csv" and name ~= "treatment_comparison_sources.csv"
              and lfs.symlinkattributes(out .. "/" .. name, "mode") == "file" then
              local rok, rerr = os.remove(out .. "/" .. name)
              if not rok then error(("%s/%s: cannot remove it: %s"):format(out, name, tostring(rerr)), 0) end
            end
          end
          -- (and its charts, the comparison's own files there; the folder if that empties it)
          if lfs.attributes(out .. "/charts", "mode") == "directory" then
            for name in lfs.dir(out .. "/charts") do
              if name:match("^treatments_.+%.svg$") or name:match("^treatments_.+%.dat$") then
                os.remove(out .. "/charts/" .. name)
              end
            end
            lfs.rmdir(out .. "/charts")
          end
          said = ("; the earlier report there (written %s) is replaced (--replace)"):format(
            os.date("%Y-%m-%d %H:%M:%S", earlier))
        end
        move("treatment_comparison.csv")
        move("treatment_comparison_sources.csv")
        error(("%s (the comparison's figures need every treatment's load points; %s is written%s)"):format(
          t.load_error, out .. "/treatment_comparison.csv", said), 0)
      end
    end
    local paths = M.write_report(stage, list, opts)
    -- all of it written: nothing in the way of a file (a folder of that name) before any goes
    for _, name in ipairs(OUTPUTS) do
      local mode = lfs.symlinkattributes(out .. "/" .. name, "mode")
      if mode and mode ~= "file" then
        error(("%s/%s: a %s is in the way (expected the comparison's file there)"):format(out, name,
          mode == "directory" and "folder" or mode), 0)
      end
    end
    local aside, earlier = set_aside()
    if aside then
      paths.previous, paths.previous_time = aside, earlier
    elseif earlier then
      paths.replaced, paths.previous_time = true, earlier
    end
    if paths.charts then
      -- drawn: the new pictures in place of the old, and none the report no longer has
      ws.mkdir_p(out .. "/charts")
      local names = {}
      for name in lfs.dir(stage .. "/charts") do
        if name ~= "." and name ~= ".." then names[#names + 1] = name end
      end
      for _, name in ipairs(names) do move("charts/" .. name) end
      require("llmd.charts").remove_stale(paths.charts, out .. "/charts")
      -- and the charts of a workload an earlier comparison had and this one has not
      -- (treatments_*_wN), which no chart of this list names
      local keep = {}
      for _, c in ipairs(paths.charts) do if c.svg then keep[c.name] = true end end
      for name in lfs.dir(out .. "/charts") do
        local base = name:match("^(treatments_.+)%.svg$") or name:match("^(treatments_.+)%.dat$")
        if base and not keep[base] then os.remove(out .. "/charts/" .. name) end
      end
    end
    for _, name in ipairs(OUTPUTS) do move(name) end
    paths.csv, paths.ranking_csv = out .. "/treatment_comparison.csv", out .. "/treatment_ranking.csv"
    paths.sources_csv = out .. "/treatment_comparison_sources.csv"
    paths.md, paths.html = out .. "/treatment_report.md", out .. "/treatment_report.html"
    paths.json = out .. "/treatments.json"
    -- every file this wrote, for the caller's "Written:" lines: the OUTPUTS, and the charts
    -- drawn (an SVG and its data each)
    paths.written = { paths.csv, paths.sources_csv, paths.ranking_csv, paths.md, paths.html, paths.json }
    local drawn = 0
    for _, c in ipairs(paths.charts or {}) do if c.svg then drawn = drawn + 1 end end
    if drawn > 0 then
      paths.written[#paths.written + 1] = ("%s/charts/ (%d chart%s: each an .svg and its .dat)"):format(out, drawn,
        drawn == 1 and "" or "s")
    end
    return paths
  end)
  -- the folder it was written in goes, whatever happened (a failure: with what was in it)
  local rok, rerr = pcall(ws.remove_tree, stage)
  if not ok then
    for _, d in ipairs(made) do
      if not lfs.rmdir(d) then break end -- (not empty: the CSV of a treatment without load points)
    end
    error(res, 0)
  end
  if not rok then error(rerr, 0) end
  return res
end

-- Charts -------------------------------------------------------------------------------------
--
-- Prepared here (data and gnuplot variables), drawn by llmd.charts.render from the editable
-- templates templates/charts/treatments_*.gp, as the two-run report's charts are.

-- (llmd.charts on first use: the data files' text, the log-scale test, the CDF rows)
local function block_text(header, blocks) return require("llmd.charts").data_text(header, blocks) end
-- the width of a character of a chart's title (sans 15 in the templates: about 8 px), with room
M.TITLE_CHAR_PX = 9
local function wide(values) return require("llmd.charts").wide(values) end

-- The latency panels of the charts of treatments T: for TTFT, TPOT (else ITL) and E2E, the
-- percentile every treatment has at its load points with a known achieved rate, p90 first
-- (llmd.loadpoints.latency_columns: vLLM's sweeps have p50/p95/p99 and no p90), else one
-- some have (said in a note). Returns {ttft =, tpot =, e2e = {key, label}} (a family
-- missing where no treatment has it) and the notes.
local function latency_panels(T)
  local lists = {}
  for i, x in ipairs(T) do
    lists[i] = {}
    for _, p in ipairs(x.points) do if finite(p.achieved_rps) then lists[i][#lists[i] + 1] = p end end
  end
  local by, notes = {}, {}
  for _, col in ipairs(lp.latency_columns(lists, function(p, key) return finite(p.values[key]) end)) do
    by[col.family] = { col.key, col.label .. " (ms)" }
    if not col.common then
      local some = {}
      for i, h in ipairs(col.has) do if h then some[#some + 1] = T[i].label end end
      notes[#notes + 1] = ("%s: only %s %s it, so the others have no line there."):format(col.label,
        table.concat(some, ", "), #some == 1 and "has" or "have")
    end
  end
  return by, notes
end
local CDF_PANELS = { { "ttft_ms", "TTFT (ms)" }, { "tpot_ms", "TPOT (ms)" }, { "itl_ms", "inter-token latency (ms)" },
  { "e2e_ms", "end-to-end latency (ms)" } }

-- The latency chart of treatments T that measured one load point each (possibly repeated):
-- no curve, so what decides the comparison, as compare.lua's two-run chart draws it
-- (llmd.charts.latency_points): one panel per metric (llmd.charts.point_keys: the SLOs'
-- metrics, then TTFT and TPOT/ITL at the tables' p90), each treatment's value there (the mean of its
-- repeats) with the repeats' 95 % confidence interval as an error bar, drawn by
-- templates/charts/treatments_latency_points.gp. c: the chart as charts_of starts it.
M.POINT_TITLE = "At the one load point: each treatment's value with its repeats' 95 % intervals"
function M.point_chart(m, T, c)
  local ch = require "llmd.charts"
  c.template = "treatments_latency_points"
  local lists = {}
  for i, x in ipairs(T) do lists[i] = x.points end
  local keys = ch.point_keys(m.slo, lists)
  if #keys == 0 then
    c.reason = "No treatment has TTFT, TPOT/ITL or an SLO's metric at its load point."
    return c
  end
  local blocks, labels, slos, ymax, fmts, no_ci, no_value = {}, {}, {}, {}, {}, {}, {}
  for i, k in ipairs(keys) do
    local info = metrics.get(k.key)
    fmts[i] = info.format == "%d" and "%.0f" or info.format
    labels[i] = ("%s (%s)"):format(k.label, info.unit)
    local top, rows = 0, { name = labels[i] }
    for t, x in ipairs(T) do
      local v, lo, hi, has = ch.point_dot(x.points[1], k, t, no_ci, no_value)
      rows[#rows + 1] = { n = 5, t, v, lo, hi, has }
      if finite(hi) then top = math.max(top, hi) end
    end
    blocks[i] = rows
    local slo = k.slo
    if slo and top > 0 and slo > 3 * top then
      c.notes[#c.notes + 1] = ("The SLO %s is not drawn in the %s panel: it lies far above every value, so every "
        .. "treatment meets it."):format(tostring(k.slo_text or slo), k.label)
      slo = nil
    end
    slos[i] = slo or 0 / 0
    ymax[i] = ch.axis_max(math.max(top, slo or 0) * 1.1)
  end
  -- under each treatment its load: "3.6 req/s offered, 3 repeats"
  local loads, offered = {}, {}
  for t, x in ipairs(T) do
    local p = x.points[1]
    if not p then
      loads[t] = "no load point"
    else
      local load = p.load_type == "concurrency" and p.offered and ("concurrency %g"):format(p.offered)
        or p.offered and ("%g req/s offered"):format(p.offered)
        or finite(p.achieved_rps) and metrics.rate_text(p.achieved_rps) or "load unknown"
      loads[t] = ("%s, %s"):format(load, (p.repeats or 1) == 1 and "1 run" or (p.repeats .. " repeats"))
      if p.offered then offered[#offered + 1] = { x = x, p = p, load = load } end
    end
  end
  c.data = block_text("treatment value ci_lo ci_hi has_ci", blocks)
  c.vars[#c.vars + 1] = { "loads", loads }
  -- the names and loads under the panels: rotated where they would run into each other
  -- (templates' width: 160 px a treatment), broken into lines where a name would run past
  -- the picture's left edge
  local names, under = {}, {}
  for t, x in ipairs(T) do names[t], under[t] = x.label, { loads[t] } end
  local rot, room, tics, cut = M.tic_layout(names, 160, M.first_tic_px("points", #T), under)
  c.vars[#c.vars + 1] = { "tic_rotate", rot }
  c.vars[#c.vars + 1] = { "tic_room", room }
  c.vars[#c.vars + 1] = { "tics", tics }
  if #cut > 0 then
    c.notes[#c.notes + 1] = ("Names cut short under the panels (\"...\"): %s; the tables give them in full.")
      :format(table.concat(cut, ", "))
  end
  c.vars[#c.vars + 1] = { "panel_label", labels }
  c.vars[#c.vars + 1] = { "panel_slo", slos }
  c.vars[#c.vars + 1] = { "panel_ymax", ymax }
  c.vars[#c.vars + 1] = { "panel_fmt", fmts }
  local drawn_slo = false
  for _, v in ipairs(slos) do drawn_slo = drawn_slo or v == v end
  c.notes[#c.notes + 1] = "Each treatment measured one load point: each dot is its value there (the mean of its "
    .. "repeats), each bar the repeats' 95 % confidence interval of that mean (Student t)"
    .. (drawn_slo and "; the dashed line is the SLO's threshold" or "") .. ". Bars apart are a difference beyond "
    .. "the repeats' noise; bars that overlap may still differ."
  local who = {}
  for t, x in ipairs(T) do who[t] = { id = t, label = x.label, measured = x.points[1] ~= nil } end
  ch.point_notes(c.notes, who, no_ci, no_value, #keys)
  -- loads that differ: the values differ by load as well as by configuration
  local differ = false
  for _, o in ipairs(offered) do
    local f = offered[1]
    if o.p.load_type ~= f.p.load_type or not lp.close(o.p.offered, f.p.offered) then differ = true end
  end
  if differ then
    local parts = {}
    for _, o in ipairs(offered) do parts[#parts + 1] = ("%s at %s"):format(o.x.label, o.load) end
    c.notes[#c.notes + 1] = ("Not the same load: %s, so these values differ by load as well as by configuration.")
      :format(table.concat(parts, ", "))
  end
  c.available = true
  return c
end

-- The names under a chart's panels (names: one a panel slot, slot_px wide each; more: the
-- lines under each name, the load of a one-point chart), level where the longest line fits
-- its slot, else rotated by 45 degrees, so that many long names never run into each other.
-- A rotated line ends at its tic and runs down to the left: one longer than the room left
-- of the first tic (first_px, from M.first_tic_px) would run past the picture's left edge,
-- so each name is broken into lines that fit (after a '-', '_', '/', '.' or space where it
-- has one), at most M.TIC_NAME_LINES, the last cut short with "..." where even those do
-- not hold it (the report's tables give every name in full). Returns the angle (0 or 45),
-- the room the names take below the axis in lines of the chart's font (on top of its usual
-- margin), the tics' texts (each name's lines, then its more lines) and the names cut
-- short. Widths: the ticks' font (sans 10) is about M.TIC_CHAR_PX a character (DejaVu Sans
-- lower case, 5.3), M.TIC_WIDE_PX for the names' breaks (wider letters: capitals, digits);
-- gnuplot's SVG puts each further line of a tic 15 px lower, anchored at the same x; the
-- margins' lines are about 19 px (sans 12; the templates add 19 px a line per panel).
M.TIC_CHAR_PX = 5.5
M.TIC_WIDE_PX = 6.5
M.TIC_NAME_LINES = 3
local SIN45 = math.sin(math.pi / 4)

-- A name in lines of at most width characters, broken after a separator where one is in
-- reach (else cut), at most max_lines, the last ending in "..." where the name goes on.
-- Returns the lines and whether the name was cut short.
function M.break_name(name, width, max_lines)
  local function len(x) return utf8.len(x) or #x end
  local function head(x, n) return x:sub(1, (utf8.offset(x, n + 1) or #x + 1) - 1) end
  local lines, rest = {}, name
  while len(rest) > width and #lines < max_lines do
    local chunk = head(rest, width)
    -- the last separator in the chunk, not in its first half (a name is not broken into stubs)
    local at
    for i = #chunk, 1, -1 do
      if chunk:sub(i, i):match("[-_/%. ]") and len(chunk:sub(1, i)) > width // 2 then at = i; break end
    end
    local line = at and chunk:sub(1, at) or chunk
    lines[#lines + 1] = line:gsub("%s+$", "")
    rest = rest:sub(#line + 1):gsub("^%s+", "")
  end
  if rest ~= "" and #lines < max_lines then lines[#lines + 1], rest = rest, "" end
  if rest ~= "" then
    lines[#lines] = head(lines[#lines], math.max(1, width - 3)) .. "..."
    return lines, true
  end
  return lines, false
end

function M.tic_layout(names, slot_px, first_px, more, font)
  more = more or {}
  -- (font: the ticks' size in pt, 10 unless given; every width and height scales with it)
  local f = (font or 10) / 10
  local char_px, wide_px = M.TIC_CHAR_PX * f, M.TIC_WIDE_PX * f
  local function longest_of(texts)
    local n = 0
    for _, l in ipairs(texts) do n = math.max(n, utf8.len(l) or #l) end
    return n
  end
  local level, shown, cut, n_lines = 0, {}, {}, 1
  for i, name in ipairs(names) do
    level = math.max(level, utf8.len(name) or #name, longest_of(more[i] or {}))
  end
  local function tic(lines, i)
    local all = {}
    for _, l in ipairs(lines) do all[#all + 1] = l end
    for _, l in ipairs(more[i] or {}) do all[#all + 1] = l end
    n_lines = math.max(n_lines, #all)
    return #all == 1 and all[1] or { lines = all }
  end
  if level * char_px <= slot_px * 0.9 then
    for i, name in ipairs(names) do shown[i] = tic({ name }, i) end
    return 0, 0, shown, cut
  end
  -- a line's left end: its anchor (5 px left of the tic) less its length and the font's
  -- height (10 px), each at 45 degrees; 2 px inside the edge
  local width = math.max(8, math.floor((first_px - 5 - 10 * f * SIN45 - 2) / (wide_px * SIN45)))
  local longest = 0
  for i, name in ipairs(names) do
    local lines, short = M.break_name(name, width, M.TIC_NAME_LINES)
    if short then cut[#cut + 1] = name end
    shown[i] = tic(lines, i)
    longest = math.max(longest, longest_of(lines), longest_of(more[i] or {}))
  end
  return 45, math.ceil((longest * char_px * SIN45 + 15 * f * (n_lines - 1)) / 19), shown, cut
end

-- The bars chart's layout for k treatments and n panels: each panel's width in px, the
-- panels a row, the picture's width and a panel's height. Side by side in one row while that
-- stays within 1400 px (landscape, as a page is wide: a stack of three 600-px panels filled a
-- third of the page's width with tick names at 10 pt), else one above the other, each as wide
-- as its bars need (many treatments fill it anyway). treatments_bars.gp draws it so.
M.BARS_ROW_PX = 1400
function M.bars_layout(k, n)
  local pw = math.max(360, 130 + 100 * k)
  if n * pw <= M.BARS_ROW_PX then return pw, n, n * pw, 400 end
  pw = math.max(700, 130 + 100 * k)
  return pw, 1, pw, 300
end

-- The x of the first tic under a treatments chart's panels, in px from the picture's left
-- edge, as its template places it (template: "points" or "bars"; k: the treatments): the
-- width (points: 160 px a treatment + 140, at least 640; bars: a panel's, panel_w, else
-- M.bars_layout's in a row),
-- the left and right margins (11 or 12 and 3 characters of gnuplot's SVG at sans 12, 8.4 px
-- each) and the x range (points: 0.4 to k + 0.6, the first at 1; bars: -0.6 to k - 0.4,
-- the first at 0).
M.GP_CHAR_PX = 8.4
function M.first_tic_px(template, k, panel_w)
  local w, lm
  if template == "points" then w, lm = math.max(640, 160 * k + 140), 11
  else w, lm = panel_w or M.bars_layout(k, 1), 12 end
  local l, r = lm * M.GP_CHAR_PX, w - 3 * M.GP_CHAR_PX
  return l + (0.6 / (template == "points" and (k + 0.2) or k)) * (r - l)
end

-- How the charts of treatments T draw throughput: "per_gpu" where every one's GPU count is
-- known and the counts differ (each achieved rate and output tok/s divided by its own count,
-- as the ranking per GPU reads them: a chart of totals would point to the one with more
-- hardware beside a verdict per GPU), "totals" where some counts are known and they differ
-- or some are not, nil where all are the same or none is known. Returns the mode and the
-- counts in words ("tp1 1 GPU, tp2 2 GPUs", the unknown ones named after).
function M.chart_gpus(T)
  local counts, n, unknown, parts = {}, 0, {}, {}
  for _, x in ipairs(T) do
    if x.gpus then
      if not counts[x.gpus] then counts[x.gpus], n = true, n + 1 end
      parts[#parts + 1] = ("%s %g GPU%s"):format(x.label, x.gpus, x.gpus == 1 and "" or "s")
    else
      unknown[#unknown + 1] = x.label
    end
  end
  if #parts == 0 or (n == 1 and #unknown == 0) then return nil end
  if #unknown > 0 then parts[#parts + 1] = ("%s unknown"):format(table.concat(unknown, ", ")) end
  return #unknown == 0 and "per_gpu" or "totals", table.concat(parts, ", ")
end

-- The caveat under a chart of treatments whose GPU counts differ or are not all known (gmode,
-- gwords: M.chart_gpus's), nil where they do not: the latency chart's (cdf nil), drawn per GPU
-- or on totals; the CDF overlay's (cdf true), whose loads are equal total loads whatever the
-- mode, so the one with more hardware serves each at a lighter load per GPU (newuser43: its
-- caption said nothing of it beside the latency chart's note).
function M.chart_gpus_note(gmode, gwords, cdf)
  if not gmode then return nil end
  local counts = gmode == "per_gpu" and "the GPU counts differ" or "the GPU counts differ or are not all known"
  if cdf then
    return ("At equal total loads, not per GPU: %s (%s), so the one with more hardware serves each load at a lighter "
      .. "load per GPU, and its curves are not its latency at the same load per GPU (the latency chart per GPU "
      .. "compares that%s)."):format(counts, gwords, gmode == "totals" and ", given --gpus LABEL=N" or "")
  end
  if gmode == "per_gpu" then
    return ("Per GPU: each treatment's achieved request rate divided by its GPUs (%s), as the ranking per GPU reads "
      .. "them; on totals the one with more hardware would lie further right."):format(gwords)
  end
  return ("On totals, not per GPU: %s (%s), so the one with more hardware lies further right (give --gpus LABEL=N for "
    .. "a chart per GPU)."):format(counts, gwords)
end

-- The N-way charts of the treatments T (model entries, from M.model) and list (their
-- list entries, in the same order), into out; suffix: added to each chart's name (its
-- files; the template stays the chart's own), about: added to each title (the workload).
-- The CDF overlay of treatments T (the model's, with points and saturation) from their
-- runs' per-stage quantile grids (list: the loaded treatments, each with its run), as
-- compare.lua's two-run chart draws them (llmd.charts.latency_cdf): a treatment's requests
-- pooled over every load it was sent mix its loads, and an overload's queue, into one curve,
-- so two runs of one server differ by their ladders and their saturated points' luck. Each
-- panel (latency) pools only the loads every treatment drawn there measured and all of them
-- sustained (llmd.decision.point_unsustained, the tests' rule: not saturated, nor past a load
-- whose saturation could not be judged, nor answered short with failures in bursts), each
-- load weighted equally (llmd.charts.mix_loads), their repeats by their request counts
-- (llmd.charts.point_grids); the drawn treatments are the most that share a
-- load (ties: the most loads shared, then the lowest load), and one without such a load is
-- left out of the panel with why; a panel with no load two treatments share is left out with
-- why. The treatments' latencies are weighed at the common load alone (no per-request test
-- per load, so no dependence rule here): the curves are untested, and said so. Its loads are
-- total loads: where the GPU counts differ or are not all known, a note says so
-- (M.chart_gpus_note). new_chart(title) starts the chart (charts_of's chart). Returns it.
M.CDF_TITLE = "Per-request latency distributions (CDF), every treatment"
function M.cdf_chart(T, list, new_chart)
  local ch = require "llmd.charts"
  local gmode, gwords = M.chart_gpus(T)
  local qs = require("llmd.runmodel").CDF_GRID
  local ONE = ch.CDF_ONE_POINT
  local entry = {}
  for _, t in ipairs(list) do entry[t.label] = t end
  -- each treatment's run (its folders' stages, repeats renumbered: M.load) and whether it
  -- kept per-request data at all
  local S, notes = {}, {}
  local function has_kind(run, name)
    if run.cdf and run.cdf[name] and #run.cdf[name] > 0 then return true end
    for _, st in ipairs(run.stages or {}) do
      if st.cdf and st.cdf[name] and #st.cdf[name] > 0 then return true end
    end
    return false
  end
  local most = 0
  for i, x in ipairs(T) do
    local t = entry[x.label]
    local run = t and t.run or { stages = {} }
    local any = false
    for _, pnl in ipairs(CDF_PANELS) do any = any or has_kind(run, pnl[1]) end
    S[i] = { x = x, run = run, any = any, drawn = false, grids = {} }
    if not any then
      notes[#notes + 1] = ("%s: no per-request data, so no distribution."):format(x.label)
    end
    most = math.max(most, #x.points)
  end
  -- a load as the panels match it: the load type and offered load (within the repeats'
  -- tolerance, llmd.loadpoints.close); where every treatment measured one load point, that
  -- point, as the tables set them side by side (a note where the loads are known to differ)
  local one_each = most == 1
  local loads = {}
  local function load_of(p)
    if one_each then
      if not loads[1] then loads[1] = { text = ONE, points = {} } end
      return loads[1]
    end
    if not p.offered then return nil end
    for _, l in ipairs(loads) do
      if l.load_type == p.load_type and lp.close(l.offered, p.offered) then return l end
    end
    loads[#loads + 1] = { load_type = p.load_type, offered = p.offered, text = ch.cdf_load_text(p) }
    return loads[#loads]
  end
  for i, s in ipairs(S) do
    s.at = {}
    for _, p in ipairs(s.x.points) do
      local l = load_of(p)
      if l then s.at[l] = p else s.unknown_load = true end
    end
    if one_each and s.x.points[1] then loads[1].points[i] = s.x.points[1] end
  end
  table.sort(loads, function(a, b)
    if a.load_type ~= b.load_type then return tostring(a.load_type) < tostring(b.load_type) end
    return (a.offered or 0) < (b.offered or 0)
  end)
  if one_each then
    local texts, seen = {}, {}
    for _, s in ipairs(S) do
      local p = s.x.points[1]
      if p and p.offered and s.any then
        local txt = ch.cdf_load_text(p)
        if not seen[txt] then seen[txt] = true; texts[#texts + 1] = ("%s at %s"):format(s.x.label, txt) end
      end
    end
    if #texts > 1 then
      notes[#notes + 1] = ("Not the same load: %s, so these distributions differ by load as well as by "
        .. "configuration."):format(table.concat(texts, ", "))
    end
  end
  local cols, plabels, logs, loads_of, texts_of, names_of = {}, {}, {}, {}, {}, {}
  local repeated, left_panels = false, 0
  for i, pnl in ipairs(CDF_PANELS) do
    local name = pnl[1]
    local panel_name = (pnl[2]:gsub(" %(ms%)$", ""):gsub("^%l", string.upper))
    -- each treatment with this latency: at each load, its grids there, or why none
    local cands, state = {}, {}
    for j, s in ipairs(S) do
      if has_kind(s.run, name) then
        cands[#cands + 1] = j
        state[j] = {}
        for _, l in ipairs(loads) do
          local p = s.at[l]
          if p then
            -- (per-request data read as a whole beside several load points: not split by load;
            -- a load the treatment did not sustain by the tests' rule, decision.point_unsustained,
            -- left out with its why in the chart's words, llmd.charts.UNSUSTAINED_WORDS)
            local why = decision.point_unsustained(s.x.saturation, p, s.run, #s.x.points)
            local g = why and ch.UNSUSTAINED_WORDS[why]
              or ch.point_grids(s.run, p, name, #s.x.points)
              or (s.run.cdf and s.run.cdf[name] and "its per-request data not split by load point"
                or "no per-request data of it")
            state[j][l] = g
          end
        end
      end
    end
    -- the loads each treatment sustained with grids there, and the most treatments sharing one
    local cover = {}
    for _, l in ipairs(loads) do
      cover[l] = {}
      for _, j in ipairs(cands) do
        if type(state[j][l]) == "table" then cover[l][#cover[l] + 1] = j end
      end
    end
    local function within(a, b) -- every treatment of a in b
      local in_b = {}
      for _, j in ipairs(b) do in_b[j] = true end
      for _, j in ipairs(a) do if not in_b[j] then return false end end
      return true
    end
    local best, best_n
    for _, l in ipairs(loads) do
      local n = 0
      for _, l2 in ipairs(loads) do if within(cover[l], cover[l2]) then n = n + 1 end end
      if #cover[l] > 0 and (not best or #cover[l] > #cover[best] or #cover[l] == #cover[best] and n > best_n) then
        best, best_n = l, n
      end
    end
    local drawn = best and cover[best] or {}
    local used = {}
    for _, l in ipairs(loads) do
      if #drawn > 0 and within(drawn, cover[l]) then used[#used + 1] = l end
    end
    -- what treatment j has at the loads at (every load it measured where at is nil), its loads
    -- grouped by what it has there: "sustained 1/s, 2/s; saturated at 3/s"
    local function has_at(j, at)
      local order, by = {}, {}
      for _, l in ipairs(at or loads) do
        local st = state[j][l]
        local what = st == nil and (at and "not measured at") or type(st) == "table" and "sustained"
          or st and (st .. " at") or nil
        if what then
          if not by[what] then by[what] = {}; order[#order + 1] = what end
          by[what][#by[what] + 1] = l.text
        end
      end
      local parts = {}
      for _, what in ipairs(order) do parts[#parts + 1] = what .. " " .. table.concat(by[what], ", ") end
      if not at and S[j].unknown_load then parts[#parts + 1] = "a load point whose offered load is unknown" end
      return table.concat(parts, "; ")
    end
    local label_of = function(j) return S[j].x.label end
    if #cands == 0 then
      goto next_panel
    end
    if #drawn == 0 or (#cands > 1 and #drawn < 2) then
      -- nothing two treatments can be set side by side on
      local each = {}
      for _, j in ipairs(cands) do each[#each + 1] = ("%s (%s)"):format(label_of(j), has_at(j)) end
      left_panels = left_panels + 1
      notes[#notes + 1] = ("%s is not drawn: %s: %s. Past saturation a latency measures the queue, which grows "
        .. "with time, and different loads are not like for like."):format(panel_name,
        #cands == 1 and "its one treatment sustained no load with its per-request data"
          or "no load that two treatments both measured and sustained with its per-request data",
        table.concat(each, ", "))
      goto next_panel
    end
    do
      local vals = {}
      for _, j in ipairs(drawn) do
        local parts = {}
        for _, l in ipairs(used) do parts[#parts + 1] = state[j][l] end
        S[j].grids[name] = ch.mix_loads(parts, qs)
        for _, l in ipairs(used) do repeated = repeated or #S[j].at[l].stages > 1 end
        S[j].drawn = true
        for _, qv in ipairs(S[j].grids[name] or {}) do
          if qv[1] >= 1 and qv[1] <= 99 then vals[#vals + 1] = qv[2] end
        end
      end
      local texts = {}
      for _, l in ipairs(used) do texts[#texts + 1] = l.text end
      local lt = table.concat(texts, ", ")
      -- left out: the loads a drawn treatment measured and not pooled, each with why, and the
      -- treatments with this latency not drawn
      local is_used, left = {}, {}
      for _, l in ipairs(used) do is_used[l] = true end
      for _, l in ipairs(loads) do
        if not is_used[l] then
          local why = {}
          for _, j in ipairs(drawn) do
            local st = state[j][l]
            why[#why + 1] = st == nil and ("not measured by %s"):format(label_of(j))
              or type(st) == "string" and ("%s in %s"):format(st, label_of(j)) or nil
          end
          local measured = false
          for _, j in ipairs(drawn) do measured = measured or state[j][l] ~= nil end
          if measured then left[#left + 1] = ("%s (%s)"):format(l.text, table.concat(why, "; ")) end
        end
      end
      for _, j in ipairs(drawn) do
        if S[j].unknown_load then
          left[#left + 1] = ("a load point of %s whose offered load is unknown"):format(label_of(j))
        end
      end
      local absent = {}
      for _, j in ipairs(cands) do
        local is_drawn = false
        for _, d in ipairs(drawn) do is_drawn = is_drawn or d == j end
        if not is_drawn then absent[#absent + 1] = ("%s (%s)"):format(label_of(j), has_at(j, used)) end
      end
      for _, j in ipairs(S) do
        if j.any and not has_kind(j.run, name) then absent[#absent + 1] = ("%s (no per-request data of it)"):format(
          j.x.label) end
      end
      cols[#cols + 1], logs[#logs + 1] = i + 1, wide(vals)
      loads_of[#loads_of + 1], names_of[#names_of + 1] = lt, panel_name
      plabels[#plabels + 1] = lt == ONE and pnl[2] or ("%s at %s"):format(pnl[2], lt)
      texts_of[#texts_of + 1] = { left = left, absent = absent }
    end
    ::next_panel::
  end
  local same, whole = true, true
  for k = 2, #loads_of do same = same and loads_of[k] == loads_of[1] end
  -- (whole: every treatment drawn in every panel drawn)
  for _, s in ipairs(S) do whole = whole and s.any end
  for _, x in ipairs(texts_of) do whole = whole and #x.absent == 0 end
  local who = #S == 1 and "it" or whole and "every treatment" or "every treatment drawn"
  local title = #loads_of == 0 and M.CDF_TITLE or same and loads_of[1] == ONE and M.CDF_TITLE
    or same and ("Per-request latency distributions (CDF) at %s offered, loads %s sustained"):format(loads_of[1], who)
    or ("Per-request latency distributions (CDF) at loads %s sustained (each panel's own)"):format(who)
  local c = new_chart(title)
  local blocks, has = {}, {}
  for k, s in ipairs(S) do
    local r = { name = s.x.label }
    if s.drawn then ch.cdf_rows(r, s.grids, qs) end
    blocks[#blocks + 1], has[k] = r, s.drawn and 1 or 0
  end
  if #cols == 0 then
    local any = false
    for _, s in ipairs(S) do any = any or s.any end
    c.reason = not any and "No treatment kept per-request data, so there are no latency distributions to draw."
      or ("No latency can be drawn at a load the treatments sustained alike: %s"):format(table.concat(notes, " "))
    return c
  end
  -- one note per set of panels pooling the same loads with the same left out
  local groups, by_key = {}, {}
  for k, x in ipairs(texts_of) do
    local left = #x.left > 0 and table.concat(x.left, ", ") or "none"
    local absent = table.concat(x.absent, ", ")
    local key = loads_of[k] .. "|" .. left .. "|" .. absent
    if not by_key[key] then
      by_key[key] = { names = {}, loads = loads_of[k], left = left, absent = absent }
      groups[#groups + 1] = by_key[key]
    end
    by_key[key].names[#by_key[key].names + 1] = names_of[k]
  end
  local out = {}
  for _, g in ipairs(groups) do
    -- ("Every panel" where every latency with per-request data is drawn, at the same loads)
    local panels = same and #groups == 1 and #cols > 1 and (left_panels == 0 and "Every panel" or "Every panel drawn")
      or table.concat(g.names, ", ")
    if g.loads ~= ONE then
      out[#out + 1] = ("%s: the requests at %s offered%s, each load weighted equally%s; loads left out: %s.")
        :format(panels, g.loads, g.loads:find(",", 1, true) and " pooled" or "",
          repeated and " (a load's repeats by their request counts)" or "", g.left)
    end
    if #g.absent > 0 then
      out[#out + 1] = ("%s: not drawn: %s."):format(panels, g.absent)
    end
  end
  for _, n in ipairs(notes) do out[#out + 1] = n end
  out[#out + 1] = M.chart_gpus_note(gmode, gwords, true)
  out[#out + 1] = "Untested: the curves are figures, not a test (the tables weigh the treatments' latencies at the "
    .. "common load only); curves apart are not shown to differ, and only the Verdict orders the treatments."
  c.notes = out
  c.data = block_text("percentile ttft_ms tpot_ms itl_ms e2e_ms", blocks)
  c.vars[#c.vars + 1] = { "has", has }
  c.vars[#c.vars + 1] = { "panel_col", cols }
  c.vars[#c.vars + 1] = { "panel_label", plabels }
  c.vars[#c.vars + 1] = { "panel_log", logs }
  c.available = true
  return c
end

local function charts_of(m, T, list, out, suffix, about)
  local labels = {}
  for i, x in ipairs(T) do labels[i] = x.label end
  -- px: the chart's width as its template sets it. A title longer than a line of it (a
  -- workload's description after the chart's name) is wrapped, at most 3 lines, never
  -- clipped at both ends (gnuplot centres one line whatever its length); title_lines tells
  -- the template the room to leave above the panels
  -- throughput per GPU where every count is known and they differ (M.chart_gpus); the
  -- legend then names each one's GPUs
  local gmode, gwords = M.chart_gpus(T)
  local glabels = {}
  for i, x in ipairs(T) do
    glabels[i] = gmode == "per_gpu" and ("%s (%g GPU%s)"):format(x.label, x.gpus, x.gpus == 1 and "" or "s") or x.label
  end
  local function per(x) return gmode == "per_gpu" and x.gpus or 1 end
  local function set_var(c, name, v)
    for _, nv in ipairs(c.vars) do if nv[1] == name then nv[2] = v; return end end
    c.vars[#c.vars + 1] = { name, v }
  end
  local function chart(name, title, px)
    title = title .. (about or "")
    local lines = require("llmd.charts").wrap(title, px // M.TITLE_CHAR_PX, 3)
    return { name = name .. (suffix or ""), template = name, title = title, available = false, notes = {},
      vars = { { "title", lines }, { "title_lines", type(lines) == "table" and #lines.lines or 1 },
        { "labels", labels } } }
  end

  -- 1. latency against achieved load; where every treatment measured one load point, no
  -- curve: each one's value there with its repeats' interval, side by side (M.point_chart)
  local panels, pnotes = latency_panels(T)
  local function none(f) return { "no_" .. f, "" } end -- a family no treatment has: no panel
  local blocks, cols, plabels, logs, slos = {}, {}, {}, {}, {}
  local most = 0
  for _, x in ipairs(T) do most = math.max(most, #x.points) end
  local c
  if most == 1 then
    c = M.point_chart(m, T, chart("treatments_latency_throughput", M.POINT_TITLE, math.max(640, 160 * #T + 140)))
    out[#out + 1] = c
  else
    c = chart("treatments_latency_throughput", gmode == "per_gpu"
      and "Latency against achieved load per GPU, every treatment" or "Latency against achieved load, every treatment",
      900)
    if gmode == "per_gpu" then
      c.vars[#c.vars + 1] = { "xlabel", "achieved request rate per GPU (req/s per GPU)" }
      set_var(c, "labels", glabels)
    end
    c.notes[#c.notes + 1] = M.chart_gpus_note(gmode, gwords)
    local LT_PANELS = { panels.ttft or none("ttft"), panels.tpot or none("tpot"), panels.e2e or none("e2e") }
    for _, n in ipairs(pnotes) do c.notes[#c.notes + 1] = n end
    -- the axes: x from 0 to a margin past the highest achieved rate, y from 0 (a log panel: from
    -- its lowest value) to a margin past the highest value or the panel's SLO, whichever is
    -- higher, so that the SLO line is always drawn and gnuplot's autoscale never stretches a
    -- difference of 0.01 % across the whole plot (two treatments of one load point each, not
    -- shown to differ, drawn in opposite corners: llmd.charts.axis_max)
    local xmax, ymins, ymaxs = 0, {}, {}
    for _, x in ipairs(T) do
      for _, p in ipairs(x.points) do
        if finite(p.achieved_rps) then xmax = math.max(xmax, p.achieved_rps / per(x)) end
      end
    end
    for i, pnl in ipairs(LT_PANELS) do
      -- only points drawn: an achieved rate to place them (a benchmark report whose rate fields
      -- contradict each other has none) and the panel's latency
      local vals = {}
      for _, x in ipairs(T) do
        for _, p in ipairs(x.points) do
          if finite(p.achieved_rps) then vals[#vals + 1] = p.values[pnl[1]] end
        end
      end
      local hi
      for _, v in ipairs(vals) do
        if finite(v) then hi = math.max(hi or v, v) end
      end
      if #vals > 0 then
        local log = wide(vals)
        cols[#cols + 1], plabels[#plabels + 1], logs[#logs + 1] = i + 1, pnl[2], log
        local lim = 0 / 0
        for _, sl in ipairs(m.slo) do if sl.key == pnl[1] then lim = sl.max end end
        slos[#slos + 1] = lim
        if finite(lim) and lim > 0 then hi = math.max(hi or lim, lim) end
        -- (a log panel's margin is a share of its decades, not of its top value: the two-run
        -- chart's rule, llmd.charts.log_range)
        local ch = require "llmd.charts"
        local ymin, ymax = 0, hi and ch.axis_max(hi) or 0 / 0
        if log then
          ymin, ymax = ch.log_range(vals, lim)
          ymin, ymax = ymin or 0 / 0, ymax or (hi and ch.axis_max(hi)) or 0 / 0
        end
        ymins[#ymins + 1], ymaxs[#ymaxs + 1] = ymin, ymax
      end
    end
    local any_sat, any_fail, caps, bounds, bound_dirs, cnote = false, false, {}, {}, {}, {}
    for _, x in ipairs(T) do
      local rows = { name = x.label }
      local pts = {}
      for _, p in ipairs(x.points) do if finite(p.achieved_rps) then pts[#pts + 1] = p end end
      -- (joined in load order, as compare.lua's chart joins them: llmd.charts.load_order)
      table.sort(pts, require("llmd.charts").load_order)
      -- saturated (a ring) and failures (a triangle) as compare.lua's chart marks them
      -- (llmd.charts.point_marks): a treatment's points past its saturation are an overload's
      -- queue, not its latency at that load
      for _, p in ipairs(pts) do
        local sat, fail = require("llmd.charts").point_marks(x.saturation, p)
        any_sat, any_fail = any_sat or sat == true, any_fail or fail == true
        rows[#rows + 1] = { n = 6, p.achieved_rps / per(x), p.values[LT_PANELS[1][1]], p.values[LT_PANELS[2][1]],
          p.values[LT_PANELS[3][1]], sat and 1 or 0, fail and 1 or 0 }
      end
      blocks[#blocks + 1] = rows
      -- its capacity at the SLOs: an estimate as a dotted line, a bound as a dashed line with
      -- an arrow the way it may lie (llmd.charts.capacity_bound, compare.lua's marks); NaN: none
      local k = x.capacity
      local b, dir = require("llmd.charts").capacity_bound(k, "rps")
      local est = type(k) == "table" and k.kind == "interpolated" and finite(k.rps) and k.rps or nil
      caps[#caps + 1] = est and est / per(x) or 0 / 0
      bounds[#bounds + 1] = b and b / per(x) or 0 / 0
      bound_dirs[#bound_dirs + 1] = b and dir or 0
      cnote[#cnote + 1] = require("llmd.charts").bound_note(k, x.label, gmode == "per_gpu" and "in total " or "")
    end
    if #cols == 0 then
      c.reason = "No treatment has latency percentiles at a load point whose achieved request rate is known."
    else
      c.data = block_text(("achieved_req_s %s %s %s saturated failures"):format(LT_PANELS[1][1], LT_PANELS[2][1],
        LT_PANELS[3][1]), blocks)
      c.vars[#c.vars + 1] = { "saturated", any_sat }
      c.vars[#c.vars + 1] = { "failures", any_fail }
      c.vars[#c.vars + 1] = { "cap", caps }
      c.vars[#c.vars + 1] = { "bound", bounds }
      c.vars[#c.vars + 1] = { "bound_dir", bound_dirs }
      for _, n in ipairs(cnote) do c.notes[#c.notes + 1] = n end
      c.vars[#c.vars + 1] = { "panel_col", cols }
      c.vars[#c.vars + 1] = { "panel_label", plabels }
      c.vars[#c.vars + 1] = { "panel_log", logs }
      c.vars[#c.vars + 1] = { "slo", slos }
      c.vars[#c.vars + 1] = { "xmax", require("llmd.charts").axis_max(xmax) }
      c.vars[#c.vars + 1] = { "ymin", ymins }
      c.vars[#c.vars + 1] = { "ymax", ymaxs }
      c.available = true
    end
    out[#out + 1] = c
  end

  -- 2. bars: each treatment at the common load (the load the latency table compares them
  -- at), never a mean over its load points: a treatment measured further past its
  -- saturation has taller bars over its own ladder, so a mean over ladders that differ can
  -- draw the worse configuration as the faster. Whiskers: the repeats' 95 % CI where the
  -- point there was repeated, else the two measured neighbours an interpolated value lies
  -- between (all the measurements say of it), else none.
  c = chart("treatments_bars", m.common_load and ("At the common load, %s%s"):format(m.common_text or "",
    gmode == "per_gpu" and " in total" or "") or "At the common load", math.max(600, 140 + 70 * #T))
  local rows, any, has_panel = { name = "treatments" }, false, {}
  local BAR_PANELS = { panels.ttft or none("ttft"), panels.e2e or none("e2e"),
    { "output_tps", gmode == "per_gpu" and "output tokens/s per GPU" or "output tokens/s", per_gpu = true } }
  if gmode == "per_gpu" then
    set_var(c, "labels", glabels)
    c.notes[#c.notes + 1] = ("Output tokens/s per GPU: each treatment's divided by its GPUs (%s), as the ranking per "
      .. "GPU reads them. The common load is a total: the latencies are at the same load in all, spread over "
      .. "different numbers of GPUs."):format(gwords)
  elseif gmode == "totals" then
    c.notes[#c.notes + 1] = ("On totals, not per GPU: the GPU counts differ or are not all known (%s), so the "
      .. "output tokens/s favour the one with more hardware (give --gpus LABEL=N for them per GPU)."):format(gwords)
  end
  for _, n in ipairs(pnotes) do
    if not n:find("^TPOT") and not n:find("^ITL") then c.notes[#c.notes + 1] = n end
  end
  -- every treatment saturated at the common load: bars side by side would set one overload's
  -- queue (which grows with the run's length) against another's, and read as a winner
  -- (88,656 ms against 5,327 ms) where the Verdict names none: not drawn, and why
  local all_saturated = m.common_load ~= nil and #(m.saturated_at_common or {}) == #T
  if all_saturated then
    c.reason = ("Every treatment is saturated at the common load (%s): their latencies there are each overloaded "
      .. "server's queue, which grows with the run's length, so bars side by side would compare overloads, not "
      .. "configurations (not comparable); the latency table above gives the figures, marked saturated.")
      :format(m.common_text or "unknown")
  end
  -- latencies at the common load without an interval (too few effective requests, the
  -- queue's neighbours alike; no per-request data): bars side by side would show a gap
  -- nothing weighs (one server's two runs, 559.6 against 285.9 ms TTFT p90 at 10 req/s, by
  -- seed alone), so the chart is left out, and why
  local no_noise, no_interval = {}, {}
  if m.common_load and not all_saturated then
    for i, x in ipairs(T) do
      local r = { n = 1 + 3 * #BAR_PANELS, i - 1 }
      for j, pnl in ipairs(BAR_PANELS) do
        local key = pnl[1]
        local v, interp, p1, p2 = lp.at(x.points, m.common_load, key, m.common_axis)
        if finite(v) then
          -- (no interval: NaN, no whisker at all; one from v to v drew a cap on the bar, which
          -- read as a figure known exactly: the template pales the bar and writes "no interval")
          local lo, hi, why = 0 / 0, 0 / 0, nil
          -- a latency: its whisker is its noise there, as the Pareto front weighs it
          local nz = {}
          if not pnl.per_gpu then
            local p = type(p1) == "table" and p1 or point_at(x.points, m.common_load, m.common_axis)
            nz = p and M.latency_noise(key, p, interp == true and type(p2) == "table" and p2 or nil)
              or { unclear = "its measured point there is not known" }
            -- (one saturated there is drawn hatched and labelled so, its figure an overload's
            -- queue, which no interval weighs: below, "its bars show an overloaded server")
            if nz.unclear and not x.saturated_at_common then
              no_noise[#no_noise + 1] = ("%s's %s (%s)"):format(x.label, metrics.get(key).label, nz.unclear)
            end
            -- (a summary file's: its noise unknown, no interval, drawn pale and said so below)
          end
          if nz.lo then
            lo, hi = nz.lo, nz.hi
          elseif interp == true and p1 and p2 then
            local vl, vh = lp.field(p1, key), lp.field(p2, key)
            if finite(vl) and finite(vh) then lo, hi = math.min(vl, vh), math.max(vl, vh) end
          else
            local p = point_at(x.points, m.common_load, m.common_axis)
            -- (identical repeats: an interval of width 0 would read as certainty)
            local ci = lp.ci_of(p, key)
            if ci and not ci.identical and finite(ci.lo) and finite(ci.hi) then
              lo, hi = ci.lo, ci.hi
            elseif p and (p.repeats or 1) >= 2 then
              why = ci and ci.identical and "its repeats all one value" or "its repeats give no interval of it"
            end
          end
          local d = pnl.per_gpu and per(x) or 1
          r[3 * j - 1], r[3 * j], r[3 * j + 1] = v / d, lo / d, hi / d
          if not finite(lo) then no_interval[#no_interval + 1] = ("%s's %s%s"):format(x.label,
            pnl.per_gpu and "output tokens/s" or metrics.get(key).label, why and (" (%s)"):format(why) or "") end
          any, has_panel[j] = true, true
        end
      end
      rows[#rows + 1] = r
    end
    -- in the chart too, not only below it: each bar of a treatment saturated or mildly
    -- overloaded at this load hatched and labelled so above it (the template's overload[t])
    local overload, marked = {}, 0
    for i, x in ipairs(T) do
      overload[i] = x.saturated_at_common and 1 or x.mild_at_common and 2 or 0
      if overload[i] > 0 then marked = marked + 1 end
    end
    set_var(c, "overload", overload)
    if marked > 0 then
      c.notes[#c.notes + 1] = ("Hatched bars, labelled \"saturated\" or \"mild overload\" above them, are of a "
        .. "treatment overloaded at this load (here %s): they show an overloaded server's latencies, not a sustained "
        .. "load's."):format(marked == #T and (#T == 2 and "both" or ("all %d"):format(#T))
        or ("%d of %d"):format(marked, #T))
    end
    for _, s in ipairs(m.saturated_at_common or {}) do
      c.notes[#c.notes + 1] = ("%s is saturated at this load: its bars show an overloaded server."):format(s.label)
    end
    for _, f in ipairs(m.failing_at_common or {}) do
      c.notes[#c.notes + 1] = ("%s fails requests here: its latencies are of the requests that succeeded only.")
        :format(f.label)
    end
    for _, f in ipairs(m.mild_at_common or {}) do
      c.notes[#c.notes + 1] = ("%s is mildly overloaded here: it answered %s %% of its sends."):format(f.label,
        f.share_text)
    end
    c.notes[#c.notes + 1] = "Whiskers: of a latency, its 95 % interval there, as the Pareto front weighs it (the "
      .. "repeats' where the point was repeated, else its percentile's from its own requests, their design effect "
      .. "counted; an interpolated value's spans both measured points' intervals, or their values where their noise is "
      .. "unknown); of output tokens/s, the repeats' 95 % confidence interval, else the two measured load points an "
      .. "interpolated value lies between."
    if not m.latency_best then
      c.notes[#c.notes + 1] = "Untested: the bars are figures, not a test; latencies whose whiskers overlap are not "
        .. "shown to differ, and only the Verdict orders the treatments."
    end
    if #no_interval > 0 then
      c.notes[#c.notes + 1] = ("Pale bars marked \"no interval\" have no whisker: nothing measured their noise "
        .. "there (one run at that load, and for a latency no per-request data), so each is one figure, not an exact "
        .. "one: %s."):format(table.concat(no_interval, ", "))
    end
    -- (one treatment alone, in its workload: no bar beside it to read a gap against)
    if #no_noise > 0 and #T == 1 then no_noise = {} end
    if #no_noise > 0 then
      any = false
      c.notes = {} -- (c.reason says why)
      c.reason = ("No interval of %s at the common load (%s): bars side by side would show a gap that nothing "
        .. "weighs (two runs of one server can differ there by seed alone), so the latency table alone gives the "
        .. "figures, untested."):format(table.concat(no_noise, "; "), m.common_text or "unknown")
    end
  end
  if any then
    local function cols3(key) return ("%s %s_lo %s_hi"):format(key, key, key) end
    c.data = block_text(("treatment %s %s %s"):format(cols3(BAR_PANELS[1][1]), cols3(BAR_PANELS[2][1]),
      cols3("output_tps")), { rows })
    local pl, pc = {}, {}
    for j, pnl in ipairs(BAR_PANELS) do
      if has_panel[j] then pl[#pl + 1], pc[#pc + 1] = pnl[2], 3 * j - 1 end
    end
    c.vars[#c.vars + 1] = { "panel_col", pc }
    c.vars[#c.vars + 1] = { "panel_label", pl }
    -- the panels side by side (or stacked: M.bars_layout), the title wrapped to that width
    local pw, ncols, w = M.bars_layout(#T, #pl)
    c.vars[#c.vars + 1] = { "panel_w", pw }
    c.vars[#c.vars + 1] = { "cols", ncols }
    local lines = require("llmd.charts").wrap(c.title, w // M.TITLE_CHAR_PX, 3)
    set_var(c, "title", lines)
    set_var(c, "title_lines", type(lines) == "table" and #lines.lines or 1)
    -- the names under the bars, at 12 pt: rotated where they would run into each other (a
    -- slot: the panel's plot width, less its margins of 12 and 3 characters, over k)
    local names = {}
    for _, nv in ipairs(c.vars) do if nv[1] == "labels" then names = nv[2] end end
    local rot, room, tics, cut = M.tic_layout(names, (pw - 15 * M.GP_CHAR_PX) / #T, M.first_tic_px("bars", #T, pw),
      nil, 12)
    c.vars[#c.vars + 1] = { "tic_rotate", rot }
    c.vars[#c.vars + 1] = { "tic_room", room }
    c.vars[#c.vars + 1] = { "tics", tics }
    if #cut > 0 then
      c.notes[#c.notes + 1] = ("Names cut short under the bars (\"...\"): %s; the tables give them in full.")
        :format(table.concat(cut, ", "))
    end
    c.available = true
  elseif all_saturated or #no_noise > 0 then
    c.notes = {} -- (c.reason says why)
  elseif not m.common_load then
    c.reason = "No common load to draw the treatments at: " .. tostring(m.common_why or "unknown") .. "."
  else
    c.reason = "No treatment has TTFT, E2E latency or throughput at the common load."
  end
  out[#out + 1] = c

  -- 3. CDF overlays at the loads every treatment drawn sustained (M.cdf_chart)
  c = M.cdf_chart(T, list, function(title) return chart("treatments_cdf", title, 900) end)
  out[#out + 1] = c
  return out
end

-- The N-way charts of model m (from M.model) and the treatments' list: one set (latency
-- against load, bars, CDFs) per workload where the model has several (m.workloads), each
-- titled with its workload and drawing only its treatments, so that no chart puts two
-- workloads side by side; else one set of every treatment.
function M.charts(m, list)
  local out = {}
  if not m.workloads then return charts_of(m, m.treatments, list, out) end
  local entry = {}
  for _, t in ipairs(list) do entry[t.label] = t end
  for i, w in ipairs(m.workloads) do
    local T, L, in_w = {}, {}, {}
    for _, label in ipairs(w.treatments) do in_w[label] = true end
    for _, x in ipairs(m.treatments) do
      if in_w[x.label] then T[#T + 1], L[#L + 1] = x, entry[x.label] end
    end
    local name = w.workload:match("^workload ") and w.workload or ("workload " .. w.workload)
    -- the workload's own common load, and its treatments' notes there
    local wm = { slo = m.slo, common_load = w.common_load or nil, common_axis = w.common_axis or nil,
      common_text = w.common_text or nil, common_why = w.common_why or nil, saturated_at_common = {},
      failing_at_common = {}, mild_at_common = {} }
    for _, k in ipairs { "saturated_at_common", "failing_at_common", "mild_at_common" } do
      for _, d in ipairs(m[k] or {}) do if in_w[d.label] then wm[k][#wm[k] + 1] = d end end
    end
    charts_of(wm, T, L, out, ("_w%d"):format(i), (": %s%s"):format(name, w.signature and (" (" .. w.signature .. ")")
      or ""))
  end
  return out
end

-- Experiment workspaces ----------------------------------------------------------------------

function M.subdirs(dir)
  local lfs = require "lfs"
  local out = {}
  for name in lfs.dir(dir) do
    if name ~= "." and name ~= ".." and lfs.attributes(dir .. "/" .. name, "mode") == "directory" then
      out[#out + 1] = name
    end
  end
  table.sort(out)
  return out
end

-- The treatments of an experiment.lua workspace: each setup treatment with results, its
-- run treatments the load points of one curve when they are a load sweep (no two of them
-- at the same offered load), else each setup x run pair on its own. Returns the list
-- (with .experiment and .unit, the unit said in words).
-- A setup treatment's accelerators, from the values it was deployed with (its
-- plan/values-override.yaml: the plan's values, the constants and its own overrides): for
-- decode and prefill, replicas x GPUs per replica (parallelism.tensor x parallelism.data,
-- data 1 when not given). Returns the count (nil when a role's replicas or tensor
-- parallelism is not in the values: the chart's defaults are not known here) and what the
-- values say ("decode.replicas 2", nil when they say no replicas).
function M.setup_gpus(path)
  -- (no such file: unknown; one that is not YAML: its reader's error, never "no GPUs known")
  if require("lfs").attributes(path, "mode") ~= "file" then return nil, nil end
  local ok, v = pcall(require("llmd.yaml").load_file, path)
  if not ok then error(require("llmd.errors").text(v), 0) end
  if type(v) ~= "table" then return nil, nil end
  local total, known, said = 0, true, {}
  for _, role in ipairs { "decode", "prefill" } do
    local r = type(v[role]) == "table" and v[role] or nil
    local reps = r and tonumber(r.replicas)
    if reps then said[#said + 1] = ("%s.replicas %g"):format(role, reps) end
    local par = r and type(r.parallelism) == "table" and r.parallelism or {}
    local tp, dp = tonumber(par.tensor), tonumber(par.data) or 1
    -- (replicas 0: no pods of this role, nothing to count)
    if reps and reps > 0 and tp then
      total = total + reps * tp * dp
    elseif (role == "decode" and not reps) or (reps and reps > 0) then
      known = false
    end
  end
  return known and total > 0 and total or nil, #said > 0 and table.concat(said, ", ") or nil
end

-- Setup treatments (names: {setup =, dir =}) deployed with the same values: every setup
-- treatment of an experiment has the plan's deploy and benchmark, so two whose values
-- (plan/values-override.yaml: the plan's values, the constants and their own overrides;
-- none for either, the plan's deploy as it is) are the same deployed one configuration, and
-- comparing them is an A/A check, as compare.lua says of a plan's two runs alike
-- (llmd.report's same_plan_config). The Verdict's text saying so, or nil.
function M.same_setups(names)
  local lfs = require "lfs"
  local report = require "llmd.report"
  local vals = {}
  for i, n in ipairs(names) do
    local p = n.dir .. "/plan/values-override.yaml"
    if lfs.attributes(p, "mode") == "file" then
      local ok, v = pcall(require("llmd.yaml").load_file, p)
      vals[i] = ok and { v = v } or false -- (unreadable: not known to be the same as any)
    else
      vals[i] = { v = nil }
    end
  end
  local groups, taken = {}, {}
  for i = 1, #names do
    if vals[i] and not taken[i] then
      local g = { names[i].setup }
      for j = i + 1, #names do
        if vals[j] and not taken[j] and report.same_value(vals[i].v, vals[j].v) then
          g[#g + 1] = names[j].setup
          taken[j] = true
        end
      end
      if #g > 1 then groups[#groups + 1] = g end
    end
  end
  if #groups == 0 then return nil end
  local said = {}
  for _, g in ipairs(groups) do
    said[#said + 1] = #g == 2 and ("%s and %s"):format(g[1], g[2])
      or ("%s and %s"):format(table.concat(g, ", ", 1, #g - 1), g[#g])
  end
  return ("setup treatments %s deployed the same configuration (the same values in their "
    .. "plan/values-override.yaml, and the plan's deploy and benchmark), so comparing them is an A/A check: a "
    .. "difference between them is run-to-run variation, not a configuration's"):format(table.concat(said, "; "))
end

-- Treatments given as results folders (--run, --results) whose results were made on a
-- simulated cluster (the run_state.json beside or above a folder says so:
-- llmd.workspace.simulated_record): the text the report says first (list.simulated, as an
-- experiment's cells), or nil when none was.
function M.simulated_folders(list)
  local ws = require "llmd.workspace"
  local who, nodes = {}, {}
  for _, t in ipairs(list) do
    local found
    for _, d in ipairs(t.dirs or {}) do
      local sim = ws.simulated_record(d)
      if sim then
        found = true
        if not nodes[sim] then
          nodes[sim] = true
          nodes[#nodes + 1] = sim
        end
      end
    end
    if found then who[#who + 1] = t.label end
  end
  if #who == 0 then return nil end
  return ("%d of the treatments (%s) ran on a simulated cluster (llmdlua's fake one, whose benchmarks replay "
    .. "recorded result files: %s): their figures are those files', not measurements of the treatments named "
    .. "here"):format(#who, table.concat(who, ", "), table.concat(nodes, "; "))
end

function M.experiment_list(w, opts)
  local lfs = require "lfs"
  local json = require "llmd.json"
  opts = opts or {}
  if lfs.attributes(w .. "/experiment-state.json", "mode") ~= "file" then
    error(("%s: not an experiment workspace (no experiment-state.json)"):format(w), 0)
  end
  -- (one that is not JSON: its reader's file:line:col)
  local st = json.read(w .. "/experiment-state.json")
  -- the first line of a message of several, and where the rest is (as the summary table says it)
  local function one_line(msg)
    local lines = {}
    for l in (tostring(msg) .. "\n"):gmatch("([^\r\n]*)\r?\n") do
      if l:match("%S") then lines[#lines + 1] = l:gsub("^%s+", ""):gsub("%s+$", "") end
    end
    if #lines == 0 then return "no reason recorded" end
    return lines[1] .. (#lines > 1 and (" (%d more line%s: see %s/experiment-summary.yaml)"):format(#lines - 1,
      #lines > 2 and "s" or "", w) or "")
  end
  -- what the design has and the comparison cannot: a setup treatment with no results (a failed
  -- standup, one not started) and a run treatment whose results cannot be read. Each is named
  -- in the report with its status and why (list.not_measured), never left out unsaid.
  local names, not_measured, cache = {}, {}, {}
  for _, r in ipairs(st.results or {}) do
    local d = w .. "/setup-treatment-" .. r.setup_treatment
    local rts, unread = {}, {}
    if lfs.attributes(d, "mode") == "directory" then
      for _, sub in ipairs(M.subdirs(d)) do
        local dir = d .. "/" .. sub .. "/results"
        if sub:match("^run%-") and sub ~= "run-stack" and lfs.attributes(dir, "mode") then
          -- read once: M.load takes the run from list.cache
          local pok, probe = pcall(M.load, { { label = sub:sub(5), dirs = { dir } } }, opts)
          if pok then
            rts[#rts + 1] = sub:sub(5)
            if probe[1].runs[1] then cache[dir] = probe[1].runs[1] end
          else
            unread[#unread + 1] = { label = r.setup_treatment .. "/" .. sub:sub(5),
              status = tostring(r.status or "unknown"), reason = one_line(probe) }
          end
        end
      end
    end
    if #rts > 0 then
      names[#names + 1] = { setup = r.setup_treatment, dir = d, rts = rts }
      names[#names].gpus, names[#names].hardware = M.setup_gpus(d .. "/plan/values-override.yaml")
      for _, u in ipairs(unread) do not_measured[#not_measured + 1] = u end
    else
      local why = r.error or (unread[1] and unread[1].reason)
        or (r.status == "pending" and "not run (yet)" or "no results")
      not_measured[#not_measured + 1] = { label = r.setup_treatment, status = tostring(r.status or "unknown"),
        reason = one_line(why) }
    end
  end
  if #names == 0 then
    local said = {}
    for _, x in ipairs(not_measured) do said[#said + 1] = ("%s (%s: %s)"):format(x.label, x.status, x.reason) end
    error(w .. ": no setup treatment has results yet" .. (#said > 0 and (": " .. table.concat(said, "; ")) or ""), 0)
  end
  local sweep = true
  for _, n in ipairs(names) do
    local seen = {}
    for _, rt in ipairs(n.rts) do
      local dir = n.dir .. "/run-" .. rt .. "/results"
      local probe = M.load({ { label = rt, dirs = { dir } } }, { harness = opts.harness, cache = cache })
      for _, s in ipairs(probe[1].run and probe[1].run.stages or {}) do
        local kind, load = lp.offered(s)
        if not load then sweep = false end
        for _, x in ipairs(seen) do
          if x.kind == kind and x.rt ~= rt and lp.close(x.load, load or -1) then sweep = false end
        end
        seen[#seen + 1] = { kind = kind, load = load, rt = rt }
      end
    end
  end
  -- one curve only when the run treatments differ in the load alone (llmd.experiment.load_key:
  -- load.stages...): one that also sets another key (input length, prefix groups, load.type) is
  -- another workload, and a max sustained throughput across them would mix two workloads.
  -- Their keys are the workspace's experiment.yaml's (experiment.lua copies it there; one it
  -- cannot read: each pair on its own; none, a workspace made otherwise: by the loads alone, said)
  local why_pairs = not sweep and "the run treatments are not one load sweep" or nil
  local keys_unknown
  if sweep and lfs.attributes(w .. "/experiment.yaml", "mode") == nil then
    keys_unknown = "; no experiment.yaml in the workspace to tell which keys they set, so read as a sweep by "
      .. "their offered loads alone"
  elseif sweep then
    local ex = require "llmd.experiment"
    local rtnames, seen_rt = {}, {}
    for _, n in ipairs(names) do
      for _, rt in ipairs(n.rts) do
        if not seen_rt[rt] then seen_rt[rt] = true; rtnames[#rtnames + 1] = rt end
      end
    end
    local eok, e = pcall(ex.load, w .. "/experiment.yaml")
    local other = eok and ex.workload_keys(e, rtnames)
    if not eok then
      sweep, why_pairs = false, "the run treatments' keys are not known (" .. w .. "/experiment.yaml: "
        .. one_line(require("llmd.errors").text(e)) .. "), so they are not known to be one load sweep"
    elseif #other > 0 then
      sweep, why_pairs = false, ("the run treatments set %s, not only the load (load.stages), so each is its "
        .. "own workload"):format(table.concat(other, ", "))
    end
  end
  local list = {}
  for _, n in ipairs(names) do
    for _, rt in ipairs(n.rts) do
      local label = sweep and n.setup or (n.setup .. "/" .. rt)
      local found
      for _, x in ipairs(list) do if x.label == label then found = x end end
      if not found then
        -- pairs: each one's run treatment is its workload (ranked only among its own)
        found = { label = label, dirs = {}, workload = not sweep and rt or nil, values_gpus = n.gpus,
          hardware = n.hardware }
        list[#list + 1] = found
      end
      found.dirs[#found.dirs + 1] = n.dir .. "/run-" .. rt .. "/results"
    end
  end
  list.experiment = st.experiment
  -- cells run on a simulated cluster (run_state.json's simulated, llmd.cluster's: the nodes
  -- that say so): said first in the report, in compare.lua's words (llmd.report.simulated_text)
  local sim_cells, sim_nodes = {}, {}
  for _, n in ipairs(names) do
    for _, rt in ipairs(n.rts) do
      local sf = n.dir .. "/run-" .. rt .. "/run_state.json"
      local sok, rs = pcall(json.read, sf)
      if sok and type(rs) == "table" and type(rs.simulated) == "string" then
        sim_cells[#sim_cells + 1] = n.setup .. "/" .. rt
        if not sim_nodes[rs.simulated] then
          sim_nodes[rs.simulated] = true
          sim_nodes[#sim_nodes + 1] = rs.simulated
        end
      end
    end
  end
  if #sim_cells > 0 then
    list.simulated = require("llmd.report").simulated_text(
      ("%d of the cells (%s)"):format(#sim_cells, table.concat(sim_cells, ", ")), #sim_cells > 1, sim_nodes,
      "treatments")
  end
  list.same_config = M.same_setups(names)
  list.base = w -- (warnings name its folders relative to it: M.shown_dir)
  list.cache = cache
  list.not_measured = not_measured
  list.unit = sweep and ("setup treatments (their run treatments are the load points of one curve%s)"):format(
    keys_unknown or "")
    or ("setup x run treatment pairs (%s)"):format(why_pairs)
  return list
end

return M
