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

local function find(text, s, what)
  t.ok(text:find(s, 1, true), (what or "") .. ": want «" .. s .. "» in:\n" .. text)
end

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
  -- (98.7 %), then 170.208 of 212.24 (80.2 %). 167.78 > 103.08: whatever lies between the
  -- loads, chunked's limit is the higher
  local m = report.build { a = sd("vllm", BASE), b = sd("chunked", TREAT), slo = decision.parse_slo("ttft_p90_ms=200"),
    generated = 0 }
  local row = t.headline_row(m, "Max sustained throughput")
  t.eq(row.evidence, "one run per load, no interval: untested, but the measured loads order them: chunked sustained "
    .. "167.78 req/s, vllm never achieved more than 103.08 req/s at any load")
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
