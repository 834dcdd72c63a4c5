-- llmd.workspace: the comparison workspace and each run's state in it.
--
--   local ws = require "llmd.workspace"
--   local w = ws.create{ parent = ".", name = nil }   -- llm-d-comparison-YYYYmmdd-HHMMSS/
--   ws.import(w, "a", { label = "baseline", results = "/data/run1", info = {...}, link = false })
--   local state = ws.read_state(w.path, "a")
--   ws.write_state(w.path, "a", state)
--
-- Layout: <workspace>/run-a/results/ and run-b/results/ (copies of, or links to, the
-- results), run-x/run_state.json (written atomically), run-x/run_model.json, and at the
-- top the report, comparison.json, comparison.csv, run_comparison.sh, templates/ and
-- commands.log. The source results are never modified.
local lfs = require "lfs"
local json = require "llmd.json"
local proc = require "llmd.proc"

local M = {}

-- run_state.json: the documented schema. Unknown configuration is "unknown".
M.STATE_KEYS = {
  stack = { "guide", "namespace", "hardware", "gateway", "model", "llmd_version", "decode_image" },
  benchmark = { "harness", "workload", "load_stages" },
}

local function mkdir_p(path)
  local r = proc.run { "mkdir", "-p", "--", path }
  if not r.ok then error(("%s: cannot create the folder: %s"):format(path, r.stderr:gsub("%s+$", "")), 0) end
end
M.mkdir_p = mkdir_p

-- Writes text atomically (a temporary file beside it, then rename); mode "755" for scripts.
function M.write_text(path, text, mode)
  local tmp = ("%s.tmp.%d"):format(path, math.random(1, 1 << 30))
  local f, err = io.open(tmp, "wb")
  if not f then error(("%s: cannot write: %s"):format(path, err), 0) end
  local ok, werr = f:write(text)
  f:close()
  if not ok then
    os.remove(tmp)
    error(("%s: cannot write: %s"):format(path, werr), 0)
  end
  if mode then proc.run { "chmod", mode, "--", tmp } end
  local rok, rerr = os.rename(tmp, path)
  if not rok then
    os.remove(tmp)
    error(("%s: cannot write: %s"):format(path, rerr), 0)
  end
end

-- A new workspace folder under parent (default "."), announced on stdout.
function M.create(opts)
  opts = opts or {}
  local parent = opts.parent or "."
  if lfs.attributes(parent, "mode") ~= "directory" then
    error(("%s: no such folder (the workspace's parent)"):format(parent), 0)
  end
  local name = opts.name or os.date("llm-d-comparison-%Y%m%d-%H%M%S")
  local path = parent:gsub("/+$", "") .. "/" .. name
  if lfs.attributes(path) and opts.name then error(("%s already exists; not reusing it"):format(path), 0) end
  -- two comparisons started in the same second: the second gets a suffix
  local base, n = path, 1
  while lfs.attributes(path) do
    n = n + 1
    path = ("%s-%d"):format(base, n)
  end
  name = path:match("[^/]+$")
  mkdir_p(path)
  local abs = proc.run { "realpath", "--", path }
  path = abs.ok and abs.stdout:gsub("%s+$", "") or path
  if not opts.quiet then io.write(("Workspace: %s\n"):format(path)) end
  return { path = path, name = name, created = os.time() }
end

-- Opens an existing workspace: for analyze.lua (both run states), or with
-- {resume = true} one made from a plan (plan.yaml, however far it got).
function M.open(path, opts)
  path = path:gsub("/+$", "")
  if lfs.attributes(path, "mode") ~= "directory" then
    error(("%s: no such folder (expected a comparison workspace)"):format(path), 0)
  end
  if opts and opts.resume then
    if lfs.attributes(path .. "/plan.yaml", "mode") ~= "file" then
      error(("%s: no plan.yaml (only a comparison started from a plan can be resumed)"):format(path), 0)
    end
    -- absolute: the steps run commands in other folders (run_only.sh in run-x/benchmark)
    local abs = proc.run { "realpath", "--", path }
    if abs.ok then path = abs.stdout:gsub("%s+$", "") end
    return { path = path, name = path:match("[^/]+$") }
  end
  for _, x in ipairs { "a", "b" } do
    if lfs.attributes(path .. "/run-" .. x .. "/run_state.json", "mode") ~= "file" then
      error(("%s: no run-%s/run_state.json (expected a workspace made by compare.lua)"):format(path, x), 0)
    end
  end
  return { path = path, name = path:match("[^/]+$") }
end

function M.run_dir(w, x) return w.path .. "/run-" .. x end

-- A state table with every documented key, unknown where not given.
function M.new_state(label, info)
  info = info or {}
  local state = { label = label, timestamp = info.timestamp or "unknown", stack = {}, benchmark = {} }
  for part, keys in pairs(M.STATE_KEYS) do
    for _, k in ipairs(keys) do
      local v = info[k]
      if v == nil and type(info[part]) == "table" then v = info[part][k] end
      if type(v) == "table" and k == "load_stages" then
        local parts = {}
        for i, s in ipairs(v) do
          if type(s) ~= "table" then
            parts[i] = tostring(s)
          elseif s.rate then
            parts[i] = "rate " .. s.rate
          elseif s.concurrency then
            parts[i] = "concurrency " .. s.concurrency
          else
            parts[i] = json.encode(s)
          end
        end
        v = table.concat(parts, ", ")
      end
      state[part][k] = v ~= nil and tostring(v) or "unknown"
    end
  end
  return state
end

-- Imports a pre-existing run's results into run-x/results (copied, or a symlink when
-- opts.link) and writes run-x/run_state.json. Returns the state.
function M.import(w, x, opts)
  local src = opts.results:gsub("/+$", "")
  if lfs.attributes(src, "mode") ~= "directory" then
    error(("run %s: %s: no such folder (expected the run's results folder)"):format(x, src), 0)
  end
  local abs = proc.run { "realpath", "--", src }
  src = abs.ok and abs.stdout:gsub("%s+$", "") or src
  local dir = M.run_dir(w, x)
  mkdir_p(dir)
  local dest = dir .. "/results"
  if opts.link then
    local ok, err = lfs.link(src, dest, true)
    if not ok then error(("%s: cannot link to %s: %s"):format(dest, src, tostring(err)), 0) end
  else
    mkdir_p(dest)
    -- timestamps kept, modes not: a copy of read-only results is still the user's to delete
    local r = proc.run { "cp", "-R", "--preserve=timestamps", "--", src .. "/.", dest }
    if not r.ok then
      error(("cp -R %s/. %s: %s"):format(src, dest, r.stderr:gsub("%s+$", "")), 0)
    end
  end
  local state = M.new_state(opts.label, opts.info)
  state.results_path = dest
  state.source_path = src
  state.imported = true
  state.results_linked = opts.link and true or false
  M.write_state(w.path, x, state)
  return state
end

function M.write_state(path, x, state)
  json.write(path .. "/run-" .. x .. "/run_state.json", state)
end

function M.read_state(path, x)
  local p = path .. "/run-" .. x .. "/run_state.json"
  local s = json.read(p)
  if type(s) ~= "table" or type(s.label) ~= "string" then
    error(p .. ": expected a run state with a 'label' string", 0)
  end
  return s
end

-- Reads an --a-info / --b-info file (YAML or JSON): a mapping of the state's keys.
function M.read_info(path)
  local ok, v = pcall(function()
    if path:match("%.json$") then return json.read(path) end
    return require("llmd.yaml").load_file(path)
  end)
  if not ok then error(tostring(v), 0) end
  if type(v) ~= "table" or json.is_array(v) then
    error(("%s: expected a mapping of run information (guide, model, hardware, ...)"):format(path), 0)
  end
  local known = { label = true, timestamp = true, stack = true, benchmark = true }
  for _, keys in pairs(M.STATE_KEYS) do for _, k in ipairs(keys) do known[k] = true end end
  for k in pairs(v) do
    if not known[k] then
      local names = {}
      for n in pairs(known) do names[#names + 1] = n end
      table.sort(names)
      error(("%s: unknown key '%s' (known: %s)"):format(path, tostring(k), table.concat(names, ", ")), 0)
    end
  end
  return v
end

return M
