-- llmd.cluster: compare.lua on a cluster. For each run that is not pre-existing: deploy
-- the llm-d stack into the namespace, wait until it is ready, smoke-test it, benchmark it,
-- save its state, collect the vLLM logs and tear it down (Helm releases, routes, gateways
-- and what the deploy applied; PVCs and the namespace stay) - run A completely, then run
-- B - then report. Every cluster call goes through llmd.k8s; the phases are llmd.steps.
--
--   local cluster = require "llmd.cluster"
--   local plan = cluster.load_plan("plan.yaml")          -- validated; errors name the key
--                                                        -- ({ resume = true }: M.validate)
--   local ok = cluster.run(plan, { namespace =, dry_run =, yes =, only =, resume = dir })
local exitstatus = require "llmd.exitstatus"
local cmp = require "llmd.comparison"
local errors = require "llmd.errors"
local harness = require "llmd.harness"
local http = require "llmd.http"
local json = require "llmd.json"
local k8s = require "llmd.k8s"
local lfs = require "lfs"
local proc = require "llmd.proc"
local steps = require "llmd.steps"
local ws = require "llmd.workspace"
local yaml = require "llmd.yaml"

local M = {}

M.BASELINE_SVC = "llm-d-baseline-model-server"
M.SERVING_LABEL = "llm-d.ai/inference-serving"
M.LOG_SELECTORS = { "app.kubernetes.io/component=vllm", "llm-d.ai/inference-serving=true" }
local BAD_WAITING = { CrashLoopBackOff = true, ImagePullBackOff = true, ErrImagePull = true,
  CreateContainerConfigError = true, InvalidImageName = true, CreateContainerError = true }

-- Plan ----------------------------------------------------------------------------------------

local function is_map(v) return type(v) == "table" and not json.is_array(v) end
local function is_list(v) return type(v) == "table" and (json.is_array(v) or (#v > 0 and next(v, #v) == nil)) end
-- 16 hex digits from /dev/urandom (a namespace lock's token, a run's id).
local function random_token()
  local f = io.open("/dev/urandom", "rb")
  local b = f and f:read(8)
  if f then f:close() end
  if not b or #b < 8 then b = tostring(os.time()) .. tostring(os.clock()) .. tostring({}) end
  return (b:gsub(".", function(c) return ("%02x"):format(c:byte()) end)):sub(1, 16)
end

local function set_of(list)
  local t = {}
  for _, n in ipairs(list or {}) do t[n] = true end
  return t
end

-- What is wrong with v as a yes/no option of a plan or config (baseline, teardown_without_logs,
-- existing.link, an experiment's reset_caches, autobench's enabled), or nil: only the YAML
-- booleans true and false are one. Anything else is refused, never read by its truthiness
-- (baseline: no ran as a baseline run; newuser53 #1). llmd.yaml is YAML 1.2: no, off, yes
-- and on are strings there, not the booleans YAML 1.1 (PyYAML) made them, which is said.
function M.bool_problem(v)
  if type(v) == "boolean" then return nil end
  local got
  if v == nil or v == yaml.null then got = "null (an empty value)"
  elseif type(v) == "table" then got = json.is_array(v) and "a list" or "a mapping"
  elseif type(v) == "string" then
    local w = v:lower()
    if w == "true" or w == "false" then
      got = ("'%s', a quoted string (write %s without quotes)"):format(v, w)
    elseif w == "yes" or w == "no" or w == "on" or w == "off" or w == "y" or w == "n" then
      local means = (w == "no" or w == "off" or w == "n") and "false" or "true"
      got = ("'%s', a string: llmdlua reads YAML 1.2, where only true and false are booleans (YAML 1.1 read %s as "
        .. "%s); write %s"):format(v, v, means, means)
    else got = M.shown(v) end
  else got = tostring(v) end
  return "expected true or false, got " .. got
end

-- The plain words YAML 1.1 reads as booleans where llmd.yaml (YAML 1.2) reads strings, and
-- the boolean each is: go-yaml v2's list (helm reads values files with it, through
-- sigs.k8s.io/yaml); PyYAML's is the same less y, Y, n and N.
local YAML11_BOOL = { y = true, Y = true, yes = true, Yes = true, YES = true, on = true, On = true, ON = true,
  n = false, N = false, no = false, No = false, NO = false, off = false, Off = false, OFF = false }

-- The boolean a YAML 1.1 reader makes of the string v (helm's; pyyaml: PyYAML's), or nil
-- when it keeps it a string too. A value llmdlua writes again (a values override, a flag)
-- keeps llmdlua's reading, a string: where the user's file meant YAML 1.1's, helm or the
-- tool gets other than the file says, so such a value is refused, never passed on.
function M.yaml11_bool(v, pyyaml)
  if type(v) ~= "string" or (pyyaml and #v == 1) then return nil end
  return YAML11_BOOL[v]
end

-- The keys of a run's sections in a plan (M.validate).
local EXISTING_KEYS = { results = true, link = true }
local DEPLOY_KEYS = { method = true, guide_dir = true, environment = true, environments = true, release = true,
  chart = true, chart_version = true, values = true, set = true, kustomize = true, commands = true,
  values_override = true, model = true, gateway = true, hardware = true, guide = true, llmd_version = true,
  service = true, helmfile_hooks = true, new_values_keys = true }
local BENCHMARK_KEYS = { template = true, vars = true, command = true, harness = true, workload = true,
  attempts = true, pvc = true, load_stages = true }

-- Validates plan; returns it, or raises listing every problem with its key. opts.resume: a
-- resumed comparison's plan, whose existing runs' folders were imported already (they need
-- not be there any more).
function M.validate(plan, name, opts)
  name = name or "plan"
  opts = opts or {}
  local errs = {}
  -- (meant: the keys a near miss stood for, absent from the plan: what is said of them
  -- missing, "runs.b.benchmark.template: expected a run_only.sh config template", is that
  -- typo again, so the typo's line alone says it - one line per mistake, newuser44)
  local meant = {}
  local function bad(key, msg) errs[#errs + 1] = { key = key, text = ("%s: %s: %s"):format(name, key, msg) } end
  -- elsewhere(k): where else a key k unknown here belongs, said before the known keys
  -- ("replicas belongs under runs.a.info.stack: ...", newuser56: README says so, the
  -- refusal did not)
  local function known(t, key, keys, elsewhere)
    for k in pairs(t) do
      if not keys[k] then
        local l = {}
        for x in pairs(keys) do l[#l + 1] = x end
        table.sort(l)
        local near = type(k) == "string" and require("llmd.opts").closest(k, l)
        local path = (key and (key .. ".") or "") .. tostring(k)
        if near and t[near] == nil then meant[(key and (key .. ".") or "") .. near] = true end
        local there = not near and elsewhere and elsewhere(k)
        errs[#errs + 1] = { key = path, text = ("%s: %s: unknown key (%s%sknown: %s)"):format(M.key_where(name, k),
          path, near and ("did you mean %s? "):format(near) or "", there and (there .. "; ") or "",
          table.concat(l, ", ")) }
      end
    end
  end
  -- the keys of a run's sections, for a key given in the wrong one: (section, set) in order
  local run_sections = {
    { "existing", EXISTING_KEYS }, { "deploy", DEPLOY_KEYS }, { "benchmark", BENCHMARK_KEYS },
    { "info", ws.info_keys() },
  }
  local function run_elsewhere(key, here)
    return function(k)
      for _, sec in ipairs(run_sections) do
        if sec[1] ~= here and sec[2][k] then return ("it belongs under %s.%s"):format(key, sec[1]) end
      end
      -- a key of the setup (replicas, tensor_parallel, ...): info's stack: keeps any (README)
      if here == "info" and type(k) == "string" then
        return ("a fact of the setup belongs under %s.info.stack (stack: {%s: ...}), kept as an extra row"):format(
          key, k)
      end
    end
  end
  if not is_map(plan) then error(name .. ": expected a mapping with 'runs'", 0) end
  -- experiment.lua's plan (deploy: and benchmark: at its top) or experiment file (experiment:,
  -- setup:, treatments:) given to compare.lua: one line naming the tool it is for, not each of
  -- its keys unknown and runs: missing (newuser50c N7)
  if plan.runs == nil then
    local sh = require("llmd.template").helpers.sh
    if plan.deploy ~= nil or plan.benchmark ~= nil or plan.namespaces ~= nil or plan.parallel ~= nil then
      error(("%s: an experiment.lua plan (deploy: and benchmark: at its top, for every treatment), not a compare.lua "
        .. "plan (runs: a and b, each with its deploy: and benchmark:); it runs with llmdlua experiment.lua "
        .. "EXPERIMENT.yaml --plan %s"):format(name, sh(name)), 0)
    end
    if plan.experiment ~= nil or plan.setup ~= nil or plan.treatments ~= nil then
      error(("%s: an experiment file (experiment, setup, treatments), not a compare.lua plan (runs: a and b); it "
        .. "runs with llmdlua experiment.lua %s --plan PLAN"):format(name, sh(name)), 0)
    end
  end
  known(plan, nil, { namespace = true, parent = true, bins = true, timeouts = true, benchmark_pvc = true,
    runs = true, teardown_without_logs = true, slo = true, teardown = true })
  if plan.slo ~= nil then
    local ok, err = pcall(require("llmd.decision").parse_slo, plan.slo, "slo")
    if not ok then errs[#errs + 1] = { text = ("%s: %s"):format(name, err) } end
  end
  if plan.teardown_without_logs ~= nil and M.bool_problem(plan.teardown_without_logs) then
    bad("teardown_without_logs", M.bool_problem(plan.teardown_without_logs))
  end
  if plan.teardown ~= nil and plan.teardown ~= "own" and plan.teardown ~= "namespace-wide" then
    bad("teardown", ("expected own (the default: what this comparison deployed) or namespace-wide (every release, "
      .. "HTTPRoute and Gateway in the namespace, confirmed first), got %s"):format(tostring(plan.teardown)))
  end
  if plan.benchmark_pvc ~= nil and (type(plan.benchmark_pvc) ~= "string" or M.bad_release(plan.benchmark_pvc, 253)) then
    bad("benchmark_pvc", ("expected a PVC name (lowercase letters, digits, '-' and '.'), got %s"):format(
      M.shown(plan.benchmark_pvc)))
  end
  if plan.namespace ~= nil and type(plan.namespace) ~= "string" then bad("namespace", "expected a string")
  elseif M.system_namespace(plan.namespace) then bad("namespace", M.system_namespace(plan.namespace)) end
  if plan.bins ~= nil then
    if not is_map(plan.bins) then bad("bins", "expected a mapping of tool = path")
    else
      known(plan.bins, "bins", { kubectl = true, helm = true, helmfile = true, oc = true, run_only = true })
      for k, v in pairs(plan.bins) do if type(v) ~= "string" then bad("bins." .. k, "expected a path") end end
    end
  end
  if plan.timeouts ~= nil then
    if not is_map(plan.timeouts) then bad("timeouts", "expected a mapping")
    else
      known(plan.timeouts, "timeouts", { ready = true, benchmark = true, smoke = true, poll = true, backoff = true })
      for k, v in pairs(plan.timeouts) do
        if k == "poll" then
          -- (the wait for readiness looks every poll seconds: 0 looked without pause, a busy
          -- loop of kubectl calls, mend54 #6)
          if type(v) ~= "number" or not (v > 0 and v < math.huge) then
            bad("timeouts.poll", ("expected seconds between two looks at the stack (a number > 0), got %s")
              :format(M.value_shown(v)))
          end
        elseif type(v) ~= "number" or v < 0 or v ~= v then
          bad("timeouts." .. k, "expected seconds (a number >= 0)")
        end
      end
    end
  end
  if not is_map(plan.runs) then
    bad("runs", "expected a mapping with 'a' and 'b'")
  else
    known(plan.runs, "runs", { a = true, b = true })
    local labels, checked_templates = {}, {}
    for _, x in ipairs { "a", "b" } do
      local r, key = plan.runs[x], "runs." .. x
      if not is_map(r) then
        bad(key, "missing (each of runs.a and runs.b is a run)")
      else
        known(r, key, { label = true, baseline = true, existing = true, deploy = true, benchmark = true, info = true })
        if r.baseline ~= nil and M.bool_problem(r.baseline) then
          bad(key .. ".baseline", M.bool_problem(r.baseline) .. " (true: plain vLLM through the "
            .. M.BASELINE_SVC .. " Service)")
        elseif r.baseline and is_map(r.deploy) and r.deploy.service ~= nil then
          bad(key .. ".deploy.service", "a baseline run benchmarks the " .. M.BASELINE_SVC
            .. " Service (port 8000); give either baseline: true or deploy.service, not both")
        end
        if type(r.label) ~= "string" or r.label == "" then bad(key .. ".label", "expected a non-empty string")
        elseif labels[r.label] then
          bad(key .. ".label", ("'%s' is also the label of run %s"):format(r.label, labels[r.label]))
        else labels[r.label] = x end
        if r.info ~= nil and not is_map(r.info) then bad(key .. ".info", "expected a mapping")
        elseif r.info ~= nil then
          -- as an --a-info file is checked: unknown keys, slo:, gpus: (an unknown key as the
          -- plan's others are, with its line: "plan.yaml:11: runs.a.info.gpu: unknown key (did
          -- you mean gpus? ...)", newuser54 F5)
          local before = #errs
          known(r.info, key .. ".info", ws.info_keys(), run_elsewhere(key, "info"))
          if #errs == before then
            local iok, ierr = pcall(ws.check_info, r.info, key .. ".info")
            if not iok then errs[#errs + 1] = { text = ("%s: %s"):format(name, require("llmd.errors").text(ierr)) } end
          end
        end
        if r.existing ~= nil then
          if r.deploy ~= nil or r.benchmark ~= nil then
            bad(key, "either 'existing' (a pre-existing run) or 'deploy' + 'benchmark', not both")
          end
          if not is_map(r.existing) or type(r.existing.results) ~= "string" then
            bad(key .. ".existing.results", "expected the results folder")
          else
            known(r.existing, key .. ".existing", EXISTING_KEYS, run_elsewhere(key, "existing"))
            -- as --a DIR is checked: a folder that is there
            local mode = lfs.attributes(r.existing.results, "mode")
            if mode ~= "directory" and not opts.resume then
              bad(key .. ".existing.results", ("%s: %s (expected the run's results folder)"):format(r.existing.results,
                mode and ("a " .. mode .. ", not a folder") or "no such folder"))
            end
            if r.existing.link ~= nil and M.bool_problem(r.existing.link) then
              bad(key .. ".existing.link", M.bool_problem(r.existing.link))
            end
          end
        else
          local d, b = r.deploy, r.benchmark
          if not is_map(d) then bad(key .. ".deploy", "missing (or give 'existing')")
          else
            known(d, key .. ".deploy", DEPLOY_KEYS, run_elsewhere(key, "deploy"))
            if d.helmfile_hooks ~= nil and d.helmfile_hooks ~= "allow" then
              bad(key .. ".deploy.helmfile_hooks", ("expected allow (helmfile may run the hooks of its state files), "
                .. "got %s"):format(tostring(d.helmfile_hooks)))
            end
            local m = d.method
            if m ~= "helmfile" and m ~= "helm" and m ~= "custom" then
              bad(key .. ".deploy.method", ("expected helmfile, helm or custom, got %s"):format(tostring(m)))
            end
            if (m == "helmfile" or m == "helm") and type(d.guide_dir) ~= "string" then
              bad(key .. ".deploy.guide_dir", "expected the guide's folder (commands run there)")
            elseif type(d.guide_dir) == "string" and lfs.attributes(d.guide_dir, "mode") ~= "directory" then
              bad(key .. ".deploy.guide_dir", d.guide_dir .. ": no such folder")
            end
            -- helmfile's -e/--environment takes one value: a second -e silently replaces the first
            local envs = d.environments
            if envs ~= nil and d.environment ~= nil then
              bad(key .. ".deploy",
                "give environment (one helmfile environment), not both environment and environments")
            elseif type(envs) == "table" and #envs > 1 then
              bad(key .. ".deploy.environments", ("helmfile's --environment takes one value, got %d (%s): helmfile "
                .. "would use only the last; give the one environment your helmfile.yaml defines for this "
                .. "combination as environment: NAME"):format(#envs, table.concat(envs, ", ")))
            elseif envs ~= nil and not (type(envs) == "string"
                or (type(envs) == "table" and type(envs[1]) == "string")) then
              bad(key .. ".deploy.environments", "expected one environment name")
            elseif d.environment ~= nil and type(d.environment) ~= "string" then
              bad(key .. ".deploy.environment", "expected one environment name")
            end
            if m == "helm" and (type(d.release) ~= "string" or type(d.chart) ~= "string") then
              bad(key .. ".deploy", "helm needs 'release' and 'chart'")
            end
            if m == "custom" then
              if not is_list(d.commands) then bad(key .. ".deploy.commands", "expected a list of argv lists")
              else
                for i, c in ipairs(d.commands) do
                  local tool = type(c) == "table" and c[1]
                  if tool ~= "kubectl" and tool ~= "helm" and tool ~= "helmfile" and tool ~= "oc" then
                    bad(("%s.deploy.commands[%d]"):format(key, i),
                      "expected a kubectl, helm, helmfile or oc argv (they run namespaced through llmdlua)")
                  else
                    for j = 2, #c do
                      for v in tostring(c[j]):gmatch("%${([^}]*)}") do
                        if v ~= "VALUES_OVERRIDE" then
                          bad(("%s.deploy.commands[%d]"):format(key, i), ("unknown placeholder ${%s} (a custom "
                            .. "command may use ${VALUES_OVERRIDE}, the values override's file)"):format(v))
                        end
                      end
                    end
                  end
                end
                -- a values override no command reads would change nothing: the run would
                -- deploy what it would without it, and say otherwise
                if d.values_override ~= nil and not M.custom_reads_override(d) then
                  bad(key .. ".deploy.values_override", "no custom command reads it: pass its file with "
                    .. "\"${VALUES_OVERRIDE}\" (e.g. [helm, upgrade, --install, NAME, CHART, -f, "
                    .. "\"${VALUES_OVERRIDE}\"]), or drop values_override")
                end
              end
            end
            for _, p in ipairs(M.guide_file_problems(d, key .. ".deploy")) do bad(p.key, p.why) end
            if type(d.model) ~= "string" then bad(key .. ".deploy.model", "expected the served model name")
            elseif not d.model:match("^[%w][%w._/:@%-]*$") or #d.model > 256 then
              -- it goes into the benchmark config (${MODEL}), commands and labels
              bad(key .. ".deploy.model", ("%s is not a model name (expected letters, digits and . _ - / : @, like "
                .. "Qwen/Qwen3-0.6B)"):format(M.shown(d.model)))
            end
            for _, p in ipairs(M.helm_set_problems(d.set, key .. ".deploy.set")) do bad(p.key, p.why) end
            if type(d.release) == "string" and M.bad_release(d.release) then
              bad(key .. ".deploy.release", M.bad_release(d.release))
            end
            for _, p in ipairs(M.value_name_problems(d.values_override, key .. ".deploy.values_override")) do
              bad(p.key, p.why)
            end
            if d.service ~= nil and (type(d.service) ~= "string" or not d.service:match("^[%w][%w%.%-]*:?%d*$")) then
              bad(key .. ".deploy.service", "expected NAME or NAME:PORT (a Service in the namespace)")
            end
          end
          if not is_map(b) then bad(key .. ".benchmark", "missing (or give 'existing')")
          else
            known(b, key .. ".benchmark", BENCHMARK_KEYS, run_elsewhere(key, "benchmark"))
            if type(b.template) ~= "string" then
              bad(key .. ".benchmark.template", "expected a run_only.sh config template")
            elseif lfs.attributes(b.template, "mode") ~= "file" then
              bad(key .. ".benchmark.template", b.template .. ": no such file")
            elseif type(r.label) == "string" and M.plain_name_problem(r.label)
              and not (is_map(b.vars) and b.vars.STACK_NAME ~= nil) then
              -- the label is ${STACK_NAME}: the config's endpoint.stack_name, which run_only.sh
              -- writes unquoted into its launcher Pod's YAML (a heredoc: LLMDBENCH_HARNESS_STACK_NAME)
              -- and into the results folder's name - a " : or newline there breaks the Pod or
              -- adds keys to it. Refused before anything deploys, when the template uses it.
              local tf = io.open(b.template, "rb")
              local text = tf and tf:read("a") or ""
              if tf then tf:close() end
              if text:find("%$%{?STACK_NAME%f[^%w_]") then
                bad(key .. ".label", ("%s: %s, as the benchmark template %s takes it (${STACK_NAME}) and run_only.sh "
                  .. "writes it unquoted into its launcher Pod's YAML and the results folder's name"):format(
                  M.shown(r.label), M.plain_name_problem(r.label), b.template))
              end
            end
            if type(b.template) == "string" and lfs.attributes(b.template, "mode") == "file" then
              -- each run's render with its own vars (runs a and b on one template with vars
              -- {STACK: plain} and {STAK: sched}: rendered once with a's, b failed at step 60 after a
              -- was deployed and measured, newuserd51 2); one line where both runs' say the same
              local why, cfg = M.template_problem(b, r, plan)
              if why and not checked_templates[b.template .. "\0" .. why] then
                checked_templates[b.template .. "\0" .. why] = true
                bad(key .. ".benchmark.template", why)
              end
              -- the plan's harness against the one the template runs (newuser54 #3: found at step
              -- 60, after deploying and benchmarking, and said as "leave --harness out")
              local hwhy = not why and b.command == nil and M.harness_mismatch(b, cfg)
              if hwhy then bad(key .. ".benchmark.harness", hwhy) end
            end
            if b.attempts ~= nil and (math.type(b.attempts) ~= "integer" or b.attempts < 1) then
              bad(key .. ".benchmark.attempts", "expected an integer >= 1")
            end
            if b.vars ~= nil and not is_map(b.vars) then bad(key .. ".benchmark.vars", "expected a mapping") end
            if b.pvc ~= nil and (type(b.pvc) ~= "string" or M.bad_release(b.pvc, 253)) then
              bad(key .. ".benchmark.pvc", ("expected a PVC name (lowercase letters, digits, '-' and '.'), got %s")
                :format(M.shown(b.pvc)))
            end
            -- as --harness is checked: a harness llmdlua reads (a misspelt one passed the dry run,
            -- and the real run deployed everything before it failed on the results)
            if b.harness ~= nil then
              local names, found = {}, false
              for _, h in ipairs(harness.list()) do
                names[#names + 1] = h.name
                if h.name == b.harness or h.module == b.harness
                  or h.module == tostring(b.harness):gsub("%-", "_") then found = true end
              end
              if not found then
                local near = require("llmd.opts").closest(tostring(b.harness), names)
                bad(key .. ".benchmark.harness", ("expected %s or %s, got '%s'%s"):format(
                  table.concat(names, ", ", 1, #names - 1), names[#names], tostring(b.harness),
                  near and (" (did you mean %s?)"):format(near) or ""))
              end
            end
          end
        end
      end
    end
  end
  -- a values key of a run's override (values_override, set) most likely misspelt (llmd.valuekeys):
  -- absent from the values it goes over and from the other run's override, a letter or two from
  -- a key one of them has; helm would deploy the chart's own value under the run's label
  -- (newuserd51). Once the runs' shapes are right, before anything deploys.
  if #errs == 0 and is_map(plan.runs) then
    local vk = require "llmd.valuekeys"
    local sets = {}
    for _, x in ipairs { "a", "b" } do
      local d = plan.runs[x].deploy
      if is_map(d) then
        local nk = d.new_values_keys
        if nk ~= nil and not (is_list(nk) and #nk > 0) then
          bad(("runs.%s.deploy.new_values_keys"):format(x), "expected a list of dotted values keys (decode.replicas)")
        end
        local allowed = {}
        for _, k in ipairs(is_list(nk) and nk or {}) do allowed[tostring(k)] = true end
        local paths = {}
        if is_map(d.set) then
          for k in pairs(d.set) do
            local p = vk.set_path(k)
            p[#p + 1] = true
            paths[#paths + 1] = p
          end
        end
        if is_map(d.values_override) then
          for _, p in ipairs(vk.paths(d.values_override)) do p[#p + 1] = true; paths[#paths + 1] = p end
        end
        local tree = vk.tree_of(paths)
        if next(tree) ~= nil then
          sets[#sets + 1] = { who = ("runs.%s.deploy"):format(x), tree = tree, base = vk.base_trees(d, true),
            allowed = allowed }
        end
      end
    end
    for _, l in ipairs(vk.problems(sets, { where = name, keep = "refused: helm would take it as a new value and deploy "
      .. "the chart's own under the run's label; fix the key, or keep a genuinely new one by listing it under the "
      .. "run's deploy.new_values_keys - nothing was deployed" })) do
      errs[#errs + 1] = { text = l }
    end
  end
  if #errs > 0 then
    local lines = {}
    for _, e in ipairs(errs) do
      local typo = false
      for m in pairs(meant) do
        if e.key and (e.key == m or e.key:sub(1, #m + 1) == m .. ".") then typo = true end
      end
      if not typo then lines[#lines + 1] = e.text end
    end
    error(table.concat(lines, "\n"), 0)
  end
  return plan
end

-- The variables the benchmark step fills in from the cluster (llmd.cluster's benchmark: the
-- results PVC found, the run's Service and port), as stand-ins of the same kind: plain words,
-- as the real values are, so that the template renders before anything is deployed.
local CLUSTER_VARS = { BENCHMARK_PVC = "benchmark-pvc", IP = "svc.ns.svc.cluster.local:80", GATEWAY_SVC = "svc",
  ENDPOINT = "http://svc.ns.svc.cluster.local:80" }

-- Why run r's benchmark template (b.template, a file) could not be rendered and read at the
-- benchmark step, or nil: checked in the plan, before anything deploys (newuser50 F4: a YAML
-- typo was found at step 60, after a deploy, and named the rendered copy in the workspace).
-- First the template as YAML with each ${VAR} put in as a plain word of its own length, so
-- that an error's line:col is the template's own; then as the benchmark step renders it
-- (M.substitute_yaml: an unset ${VAR}, a value that is no YAML scalar there, each naming the
-- template's line), with the run's model, label and namespace, the plan's benchmark.vars and
-- the environment, and stand-ins for what the cluster gives (CLUSTER_VARS).
function M.template_problem(b, r, plan)
  local f = io.open(b.template, "rb")
  if not f then return b.template .. ": cannot be read" end
  local text = f:read("a") or ""
  f:close()
  local same_cols = text:gsub("%${([%a_][%w_]*)}", function(v) return v .. ("x"):rep(3) end)
  local ok, err = pcall(yaml.load, same_cols, b.template)
  if not ok then
    return ("%s (the benchmark template); nothing was deployed"):format(
      tostring(err))
  end
  local d = is_map(r.deploy) and r.deploy or {}
  local vars = { NAMESPACE = type(plan.namespace) == "string" and plan.namespace or "ns",
    MODEL = type(d.model) == "string" and d.model or "model", STACK_NAME = type(r.label) == "string" and r.label
    or "run" }
  for k, v in pairs(CLUSTER_VARS) do vars[k] = v end
  for k, v in pairs(is_map(b.vars) and b.vars or {}) do vars[k] = v end
  local rok, rendered = pcall(M.substitute_yaml, text, vars, b.template)
  if not rok then return tostring(rendered) .. "; nothing was deployed" end
  local pok, perr = pcall(yaml.load, rendered, b.template)
  if not pok then
    return ("%s (the benchmark template once its ${VAR}s are filled in); nothing was deployed"):format(tostring(perr))
  end
  -- each load stage's rate and duration a positive number: a rate of 16O (a letter O) passed
  -- every check, and the stage check of the report could not be made (newuser53 #3)
  if is_map(perr) and is_map(perr.workload) then
    local names = {}
    for k in pairs(perr.workload) do names[#names + 1] = tostring(k) end
    table.sort(names)
    for _, w in ipairs(names) do
      local p = M.stage_problems(perr.workload[w], "workload." .. w)[1]
      if p then
        return ("%s: %s: %s; nothing was deployed"):format(b.template, p.key, p.why)
      end
    end
  end
  return nil, perr
end

-- Why a run's benchmark.harness (b.harness) cannot read what its template runs, or nil: the
-- rendered template cfg's harness.name is the harness run_only.sh runs (inference-perf,
-- guidellm, inferencemax, vllm-benchmark: the names llmdlua reads its results by), and
-- results of one are never read as another's. A plan harness of benchmark-report (the report
-- llm-d-benchmark converts any harness's results to) is not checked, nor one naming a harness
-- llmdlua does not know. A template without harness.name runs run_only.sh's default harness,
-- inference-perf (M.RUN_ONLY_DEFAULT_HARNESS; the reference's "inference-perf (default)"), and
-- is checked as one naming it, said so (tidy55: it passed, to fail at step 60).
M.RUN_ONLY_DEFAULT_HARNESS = "inference-perf"
function M.harness_mismatch(b, cfg)
  if b.harness == nil or not is_map(cfg) then return nil end
  local named = is_map(cfg.harness) and cfg.harness.name
  if named ~= nil and type(named) ~= "string" then return nil end
  local function find(name)
    for _, h in ipairs(harness.list()) do
      if h.name == name or h.module == name or h.module == tostring(name):gsub("%-", "_") then return h end
    end
  end
  local planned, run = find(b.harness), find(named or M.RUN_ONLY_DEFAULT_HARNESS)
  if not planned or not run or planned == run or planned.name == "benchmark-report" then return nil end
  if not named then
    return ("%s, but the benchmark template (%s) sets no harness.name, so run_only.sh runs its default harness, "
      .. "%s: its results are %s's, which are not read as %s's (the run would deploy, benchmark and then fail at "
      .. "step 60); set harness.name: %s in the template, or leave benchmark.harness out (the results say which "
      .. "harness wrote them); nothing was deployed"):format(tostring(b.harness), tostring(b.template),
      M.RUN_ONLY_DEFAULT_HARNESS, run.name, planned.name, planned.name)
  end
  return ("%s, but the benchmark template sets harness.name: %s (%s), the harness run_only.sh runs: its results "
    .. "are %s's, which are not read as %s's (the run would deploy, benchmark and then fail at step 60); make the "
    .. "two name the same harness, or leave benchmark.harness out (the results say which harness wrote them); "
    .. "nothing was deployed"):format(tostring(b.harness), named,
    M.key_where(b.template, "name"), run.name, planned.name)
end

-- What is wrong with the load stages of a workload profile wl (a run_only.sh config's
-- workload.NAME: load.stages, each a mapping whose rate, requests per second, and duration,
-- seconds, are positive numbers where given), { {key =, why =}, ... } with keys dotted from
-- prefix as an experiment's treatments write them (load.stages.0.rate). Nothing of a profile
-- without load.stages (another harness's).
function M.stage_problems(wl, prefix)
  local out = {}
  local function key(s) return prefix and (prefix .. "." .. s) or s end
  local load = is_map(wl) and wl.load
  if not is_map(load) or load.stages == nil then return out end
  if not is_list(load.stages) then
    out[1] = { key = key("load.stages"), why = "expected a list of stages ({rate: N, duration: S} each)" }
    return out
  end
  for i, st in ipairs(load.stages) do
    if not is_map(st) then
      out[#out + 1] = { key = key(("load.stages.%d"):format(i - 1)),
        why = "expected a mapping ({rate: N, duration: S})" }
    else
      for _, f in ipairs { { "rate", "requests per second" }, { "duration", "seconds" } } do
        local v = st[f[1]]
        if v ~= nil and not (type(v) == "number" and v > 0 and v == v and v ~= math.huge) then
          out[#out + 1] = { key = key(("load.stages.%d.%s"):format(i - 1, f[1])),
            why = ("expected a positive number (%s), got %s"):format(f[2], M.value_shown(v)) }
        end
      end
    end
  end
  return out
end

-- A run's deploy files under its guide_dir, as helm and kubectl will read them: each values
-- file (helm -f) there and YAML, each kustomize folder there with its kustomization file
-- YAML. {key=, why=} each, checked before anything deploys (a values file's typo failed the
-- deploy at step 10 after the lock and the namespace were taken).
function M.guide_file_problems(d, key)
  local out = {}
  if type(d.guide_dir) ~= "string" or lfs.attributes(d.guide_dir, "mode") ~= "directory" then return out end
  local function at(p) return p:sub(1, 1) == "/" and p or (d.guide_dir .. "/" .. p) end
  local values = d.values
  if type(values) == "string" then values = { values } end
  if d.values ~= nil and type(values) ~= "table" then
    out[#out + 1] = { key = key .. ".values", why = "expected a list of values files (relative to guide_dir)" }
    values = {}
  end
  for i, v in ipairs(values or {}) do
    local k = ("%s.values[%d]"):format(key, i - 1)
    if type(v) ~= "string" then out[#out + 1] = { key = k, why = "expected a values file (relative to guide_dir)" }
    else
      local mode = lfs.attributes(at(v), "mode")
      if mode ~= "file" then
        out[#out + 1] = { key = k, why = ("%s: %s (relative to guide_dir %s; helm -f reads it)"):format(at(v),
          mode and ("a " .. mode .. ", not a file") or "no such file", d.guide_dir) }
      else
        local ok, err = pcall(yaml.load_file, at(v))
        if not ok then
          out[#out + 1] = { key = k, why = ("%s (a values file: helm -f would refuse it); nothing was deployed")
            :format(tostring(err)) }
        end
      end
    end
  end
  local kz = d.kustomize
  if type(kz) == "string" then kz = { kz } end
  for i, kd in ipairs(type(kz) == "table" and kz or {}) do
    local k = type(d.kustomize) == "table" and ("%s.kustomize[%d]"):format(key, i - 1) or key .. ".kustomize"
    if type(kd) == "string" then
      local dir = at(kd)
      if lfs.attributes(dir, "mode") ~= "directory" then
        out[#out + 1] = { key = k, why = ("%s: no such folder (relative to guide_dir %s; kubectl apply -k reads it)")
          :format(dir, d.guide_dir) }
      else
        local file
        for _, n in ipairs { "kustomization.yaml", "kustomization.yml", "Kustomization" } do
          if not file and lfs.attributes(dir .. "/" .. n, "mode") == "file" then file = dir .. "/" .. n end
        end
        if not file then
          out[#out + 1] = { key = k,
            why = ("%s: no kustomization.yaml in it (kubectl apply -k needs one)"):format(dir) }
        else
          local ok, err = pcall(yaml.load_file, file)
          if not ok then
            out[#out + 1] = { key = k, why = ("%s (kubectl apply -k would refuse it); nothing was deployed")
              :format(tostring(err)) }
          end
        end
      end
    end
  end
  return out
end

-- Where in the plan file path the mapping key k is written, for its error's line:
-- "plan.yaml:10" where k is a key on one line only (block "k:", "- k:", or flow "{..., k:"),
-- else path alone: a key written on several lines is not told apart here, and a plan that is
-- no file (one built in code, "plan") has no lines.
function M.key_where(path, k)
  if type(k) ~= "string" or type(path) ~= "string" then return path end
  local f = io.open(path, "r")
  local text = f and f:read("a")
  if f then f:close() end
  if type(text) ~= "string" then return path end
  local key = k:gsub("%p", "%%%0")
  local at, n = nil, 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local code = line:gsub("^%s*#.*$", ""):gsub("%s#.*$", "")
    local quoted = "[\"']?" .. key .. "[\"']?%s*:"
    if code:match("^%s*" .. quoted) or code:match("^%s*%-%s+" .. quoted) or code:match("[{,]%s*" .. quoted) then
      if at then return path end
      at = n
    end
  end
  return at and ("%s:%d"):format(path, at) or path
end

-- The plan's own paths made absolute, so a resume from another folder finds them: those of
-- the plan file are already (M.plan_paths_from_file); what the command line added (--a DIR,
-- --parent) is from the current folder, where it was checked. values and kustomize stay
-- relative to guide_dir, as documented.
function M.absolute_paths(plan)
  local here = lfs.currentdir()
  local function abs(p)
    if type(p) ~= "string" or p:sub(1, 1) == "/" then return p end
    return (here .. "/" .. p):gsub("/%./", "/"):gsub("/+$", "")
  end
  for k, v in pairs(plan.bins or {}) do
    if type(v) == "string" and v:find("/") then plan.bins[k] = abs(v) end
  end
  if plan.parent then plan.parent = abs(plan.parent) end
  for _, r in pairs(plan.runs or {}) do
    if type(r) == "table" then
      if r.deploy and r.deploy.guide_dir then r.deploy.guide_dir = abs(r.deploy.guide_dir) end
      if r.benchmark and r.benchmark.template then r.benchmark.template = abs(r.benchmark.template) end
      if r.existing and r.existing.results then r.existing.results = abs(r.existing.results) end
    end
  end
  return plan
end

-- The folder of the file at path, absolute (from the current folder when path is relative).
local function folder_of(path)
  local dir = path:match("^(.*)/[^/]*$") or "."
  if dir == "" then dir = "/" end
  if dir:sub(1, 1) ~= "/" then dir = lfs.currentdir() .. "/" .. dir end
  return (dir:gsub("/%./", "/"):gsub("/%.$", ""):gsub("(.)/+$", "%1"))
end

-- A plan's relative paths read from the plan's own folder (as every tool reads its config
-- file's), not from wherever the command was started (~/ is the home folder): parent, bins
-- with a / (a bare name is looked up in PATH), and each run's deploy.guide_dir,
-- benchmark.template and existing.results. runs: the tables holding deploy / benchmark / existing (compare.lua's
-- runs.a and runs.b; experiment.lua's plan itself). Absolute paths, and values of another
-- type (the checks say what is wrong with them), are left as they are. Returns plan.
function M.plan_paths_from_file(plan, path, runs)
  if type(plan) ~= "table" then return plan end
  local base = folder_of(path)
  local home = os.getenv("HOME")
  local function from(p)
    if type(p) ~= "string" or p == "" or p:sub(1, 1) == "/" then return p end
    -- ~/ is the home folder, as in a shell (README's example plans write it so)
    if (p == "~" or p:sub(1, 2) == "~/") and home and home:sub(1, 1) == "/" then
      return home:gsub("/+$", "") .. p:sub(2)
    end
    local out = (base == "/" and "" or base) .. "/" .. p
    return (out:gsub("/%./", "/"):gsub("/%.$", ""):gsub("(.)/+$", "%1"))
  end
  plan.parent = from(plan.parent)
  if type(plan.bins) == "table" then
    for k, v in pairs(plan.bins) do
      if type(v) == "string" and v:find("/", 1, true) then plan.bins[k] = from(v) end
    end
  end
  for _, r in ipairs(runs) do
    if type(r) == "table" then
      if type(r.deploy) == "table" then r.deploy.guide_dir = from(r.deploy.guide_dir) end
      if type(r.benchmark) == "table" then r.benchmark.template = from(r.benchmark.template) end
      if type(r.existing) == "table" then r.existing.results = from(r.existing.results) end
    end
  end
  return plan
end

function M.load_plan(path, opts)
  local plan = yaml.load_file(path)
  local runs = type(plan) == "table" and type(plan.runs) == "table" and plan.runs or {}
  M.plan_paths_from_file(plan, path, { runs.a, runs.b })
  return M.validate(plan, path, opts)
end

-- Namespace: the plan or --namespace, then $NAMESPACE, then `oc project -q`, then ask.
-- Namespaces that are the cluster's own or shared by everything on it: deploying there,
-- and above all tearing down there (teardown: namespace-wide), could remove what others
-- run. Returns why, or nil.
local SYSTEM_NS = { default = true, openshift = true, ["istio-system"] = true, ["istio-ingress"] = true,
  ["cert-manager"] = true, ["gpu-operator"] = true, ["nvidia-gpu-operator"] = true, ["calico-system"] = true,
  ["tigera-operator"] = true, ["ingress-nginx"] = true, ["local-path-storage"] = true }
function M.system_namespace(ns)
  if type(ns) ~= "string" then return nil end
  local bad = M.bad_name(ns)
  if bad then return bad end
  if SYSTEM_NS[ns] or ns:match("^kube%-") or ns:match("^openshift%-") then
    return ("%s is a system namespace (the cluster's own, or shared by everything on it): deploying and tearing "
      .. "down there could delete what others run; use a namespace of your own"):format(ns)
  end
end

-- Why name is not a Kubernetes namespace (or release) name, or nil: an RFC 1123 label, as
-- the API server requires of a namespace - lowercase letters, digits and '-', starting and
-- ending with a letter or digit, at most 63 characters. (A name that is not one can never
-- exist: every command in it would fail, or worse, reach a shell or a file unquoted.)
function M.bad_name(name, what)
  if type(name) ~= "string" then return nil end
  if #name <= 63 and name:match("^[a-z0-9]$") or name:match("^[a-z0-9][-a-z0-9]*[a-z0-9]$") and #name <= 63 then
    return nil
  end
  return ("%s is not a valid %s name (expected an RFC 1123 label: lowercase letters, digits and '-', starting and "
    .. "ending with a letter or digit, at most 63 characters%s)"):format(M.shown(name), what or "namespace",
    #name > 63 and ("; it has " .. #name) or "")
end

-- Why name is not a Helm release name, or nil: helm refuses one that is not a lowercase
-- RFC 1123 subdomain of at most 53 characters.
function M.bad_release(name, max)
  local ok = #name <= (max or 53)
  for part in (name .. "."):gmatch("([^.]*)%.") do
    if not (part:match("^[a-z0-9]$") or part:match("^[a-z0-9][-a-z0-9]*[a-z0-9]$")) then ok = false end
  end
  if ok then return nil end
  return ("%s is not a valid Helm release name (lowercase letters, digits, '-' and '.', starting and ending with a "
    .. "letter or digit, at most 53 characters)"):format(M.shown(name))
end

-- The names a values override (a plan's deploy.values_override, an experiment's setup
-- treatment) gives the charts for Kubernetes objects, checked before any cluster call as
-- --namespace and deploy.release are: a key whose last part is a namespace (namespace,
-- namespaceOverride, any ...Namespace) must hold an RFC 1123 label (M.bad_name), one that
-- names a release or what the chart names after it (release, releaseName,
-- fullnameOverride, nameOverride) a name helm accepts (M.bad_release). An empty string is
-- the charts' "not set" and passes. A count of replicas must be a whole number, and no
-- value a string YAML 1.1 reads as a boolean (no, off, yes, on, y, n: M.yaml11_bool; llmdlua
-- writes the override again, so helm would get the string). v: the value at path (a dotted
-- key; a mapping or list is walked, its keys added to path). Returns { {key =, why =}, ... },
-- in key order.
function M.value_name_problems(v, path, out)
  out = out or {}
  local leaf = path and (tostring(path):match("([^.]+)$") or tostring(path)):lower()
  if leaf == "replicas" and type(v) ~= "table" and v ~= json.null and not (math.type(v) == "integer" and v >= 0) then
    -- (a count of pods: decode.replicas: two, or -2, passed --dry-run and reached helm, newuser53 #3)
    out[#out + 1] = { key = path, why = ("expected a whole number of replicas (0 or more), got %s"):format(
      M.value_shown(v)) }
    return out
  end
  if M.yaml11_bool(v) ~= nil then
    -- (enabled: no reached helm as the string "no", which a chart's `if` takes as true: mend54 #4)
    local b = tostring(M.yaml11_bool(v))
    out[#out + 1] = { key = path, why = ("%s is a string to llmdlua, which reads YAML 1.2, but %s to YAML 1.1 "
      .. "(helm's reading of a values file, PyYAML's): it would reach helm as the string %s, which a chart's `if` "
      .. "takes as true; write %s (or %s) for a boolean, or give the text in one of the guide's values files, which "
      .. "helm reads itself"):format(M.shown(v), b, M.shown(v), b, b == "true" and "false" or "true") }
    return out
  end
  if type(v) == "table" then
    local ks = {}
    for k in pairs(v) do ks[#ks + 1] = k end
    table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(ks) do
      M.value_name_problems(v[k], path and (path .. "." .. tostring(k)) or tostring(k), out)
    end
  elseif type(v) == "string" and v ~= "" and path then
    local why
    if leaf:match("namespace$") or leaf == "namespaceoverride" then
      why = M.bad_name(v, "namespace")
    elseif leaf == "release" or leaf == "releasename" or leaf == "fullnameoverride" or leaf == "nameoverride" then
      why = M.bad_release(v)
    end
    if why then out[#out + 1] = { key = path, why = why } end
  end
  return out
end

-- deploy.set (method helm): each KEY: VALUE one --set KEY=VALUE, read by helm's --set
-- parser (helm's pkg/strvals): in KEY, '.' goes one level down, [N] into a list, '=' ends it
-- and ',' starts the next KEY=VALUE; in VALUE, ',' starts the next and a leading '{' a list
-- {a,b}; '\' takes the next character as it is, in both. Its VALUE is typed as YAML's would
-- be only in part (true, false, null, whole numbers; "1.5" stays a string), so a string that
-- helm would read as another type goes with --set-string. Problems, as M.value_name_problems':
-- a set that is no mapping, a mapping or list as a value (--set takes one scalar), a KEY
-- helm would split or misread, a value values_override would not pass either (a count of
-- replicas that is no whole number, a namespace or release name Kubernetes or helm refuses:
-- M.value_name_problems). set: the plan's deploy.set; path: where it is in the plan.
function M.helm_set_problems(set, path)
  local out = {}
  if set == nil then return out end
  if not is_map(set) then
    out[1] = { key = path, why = "expected a mapping of KEY: VALUE, each a --set KEY=VALUE (KEY a dotted values path)" }
    return out
  end
  local ks = {}
  for k in pairs(set) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(ks) do
    local v, where = set[k], path .. "." .. tostring(k)
    local kwhy = M.helm_set_key_problem(k)
    if kwhy then out[#out + 1] = { key = where, why = kwhy } end
    if type(v) == "table" then
      local sub = next(v) ~= nil and not is_map(v) and "a list" or "a mapping"
      out[#out + 1] = { key = where, why = ("%s is not a --set value (helm's --set takes one value: a mapping would "
        .. "reach it as text); give it in values_override (%s: ...), or one dotted key per value (%s.KEY: VALUE)")
        :format(sub, tostring(k), tostring(k)) }
    elseif type(v) ~= "string" and type(v) ~= "number" and type(v) ~= "boolean" and v ~= json.null then
      out[#out + 1] = { key = where, why = "expected a string, number, true, false or null" }
    elseif type(v) == "string" and v:find("%c") then
      out[#out + 1] = { key = where, why = ("%s holds a control character: give it in values_override")
        :format(M.shown(v)) }
    elseif not kwhy then
      -- the counts and names values_override's are held to (M.value_name_problems): a
      -- decode.replicas: two reached helm as --set-string (mend54 #3)
      for _, p in ipairs(M.value_name_problems(v, where)) do out[#out + 1] = p end
    end
  end
  return out
end

-- Why helm's --set parser would not read KEY as the values path it is written as, or nil:
-- an '=' or ',' in it (helm ends the key there: escape it as \= or \,, if the chart's key
-- holds one), an empty part (a.b., .a, a..b), an index that is no [N], a '\' at its end, a
-- control character.
function M.helm_set_key_problem(k)
  if type(k) ~= "string" and math.type(k) ~= "integer" then return "expected a values path (a string)" end
  k = tostring(k)
  if k:find("%c") then return ("%s holds a control character"):format(M.shown(k)) end
  local i, part, after_index = 1, 0, false
  local function problem(why) return ("%s: %s (helm's --set grammar: '.' separates the parts of the path, [N] "
    .. "indexes a list; a '\\' before '=', ',', '.' or '[' makes it part of a name)"):format(M.shown(k), why) end
  while i <= #k do
    local c = k:sub(i, i)
    if c == "\\" then
      if i == #k then return problem("it ends in '\\', which escapes nothing") end
      part, i = part + 1, i + 2
    elseif c == "=" then return problem("helm would end the key at its '='")
    elseif c == "," then return problem("helm would read its ',' as the start of another KEY=VALUE")
    elseif c == "." then
      if part == 0 and not after_index then return problem("it has an empty part") end
      part, after_index, i = 0, false, i + 1
    elseif c == "[" then
      local n = k:match("^%[(%d+)%]", i)
      if not n or (part == 0 and not after_index) then return problem("an index must be [N] after a name") end
      part, after_index, i = 0, true, i + #n + 2
    elseif c == "]" then return problem("a ']' without its '['")
    else
      if after_index then return problem("after [N] comes '.', another [N] or the end") end
      part, i = part + 1, i + 1
    end
  end
  if part == 0 and not after_index then return problem("it has an empty part") end
  return nil
end

-- The flag and argument a deploy.set KEY: VALUE goes to helm as (M.helm_set_problems passed):
-- --set KEY=VALUE, VALUE written so that helm reads it as the plan's value - its '\' and ','
-- escaped, a leading '{' too (else a list) - and --set-string where helm would read a
-- string as another type ("true", "4", "null": the plan's YAML made them strings).
function M.helm_set_arg(k, v)
  if v == json.null then return "--set", tostring(k) .. "=null" end
  if type(v) ~= "string" then return "--set", tostring(k) .. "=" .. tostring(v) end
  local flag = "--set"
  local l = v:lower()
  if l == "true" or l == "false" or l == "null" or v:match("^[+-]?%d+$") then flag = "--set-string" end
  local esc = v:gsub("[\\,]", "\\%0"):gsub("^{", "\\{")
  return flag, tostring(k) .. "=" .. esc
end

-- What upstream's run_only.sh (llm-d-benchmark existing_stack/run_only.sh) does with its
-- config: it builds `kubectl create cm <harness.name>-profiles --namespace <harness.namespace>
-- --from-file=KEY.yaml=<(yq ".workload.KEY ..." CONFIG)` from control.kubectl, each workload
-- key and the config's path, and runs it with bash's eval; each workload key and harness.name
-- then go into a script the harness pod's bash runs. A $(...), `...`, ; or | in any of them
-- runs there (on the user's machine, or in the pod); a space splits the path. So these are
-- refused unless they are plain: a name of letters, digits, '.', '_' and '-' (what a ConfigMap
-- key may hold, KEY.yaml being one), a path of those, '/' and + @ : , = % (and non-ASCII
-- letters: bytes bash never reads as syntax). Each returns why not, or nil.
M.PLAIN_NAME_WORDS = "letters, digits, '.', '_' and '-'"
function M.plain_name_problem(v)
  if type(v) ~= "string" and math.type(v) ~= "integer" then return "expected a name" end
  if tostring(v):match("^[A-Za-z0-9._%-]+$") then return nil end
  return ("expected %s only"):format(M.PLAIN_NAME_WORDS)
end
M.PLAIN_PATH_WORDS = "letters, digits and / . _ - + @ : , = %"
function M.plain_path_problem(p)
  if type(p) == "string" and p:match("^[A-Za-z0-9/._+@:,=%%\128-\255%-]+$") then return nil end
  local odd, seen = {}, {}
  for c in tostring(p):gmatch("[^A-Za-z0-9/._+@:,=%%\128-\255%-]") do
    if not seen[c] then seen[c] = true; odd[#odd + 1] = M.shown(c) end
  end
  return ("it holds %s (a path handed to run_only.sh may hold only %s: run_only.sh splits it at spaces and hands it "
    .. "to bash's eval, which would run a $(...) or `...` in it)"):format(table.concat(odd, ", "), M.PLAIN_PATH_WORDS)
end

-- The names of a run_only.sh config (cfg, the YAML read) that reach bash's eval and are not
-- plain (M.plain_name_problem): workload keys, harness.name, harness.namespace and
-- control.kubectl (a command: a plain path). file: where cfg was read (the template, or the
-- rendered config), for the line. Returns one line per problem, {} when none.
function M.run_only_config_problems(cfg, file)
  local out = {}
  if not is_map(cfg) then return out end
  if is_map(cfg.workload) then
    local ks = {}
    for k in pairs(cfg.workload) do ks[#ks + 1] = k end
    table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(ks) do
      local why = M.plain_name_problem(k)
      if why then
        out[#out + 1] = ("%s: workload key %s: %s: each workload key names a file (KEY.yaml), a ConfigMap key and "
          .. "its results folder, and run_only.sh hands it to bash's eval (a $(...) or `...` in it would run on this "
          .. "machine); rename it"):format(M.key_where(file, k), M.shown(k), why)
      end
    end
  end
  -- endpoint.stack_name: run_only.sh writes it unquoted into its launcher Pod's YAML (a
  -- heredoc) and the results folder's name
  local stack = is_map(cfg.endpoint) and cfg.endpoint.stack_name
  local swhy = stack ~= nil and stack ~= false and M.plain_name_problem(stack)
  if swhy then
    out[#out + 1] = ("%s: endpoint.stack_name %s: %s: run_only.sh writes it unquoted into its launcher Pod's YAML "
      .. "and the results folder's name (a \" : or newline there breaks the Pod)"):format(M.key_where(file,
      "stack_name"), M.shown(stack), swhy)
  end
  for _, kv in ipairs { { "harness", "name" }, { "harness", "namespace" } } do
    local v = is_map(cfg[kv[1]]) and cfg[kv[1]][kv[2]]
    local why = v ~= nil and v ~= false and M.plain_name_problem(v)
    if why then
      out[#out + 1] = ("%s: %s.%s %s: %s: run_only.sh hands it to bash's eval (a $(...) or `...` in it would run "
        .. "on this machine)"):format(M.key_where(file, kv[2]), kv[1], kv[2], M.shown(v), why)
    end
  end
  local kubectl = is_map(cfg.control) and cfg.control.kubectl
  if kubectl ~= nil and kubectl ~= false and (type(kubectl) ~= "string" or M.plain_path_problem(kubectl)) then
    out[#out + 1] = ("%s: control.kubectl %s: expected kubectl, oc or a plain path to one: %s"):format(
      M.key_where(file, "kubectl"), M.shown(kubectl), type(kubectl) == "string" and M.plain_path_problem(kubectl)
      or "it is no command")
  end
  return out
end

-- The path a new workspace under parent will have (ws.create: parent's real path, the name
-- added; the name llmdlua makes is plain), and why run_only.sh must not be handed a config
-- in it (M.plain_path_problem), or nil. The folders of parent that are not there yet are
-- taken as written. what: how the user chose parent, for the way out.
function M.workspace_path_problem(parent, what)
  local p = tostring(parent):gsub("(.)/+$", "%1")
  local rest = ""
  while p ~= "" and not lfs.attributes(p) do
    local up, leaf = p:match("^(.*)/([^/]*)$")
    if not up then up, leaf = ".", p end
    rest = "/" .. leaf .. rest
    p = up == "" and "/" or up
  end
  if p == "" then p = "." end
  local full = (proc.realpath(p) or p):gsub("/$", "") .. rest
  local why = M.plain_path_problem(full)
  if not why then return nil end
  return ("the workspace's folder %s: %s; give a parent folder whose path is plain (%s)"):format(M.shown(full), why,
    what)
end

-- The namespace and where it came from: --namespace or the plan's namespace: (both given
-- and different is an error), else $NAMESPACE, `oc project -q`, asked. A system namespace
-- is refused, naming where it came from.
function M.resolve_namespace(opts, plan, bins, plan_name)
  local ns, from = M.resolve_namespace_source(opts, plan, bins, plan_name)
  local why = M.system_namespace(ns)
  if why then error(("%s: %s"):format(from, why), 0) end
  return ns, from
end

function M.resolve_namespace_source(opts, plan, bins, plan_name)
  local pname = (plan_name or "plan") .. ": namespace"
  if opts.namespace and plan.namespace and opts.namespace ~= plan.namespace then
    -- (each value as a shell would read it: a space or quote in one is seen)
    error(("%s: %s says %s; give the namespace in one place (drop --namespace, or namespace: "
      .. "from the plan)"):format(k8s.cmdline { "--namespace", opts.namespace }, pname,
      k8s.cmdline { tostring(plan.namespace) }), 0)
  end
  if plan.namespace then return plan.namespace, pname end
  if opts.namespace then return opts.namespace, "--namespace " .. opts.namespace end
  local ns
  ns = os.getenv("NAMESPACE")
  if ns and ns ~= "" then return ns, "$NAMESPACE (" .. ns .. ")" end
  local oc = bins.oc or "oc"
  if proc.which(oc) or oc:find("/") then
    local ok, r = pcall(proc.run, { oc, "project", "-q" })
    if ok and r.ok and r.stdout:match("%S") then
      return r.stdout:match("^%s*(%S+)"), "the OpenShift project (oc project -q)"
    end
  end
  if opts.interactive then
    io.write("Namespace to deploy into: ")
    io.flush()
    local line = io.read("l")
    if line and line:match("%S") then return line:match("^%s*(%S+)"), "asked" end
  end
  return nil
end

-- Substitutes ${VAR} and $VAR; every ${VAR} must be known (vars, then the environment).
function M.substitute(text, vars, name)
  local missing = {}
  local out = text:gsub("%${([%a_][%w_]*)}", function(v)
    local x = vars[v] or os.getenv(v)
    if x == nil then missing[#missing + 1] = v; return nil end
    return tostring(x)
  end)
  out = out:gsub("%$([%a_][%w_]*)", function(v)
    local x = vars[v] or os.getenv(v)
    if x ~= nil then return tostring(x) end
  end)
  if #missing > 0 then
    error(("%s: unset variables %s (give them in benchmark.vars or the environment)"):format(name,
      table.concat(missing, ", ")), 0)
  end
  return out
end

-- v on one line, as a message shows it: quoted, control characters as \n, \t, \xHH.
function M.shown(v)
  local esc = { ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
  return "'" .. tostring(v):gsub("%c", function(c) return esc[c] or ("\\x%02X"):format(c:byte()) end) .. "'"
end

-- A YAML value of a plan or config as an error message shows it, whatever its type: a
-- string quoted (M.shown: its control characters escaped), null as null, a mapping or list
-- by what it is (never a table's address), a number or boolean as itself (.nan, .inf as YAML
-- writes them). (M.bool_problem says more of null and of yes/no strings, where a yes/no
-- option is expected.)
function M.value_shown(v)
  if v == json.null then return "null" end
  if type(v) == "string" then return M.shown(v) end
  if type(v) == "table" then return is_list(v) and "a list" or "a mapping" end
  -- (as YAML writes them, not C's "-nan" and "inf")
  if v ~= v then return ".nan" end
  if v == math.huge then return ".inf" elseif v == -math.huge then return "-.inf" end
  return tostring(v)
end

-- A word YAML reads as itself wherever it stands in a plain scalar: no space (" #" starts
-- a comment, ": " a key), no quote, comma or bracket (flow syntax), no leading indicator.
local function plain_word(v)
  return v:match("^[%w./][%w._/:@+=%-]*$") ~= nil
end

-- Substitutes ${VAR} and $VAR in a YAML template (the benchmark config) as M.substitute
-- does, each value written so that it stays one YAML scalar, the one the template meant:
-- as it is when it is a plain word; escaped inside a quoted scalar of the template; as a
-- double-quoted scalar when the placeholder is the whole value; refused (one line naming
-- the template, the line and the variable) when it is none of these, or holds a control
-- character (a newline in a value would add keys of its own to the config).
function M.substitute_yaml(text, vars, name)
  local missing, errs, out = {}, {}, {}
  local lineno, first_line = 0, {}
  for line, nl in text:gmatch("([^\n]*)(\n?)") do
    if line == "" and nl == "" then break end
    lineno = lineno + 1
    local parts, pos = {}, 1
    while true do
      local s, e, braced, bare = line:find("%$([{]?)([%a_][%w_]*)", pos)
      if not s then break end
      local var = bare
      if braced == "{" then
        if line:sub(e + 1, e + 1) == "}" then e = e + 1 else braced, var = "", nil end
      end
      local v
      if var then v = vars[var]; if v == nil then v = os.getenv(var) end end
      if var and v == nil and braced == "{" and not missing[var] then
        missing[#missing + 1], missing[var] = var, true
        first_line[var] = lineno
      end
      parts[#parts + 1] = line:sub(pos, s - 1)
      if not var or v == nil then
        parts[#parts + 1] = line:sub(s, e)
      else
        v = tostring(v)
        local before, after = line:sub(1, s - 1), line:sub(e + 1)
        local _, dq = before:gsub('\\"', ""):gsub('"', "")
        local _, sq = before:gsub("'", "")
        local where = ("%s:%d: ${%s} = %s"):format(name, lineno, var, M.shown(v))
        if v:find("%c") then
          errs[#errs + 1] = where .. ": a control character (a newline, a tab...) in a value would change the "
            .. "YAML config's structure; refused"
        elseif dq % 2 == 1 then
          parts[#parts + 1] = v:gsub('[\\"]', "\\%0")
        elseif sq % 2 == 1 then
          parts[#parts + 1] = v:gsub("'", "''")
        elseif plain_word(v) then
          parts[#parts + 1] = v
        elseif (before:match("[:%-]%s+$") or before:match("[{%[,]%s*$") or before:match("^%s*$"))
          and (after:match("^%s*$") or after:match("^%s+#") or after:match("^%s*[,}%]]")) then
          parts[#parts + 1] = '"' .. v:gsub('[\\"]', "\\%0") .. '"'
        elseif not v:find(": ", 1, true) and not v:find(" #", 1, true) and not v:match("[:%s]$")
          and not (before:match("%s$") and v:match("^#")) and not (before:find("[{%[]") and v:find("[,%[%]{}]")) then
          -- inside a longer plain value, what YAML reads as it is: "vllm ${LABEL}" with
          -- "base line", a dry run's "<the Service of Gateway G>.ns.svc..."
          parts[#parts + 1] = v
        else
          errs[#errs + 1] = where .. ": not a plain YAML word, and part of a longer value here; quote that value "
            .. "in the template (\"...\")"
        end
      end
      pos = e + 1
    end
    parts[#parts + 1] = line:sub(pos)
    out[#out + 1] = table.concat(parts) .. nl
  end
  if #missing > 0 then
    -- (the template's line of each: the first one's begins the message, the others' follow them)
    local shown = {}
    for i, v in ipairs(missing) do
      shown[i] = i == 1 and v or ("%s (line %d)"):format(v, first_line[v])
    end
    error(("%s:%d: unset variables %s (give them in benchmark.vars or the environment)"):format(name,
      first_line[missing[1]], table.concat(shown, ", ")), 0)
  end
  if #errs > 0 then error(table.concat(errs, "\n"), 0) end
  return table.concat(out)
end

-- The steps ---------------------------------------------------------------------------------

-- A line of progress on ctx.out, with the seconds since ctx.t0 (also experiment_run's).
-- (an error wrapped into it names no place in llmdlua's code: llmd.errors' one rule)
function M.say(ctx, fmt, ...)
  ctx.out:write(("[+%ds] "):format(os.time() - ctx.t0), errors.strip_own(fmt:format(...)), "\n")
  ctx.out:flush()
end
local say = M.say

-- The cluster tools to run: the plan's bins, else $LLMDLUA_KUBECTL, $LLMDLUA_HELM,
-- $LLMDLUA_HELMFILE, $LLMDLUA_OC when set (else each by its name, on PATH).
function M.tool_bins(plan)
  local bins = {}
  for k, v in pairs(plan.bins or {}) do bins[k] = v end
  for _, t in ipairs { "kubectl", "helm", "helmfile", "oc" } do
    local env = os.getenv("LLMDLUA_" .. t:upper())
    if env and env ~= "" and not bins[t] then bins[t] = env end
  end
  return bins
end

-- Preflight: kubectl and helm are there (ctx.bins), unless a dry run; else an error
-- naming the one missing and the plan key that sets it.
function M.check_tools(ctx)
  for _, t in ipairs { "kubectl", "helm" } do
    local b = ctx.bins[t] or t
    if not ctx.dry_run and not (b:find("/") and lfs.attributes(b)) and not proc.which(b) then
      error(("%s: not found (set bins.%s in the plan)"):format(b, t), 0)
    end
  end
end

-- The preflight of a comparison that deploys (fresh: a run not imported), or of a new
-- experiment (its plan's deploy: at the top, for every treatment), run before anything is made
-- or touches a cluster, the same in a dry run and a real one (newuser55: with
-- no helm, helmfile nor kube context, --plan made a workspace and went on to `kubectl create
-- configmap llmdlua-lock` against localhost:8080, while --dry-run stopped at helmfile): the
-- tools the deploys run (kubectl, helm, and helmfile where a run deploys with it) are there,
-- and kubectl has a cluster to talk to: with no current context and not in a pod, kubectl falls
-- back to http://localhost:8080, so an API server is asked (`kubectl version`, a read) and an
-- answer is required. Raises one line ending "; nothing was made or run"; else returns the
-- identity read (M.identity).
function M.preflight_cluster(plan, bins, ns, where)
  local need = { "kubectl", "helm" }
  for _, x in ipairs { "a", "b" } do
    local r = type(plan.runs) == "table" and plan.runs[x]
    if type(r) == "table" and not r.existing and type(r.deploy) == "table" and r.deploy.method == "helmfile"
      and need[3] == nil then
      need[3] = "helmfile"
    end
  end
  -- (an experiment's plan: one deploy for every setup treatment)
  if type(plan.deploy) == "table" and plan.deploy.method == "helmfile" then need[3] = "helmfile" end
  for _, t in ipairs(need) do
    local b = bins[t] or t
    if not (b:find("/") and lfs.attributes(b)) and not proc.which(b) then
      error(("%s: %s not found (%s; set bins.%s in the plan); nothing was made or run"):format(where, b,
        b:find("/") and "no such file" or "not on PATH", t), 0)
    end
  end
  local k = k8s.new { namespace = ns, bins = bins, out = M.QUIET }
  local id = M.identity(k)
  if id.context or id.server then return id end
  local v = k:kubectl({ "version", "-o", "json" }, { read = true, check = false })
  if v.ok then return id end -- (an API server answers: the workspace records no cluster, as warned)
  local cause = ((v.stderr or ""):match("([^\n]*%S[^\n]*)%s*$") or exitstatus.text(v))
  local why = id.why or "no context"
  error(("%s: kubectl reaches no cluster (%s; not in a pod): choose one with kubectl config use-context NAME, or "
    .. "fix the cause; nothing was made or run"):format(where, why == cause
      and ("kubectl config current-context and kubectl version: " .. why)
      or ("kubectl config current-context: %s; kubectl version: %s"):format(why, cause)), 0)
end

-- A stack x is a run config and a folder: ctx.runs[x] and ctx.run_dirs[x] when given (a
-- caller with its own stacks, e.g. an experiment runner), else the plan's runs.a/b and the
-- workspace's run-a/run-b. The step functions below take (ctx, x) and nothing else of "a"/"b".
local function run_of(ctx, x) return (ctx.runs and ctx.runs[x]) or ctx.plan.runs[x] end
-- The stack whose deploy x benchmarks: x itself, or (experiment.lua's run treatments, which
-- benchmark one deployed stack several times) ctx.stack_of[x].
local function stack_of(ctx, x) return (ctx.stack_of and ctx.stack_of[x]) or x end
local function existing(ctx, x) return run_of(ctx, x).existing ~= nil end
local function rdir(ctx, x) return (ctx.run_dirs and ctx.run_dirs[x]) or ws.run_dir(ctx.ws, x) end
local function cmds(ctx, x)
  ctx.commands[x] = ctx.commands[x] or {}
  return ctx.commands[x]
end

local function pods(ctx, selector)
  local a = { "get", "pods" }
  if selector then a[#a + 1] = "-l"; a[#a + 1] = selector end
  local v = ctx.k:json(a)
  return v and v.items or {}
end

local function pod_ready(p)
  for _, c in ipairs((p.status or {}).conditions or {}) do
    if c.type == "Ready" then return c.status == "True" end
  end
  return false
end

local function pod_problem(p)
  for _, cs in ipairs((p.status or {}).containerStatuses or {}) do
    local w = cs.state and cs.state.waiting
    if w and BAD_WAITING[w.reason] then return w.reason end
    local t = cs.lastState and cs.lastState.terminated
    if t and t.reason == "OOMKilled" then return "OOMKilled" end
  end
end

-- through llmd.steps.exec, so stacks running in parallel go on while one waits
local function sleep(s) if s > 0 then steps.exec { "sleep", ("%.3f"):format(s) } end end

-- The controllers of this run's pods (Kind/name: a ReplicaSet, a StatefulSet; a bare pod
-- by its own name), recorded once its stack is first ready after a deploy (the pods
-- wait_ready counted, list): from then on a pod is this run's only if one of them owns it
-- (M.foreign) - not another team's that started since in the namespace with the same
-- labels, which a restart would delete, wait_ready wait for, teardown miss.
function M.record_pods(ctx, x, list)
  if ctx.dry_run then return end
  local d = M.deployed(ctx, stack_of(ctx, x))
  if d.pod_owners and #d.pod_owners > 0 then return end
  local owners, seen, uids, useen = {}, {}, {}, {}
  for _, p in ipairs(list) do
    local k = M.owner_key(p)
    if not seen[k] then
      seen[k] = true
      owners[#owners + 1] = k
    end
    -- (and by uid: a controller deleted and made again under its name - another team's
    -- Deployment of the same name and template, whose ReplicaSet has this one's name - is
    -- another object; kept only when every pod names its owner's uid)
    local u = M.owner_uid(p)
    if uids and u then
      if not useen[u] then useen[u] = true; uids[#uids + 1] = u end
    else
      uids = nil
    end
  end
  table.sort(owners)
  d.pod_owners = owners
  if uids then table.sort(uids) end
  d.pod_owner_uids = uids and #uids > 0 and uids or nil
  M.save_deployed(ctx, stack_of(ctx, x))
end

-- The names of this run's serving pods now (M.foreign: its recorded controllers').
function M.own_serving_pods(ctx, x)
  local foreign = M.foreign(ctx, x)
  local names = {}
  for _, p in ipairs(pods(ctx, M.SERVING_LABEL .. "=true")) do
    if not foreign(p) then names[#names + 1] = p.metadata.name end
  end
  table.sort(names)
  return names
end

-- Restarts this run's serving pods (their controllers start new ones): deleted by name
-- (M.own_serving_pods), never by a label selector, which could match another team's pods
-- in the namespace. say: the progress line, %s the names. A dry run reads nothing, so
-- which pods is not known: said so.
function M.restart_serving(ctx, x, say_fmt)
  if ctx.dry_run then
    pods(ctx, M.SERVING_LABEL .. "=true") -- (printed as a read not made)
    ctx.out:write("[dry-run] would delete this run's serving pods, by name (not known in a dry run)\n")
    return {}
  end
  local names = M.own_serving_pods(ctx, x)
  if #names == 0 then
    error(("run %s: no serving pod of this run is left in %s to restart"):format(x, ctx.ns), 0)
  end
  say(ctx, say_fmt, table.concat(names, ", "))
  local a = { "delete", "pod" }
  for _, n in ipairs(names) do a[#a + 1] = n end
  a[#a + 1] = "--ignore-not-found"
  ctx.k:kubectl(a)
  return names
end

-- This run's serving containers now, for telling a clean benchmark from one during which a
-- vLLM server crashed: { {pod =, uid = (metadata.uid), container =, restarts =
-- (status.containerStatuses[].restartCount, the init containers' too)} }, by pod and
-- container name. M.foreign's pods (another team's) are not this run's.
function M.serving_containers(ctx, x)
  local foreign = M.foreign(ctx, x)
  local out = {}
  for _, p in ipairs(pods(ctx, M.SERVING_LABEL .. "=true")) do
    if not foreign(p) then
      local md, st = p.metadata or {}, p.status or {}
      for _, list in ipairs { st.initContainerStatuses or {}, st.containerStatuses or {} } do
        for _, cs in ipairs(list) do
          out[#out + 1] = { pod = md.name, uid = md.uid, container = cs.name,
            restarts = math.tointeger(cs.restartCount) or 0 }
        end
      end
    end
  end
  table.sort(out, function(a, b) return a.pod .. "\0" .. a.container < b.pod .. "\0" .. b.container end)
  return out
end

-- The last line of a container's log before its last restart (kubectl logs --previous), or
-- why it cannot be read.
local function previous_last_line(ctx, pod, container)
  local r = ctx.k:kubectl({ "logs", pod, "-c", container, "--previous" }, { check = false })
  if not r.ok then
    return ("not readable (%s)"):format(((r.stderr or ""):gsub("%s+$", ""):match("[^\n]*$")))
  end
  local last
  for line in (r.stdout or ""):gmatch("[^\n]+") do if line:match("%S") then last = line end end
  return last and ("%q"):format(last) or "empty"
end

-- What happened to the serving containers between two M.serving_containers: a container
-- whose restartCount went up (it crashed or was killed, OOM, and started again), a pod
-- whose uid changed under its name or that is gone (replaced, evicted, deleted). One line
-- each; {} when none. A benchmark during which any of these happened measured a server
-- that was not running all along.
function M.restarts_between(ctx, before, after)
  local now, by_name = {}, {}
  for _, c in ipairs(after) do
    now[tostring(c.uid) .. "\0" .. c.container] = c
    by_name[c.pod] = c
  end
  local out, seen = {}, {}
  for _, c in ipairs(before) do
    local a = now[tostring(c.uid) .. "\0" .. c.container]
    if a and a.restarts > c.restarts then
      out[#out + 1] = ("vLLM container %s of pod %s restarted during the benchmark (restartCount %d→%d); its "
        .. "previous log's last line: %s"):format(c.container, c.pod, c.restarts, a.restarts,
        previous_last_line(ctx, c.pod, c.container))
    elseif not a and not seen[c.pod] then
      seen[c.pod] = true
      local same = by_name[c.pod]
      if same then
        out[#out + 1] = ("pod %s was replaced during the benchmark (uid %s→%s)"):format(c.pod, tostring(c.uid),
          tostring(same.uid))
      else
        out[#out + 1] = ("pod %s (uid %s) was replaced or removed during the benchmark"):format(c.pod,
          tostring(c.uid))
      end
    end
  end
  return out
end

-- Containers that had restarted before the benchmark began (restartCount > 0 in the
-- snapshot taken right before it): not a failure of the benchmark, but the server it
-- measured had crashed once - said in the report's data checks. One line each.
function M.restarted_before(ctx, before)
  local out = {}
  for _, c in ipairs(before) do
    if c.restarts > 0 then
      out[#out + 1] = ("vLLM container %s of pod %s had restarted %d time%s before the benchmark started; its "
        .. "previous log's last line: %s"):format(c.container, c.pod, c.restarts, c.restarts == 1 and "" or "s",
        previous_last_line(ctx, c.pod, c.container))
    end
  end
  return out
end

-- The API group of an apiVersion ("apps/v1": "apps"; the core group's "v1": "")
local function group_of(api_version) return api_version:match("^(.*)/[^/]*$") or "" end

-- The namespaced resources of the cluster, as `kubectl api-resources --no-headers` lists them
-- (columns NAME, SHORTNAMES - left empty by some -, APIVERSION, NAMESPACED, KIND): { {resource
-- =, apiVersion =, kind =} }, the namespaced ones only; read once a run. nil when it cannot be
-- read. (kubectl prints the list and then exits 1 when one aggregated API - a metrics-server
-- that is down - does not answer: the groups it did list are read all the same.)
local function api_resources(ctx)
  if ctx.api_resources ~= nil then return ctx.api_resources or nil end
  local r = ctx.k:kubectl({ "api-resources", "--no-headers" }, { read = true, check = false })
  local out = {}
  for line in (r.stdout or ""):gmatch("[^\n]+") do
    local f = {}
    for w in line:gmatch("%S+") do f[#f + 1] = w end
    if #f >= 4 and f[#f - 1] == "true" then
      out[#out + 1] = { resource = f[1], apiVersion = f[#f - 2], kind = f[#f] }
    end
  end
  ctx.api_resources = #out > 0 and out or false
  return ctx.api_resources or nil
end

-- The InferencePool resources to list, fully qualified - "inferencepools.inference.networking.
-- k8s.io", and "inferencepools.inference.networking.x-k8s.io" where the cluster serves that group
-- too (GAIE's v1alpha2 beside v1, clusters upgraded from an older llm-d) - as kubectl api-resources
-- lists them, comma-joined for one kubectl get; a bare "inferencepool" is the first group in
-- discovery's order, maybe not the one the deploy used (fixs50, as M.GW_RES for gateways). nil
-- when the cluster serves none (none to wait for); "inferencepool" (kubectl's own pick) when
-- api-resources cannot be read.
function M.pool_resources(ctx)
  local list = api_resources(ctx)
  if not list then return "inferencepool" end
  local out, seen = {}, {}
  for _, r in ipairs(list) do
    local group = group_of(r.apiVersion)
    if r.kind == "InferencePool" and group ~= "" and not seen[group] then
      seen[group] = true
      out[#out + 1] = r.resource .. "." .. group
    end
  end
  table.sort(out)
  return #out > 0 and table.concat(out, ",") or nil
end

-- Is a stack ready: ps, the namespace's pods (kubectl get pods' items), objs its
-- InferencePools, Gateways and HTTPRoutes (items; or a function that reads them, called
-- once the pods are looked at, unless one is unwell), foreign(p) true for a pod that is not
-- the stack's. Every pod of the stack - not the harness launcher, not a finished (Succeeded)
-- one - Ready, and every object's Programmed/Accepted/Ready condition (its own or a
-- parent's) True. Returns { ready = n, total = n, counted = {pods}, line = "pods Ready n/m",
-- done = true|false, why = (not done: what it waits for), problem = (a pod in
-- CrashLoopBackOff, ImagePullBackOff ..., OOMKilled: {pod =, reason =}) }. Step 30 and
-- run_comparison.sh's wait_ready (each with its own foreign) wait on it.
function M.readiness(ps, objs, foreign)
  local total, ready, waiting, counted = 0, 0, {}, {}
  for _, p in ipairs(ps or {}) do
    local name = (p.metadata or {}).name
    -- finished job pods and the harness launcher are not part of the stack
    local phase = (p.status or {}).phase
    if name ~= "llmdbench-harness-launcher" and phase ~= "Succeeded" and not foreign(p) then
      total = total + 1
      counted[#counted + 1] = p
      local problem = pod_problem(p)
      if problem then return { problem = { pod = tostring(name), reason = problem } } end
      if pod_ready(p) then ready = ready + 1 else waiting[#waiting + 1] = name end
    end
  end
  local pending = {}
  if type(objs) == "function" then objs = objs() end
  for _, o in ipairs(objs or {}) do
    local conds = {}
    for _, c in ipairs((o.status or {}).conditions or {}) do conds[#conds + 1] = c end
    for _, p in ipairs((o.status or {}).parents or {}) do
      for _, c in ipairs(p.conditions or {}) do conds[#conds + 1] = c end
    end
    for _, c in ipairs(conds) do
      if (c.type == "Programmed" or c.type == "Accepted" or c.type == "Ready") and c.status ~= "True" then
        pending[#pending + 1] = ("%s %s not %s"):format(o.kind or "?", (o.metadata or {}).name or "?", c.type)
      end
    end
  end
  local out = { ready = ready, total = total, counted = counted, line = ("pods Ready %d/%d"):format(ready, total) }
  out.done = total > 0 and ready == total and #pending == 0
  if not out.done then
    out.why = #waiting > 0 and ("not ready: " .. table.concat(waiting, ", ")) or table.concat(pending, ", ")
    if total == 0 then out.why = "no pods of this run in the namespace" end
  end
  return out
end

-- Waits until every pod of the stack is Ready (and routes/gateways are accepted).
local function wait_ready(ctx, x)
  if ctx.dry_run then
    ctx.k:kubectl({ "get", "pods", "-o", "json" }, { read = true })
    return "dry run: not waited"
  end
  local timeout, poll = ctx.timeouts.ready, ctx.timeouts.poll
  local t0, last = os.time(), nil
  -- only this run's pods: another stack's in a shared namespace is not waited for (nor
  -- blamed when it is unwell)
  while true do
    local ps = pods(ctx)
    -- (read anew each time: controllers started since are in the chain)
    local foreign = M.foreign(ctx, x)
    local r = M.readiness(ps, function()
      local pools = M.pool_resources(ctx)
      local what = (pools and pools .. "," or "") .. M.GW_RES.Gateway .. "," .. M.GW_RES.HTTPRoute
      local objs = ctx.k:json({ "get", what }, { check = false })
      return objs and objs.items
    end, foreign)
    if r.problem then
      error(("run %s: pod %s is in %s (see kubectl -n %s describe pod %s)")
        :format(x, r.problem.pod, r.problem.reason, ctx.ns, r.problem.pod), 0)
    end
    if r.line ~= last then
      say(ctx, "  %s", r.line)
      last = r.line
    end
    if r.done then
      M.record_pods(ctx, x, r.counted)
      return r.line
    end
    if os.time() - t0 >= timeout then
      error(("run %s: the stack was not ready within %d s (%s)"):format(x, timeout, r.why), 0)
    end
    sleep(poll)
  end
end

-- The port of a Service that serves HTTP: a port named http or http2 (or http-*, http2-*),
-- else one whose appProtocol is http, http2 or kubernetes.io/h2c, else port 80, 8000 or
-- 8080. Istio's gateway Service lists its status port 15021 first, so "the first port"
-- is never the answer. Returns port, why; or nil, the ports listed.
function M.http_port(spec)
  local ports = (spec or {}).ports or {}
  for _, p in ipairs(ports) do
    local n = tostring(p.name or "")
    if n == "http" or n == "http2" or n:match("^http%-") or n:match("^http2%-") then
      return p.port, ("port %d (named %s)"):format(p.port, n)
    end
  end
  for _, p in ipairs(ports) do
    local ap = tostring(p.appProtocol or ""):lower()
    if ap == "http" or ap == "http2" or ap == "kubernetes.io/h2c" then
      return p.port, ("port %d (appProtocol %s)"):format(p.port, ap)
    end
  end
  for _, want in ipairs { 80, 8000, 8080 } do
    for _, p in ipairs(ports) do
      if p.port == want then return want, ("port %d (the usual HTTP port)"):format(want) end
    end
  end
  local l = {}
  for _, p in ipairs(ports) do l[#l + 1] = tostring(p.port) .. (p.name and (" (" .. p.name .. ")") or "") end
  return nil, #l > 0 and table.concat(l, ", ") or "no ports"
end

-- Kinds that never make a Service appear. When a deploy renders only these (and Services),
-- the Services it renders are all it adds; anything else (a Gateway, whose controller makes
-- its Service, or a custom resource an operator turns into more objects) may add one that
-- only the cluster will know.
local NO_SERVICE = {}
for _, k in ipairs { "ConfigMap", "Secret", "ServiceAccount", "Role", "RoleBinding", "Deployment", "StatefulSet",
  "DaemonSet", "ReplicaSet", "Pod", "Job", "CronJob", "PersistentVolumeClaim", "HorizontalPodAutoscaler",
  "PodDisruptionBudget", "NetworkPolicy", "Ingress", "HTTPRoute", "GRPCRoute", "InferencePool", "InferenceModel",
  "InferenceObjective", "ServiceMonitor", "PodMonitor", "LimitRange", "ResourceQuota" } do NO_SERVICE[k] = true end

-- The smoke test's endpoint in a dry run, which reads nothing from the cluster: what the
-- deploy renders says which Service the real run would test, by the real run's rule (a
-- Service named *gateway* its deploy adds, else an *epp* one; deploy.service wins), or that
-- there is none (an error, as the real smoke test would fail), or that it is known only once
-- deployed (a Gateway's controller makes it; a call that is not rendered): said so.
function M.dry_endpoint(ctx, x, want_svc)
  ctx.k:json { "get", "svc" } -- printed as a read not made
  local sx = stack_of(ctx, x) -- (the stack whose deploy this run benchmarks: experiment.lua's run treatments)
  M.check_deploy(ctx, sx)
  local seen = ctx.rendered[sx]
  local svcs, gateways, unknown = {}, {}, {}
  for _, u in ipairs(seen.unknown) do unknown[#unknown + 1] = u end
  for _, o in ipairs(seen.objects) do
    local kind = type(o.kind) == "string" and o.kind or "an object without a kind"
    local name = type(o.metadata) == "table" and type(o.metadata.name) == "string" and o.metadata.name or nil
    if kind == "Service" and name then svcs[#svcs + 1] = o
    elseif kind == "Gateway" then gateways[#gateways + 1] = tostring(name)
    elseif not NO_SERVICE[kind] then unknown[#unknown + 1] = ("%s %s"):format(kind, tostring(name)) end
  end
  table.sort(svcs, function(a, b) return a.metadata.name < b.metadata.name end) -- (as kubectl get svc lists them)
  local function pick(o)
    local port, why = M.http_port(o.spec)
    if not port then
      error(("run %s: service %s, which its deploy renders, has no port that serves HTTP (ports: %s; none named "
        .. "http/http2, none with appProtocol http, none of 80/8000/8080): the smoke test would fail; set "
        .. "deploy.service: NAME:PORT"):format(x, o.metadata.name, why), 0)
    end
    return o.metadata.name, port, why .. ", in what its deploy renders"
  end
  if want_svc then
    for _, o in ipairs(svcs) do if o.metadata.name == want_svc then return pick(o) end end
    return want_svc, 80, ("dry run: not in what its deploy renders, so it must be in %s already: not read in a dry "
      .. "run, checked only when the smoke test runs"):format(ctx.ns)
  end
  local gw, epp
  for _, o in ipairs(svcs) do
    local n = o.metadata.name
    if n:match("gateway") then gw = gw or o elseif n:match("epp") then epp = epp or o end
  end
  if gw then return pick(gw) end
  if #gateways > 0 then
    return "<the Service of Gateway " .. gateways[1] .. ">", 80, ("dry run: made by the controller of Gateway %s "
      .. "once deployed, so not known in a dry run: checked only when the smoke test runs")
      :format(table.concat(gateways, ", "))
  end
  if #unknown > 0 then
    return "<a gateway Service>", 80, ("dry run: what its deploy creates is not all known before it runs (%s): the "
      .. "Service is checked only when the smoke test runs"):format(table.concat(unknown, "; "))
  end
  if epp then return pick(epp) end
  local names = {}
  for _, o in ipairs(svcs) do names[#names + 1] = o.metadata.name end
  error(("run %s: no Service for the smoke test: what its deploy renders has no gateway Service (a Service named "
    .. "*gateway*, or a Gateway whose controller makes one) and no EPP Service (*epp*) (Services it renders: %s); "
    .. "the smoke test would fail; set deploy.service: NAME[:PORT] to test a Service it does not deploy"):format(x,
    #names > 0 and table.concat(names, ", ") or "none"), 0)
end

-- What the smoke test and the benchmark talk to: service, port, and why that port.
local function endpoint(ctx, x)
  local r = run_of(ctx, x)
  if r.baseline then return M.BASELINE_SVC, 8000, "port 8000 (the baseline Service)" end
  local want_svc
  if r.deploy.service then
    local svc, port = tostring(r.deploy.service):match("^([^:]+):?(%d*)$")
    if tonumber(port) then return svc, tonumber(port), ("port %s (deploy.service)"):format(port) end
    want_svc = svc
  end
  if ctx.dry_run then return M.dry_endpoint(ctx, x, want_svc) end
  local function pick(s)
    local port, why = M.http_port(s.spec)
    if not port then
      error(("run %s: service %s in %s has no port that serves HTTP (ports: %s; none named http/http2, "
        .. "none with appProtocol http, none of 80/8000/8080); set deploy.service: NAME:PORT")
        :format(x, s.metadata.name, ctx.ns, why), 0)
    end
    return s.metadata.name, port, why
  end
  if want_svc then
    local s = ctx.k:json({ "get", "svc", want_svc }, { check = false })
    if not s then error(("run %s: deploy.service: no service %s in %s"):format(x, want_svc, ctx.ns), 0) end
    return pick(s)
  end
  local v = ctx.k:json { "get", "svc" }
  local gw, epp = {}, {}
  for _, s in ipairs(v and v.items or {}) do
    local n = s.metadata.name
    if n:match("gateway") then gw[#gw + 1] = s elseif n:match("epp") then epp[#epp + 1] = s end
  end
  -- only a Service this run's deploy added: in a shared namespace the first gateway by name
  -- may be someone else's, and benchmarking it would report their stack as this one
  local own = M.deployed(ctx, stack_of(ctx, x)).services or {}
  local mine = {}
  for _, n in ipairs(own) do mine[n] = true end
  local function first(list)
    for _, s in ipairs(list) do if mine[s.metadata.name] then return s end end
  end
  local s = first(gw) or first(epp)
  if s then return pick(s) end
  local others = {}
  for _, o in ipairs(gw) do others[#others + 1] = o.metadata.name end
  for _, o in ipairs(epp) do others[#others + 1] = o.metadata.name end
  error(("run %s: no gateway service deployed by this run in %s (its services: %s; gateway services there that "
    .. "it did not deploy: %s); set deploy.service: NAME[:PORT] to benchmark a Service it did not deploy")
    :format(x, ctx.ns, #own > 0 and table.concat(own, ", ") or "none",
      #others > 0 and table.concat(others, ", ") or "none"), 0)
end

-- kubectl port-forward RESOURCE LPORT:PORT in the background, its output appended to logf;
-- returns the process and the local port once the forward accepts connections ("Forwarding
-- from 127.0.0.1:LPORT"). Refused by the API server (a transient error) or the local port
-- taken, it is started again with backoff, like every other call; nil in a dry run.
function M.port_forward(ctx, resource, port, logf, timeout)
  timeout = timeout or ctx.timeouts.smoke
  local tries = ctx.k.retries
  for attempt = 1, tries do
    local lport = 18000 + math.random(0, 1999)
    local offset = lfs.attributes(logf, "size") or 0
    local pf = ctx.k:spawn("kubectl", { "port-forward", resource, lport .. ":" .. port },
      { stdout = { file = logf, append = true }, stderr = { file = logf, append = true } })
    if not pf then return nil end
    local t0 = os.time()
    while true do
      local said = ws.read_from(logf, offset)
      if said:find("Forwarding from 127.0.0.1:" .. lport, 1, true) then return pf, lport end
      local st = pf:poll()
      if st then
        said = ws.read_from(logf, offset):gsub("%s+$", "")
        local again = k8s.is_transient(said) or said:find("address already in use", 1, true)
        ctx.k:log(ctx.k:argv("kubectl", { "port-forward", resource, lport .. ":" .. port }), st, os.time() - t0,
          "exited: " .. said:gsub("\n", " / "))
        if not again or attempt == tries then
          error(("kubectl port-forward %s failed (%s) after %d attempt(s): %s"):format(resource,
            exitstatus.text(st), attempt, said ~= "" and said or "no output"), 0)
        end
        say(ctx, "  kubectl port-forward %s: %s - trying again", resource, said:match("[^\n]*"))
        sleep(ctx.k.backoff * 2 ^ (attempt - 1))
        break
      end
      if timeout > 0 and os.time() - t0 >= timeout then
        pf:kill(2)
        error(("kubectl port-forward %s: not forwarding within %d s (see %s)"):format(resource, timeout, logf), 0)
      end
      sleep(0.05)
    end
  end
end

local function smoke(ctx, x)
  local svc, port, why = endpoint(ctx, x)
  say(ctx, "  endpoint: service %s, %s", svc, why)
  -- a pool selecting another team's servers would answer the smoke request with theirs and
  -- pass it: checked before it, as before each benchmark attempt
  if not run_of(ctx, x).baseline then
    local pools = M.check_pool_endpoints(ctx, x, "the smoke request was not sent")
    if pools then say(ctx, "  %s", pools) end
  end
  local logf = rdir(ctx, x) .. "/port-forward.log"
  local pf, lport = M.port_forward(ctx, "svc/" .. svc, port, logf)
  if not pf then return "dry run: not tested" end
  local base = "http://127.0.0.1:" .. lport
  local ok, msg = pcall(function()
    local t0 = os.time()
    local models
    while not models do
      local okr, r = pcall(http.get, base .. "/v1/models", { timeout = 5, connect_timeout = 2 })
      if okr and r.status == 200 then models = json.decode(r.body, base .. "/v1/models") end
      if okr and r.status ~= 200 and os.time() - t0 >= 2 then
        error(("GET %s/v1/models: HTTP %d %s"):format(svc, r.status, r.body:sub(1, 200)), 0)
      end
      if not models and pf:poll() then error("kubectl port-forward svc/" .. svc .. " exited: see " .. logf, 0) end
      if not models and os.time() - t0 >= ctx.timeouts.smoke then
        error("no answer from " .. svc .. " within the smoke timeout", 0)
      end
      if not models then sleep(0.1) end
    end
    local model = models.data and models.data[1] and models.data[1].id or run_of(ctx, x).deploy.model
    local r = http.post(base .. "/v1/completions", json.encode { model = model, prompt = "Hello", max_tokens = 1 },
      { headers = { ["Content-Type"] = "application/json" }, timeout = 60 })
    if r.status ~= 200 then
      error(("POST %s/v1/completions: HTTP %d %s"):format(svc, r.status, r.body:sub(1, 200)), 0)
    end
    return ("%s %s answers: /v1/models lists %s, a one-token completion worked"):format(svc, why, model)
  end)
  pf:kill(2)
  if not ok then error(("run %s: smoke test failed: %s"):format(x, msg), 0) end
  return msg
end

-- The labels that select this run's serving pods and none of another stack's in the
-- namespace: {[SERVING_LABEL] = "true"} when no other serving pod is there, else that plus
-- every label all of this run's serving pods share. Raises when no label set tells them
-- apart. Returns the selector table and its "k=v,k=v" form.
function M.serving_selector(ctx, x)
  local sel = { [M.SERVING_LABEL] = "true" }
  local foreign = M.foreign(ctx, x)
  local mine, theirs = {}, {}
  if not ctx.dry_run then
    for _, p in ipairs(pods(ctx, M.SERVING_LABEL .. "=true")) do
      if foreign(p) then theirs[#theirs + 1] = p else mine[#mine + 1] = p end
    end
  end
  if #theirs > 0 then
    local function labels_of(p) return (p.metadata or {}).labels or {} end
    if #mine == 0 then
      error(("run %s: no serving pod (%s=true) of this run in %s, only another stack's (%s)")
        :format(x, M.SERVING_LABEL, ctx.ns, table.concat((function()
          local l = {}
          for _, p in ipairs(theirs) do l[#l + 1] = p.metadata.name end
          table.sort(l)
          return l
        end)(), ", ")), 0)
    end
    for k, v in pairs(labels_of(mine[1])) do
      local all = true
      for i = 2, #mine do if labels_of(mine[i])[k] ~= v then all = false end end
      if all then sel[k] = v end
    end
    local clash = {}
    for _, p in ipairs(theirs) do
      local l, match = labels_of(p), true
      for k, v in pairs(sel) do if l[k] ~= v then match = false end end
      if match then clash[#clash + 1] = p.metadata.name end
    end
    if #clash > 0 then
      error(("run %s: another stack's serving pods in %s (%s) carry every label this run's share; no selector "
        .. "picks this run's alone (use a namespace of its own)"):format(x, ctx.ns, table.concat(clash, ", ")), 0)
    end
  end
  local keys = {}
  for k in pairs(sel) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. sel[k] end
  return sel, table.concat(parts, ",")
end

-- Makes obj (a manifest) with `kubectl create -f - -o json` - never apply's get-then-write: one
-- made by someone else after this run looked is the API server's AlreadyExists, never written
-- over -, stamped with run x's id (annotation M.RUN_ANNOTATION). The uid is the create's own
-- answer's (the object as the API server made it): a get after it could read another's, made
-- there once this run's was removed. On AlreadyExists the object of that name is read back
-- (getargs: the kubectl get that reads it): this run's id on it means an earlier try of this
-- very create made it (its answer lost, e.g. a timeout after the write, and the call sent
-- again): this run's, its uid the one read back. Returns "created" or "ours" (that earlier
-- try's) and the uid (nil in a dry run, or an answer without it), or "theirs" and the
-- AlreadyExists line; raises on any other failure.
local function create_ours(ctx, x, obj, getargs)
  obj.metadata.annotations = obj.metadata.annotations or {}
  obj.metadata.annotations[M.RUN_ANNOTATION] = M.run_id(ctx, x)
  local args = { "create", "-f", "-", "-o", "json" }
  local made = ctx.k:kubectl(args, { check = false, stdin = yaml.dump(obj) })
  local function uid_of(v) return type(v) == "table" and type(v.metadata) == "table" and v.metadata.uid or nil end
  if made.ok then
    local ok, v = pcall(json.decode, made.stdout or "")
    return "created", ok and type(uid_of(v)) == "string" and uid_of(v) or nil
  end
  local said = (made.stderr or ""):gsub("%s+$", "")
  if said:find("(AlreadyExists)", 1, true) then
    local now = ctx.k:json(getargs, { check = false })
    local ann = type(now) == "table" and type(now.metadata) == "table" and now.metadata.annotations
    if type(ann) == "table" and ann[M.RUN_ANNOTATION] == M.run_id(ctx, x) then return "ours", uid_of(now) end
    return "theirs", said:gsub("\n.*", "")
  end
  error(("%s: %s%s"):format(k8s.cmdline(ctx.k:argv("kubectl", args)), made.timed_out and "timed out"
    or exitstatus.text(made), said ~= "" and (": " .. said) or ""), 0)
end

local function baseline_service(ctx, x)
  local have = ctx.k:json({ "get", "svc", M.BASELINE_SVC }, { check = false }) -- a dry run: printed, not read
  if ctx.dry_run then have = nil end
  local rec = M.deployed(ctx, x)
  local hmd = type(have) == "table" and type(have.metadata) == "table" and have.metadata or {}
  local want_uid = ((rec.uids or {}).services or {})[M.BASELINE_SVC]
  -- This run's: made by it and not torn down since - the one whose uid it recorded; with no
  -- uid recorded (a workspace of an older llmdlua, or a create whose answer had none), the
  -- one carrying this run's id (annotation M.RUN_ANNOTATION). One carrying no run's id at all
  -- was made before llmdlua stamped its Services: an older llmdlua's record knows it by name
  -- and its label (app.kubernetes.io/managed-by: llmdlua) - its run id, if any, was drawn
  -- after the Service was made (by a later step on resume), so it cannot be on it. Recognised
  -- so, its uid is recorded now: teardown holds its delete to it.
  local ann = (hmd.annotations or {})[M.RUN_ANNOTATION]
  local label = (hmd.labels or {})["app.kubernetes.io/managed-by"]
  local ours, why_not
  if not rec.baseline_service then
    why_not = "was not created by this run"
  elseif want_uid then
    ours = hmd.uid == want_uid
    why_not = ("is not the one this run created (uid %s; this run's: %s)"):format(tostring(hmd.uid), want_uid)
  elseif ann ~= nil then
    ours = rec.run_id ~= nil and ann == rec.run_id
    why_not = ("carries another run's id (%s=%s; this run's: %s)"):format(M.RUN_ANNOTATION, tostring(ann),
      tostring(rec.run_id))
  else
    ours = label == "llmdlua"
    why_not = ("carries no run's id (%s) and no label app.kubernetes.io/managed-by=llmdlua, and this run recorded no "
      .. "uid for its Service (a workspace of an older llmdlua), so it cannot be told from another's; if it is this "
      .. "run's, delete it (%s) and resume: it is made again"):format(M.RUN_ANNOTATION,
      k8s.cmdline(ctx.k:argv("kubectl", { "delete", "service", M.BASELINE_SVC })))
  end
  if have and not ours then
    error(("run %s: service %s already exists in %s and %s; it may select another stack's pods (delete it, or use a "
      .. "namespace of its own)"):format(x, M.BASELINE_SVC, ctx.ns, why_not), 0)
  end
  if have and not want_uid and type(hmd.uid) == "string" then
    say(ctx, "  service %s: this run's (%s), recorded by its uid %s", M.BASELINE_SVC, ann ~= nil
      and ("it carries this run's id, " .. M.RUN_ANNOTATION .. "=" .. ann)
      or "made before llmdlua stamped a run's id on it: labelled app.kubernetes.io/managed-by=llmdlua", hmd.uid)
    rec.uids = rec.uids or {}
    rec.uids.services = rec.uids.services or {}
    rec.uids.services[M.BASELINE_SVC] = hmd.uid
    M.save_deployed(ctx, x)
  end
  local selector, sel_text = M.serving_selector(ctx, x)
  local same = have and type(have.spec) == "table" and type(have.spec.selector) == "table"
  if same then
    for k, v in pairs(selector) do same = same and have.spec.selector[k] == v end
    for k, v in pairs(have.spec.selector) do same = same and selector[k] == v end
  end
  if have and not same then
    -- this run's, selecting other pods than this run's serving pods do now: made again (held
    -- to its uid, so that only this run's goes)
    local gone = M.delete_same(ctx, { apiVersion = "v1", kind = "Service", name = M.BASELINE_SVC,
      uid = hmd.uid })
    if gone == "other" then
      error(("run %s: service %s was made again by someone else while this run replaced its own; it may select "
        .. "another stack's pods (delete it, or use a namespace of its own)"):format(x, M.BASELINE_SVC), 0)
    elseif gone == nil then
      ctx.k:kubectl { "delete", "service", M.BASELINE_SVC, "--ignore-not-found" }
    end
    have = nil
  end
  if not have then
    local manifest = {
      apiVersion = "v1", kind = "Service",
      metadata = { name = M.BASELINE_SVC, labels = { ["app.kubernetes.io/managed-by"] = "llmdlua" } },
      spec = { type = "ClusterIP", selector = selector,
        ports = { { name = "http", port = 8000, targetPort = 8000, protocol = "TCP" } } },
    }
    -- create, not apply: one made by someone else since the read above is the API server's
    -- AlreadyExists, never written over (apply would take it, and select this run's pods
    -- with another's Service); one with this run's id on it is this create's earlier try's
    local got, made_uid = create_ours(ctx, x, manifest, { "get", "svc", M.BASELINE_SVC })
    if got == "theirs" then
      error(("run %s: service %s was made by someone else in %s after llmdlua found none; it may select another "
        .. "stack's pods (delete it, or use a namespace of its own)"):format(x, M.BASELINE_SVC, ctx.ns), 0)
    end
    M.deployed(ctx, x).baseline_service = true
    -- the manifest kept in the run's folder, and the command that makes it recorded with
    -- the deploy's, so that run_comparison.sh makes the Service again before the benchmark
    -- that needs it (its teardown line deletes it)
    if not ctx.dry_run then
      local dir = rdir(ctx, x) .. "/deploy"
      ws.mkdir_p(dir)
      local path = dir .. "/baseline-service.yaml"
      ws.write_text(path, yaml.dump(manifest))
      local line = k8s.cmdline(ctx.k:argv("kubectl", { "create", "-f", path }))
      local cm = cmds(ctx, x)
      local known = false
      for _, c in ipairs(cm) do known = known or c == line end
      if not known then cm[#cm + 1] = line end
      rec.service_command = line
      -- which Service of that name this run made (teardown deletes that one only): the
      -- create's answer says
      rec.uids = rec.uids or {}
      rec.uids.services = rec.uids.services or {}
      rec.uids.services[M.BASELINE_SVC] = made_uid
    end
    M.save_deployed(ctx, x)
  end
  if ctx.dry_run then return "dry run" end
  local ep = ctx.k:json { "get", "endpoints", M.BASELINE_SVC }
  local n = 0
  for _, s in ipairs(ep and ep.subsets or {}) do n = n + #(s.addresses or {}) end
  if n == 0 then
    local labels = {}
    for _, p in ipairs(pods(ctx)) do
      local l = {}
      for k, v in pairs(p.metadata.labels or {}) do l[#l + 1] = k .. "=" .. v end
      table.sort(l)
      labels[#labels + 1] = p.metadata.name .. " {" .. table.concat(l, ", ") .. "}"
    end
    error(("run %s: service %s selects %s but has no endpoints; pods and their labels: %s"):format(x,
      M.BASELINE_SVC, sel_text, #labels > 0 and table.concat(labels, "; ") or "none"), 0)
  end
  return ("%s has %d endpoint(s)"):format(M.BASELINE_SVC, n)
end

-- The results PVC: the one named (benchmark.pvc, the plan's benchmark_pvc, $BENCHMARK_PVC),
-- else one of the Bound ReadWriteMany PVCs in the namespace (the reference procedure's
-- run-llm-d-benchmark: BENCHMARK_PVC from `kubectl get pvc`, else a PVC is created, RWX,
-- 200Gi): the only one there; of several, the one this comparison used already (run A's,
-- recorded, on resume too) or the one llmdlua made (labelled app.kubernetes.io/managed-by:
-- llmdlua) - several others' and none of ours is refused, as a guess would write this run's
-- results onto another team's volume. None at all: llmd-benchmark-results is made (RWX,
-- 200Gi, labelled), unless a PVC of that name that is not llmdlua's is there. The choice and
-- why are said; returns the name.
M.PVC_NAME = "llmd-benchmark-results"
local function find_pvc(ctx, x)
  local b = run_of(ctx, x).benchmark
  for _, c in ipairs { { b.pvc, "benchmark.pvc in the plan" }, { ctx.plan.benchmark_pvc, "benchmark_pvc in the plan" },
    { os.getenv("BENCHMARK_PVC"), "$BENCHMARK_PVC" } } do
    if type(c[1]) == "string" and c[1] ~= "" then
      say(ctx, "  results PVC: %s (%s)", c[1], c[2])
      return c[1]
    end
  end
  local v = ctx.k:json { "get", "pvc" }
  local cands, ours, named = {}, {}, nil
  for _, p in ipairs(v and v.items or {}) do
    local md = p.metadata or {}
    local rwx = false
    for _, m in ipairs((p.spec or {}).accessModes or {}) do if m == "ReadWriteMany" then rwx = true end end
    local mine = ((md.labels or {})["app.kubernetes.io/managed-by"] == "llmdlua")
    if md.name == M.PVC_NAME then named = { p = p, mine = mine, rwx = rwx } end
    if rwx and (p.status or {}).phase == "Bound" then
      cands[#cands + 1] = md.name
      if md.name == ctx.pvc then
        ours[#ours + 1] = { md.name, "this comparison used already" }
      elseif mine then
        ours[#ours + 1] = { md.name, "made by llmdlua: labelled app.kubernetes.io/managed-by=llmdlua" }
      end
    end
  end
  table.sort(cands)
  table.sort(ours, function(p, q)
    local pu, qu = p[1] == ctx.pvc, q[1] == ctx.pvc
    if pu ~= qu then return pu end
    return p[1] < q[1]
  end)
  local how = "name one with benchmark_pvc: in the plan (or benchmark.pvc, $BENCHMARK_PVC)"
  if #cands == 1 and #ours == 1 then
    say(ctx, "  results PVC: %s (the only Bound ReadWriteMany PVC in %s, the one %s; %s to choose another)",
      cands[1], ctx.ns, ours[1][2], how)
    return cands[1]
  elseif #cands == 1 then
    -- as of several: someone else's volume is not written to unasked, even the only one
    local q = ("run %s: the only Bound ReadWriteMany PVC in %s, %s, is neither this comparison's nor made by "
      .. "llmdlua (it could be another team's)"):format(x, ctx.ns, cands[1])
    if ctx.interactive and not ctx.yes and not ctx.dry_run then
      io.write(q, ": write this run's results onto it? [y/N] ")
      io.flush()
      local line = io.read("l")
      if line and line:match("^%s*[yY]") then
        say(ctx, "  results PVC: %s (the only Bound ReadWriteMany PVC in %s; you said yes)", cands[1], ctx.ns)
        return cands[1]
      end
    end
    error(("%s: this run's results are not written onto it unasked; %s%s"):format(q, how,
      ctx.yes and " (--yes does not choose it for you)" or ""), 0)
  elseif #cands > 1 then
    if #ours == 0 or (#ours > 1 and ours[1][1] ~= ctx.pvc) then
      error(("run %s: %d Bound ReadWriteMany PVCs in %s (%s) and %s: which one takes this run's results is not "
        .. "guessed (it could be another team's); %s"):format(x, #cands, ctx.ns, table.concat(cands, ", "),
        #ours == 0 and "none of them is this comparison's or made by llmdlua"
        or ("several made by llmdlua (" .. (function()
          local l = {}
          for _, o in ipairs(ours) do l[#l + 1] = o[1] end
          return table.concat(l, ", ")
        end)() .. ")"), how), 0)
    end
    say(ctx, "  results PVC: %s (of the Bound ReadWriteMany PVCs in %s, %s, the one %s)", ours[1][1], ctx.ns,
      table.concat(cands, ", "), ours[1][2])
    return ours[1][1]
  end
  if named and not named.mine then
    error(("run %s: no Bound ReadWriteMany PVC in %s, and the PVC %s there (%s, %s) was not made by llmdlua: it is "
      .. "not changed; %s"):format(x, ctx.ns, M.PVC_NAME, tostring(((named.p.status or {}).phase) or "phase unknown"),
      table.concat((named.p.spec or {}).accessModes or {}, ", "), how), 0)
  end
  if named then
    -- ours, not Bound yet (a WaitForFirstConsumer storage class binds it when the launcher mounts it)
    say(ctx, "  results PVC: %s (made by llmdlua, %s: it binds when the harness mounts it)", M.PVC_NAME,
      tostring((named.p.status or {}).phase))
    return M.PVC_NAME
  end
  -- create, not apply: one made meanwhile (after the get above) by someone else is the API
  -- server's AlreadyExists, never patched (an apply would label it ours and ask 200Gi of it);
  -- one this run's id is on was made by this create's earlier try (its answer lost)
  local got, said = create_ours(ctx, x, {
    apiVersion = "v1", kind = "PersistentVolumeClaim",
    metadata = { name = M.PVC_NAME, labels = { ["app.kubernetes.io/managed-by"] = "llmdlua" } },
    spec = { accessModes = { "ReadWriteMany" }, resources = { requests = { storage = "200Gi" } } },
  }, { "get", "pvc", M.PVC_NAME })
  if got == "theirs" then
    error(("run %s: the PVC %s was made by someone else after llmdlua found none in %s (%s: %s): it is not "
      .. "changed; %s"):format(x, M.PVC_NAME, ctx.ns,
      k8s.cmdline(ctx.k:argv("kubectl", { "create", "-f", "-", "-o", "json" })), said, how), 0)
  elseif got == "ours" then
    -- (one line for the one event: the create whose answer was lost made it, which its retry
    -- found - not a second, plain create)
    say(ctx, "  results PVC %s: made by this run's create, whose answer was lost (it carries this run's id, %s=%s); "
      .. "ReadWriteMany, 200Gi, for the results (no Bound ReadWriteMany PVC in %s)", M.PVC_NAME, M.RUN_ANNOTATION,
      M.run_id(ctx, x), ctx.ns)
  else
    say(ctx, "  %s PVC %s (ReadWriteMany, 200Gi) for the results%s", ctx.dry_run and "would create" or "created",
      M.PVC_NAME, ctx.dry_run and " (unless a Bound ReadWriteMany PVC is there: not read in a dry run)"
      or (" (no Bound ReadWriteMany PVC in " .. ctx.ns .. ")"))
  end
  return M.PVC_NAME
end

-- The folders on the results PVC, through the launcher pod run_only.sh has just (re)started.
local function list_requests(ctx, x)
  local r = ctx.k:kubectl({ "exec", "llmdbench-harness-launcher", "--", "ls", "/requests" }, { check = false })
  if not r.ok then
    error(("run %s: cannot list the results on the PVC: %s: %s"):format(x,
      k8s.cmdline(ctx.k:argv("kubectl", { "exec", "llmdbench-harness-launcher", "--", "ls", "/requests" })),
      (r.stderr or ""):gsub("%s+$", "")), 0)
  end
  local list = {}
  for l in (r.stdout or ""):gmatch("[^\n]+") do list[#list + 1] = l end
  return list
end

-- run_only.sh's experiment id: the uid (`date +%s` when it started) it names in its output
-- (LLMDBENCH_RUN_EXPERIMENT_ID=<uid>_<workload>, the verify-model-<uid> pod, "experiment id").
function M.experiment_uid(line)
  return line:match("LLMDBENCH_RUN_EXPERIMENT_ID=\"?(%d+)_") or line:match("verify%-model%-(%d+)")
    or line:match("[Ee]xperiment[ _]?[Ii][Dd]%s*[:=]?%s*\"?(%d+)")
end

-- This run's folders among names (<harness>_<uid>_<workload>_<stack>): those with the uid
-- run_only.sh printed, else those whose uid is a time within [t0, t1] (run_only.sh takes it
-- from the clock when it starts). Never "whatever is new": an older run's folder on a
-- reused PVC has an older uid.
function M.this_runs_folders(names, uid, t0, t1)
  local out = {}
  for _, n in ipairs(names) do
    local id = n:match("^[^_]+_(%d+)_") or n:match("^(%d+)_")
    if id and ((uid and id == uid) or (not uid and tonumber(id) >= t0 and tonumber(id) <= t1)) then
      out[#out + 1] = n
    end
  end
  table.sort(out)
  return out
end

-- The pods this run's InferencePools send requests to must all be this run's. A pool
-- selects its endpoints by labels (spec.selector.matchLabels in v1, spec.selector in
-- v1alpha2); llm-d's inferencepool chart takes them from inferencePool.modelServers.matchLabels
-- and its guides set the serving label, the guide's and the model's - none of the release,
-- so another team's model servers with the same labels in the namespace are endpoints of
-- this run's pool, and the benchmark would mix their servers with this run's. A pool is
-- this run's when helm installed it for one of its releases or it applied it by name. Raises
-- one line naming those pods, ending with `stopped` (what was not done: the smoke request
-- not sent, the benchmark not started); returns a line saying what was checked.
function M.check_pool_endpoints(ctx, x, stopped)
  if ctx.dry_run then return nil end
  local d = M.deployed(ctx, stack_of(ctx, x))
  local releases, applied = set_of(d.releases), set_of(d.applied)
  local res = M.pool_resources(ctx)
  local v = res and ctx.k:json({ "get", res }, { check = false })
  local foreign, said = nil, {}
  for _, pool in ipairs(v and v.items or {}) do
    local md = type(pool.metadata) == "table" and pool.metadata or {}
    local m = M.made_by(pool)
    local mine = (m.release and releases[m.release] and (m.release_ns == nil or m.release_ns == ctx.ns))
      or applied["InferencePool/" .. tostring(md.name)]
    if mine then
      local sel = (pool.spec or {}).selector
      if type(sel) == "table" and type(sel.matchLabels) == "table" then sel = sel.matchLabels end
      local keys = {}
      for k, val in pairs(type(sel) == "table" and sel or {}) do
        if type(k) == "string" and type(val) ~= "table" then keys[#keys + 1] = k end
      end
      table.sort(keys)
      if #keys == 0 then
        said[#said + 1] = ("InferencePool %s: no selector labels could be read, its endpoints not checked"):format(
          tostring(md.name))
      else
        local parts = {}
        for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. tostring(sel[k]) end
        local text = table.concat(parts, ",")
        foreign = foreign or M.foreign(ctx, x)
        local theirs, n = {}, 0
        for _, p in ipairs(pods(ctx, text)) do
          local phase = (p.status or {}).phase
          if phase ~= "Succeeded" and phase ~= "Failed" then
            n = n + 1
            if foreign(p) then theirs[#theirs + 1] = p.metadata.name end
          end
        end
        table.sort(theirs)
        if #theirs > 0 then
          error(("run %s: InferencePool %s, this run's, selects pods by %s, and %d of the %d it selects in %s %s "
            .. "not this run's by their owners (%s): requests through this run's gateway would reach them and the "
            .. "results would mix servers that are not this run's (another team's, or this comparison's other stack "
            .. "while it is deployed) with this run's; %s - give this run's "
            .. "model servers a label of their own and add it to the pool's selector (inferencePool.modelServers."
            .. "matchLabels), or use a namespace of its own"):format(x, tostring(md.name), text, #theirs, n, ctx.ns,
            #theirs == 1 and "is" or "are", table.concat(theirs, ", "), stopped or "the benchmark was not started"), 0)
        end
        said[#said + 1] = ("InferencePool %s selects %s: %d pod(s), all this run's"):format(tostring(md.name), text, n)
      end
    end
  end
  return #said > 0 and table.concat(said, "; ") or nil
end

local function benchmark(ctx, x)
  local r = run_of(ctx, x)
  local b = r.benchmark
  local d = rdir(ctx, x)
  ws.mkdir_p(d .. "/benchmark")
  local pvc = find_pvc(ctx, x)
  local svc, port = endpoint(ctx, x)
  ctx.pvc = pvc
  if not r.baseline then ctx.gateway_svc = svc end
  M.save_deployed(ctx, x)
  local host = ("%s.%s.svc.cluster.local:%d"):format(svc, ctx.ns, port)
  local vars = { NAMESPACE = ctx.ns, BENCHMARK_PVC = pvc, MODEL = r.deploy.model, IP = host, GATEWAY_SVC = svc,
    ENDPOINT = "http://" .. host, STACK_NAME = r.label }
  for k, v in pairs(b.vars or {}) do vars[k] = v end
  local f = assert(io.open(b.template, "rb"))
  local cfg_text = M.substitute_yaml(f:read("a"), vars, b.template)
  f:close()
  -- a caller's last word on the rendered config (experiment.lua applies run treatments)
  if ctx.render_config then cfg_text = ctx.render_config(cfg_text, x) end
  local cfg = d .. "/benchmark/config.yaml"
  -- (checked before: the plan's template, the treatment names, the workspace's parent; here
  -- what the run hands run_only.sh as it is, after every ${VAR} and treatment)
  ws.write_text(cfg, cfg_text)
  local yok, parsed = pcall(yaml.load, cfg_text, cfg)
  local problems = yok and M.run_only_config_problems(parsed, cfg)
    or { ("%s: %s (its names could not be checked)"):format(cfg, tostring(parsed)) }
  local pbad = M.plain_path_problem(cfg)
  if pbad then
    problems[#problems + 1] = ("run %s: the benchmark config %s: %s; make the comparison again under a plain folder "
      .. "(--parent DIR)"):format(x, M.shown(cfg), pbad)
  end
  if #problems > 0 then error(table.concat(problems, "\n") .. " - nothing was handed to run_only.sh", 0) end
  ctx.config_text[x] = cfg_text
  local cmd = b.command and { table.unpack(b.command) } or { ctx.bins.run_only or "run_only.sh", "-c", cfg }
  for i, a in ipairs(cmd) do cmd[i] = M.substitute(tostring(a), { CONFIG = cfg }, "benchmark.command") end
  local c = cmds(ctx, x)
  c[#c + 1] = k8s.cmdline(cmd)
  -- which of the commands is the benchmark: run_comparison.sh runs it through its checks
  ctx.bench_command = ctx.bench_command or {}
  ctx.bench_command[x] = c[#c]
  M.save_deployed(ctx, x)
  if ctx.dry_run then
    ctx.out:write("[dry-run] " .. k8s.cmdline(cmd) .. "\n")
    return "dry run: not benchmarked"
  end
  -- a benchmark interrupted earlier (Ctrl-C, SIGTERM) left its record (M.BENCH_ATTEMPT) and,
  -- on the PVC, the folder it was writing: kept in run-x/benchmark/interrupted.json, so that
  -- this run names those folders (partial, not used) once it has listed the PVC
  local pending, past = d .. "/benchmark/" .. M.BENCH_ATTEMPT, d .. "/benchmark/interrupted.json"
  local interrupted = {}
  if lfs.attributes(past, "mode") == "file" then
    local ok, v = pcall(json.read, past)
    if ok and type(v) == "table" then interrupted = v end
  end
  if lfs.attributes(pending, "mode") == "file" then
    local ok, v = pcall(json.read, pending)
    if ok and type(v) == "table" and tonumber(v.started) then
      interrupted[#interrupted + 1] = v
      json.write(past, json.array(interrupted))
    end
    os.remove(pending)
  end
  local attempts = b.attempts or 2
  for attempt = 1, attempts do
    -- (before each attempt: a restart between them may let another team's pods in)
    if not r.baseline then
      local pools = M.check_pool_endpoints(ctx, x)
      if pools then say(ctx, "  %s", pools) end
    end
    say(ctx, "  running %s (attempt %d/%d)", k8s.cmdline(cmd), attempt, attempts)
    -- the serving containers right before it: a restart or a replaced pod by its end means
    -- the benchmark measured a server that crashed (OOM) or was replaced mid-run
    local before = M.serving_containers(ctx, x)
    if #before == 0 then
      say(ctx, "  (no serving pod of this run found before the benchmark: whether a vLLM server restarts during it "
        .. "cannot be checked)")
    end
    local uid
    local t0 = os.time()
    -- (what an interrupt leaves: this attempt's start and, once said, its experiment id)
    json.write(pending, { started = t0, experiment = json.null, pvc = pvc })
    local res = steps.exec(cmd, { cwd = d .. "/benchmark", timeout = ctx.timeouts.benchmark,
      env = { NAMESPACE = ctx.ns, BENCHMARK_PVC = pvc, MODEL = r.deploy.model },
      stdout = function(line)
        local was = uid
        uid = uid or M.experiment_uid(line)
        if uid and not was then pcall(json.write, pending, { started = t0, experiment = uid, pvc = pvc }) end
        ctx.out:write("    | ", line, "\n")
      end, stderr = "stdout" })
    os.remove(pending) -- (it ran to its end, or failed: not interrupted)
    -- copy what this run wrote to the PVC into the workspace: its experiment's folders only.
    -- After a failed command the launcher pod may never have started: the failure is the
    -- command's, named first, and why nothing could be listed after it
    local lok, listed = pcall(list_requests, ctx, x)
    if not lok then
      if res.ok then error(listed, 0) end
      error(("run %s: the benchmark command failed (%s): %s (its output is above and in run-%s/benchmark); "
        .. "no results could be read after it: %s"):format(x, exitstatus.text(res), k8s.cmdline(cmd), x,
        (tostring(listed):gsub("^run %a: ", ""))), 0)
    end
    local new = M.this_runs_folders(listed, uid, t0, os.time())
    say(ctx, "  this run's results on the PVC (experiment %s): %s", uid or ("started " .. t0),
      #new > 0 and table.concat(new, ", ") or "none")
    local mine = set_of(new)
    for _, e in ipairs(interrupted) do
      local old = {}
      for _, n in ipairs(M.this_runs_folders(listed, type(e.experiment) == "string" and e.experiment or nil,
        tonumber(e.started), t0 - 1)) do
        if not mine[n] then old[#old + 1] = n end
      end
      if #old > 0 then
        say(ctx, "  also on the PVC: %s - the results of the benchmark interrupted earlier (experiment %s): partial, "
          .. "not used (left there)", table.concat(old, ", "), type(e.experiment) == "string" and e.experiment
          or ("started " .. tostring(e.started)))
      end
    end
    interrupted = {}
    local dest = d .. "/results"
    if lfs.attributes(dest) then
      -- an earlier attempt's results (this call's or an earlier resume's) are kept, not
      -- overwritten: the next free results-attempt-N
      local n = 1
      while lfs.attributes(("%s/results-attempt-%d"):format(d, n)) do n = n + 1 end
      local keep = ("%s/results-attempt-%d"):format(d, n)
      local ok, err = os.rename(dest, keep)
      if not ok then error(("run %s: cannot keep the earlier results %s as %s: %s"):format(x, dest, keep, err), 0) end
    end
    ws.mkdir_p(dest)
    for _, name in ipairs(new) do
      ctx.k:kubectl { "cp", "llmdbench-harness-launcher:/requests/" .. name, dest .. "/" .. name }
    end
    local run = harness.extract(dest, { harness = b.harness,
      harness_option = ("the plan's runs.%s.benchmark.harness"):format(x) })
    local crashed = #before > 0 and M.restarts_between(ctx, before, M.serving_containers(ctx, x)) or {}
    local why
    if not res.ok then why = ("%s failed (%s)"):format(cmd[1], exitstatus.text(res)) end
    if #new == 0 then
      why = (why and why .. "; " or "") .. ("no results of this run on the PVC (there: %s)")
        :format(#listed > 0 and table.concat(listed, ", ") or "nothing")
    end
    if run.status == "failed" then why = (why and why .. "; " or "") .. table.concat(run.reasons, "; ") end
    -- what the report's data checks say of the servers this attempt measured (run_state.json's
    -- server_restarts): a restart before it began; one during it only when no attempt was clean
    local rec = M.deployed(ctx, x)
    rec.server_restarts = {}
    for _, line in ipairs(M.restarted_before(ctx, before)) do
      rec.server_restarts[#rec.server_restarts + 1] = { during = false, text = line }
    end
    if not why and #crashed == 0 then
      M.save_deployed(ctx, x)
      for _, e in ipairs(rec.server_restarts) do say(ctx, "  note: %s", e.text) end
      return ("results in %s (%s)"):format(dest, run.harness)
    end
    if not why and attempt == attempts then
      -- the benchmark itself ran; no attempt had its servers up all along: its results are
      -- kept, and the report says so (never a silent verdict)
      for _, line in ipairs(crashed) do
        rec.server_restarts[#rec.server_restarts + 1] = { during = true, text = ("%s (attempt %d/%d; no attempt "
          .. "ran without a restart, so its results are kept)"):format(line, attempt, attempts) }
      end
      M.save_deployed(ctx, x)
      say(ctx, "  warning: %s; no attempt of %d ran without one: these results are kept, and the report says so",
        table.concat(crashed, "; "), attempts)
      return ("results in %s (%s), measured while a vLLM server restarted"):format(dest, run.harness)
    end
    if #crashed > 0 then why = (why and why .. "; " or "") .. table.concat(crashed, "; ") end
    say(ctx, "  the benchmark failed: %s", why)
    if attempt == attempts then
      error(("run %s: the benchmark failed after %d attempt(s): %s"):format(x, attempts, why), 0)
    end
    if #new > 0 then
      -- requests were served: restart the model servers so the next attempt starts with an empty cache
      M.restart_serving(ctx, x, "  restarting the vLLM pods to empty their KV cache: %s (this run's, by name)")
      wait_ready(ctx, x)
    end
  end
end

-- The hardware of the nodes the serving pods ran on, once per GPU model with its count:
-- node label sets in, "8× NVIDIA H100 80GB HBM3 on 2 nodes" out (the count is the nodes'
-- nvidia.com/gpu.count summed; GPU feature discovery writes the product with dashes for
-- spaces). Several models are listed in name order, joined with "; ".
function M.hardware_summary(label_sets)
  local by, order = {}, {}
  for _, l in ipairs(label_sets) do
    local g = l["nvidia.com/gpu.product"] or l["cloud.google.com/gke-accelerator"] or l["amd.com/gpu.product"]
    if g then
      local name = tostring(g):gsub("%-", " ")
      local e = by[name]
      if not e then
        e = { name = name, nodes = 0, gpus = 0, counted = true }
        by[name] = e
        order[#order + 1] = e
      end
      e.nodes = e.nodes + 1
      local c = tonumber(l["nvidia.com/gpu.count"] or l["amd.com/gpu.count"])
      if c then e.gpus = e.gpus + c else e.counted = false end
    end
  end
  table.sort(order, function(a, b) return a.name < b.name end)
  local out = {}
  for _, e in ipairs(order) do
    out[#out + 1] = ("%s%s on %d node%s"):format(e.counted and (("%d× "):format(e.gpus)) or "", e.name, e.nodes,
      e.nodes == 1 and "" or "s")
  end
  return table.concat(out, "; ")
end

-- The accelerators the pods ask for: the sum over their containers of the nvidia.com/gpu
-- or amd.com/gpu limit (else request); nil when no container asks for one.
function M.pod_gpus(list)
  local total = 0
  for _, p in ipairs(list or {}) do
    for _, c in ipairs((p.spec or {}).containers or {}) do
      local r = c.resources or {}
      for _, res in ipairs { "nvidia.com/gpu", "amd.com/gpu" } do
        local n = tonumber((r.limits or {})[res] or (r.requests or {})[res])
        if n and n > 0 then total = total + n end
      end
    end
  end
  return total > 0 and math.tointeger(total) or nil
end

-- The node label a simulated cluster (the test suite's fake one) puts on its nodes: their
-- pods serve nothing and their benchmarks replay recorded result files, so a run whose
-- serving pods ran there measured nothing of its configuration (run_state.json's simulated,
-- which the report says at its top). No real node carries it.
M.SIMULATED_LABEL = "llmdlua.dev/simulated"

-- The images of this run's serving pods, the hardware of their nodes, and the names of
-- those nodes that say they are simulated (M.SIMULATED_LABEL).
local function images_and_hardware(ctx, x)
  local images, nodes = {}, {}
  local serving = {}
  local foreign = M.foreign(ctx, x)
  for _, p in ipairs(pods(ctx, M.SERVING_LABEL .. "=true")) do
    if not foreign(p) then serving[#serving + 1] = p end
  end
  ctx.gpus = M.pod_gpus(serving)
  for _, p in ipairs(serving) do
    for _, c in ipairs((p.spec or {}).containers or {}) do images[c.image] = true end
    if p.spec and p.spec.nodeName then nodes[p.spec.nodeName] = true end
  end
  local il = {}
  for i in pairs(images) do il[#il + 1] = i end
  table.sort(il)
  local labels, simulated = {}, {}
  local v = ctx.k:json({ "get", "nodes" }, { check = false })
  for _, n in ipairs(v and v.items or {}) do
    if nodes[n.metadata.name] then
      local l = n.metadata.labels or {}
      labels[#labels + 1] = l
      if l[M.SIMULATED_LABEL] == "true" then simulated[#simulated + 1] = n.metadata.name end
    end
  end
  table.sort(simulated)
  return table.concat(il, ", "), M.hardware_summary(labels), simulated
end

-- The workloads a run_only.sh config names (its workload: mapping, one key per workload
-- profile it runs: "sanity_random"), in name order and joined with ", "; nil when the
-- config names none or cannot be read as YAML.
function M.config_workloads(text)
  if type(text) ~= "string" then return nil end
  local ok, cfg = pcall(yaml.load, text)
  if not ok or type(cfg) ~= "table" or type(cfg.workload) ~= "table" then return nil end
  local names = {}
  for k in pairs(cfg.workload) do
    if type(k) == "string" then names[#names + 1] = k end
  end
  table.sort(names)
  return #names > 0 and table.concat(names, ", ") or nil
end

-- The load stages a run's rendered benchmark config (DIR/benchmark/config.yaml) asks for, as
-- run_state.json records them (benchmark.load_stages): its workload's load.stages, each a
-- rate, in the words the report reads the results' stages with ("3 stages: 1/s, 2/s, 4/s"),
-- marked "(read from the benchmark config)"; else "unknown (why)". workload: the one the run
-- ran (the plan's benchmark.workload, else the config's names).
function M.config_load_stages(dir, x, workload)
  local path = dir .. "/benchmark/config.yaml"
  local shown = ("run-%s/benchmark/config.yaml"):format(x)
  local function unknown(why)
    return ("unknown (not stated in the plan's benchmark.load_stages, and %s)"):format(why)
  end
  if lfs.attributes(path, "mode") ~= "file" then
    return unknown("no benchmark config: the run stopped before step 60 rendered it")
  end
  local ok, got = pcall(cmp.config_stages, path, { benchmark = { workload = workload } })
  if not ok then return unknown(("the benchmark config %s cannot be read: %s"):format(shown, tostring(got))) end
  if not got then
    return unknown(("the benchmark config %s gives no load stages with a rate each%s"):format(shown,
      type(workload) == "string" and workload:find(", ", 1, true) and " for one workload (it runs several)"
        or type(workload) == "string" and (" for its workload " .. workload) or ""))
  end
  local list = {}
  for i, rate in ipairs(got.rates) do list[i] = { rate = rate } end
  return require("llmd.report").stages_read { stages = list } .. " (read from the benchmark config)"
end

-- The SLO a plan's run is held to, recorded in its run_state.json (slo:, a mapping like
-- --slo's), as the report step holds both runs to it: --slo, else the plan's slo:, else
-- the run's info's own (new_state's, kept). A later comparison of the run folder (compare.lua
-- --a WS/run-a, a re-run from run_comparison.sh) reads it as the SLO the run was held to.
-- state.slo_by says it was the comparison's, not the run's info's (llmd.comparison.slo_source).
local function record_slo(ctx, state)
  local held, by = ctx.opts_slo, "--slo"
  if not held and ctx.plan.slo ~= nil then
    held, by = require("llmd.decision").parse_slo(ctx.plan.slo, "plan: slo"), "plan"
  end
  if not held then return end
  local m = json.object {}
  for _, s in ipairs(held) do m[s.key] = s.max end
  -- (an existing run's record it was imported from no longer says what this SLO is: slo_from)
  state.slo, state.slo_by, state.slo_from = m, by, nil
end

local function save_state(ctx, x)
  local r = run_of(ctx, x)
  local d = r.deploy or {}
  -- the workload: the plan's benchmark.workload, else the profiles the rendered benchmark
  -- config runs (this process's render, else the one saved in the workspace on resume)
  local workload, rendered = r.benchmark.workload, true
  if workload == nil then
    local text = ctx.config_text and ctx.config_text[x]
    if not text then
      local f = io.open(rdir(ctx, x) .. "/benchmark/config.yaml", "rb")
      if f then text = f:read("a"); f:close() end
    end
    workload = M.config_workloads(text)
    rendered = text ~= nil
  end
  say(ctx, "  workload: %s", workload and (workload .. (r.benchmark.workload and (" (%s)"):format(r.workload_from
    or "the plan's benchmark.workload") or " (the workload: of the benchmark config)"))
    or (rendered and "unknown (no benchmark.workload in the plan, no workload: in the benchmark config)"
      or "unknown (no benchmark.workload in the plan, and no benchmark config: the run stopped before step 60 "
        .. "rendered it)"))
  local image, hw = "unknown", "unknown"
  local i, h, sim = images_and_hardware(ctx, x) -- a dry run prints the reads it does not make
  if not ctx.dry_run then
    if i ~= "" then image = i end
    if h ~= "" then hw = h end
  end
  -- the plan's info, read as an --a-info file is (llmd.workspace.info_flat: stack: {hardware:
  -- H100} states the hardware as hardware: H100 does), over what the cluster says
  local stated = ws.info_flat(r.info)
  -- the nodes' GPUs (their labels) are not the run's: one story with the per-GPU figures,
  -- which count what the serving pods ask for, or what the plan's info states (gpus:, which
  -- the per-GPU figures then divide by)
  if hw ~= "unknown" and not d.hardware then
    local said = stated.gpus ~= nil and tostring(stated.gpus) or nil
    local function gpus(n) return ("%s GPU%s"):format(n, tostring(n) == "1" and "" or "s") end
    if ctx.gpus then
      hw = ("%s (the nodes'; the serving pods ask for %s%s)"):format(hw, gpus(ctx.gpus),
        said and said ~= tostring(ctx.gpus) and ("; the plan's info states %s, which the per-GPU figures use")
          :format(gpus(said)) or "")
    elseif said then
      hw = ("%s (the nodes'; the serving pods ask for no nvidia.com/gpu or amd.com/gpu; the plan's info states %s, "
        .. "which the per-GPU figures use)"):format(hw, gpus(said))
    else
      hw = ("%s (the nodes'; the serving pods ask for no nvidia.com/gpu or amd.com/gpu, so how many this run used "
        .. "is unknown)"):format(hw)
    end
  end
  -- the gateway this run's deploy made (deployed.json's), where the plan names none
  local gw = d.gateway or (r.baseline and "none (baseline Service)") or nil
  local made = not ctx.dry_run and M.deployed(ctx, x).gateways or {}
  if not gw and #made > 0 then
    gw = ("Gateway %s (deployed by this run%s)"):format(table.concat(made, ", "), ctx.gateway_svc
      and (", service " .. ctx.gateway_svc) or "")
  end
  local info = {
    timestamp = os.date("!%Y-%m-%dT%H:%M:%SZ"), guide = d.guide or d.guide_dir, namespace = ctx.ns,
    hardware = d.hardware or hw, gateway = gw,
    model = d.model, llmd_version = d.llmd_version, decode_image = image,
    harness = r.benchmark.harness, workload = workload,
    -- the plan's benchmark.load_stages, else those the rendered benchmark config asks for
    load_stages = r.benchmark.load_stages or M.config_load_stages(rdir(ctx, x), x, workload),
    gpus = not ctx.dry_run and ctx.gpus or nil, -- what the serving pods ask for (per-GPU figures)
  }
  for k, v in pairs(stated) do info[k] = v end
  local state = ws.new_state(r.label, info)
  record_slo(ctx, state)
  state.results_path = rdir(ctx, x) .. "/results"
  state.baseline = r.baseline and true or false
  state.commands = json.array(cmds(ctx, x))
  state.extract_options = { harness = r.benchmark.harness }
  -- a vLLM container that restarted before or during the benchmark (the attempt loop's
  -- record): said in the report's data checks (llmd.comparison.extract_side)
  local restarts = not ctx.dry_run and M.deployed(ctx, x).server_restarts or {}
  if #restarts > 0 then state.server_restarts = json.array(restarts) end
  if not ctx.dry_run and sim and #sim > 0 then
    state.simulated = ("node%s %s labelled %s=true"):format(#sim == 1 and "" or "s", table.concat(sim, ", "),
      M.SIMULATED_LABEL)
  end
  ws.write_state(ctx.ws.path, x, state)
  return "run_state.json written"
end

local function minus(after, before)
  local b, out = set_of(before), {}
  for _, n in ipairs(after or {}) do if not b[n] then out[#out + 1] = n end end
  table.sort(out)
  return out
end

local function names_of(items)
  local out = {}
  for _, o in ipairs(items or {}) do out[#out + 1] = o.metadata and o.metadata.name or o.name end
  table.sort(out)
  return out
end

local function collect_logs(ctx, x)
  local dest = rdir(ctx, x) .. "/results/vllm-logs"
  -- pods that were in the namespace before this run deployed (or whose controller was)
  -- are someone else's
  local foreign = M.foreign(ctx, x)
  local function ours(list)
    local out = {}
    for _, p in ipairs(list) do if not foreign(p) then out[#out + 1] = p end end
    return out
  end
  local found
  for _, sel in ipairs(M.LOG_SELECTORS) do
    local ps = ours(pods(ctx, sel))
    if #ps > 0 then found = ps; break end
  end
  if not found then
    found = {}
    for _, p in ipairs(ours(pods(ctx))) do
      local n = p.metadata.name
      if n:match("vllm") or n:match("decode") or n:match("prefill") then found[#found + 1] = p end
    end
  end
  if ctx.dry_run then return "dry run" end
  if #found == 0 then error(("run %s: no vLLM pods found to collect logs from"):format(x), 0) end
  ws.mkdir_p(dest)
  local n, failed, prev_n = 0, {}, 0
  for _, p in ipairs(found) do
    local name = p.metadata.name
    local restarts = {}
    local st = p.status or {}
    for _, list in ipairs { st.initContainerStatuses or {}, st.containerStatuses or {} } do
      for _, cs in ipairs(list) do restarts[cs.name] = cs.restartCount or 0 end
    end
    -- every container: init containers and sidecars (init containers with restartPolicy
    -- Always, e.g. llm-d's routing proxy), then the main ones
    local containers = {}
    for _, c in ipairs((p.spec or {}).initContainers or {}) do containers[#containers + 1] = c end
    for _, c in ipairs((p.spec or {}).containers or {}) do containers[#containers + 1] = c end
    for _, c in ipairs(containers) do
      local r = ctx.k:kubectl({ "logs", name, "-c", c.name, "--timestamps" }, { check = false })
      if r.ok and r.stdout ~= "" then
        ws.write_text(("%s/%s_%s.log"):format(dest, name, c.name), r.stdout)
        n = n + 1
      else
        failed[#failed + 1] = ("%s/%s: %s"):format(name, c.name, (r.stderr or ""):gsub("%s+$", ""))
      end
      if (restarts[c.name] or 0) > 0 then
        -- the container before its last restart: often why it restarted
        local prev = ctx.k:kubectl({ "logs", name, "-c", c.name, "--timestamps", "--previous" }, { check = false })
        if prev.ok then
          ws.write_text(("%s/%s_%s.previous.log"):format(dest, name, c.name), prev.stdout)
          prev_n = prev_n + 1
        else
          failed[#failed + 1] = ("%s/%s (previous): %s"):format(name, c.name, (prev.stderr or ""):gsub("%s+$", ""))
        end
      end
    end
  end
  if n == 0 then
    error(("run %s: no vLLM logs could be collected (%s); teardown will not start without them "
      .. "(set teardown_without_logs: true in the plan to allow it)"):format(x, table.concat(failed, "; ")), 0)
  end
  return ("%d log file(s) and %d of previous containers in %s%s"):format(n, prev_n, dest,
    #failed > 0 and (" (not collected: " .. table.concat(failed, "; ") .. ")") or "")
end

-- What a run deployed ------------------------------------------------------------------------
--
-- run-x/deployed.json: what was in the namespace before the run's first deploy (releases,
-- HTTPRoutes, Gateways, Services, serving pods), and what the deploy added (the difference,
-- also after a deploy that failed half-way), the kustomize folders applied and whether the
-- baseline Service was created. Teardown removes exactly that.

-- "Kind/name" of the controller that owns pod p (a ReplicaSet, a StatefulSet, a Job, a
-- LeaderWorkerSet), or "Pod/<name>" for a bare pod.
function M.owner_key(p)
  local md = p.metadata or {}
  for _, o in ipairs(md.ownerReferences or {}) do
    if o.controller then return tostring(o.kind) .. "/" .. tostring(o.name) end
  end
  return "Pod/" .. tostring(md.name)
end

-- The uid of the controller that owns pod p (its ownerReference with controller: true), or
-- a bare pod's own uid; nil when the cluster's answer names none.
function M.owner_uid(p)
  local md = p.metadata or {}
  local u = md.uid
  for _, o in ipairs(md.ownerReferences or {}) do
    if o.controller then u = o.uid break end
  end
  return type(u) == "string" and u ~= "" and u or nil
end

-- Whose a pod is, by the chain a cluster records: the pod's controller (its ownerReference
-- with controller: true) - a ReplicaSet, whose controller is a Deployment; a StatefulSet, a
-- LeaderWorkerSet; a worker StatefulSet's leader Pod ... - up to an object helm stamped for a
-- release (meta.helm.sh/release-name, and -namespace) or one this run applied by name.
-- ours: a release of this run's (in this namespace), or d.applied's Kind/name; theirs:
-- another release's, or the top of the chain reached with neither; unknown: an owner could
-- not be read (gone, or a kind this cluster does not serve). The controllers are read once
-- per resolver (kubectl get replicasets,deployments,statefulsets), others one by one.
function M.chain_resolver(ctx, d)
  local releases, applied = set_of(d.releases), set_of(d.applied)
  local objs
  local function load()
    objs = {}
    local v = ctx.k:json({ "get", "replicasets,deployments,statefulsets" }, { check = false })
    for _, o in ipairs(v and v.items or {}) do
      if type(o) == "table" and type(o.metadata) == "table" then
        objs[tostring(o.kind) .. "/" .. tostring(o.metadata.name)] = o
      end
    end
  end
  local function get(ref)
    if not objs then load() end
    local key = tostring(ref.kind) .. "/" .. tostring(ref.name)
    if objs[key] == nil then
      -- not among those read: that one by kind (and API group) and name
      local group = tostring(ref.apiVersion or ""):match("^(.+)/[^/]+$")
      local kind = tostring(ref.kind):lower() .. (group and ("." .. group) or "")
      local v = ctx.k:json({ "get", kind, tostring(ref.name) }, { check = false })
      objs[key] = type(v) == "table" and type(v.metadata) == "table" and v or false
    end
    return objs[key] or nil
  end
  return function(p)
    local o = p
    for _ = 1, 8 do
      local md = type(o.metadata) == "table" and o.metadata or {}
      if applied[tostring(o.kind or "Pod") .. "/" .. tostring(md.name)] then return "ours" end
      local m = M.made_by(o)
      if m.release then
        if releases[m.release] and (m.release_ns == nil or m.release_ns == ctx.ns) then return "ours" end
        return "theirs"
      end
      local ref
      for _, r in ipairs(type(md.ownerReferences) == "table" and md.ownerReferences or {}) do
        if type(r) == "table" and r.controller then ref = r end
      end
      if not ref then return "theirs" end
      o = get(ref)
      if not o then return "unknown" end
    end
    return "unknown"
  end
end

-- Does the chain tell this run's pods apart: a record of its deploy, with what it made known
-- (a release, an object applied by name)?
local function chain_known(d)
  -- (a record written before deployed.json kept "applied" has none: its kustomize Deployments'
  -- pods would not be known as this run's, so the chain is not used for it)
  return d and d.before and type(d.applied) == "table"
    and ((d.releases and #d.releases > 0) or #d.applied > 0 or type(d.recovered) == "string")
end

-- A predicate on pods: is p someone else's - there before the stack x benchmarks was first
-- deployed (by name or by its controller), or not of this run by its chain of owners
-- (M.chain_resolver: a pod is this run's only when its controllers lead to a release or an
-- object of this run's; one whose chain cannot be read is not counted as this run's)?
-- Without what the chain needs (a dry run, a stack deployed beforehand, an old workspace),
-- the controllers recorded once its stack was ready (M.record_pods) decide; without those
-- either, nothing is known to be someone else's.
local function foreign_of(ctx, d)
  local before = d and d.before or {}
  local names, owners = set_of(before.pods), set_of(before.owners)
  local mine = set_of(d and d.pod_owners)
  local mine_uid = set_of(d and d.pod_owner_uids)
  local recorded = next(mine) ~= nil
  local chain = chain_known(d) and not ctx.dry_run and M.chain_resolver(ctx, d)
  return function(p)
    local md = p.metadata or {}
    local k = M.owner_key(p)
    if names[md.name] == true or owners[k] == true then return true end
    if chain then return chain(p) ~= "ours" end
    -- (this run's controllers by uid where recorded - one of the same name made since is
    -- another's -, by name in an older record)
    if next(mine_uid) then return not mine_uid[M.owner_uid(p) or ""] end
    return recorded and not mine[k]
  end
end
function M.foreign(ctx, x) return foreign_of(ctx, ctx.deployed and ctx.deployed[stack_of(ctx, x)]) end

-- The other runs of this comparison still deployed in the namespace while run x deploys:
-- a run whose teardown --step left out (`--step 20` deploys both runs, one after the other),
-- or one that failed and was left as it was. Each { y =, d = (its record), said = "this
-- comparison's run A (LABEL)", why = "--step left out its teardown (step 90)", fix = how to
-- go on so that they do not meet }. What they made is this comparison's own, never "another
-- stack's" or "not deployed by this comparison" (fixc53).
local function other_runs_up(ctx, x)
  local out, me = {}, stack_of(ctx, x)
  local keys = {}
  for y in pairs(ctx.deployed or {}) do keys[#keys + 1] = y end
  table.sort(keys)
  for _, y in ipairs(keys) do
    local d = ctx.deployed[y]
    if y ~= me and M.left_of(d) then
      local ok, r = pcall(run_of, ctx, y)
      local label = ok and type(r) == "table" and r.label
      local f = ctx.failed and ctx.failed[y]
      local why, fix
      if ctx.only and not ctx.only[90] then
        why = "--step left out its teardown (step 90)"
        fix = ctx.ws and ("go on without --step, so that run %s is torn down before run %s is deployed: %s"):format(
          tostring(y):upper(), tostring(x):upper(), M.resume_command(ctx.ws.path))
      elseif f then
        why = ("it failed at step %s (%s) and was left as it was"):format(tostring(f.number), tostring(f.name))
      else
        why = "its teardown has not run"
      end
      fix = fix or (ctx.ws and ("tear run %s down first: %s"):format(tostring(y):upper(),
        M.resume_command(ctx.ws.path, { "--step", "90" }))) or ("tear run " .. tostring(y):upper() .. " down first")
      out[#out + 1] = { y = y, d = d, why = why, fix = fix,
        said = ("this comparison's run %s%s"):format(tostring(y):upper(), label and (" (" .. label .. ")") or "") }
    end
  end
  return out
end

-- `helm list` shows at most 256 releases (--max's default) and, in helm 3, only deployed and
-- failed ones: a release being installed, upgraded or uninstalled (pending-install,
-- pending-upgrade, uninstalling ...) is left out unless --all. What was in the namespace
-- before a deploy, and whose release is whose, needs every one: --all --max 0 (helm 3's
-- pkg/action/list.go limits only when --max > 0). Helm 4 lists every state by default and
-- has no --all ("Error: unknown flag: --all"): asked again without it (and not again).
M.HELM_LIST = { "list", "--all", "--max", "0", "-o", "json" }
M.HELM_LIST_NO_ALL = { "list", "--max", "0", "-o", "json" }

-- Every release in the namespace: helm's list (decoded) of them; a dry run reads nothing ({}).
function M.list_releases(ctx)
  local r = ctx.k:helm(ctx.helm_no_all and M.HELM_LIST_NO_ALL or M.HELM_LIST, { read = true, check = false })
  if r.dry_run then return {} end
  if not r.ok and not ctx.helm_no_all and (r.stderr or ""):find("unknown flag: --all", 1, true) then
    ctx.helm_no_all = true
    r = ctx.k:helm(M.HELM_LIST_NO_ALL, { read = true, check = false })
  end
  local a = ctx.helm_no_all and M.HELM_LIST_NO_ALL or M.HELM_LIST
  local what = k8s.cmdline(ctx.k:argv("helm", a))
  if not r.ok then
    error(("%s: %s: %s"):format(what, exitstatus.text(r), (r.stderr or ""):gsub("%s+$", "")), 0)
  end
  local list = json.decode(r.stdout, what)
  if type(list) ~= "table" then error(("%s: expected a JSON list of releases, got %s"):format(what, type(list)), 0) end
  return list
end

-- Who made an object, from what the tools stamp on it: helm (since 3.2) annotates every
-- object it installs with meta.helm.sh/release-name and meta.helm.sh/release-namespace and
-- labels it app.kubernetes.io/managed-by=Helm; a controller that makes objects for a
-- Gateway (Istio's gateway deployment controller: its Service, Deployment, ServiceAccount)
-- sets an ownerReference to the Gateway (Istio's, without controller: true) and labels them
-- gateway.networking.k8s.io/gateway-name. { release =, release_ns =, owner = "Kind/name"
-- (the first ownerReference, the controller's if one is), gateways = {names: the Gateways
-- it is owned by or labelled for} }
function M.made_by(o)
  local md = type(o) == "table" and type(o.metadata) == "table" and o.metadata or {}
  local ann = type(md.annotations) == "table" and md.annotations or {}
  local labels = type(md.labels) == "table" and md.labels or {}
  local owner, gateways = nil, {}
  for _, r in ipairs(type(md.ownerReferences) == "table" and md.ownerReferences or {}) do
    if type(r) == "table" then
      if r.controller or not owner then owner = tostring(r.kind) .. "/" .. tostring(r.name) end
      if r.kind == "Gateway" then gateways[#gateways + 1] = tostring(r.name) end
    end
  end
  if labels["gateway.networking.k8s.io/gateway-name"] then
    gateways[#gateways + 1] = tostring(labels["gateway.networking.k8s.io/gateway-name"])
  end
  return { release = ann["meta.helm.sh/release-name"], release_ns = ann["meta.helm.sh/release-namespace"],
    owner = owner, gateways = gateways }
end

function M.snapshot_empty() return { releases = {}, httproutes = {}, gateways = {}, services = {}, pods = {} } end

-- Gateway API's HTTPRoutes and Gateways as kubectl is given them: fully qualified. A bare
-- "gateway" names two kinds on a cluster with Istio (networking.istio.io's Gateway beside
-- gateway.networking.k8s.io's), and kubectl picks one group by its discovery order, not by
-- what was meant: lists and deletes of this tool name the group.
M.GW_RES = { HTTPRoute = "httproutes.gateway.networking.k8s.io", Gateway = "gateways.gateway.networking.k8s.io" }
M.ROUTES_GATEWAYS = M.GW_RES.HTTPRoute .. "," .. M.GW_RES.Gateway

-- The objects teardown cares about, by name: releases, httproutes, gateways, services, pods.
function M.snapshot(ctx)
  local snap = { releases = {}, httproutes = {}, gateways = {}, services = {}, pods = {} }
  if ctx.dry_run then
    -- the reads a real run makes here, shown as not made: nothing is known of the namespace
    M.list_releases(ctx)
    ctx.k:json({ "get", M.ROUTES_GATEWAYS }, { check = false })
    ctx.k:json { "get", "svc" }
    ctx.k:json { "get", "pods" }
    return snap
  end
  local listed = M.list_releases(ctx)
  snap.releases = names_of(listed)
  -- what helm says of each (chart NAME-VERSION, revision, status), for messages
  snap.release_info = {}
  for _, r in ipairs(type(listed) == "table" and listed or {}) do
    if type(r) == "table" and r.name then snap.release_info[r.name] = r end
  end
  -- and who made each: what helm stamps on every object it installs, the controller that
  -- owns it (a Gateway's Service), the Gateway a controller made it for
  snap.meta = { httproutes = {}, gateways = {}, services = {} }
  -- (and each one's metadata.uid: which object of that name it is)
  snap.uids = { httproutes = {}, gateways = {}, services = {} }
  local o = ctx.k:json({ "get", M.ROUTES_GATEWAYS }, { check = false })
  for _, it in ipairs(o and o.items or {}) do
    local k = it.kind == "Gateway" and "gateways" or "httproutes"
    local list = snap[k]
    list[#list + 1] = it.metadata.name
    snap.meta[k][it.metadata.name] = M.made_by(it)
    snap.uids[k][it.metadata.name] = it.metadata.uid
  end
  local svcs = (ctx.k:json { "get", "svc" } or {}).items
  snap.services = names_of(svcs)
  for _, it in ipairs(svcs or {}) do
    if type(it.metadata) == "table" and it.metadata.name then
      snap.meta.services[it.metadata.name] = M.made_by(it)
      snap.uids.services[it.metadata.name] = it.metadata.uid
    end
  end
  -- every pod: the serving ones by name, and the controllers of all (whose pods, restarted
  -- under new names, are still not this run's)
  local serving, owners = {}, {}
  snap.pod_owner, snap.pod_owner_uid = {}, {}
  for _, p in ipairs(pods(ctx)) do
    if ((p.metadata or {}).labels or {})[M.SERVING_LABEL] == "true" then
      serving[#serving + 1] = p
      snap.pod_owner[p.metadata.name] = M.owner_key(p)
      snap.pod_owner_uid[p.metadata.name] = M.owner_uid(p)
    end
    owners[M.owner_key(p)] = true
  end
  snap.pods = names_of(serving)
  snap.pod_objs = serving
  snap.owners = {}
  for k in pairs(owners) do snap.owners[#snap.owners + 1] = k end
  table.sort(snap.owners)
  return snap
end

-- The run's record (created empty).
function M.deployed(ctx, x)
  ctx.deployed = ctx.deployed or {}
  local d = ctx.deployed[x]
  if not d then
    d = { kustomize = {}, releases = {}, httproutes = {}, gateways = {}, services = {}, baseline_service = false }
    ctx.deployed[x] = d
  end
  return d
end

-- Run x's id (M.random_token's 16 hex digits, kept in its deployed.json from the first time it
-- is asked for): the value of annotation M.RUN_ANNOTATION on what llmdlua makes with `kubectl
-- create` (the baseline Service, the results PVC), so that a create whose answer was lost - a
-- timeout after the API server made it - and was sent again is told from someone else's by
-- reading the object back: AlreadyExists and this run's id on it is this run's earlier try.
M.RUN_ANNOTATION = "llmdlua/run"
function M.run_id(ctx, x)
  local d = M.deployed(ctx, x)
  if not d.run_id then
    d.run_id = random_token()
    M.save_deployed(ctx, x) -- (kept before anything carries it)
  end
  return d.run_id
end

-- The API path of object o ({apiVersion =, kind =, name =}) in ctx.ns - /api/v1/namespaces/
-- NS/RESOURCE/NAME for the core group, /apis/GROUP/VERSION/namespaces/NS/RESOURCE/NAME else -,
-- RESOURCE the plural `kubectl api-resources` gives that kind in that apiVersion's group (it
-- lists each group at its preferred version only; the path keeps the recorded version, which
-- the server still serves) - without an apiVersion, the only namespaced resource of that kind
-- (Istio's Gateway beside Gateway API's is two: refused); nil and why when it cannot be told.
function M.api_path(ctx, o)
  local list = api_resources(ctx)
  if not list then return nil, "kubectl api-resources could not be read" end
  local found
  for _, r in ipairs(list) do
    if r.kind == o.kind and (o.apiVersion == nil or group_of(r.apiVersion) == group_of(o.apiVersion)) then
      if found and group_of(found.apiVersion) ~= group_of(r.apiVersion) then
        return nil, "kind " .. o.kind .. " is in several API groups"
      end
      found = r
    end
  end
  if not found then
    return nil, ("kubectl api-resources lists no namespaced %s%s"):format(o.kind,
      o.apiVersion and (" of " .. o.apiVersion) or "")
  end
  local gv = o.apiVersion or found.apiVersion
  return (gv:find("/", 1, true) and "/apis/" .. gv or "/api/" .. gv) .. "/namespaces/" .. ctx.ns .. "/"
    .. found.resource .. "/" .. o.name
end

-- Deletes object o ({apiVersion =, kind =, name =, uid =}: as recorded when this run made it)
-- only while it is that object: `kubectl delete --raw PATH -f -`, the body DeleteOptions with
-- preconditions.uid - the API server refuses (Conflict) once the name holds another object (a
-- colleague's, made after this run's was removed), at the delete itself, so none made again
-- between a check and the delete goes either (`kubectl delete TYPE NAME` sends no
-- precondition; the namespace lock's release is sent so too). propagationPolicy Background,
-- as kubectl delete's default. Returns "deleted", "gone" (NotFound) or "other" (the Conflict:
-- another object) and that object's uid as the server names it, or nil and why when no
-- precondition can be sent (no uid recorded, the path not known): the caller then deletes by
-- name, as before.
function M.delete_same(ctx, o)
  if type(o.uid) ~= "string" or o.uid == "" then return nil, "no uid recorded" end
  local path, why = M.api_path(ctx, o)
  if not path then return nil, why end
  local r = ctx.k:kubectl({ "delete", "--raw", path, "-f", "-" }, { check = false, conflict = true, raw_uid = o.uid,
    stdin = json.encode { apiVersion = "v1", kind = "DeleteOptions", propagationPolicy = "Background",
      preconditions = { uid = o.uid } } })
  if r.ok then return "deleted" end
  local said = ((r.stderr or "") .. tostring(r.stdout or "")):gsub("%s+$", "")
  if said:find("(NotFound)", 1, true) then return "gone" end
  if said:find("(Conflict)", 1, true) then return "other", said:match("UID in object meta: ([%w%-]+)") end
  error(("%s: %s"):format(k8s.cmdline(ctx.k:argv("kubectl", { "delete", "--raw", path, "-f", "-" })),
    said ~= "" and said or exitstatus.text(r)), 0)
end

function M.save_deployed(ctx, x)
  if ctx.dry_run then return end -- a dry run deploys nothing
  local d = M.deployed(ctx, x)
  local function arr(t) return json.array(t or {}) end
  local before = d.before and { releases = arr(d.before.releases), httproutes = arr(d.before.httproutes),
    gateways = arr(d.before.gateways), services = arr(d.before.services), pods = arr(d.before.pods),
    owners = arr(d.before.owners) } or json.null
  json.write(rdir(ctx, x) .. "/deployed.json", {
    before = before, releases = arr(d.releases), httproutes = arr(d.httproutes), gateways = arr(d.gateways),
    services = arr(d.services), kustomize = arr(d.kustomize), baseline_service = d.baseline_service or false,
    torn_down = d.torn_down or false, commands = arr(ctx.commands[x]),
    bench_command = (ctx.bench_command or {})[x] or json.null, pvc = ctx.pvc or json.null,
    teardown_commands = arr((ctx.teardown_commands or {})[x]),
    gateway_svc = ctx.gateway_svc or json.null, deploy_commands = arr(d.deploy_commands),
    service_command = d.service_command or json.null,
    pod_owners = arr(d.pod_owners), pod_owner_uids = d.pod_owner_uids and arr(d.pod_owner_uids) or nil,
    applied = arr(d.applied), created = arr(d.created), left = arr(d.left),
    server_restarts = arr(d.server_restarts),
    -- (nil in a record of an older llmdlua: its releases are known by name only)
    release_ids = d.release_ids and json.object(d.release_ids) or nil,
    uids = d.uids and json.object(d.uids) or nil,
    kustomize_objects = d.kustomize_objects and json.object(d.kustomize_objects) or nil,
    created_ids = d.created_ids and json.object(d.created_ids) or nil,
    run_id = d.run_id,
    -- (a deploy command started and what it made not recorded yet: M.recover_interrupted)
    deploying = d.deploying, recovered = d.recovered,
  })
end

function M.load_deployed(ctx, x)
  local p = rdir(ctx, x) .. "/deployed.json"
  if lfs.attributes(p, "mode") ~= "file" then return end
  local s = json.read(p)
  local d = M.deployed(ctx, x)
  for _, k in ipairs { "releases", "httproutes", "gateways", "services", "kustomize" } do d[k] = s[k] or {} end
  d.before = s.before ~= json.null and s.before or nil
  d.baseline_service = s.baseline_service == true
  d.torn_down = s.torn_down == true
  d.deploy_commands = type(s.deploy_commands) == "table" and s.deploy_commands or {}
  d.service_command = type(s.service_command) == "string" and s.service_command or nil
  d.pod_owners = type(s.pod_owners) == "table" and s.pod_owners or {}
  d.pod_owner_uids = type(s.pod_owner_uids) == "table" and s.pod_owner_uids or nil
  d.applied = type(s.applied) == "table" and s.applied or nil
  d.created = type(s.created) == "table" and s.created or {}
  d.left = type(s.left) == "table" and s.left or {}
  d.server_restarts = type(s.server_restarts) == "table" and s.server_restarts or {}
  d.release_ids = type(s.release_ids) == "table" and s.release_ids or nil
  d.uids = type(s.uids) == "table" and s.uids or nil
  d.kustomize_objects = type(s.kustomize_objects) == "table" and s.kustomize_objects or nil
  d.created_ids = type(s.created_ids) == "table" and s.created_ids or nil
  d.run_id = type(s.run_id) == "string" and s.run_id or nil
  d.deploying = type(s.deploying) == "table" and type(s.deploying.started) == "string" and s.deploying or nil
  d.recovered = type(s.recovered) == "string" and s.recovered or nil
  ctx.commands[x] = s.commands or {}
  if type(s.bench_command) == "string" then
    ctx.bench_command = ctx.bench_command or {}
    ctx.bench_command[x] = s.bench_command
  end
  if type(s.teardown_commands) == "table" and #s.teardown_commands > 0 then
    ctx.teardown_commands = ctx.teardown_commands or {}
    ctx.teardown_commands[x] = s.teardown_commands
  end
  if s.pvc ~= json.null then ctx.pvc = s.pvc or ctx.pvc end
  if s.gateway_svc ~= json.null then ctx.gateway_svc = s.gateway_svc or ctx.gateway_svc end
end

-- Which release of that name is in the namespace now: helm status NAME -o json's
-- info.first_deployed (set at install, kept by upgrades: a release uninstalled and
-- installed again, by anyone, has another) and version (its revision); nil and why when
-- there is none ("not found") or helm's answer cannot be read.
function M.release_identity(ctx, name)
  local r = ctx.k:helm({ "status", name, "-o", "json" }, { read = true, check = false })
  if r.dry_run then return nil, "dry run" end
  if not r.ok then
    local err = (r.stderr or ""):gsub("%s+$", "")
    if err:find("not found", 1, true) then return nil, "not found" end
    return nil, ("helm status %s: %s: %s"):format(name, exitstatus.text(r), err)
  end
  local ok, v = pcall(json.decode, r.stdout, "helm status " .. name)
  local info = ok and type(v) == "table" and type(v.info) == "table" and v.info or nil
  if not info or type(info.first_deployed) ~= "string" or info.first_deployed == "" then
    return nil, ("helm status %s -o json gave no info.first_deployed"):format(name)
  end
  return { first_deployed = info.first_deployed, version = math.tointeger(v.version) or v.version,
    status = info.status }
end

-- Records, after a deploy, which release of each recorded name this run's deploy made or
-- upgraded (M.release_identity), so that teardown uninstalls that one and never another
-- installed under the same name since (d.release_ids[name]; false: none was there).
local function record_release_ids(ctx, d)
  if ctx.dry_run then return end
  d.release_ids = type(d.release_ids) == "table" and d.release_ids or {}
  for _, n in ipairs(d.releases) do
    local id, why = M.release_identity(ctx, n)
    if id then d.release_ids[n] = id
    elseif why == "not found" then d.release_ids[n] = false
    else say(ctx, "  release %s: which release it is cannot be recorded (%s): teardown will leave it", n, why) end
  end
end

-- The releases a deploy's calls can install: a set of names, or nil when one call's are not
-- known (a custom helm call with a generated name, a helmfile whose list fails). helm
-- upgrade/install: its release; helmfile apply/sync: the releases helmfile lists for it;
-- anything else (kubectl) installs none.
local function deploy_release_names(ctx, calls)
  local names = {}
  for _, c in ipairs(calls) do
    local ok, p = pcall(k8s.parse, c.tool, c.args)
    local verb = ok and p.words[1]
    if c.tool == "helm" and (verb == "upgrade" or verb == "install") then
      for _, f in ipairs(p.flags) do
        if f.name == "generate-name" or f.name == "name-template" then return nil end
      end
      if not p.words[2] then return nil end
      names[p.words[2]] = true
    elseif c.tool == "helmfile" and (verb == "apply" or verb == "sync") then
      local lok, list = pcall(M.helmfile_releases, ctx, c.args, c.opts.cwd, c.opts.allow_hooks)
      if not lok then return nil end
      for _, r in ipairs(list) do if r.installed then names[r.name] = true end end
    elseif c.tool == "helm" or c.tool == "helmfile" then
      if not ok then return nil end
    elseif c.tool ~= "kubectl" and c.tool ~= "oc" then
      return nil -- (another program: what it installs is not known)
    end
  end
  return names
end

-- Does a call only simulate? kubectl, oc and helm with --dry-run (bare, =client, =server,
-- =true; not =none or =false): it makes nothing, so none of the objects it names or
-- renders is this run's, and teardown has nothing of it to remove.
function M.simulates(tool, args)
  if tool ~= "kubectl" and tool ~= "oc" and tool ~= "helm" then return false end
  local ok, p = pcall(k8s.parse, tool, args)
  if not ok then return false end
  for _, f in ipairs(p.flags) do
    if f.name == "dry-run" and f.value ~= "none" and f.value ~= "false" then return true end
  end
  return false
end

-- What a kubectl call of a custom deploy creates by name, without a manifest: kubectl create
-- SUBCOMMAND [TYPE] NAME, kubectl expose TYPE NAME [--name N], kubectl autoscale TYPE NAME
-- [--name N]: { {kind =, resource =, name =} }. Each fails when an object of that kind and
-- name exists (AlreadyExists), so one that succeeded made it: this run's. A --dry-run makes
-- nothing.
local CREATE_KINDS = { deployment = "Deployment", deploy = "Deployment", job = "Job", cronjob = "CronJob",
  cj = "CronJob", configmap = "ConfigMap", cm = "ConfigMap", secret = "Secret", service = "Service", svc = "Service",
  serviceaccount = "ServiceAccount", sa = "ServiceAccount", role = "Role", rolebinding = "RoleBinding",
  poddisruptionbudget = "PodDisruptionBudget", pdb = "PodDisruptionBudget", quota = "ResourceQuota",
  resourcequota = "ResourceQuota", ingress = "Ingress", ing = "Ingress" }
function M.created_by(tool, args)
  if tool ~= "kubectl" and tool ~= "oc" then return {} end
  local ok, p = pcall(k8s.parse, tool, args)
  if not ok then return {} end
  if M.simulates(tool, args) then return {} end
  local w, named = p.words, nil
  for _, f in ipairs(p.flags) do
    if f.name == "filename" or f.name == "kustomize" then return {} end -- (manifests: rendered, read first)
    if f.name == "name" then named = tostring(f.value) end
  end
  if w[1] == "create" and CREATE_KINDS[w[2] or ""] then
    -- (secret and service take a type first: create secret generic NAME, create service clusterip NAME)
    local name = (w[2] == "secret" or w[2] == "service" or w[2] == "svc") and w[4] or w[3]
    if name then return { { kind = CREATE_KINDS[w[2]], resource = CREATE_KINDS[w[2]]:lower(), name = name } } end
  elseif w[1] == "expose" or w[1] == "autoscale" then
    local name = named or (w[2] or ""):match("/(.+)$") or w[3]
    local kind = w[1] == "expose" and "Service" or "HorizontalPodAutoscaler"
    if name then return { { kind = kind, resource = kind:lower(), name = name } } end
  end
  return {}
end

-- What kubectl apply (or create) printed, one line an object (cmd/apply's printer):
-- "<resource>[.<group>]/<name> <operation>[ (dry run)| (server dry run)]", the operation
-- created, configured, unchanged or serverside-applied; with -o name the reference alone.
-- Returns { {ref =, res =, name =, op = (nil with -o name), dry = true|nil} } and the
-- lines that are none of these.
function M.apply_output(text)
  local out, other = {}, {}
  for line in tostring(text or ""):gmatch("[^\n]+") do
    local l = line:gsub("%s+$", "")
    local res, name, op, tail = l:match("^([%w][%w%.%-]*)/([%w][%w%.%-:]*) (%S+)(.*)$")
    if res and (op == "created" or op == "configured" or op == "unchanged" or op == "serverside-applied")
      and (tail == "" or tail == " (dry run)" or tail == " (server dry run)") then
      out[#out + 1] = { ref = res .. "/" .. name, res = res, name = name, op = op, dry = tail ~= "" or nil }
    else
      res, name = l:match("^([%w][%w%.%-]*)/([%w][%w%.%-:]*)$")
      if res then
        out[#out + 1] = { ref = res .. "/" .. name, res = res, name = name }
      elseif l:match("%S") then
        other[#other + 1] = l
      end
    end
  end
  return out, other
end

-- The resource kubectl names an object of a manifest by: its kind in lower case, with
-- its API group ("deployment.apps"); none for the core group ("service").
local function resource_of(o)
  local group = tostring(o.apiVersion or ""):match("^(.+)/[^/]+$")
  return tostring(o.kind):lower() .. (group and ("." .. group) or "")
end

-- A custom deploy's `kubectl apply -f/-k` (or create): which of the objects are this run's.
-- An object kubectl says it "created" was not there: this run's, recorded in d.created
-- and deleted by name at teardown (a PersistentVolumeClaim is kept, as teardown keeps
-- PVCs: said, with how to remove it). "configured" or "unchanged": it was there before -
-- someone else's, never deleted; said and recorded in d.left. When the output does not say
-- (-o name, --server-side's "serverside-applied", nothing printed, lines of another form),
-- the objects of its manifests it does not settle are not deleted either: said, with the
-- command that removes each (d.left). A dry run (--dry-run) made nothing.
local DEPLOY_KEPT = { persistentvolumeclaim = true }
local function said_ref(said, ref)
  for _, e in ipairs(said) do if e.ref == ref then return true end end
  return false
end
local function record_applied(ctx, d, outputs, have_created)
  d.left = d.left or {}
  local have_left = set_of(d.left)
  local function leave(line)
    if not have_left[line] then
      have_left[line] = true
      d.left[#d.left + 1] = line
    end
  end
  for _, o in ipairs(outputs) do
    local c, r = o.call, o.r
    local ok, p = pcall(k8s.parse, c.tool, c.args)
    local verb = ok and p.words[1]
    local manifests, dry = false, M.simulates(c.tool, c.args)
    for _, f in ipairs(ok and p.flags or {}) do
      if f.name == "filename" or f.name == "kustomize" then manifests = true end
    end
    if (c.tool == "kubectl" or c.tool == "oc") and (verb == "apply" or verb == "create") and manifests
      and not c.opts.kustomize and not dry then
      local shown = k8s.cmdline { c.tool, table.unpack(c.args) }
      local said, other = M.apply_output(r.stdout)
      local settled = {}
      for _, e in ipairs(said) do
        local base = e.res:match("^[^.]+")
        if e.dry then
          settled[e.ref] = true
        elseif e.op == "created" and DEPLOY_KEPT[base] then
          settled[e.ref] = true
          leave(("%s (made by %s; kept, as teardown keeps PVCs: %s removes it)"):format(e.ref, shown,
            k8s.cmdline { "kubectl", "-n", ctx.ns, "delete", e.res, e.name }))
          say(ctx, "  %s: %s created it: kept at teardown (PVCs are kept)", e.ref, shown)
        elseif e.op == "created" then
          settled[e.ref] = true
          if not have_created[e.ref] then
            have_created[e.ref] = true
            d.created[#d.created + 1] = e.ref
            say(ctx, "  %s: %s says created (it was not there): this run's, recorded, teardown deletes it", e.ref,
              shown)
          end
        elseif (e.op == "configured" or e.op == "unchanged") and not have_created[e.ref] then
          settled[e.ref] = true
          leave(("%s (%s said %s: it was there before this run, so not this run's)"):format(e.ref, shown, e.op))
          say(ctx, "  %s: %s says %s: it was there before this run, so not this run's: teardown leaves it", e.ref,
            shown, e.op)
        elseif have_created[e.ref] then
          settled[e.ref] = true -- (this run's, made by an earlier attempt)
        end
      end
      -- what its manifests hold that the output does not settle
      local objs = {}
      pcall(ctx.k.preflight, ctx.k, c.tool, c.args, { user = c.opts.user, cwd = c.opts.cwd,
        seen = function(list) for _, ob in ipairs(list) do objs[#objs + 1] = ob end end })
      local unknown = {}
      for _, ob in ipairs(objs) do
        if type(ob) == "table" and type(ob.kind) == "string" and type(ob.metadata) == "table" then
          local res, name = resource_of(ob), tostring(ob.metadata.name)
          local ref = res .. "/" .. name
          -- (a call that failed made none of those it does not name)
          if not settled[ref] and not have_created[ref] and (r.ok or said_ref(said, ref)) then
            unknown[#unknown + 1] = { ref = ref, res = res, name = name }
          end
        end
      end
      if #unknown > 0 then
        local why = #said > 0 and "its output does not say whether it created them"
          or (#other > 0 and ("its output is not kubectl's one line an object (%q)"):format(other[1]))
          or "it printed nothing"
        local refs, removes = {}, {}
        for _, u in ipairs(unknown) do
          refs[#refs + 1] = u.ref
          local rm = k8s.cmdline { "kubectl", "-n", ctx.ns, "delete", u.res, u.name }
          removes[#removes + 1] = rm
          leave(("%s (%s: %s; if it is this run's: %s)"):format(u.ref, shown, why, rm))
        end
        say(ctx, "  %s: %s, so %s %s not known to be this run's: teardown leaves %s; if %s this run's, remove %s "
          .. "with: %s", shown, why, table.concat(refs, ", "), #refs == 1 and "is" or "are", #refs == 1 and "it"
          or "them", #refs == 1 and "it is" or "they are", #refs == 1 and "it" or "them", table.concat(removes, "; "))
      end
    end
  end
end

-- The key of an object this run applies (d.applied, and what record_added matches the new
-- HTTPRoutes and Gateways against): "Kind/name", but for a Gateway of another group than
-- Gateway API's - Istio's networking.istio.io Gateway, another kind of that name -
-- "Gateway.GROUP/name": a Gateway API Gateway someone makes under the name of this run's
-- Istio Gateway is not this run's (harden51 #3).
local function applied_key(kind, api_version, name)
  local group = tostring(api_version or ""):match("^(.+)/[^/]+$")
  if kind == "Gateway" and group and group ~= "gateway.networking.k8s.io" then
    return ("%s.%s/%s"):format(kind, group, tostring(name))
  end
  return kind .. "/" .. tostring(name)
end

-- What the deploy added: of what appeared in the namespace since the snapshot before its
-- first attempt, only what is this run's, told apart by what the tools stamp on it - a
-- release or an object another team made meanwhile in the shared namespace is not
-- recorded (teardown would remove it; the smoke test and benchmark could take its Service
-- for this run's), and that is said. Releases: the deploy's own (deploy.release, the
-- helmfile's as `helmfile list` gives them). HTTPRoutes, Gateways, Services: one helm
-- installed for a release of this run (its meta.helm.sh/release-name; another release's is
-- never this run's, whatever its name), one this run applied with kubectl (named in what
-- it renders: kustomize, -f manifests), or one a controller made for a Gateway of this run
-- (an ownerReference to it, or the gateway-name label).
local function record_added(ctx, x, calls, done, outputs)
  local d = M.deployed(ctx, x)
  if ctx.dry_run then M.snapshot(ctx) return end -- prints the reads it does not make
  if not d.before then return end
  local after = M.snapshot(ctx)
  local own
  local seen = set_of(d.releases)
  local added = minus(after.releases, d.before.releases)
  if calls and #added > 0 then own = deploy_release_names(ctx, calls) end
  for _, n in ipairs(added) do
    if own and not own[n] then
      say(ctx, "  release %s appeared in %s during the deploy but is not one of its releases: not recorded as "
        .. "this run's (teardown leaves it)", n, ctx.ns)
    elseif not seen[n] then
      d.releases[#d.releases + 1] = n
    end
  end
  table.sort(d.releases)
  -- what this run applies by name (kubectl apply -k/-f, as checked before it ran)
  local applied = {}
  for _, o in ipairs(((ctx.rendered or {})[x] or {}).objects or {}) do
    if type(o) == "table" and type(o.kind) == "string" and type(o.metadata) == "table" then
      applied[applied_key(o.kind, o.apiVersion, o.metadata.name)] = true
    end
  end
  -- and what a custom deploy's calls that ran made without a manifest (M.created_by:
  -- kubectl create deployment NAME, expose ...): this run's, deleted by name at teardown
  d.created = d.created or {}
  local have_created = set_of(d.created)
  for _, c in ipairs(done or {}) do
    for _, o in ipairs(M.created_by(c.tool, c.args)) do
      applied[o.kind .. "/" .. o.name] = true
      local key = o.resource .. "/" .. o.name
      if not have_created[key] then
        have_created[key] = true
        d.created[#d.created + 1] = key
        say(ctx, "  %s %s: made by %s of the deploy (kubectl fails when one exists, so this run's): recorded, "
          .. "teardown deletes it", o.kind, o.name, k8s.cmdline { c.tool, c.args[1] })
      end
    end
  end
  -- and what a custom deploy's kubectl apply/create -f (or -k) says it created
  record_applied(ctx, d, outputs or {}, have_created)
  -- each one's identity (apiVersion, kind, metadata.uid), read now, right after the deploy made
  -- it: teardown deletes it only while the name holds that object (M.delete_same)
  d.created_ids = d.created_ids or {}
  for _, key in ipairs(d.created) do
    if not d.created_ids[key] then
      local res, name = key:match("^([^/]+)/(.+)$")
      local o = res and ctx.k:json({ "get", res, name }, { check = false })
      local md = type(o) == "table" and type(o.metadata) == "table" and o.metadata or {}
      if type(md.uid) == "string" and type(o.kind) == "string" then
        d.created_ids[key] = { apiVersion = o.apiVersion, kind = o.kind, uid = md.uid }
      end
    end
  end
  -- (kept: the pods of what it names are this run's - M.chain_resolver)
  local prior = set_of(d.applied)
  d.applied = d.applied or {}
  for k in pairs(applied) do if not prior[k] then d.applied[#d.applied + 1] = k end end
  table.sort(d.applied)
  local releases = set_of(d.releases)
  local KIND = { httproutes = "HTTPRoute", gateways = "Gateway", services = "Service" }
  for _, k in ipairs { "gateways", "httproutes", "services" } do
    local have = set_of(d[k])
    local gateways = set_of(d.gateways)
    for _, n in ipairs(minus(after[k], d.before[k])) do
      local m = ((after.meta or {})[k] or {})[n] or {}
      local for_ours = false -- (made for a Gateway of this run by its controller)
      for _, g in ipairs(m.gateways or {}) do for_ours = for_ours or gateways[g] == true end
      local why
      if m.release then
        if not releases[m.release] or (m.release_ns and m.release_ns ~= ctx.ns) then
          why = ("helm installed it for release %s%s, not one of this run's"):format(m.release,
            (m.release_ns and m.release_ns ~= ctx.ns) and (" of namespace " .. m.release_ns) or "")
        end
      elseif applied[KIND[k] .. "/" .. n] or for_ours then
        why = nil
      else
        why = m.owner and ("it is owned by %s, not of this run"):format(m.owner)
          or "no release of this run's stamped it, this run applied none of that name"
      end
      if why then
        say(ctx, "  %s %s appeared in %s during the deploy but is not this run's (%s): not recorded as this run's "
          .. "(teardown leaves it)", KIND[k], n, ctx.ns, why)
      elseif not have[n] then
        d[k][#d[k] + 1] = n
        have[n] = true
        -- (which object of that name: teardown deletes it only while it is the one there)
        d.uids = d.uids or {}
        d.uids[k] = d.uids[k] or {}
        d.uids[k][n] = ((after.uids or {})[k] or {})[n]
      end
    end
    table.sort(d[k])
  end
end

local function ask_yes(ctx, question)
  if ctx.yes then return true end
  if not ctx.interactive then return false end
  ctx.out:write(question, " [y/N] ")
  ctx.out:flush()
  local line = io.read("l")
  return line ~= nil and line:match("^%s*[yY]") ~= nil
end

-- A teardown command, run and recorded for run_comparison.sh (ctx.teardown_commands[x]):
-- "teardown X WHAT COMMAND" - the script's function that runs it and says what it removed.
-- A command run in a folder (kustomize's, relative to the guide) is written with the
-- folder joined to its path, as the script runs it from anywhere. Each is kept on disk as it
-- runs (M.save_deployed, written atomically and synced): a teardown cut half-way - a command
-- that failed, Ctrl-C - keeps the record of what it had removed, which its resume adds to
-- (the record starts anew at a deploy, not at a teardown). slot: {} whose line is replaced by
-- each call given it (helm uninstall's one line, grown release by release).
local function teardown_call(ctx, x, what, tool, args, opts, slot)
  if not (opts and opts.recorded_only) then ctx.k:call(tool, args, opts) end
  if ctx.dry_run then return end
  local shown = args
  if opts and opts.cwd then
    shown = {}
    for i, a in ipairs(args) do
      shown[i] = (args[i - 1] == "-k" and a:sub(1, 1) ~= "/") and (opts.cwd .. "/" .. a) or a
    end
  end
  ctx.teardown_commands = ctx.teardown_commands or {}
  ctx.teardown_commands[x] = ctx.teardown_commands[x] or {}
  local list = ctx.teardown_commands[x]
  local at = #list + 1
  if slot then
    slot.at = slot.at or at
    at = slot.at
  end
  list[at] = ("teardown %s %s %s"):format(x, k8s.cmdline { what }, k8s.cmdline(ctx.k:argv(tool, shown)))
  M.save_deployed(ctx, x)
end

-- The namespace-wide sweep of the reference procedure (teardown-llm-d): every release,
-- HTTPRoute and Gateway in the namespace, listed and confirmed first. Only with
-- teardown: namespace-wide in the plan.
-- The releases of a snapshot that still have something in the namespace: not one
-- uninstalled with --keep-history (status uninstalled: only its history is left, which
-- helm uninstall would purge). The namespace-wide sweep removes these.
local function live_releases(snap)
  local out = {}
  for _, n in ipairs(snap.releases) do
    if ((snap.release_info or {})[n] or {}).status ~= "uninstalled" then out[#out + 1] = n end
  end
  return out
end

local function teardown_namespace_wide(ctx, x)
  if ctx.dry_run then
    -- nothing was read: no list of what it would remove
    say(ctx, "  teardown: namespace-wide (the plan says so) - would delete every release, HTTPRoute and Gateway "
      .. "found in %s at teardown (not read in a dry run), after confirming the list", ctx.ns)
    M.list_releases(ctx)
    ctx.k:json({ "get", M.ROUTES_GATEWAYS }, { check = false })
    ctx.out:write("[dry-run] would uninstall every release found\n")
    ctx.k:kubectl { "delete", M.GW_RES.HTTPRoute, "--all" }
    ctx.k:kubectl { "delete", M.GW_RES.Gateway, "--all" }
    return M.snapshot_empty()
  end
  local snap = M.snapshot(ctx)
  snap.releases = live_releases(snap)
  local what = ("releases: %s; HTTPRoutes: %s; Gateways: %s"):format(
    #snap.releases > 0 and table.concat(snap.releases, ", ") or "none",
    #snap.httproutes > 0 and table.concat(snap.httproutes, ", ") or "none",
    #snap.gateways > 0 and table.concat(snap.gateways, ", ") or "none")
  say(ctx, "  teardown: namespace-wide (the plan says so) - everything in %s: %s", ctx.ns, what)
  if not ctx.dry_run and not ask_yes(ctx, ("Remove all of this from namespace %s?"):format(ctx.ns)) then
    error(("run %s: the namespace-wide teardown was not confirmed (%s); nothing removed (give --yes to confirm)")
      :format(x, what), 0)
  end
  if #snap.releases > 0 then
    local a = { "uninstall" }
    for _, n in ipairs(snap.releases) do a[#a + 1] = n end
    a[#a + 1] = "--ignore-not-found"
    teardown_call(ctx, x, "every release in the namespace at teardown (teardown: namespace-wide): "
      .. table.concat(snap.releases, ", "), "helm", a)
  end
  teardown_call(ctx, x, "every HTTPRoute in the namespace (teardown: namespace-wide)", "kubectl",
    { "delete", M.GW_RES.HTTPRoute, "--all" })
  teardown_call(ctx, x, "every Gateway in the namespace (teardown: namespace-wide)", "kubectl",
    { "delete", M.GW_RES.Gateway, "--all" })
  return snap
end

-- (a namespace-wide teardown deleted every HTTPRoute and Gateway already)
local function wide_gone(wide, base) return wide and (base == "httproute" or base == "gateway") end

-- The Gateway API kind a resource word names ("httproute", "gateway": the kinds teardown
-- lists and deletes as M.GW_RES), or nil: gateway.networking.istio.io (Istio's Gateway) is
-- another kind, which neither the routes-and-gateways step nor the namespace-wide sweep
-- touches - an object of it this run made is deleted as any other it made (harden51 #3).
local function gw_api_base(res)
  local base, group = tostring(res):match("^([^.]+)%.?(.*)$")
  base = ({ httproutes = "httproute", gateways = "gateway" })[base] or base
  local gw_group = group == "" or group == "gateway.networking.k8s.io"
    or group:match("^v[%w]+%.gateway%.networking%.k8s%.io$") ~= nil
  if (base == "httproute" or base == "gateway") and gw_group then
    return base
  end
end

-- The objects kustomization folder kd (relative to cwd) has in the namespace now, as kubectl
-- get -k reads them: { {kind =, name =, res = (the resource kubectl deletes it by), uid =} },
-- in the folder's order.
function M.kustomize_applied(ctx, kd, cwd)
  local a = { "get", "-k", kd, "--ignore-not-found", "-o", "json" }
  local r = ctx.k:kubectl(a, { read = true, cwd = cwd, check = false })
  local out = {}
  if not r.ok or not (r.stdout or ""):match("%S") then return json.array(out) end
  local v = json.decode(r.stdout, k8s.cmdline(ctx.k:argv("kubectl", a)))
  for _, o in ipairs(type(v) == "table" and (v.kind == "List" and v.items or { v }) or {}) do
    if type(o) == "table" and type(o.kind) == "string" and type(o.metadata) == "table" then
      out[#out + 1] = { kind = o.kind, name = tostring(o.metadata.name), res = resource_of(o), uid = o.metadata.uid,
        apiVersion = o.apiVersion }
    end
  end
  return json.array(out)
end

-- What kustomization folder kd renders today (kubectl kustomize), as "Kind/name" keys; nil
-- and why when it cannot be rendered.
local function kustomize_render_keys(ctx, kd, cwd)
  local r = ctx.k:kubectl({ "kustomize", kd }, { read = true, cwd = cwd, check = false })
  if not r.ok then return nil, ((r.stderr or ""):gsub("%s+$", "")) end
  local ok, docs = pcall(yaml.load_all, r.stdout or "")
  if not ok then return nil, tostring(docs) end
  local keys = {}
  for _, o in ipairs(docs) do
    if type(o) == "table" and type(o.kind) == "string" and type(o.metadata) == "table" then
      keys[#keys + 1] = o.kind .. "/" .. tostring(o.metadata.name)
    end
  end
  table.sort(keys)
  return keys
end

-- Deletes object o (as recorded at deploy: {apiVersion =, kind =, name =, uid =, res = the
-- resource kubectl deletes it by}) held to its uid (M.delete_same); without a uid or a path to
-- send it to (an older record, a kind kubectl api-resources does not list), by name, as
-- before. Recorded for run_comparison.sh by name (`teardown X WHAT kubectl delete RES NAME`):
-- the script deletes what its own deploy made again, under new uids. Returns nil, or the
-- line saying the object there is another (the Conflict: not deleted, said by the caller).
local function teardown_same(ctx, x, what, o)
  local byname = { "delete", o.res, o.name, "--ignore-not-found" }
  local got, now
  if not ctx.dry_run then got, now = M.delete_same(ctx, o) end
  if got == nil and not ctx.dry_run and type(o.uid) == "string" and o.uid ~= "" then
    -- (a uid recorded, but no path to hold the delete to it: said, not silently by name)
    say(ctx, "  %s: deleted by name, without its uid as a precondition (%s)", what, now)
  end
  if got == nil then return teardown_call(ctx, x, what, "kubectl", byname) end
  if got == "other" then
    return ("%s %s is not the one this run made (uid %s; this run's: %s): left: not the object this run created")
      :format(o.kind, o.name, now or "another", o.uid)
  end
  teardown_call(ctx, x, what, "kubectl", byname, { recorded_only = true })
end

-- Teardown of what kustomize folder kd applied (objs: recorded at deploy): exactly those
-- objects, deleted by name - never what the folder renders now (a guide updated since, by a
-- git pull or another branch, would name someone else's). A render that differs is said.
-- Returns the "res name" of each, for the check that they are gone.
local function teardown_kustomize(ctx, x, kd, objs, other)
  local cwd = run_of(ctx, x).deploy.guide_dir
  local rec = {}
  for _, o in ipairs(objs) do rec[#rec + 1] = o.kind .. "/" .. o.name end
  table.sort(rec)
  -- (a dry run reads nothing: the recorded objects' deletes are printed)
  local now, why
  if not ctx.dry_run then now, why = kustomize_render_keys(ctx, kd, cwd) end
  if not ctx.dry_run and not now then
    say(ctx, "  kustomize %s cannot be rendered today (%s): deleting the objects it applied at deploy: %s", kd, why,
      table.concat(rec, ", "))
  elseif now then
    local added, gone = minus(now, rec), minus(rec, now)
    if #added > 0 or #gone > 0 then
      say(ctx, "  kustomize %s renders other objects today than it applied at deploy (now also: %s; no longer: %s): "
        .. "deleting only those it applied: %s", kd, #added > 0 and table.concat(added, ", ") or "none",
        #gone > 0 and table.concat(gone, ", ") or "none", #rec > 0 and table.concat(rec, ", ") or "none")
    end
  end
  local by, order = {}, {}
  for _, o in ipairs(objs) do
    if o.uid and not ctx.dry_run then
      -- (its uid recorded at apply: deleted only while it is that object)
      local line = teardown_same(ctx, x, ("the object kustomize %s applied: %s %s"):format(kd, o.res, o.name), o)
      if line then other(line, o) end
    else
      if not by[o.res] then by[o.res] = {}; order[#order + 1] = o.res end
      by[o.res][#by[o.res] + 1] = o.name
    end
  end
  for _, res in ipairs(order) do
    local a = { "delete", res }
    for _, n in ipairs(by[res]) do a[#a + 1] = n end
    a[#a + 1] = "--ignore-not-found"
    teardown_call(ctx, x, ("the objects kustomize %s applied: %s %s"):format(kd, res, table.concat(by[res], ", ")),
      "kubectl", a)
  end
end

-- Is the object of kind k ("httproutes", "gateways", "services") named n with uid now the
-- one this run recorded (d.uids)? A record without its uid (an older llmdlua's) knows it by
-- name only: yes. (The check only says which to leave; the delete itself is held to the uid
-- too - M.delete_same -, so one made again between this check and the delete is left.)
function M.same_object(d, k, n, now)
  local want = ((d.uids or {})[k] or {})[n]
  return want == nil or now == true or want == now
end

local recover_interrupted -- (below, with the deploy's calls)

local function teardown(ctx, x)
  if not ctx.dry_run then recover_interrupted(ctx, x) end
  local d = M.deployed(ctx, x)
  local wide = ctx.plan.teardown == "namespace-wide"
  local swept
  local not_mine, released = {}, d.releases -- (left: another's of the same name; uninstalled)
  local upgraded = {} -- (this run's releases left because someone else upgraded them since)
  local gone_not = {} -- ("httproutes/NAME": another's of that name, left: not checked gone)
  local had_service = d.baseline_service
  if wide then
    swept = teardown_namespace_wide(ctx, x)
  else
    -- only the releases this run installed, as it left them: one of the same name installed
    -- since (a colleague's, after this one was removed by hand) has another first_deployed
    -- than the one recorded at deploy, and one upgraded (or rolled back) since by someone
    -- else - another chart, other values, another owner - another revision (helm status's
    -- version; it shows no chart - helm strips it -, but any change of chart or values is an
    -- upgrade, a new revision). helm uninstall takes no precondition - no uid, no revision,
    -- nothing like DeleteOptions -, so this stays check-then-act; the window is narrowed to
    -- one release: each is checked right before its own uninstall, not all before one call.
    -- What remains: a reinstall or upgrade by someone else between a release's helm status
    -- and its helm uninstall (the time of one helm call) is uninstalled. kubectl deletes are
    -- held to the uid: M.delete_same.
    local mine = {}
    local by_name = not d.release_ids or ctx.dry_run -- (an older record: by name, as it was made)
    -- (run_comparison.sh's teardown line is one helm uninstall of those uninstalled, as it
    -- was before: the same removal; here each goes in its own call, right after its check)
    local slot = {} -- (that one line, recorded anew as each release goes)
    local function uninstall(names, opts)
      local a = { "uninstall" }
      for _, n in ipairs(names) do a[#a + 1] = n end
      a[#a + 1] = "--ignore-not-found"
      teardown_call(ctx, x, (#names == 1 and "release " or "releases ") .. table.concat(names, ", "), "helm", a, opts,
        slot)
    end
    for _, n in ipairs(d.releases) do
      local want = d.release_ids and d.release_ids[n]
      if by_name then
        mine[#mine + 1] = n
      else
        local id, why = M.release_identity(ctx, n)
        local left
        if id and want and id.first_deployed == want.first_deployed then
          if want.version ~= nil and id.version ~= want.version then
            upgraded[#upgraded + 1] = n
            left = ("release %s was upgraded or rolled back since this run's deploy (revision %s, this run's: %s; "
              .. "first deployed %s): someone else's change of it, left (uninstall it by hand if it is yours: %s)")
              :format(n, tostring(id.version), tostring(want.version), id.first_deployed,
                k8s.cmdline(ctx.k:argv("helm", { "uninstall", n })))
          else
            ctx.k:call("helm", { "uninstall", n, "--ignore-not-found" })
            mine[#mine + 1] = n
            uninstall(mine, { recorded_only = true }) -- (on disk before the next is checked)
          end
        elseif id then
          left = ("release %s is not the release this run installed (first deployed %s, revision %s; this run's: "
            .. "%s): left"):format(n, id.first_deployed, tostring(id.version), want and ("first deployed "
            .. want.first_deployed) or want == false and "none of that name was there after its deploy"
            or "not recorded at its deploy")
        elseif why ~= "not found" then
          left = ("release %s: cannot tell whether it is the one this run installed (%s): left"):format(n, why)
        end
        if left then
          not_mine[#not_mine + 1] = left
          say(ctx, "  %s", left)
        end
      end
    end
    released = mine
    if by_name and #mine > 0 then
      uninstall(mine)
    elseif ctx.dry_run and d.attempted then
      -- a dry run deploys nothing, so which releases are the run's is not known
      ctx.out:write("[dry-run] would uninstall the releases this run deployed (not known in a dry run)\n")
    elseif ctx.dry_run then
      -- refused before its first deploy command (or none recorded): a real run uninstalls nothing
      ctx.out:write("[dry-run] no release to uninstall: no deploy command of this run would have run\n")
    end
    -- routes and gateways the run created outside its releases (helm removed its own):
    -- those still there
    if (#d.httproutes > 0 or #d.gateways > 0) and not ctx.dry_run then
      local still = { HTTPRoute = {}, Gateway = {} }
      local o = ctx.k:json({ "get", M.ROUTES_GATEWAYS }, { check = false })
      local api = {} -- (each one's apiVersion: Istio's Gateway kind is in another group)
      for _, it in ipairs(o and o.items or {}) do
        if still[it.kind] then
          still[it.kind][it.metadata.name] = it.metadata.uid or true
          api[it.kind .. "/" .. it.metadata.name] = it.apiVersion
        end
      end
      for _, kind in ipairs { "HTTPRoute", "Gateway" } do
        local a = { "delete", M.GW_RES[kind] }
        local k = kind == "HTTPRoute" and "httproutes" or "gateways"
        for _, n in ipairs(d[k]) do
          local want = ((d.uids or {})[k] or {})[n]
          if still[kind][n] and M.same_object(d, k, n, still[kind][n]) and want then
            -- (its uid recorded: the delete is held to it, so one made again since the read
            -- above is not deleted either)
            local line = teardown_same(ctx, x, ("%s %s"):format(kind, n), { kind = kind, name = n, uid = want,
              res = M.GW_RES[kind], apiVersion = api[kind .. "/" .. n] })
            if line then
              not_mine[#not_mine + 1] = line
              say(ctx, "  %s", line)
              gone_not[k .. "/" .. n] = true
            end
          elseif still[kind][n] and M.same_object(d, k, n, still[kind][n]) then
            a[#a + 1] = n
          elseif still[kind][n] then
            -- another object under the name (made since this run's was removed): not this run's
            local line = ("%s %s is not the one this run made (uid %s; this run's: %s): left"):format(kind, n,
              tostring(still[kind][n]), tostring(d.uids[k][n]))
            not_mine[#not_mine + 1] = line
            say(ctx, "  %s", line)
            gone_not[k .. "/" .. n] = true
          end
        end
        if #a > 2 then
          a[#a + 1] = "--ignore-not-found"
          teardown_call(ctx, x, ("%s %s"):format(kind, table.concat(a, ", ", 3)), "kubectl", a)
        end
      end
    end
  end
  for _, dir in ipairs(d.kustomize or {}) do
    local objs = (d.kustomize_objects or {})[dir]
    if objs then
      teardown_kustomize(ctx, x, dir, objs, function(line, o)
        not_mine[#not_mine + 1] = line
        say(ctx, "  %s", line)
        gone_not["kustomize/" .. dir .. "/" .. o.res .. "/" .. o.name] = true
      end)
    else
      -- (a record of an older llmdlua, without the objects applied: the folder as it is now)
      teardown_call(ctx, x, "the objects of kustomize " .. dir, "kubectl",
        { "delete", "-k", dir, "--ignore-not-found" }, { cwd = run_of(ctx, x).deploy.guide_dir })
    end
  end
  local deleted = {}
  for _, key in ipairs(d.created or {}) do
    local res, name = key:match("^([^/]+)/(.+)$")
    local base = gw_api_base(res)
    -- (a Gateway API HTTPRoute or Gateway it applied: deleted with the routes and gateways
    -- above; an Istio Gateway is not one of those)
    if not ((base == "httproute" and set_of(d.httproutes)[name]) or (base == "gateway" and set_of(d.gateways)[name]))
      and not wide_gone(wide, base) then
      -- (its uid read when the deploy made it: deleted only while it is that object; a record
      -- without one - an older llmdlua's - by name)
      local id = (d.created_ids or {})[key] or {}
      local line = teardown_same(ctx, x, ("%s %s (made by the deploy's kubectl)"):format(res, name),
        { apiVersion = id.apiVersion, kind = id.kind, name = name, uid = id.uid, res = res })
      if line then
        not_mine[#not_mine + 1] = line
        say(ctx, "  %s", line)
      else
        deleted[#deleted + 1] = key
      end
    else
      deleted[#deleted + 1] = key
    end
  end
  if d.baseline_service then
    local now = not ctx.dry_run and ctx.k:json({ "get", "svc", M.BASELINE_SVC }, { check = false })
    local uid = type(now) == "table" and type(now.metadata) == "table" and now.metadata.uid
    local line
    if uid and not M.same_object(d, "services", M.BASELINE_SVC, uid) then
      line = ("Service %s is not the one this run made (uid %s; this run's: %s): left"):format(M.BASELINE_SVC,
        uid, tostring(d.uids.services[M.BASELINE_SVC]))
    else
      -- (held to its uid at the delete: one made again since the read above stays)
      line = teardown_same(ctx, x, "Service " .. M.BASELINE_SVC, { apiVersion = "v1", kind = "Service",
        name = M.BASELINE_SVC, res = "service", uid = ((d.uids or {}).services or {})[M.BASELINE_SVC] })
    end
    if line then
      not_mine[#not_mine + 1] = line
      say(ctx, "  %s", line)
      gone_not["services/" .. M.BASELINE_SVC] = true
    end
  end
  if ctx.dry_run then return "dry run" end
  -- verify: nothing this run deployed is left (and, swept, nothing at all)
  local now = M.snapshot(ctx)
  local left = {}
  local gone = wide and { releases = live_releases(now), httproutes = now.httproutes, gateways = now.gateways }
    or { releases = released, httproutes = d.httproutes, gateways = d.gateways }
  for _, k in ipairs { "releases", "httproutes", "gateways" } do
    local still = set_of(now[k])
    for _, n in ipairs(gone[k]) do
      if still[n] and not gone_not[k .. "/" .. n] then left[#left + 1] = k:gsub("s$", "") .. " " .. n end
    end
  end
  local before_pods = set_of(d.before and d.before.pods)
  local before_owners = set_of(d.before and d.before.owners)
  -- (once recorded, only pods of this run's controllers: not another team's started since)
  local mine = set_of(d.pod_owners)
  local mine_uid = set_of(d.pod_owner_uids)
  -- (never ready, so none recorded: not those whose chain of owners is another's)
  local chain = not next(mine) and chain_known(d) and M.chain_resolver(ctx, d)
  -- (the pods of a release left as someone else's upgrade of it are left with it: said above)
  local of_upgraded = #upgraded > 0 and M.chain_resolver(ctx, { releases = upgraded, applied = {} })
  for _, p in ipairs(now.pod_objs or {}) do
    local n = p.metadata.name
    if not before_pods[n] and not before_owners[now.pod_owner[n]] then
      local ours
      -- (by the controller's uid where recorded: a ReplicaSet of this one's name made since
      -- - another team's Deployment of the same name - is not this run's)
      if next(mine_uid) then ours = mine_uid[now.pod_owner_uid[n] or ""]
      elseif next(mine) then ours = mine[now.pod_owner[n]]
      elseif chain then ours = chain(p) ~= "theirs"
      -- (a run that deployed nothing - stopped before its deploy's first command, which
      -- records what was there first - has no pod: another team's are not its leftovers)
      elseif not d.before and #(d.releases or {}) == 0 and #(d.applied or {}) == 0 then ours = false
      else ours = true end
      if ours and of_upgraded and of_upgraded(p) == "ours" then ours = false end
      if ours then left[#left + 1] = "pod " .. n end
    end
  end
  -- (and each object a kustomization applied, as recorded: not what it renders now)
  for _, dir in ipairs(d.kustomize or {}) do
    for _, o in ipairs((d.kustomize_objects or {})[dir] or {}) do
      local r = gone_not["kustomize/" .. dir .. "/" .. o.res .. "/" .. o.name] and { ok = true, stdout = "" }
        or ctx.k:kubectl({ "get", o.res, o.name, "--ignore-not-found", "-o", "name" },
        { read = true, check = false })
      -- (gone: nothing printed; a NotFound too, should a kubectl not honour --ignore-not-found)
      local absent = (r.ok and not (r.stdout or ""):match("%S")) or (r.stderr or ""):find("(NotFound)", 1, true)
      if not absent then
        left[#left + 1] = ("%s %s (kustomize %s)"):format(o.kind, o.name, dir)
      end
    end
  end
  if d.baseline_service and set_of(now.services)[M.BASELINE_SVC] and not gone_not["services/" .. M.BASELINE_SVC] then
    left[#left + 1] = "service " .. M.BASELINE_SVC
  end
  if #left > 0 then
    error(("run %s: teardown left %s in %s"):format(x, table.concat(left, ", "), ctx.ns), 0)
  end
  d.torn_down = true
  d.created = {} -- (deleted: a later teardown must not delete another's of the same name)
  d.baseline_service = false
  M.save_deployed(ctx, x)
  local msg
  if wide then
    msg = ("namespace-wide: uninstalled %d release(s)%s, deleted every HTTPRoute and Gateway; "
      .. "PVCs and namespace %s kept"):format(#swept.releases,
      #swept.releases > 0 and (" (" .. table.concat(swept.releases, ", ") .. ")") or "", ctx.ns)
  else
    local kept = #minus(now.releases, released)
    -- (each folder with the objects it applied, as recorded)
    local function kustomize_text(rec)
      local out = {}
      for _, dir in ipairs(rec.kustomize) do
        local objs = (rec.kustomize_objects or {})[dir]
        local keys = {}
        for _, o in ipairs(objs or {}) do keys[#keys + 1] = o.kind .. "/" .. o.name end
        out[#out + 1] = objs and ("%s (%s)"):format(dir, #keys > 0 and table.concat(keys, ", ") or "none found")
          or dir
      end
      return table.concat(out, ", ")
    end
    local function removed(k)
      local out = {}
      for _, n in ipairs(d[k]) do if not gone_not[k .. "/" .. n] then out[#out + 1] = n end end
      return #out > 0 and table.concat(out, ", ") or "none"
    end
    msg = ("removed what this run deployed (releases: %s; routes: %s; gateways: %s; kustomize: %s%s); verified gone; "
      .. "%d other release(s), PVCs and namespace %s kept"):format(
      #released > 0 and table.concat(released, ", ") or "none", removed("httproutes"), removed("gateways"),
      #d.kustomize > 0 and kustomize_text(d) or "none",
      (had_service and not gone_not["services/" .. M.BASELINE_SVC]) and ("; service: " .. M.BASELINE_SVC) or "", kept,
      ctx.ns)
  end
  if #deleted > 0 then msg = msg .. ("; deleted what its kubectl made: %s"):format(table.concat(deleted, ", ")) end
  if #(d.left or {}) > 0 then
    msg = msg .. ("; left (not this run's, or not known to be): %s"):format(table.concat(d.left, "; "))
  end
  if #not_mine > 0 then msg = msg .. "; " .. table.concat(not_mine, "; ") end
  -- said as well as recorded: the user sees what was removed, and what stays
  say(ctx, "  %s", msg)
  return msg
end

-- Does a custom deploy (deploy.commands) pass the values override's file to a command
-- (an argument with ${VALUES_OVERRIDE})? Without it a values override changes nothing.
function M.custom_reads_override(d)
  for _, c in ipairs(type(d.commands) == "table" and d.commands or {}) do
    if type(c) == "table" then
      for j = 2, #c do
        if tostring(c[j]):find("${VALUES_OVERRIDE}", 1, true) then return true end
      end
    end
  end
  return false
end

-- The calls a run's deploy makes, in order: { tool =, args =, opts = } (the values
-- override is written first: the deploy, and a render of it, read the file).
local function deploy_calls(ctx, x)
  local d = run_of(ctx, x).deploy
  local dir = rdir(ctx, x) .. "/deploy"
  ws.mkdir_p(dir)
  local override
  local reads = d.method == "custom" and M.custom_reads_override(d)
  if d.values_override ~= nil or reads then
    -- customisations go to a new file in the workspace, never into the guide's files (an
    -- empty mapping when custom commands read it and there is no override)
    override = dir .. "/values-override.yaml"
    if override:sub(1, 1) ~= "/" then override = lfs.currentdir() .. "/" .. override end
    ws.write_text(override, yaml.dump(d.values_override or {}))
  end
  local out = {}
  local function add(tool, a, opts)
    opts = opts or {}
    opts.cwd = d.guide_dir
    opts.allow_hooks = d.helmfile_hooks == "allow" or nil -- (helmfile's own hooks: README, "helmfile hooks")
    out[#out + 1] = { tool = tool, args = a, opts = opts }
  end
  if d.method == "helmfile" then
    local a = { "apply" }
    local env = d.environment or (type(d.environments) == "table" and d.environments[1]) or d.environments
    if env then a[#a + 1] = "-e"; a[#a + 1] = env end
    if override then a[#a + 1] = "--state-values-file"; a[#a + 1] = override end
    -- a chart's crds/ are cluster-wide: the cluster admin installs CRDs (README, "Charts")
    a[#a + 1] = "--skip-crds"
    add("helmfile", a)
  elseif d.method == "helm" then
    local a = { "upgrade", "--install", d.release, d.chart }
    for _, v in ipairs(d.values or {}) do a[#a + 1] = "-f"; a[#a + 1] = v end
    if override then a[#a + 1] = "-f"; a[#a + 1] = override end
    if d.chart_version then a[#a + 1] = "--version"; a[#a + 1] = tostring(d.chart_version) end
    local keys = {}
    for k in pairs(d.set or {}) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local flag, arg = M.helm_set_arg(k, d.set[k])
      a[#a + 1] = flag; a[#a + 1] = arg
    end
    a[#a + 1] = "--skip-crds"
    add("helm", a)
  else
    for _, c in ipairs(d.commands) do
      local a = {}
      -- ${VALUES_OVERRIDE}: the values override's file (README: method: custom)
      for i = 2, #c do a[#a + 1] = (tostring(c[i]):gsub("%${VALUES_OVERRIDE}", function() return override end)) end
      add(c[1], a, { user = true })
    end
  end
  if d.kustomize then
    for _, kd in ipairs(type(d.kustomize) == "table" and d.kustomize or { d.kustomize }) do
      add("kubectl", { "apply", "-k", kd }, { kustomize = kd })
    end
  end
  return out
end

-- Every check of every command a run's deploy would make (the rules of llmd.k8s, the
-- manifests of -f files, kustomizations and charts rendered), all before the first of
-- them runs - and in a dry run too, where the renders (reads) run: a dry run refuses
-- what the real run would. Once per run and context.
function M.check_deploy(ctx, x)
  ctx.deploy_checked = ctx.deploy_checked or {}
  if ctx.deploy_checked[x] then return end
  -- what the deploy would create, as far as its manifests and renders tell (ctx.rendered[x]:
  -- objects, and the calls that create what no render shows), for the dry run's smoke test
  local seen = { objects = {}, unknown = {} }
  local function add(objs) for _, o in ipairs(objs) do seen.objects[#seen.objects + 1] = o end end
  for _, c in ipairs(deploy_calls(ctx, x)) do
    -- (a --dry-run call is checked as any other, but what it names is not made: not this
    -- run's by name, not a Service the smoke test could use)
    local ok, err = pcall(ctx.k.preflight, ctx.k, c.tool, c.args, { user = c.opts.user, cwd = c.opts.cwd,
      allow_hooks = c.opts.allow_hooks, seen = not M.simulates(c.tool, c.args) and add or nil })
    if not ok then
      error(("run %s (%s): %s; nothing of this run was deployed"):format(x, run_of(ctx, x).label, tostring(err)), 0)
    end
    local why = M.unrendered(c.tool, c.args)
    if why then seen.unknown[#seen.unknown + 1] = why end
  end
  ctx.rendered = ctx.rendered or {}
  ctx.rendered[x] = seen
  ctx.deploy_checked[x] = true
end

-- Does a deploy call create objects that no manifest or render shows beforehand? "kubectl
-- expose ..." and the like: a string saying which; nil for a chart's install (rendered), an
-- apply of manifests (read), and calls that create nothing.
function M.unrendered(tool, args)
  if tool == "helm" or tool == "helmfile" then return nil end -- (installs are rendered; the rest make nothing)
  local ok, p = pcall(k8s.parse, tool, args)
  if not ok then return nil end -- (refused by the preflight already)
  local verb = p.words[1]
  if verb == "apply" or verb == "create" or verb == "replace" then
    for _, f in ipairs(p.flags) do
      if f.name == "filename" or f.name == "kustomize" then return nil end
    end
  elseif verb ~= "expose" and verb ~= "run" then
    return nil
  end
  return ("%s %s (not from manifests)"):format(tool, k8s.cmdline(args))
end

-- The releases a helmfile deploy (its apply call, args) would change, as helmfile itself
-- lists them: `helmfile list --output json --skip-charts` with the apply's own state flags
-- (environment, state values), where the apply runs. helmfile reads its state files and
-- calls no helm for it, so nothing in the cluster is read or changed. Returns
-- { {name =, installed =} } for the releases in this namespace that helmfile would act on
-- (installed: false is one apply removes; a release whose condition is off is left alone).
function M.helmfile_releases(ctx, args, cwd, allow_hooks)
  local a = { "list" }
  for i = 2, #args do
    if args[i] ~= "--skip-crds" then a[#a + 1] = args[i] end
  end
  a[#a + 1] = "--output"
  a[#a + 1] = "json"
  a[#a + 1] = "--skip-charts"
  local r = ctx.k:helmfile(a, { cwd = cwd, read = true, allow_hooks = allow_hooks })
  local what = k8s.cmdline(ctx.k:argv("helmfile", a))
  local ok, list = pcall(json.decode, r.stdout, what)
  if not ok or type(list) ~= "table" then
    error(("%s: expected helmfile's JSON list of releases, got %s"):format(what,
      ok and type(list) or tostring(list)), 0)
  end
  local out = {}
  for _, it in ipairs(list) do
    if type(it) == "table" and type(it.name) == "string" and it.enabled ~= false
      and (it.namespace == nil or it.namespace == "" or it.namespace == ctx.ns) then
      out[#out + 1] = { name = it.name, installed = it.installed ~= false }
    end
  end
  return out
end

-- The records of what the workspace at w deployed: a comparison's run-a and run-b, an
-- experiment's setup treatments' stacks (setup-treatment-S/run-stack/deployed.json). Each
-- {rel = its path under w, what = whose stack it is, said, down = the command that tears it
-- down, go_on = the one that goes on with it}; none for a folder that is neither.
local function deploy_records(w)
  local out = {}
  if lfs.attributes(w .. "/steps.json", "mode") == "file" and lfs.attributes(w .. "/run-a", "mode") == "directory" then
    for _, x in ipairs { "a", "b" } do
      out[#out + 1] = { rel = ("run-%s/deployed.json"):format(x),
        what = ("run %s of the comparison %s"):format(x:upper(), w),
        down = M.resume_command(w, { "--step", "90" }), go_on = M.resume_command(w), kind = "comparison" }
    end
  elseif ws.kind(w) == "experiment" then
    -- (its teardown step alone, 60, as experiment.lua says it; the experiment file is the copy
    -- its workspace keeps)
    local function cmd(extra)
      local argv = { "llmdlua", "experiment.lua", w .. "/experiment.yaml", "--resume", w }
      if M.records_no_cluster(w) then argv[#argv + 1] = "--use-current-context" end
      for _, a in ipairs(extra or {}) do argv[#argv + 1] = a end
      return k8s.cmdline(argv)
    end
    local cells = {}
    for e in lfs.dir(w) do
      if e:match("^setup%-treatment%-") and lfs.attributes(w .. "/" .. e, "mode") == "directory" then
        cells[#cells + 1] = e
      end
    end
    table.sort(cells)
    for _, e in ipairs(cells) do
      out[#out + 1] = { rel = e .. "/run-stack/deployed.json",
        what = ("setup treatment %s of the experiment %s"):format(e:match("^setup%-treatment%-(.*)$"), w),
        down = cmd { "--step", "60" }, go_on = cmd(), kind = "experiment" }
    end
  end
  return out
end

-- The workspace beside this one (in the same parent folder: a comparison's, or an
-- experiment's, whose setup treatments each deploy a stack) that deployed the releases names
-- (the ones in the namespace now: helm status's first_deployed, as recorded in its
-- deployed.json's release_ids, not torn down since): {path =, what =, rel =, down =, go_on =,
-- names = {...}, interrupted = when its deploy started, when it was killed before recording}, or
-- nil. An interrupted comparison or experiment (killed mid-setup) leaves its stack deployed; a
-- fresh --plan run after it is refused at step 20, and the user is told whose stack it is and
-- how to remove it (newuser52; experiments: harden55 #2). This run's own workspace is left out:
-- a comparison's, or the experiment's whose setup treatment this is.
function M.interrupted_owner(ctx, names)
  local here = ctx.ws and ctx.ws.path
  if not here or #names == 0 then return nil end
  here = here:gsub("/+$", "")
  -- (an experiment's setup treatment: its workspace is the experiment's)
  local up = here:match("^(.*)/[^/]+$")
  if up and (here:match("[^/]+$") or ""):match("^setup%-treatment%-") and ws.kind(up) == "experiment" then here = up end
  local parent = here:match("^(.*)/[^/]+$")
  if not parent or lfs.attributes(parent, "mode") ~= "directory" then return nil end
  local ids = {}
  for _, n in ipairs(names) do ids[n] = M.release_identity(ctx, n) or false end
  local found
  local entries = {}
  for e in lfs.dir(parent) do entries[#entries + 1] = e end
  table.sort(entries)
  for _, e in ipairs(entries) do
    local w = parent .. "/" .. e
    for _, rec in ipairs((e ~= "." and e ~= ".." and w ~= here) and deploy_records(w) or {}) do
      local ok, d = pcall(json.read, w .. "/" .. rec.rel)
      local function take(mine, interrupted)
        if #mine > 0 and (not found or #mine > #found.names) then
          found = { path = w, what = rec.what, rel = rec.rel, down = rec.down, go_on = rec.go_on, kind = rec.kind,
            names = mine, interrupted = interrupted }
        end
      end
      if ok and type(d) == "table" and d.torn_down ~= true and type(d.release_ids) == "table" then
        local mine = {}
        for _, n in ipairs(names) do
          local want = d.release_ids[n]
          if ids[n] and type(want) == "table" and want.first_deployed == ids[n].first_deployed then
            mine[#mine + 1] = n
          end
        end
        take(mine)
      end
      -- (its deploy interrupted before it recorded what it made - kill -9 -: the releases not
      -- there before it, first deployed since it started and not upgraded, as its teardown
      -- tells them: M.recover_interrupted)
      local dep = ok and type(d) == "table" and d.torn_down ~= true and type(d.deploying) == "table"
        and type(d.deploying.started) == "string" and type(d.before) == "table" and d.deploying.started
      if dep then
        local before, mine = set_of(type(d.before.releases) == "table" and d.before.releases or {}), {}
        for _, n in ipairs(names) do
          local id = ids[n]
          if id and not before[n] and k8s.made_since(id.first_deployed, dep) == "after"
            and (id.version == nil or id.version == 1) then
            mine[#mine + 1] = n
          end
        end
        take(mine, dep)
      end
    end
  end
  return found
end

-- A deploy never changes a release that was in the namespace before this run first
-- deployed (someone else's, or one left by another comparison): upgrading it would change
-- that stack, and this run's teardown could not give it back. Raises one line naming the
-- releases and the namespace; nothing of the run has run yet.
local function refuse_foreign_releases(ctx, x, d, calls, rec, snap)
  if ctx.dry_run or not snap then return end -- (a dry run reads nothing of the namespace)
  local ours, before = set_of(rec.releases), set_of(snap.releases)
  local info = snap.release_info or {}
  local function described(n, verb)
    local h = info[n]
    local said = h and ("%s, %s, revision %s"):format(tostring(h.chart), tostring(h.status), tostring(h.revision))
    return ("%s (%s%s)"):format(n, said and (said .. "; ") or "", verb)
  end
  local theirs, names = {}, {}
  if d.method == "helm" then
    if before[d.release] and not ours[d.release] then
      theirs[1] = described(d.release, "helm upgrade would change it")
      names[1] = d.release
    end
  elseif d.method == "helmfile" then
    local any = false
    for n in pairs(before) do if not ours[n] then any = true end end
    if not any then return end -- (nothing there before that is not this run's: no list needed)
    for _, c in ipairs(calls) do
      if c.tool == "helmfile" then
        for _, r in ipairs(M.helmfile_releases(ctx, c.args, c.opts.cwd, c.opts.allow_hooks)) do
          if before[r.name] and not ours[r.name] then
            -- (apply diffs first and upgrades a release only where the helmfile's differs from
            -- it: "would upgrade it" alone was untrue of one the same, mend54 #6)
            theirs[#theirs + 1] = described(r.name, r.installed and "helmfile apply would upgrade it wherever this "
              .. "helmfile's release differs from it" or "installed: false, so helmfile apply would uninstall it")
            names[#names + 1] = r.name
          end
        end
      end
    end
  end
  if #theirs == 0 then return end
  -- (helm upgrade makes a new revision whatever differs; helmfile apply changes only what does)
  local change = d.method == "helm" and "would change" or "may change"
  -- (this comparison's other run, still deployed, installed them: named as its own)
  for _, o in ipairs(other_runs_up(ctx, x)) do
    local its = set_of(o.d.releases)
    local all = true
    for _, n in ipairs(names) do all = all and its[n] == true end
    if all then
      error(("run %s: %s %s already %s in namespace %s: %s installed %s and is still deployed because %s; deploying "
        .. "run %s %s run %s's stack; %s; nothing of this run was deployed"):format(x,
        #theirs == 1 and "release" or "releases", table.concat(theirs, ", "), #theirs == 1 and "exists" or "exist",
        ctx.ns, o.said, #theirs == 1 and "it" or "them", o.why, tostring(x):upper(), change, tostring(o.y):upper(),
        o.fix), 0)
    end
  end
  local fix = d.method == "helm" and "pick another deploy.release"
    or "rename the release in the helmfile (or remove it from the namespace first, if it is yours)"
  -- (left deployed by an interrupted comparison beside this one: named, with its teardown)
  local owner = M.interrupted_owner(ctx, names)
  if owner then
    error(("run %s: %s %s already %s in namespace %s: %s the stack %s deployed and has not "
      .. "torn down (%s); deploying %s it; "
      .. "tear it down with %s (or go on with that %s: %s); nothing of this run was deployed")
      :format(x,
      #theirs == 1 and "release" or "releases", table.concat(theirs, ", "), #theirs == 1 and "exists" or "exist",
      ctx.ns, #owner.names == #theirs and (#theirs == 1 and "it is" or "they are")
      or ("of them, " .. table.concat(owner.names, ", ") .. (#owner.names == 1 and " is" or " are")),
      owner.what, owner.interrupted and ("its %s records its deploy starting at "
        .. "%s, stopped before it recorded what it made: a kill -9 or a crash"):format(owner.rel, owner.interrupted)
        or ("recorded in its %s: it stopped before its teardown"):format(owner.rel),
      change, owner.down, owner.kind, owner.go_on), 0)
  end
  error(("run %s: %s %s already %s in namespace %s and %s not deployed by this comparison: deploying %s "
    .. "someone else's stack and teardown could not remove it; %s; nothing of this run was deployed"):format(x,
    #theirs == 1 and "release" or "releases", table.concat(theirs, ", "), #theirs == 1 and "exists" or "exist",
    ctx.ns, #theirs == 1 and "was" or "were", change, fix), 0)
end

-- The labels of the pods a rendered object makes (a Deployment's, StatefulSet's, Job's pod
-- template; a LeaderWorkerSet's leader and worker templates; a Pod's own): a list of tables.
local function template_labels(o)
  local out = {}
  local function add(t)
    local md = type(t) == "table" and type(t.metadata) == "table" and t.metadata or nil
    if md and type(md.labels) == "table" then out[#out + 1] = md.labels end
  end
  local spec = type(o.spec) == "table" and o.spec or {}
  if o.kind == "Pod" then add(o)
  elseif o.kind == "LeaderWorkerSet" then
    local lw = type(spec.leaderWorkerTemplate) == "table" and spec.leaderWorkerTemplate or {}
    add(lw.leaderTemplate)
    add(lw.workerTemplate)
  else
    add(spec.template)
  end
  return out
end

-- Another team's serving pods that this run's would not be told from, found before the first
-- deploy (newuser52: they were refused only at step 40, "no selector picks this run's alone",
-- or at the pool's endpoint check, after the whole deploy and wait). From what the deploy's
-- renders show (ctx.rendered[x], M.check_deploy): a baseline run's serving pods' labels - the
-- ones all its serving pod templates share, step 40's Service selector at best - and each
-- InferencePool's selector. Every pod there before the first deploy is another stack's: one
-- (not finished) that carries all of either is refused with one line naming them; nothing of
-- this run was deployed. Renders that show none of these check nothing.
local function refuse_foreign_serving(ctx, x)
  if ctx.dry_run then return end
  local objs = ((ctx.rendered or {})[x] or {}).objects or {}
  local checks = {}
  if run_of(ctx, x).baseline then
    local shared
    for _, o in ipairs(objs) do
      if type(o) == "table" then
        for _, l in ipairs(template_labels(o)) do
          if l[M.SERVING_LABEL] == "true" then
            if not shared then
              shared = {}
              for k, v in pairs(l) do if type(v) ~= "table" then shared[k] = tostring(v) end end
            else
              for k, v in pairs(shared) do if tostring(l[k]) ~= v then shared[k] = nil end end
            end
          end
        end
      end
    end
    if shared then checks[#checks + 1] = { sel = shared, what = "the labels this run's serving pods share" } end
  end
  for _, o in ipairs(objs) do
    if type(o) == "table" and o.kind == "InferencePool" and type(o.spec) == "table" then
      local sel = o.spec.selector
      if type(sel) == "table" and type(sel.matchLabels) == "table" then sel = sel.matchLabels end
      local flat = {}
      for k, v in pairs(type(sel) == "table" and sel or {}) do
        if type(k) == "string" and type(v) ~= "table" then flat[k] = tostring(v) end
      end
      if next(flat) then
        checks[#checks + 1] = { sel = flat, what = ("the selector of this run's InferencePool %s"):format(
          tostring((o.metadata or {}).name)) }
      end
    end
  end
  if #checks == 0 then return end
  local there = pods(ctx, M.SERVING_LABEL .. "=true")
  for _, c in ipairs(checks) do
    local keys, clash = {}, {}
    for k in pairs(c.sel) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, p in ipairs(there) do
      local l = type(p.metadata) == "table" and type(p.metadata.labels) == "table" and p.metadata.labels or {}
      local phase = (p.status or {}).phase
      local match = phase ~= "Succeeded" and phase ~= "Failed"
      for _, k in ipairs(keys) do match = match and tostring(l[k]) == c.sel[k] end
      if match then clash[#clash + 1] = tostring(p.metadata.name) end
    end
    if #clash > 0 then
      table.sort(clash)
      local parts = {}
      for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. c.sel[k] end
      -- (the pods of this comparison's other run, still deployed, named as its own)
      local others, of_run, rest = other_runs_up(ctx, x), {}, {}
      local preds = {}
      for _, o in ipairs(others) do preds[#preds + 1] = { o = o, foreign = foreign_of(ctx, o.d) } end
      local by_name = {}
      for _, p in ipairs(there) do by_name[tostring(p.metadata.name)] = p end
      for _, n in ipairs(clash) do
        local whose
        for _, q in ipairs(preds) do
          if not whose and by_name[n] and not q.foreign(by_name[n]) then whose = q.o end
        end
        if whose then
          of_run[whose] = of_run[whose] or {}
          table.insert(of_run[whose], n)
        else
          rest[#rest + 1] = n
        end
      end
      local whose_pods, fixes = {}, {}
      for _, o in ipairs(others) do
        if of_run[o] then
          whose_pods[#whose_pods + 1] = ("the serving pods of %s in %s (%s), still deployed because %s,"):format(
            o.said, ctx.ns, table.concat(of_run[o], ", "), o.why)
          fixes[#fixes + 1] = o.fix
        end
      end
      if #whose_pods > 0 then
        if #rest > 0 then
          whose_pods[#whose_pods + 1] = ("another stack's serving pods in %s (%s),"):format(ctx.ns,
            table.concat(rest, ", "))
          fixes[#fixes + 1] = "give this run's model servers a label of their own, or use a namespace of its own"
        end
        error(("run %s: %s carry %s (%s): no selector would pick this run's pods alone, so its Service or gateway "
          .. "would send requests to theirs; %s; nothing of this run was deployed"):format(x,
          table.concat(whose_pods, " and "), c.what, table.concat(parts, ","), table.concat(fixes, "; ")), 0)
      end
      error(("run %s: another stack's serving pods in %s (%s) carry %s (%s): no selector would pick this run's pods "
        .. "alone, so its Service or gateway would send requests to theirs; give this run's model servers a label of "
        .. "their own, or use a namespace of its own; nothing of this run was deployed"):format(x, ctx.ns,
        table.concat(clash, ", "), c.what, table.concat(parts, ",")), 0)
    end
  end
end

-- A kustomization the deploy applies that names an object already in the namespace (someone
-- else's ConfigMap, Deployment, Service of the same name): `kubectl apply -k` would change
-- it, and teardown's `kubectl delete -k` deletes by name every object the kustomization
-- names, so it would go too. Refused before the run's first deploy, with one line naming
-- them (a folder this run applied already, on a later attempt, is its own).
local function refuse_foreign_kustomize(ctx, x, calls, rec)
  if ctx.dry_run then return end
  local applied = set_of(rec.kustomize)
  for _, c in ipairs(calls) do
    local kd = c.opts.kustomize
    if kd and not applied[kd] then
      local a = { "get", "-k", kd, "--ignore-not-found", "-o", "json" }
      local r = ctx.k:kubectl(a, { read = true, cwd = c.opts.cwd })
      local there = {}
      if r.stdout:match("%S") then
        local v = json.decode(r.stdout, k8s.cmdline(ctx.k:argv("kubectl", a)))
        for _, o in ipairs(type(v) == "table" and (v.kind == "List" and v.items or { v }) or {}) do
          if type(o) == "table" and type(o.metadata) == "table" then
            there[#there + 1] = tostring(o.kind) .. "/" .. tostring(o.metadata.name)
          end
        end
      end
      if #there > 0 then
        table.sort(there)
        error(("run %s: kustomize %s names %s already in namespace %s that this comparison did not create: "
          .. "kubectl apply -k would change %s and teardown's kubectl delete -k would delete %s; rename %s in the "
          .. "kustomization (or remove %s from the namespace first, if %s yours); nothing of this run was deployed")
          :format(x, kd, table.concat(there, ", "), ctx.ns, #there == 1 and "it" or "them",
            #there == 1 and "it" or "them", #there == 1 and "it" or "them", #there == 1 and "it" or "them",
            #there == 1 and "it is" or "they are"), 0)
      end
    end
  end
end

-- The objects a deploy call c may create by name: what a
-- custom deploy's kubectl create NAME, expose or autoscale makes (M.created_by), and the
-- objects of the manifests or kustomization a kubectl apply/create -f/-k sends (its preflight's
-- render). Recorded before c runs (d.deploying.pending), so that a kill -9 while it runs, or
-- before the deploy recorded its answer, leaves the teardown able to tell what it made
-- (recover_interrupted: each there then and created since the deploy started). A --dry-run call
-- makes nothing; a PVC is kept at teardown anyway. { {ref =, res =, name =, kind =} }.
local function pending_objects(ctx, c)
  if M.simulates(c.tool, c.args) or (c.tool ~= "kubectl" and c.tool ~= "oc") then return {} end
  local list = {}
  for _, o in ipairs(M.created_by(c.tool, c.args)) do
    list[#list + 1] = { kind = o.kind, res = o.resource, name = o.name }
  end
  local ok, p = pcall(k8s.parse, c.tool, c.args)
  local verb = ok and p.words[1]
  if verb == "apply" or verb == "create" then
    pcall(ctx.k.preflight, ctx.k, c.tool, c.args, { user = c.opts.user, cwd = c.opts.cwd,
      allow_hooks = c.opts.allow_hooks, seen = function(objs)
        for _, ob in ipairs(objs) do
          if type(ob) == "table" and type(ob.kind) == "string" and type(ob.metadata) == "table"
            and ob.metadata.name ~= nil then
            list[#list + 1] = { kind = ob.kind, apiVersion = ob.apiVersion, res = resource_of(ob),
              name = tostring(ob.metadata.name) }
          end
        end
      end })
  end
  -- (no read of the namespace here: teardown holds each to having been created since the
  -- deploy started, which one there before - someone else's, or one apply -f only configures
  -- - was not; the commands the run sends stay those the plan asks for)
  local out, seen = {}, {}
  for _, o in ipairs(list) do
    local ref = o.res .. "/" .. o.name
    if not seen[ref] and not DEPLOY_KEPT[o.res:match("^[^.]+")] then
      seen[ref] = true
      out[#out + 1] = { ref = ref, res = o.res, name = o.name, kind = o.kind, apiVersion = o.apiVersion }
    end
  end
  return out
end

-- A deploy interrupted while a command of it ran (kill -9, a crash, a lost machine: no
-- Lua code ran after it) left deployed.json saying that it started (d.deploying, with the
-- time, kept before the command ran) but not what it made. Before a teardown, the releases
-- it made are told as a finished deploy tells them (record_added: not in the namespace
-- before the deploy, and among those its commands install), and held to more, since no
-- answer of the command was seen: first deployed after the deploy started (k8s.made_since:
-- one too close to the start to tell which came first is not known as this run's) and never
-- upgraded since (revision 1). Each is said; one that fails a test is left, with why and the
-- command that removes it. Recorded with its identity, as after a deploy.
recover_interrupted = function(ctx, x)
  local d = M.deployed(ctx, x)
  if type(d.deploying) ~= "table" or not d.before or existing(ctx, x) then return end
  local ok, calls = pcall(deploy_calls, ctx, x)
  if not ok then
    say(ctx, "  run %s: its deploy was interrupted before it recorded what it made, and the plan's deploy cannot "
      .. "be read to tell which releases are its own (%s): none recorded", x, tostring(calls))
    return
  end
  local started = d.deploying.started
  local now = M.snapshot(ctx)
  local own = deploy_release_names(ctx, calls) or {}
  local have = set_of(d.releases)
  local rejected = {}
  for _, n in ipairs(minus(now.releases, d.before.releases)) do
    if own[n] and not have[n] then
      local id, why = M.release_identity(ctx, n)
      local since = id and k8s.made_since(id.first_deployed, started)
      local uninstall = k8s.cmdline(ctx.k:argv("helm", { "uninstall", n }))
      if not id then
        rejected[#rejected + 1] = n
        say(ctx, "  release %s: cannot tell whether this run's interrupted deploy installed it (%s): left", n, why)
      elseif since == "same" and (id.version == nil or id.version == 1) then
        -- (first deployed within the span of the deploy's start as the two records tell it:
        -- someone else's installed then is as likely; left, and the user told how to remove it)
        rejected[#rejected + 1] = n
        say(ctx, "  release %s: cannot tell whether this run's interrupted deploy installed it: its deploy was "
          .. "interrupted before it recorded what it made, and the release was first deployed %s, too close to when "
          .. "that deploy started (%s) to tell which came first: left (uninstall it by hand if it is yours: %s)", n,
          id.first_deployed, started, uninstall)
      elseif since ~= "after" or (id.version ~= nil and id.version ~= 1) then
        rejected[#rejected + 1] = n
        say(ctx, "  release %s is not known as this run's: its deploy was interrupted before it recorded what it "
          .. "made, and the release was %s: left (uninstall it by hand if it is yours: %s)", n,
          since ~= "after" and ("first deployed %s, not after that deploy started (%s)"):format(id.first_deployed,
            started) or ("upgraded since (revision %s)"):format(tostring(id.version)), uninstall)
      else
        say(ctx, "  release %s: installed by this run's deploy, which was interrupted (%s) before it recorded it: "
          .. "not in %s before it, first deployed %s, after it started, and not upgraded since: recorded as this "
          .. "run's", n, started, ctx.ns, id.first_deployed)
      end
    end
  end
  -- (record_added with the rejected ones counted as there before: neither they nor what helm
  -- made for them are this run's)
  local before = d.before
  local b = {}
  for k, v in pairs(before) do b[k] = v end
  b.releases = {}
  for _, n in ipairs(before.releases or {}) do b.releases[#b.releases + 1] = n end
  for _, n in ipairs(rejected) do b.releases[#b.releases + 1] = n end
  d.before = b
  local rok, rerr = pcall(record_added, ctx, x, calls, nil, nil)
  d.before = before
  if rok then rok, rerr = pcall(record_release_ids, ctx, d) end
  if not rok then error(rerr, 0) end
  -- the objects its calls were to create by name (pending_objects): one there now, created
  -- after the deploy started (k8s.made_since: the API server records creationTimestamp to the
  -- second, so one created in the second the deploy started may be someone else's made just
  -- before it), is this run's, held to the uid read now as one the deploy recorded
  -- (M.delete_same at teardown); one created earlier, in that same second, or unreadable, is
  -- left, and the user told the command that deletes it
  d.created = d.created or {}
  d.created_ids = d.created_ids or {}
  d.applied = d.applied or {}
  local have_created, have_applied = set_of(d.created), set_of(d.applied)
  for _, p in ipairs(type(d.deploying.pending) == "table" and d.deploying.pending or {}) do
    if type(p) == "table" and type(p.ref) == "string" and not have_created[p.ref] then
      local o, r = ctx.k:json({ "get", p.res, p.name }, { check = false })
      local md = type(o) == "table" and type(o.metadata) == "table" and o.metadata or nil
      local kind = type(o) == "table" and o.kind or p.kind
      if not md then
        if not ((r and r.stderr or ""):find("(NotFound)", 1, true)) then
          say(ctx, "  %s %s: cannot tell whether this run's interrupted deploy made it (%s): left", tostring(kind),
            p.name, ((r and r.stderr or "unreadable"):gsub("%s+$", "")))
        end
      elseif type(md.uid) == "string" and k8s.made_since(md.creationTimestamp, started) == "after" then
        have_created[p.ref] = true
        d.created[#d.created + 1] = p.ref
        d.created_ids[p.ref] = { apiVersion = o.apiVersion, kind = o.kind, uid = md.uid }
        local key = applied_key(kind, o.apiVersion, p.name)
        if not have_applied[key] then have_applied[key] = true; d.applied[#d.applied + 1] = key end
        say(ctx, "  %s %s: made by this run's deploy, which was interrupted (%s) before it recorded it: named by "
          .. "its commands, created %s, after it started: recorded as this run's, teardown deletes it",
          tostring(kind), p.name, started, tostring(md.creationTimestamp))
      elseif type(md.uid) == "string" and k8s.made_since(md.creationTimestamp, started) == "same" then
        say(ctx, "  %s %s: cannot tell whether this run's interrupted deploy made it: its deploy was interrupted "
          .. "before it recorded what it made, and it was created %s, in the second that deploy started (%s; the API "
          .. "server records creation to the second), so someone else's made just before it is as likely: left "
          .. "(delete it by hand if it is yours: %s)", tostring(kind), p.name, tostring(md.creationTimestamp), started,
          k8s.cmdline(ctx.k:argv("kubectl", { "delete", p.res, p.name })))
      else
        say(ctx, "  %s %s is not known as this run's: its deploy was interrupted before it recorded what it made, "
          .. "and it was created %s, not after that deploy started (%s): left (delete it by hand if it is yours: %s)",
          tostring(kind), p.name, tostring(md.creationTimestamp or "at a time the cluster does not say"), started,
          k8s.cmdline(ctx.k:argv("kubectl", { "delete", p.res, p.name })))
      end
    end
  end
  table.sort(d.applied)
  -- (its pods told by their chain of owners - M.chain_resolver -, even where none of its
  -- releases or objects is known as this run's: another's are not its leftovers)
  d.recovered = started
  d.deploying = nil
  M.save_deployed(ctx, x)
end

local function deploy(ctx, x)
  local d = run_of(ctx, x).deploy
  -- checked before anything of it runs (before the snapshot too: a refusal leaves no trace)
  M.check_deploy(ctx, x)
  local calls = deploy_calls(ctx, x)
  local rec = M.deployed(ctx, x)
  -- what was there before the run's first deploy attempt (kept across attempts and resumes);
  -- a release there that is not this run's is refused first, so a refused run records
  -- nothing (nothing of it is left to tear down)
  if not rec.before and not ctx.dry_run then
    local before = M.snapshot(ctx)
    refuse_foreign_releases(ctx, x, d, calls, rec, before)
    refuse_foreign_kustomize(ctx, x, calls, rec)
    refuse_foreign_serving(ctx, x)
    rec.before = before
    M.save_deployed(ctx, x)
  elseif ctx.dry_run then
    M.snapshot(ctx) -- prints the reads it does not make
  else
    refuse_foreign_releases(ctx, x, d, calls, rec, rec.before)
  end
  rec.torn_down = false
  rec.recovered = nil -- (this deploy records what it makes)
  rec.pod_owners, rec.pod_owner_uids = nil, nil -- (recorded anew once this deploy's stack is ready)
  -- (the teardown record is of this deploy's stack: a teardown cut half-way and resumed adds to it)
  if ctx.teardown_commands and not ctx.dry_run then ctx.teardown_commands[x] = nil end
  local done, outputs = {}, {}
  local ok, err = pcall(function()
    local seen = set_of(rec.kustomize)
    for _, c in ipairs(calls) do
      local cm = cmds(ctx, x)
      cm[#cm + 1] = ("(cd %s && %s)"):format(k8s.cmdline { d.guide_dir or "." },
        k8s.cmdline(ctx.k:argv(c.tool, c.args)))
      -- and how it ran, for run_comparison.sh's deploy() (llmd.comparison)
      rec.deploy_commands = rec.deploy_commands or {}
      local known = false
      for _, e in ipairs(rec.deploy_commands) do known = known or e.command == cm[#cm] end
      if not known then
        rec.deploy_commands[#rec.deploy_commands + 1] = { command = cm[#cm], dir = d.guide_dir or ".",
          argv = json.array(ctx.k:argv(c.tool, c.args)) }
      end
      -- from here a real run may have deployed something (a dry run's teardown says so)
      rec.attempted = true
      -- kept on disk before the command runs: a kill -9 (or a crash, a lost machine) while it
      -- runs leaves a record that it started and when, so that the teardown of this workspace
      -- can still tell the releases it installed (M.recover_interrupted); without it, the
      -- record said nothing was deployed, the teardown could remove nothing and a fresh run
      -- called the stack someone else's
      if not ctx.dry_run then
        -- (to the microsecond: helm's first_deployed, to the nanosecond, is then told after or
        -- before it; an object's creationTimestamp, to the second, in the same second is neither)
        rec.deploying = rec.deploying or { started = k8s.utc_now() }
        -- and which objects it may create by name (harden55 #1): kept with it
        local pend = pending_objects(ctx, c)
        if #pend > 0 then
          local list = type(rec.deploying.pending) == "table" and rec.deploying.pending or {}
          local have = {}
          for _, e in ipairs(list) do if type(e) == "table" then have[e.ref] = true end end
          for _, e in ipairs(pend) do
            if not have[e.ref] then list[#list + 1] = e end
          end
          rec.deploying.pending = list
        end
        M.save_deployed(ctx, x)
      end
      ctx.k:call(c.tool, c.args, { cwd = c.opts.cwd, user = c.opts.user, allow_hooks = c.opts.allow_hooks,
        result = function(r) outputs[#outputs + 1] = { call = c, r = r } end })
      done[#done + 1] = c
      local kd = c.opts.kustomize
      if kd and not seen[kd] then rec.kustomize[#rec.kustomize + 1] = kd; seen[kd] = true end
      -- what it applied, read right after (the same files): teardown deletes exactly these,
      -- not what the folder renders by then
      if kd and not ctx.dry_run then
        rec.kustomize_objects = rec.kustomize_objects or {}
        rec.kustomize_objects[kd] = M.kustomize_applied(ctx, kd, c.opts.cwd)
      end
    end
  end)
  -- also after a deploy that failed half-way: what it did add is recorded for teardown
  local rok, rerr = pcall(record_added, ctx, x, calls, done, outputs)
  if rok then rok, rerr = pcall(record_release_ids, ctx, rec) end
  if rok then rec.deploying = nil end -- (what it made is recorded)
  M.save_deployed(ctx, x)
  if not ok then error(err, 0) end
  if not rok then error(rerr, 0) end
  return ("deployed with %s (new: releases %s; services %s)"):format(d.method,
    #rec.releases > 0 and table.concat(rec.releases, ", ") or "none",
    #rec.services > 0 and table.concat(rec.services, ", ") or "none")
end

function M.steps_list()
  local function fresh_only(ctx, x) return existing(ctx, x) end
  return {
    { number = 0, name = "preflight", description = "tools, namespace, workspace", execute = function(ctx)
      M.check_tools(ctx)
      -- every manifest both runs' deploys would apply, checked before anything is deployed
      -- (a resume checks each deploy as it starts)
      local checked = {}
      if not ctx.resumed and (not ctx.only or ctx.only[20]) then
        for _, x in ipairs { "a", "b" } do
          if ctx.plan.runs[x] and not existing(ctx, x) then
            M.check_deploy(ctx, x)
            checked[#checked + 1] = x:upper()
          end
        end
      end
      return "namespace " .. ctx.ns .. (#checked > 0 and ("; deploy of run " .. table.concat(checked, ", ")
        .. " checked") or "")
    end },
    { number = 10, name = "import", per_stack = true, description = "import a pre-existing run",
      should_skip = function(ctx, x) return not existing(ctx, x) end,
      execute = function(ctx, x)
        local r = run_of(ctx, x)
        say(ctx, "Run %s: %s - importing the existing results from %s", x:upper(), r.label, r.existing.results)
        ws.import(ctx.ws, x, { label = r.label, results = r.existing.results, info = r.info, link = r.existing.link,
          info_where = ("runs.%s.info (or --%s-info)"):format(x, x) })
        return "imported"
      end },
    { number = 20, name = "deploy", per_stack = true, should_skip = fresh_only, execute = function(ctx, x)
      say(ctx, "Starting Run %s: %s - deploying the stack.", x:upper(), run_of(ctx, x).label)
      return deploy(ctx, x)
    end },
    { number = 30, name = "wait_ready", per_stack = true, should_skip = fresh_only, execute = function(ctx, x)
      say(ctx, "Run %s: waiting for the stack to be ready (up to %d s).", x:upper(), ctx.timeouts.ready)
      return wait_ready(ctx, x)
    end },
    { number = 40, name = "baseline_service", per_stack = true,
      should_skip = function(ctx, x) return existing(ctx, x) or not run_of(ctx, x).baseline end,
      execute = function(ctx, x)
        say(ctx, "Run %s: baseline - making sure Service %s exists.", x:upper(), M.BASELINE_SVC)
        return baseline_service(ctx, x)
      end },
    { number = 50, name = "smoke_test", per_stack = true, should_skip = fresh_only, execute = function(ctx, x)
      say(ctx, "Run %s: smoke test through a port-forward.", x:upper())
      return smoke(ctx, x)
    end },
    { number = 60, name = "benchmark", per_stack = true, should_skip = fresh_only, execute = function(ctx, x)
      say(ctx, "Run %s: %s - benchmarking.", x:upper(), run_of(ctx, x).label)
      return benchmark(ctx, x)
    end },
    { number = 70, name = "save_state", per_stack = true, should_skip = fresh_only, execute = function(ctx, x)
      say(ctx, "Run %s: saving the run's state.", x:upper())
      return save_state(ctx, x)
    end },
    { number = 80, name = "collect_logs", per_stack = true, should_skip = fresh_only, execute = function(ctx, x)
      say(ctx, "Run %s: collecting the vLLM logs.", x:upper())
      local ok, msg = pcall(collect_logs, ctx, x)
      if not ok then
        if ctx.plan.teardown_without_logs then return "no logs (teardown allowed by the plan): " .. tostring(msg) end
        error(msg, 0)
      end
      return msg
    end },
    { number = 90, name = "teardown", per_stack = true, should_skip = fresh_only, execute = function(ctx, x)
      if ctx.plan.teardown == "namespace-wide" then
        say(ctx, "Run %s: tearing down every release, HTTPRoute and Gateway in %s (teardown: namespace-wide; PVCs "
          .. "and namespace kept).", x:upper(), ctx.ns)
      else
        say(ctx, "Run %s: tearing down what it deployed (PVCs and namespace kept).", x:upper())
      end
      return teardown(ctx, x)
    end },
    { number = 100, name = "report", description = "the comparison report", execute = function(ctx)
      if ctx.dry_run then return "dry run: no report" end
      -- both runs checked first: "Writing the comparison report." is said only for a report
      -- that can be written, and a failure after it says the report was not written
      for _, x in ipairs { "a", "b" } do
        local f = ctx.failed[x]
        if f then
          error(("run %s (%s) failed at step %d (%s): nothing to compare until it completes; no report written")
            :format(x, run_of(ctx, x).label, f.number, f.name), 0)
        end
        if lfs.attributes(ws.run_dir(ctx.ws, x) .. "/run_state.json", "mode") ~= "file" then
          error(("run %s (%s) did not complete, so there is nothing to compare yet; no report written")
            :format(x, run_of(ctx, x).label), 0)
        end
      end
      say(ctx, "Writing the comparison report.")
      -- (what is on disk before: a failure then says whether the report there is this attempt's)
      local before = cmp.report_snapshot(ctx.ws.path)
      local ok, model = pcall(function()
        local sides = {}
        for _, x in ipairs { "a", "b" } do
          local state = ws.read_state(ctx.ws.path, x)
          -- (the SLO the run is held to, recorded again: --resume may give another --slo)
          record_slo(ctx, state)
          -- the SLOs: --slo, else the plan's, else the info files' (llmd.comparison.resolve_slo)
          ctx.slo = ctx.slo or ctx.opts_slo
            or (ctx.plan.slo and require("llmd.decision").parse_slo(ctx.plan.slo, "plan: slo"))
          sides[x] = cmp.extract_side(ctx.ws, x, state, { require_results = true,
            harness = (state.extract_options or {}).harness, slo = ctx.slo })
          cmp.save_run(ctx.ws, sides[x])
        end
        return cmp.report(ctx.ws, sides.a, sides.b, { commands = ctx.commands, config_text = ctx.config_text,
          bench_commands = ctx.bench_command, teardown_commands = ctx.teardown_commands,
          namespace = ctx.ns, pvc = ctx.pvc or ctx.plan.benchmark_pvc, gateway_svc = ctx.gateway_svc, slo = ctx.slo,
          min_effect = ctx.opts_min_effect })
      end)
      if not ok then
        if tostring(model):match("interrupted$") then error(model, 0) end
        error(cmp.report_failure(ctx.ws.path, before, tostring(model)), 0)
      end
      ctx.model = model
      -- a chart gnuplot failed to draw: the report is written without it, and says why
      for _, f in ipairs(model.chart_failures or {}) do
        say(ctx, "Warning: %s", f)
        io.stderr:write("compare.lua: warning: ", f, "\n")
      end
      ws.mark_complete(ctx.ws)
      return model.path
    end },
  }
end

-- The namespace lock ------------------------------------------------------------------
--
-- Two runs in one namespace (two hosts, two workspaces) deploy over each other's releases,
-- benchmark one stack twice at once and tear it down under each other (two experiments
-- started at once both passed the check of the releases there before either deployed). A
-- run holds its namespace by a ConfigMap M.NS_LOCK made there with `kubectl create`, which
-- the API server makes only if none is there (AlreadyExists: taken): its data says who
-- (host, pid, workspace, script, started) and a random token, so that only its maker ever
-- deletes it. Never a cluster-wide object; every call -n NS, as every other.
M.NS_LOCK = "llmdlua-lock"

-- The first line of a file, trimmed, or nil.
local function first_line(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local l = f:read("l")
  f:close()
  return l and l:match("^%s*(.-)%s*$")
end

-- A process's start (field 22 of /proc/PID/stat: clock ticks after boot), or nil when no
-- such process is visible here. With the pid it names one process of one boot: a pid used
-- again by another process has another start. Second: its state (field 3; "Z" a zombie,
-- which has ended and holds nothing, waiting to be reaped).
local function start_of(pid)
  local rest = (first_line(("/proc/%s/stat"):format(pid)) or ""):match("^.*%) (.*)$")
  if not rest then return nil end
  local i, state = 2, nil
  for tok in rest:gmatch("%S+") do
    i = i + 1
    if i == 3 then state = tok end
    if i == 22 then return tok, state end
  end
end

-- Where this process runs, beyond the host name: the machine (/etc/machine-id: two machines
-- of one cloud image share a host name), its boot, its PID namespace (a container, an
-- `unshare -p`: a live holder there is not in this /proc), and this process's start. A lock
-- holder is taken for gone only where all match (audit48 S5: a run in another PID namespace
-- of the same host name lost its lock to a take-over while it ran).
local function identity()
  return { machine = first_line("/etc/machine-id") or "", boot = first_line("/proc/sys/kernel/random/boot_id") or "",
    pidns = lfs.symlinkattributes("/proc/self/ns/pid", "target") or "", pstart = start_of("self") or "" }
end
M._identity, M._start_of = identity, start_of

-- The command that releases namespace ns's lock by hand (its holder gone elsewhere).
function M.ns_unlock_command(ns, bins)
  return k8s.cmdline { (bins or {}).kubectl or "kubectl", "delete", "configmap", M.NS_LOCK, "-n", ns }
end

-- Takes the namespace of k (a llmd.k8s client) for workspace path, by script; loud: where a
-- take-over is said. A lock left on this host by a process that is gone is taken over (said);
-- one held by another is refused: raises one line naming the namespace, the holder and the
-- command that releases it if that holder is gone. Returns the lock (for M.unlock_namespace).
--
-- A take-over replaces the dead holder's ConfigMap with this run's (`kubectl replace -f -`)
-- on the condition that it is still the one read: its resourceVersion is sent with it, and
-- the API server refuses the write (Conflict) once anything wrote the object since. Two
-- take-overs of one dead holder at once (both read it) thus have one winner; the other
-- reads again and finds the winner, alive, and is refused. (A delete and a create would let
-- both through: the second's delete removes the first's new lock.)
function M.lock_namespace(k, path, script, loud)
  local ns, host, token, me = k.ns, ws.hostname(), random_token(), identity()
  local data = { host = host, pid = tostring(ws.PID), workspace = tostring(path), script = script,
    started = os.date("!%Y-%m-%dT%H:%M:%SZ"), token = token, machine = me.machine, boot = me.boot, pidns = me.pidns,
    pstart = me.pstart }
  local args = { "create", "configmap", M.NS_LOCK }
  for _, key in ipairs { "host", "pid", "workspace", "script", "started", "token", "machine", "boot", "pidns",
    "pstart" } do
    args[#args + 1] = ("--from-literal=%s=%s"):format(key, data[key])
  end
  local release = M.ns_unlock_command(ns, k.bins)
  -- (the cause first, on one line, then the command up to its first --from-literal: the whole
  -- of it, with the lock's ten literals, ran to ~800 characters before the cause, newuser50c N6)
  local function failed(a, r)
    local argv, short = k:argv("kubectl", a), {}
    for _, w in ipairs(argv) do
      if tostring(w):match("^%-%-from%-literal") then short[#short + 1] = "..." break end
      short[#short + 1] = w
    end
    local cause = ((r.stderr or "") .. tostring(r.stdout or "")):gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")
    local line = k8s.cmdline(short):gsub(" '%.%.%.'$", " ...")
    error(("namespace %s: cannot take its lock (ConfigMap %s): %s (%s: %s)"):format(ns, M.NS_LOCK,
      cause ~= "" and cause or "no output", line, exitstatus.text(r)), 0)
  end
  for attempt = 1, 3 do
    local r = k:kubectl(args, { check = false })
    if r.ok then return { k = k, ns = ns, token = token } end
    if not ((r.stderr or "") .. tostring(r.stdout or "")):find("already exists", 1, true) then failed(args, r) end
    local cm = k:json({ "get", "configmap", M.NS_LOCK }, { check = false })
    local d = type(cm) == "table" and type(cm.data) == "table" and cm.data or nil
    -- (made or taken over by this very call, whose answer was lost to a transient error)
    if d and d.token == token then return { k = k, ns = ns, token = token } end
    if d then
      local pid = tostring(d.pid or "")
      local version = type(cm.metadata) == "table" and cm.metadata.resourceVersion
      -- the same host, machine, boot and PID namespace (a lock of an llmdlua that recorded only
      -- the host: the host), and no process of that pid and start there
      local here = d.host == host and (d.machine == nil or (d.machine == me.machine and d.boot == me.boot
        and d.pidns == me.pidns))
      -- (a zombie, state Z - or X, dead - has ended: it holds nothing and never goes on, it
      -- only waits for its parent to reap it; taken for alive, its lock was waited on for as
      -- long as the parent lived, fixc53)
      local start, pstate
      if pid:match("^%d+$") then start, pstate = start_of(pid) end
      local same = start and (d.pstart == nil or d.pstart == "" or d.pstart == start)
      local zombie = same and (pstate == "Z" or pstate == "X")
      local alive = same and not zombie
      local gone = here and pid:match("^%d+$") and pid ~= tostring(ws.PID) and not alive and version and version ~= ""
      if not gone or attempt == 3 then
        error(("namespace %s is in use by another llmdlua run (%s, host %s, pid %s, workspace %s, started %s; "
          .. "ConfigMap %s): two runs in one namespace deploy over and tear down each other's stacks; wait for it to "
          .. "end, or if that run is gone (crashed, another host), release the namespace with: %s"):format(ns,
          tostring(d.script or "?"), tostring(d.host or "?"), pid ~= "" and pid or "?", tostring(d.workspace or "?"),
          tostring(d.started or "?"), M.NS_LOCK, release), 0)
      end
      local replace = { "replace", "-f", "-" }
      local rr = k:kubectl(replace, { check = false, conflict = true, stdin = json.encode { apiVersion = "v1",
        kind = "ConfigMap", metadata = { name = M.NS_LOCK, resourceVersion = version }, data = data } })
      if rr.ok then
        loud:write(("Namespace %s: its lock (ConfigMap %s) was left by llmdlua pid %s on this host (%s, workspace %s), "
          .. "which is no longer running%s: taken over\n"):format(ns, M.NS_LOCK, pid, tostring(d.script or "?"),
          tostring(d.workspace or "?"),
          zombie and " (it has exited: a zombie process its parent has not reaped)" or ""))
        return { k = k, ns = ns, token = token }
      end
      -- (written since it was read - another take-over won, or it was released - or gone:
      -- read again; anything else is said)
      local said = (rr.stderr or "") .. tostring(rr.stdout or "")
      if not (said:find("(Conflict)", 1, true) or said:find("(NotFound)", 1, true)) then failed(replace, rr) end
    elseif cm ~= nil or attempt == 3 then
      -- (there, but without holder data: not one llmdlua made, or made by hand)
      error(("namespace %s: a ConfigMap %s is there without an llmdlua holder's data; if no llmdlua run uses the "
        .. "namespace, delete it: %s"):format(ns, M.NS_LOCK, release), 0)
    end
    -- (gone meanwhile, or taken over by another: tried again)
  end
end

-- Lets go of a lock M.lock_namespace took: its ConfigMap deleted only while it still holds
-- this run's token (never another's, which took it over or made it by hand). Returns
-- nothing; a failure is said on loud (the lock is then left: the command releases it).
--
-- Read, then deleted on the condition that it is still the object read: `kubectl delete
-- TYPE NAME` sends no precondition (kubectl's own help: the delete does no resource version
-- check), so a lock deleted and made again by another run, or taken over, between the read
-- and the delete would go. The DELETE is sent raw instead (`kubectl delete --raw
-- /api/v1/namespaces/NS/configmaps/NAME -f -`, the only --raw llmd.k8s lets through), its
-- body DeleteOptions whose preconditions are the uid and resourceVersion read: the API
-- server refuses (Conflict) once the object is another (a new uid) or written since (a new
-- resourceVersion). Refused, it is read again: another's now is left alone; gone is done.
function M.unlock_namespace(lock, loud)
  if not lock or lock.released then return end
  lock.released = true
  local k = lock.k
  local path = ("/api/v1/namespaces/%s/configmaps/%s"):format(lock.ns, M.NS_LOCK)
  local ok, err = pcall(function()
    for _ = 1, 3 do
      local cm = k:json({ "get", "configmap", M.NS_LOCK }, { check = false })
      local d = type(cm) == "table" and type(cm.data) == "table" and cm.data or {}
      if d.token ~= lock.token then return end
      local md = type(cm.metadata) == "table" and cm.metadata or {}
      local pre = {}
      if type(md.uid) == "string" and md.uid ~= "" then pre.uid = md.uid end
      if type(md.resourceVersion) == "string" and md.resourceVersion ~= "" then
        pre.resourceVersion = md.resourceVersion
      end
      -- (read without its uid: nothing to hold the delete to that object, so it is not made)
      if not pre.uid then error("its ConfigMap as read has no uid", 0) end
      local r = k:kubectl({ "delete", "--raw", path, "-f", "-" }, { check = false, conflict = true, raw_uid = pre.uid,
        stdin = json.encode { apiVersion = "v1", kind = "DeleteOptions", preconditions = pre } })
      if r.ok then return end
      local said = ((r.stderr or "") .. tostring(r.stdout or "")):gsub("%s+$", "")
      -- (gone meanwhile - released by hand -, or this very delete's answer lost and sent again)
      if said:find("(NotFound)", 1, true) then return end
      if not said:find("(Conflict)", 1, true) then error(said, 0) end
      -- (written or made again since the read: read again)
    end
    error("it changed at every try (three reads)", 0)
  end)
  if not ok and loud then
    loud:write(("warning: namespace %s: could not release its lock (ConfigMap %s): %s; release it with: %s\n")
      :format(lock.ns, M.NS_LOCK, tostring(err), M.ns_unlock_command(lock.ns, k.bins)))
  end
end

-- Where --quiet's progress lines go: nowhere (experiment_run's too).
local QUIET = { write = function(self) return self end, flush = function(self) return self end }
M.QUIET = QUIET

-- Runs the plan. opts: namespace, dry_run, yes, only (step set), resume (workspace path),
-- out, quiet (no progress lines: a failed step, what was saved and how to go on are still
-- said, on out as ctx.loud; a dry run's commands are its output, so it prints them).
-- Returns true when every step succeeded.
function M.run(plan, opts)
  opts = opts or {}
  local out = opts.out or io.stdout
  local progress = (opts.quiet and not opts.dry_run) and QUIET or out
  local bins = M.tool_bins(plan)
  local interactive = not opts.yes and proc.run({ "test", "-t", "0" }, { stdin = { inherit = true } }).ok
  local w, ns, saved, made
  if opts.resume then
    w = ws.open(opts.resume, { resume = true })
    -- the namespace (and kube context) the comparison was made in: a resume never guesses
    local where = w.path .. "/cluster.json"
    if lfs.attributes(where, "mode") == "file" then
      saved = json.read(where)
      ns = saved.namespace
      if opts.namespace and opts.namespace ~= ns then
        error(("--namespace %s: %s was made in namespace %s (recorded in %s); a resume always uses it")
          :format(opts.namespace, w.path, ns, where), 0)
      end
    elseif opts.namespace then
      ns = opts.namespace
      local bad = M.bad_name(ns)
      if bad then error("--namespace: " .. bad, 0) end
    else
      error(("%s: the workspace does not record its namespace; give --namespace (the one it was made in)")
        :format(where), 0)
    end
    if opts.replace_plan then
      -- --plan FILE on resume: it replaces the workspace's copy (validated by the caller);
      -- the earlier one is kept beside it
      local keep = w.path .. os.date("/plan.replaced-%Y%m%d-%H%M%S.yaml")
      local ok, err = os.rename(w.path .. "/plan.yaml", keep)
      if not ok then error(("%s/plan.yaml: cannot keep it as %s: %s"):format(w.path, keep, err), 0) end
      ws.write_text(w.path .. "/plan.yaml", yaml.dump(M.absolute_paths(plan)))
      out:write(("Plan: %s replaces the workspace's plan (the earlier one kept as %s)\n"):format(opts.replace_plan,
        keep))
    end
  else
    -- before anything else: a workspace whose path run_only.sh cannot be handed (its config
    -- is there) is not made, nor anything deployed for it
    local fresh = false
    for _, x in ipairs { "a", "b" } do
      local r = type(plan.runs) == "table" and plan.runs[x]
      if type(r) == "table" and not r.existing then fresh = true end
    end
    local bad = fresh and M.workspace_path_problem(plan.parent or opts.parent or ".",
      plan.parent and "the plan's parent:, or --parent DIR" or "--parent DIR, or parent: in the plan")
    if bad then error(("%s: %s; nothing was made or run"):format(opts.plan_path or "plan", bad), 0) end
    ns = M.resolve_namespace({ namespace = opts.namespace, interactive = interactive }, plan, bins, opts.plan_path)
    if not ns then
      error("no namespace: give --namespace or namespace: in the plan, set $NAMESPACE, or select an OpenShift "
        .. "project", 0)
    end
    if fresh then
      -- (the identity it read is the one the workspace records: M.start asks no second time)
      local id = M.preflight_cluster(plan, bins, ns, opts.plan_path or "plan")
      local o = {}
      for key, v in pairs(opts) do o[key] = v end
      o.preflight_identity = id
      opts = o
    end
    -- marked incomplete until the report step writes the report (analyze.lua refuses it
    -- until then); kept after a failed step, for --resume. A dry run's holds only what the
    -- dry run itself needs (the renders it checks, commands.log) and goes when it ends, with
    -- the parent folders made for it: a dry run leaves nothing behind (M.remove_dry_run).
    local parent = plan.parent or opts.parent or "."
    if opts.dry_run then made = ws.missing_folders(parent) end
    w = ws.create { parent = parent, incomplete = M.INCOMPLETE_TEXT, quiet = opts.dry_run }
    if opts.dry_run then
      out:write(("Workspace: %s (the dry run's, for its renders and commands.log: removed when it ends)\n")
        :format(w.path))
    end
  end
  local t = plan.timeouts or {}
  local ctx
  -- Until the first step starts nothing is deployed and there is nothing to resume: a
  -- failure (or Ctrl-C) here removes the workspace again, as compare.lua --a/--b does.
  local nslock -- the namespace's lock (M.lock_namespace), let go whatever the steps' outcome
  local okset, errset = pcall(function()
    -- (a fresh workspace's before anything is written in it; a resumed one's compare.lua
    -- took before anything else)
    local lok, lerr = ws.lock(w.path, opts.resume and "compare.lua --resume" or "compare.lua --plan")
    if not lok then error(lerr, 0) end
    if not opts.resume then
      ws.write_text(w.path .. "/plan.yaml", yaml.dump(M.absolute_paths(plan)))
      for _, x in ipairs { "a", "b" } do ws.mkdir_p(ws.run_dir(w, x)) end
    end
    ctx = M.start(plan, opts, w, ns, saved, bins, interactive, progress, t, out)
    -- the namespace, before anything there is looked at or deployed (a dry run takes nothing;
    -- two existing runs use no cluster)
    local fresh = false
    for _, x in ipairs { "a", "b" } do
      local r = type(plan.runs) == "table" and plan.runs[x]
      if type(r) == "table" and not r.existing then fresh = true end
    end
    if fresh and not opts.dry_run then
      nslock = M.lock_namespace(ctx.k, w.path, opts.resume and "compare.lua --resume" or "compare.lua --plan",
        ctx.loud)
    end
  end)
  local function unlock(interrupted)
    -- (after a Ctrl-C the lock is still let go: the signal is the error being said; its
    -- kubectl calls run under proc.cleanup, else the interrupt stopped them at once)
    if interrupted then proc.take_interrupt() end
    proc.cleanup(M.unlock_namespace, nslock, out)
  end
  if not okset then
    unlock(tostring(errset):match("interrupted$"))
    if opts.resume then error(errset, 0) end
    local removed, why = ws.remove(w)
    for _, d in ipairs(made or {}) do lfs.rmdir(d) end
    local where = removed and ("the workspace %s was removed"):format(w.path)
      or ("the workspace %s is marked incomplete (could not remove it: %s)"):format(w.path, tostring(why))
    if tostring(errset):match("interrupted$") then error(("interrupted; %s"):format(where), 0) end
    error(("%s (%s)"):format(tostring(errset), where), 0)
  end
  local okr, result = pcall(steps.run, "compare", M.steps_list(), ctx, {
    stacks = { "a", "b" }, only = opts.only, record = w.path .. "/steps.json", resume = opts.resume ~= nil, out = out,
    dry_run = opts.dry_run,
    -- both runs share the namespace: B never starts while A's stack may still be there
    stop_after_failed_stack = true,
    on_failure = function(o)
      if o.stack then ctx.failed[o.stack] = o end
      -- (the step this session's interrupt cut, for M.interrupted_message)
      if tostring(o.message):match("interrupted$") then ctx.cut = o end
    end,
    after_failed_stack = function(x, o) M.salvage_run(ctx, x, o) end,
  })
  ctx.made_folders = made
  if not okr then
    unlock(tostring(result):match("interrupted$"))
    if tostring(result):match("interrupted$") then
      local msg = M.interrupted_message(ctx)
      if ctx.scratch then msg = msg .. "\n" .. M.remove_dry_run(ctx) end
      error(msg, 0)
    end
    if ctx.scratch then out:write(M.remove_dry_run(ctx), "\n") end
    error(result, 0)
  end
  ctx.result = result
  -- (a Ctrl-C here, the report written or not, says what was saved as one during the steps)
  local oks, errs = pcall(M.salvage, ctx, result)
  local stopped = not oks and (tostring(errs):match("interrupted$") or proc.take_interrupt())
  unlock(stopped)
  if not oks then
    local msg = tostring(errs)
    if stopped then msg = M.interrupted_message(ctx) end
    if ctx.scratch then msg = msg .. "\n" .. M.remove_dry_run(ctx) end
    error(msg, 0)
  end
  if ctx.scratch then out:write(M.remove_dry_run(ctx), "\n") end
  return result.ok, ctx
end


-- Removes a fresh dry run's workspace (ctx.scratch) and the parent folders made for it
-- (ctx.made_folders, each only if empty); returns the line that says so, or why not.
function M.remove_dry_run(ctx)
  local removed, why = ws.remove(ctx.ws)
  if not removed then
    return ("Dry run: its workspace %s could not be removed (%s); nothing else was written."):format(ctx.ws.path,
      tostring(why))
  end
  for _, d in ipairs(ctx.made_folders or {}) do lfs.rmdir(d) end
  return ("Dry run: its workspace %s was removed; it leaves nothing behind."):format(ctx.ws.path)
end

-- The INCOMPLETE marker's text in a workspace made from a plan (workspace.open adds how to
-- go on).
M.INCOMPLETE_TEXT = "compare.lua --plan has not finished this comparison: no report yet (a step failed, it was "
  .. "interrupted, it is still running, or it was a dry run)"

-- Which cluster kubectl talks to: { context = the current kube context, server = its API
-- server (`kubectl config view --minify`), or in a pod with no kube context the in-cluster
-- API (KUBERNETES_SERVICE_HOST, as kubectl itself then uses), why = kubectl's words when
-- neither is known }. k: an llmd.k8s client.
function M.identity(k)
  local r = k:kubectl({ "config", "current-context" }, { read = true, check = false })
  local id = { context = r.ok and r.stdout:match("^%s*(%S+)") or nil }
  if id.context then
    local v = k:kubectl({ "config", "view", "--minify", "-o", k8s.SERVER_JSONPATH }, { read = true, check = false })
    id.server = v.ok and v.stdout:match("^%s*(%S+)") or nil
  else
    id.why = ((r.stderr or ""):match("[^\n]*%S[^\n]*") or "no output"):gsub("^%s+", "")
    local host, port = os.getenv("KUBERNETES_SERVICE_HOST"), os.getenv("KUBERNETES_SERVICE_PORT")
    if host and host ~= "" then
      id.server = ("https://%s:%s"):format(host:find(":", 1, true) and ("[" .. host .. "]") or host,
        (port and port ~= "") and port or "443")
      id.in_cluster = true
    end
  end
  return id
end

-- id (M.identity) in words: "kube context prod (server https://...)", "the in-cluster API
-- https://..." or "an unknown cluster".
function M.identity_words(id)
  if id.context then
    return ("kube context %s%s"):format(id.context, id.server and (" (server " .. id.server .. ")") or "")
  elseif id.server then
    return "no kube context, server " .. id.server
  end
  return "an unknown cluster (no kube context)"
end

-- The cluster a workspace runs in (id: M.identity's), recorded in its cluster.json (record:
-- the namespace or namespaces it is made for, with the context and server), for compare.lua and
-- experiment.lua alike. A resumed one (resumed: its cluster.json as saved, {} when none) is
-- refused elsewhere (M.check_identity) unless force (--use-current-context), which records the
-- current cluster from then on, said on loud; a new one records it, and is warned of when it
-- cannot tell which cluster this is (script: the command named in the warning).
function M.record_cluster(path, id, record, resumed, force, loud, script)
  local where = path .. "/cluster.json"
  record.context, record.server = id.context or json.null, id.server or json.null
  if resumed then
    M.check_identity(resumed, id, path, force)
    if force then
      json.write(where, record)
      loud:write(("Cluster: %s, as --use-current-context says (recorded in %s from now on)\n"):format(
        M.identity_words(id), where))
    end
  else
    json.write(where, record)
    if not id.context and not id.server then M.warn_unknown_identity(loud, id, script) end
  end
end

-- The line a new workspace gets when it cannot tell which cluster it is in.
function M.warn_unknown_identity(out, id, script)
  out:write(("Warning: cannot tell which cluster this is (kubectl config current-context: %s; not in a pod): the "
    .. "workspace records no cluster, so a resume or teardown of it is refused unless you add "
    .. "--use-current-context\n"):format(id.why or "no context"))
  -- (on stderr only where there is no kube context: kubectl failing outright, FAKE_CLUSTER
  -- unset or a broken kubeconfig, is not one, and the next kubectl command stops with its
  -- cause on one line; newuser50c N6 had this warning before that line)
  if not tostring(id.why or ""):find("current-context is not set", 1, true) then return end
  io.stderr:write(("%s: warning: no kube context: the workspace records no cluster (a resume will need "
    .. "--use-current-context)\n"):format(script))
end

-- Does the workspace at path record no cluster (its cluster.json names neither a kube
-- context nor an API server: made with no kube context)? Then its resume is refused
-- unless --use-current-context (M.check_identity), which the commands it suggests carry.
function M.records_no_cluster(path)
  local where = path .. "/cluster.json"
  if lfs.attributes(where, "mode") ~= "file" then return false end
  local c = json.read(where)
  return type(c) == "table" and type(c.context) ~= "string" and type(c.server) ~= "string"
end

-- The command that resumes the workspace at path with the words of extra (a list, or
-- nil), as the user types it: with --use-current-context where the workspace records no
-- cluster (else the resume would be refused).
function M.resume_command(path, extra)
  local argv = { "llmdlua", "compare.lua", "--resume", path }
  for _, a in ipairs(extra or {}) do argv[#argv + 1] = a end
  if M.records_no_cluster(path) then argv[#argv + 1] = "--use-current-context" end
  return k8s.cmdline(argv)
end

-- Refuses (raises one line) a resume in a cluster other than the one the workspace at
-- path recorded (saved: cluster.json's context and server), or when either is unknown -
-- unless force (--use-current-context: the user says it is the one).
function M.check_identity(saved, id, path, force)
  local ctx0 = type(saved.context) == "string" and saved.context or nil
  local srv0 = type(saved.server) == "string" and saved.server or nil
  local why
  if ctx0 and id.context ~= ctx0 then
    why = ("was made in kube context %s, the current context is %s"):format(ctx0, tostring(id.context or "unset"))
  elseif srv0 and id.server ~= srv0 then
    why = ("was made with the API server %s, the current one is %s"):format(srv0,
      id.server or ("unknown (" .. (id.why or "no kube context") .. ")"))
  elseif not ctx0 and not srv0 then
    why = ("records no cluster (made with no kube context, or by an llmdlua that did not record it), so a resume "
      .. "could act in another one; the "
      .. "current one is %s"):format(M.identity_words(id))
  end
  if why and not force then
    local hint = ctx0 and ("switch back first (kubectl config use-context %s), or "):format(ctx0) or ""
    error(("%s %s: %sadd --use-current-context if the current one is where it was made")
      :format(path, why, hint), 0)
  end
  return why
end

-- A plan's timeouts where it gives none (seconds; benchmark 0: none).
M.TIMEOUTS = { ready = 900, benchmark = 0, smoke = 120, poll = 5 }

-- The context of a plan's run (ctx) before its first step: the kube context checked
-- against a resumed workspace's, or recorded. out: where progress goes; loud (default out):
-- what is said with --quiet too (warnings, a failure and how to go on), as ctx.loud.
function M.start(plan, opts, w, ns, saved, bins, interactive, out, t, loud)
  local ctx = {
    loud = loud or out,
    plan = plan, ws = w, ns = ns, out = out, t0 = os.time(), dry_run = opts.dry_run, bins = bins,
    timeouts = { ready = t.ready or M.TIMEOUTS.ready, benchmark = t.benchmark or M.TIMEOUTS.benchmark,
      smoke = t.smoke or M.TIMEOUTS.smoke, poll = t.poll or M.TIMEOUTS.poll },
    commands = { a = {}, b = {} }, config_text = {}, deployed = {}, failed = {}, yes = opts.yes,
    interactive = interactive, opts_slo = opts.slo, opts_min_effect = opts.min_effect,
    render_config = opts.render_config, -- (compare.lua: the workload benchmark.workload chooses)
    only = opts.only, resumed = opts.resume ~= nil, scratch = opts.dry_run and not opts.resume,
    k = k8s.new { namespace = ns, log = w.path .. "/commands.log", dry_run = opts.dry_run, bins = bins, out = out,
      backoff = t.backoff or 1.0 },
  }
  -- which cluster: recorded with the namespace; a resume elsewhere, or where the workspace
  -- could not tell, is refused (M.check_identity)
  if not opts.dry_run then
    local id = opts.preflight_identity or M.identity(ctx.k)
    -- (a resumed workspace without cluster.json, --namespace given: it records no cluster)
    M.record_cluster(w.path, id, { namespace = ns }, (saved or opts.resume) and (saved or {}) or nil,
      opts.use_current_context, ctx.loud, "compare.lua")
  end
  if opts.resume then
    -- what the interrupted run had deployed, from its saved state
    for _, x in ipairs { "a", "b" } do M.load_deployed(ctx, x) end
    if not opts.dry_run then M.redeploy_torn_down(ctx, opts.only) end
  end
  out:write(("Namespace: %s%s%s\n"):format(ns, saved and " (recorded in the workspace)" or "",
    opts.dry_run and " (dry run: nothing is changed)" or ""))
  return ctx
end

-- The record a benchmark attempt keeps in run-x/benchmark/ while it runs ({started,
-- experiment, pvc}), removed when its command ends: one there after an interrupt names the
-- results folder the interrupted attempt left on the PVC.
M.BENCH_ATTEMPT = "attempt-running.json"

-- The line naming what the benchmark of run x interrupted in step 60 left on the PVC (its
-- record M.BENCH_ATTEMPT), or nil.
local function interrupted_bench_line(ctx, x)
  local p = rdir(ctx, x) .. "/benchmark/" .. M.BENCH_ATTEMPT
  if lfs.attributes(p, "mode") ~= "file" then return nil end
  local ok, e = pcall(json.read, p)
  if not ok or type(e) ~= "table" or not tonumber(e.started) then return nil end
  local which = type(e.experiment) == "string"
    and ("experiment %s: the folders named *_%s_* in /requests"):format(e.experiment, e.experiment)
    or ("started %s UTC: a folder in /requests named with an id from %d on"):format(
      os.date("!%Y-%m-%d %H:%M:%S", math.tointeger(tonumber(e.started)) or 0), math.tointeger(tonumber(e.started)) or 0)
  return ("On the results PVC %s, the interrupted benchmark's results, if it wrote any (%s), stay: partial, never "
    .. "used by the report; --resume benchmarks run %s anew, copies only the new run's folders and names these"):format(
    tostring(e.pvc or "?"), which, x:upper())
end

-- What Ctrl-C leaves: the real workspace path, what was saved and what was not (nothing
-- is collected after an interrupt: the cluster commands are interrupted too). The step it
-- cut is this session's (ctx.cut, as it failed "interrupted"), never steps.json's last entry:
-- that may be a step which failed for another reason (an interrupt in M.salvage after it), or
-- one an earlier session's interrupt cut.
function M.interrupted_message(ctx)
  local w = ctx.ws.path
  -- after the report step (the workspace complete): nothing to go on with
  if not ctx.dry_run and ws.complete(w) then return cmp.interrupted_complete(w) end
  local last = ctx.cut
  local x = last and last.stack
  local lines = {}
  if last then
    lines[#lines + 1] = ("compare.lua: interrupted during step %d (%s)%s."):format(last.number, last.name,
      x and (" of run " .. x:upper()) or "")
  else
    lines[#lines + 1] = "compare.lua: interrupted."
  end
  local saved = { "steps.json (the steps completed" .. (last and
    ("; step %d recorded as interrupted)"):format(last.number) or ")"), "commands.log", "cluster.json" }
  local missing = {}
  for _, y in ipairs { "a", "b" } do
    local dir = ws.run_dir(ctx.ws, y)
    if lfs.attributes(dir .. "/deployed.json", "mode") == "file" then
      saved[#saved + 1] = ("run-%s/deployed.json (what run %s deployed)"):format(y, y:upper())
    end
    if lfs.attributes(dir .. "/run_state.json", "mode") == "file" then
      saved[#saved + 1] = ("run-%s/run_state.json"):format(y)
    elseif y == x then
      missing[#missing + 1] = ("run %s's state"):format(y:upper())
    end
    if lfs.attributes(dir .. "/results/vllm-logs", "mode") == "directory" then
      saved[#saved + 1] = ("run-%s/results/vllm-logs"):format(y)
    elseif y == x then
      missing[#missing + 1] = ("run %s's vLLM logs"):format(y:upper())
    end
  end
  if ctx.scratch then
    missing = {} -- (a fresh dry run's workspace goes: M.remove_dry_run says so)
  else
    lines[#lines + 1] = ("Saved in %s: %s."):format(w, table.concat(saved, ", "))
  end
  if #missing > 0 then
    lines[#lines + 1] = ("Not saved: %s (nothing is collected after an interrupt: Ctrl-C, SIGTERM or a hang-up, "
      .. "SIGHUP); whatever was "
      .. "deployed is left as it is."):format(table.concat(missing, " and "))
  end
  local left = x and last and last.name == "benchmark" and not ctx.dry_run and interrupted_bench_line(ctx, x)
  if left then lines[#lines + 1] = left .. "." end
  if ctx.dry_run then -- (no step of a dry run ran: its workspace has nothing to resume)
    lines[#lines + 1] = "Run it again, or for real: the same command (without --dry-run)."
  else
    lines[#lines + 1] = "Continue with:               " .. M.resume_command(w)
  end
  lines[#lines + 1] = M.teardown_advice(ctx, "Tear down without going on: ")
  return table.concat(lines, "\n")
end

-- On resume: a run torn down (--resume WS --step 90) before it completed has no stack to
-- benchmark; its steps are reset so it is deployed again first - or, when --step leaves
-- out the deploy but asks for a step that needs the stack, that is refused.
function M.redeploy_torn_down(ctx, only)
  local path = ctx.ws.path .. "/steps.json"
  local record = steps.load_record(path)
  for _, x in ipairs { "a", "b" } do
    local d = ctx.deployed and ctx.deployed[x]
    if d and d.torn_down and not existing(ctx, x) then
      local complete = true
      for _, name in ipairs { "benchmark", "save_state", "collect_logs" } do
        if not steps.done_before(record, "compare", name, x) then complete = false end
      end
      if not complete then
        local needs = false
        for n = 30, 80 do if only and only[n] then needs = true end end
        if only and not only[20] and needs then
          error(("run %s (%s) was torn down before it completed: there is no stack for steps 30-80; resume without "
            .. "--step (it is deployed again first) or include step 20"):format(x, run_of(ctx, x).label), 0)
        end
        if not only or only[20] then
          steps.reset(path, "compare", x, "torn down before it completed: deployed again")
          say(ctx, "Run %s was torn down before it completed: it is deployed again first.", x:upper())
        end
      end
    end
  end
end

-- A line said with --quiet too (ctx.loud: a failure and how to go on are never hidden).
local function tell(ctx, fmt, ...)
  local loud = ctx.loud or ctx.out
  loud:write(("[+%ds] "):format(os.time() - ctx.t0), fmt:format(...), "\n")
  loud:flush()
end

-- After run x's step (outcome o) failed, at once (steps.run's after_failed_stack, before
-- run B or the report step): the run's state and logs are saved (best effort) and the stack
-- is left as it is.
function M.salvage_run(ctx, x, o)
  local d = ctx.deployed and ctx.deployed[x]
  if x and not existing(ctx, x) and o.number < 70 and not ctx.dry_run and not (d and d.before) then
    -- refused before its deploy started (step 0, or step 20's checks): nothing of it runs,
    -- so there are no logs, and nothing is left in place
    local ok1 = pcall(save_state, ctx, x)
    tell(ctx, "Run %s failed at step %d (%s) before anything of it was deployed. State %s; no logs (nothing ran).",
      x:upper(), o.number, o.name, ok1 and "saved" or "not saved")
  elseif x and not existing(ctx, x) and o.number < 70 and not ctx.dry_run then
    local ok1 = pcall(save_state, ctx, x)
    local ok2, msg = pcall(collect_logs, ctx, x)
    -- (why not torn down: a resume goes on from the failed step on the stack as it stands,
    -- and the failure can be looked at where it happened; how to remove it is said below)
    tell(ctx, "Run %s failed at step %d (%s). State %s, logs %s; whatever was deployed is left in place, for "
      .. "--resume to go on from this step without deploying again and for you to look at the failure there "
      .. "(to remove it instead: the teardown command below).",
      x:upper(), o.number,
      o.name, ok1 and "saved" or "not saved", ok2 and "saved" or ("not saved: " .. tostring(msg)))
  end
end

-- Whether either run's deploy started (for real): with nothing left deployed, all it
-- deployed was torn down; else nothing was deployed.
local function deploy_started(ctx)
  for _, x in ipairs { "a", "b" } do
    local d = ctx.deployed and ctx.deployed[x]
    if d and d.before then return true end
  end
  return false
end

-- After the steps, when one failed: how to go on (each failed run's state and logs were
-- saved as it failed, M.salvage_run).
function M.salvage(ctx, result)
  -- (said with --quiet too: ctx.loud)
  local loud = ctx.loud or ctx.out
  if #result.failed > 0 and ctx.dry_run then
    -- no step of a dry run ran: a resume of its workspace would run every one, for real
    loud:write("To run it after fixing the cause: the same command without --dry-run (the dry run's workspace "
      .. "has nothing to resume)\n")
    loud:write(M.teardown_advice(ctx, "To tear down without continuing:  "), "\n")
  elseif #result.failed > 0 then
    loud:write(("To continue after fixing the cause: %s\n"
      .. "  (it uses %s/plan.yaml, the plan as this comparison started; add --plan FILE to replace it)\n"):format(
      M.resume_command(ctx.ws.path), ctx.ws.path))
    -- (a fresh run refused before either run deployed anything: its workspace holds no deploy and
    -- no results, which is said, with how to remove it, newuser52)
    local imported = false
    for _, x in ipairs { "a", "b" } do imported = imported or existing(ctx, x) end
    if not ctx.resumed and not imported and not deploy_started(ctx) then
      loud:write(("  (%s holds nothing deployed or measured yet: it is kept for that --resume; if you do not go "
        .. "on with it, remove it: rm -r %s)\n"):format(ctx.ws.path, k8s.cmdline { ctx.ws.path }))
    end
    loud:write(M.teardown_advice(ctx, "To tear down without continuing:  "), "\n")
  end
end

-- The one line on stderr of a comparison whose steps failed (README: exit 1 is one line on
-- stderr; newuser50 F3: it was on stdout only): the first failed step, its run and the first
-- line of why; the details (what is left deployed, the commands to go on) stay where they are
-- said, on stdout. script: the command's name ("compare.lua").
function M.failure_line(ctx, result, script)
  local o = result.failed[1]
  if not o then return ("%s: the comparison did not complete"):format(script) end
  local why = tostring(o.message):match("^[^\n]*"):gsub("^run %a: ", "")
  local run = o.stack and run_of(ctx, o.stack)
  local who = o.stack and ("run %s (%s)"):format(o.stack:upper(), run and run.label or o.stack) or "the comparison"
  -- (true to what stdout says, M.teardown_advice: fixs50, a preflight failure said "what is left
  -- deployed" where stdout said nothing needs tearing down)
  local where
  if ctx.dry_run then
    where = "what the dry run did is in the output above"
  elseif #M.left_deployed(ctx) > 0 then
    where = "what is left deployed and the commands to go on are in the output above"
  else
    where = (deploy_started(ctx) and "everything it deployed was torn down" or "nothing was deployed")
      .. "; the command to go on is in the output above"
    -- (a preflight refusal's own "nothing of this run was deployed": said above, for both runs)
    why = why:gsub("; nothing of this run was deployed$", "")
  end
  return ("%s: %s failed at step %d (%s): %s; %s"):format(script, who, o.number, o.name, why, where)
end

-- What is left deployed in the namespace, by run: one "run A (label): releases ...; ..."
-- for each run whose deploy started (for real) and that was not torn down since. A run
-- refused at preflight, imported, or only dry-run never deployed anything.
function M.left_deployed(ctx)
  local left = {}
  for _, x in ipairs { "a", "b" } do
    local what = not ctx.dry_run and M.left_of(ctx.deployed and ctx.deployed[x], ctx.ns)
    if what then
      local r = run_of(ctx, x)
      left[#left + 1] = ("run %s (%s): %s"):format(x:upper(), r and r.label or x, what)
    end
  end
  return left
end

-- What the record d (M.deployed) says is still there: "releases sim; kustomize ms", or nil
-- when its deploy never started or it was torn down. ns: the namespace, named where the record
-- cannot say (a deploy stopped while its commands ran).
function M.left_of(d, ns)
  if not (d and d.before and not d.torn_down) then return nil end
  local parts = {}
  for _, k in ipairs { "releases", "httproutes", "gateways", "kustomize" } do
    if d[k] and #d[k] > 0 then parts[#parts + 1] = k .. " " .. table.concat(d[k], ", ") end
  end
  if d.baseline_service then parts[#parts + 1] = "service " .. M.BASELINE_SVC end
  -- a deploy stopped while a command of it ran (Ctrl-C, SIGTERM, a kill -9: d.deploying kept)
  -- never saw that command's answer, so its record cannot say what it made: whatever its
  -- commands install may be there (newuser56: "nothing recorded as added yet" beside three
  -- installed releases), and the teardown tells it (recover_interrupted)
  if type(d.deploying) == "table" then
    local stopped = ("its deploy was stopped while its commands ran, before it recorded what they made: whatever "
      .. "they installed may be deployed (%s shows the releases); --resume, or a teardown of this workspace, "
      .. "finds it (what is new in the namespace since the deploy started)"):format(
        k8s.cmdline { "helm", "list", "-n", ns or "NAMESPACE" })
    return #parts > 0 and (table.concat(parts, "; ") .. "; and " .. stopped) or stopped
  end
  return #parts > 0 and table.concat(parts, "; ") or "its deploy started (nothing recorded as added yet)"
end

-- The teardown advice after a failure or an interrupt, true to what was done: where
-- something is left deployed, what and how to tear it down (the `how` prefix); else that
-- nothing needs tearing down.
function M.teardown_advice(ctx, how)
  local left = M.left_deployed(ctx)
  if #left > 0 then
    return ("Left deployed in namespace %s: %s.\n%s %s"):format(ctx.ns,
      table.concat(left, "; "), how, M.resume_command(ctx.ws.path, { "--step", "90" }))
  end
  if ctx.dry_run then return "Dry run: nothing was deployed; nothing needs tearing down." end
  if deploy_started(ctx) then
    return ("Everything this comparison deployed in namespace %s was torn down; nothing needs tearing down.")
      :format(ctx.ns)
  end
  return ("Nothing was deployed in namespace %s (nothing changed in the cluster); nothing needs tearing down.")
    :format(ctx.ns)
end

M.parse_steps = steps.parse

-- The per-run step functions, for flows built from them (experiment.lua): each takes
-- (ctx, x) and returns its message (raises on failure). ctx: ns, k (an llmd.k8s client),
-- out, t0, dry_run, bins, timeouts {ready, benchmark, smoke, poll}, commands = {},
-- config_text = {}, deployed = {} (M.load_deployed(ctx, x) after an interruption), plan
-- (benchmark_pvc, teardown, teardown_without_logs; runs[x] unless ctx.runs), ws or
-- ctx.run_dirs, yes, interactive.
M.fn = { deploy = deploy, wait_ready = wait_ready, baseline_service = baseline_service, smoke = smoke,
  benchmark = benchmark, save_state = save_state, collect_logs = collect_logs, teardown = teardown }

return M
