-- experiment.lua on the fake cluster (tests/fakecluster/): 3 setup treatments x 2 run
-- treatments in three namespaces at once, one setup treatment failing at standup, and the
-- --stop-on-error variant. Expected statuses, counts and files follow the orchestration in
-- ../shared/reference/llmd-benchmark.md (section 3) and experiment-summary.yaml (section 4).
local t = require "testlib"
local json = require "llmd.json"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"
local lfs = require "lfs"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local TREAT = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"
local F = t.fixtures()

local EXPERIMENT = [[
reset_caches: true
experiment:
  name: routing-sweep
  harness: inference-perf
setup:
  constants:
    decode.replicas: 2
  treatments:
    - name: plugins-default
      router.epp.pluginsConfigFile: default-plugins.yaml
    - name: plugins-prefix
      router.epp.pluginsConfigFile: prefix-cache.yaml
    - name: plugins-kv
      router.epp.pluginsConfigFile: kv-cache.yaml
      decode.replicas: 4
treatments:
  - name: rate1
    load.stages.0.rate: 1
  - name: rate5
    load.stages.0.rate: 5
    load.stages.0.duration: 60
]]

local function setup(edit)
  local d = t.tmpdir()
  t.sim_guide(d)
  t.write(d .. "/experiment.yaml", EXPERIMENT)
  local plan = {
    namespaces = { "exp-a", "exp-b", "exp-c" }, parallel = 3, parent = d,
    timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio",
      model = "Qwen/Qwen3-0.6B", gateway = "istio", values_override = { decode = { replicas = 1 }, keep = true } },
    benchmark = { template = d .. "/template.yaml", harness = "inference-perf", attempts = 1 },
  }
  if edit then edit(plan, d) end
  t.write(d .. "/plan.yaml", yaml.dump(plan))
  local env = t.fake_env(d .. "/cluster", { FAKE_FAIL_NAMESPACE = false }) -- (a kube context, as a user's has)
  return { dir = d, plan = d .. "/plan.yaml", cluster = d .. "/cluster", env = env, exp = d .. "/experiment.yaml" }
end

local function experiment(s, extra, envx, cwd)
  local argv = { LLMDLUA, "experiment.lua", s.exp }
  for _, a in ipairs(extra or { "--plan", s.plan }) do argv[#argv + 1] = a end
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  for k, v in pairs(envx or {}) do env[k] = v end
  return proc.run(argv, { env = env, timeout = 300, cwd = cwd })
end

local function workspace(s)
  for n in lfs.dir(s.dir) do
    if n:match("^llm%-d%-experiment%-routing%-sweep%-") then return s.dir .. "/" .. n end
  end
end

local function calls(s) return t.jsonl(s.cluster .. "/calls.log") end

-- a Deployment's pod name as the controllers make it (<deployment>-<10-character hash>-<5
-- characters>, Kubernetes' alphabet) masked to <deployment>-<pod>
local SAFE = "[bcdfghjklmnpqrstvwxz2456789]"
local POD_SUFFIX = "%-" .. SAFE:rep(10) .. "%-" .. SAFE:rep(5) .. "%f[^%w]"

local function ns_of(c)
  for i, a in ipairs(c.args) do
    if a == "-n" or a == "--namespace" then return c.args[i + 1] end
  end
end

t.test("3 x 2 in three namespaces at once; one setup treatment fails at standup, the others complete", function()
  local s = setup()
  local r = experiment(s, nil, { FAKE_FAIL = "deploy", FAKE_FAIL_NAMESPACE = "exp-b" })
  t.eq(r.code, 1, r.stdout .. r.stderr) -- not every treatment succeeded
  local w = workspace(s)
  t.ok(w, "workspace made")
  -- experiment-summary.yaml, in upstream's shape
  local sum = yaml.load_file(w .. "/experiment-summary.yaml")
  t.eq(yaml.keys(sum), { "experiment", "total_setup_treatments", "total_run_treatments", "total_matrix", "succeeded",
    "failed", "total_duration_seconds", "treatments" })
  t.eq(sum.experiment, "routing-sweep")
  t.eq(sum.total_setup_treatments, 3)
  t.eq(sum.total_run_treatments, 2)
  t.eq(sum.total_matrix, 6)
  t.eq(sum.succeeded, 2)
  t.eq(sum.failed, 1)
  local by = {}
  for _, x in ipairs(sum.treatments) do by[x.setup_treatment] = x end
  t.eq(by["plugins-default"].status, "success")
  t.eq(by["plugins-default"].run_treatments, "2/2")
  t.eq(by["plugins-kv"].status, "success")
  t.eq(by["plugins-kv"].run_treatments, "2/2")
  t.eq(by["plugins-prefix"].status, "failed_standup")
  t.eq(by["plugins-prefix"].run_treatments, "0/2")
  t.ok(by["plugins-prefix"].error:find("UPGRADE FAILED", 1, true), by["plugins-prefix"].error)
  t.eq(by["plugins-prefix"].workspace_dir, w .. "/setup-treatment-plugins-prefix")
  -- experiment-state.json: each treatment's run_failures is a list, [] when none failed (not {})
  local ran = 0
  for _, res in ipairs(json.read(w .. "/experiment-state.json").results) do
    if res.run_failures ~= nil then
      t.ok(json.is_array(res.run_failures), res.setup_treatment .. ": " .. json.encode(res.run_failures))
      ran = ran + 1
    end
  end
  t.eq(ran, 2, "the two treatments that ran their run treatments")
  t.ok(r.stdout:find("DoE EXPERIMENT SUMMARY", 1, true), r.stdout)
  t.ok(r.stdout:find("Result: 2/3 succeeded, 1 failed", 1, true), r.stdout)
  -- every call names one of the three namespaces; each treatment stayed in its own
  local cs = calls(s)
  local first, last = {}, {}
  for i, c in ipairs(cs) do
    local ns = ns_of(c)
    if c.tool ~= "run_only.sh" then
      t.ok(ns == "exp-a" or ns == "exp-b" or ns == "exp-c", c.tool .. " " .. table.concat(c.args, " "))
      first[ns] = first[ns] or i
      last[ns] = i
    end
  end
  -- in parallel: the third namespace started before the first one was done
  t.ok(first["exp-c"] < last["exp-a"], ("exp-c first call %d, exp-a last call %d"):format(first["exp-c"],
    last["exp-a"]))
  -- reset_caches: the vLLM pods restarted once per namespace, between rate1 and rate5
  local resets = {}
  for _, c in ipairs(cs) do
    if c.tool == "kubectl" and c.args[3] == "delete" and c.args[4] == "pod" then
      local ns = ns_of(c)
      resets[ns] = (resets[ns] or 0) + 1
      -- (clusterfix3 2) by name: the helmfile's ms-sim release's two decode pods (fake.lua: vllm_pods)
      t.eq((table.concat({ table.unpack(c.args, 5) }, " "):gsub(POD_SUFFIX, "-<pod>")),
        "ms-sim-decode-<pod> ms-sim-decode-<pod> --ignore-not-found")
    end
  end
  t.eq(resets, { ["exp-a"] = 1, ["exp-c"] = 1 })
  -- the treatments' values overrides: constants, then the treatment, over the plan's
  local ov = yaml.load_file(w .. "/setup-treatment-plugins-kv/plan/values-override.yaml")
  t.eq(ov, { decode = { replicas = 4 }, keep = true, router = { epp = { pluginsConfigFile = "kv-cache.yaml" } } })
  local applied, rendered = {}, {}
  for _, c in ipairs(cs) do
    if c.tool == "helmfile" and c.args[3] == "apply" then applied[ns_of(c)] = c.args end
    if c.tool == "helmfile" and c.args[3] == "template" then rendered[ns_of(c)] = c.args end
  end
  local ovpath = w .. "/setup-treatment-plugins-kv/run-stack/deploy/values-override.yaml"
  t.eq({ applied["exp-c"][#applied["exp-c"] - 1], applied["exp-c"][#applied["exp-c"]] }, { ovpath, "--skip-crds" })
  -- rendered to be checked with the same values before the apply
  t.eq(rendered["exp-c"][#rendered["exp-c"]], "--state-values-file=" .. ovpath)
  -- run treatments applied to the rendered workload: rate 5 and 60 s in rate5's config
  -- (the template's one stage is rate 1 for 30 s)
  local cfg = yaml.load_file(w .. "/setup-treatment-plugins-default/run-rate5/benchmark/config.yaml")
  t.eq(cfg.workload["sanity_random-rate5"].load.stages[1].rate, 5)
  t.eq(cfg.workload["sanity_random-rate5"].load.stages[1].duration, 60)
  t.eq(cfg.workload.sanity_random, nil)
  t.eq(cfg.harness.namespace, "exp-a")
  -- results, run states and a benchmark report per load point for each run treatment
  for _, st in ipairs { "plugins-default", "plugins-kv" } do
    for _, rt in ipairs { "rate1", "rate5" } do
      local d = w .. "/setup-treatment-" .. st .. "/run-" .. rt
      t.ok(lfs.attributes(d .. "/run_state.json"), d .. "/run_state.json")
      local n = 0
      for f in lfs.dir(d .. "/benchmark_report") do
        if f:match("^benchmark_report_v0%.2,_stage_%d_lifecycle_metrics%.json%.yaml$") then n = n + 1 end
      end
      t.eq(n, 1, d .. ": one report per stage the config asked (one)")
    end
  end
  t.eq(lfs.attributes(w .. "/setup-treatment-plugins-prefix/run-rate1/run_state.json"), nil)
  -- the comparison across treatments: rate1 and rate5 ran the stage loads their configs ask
  -- (the fake runs the workload it is given), 1 and 5 req/s, so they are one load sweep: each
  -- setup treatment is a treatment, its run treatments the load points of its curve
  local cdir = w .. "/cross-treatment-comparison"
  t.ok(r.stdout:find("Comparison across treatments: " .. cdir .. "/treatment_report.md", 1, true), r.stdout)
  local cj = json.read(cdir .. "/treatments.json")
  local labels = {}
  for _, x in ipairs(cj.treatments) do labels[#labels + 1] = x.label end
  t.eq(labels, { "plugins-default", "plugins-kv" })
  local lines = 0
  for _ in t.read(cdir .. "/treatment_comparison.csv"):gmatch("\r\n") do lines = lines + 1 end
  t.eq(lines, 1 + 2 * 2) -- (a header; a row per stage: two treatments, two run treatments of one stage each)
  -- every stack is gone, the failed one included; PVCs kept
  local st = json.read(s.cluster .. "/state.json")
  for _, ns in ipairs { "exp-a", "exp-b", "exp-c" } do
    t.eq(next(st.ns[ns].releases), nil, ns .. " releases")
  end
  t.ok(next(st.ns["exp-a"].pvcs) ~= nil, "PVC kept")
end)

t.test("--stop-on-error: after a failed standup no further setup treatment starts", function()
  local s = setup(function(plan) plan.parallel = 1 end)
  -- the first deploy fails (in the first treatment's namespace), every later one would work
  local r = experiment(s, { "--plan", s.plan, "--stop-on-error" }, { FAKE_FAIL_ONCE = "deploy" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  local sum = yaml.load_file(w .. "/experiment-summary.yaml")
  local by = {}
  for _, x in ipairs(sum.treatments) do by[x.setup_treatment] = x end
  t.eq(by["plugins-default"].status, "failed_standup")
  for _, name in ipairs { "plugins-prefix", "plugins-kv" } do
    t.eq(by[name].status, "pending")
    t.eq(by[name].run_treatments, "0/2")
    t.ok(by[name].error:find("not started: --stop-on-error after setup treatment plugins-default failed_standup",
      1, true), by[name].error)
  end
  t.eq(sum.succeeded, 0)
  t.eq(sum.failed, 1)
  -- nothing ran after the failure and its teardown: every call is in the first namespace
  local deploys = 0
  -- (but each of the plan's namespaces' lock, held while the experiment runs: taken first, let go at the end)
  for _, c in ipairs(calls(s)) do
    if not table.concat(c.args, " "):find("configmaps?[ /]llmdlua%-lock") then
      t.eq(ns_of(c), "exp-a", c.tool .. " " .. table.concat(c.args, " "))
    end
    if c.tool == "helmfile" and c.args[3] == "apply" then deploys = deploys + 1 end
  end
  t.eq(deploys, 1)
  -- without --stop-on-error the same failure leaves the others to run
  local s2 = setup(function(plan) plan.parallel = 1 end)
  r = experiment(s2, nil, { FAKE_FAIL_ONCE = "deploy" })
  t.eq(r.code, 1)
  t.ok(r.stdout:find("Result: 2/3 succeeded, 1 failed", 1, true), r.stdout)
end)

t.test("--dry-run prints the commands and changes nothing; plan mistakes name the key", function()
  local s = setup()
  local r = experiment(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("[dry-run] helmfile -n exp-a apply -e istio --state-values-file", 1, true), r.stdout)
  -- no cluster command ran, reads neither (only client-side renders may: kustomize, template;
  -- and, since harden56 #3, the preflight compare.lua runs in a dry run too reads the kubeconfig:
  -- kubectl config, no API server)
  for _, c in ipairs(lfs.attributes(s.cluster .. "/calls.log") and calls(s) or {}) do
    local words = table.concat(c.args, " ")
    t.ok(words:find(" kustomize ", 1, true) or words:find("template", 1, true)
      or (c.tool == "kubectl" and (" " .. words):find("^ %-n %S+ config ") or words:find("^config ")),
      "only renders and kubeconfig reads: " .. words)
  end
  t.ok(r.stdout:find("[dry-run, not read] kubectl -n exp-a get pods -o json", 1, true), r.stdout)
  -- the namespace a real run gives each (3 at once, 3 namespaces), not all in the first
  for st, ns in pairs { ["plugins-default"] = "exp-a", ["plugins-prefix"] = "exp-b", ["plugins-kv"] = "exp-c" } do
    t.ok(r.stdout:find(("Setup treatment %s: deploying into %s."):format(st, ns), 1, true), st .. "\n" .. r.stdout)
  end
  t.ok(r.stdout:find("the treatments are shown one after another, each in the namespace a real run would give it",
    1, true), r.stdout)
  -- ... and they are: each treatment's lines ([name] prefixed) come in one block, none
  -- between another's (they used to start together, as the coroutines of a real run)
  local blocks, last = {}, nil
  for name in r.stdout:gmatch("\n%[([%w%-]+)%]") do
    if name ~= last then blocks[#blocks + 1] = name; last = name end
  end
  t.eq(table.concat(blocks, " "), "plugins-default plugins-prefix plugins-kv", r.stdout)
  -- the summary table once
  local n = 0
  for _ in r.stdout:gmatch("DoE EXPERIMENT SUMMARY") do n = n + 1 end
  t.eq(n, 1, r.stdout)
  -- what to run next: the same command for real (the dry run's workspace has nothing to resume)
  t.ok(r.stdout:find("\nTo run it: llmdlua experiment.lua " .. s.exp .. " --plan " .. s.plan .. "\n", 1, true), r.stdout)
  t.ok(not r.stdout:find("--resume", 1, true), r.stdout)
  r = experiment(s, { "--plan", s.plan, "--dry-run", "--step", "0-100", "--stop-on-error" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("\nTo run it: llmdlua experiment.lua " .. s.exp .. " --plan " .. s.plan .. " --step 0-100 "
    .. "--stop-on-error\n", 1, true), r.stdout)
  local s2 = setup(function(plan) plan.namespaces = { "exp-a", "exp-b" } end)
  r = experiment(s2)
  t.eq(r.code, 1)
  t.eq(r.stderr, "llmdlua: " .. s2.plan .. ": parallel: 3 needs at least 3 namespaces (the plan lists 2); each stack "
    .. "runs in its own\n")
  local s4 = setup(function(plan) plan.namespaces = { "exp-a", "exp-b" }; plan.parallel = 1 end)
  r = experiment(s4, { "--plan", s4.plan, "--skip-teardown" })
  t.eq(r.stderr, "llmdlua: --skip-teardown keeps every stack: 3 setup treatments need 3 namespaces (the plan "
    .. "lists 2)\n")
  local s3 = setup(function(plan) plan.deploy.methd = "helm" end)
  r = experiment(s3)
  t.eq(r.code, 1)
  -- (the line where the key is written, since fixc45: tests/lua/test_cluster.lua checks its number)
  t.ok(r.stderr:find("plan%.yaml:%d+: deploy%.methd: unknown key"), r.stderr)
end)

t.test("plan and run-treatment mistakes: one line each, naming the file (newuser45)", function()
  -- parallel: 2 with one namespace: the plan's file named, as its other lines do (on main: no
  -- file; the line above checks it with 3 and 2)
  local s = setup(function(plan) plan.namespaces = { "exp-a" }; plan.parallel = 2 end)
  local r = experiment(s)
  t.eq(r.code, 1)
  t.eq(r.stderr, "llmdlua: " .. s.plan .. ": parallel: 2 needs at least 2 namespaces (the plan lists 1); each stack "
    .. "runs in its own\n")
  -- no benchmark: said in the plan's words; an experiment's plan has no 'existing' (on main:
  -- "missing (or give 'existing')", a key the plan then refuses as unknown)
  s = setup(function(plan) plan.benchmark = nil end)
  r = experiment(s)
  t.eq(r.code, 1)
  t.eq(r.stderr, "llmdlua: " .. s.plan .. ": benchmark: missing: the benchmark every run treatment runs (benchmark: "
    .. "{template: FILE, harness: NAME})\n")
  s = setup(function(plan) plan.deploy = nil end)
  r = experiment(s)
  t.eq(r.code, 1)
  t.eq(r.stderr, "llmdlua: " .. s.plan .. ": deploy: missing: how every setup treatment deploys its stack, its keys "
    .. "going over the values (deploy: {method: helmfile, guide_dir: DIR, ...})\n")
  -- a run treatment's key that matches nothing: one line, the refusal in it (on main: a
  -- second line "refused: ...")
  s = setup()
  t.write(s.exp, EXPERIMENT:gsub("load%.stages%.0%.rate: 1", "lod.stages.0.rate: 1"))
  r = experiment(s)
  t.eq(r.code, 1)
  t.eq(r.stderr, "llmdlua: " .. s.exp .. ": run treatment rate1: lod.stages.0.rate matches nothing in workload "
    .. "sanity_random of " .. s.dir .. "/template.yaml; refused: a run treatment that changes nothing would benchmark "
    .. "the same configuration as the others - fix the key (or the template); nothing was run\n")
  -- two run treatments that render the same workload, by different keys: rate1 sets the
  -- template's rate (1), dur30 its duration (30; the template's sanity_random has both, so
  -- by hand both render it unchanged). Refused at plan time, the dry run and --show --plan
  -- too (on main: both run, two "workloads" ranked apart)
  s = setup()
  t.write(s.exp, EXPERIMENT:gsub("  %- name: rate5\n.*$", "  - name: dur30\n    load.stages.0.duration: 30\n"))
  local want = "llmdlua: " .. s.exp .. ": run treatments rate1 and dur30 render the same workload sanity_random of "
    .. s.dir .. "/template.yaml (rate1: load.stages.0.rate: 1; dur30: load.stages.0.duration: 30); refused: they would "
    .. "benchmark one configuration twice, which the comparison would read as two workloads - give each its own "
    .. "values (or drop one); nothing was run\n"
  for _, extra in ipairs { { "--plan", s.plan }, { "--plan", s.plan, "--dry-run" } } do
    r = experiment(s, extra)
    t.eq(r.code, 1, r.stdout)
    t.eq(r.stderr, want)
  end
  r = experiment(s, { "--show", "--plan", s.plan })
  t.eq(r.code, 1)
  t.contains(r.stderr, want, "--show --plan")
  t.eq(calls(s), {}, "no cluster call")
end)

t.test("nu33-3: the log says a workload came from the run treatment, not from the plan", function()
  -- the fixture plan has no benchmark.workload; rate1 and rate5 are the experiment's run
  -- treatments
  local s = setup()
  local r = experiment(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("workload: rate1 (the experiment's run treatment rate1)", 1, true), r.stdout)
  t.ok(r.stdout:find("workload: rate5 (the experiment's run treatment rate5)", 1, true), r.stdout)
  t.ok(not r.stdout:find("the plan's benchmark.workload", 1, true), r.stdout)
end)

t.test("a plan's namespace: given a list points to namespaces", function()
  -- (on main: "plan.yaml: namespace: expected a string", nothing of namespaces)
  local s = setup(function(plan) plan.namespaces, plan.namespace = nil, { "a", "b" } end)
  local r = experiment(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find("plan.yaml: namespace: expected one namespace name; several go under namespaces "
    .. "(namespaces: [a, b], with parallel: N to run N at once)", 1, true), r.stderr)
end)

t.test("nu33-5: a misspelt plan key names the one it most likely meant", function()
  local s = setup(function(plan) plan.paralel = 2 end)
  local r = experiment(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  -- (one edit from parallel: llmd.opts.closest's rule, as the experiment file's keys)
  t.ok(r.stderr:find(": paralel: unknown key (did you mean parallel? known: baseline, ", 1, true), r.stderr)
  -- with the line it is on, and nothing more (cluster.key_where: newuser44)
  t.ok(r.stderr:find("^llmdlua: [^\n]*plan%.yaml:%d+: paralel: unknown key [^\n]*\n$"), r.stderr)
end)

-- Two experiments of one name started at once (the same second, and every name of the next
-- seconds already taken by earlier runs) each get a workspace of their own, made by mkdir(2)
-- with a suffix: neither fails for it, and each folder holds its own plan and nothing else's.
t.test("two experiments started at once: two workspaces, neither fails, nothing shared or mixed", function()
  local s = setup()
  local plan2 = yaml.load_file(s.plan)
  plan2.namespaces = { "exp-x", "exp-y", "exp-z" }
  t.write(s.dir .. "/plan2.yaml", yaml.dump(plan2))
  local taken = {}
  local now = os.time()
  for k = 0, 20 do
    local n = os.date("llm-d-experiment-routing-sweep-%Y%m%d-%H%M%S", now + k)
    lfs.mkdir(s.dir .. "/" .. n)
    taken[n] = true
  end
  local function q(x) return "'" .. x:gsub("'", "'\\''") .. "'" end
  local cmds = {}
  for i, plan in ipairs { s.plan, s.dir .. "/plan2.yaml" } do
    cmds[#cmds + 1] = ("%s experiment.lua %s --plan %s --dry-run >%s 2>&1 &"):format(q(LLMDLUA), q(s.exp), q(plan),
      q(s.dir .. "/out" .. i))
  end
  local r = proc.run({ "sh", "-c", table.concat(cmds, "\n") .. "\nwait" }, { env = s.env, timeout = 300 })
  t.ok(r.ok, r.stderr)
  local made = {}
  for n in lfs.dir(s.dir) do
    if n:match("^llm%-d%-experiment%-") and not taken[n] then made[#made + 1] = n end
  end
  table.sort(made)
  -- (session 33) a dry run removes its workspace when it ends: none is left, and each said
  -- which one it had
  t.eq(#made, 0, "the dry runs' workspaces removed: " .. table.concat(made, ", "))
  local seen = {}
  -- each run's plan: its first namespace, and the one its second setup treatment gets
  for i, want in ipairs { { "exp-a", "exp-b" }, { "exp-x", "exp-y" } } do
    local out = t.read(s.dir .. "/out" .. i)
    t.ok(not out:find("already exists", 1, true), out)
    local w = out:match("Dry run: its workspace ([^\n]+) was removed; it leaves nothing behind%.")
    t.ok(w, out)
    local name = w:match("[^/]+$")
    -- a taken name and a suffix: -2, -3, ... after the second it started in
    t.ok(name:match("^llm%-d%-experiment%-routing%-sweep%-%d+%-%d+%-%d+$") and taken[name:gsub("%-%d+$", "")],
      name)
    t.ok(not seen[name], "a workspace of its own: " .. name)
    seen[name] = true
    t.ok(out:find(("Setup treatment plugins-default: deploying into %s."):format(want[1]), 1, true), out)
    t.ok(out:find(("Setup treatment plugins-prefix: deploying into %s."):format(want[2]), 1, true), out)
  end
end)

-- experiment.lua's errors follow the scripts' split (README: Running scripts): a problem in
-- a file is one line "llmdlua: FILE...", exit 1, never a traceback; a usage error names the
-- script, exit 2. Each malformed file's expected line written by hand from its content.
t.test("malformed experiment files: one line 'llmdlua: FILE: ...' each, exit 1; usage errors name the script", function()
  local s = setup()
  local cases = {
    { "experiment: [1, 2\n", "bad.yaml:2:1: did not find expected ',' or ']'" },
    { "- 1\n- 2\n", "bad.yaml: expected a mapping (an experiment)" },
    { "experiment: 5\n", "bad.yaml: experiment: expected a mapping" },
    { "experiment:\n  name: {a: 1}\n", "bad.yaml: experiment.name: expected a string, got a mapping" },
    { "setup: 7\n", "bad.yaml: setup: expected a mapping (constants, treatments)" },
    { "setup:\n  treatments:\n    - name: ../x\n      a: 1\n", "bad.yaml: setup.treatments[0].name: '../x' names "
      .. "the treatment's folder" },
    { "treatments:\n  - name: [1]\n    a: 1\n", "bad.yaml: treatments[0].name: expected a string, got a list" },
    { "treatments: {a: 1}\n", "bad.yaml: treatments: expected a list of run treatments" },
    { "treatments:\n  - name: r\n    a: 1\n  - name: r\n    b: 1\n", "bad.yaml: two run treatments are named r" },
    -- an empty name would name the workspace llm-d-experiment--...: refused, like a bad key
    { "experiment:\n  name: ''\n", "bad.yaml: experiment.name: expected a non-empty string (it names the "
      .. "workspace, llm-d-experiment-NAME-...), got ''" },
    { "experiment:\n  name: '  '\n", "bad.yaml: experiment.name: expected a non-empty string (it names the "
      .. "workspace, llm-d-experiment-NAME-...), got '  '" },
    -- parsed, but nothing to run: the file is named
    { "experiment:\n  name: x\n", "bad.yaml: no run treatments" },
    { "", "bad.yaml: no run treatments" },
    { "treatment_max_attempts: [2]\n", "bad.yaml: treatment_max_attempts: expected an integer >= 1, got a list" },
  }
  for _, c in ipairs(cases) do
    t.write(s.dir .. "/bad.yaml", c[1])
    local r = proc.run({ LLMDLUA, "experiment.lua", "bad.yaml", "--plan", s.plan, "--dry-run" },
      { env = s.env, cwd = s.dir, timeout = 60 })
    t.eq(r.code, 1, c[1] .. r.stderr)
    t.eq(r.stderr:sub(1, #("llmdlua: " .. c[2])), "llmdlua: " .. c[2], c[1])
    t.eq(select(2, r.stderr:gsub("\n", "")), 1, "one line: " .. r.stderr)
    t.ok(not r.stderr:find("traceback", 1, true), r.stderr)
  end
  -- usage errors: the script's name, exit 2
  local r = experiment(s, { "--plan", s.plan, "--step", "x" })
  t.eq(r.code, 2, r.stderr)
  t.ok(r.stderr:match("^experiment%.lua: "), r.stderr)
  r = experiment(s, {})
  t.eq({ r.code, r.stderr }, { 2, "experiment.lua: give --plan FILE (or --resume WORKSPACE, or --show)\n" })
end)

t.test("run treatments whose keys match nothing in the workload are refused before anything runs", function()
  -- newuser24's experiment: shared_prefix keys against the sanity_random workload (random
  -- data, no shared_prefix mapping): every treatment would benchmark the same configuration
  local s = setup()
  t.write(s.exp, EXPERIMENT:gsub("treatments:\n  %- name: rate1\n    load.stages.0.rate: 1\n", "treatments:\n"
    .. "  - name: grp40\n    data.shared_prefix.num_groups: 40\n    load.stages.0.rate: 1\n", 1))
  for _, extra in ipairs { { "--plan", s.plan }, { "--plan", s.plan, "--dry-run" } } do
    local r = experiment(s, extra)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.eq(r.stderr, "llmdlua: " .. s.exp .. ": run treatment grp40: data.shared_prefix.num_groups matches "
      .. "nothing in workload sanity_random of " .. s.dir .. "/template.yaml; refused: a run treatment that changes "
      .. "nothing would benchmark the same configuration as the others - fix the key (or the template); nothing "
      .. "was run\n")
    t.eq(lfs.attributes(s.cluster .. "/calls.log"), nil, "no command ran")
    t.eq(workspace(s), nil, "no workspace was made")
  end
end)

t.test("namespaces: a system namespace in the list, or --namespace beside the plan's, is refused", function()
  local s = setup(function(plan) plan.namespaces = { "exp-a", "kube-system", "exp-c" } end)
  local r = experiment(s)
  t.eq(r.code, 1)
  t.ok(r.stderr:find("plan.yaml: namespaces[1]: kube-system is a system namespace", 1, true), r.stderr)
  s = setup(function(plan) plan.namespaces = nil; plan.parallel = 1; plan.namespace = "exp-a" end)
  r = experiment(s, { "--plan", s.plan, "--namespace", "exp-b" })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("--namespace exp-b: the plan says namespace: exp-a; give the namespace in one place", 1, true),
    r.stderr)
  s = setup(function(plan) plan.namespaces = nil; plan.parallel = 1 end)
  r = experiment(s, { "--plan", s.plan, "--dry-run" }, { NAMESPACE = "openshift-operators" })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("$NAMESPACE (openshift-operators): openshift-operators is a system namespace", 1, true), r.stderr)
  t.eq(lfs.attributes(s.cluster .. "/calls.log"), nil, "no command ran")
end)

-- A --step subset exited 1: the treatments whose teardown (step 60, which finishes a
-- treatment) it did not select stayed "pending", counted as not succeeded. A subset that did
-- what was asked exits 0 and names the treatments it left pending; the command it gives goes
-- on with the other steps; a step that fails inside the subset is still exit 1.
t.test("--step subset: exit 0 naming the treatments left pending; the resume it gives finishes them", function()
  local all = "plugins-default, plugins-prefix, plugins-kv"
  local s = setup()
  local r = experiment(s, { "--plan", s.plan, "--dry-run", "--step", "0,10" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("\nLeft pending (--step 0,10 did not include their remaining steps): " .. all .. "\n", 1, true),
    r.stdout)
  -- for real: deployed and smoke-tested, neither benchmarked nor torn down
  r = experiment(s, { "--plan", s.plan, "--step", "0-30" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = r.stdout:match("\nExperiment workspace: (%S+)\n")
  t.ok(w, r.stdout)
  t.ok(r.stdout:find("\nLeft pending (--step 0-30 did not include their remaining steps): " .. all .. "\nTo go on "
    .. "with the other steps: llmdlua experiment.lua " .. s.exp .. " --resume " .. w .. "\n", 1, true), r.stdout)
  t.ok(r.stdout:find("Left deployed:", 1, true), r.stdout)
  local sum = json.read(w .. "/experiment-state.json")
  for _, x in ipairs(sum.results) do t.eq(x.status, "pending", x.setup_treatment) end
  -- the resume it names benchmarks, collects, tears down and summarises: all succeed
  r = experiment(s, { "--resume", w })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Result: 3/3 succeeded, 0 failed", 1, true), r.stdout)
  -- a step that fails inside the subset: exit 1, as before, and nothing called "pending" by choice
  s = setup()
  r = experiment(s, { "--plan", s.plan, "--step", "0-30" }, { FAKE_FAIL_IN = "exp-b:smoke" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(not r.stdout:find("Left pending", 1, true), r.stdout)
end)

t.test("--resume after a failed standup: only the failed treatment runs again; --skip-teardown keeps stacks", function()
  local s = setup()
  local r = experiment(s, nil, { FAKE_FAIL = "deploy", FAKE_FAIL_NAMESPACE = "exp-b" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  -- the failed standup was torn down, the others too: the advice says nothing is left
  t.ok(r.stdout:find("Nothing is left deployed: every stack deployed was torn down.\nTo continue after fixing the "
    .. "cause:", 1, true), r.stdout)
  local w = workspace(s)
  -- which cluster it was made in: recorded; a resume in another kube context is refused,
  -- one line, before any change (compare.lua's resume does the same: test_cluster_safety.lua)
  t.eq(json.read(w .. "/cluster.json"), { namespaces = { "exp-a", "exp-b", "exp-c" }, context = "kind-bench",
    server = "https://api.kind-bench.example.com:6443" })
  local n0 = #calls(s)
  r = experiment(s, { "--resume", w }, { FAKE_CONTEXT = "prod" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find(w .. " was made in kube context kind-bench, the current context is prod: switch back first "
    .. "(kubectl config use-context kind-bench), or add --use-current-context", 1, true), r.stderr)
  for i, c in ipairs(calls(s)) do
    if i > n0 then t.eq(c.args[3], "config", "only which cluster was read: " .. table.concat(c.args, " ")) end
  end
  local before = #calls(s)
  r = experiment(s, { "--resume", w, "--skip-teardown" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  -- the kept stack is named with its namespace and releases (the helmfile's three)
  t.ok(r.stdout:find("Left deployed (--skip-teardown keeps every stack):\n  setup treatment plugins-prefix in "
    .. "namespace exp-b: releases gaie-sim, infra-sim, ms-sim", 1, true), r.stdout)
  t.ok(not r.stdout:find("namespace exp-a:", 1, true), r.stdout)
  local sum = yaml.load_file(w .. "/experiment-summary.yaml")
  t.eq(sum.succeeded, 3)
  t.eq(sum.failed, 0)
  -- the second run touched only exp-b: deployed, benchmarked twice, and kept (no uninstall)
  local deploys, benches, uninstalls = 0, 0, 0
  for i, c in ipairs(calls(s)) do
    if i > before then
      -- (kubectl config reads which cluster this is, from the kubeconfig: in no namespace;
      -- llmdlua-lock: each of the plan's namespaces held while the experiment runs)
      local lock = table.concat(c.args, " "):find("configmaps?[ /]llmdlua%-lock")
      if c.tool ~= "run_only.sh" and c.args[3] ~= "config" and not lock then
        t.eq(ns_of(c), "exp-b", c.tool .. " " .. table.concat(c.args, " "))
      end
      if c.tool == "helmfile" and c.args[3] == "apply" then deploys = deploys + 1 end
      if c.tool == "run_only.sh" then benches = benches + 1 end
      if c.tool == "helm" and c.args[1] == "uninstall" then uninstalls = uninstalls + 1 end
    end
  end
  t.eq({ deploys, benches, uninstalls }, { 1, 2, 0 })
  local st = json.read(s.cluster .. "/state.json")
  t.ok(next(st.ns["exp-b"].releases) ~= nil, "the resumed stack is kept")
  t.eq(next(st.ns["exp-a"].releases), nil, "the first run's stacks were torn down")
end)

t.test("a failed smoke test and a failed run treatment: recorded, torn down, the third unaffected", function()
  local s = setup()
  -- exp-a: every benchmark's stderr.log shows the harness killed; exp-b: the model does not answer
  local r = experiment(s, nil, { FAKE_FAIL_IN = "exp-a:bench_stderr,exp-b:smoke" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  local sum = yaml.load_file(w .. "/experiment-summary.yaml")
  local by = {}
  for _, x in ipairs(sum.treatments) do by[x.setup_treatment] = x end
  t.eq(by["plugins-default"].status, "failed_run")
  t.eq(by["plugins-default"].run_treatments, "0/2")
  t.ok(by["plugins-default"].error:find("rate1: ", 1, true) and by["plugins-default"].error:find("rate5: ", 1, true),
    by["plugins-default"].error)
  t.eq(by["plugins-prefix"].status, "failed_smoketest")
  t.eq(by["plugins-prefix"].run_treatments, "0/2")
  t.eq(by["plugins-kv"].status, "success")
  t.eq(sum.failed, 2)
  -- the failed run's logs were collected before its teardown; nothing is left anywhere
  t.ok(lfs.attributes(w .. "/setup-treatment-plugins-default/run-stack/results/vllm-logs"), "logs collected")
  local st = json.read(s.cluster .. "/state.json")
  for _, ns in ipairs { "exp-a", "exp-b", "exp-c" } do t.eq(next(st.ns[ns].releases), nil, ns) end
end)

-- A run treatment benchmarked the first gateway Service by name in the namespace (its
-- name is not the stack's, so what the stack deployed was not found): in a shared
-- namespace, someone else's (FAKE_OTHER_RELEASE: a-team-infra's, which sorts first).
t.test("run treatments benchmark the gateway this setup treatment deployed, not another one in the namespace",
  function()
  local s = setup(function(plan) plan.namespaces = { "exp-a" }; plan.parallel = 1 end)
  t.write(s.exp, "reset_caches: true\nexperiment:\n  name: routing-sweep\n  harness: inference-perf\nsetup:\n"
    .. "  treatments:\n    - name: only\n      decode.replicas: 1\ntreatments:\n  - name: rate1\n"
    .. "    load.stages.0.rate: 1\n  - name: rate5\n    load.stages.0.rate: 5\n")
  s.env.FAKE_RESULTS = BASE .. ":" .. TREAT
  -- a-team's serving pods crash-loop: not this treatment's, so neither waited for nor restarted
  local r = experiment(s, nil, { FAKE_OTHER_RELEASE = "1", FAKE_OTHER_UNWELL = "1" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  for _, rt in ipairs { "rate1", "rate5" } do
    local cfg = t.read(workspace(s) .. "/setup-treatment-only/run-" .. rt .. "/benchmark/config.yaml")
    t.ok(cfg:find("infra-sim-inference-gateway-istio.exp-a.svc.cluster.local:80", 1, true), cfg)
    t.ok(not cfg:find("a-team", 1, true), cfg)
  end
  local restarted = false
  for _, c in ipairs(calls(s)) do
    local line = table.concat(c.args, " ")
    t.ok(not line:find("a-team", 1, true), "nothing done with a-team's: " .. line)
    -- reset_caches: this stack's pods (their labels), not every serving pod of the namespace
    -- (clusterfix3 2: by name, the stack's two decode pods, fake.lua's vllm_pods)
    if line:gsub(POD_SUFFIX, "-<pod>") == "-n exp-a delete pod ms-sim-decode-<pod> ms-sim-decode-<pod> --ignore-not-found" then
      restarted = true
    end
  end
  t.ok(restarted, "the treatment's own pods restarted between rate1 and rate5")
  -- (a deleted pod is replaced under a new name: theirs are there, never named in a call above)
  local st = json.decode(t.read(s.cluster .. "/state.json"))
  local theirs = 0
  for _, p in pairs(st.ns["exp-a"].pods) do if p.deploy == "a-team-ms-decode" then theirs = theirs + 1 end end
  t.eq(theirs, 2, "a-team's pods are there")
end)

-- Ctrl-C during a benchmark: the real workspace (it used to say "<workspace>") and the stack
-- left in its namespace (the interrupt collects and tears down nothing).
t.test("interrupted: the workspace to resume and what is left deployed, by namespace", function()
  local s = setup(function(plan) plan.namespaces, plan.parallel = { "exp-a" }, 1 end)
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.FAKE_SLOW_BENCH = "30"
  local out = s.dir .. "/out.txt"
  local p = proc.spawn({ LLMDLUA, "experiment.lua", s.exp, "--plan", s.plan },
    { env = env, stdout = { file = out }, stderr = { file = out .. ".err" } })
  -- (the fake's mark that it sleeps in the benchmark, its state saved: a kill a fixed time
  -- after the call began could land in the fake's save() on a loaded machine and leave the
  -- state locked, every later fake call waiting 30 s for it)
  t.ok(t.wait_for_file(s.cluster .. "/bench-sleeping", p), "the benchmark started")
  local r = p:kill(60) -- (a ceiling: it returns once the process has ended)
  t.eq(r.code, 130, t.read(out))
  local w = workspace(s)
  local said = t.read(out .. ".err")
  t.ok(said:find("interrupted during step 40 (run) of setup treatment plugins-default, run treatment rate1; state "
    .. "saved in " .. w .. ".\nLeft deployed:\n  setup treatment plugins-default in "
    .. "namespace exp-a: releases gaie-sim, infra-sim, ms-sim", 1, true), said)
  t.ok(said:find("Continue with: llmdlua experiment.lua " .. s.exp .. " --resume " .. w .. "\n", 1, true), said)
  t.ok(not said:find("<workspace>", 1, true), said)
end)

-- A dry run refuses what the real run would (helmfile hooks the plan does not allow: the
-- state file is read before helmfile runs); its closing note then does not claim that no
-- step failed, and nothing is left to tear down.
t.test("--dry-run with a refused standup: the note under the summary says what FAIL means", function()
  local s = setup(function(plan) plan.namespaces, plan.parallel = { "exp-a" }, 1 end)
  t.write(s.dir .. "/guide/helmfile.yaml", "releases:\n  - name: infra-sim\n    chart: llm-d-infra/llm-d-infra\n"
    .. "    hooks:\n      - events: [prepare]\n        command: kubectl\n        args: [delete, crd, --all]\n")
  local r = experiment(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("helmfile.yaml:4: release infra-sim: hooks: helmfile would run 'kubectl delete crd --all' itself",
    1, true), r.stdout)
  t.ok(r.stdout:find("(dry run: nothing was deployed or measured; FAIL is a step the dry run refused, OK says only "
    .. "that no step failed)\n", 1, true), r.stdout)
  t.ok(not r.stdout:find("the statuses say only that no step failed", 1, true), r.stdout)
  t.ok(r.stdout:find("Dry run: nothing was deployed; nothing needs tearing down.\n", 1, true), r.stdout)
  -- next: the real run, once the cause is fixed; never --resume on the dry run's workspace,
  -- where no step ran (a resume would run every one of them, for real)
  t.ok(r.stdout:find("\nTo run it after fixing the cause: llmdlua experiment.lua " .. s.exp .. " --plan " .. s.plan
    .. "\n", 1, true), r.stdout)
  t.ok(not r.stdout:find("--resume", 1, true), r.stdout)
  -- refused before its first deploy command: a real run deploys and uninstalls nothing, so
  -- the dry run neither says it tears down what was deployed nor that it would uninstall
  t.ok(not r.stdout:find("would uninstall", 1, true), r.stdout)
  t.ok(not r.stdout:find("tearing down what was deployed", 1, true), r.stdout)
  t.ok(r.stdout:find("nothing of this run was deployed.\n[dry-run] no release to uninstall: no deploy command of "
    .. "this run would have run\n", 1, true), r.stdout)
  for _, c in ipairs(lfs.attributes(s.cluster .. "/calls.log") and calls(s) or {}) do
    t.ok(c.tool ~= "helmfile", "helmfile never ran")
  end
end)

-- treatments.lua on an experiment workspace ranks by the SLO of the experiment's plan, as
-- experiment.lua itself did at the end: a re-run without --slo used to rank by max sustained
-- throughput and overwrite the experiment's report with another ranking (found by an audit:
-- the winner of a workload flipped). --slo replaces the plan's, and says so.
t.test("treatments.lua WORKSPACE keeps the plan's slo: a re-run writes the experiment's ranking again", function()
  local s = setup(function(plan) plan.slo = { ttft_p90_ms = 200 } end)
  local r = experiment(s, nil)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  local cdir = w .. "/cross-treatment-comparison"
  local first = json.read(cdir .. "/treatments.json")
  -- the plan gives an SLO: the ranking is by capacity at it (the rule of the README)
  t.eq(first.rank_by, "capacity at SLO")
  local function ranking(j)
    local out = {}
    for _, x in ipairs(j.ranking) do out[#out + 1] = tostring(x.label) .. "#" .. tostring(x.rank) end
    return out
  end
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  local again = proc.run({ LLMDLUA, "treatments.lua", w, "--quiet" }, { env = env })
  t.eq(again.code, 0, again.stdout .. again.stderr)
  t.ok(again.stderr:find("the SLO of the experiment's plan (" .. w .. "/plan.yaml) ranks the treatments", 1, true),
    again.stderr)
  local second = json.read(cdir .. "/treatments.json")
  t.eq(second.rank_by, "capacity at SLO")
  t.eq(ranking(second), ranking(first))
  -- --slo replaces it, and says so on stderr
  local other = proc.run({ LLMDLUA, "treatments.lua", w, "--quiet", "--slo", "ttft_p90_ms=1000" }, { env = env })
  t.eq(other.code, 0, other.stdout .. other.stderr)
  t.ok(other.stderr:find("--slo ttft_p90_ms=1000 replaces the experiment's SLO (slo: in " .. w .. "/plan.yaml)", 1,
    true), other.stderr)
  -- a plan whose slo is malformed: one line naming the file, exit 1
  t.write(w .. "/plan.yaml", t.read(w .. "/plan.yaml"):gsub("ttft_p90_ms: 200", "ttft_p90_ms: fast"))
  local bad = proc.run({ LLMDLUA, "treatments.lua", w, "--quiet" }, { env = env })
  t.eq(bad.code, 1, bad.stdout .. bad.stderr)
  t.ok(bad.stderr:find(w .. "/plan.yaml: slo", 1, true), bad.stderr)
  t.ok(not bad.stderr:find("traceback", 1, true), bad.stderr)
end)

-- (fixc51, newuser50c N5) compare.lua on two cells of an experiment (setup-treatment-S/run-R, the
-- run folders treatments.lua reads) said "holds results of 2 harness runs" (the cell's
-- benchmark_report/, made from its results/), and with --harness it compared them with no SLO
-- and every configuration row alike. A cell is read as its results/, with its record: the
-- plan's SLO, the setup treatment and the values it deployed with (≠ where they differ), and
-- the load stages its benchmark config asked for. Expected values by hand from EXPERIMENT
-- (setup.constants decode.replicas 2, plugins-kv 4; rate1 1 req/s, rate5 5 req/s).
t.test("compare.lua on two experiment cells: their recorded SLO, and a ≠ row for what differs", function()
  local s = setup(function(plan) plan.slo = { ttft_p90_ms = 200 } end)
  -- (a values key one setup treatment sets and nothing else does: the others' value is the guide's)
  t.write(s.exp, (t.read(s.exp):gsub("      decode.replicas: 4\n", "      decode.replicas: 4\n      decode.extraFlag: true\n")))
  local r = experiment(s, nil)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  local function cell(st, rt) return ("%s/setup-treatment-%s/run-%s"):format(w, st, rt) end
  local st = json.read(cell("plugins-kv", "rate5") .. "/run_state.json")
  t.eq({ st.slo, st.benchmark.load_stages }, { { ttft_p90_ms = 200 }, "1 stage: 5/s (read from the benchmark config)" })
  t.eq({ st.stack["setup treatment"], st.stack["values: decode.replicas"],
    st.stack["values: router.epp.pluginsConfigFile"] }, { "plugins-kv", "4", "kv-cache.yaml" })
  local function compare_cells(a, b)
    local out = s.dir .. "/cmp-" .. tostring(math.random(1, 1 << 30))
    t.mkdir(out)
    local c = proc.run({ LLMDLUA, "compare.lua", "--a", a, "--b", b, "--parent", out, "--quiet" },
      { env = s.env, timeout = 120 })
    t.eq(c.code, 0, c.stdout .. c.stderr)
    t.lacks(c.stderr, "harness runs")
    return t.read(c.stdout:match("Workspace: (%S+)\n") .. "/comparison_report.md")
  end
  -- two setup treatments, one run treatment
  local a, b = cell("plugins-default", "rate1"), cell("plugins-kv", "rate1")
  local md = compare_cells(a, b)
  t.contains(md, "\nSLO: TTFT p90 ≤ 200.0 ms (from plugins-default/rate1's record (" .. a .. "/run_state.json) and "
    .. "plugins-kv/rate1's record (" .. b .. "/run_state.json), which state the same).")
  t.contains(md, "\n| **setup treatment** ≠ | plugins-default | plugins-kv |\n")
  t.contains(md, "\n| **values: decode.replicas** ≠ | 2 | 4 |\n")
  t.contains(md, "\n| **values: router.epp.pluginsConfigFile** ≠ | default-plugins.yaml | kv-cache.yaml |\n")
  t.contains(md, "\n| **values: decode.extraFlag** ≠ | not overridden (the guide's own value) | true |\n")
  t.contains(md, "\n| Load stages | 1 stage: 1/s (read from the benchmark config) | 1 stage: 1/s (read from the "
    .. "benchmark config) |\n")
  -- one setup treatment, two run treatments: the setup's rows alike, the workload and stages not
  md = compare_cells(cell("plugins-prefix", "rate1"), cell("plugins-prefix", "rate5"))
  t.contains(md, "\n| setup treatment | plugins-prefix | plugins-prefix |\n")
  t.contains(md, "\n| **Workload** ≠ | rate1 | rate5 |\n")
  t.contains(md, "\n| **Load stages** ≠ | 1 stage: 1/s (read from the benchmark config) | 1 stage: 5/s (read from "
    .. "the benchmark config) |\n")
end)

-- A dry run's workspace holds nothing to resume (none of its steps ran): --resume on it is
-- refused with one line (it printed "Result: 2/2 succeeded" having measured nothing, a new
-- user's find); and a dry run over a real workspace (--resume W --dry-run) leaves the real
-- run's state as it was, so that the real --resume still does what is left.
t.test("--resume of a dry run's workspace is refused; --resume W --dry-run leaves W's state as it was", function()
  local s = setup(function(plan) plan.namespaces, plan.parallel = { "exp-a", "exp-b", "exp-c" }, 1 end)
  local r = experiment(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  -- (session 33) the dry run's workspace is removed when it ends, as compare.lua's, so that
  -- the real run does not get a -2 suffix; one a dry run left (an older llmdlua) is refused
  t.eq(workspace(s), nil, "the dry run leaves no workspace")
  t.ok(r.stdout:find("Dry run: its workspace " .. s.dir .. "/llm-d-experiment-routing-sweep-", 1, true), r.stdout)
  t.ok(r.stdout:find("was removed; it leaves nothing behind.", 1, true), r.stdout)
  t.ok(not r.stdout:find("Experiment workspace:", 1, true), r.stdout)
  local w = s.dir .. "/llm-d-experiment-routing-sweep-20260101-000000"
  lfs.mkdir(w)
  t.write(w .. "/plan.yaml", t.read(s.plan))
  t.write(w .. "/experiment.yaml", t.read(s.exp))
  t.write(w .. "/experiment-state.json", '{"experiment": "routing-sweep", "results": [], "dry_run": true}')
  r = experiment(s, { "--resume", w })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, ("llmdlua: %s: the workspace of a dry run: none of its steps ran, so it holds nothing to resume; "
    .. "run the experiment without --dry-run (llmdlua experiment.lua %s --plan %s/plan.yaml)\n"):format(w, s.exp, w))
  proc.run { "rm", "-rf", w }
  -- a real run with one treatment failing at standup, then a dry run over its workspace
  r = experiment(s, nil, { FAKE_FAIL = "deploy", FAKE_FAIL_NAMESPACE = "exp-a" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  w = workspace(s)
  local before = t.read(w .. "/experiment-state.json")
  local sum_before = t.read(w .. "/experiment-summary.yaml")
  local steps_before = t.read(w .. "/steps.json")
  r = experiment(s, { "--resume", w, "--dry-run" })
  t.ok(r.stdout:find("To run it: llmdlua experiment.lua " .. s.exp .. " --resume " .. w .. "\n", 1, true), r.stdout)
  t.eq(t.read(w .. "/experiment-state.json"), before, "the real run's state untouched by the dry run")
  t.eq(t.read(w .. "/experiment-summary.yaml"), sum_before, "its summary too")
  -- and its step record (session 35: the dry run's steps were recorded "ok", so the real
  -- resume found them done, deployed nothing and called the treatment pending: a loop)
  t.eq(t.read(w .. "/steps.json"), steps_before, "its step record too")
  r = experiment(s, { "--resume", w })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Result: 3/3 succeeded, 0 failed", 1, true), r.stdout)
end)

-- nu35-1: a setup treatment whose run treatments failed (failed_run) had completed every
-- step, so a resume ran none of it, called it "pending", dropped its reason and advised the
-- same --resume again: a loop. A resume now deploys it again and re-runs the run
-- treatments without results, keeping the failed attempt's results; a resume that runs none
-- of its steps (--step 100) still says why it failed.
t.test("nu35-1: --resume re-runs a failed_run setup treatment's failed run treatments, earlier attempts kept",
  function()
  local s = setup()
  -- exp-b's benchmarks leave a harness traceback in stderr.log: plugins-prefix fails both
  local r = experiment(s, nil, { FAKE_FAIL_IN = "exp-b:bench_stderr" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  local d = w .. "/setup-treatment-plugins-prefix"
  -- a resume that runs no step of it: the failure and its reason stay in the table and the file
  r = experiment(s, { "--resume", w, "--step", "100" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("  FAIL plugins-prefix                 failed_run         runs: 0/2\n       rate1: run rate1: "
    .. "the benchmark failed after 1 attempt(s): ", 1, true), r.stdout)
  local by = {}
  for _, x in ipairs(yaml.load_file(w .. "/experiment-summary.yaml").treatments) do by[x.setup_treatment] = x end
  t.eq(by["plugins-prefix"].status, "failed_run")
  t.ok(tostring(by["plugins-prefix"].error):find("harness stopped early", 1, true), tostring(by["plugins-prefix"].error))
  -- the resume proper (the cause fixed: no FAKE_FAIL_IN): deployed again in exp-b, both run
  -- treatments benchmarked again, logs, teardown; nothing of the other two touched
  local before = #calls(s)
  r = experiment(s, { "--resume", w })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Setup treatment plugins-prefix failed_run in an earlier run: rate1, rate5 run again, deployed "
    .. "again", 1, true), r.stdout)
  t.ok(r.stdout:find("Result: 3/3 succeeded, 0 failed", 1, true), r.stdout)
  local deploys, benches, uninstalls = 0, 0, 0
  for i, c in ipairs(calls(s)) do
    if i > before then
      -- (config: the kubeconfig, in no namespace; llmdlua-lock: each of the plan's namespaces
      -- held while the experiment runs, llmd.cluster.lock_namespace)
      local lock = table.concat(c.args, " "):find("configmaps?[ /]llmdlua%-lock")
      if c.tool ~= "run_only.sh" and c.args[3] ~= "config" and not lock then
        t.eq(ns_of(c), "exp-b", c.tool .. " " .. table.concat(c.args, " "))
      end
      if c.tool == "helmfile" and c.args[3] == "apply" then deploys = deploys + 1 end
      if c.tool == "run_only.sh" then benches = benches + 1 end
      if c.tool == "helm" and c.args[1] == "uninstall" then uninstalls = uninstalls + 1 end
    end
  end
  -- (one teardown: its three releases - gaie-sim, infra-sim, ms-sim - each uninstalled in its
  -- own helm call, right after its own check, harden51 #2)
  t.eq({ deploys, benches, uninstalls }, { 1, 2, 3 })
  -- each run treatment: the new results, and the failed attempt's kept beside them (its
  -- stderr.log still the traceback the fake wrote)
  for _, rt in ipairs { "rate1", "rate5" } do
    t.eq(lfs.attributes(d .. "/run-" .. rt .. "/run_state.json", "mode"), "file", rt)
    local kept = d .. "/run-" .. rt .. "/results-attempt-1"
    t.eq(lfs.attributes(kept, "mode"), "directory", rt)
    local tb = false
    for sub in lfs.dir(kept) do
      local f = kept .. "/" .. sub .. "/stderr.log"
      if lfs.attributes(f, "mode") == "file" and t.read(f):find("Traceback", 1, true) then tb = true end
    end
    t.ok(tb, rt .. ": the failed attempt's stderr.log kept")
  end
  -- a further resume has nothing left to run
  before = #calls(s)
  r = experiment(s, { "--resume", w })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local again = {}
  for i, c in ipairs(calls(s)) do
    -- (but which cluster this is: kubectl config reads, checked against the workspace's; and
    -- the namespaces' locks, taken and let go again)
    local line = c.tool .. " " .. table.concat(c.args, " ")
    if i > before and c.args[3] ~= "config" and not line:find("configmaps?[ /]llmdlua%-lock") then
      again[#again + 1] = line
    end
  end
  t.eq(again, {}, "nothing run again")
  for ns, st in pairs(json.decode(t.read(s.cluster .. "/state.json")).ns) do
    t.eq((st.configmaps or {})["llmdlua-lock"], nil, ns .. ": its lock let go")
  end
end)

-- nu35-2: --resume with a relative workspace path (the README's synopsis form): run_only.sh,
-- run in run-x/benchmark, was given -c <relative path>, which names nothing there, and every
-- benchmark failed. The workspace is made absolute on entry.
t.test("nu35-2: --resume with a relative workspace path benchmarks with an absolute config path", function()
  local s = setup()
  local r = experiment(s, nil, { FAKE_FAIL = "deploy", FAKE_FAIL_NAMESPACE = "exp-b" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  local rel = w:match("[^/]+$")
  local before = #calls(s)
  r = experiment(s, { "--resume", rel .. "/" }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Result: 3/3 succeeded, 0 failed", 1, true), r.stdout)
  local n = 0
  for i, c in ipairs(calls(s)) do
    if i > before and c.tool == "run_only.sh" then
      n = n + 1
      t.eq(c.args[2]:sub(1, 1), "/", table.concat(c.args, " "))
    end
  end
  t.eq(n, 2)
  -- a workspace that is not there: one line, exit 2
  r = experiment(s, { "--resume", "llm-d-experiment-nope" }, nil, s.dir)
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, "experiment.lua: --resume llm-d-experiment-nope: no such folder (expected the workspace of an "
    .. "experiment.lua run)\n")
end)

-- nu35-3: --resume with another experiment's file deployed that experiment's setups into the
-- workspace (its summary then named the other experiment). Refused, naming both, before
-- anything runs; the workspace keeps the experiment.yaml it ran.
t.test("nu35-3: --resume refuses an experiment file other than the one the workspace ran", function()
  local s = setup()
  local r = experiment(s, nil, { FAKE_FAIL = "deploy", FAKE_FAIL_NAMESPACE = "exp-b" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  local state = t.read(w .. "/experiment-state.json")
  local before = #calls(s)
  t.write(s.dir .. "/other.yaml", "experiment:\n  name: tp\nsetup:\n  treatments:\n    - name: tp1\n"
    .. "      decode.parallelism.tensor: 1\ntreatments:\n  - name: rate1\n    load.stages.0.rate: 1\n")
  local argv = { LLMDLUA, "experiment.lua", s.dir .. "/other.yaml", "--resume", w }
  r = proc.run(argv, { env = s.env, timeout = 300 })
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, ("experiment.lua: --resume %s: this workspace ran experiment routing-sweep (%s/experiment.yaml), not "
    .. "experiment tp of %s/other.yaml; resume it with its own: llmdlua experiment.lua %s/experiment.yaml --resume "
    .. "%s\n"):format(w, w, s.dir, w, w))
  -- the same name, other treatments (an edited copy): refused too
  t.write(s.dir .. "/edited.yaml", (EXPERIMENT:gsub("rate: 5", "rate: 6")))
  argv[3] = s.dir .. "/edited.yaml"
  r = proc.run(argv, { env = s.env, timeout = 300 })
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.ok(r.stderr:find(("^experiment.lua: %%-%%-resume %s: %s/edited.yaml is not the experiment routing%%-sweep this "
    .. "workspace ran"):format(w:gsub("%p", "%%%0"), s.dir:gsub("%p", "%%%0"))), r.stderr)
  t.eq(select(2, r.stderr:gsub("\n", "")), 1, "one line")
  t.eq(#calls(s), before, "nothing run")
  t.eq(t.read(w .. "/experiment-state.json"), state, "the state untouched")
end)

-- nu35-4: a setup treatment that failed to deploy has no results, and the comparison across
-- treatments never named it: "Comparison Across 4 Treatments" of a 3 x 2 design. It is now
-- named, with its status and the first line of why, in the headline, the Treatments section
-- (md and html) and treatments.json; so is a run treatment whose results cannot be read,
-- which used to stop the whole comparison.
t.test("nu35-4: a setup treatment that failed at standup is named 'not measured' in the report, with why", function()
  local s = setup()
  local r = experiment(s, nil, { FAKE_FAIL_IN = "exp-b:deploy" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  local out = w .. "/cross-treatment-comparison"
  local md = t.read(out .. "/treatment_report.md")
  local j = json.read(out .. "/treatments.json")
  t.eq(#j.treatments, 2) -- plugins-default and plugins-kv, each a curve of rate1 and rate5 (1 and 5 req/s)
  t.eq(#j.not_measured, 1)
  t.eq({ j.not_measured[1].label, j.not_measured[1].status }, { "plugins-prefix", "failed_standup" })
  -- the reason: the first line of the summary's error, and where the rest is
  local err = yaml.load_file(w .. "/experiment-summary.yaml").treatments[2].error
  local first = err:match("^%s*([^\n]-)%s*\n")
  t.ok(first and first:find("helmfile -n exp-b apply", 1, true), err)
  local reason = j.not_measured[1].reason
  local _, nlines = err:gsub("\n%s*%S", "")
  t.eq(reason, ("%s (%d more lines: see %s/experiment-summary.yaml)"):format(first, nlines, w))
  -- (after the fake cluster's own first words: its cells are simulated, newuser53 #2)
  t.ok(j.verdict:find("^Warning: %d+ of the cells %([^)]*%) ran on a simulated cluster %b()[^.]*%. Not measured, so "
    .. "in no comparison below: plugins%-prefix %(failed_standup%)%. "), j.verdict)
  t.ok(md:find("\nNot measured (no results to compare): plugins-prefix (failed_standup: " .. reason .. ").\n", 1, true),
    md)
  local html = t.read(out .. "/treatment_report.html")
  t.ok(html:find('<p class="not-measured">Not measured (no results to compare): plugins-prefix (failed_standup: ', 1,
    true), html)
  -- a run treatment whose results are gone (emptied): named too, and the others still compared
  local gone = w .. "/setup-treatment-plugins-kv/run-rate5/results"
  proc.run { "rm", "-rf", gone }
  lfs.mkdir(gone)
  r = proc.run({ LLMDLUA, "treatments.lua", w, "--quiet" }, { env = s.env })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  j = json.read(out .. "/treatments.json")
  t.eq(#j.treatments, 2) -- (plugins-kv's curve is its rate1 alone now)
  local labels = {}
  for _, x in ipairs(j.not_measured) do labels[#labels + 1] = x.label .. " " .. x.status end
  t.eq(labels, { "plugins-prefix failed_standup", "plugins-kv/rate5 success" })
  t.ok(j.not_measured[2].reason:find(gone .. ": no results", 1, true), j.not_measured[2].reason)
end)

t.test("a run treatment key one letter off the template's is refused: --show --plan, --dry-run, run", function()
  local s = setup()
  -- the new user's typo: rat for rate (the rendered config held rat: 2 and rate: 1, so the
  -- treatment rate5 benchmarked rate 1)
  t.write(s.exp, (EXPERIMENT:gsub("load%.stages%.0%.rate: 5", "load.stages.0.rat: 5")))
  local want = s.exp .. ": run treatment rate5: load.stages.0.rat is not a key of workload sanity_random in "
    .. s.dir .. "/template.yaml (did you mean load.stages.0.rate?); refused: it would add rat and benchmark the "
    .. "template's rate - nothing was run\n"
  for _, extra in ipairs { { "--plan", s.plan, "--show" }, { "--plan", s.plan, "--dry-run" }, { "--plan", s.plan } } do
    local r = experiment(s, extra)
    t.eq({ r.code, r.stderr }, { 1, "llmdlua: " .. want }, table.concat(extra, " ") .. "\n" .. r.stdout)
    t.ok(not r.stdout:find("DoE EXPERIMENT SUMMARY", 1, true), r.stdout)
  end
  t.eq(workspace(s), nil)
  t.ok(not lfs.attributes(s.cluster .. "/calls.log"), "no cluster call")
  -- a key the template lacks but near none of its keys is added, as upstream does
  -- (concurrent-sessions-sweep.yaml sets load.stages.0.concurrent_sessions), with a note
  t.write(s.exp, (EXPERIMENT:gsub("load%.stages%.0%.rate: 5", "load.stages.0.concurrent_sessions: 5")))
  local r = experiment(s, { "--plan", s.plan, "--show" })
  t.eq({ r.code, r.stderr }, { 0, "note: run treatment rate5 adds load.stages.0.concurrent_sessions (not in workload "
    .. "sanity_random of " .. s.dir .. "/template.yaml)\n" })
  r = experiment(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  -- the dry run removes the rendered configs: what they hold at the treatment's keys is said
  t.ok(r.stdout:find("workload sanity_random-rate5: load.stages.0.concurrent_sessions: 5, "
    .. "load.stages.0.duration: 60\n", 1, true), r.stdout)
end)

t.test("--show of an experiment with no run treatment fails as --plan does (legacy string treatments)", function()
  local r = proc.run { LLMDLUA, "experiment.lua", F .. "/llm-d-benchmark/experiments/kubecon-smoke.yaml", "--show" }
  t.eq(r.code, 1, r.stdout .. r.stderr)
  -- the parsed form stays upstream's (expected/parsed-experiments.json: total_matrix 1)
  t.eq(json.decode(r.stdout).total_matrix, 1)
  local want = "\nllmdlua: " .. F .. "/llm-d-benchmark/experiments/kubecon-smoke.yaml: no run treatments (a "
    .. "top-level treatments: list of mappings); nothing to benchmark\n"
  t.eq(r.stderr:sub(-#want), want)
end)

-- --quiet, as compare.lua's: no progress lines nor summary table; a failure, where the
-- workspace and the comparison are, what is left deployed and how to go on are still said.
-- The same failing run without --quiet shows which lines are progress (expected lines
-- written out by hand from the run without it).
t.test("--quiet: progress and the summary table left out; the failure and the way on kept", function()
  local loud = experiment(setup(), nil, { FAKE_FAIL = "deploy", FAKE_FAIL_NAMESPACE = "exp-b" })
  t.eq(loud.code, 1, loud.stdout .. loud.stderr)
  local s = setup()
  local r = experiment(s, { "--plan", s.plan, "--quiet" }, { FAKE_FAIL = "deploy", FAKE_FAIL_NAMESPACE = "exp-b" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  for _, progress in ipairs { "Experiment routing-sweep: 3 setup x 2 run treatment(s)", "deploying into",
    "smoke test through a port-forward", "Run treatment rate1 (1/2): benchmarking.", "DoE EXPERIMENT SUMMARY" } do
    t.ok(loud.stdout:find(progress, 1, true), progress .. ": printed without --quiet\n" .. loud.stdout)
    t.lacks(r.stdout, progress, progress .. " printed with --quiet")
  end
  t.contains(r.stdout, "[plugins-prefix] ", "the failed treatment's lines, prefixed")
  t.contains(r.stdout, "Setup treatment plugins-prefix: standup failed: ")
  t.contains(r.stdout, "FAILED - ")
  t.contains(r.stdout, "\nComparison across treatments: " .. w .. "/cross-treatment-comparison/")
  t.contains(r.stdout, "\nExperiment workspace: " .. w .. "\n")
  t.contains(r.stdout, "To continue after fixing the cause: llmdlua experiment.lua " .. s.exp .. " --resume " .. w
    .. "\n")
  -- written all the same
  t.ok(lfs.attributes(w .. "/experiment-summary.yaml"), "the summary written")
end)

-- fixg51: the experiment's comparison at the end of a run or --resume wrote over
-- cross-treatment-comparison/, a report a user's treatments.lua had written there with other
-- options too. A report this experiment did not write (or one changed since) is kept aside as
-- treatments.lua keeps one (OUT-previous-TIME, one line on stderr); its own, unchanged, is
-- replaced (no copy of it per --resume). The kept files are compared byte for byte.
t.test("the experiment's comparison keeps a treatments.lua report aside, and replaces its own", function()
  local s = setup()
  local r = experiment(s, nil)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  local out = w .. "/cross-treatment-comparison"
  local function files(dir)
    local got = {}
    t.walk(dir, function(p, rel, mode) if mode == "file" then got[rel] = t.read(p) end end)
    return got
  end
  local function asides()
    local got = {}
    for n in lfs.dir(w) do if n:match("^cross%-treatment%-comparison%-previous%-") then got[#got + 1] = n end end
    table.sort(got)
    return got
  end
  -- its own report, replaced by the --resume's: nothing kept aside, nothing said
  r = experiment(s, { "--resume", w, "--step", "100" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(not r.stderr:find("held an earlier report", 1, true), r.stderr)
  t.eq(asides(), {})
  -- a user's report there, with another SLO (written over the experiment's: --replace)
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  local u = proc.run({ LLMDLUA, "treatments.lua", w, "--quiet", "--slo", "ttft_p90_ms=1000", "--replace" },
    { env = env })
  t.eq(u.code, 0, u.stdout .. u.stderr)
  local user = files(out)
  local function rank_by(text) return json.decode(text).rank_by end
  t.eq(rank_by(user["treatments.json"]), "capacity at SLO", "the user's report, ranked by its SLO")
  local when = proc.run { "/usr/bin/python3", "-c", "import os,sys,time\nt = int(os.path.getmtime(sys.argv[1]))\n"
    .. "print(time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(t)), time.strftime('%Y%m%d-%H%M%S', time.localtime(t)))",
    out .. "/treatments.json" }
  local shown, stamp = when.stdout:match("^(%S+ %S+) (%S+)")
  r = experiment(s, { "--resume", w, "--step", "100" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local aside = out .. "-previous-" .. stamp
  t.contains(r.stderr, ("experiment.lua: %s held an earlier report this experiment did not write (written %s): kept "
    .. "in %s; this one is in %s\n"):format(out, shown, aside, out))
  t.eq(asides(), { "cross-treatment-comparison-previous-" .. stamp })
  t.eq(files(aside), user, "the user's report, whole")
  t.ok(rank_by(files(out)["treatments.json"]) ~= "capacity at SLO", "the experiment's own again (no SLO)")
  -- and the next --resume replaces the experiment's own again
  r = experiment(s, { "--resume", w, "--step", "100" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(not r.stderr:find("held an earlier report", 1, true), r.stderr)
  t.eq(#asides(), 1)
end)
