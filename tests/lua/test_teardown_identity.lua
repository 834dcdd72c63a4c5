-- Teardown and creation by identity, not by name: "teardown removes what this tool deployed
-- and nothing else". Each object this run made is known by the metadata.uid the API server gave
-- it (read when it was made) and deleted only while its name still holds that object - the
-- DELETE itself carries preconditions.uid (`kubectl delete --raw PATH -f -`, DeleteOptions on
-- stdin), so one made again between a check and the delete is refused by the server
-- (Conflict), not deleted. What llmdlua makes itself (the baseline Service, the results PVC) it
-- makes with `kubectl create`, stamped with this run's id (annotation llmdlua/run): an
-- AlreadyExists is someone else's unless the object read back carries that id (this create's
-- earlier try, whose answer was lost). Against the fake cluster (tests/fakecluster), whose
-- objects get random uids as the API server's do. Expected texts written from the task
-- (harden49 items 1-5), the uids read from the fake's state or kubectl get, not from llmdlua.
local t = require "testlib"
local json = require "llmd.json"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"
local sh = require("llmd.template").helpers.sh -- (a word quoted for a POSIX shell)

local FAKE = t.root() .. "/tests/fakecluster/bin/kubectl"
local BASE = t.root() .. "/tests/fixtures/kubecon-na-2025_vllm"
local TREAT = t.root() .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"
local SVC = "llm-d-baseline-model-server"

-- run A a baseline run (helm router, kustomize folder kz), run B imported results: what
-- run A makes is what is torn down. edit(plan, d) changes the plan.
local function setup(edit)
  local d = t.tmpdir()
  t.sim_guide(d)
  t.mkdir(d .. "/guide/kz")
  t.write(d .. "/guide/kz/kustomization.yaml", "resources: [decode.yaml, role.yaml]\n")
  t.write(d .. "/guide/kz/decode.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ms-decode\n")
  t.write(d .. "/guide/kz/role.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
    .. "metadata: {name: my-role}\nrules: []\n")
  t.write(d .. "/guide/router.values.yaml", "router: {}\n")
  local plan = {
    namespace = "bench", parent = d, timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    runs = {
      a = { label = "vllm-baseline", baseline = true,
        deploy = { method = "custom", guide_dir = d .. "/guide", model = "Qwen/Qwen3-0.6B", kustomize = "kz",
          commands = { { "helm", "upgrade", "--install", "sim", "oci://ghcr.io/llm-d/charts/llm-d-router-standalone",
            "-f", "router.values.yaml" } } },
        benchmark = { template = d .. "/template.yaml", harness = "inference-perf", workload = "sanity_random" } },
      b = { label = "after", existing = { results = TREAT } },
    },
  }
  if edit then edit(plan, d) end
  t.write(d .. "/plan.yaml", yaml.dump(plan))
  local env = t.fake_env(d .. "/cluster", { FAKE_RESULTS = BASE })
  return { dir = d, plan = d .. "/plan.yaml", cluster = d .. "/cluster", env = env }
end

local function state(s) return json.decode(t.read(s.cluster .. "/state.json")).ns.bench end

-- the fake's kubectl, as a user (or a colleague) runs it by hand
local function kubectl(s, args, stdin)
  local argv = { FAKE, "-n", "bench" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  local r = proc.run(argv, { env = s.env, stdin = stdin, timeout = 60 })
  t.eq(r.code, 0, table.concat(argv, " ") .. ": " .. r.stdout .. r.stderr)
  return r.stdout
end

-- run A left deployed (its smoke test failed once: the comparison stops there)
local function left_deployed(s)
  local r = t.fake_compare(s, nil, { FAKE_FAIL_ONCE = "smoke" })
  t.ok(r.code ~= 0, r.stdout)
  return t.workspaces(s.dir)[1]
end

-- A kubectl in the plan's bins that runs hook (a shell snippet) once, before the call whose
-- arguments match the case pattern pat, then is the fake's kubectl: a colleague acting in the
-- namespace at that moment.
local function racing_kubectl(s, pat, hook)
  t.write(s.dir .. "/kubectl", table.concat({
    "#!/bin/sh",
    "case \" $* \" in " .. pat .. ")",
    "  if [ ! -e \"$FAKE_CLUSTER/raced\" ]; then : > \"$FAKE_CLUSTER/raced\"",
    "    " .. hook,
    "  fi;;",
    "esac",
    ("exec %s \"$@\""):format(sh(FAKE)), "" }, "\n"))
  proc.run { "chmod", "+x", s.dir .. "/kubectl" }
  t.write(s.plan, t.read(s.plan) .. "bins: {kubectl: " .. s.dir .. "/kubectl}\n")
end

local THEIR_SVC = "apiVersion: v1\nkind: Service\nmetadata: {name: " .. SVC .. "}\nspec: {selector: {app: other}}\n"

t.test("teardown identity: an object a custom deploy created, made again by someone since, is left and said",
  function()
  local s = setup(function(plan)
    table.insert(plan.runs.a.deploy.commands, { "kubectl", "create", "configmap", "kv-conf", "--from-literal=a=b" })
  end)
  local w = left_deployed(s)
  local mine = state(s).configmaps["kv-conf"].metadata.uid
  t.ok(mine, "the fake gave it a uid")
  -- removed by hand; a colleague makes their own kv-conf
  kubectl(s, { "delete", "configmap", "kv-conf" })
  kubectl(s, { "create", "configmap", "kv-conf", "--from-literal=theirs=1" })
  local theirs = state(s).configmaps["kv-conf"].metadata.uid
  t.ok(theirs ~= mine, "a new uid")
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find(("ConfigMap kv-conf is not the one this run made (uid %s; this run's: %s): left: not the "
    .. "object this run created"):format(theirs, mine), 1, true), r.stdout)
  t.eq(state(s).configmaps["kv-conf"].data, { theirs = "1" }, "theirs kept")
end)

t.test("teardown identity: a kustomize object made again by someone since the apply is left and said", function()
  local s = setup()
  local w = left_deployed(s)
  local rec = json.read(w .. "/run-a/deployed.json").kustomize_objects.kz
  local mine
  for _, o in ipairs(rec) do if o.kind == "Role" then mine = o.uid end end
  t.ok(mine, "the Role's uid recorded at apply")
  kubectl(s, { "delete", "role", "my-role" })
  kubectl(s, { "apply", "-f", "-" }, "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
    .. "metadata: {name: my-role}\nrules: []\n")
  local theirs = json.decode(kubectl(s, { "get", "role", "my-role", "-o", "json" })).metadata.uid
  t.ok(theirs and theirs ~= mine, tostring(theirs))
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find(("Role my-role is not the one this run made (uid %s; this run's: %s): left: not the object "
    .. "this run created"):format(theirs, mine), 1, true), r.stdout)
  t.ok(state(s).other["Role/my-role"] ~= nil, "their Role kept")
  t.eq(state(s).deployments["ms-decode"], nil, "this run's Deployment deleted")
end)

t.test("teardown identity: kubectl api-resources exiting 1 after its list (an aggregated API down) still holds "
  .. "deletes to their uids", function()
  -- real kubectl prints every group it could list, then "unable to retrieve the complete list
  -- of server APIs" and exits 1, whenever one aggregated API (a metrics-server) does not answer:
  -- the groups it listed are still read (before: every delete went by name, unsaid)
  local s = setup()
  local w = left_deployed(s)
  local mine
  for _, o in ipairs(json.read(w .. "/run-a/deployed.json").kustomize_objects.kz) do
    if o.kind == "Role" then mine = o.uid end
  end
  kubectl(s, { "delete", "role", "my-role" })
  kubectl(s, { "apply", "-f", "-" }, "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
    .. "metadata: {name: my-role}\nrules: []\n")
  local theirs = json.decode(kubectl(s, { "get", "role", "my-role", "-o", "json" })).metadata.uid
  s.env.FAKE_API_DOWN = "1"
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find(("Role my-role is not the one this run made (uid %s; this run's: %s): left"):format(theirs,
    mine), 1, true), r.stdout)
  t.ok(state(s).other["Role/my-role"] ~= nil, "their Role kept")
end)

t.test("teardown identity: the baseline Service made again between the check and the delete is not deleted",
  function()
  local s = setup()
  -- right before teardown's delete of the Service (by name or raw), a colleague replaces it
  racing_kubectl(s, "*' delete '*" .. SVC .. "*", ("%s -n bench delete service %s >/dev/null; printf '%%s' %s | %s "
    .. "-n bench apply -f - >/dev/null"):format(sh(FAKE), SVC, sh(THEIR_SVC), sh(FAKE)))
  local r = t.fake_compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local mine = json.read(w .. "/run-a/deployed.json").uids.services[SVC]
  local now = state(s).services[SVC]
  t.ok(now, r.stdout)
  t.eq(now.selector, { app = "other" }, "their Service kept")
  t.ok(r.stdout:find(("Service %s is not the one this run made (uid %s; this run's: %s): left"):format(SVC, now.uid,
    mine), 1, true), r.stdout)
  -- the delete carried the uid recorded when the Service was made
  local sent
  for _, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    if c.tool == "kubectl" and table.concat(c.args, " "):find("delete --raw /api/v1/namespaces/bench/services/" .. SVC,
      1, true) then sent = json.decode(c.stdin) end
  end
  t.eq(sent and sent.preconditions, { uid = mine })
end)

t.test("teardown identity: a results PVC create whose answer was lost is this run's on the retry", function()
  local s = t.try_setup { parent = "." }
  local r = t.fake_compare(s, nil, { FAKE_FAIL_ONCE = "create_lost_persistentvolumeclaim" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local id = json.read(w .. "/run-a/deployed.json").run_id
  t.ok(r.stdout:find("results PVC llmd-benchmark-results: made by this run's create, whose answer was lost (it "
    .. "carries this run's id, llmdlua/run=" .. tostring(id) .. "); ReadWriteMany, 200Gi, for the results (no Bound "
    .. "ReadWriteMany PVC in llm-d-try)\n", 1, true), r.stdout)
  -- (said once: one event, one line - harden50 3: it was said again as "created PVC ...")
  local lines = {}
  for l in r.stdout:gmatch("[^\n]+") do
    if l:find("llmd-benchmark-results", 1, true) and l:find("creat", 1, true) then lines[#lines + 1] = l end
  end
  t.eq(#lines, 1, table.concat(lines, "\n"))
  local pvc = json.decode(json.encode(json.decode(t.read(s.cluster .. "/state.json")).ns["llm-d-try"].objmeta))
  t.eq(pvc["PersistentVolumeClaim/llmd-benchmark-results"].annotations, { ["llmdlua/run"] = id })
end)

t.test("teardown identity: the baseline Service is created, never applied over one made since llmdlua looked",
  function()
  local s = setup()
  -- right after llmdlua's read of the Service (none there), a colleague makes theirs
  racing_kubectl(s, "*' get svc " .. SVC .. " '*", ("%s -n bench get svc %s >/dev/null 2>&1 || printf '%%s' %s | %s "
    .. "-n bench apply -f - >/dev/null"):format(sh(FAKE), SVC, sh(THEIR_SVC), sh(FAKE)))
  -- (the hook runs before the get: the get itself must see none, so it runs after it)
  t.write(s.dir .. "/kubectl", (t.read(s.dir .. "/kubectl"):gsub("    (.-)\n  fi;;",
    function(hook) return ("    %s \"$@\"; rc=$?\n    %s\n    exit $rc\n  fi;;"):format(sh(FAKE), hook) end)))
  local r = t.fake_compare(s, { "--plan", s.plan, "--quiet" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("run a: service " .. SVC .. " was made by someone else in bench after llmdlua found none; it "
    .. "may select another stack's pods (delete it, or use a namespace of its own)", 1, true), r.stdout)
  t.eq(state(s).services[SVC].selector, { app = "other" }, "their Service as they made it")
  -- and its create's answer lost: the retry's AlreadyExists is this run's own Service
  s = setup()
  r = t.fake_compare(s, nil, { FAKE_FAIL_ONCE = "create_lost_service" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local verbs = {}
  for _, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    if c.tool == "kubectl" and c.stdin and c.stdin:find("name: " .. SVC, 1, true) then verbs[#verbs + 1] = c.args[3] end
  end
  t.eq(verbs, { "create", "create" }, "created, sent again once")
end)

t.test("teardown identity: the baseline Service's uid is its create's answer's, not a later read's", function()
  -- (harden50 2: the uid was read by a get after the create, so a colleague's Service made
  -- under the name in between - this run's removed meanwhile - was recorded as this run's,
  -- and teardown would delete it. Now `kubectl create -o json`'s answer names it.) A kubectl
  -- in the plan's bins that, at the first `get svc` after this run's Service is there (it
  -- carries llmdlua/run), has a colleague replace it with theirs.
  local s = setup()
  t.write(s.dir .. "/kubectl", table.concat({
    "#!/bin/sh",
    "case \" $* \" in *' get svc " .. SVC .. " '*)",
    ("  if [ ! -e \"$FAKE_CLUSTER/raced\" ] && %s -n bench get svc %s -o json 2>/dev/null | grep -q llmdlua/run; then")
      :format(sh(FAKE), SVC),
    "    : > \"$FAKE_CLUSTER/raced\"",
    ("    %s -n bench delete service %s >/dev/null"):format(sh(FAKE), SVC),
    ("    printf '%%s' %s | %s -n bench apply -f - >/dev/null"):format(sh(THEIR_SVC), sh(FAKE)),
    "  fi;;",
    "esac",
    ("exec %s \"$@\""):format(sh(FAKE)), "" }, "\n"))
  proc.run { "chmod", "+x", s.dir .. "/kubectl" }
  t.write(s.plan, t.read(s.plan) .. "bins: {kubectl: " .. s.dir .. "/kubectl}\n")
  local r = t.fake_compare(s)
  local now = state(s).services[SVC]
  t.ok(now and now.selector and now.selector.app == "other", "their Service kept: " .. r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local mine = json.read(w .. "/run-a/deployed.json").uids.services[SVC]
  t.ok(mine and mine ~= now.uid, "recorded " .. tostring(mine) .. ", theirs " .. tostring(now.uid))
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find(("Service %s is not the one this run made (uid %s; this run's: %s): left"):format(SVC, now.uid,
    mine), 1, true), r.stdout)
end)

t.test("teardown identity: a resumed run of an older workspace (no Service uid recorded) knows its own baseline "
  .. "Service", function()
  -- (harden50 4: a workspace of llmdlua before uids were recorded has none for the Service,
  -- which carries no run id either; a later step of the resume draws the run's id, and the
  -- Service was then refused as "not created by this run". Its own is known by the id on it
  -- or - made before ids were stamped - by llmdlua's label; anything else is refused saying
  -- exactly why and what to do.)
  local s = setup()
  local w = left_deployed(s)
  local function older(strip)
    local rec = json.read(w .. "/run-a/deployed.json")
    rec.uids = nil
    rec.run_id = "drawn-on-resume"
    json.write(w .. "/run-a/deployed.json", rec)
    local st = json.decode(t.read(s.cluster .. "/state.json"))
    local m = st.ns.bench.objmeta["Service/" .. SVC]
    m.annotations = nil
    if strip then m.labels = nil end
    t.write(s.cluster .. "/state.json", json.encode(st))
    -- (step 40 to do again: as a resume whose step 40 had not completed)
    local steps = {}
    for _, o in ipairs(json.read(w .. "/steps.json")) do if o.number ~= 40 then steps[#steps + 1] = o end end
    json.write(w .. "/steps.json", json.array(steps))
    return m.uid
  end
  local uid = older()
  local r = t.fake_compare(s, { "--resume", w, "--step", "40" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find(("service %s: this run's (made before llmdlua stamped a run's id on it: labelled "
    .. "app.kubernetes.io/managed-by=llmdlua), recorded by its uid %s"):format(SVC, uid), 1, true), r.stdout)
  t.eq(json.read(w .. "/run-a/deployed.json").uids.services[SVC], uid)
  t.eq(state(s).services[SVC].uid, uid, "the same Service, kept")
  -- without llmdlua's label either: not told from another's - refused, saying why and what to do
  older(true)
  r = t.fake_compare(s, { "--resume", w, "--step", "40" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find(("run a: service %s already exists in bench and carries no run's id (llmdlua/run) and no label "
    .. "app.kubernetes.io/managed-by=llmdlua, and this run recorded no uid for its Service (a workspace of an older "
    .. "llmdlua), so it cannot be told from another's; if it is this run's, delete it (kubectl -n bench delete service "
    .. "%s) and resume: it is made again"):format(SVC, SVC), 1, true), r.stdout)
end)

t.test("teardown identity: pods of a ReplicaSet named as this run's but made since (another's Deployment of the "
  .. "same name) are not this run's leftovers", function()
  -- (harden50 5: pods were matched to this run's controllers by the owner's name; a
  -- Deployment deleted and made again under its name and template has a ReplicaSet of the
  -- same name - the template's hash - but a new uid, which the pods' ownerReferences carry.)
  local s = setup()
  local w = left_deployed(s)
  local rec = json.read(w .. "/run-a/deployed.json")
  t.ok(rec.pod_owner_uids and #rec.pod_owner_uids > 0, "the owners' uids recorded once ready")
  local function pods_of(dep)
    local out = {}
    for _, p in ipairs(json.decode(kubectl(s, { "get", "pods", "-o", "json" })).items) do
      if p.metadata.name:find(dep .. "-", 1, true) == 1 then out[#out + 1] = p end
    end
    return out
  end
  local mine = pods_of("ms-decode")
  t.ok(#mine > 0, "this run's ms-decode pods")
  -- removed by hand; a colleague makes their own ms-decode, serving the same labels
  kubectl(s, { "delete", "deployment", "ms-decode" })
  kubectl(s, { "apply", "-f", "-" }, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ms-decode}\n"
    .. "spec:\n  replicas: 1\n  template:\n    metadata:\n      labels: {llm-d.ai/inference-serving: 'true', "
    .. "app: theirs}\n")
  local theirs = pods_of("ms-decode")
  t.eq(#theirs, 1)
  local ref = theirs[1].metadata.ownerReferences[1]
  t.eq(ref.name, mine[1].metadata.ownerReferences[1].name, "their ReplicaSet has this run's one's name")
  t.ok(ref.uid ~= mine[1].metadata.ownerReferences[1].uid, "under another uid")
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(not r.stdout:find("teardown left pod", 1, true), r.stdout)
  t.eq(#pods_of("ms-decode"), 1, "their pod kept")
end)

-- harden51 #3: a custom deploy applies an Istio Gateway (networking.istio.io) named sim-gw; during
-- the deploy another team makes a Gateway API Gateway of that very name and an Istio Gateway of
-- their own. The fake now keeps Istio's kind apart, as the API server does; before, llmdlua
-- matched what it applied by kind without the group, took their Gateway API sim-gw for its own
-- and deleted it by name, and skipped deleting its own Istio sim-gw (taking it for the one
-- deleted) while saying it had. Teardown removes its Istio Gateway, held to its uid, and
-- nothing of theirs.
t.test("teardown identity: an Istio Gateway the deploy applied is removed; a Gateway API one of its name is not",
  function()
  local s = setup(function(plan, d)
    t.write(d .. "/guide/istio-gw.yaml", "apiVersion: networking.istio.io/v1beta1\nkind: Gateway\nmetadata:\n"
      .. "  name: sim-gw\nspec:\n  selector: {istio: ingressgateway}\n")
    table.insert(plan.runs.a.deploy.commands, { "kubectl", "apply", "-f", "istio-gw.yaml" })
  end)
  local r = t.fake_compare(s, nil, { FAKE_CONCURRENT_OBJECTS = "Gateway/sim-gw,Gateway.networking.istio.io/their-gw",
    FAKE_CONCURRENT_AT = "helm" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local st = state(s)
  -- theirs: the Gateway API Gateway sim-gw and the Istio Gateway their-gw, still there
  t.ok(st.gateways["sim-gw"] ~= nil, "their Gateway API sim-gw kept")
  t.eq(st.other["Gateway.networking.istio.io/their-gw"], "someone", "their Istio Gateway kept")
  -- ours: the Istio sim-gw, gone, by a DELETE held to its uid (Istio's group in the path)
  t.eq(st.other["Gateway.networking.istio.io/sim-gw"], nil, "this run's Istio Gateway removed")
  local deletes = {}
  for _, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    local line = table.concat(c.args, " ")
    if c.tool == "kubectl" and line:find("delete", 1, true) and line:find("gateway", 1, true) then
      deletes[#deletes + 1] = line
    end
  end
  t.eq(deletes, { "-n bench delete --raw /apis/networking.istio.io/v1/namespaces/bench/gateways/sim-gw -f -" })
  t.ok(r.stdout:find("removed what this run deployed (releases: sim; routes: none; gateways: none;", 1, true), r.stdout)
  t.ok(r.stdout:find("deleted what its kubectl made: gateway.networking.istio.io/sim-gw", 1, true), r.stdout)
end)
