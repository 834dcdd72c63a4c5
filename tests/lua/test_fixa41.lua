-- fixa41: ingest leftovers of session 40. Expected values by hand or with python3, as written
-- beside each.
local t = require "testlib"
local json = require "llmd.json"
local harness = require "llmd.harness"
local report = require "llmd.report"
local yaml = require "llmd.yaml"

local F = t.fixtures()
local KUBECON = F .. "/inference-perf/kubecon-na-2025_vllm"

local function llmdlua(args)
  local src = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
  local argv = { src .. "/../../llmdlua" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return require("llmd.proc").run(argv)
end

-- The model names of a v0.2 report's scenario.stack, read as YAML (not by llmdlua's reader).
local function stack_models(path)
  local doc = yaml.load_file(path)
  local out = {}
  for _, comp in ipairs(doc.scenario and doc.scenario.stack or {}) do
    local m = comp.standardized and comp.standardized.model
    out[#out + 1] = type(m) == "table" and m.name or m
  end
  return out
end

t.test("1: extract.lua --br writes the model the results name into scenario.stack, and the reader reads it back",
  function()
  -- vLLM: testlib.latency_ladder's files say model_id Qwen/Qwen3-0.6B
  local dir = t.latency_ladder { { 2, t.spread(0.1, 0.2, 40) } }
  local out = t.tmpdir() .. "/br"
  local r = llmdlua { "extract.lua", dir, "--br", "0.2", "--out", out }
  t.ok(r.ok, r.stderr)
  local path = out .. "/benchmark_report_v0.2,_benchmark_01.json.yaml"
  t.eq(stack_models(path), { "Qwen/Qwen3-0.6B" })
  -- (schema-valid: upstream's schema takes a generic component's extra keys)
  local js = require "llmd.jsonschema"
  t.eq(js.validate(json.read(F .. "/benchmark-report/br_v0_2_json_schema.json"), yaml.load_file(path)), {})
  local back = harness.extract(out)
  t.eq(back.model, "Qwen/Qwen3-0.6B")
  t.eq(back.config.model, "Qwen/Qwen3-0.6B")
  -- inference-perf: the model its config.yaml serves (server.model_name)
  local ip = t.tmpdir() .. "/ip"
  t.copy_tree(KUBECON, ip)
  t.write(ip .. "/config.yaml", "server:\n  type: vllm\n  model_name: meta-llama/Llama-3.1-8B\n")
  local run = harness.extract(ip)
  t.eq(run.model, "meta-llama/Llama-3.1-8B")
  local out2 = t.tmpdir() .. "/br2"
  r = llmdlua { "extract.lua", ip, "--br", "0.2", "--out", out2 }
  t.ok(r.ok, r.stderr)
  t.eq(stack_models(out2 .. "/benchmark_report_v0.2,_stage_0_lifecycle_metrics.json.yaml"),
    { "meta-llama/Llama-3.1-8B" })
  t.eq(harness.extract(out2).model, "meta-llama/Llama-3.1-8B")
  -- a report an older llmdlua wrote with --info: the generic component's model as a string
  local old = t.tmpdir() .. "/old"
  t.mkdir(old)
  local text = t.read(path):gsub("(\n%s*)model:\n%s*name: ([^\n]*)", "%1model: %2")
  t.ok(not text:find("name: Qwen", 1, true) and text:find("model: Qwen/Qwen3-0.6B", 1, true), text)
  t.write(old .. "/benchmark_report_v0.2,_benchmark_01.json.yaml", text)
  t.eq(harness.extract(old).model, "Qwen/Qwen3-0.6B")
end)

-- A side of report.build, hand-made (testlib.run_of), naming model (nil: none).
local function sd(label, model, info_model)
  local run = t.run_of { { rate = 10, values = { throughput_req_s = 10, ttft_p90_ms = 100, error_rate_pct = 0 } },
    { rate = 20, values = { throughput_req_s = 20, ttft_p90_ms = 300, error_rate_pct = 0 } } }
  run.model = model
  return { label = label, state = { label = label, stack = { model = info_model } }, run = run, kv = {} }
end

t.test("2: the Verdict says like for like is not verified where neither run's model is known", function()
  local slo = require("llmd.decision").parse_slo("ttft_p90_ms=200", "--slo")
  local function verdict(a, b) return report.build { a = a, b = b, slo = slo, generated = 0 }.verdict.text end
  -- neither names a model: said (before session 41 nothing was)
  t.contains(verdict(sd("x"), sd("y")), "Warning: like for like not verified: neither run's model is known "
    .. "(see below).")
  -- one names it: the one-sided caveat, as before
  t.contains(verdict(sd("x", "m"), sd("y")), "like for like not verified: B's model unknown")
  -- both name one (in the results, or one in its info file): none
  t.lacks(verdict(sd("x", "m"), sd("y", "m")), "like for like")
  t.lacks(verdict(sd("x", nil, "m"), sd("y", "m")), "like for like")
  -- a run model saved before the readers set run.model (inference-perf, benchmark reports):
  -- its config's model counts
  local a = sd("x")
  a.run.config = { model = "m" }
  t.lacks(verdict(a, sd("y", "m")), "like for like")
end)

t.test("5: an inference-perf stage file of 0 successes with latency figures is a data check of its own", function()
  -- the kubecon vLLM run, stage 2's successes.count set to 0, its latency summaries kept; their
  -- means, read with python3 from the fixture: request_latency 0.6795524652, time_to_first_token
  -- 0.0349432982, time_per_output_token 0.0049880673, inter_token_latency 0.0049880673,
  -- normalized_time_per_output_token 0.0110047711 s (%.4g: 0.6796, 0.03494, 0.004988, 0.004988, 0.011)
  local dir = t.tmpdir() .. "/ip"
  t.copy_tree(KUBECON, dir)
  local p = dir .. "/stage_2_lifecycle_metrics.json"
  local d = json.read(p)
  d.successes.count = 0
  t.write(p, json.encode(d))
  local run = harness.extract(dir)
  local found
  for _, c in ipairs(run.checks or {}) do if c.kind == "latency_without_successes" then found = c end end
  t.ok(found, table.concat(run.warnings, "\n"))
  t.eq({ found.stage, found.key }, { 2, "requests_ok" })
  t.eq(found.text, "stage_2_lifecycle_metrics.json: successes.count is 0, yet successes.latency holds figures "
    .. "(request_latency mean 0.6796 s, time_to_first_token mean 0.03494 s, time_per_output_token mean 0.004988 s, "
    .. "inter_token_latency mean 0.004988 s, normalized_time_per_output_token mean 0.011 s), which inference-perf "
    .. "writes as null where no request succeeded: the file contradicts itself (edited, or cut and mended?), so load "
    .. "point 2's count of 0 successes may be the fault; its latencies are N/A, as for no success")
  t.eq(run.status, "warnings")
  t.eq(run.stages[3].metrics.values.ttft_p90_ms, nil)
  -- as inference-perf writes a stage of no success (its summaries null): no such check
  d.successes.latency = { request_latency = json.null, time_to_first_token = json.null }
  t.write(p, json.encode(d))
  run = harness.extract(dir)
  for _, c in ipairs(run.checks or {}) do t.ok(c.kind ~= "latency_without_successes", c.text) end
end)

t.test("4: a benchmark report whose keys are re-sorted, scenario and version past the first 64 KiB, is detected",
  function()
  -- upstream's v0.2 example with one time series padded to ~200 KB (its points repeated), written
  -- with its keys sorted at every level (llmd.json and llmd.yamlout write plain tables so):
  -- results (and the series) first, then run, scenario, version
  local d = yaml.load_file(F .. "/benchmark-report/br_v0_2_example.yaml")
  d.scenario.load.standardized.concurrency = nil -- (.inf in the example: no JSON number)
  local function first_list(x)
    if type(x) ~= "table" then return nil end
    if x[1] ~= nil then return x end
    local keys = {}
    for k in pairs(x) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local l = first_list(x[k])
      if l then return l end
    end
  end
  local series = first_list(d.results.request_performance.time_series)
  local base = #series
  for i = base + 1, 4000 do series[i] = series[(i - 1) % base + 1] end
  local expected = harness.extract((function()
    local x = t.tmpdir() .. "/ex"
    t.mkdir(x)
    t.copy(F .. "/benchmark-report/br_v0_2_example.yaml", x .. "/benchmark_report_v0.2,_x.yaml")
    return x
  end)())
  for _, form in ipairs { "json", "yaml" } do
    local dir = t.tmpdir() .. "/" .. form
    t.mkdir(dir)
    local path = dir .. "/report." .. form
    t.write(path, form == "json" and json.encode(d) or require("llmd.yamlout").dump(d))
    local text = t.read(path)
    local at = text:find(form == "json" and '"version"' or "\nversion:", 1, true)
    t.ok(at and at > 65536 and text:find("request_performance", 1, true) < 65536, form .. ": the layout tested")
    local run = harness.extract(dir)
    t.eq(run.harness, "benchmark-report", form)
    t.eq(#run.stages, 1, form)
    -- the same figures as the example read under its own name
    t.ok(expected.stages[1].metrics.values.ttft_p90_ms ~= nil)
    t.eq(run.stages[1].metrics.values.ttft_p90_ms, expected.stages[1].metrics.values.ttft_p90_ms, form)
    t.eq(run.stages[1].metrics.values.requests_ok, expected.stages[1].metrics.values.requests_ok, form)
  end
end)

t.test("3: vLLM results appended to one file (--append-result) are refused with one line; a .json.gz is read",
  function()
  -- three exp-7 files (llm-d-1p1d), as vllm bench serve --append-result writes them: each result's
  -- JSON on a line of its own, a newline between
  local src = F .. "/vllm-benchmark/exp-7_H100/llm-d-1p1d"
  local names = {}
  for f in require("lfs").dir(src) do if f:match("%.json$") then names[#names + 1] = f end end
  table.sort(names)
  t.eq(#names, 3)
  local lines = {}
  for i, f in ipairs(names) do lines[i] = json.encode(json.read(src .. "/" .. f)) end
  local dir = t.tmpdir() .. "/app"
  t.mkdir(dir)
  local path = dir .. "/openai-sweep.json"
  t.write(path, table.concat(lines, "\n"))
  local r = llmdlua { "extract.lua", dir }
  t.eq(r.code, 1)
  t.eq(r.stderr, ("llmdlua: %s: holds 3 vLLM benchmark results appended one after another (vllm bench serve "
    .. "--append-result), one a line, where llmdlua reads one result, one load point, a file: split it into a folder "
    .. "of its own, one file a line (mkdir DIR && split -l 1 -d --additional-suffix=.json %s DIR/openai-sweep_), and "
    .. "pass that folder (--tolerant goes on without this file, with a warning in the report)\n"):format(path, path))
  -- the command it gives, run: the folder reads as the three files do (the same load points)
  local split = t.tmpdir() .. "/split"
  t.mkdir(split)
  local sh = require("llmd.proc").run { "sh", "-c", ('split -l 1 -d --additional-suffix=.json "$1" "$2"/openai-sweep_'),
    "sh", path, split }
  t.ok(sh.ok, sh.stderr)
  local want, got = harness.extract(src), harness.extract(split)
  t.eq(#got.stages, 3)
  for i = 1, 3 do
    t.eq(got.stages[i].rate, want.stages[i].rate)
    t.eq(got.stages[i].metrics.values.ttft_p95_ms, want.stages[i].metrics.values.ttft_p95_ms)
  end
  -- one result gzipped (gzip -n, as a user keeps results): detected and read as the plain file
  local gz = t.tmpdir() .. "/gz"
  t.mkdir(gz)
  t.copy(src .. "/" .. names[1], gz .. "/" .. names[1])
  local z = require("llmd.proc").run { "gzip", "-n", gz .. "/" .. names[1] }
  t.ok(z.ok, z.stderr)
  local run = harness.extract(gz)
  t.eq(run.harness, "vllm-benchmark")
  t.eq(run.files, { gz .. "/" .. names[1] .. ".gz" })
  local x = t.tmpdir() .. "/plain"
  t.mkdir(x)
  t.copy(src .. "/" .. names[1], x .. "/" .. names[1])
  local plain = harness.extract(x)
  t.ok(plain.stages[1].metrics.values.ttft_p95_ms ~= nil)
  t.eq(run.stages[1].metrics.values.ttft_p95_ms, plain.stages[1].metrics.values.ttft_p95_ms)
  t.eq(run.model, plain.model)
  -- appended results gzipped: the same line, with gunzip in the command
  local gza = t.tmpdir() .. "/gza"
  t.mkdir(gza)
  t.copy(path, gza .. "/openai-sweep.json")
  z = require("llmd.proc").run { "gzip", "-n", gza .. "/openai-sweep.json" }
  t.ok(z.ok, z.stderr)
  r = llmdlua { "extract.lua", gza }
  t.eq(r.code, 1)
  t.contains(r.stderr, ": holds 3 vLLM benchmark results appended one after another")
  t.contains(r.stderr, ("(mkdir DIR && gunzip -c %s/openai-sweep.json.gz | split -l 1 -d --additional-suffix=.json - "
    .. "DIR/openai-sweep_)"):format(gza))
end)
