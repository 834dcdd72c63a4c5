-- Benchmark reports out: every harness fixture converted to llm-d-benchmark's benchmark
-- report, checked against the report's JSON schema (../shared/fixtures/benchmark-report/
-- br_v0_2_json_schema.json, upstream's, pydantic-generated) and read back through the
-- benchmark-report harness to the same metrics. The expected metrics are the source run's
-- own (whose values test_harness.lua checks against Python/numpy); the schema validator's
-- own cases are constructed by hand.
local t = require "testlib"
local br = require "llmd.br"
local harness = require "llmd.harness"
local js = require "llmd.jsonschema"
local json = require "llmd.json"
local yaml = require "llmd.yaml"
local yo = require "llmd.yamlout"

local F = t.fixtures()
local SCHEMA = json.read(F .. "/benchmark-report/br_v0_2_json_schema.json")

local copy = t.copy

-- name -> a folder holding one run of that fixture
local CASES = {
  { "inference-perf kubecon vllm", function() return F .. "/inference-perf/kubecon-na-2025_vllm" end },
  { "inference-perf kubecon chunking", function()
    return F .. "/inference-perf/kubecon-na-2025_vllm_chunking_and_prefix_caching" end },
  { "inference-perf lifecycle yaml", function()
    local d = t.tmpdir()
    copy(F .. "/inference-perf/llm-d-benchmark_inference_perf_lifecycle.yaml", d .. "/stage_0_lifecycle_metrics.yaml")
    return d
  end },
  { "inference-perf per-request", function()
    local d = t.tmpdir()
    copy(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json", d .. "/per_request_lifecycle_metrics.json")
    return d
  end },
  { "guidellm report", function()
    local d = t.tmpdir()
    copy(F .. "/guidellm/guidellm_report_v2.json", d .. "/results.json")
    return d
  end },
  { "guidellm requests", function()
    -- as test_harness.lua builds it: the first benchmark with the synthetic v0.7.3 requests
    local rep = json.read(F .. "/guidellm/guidellm_report_v2.json")
    local b = rep.benchmarks[1]
    rep.benchmarks = json.array { b }
    b.requests = json.read(F .. "/guidellm/synthetic-guidellm_v0.7.3_benchmark_requests.json")
    b.metrics.request_totals = { successful = 3, errored = 1, incomplete = 1, total = 5 }
    local d = t.tmpdir()
    json.write(d .. "/results.json", rep)
    return d
  end },
  { "vllm exp-7 llm-d-1p1d", function() return F .. "/vllm-benchmark/exp-7_H100/llm-d-1p1d" end },
  { "vllm exp-7 llm-d-2p1d", function() return F .. "/vllm-benchmark/exp-7_H100/llm-d-2p1d" end },
  { "vllm exp-7 vllm-2replicas", function() return F .. "/vllm-benchmark/exp-7_H100/vllm-2replicas" end },
  { "vllm exp-7 vllm-3replicas", function() return F .. "/vllm-benchmark/exp-7_H100/vllm-3replicas" end },
  { "vllm detailed", function()
    local d = t.tmpdir()
    copy(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json", d .. "/openai-infqps-concurrency4.json")
    return d
  end },
  { "inferencemax", function() return F .. "/inferencemax" end },
  { "benchmark report v0.2", function()
    local d = t.tmpdir()
    copy(F .. "/benchmark-report/br_v0_2_example.yaml", d .. "/benchmark_report_v0.2,_stage.yaml")
    return d
  end },
  { "benchmark report v0.1", function()
    local d = t.tmpdir()
    copy(F .. "/benchmark-report/br_v0_1_example.yaml", d .. "/benchmark_report,_stage.yaml")
    return d
  end },
}

-- What a report carries: counts, the latency statistics it has a mean for, rates,
-- tokens, duration. (latency_all_* are derived by the reader from these; prefix cache
-- counters are not part of a report.)
local CARRIED = {
  "requests_ok", "requests_failed", "requests_incomplete", "error_rate_pct", "throughput_req_s",
  "throughput_tok_s", "throughput_total_tok_s", "duration_s", "input_tokens_total", "output_tokens_total",
}
for _, p in ipairs { "ttft", "tpot", "itl", "ntpot", "latency" } do
  for _, w in ipairs { "mean", "p50", "p90", "p99" } do CARRIED[#CARRIED + 1] = p .. "_" .. w .. "_ms" end
end
-- guidellm's token-weighted inter-token percentiles
for _, w in ipairs { "p50", "p90", "p99" } do CARRIED[#CARRIED + 1] = "itl_tw_" .. w .. "_ms" end

local function same(got, want, what)
  if want == nil then
    t.eq(got, nil, what)
  elseif math.type(want) == "integer" or (want == math.floor(want) and what:match("tokens_total")) then
    t.eq(got and math.floor(got + 0.5), math.floor(want + 0.5), what)
  else
    t.ok(got ~= nil, what .. ": lost in the report")
    t.near(got, want, math.abs(want) * 1e-12, what)
  end
end

for _, c in ipairs(CASES) do
  for _, version in ipairs { "0.2", "0.1" } do
    t.test(("%s -> benchmark report v%s: schema-valid, reads back the same"):format(c[1], version), function()
      local src = harness.extract(c[2]())
      t.ok(src.status == "ok" or #src.stages > 0, c[1] .. " reads")
      local out = t.tmpdir()
      local list = br.write(out, src, { version = version, stack = { model = "Qwen/Qwen3-0.6B", guide = "g",
        hardware = "H100", decode_image = "ghcr.io/llm-d/llm-d:v0.3" }, eid = "exp-1" })
      t.eq(#list, math.max(#src.stages, 1), "one report per load point")
      -- a rate the source's file contradicted is not written, and the writer says so
      local na = (src.stages[1] or { metrics = src.overall }).metrics.na.throughput_req_s
      if na and na:find("cannot both be right", 1, true) then
        t.eq(list[1].dropped[1], "throughput_req_s: unknown (" .. na .. "), not written")
      end
      for _, r in ipairs(list) do
        local doc = yaml.load_file(r.path)
        if version == "0.2" then
          local errs = js.validate(SCHEMA, doc)
          t.eq(errs, {}, r.name .. " is valid")
          t.eq(doc.version, "0.2")
        else
          t.eq(doc.version, "0.1")
          t.ok(doc.metrics.requests.total ~= nil)
        end
      end
      local back = harness.extract(out)
      t.eq(back.harness, "benchmark-report")
      t.eq(#back.stages, #list)
      local pts = #src.stages > 0 and src.stages or { { index = 0, metrics = src.overall } }
      for i, st in ipairs(pts) do
        local bs = back.stages[i]
        if version == "0.2" then
          t.eq(bs.index, st.index, "stage index")
          t.eq(bs.rate, st.rate and st.rate > 0 and st.rate or nil, "rate")
          t.eq(bs.concurrency, st.concurrency, "concurrency")
        end
        for _, k in ipairs(CARRIED) do
          local want = st.metrics.values[k]
          -- a statistic whose mean is unknown cannot be written (the mean is required)
          local prefix = k:match("^(%a+)_%w+_ms$")
          if prefix and prefix ~= "latency" or k:match("^latency_") then
            local mkey = k:gsub("_%w+_ms$", "_mean_ms")
            if prefix and st.metrics.values[mkey] == nil then want = nil end
          end
          if k == "requests_incomplete" and want == nil then goto continue end
          -- a rate the source's file contradicted is not written; the reader computes it
          -- from the counts and the duration that are (the catalogue's definition)
          if want == nil and k:match("^throughput_") and tostring(st.metrics.na[k]):find("cannot both be right") then
            local v = st.metrics.values
            local n = k == "throughput_req_s" and v.requests_ok or k == "throughput_tok_s" and v.output_tokens_total
              or v.input_tokens_total + v.output_tokens_total
            want = n / v.duration_s
          end
          -- upstream's guidellm convention: inter_token_latency is guidellm's (pooled mean,
          -- token-weighted percentiles); the per-request TPOT and NTPOT have no slot there
          if src.harness == "guidellm" and (k:match("^tpot_") or k:match("^ntpot_")) then want = nil end
          same(bs.metrics.values[k], want, ("%s stage %d %s"):format(c[1], st.index, k))
          ::continue::
        end
      end
    end)
  end
end

t.test("a statistic with percentiles but no mean is dropped and named", function()
  local src = harness.extract(F .. "/vllm-benchmark/exp-7_H100/llm-d-1p1d")
  local st = src.stages[1]
  st.metrics.values.ttft_mean_ms, st.metrics.na.ttft_mean_ms = nil, "made unknown by the test"
  local list = br.build(src, {})
  t.eq(list[1].doc.v[4].v[1].v[1].v[2].k[1] ~= "time_to_first_token", true)
  t.ok(list[1].dropped[1]:find("time_to_first_token: its mean is unknown (made unknown by the test)", 1, true),
    list[1].dropped[1])
end)

t.test("guidellm's report keeps upstream's names: its inter-token latency under inter_token_latency", function()
  local d = t.tmpdir()
  copy(F .. "/guidellm/guidellm_report_v2.json", d .. "/results.json")
  local src = harness.extract(d)
  local doc = yo.plain(br.build(src, {})[1].doc)
  local lat = doc.results.request_performance.aggregate.latency
  -- guidellm's inter_token_latency_ms mean is the pooled gap mean; its percentiles are token-weighted
  t.ok(lat.inter_token_latency.mean ~= nil)
  t.eq(lat.inter_token_latency.mean, src.stages[1].metrics.values.itl_mean_ms)
  t.eq(lat.inter_token_latency.p90, src.stages[1].metrics.values.itl_tw_p90_ms)
  -- its time_per_output_token is token-weighted, a quantity the catalogue does not name: not written
  t.eq(lat.time_per_output_token, nil)
  t.eq(doc.scenario.load.standardized.tool, "guidellm")
end)

-- the validator on its own: cases by hand
t.test("schema validator: types, required, additionalProperties, anyOf, $ref, enum, bounds, date-time", function()
  local s = {
    ["$defs"] = { S = { type = "object", properties = { units = { enum = { "ms", "s" } }, mean = { type = "number" } },
      required = { "units", "mean" } } },
    type = "object", additionalProperties = false, required = { "n" },
    properties = {
      n = { type = "integer", minimum = 0 },
      r = { anyOf = { { type = "number", exclusiveMinimum = 0 }, { type = "null" } } },
      s = { anyOf = { { ["$ref"] = "#/$defs/S" }, { type = "null" } } },
      l = { type = "array", items = { type = "string" } },
      t = { type = "string", format = "date-time" },
      k = { const = "generic" },
    },
  }
  t.eq(js.validate(s, { n = 3, r = 0.5, s = { units = "ms", mean = 1.5 }, l = json.array { "a" },
    t = "2025-11-05T18:00:42Z", k = "generic" }), {})
  t.eq(js.validate(s, { n = 2.0 }), {}, "2.0 is an integer in JSON Schema")
  t.eq(js.validate(s, { n = 2.5 }), { "$.n: expected integer, got number 2.5" })
  t.eq(js.validate(s, { n = -1 }), { "$.n: -1 is below the minimum 0" })
  t.eq(js.validate(s, {}), { "$: missing required 'n'" })
  t.eq(js.validate(s, { n = 1, x = 1 }), { "$: unexpected key 'x'" })
  t.eq(js.validate(s, { n = 1, r = 0 }), { "$.r: 0 must be > 0" })
  t.eq(js.validate(s, { n = 1, r = json.null }), {})
  t.eq(js.validate(s, { n = 1, s = { units = "h", mean = 1 } }), { '$.s.units: "h" is not one of "ms", "s"' })
  t.eq(js.validate(s, { n = 1, s = { units = "ms" } }), { "$.s: missing required 'mean'" })
  t.eq(js.validate(s, { n = 1, l = json.array { "a", 3 } }), { "$.l[1]: expected string, got integer 3" })
  t.eq(js.validate(s, { n = 1, t = "yesterday" }), { '$.t: "yesterday" is not an RFC 3339 date-time' })
  t.eq(js.validate(s, { n = 1, k = "other" }), { '$.k: expected "generic", got "other"' })
  t.raises("unsupported keyword 'patternProperties'", js.validate, { patternProperties = {} }, {})
end)

t.test("the upstream examples against upstream's schema: what they carry beyond it is reported", function()
  -- by reading the files: br_v0_2_example.yaml has results.session_performance, which
  -- this schema version does not define
  local errs = js.validate(SCHEMA, yaml.load_file(F .. "/benchmark-report/br_v0_2_example.yaml"))
  t.eq(errs, { "$.results: unexpected key 'session_performance'" })
end)

t.test("floats are written with a dot, so YAML 1.1 readers read floats", function()
  t.eq(yo.float(1e-7), "1.0e-07")
  t.eq(yo.float(2.0), "2.0")
  t.eq(yo.float(0.1 + 0.2), "0.30000000000000004")
  t.eq(yo.dump(yo.map("a", 1, "b", yo.map("c", "0.2", "d", { 1, 2 }))), 'a: 1\nb:\n  c: "0.2"\n  d:\n  - 1\n  - 2\n')
end)

t.test("vllm-benchmark with a failed request: upstream's input mean over all requests, undone when read back", function()
  -- the synthetic detailed file: 8 prompts of 256 input tokens (its input_lens), 7 completed;
  -- vLLM's total_input_tokens counts the completed ones, 1,792 = 7 x 256. Upstream's
  -- converter divides by all 8: 224.0 (by hand), kept for byte-compatibility (README --br);
  -- the run's own mean over its completed requests is the requests' length, 256
  local d = t.tmpdir()
  copy(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json", d .. "/r.json")
  local run = harness.extract(d, {})
  local v = run.overall.values
  t.eq({ v.requests_ok, v.requests_failed, v.input_tokens_total }, { 7, 1, 1792 })
  t.eq(v.input_tokens_total / v.requests_ok, 256.0)
  local out = t.tmpdir()
  local list = br.write(out, run, { version = "0.2" })
  local doc = yaml.load_file(list[1].path)
  t.eq(doc.results.request_performance.aggregate.requests.input_length.mean, 224.0)
  t.eq(doc.scenario.load.standardized.input_seq_len.value, 224.0)
  t.eq(doc.results.request_performance.aggregate.requests.output_length.mean, 32.0) -- 224 / 7 completed
  -- read back: 224 x 8 = 1,792 input tokens of the 7 completed, 256 each again
  local back = harness.extract(out, {})
  t.eq(back.overall.values.input_tokens_total, 1792)
  t.eq(back.overall.values.input_tokens_total / back.overall.values.requests_ok, 256.0)
end)

-- What a new user found in session 31 (a fresh clone, README only), compare.lua's side:
-- the GPU caveat beside every latency verdict, the total max sustained row's evidence by the
-- per-GPU row's rule, the banner of runs that differ only in their load ladders, identical
-- runs through every path, an SLO in the wrong unit, the cross-harness texts, --br's
-- percentiles, a sweep of two workloads in one folder, and the errors of --resume/--harness.
--
-- Expected values: /usr/bin/python3 (numpy) on the fixture files, each computation in a
-- comment beside its test; texts by hand from the numbers.
-- (Formerly test_newuser31.lua.)
do
  local EXP7 = F .. "/vllm-benchmark/exp-7_H100"

  local find = t.contains

  t.test("nu31-7: --br writes every percentile the run has (vLLM's p95, p99.9 as p99p9), and reading it back keeps them",
    function()
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
end

-- NTPOT mean corrected for exactly one 0 (fixh43) round trip (fixj45): kubecon's stage 0 with
-- its NTPOT min set to 0, 60 successes, p0.1 above 0: the figure is the mean without the 0,
-- 0.0076659232914650915 x 60 / 59 s = 7.795854194710262 ms (python3; test_harness.lua). The
-- report carries the summary's own statistic (mean, min 0, percentiles), and its reader takes
-- the 0 out again to the same figure; main wrote the corrected mean without a min, read N/A. The
-- same from a run saved as run_model.json and read back (analyze.lua's path).
t.test("NTPOT mean corrected for one 0: a benchmark report of it reads back the same figure", function()
  local st0 = json.read(F .. "/inference-perf/kubecon-na-2025_vllm/stage_0_lifecycle_metrics.json")
  st0.successes.latency.normalized_time_per_output_token.min = 0
  local d = t.tmpdir()
  t.write(d .. "/stage_0_lifecycle_metrics.json", json.encode(st0))
  local run = harness.extract(d, { tolerant = true })
  local WANT = 7.795854194710262
  t.near(run.stages[1].metrics.values.ntpot_mean_ms, WANT, 1e-9)
  local rm = require "llmd.runmodel"
  local saved = rm.from_plain(json.decode(json.encode(rm.to_plain(run))), "run_model.json")
  for _, r in ipairs { run, saved } do
    local out = t.tmpdir() .. "/br"
    local list = br.write(out, r, { version = "0.2" })
    local nt = yo.plain(list[1].doc).results.request_performance.aggregate.latency.normalized_time_per_output_token
    -- the summary's own statistic: its mean 7.67 ms (counting the 0) and min 0, in ms/token
    t.near(nt.mean, 0.0076659232914650915 * 1000, 1e-9)
    t.eq(nt.min, 0)
    local back = harness.extract(out, { tolerant = true }).stages[1].metrics
    t.near(back.values.ntpot_mean_ms, WANT, 1e-9)
    t.eq(back.na.ntpot_mean_ms, nil)
    -- and written again from the read-back run: still the same
    local again = t.tmpdir() .. "/br2"
    br.write(again, harness.extract(out, { tolerant = true }), { version = "0.2" })
    t.near(harness.extract(again, { tolerant = true }).stages[1].metrics.values.ntpot_mean_ms, WANT, 1e-9)
  end
end)
