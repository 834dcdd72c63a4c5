-- What the new user of session 36 found misleading: autobench.lua compare's cross-framework
-- evidence when the other framework was measured but failed the SLA, and compare.lua's
-- report without --slo.
--
-- Expected values: by hand from the rows written here (each reading in a comment beside its
-- test).
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local HERE = t.here()
local ROOT = proc.run({ "realpath", HERE .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"

t.test("autobench compare: a lone rank 1 names the frameworks measured there that fail the SLA", function()
  local d = t.tmpdir()
  local function row(fw, cid, ttft, status)
    return json.encode { framework = fw, candidate_id = cid, status = status or "ok",
      workload = { scenario = "chat", input_len = 1024, output_len = 256 }, sla = { passed = true },
      metrics = status and {} or { request_throughput = 10.0, output_token_throughput = 2560.0, p50_ttft_ms = ttft,
        p50_tpot_ms = 10.0, success_rate = 1.0 },
      failure_reason = status and "user-excluded: disabled in the config" or nil,
      hardware = { gpu_count = 1 }, server_command = "x" } .. "\n"
  end
  -- sglang's p50 TTFT 400 ms is within max_p50_ttft_ms=410; vllm's three ok rows (420 ms)
  -- are not; trt's only row was skipped (not measured)
  t.write(d .. "/r.jsonl", row("sglang", "sg", 400) .. row("vllm", "vl-a", 420) .. row("vllm", "vl-a", 420)
    .. row("vllm", "vl-b", 420) .. row("trt", "trt-x", nil, "skipped"))
  local r = proc.run { LLMDLUA, "autobench.lua", "compare", d .. "/r.jsonl", "--md", d .. "/s.md", "--sla",
    "max_p50_ttft_ms=410" }
  t.eq(r.code, 0, r.stderr)
  local line = t.read(d .. "/s.md"):match("\n(| chat | 1 | sglang[^\n]*)")
  t.ok(line, t.read(d .. "/s.md"))
  t.eq(line:match("| ([^|]*) |$"), "vllm (3 rows) measured in this scenario, but no row within the SLA: nothing "
    .. "to weigh it against")
end)

t.test("compare.lua without --slo: the latencies at the load both runs sustained, and the hint of --slo", function()
  -- the new user's pair: B = A with every latency x 1.3 (A: the bundled KubeCon baseline's
  -- lifecycle files). Both saturate at the same stage, so max sustained cannot order them; at
  -- stage 3 (92.19 req/s offered), by /usr/bin/python3 from stage_3_lifecycle_metrics.json:
  -- TTFT p90 0.06436099 s -> 64.4 ms, x 1.3 = 83.7 ms; TPOT p90 8.98 ms -> 11.68 ms;
  -- request_latency p90 1.2336859 s -> 1,233.7 ms, x 1.3 = 1,603.8 ms; +30.0 % each
  local d = t.tmpdir()
  local src = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
  proc.run { "mkdir", "-p", d .. "/A", d .. "/B", d .. "/out" }
  for name in require("lfs").dir(src) do
    if name:match("_lifecycle_metrics%.json$") then
      local doc = json.read(src .. "/" .. name)
      json.write(d .. "/A/" .. name, doc)
      for _, m in pairs(doc.successes.latency) do
        for k, v in pairs(m) do if type(v) == "number" then m[k] = v * 1.3 end end
      end
      json.write(d .. "/B/" .. name, doc)
    end
  end
  local r = proc.run { LLMDLUA, "compare.lua", "--a", d .. "/A", "--b", d .. "/B", "--parent", d .. "/out", "--quiet" }
  t.eq(r.code, 0, r.stderr)
  local ws
  for n in require("lfs").dir(d .. "/out") do if n:match("^llm%-d%-comparison") then ws = d .. "/out/" .. n end end
  local md = t.read(ws .. "/comparison_report.md")
  local verdict = md:match("\n%*%*Verdict:%*%* ([^\n]*)")
  t.eq(verdict, "Cannot say which sustains more load (max sustained throughput; no SLO given): the measured loads "
    .. "cannot order them: A 91.36 req/s, B 91.36 req/s. At 92.19 req/s offered (91.36 req/s achieved by both), the "
    .. "highest load both sustained, B's latencies are higher (TTFT p90 +30.0 %, TPOT p90 +30.0 %, end-to-end latency "
    .. "p90 +30.0 %; untested). --slo gives capacity within an SLO.")
  local summary = md:match("\n## Summary\n\n([^\n]*)")
  t.ok(summary:find("At 92.19 req/s offered (91.36 req/s achieved by both), the highest load both runs sustained, B's "
    .. "latencies are higher than A's: TTFT p90 83.7 ms vs 64.4 ms (+30.0 %), TPOT p90 11.68 ms vs 8.98 ms (+30.0 %), "
    .. "end-to-end latency p90 1,603.8 ms vs 1,233.7 ms (+30.0 %) (B − A; untested: without an SLO no test is made at "
    .. "this load). Give --slo (e.g. --slo ttft_p90_ms=200) for each run's capacity within it.", 1, true), summary)
end)
