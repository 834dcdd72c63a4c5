-- llmd.parallel: one run of a comparison imported and read by a child llmdlua while the
-- parent reads the other (two cores: the two runs at once), and its side handed back.
--
--   local par = require "llmd.parallel"
--   local h = par.start(w, "b", job)   -- nil, why when no child can be started
--   ...                                -- the parent reads run a meanwhile
--   local side = par.finish(h)         -- run b's side, as cmp.import_side made it
--   par.abort(h)                       -- on any failure of the parent's: stopped, gone
--   local c = par.start_copy(w, "a", plan) -- run a's results copied beside the reading
--   par.finish(c)                      -- true once copied (and checked unchanged)
--
-- The child runs cmp.import_side (import, read, save_run: the serial path's own code)
-- and writes the side into WORKSPACE/.side-x/: side.lua (a Lua chunk: every table,
-- shared ones once, numbers exactly) and one stats dump per accumulator (llmd.stats
-- dump/load: the samples, sorted or not, sums and moments, bit for bit). The parent
-- loads them and removes the folder. A child that fails leaves its message there; the
-- parent raises it (so the comparison fails with the child's error, naming the file),
-- and the workspace goes as after any failure.
local exitstatus = require "llmd.exitstatus"
local json = require "llmd.json"
local lfs = require "lfs"
local proc = require "llmd.proc"
local scan = require "llmd.scan"
local stats = require "llmd.stats"
local tl = require "llmd.timeline"
local ws = require "llmd.workspace"

local M = {}

-- The room error.txt takes before the child starts: its message is written into it
-- in place, so that a full disk (a likely reason to fail) cannot lose it.
local ERROR_ROOM = 16384
-- The child's exit status when it read its run but could not hand it over (no room for
-- the samples, say: the environment): the caller reads the run itself instead, and says so
-- in one line naming the cause.
local NOT_HANDED = 3
-- ... and when the side it read holds a value that cannot be handed over (a function, a
-- userdata, a table with a metatable): a bug in llmdlua, which the fallback hid for a whole
-- session (closures in a run). An error under LLMDLUA_STRICT=1 (the tests set it), else the
-- caller reads the run itself and warns once (M.say_fallback).
local NOT_SERIALIZABLE = 4

-- Whether a fallback that hides a bug is an error (LLMDLUA_STRICT=1: every test runs so).
function M.strict() return os.getenv("LLMDLUA_STRICT") == "1" end

local STATS_MT = getmetatable(stats.new())
local ARRAY_MT, OBJECT_MT = getmetatable(json.array {}), getmetatable(json.object {})

-- Serializing -------------------------------------------------------------------------------

-- A Lua chunk that rebuilds v: tables (shared and cyclic ones once), strings, numbers
-- (%q: integers as such, floats in hex, so exactly), booleans, json.null, the json
-- array/object marks, and llmd.stats accumulators (dumped into dir; with release, each
-- one's samples given back as they are written and the accumulator emptied: see
-- stats:dump). Anything else (a function, another userdata or metatable) is an error
-- naming where it was.
local unserializable -- the last error M.serialize raised for a value it cannot write (a bug)
local function refuse(msg)
  unserializable = msg
  error(msg, 0)
end

-- Whether err is M.serialize's refusal of a value it cannot write (not a write that failed).
function M.is_unserializable(err) return err ~= nil and err == unserializable end

function M.serialize(v, dir, release)
  local ids, n, nstats = {}, 0, 0
  local make, fill = { "local R = {}" }, {}
  local function lit(x, where)
    local tx = type(x)
    if tx == "string" or tx == "number" or tx == "boolean" then
      return ("%q"):format(x)
    elseif x == json.null then
      return "N"
    elseif tx == "table" or (tx == "userdata" and getmetatable(x) == STATS_MT) then
      local id = ids[x]
      if id then return ("R[%d]"):format(id) end
      n = n + 1
      id = n
      ids[x] = id
      if tx == "userdata" then
        nstats = nstats + 1
        local name = ("stats-%d.bin"):format(nstats)
        x:dump(dir .. "/" .. name, release and { release = true } or nil)
        make[#make + 1] = ("R[%d] = S(%q)"):format(id, name)
        return ("R[%d]"):format(id)
      end
      local mt = getmetatable(x)
      local mark = mt == nil and "{}" or mt == ARRAY_MT and "A()" or mt == OBJECT_MT and "O()"
      if not mark then refuse(("parallel: %s: a table with a metatable cannot be handed over"):format(where)) end
      make[#make + 1] = ("R[%d] = %s"):format(id, mark)
      for k, val in next, x do
        local tk = type(k)
        if tk ~= "string" and tk ~= "number" and tk ~= "boolean" then
          refuse(("parallel: %s: a %s key cannot be handed over"):format(where, tk))
        end
        local ks, vs = lit(k, where), lit(val, where .. "." .. tostring(k)) -- (may add lines first)
        fill[#fill + 1] = ("R[%d][%s] = %s"):format(id, ks, vs)
      end
      return ("R[%d]"):format(id)
    end
    refuse(("parallel: %s: a %s cannot be handed over"):format(where, tx))
  end
  local top = lit(v, "side")
  make[#make + 1] = table.concat(fill, "\n")
  make[#make + 1] = "return " .. top
  return table.concat(make, "\n") .. "\n"
end

-- The value M.serialize wrote (its accumulators loaded from dir).
function M.deserialize(text, dir, name)
  local env = {
    A = json.array, O = json.object, N = json.null,
    S = function(f) return stats.load(dir .. "/" .. f) end,
  }
  local chunk, err = load(text, "=" .. (name or "side"), "t", env)
  if not chunk then error(("%s: cannot read: %s"):format(name or "side", tostring(err)), 0) end
  return chunk()
end

-- Files ---------------------------------------------------------------------------------------

local read = ws.read_text

local function write(path, text)
  local f, err = io.open(path, "wb")
  if not f then error(("%s: cannot write: %s"):format(path, tostring(err)), 0) end
  local ok, werr = f:write(text)
  local cok, cerr = f:close()
  if not ok or not cok then error(("%s: cannot write: %s"):format(path, tostring(werr or cerr)), 0) end
end

-- Removes the hand-over folder and what is in it (nothing else is ever there).
local function remove_dir(dir)
  if lfs.attributes(dir, "mode") ~= "directory" then return end
  for name in lfs.dir(dir) do
    if name ~= "." and name ~= ".." then os.remove(dir .. "/" .. name) end
  end
  lfs.rmdir(dir)
end

-- The running llmdlua binary (Linux: /proc/self/exe), or nil.
function M.exe()
  local p = lfs.symlinkattributes("/proc/self/exe", "target")
  if type(p) == "string" and p:sub(1, 1) == "/" and lfs.attributes(p, "mode") == "file" then return p end
  return nil
end

-- Parent --------------------------------------------------------------------------------------

-- Starts the child for run x: job = {label, plan, info, link, opts, extract_options}
-- (cmp.import_side's). nil, why and its kind when there is no child to start: "chosen"
-- (LLMDLUA_JOBS=1), "environment" (no way to find this llmdlua, the start failed), "bug"
-- (the job holds a value that cannot be handed over; an error under M.strict()): the
-- caller reads x itself then, and says why (M.say_fallback).
function M.start(w, x, job)
  if os.getenv("LLMDLUA_JOBS") == "1" then return nil, "LLMDLUA_JOBS=1", "chosen" end
  local exe = M.exe()
  if not exe then return nil, "cannot find the llmdlua binary to start", "environment" end
  local dir = ("%s/.side-%s"):format(w.path, x)
  local ok, err = lfs.mkdir(dir)
  if not ok then return nil, ("%s: %s"):format(dir, tostring(err)), "environment" end
  local h = { dir = dir, x = x }
  local started, p = pcall(function()
    write(dir .. "/error.txt", (" "):rep(ERROR_ROOM))
    write(dir .. "/job.lua", M.serialize({ w = w.path, x = x, job = job }, dir))
    return proc.spawn({ exe, "-e", ("require('llmd.parallel').child(%q)"):format(dir) },
      { stdout = "null", stderr = { file = dir .. "/stderr.txt" } })
  end)
  if not started then
    remove_dir(dir)
    if M.is_unserializable(p) then
      if M.strict() then
        error(("run %s: its job cannot be handed to the llmdlua that would read it: %s (a bug in llmdlua)"):format(
          x:gsub("^copy%-", ""), tostring(p)), 0)
      end
      return nil, tostring(p), "bug"
    end
    return nil, tostring(p), "environment"
  end
  h.p = p
  -- two readers on (at least) two cores: a large CSV is read in one thread by each,
  -- not in one per core by both (llmd.scan's threads), until the child is done
  h.threads = scan.threads(1)
  h.one_thread = true
  return h
end

-- The parent's CSV threads as they were before the child started.
local function own_threads(h)
  if h.one_thread then
    h.one_thread = nil
    scan.threads(h.threads)
  end
end

-- Starts a child that copies run x's results read in place (ws.copy_later: the copy, then
-- the check that the source is as plan found it), beside what this process does next;
-- M.finish(h) waits for it (true, or its error raised). nil and why as M.start.
function M.start_copy(w, x, plan)
  local h, why = M.start(w, "copy-" .. x, { copy = { x = x, plan = plan } })
  if h then
    h.copy = x
    -- a copy is the kernel's (no CSV read): the parent's threads stay as they were, and
    -- a reader started before it gives them back when it ends, whichever ends first
    own_threads(h)
  end
  return h, why
end

-- Waits for the child and returns its side; raises the child's error when it failed.
-- nil, why and its kind ("environment", "bug": as M.start's) when it read the run but could
-- not hand it over (the caller removes run-x, reads it itself and says why); a "bug" is an
-- error under M.strict(). The hand-over folder is gone either way.
function M.finish(h)
  tl.mark("waiting for " .. h.x)
  local waited, st = pcall(h.p.wait, h.p)
  own_threads(h)
  tl.mark("child " .. h.x .. " ended")
  if not waited then -- interrupted (Ctrl-C): the child stops too
    M.abort(h)
    error(st, 0)
  end
  if h.copy and st and st.ok then -- a copy: nothing to hand over
    remove_dir(h.dir)
    return true
  end
  local side_text = st and st.ok and read(h.dir .. "/side.lua")
  local errtext = (read(h.dir .. "/error.txt") or ""):gsub("%s+$", "")
  local stderr = read(h.dir .. "/stderr.txt") or ""
  local ok, side = false, nil
  if side_text then
    ok, side = pcall(M.deserialize, side_text, h.dir, h.dir .. "/side.lua")
  end
  remove_dir(h.dir)
  tl.mark("hand-over " .. h.x .. " loaded")
  if ok then
    -- what the child said on its way (warnings), said here as the serial path would
    if stderr ~= "" then io.stderr:write(stderr) end
    return side
  end
  if st and (st.code == NOT_HANDED or st.code == NOT_SERIALIZABLE) then
    local why = errtext ~= "" and errtext:match("^[^\n]*") or "no reason recorded"
    if st.code == NOT_HANDED then return nil, why, "environment" end
    if M.strict() then
      error(("run %s: the llmdlua reading it could not hand it over: %s (a bug in llmdlua)"):format(h.x, why), 0)
    end
    return nil, why, "bug"
  end
  if errtext ~= "" then error(errtext, 0) end
  if side_text then error(side, 0) end
  local how = st and exitstatus.text(st)
    or "did not finish"
  error(("%s stopped (%s)%s"):format(h.copy and ("the llmdlua copying run %s's results"):format(h.copy)
    or ("run %s: the llmdlua reading it"):format(h.x), how,
    stderr ~= "" and (": " .. stderr:gsub("%s+$", "")) or ""), 0)
end

-- The one line prog (compare.lua) says where a run is read by this process because no child
-- could read it, or hand it over (M.start's, M.finish's why and kind; what: "run b", "run
-- a's results"; done: what happens instead): nothing where the user chose it (LLMDLUA_JOBS=1),
-- a note naming the cause where the environment caused it, a warning where llmdlua's own bug
-- did (the figures are the same: read as without a child). nil where there is nothing to say.
function M.fallback_line(prog, what, done, why, kind)
  if kind == "chosen" or kind == nil then return nil end
  -- (why wraps the child's error: no position in llmdlua's code, llmd.errors' one rule)
  why = require("llmd.errors").text(why)
  if kind == "bug" then
    return ("%s: warning: %s %s: %s (a bug in llmdlua, please report it; the figures are the same)"):format(prog,
      what, done, why)
  end
  return ("%s: note: %s %s (%s)"):format(prog, what, done, why)
end

function M.say_fallback(...)
  local line = M.fallback_line(...)
  if line then io.stderr:write(line, "\n") end
end

-- Stops the child (if running) and removes its folder: the parent failed or was stopped.
function M.abort(h)
  if not h then return end
  own_threads(h)
  if h.p then pcall(h.p.kill, h.p, 2) end
  pcall(remove_dir, h.dir)
end

-- Child ---------------------------------------------------------------------------------------

-- A child's end on failure: the message into dir/error.txt, in place, in the room made for
-- it (no new block to allocate on a full disk), and on stderr; exit status code.
local function child_fail(dir, err, code)
  local f = io.open(dir .. "/error.txt", "r+b")
  if f then
    f:write(tostring(err):sub(1, ERROR_ROOM))
    f:close()
  end
  io.stderr:write(tostring(err), "\n")
  os.exit(code)
end

-- The child's hand-over of side into dir (side.lua and the stats dumps), then its exit: 0,
-- or NOT_SERIALIZABLE where the side holds a value that cannot be handed over (a bug), else
-- NOT_HANDED (the disk), what was written of it removed.
function M.hand_over(dir, side)
  local ok, err = pcall(function()
    -- the samples' memory becomes the hand-over files' pages as they are written (this
    -- process ends next): no fresh memory for 8 bytes a sample
    write(dir .. "/side.tmp", M.serialize(side, dir, true))
    local rok, rerr = os.rename(dir .. "/side.tmp", dir .. "/side.lua")
    if not rok then error(("%s: cannot rename: %s"):format(dir .. "/side.tmp", tostring(rerr)), 0) end
    tl.mark("hand-over written")
  end)
  if not ok then
    -- what was written of the hand-over goes (room for the parent's own reading)
    for name in lfs.dir(dir) do
      if name:match("^stats%-%d+%.bin$") or name == "side.tmp" then os.remove(dir .. "/" .. name) end
    end
    child_fail(dir, err, M.is_unserializable(err) and NOT_SERIALIZABLE or NOT_HANDED)
  end
  os.exit(0)
end

-- The child's whole life: read the job, import and read the run, save it, hand the
-- side over; on failure the message goes to error.txt and the exit status is 1.
function M.child(dir)
  local function fail(err, code) child_fail(dir, err, code) end
  scan.threads(1) -- the parent reads the other run meanwhile (M.start)
  local side, copied
  local ok, err = pcall(function()
    local j = M.deserialize(assert(read(dir .. "/job.lua"), "no job"), dir, dir .. "/job.lua")
    if j.job.copy then -- M.start_copy's
      require("llmd.workspace").copy_later({ path = j.w }, j.job.copy.x, j.job.copy.plan)
      tl.mark("copy " .. j.job.copy.x)
      copied = true
      return
    end
    side = require("llmd.comparison").import_side({ path = j.w }, j.x, j.job)
  end)
  if not ok then fail(err, 1) end
  if copied then os.exit(0) end
  M.hand_over(dir, side)
end

return M
