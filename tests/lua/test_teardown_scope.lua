-- Teardown removes only what this run deployed: the release it installed (helm status's
-- info.first_deployed recorded at deploy), the HTTPRoutes and Gateways it made (their
-- metadata.uid), the objects its kustomization applied (recorded at deploy, not today's
-- render). One of the same name made since - a colleague's, after this run's stack was
-- removed by hand - is left, and that is said. Against the fake cluster (tests/fakecluster),
-- whose helm status -o json and objects' uids are the real tools' fields. Expected texts are
-- written from the task (audit48 S4, S4b), not taken from the code's output.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local function setup(edit)
  local d = t.tmpdir()
  t.sim_guide(d)
  t.sim_plan(d, edit)
  local env = t.fake_env(d .. "/cluster")
  return { dir = d, plan = d .. "/plan.yaml", cluster = d .. "/cluster", env = env }
end

-- a command of the fake's tools, as a user runs it by hand
local function tool(s, argv)
  local r = proc.run(argv, { env = s.env, timeout = 60 })
  t.eq(r.code, 0, table.concat(argv, " ") .. ": " .. r.stdout .. r.stderr)
  return r.stdout
end

local function state(s) return json.decode(t.read(s.cluster .. "/state.json")) end

-- run A's stack left deployed (its smoke test failed once: the comparison stops there)
local function left_deployed(s)
  local r = t.fake_compare(s, nil, { FAKE_FAIL_ONCE = "smoke" })
  t.ok(r.code ~= 0, r.stdout)
  t.ok(next(state(s).ns.bench.releases) ~= nil, "the stack is left deployed")
  return t.workspaces(s.dir)[1]
end

t.test("teardown scope: a same-named release installed since this run's was removed is left, and said", function()
  local s = setup()
  local w = left_deployed(s)
  -- the user removes the stack by hand; a colleague installs their own infra-sim
  tool(s, { "helm", "uninstall", "infra-sim", "gaie-sim", "ms-sim", "-n", "bench" })
  tool(s, { "helm", "install", "infra-sim", "llm-d-infra/llm-d-infra", "-n", "bench" })
  local theirs = json.decode(tool(s, { "helm", "status", "infra-sim", "-n", "bench", "-o", "json" }))
  local route_uid = state(s).ns.bench.httproutes["infra-sim"].metadata.uid
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find(("release infra-sim is not the release this run installed (first deployed %s, revision 1; "):format(
    theirs.info.first_deployed), 1, true), r.stdout)
  t.ok(r.stdout:find(("HTTPRoute infra-sim is not the one this run made (uid %s;"):format(route_uid), 1, true),
    r.stdout)
  -- the colleague's release and its route are still there, untouched
  local st = state(s).ns.bench
  t.ok(st.releases["infra-sim"] ~= nil, "their release is kept")
  t.eq(st.releases["infra-sim"].first_deployed, theirs.info.first_deployed)
  t.eq(st.httproutes["infra-sim"].metadata.uid, route_uid)
  -- and no uninstall of it was run
  for _, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    if c.tool == "helm" and c.args[1] == "uninstall" then
      local tail = table.concat(c.args, " ")
      t.ok(not (tail:find("infra-sim", 1, true) and tail:find("--ignore-not-found", 1, true)), tail)
    end
  end
end)

-- harden51 #2: a release of this run that someone else upgraded since its deploy (same
-- first_deployed, a later revision: another chart or other values, theirs now) is left and
-- said, with the command to remove it by hand; the others are uninstalled each right after
-- its own check (helm uninstall has no precondition: one check, one uninstall, release by
-- release, never all checks then one call). Expected from the fake's helm: an upgrade
-- counts the revision up and keeps first_deployed, as helm does.
t.test("teardown scope: a release upgraded by someone else since the deploy is left; each other checked, then removed",
  function()
  local s = setup()
  local w = left_deployed(s)
  local before = json.decode(tool(s, { "helm", "status", "ms-sim", "-n", "bench", "-o", "json" }))
  tool(s, { "helm", "upgrade", "ms-sim", "llm-d-modelservice/llm-d-modelservice", "-n", "bench" })
  local after = json.decode(tool(s, { "helm", "status", "ms-sim", "-n", "bench", "-o", "json" }))
  t.eq(after.info.first_deployed, before.info.first_deployed, "(the fake's upgrade keeps first_deployed, as helm's)")
  t.eq(after.version, before.version + 1)
  local from = #t.jsonl(s.cluster .. "/calls.log")
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find(("release ms-sim was upgraded or rolled back since this run's deploy (revision %d, this run's: %d; "
    .. "first deployed %s): someone else's change of it, left (uninstall it by hand if it is yours: helm uninstall "
    .. "ms-sim -n bench)"):format(after.version, before.version, before.info.first_deployed), 1, true), r.stdout)
  local st = state(s).ns.bench
  t.ok(st.releases["ms-sim"] ~= nil and st.releases["ms-sim"].revision == after.version, "the upgraded release is kept")
  t.eq({ st.releases["gaie-sim"], st.releases["infra-sim"] }, {}, "this run's others are gone")
  -- the helm calls of the teardown: each release's status, then at once its uninstall
  local seq = {}
  for i, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    if i > from and c.tool == "helm" and (c.args[1] == "status" or c.args[1] == "uninstall") then
      seq[#seq + 1] = c.args[1] .. " " .. c.args[2] .. (c.args[1] == "uninstall" and (" " .. c.args[3]) or "")
    end
  end
  t.eq(seq, { "status gaie-sim", "uninstall gaie-sim --ignore-not-found", "status infra-sim",
    "uninstall infra-sim --ignore-not-found", "status ms-sim" })
end)

-- Found with harden51 #2: run B, which never deployed (A failed first), counted every pod of
-- the namespace not there "before" its deploy as its own leftover - it has no "before" -, so
-- another team's pods made its teardown fail ("teardown left pod their-ms-..."). A run that
-- deployed nothing has nothing to leave.
t.test("teardown scope: a run that deployed nothing does not call another team's pods its leftovers", function()
  local s = setup()
  local w = left_deployed(s)
  tool(s, { "helm", "install", "their-ms", "llm-d-modelservice/llm-d-modelservice", "-n", "bench" })
  local theirs = {}
  for n in pairs(state(s).ns.bench.pods) do if n:match("^their%-ms%-") then theirs[#theirs + 1] = n end end
  t.ok(#theirs > 0, "their release has pods")
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(not r.stdout:find("teardown left", 1, true), r.stdout)
  local st = state(s).ns.bench
  t.ok(st.releases["their-ms"] ~= nil, "their release kept")
  for _, n in ipairs(theirs) do t.ok(st.pods[n] ~= nil, "their pod kept: " .. n) end
  t.eq({ st.releases["ms-sim"], st.releases["gaie-sim"], st.releases["infra-sim"] }, {}, "run A's releases removed")
end)

t.test("teardown scope: this run's own releases, routes and gateways are still removed on --resume --step 90",
  function()
  local s = setup()
  local w = left_deployed(s)
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("removed what this run deployed (releases: gaie-sim, infra-sim, ms-sim; routes: infra-sim; "
    .. "gateways: infra-sim-inference-gateway;", 1, true), r.stdout)
  local st = state(s).ns.bench
  t.eq(next(st.releases), nil)
  t.eq(next(st.httproutes), nil)
end)

t.test("teardown scope: kustomize objects are the ones applied at deploy, not what the folder renders at teardown",
  function()
  local s = setup(function(plan, d)
    t.mkdir(d .. "/guide/kz")
    t.write(d .. "/guide/kz/kustomization.yaml", "resources: [role.yaml]\n")
    t.write(d .. "/guide/kz/role.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
      .. "metadata: {name: my-role}\nrules: []\n")
    plan.runs.a.deploy.kustomize = "kz"
  end)
  -- (another team's Role team-role is in the namespace from the start)
  s.env.FAKE_OTHER_OBJECTS = "Role/team-role"
  local w = left_deployed(s)
  s.env.FAKE_OTHER_OBJECTS = false
  t.eq(state(s).ns.bench.other["Role/my-role"] ~= nil, true, "the run's Role applied")
  -- the guide changes between deploy and teardown (a git pull): it now names their Role
  t.write(s.dir .. "/guide/kz/role.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
    .. "metadata: {name: team-role}\nrules: []\n")
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("kustomize kz renders other objects today than it applied at deploy (now also: Role/team-role; "
    .. "no longer: Role/my-role): deleting only those it applied: Role/my-role", 1, true), r.stdout)
  t.ok(r.stdout:find("kustomize: kz (Role/my-role)); verified gone", 1, true), r.stdout)
  local other = state(s).ns.bench.other
  t.eq(other["Role/my-role"], nil)
  t.eq(other["Role/team-role"], "someone")
end)

-- fixc52 #5: the teardown commands are recorded (run-X/deployed.json's teardown_commands, what
-- run_comparison.sh's teardown lines are written from) as each runs, not after the last: a
-- teardown whose second command fails keeps the record of its first, which had removed a
-- release, and its resume adds to that record. The fake's helm fails the second release's
-- uninstall (FAKE_FAIL_ONCE=uninstall_NAME: "Kubernetes cluster unreachable", helm's error).
t.test("teardown record: a teardown cut at its second command keeps the first on disk, and its resume adds to it",
  function()
  local s = setup()
  local w = left_deployed(s)
  local rec = w .. "/run-a/deployed.json"
  local releases = json.decode(t.read(rec)).releases
  t.ok(#releases >= 2, "releases: " .. #releases)
  local first, second = releases[1], releases[2]
  local r = t.fake_compare(s, { "--resume", w, "--step", "90" }, { FAKE_FAIL_ONCE = "uninstall_" .. second })
  t.ok(r.code ~= 0, r.stdout)
  t.contains(r.stdout .. r.stderr, "Kubernetes cluster unreachable")
  -- the first release is gone, the second is not, and the record says the first's uninstall
  local st = state(s).ns.bench
  t.eq({ st.releases[first] == nil, st.releases[second] ~= nil }, { true, true })
  local cut = json.decode(t.read(rec)).teardown_commands
  t.eq(#cut, 1, table.concat(cut, "\n"))
  t.eq(cut[1], ("teardown a 'release %s' helm uninstall %s --ignore-not-found -n bench"):format(first, first))
  -- resumed: the first's line kept, the rest of the teardown after it
  r = t.fake_compare(s, { "--resume", w, "--step", "90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local all = json.decode(t.read(rec)).teardown_commands
  t.eq(all[1], cut[1])
  t.ok(#all >= 2, table.concat(all, "\n"))
  t.contains(all[2], ("uninstall %s"):format(second))
  t.eq(next(state(s).ns.bench.releases), nil, "every release removed")
end)
