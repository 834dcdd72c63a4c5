-- One run's result files that contradict each other, or results that do not match the
-- benchmark config they were run with (new-user trial 40): the contradiction is caught and
-- named, and the figures are the request-level ones, never the contradicting summary's.
local t = require "testlib"
local json = require "llmd.json"
local harness = require "llmd.harness"

local find = t.contains
local KUBECON = t.fixtures() .. "/inference-perf/kubecon-na-2025_vllm"

-- A copy of the kubecon vLLM run whose stage files say every request failed
-- (successes.count 0, failures.count = load_summary.count), the summary left as it is
-- (38717 successes, 0 failures). keep: leave the rest of each stage's successes as it was
-- (the trial's edit), else successes is {count = 0}.
local function all_failed_stages(keep)
  local dir = t.tmpdir() .. "/allfail"
  t.copy_tree(KUBECON, dir)
  for i = 0, 6 do
    local p = ("%s/stage_%d_lifecycle_metrics.json"):format(dir, i)
    local d = json.read(p)
    if keep then d.successes.count = 0 else d.successes = { count = 0 } end
    d.failures = { count = d.load_summary.count }
    t.write(p, json.encode(d))
  end
  return dir
end

t.test("1: an inference-perf summary that contradicts its stage files is named, and the whole run is the stages'",
  function()
  for _, keep in ipairs { true, false } do
    local run = harness.extract(all_failed_stages(keep))
    -- the load counts of stages 0-6 (60 + 1884 + 3707 + 5531 + 7355 + 9178 + 11002, python3
    -- sum over the fixture's load_summary.count) = 38717, every one failed
    t.eq(run.overall.values.requests_ok, 0)
    t.eq(run.overall.values.requests_failed, 38717)
    t.near(run.overall.values.error_rate_pct, 100, 1e-12)
    -- nothing completed: 0 req/s and 0 tok/s, not the summary's 63.461 req/s, 3,957.9 tok/s
    t.eq(run.overall.values.throughput_req_s, 0)
    t.eq(run.overall.values.throughput_tok_s, 0)
    t.eq(run.status, "failed")
    find(table.concat(run.reasons, "\n"), "no request succeeded")
    local w = table.concat(run.warnings, "\n")
    find(w, "the result files disagree: summary_lifecycle_metrics.json against stage_0_lifecycle_metrics.json to "
      .. "stage_6_lifecycle_metrics.json (summed): successes.count 38717 in the summary, 0 in the stage files; "
      .. "failures.count 0 in the summary, 38717 in the stage files")
    -- the stage rows agree with the whole run: each stage 0 successes, 0 req/s, no latency
    for _, st in ipairs(run.stages) do
      t.eq(st.metrics.values.requests_ok, 0)
      t.eq(st.metrics.values.throughput_req_s, 0, "stage " .. st.index)
      t.eq(st.metrics.values.ttft_p90_ms, nil, "stage " .. st.index)
      t.eq(st.metrics.na.ttft_p90_ms, "no successful requests")
    end
  end
  -- the fixture itself (its files agree): the summary's figures, no such check
  local ok = harness.extract(KUBECON)
  t.eq(ok.overall.values.requests_ok, 38717)
  t.near(ok.overall.values.throughput_req_s, 63.46125084268033, 1e-9)
  t.lacks(table.concat(ok.warnings, "\n"), "disagree")
end)

t.test("1: compare.lua with such a run as B: B failed (no request succeeded), its error rate 100 %, never A's figures",
  function()
  local r = t.compare_ab(KUBECON, all_failed_stages(true), { "--b-label", "allfail" })
  find(r.md, "**Verdict:** Cannot say which: allfail's run failed its health check (no request succeeded)")
  find(r.md, "| Error rate | 0.00 % | 100.00 % | +100.00 pp |")
  find(r.md, "| Request throughput | 63.461 req/s | 0.000 req/s |")
  t.lacks(r.md, "achieved rate unknown, not reported by inference-perf")
  find(r.md, "the result files disagree: summary_lifecycle_metrics.json against")
end)

-- The README's try/ setup (the fake cluster of tests/fakecluster): a guide, a template of the
-- kubecon vLLM ladder, the plan of two identical runs; {dir, plan, env}.
local proc = require "llmd.proc"
local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local TREAT = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"
local function try_setup()
  -- (README's guide, with the inference pool; its template replaced below; the fake's own kube context)
  local s = t.try_setup { env = { FAKE_CONTEXT = false } }
  s.env.PATH = ROOT .. ":" .. s.env.PATH -- (llmdlua on the PATH, as README's shell has it)
  t.write(s.dir .. "/template.yaml", "endpoint:\n  stack_name: try\n  model: ${MODEL}\n  namespace: ${NAMESPACE}\n"
    .. "  base_url: http://${IP}\nharness:\n  name: inference-perf\n  results_pvc: ${BENCHMARK_PVC}\n"
    .. "  namespace: ${NAMESPACE}\nworkload:\n  sanity_random:\n"
    -- the kubecon vLLM run's ladder (its stage files' load_summary.requested_rate, 60 s each):
    -- the fake cluster's benchmark runs what the config asks, from the recorded stages nearest
    -- each rate (tests/fakecluster/fake.lua: run_workload)
    .. "    load: {type: constant, stages: [{rate: 1, duration: 60}, {rate: 31.4, duration: 60}, "
    .. "{rate: 61.79, duration: 60}, {rate: 92.19, duration: 60}, {rate: 122.59, duration: 60}, "
    .. "{rate: 152.98, duration: 60}, {rate: 183.38, duration: 60}]}\n")
  return s
end

local function try_compare(s, extra)
  local argv = { LLMDLUA, "compare.lua", "--yes", "--quiet", "--plan", "plan.yaml" }
  for _, a in ipairs(extra or {}) do argv[#argv + 1] = a end
  local r = proc.run(argv, { env = s.env, timeout = 120, cwd = s.dir })
  local ws = t.workspaces(s.dir)
  t.ok(r.code == 0 and ws[#ws], r.stdout .. r.stderr)
  return r, t.read(ws[#ws] .. "/comparison_report.md"), ws[#ws]
end

t.test("2: --plan with --a DIR: the plan's run a replaced is said; a verdict over an unknown workload/model says "
  .. "like for like is not verified, and no banner claims the same workload", function()
  local s = try_setup()
  -- A: the chunked run imported (169.43 req/s sustained), B: the plan's candidate (the fake's
  -- first results, 92.21 req/s; the fake ran the one stage its config asks, fixd41): A is
  -- named higher, as before, but with the caveat
  local r, md = try_compare(s, { "--a", TREAT })
  find(r.stderr, "compare.lua: --a " .. TREAT .. " replaces the plan's run a (label baseline: a deploy and a "
    .. "benchmark): run A is that folder's results, not the plan's")
  local verdict = md:match("%*%*Verdict:%*%*[^\n]*")
  find(verdict, "kubecon-na-2025_vllm_chunking_and_prefix_caching sustains more load")
  find(verdict, "Warning: ")
  find(verdict, "like for like not verified: A's workload/model unknown")
  t.lacks(md, "The same workload (the same requests)")
  find(md, "> **Not verified to be the same workload (A's workload/model unknown), on different load ladders.**")
end)

t.test("3: results whose stages are not the benchmark config's are named (both), and two runs the plan deploys "
  .. "alike are said to be an A/A check", function()
  local s = try_setup()
  local _, md, w = try_compare(s)
  -- the fake ran the config's ladder: results and config agree, nothing said
  t.lacks(md, "do not match the benchmark config")
  -- each run's config then says one stage of 1 req/s, as if the results were another run's:
  -- both hold the template's 7 stages, requested_rate 1 to 183.38 (the kubecon vLLM run's)
  for _, x in ipairs { "a", "b" } do
    local p = w .. "/run-" .. x .. "/benchmark/config.yaml"
    t.write(p, (t.read(p):gsub("stages: %b[]", "stages: [{rate: 1, duration: 30}]")))
  end
  -- (--reextract: the results read again, not the run models saved when they were read)
  local r = proc.run({ LLMDLUA, "analyze.lua", w, "--quiet", "--reextract" }, { env = s.env, timeout = 120 })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  md = t.read(w .. "/comparison_report.md")
  find(md, "- baseline: the results do not match the benchmark config sent: run-a/benchmark/config.yaml's workload "
    .. "sanity_random asks for 1 stage (1 req/s), the results hold 7 stages (1–183.38 req/s); are they this run's")
  find(md, "- candidate: the results do not match the benchmark config sent: run-b/benchmark/config.yaml's workload "
    .. "sanity_random asks for 1 stage (1 req/s), the results hold 7 stages (1–183.38 req/s)")
  local verdict = md:match("%*%*Verdict:%*%*[^\n]*")
  find(verdict, "both runs deployed the same configuration (the plan's runs a and b have the same deploy: and "
    .. "benchmark:), so this is an A/A check")
  -- (results not known to be their configuration's: the Verdict leads with it, no run named)
  find(verdict, "**Verdict:** Cannot say which sustains more load (max sustained throughput; no SLO given): "
    .. "baseline's and candidate's results do not match the benchmark config each sent")
end)

t.test("3: a benchmark config whose stages the results hold gives no such check; one with other rates does",
  function()
  local comparison = require "llmd.comparison"
  local d = t.tmpdir()
  -- the kubecon vLLM run's 7 requested rates (its stage files' load_summary.requested_rate)
  local rates = { 1.0, 31.4, 61.79, 92.19, 122.59, 152.98, 183.38 }
  local function config(list)
    local st = {}
    for _, r in ipairs(list) do st[#st + 1] = ("{rate: %s, duration: 60}"):format(r) end
    t.write(d .. "/config.yaml", "workload:\n  ladder:\n    load: {type: poisson, stages: [" .. table.concat(st, ", ")
      .. "]}\n")
  end
  config(rates)
  local run = harness.extract(KUBECON)
  comparison.check_config_stages(run, d .. "/config.yaml", {})
  t.lacks(table.concat(run.warnings, "\n"), "do not match the benchmark config")
  t.eq(run.status, "ok")
  rates[4] = 95
  config(rates)
  comparison.check_config_stages(run, d .. "/config.yaml", {})
  find(table.concat(run.warnings, "\n"), "workload ladder asks for 7 stages (1, 31.4, 61.79, 95, 122.59, 152.98, "
    .. "183.38 req/s), the results hold 7 stages (1, 31.4, 61.79, 92.19, 122.59, 152.98, 183.38 req/s)")
  t.eq(run.status, "warnings")
end)

t.test("4: autobench compare: a failed candidate's row says its server command, which tells apart one id run "
  .. "under two configs", function()
  local d = t.tmpdir()
  local function row(status, seqs, extra)
    local r = { candidate_id = "vllm-0", framework = "vllm", status = status, model = "mock/model",
      hardware = { gpu_count = 1 }, disposition = "selected",
      server_command = "mockserver mock/model --max-model-len 100 --max-num-seqs " .. seqs,
      workload = { endpoint = "/v1/completions", input_len = 10, kind = "random", max_concurrency = 2,
        num_prompts = 3, output_len = 4, scenario = "chat" },
      sla = { max_p50_tpot_ms = 30, max_p50_ttft_ms = 5000, min_success_rate = 0.99, passed = status == "ok" } }
    for k, v in pairs(extra) do r[k] = v end
    return json.encode(r) .. "\n"
  end
  -- (the trial's rows: r1's chat success, r4's chat failure)
  t.write(d .. "/r1.jsonl", row("ok", 1, { failure_reason = "", metrics = { request_throughput = 47.96,
    output_token_throughput = 191.82, p50_ttft_ms = 22.83, p50_tpot_ms = 2.22, success_rate = 1.0 } }))
  t.write(d .. "/r4.jsonl", row("failed", 4, { failure_reason = "no request succeeded (3 failed)",
    metrics = { success_rate = 0.0 } }))
  local r = proc.run({ LLMDLUA, "autobench.lua", "compare", "r1.jsonl", "r4.jsonl" }, { cwd = d, timeout = 60 })
  t.ok(r.code == 0, r.stdout .. r.stderr)
  find(r.stdout, "| Framework | Candidate | Status | SLA | Reason | Server command |")
  find(r.stdout, "| vllm | vllm-0 | failed | False | no request succeeded (3 failed) | mockserver mock/model "
    .. "--max-model-len 100 --max-num-seqs 4 |")
end)

t.test("5: a deployed run's hardware says the GPUs are the nodes' (the pods' count unknown, as Per GPU says) and its "
  .. "gateway is the one its deploy made", function()
  local s = try_setup()
  local _, md, ws = try_compare(s)
  local st = json.read(ws .. "/run-b/run_state.json").stack
  -- the fake's node: 8 H100 by its labels; its vLLM pods ask for no nvidia.com/gpu (Per GPU N/A)
  t.eq(st.hardware, "8× NVIDIA H100 80GB HBM3 on 1 node (the nodes'; the serving pods ask for no nvidia.com/gpu or "
    .. "amd.com/gpu, so how many this run used is unknown)")
  -- the helmfile's infra release made Gateway infra-try-inference-gateway (run-b/deployed.json's gateways)
  t.eq(st.gateway, "Gateway infra-try-inference-gateway (deployed by this run, service "
    .. "infra-try-inference-gateway-istio)")
  find(md, "| Gateway | Gateway infra-try-inference-gateway (deployed by this run, service "
    .. "infra-try-inference-gateway-istio) |")
  find(md, "accelerator counts unknown")
end)
