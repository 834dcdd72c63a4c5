-- autobench.lua with the mock server (tests/autobench/mockserver.py): its rows and summary.md
-- read as a real measurement of the config's model (newuser54 F4). The mock says so in its
-- log's first line (llmdlua.dev/simulated: ..., as the fake cluster labels its nodes); each
-- row it answered carries it (simulated), and summary.md says so first. Texts by hand.
local t = require "testlib"
local ab = require "llmd.autobench"
local proc = require "llmd.proc"
local yaml = require "llmd.yaml"

local mock = require "abmock"
local LLMDLUA = mock.LLMDLUA

local MOCK = "tests/autobench/mockserver.py, a mock server that loads no model"

t.test("rows a mock server answered are marked, and summary.md says so before its tables", function()
  local d = t.tmpdir()
  local env = mock.vllm_shim(d)
  t.write(d .. "/cfg.yaml", yaml.dump(mock.config()))
  local r = proc.run({ LLMDLUA, "autobench.lua", "run", "cfg.yaml", "--out", "rep1.jsonl" }, { cwd = d, env = env })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local n = 0
  for _, row in ipairs(ab.read_rows(d .. "/rep1.jsonl")) do
    if row.framework == "vllm" then
      t.eq(row.simulated, MOCK, row.candidate_id)
      n = n + 1
    else
      t.eq(row.simulated, nil, row.candidate_id) -- (excluded: no server, nothing simulated)
    end
  end
  t.eq(n, 2) -- chat and summarization
  r = proc.run({ LLMDLUA, "autobench.lua", "compare", "rep1.jsonl", "--md", "summary.md" }, { cwd = d })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local md = t.read(d .. "/summary.md")
  t.eq(md:sub(1, 200), ("# Benchmark Summary\n\n**Simulated, not a measurement**: the rows of vllm vllm-0 came from %s: "
    .. "their figures are the mock's, not a measurement of mock/model.\n\n"):format(MOCK):sub(1, 200))
  -- (tidy55) the summary in a file: stdout says it too (it said nothing)
  t.eq(r.stdout, ("Simulated, not a measurement: the rows of vllm vllm-0 came from %s: their figures are the mock's, "
    .. "not a measurement of mock/model. The summary, summary.md, says so first.\n"):format(MOCK))
end)

t.test("rows without the mark (a real server's): no such line", function()
  local rows = { { framework = "vllm", candidate_id = "vllm-0", model = "m", status = "ok", failure_reason = "",
    workload = { scenario = "chat" }, metrics = { request_throughput = 1 }, sla = {} } }
  local ok, md = pcall(ab.summary, rows, {})
  t.ok(ok, md)
  t.ok(not md:find("Simulated", 1, true), md)
  t.eq(ab.simulated_text(rows), nil)
end)
