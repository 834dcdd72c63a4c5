-- llmd.steps: numbered steps in phases, run in order, with outcomes recorded.
--
--   local steps = require "llmd.steps"
--   local list = {
--     { number = 0, name = "preflight", description = "...", execute = function(ctx) ... end },
--     { number = 10, name = "deploy", per_stack = true, should_skip = function(ctx, stack) ... end,
--       execute = function(ctx, stack) ... return "message" end },
--   }
--   local result = steps.run("compare", list, ctx, { stacks = {"a", "b"}, only = steps.parse("0,3-5"),
--                                                    record = path_of_steps_json, done = {...} })
--
-- Order: global steps numbered up to the first per-stack step run first, then every
-- per-stack step for each stack in turn (stacks one after another, or up to
-- opts.parallel at once; within a stack in number order), then the remaining global
-- steps. A failed global step before the stacks
-- stops the phase; a failed per-stack step stops only its stack (and, with
-- stop_after_failed_stack, the stacks after it); the global steps after the stacks
-- always run. A step raises to fail; what it returns is its message.
-- opts.after_failed_stack(stack, outcome), when given, runs as soon as a stack's step has
-- failed, before any later stack or global step.
-- Each outcome {phase, number, name, stack, status = ok|failed|skipped|done-before|dry-run|reset,
-- message, seconds (to the millisecond: M.seconds), at} is appended to the record file (JSON)
-- as soon as it is known, so an interrupted run can be resumed: steps recorded "ok" are not run again.
local json = require "llmd.json"
local lfs = require "lfs"

local M = {}

-- "0,3-5,9" -> {0 = true, 3 = true, 4 = true, 5 = true, 9 = true}; errors name the part.
-- list (optional: a flow's steps, {number =, name =}): a number that is none of its steps, or
-- a range that holds none, is refused with one line listing the steps (newuser52: --step 5 ran
-- nothing, exit 0, and left a workspace marked INCOMPLETE).
function M.parse(spec, list)
  local set = {}
  local valid, names = {}, {}
  for _, st in ipairs(list or {}) do
    valid[st.number] = true
    names[#names + 1] = ("%d %s"):format(st.number, st.name)
  end
  local function refuse(what)
    error(("--step %s: %s; the steps are %s"):format(tostring(spec), what, table.concat(names, ", ")), 0)
  end
  for part in tostring(spec):gmatch("[^,]+") do
    part = part:match("^%s*(.-)%s*$")
    if part ~= "" then
      local a, b = part:match("^(%d+)%-(%d+)$")
      if a then
        local any = false
        for n = tonumber(a), tonumber(b) do
          set[n] = true
          any = any or valid[n] == true
        end
        if list and not any then refuse(("no step is in %s"):format(part)) end
      elseif part:match("^%d+$") then
        set[tonumber(part)] = true
        if list and not valid[tonumber(part)] then refuse(("there is no step %s"):format(part)) end
      else
        error(("--step: '%s' is not a step number or a range like 3-5"):format(part), 0)
      end
    end
  end
  if list and next(set) == nil then refuse("no step given") end
  return set
end

-- A step's clock: llmd.proc.now, monotonic and sub-second (os.time's whole seconds recorded a
-- 0.4 s step as 0 or 1 s, and a clock set back mid-step as a negative time).
local function now() return require("llmd.proc").now() end

-- The seconds between t0 and t1 (M's clock) as recorded: to the millisecond. A record of an
-- earlier llmdlua holds whole seconds; both are numbers of seconds, summed alike.
function M.seconds(t0, t1) return math.floor((t1 - t0) * 1000 + 0.5) / 1000 end

-- The outcomes recorded so far in path (a JSON array), or {}.
function M.load_record(path)
  if not path or lfs.attributes(path, "mode") ~= "file" then return {} end
  local ok, v = pcall(json.read, path)
  if not ok or type(v) ~= "table" then error(("%s: not a step record (%s)"):format(path, tostring(v)), 0) end
  return v
end

-- Was (phase, name, stack) completed in a previous run (and not reset since)? number: the
-- step's number, for a reset of the steps from one on (M.reset_entry's from); a reset
-- without from undoes every step of its stack.
function M.done_before(record, phase, name, stack, number)
  local done = false
  for _, o in ipairs(record) do
    if o.phase == phase and (o.stack or false) == (stack or false) then
      if o.status == "reset" then
        if o.from == nil or number == nil or number >= o.from then done = false end
      elseif o.name == name and o.status == "ok" then done = true end
    end
  end
  return done
end

-- A "reset" outcome of stack in phase: what it completed before counts as not done (its
-- steps run again on resume), those numbered from on when from is given; the history stays.
function M.reset_entry(phase, stack, why, from)
  return { phase = phase, number = -1, name = "*", stack = stack, status = "reset", message = why, from = from,
    seconds = 0, at = os.date("!%Y-%m-%dT%H:%M:%SZ") }
end

-- Appends M.reset_entry(phase, stack, why, from) to the record at path.
function M.reset(path, phase, stack, why, from)
  local record = M.load_record(path)
  record[#record + 1] = M.reset_entry(phase, stack, why, from)
  json.write(path, json.array(record))
end

-- Parallel stacks -------------------------------------------------------------------------
--
-- With opts.parallel = N, up to N stacks run at once, each in a coroutine. A step waits
-- for its commands with M.exec (the cluster layer uses it), which yields to the other
-- stacks while the command runs; a step that blocks otherwise simply holds the others
-- until it returns. Outside a parallel run M.exec is proc.run.

local running = setmetatable({}, { __mode = "k" }) -- coroutines of parallel stacks

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local s = f:read("a")
  f:close()
  os.remove(path)
  return s
end

-- proc.run, cooperative inside a parallel stack. opts as proc.run; a stdout function is
-- called with each line once the command has finished.
function M.exec(argv, opts)
  local proc = require "llmd.proc"
  opts = opts or {}
  local co = coroutine.running()
  if not running[co] then
    -- an interrupt is "interrupted", without this line's position (proc.run raises it
    -- from C, which names the Lua line that called it): a warning that quotes it, as a
    -- lock's release after a second Ctrl-C does, names no source file to the user
    local ok, r = pcall(proc.run, argv, opts)
    if ok then return r end
    if type(r) == "string" and r:match("interrupted$") then error("interrupted", 0) end
    error(r, 0)
  end
  if type(opts.stdin) == "string" then
    -- a pipe needs a reader and a writer at once: keep it simple and blocking
    return proc.run(argv, opts)
  end
  -- (each output a file os.tmpname made - mkstemp: a new name, made by this process alone,
  -- mode 600 - and kept until read: never a name derived from one and opened after it was
  -- removed, which another process could take or plant a link under in /tmp, harden51 #6)
  local out_path, err_path = os.tmpname(), os.tmpname()
  local line_fn = type(opts.stdout) == "function" and opts.stdout or nil
  local sopts = { env = opts.env, cwd = opts.cwd, clear_env = opts.clear_env,
    stdin = type(opts.stdin) == "table" and opts.stdin or nil,
    stdout = (opts.stdout == nil or opts.stdout == "capture" or line_fn) and { file = out_path } or opts.stdout,
    stderr = opts.stderr == "stdout" and { file = out_path, append = true }
      or ((opts.stderr == nil or opts.stderr == "capture") and { file = err_path } or opts.stderr) }
  local t0 = os.time()
  local sok, p = pcall(proc.spawn, argv, sopts)
  if not sok then
    os.remove(out_path)
    os.remove(err_path)
    error(p, 0)
  end
  local st
  while true do
    st = p:poll()
    if st then break end
    if opts.timeout and opts.timeout > 0 and os.time() - t0 >= opts.timeout then
      st = p:kill(opts.kill_grace or 5)
      st.timed_out, st.ok = true, false
      break
    end
    -- (an interrupt taken by run_parallel: this stack's command stops, and its step fails
    -- "interrupted", recorded and said as one run alone says it)
    if coroutine.yield() == "interrupted" then
      p:kill(opts.kill_grace or 5)
      read_file(out_path)
      read_file(err_path)
      error("interrupted", 0)
    end
  end
  local r = { code = st.code, signal = st.signal, ok = st.ok, timed_out = st.timed_out or false,
    elapsed = os.time() - t0, pid = p:pid() }
  local out = read_file(out_path)
  if line_fn then
    for line in out:gmatch("([^\n]*)\n?") do if line ~= "" then line_fn(line) end end
  else
    r.stdout = out
  end
  r.stderr = read_file(err_path)
  return r
end

-- Runs fn(stack) for every stack, up to n at once.
function M.run_parallel(stacks, fn, n)
  local proc = require "llmd.proc"
  local queue, active = {}, {}
  for _, s in ipairs(stacks) do queue[#queue + 1] = s end
  local function start()
    while #active < n and #queue > 0 do
      local stack = table.remove(queue, 1)
      local co = coroutine.create(function() return fn(stack) end)
      running[co] = true
      active[#active + 1] = co
    end
  end
  start()
  local lok, lerr = pcall(function()
    while #active > 0 do
      local i = 1
      while i <= #active do
        local co = active[i]
        local ok, err = coroutine.resume(co)
        if not ok then error(err, 0) end
        if coroutine.status(co) == "dead" then
          table.remove(active, i)
          start()
        else
          i = i + 1
        end
      end
      if #active > 0 then proc.run { "sleep", "0.02" } end
    end
  end)
  if lok then return end
  -- An interrupt (Ctrl-C, SIGTERM) comes here, between the stacks' turns: each stack still
  -- under way is told, so that its step stops its command and fails "interrupted" (recorded,
  -- and its FAILED line said), as one stack alone is stopped inside its step
  if tostring(lerr):match("interrupted$") then
    for _, co in ipairs(active) do
      if coroutine.status(co) == "suspended" then coroutine.resume(co, "interrupted") end
    end
    error("interrupted", 0)
  end
  error(lerr, 0)
end

function M.run(phase, list, ctx, opts)
  opts = opts or {}
  local sorted = {}
  for i, s in ipairs(list) do
    if type(s.number) ~= "number" or type(s.name) ~= "string" or type(s.execute) ~= "function" then
      error(("step %d: needs number, name and execute"):format(i), 2)
    end
    sorted[#sorted + 1] = { s = s, i = i }
  end
  table.sort(sorted, function(a, b)
    if a.s.number ~= b.s.number then return a.s.number < b.s.number end
    return a.i < b.i
  end)
  local boundary
  for _, e in ipairs(sorted) do
    if e.s.per_stack and (not boundary or e.s.number < boundary) then boundary = e.s.number end
  end
  local pre, per, post = {}, {}, {}
  for _, e in ipairs(sorted) do
    local s = e.s
    local selected = not opts.only or opts.only[s.number]
    if not selected then
      goto next
    elseif s.per_stack then
      per[#per + 1] = s
    elseif not boundary or s.number <= boundary then
      pre[#pre + 1] = s
    else
      post[#post + 1] = s
    end
    ::next::
  end
  local record = opts.previous or M.load_record(opts.record)
  local outcomes = {}
  local result = { phase = phase, ok = true, outcomes = outcomes, failed = {} }
  local log = opts.out or io.stdout

  -- (a record that cannot be written - a full disk, a read-only workspace - never hides the
  -- step's own outcome: the write's error raised here replaced a failed step's message, the
  -- report's own "No space left on device" naming its file, and the run ended without saying
  -- what was deployed or how to go on; the step's outcome stands, and that it is not
  -- recorded is said, so that a resume runs it again)
  local function save(o)
    outcomes[#outcomes + 1] = o
    if opts.record then
      record[#record + 1] = o
      local ok, err = pcall(json.write, opts.record, json.array(record))
      if not ok then
        record[#record] = nil
        o.unrecorded = tostring(err)
        log:write(("[%02d] %s%s: %s, but not recorded (a resume runs it again): %s\n"):format(o.number, o.name,
          o.stack and (" (" .. o.stack .. ")") or "", o.status, o.unrecorded))
      end
    end
  end

  local function one(s, stack)
    local o = { phase = phase, number = s.number, name = s.name, stack = stack, at = os.date("!%Y-%m-%dT%H:%M:%SZ") }
    if opts.resume and M.done_before(record, phase, s.name, stack, s.number) then
      o.status, o.message, o.seconds = "done-before", "completed in an earlier run", 0
      outcomes[#outcomes + 1] = o
      return true
    end
    if s.should_skip and s.should_skip(ctx, stack) then
      o.status, o.message, o.seconds = "skipped", "skipped", 0
      save(o)
      return true
    end
    local t0 = now()
    if opts.announce then opts.announce(s, stack) end
    local ok, msg = xpcall(s.execute, function(e)
      -- an interrupt raised inside a cluster call carries that call's Lua position
      -- (".../llmd/steps.lua:109: interrupted"): of no use to the user, dropped
      if type(e) == "string" and e:match("interrupted$") then return (e:gsub("^[^\n]-%.lua:%d+: ", "")) end
      return e
    end, ctx, stack)
    o.seconds = M.seconds(t0, now())
    if ok then
      -- a dry run did nothing: recorded, never as done (a resume runs it for real)
      o.status, o.message = opts.dry_run and "dry-run" or "ok", type(msg) == "string" and msg or "done"
    else
      o.status, o.message = "failed", tostring(msg)
    end
    save(o)
    if not ok then
      result.failed[#result.failed + 1] = o
      if opts.on_failure then opts.on_failure(o) end
      log:write(("[%02d] %s%s: FAILED - %s\n"):format(s.number, s.name, stack and (" (" .. stack .. ")") or "",
        o.message))
      -- (an interrupt's message ends "interrupted"; one that only mentions the word, a path
      -- like /runs/interrupted-ws/ or "the stream was interrupted by the server", is a failure
      -- of this step, not a Ctrl-C that stops every stack)
      if tostring(msg):match("interrupted$") then error(msg, 0) end
    end
    return ok, o
  end

  for _, s in ipairs(pre) do
    if not one(s) then
      result.ok = false
      result.aborted = ("global step %02d (%s) failed"):format(s.number, s.name)
      return result
    end
  end
  local function run_stack(stack)
    for _, s in ipairs(per) do
      local ok, o = one(s, stack)
      if not ok then
        result.ok = false
        -- what a failed stack leaves is said where it failed: before the next stack or
        -- the global steps after the stacks (whose own failures follow from it)
        if opts.after_failed_stack then opts.after_failed_stack(stack, o) end
        return false
      end
    end
    return true
  end
  local stacks = opts.stacks or {}
  if (opts.parallel or 1) > 1 and #stacks > 1 then
    M.run_parallel(stacks, run_stack, opts.parallel)
  else
    for _, stack in ipairs(stacks) do
      -- stacks that share one resource (a namespace) must not start after one failed
      if not run_stack(stack) and opts.stop_after_failed_stack then
        result.stopped = stack
        break
      end
    end
  end
  for _, s in ipairs(post) do
    if not one(s) then result.ok = false end
  end
  return result
end

return M
