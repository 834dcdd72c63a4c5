-- The fake cluster: kubectl, helm, helmfile, oc and run_only.sh stand-ins that keep the
-- cluster's state on disk and log every call. Run as
--   llmdlua fake.lua TOOL ARGS...     (through the wrappers in bin/)
-- Environment:
--   FAKE_CLUSTER   the state folder (state.json, calls.log, pvc/)  [required]
--   FAKE_PROJECT   what `oc project -q` prints (default: none, exit 1)
--   FAKE_CONTEXT   what `kubectl config current-context` prints (default: kind-fake, as a
--                  configured kubeconfig answers; set but empty: none, exit 1, as kubectl
--                  with no current context)
--   FAKE_SERVER    the current context's API server (`kubectl config view --minify -o
--                  jsonpath=...`; default https://api.CONTEXT.example.com:6443; with an
--                  empty FAKE_CONTEXT, kubectl's error: no current context to minify)
--   FAKE_RESULTS   recorded results folders the benchmark runs its workloads from, one per
--                  benchmark, separated by ':' (the n-th benchmark in a namespace to run to its
--                  end reads the n-th folder, from the first again past the last: two
--                  benchmarks in a row never get the same results while there are two
--                  folders, as no two real runs would; one cut short and run again on --resume
--                  reads the same one, as its stack serves it); each stage the config's
--                  workload asks is the folder's recorded stage of the nearest rate, nearest by
--                  ratio, and the folder's per_request_lifecycle_metrics.json is replayed with
--                  them where every stage is asked as recorded, else left out and said
--                  (run_workload); the k-th benchmark of the cluster (any namespace, any
--                  workload) writes its own clock readings and ids where no figure is read
--                  (run_mark), so no two benchmarks' files are one file byte for byte, as no two
--                  real runs' are
--   FAKE_FAIL      comma list of injected failures: deploy, notready, imagepull,
--                  bench_stderr, bench_nojson, transient (the first 2 kubectl calls fail
--                  with a transient API error), nologs, smoke, portforward (the API server
--                  refuses the connection)
--   FAKE_FAIL_ONCE the same, but each failure only on its first occasion
--   FAKE_SLOW_BENCH seconds the first run_only.sh call sleeps (to interrupt it), once its
--                  state is saved and FAKE_CLUSTER/bench-sleeping made
--   FAKE_SLOW_DEPLOY seconds the first helmfile apply/sync that installs a release sleeps
--                  (to interrupt the deploy), once its releases are deployed and
--                  FAKE_CLUSTER/deploy-sleeping made
--   FAKE_NOW       the API server's clock reads this second (RFC 3339 in UTC, "2026-12-06T18:00:00Z"):
--                  what is made now gets it as its creationTimestamp, and a release
--                  installed now that second (and the clock's nanoseconds) as first_deployed
--   FAKE_POOL_GROUP  x-k8s: a release's InferencePool is GAIE's older inference.networking.x-k8s.io
--                  v1alpha2 one (the cluster serves both groups; a bare inferencepool lists the other)
--   FAKE_OLD_JOB   the namespace starts with a finished (Succeeded) job pod
--   FAKE_RELEASES  N: the namespace starts with N other teams' deployed releases, other-000 ...
--   FAKE_RELEASE_STATES  name:status,...: and with someone else's releases in those states
--                  (helm list shows pending-*, uninstalling, uninstalled ones only with --all;
--                  helm upgrade refuses a pending-* or uninstalling one, as helm does)
--   FAKE_OTHER_OBJECTS  Kind/name,...: and with someone else's objects of those kinds and names
--   FAKE_PVCS      name:mode[:phase[:llmdlua]],...: and with those PVCs (ReadWriteMany,
--                  ReadWriteOnce ...; Bound unless a phase is given): someone else's, or with
--                  :llmdlua one an earlier llmdlua run made (labelled managed-by=llmdlua)
--   FAKE_CONCURRENT_RELEASE  name[@tool]: another team installs that release (deployed) during
--                  the first helm install/upgrade or helmfile apply (only tool's) in the namespace
--   FAKE_CONCURRENT_OBJECTS  Kind/name[@release],...: another team makes those HTTPRoutes,
--                  Gateways, Services (Gateway.networking.istio.io/name: an Istio Gateway)
--                  in the namespace during the first helm install/upgrade
--                  or helmfile apply there (only FAKE_CONCURRENT_AT's tool, when set): with
--                  @release helm-stamped for that release, without as kubectl apply leaves them
--   FAKE_CONCURRENT_DEPLOYMENTS  name[@release],...: another team's Deployments (two serving
--                  pods each, another model's labels) start during the first helm
--                  install/upgrade or helmfile apply there (FAKE_CONCURRENT_AT's tool, when
--                  set): with @release helm-stamped for that release, without as kubectl
--                  apply leaves them. Every Deployment's pods are owned by its ReplicaSet
--                  <deployment>-<hash> and named <replicaset>-<5 characters>, as the real
--                  controllers do; a deleted one is replaced under a new name
--   FAKE_CONCURRENT_LWS  name[@release],...: another team's LeaderWorkerSets (2 groups of a
--                  leader and a worker, another model's serving labels) start then too; as
--                  the LWS controller names them: leader StatefulSet <name>, pods <name>-<g>,
--                  worker StatefulSets <name>-<g>, pods <name>-<g>-1
--   FAKE_LATE_PODS name,...: another team's serving pods, with this stack's model labels,
--                  start during the first run_only.sh call (after this stack was ready)
--   FAKE_HELM_MAJOR  4: helm behaves as helm 4 (no list --all; every state listed by default)
--   FAKE_RESTARTED the vLLM containers have restarted once (their previous logs exist)
--   FAKE_OTHER_RELEASE  the namespace starts with someone else's release a-team-infra (its
--                  Gateway, HTTPRoute, gateway Service and two serving pods of another model)
--   FAKE_OTHER_UNWELL  those two pods are in CrashLoopBackOff, never Ready
--   FAKE_OTHER_SAME_MODEL  those two pods serve the same model as ours (the same labels)
--   FAKE_OLD_RESULTS  a results folder: the namespace starts with the PVC
--                  llmd-benchmark-results (labelled as llmdlua's) holding it as an earlier run's
--                  (inference-perf_1761000000_sanity_random_old-stack) and that run's
--                  launcher pod Completed (exec and cp into it fail, as they do)
--   FAKE_FAIL_NAMESPACE  the injected failures happen only in this namespace (the
--                  other namespaces of a parallel run are healthy)
--   FAKE_FAIL_IN   ns:failure,ns:failure - failures that happen only in those namespaces
--   FAKE_CHARTS    a folder of charts the fake registries serve (default: charts/ here):
--                  oci://HOST/PATH/NAME and REPO/NAME find NAME/ there, a path finds itself.
--                  A chart: Chart.yaml (name), templates/*.yaml, crds/*.yaml. Templates know
--                  {{ .Release.Name }}, {{ .Release.Namespace }}, {{ .Chart.Name }} and
--                  {{ fail "why" }}; anything else between braces is helm's parse error.
--                  install/upgrade/apply create what the chart renders (cluster-scoped
--                  objects in the state's "cluster" list, crds/ unless --skip-crds).
-- Several calls may run at once (stacks in parallel namespaces, two calls in one): each
-- call reads the state, and writes back, under a lock, only the objects and counters it
-- changed, as a real API server writes one object at a time: two calls at once that change
-- different objects of one namespace both land; on one object, the checks at the write
-- (save's guard: AlreadyExists, a resourceVersion's Conflict) answer as the API server does.
-- The current kube context (FAKE_CONTEXT; unset: kind-fake, as a configured kubeconfig
-- has one; empty: none)
local function fake_context()
  local c = os.getenv("FAKE_CONTEXT")
  if c == nil then return "kind-fake" end
  return c
end

local json = require "llmd.json"
local yaml = require "llmd.yaml"
local lfs = require "lfs"
local proc = require "llmd.proc"

local tool = arg[1]

-- The API server's clock, as it stamps what it makes: the second (RFC 3339 in UTC, as
-- kubectl prints metadata.creationTimestamp: "2026-12-06T18:00:00Z") and the nanoseconds into
-- it (helm's info.first_deployed carries them). FAKE_NOW sets the second.
local function api_clock()
  local sec, ns = proc.utc()
  local at = os.getenv("FAKE_NOW")
  if at and at ~= "" then
    if not at:match("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%dZ$") then
      io.stderr:write("fake " .. tostring(arg[1]) .. ": FAKE_NOW is not RFC 3339 UTC to the second: " .. at .. "\n")
      os.exit(1)
    end
    return at, ns
  end
  return os.date("!%Y-%m-%dT%H:%M:%SZ", sec), ns
end
-- Unset, the fake has no cluster to answer for: it fails as a tool does, one line on
-- stderr and a non-zero exit (an error() here printed a Lua traceback into the caller's
-- message, newuser50 F6), for every call, version calls too, so doctor.lua --cluster says so.
local DIR = os.getenv("FAKE_CLUSTER")
if DIR == nil or DIR == "" then
  io.stderr:write(("fake %s: FAKE_CLUSTER is not set (the fake cluster's state folder: "
    .. "export FAKE_CLUSTER=\"$(mktemp -d)\")\n"):format(tostring(tool)))
  os.exit(1)
end
local args = {}
for i = 2, #arg do args[#args + 1] = arg[i] end

local function log_call(stdin)
  local f = assert(io.open(DIR .. "/calls.log", "a"))
  f:write(json.encode { tool = tool, args = json.array(args), cwd = lfs.currentdir(), stdin = stdin }, "\n")
  f:close()
end

local STATE = DIR .. "/state.json"
local state
do
  local f = io.open(STATE)
  if f then
    state = json.decode(f:read("a"))
    f:close()
  else
    state = {
      ns = {}, counters = {},
      nodes = { { name = "gpu-node-1", labels = { ["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3",
        ["nvidia.com/gpu.count"] = "8", ["llmdlua.dev/simulated"] = "true" } } },
    }
  end
end
local touched = {}    -- namespaces this call looked at or changed
local as_read = {}    -- each touched namespace's objects as this call first saw them (snapshot)
local counters0 = {}  -- the counters as read
for k, v in pairs(state.counters) do counters0[k] = v end

-- The state's lock: a folder (mkdir is atomic) holding its holder's pid. A holder killed
-- inside save() (a test's kill, a Ctrl-C) leaves it behind; a later call that finds its pid
-- gone removes it, as the kernel lets go of a flock(2) lock whose holder died. Removals go
-- one at a time under LOCK.takeover, and each checks again under it that the lock is still
-- the stale one: two callers that both saw it stale cannot both remove it, the second taking
-- away the first's new, live lock. A lock folder without its pid yet is a holder between
-- mkdir and the write (so is a takeover folder): stale only after 5 s.
local LOCK = DIR .. "/.lock"
local MYPID = (function()
  local f = assert(io.open("/proc/self/stat"))
  local pid = f:read("a"):match("^(%d+)")
  f:close()
  return pid
end)()

local function stale_lock()
  local f = io.open(LOCK .. "/pid")
  if not f then
    local a = lfs.attributes(LOCK)
    return a and os.time() - a.modification > 5
  end
  local pid = f:read("a"):match("^(%d+)")
  f:close()
  return pid ~= nil and not lfs.attributes("/proc/" .. pid)
end

local function lock()
  for _ = 1, 3000 do
    if lfs.mkdir(LOCK) then
      local f = assert(io.open(LOCK .. "/pid", "w"))
      f:write(MYPID, "\n")
      f:close()
      return
    end
    if stale_lock() then
      local take = LOCK .. ".takeover"
      if lfs.mkdir(take) then
        if stale_lock() then
          os.remove(LOCK .. "/pid")
          lfs.rmdir(LOCK)
          io.stderr:write("fake cluster: " .. LOCK .. " left by a holder that is gone: taken over\n")
        end
        lfs.rmdir(take)
      else
        local a = lfs.attributes(take)
        if a and os.time() - a.modification > 5 then lfs.rmdir(take) end
        proc.run { "sleep", "0.01" }
      end
    else
      proc.run { "sleep", "0.01" }
    end
  end
  io.stderr:write("fake cluster: " .. LOCK .. " held for 30 s\n")
  os.exit(3)
end

local function unlock()
  os.remove(LOCK .. "/pid")
  lfs.rmdir(LOCK)
end

-- ConfigMaps and Secrets this call wrote: each gets its resourceVersion in save(), under the
-- lock, from one counter of the whole cluster (as etcd's revision: every write a new one,
-- never one an object had before, so that a version names one write of one object), and
-- one made (not replaced) its uid: random, as the API server's (a v4 UUID), so that one
-- deleted and made again under its name is told apart from the one before
local written = {}
local function new_uid()
  local f = assert(io.open("/dev/urandom", "rb"))
  local b = { f:read(16):byte(1, 16) }
  f:close()
  b[7] = (b[7] & 0x0f) | 0x40
  b[9] = (b[9] & 0x3f) | 0x80
  local h = ("%02x"):rep(16):format(table.unpack(b))
  return ("%s-%s-%s-%s-%s"):format(h:sub(1, 8), h:sub(9, 12), h:sub(13, 16), h:sub(17, 20), h:sub(21, 32))
end

-- Writes back what this call changed. guard (optional): function(disk) run under the lock
-- on the state as it is on disk, before anything is written; a message it returns is this
-- call's error (nothing written), as the API server checks a precondition (an object there
-- already, a resourceVersion) at the write itself, not at the call's start.
--
-- A namespace is a table of collections (pods, services, configmaps, ...: name -> object);
-- snapshot() keeps each object's encoded text, and merge_ns() makes this call's copy the
-- namespace as it is on disk with only what this call changed in it (object by object: an
-- object it made, changed or deleted is its own, every other one is the disk's). The copy
-- stays the table the call works on (its `s`), so that it can go on and save again.
local function is_map(v) return type(v) == "table" and not json.is_array(v) end
local function snapshot(s)
  local snap = {}
  for f, c in pairs(s or {}) do
    if is_map(c) then
      local m = {}
      for k, o in pairs(c) do m[k] = json.encode(o) end
      snap[f] = m
    else
      snap[f] = json.encode(c)
    end
  end
  return snap
end
local function merge_ns(mine, before, ds)
  before, ds = before or {}, ds or {}
  local fields = {}
  for _, t in ipairs { mine, before, ds } do for f in pairs(t) do fields[f] = true end end
  for f in pairs(fields) do
    local m, b, d = mine[f], before[f], ds[f]
    if is_map(m) or is_map(b) or is_map(d) then
      m = is_map(m) and m or {}
      b = type(b) == "table" and b or {}
      d = is_map(d) and d or {}
      local keys = {}
      for _, t in ipairs { m, b, d } do for k in pairs(t) do keys[k] = true end end
      for k in pairs(keys) do
        local was, now = b[k], m[k] ~= nil and json.encode(m[k]) or nil
        if now == was then m[k] = d[k] end -- (not this call's: the disk's, made or gone meanwhile)
      end
      mine[f] = m
    elseif (m ~= nil and json.encode(m) or nil) == b then
      mine[f] = d
    end
  end
  return mine
end

local prune_meta
local function save(guard)
  lock()
  local f = io.open(STATE)
  local disk = f and json.decode(f:read("a")) or { ns = {}, counters = {}, nodes = state.nodes }
  if f then f:close() end
  local refused = guard and guard(disk)
  if refused then
    unlock()
    io.stderr:write(refused, "\n")
    os.exit(1)
  end
  for _, d in ipairs(written) do
    disk.counters.resource_version = (disk.counters.resource_version or 1000) + 1
    d.metadata.resourceVersion = tostring(disk.counters.resource_version)
    d.metadata.uid = d.metadata.uid or new_uid()
  end
  written = {}
  -- (and every HTTPRoute, Gateway and Service this call made its uid, as the API server
  -- gives each object it creates: one made again under its name has another)
  for ns in pairs(touched) do
    local sp = state.ns[ns] or {}
    for _, k in ipairs { "httproutes", "gateways" } do
      for _, o in pairs(sp[k] or {}) do
        if type(o.metadata) == "table" and not o.metadata.uid then o.metadata.uid = new_uid() end
      end
    end
    for _, sv in pairs(sp.services or {}) do if type(sv) == "table" and not sv.uid then sv.uid = new_uid() end end
  end
  -- only the objects this call changed: a call that only looked (a get, a port-forward held
  -- open for minutes) writing back its copy would undo what another call did meanwhile, as
  -- would one writing back the whole namespace for the one object it changed
  for ns in pairs(touched) do
    if state.ns[ns] ~= nil then disk.ns[ns] = merge_ns(state.ns[ns], as_read[ns], disk.ns[ns]) end
  end
  for _, dns in pairs(disk.ns) do prune_meta(dns) end
  -- cluster-scoped objects an install created (what llmdlua must never cause)
  for k, v in pairs(state.cluster_new or {}) do
    disk.cluster = disk.cluster or {}
    disk.cluster[k] = v
  end
  state.cluster_new = nil
  for k, v in pairs(state.counters) do
    if counters0[k] ~= v then disk.counters[k] = v end
  end
  json.write(STATE, disk)
  unlock()
  state = disk
  for ns in pairs(touched) do as_read[ns] = snapshot(state.ns[ns]) end
  counters0 = {}
  for k, v in pairs(state.counters) do counters0[k] = v end
end

-- A counter's next value (pod_seq, last_uid: numbers no two calls may share), drawn under
-- the lock from the value on disk and written back at once: two calls at once draw two
-- numbers, as the API server's generateName and `date +%s` of two runs never give one
-- twice. (save() merges counters by overwrite: a number drawn from this call's copy read at
-- its start would be the one another call drew meanwhile.) at_least: the least value.
local function draw(counter, at_least)
  lock()
  local f = io.open(STATE)
  local disk = f and json.decode(f:read("a")) or { ns = {}, counters = {}, nodes = state.nodes }
  if f then f:close() end
  disk.counters = disk.counters or {}
  local v = math.max(at_least or 1, (tonumber(disk.counters[counter]) or 0) + 1)
  disk.counters[counter] = v
  json.write(STATE, disk)
  unlock()
  state.counters[counter], counters0[counter] = v, v
  return v
end

local fails = {}
for f in (os.getenv("FAKE_FAIL") or ""):gmatch("[^,]+") do fails[f] = "always" end
for f in (os.getenv("FAKE_FAIL_ONCE") or ""):gmatch("[^,]+") do fails[f] = "once" end
-- failures confined to one namespace: a call in another one sees a healthy cluster
local function confine_failures(ns)
  local only = os.getenv("FAKE_FAIL_NAMESPACE")
  if only and only ~= "" and ns ~= only then
    for k in pairs(fails) do fails[k] = nil end
  end
  -- FAKE_FAIL_IN=ns:failure,ns:failure - failures of their own for some namespaces
  for n, f in (os.getenv("FAKE_FAIL_IN") or ""):gmatch("([^,:]+):([^,]+)") do
    if n == ns then fails[f] = "always" end
  end
end
local function failing(what)
  if not fails[what] then return false end
  if fails[what] == "always" then return true end
  state.counters["once_" .. what] = (state.counters["once_" .. what] or 0) + 1
  return state.counters["once_" .. what] == 1
end

local function die(msg, code)
  save()
  io.stderr:write(msg, "\n")
  os.exit(code or 1)
end

-- The namespace flag as the tools' flag parser (spf13/pflag) reads it, anywhere before a
-- "--" (after it, the words are a command's, kubectl exec's): -n NS, -nNS, -n=NS,
-- --namespace NS, --namespace=NS. Returns the namespace (the last one given, as pflag keeps)
-- and how many words each occurrence takes, by position ({[i] = 1 or 2}).
local function ns_flags(a)
  local ns, at = nil, {}
  local i = 1
  while i <= #a do
    local x = a[i]
    if x == "--" then break end
    if x == "-n" or x == "--namespace" then
      ns, at[i] = a[i + 1], 2
      i = i + 1
    elseif x:match("^%-%-namespace=") then
      ns, at[i] = x:match("^%-%-namespace=(.*)$"), 1
    elseif x:match("^%-n.") then
      ns, at[i] = x:sub(3):gsub("^=", ""), 1
    end
    i = i + 1
  end
  return ns, at
end
local function ns_of(a) return (ns_flags(a)) end

-- A namespace whose name is not an RFC 1123 label can never exist (the API server refuses
-- to create it): reads in it find nothing, as in any namespace that is not there; a write
-- is the API server's NotFound for the namespace. Returns that error text, or nil.
local function missing_ns(ns)
  if ns and not (#ns <= 63 and (ns:match("^[a-z0-9]$") or ns:match("^[a-z0-9][-a-z0-9]*[a-z0-9]$"))) then
    return ('namespaces "%s" not found'):format(ns)
  end
end

-- What helm (3.2 and later) stamps on every object it installs for a release: the
-- release's name and namespace as annotations, managed-by=Helm as a label
-- (pkg/action/validate.go, setMetadataVisitor). A metadata table with them.
local function helm_meta(name, release, ns)
  return { name = name, annotations = { ["meta.helm.sh/release-name"] = release,
    ["meta.helm.sh/release-namespace"] = ns }, labels = { ["app.kubernetes.io/managed-by"] = "Helm" } }
end

-- args without their namespace flags (in any of ns_flags' forms)
local function strip_ns(a)
  local _, at = ns_flags(a)
  local out, i = {}, 1
  while i <= #a do
    if at[i] then i = i + at[i] else out[#out + 1] = a[i]; i = i + 1 end
  end
  return out
end

-- Deployments, ReplicaSets, pods, as the real controllers make them: a Deployment <d>
-- (s.deployments[d]: who made it - "helm:RELEASE", "kustomize:DIR", "kubectl" -, replicas
-- and the pod template) owns a ReplicaSet <d>-<pod-template-hash> (10 characters), which
-- owns the pods <rs>-<5 random characters>; a pod deleted is replaced by a new one under a
-- new name (the ReplicaSet keeps its replica count). Names here are drawn from a hash of a
-- counter (reproducible), in the alphabet Kubernetes draws them from (SafeEncodeString).
local function hash(str)
  local h = 5381
  for i = 1, #str do h = (h * 33 + str:byte(i)) % 0x1000000000000 end
  return h
end
local SAFE = "bcdfghjklmnpqrstvwxz2456789"
local function safe_chars(seed, n)
  local out, h = {}, hash(seed)
  for i = 1, n do
    local k = h % #SAFE + 1
    out[i] = SAFE:sub(k, k)
    h = hash(tostring(h) .. seed .. i)
  end
  return table.concat(out)
end
local function rs_name(dname) return dname .. "-" .. safe_chars("template:" .. dname, 10) end

local function copy(v)
  if type(v) ~= "table" then return v end
  local t = {}
  for k, x in pairs(v) do t[k] = copy(x) end
  return t
end

-- one more pod of Deployment dname, under a name no pod of the namespace has
local function start_pod(s, dname)
  local d = s.deployments[dname]
  local name
  repeat
    name = rs_name(dname) .. "-" .. safe_chars(dname .. "#" .. draw("pod_seq"), 5)
  until not s.pods[name]
  local tp = d.template
  local ready = not (fails.notready or fails.imagepull)
  if tp.other then ready = not tp.waiting end
  s.pods[name] = { labels = copy(tp.labels), owner = d.owner, deploy = dname, owner_uid = d.rs_uid, ready = ready,
    other = tp.other,
    waiting = tp.other and tp.waiting or (fails.imagepull and "ImagePullBackOff" or nil),
    containers = copy(tp.containers), init = copy(tp.init) }
  return name
end

-- Deployment dname (made by owner) with its ReplicaSet and n pods of template tp
-- ({labels =, containers =, init =, other = someone else's, waiting = their reason}).
local function deployment(s, dname, owner, n, tp)
  s.deployments = s.deployments or {}
  -- (its ReplicaSet's uid drawn as the API server gives one: a Deployment of that name made
  -- again has a ReplicaSet of the same name - the template's hash - but not the same uid)
  s.deployments[dname] = { owner = owner, replicas = n, template = tp, rs_uid = new_uid() }
  local names = {}
  for _ = 1, n do names[#names + 1] = start_pod(s, dname) end
  return names
end

-- LeaderWorkerSets, as the LWS controller makes them (sigs.k8s.io/lws): LWS <l> with
-- replicas N and leaderWorkerTemplate.size M owns the leader StatefulSet <l>, whose pods
-- are the groups' leaders <l>-<g> (g = 0..N-1); each leader pod owns its group's worker
-- StatefulSet <l>-<g>, whose pods are <l>-<g>-<w> (w = 1..M-1). Every pod carries the
-- template's labels and leaderworkerset.sigs.k8s.io/name, group-index, worker-index. A
-- StatefulSet's pod deleted comes back under the same name. s.lws[l]: who made it (as
-- s.deployments), replicas, size, the template ({labels =, other =, waiting =}).
local LWS_API = "leaderworkerset.x-k8s.io/v1"
local function lws_pod(s, l, g, w)
  local x = s.lws[l]
  local name = w == 0 and (l .. "-" .. g) or (l .. "-" .. g .. "-" .. w)
  local labels = copy(x.template.labels)
  labels["leaderworkerset.sigs.k8s.io/name"] = l
  labels["leaderworkerset.sigs.k8s.io/group-index"] = tostring(g)
  labels["leaderworkerset.sigs.k8s.io/worker-index"] = tostring(w)
  local ready = not (fails.notready or fails.imagepull)
  if x.template.other then ready = not x.template.waiting end
  s.pods[name] = { labels = labels, owner = x.owner, lws = l, group = g, worker = w, ready = ready,
    other = x.template.other, waiting = x.template.other and x.template.waiting or nil,
    containers = { { name = "vllm", image = "ghcr.io/llm-d/llm-d-cuda:v0.4.0", restarts = 0 } },
    init = { { name = "routing-proxy", image = "ghcr.io/llm-d/llm-d-routing-sidecar:v0.4.0",
      restartPolicy = "Always", restarts = 0 } } }
  return name
end
local function leaderworkerset(s, l, owner, replicas, size, tp)
  s.lws = s.lws or {}
  s.lws[l] = { owner = owner, replicas = replicas, size = size, template = tp }
  for g = 0, replicas - 1 do
    for w = 0, size - 1 do lws_pod(s, l, g, w) end
  end
end
local function remove_lws(s, pred)
  for _, l in ipairs((function()
    local k = {}
    for x in pairs(s.lws or {}) do k[#k + 1] = x end
    return k
  end)()) do
    if pred(l, s.lws[l]) then
      s.lws[l] = nil
      for n, p in pairs(s.pods) do if p.lws == l then s.pods[n] = nil end end
    end
  end
end

-- a Deployment's objects and pods gone (helm uninstall, kubectl delete -k, garbage collection)
local function remove_deployments(s, owner)
  remove_lws(s, function(_, x) return x.owner == owner end)
  for _, dn in ipairs((function()
    local k = {}
    for x in pairs(s.deployments or {}) do k[#k + 1] = x end
    return k
  end)()) do
    if s.deployments[dn].owner == owner then s.deployments[dn] = nil end
  end
  for n, p in pairs(s.pods) do
    if p.owner == owner then s.pods[n] = nil end
  end
end

local function add_pod(s, name, labels, image, owner)
  local ready = not (fails.notready or fails.imagepull)
  s.pods[name] = {
    labels = labels, owner = owner, ready = ready,
    waiting = fails.imagepull and "ImagePullBackOff" or nil,
    containers = { { name = "vllm", image = image or "ghcr.io/llm-d/llm-d-cuda:v0.4.0", restarts = 0 } },
  }
end

local SERVING = function(model)
  return { ["llm-d.ai/inference-serving"] = "true", ["app.kubernetes.io/component"] = "vllm",
    ["llm-d.ai/role"] = "decode", ["llm-d.ai/model"] = model or "qwen-qwen3-0-6b" }
end

-- llm-d's decode Deployment <base>-decode: n vLLM pods, the routing proxy as a native
-- sidecar (an init container that keeps running, restartPolicy Always)
local function vllm_pods(s, base, owner, n, dname)
  local names = deployment(s, dname or (base .. "-decode"), owner, n or 2, { labels = SERVING(),
    containers = { { name = "vllm", image = "ghcr.io/llm-d/llm-d-cuda:v0.4.0", restarts = 0 } },
    init = { { name = "routing-proxy", image = "ghcr.io/llm-d/llm-d-routing-sidecar:v0.4.0",
      restartPolicy = "Always", restarts = 0 } } })
  if os.getenv("FAKE_RESTARTED") then
    -- the vLLM container restarted once: its previous container's log is there
    for _, name in ipairs(names) do s.pods[name].containers[1].restarts = 1 end
  end
end

local function space(ns)
  if not ns then die("error: no namespace given (the fake cluster wants -n on every namespaced call)") end
  local s = state.ns[ns]
  if not touched[ns] then
    touched[ns] = true
    -- a namespace not there yet reads as absent: made below, it is written back
    as_read[ns] = s and snapshot(s) or nil
  end
  if not s then
    s = { pods = {}, services = {}, pvcs = {}, releases = {}, httproutes = {}, gateways = {}, inferencepools = {},
      configmaps = {}, kustomize = {}, other = {}, deployments = {} }
    state.ns[ns] = s
    if os.getenv("FAKE_OLD_RESULTS") then
      -- a reused results PVC: an earlier run's folder on it, its launcher pod Completed
      -- (made by that earlier llmdlua run: labelled as llmdlua labels the PVC it makes)
      s.pvcs["llmd-benchmark-results"] = { access = "ReadWriteMany", size = "200Gi",
        labels = { ["app.kubernetes.io/managed-by"] = "llmdlua" } }
      local old = DIR .. "/pvc/" .. ns .. "/llmd-benchmark-results/inference-perf_1761000000_sanity_random_old-stack"
      proc.run { "mkdir", "-p", old }
      proc.run { "cp", "-a", os.getenv("FAKE_OLD_RESULTS") .. "/.", old }
      s.pods["llmdbench-harness-launcher"] = { labels = { app = "llmdbench-harness-launcher" }, owner = "run_only",
        ready = false, phase = "Succeeded", pvc = "llmd-benchmark-results",
        containers = { { name = "harness", image = "llm-d-benchmark", restarts = 0 } } }
    end
    if os.getenv("FAKE_OTHER_RELEASE") then
      -- someone else's stack in the shared namespace: a release with its gateway, route,
      -- gateway Service (named to sort before ours) and serving pods of another model
      local n = "a-team-infra"
      local sick = os.getenv("FAKE_OTHER_UNWELL") and "CrashLoopBackOff" or nil
      s.deployments = s.deployments or {}
      deployment(s, "a-team-ms-decode", "helm:" .. n, 2, { other = true, waiting = sick,
        labels = SERVING(os.getenv("FAKE_OTHER_SAME_MODEL") and "qwen-qwen3-0-6b" or "meta-llama-llama-3-1-8b"),
        containers = { { name = "vllm", image = "ghcr.io/llm-d/llm-d-cuda:v0.3.0", restarts = 0 } } })
      s.releases[n] = { chart = "llm-d-infra", status = "deployed", revision = 3, chart_ref = "llm-d-infra-v1.2.4" }
      -- (llm-d-infra names its Gateway <release>-inference-gateway; Istio its Service <gateway>-istio)
      local gw = n .. "-inference-gateway"
      s.gateways[gw] = { kind = "Gateway", metadata = helm_meta(gw, n, ns),
        status = { conditions = { { type = "Programmed", status = "True" } } } }
      s.httproutes[n] = { kind = "HTTPRoute", metadata = helm_meta(n, n, ns),
        status = { parents = { { conditions = { { type = "Accepted", status = "True" } } } } } }
      s.services[gw .. "-istio"] = { selector = { app = n }, owner = "gateway:" .. gw,
        ports = { { name = "status-port", port = 15021 }, { name = "default", port = 80, appProtocol = "http" } } }
    end
    -- FAKE_RELEASES=N: N releases of other teams (other-000 ...: deployed, sorted before ours);
    -- FAKE_RELEASE_STATES=name:status,...: someone else's releases in those states
    -- (pending-install, pending-upgrade, failed, uninstalling, uninstalled, ...)
    for k = 1, tonumber(os.getenv("FAKE_RELEASES") or "") or 0 do
      s.releases[("other-%03d"):format(k - 1)] = { chart = "other", status = "deployed", revision = 1,
        chart_ref = "other-1.0.0" }
    end
    -- FAKE_PVCS=name:mode[:phase[:llmdlua]],...: PVCs there already (someone else's; with
    -- :llmdlua one an earlier llmdlua run made, labelled as it labels them)
    for item in (os.getenv("FAKE_PVCS") or ""):gmatch("[^,]+") do
      local n, mode, ph, who = item:match("^([^:]+):([^:]+):?([^:]*):?(.*)$")
      s.pvcs[n] = { access = mode, size = "100Gi", phase = ph ~= "" and ph or nil,
        labels = who == "llmdlua" and { ["app.kubernetes.io/managed-by"] = "llmdlua" } or nil }
      proc.run { "mkdir", "-p", DIR .. "/pvc/" .. ns .. "/" .. n }
    end
    -- FAKE_OTHER_OBJECTS=Kind/name,...: someone else's objects (not of a release)
    for key in (os.getenv("FAKE_OTHER_OBJECTS") or ""):gmatch("[^,]+") do s.other[key] = "someone" end
    for n, st in (os.getenv("FAKE_RELEASE_STATES") or ""):gmatch("([^,:]+):([^,]+)") do
      s.releases[n] = { chart = "other", status = st, revision = 1, chart_ref = "other-1.0.0" }
    end
    if os.getenv("FAKE_OLD_JOB") then
      -- a finished job from earlier work in the namespace: Succeeded, never Ready
      s.pods["data-access-job-x1"] = { labels = { job = "data-access" }, owner = "job", ready = false,
        phase = "Succeeded", containers = { { name = "main", image = "busybox", restarts = 0 } } }
    end
  end
  return s
end

local function has(a, x)
  for _, y in ipairs(a) do if y == x then return true end end
  return false
end

local function opt(a, name)
  for i, x in ipairs(a) do
    if x == name then return a[i + 1] end
    local v = x:match("^" .. name:gsub("%-", "%%-") .. "=(.*)$")
    if v then return v end
  end
end

local function match_labels(labels, sel)
  if not sel then return true end
  for part in sel:gmatch("[^,]+") do
    local k, v = part:match("^([^=]+)=(.*)$")
    if k then
      if (labels or {})[k] ~= v then return false end
    elseif not (labels or {})[part] then
      return false
    end
  end
  return true
end

-- The controller a pod belongs to, as the API server reports it: a Deployment's pod is
-- owned by its ReplicaSet, a job's by the Job; the harness launcher is a bare pod.
local function uid_of(what) return "00000000-0000-4000-8000-" .. ("%012x"):format(hash(what)) end
local function owner_refs(name, p)
  local kind, owner
  if p.owner == "job" then
    kind, owner = "Job", (name:gsub("%-%w+$", ""))
  elseif p.deploy then
    kind, owner = "ReplicaSet", rs_name(p.deploy)
  elseif p.lws then
    -- a leader: the leader StatefulSet <lws>; a worker: its group's StatefulSet <lws>-<g>
    kind, owner = "StatefulSet", p.worker == 0 and p.lws or (p.lws .. "-" .. p.group)
  else
    return nil
  end
  return { { apiVersion = kind == "Job" and "batch/v1" or "apps/v1", kind = kind, name = owner,
    uid = p.owner_uid or uid_of(kind .. "/" .. owner), controller = true, blockOwnerDeletion = true } }
end

local function pod_json(name, p)
  -- readiness follows the failures injected now (a fixed cluster is ready on resume)
  if p.owner ~= "run_only" and p.owner ~= "job" and not p.other then
    p.ready = not (fails.notready or fails.imagepull)
    p.waiting = fails.imagepull and "ImagePullBackOff" or nil
  end
  local statuses = {}
  for _, c in ipairs(p.containers) do
    statuses[#statuses + 1] = { name = c.name, ready = p.ready, restartCount = c.restarts,
      state = p.waiting and { waiting = { reason = p.waiting } } or { running = { startedAt = "2026-01-01T00:00:00Z" } } }
  end
  local specs = {}
  for _, c in ipairs(p.containers) do specs[#specs + 1] = { name = c.name, image = c.image } end
  local ispecs, istatuses = {}, {}
  for _, c in ipairs(p.init or {}) do
    ispecs[#ispecs + 1] = { name = c.name, image = c.image, restartPolicy = c.restartPolicy }
    istatuses[#istatuses + 1] = { name = c.name, ready = true, restartCount = c.restarts, started = true,
      state = { running = { startedAt = "2026-01-01T00:00:00Z" } } }
  end
  return {
    kind = "Pod", metadata = { name = name, labels = p.labels or json.object {}, ownerReferences = owner_refs(name, p),
      -- (the API server's uid of this pod object: a pod made again under the same name has another)
      uid = p.uid or uid_of("Pod/" .. name) },
    spec = { containers = specs, initContainers = #ispecs > 0 and ispecs or nil, nodeName = "gpu-node-1" },
    status = { phase = p.phase or (p.waiting and "Pending" or "Running"), containerStatuses = statuses,
      initContainerStatuses = #istatuses > 0 and istatuses or nil,
      conditions = { { type = "Ready", status = p.ready and "True" or "False" } } },
  }
end

local function out_json(v) io.write(json.encode(v), "\n") end


-- A Service as the API server returns it. The fake keeps who made it in svc.owner:
-- "helm:RELEASE" (stamped as helm stamps), "gateway:NAME" (made by the gateway controller
-- for Gateway NAME: Istio's kube-gateway template sets an ownerReference to the Gateway -
-- apiVersion, kind, name, uid; no controller: true - and labels it
-- gateway.networking.k8s.io/gateway-name and istio.io/gateway-name), nil (kubectl apply)
-- The cluster IP the API server gives a Service whose manifest sets none (from kubeadm's
-- default service range, 10.96.0.0/12), fixed by its namespace and name, so that -o json and
-- the table agree from one call to the next.
local function cluster_ip(ns, n)
  local h = hash(tostring(ns) .. "/" .. tostring(n))
  return ("10.%d.%d.%d"):format(96 + h % 16, (h // 16) % 256, 1 + (h // 4096) % 254)
end

local function svc_json(n, svc, ns)
  local md = { name = n }
  local rel = type(svc.owner) == "string" and svc.owner:match("^helm:(.*)$")
  local uid = svc.uid
  local gw = type(svc.owner) == "string" and svc.owner:match("^gateway:(.*)$")
  if rel then md = helm_meta(n, rel, ns) end
  if gw then
    md.labels = { ["gateway.networking.k8s.io/gateway-name"] = gw, ["istio.io/gateway-name"] = gw,
      ["gateway.istio.io/managed"] = "istio.io-gateway-controller" }
    md.ownerReferences = { { apiVersion = "gateway.networking.k8s.io/v1", kind = "Gateway", name = gw,
      uid = "00000000-0000-4000-8000-" .. ("%012x"):format(#gw * 7919) } }
  end
  md.uid = uid
  -- (the API server's defaults: type ClusterIP, and a cluster IP of its own unless the
  -- manifest set one, "None" for a headless service, or the type is ExternalName)
  local spec = {}
  for k, v in pairs(svc) do spec[k] = v end
  spec.type = spec.type or "ClusterIP"
  if spec.type ~= "ExternalName" and spec.clusterIP == nil then spec.clusterIP = cluster_ip(ns, n) end
  if spec.clusterIP ~= nil and spec.clusterIPs == nil then spec.clusterIPs = { spec.clusterIP } end
  -- (kubectl get prints each object with its apiVersion and kind, in a list too)
  return { apiVersion = "v1", kind = "Service", metadata = md, spec = spec }
end

local function sorted_keys(t)
  local k = {}
  for x in pairs(t or {}) do k[#k + 1] = x end
  table.sort(k)
  return k
end

-- versions ---------------------------------------------------------------------------------
--
-- What the real tools print for their version (doctor.lua asks each): the formats of their
-- documentation (kubernetes.io's kubectl_version reference and the kubectl install guide's
-- `kubectl version --client --output=yaml`; helm.sh's helm_version; helmfile's --version),
-- for kubectl v1.31.0 (with its kustomize v5.4.2), helm v3.16.2, helmfile v1.1.7, oc 4.16.0.
-- The build figures (commit, date, Go) are illustrative: nothing here is a real binary.
local KUBECTL_INFO = { -- apimachinery's version.Info, in its field order (JSON)
  { "major", "1" }, { "minor", "31" }, { "gitVersion", "v1.31.0" },
  { "gitCommit", "9edcffcde5595e8a5b1a35f88c421764e575afce" }, { "gitTreeState", "clean" },
  { "buildDate", "2024-08-13T07:37:34Z" }, { "goVersion", "go1.22.5" }, { "compiler", "gc" },
  { "platform", "linux/amd64" },
}
local KUSTOMIZE_VERSION = "v5.4.2"

-- kubectl version [--client] [-o json|yaml]: text, or JSON as Go's MarshalIndent writes it
-- (two spaces, fields in struct order), or YAML as sigs.k8s.io/yaml writes it (keys sorted,
-- strings that read as numbers or times double-quoted). Without --client the fake API server
-- answers too (the same version).
local function kubectl_version(a)
  local client, output = false, nil
  local i = 2
  while i <= #a do
    local x = a[i]
    if x == "--client" or x == "--client=true" then client = true
    elseif x == "--client=false" then client = false
    elseif x == "-o" or x == "--output" then i = i + 1; output = a[i] or ""
    elseif x:match("^%-%-output=") then output = x:match("=(.*)$")
    elseif x:match("^%-o.") then output = x:sub(3):gsub("^=", "")
    else die(("error: unknown flag: %s\nSee 'kubectl version --help' for usage."):format(x), 1) end
    i = i + 1
  end
  local parts = { { "clientVersion", KUBECTL_INFO }, { "kustomizeVersion", KUSTOMIZE_VERSION } }
  if not client then parts[#parts + 1] = { "serverVersion", KUBECTL_INFO } end
  if output == nil then
    io.write("Client Version: v1.31.0\nKustomize Version: ", KUSTOMIZE_VERSION, "\n")
    if not client then io.write("Server Version: v1.31.0\n") end
  elseif output == "json" then
    local out = {}
    for _, p in ipairs(parts) do
      if type(p[2]) == "string" then
        out[#out + 1] = ('  "%s": "%s"'):format(p[1], p[2])
      else
        local fields = {}
        for _, f in ipairs(p[2]) do fields[#fields + 1] = ('    "%s": "%s"'):format(f[1], f[2]) end
        out[#out + 1] = ('  "%s": {\n%s\n  }'):format(p[1], table.concat(fields, ",\n"))
      end
    end
    io.write("{\n", table.concat(out, ",\n"), "\n}\n")
  elseif output == "yaml" then
    for _, p in ipairs(parts) do -- (already in key order)
      if type(p[2]) == "string" then
        io.write(p[1], ": ", p[2], "\n")
      else
        local fields = {}
        for _, f in ipairs(p[2]) do fields[#fields + 1] = f end
        table.sort(fields, function(x, y) return x[1] < y[1] end)
        io.write(p[1], ":\n")
        for _, f in ipairs(fields) do
          local v = f[2]
          if v:match("^%d+$") or v:match("^%d%d%d%d%-%d%d%-%d%dT") then v = '"' .. v .. '"' end
          io.write("  ", f[1], ": ", v, "\n")
        end
      end
    end
  else
    die("error: --output must be 'yaml' or 'json'", 1)
  end
end

-- kubectl kustomize DIR (client side): the kustomization's resources, one YAML stream
local function kustomize_render(dir)
  local k = yaml.load_file(dir .. "/kustomization.yaml")
  local parts = {}
  for _, r in ipairs((k or {}).resources or {}) do
    local f = io.open(dir .. "/" .. r, "rb")
    if not f then die(("error: accumulating resources: accumulation err='accumulating resources from '%s': "
      .. "open %s: no such file or directory'"):format(r, r)) end
    local text = f:read("a")
    f:close()
    if type(k.namespace) == "string" then
      -- kustomize's namespace transformer: every namespaced object is put into it
      -- (cluster-scoped kinds keep none); it prints each object as YAML again
      for _, o in ipairs(yaml.load_all(text)) do
        if type(o) == "table" and not require("llmd.k8s").CLUSTER_KINDS[tostring(o.kind):lower()] then
          o.metadata = type(o.metadata) == "table" and o.metadata or {}
          o.metadata.namespace = k.namespace
        end
        parts[#parts + 1] = yaml.dump(o)
      end
    else
      parts[#parts + 1] = text
    end
  end
  return table.concat(parts, "\n---\n")
end

-- The objects a kustomization names: { kind =, name = , key = "Kind/name" }
local function kustomize_objects(dir)
  local out = {}
  for _, o in ipairs(yaml.load_all(kustomize_render(dir))) do
    if type(o) == "table" and o.kind and type(o.metadata) == "table" and o.metadata.name then
      out[#out + 1] = { kind = o.kind, name = o.metadata.name, key = o.kind .. "/" .. o.metadata.name,
        api = type(o.apiVersion) == "string" and o.apiVersion or nil }
    end
  end
  return out
end

-- The apiVersion the API server serves each kind this fake knows in (its preferred version:
-- kubectl get -o json prints it; kind.group/name is what -o name prints): the core group's
-- "v1", the others' GROUP/VERSION.
local KIND_API = {
  Pod = "v1", Service = "v1", Endpoints = "v1", Node = "v1", PersistentVolumeClaim = "v1", ConfigMap = "v1",
  Secret = "v1", ServiceAccount = "v1", Namespace = "v1",
  Deployment = "apps/v1", ReplicaSet = "apps/v1", StatefulSet = "apps/v1", DaemonSet = "apps/v1",
  Job = "batch/v1", CronJob = "batch/v1",
  Role = "rbac.authorization.k8s.io/v1", RoleBinding = "rbac.authorization.k8s.io/v1",
  ClusterRole = "rbac.authorization.k8s.io/v1", ClusterRoleBinding = "rbac.authorization.k8s.io/v1",
  HTTPRoute = "gateway.networking.k8s.io/v1", Gateway = "gateway.networking.k8s.io/v1",
  GRPCRoute = "gateway.networking.k8s.io/v1", InferencePool = "inference.networking.k8s.io/v1",
  InferenceObjective = "inference.networking.x-k8s.io/v1alpha2",
  InferenceModel = "inference.networking.x-k8s.io/v1alpha2", LeaderWorkerSet = LWS_API,
  NetworkPolicy = "networking.k8s.io/v1", Ingress = "networking.k8s.io/v1", PodDisruptionBudget = "policy/v1",
  HorizontalPodAutoscaler = "autoscaling/v2", ServiceMonitor = "monitoring.coreos.com/v1",
  PodMonitor = "monitoring.coreos.com/v1",
}
-- The kind of the words `kubectl get WHAT` takes for the fake's lists whose items carry none
local WORD_KIND = { pods = "Pod", pod = "Pod", po = "Pod", svc = "Service", service = "Service",
  services = "Service", endpoints = "Endpoints", ep = "Endpoints", nodes = "Node", node = "Node", no = "Node",
  pvc = "PersistentVolumeClaim", persistentvolumeclaims = "PersistentVolumeClaim" }

-- The apiVersion of an object of kind `kind`: the kind's (KIND_API), else nil (a kind the
-- fake does not know: not made up here).
local function api_of(kind) return KIND_API[kind] end

-- kubectl get's printer: -o name prints each object as kubectl's name printer does, one
-- "kind.group/name" line (the kind in lower case, ".group" left out for the core group:
-- pod/x, deployment.apps/x, httproute.gateway.networking.k8s.io/x), a list's items in
-- order, and an empty list's "No resources found in NS namespace." on stderr; any other
-- output (json, the fake's default) is out_json's.
-- Without -o (or with -o wide), kubectl prints a table (k8s.io/cli-runtime's tabwriter: each
-- column but the last padded to its widest cell plus 3 spaces, 6 at least; the empty list
-- is "No resources found in NS namespace." on stderr). The fake prints pods' (NAME READY
-- STATUS RESTARTS AGE; wide: IP NODE NOMINATED NODE READINESS GATES); the age of an object
-- without a creation time is kubectl's "<unknown>" (else kube_age's), and an IP it lacks "<none>". Another
-- kind's table is not faked: said so (exit 2), never JSON printed where kubectl prints a table.
-- Rows as a column printer lays them out: each cell padded with spaces to its column's widest
-- cell plus pad.extra (pad.min at least: a number, or one per column), the last column only
-- when pad.last, a column pad.right lists padded on its left instead (right-aligned), the
-- cells of a row joined by pad.sep; pad.trim: each line's trailing spaces and tabs cut.
-- kubectl's tabwriter, helm's and helmfile's uitable and helmfile's prettytable differ only in
-- these. padded_lines returns the lines, print_padded prints them.
local function padded_lines(rows, pad)
  local width, lines = {}, {}
  for _, row in ipairs(rows) do
    for c, cell in ipairs(row) do width[c] = math.max(width[c] or 0, #cell) end
  end
  for _, row in ipairs(rows) do
    local cells = {}
    for c, cell in ipairs(row) do
      local min = type(pad.min) == "table" and (pad.min[c] or 0) or pad.min
      local fill = (" "):rep(math.max(min, width[c] + pad.extra) - #cell)
      if pad.right and pad.right[c] then cells[c] = fill .. cell
      elseif c < #row or pad.last then cells[c] = cell .. fill
      else cells[c] = cell end
    end
    local line = table.concat(cells, pad.sep)
    lines[#lines + 1] = pad.trim and line:gsub("[ \t]+$", "") or line
  end
  return lines
end

local function print_padded(rows, pad)
  for _, l in ipairs(padded_lines(rows, pad)) do print(l) end
end

local function kube_table(rows) print_padded(rows, { extra = 3, min = 6, last = false, sep = "" }) end

-- An object's AGE cell as kubectl prints it (apimachinery's duration.HumanDuration of now
-- less metadata.creationTimestamp): "<unknown>" without a creation time; 0-119 s "Ns",
-- under 10 min "NmNs", under 3 h "Nm", under 8 h "NhNm", under 2 days "Nh", under 8 days
-- "NdNh", then "Nd" (a zero second part, minute part or hour part left out, as kubectl does).
local function kube_age(ts)
  local y, mo, d, h, mi, s = tostring(ts):match("^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)")
  if not y then return "<unknown>" end
  -- days from 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse)
  y, mo = tonumber(y), tonumber(mo)
  if mo <= 2 then y = y - 1 end
  local era = (y >= 0 and y or y - 399) // 400
  local yoe = y - era * 400
  local doy = (153 * (mo + (mo > 2 and -3 or 9)) + 2) // 5 + tonumber(d) - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  local epoch = (era * 146097 + doe - 719468) * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(s)
  local sec = os.time() - epoch
  if sec < -1 then return "<invalid>" elseif sec < 0 then return "0s" elseif sec < 120 then return sec .. "s" end
  local min, hr = sec // 60, sec // 3600
  local function two(a, ua, b, ub) return b == 0 and (a .. ua) or (a .. ua .. b .. ub) end
  if min < 10 then return two(min, "m", sec % 60, "s") end
  if min < 180 then return min .. "m" end
  if hr < 8 then return two(hr, "h", min % 60, "m") end
  if hr < 48 then return hr .. "h" end
  if hr < 192 then return two(hr // 24, "d", hr % 24, "h") end
  return (hr // 24) .. "d"
end

local function pod_row(o, wide)
  local st = o.status or {}
  local ready, total, restarts = 0, 0, 0
  for _, c in ipairs(st.containerStatuses or {}) do
    total = total + 1
    if c.ready then ready = ready + 1 end
    restarts = restarts + (tonumber(c.restartCount) or 0)
  end
  if total == 0 then total = #((o.spec or {}).containers or {}) end
  local phase = st.phase or "Pending"
  for _, c in ipairs(st.containerStatuses or {}) do
    local w = c.state and c.state.waiting
    if w and w.reason then phase = w.reason end
  end
  local md = o.metadata or {}
  local row = { tostring(md.name), ("%d/%d"):format(ready, total), phase, tostring(restarts),
    kube_age(md.creationTimestamp) }
  if wide then
    for _, x in ipairs { st.podIP or "<none>", (o.spec or {}).nodeName or "<none>", "<none>", "<none>" } do
      row[#row + 1] = x
    end
  end
  return row
end

-- A service's row of kubectl get svc (kubectl's printService: NAME TYPE CLUSTER-IP
-- EXTERNAL-IP PORT(S) AGE, -o wide SELECTOR): the external IP "<none>" but for the spec's
-- externalIPs, a LoadBalancer's ingress (else "<pending>"), an ExternalName's name; ports
-- "80/TCP", with a node port "80:30080/TCP", comma-joined, "<none>" when none; the
-- selector k=v in key order, "<none>" when none.
local function svc_row(o, wide)
  local sp, md = o.spec or {}, o.metadata or {}
  local typ = sp.type or "ClusterIP"
  local cip = type(sp.clusterIPs) == "table" and sp.clusterIPs[1] or sp.clusterIP or "<none>"
  local ext = {}
  if typ == "ExternalName" then
    ext[1] = sp.externalName
  else
    if typ == "LoadBalancer" then
      local lb = type(o.status) == "table" and type(o.status.loadBalancer) == "table" and o.status.loadBalancer.ingress
      for _, i in ipairs(type(lb) == "table" and lb or {}) do ext[#ext + 1] = i.ip or i.hostname end
    end
    for _, x in ipairs(type(sp.externalIPs) == "table" and sp.externalIPs or {}) do ext[#ext + 1] = x end
  end
  local ports = {}
  for _, pt in ipairs(type(sp.ports) == "table" and sp.ports or {}) do
    ports[#ports + 1] = (pt.nodePort and pt.nodePort ~= 0) and ("%d:%d/%s"):format(pt.port, pt.nodePort,
      pt.protocol or "TCP") or ("%d/%s"):format(pt.port, pt.protocol or "TCP")
  end
  local row = { tostring(md.name), typ, tostring(cip),
    #ext > 0 and table.concat(ext, ",") or (typ == "LoadBalancer" and "<pending>" or "<none>"),
    #ports > 0 and table.concat(ports, ",") or "<none>", kube_age(md.creationTimestamp) }
  if wide then
    local sel = {}
    for _, k in ipairs(sorted_keys(type(sp.selector) == "table" and sp.selector or {})) do
      sel[#sel + 1] = k .. "=" .. tostring(sp.selector[k])
    end
    row[#row + 1] = #sel > 0 and table.concat(sel, ",") or "<none>"
  end
  return row
end

local function get_printer(a, what, ns)
  local fmt = opt(a, "-o") or opt(a, "--output")
  for _, x in ipairs(a) do fmt = fmt or x:match("^%-o=(.*)$") or x:match("^%-%-output=(.*)$") end
  if fmt == nil or fmt == "wide" then
    return function(v)
      local items = (type(v) == "table" and v.items) or { v }
      if #items == 0 then
        io.stderr:write(("No resources found in %s namespace.\n"):format(ns or "default"))
        return
      end
      local kind = items[1].kind or WORD_KIND[(tostring(what):match("^[^,/]+") or ""):lower()]
      if kind ~= "Pod" and kind ~= "Service" then
        die(("fake kubectl: the %s table of `kubectl get %s` is not faked (give -o json or -o name)")
          :format(fmt or "default", tostring(what)), 2)
      end
      local rows
      if kind == "Service" then
        rows = { { "NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE" } }
        if fmt == "wide" then rows[1][#rows[1] + 1] = "SELECTOR" end
        for _, o in ipairs(items) do rows[#rows + 1] = svc_row(o, fmt == "wide") end
      else
        rows = { { "NAME", "READY", "STATUS", "RESTARTS", "AGE" } }
        if fmt == "wide" then
          for _, h in ipairs { "IP", "NODE", "NOMINATED NODE", "READINESS GATES" } do rows[1][#rows[1] + 1] = h end
        end
        for _, o in ipairs(items) do rows[#rows + 1] = pod_row(o, fmt == "wide") end
      end
      kube_table(rows)
    end
  end
  if fmt ~= "name" then return out_json end
  return function(v)
    local items = (type(v) == "table" and v.items) or { v }
    if #items == 0 then
      io.stderr:write(("No resources found in %s namespace.\n"):format(ns or "default"))
      return
    end
    for _, o in ipairs(items) do
      local kind = o.kind or WORD_KIND[(tostring(what):match("^[^,]+") or ""):lower()] or "unknown"
      local api = o.apiVersion or KIND_API[kind] or "v1"
      local group = api:match("^(.+)/[^/]+$")
      print(kind:lower() .. (group and ("." .. group) or "") .. "/" .. tostring((o.metadata or {}).name))
    end
  end
end

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local t = f:read("a")
  f:close()
  return t
end

-- kubectl apply/create -f/-k ----------------------------------------------------------------
--
-- What kubectl prints for each object (cmd/apply: printObjects, "<resource>.<group>/<name>
-- <operation>"): created, configured (it was there and the apply changed it), unchanged
-- (there, nothing to change); with --dry-run=client " (dry run)", =server " (server
-- dry run)" after it (nothing is stored); -o name the reference alone; --server-side
-- "serverside-applied" whether it made or changed it. kubectl create fails on one that
-- exists (AlreadyExists, after making the others). The resource is the kind in lower case
-- with its API group ("deployment.apps", "leaderworkerset.leaderworkerset.x-k8s.io"), none
-- for the core group ("service", "configmap").
local function res_of(d)
  local group = tostring(d.apiVersion or ""):match("^(.+)/[^/]+$")
  return d.kind:lower() .. (group and ("." .. group) or "")
end
-- Istio's Gateway kind (networking.istio.io) is another resource than Gateway API's Gateway
-- (gateway.networking.k8s.io) of the same kind name: the API server keeps them apart - each
-- its own objects, names, uids; `kubectl get gateway` lists Gateway API's only (the first
-- group in discovery's order), `gw` and gateways.networking.istio.io Istio's. The fake keeps
-- Istio's in s.other under this key (and s.objmeta for its identity), never in s.gateways.
local ISTIO_GW = "Gateway.networking.istio.io"
local function kind_key(d)
  local group = tostring(d.apiVersion or ""):match("^(.+)/[^/]+$")
  if d.kind == "Gateway" and group == "networking.istio.io" then return ISTIO_GW end
  return d.kind
end
local function plural(res)
  local base, group = res:match("^([^.]+)(.*)$")
  if base:match("y$") then base = base:sub(1, -2) .. "ies"
  elseif base:match("s$") then base = base .. "es"
  else base = base .. "s" end
  return base .. group
end
-- The fake's record of an object of that kind and name, if there is one.
local function object_there(s, kind, name)
  if kind == "Deployment" then return (s.deployments or {})[name] end
  if kind == "LeaderWorkerSet" then return (s.lws or {})[name] end
  if kind == "Service" then return s.services[name] end
  if kind == "PersistentVolumeClaim" then return s.pvcs[name] end
  if kind == "HTTPRoute" then return s.httproutes[name] end
  if kind == "Gateway" then return s.gateways[name] end
  if kind == "InferencePool" then return s.inferencepools[name] end
  return s.other[kind .. "/" .. name]
end
local function there_already(s, kind, name)
  return object_there(s, kind, name) or s.other[kind .. "/" .. name]
end
local meta_made, meta_of
-- The API server gives each port of a NodePort or LoadBalancer Service that names no
-- nodePort one of its own, from the node port range (30000-32767 by default,
-- --service-node-port-range), at random among those no Service of the cluster holds; an
-- update that leaves it out keeps the one allocated (kubernetes.io, Service "type: NodePort":
-- "the Kubernetes control plane allocates a port from a range specified by
-- --service-node-port-range flag (default: 30000-32767)").
local function allocate_node_ports(spec, old)
  if spec.type ~= "NodePort" and spec.type ~= "LoadBalancer" then return end
  if spec.type == "LoadBalancer" and spec.allocateLoadBalancerNodePorts == false then return end
  local used = {}
  for _, sp in pairs(state.ns) do
    for _, sv in pairs(sp.services or {}) do
      for _, pt in ipairs(type(sv.ports) == "table" and sv.ports or {}) do
        if type(pt) == "table" and pt.nodePort then used[pt.nodePort] = true end
      end
    end
  end
  for k, pt in ipairs(type(spec.ports) == "table" and spec.ports or {}) do
    if type(pt) == "table" and (pt.nodePort == nil or pt.nodePort == 0) then
      local was = type(old) == "table" and type(old.ports) == "table" and old.ports[k]
      if type(was) == "table" and was.port == pt.port and tonumber(was.nodePort) then
        pt.nodePort = was.nodePort
      else
        local n
        repeat n = math.random(30000, 32767) until not used[n]
        pt.nodePort = n
      end
      used[pt.nodePort] = true
    end
  end
end
local function store_object(s, ns, d, owner)
  local kind, md = kind_key(d), type(d.metadata) == "table" and d.metadata or {}
  local name = tostring(md.name)
  local spec = type(d.spec) == "table" and d.spec or {}
  local made = not there_already(s, kind, name) and meta_made(s, d)
  s.other[kind .. "/" .. name] = owner
  if kind == "ConfigMap" or kind == "Secret" then
    -- (the object itself, for get; an older state has no secrets yet)
    local map = kind == "ConfigMap" and "configmaps" or "secrets"
    s[map] = s[map] or {}
    s[map][name] = d
    d.metadata = md
    if made then md.uid, md.creationTimestamp = made.uid, made.created end
    written[#written + 1] = d
  elseif kind == "Service" then
    local old = s.services[name]
    s.services[name] = spec
    if made then spec.uid = made.uid end
    allocate_node_ports(spec, old)
  elseif kind == "PersistentVolumeClaim" then
    s.pvcs[name] = { access = (spec.accessModes or {})[1], size = ((spec.resources or {}).requests or {}).storage,
      labels = type(md.labels) == "table" and md.labels or nil }
    proc.run { "mkdir", "-p", DIR .. "/pvc/" .. ns .. "/" .. name }
  elseif kind == "Deployment" then
    -- (applied again: its pods run on)
    if not (s.deployments or {})[name] then
      -- (a Deployment without a pod template: the guides' model server, vLLM pods)
      local tl = (((spec.template or {}).metadata) or {}).labels
      if type(tl) == "table" then
        deployment(s, name, owner, tonumber(spec.replicas) or 1, { labels = tl,
          containers = { { name = "vllm", image = "ghcr.io/llm-d/llm-d-cuda:v0.4.0", restarts = 0 } } })
      else
        vllm_pods(s, nil, owner, tonumber(spec.replicas) or 2, name)
      end
    end
  elseif kind == "LeaderWorkerSet" then
    if not (s.lws or {})[name] then
      local lwt = spec.leaderWorkerTemplate or {}
      local tl = ((lwt.workerTemplate or {}).metadata or {}).labels
      leaderworkerset(s, name, owner, tonumber(spec.replicas) or 1, tonumber(lwt.size) or 1,
        { labels = type(tl) == "table" and tl or SERVING() })
    end
  elseif kind == "HTTPRoute" then
    s.httproutes[name] = { kind = "HTTPRoute", metadata = { name = name, uid = made and made.uid or nil },
      status = { parents = { { conditions = { { type = "Accepted", status = "True" } } } } } }
  elseif kind == "Gateway" then
    s.gateways[name] = { kind = "Gateway", metadata = { name = name, uid = made and made.uid or nil },
      status = { conditions = { { type = "Programmed", status = "True" } } } }
  elseif kind == "InferencePool" then
    s.inferencepools[name] = { kind = "InferencePool", apiVersion = d.apiVersion, metadata = { name = name },
      spec = spec, status = { parents = { { conditions = { { type = "Accepted", status = "True" } } } } } }
  end
end
-- kubectl's --dry-run (cmd/util GetDryRunStrategy): "client" for =client and its deprecated
-- forms (bare --dry-run, =true, each warned about on stderr), "server" for =server, nil when
-- absent, =none or =false; any other value is kubectl's error. (The bare flag takes no
-- value: its NoOptDefVal, so `--dry-run client` is the bare flag and a word.)
local function dry_of(a, warn)
  for _, x in ipairs(a) do
    local v = x == "--dry-run" and "unchanged" or x:match("^%-%-dry%-run=(.*)$")
    if v then
      local b = ({ ["1"] = true, t = true, T = true, TRUE = true, ["true"] = true, True = true, ["0"] = false,
        f = false, F = false, FALSE = false, ["false"] = false, False = false })[v]
      if v == "unchanged" then
        if warn then io.stderr:write("W1203 21:00:00.000000   4242 helpers.go:703] --dry-run is deprecated and can "
          .. "be replaced with --dry-run=client.\n") end
        return "client"
      elseif b ~= nil then
        if warn then io.stderr:write(("W1203 21:00:00.000000   4242 helpers.go:710] --dry-run=%s is deprecated "
          .. "(boolean value) and can be replaced with --dry-run=%s.\n"):format(v, b and "client" or "none")) end
        return b and "client" or nil
      elseif v == "client" or v == "server" then
        return v
      elseif v == "none" then
        return nil
      end
      die(('error: Invalid dry-run value (%s). Must be "none", "server", or "client".'):format(v))
    end
  end
end

-- A kubectl create's -o: yaml, json, name or nil (the fake prints no other); another is
-- kubectl's error.
local function create_output(a)
  local fmt = opt(a, "-o") or opt(a, "--output")
  if fmt and fmt ~= "yaml" and fmt ~= "json" and fmt ~= "name" then
    die(('error: unable to match a printer suitable for the output format "%s", allowed formats are: '
      .. 'go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,'
      .. 'templatefile,yaml'):format(fmt))
  end
  return fmt
end

-- kubectl create deployment NAME --image=IMAGE [--replicas=N] [--port=P] as kubectl builds
-- it (cmd/create/create_deployment.go): labels app=NAME, one container an image named after
-- it (the last path segment, without tag or digest, "_" made "-"), the namespace when -n
-- names one. What -o yaml prints (sigs.k8s.io/yaml: keys sorted) and -o json (kubectl's JSON
-- printer: the struct's order, 4-space indent).
local function created_deployment_text(name, ns, image, replicas, port, fmt)
  local cname = image:match("([^/]*)$"):match("^[^:@]*"):gsub("_", "-")
  if fmt == "json" then
    local q = function(x) return json.encode(x) end
    local ports = port and (',\n                                "ports": [\n                                    {\n'
      .. '                                        "containerPort": ' .. port .. '\n'
      .. '                                    }\n                                ]') or ""
    return table.concat({
      '{',
      '    "kind": "Deployment",',
      '    "apiVersion": "apps/v1",',
      '    "metadata": {',
      '        "name": ' .. q(name) .. ',',
      ns and ('        "namespace": ' .. q(ns) .. ',') or nil,
      '        "creationTimestamp": null,',
      '        "labels": {',
      '            "app": ' .. q(name),
      '        }',
      '    },',
      '    "spec": {',
      '        "replicas": ' .. replicas .. ',',
      '        "selector": {',
      '            "matchLabels": {',
      '                "app": ' .. q(name),
      '            }',
      '        },',
      '        "template": {',
      '            "metadata": {',
      '                "creationTimestamp": null,',
      '                "labels": {',
      '                    "app": ' .. q(name),
      '                }',
      '            },',
      '            "spec": {',
      '                "containers": [',
      '                    {',
      '                        "name": ' .. q(cname) .. ',',
      '                        "image": ' .. q(image) .. ports .. ',',
      '                        "resources": {}',
      '                    }',
      '                ]',
      '            }',
      '        },',
      '        "strategy": {}',
      '    },',
      '    "status": {}',
      '}',
    }, "\n") .. "\n"
  end
  local t = { "apiVersion: apps/v1", "kind: Deployment", "metadata:", "  creationTimestamp: null", "  labels:",
    "    app: " .. name, "  name: " .. name }
  if ns then t[#t + 1] = "  namespace: " .. ns end
  for _, l in ipairs { "spec:", "  replicas: " .. replicas, "  selector:", "    matchLabels:", "      app: " .. name,
    "  strategy: {}", "  template:", "    metadata:", "      creationTimestamp: null", "      labels:",
    "        app: " .. name, "    spec:", "      containers:", "      - image: " .. image,
    "        name: " .. cname } do t[#t + 1] = l end
  if port then
    for _, l in ipairs { "        ports:", "        - containerPort: " .. port } do t[#t + 1] = l end
  end
  for _, l in ipairs { "        resources: {}", "status: {}" } do t[#t + 1] = l end
  return table.concat(t, "\n") .. "\n"
end
-- Returns the lines to print, the errors, and (a create's) every document's outcome in
-- order: { error = text } or { kind, name, error = the AlreadyExists it would be }, for the
-- check again at the write (create_guard).
local function apply_docs(s, ns, docs, verb, a, owner)
  local dry = dry_of(a, true)
  local name_only = opt(a, "-o") == "name" or opt(a, "--output") == "name"
  local server_side = has(a, "--server-side") or opt(a, "--server-side") == "true"
  s.applied_docs = s.applied_docs or {}
  local lines, errs, outcomes = {}, {}, {}
  for _, it in ipairs(docs) do
    local d = it.doc
    local name = tostring((type(d.metadata) == "table" and d.metadata or {}).name)
    local key = kind_key(d) .. "/" .. name
    local ref = res_of(d) .. "/" .. name
    local there = there_already(s, kind_key(d), name)
    local enc = json.encode(d)
    local op
    local exists = ('Error from server (AlreadyExists): error when creating "%s": %s "%s" already exists')
      :format(it.src, plural(res_of(d)), name)
    if verb == "create" and there then
      errs[#errs + 1] = exists
      outcomes[#outcomes + 1] = { error = exists }
    else
      if verb == "create" and not dry then outcomes[#outcomes + 1] = { kind = kind_key(d), name = name, error = exists } end
      if verb == "create" or not there then op = "created"
      elseif s.applied_docs[key] == enc then op = "unchanged"
      else op = "configured" end
      if server_side then op = "serverside-applied" end
      if not dry then
        if not there then store_object(s, ns, d, owner) end
        s.applied_docs[key] = enc
      end
      if name_only then lines[#lines + 1] = ref
      else
        lines[#lines + 1] = ref .. " " .. op .. (dry == "server" and " (server dry run)" or dry and " (dry run)" or "")
      end
    end
  end
  return lines, errs, outcomes
end

-- A kubectl create -f's check again at the write (save's guard), outcomes apply_docs's: an
-- object it makes that another call made since this one read it is the API server's
-- AlreadyExists, as one there at the read is, and two creates at once of one name give one
-- AlreadyExists. (Then nothing of the call is stored - the fake cannot take back the
-- others it made in its copy - and every error is said in order: with one document, as
-- llmdlua makes them, exactly what kubectl says.)
local function create_guard(ns, outcomes)
  return function(disk)
    local ds, raced, all = disk.ns[ns], false, {}
    for _, o in ipairs(outcomes) do
      if not o.kind then
        all[#all + 1] = o.error
      elseif ds and there_already(ds, o.kind, o.name) then
        raced = true
        all[#all + 1] = o.error
      end
    end
    if raced then return table.concat(all, "\n") end
  end
end

-- kubectl create configmap|secret generic|service TYPE NAME ----------------------------
--
-- As kubectl builds them (cmd/create: create_configmap.go, create_secret.go,
-- create_service.go): the object from the flags, the namespace in it when -n names one;
-- --dry-run=client asks nothing of the server and makes nothing, =server is checked by it
-- (AlreadyExists too) and stores nothing; else the object is created, and one of that
-- kind and name there already is the server's AlreadyExists, wrapped in kubectl's words
-- ("failed to create configmap: ", "failed to create secret " - no colon there -, "failed
-- to create ClusterIP service: "). -o yaml prints the object (sigs.k8s.io/yaml: keys
-- sorted), -o json too (kubectl's JSON printer: the struct's field order, 4-space indent),
-- -o name its reference, else "<resource>/<name> created" and the dry run's suffix. (A
-- created object printed with -o yaml|json is the one sent, without the uid and
-- resourceVersion the server's answer adds.)
local yo = require "llmd.yamlout"

-- Every value of a flag kubectl collects (StringArray, StringSlice: "--f v", "--f=v",
-- repeated; split at commas when split).
local function opt_all(a, name, split)
  local out = {}
  local i = 1
  while i <= #a do
    local v
    if a[i] == name then
      v = a[i + 1]
      i = i + 1
    else
      v = a[i]:match("^" .. name:gsub("%-", "%%-") .. "=(.*)$")
    end
    if v then
      if split then for x in v:gmatch("[^,]+") do out[#out + 1] = x end else out[#out + 1] = v end
    end
    i = i + 1
  end
  return out
end

-- The words that are no flag or flag value (kubectl's positional arguments).
local CREATE_VALUED = { ["-o"] = true, ["--output"] = true, ["--from-literal"] = true, ["--from-file"] = true,
  ["--from-env-file"] = true, ["--type"] = true, ["--tcp"] = true, ["--clusterip"] = true, ["--node-port"] = true,
  ["--external-name"] = true, ["--field-manager"] = true, ["--validate"] = true, ["--image"] = true,
  ["--replicas"] = true, ["--port"] = true }
local function positional(a)
  local out, i = {}, 1
  while i <= #a do
    if CREATE_VALUED[a[i]] then i = i + 1
    elseif a[i]:sub(1, 1) ~= "-" then out[#out + 1] = a[i] end
    i = i + 1
  end
  return out
end

local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function base64(s)
  return (s:gsub("..?.?", function(c)
    local b1, b2, b3 = c:byte(1, 3)
    local n = b1 * 65536 + (b2 or 0) * 256 + (b3 or 0)
    local out = {}
    for k = 1, 4 do
      local x = (n >> (6 * (4 - k))) & 63
      out[k] = B64:sub(x + 1, x + 1)
    end
    if not b2 then out[3], out[4] = "=", "=" elseif not b3 then out[4] = "=" end
    return table.concat(out)
  end))
end

-- Go's json.MarshalIndent(v, "", "    ") of an object whose ordered maps (yamlout.map)
-- stand for structs (their field order) and plain tables for Go maps (keys sorted).
local function go_json(v, ind)
  ind = ind or ""
  local inner = ind .. "    "
  local parts = {}
  if yo.is_map(v) then
    for i, k in ipairs(v.k) do parts[i] = inner .. json.encode(k) .. ": " .. go_json(v.v[i], inner) end
    return #parts == 0 and "{}" or ("{\n" .. table.concat(parts, ",\n") .. "\n" .. ind .. "}")
  elseif type(v) == "table" and v ~= json.null and (json.is_array(v) or #v > 0) then
    for i, x in ipairs(v) do parts[i] = inner .. go_json(x, inner) end
    return #parts == 0 and "[]" or ("[\n" .. table.concat(parts, ",\n") .. "\n" .. ind .. "]")
  elseif type(v) == "table" and v ~= json.null then
    for _, k in ipairs(sorted_keys(v)) do parts[#parts + 1] = inner .. json.encode(k) .. ": " .. go_json(v[k], inner) end
    return #parts == 0 and "{}" or ("{\n" .. table.concat(parts, ",\n") .. "\n" .. ind .. "}")
  end
  return json.encode(v)
end

-- A ConfigMap's or Secret's data from --from-literal, --from-file, --from-env-file, in
-- kubectl's order (configmap: files, literals, env files; secret: literals, files, env
-- files), with its errors. add(key, value) refuses a key given twice.
local function data_sources(a, order, add)
  local literals, files, envs = opt_all(a, "--from-literal"), opt_all(a, "--from-file", true),
    opt_all(a, "--from-env-file", true)
  if #envs > 0 and (#files > 0 or #literals > 0) then
    die("error: from-env-file cannot be combined with from-file or from-literal")
  end
  local function valid(key)
    -- validation.IsConfigMapKey: [-._a-zA-Z0-9]+, not "." or "..", 253 at most
    return #key <= 253 and key:match("^[%-%._%w]+$") and key ~= "." and key ~= ".."
  end
  local todo = {
    literal = function()
      for _, src in ipairs(literals) do
        local k, v = src:match("^([^=]*)=(.*)$")
        if not k or k == "" then die(("error: invalid literal source %s, expected key=value"):format(src)) end
        add(k, v, valid(k))
      end
    end,
    file = function()
      for _, src in ipairs(files) do
        local k, path = src:match("^([^=]*)=(.*)$")
        if k and (k == "" or path == "") then
          die(("error: key names or file paths cannot be empty: %s"):format(src))
        end
        path = path or src
        local mode = lfs.attributes(path, "mode")
        if not mode then die(("error: error reading %s: no such file or directory"):format(path)) end
        if mode == "directory" then
          if k then die("error: cannot give a key name for a directory path") end
          local names = {}
          for n in lfs.dir(path) do
            if lfs.attributes(path .. "/" .. n, "mode") == "file" then names[#names + 1] = n end
          end
          table.sort(names)
          for _, n in ipairs(names) do add(n, read_file(path .. "/" .. n), valid(n)) end
        else
          k = k or path:match("([^/]*)$")
          add(k, read_file(path), valid(k))
        end
      end
    end,
    env = function()
      for _, path in ipairs(envs) do
        local mode = lfs.attributes(path, "mode")
        if not mode then die(("error: error reading %s: no such file or directory"):format(path)) end
        if mode == "directory" then die("error: env config file cannot be a directory") end
        -- cmdutil.AddFromEnvFile: KEY=VALUE a line, leading space trimmed, '#' comments
        -- and blank lines passed over; a bare KEY takes its value from the environment
        for line in (read_file(path) .. "\n"):gmatch("([^\n]*)\n") do
          line = line:gsub("^%s+", "")
          if line ~= "" and line:sub(1, 1) ~= "#" then
            local k, v = line:match("^([^=]*)=(.*)$")
            if not k then k, v = line, os.getenv(line) end
            if v then add(k, v, valid(k)) end
          end
        end
      end
    end,
  }
  for _, w in ipairs(order) do todo[w]() end
end

local function create_named(s, ns, a)
  local words = positional(a)
  local what = words[2]
  local sub = (what == "secret" or what == "service" or what == "svc") and words[3] or nil
  local SVC_TYPE = { clusterip = "ClusterIP", nodeport = "NodePort", loadbalancer = "LoadBalancer",
    externalname = "ExternalName" }
  local cmd
  if what == "configmap" or what == "cm" then cmd = "configmap"
  elseif what == "secret" and sub == "generic" then cmd = "secret generic"
  elseif (what == "service" or what == "svc") and SVC_TYPE[sub or ""] then cmd = "service " .. sub
  else
    die("fake kubectl: unsupported call: " .. table.concat(args, " "), 2)
  end
  local names = { table.unpack(words, sub and 4 or 3) }
  if #names ~= 1 then
    die(("error: exactly one NAME is required, got %d\nSee 'kubectl create %s -h' for help and examples")
      :format(#names, cmd))
  end
  local name = names[1]
  local dry = dry_of(a, true)
  local fmt = create_output(a)
  local md = yo.map("name", name, "namespace", ns, "creationTimestamp", json.null)
  local obj, kind, failed
  if cmd == "configmap" then
    kind, failed = "ConfigMap", "failed to create configmap: "
    local data = {}
    data_sources(a, { "file", "literal", "env" }, function(k, v, ok)
      if not ok then die(('error: "%s" is not a valid key name for a ConfigMap'):format(k)) end
      if data[k] then
        die(('error: cannot add key "%s", another key by that name already exists in Data for ConfigMap "%s"')
          :format(k, name))
      end
      data[k] = v
    end)
    obj = yo.map("kind", kind, "apiVersion", "v1", "metadata", md, "data", next(data) and data or nil)
  elseif cmd == "secret generic" then
    kind, failed = "Secret", "failed to create secret "
    local data = {}
    data_sources(a, { "literal", "file", "env" }, function(k, v, ok)
      if not ok then die(('error: "%s" is not valid key name for a Secret'):format(k)) end
      if data[k] then die(("error: cannot add key %s, another key by that name already exists"):format(k)) end
      data[k] = base64(v)
    end)
    local typ = opt(a, "--type")
    obj = yo.map("kind", kind, "apiVersion", "v1", "metadata", md, "data", next(data) and data or nil,
      "type", typ ~= "" and typ or nil)
  else
    kind = "Service"
    local typ = SVC_TYPE[sub]
    failed = ("failed to create %s service: "):format(typ)
    local tcp, cip = opt_all(a, "--tcp", true), opt(a, "--clusterip")
    local ext = opt(a, "--external-name")
    if typ == "ExternalName" and not ext then die('error: required flag(s) "external-name" not set') end
    if cip == "None" and typ ~= "ClusterIP" then die("error: ClusterIP=None can only be used with ClusterIP service type") end
    if cip ~= "None" and #tcp == 0 and typ ~= "ExternalName" then
      die("error: at least one tcp port specifier must be provided")
    end
    local node_port = tonumber(opt(a, "--node-port") or "0")
    local ports = json.array {}
    for _, spec in ipairs(tcp) do
      local p1, p2 = spec:match("^([^:]*):?(.*)$")
      local port = math.tointeger(tonumber(p1))
      if not port or port < 1 or port > 65535 then
        die(('error: invalid port: "%s"'):format(p1))
      end
      local target = p2 == "" and port or math.tointeger(tonumber(p2)) or p2
      ports[#ports + 1] = yo.map("name", (spec:gsub(":", "-")), "protocol", "TCP", "port", port, "targetPort", target,
        "nodePort", node_port ~= 0 and node_port or nil)
    end
    md = yo.set(md, "labels", { app = name })
    obj = yo.map("kind", kind, "apiVersion", "v1", "metadata", md,
      "spec", yo.map("ports", #ports > 0 and ports or nil, "selector", { app = name }, "clusterIP", cip,
        "type", typ, "externalName", ext),
      "status", yo.map("loadBalancer", yo.map()))
  end
  local res = kind:lower()
  local exists = ('error: %s%ss "%s" already exists'):format(failed, res, name)
  if dry ~= "client" and there_already(s, kind, name) then die(exists) end
  if not dry then
    store_object(s, ns, yo.plain(obj), "kubectl")
    -- (checked again at the write: another call may have made it since this one read)
    save(function(disk) return disk.ns[ns] and there_already(disk.ns[ns], kind, name) and exists or nil end)
  end
  if fmt == "yaml" then return io.write(yo.dump(yo.plain(obj))) end
  if fmt == "json" then return io.write(go_json(obj), "\n") end
  if fmt == "name" then return print(res .. "/" .. name) end
  return print(res .. "/" .. name .. " created" .. (dry == "server" and " (server dry run)" or dry and " (dry run)"
    or ""))
end

-- Objects' identity -------------------------------------------------------------------
--
-- Every object the fake makes (store_object: apply, create -f, create NAME; create deployment)
-- gets what the API server gives one: a uid of its own - random, so that one deleted and made
-- again under its name has another -, and keeps the apiVersion and annotations it was sent
-- with (and its labels): s.objmeta["Kind/name"], made afresh whenever an object of that kind and name is made
-- (an entry whose object is gone is never read: the object is looked for first).
meta_made = function(s, d)
  s.objmeta = s.objmeta or {}
  local md = type(d.metadata) == "table" and d.metadata or {}
  -- (created: the time the API server made it, metadata.creationTimestamp, to the second, UTC)
  local m = { uid = new_uid(), apiVersion = d.apiVersion, created = (api_clock()),
    annotations = type(md.annotations) == "table" and next(md.annotations) and md.annotations or nil,
    labels = type(md.labels) == "table" and next(md.labels) and md.labels or nil }
  s.objmeta[kind_key(d) .. "/" .. tostring(md.name)] = m
  return m
end
meta_of = function(s, kind, name) return (s.objmeta or {})[kind .. "/" .. tostring(name)] end

-- The identities of objects no longer there dropped (as the API server forgets a deleted
-- object's).
prune_meta = function(s)
  if type(s) ~= "table" or type(s.objmeta) ~= "table" or type(s.other) ~= "table" then return end
  for key in pairs(s.objmeta) do
    local kind, name = key:match("^([^/]+)/(.+)$")
    if not (kind and there_already(s, kind, name)) then s.objmeta[key] = nil end
  end
  if not next(s.objmeta) then s.objmeta = nil end
end

-- The uid of the object of that kind and name there now; nil when there is none.
local function uid_now(s, kind, name)
  if not there_already(s, kind, name) then return nil end
  local m = meta_of(s, kind, name)
  if kind == "Service" then return s.services[name] and s.services[name].uid or m and m.uid end
  if kind == "HTTPRoute" or kind == "Gateway" then
    local o = (kind == "HTTPRoute" and s.httproutes or s.gateways)[name]
    return o and (o.metadata or {}).uid or m and m.uid
  end
  if kind == "ConfigMap" or kind == "Secret" then
    local o = ((kind == "ConfigMap" and s.configmaps or s.secrets) or {})[name]
    return o and (o.metadata or {}).uid or m and m.uid
  end
  return m and m.uid or uid_of(kind .. "/" .. name)
end

-- obj (as get prints it) with the object's uid, apiVersion, annotations and labels as made.
local function with_meta(s, kind, name, obj)
  local m = meta_of(s, kind, name)
  obj.metadata = obj.metadata or {}
  obj.metadata.uid = obj.metadata.uid or uid_now(s, kind, name)
  if m and m.created and (obj.metadata.creationTimestamp == nil or obj.metadata.creationTimestamp == json.null) then
    obj.metadata.creationTimestamp = m.created
  end
  if m and m.apiVersion then obj.apiVersion = m.apiVersion end
  if m and m.annotations then obj.metadata.annotations = m.annotations end
  -- (and the labels it was made with, as the API server keeps them)
  if m and m.labels and obj.metadata.labels == nil then obj.metadata.labels = m.labels end
  return obj
end

-- kubectl api-resources [--no-headers]: the namespaced resources the fake keeps, as kubectl
-- prints them (columns NAME SHORTNAMES APIVERSION NAMESPACED KIND, a tabwriter's: each as
-- wide as its longest cell, three spaces between).
local API_RESOURCES = {
  { "configmaps", "cm", "v1", "true", "ConfigMap" },
  { "persistentvolumeclaims", "pvc", "v1", "true", "PersistentVolumeClaim" },
  { "pods", "po", "v1", "true", "Pod" },
  { "secrets", "", "v1", "true", "Secret" },
  { "serviceaccounts", "sa", "v1", "true", "ServiceAccount" },
  { "services", "svc", "v1", "true", "Service" },
  { "deployments", "deploy", "apps/v1", "true", "Deployment" },
  { "replicasets", "rs", "apps/v1", "true", "ReplicaSet" },
  { "statefulsets", "sts", "apps/v1", "true", "StatefulSet" },
  { "horizontalpodautoscalers", "hpa", "autoscaling/v2", "true", "HorizontalPodAutoscaler" },
  { "cronjobs", "cj", "batch/v1", "true", "CronJob" },
  { "jobs", "", "batch/v1", "true", "Job" },
  { "gateways", "gtw", "gateway.networking.k8s.io/v1", "true", "Gateway" },
  { "httproutes", "", "gateway.networking.k8s.io/v1", "true", "HTTPRoute" },
  { "inferencepools", "", "inference.networking.k8s.io/v1", "true", "InferencePool" },
  { "leaderworkersets", "lws", "leaderworkerset.x-k8s.io/v1", "true", "LeaderWorkerSet" },
  { "ingresses", "ing", "networking.k8s.io/v1", "true", "Ingress" },
  { "poddisruptionbudgets", "pdb", "policy/v1", "true", "PodDisruptionBudget" },
  { "rolebindings", "", "rbac.authorization.k8s.io/v1", "true", "RoleBinding" },
  { "roles", "", "rbac.authorization.k8s.io/v1", "true", "Role" },
  -- (Istio's own Gateway kind, beside Gateway API's: on every cluster with Istio, as llm-d's
  -- guides use it; a kind in two groups, told apart only by the apiVersion)
  { "gateways", "gw", "networking.istio.io/v1", "true", "Gateway" },
  { "virtualservices", "vs", "networking.istio.io/v1", "true", "VirtualService" },
  -- (GAIE's older InferencePool group beside its v1 one: a cluster that had an llm-d before
  -- GAIE v1 keeps its CRD; "inferencepool" alone is inference.networking.k8s.io's, the first
  -- by name)
  { "inferencepools", "", "inference.networking.x-k8s.io/v1alpha2", "true", "InferencePool" },
}
-- Which of API_RESOURCES a resource word names, as kubectl resolves it: the plural, the
-- singular (the kind in lower case) or a short name, alone or followed by its group
-- (gateways.gateway.networking.k8s.io) or version and group (gateways.v1.gateway.networking.k8s.io).
-- A word several groups serve - "gateway" on a cluster with Istio's Gateway beside Gateway
-- API's - is the first group in discovery's order, CRD groups (priority 1000 alike) in the
-- order of their names, so gateway.networking.k8s.io before networking.istio.io (what Istio's
-- issues 28188 and 44354 report kubectl picking); "gw" is Istio's short name, "gtw" Gateway
-- API's. Returns {kind =, group =, resource =} or nil.
local function resolve_resource(word)
  local w = tostring(word or ""):lower()
  local base, rest = w:match("^([^.]+)%.?(.*)$")
  local found = {}
  for _, r in ipairs(API_RESOURCES) do
    local gv = r[3]
    local group, version = gv:match("^(.+)/([^/]+)$")
    group, version = group or "", version or gv
    local named = base == r[1] or base == r[5]:lower() or (r[2] ~= "" and base == r[2] and rest == "")
    if named and (rest == "" or rest == group or rest == version .. "." .. group) then
      found[#found + 1] = { kind = r[5], group = group, resource = r[1] .. (group ~= "" and ("." .. group) or "") }
    end
  end
  table.sort(found, function(p, q) return p.group < q.group end)
  return found[1]
end

local function api_resources(a)
  local rows = {}
  if not has(a, "--no-headers") then rows[1] = { "NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND" } end
  for _, r in ipairs(API_RESOURCES) do rows[#rows + 1] = r end
  kube_table(rows)
  -- FAKE_API_DOWN=1: an aggregated API that does not answer (a metrics-server down): kubectl
  -- prints what it could list, then this, and exits 1
  if os.getenv("FAKE_API_DOWN") == "1" then
    io.stdout:flush()
    die("error: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is "
      .. "currently unable to handle the request", 1)
  end
end

-- kubectl delete --raw PATH [-f FILE] of a namespaced object other than a ConfigMap
-- (/api/v1/namespaces/NS/PLURAL/NAME, /apis/GROUP/VERSION/namespaces/NS/PLURAL/NAME): a
-- DELETE sent as it is, the body (FILE, - for stdin) DeleteOptions, whose preconditions.uid
-- the API server holds it to: another object under the name is a Conflict, none a NotFound,
-- in the API server's words. Returns the arguments of the delete by name that does it and
-- the Status kubectl prints (the server's answer), or nil for a path this does not take (a
-- ConfigMap's: the branch below). kubectl --raw reads no -n: the namespace is the path's.
local function raw_delete_object(a, stdin)
  local raw = opt(a, "--raw")
  local gv, rns, plural_name, name = raw:match("^/apis/([^/]+/[^/]+)/namespaces/([^/]+)/([^/]+)/([^/?]+)$")
  if not gv then
    rns, plural_name, name = raw:match("^/api/v1/namespaces/([^/]+)/([^/]+)/([^/?]+)$")
    gv = "v1"
  end
  if not rns or plural_name == "configmaps" then return nil end
  local kind
  for _, r in ipairs(API_RESOURCES) do if r[1] == plural_name and r[3] == gv then kind = r[5] end end
  if not kind then die(("Error from server (NotFound): the server could not find the requested resource"), 1) end
  local from = opt(a, "-f") or opt(a, "--filename")
  local text = from == "-" and stdin or from and read_file(from) or ""
  local body = {}
  if (text or ""):match("%S") then
    local ok, d = pcall(json.decode, text)
    if not ok or type(d) ~= "table" then
      die("Error from server (BadRequest): the body of the request was in an unknown format - accepted media types "
        .. "include: application/json, application/yaml, application/vnd.kubernetes.protobuf")
    end
    body = d
  end
  local pre = type(body.preconditions) == "table" and body.preconditions or {}
  local s = space(rns)
  local group = gv:match("^(.+)/[^/]+$")
  local res = plural_name .. (group and ("." .. group) or "")
  -- (Istio's Gateway kind is kept apart from Gateway API's: ISTIO_GW; no other Istio kind is kept)
  local istio = (group or ""):find("istio.io", 1, true)
  local have = (istio and kind == "Gateway" and uid_now(s, ISTIO_GW, name)) or (not istio and uid_now(s, kind, name))
    or nil
  if not have then die(('Error from server (NotFound): %s "%s" not found'):format(res, name)) end
  if pre.uid ~= nil and tostring(pre.uid) ~= tostring(have) then
    die(('Error from server (Conflict): Operation cannot be fulfilled on %s "%s": Precondition failed: UID in '
      .. "precondition: %s, UID in object meta: %s"):format(res, name, tostring(pre.uid), tostring(have)))
  end
  return { "delete", res, name }, rns, ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",'
    .. '"details":{"name":%s,"group":%s,"kind":%s,"uid":%s}}'):format(json.encode(name), json.encode(group or ""),
    json.encode(plural_name), json.encode(have))
end

-- A kubectl create -f whose answer is lost (FAKE_FAIL_ONCE=create_lost_KIND, KIND its first
-- document's kind in lower case: create_lost_persistentvolumeclaim, create_lost_service):
-- made and stored, then answered as etcd's timeout, which kubectl prints as the server's
-- error - as a write the API server made and whose answer timed out. A caller that sends it
-- again finds it there (AlreadyExists).
local function create_answer_lost(docs)
  local first = docs[1]
  if first and failing("create_lost_" .. tostring(first.doc.kind):lower()) then
    die(('Error from server: error when creating "%s": etcdserver: request timed out'):format(first.src))
  end
end

-- kubectl ------------------------------------------------------------------------------

local raw_answer
-- kubectl get's arguments as kubectl's flag parser reads them: flags anywhere, before the
-- type, between it and the name, after (`get svc -o json NAME`); returned in the order the
-- code here reads them - "get", the type, the name (TYPE/NAME of one type split into the
-- two), then every flag with its value beside it (a shorthand's value written on it, -ojson,
-- -lapp=x, split off).
local GET_VALUED = {}
for w in ([[-o --output -l --selector -L --label-columns -f --filename -k --kustomize --field-selector --sort-by
  --template --chunk-size --subresource --output-watch-events --context --cluster --user --kubeconfig -s --server
  --token --as --as-group --as-uid --request-timeout --cache-dir --certificate-authority --client-certificate
  --client-key --tls-server-name -v --v --vmodule --password --username --profile --profile-output]]):gmatch("%S+") do
  GET_VALUED[w] = true
end
local function get_args(a)
  local words, flags = {}, {}
  local i = 2
  while i <= #a do
    local x = a[i]
    local short, rest = x:match("^(%-[olLfkv])(.+)$")
    if short and GET_VALUED[short] then
      flags[#flags + 1] = short
      flags[#flags + 1] = (rest:gsub("^=", ""))
    elseif GET_VALUED[x] then
      flags[#flags + 1] = x
      flags[#flags + 1] = a[i + 1]
      i = i + 1
    elseif x:sub(1, 1) == "-" and x ~= "-" then
      flags[#flags + 1] = x
    else
      words[#words + 1] = x
    end
    i = i + 1
  end
  if #words == 1 and not words[1]:find(",", 1, true) then
    local kind, name = words[1]:match("^([^/]+)/(.+)$")
    if kind then words = { kind, name } end
  end
  local out = { a[1] }
  for _, w in ipairs(words) do out[#out + 1] = w end
  for _, f in ipairs(flags) do out[#out + 1] = f end
  return out
end

local function kubectl()
  local ns = ns_of(args)
  local a = strip_ns(args)
  local stdin
  if has(a, "-f") and opt(a, "-f") == "-" then stdin = io.read("a") end
  log_call(stdin)
  if a[1] == "version" then return kubectl_version(a) end
  if a[1] == "config" and a[2] == "current-context" then
    -- read from the kubeconfig: no API server involved
    local c = fake_context()
    if not c or c == "" then die("error: current-context is not set") end
    return print(c)
  end
  if a[1] == "config" and a[2] == "view" and has(a, "--minify") then
    -- kubectl config view --minify -o jsonpath=...: the current context's cluster, read
    -- from the kubeconfig (kubectl's own words when there is no current context); the
    -- server is FAKE_SERVER, else one of the context's own (another context, another server)
    local c = fake_context()
    if not c or c == "" then die("error: current-context must exist in order to minify") end
    local o = opt(a, "-o") or ""
    if o ~= "jsonpath={.clusters[0].cluster.server}" then die("fake kubectl: config view -o " .. o .. ": not faked") end
    local server = os.getenv("FAKE_SERVER")
    return io.write(server and server ~= "" and server or ("https://api." .. c .. ".example.com:6443"))
  end
  if a[1] == "kustomize" then return io.write(kustomize_render(a[2] or ".")) end
  if fails.transient then
    state.counters.transient = (state.counters.transient or 0) + 1
    if state.counters.transient <= 2 then
      die("Error from server (ServiceUnavailable): the server is currently unable to handle the request")
    end
  end
  if a[1] == "api-resources" then return api_resources(a) end
  if a[1] == "delete" and opt(a, "--raw") then
    -- (another object than a ConfigMap: held to its uid, then deleted by name below; what
    -- kubectl prints is the server's Status, not the by-name delete's line)
    local del, rns, status = raw_delete_object(a, stdin)
    if del then
      a, ns, raw_answer = del, rns, status
      rawset(_G, "print", function() end)
    end
  end
  local verb = a[1]
  local READS = { get = true, describe = true, logs = true, wait = true, top = true, diff = true, explain = true,
    ["api-resources"] = true }
  if not READS[verb] and missing_ns(ns) then die("Error from server (NotFound): " .. missing_ns(ns)) end
  if verb == "rollout" and a[2] == "status" then
    -- kubectl rollout status deployment/NAME (or deployment NAME): kubectl's
    -- DeploymentStatusViewer's words: done when every replica is updated and available;
    -- else its waiting line, then (the fake's pods do not change while it waits) --timeout's
    -- end: "error: timed out waiting for the condition" (exit 1)
    local kind, dn = (a[3] or ""):match("^([^/]+)/(.+)$")
    if not kind then kind, dn = a[3], a[4] and a[4]:sub(1, 1) ~= "-" and a[4] or nil end
    local DEP = { deployment = true, deployments = true, deploy = true, ["deployment.apps"] = true }
    if not (kind and DEP[kind:lower()] and dn) then
      die("fake kubectl: unsupported call (rollout status of a deployment only): " .. table.concat(args, " "), 2)
    end
    local s = space(ns)
    local d = (s.deployments or {})[dn]
    if not d then die(('Error from server (NotFound): deployments.apps "%s" not found'):format(dn)) end
    local avail = 0
    for _, p in pairs(s.pods) do
      if p.deploy == dn and p.ready then avail = avail + 1 end
    end
    if avail >= d.replicas then
      return print(('deployment "%s" successfully rolled out'):format(dn))
    end
    print(('Waiting for deployment "%s" rollout to finish: %d of %d updated replicas are available...')
      :format(dn, avail, d.replicas))
    die("error: timed out waiting for the condition")
  end
  if verb == "get" then
    a = get_args(a)
    local what = a[2]
    if not what and (opt(a, "-k") or opt(a, "--kustomize")) then what = "" end
    if not what then
      die("You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of "
        .. "supported resources.\n\nerror: Required resource not specified.\nUse \"kubectl explain <resource>\" for "
        .. "a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and "
        .. "examples")
    end
    local out_json = get_printer(a, what, ns) -- luacheck: ignore 431 (-o name: kubectl's name printer)
    local name = a[3] and a[3]:sub(1, 1) ~= "-" and a[3] or nil
    if what == "nodes" or what == "node" then
      local items = {}
      for _, n in ipairs(state.nodes) do items[#items + 1] = { metadata = { name = n.name, labels = n.labels } } end
      return out_json { items = json.array(items) }
    end
    local s = space(ns)
    local kdir = opt(a, "-k") or opt(a, "--kustomize")
    -- Deployments, their ReplicaSets, StatefulSets (none here): a list, or one by name
    -- (KIND NAME, KIND/NAME, KIND.GROUP/NAME)
    local wkind, wname = what:match("^([%w%.%-]+)/(.+)$")
    wkind = (wkind or what):lower()
    wname = wname or name
    local CONTROLLERS = { replicaset = "ReplicaSet", replicasets = "ReplicaSet", rs = "ReplicaSet",
      deployment = "Deployment", deployments = "Deployment", deploy = "Deployment", statefulset = "StatefulSet",
      statefulsets = "StatefulSet", sts = "StatefulSet" }
    local function kinds_of(w)
      local out = {}
      for k in w:gmatch("[^,]+") do
        local kk = CONTROLLERS[k] or CONTROLLERS[(k:gsub("%.apps$", ""))]
        if not kk then return nil end
        out[#out + 1] = kk
      end
      return #out > 0 and out or nil
    end
    local ks = kinds_of(wkind)
    if ks then
      local items = {}
      for _, kind in ipairs(ks) do
        for _, dn in ipairs(sorted_keys(s.deployments)) do
          local d = s.deployments[dn]
          local rel = d.owner:match("^helm:(.*)$")
          -- helm stamps the Deployment; its controller copies the annotations to the ReplicaSet
          local md = rel and helm_meta(dn, rel, ns) or { name = dn }
          md.uid = (meta_of(s, "Deployment", dn) or {}).uid or uid_of("Deployment/" .. dn)
          md.creationTimestamp = (meta_of(s, "Deployment", dn) or {}).created
          local o = { apiVersion = "apps/v1", kind = "Deployment", metadata = md, spec = { replicas = d.replicas } }
          if kind == "ReplicaSet" then
            local rn = rs_name(dn)
            local rmd = { name = rn, uid = d.rs_uid or uid_of("ReplicaSet/" .. rn), annotations = md.annotations,
              labels = { ["pod-template-hash"] = rn:sub(#dn + 2) },
              ownerReferences = { { apiVersion = "apps/v1", kind = "Deployment", name = dn, uid = md.uid,
                controller = true, blockOwnerDeletion = true } } }
            o = { apiVersion = "apps/v1", kind = "ReplicaSet", metadata = rmd, spec = { replicas = d.replicas } }
          end
          if kind ~= "StatefulSet" then
            if not wname or wname == o.metadata.name then items[#items + 1] = o end
          end
        end
        if kind == "StatefulSet" then
          -- a LeaderWorkerSet's: the leader StatefulSet (owned by the LWS) and one worker
          -- StatefulSet per group (owned by the group's leader pod)
          for _, l in ipairs(sorted_keys(s.lws)) do
            local x = s.lws[l]
            local list = { { name = l, n = x.replicas, ref = { apiVersion = LWS_API, kind = "LeaderWorkerSet", name = l,
              uid = uid_of("LeaderWorkerSet/" .. l), controller = true, blockOwnerDeletion = true } } }
            if x.size > 1 then
              for g = 0, x.replicas - 1 do
                list[#list + 1] = { name = l .. "-" .. g, n = x.size - 1, ref = { apiVersion = "v1", kind = "Pod",
                  name = l .. "-" .. g, uid = uid_of("Pod/" .. l .. "-" .. g), controller = true,
                  blockOwnerDeletion = true } }
              end
            end
            for _, st in ipairs(list) do
              if not wname or wname == st.name then
                items[#items + 1] = { apiVersion = "apps/v1", kind = "StatefulSet", metadata = { name = st.name,
                  uid = uid_of("StatefulSet/" .. st.name), labels = { ["leaderworkerset.sigs.k8s.io/name"] = l },
                  ownerReferences = { st.ref } }, spec = { replicas = st.n } }
              end
            end
          end
        end
      end
      if wname then
        if #items == 0 then
          -- (kubectl's --ignore-not-found: nothing printed, exit 0)
          if has(a, "--ignore-not-found") then return end
          die(('Error from server (NotFound): %ss.apps "%s" not found'):format(ks[1]:lower(), wname))
        end
        return out_json(items[1])
      end
      return out_json { apiVersion = "v1", kind = "List", items = json.array(items),
        metadata = { resourceVersion = "" } }
    end
    if kdir then
      -- kubectl get -k DIR: the objects the kustomization names, as they are in the
      -- namespace; one missing is NotFound unless --ignore-not-found; with it and none
      -- there, kubectl prints nothing (get.go: no infos, ignored errors)
      local found = {}
      for _, o in ipairs(kustomize_objects(kdir)) do
        local there = s.other[o.key] or (o.kind == "Service" and s.services[o.name])
          or (o.kind == "PersistentVolumeClaim" and s.pvcs[o.name])
        if there then
          -- (in the apiVersion the kustomization names it by, which kubectl asks the server for)
          found[#found + 1] = with_meta(s, o.kind, o.name, { apiVersion = o.api or api_of(o.kind) or "v1",
            kind = o.kind, metadata = { name = o.name, namespace = ns } })
        elseif not has(a, "--ignore-not-found") then
          die(('Error from server (NotFound): %ss "%s" not found'):format(o.kind:lower(), o.name))
        end
      end
      if #found == 0 then return end
      if #found == 1 then return out_json(found[1]) end
      return out_json { apiVersion = "v1", kind = "List", items = found, metadata = { resourceVersion = "" } }
    end
    if wkind:match("^leaderworkersets?$") or wkind:match("^leaderworkersets?%.leaderworkerset%.x%-k8s%.io$")
      or wkind == "lws" then
      -- kubectl get leaderworkerset[.leaderworkerset.x-k8s.io] [NAME]
      local items = {}
      for _, l in ipairs(sorted_keys(s.lws)) do
        local x = s.lws[l]
        local rel = x.owner:match("^helm:(.*)$")
        local md = rel and helm_meta(l, rel, ns) or { name = l }
        md.uid = uid_of("LeaderWorkerSet/" .. l)
        if not wname or wname == l then
          items[#items + 1] = { apiVersion = LWS_API, kind = "LeaderWorkerSet", metadata = md,
            spec = { replicas = x.replicas, leaderWorkerTemplate = { size = x.size } } }
        end
      end
      if wname then
        if #items == 0 then
          die(('Error from server (NotFound): leaderworkersets.leaderworkerset.x-k8s.io "%s" not found'):format(wname))
        end
        return out_json(items[1])
      end
      return out_json { apiVersion = "v1", kind = "List", items = json.array(items), metadata = { resourceVersion = "" } }
    end
    if what == "pods" or what == "pod" or what == "po" then
      local sel = opt(a, "-l") or opt(a, "--selector")
      local items = {}
      for _, n in ipairs(sorted_keys(s.pods)) do
        if match_labels(s.pods[n].labels, sel) and (not name or name == n) then items[#items + 1] = pod_json(n, s.pods[n]) end
      end
      if name and #items == 0 then die(('Error from server (NotFound): pods "%s" not found'):format(name)) end
      return out_json(name and items[1] or { items = json.array(items) })
    elseif what == "svc" or what == "service" or what == "services" then
      if name then
        local svc = s.services[name]
        if not svc then die(('Error from server (NotFound): services "%s" not found'):format(name)) end
        return out_json(with_meta(s, "Service", name, svc_json(name, svc, ns)))
      end
      local items = {}
      for _, n in ipairs(sorted_keys(s.services)) do
        items[#items + 1] = with_meta(s, "Service", n, svc_json(n, s.services[n], ns))
      end
      return out_json { items = json.array(items) }
    elseif wkind:match("^configmaps?$") or wkind == "cm" or wkind:match("^secrets?$") then
      -- kubectl get configmap|secret [NAME]: the objects as stored
      local map = (wkind:match("^secret") and s.secrets or s.configmaps) or {}
      local plural_name = wkind:match("^secret") and "secrets" or "configmaps"
      if wname then
        if not map[wname] then die(('Error from server (NotFound): %s "%s" not found'):format(plural_name, wname)) end
        return out_json(map[wname])
      end
      local items = {}
      for _, n in ipairs(sorted_keys(map)) do items[#items + 1] = map[n] end
      return out_json { apiVersion = "v1", kind = "List", items = json.array(items), metadata = { resourceVersion = "" } }
    elseif what == "endpoints" then
      local svc = s.services[name]
      if not svc then die(('Error from server (NotFound): endpoints "%s" not found'):format(name)) end
      local addrs = {}
      for _, n in ipairs(sorted_keys(s.pods)) do
        local p = s.pods[n]
        local ok = p.ready
        for k, v in pairs(svc.selector or {}) do if (p.labels or {})[k] ~= v then ok = false end end
        if ok then addrs[#addrs + 1] = { ip = "10.0.0." .. #addrs + 1, targetRef = { name = n } } end
      end
      return out_json { metadata = { name = name }, subsets = #addrs > 0 and { { addresses = addrs } } or json.array {} }
    elseif what == "pvc" or what == "persistentvolumeclaims" or what == "persistentvolumeclaim" then
      local items = {}
      for _, n in ipairs(sorted_keys(s.pvcs)) do
        items[#items + 1] = with_meta(s, "PersistentVolumeClaim", n, { metadata = { name = n, labels = s.pvcs[n].labels },
          spec = { accessModes = { s.pvcs[n].access }, resources = { requests = { storage = s.pvcs[n].size } } },
          status = { phase = s.pvcs[n].phase or "Bound" } })
        if name and n == name then return out_json(items[#items]) end
      end
      if name then
        if has(a, "--ignore-not-found") then return end
        die(('Error from server (NotFound): persistentvolumeclaims "%s" not found'):format(name))
      end
      return out_json { items = json.array(items) }
    else
      -- httproute,gateway,inferencepool in any combination; one by name of a kind this
      -- fake keeps none of (a LeaderWorkerSet ...): not found
      -- Istio's Gateways: gw, gateways.networking.istio.io (as the word resolves), in the
      -- version the API server prefers (v1), whatever version they were applied in
      local function istio_gw(n)
        local o = with_meta(s, ISTIO_GW, n, { kind = "Gateway", metadata = { name = n, namespace = ns } })
        o.apiVersion = "networking.istio.io/v1"
        return o
      end
      local wr = resolve_resource(wkind)
      if wname and wr and wr.group == "networking.istio.io" and wr.kind == "Gateway" then
        if s.other[ISTIO_GW .. "/" .. wname] ~= nil then return out_json(istio_gw(wname)) end
        if has(a, "--ignore-not-found") then return end
        die(('Error from server (NotFound): gateways.networking.istio.io "%s" not found'):format(wname))
      end
      if wname then
        -- one of the other kinds the fake keeps (s.other["Kind/name"], a kustomization's Role):
        -- kubectl get KIND NAME, by the kind's base name as delete finds it
        local base = wkind:match("^[^.]+")
        for kk in pairs(s.other) do
          local kind, nm = kk:match("^([^/]+)/(.+)$")
          if nm == wname and (kind:lower() == base or kind:lower() .. "s" == base) then
            return out_json(with_meta(s, kind, nm, { apiVersion = api_of(kind) or "v1", kind = kind,
              metadata = { name = nm, namespace = ns } }))
          end
        end
        if has(a, "--ignore-not-found") then return end
        -- (the API server names the resource, plural and group: roles.rbac.authorization.k8s.io)
        die(('Error from server (NotFound): %s "%s" not found'):format(wr and wr.resource or wkind, wname))
      end
      local items = {}
      for kind in what:gmatch("[^,]+") do
        -- (Gateway API's kinds as kubectl resolves the word; Istio's Gateways where the word
        -- is theirs)
        local r = resolve_resource(kind)
        if r and r.group == "networking.istio.io" and r.kind == "Gateway" then
          local names = {}
          for kk in pairs(s.other) do
            local nm = kk:sub(1, #ISTIO_GW + 1) == ISTIO_GW .. "/" and kk:sub(#ISTIO_GW + 2)
            if nm then names[#names + 1] = nm end
          end
          table.sort(names)
          for _, n in ipairs(names) do items[#items + 1] = istio_gw(n) end
        end
        local gw_api = r and r.group == "gateway.networking.k8s.io"
        local map = (gw_api and r.kind == "HTTPRoute" and s.httproutes)
          or (gw_api and r.kind == "Gateway" and s.gateways)
          or (r and r.kind == "InferencePool" and s.inferencepools) or {}
        for _, n in ipairs(sorted_keys(map)) do
          -- (a pool only in the group the word resolves to: its apiVersion's)
          local o = map[n]
          local group = r and r.kind == "InferencePool" and tostring(o.apiVersion or ""):match("^(.+)/[^/]+$")
          if not group or group == r.group then items[#items + 1] = o end
        end
      end
      return out_json { items = json.array(items) }
    end
  elseif verb == "apply" or verb == "create" then
    local s = space(ns)
    local k = opt(a, "-k")
    local files = {}
    for i, x in ipairs(a) do
      if x == "-f" or x == "--filename" then files[#files + 1] = a[i + 1] end
      local v = x:match("^%-%-filename=(.*)$") or x:match("^%-f=(.*)$")
      if v then files[#files + 1] = v end
    end
    if k or #files > 0 then
      if k and failing("deploy") then die("error: unable to apply " .. k .. ": admission webhook denied the request") end
      -- the documents: a kustomization's render, stdin (-f -), files, a folder's files
      local docs = {}
      local function add_text(text, src)
        for _, d in ipairs(yaml.load_all(text)) do
          if type(d) == "table" and d.kind then docs[#docs + 1] = { doc = d, src = src } end
        end
      end
      if k then add_text(kustomize_render(k), k) end
      for _, f in ipairs(files) do
        if f == "-" then
          add_text(stdin or "", "STDIN")
        elseif lfs.attributes(f, "mode") == "directory" then
          local names = {}
          for n in lfs.dir(f) do if n:match("%.ya?ml$") or n:match("%.json$") then names[#names + 1] = n end end
          table.sort(names)
          for _, n in ipairs(names) do add_text(read_file(f .. "/" .. n), f .. "/" .. n) end
        elseif lfs.attributes(f, "mode") == "file" then
          add_text(read_file(f), f)
        else
          die(('error: the path "%s" does not exist'):format(f))
        end
      end
      local lines, errs, outcomes = apply_docs(s, ns, docs, verb, a, k and ("kustomize:" .. k) or "kubectl")
      if k and not dry_of(a) then s.kustomize[k] = true end
      save(verb == "create" and create_guard(ns, outcomes) or nil)
      if verb == "create" and #errs == 0 and not dry_of(a) then create_answer_lost(docs) end
      local o = opt(a, "-o") or opt(a, "--output")
      if verb == "create" and o == "json" and #errs == 0 then
        -- kubectl create -o json: the server's answer printed - the object as made, with the
        -- namespace, uid, resourceVersion and creationTimestamp the API server set (several: a
        -- List of them, kubectl's printer wraps them so); a client dry run's is the one sent
        local out = {}
        for _, it in ipairs(docs) do
          local d = json.decode(json.encode(it.doc))
          d.metadata = type(d.metadata) == "table" and d.metadata or {}
          d.metadata.namespace = d.metadata.namespace or ns
          if not dry_of(a) then
            with_meta(s, d.kind, tostring(d.metadata.name), d)
            d.metadata.resourceVersion = d.metadata.resourceVersion or tostring(100 + #out)
            d.metadata.creationTimestamp = d.metadata.creationTimestamp or (api_clock())
          end
          out[#out + 1] = d
        end
        return out_json(#out == 1 and out[1] or { apiVersion = "v1", kind = "List", items = json.array(out),
          metadata = { resourceVersion = "" } })
      end
      if #lines > 0 then print(table.concat(lines, "\n")) end
      if #errs > 0 then die(table.concat(errs, "\n")) end
      return
    end
    if verb == "create" and a[2] == "deployment" and a[3] then
      -- kubectl create deployment NAME --image=IMAGE [--replicas=N]: AlreadyExists when one is
      -- there. --dry-run=client asks nothing of the server and makes nothing; =server is
      -- checked by the server (AlreadyExists too) and stores nothing. -o yaml|json prints the
      -- object, -o name its reference, else "deployment.apps/NAME created" and the dry
      -- run's suffix.
      local dry = dry_of(a, true)
      local image = opt(a, "--image")
      if not image then die("error: required flag(s) \"image\" not set") end
      local fmt = create_output(a)
      if dry ~= "client" and s.deployments[a[3]] then
        die(('error: failed to create deployment: deployments.apps "%s" already exists'):format(a[3]))
      end
      local replicas = tonumber(opt(a, "--replicas") or "1") or 1
      if not dry then
        local labels = { app = a[3] } -- (what kubectl create deployment sets; it has no --labels)
        meta_made(s, { kind = "Deployment", apiVersion = "apps/v1", metadata = { name = a[3] } })
        deployment(s, a[3], "kubectl", replicas, { labels = labels,
          containers = { { name = "vllm", image = image, restarts = 0 } } })
        -- (checked again at the write: another call may have made it since this one read)
        save(function(disk)
          if ((disk.ns[ns] or {}).deployments or {})[a[3]] then
            return ('error: failed to create deployment: deployments.apps "%s" already exists'):format(a[3])
          end
        end)
      end
      if fmt == "yaml" or fmt == "json" then
        return io.write(created_deployment_text(a[3], ns, image, math.tointeger(replicas) or replicas,
          opt(a, "--port"), fmt))
      end
      if fmt == "name" then return print("deployment.apps/" .. a[3]) end
      return print("deployment.apps/" .. a[3] .. " created" .. (dry == "server" and " (server dry run)"
        or dry and " (dry run)" or ""))
    end
    if verb == "create" and a[2] and a[2]:sub(1, 1) ~= "-" then return create_named(s, ns, a) end
    -- (kubectl apply or create with neither -f nor -k, nor a create subcommand)
    die("error: must specify one of -f and -k")
  elseif verb == "replace" then
    -- kubectl replace -f - of one ConfigMap (llmdlua's namespace lock taken over): stored as
    -- sent in place of the one there, a new resourceVersion given; a resourceVersion in what
    -- is sent is the API server's precondition, checked at the write: not the object's own
    -- then is a Conflict, none there a NotFound, in kubectl's words (the source "STDIN"),
    -- exit 1. Prints "configmap/NAME replaced". The object keeps its uid.
    local s = space(ns)
    local docs = {}
    if opt(a, "-f") == "-" then
      for _, d in ipairs(yaml.load_all(stdin or "")) do if type(d) == "table" and d.kind then docs[#docs + 1] = d end end
    end
    if #docs ~= 1 or docs[1].kind ~= "ConfigMap" then
      die("fake kubectl: unsupported call (replace -f - of one ConfigMap only): " .. table.concat(args, " "), 2)
    end
    local d = docs[1]
    if type(d.metadata) ~= "table" then d.metadata = {} end
    local name, want = tostring(d.metadata.name), d.metadata.resourceVersion
    d.metadata.resourceVersion = nil
    store_object(s, ns, d, "kubectl")
    save(function(disk)
      local cur = ((disk.ns[ns] or {}).configmaps or {})[name]
      if not cur then
        return ('Error from server (NotFound): error when replacing "STDIN": configmaps "%s" not found'):format(name)
      end
      if want ~= nil and tostring(want) ~= tostring((cur.metadata or {}).resourceVersion) then
        return ('Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on '
          .. 'configmaps "%s": the object has been modified; please apply your changes to the latest version and '
          .. 'try again'):format(name)
      end
      -- (the same object, written again: its uid stays)
      d.metadata.uid = (cur.metadata or {}).uid
    end)
    return print("configmap/" .. name .. " replaced")
  elseif verb == "delete" and opt(a, "--raw") then
    -- kubectl delete --raw /api/v1/namespaces/NS/configmaps/NAME [-f -] (llmdlua letting go
    -- of its namespace lock): a DELETE of that path, the body (stdin) DeleteOptions; its
    -- preconditions (uid, resourceVersion) are checked by the API server at the write, uid
    -- first: another's is a Conflict in the storage layer's words, none there a NotFound
    -- (kubectl: "Error from server (...): " and the server's message, exit 1). kubectl
    -- prints the server's answer as it came: a Status (one line of JSON). -n plays no part.
    local raw = opt(a, "--raw")
    local rns, name = raw:match("^/api/v1/namespaces/([^/]+)/configmaps/([^/?]+)$")
    local from = opt(a, "-f") or opt(a, "--filename")
    if not rns or (from and from ~= "-") then
      die("fake kubectl: unsupported call (delete --raw of one ConfigMap, body from stdin): " .. table.concat(args, " "),
        2)
    end
    local body = {}
    if from == "-" and (stdin or ""):match("%S") then
      local ok, d = pcall(json.decode, stdin)
      if not ok or type(d) ~= "table" then
        die(("Error from server (BadRequest): the body of the request was in an unknown format - accepted media types "
          .. "include: application/json, application/yaml, application/vnd.kubernetes.protobuf"))
      end
      body = d
    end
    local pre = type(body.preconditions) == "table" and body.preconditions or {}
    local uid
    -- (on the state as it is at the write, under its lock: nothing else of this call's is written)
    save(function(disk)
      local ds = disk.ns[rns]
      local cur = ds and (ds.configmaps or {})[name]
      if not cur then return ('Error from server (NotFound): configmaps "%s" not found'):format(name) end
      local md = type(cur.metadata) == "table" and cur.metadata or {}
      local function conflict(what, want, have)
        return ('Error from server (Conflict): Operation cannot be fulfilled on configmaps "%s": StorageError: invalid '
          .. "object, Code: 4, Key: /registry/configmaps/%s/%s, ResourceVersion: 0, AdditionalErrorMsg: Precondition "
          .. "failed: %s in precondition: %s, %s in object meta: %s"):format(name, rns, name, what, tostring(want), what,
          tostring(have or ""))
      end
      if pre.uid ~= nil and tostring(pre.uid) ~= tostring(md.uid or "") then return conflict("UID", pre.uid, md.uid) end
      if pre.resourceVersion ~= nil and tostring(pre.resourceVersion) ~= tostring(md.resourceVersion or "") then
        return conflict("ResourceVersion", pre.resourceVersion, md.resourceVersion)
      end
      uid = md.uid
      ds.configmaps[name] = nil
      if ds.other then ds.other["ConfigMap/" .. name] = nil end
    end)
    return print(('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":%s,'
      .. '"kind":"configmaps","uid":%s}}'):format(json.encode(name), json.encode(uid or "")))
  elseif verb == "delete" then
    local s = space(ns)
    local k = opt(a, "-k")
    if k then
      remove_deployments(s, "kustomize:" .. k)
      -- every object the kustomization names, by name, whoever made it
      for _, o in ipairs(kustomize_objects(k)) do s.other[o.key] = nil end
      s.kustomize[k] = nil
      save()
      return print("deleted " .. k)
    end
    local what = a[2]
    -- a resource as kubectl takes it: kind, plural or short name, with or without the group
    -- (deployment.apps, deployments); TYPE/NAME as one word too
    local wtype, wslash = (what or ""):match("^([^/]+)/(.+)$")
    if wtype then
      what = wtype
      table.insert(a, 3, wslash)
    end
    local base = (what or ""):match("^([^.]+)") or ""
    local ALIAS = { deployments = "deployment", deploy = "deployment", svc = "service", services = "service",
      leaderworkersets = "leaderworkerset", lws = "leaderworkerset", pods = "pod", httproutes = "httproute",
      gateways = "gateway" }
    base = ALIAS[base] or base
    -- (an HTTPRoute or Gateway word as kubectl resolves it: Gateway API's, or Istio's Gateway,
    -- whose objects are Istio's only: kubectl delete gw NAME, --all)
    local gwr = (base == "httproute" or base == "gateway" or base == "gtw" or base == "gw") and resolve_resource(what)
    if gwr and gwr.group ~= "gateway.networking.k8s.io" then
      local names = {}
      for j = 3, #a do if a[j]:sub(1, 1) ~= "-" then names[#names + 1] = a[j] end end
      if gwr.group == "networking.istio.io" and gwr.kind == "Gateway" and has(a, "--all") then
        names = {}
        for kk in pairs(s.other) do
          local nm = kk:sub(1, #ISTIO_GW + 1) == ISTIO_GW .. "/" and kk:sub(#ISTIO_GW + 2)
          if nm then names[#names + 1] = nm end
        end
        table.sort(names)
      end
      for _, n in ipairs(names) do
        local key = ISTIO_GW .. "/" .. n
        if gwr.group == "networking.istio.io" and gwr.kind == "Gateway" and s.other[key] ~= nil then
          s.other[key] = nil
          print(('gateway.networking.istio.io "%s" deleted'):format(n))
        elseif not has(a, "--ignore-not-found") then
          save()
          die(('Error from server (NotFound): %s "%s" not found'):format(gwr.resource, n))
        end
      end
      save()
      return
    end
    if gwr then base = gwr.kind:lower() end
    if base == "deployment" or base == "service" or base == "httproute" or base == "gateway" or base == "pod" then
      what = base
    end
    if base == "leaderworkerset" then
      for j = 3, #a do
        local n = a[j]
        if n:sub(1, 1) ~= "-" then
          if (s.lws or {})[n] then
            remove_lws(s, function(l) return l == n end)
            s.other["LeaderWorkerSet/" .. n] = nil
            print('leaderworkerset.leaderworkerset.x-k8s.io "' .. n .. '" deleted')
          elseif not has(a, "--ignore-not-found") then
            die(('Error from server (NotFound): leaderworkersets.leaderworkerset.x-k8s.io "%s" not found'):format(n))
          end
        end
      end
      save()
      return
    end
    if what == "deployment" then
      for j = 3, #a do
        local n = a[j]
        if n:sub(1, 1) ~= "-" then
          if s.deployments[n] then
            s.deployments[n] = nil
            s.other["Deployment/" .. n] = nil
            for pn, p in pairs(s.pods) do if p.deploy == n then s.pods[pn] = nil end end
            print('deployment.apps "' .. n .. '" deleted')
          elseif not has(a, "--ignore-not-found") then
            die(('Error from server (NotFound): deployments.apps "%s" not found'):format(n))
          end
        end
      end
      save()
      return
    end
    if what == "httproute" or what == "gateway" then
      -- kubectl delete KIND NAME... (those, NotFound unless --ignore-not-found) or --all
      local map = what == "httproute" and s.httproutes or s.gateways
      local names = {}
      for j = 3, #a do if a[j]:sub(1, 1) ~= "-" then names[#names + 1] = a[j] end end
      if has(a, "--all") then names = sorted_keys(map) end
      for _, n in ipairs(names) do
        if map[n] then
          map[n] = nil
          -- (gone from the API server: applied again, it is created anew)
          s.other[(what == "httproute" and "HTTPRoute" or "Gateway") .. "/" .. n] = nil
          print(what .. ".gateway.networking.k8s.io \"" .. n .. "\" deleted")
          if what == "gateway" then
            for _, sv in ipairs(sorted_keys(s.services)) do
              if s.services[sv].owner == "gateway:" .. n then s.services[sv] = nil end
            end
          end
        elseif not has(a, "--ignore-not-found") then
          die(('Error from server (NotFound): %ss.gateway.networking.k8s.io "%s" not found'):format(what, n))
        end
      end
      save()
      return
    end
    if what == "service" or what == "svc" then
      local n = a[3]
      if s.services[n] then
        s.services[n] = nil
        s.other["Service/" .. n] = nil
        print('service "' .. n .. '" deleted')
      elseif not has(a, "--ignore-not-found") then
        die(('Error from server (NotFound): services "%s" not found'):format(n))
      end
      save()
      return
    end
    if what == "pod" or what == "pods" then
      -- kubectl delete pod NAME... or -l SELECTOR
      local sel = opt(a, "-l") or opt(a, "--selector")
      local names = {}
      local j = 3
      while j <= #a do
        if a[j] == "-l" then j = j + 1 elseif a[j]:sub(1, 1) ~= "-" then names[a[j]] = true end
        j = j + 1
      end
      for n in pairs(names) do
        if not s.pods[n] and not has(a, "--ignore-not-found") then
          die(('Error from server (NotFound): pods "%s" not found'):format(n))
        end
      end
      for _, n in ipairs(sorted_keys(s.pods)) do
        if (next(names) and names[n]) or (not next(names) and sel and match_labels(s.pods[n].labels, sel)) then
          -- its ReplicaSet starts a new pod in its place, under a new name; a StatefulSet
          -- (a LeaderWorkerSet's) under the same name; a bare pod is gone
          local p = s.pods[n]
          local dn = p.deploy
          s.pods[n] = nil
          if dn and (s.deployments or {})[dn] then start_pod(s, dn) end
          if p.lws and (s.lws or {})[p.lws] then lws_pod(s, p.lws, p.group, p.worker) end
          print('pod "' .. n .. '" deleted')
        end
      end
      save()
      return
    end
    -- any other kind the fake keeps as s.other["Kind/name"]: by its resource's base name
    local names = {}
    for j = 3, #a do if a[j]:sub(1, 1) ~= "-" then names[#names + 1] = a[j] end end
    if #names == 0 then
      save()
      die("fake kubectl: unsupported call: " .. table.concat(args, " "), 2)
    end
    for _, n in ipairs(names) do
      local key
      for kk in pairs(s.other) do
        local kind, nm = kk:match("^([^/]+)/(.+)$")
        if nm == n and (kind:lower() == base or kind:lower() .. "s" == base) then key = kk end
      end
      if key then
        s.other[key] = nil
        if key:match("^PersistentVolumeClaim/") then s.pvcs[n] = nil end
        if key:match("^ConfigMap/") then s.configmaps[n] = nil end
        if key:match("^Secret/") and s.secrets then s.secrets[n] = nil end
        print(('%s "%s" deleted'):format(what, n))
      elseif not has(a, "--ignore-not-found") then
        die(('Error from server (NotFound): %s "%s" not found'):format(plural(what), n))
      end
    end
    save()
    return
  elseif verb == "logs" then
    local s = space(ns)
    local pod = a[2]
    if failing("nologs") then
      -- the API server names the container asked for (kubectl logs -c NAME), else the pod's first
      local want = opt(a, "-c") or opt(a, "--container")
      if not want then
        local first = s.pods[pod] and (s.pods[pod].containers or {})[1]
        want = type(first) == "table" and first.name or first or "vllm"
      end
      die(('Error from server (BadRequest): container "%s" in pod "%s" is waiting to start'):format(want, pod))
    end
    if not s.pods[pod] then die(('Error from server (NotFound): pods "%s" not found'):format(pod)) end
    local cname = opt(a, "-c") or opt(a, "--container")
    local c
    for _, list in ipairs { s.pods[pod].containers, s.pods[pod].init or {} } do
      for _, x in ipairs(list) do if x.name == cname then c = x end end
    end
    if not c then
      -- kubectl's words for a container the pod does not have
      die(("error: container %s is not valid for pod %s"):format(tostring(cname), pod))
    end
    local prev = has(a, "--previous") or has(a, "-p")
    if prev and c.restarts == 0 then
      die(('Error from server (BadRequest): previous terminated container "%s" in pod "%s" not found'):format(c.name,
        pod))
    end
    if c.name == "routing-proxy" then
      return print(("2026-02-16T09:19:00.000000000Z I0216 routing proxy for %s listening on :8000"):format(pod))
    end
    if prev then
      return print(("2026-02-16T09:10:00.000000000Z INFO %s starting vLLM\n2026-02-16T09:11:00.000000000Z ERROR CUDA out of memory"):format(pod))
    end
    return print(("2026-02-16T09:19:00.000000000Z INFO %s starting vLLM\n2026-02-16T09:19:30.000000000Z INFO GPU KV cache size: 1,234,567 tokens\n2026-02-16T09:19:31.000000000Z INFO Application startup complete."):format(pod))
  elseif verb == "exec" then
    local s = space(ns)
    local pod = a[2]
    if not s.pods[pod] then die(('Error from server (NotFound): pods "%s" not found'):format(pod)) end
    if s.pods[pod].phase == "Succeeded" or s.pods[pod].phase == "Failed" then
      die("error: cannot exec into a container in a completed pod; current phase is " .. s.pods[pod].phase)
    end
    local rest = {}
    local after = false
    for _, x in ipairs(a) do
      if after then rest[#rest + 1] = x end
      if x == "--" then after = true end
    end
    if rest[1] == "ls" then
      local pvc = s.pods[pod].pvc
      local root = DIR .. "/pvc/" .. ns .. "/" .. tostring(pvc)
      for _, n in ipairs((function()
        local t = {}
        if lfs.attributes(root, "mode") == "directory" then
          for x in lfs.dir(root) do if x ~= "." and x ~= ".." then t[#t + 1] = x end end
        end
        table.sort(t)
        return t
      end)()) do print(n) end
      return
    end
    return
  elseif verb == "cp" then
    local s = space(ns)
    local src, dst = a[2], a[3]
    local pod, path = src:match("^([^:]+):(.*)$")
    if not pod or not s.pods[pod] then die("error: cannot copy from " .. tostring(src)) end
    if s.pods[pod].phase == "Succeeded" or s.pods[pod].phase == "Failed" then
      -- kubectl cp runs tar through exec
      die("error: cannot exec into a container in a completed pod; current phase is " .. s.pods[pod].phase)
    end
    local rel = path:match("^/requests/(.*)$")
    local from = DIR .. "/pvc/" .. ns .. "/" .. tostring(s.pods[pod].pvc) .. "/" .. tostring(rel)
    if lfs.attributes(from, "mode") ~= "directory" then die("error: " .. path .. ": No such file or directory") end
    proc.run { "mkdir", "-p", dst }
    local r = proc.run { "cp", "-a", from .. "/.", dst }
    if not r.ok then die(r.stderr) end
    return
  elseif verb == "port-forward" then
    -- serves a small OpenAI-compatible API on the local port
    if failing("portforward") then
      die("The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?")
    end
    local s = space(ns)
    local res, ports = a[2], a[3]
    local lport, rport = ports:match("^(%d+):(%d+)$")
    local mode = failing("smoke") and "fail" or "ok"
    local sname = res:match("^svc/(.*)$") or res:match("^service/(.*)$")
    if sname then
      local svc = s.services[sname]
      if not svc then die(('Error from server (NotFound): services "%s" not found'):format(sname)) end
      local found
      for _, p in ipairs(svc.ports or {}) do if tostring(p.port) == rport then found = p end end
      if not found then die(("error: Service %s does not have a service port %s"):format(sname, rport)) end
      -- Istio's status port answers /healthz/ready only: everything else is a 404
      if found.name == "status-port" then mode = "status" end
    end
    save()
    local here = arg[0]:match("^(.*)/[^/]*$")
    local py = proc.which("python3") and "python3" or "/usr/bin/python3"
    local r = proc.run({ py, here .. "/mockvllm.py", lport, mode, rport },
      { stdout = "inherit", stderr = "inherit" })
    os.exit(r.code or 1)
  end
  save()
  die("fake kubectl: unsupported call: " .. table.concat(args, " "), 2)
end

-- helm -------------------------------------------------------------------------------------


-- A release installed or upgraded: helm's record of it (the chart's name-version from its
-- Chart.yaml, as `helm list` shows it; the revision counts up with every upgrade).
local function make_release(s, name, chart, gateway, dir)
  local old = s.releases[name]
  local meta = dir and yaml.load(read_file(dir .. "/Chart.yaml") or "") or {}
  -- (when: helm's release info first_deployed - kept by an upgrade - and last_deployed,
  -- RFC 3339 with nanoseconds as Go's encoder writes a time.Time: the clock's own)
  local sec, ns = api_clock()
  local frac = ("%09d"):format(ns):gsub("0+$", "") -- (Go's RFC3339Nano drops trailing zeros)
  local now = sec:sub(1, 19) .. (frac ~= "" and ("." .. frac) or "") .. "Z"
  local r = { chart = chart, status = "deployed", revision = (old and old.revision or 0) + 1,
    chart_ref = meta.name and (("%s-%s"):format(meta.name, tostring(meta.version or ""))) or nil,
    app_version = meta.appVersion, first_deployed = old and old.first_deployed or now, last_deployed = now }
  s.releases[name] = r
  if chart:match("router") or name:match("gaie") or name:match("epp") then
    if not s.deployments[name .. "-epp"] then
      deployment(s, name .. "-epp", "helm:" .. name, 1, { labels = { app = name .. "-epp" },
        containers = { { name = "vllm", image = "ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0", restarts = 0 } } })
    end
    -- (the inferencepool chart's: spec.selector.matchLabels is the values'
    -- inferencePool.modelServers.matchLabels - llm-d's guides give the serving label and
    -- the model's, nothing of the release; templates/inferencepool.yaml here)
    local labels = { ["llm-d.ai/inference-serving"] = "true", ["llm-d.ai/model"] = "qwen-qwen3-0-6b" }
    s.inferencepools[name] = { kind = "InferencePool", apiVersion = "inference.networking.k8s.io/v1",
      metadata = helm_meta(name, name, ns_of(args)), spec = { targetPorts = { { number = 8000 } },
        selector = { matchLabels = labels }, endpointPickerRef = { name = name .. "-epp", port = { number = 9002 } } },
      status = { parents = { { conditions = { { type = "Accepted", status = "True" } } } } } }
    if os.getenv("FAKE_POOL_GROUP") == "x-k8s" then
      -- (an older GAIE inferencepool chart's: v1alpha2, its selector the labels themselves)
      local p = s.inferencepools[name]
      p.apiVersion = "inference.networking.x-k8s.io/v1alpha2"
      p.spec = { targetPortNumber = 8000, selector = labels, extensionRef = { name = name .. "-epp" } }
    end
  end
  if chart:match("router") or name:match("gaie") or name:match("epp") then
    s.services[name .. "-epp"] = { selector = { app = name .. "-epp" }, ports = { { port = 9002 } }, owner = "helm:" .. name }
  end
  if gateway or name:match("infra") then
    -- Istio's automated deployment: Service <gateway>-istio, the status port first, then
    -- one port per listener named after it (llm-d's infra chart: listener "default", HTTP)
    -- (made by Istio's controller for the Gateway, not by helm: owned by the Gateway, and
    -- deleted with it)
    -- (llm-d-infra's Gateway is <release>-inference-gateway: its gateway.yaml template)
    local gw = name .. "-inference-gateway"
    s.services[gw .. "-istio"] = { selector = { ["gateway.networking.k8s.io/gateway-name"] =
      gw }, ports = { { name = "status-port", port = 15021, protocol = "TCP",
      appProtocol = "tcp", targetPort = 15021 }, { name = "default", port = 80, protocol = "TCP", appProtocol = "http",
      targetPort = 80 } }, owner = "gateway:" .. gw }
    s.gateways[gw] = { kind = "Gateway", metadata = helm_meta(gw, name, ns_of(args)),
      status = { conditions = { { type = "Programmed", status = "True" } } } }
    s.httproutes[name] = { kind = "HTTPRoute", metadata = helm_meta(name, name, ns_of(args)),
      status = { parents = { { conditions = { { type = "Accepted", status = "True" } } } } } }
  end
  if name:match("ms") or chart:match("modelservice") then
    if not (s.deployments or {})[name .. "-decode"] then vllm_pods(s, name, "helm:" .. name, 2) end
  end
end

-- charts ------------------------------------------------------------------------------------

local HERE = arg[0]:match("^(.*)/[^/]*$") or "."

-- helm's install order (pkg/releaseutil/kind_sorter.go): `helm template` prints, and
-- install creates, the manifests sorted by kind in this order, unknown kinds last
local INSTALL_ORDER = {}
for i, k in ipairs { "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
  "PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
  "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList",
  "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
  "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment", "HorizontalPodAutoscaler",
  "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService" } do INSTALL_ORDER[k] = i end

-- the fake's view of which kinds are cluster-scoped (the API server's, for what it records)
local CLUSTER_SCOPED = {}
for _, k in ipairs { "Namespace", "Node", "ClusterRole", "ClusterRoleBinding", "StorageClass",
  "CustomResourceDefinition", "PersistentVolume", "PriorityClass", "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration", "GatewayClass", "IngressClass", "APIService" } do CLUSTER_SCOPED[k] = true end

local function dir_files(dir)
  local out = {}
  if lfs.attributes(dir, "mode") ~= "directory" then return out end
  for n in lfs.dir(dir) do
    if (n:match("%.ya?ml$") or n:match("%.json$")) and not n:match("^_") then out[#out + 1] = n end
  end
  table.sort(out)
  return out
end

-- The chart folder a reference names, or nil and helm's error for it.
local function find_chart(ref, version)
  if ref:match("^%.") or ref:match("^/") or lfs.attributes(ref, "mode") == "directory" then
    if lfs.attributes(ref .. "/Chart.yaml", "mode") ~= "file" then
      return nil, ('path "%s" not found'):format(ref)
    end
    return ref
  end
  local name = ref:match("([^/]+)$")
  local roots = {}
  if os.getenv("FAKE_CHARTS") and os.getenv("FAKE_CHARTS") ~= "" then roots[#roots + 1] = os.getenv("FAKE_CHARTS") end
  roots[#roots + 1] = HERE .. "/charts"
  for _, root in ipairs(roots) do
    if lfs.attributes(root .. "/" .. name .. "/Chart.yaml", "mode") == "file" then return root .. "/" .. name end
  end
  if ref:match("^oci://") then
    return nil, ('failed to perform "FetchReference" on source: %s:%s: not found'):format(ref:sub(7), version or "latest")
  end
  local repo = ref:match("^([^/]+)/")
  if repo then return nil, ("repo %s not found"):format(repo) end
  return nil, ("non-absolute URLs should be in form of repo_name/path_to_chart, got: %s"):format(ref)
end

-- helm template's rendering of a chart: the manifests in install order, each one
-- "---\n# Source: CHART/templates/FILE\n..." (crds/ first, as they are, with crds);
-- nil and helm's error text when a template fails.
local function render_chart(dir, release, ns, crds)
  local chart = (yaml.load(read_file(dir .. "/Chart.yaml") or "") or {}).name or dir:match("([^/]+)$")
  local out = {}
  if crds then
    for _, n in ipairs(dir_files(dir .. "/crds")) do
      out[#out + 1] = ("---\n# Source: %s/crds/%s\n%s"):format(chart, n, (read_file(dir .. "/crds/" .. n):gsub("\n*$", "\n")))
    end
  end
  local docs = {}
  for _, n in ipairs(dir_files(dir .. "/templates")) do
    local src = chart .. "/templates/" .. n
    local text = read_file(dir .. "/templates/" .. n)
    local lineno, err = 0, nil
    local rendered = {}
    for line in (text .. (text:sub(-1) == "\n" and "" or "\n")):gmatch("([^\n]*)\n") do
      lineno = lineno + 1
      local l = line:gsub("(){{%-?%s*(.-)%s*%-?}}", function(col, expr)
        if err then return "" end
        if expr == ".Release.Name" then return release end
        if expr == ".Release.Namespace" then return ns end
        if expr == ".Chart.Name" then return chart end
        local why = expr:match('^fail%s+"(.*)"$')
        if why then
          err = ("execution error at (%s:%d:%d): %s"):format(src, lineno, col + 2, why)
        else
          local fn = expr:match("^([%a_][%w_]*)")
          err = fn and ('parse error at (%s:%d): function "%s" not defined'):format(src, lineno, fn)
            or ("parse error at (%s:%d): unexpected %q in command"):format(src, lineno, expr)
        end
        return ""
      end)
      rendered[#rendered + 1] = l
    end
    if err then return nil, err end
    -- a template may hold several documents
    local cur = {}
    local function flush()
      local body = table.concat(cur, "\n")
      if body:match("%S") then
        local ok, d = pcall(yaml.load, body)
        if not ok then
          return ("YAML parse error on %s: error converting YAML to JSON: %s"):format(src, tostring(d))
        end
        docs[#docs + 1] = { src = src, body = body, kind = type(d) == "table" and d.kind or nil, i = #docs + 1 }
      end
      cur = {}
    end
    for _, l in ipairs(rendered) do
      if l:match("^%-%-%-%s*$") then
        local e = flush()
        if e then return nil, e end
      else
        cur[#cur + 1] = l
      end
    end
    local e = flush()
    if e then return nil, e end
  end
  table.sort(docs, function(x, y)
    local ox, oy = INSTALL_ORDER[x.kind or ""] or 1000, INSTALL_ORDER[y.kind or ""] or 1000
    if ox ~= oy then return ox < oy end
    return x.i < y.i
  end)
  for _, d in ipairs(docs) do out[#out + 1] = ("---\n# Source: %s\n%s\n"):format(d.src, d.body) end
  return table.concat(out)
end

-- The objects an install creates from a render: namespaced ones in the release's
-- namespace (or the one they name), cluster-scoped ones cluster-wide.
local function create_rendered(text, ns, owner)
  for _, d in ipairs(yaml.load_all(text)) do
    if type(d) == "table" and d.kind then
      local md = d.metadata or {}
      local key = kind_key(d) .. "/" .. tostring(md.name)
      if CLUSTER_SCOPED[d.kind] then
        state.cluster_new = state.cluster_new or {}
        state.cluster_new[key] = owner
      else
        space(md.namespace or ns).other[key] = owner
      end
    end
  end
end

-- helm's words after the verb: release and chart (template/install: [NAME] CHART; with
-- --generate-name just CHART)
local HELM_VALUE_FLAGS = {}
for w in ([[values set set-string set-file set-json set-literal version timeout description repo username password
  ca-file cert-file key-file post-renderer post-renderer-args name-template labels keyring output history-max
  kube-version api-versions show-only output-dir release-name]]):gmatch("%S+") do HELM_VALUE_FLAGS[w] = true end
local function helm_words(a)
  local words, i = {}, 2
  while i <= #a do
    local x = a[i]
    local name = x:match("^%-%-([^=]+)$")
    if name and HELM_VALUE_FLAGS[name] then i = i + 1
    elseif x == "-f" or x == "-o" then i = i + 1
    elseif x:sub(1, 1) ~= "-" then words[#words + 1] = x end
    i = i + 1
  end
  return words
end

-- FAKE_CONCURRENT_RELEASE=name[@tool]: another team installs release name (deployed) in the
-- namespace while the first install/upgrade/apply there (of that tool: helm, helmfile) runs
local function concurrent_install(s)
  -- FAKE_CONCURRENT_OBJECTS=Kind/name[@release],...: another team makes those objects
  -- (HTTPRoute, Gateway, Service) meanwhile: with @release, helm installs them for that
  -- release (stamped as helm stamps); without, kubectl applies them (no stamp)
  local at = os.getenv("FAKE_CONCURRENT_AT") or ""
  local objs = os.getenv("FAKE_CONCURRENT_OBJECTS") or ""
  if objs ~= "" and (at == "" or at == tool) and not state.counters.concurrent_objects then
    state.counters.concurrent_objects = 1
    local ns = ns_of(args)
    for item in objs:gmatch("[^,]+") do
      local kind, name, rel = item:match("^([^/]+)/([^@]+)@?(.*)$")
      local md = rel ~= "" and helm_meta(name, rel, ns) or { name = name }
      if kind == "HTTPRoute" then
        s.httproutes[name] = { kind = "HTTPRoute", metadata = md,
          status = { parents = { { conditions = { { type = "Accepted", status = "True" } } } } } }
      elseif kind == "Gateway" then
        s.gateways[name] = { kind = "Gateway", metadata = md,
          status = { conditions = { { type = "Programmed", status = "True" } } } }
      elseif kind == "Service" then
        s.services[name] = { selector = { app = name }, owner = rel ~= "" and ("helm:" .. rel) or nil,
          ports = { { name = "http", port = 80, protocol = "TCP" } } }
      elseif kind == ISTIO_GW then
        -- (Istio's Gateway kind: Gateway.networking.istio.io/NAME)
        s.other[ISTIO_GW .. "/" .. name] = rel ~= "" and ("helm:" .. rel) or "someone"
        meta_made(s, { kind = "Gateway", apiVersion = "networking.istio.io/v1", metadata = md })
      else
        die("fake: FAKE_CONCURRENT_OBJECTS: unknown kind " .. tostring(kind), 2)
      end
    end
  end
  -- FAKE_CONCURRENT_DEPLOYMENTS=name[@release],...: another team's Deployments start then, two
  -- serving pods each (another model's labels): helm-stamped for that release with @release,
  -- else as kubectl apply leaves them
  local deps = os.getenv("FAKE_CONCURRENT_DEPLOYMENTS") or ""
  if deps ~= "" and (at == "" or at == tool) and not state.counters.concurrent_deployments then
    state.counters.concurrent_deployments = 1
    for item in deps:gmatch("[^,]+") do
      local name, rel = item:match("^([^@]+)@?(.*)$")
      deployment(s, name, rel ~= "" and ("helm:" .. rel) or "kubectl", 2, { other = true,
        labels = SERVING("other-team-model"),
        containers = { { name = "vllm", image = "ghcr.io/llm-d/llm-d-cuda:v0.4.0", restarts = 0 } } })
    end
  end
  -- FAKE_CONCURRENT_LWS=name[@release],...: another team's LeaderWorkerSets start then (2
  -- groups of 2: a leader and a worker each; another model's serving labels)
  local lwss = os.getenv("FAKE_CONCURRENT_LWS") or ""
  if lwss ~= "" and (at == "" or at == tool) and not state.counters.concurrent_lws then
    state.counters.concurrent_lws = 1
    for item in lwss:gmatch("[^,]+") do
      local name, rel = item:match("^([^@]+)@?(.*)$")
      leaderworkerset(s, name, rel ~= "" and ("helm:" .. rel) or "kubectl", 2, 2, { other = true,
        labels = SERVING("other-team-model") })
    end
  end
  local n, only = (os.getenv("FAKE_CONCURRENT_RELEASE") or ""):match("^([^@]*)@?(.*)$")
  if only ~= "" and only ~= tool then return end
  if n ~= "" and not state.counters["concurrent@" .. n] then
    state.counters["concurrent@" .. n] = 1
    s.releases[n] = { chart = "other", status = "deployed", revision = 1, chart_ref = "other-1.0.0" }
  end
end

-- A release's RFC 3339 time (as make_release keeps it) in Go's time.ANSIC layout,
-- "Mon Jan _2 15:04:05 2006" (the day padded with a space), as helm status/install print it
local function ansic_time(rfc)
  local y, mo, d, h, mi, se = rfc:match("^(%d+)%-(%d+)%-(%d+)T(%d+):(%d+):(%d+)")
  local t = os.time { year = tonumber(y), month = tonumber(mo), day = tonumber(d), hour = tonumber(h),
    min = tonumber(mi), sec = tonumber(se) }
  return os.date("%a %b ", t) .. ("%2d"):format(tonumber(d)) .. os.date(" %H:%M:%S %Y", t)
end

-- A release's RFC 3339 time as Go's time.Time.String() writes it in UTC ("2006-01-02
-- 15:04:05.999999999 +0000 UTC"): helm list's UPDATED (table and JSON)
local function go_time_string(rfc)
  local date, clock, frac = rfc:match("^(%d+%-%d+%-%d+)T(%d+:%d+:%d+)%.?(%d*)Z$")
  if not date then return "2026-01-01 00:00:00 +0000 UTC" end
  frac = frac:gsub("0+$", "")
  return date .. " " .. clock .. (frac ~= "" and "." .. frac or "") .. " +0000 UTC"
end

-- helm status's table (cmd/helm/status.go, statusPrinter.WriteTable), as install and upgrade
-- print it too: NAME, LAST DEPLOYED (Go's time.ANSIC; left out for a release without one),
-- NAMESPACE, STATUS, REVISION, and TEST SUITE: None (the fake's charts have no test hooks)
local function helm_status_block(name, r, ns)
  return ("NAME: %s\n%sNAMESPACE: %s\nSTATUS: %s\nREVISION: %d\nTEST SUITE: None\n"):format(name,
    r.last_deployed and ("LAST DEPLOYED: " .. ansic_time(r.last_deployed) .. "\n") or "", ns,
    r.status or "deployed", r.revision or 1)
end

local function helm()
  log_call()
  local ns = ns_of(args)
  local a = strip_ns(args)
  if a[1] == "version" and os.getenv("FAKE_HELM_MAJOR") == "4" then -- (illustrative build figures)
    if #a == 1 then
      return print('version.BuildInfo{Version:"v4.1.3", GitCommit:"c94d381b03be117e7e57908edbf642104e00eb8f", '
        .. 'GitTreeState:"clean", GoVersion:"go1.25.5", KubeClientVersion:"v1.35"}')
    elseif #a == 2 and a[2] == "--short" then
      return print("v4.1.3+gc94d381")
    end
  elseif a[1] == "version" then -- (no cluster involved)
    if #a == 1 then
      return print('version.BuildInfo{Version:"v3.16.2", GitCommit:"13654a52f7c70a143b1dd51416d633e1071faffb", '
        .. 'GitTreeState:"clean", GoVersion:"go1.22.7"}')
    elseif #a == 2 and a[2] == "--short" then
      return print("v3.16.2+g13654a5") -- the version, "+g" and the commit's first 7
    end
  end
  local s = space(ns)
  if a[1] == "template" then
    local w = helm_words(a)
    local name, chart = w[1], w[2]
    if has(a, "--generate-name") then name, chart = "chart-" .. os.time(), w[1] end
    if not chart then die("Error: \"helm template\" requires at least 1 argument\n\nUsage:  helm template [NAME] [CHART] [flags]") end
    for j, x in ipairs(a) do
      local v = (x == "-f" or x == "--values") and a[j + 1] or x:match("^%-%-values=(.*)$")
      if v and lfs.attributes(v, "mode") ~= "file" then die("Error: open " .. v .. ": no such file or directory") end
    end
    local dir, err = find_chart(chart, opt(a, "--version"))
    if not dir then die("Error: " .. err) end
    local text, rerr = render_chart(dir, name, ns, has(a, "--include-crds"))
    if not text then die("Error: " .. rerr .. "\n\nUse --debug flag to render out invalid YAML") end
    save()
    return io.write(text)
  elseif a[1] == "list" then
    -- helm list, as helm 3 (pkg/action/list.go, pkg/cmd/list.go) does it: the releases
    -- sorted by name; by default only deployed and failed ones (-a/--all: every state;
    -- --deployed --failed --pending --uninstalled --uninstalling --superseded add theirs);
    -- at most --max (-m) of them, 256 by default, 0 for no limit, from --offset. Helm 4
    -- (FAKE_HELM_MAJOR=4) lists every state by default and has no --all (cobra's error).
    -- -q/--short: the names, one a line; -o json: helm's fields (releaseElement), the
    -- revision as a string, the chart as NAME-VERSION (Go's encoder: compact, fields in
    -- struct order).
    local helm4 = os.getenv("FAKE_HELM_MAJOR") == "4"
    local want, max, offset, short, fmt = {}, 256, 0, false, "table"
    local STATES = { deployed = { "deployed" }, failed = { "failed" }, uninstalled = { "uninstalled" },
      uninstalling = { "uninstalling" }, superseded = { "superseded" },
      pending = { "pending-install", "pending-upgrade", "pending-rollback" } }
    local all = false
    local j = 2
    while j <= #a do
      local x = a[j]
      local flag, val = x:match("^%-%-([^=]+)=(.*)$")
      flag = flag or x:match("^%-%-(.+)$")
      if x == "-a" or flag == "all" then
        if helm4 then
          die(x == "-a" and "Error: unknown shorthand flag: 'a' in -a" or "Error: unknown flag: --all")
        end
        all = true
      elseif flag and STATES[flag] then
        for _, st in ipairs(STATES[flag]) do want[st] = true end
      elseif x == "-m" or flag == "max" or flag == "offset" then
        if not val then j = j + 1; val = a[j] end
        local v = tonumber(val)
        if not v or v ~= math.floor(v) then
          die(('Error: invalid argument "%s" for "%s" flag: strconv.ParseInt: parsing "%s": invalid syntax')
            :format(tostring(val), flag == "offset" and "--offset" or "-m, --max", tostring(val)))
        end
        if flag == "offset" then offset = v else max = v end
      elseif x == "-q" or flag == "short" then
        short = true
      elseif x == "-o" or flag == "output" then
        if not val then j = j + 1; val = a[j] end
        fmt = val
      else
        die("fake helm: unsupported list flag: " .. x, 2)
      end
      j = j + 1
    end
    if all or (helm4 and next(want) == nil) then
      for _, list in pairs(STATES) do for _, st in ipairs(list) do want[st] = true end end
    elseif next(want) == nil then
      want = { deployed = true, failed = true }
    end
    local names = {}
    for _, n in ipairs(sorted_keys(s.releases)) do
      if want[s.releases[n].status or "deployed"] then names[#names + 1] = n end
    end
    local shown = {}
    for k = offset + 1, #names do
      if max > 0 and #shown >= max then break end
      shown[#shown + 1] = names[k]
    end
    if short and fmt == "table" then
      for _, n in ipairs(shown) do print(n) end
      return
    elseif short and fmt == "json" then
      return io.write(json.encode(json.array(shown)), "\n")
    end
    if fmt == "table" then
      -- helm's table (gosuri/uitable): every cell padded with spaces to its column's widest,
      -- the cells of a row joined by a tab; the header row even when no release is listed
      local rows = { { "NAME", "NAMESPACE", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION" } }
      for _, n in ipairs(shown) do
        local r = s.releases[n]
        rows[#rows + 1] = { n, ns, tostring(r.revision or 1), r.last_deployed and go_time_string(r.last_deployed)
          or "2026-01-01 00:00:00 +0000 UTC", r.status or "deployed", r.chart_ref or r.chart, r.app_version or "" }
      end
      print_padded(rows, { extra = 0, min = 0, last = true, sep = "\t" })
      return
    end
    if fmt == "yaml" then die("fake helm: unsupported list output: yaml", 2) end
    if fmt ~= "json" then die(('Error: invalid argument "%s" for "-o, --output" flag: invalid format type'):format(tostring(fmt))) end
    local out = {}
    for _, n in ipairs(shown) do
      local r = s.releases[n]
      out[#out + 1] = ('{"name":%s,"namespace":%s,"revision":%s,"updated":%s,"status":%s,"chart":%s,'
        .. '"app_version":%s}'):format(json.encode(n), json.encode(ns), json.encode(tostring(r.revision or 1)),
        json.encode(r.last_deployed and go_time_string(r.last_deployed) or "2026-01-01 00:00:00 +0000 UTC"),
        json.encode(r.status or "deployed"),
        json.encode(r.chart_ref or r.chart), json.encode(r.app_version or ""))
    end
    return io.write("[", table.concat(out, ","), "]\n")
  elseif a[1] == "status" then
    -- helm status NAME -o json (helm 3): the release's name, info (first_deployed,
    -- last_deployed, deleted, description, status), config, version (the revision) and
    -- namespace; "Error: release: not found" (exit 1) for none of that name. No "chart":
    -- cmd/helm/status.go strips it (rel.Chart = nil) before printing; the "manifest" real
    -- helm prints too is left out here (nothing reads it)
    local w = helm_words(a)
    local r = w[1] and s.releases[w[1]]
    if not r then die("Error: release: not found") end
    local fmt = opt(a, "-o") or opt(a, "--output") or "table"
    if fmt == "table" then return io.write(helm_status_block(w[1], r, ns)) end
    if fmt ~= "json" then
      die("fake helm: unsupported status output (table or -o json): " .. table.concat(args, " "), 2)
    end
    return io.write(json.encode { name = w[1], info = { first_deployed = r.first_deployed or "2026-01-01T00:00:00Z",
      last_deployed = r.last_deployed or r.first_deployed or "2026-01-01T00:00:00Z", deleted = "",
      description = r.revision == 1 and "Install complete" or "Upgrade complete", status = r.status or "deployed" },
      config = json.object {}, version = r.revision or 1, namespace = ns }, "\n")
  elseif a[1] == "upgrade" or a[1] == "install" then
    local w = helm_words(a)
    local name, chart = w[1], w[2]
    local install = a[1] == "install" or has(a, "--install") or has(a, "-i")
    local failed = install and "INSTALLATION FAILED" or "UPGRADE FAILED"
    if missing_ns(ns) then die("Error: " .. failed .. ": create: failed to create: " .. missing_ns(ns)) end
    if failing("deploy") then die("Error: " .. failed .. ": timed out waiting for the condition") end
    for j, x in ipairs(a) do
      if (x == "-f" or x == "--values") and lfs.attributes(a[j + 1], "mode") ~= "file" then
        die("Error: open " .. a[j + 1] .. ": no such file or directory")
      end
    end
    -- the chart, rendered and created (its crds/ too on a first install, unless --skip-crds)
    -- a release whose last operation has not finished (someone's install or upgrade under
    -- way, or an uninstall): helm refuses to touch it (pkg/action/upgrade.go)
    local cur = s.releases[name] and s.releases[name].status
    if cur and (cur:match("^pending%-") or cur == "uninstalling") then
      die("Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress")
    end
    local dir, err = find_chart(chart, opt(a, "--version"))
    if not dir then die("Error: " .. failed .. ": " .. err) end
    local text, rerr = render_chart(dir, name, ns, install and not s.releases[name] and not has(a, "--skip-crds"))
    if not text then die("Error: " .. failed .. ": " .. rerr) end
    local existed = s.releases[name] and s.releases[name].status ~= "uninstalled"
    if a[1] == "install" and existed then
      die("Error: INSTALLATION FAILED: cannot re-use a name that is still in use")
    end
    create_rendered(text, ns, "helm:" .. name)
    concurrent_install(s)
    make_release(s, name, chart, has(a, "httpRoute.create=true"), dir)
    save()
    -- what helm 3 prints (table output): upgrade --install of a release it has no live
    -- record of says so first and installs; an upgrade says it upgraded; then, for both (and
    -- for install), the status block as `helm status` prints it (NAME, LAST DEPLOYED in Go's
    -- time.ANSIC layout, NAMESPACE, STATUS, REVISION, TEST SUITE: None for a chart without
    -- test hooks)
    if a[1] == "upgrade" and not existed then
      print(("Release %s does not exist. Installing it now."):format(json.encode(name)))
    elseif a[1] == "upgrade" then
      print(("Release %s has been upgraded. Happy Helming!"):format(json.encode(name)))
    end
    return io.write(helm_status_block(name, s.releases[name], ns))
  elseif a[1] == "uninstall" then
    for j = 2, #a do
      local n = a[j]
      if n:sub(1, 1) ~= "-" then
        -- FAKE_FAIL(_ONCE)=uninstall_NAME: the API server stops answering as NAME's turn comes
        -- (helm's error for a cluster it cannot reach; the releases before it stay removed)
        if failing("uninstall_" .. n) then
          die('Error: Kubernetes cluster unreachable: Get "https://127.0.0.1:6443/version": dial tcp '
            .. "127.0.0.1:6443: connect: connection refused")
        end
        if s.releases[n] then
          s.releases[n] = nil
          remove_deployments(s, "helm:" .. n)
          s.inferencepools[n], s.httproutes[n] = nil, nil
          local gone = {}
          for _, g in ipairs(sorted_keys(s.gateways)) do
            if (s.gateways[g].metadata.annotations or {})["meta.helm.sh/release-name"] == n then
              s.gateways[g] = nil
              gone["gateway:" .. g] = true
            end
          end
          for _, sv in ipairs(sorted_keys(s.services)) do
            -- the release's Services, and (garbage collection) those its Gateway owned
            if s.services[sv].owner == "helm:" .. n or gone[s.services[sv].owner] then
              s.services[sv] = nil
            end
          end
          -- and every other object of its manifest (an Istio Gateway, a ConfigMap, a Role...):
          -- helm deletes what it installed (its PVCs the fake keeps as it did: s.pvcs)
          for _, key in ipairs(sorted_keys(s.other)) do
            if s.other[key] == "helm:" .. n and not key:match("^PersistentVolumeClaim/") then
              s.other[key] = nil
              local kind, nm = key:match("^([^/]+)/(.+)$")
              if kind == "ConfigMap" and s.configmaps then s.configmaps[nm] = nil end
              if kind == "Secret" and s.secrets then s.secrets[nm] = nil end
            end
          end
          print(('release "%s" uninstalled'):format(n))
        elseif not has(a, "--ignore-not-found") then
          die(("Error: uninstall: Release not loaded: %s: release: not found"):format(n))
        end
      end
    end
    save()
    return
  end
  die("fake helm: unsupported call: " .. table.concat(args, " "), 2)
end

-- helmfile -n NS apply [-e env]... in the guide folder: releases from its helmfile.yaml
local function helmfile()
  log_call()
  local ns = ns_of(args)
  local a = strip_ns(args)
  if #a == 1 and (a[1] == "--version" or a[1] == "-v") then return print("helmfile version v1.1.7") end
  local s = space(ns)
  -- -e/--environment is one string flag (cobra): given twice, the last one wins
  local env, verb = "default", nil
  local i = 1
  while i <= #a do
    local x = a[i]
    if x == "-e" or x == "--environment" then env = a[i + 1]; i = i + 1
    elseif x:match("^%-%-environment=") then env = x:match("=(.*)$")
    elseif x:match("^%-e.") then env = x:sub(3):gsub("^=", "")
    elseif not verb and x:sub(1, 1) ~= "-" then verb = x end
    i = i + 1
  end
  if verb ~= "apply" and verb ~= "sync" and verb ~= "template" and verb ~= "list" then
    die("fake helmfile: unsupported call: " .. table.concat(args, " "), 2)
  end
  local file = opt(a, "-f") or opt(a, "--file")
  local f = file and io.open(file) or (not file and (io.open("helmfile.yaml") or io.open("helmfile.yaml.gotmpl")))
  if not f then die("err: no state file found. It must be named helmfile.yaml", 1) end
  local text = f:read("a")
  f:close()
  file = file or "helmfile.yaml"
  -- the releases: name and chart (a release without a chart is helmfile's error), their
  -- hooks and kube context (a release's kubeContext, else helmDefaults.kubeContext), as
  -- helmfile reads them
  local releases = {}
  local okl, st = pcall(yaml.load, text)
  if okl and type(st) == "table" and type(st.releases) == "table" then
    local defaults = type(st.helmDefaults) == "table" and st.helmDefaults or {}
    for _, r in ipairs(st.releases) do
      releases[#releases + 1] = { name = r.name, chart = r.chart, hooks = type(r.hooks) == "table" and r.hooks or {},
        context = r.kubeContext or defaults.kubeContext, installed = r.installed ~= false,
        namespace = type(r.namespace) == "string" and r.namespace or nil,
        labels = type(r.labels) == "table" and r.labels or {}, version = r.version, spec = r }
    end
  else
    for name in text:gmatch("\n%s*%-%s*name:%s*([%w%-_]+)") do releases[#releases + 1] = { name = name, hooks = {}, installed = true, labels = {} } end
  end
  -- -l name=X selects releases
  local sel = opt(a, "-l") or opt(a, "--selector")
  local want = sel and sel:match("^name=(.*)$")
  if verb == "list" then
    -- helmfile list: the releases the state files define (helmfile reads them and calls no
    -- helm, with --skip-charts not even to fetch the charts); --output json prints
    -- pkg/app's HelmRelease list: name, namespace (-n's where the release names none),
    -- enabled (its condition), installed (installed: false is a release apply removes),
    -- labels ("k:v,..." sorted, with helmfile's own chart, name and namespace), chart, version
    local out = {}
    for _, r in ipairs(releases) do
      if not want or r.name == want then
        local rns = r.namespace or ns or ""
        local labels = { chart = tostring(r.chart or ""):match("([^/]+)$") or "", name = r.name, namespace = rns }
        for k, v in pairs(r.labels) do labels[k] = tostring(v) end
        local parts = {}
        for _, k in ipairs(sorted_keys(labels)) do parts[#parts + 1] = k .. ":" .. labels[k] end
        out[#out + 1] = { name = r.name, namespace = rns, enabled = true, installed = r.installed,
          labels = table.concat(parts, ","), chart = r.chart or "", version = r.version or "" }
      end
    end
    local fmt = opt(a, "--output")
    if fmt == "json" then
      -- Go's json.Marshal: struct field order, no spaces
      local items = {}
      for _, o in ipairs(out) do
        items[#items + 1] = ('{"name":%s,"namespace":%s,"enabled":%s,"installed":%s,"labels":%s,"chart":%s,'
          .. '"version":%s}'):format(json.encode(o.name), json.encode(o.namespace), tostring(o.enabled),
          tostring(o.installed), json.encode(o.labels), json.encode(o.chart), json.encode(o.version))
      end
      io.write("[", table.concat(items, ","), "]\n")
    else
      -- pkg/app's FormatAsTable: gosuri/uitable (each cell padded to its column's widest, joined
      -- by a tab), each line's trailing spaces and tabs trimmed
      local rows = { { "NAME", "NAMESPACE", "ENABLED", "INSTALLED", "LABELS", "CHART", "VERSION" } }
      for _, o in ipairs(out) do
        rows[#rows + 1] = { o.name, o.namespace, tostring(o.enabled), tostring(o.installed), o.labels, o.chart,
          o.version }
      end
      print_padded(rows, { extra = 0, min = 0, last = true, sep = "\t", trim = true })
    end
    save()
    return
  end
  local function helm_failed(argv, stderr)
    -- helmfile's report of a helm call that failed
    local lines = { ('in ./%s: command "helm" exited with non-zero status:'):format(file), "", "PATH:", "  helm", "",
      "ARGS:" }
    for k, x in ipairs(argv) do lines[#lines + 1] = ("  %d: %s (%d bytes)"):format(k - 1, x, #x) end
    for _, l in ipairs { "", "ERROR:", "  exit status 1", "", "EXIT STATUS", "  1", "", "STDERR:", "  " .. stderr,
      "", "COMBINED OUTPUT:", "  " .. stderr } do lines[#lines + 1] = l end
    die(table.concat(lines, "\n"), 1)
  end
  if (verb == "apply" or verb == "sync") and missing_ns(ns) then
    helm_failed({ "helm", "upgrade", "--install", "x" }, "Error: INSTALLATION FAILED: create: failed to create: "
      .. missing_ns(ns))
  end
  if verb ~= "template" and failing("deploy") then
    helm_failed({ "helm", "upgrade", "--install", "x" }, "Error: UPGRADE FAILED: timed out waiting for the condition")
  end
  local crds = verb == "template" and has(a, "--include-crds") or (verb ~= "template" and not has(a, "--skip-crds"))
  -- helmfile's hooks run on this machine, whatever they do: prepare for every command that
  -- loads the state (template too), presync/preapply before and postsync after a release
  -- is installed by apply/sync
  local function hooks(r, events)
    for _, h in ipairs(r.hooks) do
      local on = false
      for _, e in ipairs(type(h.events) == "table" and h.events or {}) do if events[e] then on = true end end
      if on and type(h.command) == "string" then
        local argv = { h.command }
        for _, x in ipairs(type(h.args) == "table" and h.args or {}) do argv[#argv + 1] = tostring(x) end
        local hr = proc.run(argv)
        if not hr.ok then
          die(("in ./%s: hook[%s]: command `%s` failed: %s"):format(file, tostring(r.name), h.command,
            (hr.stderr or ""):gsub("%s+$", "")), 1)
        end
      end
    end
  end
  for _, r in ipairs(releases) do
    if not want or r.name == want then hooks(r, { prepare = true }) end
  end
  -- What helmfile v1 prints of apply and sync: its log (zap, on stderr) "Upgrading
  -- release=NAME, chart=CHART" before each helm upgrade --install, whose own output (stdout)
  -- follows, then "Listing releases matching ^NAME$" and helm list's row of it (stdout, the
  -- header cut); "Deleting NAME" before the helm delete of a release marked installed: false
  -- (helm's `release "NAME" uninstalled`); at the end, after a blank line, "UPDATED RELEASES:"
  -- and "DELETED RELEASES:" with their tables (go-prettytable: columns padded to the widest
  -- cell, CHART and VERSION 6 at least, DURATION right-aligned, three spaces between):
  -- pkg/helmexec's SyncRelease, DeleteRelease and List, pkg/state's DisplayAffectedReleases.
  -- What helm-diff compares for a release: the manifest its chart renders with the values
  -- helmfile gives it. The fake's charts render only the release's name and namespace, so
  -- the values stand for what they would change: the release's own entry in the state file
  -- (chart, version, values, set ...), the files its values: names, the environment and the
  -- state values (--state-values-file/--state-values-set) a templated state file reads. One
  -- text of them all, kept with the release by apply and sync (rel.applied); a release helm
  -- installed or upgraded by itself has none, and differs.
  local function canon(v)
    if type(v) ~= "table" then return json.encode(v) end
    local parts = {}
    if json.is_array(v) then
      for _, x in ipairs(v) do parts[#parts + 1] = canon(x) end
      return "[" .. table.concat(parts, ",") .. "]"
    end
    for _, k in ipairs(sorted_keys(v)) do parts[#parts + 1] = json.encode(tostring(k)) .. ":" .. canon(v[k]) end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  local base = file:match("^(.*)/[^/]*$") or "."
  local state_values = { "env=" .. tostring(env) }
  for _, fl in ipairs { "--state-values-file", "--state-values-set", "--state-values-set-string" } do
    for _, v in ipairs(opt_all(a, fl)) do
      state_values[#state_values + 1] = fl .. "=" .. v .. (fl == "--state-values-file" and ("\n" .. (read_file(v)
        or "(missing)")) or "")
    end
  end
  local function desired(r, dir)
    local parts = { canon(r.spec or {}), table.concat(state_values, "\n") }
    for _, v in ipairs(type((r.spec or {}).values) == "table" and r.spec.values or {}) do
      if type(v) == "string" then
        parts[#parts + 1] = v .. "\n" .. (read_file(v:match("^/") and v or (base .. "/" .. v)) or "(missing)")
      end
    end
    parts[#parts + 1] = render_chart(dir, r.name, ns, false) or ""
    return ("%012x"):format(hash(table.concat(parts, "\n---\n")))
  end
  -- apply diffs first (helm-diff's own output, the manifests' changes, is not faked), and
  -- syncs only the releases that changed (pkg/app's apply: "sync only when there are
  -- changes"): one "Comparing release=NAME, chart=CHART" a release it diffs (every one to
  -- install), then the affected ones (Run.diff: "  NAME (CHART) UPDATED" / "DELETED",
  -- sorted), or "" and "No affected releases" when none is, and nothing synced. Changed: not
  -- installed, not deployed (failed, pending), or another desired state than the last apply's.
  local changed = {}
  if verb == "apply" then
    local affected = {}
    for _, r in ipairs(releases) do
      if (not want or r.name == want) and r.chart and not (r.context and r.context ~= fake_context()) then
        if r.installed then
          io.stderr:write(("Comparing release=%s, chart=%s\n"):format(r.name, r.chart))
          local cur = s.releases[r.name]
          local dir = find_chart(r.chart)
          -- (a chart not found or that fails to render: the sync below says helm's error)
          local same = dir and render_chart(dir, r.name, ns, false) and cur and cur.status == "deployed"
            and cur.applied ~= nil and cur.applied == desired(r, dir)
          if not same then
            changed[r.name] = true
            affected[#affected + 1] = ("  %s (%s) UPDATED"):format(r.name, r.chart)
          end
        elseif s.releases[r.name] then
          affected[#affected + 1] = ("  %s (%s) DELETED"):format(r.name, r.chart)
        end
      elseif (not want or r.name == want) and r.installed then
        changed[r.name] = true -- (another kube context's: not diffed here)
      end
    end
    table.sort(affected)
    if #affected > 0 then
      io.stderr:write("Affected releases are:\n", table.concat(affected, "\n"), "\n\n")
    else
      io.stderr:write("\nNo affected releases\n")
      save()
      return
    end
  end
  local updated, deleted = {}, {}
  local function took(t0)
    local d = os.time() - t0
    if d >= 3600 then return ("%dh%dm%ds"):format(d // 3600, d % 3600 // 60, d % 60) end
    if d >= 60 then return ("%dm%ds"):format(d // 60, d % 60) end
    return ("%ds"):format(d)
  end
  for _, r in ipairs(releases) do
    -- (apply leaves a release without changes alone: no hooks of its sync, no helm call)
    if verb == "apply" and r.installed and not changed[r.name] then goto next_release end
    if (not want or r.name == want) and verb ~= "template" then hooks(r, { presync = true, preapply = true }) end
    -- another kube context: helm --kube-context CTX, another cluster's API (recorded in
    -- contexts.log; this fake's state is the current context's)
    if (not want or r.name == want) and r.context and r.context ~= fake_context() then
      local cf = assert(io.open(DIR .. "/contexts.log", "a"))
      cf:write(("%s %s %s\n"):format(verb, tostring(r.context), tostring(r.name)))
      cf:close()
      -- (helmfile's own line; what the other cluster's helm answers is not faked)
      if verb ~= "template" then
        io.stderr:write(("Upgrading release=%s, chart=%s\n"):format(r.name, tostring(r.chart)))
      end
      goto next_release
    end
    if (not want or r.name == want) and not r.installed then
      -- installed: false - apply and sync delete the release where it is installed
      if verb ~= "template" and s.releases[r.name] then
        local t0 = os.time()
        io.stderr:write(("Deleting %s\n"):format(r.name))
        s.releases[r.name] = nil
        remove_deployments(s, "helm:" .. r.name)
        print(('release "%s" uninstalled\n'):format(r.name))
        deleted[#deleted + 1] = { r.name, r.namespace or ns or "", took(t0) }
      end
      goto next_release
    end
    if not want or r.name == want then
      if not r.chart then
        die(('in ./%s: failed processing release %s: chart is required'):format(file, tostring(r.name)), 1)
      end
      if verb == "template" then io.stderr:write(("Templating release=%s, chart=%s\n"):format(r.name, r.chart)) end
      local dir, err = find_chart(r.chart)
      if not dir then helm_failed({ "helm", verb == "template" and "template" or "upgrade", r.name, r.chart },
        "Error: " .. err) end
      local out, rerr = render_chart(dir, r.name, ns, crds and (verb == "template" or not s.releases[r.name]))
      if not out then
        helm_failed({ "helm", verb == "template" and "template" or "upgrade", r.name, r.chart }, "Error: " .. rerr)
      end
      if verb == "template" then
        io.write(out)
      else
        local t0 = os.time()
        io.stderr:write(("Upgrading release=%s, chart=%s\n"):format(r.name, r.chart))
        local existed = s.releases[r.name] and s.releases[r.name].status ~= "uninstalled"
        create_rendered(out, ns, "helm:" .. r.name)
        concurrent_install(s)
        make_release(s, r.name, "helmfile/" .. r.name, false, dir)
        local rel = s.releases[r.name]
        rel.environment = env
        rel.applied = desired(r, dir)
        -- (helm upgrade --install's reply, as the fake's helm prints it, and helmfile's line after)
        print(existed and ('Release "%s" has been upgraded. Happy Helming!'):format(r.name)
          or ('Release "%s" does not exist. Installing it now.'):format(r.name))
        io.write(helm_status_block(r.name, rel, ns), "\n")
        io.stderr:write(("Listing releases matching ^%s$\n"):format(r.name))
        local meta = yaml.load(read_file(dir .. "/Chart.yaml") or "") or {}
        local lines = padded_lines({ { "NAME", "NAMESPACE", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION" },
          { r.name, ns or "", tostring(rel.revision or 1), go_time_string(rel.last_deployed), rel.status or "deployed",
            rel.chart_ref or "", tostring(rel.app_version or "") } }, { extra = 0, min = 0, last = true, sep = "\t" })
        print(lines[2] .. "\n")
        hooks(r, { postsync = true })
        updated[#updated + 1] = { r.name, r.namespace or ns or "", r.chart, tostring(meta.version or ""), took(t0) }
      end
    end
    ::next_release::
  end
  local tables = { { "UPDATED RELEASES:", { "NAME", "NAMESPACE", "CHART", "VERSION", "DURATION" }, updated,
    { [3] = 6, [4] = 6 }, 5 }, { "DELETED RELEASES:", { "NAME", "NAMESPACE", "DURATION" }, deleted, {}, 3 } }
  for _, tb in ipairs(tables) do
    if #tb[3] > 0 then
      local rows = { tb[2] }
      for _, row in ipairs(tb[3]) do rows[#rows + 1] = row end
      io.stderr:write("\n", tb[1], "\n")
      for _, l in ipairs(padded_lines(rows, { extra = 0, min = tb[4], last = true, sep = "   ", right = { [tb[5]] = true } })) do
        io.stderr:write(l, "\n")
      end
    end
  end
  save()
  -- FAKE_SLOW_DEPLOY: the first apply or sync that installed something sleeps once its state
  -- is saved (its releases deployed), as a helmfile still waiting on its last release's pods
  -- would: a test kills the comparison then, before it recorded what the deploy made
  local slow = tonumber(os.getenv("FAKE_SLOW_DEPLOY") or "")
  if slow and #updated > 0 and not lfs.attributes(DIR .. "/deploy-sleeping") then
    local mark = assert(io.open(DIR .. "/deploy-sleeping", "w"))
    mark:close()
    proc.run { "sleep", tostring(slow) }
  end
end

local function oc()
  log_call()
  if args[1] == "project" then
    local p = os.getenv("FAKE_PROJECT")
    if not p or p == "" then die("error: no project has been set", 1) end
    return print(p)
  end
  if args[1] == "version" and args[2] == "--client" and #args == 2 then
    return io.write("Client Version: 4.16.0\nKustomize Version: v5.0.4-0.20230601165947-6ce0bf390ce3\n")
  end
  die("fake oc: unsupported call: " .. table.concat(args, " "), 2)
end

-- The harness run of one workload wl (the config's workload.<name>) into dest, from the
-- recorded results folder src: what a real harness would measure is not known here, so each
-- stage the workload asks for (load.stages: rate, duration) is the recorded inference-perf
-- stage of the nearest requested rate (by ratio: nearest_stage), sent at the stage's own rate
-- for its own duration:
-- rate * duration requests (the recorded count where no duration is given), the send
-- rate, send duration and throughputs scaled to that rate, the latencies and lengths the
-- recorded stage's; the summary the stages' pooled (counts and means exact, percentiles of
-- the mixture of the stages' piecewise-linear distributions), as inference-perf writes one
-- over every request of the run. A workload without stages of a rate each, or recorded
-- results that are not inference-perf's stage files, or another harness: the recorded
-- folder as it is (and a line saying so). Returns that line, or nil.
local run_workload
local replay_per_request

-- What a benchmark's own run changes in its files (k: the cluster's benchmarks before this
-- one; 0, the first, writes the recording's bytes): a real run never writes another run's
-- bytes (its requests' ids, its clocks), while the fake replays one recording for every stage
-- asked at the same rate, so two runs of other workloads or configs would write the same stage
-- file, which compare.lua rightly refuses as one run's file copied into the other's folder
-- (llmd.comparison.check_shared_files). Only readings llmdlua takes no figure from change, so
-- every figure stays the recording's to the last digit (two runs of one recording and one
-- workload are still one measurement saved twice, which the A/A check says): a stage's
-- schedule-delay mean (llmdlua reads its max only) k ns later; each Prometheus rate (llmdlua
-- reads the prefix-cache and KV-usage means only) k in its sixth decimal (inference-perf
-- rounds those to six); each request's completion id (in its SSE body) suffixed -r<k>. A
-- recording with none of them (no schedule_delay, no Prometheus files, no ids), or one copied
-- as it is (run_workload's as_is: another harness, a workload without stages), stays as it is.
local run_mark = {}
function run_mark.delay(ls, k)
  if k > 0 and type(ls) == "table" and type(ls.schedule_delay) == "table"
    and type(ls.schedule_delay.mean) == "number" then
    ls.schedule_delay.mean = ls.schedule_delay.mean + k * 1e-9
  end
end
function run_mark.rates(t, k)
  if k <= 0 or type(t) ~= "table" then return end
  for key, v in pairs(t) do
    if key == "rate" and type(v) == "number" and v > 0 then
      t[key] = (math.floor(v * 1e6 + 0.5) + k) / 1e6
    elseif type(v) == "table" then
      run_mark.rates(v, k)
    end
  end
end
function run_mark.ids(text, k)
  if k <= 0 or type(text) ~= "string" then return text end
  return (text:gsub('("id": ?"[^"]+)"', function(id) return ("%s-r%d\""):format(id, k) end))
end
local PCT_KEYS = { "min", "p0.1", "p1", "p5", "p10", "p25", "median", "p75", "p90", "p95", "p99", "p99.9", "max" }
local PCT_AT = { 0, 0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 100 }

-- x at fraction q (0-100) of a summary's piecewise-linear distribution, and its inverse
local function pct_cdf(sm, x)
  if x <= sm.min then return 0 end
  if x >= sm.max then return 100 end
  for i = 2, #PCT_KEYS do
    local a, b = sm[PCT_KEYS[i - 1]], sm[PCT_KEYS[i]]
    if x <= b then
      if b <= a then return PCT_AT[i] end
      return PCT_AT[i - 1] + (PCT_AT[i] - PCT_AT[i - 1]) * (x - a) / (b - a)
    end
  end
  return 100
end

-- The pooled summary of parts {summary =, weight =} (weights: request counts).
local function pool_summary(parts)
  local out, total = {}, 0
  for _, p in ipairs(parts) do total = total + p.weight end
  local usable = total > 0
  for _, p in ipairs(parts) do
    if type(p.summary) ~= "table" then usable = false; break end
    for _, k in ipairs(PCT_KEYS) do if type(p.summary[k]) ~= "number" then usable = false end end
    if type(p.summary.mean) ~= "number" then usable = false end
  end
  if not usable then return parts[1] and parts[1].summary or json.null end
  local mean, lo, hi = 0, math.huge, -math.huge
  for _, p in ipairs(parts) do
    mean = mean + p.summary.mean * p.weight / total
    lo, hi = math.min(lo, p.summary.min), math.max(hi, p.summary.max)
  end
  out.mean = mean
  for i, k in ipairs(PCT_KEYS) do
    if k == "min" then out[k] = lo
    elseif k == "max" then out[k] = hi
    else
      local a, b = lo, hi
      for _ = 1, 60 do
        local m = (a + b) / 2
        local c = 0
        for _, p in ipairs(parts) do c = c + pct_cdf(p.summary, m) * p.weight / total end
        if c < PCT_AT[i] then a = m else b = m end
      end
      out[k] = (a + b) / 2
    end
  end
  return out
end

-- A percentile as inference-perf's summarize_requests takes it: numpy's percentile with
-- its default method ("linear": the value at rank (n - 1) q / 100 of the sorted samples,
-- linear between the two nearest). sorted: ascending, non-empty; q: 0-100.
local function np_percentile(sorted, q)
  local n = #sorted
  local h = (n - 1) * q / 100
  local lo = math.floor(h)
  local a = sorted[lo + 1]
  local b = sorted[math.min(lo + 2, n)]
  return a + (b - a) * (h - lo)
end

-- The summary dict of samples vals (seconds or tokens), with the keys of template (a summary
-- dict of the recording: which percentiles the config asked for; the full list without one):
-- mean, min, max and each "pX"/"median" by np_percentile. null without samples, as
-- inference-perf writes it.
local function summary_of(vals, template)
  if #vals == 0 then return json.null end
  table.sort(vals)
  local sum = 0
  for _, v in ipairs(vals) do sum = sum + v end
  local out = { mean = sum / #vals, min = vals[1], max = vals[#vals] }
  local keys = {}
  if type(template) == "table" then
    for k in pairs(template) do keys[#keys + 1] = k end
  else
    keys = PCT_KEYS
  end
  for _, k in ipairs(keys) do
    local q = k == "median" and 50 or tonumber(tostring(k):match("^p([%d.]+)$") or "")
    if q then out[k] = np_percentile(vals, q) end
  end
  return out
end

-- The successes' latency, prompt_len and output_len summaries of requests reqs (per-request
-- records), each as ../shared/fixtures/FORMATS.md (Lifecycle summary schema) defines it:
-- request_latency end - start; time_to_first_token first token time - start and
-- time_per_output_token (last - first token time) / (output tokens - 1), for a request with
-- more than one token time; normalized_time_per_output_token (end - start) / output tokens;
-- inter_token_latency every gap between token times, pooled. A request with an error is a
-- failure, in none of them. succ: the recorded successes table (its dicts' keys kept).
local function request_summaries(reqs, succ)
  local v = { request_latency = {}, time_to_first_token = {}, time_per_output_token = {},
    normalized_time_per_output_token = {}, inter_token_latency = {}, prompt_len = {}, output_len = {} }
  local function push(t, x) if type(x) == "number" then t[#t + 1] = x end end
  for _, q in ipairs(reqs) do
    if (q.error == nil or q.error == json.null) and type(q.end_time) == "number" then
      local info = type(q.info) == "table" and q.info or {}
      local rm = type(info.response_metrics) == "table" and info.response_metrics or {}
      local rqm = type(info.request_metrics) == "table" and info.request_metrics or {}
      local out_tok = rm.output_tokens
      local e2e = q.end_time - q.start_time
      push(v.request_latency, e2e)
      local tt = type(rm.output_token_times) == "table" and rm.output_token_times or {}
      if #tt > 1 then
        push(v.time_to_first_token, tt[1] - q.start_time)
        if type(out_tok) == "number" and out_tok > 1 then push(v.time_per_output_token, (tt[#tt] - tt[1]) / (out_tok - 1)) end
        for j = 2, #tt do push(v.inter_token_latency, tt[j] - tt[j - 1]) end
      end
      if type(out_tok) == "number" and out_tok > 0 then push(v.normalized_time_per_output_token, e2e / out_tok) end
      local inp = type(rqm.text) == "table" and rqm.text.input_tokens or info.input_tokens
      push(v.prompt_len, inp)
      push(v.output_len, out_tok)
    end
  end
  local lat0 = type(succ) == "table" and type(succ.latency) == "table" and succ.latency or {}
  local lat = {}
  for _, k in ipairs { "request_latency", "time_to_first_token", "time_per_output_token",
    "normalized_time_per_output_token", "inter_token_latency" } do
    if lat0[k] ~= nil then lat[k] = summary_of(v[k], lat0[k]) end
  end
  return lat, summary_of(v.prompt_len, type(succ) == "table" and succ.prompt_len or nil),
    summary_of(v.output_len, type(succ) == "table" and succ.output_len or nil)
end

-- A reproducible stream of draws for seed text s (FNV-1a of s, then xorshift64*): a stage
-- taken again draws its own requests from it, the same for the same namespace, benchmark and
-- stage on every rerun, without touching math.random (which other draws of the fake use).
local function seeded_draws(s)
  local h = -3750763034362895579 -- (FNV-1a's 64-bit offset basis, 0xcbf29ce484222325)
  for i = 1, #s do h = (h ~ s:byte(i)) * 1099511628211 end
  if h == 0 then h = 1 end
  return function(n) -- a whole number 1..n
    h = h ~ (h << 13); h = h ~ (h >> 7); h = h ~ (h << 17)
    return (h >> 11) % n + 1
  end
end

-- The recorded stage a stage asked at `rate` is made from: the one whose requested rate is
-- nearest by ratio (|ln(rate / recorded)|, a log scale), the earlier recorded stage on a tie.
-- Not what a real harness does - it sends at the rate asked and measures what the server
-- does then - but the stand-in that scales the recorded throughputs least (by the factor
-- rate / recorded, nearest 1 either way): 5 req/s between recorded 1 and 10 is made from 10
-- (scaled by 0.5), not from 1 (scaled by 5), which the nearer difference (4 against 5)
-- would pick. Its latencies stay the recorded stage's, whatever the rate asked.
local function nearest_stage(rec, rate)
  local best, bd
  for _, st in ipairs(rec) do
    local d = math.abs(math.log(rate / st.rate))
    if not bd or d < bd - 1e-12 then best, bd = st, d end
  end
  return best
end

-- A stage taken again from recorded stage requests block (copies, in start order): a new
-- draw, as a real repeat is a new sample of the server's answers. Each request keeps its
-- start (the schedule: the stage's rate and spacing are the recorded ones) and takes the
-- answer of a request drawn with replacement from the block's successes (a bootstrap, by
-- seeded_draws(seed)): its latency, token times (as offsets from its start), lengths; a
-- failure stays the recorded failure, so the stage's counts are the recorded ones.
local function redraw_block(block, seed)
  local draw1 = seeded_draws(seed)
  local ok = {}
  for _, q in ipairs(block) do
    if (q.error == nil or q.error == json.null) and type(q.end_time) == "number" then ok[#ok + 1] = q end
  end
  if #ok == 0 then return block end
  local new = {}
  for _, q in ipairs(block) do
    if (q.error == nil or q.error == json.null) and type(q.end_time) == "number" then
      local src = ok[draw1(#ok)]
      local c = json.decode(json.encode(src))
      local shift = q.start_time - src.start_time
      c.start_time = q.start_time
      c.end_time = src.end_time + shift
      local rm = type(c.info) == "table" and c.info.response_metrics
      if type(rm) == "table" and type(rm.output_token_times) == "table" then
        for j, v in ipairs(rm.output_token_times) do
          if type(v) == "number" then rm.output_token_times[j] = v + shift end
        end
      end
      if type(rm) == "table" and type(rm.chunk_times) == "table" then
        for j, v in ipairs(rm.chunk_times) do
          if type(v) == "number" then rm.chunk_times[j] = v + shift end
        end
      end
      new[#new + 1] = c
    else
      new[#new + 1] = q
    end
  end
  return new
end

-- The per-request file of the stages made (parts, in order, each from recorded stage
-- part.rec) out of the recording's (path): its requests in start order are the recorded
-- stages' in turn, by their counts (as llmdlua and inference-perf place them); each stage
-- made takes its recorded stage's requests, their times moved to start a second after the
-- stage before ended (start_time, end_time, the output token times), so that the blocks
-- stay in start order. Only a stage asked as recorded (its rate and request count) can take
-- them; else nothing is written and why is returned.
replay_per_request = function(path, dest, rec, parts, seed_of, mark)
  local ok, reqs = pcall(json.read, path)
  if not ok or not json.is_array(reqs) then return "it is not a JSON array of requests" end
  for _, q in ipairs(reqs) do
    if type(q) ~= "table" or type(q.start_time) ~= "number" then return "a request has no start_time" end
  end
  table.sort(reqs, function(x, y) return x.start_time < y.start_time end)
  local blocks, at = {}, 1
  for _, r in ipairs(rec) do
    local c = r.doc.load_summary.count
    if math.type(c) ~= "integer" then return ("stage_%d's load_summary.count is no whole number"):format(r.index) end
    blocks[r.index] = { first = at, n = c }
    at = at + c
  end
  if at - 1 ~= #reqs then
    return ("it holds %d requests, the recorded stage files count %d"):format(#reqs, at - 1)
  end
  for i, p in ipairs(parts) do
    if p.count ~= p.count0 or math.abs(p.rate / p.rec.rate - 1) > 1e-9 then
      return ("stage %d asks %d requests at %g/s, made from recorded stage %d's %d at %g/s, whose requests are not "
        .. "that stage's"):format(i - 1, p.count, p.rate, p.rec.index, p.count0, p.rec.rate)
    end
  end
  local out, cursor, used = json.array {}, nil, {}
  for i, p in ipairs(parts) do
    local b = blocks[p.rec.index]
    -- (a recorded stage taken again, two stages asked at one rate: a measurement of its own,
    -- as a real repeat is, never the same requests again: redraw_block's resample)
    used[p.rec.index] = (used[p.rec.index] or 0) + 1
    local block = {}
    for k = b.first, b.first + b.n - 1 do block[#block + 1] = json.decode(json.encode(reqs[k])) end
    if used[p.rec.index] > 1 then block = redraw_block(block, seed_of and seed_of(i - 1) or tostring(i - 1)) end
    local s0, e1 = math.huge, -math.huge
    for _, q in ipairs(block) do
      if q.start_time < s0 then s0 = q.start_time end
      local e = type(q.end_time) == "number" and q.end_time or q.start_time
      if e > e1 then e1 = e end
    end
    local delta = cursor and (cursor - s0) or 0
    p.requests = {}
    for _, q in ipairs(block) do
      q.response = run_mark.ids(q.response, mark)
      q.start_time = q.start_time + delta
      if type(q.end_time) == "number" then q.end_time = q.end_time + delta end
      local rm = type(q.info) == "table" and q.info.response_metrics
      if type(rm) == "table" and type(rm.output_token_times) == "table" then
        for j, v in ipairs(rm.output_token_times) do
          if type(v) == "number" then rm.output_token_times[j] = v + delta end
        end
      end
      if type(rm) == "table" and type(rm.chunk_times) == "table" then
        for j, v in ipairs(rm.chunk_times) do
          if type(v) == "number" then rm.chunk_times[j] = v + delta end
        end
      end
      out[#out + 1] = q
      p.requests[#p.requests + 1] = q
    end
    cursor = e1 + delta + 1
  end
  json.write(dest .. "/per_request_lifecycle_metrics.json", out)
  return nil
end

-- A stage taken again without per-request data to redraw (redraw_block): its latency and
-- length dicts a new draw all the same, as a real repeat's are: n samples (the stage's
-- successes) drawn from each recorded dict's piecewise-linear distribution (its min,
-- percentiles and max at their fractions, linear between: pct_cdf's inverse) by
-- seeded_draws(seed), and their summary_of (min and max the recorded ones). A dict without
-- every percentile of PCT_KEYS stays as recorded (its distribution is not known well enough
-- to draw from).
local function redraw_stage(d, seed)
  local succ = type(d.successes) == "table" and d.successes or nil
  local n = succ and math.type(succ.count) == "integer" and succ.count or 0
  if n < 2 then return end
  local draw1 = seeded_draws(seed)
  local function redrawn(sm)
    if type(sm) ~= "table" then return sm end
    for _, k in ipairs(PCT_KEYS) do if type(sm[k]) ~= "number" then return sm end end
    local vals = {}
    for _ = 1, math.min(n, 200000) do
      local u = (draw1(1 << 30) - 0.5) / (1 << 30) * 100
      local v = sm.max
      for i = 2, #PCT_KEYS do
        if u <= PCT_AT[i] then
          local a, b = sm[PCT_KEYS[i - 1]], sm[PCT_KEYS[i]]
          v = a + (b - a) * (u - PCT_AT[i - 1]) / (PCT_AT[i] - PCT_AT[i - 1])
          break
        end
      end
      vals[#vals + 1] = v
    end
    -- (its least and greatest the recorded ones, which every draw lies between: the stage's
    -- window is its send span plus the recorded drain, at least the least latency)
    local out = summary_of(vals, sm)
    out.min, out.max = sm.min, sm.max
    return out
  end
  if type(succ.latency) == "table" then
    local keys = {}
    for k in pairs(succ.latency) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do succ.latency[k] = redrawn(succ.latency[k]) end
  end
  for _, k in ipairs { "prompt_len", "output_len" } do succ[k] = redrawn(succ[k]) end
end

-- Where the per-request file was replayed (each part's requests, part.requests): the
-- successes' latency and length summaries as inference-perf computes them, from the requests
-- (request_summaries), never the mixture of the stages' percentiles: each stage taken again
-- (its requests a new draw) in its stage file, and the run's summary over every request.
local function summarize_from_requests(dest, parts, summary)
  local all = {}
  for i, p in ipairs(parts) do
    for _, q in ipairs(p.requests or {}) do all[#all + 1] = q end
    if (p.again or 0) > 0 and type(p.doc.successes) == "table" and p.requests then
      local lat, pl, ol = request_summaries(p.requests, p.doc.successes)
      p.doc.successes.latency = lat
      if p.doc.successes.prompt_len ~= nil then p.doc.successes.prompt_len = pl end
      if p.doc.successes.output_len ~= nil then p.doc.successes.output_len = ol end
      json.write(("%s/stage_%d_lifecycle_metrics.json"):format(dest, i - 1), p.doc)
    end
  end
  local first = parts[1].doc.successes
  if type(summary.successes) ~= "table" or type(first) ~= "table" then return end
  local lat, pl, ol = request_summaries(all, first)
  summary.successes = json.decode(json.encode(summary.successes))
  summary.successes.latency = lat
  -- its throughputs the totals over the run's window, first start to last end (the pauses
  -- between stages in it, as inference-perf's summary over every request has them), not the
  -- stages' throughputs weighted by their own windows
  local s0, e1, n, tin, tout = math.huge, -math.huge, 0, 0, 0
  for _, q in ipairs(all) do
    s0 = math.min(s0, q.start_time)
    if type(q.end_time) == "number" then e1 = math.max(e1, q.end_time) end
    if (q.error == nil or q.error == json.null) and type(q.end_time) == "number" then
      local info = type(q.info) == "table" and q.info or {}
      local rm = type(info.response_metrics) == "table" and info.response_metrics or {}
      local rqm = type(info.request_metrics) == "table" and info.request_metrics or {}
      local inp = type(rqm.text) == "table" and rqm.text.input_tokens or info.input_tokens
      n = n + 1
      tin = tin + (type(inp) == "number" and inp or 0)
      tout = tout + (type(rm.output_tokens) == "number" and rm.output_tokens or 0)
    end
  end
  local tp = summary.successes.throughput
  if e1 > s0 and type(tp) == "table" then
    local w = e1 - s0
    local by = { requests_per_sec = n, input_tokens_per_sec = tin, output_tokens_per_sec = tout,
      total_tokens_per_sec = tin + tout }
    for k, v in pairs(by) do if tp[k] ~= nil then tp[k] = v / w end end
    if summary.benchmark_time_seconds ~= nil then summary.benchmark_time_seconds = w end
  end
  if first.prompt_len ~= nil then summary.successes.prompt_len = pl end
  if first.output_len ~= nil then summary.successes.output_len = ol end
  json.write(dest .. "/summary_lifecycle_metrics.json", summary)
end

run_workload = function(src, dest, wl, harness_name, seed_base, mark)
  mark = mark or 0
  local function as_is(why)
    proc.run { "cp", "-a", src .. "/.", dest }
    return ("%s: the recorded results %s copied as they are"):format(why, src)
  end
  if harness_name and harness_name ~= "inference-perf" then
    return as_is(("harness %s, not inference-perf"):format(tostring(harness_name)))
  end
  local stages = type(wl) == "table" and type(wl.load) == "table" and wl.load.stages or nil
  if type(stages) ~= "table" or #stages == 0 then return as_is("the workload has no load.stages") end
  for _, st in ipairs(stages) do
    if type(st) ~= "table" or type(st.rate) ~= "number" or st.rate <= 0 then
      return as_is("a stage of the workload has no rate")
    end
  end
  local rec = {}
  for i = 0, 999 do
    local f = ("%s/stage_%d_lifecycle_metrics.json"):format(src, i)
    if lfs.attributes(f, "mode") ~= "file" then break end
    local d = json.read(f)
    local ls = type(d.load_summary) == "table" and d.load_summary or {}
    if type(ls.requested_rate) ~= "number" or ls.requested_rate <= 0 then
      return as_is(("%s has no load_summary.requested_rate"):format(f))
    end
    rec[#rec + 1] = { doc = d, rate = ls.requested_rate, index = i }
  end
  if #rec == 0 then return as_is("no inference-perf stage files") end
  local sums = { count = 0, ok = 0, failed = 0, dur = 0, parts = {}, tput = {} }
  local used = {} -- how many stages were made from each recorded stage so far
  for i, want in ipairs(stages) do
    local r = nearest_stage(rec, want.rate)
    local d = json.read(("%s/stage_%d_lifecycle_metrics.json"):format(src, r.index))
    local ls = d.load_summary
    local f = want.rate / r.rate
    -- A stage made from a recorded stage an earlier stage was made from (two stages asked at
    -- one rate) is a measurement of its own, as each stage of a real inference-perf run is:
    -- its sends' delays behind schedule and its send span are its own clock readings
    -- (../shared/fixtures/FORMATS.md, Lifecycle summary schema), never the earlier stage's
    -- file again byte for byte (which the run's reader rightly refuses as one file saved
    -- twice). The k-th reuse reads each schedule delay k x 37 us later and sends k x 0.01 %
    -- slower: within the recorded stages' own spread (their delays span about 2 ms); its
    -- latencies and lengths are a new draw (redraw_stage; redraw_block where the recording has
    -- per-request data), as a real repeat's are, never the recorded ones again.
    used[r.index] = (used[r.index] or 0) + 1
    local again = used[r.index] - 1
    if again > 0 then
      if type(ls.schedule_delay) == "table" then
        for k, v in pairs(ls.schedule_delay) do
          if type(v) == "number" then ls.schedule_delay[k] = v + again * 37e-6 end
        end
      end
      if type(ls.achieved_rate) == "number" then ls.achieved_rate = ls.achieved_rate * (1 - again * 1e-4) end
      redraw_stage(d, ("%s/stage_%d"):format(seed_base or "", i - 1))
    end
    local count0 = ls.count
    local count = type(want.duration) == "number" and want.duration > 0
      and math.max(1, math.floor(want.rate * want.duration + 0.5)) or count0
    local failed0 = type(d.failures) == "table" and type(d.failures.count) == "number" and d.failures.count or 0
    local failed = math.floor(failed0 * count / count0 + 0.5)
    -- the recorded window (inference-perf's first request to last answer: successes /
    -- requests_per_sec) and its drain past the last request (window - send span), where the
    -- stage says them
    local succ0 = type(d.successes) == "table" and d.successes or {}
    local tp0 = type(succ0.throughput) == "table" and succ0.throughput or {}
    local ok0 = type(succ0.count) == "number" and succ0.count or nil
    local w0 = ok0 and ok0 > 0 and type(tp0.requests_per_sec) == "number" and tp0.requests_per_sec > 0
      and ok0 / tp0.requests_per_sec or nil
    local drain0 = w0 and type(ls.send_duration) == "number" and w0 - ls.send_duration or nil
    ls.count, ls.requested_rate = count, want.rate
    if type(ls.achieved_rate) == "number" then
      ls.achieved_rate = ls.achieved_rate * f
      ls.send_duration = count / ls.achieved_rate
    end
    if type(d.successes) == "table" then
      d.successes.count = count - failed
      -- the latencies stay the recorded ones, so does the drain: the window is the new send
      -- span plus the recorded drain (as a real run's is the send span plus its last
      -- requests' latency), and each throughput the recorded total per success, times the
      -- successes, over that window. (Scaling the window with the requests, as before, made
      -- one shorter than the send span plus the least latency, which no real run writes.)
      local w1 = drain0 and drain0 >= 0 and d.successes.count > 0 and ls.send_duration + drain0 or nil
      -- (the stage's first request to last answer, where the build writes it: this window)
      if w1 and type(d.benchmark_time_seconds) == "number" then d.benchmark_time_seconds = w1 end
      for k, v in pairs(type(d.successes.throughput) == "table" and d.successes.throughput or {}) do
        if type(v) == "number" then
          d.successes.throughput[k] = w1 and v * w0 / ok0 * d.successes.count / w1 or v * f
        end
      end
    end
    if type(d.failures) == "table" then d.failures.count = failed end
    run_mark.delay(ls, mark)
    json.write(("%s/stage_%d_lifecycle_metrics.json"):format(dest, i - 1), d)
    local pm = ("%s/stage_%d_prometheus_metrics.json"):format(src, r.index)
    if lfs.attributes(pm, "mode") == "file" and (again > 0 or mark > 0) then
      -- (the server's figures over this stage's own window: its rates by the same slower
      -- sending, not the earlier stage's file again)
      local p = json.read(pm)
      local function slower(t)
        if type(t) ~= "table" then return end
        for k, v in pairs(t) do
          if k == "rate" and type(v) == "number" then t[k] = v * (1 - again * 1e-4) elseif type(v) == "table" then
            slower(v)
          end
        end
      end
      if again > 0 then slower(p) end
      run_mark.rates(p, mark)
      json.write(("%s/stage_%d_prometheus_metrics.json"):format(dest, i - 1), p)
    elseif lfs.attributes(pm, "mode") == "file" then
      proc.run { "cp", pm, ("%s/stage_%d_prometheus_metrics.json"):format(dest, i - 1) }
    end
    local ok = count - failed
    sums.count, sums.ok, sums.failed = sums.count + count, sums.ok + ok, sums.failed + failed
    local tp = type(d.successes) == "table" and d.successes.throughput or nil
    local rps = type(tp) == "table" and tp.requests_per_sec or nil
    local dur = (type(rps) == "number" and rps > 0) and ok / rps or 0
    sums.dur = sums.dur + dur
    for k, v in pairs(type(tp) == "table" and tp or {}) do
      if type(v) == "number" then sums.tput[k] = (sums.tput[k] or 0) + v * dur end
    end
    sums.parts[#sums.parts + 1] = { doc = d, ok = ok, failed = failed, rec = r, count = count, count0 = count0,
      rate = want.rate, again = again }
  end
  -- the summary: inference-perf's over every request of the run
  local first = sums.parts[1].doc
  local summary = { load_summary = { count = sums.count }, successes = { count = sums.ok },
    failures = { count = sums.failed } }
  if #sums.parts == 1 then
    summary.successes, summary.failures = first.successes, first.failures
    summary.load_summary.schedule_delay = first.load_summary.schedule_delay
  else
    local function pooled(get, weight)
      local parts = {}
      for _, p in ipairs(sums.parts) do parts[#parts + 1] = { summary = get(p.doc), weight = weight(p) } end
      return pool_summary(parts)
    end
    summary.load_summary.schedule_delay = pooled(function(doc) return doc.load_summary.schedule_delay end,
      function(p) return p.ok + p.failed end)
    local function ok_w(p) return p.ok end
    if type(first.successes) == "table" then
      local lat = {}
      for k in pairs(type(first.successes.latency) == "table" and first.successes.latency or {}) do
        lat[k] = pooled(function(doc) return doc.successes.latency[k] end, ok_w)
      end
      summary.successes.latency = lat
      for _, k in ipairs { "prompt_len", "output_len" } do
        if type(first.successes[k]) == "table" then
          summary.successes[k] = pooled(function(doc) return doc.successes[k] end, ok_w)
        end
      end
      local tp = {}
      for k, v in pairs(sums.tput) do tp[k] = sums.dur > 0 and v / sums.dur or 0 end
      summary.successes.throughput = tp
    end
    if type(first.failures) == "table" then
      for k, v in pairs(first.failures) do if k ~= "count" then summary.failures[k] = v end end
    end
  end
  json.write(dest .. "/summary_lifecycle_metrics.json", summary)
  local sp = src .. "/summary_prometheus_metrics.json"
  if #sums.parts == 1 and lfs.attributes(("%s/stage_%d_prometheus_metrics.json"):format(dest, 0), "mode") == "file" then
    proc.run { "cp", ("%s/stage_0_prometheus_metrics.json"):format(dest), dest .. "/summary_prometheus_metrics.json" }
  elseif lfs.attributes(sp, "mode") == "file" and mark > 0 then
    local p = json.read(sp)
    run_mark.rates(p, mark)
    json.write(dest .. "/summary_prometheus_metrics.json", p)
  elseif lfs.attributes(sp, "mode") == "file" then
    proc.run { "cp", sp, dest .. "/summary_prometheus_metrics.json" }
  end
  -- the recording's per-request file, as inference-perf writes one beside the stage files
  -- (newuser54 #5: it was dropped, said nowhere): made of the recorded requests of each
  -- stage's recorded stage, or, where they cannot stand for it, left out and said
  local prp = src .. "/per_request_lifecycle_metrics.json"
  if lfs.attributes(prp, "mode") == "file" then
    local why = replay_per_request(prp, dest, rec, sums.parts, function(stage)
      return ("%s/stage_%d"):format(seed_base or "", stage)
    end, mark)
    if why then
      return ("per_request_lifecycle_metrics.json of %s not replayed (the stage and summary files are): %s")
        :format(src, why)
    end
    summarize_from_requests(dest, sums.parts, summary)
  end
  return nil
end

-- run_only.sh -c config.yaml: the launcher pod and the harness, results on the PVC
local function run_only()
  log_call()
  local cfg_path = opt(args, "-c") or opt(args, "--config")
  if not cfg_path then die("run_only.sh: -c config.yaml is required", 1) end
  local cfg = yaml.load_file(cfg_path)
  local h = cfg.harness or {}
  local ns = h.namespace or (cfg.endpoint or {}).namespace
  confine_failures(ns)
  if missing_ns(ns) then die("Error from server (NotFound): " .. missing_ns(ns)) end
  local s = space(ns)
  local pvc = h.results_pvc
  if not s.pvcs[pvc] then die(("Error from server (NotFound): persistentvolumeclaims \"%s\" not found"):format(tostring(pvc))) end
  -- the experiment id: `date +%s` as run_only.sh starts (one second later for a second call
  -- in the same second, which a real run never is)
  local uid = draw("last_uid", os.time())
  print(("🔍 Verifying model %s on endpoint %s/v1/completions using pod llmdbench-verify-model-%d"):format(
    tostring((cfg.endpoint or {}).model), tostring((cfg.endpoint or {}).base_url), uid))
  -- run_only.sh first checks the model answers at base_url (a curl from a pod in the namespace)
  local host = tostring((cfg.endpoint or {}).base_url):match("^https?://([^/:]+)")
  local svcname = host and host:match("^([^%.]+)")
  if not (svcname and s.services[svcname]) then
    print(("curl: (6) Could not resolve host: %s"):format(tostring(host)))
    print("❌ Error while verifying model")
    save()
    os.exit(1)
  end
  -- FAKE_LATE_PODS: another team's serving pods start meanwhile, with the same labels
  if os.getenv("FAKE_LATE_PODS") and not state.counters.late_pods then
    state.counters.late_pods = 1
    s.deployments = s.deployments or {}
    s.deployments["late-team-decode"] = { owner = "helm:late-team", replicas = 2, template = { other = true,
      labels = SERVING(), containers = { { name = "vllm", image = "ghcr.io/llm-d/llm-d-cuda:v0.4.0", restarts = 0 } } } }
    for n in os.getenv("FAKE_LATE_PODS"):gmatch("[^,]+") do
      s.pods[n] = { owner = "helm:late-team", ready = true, other = true, deploy = "late-team-decode",
        labels = { ["llm-d.ai/inference-serving"] = "true", ["app.kubernetes.io/component"] = "vllm",
          ["llm-d.ai/role"] = "decode", ["llm-d.ai/model"] = "qwen-qwen3-0-6b" },
        containers = { { name = "vllm", image = "ghcr.io/llm-d/llm-d-cuda:v0.4.0", restarts = 0 } } }
    end
  end
  -- the old launcher pod is deleted and a new one started
  add_pod(s, "llmdbench-harness-launcher", { app = "llmdbench-harness-launcher" }, h.image or "llm-d-benchmark", "run_only")
  s.pods["llmdbench-harness-launcher"].ready = true
  s.pods["llmdbench-harness-launcher"].waiting = nil
  s.pods["llmdbench-harness-launcher"].pvc = pvc
  -- the n-th benchmark in this namespace copies the n-th folder, round the list again past
  -- its end (the last one for every later benchmark made a second comparison in one fake
  -- cluster compare a run with itself). n counts the benchmarks that ran to their end: one cut
  -- short (Ctrl-C, SIGTERM) and run again on --resume serves the same stack, so it replays the
  -- same recording, as a real cluster serves each run its own stack (newuser54 #5: run A's
  -- benchmark interrupted, then resumed, replayed run B's recording and B then A's). calls
  -- counts every call (FAKE_SLOW_BENCH sleeps in the first one only).
  local key = "bench@" .. tostring(ns)
  local n = (state.counters[key] or 0) + 1
  local calls = "calls@" .. tostring(ns)
  state.counters[calls] = (state.counters[calls] or 0) + 1
  local list = {}
  for d in (os.getenv("FAKE_RESULTS") or ""):gmatch("[^:]+") do list[#list + 1] = d end
  local src = #list > 0 and list[(n - 1) % #list + 1] or nil
  -- as the real run_only.sh: every workload of the config in turn, each its own experiment
  -- id <uid>_<workload> and results folder /requests/<harness>_<uid>_<workload>_<stack>
  local names = {}
  if type(cfg.workload) == "table" then
    local ok, ks = pcall(yaml.keys, cfg.workload)
    if ok and type(ks) == "table" then names = ks end
    if #names == 0 then
      for k in pairs(cfg.workload) do names[#names + 1] = k end
      table.sort(names)
    end
  end
  if #names == 0 then names = { "workload" } end
  local slow = tonumber(os.getenv("FAKE_SLOW_BENCH") or "")
  for wi, workload in ipairs(names) do
    local exp = ("%s_%d_%s_%s"):format(h.name or "inference-perf", uid, workload,
      (cfg.endpoint or {}).stack_name or "stack")
    local dest = DIR .. "/pvc/" .. ns .. "/" .. pvc .. "/" .. exp
    proc.run { "mkdir", "-p", dest }
    print("==> Running harness " .. tostring(h.name) .. " workload " .. workload)
    io.stdout:flush()
    if slow and state.counters[calls] == 1 and wi == 1 then
      save()
      -- (what a test interrupting the benchmark waits for: the state saved, the lock let go,
      -- so the kill lands here and not inside save(), which would leave .lock behind)
      local f = assert(io.open(DIR .. "/bench-sleeping", "w"))
      f:close()
      proc.run { "sleep", tostring(slow) }
    end
    if src and not failing("bench_nojson") then
      local wl = type(cfg.workload) == "table" and cfg.workload[workload] or nil
      -- (the cluster's benchmarks before this one, any namespace: its files' own marks, run_mark)
      local how = run_workload(src, dest, wl, h.name, ("%s/%s/%s"):format(tostring(ns),
        tostring((cfg.endpoint or {}).stack_name), workload), draw("bench_serial") - 1)
      if how then print("fake run_only.sh: " .. how) end
    end
    local ef = io.open(dest .. "/stderr.log", "w")
    if failing("bench_stderr") then
      ef:write("INFO starting\nTraceback (most recent call last):\n  File \"harness.py\"\nKilled\n")
    else
      ef:write("INFO starting\nINFO done\n")
    end
    ef:close()
    print("==> Results in /requests/" .. exp)
  end
  -- (ran to its end: the next benchmark in the namespace replays the next recording)
  state.counters[key] = n
  save()
end

if tool ~= "run_only.sh" then confine_failures(ns_of(args)) end
if tool == "kubectl" then
  kubectl()
  if raw_answer then io.write(raw_answer, "\n") end
elseif tool == "helm" then helm()
elseif tool == "helmfile" then helmfile()
elseif tool == "oc" then oc()
elseif tool == "run_only.sh" then run_only()
else die("fake: unknown tool " .. tostring(tool), 2) end
save()
