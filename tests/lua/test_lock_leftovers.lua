-- What runs leave behind around their locks (s53's open items, harden54): the lock files of
-- runs killed by kill -9 in /tmp/llmdlua-locks-UID (only a holder's own end removed its file,
-- so one was left for each output a killed run ever held), and what a refused
-- `autobench.lua run` made before it was refused: the empty autobench-artifacts/NAME/ of its
-- --out, and an empty --out file made for its lock (its in_use exit skipped that clean-up).
-- Expected states written from the task; each test fails on main.
local t = require "testlib"
local abrun = require "llmd.autobench_run"
local proc = require "llmd.proc"
local lfs = require "lfs"
local yaml = require "llmd.yaml"

local mock = require "abmock"
local LLMDLUA, vllm_shim, mock_config = mock.LLMDLUA, mock.vllm_shim, mock.config

local UID = lfs.attributes("/proc/self", "uid")
local LOCKS = ("/tmp/llmdlua-locks-%d"):format(UID)

-- the two lock files of output file f (its real path's, its inode's), as lock_output names them
local function lock_files(f)
  local a = lfs.attributes(f)
  return { ("%s/autobench-path-%s.lock"):format(LOCKS, abrun.fnv1a64(proc.realpath(f))),
    ("%s/autobench-file-%d-%d.lock"):format(LOCKS, a.dev, a.ino) }
end

-- a process of llmdlua that takes f's locks (autobench's lock_output), then either kills
-- itself with SIGKILL (no exit handler runs) or sleeps, holding them
local function holder(d, f, how)
  local script = d .. "/hold.lua"
  t.write(script, [[
local ok, err = require("llmd.autobench_run").lock_output(arg[1], {})
assert(ok, err)
io.open(arg[1] .. ".held", "w"):close()
if arg[2] == "kill" then
  require("llmd.proc").run { "kill", "-KILL", tostring(require("llmd.workspace").PID) }
end
require("llmd.proc").run { "sleep", "30" }
]])
  return proc.spawn({ LLMDLUA, script, f, how })
end

t.test("lock files of runs killed by kill -9 are removed by the next run's lock; a held one stays", function()
  local d = proc.realpath(t.tmpdir())
  t.write(d .. "/killed.jsonl", "")
  t.write(d .. "/alive.jsonl", "")
  local p = holder(d, d .. "/killed.jsonl", "kill")
  local st = p:wait(20)
  t.eq(st and st.signal, 9, "the holder killed itself")
  local stale = lock_files(d .. "/killed.jsonl")
  for _, f in ipairs(stale) do t.eq(lfs.symlinkattributes(f, "mode"), "file", "left by kill -9: " .. f) end
  local q = holder(d, d .. "/alive.jsonl", "sleep")
  t.ok(t.wait_for_file(d .. "/alive.jsonl.held", q), "the live holder holds its locks")
  local held = lock_files(d .. "/alive.jsonl")
  -- another output's lock in this process: the folder swept
  t.write(d .. "/mine.jsonl", "")
  t.eq({ abrun.lock_output(d .. "/mine.jsonl", {}) }, { true })
  for _, f in ipairs(stale) do t.eq(lfs.symlinkattributes(f, "mode"), nil, "removed: " .. f) end
  for _, f in ipairs(held) do t.eq(lfs.symlinkattributes(f, "mode"), "file", "held, kept: " .. f) end
  -- and the live holder's lock still holds: its output is refused to another taker
  local ok, err = abrun.lock_output(d .. "/alive.jsonl", {})
  t.eq(ok, nil)
  t.contains(tostring(err), ": in use by another llmdlua process (autobench.lua run, pid " .. q:pid())
  q:kill(5)
end)

-- `run CFG --out OUT` in d in the background, waiting until its server started
local function start_run(d, env, cfg_name, out)
  local p = proc.spawn({ LLMDLUA, "autobench.lua", "run", cfg_name, "--out", out },
    { cwd = d, env = env, stdout = { file = d .. "/bg.txt" }, stderr = { file = d .. "/bg-err.txt" } })
  for _ = 1, 400 do
    if t.read(d .. "/bg.txt"):find("starting the server on port", 1, true) then return p end
    t.eq(p:wait(0.05), nil, "still running: " .. t.read(d .. "/bg-err.txt"))
  end
  error("the background run did not start its server: " .. t.read(d .. "/bg.txt"))
end

t.test("a run refused as another run's output leaves no artifacts folder and no empty --out it made", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = mock_config()
  cfg.frameworks.vllm.base_server_flags.max_num_seqs = 2 -- never answers: the run waits
  cfg.run.ready_timeout = 60
  t.write(d .. "/slow.yaml", yaml.dump(cfg))
  t.ok(proc.run({ "ln", "-s", "run3.jsonl", d .. "/latest.jsonl" }).ok)
  t.ok(proc.run({ "ln", "-s", "run3.jsonl", d .. "/gone.jsonl" }).ok)
  local p = start_run(d, env, "slow.yaml", "run3.jsonl")
  -- through a link to the file the first run writes: refused, nothing of it left
  local r = proc.run({ LLMDLUA, "autobench.lua", "run", "slow.yaml", "--out", "latest.jsonl" }, { cwd = d, env = env })
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.contains(r.stderr, "autobench.lua run: latest.jsonl: in use by another llmdlua process")
  t.eq(lfs.attributes(d .. "/autobench-artifacts/latest"), nil, "no empty artifacts folder of the refused run")
  t.eq(lfs.attributes(d .. "/autobench-artifacts/run3", "mode"), "directory", "the first run's stays")
  -- the file removed while the first run waits: the refused run made it anew (empty) for its
  -- lock, and removes it again
  os.remove(d .. "/run3.jsonl")
  r = proc.run({ LLMDLUA, "autobench.lua", "run", "slow.yaml", "--out", "gone.jsonl" }, { cwd = d, env = env })
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.contains(r.stderr, "autobench.lua run: gone.jsonl: in use by another llmdlua process")
  t.eq(lfs.symlinkattributes(d .. "/run3.jsonl"), nil, "the empty --out the refused run made is gone")
  t.eq(lfs.attributes(d .. "/autobench-artifacts/gone"), nil, "no empty artifacts folder")
  proc.run { "kill", "-INT", tostring(p:pid()) }
  local st = p:wait(20)
  t.eq(st and st.code, 130, t.read(d .. "/bg-err.txt"))
end)

t.test("a refused run's artifacts parent it made goes too; one that holds anything stays", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  t.write(d .. "/c.yaml", yaml.dump(mock_config()))
  -- a config error after the lock (a stale row without --force would do; here a folder in
  -- the way of the first candidate's artifacts): the run fails, and the folders it made for
  -- nothing go again, the user's own output folder's content untouched
  lfs.mkdir(d .. "/out")
  t.write(d .. "/out/keep.txt", "mine\n")
  t.write(d .. "/out/r.jsonl", "not json\n")
  local r = proc.run({ LLMDLUA, "autobench.lua", "run", "c.yaml", "--out", "out/r.jsonl" }, { cwd = d, env = env })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(lfs.attributes(d .. "/out/autobench-artifacts"), nil, "the folders it made for nothing are gone")
  t.eq(t.read(d .. "/out/keep.txt"), "mine\n")
  t.eq(t.read(d .. "/out/r.jsonl"), "not json\n", "the output as it was")
end)
