-- llmd.experiment_run: an experiment (setup treatments x run treatments) on a cluster.
--
--   local xr = require "llmd.experiment_run"
--   local plan = xr.load_plan("plan.yaml")
--   local ok, ctx = xr.run(experiment, plan, { dry_run =, resume = ws, stop_on_error =,
--                                               skip_teardown =, yes =, out = })
--
-- Per setup treatment, in its own namespace and workspace folder
-- (<ws>/setup-treatment-<name>/): render (the treatment's values override, every run
-- treatment's config) -> standup (deploy, wait until ready) -> smoke test -> every run
-- treatment benchmarked (results, run_state.json, a benchmark report per load point) ->
-- vLLM logs -> teardown (unless --skip-teardown). Setup treatments run in parallel when
-- the plan lists several namespaces and `parallel: N`; each one's commands go through
-- llmd.k8s scoped to its namespace and use llmd.cluster's step functions, so the
-- namespace guard and teardown rules are those of compare.lua. A failure is recorded as
-- upstream records it (failed_render, failed_standup, failed_smoketest, failed_run,
-- failed_teardown) and the other treatments carry on; a failed standup or smoke test is
-- torn down (best effort) at once. At the end: experiment-summary.yaml, the printed table,
-- and the comparison across treatments.
local br = require "llmd.br"
local cluster = require "llmd.cluster"
local ex = require "llmd.experiment"
local harness = require "llmd.harness"
local json = require "llmd.json"
local k8s = require "llmd.k8s"
local lfs = require "lfs"
local steps = require "llmd.steps"
local ws = require "llmd.workspace"
local yaml = require "llmd.yaml"

local M = {}

local function is_map(v) return type(v) == "table" and not json.is_array(v) and #v == 0 end

-- The plan: namespaces (or namespace), parallel, parent, bins, timeouts, benchmark_pvc,
-- teardown_without_logs, and one deploy + benchmark as a compare.lua run has them
-- (the setup treatments' overrides go over deploy.values_override).
function M.validate(plan, name)
  name = name or "plan"
  if not is_map(plan) then error(name .. ": expected a mapping (deploy, benchmark, namespaces, ...)", 0) end
  local errs = {}
  local function bad(key, msg) errs[#errs + 1] = ("%s: %s: %s"):format(name, key, msg) end
  local KNOWN = { namespaces = true, namespace = true, parallel = true, parent = true, bins = true, timeouts = true,
    benchmark_pvc = true, teardown_without_logs = true, deploy = true, benchmark = true, baseline = true, info = true,
    slo = true }
  for k in pairs(plan) do
    if not KNOWN[k] then
      local l = {}
      for x in pairs(KNOWN) do l[#l + 1] = x end
      table.sort(l)
      -- (did you mean: llmd.opts.closest, as the experiment file's keys say it)
      local near = type(k) == "string" and require("llmd.opts").closest(k, l)
      -- (its line where the file has it once: cluster.key_where, as the run's keys say it)
      errs[#errs + 1] = ("%s: %s: unknown key (%sknown: %s)"):format(cluster.key_where(name, k), tostring(k),
        near and ("did you mean %s? "):format(near) or "", table.concat(l, ", "))
    end
  end
  if plan.namespaces ~= nil then
    if type(plan.namespaces) ~= "table" or #plan.namespaces == 0 then
      bad("namespaces", "expected a list of namespace names")
    else
      local seen = {}
      for i, n in ipairs(plan.namespaces) do
        if type(n) ~= "string" or n == "" then bad(("namespaces[%d]"):format(i - 1), "expected a name")
        elseif seen[n] then bad(("namespaces[%d]"):format(i - 1), n .. " is listed twice")
        elseif cluster.system_namespace(n) then bad(("namespaces[%d]"):format(i - 1), cluster.system_namespace(n))
        else seen[n] = true end
      end
    end
    if plan.namespace ~= nil then bad("namespace", "give either namespace or namespaces, not both") end
  elseif type(plan.namespace) == "table" then
    -- a list under the one-name key: the plan's key for several is namespaces (cluster.validate
    -- would say only "expected a string")
    bad("namespace", "expected one namespace name; several go under namespaces (namespaces: [a, b], "
      .. "with parallel: N to run N at once)")
  end
  if plan.parallel ~= nil and (math.type(plan.parallel) ~= "integer" or plan.parallel < 1) then
    bad("parallel", "expected an integer >= 1")
  end
  if plan.slo ~= nil then
    local ok, err = pcall(require("llmd.decision").parse_slo, plan.slo, name .. ": slo")
    if not ok then errs[#errs + 1] = tostring(err) end
  end
  -- deploy and benchmark missing: said in the plan's own words (compare.lua's check would offer
  -- 'existing', which an experiment's plan does not have)
  local WHAT = { deploy = "how every setup treatment deploys its stack, its keys going over the values "
    .. "(deploy: {method: helmfile, guide_dir: DIR, ...})", benchmark = "the benchmark every run treatment runs "
    .. "(benchmark: {template: FILE, harness: NAME})" }
  for _, k in ipairs { "deploy", "benchmark" } do
    if plan[k] == nil then bad(k, "missing: " .. WHAT[k])
    elseif not is_map(plan[k]) then bad(k, "expected a mapping: " .. WHAT[k]) end
  end
  if #errs > 0 then error(table.concat(errs, "\n"), 0) end
  -- deploy and benchmark: checked as a compare.lua run is
  local as_compare = {
    namespace = plan.namespace or (plan.namespaces and plan.namespaces[1]), parent = plan.parent, bins = plan.bins,
    timeouts = plan.timeouts, benchmark_pvc = plan.benchmark_pvc, teardown_without_logs = plan.teardown_without_logs,
    runs = { a = { label = "a", baseline = plan.baseline, deploy = plan.deploy, benchmark = plan.benchmark,
      info = plan.info }, b = { label = "b", existing = { results = "." } } },
  }
  local ok, err = pcall(cluster.validate, as_compare, name)
  if not ok then error((tostring(err):gsub("runs%.a%.", "")), 0) end
  M.workload_choice(plan.benchmark, name, "benchmark", "one experiment per workload")
  M.check_template_names(plan.benchmark)
  return plan
end

function M.load_plan(path)
  local ok, plan = pcall(yaml.load_file, path)
  if not ok then error(tostring(plan), 0) end
  -- its relative paths from the plan's folder, as compare.lua's plan
  cluster.plan_paths_from_file(plan, path, { plan })
  return M.validate(plan, path)
end

-- Deep merge: b over a (copies).
local function merge(a, b)
  if not is_map(a) or not is_map(b) then return ex.deep_copy(b) end
  local out = ex.deep_copy(a)
  for _, k in ipairs(ex.keys(b)) do out[k] = merge(out[k], b[k]) end
  return out
end

-- A writer that prefixes every line (stacks in parallel interleave their lines).
local function prefixed(out, prefix)
  local buf = ""
  return {
    write = function(self, ...)
      buf = buf .. table.concat({ ... })
      while true do
        local line, rest = buf:match("^([^\n]*\n)(.*)$")
        if not line then break end
        out:write(prefix, line)
        buf = rest
      end
      return self
    end,
    flush = function() out:flush() end,
  }
end

local say = cluster.say

-- A line said with --quiet too (c.loud: a failure and how to go on are never hidden), as
-- cluster's progress lines are, with the seconds since c.t0.
local function tell(c, fmt, ...) say({ out = c.loud or c.out, t0 = c.t0 }, fmt, ...) end

-- The experiment's state: every setup treatment's result, saved after each change.
-- (a dry run's state says so: none of its steps ran, so --resume refuses it; a dry run over
-- a real run's workspace, --resume W --dry-run, writes no state: the real one stays as it was)
local function save(ctx)
  if ctx.dry_run and ctx.resume then return end
  local list = {}
  for _, s in ipairs(ctx.exp.setup_treatments) do list[#list + 1] = ctx.results[s.name] end
  -- (the experiment's time over every session so far: a resume adds its own to it; unknown
  -- when an earlier session's was not recorded, a workspace of an llmdlua before it was)
  json.write(ctx.ws.path .. "/experiment-state.json", { experiment = ctx.exp.name, results = json.array(list),
    dry_run = ctx.dry_run or nil,
    elapsed_seconds = not ctx.earlier_unknown and (ctx.earlier_seconds or 0) + (os.time() - ctx.t0) or nil })
end

-- Each setup treatment's duration, over every session of the experiment: the seconds of its
-- steps in steps.json (an interrupted step is recorded with its seconds, in parallel too:
-- llmd.steps.run_parallel), as r.duration; where a session before this one may have left a
-- step of it out of the record (its workspace records no elapsed_seconds: an llmdlua that did
-- not record a step an interrupt cut in parallel), r.duration_na says why, never 0.
local function durations(ctx)
  local rec = steps.load_record(ctx.ws.path .. "/steps.json")
  for _, st in ipairs(ctx.exp.setup_treatments) do
    local r = ctx.results[st.name]
    local sum = 0
    for _, o in ipairs(rec) do
      if o.phase == "experiment" and o.stack == st.name and type(o.seconds) == "number" then sum = sum + o.seconds end
    end
    if ctx.earlier_unknown and ctx.cut_before and ctx.cut_before[st.name] then
      r.duration, r.duration_na = json.null, "a session before this one was interrupted while this treatment "
        .. "ran, and its time then was not recorded (an earlier llmdlua)"
    else
      r.duration, r.duration_na = sum, nil
    end
  end
end

local function result(ctx, s) return ctx.results[s] end

local function finish(ctx, s, status, err)
  local r = result(ctx, s)
  r.status = status
  if err then r.error = tostring(err) end
  r.duration = (tonumber(r.duration) or 0) + (os.time() - (r.started or os.time()))
  r.started = nil
  if status:match("^failed") and ctx.stop_on_error and not ctx.halt then
    ctx.halt = ("setup treatment %s %s"):format(s, status)
  end
  save(ctx)
end

-- Namespaces ------------------------------------------------------------------------------

local function acquire(ctx, s)
  local r = result(ctx, s)
  if r.namespace then return r.namespace end
  if ctx.dry_run then
    -- a dry run goes through the treatments one after another (nothing runs, nothing
    -- waits); each is shown in the namespace a real run gives it when every stack takes as
    -- long: the first `parallel` each in its own, then in turn as they are freed
    for i, st in ipairs(ctx.exp.setup_treatments) do
      if st.name == s then
        r.namespace = ctx.pool[(i - 1) % ctx.parallel + 1].ns
        return r.namespace
      end
    end
  end
  for _, slot in ipairs(ctx.pool) do
    if not slot.busy and not slot.dirty then
      slot.busy = s
      r.namespace = slot.ns
      save(ctx)
      return slot.ns
    end
  end
  local used = {}
  for _, slot in ipairs(ctx.pool) do
    used[#used + 1] = ("%s (%s)"):format(slot.ns, slot.dirty and ("left with " .. slot.dirty .. "'s stack")
      or ("in use by " .. tostring(slot.busy)))
  end
  error(("no free namespace for setup treatment %s: %s"):format(s, table.concat(used, ", ")), 0)
end

-- clean: the stack is gone, the namespace can take the next treatment
local function release(ctx, s, clean)
  for _, slot in ipairs(ctx.pool) do
    if slot.busy == s then
      slot.busy = false
      if not clean then slot.dirty = s end
    end
  end
end

-- The paths of a nested values mapping's leaves (a list is one leaf), into out: dotted (a
-- key's own dot written as the experiment file writes it, _PROTECTDOT_) to the keys on the way.
local function leaf_paths(v, parts, out)
  for _, k in ipairs(ex.keys(v)) do
    local p = { table.unpack(parts) }
    p[#p + 1] = k
    if is_map(v[k]) and next(v[k]) ~= nil then
      leaf_paths(v[k], p, out)
    else
      local shown = {}
      for i, x in ipairs(p) do shown[i] = (tostring(x):gsub("%.", ex.PROTECTDOT)) end
      out[table.concat(shown, ".")] = p
    end
  end
  return out
end

-- What a cell's run_state.json records of its setup treatment, beside the plan's info (info):
-- its name and, for every values key some setup treatment of the experiment sets (the
-- setup.constants' and the treatments' own, by their dotted paths), the value this one was
-- deployed with (its values override: the plan's deploy.values_override with its keys over
-- it), or "not overridden (the guide's own value)": extra stack rows of the record, so that compare.lua
-- on two cells (--a EXP/setup-treatment-x/run-R --b EXP/setup-treatment-y/run-R) shows what
-- differs with a ≠, as it does for two runs of a plan (newuser50c N5: every row alike). Keys the
-- plan's info states under stack: win.
local function cell_info(ctx, s, values, info)
  local out = {}
  for k, v in pairs(is_map(info) and info or {}) do out[k] = v end
  local stack = {}
  for k, v in pairs(is_map(out.stack) and out.stack or {}) do stack[k] = v end
  local keys = {}
  for _, st in ipairs(ctx.exp.setup_treatments) do leaf_paths(st.overrides or {}, {}, keys) end
  local function at(parts)
    local node = values
    for _, part in ipairs(parts) do
      if type(node) ~= "table" then return nil end
      node = node[part]
    end
    return node
  end
  if stack["setup treatment"] == nil then stack["setup treatment"] = s end
  for k, parts in pairs(keys) do
    local name = "values: " .. k
    if stack[name] == nil then
      local v = at(parts)
      stack[name] = v == nil and "not overridden (the guide's own value)" or type(v) == "table" and json.encode(v)
        or tostring(v)
    end
  end
  out.stack = stack
  return out
end

-- The per-treatment cluster context, shaped as llmd.cluster's steps expect.
local function stack_ctx(ctx, s)
  if ctx.stacks[s] then return ctx.stacks[s] end
  local st = ctx.setup[s]
  local ns = acquire(ctx, s)
  local dir = ctx.ws.path .. "/setup-treatment-" .. s
  ws.mkdir_p(dir)
  local plan = ctx.plan
  local deploy = ex.deep_copy(plan.deploy)
  if next(st.overrides) ~= nil then
    deploy.values_override = merge(deploy.values_override or {}, st.overrides)
  end
  local info = cell_info(ctx, s, deploy.values_override or {}, plan.info)
  local runs = { stack = { label = s, baseline = plan.baseline, deploy = deploy, benchmark = plan.benchmark,
    info = plan.info } }
  local commands = { stack = {} }
  for _, rt in ipairs(ctx.exp.run_treatments) do
    local b = ex.deep_copy(plan.benchmark)
    b.attempts = b.attempts or ctx.exp.run_controls.treatment_max_attempts
    b.workload = rt.name
    -- (where the workload's name came from, for the log: the run treatment, never "the
    -- plan's benchmark.workload" when the plan has none)
    runs[rt.name] = { label = s .. "/" .. rt.name, baseline = plan.baseline, deploy = deploy, benchmark = b,
      info = info, workload_from = ("the experiment's run treatment %s"):format(rt.name) }
    commands[rt.name] = {}
  end
  local out = ctx.parallel > 1 and prefixed(ctx.out, "[" .. s .. "] ") or ctx.out
  local loud = ctx.parallel > 1 and prefixed(ctx.loud, "[" .. s .. "] ") or ctx.loud
  local t = plan.timeouts or {}
  local c = {
    loud = loud,
    -- (slo: the SLO the experiment holds its cells to, recorded in each one's run_state.json)
    plan = { runs = runs, teardown_without_logs = plan.teardown_without_logs, benchmark_pvc = plan.benchmark_pvc,
      slo = plan.slo },
    ws = { path = dir }, ns = ns, out = out, t0 = ctx.t0, dry_run = ctx.dry_run, bins = ctx.bins,
    timeouts = ctx.timeouts, commands = commands, config_text = {}, deployed = {}, failed = {}, yes = ctx.yes,
    k = k8s.new { namespace = ns, log = dir .. "/commands.log", dry_run = ctx.dry_run, bins = ctx.bins, out = out,
      backoff = t.backoff or 1.0 },
  }
  -- every run treatment benchmarks what "stack" deployed (its gateway, its pods)
  c.stack_of = {}
  for _, rt in ipairs(ctx.exp.run_treatments) do c.stack_of[rt.name] = "stack" end
  -- what an interrupted run had deployed here
  cluster.load_deployed(c, "stack")
  -- the run treatment's keys over every workload of the rendered run_only config
  c.render_config = function(text, x)
    local rt = ctx.run_by_name[x]
    if not rt then return text end
    -- (of the template's workloads, the one the plan's benchmark.workload chooses)
    local where = dir .. "/run-" .. x .. "/benchmark/config.yaml"
    text = M.keep_workload(text, M.workload_choice(plan.benchmark, ctx.plan_path or "plan", "benchmark",
      "one experiment per workload"), where)
    local cfg = yaml.load(text, where)
    if not is_map(cfg) or not is_map(cfg.workload) then
      error(("%s: the benchmark template has no workload: mapping to apply run treatment %s to")
        :format(plan.benchmark.template, x), 0)
    end
    local wl = {}
    for _, w in ipairs(ex.keys(cfg.workload)) do
      local p2, unmatched = ex.apply_overrides(cfg.workload[w], rt.overrides)
      for _, u in ipairs(unmatched) do
        local msg = ("run treatment %s: %s matches nothing in workload %s (not applied)"):format(x, u, w)
        say(c, "  warning: %s", msg)
        local r = result(ctx, s)
        r.warnings = r.warnings or {}
        r.warnings[#r.warnings + 1] = msg
      end
      wl[#wl + 1] = { ex.rendered_name(w, x), p2 }
      -- what the rendered config holds at each key the treatment sets: a dry run removes its
      -- workspace (and the config), so this line is where a dry run shows what would run
      local set = {}
      for _, o in ipairs(rt.overrides) do set[#set + 1] = ("%s: %s"):format(o.path, json.encode(o.value)) end
      if #set > 0 then say(c, "  workload %s: %s", wl[#wl][1], table.concat(set, ", ")) end
    end
    local new = {}
    for _, kv in ipairs(wl) do new[kv[1]] = kv[2] end
    cfg.workload = new
    return yaml.dump(cfg)
  end
  ctx.stacks[s] = c
  return c
end

-- A treatment that failed in an earlier run, one of whose steps runs again on this resume:
-- pending from here (its new outcome replaces the old; what the earlier one left, results
-- of failed attempts included, is kept in its folder).
local function begin_again(ctx, s)
  if not ctx.failed_before[s] then return end
  ctx.failed_before[s] = nil
  local r = result(ctx, s)
  r.status, r.error = "pending", nil
  save(ctx)
end

-- On resume: a setup treatment recorded failed_run completed every step (its failure is in
-- run treatments), so no step of it would run again, and every resume would end where the
-- last did. Its steps are reset, so that the run treatments without results run again: from
-- the deploy (10) when its stack was torn down, else (kept with --skip-teardown, or a
-- teardown that failed) from the run (40), on the stack still there. Each one's earlier
-- attempt stays, as results-attempt-N (llmd.cluster's benchmark), as compare.lua's resume
-- keeps it. Appends the resets to record (the step record a resume goes by), and says so.
function M.rerun_failed_runs(ctx, record)
  for _, st in ipairs(ctx.exp.setup_treatments) do
    local s = st.name
    if ctx.failed_before[s] == "failed_run" then
      local dir = ctx.ws.path .. "/setup-treatment-" .. s
      -- (no record: not up; one that is not JSON: its reader's error, not "torn down")
      local rec = dir .. "/run-stack/deployed.json"
      local d = lfs.attributes(rec, "mode") == "file" and json.read(rec) or nil
      local up = type(d) == "table" and type(d.before) == "table" and d.torn_down ~= true
      local again = {}
      for _, rt in ipairs(ctx.exp.run_treatments) do
        if lfs.attributes(dir .. "/run-" .. rt.name .. "/run_state.json", "mode") ~= "file" then
          again[#again + 1] = rt.name
        end
      end
      local why = ("failed_run: run treatment(s) %s run again"):format(table.concat(again, ", "))
      record[#record + 1] = steps.reset_entry("experiment", s, why, up and 40 or 10)
      ctx.loud:write(("Setup treatment %s failed_run in an earlier run: %s run again, %s (the earlier attempts' "
        .. "results kept as run-<treatment>/results-attempt-N).\n"):format(s, table.concat(again, ", "),
        up and ("on its stack still deployed in " .. tostring(result(ctx, s).namespace)) or "deployed again"))
    end
  end
end

-- Steps -----------------------------------------------------------------------------------

local function not_started(ctx, s) return result(ctx, s).not_started end

local function skip_if_halted(ctx, s)
  local r = result(ctx, s)
  if r.not_started then return true end
  if r.status == "pending" and not r.began and ctx.halt then
    r.not_started = true
    r.error = "not started: --stop-on-error after " .. ctx.halt
    save(ctx)
    return true
  end
  return false
end

-- An interrupt (Ctrl-C, SIGTERM) caught by a step's pcall goes on up at once: not a failure
-- of the treatment to record, tear down after or go on from (the next run treatment was
-- started and failed on it, with a Lua position); what is deployed is left as it is, as
-- compare.lua leaves it, and the interrupt's message says so.
local function pass_interrupt(msg)
  if tostring(msg):match("interrupted$") then error("interrupted", 0) end
end

local function teardown_now(ctx, s, c)
  if ctx.skip_teardown then return true, "kept (--skip-teardown)" end
  local ok, msg = pcall(cluster.fn.teardown, c, "stack")
  release(ctx, s, ok)
  return ok, msg
end

function M.steps_list()
  return {
    { number = 0, name = "preflight", description = "tools, namespaces, workspace", execute = function(ctx)
      cluster.check_tools(ctx)
      local ns = {}
      for _, slot in ipairs(ctx.pool) do ns[#ns + 1] = slot.ns end
      return ("%d setup x %d run treatment(s); namespaces %s, %d at a time"):format(#ctx.exp.setup_treatments,
        #ctx.exp.run_treatments, table.concat(ns, ", "), ctx.parallel)
    end },
    { number = 10, name = "render", per_stack = true, should_skip = skip_if_halted, execute = function(ctx, s)
      local r = result(ctx, s)
      r.began = true
      r.started = os.time()
      save(ctx)
      local ok, c = pcall(stack_ctx, ctx, s)
      if ok then
        ok, c = pcall(function()
          -- a template of several workloads and no choice: refused before this treatment deploys
          -- (the plan was checked when read; its template may have changed since, on a resume)
          M.workload_choice(ctx.plan.benchmark, ctx.plan_path or "plan", "benchmark", "one experiment per workload")
          local d = c.ws.path .. "/plan"
          ws.mkdir_p(d)
          ws.write_text(d .. "/setup-treatment.yaml", yaml.dump { name = s, namespace = c.ns,
            overrides = ctx.setup[s].overrides })
          if c.plan.runs.stack.deploy.values_override then
            ws.write_text(d .. "/values-override.yaml", yaml.dump(c.plan.runs.stack.deploy.values_override))
          end
          return c
        end)
      end
      if not ok then
        finish(ctx, s, r.namespace and "failed_render" or "failed_standup", c)
        release(ctx, s, true)
        error(c, 0)
      end
      say(c, "Setup treatment %s: namespace %s, workspace %s", s, c.ns, c.ws.path)
      return "namespace " .. c.ns
    end },
    { number = 20, name = "standup", per_stack = true, should_skip = not_started, execute = function(ctx, s)
      local c = stack_ctx(ctx, s)
      result(ctx, s).started = result(ctx, s).started or os.time()
      say(c, "Setup treatment %s: deploying into %s.", s, c.ns)
      local ok, msg = pcall(function()
        cluster.fn.deploy(c, "stack")
        say(c, "Setup treatment %s: waiting for the stack to be ready (up to %d s).", s, c.timeouts.ready)
        local m = cluster.fn.wait_ready(c, "stack")
        if c.plan.runs.stack.baseline then cluster.fn.baseline_service(c, "stack") end
        return m
      end)
      if not ok then
        pass_interrupt(msg)
        -- refused before its first deploy command: there is nothing of it to tear down
        tell(c, "Setup treatment %s: standup failed: %s%s", s, tostring(msg),
          cluster.deployed(c, "stack").attempted and "; tearing down what was deployed." or ".")
        local tok, tmsg = teardown_now(ctx, s, c)
        finish(ctx, s, "failed_standup", tostring(msg) .. (tok and "" or ("; teardown failed too: " .. tostring(tmsg))))
        error(msg, 0)
      end
      return msg
    end },
    { number = 30, name = "smoketest", per_stack = true, should_skip = not_started, execute = function(ctx, s)
      local c = stack_ctx(ctx, s)
      say(c, "Setup treatment %s: smoke test through a port-forward.", s)
      local ok, msg = pcall(cluster.fn.smoke, c, "stack")
      if not ok then
        pass_interrupt(msg)
        local tok, tmsg = teardown_now(ctx, s, c)
        finish(ctx, s, "failed_smoketest",
          tostring(msg) .. (tok and "" or ("; teardown failed too: " .. tostring(tmsg))))
        error(msg, 0)
      end
      return msg
    end },
    { number = 40, name = "run", per_stack = true, should_skip = not_started, execute = function(ctx, s)
      local c = stack_ctx(ctx, s)
      local r = result(ctx, s)
      r.run_failures = json.array {} -- (a list: [] in experiment-state.json when none failed)
      local done = 0
      for i, rt in ipairs(ctx.exp.run_treatments) do
        local dir = c.ws.path .. "/run-" .. rt.name
        if ctx.resume and lfs.attributes(dir .. "/run_state.json", "mode") == "file" then
          done = done + 1
          say(c, "Run treatment %s (%d/%d): done in an earlier run.", rt.name, i, #ctx.exp.run_treatments)
        else
          say(c, "Run treatment %s (%d/%d): benchmarking.", rt.name, i, #ctx.exp.run_treatments)
          r.running = rt.name -- (what an interrupt names: M.interrupted_where)
          local ok, msg = pcall(function()
            if ctx.exp.reset_caches and i > 1 then
              -- reset_caches: every run treatment after the first starts with empty caches
              -- this stack's pods, by name: no one else's
              cluster.restart_serving(c, "stack", ("  reset_caches: restarting the vLLM pods so %s starts with "
                .. "empty KV and prefix caches: %%s (this stack's, by name)"):format(rt.name))
              cluster.fn.wait_ready(c, "stack")
            end
            cluster.fn.benchmark(c, rt.name)
            cluster.fn.save_state(c, rt.name)
            if not ctx.dry_run then
              local run = harness.extract(dir .. "/results", { harness = ctx.plan.benchmark.harness })
              br.write(dir .. "/benchmark_report", run, { version = "0.2", eid = ctx.exp.name,
                description = ("%s: setup treatment %s, run treatment %s"):format(ctx.exp.name, s, rt.name),
                stack = { label = s, model = c.plan.runs.stack.deploy.model, guide = c.plan.runs.stack.deploy.guide,
                  hardware = c.plan.runs.stack.deploy.hardware, gateway = c.plan.runs.stack.deploy.gateway,
                  llmd_version = c.plan.runs.stack.deploy.llmd_version, namespace = c.ns } })
            end
          end)
          if not ok then pass_interrupt(msg) end
          r.running = nil
          if ok then
            done = done + 1
          else
            r.run_failures[#r.run_failures + 1] = ("%s: %s"):format(rt.name, tostring(msg))
            tell(c, "Run treatment %s failed: %s", rt.name, tostring(msg))
            if ctx.exp.run_controls.treatment_stop_on_error then
              tell(c, "treatment_stop_on_error: the remaining run treatments of %s are not run.", s)
              break
            end
          end
        end
      end
      r.run_completed = done
      save(ctx)
      return ("%d/%d run treatment(s) completed"):format(done, #ctx.exp.run_treatments)
    end },
    { number = 50, name = "collect_logs", per_stack = true, should_skip = not_started, execute = function(ctx, s)
      local c = stack_ctx(ctx, s)
      say(c, "Setup treatment %s: collecting the vLLM logs.", s)
      local ok, msg = pcall(cluster.fn.collect_logs, c, "stack")
      if not ok then
        pass_interrupt(msg)
        if ctx.plan.teardown_without_logs then return "no logs (teardown allowed by the plan): " .. tostring(msg) end
        finish(ctx, s, "failed_teardown", "not torn down: " .. tostring(msg))
        release(ctx, s, false)
        error(msg, 0)
      end
      return msg
    end },
    { number = 60, name = "teardown", per_stack = true, should_skip = not_started, execute = function(ctx, s)
      local c = stack_ctx(ctx, s)
      local r = result(ctx, s)
      local failures = r.run_failures or {}
      local status = #failures > 0 and "failed_run" or "success"
      local err = #failures > 0 and table.concat(failures, "; ") or nil
      if ctx.skip_teardown then
        finish(ctx, s, status, err)
        return "kept in " .. c.ns .. " (--skip-teardown)"
      end
      say(c, "Setup treatment %s: tearing down (releases, routes, gateways; PVCs and namespace kept).", s)
      local ok, msg = teardown_now(ctx, s, c)
      if not ok then
        pass_interrupt(msg)
        finish(ctx, s, status == "success" and "failed_teardown" or status,
          (err and (err .. "; ") or "") .. "teardown: " .. tostring(msg))
        error(msg, 0)
      end
      finish(ctx, s, status, err)
      return msg
    end },
    { number = 100, name = "summary", description = "experiment-summary.yaml and the table", execute = function(ctx)
      local list = {}
      for _, st in ipairs(ctx.exp.setup_treatments) do list[#list + 1] = ctx.results[st.name] end
      local nset = ctx.exp.has_setup_phase and #ctx.exp.setup_treatments or 0
      -- (over every session; a dry run over a real run's workspace reads and changes nothing of it)
      local total = os.time() - ctx.t0 + (ctx.earlier_seconds or 0)
      if not (ctx.dry_run and ctx.resume) then
        durations(ctx)
        if ctx.earlier_unknown then total = "N/A (" .. ctx.earlier_unknown .. ")" end
        save(ctx)
      end
      local summary_file = ctx.ws.path .. "/experiment-summary.yaml"
      -- (a dry run over a real run's workspace leaves the real run's summary as it was)
      if ctx.dry_run and ctx.resume then summary_file = "(not written: a dry run over this workspace)"
      else ws.write_text(summary_file, ex.summary_yaml(ctx.exp.name, nset, #ctx.exp.run_treatments, list, total)) end
      ctx.summary_text = ex.summary_table(ctx.exp.name, nset, #ctx.exp.run_treatments, list, total, summary_file)
      ctx.out:write("\n", ctx.summary_text)
      if ctx.dry_run then
        local failed = 0
        for _, r in ipairs(list) do if r.status ~= "success" then failed = failed + 1 end end
        ctx.out:write(failed == 0
          and "(dry run: nothing was deployed or measured; the statuses say only that no step failed)\n"
          or "(dry run: nothing was deployed or measured; FAIL is a step the dry run refused, OK says only that no "
            .. "step failed)\n")
        return "dry run: no comparison"
      end
      -- the comparison across treatments, from whatever has results
      local tr = require "llmd.treatments"
      local cok, cerr = pcall(function()
        local tlist = tr.experiment_list(ctx.ws.path, { harness = ctx.plan.benchmark.harness })
        tr.load(tlist, { harness = ctx.plan.benchmark.harness, cache = tlist.cache })
        local dir = ctx.ws.path .. "/cross-treatment-comparison"
        local slo = ctx.plan.slo and require("llmd.decision").parse_slo(ctx.plan.slo, "slo") or {}
        -- an earlier report there that is not the one this experiment wrote last (a treatments.lua
        -- run on the workspace with other --slo or --gpus, a report edited, or one of an llmdlua
        -- that recorded none) is kept aside as treatments.lua keeps it (OUT-previous-TIME, one
        -- line); the experiment's own, unchanged since, is replaced (each --resume would
        -- otherwise leave another copy of it)
        local cmp = require "llmd.comparison"
        -- (the report's files there, each by name: nil where there are none)
        local function held()
          local parts = {}
          for _, name in ipairs(tr.OUTPUTS) do
            local text = ws.read_text(dir .. "/" .. name)
            if text then parts[#parts + 1] = name .. "\0" .. text end
          end
          return #parts > 0 and table.concat(parts, "\0") or nil
        end
        local before = held()
        local wok, paths = pcall(tr.write_outputs, dir, tlist, { slo = slo, experiment = ctx.exp.name,
          unit = tlist.unit, keep_previous = not (before and cmp.is_written(ctx.ws.path, M.COMPARISON, before)) })
        -- what it wrote is its own from now on (a comparison that failed with its CSVs written
        -- too: not what was there before it, which it did not write)
        local now = held()
        if now and now ~= before then cmp.record_written(ctx.ws.path, M.COMPARISON, now) end
        if not wok then error(paths, 0) end
        if paths.previous then
          io.stderr:write(("experiment.lua: %s held an earlier report this experiment did not write (written %s): "
            .. "kept in %s; this one is in %s\n"):format(dir, os.date("%Y-%m-%d %H:%M:%S", paths.previous_time),
            paths.previous, dir))
        end
        ctx.comparison = paths
        -- (where the comparison is, with --quiet too, as compare.lua says where its reports are)
        ctx.loud:write(("\nComparison across treatments: %s\n  %s\n"):format(paths.md, paths.model.verdict))
        -- a chart gnuplot failed to draw: the comparison is written without it, and says why
        for _, f in ipairs(paths.chart_failures or {}) do
          ctx.loud:write(("  Warning: %s\n"):format(f))
          io.stderr:write("experiment.lua: warning: ", f, "\n")
        end
      end)
      if not cok then pass_interrupt(cerr) end
      if not cok then ctx.loud:write(("\nNo comparison across treatments: %s\n"):format(tostring(cerr))) end
      return ctx.ws.path .. "/experiment-summary.yaml"
    end },
  }
end

-- The experiment's comparison across treatments in its workspace (M.steps' summary), and the
-- name its files' hash is recorded by (llmd.comparison.record_written).
M.COMPARISON = "cross-treatment-comparison"

-- The plan's benchmark template b.template read as run_only.sh reads its config, its ${VAR}s
-- from b.vars, else the environment, else the name (they fill in values, never the
-- structure; names_only: always the name, for its structure alone, whatever a value holds;
-- "plan": b.vars, else the name - what the plan itself decides, whatever the environment):
-- the config (a table), or raises naming the template.
function M.read_template(b, names_only)
  local template = b.template
  local f = io.open(template, "rb")
  if not f then error(("%s: cannot read the benchmark template"):format(template), 0) end
  local text = f:read("a")
  f:close()
  local vars = names_only == true and {} or b.vars or {}
  text = text:gsub("%${([%a_][%w_]*)}", function(v)
    if names_only == true then return v end
    return tostring(vars[v] or (names_only ~= "plan" and os.getenv(v)) or v)
  end)
  local ok, cfg = pcall(yaml.load, text, template)
  if not ok then error(tostring(cfg), 0) end
  return cfg
end

-- The values in v (a config read by llmd.yaml, or a part of it at key) that are strings to
-- llmdlua (YAML 1.2) but booleans to PyYAML (YAML 1.1: no, off, yes, on...), which the harness
-- reads its config with: a config llmdlua writes again (yaml.dump) keeps them strings, so the
-- harness would get other than the file says. One line each, "where: KEY: why; nothing was
-- run" (doing: what writes it again), appended to out, in key order.
function M.yaml11_problems(v, key, where, doing, out)
  out = out or {}
  local b = cluster.yaml11_bool(v, true)
  if b ~= nil then
    out[#out + 1] = ("%s: %s: '%s' is a string to llmdlua, which reads YAML 1.2, but %s to PyYAML (YAML 1.1), as the "
      .. "harness reads its config; %s writes the config again, with the string '%s': write %s; nothing was run")
      :format(where, key, v, tostring(b), doing, v, tostring(b))
  elseif type(v) == "table" then
    local ks = is_map(v) and ex.keys(v) or {}
    if not is_map(v) then for j = 1, #v do ks[j] = j end end
    for _, k in ipairs(ks) do
      M.yaml11_problems(v[k], key and (key .. "." .. tostring(type(k) == "number" and k - 1 or k)) or tostring(k),
        where, doing, out)
    end
  end
  return out
end

-- The workload a benchmark b (a plan's benchmark:, its template read) runs, when its template
-- has several: b.workload, which must name one of them (the rendered config then keeps it
-- alone, M.keep_workload). run_only.sh runs every workload of its config, each its own
-- results folder, and one run's results must be one workload's: a template of several with
-- none chosen could never run (every treatment deployed, benchmarked, then failed on "results
-- holds 2 inference-perf runs"), so it is refused here, before anything deploys. where: the
-- plan file; key: where b is in it ("benchmark", "runs.a.benchmark"); apart: how else to run
-- them ("one experiment per workload"). Returns the name chosen, or nil: a template of one
-- workload (b.workload, if any, is then its label, as before) or with no workload: mapping
-- (said where it is used).
function M.workload_choice(b, where, key, apart)
  if type(b) ~= "table" or type(b.template) ~= "string" then return nil end
  -- (a template that cannot be read, or is no YAML: said where it is used, as before)
  local ok, cfg = pcall(M.read_template, b, true)
  if not ok or not is_map(cfg) or not is_map(cfg.workload) then return nil end
  local names = ex.keys(cfg.workload)
  if #names < 2 then return nil end
  local list = table.concat(names, ", ")
  if b.workload == nil then
    error(("%s: %s.template: %s has %d workloads (%s) and %s.workload chooses none: run_only.sh would run "
      .. "each, and one run's results must be one workload's; set %s.workload: NAME to one of them, or give each "
      .. "workload its own template (%s) - nothing was run"):format(where, key, b.template, #names, list, key, key,
      apart), 0)
  end
  if type(b.workload) ~= "string" or not cfg.workload[b.workload] then
    local near = require("llmd.opts").closest(tostring(b.workload), names)
    error(("%s: %s.workload: %s is not a workload of %s (its workloads: %s%s); nothing was run"):format(where, key,
      tostring(b.workload), b.template, list, near and ("; did you mean %s?"):format(near) or ""), 0)
  end
  -- keeping the one workload writes the config again (M.keep_workload): a no/off/yes/on in what
  -- it keeps, false or true to the harness's PyYAML, would reach it as a string (harden55 #4,
  -- as mend54 #4 refused for run treatments); refused before anything deploys
  local kept = {}
  for k, v in pairs(cfg) do kept[k] = v end
  kept.workload = { [b.workload] = cfg.workload[b.workload] }
  local yes_no = M.yaml11_problems(kept, nil, b.template, ("keeping workload %s alone (%s.workload)")
    :format(b.workload, key))
  if #yes_no > 0 then error(table.concat(yes_no, "\n"), 0) end
  return b.workload
end

-- A benchmark.workload that names no workload of a template of ONE (b: a plan's benchmark:;
-- where: the plan file; key: where b is in it): the template's one workload runs whatever the
-- name, which README keeps as the run's label (tests/lua/test_cluster.lua's "chat" over
-- sanity_random), so it is not refused; but a misspelt name (fixd47's choice of a workload of
-- several refuses it) would pass silently as a label. One line for stderr, naming the plan, the
-- template's workload and the nearest name; nil where the name is that workload, or none is given,
-- or the template has several (M.workload_choice) or none readable.
function M.workload_label_note(b, where, key)
  if type(b) ~= "table" or type(b.template) ~= "string" or b.workload == nil then return nil end
  local ok, cfg = pcall(M.read_template, b, true)
  if not ok or not is_map(cfg) or not is_map(cfg.workload) then return nil end
  local names = ex.keys(cfg.workload)
  if #names ~= 1 or tostring(b.workload) == names[1] then return nil end
  local near = require("llmd.opts").closest(tostring(b.workload), names)
  return ("%s: %s.workload: %s is not the workload of %s (its one workload: %s%s), which runs whatever the name; "
    .. "%s is kept as the run's workload label only"):format(where, key, tostring(b.workload), b.template, names[1],
    near and ("; did you mean %s?"):format(near) or "", tostring(b.workload))
end

-- Refuses a benchmark template (b.template, read as M.read_template reads it) whose names
-- run_only.sh would hand to bash's eval unchecked (llmd.cluster.run_only_config_problems:
-- workload keys, harness.name, harness.namespace, control.kubectl): one line each, naming the
-- template, the key and why, before anything deploys (the dry run too). Its ${VAR}s are the
-- plan's benchmark.vars, else their names: what the environment or the run fills in is
-- checked where the config is rendered (llmd.cluster's benchmark step, before run_only.sh
-- runs). A template that cannot be read is said where it is used.
function M.check_template_names(b)
  if type(b) ~= "table" or type(b.template) ~= "string" then return end
  local ok, cfg = pcall(M.read_template, b, "plan")
  if not ok then return end
  local problems = cluster.run_only_config_problems(cfg, b.template)
  if #problems > 0 then error(table.concat(problems, "\n") .. " - nothing was run", 0) end
end

-- The rendered config text with only workload name in its workload: mapping (M.workload_choice's
-- choice; where: the config's path, for an error); the text as it is when name is nil.
function M.keep_workload(text, name, where)
  if not name then return text end
  local cfg = yaml.load(text, where)
  if not is_map(cfg) or not is_map(cfg.workload) or cfg.workload[name] == nil then
    error(("%s: the rendered benchmark config has no workload %s to run"):format(where, name), 0)
  end
  cfg.workload = { [name] = cfg.workload[name] }
  -- (M.workload_choice refused the template's own; a value the run filled in is checked here)
  local yes_no = M.yaml11_problems(cfg, nil, where, ("keeping workload %s alone"):format(name))
  if #yes_no > 0 then error(table.concat(yes_no, "\n"), 0) end
  return yaml.dump(cfg)
end

-- Refuses run treatments that would change nothing: every key of every run treatment must
-- match something in every workload of the plan's benchmark template (${VAR}s stand in for
-- values the run fills in later; they never change the template's structure). A key that
-- matches nothing would make its treatment compare a configuration identical to another's.
-- Raises with one line per treatment, key and workload. A last key the workload lacks is
-- added (as upstream), unless it is a near miss of a key beside it (ex.near_miss: `rat` for
-- `rate`), which is refused the same way. Returns a note per added key, for the caller to show.
function M.check_run_treatments(exp, plan, exp_path)
  local template = plan.benchmark.template
  local cfg = M.read_template(plan.benchmark)
  if not is_map(cfg) or not is_map(cfg.workload) then
    error(("%s: the benchmark template has no workload: mapping to apply the run treatments of %s to")
      :format(template, exp_path or exp.name), 0)
  end
  -- (of several, the one the plan's benchmark.workload chooses: the only one that runs)
  local chosen = #ex.keys(cfg.workload) > 1 and plan.benchmark.workload
  if chosen and cfg.workload[chosen] ~= nil then cfg.workload = { [chosen] = cfg.workload[chosen] } end
  -- llmdlua writes the config again to apply the run treatments (YAML 1.2: no is a string,
  -- written "no"): a no, off, yes or on in it, or in a treatment's value, that PyYAML (the
  -- harness's and upstream's reader, YAML 1.1) read as false or true would reach the harness
  -- as the string; refused, naming the key (mend54 #4)
  local yes_no = {}
  local doing = "applying the run treatments"
  if #exp.run_treatments > 0 then M.yaml11_problems(cfg, nil, template, doing, yes_no) end
  for _, rt in ipairs(exp.run_treatments) do
    for _, o in ipairs(rt.overrides) do
      M.yaml11_problems(o.value, o.path, ("%s: run treatment %s"):format(exp_path or exp.name, rt.name), doing, yes_no)
    end
  end
  if #yes_no > 0 then error(table.concat(yes_no, "\n"), 0) end
  local lines, misses, notes = {}, {}, {}
  local rendered = {}
  for i, rt in ipairs(exp.run_treatments) do
    rendered[i] = {}
    for _, w in ipairs(ex.keys(cfg.workload)) do
      local out, unmatched, added = ex.apply_overrides(cfg.workload[w], rt.overrides)
      rendered[i][w] = out
      for _, u in ipairs(unmatched) do
        lines[#lines + 1] = ("%s: run treatment %s: %s matches nothing in workload %s of %s; refused: a run treatment "
          .. "that changes nothing would benchmark the same configuration as the others - fix the key (or the "
          .. "template); nothing was run"):format(exp_path or exp.name, rt.name, u, w, template)
      end
      -- a key the workload does not have is added (upstream does, and the real experiments
      -- rely on it: load.stages.0.concurrent_sessions); one a letter or two from a key it
      -- has is a typo that would benchmark the template's value under the treatment's name
      for _, a in ipairs(added) do
        local parent, leaf = a.path:match("^(.*)%.([^.]+)$")
        if not parent then parent, leaf = nil, a.path end
        local near = ex.near_miss(leaf, a.siblings)
        if near then
          misses[#misses + 1] = ("%s: run treatment %s: %s is not a key of workload %s in %s (did you mean %s?); "
            .. "refused: it would add %s and benchmark the template's %s - nothing was run"):format(
            exp_path or exp.name, rt.name, a.path, w, template, parent and (parent .. "." .. near) or near, leaf, near)
        else
          notes[#notes + 1] = ("note: run treatment %s adds %s (not in workload %s of %s)"):format(rt.name, a.path,
            w, template)
        end
      end
    end
  end
  if #lines > 0 then error(table.concat(lines, "\n"), 0) end
  if #misses > 0 then error(table.concat(misses, "\n"), 0) end
  -- the stages a treatment sets, each rate and duration a positive number (load.stages.0.rate:
  -- fast passed --dry-run, newuser53 #3); the template's own are its render's to check
  -- (cluster.template_problem), its ${VAR}s unfilled here
  local bad_values = {}
  for i, rt in ipairs(exp.run_treatments) do
    for _, w in ipairs(ex.keys(cfg.workload)) do
      for _, p in ipairs(cluster.stage_problems(rendered[i][w])) do
        for _, o in ipairs(rt.overrides) do
          if p.key == o.path or p.key:sub(1, #o.path + 1) == o.path .. "." then
            bad_values[#bad_values + 1] = ("%s: run treatment %s: %s: %s; nothing was run"):format(
              exp_path or exp.name, rt.name, p.key, p.why)
            break
          end
        end
      end
    end
  end
  if #bad_values > 0 then error(table.concat(bad_values, "\n"), 0) end
  -- two run treatments whose every workload renders the same (rate1 and rate2 both at
  -- load.stages.0.rate: 1, newuser45): one configuration benchmarked twice, which the
  -- comparison would read as two workloads and rank apart; one line per treatment, naming
  -- the first one it repeats
  local same = require("llmd.report").same_value
  local dups = {}
  for i = 2, #rendered do
    for j = 1, i - 1 do
      if same(rendered[j], rendered[i]) then
        local a, b = exp.run_treatments[j], exp.run_treatments[i]
        dups[#dups + 1] = ("%s: run treatments %s and %s render the same workload%s of %s (%s); refused: they "
          .. "would benchmark one configuration twice, which the comparison would read as two workloads - give "
          .. "each its own values (or drop one); nothing was run"):format(exp_path or exp.name, a.name, b.name,
          #ex.keys(cfg.workload) == 1 and (" " .. ex.keys(cfg.workload)[1]) or "s", template,
          M.override_text(a, b))
        break
      end
    end
  end
  if #dups > 0 then error(table.concat(dups, "\n"), 0) end
  return notes
end

-- What two run treatments set, in a few words ("rate1: load.stages.0.rate: 1; rate2:
-- load.stages.0.rate: 1"; "no keys" for one with none), for the line that refuses them.
function M.override_text(a, b)
  local function keys(rt)
    local parts = {}
    for _, o in ipairs(rt.overrides or {}) do
      parts[#parts + 1] = ("%s: %s"):format(o.path, type(o.value) == "table" and json.encode(o.value)
        or tostring(o.value))
    end
    return #parts > 0 and table.concat(parts, ", ") or "no keys"
  end
  return ("%s: %s; %s: %s"):format(a.name, keys(a), b.name, keys(b))
end

-- Refuses setup treatments that would change nothing: their keys go into the values
-- override, which helm and helmfile are given (-f, --state-values-file), but a custom
-- deploy's commands only read it through ${VALUES_OVERRIDE}. Without that, every setup
-- treatment would deploy the same stack and the comparison across them would show noise
-- as a difference. Raises with one line per treatment, before anything runs (the dry run
-- too).
function M.check_setup_treatments(exp, plan, exp_path, plan_path)
  local d = plan.deploy
  if type(d) ~= "table" or d.method ~= "custom" or cluster.custom_reads_override(d) then return end
  local function flat(v, prefix, out)
    if is_map(v) and next(v) ~= nil then
      for _, k in ipairs(ex.keys(v)) do flat(v[k], prefix and (prefix .. "." .. k) or tostring(k), out) end
    else
      out[#out + 1] = ("%s: %s"):format(prefix, json.encode(v))
    end
    return out
  end
  local lines = {}
  for _, st in ipairs(exp.setup_treatments) do
    if next(st.overrides or {}) ~= nil then
      lines[#lines + 1] = ("%s: setup treatment %s (%s): written to values-override.yaml, but no command in "
        .. "deploy.commands of %s reads it"):format(exp_path or exp.name, st.name,
          table.concat(flat(st.overrides, nil, {}), ", "), plan_path or "the plan")
    end
  end
  if #lines > 0 then
    error(table.concat(lines, "\n") .. "\nrefused: setup treatments whose values no command reads would all deploy "
      .. "the same stack; pass the file to the deploy with \"${VALUES_OVERRIDE}\" (e.g. [helm, upgrade, --install, "
      .. "NAME, CHART, -f, \"${VALUES_OVERRIDE}\"]), or use method: helm or helmfile - nothing was run", 0)
  end
end

-- Refuses a setup treatment's values key that is most likely misspelt (llmd.valuekeys): absent
-- from the values it overrides (the plan's values files, a local chart's values.yaml, its
-- deploy.values_override and deploy.set) and from the other setup treatments, and a letter or
-- two from a key one of them has at the same path. Helm would take `decode.replicsa: 2` as a new
-- value and deploy the chart's decode.replicas, so two setup treatments would deploy one
-- configuration and be compared as two (newuserd51). plan nil (--show without --plan): the
-- treatments against each other only, and the lines are returned as warnings, not raised. A key
-- listed under the plan's deploy.new_values_keys is kept. Raises one line per key, before
-- anything deploys (the dry run and --show --plan too).
function M.check_setup_value_keys(exp, plan, exp_path, plan_path)
  local vk = require "llmd.valuekeys"
  local d = plan and plan.deploy or {}
  local base = vk.base_trees(d)
  local sets = {}
  for _, st in ipairs(exp.setup_treatments) do
    if is_map(st.overrides) and next(st.overrides) ~= nil then
      sets[#sets + 1] = { who = "setup treatment " .. st.name, tree = st.overrides, base = base }
    end
  end
  local allowed = {}
  for _, k in ipairs(type(d.new_values_keys) == "table" and d.new_values_keys or {}) do allowed[tostring(k)] = true end
  local keep = plan and ("refused: helm would take it as a new value and deploy the chart's own, so the setup "
    .. "treatments would differ less than they say; fix the key, or keep a genuinely new one by listing it under "
    .. "deploy.new_values_keys in %s - nothing was deployed"):format(plan_path or "the plan")
    or "--plan refuses it (a genuinely new key is kept by listing it under the plan's deploy.new_values_keys)"
  local lines = vk.problems(sets, { where = exp_path or exp.name, allowed = allowed, keep = keep })
  if not plan then return lines end
  if #lines > 0 then error(table.concat(lines, "\n"), 0) end
  return lines
end

-- What is left deployed, one "setup treatment S in namespace NS: releases ...; ..." for
-- each stack whose deploy started (for real) and that was not torn down since (kept with
-- --skip-teardown, a failed teardown, logs not collected), in the order of the treatments.
function M.left_deployed(ctx)
  local left = {}
  if ctx.dry_run then return left end
  for _, st in ipairs(ctx.exp.setup_treatments) do
    local c = ctx.stacks[st.name]
    local what = c and cluster.left_of(c.deployed and c.deployed.stack, c.ns)
    if what then left[#left + 1] = ("setup treatment %s in namespace %s: %s"):format(st.name, c.ns, what) end
  end
  return left
end

-- Whether the workspace of ctx holds nothing measured and nothing deployed: no run treatment
-- of any setup treatment began (no result counted or failed, no run-<treatment> folder) and
-- no stack is left deployed. An experiment refused before anything was measured (a deploy the
-- cluster refused, a failed preflight or smoke test) leaves such a workspace; its resume is
-- all it is good for (harden56 #2). False for a dry run's (removed anyway: ctx.scratch).
function M.holds_nothing(ctx)
  if ctx.dry_run or #M.left_deployed(ctx) > 0 then return false end
  for _, r in pairs(ctx.results or {}) do
    if (tonumber(r.run_completed) or 0) > 0 or (type(r.run_failures) == "table" and #r.run_failures > 0)
      or r.running then
      return false
    end
  end
  for e in lfs.dir(ctx.ws.path) do
    local st = ctx.ws.path .. "/" .. e
    if e:match("^setup%-treatment%-") and lfs.attributes(st, "mode") == "directory" then
      for f in lfs.dir(st) do
        if f:match("^run%-") and f ~= "run-stack" then return false end
      end
    end
  end
  return true
end

-- Where an interrupt stopped the run: the steps of this session it cut (each fails
-- "interrupted", recorded, and ctx.cut gets it as it fails: M.run's on_failure), " during step
-- 40 (run) of setup treatment S, run treatment R", as compare.lua says "during step 60
-- (benchmark) of run A"; "" when no step was under way. With stacks in parallel every step the
-- interrupt cut is named (", and during step 40 (run) of setup treatment T, run treatment R").
-- Not read from steps.json: its last entries may be an earlier session's cut steps, when this
-- one was interrupted before any step of its own (in the namespace locks, say).
function M.interrupted_where(ctx)
  local said = {}
  for _, o in ipairs(ctx.cut or {}) do
    local r = o.stack and ctx.results[o.stack]
    said[#said + 1] = ("during step %d (%s)%s%s"):format(o.number, o.name,
      o.stack and (" of setup treatment " .. o.stack) or "",
      r and r.running and o.name == "run" and (", run treatment " .. r.running) or "")
  end
  if #said == 0 then return "" end
  return " " .. table.concat(said, ", and ")
end

-- The lines saying what is left deployed (for the end of a run, or after an interrupt),
-- true to what was done: the stacks still there and their namespaces, or that nothing is.
function M.left_text(ctx)
  local left = M.left_deployed(ctx)
  if #left > 0 then
    return ("Left deployed%s:\n  "):format(ctx.skip_teardown and " (--skip-teardown keeps every stack)" or "")
      .. table.concat(left, "\n  ")
  end
  if ctx.dry_run then return "Dry run: nothing was deployed; nothing needs tearing down." end
  for _, c in pairs(ctx.stacks) do
    local d = c.deployed and c.deployed.stack
    if d and d.before then return "Nothing is left deployed: every stack deployed was torn down." end
  end
  return "Nothing was deployed (nothing changed in the cluster); nothing needs tearing down."
end

-- Raises when exp cannot be run whatever the plan: no run treatments (the legacy string
-- format gives none: upstream's total_matrix still counts 1, one default setup treatment),
-- or one named like the stack's own folder. --show says the same as --plan.
function M.check_runnable(exp, exp_path)
  for _, rt in ipairs(exp.run_treatments) do
    if rt.name == "stack" then
      error(("%srun treatment 'stack': the name is taken by the stack's own folder (run-stack); rename it")
        :format(exp_path and (exp_path .. ": ") or ""), 0)
    end
  end
  if #exp.run_treatments == 0 then
    error(("%s: no run treatments (a top-level treatments: list of mappings); nothing to benchmark")
      :format(exp_path or exp.name), 0)
  end
end

-- Runs exp (llmd.experiment) with plan. opts: dry_run, resume (workspace), stop_on_error,
-- skip_teardown, only (step set), out, quiet (no progress lines, nor the summary table: a
-- failure, warnings, where the comparison is and how to go on are still said, on out; a dry
-- run's commands are its output, so it prints them, as cluster.run). Returns ok (every
-- treatment succeeded; with only, every step it ran succeeded, the treatments it left
-- pending in ctx.pending), ctx.
function M.run(exp, plan, opts)
  opts = opts or {}
  local loud = opts.out or io.stdout
  local out = (opts.quiet and not opts.dry_run) and cluster.QUIET or loud
  local bins = cluster.tool_bins(plan)
  -- no setup phase: one treatment, named default, with no overrides
  local setup_list = exp.setup_treatments
  if #setup_list == 0 then setup_list = { { name = "default", overrides = {} } } end
  exp.setup_treatments = setup_list
  M.check_runnable(exp, opts.experiment_path)
  for _, n in ipairs(M.check_run_treatments(exp, plan, opts.experiment_path)) do loud:write(n, "\n") end
  M.check_setup_treatments(exp, plan, opts.experiment_path, opts.plan_path)
  M.check_setup_value_keys(exp, plan, opts.experiment_path, opts.plan_path)
  local names = plan.namespaces
  if names and opts.namespace then
    -- (each value as a shell would read it: a space or quote in one is seen)
    local listed = {}
    for i, n in ipairs(type(names) == "table" and names or { names }) do listed[i] = k8s.cmdline { tostring(n) } end
    error(("%s: the plan lists namespaces: %s; give the namespaces in one place"):format(
      k8s.cmdline { "--namespace", opts.namespace }, table.concat(listed, ", ")), 0)
  end
  if not names then
    if opts.namespace and plan.namespace and opts.namespace ~= plan.namespace then
      error(("%s: the plan says namespace: %s; give the namespace in one place (drop --namespace, or "
        .. "namespace: from the plan)"):format(k8s.cmdline { "--namespace", opts.namespace },
        k8s.cmdline { tostring(plan.namespace) }), 0)
    end
    local ns, from = plan.namespace, "namespace"
    if not ns and opts.namespace then ns, from = opts.namespace, "--namespace " .. opts.namespace end
    if not ns then
      local env = os.getenv("NAMESPACE")
      if env and env ~= "" then ns, from = env, "$NAMESPACE (" .. env .. ")" end
    end
    if not ns then error("no namespace: give namespaces: [...] (or namespace:) in the plan, or set $NAMESPACE", 0) end
    local why = cluster.system_namespace(ns)
    if why then error(("%s: %s"):format(from, why), 0) end
    names = { ns }
  end
  local parallel = math.min(plan.parallel or 1, #setup_list)
  if parallel > #names then
    error(("%s: parallel: %d needs at least %d namespaces (the plan lists %d); each stack runs in its own")
      :format(opts.plan_path or "plan", parallel, parallel, #names), 0)
  end
  if opts.skip_teardown and #names < #setup_list then
    error(("--skip-teardown keeps every stack: %d setup treatments need %d namespaces (the plan lists %d)")
      :format(#setup_list, #setup_list, #names), 0)
  end
  -- a new experiment's preflight, before its workspace is made (in a dry run too), as a new
  -- comparison's: the tools its deploys run, and a cluster kubectl reaches (one line, nothing
  -- made or run); the identity it read is the one the workspace records
  -- (a workspace whose path run_only.sh cannot be handed, where the configs go, is refused
  -- first, as compare.lua refuses it: nothing made or run, not even the preflight's reads)
  local preflight_id
  if not opts.resume then
    local bad = cluster.workspace_path_problem(plan.parent or ".", plan.parent and "the plan's parent:"
      or "parent: in the plan, or start in a plain folder")
    if bad then error(("%s: %s; nothing was made or run"):format(opts.plan_path or "plan", bad), 0) end
    preflight_id = cluster.preflight_cluster(plan, bins, names[1], opts.plan_path or "plan")
  end
  local w, made
  if opts.resume then
    -- absolute: run_only.sh runs in run-x/benchmark, where a relative config path names nothing
    local p = opts.resume:gsub("(.)/+$", "%1")
    p = require("llmd.proc").realpath(p) or p
    local lok, lerr = ws.lock(p, "experiment.lua --resume") -- (experiment.lua took it first)
    if not lok then error(lerr, 0) end
    w = { path = p, name = p:match("[^/]+$") }
  else
    local parent = plan.parent or "." -- (its path checked above, before the preflight)
    -- a dry run's workspace goes when it ends, with the parent folders made for it (as
    -- compare.lua's: llmd.cluster.remove_dry_run), so that the real run's name is not taken
    if opts.dry_run then made = ws.missing_folders(parent) end
    -- a name taken (another experiment started in the same second) gets a suffix -2, -3, ...
    w = ws.create { parent = parent, base = os.date("llm-d-experiment-" .. exp.name:gsub("[^%w%-_.]", "_")
      .. "-%Y%m%d-%H%M%S") }
    local lok, lerr = ws.lock(w.path, "experiment.lua")
    if not lok then error(lerr, 0) end
    ws.write_text(w.path .. "/plan.yaml", yaml.dump(plan))
    if opts.experiment_path then
    ws.write_text(w.path .. "/experiment.yaml", assert(io.open(opts.experiment_path)):read("a"))
  end
  end
  local pool = {}
  for _, n in ipairs(names) do pool[#pool + 1] = { ns = n, busy = false, dirty = false } end
  local t = plan.timeouts or {}
  local ctx = {
    exp = exp, plan = plan, ws = w, out = out, loud = loud, t0 = os.time(), dry_run = opts.dry_run, bins = bins,
    pool = pool, cut = {},
    parallel = parallel, stop_on_error = opts.stop_on_error, skip_teardown = opts.skip_teardown,
    resume = opts.resume ~= nil, stacks = {}, results = {}, setup = {}, run_by_name = {}, failed_before = {},
    plan_path = opts.plan_path,
    scratch = opts.dry_run and not opts.resume or nil, made_folders = made,
    timeouts = { ready = t.ready or 900, benchmark = t.benchmark or 0, smoke = t.smoke or 120, poll = t.poll or 5 },
  }
  for _, rt in ipairs(exp.run_treatments) do ctx.run_by_name[rt.name] = rt end
  if opts.on_ctx then opts.on_ctx(ctx) end -- (the caller's view, for what an interrupt leaves)
  local stacks = {}
  for _, s in ipairs(setup_list) do
    ctx.setup[s.name] = s
    stacks[#stacks + 1] = s.name
    ctx.results[s.name] = { setup_treatment = s.name, status = "pending", run_completed = 0,
      run_total = #exp.run_treatments, duration = 0, workspace_dir = w.path .. "/setup-treatment-" .. s.name }
  end
  if opts.resume and lfs.attributes(w.path .. "/experiment-state.json", "mode") == "file" then
    local st = json.read(w.path .. "/experiment-state.json")
    if st.dry_run and not opts.dry_run then
      error(("%s: the workspace of a dry run: none of its steps ran, so it holds nothing to resume; run the "
        .. "experiment without --dry-run (%s)"):format(w.path, k8s.cmdline { "llmdlua", "experiment.lua",
        opts.experiment_path or "EXPERIMENT.yaml", "--plan", w.path .. "/plan.yaml" }), 0)
    end
    if type(st.elapsed_seconds) == "number" then
      ctx.earlier_seconds = st.elapsed_seconds
    else
      ctx.earlier_unknown = "the time of a session before this one was not recorded (an earlier llmdlua)"
    end
    ctx.cut_before = {}
    for _, r in ipairs(st.results or {}) do
      if ctx.results[r.setup_treatment] then
        -- (begun and not finished: a session before was cut while it ran)
        if r.began and r.status == "pending" then ctx.cut_before[r.setup_treatment] = true end
        r.started, r.not_started, r.running = nil, nil, nil
        ctx.results[r.setup_treatment] = r
        -- a namespace a kept or failed stack still occupies stays its own
        for _, slot in ipairs(pool) do
          if slot.ns == r.namespace and r.status ~= "success" and r.status ~= "pending" then
            slot.busy = r.setup_treatment
          end
          if slot.ns == r.namespace and r.status == "pending" and r.began then slot.busy = r.setup_treatment end
        end
        -- a pending one's error says why it did not start (--stop-on-error): it may now. A
        -- failed one keeps its status and error until a step of it runs again (M.steps_list:
        -- begin_again), so that a resume which runs none of its steps (--step) still says
        -- why it failed
        if r.status == "pending" then r.error = nil
        elseif r.status ~= "success" then ctx.failed_before[r.setup_treatment] = r.status end
      end
    end
  end
  -- which cluster (llmd.cluster.identity): recorded; a resume elsewhere, or where the
  -- workspace could not tell, is refused (compare.lua's --resume does the same)
  if not opts.dry_run then
    local id = preflight_id or cluster.identity(k8s.new { namespace = names[1], log = w.path .. "/commands.log",
      bins = bins, out = out })
    local where = w.path .. "/cluster.json"
    cluster.record_cluster(w.path, id, { namespaces = names },
      opts.resume and (lfs.attributes(where, "mode") == "file" and json.read(where) or {}) or nil,
      opts.use_current_context, loud, "experiment.lua")
  end
  -- every namespace of the plan, before anything in any of them is looked at or deployed:
  -- two experiments at once (two folders, -2 suffixed, one plan's namespaces) deployed the
  -- same releases and tore down each other's stacks (llmd.cluster.lock_namespace)
  local locks = {}
  local function unlock_all(interrupted)
    -- (after a Ctrl-C too: proc.cleanup lets the release's kubectl calls run, which the
    -- interrupt would stop at once)
    if interrupted then require("llmd.proc").take_interrupt() end
    for _, l in ipairs(locks) do require("llmd.proc").cleanup(cluster.unlock_namespace, l, loud) end
  end
  if not opts.dry_run then
    local lok, lerr = pcall(function()
      for _, n in ipairs(names) do
        locks[#locks + 1] = cluster.lock_namespace(k8s.new { namespace = n, log = w.path .. "/commands.log",
          bins = bins, out = out }, w.path, opts.resume and "experiment.lua --resume" or "experiment.lua", loud)
      end
    end)
    if not lok then
      unlock_all(tostring(lerr):match("interrupted$"))
      -- (a fresh workspace holds nothing yet: it goes, as compare.lua's does)
      if not opts.resume then
        local removed, why = ws.remove(w)
        for _, d in ipairs(made or {}) do lfs.rmdir(d) end
        lerr = ("%s (%s)"):format(tostring(lerr), removed and ("the workspace %s was removed"):format(w.path)
          or ("the workspace %s is kept (could not remove it: %s)"):format(w.path, tostring(why)))
      end
      error(lerr, 0)
    end
  end
  local sok, serr = pcall(save, ctx)
  if not sok then
    unlock_all(tostring(serr):match("interrupted$"))
    error(serr, 0)
  end
  out:write(("Experiment %s: %d setup x %d run treatment(s) = %d; namespaces %s (%d at a time)%s\n"):format(exp.name,
    #setup_list, #exp.run_treatments, #setup_list * #exp.run_treatments, table.concat(names, ", "), parallel,
    opts.dry_run and ("; dry run: nothing is changed or read, the treatments are shown one after another, each "
      .. "in the namespace a real run would give it") or ""))
  for _, wmsg in ipairs(exp.warnings) do loud:write("warning: ", wmsg, "\n") end
  if exp.run_controls.validate_failures then
    loud:write("warning: validate_failures: not used by llmdlua (every run treatment's results are health-checked "
      .. "anyway: no results, no successful request or a harness that stopped early fail it)\n")
  end
  -- the summary is written again on every run, whatever an earlier one recorded
  local previous = {}
  for _, o in ipairs(steps.load_record(w.path .. "/steps.json")) do
    if o.name ~= "summary" then previous[#previous + 1] = o end
  end
  if opts.resume then M.rerun_failed_runs(ctx, previous) end
  local rok, outcome = pcall(steps.run, "experiment", M.steps_list(), ctx, {
    -- a dry run waits for nothing, so its stacks go one after another, each whole (in
    -- coroutines a stack's first lines came out between the other's)
    stacks = stacks, parallel = opts.dry_run and 1 or parallel, only = opts.only,
    -- a dry run's steps are recorded as such, never as done; over a real run's workspace
    -- (--resume W --dry-run) not at all: the real resume must still find them to do
    record = not (opts.dry_run and opts.resume) and (w.path .. "/steps.json") or nil, dry_run = opts.dry_run,
    previous = previous, announce = function(_, s) if s then begin_again(ctx, s) end end,
    resume = opts.resume ~= nil, out = loud, -- (its lines are failures)
    -- (the steps this session's interrupt cut, for M.interrupted_where)
    on_failure = function(o) if tostring(o.message):match("interrupted$") then ctx.cut[#ctx.cut + 1] = o end end,
  })
  unlock_all(not rok and tostring(outcome):match("interrupted$"))
  -- (the time up to the interrupt, for the resume's total)
  if not rok then pcall(save, ctx) end
  if not rok then error(outcome, 0) end
  ctx.result = outcome
  -- A --step subset leaves its treatments pending where it did not select their later steps
  -- (teardown finishes a treatment): that is what was asked, not a failure, as long as every
  -- step it ran succeeded and no run treatment failed. ctx.pending names them.
  local failed = not outcome.ok
  ctx.pending = {}
  for _, s in ipairs(stacks) do
    local r = ctx.results[s]
    if r.status == "pending" then
      ctx.pending[#ctx.pending + 1] = s
      if r.not_started or (r.run_failures and #r.run_failures > 0) then failed = true end
    elseif r.status ~= "success" then
      failed = true
    end
  end
  local all_ok = not failed and (#ctx.pending == 0 or opts.only ~= nil)
  return all_ok, ctx
end

-- The one line on stderr of an experiment that did not succeed (README: exit 1 is one line on
-- stderr; newuser50 F3): which setup treatments failed, how, and the first line of why; the
-- details (what is left deployed, the command to go on) stay where they are said, on stdout.
function M.failure_line(ctx)
  local parts, n = {}, 0
  for _, st in ipairs(ctx.exp.setup_treatments) do
    local r = ctx.results[st.name]
    n = n + 1
    if r and r.status ~= "success" and r.status ~= "pending" then
      parts[#parts + 1] = ("%s %s (%s)"):format(st.name, r.status,
        tostring(r.error or "no reason recorded"):match("^[^\n]*"))
    elseif r and r.status == "pending" and r.run_failures and #r.run_failures > 0 then
      parts[#parts + 1] = ("%s: run treatment %s"):format(st.name, tostring(r.run_failures[1]):match("^[^\n]*"))
    elseif r and r.status == "pending" and r.not_started then
      parts[#parts + 1] = ("%s not started (%s)"):format(st.name, tostring(r.error or ctx.halt or "stopped"))
    end
  end
  -- (true to what stdout says, M.left_text: fixs50, one refused before its deploy said "what is
  -- left deployed" where stdout said nothing needs tearing down)
  local where = ctx.dry_run and "what the dry run did is in the output above"
    or #M.left_deployed(ctx) > 0 and "what is left deployed and the command to go on are in the output above"
    or "nothing is left deployed; the command to go on is in the output above"
  if #parts > 0 then
    return ("experiment.lua: %d of %d setup treatment(s) did not succeed: %s; %s"):format(#parts, n,
      table.concat(parts, "; "), where)
  end
  -- no treatment's result explains it: the failed step says what did not succeed, and whose
  -- it was (a step of no treatment, as one before any treatment ran, is the experiment's; the
  -- line claimed "1 of N setup treatment(s) did not succeed" there: fixw50)
  local o = ctx.result and ctx.result.failed and ctx.result.failed[1]
  if o then
    return ("experiment.lua: step %d (%s)%s did not succeed: %s; %s"):format(o.number, o.name,
      o.stack and (" of setup treatment " .. o.stack) or "", tostring(o.message):match("^[^\n]*"), where)
  end
  local pending = {}
  for _, st in ipairs(ctx.exp.setup_treatments) do
    local r = ctx.results[st.name]
    if not r or r.status == "pending" then pending[#pending + 1] = st.name end
  end
  return ("experiment.lua: %d of %d setup treatment(s) did not complete: %s pending; %s"):format(#pending, n,
    #pending > 0 and table.concat(pending, ", ") or "none", where)
end

return M
