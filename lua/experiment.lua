-- llmdlua experiment.lua EXPERIMENT.yaml --plan plan.yaml [--stop-on-error] [--skip-teardown]
--                        [--dry-run] [--step LIST] [--namespace NS] [--quiet]
-- llmdlua experiment.lua EXPERIMENT.yaml --resume WORKSPACE
-- llmdlua experiment.lua EXPERIMENT.yaml --show
--
-- Runs an llm-d-benchmark experiment (setup treatments x run treatments) on the cluster:
-- each setup treatment deployed in its own namespace (several at once with the plan's
-- `namespaces:` and `parallel:`), smoke-tested, benchmarked with every run treatment,
-- its logs saved and torn down; then experiment-summary.yaml, the summary table and the
-- comparison across treatments. --show prints the parsed experiment and its warnings.
local args = require "llmd.args"
local ex = require "llmd.experiment"
local json = require "llmd.json"

local o = args.parse(arg, {
  command = "llmdlua experiment.lua",
  usage = "llmdlua experiment.lua EXPERIMENT.yaml (--plan FILE | --resume WORKSPACE | --show) [--stop-on-error] "
    .. "[--skip-teardown] [--dry-run] [--step LIST] [--namespace NS] [--use-current-context] [--quiet]",
  help = [[
  --show                    print the parsed experiment (JSON) and its warnings; exit 1 if
                            it has no run treatment; with --plan, also check the run
                            treatments' keys against the plan's benchmark template (without
                            it, says they are unchecked and warns of two a letter apart)
  --plan FILE               the cluster plan: namespaces, parallel, deploy, benchmark (README)
  --resume WORKSPACE        go on with an interrupted experiment from its last completed step
                            (run treatments with results are not run again)
  --stop-on-error           start no further setup treatment after one fails
  --skip-teardown           keep every stack (needs a namespace per setup treatment)
  --dry-run                 print every cluster command instead of running it, reads too
                            (not made: shown as [dry-run, not read]); only the renders that
                            check the manifests run (kubectl kustomize, client side)
  --step LIST               only these steps, e.g. 0,10-30 (0 preflight, 10 render, 20 standup,
                            30 smoketest, 40 run, 50 logs, 60 teardown, 100 summary)
  --namespace NS            the namespace when the plan names none
  --use-current-context     resume in the current kube context although the workspace
                            recorded another cluster or none (made with no kube context)
  --quiet                   no progress lines nor summary table (both still written to the
                            workspace): a failure, warnings, where the workspace and the
                            comparison are and how to go on are still said (--dry-run
                            prints its commands still)
]],
  options = { show = true, plan = "FILE", resume = "WORKSPACE", stop_on_error = true, skip_teardown = true,
    dry_run = true, step = "LIST", namespace = "NS", use_current_context = true, quiet = true },
  positional = { min = 1, max = 1 },
})

-- a user's mistake (a bad file, a bad key) is one line naming it, not a traceback: a usage
-- error (exit 2) and an interrupt (130) name the script, as llmd.args and compare.lua do; an
-- error in the data is "llmdlua: message", exit 1, as the host prints for the other scripts
-- (README: Running scripts); a bug keeps its traceback (llmd.errors)
local fail = require("llmd.errors").exit

-- a file or folder the command line names that is not there is a usage error (exit 2), as
-- in compare.lua; what is wrong inside one, an error in the data (exit 1)
args.path(o[1], o[1], "file", "the experiment, a YAML file")
if o.plan then args.path("--plan " .. o.plan, o.plan, "file", "the plan, a YAML file") end

-- The experiment file and the plan given the other's way round (`experiment.lua exp.yaml
-- --plan exp.yaml`): one line saying which file is which, not each of its keys "unknown" to
-- the other's reader. A file is one or the other when its top keys are only of one kind.
do
  local PLAN = { namespaces = true, namespace = true, parallel = true, parent = true, bins = true, timeouts = true,
    benchmark_pvc = true, teardown_without_logs = true, deploy = true, benchmark = true, baseline = true,
    info = true, slo = true }
  local EXP = {}
  for _, k in ipairs(ex.KNOWN_KEYS[""]) do EXP[k] = true end
  -- "plan" or "experiment" and its keys (in the file's order), or nil when it is neither or both
  local function kind(path)
    local ok, doc = pcall(require("llmd.yaml").load_file, path)
    if not ok or type(doc) ~= "table" or next(doc) == nil then return nil end
    local kok, ks = pcall(require("llmd.yaml").keys, doc)
    if not kok then return nil end
    local plan, exp = 0, 0
    for _, k in ipairs(ks) do
      if PLAN[k] then plan = plan + 1 elseif EXP[k] then exp = exp + 1 end
    end
    local list = table.concat(ks, ", ")
    if plan > 0 and exp == 0 then return "plan", list end
    if exp > 0 and plan == 0 then return "experiment", list end
  end
  local sh = require("llmd.template").helpers.sh
  -- a compare.lua plan (runs: a and b) given for the experiment's plan or for the experiment:
  -- one line naming the tool it is for (newuser50c N7: three lines, runs: unknown, deploy: and
  -- benchmark: missing, none saying so)
  local function compare_plan(path)
    local ok, doc = pcall(require("llmd.yaml").load_file, path)
    return ok and type(doc) == "table" and type(doc.runs) == "table" and doc.deploy == nil and doc.benchmark == nil
  end
  if o.plan and compare_plan(o.plan) then
    fail(("--plan %s: a compare.lua plan (runs:, each run's deploy: and benchmark: under it), not an experiment's "
      .. "plan (deploy: and benchmark: at its top, for every treatment); it runs with llmdlua compare.lua --plan %s"
      ):format(o.plan, sh(o.plan)), 2)
  elseif compare_plan(o[1]) then
    fail(("%s: a compare.lua plan (runs:), not an experiment file (experiment, setup, treatments); it runs with "
      .. "llmdlua compare.lua --plan %s"):format(o[1], sh(o[1])), 2)
  end
  local ek, ekeys = kind(o[1])
  local pk, pkeys = nil, nil
  if o.plan then pk, pkeys = kind(o.plan) end
  if ek == "plan" and pk == "experiment" then
    fail(("%s and --plan %s are the other way round: %s is a plan (keys %s), %s an experiment (keys %s); run: "
      .. "llmdlua experiment.lua %s --plan %s"):format(o[1], o.plan, o[1], ekeys, o.plan, pkeys, sh(o.plan),
      sh(o[1])), 2)
  elseif pk == "experiment" then
    fail(("--plan %s: an experiment file (keys %s), not a plan (namespaces, deploy, benchmark, ...): the plan says "
      .. "where and how every treatment deploys and benchmarks (README: Experiments)"):format(o.plan, pkeys), 2)
  elseif ek == "plan" then
    fail(("%s: a plan (keys %s), not an experiment file (experiment, setup, treatments); the experiment comes first: "
      .. "llmdlua experiment.lua EXPERIMENT.yaml --plan %s"):format(o[1], ekeys, sh(o[1])), 2)
  end
end
local ok, e = pcall(ex.load, o[1])
if not ok then fail(e) end
if o.show then
  for _, w in ipairs(e.warnings) do io.stderr:write("warning: ", w, "\n") end
  -- the parsed form as upstream's parser gives it (total_matrix counts a default setup
  -- treatment even with no run treatment); then what --plan would refuse, refused here too:
  -- no run treatments, and with --plan, a run treatment key the benchmark template lacks
  io.write(json.encode(ex.summary(e), { indent = 2 }), "\n")
  local xr = require "llmd.experiment_run"
  local cok, ce = pcall(xr.check_runnable, e, o[1])
  if not cok then fail(ce) end
  if o.plan then
    local pok, plan = pcall(xr.load_plan, o.plan)
    if not pok then fail(plan) end
    local wn = xr.workload_label_note(plan.benchmark, o.plan, "benchmark")
    if wn then io.stderr:write("experiment.lua: warning: ", wn, "\n") end
    local rok, notes = pcall(xr.check_run_treatments, e, plan, o[1])
    if not rok then fail(notes) end
    for _, n in ipairs(notes) do io.stderr:write(n, "\n") end
    local sok, serr = pcall(xr.check_setup_value_keys, e, plan, o[1], o.plan)
    if not sok then fail(serr) end
  else
    -- no template: said, never read as "the keys are fine"; and what can be checked
    for _, n in ipairs(ex.unchecked_key_lines(e, o[1])) do io.stderr:write(n, "\n") end
    -- no values but the treatments' own: two of them a letter apart, warned (--plan refuses)
    for _, n in ipairs(xr.check_setup_value_keys(e, nil, o[1])) do io.stderr:write("warning: ", n, "\n") end
  end
  os.exit(0)
end
if not o.plan and not o.resume then fail("give --plan FILE (or --resume WORKSPACE, or --show)", 2) end
if o.use_current_context and not o.resume then
  fail("--use-current-context: only with --resume WORKSPACE (a new experiment records the current kube context)", 2)
end

if o.resume then
  -- the workspace, absolute from here on: the steps run commands in other folders
  -- (run_only.sh -c .../config.yaml in run-x/benchmark), where a relative path names
  -- nothing (compare.lua's --resume: llmd.workspace.open)
  local lfs = require "lfs"
  local dir = o.resume:gsub("(.)/+$", "%1")
  args.path("--resume " .. o.resume, dir, "directory", "the workspace of an experiment.lua run")
  -- a folder that is no experiment's workspace (a results folder, a comparison's): one line,
  -- exit 2, as compare.lua --resume says it (not its plan.yaml "cannot open", a file the user
  -- never made). experiment.lua writes experiment-state.json as it starts, after plan.yaml and
  -- experiment.yaml (an interrupt between leaves those two)
  do
    local function has(n) return lfs.attributes(dir .. "/" .. n, "mode") == "file" end
    if not has("experiment-state.json") and not (has("plan.yaml") and has("experiment.yaml")) then
      local sh = require("llmd.template").helpers.sh
      local comparison = require("llmd.workspace").kind(dir) == "comparison" or has("steps.json")
      fail(("--resume %s: not an experiment workspace (no experiment-state.json%s)"):format(o.resume, comparison
        and ("; a comparison's, compare.lua's: llmdlua compare.lua --resume %s"):format(sh(dir))
        or ": experiment.lua --plan makes the workspaces --resume continues"), 2)
    end
  end
  o.resume = require("llmd.proc").realpath(dir) or dir
  -- the experiment it ran: the copy it keeps of its file, else the name its state records. Another
  -- experiment's setups deployed into it would mix two designs in one workspace and summary
  local own = o.resume .. "/experiment.yaml"
  local function design(x)
    local function part(list)
      local out = {}
      for i, t in ipairs(list or {}) do out[i] = { name = t.name, overrides = t.overrides } end
      return out
    end
    return json.encode { name = x.name, setup = part(x.setup_treatments), run = part(x.run_treatments),
      reset_caches = x.reset_caches, run_controls = x.run_controls }
  end
  local ran, ran_name
  if lfs.attributes(own, "mode") == "file" then
    local wok, we = pcall(ex.load, own)
    if wok then ran, ran_name = we, we.name end
  elseif lfs.attributes(o.resume .. "/experiment-state.json", "mode") == "file" then
    local sok, st = pcall(json.read, o.resume .. "/experiment-state.json")
    if sok and type(st) == "table" and type(st.experiment) == "string" then ran_name = st.experiment end
  end
  local sh = require("llmd.template").helpers.sh
  if ran_name and ran_name ~= e.name then
    fail(("--resume %s: this workspace ran experiment %s%s, not experiment %s of %s; resume it with its own: "
      .. "llmdlua experiment.lua %s --resume %s"):format(o.resume, ran_name, ran and (" (" .. own .. ")") or "",
      e.name, o[1], ran and sh(own) or "EXPERIMENT.yaml", sh(o.resume)), 2)
  end
  if ran and design(ran) ~= design(e) then
    fail(("--resume %s: %s is not the experiment %s this workspace ran (%s): its treatments or run controls "
      .. "differ; resume it with its own (llmdlua experiment.lua %s --resume %s), or start a new experiment "
      .. "with --plan"):format(o.resume, o[1], e.name, own, sh(own), sh(o.resume)), 2)
  end
end

local xr = require "llmd.experiment_run"
-- (--step first: one naming no step is refused before the plan is read or anything made)
local only
if o.step then
  local sok, set = pcall(require("llmd.steps").parse, o.step, xr.steps_list())
  if not sok then fail(set, 2) end
  only = set
end
local plan_path = o.plan or (o.resume:gsub("/+$", "") .. "/plan.yaml")
local pok, plan = pcall(xr.load_plan, plan_path)
if not pok then fail(plan) end
-- (a benchmark.workload that is no workload of a template of one: kept as a label, said once)
local wnote = xr.workload_label_note(plan.benchmark, plan_path, "benchmark")
if wnote then io.stderr:write("experiment.lua: warning: ", wnote, "\n") end
if o.resume then
  -- (an experiment's workspace, its plan read:) one process at a time; another still running
  -- it (a second --resume) is refused here, before anything is deployed or written
  local lok, lerr = require("llmd.workspace").lock(o.resume, "experiment.lua --resume")
  if not lok then fail(lerr, 2) end
end
-- The command that goes on from here, as the user types it: the same experiment and options,
-- with --resume WORKSPACE (what a real run left to do), or, after a dry run, the same command
-- without --dry-run (a dry run's workspace holds nothing to resume: none of its steps ran)
local function next_command(resume, teardown)
  local argv = { "llmdlua", "experiment.lua", o[1] }
  local function add(...) for _, a in ipairs { ... } do argv[#argv + 1] = a end end
  if resume then
    add("--resume", resume)
    -- (a workspace that records no cluster: its resume is refused without it)
    if require("llmd.cluster").records_no_cluster(resume) then add("--use-current-context") end
    -- (its teardown step alone: what is left deployed goes, nothing else runs)
    if teardown then add("--step", "60") end
  else
    if o.plan then add("--plan", o.plan) end
    if o.resume then add("--resume", o.resume) end
    if o.step then add("--step", o.step) end
    if o.namespace then add("--namespace", o.namespace) end
    if o.stop_on_error then add("--stop-on-error") end
    if o.skip_teardown then add("--skip-teardown") end
    if o.quiet then add("--quiet") end
  end
  return require("llmd.k8s").cmdline(argv)
end
local started -- the run's context once it has one (its workspace, its stacks)
local rok, all_ok, ctx = pcall(xr.run, e, plan, {
  dry_run = o.dry_run, resume = o.resume, stop_on_error = o.stop_on_error, skip_teardown = o.skip_teardown,
  only = only, namespace = o.namespace, experiment_path = o[1], plan_path = plan_path,
  use_current_context = o.use_current_context, quiet = o.quiet, on_ctx = function(c) started = c end,
})
if not rok then
  -- (an interrupt's message starts or ends with "interrupted"; a failure that only mentions the
  -- word, a path named so, is a failure)
  local es = tostring(all_ok)
  if es:match("^experiment%.lua: interrupted") or es:match("^interrupted") or es:match("interrupted$") then
    if not started then fail("interrupted before the experiment started: nothing was deployed", 130) end
    if o.dry_run then
      local gone = started.scratch and ("\n" .. require("llmd.cluster").remove_dry_run(started)) or ""
      fail(("interrupted during the dry run: nothing was deployed. To run it: %s%s"):format(next_command(), gone), 130)
    end
    -- (where, as compare.lua says it: the step, the setup and the run treatment)
    local wok, where = pcall(xr.interrupted_where, started)
    -- (and, where something is left deployed, how to remove it without going on, as compare.lua
    -- says "Tear down without going on: ... --step 90")
    local lok, left = pcall(xr.left_deployed, started)
    local down = lok and #left > 0 and ("\nTear down without going on: " .. next_command(started.ws.path, true)) or ""
    fail(("interrupted%s; state saved in %s.\n%s\nContinue with: %s%s"):format(wok and where or "", started.ws.path,
      xr.left_text(started), next_command(started.ws.path), down), 130)
  end
  if started and started.scratch then
    fail(("%s\n%s"):format(tostring(all_ok), require("llmd.cluster").remove_dry_run(started)))
  end
  fail(all_ok)
end
if ctx.scratch then
  -- a fresh dry run's workspace holds nothing to resume: removed, as compare.lua's is
  io.write("\n", require("llmd.cluster").remove_dry_run(ctx), "\n")
else
  io.write(("\nExperiment workspace: %s\n"):format(ctx.ws.path))
end
-- what is still deployed, and where, when a stack was kept or a treatment failed
if not all_ok or #xr.left_deployed(ctx) > 0 then io.write(xr.left_text(ctx), "\n") end
-- a --step subset that did what it was asked: which treatments it left pending, and how to
-- go on with the steps it left out
if all_ok and #ctx.pending > 0 then
  io.write(("Left pending (--step %s did not include their remaining steps): %s\n"):format(o.step,
    table.concat(ctx.pending, ", ")))
  if not o.dry_run then io.write(("To go on with the other steps: %s\n"):format(next_command(ctx.ws.path))) end
end
if o.dry_run then
  local refused = false -- (a step the dry run refused; else at most steps --step left out)
  for _, r in pairs(ctx.results) do
    if tostring(r.status):match("^failed") then refused = true end
  end
  io.write(("%s: %s\n"):format(refused and "To run it after fixing the cause" or "To run it", next_command()))
elseif not all_ok then
  io.write(("To continue after fixing the cause: %s\n"):format(next_command(ctx.ws.path)))
  -- (a workspace this command made, refused before anything was measured - the cluster refused a
  -- deploy, a preflight failed - and with nothing left deployed: said, with how to remove it,
  -- as compare.lua says it; never of a resumed one, which holds an earlier session's)
  if not o.resume and xr.holds_nothing(ctx) then
    io.write(("  (%s holds nothing measured and nothing deployed: it is kept for that --resume; if you do not go "
      .. "on with it, remove it: rm -r %s)\n"):format(ctx.ws.path, require("llmd.k8s").cmdline { ctx.ws.path }))
  end
end
if not all_ok then
  io.stdout:flush()
  io.stderr:write(xr.failure_line(ctx), "\n")
  os.exit(1)
end
os.exit(0)
