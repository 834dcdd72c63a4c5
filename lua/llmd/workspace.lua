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

-- This process's id (for temporary names two processes cannot share).
local PID
do
  local f = io.open("/proc/self/stat", "rb")
  local s = f and f:read("l")
  if f then f:close() end
  PID = tonumber(s and s:match("^(%d+)")) or 0
end

-- This host's name (the kernel's), "" when it cannot be read.
function M.hostname()
  local f = io.open("/proc/sys/kernel/hostname", "rb")
  local h = f and f:read("l")
  if f then f:close() end
  if not h or h == "" then
    local r = proc.run({ "uname", "-n" }, { stderr = "capture" })
    h = r.ok and tostring(r.stdout):gsub("%s+$", "") or ""
  end
  return h
end
M.PID = PID

-- The workspace's lock file (M.lock): hidden, removed when its holder exits (proc.lock; one a
-- crash or kill -9 leaves holds no lock, and its next holder removes it in turn).
M.LOCK = ".llmdlua.lock"
local held = {} -- the lock files this process holds (a workspace's by its real path)

-- Holds the workspace at path for the rest of this process's life, so that two processes
-- never write one workspace at once (two --resume of one comparison both deployed, both
-- benchmarked one stack, and one's report mixed both's results): an flock on M.LOCK in it
-- (proc.lock: let go by the kernel when the process ends, however it ends, so never stale;
-- no child holds it). script names this process in the file. Returns true (also when this
-- process holds it already), or nil and one line naming the workspace and its holder.
-- opts (another folder of results, autobench.lua run's): shown (what the line names instead
-- of path), what (what the holder is writing, "this workspace" by default), file (the lock
-- file itself, instead of M.LOCK in path: a lock named after what is held, made elsewhere).
function M.lock(path, script, opts)
  opts = opts or {}
  local real = opts.file or ((proc.realpath(path) or path) .. "/" .. M.LOCK)
  if held[real] then return true end
  local text = json.encode { pid = PID, script = script, started = os.date("!%Y-%m-%dT%H:%M:%SZ"),
    host = M.hostname() }
  local ok, holder = proc.lock(real, text .. "\n")
  if ok then
    held[real] = true
    return true
  end
  local shown, what = opts.shown or path, opts.what or "this workspace"
  if ok == nil then return nil, ("%s: cannot lock %s: %s"):format(shown, what, tostring(holder)) end
  local dok, h = pcall(json.decode, holder)
  if not dok or type(h) ~= "table" then h = {} end
  return nil, ("%s: in use by another llmdlua process (%s, pid %s, started %s): it is writing %s, and "
    .. "two at once would mix their results; wait for it to end (or stop it), then run this again"):format(shown,
    tostring(h.script or "just starting"), tostring(h.pid or "unknown"), tostring(h.started or "unknown"), what)
end

-- Whether this process can write in the folder path: true, or nil and the system's reason
-- ("Permission denied", "Read-only file system"). A file made there and removed at once.
-- (analyze.lua re-writes its reports in the workspace: one it holds the lock of may still be
-- a folder it cannot write, the lock file writable where the folder is not.)
function M.writable(path)
  local probe = ("%s/.llmdlua.probe.%d.%d"):format(path, PID, math.random(1, 1 << 30))
  local f, err = io.open(probe, "wb")
  if not f then return nil, tostring(err):match("^.*: (.-)$") or tostring(err) end
  f:close()
  os.remove(probe)
  return true
end

-- The advice for a workspace this process cannot write (another user's, chmod -w, a read-only
-- mount): analyze.lua writes its reports into it, so it analyzes a writable copy (cp -r keeps
-- the files' read-only modes: chmod -R u+w makes the copy writable). The paths as shell words.
function M.read_only_advice(path)
  local word = path:match("^[%w@%%+=:,./_%-]+$") and path or "'" .. path:gsub("'", "'\"'\"'") .. "'"
  return ("analyze.lua writes its report into the workspace, so it cannot analyze this one in place: copy it "
    .. "to a folder of yours and analyze the copy: `cp -r %s DIR && chmod -R u+w DIR && llmdlua analyze.lua DIR` "
    .. "(DIR: a new folder's path)"):format(word)
end

-- run_state.json: the documented schema. Unknown configuration is "unknown".
M.STATE_KEYS = {
  stack = { "guide", "namespace", "hardware", "gateway", "model", "llmd_version", "decode_image", "gpus" },
  benchmark = { "harness", "workload", "load_stages" },
}

local function mkdir_p(path)
  -- a folder that is there, or one level under a folder that is there, without a
  -- process (a comparison makes a dozen: their start-up cost adds up); anything else
  -- (parents missing, a file in the way, no permission) is mkdir -p's, which says why
  if lfs.attributes(path, "mode") == "directory" then return end
  local parent = path:match("^(.*[^/])/+[^/]+/*$")
  if parent and lfs.attributes(parent, "mode") == "directory" and lfs.mkdir(path) then return end
  local r = proc.run { "mkdir", "-p", "--", path }
  if not r.ok then error(("%s: cannot create the folder: %s"):format(path, r.stderr:gsub("%s+$", "")), 0) end
end
M.mkdir_p = mkdir_p

-- The whole of a file's bytes, or nil when it cannot be opened (absent: the caller says what
-- that means).
function M.read_text(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- The bytes of path from offset on, "" when there are none or it cannot be opened (a log
-- read again as it grows: the part its writer added since offset).
function M.read_from(path, offset)
  local f = io.open(path, "rb")
  if not f then return "" end
  f:seek("set", offset)
  local s = f:read("a") or ""
  f:close()
  return s
end

-- Writes text atomically and durably (mode "755" for scripts; 644 without): proc.write_file,
-- as json.write writes - a temporary file in the same folder, written, its mode set, fsync,
-- renamed over path, the folder fsynced -, so readers see the old file or the new one, never
-- a part, and a crash right after leaves the new one. Every step is checked: a full disk or
-- any other failure raises "PATH: cannot write: WHY" and leaves neither a partial (or
-- 0-byte) file nor the temporary one; the old file, if any, is as it was. (The C call
-- finishes before a Ctrl-C is taken, so an interrupt leaves no temporary either.)
function M.write_text(path, text, mode)
  if type(text) ~= "string" then
    error(("%s: cannot write: the text to write is a %s, not a string"):format(path, type(text)), 0)
  end
  local ok, err = pcall(proc.write_file, path, text, mode)
  if not ok then error(tostring(err), 0) end
end

-- Writes files as a set: files = { {path, text, mode}, ... }. Each goes to a temporary file
-- beside it first, written durably (proc.write_file: fsynced, its mode set); only once all
-- are written (a full disk fails here) are they renamed into place and their folders
-- fsynced, so a failure leaves every one of them as it was, never some new and some old (a
-- report set whose markdown said one SLO's verdict and whose JSON, CSV and HTML another's:
-- audit48 S6). The error names the file that failed, then says that (opts.what: how the set
-- is called, "the files ... are as they were" by default).
function M.write_set(files, what)
  local tmps = {}
  local ok, err = pcall(function()
    for i, f in ipairs(files) do
      local path = f[1]
      tmps[i] = ("%s.tmp.%d.%d"):format(path, PID, math.random(1, 1 << 30))
      if type(f[2]) ~= "string" then
        error(("%s: cannot write: the text to write is a %s, not a string"):format(path, type(f[2])), 0)
      end
      local wok, werr = pcall(proc.write_file, tmps[i], f[2], f[3])
      if not wok then
        -- (named by the file it is for: the temporary's name means nothing to the reader)
        local why = tostring(werr):match("^.-: cannot write: (.*)$") or tostring(werr)
        error(("%s: cannot write: %s"):format(path, why), 0)
      end
    end
  end)
  if not ok then
    for _, t in ipairs(tmps) do os.remove(t) end
    local names = {}
    for i, f in ipairs(files) do names[i] = f[1]:match("[^/]+$") end
    error(("%s; %s"):format(tostring(err), what or ("none of " .. table.concat(names, ", ") .. " was changed")), 0)
  end
  local dirs, synced = {}, {}
  for i, f in ipairs(files) do
    local rok, rerr = os.rename(tmps[i], f[1])
    if not rok then
      for j = i, #files do os.remove(tmps[j]) end
      error(("%s: cannot write: %s (the files before it in the set are new, it and those after it as they were)")
        :format(f[1], tostring(rerr)), 0)
    end
    local dir = f[1]:match("^(.*)/[^/]*$") or "."
    if dir == "" then dir = "/" end
    if not synced[dir] then synced[dir] = true; dirs[#dirs + 1] = dir end
  end
  -- the renames made durable (their folders' entries on the disk); the files' data were
  -- fsynced before. A folder that cannot be synced changes nothing of what is in place.
  for _, d in ipairs(dirs) do proc.fsync(d) end
end

-- Makes the folder path and nothing else: nil, "exists" when something is there already
-- (mkdir(2) is the test, so two processes can never both get the same folder).
local function mkdir_new(path)
  local ok, err, code = lfs.mkdir(path)
  if ok then return true end
  if code == 17 or lfs.symlinkattributes(path) then return nil, "exists" end -- EEXIST
  return nil, tostring(err)
end

-- The folders of path that do not exist, deepest first ("a/b/c" with only "a" there: a/b/c,
-- a/b): what making a folder there makes (a workspace under it, treatments.lua's --out), so
-- that a failure can remove them again. A link on the way whose target does not exist
-- (dangling) is an error naming it: following it would make folders somewhere else, which
-- no cleanup of path's folders would find, and stopping at it would leave mkdir -p to fail
-- on it with "File exists".
function M.missing_folders(path)
  local list = {}
  local p = tostring(path):gsub("/+$", "")
  while p ~= "" and p ~= "." do
    local mode = lfs.symlinkattributes(p, "mode")
    if mode == "link" and not lfs.attributes(p) then
      error(("%s: a link to %s, which does not exist: no folder can be made there (make its target, or remove the "
        .. "link)"):format(p, tostring(lfs.symlinkattributes(p, "target"))), 0)
    end
    if mode then break end
    list[#list + 1] = p
    p = p:match("^(.*[^/])/+[^/]*$") or ""
  end
  return list
end

-- Is the folder p a comparison workspace (compare.lua's: run-a/ and run-b/ beside its
-- report, its INCOMPLETE marker or a plan's steps.json) or an experiment's (experiment.lua's:
-- llm-d-experiment-NAME-..., with its plan.yaml)? "comparison", "experiment" or nil.
function M.kind(p)
  local function mode(n) return lfs.attributes(p .. "/" .. n, "mode") end
  if mode("run-a") == "directory" and mode("run-b") == "directory"
    and (mode("comparison.json") == "file" or mode(M.INCOMPLETE) == "file" or mode("steps.json") == "file") then
    return "comparison"
  end
  if (p:match("[^/]+$") or ""):match("^llm%-d%-experiment%-") and mode("plan.yaml") == "file" then
    return "experiment"
  end
  return nil
end

-- The workspace that path (a parent folder for a new workspace, made if missing) is in,
-- itself or any folder above it: its real path and kind (M.kind), or nil. A workspace made
-- there would be nested in it: in its tree, its copies and its analyze.lua's view.
function M.enclosing(path)
  local p = tostring(path):gsub("/+$", "")
  if p == "" then p = "/" end
  while not lfs.attributes(p) do
    p = p:match("^(.*[^/])/+[^/]*$") or (p:sub(1, 1) == "/" and "/" or ".")
  end
  p = proc.realpath(p) or p
  while true do
    local kind = M.kind(p)
    if kind then return p, kind end
    if p == "/" or not p:find("/", 1, true) then return nil end
    p = p:match("^(.*)/[^/]*$")
    if p == "" then p = "/" end
  end
end

-- A new workspace folder under parent (default "."; made if missing, which is said on
-- stderr), announced on stdout. Never an existing folder: a name taken (by another comparison or experiment
-- started in the same second, say) gets a suffix -2, -3, ...; opts.base is that name
-- (default llm-d-comparison-<date>-<time>); with opts.name instead, taken is an error.
function M.create(opts)
  opts = opts or {}
  local parent = opts.parent or "."
  local pmode = lfs.attributes(parent, "mode")
  if pmode == nil then
    mkdir_p(parent)
    -- a mistyped parent would otherwise hold the workspace silently where nobody looks
    if not opts.quiet then io.stderr:write(("note: %s did not exist; made it for the workspace\n"):format(parent)) end
  elseif pmode ~= "directory" then
    error(("%s: not a folder (the workspace's parent)"):format(parent), 0)
  end
  local name = opts.name or opts.base or os.date("llm-d-comparison-%Y%m%d-%H%M%S")
  local base = parent:gsub("/+$", "") .. "/" .. name
  local path, n = base, 1
  -- opts.incomplete: the folder is made with its marker in one call (proc.mkdir_marked), so
  -- that a Ctrl-C at any moment never leaves a workspace without it (one that would pass
  -- for whole); the marker's text as M.mark_incomplete writes it
  local marker = opts.incomplete and (tostring(opts.incomplete) .. "\n")
  while true do
    local ok, why
    if marker then
      local code
      ok, why, code = proc.mkdir_marked(path, M.INCOMPLETE, marker)
      if not ok and code == "exists" then why = "exists" end
    else
      ok, why = mkdir_new(path)
    end
    if ok then break end
    if why ~= "exists" then error(("%s: cannot create the folder: %s"):format(path, why), 0) end
    if opts.name then error(("%s already exists; not reusing it"):format(path), 0) end
    n = n + 1
    if n > 1000 then error(("%s: 1000 workspaces of this name already; not making more"):format(base), 0) end
    path = ("%s-%d"):format(base, n)
  end
  name = path:match("[^/]+$")
  local w = { path = path, name = name, created = os.time() }
  -- (a failure, or Ctrl-C, here removes the folder)
  local ok, err = pcall(function()
    w.path = proc.realpath(path) or path
  end)
  if not ok then
    M.remove(w)
    error(err, 0)
  end
  if not opts.quiet then io.write(("Workspace: %s\n"):format(w.path)) end
  return w
end

-- Opens an existing workspace: for analyze.lua (both run states), or with
-- {resume = true} one made from a plan (plan.yaml, however far it got). opts.slo: the --slo
-- given, for the treatments.lua command an experiment's workspace is pointed to.
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
    path = proc.realpath(path) or path
    return { path = path, name = path:match("[^/]+$") }
  end
  -- an experiment's workspace (experiment.lua's, newuser45): not two runs a and b, but
  -- treatments; its comparison is treatments.lua's, with the same --slo (opts.slo)
  if lfs.attributes(path .. "/experiment-state.json", "mode") == "file" then
    local argv = { "llmdlua", "treatments.lua", path }
    if opts and opts.slo then argv[#argv + 1], argv[#argv + 2] = "--slo", opts.slo end
    error(("%s: an experiment workspace (experiment.lua's: experiment-state.json), not a comparison of two runs; "
      .. "compare its treatments with %s"):format(path, require("llmd.k8s").cmdline(argv)), 0)
  end
  local why = M.incomplete(path)
  if why then
    -- one made from a plan is kept after a failure: it goes on where it stopped
    local next_step = lfs.attributes(path .. "/plan.yaml", "mode") == "file"
      and "continue it with llmdlua compare.lua --resume " .. path
      or "make the comparison again with compare.lua"
    error(("%s: an incomplete workspace (%s: %s); %s"):format(path, M.INCOMPLETE, why, next_step), 0)
  end
  for _, x in ipairs { "a", "b" } do
    if lfs.attributes(path .. "/run-" .. x .. "/run_state.json", "mode") ~= "file" then
      error(("%s: no run-%s/run_state.json (an incomplete workspace, or not one made by compare.lua)")
        :format(path, x), 0)
    end
  end
  -- absolute: the report names it, and run_comparison.sh runs analyze.lua on it from
  -- wherever the script is started (a relative path would point elsewhere there)
  path = proc.realpath(path) or path
  return { path = path, name = path:match("[^/]+$") }
end

function M.run_dir(w, x) return w.path .. "/run-" .. x end

-- What an info file (or a plan's runs.x.info) states, keyed as the state reads it: each key
-- of M.STATE_KEYS at the top level, one given under its part instead (stack: {hardware: H100},
-- benchmark: {workload: ...}, as README's info files nest them) lifted there where the top
-- level does not give it; every other key as it is (stack: kept, its other keys being the
-- user's extra rows). A copy: the one reading of an info for --a-info and a plan alike.
function M.info_flat(info)
  local out = {}
  if type(info) ~= "table" then return out end
  for k, v in pairs(info) do out[k] = v end
  for part, keys in pairs(M.STATE_KEYS) do
    if type(info[part]) == "table" then
      for _, k in ipairs(keys) do
        if out[k] == nil then out[k] = info[part][k] end
      end
    end
  end
  return out
end

-- A state table with every documented key, unknown where not given.
function M.new_state(label, info)
  info = M.info_flat(info)
  local state = { label = label, timestamp = info.timestamp or "unknown", stack = {}, benchmark = {} }
  -- the SLOs the run is held to ({key = limit}; llmd.decision.parse_slo checks them)
  if type(info.slo) == "table" then state.slo = info.slo end
  for part, keys in pairs(M.STATE_KEYS) do
    for _, k in ipairs(keys) do
      local v = info[k]
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
  -- free-form keys under stack: (replicas, tensor parallelism, max-num-seqs, ...) are
  -- kept as given and shown as extra rows of the Configuration Summary
  local known = {}
  for _, k in ipairs(M.STATE_KEYS.stack) do known[k] = true end
  if type(info.stack) == "table" and not json.is_array(info.stack) then
    local extra = {}
    for k, v in pairs(info.stack) do
      if not known[k] then
        extra[#extra + 1] = tostring(k)
        state.stack[tostring(k)] = type(v) == "table" and json.encode(v) or tostring(v)
      end
    end
    table.sort(extra)
    state.stack_extra = json.array(extra)
  end
  return state
end

-- The real path of p (links resolved), or nil when it does not exist.
local function realpath(p)
  return (proc.realpath(p))
end
M.realpath = realpath

local function inside(root, p) return p == root or p:sub(1, #root + 1) == root .. "/" end

-- Where path is or would be once made: its longest existing part by its real path (links
-- resolved), then the rest of it with "." and ".." taken as mkdir -p takes them.
function M.resolve(path)
  local p = tostring(path)
  if p == "" then p = "." end
  local rest = {}
  while not lfs.attributes(p) do
    local head, tail = p:match("^(.*[^/])/+([^/]+)/*$")
    if not head then
      if p:sub(1, 1) == "/" then head, tail = "/", p:match("^/+(.-)/*$") else head, tail = ".", p:match("^(.-)/*$") end
    end
    table.insert(rest, 1, tail)
    p = head
  end
  local parts, made = {}, {}
  local base = realpath(p) or p
  for part in base:gmatch("[^/]+") do parts[#parts + 1] = part end
  for _, part in ipairs(rest) do
    if part == ".." then parts[#parts] = nil
    elseif part ~= "." and part ~= "" then
      parts[#parts + 1] = part
      made[#made + 1] = "/" .. table.concat(parts, "/")
    end
  end
  -- (and the folders making it would create on the way: a/new/../b makes a/new)
  return "/" .. table.concat(parts, "/"), made
end

-- Whether p is root or inside it, or making p would make a folder inside root (M.resolve).
function M.inside(root, p)
  local r = M.resolve(root)
  local rp, made = M.resolve(p)
  if inside(r, rp) then return true end
  for _, m in ipairs(made) do if inside(r, m) then return true end end
  return false
end

-- What importing the results folder src would copy, found before anything is created:
-- { root = real path, dirs = {rel...}, files = {{rel=, from=, id=, linked=}...},
-- skipped = {text...} } (id: proc.file_id's, to tell later whether the file changed;
-- linked: found through a link inside the folder).
-- Regular files are copied; a link to a regular file inside the folder is copied as a
-- file; any other link (out of the folder, to a folder, dangling) and any special file is
-- left out and reported, never followed.
function M.plan_import(src)
  src = src:gsub("/+$", "")
  if src == "" then src = "/" end
  if lfs.attributes(src, "mode") ~= "directory" then
    error(("%s: no such folder (expected the run's results folder)"):format(src), 0)
  end
  local root = realpath(src) or src
  local plan = { root = root, dirs = {}, files = {}, skipped = {} }
  local function walk(dir, rel)
    local names = {}
    local ok, iter, state = pcall(lfs.dir, dir)
    if not ok then error(("%s: cannot list the folder: %s"):format(dir, tostring(iter)), 0) end
    for n in iter, state do
      if n ~= "." and n ~= ".." then names[#names + 1] = n end
    end
    table.sort(names)
    for _, n in ipairs(names) do
      local p, r = dir .. "/" .. n, rel == "" and n or rel .. "/" .. n
      local mode = lfs.symlinkattributes(p, "mode")
      if mode == "directory" then
        plan.dirs[#plan.dirs + 1] = r
        walk(p, r)
      elseif mode == "file" then
        plan.files[#plan.files + 1] = { rel = r, from = p, id = proc.file_id(p) }
      elseif mode == "link" then
        local target = tostring(lfs.symlinkattributes(p, "target"))
        local real = realpath(p)
        if not real then
          plan.skipped[#plan.skipped + 1] = ("%s -> %s: a dangling link (left out)"):format(r, target)
        elseif not inside(root, real) then
          plan.skipped[#plan.skipped + 1] = ("%s -> %s: a link out of the results folder (left out, not followed)")
            :format(r, target)
        elseif lfs.attributes(real, "mode") ~= "file" then
          plan.skipped[#plan.skipped + 1] = ("%s -> %s: a link to a folder (left out; its files are copied where "
            .. "they are)"):format(r, target)
        else
          plan.files[#plan.files + 1] = { rel = r, from = real, linked = true, id = proc.file_id(real) }
        end
      else
        plan.skipped[#plan.skipped + 1] = ("%s: a %s, not a regular file (left out)"):format(r, tostring(mode))
      end
    end
  end
  walk(src, "")
  return plan
end

-- A size in bytes as people read a disk's: "512 B", "3.4 MB", "1.2 GB", "2.0 TB" (powers of
-- 1000, as df -H).
function M.bytes_text(n)
  if n < 1000 then return ("%d B"):format(n) end
  for _, u in ipairs { "kB", "MB", "GB", "TB" } do
    n = n / 1000
    if n < 1000 or u == "TB" then return ("%.1f %s"):format(n, u) end
  end
end

-- The files and folders a workspace makes besides its copies of the results: 30 for the
-- kubecon fixture pair, 32 for the simulated pair of README's "Simulated results" (find | wc -l
-- less the copies'), and a few more while it writes (each file through a temporary one, one
-- per job): 64.
M.OWN_ENTRIES = 64

-- What copying the results of plans (ws.plan_import's) into a workspace under parent takes:
-- { need = bytes (their files' sizes), free = bytes free on parent's filesystem (its nearest
-- folder that exists; nil where unknown), where = that folder }.
function M.copy_room(parent, plans)
  local need, entries = 0, 0
  for _, plan in ipairs(plans) do
    for _, f in ipairs(plan.files) do need = need + (lfs.attributes(f.from, "size") or 0) end
    -- (each copied file and folder, and the results folder itself: an inode and at least a block)
    entries = entries + #plan.files + #plan.dirs + 1
  end
  local where = tostring(parent):gsub("/+$", "")
  if where == "" then where = "/" end
  while not lfs.attributes(where, "mode") and where:find("/[^/]*$") do
    where = where:match("^(.*[^/])/+[^/]*$") or (where:sub(1, 1) == "/" and "/" or ".")
  end
  local free, inodes = proc.disk_free(where)
  return { need = need, entries = entries, free = free, inodes = inodes, where = proc.realpath(where) or where }
end

-- The copies' share in a failure to write (a full disk while copying the results, or the
-- report after the copies took the room), room being M.copy_room's: "the workspace's copies
-- of the two runs' results need 3.4 MB (41.2 GB free on DIR when it started); --link reads
-- the results where they are, copying nothing", or nil when there are no copies. Where the
-- filesystem had (next to) no inodes left when the write failed (room.inodes_now, taken then,
-- before the workspace went) it is out of files, not bytes, and "No space left on device"
-- beside "209.7 MB free" is said to be that (newuser47b E5).
function M.copy_room_hint(room)
  if not room or room.need == 0 then return nil end
  local make = (room.entries or 0) + M.OWN_ENTRIES
  if room.inodes and (room.inodes < make or room.inodes_now and room.inodes_now < 16) then
    return ("the filesystem of %s ran out of inodes, the files it can hold, not bytes: it had %d free when the "
      .. "comparison started, and %s, and the workspace makes about %d files and folders, %d of them its copies of "
      .. "the two runs' results (df -i shows inodes); free some, give --parent DIR on another filesystem, or --link "
      .. "to read the results where they are, copying nothing"):format(room.where, room.inodes,
      room.free and (M.bytes_text(room.free) .. " free") or "its free bytes unknown", make, room.entries or 0)
  end
  return ("the workspace's copies of the two runs' results need %s (%s free on %s when it started); --link "
    .. "reads the results where they are, copying nothing"):format(M.bytes_text(room.need),
    room.free and M.bytes_text(room.free) or "unknown", room.where)
end

-- Copies one regular file into a new file (a reflink or copy_file_range where the
-- filesystem can, else read and write; never over an existing file; a failed copy
-- leaves nothing, and the error names both files); keeps the timestamps.
local function copy_file(from, to)
  proc.copy_file(from, to)
  local mtime = lfs.attributes(from, "modification")
  if mtime then lfs.touch(to, lfs.attributes(from, "access") or mtime, mtime) end
end

-- Copies the results plan lists into run-x/results: made under run-x/results.partial
-- and renamed when complete, so run-x/results is never half there.
local function copy_results(w, x, plan)
  local dir = M.run_dir(w, x)
  local part, dest = dir .. "/results.partial", dir .. "/results"
  local function md(p)
    local ok, err = lfs.mkdir(p)
    if not ok then error(("%s: cannot create the folder: %s"):format(p, tostring(err)), 0) end
  end
  md(part)
  for _, d in ipairs(plan.dirs) do md(part .. "/" .. d) end
  -- modes are not kept: a copy of read-only results is still the user's to delete
  for _, f in ipairs(plan.files) do copy_file(f.from, part .. "/" .. f.rel) end
  local ok, err = os.rename(part, dest)
  if not ok then error(("%s: cannot rename to %s: %s"):format(part, dest, tostring(err)), 0) end
end

-- Can run x's results be read where they are (plan.root) and copied afterwards, the
-- copy being what was read? Only when the folder holds regular files and folders alone
-- (no link, nothing left out: the copy is then the folder as it is) and neither it nor
-- the workspace is inside the other. (issue 20: reading the copy read every byte once
-- more, after the copy; now the copy runs beside the report.)
function M.read_in_place(w, plan)
  if type(plan) ~= "table" or #plan.skipped > 0 or plan.root == "/" then return false end
  for _, f in ipairs(plan.files) do
    if f.linked or not f.id then return false end
  end
  return not inside(plan.root, w.path) and not inside(w.path, plan.root)
end

-- The folder plan.root still as plan found it (the same folders, the same files, none of
-- them changed: proc.file_id's): else an error naming the first difference. For results
-- read in place and copied afterwards: a run still writing its results would otherwise
-- have one version read and another copied.
function M.check_unchanged(plan)
  local now = M.plan_import(plan.root)
  local function differ(what)
    error(("%s: %s while the comparison read and copied it; compare again once the run has finished "
      .. "writing its results"):format(plan.root, what), 0)
  end
  local was = {}
  for _, d in ipairs(plan.dirs) do was[d] = "dir" end
  for _, f in ipairs(plan.files) do was[f.rel] = f.id end
  for _, d in ipairs(now.dirs) do
    if was[d] ~= "dir" then differ(("the folder %s appeared"):format(d)) end
    was[d] = nil
  end
  for _, f in ipairs(now.files) do
    if was[f.rel] == nil then differ(("%s appeared"):format(f.rel)) end
    if was[f.rel] ~= f.id then differ(("%s changed"):format(f.rel)) end
    was[f.rel] = nil
  end
  if #now.skipped > 0 then differ(("something not a regular file appeared (%s)"):format(now.skipped[1])) end
  local gone = {}
  for rel in pairs(was) do gone[#gone + 1] = rel end
  table.sort(gone)
  if gone[1] then differ(("%s went"):format(gone[1])) end
end

-- The copy of results read in place (M.read_in_place, M.import's opts.later): run-x/results
-- made as M.import makes it, then the source checked to be as it was planned.
function M.copy_later(w, x, plan)
  copy_results(w, x, plan)
  M.check_unchanged(plan)
end

-- The llmdlua record of a run whose results folder is path: path is a workspace run's
-- results/ (its run folder, with run_state.json, above it) or that run folder itself (with
-- results/ and run_state.json in it). Returns the run_state.json's path and what it holds
-- (a table), or nil when path is no such run; and, when the file is there but cannot be
-- read as llmdlua writes it (not JSON, another or a newer shape), nil, its path and why.
function M.recorded_run(path)
  local p = realpath(tostring(path):gsub("/+$", "")) or tostring(path)
  local run
  local function mode(q) return lfs.attributes(q, "mode") end
  if mode(p .. "/run_state.json") == "file" and mode(p .. "/results") == "directory" then
    run = p
  elseif p:match("/results$") and mode(p:gsub("/results$", "") .. "/run_state.json") == "file" then
    run = p:gsub("/results$", "")
  else
    return nil
  end
  local file = run .. "/run_state.json"
  local ok, st = pcall(json.read, file)
  if not ok then
    local msg = tostring(st)
    if msg:sub(1, #file + 1) == file .. ":" then msg = "not JSON: at " .. msg:sub(#file + 2) end
    return nil, file, msg
  end
  if type(st) ~= "table" or json.is_array(st) or type(st.label) ~= "string" or type(st.stack) ~= "table"
    or type(st.benchmark) ~= "table" then
    return nil, file, "not the shape llmdlua writes (a mapping with label, stack and benchmark)"
  end
  return file, st
end

-- The nearest folder at path (realpath, trailing slashes cut) or above it that holds a
-- run_state.json, and the resolved start; nil where none does. The one walk up to a run's
-- record: M.recorded_run_above (which checks where path lies in it) and M.cluster_record.
local function state_folder_above(path)
  local start = realpath(tostring(path):gsub("/+$", "")) or tostring(path):gsub("/+$", "")
  local p = start
  while p and p ~= "" do
    if lfs.attributes(p .. "/run_state.json", "mode") == "file" then return p, start end
    local up = p:match("^(.*)/[^/]*$")
    if up == p then break end
    p = up
  end
  return nil
end

-- The record of the run whose results are at path, or in a folder above it (tidy55: one walk
-- for M.simulated_record and M.recorded_gpus, which walked to it by two rules, every folder up
-- read raw and 3 folders up checked): the nearest run_state.json at path or above it, whatever
-- the depth (a workspace run's run-x/ or results/, a folder inside results/ however deep, an
-- experiment's cell, a re-run's reruns/run-x-<id>/), read and checked as M.recorded_run reads
-- it. It is path's record only where path is that run folder (with results/ in it) or lies in
-- its results/: a folder beside results/ (run-x/benchmark) is the run's own, not results, and
-- has none. Returns the file and what it holds; nil where there is none; nil, the file and why
-- where the nearest one cannot be read as llmdlua writes it (never one further up instead).
function M.recorded_run_above(path)
  local p, start = state_folder_above(path)
  if not p then return nil end
  if not (start == p and lfs.attributes(p .. "/results", "mode") == "directory" or inside(p .. "/results", start)) then
    return nil
  end
  return M.recorded_run(p)
end

-- Whether the results at path were made on a simulated cluster (llmd.cluster's
-- run_state.json simulated: the nodes that say so), by its record (M.recorded_run_above):
-- whichever way a run's results are given again, the mark goes with them. Returns the
-- record's simulated text and its path; nil (no record above path, or one that says nothing
-- of it); or nil, the record's path and why where it cannot be read (unknown, said by the
-- caller).
function M.simulated_record(path)
  local file, st, why = M.recorded_run_above(path)
  if not file then return nil, st, why end
  if type(st.simulated) == "string" and st.simulated ~= "" then return st.simulated, file end
  return nil
end

-- Which cluster the results at path were made on, as recorded: {context, server, from = the
-- file}, or nil (not recorded). The nearest run_state.json at path or above it: its cluster
-- (a re-run's, written by run_comparison.sh), else, for a workspace's run-x/, the workspace's
-- cluster.json beside run-x/ (compare.lua's); a run_state.json recording none whose folder
-- has no cluster.json beside it (a re-run of an older llmdlua, imported results) is unknown,
-- never taken for the workspace's further up (fixb55 #1: a re-run on another context was read
-- as run-to-run variation).
function M.cluster_record(path)
  local function known(c)
    return type(c) == "table" and (type(c.context) == "string" or type(c.server) == "string")
  end
  local function pick(c, file)
    return { context = type(c.context) == "string" and c.context or nil,
      server = type(c.server) == "string" and c.server or nil, from = file }
  end
  local p = state_folder_above(path)
  if not p then return nil end
  local file = p .. "/run_state.json"
  local ok, st = pcall(json.read, file)
  if ok and type(st) == "table" and known(st.cluster) then return pick(st.cluster, file) end
  local up = p:match("^(.*)/[^/]*$")
  local cj = up and up .. "/cluster.json"
  if cj and lfs.attributes(cj, "mode") == "file" then
    local ok2, c = pcall(json.read, cj)
    if ok2 and known(c) then return pick(c, cj) end
  end
  return nil
end

-- "different clusters" between two runs' records (M.cluster_record), or nil when both are
-- known and the same, or either is unknown: the line says which, from where.
function M.cluster_difference(la, ca, lb, cb)
  if not ca or not cb then return nil end
  local differ = (ca.context and cb.context and ca.context ~= cb.context)
    or (ca.server and cb.server and ca.server ~= cb.server)
  if not differ then return nil end
  local function words(c)
    return (c.context and ("kube context " .. c.context) or "no kube context")
      .. (c.server and (" (server " .. c.server .. ")") or "") .. ", recorded in " .. c.from
  end
  return ("%s and %s ran on different clusters (%s: %s; %s: %s): a difference between them is the clusters' as "
    .. "much as the configurations', not run-to-run variation"):format(la, lb, la, words(ca), lb, words(cb))
end

-- The accelerator count a run's stack states (run_state.json's stack.gpus, written from an
-- info file's or a plan's info: gpus:): a number above 0, else nil (absent, "unknown").
-- One reading for compare.lua's per-GPU figures (llmd.report's gpus_of) and treatments.lua's.
function M.stack_gpus(stack)
  local g = type(stack) == "table" and tonumber(stack.gpus) or nil
  if g and g > 0 and g < math.huge then return g end
  return nil
end

-- The accelerator count recorded for the run whose results are at path (M.recorded_run_above:
-- a workspace's run-x, its results/ or a folder inside that, however deep), nil when none is
-- recorded. Returns the count and the run_state.json it was read from; nil, nil, the record's
-- path and why where it cannot be read (the count is then unknown, said by the caller).
function M.recorded_gpus(path)
  local file, st, why = M.recorded_run_above(path)
  if file then return M.stack_gpus(st.stack), file end
  return nil, nil, st, why
end

-- What of a run's record (M.recorded_run's st) info does not state: info (an info file's
-- mapping, or nil) with the record's stack and benchmark keys (and its own stack keys, and
-- its timestamp) added where info has none; values "unknown" (or "unknown (why)"), or not a
-- string or a number, are not taken. Returns the merged info (info itself is not changed)
-- and the keys info stated over a different recorded value ({key=, stated=, recorded=}, in
-- key order).
function M.merge_recorded(info, st)
  info = info or {}
  local out = {}
  for k, v in pairs(info) do out[k] = v end
  for _, part in ipairs { "stack", "benchmark" } do
    if type(info[part]) == "table" then
      out[part] = {}
      for k, v in pairs(info[part]) do out[part][k] = v end
    end
  end
  local over = {}
  local function usable(v)
    -- (nor "unknown (why)": a plan's run records why its load stages are unknown)
    return (type(v) == "string" and not v:match("^unknown") and v ~= "") or type(v) == "number"
  end
  local function take(part, k, v)
    if not usable(v) then return end
    local stated = info[k]
    if stated == nil and type(info[part]) == "table" then stated = info[part][k] end
    if stated == nil then
      out[part] = out[part] or {}
      out[part][k] = v
    elseif tostring(stated) ~= tostring(v) then
      over[#over + 1] = { key = k, stated = tostring(stated), recorded = tostring(v) }
    end
  end
  for _, part in ipairs { "stack", "benchmark" } do
    local rec = st[part]
    local keys = {}
    for _, k in ipairs(M.STATE_KEYS[part]) do keys[#keys + 1] = k end
    if part == "stack" and type(st.stack_extra) == "table" then
      for _, k in ipairs(st.stack_extra) do if type(k) == "string" then keys[#keys + 1] = k end end
    end
    for _, k in ipairs(keys) do take(part, k, rec[k]) end
  end
  if info.timestamp == nil and usable(st.timestamp) then out.timestamp = st.timestamp end
  -- the SLOs it was held to (run_state.json's slo:, a mapping like --slo's): the info's
  -- own win, and are said when they differ
  if type(st.slo) == "table" and not json.is_array(st.slo) and next(st.slo) ~= nil then
    if info.slo == nil then
      out.slo = st.slo
    else
      local dec = require "llmd.decision"
      local ok_s, stated = pcall(dec.parse_slo, info.slo, "slo")
      local ok_r, recorded = pcall(dec.parse_slo, st.slo, "slo")
      if ok_s and ok_r and not dec.same_slo(stated, recorded) then
        over[#over + 1] = { key = "slo", stated = dec.slo_phrase(stated), recorded = dec.slo_phrase(recorded) }
      end
    end
  end
  table.sort(over, function(x, y) return x.key < y.key end)
  return out, over
end

-- Imports a pre-existing run's results into run-x/results (copied, or a symlink when
-- opts.link) and writes run-x/run_state.json. Returns the state. opts.plan: what
-- M.plan_import found (made here when not given). opts.later: nothing copied yet (the
-- caller reads the results in place and calls M.copy_later).
function M.import(w, x, opts)
  local plan = opts.plan or M.plan_import(opts.results)
  local src = plan.root
  local dir = M.run_dir(w, x)
  mkdir_p(dir)
  local dest = dir .. "/results"
  if opts.link then
    local ok, err = lfs.link(src, dest, true)
    if not ok then error(("%s: cannot link to %s: %s"):format(dest, src, tostring(err)), 0) end
  elseif not opts.later then
    copy_results(w, x, plan)
  end
  -- a run llmdlua benchmarked: its configuration from its record, under what the caller
  -- states (opts.info, named opts.info_where), said in the state (config_from) and the report
  local info, config_from = opts.info, nil
  local file, st, why = M.recorded_run(opts.results or src)
  if file then
    local over
    info, over = M.merge_recorded(opts.info, st)
    local parts = {}
    for _, o in ipairs(over) do
      parts[#parts + 1] = ("%s %s (recorded: %s)"):format(o.key, o.stated, o.recorded)
    end
    config_from = ("configuration from %s%s"):format(file, #parts > 0 and ("; %s stated over it: %s")
      :format(opts.info_where or "the info given", table.concat(parts, ", ")) or "")
  elseif st then
    io.stderr:write(("warning: %s: not read (%s): run %s's configuration is what is stated of it, else unknown\n")
      :format(st, why, x:upper()))
  end
  local state = M.new_state(opts.label, info)
  state.config_from = config_from
  if file then
    -- what else its record says of it: whether it was a baseline run, the SLO it was held
    -- to (where nothing stated one: where it came from, for the report), and the commands
    -- that deployed and benchmarked it, as they ran in its own comparison (their paths that
    -- comparison's workspace: shown as the original run's, never run from here)
    if type(st.baseline) == "boolean" then state.baseline = st.baseline end
    if state.slo and (opts.info or {}).slo == nil then state.slo_from = file end
    if type(st.commands) == "table" and #st.commands > 0 then
      local cmds = {}
      for i, c in ipairs(st.commands) do cmds[i] = tostring(c) end
      state.recorded_commands = json.array(cmds)
      state.commands_from = file
    end
  end
  -- results made on a simulated cluster stay marked so (the report says it first), whether
  -- given as the run folder, its results/ or a folder in them
  local cl = M.cluster_record(opts.results or src)
  if cl then state.cluster = { context = cl.context, server = cl.server, from = cl.from } end
  local sim, sim_file, sim_why = M.simulated_record(opts.results or src)
  if not sim and sim_why and not st then
    -- (a record above a folder inside results/ that cannot be read: whether it was simulated is
    -- unknown, said, as the run folder's own record is above)
    io.stderr:write(("warning: %s: not read (%s): whether run %s's results were made on a simulated cluster is "
      .. "unknown\n"):format(sim_file, sim_why, x:upper()))
  end
  if sim then
    state.simulated = sim
    state.simulated_from = sim_file
  end
  state.results_path = dest
  state.source_path = src
  state.imported = true
  state.results_linked = opts.link and true or false
  if not opts.link and #plan.skipped > 0 then state.import_skipped = json.array(plan.skipped) end
  M.write_state(w.path, x, state)
  return state
end

-- Incomplete workspaces ---------------------------------------------------------------------

M.INCOMPLETE = "INCOMPLETE"

-- Marks w as being made: analyze.lua refuses it until M.mark_complete(w).
function M.mark_incomplete(w, why)
  M.write_text(w.path .. "/" .. M.INCOMPLETE, (why or "compare.lua has not finished making this workspace") .. "\n")
end

function M.mark_complete(w)
  local p = w.path .. "/" .. M.INCOMPLETE
  local ok, err = os.remove(p)
  if not ok and lfs.symlinkattributes(p) then error(("%s: cannot remove: %s"):format(p, tostring(err)), 0) end
end

-- Is the workspace at path complete: its report written and no INCOMPLETE marker?
function M.complete(path)
  return M.incomplete(path) == nil and lfs.attributes(path .. "/comparison_report.md", "mode") == "file"
end

-- Why w is incomplete (the marker's text), or nil.
function M.incomplete(path)
  local f = io.open(path .. "/" .. M.INCOMPLETE, "rb")
  if not f then return nil end
  local s = f:read("a") or ""
  f:close()
  return (s:gsub("%s+$", ""))
end

-- Removes p and what is in it (but the entry keep), links not followed: true, or nil and why.
local function rm_tree(p, keep)
  local names = {} -- listed first: removing while reading a folder may skip entries
  for n in lfs.dir(p) do names[#names + 1] = n end
  for _, n in ipairs(names) do
    if n ~= "." and n ~= ".." and n ~= keep then
      local q = p .. "/" .. n
      if lfs.symlinkattributes(q, "mode") == "directory" then
        local ok, err = rm_tree(q)
        if not ok then return nil, err end
      else
        local ok, err = os.remove(q)
        if not ok then return nil, err end
      end
    end
  end
  if not keep then
    local ok, err = lfs.rmdir(p)
    if not ok then return nil, p .. ": " .. tostring(err) end
  end
  return true
end

-- Removes the folder path and everything in it, links not followed (a run's folder this
-- process made); raises naming what could not go.
function M.remove_tree(path)
  local ok, done, why = pcall(rm_tree, path)
  if not ok or not done then error(("%s: cannot remove: %s"):format(path, tostring(ok and why or done)), 0) end
end

-- Removes the workspace w made by this process, without following any link and without
-- starting a process (it runs after Ctrl-C too). The marker goes last, so an interrupted
-- removal still leaves the workspace marked incomplete. Returns true, or nil and why.
function M.remove(w)
  local ok, done, why = pcall(rm_tree, w.path, M.INCOMPLETE)
  if not ok then return nil, done end
  if not done then return nil, why end
  os.remove(w.path .. "/" .. M.INCOMPLETE)
  local rok, rerr = lfs.rmdir(w.path)
  if not rok then return nil, rerr end
  return true
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
  return M.check_info(v, path, path)
end

-- Checks v, what an info file holds (or a plan's runs.x.info), as M.read_info does: unknown
-- keys (with the one most likely meant), slo:, gpus:; where names it in the messages.
-- Returns v; raises on the first problem.
-- The keys an info file (or a plan's runs.x.info) may have, a set (llmd.cluster checks a
-- plan's with them, naming the line as for its other keys).
function M.info_keys()
  local known = { label = true, timestamp = true, stack = true, benchmark = true, slo = true }
  for _, keys in pairs(M.STATE_KEYS) do for _, k in ipairs(keys) do known[k] = true end end
  return known
end

function M.check_info(v, path, file)
  -- (a key's line in the file, where the file is read here and the key is on one line only:
  -- "info.yaml:2", as a plan's keys are named; tidy55)
  local function at(k)
    if not file then return path end
    return require("llmd.cluster").key_where(file, tostring(k))
  end
  if type(v) ~= "table" or json.is_array(v) then
    error(("%s: expected a mapping of run information (guide, model, hardware, ...)"):format(path), 0)
  end
  local known = M.info_keys()
  for k in pairs(v) do
    if not known[k] then
      local names = {}
      for n in pairs(known) do names[#names + 1] = n end
      table.sort(names)
      local near = type(k) == "string" and require("llmd.opts").closest(k, names)
      -- a fact of the setup (replicas, tensor_parallel): stack: keeps any key (README), said
      -- (newuser56: the list of known keys alone did not say where it goes)
      local there = not near and type(k) == "string" and ("a fact of the setup belongs under stack: (stack: "
        .. "{%s: ...}), kept as an extra row; "):format(k) or ""
      error(("%s: unknown key '%s' (%s%sknown: %s)"):format(at(k), tostring(k),
        near and ("did you mean '%s'? "):format(near) or "", there, table.concat(names, ", ")), 0)
    end
  end
  -- other keys under stack: are the user's own, kept as extra rows; one that looks like a
  -- misspelt key llmdlua reads ('gpu' for 'gpus') is kept too (it may be meant: 'mode' is not
  -- 'model'), but said, since a misspelt gpus leaves every per-GPU figure unknown
  if type(v.stack) == "table" and not json.is_array(v.stack) then
    local extra = {}
    for k in pairs(v.stack) do if type(k) == "string" and not known[k] then extra[#extra + 1] = k end end
    table.sort(extra)
    for _, k in ipairs(extra) do
      local near = require("llmd.opts").closest(k, M.STATE_KEYS.stack)
      if near and v.stack[near] == nil then
        io.stderr:write(("warning: %s: stack: '%s' is kept as an extra row, not read as '%s' (did you mean '%s'?)\n")
          :format(at(k), k, near, near))
      end
    end
  end
  if v.slo ~= nil then
    -- checked here, so that a typo names this file
    require("llmd.decision").parse_slo(v.slo, path .. ": slo")
  end
  local g = v.gpus
  if g == nil and type(v.stack) == "table" then g = v.stack.gpus end
  if g ~= nil and not (math.type(tonumber(g)) == "integer" and tonumber(g) > 0) then
    error(("%s: gpus: expected the number of accelerators the run used (a positive integer), got '%s'")
      :format(path, tostring(g)), 0)
  end
  return v
end

return M
