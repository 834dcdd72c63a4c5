-- a vLLM result file is told by its keys wherever they are. vLLM's writer puts
-- num_prompts and request_throughput before the per-request arrays (read in its first 64
-- KiB); a file re-serialised with sorted keys has `itls` (every request's token gaps) first,
-- and was "no file of ..." (decfix5 (test_max_sustained.lua) dropped its gaps for that, fixc40). The files and
-- the expected figures are tests/data/vllm_key_order.py's (numpy, linear percentiles).
local t = require "testlib"
local harness = require "llmd.harness"

if not t.have_numpy() then
  t.test("vLLM files in any key order (skipped: no numpy for vllm_key_order.py)", function() end)
  return
end

local function files()
  local dir = t.tmpdir()
  return dir, t.data_json("vllm_key_order.py", dir)
end

local function same_figures(run, want)
  t.eq(run.stages[1].metrics.values.requests_ok, want.completed)
  t.near(run.stages[1].metrics.values.ttft_p50_ms, want.ttft_p50_ms, 1e-6)
  t.near(run.stages[1].metrics.values.itl_mean_ms, want.itl_mean_ms, 1e-6)
  t.near(run.stages[1].metrics.values.latency_p99_ms, want.latency_p99_ms, 1e-6)
end

t.test("a vLLM file in its writer's order and the same file with sorted keys (summary keys past 64 KiB) read alike",
  function()
  local dir, want = files()
  -- the case: both keys far beyond the first 64 KiB of the sorted file
  t.ok(want.num_prompts_at > 65536 and want.request_throughput_at > 65536)
  for _, sub in ipairs { "real", "sorted" } do
    local run = harness.extract(dir .. "/" .. sub)
    t.eq(run.harness, "vllm-benchmark", sub)
    t.ok(not run.no_results, sub)
    same_figures(run, want)
  end
  -- one file given alone (--file) likewise
  local run = harness.extract(dir .. "/sorted", { file = dir .. "/sorted/p1.json" })
  t.eq(run.harness, "vllm-benchmark")
end)

t.test("sorted bench_serving file (best_of, arrays first) is inferencemax, not vllm-benchmark", function()
  local dir, want = files()
  local run = harness.extract(dir .. "/bestof")
  t.eq(run.harness, "inferencemax")
  t.eq(run.stages[1].metrics.values.requests_ok, want.completed)
  t.near(run.stages[1].metrics.values.ttft_p50_ms, want.ttft_p50_ms, 1e-6)
  t.eq(#harness.detect(dir .. "/bestof", "vllm-benchmark"), 0)
end)

t.test("a sorted vLLM file cut short: an error naming the file and where, never 'no file of'", function()
  local dir = files()
  local ok, err = pcall(harness.extract, dir .. "/cut")
  t.ok(not ok)
  err = tostring(err)
  t.contains(err, dir .. "/cut/p1.json:1:")
  t.contains(err, "unexpected end of input")
  t.ok(not err:find("no file of", 1, true), err)
end)
