-- Clean-up after an interrupt (newuser47 F2): Ctrl-C (SIGINT) during a benchmark, in
-- compare.lua --plan and in experiment.lua, on the fake cluster (tests/fakecluster; its
-- FAKE_SLOW_BENCH holds the benchmark while the signal is sent). The namespace lock
-- (ConfigMap llmdlua-lock, test_run_locks.lua) is let go all the same.
local t = require "testlib"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"
local lfs = require "lfs"

local LLMDLUA = t.root() .. "/llmdlua"

local function env_of(s, over)
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  for k, v in pairs(over or {}) do env[k] = v end
  return env
end

local function lock_cm(s, ns)
  local st = require("llmd.json").decode(t.read(s.cluster .. "/state.json"))
  return ((st.ns[ns] or {}).configmaps or {})["llmdlua-lock"]
end

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
  t.ok(t.wait_for_file(s.cluster .. "/bench-sleeping", p), "the benchmark started")
  return p, out
end

-- an experiment with no setup phase (one setup treatment, default), two run treatments, one namespace
local function experiment_setup()
  local d = proc.realpath(t.tmpdir())
  t.sim_guide(d)
  t.write(d .. "/experiment.yaml", "experiment:\n  name: lock-sweep\n  harness: inference-perf\ntreatments:\n"
    .. "  - name: rate1\n    load.stages.0.rate: 1\n  - name: rate5\n    load.stages.0.rate: 5\n")
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
