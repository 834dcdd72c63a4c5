-- Runs that must not overlap (newuser45's trial): two processes on one workspace (two
-- compare.lua --resume of one comparison both deployed, benchmarked one stack at once and
-- tore it down; the first's report mixed both's results) and two runs in one namespace (two
-- experiments started at once from one plan: both passed the check of the releases there,
-- both deployed them, one tore down the other's stack). Against the fake cluster
-- (tests/fakecluster), whose kubectl answers `create configmap` of a name there already as
-- kubectl does ("error: failed to create configmap: configmaps "x" already exists").
-- Expected texts are written from the task, never taken from the code's output; the fake's
-- FAKE_SLOW_BENCH holds the first process in its benchmark while the second one starts.
local t = require "testlib"
local json = require "llmd.json"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"
local lfs = require "lfs"

local ROOT = t.root()
local LLMDLUA = ROOT .. "/llmdlua"
local FAKEBIN = ROOT .. "/tests/fakecluster/bin"

-- this host's name, as the kernel says it (what a lock records of its holder's host)
local HOST = t.read("/proc/sys/kernel/hostname"):gsub("%s+$", "")

local function env_of(s, over)
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  for k, v in pairs(over or {}) do env[k] = v end
  return env
end

-- kubectl of the fake cluster, as a user (or another host) would call it
local function kubectl(s, ...)
  return proc.run({ FAKEBIN .. "/kubectl", ... }, { env = env_of(s) })
end

local function state(s) return json.decode(t.read(s.cluster .. "/state.json")) end

local function lock_cm(s, ns)
  local st = state(s)
  return ((st.ns[ns] or {}).configmaps or {})["llmdlua-lock"]
end

-- "tool arg arg ..." of every call the fake cluster saw
local function call_lines(s)
  local out = {}
  for _, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do out[#out + 1] = c.tool .. " " .. table.concat(c.args, " ") end
  return out
end

local function count(lines, pattern)
  local n = 0
  for _, l in ipairs(lines) do if l:find(pattern) then n = n + 1 end end
  return n
end

-- a process started in the background, its output in files; waits for the fake's mark
-- that its benchmark sleeps (FAKE_SLOW_BENCH), its state saved
local function start_slow(s, argv, slow)
  local out = s.dir .. "/first.out"
  local p = proc.spawn(argv, { env = env_of(s, { FAKE_SLOW_BENCH = slow or "20" }), cwd = s.dir,
    stdout = { file = out }, stderr = { file = out .. ".err" } })
  t.ok(t.wait_for_file(s.cluster .. "/bench-sleeping", p), "the first one's benchmark started")
  return p, out
end

t.test("two compare.lua --resume on one workspace: the second is refused at once, the first's report clean", function()
  local s = t.try_setup()
  -- a comparison that failed at run A's smoke test: a workspace to resume
  local r = t.fake_compare(s, nil, { FAKE_FAIL = "smoke" }, s.dir)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  t.ok(w, "the workspace kept for --resume")
  local p, out = start_slow(s, { LLMDLUA, "compare.lua", "--yes", "--resume", w })
  local before = #call_lines(s)
  local r2 = t.fake_compare(s, { "--resume", w }, nil, s.dir)
  -- analyze.lua on it meanwhile: in use (not "incomplete", which would send the user to --resume)
  local ra = proc.run({ LLMDLUA, "analyze.lua", w }, { env = env_of(s) })
  local after = #call_lines(s)
  local r1 = p:wait()
  -- refused with one line naming the workspace and the process that holds it, exit 2
  t.eq(r2.code, 2, r2.stdout .. r2.stderr)
  local lines = {}
  for l in r2.stderr:gmatch("[^\n]+") do lines[#lines + 1] = l end
  t.eq(#lines, 1, r2.stderr)
  t.ok(r2.stderr:find("^compare%.lua: " .. w:gsub("%p", "%%%0") .. ": in use by another llmdlua process %(compare%.lua "
    .. "%-%-resume, pid " .. p:pid() .. ", started %d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%dZ%)"), r2.stderr)
  t.eq(r2.stdout, "", "nothing deployed, nothing said")
  t.eq(ra.code, 2, ra.stderr)
  t.ok(ra.stderr:find("^analyze%.lua: " .. w:gsub("%p", "%%%0") .. ": in use by another llmdlua process %(compare%.lua "
    .. "%-%-resume, pid " .. p:pid() .. ", started [^\n]*\n$"), ra.stderr)
  t.eq(after, before, "the second made no cluster call")
  -- the first went on alone: one benchmark per run, its report written, both stacks torn down
  t.eq(r1.code, 0, t.read(out) .. t.read(out .. ".err"))
  t.ok(lfs.attributes(w .. "/comparison_report.md"), "the report")
  local calls = call_lines(s)
  t.eq(count(calls, "^run_only%.sh "), 2, table.concat(calls, "\n"))
  t.eq(count(calls, "^helmfile .* apply "), 2, table.concat(calls, "\n"))
  t.eq(lock_cm(s, "llm-d-try"), nil, "the namespace let go")
  -- the workspace is free again once its holder ended (the kernel let the lock go)
  local r3 = proc.run({ LLMDLUA, "analyze.lua", "--quiet", w }, { env = env_of(s) })
  t.eq(r3.code, 0, r3.stderr)
end)

-- the experiment used below: no setup phase, two run treatments, one namespace
local EXPERIMENT = [[
experiment:
  name: lock-sweep
  harness: inference-perf
treatments:
  - name: rate1
    load.stages.0.rate: 1
  - name: rate5
    load.stages.0.rate: 5
]]

local function experiment_setup()
  local d = proc.realpath(t.tmpdir())
  t.sim_guide(d)
  t.write(d .. "/experiment.yaml", EXPERIMENT)
  t.write(d .. "/plan.yaml", yaml.dump {
    namespaces = { "exp-a" }, parallel = 1, parent = d,
    timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio", model = "Qwen/Qwen3-0.6B",
      gateway = "istio" },
    benchmark = { template = d .. "/template.yaml", harness = "inference-perf", attempts = 1 },
  })
  return { dir = d, plan = d .. "/plan.yaml", exp = d .. "/experiment.yaml", cluster = d .. "/cluster",
    env = t.fake_env(d .. "/cluster", { FAKE_FAIL_NAMESPACE = false }) }
end

local function experiment_folders(d)
  local out = {}
  for n in lfs.dir(d) do if n:match("^llm%-d%-experiment%-lock%-sweep%-") then out[#out + 1] = d .. "/" .. n end end
  table.sort(out)
  return out
end

t.test("two experiments at once on one plan's namespace: the second refused before any deploy; the first completes",
  function()
  local s = experiment_setup()
  local p, out = start_slow(s, { LLMDLUA, "experiment.lua", s.exp, "--plan", s.plan })
  local first = experiment_folders(s.dir)[1]
  local before = call_lines(s)
  local r2 = proc.run({ LLMDLUA, "experiment.lua", s.exp, "--plan", s.plan }, { env = env_of(s), cwd = s.dir })
  local after = call_lines(s)
  local r1 = p:wait()
  t.eq(r2.code, 1, r2.stdout .. r2.stderr)
  t.ok(r2.stderr:find("namespace exp-a is in use by another llmdlua run (experiment.lua, host " .. HOST .. ", pid "
    .. p:pid() .. ", workspace " .. first .. ", started ", 1, true), r2.stderr)
  t.ok(r2.stderr:find("release the namespace with: kubectl delete configmap llmdlua-lock -n exp-a", 1, true),
    r2.stderr)
  -- what the second did in the cluster: the identity reads and its try at the lock, nothing else
  local theirs = {}
  for i = #before + 1, #after do theirs[#theirs + 1] = after[i] end
  for _, l in ipairs(theirs) do
    t.ok(l:find("^kubectl %-n exp%-a config ") or l:find("^kubectl %-n exp%-a create configmap llmdlua%-lock ")
      or l:find("^kubectl %-n exp%-a get configmap llmdlua%-lock "), "only the lock tried: " .. l)
  end
  t.eq(count(theirs, "create configmap llmdlua%-lock"), 1, table.concat(theirs, "\n"))
  -- its own workspace went (nothing was done in it); the first's is the only one
  t.eq(experiment_folders(s.dir), { first })
  -- the first ran both treatments once, on its own stack, and let the namespace go
  t.eq(r1.code, 0, t.read(out) .. t.read(out .. ".err"))
  t.ok(t.read(out):find("2/2", 1, true), t.read(out))
  local calls = call_lines(s)
  t.eq(count(calls, "^helmfile .* apply "), 1, table.concat(calls, "\n"))
  t.eq(count(calls, "^run_only%.sh "), 2, table.concat(calls, "\n"))
  t.eq(lock_cm(s, "exp-a"), nil, "the namespace let go")
end)

t.test("a namespace lock left on this host by a process that is gone is taken over; another host's is refused",
  function()
  local s = t.try_setup()
  -- a pid above the kernel's pid_max (4194304 at most: PID_MAX_LIMIT) is never a live process
  local function held_by(host, token)
    local r = kubectl(s, "create", "configmap", "llmdlua-lock", "--from-literal=host=" .. host,
      "--from-literal=pid=4194305", "--from-literal=workspace=/gone/ws", "--from-literal=script=compare.lua --plan",
      "--from-literal=started=2026-01-02T03:04:05Z", "--from-literal=token=" .. token, "-n", "llm-d-try")
    t.eq(r.code, 0, r.stderr)
  end
  -- another host's: its pid says nothing here, so it is refused, and never deleted
  held_by("other-host", "theirs")
  local r = t.fake_compare(s, nil, nil, s.dir)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find("namespace llm-d-try is in use by another llmdlua run (compare.lua --plan, host other-host, "
    .. "pid 4194305, workspace /gone/ws, started 2026-01-02T03:04:05Z; ConfigMap llmdlua-lock)", 1, true), r.stderr)
  t.ok(r.stderr:find("release the namespace with: kubectl delete configmap llmdlua-lock -n llm-d-try", 1, true),
    r.stderr)
  t.eq(count(call_lines(s), "^helmfile .* apply "), 0, "nothing deployed")
  t.eq(lock_cm(s, "llm-d-try").data.token, "theirs", "theirs kept")
  t.eq(#t.workspaces(s.dir), 0, "the new workspace removed")
  -- released as said; then this host's, by a process that is gone: taken over, said so
  t.eq(kubectl(s, "delete", "configmap", "llmdlua-lock", "-n", "llm-d-try").code, 0)
  held_by(HOST, "old")
  r = t.fake_compare(s, nil, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Namespace llm-d-try: its lock (ConfigMap llmdlua-lock) was left by llmdlua pid 4194305 on this "
    .. "host (compare.lua --plan, workspace /gone/ws), which is no longer running: taken over\n", 1, true), r.stdout)
  t.eq(lock_cm(s, "llm-d-try"), nil, "let go at the end")
end)

-- A holder is gone only where the host, machine, boot and PID namespace are this run's and no
-- process of its pid and start is there (audit48 S5: a live run in another PID namespace of
-- the same host name, `unshare -p`, lost its lock to a take-over). The identity is read here
-- with cat/readlink, not by the code under test; the messages are the rule's, by hand.
t.test("a namespace lock of a live run elsewhere (another PID namespace) is refused; a reused pid is taken over",
  function()
  local s = t.try_setup()
  local function sh1(cmd) return proc.run({ "sh", "-c", cmd }).stdout:gsub("%s+$", "") end
  local machine, boot = sh1("cat /etc/machine-id 2>/dev/null"), sh1("cat /proc/sys/kernel/random/boot_id")
  local pidns = sh1("readlink /proc/self/ns/pid")
  local function held_by(pid, over)
    local d = { host = HOST, pid = pid, workspace = "/their/ws", script = "compare.lua --plan",
      started = "2026-01-02T03:04:05Z", token = "theirs", machine = machine, boot = boot, pidns = pidns, pstart = "" }
    for k, v in pairs(over) do d[k] = v end
    local argv = { "create", "configmap", "llmdlua-lock", "-n", "llm-d-try" }
    for _, k in ipairs { "host", "pid", "workspace", "script", "started", "token", "machine", "boot", "pidns",
      "pstart" } do argv[#argv + 1] = ("--from-literal=%s=%s"):format(k, d[k]) end
    t.eq(kubectl(s, table.unpack(argv)).code, 0)
  end
  -- pid 4194305 is above the kernel's pid_max, so no process here: but it ran in another PID
  -- namespace (or on another machine, or before a reboot) of this host name, where it may live
  for _, over in ipairs { { pidns = "pid:[4026531836x]" }, { machine = "another-machine" }, { boot = "another-boot" } } do
    held_by("4194305", over)
    local r = t.fake_compare(s, nil, nil, s.dir)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.ok(r.stderr:find("namespace llm-d-try is in use by another llmdlua run (compare.lua --plan, host " .. HOST
      .. ", pid 4194305, workspace /their/ws, started 2026-01-02T03:04:05Z; ConfigMap llmdlua-lock)", 1, true), r.stderr)
    t.eq(lock_cm(s, "llm-d-try").data.token, "theirs", "theirs kept")
    t.eq(count(call_lines(s), "^helmfile .* apply "), 0, "nothing deployed")
    t.eq(kubectl(s, "delete", "configmap", "llmdlua-lock", "-n", "llm-d-try").code, 0)
  end
  -- a live process here (this test's runner) of another start than the holder's: the pid was
  -- used again after the holder ended, so the holder is gone: taken over
  local mine = t.read("/proc/self/stat"):match("^(%d+)")
  held_by(mine, { pstart = "1" })
  local r = t.fake_compare(s, nil, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("Namespace llm-d-try: its lock (ConfigMap llmdlua-lock) was left by llmdlua pid " .. mine
    .. " on this host (compare.lua --plan, workspace /their/ws), which is no longer running: taken over\n", 1, true),
    r.stdout)
  -- the same with this process's own start: alive, refused
  held_by(mine, { pstart = t.read("/proc/self/stat"):match("^.*%) (.*)$"):match(("%S+%s+"):rep(19) .. "(%S+)") })
  r = t.fake_compare(s, nil, nil, s.dir)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(lock_cm(s, "llm-d-try").data.token, "theirs", "theirs kept")
  -- a lock taken records where it runs: this process's machine, boot, PID namespace, start
  t.eq(kubectl(s, "delete", "configmap", "llmdlua-lock", "-n", "llm-d-try").code, 0)
  local k = require("llmd.k8s").new { namespace = "llm-d-try", bins = { kubectl = FAKEBIN .. "/kubectl" },
    env = s.env, backoff = 0.01 }
  local lock = require("llmd.cluster").lock_namespace(k, "/ws/mine", "compare.lua --plan", io.stderr)
  local d = lock_cm(s, "llm-d-try").data
  t.eq({ d.pid, d.machine, d.boot, d.pidns }, { mine, machine, boot, pidns })
  t.eq(d.pstart, t.read("/proc/self/stat"):match("^.*%) (.*)$"):match(("%S+%s+"):rep(19) .. "(%S+)"))
  require("llmd.cluster").unlock_namespace(lock, io.stderr)
  t.eq(lock_cm(s, "llm-d-try"), nil, "let go")
end)

-- A process's state and start as /proc/PID/stat says them (fields 3 and 22, after the
-- command's closing parenthesis), read here with the shell, not by the code under test.
local function stat_of(pid)
  local line = proc.run({ "cat", "/proc/" .. pid .. "/stat" }).stdout
  local rest = line:match("^.*%) (.*)$") or ""
  local f = {}
  for x in rest:gmatch("%S+") do f[#f + 1] = x end
  return f[1], f[20]
end

-- waits (up to 10 s) until pid is a zombie: it has exited and its parent has not reaped it
local function await_zombie(pid)
  for _ = 1, 200 do
    if stat_of(pid) == "Z" then return true end
    proc.run { "sleep", "0.05" }
  end
  return false
end

-- fixc53 #6: a holder that has exited but is not reaped yet (a zombie: /proc/PID/stat state Z,
-- its pid and start still there) holds nothing and never goes on; its lock was taken for a
-- live run's and refused until its parent reaped it, which may be never. Now taken over, and
-- said so; a live holder (the same pid and start, not a zombie) is still refused.
t.test("a namespace lock whose holder is a zombie is taken over, said so; a live one refused", function()
  local s = t.try_setup()
  local d = s.dir
  local function sh1(cmd) return proc.run({ "sh", "-c", cmd }).stdout:gsub("%s+$", "") end
  local machine, boot = sh1("cat /etc/machine-id 2>/dev/null"), sh1("cat /proc/sys/kernel/random/boot_id")
  local pidns = sh1("readlink /proc/self/ns/pid")
  -- a zombie: sh's background child exits at once, and sh has become `sleep 60` (exec),
  -- which never reaps it
  local parent = proc.spawn { "sh", "-c", 'sleep 0 & echo $! > "$0"; exec sleep 60', d .. "/zpid" }
  t.ok(t.wait_for_file(d .. "/zpid", parent), "the zombie's pid")
  proc.run { "sleep", "0.2" }
  local zpid = t.read(d .. "/zpid"):gsub("%s+$", "")
  t.ok(await_zombie(zpid), "pid " .. zpid .. " is a zombie")
  local _, zstart = stat_of(zpid)
  local function held_by(pid, pstart)
    local argv = { "create", "configmap", "llmdlua-lock", "-n", "llm-d-try" }
    local data = { host = HOST, pid = pid, workspace = "/their/ws", script = "compare.lua --plan",
      started = "2026-01-02T03:04:05Z", token = "theirs", machine = machine, boot = boot, pidns = pidns,
      pstart = pstart }
    for _, k in ipairs { "host", "pid", "workspace", "script", "started", "token", "machine", "boot", "pidns",
      "pstart" } do argv[#argv + 1] = ("--from-literal=%s=%s"):format(k, data[k]) end
    t.eq(kubectl(s, table.unpack(argv)).code, 0)
  end
  local cluster = require "llmd.cluster"
  local k = require("llmd.k8s").new { namespace = "llm-d-try", bins = { kubectl = FAKEBIN .. "/kubectl" },
    env = s.env, backoff = 0.01 }
  local said = {}
  local loud = { write = function(self, ...) for _, x in ipairs { ... } do said[#said + 1] = x end return self end,
    flush = function(self) return self end }
  -- the zombie's lock, with its start recorded (and one of an llmdlua that recorded none)
  for _, pstart in ipairs { zstart, "" } do
    said = {}
    held_by(zpid, pstart)
    local ok, lock = pcall(cluster.lock_namespace, k, "/ws/mine", "compare.lua --plan", loud)
    t.ok(ok, tostring(lock))
    t.eq(table.concat(said), ("Namespace llm-d-try: its lock (ConfigMap llmdlua-lock) was left by llmdlua pid %s on "
      .. "this host (compare.lua --plan, workspace /their/ws), which is no longer running (it has exited: a zombie "
      .. "process its parent has not reaped): taken over\n"):format(zpid))
    t.ok(lock_cm(s, "llm-d-try").data.token ~= "theirs", "taken")
    cluster.unlock_namespace(lock, loud)
    t.eq(lock_cm(s, "llm-d-try"), nil, "let go")
  end
  -- the zombie's parent, alive (sleep 60, not a zombie): refused, theirs kept
  local ppid = tostring(parent:pid())
  local pstate, pstart = stat_of(ppid)
  t.ok(pstate ~= "Z", pstate)
  held_by(ppid, pstart)
  local ok, err = pcall(cluster.lock_namespace, k, "/ws/mine", "compare.lua --plan", loud)
  t.eq(ok, false)
  t.contains(tostring(err), "namespace llm-d-try is in use by another llmdlua run (compare.lua --plan, host " .. HOST
    .. ", pid " .. ppid .. ", workspace /their/ws")
  t.eq(lock_cm(s, "llm-d-try").data.token, "theirs", "theirs kept")
  parent:kill()
end)

-- run_comparison.sh's lock holder lets go of the namespace once the script is gone: also when
-- the script has exited but is not reaped (a zombie), which may last as long as the script's
-- own parent - it held the namespace all that time (fixc53 #6).
t.test("run_comparison.sh's lock holder lets go once the script has exited, reaped or not", function()
  local s = t.try_setup()
  local d = s.dir
  t.mkdir(d .. "/ws")
  -- (the workspace made in the fake's kube context, as compare.lua records it: the holder acts
  -- only in the context its workspace was made in, fixb55)
  t.write(d .. "/ws/cluster.json", '{"context": "kind-bench", "server": "https://api.kind-bench.example.com:6443"}\n')
  -- the script (sh, its pid in spid) starts the holder as run_comparison.sh does and exits
  -- after a second; its parent has become `sleep 60`, which never reaps it
  local script = ('echo $$ > %q; PARENT=$$ COMPARISON_DIR=%q NAMESPACE=llm-d-try %q -e '
    .. '\'require("llmd.rerun_script").hold()\' > %q & sleep 1; exit 0'):format(d .. "/spid", d .. "/ws",
    t.root() .. "/llmdlua", d .. "/said")
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  local outer = proc.spawn({ "sh", "-c", '( sh -c "$0" ) & exec sleep 60', script }, { env = env })
  t.ok(t.wait_for_file(d .. "/spid", outer), "the script started")
  for _ = 1, 200 do
    local ok, said = pcall(t.read, d .. "/said")
    if ok and said:find("\n", 1, true) then break end
    proc.run { "sleep", "0.05" }
  end
  t.eq(t.read(d .. "/said"), "locked\n")
  t.ok(lock_cm(s, "llm-d-try"), "held while the script runs")
  local spid = t.read(d .. "/spid"):gsub("%s+$", "")
  t.ok(await_zombie(spid), "the script has exited, not reaped")
  local gone = false
  for _ = 1, 100 do
    if not lock_cm(s, "llm-d-try") then gone = true break end
    proc.run { "sleep", "0.05" }
  end
  t.ok(gone, "the namespace let go while the script is a zombie")
  outer:kill()
end)

t.test("a namespace lock that another run holds by the end is never deleted by this one's teardown", function()
  local s = t.try_setup()
  local p, out = start_slow(s, { LLMDLUA, "compare.lua", "--yes", "--plan", s.plan })
  local mine = lock_cm(s, "llm-d-try")
  t.ok(mine and mine.data.pid == tostring(p:pid()), "held by the running comparison")
  -- meanwhile released by hand and taken by another run (another token)
  t.eq(kubectl(s, "delete", "configmap", "llmdlua-lock", "-n", "llm-d-try").code, 0)
  t.eq(kubectl(s, "create", "configmap", "llmdlua-lock", "--from-literal=host=other-host", "--from-literal=pid=7",
    "--from-literal=token=theirs", "-n", "llm-d-try").code, 0)
  local n = #call_lines(s)
  local r = p:wait()
  t.eq(r.code, 0, t.read(out) .. t.read(out .. ".err"))
  t.eq(lock_cm(s, "llm-d-try").data.token, "theirs", "theirs kept")
  local calls = call_lines(s)
  local tail = {}
  for i = n + 1, #calls do tail[#tail + 1] = calls[i] end
  t.eq(count(tail, "^kubectl %-n llm%-d%-try get configmap llmdlua%-lock %-o json$"), 1, "read at the end")
  t.eq(count(tail, " delete .*configmaps?[ /]llmdlua%-lock"), 0, table.concat(tail, "\n"))
end)

-- a lock left on this host by a process that is gone (a pid above the kernel's pid_max,
-- 4194304 at most: never a live process), made as a user would, with kubectl
local function dead_holder(s, ns)
  local r = kubectl(s, "create", "configmap", "llmdlua-lock", "--from-literal=host=" .. HOST,
    "--from-literal=pid=4194305", "--from-literal=workspace=/gone/ws", "--from-literal=script=compare.lua --plan",
    "--from-literal=started=2026-01-02T03:04:05Z", "--from-literal=token=old", "-n", ns)
  t.eq(r.code, 0, r.stderr)
end

t.test("the fake kubectl's replace: a resourceVersion sent is a precondition, a new one at every write", function()
  -- (what the take-over relies on, as the API server and kubectl do it: the Conflict text is
  -- kubectl's, written from the task's quote of the real tool, exit 1)
  local s = t.try_setup()
  dead_holder(s, "llm-d-try")
  local v1 = lock_cm(s, "llm-d-try").metadata.resourceVersion
  t.ok(v1 and v1:match("^%d+$"), tostring(v1))
  local function replace(version, token)
    local doc = json.encode { apiVersion = "v1", kind = "ConfigMap",
      metadata = { name = "llmdlua-lock", resourceVersion = version }, data = { token = token } }
    return proc.run({ FAKEBIN .. "/kubectl", "-n", "llm-d-try", "replace", "-f", "-" }, { env = env_of(s), stdin = doc })
  end
  local r = replace(v1, "first")
  t.eq({ r.code, r.stdout, r.stderr }, { 0, "configmap/llmdlua-lock replaced\n", "" })
  local v2 = lock_cm(s, "llm-d-try").metadata.resourceVersion
  t.ok(tonumber(v2) > tonumber(v1), v1 .. " then " .. tostring(v2))
  t.eq(lock_cm(s, "llm-d-try").data, { token = "first" })
  -- the version read before that write: refused, nothing changed
  r = replace(v1, "second")
  t.eq({ r.code, r.stdout, r.stderr }, { 1, "", 'Error from server (Conflict): error when replacing "STDIN": Operation '
    .. 'cannot be fulfilled on configmaps "llmdlua-lock": the object has been modified; please apply your changes to '
    .. "the latest version and try again\n" })
  t.eq(lock_cm(s, "llm-d-try").data, { token = "first" })
  -- deleted and made again: a new version, never the old one
  t.eq(kubectl(s, "delete", "configmap", "llmdlua-lock", "-n", "llm-d-try").code, 0)
  dead_holder(s, "llm-d-try")
  local v3 = lock_cm(s, "llm-d-try").metadata.resourceVersion
  t.ok(tonumber(v3) > tonumber(v2), v2 .. " then " .. tostring(v3))
  t.eq(replace(v2, "third").code, 1)
  r = replace(nil, "unconditional") -- (no version sent: no precondition)
  t.eq(r.code, 0, r.stderr)
end)

t.test("two take-overs of one dead holder's namespace lock at the same instant: exactly one wins", function()
  local s = t.try_setup()
  dead_holder(s, "llm-d-try")
  local cluster = require "llmd.cluster"
  local k8s = require "llmd.k8s"
  local function client()
    return k8s.new { namespace = "llm-d-try", bins = { kubectl = FAKEBIN .. "/kubectl" }, env = s.env, backoff = 0.01 }
  end
  local said = { first = {}, second = {} }
  local function loud(list) return { write = function(self, x) list[#list + 1] = x; return self end } end
  local first, second = client(), client()
  -- the second's whole take-over runs between the first's read of the dead holder's lock and
  -- the first's write of its own
  local got
  local read = first.json
  first.json = function(self, a, o)
    local v, r = read(self, a, o)
    if a[1] == "get" and a[3] == "llmdlua-lock" and not got then
      got = table.pack(pcall(cluster.lock_namespace, second, "/ws/second", "experiment.lua", loud(said.second)))
    end
    return v, r
  end
  local ok1, lock1 = pcall(cluster.lock_namespace, first, "/ws/first", "compare.lua --plan", loud(said.first))
  t.ok(got, "the second ran in between")
  local ok2, lock2 = got[1], got[2]
  -- the second (which wrote first) holds it; the first is refused, naming it
  t.ok(ok2, tostring(lock2))
  t.ok(not ok1, "the first must not hold it too")
  t.ok(tostring(lock1):find("namespace llm-d-try is in use by another llmdlua run (experiment.lua, host " .. HOST
    .. ", pid " .. t.read("/proc/self/stat"):match("^(%d+)") .. ", workspace /ws/second, started ", 1, true), tostring(lock1))
  t.eq(lock_cm(s, "llm-d-try").data.token, ok2 and lock2.token or "?", "the second's lock is the one there")
  t.eq(#said.first, 0, table.concat(said.first))
  t.eq(said.second, { "Namespace llm-d-try: its lock (ConfigMap llmdlua-lock) was left by llmdlua pid 4194305 on "
    .. "this host (compare.lua --plan, workspace /gone/ws), which is no longer running: taken over\n" })
  -- never deleted by either: the cluster saw no delete of it
  t.eq(count(call_lines(s), "delete configmap"), 0, table.concat(call_lines(s), "\n"))
  -- one replace each: the first's Conflict (the API server's answer to the version it sent)
  -- read at once, not sent again as if the server had failed
  t.eq(count(call_lines(s), "replace %-f %-"), 2, table.concat(call_lines(s), "\n"))
end)

t.test("a write sent with a precondition: its Conflict is the answer at once; a transient failure is tried again",
  function()
  -- (a kubectl that logs each call and answers the n-th with D/errN on stderr, exit 1, when
  -- there is one, else success; the texts are kubectl's for the API server's Conflict and
  -- for etcd's timeout, as test_cluster's transient test writes it)
  local k8s = require "llmd.k8s"
  local d = t.tmpdir()
  local stub = d .. "/kubectl"
  t.write(stub, ("#!/bin/sh\nn=$(cat %s/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > %s/n\n"
    .. "printf '%%s\\n' \"$*\" >> %s/ran\n"
    .. "if [ -f %s/err$n ]; then cat %s/err$n >&2; exit 1; fi\necho 'configmap/llmdlua-lock replaced'\n")
    :format(d, d, d, d, d))
  proc.run { "chmod", "+x", stub }
  local conflict = 'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on '
    .. 'configmaps "llmdlua-lock": the object has been modified; please apply your changes to the latest version and '
    .. "try again\n"
  local function run(errs, opts)
    for _, f in ipairs { "n", "ran", "err1", "err2", "err3" } do os.remove(d .. "/" .. f) end
    for i, e in ipairs(errs) do t.write(d .. "/err" .. i, e) end
    local k = k8s.new { namespace = "llm-d-try", bins = { kubectl = stub }, backoff = 0 }
    opts.check = false
    opts.stdin = "{}"
    local r = k:kubectl({ "replace", "-f", "-" }, opts)
    local ran = 0
    for _ in t.read(d .. "/ran"):gmatch("[^\n]+") do ran = ran + 1 end
    return r.code, ran, r.stderr
  end
  -- the caller reads the Conflict: one call, the Conflict returned
  t.eq({ run({ conflict }, { conflict = true }) }, { 1, 1, conflict })
  -- a transient failure before it is still tried again; the Conflict then ends it
  t.eq({ run({ "Error from server: etcdserver: request timed out\n", conflict }, { conflict = true }) },
    { 1, 2, conflict })
  -- a write sent without a precondition: its Conflict is a race another try wins (kubectl
  -- writes over the latest version then), so it is still tried again
  t.eq({ run({ conflict }, {}) }, { 0, 2, "" })
end)

t.test("the fake kubectl's delete --raw of a ConfigMap: its preconditions checked at the write, uid first", function()
  -- (what letting go of the lock relies on, as the API server and kubectl do it: a DELETE's
  -- body is DeleteOptions; a precondition not met is the storage layer's Conflict, which
  -- kubectl prints as "Error from server (Conflict): " and the server's message - written
  -- from the apiserver's Preconditions.Check and its Conflict wrapping, as kubernetes issue
  -- 124347 quotes it -, exit 1; none there is the NotFound of a delete by name. Success
  -- prints the server's Status as it came.)
  local s = t.try_setup()
  dead_holder(s, "llm-d-try")
  local md = lock_cm(s, "llm-d-try").metadata
  t.ok(md.uid and md.uid:match("^%x+%-%x+%-4%x+%-[89ab]%x+%-%x+$"), "a v4 uid: " .. tostring(md.uid))
  local function del(pre)
    return proc.run({ FAKEBIN .. "/kubectl", "-n", "llm-d-try", "delete", "--raw",
      "/api/v1/namespaces/llm-d-try/configmaps/llmdlua-lock", "-f", "-" }, { env = env_of(s),
      stdin = json.encode { apiVersion = "v1", kind = "DeleteOptions", preconditions = pre } })
  end
  local conflict = 'Error from server (Conflict): Operation cannot be fulfilled on configmaps "llmdlua-lock": '
    .. "StorageError: invalid object, Code: 4, Key: /registry/configmaps/llm-d-try/llmdlua-lock, ResourceVersion: 0, "
    .. "AdditionalErrorMsg: Precondition failed: "
  local r = del { uid = "00000000-0000-4000-8000-000000000000", resourceVersion = "1" }
  t.eq({ r.code, r.stdout, r.stderr }, { 1, "", conflict .. "UID in precondition: 00000000-0000-4000-8000-000000000000, "
    .. "UID in object meta: " .. md.uid .. "\n" })
  r = del { uid = md.uid, resourceVersion = "1" }
  t.eq({ r.code, r.stdout, r.stderr }, { 1, "", conflict .. "ResourceVersion in precondition: 1, ResourceVersion in "
    .. "object meta: " .. md.resourceVersion .. "\n" })
  t.ok(lock_cm(s, "llm-d-try"), "still there")
  r = del { uid = md.uid, resourceVersion = md.resourceVersion }
  t.eq({ r.code, r.stdout, r.stderr }, { 0, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",'
    .. '"details":{"name":"llmdlua-lock","kind":"configmaps","uid":"' .. md.uid .. '"}}\n', "" })
  t.eq(lock_cm(s, "llm-d-try"), nil, "deleted")
  r = del { uid = md.uid }
  t.eq({ r.code, r.stdout, r.stderr }, { 1, "", 'Error from server (NotFound): configmaps "llmdlua-lock" not found\n' })
  -- made again under its name: another uid; a replace keeps the uid and gives a new version
  dead_holder(s, "llm-d-try")
  local md2 = lock_cm(s, "llm-d-try").metadata
  t.ok(md2.uid ~= md.uid, "a new object, a new uid")
  local rr = proc.run({ FAKEBIN .. "/kubectl", "-n", "llm-d-try", "replace", "-f", "-" }, { env = env_of(s),
    stdin = json.encode { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "llmdlua-lock",
      resourceVersion = md2.resourceVersion }, data = { token = "new" } } })
  t.eq(rr.code, 0, rr.stderr)
  local md3 = lock_cm(s, "llm-d-try").metadata
  t.eq(md3.uid, md2.uid, "replaced: the same object")
  t.ok(md3.resourceVersion ~= md2.resourceVersion, "a new version")
end)

t.test("letting go of a namespace lock another run made again or took over since its read: the other's kept", function()
  -- two racing holders: between this run's read of its own lock (its token there) and its
  -- delete, the lock is (1) released by hand and made again by another run - another uid -,
  -- or (2) replaced by another's take-over - the same uid, another resourceVersion. The
  -- delete must not remove the other's lock (kubectl delete TYPE NAME, checking nothing,
  -- did); with no race (3) it is deleted. What stays is read from the fake's state.
  local cluster = require "llmd.cluster"
  local k8s = require "llmd.k8s"
  local said = {}
  local loud = { write = function(self, x) said[#said + 1] = x; return self end }
  for _, case in ipairs { "made again", "taken over", "no race" } do
    local s = t.try_setup()
    local function client()
      return k8s.new { namespace = "llm-d-try", bins = { kubectl = FAKEBIN .. "/kubectl" }, env = s.env, backoff = 0.01 }
    end
    local first, second = client(), client()
    local lock1 = cluster.lock_namespace(first, "/ws/first", "compare.lua --plan", loud)
    local mine = lock_cm(s, "llm-d-try")
    t.eq(mine.data.token, lock1.token, case)
    local theirs
    local read = first.json
    first.json = function(self, a, o)
      local v, r = read(self, a, o)
      if a[1] == "get" and a[3] == "llmdlua-lock" and not theirs and case ~= "no race" then
        if case == "made again" then
          t.eq(kubectl(s, "delete", "configmap", "llmdlua-lock", "-n", "llm-d-try").code, 0)
          theirs = cluster.lock_namespace(second, "/ws/second", "experiment.lua", loud)
        else
          -- (as a take-over writes: the version read, another holder's data)
          local rr = proc.run({ FAKEBIN .. "/kubectl", "-n", "llm-d-try", "replace", "-f", "-" }, { env = env_of(s),
            stdin = json.encode { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "llmdlua-lock",
              resourceVersion = mine.metadata.resourceVersion }, data = { host = "other-host", pid = "7",
              token = "theirs" } } })
          t.eq(rr.code, 0, rr.stderr)
          theirs = { token = "theirs" }
        end
      end
      return v, r
    end
    local n = #call_lines(s)
    cluster.unlock_namespace(lock1, loud)
    local now = lock_cm(s, "llm-d-try")
    local tail = {}
    local calls = call_lines(s)
    for i = n + 1, #calls do tail[#tail + 1] = calls[i] end
    if case == "no race" then
      t.eq(now, nil, "ours deleted")
      t.eq(count(tail, "^kubectl %-n llm%-d%-try delete %-%-raw /api/v1/namespaces/llm%-d%-try/configmaps/llmdlua%-lock "
        .. "%-f %-$"), 1, table.concat(tail, "\n"))
    else
      t.ok(now and now.data.token == theirs.token, case .. ": the other's lock kept: " .. json.encode(now))
      -- (tried once, refused, read again and left: another's now)
      t.eq(count(tail, "delete %-%-raw"), 1, table.concat(tail, "\n"))
      t.eq(count(tail, "^kubectl %-n llm%-d%-try get configmap llmdlua%-lock %-o json$"), 2, table.concat(tail, "\n"))
    end
    t.eq(said, {}, case)
  end
end)

-- Ctrl-C (SIGINT) during a benchmark, in compare.lua --plan and in experiment.lua: the
-- namespace's lock is let go all the same (its release is clean-up: newuser47 F2 found every
-- interrupt leaving it, with "could not release its lock ...: .../llmd/steps.lua:111:
-- interrupted", as the interrupt stopped the release's kubectl calls at once); nothing said
-- names a Lua file; experiment.lua's line names the step, setup and run treatment it stopped,
-- as compare.lua's does ("interrupted during step 60 (benchmark) of run A"). Texts written
-- from the task: the experiment's first run treatment is rate1, its one setup treatment
-- default (no setup phase), in namespace exp-a.
t.test("Ctrl-C during a benchmark: the namespace's lock is released, no Lua position said", function()
  local function interrupt(s, argv)
    local p, out = start_slow(s, argv, "30")
    proc.run { "kill", "-INT", tostring(p:pid()) }
    local r = p:wait(60)
    t.ok(r, "ended after SIGINT")
    return r, t.read(out) .. t.read(out .. ".err")
  end
  local s = t.try_setup()
  local r, said = interrupt(s, { LLMDLUA, "compare.lua", "--yes", "--quiet", "--plan", s.plan })
  t.eq(r.code, 130, said)
  t.eq(lock_cm(s, "llm-d-try"), nil, "compare.lua's lock let go: " .. said)
  t.ok(said:find("compare.lua: interrupted during step 60 (benchmark) of run A.", 1, true), said)
  t.ok(not said:find("could not release", 1, true), said)
  t.ok(not said:find("%.lua:%d"), said)

  s = experiment_setup()
  r, said = interrupt(s, { LLMDLUA, "experiment.lua", s.exp, "--plan", s.plan, "--quiet" })
  t.eq(r.code, 130, said)
  t.eq(lock_cm(s, "exp-a"), nil, "experiment.lua's lock let go: " .. said)
  local w = experiment_folders(s.dir)[1]
  t.ok(said:find("experiment.lua: interrupted during step 40 (run) of setup treatment default, run treatment rate1; "
    .. "state saved in " .. w .. ".\n", 1, true), said)
  t.ok(not said:find("could not release", 1, true), said)
  t.ok(not said:find("%.lua:%d"), said)
  -- the interrupt went no further: rate5 was not started, no later step ran
  t.eq(count(call_lines(s), "^run_only%.sh "), 1, said)
  t.ok(not said:find("rate5", 1, true), said)
end)
