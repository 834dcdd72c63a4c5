-- llmd.harness: the registry of harness mappings, one file each in llmd/harness/.
--
--   local harness = require "llmd.harness"
--   local run = harness.extract("results/", { harness = "guidellm", warmup = { 0 } })
--   harness.list()            -- the mapping modules, sorted by name
--   harness.detect(dir)       -- { {harness = module, dir =, files = {...}}, ... }
--
-- Adding a harness is adding a file llmd/harness/NAME.lua (beside this one, or in a folder
-- on LLMDLUA_PATH) returning { name =, describe =, detect = function(dir) -> candidates,
-- extract = function(candidate, opts) -> run model } (see llmd.runmodel).
--
-- opts for extract: harness (name, to choose), file (one result file: the only one of its
-- folder that detection sees), tolerant (claimed files that cannot be read are left out
-- with a warning instead of an error), warmup (stage indexes to leave out of the
-- totals), percentile_method ("linear", the default, or "nearest") for what is computed
-- from per-request data, sketch (relative error: bounded memory for huge files), kvcache
-- (true: add the prefix-cache figures from the run's vLLM scrapes, as extract.lua does).
-- Any other key is an error naming it (llmd.opts).
local lfs = require "lfs"
local rm = require "llmd.runmodel"

local M = {}

local loaded

-- Every llmd/harness/*.lua on package.path, first found wins, sorted by file name.
function M.list()
  if loaded then return loaded end
  local seen, mods = {}, {}
  for template in package.path:gmatch("[^;]+") do
    local root = template:match("^(.*)/%?%.lua$")
    local d = root and root .. "/llmd/harness"
    if d and lfs.attributes(d, "mode") == "directory" then
      local names = {}
      for name in lfs.dir(d) do
        local mod = name:match("^([%w_]+)%.lua$")
        if mod and mod ~= "init" and not seen[mod] then names[#names + 1] = mod end
      end
      table.sort(names)
      for _, mod in ipairs(names) do
        seen[mod] = true
        local h = require("llmd.harness." .. mod)
        if type(h) ~= "table" or type(h.detect) ~= "function" or type(h.extract) ~= "function" or not h.name then
          error(("%s/%s.lua: a harness must return {name=, detect=, extract=}"):format(d, mod), 0)
        end
        h.module = mod
        mods[#mods + 1] = h
      end
    end
  end
  table.sort(mods, function(a, b) return a.module < b.module end)
  loaded = mods
  return mods
end

-- The harness called name ("inference-perf" or "inference_perf"), or an error listing them,
-- with the one it most likely meant (as the CLI's --harness says: 'vllm' is vllm-benchmark).
-- level is error()'s (default 0: no position); who names the function in the message.
function M.get(name, level, who)
  local names = {}
  for _, h in ipairs(M.list()) do
    if h.name == name or h.module == name or h.module == tostring(name):gsub("%-", "_") then return h end
    names[#names + 1] = h.name
  end
  local near = require("llmd.opts").closest(name, names)
  error(("%sunknown harness '%s' (%sknown: %s)"):format(who and (who .. ": ") or "", tostring(name),
    near and ("did you mean '%s'? "):format(near) or "", table.concat(names, ", ")), level and level + 1 or 0)
end

-- A script's harness option checked where the script gave it: a name no harness has is an
-- error naming the script's line (newuser52 #9: `harness.extract(dir, {harness = "vllm"})`
-- was "llmdlua: unknown harness 'vllm'", no line, no guess). level counts from the caller of
-- the function that calls this.
local function check_harness(name, who)
  if name ~= nil then M.get(name, 3, who) end
end

function M.detect(dir, only)
  check_harness(only, "harness.detect")
  local out = {}
  for _, h in ipairs(only and { M.get(only) } or M.list()) do
    for _, c in ipairs(h.detect(dir)) do
      c.harness = h
      out[#out + 1] = c
    end
  end
  return out
end

local function rel(dir, p)
  if p:sub(1, #dir + 1) == dir .. "/" then return p:sub(#dir + 2) end
  return p
end

-- The one line that refuses a run holding one result twice: dir, the two files, how they
-- are the same, and how many more such pairs there are.
function M.duplicate_text(dir, p1, p2, how, more)
  return ("%s: %s and %s %s: read as one run, the copy would count "
    .. "as one more repeat or load point, a measurement counted twice; remove one of them%s"):format(dir,
      rel(dir, p1), rel(dir, p2), how, more > 0 and (" (and %d more such pair%s)"):format(more, more == 1 and "" or "s")
      or "")
end

-- The one candidate under dir, nil and a reason when there is none, an error when there
-- are several (it lists them, and how to choose).
function M.resolve(dir, opts)
  if type(dir) ~= "string" then
    error(("harness.resolve: argument 1 (dir): expected a results folder's path (a string), got %s"):format(
      type(dir)), 2)
  end
  opts = opts or {}
  check_harness(opts.harness, "harness.resolve")
  dir = dir:gsub("/+$", "")
  if dir == "" then dir = "/" end
  if lfs.attributes(dir, "mode") ~= "directory" then
    error(("%s: no such folder (expected a benchmark results folder)"):format(dir), 0)
  end
  local cs
  if opts.file then
    -- one file: detection sees that file alone in its folder
    local real = rm.realpath(opts.file)
    if not real then error(("%s: no such file"):format(opts.file), 0) end
    rm.only_file = { name = opts.file:match("[^/]+$"), real = real }
    local ok, r = pcall(M.detect, dir, opts.harness)
    rm.only_file = nil
    if not ok then error(r, 0) end
    cs = r
  else
    cs = M.detect(dir, opts.harness)
  end
  if #cs == 0 and opts.file then
    -- one file no harness reads: one line naming it, and why (a harness's explain(path))
    local hs = opts.harness and { M.get(opts.harness) } or M.list()
    for _, h in ipairs(hs) do
      local why = h.explain and h.explain(opts.file)
      if why then error(("%s: %s"):format(opts.file, why), 0) end
    end
    error(("%s: not a %s result file (no harness reads it by its name, its first 64 KiB or, for vLLM's, its "
      .. "top-level keys; README \"llmd.harness\": what each harness reads)"):format(opts.file,
        opts.harness and M.get(opts.harness).name or "benchmark"), 0)
  end
  if #cs == 0 then
    -- a harness named that the folder does not hold: what it holds instead, when another
    -- harness recognises it (the cause is then the --harness given, not the folder)
    local holds = ""
    if opts.harness then
      local ok, other = pcall(M.detect, dir, nil)
      local seen, found = {}, {}
      for _, c in ipairs(ok and other or {}) do
        if not seen[c.harness.name] then seen[c.harness.name] = true; found[#found + 1] = c.harness.name end
      end
      if #found > 0 then
        -- (opts.harness_option: what named the harness, --harness or a plan's key)
        holds = (": it holds %s results (leave %s out to read them as such)"):format(
          table.concat(found, " and "), opts.harness_option or "--harness")
      end
    end
    -- one line, then what each harness accepts on a second (README: llmd.harness, "recognised by")
    local looked, names = {}, {}
    for _, h in ipairs(opts.harness and { M.get(opts.harness) } or M.list()) do
      looked[#looked + 1] = h.name .. ": " .. (h.describe or "")
      names[#names + 1] = h.name
    end
    return nil, ("no %s results under %s (no file of %s; README \"llmd.harness\": what each harness reads)%s\n"
      .. "looked for: %s"):format(opts.harness and M.get(opts.harness).name or "benchmark", dir,
        table.concat(names, ", "), holds, table.concat(looked, "; "))
  end
  if #cs > 1 then
    local lines = {}
    for _, c in ipairs(cs) do
      local files = {}
      for i, p in ipairs(c.files) do
        if i > 3 then files[#files + 1] = ("... %d more"):format(#c.files - 3); break end
        files[#files + 1] = rel(c.dir, p)
      end
      lines[#lines + 1] = ("  %s in %s (%s)"):format(c.harness.name, c.dir, table.concat(files, ", "))
    end
    local per, names = {}, {}
    for _, c in ipairs(cs) do
      if not per[c.harness.name] then per[c.harness.name] = 0; names[#names + 1] = c.harness.name end
      per[c.harness.name] = per[c.harness.name] + 1
    end
    if #names == 1 then
      -- runs of one harness (repeats of a sweep, or runs side by side): --harness cannot choose
      -- (each run its own name: runs in different folders are most often different
      -- configurations, llm-d-1p1d beside vllm-2replicas, and one name would pool them as
      -- repeats of one treatment - the old advice, newuserd51 3; the folder's name where it is
      -- a plain one, else runN)
      local sh = require("llmd.template").helpers.sh
      local eg, taken = {}, {}
      for i, c in ipairs(cs) do
        local n = (c.dir:gsub("/results$", "")):match("([^/]+)$") or ""
        if not n:match("^[%w][%w._%-]*$") or taken[n] then n = "run" .. i end
        taken[n] = true
        eg[i] = "--run " .. sh(n .. "=" .. c.dir)
      end
      error(("%s holds %d %s runs, in different folders:\n%s\nchoose one: pass the folder of one run (one of "
        .. "those above; compare.lua compares one run with one run: --a %s --b %s); to compare them all, "
        .. "treatments.lua takes one --run per run, each under its own name (treatments.lua %s); only repeats of "
        .. "one configuration share a name (README: Comparing N treatments)"):format(dir, #cs, names[1],
          table.concat(lines, "\n"), sh(cs[1].dir), sh(cs[2].dir), table.concat(eg, " ")), 0)
    end
    local several = {}
    for _, n in ipairs(names) do if per[n] > 1 then several[#several + 1] = n end end
    error(("%s holds results of %d harness runs:\n%s\nchoose one: pass --harness NAME (harness = NAME "
      .. "in scripts) for a harness, or the folder of one run%s"):format(dir, #cs, table.concat(lines, "\n"),
        #several > 0 and (" (--harness %s still leaves several runs: pass a folder)"):format(
          table.concat(several, " or ")) or ""), 0)
  end
  local c = cs[1]
  -- one run's result file twice (a re-download saved under another name): read as it is,
  -- the copy would be one more repeat or load point, and the tests would count a
  -- measurement twice; refused, whatever --tolerant says (it changes n)
  local dups = not opts.file and rm.duplicate_files(c.files) or {}
  if #dups > 0 then
    error(M.duplicate_text(c.dir, dups[1][1], dups[1][2],
      "are the same file, byte for byte (one file saved twice under two names?)", #dups - 1), 0)
  end
  -- (opts.defer_unreadable: harness.extract's, which reads the rest first and says every file
  -- that cannot be read in one error, M.unreadable_error)
  if c.unreadable and #c.unreadable > 0 and not opts.tolerant and not opts.defer_unreadable then
    error(("%s: %d %s result file%s named like the others cannot be read (a load point or stage would "
      .. "be missing; --tolerant goes on without %s, with a warning %s):\n  %s")
      :format(c.dir, #c.unreadable, c.harness.name, #c.unreadable > 1 and "s" or "",
        #c.unreadable > 1 and "them" or "it", opts.tolerant_warning or "in the report",
        table.concat(c.unreadable, "\n  ")), 0)
  end
  return c
end

-- "0-2" for 0, 1, 2; "0, 2, 5" when there are gaps.
local function span(idx)
  if #idx == 0 then return "none" end
  for i = 2, #idx do
    if idx[i] ~= idx[i - 1] + 1 then
      local t = {}
      for _, v in ipairs(idx) do t[#t + 1] = tostring(v) end
      return table.concat(t, ", ")
    end
  end
  return #idx == 1 and tostring(idx[1]) or ("%d-%d"):format(idx[1], idx[#idx])
end

-- The error a wrong warm-up list raises: a table {code = M.BAD_WARMUP, message = ...} whose
-- tostring is the message, so that a caller can tell a bad option value (exit 2) from bad
-- data by its code, not by the wording.
M.BAD_WARMUP = "bad_warmup"
local ERROR_MT = { __tostring = function(e) return e.message end }
local function bad_warmup(msg) return setmetatable({ code = M.BAD_WARMUP, message = msg }, ERROR_MT) end

-- Checks the warm-up stage list against the stage indexes a run has (sorted or not): a
-- stage it does not have, or every stage marked (nothing would be measured), is an error
-- (raised as bad_warmup: the code M.BAD_WARMUP, tostring the message).
-- option: how the user gave the list ("--warmup 0,1,2"); who: "run A (label)" or the folder.
function M.check_warmup(indexes, warmup, option, who)
  if not warmup or #warmup == 0 then return end
  local idx, have = {}, {}
  for _, i in ipairs(indexes) do
    if not have[i] then idx[#idx + 1] = i; have[i] = true end
  end
  table.sort(idx)
  local stages = ("%d stage%s: %s"):format(#idx, #idx == 1 and "" or "s", span(idx))
  local marked, n = {}, 0
  for _, i in ipairs(warmup) do
    if not have[i] then
      error(bad_warmup(("%s: %s has no stage %d (%s)"):format(option, who, i, stages)), 0)
    end
    if not marked[i] then marked[i] = true; n = n + 1 end
  end
  if #idx > 0 and n == #idx then
    error(bad_warmup(("%s marks every stage of %s (%s): nothing would be measured"):format(option, who, stages)), 0)
  end
end

-- Two stages of a run read from different files with the same figures (every value equal,
-- to the last bit): one measurement saved twice (re-serialised, so not byte for byte), which
-- would count twice as a repeat or load point: refused, as the same bytes are (M.resolve).
function M.check_same_stages(run)
  local st = run.stages
  for j = 2, #st do
    for k = 1, j - 1 do
      if st[j].file and st[k].file and st[j].file ~= st[k].file then
        local eq, says = rm.same_values(st[k].metrics, st[j].metrics)
        if eq and says then
          error(M.duplicate_text(run.dir, st[k].file, st[j].file, "hold the same results, every figure equal to "
            .. "the last digit (one measurement saved twice, re-serialised?)", 0), 0)
        end
      end
    end
  end
end

-- Latency families a stage may lack while the others have them, and their names.
local FAMILIES = { { "ttft", "TTFT" }, { "tpot", "TPOT" }, { "itl", "ITL" }, { "latency", "end-to-end latency" },
  { "ntpot", "NTPOT" } }

-- A statistic the measured stages' files record, but one (or more) of them does not: a data
-- check naming that stage's file (the load point's value is unknown there for that reason,
-- not because the harness never records it). Stages with no completed request are left
-- out (nothing to time).
function M.check_stage_gaps(run)
  local metrics = require "llmd.metrics"
  run.checks = run.checks or {}
  local measured = {}
  for _, st in ipairs(run.stages) do
    if not st.warmup and (st.metrics.values.requests_ok or 1) > 0 then measured[#measured + 1] = st end
  end
  if #measured < 2 then return end
  for _, fam in ipairs(FAMILIES) do
    local keys = {}
    for _, m in ipairs(metrics.list) do
      if m.key:match("^" .. fam[1] .. "_") and m.unit == "ms" and not m.key:find("_all_", 1, true)
        and not m.key:find("_tw_", 1, true) then
        keys[#keys + 1] = m.key
      end
    end
    local has, lacks = {}, {}
    for _, st in ipairs(measured) do
      -- (a stage whose file has the statistic, unknown for a reason its reader gave:
      -- set.explained, llmd.harness.inference_perf's NTPOT with 0-token requests in it)
      local any = st.metrics.explained ~= nil and st.metrics.explained[fam[1]] == true
      for _, k in ipairs(keys) do if st.metrics.values[k] ~= nil then any = true end end
      if any then has[#has + 1] = st else lacks[#lacks + 1] = st end
    end
    if #has > 0 and #lacks > 0 then
      local idx = {}
      for _, st in ipairs(has) do idx[#idx + 1] = st.index end
      for _, st in ipairs(lacks) do
        local why = ("stage %d%s has no %s"):format(st.index, st.file and (" (file " .. st.file .. ")") or "", fam[2])
        local text = ("%s statistic while the other stage%s (%s) record one: that load point's %s is unknown "
          .. "(rerun that stage, or check its file)"):format(why, #has == 1 and "" or "s", span(idx), fam[2])
        rm.warn(run, "%s", text)
        run.checks[#run.checks + 1] = { kind = "stage_lacks_statistic", key = fam[1], stage = st.index,
          file = st.file, text = text }
        for _, k in ipairs(keys) do
          if st.metrics.values[k] == nil then st.metrics.na[k] = why end
          if run.overall.values[k] == nil then run.overall.na[k] = why end
        end
      end
    end
  end
end

-- The run model of the results under dir (see llmd.runmodel). A folder without results
-- gives a model with status "failed" and the reason; a missing folder, a corrupt file or
-- an ambiguous folder raise.
-- Every key extract takes: the documented ones, and those the comparison passes
-- (require_results, slo, goodput, run_name, warmup_option), and where a script puts
-- --tolerant's warnings (tolerant_warning: "in the report" when not given).
local EXTRACT_OPTS = { "harness", "file", "tolerant", "warmup", "warmup_option", "run_name",
  "percentile_method", "sketch", "goodput", "groups", "count_goodput", "zero_tokens",
  "require_results", "slo", "kvcache", "tolerant_warning", "harness_option" }

-- Goodput's per-request thresholds from opts.slo (a "key=max,..." text, a mapping {key = max}
-- or a list {{key =, max =}}, as llmd.decision.parse_slo reads): the completed requests that
-- meet every latency limit of it are counted (run.overall.goodput, each stage's metrics.goodput);
-- an SLO with no per-request limit (only error_rate_pct) gives goodput unknown, with why.
local NO_REQUEST_LIMIT = "the SLOs set no per-request latency limit (a TTFT, TPOT or E2E key): goodput counts the "
  .. "completed requests that meet them"

-- The one error for the result files of candidate c that cannot be read: c.unreadable (a
-- file missing from a numbered series, an empty one: "PATH: why") and collected (the files
-- whose reading failed, each its reader's own message, "PATH:line:col: why"); run, where the
-- rest was read, adds what else its files lack (a partial run's missing summary). One file
-- alone is said as it always was ("PATH:2:1: ... (--tolerant goes on without this file, with a
-- warning in the report)"); several, each on a line of its own under one heading.
function M.unreadable_error(c, collected, opts, run)
  local all = {}
  for _, u in ipairs(c.unreadable or {}) do all[#all + 1] = u end
  for _, u in ipairs(collected) do all[#all + 1] = u end
  local where = opts.tolerant_warning or "in the report"
  local also = run and run.partial and ("\nbesides, %s"):format(run.partial) or ""
  if #all == 1 and #(c.unreadable or {}) == 0 then
    return ("%s (--tolerant goes on without this file, with a warning %s)%s"):format(all[1], where, also)
  end
  return ("%s: %d %s result file%s named like the others cannot be read (a load point or stage would be missing; "
    .. "--tolerant goes on without %s, with a warning %s):\n  %s%s"):format(c.dir, #all, c.harness.name,
    #all > 1 and "s" or "", #all > 1 and "them" or "it", where, table.concat(all, "\n  "), also)
end

function M.extract(dir, opts)
  if type(dir) ~= "string" then
    error(("harness.extract: argument 1 (dir): expected a results folder's path (a string), got %s"):format(
      type(dir)), 2)
  end
  require("llmd.opts").check(opts, EXTRACT_OPTS, "harness.extract")
  opts = opts or {}
  check_harness(opts.harness, "harness.extract")
  local no_limit, from_slo
  if opts.slo ~= nil and opts.goodput == nil then
    from_slo = true
    local d = require "llmd.decision"
    local copy = {}
    for k, v in pairs(opts) do copy[k] = v end
    opts = copy
    opts.slo = d.parse_slo(opts.slo, "harness.extract: slo")
    opts.goodput = d.request_thresholds(opts.slo)
    no_limit = opts.goodput == nil
  end
  -- without --tolerant, every result file that cannot be read (missing from a numbered
  -- series, empty, truncated, corrupt) is said in one error, not the first alone (newuser54
  -- #4: a folder with several broken files was reported one file per attempt): the rest is
  -- read as --tolerant reads it, collecting what cannot be (llmd.runmodel.tolerate), then
  local c, why = M.resolve(dir, opts.tolerant and opts or setmetatable({ defer_unreadable = true }, { __index = opts }))
  local run
  if not c then
    run = rm.new(opts.harness and M.get(opts.harness).name or "unknown", dir)
    rm.fail(run, why)
    run.no_results = true
  else
    if opts.tolerant then
      run = c.harness.extract(c, opts)
    else
      local collected = {}
      local prev = rm.collecting
      rm.collecting = collected
      local ok, r = pcall(c.harness.extract, c, opts)
      rm.collecting = prev
      if #collected > 0 or #(c.unreadable or {}) > 0 then
        if not ok and (tostring(r):match("interrupted$") or tostring(r):match("not enough memory")) then error(r, 0) end
        error(M.unreadable_error(c, collected, opts, ok and r or nil), 0)
      end
      if not ok then error(r, 0) end
      run = r
    end
    M.check_same_stages(run)
    local indexes = {}
    for _, st in ipairs(run.stages) do indexes[#indexes + 1] = st.index end
    M.check_warmup(indexes, opts.warmup, opts.warmup_option or ("warmup {%s}"):format(
      table.concat(opts.warmup or {}, ",")), opts.run_name or dir)
    for _, u in ipairs(c.unreadable or {}) do rm.warn(run, "left out (--tolerant): %s", u) end
    -- the CDF charts' quantile grid, from the accumulators just filled
    run.cdf, run.cdf_count = rm.cdf(run.overall.samples)
    -- and each stage's, which the CDF chart pools over the loads both runs sustained
    for _, st in ipairs(run.stages) do
      if st.metrics.samples then st.cdf, st.cdf_count = rm.cdf(st.metrics.samples) end
    end
  end
  run.root = dir
  for _, l in ipairs(rm.links_out(dir)) do
    rm.warn(run, "%s: a link out of the results folder (or to a folder), not followed", l)
  end
  run.warmup_stages = {}
  for _, st in ipairs(run.stages) do
    if st.warmup then run.warmup_stages[#run.warmup_stages + 1] = st.index end
  end
  -- one definition of a stage's achieved rate, whatever the harness: the catalogue's
  -- completed requests / duration (throughput_req_s), the rate saturation and max
  -- sustained are judged by; a harness's send rate is st.send_rate, never this
  for _, st in ipairs(run.stages) do
    local v = st.metrics.values.throughput_req_s
    st.achieved_rate = type(v) == "number" and v == v and v > -math.huge and v < math.huge and v or nil
  end
  -- rates that cannot both be true (achieved far above offered) are a data check
  require("llmd.loadpoints").check_rates(run)
  -- load points that sent other requests than the first (two workloads in one folder)
  require("llmd.decision").check_request_shapes(run)
  M.check_stage_gaps(run)
  run = rm.finish(run, opts)
  -- an SLO given, and no goodput: why, never a silent absence (no per-request limit in the SLOs,
  -- or no per-request data to judge: a harness's summary has no request's values) (where the
  -- thresholds came as opts.goodput, the comparison's, it says why in its own words)
  if from_slo and not run.no_results then
    local gwhy = no_limit and NO_REQUEST_LIMIT or "no per-request data: goodput judges each completed request by the "
      .. "SLOs' limits, and the harness's summaries give no request's values"
    if run.overall.goodput == nil then run.overall.goodput = { unknown = gwhy } end
    for _, st in ipairs(run.stages) do
      if st.metrics.goodput == nil then st.metrics.goodput = { unknown = gwhy } end
    end
  end
  -- kvcache = true: the prefix-cache figures from the run's vLLM scrapes, as extract.lua
  -- and the reports have them (a single result file has no scrapes beside it to read)
  if opts.kvcache and not run.no_results and not opts.file then
    local kvcache = require "llmd.kvcache"
    kvcache.put(run, kvcache.analyze(dir, run, opts))
  end
  return run
end

return M
