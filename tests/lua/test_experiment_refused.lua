-- harden56 #2 and #3: an experiment refused before anything was measured.
-- (#3) experiment.lua had its own tool check (step 0, after its workspace was made and the
-- namespace's lock taken) and no check that kubectl reaches a cluster: with no helm it made a
-- workspace and locked the namespace, where compare.lua stops at its preflight with one line,
-- nothing made or run. The one preflight (llmd.cluster.preflight_cluster) now runs for both,
-- before the workspace, in --plan and --dry-run alike: the same line compare.lua prints.
-- (#2) one refused at its first deploy (the cluster said no) left its new workspace, holding
-- nothing measured, without a word; compare.lua says how to remove its own. Now experiment.lua
-- says so too, with the command; never of a workspace that existed before (a --resume) or
-- holds a run treatment's attempt. Expected texts written by hand from the task and from
-- compare.lua's lines (test_exit_one_line).
local t = require "testlib"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"
local k8s = require "llmd.k8s"

local LLMDLUA = t.root() .. "/llmdlua"

local function setup()
  local d = proc.realpath(t.tmpdir())
  t.sim_guide(d)
  t.write(d .. "/experiment.yaml", "experiment:\n  name: one\n  harness: inference-perf\nsetup:\n  treatments:\n"
    .. "    - name: only\n      decode.replicas: 1\ntreatments:\n  - name: rate1\n    load.stages.0.rate: 1\n")
  t.write(d .. "/plan.yaml", yaml.dump {
    namespace = "exp-one", parent = d, timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio", model = "Qwen/Qwen3-0.6B" },
    benchmark = { template = d .. "/template.yaml", harness = "inference-perf", attempts = 1 },
  })
  return { dir = d, plan = d .. "/plan.yaml", exp = d .. "/experiment.yaml", cluster = d .. "/cluster",
    env = t.fake_env(d .. "/cluster") }
end

local function with(env, over)
  local e = {}
  for k, v in pairs(env) do e[k] = v end
  for k, v in pairs(over or {}) do e[k] = v or nil end
  return e
end

local function experiment(s, extra, envx)
  local argv = { LLMDLUA, "experiment.lua", s.exp }
  for _, a in ipairs(extra or { "--plan", s.plan }) do argv[#argv + 1] = a end
  return proc.run(argv, { env = with(s.env, envx), cwd = s.dir, timeout = 300 })
end

local function experiment_workspaces(s)
  local out = {}
  for n in require("lfs").dir(s.dir) do
    if n:match("^llm%-d%-experiment%-") then out[#out + 1] = s.dir .. "/" .. n end
  end
  table.sort(out)
  return out
end

t.test("experiment.lua --plan and --dry-run without helm/helmfile: compare.lua's preflight line, nothing made",
  function()
  local s = setup()
  local bin = t.tmpdir()
  assert(proc.run({ "ln", "-s", t.root() .. "/tests/fakecluster/bin/kubectl", bin .. "/kubectl" }).ok)
  for _, extra in ipairs { { "--plan", s.plan }, { "--plan", s.plan, "--dry-run" } } do
    local r = experiment(s, extra, { PATH = bin .. ":/usr/bin:/bin" })
    t.eq({ r.code, r.stderr, r.stdout }, { 1, "llmdlua: " .. s.plan .. ": helm not found (not on PATH; set bins.helm "
      .. "in the plan); nothing was made or run\n", "" }, table.concat(extra, " "))
    t.eq(experiment_workspaces(s), {}, "no workspace")
    t.eq(io.open(s.cluster .. "/calls.log", "r"), nil, "no cluster call")
  end
  -- helm there, helmfile (the plan's deploy method) not
  assert(proc.run({ "ln", "-s", t.root() .. "/tests/fakecluster/bin/helm", bin .. "/helm" }).ok)
  local r = experiment(s, nil, { PATH = bin .. ":/usr/bin:/bin" })
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: " .. s.plan .. ": helmfile not found (not on PATH; set bins.helmfile "
    .. "in the plan); nothing was made or run\n" })
  t.eq(experiment_workspaces(s), {}, "no workspace")
end)

t.test("experiment.lua --plan with kubectl reaching no cluster: the preflight line, no workspace, no lock", function()
  local s = setup()
  local r = experiment(s, nil, { FAKE_CLUSTER = false })
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: " .. s.plan .. ": kubectl reaches no cluster (kubectl config "
    .. "current-context and kubectl version: fake kubectl: FAKE_CLUSTER is not set (the fake cluster's state folder: "
    .. "export FAKE_CLUSTER=\"$(mktemp -d)\"); not in a pod): choose one with kubectl config use-context NAME, or "
    .. "fix the cause; nothing was made or run\n" }, r.stdout)
  t.eq(experiment_workspaces(s), {}, "no workspace")
end)

t.test("experiment refused at its first deploy: its new workspace, holding nothing, is said with how to remove it",
  function()
  local s = setup()
  local r = experiment(s, nil, { FAKE_FAIL = "deploy" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = experiment_workspaces(s)
  t.eq(#w, 1, "the workspace, kept for its resume")
  w = w[1]
  local note = ("  (%s holds nothing measured and nothing deployed: it is kept for that --resume; if you do not go on "
    .. "with it, remove it: rm -r %s)\n"):format(w, k8s.cmdline { w })
  t.contains(r.stdout, "To continue after fixing the cause: " .. k8s.cmdline { "llmdlua", "experiment.lua", s.exp,
    "--resume", w } .. "\n" .. note)
  -- what it says works: the command removes it (and nothing else)
  t.eq(proc.run({ "sh", "-c", "rm -r " .. k8s.cmdline { w } }).code, 0)
  t.eq(experiment_workspaces(s), {})
  -- a workspace that existed before (its --resume, refused again): not said of it
  r = experiment(s, nil, { FAKE_FAIL = "deploy" })
  w = experiment_workspaces(s)[1]
  t.contains(r.stdout, "holds nothing measured")
  r = experiment(s, { "--resume", w }, { FAKE_FAIL = "deploy" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.lacks(r.stdout, "holds nothing measured")
  t.lacks(r.stdout, "rm -r")
end)

t.test("an experiment whose run treatment failed: its workspace holds that attempt, no removal said", function()
  local s = setup()
  local r = experiment(s, nil, { FAKE_FAIL_IN = "exp-one:bench_stderr" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.contains(r.stdout, "To continue after fixing the cause: ")
  t.lacks(r.stdout, "holds nothing measured")
  t.lacks(r.stdout, "rm -r")
end)
