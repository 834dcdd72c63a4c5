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

local find = t.contains
local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local KUBECON = t.fixtures() .. "/inference-perf/kubecon-na-2025_vllm"

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

t.test("nu53-3: a load stage's rate or duration that is no positive number is refused at plan time, naming the "
  .. "template's key", function()
  local tpl = "workload:\n  w:\n    load: {type: constant, stages: [{rate: 1, duration: 30}, {rate: %s, duration: %s}]}\n"
  for _, c in ipairs {
    { "16O", "30", "workload.w.load.stages.1.rate: expected a positive number (requests per second), got '16O'" },
    { "-4", "30", "workload.w.load.stages.1.rate: expected a positive number (requests per second), got -4" },
    { "0", "30", "workload.w.load.stages.1.rate: expected a positive number (requests per second), got 0" },
    { "4", "long", "workload.w.load.stages.1.duration: expected a positive number (seconds), got 'long'" },
  } do
    local d, p = plan_dir("", nil, tpl:format(c[1], c[2]))
    local err = t.raises(p .. ": runs.a.benchmark.template: " .. d .. "/template.yaml: " .. c[3]
      .. "; nothing was deployed", cluster.load_plan, p)
    t.eq(select(2, err:gsub("\n", "")), 0, "one line (both runs' one template): " .. err)
  end
  -- numbers pass, also one a ${VAR} of the run gives
  local _, p = plan_dir("", nil, tpl:format("16", "30"))
  t.ok(cluster.load_plan(p))
  _, p = plan_dir("", nil, tpl:format("${RATE}", "30"))
  local plan = yaml.load_file(p)
  plan.runs.a.benchmark.vars = { RATE = 4 }
  plan.runs.b.benchmark.vars = { RATE = "fast" }
  cluster.plan_paths_from_file(plan, p, { plan.runs.a, plan.runs.b })
  local err = t.raises("runs.b.benchmark.template: ", cluster.validate, plan, p)
  find(err, "workload.w.load.stages.1.rate: expected a positive number (requests per second), got 'fast'")
  t.lacks(err, "runs.a.")
end)

t.test("nu53-3: an experiment's run treatment rate: fast and setup treatment replicas: two or -2 are refused "
  .. "before anything runs", function()
  local ex = require "llmd.experiment"
  local xr = require "llmd.experiment_run"
  local d = t.tmpdir()
  t.write(d .. "/template.yaml", "workload:\n  w:\n    load: {type: constant, stages: [{rate: 1, duration: 30}]}\n")
  local plan = { benchmark = { template = d .. "/template.yaml", harness = "inference-perf" } }
  local function exp(rate2)
    return ex.parse(yaml.load("treatments:\n  - {name: rate1, load.stages.0.rate: 1}\n"
      .. "  - {name: rate2, load.stages.0.rate: " .. rate2 .. "}\n"), "e.yaml")
  end
  t.raises("e.yaml: run treatment rate2: load.stages.0.rate: expected a positive number (requests per second), "
    .. "got 'fast'; nothing was run", xr.check_run_treatments, exp("fast"), plan, "e.yaml")
  t.raises("e.yaml: run treatment rate2: load.stages.0.rate: expected a positive number (requests per second), "
    .. "got -2", xr.check_run_treatments, exp("-2"), plan, "e.yaml")
  t.ok(xr.check_run_treatments(exp("2"), plan, "e.yaml"))
  -- a whole stage list set by a treatment is checked too
  local whole = ex.parse(yaml.load("treatments:\n  - {name: one, load.stages.0.rate: 1}\n  - name: two\n"
    .. "    load.stages: [{rate: 1, duration: 10}, {rate: x, duration: 10}]\n"), "e.yaml")
  t.raises("e.yaml: run treatment two: load.stages.1.rate: expected a positive number (requests per second), got 'x'",
    xr.check_run_treatments, whole, plan, "e.yaml")
  -- setup treatments' replicas: a count of pods (0 or more)
  local function setup(v)
    return ex.parse(yaml.load("setup:\n  treatments:\n    - {name: one, decode.replicas: 1}\n"
      .. "    - {name: two, decode.replicas: " .. v .. "}\n"), "e.yaml")
  end
  t.raises("e.yaml: setup treatment two: decode.replicas: expected a whole number of replicas (0 or more), got 'two'",
    setup, "two")
  t.raises("e.yaml: setup treatment two: decode.replicas: expected a whole number of replicas (0 or more), got -2",
    setup, "-2")
  t.raises("got 1.5", setup, "1.5")
  t.ok(setup("2"))
  t.ok(setup("0"))
  -- the same in a compare.lua plan's values_override
  local _, p = plan_dir("    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: m, "
    .. "values_override: {decode: {replicas: two}}}\n")
  local text = t.read(p):gsub("    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: "
    .. "Qwen/Qwen3%-0%.6B}\n", "", 1)
  t.write(p, text)
  t.raises(p .. ": runs.a.deploy.values_override.decode.replicas: expected a whole number of replicas (0 or more), "
    .. "got 'two'", cluster.load_plan, p)
end)

t.test("nu53-3: the report's stage check that cannot be made is said (N/A, why); a config rate no harness runs "
  .. "puts the results in doubt", function()
  local comparison = require "llmd.comparison"
  local harness = require "llmd.harness"
  local d = t.tmpdir()
  -- the kubecon vLLM run's 7 requested rates, the 4th written 16O (a letter O)
  t.write(d .. "/config.yaml", "workload:\n  ladder:\n    load: {type: poisson, stages: [{rate: 1}, {rate: 31.4}, "
    .. "{rate: 61.79}, {rate: 16O}, {rate: 122.59}, {rate: 152.98}, {rate: 183.38}]}\n")
  local run = harness.extract(KUBECON)
  t.eq(run.status, "ok")
  comparison.check_config_stages(run, d .. "/config.yaml", {})
  t.eq(run.status, "warnings")
  t.eq(#(run.checks or {}), 1)
  t.eq(run.checks[1].kind, "config_mismatch")
  find(run.checks[1].text, "its workload ladder asks for load.stages.3.rate '16O', which is not a positive number "
    .. "(no harness runs it); the results hold 7 stages (1–183.38 req/s)")
  -- a stage with no rate (another load type): the check is N/A, said with why; the status stays
  t.write(d .. "/config.yaml", "workload:\n  ladder:\n    load: {type: concurrent, stages: [{concurrency: 4}]}\n")
  run = harness.extract(KUBECON)
  comparison.check_config_stages(run, d .. "/config.yaml", {})
  t.eq(run.status, "ok")
  find(table.concat(run.warnings, "\n"), "load stages N/A: the results' stages were not checked against the "
    .. "benchmark config sent (" .. (d .. "/config.yaml"):match("[^/]+/[^/]+/[^/]+$") .. ": its workload ladder's load.stages.0 gives no rate)")
  -- two workloads, none recorded as the one that ran
  t.write(d .. "/config.yaml", "workload:\n  w1: {load: {stages: [{rate: 1}]}}\n  w2: {load: {stages: [{rate: 2}]}}\n")
  run = harness.extract(KUBECON)
  comparison.check_config_stages(run, d .. "/config.yaml", {})
  find(table.concat(run.warnings, "\n"), "it has 2 workloads (w1, w2) and the run does not record which ran)")
end)

t.test("nu53-5: a partial run missing a middle stage file says that stage, not 'cut short after' its last",
  function()
  local d = t.tmpdir() .. "/run"
  t.copy_tree(KUBECON, d)
  os.remove(d .. "/stage_3_lifecycle_metrics.json")
  os.remove(d .. "/summary_lifecycle_metrics.json")
  local harness = require "llmd.harness"
  local run = harness.extract(d, { tolerant = true })
  -- the fixture's stage files are stage_0 .. stage_6: 6 left, 3 gone
  t.eq(run.partial, "a partial run: stage 3 is missing (no stage_3_lifecycle_metrics.json; there are 6 stage files "
    .. "(stages 0-2, 4-6)), and so is summary_lifecycle_metrics.json (inference-perf writes it when every stage has "
    .. "run: lost or not copied, or the run was cut short after stage 6); its figures are from those stages only, "
    .. "not from a complete run")
  -- the Summary of compare.lua says it so (A's stage files saved again, the same figures in
  -- other bytes: a run compared with its own files is refused as one run's files copied into
  -- the other's folder, llmd.comparison.check_shared_files)
  for _, i in ipairs { 0, 1, 2, 4, 5, 6 } do t.resave(("%s/stage_%d_lifecycle_metrics.json"):format(d, i)) end
  local w, r = t.compare { "--a", d, "--b", KUBECON, "--tolerant" }
  t.eq(r.code, 0, r.stderr)
  local report = t.read(w .. "/comparison_report.md")
  find(report, "Warning: run A (run) is a partial run: stage 3 is missing (no stage_3_lifecycle_metrics.json")
  t.lacks(report, "so the run was cut short after stage 6")
  -- only the summary gone: as before, cut short after the last stage
  d = t.tmpdir() .. "/run"
  t.copy_tree(KUBECON, d)
  os.remove(d .. "/summary_lifecycle_metrics.json")
  run = harness.extract(d, { tolerant = true })
  find(run.partial, "no summary_lifecycle_metrics.json beside its 7 stage files (stages 0-6): inference-perf writes "
    .. "it when every stage has run, so the run was cut short after stage 6")
end)

-- mend54 #4: a value llmdlua writes again for another reader (a values override or --set for
-- helm, a server flag the upstream autobench tool renders) that YAML 1.1 reads as a boolean
-- (no, off, yes, on; helm's go-yaml also y and n) is refused, naming the file and key: llmdlua
-- (YAML 1.2) reads a string, so helm got the string "no" (true to a chart's `if`) and
-- autobench rendered --flag no where the upstream tool (PyYAML) leaves the flag out. Expected
-- texts by hand; which words are booleans: go-yaml v2's resolve table and PyYAML's bool
-- resolver (YAML 1.1's bool type: y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF).
t.test("mend54-4: a values override, --set or setup treatment value no/off/yes/on is refused, naming the key",
  function()
  local function why(v, b, other)
    return ("'%s' is a string to llmdlua, which reads YAML 1.2, but %s to YAML 1.1 (helm's reading of a values "
      .. "file, PyYAML's): it would reach helm as the string '%s', which a chart's `if` takes as true; write %s (or "
      .. "%s) for a boolean, or give the text in one of the guide's values files, which helm reads itself"):format(v,
      b, v, b, other)
  end
  local _, p = plan_dir("    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: m, "
    .. "values_override: {decode: {enabled: no, replicas: 1}}}\n")
  t.write(p, (t.read(p):gsub("    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: "
    .. "Qwen/Qwen3%-0%.6B}\n", "", 1)))
  local err = t.raises(p .. ": runs.a.deploy.values_override.decode.enabled: " .. why("no", "false", "true"),
    cluster.load_plan, p)
  t.eq(select(2, err:gsub("\n", "")), 0, "one line: " .. err)
  -- every form of the words, and no other string
  for _, w in ipairs { "y", "Y", "yes", "Yes", "YES", "on", "On", "ON" } do t.eq(cluster.yaml11_bool(w), true, w) end
  for _, w in ipairs { "n", "N", "no", "No", "NO", "off", "Off", "OFF" } do t.eq(cluster.yaml11_bool(w), false, w) end
  for _, w in ipairs { "nO", "yEs", "oN", "none", "true", "" } do t.eq(cluster.yaml11_bool(w), nil, w) end
  t.eq(cluster.yaml11_bool("y", true), nil, "PyYAML reads y as a string")
  t.eq(cluster.yaml11_bool(false), nil)
  -- --set: helm would get the string too
  t.eq(cluster.helm_set_problems(yaml.load("set: {routing.proxy.enabled: OFF}\n").set, "runs.a.deploy.set"),
    { { key = "runs.a.deploy.set.routing.proxy.enabled", why = why("OFF", "false", "true") } })
  t.eq(cluster.helm_set_problems(yaml.load("set: {routing.proxy.enabled: false, a.b: 'nope'}\n").set,
    "runs.a.deploy.set"), {})
  -- an experiment's setup treatment (an upstream experiment file is PyYAML's: yes is true there)
  local ex = require "llmd.experiment"
  t.raises("e.yaml: setup treatment two: decode.enabled: " .. why("yes", "true", "false"), ex.parse,
    yaml.load("setup:\n  treatments:\n    - {name: one, decode.enabled: true}\n"
      .. "    - {name: two, decode.enabled: yes}\n"), "e.yaml")
  t.ok(ex.parse(yaml.load("setup:\n  treatments:\n    - {name: one, decode.enabled: true}\n"
    .. "    - {name: two, decode.enabled: false}\n"), "e.yaml"))
end)

t.test("mend54-4: an autobench server flag no/off/yes/on is refused by validate, naming the file and key",
  function()
  local d = t.tmpdir()
  local text = t.read(t.fixtures() .. "/autobench/cookbook-llm/llama-3.1-70b-instruct.yaml")
  local flags = "      enable_chunked_prefill: true\n"
  t.ok(text:find(flags, 1, true))
  local space = "      enable_prefix_caching:\n      - true\n"
  t.ok(text:find(space, 1, true))
  t.write(d .. "/c.yaml", (text:gsub(flags, "      enable_chunked_prefill: no\n", 1)
    :gsub(space:gsub("%p", "%%%0"), "      enable_prefix_caching:\n      - On\n      - false\n", 1)))
  local r = proc.run({ LLMDLUA, "autobench.lua", "validate", "c.yaml" }, { cwd = d })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stdout, "c.yaml: frameworks.vllm.base_server_flags.enable_chunked_prefill: 'no' is a string to llmdlua, "
    .. "which reads YAML 1.2, and would be rendered --enable-chunked-prefill no, but false to the upstream tool "
    .. "(PyYAML reads YAML 1.1), which leaves the flag out: write false\n"
    .. "c.yaml: frameworks.vllm.search_space.enable_prefix_caching: 'On' is a string to llmdlua, which reads "
    .. "YAML 1.2, and would be rendered --enable-prefix-caching On, but true to the upstream tool (PyYAML reads YAML "
    .. "1.1), which renders a bare --enable-prefix-caching: write true\n")
  -- written as booleans, it is a config
  t.write(d .. "/c.yaml", (text:gsub(flags, "      enable_chunked_prefill: false\n", 1)))
  r = proc.run({ LLMDLUA, "autobench.lua", "validate", "c.yaml" }, { cwd = d })
  t.eq(r.code, 0, r.stdout .. r.stderr)
end)

-- mend54 #4: an experiment's run treatments make llmdlua write the benchmark config again;
-- a no/off/yes/on there (the template's, or a treatment's value), false or true to the
-- harness's PyYAML, would reach it as a string. Expected texts by hand.
t.test("mend54-4: with run treatments, a template's or treatment's no/off/yes/on is refused before anything runs",
  function()
  local ex = require "llmd.experiment"
  local xr = require "llmd.experiment_run"
  local d = t.tmpdir()
  local function exp(v)
    return ex.parse(yaml.load("treatments:\n  - {name: rate1, load.stages.0.rate: 1}\n"
      .. "  - {name: rate2, load.stages.0.rate: 2, api.streaming: " .. v .. "}\n"), "e.yaml")
  end
  local plan = { benchmark = { template = d .. "/template.yaml", harness = "inference-perf" } }
  local function said(v, b)
    return ("'%s' is a string to llmdlua, which reads YAML 1.2, but %s to PyYAML (YAML 1.1), as the harness reads "
      .. "its config; applying the run treatments writes the config again, with the string '%s': write %s; nothing "
      .. "was run"):format(v, b, v, b)
  end
  t.write(d .. "/template.yaml", "workload:\n  w:\n    load: {type: constant, stages: [{rate: 1, duration: 30}]}\n"
    .. "    api: {streaming: true}\n    data: {shared_prefix: off}\n")
  t.raises(d .. "/template.yaml: workload.w.data.shared_prefix: " .. said("off", "false"), xr.check_run_treatments,
    exp("false"), plan, "e.yaml")
  t.write(d .. "/template.yaml", "workload:\n  w:\n    load: {type: constant, stages: [{rate: 1, duration: 30}]}\n"
    .. "    api: {streaming: true}\n")
  t.raises("e.yaml: run treatment rate2: api.streaming: " .. said("No", "false"), xr.check_run_treatments,
    exp("No"), plan, "e.yaml")
  t.ok(xr.check_run_treatments(exp("false"), plan, "e.yaml"))
end)

-- mend54 #5: the A/A check read an old workspace's plan baseline by truthiness (plans from
-- before baseline: took true or false only): "false" and no were true. Such a value is read
-- from what the run recorded as it deployed (run_state.json's baseline), else not known: no
-- A/A check claimed. Expected by hand from the files written here.
t.test("mend54-5: an old workspace's baseline: 'false' or no is read from the run's record, never by truthiness",
  function()
  local report = require "llmd.report"
  local json = require "llmd.json"
  local function side(label)
    local run = t.run_of { { rate = 1, values = { ttft_p90_ms = 50 } }, { rate = 2, values = { ttft_p90_ms = 60 } } }
    run.harness = "inference-perf"
    return { label = label, state = { label = label }, run = run, kv = {} }
  end
  local function aa(ba, bb, recorded_a)
    local d = t.tmpdir()
    local run = "    deploy: {method: helmfile, guide_dir: g, model: m}\n    benchmark: {template: t.yaml}\n"
    t.write(d .. "/plan.yaml", "runs:\n  a:\n    label: x\n" .. (ba and ("    baseline: " .. ba .. "\n") or "")
      .. run .. "  b:\n    label: y\n" .. (bb and ("    baseline: " .. bb .. "\n") or "") .. run)
    if recorded_a ~= nil then
      t.mkdir(d .. "/run-a")
      t.write(d .. "/run-a/run_state.json", json.encode { label = "x", baseline = recorded_a })
    end
    return report.build { a = side("x"), b = side("y"), generated = 0, workspace = d }.same_config ~= nil
  end
  -- "false" (a string) against false, the deploy having recorded false: the same configuration
  t.eq(aa('"false"', "false", false), true)
  -- no against true with nothing recorded: not known, no A/A claimed (truthiness said the same)
  t.eq(aa("no", "true", nil), false)
  -- no recorded as the baseline run it deployed, against true: the same
  t.eq(aa("no", "true", true), true)
  -- booleans as written (a record does not override them), and none is false
  t.eq(aa("false", nil, nil), true)
  t.eq(aa("true", nil, nil), false)
  -- a run_state.json whose baseline is no boolean records no configuration to compare
  local st = { recorded_commands = { { "helmfile", "apply" } }, stack = { model = "m" }, benchmark = {} }
  local sa, sb = {}, {}
  for k, v in pairs(st) do sa[k], sb[k] = v, v end
  sa.baseline, sb.baseline = "no", true
  t.eq(report.same_recorded_config(sa, sb), false)
  sa.baseline = true
  t.eq(report.same_recorded_config(sa, sb), true)
end)

-- mend54 #6: timeouts.poll: 0 was accepted, and the wait for readiness then looked at the
-- stack without pause (a busy loop of kubectl calls); NaN passed every timeout's check.
-- Expected texts by hand.
t.test("mend54-6: timeouts.poll of 0 or less (or no finite number) is refused with one line; NaN in any timeout",
  function()
  local why = "timeouts.poll: expected seconds between two looks at the stack (a number > 0), got "
  for _, c in ipairs { { "0", "0" }, { "-1", "-1" }, { ".inf", ".inf" }, { ".nan", ".nan" }, { "fast", "'fast'" } } do
    local _, p = plan_dir("", "timeouts: {poll: " .. c[1] .. "}\n")
    local err = t.raises(p .. ": " .. why .. c[2], cluster.load_plan, p)
    t.eq(select(2, err:gsub("\n", "")), 0, "one line: " .. err)
  end
  local _, p = plan_dir("", "timeouts: {ready: .nan}\n")
  t.raises(p .. ": timeouts.ready: expected seconds (a number >= 0)", cluster.load_plan, p)
  _, p = plan_dir("", "timeouts: {poll: 0.05, ready: 0, benchmark: 0}\n")
  t.ok(cluster.load_plan(p))
  -- an experiment's plan, checked as a compare.lua run's
  local xr = require "llmd.experiment_run"
  local d = plan_dir("")
  t.write(d .. "/plan.yaml", "namespace: llm-d-try\ntimeouts: {poll: 0}\ndeploy: {method: helmfile, guide_dir: "
    .. "guide, environment: istio, model: Qwen/Qwen3-0.6B}\nbenchmark: {template: template.yaml, harness: "
    .. "inference-perf}\n")
  t.raises(d .. "/plan.yaml: " .. why .. "0", xr.load_plan, d .. "/plan.yaml")
end)
