-- What test_rerun_script.lua and test_rerun_owner.lua share (run_comparison.sh re-run from a
-- workspace on the fake cluster, tests/fakecluster): README's "try it" setup with run A a
-- baseline - guide-vllm/ holds only the model server's release (ms-vllm), which the plain
-- vLLM stack is - and run B the llm-d guide; the script's lines uncommented; the script run
-- as a user runs it (sh, from /); the namespace's state; the script's lines for run A, as
-- templates/run_comparison.sh writes them.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local M = {}

M.NS = "llm-d-try"
-- run A's deploy line after its guide folder, its Service, benchmark and teardown lines
M.DEPLOY_A_TAIL = " ms-vllm helmfile -n llm-d-try apply -e istio --skip-crds"
M.SERVICE_A = "service a llm-d-baseline-model-server kubectl -n llm-d-try create -f "
  .. '"$COMPARISON_DIR"/run-a/deploy/baseline-service.yaml'
M.BENCH_A = 'benchmark a run_only.sh -c "$COMPARISON_DIR"/run-a/benchmark/config.yaml'
M.TEARDOWN_A = { "teardown a 'release ms-vllm' helm uninstall ms-vllm --ignore-not-found -n llm-d-try",
  "teardown a 'Service llm-d-baseline-model-server' kubectl -n llm-d-try delete service "
    .. "llm-d-baseline-model-server --ignore-not-found" }

-- t.try_setup's folder with guide-vllm/ and the plan of runs a (baseline, guide-vllm) and b
-- (the guide); nothing run yet. Returns t.try_setup's {dir, plan, cluster, env}.
function M.setup()
  local s = t.try_setup()
  t.mkdir(s.dir .. "/guide-vllm")
  t.write(s.dir .. "/guide-vllm/helmfile.yaml", "releases:\n  - name: ms-vllm\n    chart: "
    .. "llm-d-modelservice/llm-d-modelservice\n")
  local run = "    benchmark: {template: template.yaml, harness: inference-perf}\n"
  t.write(s.plan, "namespace: llm-d-try\nparent: " .. s.dir .. "\ntimeouts: {poll: 0.05, backoff: 0.01}\nruns:\n  a:\n"
    .. "    label: vllm-service\n    baseline: true\n"
    .. "    deploy: {method: helmfile, guide_dir: guide-vllm, environment: istio, model: Qwen/Qwen3-0.6B}\n" .. run
    .. "  b:\n    label: llm-d\n"
    .. "    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: Qwen/Qwen3-0.6B}\n" .. run)
  return s
end

-- run A's deploy line for setup s
function M.deploy_a(s) return "deploy a " .. s.dir .. "/guide-vllm" .. M.DEPLOY_A_TAIL end

-- the script's text with lines uncommented: each must be there once, commented ("# LINE")
function M.uncomment(text, lines)
  for _, l in ipairs(lines) do
    local n
    text, n = text:gsub("\n# " .. l:gsub("%p", "%%%0") .. "\n", "\n" .. l:gsub("%%", "%%%%") .. "\n")
    t.eq(n, 1, l)
  end
  return text
end

-- `sh PATH` from /, as a user runs the script, with s's environment, LLMDLUA the llmdlua
-- built here and envx's keys over them; proc.run's result
function M.run_script(s, path, envx)
  local env = { LLMDLUA = t.root() .. "/llmdlua" }
  for k, v in pairs(s.env) do env[k] = v end
  for k, v in pairs(envx or {}) do env[k] = v end
  return proc.run({ "sh", path }, { env = env, timeout = 120, cwd = "/" })
end

-- the fake cluster's state of the namespace
function M.ns_state(s) return (json.decode(t.read(s.cluster .. "/state.json")).ns or {})[M.NS] end

return M
