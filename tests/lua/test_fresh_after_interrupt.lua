-- A fresh compare.lua --plan after an interrupted one (fixd52, newuser52): the interrupted
-- run's stack is still in the namespace, so step 20 refuses the new run's deploy - which it
-- said as "someone else's stack ... remove it from the namespace first, if it is yours",
-- though it is this tool's own, recorded by the interrupted workspace beside the new one. The
-- refusal names that workspace and its teardown (--resume W --step 90), and the new
-- workspace, which holds nothing deployed or measured, is said to be kept and how to remove
-- it. On the fake cluster; expected texts by hand.
local t = require "testlib"
local proc = require "llmd.proc"
local k8s = require "llmd.k8s"

t.test("a fresh --plan after an interrupted one names the interrupted workspace and its --step 90", function()
  local s = t.try_setup { parent = "." }
  local ended, said, w1 = t.interrupt_in_benchmark(s)
  t.eq(ended.code, 130, said)
  -- (the next workspace's name holds the time to the second: one second on)
  proc.run { "sleep", "1.1" }
  local r = t.fake_compare(s, nil, nil, s.dir)
  t.eq(r.code, 1, r.stdout .. "\nSTDERR:" .. r.stderr)
  local w2
  for _, w in ipairs(t.workspaces(s.dir)) do if w ~= w1 then w2 = w end end
  t.ok(w2, "the new workspace")
  local down = k8s.cmdline { "llmdlua", "compare.lua", "--resume", w1, "--step", "90" }
  local up = "helmfile apply would upgrade it wherever this helmfile's release differs from it"
  t.contains(r.stdout, "[20] deploy (a): FAILED - run a: releases infra-try (llm-d-infra-1.3.0, deployed, revision 1; "
    .. up .. "), gaie-try (inferencepool-1.0.1, deployed, revision 1; " .. up .. "), ms-try (llm-d-modelservice-0.3.0, "
    .. "deployed, revision 1; " .. up .. ") already "
    .. "exist in namespace llm-d-try: they are the stack run A of the comparison " .. w1 .. " deployed and has not "
    .. "torn down (recorded in its run-a/deployed.json: it stopped before its teardown); deploying may change it; "
    .. "tear it down with " .. down .. " (or go on with that comparison: llmdlua compare.lua --resume " .. w1
    .. "); nothing of this run was deployed\n")
  t.lacks(r.stdout, "someone else's")
  t.contains(r.stdout, "  (" .. w2 .. " holds nothing deployed or measured yet: it is kept for that --resume; if you "
    .. "do not go on with it, remove it: rm -r " .. w2 .. ")\n")
  -- the teardown it names works: then the fresh run goes through
  r = t.fake_compare(s, { "--resume", w1, "--step", "90" }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  r = t.fake_compare(s, { "--resume", w2 }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
end)

-- harden55 #2: the search for the interrupted workspace looked at comparison workspaces only
-- (steps.json with run-a/run-b): an experiment interrupted with its setup treatment's stack up
-- (its setup-treatment-S/run-stack/deployed.json) left the fresh run's refusal saying
-- "someone else's stack". Now it names the experiment, the setup treatment and its teardown
-- step (60). Expected texts by hand.
t.test("a fresh --plan after an interrupted experiment names the experiment's workspace and its --step 60", function()
  local yaml = require "llmd.yaml"
  local s = t.try_setup { parent = "." }
  t.write(s.dir .. "/experiment.yaml", "experiment:\n  name: cut\n  harness: inference-perf\nsetup:\n  treatments:\n"
    .. "    - name: one\n      decode.replicas: 1\ntreatments:\n  - name: rate1\n    load.stages.0.rate: 1\n"
    .. "  - name: rate2\n    load.stages.0.rate: 2\n")
  t.write(s.dir .. "/exp-plan.yaml", yaml.dump {
    namespaces = { "llm-d-try" }, parent = s.dir, timeouts = { poll = 0.05, backoff = 0.01 },
    deploy = { method = "helmfile", guide_dir = s.dir .. "/guide", environment = "istio", model = "Qwen/Qwen3-0.6B" },
    benchmark = { template = s.dir .. "/template.yaml", harness = "inference-perf" } })
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.FAKE_SLOW_BENCH = "30"
  local out = s.dir .. "/out.txt"
  local p = proc.spawn({ t.root() .. "/llmdlua", "experiment.lua", s.dir .. "/experiment.yaml", "--plan",
    s.dir .. "/exp-plan.yaml" }, { env = env, cwd = s.dir, stdout = { file = out }, stderr = { file = out } })
  t.ok(t.wait_for_file(s.cluster .. "/bench-sleeping", p), "the benchmark started")
  local ended = p:kill(60)
  t.eq(ended.code, 130, t.read(out))
  local ew
  for n in require("lfs").dir(s.dir) do
    if n:match("^llm%-d%-experiment%-cut%-") then ew = s.dir .. "/" .. n end
  end
  t.ok(ew, "the experiment's workspace")
  local r = t.fake_compare(s, nil, nil, s.dir)
  t.eq(r.code, 1, r.stdout .. "\nSTDERR:" .. r.stderr)
  local w2 = t.workspaces(s.dir)[1]
  local down = k8s.cmdline { "llmdlua", "experiment.lua", ew .. "/experiment.yaml", "--resume", ew, "--step", "60" }
  local on = k8s.cmdline { "llmdlua", "experiment.lua", ew .. "/experiment.yaml", "--resume", ew }
  local up = "helmfile apply would upgrade it wherever this helmfile's release differs from it"
  t.contains(r.stdout, "[20] deploy (a): FAILED - run a: releases infra-try (llm-d-infra-1.3.0, deployed, revision 1; "
    .. up .. "), gaie-try (inferencepool-1.0.1, deployed, revision 1; " .. up .. "), ms-try (llm-d-modelservice-0.3.0, "
    .. "deployed, revision 1; " .. up .. ") already exist in namespace llm-d-try: they are the stack setup treatment "
    .. "one of the experiment " .. ew .. " deployed and has not torn down (recorded in its "
    .. "setup-treatment-one/run-stack/deployed.json: it stopped before its teardown); deploying may change it; tear it "
    .. "down with " .. down .. " (or go on with that experiment: " .. on .. "); nothing of this run was deployed\n")
  t.lacks(r.stdout, "someone else's")
  -- the teardown it names works: then the fresh run goes through
  local d = proc.run({ t.root() .. "/llmdlua", "experiment.lua", ew .. "/experiment.yaml", "--resume", ew, "--step",
    "60" }, { env = s.env, cwd = s.dir, timeout = 300 })
  t.eq(d.code, 0, d.stdout .. d.stderr)
  r = t.fake_compare(s, { "--resume", w2 }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
end)
