-- A user's mistyped value is refused with one line naming the file, the key and what was
-- expected, never read as something else (new-user trial 53): a yes/no option that is not
-- true or false (baseline: no ran a baseline run and the report named a winner between two
-- identical deploys), a load stage's rate that is not a number (16O: the report's stage
-- check was skipped in silence), replicas that are no count; and a partial run's Summary
-- names the stage file that is missing, not "cut short after" its last stage.
--
-- Expected values: by hand from the files each test writes (the keys and values are in the
-- test's own YAML), and, for the stage files, from the fixture's names (stage_0 .. stage_6).
local t = require "testlib"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"
local cluster = require "llmd.cluster"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"

-- A guide folder, a benchmark template (text) and a plan of two runs (their run a's extra
-- keys, the plan's extra top keys), written in a fresh folder: the plan's path.
local function plan_dir(a_extra, top_extra, template)
  local d = t.tmpdir()
  t.mkdir(d .. "/guide")
  t.write(d .. "/guide/helmfile.yaml", "releases: []\n")
  t.write(d .. "/template.yaml", template or "x: 1\n")
  local text = "namespace: llm-d-try\n" .. (top_extra or "") .. "runs:\n"
  for _, x in ipairs { "a", "b" } do
    text = text .. ("  %s:\n    label: run-%s\n"):format(x, x) .. (x == "a" and a_extra or "")
      .. "    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: Qwen/Qwen3-0.6B}\n"
      .. "    benchmark: {template: template.yaml, harness: inference-perf}\n"
  end
  t.write(d .. "/p.yaml", text)
  return d, d .. "/p.yaml"
end

t.test("nu53-1: baseline and teardown_without_logs take true or false only; no, off, 'false', 0, null, '' and "
  .. "maybe are refused, naming the key", function()
  -- each value as the plan's YAML writes it, and how the refusal shows it
  local cases = {
    { "no", "got 'no', a string: llmdlua reads YAML 1.2, where only true and false are booleans (YAML 1.1 read no "
      .. "as false); write false" },
    { "off", "got 'off', a string: llmdlua reads YAML 1.2, where only true and false are booleans (YAML 1.1 read "
      .. "off as false); write false" },
    { "yes", "got 'yes', a string: llmdlua reads YAML 1.2, where only true and false are booleans (YAML 1.1 read "
      .. "yes as true); write true" },
    { '"false"', "got 'false', a quoted string (write false without quotes)" },
    { "0", "got 0" },
    { "null", "got null (an empty value)" },
    { '""', "got ''" },
    { "maybe", "got 'maybe'" },
  }
  for _, c in ipairs(cases) do
    local _, p = plan_dir("    baseline: " .. c[1] .. "\n")
    local err = t.raises(p .. ": runs.a.baseline: expected true or false, " .. c[2], cluster.load_plan, p)
    t.eq(select(2, err:gsub("\n", "")), 0, "one line: " .. err)
  end
  -- true and false (and no key) are a plan
  for _, v in ipairs { "true", "false", "False" } do
    local _, p = plan_dir("    baseline: " .. v .. "\n")
    t.ok(cluster.load_plan(p), v)
  end
  local _, p = plan_dir("", "teardown_without_logs: maybe\n")
  t.raises(p .. ": teardown_without_logs: expected true or false, got 'maybe'", cluster.load_plan, p)
  _, p = plan_dir("", "teardown_without_logs: no\n")
  t.raises(p .. ": teardown_without_logs: expected true or false, got 'no', a string", cluster.load_plan, p)
  -- the user's command: compare.lua --plan --dry-run exits 1 with the one line, nothing done
  local d
  d, p = plan_dir("    baseline: no\n")
  local r = proc.run({ LLMDLUA, "compare.lua", "--plan", p, "--yes", "--dry-run" }, { cwd = d })
  t.eq({ r.code, r.stdout }, { 1, "" }, r.stderr)
  t.eq(r.stderr, "llmdlua: " .. p .. ": runs.a.baseline: expected true or false, got 'no', a string: llmdlua reads "
    .. "YAML 1.2, where only true and false are booleans (YAML 1.1 read no as false); write false (true: plain vLLM "
    .. "through the llm-d-baseline-model-server Service)\n")
end)

t.test("nu53-1: an experiment's plan (baseline:), its file (reset_caches:) and an autobench config (enabled:) "
  .. "take true or false only", function()
  local xr = require "llmd.experiment_run"
  local d = t.tmpdir()
  t.mkdir(d .. "/guide")
  t.write(d .. "/guide/helmfile.yaml", "releases: []\n")
  t.write(d .. "/template.yaml", "workload:\n  w:\n    load: {type: constant, stages: [{rate: 1, duration: 30}]}\n")
  local base = "namespaces: [try-a]\ndeploy: {method: helmfile, guide_dir: guide, environment: istio, "
    .. "model: Qwen/Qwen3-0.6B}\nbenchmark: {template: template.yaml, harness: inference-perf}\n"
  t.write(d .. "/plan.yaml", base .. "baseline: no\n")
  t.raises(d .. "/plan.yaml: baseline: expected true or false, got 'no', a string: llmdlua reads YAML 1.2",
    xr.load_plan, d .. "/plan.yaml")
  t.write(d .. "/plan.yaml", base .. "teardown_without_logs: maybe\n")
  t.raises(d .. "/plan.yaml: teardown_without_logs: expected true or false, got 'maybe'", xr.load_plan,
    d .. "/plan.yaml")
  t.write(d .. "/plan.yaml", base .. "baseline: false\n")
  t.ok(xr.load_plan(d .. "/plan.yaml"))
  -- the experiment file's own
  local ex = require "llmd.experiment"
  t.raises("x.yaml: treatment_stop_on_error: expected true or false, got 'no', a string: llmdlua reads YAML 1.2",
    ex.parse, yaml.load("treatment_stop_on_error: no\n"), "x.yaml")
  -- autobench: a framework's enabled: no was read as enabled
  local ab = require "llmd.autobench"
  local cfg = require("abmock").config()
  cfg.frameworks.sglang.enabled = "no"
  local errs = ab.validate(cfg)
  t.eq(errs, { "frameworks.sglang.enabled must be true or false (got 'no', a string: llmdlua reads YAML 1.2, where "
    .. "only true and false are booleans (YAML 1.1 read no as false); write false)" })
  cfg.frameworks.sglang.enabled = false
  t.eq(ab.validate(cfg), {})
end)
