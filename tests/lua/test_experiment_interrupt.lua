-- An experiment interrupted with two stacks running at once (parallel: 2), then resumed
-- (newuser49 F2, F3), on the fake cluster (tests/fakecluster: FAKE_SLOW_BENCH holds the first
-- benchmark in each namespace). The interrupt names every step and treatment it cut and
-- records each in steps.json, as one stack alone is said ("interrupted during step 40 (run) of
-- setup treatment S, run treatment R"); after --resume the summary's durations cover both
-- sessions: each setup treatment's the seconds of its steps in steps.json (both sessions'),
-- the total at least the two sessions' wall times as this test timed them (os.time, whole
-- seconds: 2 s of slack each), never the resume's alone and never 0.
local t = require "testlib"
local json = require "llmd.json"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"
local lfs = require "lfs"

local LLMDLUA = t.root() .. "/llmdlua"

local EXPERIMENT = [[
experiment:
  name: cut
  harness: inference-perf
setup:
  treatments:
    - name: tp1
      decode.replicas: 1
    - name: tp2
      decode.replicas: 2
treatments:
  - name: rate1
    load.stages.0.rate: 1
  - name: rate5
    load.stages.0.rate: 5
]]

local function setup()
  local d = t.tmpdir()
  t.sim_guide(d)
  t.write(d .. "/experiment.yaml", EXPERIMENT)
  local plan = {
    namespaces = { "exp-a", "exp-b" }, parallel = 2, parent = d,
    timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio",
      model = "Qwen/Qwen3-0.6B", gateway = "istio", values_override = { decode = { replicas = 1 } } },
    benchmark = { template = d .. "/template.yaml", harness = "inference-perf", attempts = 1 },
  }
  t.write(d .. "/plan.yaml", yaml.dump(plan))
  return { dir = d, plan = d .. "/plan.yaml", cluster = d .. "/cluster", exp = d .. "/experiment.yaml",
    env = t.fake_env(d .. "/cluster", { FAKE_FAIL_NAMESPACE = false }) }
end

local function workspace(s)
  for n in lfs.dir(s.dir) do
    if n:match("^llm%-d%-experiment%-cut%-") then return s.dir .. "/" .. n end
  end
end

-- both namespaces' first benchmark started (the fake counts its calls in its state once saved,
-- calls@NS; bench@NS counts the benchmarks that ran to their end, which pick the recording)
local function both_benchmarking(s, p)
  local t0 = os.time()
  while os.time() - t0 < 300 do
    if p:wait(0.1) then return false end
    local ok, st = pcall(json.read, s.cluster .. "/state.json")
    local c = ok and type(st) == "table" and st.counters or {}
    if c["calls@exp-a"] and c["calls@exp-b"] and lfs.attributes(s.cluster .. "/bench-sleeping") then
      proc.run { "sleep", "1" } -- (the second one's save done, its sleep begun)
      return true
    end
  end
  return false
end

t.test("parallel: an interrupt names and records each step it cut; the resumed summary's durations span both", function()
  local s = setup()
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.FAKE_SLOW_BENCH = "60"
  local out = s.dir .. "/out.txt"
  local t0 = os.time()
  local p = proc.spawn({ LLMDLUA, "experiment.lua", s.exp, "--plan", s.plan },
    { env = env, stdout = { file = out }, stderr = { file = out .. ".err" } })
  t.ok(both_benchmarking(s, p), "both benchmarks started: " .. t.read(out) .. t.read(out .. ".err"))
  -- (the cut steps run 3 s more: the first session then outlasts the whole-second rounding of both
  -- sessions' clocks, so "the total is more than the resume alone" below holds however slow the
  -- machine; a busy CI gave a first session of 2 s, total 5.0 against a resume of 3 s)
  proc.run { "sleep", "3" }
  local r = p:kill(60)
  local first = os.time() - t0
  local said = t.read(out) .. t.read(out .. ".err")
  t.eq(r.code, 130, said)
  local w = workspace(s)
  t.contains(said, "experiment.lua: interrupted during step 40 (run) of setup treatment tp1, run treatment rate1, and "
    .. "during step 40 (run) of setup treatment tp2, run treatment rate1; state saved in " .. w .. ".\n")
  t.contains(said, "[40] run (tp1): FAILED - interrupted\n")
  t.contains(said, "[40] run (tp2): FAILED - interrupted\n")
  -- (fixd52, newuser52) how to tear the stacks down without going on, as compare.lua says it
  t.contains(said, "\nContinue with: llmdlua experiment.lua " .. s.exp .. " --resume " .. w
    .. "\nTear down without going on: llmdlua experiment.lua " .. s.exp .. " --resume " .. w .. " --step 60")
  local cut = {}
  for _, o in ipairs(json.read(w .. "/steps.json")) do
    if o.status == "failed" then cut[#cut + 1] = ("%s %d %s %s"):format(o.stack, o.number, o.name, o.message) end
  end
  table.sort(cut)
  t.eq(cut, { "tp1 40 run interrupted", "tp2 40 run interrupted" })

  t0 = os.time()
  r = proc.run({ LLMDLUA, "experiment.lua", s.exp, "--resume", w }, { env = s.env, timeout = 300 })
  local second = os.time() - t0
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local sum = yaml.load_file(w .. "/experiment-summary.yaml")
  -- each treatment's steps in steps.json, both sessions' (the cut step too)
  local secs = {}
  for _, o in ipairs(json.read(w .. "/steps.json")) do
    if o.stack then secs[o.stack] = (secs[o.stack] or 0) + o.seconds end
  end
  for _, x in ipairs(sum.treatments) do
    t.eq(x.status, "success")
    -- (the summary rounds to 0.1 s, as upstream writes it; steps.json's seconds are to the ms)
    t.eq(x.duration_seconds, tonumber(("%.1f"):format(secs[x.setup_treatment])) + 0.0, x.setup_treatment)
    -- (at least what the first session spent before the cut: deploy and smoke test take whole seconds on the fake)
    t.ok(x.duration_seconds > 0, x.setup_treatment .. ": " .. tostring(x.duration_seconds))
  end
  t.ok(sum.total_duration_seconds >= first + second - 4 and sum.total_duration_seconds <= first + second + 2,
    ("total %s, sessions %d + %d s"):format(tostring(sum.total_duration_seconds), first, second))
  t.ok(sum.total_duration_seconds > second + 2, ("total %s, the resume alone %d s"):format(
    tostring(sum.total_duration_seconds), second))
  local st = json.read(w .. "/experiment-state.json")
  for _, x in ipairs(st.results) do t.near(x.duration, secs[x.setup_treatment], 1e-9, x.setup_treatment) end
end)

-- An interrupt while no step is under way (here in the resume's first kubectl call, which
-- asks the kube context, before the namespaces are locked) names no step: steps.json's last
-- entries are the steps an earlier session's interrupt cut, which this session's message had
-- named as its own ("interrupted during step 40 (run) of setup treatment tp1, and ..."). The
-- workspace is one an interrupted first session leaves, by hand (t.experiment_workspace).
t.test("an interrupt with no step under way names none, not the steps an earlier session's interrupt cut", function()
  local s = setup()
  local w = s.dir .. "/llm-d-experiment-cut-20261206-010203"
  local function cut(stack) -- (an earlier session's step 40 of stack, as llmd.steps records it)
    return { phase = "experiment", number = 40, name = "run", stack = stack, status = "failed",
      message = "interrupted", seconds = 3, at = "2026-12-06T01:03:00Z" }
  end
  local function done(number, name, stack)
    return { phase = "experiment", number = number, name = name, stack = stack, status = "ok", message = "done",
      seconds = 1, at = "2026-12-06T01:02:10Z" }
  end
  t.experiment_workspace(w, { experiment = "cut", setups = { { name = "tp1", status = "pending" },
    { name = "tp2", status = "pending" } }, steps = { done(0, "preflight"), done(10, "deploy", "tp1"),
    done(10, "deploy", "tp2"), cut("tp1"), cut("tp2") } })
  t.write(w .. "/experiment.yaml", EXPERIMENT)
  t.write(w .. "/plan.yaml", t.read(s.plan))
  -- kubectl that holds its "config current-context" call, saying so (its own file), and is
  -- the fake cluster's kubectl for any other call
  local bin = s.dir .. "/hold-bin"
  t.mkdir(bin)
  t.write(bin .. "/kubectl", ('#!/bin/sh\ncase " $* " in *" config current-context "*) : > %s/held; exec sleep 60;; esac\n'
    .. 'exec %s/tests/fakecluster/bin/kubectl "$@"\n'):format(s.dir, t.root()))
  assert(proc.run({ "chmod", "+x", bin .. "/kubectl" }).ok)
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.PATH = bin .. ":" .. s.env.PATH
  local out = s.dir .. "/out.txt"
  local p = proc.spawn({ LLMDLUA, "experiment.lua", s.exp, "--resume", w },
    { env = env, stdout = { file = out }, stderr = { file = out .. ".err" } })
  local t0 = os.time()
  while not lfs.attributes(s.dir .. "/held") and os.time() - t0 < 60 do
    if p:wait(0.1) then break end
  end
  t.ok(lfs.attributes(s.dir .. "/held"), "the kube context call was held: " .. t.read(out) .. t.read(out .. ".err"))
  local r = p:kill(60)
  local said = t.read(out) .. t.read(out .. ".err")
  t.eq(r.code, 130, said)
  t.contains(said, "experiment.lua: interrupted; state saved in " .. w .. ".\n")
  t.lacks(said, "during step")
  -- (the record as it was: no step of this session ran)
  local cuts = 0
  for _, o in ipairs(json.read(w .. "/steps.json")) do if o.status == "failed" then cuts = cuts + 1 end end
  t.eq(cuts, 2)
end)
