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
  -- (its summary saved again: the same figures in other bytes, as an edited run's own; the
  -- original's bytes would be refused as the other run's file copied in, beside KUBECON)
  local sp = dir .. "/summary_lifecycle_metrics.json"
  t.write(sp, json.encode(json.read(sp), { indent = 2 }))
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
  -- (A's: its stages' drain-reduced rates pooled, 76.692 req/s, test_report's python3-derived
  -- figure, the harness's 63.461 beside it, newuser48 F2; B's no request succeeded: 0)
  find(r.md, "| Request throughput | 76.692 req/s (harness 63.461) | 0.000 req/s |")
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
  find(verdict, "both runs deployed the same configuration (the plan's runs a and b have the same deploy:, "
    .. "benchmark: and baseline:, and their info: states no difference), so this is an A/A check")
  -- (results not known to be their configuration's: the Verdict leads with it, no run named)
  -- (after the fake cluster's own first words: its runs are simulated, newuser53 #2)
  find(verdict, "**Verdict:** Simulated cluster, not a measurement (recorded results replayed; see the warning "
    .. "below): Cannot say which sustains more load (max sustained throughput; no SLO given): "
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

-- Session 38 (fixd38): audit38's findings.
-- 1. A run whose files disagree: a load point's latency statistics come from its requests in
--    the per-request file where there is one (the stage file's only checked against them, the
--    disagreement a data check), in every figure that reads them (capacity, tables, charts);
--    a figure left in doubt with no better source is said in the Verdict line itself.
-- 2. KV-cache figures from scrapes that count other traffic carry that caveat.
-- 3. vLLM's older metric names (gpu_prefix_cache_*, gpu_cache_usage_perc) are read too.
-- Expected values: tests/sim/fixd38_ref.py (numpy on the per-request files; its output lines
-- quoted beside each value) or by hand, as said.
-- (Formerly test_fixd38.lua.)
do
  local DATA = ROOT .. "/tests/data/fixd38"

  local function verdict_line(ws)
    return t.read(ws .. "/comparison_report.md"):match("%*%*Verdict:%*%* ([^\n]*)")
  end

  t.test("a stage file that disagrees with the requests decides no capacity: the per-request figures are used", function()
    -- audit38 #1: IPS's stage_1_lifecycle_metrics.json says TTFT p90 108.6 ms (set 5 % high),
    -- its requests 103.46 ms; IPS2's agree. fixd38_ref.py: "IPS stage 1: ... TTFT p90 103.4631 ms
    -- (stage file 108.6363)", "IPS2 stage 1: ... TTFT p90 104.9069 ms": with TTFT p90 <= 105 ms both
    -- meet the SLO at both loads, so neither is named higher (main: "IPS2 sustains more load ...
    -- >= 3.90 against about 3.68 req/s for IPS ... the measured loads order them")
    local ws, r = t.compare { "--a", DATA .. "/IPS", "--b", DATA .. "/IPS2", "--a-label", "IPS", "--b-label", "IPS2",
      "--slo", "ttft_p90_ms=105" }
    t.eq(r.code, 0, r.stderr)
    local cmp = json.read(ws .. "/comparison.json")
    t.eq(cmp.verdict.kind, "cannot say", cmp.verdict.text)
    t.eq(cmp.verdict.higher, nil)
    t.eq(cmp.capacity.a.kind, "never_violated")
    t.eq(cmp.capacity.b.kind, "never_violated")
    local v = verdict_line(ws)
    t.ok(v:find("^Cannot say which sustains more load"), v)
    t.ok(not v:find("IPS2 sustains more load", 1, true), v)
    -- the load point's figures: the requests' (fixd38_ref.py: TTFT p90 103.4631, p50 80.2038,
    -- p99 108.6327, E2E p90 211.3205, TPOT p90 12.5784 ms)
    local p2 = cmp.load_points.a[2].values
    t.near(p2.ttft_p90_ms, 103.4631, 1e-3)
    t.near(p2.ttft_p50_ms, 80.2038, 1e-3)
    t.near(p2.ttft_p99_ms, 108.6327, 1e-3)
    t.near(p2.latency_p90_ms, 211.3205, 1e-3)
    t.near(p2.tpot_p90_ms, 12.5784, 1e-3)
    local md = t.read(ws .. "/comparison_report.md")
    local curves = md:match("## Load Curves(.-)\n## ")
    -- (with the SLO column, newuser48 F6: 103.5 ms meets TTFT p90 <= 105)
    t.ok(curves:find("| 2 | 4/s | meets | 1 | 3.90 | 3.92 | 39.0 | N/A | 80.2 | 103.5 | 108.6 |", 1, true), curves)
    -- the chart's data too
    local dat = t.read(ws .. "/charts/latency_throughput.dat")
    t.ok(dat:find("103.46", 1, true) and not dat:find("108.63", 1, true), dat)
    -- the disagreement is a data check, which says which figure is used
    t.ok(md:find("- IPS: ttft_p90_ms: computed from per-request data 103.5 ms, stage 1's stage_1_lifecycle_metrics.json "
      .. "says 108.6 ms (4.8 % apart); the per-request figure is used", 1, true), md)
    local chk = cmp.a.checks[1]
    t.eq(chk.key, "ttft_p90_ms")
    t.eq(chk.resolved, true)
    -- and the Summary says so, not that the figures are in doubt
    local sum = md:match("## Evidence\n\n([^\n]+)")
    t.ok(sum:find("IPS's own result files disagree with each other (the harness's summaries with its per-request data: "
      .. "see Data checks); the figures they disagree on are the per-request data's here", 1, true), sum)
    t.ok(not sum:find("figures are in doubt", 1, true), sum)
    -- without an SLO (no goodput to count: the requests placed in stages after the one pass,
    -- another path), the same figures
    ws, r = t.compare { "--a", DATA .. "/IPS", "--b", DATA .. "/IPS2" }
    t.eq(r.code, 0, r.stderr)
    p2 = json.read(ws .. "/comparison.json").load_points.a[2].values
    t.near(p2.ttft_p90_ms, 103.4631, 1e-3)
    t.near(p2.tpot_p90_ms, 12.5784, 1e-3)
    t.near(p2.latency_p90_ms, 211.3205, 1e-3)
  end)

  t.test("a stage file's counts that disagree with its requests: the requests' are used, nothing is in doubt", function()
    -- IPS2's stage 1 file made to say 40 successes and no failure, where its requests hold 39
    -- and 1 failure (fixd38_ref.py: "IPS2 stage 1: ok 39 failed 1"). Since fixb39 a load point's
    -- counts are its requests' too (they were the file's, the check left unsettled, the Verdict
    -- in doubt): IPS2c's stage 1 has IPS's error rate, 1 of 40, 2.5 % (by hand), and with
    -- error_rate_pct=2 both fail at their second load; the check is settled, the Verdict line
    -- calls nothing in doubt.
    local b = t.ips2c(DATA)
    local ws, r = t.compare { "--a", DATA .. "/IPS", "--b", b, "--a-label", "IPS", "--b-label", "IPS2c",
      "--slo", "ttft_p90_ms=200,error_rate_pct=2" }
    t.eq(r.code, 0, r.stderr)
    local cmp = json.read(ws .. "/comparison.json")
    local v = verdict_line(ws)
    t.eq(cmp.verdict.higher, nil, v)
    t.ok(not v:find("own files disagree", 1, true), v)
    t.eq(cmp.verdict.in_doubt, nil)
    t.near(cmp.load_points.b[2].values.error_rate_pct, 2.5, 1e-9)
    t.near(cmp.load_points.b[2].values.requests_ok, 39, 0)
    local md = t.read(ws .. "/comparison_report.md")
    t.ok(md:find("IPS2c: requests_failed: computed from per-request data 1, stage 1's stage_1_lifecycle_metrics.json "
      .. "says 0 (100.0 % apart); the per-request figure is used", 1, true), md)
  end)
end

-- fixe41: findings of the new-user trial of session 41. Expected values by hand, as written
-- beside each.
-- (Formerly test_fixe41.lua.)
do

  -- The README's fake-cluster try/ setup (tests/fakecluster): a guide, the one-stage
  -- sanity_random template, the plan of two identical runs; {dir, env}. context: the
  -- FAKE_CONTEXT to give (nil: unset, the fake's default).
  local CHUNKED = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

  -- Results that do not match the benchmark config their run sent (comparison.check_config_stages)
  -- are not known to be that configuration's: the Verdict leads with it and names no run,
  -- comparison.json and comparison.csv agreeing. The kubecon pair: B (the chunked run) sustains
  -- 169.43 req/s against A's 92.21 (the README's demo Verdict), so B is named without the check;
  -- a config.yaml asking 1 stage of 1 req/s against B's 7 stages makes it mismatch.
  t.test("results that do not match their benchmark config: the Verdict leads with it and names no winner", function()
    local w, r = t.compare { "--a", KUBECON, "--b", CHUNKED }
    t.eq(r.code, 0, r.stderr)
    local md = t.read(w .. "/comparison_report.md")
    t.ok(md:find("**Verdict:** kubecon-na-2025_vllm_chunking_and_prefix_caching sustains more load", 1, true),
      md:sub(1, 800))
    t.mkdir(w .. "/run-b/benchmark")
    t.write(w .. "/run-b/benchmark/config.yaml", "workload:\n  sanity_random:\n"
      .. "    load: {type: constant, stages: [{rate: 1, duration: 30}]}\n")
    r = proc.run { LLMDLUA, "analyze.lua", w, "--reextract", "--quiet" }
    t.eq(r.code, 0, r.stderr)
    md = t.read(w .. "/comparison_report.md")
    local verdict = md:match("%*%*Verdict:%*%*[^\n]*")
    t.ok(verdict:find("**Verdict:** Cannot say which sustains more load (max sustained throughput; no SLO given): "
      .. "kubecon-na-2025_vllm_chunking_and_prefix_caching's results do not match the benchmark config it sent", 1,
      true), verdict)
    t.ok(not verdict:find("sustains more load:", 1, true), verdict)
    t.ok(md:find("\n\nWarning: kubecon-na-2025_vllm_chunking_and_prefix_caching's results do not match the benchmark "
      .. "config it sent", 1, true), "the Summary opens with it")
    local cj = json.read(w .. "/comparison.json")
    t.eq(cj.verdict.kind, "cannot say")
    t.eq(cj.verdict.higher, nil)
    local csv = t.read(w .. "/comparison.csv")
    local order = t.csv_row(csv, "max_sustained_rps")
    t.eq(order[18], "not_compared") -- (the order column; delta_lo, delta_hi after it: newuser48 F5)
  end)
end

-- Session 38 (fixf38): follow-ups of this session's fixes.
-- 1. treatments.lua (and experiment.lua's comparison, through llmd.treatments.write_outputs)
--    leave out a chart gnuplot fails to draw, as compare.lua does: the report written, saying
--    why, that chart's older picture removed, exit 1 (they wrote no report at all).
-- 2. A place in the treatments' ranking whose figure its own files leave in doubt (a run's
--    files disagree, nothing settles which is right) says so beside its rank, in the Verdict
--    and in treatments.json, as compare.lua's Verdict does (verdict.in_doubt).
-- 3. KV: the time-averaged hit rate from scrapes that count other traffic carries the caveat
--    the totals carry.
-- Expected values by construction or from the fixtures' files (python3 json), as said.
-- (Formerly test_fixf38.lua.)
do
  local DATA = ROOT .. "/tests/data/fixd38"
  local lacks = t.lacks

  -- IPS2's stage 1 file made to say 40 successes and no failure, where its requests hold 39
  -- and 1 failure (tests/sim/fixd38_ref.py: "IPS2 stage 1: ok 39 failed 1"). It was the in-doubt
  -- input (the stage kept the file's counts, nothing settling which was right); since fixb39 a
  -- load point's counts are its requests' (fixb39 (test_harness.lua)), so the disagreement is settled and no
  -- place is in doubt. IPS's own disagreement (TTFT p90, its stage file 5 % high) is settled too.
  local function ips2c() return t.ips2c(DATA) end

  t.test("treatments: a place whose files disagree on a count the requests settle is not in doubt", function()
    local out = t.tmpdir() .. "/out"
    -- with error_rate_pct=2, IPS and IPS2c (1 of 40 failed at 4 req/s by their requests: 2.5 %)
    -- both fail at their second load
    local r = proc.run { LLMDLUA, "treatments.lua", "--run", "IPS=" .. DATA .. "/IPS", "--run", "IPS2c=" .. ips2c(),
      "--slo", "ttft_p90_ms=200,error_rate_pct=2", "--out", out, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local md = t.read(out .. "/treatment_report.md")
    local verdict = md:match("%*%*Verdict:%*%* ([^\n]*)")
    t.ok(verdict:find("^No treatment is shown to be best"), verdict)
    lacks(md, "in doubt")
    local doc = json.read(out .. "/treatments.json")
    t.eq(#doc.in_doubt, 0)
    for _, x in ipairs(doc.ranking) do t.eq(x.in_doubt, nil, x.label) end
  end)

  t.test("treatments: no figure in doubt where the per-request data settle the disagreement; no SLO reads counts too",
    function()
      local tr = require "llmd.treatments"
      -- IPS and IPS2 as they are: IPS's TTFT disagreement is settled (the requests' figure used)
      local m = tr.model(tr.load { { label = "IPS", dirs = { DATA .. "/IPS" } }, { label = "IPS2", dirs = { DATA .. "/IPS2" } } },
        { slo = require("llmd.decision").parse_slo("ttft_p90_ms=105") })
      t.eq(#m.in_doubt, 0)
      lacks(m.verdict, "in doubt")
      for _, r in ipairs(m.ranking) do t.eq(r.in_doubt, nil, r.label) end
      -- without an SLO the ranking reads the max sustained throughput, which the counts decide
      -- too (the error-rate limit): IPS2c's counts are settled by its requests as well
      m = tr.model(tr.load { { label = "IPS", dirs = { DATA .. "/IPS" } }, { label = "IPS2c", dirs = { ips2c() } } })
      t.eq(#m.in_doubt, 0)
      lacks(m.verdict_line, "in doubt")
    end)
end

-- Session 41 (fixg41): a new user's findings on data checks and texts.
-- (2. below: a run and its benchmark reports; 3. and 4.: README's simulated pair.)
-- 1. A vLLM file whose request_throughput disagrees with its own completed / duration (vLLM
--    writes the one as the other) is a data check naming both figures and the one used
--    (completed / duration, the figures its saturation is judged by), and the throughput the
--    report shows is that one, so that the max sustained text ("kept up") matches it.
-- Expected values: /usr/bin/python3 on the fixture files, as said beside each.
-- (Formerly test_fixg41.lua.)
do
  local report = require "llmd.report"
  local decision = require "llmd.decision"
  local SAT = ROOT .. "/tests/fixtures/saturating-repeats"

  local function sd(label, dir)
    return { label = label, state = { label = label }, run = harness.extract(dir, {}), kv = {} }
  end

  t.test("a vLLM file's request_throughput against its own completed / duration is a data check", function()
    local run = harness.extract(SAT .. "/x", {})
    -- python3: completed / duration of the three files, 250 / 47.003815454023425 = 5.318717163387223,
    -- 5.363343661860013, 5.310017487097344; request_throughput 4.946406961950117 (7.0 % below)
    local want = { 5.318717163387223, 5.363343661860013, 5.310017487097344 }
    for i, st in ipairs(run.stages) do
      t.near(st.achieved_rate, want[i], 1e-9, "stage " .. i)
    end
    local req, tok = {}, {}
    for _, c in ipairs(run.checks) do
      if c.key == "throughput_req_s" then req[#req + 1] = c end
      if c.key == "throughput_tok_s" then tok[#tok + 1] = c end
    end
    t.eq({ #req, #tok }, { 3, 3 })
    t.near(req[1].reported, 4.946406961950117, 1e-12)
    t.near(req[1].computed, 5.318717163387223, 1e-9)
    t.near(req[1].apart_pct, 7.0, 1e-6)
    -- (either figure may be the altered one: the verdicts that read it say it is in doubt)
    t.eq(req[1].resolved, false)
    t.contains(req[1].text, "benchmark_2025-05-13_05-00-45.json: request_throughput is 4.946 req/s, but completed / "
      .. "duration = 250 / 47.00 s = 5.319 req/s (7.0 % apart)")
    t.contains(req[1].text, "the report uses completed / duration")
    -- python3: total_output_tokens / duration = 50000 / 47.003815454023425 = 1063.7434326774446
    t.near(tok[1].computed, 1063.7434326774446, 1e-6)
    t.eq(run.status, "warnings")
  end)

  t.test("the max sustained text and figure of a file that disagrees with itself read the same rate", function()
    local m = report.build { a = sd("x", SAT .. "/x"), b = sd("y", SAT .. "/y"),
      slo = decision.parse_slo("ttft_p99_ms=2000,error_rate_pct=1"), generated = 0 }
    -- python3: the means of completed / duration, x 5.3306927707815275, y 5.345922454848432 req/s
    -- (96.9 % and 97.2 % of the 5.5 offered: kept up, as the text says)
    local row = t.headline_row(m, "Max sustained throughput")
    t.contains(row.a_text, "5.33 req/s")
    t.contains(row.b_text, "5.35 req/s")
    local text = m.saturation.a.reason or ""
    -- (it said the achieved rate "was below 95 % of the offered at load point 1 (90.1 %)" beside "kept up")
    t.lacks(text, "90.1 %")
    t.contains(text, "kept up")
    -- (the Data checks said "No data check could run")
    t.contains(table.concat(m.a.warnings, "\n"), "request_throughput is 4.946 req/s")
  end)

  -- 2. extract.lua --br of inference-perf's stage files keeps request_latency's min (the
  --    drain-reduced rate needs it), and such reports compared with their results are the same
  --    results, read two ways.
  local VLLM = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"

  t.test("compare.lua warns that a run and its benchmark reports hold the same results, read two ways", function()
    local dir = t.tmpdir() .. "/br1"
    require("llmd.br").write(dir, harness.extract(VLLM, {}), { version = "0.2" })
    local r = t.compare_ab(VLLM, dir)
    -- (main said nothing: stage 4's output tok/s differed in a double's last bit)
    t.contains(r.md, "hold the same results (the files differ, but every figure their harness recorded at every load "
      .. "point is equal to the last digit: the same requests, saved twice), read two ways")
    t.contains(r.md, "br1's the drain-reduced rate from latency statistics alone")
    -- the rate at the highest load both sustained is the same, 92.21 req/s (python3, above)
    t.contains(r.md, "(92.21 req/s achieved by both)")
  end)

  -- 3. and 4.: README's simulated pair of one server, queue_sim.py --slots 24, seeds 12 and 14
  -- (an A/A pair): their max sustained throughputs are 11.4794 and 11.4765 req/s, both "11.48".
  local sims
  local function sim_pair()
    if sims then return sims end
    local base = t.tmpdir()
    for _, x in ipairs { { "sim-b", 12 }, { "sim-b2", 14 } } do
      t.data_py("queue_sim.py", base .. "/" .. x[1], "--rates", "6,8,10,11,12,13", "--slots", 24, "--seed", x[2])
    end
    sims = { sd("sim-b", base .. "/sim-b"), sd("sim-b2", base .. "/sim-b2") }
    return sims
  end

  if not t.have_numpy() then
    t.test("queue_sim.py pairs (skipped: no numpy for queue_sim.py)", function() end)
  else

    t.test("one run put above another by figures that read the same shows the decimals that tell them apart", function()
      local p = sim_pair()
      local m = report.build { a = p[1], b = p[2], generated = 0 }
      local row = t.headline_row(m, "Max sustained throughput")
      for _, text in ipairs { row.evidence, m.verdict.text } do
        local hi, x, lo, y = text:match("the measured loads put ([%w%-]+) above %(%1 sustained ([%d.,]+) req/s, "
          .. "([%w%-]+) never achieved more than ([%d.,]+) req/s")
        t.ok(hi and lo, text)
        -- (it read "sim-b sustained 11.48 req/s, sim-b2 never achieved more than 11.48 req/s")
        t.ok(x ~= y and tonumber(x) > tonumber(y), ("%s above %s: %s against %s"):format(hi, lo, x, y))
      end
    end)

    t.test("a capacity cell widened by each load's own 95 % interval is not called 'no interval' beside it", function()
      local p = sim_pair()
      local m = report.build { a = p[1], b = p[2], slo = decision.parse_slo("ttft_p90_ms=500"), generated = 0 }
      local row = t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 500.0 ms and Error rate ≤ 5 % by default)")
      t.contains(row.a_text, "with each load's 95 % interval")
      t.lacks(row.evidence, "no interval")
      t.contains(row.evidence, "one run per load, no repeats (the spans beside the figures are from each load's own "
        .. "95 % interval)")
    end)
  end
end

-- Session 50 (fixl50): newuser50's plan2, a plain-vLLM run (baseline: true, through the
-- baseline Service) against the same deploy through the gateway, each with
-- info: {gpus: 2, stack: {hardware: H100}}.
-- F2: the plan's nested stack: {hardware: H100} was dropped without a word (an --a-info file
--     nests it so; cluster.lua copied the plan's info flat).
-- F1: it was called an A/A check ("the same deploy: and benchmark:"), baseline: unread.
-- F8: with info gpus: 2 and the nodes' hardware, the Hardware row said "how many this run
--     used is unknown" beside GPUs 2 and per-GPU rows divided by 2.
-- Expected values: the plan's own words (what it states), nothing computed.
do
  local function plan(s, a_extra, a_info, b_info, b_extra)
    local run = "    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: Qwen/Qwen3-0.6B}\n"
      .. "    benchmark: {template: template.yaml, harness: inference-perf}\n"
    t.write(s.dir .. "/plan.yaml", "namespace: llm-d-try\ntimeouts: {poll: 0.05, backoff: 0.01}\nruns:\n"
      .. "  a:\n    label: vllm-plain\n" .. a_extra .. run .. "    info: " .. a_info .. "\n"
      .. "  b:\n    label: scheduler\n" .. (b_extra or "") .. run .. "    info: " .. b_info .. "\n")
  end
  local ONE = "endpoint:\n  stack_name: try\n  model: ${MODEL}\n  namespace: ${NAMESPACE}\n  base_url: http://${IP}\n"
    .. "harness:\n  name: inference-perf\n  results_pvc: ${BENCHMARK_PVC}\n  namespace: ${NAMESPACE}\n"
    .. "workload:\n  sanity_random:\n    load: {type: constant, stages: [{rate: 1, duration: 30}]}\n"
  local H = "{gpus: 2, stack: {hardware: H100}}"
  local function setup()
    local s = t.try_setup()
    s.env.PATH = ROOT .. ":" .. s.env.PATH
    t.write(s.dir .. "/template.yaml", ONE)
    return s
  end

  t.test("fixl50 F2: a plan's info: {stack: {hardware: H100}} is the hardware, as --a-info reads it (and as the "
    .. "flat hardware: H100 is)", function()
    local s = setup()
    plan(s, "", H, "{gpus: 2, hardware: H100}")
    local _, md, w = try_compare(s)
    for _, x in ipairs { "a", "b" } do
      local st = json.read(w .. "/run-" .. x .. "/run_state.json").stack
      t.eq({ st.hardware, st.gpus }, { "H100", "2" }, x)
    end
    find(md, "| Hardware | H100 | H100 |")
  end)

  t.test("fixl50 F1: a baseline: true run against the gateway is no A/A check; info: stating another "
    .. "configuration is none either", function()
    local s = setup()
    plan(s, "    baseline: true\n", H, H)
    local _, md, w = try_compare(s)
    t.lacks(md, "A/A check")
    -- the Configuration Summary says what differs: the endpoint
    find(md, "none (baseline Service)")
    -- the same workspace's plan, other ways (analyze.lua reads workspace/plan.yaml again):
    local function verdict_with(a_extra, a_info, b_info, b_extra)
      plan({ dir = w }, a_extra, a_info, b_info, b_extra)
      local r = proc.run({ LLMDLUA, "analyze.lua", w, "--quiet" }, { env = s.env, timeout = 120 })
      t.eq(r.code, 0, r.stdout .. r.stderr)
      return t.read(w .. "/comparison_report.md"):match("%*%*Verdict:%*%*[^\n]*")
    end
    -- both through the gateway, one info nested and the other flat (the same statement): A/A
    find(verdict_with("", H, "{gpus: 2, hardware: H100}"), "both runs deployed the same configuration (the plan's "
      .. "runs a and b have the same deploy:, benchmark: and baseline:, and their info: states no difference), so "
      .. "this is an A/A check")
    -- both baseline runs: A/A too
    find(verdict_with("    baseline: true\n", H, H, "    baseline: true\n"), "so this is an A/A check")
    -- info stating other hardware, or another extra row: a configuration's difference, no A/A
    t.lacks(verdict_with("", H, "{gpus: 2, stack: {hardware: A100}}"), "A/A check")
    t.lacks(verdict_with("", "{stack: {replicas: 2}}", "{stack: {replicas: 4}}"), "A/A check")
    -- SLOs alone are no configuration: still A/A
    find(verdict_with("", "{slo: {ttft_p90_ms: 200}}", "{slo: {ttft_p90_ms: 300}}"), "so this is an A/A check")
  end)

  t.test("fixl50 F8: the nodes' hardware with the plan's info gpus: the Hardware row says the stated count the "
    .. "per-GPU figures use", function()
    local s = setup()
    plan(s, "", "{gpus: 2}", "{stack: {gpus: 2}}")
    local _, md, w = try_compare(s)
    local HW = "8× NVIDIA H100 80GB HBM3 on 1 node (the nodes'; the serving pods ask for no nvidia.com/gpu or "
      .. "amd.com/gpu; the plan's info states 2 GPUs, which the per-GPU figures use)"
    for _, x in ipairs { "a", "b" } do
      local st = json.read(w .. "/run-" .. x .. "/run_state.json").stack
      t.eq({ st.hardware, st.gpus }, { HW, "2" }, x)
    end
    find(md, "| Hardware | " .. HW .. " | " .. HW .. " |")
    find(md, "| GPUs | 2 | 2 |")
    t.lacks(md, "how many this run used is unknown")
  end)
end
