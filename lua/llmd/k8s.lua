-- llmd.k8s: every kubectl, helm, helmfile and oc call, scoped to one namespace.
--
--   local k8s = require "llmd.k8s"
--   local k = k8s.new{ namespace = "bench", log = ws .. "/commands.log", dry_run = false,
--                      bins = { kubectl = "kubectl", helm = "helm", helmfile = "helmfile", oc = "oc" } }
--   local r = k:kubectl({ "get", "pods", "-o", "json" })        -- kubectl -n bench get pods -o json
--   local pods = k:json({ "get", "pods" })                      -- decoded
--   k:helm({ "uninstall", "r1", "--ignore-not-found" })          -- helm uninstall ... -n bench
--   k:helmfile({ "apply", "-e", "cuda" }, { cwd = guide })       -- helmfile -n bench apply -e cuda
--
-- Rules, checked before anything runs:
-- - the namespace is added to every call; an explicit other namespace, --all-namespaces
--   or -A is refused;
-- - creating, changing or deleting a cluster-scoped kind (Namespace, Node, ClusterRole,
--   ClusterRoleBinding, StorageClass, CRD, PersistentVolume, ...) is refused, also inside
--   manifests given on stdin; reading them (kubectl get nodes) is allowed.
-- Every call is appended to the log (time, argv, exit code, duration, stderr tail);
-- transient API errors are retried with backoff; a call that fails for good raises with
-- the command and its stderr (unless check = false). With dry_run, commands that change
-- something are printed and not run; reads run only when opts.read_in_dry_run.
local proc = require "llmd.proc"

local M = {}

-- kinds that live outside any namespace (plural, singular and short names)
local CLUSTER_KINDS = {}
for _, k in ipairs {
  "namespace", "namespaces", "ns", "node", "nodes", "no", "clusterrole", "clusterroles",
  "clusterrolebinding", "clusterrolebindings", "storageclass", "storageclasses", "sc",
  "customresourcedefinition", "customresourcedefinitions", "crd", "crds", "persistentvolume",
  "persistentvolumes", "pv", "priorityclass", "priorityclasses", "pc",
  "mutatingwebhookconfiguration", "mutatingwebhookconfigurations", "validatingwebhookconfiguration",
  "validatingwebhookconfigurations", "apiservice", "apiservices", "certificatesigningrequest",
  "certificatesigningrequests", "csr", "ingressclass", "ingressclasses", "runtimeclass", "runtimeclasses",
  "gatewayclass", "gatewayclasses", "volumeattachment", "volumeattachments", "csidriver", "csidrivers",
  "csinode", "csinodes", "podsecuritypolicy", "clusterissuer", "clusterissuers",
} do CLUSTER_KINDS[k] = true end
M.CLUSTER_KINDS = CLUSTER_KINDS

local MUTATING = {
  create = true, apply = true, delete = true, patch = true, edit = true, replace = true, label = true,
  annotate = true, taint = true, cordon = true, uncordon = true, drain = true, set = true, scale = true,
  autoscale = true, expose = true, rollout = true, run = true,
}

-- transient API-server answers worth another try
M.TRANSIENT = {
  "the server is currently unable to handle the request", "etcdserver: request timed out",
  "TLS handshake timeout", "i/o timeout", "connection reset by peer", "Too Many Requests",
  "context deadline exceeded", "the object has been modified; please apply your changes",
  "net/http: request canceled", "unable to connect to the server", "was refused - did you specify the right host or port",
  "error dialing backend", "http2: client connection lost",
}

-- The command as a POSIX shell would take it (for logs and scripts).
function M.cmdline(argv)
  local quote = require("llmd.template").helpers.sh
  local t = {}
  for i, a in ipairs(argv) do t[i] = quote(a) end
  return table.concat(t, " ")
end

local function kind_base(word)
  -- "clusterrole/x", "crd.apiextensions.k8s.io", "nodes,pods"
  local out = {}
  for part in tostring(word):gmatch("[^,]+") do
    local k = part:match("^([^/%.]+)") or part
    out[#out + 1] = k:lower()
  end
  return out
end

-- Refuses what this layer must never do; returns nothing or raises.
function M.check(tool, args, ns, stdin)
  local function refuse(why)
    error(("refused: %s %s: %s (llmdlua only acts inside namespace %s)"):format(tool, M.cmdline(args), why, ns), 0)
  end
  for i, a in ipairs(args) do
    if a == "--all-namespaces" or a == "-A" then refuse("all namespaces") end
    local other = (a == "-n" or a == "--namespace") and args[i + 1] or a:match("^%-%-namespace=(.*)$")
      or a:match("^%-n=(.*)$")
    if other and other ~= ns then refuse("a different namespace (" .. other .. ")") end
  end
  if tool ~= "kubectl" and tool ~= "oc" then return end
  local verb
  for _, a in ipairs(args) do
    if a:sub(1, 1) ~= "-" then verb = a; break end
  end
  if not MUTATING[verb] then return end
  local seen_verb = false
  for i, a in ipairs(args) do
    if seen_verb and a:sub(1, 1) ~= "-" and args[i - 1] ~= "-f" and args[i - 1] ~= "-k" and args[i - 1] ~= "-l" then
      for _, k in ipairs(kind_base(a)) do
        if CLUSTER_KINDS[k] then refuse(("%s of the cluster-scoped kind '%s'"):format(verb, k)) end
      end
      if verb == "create" and i == 2 then break end
    end
    if a == verb then seen_verb = true end
  end
  -- manifests on stdin: every kind must be namespaced, every namespace ours
  if stdin then
    for kind in stdin:gmatch("\n?%s*kind:%s*[\"']?([%w]+)") do
      if CLUSTER_KINDS[kind:lower()] then refuse(("a manifest of the cluster-scoped kind %s"):format(kind)) end
    end
    for kind in stdin:gmatch('"kind"%s*:%s*"([%w]+)"') do
      if CLUSTER_KINDS[kind:lower()] then refuse(("a manifest of the cluster-scoped kind %s"):format(kind)) end
    end
    for other in stdin:gmatch("\n%s*namespace:%s*[\"']?([%w%-%.]+)") do
      if other ~= ns then refuse(("a manifest for namespace %s"):format(other)) end
    end
  end
end

local Client = {}
Client.__index = Client

function M.new(opts)
  if type(opts.namespace) ~= "string" or opts.namespace == "" then
    error("k8s.new: a namespace is required", 2)
  end
  local bins = { kubectl = "kubectl", helm = "helm", helmfile = "helmfile", oc = "oc" }
  for k, v in pairs(opts.bins or {}) do bins[k] = v end
  return setmetatable({
    ns = opts.namespace, bins = bins, log_path = opts.log, dry_run = opts.dry_run, out = opts.out or io.stdout,
    retries = opts.retries or 4, backoff = opts.backoff or 1.0, env = opts.env, calls = {},
  }, Client)
end

function Client:log(argv, r, elapsed, note)
  local entry = { time = os.date("!%Y-%m-%dT%H:%M:%SZ"), argv = argv, code = r and (r.code or r.signal and -r.signal),
    elapsed = elapsed, note = note }
  self.calls[#self.calls + 1] = entry
  if not self.log_path then return end
  local f = io.open(self.log_path, "a")
  if not f then return end
  local tail = ""
  if r and r.stderr and r.stderr ~= "" then
    local lines = {}
    for l in r.stderr:gmatch("[^\n]+") do lines[#lines + 1] = l end
    tail = " | stderr: " .. table.concat(lines, " / ", math.max(1, #lines - 2))
  end
  f:write(("%s %s | exit %s | %.2f s%s%s\n"):format(entry.time, M.cmdline(argv), tostring(entry.code or "-"),
    elapsed or 0, note and (" | " .. note) or "", tail))
  f:close()
end

local function sleep(s)
  if s > 0 then proc.run { "sleep", ("%.3f"):format(s) } end
end

-- kubectl writes "Unable to connect to the server", client-go "unable to connect ...": the
-- patterns match whatever the case
local function is_transient(text)
  text = text:lower()
  for _, p in ipairs(M.TRANSIENT) do
    if text:find(p:lower(), 1, true) then return true end
  end
  return false
end
M.is_transient = is_transient

-- Runs tool with args (namespace inserted). opts: stdin, cwd, check (default true),
-- timeout, read (the call changes nothing: it runs even in a dry run when
-- read_in_dry_run), stdout (as proc.run: a line callback for progress).
-- The argv a call runs: the binary, the namespace, the arguments.
function Client:argv(tool, args)
  local argv = { self.bins[tool] or tool }
  if tool == "helm" then
    for _, a in ipairs(args) do argv[#argv + 1] = a end
    argv[#argv + 1] = "-n"
    argv[#argv + 1] = self.ns
  elseif tool == "oc" and args[1] == "project" then
    -- `oc project -q` reads the current project: it has no namespace to add
    for _, a in ipairs(args) do argv[#argv + 1] = a end
  else
    argv[#argv + 1] = "-n"
    argv[#argv + 1] = self.ns
    for _, a in ipairs(args) do argv[#argv + 1] = a end
  end
  return argv
end

function Client:call(tool, args, opts)
  opts = opts or {}
  M.check(tool, args, self.ns, opts.stdin)
  local argv = self:argv(tool, args)
  if self.dry_run and not (opts.read and opts.read_in_dry_run) then
    self.out:write("[dry-run] " .. M.cmdline(argv) .. (opts.cwd and ("   (in " .. opts.cwd .. ")") or "") .. "\n")
    self:log(argv, { code = 0 }, 0, "dry run: not run")
    return { ok = true, code = 0, stdout = "", stderr = "", dry_run = true }
  end
  local attempt, r = 0
  while true do
    attempt = attempt + 1
    local t0 = os.time()
    r = require("llmd.steps").exec(argv, { stdin = opts.stdin, cwd = opts.cwd, timeout = opts.timeout,
      env = self.env, stdout = opts.stdout, stderr = "capture" })
    self:log(argv, r, r.elapsed or (os.time() - t0), attempt > 1 and ("attempt " .. attempt) or nil)
    local said = (r.stderr or "") .. (type(r.stdout) == "string" and r.stdout or "")
    if r.ok or attempt >= self.retries or not is_transient(said) then
      break
    end
    sleep(self.backoff * 2 ^ (attempt - 1))
  end
  if not r.ok and opts.check ~= false then
    local err = (r.stderr or ""):gsub("%s+$", "")
    error(("%s: %s%s"):format(M.cmdline(argv), r.timed_out and "timed out" or ("exit " .. tostring(r.code or r.signal)),
      err ~= "" and (": " .. err) or ""), 0)
  end
  return r
end

function Client:kubectl(args, opts) return self:call("kubectl", args, opts) end
function Client:helm(args, opts) return self:call("helm", args, opts) end
function Client:helmfile(args, opts) return self:call("helmfile", args, opts) end
function Client:oc(args, opts) return self:call("oc", args, opts) end

-- kubectl ... -o json, decoded (reads run in a dry run only with read_in_dry_run).
function Client:json(args, opts)
  opts = opts or {}
  local a = {}
  for i, x in ipairs(args) do a[i] = x end
  a[#a + 1] = "-o"
  a[#a + 1] = "json"
  opts.read = true
  local r = self:kubectl(a, opts)
  if r.dry_run then return { items = {} } end
  if not r.ok then return nil, r end
  local ok, v = pcall(require("llmd.json").decode, r.stdout, M.cmdline(a))
  if not ok then error(v, 0) end
  return v
end

-- A background process (kubectl port-forward), logged like the others.
function Client:spawn(tool, args, opts)
  M.check(tool, args, self.ns)
  local argv = self:argv(tool, args)
  self:log(argv, { code = 0 }, 0, "started in the background")
  if self.dry_run then
    self.out:write("[dry-run] " .. M.cmdline(argv) .. " &\n")
    return nil
  end
  return proc.spawn(argv, opts)
end

return M
