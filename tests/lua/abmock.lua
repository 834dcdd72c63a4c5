-- abmock: what the autobench tests share — the mock serving framework
-- (tests/autobench/mockserver.py) as a vllm candidate in a cookbook config, and the mock
-- client (tests/autobench/mockclient.py) standing in for `vllm bench serve` on PATH.
local t = require "testlib"
local proc = require "llmd.proc"

local M = {}

M.ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
M.LLMDLUA = M.ROOT .. "/llmdlua"
M.PY = proc.which("python3") or "/usr/bin/python3"
M.MOCKSERVER = M.PY .. " " .. M.ROOT .. "/tests/autobench/mockserver.py"

-- A folder d/bin holding `vllm`: the mock client, so the default client command runs as
-- written. Returns the environment putting it first on PATH.
function M.vllm_shim(d)
  proc.run { "mkdir", "-p", d .. "/bin" }
  t.write(d .. "/bin/vllm", ("#!/bin/sh\nexec %s %s/tests/autobench/mockclient.py \"$@\"\n"):format(M.PY, M.ROOT))
  proc.run { "chmod", "+x", d .. "/bin/vllm" }
  return { PATH = d .. "/bin:" .. os.getenv("PATH") }
end

-- A cookbook config with one vllm candidate on the mock server; its --max-num-seqs (mode,
-- default 1) picks the mock's behaviour (see mockserver.py). extra replaces top-level keys.
function M.config(extra, mode)
  local cfg = {
    schema_version = 1, source = { kind = "llm_serving_cookbook" }, model = { name = "mock/model" },
    hardware = { gpu_count = 1 },
    dataset = { kind = "random", num_prompts = 3, scenario_names = { "chat", "summarization" },
      input_len = { 10, 20 }, output_len = { 4, 8 } },
    benchmark = { endpoint = "/v1/completions", max_concurrency = { 2 },
      sla = { max_p50_ttft_ms = 5000, max_p50_tpot_ms = 30, min_success_rate = 0.99 } },
    search = { max_candidates_per_framework = 1 },
    frameworks = {
      sglang = { enabled = false }, tensorrt_llm = { enabled = false }, tokenspeed = { enabled = false },
      vllm = { enabled = true, server_command = M.MOCKSERVER,
        base_server_flags = { max_model_len = 100, max_num_seqs = mode or 1 }, search_space = {} },
    },
    -- seconds: only a backstop, the run goes on as soon as the server answers (10 s was
    -- seen running out while python started on a loaded machine); a test of a server that
    -- never answers (mode 2) sets its own, as it waits it all
    run = { ready_timeout = 300 },
  }
  for k, v in pairs(extra or {}) do cfg[k] = v end
  return cfg
end

return M
