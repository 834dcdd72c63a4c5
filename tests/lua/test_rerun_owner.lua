-- run_comparison.sh acts only on what this comparison deployed (fixd52, newuser52): its
-- teardown lines removed releases and a Service of the same names that someone else had
-- installed ("release ... uninstalled", "service ... deleted"), it took no lock while
-- compare.lua does, and it deployed and waited before finding the results PVC absent. On
-- the fake cluster (tests/fakecluster); expected texts by hand from the template's lines.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local rr = require "rerunlib"

local ROOT = t.root()

-- rerunlib's setup, compared once, and a copy of its workspace (s.w, s.copy)
local function setup()
  local s = rr.setup()
  local r = t.fake_compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  s.w = t.workspaces(s.dir)[1]
  s.copy = s.dir .. "/copy"
  t.copy_tree(s.w, s.copy)
  return s
end

-- the copy's script with lines uncommented (each there once, commented), run from /
local function rerun(s, lines, envx)
  t.write(s.copy .. "/run_comparison.sh", rr.uncomment(t.read(s.w .. "/run_comparison.sh"), lines))
  return rr.run_script(s, s.copy .. "/run_comparison.sh", envx)
end

local ns_state = rr.ns_state

local function run(s, argv, stdin)
  local r = proc.run(argv, { env = s.env, stdin = stdin })
  t.eq(r.code, 0, table.concat(argv, " ") .. ": " .. r.stdout .. r.stderr)
  return r
end

-- someone else's release ms-vllm and Service llm-d-baseline-model-server in the namespace
local function theirs(s)
  run(s, { "helm", "install", "ms-vllm", "llm-d-modelservice/llm-d-modelservice", "-n", "llm-d-try" })
  run(s, { "kubectl", "-n", "llm-d-try", "apply", "-f", "-" }, "apiVersion: v1\nkind: Service\nmetadata: {name: "
    .. "llm-d-baseline-model-server}\nspec: {selector: {app: other}}\n")
end

local function calls(s, pat)
  local n = 0
  for _, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    if table.concat(c.args, " "):find(pat) then n = n + 1 end
  end
  return n
end

local UNINSTALL, DELETE_SVC = rr.TEARDOWN_A[1], rr.TEARDOWN_A[2]

t.test("run_comparison.sh's teardown lines leave same-named releases and Services it did not deploy", function()
  local s = setup()
  theirs(s)
  local uninstalls = calls(s, "^uninstall")
  local r = rerun(s, { UNINSTALL, DELETE_SVC })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ns = ns_state(s)
  t.ok(ns.releases["ms-vllm"], "their release is still there")
  t.eq(ns.services["llm-d-baseline-model-server"].selector, { app = "other" }, "their Service is still there")
  t.eq(calls(s, "^uninstall"), uninstalls, "no helm uninstall")
  t.eq(calls(s, "delete service"), 0, "no Service deleted by name")
  -- one line each, naming it as not this script's
  t.ok(r.stderr:find("run_comparison.sh: run a: release ms-vllm in namespace llm-d-try is not this script's to "
    .. "remove (first deployed ", 1, true), r.stderr)
  t.ok(r.stderr:find("not recorded as deployed and not torn down by this comparison in run-a/deployed.json or "
    .. "run-a/rerun_deployed.json): left\n", 1, true), r.stderr)
  t.ok(r.stderr:find("run_comparison.sh: run a: Service llm-d-baseline-model-server in namespace llm-d-try is not "
    .. "this script's to remove (uid ", 1, true), r.stderr)
  t.lacks(r.stdout, "removed")
  -- and the locks it took are let go (compare.lua can take the namespace again)
  t.eq((ns.configmaps or {})["llmdlua-lock"], nil, "namespace lock let go")
end)

t.test("run_comparison.sh tears down its own deploy in a later run of it, once, and not a reinstall", function()
  local s = setup()
  local deploy_a = rr.deploy_a(s)
  -- the deploy alone: left deployed (said), recorded as the script's
  local r = rerun(s, { deploy_a })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local rec = json.read(s.copy .. "/run-a/rerun_deployed.json")
  t.ok(rec.releases["ms-vllm"] and rec.releases["ms-vllm"].first_deployed, "recorded")
  -- the teardown lines alone, in a second run: removes that release
  r = rerun(s, { UNINSTALL, DELETE_SVC })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.contains(r.stdout, "run a: release ms-vllm removed (where still there)")
  t.contains(r.stdout, "run a: no Service llm-d-baseline-model-server in namespace llm-d-try: nothing to remove")
  t.eq(ns_state(s).releases["ms-vllm"], nil)
  rec = json.read(s.copy .. "/run-a/rerun_deployed.json")
  t.eq({ rec.releases["ms-vllm"], rec.torn[1].release, rec.torn_down }, { nil, "ms-vllm", true })
  -- someone installs ms-vllm again: a third run leaves it
  theirs(s)
  r = rerun(s, { UNINSTALL, DELETE_SVC })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(ns_state(s).releases["ms-vllm"], "theirs left")
  t.contains(r.stderr, "run_comparison.sh: run a: release ms-vllm in namespace llm-d-try is not this script's to remove")
end)

t.test("run_comparison.sh does not act while another llmdlua run holds the namespace", function()
  local s = setup()
  local deploy_a = rr.deploy_a(s)
  -- a compare.lua on another host holds it (the ConfigMap as lock_namespace makes it)
  run(s, { "kubectl", "-n", "llm-d-try", "create", "configmap", "llmdlua-lock", "--from-literal=host=elsewhere",
    "--from-literal=pid=4242", "--from-literal=workspace=/w", "--from-literal=script=compare.lua --resume",
    "--from-literal=started=2026-12-06T00:00:00Z", "--from-literal=token=abc" })
  local before = calls(s, "apply %-e istio")
  local r = rerun(s, { deploy_a, UNINSTALL })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr:match("^[^\n]*"), "run_comparison.sh: not acting on namespace llm-d-try: namespace llm-d-try is in "
    .. "use by another llmdlua run (compare.lua --resume, host elsewhere, pid 4242, workspace /w, started "
    .. "2026-12-06T00:00:00Z; ConfigMap llmdlua-lock): two runs in one namespace deploy over and tear down each "
    .. "other's stacks; wait for it to end, or if that run is gone (crashed, another host), release the namespace "
    .. "with: kubectl delete configmap llmdlua-lock -n llm-d-try")
  t.eq(calls(s, "apply %-e istio"), before, "nothing deployed")
  t.ok(ns_state(s).configmaps["llmdlua-lock"], "theirs kept")
  -- the workspace's lock: a process holding it (as compare.lua --resume does) stops the script
  run(s, { "kubectl", "-n", "llm-d-try", "delete", "configmap", "llmdlua-lock" })
  local holder = proc.spawn({ ROOT .. "/llmdlua", "-e", ("assert(require('llmd.workspace').lock(%q, 'compare.lua "
    .. "--resume')); print('held'); io.stdout:flush(); io.read('a')"):format(s.copy) }, { stdin = { pipe = true } })
  t.ok(holder, "holder")
  t.ok(t.wait_for_file(s.copy .. "/.llmdlua.lock", holder), "the holder's lock")
  r = rerun(s, { deploy_a })
  holder:kill()
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:match("^run_comparison%.sh: not acting on namespace llm%-d%-try: " .. s.copy:gsub("%p", "%%%0")
    .. ": in use by another llmdlua process %(compare%.lua %-%-resume, pid %d+"), r.stderr)
  t.eq(calls(s, "apply %-e istio"), before, "nothing deployed")
end)

t.test("run_comparison.sh makes the results PVC, or stops, before deploying", function()
  local s = setup()
  local deploy_a = rr.deploy_a(s)
  -- (the fake deletes a PVC by its resource's full name only)
  run(s, { "kubectl", "-n", "llm-d-try", "delete", "persistentvolumeclaim", "llmd-benchmark-results" })
  -- llmdlua's own name: made as step 60 makes it, before the deploy's helmfile
  local r = rerun(s, { deploy_a })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.contains(r.stdout, "results PVC llmd-benchmark-results made in namespace llm-d-try (ReadWriteMany, 200Gi, as "
    .. "compare.lua makes it): it was not there\n")
  local pvc = json.decode(run(s, { "kubectl", "-n", "llm-d-try", "get", "pvc", "llmd-benchmark-results", "-o",
    "json" }).stdout)
  t.eq({ pvc.metadata.labels["app.kubernetes.io/managed-by"], pvc.spec.accessModes[1] }, { "llmdlua", "ReadWriteMany" })
  local order = {}
  for _, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    local l = table.concat(c.args, " ")
    if l == "-n llm-d-try create -f -" then order[#order + 1] = "pvc" end
    if l:find("apply %-e istio") then order[#order + 1] = "deploy" end
  end
  t.eq({ order[#order - 1], order[#order] }, { "pvc", "deploy" })
  -- another name, absent: stops before the deploy
  local text, n = t.read(s.w .. "/run_comparison.sh"):gsub("\nexport BENCHMARK_PVC=llmd%-benchmark%-results\n",
    "\nexport BENCHMARK_PVC=team-results\n")
  t.eq(n, 1, "BENCHMARK_PVC's line")
  t.write(s.w .. "/run_comparison.sh", text)
  run(s, { "helm", "uninstall", "ms-vllm", "-n", "llm-d-try" })
  local before = calls(s, "apply %-e istio")
  r = rerun(s, { deploy_a })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, "run_comparison.sh: the results PVC team-results is not in namespace llm-d-try: the benchmark would "
    .. "fail after the deploy; create it (ReadWriteMany) or set BENCHMARK_PVC above to one there; not deploying\n")
  t.eq(calls(s, "apply %-e istio"), before, "nothing deployed")
end)

-- A deploy line of the script killed while its command ran (kill -9 of the script, harden54):
-- the helmfile apply went on and installed the release, but the script recorded nothing
-- after it, so its next run called the release "not deployed by this comparison" - its deploy
-- line refused, its teardown line left it - and the stack stayed until removed by hand. The
-- script now records before the command runs that it starts, when, and which of its releases
-- were there; a release it was to install that was not, first deployed since and not
-- upgraded, is the script's own. FAKE_SLOW_DEPLOY holds the fake's helmfile apply once it
-- installed the release.
t.test("run_comparison.sh killed during a deploy line: its next run's teardown removes what that line installed",
  function()
    local s = setup()
    local deploy_a = rr.deploy_a(s)
    t.write(s.copy .. "/run_comparison.sh", rr.uncomment(t.read(s.w .. "/run_comparison.sh"), { deploy_a }))
    local env = { LLMDLUA = ROOT .. "/llmdlua", FAKE_SLOW_DEPLOY = "3" }
    for k, v in pairs(s.env) do if env[k] == nil then env[k] = v end end
    local p = proc.spawn({ "sh", s.copy .. "/run_comparison.sh" }, { env = env, cwd = "/",
      stdout = { file = s.dir .. "/rr.out" }, stderr = { file = s.dir .. "/rr.err" } })
    t.ok(t.wait_for_file(s.cluster .. "/deploy-sleeping", p), "the deploy line ran: " .. t.read(s.dir .. "/rr.err"))
    t.eq(proc.run({ "kill", "-KILL", tostring(p:pid()) }).code, 0, "kill -9")
    p:wait(10)
    proc.run { "sleep", "3.5" } -- (the fake's helmfile ends by itself; the lock holder sees its parent gone)
    t.ok(ns_state(s).releases["ms-vllm"], "the killed line's helmfile installed it")
    local r = rerun(s, { UNINSTALL, DELETE_SVC })
    t.eq(r.code, 0, r.stdout .. r.stderr)
    t.contains(r.stdout, "run a: release ms-vllm removed (where still there)")
    t.lacks(r.stderr, "not this script's to remove")
    t.eq(ns_state(s).releases["ms-vllm"], nil, "removed")
  end)

t.test("run_comparison.sh killed during a deploy line: a release installed again by someone since is left", function()
  local s = setup()
  local deploy_a = rr.deploy_a(s)
  t.write(s.copy .. "/run_comparison.sh", rr.uncomment(t.read(s.w .. "/run_comparison.sh"), { deploy_a }))
  local env = { LLMDLUA = ROOT .. "/llmdlua", FAKE_SLOW_DEPLOY = "3" }
  for k, v in pairs(s.env) do if env[k] == nil then env[k] = v end end
  local p = proc.spawn({ "sh", s.copy .. "/run_comparison.sh" }, { env = env, cwd = "/",
    stdout = { file = s.dir .. "/rr.out" }, stderr = { file = s.dir .. "/rr.err" } })
  t.ok(t.wait_for_file(s.cluster .. "/deploy-sleeping", p), "the deploy line ran")
  t.eq(proc.run({ "kill", "-KILL", tostring(p:pid()) }).code, 0, "kill -9")
  p:wait(10)
  proc.run { "sleep", "3.5" }
  -- someone upgrades it meanwhile (revision 2): not the one the line installed, as it left it
  run(s, { "helm", "upgrade", "ms-vllm", "llm-d-modelservice/llm-d-modelservice", "-n", "llm-d-try" })
  local r = rerun(s, { UNINSTALL, DELETE_SVC })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.contains(r.stderr, "run_comparison.sh: run a: release ms-vllm in namespace llm-d-try is not this script's to remove")
  t.ok(ns_state(s).releases["ms-vllm"], "left")
end)
