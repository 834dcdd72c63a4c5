-- What a workspace's run_comparison.sh (templates/run_comparison.sh) asks of llmdlua about
-- whose things in its namespace are: which helm releases and which baseline Service this
-- comparison deployed and has not torn down, so that the script's teardown lines remove
-- only those (never someone else's of the same name), and its record of what it deployed
-- and tore down itself (run-X/rerun_deployed.json), so that a second run of the script does
-- not act on them again. And the lock the script holds while it acts (M.hold): the
-- workspace's and the namespace's, as compare.lua takes them.
--
-- A release is this comparison's when the release of that name in the namespace now is the
-- one recorded as deployed and not torn down: by compare.lua (run-X/deployed.json, its
-- release_ids - helm status's info.first_deployed, set at install and kept by upgrades, and
-- its revision -, by name in a record of an older llmdlua without them) or by the script's
-- own deploy lines (run-X/rerun_deployed.json, the same identity read after them). One
-- installed again since (another first_deployed) or upgraded by someone else (another
-- revision) is not. The Service likewise by its metadata.uid.
local json = require "llmd.json"
local k8s = require "llmd.k8s"
local lfs = require "lfs"

local M = {}

M.RECORD = "rerun_deployed.json"

local function read_json(p)
  if lfs.attributes(p, "mode") ~= "file" then return nil end
  local ok, v = pcall(json.read, p)
  if not ok then error(("cannot read %s: %s"):format(p, tostring(v)), 0) end
  return type(v) == "table" and v or nil
end

local function env(name)
  local v = os.getenv(name)
  if v == nil or v == "" then error("run_comparison.sh: " .. name .. " is not set", 0) end
  return v
end

local function ctx()
  local ns = env("NAMESPACE")
  return { k = require("llmd.k8s").new { namespace = ns }, ns = ns }
end

local function words(s)
  local out = {}
  for w in tostring(s or ""):gmatch("%S+") do out[#out + 1] = w end
  return out
end

-- The run folder's two records: compare.lua's (deployed.json) and the script's own.
local function records(dir, side)
  local rdir = ("%s/run-%s"):format(dir, side)
  local d = read_json(rdir .. "/deployed.json")
  local s = read_json(rdir .. "/" .. M.RECORD) or {}
  s.releases = type(s.releases) == "table" and s.releases or {}
  s.torn = type(s.torn) == "table" and s.torn or {}
  return d, s, rdir .. "/" .. M.RECORD
end

local function write_record(path, s)
  s.releases = json.object(s.releases)
  s.torn = json.array(s.torn)
  json.write(path, s)
end

local function id_text(id)
  return ("first deployed %s, revision %s"):format(tostring(id.first_deployed), tostring(id.version))
end

local function same(id, want)
  return type(want) == "table" and want.first_deployed == id.first_deployed
    and (want.version == nil or tostring(want.version) == tostring(id.version))
end

-- Whose release name is: "ours", "gone" (none of that name), or "theirs" and why.
local function release_owner(c, d, s, name)
  local id, why = require("llmd.cluster").release_identity(c, name)
  if not id then
    if why == "not found" then return "gone" end
    return "theirs", "cannot tell whether it is this comparison's: " .. why
  end
  if same(id, s.releases[name]) then return "ours" end
  -- a deploy line of the script killed while its command ran (kill -9, a lost machine: the
  -- script recorded nothing after it): the release it was to install, not there before it (or
  -- this comparison's there, then at the revision recorded), first deployed after it started
  -- (k8s.made_since) and not upgraded since, is the one it installed (or upgraded once); one
  -- first deployed too close to the start to tell which came first is not known as its own
  local dep = type(s.deploying) == "table" and type(s.deploying.started) == "string" and s.deploying or nil
  local was = dep and type(dep.names) == "table" and dep.names[name]
  if was ~= nil then
    local since = was == false and k8s.made_since(id.first_deployed, dep.started)
    if since == "after" and tostring(id.version) == "1" then
      return "ours"
    end
    if since == "same" and tostring(id.version) == "1" then
      return "theirs", ("%s; too close to when this script's deploy line started (%s), which was stopped before it "
        .. "recorded what it installed, to tell whether it installed it; uninstall it by hand if it is yours: %s")
        :format(id_text(id), tostring(dep.started), k8s.cmdline(c.k:argv("helm", { "uninstall", name })))
    end
    if type(was) == "table" and was.first_deployed == id.first_deployed
      and tostring(id.version) == tostring((math.tointeger(tonumber(was.version)) or -1) + 1) then
      return "ours"
    end
  end
  local live = type(d) == "table" and d.torn_down ~= true
  local listed = false
  for _, n in ipairs(type(d) == "table" and type(d.releases) == "table" and d.releases or {}) do
    listed = listed or n == name
  end
  local want = live and listed and (type(d.release_ids) == "table" and d.release_ids[name] or nil)
  if live and listed and type(d.release_ids) ~= "table" then return "ours" end -- (an older record: by name)
  if same(id, want) then return "ours" end
  local mine = s.releases[name] or want
  if type(mine) == "table" then
    return "theirs", ("%s; this comparison's was %s: installed again or upgraded since by someone else")
      :format(id_text(id), id_text(mine))
  end
  return "theirs", ("%s; not recorded as deployed and not torn down by this comparison in run-%s/deployed.json or "
    .. "run-%s/%s"):format(id_text(id), env("SIDE"), env("SIDE"), M.RECORD)
end

-- Whose the Service name is now: "ours", "gone", or "theirs" and why.
local function service_owner(c, d, s, name)
  local v, r = c.k:json({ "get", "services" }, { check = false })
  if not v then
    return "theirs", ("cannot tell whether it is this comparison's: kubectl -n %s get services -o json: %s"):format(
      c.ns, ((r and r.stderr or ""):gsub("%s+", " ")))
  end
  local uid
  for _, it in ipairs(type(v.items) == "table" and v.items or {}) do
    if type(it.metadata) == "table" and it.metadata.name == name then uid = it.metadata.uid or "unknown" end
  end
  if not uid then return "gone" end
  if type(s.service) == "table" and s.service.torn_down ~= true and s.service.uid == uid then return "ours" end
  if type(d) == "table" and d.baseline_service == true and d.torn_down ~= true then
    local want = ((type(d.uids) == "table" and d.uids.services) or {})[name]
    if want == nil or want == uid then return "ours" end
  end
  return "theirs", ("uid %s; not recorded as made and not torn down by this comparison in run-%s/deployed.json or "
    .. "run-%s/%s"):format(tostring(uid), env("SIDE"), env("SIDE"), M.RECORD)
end

-- The script's calls: OP (env) and what it needs (SIDE, COMPARISON_DIR, NAMESPACE, NAMES or
-- NAME); one line a name on stdout: "ours NAME", "gone NAME" or "theirs NAME WHY".
function M.main()
  local op, side, dir = env("OP"), env("SIDE"), env("COMPARISON_DIR")
  local d, s, path = records(dir, side)
  local c = ctx()
  local now = os.date("!%Y-%m-%dT%H:%M:%SZ")
  if op == "releases" then
    for _, n in ipairs(words(os.getenv("NAMES"))) do
      local who, why = release_owner(c, d, s, n)
      print(who .. " " .. n .. (why and (" " .. why) or ""))
    end
  elseif op == "deploying" then
    -- before the script's deploy line runs (its check found none of its names someone
    -- else's): when it started and which of its releases were there, and as what, kept so
    -- that a kill -9 during it leaves the script's next run able to tell what it installed
    local names = {}
    for _, n in ipairs(words(os.getenv("NAMES"))) do
      local id = require("llmd.cluster").release_identity(c, n)
      names[n] = id and { first_deployed = id.first_deployed, version = id.version } or false
    end
    -- (to the microsecond, as compare.lua's deploy records its start: k8s.made_since)
    s.deploying = { started = k8s.utc_now(), names = json.object(names) }
    write_record(path, s)
  elseif op == "deployed" then
    -- after the script's deploy line: the releases of its names there now are what it
    -- deployed (its check refused any other's before it ran)
    for _, n in ipairs(words(os.getenv("NAMES"))) do
      local id = require("llmd.cluster").release_identity(c, n)
      if id then s.releases[n] = { first_deployed = id.first_deployed, version = id.version, at = now } end
    end
    s.deployed, s.torn_down, s.deploying = now, false, nil
    write_record(path, s)
  elseif op == "uninstalled" then
    for _, n in ipairs(words(os.getenv("NAMES"))) do
      local id = s.releases[n] or (type(d) == "table" and type(d.release_ids) == "table" and d.release_ids[n]) or {}
      s.torn[#s.torn + 1] = { release = n, first_deployed = id.first_deployed, version = id.version, at = now }
      s.releases[n] = nil
    end
    write_record(path, s)
  elseif op == "service" then
    local n = env("NAME")
    local who, why = service_owner(c, d, s, n)
    print(who .. " " .. n .. (why and (" " .. why) or ""))
  elseif op == "service_made" then
    local v = c.k:json({ "get", "service", env("NAME") }, { check = false })
    local uid = type(v) == "table" and type(v.metadata) == "table" and v.metadata.uid or nil
    s.service = { name = env("NAME"), uid = uid, made = now, torn_down = false }
    write_record(path, s)
  elseif op == "service_deleted" then
    s.service = type(s.service) == "table" and s.service or { name = env("NAME") }
    s.service.torn_down, s.service.deleted = true, now
    s.torn[#s.torn + 1] = { service = env("NAME"), uid = s.service.uid, at = now }
    write_record(path, s)
  elseif op == "stack" then
    -- is run X's stack one this comparison deployed and did not tear down (for the teardown
    -- lines that are neither a release's nor the Service's)?
    local live = (s.deployed ~= nil and s.torn_down ~= true) or type(s.deploying) == "table"
      or (type(d) == "table" and d.torn_down ~= true and (type(d.before) == "table"
        or (type(d.releases) == "table" and #d.releases > 0)))
    print(live and "ours" or "theirs")
  elseif op == "torn_down" then
    s.torn_down, s.torn_down_at, s.deploying = true, now, nil
    write_record(path, s)
  else
    error("run_comparison.sh: unknown OP " .. op, 0)
  end
end

-- The script's override of the cluster check (M.check_cluster): act on the current kube
-- context though the workspace was made in another (or records none); what it then records
-- (M.stamp_cluster) says so.
M.OVERRIDE = "LLMDLUA_USE_CURRENT_CONTEXT"
local function overridden() return os.getenv(M.OVERRIDE) == "1" end

-- Is the cluster kubectl talks to now the one the workspace at dir was made in (its
-- cluster.json), as compare.lua --resume checks (llmd.cluster.check_identity)? Raises one line
-- saying which and how to go on, unless the override is set; returns the current identity and
-- how it differs (nil: the same).
function M.check_cluster(dir, k)
  local cluster = require "llmd.cluster"
  local saved = read_json(dir .. "/cluster.json") or {}
  local id = cluster.identity(k)
  local ok, why = pcall(cluster.check_identity, saved, id, dir, overridden())
  if not ok then
    -- (the script's override, not compare.lua's --use-current-context: said as the script takes it)
    why = tostring(why):gsub("add %-%-use%-current%-context if the current one is where it was made",
      "run the script with " .. M.OVERRIDE .. "=1 to act on the current one all the same (the re-run's "
      .. "run_state.json then records it, and compare.lua says the two runs ran on different clusters)")
    error(why, 0)
  end
  return id, why
end

-- The re-run's record st (run X's run_state.json, copied) with the cluster it ran on: its
-- cluster (context, server, namespace; and, where the override let it run elsewhere than the
-- workspace, override and the workspace's cluster), and, run elsewhere, no hardware or GPU
-- count of run X's (another cluster's are not known).
function M.stamp_cluster(st, dir, ns)
  local k = k8s.new { namespace = ns }
  local id = require("llmd.cluster").identity(k)
  local saved = read_json(dir .. "/cluster.json") or {}
  local c = { context = id.context or json.null, server = id.server or json.null, namespace = ns }
  local sctx = type(saved.context) == "string" and saved.context or nil
  local ssrv = type(saved.server) == "string" and saved.server or nil
  -- (as llmd.cluster.check_identity takes it: the recorded context, else server, is the one now)
  local here = (sctx or ssrv) and (sctx == nil or sctx == id.context) and (ssrv == nil or ssrv == id.server)
  if not here then
    c.override = M.OVERRIDE .. "=1"
    c.workspace_cluster = { context = sctx or json.null, server = ssrv or json.null }
    if type(st.stack) == "table" then
      st.stack.hardware, st.stack.gpus = "unknown", "unknown"
    end
  end
  st.cluster = c
  return st
end

-- The script file the shell of pid runs (its /proc cmdline: the first argument after the shell's
-- that names a file, read from the shell's folder when relative), else dir/run_comparison.sh.
local function script_of(pid, dir)
  local f = io.open("/proc/" .. tostring(pid) .. "/cmdline", "rb")
  local cmd = f and f:read("a") or ""
  if f then f:close() end
  local cwd = require("llmd.proc").realpath("/proc/" .. tostring(pid) .. "/cwd")
  local first = true
  for a in cmd:gmatch("([^%z]+)") do
    if not first and a:sub(1, 1) ~= "-" then
      local p = a:sub(1, 1) == "/" and a or (cwd and (cwd .. "/" .. a))
      if p and lfs.attributes(p, "mode") == "file" then return p end
    end
    first = false
  end
  return dir .. "/run_comparison.sh"
end

-- A script that acts on another cluster than its workspace's (the override set) must record
-- that cluster in its re-run's run_state.json (M.stamp_cluster), or compare.lua takes the re-run
-- as run-to-run variation of its run. A script written by an llmdlua before that record (and
-- the check) has no stamp_cluster line: it still calls M.hold, so it gets the check, but with
-- the override it is refused here, with the command that writes it anew. nil when it records it.
function M.old_script_problem(script, dir, why)
  local f = io.open(script, "rb")
  local text = f and f:read("a") or ""
  if f then f:close() end
  if text:find("stamp_cluster", 1, true) then return nil end
  local sh = require("llmd.template").helpers.sh
  return ("%s was written by an older llmdlua: it does not record in a re-run's run_state.json the cluster the re-run "
    .. "ran on, so compare.lua would take a re-run here (%s %s) as run-to-run variation; %s=1 is refused for it. "
    .. "Write the script anew first: %s analyze.lua %s (a script you edited is kept, and the new one written beside "
    .. "it as run_comparison.sh.new)"):format(script, dir, why, M.OVERRIDE, "llmdlua", sh(dir))
end

-- The lock the script holds while it acts (run in the background by it): the workspace's
-- (the flock compare.lua and analyze.lua take) and the namespace's (the ConfigMap compare.lua
-- and experiment.lua take), so that the script and a compare.lua --resume of the workspace,
-- or another llmdlua run in the namespace, never act at once. Prints "locked" once held, or
-- "refused WHY" (one line); then holds until its parent (the script, PARENT's pid) is gone or
-- it is stopped (SIGTERM: the script's exit), and lets go of the namespace's.
function M.hold()
  local ws, cluster, proc = require "llmd.workspace", require "llmd.cluster", require "llmd.proc"
  local dir, parent = env("COMPARISON_DIR"), env("PARENT")
  local ok, err = ws.lock(dir, "run_comparison.sh")
  if not ok then
    print("refused " .. tostring(err))
    return
  end
  local c = ctx()
  -- (the cluster first: the script acts where the workspace was made, or where its override says)
  local cok, cerr, differs = pcall(M.check_cluster, dir, c.k)
  if not cok then
    print("refused " .. tostring(cerr))
    return
  end
  -- (elsewhere by the override: only a script that records where its re-run ran)
  local old = differs and M.old_script_problem(script_of(parent, dir), dir, differs)
  if old then
    print("refused " .. old)
    return
  end
  local lok, lock = pcall(cluster.lock_namespace, c.k, dir, "run_comparison.sh", io.stderr)
  if not lok then
    print("refused " .. tostring(lock))
    return
  end
  print("locked")
  io.stdout:flush()
  -- (the script gone: no process of its pid and start, or one that has exited and waits to
  -- be reaped - a zombie, state Z, holds on to nothing, and its parent may never reap it)
  local start = cluster._start_of(parent)
  local function running()
    local s, state = cluster._start_of(parent)
    return s == start and state ~= "Z" and state ~= "X"
  end
  pcall(function()
    while start and running() do proc.run { "sleep", "0.2" } end
  end)
  proc.take_interrupt()
  proc.cleanup(cluster.unlock_namespace, lock, io.stderr)
end

return M
