-- Names an experiment's setup treatments (and a plan's deploy.values_override) give the
-- charts for Kubernetes objects - namespaces, releases and what a chart names after its
-- release - are checked as --namespace and deploy.release are, before any cluster call: one
-- line naming the file, where (the treatment, or setup.constants) and the key. The expected
-- verdicts follow RFC 1123 by hand: a label is [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63
-- characters; a Helm release name a lowercase RFC 1123 subdomain of at most 53.
local t = require "testlib"
local ex = require "llmd.experiment"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"

local LABEL = "expected an RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or "
  .. "digit, at most 63 characters"
local RELEASE = "is not a valid Helm release name (lowercase letters, digits, '-' and '.', starting and ending with "
  .. "a letter or digit, at most 53 characters)"

local function parse(text)
  local ok, e = pcall(ex.parse, yaml.load(text), "exp.yaml")
  return ok, e
end

t.test("a setup treatment's namespace or release name that Kubernetes refuses is one line naming file, treatment "
  .. "and key", function()
  local tail = "treatments:\n  - name: r1\n    load.stages.0.rate: 1\n"
  local ok, err = parse("setup:\n  treatments:\n    - name: one\n      decode.replicas: 1\n    - name: two\n"
    .. "      modelservice.namespace: Team_B\n" .. tail)
  t.eq(ok, false)
  t.eq(err, "exp.yaml: setup treatment two: modelservice.namespace: 'Team_B' is not a valid namespace name ("
    .. LABEL .. ")")
  -- from setup.constants: named there
  ok, err = parse("setup:\n  constants:\n    gateway.gatewayNamespace: 'a b'\n  treatments:\n    - name: one\n"
    .. "      decode.replicas: 1\n" .. tail)
  t.eq(ok, false)
  t.eq(err, "exp.yaml: setup.constants: gateway.gatewayNamespace: 'a b' is not a valid namespace name (" .. LABEL
    .. ")")
  -- a release name, and what a chart names after it, as helm takes them (54 letters: too long)
  ok, err = parse("setup:\n  treatments:\n    - name: one\n      ms:\n        fullnameOverride: -ms\n" .. tail)
  t.eq(ok, false)
  t.eq(err, "exp.yaml: setup treatment one: ms.fullnameOverride: '-ms' " .. RELEASE)
  ok, err = parse("setup:\n  treatments:\n    - name: one\n      release: " .. ("r"):rep(54) .. "\n" .. tail)
  t.eq(err, "exp.yaml: setup treatment one: release: '" .. ("r"):rep(54) .. "' " .. RELEASE)
  t.eq(ok, false)
end)

t.test("valid names, an empty one (the chart's 'not set') and other keys pass", function()
  local ok, e = parse("setup:\n  constants:\n    nameOverride: ''\n  treatments:\n    - name: one\n"
    .. "      modelservice.namespace: team-b\n      release: ms-1.v2\n      fullnameOverride: " .. ("r"):rep(53) .. "\n"
    .. "      decode.replicas: 2\n      routing.modelName: Not_A_K8s_Name\n"
    .. "treatments:\n  - name: r1\n    load.stages.0.rate: 1\n")
  t.ok(ok, e)
  t.eq(e.setup_treatments[1].overrides.modelservice.namespace, "team-b")
end)

t.test("a plan's values_override names are checked as the experiment's are (compare.lua and experiment.lua plans)",
  function()
  local cluster = require "llmd.cluster"
  local d = t.tmpdir()
  t.try_guide(d, true)
  local run = function(label, vo)
    return { label = label, deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio",
      model = "Qwen/Qwen3-0.6B", values_override = vo }, benchmark = { template = d .. "/template.yaml" } }
  end
  local ok, err = pcall(cluster.validate, { namespace = "llm-d-try", runs = { a = run("a", { namespace = "ok-ns" }),
    b = run("b", { infra = { namespace = "Bad.NS" } }) } }, "plan.yaml")
  t.eq(ok, false)
  t.eq(err, "plan.yaml: runs.b.deploy.values_override.infra.namespace: 'Bad.NS' is not a valid namespace name ("
    .. LABEL .. ")")
end)

t.test("experiment.lua --plan (and --dry-run, --show) refuses such a name before any cluster call", function()
  local d = proc.realpath(t.tmpdir())
  t.try_guide(d, true)
  t.write(d .. "/exp.yaml", "setup:\n  treatments:\n    - name: one\n      decode.replicas: 1\n    - name: two\n"
    .. "      modelservice.namespace: Team_B\ntreatments:\n  - name: r1\n    load.stages.0.rate: 1\n")
  t.write(d .. "/plan.yaml", yaml.dump { namespaces = { "exp-a" }, parent = d, deploy = { method = "helmfile",
    guide_dir = d .. "/guide", environment = "istio", model = "Qwen/Qwen3-0.6B" },
    benchmark = { template = d .. "/template.yaml", harness = "inference-perf" } })
  local env = t.fake_env(d .. "/cluster", { FAKE_RESULTS = false })
  for _, extra in ipairs { { "--plan", "plan.yaml" }, { "--plan", "plan.yaml", "--dry-run" }, { "--show" } } do
    local argv = { LLMDLUA, "experiment.lua", "exp.yaml" }
    for _, a in ipairs(extra) do argv[#argv + 1] = a end
    local r = proc.run(argv, { env = env, cwd = d, timeout = 60 })
    t.eq(r.code, 1, table.concat(extra, " ") .. ": " .. r.stdout .. r.stderr)
    t.eq(r.stderr, "llmdlua: exp.yaml: setup treatment two: modelservice.namespace: 'Team_B' is not a valid namespace "
      .. "name (" .. LABEL .. ")\n", table.concat(extra, " "))
    t.eq(proc.run({ "ls", d .. "/cluster" }).stdout, "", "no cluster call: " .. table.concat(extra, " "))
    t.eq(proc.run({ "sh", "-c", "ls -d " .. d .. "/llm-d-experiment-* 2>/dev/null" }).stdout, "", "no workspace")
  end
end)
