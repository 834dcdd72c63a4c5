-- A comparison killed (kill -9: no Lua code runs after it) while its deploy command ran
-- (harden54): the helmfile apply goes on and installs the stack, but deployed.json said only
-- what was in the namespace before, not that the deploy had started. The workspace's own
-- teardown (--resume W --step 90) then removed nothing and failed with "teardown left pod
-- ...", and a fresh comparison called the stack "someone else's". The deploy now records
-- that it started (and when) before its command runs, and the teardown tells its releases
-- as a finished deploy does (not there before, among those its helmfile installs), held to
-- more: first deployed since the deploy started and never upgraded. Someone else's release
-- that was in the namespace before stays. On the fake cluster (FAKE_SLOW_DEPLOY holds the
-- first helmfile apply once it installed the releases); the expected texts are written by
-- hand from the task.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local k8s = require "llmd.k8s"

local FAKEBIN = t.root() .. "/tests/fakecluster/bin"

-- the releases of namespace llm-d-try, as `helm list` (the fake's) names them
local function releases(s)
  local r = proc.run({ FAKEBIN .. "/helm", "list", "-n", "llm-d-try", "--short" }, { env = s.env })
  t.eq(r.code, 0, r.stderr)
  local out = {}
  for l in r.stdout:gmatch("[^\n]+") do out[#out + 1] = l end
  table.sort(out)
  return table.concat(out, " ")
end

-- compare.lua --plan, killed by SIGKILL once the fake's helmfile apply has installed the
-- stack (and sleeps, as one waiting for its last pods would): returns the workspace
local function killed_in_deploy(s)
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.FAKE_SLOW_DEPLOY = "4"
  local p = proc.spawn({ t.root() .. "/llmdlua", "compare.lua", "--yes", "--plan", s.plan },
    { env = env, cwd = s.dir, stdout = { file = s.dir .. "/killed.out" }, stderr = { file = s.dir .. "/killed.err" } })
  t.ok(t.wait_for_file(s.cluster .. "/deploy-sleeping", p), "the deploy ran")
  t.eq(proc.run({ "kill", "-KILL", tostring(p:pid()) }).code, 0, "kill -9")
  p:wait(10)
  -- (the fake's helmfile, a child in its own group, ends by itself once its sleep is over)
  proc.run { "sleep", "4.5" }
  return t.workspaces(s.dir)[1]
end

t.test("a comparison killed during its deploy: a fresh run names it, its --step 90 removes its stack alone", function()
  -- someone else's release in the namespace before (FAKE_RELEASES=1: other-000)
  local s = t.try_setup { parent = ".", env = { FAKE_RELEASES = "1" } }
  local w1 = killed_in_deploy(s)
  t.ok(w1, "the killed comparison's workspace")
  t.eq(releases(s), "gaie-try infra-try ms-try other-000", "the killed run's helmfile installed its stack")
  local rec = json.read(w1 .. "/run-a/deployed.json")
  t.eq(type(rec.deploying), "table", "the record says the deploy started")
  -- a fresh comparison: refused, naming the killed one and its teardown (not "someone else's")
  proc.run { "sleep", "1.1" } -- (the next workspace's name holds the time to the second)
  local r = t.fake_compare(s, nil, nil, s.dir)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local down = k8s.cmdline { "llmdlua", "compare.lua", "--resume", w1, "--step", "90" }
  t.contains(r.stdout, "already exist in namespace llm-d-try: they are the stack run A of the comparison " .. w1
    .. " deployed and has not torn down (its run-a/deployed.json records its deploy starting at " .. rec.deploying.started
    .. ", stopped before it recorded what it made: a kill -9 or a crash); deploying may change it; tear it down "
    .. "with " .. down .. " ")
  t.lacks(r.stdout, "someone else's")
  -- its teardown removes its three releases, and only those
  r = t.fake_compare(s, { "--resume", w1, "--step", "90" }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  for _, n in ipairs { "gaie-try", "infra-try", "ms-try" } do
    t.contains(r.stdout, "  release " .. n .. ": installed by this run's deploy, which was interrupted ("
      .. rec.deploying.started .. ") before it recorded it: not in llm-d-try before it, first deployed ")
  end
  t.lacks(r.stdout, "teardown left")
  t.eq(releases(s), "other-000", "the user's release stays, the killed run's are gone")
  t.eq(json.read(w1 .. "/run-a/deployed.json").deploying, nil, "recorded: nothing pending")
end)

t.test("a killed deploy's teardown leaves a release of its name that was upgraded since", function()
  local s = t.try_setup { parent = "." }
  local w1 = killed_in_deploy(s)
  -- someone upgrades ms-try meanwhile (revision 2): no longer known as the killed run's
  local r = proc.run({ FAKEBIN .. "/helm", "upgrade", "ms-try", "llm-d-modelservice/llm-d-modelservice", "-n",
    "llm-d-try" }, { env = s.env })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  r = t.fake_compare(s, { "--resume", w1, "--step", "90" }, nil, s.dir)
  t.contains(r.stdout, "  release ms-try is not known as this run's: its deploy was interrupted before it recorded what "
    .. "it made, and the release was upgraded since (revision 2): left (uninstall it by hand if it is yours: helm "
    .. "uninstall ms-try -n llm-d-try)\n")
  t.eq(releases(s), "ms-try", "the two of its own removed, the upgraded one left")
end)

-- harden55 #1: a custom deploy killed (kill -9) before or after each of its creates - kubectl
-- create configmap, kubectl apply -f, the kustomization's apply -k -: its objects were not
-- recorded (only releases were recovered), so --step 90 left them, and its verification
-- failed on their pods ("teardown left pod ..."). Now the deploy records, before each call,
-- the objects it may create by name that are not there; teardown takes as this run's those
-- there now that were created since the deploy started, and deletes them by uid. An object
-- someone made before (theirs-conf), and one the manifest names that was already there
-- (shared-conf: apply configures it), stay. The kill is the plan's kubectl (a wrapper of the
-- fake's) sending SIGKILL to its caller, the comparison, before or after the call matching a
-- pattern, once. Expected sets written by hand from the plan below.
local yaml = require "llmd.yaml"
local FAKE_KUBECTL = FAKEBIN .. "/kubectl"

local function custom_setup(when, pat)
  local d = proc.realpath(t.tmpdir())
  t.sim_guide(d)
  t.mkdir(d .. "/guide/kz")
  t.write(d .. "/guide/kz/kustomization.yaml", "resources: [decode.yaml, role.yaml]\n")
  t.write(d .. "/guide/kz/decode.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ms-decode\n")
  t.write(d .. "/guide/kz/role.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
    .. "metadata: {name: my-role}\nrules: []\n")
  t.write(d .. "/guide/router.values.yaml", "router: {}\n")
  t.write(d .. "/guide/extra.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: extra-dep}\n"
    .. "spec: {replicas: 1, selector: {matchLabels: {app: extra}}, template: {metadata: {labels: {app: extra}}, "
    .. "spec: {containers: [{name: c, image: x}]}}}\n---\napiVersion: v1\nkind: ConfigMap\n"
    .. "metadata: {name: shared-conf}\ndata: {k: ours}\n")
  -- the kubectl of the plan: the fake's, killing its caller once around the matching call;
  -- its first create a second after the deploy started (its helm install first), as a real
  -- deploy's come: one made in the very second the deploy started is not told as its own
  local kill = 'kill -KILL "$PPID"'
  t.write(d .. "/kubectl", table.concat({
    "#!/bin/sh",
    "case \" $* \" in *\"create configmap kv-conf\"*) sleep 1.1;; esac",
    "case \" $* \" in *\"" .. pat .. "\"*)",
    "  if [ ! -e \"$FAKE_CLUSTER/killed\" ]; then : > \"$FAKE_CLUSTER/killed\"",
    when == "before" and ("    " .. kill .. "; exit 137") or
      ("    " .. require("llmd.template").helpers.sh(FAKE_KUBECTL) .. ' "$@"; rc=$?; ' .. kill .. '; exit $rc'),
    "  fi;;",
    "esac",
    ("exec %s \"$@\""):format(require("llmd.template").helpers.sh(FAKE_KUBECTL)), "" }, "\n"))
  proc.run { "chmod", "+x", d .. "/kubectl" }
  local plan = {
    namespace = "bench", parent = d, timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    bins = { kubectl = d .. "/kubectl" },
    runs = {
      a = { label = "custom", baseline = true,
        deploy = { method = "custom", guide_dir = d .. "/guide", model = "Qwen/Qwen3-0.6B", kustomize = "kz",
          commands = { { "helm", "upgrade", "--install", "sim", "oci://ghcr.io/llm-d/charts/llm-d-router-standalone",
            "-f", "router.values.yaml" }, { "kubectl", "create", "configmap", "kv-conf", "--from-literal=a=b" },
            { "kubectl", "apply", "-f", "extra.yaml" } } },
        benchmark = { template = d .. "/template.yaml", harness = "inference-perf", workload = "sanity_random" } },
      b = { label = "after", existing = { results = t.root() .. "/tests/fixtures/kubecon-na-2025_vllm" } },
    },
  }
  t.write(d .. "/plan.yaml", yaml.dump(plan))
  return { dir = d, plan = d .. "/plan.yaml", cluster = d .. "/cluster",
    env = t.fake_env(d .. "/cluster", { FAKE_RESULTS = t.root() .. "/tests/fixtures/kubecon-na-2025_vllm" }) }
end

-- the releases of namespace bench
local function releases_of(s)
  local r = proc.run({ FAKEBIN .. "/helm", "list", "-n", "bench", "--short" }, { env = s.env })
  t.eq(r.code, 0, r.stderr)
  return (r.stdout:gsub("\n$", ""):gsub("\n", " "))
end

-- the names of KIND in namespace bench (the fake's kubectl, by hand)
local function names(s, kind)
  local r = proc.run({ FAKE_KUBECTL, "-n", "bench", "get", kind, "-o", "name" }, { env = s.env })
  t.eq(r.code, 0, r.stderr)
  local out = {}
  for l in r.stdout:gmatch("[^\n]+") do
    if not l:find("llmdlua%-lock") then out[#out + 1] = l:match("/(.*)$") end
  end
  table.sort(out)
  return table.concat(out, " ")
end

t.test("a custom deploy killed before or after each create: --step 90 removes what it made, and only that",
  function()
  for _, point in ipairs {
    { "before", "create configmap kv-conf", made = {} },
    { "after", "create configmap kv-conf", made = { "ConfigMap kv-conf" } },
    { "before", "apply -f extra.yaml", made = { "ConfigMap kv-conf" } },
    { "after", "apply -f extra.yaml", made = { "ConfigMap kv-conf", "Deployment extra-dep" } },
    { "before", "apply -k kz", made = { "ConfigMap kv-conf", "Deployment extra-dep" } },
    { "after", "apply -k kz", made = { "ConfigMap kv-conf", "Deployment extra-dep", "Deployment ms-decode",
      "Role my-role" } },
  } do
    local what = point[1] .. " " .. point[2]
    local s = custom_setup(point[1], point[2])
    -- someone else's ConfigMaps, there before: one of their own name, one the manifest names
    proc.run({ FAKE_KUBECTL, "create", "namespace", "bench" }, { env = s.env })
    for _, n in ipairs { "theirs-conf", "shared-conf" } do
      local r = proc.run({ FAKE_KUBECTL, "-n", "bench", "create", "configmap", n, "--from-literal=k=theirs" },
        { env = s.env })
      t.eq(r.code, 0, r.stderr)
    end
    -- (a second on: creationTimestamp is to the second, and one created in the second the deploy
    -- starts is neither before nor after it - the same-second case is the test below)
    proc.run { "sleep", "1.1" }
    local r = proc.run({ t.root() .. "/llmdlua", "compare.lua", "--yes", "--plan", s.plan },
      { env = s.env, cwd = s.dir, timeout = 120 })
    t.eq(r.signal, 9, what .. ": killed: " .. r.stdout .. r.stderr)
    local w = t.workspaces(s.dir)[1]
    t.eq(type(json.read(w .. "/run-a/deployed.json").deploying), "table", what .. ": the deploy's start recorded")
    r = t.fake_compare(s, { "--resume", w, "--step", "90" }, nil, s.dir)
    t.eq(r.code, 0, what .. ": " .. r.stdout .. r.stderr)
    t.lacks(r.stdout, "teardown left")
    for _, m in ipairs(point.made) do
      t.contains(r.stdout, "  " .. m .. ": made by this run's deploy, which was interrupted (", what)
    end
    local _, n = r.stdout:gsub(": made by this run's deploy, which was interrupted %(", "")
    t.eq(n, #point.made, what .. ": " .. r.stdout)
    -- what it made is gone; theirs stay, shared-conf as they made it
    t.eq(names(s, "configmaps"), "shared-conf theirs-conf", what)
    t.eq(names(s, "deployments"), "", what)
    t.eq(names(s, "roles"), "", what)
    t.eq(releases_of(s), "", what)
  end
end)

-- harden55 #1: a killed deploy whose releases are all refused (each upgraded by someone since:
-- not provably this run's) recorded nothing as this run's, so its teardown counted every pod
-- that appeared since as its own and failed ("teardown left pod ..."), though the pods are
-- those releases', which it leaves. The pods are told by their chain of owners now.
t.test("a killed deploy whose releases are all refused: teardown leaves them and their pods, and succeeds", function()
  local s = t.try_setup { parent = "." }
  local w1 = killed_in_deploy(s)
  for _, rel in ipairs { { "gaie-try", "inferencepool" }, { "infra-try", "llm-d-infra" },
    { "ms-try", "llm-d-modelservice" } } do
    local r = proc.run({ FAKEBIN .. "/helm", "upgrade", rel[1], rel[2] .. "/" .. rel[2], "-n", "llm-d-try" },
      { env = s.env })
    t.eq(r.code, 0, r.stdout .. r.stderr)
  end
  local r = t.fake_compare(s, { "--resume", w1, "--step", "90" }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.lacks(r.stdout, "teardown left")
  for _, n in ipairs { "gaie-try", "infra-try", "ms-try" } do
    t.contains(r.stdout, "  release " .. n .. " is not known as this run's: its deploy was interrupted before it "
      .. "recorded what it made, and the release was upgraded since (revision 2): left")
  end
  t.eq(releases(s), "gaie-try infra-try ms-try", "all three left, as someone else's")
end)

-- harden56 #1: creationTimestamp is to the second, so an object someone else made in the very
-- second a deploy started was taken as that deploy's when it was killed before recording what
-- it made, and its teardown deleted it. Now one made in that second is left and named, with
-- the command that deletes it (namespace-scoped); one made in a later second is the deploy's.
-- Someone's kv-conf is made here in the deploy's start second (FAKE_NOW: the fake's clock),
-- after the kill came before the deploy's own create. Expected texts written by hand.
local function killed_custom(when, pat)
  local s = custom_setup(when, pat)
  local r = proc.run({ t.root() .. "/llmdlua", "compare.lua", "--yes", "--plan", s.plan },
    { env = s.env, cwd = s.dir, timeout = 120 })
  t.eq(r.signal, 9, "killed: " .. r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  return s, w, json.read(w .. "/run-a/deployed.json")
end

t.test("killed deploy: someone's object made in the second its deploy started is left and named", function()
  local s, w, rec = killed_custom("before", "create configmap kv-conf")
  local started = rec.deploying.started
  t.ok(started:match("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.%d%d%d%d%d%dZ$"), "to the microsecond: " .. started)
  -- someone's kv-conf, made in the second the deploy started (the name its create was to make)
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.FAKE_NOW = started:sub(1, 19) .. "Z"
  local r = proc.run({ FAKE_KUBECTL, "-n", "bench", "create", "configmap", "kv-conf", "--from-literal=k=theirs" },
    { env = env })
  t.eq(r.code, 0, r.stderr)
  r = t.fake_compare(s, { "--resume", w, "--step", "90" }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.contains(r.stdout, "  ConfigMap kv-conf: cannot tell whether this run's interrupted deploy made it: its deploy "
    .. "was interrupted before it recorded what it made, and it was created " .. env.FAKE_NOW .. ", in the second "
    .. "that deploy started (" .. started .. "; the API server records creation to the second), so "
    .. "someone else's made just before it is as likely: left (delete it by hand if it is yours: "
    .. s.dir .. "/kubectl -n bench delete configmap kv-conf)\n")
  t.lacks(r.stdout, "made by this run's deploy")
  t.lacks(r.stdout, "teardown left")
  t.eq(names(s, "configmaps"), "kv-conf", "someone's kv-conf stays")
  t.eq(releases_of(s), "", "the deploy's release, first deployed after it started, removed")
end)

-- The same for a release: one first deployed in the second an older llmdlua recorded as the
-- deploy's start (to the second) is left and named; the ConfigMap its deploy made a second
-- later (the plan's kubectl waits 1.1 s) is the deploy's and removed.
t.test("killed deploy, start recorded to the second: a release of that second is left, a later object taken",
  function()
  local s, w, rec = killed_custom("after", "create configmap kv-conf")
  local st = proc.run({ FAKEBIN .. "/helm", "status", "sim", "-n", "bench", "-o", "json" }, { env = s.env })
  t.eq(st.code, 0, st.stderr)
  local first = json.decode(st.stdout).info.first_deployed
  rec.deploying.started = first:sub(1, 19) .. "Z"
  json.write(w .. "/run-a/deployed.json", rec)
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.contains(r.stdout, "  release sim: cannot tell whether this run's interrupted deploy installed it: its deploy was "
    .. "interrupted before it recorded what it made, and the release was first deployed " .. first .. ", too close "
    .. "to when that deploy started (" .. rec.deploying.started .. ") to tell which came first: left (uninstall it "
    .. "by hand if it is yours: helm uninstall sim -n bench)\n")
  t.contains(r.stdout, "  ConfigMap kv-conf: made by this run's deploy, which was interrupted (" .. rec.deploying.started
    .. ") before it recorded it: named by its commands, created ")
  t.lacks(r.stdout, "teardown left")
  t.eq(names(s, "configmaps"), "", "the deploy's kv-conf removed")
  t.eq(releases_of(s), "sim", "the release of the start's second stays")
end)
