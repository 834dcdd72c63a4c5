-- Cluster safety (newuser40's trial): which cluster a workspace was made in, names that
-- reach the cluster, values pasted into the benchmark config, the results PVC. Against the
-- fake cluster (tests/fakecluster), which answers as the real tools do. Expected texts are
-- written from the task and the tools' own messages (kubectl's "current-context must exist
-- in order to minify", the API server's NotFound), never taken from the code's output.
local t = require "testlib"
local json = require "llmd.json"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"
local lfs = require "lfs"
local cluster = require "llmd.cluster"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local FAKEBIN = ROOT .. "/tests/fakecluster/bin"

-- a guide (helmfile.yaml), the real benchmark template, a plan of two helmfile runs
local function setup(edit)
  local d = t.tmpdir()
  t.sim_guide(d)
  t.sim_plan(d, edit)
  -- (no current kube context unless a test gives one: empty, as the fake's default is one)
  local env = t.fake_env(d .. "/cluster", { FAKE_CONTEXT = "", KUBERNETES_SERVICE_HOST = false,
    KUBERNETES_SERVICE_PORT = false })
  return { dir = d, plan = d .. "/plan.yaml", cluster = d .. "/cluster", env = env }
end

-- compare.lua without --quiet (which leaves out the progress lines these tests read): its
-- progress lines
local compare = t.fake_compare

local function calls(s)
  if not lfs.attributes(s.cluster .. "/calls.log") then return {} end
  return t.jsonl(s.cluster .. "/calls.log")
end
local function state(s) return json.decode(t.read(s.cluster .. "/state.json")) end
local function uninstalls(s, from)
  local n = 0
  for i, c in ipairs(calls(s)) do
    if i > from and c.tool == "helm" and table.concat(c.args, " "):find("uninstall", 1, true) then n = n + 1 end
  end
  return n
end

t.test("a workspace made with no kube context is not torn down from another one unless told", function()
  -- the trial: no current context (kubectl config current-context exits 1), a failed smoke
  -- test leaves run A deployed; then --step 90 in context prod would uninstall it there
  local s = setup()
  local r = compare(s, nil, { FAKE_FAIL = "smoke" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  t.eq(json.read(w .. "/cluster.json"), { namespace = "bench", context = json.null, server = json.null })
  t.ok(r.stdout:find("Warning: cannot tell which cluster this is (kubectl config current-context: error: "
    .. "current-context is not set; not in a pod)", 1, true), r.stdout)
  t.ok(r.stderr:find("warning: no kube context", 1, true), r.stderr)
  local before = #calls(s)
  r = compare(s, { "--resume", w, "--step", "90" }, { FAKE_CONTEXT = "prod" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find(w .. " records no cluster (made with no kube context, or by an llmdlua that did not record "
    .. "it), so a resume could act in another one; the current one is kube context prod (server "
    .. "https://api.prod.example.com:6443): add --use-current-context if the current one is where it was made", 1,
    true), r.stderr)
  t.eq(uninstalls(s, before), 0, "nothing uninstalled")
  t.ok(next(state(s).ns.bench.releases), "run A's releases are still there")
  -- the user says it is the one: torn down, and the cluster recorded from now on
  r = compare(s, { "--resume", w, "--step", "90", "--use-current-context" }, { FAKE_CONTEXT = "prod" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Cluster: kube context prod (server https://api.prod.example.com:6443), as "
    .. "--use-current-context says", 1, true), r.stdout)
  t.eq(next(state(s).ns.bench.releases), nil, "torn down")
  t.eq(json.read(w .. "/cluster.json"), { namespace = "bench", context = "prod",
    server = "https://api.prod.example.com:6443" })
  -- --use-current-context on a new comparison: a usage error (it records the current one)
  r = compare(s, { "--plan", s.plan, "--use-current-context" })
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.ok(r.stderr:find("--use-current-context: only with --resume WORKSPACE", 1, true), r.stderr)
end)

t.test("a workspace without cluster.json (an older llmdlua's) resumed with --namespace: refused unless told", function()
  local s = setup()
  local r = compare(s, nil, { FAKE_FAIL = "smoke", FAKE_CONTEXT = "kind-x" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  os.remove(w .. "/cluster.json")
  local before = #calls(s)
  r = compare(s, { "--resume", w, "--step", "90", "--namespace", "bench" }, { FAKE_CONTEXT = "kind-x" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find(w .. " records no cluster", 1, true), r.stderr)
  t.eq(uninstalls(s, before), 0)
  r = compare(s, { "--resume", w, "--step", "90", "--namespace", "bench", "--use-current-context" },
    { FAKE_CONTEXT = "kind-x" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(json.read(w .. "/cluster.json").context, "kind-x")
end)

t.test("the same context name pointing at another API server is refused; in a pod the in-cluster API is recorded",
  function()
  local s = setup()
  local r = compare(s, nil, { FAKE_FAIL = "smoke", FAKE_CONTEXT = "dev", FAKE_SERVER = "https://10.1.1.1:6443" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  t.eq(json.read(w .. "/cluster.json"), { namespace = "bench", context = "dev", server = "https://10.1.1.1:6443" })
  local before = #calls(s)
  r = compare(s, { "--resume", w, "--step", "90" }, { FAKE_CONTEXT = "dev", FAKE_SERVER = "https://10.9.9.9:6443" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find(w .. " was made with the API server https://10.1.1.1:6443, the current one is "
    .. "https://10.9.9.9:6443", 1, true), r.stderr)
  t.eq(uninstalls(s, before), 0)
  -- in a pod: no kube context, the service account's in-cluster API (KUBERNETES_SERVICE_HOST/PORT)
  s = setup()
  local pod = { FAKE_FAIL = "smoke", KUBERNETES_SERVICE_HOST = "10.96.0.1", KUBERNETES_SERVICE_PORT = "443" }
  r = compare(s, nil, pod)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(not r.stdout:find("cannot tell which cluster", 1, true), r.stdout)
  w = t.workspaces(s.dir)[1]
  t.eq(json.read(w .. "/cluster.json"), { namespace = "bench", context = json.null, server = "https://10.96.0.1:443" })
  -- from a laptop's context: refused; from the same pod: torn down
  before = #calls(s)
  r = compare(s, { "--resume", w, "--step", "90" }, { FAKE_CONTEXT = "prod" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find("was made with the API server https://10.96.0.1:443, the current one is "
    .. "https://api.prod.example.com:6443", 1, true), r.stderr)
  t.eq(uninstalls(s, before), 0)
  pod.FAKE_FAIL = false
  r = compare(s, { "--resume", w, "--step", "90" }, pod)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(next(state(s).ns.bench.releases), nil, "torn down")
end)

t.test("the fake kubectl reads the current context's server as kubectl does", function()
  local s = setup()
  local function kc(env, ...)
    local e = {}
    for k, v in pairs(s.env) do e[k] = v end
    for k, v in pairs(env) do e[k] = v end
    return proc.run({ FAKEBIN .. "/kubectl", ... }, { env = e })
  end
  local r = kc({}, "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}")
  t.eq({ r.code, r.stderr }, { 1, "error: current-context must exist in order to minify\n" })
  r = kc({ FAKE_CONTEXT = "kind-x" }, "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}")
  t.eq({ r.code, r.stdout }, { 0, "https://api.kind-x.example.com:6443" })
  -- a namespace that cannot exist: a write is the API server's NotFound, a list finds nothing
  r = kc({}, "-n", "Bad_NS", "create", "configmap", "x")
  t.eq({ r.code, r.stderr }, { 1, 'Error from server (NotFound): namespaces "Bad_NS" not found\n' })
  r = proc.run({ FAKEBIN .. "/helm", "install", "x", "chart", "-n", "a b" }, { env = s.env })
  t.eq({ r.code, r.stderr }, { 1, 'Error: INSTALLATION FAILED: create: failed to create: namespaces "a b" not '
    .. "found\n" })
end)

t.test("a namespace that is not a Kubernetes name is refused before any cluster call", function()
  local s = setup(function(p) p.namespace = nil end)
  for _, ns in ipairs { "a b", "x'$(touch /tmp/p)", "Bad_NS", "Default", "-lead", ("n"):rep(64) } do
    local r = compare(s, { "--plan", s.plan, "--namespace", ns })
    t.eq(r.code, 1, ns .. ": " .. r.stdout .. r.stderr)
    t.ok(r.stderr:find("--namespace " .. ns .. ": '" .. ns .. "' is not a valid namespace name (expected an RFC "
      .. "1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 "
      .. "characters", 1, true), r.stderr)
    t.eq(select(2, r.stderr:gsub("\n", "")), 1, "one line: " .. r.stderr)
    t.eq(#calls(s), 0, ns .. ": no cluster call")
  end
  -- in the plan, and in an experiment plan's namespaces list
  s = setup(function(p) p.namespace = "Team_A" end)
  local r = compare(s)
  t.eq(r.code, 1)
  t.ok(r.stderr:find(s.plan .. ": namespace: 'Team_A' is not a valid namespace name", 1, true), r.stderr)
  t.eq(#calls(s), 0)
  local d = t.tmpdir()
  t.write(d .. "/p.yaml", yaml.dump { namespaces = { "try-a", "try a" },
    deploy = { method = "helmfile", guide_dir = d, model = "Qwen/Qwen3-0.6B" },
    benchmark = { template = s.dir .. "/template.yaml" } })
  local ok, err = pcall(require("llmd.experiment_run").load_plan, d .. "/p.yaml")
  t.eq(ok, false)
  t.ok(tostring(err):find("namespaces[1]: 'try a' is not a valid namespace name", 1, true), tostring(err))
  -- a release name helm would refuse: named in the plan's terms
  s = setup(function(p)
    p.runs.a.deploy = { method = "helm", guide_dir = p.runs.a.deploy.guide_dir, release = "My_Release",
      chart = "oci://x/y", model = "Qwen/Qwen3-0.6B" }
  end)
  r = compare(s)
  t.eq(r.code, 1)
  t.ok(r.stderr:find("runs.a.deploy.release: 'My_Release' is not a valid Helm release name", 1, true), r.stderr)
  t.eq(#calls(s), 0)
end)

t.test("values pasted into the benchmark config stay one YAML scalar, or are refused", function()
  -- the trial's model: a comment and a new key after a newline
  local s = setup(function(p) p.runs.a.deploy.model = "Qwen/Qwen3-0.6B #c\nharness:\n  name: evil" end)
  local r = compare(s)
  t.eq(r.code, 1)
  t.ok(r.stderr:find("runs.a.deploy.model: 'Qwen/Qwen3-0.6B #c\\nharness:\\n  name: evil' is not a model name "
    .. "(expected letters, digits and . _ - / : @, like Qwen/Qwen3-0.6B)", 1, true), r.stderr)
  t.eq(#calls(s), 0)
  -- the substitution itself (parsed back with llmd.yaml: each key keeps the value given)
  local tpl = "endpoint:\n  model: ${MODEL}\n  url: http://${IP}/v1\n  q: \"${Q}\"\n  s: '${Q}'\n"
    .. "  flow: {a: ${SP}, b: 1}\n  name: vllm ${SP}\nharness:\n  name: inference-perf\n"
  local vars = { MODEL = "org/m #c", IP = "gw.ns.svc:80", Q = [[it's "x" \ y]], SP = "two words" }
  local got = yaml.load(cluster.substitute_yaml(tpl, vars, "tpl.yaml"))
  t.eq(got, { endpoint = { model = "org/m #c", url = "http://gw.ns.svc:80/v1", q = [[it's "x" \ y]],
    s = [[it's "x" \ y]], flow = { a = "two words", b = 1 }, name = "vllm two words" },
    harness = { name = "inference-perf" } })
  -- a dry run's stand-in for what it did not read, inside a longer value: YAML reads it as it is
  t.eq(yaml.load(cluster.substitute_yaml("u: http://${G}/v1\n", { G = "<the Service of Gateway g>.ns.svc:80" }, "t")),
    { u = "http://<the Service of Gateway g>.ns.svc:80/v1" })
  -- a newline: refused, naming the template's line and the variable
  local ok, err = pcall(cluster.substitute_yaml, "a: 1\nb: ${V}\n", { V = "x\nharness: evil" }, "tpl.yaml")
  t.eq(ok, false)
  t.eq(err, "tpl.yaml:2: ${V} = 'x\\nharness: evil': a control character (a newline, a tab...) in a value would "
    .. "change the YAML config's structure; refused")
  -- inside a longer plain value, a value YAML would read otherwise: refused
  ok, err = pcall(cluster.substitute_yaml, "u: http://${V}/x\n", { V = "h: 1" }, "tpl.yaml")
  t.eq(ok, false)
  t.ok(tostring(err):find("tpl.yaml:1: ${V} = 'h: 1': not a plain YAML word", 1, true), tostring(err))
  -- through a plan: benchmark.vars with a newline stops the benchmark step, run_only.sh never runs
  s = setup(function(p)
    p.runs.a.benchmark.vars = { MODEL = "x\ny: 1" }
  end)
  r = compare(s)
  t.eq(r.code, 1)
  t.ok((r.stdout .. r.stderr):find("template.yaml:%d+: ${MODEL} = 'x\\ny: 1': a control character"), r.stdout)
  for _, c in ipairs(calls(s)) do t.ok(c.tool ~= "run_only.sh", "run_only.sh ran") end
end)

t.test("a failed benchmark command is named as the failure, not the listing after it", function()
  -- run_only.sh failing before its launcher pod starts: the listing through the launcher fails too
  local s = setup(function(p)
    p.runs.a.benchmark.command = { "sh", "-c", "echo 'harness: no such harness evil' >&2; exit 3" }
    p.runs.a.benchmark.attempts = 1
  end)
  local r = compare(s)
  t.eq(r.code, 1)
  local all = r.stdout .. r.stderr
  t.ok(all:find("run a: the benchmark command failed (exit 3): sh -c 'echo '\\''harness: no such harness evil'\\'' >&2; "
    .. "exit 3' (its output is above and in run-a/benchmark); no results could be read after it: "
    .. "cannot list the results on the PVC", 1, true), all)
end)

t.test("the only ReadWriteMany PVC, someone else's, is not written to unasked", function()
  local s = setup()
  local r = compare(s, nil, { FAKE_PVCS = "team-pvc:ReadWriteMany" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok((r.stdout .. r.stderr):find("run a: the only Bound ReadWriteMany PVC in bench, team-pvc, is neither this "
    .. "comparison's nor made by llmdlua (it could be another team's): this run's results are not written onto it "
    .. "unasked; name one with benchmark_pvc: in the plan (or benchmark.pvc, $BENCHMARK_PVC) (--yes does not "
    .. "choose it for you)", 1, true), r.stdout .. r.stderr)
  for _, c in ipairs(calls(s)) do t.ok(c.tool ~= "run_only.sh", "run_only.sh ran") end
  -- named: used; llmdlua's own (labelled): taken as the only one
  s = setup(function(p) p.benchmark_pvc = "team-pvc" end)
  r = compare(s, { "--plan", s.plan, "--step", "0-90" }, { FAKE_PVCS = "team-pvc:ReadWriteMany" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  s = setup()
  r = compare(s, { "--plan", s.plan, "--step", "0-90" }, { FAKE_PVCS = "mine:ReadWriteMany:Bound:llmdlua" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("results PVC: mine (the only Bound ReadWriteMany PVC in bench, the one made by llmdlua", 1,
    true), r.stdout)
end)


t.test("a failed deploy says its cause on the first line; a refused one does not claim logs or a stack", function()
  local s = setup()
  local r = compare(s, nil, { FAKE_FAIL = "deploy", FAKE_CONTEXT = "kind-x" })
  t.eq(r.code, 1)
  -- the step's line: the command, its exit status and helm's error that helmfile reported
  local first = r.stdout:match("\n(%[20%] deploy %(a%): FAILED %- [^\n]*)")
  t.eq(first, "[20] deploy (a): FAILED - helmfile -n bench apply -e istio --skip-crds: exit 1: in ./helmfile.yaml: "
    .. 'command "helm" exited with non-zero status: Error: UPGRADE FAILED: timed out waiting for the condition')
  -- helmfile's report after it, once (its COMBINED OUTPUT repeats STDERR)
  t.ok(r.stdout:find("\n  helmfile's whole report:\n    in ./helmfile.yaml:", 1, true), r.stdout)
  t.ok(not r.stdout:find("COMBINED OUTPUT", 1, true), r.stdout)
  local _, n = r.stdout:gsub("timed out waiting for the condition", "")
  t.eq(n, 2, "the cause: on the first line and once in the report")
  -- refused before anything of it was deployed (someone else's release of the helmfile's):
  -- no "logs saved", no "whatever was deployed is left in place"
  s = setup(function(p) p.runs.a.benchmark.workload = nil end)
  r = compare(s, nil, { FAKE_RELEASE_STATES = "infra-sim:deployed", FAKE_CONTEXT = "kind-x" })
  t.eq(r.code, 1)
  t.ok(r.stdout:find("Run A failed at step 20 (deploy) before anything of it was deployed. State saved; no logs "
    .. "(nothing ran).", 1, true), r.stdout)
  t.ok(not r.stdout:find("left in place", 1, true), r.stdout)
  t.ok(r.stdout:find("Nothing was deployed in namespace bench", 1, true), r.stdout)
  t.ok(r.stdout:find("workload: unknown (no benchmark.workload in the plan, and no benchmark config: the run "
    .. "stopped before step 60 rendered it)", 1, true), r.stdout)
end)

t.test("an interrupt inside a step is said as 'interrupted', without a Lua file's position", function()
  local steps = require "llmd.steps"
  local lines = {}
  local out = { write = function(_, x) lines[#lines + 1] = x end }
  local ok, err = pcall(steps.run, "x", { { number = 1, name = "wait_ready", per_stack = true, execute = function()
    error("/opt/llmdlua/lua/llmd/steps.lua:109: interrupted", 0)
  end } }, {}, { stacks = { "a" }, out = out })
  t.eq(ok, false)
  t.ok(tostring(err):match("interrupted$"), tostring(err))
  t.eq(table.concat(lines), "[01] wait_ready (a): FAILED - interrupted\n")
end)

t.test("the fake's logs failure names the container asked for", function()
  local s = setup()
  local e = {}
  for k, v in pairs(s.env) do e[k] = v end
  e.FAKE_FAIL = "nologs"
  local r = proc.run({ FAKEBIN .. "/kubectl", "-n", "bench", "logs", "ms-decode-x", "-c", "routing-proxy" }, { env = e })
  t.eq({ r.code, r.stderr }, { 1, 'Error from server (BadRequest): container "routing-proxy" in pod "ms-decode-x" is '
    .. "waiting to start\n" })
end)

-- The "give the namespace in one place" line shows each value as a shell reads it: a
-- trailing space (or a quote) in --namespace is seen, where it printed bare (audit48).
-- Expected text by hand.
t.test("--namespace beside the plan's namespace: both values shown as a shell reads them", function()
  local ok, err = pcall(cluster.resolve_namespace_source, { namespace = "llm-d-sc " }, { namespace = "llm-d-sc" }, {},
    "plan.yaml")
  t.eq(ok, false)
  t.eq(err, "--namespace 'llm-d-sc ': plan.yaml: namespace says llm-d-sc; give the namespace in one place (drop "
    .. "--namespace, or namespace: from the plan)")
end)
