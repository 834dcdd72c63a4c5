-- newuser50 F3: README "Exit status" says exit 1 is one line on stderr naming the cause. A
-- failed step of compare.lua --plan exited 1 with nothing on stderr (the failure, what is
-- left deployed and the commands to go on were on stdout only); so did experiment.lua's
-- failed treatments and autobench.lua's failed rows and validate's problems. Each failing path
-- here is run as a user runs it (the fake cluster for the cluster ones), stdout and stderr
-- apart, and stderr must be exactly one line naming the cause; the details stay on stdout.
local t = require "testlib"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"

local LLMDLUA = t.root() .. "/llmdlua"

-- env's keys with over's over them
local function with(env, over)
  local e = {}
  for k, v in pairs(env) do e[k] = v end
  for k, v in pairs(over) do e[k] = v end
  return e
end

-- stderr is one line (ending in a newline), and it matches pattern pat (plain)
local function one_line(r, want, what)
  t.eq(r.code, 1, what .. ": " .. r.stdout .. r.stderr)
  local n = select(2, r.stderr:gsub("\n", ""))
  t.eq(n, 1, what .. ": one line on stderr, got: " .. r.stderr)
  t.ok(r.stderr:sub(-1) == "\n", what)
  t.ok(r.stderr:find(want, 1, true), what .. ": want " .. want .. "\n---\n" .. r.stderr)
end

t.test("compare.lua --plan: a failed step is one line on stderr, what is left and how to go on stay on stdout",
  function()
  local s = t.try_setup()
  -- run A's smoke test fails (the README's "see a failure and a resume" example)
  local r = proc.run({ LLMDLUA, "compare.lua", "--plan", s.plan, "--yes", "--quiet" },
    { env = with(s.env, { FAKE_FAIL_ONCE = "smoke" }), cwd = s.dir, timeout = 120 })
  one_line(r, "compare.lua: run A (baseline) failed at step 50 (smoke_test): smoke test failed: GET "
    .. "infra-try-inference-gateway-istio/v1/models: HTTP 503", "smoke")
  t.ok(r.stderr:find("what is left deployed and the commands to go on are in the output above\n$"), r.stderr)
  -- the details where they were
  t.ok(r.stdout:find("\n[50] smoke_test (a): FAILED - run a: smoke test failed", 1, true), r.stdout)
  t.ok(r.stdout:find("To continue after fixing the cause: llmdlua compare.lua --resume ", 1, true), r.stdout)
  t.ok(r.stdout:find("To tear down without continuing:", 1, true), r.stdout)
  -- the resume completes: exit 0, nothing on stderr
  local w = t.workspaces(s.dir)[1]
  r = proc.run({ LLMDLUA, "compare.lua", "--resume", w, "--yes", "--quiet" }, { env = s.env, cwd = s.dir,
    timeout = 120 })
  t.eq({ r.code, r.stderr }, { 0, "" }, r.stdout)
end)

-- (fixs50) a failure at step 0 (preflight) deployed nothing: stdout says nothing needs tearing
-- down, so the line must not say something is left deployed
t.test("compare.lua --plan: a preflight failure's line says nothing was deployed, as stdout does", function()
  local s = t.try_setup()
  -- a helmfile hook (refused at preflight unless the plan allows hooks)
  t.write(s.dir .. "/guide/helmfile.yaml", "releases:\n  - name: infra-try\n    chart: llm-d-infra/llm-d-infra\n"
    .. "    hooks:\n      - events: [\"prepare\"]\n        command: \"touch\"\n        args: [\"HOOK_RAN\"]\n"
    .. "  - name: ms-try\n    chart: llm-d-modelservice/llm-d-modelservice\n")
  local r = proc.run({ LLMDLUA, "compare.lua", "--plan", s.plan, "--yes", "--quiet" },
    { env = s.env, cwd = s.dir, timeout = 120 })
  one_line(r, "compare.lua: the comparison failed at step 0 (preflight): run a (baseline): refused: helmfile apply ", "preflight")
  t.ok(r.stderr:find("; nothing was deployed; the command to go on is in the output above\n$"), r.stderr)
  t.ok(not r.stderr:find("left deployed", 1, true) and not r.stderr:find("nothing of this run", 1, true), r.stderr)
  -- as stdout says
  t.ok(r.stdout:find("Nothing was deployed in namespace llm-d-try (nothing changed in the cluster); nothing needs "
    .. "tearing down.", 1, true), r.stdout)
  t.ok(r.stdout:find("To continue after fixing the cause: llmdlua compare.lua --resume ", 1, true), r.stdout)
end)

t.test("compare.lua --plan: a failed deploy is one line on stderr", function()
  local s = t.try_setup()
  -- the fake's helmfile fails every deploy (FAKE_FAIL=deploy: its error text on stderr)
  local env = with(s.env, { FAKE_FAIL = "deploy" })
  local r = proc.run({ LLMDLUA, "compare.lua", "--plan", s.plan, "--yes", "--quiet" }, { env = env, cwd = s.dir,
    timeout = 120 })
  one_line(r, "compare.lua: run A (baseline) failed at step ", "deploy")
  t.ok(r.stderr:find("(deploy)", 1, true), r.stderr)
end)

-- an experiment of one setup treatment and one run treatment whose deploy fails
-- (fixt50, newuser50c N6) kubectl failing outright (the fake without FAKE_CLUSTER: it exits 1
-- with its cause on stderr) gave two lines: a "no kube context" warning (it is no missing
-- context), then ~800 characters quoting the lock's whole command, its ten --from-literal
-- values, before the cause. One line, the cause first, the command cut at its literals (the
-- fake's text, tests/fakecluster/fake.lua, and the lock's command, by hand).
t.test("compare.lua --plan with kubectl failing: one line, the cause first, the lock command shortened", function()
  local s = t.try_setup()
  local r = proc.run({ LLMDLUA, "compare.lua", "--plan", s.plan, "--yes", "--quiet" },
    { env = with(s.env, { FAKE_CLUSTER = false }), cwd = s.dir, timeout = 120 })
  -- (since fixb55 #2 the preflight asks kubectl for its context and, with none, an API server,
  -- before the workspace is made or the lock taken: its line, with the fake's cause once)
  one_line(r, "llmdlua: " .. s.plan .. ": kubectl reaches no cluster (kubectl config current-context and kubectl "
    .. "version: fake kubectl: FAKE_CLUSTER is not set (the fake cluster's state folder: export "
    .. "FAKE_CLUSTER=\"$(mktemp -d)\"); not in a pod): choose one with kubectl config use-context NAME, or fix the "
    .. "cause; nothing was made or run", "kubectl failing")
  t.eq(t.workspaces(s.dir), {}, "no workspace made")
  t.lacks(r.stderr, "no kube context")
  t.lacks(r.stderr, "--from-literal")
end)

-- newuser55 (fixb55 #2): with kubectl on PATH but no helm nor helmfile, --plan made a
-- workspace and went on to `kubectl create configmap llmdlua-lock` (against localhost:8080
-- with no kube context), while --dry-run stopped at its preflight for helmfile. Both now stop
-- at one preflight, before anything is made or any cluster command runs: the same line
-- (written by hand), no workspace, no call in the fake's log.
t.test("compare.lua --plan and --dry-run without helm/helmfile: the same preflight line, nothing made or run", function()
  local s = t.try_setup()
  local bin = t.tmpdir()
  assert(proc.run({ "ln", "-s", t.root() .. "/tests/fakecluster/bin/kubectl", bin .. "/kubectl" }).ok)
  for _, extra in ipairs { {}, { "--dry-run" } } do
    local argv = { LLMDLUA, "compare.lua", "--plan", s.plan, "--yes", "--quiet" }
    for _, a in ipairs(extra) do argv[#argv + 1] = a end
    local r = proc.run(argv, { env = with(s.env, { PATH = bin .. ":/usr/bin:/bin" }), cwd = s.dir, timeout = 120 })
    t.eq({ r.code, r.stderr, r.stdout }, { 1, "llmdlua: " .. s.plan .. ": helm not found (not on PATH; set bins.helm "
      .. "in the plan); nothing was made or run\n", "" }, table.concat(extra, " "))
    t.eq(t.workspaces(s.dir), {}, "no workspace")
    t.eq(io.open(s.cluster .. "/calls.log", "r"), nil, "no cluster call")
  end
end)

t.test("experiment.lua: a treatment that fails is one line on stderr naming it and how", function()
  local d = t.tmpdir()
  t.sim_guide(d)
  t.write(d .. "/experiment.yaml", "experiment:\n  name: one\n  harness: inference-perf\nsetup:\n  treatments:\n"
    .. "    - name: only\n      decode.replicas: 1\ntreatments:\n  - name: rate1\n    load.stages.0.rate: 1\n")
  t.write(d .. "/plan.yaml", yaml.dump {
    namespace = "exp-one", parent = d, timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio", model = "Qwen/Qwen3-0.6B" },
    benchmark = { template = d .. "/template.yaml", harness = "inference-perf", attempts = 1 },
  })
  local env = t.fake_env(d .. "/cluster", { FAKE_FAIL = "deploy" })
  local r = proc.run({ LLMDLUA, "experiment.lua", d .. "/experiment.yaml", "--plan", d .. "/plan.yaml", "--quiet" },
    { env = env, cwd = d, timeout = 300 })
  one_line(r, "experiment.lua: 1 of 1 setup treatment(s) did not succeed: only failed_standup (", "experiment")
  t.ok(r.stdout:find("To continue after fixing the cause: ", 1, true), r.stdout)
end)

-- (fixs50) a treatment refused before its deploy left nothing deployed: the line says so, as
-- stdout does
t.test("experiment.lua: a treatment refused before its deploy: the line says nothing is left deployed", function()
  local d = t.tmpdir()
  t.sim_guide(d)
  -- a helmfile hook (refused before helmfile runs unless the plan allows hooks)
  t.write(d .. "/guide/helmfile.yaml", "releases:\n  - name: infra-sim\n    chart: llm-d-infra/llm-d-infra\n"
    .. "    hooks:\n      - events: [\"prepare\"]\n        command: \"touch\"\n        args: [\"HOOK_RAN\"]\n")
  t.write(d .. "/experiment.yaml", "experiment:\n  name: one\n  harness: inference-perf\nsetup:\n  treatments:\n"
    .. "    - name: only\n      decode.replicas: 1\ntreatments:\n  - name: rate1\n    load.stages.0.rate: 1\n")
  t.write(d .. "/plan.yaml", yaml.dump {
    namespace = "exp-one", parent = d, timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio", model = "Qwen/Qwen3-0.6B" },
    benchmark = { template = d .. "/template.yaml", harness = "inference-perf", attempts = 1 },
  })
  local r = proc.run({ LLMDLUA, "experiment.lua", d .. "/experiment.yaml", "--plan", d .. "/plan.yaml", "--quiet" },
    { env = t.fake_env(d .. "/cluster"), cwd = d, timeout = 300 })
  one_line(r, "experiment.lua: 1 of 1 setup treatment(s) did not succeed: only ", "experiment")
  t.ok(r.stderr:find("; nothing is left deployed; the command to go on is in the output above\n$"), r.stderr)
  t.ok(r.stdout:find("Nothing was deployed (nothing changed in the cluster); nothing needs tearing down.", 1, true),
    r.stdout)
  t.ok(r.stdout:find("To continue after fixing the cause: ", 1, true), r.stdout)
end)

-- (fixw50) where no treatment's result explains the failure, the line fell back to the failed
-- step but still said "1 of N setup treatment(s) did not succeed", also for a step that ran
-- before any treatment: the line names the step, and a treatment only where the step was one's
t.test("experiment.lua: a failed step no treatment explains: the line names the step, no treatment count", function()
  local xr = require "llmd.experiment_run"
  local function ctx(failed)
    return { exp = { setup_treatments = { { name = "a" }, { name = "b" } } }, stacks = {},
      results = { a = { status = "pending" }, b = { status = "pending" } }, result = { failed = failed } }
  end
  -- a step of no treatment (before any treatment ran)
  t.eq(xr.failure_line(ctx({ { number = 0, name = "preflight", message = "kubectl not found\nmore" } })),
    "experiment.lua: step 0 (preflight) did not succeed: kubectl not found; nothing is left deployed; the command "
    .. "to go on is in the output above")
  -- a step of a treatment whose result does not say it failed
  t.eq(xr.failure_line(ctx({ { number = 20, name = "smoke_test", stack = "b", message = "HTTP 503" } })),
    "experiment.lua: step 20 (smoke_test) of setup treatment b did not succeed: HTTP 503; nothing is left "
    .. "deployed; the command to go on is in the output above")
  -- no failed step: the treatments left pending, by name
  t.eq(xr.failure_line(ctx({})), "experiment.lua: 2 of 2 setup treatment(s) did not complete: a, b pending; "
    .. "nothing is left deployed; the command to go on is in the output above")
end)

t.test("autobench.lua validate: problems listed on stdout, one line on stderr saying how many", function()
  local d = t.tmpdir()
  t.write(d .. "/bad.yaml", yaml.dump { schema_version = 2 })
  local r = proc.run({ LLMDLUA, "autobench.lua", "validate", "bad.yaml" }, { cwd = d })
  one_line(r, "autobench.lua validate: 1 of 1 config(s) or folder(s) have problems (listed above, each naming its "
    .. "file)", "validate")
  t.ok(r.stdout:find("^bad%.yaml: schema_version must be 1\n"), r.stdout)
  -- an empty folder: the same
  local empty = t.tmpdir()
  r = proc.run({ LLMDLUA, "autobench.lua", "validate", empty })
  one_line(r, "autobench.lua validate: 1 of 1 config(s) or folder(s) have problems", "empty folder")
end)
