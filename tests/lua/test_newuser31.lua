-- What a new user found in session 31 (a fresh clone, README only), compare.lua's side:
-- the GPU caveat beside every latency verdict, the total max sustained row's evidence by the
-- per-GPU row's rule, the banner of runs that differ only in their load ladders, identical
-- runs through every path, an SLO in the wrong unit, the cross-harness texts, --br's
-- percentiles, a sweep of two workloads in one folder, and the errors of --resume/--harness.
--
-- Expected values: /usr/bin/python3 (numpy) on the fixture files, each computation in a
-- comment beside its test; texts by hand from the numbers.
local t = require "testlib"
local json = require "llmd.json"
local report = require "llmd.report"
local decision = require "llmd.decision"
local harness = require "llmd.harness"

local F = t.fixtures()
local EXP7 = F .. "/vllm-benchmark/exp-7_H100"
local HERE = t.here()
local FX = HERE .. "/../fixtures"
local BASE = FX .. "/kubecon-na-2025_vllm"
local TREAT = FX .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching"

local function sd(label, dir, gpus)
  return { label = label, state = { label = label, stack = { gpus = gpus } }, run = harness.extract(dir, {}),
    kv = {} }
end

local find = t.contains

t.test("nu31-1: the GPU caveat stands beside 'no clear difference' too, at the matched load and whole-run", function()
  -- python3 on the exp-7 files: p95_ttft_ms of vllm-2replicas 257.049, 255.480, 256.798 (mean
  -- 256.442); llm-d-1p1d 261.136, 266.307, 260.161 (mean 262.535). 1 GPU against 2: B carried
  -- 1/2 = 0.50x the load per GPU that A did (by hand)
  local m = report.build { a = sd("vllm-2replicas", EXP7 .. "/vllm-2replicas", 1),
    b = sd("llm-d-1p1d", EXP7 .. "/llm-d-1p1d", 2), slo = decision.parse_slo("ttft_p95_ms=262"), generated = 0 }
  local caveat = "at equal total load, not equal load per GPU: llm-d-1p1d, on 2 GPUs, carried 0.50x the load per "
    .. "GPU that vllm-2replicas carried on 1 GPU, so they do not show it is better per GPU."
  local at = m.summary:match("TTFT p95 is 256%.4 ms for vllm%-2replicas and 262%.5 ms for llm%-d%-1p1d %(no clear "
    .. "difference[^)]*%)%.(.-)No clear difference")
  t.ok(at, m.summary)
  find(at, " Those latencies are " .. caveat, "matched load")
  local whole = m.summary:match("No clear difference in the whole%-run metrics tested.-%.(.-)No request failed")
  t.ok(whole, m.summary)
  find(whole, " These whole-run latencies and rates are " .. caveat, "whole run")
  -- the same GPU count: no caveat anywhere
  m = report.build { a = sd("vllm-2replicas", EXP7 .. "/vllm-2replicas", 2),
    b = sd("llm-d-1p1d", EXP7 .. "/llm-d-1p1d", 2), slo = decision.parse_slo("ttft_p95_ms=262"), generated = 0 }
  t.ok(not m.summary:find("equal total load", 1, true), m.summary)
end)

t.test("nu31-2: the total max sustained row says the measured loads order them, as the per-GPU row does", function()
  -- the demo pair. python3 on stage_N_lifecycle_metrics.json, successes.throughput.requests_per_sec
  -- against load_summary.requested_rate: vllm 91.357 of 92.19 (99.1 %), then 101.232 of 122.59
  -- (82.6 %, below 95 %: saturated), at most 103.078 at any stage; chunked 167.784 of 169.99
  -- (98.7 %), then 170.208 of 212.24 (80.2 %). Ranked at the drain-reduced rate, completed /
  -- (window - least latency) (python3, _drain): 169.43 > 104.24: whatever lies between the
  -- loads, chunked's limit is the higher
  local m = report.build { a = sd("vllm", BASE), b = sd("chunked", TREAT), slo = decision.parse_slo("ttft_p90_ms=200"),
    generated = 0 }
  local row = t.headline_row(m, "Max sustained throughput")
  t.eq(row.evidence, "one run per load, no interval: untested, but the measured loads order them: chunked sustained "
    .. "169.43 req/s, vllm never achieved more than 104.24 req/s at any load")
  -- spans that overlap (exp-7, both never saturated: from their figures up): said, not ordered;
  -- 3.48 and 3.49 req/s are the means of request_throughput (python3 above: 3.48487, 3.48523)
  m = report.build { a = sd("x", EXP7 .. "/vllm-2replicas"), b = sd("y", EXP7 .. "/llm-d-1p1d"), generated = 0 }
  t.eq(t.headline_row(m, "Max sustained throughput").evidence, "means of the repeats at each load point, untested; "
    .. "the measured loads cannot order them: x ≥ 3.48 req/s, y ≥ 3.49 req/s")
end)

t.test("nu31-3: runs whose requests match and whose load ladders differ: the banner says the ladder, not the workload",
  function()
  -- python3 on the demo pair's stage files: input tokens per request (successes.prompt_len.mean,
  -- weighted by successes.count over the 7 stages) 204.1 (vllm) and 203.1 (chunked), output
  -- (output_len.mean) 62.37 and 62.42: within 5 % of each other; the offered rates (load_summary.requested_rate)
  -- differ from stage 1 on (31.4 vs 43.25 req/s)
  local w, r = t.compare { "--a", BASE, "--a-label", "vllm", "--b", TREAT, "--b-label", "chunked" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(w .. "/comparison_report.md")
  find(md, "> **The same workload (the same requests), on different load ladders.** The whole-run rows below pool "
    .. "different loads", "banner")
  t.ok(not md:find("Not the same workload", 1, true), md)
  find(t.read(w .. "/comparison_report.html"), "<strong>The same workload (the same requests), on different load "
    .. "ladders.</strong>", "html")
  -- requests that differ (exp-7: 1599800 / 200 = 7999 input tokens per request against
  -- 2499750 / 250 = 9999, python3 on total_input_tokens / completed) stay another workload
  local m = report.build { a = sd("x", EXP7 .. "/vllm-2replicas"), b = sd("y", EXP7 .. "/vllm-3replicas"),
    generated = 0 }
  t.eq(m.workload_title, "Not the same workload.")
end)

t.test("nu31-4: identical runs are flagged through --plan, --resume and analyze.lua, as through --a/--b", function()
  -- the fake cluster's benchmark copies the same fixture folder for both runs (FAKE_RESULTS
  -- BASE twice): every figure of every stage equal, so the report must say it compares one run
  -- with itself, whichever path wrote it (the plan of README's "Trying the workflow")
  local proc = require "llmd.proc"
  local root = proc.run({ "realpath", HERE .. "/../.." }).stdout:gsub("%s+$", "")
  local s = t.try_setup { timeouts = "{poll: 0.05}", env = { FAKE_RESULTS = root .. "/tests/fixtures/kubecon-na-2025_vllm:"
    .. root .. "/tests/fixtures/kubecon-na-2025_vllm", FAKE_FAIL_ONCE = "smoke", FAKE_CONTEXT = "kind-try" } }
  local d, env = s.dir, s.env
  local function llmdlua(args)
    local argv = { root .. "/llmdlua" }
    for _, a in ipairs(args) do argv[#argv + 1] = a end
    return proc.run(argv, { env = env, cwd = d, timeout = 120 })
  end
  local r = llmdlua { "compare.lua", "--plan", "plan.yaml", "--yes", "--quiet" }
  t.eq(r.code, 1, r.stdout .. r.stderr) -- run A's smoke test failed once
  local w = t.workspaces(d)[1]
  env.FAKE_FAIL_ONCE = false
  r = llmdlua { "compare.lua", "--resume", w, "--yes", "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  find(r.stderr, "compare.lua: warning: ", "--resume")
  find(r.stderr, "hold the same results", "--resume")
  local cj = json.read(w .. "/comparison.json")
  t.ok(type(cj.identical) == "string" and cj.identical:find("(baseline)", 1, true), tostring(cj.identical))
  find(t.read(w .. "/comparison_report.md"), "> **Warning:** " .. cj.identical, "report")
  -- analyze.lua re-generating the report runs the same check
  r = llmdlua { "analyze.lua", w, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  find(r.stderr, "analyze.lua: warning: ", "analyze.lua")
  t.eq(json.read(w .. "/comparison.json").identical, cj.identical)
  -- two different runs through the plan (a fresh fake cluster: its n-th benchmark copies
  -- the n-th folder): nothing said
  t.mkdir(d .. "/cluster2")
  env.FAKE_CLUSTER = d .. "/cluster2"
  env.FAKE_RESULTS = root .. "/tests/fixtures/kubecon-na-2025_vllm:" .. root
    .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"
  r = llmdlua { "compare.lua", "--plan", "plan.yaml", "--yes", "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(not r.stderr:find("warning", 1, true), r.stderr)
  t.eq(json.read(t.workspaces(d)[2] .. "/comparison.json").identical, false)
end)

t.test("nu31-5: an SLO limit more than 10x below every measured value of its metric is said: is it in ms?", function()
  -- python3 on the demo pair's stage files, successes.latency.time_to_first_token.p90 x 1000:
  -- vllm 35.41, 35.61, 44.51, 64.36, 3175.7, 3270.8, 3314.1 ms; chunked 34.44, 31.20 (stage 1),
  -- 33.19, 37.25, 226.5, 1858.6, 1899.3 ms: the lowest is 31.20 ms, and 0.2 x 10 = 2 < 31.2
  local w, r = t.compare { "--a", BASE, "--a-label", "vllm", "--b", TREAT, "--b-label", "chunked",
    "--slo", "ttft_p90_ms=0.2" }
  t.eq(r.code, 0, r.stderr)
  local text = "--slo ttft_p90_ms=0.2: below every measured TTFT p90 of both runs (lowest 31.2 ms, chunked, stage 1), "
    .. "more than 10x below it: is it in ms? The limit is read in the metric's unit (ms), so no load can meet it"
  find(r.stderr, "compare.lua: warning: " .. text .. "\n", "stderr")
  local md = t.read(w .. "/comparison_report.md")
  find(md:match("## Data checks(.-)## Failed") or "", "\n- " .. text .. ".\n", "Data checks")
  find(t.read(w .. "/comparison_report.html"), "<li>" .. text:gsub("'", "&#39;") .. ".</li>", "html")
  t.eq(json.read(w .. "/comparison.json").slo_checks, { text })
  -- 3 ms is 10.4x below 31.2 ms: said; 4 ms (7.8x) and the demo's 200 ms are not
  local function checks(spec)
    return report.build { a = sd("vllm", BASE), b = sd("chunked", TREAT), slo = decision.parse_slo(spec),
      generated = 0 }.slo_checks
  end
  t.eq(#checks("ttft_p90_ms=3"), 1)
  t.eq(checks("ttft_p90_ms=4,error_rate_pct=0"), {})
  t.eq(checks("ttft_p90_ms=200"), {})
end)

t.test("nu31-6: a benchmark report of one harness against that harness: its figures compared, no '?', each metric once",
  function()
  local br = require "llmd.br"
  local dir = t.tmpdir() .. "/brout"
  br.write(dir, harness.extract(EXP7 .. "/llm-d-1p1d", {}), { version = "0.2" })
  local m = report.build { a = sd("llm-d-1p1d", EXP7 .. "/llm-d-1p1d"), b = sd("brout", dir), generated = 0 }
  local note = m.harness_note
  t.ok(not note:find("?", 1, true), note)
  local _, n = note:gsub("TTFT", "")
  t.eq(n, 1, note)
  local row
  for _, r in ipairs(m.perf) do if r.key == "ttft_mean_ms" then row = r end end
  -- python3: mean_ttft_ms of the three files 249.540, 255.904, 250.207 ms, mean 251.884 on both
  -- sides (the report carries vLLM's own figures): compared, not "not comparable"
  t.near(row.a, 251.884, 1e-3)
  t.eq(row.b, row.a)
  t.ok(row.verdict ~= "not comparable", row.verdict .. " " .. tostring(row.note))
  -- two harnesses whose formulas differ: each metric named once, no "?" for a source the
  -- whole run lacks (vLLM's percentiles exist per file only)
  m = report.build { a = sd("v", EXP7 .. "/llm-d-1p1d"), b = sd("ip", BASE), generated = 0 }
  note = m.harness_note
  t.ok(not note:find("?", 1, true), note)
  _, n = note:gsub("TTFT %(", "")
  t.eq(n, 1, note)
  find(note, "TTFT (formula may differ: v from vllm-benchmark's harness summary (measured stages combined)", "note")
  -- a stage whose load is unknown (neither a rate nor a concurrency) is said so, not "?"
  t.eq(report.stages_read { stages = { { index = 0, rate = 2 }, { index = 1 } } }, "2 stages: 2/s, load unknown")
end)

t.test("nu31-7: --br writes every percentile the run has (vLLM's p95, p99.9 as p99p9), and reading it back keeps them",
  function()
  local br = require "llmd.br"
  local dir = t.tmpdir() .. "/brout"
  local run = harness.extract(EXP7 .. "/llm-d-1p1d", {})
  local list = br.write(dir, run, { version = "0.2" })
  -- python3 on benchmark_2025-05-13_04-37-51.json (the first file, stage 0): p95_ttft_ms
  -- 261.13618802046403, p99_ttft_ms 267.2010898106964 and no p90 key (the run's --metric-percentiles)
  local text = t.read(list[1].path)
  local ttft = text:match("time_to_first_token:\n(.-)\n      [%a_]+:") or text
  find(ttft, "p95: 261.13618802046403", "p95 written")
  t.ok(not ttft:find("p90:", 1, true), ttft)
  local back = harness.extract(dir, {})
  t.eq(back.stages[1].metrics.values.ttft_p95_ms, 261.13618802046403)
  t.eq(back.stages[1].metrics.values.itl_p95_ms, run.stages[1].metrics.values.itl_p95_ms)
  -- p99.9 (a synthetic set): written under the schema's name p99p9
  local one = br.build({ harness = "vllm-benchmark", dir = "x", stages = { { index = 0, file = "f.json",
    metrics = { values = { requests_ok = 1, requests_failed = 0, ttft_mean_ms = 5, ttft_p999_ms = 9 }, na = {} } } } },
    {})[1]
  find(require("llmd.yamlout").dump(one.doc), "p99p9: 9", "p99p9")
end)

t.test("nu31-8: one folder of two workloads: a data check and a banner, and no capacity interpolated across them",
  function()
  -- vllm-2replicas' files (3.6 req/s, total_input_tokens / completed = 1599800 / 200 = 7999.0,
  -- total_output_tokens 40000 / 200 = 200.0) beside vllm-3replicas' (5.5 req/s, 2499750 / 250 =
  -- 9999.0 and 25000 / 250 = 100.0): python3 on the files; 9999 is 25 % above 7999 (> 5 %)
  local dir = t.tmpdir() .. "/mixed"
  for _, c in ipairs { "vllm-2replicas", "vllm-3replicas" } do
    for f in require("lfs").dir(EXP7 .. "/" .. c) do
      if f:match("%.json$") then t.copy(EXP7 .. "/" .. c .. "/" .. f, dir .. "/" .. f) end
    end
  end
  local w, r = t.compare { "--a", dir, "--b", EXP7 .. "/llm-d-1p1d", "--slo", "ttft_p95_ms=300" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(w .. "/comparison_report.md")
  find(md, "> **Two workloads in one run.** In mixed, load points of one run sent different requests", "banner")
  find(md, "\n- mixed: load points of different requests (token lengths beyond the workload match's 5 %): point 1 "
    .. "(3.6 req/s offered, 3 repeats): 7999.0 input and 200.0 output tokens per request; point 2 (5.5 req/s offered, "
    .. "3 repeats): 9999.0 input and 100.0 output tokens per request; one folder holding two workloads?", "Data checks")
  local cj = json.read(w .. "/comparison.json")
  t.eq(cj.capacity.a.kind, "unknown")
  t.eq(cj.capacity.a.reason, "mixed's load points sent different requests (see the Data checks), so a capacity "
    .. "between them would mix two workloads")
  t.eq(cj.mixed_requests, { "mixed" })
  -- one workload's repeats (llm-d-1p1d alone): nothing said, its capacity read as before
  t.ok(cj.capacity.b.kind ~= "unknown", cj.capacity.b.kind)
  -- the same rule as the workload match (5 %): 2 % longer prompts at the second point are one workload
  local function run(i2)
    return t.run_of { { rate = 1, values = { requests_ok = 100, input_tokens_total = 100000, output_tokens_total = 10000,
      throughput_req_s = 1 } }, { rate = 2, values = { requests_ok = 100, input_tokens_total = i2,
      output_tokens_total = 10000, throughput_req_s = 2 } } }
  end
  local near = run(102000)
  near.warnings = {}
  decision.check_request_shapes(near)
  t.eq(near.warnings, {})
  local far = run(106000)
  far.warnings = {}
  decision.check_request_shapes(far)
  t.eq(#far.warnings, 1)
  -- a handful of requests per point (guidellm's fixture: 2 each, 71.5 and 65.5 prompt tokens
  -- by guidellm's own means) says little of the mean: not flagged
  local few = harness.extract(F .. "/guidellm", {})
  for _, w8 in ipairs(few.warnings) do t.ok(not w8:find("different requests", 1, true), w8) end
end)

t.test("nu31-9: --resume of a folder that is not a --plan workspace, a wrong --harness, two harnesses: one clear line",
  function()
  local proc = require "llmd.proc"
  local LL = HERE .. "/../../llmdlua"
  -- a compare.lua --a/--b workspace: nothing to resume, analyze.lua re-generates it
  local w = t.compare { "--a", BASE, "--b", TREAT }
  local r = proc.run { LL, "compare.lua", "--resume", w, "--yes" }
  t.eq(r.code, 2, r.stderr)
  t.eq(r.stderr, ("compare.lua: --resume %s: not a --plan workspace (no steps.json: it compares two existing runs, "
    .. "nothing to resume; llmdlua analyze.lua %s re-generates its report)\n"):format(w, w))
  local gone = t.tmpdir() .. "/nothing-here"
  r = proc.run { LL, "compare.lua", "--resume", gone, "--yes" }
  t.eq(r.code, 2, r.stderr)
  t.eq(r.stderr, ("compare.lua: --resume %s: no such folder (expected the workspace of a compare.lua --plan run)\n")
    :format(gone))
  -- --harness naming a harness the folder does not hold: what it holds, and for two harnesses
  -- the per-run options (the demo's folder is inference-perf's, exp-7's vLLM's)
  local parent = t.tmpdir()
  r = proc.run { LL, "compare.lua", "--a", BASE, "--b", EXP7 .. "/llm-d-1p1d", "--harness", "inference-perf",
    "--parent", parent }
  t.eq(r.code, 1, r.stderr)
  local first = r.stderr:match("^[^\n]*")
  find(first, ("--b %s: no inference-perf results under %s"):format(EXP7 .. "/llm-d-1p1d", EXP7 .. "/llm-d-1p1d"))
  find(first, ": it holds vllm-benchmark results (leave --harness out to read them as such); to compare runs of two "
    .. "harnesses, give each its own: --a-harness NAME --b-harness NAME (--b-harness for this one)")
  t.eq(#t.workspaces(parent), 0)
  r = proc.run { LL, "extract.lua", BASE, "--harness", "vllm-benchmark" }
  find(r.stdout, ": it holds inference-perf results (leave --harness out to read them as such)", "extract.lua")
  t.ok(not r.stdout:find("--a-harness", 1, true), r.stdout)
end)
