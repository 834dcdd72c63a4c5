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
-- Rules, checked before anything runs (flags parsed as the tools parse them: every
-- spelling, combined short flags, flags with values):
-- - the namespace is added to every call; any namespace flag, --all-namespaces/-A, and
--   the flags that point elsewhere (--context, --kubeconfig, --server, --as, --token, ...)
--   are refused; so is a flag the layer does not know (it could take the next word);
-- - only known verbs run (a user's deploy.commands: fewer - no drain, cordon, debug,
--   certificate, adm, new-project, exec, ...);
-- - creating, changing or deleting a cluster-scoped kind (Namespace, Node, ClusterRole,
--   ClusterRoleBinding, StorageClass, CRD, PersistentVolume, Project, ...) is refused, also
--   inside manifests (stdin, -f files and folders, kustomizations rendered first), which
--   are parsed - YAML and JSON, every document - and must not name another namespace;
--   reading them (kubectl get nodes) is allowed.
-- Every call is appended to the log (time, argv, exit code, duration, stderr tail);
-- transient API errors are retried with backoff; a call that fails for good raises with
-- the command and its stderr (unless check = false). With dry_run, commands that change
-- something are printed and not run; reads run only when opts.read_in_dry_run.
local proc = require "llmd.proc"
local exitstatus = require "llmd.exitstatus"

local M = {}
-- the API server of the current context, as `kubectl config view --minify -o` prints it
M.SERVER_JSONPATH = "jsonpath={.clusters[0].cluster.server}"

-- kinds that live outside any namespace (plural, singular and short names; OpenShift's too)
local CLUSTER_KINDS = {}
for _, k in ipairs {
  "namespace", "namespaces", "ns", "node", "nodes", "no", "clusterrole", "clusterroles",
  "clusterrolebinding", "clusterrolebindings", "storageclass", "storageclasses", "sc",
  "customresourcedefinition", "customresourcedefinitions", "crd", "crds", "persistentvolume",
  "persistentvolumes", "pv", "priorityclass", "priorityclasses", "pc",
  "mutatingwebhookconfiguration", "mutatingwebhookconfigurations", "validatingwebhookconfiguration",
  "validatingwebhookconfigurations", "validatingadmissionpolicy", "validatingadmissionpolicies",
  "validatingadmissionpolicybinding", "validatingadmissionpolicybindings", "apiservice", "apiservices",
  "certificatesigningrequest", "certificatesigningrequests", "csr", "ingressclass", "ingressclasses",
  "runtimeclass", "runtimeclasses", "gatewayclass", "gatewayclasses", "volumeattachment", "volumeattachments",
  "csidriver", "csidrivers", "csinode", "csinodes", "podsecuritypolicy", "podsecuritypolicies", "psp",
  "clusterissuer", "clusterissuers", "flowschema", "flowschemas", "prioritylevelconfiguration",
  "prioritylevelconfigurations", "componentstatus", "componentstatuses", "cs", "tokenreview", "tokenreviews",
  "selfsubjectaccessreview", "subjectaccessreview", "subjectaccessreviews",
  -- OpenShift
  "project", "projects", "projectrequest", "projectrequests", "clusterresourcequota", "clusterresourcequotas",
  "securitycontextconstraints", "scc", "user", "users", "group", "groups", "identity", "identities",
  "oauthclient", "oauthclients", "clusteroperator", "clusteroperators", "clusterversion", "clusterversions",
  "machineconfig", "machineconfigs", "machineconfigpool", "machineconfigpools", "imagecontentsourcepolicy",
  "clusterrolebindingrestriction",
} do CLUSTER_KINDS[k] = true end
M.CLUSTER_KINDS = CLUSTER_KINDS

-- transient API-server answers worth another try. (A Conflict - "the object has been
-- modified" - is one only for a write that sent no precondition: sent again, the tool
-- writes over the latest version, as the server's message says. A caller that sent one
-- reads the Conflict as its answer: opts.conflict, below.)
M.TRANSIENT = {
  "the server is currently unable to handle the request", "etcdserver: request timed out",
  "TLS handshake timeout", "i/o timeout", "connection reset by peer", "Too Many Requests",
  "context deadline exceeded", "the object has been modified; please apply your changes",
  "net/http: request canceled", "unable to connect to the server",
  "was refused - did you specify the right host or port",
  "error dialing backend", "http2: client connection lost",
}

-- The command as a POSIX shell would take it (for logs and scripts).
function M.cmdline(argv)
  local quote = require("llmd.template").helpers.sh
  local t = {}
  for i, a in ipairs(argv) do t[i] = quote(a) end
  return table.concat(t, " ")
end

-- Flags --------------------------------------------------------------------------------------
--
-- The tools parse flags with pflag: --name=value, --name value, -x value, -xvalue, -x=value,
-- combined short booleans (-Aw) with a value-taking one last (-Anfoo), "--" ends the flags,
-- flags anywhere among the arguments. To know which word is the verb and which a flag's
-- value, every flag the layer lets through must be known here, with whether it takes a
-- value; an unknown one is refused (write it --name=value to pass it).

local function set(list)
  local t = {}
  for w in list:gmatch("%S+") do t[w] = true end
  return t
end

local KUBECTL_VALUE = set [[
  as as-group as-uid cache-dir certificate-authority client-certificate client-key cluster context kubeconfig
  namespace password profile profile-output request-timeout server tls-server-name token user username v vmodule
  log-dir log-file log-file-max-size log-flush-frequency stderrthreshold log-backtrace-at chunk-size
  field-selector selector filename kustomize output template sort-by label-columns timeout grace-period for type
  from-literal from-file from-env-file image port target-port replicas current-replicas resource-version patch
  field-manager prune-allowlist since since-time tail limit-bytes max-log-requests pod-running-timeout address
  raw subresource overrides env labels serviceaccount restart schedule container protocol name external-ip
  load-balancer-ip session-affinity cluster-ip generator min max cpu-percent revision to-revision selector
  clusterrole role serviceaccount user group verb resource resource-name rule secret docker-server docker-username
  docker-password docker-email cert key data-key from annotations cidr replicas local-ssd
  tcp clusterip node-port external-name
]]
local KUBECTL_BOOL = set [[
  all-namespaces all watch watch-only ignore-not-found timestamps previous follow stdin tty recursive overwrite
  server-side force force-conflicts wait show-labels no-headers quiet record insecure-skip-tls-verify
  match-server-version disable-compression warnings-as-errors all-containers prefix ignore-errors now local
  show-kind export help cascade dry-run prune validate allow-missing-template-keys show-managed-fields
  windows-line-endings save-config rm attach leave-stdin-open privileged skip-headers logtostderr alsologtostderr
  add-dir-header one-output openapi-patch ignore-daemonsets delete-emptydir-data keep-annotations append-hash
  list exit-code minify
]]
-- shorthands: what each stands for; per verb where kubectl's differ
local KUBECTL_SHORT = { n = "namespace", A = "all-namespaces", l = "selector", f = "filename", k = "kustomize",
  o = "output", c = "container", w = "watch", i = "stdin", t = "tty", R = "recursive", L = "label-columns",
  v = "v", s = "server", p = "patch", q = "quiet", h = "help", e = "env" }
local KUBECTL_SHORT_BY_VERB = { logs = { f = "follow", p = "previous" }, exec = { p = "pod" }, attach = { p = "pod" } }

local HELM_VALUE = set [[
  kube-context kubeconfig namespace kube-apiserver kube-as-user kube-as-group kube-ca-file kube-token
  kube-tls-server-name burst-limit qps registry-config repository-cache repository-config values set set-string
  set-file set-json set-literal version output timeout description repo username password ca-file cert-file
  key-file selector post-renderer post-renderer-args max revision filter name-template history-max labels
  keyring offset time-format
]]
local HELM_BOOL = set [[
  install wait wait-for-jobs atomic force reuse-values reset-values reset-then-reuse-values create-namespace
  dry-run debug devel skip-crds no-hooks ignore-not-found keep-history cleanup-on-fail dependency-update
  render-subchart-notes disable-openapi-validation insecure-skip-tls-verify plain-http all all-namespaces
  deployed failed pending superseded uninstalled uninstalling short date reverse help generate-name replace
  verify pass-credentials take-ownership enable-dns hide-notes hide-secret skip-schema-validation no-headers
  include-crds skip-tests validate is-upgrade
]]
local HELM_SHORT = { n = "namespace", f = "values", o = "output", l = "selector", a = "all", A = "all-namespaces",
  q = "short", d = "date", r = "reverse", m = "max", g = "generate-name", i = "install", h = "help" }

local HELMFILE_VALUE = set [[
  file environment namespace kube-context selector state-values-set state-values-set-string state-values-file
  helm-binary chart log-level kustomize-binary args concurrency set values post-renderer post-renderer-args
  cascade context output output-dir output-dir-template timeout kubeconfig
]]
local HELMFILE_BOOL = set [[
  color no-color quiet debug interactive allow-no-matching-release skip-deps enable-live-output skip-refresh
  disable-force-update sequential-helm suppress-diff skip-diff-on-install suppress-secrets wait wait-for-jobs
  skip-needs include-needs include-transitive-needs skip-cleanup skip-crds reset-values reuse-values
  detailed-exitcode retain-values-files include-crds skip-tests skip-charts help
]]
local HELMFILE_SHORT = { f = "file", e = "environment", n = "namespace", l = "selector", b = "helm-binary",
  c = "chart", k = "kustomize-binary", q = "quiet", i = "interactive", h = "help" }

local TABLES = {
  kubectl = { value = KUBECTL_VALUE, bool = KUBECTL_BOOL, short = KUBECTL_SHORT, by_verb = KUBECTL_SHORT_BY_VERB },
  oc = { value = KUBECTL_VALUE, bool = KUBECTL_BOOL, short = KUBECTL_SHORT, by_verb = KUBECTL_SHORT_BY_VERB },
  helm = { value = HELM_VALUE, bool = HELM_BOOL, short = HELM_SHORT, by_verb = {} },
  helmfile = { value = HELMFILE_VALUE, bool = HELMFILE_BOOL, short = HELMFILE_SHORT, by_verb = {} },
}
-- "exec -p POD" and "patch -p PATCH" take values; "logs -p" does not
KUBECTL_VALUE.pod = true

-- Parses args as tool does: { flags = { {name =, value =, spelling =} }, words = {...},
-- after = {...} (after "--") }; raises on a flag it does not know.
function M.parse(tool, args)
  local t = TABLES[tool] or TABLES.kubectl
  local out = { flags = {}, words = {}, after = {} }
  local i = 1
  local function add(name, value, spelling)
    out.flags[#out.flags + 1] = { name = name, value = value, spelling = spelling }
  end
  while i <= #args do
    local a = tostring(args[i])
    if a == "--" then
      for j = i + 1, #args do out.after[#out.after + 1] = args[j] end
      break
    elseif a:sub(1, 2) == "--" then
      local name, value = a:match("^%-%-([^=]+)=(.*)$")
      if name then
        if not (t.value[name] or t.bool[name]) then error({ unknown = a }) end
        add(name, value, a)
      else
        name = a:sub(3)
        if t.value[name] then
          if i == #args then error({ missing = a }) end
          add(name, args[i + 1], a .. " " .. tostring(args[i + 1]))
          i = i + 1
        elseif t.bool[name] then
          add(name, true, a)
        else
          error({ unknown = a })
        end
      end
    elseif a:sub(1, 1) == "-" and #a > 1 then
      local j = 2
      while j <= #a do
        local c = a:sub(j, j)
        local verb_map = t.by_verb[out.words[1] or ""] or {}
        local name = verb_map[c] or t.short[c]
        if not name then error({ unknown = "-" .. c .. " (in " .. a .. ")" }) end
        if t.value[name] and not t.bool[name] then
          local rest = a:sub(j + 1)
          if rest ~= "" then
            add(name, (rest:gsub("^=", "")), a)
          else
            if i == #args then error({ missing = a }) end
            add(name, args[i + 1], a .. " " .. tostring(args[i + 1]))
            i = i + 1
          end
          break
        else
          local rest = a:sub(j + 1)
          if rest:sub(1, 1) == "=" then add(name, rest:sub(2), a); break end
          add(name, true, a)
        end
        j = j + 1
      end
    else
      out.words[#out.words + 1] = a
    end
    i = i + 1
  end
  return out
end

-- flags that point a command elsewhere than our namespace in our cluster as ourselves
local REDIRECT = set [[
  namespace all-namespaces context kube-context kubeconfig cluster user server as as-group as-uid token
  kube-apiserver kube-as-user kube-as-group kube-token kube-ca-file create-namespace raw prune prune-allowlist
]]

-- Verbs each tool may run: ours (the layer's own calls) and, stricter, those of a user's
-- deploy.commands.
local VERBS = {
  kubectl = set [[get describe apply create delete patch label annotate rollout wait scale set replace expose logs
    exec cp port-forward version api-resources explain diff kustomize config top autoscale]],
  helm = set "list upgrade install uninstall status get history template dependency dep repo pull show version lint",
  helmfile = set "apply sync diff template lint deps repos build list status write-values fetch",
}
VERBS.oc = VERBS.kubectl
local USER_VERBS = {
  kubectl = set [[get describe apply create patch label annotate rollout wait scale set replace expose logs version
    api-resources explain diff kustomize top autoscale delete]],
  helm = set "upgrade install list status get template dependency dep repo pull show version lint history search",
  helmfile = set "apply sync diff template lint deps repos build list status write-values fetch",
}
USER_VERBS.oc = USER_VERBS.kubectl
local READS = set [[get describe logs version api-resources explain diff kustomize top wait config list status history
  template show lint search]]
-- verbs whose first word after them is a subcommand, the resources following it
local SUBCOMMAND = set "rollout set create"

local function kind_base(word)
  -- "clusterrole/x", "crd.apiextensions.k8s.io", "nodes,pods", "ClusterRoles.rbac.authorization.k8s.io/x"
  local out = {}
  for part in tostring(word):gmatch("[^,]+") do
    local k = part:match("^([^/%.]+)") or part
    out[#out + 1] = k:lower()
  end
  return out
end

-- Every object of a manifest stream (YAML or JSON, every document, List items), parsed;
-- raises with why it cannot be read.
function M.manifest_objects(text, name)
  local yaml = require "llmd.yaml"
  local ok, docs = pcall(yaml.load_all, text)
  if not ok then
    -- a stream of JSON objects one after the other is also what kubectl takes
    local json = require "llmd.json"
    local objs, pos = {}, 1
    local okj = pcall(function()
      while pos <= #text do
        local s = text:find("%S", pos)
        if not s then break end
        local depth, instr, esc, e = 0, false, false, nil
        for k = s, #text do
          local c = text:sub(k, k)
          if instr then
            if esc then esc = false elseif c == "\\" then esc = true elseif c == '"' then instr = false end
          elseif c == '"' then instr = true
          elseif c == "{" or c == "[" then depth = depth + 1
          elseif c == "}" or c == "]" then
            depth = depth - 1
            if depth == 0 then e = k; break end
          end
        end
        if not e then error("unterminated") end
        objs[#objs + 1] = json.decode(text:sub(s, e), name)
        pos = e + 1
      end
    end)
    if not okj then error(("%s: cannot be read as YAML or JSON (%s)"):format(name, tostring(docs)), 0) end
    docs = objs
  end
  local out = {}
  local function add(d)
    if type(d) ~= "table" then return end
    if type(d.kind) == "string" and d.kind:match("List$") and type(d.items) == "table" then
      for _, it in ipairs(d.items) do add(it) end
    else
      out[#out + 1] = d
    end
  end
  for _, d in ipairs(docs or {}) do add(d) end
  return out
end

-- The one rule for an object about to be created or changed, whoever applies it (kubectl
-- -f/-k/stdin, a Helm chart, a helmfile): nil when it may be, else "cluster" and its kind
-- (a cluster-scoped kind) or "namespace" and the other namespace it names. An object
-- without a namespace lands in ours (kubectl -n, helm -n).
function M.violation(o, ns)
  local kind = type(o.kind) == "string" and o.kind or nil
  if kind and CLUSTER_KINDS[kind:lower()] then return "cluster", kind end
  local md = type(o.metadata) == "table" and o.metadata or {}
  if md.namespace ~= nil and md.namespace ~= ns then return "namespace", tostring(md.namespace) end
end

-- Refuses a manifest with a cluster-scoped kind or another namespace. seen (optional) is
-- given the objects checked.
function M.check_manifest(text, ns, name, refuse, seen)
  local ok, objs = pcall(M.manifest_objects, text, name)
  if not ok then refuse(tostring(objs) .. ": not checked, so not run") end
  if seen then seen(objs, name) end
  for _, o in ipairs(objs) do
    local why, what = M.violation(o, ns)
    if why == "cluster" then
      refuse(("a manifest of the cluster-scoped kind %s (%s)"):format(what, name))
    elseif why == "namespace" then
      refuse(("a manifest for namespace %s (%s)"):format(what, name))
    end
  end
end

-- Charts: what `helm install/upgrade` and `helmfile apply/sync` would create is rendered
-- first (`helm template` / `helmfile template`, same arguments) and every document checked
-- by the rule above.
--
-- upgrade's own flags, which `helm template` does not take (and --dry-run, --output: a
-- render is always client-side and prints YAML)
local HELM_NOT_TEMPLATE = set [[
  install force reset-values cleanup-on-fail history-max dry-run output include-crds skip-crds
]]
-- flags whose render depends on the release already installed: not reproducible
local UNRENDERABLE = set "reuse-values reset-then-reuse-values"
-- what `helmfile template` takes of apply/sync's flags: the global ones and its own
local HELMFILE_TEMPLATE = set [[
  file environment selector state-values-set state-values-set-string state-values-file helm-binary chart log-level
  kustomize-binary color no-color quiet debug allow-no-matching-release skip-deps skip-refresh disable-force-update
  enable-live-output args set values concurrency skip-needs include-needs include-transitive-needs skip-cleanup
  post-renderer post-renderer-args skip-tests
]]
local CHANGES_CHARTS = { helm = set "install upgrade", helmfile = set "apply sync" }

local function truthy(v) return v == true or v == "true" or v == "1" end

-- For a helm/helmfile call that creates or changes objects: the arguments of the render
-- that shows them (nil for any other call), whether it includes the chart's crds/, and
-- the words naming what is rendered (for messages). Raises { unrenderable = flag }.
function M.render_args(tool, args)
  local p = M.parse(tool, args)
  local verb = p.words[1]
  if not (CHANGES_CHARTS[tool] and CHANGES_CHARTS[tool][verb]) then return nil end
  local flags = {}
  for _, f in ipairs(p.flags) do flags[f.name] = f.value end
  local out = { "template" }
  for i = 2, #p.words do out[#out + 1] = p.words[i] end
  for _, f in ipairs(p.flags) do
    if UNRENDERABLE[f.name] and truthy(f.value) then error({ unrenderable = f.spelling }) end
    local keep
    if tool == "helm" then keep = not HELM_NOT_TEMPLATE[f.name] and not UNRENDERABLE[f.name]
    else keep = HELMFILE_TEMPLATE[f.name] end
    if keep then
      out[#out + 1] = f.value == true and ("--" .. f.name) or ("--" .. f.name .. "=" .. tostring(f.value))
    end
  end
  -- crds/ is installed by an install (upgrade --install of a new release too), never by
  -- an upgrade, and not with --skip-crds; helmfile apply/sync install them likewise
  local crds = not truthy(flags["skip-crds"])
  if tool == "helm" and verb == "upgrade" and not truthy(flags.install) then crds = false end
  if crds then out[#out + 1] = "--include-crds" end
  if #p.after > 0 then
    out[#out + 1] = "--"
    for _, a in ipairs(p.after) do out[#out + 1] = a end
  end
  local what
  if tool == "helm" then
    local names = {}
    for i = 2, #p.words do names[#names + 1] = p.words[i] end
    local release, chart = names[1], names[2]
    if truthy(flags["generate-name"]) or flags["name-template"] then release, chart = "(generated name)", names[1] end
    what = ("helm %s%s %s (chart %s)"):format(verb, truthy(flags.install) and " --install" or "", tostring(release),
      tostring(chart))
  else
    what = "helmfile " .. verb
    for _, f in ipairs(p.flags) do
      if f.name == "file" or f.name == "environment" or f.name == "selector" then what = what .. " " .. f.spelling end
    end
  end
  return out, crds, what
end

-- Checks a render (helm template's output: `---` documents each after a "# Source:
-- CHART/templates/FILE" line); refuses with what renders what, and why. seen (optional) is
-- given the objects checked.
function M.check_rendered(text, ns, what, refuse_line, seen)
  local source, docs = nil, {}
  local cur = {}
  local function flush()
    docs[#docs + 1] = { text = table.concat(cur, "\n"), source = source }
    cur = {}
  end
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    if line:match("^%-%-%-%s*$") or line:match("^%-%-%-%s+#") then
      flush()
    else
      local src = line:match("^# Source: (.-)%s*$")
      if src then source = src end
      cur[#cur + 1] = line
    end
  end
  flush()
  for _, d in ipairs(docs) do
    local from = d.source or "the render"
    local ok, objs = pcall(M.manifest_objects, d.text, from)
    if not ok then
      refuse_line(("%s: its render cannot be read (%s), so it is not run"):format(what, tostring(objs)))
    end
    if seen then seen(objs, from) end
    for _, o in ipairs(objs) do
      local why, x = M.violation(o, ns)
      if why then
        local md = type(o.metadata) == "table" and o.metadata or {}
        local labels = type(md.labels) == "table" and md.labels or {}
        local rel = labels["app.kubernetes.io/instance"] or labels.release
        local obj = ("%s '%s' (%s%s)"):format(tostring(o.kind or "an object"),
          tostring(md.name or md.generateName or "?"),
          (what:match("^helmfile") and type(rel) == "string") and ("release " .. rel .. ", ") or "", from)
        local tail = ("llmdlua creates nothing outside namespace %s"):format(ns)
        if why == "cluster" then
          local hint = ""
          if from:find("/crds/", 1, true) then
            hint = " (from the chart's crds/ folder: CRDs are the cluster admin's to install; add --skip-crds)"
          end
          refuse_line(("%s: renders %s, a cluster-scoped kind%s; %s"):format(what, obj, hint, tail))
        else
          refuse_line(("%s: renders %s in namespace %s; %s"):format(what, obj, x, tail))
        end
      end
    end
  end
end

local function read_all(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local t = f:read("a")
  f:close()
  return t
end

-- Helmfile's state files: what helmfile itself would do beyond the helm calls ------------
--
-- A helmfile.yaml can name a kube context (helmDefaults.kubeContext, a release's
-- kubeContext: another cluster) and hooks (commands helmfile runs itself on events such as
-- prepare - also for `helmfile template` and `build` - presync or postsync: anything, a
-- cluster-wide kubectl included). Neither shows in the render, so the state files are read
-- before helmfile runs at all: the one -f/--file names (a file, or a folder of them), else
-- helmfile.yaml, helmfile.yaml.gotmpl or helmfile.d/ in the folder it runs in, and the
-- state files they name under helmfiles: and bases:. They may be Go templates, so they are
-- read line by line (not as YAML): a key is found whatever template surrounds it.

local function state_lines(text)
  local lines = {}
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  return lines
end

local function unquote(v)
  v = tostring(v or ""):gsub("^%s+", ""):gsub("%s+$", "")
  return (v:gsub('^"(.*)"$', "%1"):gsub("^'(.*)'$", "%1"))
end

local function yaml_files_in(dir)
  local lfs = require "lfs"
  local names = {}
  for n in lfs.dir(dir) do
    if n:match("%.ya?ml$") or n:match("%.ya?ml%.gotmpl$") or n:match("%.gotmpl$") then names[#names + 1] = n end
  end
  table.sort(names)
  for i, n in ipairs(names) do names[i] = dir .. "/" .. n end
  return names
end

-- The hooks and kube contexts of the state files a helmfile call (args) reads in cwd:
-- { files = {paths read}, hooks = { {file, line, where, command} }, contexts = { {file,
-- line, where, value} }, unchecked = {why} }; where is "release NAME" or the top-level key.
function M.helmfile_state(args, cwd)
  local lfs = require "lfs"
  local p = type(args) == "table" and args.flags and args or M.parse("helmfile", args)
  local base = cwd or "."
  local out = { files = {}, hooks = {}, contexts = {}, unchecked = {} }
  local seen = {}
  local function rel(path) return (path:gsub("^%./", "")) end
  local scan
  local function add_path(path, from, written)
    written = written or path
    if written:find("{{", 1, true) or written:find("[*?%[]") then
      out.unchecked[#out.unchecked + 1] = ("%s names %s (a template or a glob: not read)"):format(from, written)
      return
    end
    if written:match("^%a[%w+.-]*::") or written:match("^%a[%w+.-]*://") then
      out.unchecked[#out.unchecked + 1] = ("%s names the remote state %s (not read)"):format(from, written)
      return
    end
    local mode = lfs.attributes(path, "mode")
    if mode == "directory" then
      for _, f in ipairs(yaml_files_in(path)) do scan(f) end
    elseif mode == "file" then
      scan(path)
    end
  end
  scan = function(path)
    if seen[path] then return end
    seen[path] = true
    local text = read_all(path)
    if not text then return end
    out.files[#out.files + 1] = path
    local dir = path:match("^(.*)/[^/]*$") or "."
    local lines = state_lines(text)
    local top, release
    local i = 0
    while i < #lines do
      i = i + 1
      local l = lines[i]
      local body = l:gsub("^(%s*)#.*$", "%1"):gsub("%s+#.*$", "")
      if not body:match("^%s*$") and not body:match("^%s*{{[-%s]*/%*") then
        local ind = #body:match("^(%s*)")
        local key = body:match("^([%w_%-]+)%s*:")
        if ind == 0 and key then top, release = key, nil end
        local where = function() return release and ("release " .. release) or top or "the top level" end
        local rname = body:match("^%s*%-%s+name%s*:%s*(.-)%s*$")
        if top == "releases" and rname then release = unquote(rname) end
        local kc = body:match("^%s*%-?%s*kubeContext%s*:%s*(.-)%s*$") or body:match("[{,]%s*kubeContext%s*:%s*([^,}]*)")
        if kc and unquote(kc) ~= "" then
          out.contexts[#out.contexts + 1] = { file = rel(path), line = i, where = where(), value = unquote(kc) }
        end
        if body:match("^%s*%-?%s*hooks%s*:") then
          -- the hook block: the lines indented deeper; its command and args, for the message
          local words = {}
          local inline = body:match("hooks%s*:%s*(%S.*)$")
          local j = i
          local block = {}
          if inline then block[1] = inline end
          while j < #lines do
            local nl = lines[j + 1]
            local nind = #(nl:match("^(%s*)"))
            if nl:match("^%s*$") or nl:match("^%s*#") or nind > ind or (nind == ind and nl:match("^%s*%-")
              and not body:match("^%s*%-")) then
              j = j + 1
              block[#block + 1] = nl
            else
              break
            end
          end
          local text_block = table.concat(block, "\n")
          for c in text_block:gmatch("command%s*:%s*([^\n,}]+)") do words[#words + 1] = unquote(c) end
          local args_inline = text_block:match("args%s*:%s*%[([^%]]*)%]")
          if args_inline then
            for a in args_inline:gmatch("[^,]+") do words[#words + 1] = unquote(a) end
          end
          out.hooks[#out.hooks + 1] = { file = rel(path), line = i, where = where(),
            command = #words > 0 and table.concat(words, " ") or "(see the file)" }
        end
        if top == "helmfiles" or top == "bases" then
          local item = body:match("^%s*%-%s*path%s*:%s*(.-)%s*$") or (not body:find(":", 1, true)
            and body:match("^%s*%-%s*(.-)%s*$"))
          if item and item ~= "" then
            item = unquote(item)
            add_path(item:sub(1, 1) == "/" and item or (dir .. "/" .. item), ("%s:%d (%s:)"):format(rel(path), i, top),
              item)
          end
        end
      end
    end
  end
  local file
  for _, f in ipairs(p.flags) do if f.name == "file" then file = tostring(f.value) end end
  if file then
    add_path(file:sub(1, 1) == "/" and file or (base .. "/" .. file), "--file", file)
  else
    for _, n in ipairs { "helmfile.yaml", "helmfile.yaml.gotmpl" } do
      if lfs.attributes(base .. "/" .. n, "mode") == "file" then
        add_path(base .. "/" .. n, n)
        break
      end
    end
    if #out.files == 0 and lfs.attributes(base .. "/helmfile.d", "mode") == "directory" then
      add_path(base .. "/helmfile.d", "helmfile.d")
    end
  end
  return out
end

-- Refuses what this layer must never do; returns nothing or raises. opts: user (a
-- command from the user's plan: stricter verbs), cwd (where -f paths are), render
-- (function(dir) -> the manifests `kubectl kustomize dir` gives), seen (function(objects,
-- source): given every object of the manifests and renders checked).
-- Whether parsed kubectl arguments p are the one raw call the layer makes itself: `delete
-- --raw PATH -f -`, PATH one namespaced object of namespace ns - /api/v1/namespaces/NS/
-- RESOURCE/NAME (the core group) or /apis/GROUP/VERSION/namespaces/NS/RESOURCE/NAME - and its
-- body (stdin) DeleteOptions held to the object the caller names (opts.raw_uid: the uid it
-- recorded or read): llmd.cluster lets go of its namespace lock so, and tears down what it
-- made held to the uid it recorded, which `kubectl delete TYPE NAME` cannot make conditional.
-- Any other --raw (another path, verb, namespace, a subresource, a query, more words) points
-- anywhere; a body that is not that DeleteOptions (none, another uid or none, a field past
-- apiVersion, kind, preconditions and propagationPolicy - one that could widen the delete,
-- as ignoreStoreReadErrorWithClusterBreakingPotential does) deletes whatever holds the name:
-- refused. Returns true, or false and (for a body refused) why.
local DELETE_KEYS = { apiVersion = true, kind = true, preconditions = true, propagationPolicy = true }
local PROPAGATION = { Background = true, Foreground = true, Orphan = true }
function M.raw_delete_in(p, ns, opts, stdin)
  opts = opts or {}
  if opts.user or p.words[1] ~= "delete" or #p.words ~= 1 or #p.after > 0 then return false end
  local path, body_in
  for _, f in ipairs(p.flags) do
    if f.name == "raw" then
      if path then return false end
      path = tostring(f.value)
    elseif f.name == "filename" and f.value == "-" and not body_in then
      body_in = true
    else
      return false
    end
  end
  path = path or ""
  local where, res, name = path:match("^/api/v1/namespaces/([a-z0-9%-]+)/([a-z0-9]+)/([a-z0-9][a-z0-9.%-]*)$")
  if not where then
    local group
    group, where, res, name = path:match("^/apis/([a-z0-9][a-z0-9.%-]*)/v[a-z0-9]+/namespaces/([a-z0-9%-]+)/"
      .. "([a-z0-9]+)/([a-z0-9][a-z0-9.%-]*)$")
    if group and (#group > 253 or group:find("..", 1, true)) then return false end
  end
  if not (where == ns and res ~= nil and res ~= "namespaces" and name ~= nil and #name <= 253) then return false end
  -- the body: DeleteOptions whose preconditions.uid is the object the caller means
  local want = opts.raw_uid
  if type(want) ~= "string" or want == "" then
    return false, "a raw DELETE is sent only held to the uid of the object it means, and none was given"
  end
  if not body_in then return false, "a raw DELETE without its DeleteOptions body (-f -) is held to nothing" end
  local ok, b = pcall(require("llmd.json").decode, tostring(stdin or ""))
  if not ok or type(b) ~= "table" then return false, "its body is not JSON DeleteOptions" end
  for k in pairs(b) do
    if not DELETE_KEYS[k] then
      return false, ("its body's DeleteOptions has %s, which llmdlua never sends (only apiVersion, kind, "
        .. "preconditions, propagationPolicy)"):format(tostring(k))
    end
  end
  if b.kind ~= "DeleteOptions" or b.apiVersion ~= "v1" then
    return false, ("its body is %s %s, not v1 DeleteOptions"):format(tostring(b.apiVersion), tostring(b.kind))
  end
  if b.propagationPolicy ~= nil and not PROPAGATION[b.propagationPolicy] then
    return false, ("its body's propagationPolicy %s is not Background, Foreground or Orphan")
      :format(tostring(b.propagationPolicy))
  end
  local pre = b.preconditions
  if type(pre) ~= "table" or pre.uid ~= want then
    return false, ("its body's preconditions.uid (%s) is not the uid of the object meant (%s)")
      :format(tostring(type(pre) == "table" and pre.uid or nil), want)
  end
  for k, v in pairs(pre) do
    if not (k == "uid" or (k == "resourceVersion" and type(v) == "string")) then
      return false, ("its body's preconditions has %s, which llmdlua never sends"):format(tostring(k))
    end
  end
  return true
end

function M.check(tool, args, ns, stdin, opts)
  opts = opts or {}
  local function refuse(why)
    error(("refused: %s %s: %s (llmdlua only acts inside namespace %s)"):format(tool, M.cmdline(args), why, ns), 0)
  end
  if not TABLES[tool] then refuse("not kubectl, helm, helmfile or oc") end
  local ok, p = pcall(M.parse, tool, args)
  if not ok then
    if type(p) == "table" and p.unknown then
      refuse(("unknown flag %s: llmdlua cannot tell whether it takes a value (write --name=value)"):format(p.unknown))
    elseif type(p) == "table" and p.missing then
      refuse(("flag %s without its value"):format(p.missing))
    end
    error(p, 0)
  end
  for _, f in ipairs(p.flags) do
    local raw_ok, raw_why = false, nil
    if f.name == "raw" then raw_ok, raw_why = M.raw_delete_in(p, ns, opts, stdin) end
    if raw_why then refuse(raw_why) end
    if REDIRECT[f.name] and not raw_ok then
      if f.name == "namespace" then
        refuse(("a namespace flag (%s): llmdlua adds -n %s itself"):format(f.spelling, ns))
      elseif f.name == "all-namespaces" then
        refuse(("all namespaces (%s)"):format(f.spelling))
      else
        refuse(("%s would act elsewhere than namespace %s of the current cluster and user"):format(f.spelling, ns))
      end
    end
  end
  -- helmfile --args passes flags on to every helm call: none of them may point elsewhere
  -- either (nor take the namespace: helmfile gives helm -n itself)
  if tool == "helmfile" then
    for _, f in ipairs(p.flags) do
      if f.name == "args" then
        for w in tostring(f.value):gmatch("%S+") do
          local long = w:match("^%-%-([^=]+)")
          local short = not long and w:match("^%-(%a)")
          local name = long or (short and HELM_SHORT[short])
          if name and REDIRECT[name] then
            refuse(("--args passes %s to helm, which would act elsewhere than namespace %s"):format(w, ns))
          end
        end
      end
    end
  end
  local verb = p.words[1]
  if tool == "oc" and verb == "project" and #args == 2 and args[2] == "-q" and not opts.user then return end
  local allowed = (opts.user and USER_VERBS or VERBS)[tool]
  if not verb or not allowed[verb] then
    refuse(("the verb '%s' is not one llmdlua runs%s"):format(tostring(verb), opts.user and " from a plan" or ""))
  end
  -- of kubectl config, only the two reads of which cluster this is (llmd.cluster.identity)
  if verb == "config" and not (p.words[2] == "current-context" and #p.words == 2)
    and not (#args == 5 and args[2] == "view" and args[3] == "--minify" and args[4] == "-o"
      and args[5] == M.SERVER_JSONPATH) then
    refuse("kubectl config changes the kubeconfig")
  end
  if tool == "helmfile" then
    -- what helmfile does itself, outside the helm calls and their render: another kube
    -- context is never used; hooks run only when the plan allows them (opts.allow_hooks)
    local st = M.helmfile_state(p, opts.cwd)
    for _, u in ipairs(st.unchecked) do
      refuse(("%s, so its hooks and kubeContext cannot be checked first; name the state files plainly"):format(u))
    end
    for _, c in ipairs(st.contexts) do
      refuse(("%s:%d: %s: kubeContext: %s would make helmfile deploy through another kube context (another "
        .. "cluster, perhaps); remove it: llmdlua works in the current context only"):format(c.file, c.line, c.where,
        c.value))
    end
    if not opts.allow_hooks then
      for _, h in ipairs(st.hooks) do
        refuse(("%s:%d: %s: hooks: helmfile would run '%s' itself, outside llmdlua's namespace guard; remove the "
          .. "hook, or review it and allow hooks with deploy.helmfile_hooks: allow in the plan"):format(h.file, h.line,
          h.where, h.command))
      end
    end
    if opts.on_hooks and #st.hooks > 0 then opts.on_hooks(st.hooks) end
  end
  if tool == "helm" or tool == "helmfile" then
    -- what the chart renders: every object checked before the install (a render that
    -- fails stops the call; in a dry run, where reads do not run, it is not rendered)
    local rok, targs, crds, what = pcall(M.render_args, tool, args)
    if not rok then
      if type(targs) == "table" and targs.unrenderable then
        refuse(("%s reuses the installed release's values, so what it would create cannot be rendered and "
          .. "checked first"):format(targs.unrenderable))
      end
      error(targs, 0)
    end
    if targs then
      if not opts.render_chart then refuse("what the chart renders cannot be checked here, so it is not run") end
      local text = opts.render_chart(targs, what, crds)
      if text then
        M.check_rendered(text, ns, what, function(line)
          error(("refused: %s"):format(line), 0)
        end, opts.seen)
      end
    end
    return
  end
  -- kubectl / oc: the resources a changing verb names
  if not READS[verb] then
    local first = SUBCOMMAND[verb] and 3 or 2
    for i = first, #p.words do
      local w = p.words[i]
      -- the type word (first), or TYPE/NAME anywhere
      if i == first or w:find("/", 1, true) then
        for _, k in ipairs(kind_base(w)) do
          if CLUSTER_KINDS[k] then refuse(("%s of the cluster-scoped kind '%s'"):format(verb, k)) end
        end
      end
      if verb == "create" and i == first then break end
    end
    if verb == "create" and p.words[2] and CLUSTER_KINDS[p.words[2]:lower()] then
      refuse(("create of the cluster-scoped kind '%s'"):format(p.words[2]:lower()))
    end
  end
  -- the manifests it applies: from stdin, files and folders, kustomizations
  for _, f in ipairs(p.flags) do
    if f.name == "filename" and not READS[verb] then
      local v = tostring(f.value)
      if v == "-" then
        if stdin then M.check_manifest(stdin, ns, "stdin", refuse, opts.seen) end
      elseif v:match("^%a[%w+.-]*://") then
        refuse(("a manifest from a URL (%s) cannot be checked"):format(v))
      else
        local path = (v:sub(1, 1) == "/" or not opts.cwd) and v or (opts.cwd .. "/" .. v)
        local lfs = require "lfs"
        local mode = lfs.attributes(path, "mode")
        if mode == "directory" then
          for n in lfs.dir(path) do
            if n:match("%.ya?ml$") or n:match("%.json$") then
              local text = read_all(path .. "/" .. n)
              if text then M.check_manifest(text, ns, v .. "/" .. n, refuse, opts.seen) end
            end
          end
        elseif mode == "file" then
          M.check_manifest(read_all(path) or "", ns, v, refuse, opts.seen)
        elseif verb ~= "delete" then
          refuse(("%s: no such manifest file"):format(v))
        end
      end
    elseif f.name == "kustomize" and (verb == "apply" or verb == "create" or verb == "replace") then
      if opts.render then
        M.check_manifest(opts.render(tostring(f.value)), ns, "kustomize " .. tostring(f.value), refuse, opts.seen)
      end
    end
  end
  if stdin and not READS[verb] then
    local from_stdin = false
    for _, f in ipairs(p.flags) do if f.name == "filename" and f.value == "-" then from_stdin = true end end
    if not from_stdin then M.check_manifest(stdin, ns, "stdin", refuse, opts.seen) end
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
  -- (a log that cannot be written stops nothing - a teardown must go on -, but it is said
  -- once, on stderr, never silently incomplete)
  local function failed(why)
    if self.log_failed then return end
    self.log_failed = tostring(why)
    local said = tostring(why):gsub("^" .. self.log_path:gsub("%p", "%%%0") .. ": ", "")
    io.stderr:write(("warning: %s: cannot append to the command log: %s; the cluster commands from here on are not "
      .. "recorded in it\n"):format(self.log_path, said))
  end
  local f, oerr = io.open(self.log_path, "a")
  if not f then return failed(oerr) end
  -- a dry run's line (r nil) says so: it has no exit status, nothing ran
  local status = r and (r.unknown and "exit status unknown" or ("exit " .. tostring(entry.code or "-"))) or "dry-run"
  local tail = ""
  if r and r.stderr and r.stderr ~= "" then
    local lines = {}
    for l in r.stderr:gmatch("[^\n]+") do lines[#lines + 1] = l end
    tail = " | stderr: " .. table.concat(lines, " / ", math.max(1, #lines - 2))
  end
  local ok, werr = f:write(("%s %s | %s | %.2f s%s%s\n"):format(entry.time, M.cmdline(argv), status,
    elapsed or 0, note and (" | " .. note) or "", tail))
  local cok, cerr = f:close()
  if not ok or not cok then failed(werr or cerr) end
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
-- read_in_dry_run), stdout (as proc.run: a line callback for progress), conflict (the call
-- sends a precondition - a resourceVersion, a uid - and the caller reads the API server's
-- Conflict as the answer that it no longer holds: returned at once, never sent again; other
-- transient errors are still tried again).
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

-- What `kubectl kustomize DIR` renders (client side: nothing reaches the cluster); one
-- render per folder and client (the preflight's is the one the apply is checked against).
function Client:render(dir, cwd)
  local key = tostring(cwd) .. "\0" .. dir
  self.rendered = self.rendered or {}
  if self.rendered[key] then return self.rendered[key] end
  local argv = self:argv("kubectl", { "kustomize", dir })
  local r = require("llmd.steps").exec(argv, { cwd = cwd, env = self.env, stderr = "capture" })
  self:log(argv, r, r.elapsed or 0, "rendered to check it")
  if not r.ok then
    error(("%s: %s: %s"):format(M.cmdline(argv), exitstatus.text(r), (r.stderr or ""):gsub("%s+$", "")), 0)
  end
  if self.dry_run then self.out:write("[dry-run, read] " .. M.cmdline(argv) .. "   (rendered to check it)\n") end
  self.rendered[key] = r.stdout
  return r.stdout
end

-- What a helm/helmfile call would create: `helm template` / `helmfile template` with the
-- call's own arguments (targs, from M.render_args), run where the call runs. Raises with
-- the command and its stderr when the render fails; nil in a dry run (reads do not run).
function Client:render_chart(tool, targs, what, opts)
  local argv = self:argv(tool, targs)
  if self.dry_run and not opts.read_in_dry_run then
    self.out:write("[dry-run] " .. M.cmdline(argv) .. (opts.cwd and ("   (in " .. opts.cwd .. ")") or "")
      .. "   (renders what it creates, to check it first)\n")
    self:log(argv, nil, 0, "not run (dry run)")
    return nil
  end
  local r = require("llmd.steps").exec(argv, { cwd = opts.cwd, env = self.env, timeout = opts.timeout,
    stderr = "capture" })
  self:log(argv, r, r.elapsed or 0, "rendered to check it")
  if not r.ok then
    -- one line: helm's "Error: ..." (helmfile's report around it: where, and helm's error)
    local lines, where, first_error = {}, nil, nil
    for l in (r.stderr or ""):gmatch("[^\n]+") do
      l = l:gsub("^%s+", ""):gsub("%s+$", "")
      if l ~= "" then lines[#lines + 1] = l end
      where = where or l:match("^(in %S+: command .- exited with non%-zero status):?$")
      first_error = first_error or (l:match("^Error: ") and l)
    end
    local err = first_error and ((where and (where .. ": ") or "") .. first_error) or table.concat(lines, " / ")
    error(("%s: %s%s (the render of %s, to check what it creates; it was not run)"):format(M.cmdline(argv),
      r.timed_out and "timed out" or exitstatus.text(r), err ~= "" and (": " .. err) or "",
      what), 0)
  end
  return r.stdout
end

-- Says which helmfile hooks (allowed by the plan) a call will let helmfile run.
function Client:say_hooks(hooks)
  for _, h in ipairs(hooks) do
    self.out:write(("  helmfile hook (allowed by deploy.helmfile_hooks): %s:%d: %s: %s\n"):format(h.file, h.line,
      h.where, h.command))
  end
end

function Client:call(tool, args, opts)
  opts = opts or {}
  M.check(tool, args, self.ns, opts.stdin, { user = opts.user, cwd = opts.cwd, allow_hooks = opts.allow_hooks,
    raw_uid = opts.raw_uid, on_hooks = function(hooks) self:say_hooks(hooks) end,
    render = not self.dry_run and function(dir) return self:render(dir, opts.cwd) end or nil,
    render_chart = function(targs, what) return self:render_chart(tool, targs, what, opts) end })
  local argv = self:argv(tool, args)
  if self.dry_run and not (opts.read and opts.read_in_dry_run) then
    -- a read is not made either: said so, so nothing looks checked that was not
    self.out:write((opts.read and "[dry-run, not read] " or "[dry-run] ") .. M.cmdline(argv)
      .. (opts.cwd and ("   (in " .. opts.cwd .. ")") or "") .. "\n")
    if opts.stdin and not opts.read then
      -- the manifest it would apply
      for line in tostring(opts.stdin):gmatch("[^\n]+") do self.out:write("    | ", line, "\n") end
    end
    self:log(argv, nil, 0, opts.read and "a read, not made in a dry run" or "not run (dry run)")
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
    if r.ok or attempt >= self.retries or not is_transient(said)
      or (opts.conflict and said:find("(Conflict)", 1, true)) then
      break
    end
    sleep(self.backoff * 2 ^ (attempt - 1))
  end
  -- (what it printed, also when it failed: a deploy reads which objects it made)
  if opts.result then opts.result(r) end
  if not r.ok and opts.check ~= false then
    local err = (r.stderr or ""):gsub("%s+$", "")
    local cause, details = M.cause_first(err)
    if cause then
      err = ("%s\n  %s's whole report:\n%s"):format(cause, tool, details)
    end
    error(("%s: %s%s"):format(M.cmdline(argv), r.timed_out and "timed out" or exitstatus.text(r),
      err ~= "" and (": " .. err) or ""), 0)
  end
  return r
end

-- A tool's report of several lines (helmfile's of a helm call that failed: where, the
-- call's arguments, its exit status, then helm's "Error: ..." under STDERR: and again
-- under COMBINED OUTPUT:) as its cause on one line - "in ./helmfile.yaml: command "helm"
-- exited with non-zero status: Error: ..." - and the report after it, indented, without the
-- repeated COMBINED OUTPUT: section. nil for a report of one line or with no "Error: ".
function M.cause_first(text)
  local lines, where, first_error = {}, nil, nil
  for l in text:gmatch("[^\n]+") do
    lines[#lines + 1] = l
    local x = l:gsub("^%s+", ""):gsub("%s+$", "")
    where = where or x:match("^(in %S+: command .- exited with non%-zero status):?$")
    first_error = first_error or (x:match("^Error: ") and x)
  end
  if #lines < 2 or not first_error then return nil end
  local kept, stderr_seen = {}, false
  for _, l in ipairs(lines) do
    if l:match("^STDERR:") then stderr_seen = true end
    if stderr_seen and l:match("^COMBINED OUTPUT:") then break end
    kept[#kept + 1] = "    " .. l
  end
  return (where and (where .. ": ") or "") .. first_error, table.concat(kept, "\n")
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
  if self.dry_run then
    self:log(argv, nil, 0, "would start in the background (dry run)")
  else
    self:log(argv, { code = 0 }, 0, "started in the background")
  end
  if self.dry_run then
    self.out:write("[dry-run] " .. M.cmdline(argv) .. " &\n")
    return nil
  end
  return proc.spawn(argv, opts)
end

-- Preflight: checks a call exactly as Client:call would (every rule, and the manifests it
-- applies: -f files, stdin, kustomizations and - where this client can render them - what
-- a chart creates), without running it. The renders are reads and run in a dry run too,
-- so a dry run refuses what the real run would. Raises as Client:call does. opts.seen: as
-- M.check's.
function Client:preflight(tool, args, opts)
  opts = opts or {}
  local o = { user = opts.user, cwd = opts.cwd, allow_hooks = opts.allow_hooks, seen = opts.seen,
    render = function(dir) return self:render(dir, opts.cwd) end }
  if self.render_chart then
    o.render_chart = function(targs, what)
      return self:render_chart(tool, targs, what, { cwd = opts.cwd, read_in_dry_run = true })
    end
  end
  M.check(tool, args, self.ns, opts.stdin, o)
end

-- The second a time stamp names, as seconds since 1970 UTC: helm's info.first_deployed is
-- Go's RFC 3339 with the deploying client's own offset ("2026-12-06T20:07:31.1234+02:00"),
-- llmdlua's own records end in "Z". Comparing the two as text (the first 19 characters) read
-- a release deployed at 19:07 UTC under +02:00 as after a deploy started at 20:00 UTC, and
-- took it as that deploy's. Returns nil for anything else (the caller then claims nothing).
function M.utc_seconds(ts)
  if type(ts) ~= "string" then return nil end
  local y, mo, d, h, mi, sec, zone = ts:match("^(%d%d%d%d)%-(%d%d)%-(%d%d)[Tt ](%d%d):(%d%d):(%d%d)%.?%d*(.*)$")
  if not y then return nil end
  local off
  if zone == "Z" or zone == "z" then
    off = 0
  else
    local sign, oh, om = zone:match("^([+-])(%d%d):?(%d%d)$")
    if not sign then return nil end
    off = (tonumber(oh) * 60 + tonumber(om)) * 60 * (sign == "-" and -1 or 1)
  end
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  if mo < 1 or mo > 12 or d < 1 or d > 31 then return nil end
  -- (days from 1970-01-01 of a proleptic Gregorian date: the civil-from-days inverse)
  local yy = mo <= 2 and y - 1 or y
  local era = yy // 400
  local yoe = yy - era * 400
  local doy = (153 * (mo > 2 and mo - 3 or mo + 9) + 2) // 5 + d - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  local days = era * 146097 + doe - 719468
  return days * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(sec) - off
end

-- The span a time stamp names, as nanoseconds since 1970 UTC: [lo, hi). A stamp is truncated
-- to its precision - the API server's creationTimestamp to the second, helm's first_deployed
-- to the nanosecond (Go drops trailing zeros: fewer digits read as a wider span, which only
-- widens what is told "same"), llmdlua's own start records to the microsecond (older ones to
-- the second) -, so the moment it records lies somewhere in the span. nil when unreadable.
function M.time_span(ts)
  local sec = M.utc_seconds(ts)
  if not sec then return nil end
  local frac = tostring(ts):match("^%d%d%d%d%-%d%d%-%d%d[Tt ]%d%d:%d%d:%d%d%.(%d+)") or ""
  if #frac > 9 then frac = frac:sub(1, 9) end
  local lo = sec * 1000000000 + math.tointeger(tonumber(frac .. ("0"):rep(9 - #frac)))
  return lo, lo + math.tointeger(tonumber("1" .. ("0"):rep(9 - #frac)))
end

-- Whether what was made at made (a creationTimestamp, or helm status's info.first_deployed,
-- with any offset) was made after a deploy that started at started (llmdlua's own UTC record):
-- "after" when the whole span made names is at or after the end of started's (made after
-- the deploy started, whatever the truncation), "before" when it ends at or before started's
-- begins, "same" when the two overlap (an object created in the very second a deploy started:
-- either may have come first, so it is not known as the deploy's), nil when either cannot be
-- read (nothing is then claimed). One rule for llmd.cluster's and llmd.rerun_script's
-- teardowns of an interrupted deploy: only "after" is taken as the deploy's own.
function M.made_since(made, started)
  local mlo, mhi = M.time_span(made)
  local slo, shi = M.time_span(started)
  if not mlo or not slo then return nil end
  if mlo >= shi then return "after" end
  if mhi <= slo then return "before" end
  return "same"
end

-- Now, as llmdlua records when a deploy starts: RFC 3339 in UTC, to the microsecond
-- ("2026-12-06T18:00:00.123456Z"), so that a release helm records to the nanosecond is told
-- after or before it (M.made_since) unless they are within the microsecond.
function M.utc_now()
  local sec, ns = proc.utc()
  return os.date("!%Y-%m-%dT%H:%M:%S", sec) .. (".%06dZ"):format(ns // 1000)
end

return M
