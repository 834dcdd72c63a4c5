-- A comparison killed (kill -9: no Lua code runs after it) while its deploy command ran
-- (harden54): the helmfile apply goes on and installs the stack, but deployed.json said only
-- what was in the namespace before, not that the deploy had started. The workspace's own
-- teardown (--resume W --step 90) then removed nothing and failed with "teardown left pod
-- ...", and a fresh comparison called the stack "someone else's". The deploy now records
-- that it started (and when) before its command runs, and the teardown tells its releases
-- as a finished deploy does (not there before, among those its helmfile installs), held to
-- more: first deployed since the deploy started and never upgraded. Someone else's release
-- that was in the namespace before stays. On the fake cluster (FAKE_SLOW_DEPLOY holds the
-- first helmfile apply once it installed the releases); the expected texts are written by
-- hand from the task.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local k8s = require "llmd.k8s"

local FAKEBIN = t.root() .. "/tests/fakecluster/bin"

-- the releases of namespace llm-d-try, as `helm list` (the fake's) names them
local function releases(s)
  local r = proc.run({ FAKEBIN .. "/helm", "list", "-n", "llm-d-try", "--short" }, { env = s.env })
  t.eq(r.code, 0, r.stderr)
  local out = {}
  for l in r.stdout:gmatch("[^\n]+") do out[#out + 1] = l end
  table.sort(out)
  return table.concat(out, " ")
end

-- compare.lua --plan, killed by SIGKILL once the fake's helmfile apply has installed the
-- stack (and sleeps, as one waiting for its last pods would): returns the workspace
local function killed_in_deploy(s)
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.FAKE_SLOW_DEPLOY = "4"
  local p = proc.spawn({ t.root() .. "/llmdlua", "compare.lua", "--yes", "--plan", s.plan },
    { env = env, cwd = s.dir, stdout = { file = s.dir .. "/killed.out" }, stderr = { file = s.dir .. "/killed.err" } })
  t.ok(t.wait_for_file(s.cluster .. "/deploy-sleeping", p), "the deploy ran")
  t.eq(proc.run({ "kill", "-KILL", tostring(p:pid()) }).code, 0, "kill -9")
  p:wait(10)
  -- (the fake's helmfile, a child in its own group, ends by itself once its sleep is over)
  proc.run { "sleep", "4.5" }
  return t.workspaces(s.dir)[1]
end

t.test("a comparison killed during its deploy: a fresh run names it, its --step 90 removes its stack alone", function()
  -- someone else's release in the namespace before (FAKE_RELEASES=1: other-000)
  local s = t.try_setup { parent = ".", env = { FAKE_RELEASES = "1" } }
  local w1 = killed_in_deploy(s)
  t.ok(w1, "the killed comparison's workspace")
  t.eq(releases(s), "gaie-try infra-try ms-try other-000", "the killed run's helmfile installed its stack")
  local rec = json.read(w1 .. "/run-a/deployed.json")
  t.eq(type(rec.deploying), "table", "the record says the deploy started")
  -- a fresh comparison: refused, naming the killed one and its teardown (not "someone else's")
  proc.run { "sleep", "1.1" } -- (the next workspace's name holds the time to the second)
  local r = t.fake_compare(s, nil, nil, s.dir)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local down = k8s.cmdline { "llmdlua", "compare.lua", "--resume", w1, "--step", "90" }
  t.contains(r.stdout, "already exist in namespace llm-d-try: they are the stack run A of the comparison " .. w1
    .. " deployed and has not torn down (its run-a/deployed.json records its deploy starting at " .. rec.deploying.started
    .. ", stopped before it recorded what it made: a kill -9 or a crash); deploying may change it; tear it down "
    .. "with " .. down .. " ")
  t.lacks(r.stdout, "someone else's")
  -- its teardown removes its three releases, and only those
  r = t.fake_compare(s, { "--resume", w1, "--step", "90" }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  for _, n in ipairs { "gaie-try", "infra-try", "ms-try" } do
    t.contains(r.stdout, "  release " .. n .. ": installed by this run's deploy, which was interrupted ("
      .. rec.deploying.started .. ") before it recorded it: not in llm-d-try before it, first deployed ")
  end
  t.lacks(r.stdout, "teardown left")
  t.eq(releases(s), "other-000", "the user's release stays, the killed run's are gone")
  t.eq(json.read(w1 .. "/run-a/deployed.json").deploying, nil, "recorded: nothing pending")
end)

t.test("a killed deploy's teardown leaves a release of its name that was upgraded since", function()
  local s = t.try_setup { parent = "." }
  local w1 = killed_in_deploy(s)
  -- someone upgrades ms-try meanwhile (revision 2): no longer known as the killed run's
  local r = proc.run({ FAKEBIN .. "/helm", "upgrade", "ms-try", "llm-d-modelservice/llm-d-modelservice", "-n",
    "llm-d-try" }, { env = s.env })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  r = t.fake_compare(s, { "--resume", w1, "--step", "90" }, nil, s.dir)
  t.contains(r.stdout, "  release ms-try is not known as this run's: its deploy was interrupted before it recorded what "
    .. "it made, and the release was upgraded since (revision 2): left (uninstall it by hand if it is yours: helm "
    .. "uninstall ms-try -n llm-d-try)\n")
  t.eq(releases(s), "ms-try", "the two of its own removed, the upgraded one left")
end)
