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
