-- llmdlua compare.lua --a DIR --b DIR [options]          two runs that exist already
-- llmdlua compare.lua --plan plan.yaml [options]           deploy, benchmark, tear down
-- llmdlua compare.lua --resume WORKSPACE [--plan FILE] [--step LIST]   go on after a failure
--
-- With existing runs: makes a workspace, imports both runs' results (copied, or linked
-- with --link), reads them with the harness mappings, writes comparison_report.md (also
-- shown here), comparison.json, comparison.csv and run_comparison.sh, and each run's
-- metrics into its run_state.json. With a plan (llmd.cluster): each fresh run is
-- deployed, benchmarked, recorded and torn down in the namespace, then the same report.
local args = require "llmd.args"
local cmp = require "llmd.comparison"
local lfs = require "lfs"
local ws = require "llmd.workspace"
local tl = require "llmd.timeline"
tl.mark("compare.lua started")

local OPTIONS = {
  a = "DIR", b = "DIR", a_label = "L", b_label = "L", a_info = "FILE", b_info = "FILE", parent = "DIR",
  link = true, harness = "NAME", a_harness = "NAME", b_harness = "NAME", warmup = "LIST", a_warmup = "LIST",
  b_warmup = "LIST", percentile_method = "M", slo = "LIST", min_effect = "PCT", quiet = true, plan = "FILE",
  namespace = "NS", yes = true,
  dry_run = true, step = "LIST", resume = "WORKSPACE", tolerant = true, use_current_context = true,
}
local o = args.parse(arg, {
  command = "llmdlua compare.lua",
  -- (made from OPTIONS: a usage line written by hand left --a-harness and --a-warmup out)
  usage = args.usage_line("llmdlua compare.lua (--a DIR --b DIR | --plan FILE | --resume WORKSPACE)", OPTIONS,
    { "a_label", "b_label", "a_info", "b_info", "parent", "link", "harness", "a_harness", "b_harness", "warmup",
      "a_warmup", "b_warmup", "percentile_method", "slo", "min_effect", "tolerant", "quiet", "namespace", "yes",
      "dry_run", "step", "use_current_context" }),
  help = [[
  --a DIR, --b DIR          the two runs' results folders (A is the baseline: deltas are B - A)
  --a-label L, --b-label L  names in the report (default: each folder's name; a
                            workspace run's, run-x/results or run-x, its recorded label)
  --a-info F, --b-info F    YAML or JSON with what you know of the run: guide, namespace,
                            hardware, gateway, model, llmd_version, decode_image, harness,
                            workload, load_stages, timestamp, gpus (accelerators used),
                            slo (a mapping like --slo's) (the rest is "unknown", or for
                            a workspace run, what its run_state.json recorded)
  --parent DIR              where the llm-d-comparison-YYYYmmdd-HHMMSS folder goes (default .;
                            made if missing; a name taken gets a suffix -2, -3, ...)
  --link                    link the results instead of copying them (large results)
  --harness NAME            read both runs as this harness's results (--a-harness, --b-harness
                            for one run)
  --warmup LIST             stage indexes to leave out of totals and ladder, e.g. 0 or 0,1
                            (also --a-warmup, --b-warmup); stages are numbered from 0 in
                            time order, as they ran: inference-perf's stage_N by N,
                            vllm-benchmark's files by their date, guidellm's benchmarks in
                            its file's order, benchmark reports' files by name
  --percentile-method M     linear (default) or nearest, for per-request data
  --slo LIST                latency and error-rate limits, e.g. ttft_p90_ms=200,tpot_p90_ms=50,
                            error_rate_pct=1 (any latency metric of the catalogue): capacity at
                            SLO and goodput (else slo: in the info files or the plan)
  --min-effect PCT          the practical threshold: a difference whose whole 95 % interval is
                            within it is "negligible" (about the same), one beyond it at
                            both ends names a winner (default 2)
  --quiet                   print only where the workspace and the reports are: neither the
                            report nor the workspace's tree (both are still written); with
                            --plan/--resume no progress lines (a failure and the way on are said)
  --tolerant                a result file that cannot be read (empty, truncated, a stage
                            missing) is left out, with a warning in the report's data
                            checks, instead of stopping the comparison
  --plan FILE               deploy and benchmark the runs the plan describes (README: the plan)
  --namespace NS            the namespace when the plan names none (else $NAMESPACE, `oc project -q`, asked)
  --yes                     never ask; missing information is an error
  --dry-run                 print every cluster command instead of running it, reads too
                            (not made: shown as [dry-run, not read]); only the renders that
                            check the manifests run (kubectl kustomize, client side)
  --step LIST               only these steps, e.g. 0,20-60 (see the README's step list)
  --resume WORKSPACE        continue an interrupted or failed comparison from its last
                            completed step (nothing is deployed twice), with the
                            workspace's copy of the plan (--plan FILE replaces it)
  --use-current-context     resume in the current kube context although the workspace
                            recorded another cluster or none (made with no kube context)
]],
  options = OPTIONS,
  positional = { min = 0, max = 0 },
})

-- A usage error: the command line itself is wrong (found without reading any file's
-- contents): one line naming the script, exit 2, nothing made (README: Exit status).
local function usage(msg)
  io.stderr:write("compare.lua: ", msg, "\n")
  os.exit(2)
end

-- Ctrl-C once the workspace at path is complete (its report written): nothing is lost,
-- and that is what is said (exit 130, as for any Ctrl-C), not a bare "interrupted".
local function interrupted_complete(path)
  io.stderr:write(require("llmd.comparison").interrupted_complete(path), "\n")
  os.exit(130)
end

-- The closing output of a complete workspace w: the report, where it is, the workspace as a
-- tree; with --quiet only where the reports are (the trial's --quiet printed the whole tree,
-- while --help said only "do not print the report").
local function finish(model, w)
  local ok, err = pcall(function()
    if o.quiet then
      io.write(("Comparison report written to: %s\n%s"):format(model.path, cmp.html_line(model)))
      return
    end
    io.write("\n", model.text, "\n")
    io.write(("Comparison report written to: %s\n%s\n%s\n"):format(model.path, cmp.html_line(model), cmp.tree(w)))
  end)
  if ok then return end
  if tostring(err):match("interrupted$") or require("llmd.proc").take_interrupt() then
    interrupted_complete(w.path)
  end
  error(err, 0)
end

-- run x's --x-info file read (nil without one); its errors name the option. A file that
-- is not there is a usage error; what is wrong inside it, an error in the data (exit 1).
local function info_of(x)
  local path = o[x .. "_info"]
  if not path then return nil end
  local f, ferr = io.open(path, "rb")
  if not f then
    usage(("--%s-info %s: cannot open: %s"):format(x, path, (tostring(ferr):gsub("^.*: ", ""))))
  end
  f:close()
  if lfs.attributes(path, "mode") == "directory" then
    usage(("--%s-info %s: a folder, not a file (expected a YAML or JSON file of what you know of the run)")
      :format(x, path))
  end
  local ok, v = pcall(ws.read_info, path)
  -- (a reader's "file.lua:N: " position is no use to the user)
  if not ok then error(("--%s-info %s"):format(x, require("llmd.errors").text(v)), 0) end
  return v
end

-- a run's label when --x-label gives none: a run llmdlua benchmarked (its workspace run
-- folder, or the results/ in it) is labelled as it was recorded, else by its run folder's
-- name (run-a), not "results"; any other folder by its name
local function default_label(dir)
  local base = dir:gsub("/+$", ""):match("[^/]+$") or dir
  local file, st = ws.recorded_run(dir)
  if file and st.label:match("%S") then return st.label end
  if base == "results" and (file or st) then
    local real = ws.realpath(dir:gsub("/+$", "")) or dir
    return real:match("([^/]+)/results$") or base
  end
  return base
end

local decision = require "llmd.decision"
-- option values: a wrong one is one line and exit 2 (llmd.args); errors in the data exit 1
local slo = o.slo and args.value(decision.parse_slo, o.slo, "--slo") or nil
local min_effect = o.min_effect and args.number("--min-effect", o.min_effect, 0, nil, "a percentage >= 0")
for _, k in ipairs { "harness", "a_harness", "b_harness" } do args.harness("--" .. k:gsub("_", "-"), o[k]) end
if o.percentile_method then
  args.choice("--percentile-method", o.percentile_method, { "linear", "nearest" })
end
-- a label names a run in every table, sentence and file: an empty or blank one left "| (A)"
-- headings and "offered for , ..." sentences
for _, x in ipairs { "a", "b" } do
  local l = o[x .. "_label"]
  if l and not l:match("%S") then
    usage(("--%s-label: empty; give the run a name (the default is its folder's name)"):format(x))
  end
end
local steps
if o.step then
  steps = args.value(function()
    local cluster = require "llmd.cluster"
    return cluster.parse_steps(o.step, cluster.steps_list())
  end)
end
if o.use_current_context and not o.resume then
  usage("--use-current-context: only with --resume WORKSPACE (a new comparison records the current kube context)")
end

if o.resume then
  -- a workspace compare.lua --plan made (its plan.yaml and steps.json), else one line
  local dir = o.resume:gsub("/+$", "")
  args.path("--resume " .. o.resume, dir, "directory", "the workspace of a compare.lua --plan run")
  local function has(name) return lfs.attributes(dir .. "/" .. name, "mode") == "file" end
  -- an experiment's workspace has a plan.yaml and a steps.json too, but its steps and
  -- folders are experiment.lua's: compare.lua's would run a comparison of runs a and b
  -- into it, beside its treatments
  local exp_file = has("experiment.yaml") and "experiment.yaml" or has("experiment-state.json")
    and "experiment-state.json"
  if exp_file then
    local sh = require("llmd.template").helpers.sh
    usage(("--resume %s: an experiment's workspace (experiment.lua's: %s), not a compare.lua --plan one; resume it "
      .. "with: llmdlua experiment.lua %s --resume %s"):format(o.resume, exp_file,
      has("experiment.yaml") and sh(dir .. "/experiment.yaml") or "EXPERIMENT.yaml", sh(dir)))
  end
  if not has("steps.json") and not (has("plan.yaml") and not has("comparison.json")) then
    usage(("--resume %s: not a --plan workspace (no steps.json: %s)"):format(o.resume, has("comparison.json")
      and ("it compares two existing runs, nothing to resume; llmdlua analyze.lua %s re-generates its report")
        :format(o.resume)
      or "compare.lua --plan makes the workspaces --resume continues"))
  end
  -- one process at a time: another still writing it (a second --resume) is refused here,
  -- before anything is read, deployed or written
  local lok, lerr = ws.lock(dir, "compare.lua --resume")
  if not lok then usage(lerr) end
  -- a comparison that finished (its report written, no INCOMPLETE marker): every step is
  -- done, so a resume would run none; said, with what re-generates the report
  if has("steps.json") and has("comparison_report.md") and not ws.incomplete(dir) then
    local sh = require("llmd.template").helpers.sh
    io.write(("compare.lua: --resume %s: this comparison is complete: every step is done and its report is written "
      .. "(%s/comparison_report.md); nothing to resume, nothing was run.\n"
      .. "To re-generate its report from the saved results: llmdlua analyze.lua %s\n")
      :format(o.resume, dir, sh(dir)))
    os.exit(0)
  end
end

-- A new workspace inside an existing one (--parent, the plan's parent:, or the current folder
-- there) would be nested in it: in its tree, in every copy of it and in what analyze.lua and
-- the tests of identical runs see. Refused, naming both, before anything is made.
local function not_nested(parent, what)
  local inside, kind = ws.enclosing(parent)
  if not inside then return end
  local above = inside:match("^(.*)/[^/]*$")
  usage(("%s is %sthe %s workspace %s: a new workspace there would be nested in it; give a folder "
    .. "outside it (e.g. --parent %s)"):format(what, ws.realpath(parent) == inside and "" or "inside ", kind, inside,
    require("llmd.template").helpers.sh(above ~= "" and above or "/")))
end

-- a --plan file that is not there is a usage error, as an --a folder or --a-info file that is
-- not there (exit 2); what is wrong inside it, an error in the data (exit 1)
if o.plan then args.path("--plan " .. o.plan, o.plan, "file", "the plan, a YAML file") end

if o.plan or o.resume then
  local cluster = require "llmd.cluster"
  local plan
  if o.resume and not o.plan then
    -- the workspace's copy of the plan, as the comparison started (--plan FILE replaces it)
    plan = cluster.load_plan(o.resume:gsub("/+$", "") .. "/plan.yaml", { resume = true })
  else
    plan = cluster.load_plan(o.plan, { resume = o.resume ~= nil })
  end
  if o.parent then plan.parent = o.parent end
  if not o.resume then
    not_nested(plan.parent or ".", o.parent and "--parent " .. o.parent
      or plan.parent and ("the plan's parent: %s"):format(plan.parent) or "the current folder")
  end
  -- the simple case of a fresh run against one that exists: --a DIR (or --b DIR) with a plan
  for _, x in ipairs { "a", "b" } do
    if o[x] and o.plan then
      plan.runs = plan.runs or {}
      local was = plan.runs[x]
      if type(was) == "table" then
        -- (said, never done silently: the plan the user wrote is not what runs)
        local what = type(was.existing) == "table"
          and ("the existing results %s"):format(tostring(was.existing.results)) or "a deploy and a benchmark"
        io.stderr:write(("compare.lua: --%s %s replaces the plan's run %s (%s: %s): run %s is that folder's "
          .. "results, not the plan's\n"):format(x, o[x], x, type(was.label) == "string" and ("label " .. was.label)
          or "no label", what, x:upper()))
      end
      plan.runs[x] = {
        label = o[x .. "_label"] or default_label(o[x]),
        existing = { results = o[x], link = o.link or nil },
        info = info_of(x),
      }
    end
  end
  if o.plan then cluster.validate(plan, o.plan, { resume = o.resume ~= nil }) end
  -- an SLO limit in seconds read as ms (ttft_p90_ms: 0.8): said before anything deploys, the
  -- dry run too, not only in the report once both runs have been benchmarked (newuser55 #4)
  do
    local list, where = slo, "--slo"
    if not list and plan.slo ~= nil then
      local pok, parsed = pcall(decision.parse_slo, plan.slo, "slo")
      if pok then list, where = parsed, ("%s: slo"):format(o.plan or (o.resume:gsub("/+$", "") .. "/plan.yaml")) end
    end
    for _, text in ipairs(decision.slo_unit_doubts(list, where)) do
      io.stderr:write("compare.lua: warning: ", text, "\n")
    end
  end
  -- a benchmark template of several workloads: the one benchmark.workload chooses is the one
  -- rendered and run; none chosen, refused here, before anything deploys (the dry run too)
  local chosen = {}
  for _, x in ipairs { "a", "b" } do
    local r = type(plan.runs) == "table" and plan.runs[x]
    if type(r) == "table" and not r.existing and type(r.benchmark) == "table" then
      local where = o.plan or (o.resume:gsub("/+$", "") .. "/plan.yaml")
      chosen[x] = require("llmd.experiment_run").workload_choice(r.benchmark, where, "runs." .. x .. ".benchmark",
        "one comparison per workload")
      -- (a name that is no workload of a template of one: kept as a label, said once)
      local note = require("llmd.experiment_run").workload_label_note(r.benchmark, where, "runs." .. x .. ".benchmark")
      if note then io.stderr:write("compare.lua: warning: ", note, "\n") end
      -- names run_only.sh hands to bash's eval (workload keys...): refused before anything runs
      require("llmd.experiment_run").check_template_names(r.benchmark)
    end
  end
  local ok, result, ctx = pcall(cluster.run, plan, {
    render_config = function(text, x)
      return require("llmd.experiment_run").keep_workload(text, chosen[x], ("run-%s/benchmark/config.yaml"):format(x))
    end,
    namespace = o.namespace, yes = o.yes, dry_run = o.dry_run, resume = o.resume, plan_path = o.plan,
    replace_plan = o.resume and o.plan or nil,
    only = steps, slo = slo, min_effect = min_effect, use_current_context = o.use_current_context, quiet = o.quiet,
  })
  if not ok then
    -- (an interrupt's message: "compare.lua: interrupted ...", "interrupted; ...", or one that
    -- ends "interrupted"; a failure that only mentions the word, a path named so, is a failure)
    local rs = tostring(result)
    if rs:match("^compare%.lua: interrupted") or rs:match("^interrupted") or rs:match("interrupted$") then
      -- llmd.cluster says where and what was saved; interrupted before the workspace existed,
      -- nothing was
      local msg = tostring(result)
      if not msg:match("^compare%.lua: interrupted") then msg = "compare.lua: interrupted before anything was saved" end
      -- (the progress lines first: written to a file, stdout is buffered, and the summary
      -- came before the last of them)
      io.stdout:flush()
      io.stderr:write(msg, "\n")
      os.exit(130)
    end
    error(result, 0)
  end
  if ctx.model then finish(ctx.model, ctx.ws) end
  if not ctx.result.ok then
    -- (the progress lines first, as with an interrupt: stdout may be a buffered file)
    io.stdout:flush()
    io.stderr:write(cluster.failure_line(ctx, ctx.result, "compare.lua"), "\n")
    os.exit(1)
  end
  os.exit(0)
end

local missing = {}
if not o.a then missing[#missing + 1] = "--a DIR" end
if not o.b then missing[#missing + 1] = "--b DIR" end
if #missing > 0 then
  io.stderr:write(("compare.lua: missing %s (the two runs' results folders), or give --plan FILE\n")
    :format(table.concat(missing, " and ")))
  os.exit(2)
end

not_nested(o.parent or ".", o.parent and "--parent " .. o.parent or "the current folder")

local runs = {}
for _, x in ipairs { "a", "b" } do
  local dir = o[x]
  args.path(("--%s %s"):format(x, dir), dir, "directory", "the run's results folder")
  -- a comparison's workspace holds two runs (run-a, run-b): read as one folder it is "2 runs,
  -- choose one" naming their results/ folders, where the run's folder (its results and the
  -- state compare.lua saved of it) is what --a takes (newuserd51 3)
  if ws.kind((dir:gsub("(.)/+$", "%1"))) == "comparison" then
    local sh = require("llmd.template").helpers.sh
    local base = dir:gsub("(.)/+$", "%1")
    usage(("--%s %s: a comparison's workspace (compare.lua's), which holds two runs, run-a and run-b; give the "
      .. "folder of one of them: --%s %s (or %s)"):format(x, dir, x, sh(base .. "/run-a"), sh(base .. "/run-b")))
  end
  local label = o[x .. "_label"] or default_label(dir)
  -- a run folder llmdlua benchmarked (run_state.json and results/ in it: a comparison's run-x/,
  -- an experiment's setup-treatment-S/run-R/, a re-run's reruns/run-x-ID/) is read as its
  -- results/: beside them are the run's own files (its record, run model, benchmark config,
  -- and in an experiment's cell the benchmark reports made from those same results, which
  -- read as a second harness run: "holds results of 2 harness runs", newuser50c N5)
  do
    local base = dir:gsub("(.)/+$", "%1")
    if lfs.attributes(base .. "/run_state.json", "mode") == "file"
      and lfs.attributes(base .. "/results", "mode") == "directory" then
      dir = base .. "/results"
    end
  end
  local info = info_of(x) or {}
  local warmup = o[x .. "_warmup"] or o.warmup
  local warmup_option = o[x .. "_warmup"] and ("--%s-warmup %s"):format(x, warmup) or ("--warmup %s"):format(warmup)
  runs[x] = {
    dir = dir, label = label, info = info,
    opts = {
      harness = o[x .. "_harness"] or o.harness, percentile_method = o.percentile_method,
      warmup = warmup and args.value(args.list_of_ints, warmup,
        o[x .. "_warmup"] and "--" .. x .. "-warmup" or "--warmup") or nil,
      require_results = true, tolerant = o.tolerant,
      warmup_option = warmup and warmup_option, run_name = ("run %s '%s'"):format(x:upper(), label),
    },
  }
end
do -- the same folder twice (also through another path or a link) compares a run with itself
  local ia, ib = lfs.attributes(runs.a.dir), lfs.attributes(runs.b.dir)
  if ia and ib and ia.dev == ib.dev and ia.ino == ib.ino then
    usage(("--a %s and --b %s are the same folder: a run compared with itself shows nothing; give the "
      .. "other configuration's results folder"):format(runs.a.dir, runs.b.dir))
  end
end
do -- the workspace inside a results folder it reads: the folder modified (README: sources never
  -- are), and the next compare of it finds the copies beside the results ("choose one": audit48
  -- S9b). Refused by real path (where a --parent not made yet would be).
  local p = ws.resolve(o.parent or ".")
  for _, x in ipairs { "a", "b" } do
    local r = ws.realpath(runs[x].dir)
    if r and (p == r or p:sub(1, #r + 1) == r .. "/") then
      usage(("%s is %sthe results folder --%s %s: the workspace would be made among the results it reads; give a "
        .. "folder outside it (e.g. --parent %s)"):format(o.parent and "--parent " .. o.parent
        or "the current folder", p == r and "" or "inside ", x, runs[x].dir,
        require("llmd.template").helpers.sh(r:match("^(.*)/[^/]*$") or "/")))
    end
  end
end
if runs.a.label == runs.b.label then
  usage(("both runs are labelled '%s'; give them different labels with --a-label and --b-label")
    :format(runs.a.label))
end
-- check everything before creating anything: each folder's harness, what will be copied
local harness = require "llmd.harness"
for _, x in ipairs { "a", "b" } do
  -- (files that cannot be read: every one said in one error, those only reading finds too, as
  -- harness.extract says them, newuser54 #4)
  local c, why = harness.resolve(runs[x].dir, setmetatable({ defer_unreadable = true }, { __index = runs[x].opts }))
  if c and #(c.unreadable or {}) > 0 and not runs[x].opts.tolerant then
    harness.extract(runs[x].dir, runs[x].opts) -- (raises the one error; returns only if the files changed since)
  end
  if not c then
    -- --harness given for both runs, and this one holds another harness's results: runs of
    -- two harnesses are compared with a harness each
    if o.harness and not o[x .. "_harness"] and why:match(": it holds [^\n]* results") then
      why = why:gsub("\n", ("; to compare runs of two harnesses, give each its own: --a-harness NAME --b-harness "
        .. "NAME (--%s-harness for this one)\n"):format(x), 1)
    end
    error(("--%s %s: %s"):format(x, runs[x].dir, why), 0)
  end
  -- the warm-up stages against the stages the files hold, where that is known without reading
  -- them (else when they are read)
  local indexes = c.harness.stage_indexes and c.harness.stage_indexes(c)
  if indexes then
    local okw, werr = pcall(harness.check_warmup, indexes, runs[x].opts.warmup, runs[x].opts.warmup_option,
      runs[x].opts.run_name)
    if not okw then -- a usage error: nothing is made
      io.stderr:write("compare.lua: ", tostring(werr), "\n")
      os.exit(2)
    end
  end
  runs[x].plan = ws.plan_import(runs[x].dir)
  for _, s in ipairs(runs[x].plan.skipped) do
    io.stderr:write(("compare.lua: warning: run %s (%s): %s\n"):format(x, runs[x].label, s))
  end
end

-- two folders holding the same files, byte for byte (a copy under another label): compared,
-- but said in the report and here, since every "no clear difference" would be one run's
-- agreement with itself, not two configurations alike
local identical
-- (a run and its re-run: the same recorded configuration, llmd.report.same_recorded_config)
local rerun
do
  local _, sa = ws.recorded_run(runs.a.dir)
  local _, sb = ws.recorded_run(runs.b.dir)
  rerun = require("llmd.report").same_recorded_config(sa, sb)
  -- two clusters (a re-run made on another kube context): said, and no re-run (fixb55 #1)
  local differ = ws.cluster_difference(runs.a.label, ws.cluster_record(runs.a.dir), runs.b.label,
    ws.cluster_record(runs.b.dir))
  if differ then
    rerun = false
    io.stderr:write("compare.lua: warning: ", differ, "\n")
  end
end
do
  local function pairs_of(plan)
    local out = {}
    for i, f in ipairs(plan.files) do out[i] = { rel = f.rel, path = f.from } end
    return out
  end
  local fa = runs.a.plan.files
  if require("llmd.runmodel").same_files(pairs_of(runs.a.plan), pairs_of(runs.b.plan)) then
    identical = cmp.identical_text(runs.a.dir, runs.a.label, runs.b.dir, runs.b.label, #fa, nil, rerun)
    io.stderr:write("compare.lua: warning: ", identical, "\n")
  end
end

tl.mark("checks")
-- the SLOs, before anything is created: --slo, else the info files' (which must agree)
-- (a run llmdlua benchmarked that states none: the SLO its run_state.json recorded)
local function slo_of(x)
  if runs[x].info.slo ~= nil then return runs[x].info.slo end
  local file, st = ws.recorded_run(runs[x].dir)
  if file and type(st.slo) == "table" and next(st.slo) ~= nil then return st.slo, file end
end
do
  local sa, fa = slo_of("a")
  local sb, fb = slo_of("b")
  slo = cmp.resolve_slo({ state = { label = runs.a.label, slo = sa, slo_from = fa } },
    { state = { label = runs.b.label, slo = sb, slo_from = fb } }, { slo = slo })
end

-- room for the copies of the results (none with --link), before anything is made: a disk
-- they would fill failed at whichever write hit it (often the report's, not the copy that
-- took the room), with no word of the size or of --link. Their sizes are not all they take:
-- room.margin more is kept free (COPY_MARGIN), what the copy really needs beyond them:
-- - a block for each file and folder (files take whole blocks, 4 KiB on ext4, XFS and tmpfs:
--   a results folder of 10,000 small files takes up to 41 MB beyond its sizes);
-- - 1 % of the copies: a copy-on-write filesystem (Btrfs) needs metadata room for each extent
--   it writes and refuses with free blocks left when that runs out, and a nearly full one
--   fragments; the workspace's run models grow with the requests too (0.36 MB each for the
--   simulated pair's 5.1 MB runs, tens of MB for runs of millions of requests);
-- - 8 MB for the workspace's own files beside the copies: the report, its charts,
--   comparison.json and the run models, measured (du -B1 of the workspace less its copies) at
--   0.9 MB for the kubecon fixture pair and 1.8 MB for README's simulated pair, each written
--   through a temporary file beside it.
-- (It was at least 64 MB: a 10 MB pair was refused on a disk with 62.9 MB free, newuser47b E4.)
-- Less free than that is refused, saying the margin; --link copies nothing and needs none.
local COPY_MARGIN = { block = 4096, share = 0.01, own = 8 * 1000 * 1000 }
local room
if not o.link then
  local ra, rb = ws.copy_room(o.parent or ".", { runs.a.plan }), ws.copy_room(o.parent or ".", { runs.b.plan })
  room = { need = ra.need + rb.need, entries = ra.entries + rb.entries, free = ra.free, inodes = ra.inodes,
    where = ra.where }
  room.margin = COPY_MARGIN.block * room.entries + math.ceil(room.need * COPY_MARGIN.share) + COPY_MARGIN.own
  if room.free and room.free < room.need + room.margin then
    io.stderr:write(("compare.lua: not enough free space for the workspace: it copies the two runs' results, %s "
      .. "(run a %s, run b %s), keeping %s more free (a 4 KiB block for each of their %d files and folders, 1 %% of "
      .. "them and 8 MB for the report and the workspace's other files), and %s has %s free; free some space, give "
      .. "--parent DIR on a disk with room, or --link to read the results where they are, copying nothing\n"):format(
      ws.bytes_text(room.need), ws.bytes_text(ra.need), ws.bytes_text(rb.need), ws.bytes_text(room.margin),
      room.entries, room.where, ws.bytes_text(room.free)))
    os.exit(1)
  end
end

-- From here on the workspace is ours: marked incomplete until everything is written, and
-- removed again on any failure or Ctrl-C.
-- (the --parent folders made for it go too when it is removed, each only if empty)
local made = ws.missing_folders(o.parent or ".")
local w = ws.create { parent = o.parent, incomplete = "compare.lua started making this workspace and has "
  .. "not finished (it failed, was interrupted, or is still running)" }
local par = require "llmd.parallel"
local child -- run b's reader, when it runs beside this process
local copies = {} -- the children copying results read in place, by run
local charts_idle -- the charts' gnuplot, started before the model is built (cmp.spawn_charts)
local ok, model = pcall(function()
  -- (ours alone: analyze.lua on it meanwhile is refused)
  local lok, lerr = ws.lock(w.path, "compare.lua")
  if not lok then error(lerr, 0) end
  -- results read in place are copied from the start, beside the reading (a child per run),
  -- else here before it: the copy does not wait for the reading (issue 20: started once a
  -- run was read, run b's copy outlasted the report by a third of the comparison)
  local function copy(x)
    if o.link or not ws.read_in_place(w, runs[x].plan) then return end
    ws.mkdir_p(ws.run_dir(w, x)) -- (the import makes it too: run-x/results.partial goes in it)
    local why, kind
    copies[x], why, kind = par.start_copy(w, x, runs[x].plan)
    if not copies[x] then
      par.say_fallback("compare.lua", ("run %s's results"):format(x), "are copied by this llmdlua before its "
        .. "reading, not beside it", why, kind)
      ws.copy_later(w, x, runs[x].plan)
      tl.mark("copy " .. x)
    end
  end
  local sides, jobs = {}, {}
  for _, x in ipairs { "a", "b" } do
    local r = runs[x]
    r.opts.slo = slo
    jobs[x] = { label = r.label, plan = r.plan, info = r.info, link = o.link, opts = r.opts,
      info_where = o[x .. "_info"] and ("--%s-info %s"):format(x, o[x .. "_info"]) or nil,
      -- how the results were read, so analyze.lua reads them the same way
      extract_options = { harness = r.opts.harness, warmup = r.opts.warmup,
        percentile_method = r.opts.percentile_method, tolerant = r.opts.tolerant } }
  end
  -- the two runs at once where a second llmdlua can be started (else one after the
  -- other, as before): run b imported and read by a child, run a here
  tl.mark("workspace")
  local why, kind
  child, why, kind = par.start(w, "b", jobs.b)
  if not child then
    par.say_fallback("compare.lua", "run b", "is read by this llmdlua after run a, not beside it", why, kind)
  end
  tl.mark("child started")
  copy("a")
  copy("b")
  sides.a = cmp.import_side(w, "a", jobs.a)
  -- run a is read: the gnuplot that draws the charts starts now, beside run b's reading and
  -- the report's model (a gnuplot's start is most of its time on a chart: started once the
  -- model was built, they were a third of a 300 MB pair's time after the reading; issue 20),
  -- given each chart when its variables are known. (Started as the reading started, the
  -- gnuplots cost 0.08 CPU-s more: 23 interleaved runs, a busy machine.)
  charts_idle = cmp.spawn_charts(w)
  tl.mark("charts' gnuplot started")
  if child then
    -- (its folder is gone whatever happens)
    sides.b, why, kind = par.finish(child)
    child = nil
    if not sides.b then
      -- read, but not handed over (no room on the disk for the samples; a value that cannot
      -- be, a bug, said as one): again, here, and copied again (run-b goes, with what its
      -- copy had made)
      par.say_fallback("compare.lua", "run b", "was read again by this llmdlua: its reader could not hand it over",
        why, kind)
      par.abort(copies.b)
      copies.b = nil
      ws.remove_tree(ws.run_dir(w, "b"))
      copy("b")
      sides.b = cmp.import_side(w, "b", jobs.b)
    end
  else
    sides.b = cmp.import_side(w, "b", jobs.b)
  end
  -- not the same bytes, but the same figures in every load point to the last digit (one
  -- run's results re-serialised, or copied with other names): a run compared with itself
  if not identical and require("llmd.runmodel").same_figures(sides.a.run, sides.b.run) then
    identical = cmp.identical_text(runs.a.dir, runs.a.label, runs.b.dir, runs.b.label, nil,
      require("llmd.runmodel").throughput_bases_differ(sides.a.run, sides.b.run), rerun)
    io.stderr:write("compare.lua: warning: ", identical, "\n")
  end
  -- (checked above, on the user's folders: false is "not identical", not "unchecked")
  local m = cmp.report(w, sides.a, sides.b, { slo = slo, min_effect = min_effect, identical = identical or false,
    slo_where = o.slo and "--slo" or nil, charts_idle = charts_idle or false })
  charts_idle = nil -- (cmp.report's now: used, or stopped)
  for _, x in ipairs { "a", "b" } do
    if copies[x] then
      par.finish(copies[x])
      copies[x] = nil
    end
    -- the copy checked its source after copying, but the reading may have ended after
    -- that: checked again now that both have, so that what was read is what was copied
    if not o.link and ws.read_in_place(w, runs[x].plan) then ws.check_unchanged(runs[x].plan) end
  end
  ws.mark_complete(w)
  tl.mark("report written")
  return m
end)
if not ok then
  -- a Ctrl-C not yet raised (the error was another's, or said EINTR) is taken now: it would
  -- stop this clean-up at its next call and leave the workspace behind
  if require("llmd.proc").take_interrupt() then model = "interrupted" end
  -- a Ctrl-C once the report is written and the workspace marked complete: it is kept
  if tostring(model):match("interrupted$") and ws.complete(w.path) then interrupted_complete(w.path) end
  par.abort(child) -- a child still reading run b stops before its workspace goes
  par.abort(copies.a) -- (and one still copying)
  par.abort(copies.b)
  require("llmd.charts").abort_idle(charts_idle) -- (and the charts' gnuplot)
  -- the user's own files are named, not the workspace's copies (which are going away)
  model = tostring(model)
  -- (run-x/results itself, not run-x/results.partial, where a copy that failed was being
  -- made: that one is named as it is, in the workspace said below to be removed)
  for _, x in ipairs { "a", "b" } do
    local copy = (w.path .. "/run-" .. x .. "/results"):gsub("%p", "%%%0") .. "%f[^%w%._%-]"
    model = model:gsub(copy, (runs[x].plan.root:gsub("%%", "%%%%")))
  end
  -- (the inodes left as the write failed, before the workspace's own go back: a filesystem
  -- out of inodes refuses with bytes free, ws.copy_room_hint)
  if room then room.inodes_now = select(2, require("llmd.proc").disk_free(room.where)) end
  local removed, why = ws.remove(w)
  if removed then for _, d in ipairs(made) do lfs.rmdir(d) end end
  -- a full disk: whichever write hit it is named, but the copies of the results are what
  -- took most of the room, and --link makes none
  if not o.link and (model:find("No space left on device", 1, true) or model:find("Disk quota exceeded", 1, true)) then
    local hint = ws.copy_room_hint(room)
    if hint then model = ("%s (%s)"):format(model, hint) end
  end
  local where = removed and ("the workspace %s was removed"):format(w.path)
    or ("the workspace %s is marked incomplete (could not remove it: %s)"):format(w.path, tostring(why))
  if model:match("interrupted$") then error(("interrupted; %s"):format(where), 0) end
  error(("%s (%s)"):format(model, where), 0)
end
finish(model, w)
tl.mark("done")
cmp.say_left_out(model, "compare.lua") -- (the report's banner says them; so does stderr)
-- a chart gnuplot failed to draw: the report is written without it (and says why), the
-- workspace kept; the exit status says it failed
if #(model.chart_failures or {}) > 0 then
  -- (one line, as every exit 1: each chart's failure in it, the first line of each)
  local said = {}
  for _, f in ipairs(model.chart_failures) do said[#said + 1] = tostring(f):match("^[^\n]*") end
  io.stderr:write("compare.lua: error: ", table.concat(said, "; "), "\n")
  os.exit(1)
end
