-- llmd.experiment: llm-d-benchmark's experiment (design of experiments) files.
--
--   local ex = require "llmd.experiment"
--   local e = ex.load("pd-disaggregation.yaml")
--   e.name, e.harness, e.profile, e.dataset_url
--   e.setup_treatments   -- { {name =, overrides = nested values override}, ... } (document order)
--   e.run_treatments     -- { {name =, profile =, overrides = {{path =, value =}, ...}}, ... }
--   e.total_matrix, e.reset_caches, e.run_controls, e.warnings
--   local p, unmatched = ex.apply_overrides(profile, run_treatment.overrides)  -- a changed copy
--
-- Keys read, as llm-d-benchmark's parser reads them: experiment.{name, harness, profile,
-- datasetUrl}; setup.constants and setup.treatments (each a mapping: name + dotted keys,
-- constants first, the treatment's keys win; "a.b.c: v" becomes {a = {b = {c = v}}} and
-- _PROTECTDOT_ in a key stands for a literal dot); the run treatments, from the top-level
-- `treatments` list, else the `run` list (a `run:` mapping - the legacy factor format - has
-- none); a top-level `constants` mapping merged into every run treatment first;
-- reset_caches, treatment_max_attempts, treatment_stop_on_error, validate_failures. The
-- design: block is informational. Items that are not mappings are skipped with a warning
-- (the legacy "1,1,2,1" strings); values of the wrong type are an error naming the key.
local yaml = require "llmd.yaml"

local M = {}

M.PROTECTDOT = "_PROTECTDOT_"

local function is_map(v)
  if type(v) ~= "table" then return false end
  if getmetatable(v) and require("llmd.json").is_array(v) then return false end
  return #v == 0
end

local function is_list(v)
  if type(v) ~= "table" then return false end
  if next(v) == nil then return require("llmd.json").is_array(v) or getmetatable(v) == nil end
  return #v > 0 and not is_map(v)
end

-- A mapping's keys in document order (sorted for tables not made by llmd.yaml).
local function keys(t)
  local ok, ks = pcall(yaml.keys, t)
  if ok and type(ks) == "table" and #ks > 0 then return ks end
  ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  return ks
end
M.keys = keys

-- "a.b_PROTECTDOT_c.d" -> {"a", "b.c", "d"}
function M.split_path(key)
  local parts = {}
  for seg in (tostring(key) .. "."):gmatch("(.-)%.") do
    parts[#parts + 1] = (seg:gsub(M.PROTECTDOT, "."))
  end
  return parts
end

local function deep_copy(v, seen)
  if type(v) ~= "table" then return v end
  seen = seen or {}
  if seen[v] then return seen[v] end
  local c = {}
  seen[v] = c
  for k, x in pairs(v) do c[k] = deep_copy(x, seen) end
  return setmetatable(c, getmetatable(v))
end
M.deep_copy = deep_copy

-- {{key, value}, ...} of dotted keys -> nested mapping. A key that needs a mapping where
-- another key put a value (or the reverse) is an error naming both: `where` says whose.
function M.dotted_to_nested(pairs_list, where)
  local out, kind, who = {}, {}, {}
  for _, kv in ipairs(pairs_list) do
    local key, value = kv[1], kv[2]
    local parts = M.split_path(key)
    local node, path = out, nil
    for i = 1, #parts - 1 do
      path = path and (path .. "." .. parts[i]) or parts[i]
      if kind[path] == "value" then
        error(("%s: '%s' needs %s to be a mapping, but '%s' sets it to a value"):format(where, key, path,
          who[path]), 0)
      end
      if not kind[path] then
        kind[path], who[path] = "map", key
        node[parts[i]] = {}
      end
      node = node[parts[i]]
    end
    local full = table.concat(parts, ".")
    if kind[full] == "map" then
      error(("%s: '%s' sets %s to a value, but '%s' needs it to be a mapping"):format(where, key, full,
        who[full]), 0)
    end
    kind[full], who[full] = "value", key
    node[parts[#parts]] = deep_copy(value)
  end
  return out
end

-- Applies dotted overrides ({{path =, value =}}) to a copy of profile. Integer segments
-- index lists (from 0, as upstream); a path whose parent does not exist is unmatched:
-- returned, not applied. A path whose parent exists but whose last key does not is added
-- (as upstream: a run treatment may set a key the profile leaves out, e.g.
-- load.stages.0.concurrent_sessions) and listed in added: {path =, siblings = the keys the
-- parent mapping had before}. Returns the new profile, the unmatched paths and added.
function M.apply_overrides(profile, overrides)
  local p = deep_copy(profile)
  local unmatched, added = {}, {}
  for _, o in ipairs(overrides) do
    local parts = M.split_path(o.path)
    local node, ok = p, true
    for i = 1, #parts - 1 do
      local seg = parts[i]
      local nxt
      if type(node) == "table" and is_list(node) and seg:match("^%d+$") then
        nxt = node[tonumber(seg) + 1]
      elseif type(node) == "table" then
        nxt = node[seg]
      end
      if type(nxt) ~= "table" then ok = false; break end
      node = nxt
    end
    local leaf = parts[#parts]
    if ok then
      if is_list(node) and next(node) ~= nil then
        local i = leaf:match("^%d+$") and tonumber(leaf) + 1
        if i and i <= #node + 1 then node[i] = deep_copy(o.value) else ok = false end
      else
        if node[leaf] == nil then
          local siblings = {}
          for k in pairs(node) do
            if type(k) == "string" then siblings[#siblings + 1] = k end
          end
          table.sort(siblings)
          added[#added + 1] = { path = o.path, siblings = siblings }
        end
        node[leaf] = deep_copy(o.value)
      end
    end
    if not ok then unmatched[#unmatched + 1] = o.path end
  end
  return p, unmatched, added
end

-- The existing key a key absent from its mapping was most likely meant to be: one equal to
-- it but for case and '-' / '_', else one within an edit distance (a swap of two
-- neighbouring letters counting 1) of a fifth of its length (at least 1, even for a short
-- key: `rat` for `rate`); nil when none is that close. llmd.opts.near's rule, as
-- llmd.valuekeys.near's, with this threshold. Stricter than
-- llmd.opts.closest (no prefix rule, a fifth, not a third): adding a key is legitimate
-- (load.stages.0.concurrent_sessions beside rate), so only a near miss is refused.
function M.near_miss(key, siblings)
  -- (llmd.opts.near's rule, a swap of two neighbouring letters counting 1; this threshold)
  return require("llmd.opts").near(key, siblings, function(k) return math.max(1, #k // 5) end)
end

-- A YAML value as an error message shows it: what it is, never a table's address (the
-- plan's words, llmd.cluster.value_shown).
local function describe(v) return require("llmd.cluster").value_shown(v) end

local function check_bool(v, key, path)
  if v == nil then return false end
  if type(v) ~= "boolean" then
    -- (llmd.cluster.bool_problem's words: 'no' is a string in YAML 1.2, and so said)
    error(("%s: %s: %s"):format(path, key, require("llmd.cluster").bool_problem(v)), 0)
  end
  return v
end

-- A treatment's name (or dflt when it has none). It names the treatment's folder in the
-- workspace (setup-treatment-NAME/, run-NAME/), a folder of the config path run_only.sh is
-- handed, and a run treatment's workload (PROFILE-NAME): run_only.sh hands both to bash's
-- eval, so it is a plain name (llmd.cluster.plain_name_problem: letters, digits, '.', '_'
-- and '-'; a string or a number), not '.' or '..'.
local function treatment_name(v, where, dflt)
  if v == nil or v == yaml.null then return dflt end
  if type(v) ~= "string" and type(v) ~= "number" then
    error(("%s.name: expected a string, got %s"):format(where, describe(v)), 0)
  end
  local n = tostring(v)
  if n == "." or n == ".." or not n:match("^[A-Za-z0-9._%-]+$") then
    error(("%s.name: %s names the treatment's folder and (a run treatment's) workload: expected letters, digits, "
      .. "'.', '_' and '-' only, not '.' or '..' (run_only.sh hands the workload and its config's folder to bash's "
      .. "eval, which would run a $(...) or `...` in them)"):format(where, describe(n)), 0)
  end
  return n
end

-- The keys an experiment file may hold, by where (upstream's, its legacy and informational
-- ones included): any other is a misspelling, refused with the one it most likely meant (a
-- misspelt setup.treatments ran one default treatment, and said nothing). Treatments' own
-- keys are the dotted values they set, free.
M.KNOWN_KEYS = {
  [""] = { "experiment", "setup", "treatments", "run", "constants", "design", "reset_caches",
    "treatment_max_attempts", "treatment_stop_on_error", "validate_failures" },
  experiment = { "name", "harness", "profile", "datasetUrl", "description" },
  setup = { "constants", "treatments", "factors", "levels" },
}
local function check_keys(t, where, path)
  local known = {}
  for _, k in ipairs(M.KNOWN_KEYS[where]) do known[k] = true end
  local bad = {}
  for k in pairs(t) do if not known[k] then bad[#bad + 1] = tostring(k) end end
  if #bad == 0 then return end
  table.sort(bad)
  local names = {}
  for i, k in ipairs(M.KNOWN_KEYS[where]) do names[i] = k end
  table.sort(names)
  local near = require("llmd.opts").closest(bad[1], names)
  error(("%s: %s%s: unknown key (%sknown: %s)"):format(path, where == "" and "" or (where .. "."), bad[1],
    near and ("did you mean %s? "):format(near) or "", table.concat(names, ", ")), 0)
end

-- A setup treatment's own keys: every other key of it is a values key, written into the values
-- override helm is given as it is (a misspelt `nme: two` named no treatment, which ran as
-- setup-N, and sent nme to the chart).
M.SETUP_TREATMENT_KEYS = { "name" }

-- Refuses a key of setup treatment t (its index i, from 0; shown: its name as the workspace gets
-- it) that is a near miss of one of M.SETUP_TREATMENT_KEYS: one path segment (a dotted key is a
-- values path), equal to it but for case and '-' / '_', within an edit distance of 1 or two
-- neighbouring letters swapped (nme, nmae, names; not node or mode: within 2 of a four-letter
-- key is half of it, and real values keys fall there), with a scalar value (a name is a string
-- or a number; a mapping or a list is values), and no values key the file knows (values: the
-- top segments of the keys setup.constants sets and of the values paths the treatments set).
-- Raises one line naming the file, the treatment and the key.
local function check_setup_keys(t, i, shown, values, path)
  local dist = require("llmd.opts").distance
  local function norm(x) return (x:lower():gsub("%-", "_")) end
  local function swapped(a, b) -- b is a with two neighbouring letters swapped
    if #a ~= #b then return false end
    for j = 1, #a - 1 do
      if a:sub(1, j - 1) .. a:sub(j + 1, j + 1) .. a:sub(j, j) .. a:sub(j + 2) == b then return true end
    end
    return false
  end
  for _, k in ipairs(keys(t)) do
    local key = tostring(k)
    local v = t[k]
    if not key:find(".", 1, true) and not values[key] and type(v) ~= "table"
      and v ~= yaml.null and key ~= "name" then
      for _, own in ipairs(M.SETUP_TREATMENT_KEYS) do
        if norm(key) == own or dist(norm(key), own) <= 1 or swapped(norm(key), own) then
          error(("%s: setup.treatments[%d] (setup treatment %s): %s: not a setup treatment's key (did you mean %s? "
            .. "a setup treatment's own keys: %s; any other is sent to helm as a values key, and nothing else in "
            .. "the file sets %s as one)"):format(path, i, shown, key, own,
            table.concat(M.SETUP_TREATMENT_KEYS, ", "), key), 0)
        end
      end
    end
  end
end

-- The experiment in doc (a table from llmd.yaml); path names the file in errors.
function M.parse(doc, path)
  path = path or "experiment"
  if doc == nil then doc = {} end
  if not is_map(doc) then error(path .. ": expected a mapping (an experiment)", 0) end
  check_keys(doc, "", path)
  if is_map(doc.experiment) then check_keys(doc.experiment, "experiment", path) end
  if is_map(doc.setup) then check_keys(doc.setup, "setup", path) end
  local e = { warnings = {}, setup_treatments = {}, run_treatments = {} }
  local function warn(fmt, ...) e.warnings[#e.warnings + 1] = path .. ": " .. fmt:format(...) end
  local meta = doc.experiment
  if meta ~= nil and not is_map(meta) then error(path .. ": experiment: expected a mapping", 0) end
  meta = meta or {}
  local function str(v, key)
    if v == nil or v == yaml.null then return nil end
    if type(v) ~= "string" then error(("%s: %s: expected a string, got %s"):format(path, key, describe(v)), 0) end
    return v
  end
  e.name = str(meta.name, "experiment.name")
  -- the name is the workspace's (llm-d-experiment-NAME-...) and the summary's: an empty one
  -- would name nothing (no name at all: the file's, without its extension)
  if e.name and not e.name:find("%S") then
    error(("%s: experiment.name: expected a non-empty string (it names the workspace, llm-d-experiment-NAME-...), "
      .. "got %s"):format(path, describe(e.name)), 0)
  end
  e.name = e.name or (path:match("([^/]+)$"):gsub("%.[^.]*$", ""))
  e.harness = str(meta.harness, "experiment.harness")
  e.profile = str(meta.profile, "experiment.profile")
  e.dataset_url = str(meta.datasetUrl, "experiment.datasetUrl")

  -- setup treatments
  local setup = doc.setup
  if setup ~= nil and setup ~= yaml.null then
    if not is_map(setup) then error(path .. ": setup: expected a mapping (constants, treatments)", 0) end
    local consts = setup.constants
    if consts ~= nil and consts ~= yaml.null and not is_map(consts) then
      error(path .. ": setup.constants: expected a mapping of dotted keys", 0)
    end
    local list = setup.treatments
    if list ~= nil and list ~= yaml.null and not is_list(list) then
      error(path .. ": setup.treatments: expected a list", 0)
    end
    -- the values keys the file knows, by their top segment: whatever setup.constants sets, and
    -- what a treatment sets as a values path (a dotted key, or a mapping below it). A bare
    -- scalar the same in every treatment (a misspelt name copied into each) is not one.
    local values = {}
    for k in pairs(is_map(consts) and consts or {}) do values[M.split_path(k)[1]] = true end
    for _, t in ipairs(list or {}) do
      for k, v in pairs(is_map(t) and t or {}) do
        if tostring(k):find(".", 1, true) or type(v) == "table" then values[M.split_path(k)[1]] = true end
      end
    end
    for i, t in ipairs(list or {}) do
      if not is_map(t) then
        warn("setup.treatments[%d]: not a mapping (%s); skipped", i - 1, describe(t))
      else
        local name = treatment_name(t.name, ("%s: setup.treatments[%d]"):format(path, i - 1), "setup-" .. i)
        check_setup_keys(t, i - 1, name, values, path)
        local flat, at, from = {}, {}, {}
        local function add(k, v, src)
          if at[k] then flat[at[k]][2] = v else flat[#flat + 1] = { k, v }; at[k] = #flat end
          from[k] = src
        end
        for _, k in ipairs(consts and keys(consts) or {}) do add(tostring(k), consts[k], "setup.constants") end
        for _, k in ipairs(keys(t)) do
          if k ~= "name" then add(tostring(k), t[k], ("setup treatment %s"):format(name)) end
        end
        -- the names these values give the charts (namespaces, releases) are checked now, before
        -- any cluster call, as the plan's are (llmd.cluster.value_name_problems)
        local problems = {}
        for _, kv in ipairs(flat) do
          for _, p in ipairs(require("llmd.cluster").value_name_problems(kv[2], kv[1])) do
            problems[#problems + 1] = ("%s: %s: %s: %s"):format(path, from[kv[1]], p.key, p.why)
          end
        end
        if #problems > 0 then error(table.concat(problems, "\n"), 0) end
        e.setup_treatments[#e.setup_treatments + 1] = {
          name = name, overrides = M.dotted_to_nested(flat, ("%s: setup treatment %s"):format(path, name)),
        }
      end
    end
  end
  local seen = {}
  for _, t in ipairs(e.setup_treatments) do
    if seen[t.name] then error(("%s: two setup treatments are named %s"):format(path, t.name), 0) end
    seen[t.name] = true
  end
  e.has_setup_phase = #e.setup_treatments > 0

  -- run treatments
  local rlist = doc.treatments
  local rkey = "treatments"
  if rlist == nil or rlist == yaml.null then rlist, rkey = doc.run, "run" end
  if rlist ~= nil and rlist ~= yaml.null and not is_list(rlist) then
    if rkey == "run" and is_map(rlist) then
      warn("run: a mapping (the legacy factors format) - no run treatments read from it")
      rlist = nil
    else
      error(("%s: %s: expected a list of run treatments"):format(path, rkey), 0)
    end
  end
  local rconsts = doc.constants
  if rconsts ~= nil and rconsts ~= yaml.null and not is_map(rconsts) then
    error(path .. ": constants: expected a mapping of dotted keys", 0)
  end
  seen = {}
  for i, t in ipairs(rlist or {}) do
    if not is_map(t) then
      warn("%s[%d]: not a mapping (%s); skipped", rkey, i - 1, describe(t))
    else
      local name = treatment_name(t.name, ("%s: %s[%d]"):format(path, rkey, i - 1), "t" .. i)
      if seen[name] then error(("%s: two run treatments are named %s"):format(path, name), 0) end
      seen[name] = true
      local ov, at = {}, {}
      local function add(k, v)
        if at[k] then ov[at[k]].value = v else ov[#ov + 1] = { path = k, value = v }; at[k] = #ov end
      end
      for _, k in ipairs(rconsts and keys(rconsts) or {}) do add(tostring(k), rconsts[k]) end
      for _, k in ipairs(keys(t)) do
        if k ~= "name" and k ~= "profile" then add(tostring(k), t[k]) end
      end
      e.run_treatments[#e.run_treatments + 1] = {
        name = name, profile = str(t.profile, ("%s[%d].profile"):format(rkey, i - 1)), overrides = ov,
      }
    end
  end
  e.run_treatments_count = #e.run_treatments
  e.total_matrix = math.max(#e.setup_treatments, 1) * math.max(#e.run_treatments, 1)

  e.reset_caches = check_bool(doc.reset_caches, "reset_caches", path)
  local att = doc.treatment_max_attempts
  if att == nil then att = 1 end
  if math.type(att) ~= "integer" then
    error(("%s: treatment_max_attempts: expected an integer >= 1, got %s"):format(path, describe(att)), 0)
  end
  e.run_controls = {
    treatment_max_attempts = math.max(att, 1),
    treatment_stop_on_error = check_bool(doc.treatment_stop_on_error, "treatment_stop_on_error", path),
    validate_failures = check_bool(doc.validate_failures, "validate_failures", path),
  }
  return e
end

function M.load(path)
  local ok, doc = pcall(yaml.load_file, path)
  if not ok then error(tostring(doc), 0) end
  return M.parse(doc, path)
end

-- What --show can say of the run treatments' keys without a benchmark template (no --plan):
-- which keys go unchecked, and any two the treatments set under one parent whose last keys
-- are near misses of each other (M.near_miss: rat beside rate; not two that differ only in
-- digits, stage_0 and stage_1), as one of them most likely names no key of the template.
-- Returns the lines for standard error, path: the experiment file as given.
function M.unchecked_key_lines(e, path)
  local paths, seen, by_parent = {}, {}, {}
  for _, rt in ipairs(e.run_treatments) do
    for _, o in ipairs(rt.overrides) do
      if not seen[o.path] then
        seen[o.path] = rt.name
        paths[#paths + 1] = o.path
        local parent, leaf = o.path:match("^(.*)%.([^.]+)$")
        parent, leaf = parent or "", leaf or o.path
        by_parent[parent] = by_parent[parent] or {}
        table.insert(by_parent[parent], leaf)
      end
    end
  end
  if #paths == 0 then return {} end
  local lines = { ("note: %s: the run treatments' keys (%s) are not checked: without --plan there is no benchmark "
    .. "template to check them against; --show --plan FILE checks them, and --plan refuses a key that matches "
    .. "nothing in its template"):format(path, table.concat(paths, ", ")) }
  for _, k in ipairs(paths) do
    local parent, leaf = k:match("^(.*)%.([^.]+)$")
    parent, leaf = parent or "", leaf or k
    local others = {}
    for _, l in ipairs(by_parent[parent]) do
      -- (each pair once, and never two names that differ only in their digits)
      if l > leaf and l:gsub("%d", "") ~= leaf:gsub("%d", "") then others[#others + 1] = l end
    end
    local near = M.near_miss(leaf, others)
    if near then
      local other = parent ~= "" and (parent .. "." .. near) or near
      lines[#lines + 1] = ("warning: %s: run treatment %s sets %s and run treatment %s sets %s, a letter or two "
        .. "apart: one of them is most likely misspelt and would benchmark the template's value under its "
        .. "treatment's name (--show --plan FILE tells which the template has)"):format(path, seen[k], k, seen[other],
        other)
    end
  end
  return lines
end

-- A run treatment's key that changes only the load offered, not the workload: inference-perf's
-- load stages (load.stages, or a key under it: a stage's rate, concurrent_sessions, duration),
-- as the README's and llm-d-benchmark's sweeps set them. Any other key (load.type, data.*,
-- api.*, another harness's keys) makes another workload: other requests, or another arrival
-- pattern, whose figures are not load points of the same curve.
function M.load_key(path)
  path = tostring(path)
  return path == "load.stages" or path:sub(1, 12) == "load.stages."
end

-- The keys other than load keys (M.load_key) on which the run treatments named in names (all
-- of e's when nil) differ: set to different values, or set by some and not by others. {}
-- when they differ in the load alone (or not at all).
function M.workload_keys(e, names)
  local same = require("llmd.report").same_value
  local want, rts = names and {} or nil, {}
  for _, n in ipairs(names or {}) do want[n] = true end
  for _, rt in ipairs(e.run_treatments) do
    if not want or want[rt.name] then rts[#rts + 1] = rt end
  end
  local vals, order = {}, {}
  for i, rt in ipairs(rts) do
    for _, o in ipairs(rt.overrides) do
      if not vals[o.path] then vals[o.path] = {}; order[#order + 1] = o.path end
      vals[o.path][i] = { v = o.value }
    end
  end
  local out = {}
  for _, k in ipairs(order) do
    if not M.load_key(k) then
      local first = vals[k][1]
      for i = 2, #rts do
        local x = vals[k][i]
        if (first == nil) ~= (x == nil) or (first and not same(first.v, x.v)) then
          out[#out + 1] = k
          break
        end
      end
    end
  end
  return out
end

-- The parsed form llm-d-benchmark's own parser reports (expected/parsed-experiments.json).
function M.summary(e)
  local json = require "llmd.json"
  local st = {}
  for i, t in ipairs(e.setup_treatments) do st[i] = { name = t.name, overrides = t.overrides } end
  local function n(v) if v == nil then return json.null end return v end
  return {
    name = e.name, harness = n(e.harness), profile = n(e.profile), dataset_url = n(e.dataset_url),
    has_setup_phase = e.has_setup_phase, setup_treatments = json.array(st),
    run_treatments_count = e.run_treatments_count, total_matrix = e.total_matrix, reset_caches = e.reset_caches,
    run_controls = e.run_controls,
  }
end

-- The file name of a rendered profile: <stem>-<treatment><suffix> ("random_concurrent.yaml",
-- "conc8" -> "random_concurrent-conc8.yaml").
function M.rendered_name(profile, treatment)
  local stem, suffix = profile:match("^(.-)(%.[^./]*%.in)$")
  if not stem then stem, suffix = profile:match("^(.-)(%.[^./]*)$") end
  if not stem then stem, suffix = profile, "" end
  return stem .. "-" .. treatment .. suffix
end

-- experiment-summary.yaml -----------------------------------------------------------------
--
-- As upstream writes it: keys in this order, durations rounded to 0.1 s, run treatments
-- as "completed/total", workspace_dir and error only when set. A result is
-- {setup_treatment, status, run_completed, run_total, duration, workspace_dir, error}.

M.STATUSES = { pending = true, success = true, failed_render = true, failed_standup = true,
  failed_smoketest = true, failed_run = true, failed_teardown = true }

local function round1(x) return tonumber(("%.1f"):format(x)) + 0.0 end
M.round1 = round1

function M.summary_doc(name, total_setup, total_run, results, total_seconds)
  local yo = require "llmd.yamlout"
  local ok, failed = 0, 0
  local list = {}
  for _, r in ipairs(results) do
    if not M.STATUSES[r.status] then error(("experiment summary: unknown status %s"):format(tostring(r.status)), 2) end
    if r.status == "success" then ok = ok + 1 end
    if r.status:match("^failed") then failed = failed + 1 end
    list[#list + 1] = yo.map("setup_treatment", r.setup_treatment, "status", r.status,
      "run_treatments", ("%d/%d"):format(r.run_completed or 0, r.run_total or total_run),
      -- (not known: N/A with the reason, never 0)
      "duration_seconds", r.duration_na and ("N/A (" .. r.duration_na .. ")") or round1(tonumber(r.duration) or 0),
      "workspace_dir", r.workspace_dir ~= "" and r.workspace_dir or nil,
      "error", r.error ~= "" and r.error or nil)
  end
  return yo.map("experiment", name, "total_setup_treatments", total_setup, "total_run_treatments", total_run,
    "total_matrix", math.max(total_setup, 1) * math.max(total_run, 1), "succeeded", ok, "failed", failed,
    "total_duration_seconds", type(total_seconds) == "string" and total_seconds or round1(total_seconds or 0),
    "treatments", list), ok, failed
end

function M.summary_yaml(...)
  return require("llmd.yamlout").dump((M.summary_doc(...)))
end

-- The printed summary: 62-character rules, one line per setup treatment, and under a
-- failed one, one line of its error: the first line of a message of several, with where the
-- whole message is (file: the experiment-summary.yaml that holds it, "experiment-summary.yaml"
-- when not given), so that every treatment's row stays one row.
function M.summary_table(name, total_setup, total_run, results, total_seconds, file)
  local _, ok, failed = M.summary_doc(name, total_setup, total_run, results, total_seconds)
  local rule = ("="):rep(62)
  local out = { rule, "DoE EXPERIMENT SUMMARY", rule,
    ("Experiment: %s"):format(name),
    ("Matrix: %d setup x %d run = %d"):format(total_setup, total_run,
      math.max(total_setup, 1) * math.max(total_run, 1)),
    type(total_seconds) == "string" and ("Duration: " .. total_seconds)
      or ("Duration: %.1f s"):format(total_seconds or 0), "" }
  for _, r in ipairs(results) do
    local icon = r.status == "success" and "OK  " or r.status == "pending" and "..  " or "FAIL"
    out[#out + 1] = ("  %s %-30s %-18s runs: %d/%d"):format(icon, r.setup_treatment, r.status,
      r.run_completed or 0, r.run_total or total_run)
    -- one line of the error under its row: a message of several lines ("looked for: ..." on
    -- one of its own) would put them at the margin, or make one treatment several rows; the
    -- first line that says something, and where the rest is
    if r.error and r.error:match("%S") then
      local lines = {}
      for l in (r.error .. "\n"):gmatch("([^\r\n]*)\r?\n") do
        if l:match("%S") then lines[#lines + 1] = l:gsub("^%s+", ""):gsub("%s+$", "") end
      end
      local more = #lines > 1 and (" (%d more line%s: see %s)"):format(#lines - 1, #lines > 2 and "s" or "",
        file or "experiment-summary.yaml") or ""
      out[#out + 1] = ("       %s%s"):format(lines[1], more)
    end
  end
  out[#out + 1] = ""
  out[#out + 1] = ("Result: %d/%d succeeded, %d failed"):format(ok, #results, failed)
  out[#out + 1] = rule
  return table.concat(out, "\n") .. "\n"
end

return M
