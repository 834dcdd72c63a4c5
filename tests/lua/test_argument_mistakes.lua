-- A wrong argument given to experiment.lua or analyze.lua (newuser47 F5, F10, F12): one line
-- naming it and what was expected, exit 2 (README: a usage error), as compare.lua --resume
-- says of the same mistake - not a file the user never made ("DIR/plan.yaml: cannot open",
-- exit 1), nor five "unknown key" lines for a plan and an experiment file the other way round.
-- Expected lines written by hand from the task.
local t = require "testlib"
local proc = require "llmd.proc"

local LLMDLUA = t.root() .. "/llmdlua"

local EXPERIMENT = "experiment:\n  name: nu\nsetup:\n  treatments:\n    - name: one\n      decode.replicas: 1\n"
  .. "treatments:\n  - name: rate1\n    load.stages.0.rate: 1\n"
local PLAN = "namespaces: [nu-a]\ntimeouts: {poll: 1}\n"
  .. "deploy: {method: helmfile, guide_dir: guide, environment: istio, model: Qwen/Qwen3-0.6B}\n"
  .. "benchmark: {template: template.yaml, harness: inference-perf}\n"

local function setup()
  local d = proc.realpath(t.tmpdir())
  t.write(d .. "/experiment.yaml", EXPERIMENT)
  t.write(d .. "/plan.yaml", PLAN)
  -- a results folder (what a user may take for a workspace)
  t.mkdir(d .. "/sim-a")
  t.write(d .. "/sim-a/summary_lifecycle_metrics.json", "{}\n")
  -- a comparison's workspace (compare.lua --plan's: run-a/, run-b/, steps.json)
  t.mkdir(d .. "/cmp/run-a")
  t.mkdir(d .. "/cmp/run-b")
  t.write(d .. "/cmp/steps.json", "[]\n")
  t.write(d .. "/cmp/plan.yaml", "namespace: x\n")
  return d
end

local function run(d, ...)
  return proc.run({ LLMDLUA, ... }, { cwd = d, timeout = 60 })
end

t.test("experiment.lua --resume on a folder that is no experiment's workspace: one line, exit 2", function()
  local d = setup()
  local r = run(d, "experiment.lua", "experiment.yaml", "--resume", "sim-a")
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, "experiment.lua: --resume sim-a: not an experiment workspace (no experiment-state.json: "
    .. "experiment.lua --plan makes the workspaces --resume continues)\n")
  t.eq(r.stdout, "")
  r = run(d, "experiment.lua", "experiment.yaml", "--resume", "cmp/")
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, "experiment.lua: --resume cmp/: not an experiment workspace (no experiment-state.json; a "
    .. "comparison's, compare.lua's: llmdlua compare.lua --resume cmp)\n")
end)

t.test("analyze.lua on a folder that is no comparison's workspace: one line, exit 2", function()
  local d = setup()
  local r = run(d, "analyze.lua", "sim-a")
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, "analyze.lua: sim-a: not a comparison workspace (no run-a/ and run-b/ of compare.lua's beside its "
    .. "report or plan); analyze.lua re-generates the report of one compare.lua made - two results folders are "
    .. "compared with llmdlua compare.lua --a DIR --b DIR\n")
end)

t.test("experiment.lua with the experiment and the plan the other way round: one line saying which is which",
  function()
  local d = setup()
  local r = run(d, "experiment.lua", "experiment.yaml", "--plan", "experiment.yaml")
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, "experiment.lua: --plan experiment.yaml: an experiment file (keys experiment, setup, treatments), "
    .. "not a plan (namespaces, deploy, benchmark, ...): the plan says where and how every treatment deploys and "
    .. "benchmarks (README: Experiments)\n")
  r = run(d, "experiment.lua", "plan.yaml", "--plan", "experiment.yaml")
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, "experiment.lua: plan.yaml and --plan experiment.yaml are the other way round: plan.yaml is a plan "
    .. "(keys namespaces, timeouts, deploy, benchmark), experiment.yaml an experiment (keys experiment, setup, "
    .. "treatments); run: llmdlua experiment.lua experiment.yaml --plan plan.yaml\n")
  r = run(d, "experiment.lua", "plan.yaml", "--show")
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, "experiment.lua: plan.yaml: a plan (keys namespaces, timeouts, deploy, benchmark), not an "
    .. "experiment file (experiment, setup, treatments); the experiment comes first: llmdlua experiment.lua "
    .. "EXPERIMENT.yaml --plan plan.yaml\n")
end)

-- (fixt50, newuser50c N7) a compare.lua plan (runs:) given to experiment.lua got three lines
-- (runs: unknown key; deploy: missing; benchmark: missing), none naming compare.lua; an
-- experiment plan or file given to compare.lua --plan, likewise ("unknown key" per key, "runs:
-- expected a mapping"). One line each, naming the tool the file is for.
t.test("a compare.lua plan given to experiment.lua, and an experiment's files to compare.lua: one line naming "
  .. "the tool", function()
  local d = setup()
  t.write(d .. "/cmp-plan.yaml", "namespace: nu\nruns:\n  a:\n    label: x\n    deploy: {method: helmfile, "
    .. "guide_dir: guide}\n    benchmark: {template: template.yaml}\n  b:\n    label: y\n    deploy: {method: "
    .. "helmfile, guide_dir: guide}\n    benchmark: {template: template.yaml}\n")
  local r = run(d, "experiment.lua", "experiment.yaml", "--plan", "cmp-plan.yaml", "--dry-run")
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, "experiment.lua: --plan cmp-plan.yaml: a compare.lua plan (runs:, each run's deploy: and benchmark: "
    .. "under it), not an experiment's plan (deploy: and benchmark: at its top, for every treatment); it runs with "
    .. "llmdlua compare.lua --plan cmp-plan.yaml\n")
  r = run(d, "experiment.lua", "cmp-plan.yaml", "--show")
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, "experiment.lua: cmp-plan.yaml: a compare.lua plan (runs:), not an experiment file (experiment, "
    .. "setup, treatments); it runs with llmdlua compare.lua --plan cmp-plan.yaml\n")
  r = run(d, "compare.lua", "--plan", "plan.yaml", "--dry-run")
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, "llmdlua: plan.yaml: an experiment.lua plan (deploy: and benchmark: at its top, for every "
    .. "treatment), not a compare.lua plan (runs: a and b, each with its deploy: and benchmark:); it runs with "
    .. "llmdlua experiment.lua EXPERIMENT.yaml --plan plan.yaml\n")
  r = run(d, "compare.lua", "--plan", "experiment.yaml", "--dry-run")
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, "llmdlua: experiment.yaml: an experiment file (experiment, setup, treatments), not a compare.lua "
    .. "plan (runs: a and b); it runs with llmdlua experiment.lua experiment.yaml --plan PLAN\n")
end)

-- A wrong option's line ends "see COMMAND --help", the command whose --help lists the options
-- (for autobench.lua, the subcommand's). Each script's spec names it; it was guessed from the
-- usage line's first words, which a lower-case argument there ("run config") would join.
-- Expected commands written by hand from README's command list; each one's --help is run too.
t.test("every script's wrong option names the command whose --help tells its options, and that --help works",
  function()
  local d = t.tmpdir()
  for _, c in ipairs {
    { "doctor.lua" }, { "experiment.lua" }, { "compare.lua" }, { "treatments.lua" }, { "analyze.lua" },
    { "extract.lua" }, { "autobench.lua", "validate" }, { "autobench.lua", "plan" }, { "autobench.lua", "compare" },
    { "autobench.lua", "run" },
  } do
    local cmd = "llmdlua " .. table.concat(c, " ")
    local r = run(d, c[1], c[2] or "--bogus", c[2] and "--bogus" or nil)
    t.eq({ r.code, r.stdout, r.stderr }, { 2, "", c[1] .. ": unknown option --bogus; see " .. cmd .. " --help\n" }, cmd)
    r = run(d, c[1], c[2] or "--help", c[2] and "--help" or nil)
    t.eq(r.code, 0, cmd .. " --help: " .. r.stderr)
    t.eq(r.stdout:sub(1, #("usage: " .. cmd .. " ")), "usage: " .. cmd .. " ", cmd .. " --help: " .. r.stdout)
  end
end)

t.test("llmd.args: the spec's command is the one named, whatever the usage's words; a spec without one is a fault",
  function()
  local d = t.tmpdir()
  -- (a usage whose first argument is lower case: the words' guess took "run config" for the command)
  t.write(d .. "/x.lua", 'require("llmd.args").parse(arg, { command = "llmdlua x.lua run", '
    .. 'usage = "llmdlua x.lua run config [--out FILE]", options = { out = "FILE" }, positional = { min = 1 } })\n')
  local r = run(d, d .. "/x.lua", "c.yaml", "--outt", "f")
  t.eq({ r.code, r.stderr }, { 2, "x.lua: unknown option --outt (did you mean --out?); see llmdlua x.lua run --help\n" })
  t.write(d .. "/y.lua", 'require("llmd.args").parse(arg, { usage = "llmdlua y.lua FILE", options = {} })\n')
  r = run(d, d .. "/y.lua", "--bogus")
  t.ok(r.code ~= 0 and r.stderr:find("args.parse: spec.command is required", 1, true), r.stderr)
end)

-- (fixd52, newuser52) compare.lua --plan plan.yaml --step 5 --yes exited 0 having run nothing,
-- and left a workspace holding only its INCOMPLETE marker: a step number that is none of the
-- flow's steps, or a range that holds none, is one line listing them, exit 2, before any
-- workspace is made. The lists by hand from the README's step tables (compare.lua's 0-100,
-- experiment.lua's --help). No cluster is needed: the refusal comes first.
t.test("--step naming no step of compare.lua or experiment.lua: one line listing the steps, no workspace", function()
  local d = setup()
  t.write(d .. "/cplan.yaml", "namespace: x\nparent: " .. d .. "/out\nruns:\n  a:\n    label: a\n"
    .. "    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: m}\n"
    .. "    benchmark: {template: template.yaml, harness: inference-perf}\n  b:\n    label: b\n"
    .. "    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: m}\n"
    .. "    benchmark: {template: template.yaml, harness: inference-perf}\n")
  local cmp_steps = "the steps are 0 preflight, 10 import, 20 deploy, 30 wait_ready, 40 baseline_service, "
    .. "50 smoke_test, 60 benchmark, 70 save_state, 80 collect_logs, 90 teardown, 100 report\n"
  local r = run(d, "compare.lua", "--plan", "cplan.yaml", "--step", "5", "--yes")
  t.eq({ r.code, r.stderr }, { 2, "compare.lua: --step 5: there is no step 5; " .. cmp_steps }, r.stdout)
  r = run(d, "compare.lua", "--plan", "cplan.yaml", "--step", "0,91-99", "--yes")
  t.eq({ r.code, r.stderr }, { 2, "compare.lua: --step 0,91-99: no step is in 91-99; " .. cmp_steps }, r.stdout)
  t.eq(require("lfs").attributes(d .. "/out"), nil, "no workspace (nor its parent) made")
  r = run(d, "experiment.lua", "experiment.yaml", "--plan", "plan.yaml", "--step", "90")
  t.eq({ r.code, r.stderr }, { 2, "experiment.lua: --step 90: there is no step 90; the steps are 0 preflight, "
    .. "10 render, 20 standup, 30 smoketest, 40 run, 50 collect_logs, 60 teardown, 100 summary\n" }, r.stdout)
  local n = 0
  for f in require("lfs").dir(d) do if f:match("^llm%-d") or f:match("^experiment%-") then n = n + 1 end end
  t.eq(n, 0, "no workspace made")
end)
