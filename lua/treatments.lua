-- llmdlua treatments.lua --run LABEL=DIR --run LABEL=DIR ... [--workload NAME=LABEL,...] [--slo SPEC] [--out DIR]
-- llmdlua treatments.lua --results DIR [--slo SPEC] [--out DIR]   every subfolder a treatment
-- llmdlua treatments.lua EXPERIMENT_WORKSPACE [--slo SPEC]          an experiment.lua workspace
--                                                                   (--slo: default its plan's slo:)
--
-- The comparison across N treatments: treatment_comparison.csv (llm-d-benchmark's
-- columns, one row per load point), and a report (markdown and HTML) with each
-- treatment's decision-grade figures, a ranking that says what is evidence, the Pareto
-- front and the load points. The same LABEL given twice, or a folder of run_only.sh -R
-- repeats (`..._run1`, `..._run2`), is one treatment measured several times.
local args = require "llmd.args"
local lfs = require "lfs"

-- --run and --workload may repeat: taken out before the other options are parsed
local runs, rest, workloads, gpus = {}, {}, {}, {}
do
  local i = 1
  while i <= #arg do
    local a = arg[i]
    local v = a:match("^%-%-run=(.*)$")
    if a == "--run" then v = arg[i + 1]; i = i + 1 end
    local w = a:match("^%-%-workload=(.*)$")
    if a == "--workload" then w = arg[i + 1]; i = i + 1 end
    local g = a:match("^%-%-gpus=(.*)$")
    if a == "--gpus" then g = arg[i + 1]; i = i + 1 end
    if g then
      -- --gpus LABEL=N[,LABEL=N...]: the accelerators each treatment ran on
      for item in tostring(g):gmatch("[^,]+") do
        local label, n = item:match("^([^=]+)=(%d+)$")
        if not label or tonumber(n) < 1 then
          io.stderr:write(("treatments.lua: --gpus %s: '%s': expected LABEL=N, N a whole number >= 1\n")
            :format(tostring(g), item))
          os.exit(2)
        end
        gpus[#gpus + 1] = { label = label, n = tonumber(n) }
      end
      if g == "" then
        io.stderr:write("treatments.lua: --gpus: expected LABEL=N[,LABEL=N...]\n")
        os.exit(2)
      end
    elseif w then
      -- --workload NAME=LABEL,LABEL,...: these treatments ran workload NAME
      local name, labels = w:match("^([^=]+)=(.+)$")
      if not name then
        io.stderr:write(("treatments.lua: --workload %s: expected NAME=LABEL[,LABEL...]\n"):format(tostring(w)))
        os.exit(2)
      end
      local n = #workloads
      for label in labels:gmatch("[^,]+") do workloads[#workloads + 1] = { name = name, label = label } end
      if #workloads == n then
        io.stderr:write(("treatments.lua: --workload %s: no treatment label after =; expected NAME=LABEL[,LABEL...]\n")
          :format(w))
        os.exit(2)
      end
    elseif v then
      local label, dir = v:match("^([^=]+)=(.+)$")
      if not label then
        io.stderr:write(("treatments.lua: --run %s: expected LABEL=DIR\n"):format(tostring(v)))
        os.exit(2)
      end
      runs[#runs + 1] = { label = label, dir = dir }
    else
      rest[#rest + 1] = a
    end
    i = i + 1
  end
  rest[0] = arg[0]
end

local o = args.parse(rest, {
  command = "llmdlua treatments.lua",
  usage = "llmdlua treatments.lua (--run LABEL=DIR ... | --results DIR | EXPERIMENT_WORKSPACE) "
    .. "[--workload NAME=LABEL,...] [--gpus LABEL=N,...] [--slo SPEC] [--out DIR] [--replace] [--harness NAME] "
    .. "[--quiet] [--tolerant]",
  help = [[
  --run LABEL=DIR           a treatment's results folder (repeat the option; the same LABEL
                            twice makes the folders repeats of one treatment)
  --workload NAME=LABEL,... these treatments ran workload NAME (repeat the option, one per
                            workload; then every treatment needs one): ranked, tested and set
                            on the Pareto front only among those of their own workload
  --gpus LABEL=N,...        the accelerators each treatment ran on (repeat or list them):
                            where they differ, the report says it is not like for like on
                            cost, gives the ranking's figures per GPU and names no winner
                            on totals (else the results' count, where they give one); in an
                            experiment of setup x run pairs, a setup treatment's name gives
                            all its pairs (one=1: one/rate1, one/rate2, ...)
  --results DIR             every subfolder of DIR is a treatment (llm-d-benchmark's layout)
  --slo SPEC                ttft_p90_ms=200,error_rate_pct=1: capacity at SLO, the ranking by it
                            (an experiment workspace: default the slo: of its plan.yaml)
  --out DIR                 where the CSV and the report go (default: cross-treatment-comparison
                            in an experiment workspace, else in the current folder, never
                            in a --results folder)
  --harness NAME            read every folder as this harness's results
  --replace                 write over an earlier report in the output folder; without it
                            the earlier one is moved aside first, to OUT-previous-TIME (its
                            time), and one line on standard error says where
  --quiet                   print neither the report nor the files written (they are written
                            all the same); warnings still go to standard error
  --tolerant                a result file that cannot be read (empty, truncated) is left
                            out, and its treatment's status says "partial: ... left out",
                            instead of stopping the comparison
]],
  options = { results = "DIR", slo = "SPEC", out = "DIR", harness = "NAME", quiet = true, tolerant = true,
    replace = true },
  taken = { "run", "workload", "gpus" },
  positional = { min = 0, max = 1 },
})

-- a usage error (exit 2) names the script, as llmd.args does; an error in the data is
-- "llmdlua: message", exit 1, as the host prints for the other scripts (README: Running
-- scripts); a bug keeps its traceback (llmd.errors)
local fail = require("llmd.errors").exit

local subdirs = require("llmd.treatments").subdirs

-- a folder of run_only.sh -R repeats: its <uid>_<workload>_run<N> subfolders
local function repeats_of(dir)
  local out = {}
  for _, name in ipairs(subdirs(dir)) do
    if name:match("_run%d+$") then out[#out + 1] = dir .. "/" .. name end
  end
  return #out >= 2 and out or { dir }
end

local list, experiment, default_out = {}, nil, "cross-treatment-comparison"
local function add(label, dir)
  for _, t in ipairs(list) do
    if t.label == label then
      for _, d in ipairs(repeats_of(dir)) do t.dirs[#t.dirs + 1] = d end
      return
    end
  end
  list[#list + 1] = { label = label, dirs = repeats_of(dir) }
end

-- option values: a wrong one is one line and exit 2 (llmd.args); errors in the data exit 1
args.harness("--harness", o.harness)
if o.slo then args.value(require("llmd.decision").parse_slo, o.slo, "--slo") end

local modes = (#runs > 0 and 1 or 0) + (o.results and 1 or 0) + (o[1] and 1 or 0)
if modes ~= 1 then fail("give --run LABEL=DIR (several), or --results DIR, or an experiment workspace", 2) end
-- a folder the command line names that is not there (or is a file): one line, exit 2, in
-- the words of every script's (llmd.args.path)
for _, r in ipairs(runs) do
  args.path(("--run %s=%s"):format(r.label, r.dir), r.dir, "directory", "a treatment's results folder")
  add(r.label, r.dir)
  -- (the report inside a treatment's results: that folder changed, and read with the report
  -- in it the next time; audit48 S9b)
  if o.out and require("llmd.workspace").inside(r.dir, o.out) then
    local ws = require "llmd.workspace"
    fail(("--out %s: %s the results folder of --run %s=%s: the comparison is never written into the results it "
      .. "reads; give --out outside it"):format(o.out, ws.resolve(o.out) == ws.resolve(r.dir) and "is" or "is inside",
      r.label, r.dir), 2)
  end
end
if o.results then
  args.path("--results " .. o.results, o.results, "directory", "a folder with one results subfolder per treatment")
  list.base = o.results -- (warnings name its folders relative to it)
  -- every subfolder but the comparison's own output from an earlier run
  for _, name in ipairs(subdirs(o.results)) do
    -- (and an earlier one kept aside, cross-treatment-comparison-previous-TIME)
    if name ~= "cross-treatment-comparison" and not name:match("^cross%-treatment%-comparison%-previous%-") then
      add(name, o.results .. "/" .. name)
    end
  end
  -- (the report goes into the current folder, as with --run: a results folder is the
  -- harness's, often shared or read-only; its subfolders are its treatments, so a report
  -- written inside would be read as one the next time)
  if o.out and require("llmd.workspace").inside(o.results, o.out) then
    local ws = require "llmd.workspace"
    fail(("--out %s: %s the --results folder %s%s: the comparison is never written into the results it "
      .. "reads (a folder there is a treatment the next time); give --out outside it"):format(o.out,
      ws.resolve(o.out) == ws.resolve(o.results) and "is" or "is inside", o.results,
      (ws.resolve(o.results) ~= o.results) and (" (" .. ws.resolve(o.results) .. ")") or ""), 2)
  end
end
-- one treatment is no comparison: refused, never "Comparison Across 1 Treatments"
if #runs > 0 and #list < 2 then
  fail(("--run: only one treatment (%s) given: a comparison needs two or more labels (the same label repeated "
    .. "makes its folders repeats of one treatment)"):format(list[1].label), 2)
end
if o.results and #list < 2 then
  fail(("--results %s: %s, a comparison needs two or more treatment subfolders"):format(o.results,
    #list == 0 and "no subfolder" or ("one subfolder (%s)"):format(list[1].label)), 2)
end
if o[1] then
  local w = o[1]:gsub("/+$", "")
  args.path(o[1], w, "directory", "an experiment workspace")
  local eok, exl = pcall(require("llmd.treatments").experiment_list, w, { harness = o.harness })
  if not eok then fail(exl) end
  list, experiment = exl, exl.experiment
  default_out = w .. "/cross-treatment-comparison"
  -- writing into the experiment's workspace: not while another process writes it (the
  -- experiment still running, another treatments.lua)
  if not o.out or require("llmd.workspace").inside(w, o.out) then
    local lok, lerr = require("llmd.workspace").lock(w, "treatments.lua")
    if not lok then fail(lerr, 2) end
  end
end

-- Two treatments.lua writing one --out at once both said they wrote it, and one's report
-- silently replaced the other's (audit48 S9): the output folder is held (an flock on it, for
-- this process's life) from here when it is there, else from when write_outputs makes it.
do
  local out = o.out or default_out
  if lfs.attributes(out, "mode") == "directory" then
    local lok, lerr = require("llmd.treatments").hold_out(out)
    if not lok then fail(lerr, 2) end
  end
end

-- The treatment labelled label, else one line naming the option (what) and the labels there
-- are, exit 2 (--workload and --gpus name treatments by label).
local function labelled(label, what)
  local labels = {}
  for _, t in ipairs(list) do
    if t.label == label then return t end
    labels[#labels + 1] = t.label
  end
  fail(("%s: no treatment is labelled %s (the treatments: %s)"):format(what, label, table.concat(labels, ", ")), 2)
end

-- --workload: every treatment named in one workload, each once
if #workloads > 0 then
  -- (by the mode, not by the experiment's name: a state file without one is a workspace too)
  if o[1] then
    fail("--workload: an experiment's workloads are its run treatments; give --workload with --run or --results", 2)
  end
  for _, w in ipairs(workloads) do
    local t = labelled(w.label, "--workload " .. w.name)
    if t.workload and t.workload ~= w.name then
      fail(("--workload: treatment %s is named in two workloads, %s and %s"):format(w.label, t.workload, w.name), 2)
    end
    t.workload = w.name
  end
  local missing = {}
  for _, t in ipairs(list) do if not t.workload then missing[#missing + 1] = t.label end end
  if #missing > 0 then
    fail(("--workload: no workload named for %s (with --workload, name every treatment's workload)")
      :format(table.concat(missing, ", ")), 2)
  end
  list.workload_source = "named with --workload"
end

-- --gpus: each label a treatment's, given once. In an experiment whose treatments are setup x
-- run pairs ("one/rate1"), a setup treatment's name stands for all its pairs: the GPUs are the
-- setup's (its deployment), the same under every run treatment (a user thinks of the setup
-- treatments, and the report's hint says --gpus SETUP=N); a pair's own label still wins
if #gpus > 0 then
  for _, g in ipairs(gpus) do
    local targets = {}
    for _, t in ipairs(list) do
      if t.label == g.label then targets = { t } break end
      if o[1] and t.label:sub(1, #g.label + 1) == g.label .. "/" then targets[#targets + 1] = t end
    end
    if #targets == 0 then
      -- (none: the labels there are, and in an experiment of pairs, the setup treatments' names)
      local labels, setups, seen = {}, {}, {}
      for _, t in ipairs(list) do
        labels[#labels + 1] = t.label
        local st = o[1] and t.label:match("^(.+)/[^/]+$")
        if st and not seen[st] then seen[st], setups[#setups + 1] = true, st end
      end
      fail(("--gpus %s=%d: no treatment is labelled %s (the treatments: %s%s)"):format(g.label, g.n, g.label,
        table.concat(labels, ", "), #setups > 0 and ("; or a setup treatment's name for all its pairs: %s")
          :format(table.concat(setups, ", ")) or ""), 2)
    end
    for _, t in ipairs(targets) do
      if t.gpus and t.gpus ~= g.n then
        fail(("--gpus: %s is given twice, %d and %d"):format(t.label, t.gpus, g.n), 2)
      end
      t.gpus = g.n
    end
  end
end

-- an experiment's SLO is its plan's (experiment.lua ranked by it; a re-run without --slo
-- must not rank by something else): --slo replaces it, and says so
local plan_slo, plan_path
if o[1] then
  plan_path = o[1]:gsub("/+$", "") .. "/plan.yaml"
  if lfs.attributes(plan_path, "mode") == "file" then
    local pok, plan = pcall(require("llmd.yaml").load_file, plan_path)
    if not pok then fail(tostring(plan)) end
    if type(plan) == "table" and plan.slo ~= nil then
      local sok, serr = pcall(require("llmd.decision").parse_slo, plan.slo, plan_path .. ": slo")
      if not sok then fail(serr) end
      plan_slo = plan.slo
    end
  end
end
if plan_slo ~= nil and o.slo then
  io.stderr:write(("treatments.lua: note: --slo %s replaces the experiment's SLO (slo: in %s)\n")
    :format(o.slo, plan_path))
elseif plan_slo ~= nil then
  io.stderr:write(("treatments.lua: the SLO of the experiment's plan (%s) ranks the treatments\n"):format(plan_path))
end

local tr = require "llmd.treatments"
local decision = require "llmd.decision"
local chart_failures = {} -- the charts gnuplot failed to draw (the report written without them)
local ok, err = pcall(function()
  local slo = {}
  if o.slo then slo = decision.parse_slo(o.slo, "--slo")
  elseif plan_slo ~= nil then slo = decision.parse_slo(plan_slo, plan_path .. ": slo") end
  -- in an experiment, a setup treatment's folders are its load points, not repeats
  -- (--run's folders of one label are repeats, whose load ladders must match)
  -- results folders made on a simulated cluster (their run_state.json says so) keep the mark
  -- (an experiment's cells have theirs from its workspace)
  if not o[1] then list.simulated = tr.simulated_folders(list) end
  tr.load(list, { harness = o.harness, cache = list.cache, tolerant = o.tolerant, repeats = not o[1] })
  for _, t in ipairs(list) do
    for _, p in ipairs(t.partial or {}) do
      if p:find("left out (--tolerant)", 1, true) then
        io.stderr:write(("treatments.lua: warning: treatment %s: %s\n"):format(t.label, p))
      end
    end
    -- (results naming a model their server does not: llmd.decision.check_served_model)
    for _, p in ipairs(t.model_doubt or {}) do
      io.stderr:write(("treatments.lua: warning: treatment %s: %s\n"):format(t.label, p))
    end
  end
  for _, w in ipairs(list.identical or {}) do io.stderr:write("treatments.lua: warning: ", w, "\n") end
  -- (written whole or not at all: a failure leaves --out as it was)
  local out = o.out or default_out
  local paths = tr.write_outputs(out, list, { slo = slo, experiment = experiment, unit = list.unit,
    keep_previous = not o.replace })
  chart_failures = paths.chart_failures or {}
  -- an earlier report there: kept aside, or (--replace) written over - said either way, --quiet too
  if paths.previous then
    io.stderr:write(("treatments.lua: %s held an earlier report (written %s): kept in %s; this one is in %s "
      .. "(--replace writes over it instead)\n"):format(out, os.date("%Y-%m-%d %H:%M:%S", paths.previous_time),
      paths.previous, out))
  elseif paths.replaced then
    io.stderr:write(("treatments.lua: the earlier report in %s (written %s) was replaced (--replace)\n"):format(out,
      os.date("%Y-%m-%d %H:%M:%S", paths.previous_time)))
  end
  -- (--quiet: nothing on stdout; the files are written all the same)
  if not o.quiet then
    io.write(paths.text, "\n")
    -- where it went, in full when that is the default (the current folder), not asked for
    local function shown(p)
      if o.out or o[1] or p:sub(1, 1) == "/" then return p end
      local cwd = require("lfs").currentdir()
      return cwd and (cwd:gsub("/+$", "") .. "/" .. p) or p
    end
    -- (every file it wrote: llmd.treatments.write_outputs' paths.written)
    for i, p in ipairs(paths.written) do io.write(i == 1 and "Written: " or "         ", shown(p), "\n") end
  end
end)
if not ok then fail(err) end
-- a chart gnuplot failed to draw (a template edited wrong): the report is written without
-- it, and says why; the exit status says it failed (as compare.lua's)
if #chart_failures > 0 then
  for _, f in ipairs(chart_failures) do io.stderr:write("treatments.lua: error: ", f, "\n") end
  os.exit(1)
end
