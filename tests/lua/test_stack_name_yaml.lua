-- The run label reaches run_only.sh as ${STACK_NAME}: the config's endpoint.stack_name, which
-- run_only.sh writes unquoted into its launcher Pod's YAML (a heredoc, the
-- LLMDBENCH_HARNESS_STACK_NAME value) and into the results folder's name
-- (/work/shared/reference/llmd-benchmark.md, run_only.sh steps 6 and 7). A label holding a
-- '"', a ':' or a newline would break that YAML: refused at plan validation when the template
-- takes ${STACK_NAME}, and in a rendered config (endpoint.stack_name) before run_only.sh runs.
-- Expected texts written from the task (harden49 item 6).
local t = require "testlib"
local yaml = require "llmd.yaml"
local cluster = require "llmd.cluster"

local function plan_with(d, label, template_text)
  t.sim_guide(d)
  t.sim_plan(d, function(plan) plan.runs.a.label = label end)
  t.write(d .. "/template.yaml", template_text)
  return d .. "/plan.yaml"
end

local TEMPLATE = "endpoint:\n  stack_name: ${STACK_NAME}\n  model: ${MODEL}\n  namespace: ${NAMESPACE}\n"
  .. "harness:\n  name: inference-perf\n  results_pvc: ${BENCHMARK_PVC}\n  namespace: ${NAMESPACE}\n"
  .. "workload:\n  sanity_random:\n    load: {type: constant}\n"

for _, label in ipairs { 'my "run"', "run: a", "run\nb: 1" } do
  t.test("stack name: a run label holding " .. cluster.shown(label) .. " is refused when the template takes it",
    function()
    local d = t.tmpdir()
    local p = plan_with(d, label, TEMPLATE)
    local err = t.raises("runs.a.label: " .. cluster.shown(label) .. ": expected letters, digits, '.', '_' and '-' only,"
      .. " as the benchmark template " .. d .. "/template.yaml takes it (${STACK_NAME}) and run_only.sh writes it "
      .. "unquoted into its launcher Pod's YAML", cluster.load_plan, p)
    -- one line, no traceback
    t.ok(not err:find("traceback", 1, true), err)
  end)
end

t.test("stack name: a plain label, or a template without ${STACK_NAME}, is taken", function()
  local d = t.tmpdir()
  cluster.load_plan(plan_with(d, "run-a.v2_x", TEMPLATE))
  local d2 = t.tmpdir()
  cluster.load_plan(plan_with(d2, "my run: a", TEMPLATE:gsub("%${STACK_NAME}", "try")))
end)

t.test("stack name: a rendered config's endpoint.stack_name that is not plain is a problem", function()
  local d = t.tmpdir()
  local cfg = d .. "/config.yaml"
  t.write(cfg, yaml.dump { endpoint = { stack_name = 'a"b: c' }, harness = { name = "inference-perf" } })
  local problems = cluster.run_only_config_problems(yaml.load(t.read(cfg)), cfg)
  t.eq(#problems, 1, table.concat(problems, "\n"))
  t.ok(problems[1]:find("endpoint.stack_name 'a\"b: c': expected letters, digits, '.', '_' and '-' only: run_only.sh "
    .. "writes it unquoted into its launcher Pod's YAML", 1, true), problems[1])
  -- the guides' own (optimized-baseline-Qwen3-32B) is plain
  t.eq(#cluster.run_only_config_problems({ endpoint = { stack_name = "optimized-baseline-Qwen3-32B" } }, cfg), 0)
end)
