-- compare.lua on a cluster, against the fake cluster in tests/fakecluster/ (kubectl, helm,
-- helmfile, oc and run_only.sh stand-ins that keep state on disk and log every call);
-- also the cluster layer (llmd.k8s) and the step executor (llmd.steps) on their own.
-- Expected command sequences are written out from the procedures in
-- ../shared/reference/llmd-benchmark.md (deploy, run_only.sh, teardown, compare).
local t = require "testlib"
local json = require "llmd.json"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"
local lfs = require "lfs"
local k8s = require "llmd.k8s"
local steps = require "llmd.steps"
local cluster = require "llmd.cluster"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local FAKEBIN = ROOT .. "/tests/fakecluster/bin"
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local TREAT = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

-- A scratch setup: a guide folder (helmfile.yaml and a kustomize model server), the real
-- benchmark template, a plan; returns {dir, plan_path, cluster, env}.
local function setup(edit)
  local d = t.tmpdir()
  t.sim_guide(d)
  t.mkdir(d .. "/guide/ms")
  -- the model server: a Deployment ms-decode (the fake starts two vLLM pods for it)
  t.write(d .. "/guide/ms/kustomization.yaml", "resources:\n  - decode.yaml\n")
  t.write(d .. "/guide/ms/decode.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ms-decode\n")
  t.write(d .. "/guide/router.values.yaml", "router: {}\n")
  local plan = {
    namespace = "bench", parent = d,
    timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    runs = {
      a = { label = "vllm-baseline", baseline = true,
        deploy = { method = "helm", guide_dir = d .. "/guide", release = "sim",
          chart = "oci://ghcr.io/llm-d/charts/llm-d-router-standalone", values = { "router.values.yaml" },
          kustomize = "ms", model = "Qwen/Qwen3-0.6B" },
        benchmark = { template = d .. "/template.yaml", harness = "inference-perf", workload = "sanity_random" } },
      b = { label = "llm-d-scheduler",
        deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio",
          model = "Qwen/Qwen3-0.6B", gateway = "istio" },
        benchmark = { template = d .. "/template.yaml", harness = "inference-perf", workload = "sanity_random" } },
    },
  }
  if edit then edit(plan, d) end
  t.write(d .. "/plan.yaml", yaml.dump(plan))
  -- (with a kube context, as a user's kubeconfig has: which cluster a workspace was made in
  -- is known; test_cluster_safety.lua runs without one)
  local env = t.fake_env(d .. "/cluster")
  return { dir = d, plan = d .. "/plan.yaml", cluster = d .. "/cluster", env = env }
end

-- compare.lua without --quiet (which leaves out the progress lines these tests read): its
-- progress lines
local compare = t.fake_compare

local function workspace(s) return t.workspaces(s.dir)[1] end

-- a Deployment's pod name as the controllers make it: <deployment>-<10 characters of the
-- pod template's hash>-<5 random characters>, in Kubernetes' alphabet (SafeEncodeString)
local SAFE = "[bcdfghjklmnpqrstvwxz2456789]"
local POD_SUFFIX = "%-" .. SAFE:rep(10) .. "%-" .. SAFE:rep(5) .. "%f[^%w]"

-- the pods of Deployment dname in namespace ns of the fake's state, sorted by name
local function pods_of(st, ns, dname)
  local out = {}
  for n, p in pairs(st.ns[ns].pods) do if p.deploy == dname then out[#out + 1] = n end end
  table.sort(out)
  return out
end

local function calls(s) return t.jsonl(s.cluster .. "/calls.log") end

-- "tool arg arg" for each call, workspace paths masked
local function call_lines(s, w)
  local out = {}
  for _, c in ipairs(calls(s)) do
    local l = c.tool .. " " .. table.concat(c.args, " ")
    l = l:gsub(w:gsub("%p", "%%%0"), "<ws>"):gsub(s.dir:gsub("%p", "%%%0"), "<dir>")
    l = l:gsub("svc/([%w%-]+) %d+:", "svc/%1 <port>:"):gsub("inference%-perf_%d+_", "inference-perf_<id>_")
    l = l:gsub(POD_SUFFIX, "-<pod>")
    -- (the namespace lock's holder: this host, pid, time, random token, machine, boot, PID
    -- namespace and the process's start)
    for _, k in ipairs { "host", "pid", "started", "token", "machine", "boot", "pidns", "pstart" } do
      l = l:gsub("(%-%-from%-literal=" .. k .. "=)%S*", "%1<" .. k .. ">")
    end
    out[#out + 1] = l
  end
  return out
end

local function state(s)
  return json.decode(t.read(s.cluster .. "/state.json"))
end

-- The InferencePool resources the fake serves (its api-resources: GAIE's v1 group and the older
-- x-k8s.io one), as llmd.cluster.pool_resources lists them
local POOLS = "inferencepools.inference.networking.k8s.io,inferencepools.inference.networking.x-k8s.io"

t.test("two fresh runs end to end: deploy, benchmark, state, logs, teardown, report; the exact commands", function()
  local s = setup()
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  t.ok(r.stdout:find("Starting Run A: vllm-baseline - deploying the stack.", 1, true))
  t.ok(r.stdout:find("Starting Run B: llm-d-scheduler - deploying the stack.", 1, true))
  t.ok(r.stdout:find("Comparison report written to: " .. w .. "/comparison_report.md", 1, true))
  -- the report compares the two fixture runs the fake benchmark ran the template's one stage
  -- (1 req/s) from: each the fixture's recorded 1 req/s stage (python3: stage_0_lifecycle_metrics.json's
  -- successes.latency.time_to_first_token.p90 x 1000)
  local cj = json.read(w .. "/comparison.json")
  t.eq(cj.a.label, "vllm-baseline")
  local rows = {}
  for _, row in ipairs(cj.perf) do rows[row.key] = row end
  t.near(rows.ttft_p90_ms.a, 35.40639606071636, 1e-9)
  t.near(rows.ttft_p90_ms.b, 34.44450836395845, 1e-9)
  -- the procedure, call by call (llmd-benchmark.md: compare, deploy, run_only, teardown)
  local want = {
    "kubectl -n bench config current-context",
    "kubectl -n bench config view --minify -o jsonpath={.clusters[0].cluster.server}",
    -- the namespace taken before anything in it is looked at (a ConfigMap: AlreadyExists if another run holds it)
    "kubectl -n bench create configmap llmdlua-lock --from-literal=host=<host> --from-literal=pid=<pid> "
      .. "--from-literal=workspace=<ws> --from-literal=script=compare.lua --plan --from-literal=started=<started> "
      .. "--from-literal=token=<token> --from-literal=machine=<machine> --from-literal=boot=<boot> "
      .. "--from-literal=pidns=<pidns> --from-literal=pstart=<pstart>",
    -- step 0: every manifest both deploys would apply, checked before anything is deployed
    -- (run A's chart and kustomization rendered, run B's helmfile rendered)
    "helm template sim oci://ghcr.io/llm-d/charts/llm-d-router-standalone --values=router.values.yaml -n bench",
    "kubectl -n bench kustomize ms",
    "helmfile -n bench template --environment=istio",
    -- run A: baseline, helm router + kustomize model server; what is there before and after
    -- the deploy (releases, routes, gateways, services, serving pods), so teardown removes
    -- the difference and nothing else
    "helm list --all --max 0 -o json -n bench",
    "kubectl -n bench get httproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io -o json",
    "kubectl -n bench get svc -o json",
    "kubectl -n bench get pods -o json",
    -- none of the objects its kustomization names is there already (teardown deletes them by name)
    "kubectl -n bench get -k ms --ignore-not-found -o json",
    -- the chart rendered with the same arguments first, every object checked (its crds/ are
    -- skipped: the cluster admin's), then installed
    "helm template sim oci://ghcr.io/llm-d/charts/llm-d-router-standalone --values=router.values.yaml -n bench",
    "helm upgrade --install sim oci://ghcr.io/llm-d/charts/llm-d-router-standalone -f router.values.yaml --skip-crds "
      .. "-n bench",
    "kubectl -n bench apply -k ms",
    -- what it applied (teardown deletes exactly those, not what the folder renders then)
    "kubectl -n bench get -k ms --ignore-not-found -o json",
    "helm list --all --max 0 -o json -n bench",
    "kubectl -n bench get httproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io -o json",
    "kubectl -n bench get svc -o json",
    "kubectl -n bench get pods -o json",
    -- which release it installed (teardown uninstalls that one only)
    "helm status sim -o json -n bench",
    "kubectl -n bench get pods -o json",
    -- (whose each pod is: its ReplicaSet and Deployment, up to a release or object of this run)
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    -- (fixs50) the InferencePool groups the cluster serves, each listed fully qualified (a
    -- bare inferencepool is kubectl's first group by name, maybe not the deploy's); read once
    "kubectl -n bench api-resources --no-headers",
    "kubectl -n bench get " .. POOLS .. ",gateways.gateway.networking.k8s.io,httproutes.gateway.networking.k8s.io "
      .. "-o json",
    "kubectl -n bench get svc llm-d-baseline-model-server -o json",
    -- the serving pods: another stack's would narrow the Service's selector to this run's
    "kubectl -n bench get pods -l llm-d.ai/inference-serving=true -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    -- (created, never applied: one made meanwhile is someone else's)
    -- (its answer the Service as made: its uid, which teardown deletes only)
    "kubectl -n bench create -f - -o json",
    "kubectl -n bench get endpoints llm-d-baseline-model-server -o json",
    "kubectl -n bench port-forward svc/llm-d-baseline-model-server <port>:8000",
    "kubectl -n bench get pvc -o json",
    -- (created, never applied: one made meanwhile is someone else's, test_results_pvc.lua)
    "kubectl -n bench create -f - -o json",
    -- the serving containers (pod uids, restartCounts) right before and after the benchmark
    "kubectl -n bench get pods -l llm-d.ai/inference-serving=true -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    "run_only.sh -c <ws>/run-a/benchmark/config.yaml",
    "kubectl -n bench exec llmdbench-harness-launcher -- ls /requests",
    "kubectl -n bench cp llmdbench-harness-launcher:/requests/inference-perf_<id>_sanity_random_optimized-baseline-Qwen3-32B "
      .. "<ws>/run-a/results/inference-perf_<id>_sanity_random_optimized-baseline-Qwen3-32B",
    "kubectl -n bench get pods -l llm-d.ai/inference-serving=true -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    "kubectl -n bench get pods -l llm-d.ai/inference-serving=true -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    "kubectl -n bench get nodes -o json",
    "kubectl -n bench get pods -l app.kubernetes.io/component=vllm -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    "kubectl -n bench logs ms-decode-<pod> -c routing-proxy --timestamps",
    "kubectl -n bench logs ms-decode-<pod> -c vllm --timestamps",
    "kubectl -n bench logs ms-decode-<pod> -c routing-proxy --timestamps",
    "kubectl -n bench logs ms-decode-<pod> -c vllm --timestamps",
    -- teardown: the release, the kustomize objects and the Service this run made; then verified
    -- (each release, route, Service only while it is the one this run made)
    "helm status sim -o json -n bench",
    "helm uninstall sim --ignore-not-found -n bench",
    -- (today's render compared with what it applied; the recorded objects deleted, each held
    -- to the uid recorded at apply: a raw DELETE to its API path - the resource's plural from
    -- api-resources -, its preconditions on stdin; so is the baseline Service; the kind as kubectl
    -- get -k named it: apps/v1)
    "kubectl -n bench kustomize ms",
    "kubectl -n bench delete --raw /apis/apps/v1/namespaces/bench/deployments/ms-decode -f -",
    "kubectl -n bench get svc llm-d-baseline-model-server -o json",
    "kubectl -n bench delete --raw /api/v1/namespaces/bench/services/llm-d-baseline-model-server -f -",
    "helm list --all --max 0 -o json -n bench",
    "kubectl -n bench get httproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io -o json",
    "kubectl -n bench get svc -o json",
    "kubectl -n bench get pods -o json",
    -- (and the kustomization's objects, as recorded, checked gone)
    "kubectl -n bench get deployment.apps ms-decode --ignore-not-found -o name",
    -- run B: helmfile with one environment, through the gateway
    "helm list --all --max 0 -o json -n bench",
    "kubectl -n bench get httproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io -o json",
    "kubectl -n bench get svc -o json",
    "kubectl -n bench get pods -o json",
    -- (fixd52) before the first deploy: another stack's serving pods that its InferencePool's
    -- selector, as rendered, would take (none here)
    "kubectl -n bench get pods -l llm-d.ai/inference-serving=true -o json",
    "helmfile -n bench template --environment=istio",
    "helmfile -n bench apply -e istio --skip-crds",
    "helm list --all --max 0 -o json -n bench",
    "kubectl -n bench get httproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io -o json",
    "kubectl -n bench get svc -o json",
    "kubectl -n bench get pods -o json",
    -- the releases the apply installs, as helmfile lists them: only those are this run's
    "helmfile -n bench list -e istio --output json --skip-charts",
    "helm status gaie-sim -o json -n bench",
    "helm status infra-sim -o json -n bench",
    "helm status ms-sim -o json -n bench",
    "kubectl -n bench get pods -o json",
    -- (whose each pod is: its ReplicaSet and Deployment, up to a release or object of this run)
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    "kubectl -n bench get " .. POOLS .. ",gateways.gateway.networking.k8s.io,httproutes.gateway.networking.k8s.io "
      .. "-o json",
    "kubectl -n bench get svc -o json",
    -- (leftfix35) before the smoke request too: the pods its InferencePool gaie-sim selects
    "kubectl -n bench get " .. POOLS .. " -o json",
    "kubectl -n bench get pods -l llm-d.ai/inference-serving=true,llm-d.ai/model=qwen-qwen3-0-6b -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    "kubectl -n bench port-forward svc/infra-sim-inference-gateway-istio <port>:80",
    "kubectl -n bench get pvc -o json",
    "kubectl -n bench get svc -o json",
    -- (clusterfix5 3) the pods its InferencePool gaie-sim selects, all its own by their owners
    "kubectl -n bench get " .. POOLS .. " -o json",
    "kubectl -n bench get pods -l llm-d.ai/inference-serving=true,llm-d.ai/model=qwen-qwen3-0-6b -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    -- the serving containers (pod uids, restartCounts) right before and after the benchmark
    "kubectl -n bench get pods -l llm-d.ai/inference-serving=true -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    "run_only.sh -c <ws>/run-b/benchmark/config.yaml",
    "kubectl -n bench exec llmdbench-harness-launcher -- ls /requests",
    "kubectl -n bench cp llmdbench-harness-launcher:/requests/inference-perf_<id>_sanity_random_optimized-baseline-Qwen3-32B "
      .. "<ws>/run-b/results/inference-perf_<id>_sanity_random_optimized-baseline-Qwen3-32B",
    "kubectl -n bench get pods -l llm-d.ai/inference-serving=true -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    "kubectl -n bench get pods -l llm-d.ai/inference-serving=true -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    "kubectl -n bench get nodes -o json",
    "kubectl -n bench get pods -l app.kubernetes.io/component=vllm -o json",
    "kubectl -n bench get replicasets,deployments,statefulsets -o json",
    "kubectl -n bench logs ms-sim-decode-<pod> -c routing-proxy --timestamps",
    "kubectl -n bench logs ms-sim-decode-<pod> -c vllm --timestamps",
    "kubectl -n bench logs ms-sim-decode-<pod> -c routing-proxy --timestamps",
    "kubectl -n bench logs ms-sim-decode-<pod> -c vllm --timestamps",
    -- its three releases, each uninstalled right after its check (harden51 #2); the route and
    -- gateway infra-sim made went with it (checked, not swept)
    "helm status gaie-sim -o json -n bench",
    "helm uninstall gaie-sim --ignore-not-found -n bench",
    "helm status infra-sim -o json -n bench",
    "helm uninstall infra-sim --ignore-not-found -n bench",
    "helm status ms-sim -o json -n bench",
    "helm uninstall ms-sim --ignore-not-found -n bench",
    "kubectl -n bench get httproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io -o json",
    "helm list --all --max 0 -o json -n bench",
    "kubectl -n bench get httproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io -o json",
    "kubectl -n bench get svc -o json",
    "kubectl -n bench get pods -o json",
    -- the namespace let go: its lock deleted, once read to be still this run's (its token),
    -- on the condition that it is still the object read (a raw DELETE, its preconditions on stdin)
    "kubectl -n bench get configmap llmdlua-lock -o json",
    "kubectl -n bench delete --raw /api/v1/namespaces/bench/configmaps/llmdlua-lock -f -",
  }
  t.eq(call_lines(s, w), want)
  -- commands.log has every one of them, with exit codes
  local log = t.read(w .. "/commands.log")
  t.ok(log:find("helm uninstall sim --ignore-not-found -n bench | exit 0", 1, true), log)
  -- the baseline benchmark points at the baseline Service
  t.ok(t.read(w .. "/run-a/benchmark/config.yaml"):find(
    "base_url: &url http://llm-d-baseline-model-server.bench.svc.cluster.local:8000", 1, true))
  -- state, logs
  local st = json.read(w .. "/run-a/run_state.json")
  t.eq(st.stack.namespace, "bench")
  -- the fake's one node, 8 GPUs; its pods ask for none, so the run's own count is unknown
  t.eq(st.stack.hardware, "8× NVIDIA H100 80GB HBM3 on 1 node (the nodes'; the serving pods ask for no nvidia.com/gpu "
    .. "or amd.com/gpu, so how many this run used is unknown)")
  t.eq(st.stack.decode_image, "ghcr.io/llm-d/llm-d-cuda:v0.4.0")
  t.eq(st.baseline, true)
  -- the fake's node says it is simulated (its label): recorded, and said first in the report
  t.eq(st.simulated, "node gpu-node-1 labelled llmdlua.dev/simulated=true")
  local vlogs = {}
  for n in lfs.dir(w .. "/run-a/results/vllm-logs") do
    if n:gsub(POD_SUFFIX, "-<pod>") == "ms-decode-<pod>_vllm.log" then vlogs[#vlogs + 1] = n end
  end
  t.eq(#vlogs, 2, "a log of each of ms-decode's two pods")
  t.ok(t.read(w .. "/run-a/results/vllm-logs/" .. vlogs[1]):find("GPU KV cache size", 1, true))
  -- PVC and namespace kept, the stack gone
  local cs = state(s)
  t.ok(cs.ns.bench.pvcs["llmd-benchmark-results"], "the PVC is kept")
  t.eq(next(cs.ns.bench.releases), nil)
  -- state written before teardown
  local order = {}
  for i, o in ipairs(json.read(w .. "/steps.json")) do order[(o.stack or "") .. o.name] = i end
  t.ok(order.asave_state < order.ateardown and order.bsave_state < order.bteardown)
  -- the reproduction script holds the commands that ran
  local sh = t.read(w .. "/run_comparison.sh")
  t.ok(sh:find("# deploy b " .. s.dir .. "/guide 'gaie-sim infra-sim ms-sim' helmfile -n bench apply -e istio "
    .. "--skip-crds\n", 1, true), sh)
  t.ok(sh:find("export NAMESPACE=bench", 1, true))
  t.ok(sh:find("export BENCHMARK_PVC=llmd-benchmark-results", 1, true), sh)
  t.ok(sh:find("export GATEWAY_SVC=infra-sim-inference-gateway-istio", 1, true), sh)
end)

-- run_comparison.sh's benchmark line runs through its benchmark() checks: a command that
-- fails, or exits 0 leaving no results of its own on the PVC, stops the script with one
-- line before the report; one that works has its results copied into the workspace.
t.test("run_comparison.sh: a failed or empty benchmark stops it with one line; a good one is copied", function()
  local s = setup()
  local r = compare(s)
  t.eq(r.code, 0, r.stderr)
  local w = workspace(s)
  local sh = t.read(w .. "/run_comparison.sh")
  local cfg = w .. "/run-b/benchmark/config.yaml"
  -- (wsfix: by the script's folder, so that a copied workspace's uses its own config)
  local bench = "benchmark b run_only.sh -c \"$COMPARISON_DIR\"/run-b/benchmark/config.yaml"
  t.ok(sh:find("\n# " .. bench .. "\n", 1, true), sh)
  local deploy = "deploy b " .. s.dir .. "/guide 'gaie-sim infra-sim ms-sim' helmfile -n bench apply -e istio "
    .. "--skip-crds"
  t.ok(sh:find("\n# " .. deploy .. "\n", 1, true), sh)
  -- the script's last line runs analyze.lua through $LLMDLUA: a stand-in that leaves a mark
  -- (its -e calls - the locks, whose releases are whose - go to the real one, fixd52)
  local bin = s.dir .. "/bin"
  lfs.mkdir(bin)
  t.write(bin .. "/llmdlua", "#!/bin/sh\ncase $1 in -e) exec '" .. LLMDLUA .. "' \"$@\" ;; esac\ntouch \"$0.ran\"\n")
  proc.run { "chmod", "755", bin .. "/llmdlua" }
  local function script(lines)
    local text = sh
    for _, l in ipairs(lines) do text = text:gsub("\n# " .. l:gsub("%p", "%%%0") .. "\n", "\n" .. l:gsub("%%", "%%%%") .. "\n") end
    -- (in the workspace: the script works on the folder it is in)
    t.write(w .. "/rerun.sh", text)
    os.remove(bin .. "/llmdlua.ran")
    local env = { LLMDLUA = bin .. "/llmdlua" }
    for k, v in pairs(s.env) do env[k] = v end
    return proc.run({ "sh", w .. "/rerun.sh" }, { env = env, timeout = 120 })
  end
  -- 1. the stack was torn down: run_only.sh cannot reach the model and exits 1 (the fake
  -- does what the real one does there)
  r = script { bench }
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, "run_comparison.sh: run b: the benchmark command failed (exit 1): run_only.sh -c " .. cfg
    .. "; stopping here\n")
  t.ok(r.stdout:find("Could not resolve host", 1, true), r.stdout)
  t.ok(not lfs.attributes(bin .. "/llmdlua.ran"), "no report after it")
  -- 2. a run_only.sh that exits 0 and writes nothing: the PVC holds only the compare's own
  -- two folders, whose ids are older than this run
  local stub = s.dir .. "/stub"
  lfs.mkdir(stub)
  -- a folder already on the PVC whose id (a second from now) falls inside the run's own
  -- seconds (the stub takes 2 s): there before the command ran, it is not this run's
  -- (listing the PVC before: the start-time rule alone took it for the run's own)
  local soon = ("inference-perf_%d_sanity_random_old"):format(os.time() + 1)
  for ns in lfs.dir(s.env.FAKE_CLUSTER .. "/pvc") do
    if not ns:match("^%.") then
      for pvc in lfs.dir(s.env.FAKE_CLUSTER .. "/pvc/" .. ns) do
        if not pvc:match("^%.") then lfs.mkdir(s.env.FAKE_CLUSTER .. "/pvc/" .. ns .. "/" .. pvc .. "/" .. soon) end
      end
    end
  end
  t.write(stub .. "/run_only.sh", "#!/bin/sh\nsleep 2\necho all good\n")
  proc.run { "chmod", "755", stub .. "/run_only.sh" }
  local path = s.env.PATH
  s.env.PATH = stub .. ":" .. path
  r = script { bench }
  s.env.PATH = path
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:match("^run_comparison%.sh: run b: the benchmark command exited 0 but left no results of its own on "
    .. "the PVC %(experiment started at %d+; there: inference%-perf_%d+_sanity_random_[^\n]*%); stopping here\n$"),
    r.stderr)
  t.ok(not lfs.attributes(bin .. "/llmdlua.ran"), "no report after it")
  -- 3. deployed again, then benchmarked: its folder (the experiment id the fake printed)
  -- is copied into reruns/run-b-<id>/results/, and the script goes on to the report
  r = script { deploy, bench }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local uid = r.stdout:match("verify%-model%-(%d+)")
  t.ok(uid, r.stdout)
  local dest = w .. "/reruns/run-b-" .. uid .. "/results"
  t.ok(r.stdout:find("run b: results of the re-run in " .. dest .. "; compare it with run b: '" .. bin
    .. "/llmdlua' compare.lua --a '"
    .. w .. "/run-b' --b '" .. w .. "/reruns/run-b-" .. uid .. "'\n", 1, true), r.stdout)
  local got = {}
  for n in lfs.dir(dest) do if n ~= "." and n ~= ".." then got[#got + 1] = n end end
  t.eq(#got, 1, table.concat(got, ", "))
  t.ok(got[1]:match("^inference%-perf_" .. uid .. "_sanity_random_"), got[1])
  t.ok(lfs.attributes(dest .. "/" .. got[1] .. "/stderr.log"), "the folder's files came along")
  t.ok(lfs.attributes(bin .. "/llmdlua.ran"), "the report is re-generated after it")
  -- 4. (nu13) re-run with its teardown too: the script holds run B's teardown as it ran
  -- (written by hand from what run B's helmfile deployed: its three releases; the route
  -- and gateway went with infra-sim), and says what it removed and what it keeps
  local down = "teardown b 'releases gaie-sim, infra-sim, ms-sim' helm uninstall gaie-sim infra-sim ms-sim "
    .. "--ignore-not-found -n bench"
  -- (fixt50: right after its benchmark line, in the run's block of commands, no prose between)
  t.ok(sh:find("\n# benchmark b [^\n]*\n# " .. down:gsub("%p", "%%%0") .. "\n"), sh)
  -- (clusterfix2 2, fixd52) step 3 left its stack, which compare.lua tore down (run-b/deployed.json)
  -- but this script deployed again: recorded as the script's own (run-b/rerun_deployed.json,
  -- each release by helm's first_deployed and revision), so deploying again is not refused:
  -- helmfile's apply finds nothing changed and leaves it (fixc53: as the real helmfile, whose
  -- apply syncs only what its diff finds changed)
  local rec = json.read(w .. "/run-b/rerun_deployed.json")
  t.eq({ rec.releases["gaie-sim"].version, rec.torn_down }, { 1, false })
  r = script { deploy }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.contains(r.stderr, "\nNo affected releases\n")
  t.lacks(r.stderr, "run_comparison.sh:")
  t.eq(state(s).ns.bench.releases["gaie-sim"].revision, 1, "its own, left as it is")
  local ncalls = #calls(s)
  r = script { bench, down }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find('release "gaie-sim" uninstalled\nrelease "infra-sim" uninstalled\nrelease "ms-sim" uninstalled\n'
    .. "run b: releases gaie-sim, infra-sim, ms-sim removed (where still there); the results PVC and namespace bench "
    .. "are kept\n", 1, true),
    r.stdout)
  local ns = state(s).ns.bench
  t.eq(next(ns.releases), nil, "the re-run's stack is gone")
  t.ok(ns.pvcs["llmd-benchmark-results"], "the PVC is kept")
  -- the script's own cluster calls: each one in namespace bench
  local all = calls(s)
  for i = ncalls + 1, #all do
    local c = all[i]
    if c.tool ~= "run_only.sh" then
      local line = c.tool .. " " .. table.concat(c.args, " ")
      t.ok(line:find(" -n bench", 1, true) and not line:find("all-namespaces", 1, true), line)
    end
  end
  -- a teardown command that fails stops the script with one line: run B deployed again by the
  -- script (its own, so its teardown line acts), then a helm whose uninstall fails (a stand-in
  -- before the fake one on PATH: helm's own error line, exit 1)
  local bad = "teardown b 'release gaie-sim' helm uninstall gaie-sim -n bench"
  sh = sh .. "\n# " .. bad .. "\n"
  t.eq(script({ deploy }).code, 0)
  t.write(stub .. "/helm", "#!/bin/sh\n[ \"$1\" = uninstall ] && { echo 'Error: uninstall: timed out waiting for "
    .. "the condition' >&2; exit 1; }\nexec '" .. FAKEBIN .. "/helm' \"$@\"\n")
  proc.run { "chmod", "755", stub .. "/helm" }
  s.env.PATH = stub .. ":" .. path
  r = script { bad }
  s.env.PATH = path
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find("run_comparison.sh: run b: the teardown command failed: helm uninstall gaie-sim -n bench; release "
    .. "gaie-sim may be left in namespace bench; stopping here\n", 1, true), r.stderr)
  t.ok(state(s).ns.bench.releases["gaie-sim"], "left, as said")
end)

-- (clusterfix2 2) run_comparison.sh showed a run's deploy commands commented out as
-- "(cd DIR && helmfile ... apply ...)": uncommented, it ran with none of compare.lua's checks,
-- and upgraded a release of the same name that this comparison did not deploy. Its deploy
-- lines now go through deploy(), which lists the namespace's releases (every one: helm
-- list --all --max 0 --short, helm 4 again without --all) and refuses one of the line's
-- releases that run-X/deployed.json does not hold as deployed, with one line. Expected
-- values by hand: the fake installs revision 1 and each upgrade adds one; run B's releases
-- are its helmfile's three, run A's the plan's deploy.release sim.
t.test("run_comparison.sh: a deploy line refuses a release of its name this comparison did not deploy", function()
  local function script(s, w, lines, envx)
    local text = t.read(w .. "/run_comparison.sh")
    for _, l in ipairs(lines) do
      local n
      text, n = text:gsub("\n# " .. l:gsub("%p", "%%%0") .. "\n", "\n" .. l:gsub("%%", "%%%%") .. "\n")
      t.eq(n, 1, l)
    end
    -- (in the workspace: the script works on the folder it is in)
    t.write(w .. "/rerun.sh", text)
    local env = { LLMDLUA = LLMDLUA }
    for k, v in pairs(s.env) do env[k] = v end
    for k, v in pairs(envx or {}) do env[k] = v end
    -- (the last line re-generates the report: not what is tested here)
    return proc.run({ "sh", "-c", 'sh "$1" >/dev/null; true', "sh", w .. "/rerun.sh" }, { env = env, timeout = 120 })
  end
  local s = setup()
  t.eq(compare(s).code, 0)
  local w = workspace(s)
  local sh = t.read(w .. "/run_comparison.sh")
  local deploy_b = "deploy b " .. s.dir .. "/guide 'gaie-sim infra-sim ms-sim' helmfile -n bench apply -e istio "
    .. "--skip-crds"
  local deploy_a = "deploy a " .. s.dir .. "/guide sim helm upgrade --install sim "
    .. "oci://ghcr.io/llm-d/charts/llm-d-router-standalone -f router.values.yaml --skip-crds -n bench"
  t.ok(sh:find("\n# " .. deploy_b .. "\n", 1, true), sh)
  t.ok(sh:find("\n# " .. deploy_a .. "\n", 1, true), sh)
  t.ok(sh:find("\n# deploy a " .. s.dir .. "/guide '' kubectl -n bench apply -k ms\n", 1, true), sh)
  -- after the comparison (which tore its stack down) someone else installs ms-sim and sim
  for _, rel in ipairs { { "ms-sim", "llm-d-modelservice" }, { "sim", "llm-d-router-standalone" } } do
    local r = proc.run({ FAKEBIN .. "/helm", "upgrade", "--install", rel[1], rel[2], "-n", "bench" }, { env = s.env })
    t.eq(r.code, 0, r.stderr)
  end
  -- (fixd52: the line says which release is there, by helm's first_deployed and revision)
  -- (harden55 #4: and what its command would do to it, "deploying would change it" named no
  -- change: helm upgrade its next revision, helmfile apply an upgrade where they differ)
  local function refused(x, rel, cmd, change)
    return "^run_comparison%.sh: run " .. x .. ": release " .. rel .. " already exists in namespace bench and was not "
      .. "deployed by this comparison %(first deployed [%dT:.Z%-]+, revision 1; not recorded as deployed and not torn "
      .. "down by this comparison in run%-" .. x .. "/deployed%.json or run%-" .. x .. "/rerun_deployed%.json%): "
      .. change:gsub("%p", "%%%0") .. ", and run " .. x .. "'s teardown lines would then uninstall it; not deploying %("
      .. cmd:gsub("%p", "%%%0") .. "%)\n$"
  end
  for _, helm4 in ipairs { false, "4" } do
    local n0 = #calls(s)
    local r = script(s, w, { deploy_b }, { FAKE_HELM_MAJOR = helm4 })
    t.ok(r.stderr:match(refused("b", "ms%-sim", "helmfile -n bench apply -e istio --skip-crds",
      "helmfile apply would upgrade it wherever this helmfile's release differs from it")), r.stderr)
    r = script(s, w, { deploy_a }, { FAKE_HELM_MAJOR = helm4 })
    t.ok(r.stderr:match(refused("a", "sim", "helm upgrade --install sim oci://ghcr.io/llm-d/charts/"
      .. "llm-d-router-standalone -f router.values.yaml --skip-crds -n bench",
      "helm upgrade would make revision 2 of it, from this run's chart and values")), r.stderr)
    local lists = {}
    for i = n0 + 1, #calls(s) do
      local c = calls(s)[i]
      local line = c.tool .. " " .. table.concat(c.args, " ")
      -- (reads - since fixb55 #1 the kube context checked first -, and the namespace's lock taken
      -- and let go: nothing deployed)
      t.ok((c.tool == "helm" and (c.args[1] == "list" or c.args[1] == "status")) or (c.tool == "kubectl"
        and (line:find(" get ", 1, true) or line:find("configmap llmdlua%-lock") or line:find("delete --raw", 1, true)
          or line:find(" config current%-context$") or line:find(" config view %-%-minify "))),
        "nothing deployed: " .. line)
      if c.tool == "helm" and c.args[1] == "list" then lists[#lists + 1] = line end
    end
    t.eq(lists, helm4 and { "helm list --all --max 0 --short -n bench", "helm list --max 0 --short -n bench",
      "helm list --all --max 0 --short -n bench", "helm list --max 0 --short -n bench" }
      or { "helm list --all --max 0 --short -n bench", "helm list --all --max 0 --short -n bench" })
  end
  local ns = state(s).ns.bench
  t.eq(ns.releases["ms-sim"].revision, 1, "someone else's ms-sim not upgraded")
  t.eq(ns.releases.sim.revision, 1, "someone else's sim not upgraded")
  t.eq(ns.releases["gaie-sim"], nil, "nothing of run B deployed")
  -- a comparison whose stack is still up (its teardown not run: steps up to 80, then the
  -- report): its releases are its own, and the deploy lines apply them (the same helmfile:
  -- helmfile finds no change and upgrades none; one of its releases changed, that one)
  -- (run A imported: a stack of it still up would carry the labels run B's InferencePool selects)
  s = setup(function(plan) plan.runs.a = { label = "before", existing = { results = BASE } } end)
  s.env.FAKE_RESULTS = TREAT
  local r = compare(s, { "--plan", s.plan, "--step", "0-80,100" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  w = workspace(s)
  t.eq(json.read(w .. "/run-b/deployed.json").torn_down, false)
  r = script(s, w, { "deploy b " .. s.dir .. "/guide 'gaie-sim infra-sim ms-sim' helmfile -n bench apply -e istio "
    .. "--skip-crds" })
  -- (no refusal: on stderr only helmfile's own log, which says nothing changed)
  t.ok(not r.stderr:find("run_comparison.sh:", 1, true), r.stderr)
  t.ok(r.stderr:find("\nNo affected releases\n", 1, true), r.stderr)
  t.eq(r.code, 0)
  ns = state(s).ns.bench
  t.eq({ ns.releases["ms-sim"].revision, ns.releases["infra-sim"].revision }, { 1, 1 }, "ours: left as they are")
  -- ms-sim's entry changed in the helmfile: that one is upgraded, the others left
  local hf = t.read(s.dir .. "/guide/helmfile.yaml")
  local edited, n = hf:gsub("(\n%s*%-%s*name:%s*ms%-sim\n)", "%1    labels: {tier: model}\n")
  t.eq(n, 1, hf)
  t.write(s.dir .. "/guide/helmfile.yaml", edited)
  r = script(s, w, { "deploy b " .. s.dir .. "/guide 'gaie-sim infra-sim ms-sim' helmfile -n bench apply -e istio "
    .. "--skip-crds" })
  t.ok(not r.stderr:find("run_comparison.sh:", 1, true), r.stderr)
  t.ok(r.stderr:find("\nUPDATED RELEASES:\nNAME ", 1, true) and r.stderr:find("\nms%-sim +bench "), r.stderr)
  t.eq(r.code, 0)
  ns = state(s).ns.bench
  t.eq({ ns.releases["ms-sim"].revision, ns.releases["infra-sim"].revision }, { 2, 1 }, "ours: the changed one upgraded")
end)

t.test("every call is namespaced and nothing cluster-scoped is changed", function()
  local s = setup()
  local r = compare(s)
  t.eq(r.code, 0, r.stderr)
  for _, c in ipairs(calls(s)) do
    if c.tool == "kubectl" or c.tool == "helm" or c.tool == "helmfile" then
      local ns
      for i, a in ipairs(c.args) do if a == "-n" then ns = c.args[i + 1] end end
      t.eq(ns, "bench", c.tool .. " " .. table.concat(c.args, " "))
      local verb = c.args[3] or ""
      if c.tool == "kubectl" and verb ~= "get" then
        for _, a in ipairs(c.args) do
          t.ok(not k8s.CLUSTER_KINDS[a], "no cluster-scoped kind changed: " .. table.concat(c.args, " "))
        end
      end
    end
  end
  -- and the namespace was never deleted
  t.ok(state(s).ns.bench, "namespace state kept")
end)

t.test("a pre-existing A with a fresh B", function()
  local s = setup(function(plan)
    plan.runs.a = { label = "before", existing = { results = BASE } }
  end)
  s.env.FAKE_RESULTS = TREAT
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  t.eq(json.read(w .. "/run-a/run_state.json").imported, true)
  for _, c in ipairs(call_lines(s, w)) do t.ok(not c:find("sim oci", 1, true), "A was not deployed: " .. c) end
  local md = t.read(w .. "/comparison_report.md")
  -- (B: the chunked run's 1 req/s stage, the template's one: TTFT p90 34.44450836395845 ms, python3)
  t.ok(md:find("| TTFT p90 | 3,282.0 ms | 34.4 ms |", 1, true), md)
end)

-- (fixc51 6) A plan with an SLO and run A an earlier run of llmdlua's (its run folder, whose
-- record holds another SLO): both runs are held to the plan's, and each run_state.json records
-- that one (slo_by plan), never the record's SLO nor "from before's record" in the SLO line.
t.test("a plan's SLO over an existing run's recorded one: recorded as the plan's, said as no run's own", function()
  local d = t.tmpdir()
  t.mkdir(d .. "/earlier")
  t.copy_tree(BASE, d .. "/earlier/results")
  json.write(d .. "/earlier/run_state.json", { label = "before", timestamp = "2026-12-01T10:00:00Z",
    stack = { model = "Qwen/Qwen3-0.6B" }, benchmark = { harness = "inference-perf" },
    slo = { ttft_p90_ms = 5000 } })
  local s = setup(function(plan)
    plan.slo = { ttft_p90_ms = 200 }
    plan.runs.a = { label = "before", existing = { results = d .. "/earlier" } }
  end)
  s.env.FAKE_RESULTS = TREAT
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  for _, x in ipairs { "a", "b" } do
    local st = json.read(w .. "/run-" .. x .. "/run_state.json")
    t.eq({ st.slo, st.slo_by, st.slo_from }, { { ttft_p90_ms = 200 }, "plan", nil }, x)
  end
  local md = t.read(w .. "/comparison_report.md")
  t.contains(md, "\nSLO: TTFT p90 ≤ 200.0 ms. ")
  t.lacks(md, "record (")
end)

-- (newuser54 #1) A plan's existing run made on a simulated cluster (its record says so) keeps
-- the mark in this comparison's run_state.json and report, as compare.lua --a does; the text
-- is the record's own.
t.test("a plan's existing run made on a simulated cluster keeps the mark", function()
  local d = t.tmpdir()
  t.mkdir(d .. "/earlier")
  t.copy_tree(BASE, d .. "/earlier/results")
  json.write(d .. "/earlier/run_state.json", { label = "before", timestamp = "2026-12-01T10:00:00Z",
    stack = { model = "Qwen/Qwen3-0.6B" }, benchmark = { harness = "inference-perf" },
    simulated = "node sim-node-9 labelled llmdlua.dev/simulated=true" })
  local s = setup(function(plan) plan.runs.a = { label = "before", existing = { results = d .. "/earlier" } } end)
  s.env.FAKE_RESULTS = TREAT
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  t.eq(json.read(w .. "/run-a/run_state.json").simulated, "node sim-node-9 labelled llmdlua.dev/simulated=true")
  t.contains(json.read(w .. "/comparison.json").simulated, "runs A (before) and B (llm-d-scheduler) ran on a "
    .. "simulated cluster (llmdlua's fake one, whose benchmarks replay recorded result files: node sim-node-9 "
    .. "labelled llmdlua.dev/simulated=true; node gpu-node-1 labelled llmdlua.dev/simulated=true)")
end)

-- newuser24's plan2: run A's helm router, then a kustomization with `namespace:
-- kube-system` and a ClusterRoleBinding to cluster-admin. The helm install used to run
-- before the kustomization was rendered and refused.
local function bad_kustomization(s, where)
  t.write(s.dir .. "/guide/" .. where .. "/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\n"
    .. "kind: Kustomization\nnamespace: kube-system\nresources: [deploy.yaml, crb.yaml]\n")
  t.write(s.dir .. "/guide/" .. where .. "/deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\n"
    .. "metadata: {name: vllm-decode}\nspec: {replicas: 1}\n")
  t.write(s.dir .. "/guide/" .. where .. "/crb.yaml", "apiVersion: rbac.authorization.k8s.io/v1\n"
    .. "kind: ClusterRoleBinding\nmetadata: {name: everyone-admin}\n"
    .. "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\n")
end

local function changing(s, w)
  local out = {}
  for _, c in ipairs(call_lines(s, w)) do
    if not (c:find(" kustomize ", 1, true) or c:find(" get ", 1, true) or c:find("^helm list")
      or c:find("^helm template ") or c:find("^helmfile %-n %S+ template")
      or c:find("config current%-context") or c:find("config view %-%-minify")
      -- (the namespace's lock, taken first and let go at the end: no part of any deploy)
      or c:find("configmaps?[ /]llmdlua%-lock")) then out[#out + 1] = c end
  end
  return out
end

t.test("preflight: a deploy's manifests are all checked before its first changing command, dry run too", function()
  -- run A: helm first, then the kustomization: refused before the helm install
  local s = setup()
  bad_kustomization(s, "ms")
  local r = compare(s)
  t.eq(r.code, 1, r.stdout)
  t.ok(r.stdout:find("refused: kubectl apply -k ms: a manifest for namespace kube-system (kustomize ms)", 1, true),
    r.stdout)
  t.ok(r.stdout:find("nothing of this run was deployed", 1, true), r.stdout)
  t.eq(changing(s, workspace(s)), {}, "nothing that changes the cluster ran")
  -- the advice matches what was done: nothing deployed, so no teardown to run
  t.ok(r.stdout:find("Nothing was deployed in namespace bench (nothing changed in the cluster); nothing needs "
    .. "tearing down.", 1, true), r.stdout)
  t.ok(not r.stdout:find("--step 90", 1, true), "no teardown advised: " .. r.stdout)
  for ns, v in pairs(state(s).ns) do
    for k, x in pairs(v) do t.ok(type(x) ~= "table" or next(x) == nil, "no object was created: " .. ns .. "." .. k) end
  end
  -- the dry run renders (a read) and refuses the same, exit 1
  s = setup()
  bad_kustomization(s, "ms")
  r = compare(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 1, r.stdout)
  t.ok(r.stdout:find("refused: kubectl apply -k ms: a manifest for namespace kube-system (kustomize ms)", 1, true),
    r.stdout)
  t.ok(not r.stdout:find("[dry-run] helm upgrade", 1, true), "no deploy printed as if it would run: " .. r.stdout)
  t.eq(changing(s, s.dir .. "/(no workspace)"), {})
  -- what next: the real run once fixed, never --resume on the dry run's workspace (no step
  -- of it ran: a resume would run them all, for real); the workspace is gone, and it says so
  t.ok(r.stdout:find("\nTo run it after fixing the cause: the same command without --dry-run (the dry run's "
    .. "workspace has nothing to resume)\nDry run: nothing was deployed; nothing needs tearing down.\nDry run: its "
    .. "workspace " .. s.dir .. "/llm-d-comparison-", 1, true), r.stdout)
  t.ok(r.stdout:find(" was removed; it leaves nothing behind.\n$"), r.stdout)
  t.eq(workspace(s), nil, "no workspace left")
  t.ok(not r.stdout:find("--resume", 1, true), r.stdout)
  -- run B's deploy is checked before run A deploys anything (custom commands: a -f file for
  -- another namespace after a harmless apply)
  s = setup(function(plan, d)
    plan.runs.b.deploy = { method = "custom", guide_dir = d .. "/guide", model = "Qwen/Qwen3-0.6B",
      commands = { { "kubectl", "apply", "-f", "ok.yaml" }, { "kubectl", "apply", "-f", "other.yaml" } } }
  end)
  t.write(s.dir .. "/guide/ok.yaml", "kind: ConfigMap\nmetadata: {name: ok}\n")
  t.write(s.dir .. "/guide/other.yaml", "kind: ConfigMap\nmetadata: {name: x, namespace: default}\n")
  r = compare(s)
  t.eq(r.code, 1, r.stdout)
  t.ok(r.stdout:find("run b (llm-d-scheduler): refused: kubectl apply -f other.yaml: a manifest for namespace "
    .. "default (other.yaml)", 1, true), r.stdout)
  t.eq(changing(s, workspace(s)), {}, "run A was not deployed either")
end)

t.test("dry run: every command printed, the cluster untouched", function()
  local s = setup()
  local r = compare(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stdout:find("[dry-run] helm upgrade --install sim", 1, true))
  t.ok(r.stdout:find("[dry-run] helmfile -n bench apply -e istio --skip-crds", 1, true))
  -- what it did not read it says it did not read (the reads a real run makes, in order)
  for _, want in ipairs { "[dry-run, not read] helm list --all --max 0 -o json -n bench",
    "[dry-run, not read] kubectl -n bench get httproutes.gateway.networking.k8s.io,gateways.gateway.networking.k8s.io -o json",
    "[dry-run, not read] kubectl -n bench get svc -o json", "[dry-run, not read] kubectl -n bench get nodes -o json",
    "[dry-run, not read] kubectl -n bench get svc llm-d-baseline-model-server -o json" } do
    t.ok(r.stdout:find(want, 1, true), want .. "\n" .. r.stdout)
  end
  -- the manifest it would create (the baseline Service, README step 40: selector
  -- llm-d.ai/inference-serving "true", port 8000)
  local svc = r.stdout:match("%[dry%-run%] kubectl %-n bench create %-f %- %-o json\n(.-)\n[^ ]")
  t.ok(svc and svc:find("    | kind: Service", 1, true) and svc:find("llm-d-baseline-model-server", 1, true)
    and svc:find("8000", 1, true), tostring(svc))
  -- teardown: no made-up release name; says what is not known
  t.ok(r.stdout:find("[dry-run] would uninstall the releases this run deployed (not known in a dry run)", 1, true),
    r.stdout)
  t.ok(not r.stdout:find("<the releases this run deployed>", 1, true), r.stdout)
  -- only the client-side render of run A's kustomization ran (a read: what the real run
  -- would refuse, the dry run refuses too)
  local lines = {}
  for _, c in ipairs(calls(s)) do
    local l = c.tool .. " " .. table.concat(c.args, " ")
    lines[l] = true
    -- renders only: kubectl kustomize, and helm/helmfile template where charts are rendered;
    -- and (since fixb55 #2, the preflight a dry run shares with the real run) the kube context
    -- read from the kubeconfig, which asks no API server
    t.ok(l:find(" kustomize ", 1, true) or l:find("^helm template ") or l:find("^helmfile .*template")
      or l:find("^kubectl %-n bench config current%-context$") or l:find("^kubectl %-n bench config view %-%-minify "), l)
  end
  t.ok(lines["kubectl -n bench kustomize ms"], "run A's kustomization rendered")
  t.ok(r.stdout:find("[dry-run, read] kubectl -n bench kustomize ms   (rendered to check it)", 1, true), r.stdout)
  -- no object in any namespace (a render may note the namespace it was given, nothing in it)
  for ns, v in pairs(state(s).ns) do
    for k, x in pairs(v) do t.ok(type(x) ~= "table" or next(x) == nil, ns .. "." .. k .. " is empty") end
  end
  -- it leaves nothing behind: its workspace (renders, commands.log) is removed, and it says so
  t.eq(workspace(s), nil, "no workspace left")
  local said = r.stdout:match("Workspace: (%S+) %(the dry run's, for its renders and commands%.log: removed when it "
    .. "ends%)\n")
  t.ok(said, r.stdout)
  local last = "\nDry run: its workspace " .. tostring(said) .. " was removed; it leaves nothing behind.\n"
  t.eq(r.stdout:sub(-#last), last)
  t.eq(lfs.attributes(tostring(said)), nil, said)
end)

-- A compare.lua --dry-run left its incomplete workspace behind (INCOMPLETE, plan.yaml,
-- cluster.json, commands.log, steps.json, run-a/, run-b/). A dry run leaves nothing: not the
-- workspace, not a --parent folder it had to make; a --resume WORKSPACE --dry-run keeps the
-- workspace it was given (it is the user's).
t.test("a dry run leaves nothing behind: no workspace, no parent folder made for it", function()
  local s = setup()
  local parent = s.dir .. "/new/deeper"
  local r = compare(s, { "--plan", s.plan, "--dry-run", "--parent", parent })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(lfs.attributes(s.dir .. "/new"), nil, "the parent folders it made are gone too")
  t.ok(r.stdout:find("\nDry run: its workspace " .. parent .. "/llm-d-comparison-", 1, true), r.stdout)
  -- a folder that was there stays, with what was in it
  proc.run { "mkdir", "-p", parent }
  t.write(parent .. "/mine.txt", "x")
  r = compare(s, { "--plan", s.plan, "--dry-run", "--parent", parent })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local left = {}
  for n in lfs.dir(parent) do if n ~= "." and n ~= ".." then left[#left + 1] = n end end
  t.eq(left, { "mine.txt" })
  -- a real run's workspace, resumed as a dry run: kept (steps recorded as dry-run, not done)
  r = compare(s, { "--plan", s.plan, "--step", "0" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  t.ok(w, "the real run's workspace")
  r = compare(s, { "--resume", w, "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(lfs.attributes(w, "mode"), "directory", "kept")
  t.ok(not r.stdout:find("was removed", 1, true), r.stdout)
  local dry = 0
  for _, o in ipairs(json.read(w .. "/steps.json")) do if o.status == "dry-run" then dry = dry + 1 end end
  t.ok(dry > 0, "its steps recorded as dry-run")
end)

t.test("dry run with teardown: namespace-wide says it would delete what it finds, having read nothing", function()
  local s = setup(function(plan) plan.teardown = "namespace-wide" end)
  local r = compare(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Run A: tearing down every release, HTTPRoute and Gateway in bench (teardown: namespace-wide",
    1, true), r.stdout)
  t.ok(r.stdout:find("would delete every release, HTTPRoute and Gateway found in bench at teardown (not read in a "
    .. "dry run)", 1, true), r.stdout)
  t.ok(not r.stdout:find("releases: none", 1, true), "no list it did not read: " .. r.stdout)
  t.ok(not r.stdout:find("tearing down what it deployed", 1, true), r.stdout)
  t.ok(r.stdout:find("[dry-run] kubectl -n bench delete httproutes.gateway.networking.k8s.io --all", 1, true), r.stdout)
end)

t.test("failures: image pull, never ready, deploy error, no logs (no teardown), transient retried", function()
  local s = setup()
  local r = compare(s, nil, { FAKE_FAIL = "imagepull" })
  t.eq(r.code, 1)
  t.ok(r.stdout:gsub(POD_SUFFIX, "-<pod>"):find("pod ms-decode-<pod> is in ImagePullBackOff", 1, true), r.stdout)
  -- the failed run keeps its stack for --resume, and says so
  t.ok(r.stdout:find("whatever was deployed is left in place", 1, true))
  t.ok(r.stdout:find("llmdlua compare.lua --resume ", 1, true))
  -- run A's stack is there (deploy.json's record, as the fake cluster holds it): named, with
  -- the teardown that removes it; run B never started
  t.ok(r.stdout:find("Left deployed in namespace bench: run A (vllm-baseline): releases sim; kustomize ms.\n"
    .. "To tear down without continuing:   llmdlua compare.lua --resume " .. workspace(s) .. " --step 90\n", 1, true),
    r.stdout)
  t.ok(not r.stdout:find("run B (llm-d-scheduler):", 1, true), r.stdout)

  s = setup()
  r = compare(s, nil, { FAKE_FAIL = "notready" })
  t.eq(r.code, 1)
  t.ok(r.stdout:gsub(POD_SUFFIX, "-<pod>"):find("the stack was not ready within 3 s (not ready: ms-decode-<pod>, "
    .. "ms-decode-<pod>, sim-epp-<pod>)", 1, true),
    r.stdout)

  s = setup()
  r = compare(s, nil, { FAKE_FAIL = "deploy" })
  t.eq(r.code, 1)
  t.ok(r.stdout:find("helm upgrade --install sim", 1, true) and r.stdout:find("INSTALLATION FAILED", 1, true), r.stdout)

  s = setup()
  r = compare(s, nil, { FAKE_FAIL = "nologs" })
  t.eq(r.code, 1)
  t.ok(r.stdout:find("no vLLM logs could be collected", 1, true), r.stdout)
  for _, c in ipairs(call_lines(s, workspace(s))) do t.ok(not c:find("uninstall", 1, true), "no teardown: " .. c) end

  s = setup()
  r = compare(s, nil, { FAKE_OLD_JOB = "1" })
  t.eq(r.code, 0, "a finished job pod does not hold up readiness: " .. r.stdout)

  s = setup()
  r = compare(s, nil, { FAKE_FAIL = "transient" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(t.read(workspace(s) .. "/commands.log"):find("| attempt 2", 1, true))
end)

t.test("a benchmark that fails once is re-run after restarting the vLLM pods", function()
  local s = setup()
  local r = compare(s, nil, { FAKE_FAIL_ONCE = "bench_stderr" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  t.ok(r.stdout:find("the harness stopped early", 1, true), r.stdout)
  local lines = table.concat(call_lines(s, w), "\n")
  -- (clusterfix3 2) by name: run A's two decode pods (fake.lua: vllm_pods), not by label
  t.ok(lines:find("kubectl -n bench delete pod ms-decode-<pod> ms-decode-<pod> --ignore-not-found", 1, true), lines)
  -- the failed attempt's results are kept beside the good ones
  t.eq(lfs.attributes(w .. "/run-a/results-attempt-1", "mode"), "directory")
end)

t.test("resume after a failure at each phase: the rest runs, nothing is deployed twice", function()
  for _, case in ipairs {
    { fail = "deploy", step = "deploy", deploys = 2 }, -- the failed attempt, then the real one
    { fail = "notready", step = "wait_ready" },
    { fail = "smoke", step = "smoke_test" },
    { fail = "bench_nojson", step = "benchmark", attempts = 1 },
    { fail = "nologs", step = "collect_logs" },
  } do
    local s = setup(function(plan)
      if case.attempts then plan.runs.a.benchmark.attempts = case.attempts end
    end)
    local r = compare(s, nil, { FAKE_FAIL = case.fail })
    t.eq(r.code, 1, case.fail)
    local w = workspace(s)
    local failed = false
    for _, o in ipairs(json.read(w .. "/steps.json")) do
      if o.status == "failed" and o.name == case.step and o.stack == "a" then failed = true end
    end
    t.ok(failed, case.fail .. ": failed at " .. case.step)
    t.ok(lfs.attributes(w .. "/run-a/run_state.json"), case.fail .. ": state saved")
    -- the cause fixed: the same workspace goes on
    r = compare(s, { "--resume", w })
    t.eq(r.code, 0, case.fail .. ": " .. r.stdout .. r.stderr)
    local n = 0
    for _, c in ipairs(call_lines(s, w)) do
      if c:find("^helm upgrade %-%-install sim") then n = n + 1 end
    end
    t.eq(n, case.deploys or 1, case.fail .. ": run A deployed once")
    -- what the benchmark used survives the resume
    t.ok(t.read(w .. "/run_comparison.sh"):find("export BENCHMARK_PVC=llmd-benchmark-results", 1, true), case.fail)
    t.ok(lfs.attributes(w .. "/comparison_report.md"), case.fail .. ": the report")
  end
end)

t.test("interrupted during the benchmark: exit 130, then --resume goes on without deploying again", function()
  local s = setup()
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.FAKE_SLOW_BENCH = "30"
  local out = s.dir .. "/out.txt"
  local p = proc.spawn({ LLMDLUA, "compare.lua", "--yes", "--quiet", "--plan", s.plan },
    { env = env, stdout = { file = out }, stderr = { file = out .. ".err" } })
  -- (the fake's mark that it sleeps in the benchmark, its state saved: a kill a fixed time
  -- after the call began could land in the fake's save() on a loaded machine and leave the
  -- state locked, every later fake call waiting 30 s for it)
  t.ok(t.wait_for_file(s.cluster .. "/bench-sleeping", p), "the benchmark started")
  local r = p:kill(60) -- (a ceiling: it returns once the process has ended)
  t.eq(r.code, 130, t.read(out))
  local w = workspace(s)
  local rec = json.read(w .. "/steps.json")
  t.eq(rec[#rec].name, "benchmark")
  t.ok(rec[#rec].message:find("interrupted", 1, true), rec[#rec].message)
  -- what it says is where and what was saved, and what was not
  local said = t.read(out .. ".err")
  t.ok(said:find("compare.lua: interrupted during step 60 (benchmark) of run A.", 1, true), said)
  t.ok(said:find("Saved in " .. w .. ": steps.json (the steps completed; step 60 recorded as interrupted), "
    .. "commands.log, cluster.json, run-a/deployed.json (what run A deployed).", 1, true), said)
  t.ok(said:find("Not saved: run A's state and run A's vLLM logs (nothing is collected after an interrupt: Ctrl-C, SIGTERM or a hang-up, SIGHUP)", 1, true), said)
  t.ok(said:find("Continue with:               llmdlua compare.lua --resume " .. w .. "\n", 1, true), said)
  t.ok(said:find("Left deployed in namespace bench: run A (vllm-baseline): releases sim; kustomize ms; service "
    .. "llm-d-baseline-model-server.\nTear down without going on:  llmdlua compare.lua --resume " .. w .. " --step 90", 1, true), said)
  t.ok(not said:find("<workspace>", 1, true), said)
  r = compare(s, { "--resume", w })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local n = 0
  for _, c in ipairs(call_lines(s, w)) do
    if c:find("^helm upgrade %-%-install sim") then n = n + 1 end
  end
  t.eq(n, 1, "run A deployed once")
  t.ok(lfs.attributes(w .. "/comparison_report.md"))
  -- (newuser54 #5) each run replays its own recording, as a real cluster serves each run its
  -- own stack: run A's benchmark, cut short and run again, the first FAKE_RESULTS folder's (the
  -- kubecon vLLM run), run B the second's (the fake keeps each stage's recorded latencies as
  -- they are: the stage files' latency sections tell the recordings apart). It was run A B's
  -- and run B A's: the fake counted the interrupted call.
  local function latencies(dir)
    local set = {}
    for f in lfs.dir(dir) do
      if f:match("^stage_%d+_lifecycle_metrics%.json$") then
        set[json.encode(json.read(dir .. "/" .. f).successes.latency)] = true
      end
    end
    return set
  end
  local recorded = { a = latencies(BASE), b = latencies(TREAT) }
  for _, x in ipairs { "a", "b" } do
    local res = w .. "/run-" .. x .. "/results"
    local sub
    for f in lfs.dir(res) do if f:match("^inference%-perf_") then sub = res .. "/" .. f end end
    local got = latencies(sub)
    t.ok(next(got) ~= nil, x)
    for l in pairs(got) do t.ok(recorded[x][l], ("run %s replays its own recording"):format(x)) end
  end
end)

t.test("the fake cluster takes over a lock its holder left when killed, and waits for a live one", function()
  -- a call killed inside the fake's save() leaves FAKE_CLUSTER/.lock behind: later calls must
  -- not wait 30 s for a holder that is gone and then fail (exit 3), which made every test after
  -- such a kill slow and red. A pid above the kernel's pid_max (4194304 at most, Linux
  -- include/linux/threads.h PID_MAX_LIMIT) is never a live process.
  local s = setup()
  local function kc(...)
    local e = {}
    for k, v in pairs(s.env) do e[k] = v end
    return proc.run({ FAKEBIN .. "/kubectl", ... }, { env = e })
  end
  proc.run { "mkdir", "-p", s.cluster .. "/.lock" }
  t.write(s.cluster .. "/.lock/pid", "4194305\n")
  local t0 = os.time()
  local r = kc("-n", "lockns", "create", "configmap", "x")
  t.eq(r.code, 0, r.stderr)
  t.ok(os.time() - t0 < 20, "took over at once, not after the 30 s wait")
  t.ok(r.stderr:find(".lock left by a holder that is gone: taken over", 1, true), r.stderr)
  t.ok(not lfs.attributes(s.cluster .. "/.lock"), "let go after the save")
  t.ok(json.decode(t.read(s.cluster .. "/state.json")).ns.lockns, "the namespace saved")
  -- a live holder (this test's own process, which is alive) is waited for, not taken over
  -- (kept 1 s by a background removal; the call then goes on)
  proc.run { "mkdir", "-p", s.cluster .. "/.lock" }
  local me = t.read("/proc/self/stat"):match("^(%d+)")
  t.write(s.cluster .. "/.lock/pid", me .. "\n")
  local p = proc.spawn { "sh", "-c", "sleep 1; rm -f \"$0/pid\"; rmdir \"$0\"", s.cluster .. "/.lock" }
  r = kc("-n", "lockns2", "create", "configmap", "x")
  p:wait()
  t.eq(r.code, 0, r.stderr)
  t.ok(not r.stderr:find("taken over", 1, true), r.stderr)
  t.ok(json.decode(t.read(s.cluster .. "/state.json")).ns.lockns2, "the namespace saved")
  -- six calls at once finding one stale lock: one at a time removes it, so no two hold the
  -- lock together (two holders would each write the state as they read it, and the namespace
  -- of the one that wrote first would be lost)
  proc.run { "mkdir", "-p", s.cluster .. "/.lock" }
  t.write(s.cluster .. "/.lock/pid", "4194305\n")
  local ps = {}
  for i = 1, 6 do
    local e = {}
    for k, v in pairs(s.env) do e[k] = v end
    ps[i] = proc.spawn({ FAKEBIN .. "/kubectl", "-n", "race" .. i, "create", "configmap", "x" },
      { env = e, stdout = { file = s.dir .. "/race" .. i .. ".out" }, stderr = { file = s.dir .. "/race" .. i .. ".err" } })
  end
  for i = 1, 6 do t.eq(ps[i]:wait().code, 0, t.read(s.dir .. "/race" .. i .. ".err")) end
  local st = json.decode(t.read(s.cluster .. "/state.json"))
  for i = 1, 6 do t.ok(st.ns["race" .. i], "race" .. i .. " saved") end
  t.ok(not lfs.attributes(s.cluster .. "/.lock") and not lfs.attributes(s.cluster .. "/.lock.takeover"), "all let go")
end)

-- Calls of the fake kubectl in namespace ns that both read the state before either writes
-- (the fake's state lock held by this test until every call has logged its call, which each
-- does after reading the state), then write one after the other. list: { {argv, stdin
-- file or nil}, ... }. Returns each call's { exit code, stdout, stderr }, in list's order.
local function race(s, ns, list)
  local me = t.read("/proc/self/stat"):match("^(%d+)")
  proc.run { "mkdir", "-p", s.cluster .. "/.lock" }
  t.write(s.cluster .. "/.lock/pid", me .. "\n")
  local calls0 = #t.jsonl(s.cluster .. "/calls.log")
  local ps = {}
  for i, c in ipairs(list) do
    local e = {}
    for k, v in pairs(s.env) do e[k] = v end
    local full = { FAKEBIN .. "/kubectl", "-n", ns }
    for _, x in ipairs(c[1]) do full[#full + 1] = x end
    ps[i] = proc.spawn(full, { env = e, stdin = c[2] and { file = c[2] } or nil,
      stdout = { file = ("%s/%s%d.out"):format(s.dir, ns, i) }, stderr = { file = ("%s/%s%d.err"):format(s.dir, ns, i) } })
  end
  for _ = 1, 3000 do
    if #t.jsonl(s.cluster .. "/calls.log") >= calls0 + #list then break end
    proc.run { "sleep", "0.01" }
  end
  t.eq(#t.jsonl(s.cluster .. "/calls.log"), calls0 + #list, "every call started")
  os.remove(s.cluster .. "/.lock/pid")
  lfs.rmdir(s.cluster .. "/.lock")
  local out = {}
  for i = 1, #list do
    local r = ps[i]:wait()
    out[i] = { r.code, t.read(("%s/%s%d.out"):format(s.dir, ns, i)), t.read(("%s/%s%d.err"):format(s.dir, ns, i)) }
  end
  return out
end

t.test("the fake kubectl's create of a name two calls make at once: one is made, the other AlreadyExists", function()
  -- as the API server checks at the write: both calls read the state before either writes,
  -- so both found the name free. The texts are kubectl's for one there already (cmd/create:
  -- "failed to create deployment: " and the server's `deployments.apps "x" already exists`;
  -- create -f: `Error from server (AlreadyExists): error when creating "STDIN": ...`), exit 1.
  local s = setup()
  local function by_code(out)
    table.sort(out, function(x, y) return x[1] < y[1] end)
    return out
  end
  t.write(s.dir .. "/empty", "")
  local dep = { { "create", "deployment", "x", "--image=reg.example/img:1" }, s.dir .. "/empty" }
  t.eq(by_code(race(s, "dep", { dep, dep })), {
    { 0, "deployment.apps/x created\n", "" },
    { 1, "", 'error: failed to create deployment: deployments.apps "x" already exists\n' } })
  t.write(s.dir .. "/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: y\nspec:\n  ports:\n  - port: 80\n")
  local svc = { { "create", "-f", "-" }, s.dir .. "/svc.yaml" }
  t.eq(by_code(race(s, "svc", { svc, svc })), {
    { 0, "service/y created\n", "" },
    { 1, "", 'Error from server (AlreadyExists): error when creating "STDIN": services "y" already exists\n' } })
  local st = json.decode(t.read(s.cluster .. "/state.json"))
  t.ok(st.ns.dep.deployments.x, "the deployment there")
  t.ok(st.ns.svc.services.y, "the service there")
end)

t.test("the fake kubectl: two calls at once on different objects of one namespace both land, every time", function()
  -- an API server writes object by object: two writes at once to different objects of one
  -- namespace both land (a conflict is only ever on one object). The fake wrote a call's
  -- whole namespace back, so the second of two calls that both read the state before either
  -- wrote dropped what the first made. Each round races (race: both read, then both write)
  -- a ConfigMap, a Deployment (its ReplicaSet's pods), a Service and the delete of the
  -- previous round's ConfigMap; what must be there is counted by hand from the rounds.
  local s = setup()
  t.write(s.dir .. "/empty", "")
  local rounds = 6
  for i = 1, rounds do
    t.write(s.dir .. "/svc.yaml", ("apiVersion: v1\nkind: Service\nmetadata:\n  name: svc%d\nspec:\n  ports:\n"
      .. "  - port: 80\n"):format(i))
    local round = {
      { { "create", "configmap", "cm" .. i, "--from-literal=round=" .. i } },
      { { "create", "deployment", "dep" .. i, "--image=reg.example/img:1", "--replicas=2" }, s.dir .. "/empty" },
      { { "create", "-f", "-" }, s.dir .. "/svc.yaml" },
    }
    if i > 1 then round[#round + 1] = { { "delete", "configmap", "cm" .. (i - 1) } } end
    local out = race(s, "shared", round)
    for k, o in ipairs(out) do t.eq(o[1], 0, ("round %d call %d: %s"):format(i, k, o[3])) end
  end
  local ns = json.decode(t.read(s.cluster .. "/state.json")).ns.shared
  local function names(m)
    local out = {}
    for k in pairs(m or {}) do out[#out + 1] = k end
    table.sort(out)
    return out
  end
  -- (only the last round's ConfigMap: each earlier one deleted in the round after it)
  t.eq(names(ns.configmaps), { "cm" .. rounds })
  t.eq(ns.configmaps["cm" .. rounds].data, { round = tostring(rounds) })
  local deps, svcs = {}, {}
  for i = 1, rounds do deps[#deps + 1] = "dep" .. i; svcs[#svcs + 1] = "svc" .. i end
  table.sort(deps)
  table.sort(svcs)
  t.eq(names(ns.deployments), deps)
  t.eq(names(ns.services), svcs)
  local pods = 0
  for _, p in pairs(ns.pods) do if tostring(p.deploy):match("^dep%d$") then pods = pods + 1 end end
  t.eq(pods, 2 * rounds, "two pods of every Deployment")
  -- one object two calls change at once: still the API server's Conflict for the second
  -- (both replace the ConfigMap at the version they read; kubectl's text, exit 1)
  local v = ns.configmaps["cm" .. rounds].metadata.resourceVersion
  local doc = s.dir .. "/cm.json"
  t.write(doc, json.encode { apiVersion = "v1", kind = "ConfigMap",
    metadata = { name = "cm" .. rounds, resourceVersion = v }, data = { round = "again" } })
  local out = race(s, "shared", { { { "replace", "-f", "-" }, doc }, { { "replace", "-f", "-" }, doc } })
  table.sort(out, function(x, y) return x[1] < y[1] end)
  t.eq(out, { { 0, "configmap/cm" .. rounds .. " replaced\n", "" },
    { 1, "", 'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "cm'
      .. rounds .. '": the object has been modified; please apply your changes to the latest version and try again\n' } })
end)

t.test("baseline: no endpoints is an error that lists the pods' labels", function()
  local s = setup(function(plan)
    plan.runs.a.deploy.kustomize = nil -- only the router: nothing carries the serving label
  end)
  local r = compare(s)
  t.eq(r.code, 1)
  t.ok(r.stdout:gsub(POD_SUFFIX, "-<pod>"):find("service llm-d-baseline-model-server selects llm-d.ai/inference-serving=true but has no "
    .. "endpoints; pods and their labels: sim-epp-<pod> {app=sim-epp}", 1, true), r.stdout)
end)

t.test("plan validation names every bad key", function()
  local d = t.tmpdir()
  t.write(d .. "/p.yaml", yaml.dump {
    runs = { a = { label = "x", deploy = { method = "kustomize", model = 3 }, benchmark = { template = d .. "/none" } },
      b = { label = "x", existing = { results = d }, deploy = {} }, c = {} },
    nmespace = "typo",
  })
  local err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
  -- (an unknown key with the line it is on: each is on one line of the dumped file; a key at
  -- the top is named alone, not "(top).nmespace")
  t.ok(err:find("p.yaml:%d+: nmespace: unknown key"), err)
  t.ok(err:find("p.yaml:%d+: runs%.c: unknown key"), err)
  for _, want in ipairs {
    "p.yaml: runs.a.deploy.method: expected helmfile, helm or custom, got kustomize",
    "p.yaml: runs.a.deploy.model: expected the served model name",
    "p.yaml: runs.a.benchmark.template: " .. d .. "/none: no such file",
    "p.yaml: runs.b.label: 'x' is also the label of run a",
    "p.yaml: runs.b: either 'existing' (a pre-existing run) or 'deploy' + 'benchmark', not both",
  } do
    t.ok(err:find(want, 1, true), want .. "\n---\n" .. err)
  end
end)

-- A typo in a plan is one line: the file and the line it is on, the key, and the key it most
-- likely meant; never a second line about the key it stood for being missing ("runs.b.
-- benchmark.template: expected a run_only.sh config template", "runs: expected a mapping
-- with 'a' and 'b'": newuser44 got two lines for one typo). Lines counted by hand below.
t.test("plan validation: a misspelt key is one line naming the file, its line and the key meant", function()
  local d = t.tmpdir()
  t.mkdir(d .. "/guide")
  t.write(d .. "/template.yaml", "x: 1\n")
  local body = table.concat({
    "namespace: llm-d-try",                                                             -- 1
    "runs:",                                                                            -- 2
    "  a:",                                                                             -- 3
    "    label: base",                                                                  -- 4
    "    deploy: {method: helmfile, guide_dir: guide, environment: e, model: m}",       -- 5
    "    benchmark: {template: template.yaml, harness: inference-perf}",                -- 6
    "  b:",                                                                             -- 7
    "    label: cand",                                                                  -- 8
    "    deploy: {method: helmfile, guide_dir: guide, environment: e, model: m}",       -- 9
    "    benchmark:",                                                                   -- 10
    "      tempalte: template.yaml   # the typo",                                       -- 11
    "      harness: inference-perf",                                                    -- 12
  }, "\n") .. "\n"
  t.write(d .. "/p.yaml", body)
  local err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
  t.eq(err, d .. "/p.yaml:11: runs.b.benchmark.tempalte: unknown key (did you mean template? known: attempts, "
    .. "command, harness, load_stages, pvc, template, vars, workload)")
  -- the same at the top: "run:" for runs, on line 2
  t.write(d .. "/p.yaml", (body:gsub("\nruns:", "\nrun:")))
  err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
  t.eq(err, d .. "/p.yaml:2: run: unknown key (did you mean runs? known: benchmark_pvc, bins, namespace, parent, "
    .. "runs, slo, teardown, teardown_without_logs, timeouts)")
  -- a typo made twice, in both runs (line 5 and 9): each its line alone, without a line number
  -- where the key is on two lines (which is which is not told apart), and nothing more
  t.write(d .. "/p.yaml", (body:gsub("environment: e", "enviroment: e"):gsub("tempalte", "template")))
  err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
  local lines = {}
  for l in err:gmatch("[^\n]+") do lines[#lines + 1] = l:match("^(.-): unknown key") or l end
  table.sort(lines)
  t.eq(lines, { d .. "/p.yaml: runs.a.deploy.enviroment", d .. "/p.yaml: runs.b.deploy.enviroment" })
end)

-- newuser56 #5: a key known in another section of a run is refused with where it belongs, not
-- the list of this section's keys alone: runs.a.info.replicas goes under info's stack: (README:
-- "Other keys under stack: (replicas, tensor_parallel, ...) are kept as given"); gpus under
-- deploy: belongs under info:, chart under info: under deploy:. Expected lines by hand.
t.test("plan validation: a key of another section says where it belongs (info.replicas: under stack:)", function()
  local d = t.tmpdir()
  t.mkdir(d .. "/guide")
  t.write(d .. "/template.yaml", "x: 1\n")
  local function plan(info, deploy_extra)
    return table.concat({
      "namespace: llm-d-try",                                                                   -- 1
      "runs:",                                                                                  -- 2
      "  a:",                                                                                   -- 3
      "    label: base",                                                                        -- 4
      "    deploy: {method: helmfile, guide_dir: guide, environment: e, model: m" .. deploy_extra .. "}", -- 5
      "    benchmark: {template: template.yaml, harness: inference-perf}",                      -- 6
      "    info: " .. info,                                                                     -- 7
      "  b:",
      "    label: cand",
      "    deploy: {method: helmfile, guide_dir: guide, environment: e, model: m}",
      "    benchmark: {template: template.yaml, harness: inference-perf}",
    }, "\n") .. "\n"
  end
  local info_keys = "known: benchmark, decode_image, gateway, gpus, guide, hardware, harness, label, llmd_version, "
    .. "load_stages, model, namespace, slo, stack, timestamp, workload)"
  t.write(d .. "/p.yaml", plan("{gpus: 2, replicas: 2}", ""))
  local err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
  t.eq(err, d .. "/p.yaml:7: runs.a.info.replicas: unknown key (a fact of the setup belongs under runs.a.info.stack "
    .. "(stack: {replicas: ...}), kept as an extra row; " .. info_keys)
  t.write(d .. "/p.yaml", plan("{gpus: 2, chart: c}", ""))
  err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
  t.eq(err, d .. "/p.yaml:7: runs.a.info.chart: unknown key (it belongs under runs.a.deploy; " .. info_keys)
  t.write(d .. "/p.yaml", plan("{model: m}", ", gpus: 2"))
  err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
  t.ok(err:find(d .. "/p.yaml:5: runs.a.deploy.gpus: unknown key (it belongs under runs.a.info; known: chart, ",
    1, true), err)
  -- an info file (--a-info): the same, under its stack:
  t.write(d .. "/i.yaml", "gpus: 2\nreplicas: 2\n")
  err = t.raises("i.yaml", require("llmd.workspace").read_info, d .. "/i.yaml")
  t.eq(err, d .. "/i.yaml:2: unknown key 'replicas' (a fact of the setup belongs under stack: (stack: {replicas: "
    .. "...}), kept as an extra row; " .. info_keys)
end)

-- README: a misspelt key gets "did you mean" and never a second line about the key it stood for
-- missing. `lable` for `label` (two letters swapped) is 2 plain edits from label, beyond a
-- five-letter word's reach (a third of its length), so on main it got no suggestion and a second
-- line "runs.a.label: expected a non-empty string" (newuser55); a swap now counts 1 edit
-- (llmd.opts.closest, llmd_closest in C). labl (one letter dropped) and tempalte (a swap in an
-- 8-letter word) were within reach before and stay so. Expected lines by hand.
t.test("plan validation: lable, labl and tempalte each get did-you-mean and one line only", function()
  local d = t.tmpdir()
  t.mkdir(d .. "/guide")
  t.write(d .. "/template.yaml", "x: 1\n")
  local function plan(label_key, template_key)
    return table.concat({
      "namespace: llm-d-try",                                                           -- 1
      "runs:",                                                                          -- 2
      "  a:",                                                                           -- 3
      "    " .. label_key .. ": base",                                                  -- 4
      "    deploy: {method: helmfile, guide_dir: guide, environment: e, model: m}",     -- 5
      "    benchmark: {" .. template_key .. ": template.yaml, harness: inference-perf}", -- 6
      "  b:",
      "    label: cand",
      "    deploy: {method: helmfile, guide_dir: guide, environment: e, model: m}",
      "    benchmark: {template: template.yaml, harness: inference-perf}",
    }, "\n") .. "\n"
  end
  local run_keys = "known: baseline, benchmark, deploy, existing, info, label)"
  for _, k in ipairs { "lable", "labl" } do
    t.write(d .. "/p.yaml", plan(k, "template"))
    local err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
    t.eq(err, d .. "/p.yaml:4: runs.a." .. k .. ": unknown key (did you mean label? " .. run_keys)
  end
  t.write(d .. "/p.yaml", plan("label", "tempalte"))
  local err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
  t.eq(err, d .. "/p.yaml:6: runs.a.benchmark.tempalte: unknown key (did you mean template? known: attempts, "
    .. "command, harness, load_stages, pvc, template, vars, workload)")
  -- the rule itself, both twins: a swap is one edit (Lua), and the C one behind a Prometheus
  -- name's did-you-mean agrees (jbos_total: j-o swapped)
  local opts = require "llmd.opts"
  t.eq(opts.closest("lable", { "baseline", "label", "info" }), "label")
  t.eq(opts.closest("lbael", { "label" }), "label")
  t.eq(opts.closest("lbl", { "label" }), nil) -- (2 edits: beyond a 3-letter word's reach)
  local agg = require("llmd.prom").aggregator()
  agg:add("p", "# TYPE jobs_total gauge\njobs_total 2\n", 0)
  t.raises("(did you mean 'jobs_total'?)", agg.gauge_summary, agg, "jbos_total")
end)

-- An SLO in seconds (plan.yaml's slo: {ttft_p90_ms: 0.8}) was said ("is it in ms?") only by
-- the report, once both runs had deployed and benchmarked; the dry run exited 0 without a word
-- (newuser55 #4). Now said before anything deploys, the dry run too; a limit of 1 ms or more
-- (the floor, decision.SLO_MS_FLOOR) and an error rate are not. Texts by hand.
t.test("plan: an SLO limit in seconds (below 1 ms) is warned of before anything deploys, dry run too", function()
  local s = setup(function(plan) plan.slo = { ttft_p90_ms = 0.8, tpot_p90_ms = 40, error_rate_pct = 0.5 } end)
  local r = compare(s, { "--plan", s.plan, "--yes", "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local want = "compare.lua: warning: " .. s.plan .. ": slo: ttft_p90_ms=0.8: a TTFT p90 limit below 1 ms, which no "
    .. "LLM server meets over the network: is it in seconds? The limit is read in ms (ttft_p90_ms=800 for 0.8 s), so "
    .. "no load could meet it; said before anything is deployed\n"
  t.ok(r.stderr:find(want, 1, true), r.stderr)
  -- said once, and of that key only (40 ms and 0.5 % are no seconds)
  local _, n = r.stderr:gsub("is it in seconds%?", "")
  t.eq(n, 1, r.stderr)
  -- --slo wins over the plan's, and is checked the same way
  r = compare(s, { "--plan", s.plan, "--yes", "--dry-run", "--slo", "ttft_p90_ms=800,tpot_p90_ms=0.04" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stderr:find("compare.lua: warning: --slo: tpot_p90_ms=0.04: a TPOT p90 limit below 1 ms", 1, true), r.stderr)
  t.ok(not r.stderr:find("ttft_p90_ms=0.8", 1, true), r.stderr)
  -- the real run says it too, as its first line (before its preflight and deploys, which
  -- come after it in the same stderr; a failing deploy ends it early, the warning said all the same)
  r = compare(s, { "--plan", s.plan, "--yes", "--quiet" }, { FAKE_FAIL = "deploy" })
  t.eq(r.stderr:sub(1, #want), want, r.stderr)
end)

t.test("namespace: --namespace, then $NAMESPACE, then oc project -q; none is an error", function()
  local s = setup(function(plan) plan.namespace = nil end)
  local r = compare(s, { "--plan", s.plan, "--dry-run" }, { NAMESPACE = "from-env" })
  t.ok(r.stdout:find("Namespace: from-env", 1, true), r.stdout)
  r = compare(s, { "--plan", s.plan, "--dry-run" }, { FAKE_PROJECT = "from-oc" })
  t.ok(r.stdout:find("Namespace: from-oc", 1, true), r.stdout .. r.stderr)
  r = compare(s, { "--plan", s.plan, "--dry-run", "--namespace", "from-flag" }, { NAMESPACE = "from-env" })
  t.ok(r.stdout:find("Namespace: from-flag", 1, true))
  r = compare(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("no namespace: give --namespace", 1, true), r.stderr)
end)

t.test("namespace: plan and --namespace in one place; system namespaces refused, naming where they came from", function()
  -- both given and different: one line, nothing made
  local s = setup()
  local r = compare(s, { "--plan", s.plan, "--dry-run", "--namespace", "other-ns" })
  t.eq(r.code, 1, r.stdout)
  t.ok(r.stderr:find("--namespace other-ns: " .. s.plan .. ": namespace says bench; give the namespace in one place",
    1, true), r.stderr)
  t.eq(workspace(s), nil, "no workspace")
  -- the same in both is no conflict
  r = compare(s, { "--plan", s.plan, "--dry-run", "--namespace", "bench" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Namespace: bench", 1, true))
  -- system namespaces, wherever they come from (the list: kube-*, openshift-*, default, istio-system, ...)
  for _, ns in ipairs { "kube-system", "kube-public", "kube-node-lease", "default", "openshift-monitoring",
    "istio-system" } do
    s = setup(function(plan) plan.namespace = ns end)
    r = compare(s, { "--plan", s.plan, "--dry-run" })
    t.eq(r.code, 1, ns)
    t.ok(r.stderr:find(s.plan .. ": namespace: " .. ns .. " is a system namespace", 1, true), r.stderr)
    t.eq(workspace(s), nil, "no workspace")
  end
  s = setup(function(plan) plan.namespace = nil end)
  r = compare(s, { "--plan", s.plan, "--dry-run", "--namespace", "kube-system" })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("--namespace kube-system: kube-system is a system namespace", 1, true), r.stderr)
  r = compare(s, { "--plan", s.plan, "--dry-run" }, { NAMESPACE = "default" })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("$NAMESPACE (default): default is a system namespace", 1, true), r.stderr)
  r = compare(s, { "--plan", s.plan, "--dry-run" }, { FAKE_PROJECT = "openshift-ingress" })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("the OpenShift project (oc project -q): openshift-ingress is a system namespace", 1, true),
    r.stderr)
  -- a namespace that merely contains such a word is the user's
  r = compare(s, { "--plan", s.plan, "--dry-run", "--namespace", "my-default" })
  t.eq(r.code, 0, r.stderr)
end)

t.test("endpoint: the port that serves HTTP, not the first one (Istio lists its status port first)", function()
  -- expected ports chosen by hand from the rule: name http/http2, else appProtocol, else 80/8000/8080
  local istio = { ports = { { name = "status-port", port = 15021, appProtocol = "tcp" },
    { name = "default", port = 80, appProtocol = "http" } } }
  t.eq(cluster.http_port(istio), 80)
  t.eq(select(2, cluster.http_port(istio)), "port 80 (appProtocol http)")
  t.eq(cluster.http_port { ports = { { name = "status-port", port = 15021 }, { name = "http2", port = 8081 } } }, 8081)
  t.eq(cluster.http_port { ports = { { name = "grpc", port = 9002 }, { name = "metrics", port = 8080 } } }, 8080)
  local none, listed = cluster.http_port { ports = { { name = "grpc", port = 9002 } } }
  t.eq(none, nil)
  t.eq(listed, "9002 (grpc)")
  -- on the fake cluster (the gateway Service as Istio makes it): the run answers through port 80,
  -- where the first port (15021) would have given HTTP 404
  local s = setup()
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("endpoint: service infra-sim-inference-gateway-istio, port 80 (appProtocol http)", 1, true), r.stdout)
  -- deploy.service NAME without a port: its HTTP port is looked up the same way
  s = setup(function(plan) plan.runs.b.deploy.service = "infra-sim-inference-gateway-istio" end)
  r = compare(s, nil, { FAKE_FAIL = false })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(table.concat(call_lines(s, workspace(s)), "\n"):find(
    "port-forward svc/infra-sim-inference-gateway-istio <port>:80", 1, true))
  -- an explicit port always wins: the status port, asked for, is used (and answers 404)
  s = setup(function(plan) plan.runs.b.deploy.service = "infra-sim-inference-gateway-istio:15021" end)
  r = compare(s)
  t.eq(r.code, 1)
  t.ok(r.stdout:find("GET infra-sim-inference-gateway-istio/v1/models: HTTP 404", 1, true), r.stdout)
  -- baseline + service is a contradiction, refused at validation
  s = setup(function(plan) plan.runs.a.deploy.service = "mine:8000" end)
  r = compare(s)
  t.eq(r.code, 1)
  t.ok(r.stderr:find("runs.a.deploy.service: a baseline run benchmarks the llm-d-baseline-model-server Service", 1,
    true), r.stderr)
end)

t.test("resume uses the namespace and kube context the workspace was made in", function()
  -- made in bench-ns (from --namespace), context prod; the shell's project is now "default"
  local s = setup(function(plan) plan.namespace = nil end)
  local r = compare(s, { "--plan", s.plan, "--namespace", "bench-ns" }, { FAKE_FAIL = "nologs", FAKE_CONTEXT = "prod" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  t.eq(json.read(w .. "/cluster.json"), { namespace = "bench-ns", context = "prod",
    server = "https://api.prod.example.com:6443" })
  t.ok(state(s).ns["bench-ns"].releases.sim, "run A is deployed in bench-ns")
  -- the teardown hint as printed: it tears down bench-ns, never the current project
  r = compare(s, { "--resume", w, "--step", "90" }, { FAKE_PROJECT = "default", FAKE_CONTEXT = "prod" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Namespace: bench-ns (recorded in the workspace)", 1, true), r.stdout)
  t.eq(next(state(s).ns["bench-ns"].releases), nil, "run A torn down in bench-ns")
  for _, c in ipairs(calls(s)) do
    local line = table.concat(c.args, " ")
    t.ok(not line:find("default", 1, true), "nothing ran in the current project: " .. c.tool .. " " .. line)
  end
  -- another namespace or another context on resume is an error, before any change
  local before = #calls(s)
  r = compare(s, { "--resume", w, "--namespace", "other" }, { FAKE_CONTEXT = "prod" })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("--namespace other: " .. w .. " was made in namespace bench-ns", 1, true), r.stderr)
  r = compare(s, { "--resume", w }, { FAKE_CONTEXT = "staging" })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("was made in kube context prod, the current context is staging", 1, true), r.stderr)
  local after = calls(s)
  for i = before + 1, #after do
    t.ok(after[i].args[3] == "config" and (after[i].args[4] == "current-context" or after[i].args[4] == "view"),
      "only the context and its server were read: " .. table.concat(after[i].args, " "))
  end
end)

t.test("a port-forward refused by the API server is retried, and used once it forwards", function()
  local s = setup()
  local r = compare(s, nil, { FAKE_FAIL_ONCE = "portforward" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("kubectl port-forward svc/llm-d-baseline-model-server: The connection to the server "
    .. "127.0.0.1:6443 was refused - did you specify the right host or port? - trying again", 1, true), r.stdout)
  local n = 0
  for _, c in ipairs(call_lines(s, workspace(s))) do
    if c:find("port-forward svc/llm-d-baseline-model-server", 1, true) then n = n + 1 end
  end
  t.eq(n, 2, "refused once, then forwarded")
  -- refused every time: the step fails after the retries, naming the command and what it said
  s = setup()
  r = compare(s, nil, { FAKE_FAIL = "portforward" })
  t.eq(r.code, 1)
  t.ok(r.stdout:find("kubectl port-forward svc/llm-d-baseline-model-server failed (exit 1) after 4 attempt(s): "
    .. "The connection to the server", 1, true), r.stdout)
end)

t.test("results: this run's experiment folder only, whatever the old launcher pod's state", function()
  -- by hand: folder names as run_only.sh makes them, <harness>_<uid>_<workload>_<stack>
  local names = { "inference-perf_1761000000_sanity_random_old-stack", "inference-perf_1761000500_sanity_random_s",
    "guidellm_1761000500_chat_s", "notes.txt" }
  t.eq(cluster.this_runs_folders(names, "1761000500"), { "guidellm_1761000500_chat_s",
    "inference-perf_1761000500_sanity_random_s" })
  t.eq(cluster.this_runs_folders(names, nil, 1761000400, 1761000600), { "guidellm_1761000500_chat_s",
    "inference-perf_1761000500_sanity_random_s" })
  t.eq(cluster.this_runs_folders(names, nil, 1761000600, 1761000700), {})
  t.eq(cluster.experiment_uid("export LLMDBENCH_RUN_EXPERIMENT_ID=\"1761000500_sanity_random\""), "1761000500")
  t.eq(cluster.experiment_uid("Verifying model m using pod llmdbench-verify-model-1761000500"), "1761000500")
  t.eq(cluster.experiment_uid("==> Running harness"), nil)
  -- the fake: a reused PVC with an older run's folder, and that run's launcher pod Completed
  -- (exec into it fails as kubectl does); only this run's folder is taken
  local s = setup(function(plan) plan.runs.b = { label = "before", existing = { results = TREAT } } end)
  local r = compare(s, nil, { FAKE_OLD_RESULTS = TREAT })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  local got = {}
  for n in lfs.dir(w .. "/run-a/results") do if n:match("^inference") then got[#got + 1] = n end end
  t.eq(#got, 1, table.concat(got, ", "))
  t.ok(not got[1]:find("old-stack", 1, true), got[1])
  -- and the numbers are this run's (BASE's 1 req/s stage, the template's one: python3, its
  -- TTFT p90 x 1000), not the old folder's (TREAT: 34.44450836395845 there)
  local rows = {}
  for _, row in ipairs(json.read(w .. "/comparison.json").perf) do rows[row.key] = row end
  t.near(rows.ttft_p90_ms.a, 35.40639606071636, 1e-9)
end)

t.test("helmfile: one environment; a list of more is an error (helmfile would keep only the last)", function()
  local s = setup(function(plan) plan.runs.b.deploy.environment = nil; plan.runs.b.deploy.environments = { "cuda" } end)
  local r = compare(s, nil, { FAKE_FAIL = false })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(table.concat(call_lines(s, workspace(s)), "\n"):find("helmfile -n bench apply -e cuda --skip-crds\n", 1, true))
  s = setup(function(plan) plan.runs.b.deploy.environment = nil; plan.runs.b.deploy.environments = { "cuda", "istio" } end)
  r = compare(s)
  t.eq(r.code, 1)
  t.ok(r.stderr:find("runs.b.deploy.environments: helmfile's --environment takes one value, got 2 (cuda, istio)", 1,
    true), r.stderr)
  t.eq(lfs.attributes(s.cluster .. "/calls.log"), nil, "refused before any call")
  -- the fake's helmfile takes the flag as helmfile does: the last -e wins, the first is dropped
  local d = t.tmpdir()
  proc.run { "mkdir", "-p", d .. "/g", d .. "/c" }
  t.write(d .. "/g/helmfile.yaml", "releases:\n  - name: infra-x\n    chart: llm-d-infra/llm-d-infra\n")
  local pr = proc.run({ FAKEBIN .. "/helmfile", "-n", "ns", "apply", "-e", "cuda", "-e", "istio" },
    { cwd = d .. "/g", env = { FAKE_CLUSTER = d .. "/c", FAKE_LLMDLUA = LLMDLUA } })
  t.eq(pr.code, 0, pr.stderr)
  t.eq(json.read(d .. "/c/state.json").ns.ns.releases["infra-x"].environment, "istio")
end)

t.test("teardown removes what this run deployed; another release in the namespace is left alone", function()
  local s = setup()
  local r = compare(s, nil, { FAKE_OTHER_RELEASE = "1" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ns = state(s).ns.bench
  t.ok(ns.releases["a-team-infra"], "the other release is kept")
  -- (llm-d-infra names its Gateway <release>-inference-gateway)
  t.ok(ns.gateways["a-team-infra-inference-gateway"] and ns.httproutes["a-team-infra"], "its gateway and route are kept")
  t.ok(ns.services["a-team-infra-inference-gateway-istio"], "its gateway Service is kept")
  t.eq(ns.releases.sim, nil)
  t.eq(ns.releases["infra-sim"], nil)
  t.eq(ns.gateways["infra-sim-inference-gateway"], nil)
  local lines = table.concat(call_lines(s, workspace(s)), "\n")
  t.ok(not lines:find("delete httproute[%w.]* %-%-all") and not lines:find("delete gateway[%w.]* %-%-all"),
    "no sweep: " .. lines)
  t.ok(not lines:find("a-team", 1, true), "nothing was done to a-team-infra")
  -- B benchmarked its own gateway, not the other one that sorts first
  t.ok(lines:find("port-forward svc/infra-sim-inference-gateway-istio", 1, true), lines)
  local msg
  for _, o in ipairs(json.read(workspace(s) .. "/steps.json")) do
    if o.name == "teardown" and o.stack == "b" then msg = o.message end
  end
  t.ok(msg:find("removed what this run deployed (releases: gaie-sim, infra-sim, ms-sim; routes: infra-sim; "
    .. "gateways: infra-sim-inference-gateway; kustomize: none); verified gone; 1 other release(s)", 1, true), msg)
  -- what each run deployed is in the workspace
  local dep = json.read(workspace(s) .. "/run-a/deployed.json")
  t.eq(dep.releases, { "sim" })
  t.eq(dep.kustomize, { "ms" })
  t.eq(dep.before.releases, { "a-team-infra" })
  -- a release of the same name that is not ours is never upgraded
  s = setup(function(plan) plan.runs.a.deploy.release = "a-team-infra" end)
  r = compare(s, nil, { FAKE_OTHER_RELEASE = "1" })
  t.eq(r.code, 1)
  t.ok(r.stdout:find("run a: release a-team-infra (llm-d-infra-v1.2.4, deployed, revision 3; helm upgrade would "
    .. "change it) already exists in namespace bench and was not deployed by this comparison", 1, true), r.stdout)
  -- the reference procedure's namespace-wide sweep, only when the plan says so (confirmed by --yes)
  s = setup(function(plan) plan.teardown = "namespace-wide" end)
  r = compare(s, nil, { FAKE_OTHER_RELEASE = "1" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("teardown: namespace-wide (the plan says so) - everything in bench: releases: a-team-infra, sim; "
    .. "HTTPRoutes: a-team-infra; Gateways: a-team-infra", 1, true), r.stdout)
  t.eq(next(state(s).ns.bench.releases), nil)
  t.ok(table.concat(call_lines(s, workspace(s)), "\n"):find("helm uninstall a-team-infra sim --ignore-not-found", 1,
    true))
  -- (clusterfix2) the sweep lists every release (helm list --all) but leaves one uninstalled
  -- with --keep-history (status uninstalled: nothing of it in the namespace; helm uninstall
  -- would purge its history)
  s = setup(function(plan) plan.teardown = "namespace-wide" end)
  r = compare(s, nil, { FAKE_OTHER_RELEASE = "1", FAKE_RELEASE_STATES = "kept-history:uninstalled" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("teardown: namespace-wide (the plan says so) - everything in bench: releases: a-team-infra, sim; "
    .. "HTTPRoutes: a-team-infra; Gateways: a-team-infra", 1, true), r.stdout)
  t.eq(state(s).ns.bench.releases["kept-history"].status, "uninstalled", "its history kept")
  -- not confirmed (no --yes, no terminal): nothing removed
  s = setup(function(plan) plan.teardown = "namespace-wide" end)
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.FAKE_OTHER_RELEASE = "1"
  r = proc.run({ LLMDLUA, "compare.lua", "--quiet", "--plan", s.plan }, { env = env, timeout = 120, stdin = "" })
  t.eq(r.code, 1)
  t.ok(r.stdout:find("the namespace-wide teardown was not confirmed", 1, true), r.stdout)
  t.ok(state(s).ns.bench.releases["a-team-infra"] and state(s).ns.bench.releases.sim, "nothing removed")
end)

-- (nu12) A plan without benchmark.workload: the workload is the one the benchmark config
-- names (the fixture template's workload: has the one key sanity_random - read by hand
-- from optimized-baseline-sanity.yaml), in the dry run's plan, the state and the report.
-- (nu13) Each teardown says what it removed and that PVCs and namespace stay (written by
-- hand from what each run deployed: A the helm release sim, kustomize ms and the baseline
-- Service; B the helmfile's three releases, with infra-sim's route and gateway).
t.test("the workload comes from the benchmark config; each teardown says what it removed and what stays", function()
  local s = setup(function(plan)
    for _, x in ipairs { "a", "b" } do plan.runs[x].benchmark.workload = nil end
  end)
  local r = compare(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local _, n = r.stdout:gsub("%]   workload: sanity_random %(the workload: of the benchmark config%)\n", "")
  t.eq(n, 2, r.stdout)
  r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  for _, x in ipairs { "a", "b" } do
    t.eq(json.read(w .. "/run-" .. x .. "/run_state.json").benchmark.workload, "sanity_random")
  end
  t.ok(t.read(w .. "/comparison_report.md"):find("| Workload | sanity_random | sanity_random |", 1, true))
  t.ok(r.stdout:find("]   removed what this run deployed (releases: sim; routes: none; gateways: none; kustomize: ms "
    .. "(Deployment/ms-decode); service: llm-d-baseline-model-server); verified gone; 0 other release(s), PVCs and namespace bench kept\n", 1,
    true), r.stdout)
  t.ok(r.stdout:find("]   removed what this run deployed (releases: gaie-sim, infra-sim, ms-sim; routes: infra-sim; "
    .. "gateways: infra-sim-inference-gateway; kustomize: none); verified gone; 0 other release(s), PVCs and namespace "
    .. "bench kept\n", 1,
    true), r.stdout)
  -- the plan's own workload wins
  s = setup(function(plan) plan.runs.b.benchmark.workload = "chat" end)
  r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(json.read(workspace(s) .. "/run-b/run_state.json").benchmark.workload, "chat")
  t.ok(r.stdout:find("]   workload: chat (the plan's benchmark.workload)\n", 1, true), r.stdout)
  -- the config's workloads, read as YAML: several in name order; none, or no YAML: nil
  t.eq(cluster.config_workloads("workload:\n  zeta: {}\n  alpha: {load: 1}\n"), "alpha, zeta")
  t.eq(cluster.config_workloads("harness: {name: x}\n"), nil)
  t.eq(cluster.config_workloads("workload: [a, b]\n"), nil)
  t.eq(cluster.config_workloads("workload: {a: [\n"), nil)
end)

-- The same rule on the helmfile path (nu2): a release the guide's helmfile names that is
-- already in the namespace and not this comparison's is refused before any change - not
-- upgraded (nor, with installed: false, uninstalled). Which releases the helmfile acts on,
-- helmfile itself says (`helmfile list --output json --skip-charts`: it reads the state
-- files and calls no helm); what is there, helm (`helm list -o json`). Expected: the fake's
-- a-team-infra as FAKE_OTHER_RELEASE makes it (chart llm-d-infra-v1.2.4, revision 3),
-- written by hand.
t.test("helmfile deploy: a release of the same name that is not this comparison's is refused before any change",
  function()
  for _, case in ipairs {
    -- (mend54 #6: apply upgrades it only where the helmfile's release differs: said so, and "may change")
    { installed = "", verb = "helmfile apply would upgrade it wherever this helmfile's release differs from it" },
    { installed = "    installed: false\n", verb = "installed: false, so helmfile apply would uninstall it" },
  } do
    local s = setup()
    t.write(s.dir .. "/guide/helmfile.yaml", "releases:\n  - name: a-team-infra\n    chart: llm-d-infra/llm-d-infra\n"
      .. case.installed .. "  - name: ms-sim\n    chart: llm-d-modelservice/llm-d-modelservice\n")
    local r = compare(s, nil, { FAKE_OTHER_RELEASE = "1" })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.ok(r.stdout:find("[20] deploy (b): FAILED - run b: release a-team-infra (llm-d-infra-v1.2.4, deployed, revision "
      .. "3; " .. case.verb .. ") already exists in namespace bench and was not deployed by this comparison: deploying "
      .. "may change someone else's stack and teardown could not remove it; rename the release in the helmfile (or "
      .. "remove it from the namespace first, if it is yours); nothing of this run was deployed\n", 1, true), r.stdout)
    -- nothing of run B was deployed, nothing recorded for it, a-team-infra as it was
    local ns = state(s).ns.bench
    t.eq(ns.releases["a-team-infra"].revision, 3, "not upgraded")
    t.eq(ns.releases["ms-sim"], nil)
    t.ok(r.stdout:find("\nEverything this comparison deployed in namespace bench was torn down; nothing needs tearing "
      .. "down.\n", 1, true), r.stdout)
    t.eq(lfs.attributes(workspace(s) .. "/run-b/deployed.json"), nil, "nothing recorded for run B")
    local lines = call_lines(s, workspace(s))
    local listed = false
    for _, c in ipairs(lines) do
      t.ok(not (c:match("^helmfile") and c:find(" apply ", 1, true)), "helmfile apply never ran: " .. c)
      if c == "helmfile -n bench list -e istio --output json --skip-charts" then listed = true end
      -- every call scoped to the namespace: none cluster-wide, none elsewhere
      if not c:match("^run_only") then
        t.ok(c:find(" -n bench", 1, true) and not c:find("--all-namespaces", 1, true) and not c:find(" -A", 1, true), c)
      end
    end
    t.ok(listed, table.concat(lines, "\n"))
  end
end)

-- The fake's helm list, against helm 3's pkg/action/list.go (read with the search tool,
-- helm/helm): the state mask is deployed|failed unless --all (every state) or a state flag
-- (added to the mask); names sorted; --offset, then at most --max (default 256; 0 or less:
-- no limit: `if l.Limit > 0 && l.Limit < limit`). Helm 4 (helm/helm#31295) lists every state
-- by default and has no --all. The counts are by hand: 300 other releases (deployed) and
-- sim (pending-install), whose name sorts after every other-NNN.
t.test("the fake's helm list: --max (256 by default, 0 no limit), the state filter and --all as helm 3/4 do", function()
  local d = t.tmpdir()
  local function helm(envx, ...)
    local env = { FAKE_CLUSTER = d, FAKE_LLMDLUA = LLMDLUA, FAKE_RELEASES = "300",
      FAKE_RELEASE_STATES = "sim:pending-install" }
    for k, v in pairs(envx) do env[k] = v end
    return proc.run({ FAKEBIN .. "/helm", ... }, { env = env })
  end
  local function names(r)
    t.eq(r.code, 0, r.stderr)
    local out = {}
    for _, it in ipairs(json.decode(r.stdout)) do out[#out + 1] = it.name .. ":" .. it.status end
    return out
  end
  local l = names(helm({}, "list", "-o", "json", "-n", "ns"))
  t.eq(#l, 256)
  t.eq(l[1], "other-000:deployed")
  t.eq(l[256], "other-255:deployed")
  t.eq(#names(helm({}, "list", "--max", "0", "-o", "json", "-n", "ns")), 300) -- the pending one left out
  l = names(helm({}, "list", "--all", "--max", "0", "-o", "json", "-n", "ns"))
  t.eq(#l, 301)
  t.eq(l[301], "sim:pending-install")
  t.eq(names(helm({}, "list", "--pending", "-o", "json", "-n", "ns")), { "sim:pending-install" })
  t.eq(names(helm({}, "list", "-a", "-m", "2", "--offset", "299", "-o", "json", "-n", "ns")),
    { "other-299:deployed", "sim:pending-install" })
  local r = helm({}, "list", "--all", "--max", "0", "-q", "-n", "ns")
  t.eq(select(2, r.stdout:gsub("\n", "")), 301)
  -- helm 4: no --all (cobra's words), every state by default
  r = helm({ FAKE_HELM_MAJOR = "4" }, "list", "--all", "--max", "0", "-o", "json", "-n", "ns")
  t.eq(r.code, 1)
  t.eq(r.stderr, "Error: unknown flag: --all\n")
  t.eq(#names(helm({ FAKE_HELM_MAJOR = "4" }, "list", "--max", "0", "-o", "json", "-n", "ns")), 301)
  -- helm will not upgrade a release whose install is under way
  r = helm({}, "upgrade", "--install", "sim", "llm-d-infra", "-n", "ns")
  t.eq(r.code, 1)
  t.eq(r.stderr, "Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress\n")
end)

-- (clusterfix2 1) The before-deploy snapshot listed releases with `helm list -o json`: helm's
-- first 256, deployed or failed only. In a namespace with 300 other releases, someone's
-- release named like ours (sorting after them, or still being installed) was not seen: the
-- refusal let `helm upgrade --install` change it. Listed with --all --max 0 (helm 4: asked
-- again without --all), it is refused before any change. Expected message: the refusal's
-- words with what the fake's helm list says of sim (chart other-1.0.0, revision 1, the
-- state set), written by hand.
t.test("a release of the same name past helm list's 256 or not yet deployed is refused before any change", function()
  for _, case in ipairs {
    { status = "pending-install" },
    { status = "deployed" },
    { status = "pending-upgrade", helm4 = true },
  } do
    local s = setup()
    local r = compare(s, nil, { FAKE_RELEASES = "300", FAKE_RELEASE_STATES = "sim:" .. case.status,
      FAKE_HELM_MAJOR = case.helm4 and "4" or false })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.ok(r.stdout:find("[20] deploy (a): FAILED - run a: release sim (other-1.0.0, " .. case.status .. ", revision 1; "
      .. "helm upgrade would change it) already exists in namespace bench and was not deployed by this comparison",
      1, true), r.stdout)
    local lines = call_lines(s, workspace(s))
    local lists = {}
    for _, c in ipairs(lines) do
      t.ok(not c:match("^helm upgrade") and not c:find("apply -k ms", 1, true), "nothing of run A ran: " .. c)
      if c:match("^helm list") then lists[#lists + 1] = c end
    end
    if case.helm4 then
      -- helm 4 refuses --all once; every later list is without it
      t.eq(lists[1], "helm list --all --max 0 -o json -n bench")
      for i = 2, #lists do t.eq(lists[i], "helm list --max 0 -o json -n bench") end
    else
      for _, c in ipairs(lists) do t.eq(c, "helm list --all --max 0 -o json -n bench") end
    end
    local ns = state(s).ns.bench
    t.eq(ns.releases.sim.status, case.status, "sim as it was")
    t.eq(ns.releases.sim.revision, 1)
    t.eq(lfs.attributes(workspace(s) .. "/run-a/deployed.json"), nil, "nothing recorded for run A")
  end
end)

-- (clusterfix2 3) Teardown's `kubectl delete -k DIR` deletes, by name, every object the
-- kustomization names: one that was in the namespace before (someone else's ConfigMap of
-- the same name) was changed by the deploy's `kubectl apply -k` and then deleted. Now the
-- deploy asks first (`kubectl get -k DIR --ignore-not-found -o json`) and refuses, before
-- any change. Expected: the fake's objects as seeded, the message written by hand.
t.test("kustomize: an object of the same name already in the namespace is refused, never applied or deleted", function()
  local s = setup()
  t.write(s.dir .. "/guide/ms/kustomization.yaml", "resources:\n  - cm.yaml\n")
  t.write(s.dir .. "/guide/ms/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared-config\n"
    .. "data:\n  k: v\n")
  local r = compare(s, nil, { FAKE_OTHER_OBJECTS = "ConfigMap/shared-config,ConfigMap/unrelated" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("[20] deploy (a): FAILED - run a: kustomize ms names ConfigMap/shared-config already in namespace "
    .. "bench that this comparison did not create: kubectl apply -k would change it and teardown's kubectl delete -k "
    .. "would delete it; rename it in the kustomization (or remove it from the namespace first, if it is yours); "
    .. "nothing of this run was deployed\n", 1, true), r.stdout)
  local ns = state(s).ns.bench
  t.eq(ns.other["ConfigMap/shared-config"], "someone", "someone else's ConfigMap as it was")
  t.eq(ns.other["ConfigMap/unrelated"], "someone")
  for _, c in ipairs(call_lines(s, workspace(s))) do
    t.ok(not c:find("apply -k", 1, true) and not c:find("delete -k", 1, true) and not c:match("^helm upgrade .* sim "),
      "nothing of run A ran: " .. c)
  end
  -- its own ConfigMap (none there before): applied, and deleted by its teardown (beside the
  -- model server's Deployment, whose pods the baseline Service needs)
  s = setup()
  t.write(s.dir .. "/guide/ms/kustomization.yaml", "resources:\n  - cm.yaml\n  - decode.yaml\n")
  t.write(s.dir .. "/guide/ms/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared-config\n")
  r = compare(s, nil, { FAKE_OTHER_OBJECTS = "ConfigMap/unrelated" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  ns = state(s).ns.bench
  t.eq(ns.other["ConfigMap/shared-config"], nil, "its own: removed by teardown")
  t.eq(ns.other["ConfigMap/unrelated"], "someone", "another object kept")
end)

-- (clusterfix2 3) What a deploy added was the namespace's difference before/after it: a
-- release another team installed meanwhile in the shared namespace was recorded as this
-- run's, and its teardown uninstalled it. Now only the deploy's own releases are recorded
-- (helm's deploy.release; the helmfile's, as helmfile lists them). Expected by hand: run
-- A's release is sim, run B's the helmfile's three.
t.test("a release another team installs during the deploy is not recorded as this run's, nor torn down", function()
  local s = setup()
  local r = compare(s, nil, { FAKE_CONCURRENT_RELEASE = "zz-other-team" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("release zz-other-team appeared in bench during the deploy but is not one of its releases: not "
    .. "recorded as this run's (teardown leaves it)", 1, true), r.stdout)
  local w = workspace(s)
  t.eq(json.read(w .. "/run-a/deployed.json").releases, { "sim" })
  t.eq(json.read(w .. "/run-b/deployed.json").releases, { "gaie-sim", "infra-sim", "ms-sim" })
  local ns = state(s).ns.bench
  t.ok(ns.releases["zz-other-team"], "the other team's release is kept")
  t.eq(ns.releases.sim, nil)
  t.eq(ns.releases["ms-sim"], nil)
  -- the same during run B's helmfile apply
  s = setup()
  r = compare(s, nil, { FAKE_CONCURRENT_RELEASE = "zz-other-team@helmfile" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(json.read(workspace(s) .. "/run-b/deployed.json").releases, { "gaie-sim", "infra-sim", "ms-sim" })
  t.ok(state(s).ns.bench.releases["zz-other-team"], "kept")
end)

t.test("resume with a relative workspace path, from another folder; --plan on resume replaces the plan", function()
  -- the plan's paths relative to where it is started
  local s = setup(function(plan)
    plan.parent = "."
    for _, x in ipairs { "a", "b" } do
      plan.runs[x].deploy.guide_dir = "guide"
      plan.runs[x].benchmark.template = "template.yaml"
    end
    plan.runs.a.benchmark.attempts = 1
  end)
  local r = compare(s, { "--plan", "plan.yaml" }, { FAKE_FAIL = "bench_nojson" }, s.dir)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  local name = w:match("[^/]+$")
  t.ok(r.stdout:find("(it uses " .. w .. "/plan.yaml, the plan as this comparison started; add --plan FILE to "
    .. "replace it)", 1, true), r.stdout)
  -- resumed from the guide folder with ../<workspace>: the benchmark gets an absolute config path
  r = compare(s, { "--resume", "../" .. name }, nil, s.dir .. "/guide")
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(lfs.attributes(w .. "/comparison_report.md"), "the report")
  local runs = {}
  for _, c in ipairs(calls(s)) do if c.tool == "run_only.sh" then runs[#runs + 1] = c.args[2] end end
  t.eq(runs[#runs], w .. "/run-b/benchmark/config.yaml")
  -- --plan on resume: validated, then it replaces the workspace's copy (the old one kept)
  local s2 = setup(function(plan) plan.runs.a.benchmark.attempts = 1 end)
  r = compare(s2, nil, { FAKE_FAIL = "bench_nojson" })
  t.eq(r.code, 1)
  local w2 = workspace(s2)
  local bad = yaml.load(t.read(s2.plan))
  bad.runs.b.deploy.method = "kustomize"
  t.write(s2.dir .. "/bad.yaml", yaml.dump(bad))
  r = compare(s2, { "--resume", w2, "--plan", s2.dir .. "/bad.yaml" })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("bad.yaml: runs.b.deploy.method: expected helmfile, helm or custom", 1, true), r.stderr)
  local new = yaml.load(t.read(s2.plan))
  new.runs.b.label = "renamed-b"
  t.write(s2.dir .. "/new.yaml", yaml.dump(new))
  r = compare(s2, { "--resume", w2, "--plan", s2.dir .. "/new.yaml" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Plan: " .. s2.dir .. "/new.yaml replaces the workspace's plan", 1, true), r.stdout)
  t.eq(yaml.load(t.read(w2 .. "/plan.yaml")).runs.b.label, "renamed-b")
  t.eq(json.read(w2 .. "/comparison.json").b.label, "renamed-b")
end)

t.test("resume after failed benchmark attempts keeps each attempt and finishes", function()
  local s = setup()
  local r = compare(s, nil, { FAKE_FAIL = "bench_nojson" }) -- 2 attempts, both fail
  t.eq(r.code, 1)
  local w = workspace(s)
  r = compare(s, { "--resume", w }, { FAKE_FAIL = "bench_nojson" }) -- 2 more
  t.eq(r.code, 1)
  r = compare(s, { "--resume", w }) -- fixed
  t.eq(r.code, 0, r.stdout .. r.stderr)
  -- attempts 1-4 kept (5 calls of run_only.sh for A, the last one good), none mixed into results
  for n = 1, 4 do
    t.eq(lfs.attributes(("%s/run-a/results-attempt-%d"):format(w, n), "mode"), "directory", "attempt " .. n)
  end
  t.eq(lfs.attributes(w .. "/run-a/results-attempt-5"), nil)
  local got = {}
  for n in lfs.dir(w .. "/run-a/results") do if n:match("^inference") then got[#got + 1] = n end end
  t.eq(#got, 1, table.concat(got, ", "))
  t.ok(lfs.attributes(w .. "/comparison_report.md"))
end)

t.test("resume after --step 90: the torn-down run is deployed again first, or refused", function()
  local s = setup(function(plan) plan.runs.a.benchmark.attempts = 1 end)
  local r = compare(s, nil, { FAKE_FAIL = "bench_nojson" })
  t.eq(r.code, 1)
  local w = workspace(s)
  r = compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(next(state(s).ns.bench.releases), nil, "torn down")
  -- only the benchmark: there is no stack to benchmark
  r = compare(s, { "--resume", w, "--step", "60" })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("run a (vllm-baseline) was torn down before it completed: there is no stack for steps 30-80", 1,
    true), r.stderr)
  -- a plain resume deploys it again, then goes on
  r = compare(s, { "--resume", w })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Run A was torn down before it completed: it is deployed again first.", 1, true), r.stdout)
  local n = 0
  for _, c in ipairs(call_lines(s, w)) do if c:find("^helm upgrade %-%-install sim") then n = n + 1 end end
  t.eq(n, 2, "deployed again")
  t.ok(lfs.attributes(w .. "/comparison_report.md"))
  t.eq(next(state(s).ns.bench.releases), nil, "and torn down again at the end")
end)

t.test("logs: every container of the vLLM pods, the sidecar too, and the previous container after a restart",
  function()
  local s = setup(function(plan) plan.runs.b = { label = "before", existing = { results = TREAT } } end)
  local r = compare(s, nil, { FAKE_RESTARTED = "1" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local dir = workspace(s) .. "/run-a/results/vllm-logs"
  local got = {}
  local pods = {}
  for n in lfs.dir(dir) do
    if n:match("%.log$") then
      got[#got + 1] = n:gsub(POD_SUFFIX, "-<pod>")
      pods[n:match("^(.-)_")] = true
    end
  end
  table.sort(got)
  -- by hand: 2 pods x (routing-proxy, vllm, vllm's previous container)
  t.eq(got, { "ms-decode-<pod>_routing-proxy.log", "ms-decode-<pod>_routing-proxy.log", "ms-decode-<pod>_vllm.log",
    "ms-decode-<pod>_vllm.log", "ms-decode-<pod>_vllm.previous.log", "ms-decode-<pod>_vllm.previous.log" })
  local one = next(pods)
  t.eq(select(2, next(pods, one)) ~= nil and 2 or 1, 2, "two pods")
  t.ok(t.read(dir .. "/" .. one .. "_vllm.previous.log"):find("CUDA out of memory", 1, true))
  t.ok(t.read(dir .. "/" .. one .. "_routing-proxy.log"):find("routing proxy", 1, true))
  local lines = table.concat(call_lines(s, workspace(s)), "\n")
  t.ok(lines:find("kubectl -n bench logs ms-decode-<pod> -c vllm --timestamps --previous", 1, true), lines)
  t.ok(not lines:find("routing-proxy --timestamps --previous", 1, true), "no previous of a container never restarted")
end)

t.test("the per-stack steps work for any stack: a run config, a folder and a namespace", function()
  local s = setup()
  local plan = yaml.load(t.read(s.plan))
  local dir = s.dir .. "/exp-1"
  proc.run { "mkdir", "-p", dir }
  local out = { write = function() end, flush = function() end }
  local bins = {}
  for _, b in ipairs { "kubectl", "helm", "helmfile", "oc" } do bins[b] = FAKEBIN .. "/" .. b end
  local ctx = { plan = { runs = {} }, runs = { ["exp-1"] = plan.runs.b }, run_dirs = { ["exp-1"] = dir },
    ns = "exp-ns", out = out, t0 = os.time(), bins = bins, commands = {}, config_text = {}, deployed = {},
    timeouts = { ready = 3, poll = 0.05, smoke = 60, benchmark = 0 },
    k = k8s.new { namespace = "exp-ns", out = out, backoff = 0.01, bins = bins,
      env = { FAKE_CLUSTER = s.cluster, FAKE_LLMDLUA = LLMDLUA } } }
  cluster.fn.deploy(ctx, "exp-1")
  cluster.fn.wait_ready(ctx, "exp-1")
  cluster.fn.teardown(ctx, "exp-1")
  t.eq(json.read(dir .. "/deployed.json").releases, { "gaie-sim", "infra-sim", "ms-sim" })
  t.eq(json.read(dir .. "/deployed.json").torn_down, true)
  t.eq(next(state(s).ns["exp-ns"].releases), nil)
end)

-- the cluster layer on its own ----------------------------------------------------------

t.test("k8s: namespace added, cluster-scoped changes refused before running, transient retried, logged", function()
  local d = t.tmpdir()
  local show = d .. "/args.sh"
  t.write(show, "#!/bin/sh\nprintf '%s|' \"$@\"\n")
  proc.run { "chmod", "+x", show }
  local k = k8s.new { namespace = "ns1", log = d .. "/commands.log", bins = { kubectl = show }, backoff = 0 }
  t.eq(k:kubectl({ "get", "pods" }).stdout, "-n|ns1|get|pods|")
  t.eq(k:argv("helm", { "list" }), { "helm", "list", "-n", "ns1" })
  for _, bad in ipairs {
    { { "delete", "namespace", "ns1" }, "cluster-scoped kind 'namespace'" },
    { { "delete", "ns", "x" }, "cluster-scoped kind 'ns'" },
    { { "create", "clusterrolebinding", "x" }, "cluster-scoped kind 'clusterrolebinding'" },
    { { "label", "nodes", "n1", "a=b" }, "cluster-scoped kind 'nodes'" },
    { { "delete", "crd/foo.example.com" }, "cluster-scoped kind 'crd'" },
    { { "delete", "pv", "x" }, "cluster-scoped kind 'pv'" },
    { { "get", "pods", "-A" }, "all namespaces" },
    { { "get", "pods", "-n", "other" }, "a namespace flag (-n other)" },
  } do
    t.raises(bad[2], k.kubectl, k, bad[1])
  end
  t.raises("a manifest of the cluster-scoped kind ClusterRole", k.kubectl, k, { "apply", "-f", "-" },
    { stdin = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: x\n" })
  t.raises("a manifest for namespace kube-system", k.kubectl, k, { "apply", "-f", "-" },
    { stdin = "kind: ConfigMap\nmetadata:\n  name: x\n  namespace: kube-system\n" })
  -- reading nodes is allowed
  t.eq(k:kubectl({ "get", "nodes" }).ok, true)
  -- a transient error is retried; a real one raises with the command and its stderr
  local flaky = d .. "/flaky.sh"
  t.write(flaky, "#!/bin/sh\nn=$(cat " .. d .. "/n 2>/dev/null || echo 0); echo $((n+1)) > " .. d .. "/n\n"
    .. "if [ $n -lt 2 ]; then echo 'Error from server: etcdserver: request timed out' >&2; exit 1; fi\necho ok\n")
  proc.run { "chmod", "+x", flaky }
  local k2 = k8s.new { namespace = "ns1", log = d .. "/commands.log", bins = { kubectl = flaky }, backoff = 0 }
  t.eq(k2:kubectl({ "get", "pods" }).stdout, "ok\n")
  local k3 = k8s.new { namespace = "ns1", bins = { kubectl = "false" } }
  t.raises("false -n ns1 get pods: exit 1", k3.kubectl, k3, { "get", "pods" })
  t.eq(k3:kubectl({ "get", "pods" }, { check = false }).ok, false)
  local log = t.read(d .. "/commands.log")
  t.ok(log:find("| exit 1 | ", 1, true) and log:find("etcdserver: request timed out", 1, true), log)
  t.ok(log:find("| attempt 3", 1, true), log)
end)

t.test("k8s guard: --raw only as a DELETE of one object of this namespace, by llmdlua itself", function()
  -- (llmd.cluster lets go of its namespace lock, and tears down what it made, so: a raw
  -- DELETE whose body holds the preconditions; any other raw path - another namespace, a
  -- cluster-scoped object, a subresource, a query - would reach anything the kubeconfig's
  -- user can)
  local d = t.tmpdir()
  local ran = d .. "/ran"
  local show = d .. "/tool.sh"
  t.write(show, "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " .. ran .. "\n")
  proc.run { "chmod", "+x", show }
  local k = k8s.new { namespace = "bench", bins = { kubectl = show }, backoff = 0 }
  local uid = "0f3c2a9e-7d41-4b8a-9c55-1e2d3f4a5b6c"
  local body = '{"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"' .. uid .. '","resourceVersion":"7"}}'
  local mine = "/api/v1/namespaces/bench/configmaps/llmdlua-lock"
  for _, c in ipairs {
    { { "delete", "--raw", "/api/v1/namespaces/kube-system/configmaps/llmdlua-lock", "-f", "-" } },
    { { "delete", "--raw", "/apis/apps/v1/namespaces/kube-system/deployments/x", "-f", "-" } },
    { { "delete", "--raw", "/api/v1/namespaces/bench", "-f", "-" } },
    { { "delete", "--raw", "/api/v1/nodes/node-1" } },
    { { "delete", "--raw", "/apis/rbac.authorization.k8s.io/v1/clusterroles/x", "-f", "-" } },
    { { "delete", "--raw", mine .. "?dryRun=All", "-f", "-" } },
    { { "delete", "--raw", "/apis/apps/v1/namespaces/bench/deployments/x/scale", "-f", "-" } },
    { { "delete", "--raw", "/api/v1/namespaces/bench/pods/x/eviction", "-f", "-" } },
    { { "delete", "--raw", "/apis/apps/v1/namespaces/bench/../kube-system/deployments/x", "-f", "-" } },
    { { "create", "--raw", "/api/v1/namespaces/bench/configmaps", "-f", "-" } },
    { { "replace", "--raw", mine, "-f", "-" } },
    { { "delete", "--raw", mine, "configmap", "other" } },
    { { "delete", "--raw", mine, "-f", "body.json" } },
    { { "delete", "--raw", mine, "--raw", "/api/v1/nodes/node-1" } },
    { { "delete", "--raw", mine, "-f", "-" }, { user = true } }, -- (a plan's command: never)
  } do
    local o = c[2] or {}
    o.stdin = body
    o.raw_uid = uid
    t.raises("would act elsewhere than namespace bench", k.kubectl, k, c[1], o)
  end
  t.eq(lfs.attributes(ran), nil, "no refused command ran")
  k:kubectl({ "delete", "--raw", mine, "-f", "-" }, { stdin = body, raw_uid = uid })
  -- (and one object of another kind of this namespace: what a teardown deletes held to its uid)
  local dep = "/apis/apps/v1/namespaces/bench/deployments/x"
  k:kubectl({ "delete", "--raw", dep, "-f", "-" }, { stdin = body, raw_uid = uid })
  t.eq(t.read(ran), "-n bench delete --raw " .. mine .. " -f -\n-n bench delete --raw " .. dep .. " -f -\n")
end)

t.test("k8s guard: a raw DELETE's body must be DeleteOptions held to the uid meant, nothing wider", function()
  -- (harden50 6: the path alone was checked, so a body without preconditions - or none, or
  -- another object's uid, or a field that widens the delete - deleted whatever held the name.
  -- The DeleteOptions fields are the API's (meta/v1 DeleteOptions); those llmdlua sends are
  -- apiVersion, kind, preconditions {uid, resourceVersion} and propagationPolicy.)
  local d = t.tmpdir()
  local ran = d .. "/ran"
  local show = d .. "/tool.sh"
  t.write(show, "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " .. ran .. "\n")
  proc.run { "chmod", "+x", show }
  local k = k8s.new { namespace = "bench", bins = { kubectl = show }, backoff = 0 }
  local uid = "0f3c2a9e-7d41-4b8a-9c55-1e2d3f4a5b6c"
  local path = { "delete", "--raw", "/api/v1/namespaces/bench/services/llm-d-baseline-model-server", "-f", "-" }
  local function body(t2) return json.encode(t2) end
  for _, c in ipairs {
    { nil, "held to nothing", { "delete", "--raw", path[3] } },
    { "", "not JSON DeleteOptions" },
    { "{}", "not v1 DeleteOptions" },
    { body { apiVersion = "v1", kind = "DeleteOptions" }, "preconditions.uid (nil) is not the uid of the object meant" },
    { body { apiVersion = "v1", kind = "DeleteOptions", preconditions = { resourceVersion = "7" } },
      "preconditions.uid (nil)" },
    { body { apiVersion = "v1", kind = "DeleteOptions", preconditions = { uid = "another" } },
      "preconditions.uid (another) is not the uid of the object meant (" .. uid .. ")" },
    { body { apiVersion = "v1", kind = "Status", preconditions = { uid = uid } }, "v1 Status, not v1 DeleteOptions" },
    { body { apiVersion = "v1", kind = "DeleteOptions", preconditions = { uid = uid },
      ignoreStoreReadErrorWithClusterBreakingPotential = true }, "has ignoreStoreReadErrorWithClusterBreakingPotential" },
    { body { apiVersion = "v1", kind = "DeleteOptions", preconditions = { uid = uid }, gracePeriodSeconds = 0 },
      "has gracePeriodSeconds" },
    { body { apiVersion = "v1", kind = "DeleteOptions", preconditions = { uid = uid }, propagationPolicy = "All" },
      "propagationPolicy All is not Background, Foreground or Orphan" },
    { body { apiVersion = "v1", kind = "DeleteOptions", preconditions = { uid = uid, other = "x" } },
      "preconditions has other" },
    { body { apiVersion = "v1", kind = "DeleteOptions", preconditions = { uid = uid } }, "none was given", nil, true },
  } do
    local o = { stdin = c[1], raw_uid = not c[4] and uid or nil }
    local err = t.raises(c[2], k.kubectl, k, c[3] or path, o)
    t.ok(err:find("^refused: kubectl "), err)
  end
  t.eq(lfs.attributes(ran), nil, "no refused command ran")
  k:kubectl(path, { raw_uid = uid, stdin = body { apiVersion = "v1", kind = "DeleteOptions",
    propagationPolicy = "Background", preconditions = { uid = uid } } })
  t.eq(t.read(ran), "-n bench " .. table.concat(path, " ") .. "\n")
end)

t.test("k8s guard: every bypass found is refused before anything runs", function()
  local d = t.tmpdir()
  local ran = d .. "/ran"
  local show = d .. "/tool.sh"
  t.write(show, "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " .. ran .. "\n")
  proc.run { "chmod", "+x", show }
  local k = k8s.new { namespace = "bench", bins = { kubectl = show, helm = show, helmfile = show, oc = show },
    backoff = 0 }
  -- each: tool, argv of a plan's deploy.commands entry, what the refusal names
  for _, c in ipairs {
    { "kubectl", { "get", "pods", "-nkube-system" }, "a namespace flag (-nkube-system)" },
    { "kubectl", { "delete", "pod", "x", "-n=kube-system" }, "a namespace flag (-n=kube-system)" },
    { "kubectl", { "delete", "pod", "x", "--namespace=kube-system" }, "a namespace flag (--namespace=kube-system)" },
    { "kubectl", { "delete", "pod", "x", "--namespace", "kube-system" }, "a namespace flag (--namespace kube-system)" },
    { "kubectl", { "--context", "prod", "delete", "namespace", "bench" }, "--context prod would act elsewhere" },
    { "kubectl", { "-v", "9", "delete", "namespace", "kube-system" }, "cluster-scoped kind 'namespace'" },
    { "kubectl", { "--request-timeout", "5s", "delete", "clusterrolebinding", "cluster-admin" },
      "cluster-scoped kind 'clusterrolebinding'" },
    { "kubectl", { "get", "pods", "--all-namespaces=true" }, "all namespaces (--all-namespaces=true)" },
    { "kubectl", { "get", "pods", "-Aw" }, "all namespaces (-Aw)" },
    { "kubectl", { "drain", "node-1" }, "the verb 'drain' is not one llmdlua runs from a plan" },
    { "kubectl", { "cordon", "node-1" }, "the verb 'cordon'" },
    { "kubectl", { "debug", "node/node-1", "-it", "--image=busybox" }, "the verb 'debug'" },
    { "kubectl", { "certificate", "approve", "csr-1" }, "the verb 'certificate'" },
    { "kubectl", { "--kubeconfig", "/other", "get", "pods" }, "--kubeconfig /other would act elsewhere" },
    { "kubectl", { "get", "pods", "--kubeconfig=/other" }, "--kubeconfig=/other would act elsewhere" },
    { "kubectl", { "get", "pods", "--frobnicate", "x" }, "unknown flag --frobnicate" },
    { "oc", { "delete", "project", "bench" }, "cluster-scoped kind 'project'" },
    { "oc", { "new-project", "mine" }, "the verb 'new-project'" },
    { "oc", { "adm", "policy", "add-cluster-role-to-user", "cluster-admin", "me" }, "the verb 'adm'" },
    { "helmfile", { "-nkube-system", "destroy" }, "a namespace flag (-nkube-system)" },
    { "helmfile", { "destroy" }, "the verb 'destroy'" },
    { "helm", { "install", "x", "chart", "--kube-context", "prod" }, "--kube-context prod would act elsewhere" },
    { "helm", { "install", "x", "chart", "--create-namespace" }, "--create-namespace would act elsewhere" },
    -- helmfile --args reaches every helm call it makes
    { "helmfile", { "apply", "--args", "--kube-context=prod" }, "--args passes --kube-context=prod to helm" },
    { "helmfile", { "sync", "--args=--wait -nkube-system" }, "--args passes -nkube-system to helm" },
  } do
    t.raises(c[3], k.call, k, c[1], c[2], { user = true })
  end
  -- manifests on stdin, parsed: YAML and JSON spellings of a cluster-scoped kind, every document
  for _, m in ipairs {
    { '{"apiVersion": "v1", "kind": Namespace, "metadata": {"name": "x"}}', "kind Namespace" },
    { "apiVersion: rbac.authorization.k8s.io/v1\n'kind': ClusterRole\nmetadata: {name: x}\n", "kind ClusterRole" },
    { "kind: !!str ClusterRoleBinding\nmetadata:\n  name: x\n", "kind ClusterRoleBinding" },
    { '{"kind": "Names\\u0070ace", "metadata": {"name": "x"}}', "kind Namespace" },
    { "kind: ConfigMap\nmetadata: {name: a}\n---\nkind: Namespace\nmetadata: {name: b}\n", "kind Namespace" },
    { '{"kind": "ConfigMap", "metadata": {"name": "a"}}\n{"kind": "ClusterRole", "metadata": {"name": "b"}}',
      "kind ClusterRole" },
    { "kind: List\nitems:\n- kind: ClusterRole\n  metadata: {name: x}\n", "kind ClusterRole" },
    { "kind: ConfigMap\nmetadata:\n  name: x\n  'namespace': kube-system\n", "a manifest for namespace kube-system" },
    { "kind: [unclosed\n", "cannot be read as YAML or JSON" },
  } do
    t.raises(m[2], k.kubectl, k, { "apply", "-f", "-" }, { stdin = m[1] })
  end
  -- -f files and folders of a plan's command are parsed the same way
  proc.run { "mkdir", "-p", d .. "/m" }
  t.write(d .. "/m/ok.yaml", "kind: ConfigMap\nmetadata: {name: a}\n")
  t.write(d .. "/m/bad.json", '{"kind": "ClusterRoleBinding", "metadata": {"name": "b"}}')
  t.raises("kind ClusterRoleBinding (m/bad.json)", k.call, k, "kubectl", { "apply", "-f", "m" }, { user = true, cwd = d })
  t.raises("kind ClusterRoleBinding (m/bad.json)", k.call, k, "kubectl", { "apply", "--filename=m/bad.json" },
    { user = true, cwd = d })
  t.raises("a manifest from a URL", k.call, k, "kubectl", { "apply", "-f", "https://example.com/x.yaml" }, { user = true })
  -- nothing above ran
  t.eq(lfs.attributes(ran), nil, "no refused command ran")
  -- what a plan may do still runs, namespaced
  k:call("kubectl", { "apply", "-f", "m/ok.yaml" }, { user = true, cwd = d })
  k:call("kubectl", { "rollout", "status", "deployment/x", "--timeout=60s" }, { user = true })
  k:call("kubectl", { "logs", "-p", "pod-1", "-c", "vllm" }, { user = true })
  k:call("helmfile", { "apply", "-e", "istio", "--skip-diff-on-install" }, { user = true })
  k:call("kubectl", { "apply", "-f", "-" }, { stdin = "kind: Service\nmetadata: {name: s, namespace: bench}\n" })
  -- (the helmfile apply rendered first: `helmfile template`, the same environment, its CRDs too)
  t.eq(t.read(ran), "-n bench apply -f m/ok.yaml\n-n bench rollout status deployment/x --timeout=60s\n"
    .. "-n bench logs -p pod-1 -c vllm\n-n bench template --environment=istio --include-crds\n"
    .. "-n bench apply -e istio --skip-diff-on-install\n-n bench apply -f -\n")
  -- a kustomization is rendered (kubectl kustomize) and checked before it is applied
  local s = setup()
  t.write(s.dir .. "/guide/ms/kustomization.yaml", "resources:\n- rbac.yaml\n")
  t.write(s.dir .. "/guide/ms/rbac.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"
    .. "metadata:\n  name: reader\n")
  local r = compare(s)
  t.eq(r.code, 1)
  t.ok(r.stdout:find("refused: kubectl apply -k ms: a manifest of the cluster-scoped kind ClusterRole (kustomize ms)",
    1, true), r.stdout)
  for _, c in ipairs(call_lines(s, workspace(s))) do t.ok(not c:find("apply -k", 1, true), "not applied: " .. c) end
  -- the flag parser on its own: kubectl's spellings
  local p = k8s.parse("kubectl", { "-v", "9", "--request-timeout", "5s", "get", "pods", "-lapp=x", "-ojson", "--",
    "ls" })
  t.eq(p.words, { "get", "pods" })
  t.eq(p.after, { "ls" })
  t.eq(p.flags[3].name, "selector")
  t.eq(p.flags[3].value, "app=x")
  t.eq(p.flags[4].value, "json")
end)

-- the guard on charts: what helm install/upgrade and helmfile apply/sync would create is
-- rendered first (helm template / helmfile template, the same arguments) and checked by
-- the manifest rule. The charts below are written by hand; each expected refusal names
-- the object the chart's file holds (read off the file), the namespace and the rule.

-- A chart in the fake registry: name, { [path in the chart] = text }.
local function chart(root, name, files)
  proc.run { "mkdir", "-p", root .. "/" .. name .. "/templates", root .. "/" .. name .. "/crds" }
  t.write(root .. "/" .. name .. "/Chart.yaml", "apiVersion: v2\nname: " .. name .. "\nversion: 0.1.0\n")
  for p, text in pairs(files) do t.write(root .. "/" .. name .. "/" .. p, text) end
end

local DEPLOY = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-server\n"
  .. "  labels:\n    app.kubernetes.io/instance: {{ .Release.Name }}\nspec:\n  replicas: 1\n"

local function test_charts(root)
  chart(root, "clean", { ["templates/deploy.yaml"] = DEPLOY,
    ["templates/svc.yaml"] = "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n"
      .. "  namespace: {{ .Release.Namespace }}\nspec:\n  ports:\n  - port: 80\n" })
  chart(root, "rbac", { ["templates/deploy.yaml"] = DEPLOY,
    ["templates/rbac.yaml"] = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n"
      .. "  name: {{ .Release.Name }}-reader\n  labels:\n    app.kubernetes.io/instance: {{ .Release.Name }}\n"
      .. "rules:\n- apiGroups: [\"\"]\n  resources: [\"nodes\"]\n  verbs: [\"get\"]\n" })
  chart(root, "withcrd", { ["templates/deploy.yaml"] = DEPLOY,
    ["crds/widgets.yaml"] = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
      .. "  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n" })
  chart(root, "elsewhere", { ["templates/deploy.yaml"] = DEPLOY,
    ["templates/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n"
      .. "  namespace: kube-system\ndata:\n  a: b\n" })
  chart(root, "makens", { ["templates/ns.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-x\n"
    .. "---\n" .. DEPLOY })
  chart(root, "broken", { ["templates/deploy.yaml"] = DEPLOY .. "  image: {{ fail \"image.tag is required\" }}\n" })
end

t.test("k8s guard on charts: helm install/upgrade and helmfile apply are rendered and checked before they run",
  function()
  local d = t.tmpdir()
  proc.run { "mkdir", "-p", d .. "/cluster", d .. "/guide" }
  test_charts(d .. "/charts")
  local bins = {}
  for _, b in ipairs { "kubectl", "helm", "helmfile", "oc" } do bins[b] = FAKEBIN .. "/" .. b end
  local k = k8s.new { namespace = "bench", bins = bins, backoff = 0, log = d .. "/commands.log",
    env = { FAKE_CLUSTER = d .. "/cluster", FAKE_LLMDLUA = LLMDLUA, FAKE_CHARTS = d .. "/charts" } }
  local function ran()
    local out = {}
    for _, c in ipairs(t.jsonl(d .. "/cluster/calls.log")) do out[#out + 1] = c.tool .. " " .. table.concat(c.args, " ") end
    return out
  end
  local function cluster_objects()
    local f = io.open(d .. "/cluster/state.json")
    if not f then return nil end
    f:close()
    return json.read(d .. "/cluster/state.json").cluster
  end
  -- a ClusterRole in the chart's templates
  t.raises("refused: helm install r1 (chart oci://example.com/charts/rbac): renders ClusterRole 'r1-reader' "
    .. "(rbac/templates/rbac.yaml), a cluster-scoped kind; llmdlua creates nothing outside namespace bench",
    k.helm, k, { "install", "r1", "oci://example.com/charts/rbac" })
  t.eq(ran(), { "helm template r1 oci://example.com/charts/rbac --include-crds -n bench" })
  -- the same from a plan's deploy.commands (user = true), and as upgrade --install with values
  t.write(d .. "/guide/v.yaml", "a: 1\n")
  t.raises("renders ClusterRole 'r1-reader'", k.call, k, "helm",
    { "upgrade", "-i", "r1", "repo/rbac", "-f", "v.yaml", "--set", "x=1", "--wait", "--timeout", "5m" },
    { user = true, cwd = d .. "/guide" })
  t.eq(ran()[2], "helm template r1 repo/rbac --values=v.yaml --set=x=1 --wait --timeout=5m --include-crds -n bench")
  -- a CRD in crds/: helm install installs it unless --skip-crds, so it is rendered and refused
  t.raises("refused: helm install r2 (chart oci://example.com/charts/withcrd): renders CustomResourceDefinition "
    .. "'widgets.example.com' (withcrd/crds/widgets.yaml), a cluster-scoped kind (from the chart's crds/ folder: "
    .. "CRDs are the cluster admin's to install; add --skip-crds); llmdlua creates nothing outside namespace bench",
    k.helm, k, { "install", "r2", "oci://example.com/charts/withcrd" })
  -- with --skip-crds it is neither rendered nor installed; a plain upgrade never installs crds/
  k:helm { "install", "r2", "oci://example.com/charts/withcrd", "--skip-crds" }
  k:helm { "upgrade", "r2", "oci://example.com/charts/withcrd" }
  local seen = ran()
  t.eq({ table.unpack(seen, #seen - 3) }, {
    "helm template r2 oci://example.com/charts/withcrd -n bench",
    "helm install r2 oci://example.com/charts/withcrd --skip-crds -n bench",
    "helm template r2 oci://example.com/charts/withcrd -n bench",
    "helm upgrade r2 oci://example.com/charts/withcrd -n bench" })
  -- an object in another namespace; a Namespace object
  t.raises("refused: helm install r3 (chart oci://example.com/charts/elsewhere): renders ConfigMap 'r3-cfg' "
    .. "(elsewhere/templates/cm.yaml) in namespace kube-system; llmdlua creates nothing outside namespace bench",
    k.helm, k, { "install", "r3", "oci://example.com/charts/elsewhere" })
  t.raises("renders Namespace 'team-x' (makens/templates/ns.yaml), a cluster-scoped kind", k.helm, k,
    { "upgrade", "--install", "r4", "oci://example.com/charts/makens", "--skip-crds" })
  -- a render that fails: the command and helm's words, nothing installed
  t.raises("helm template r5 oci://example.com/charts/broken -n bench: exit 1: Error: execution error at "
    .. "(broken/templates/deploy.yaml:9:12): image.tag is required", k.helm, k,
    { "upgrade", "--install", "r5", "oci://example.com/charts/broken", "--skip-crds" })
  t.raises('helm template r6 oci://example.com/charts/missing --version=2.0.0 -n bench: exit 1: Error: failed to perform '
    .. '"FetchReference" on source: example.com/charts/missing:2.0.0: not found', k.helm, k,
    { "upgrade", "--install", "r6", "oci://example.com/charts/missing", "--version", "2.0.0", "--skip-crds" })
  -- values the installed release keeps cannot be rendered: refused
  t.raises("--reuse-values reuses the installed release's values", k.helm, k,
    { "upgrade", "r2", "oci://example.com/charts/withcrd", "--reuse-values" })
  for _, c in ipairs(ran()) do
    local verb = c:match("^helm (%S+)")
    t.ok(verb == "template" or c:find(" r2 ", 1, true), "only r2 was installed: " .. c)
  end
  -- a clean chart installs, rendered first; nothing cluster-scoped was ever created
  k:helm { "upgrade", "--install", "r7", "oci://example.com/charts/clean" }
  seen = ran()
  t.eq({ seen[#seen - 1], seen[#seen] }, {
    "helm template r7 oci://example.com/charts/clean --include-crds -n bench",
    "helm upgrade --install r7 oci://example.com/charts/clean -n bench" })
  t.eq(cluster_objects(), nil)
  local logged = false
  for l in t.read(d .. "/commands.log"):gmatch("[^\n]+") do
    if l:find("/helm template r7 oci://example.com/charts/clean --include-crds -n bench | exit 0 | ", 1, true)
      and l:find(" s | rendered to check it$") then logged = true end
  end
  t.ok(logged, t.read(d .. "/commands.log"))
  -- helmfile: every release rendered (helmfile template, same environment and file)
  t.write(d .. "/guide/hf.yaml", "releases:\n  - name: web\n    chart: oci://example.com/charts/clean\n"
    .. "  - name: ops\n    chart: repo/rbac\n")
  t.raises("refused: helmfile apply --file hf.yaml -e istio: renders ClusterRole 'ops-reader' (release ops, "
    .. "rbac/templates/rbac.yaml), a cluster-scoped kind; llmdlua creates nothing outside namespace bench",
    k.helmfile, k, { "apply", "--file", "hf.yaml", "-e", "istio", "--suppress-diff" }, { cwd = d .. "/guide" })
  seen = ran()
  t.eq(seen[#seen], "helmfile -n bench template --file=hf.yaml --environment=istio --include-crds")
  -- a helmfile whose render fails: helmfile's error block, the failing release named
  t.write(d .. "/guide/hf2.yaml", "releases:\n  - name: web\n    chart: oci://example.com/charts/broken\n")
  local err = t.raises("helmfile -n bench template --file=hf2.yaml: exit 1: in ./hf2.yaml: command \"helm\" exited "
    .. "with non-zero status: Error: execution error at (broken/templates/deploy.yaml:9:12): image.tag is required "
    .. "(the render of helmfile sync -f hf2.yaml, to check what it creates; it was not run)", k.helmfile, k,
    { "sync", "-f", "hf2.yaml", "--skip-crds" }, { cwd = d .. "/guide" })
  t.ok(not err:find("\n", 1, true), "one line: " .. err)
  -- a clean helmfile applies
  t.write(d .. "/guide/hf3.yaml", "releases:\n  - name: web\n    chart: oci://example.com/charts/clean\n")
  k:helmfile({ "apply", "-f", "hf3.yaml", "--skip-crds" }, { cwd = d .. "/guide" })
  seen = ran()
  t.eq({ seen[#seen - 1], seen[#seen] }, { "helmfile -n bench template --file=hf3.yaml",
    "helmfile -n bench apply -f hf3.yaml --skip-crds" })
  for _, c in ipairs(seen) do
    t.ok(not c:match("^helmfile %-n bench apply") or c:find("hf3", 1, true), "only hf3 applied: " .. c)
  end
  t.eq(cluster_objects(), nil)
  -- a dry run prints the render with the install and runs neither
  local before = #ran()
  local out = {}
  local kd = k8s.new { namespace = "bench", bins = bins, dry_run = true,
    out = { write = function(_, s) out[#out + 1] = s end },
    env = { FAKE_CLUSTER = d .. "/cluster", FAKE_LLMDLUA = LLMDLUA, FAKE_CHARTS = d .. "/charts" } }
  kd:helm { "install", "r1", "oci://example.com/charts/rbac" }
  t.eq(#ran(), before)
  t.ok(table.concat(out):find("[dry-run] " .. FAKEBIN .. "/helm template r1 oci://example.com/charts/rbac "
    .. "--include-crds -n bench   (renders what it creates, to check it first)", 1, true), table.concat(out))
  -- without a way to render (a background call), an install is refused, not run unchecked
  t.raises("what the chart renders cannot be checked here", k8s.check, "helm", { "install", "r1", "c" }, "bench")
  -- the fake installs what a chart renders, as the API server would: without the guard the
  -- ClusterRole would exist (this is what the refusals above prevent)
  local pr = proc.run({ FAKEBIN .. "/helm", "install", "r9", "oci://example.com/charts/rbac", "-n", "bench" },
    { env = { FAKE_CLUSTER = d .. "/cluster", FAKE_LLMDLUA = LLMDLUA, FAKE_CHARTS = d .. "/charts" } })
  t.eq(pr.code, 0, pr.stderr)
  t.eq(cluster_objects(), { ["ClusterRole/r9-reader"] = "helm:r9" })
end)

t.test("compare.lua's deploys go through the chart guard: helm, helmfile and a plan's commands", function()
  -- helm: a chart with a ClusterRole is refused before anything is installed
  local s = setup(function(plan)
    plan.runs.a.deploy.chart = "oci://example.com/charts/rbac"
  end)
  test_charts(s.dir .. "/charts")
  s.env.FAKE_CHARTS = s.dir .. "/charts"
  local r = compare(s)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("refused: helm upgrade --install sim (chart oci://example.com/charts/rbac): renders ClusterRole "
    .. "'sim-reader' (rbac/templates/rbac.yaml), a cluster-scoped kind; llmdlua creates nothing outside namespace "
    .. "bench", 1, true), r.stdout)
  for _, c in ipairs(call_lines(s, workspace(s))) do
    t.ok(not c:find("^helm upgrade"), "not installed: " .. c)
  end
  t.eq(state(s).cluster, nil)
  -- our own helm call skips crds/ (the cluster admin's): a chart with a CRD deploys without it
  -- (run B imported: with --step 20 run A's stack stays, and B's InferencePool would select its
  -- pods, which step 20 now refuses before B's deploy, fixd52)
  s = setup(function(plan)
    plan.runs.a.deploy.chart = "oci://example.com/charts/withcrd"
    plan.runs.b = { label = "after", existing = { results = TREAT } }
  end)
  test_charts(s.dir .. "/charts")
  s.env.FAKE_CHARTS = s.dir .. "/charts"
  r = compare(s, { "--plan", s.plan, "--step", "20" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local lines = call_lines(s, workspace(s))
  local i = 0
  for j, c in ipairs(lines) do if c:find("^helm template sim") then i = j end end
  t.eq({ lines[i], lines[i + 1] }, {
    "helm template sim oci://example.com/charts/withcrd --values=router.values.yaml -n bench",
    "helm upgrade --install sim oci://example.com/charts/withcrd -f router.values.yaml --skip-crds -n bench" })
  t.eq(state(s).cluster, nil)
  -- helmfile: a release whose chart names another namespace
  s = setup()
  test_charts(s.dir .. "/charts")
  s.env.FAKE_CHARTS = s.dir .. "/charts"
  t.write(s.dir .. "/guide/helmfile.yaml", "releases:\n  - name: infra-sim\n    chart: llm-d-infra/llm-d-infra\n"
    .. "  - name: cfg-sim\n    chart: repo/elsewhere\n")
  r = compare(s)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("refused: helmfile apply -e istio: renders ConfigMap 'cfg-sim-cfg' (elsewhere/templates/cm.yaml) "
    .. "in namespace kube-system; llmdlua creates nothing outside namespace bench", 1, true), r.stdout)
  for _, c in ipairs(call_lines(s, workspace(s))) do t.ok(not c:find("^helmfile %-n bench apply"), "not applied: " .. c) end
  t.eq(state(s).ns["kube-system"], nil)
  -- a plan's deploy.commands: helm install of a chart with crds/, as written (no --skip-crds)
  s = setup(function(plan)
    plan.runs.a.deploy = { method = "custom", guide_dir = plan.runs.a.deploy.guide_dir, model = "Qwen/Qwen3-0.6B",
      commands = { { "helm", "install", "crd-sim", "oci://example.com/charts/withcrd", "-f", "router.values.yaml" } } }
  end)
  test_charts(s.dir .. "/charts")
  s.env.FAKE_CHARTS = s.dir .. "/charts"
  r = compare(s)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("refused: helm install crd-sim (chart oci://example.com/charts/withcrd): renders "
    .. "CustomResourceDefinition 'widgets.example.com' (withcrd/crds/widgets.yaml), a cluster-scoped kind", 1, true),
    r.stdout)
  for _, c in ipairs(call_lines(s, workspace(s))) do t.ok(not c:find("^helm install"), "not installed: " .. c) end
  -- a render that fails stops the deploy with the command and helm's error
  s = setup(function(plan) plan.runs.a.deploy.chart = "oci://example.com/charts/broken" end)
  test_charts(s.dir .. "/charts")
  s.env.FAKE_CHARTS = s.dir .. "/charts"
  r = compare(s)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  -- (found at step 0, where both runs' deploys are rendered and checked before either deploys)
  t.ok(r.stdout:find("[00] preflight: FAILED - run a (vllm-baseline): helm template sim oci://example.com/charts/broken "
    .. "--values=router.values.yaml -n bench: exit 1: Error: execution error at (broken/templates/deploy.yaml:9:12): "
    .. "image.tag is required", 1, true), r.stdout)
  for _, c in ipairs(call_lines(s, workspace(s))) do t.ok(not c:find("^helm upgrade"), "not installed: " .. c) end
end)

-- the executor on its own ----------------------------------------------------------------

t.test("steps: order, partition, a failed global step stops, a failed stack stops only itself", function()
  local ran = {}
  local function s(n, name, per, fail)
    return { number = n, name = name, per_stack = per, execute = function(_, st)
      ran[#ran + 1] = name .. (st and ("/" .. st) or "")
      if fail and (fail == true or fail == st) then error("boom " .. name) end
      return "ok " .. name
    end }
  end
  local out = { write = function() end }
  local list = { s(5, "g-post", false), s(2, "p1", true), s(0, "g-pre", false), s(3, "p2", true, "a"), s(2, "g-tie", false) }
  local r = steps.run("x", list, {}, { stacks = { "a", "b" }, out = out })
  -- global steps up to the first per-stack number (2, inclusive) first, stacks in turn, then the rest
  t.eq(ran, { "g-pre", "g-tie", "p1/a", "p2/a", "p1/b", "p2/b", "g-post" })
  t.eq(r.ok, false)
  t.eq(#r.failed, 1)
  t.eq(r.failed[1].stack, "a")
  ran = {}
  r = steps.run("x", { s(0, "pre", false, true), s(1, "p", true), s(9, "post", false) }, {}, { stacks = { "a" }, out = out })
  t.eq(ran, { "pre" })
  t.eq(r.aborted, "global step 00 (pre) failed")
  ran = {}
  steps.run("x", list, {}, { stacks = { "b" }, only = steps.parse("0,2-3"), out = out })
  t.eq(ran, { "g-pre", "g-tie", "p1/b", "p2/b" })
  t.eq(steps.parse(" 1, 4-6 ,9"), { [1] = true, [4] = true, [5] = true, [6] = true, [9] = true })
  t.raises("--step: 'x' is not a step number", steps.parse, "1,x")
  -- recorded outcomes; a resumed run skips what completed
  local rec = t.tmpdir() .. "/steps.json"
  ran = {}
  steps.run("x", { s(1, "one", true), s(2, "two", true, "a") }, {}, { stacks = { "a" }, record = rec, out = out })
  t.eq(#json.read(rec), 2)
  ran = {}
  steps.run("x", { s(1, "one", true), s(2, "two", true) }, {}, { stacks = { "a" }, record = rec, resume = true, out = out })
  t.eq(ran, { "two/a" })
  -- a reset stack's steps count as not done; the history is kept
  local n = #json.read(rec)
  steps.reset(rec, "x", "a", "torn down")
  ran = {}
  steps.run("x", { s(1, "one", true), s(2, "two", true) }, {}, { stacks = { "a" }, record = rec, resume = true, out = out })
  t.eq(ran, { "one/a", "two/a" })
  t.eq(#json.read(rec), n + 3)
end)

-- A step's seconds in steps.json are to the millisecond (they were os.time's whole seconds: a
-- 0.3 s step recorded as 0 or 1): bounded below by the 0.3 s `sleep` it ran and above by the
-- time this test measured around the whole run; a record of an earlier llmdlua (whole seconds)
-- is resumed as before, its entries kept as they were.
t.test("steps: a step's seconds are sub-second; an older record's whole seconds are kept", function()
  local rec = t.tmpdir() .. "/steps.json"
  t.write(rec, '[{"phase": "x", "number": 1, "name": "one", "stack": "a", "status": "ok", "message": "done", '
    .. '"seconds": 3, "at": "2026-01-01T00:00:00Z"}]\n')
  local list = {
    { number = 1, name = "one", per_stack = true, execute = function() error("done before: not run again") end },
    { number = 2, name = "nap", per_stack = true, execute = function()
      assert(proc.run({ "sleep", "0.3" }).ok)
      return "slept"
    end },
    { number = 3, name = "quick", per_stack = true, execute = function() return "at once" end },
  }
  local t0 = proc.now()
  local r = steps.run("x", list, {}, { stacks = { "a" }, record = rec, resume = true, out = { write = function() end } })
  local outer = proc.now() - t0
  t.eq(r.ok, true, r.failed[1] and r.failed[1].message)
  local got = json.read(rec)
  t.eq(#got, 3)
  t.eq(got[1].seconds, 3)
  t.eq(math.type(got[1].seconds), "integer")
  local nap, quick = got[2].seconds, got[3].seconds
  t.eq({ got[2].name, got[3].name }, { "nap", "quick" })
  t.ok(nap >= 0.3 and nap <= outer + 0.0005, ("nap %s s, the run %s s"):format(nap, outer))
  t.ok(nap ~= math.floor(nap), "not whole seconds: " .. nap)
  t.ok(quick >= 0 and quick < 0.3, "quick " .. quick)
  -- (to the millisecond: a whole number of thousandths)
  t.near(nap * 1000, math.floor(nap * 1000 + 0.5), 1e-6)
end)

-- compare.lua's interrupt message names the step this session's interrupt cut (ctx.cut, set
-- as the step fails "interrupted"), not steps.json's last entry: after a step that failed for
-- another reason (the report's), an interrupt in the salvage after the steps said "interrupted
-- during step 100 (report)"; a resume cut before any step of its own named an earlier
-- session's cut step. Expected by hand from the record written here.
t.test("compare's interrupt message names only the step this session cut", function()
  local w = t.tmpdir()
  local function o(n, name, stack, msg)
    return { phase = "compare", number = n, name = name, stack = stack, status = "failed", message = msg,
      seconds = 2, at = "2026-12-06T01:00:00Z" }
  end
  t.write(w .. "/steps.json", json.encode(json.array { o(40, "smoke", "a", "interrupted"),
    o(100, "report", nil, "gnuplot: exit 1") }))
  local ctx = { ws = { path = w }, ns = "bench", deployed = {} }
  local msg = cluster.interrupted_message(ctx)
  t.eq(msg:match("^[^\n]*"), "compare.lua: interrupted.")
  t.contains(msg, "\nSaved in " .. w .. ": steps.json (the steps completed), commands.log")
  t.lacks(msg, "during step")
  -- (the earlier session's cut step, the last entry: still not this session's)
  t.write(w .. "/steps.json", json.encode(json.array { o(40, "smoke", "a", "interrupted") }))
  t.eq(cluster.interrupted_message(ctx):match("^[^\n]*"), "compare.lua: interrupted.")
  ctx.cut = o(40, "smoke", "b", "interrupted")
  msg = cluster.interrupted_message(ctx)
  t.eq(msg:match("^[^\n]*"), "compare.lua: interrupted during step 40 (smoke) of run B.")
  t.contains(msg, "steps.json (the steps completed; step 40 recorded as interrupted)")
end)

t.test("steps: stacks in parallel when asked - their commands overlap", function()
  local d = t.tmpdir()
  -- stack a's command waits for stack b's marker: run one after the other, it would time out
  local list = { { number = 1, name = "work", per_stack = true, execute = function(_, st)
    local cmd = st == "a" and ("for i in $(seq 40); do [ -f %s/b ] && exit 0; sleep 0.05; done; exit 1"):format(d)
      or ("touch %s/b"):format(d)
    local r = steps.exec({ "sh", "-c", cmd }, { timeout = 10 })
    if not r.ok then error("stack " .. st .. ": exit " .. tostring(r.code)) end
    return "ok"
  end } }
  local r = steps.run("x", list, {}, { stacks = { "a", "b" }, parallel = 2, out = { write = function() end } })
  t.eq(r.ok, true, r.failed[1] and r.failed[1].message)
  -- the same steps one stack at a time: a waits for a marker nobody writes
  proc.run { "rm", "-f", d .. "/b" }
  r = steps.run("x", list, {}, { stacks = { "a", "b" }, out = { write = function() end } })
  t.eq(r.ok, false)
  -- exec outside a parallel run is proc.run; captured output and exit codes either way
  t.eq(steps.exec({ "sh", "-c", "echo out; echo err >&2; exit 3" }).stdout, "out\n")
end)

t.test("flags for the simple case: --a DIR with a plan for B", function()
  local s = setup()
  s.env.FAKE_RESULTS = TREAT
  local r = compare(s, { "--plan", s.plan, "--a", BASE, "--a-label", "old" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = workspace(s)
  local st = json.read(w .. "/run-a/run_state.json")
  t.eq(st.label, "old")
  t.eq(st.imported, true)
  for _, c in ipairs(call_lines(s, w)) do t.ok(not c:find("sim oci", 1, true), "A was not deployed: " .. c) end
end)

-- Hardware once with its count (issue 14 item 11): two nodes of 4 H100s are 8 on 2 nodes,
-- not the product twice; a node without a count gives the model without a number.
-- newuser53 #2: a report of a fake-cluster comparison read as a measurement (the winner is
-- whichever FAKE_RESULTS folder came first). The fake's nodes carry llmdlua.dev/simulated=true;
-- a cluster whose nodes do not (as every real one) gets no such warning.
t.test("simulated cluster: the report says so first (Verdict, banner, Summary, JSON); nodes without the label: not",
  function()
  local function run(labelled)
    local s = setup()
    if not labelled then
      local node = { name = "gpu-node-1", labels = { ["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3",
        ["nvidia.com/gpu.count"] = "8" } }
      t.mkdir(s.cluster)
      t.write(s.cluster .. "/state.json", json.encode { ns = json.object {}, counters = json.object {},
        nodes = { node } })
    end
    local r = compare(s)
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local w = workspace(s)
    return w, t.read(w .. "/comparison_report.md"), json.read(w .. "/comparison.json")
  end
  local w, md, j = run(true)
  local want = "runs A (vllm-baseline) and B (llm-d-scheduler) ran on a simulated cluster (llmdlua's fake one, "
    .. "whose benchmarks replay recorded result files: node gpu-node-1 labelled llmdlua.dev/simulated=true): their "
    .. "figures are those files', not measurements of the configurations named here"
  t.ok(md:find("**Verdict:** Simulated cluster, not a measurement (recorded results replayed; see the warning "
    .. "below): ", 1, true), md)
  t.ok(md:find("> **Simulated cluster.** " .. want .. ".", 1, true), md)
  t.ok(md:find("Warning: " .. want .. ". ", 1, true), md)
  t.eq(j.simulated, want)
  t.ok(t.read(w .. "/comparison_report.html"):find("<strong>Simulated cluster.</strong> "
    .. want:gsub("'", "&#39;"), 1, true))
  w, md, j = run(false)
  t.eq(json.read(w .. "/run-a/run_state.json").simulated, nil)
  t.ok(not md:find("imulated"), md)
  t.eq(j.simulated, false)
end)

t.test("hardware: one line per GPU model, with the count and the nodes", function()
  local c = require "llmd.cluster"
  local h100 = { ["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3", ["nvidia.com/gpu.count"] = "4" }
  t.eq(c.hardware_summary { h100, h100 }, "8× NVIDIA H100 80GB HBM3 on 2 nodes")
  t.eq(c.hardware_summary { h100, { ["nvidia.com/gpu.product"] = "NVIDIA-A100-SXM4-80GB" }, { kind = "cpu" } },
    "NVIDIA A100 SXM4 80GB on 1 node; 4× NVIDIA H100 80GB HBM3 on 1 node")
  t.eq(c.hardware_summary {}, "")
end)

-- A plan that fails is marked INCOMPLETE as a failed compare --a/--b is: analyze.lua used
-- to make a report of a workspace whose run B had failed (both run states were there).
-- It is kept (for --resume), and the marker goes only when the report is written.
t.test("a failed plan leaves its workspace marked INCOMPLETE; analyze.lua refuses it until --resume ends it",
  function()
  local s = setup(function(plan) plan.runs.a = { label = "before", existing = { results = BASE } } end)
  s.env.FAKE_RESULTS = TREAT
  local r = compare(s, nil, { FAKE_FAIL = "nologs" }) -- run B fails at step 80, after its state is saved
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  t.ok(lfs.attributes(w .. "/run-a/run_state.json") and lfs.attributes(w .. "/run-b/run_state.json"),
    "both run states saved")
  t.ok(t.read(w .. "/INCOMPLETE"):find("compare.lua --plan has not finished this comparison", 1, true))
  r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find(w .. ": an incomplete workspace (INCOMPLETE: compare.lua --plan has not finished", 1, true),
    r.stderr)
  t.ok(r.stderr:find("continue it with llmdlua compare.lua --resume " .. w .. "\n", 1, true), r.stderr)
  t.eq(lfs.attributes(w .. "/comparison_report.md"), nil, "no report of the failed run")
  -- the cause fixed, the resume writes the report and the workspace is complete
  r = compare(s, { "--resume", w })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(lfs.attributes(w .. "/INCOMPLETE"), nil, "the marker is gone")
  r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
end)

t.test("a plan that fails before its first step removes its workspace, as compare --a/--b does", function()
  local disk = t.tmpdir()
  -- one page: the INCOMPLETE marker fits, the workspace's lock file (a second page: who holds
  -- it, llmd.workspace.lock), written before the copy of the plan, does not
  local m = proc.run { "mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", disk }
  if not m.ok then
    io.stderr:write("  (tmpfs part skipped: " .. tostring(m.stderr):gsub("%s+$", "") .. ")\n")
    return
  end
  local ok, err = pcall(function()
    local s = setup(function(plan) plan.parent = disk .. "/p" end)
    local r = compare(s)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    local made = r.stdout:match("Workspace: (%S+)")
    t.ok(made, r.stdout)
    t.ok(r.stderr:find(made .. "/.llmdlua.lock: cannot write: No space left on device (the workspace " .. made
      .. " was removed)", 1, true), r.stderr)
    t.eq(lfs.attributes(made), nil, "the workspace is gone")
    -- nothing reached the cluster: since fixb55's preflight (before the workspace is made) only
    -- the kubeconfig's reads, which ask no API server
    for _, c in ipairs(lfs.attributes(s.cluster .. "/calls.log") and calls(s) or {}) do
      local line = c.tool .. " " .. table.concat(c.args, " ")
      t.ok(c.tool == "kubectl" and (line:find(" config current%-context$") or line:find(" config view %-%-minify ")),
        "nothing reached the cluster: " .. line)
    end
  end)
  proc.run { "umount", disk }
  if not ok then error(err, 0) end
end)

-- A run whose deploy adds no gateway (a model server only) beside someone else's gateway:
-- benchmarking that one would report their stack as this run's. A clear error instead.
t.test("a run that deployed no gateway of its own is refused, not pointed at another stack's", function()
  local s = setup(function(plan)
    plan.runs.a = { label = "before", existing = { results = BASE } }
    plan.runs.b.deploy = { method = "helm", guide_dir = plan.runs.b.deploy.guide_dir, release = "ms-only",
      chart = "oci://ghcr.io/llm-d/charts/llm-d-modelservice", model = "Qwen/Qwen3-0.6B" }
  end)
  s.env.FAKE_RESULTS = TREAT
  local r = compare(s, nil, { FAKE_OTHER_RELEASE = "1" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("run b: no gateway service deployed by this run in bench (its services: none; gateway services "
    .. "there that it did not deploy: a-team-infra-inference-gateway-istio); set deploy.service: NAME[:PORT]", 1, true),
    r.stdout)
  for _, c in ipairs(calls(s)) do
    t.ok(not table.concat(c.args, " "):find("a-team", 1, true), "nothing done with a-team's: " .. table.concat(c.args, " "))
  end
end)

-- Another stack's serving pods in the namespace (FAKE_OTHER_RELEASE: a-team's, another
-- model, here crash-looping): the baseline Service selected every llm-d.ai/inference-serving
-- pod (their pods served this run's benchmark), wait_ready waited for (and failed on) them,
-- and a failed benchmark restarted them. Now all of that is this run's pods only.
t.test("baseline Service, readiness and restarts: this run's serving pods, never another stack's", function()
  local s = setup(function(plan) plan.runs.b = { label = "after", existing = { results = TREAT } } end)
  s.env.FAKE_RESULTS = BASE
  local r = compare(s, nil, { FAKE_OTHER_RELEASE = "1", FAKE_OTHER_UNWELL = "1", FAKE_FAIL_ONCE = "bench_stderr" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local applied
  for _, c in ipairs(calls(s)) do
    if c.tool == "kubectl" and table.concat(c.args, " ") == "-n bench create -f - -o json" and c.stdin:find("kind: Service", 1, true) then
      applied = yaml.load(c.stdin)
    end
  end
  -- the labels both of run A's decode pods carry (tests/fakecluster/fake.lua: vllm_pods)
  t.eq(applied.spec.selector, { ["llm-d.ai/inference-serving"] = "true", ["app.kubernetes.io/component"] = "vllm",
    ["llm-d.ai/role"] = "decode", ["llm-d.ai/model"] = "qwen-qwen3-0-6b" })
  local lines = table.concat(call_lines(s, workspace(s)), "\n")
  -- (clusterfix3 2) this run's pods, by name
  t.ok(lines:find("kubectl -n bench delete pod ms-decode-<pod> ms-decode-<pod> --ignore-not-found", 1, true), lines)
  -- (a deleted pod is replaced under a new name: theirs kept theirs, never named in a delete)
  t.eq(#pods_of(state(s), "bench", "a-team-ms-decode"), 2, "a-team's pods are there")
  t.ok(not lines:find("delete pod[^\n]*a%-team"), "a-team's pods were not restarted")
  t.eq(#pods_of(state(s), "bench", "ms-decode"), 0, "run A's pods went with its teardown")
  t.ok(not lines:find("logs a-team", 1, true), "no log of theirs collected")
  local st = json.read(workspace(s) .. "/run-a/run_state.json")
  t.eq(st.stack.decode_image, "ghcr.io/llm-d/llm-d-cuda:v0.4.0", "their image (v0.3.0) is not this run's")
  -- their pods carrying every label of this run's: no selector can tell them apart. (fixd52,
  -- newuser52) It was refused at step 40, after the whole deploy and wait; the labels this
  -- run's serving pods will carry are in the chart's render (its pod template), so it is
  -- refused at step 20, before anything is deployed
  s = setup(function(plan)
    plan.runs.b = { label = "after", existing = { results = TREAT } }
    plan.runs.a.deploy.kustomize = nil
    plan.runs.a.deploy.chart = "oci://ghcr.io/llm-d/charts/llm-d-modelservice"
    plan.runs.a.deploy.release = "a-ms"
  end)
  r = compare(s, nil, { FAKE_OTHER_RELEASE = "1", FAKE_OTHER_SAME_MODEL = "1" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:gsub(POD_SUFFIX, "-<pod>"):find("[20] deploy (a): FAILED - run a: another stack's serving pods in bench "
    .. "(a-team-ms-decode-<pod>, a-team-ms-decode-<pod>) carry the labels this run's serving pods share "
    .. "(app.kubernetes.io/component=vllm,llm-d.ai/inference-serving=true,llm-d.ai/model=qwen-qwen3-0-6b,"
    .. "llm-d.ai/role=decode): no selector would pick this run's pods alone, so its Service or gateway would send "
    .. "requests to theirs; give this run's model servers a label of their own, or use a namespace of its own; nothing "
    .. "of this run was deployed\n", 1, true), r.stdout)
  for _, c in ipairs(calls(s)) do
    t.ok(not (c.tool == "helm" and (c.args[1] == "upgrade" or c.args[1] == "install")), "nothing deployed")
  end
end)

t.test("tools: the plan's bins, else $LLMDLUA_<TOOL>; a missing kubectl or helm stops either preflight", function()
  -- cluster.tool_bins serves compare.lua and experiment.lua; in a child llmdlua, whose
  -- environment the test sets (an empty variable counts as unset)
  local d = t.tmpdir()
  t.write(d .. "/bins.lua", 'local b = require("llmd.cluster").tool_bins { bins = { kubectl = "/plan/kubectl" } }\n'
    .. 'io.write(b.kubectl, " ", b.helm, " ", tostring(b.helmfile), " ", b.oc)\n')
  local r = proc.run({ LLMDLUA, d .. "/bins.lua" }, { env = { LLMDLUA_KUBECTL = "/env/kubectl",
    LLMDLUA_HELM = "/env/helm", LLMDLUA_HELMFILE = "", LLMDLUA_OC = "/env/oc" } })
  t.eq(r.code, 0, r.stderr)
  t.eq(r.stdout, "/plan/kubectl /env/helm nil /env/oc")
  -- the preflight step of both step lists: kubectl found ("true" is on PATH), helm not
  for _, mod in ipairs { cluster, (require "llmd.experiment_run") } do
    local pre = mod.steps_list()[1]
    t.eq(pre.name, "preflight")
    t.raises("/nowhere/helm: not found (set bins.helm in the plan)", pre.execute,
      { bins = { kubectl = "true", helm = "/nowhere/helm" } })
    t.raises("kubectl-not-here: not found (set bins.kubectl in the plan)", pre.execute,
      { bins = { kubectl = "kubectl-not-here" } })
  end
  cluster.check_tools { bins = { kubectl = "/nowhere/kubectl" }, dry_run = true } -- a dry run runs none
end)

-- The advice after a failure says what is really left (the texts written out by hand from
-- the records below): nothing deployed, everything torn down, or what and where.
t.test("teardown advice: only where something is left deployed", function()
  local function ctx(deployed, dry)
    return { ns = "bench", ws = { path = "/w" }, dry_run = dry, deployed = deployed,
      plan = { runs = { a = { label = "base" }, b = { label = "sched" } } } }
  end
  local empty = { releases = {}, httproutes = {}, gateways = {}, kustomize = {} }
  t.eq(cluster.teardown_advice(ctx({}), "T:"),
    "Nothing was deployed in namespace bench (nothing changed in the cluster); nothing needs tearing down.")
  t.eq(cluster.teardown_advice(ctx({}, true), "T:"), "Dry run: nothing was deployed; nothing needs tearing down.")
  local a = { before = {}, torn_down = true, releases = { "sim" }, httproutes = {}, gateways = {}, kustomize = {} }
  t.eq(cluster.teardown_advice(ctx({ a = a }), "T:"),
    "Everything this comparison deployed in namespace bench was torn down; nothing needs tearing down.")
  local b = { before = {}, releases = { "infra-sim", "ms-sim" }, httproutes = {}, gateways = { "gw" }, kustomize = {} }
  t.eq(cluster.teardown_advice(ctx({ a = a, b = b }), "T:"), "Left deployed in namespace bench: run B (sched): "
    .. "releases infra-sim, ms-sim; gateways gw.\nT: llmdlua compare.lua --resume /w --step 90")
  -- a deploy that started but recorded nothing added yet is still named (teardown is safe)
  empty.before = {}
  t.eq(cluster.left_deployed(ctx({ a = empty })), { "run A (base): its deploy started (nothing recorded as added yet)" })
  -- one stopped while its commands ran (d.deploying kept: their answers never seen) may have
  -- installed anything they install: said so, never "nothing recorded" (newuser56 #2)
  local stopped = { before = {}, deploying = { started = "2026-12-06T23:00:00Z" }, releases = { "ms-a" },
    httproutes = {}, gateways = {}, kustomize = {} }
  t.eq(cluster.left_deployed(ctx({ a = stopped })), { "run A (base): releases ms-a; and its deploy was stopped while "
    .. "its commands ran, before it recorded what they made: whatever they installed may be deployed (helm list -n "
    .. "bench shows the releases); --resume, or a teardown of this workspace, finds it (what is new in the "
    .. "namespace since the deploy started)" })
end)

-- helmfile's own hooks and kube contexts (helmfile.yaml keys the render does not show):
-- read from the state files before helmfile runs at all (its prepare hooks run for
-- `helmfile template` too). Expected lines written by hand from the files below.
local HOOKED = "releases:\n  - name: infra-sim\n    chart: llm-d-infra/llm-d-infra\n  - name: ms-sim\n"
  .. "    chart: llm-d-modelservice/llm-d-modelservice\n    hooks:\n      - events: [\"prepare\"]\n"
  .. "        command: \"touch\"\n        args: [\"HOOK_RAN\"]\n"

t.test("helmfile hooks: refused before helmfile runs (dry run too), unless the plan allows them; then shown", function()
  local s = setup()
  t.write(s.dir .. "/guide/helmfile.yaml", HOOKED)
  for _, extra in ipairs { {}, { "--dry-run" } } do
    local argv = { "--plan", s.plan }
    for _, x in ipairs(extra) do argv[#argv + 1] = x end
    local r = compare(s, argv)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.ok(r.stdout:find("[00] preflight: FAILED - run b (llm-d-scheduler): refused: helmfile apply -e istio "
      .. "--skip-crds: " .. s.dir .. "/guide/helmfile.yaml:6: release ms-sim: hooks: helmfile would run 'touch "
      .. "HOOK_RAN' itself, outside llmdlua's namespace guard; remove the hook, or review it and allow hooks with "
      .. "deploy.helmfile_hooks: allow in the plan", 1, true), r.stdout)
    t.eq(lfs.attributes(s.dir .. "/guide/HOOK_RAN"), nil, "the hook did not run")
    for _, c in ipairs(calls(s)) do t.ok(c.tool ~= "helmfile", "helmfile never ran: " .. table.concat(c.args, " ")) end
  end
  -- allowed: the fake helmfile runs the hook as helmfile does (prepare: at the render of
  -- step 0 already), and the deploy says which hook it lets run
  s = setup(function(plan) plan.runs.b.deploy.helmfile_hooks = "allow" end)
  t.write(s.dir .. "/guide/helmfile.yaml", HOOKED)
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("  helmfile hook (allowed by deploy.helmfile_hooks): " .. s.dir .. "/guide/helmfile.yaml:6: "
    .. "release ms-sim: touch HOOK_RAN\n", 1, true), r.stdout)
  t.eq(lfs.attributes(s.dir .. "/guide/HOOK_RAN", "mode"), "file", "the allowed hook ran")
  -- a value other than allow is the plan's mistake
  s = setup(function(plan) plan.runs.b.deploy.helmfile_hooks = true end)
  r = compare(s)
  t.eq(r.code, 1)
  t.ok(r.stderr:find("runs.b.deploy.helmfile_hooks: expected allow", 1, true), r.stderr)
end)

t.test("helmfile kubeContext (a release's or helmDefaults'): always refused, hooks allowed or not", function()
  for _, case in ipairs {
    { text = "releases:\n  - name: infra-sim\n    chart: llm-d-infra/llm-d-infra\n    kubeContext: prod-east\n",
      want = "helmfile.yaml:4: release infra-sim: kubeContext: prod-east would make helmfile deploy through "
        .. "another kube context" },
    { text = "helmDefaults:\n  wait: true\n  kubeContext: \"staging\"\nreleases:\n  - name: infra-sim\n"
      .. "    chart: llm-d-infra/llm-d-infra\n",
      want = "helmfile.yaml:3: helmDefaults: kubeContext: staging would make helmfile deploy through another kube "
        .. "context (another cluster, perhaps); remove it: llmdlua works in the current context only" },
  } do
    local s = setup(function(plan) plan.runs.b.deploy.helmfile_hooks = "allow" end)
    t.write(s.dir .. "/guide/helmfile.yaml", case.text)
    local r = compare(s)
    t.eq(r.code, 1, r.stdout)
    t.ok(r.stdout:find("refused: helmfile apply -e istio --skip-crds: " .. s.dir .. "/guide/" .. case.want, 1, true),
      r.stdout)
    t.eq(lfs.attributes(s.cluster .. "/contexts.log"), nil, "nothing reached another context")
    t.eq(changing(s, workspace(s)), {})
  end
end)

-- The fake helmfile reads these keys as helmfile does: it runs the hooks and deploys a
-- release with a kubeContext through that context - what the guard above keeps from
-- happening. And an llm-d guide's helmfile.yaml.gotmpl (the shape of
-- guides/inference-scheduling: templated names, environments, needs) has neither.
t.test("the fake helmfile runs hooks and uses kubeContext; an llm-d guide's helmfile has neither", function()
  local s = setup()
  t.write(s.dir .. "/guide/helmfile.yaml", HOOKED .. "  - name: other\n    chart: llm-d-infra/llm-d-infra\n"
    .. "    kubeContext: prod-east\n")
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  local r = proc.run({ FAKEBIN .. "/helmfile", "-n", "bench", "apply", "--skip-crds" }, { env = env,
    cwd = s.dir .. "/guide" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(lfs.attributes(s.dir .. "/guide/HOOK_RAN", "mode"), "file")
  t.eq(t.read(s.cluster .. "/contexts.log"), "apply prod-east other\n")
  local guide = "environments:\n  istio: &I\n    values:\n      - ../prereq/gateway-provider/common-configurations/"
    .. "istio.yaml\n  default: &DEFAULT\n    <<: *I\n\n---\n\n{{- $ns := .Namespace | default \"llm-d\" -}}\n"
    .. "{{- $rn := (env \"RELEASE_NAME_POSTFIX\") | default \"inference-scheduling\" -}}\n\nreleases:\n"
    .. "  - name: {{ printf \"infra-%s\" $rn | quote }}\n    namespace: {{ $ns }}\n    chart: llm-d-infra/llm-d-infra\n"
    .. "    installed: true\n    values:\n      - gateway:\n          {{ .Environment.Values.gateway | toYaml | nindent 10 }}\n"
    .. "  - name: {{ printf \"ms-%s\" $rn | quote }}\n    needs:\n      - {{ printf \"infra-%s\" $rn | quote }}\n"
    .. "    set:\n      - name: \"decode.monitoring.podmonitor.enabled\"\n        value: false\n"
  local d = t.tmpdir()
  t.write(d .. "/helmfile.yaml.gotmpl", guide)
  local st = k8s.helmfile_state({ "apply", "-e", "istio" }, d)
  t.eq({ #st.files, #st.hooks, #st.contexts }, { 1, 0, 0 })
  k8s.check("helmfile", { "template", "-e", "istio" }, "bench", nil, { cwd = d, render_chart = function() end })
end)

t.test("helmfile state files named under helmfiles:/bases: are read too; a templated one is refused", function()
  local d = t.tmpdir()
  proc.run { "mkdir", "-p", d .. "/sub" }
  t.write(d .. "/helmfile.yaml", "bases:\n  - sub/base.yaml\nhelmfiles:\n  - path: sub/child.yaml\nreleases: []\n")
  t.write(d .. "/sub/base.yaml", "helmDefaults:\n  kubeContext: other\n")
  t.write(d .. "/sub/child.yaml", "releases:\n  - name: c\n    chart: x/y\n    hooks:\n    - events: [presync]\n"
    .. "      command: kubectl\n      args: [delete, ns, prod]\n")
  local st = k8s.helmfile_state({ "apply" }, d)
  t.eq(st.contexts, { { file = d .. "/sub/base.yaml", line = 2, where = "helmDefaults", value = "other" } })
  t.eq(st.hooks, { { file = d .. "/sub/child.yaml", line = 4, where = "release c", command = "kubectl delete ns prod" } })
  t.write(d .. "/helmfile.yaml", "helmfiles:\n  - path: {{ env \"SUB\" }}/child.yaml\n")
  t.raises("helmfile.yaml:2 (helmfiles:) names {{ env \"SUB\" }}/child.yaml (a template or a glob: not read), so its "
    .. "hooks and kubeContext cannot be checked first", k8s.check, "helmfile", { "apply" }, "bench", nil,
    { cwd = d, render_chart = function() end })
end)

-- Ctrl-C during a dry run: no step ran, so there is nothing to --resume; the message says
-- to run the command again (polish3 item 4, as compare.lua's failed dry run says)
t.test("an interrupted dry run advises the same command again, not --resume of its workspace", function()
  local d = t.tmpdir()
  local said = cluster.interrupted_message { ws = { path = d }, dry_run = true, ns = "bench" }
  t.ok(said:find("\nRun it again, or for real: the same command (without --dry-run).\n", 1, true), said)
  t.ok(not said:find("--resume", 1, true), said)
  said = cluster.interrupted_message { ws = { path = d }, dry_run = false, ns = "bench" }
  t.ok(said:find("Continue with:               llmdlua compare.lua --resume " .. d .. "\n", 1, true), said)
end)

-- doctor.lua --cluster against the fake cluster printed "fake kubectl: unsupported call:
-- version --client" (and helm's, helmfile's "no namespace given"). The fake tools now answer
-- as the real ones print (formats from kubernetes.io's kubectl_version reference and install
-- guide, helm.sh's helm_version: "v3.2.1+gfe51cd1" is Version, "+g", the commit's first 7).
-- newuser50 F4: a benchmark template with a YAML typo (`model: [oops`) was found at step 60,
-- after deploy, Ready and the smoke test, and the message named the rendered copy
-- (run-a/benchmark/config.yaml:4:9). The plan's check now reads each run's template (and its
-- values files and kustomize folders) before anything runs: one line naming the user's file,
-- line and column, exit 1, no cluster call, no workspace. The positions are libyaml's for
-- this text (line 4 col 9: where the flow sequence opened on line 3 col 10 meets a key),
-- the same PyYAML gives: python3 -c 'import yaml; yaml.safe_load(open("badtpl.yaml"))'
-- says "line 4, column 9" and "line 3, column 10".
t.test("a plan's malformed template, values file or kustomize folder is refused before anything runs, naming the user's file", function()
  -- want: the line's text, DIR standing for the plan's folder
  local function refused(edit, want)
    local s = setup(edit)
    want = want:gsub("DIR", s.dir)
    local r = proc.run({ LLMDLUA, "compare.lua", "--plan", s.plan, "--yes", "--quiet" }, { env = s.env, cwd = s.dir })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.eq(select(2, r.stderr:gsub("\n", "")), 1, r.stderr)
    t.ok(r.stderr:find(want, 1, true), want .. "\n---\n" .. r.stderr)
    t.ok(not r.stderr:find("config.yaml", 1, true), r.stderr)
    t.eq(lfs.attributes(s.cluster .. "/calls.log"), nil, "no cluster call")
    t.eq(#t.workspaces(s.dir), 0, "no workspace")
    -- the dry run says the same
    r = proc.run({ LLMDLUA, "compare.lua", "--plan", s.plan, "--yes", "--dry-run" }, { env = s.env, cwd = s.dir })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.ok(r.stderr:find(want, 1, true), r.stderr)
  end
  refused(function(plan, d)
    t.write(d .. "/badtpl.yaml", "endpoint:\n  stack_name: try\n  model: [oops\nworkload:\n  w: {load: {}}\n")
    plan.runs.a.benchmark.template = d .. "/badtpl.yaml"
    plan.runs.b.benchmark.template = d .. "/badtpl.yaml"
  end, "runs.a.benchmark.template: DIR/badtpl.yaml:4:9: did not find expected ',' or ']'")
  -- a ${VAR} before the error on its line: the column is still the template's (PyYAML on the
  -- same text: "mapping values are not allowed here ... line 3, column 16")
  refused(function(plan, d)
    t.write(d .. "/t2.yaml", "endpoint:\n  stack_name: try\n  m: ${MODEL} x: y\n")
    plan.runs.b.benchmark.template = d .. "/t2.yaml"
  end, "runs.b.benchmark.template: DIR/t2.yaml:3:16: mapping values are not allowed in this context")
  -- an unset variable: found where the benchmark step would find it, named once
  refused(function(plan, d)
    t.write(d .. "/t3.yaml", (t.read(d .. "/template.yaml"):gsub("%${NAMESPACE}", "${NAMESPAC}")))
    plan.runs.a.benchmark.template = d .. "/t3.yaml"
  end, "runs.a.benchmark.template: DIR/t3.yaml:4: unset variables NAMESPAC (give them in benchmark.vars")
  -- newuserd51 2: both runs on one template, each with its own vars; b's lacks STACK, which a
  -- gives: checked with b's vars too (the template was rendered once, with a's, and b failed at
  -- step 60 after a was deployed, benchmarked and torn down). By hand: ${STACK} is on line 2.
  refused(function(plan, d)
    t.write(d .. "/ladder.yaml", (t.read(d .. "/template.yaml"):gsub("stack_name: [^\n]*", "stack_name: ${STACK}", 1)))
    plan.runs.a.benchmark.template = d .. "/ladder.yaml"
    plan.runs.b.benchmark.template = d .. "/ladder.yaml"
    plan.runs.a.benchmark.vars = { STACK = "plain" }
    plan.runs.b.benchmark.vars = { STAK = "sched" }
  end, "plan.yaml: runs.b.benchmark.template: DIR/ladder.yaml:2: unset variables STACK (give them in "
    .. "benchmark.vars or the environment); nothing was deployed")
  -- (PyYAML: "expected ',' or '}' ... line 2, column 1")
  refused(function(_, d)
    t.write(d .. "/guide/router.values.yaml", "router: {a: 1\n")
  end, "runs.a.deploy.values[0]: DIR/guide/router.values.yaml:2:1: did not find expected ',' or '}'")
  refused(function(plan)
    plan.runs.a.deploy.values = { "nope.values.yaml" }
  end, "runs.a.deploy.values[0]: DIR/guide/nope.values.yaml: no such file (relative to guide_dir")
  refused(function(plan)
    plan.runs.a.deploy.kustomize = "nope"
  end, "runs.a.deploy.kustomize: DIR/guide/nope: no such folder")
end)

-- newuser50 F6: in a shell without FAKE_CLUSTER the fake's kubectl raised a Lua error, whose
-- traceback landed inside compare.lua's lock message, and doctor.lua --cluster printed each
-- tool's failure yet exited 0. The fake now fails as a tool does (one line, exit 1) and
-- doctor.lua --cluster exits 1 with one line on stderr naming the failing tools.
t.test("without FAKE_CLUSTER the fake tools fail in one line; doctor.lua --cluster exits 1 and compare.lua's message has no traceback", function()
  local s = setup()
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.FAKE_CLUSTER = false
  for _, tool in ipairs { "kubectl", "helm", "helmfile", "oc" } do
    local r = proc.run({ FAKEBIN .. "/" .. tool, "version" }, { env = env })
    t.eq({ r.code, r.stdout, r.stderr }, { 1, "", "fake " .. tool .. ": FAKE_CLUSTER is not set (the fake cluster's "
      .. "state folder: export FAKE_CLUSTER=\"$(mktemp -d)\")\n" }, tool)
  end
  local r = proc.run({ LLMDLUA, "doctor.lua", "--cluster" }, { env = env })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(select(2, r.stderr:gsub("\n", "")), 1, r.stderr)
  t.ok(r.stderr:find("^doctor%.lua: %-%-cluster: kubectl, helm, helmfile failed %(`kubectl version %-%-client`: fake "
    .. "kubectl: FAKE_CLUSTER is not set"), r.stderr)
  t.ok(r.stdout:find("\nkubectl   " .. FAKEBIN .. "/kubectl  FAILED: `kubectl version --client`: fake kubectl: "
    .. "FAKE_CLUSTER is not set", 1, true), r.stdout)
  -- without --cluster the tools are listed, not required (README): exit 0, the failure shown
  r = proc.run({ LLMDLUA, "doctor.lua" }, { env = env })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("helm      " .. FAKEBIN .. "/helm  FAILED: `helm version --short`", 1, true), r.stdout)
  r = proc.run({ LLMDLUA, "compare.lua", "--plan", s.plan, "--yes", "--quiet" }, { env = env, cwd = s.dir })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find("fake kubectl: FAKE_CLUSTER is not set", 1, true), r.stderr)
  t.ok(not r.stderr:find("traceback", 1, true) and not r.stderr:find("fake.lua", 1, true), r.stderr)
end)

t.test("doctor.lua --cluster against the fake cluster: each tool's version line as the real tool prints it", function()
  local s = setup()
  local r = proc.run({ LLMDLUA, "doctor.lua", "--cluster" }, { env = s.env })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  for _, want in ipairs {
    "\nkubectl   " .. FAKEBIN .. "/kubectl  (Client Version: v1.31.0)\n",
    "\nhelm      " .. FAKEBIN .. "/helm  (v3.16.2+g13654a5)\n",
    "\nhelmfile  " .. FAKEBIN .. "/helmfile  (helmfile version v1.1.7)\n",
    "\noc        " .. FAKEBIN .. "/oc  (Client Version: 4.16.0)\n",
  } do
    t.ok(r.stdout:find(want, 1, true), want .. "\n---\n" .. r.stdout)
  end
  t.ok(not r.stdout:find("unsupported", 1, true) and not r.stdout:find("error", 1, true), r.stdout)
  local function kubectl(...)
    return proc.run({ FAKEBIN .. "/kubectl", ... }, { env = s.env })
  end
  r = kubectl("version", "--client")
  t.eq({ r.code, r.stdout }, { 0, "Client Version: v1.31.0\nKustomize Version: v5.4.2\n" })
  -- -o json: Go's json.MarshalIndent with two spaces, which for string values is exactly
  -- what Python's json.dumps(indent=2) writes; the fields apimachinery's version.Info has
  local py = [[
import json, sys
text = sys.stdin.read()
v = json.loads(text)
print(json.dumps(v, indent=2) + "\n" == text, list(v), list(v["clientVersion"]))]]
  for _, o in ipairs { { "-o", "json" }, { "--output=json" }, { "-ojson" } } do
    r = kubectl("version", "--client", table.unpack(o))
    t.eq(r.code, 0, r.stderr)
    local p = proc.run({ "/usr/bin/python3", "-c", py }, { stdin = r.stdout })
    t.eq(p.stdout, "True ['clientVersion', 'kustomizeVersion'] ['major', 'minor', 'gitVersion', 'gitCommit', "
      .. "'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']\n", table.concat(o, " "))
  end
  -- --output=yaml: sigs.k8s.io/yaml's keys sorted, version numbers and the date quoted strings
  r = kubectl("version", "--client", "--output=yaml")
  t.eq(r.code, 0, r.stderr)
  local keys = {}
  for k in r.stdout:gmatch("\n  (%w+):") do keys[#keys + 1] = k end
  t.eq(keys, { "buildDate", "compiler", "gitCommit", "gitTreeState", "gitVersion", "goVersion", "major", "minor",
    "platform" })
  t.ok(r.stdout:find("^clientVersion:\n"), r.stdout)
  t.ok(r.stdout:find('\n  major: "1"\n', 1, true) and r.stdout:find('\n  buildDate: "', 1, true), r.stdout)
  t.ok(r.stdout:find("\nkustomizeVersion: v5.4.2\n$"), r.stdout)
  t.eq(yaml.load(r.stdout).clientVersion.gitVersion, "v1.31.0")
  r = kubectl("version", "--client", "-o", "wide")
  t.eq({ r.code, r.stderr }, { 1, "error: --output must be 'yaml' or 'json'\n" })
end)

-- A dry run read no Service, so it said nothing of the one its smoke test needs: a plan whose
-- deploy adds no gateway Service passed the dry run (exit 0) and failed at the real smoke
-- test. The dry run now takes the endpoint from what the deploy renders, by the real run's
-- rule (a Service named *gateway* the deploy adds, else an *epp* one, with a port that serves
-- HTTP); where only the cluster can know (a Gateway's controller makes the Service), it says
-- that this is checked only when the smoke test runs. The real runs below fail as predicted.
t.test("dry run: the smoke test's Service from what the deploy renders; none, or no HTTP port, is refused", function()
  local cases = {
    { releases = "  - name: ms-sim\n    chart: llm-d-modelservice/llm-d-modelservice\n",
      dry = "[50] smoke_test (b): FAILED - run b: no Service for the smoke test: what its deploy renders has no "
        .. "gateway Service (a Service named *gateway*, or a Gateway whose controller makes one) and no EPP Service "
        .. "(*epp*) (Services it renders: none); the smoke test would fail; set deploy.service: NAME[:PORT] to test "
        .. "a Service it does not deploy\n",
      real = "run b: no gateway service deployed by this run in bench" },
    { releases = "  - name: gaie-sim\n    chart: oci://registry.k8s.io/gateway-api-inference-extension/charts/"
        .. "inferencepool\n",
      dry = "[50] smoke_test (b): FAILED - run b: service gaie-sim-epp, which its deploy renders, has no port that "
        .. "serves HTTP (ports: 9002; none named http/http2, none with appProtocol http, none of 80/8000/8080): the "
        .. "smoke test would fail; set deploy.service: NAME:PORT\n",
      real = "run b: service gaie-sim-epp in bench has no port that serves HTTP (ports: 9002;" },
  }
  for _, c in ipairs(cases) do
    local s = setup()
    t.write(s.dir .. "/guide/helmfile.yaml", "releases:\n" .. c.releases)
    local r = compare(s, { "--plan", s.plan, "--dry-run" })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.ok(r.stdout:find(c.dry, 1, true), c.dry .. "\n---\n" .. r.stdout)
    r = compare(s)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.ok(r.stdout:find("Run B failed at step 50 (smoke_test)", 1, true), r.stdout)
    t.ok(r.stdout:find(c.real, 1, true), c.real .. "\n---\n" .. r.stdout)
  end
  -- a Gateway (llm-d-infra's): its controller makes the Service once deployed; said so
  local s = setup()
  local r = compare(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("endpoint: service <the Service of Gateway infra-sim-inference-gateway>, dry run: made by the "
    .. "controller of Gateway infra-sim-inference-gateway once deployed, so not known in a dry run: checked only when "
    .. "the smoke test runs\n", 1, true), r.stdout)
  -- a gateway Service the deploy applies: named, with its HTTP port; deploy.service elsewhere: said so
  s = setup(function(plan, d)
    plan.runs.b.deploy = { method = "custom", guide_dir = d .. "/guide", model = "Qwen/Qwen3-0.6B",
      commands = { { "kubectl", "apply", "-f", "svc.yaml" } } }
  end)
  t.write(s.dir .. "/guide/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: my-gateway}\nspec:\n  ports:\n"
    .. "    - {name: status, port: 15021}\n    - {name: http, port: 8080}\n")
  r = compare(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("endpoint: service my-gateway, port 8080 (named http), in what its deploy renders\n", 1, true),
    r.stdout)
  local plan = yaml.load_file(s.plan)
  plan.runs.b.deploy.service = "elsewhere"
  t.write(s.plan, yaml.dump(plan))
  r = compare(s, { "--plan", s.plan, "--dry-run" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("endpoint: service elsewhere, dry run: not in what its deploy renders, so it must be in bench "
    .. "already: not read in a dry run, checked only when the smoke test runs\n", 1, true), r.stdout)
  -- a call whose objects no render shows: the dry run cannot know, and says which call
  t.eq(cluster.unrendered("kubectl", { "expose", "deployment", "x" }), "kubectl expose deployment x (not from manifests)")
  t.eq(cluster.unrendered("kubectl", { "apply", "-f", "a.yaml" }), nil)
  t.eq(cluster.unrendered("kubectl", { "apply", "-k", "ms" }), nil)
  t.eq(cluster.unrendered("kubectl", { "label", "pod", "x", "a=b" }), nil)
  t.eq(cluster.unrendered("helm", { "upgrade", "--install", "r", "c" }), nil)
end)

-- (clusterfix3 3) The results PVC when none is named: the reference procedure
-- (run-llm-d-benchmark: BENCHMARK_PVC from `kubectl get pvc`, else create one, RWX 200Gi)
-- takes a Bound ReadWriteMany PVC of the namespace. Kept where there is one, said which and
-- why; of several, only ours (the one llmdlua made, labelled) is taken, else refused.
t.test("results PVC: the only Bound RWX one is taken and said; of several, llmdlua's; none of ours: refused", function()
  -- (up to teardown: run A's decode pods, whose labels run B's InferencePool selects, go before run B benchmarks)
  -- one Bound RWX PVC, llmdlua's, beside a RWO one: it is the one, and the run says so (someone
  -- else's only one is refused as several are: test_cluster_safety.lua)
  local s = setup()
  local r = compare(s, { "--plan", s.plan, "--step", "0-90" }, { FAKE_PVCS = "team-a-results:ReadWriteMany:Bound:"
    .. "llmdlua,team-a-cache:ReadWriteOnce" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("  results PVC: team-a-results (the only Bound ReadWriteMany PVC in bench, the one made by "
    .. "llmdlua: labelled app.kubernetes.io/managed-by=llmdlua; name one with benchmark_pvc: in the plan (or "
    .. "benchmark.pvc, $BENCHMARK_PVC) to choose another)\n", 1, true), r.stdout)
  local w = workspace(s)
  t.ok(t.read(w .. "/run-a/benchmark/config.yaml"):find("results_pvc: team-a-results", 1, true))
  -- several, one made by llmdlua (its label): that one, and why
  s = setup()
  r = compare(s, { "--plan", s.plan, "--step", "0-90" }, { FAKE_PVCS = "a-team-results:ReadWriteMany,"
    .. "llmd-benchmark-results:ReadWriteMany:Bound:llmdlua,z-team-results:ReadWriteMany" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("  results PVC: llmd-benchmark-results (of the Bound ReadWriteMany PVCs in bench, a-team-results, "
    .. "llmd-benchmark-results, z-team-results, the one made by llmdlua: labelled "
    .. "app.kubernetes.io/managed-by=llmdlua)\n", 1, true), r.stdout)
  -- run B takes the one run A used (recorded), whatever else is there
  t.ok(r.stdout:find("  results PVC: llmd-benchmark-results (of the Bound ReadWriteMany PVCs in bench, a-team-results, "
    .. "llmd-benchmark-results, z-team-results, the one this comparison used already)\n", 1, true), r.stdout)
  -- several, none of ours: refused before run_only.sh runs, one line, nothing written to them
  s = setup()
  r = compare(s, nil, { FAKE_PVCS = "team-a-results:ReadWriteMany,team-b-results:ReadWriteMany" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok((r.stdout .. r.stderr):find("run a: 2 Bound ReadWriteMany PVCs in bench (team-a-results, team-b-results) and none of them "
    .. "is this comparison's or made by llmdlua: which one takes this run's results is not guessed (it could be "
    .. "another team's); name one with benchmark_pvc: in the plan (or benchmark.pvc, $BENCHMARK_PVC)", 1, true),
    r.stdout .. r.stderr)
  for _, l in ipairs(call_lines(s, workspace(s))) do t.ok(not l:match("^run_only"), l) end
  -- named in the plan: that one, said so (no listing needed)
  s = setup(function(p) p.benchmark_pvc = "team-b-results" end)
  r = compare(s, { "--plan", s.plan, "--step", "0-90" }, { FAKE_PVCS = "team-a-results:ReadWriteMany,"
    .. "team-b-results:ReadWriteMany" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("  results PVC: team-b-results (benchmark_pvc in the plan)\n", 1, true), r.stdout)
  -- none Bound RWX, but someone else's PVC of the name llmdlua would make: not changed, refused
  s = setup()
  r = compare(s, nil, { FAKE_PVCS = "llmd-benchmark-results:ReadWriteOnce" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok((r.stdout .. r.stderr):find("run a: no Bound ReadWriteMany PVC in bench, and the PVC llmd-benchmark-results there (Bound, "
    .. "ReadWriteOnce) was not made by llmdlua: it is not changed; name one with benchmark_pvc:", 1, true), r.stdout .. r.stderr)
  t.eq(state(s).ns.bench.pvcs["llmd-benchmark-results"].access, "ReadWriteOnce")
end)

-- (clusterfix3 1) The routes, gateways and services a deploy added were the namespace's
-- difference before/after it: an HTTPRoute or Gateway another team made meanwhile was
-- recorded as this run's and deleted at its teardown, and a gateway Service of theirs could
-- be benchmarked as this run's. Now only what the tools stamp as this run's is recorded:
-- helm's meta.helm.sh/release-name of one of its releases, what it applied by name, what a
-- controller made for one of its Gateways (ownerReference). Expected by hand from the fake's
-- charts: run A (helm release sim, a router chart) makes Service sim-epp; run B (helmfile
-- gaie-sim, infra-sim, ms-sim) makes HTTPRoute infra-sim and Gateway infra-sim-inference-gateway
-- (helm-stamped; llm-d-infra's gateway.yaml names it <release>-inference-gateway), Service
-- gaie-sim-epp (helm-stamped) and Istio's infra-sim-inference-gateway-istio (owned by the
-- Gateway).
t.test("routes, gateways and services another team makes during the deploy are not this run's, nor torn down",
  function()
  local s = setup()
  local r = compare(s, nil, { FAKE_CONCURRENT_OBJECTS = "HTTPRoute/team-b-route@team-b,Gateway/team-b-gw,"
    .. "Service/a-team-b-gateway@team-b" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  for _, l in ipairs {
    "  HTTPRoute team-b-route appeared in bench during the deploy but is not this run's (helm installed it for release "
      .. "team-b, not one of this run's): not recorded as this run's (teardown leaves it)\n",
    "  Gateway team-b-gw appeared in bench during the deploy but is not this run's (no release of this run's stamped "
      .. "it, this run applied none of that name): not recorded as this run's (teardown leaves it)\n",
    "  Service a-team-b-gateway appeared in bench during the deploy but is not this run's (helm installed it for "
      .. "release team-b, not one of this run's): not recorded as this run's (teardown leaves it)\n",
  } do t.ok(r.stdout:find(l, 1, true), l .. "\n" .. r.stdout) end
  local w = workspace(s)
  local da = json.read(w .. "/run-a/deployed.json")
  t.eq({ da.httproutes, da.gateways, da.services }, { {}, {}, { "sim-epp" } })
  local db = json.read(w .. "/run-b/deployed.json")
  t.eq({ db.httproutes, db.gateways, db.services }, { { "infra-sim" }, { "infra-sim-inference-gateway" },
    { "gaie-sim-epp", "infra-sim-inference-gateway-istio" } })
  -- theirs are still there after both teardowns; ours are gone
  local ns = state(s).ns.bench
  t.ok(ns.httproutes["team-b-route"] and ns.gateways["team-b-gw"] and ns.services["a-team-b-gateway"], "kept")
  t.eq({ ns.httproutes["infra-sim"], ns.gateways["infra-sim-inference-gateway"] }, {})
  for _, l in ipairs(call_lines(s, w)) do t.ok(not l:find("team%-b"), "no call names theirs: " .. l) end
end)

-- A gateway Service another team makes (kubectl apply, no stamp) during run B's deploy,
-- named to sort before run B's: recorded as run B's, it was the one smoke-tested and
-- benchmarked. Now run B's own gateway Service (Istio's, owned by its Gateway) is.
t.test("a gateway Service another team makes during the deploy is not benchmarked as this run's", function()
  local s = setup()
  local r = compare(s, nil, { FAKE_CONCURRENT_OBJECTS = "Service/a-other-gateway", FAKE_CONCURRENT_AT = "helmfile" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("  Service a-other-gateway appeared in bench during the deploy but is not this run's (no release "
    .. "of this run's stamped it, this run applied none of that name): not recorded as this run's (teardown leaves "
    .. "it)\n", 1, true), r.stdout)
  t.ok(r.stdout:find("  endpoint: service infra-sim-inference-gateway-istio, port 80 (appProtocol http)\n", 1, true),
    r.stdout)
  local lines = table.concat(call_lines(s, workspace(s)), "\n")
  t.ok(not lines:find("a-other-gateway", 1, true), lines)
  t.ok(state(s).ns.bench.services["a-other-gateway"], "kept")
end)

-- (clusterfix3 2) After a failed benchmark the vLLM pods were restarted with a label
-- selector (`kubectl delete pod -l ...`), which also matched another team's serving pods
-- of the same model that started after this run's stack was ready (FAKE_LATE_PODS, started
-- during the first run_only.sh). Now the pods this run's recorded controllers own are
-- deleted by name: run A's two decode pods (fake.lua: vllm_pods).
t.test("a restart after a failed benchmark deletes this run's pods by name, not another team's with its labels",
  function()
  local s = setup(function(plan) plan.runs.b = { label = "after", existing = { results = TREAT } } end)
  s.env.FAKE_RESULTS = BASE
  local r = compare(s, nil, { FAKE_LATE_PODS = "late-team-decode-1,late-team-decode-2",
    FAKE_FAIL_ONCE = "bench_stderr" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:gsub(POD_SUFFIX, "-<pod>"):find("  restarting the vLLM pods to empty their KV cache: ms-decode-<pod>, "
    .. "ms-decode-<pod> (this run's, by "
    .. "name)\n", 1, true), r.stdout)
  local w = workspace(s)
  local deletes = {}
  for _, l in ipairs(call_lines(s, w)) do if l:find(" delete pod", 1, true) then deletes[#deletes + 1] = l end end
  t.eq(deletes, { "kubectl -n bench delete pod ms-decode-<pod> ms-decode-<pod> --ignore-not-found" })
  local ns = state(s).ns.bench
  t.eq(ns.pods["late-team-decode-1"].containers[1].restarts, 0, "theirs not restarted")
  t.eq(ns.pods["late-team-decode-2"].containers[1].restarts, 0, "theirs not restarted")
  -- the controllers of run A's pods when it was first ready (fake.lua: owner_refs, a Deployment's
  -- ReplicaSet <name>-<10-character hash> for the decode pods and the router's sim-epp)
  local po = json.read(w .. "/run-a/deployed.json").pod_owners
  t.eq(#po, 2, po)
  t.ok(po[1]:match("^ReplicaSet/ms%-decode%-" .. SAFE:rep(10) .. "$"), po[1])
  t.ok(po[2]:match("^ReplicaSet/sim%-epp%-" .. SAFE:rep(10) .. "$"), po[2])
  -- nor were they waited for after the restart, nor their logs collected, nor are they left to
  -- tear down: run A's teardown is complete
  t.ok(r.stdout:find("pods Ready 3/3", 1, true) and not r.stdout:find("pods Ready 5/5", 1, true), r.stdout)
  local lines = table.concat(call_lines(s, w), "\n")
  t.ok(not lines:find("logs late-team", 1, true), lines)
  t.ok(json.read(w .. "/run-a/deployed.json").torn_down, "run A torn down")
end)

-- (clusterfix3 1) Who made an object, from its metadata as the API server returns it. The
-- inputs are written by hand: helm's stamps (pkg/action: meta.helm.sh/release-name and
-- -namespace annotations, managed-by=Helm label); Istio's kube-gateway template (an
-- ownerReference to the Gateway with apiVersion, kind, name, uid and no controller field;
-- labels gateway.networking.k8s.io/gateway-name and istio.io/gateway-name); a ReplicaSet's
-- pod-like controller reference; kubectl apply (no stamp).
t.test("made_by: helm's stamps, Istio's Gateway ownerReference without controller, the gateway-name label", function()
  t.eq(cluster.made_by { metadata = { name = "ms-sim-epp", annotations = { ["meta.helm.sh/release-name"] = "gaie-sim",
    ["meta.helm.sh/release-namespace"] = "bench" }, labels = { ["app.kubernetes.io/managed-by"] = "Helm" } } },
    { release = "gaie-sim", release_ns = "bench", gateways = {} })
  t.eq(cluster.made_by { metadata = { name = "infra-sim-inference-gateway-istio",
    labels = { ["gateway.networking.k8s.io/gateway-name"] = "infra-sim-inference-gateway",
      ["istio.io/gateway-name"] = "infra-sim-inference-gateway" },
    ownerReferences = { { apiVersion = "gateway.networking.k8s.io/v1", kind = "Gateway",
      name = "infra-sim-inference-gateway", uid = "4f0b6c1e-0000-4000-8000-000000000001" } } } },
    { owner = "Gateway/infra-sim-inference-gateway", gateways = { "infra-sim-inference-gateway",
      "infra-sim-inference-gateway" } })
  t.eq(cluster.made_by { metadata = { name = "x", ownerReferences = { { kind = "Gateway", name = "other" },
    { kind = "ReplicaSet", name = "rs-1", controller = true } } } }, { owner = "ReplicaSet/rs-1", gateways = { "other" } })
  t.eq(cluster.made_by { metadata = { name = "applied", annotations = {
    ["kubectl.kubernetes.io/last-applied-configuration"] = "{}" } } }, { gateways = {} })
  t.eq(cluster.made_by {}, { gateways = {} })
end)

-- (clusterfix4 1) Pods another team starts in the namespace during this run's deploy, before
-- its stack is first ready: FAKE_CONCURRENT_DEPLOYMENTS, Deployments team-c-decode
-- (helm-stamped for release team-c) and team-d-decode (kubectl-applied, no stamp), two
-- serving pods each, started during run A's helm upgrade. They carry the serving label, so
-- until now wait_ready counted them (Ready 7/7), recorded their ReplicaSets as this run's and
-- a restart deleted them. Now a pod is this run's only when its chain of owners -
-- ReplicaSet, Deployment - leads to a release of this run's or an object it applied (run A:
-- release sim's sim-epp, kustomize ms's Deployment ms-decode): 3 pods, by hand.
t.test("pods another team starts during the deploy are not this run's: not waited for, restarted, served, torn down",
  function()
  local s = setup(function(plan) plan.runs.b = { label = "after", existing = { results = TREAT } } end)
  s.env.FAKE_RESULTS = BASE
  local r = compare(s, nil, { FAKE_CONCURRENT_DEPLOYMENTS = "team-c-decode@team-c,team-d-decode",
    FAKE_CONCURRENT_AT = "helm", FAKE_FAIL_ONCE = "bench_stderr" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("pods Ready 3/3", 1, true) and not r.stdout:find("pods Ready 7/7", 1, true), r.stdout)
  local w = workspace(s)
  local lines = table.concat(call_lines(s, w), "\n")
  -- the restart: run A's two decode pods by name, none of theirs
  local deletes = {}
  for l in lines:gmatch("[^\n]+") do if l:find(" delete pod", 1, true) then deletes[#deletes + 1] = l end end
  t.eq(deletes, { "kubectl -n bench delete pod ms-decode-<pod> ms-decode-<pod> --ignore-not-found" })
  t.ok(not lines:find("team%-[cd]"), "no call names their pods or Deployments:\n" .. lines)
  -- the controllers recorded at first readiness: run A's two ReplicaSets only
  local po = json.read(w .. "/run-a/deployed.json").pod_owners
  t.eq(#po, 2, po)
  t.ok(po[1]:match("^ReplicaSet/ms%-decode%-") and po[2]:match("^ReplicaSet/sim%-epp%-"), po)
  -- the baseline Service selects run A's decode pods' labels, the model among them: theirs
  -- (another model) are not behind it, so not smoke-tested or benchmarked
  local applied
  for _, c in ipairs(calls(s)) do
    if c.tool == "kubectl" and table.concat(c.args, " ") == "-n bench create -f - -o json" and c.stdin:find("kind: Service", 1, true) then
      applied = yaml.load(c.stdin)
    end
  end
  t.eq(applied.spec.selector["llm-d.ai/model"], "qwen-qwen3-0-6b")
  -- theirs survive both teardown and restart, under their names; run A is torn down
  local st = state(s)
  t.eq(#pods_of(st, "bench", "team-c-decode"), 2)
  t.eq(#pods_of(st, "bench", "team-d-decode"), 2)
  t.ok(st.ns.bench.deployments["team-c-decode"] and st.ns.bench.deployments["team-d-decode"], "theirs kept")
  t.eq(#pods_of(st, "bench", "ms-decode"), 0)
  t.ok(json.read(w .. "/run-a/deployed.json").torn_down, "run A torn down")
end)

-- The chain on its own: pod -> ReplicaSet -> Deployment -> helm's release stamp, or an object
-- applied by name; a chain that breaks (an owner gone) is not counted as this run's.
t.test("chain_resolver: a pod's owners up to a release or an applied object", function()
  local objs = {
    { kind = "ReplicaSet", metadata = { name = "a-rs", ownerReferences = { { kind = "Deployment", name = "a",
      apiVersion = "apps/v1", controller = true } } } },
    { kind = "Deployment", metadata = { name = "a", annotations = { ["meta.helm.sh/release-name"] = "mine",
      ["meta.helm.sh/release-namespace"] = "bench" } } },
    { kind = "ReplicaSet", metadata = { name = "b-rs", ownerReferences = { { kind = "Deployment", name = "b",
      apiVersion = "apps/v1", controller = true } } } },
    { kind = "Deployment", metadata = { name = "b", annotations = { ["meta.helm.sh/release-name"] = "theirs" } } },
    { kind = "ReplicaSet", metadata = { name = "c-rs", ownerReferences = { { kind = "Deployment", name = "c",
      apiVersion = "apps/v1", controller = true } } } },
    { kind = "Deployment", metadata = { name = "c" } },
    { kind = "Deployment", metadata = { name = "x", annotations = { ["meta.helm.sh/release-name"] = "mine",
      ["meta.helm.sh/release-namespace"] = "elsewhere" } } },
    { kind = "ReplicaSet", metadata = { name = "x-rs", ownerReferences = { { kind = "Deployment", name = "x",
      apiVersion = "apps/v1", controller = true } } } },
  }
  local asked = {}
  local ctx = { ns = "bench", k = { json = function(_, a)
    asked[#asked + 1] = table.concat(a, " ")
    if a[2] == "replicasets,deployments,statefulsets" then return { items = objs } end
    return nil -- (one by name: not found)
  end } }
  local chain = cluster.chain_resolver(ctx, { releases = { "mine" }, applied = { "Deployment/c" } })
  local function pod(rs)
    return { metadata = { name = "p", ownerReferences = rs and { { kind = "ReplicaSet", name = rs,
      apiVersion = "apps/v1", controller = true } } or nil } }
  end
  t.eq(chain(pod("a-rs")), "ours")                       -- release mine, this namespace
  t.eq(chain(pod("b-rs")), "theirs")                     -- another release's
  t.eq(chain(pod("c-rs")), "ours")                       -- Deployment/c applied by this run
  t.eq(chain(pod("x-rs")), "theirs")                     -- release mine of another namespace
  t.eq(chain(pod(nil)), "theirs")                        -- a bare pod nobody of ours made
  t.eq(chain(pod("gone-rs")), "unknown")                 -- its ReplicaSet cannot be read
  t.eq(asked, { "get replicasets,deployments,statefulsets", "get replicaset.apps gone-rs" })
end)

-- A comparison whose run A is a custom deploy - the router's helm install, then the
-- commands after (each { tool, arg, ... }), with the commands before ahead of it - and whose
-- run B reuses TREAT's results; the benchmark writes BASE's.
local function custom_deploy(after, before)
  local s = setup(function(plan)
    plan.runs.b = { label = "after", existing = { results = TREAT } }
    local commands = {}
    for _, c in ipairs(before or {}) do commands[#commands + 1] = c end
    commands[#commands + 1] = { "helm", "upgrade", "--install", "sim",
      "oci://ghcr.io/llm-d/charts/llm-d-router-standalone", "-f", "router.values.yaml" }
    for _, c in ipairs(after) do commands[#commands + 1] = c end
    plan.runs.a.deploy = { method = "custom", guide_dir = plan.runs.a.deploy.guide_dir, model = "Qwen/Qwen3-0.6B",
      kustomize = "ms", commands = commands }
  end)
  s.env.FAKE_RESULTS = BASE
  return s
end

-- (clusterfix4 2) What a custom deploy creates without a manifest: kubectl create fails when
-- the object exists (AlreadyExists), so one that succeeded is this run's: recorded, its pods
-- counted, deleted by name at teardown.
t.test("a custom deploy's kubectl create deployment is recorded and torn down; created_by reads the calls", function()
  t.eq(cluster.created_by("kubectl", { "create", "deployment", "cache", "--image=redis" }),
    { { kind = "Deployment", resource = "deployment", name = "cache" } })
  t.eq(cluster.created_by("kubectl", { "create", "secret", "generic", "tok", "--from-literal=a=b" }),
    { { kind = "Secret", resource = "secret", name = "tok" } })
  t.eq(cluster.created_by("kubectl", { "expose", "deployment/cache", "--port", "80", "--name", "cache-svc" }),
    { { kind = "Service", resource = "service", name = "cache-svc" } })
  t.eq(cluster.created_by("kubectl", { "create", "deployment", "cache", "--image=redis", "--dry-run=client" }), {})
  t.eq(cluster.created_by("kubectl", { "create", "-f", "x.yaml" }), {})
  t.eq(cluster.created_by("helm", { "install", "x", "y" }), {})
  local s = custom_deploy {
    { "kubectl", "create", "deployment", "kv-cache", "--image=redis" } }
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("  Deployment kv-cache: made by kubectl create of the deploy (kubectl fails when one exists, so "
    .. "this run's): recorded, teardown deletes it\n", 1, true), r.stdout)
  -- its pod is this run's (its chain: ReplicaSet, Deployment kv-cache): 2 + 1 + 1
  t.ok(r.stdout:find("pods Ready 4/4", 1, true), r.stdout)
  local lines = table.concat(call_lines(s, workspace(s)), "\n")
  -- (held to the uid read right after the deploy made it: a raw DELETE with preconditions.uid)
  t.ok(lines:find("kubectl -n bench delete --raw /apis/apps/v1/namespaces/bench/deployments/kv-cache -f -", 1, true),
    lines)
  t.eq(state(s).ns.bench.deployments["kv-cache"], nil, "torn down")
  t.eq(#pods_of(state(s), "bench", "kv-cache"), 0)
end)

-- (left36 2) kubectl create ... --dry-run=client -o yaml makes nothing: it prints the object
-- (the usual way to write a manifest). The fake used to create it; a custom deploy using it
-- must leave nothing recorded, deleted at teardown or counted as this run's.
t.test("a custom deploy's kubectl create deployment --dry-run=client -o yaml: nothing made, recorded or deleted",
  function()
  local s = custom_deploy {
    { "kubectl", "create", "deployment", "kv-cache", "--image=redis", "--dry-run=client", "-o", "yaml" } }
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(not r.stdout:find("kv-cache", 1, true), r.stdout)
  -- by hand: ms-decode's 2 vLLM pods and the router's 1; no kv-cache pod (3, not 4)
  t.ok(r.stdout:find("pods Ready 3/3", 1, true), r.stdout)
  local w = workspace(s)
  -- deployed.json: the command is listed as run, but nothing of it is this run's
  local dep = json.read(w .. "/run-a/deployed.json")
  t.eq(#dep.created, 0)
  for _, k in ipairs { "applied", "pod_owners", "left" } do
    t.ok(not json.encode(dep[k] or {}):find("kv-cache", 1, true), k .. ": " .. json.encode(dep[k] or {}))
  end
  local lines = table.concat(call_lines(s, w), "\n")
  t.ok(not lines:find("delete deployment kv-cache", 1, true), lines)
  t.eq(state(s).ns.bench.deployments["kv-cache"], nil, "never made")
end)

-- The fake's kubectl create deployment against real kubectl's forms (cmd/create and
-- cmd/util GetDryRunStrategy; the objects written by hand from kubectl 1.30's output).
t.test("fake kubectl create deployment: --dry-run forms, -o yaml|json|name, AlreadyExists", function()
  local s = setup()
  local function kc(...)
    local env = {}
    for k, v in pairs(s.env) do env[k] = v end
    return proc.run({ FAKEBIN .. "/kubectl", "-n", "bench", ... }, { env = env })
  end
  local want = { apiVersion = "apps/v1", kind = "Deployment",
    metadata = { creationTimestamp = json.null, labels = { app = "c" }, name = "c", namespace = "bench" },
    spec = { replicas = 2, selector = { matchLabels = { app = "c" } }, strategy = {},
      template = { metadata = { creationTimestamp = json.null, labels = { app = "c" } },
        spec = { containers = { { image = "ghcr.io/x/redis_db:7@sha256:ab", name = "redis-db", resources = {} } } } } },
    status = {} }
  local r = kc("create", "deployment", "c", "--image=ghcr.io/x/redis_db:7@sha256:ab", "--replicas=2",
    "--dry-run=client", "-o", "yaml")
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stdout:match("^apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"), r.stdout)
  local got = yaml.load(r.stdout)
  t.eq(got.spec.template.spec.containers, want.spec.template.spec.containers)
  t.eq(got.metadata.labels, want.metadata.labels)
  t.eq({ got.metadata.name, got.metadata.namespace, got.spec.replicas }, { "c", "bench", 2 })
  r = kc("create", "deployment", "c", "--image=ghcr.io/x/redis_db:7@sha256:ab", "--replicas=2",
    "--dry-run=server", "-o", "json")
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stdout:match('^{\n    "kind": "Deployment",\n    "apiVersion": "apps/v1",\n'), r.stdout)
  t.eq(json.decode(r.stdout), want)
  r = kc("create", "deployment", "c", "--image=redis", "--dry-run")
  t.eq({ r.code, r.stdout }, { 0, "deployment.apps/c created (dry run)\n" })
  t.ok(r.stderr:find("--dry-run is deprecated and can be replaced with --dry-run=client.", 1, true), r.stderr)
  r = kc("create", "deployment", "c", "--image=redis", "--dry-run=server")
  t.eq({ r.code, r.stdout }, { 0, "deployment.apps/c created (server dry run)\n" })
  r = kc("create", "deployment", "c", "--image=redis", "--dry-run=maybe")
  t.eq({ r.code, r.stderr }, { 1, 'error: Invalid dry-run value (maybe). Must be "none", "server", or "client".\n' })
  t.eq((state(s).ns.bench.deployments or {}).c, nil, "no dry run made it")
  r = kc("create", "deployment", "c", "--image=redis", "--dry-run=none", "-o", "name")
  t.eq({ r.code, r.stdout }, { 0, "deployment.apps/c\n" })
  t.ok(state(s).ns.bench.deployments.c, "made")
  -- the server checks a server dry run (AlreadyExists), never a client one
  r = kc("create", "deployment", "c", "--image=redis", "--dry-run=server")
  t.eq({ r.code, r.stderr }, { 1, 'error: failed to create deployment: deployments.apps "c" already exists\n' })
  r = kc("create", "deployment", "c", "--image=redis", "--dry-run=client")
  t.eq({ r.code, r.stdout }, { 0, "deployment.apps/c created (dry run)\n" })
end)

-- (misc37 1) The fake's other kubectl create forms against real kubectl's (cmd/create:
-- create_configmap.go, create_secret.go, create_service.go; the objects written by hand
-- from kubectl 1.30's output, the base64 by Python's base64.b64encode): it used to answer
-- "applied" and record nothing, so a custom deploy's create could never collide.
t.test("fake kubectl create configmap|secret generic|service: objects, -o forms, dry runs, AlreadyExists", function()
  local s = setup()
  local d = t.tmpdir()
  t.write(d .. "/tok.txt", "line1\n")
  t.write(d .. "/app.env", "# a comment\n\n  MODE=lru\nSIZE=2\n")
  local function kc(ns, ...)
    local env = {}
    for k, v in pairs(s.env) do env[k] = v end
    return proc.run({ FAKEBIN .. "/kubectl", "-n", ns, ... }, { env = env, cwd = d })
  end
  local function st(ns, map) return (state(s).ns[ns] or {})[map] or {} end
  -- a ConfigMap: literals and a file (key: its base name, or key=path)
  local r = kc("bench", "create", "configmap", "conf", "--from-literal=mode=lru", "--from-file=tok.txt",
    "--from-file=k2=tok.txt", "--dry-run=client", "-o", "yaml")
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stdout:match("^apiVersion: v1\ndata:\n"), r.stdout) -- (keys sorted)
  t.eq(yaml.load(r.stdout), { apiVersion = "v1", kind = "ConfigMap", data = { mode = "lru", ["tok.txt"] = "line1\n",
    k2 = "line1\n" }, metadata = { creationTimestamp = json.null, name = "conf", namespace = "bench" } })
  r = kc("bench", "create", "cm", "conf", "--from-env-file=app.env", "--dry-run=server", "-o", "json")
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stdout:match('^{\n    "kind": "ConfigMap",\n    "apiVersion": "v1",\n    "metadata": {\n        "name": '
    .. '"conf",\n'), r.stdout)
  t.eq(json.decode(r.stdout).data, { MODE = "lru", SIZE = "2" })
  t.eq(st("bench", "configmaps").conf, nil, "no dry run made it")
  r = kc("bench", "create", "configmap", "conf", "--from-literal=mode=lru")
  t.eq({ r.code, r.stdout }, { 0, "configmap/conf created\n" })
  t.eq(st("bench", "configmaps").conf.data, { mode = "lru" })
  r = kc("bench", "create", "configmap", "conf", "--from-literal=mode=lfu")
  t.eq({ r.code, r.stderr }, { 1, 'error: failed to create configmap: configmaps "conf" already exists\n' })
  r = kc("bench", "create", "configmap", "conf", "--dry-run=server")
  t.eq({ r.code, r.stderr }, { 1, 'error: failed to create configmap: configmaps "conf" already exists\n' })
  r = kc("bench", "create", "configmap", "conf", "--dry-run=client")
  t.eq({ r.code, r.stdout }, { 0, "configmap/conf created (dry run)\n" })
  -- another namespace's is another object
  r = kc("other", "create", "configmap", "conf", "-o", "name")
  t.eq({ r.code, r.stdout }, { 0, "configmap/conf\n" })
  t.eq(st("other", "configmaps").conf.metadata.namespace, "other")
  t.eq(st("bench", "configmaps").conf.data, { mode = "lru" }, "bench's unchanged")
  -- (-o json: without it kubectl prints a table, which the fake does not print for a ConfigMap)
  r = kc("bench", "get", "configmap", "conf", "-o", "json")
  t.eq({ r.code, json.decode(r.stdout).data }, { 0, { mode = "lru" } })
  r = kc("bench", "delete", "configmap", "conf")
  t.eq({ r.code, r.stdout }, { 0, 'configmap "conf" deleted\n' })
  t.eq({ st("bench", "configmaps").conf, st("other", "configmaps").conf ~= nil }, { nil, true })
  r = kc("bench", "create", "configmap", "dup", "--from-literal=a=1", "--from-literal=a=2")
  t.eq({ r.code, r.stderr }, { 1, 'error: cannot add key "a", another key by that name already exists in Data for '
    .. 'ConfigMap "dup"\n' })
  r = kc("bench", "create", "configmap", "bad", "--from-env-file=app.env", "--from-literal=a=1")
  t.eq({ r.code, r.stderr }, { 1, "error: from-env-file cannot be combined with from-file or from-literal\n" })
  r = kc("bench", "create", "configmap")
  t.eq({ r.code, r.stderr }, { 1, "error: exactly one NAME is required, got 0\nSee 'kubectl create configmap -h' for "
    .. "help and examples\n" })
  -- a Secret: data base64 ("s3cret" -> czNjcmV0, "line1\n" -> bGluZTEK), no type unless --type
  r = kc("bench", "create", "secret", "generic", "tok", "--from-literal=token=s3cret", "--from-file=tok.txt",
    "--dry-run=client", "-o", "yaml")
  t.eq(r.code, 0, r.stderr)
  t.eq(yaml.load(r.stdout), { apiVersion = "v1", kind = "Secret", data = { token = "czNjcmV0", ["tok.txt"] = "bGluZTEK" },
    metadata = { creationTimestamp = json.null, name = "tok", namespace = "bench" } })
  r = kc("bench", "create", "secret", "generic", "tok", "--from-literal=token=s3cret", "--type=example.com/t")
  t.eq({ r.code, r.stdout }, { 0, "secret/tok created\n" })
  t.eq(st("bench", "secrets").tok.type, "example.com/t")
  r = kc("bench", "create", "secret", "generic", "tok")
  t.eq({ r.code, r.stderr }, { 1, 'error: failed to create secret secrets "tok" already exists\n' }) -- (no colon)
  -- a Service: labels and selector app=NAME, a port a --tcp (named "port-target")
  r = kc("bench", "create", "service", "clusterip", "kv", "--tcp=6379", "--tcp=80:http", "--dry-run=client", "-o",
    "yaml")
  t.eq(r.code, 0, r.stderr)
  t.eq(yaml.load(r.stdout), { apiVersion = "v1", kind = "Service", metadata = { creationTimestamp = json.null,
    labels = { app = "kv" }, name = "kv", namespace = "bench" }, spec = { ports = {
      { name = "6379", port = 6379, protocol = "TCP", targetPort = 6379 },
      { name = "80-http", port = 80, protocol = "TCP", targetPort = "http" } },
    selector = { app = "kv" }, type = "ClusterIP" }, status = { loadBalancer = {} } })
  r = kc("bench", "create", "service", "clusterip", "kv")
  t.eq({ r.code, r.stderr }, { 1, "error: at least one tcp port specifier must be provided\n" })
  r = kc("bench", "create", "svc", "clusterip", "kv", "--tcp=6379")
  t.eq({ r.code, r.stdout }, { 0, "service/kv created\n" })
  t.eq(json.decode(kc("bench", "get", "svc", "kv", "-o", "json").stdout).spec.selector, { app = "kv" })
  r = kc("bench", "create", "service", "nodeport", "kv", "--tcp=6379")
  t.eq({ r.code, r.stderr }, { 1, 'error: failed to create NodePort service: services "kv" already exists\n' })
  -- forms the fake does not model say so (exit 2), never "applied"
  r = kc("bench", "create", "role", "r", "--verb=get", "--resource=pods")
  t.eq({ r.code, r.stderr }, { 2, "fake kubectl: unsupported call: -n bench create role r --verb=get --resource=pods\n" })
  r = kc("bench", "apply")
  t.eq({ r.code, r.stderr }, { 1, "error: must specify one of -f and -k\n" })
end)

-- (misc37 1) Through llmdlua: a custom deploy's kubectl create configmap, secret generic and
-- service are made in the namespace, recorded as this run's and deleted at teardown.
t.test("a custom deploy's kubectl create configmap, secret, service: made, recorded, torn down", function()
  local s = custom_deploy {
    { "kubectl", "create", "configmap", "kv-conf", "--from-literal=mode=lru" },
    { "kubectl", "create", "secret", "generic", "kv-tok", "--from-literal=token=s3cret" },
    { "kubectl", "create", "service", "clusterip", "kv-cache", "--tcp=6379" },
    -- (what the run reads back: made in the namespace, not just answered)
    { "kubectl", "get", "configmap", "kv-conf", "-o", "json" } }
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  for _, o in ipairs { "ConfigMap kv-conf", "Secret kv-tok", "Service kv-cache" } do
    t.ok(r.stdout:find("  " .. o .. ": made by kubectl create of the deploy (kubectl fails when one exists, so "
      .. "this run's): recorded, teardown deletes it\n", 1, true), o .. "\n" .. r.stdout)
  end
  local lines = table.concat(call_lines(s, workspace(s)), "\n")
  -- (each held to its uid: a raw DELETE to its path in the core group)
  for _, o in ipairs { "configmaps/kv-conf", "secrets/kv-tok", "services/kv-cache" } do
    t.ok(lines:find("kubectl -n bench delete --raw /api/v1/namespaces/bench/" .. o .. " -f -", 1, true),
      o .. "\n" .. lines)
  end
  local ns = state(s).ns.bench
  t.eq({ ns.configmaps["kv-conf"], (ns.secrets or {})["kv-tok"], ns.services["kv-cache"] }, {}, "torn down")
  t.eq({ ns.other["ConfigMap/kv-conf"], ns.other["Secret/kv-tok"], ns.other["Service/kv-cache"] }, {})
end)

-- (misc37 1) Someone else's ConfigMap of that name in the namespace: kubectl create fails
-- (AlreadyExists), so the deploy fails, nothing of it is recorded and theirs is left. The
-- fake used to answer "applied": the run recorded it as its own and teardown deleted theirs.
t.test("a custom deploy's kubectl create configmap of someone else's name: AlreadyExists, theirs kept", function()
  local s = custom_deploy {
    { "kubectl", "create", "configmap", "kv-conf", "--from-literal=mode=lru" } }
  local r = compare(s, nil, { FAKE_OTHER_OBJECTS = "ConfigMap/kv-conf" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok((r.stdout .. r.stderr):find('failed to create configmap: configmaps "kv-conf" already exists', 1, true),
    r.stdout .. r.stderr)
  t.ok(not r.stdout:find("ConfigMap kv-conf: made by", 1, true), r.stdout)
  local w = workspace(s)
  t.ok(not json.encode(json.read(w .. "/run-a/deployed.json").created):find("kv-conf", 1, true))
  local lines = table.concat(call_lines(s, w), "\n")
  t.ok(not lines:find("delete configmap kv-conf", 1, true), lines)
  t.eq(state(s).ns.bench.other["ConfigMap/kv-conf"], "someone", "theirs kept")
end)

-- (clusterfix4 1) A stack never ready records no controllers of its pods; its teardown then
-- checks that none of its pods is left by their chain of owners: another team's pods started
-- during its deploy (FAKE_CONCURRENT_DEPLOYMENTS) are not "left", and stay.
t.test("teardown of a stack never ready: another team's pods from during the deploy are neither left nor removed",
  function()
  local s = setup(function(plan) plan.runs.b = { label = "after", existing = { results = TREAT } } end)
  local env = { FAKE_CONCURRENT_DEPLOYMENTS = "team-c-decode@team-c,team-d-decode", FAKE_CONCURRENT_AT = "helm" }
  env.FAKE_FAIL = "notready"
  local r = compare(s, nil, env)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("the stack was not ready within 3 s", 1, true), r.stdout)
  local w = workspace(s)
  t.eq(#json.read(w .. "/run-a/deployed.json").pod_owners, 0, "none recorded")
  env.FAKE_FAIL = false
  r = compare(s, { "--resume", w, "--step", "90" }, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(json.read(w .. "/run-a/deployed.json").torn_down, "run A torn down, nothing of it left")
  local st = state(s)
  t.eq(#pods_of(st, "bench", "team-c-decode"), 2)
  t.eq(#pods_of(st, "bench", "team-d-decode"), 2)
  t.eq(#pods_of(st, "bench", "ms-decode"), 0)
end)

-- (clusterfix5 1) kubectl apply's output, one line an object, as cmd/apply prints it
-- (written by hand from kubectl's printer: "<resource>[.<group>]/<name> <operation>", the
-- dry-run suffixes, -o name's bare reference).
t.test("apply_output: kubectl apply's lines, dry runs, -o name, other lines", function()
  local said, other = cluster.apply_output("deployment.apps/kv-cache created\nservice/shared unchanged\n"
    .. "configmap/cm configured\nleaderworkerset.leaderworkerset.x-k8s.io/wide serverside-applied\n"
    .. "secret/tok created (dry run)\nrole.rbac.authorization.k8s.io/r created (server dry run)\n"
    .. "inferencepool.inference.networking.k8s.io/pool\nWarning: something\n")
  t.eq(said, {
    { ref = "deployment.apps/kv-cache", res = "deployment.apps", name = "kv-cache", op = "created" },
    { ref = "service/shared", res = "service", name = "shared", op = "unchanged" },
    { ref = "configmap/cm", res = "configmap", name = "cm", op = "configured" },
    { ref = "leaderworkerset.leaderworkerset.x-k8s.io/wide", res = "leaderworkerset.leaderworkerset.x-k8s.io",
      name = "wide", op = "serverside-applied" },
    { ref = "secret/tok", res = "secret", name = "tok", op = "created", dry = true },
    { ref = "role.rbac.authorization.k8s.io/r", res = "role.rbac.authorization.k8s.io", name = "r", op = "created",
      dry = true },
    { ref = "inferencepool.inference.networking.k8s.io/pool", res = "inferencepool.inference.networking.k8s.io",
      name = "pool" },
  })
  t.eq(other, { "Warning: something" })
end)

-- (clusterfix5 1) A custom deploy's `kubectl apply -f`: what kubectl says it created is this
-- run's (deleted at teardown by the reference it printed); what it says configured or
-- unchanged was there before (someone else's ConfigMap team-cm, FAKE_OTHER_OBJECTS) and is
-- left, and said. The fake prints what kubectl prints (fake.lua: apply_docs).
t.test("a custom deploy's kubectl apply -f: created objects torn down, configured ones left and said", function()
  local s = custom_deploy { { "kubectl", "apply", "-f", "app.yaml" } }
  t.write(s.dir .. "/guide/app.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new-cm\n---\n"
    .. "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kv-cache\nspec:\n  replicas: 1\n  template:\n"
    .. "    metadata:\n      labels:\n        app: kv-cache\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n"
    .. "  name: team-cm\n")
  local r = compare(s, nil, { FAKE_OTHER_OBJECTS = "ConfigMap/team-cm" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("  deployment.apps/kv-cache: kubectl apply -f app.yaml says created (it was not there): this "
    .. "run's, recorded, teardown deletes it\n", 1, true), r.stdout)
  t.ok(r.stdout:find("  configmap/team-cm: kubectl apply -f app.yaml says configured: it was there before this run, "
    .. "so not this run's: teardown leaves it\n", 1, true), r.stdout)
  -- kv-cache's pod is this run's (its chain: ReplicaSet, Deployment kv-cache applied): 1 + 2 + 1
  t.ok(r.stdout:find("pods Ready 4/4", 1, true), r.stdout)
  local lines = table.concat(call_lines(s, workspace(s)), "\n")
  t.ok(lines:find("kubectl -n bench delete --raw /api/v1/namespaces/bench/configmaps/new-cm -f -", 1, true), lines)
  t.ok(lines:find("kubectl -n bench delete --raw /apis/apps/v1/namespaces/bench/deployments/kv-cache -f -", 1, true),
    lines)
  t.ok(not lines:find("delete configmap team-cm", 1, true), lines)
  t.ok(r.stdout:find("; deleted what its kubectl made: configmap/new-cm, deployment.apps/kv-cache; left (not this "
    .. "run's, or not known to be): configmap/team-cm (kubectl apply -f app.yaml said configured: it was there "
    .. "before this run, so not this run's)\n", 1, true), r.stdout)
  local ns = state(s).ns.bench
  t.eq(ns.other["ConfigMap/team-cm"], "someone", "theirs kept")
  t.eq(ns.other["ConfigMap/new-cm"], nil, "ours deleted")
  t.eq(ns.deployments["kv-cache"], nil)
  t.eq(#pods_of(state(s), "bench", "kv-cache"), 0)
end)

-- (clusterfix5 1) When kubectl's output does not say what it created (-o name prints the
-- references alone; --server-side says serverside-applied whether it made or changed
-- one), nothing of it is deleted: each object is named with the command that removes it.
t.test("a custom deploy's kubectl apply whose output does not say: left, named, with how to remove each", function()
  for _, how in ipairs { { "-o", "name" }, { "--server-side" } } do
    local cmd = { "kubectl", "apply", "-f", "app.yaml" }
    for _, w in ipairs(how) do cmd[#cmd + 1] = w end
    local s = custom_deploy { cmd }
    t.write(s.dir .. "/guide/app.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new-cm\n---\n"
      .. "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tok\n")
    local r = compare(s)
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local shown = "kubectl apply -f app.yaml " .. table.concat(how, " ")
    t.ok(r.stdout:find(("  %s: its output does not say whether it created them, so configmap/new-cm, secret/tok are "
      .. "not known to be this run's: teardown leaves them; if they are this run's, remove them with: kubectl -n "
      .. "bench delete configmap new-cm; kubectl -n bench delete secret tok\n"):format(shown), 1, true), r.stdout)
    -- (but the namespace's lock, llmdlua-lock, which the run lets go at the end)
    local lines = table.concat(call_lines(s, workspace(s)), "\n"):gsub("[^\n]*configmaps?[ /]llmdlua%-lock[^\n]*", "")
    t.ok(not lines:find("delete configmap", 1, true) and not lines:find("delete secret", 1, true), lines)
    t.ok(r.stdout:find(("left (not this run's, or not known to be): configmap/new-cm (%s: its output does not say "
      .. "whether it created them; if it is this run's: kubectl -n bench delete configmap new-cm); secret/tok")
      :format(shown), 1, true), r.stdout)
    t.eq(state(s).ns.bench.other["ConfigMap/new-cm"], "kubectl", "left")
  end
end)

-- (clusterfix5 3) llm-d's InferencePool selects its endpoints by labels alone (the chart's
-- spec.selector.matchLabels is inferencePool.modelServers.matchLabels; the guides give the
-- serving label and the model's, nothing of the release - fake.lua: make_release). Another
-- team's model servers carrying exactly those labels (FAKE_OTHER_RELEASE +
-- FAKE_OTHER_SAME_MODEL: a-team-ms-decode, two pods, there before) would get requests sent
-- through this run's gateway. Checked before the smoke test (leftfix35: the smoke request
-- through such a pool "passed" on their servers) and before benchmarking: stopped, naming
-- them, with no port-forward and no benchmark; with another model's labels
-- (FAKE_OTHER_RELEASE alone) the pool's 2 pods are run B's ms-sim's, said at both checks.
-- fixc53 #4: `--step 20` deploys run A and leaves it up (its teardown, step 90, is not among
-- the steps), then deploys run B in the same namespace. Step 20's refusal of run B named run
-- A's pods "another stack's serving pods ... give this run's model servers a label of their
-- own", and run A's releases "not deployed by this comparison": they are this comparison's
-- own run A. Now named so, with why it is still up and how to go on (a --resume without
-- --step: run A is benchmarked and torn down before run B deploys), which is then checked to
-- work. Expected texts by hand.
t.test("step 20 names this comparison's other run, left up by --step, as its own, and how to go on", function()
  -- run B's InferencePool selects run A's model server pods (setup's plan: both serve Qwen3-0.6B)
  local s = setup()
  local r = compare(s, { "--plan", s.plan, "--step", "20" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = workspace(s)
  local line = r.stdout:match("\n%[20%] deploy %(b%): FAILED %- ([^\n]*)\n")
  t.ok(line, r.stdout)
  local pods = line:match("^run b: the serving pods of this comparison's run A %(vllm%-baseline%) in bench %(([^)]*)%), "
    .. "still deployed because %-%-step left out its teardown %(step 90%), carry ")
  t.ok(pods and pods:match("^ms%-decode" .. POD_SUFFIX .. ", ms%-decode" .. POD_SUFFIX .. "$"), line)
  t.ok(line:find(", carry the selector of this run's InferencePool gaie-sim (llm-d.ai/inference-serving=true,"
    .. "llm-d.ai/model=qwen-qwen3-0-6b): no selector would pick this run's pods alone, so its Service or gateway would "
    .. "send requests to theirs; go on without --step, so that run A is torn down before run B is deployed: llmdlua "
    .. "compare.lua --resume " .. w .. "; nothing of this run was deployed", 1, true), line)
  t.lacks(r.stdout, "another stack's")
  -- the way on it names works
  r = compare(s, { "--resume", w })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  -- both runs of one helmfile (the same release names): run A's releases are this comparison's
  s = t.try_setup()
  r = t.fake_compare(s, { "--plan", s.plan, "--step", "20" }, nil, s.dir)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  w = t.workspaces(s.dir)[1]
  t.contains(r.stdout, "already exist in namespace llm-d-try: this comparison's run A (baseline) installed them and "
    .. "is still deployed because --step left out its teardown (step 90); deploying run B may change run A's stack; "
    .. "go on without --step, so that run A is torn down before run B is deployed: llmdlua compare.lua --resume " .. w
    .. "; nothing of this run was deployed\n")
  t.lacks(r.stdout, "not deployed by this comparison")
  r = t.fake_compare(s, { "--resume", w }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
end)

t.test("an InferencePool of this run's that selects another team's pods stops the run before its smoke test", function()
  local s = setup(function(plan) plan.runs.a = { label = "before", existing = { results = BASE } } end)
  s.env.FAKE_RESULTS = TREAT
  -- (fixd52, newuser52) their pods there before the deploy: the pool's selector is in its
  -- render, so this is refused at step 20, before anything is deployed (the checks before the
  -- smoke test and the benchmark remain for pods that start later: FAKE_LATE_PODS)
  local r = compare(s, nil, { FAKE_OTHER_RELEASE = "1", FAKE_OTHER_SAME_MODEL = "1" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:gsub(POD_SUFFIX, "-<pod>"):find("[20] deploy (b): FAILED - run b: another stack's serving pods in "
    .. "bench (a-team-ms-decode-<pod>, a-team-ms-decode-<pod>) carry the selector of this run's InferencePool gaie-sim "
    .. "(llm-d.ai/inference-serving=true,llm-d.ai/model=qwen-qwen3-0-6b): no selector would pick this run's pods "
    .. "alone, so its Service or gateway would send requests to theirs; give this run's model servers a label of their "
    .. "own, or use a namespace of its own; nothing of this run was deployed\n", 1, true), r.stdout)
  for _, c in ipairs(calls(s)) do
    t.ok(c.tool ~= "run_only.sh", "no benchmark ran")
    t.ok(c.args[3] ~= "port-forward" and c.args[1] ~= "port-forward", "no smoke request: " .. table.concat(c.args, " "))
    t.ok(not (c.tool == "helmfile" and (" " .. table.concat(c.args, " ") .. " "):find(" apply ", 1, true)), "nothing deployed")
  end
  s = setup(function(plan) plan.runs.a = { label = "before", existing = { results = BASE } } end)
  s.env.FAKE_RESULTS = TREAT
  r = compare(s, nil, { FAKE_OTHER_RELEASE = "1" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local line = "  InferencePool gaie-sim selects llm-d.ai/inference-serving=true,llm-d.ai/model=qwen-qwen3-0-6b: "
    .. "2 pod(s), all this run's\n"
  local n = select(2, r.stdout:gsub(line:gsub("%p", "%%%0"), ""))
  t.eq(n, 2, "checked before the smoke test and before the benchmark:\n" .. r.stdout)
  -- (fixs50) the pool in GAIE's older x-k8s.io group, on a cluster serving both: a bare
  -- "inferencepool" lists the v1 group's (kubectl's first by name), none of them this run's, so
  -- another team's pods went unnoticed; the pool is found in the group the cluster serves it in
  s = setup(function(plan) plan.runs.a = { label = "before", existing = { results = BASE } } end)
  s.env.FAKE_RESULTS = TREAT
  r = compare(s, nil, { FAKE_OTHER_RELEASE = "1", FAKE_OTHER_SAME_MODEL = "1", FAKE_POOL_GROUP = "x-k8s" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:gsub(POD_SUFFIX, "-<pod>"):find("run b: another stack's serving pods in bench (a-team-ms-decode-<pod>, "
    .. "a-team-ms-decode-<pod>) carry the selector of this run's InferencePool gaie-sim (llm-d.ai/inference-serving="
    .. "true,llm-d.ai/model=qwen-qwen3-0-6b)", 1, true), r.stdout)
end)

-- (clusterfix5 2) A LeaderWorkerSet-based model server, as llm-d's wide-EP guide deploys
-- it (guides/wide-ep-lws: kubectl apply -k of a LeaderWorkerSet, the serving labels on its
-- workerTemplate). The LWS controller's objects (fake.lua: leaderworkerset): LWS wide-decode
-- (replicas 2, size 2) owns the leader StatefulSet wide-decode, pods wide-decode-0 and -1;
-- each leader pod owns its group's worker StatefulSet wide-decode-<g>, pod wide-decode-<g>-1.
-- A worker pod's chain: StatefulSet wide-decode-0 -> Pod wide-decode-0 -> StatefulSet
-- wide-decode -> LeaderWorkerSet wide-decode, applied by this run. Another team's LWS
-- team-e-decode started during the deploy (FAKE_CONCURRENT_LWS) is not this run's. Counted
-- by hand: sim-epp 1 + 4 LWS pods = 5 (9 with theirs).
t.test("a LeaderWorkerSet stack: its pods are this run's through the leader pod, restarted by name, torn down",
  function()
  local s = setup(function(plan, d)
    plan.runs.b = { label = "after", existing = { results = TREAT } }
    plan.runs.a.deploy.kustomize = "lws"
    proc.run { "mkdir", "-p", d .. "/guide/lws" }
  end)
  t.write(s.dir .. "/guide/lws/kustomization.yaml", "resources:\n  - decode.yaml\n")
  t.write(s.dir .. "/guide/lws/decode.yaml", "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\n"
    .. "metadata:\n  name: wide-decode\nspec:\n  replicas: 2\n  leaderWorkerTemplate:\n    size: 2\n"
    .. "    workerTemplate:\n      metadata:\n        labels:\n          llm-d.ai/inference-serving: \"true\"\n"
    .. "          llm-d.ai/model: qwen-qwen3-0-6b\n          llm-d.ai/role: decode\n")
  s.env.FAKE_RESULTS = BASE
  local r = compare(s, nil, { FAKE_CONCURRENT_LWS = "team-e-decode", FAKE_CONCURRENT_AT = "helm",
    FAKE_FAIL_ONCE = "bench_stderr" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("pods Ready 5/5", 1, true) and not r.stdout:find("pods Ready 9/9", 1, true), r.stdout)
  local w = workspace(s)
  local po = json.read(w .. "/run-a/deployed.json").pod_owners
  t.eq(#po, 4, po)
  t.ok(po[1]:match("^ReplicaSet/sim%-epp%-"), po)
  t.eq({ po[2], po[3], po[4] }, { "StatefulSet/wide-decode", "StatefulSet/wide-decode-0", "StatefulSet/wide-decode-1" })
  local lines = call_lines(s, w)
  local all = table.concat(lines, "\n")
  -- the chain was walked through the leader pod up to the LeaderWorkerSet
  t.ok(all:find("kubectl -n bench get pod wide-decode-0 -o json", 1, true), all)
  t.ok(all:find("kubectl -n bench get leaderworkerset.leaderworkerset.x-k8s.io wide-decode -o json", 1, true), all)
  -- the restart after the failed benchmark: this run's four serving pods, by name
  local deletes = {}
  for _, l in ipairs(lines) do if l:find(" delete pod", 1, true) then deletes[#deletes + 1] = l end end
  t.eq(deletes, { "kubectl -n bench delete pod wide-decode-0 wide-decode-0-1 wide-decode-1 wide-decode-1-1 "
    .. "--ignore-not-found" })
  -- (their chain is read, to tell them apart: no other call names theirs)
  for _, l in ipairs(lines) do
    t.ok(not l:find("team%-e") or l:find("^kubectl %-n bench get "), "only reads name theirs: " .. l)
  end
  -- torn down: its LWS and pods gone, theirs kept
  local ns = state(s).ns.bench
  t.eq(ns.lws["wide-decode"], nil)
  t.ok(ns.lws["team-e-decode"], "theirs kept")
  local left = {}
  for n in pairs(ns.pods) do if n:match("^wide%-decode") or n:match("^team%-e") then left[#left + 1] = n end end
  table.sort(left)
  t.eq(left, { "team-e-decode-0", "team-e-decode-0-1", "team-e-decode-1", "team-e-decode-1-1" })
  t.ok(json.read(w .. "/run-a/deployed.json").torn_down, "run A torn down")
end)

-- (leftfix35) A custom deploy's `kubectl apply --dry-run=client|server -f` creates nothing
-- (kubectl prints "<ref> created (dry run)" / "(server dry run)": cmd/util
-- PrintFlagsWithDryRunStrategy; the fake prints the same, fake.lua: apply_docs). End to
-- end: nothing of it is recorded - not created (teardown deletes nothing of it), not left,
-- and not as applied by this run: another team's Deployment kv-cache, made during the deploy
-- (FAKE_CONCURRENT_DEPLOYMENTS, 2 pods of another model), is not this run's for having the
-- name of one this run only dry-ran.
t.test("a custom deploy's kubectl apply --dry-run records nothing for teardown and makes nothing this run's", function()
  for _, dry in ipairs { "--dry-run=client", "--dry-run=server" } do
    local s = custom_deploy({}, { { "kubectl", "apply", dry, "-f", "app.yaml" } })
    t.write(s.dir .. "/guide/app.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new-cm\n---\n"
      .. "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kv-cache\nspec:\n  replicas: 1\n  template:\n"
      .. "    metadata:\n      labels:\n        app: kv-cache\n")
    local r = compare(s, nil, { FAKE_CONCURRENT_DEPLOYMENTS = "kv-cache", FAKE_CONCURRENT_AT = "helm" })
    t.eq(r.code, 0, dry .. "\n" .. r.stdout .. r.stderr)
    local ns = state(s).ns.bench
    t.eq(ns.other["ConfigMap/new-cm"], nil, dry .. ": the dry run made nothing")
    -- nothing of the dry run recorded, nothing of it said to be this run's or left
    local w = workspace(s)
    local d = json.read(w .. "/run-a/deployed.json")
    t.eq({ d.created or {}, d.left or {} }, { {}, {} }, dry)
    for _, k in ipairs(d.applied or {}) do
      t.ok(k ~= "Deployment/kv-cache" and k ~= "ConfigMap/new-cm", dry .. ": recorded as applied: " .. k)
    end
    t.ok(not r.stdout:find("new-cm", 1, true), dry .. ": " .. r.stdout)
    -- their kv-cache's 2 pods are not this run's: this run's are the router's and ms-decode's
    -- (1 + 2, as the first custom-deploy test counts them without kv-cache)
    t.ok(r.stdout:find("pods Ready 3/3", 1, true), dry .. ": " .. r.stdout)
    local lines = table.concat(call_lines(s, w), "\n")
    t.ok(not lines:find("delete deployment.apps kv-cache", 1, true), dry .. ": " .. lines)
    t.ok(not lines:find("delete configmap new-cm", 1, true), dry .. ": " .. lines)
    t.eq(#pods_of(state(s), "bench", "kv-cache"), 2, dry .. ": theirs kept")
  end
  -- --dry-run=false is kubectl's (deprecated) "none": a real apply, recorded and torn down
  local s = custom_deploy({}, { { "kubectl", "apply", "--dry-run=false", "-f", "app.yaml" } })
  t.write(s.dir .. "/guide/app.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new-cm\n")
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("  configmap/new-cm: kubectl apply --dry-run=false -f app.yaml says created (it was not there): "
    .. "this run's, recorded, teardown deletes it\n", 1, true), r.stdout)
  t.eq(state(s).ns.bench.other["ConfigMap/new-cm"], nil, "deleted at teardown")
end)
