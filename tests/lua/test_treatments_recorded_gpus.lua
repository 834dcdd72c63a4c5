-- treatments.lua on the runs of a compare.lua workspace (newuser54 F1): the GPU counts the plan
-- recorded (runs.x.info: {gpus: N}, kept in run-x/run_state.json's stack.gpus, which compare.lua
-- compares per GPU by) were ignored, so treatments.lua named the 4-GPU run the winner on totals
-- while compare.lua, on the same runs, compared per GPU. The counts are written by hand below
-- (2 and 4) and read back; the per-GPU figure is the total over them.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local LLMDLUA = t.root() .. "/llmdlua"

-- a compare.lua workspace: run-a and run-b, each its results/ (a ladder of 10 and 20 req/s,
-- achieved 0.99 x offered: t.latency_ladder) and a run_state.json recording gpus
local function workspace(ga, gb)
  local w = proc.realpath(t.tmpdir()) .. "/llm-d-comparison-20261206-120000"
  for x, g in pairs { a = ga, b = gb } do
    local ttft = x == "a" and 0.040 or 0.045
    t.mkdir(w .. "/run-" .. x)
    t.copy_tree(t.latency_ladder { { 10, t.spread(ttft, ttft, 100) }, { 20, t.spread(ttft, ttft, 100) } },
      w .. "/run-" .. x .. "/results")
    json.write(w .. "/run-" .. x .. "/run_state.json", {
      label = "tp-" .. x, timestamp = "2026-12-06T12:00:00Z",
      stack = { guide = "/guide", namespace = "ns", hardware = "8x H100", gateway = "none", model = "m",
        llmd_version = "unknown", decode_image = "img", gpus = g },
      benchmark = { harness = "vllm-benchmark", workload = "w", load_stages = "unknown" },
      results_path = w .. "/run-" .. x .. "/results", commands = {},
    })
  end
  return w
end

t.test("the GPU counts a compare.lua workspace recorded are read: per GPU, not a winner on totals", function()
  local w = workspace("2", "4")
  local out = t.tmpdir() .. "/out"
  -- (the run folder, and its results/ folder: both the recorded run)
  local r = proc.run { LLMDLUA, "treatments.lua", "--run", "x1=" .. w .. "/run-a", "--run", "x2=" .. w .. "/run-b/results",
    "--out", out, "--quiet", "--slo", "ttft_p90_ms=500" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local doc = json.read(out .. "/treatments.json")
  local got = {}
  for _, x in ipairs(doc.treatments) do got[x.label] = x end
  t.eq(got.x1.gpus, 2)
  t.eq(got.x2.gpus, 4)
  t.eq(got.x1.gpus_source, "recorded in " .. w .. "/run-a/run_state.json")
  -- (each max sustained throughput divided by its recorded count)
  t.near(got.x1.max_sustained_rps_per_gpu, got.x1.max_sustained_rps / 2, 1e-12)
  t.near(got.x2.max_sustained_rps_per_gpu, got.x2.max_sustained_rps / 4, 1e-12)
  -- the Verdict compares per GPU first, and names no winner on totals
  t.ok(doc.verdict:find("^Not like for like on cost"), doc.verdict)
  local md = t.read(out .. "/treatment_report.md")
  t.ok(md:find("Not like for like on cost: x1 2 GPUs, x2 4 GPUs", 1, true) or
    md:find("Not like for like on cost: x2 4 GPUs, x1 2 GPUs", 1, true), md)
  -- --gpus still wins over the record
  r = proc.run { LLMDLUA, "treatments.lua", "--run", "x1=" .. w .. "/run-a", "--run", "x2=" .. w .. "/run-b",
    "--out", out .. "2", "--quiet", "--gpus", "x1=4" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  got = {}
  for _, x in ipairs(json.read(out .. "2/treatments.json").treatments) do got[x.label] = x.gpus end
  t.eq(got, { x1 = 4, x2 = 4 })
end)

t.test("two folders of one treatment recording different GPU counts: one line naming both", function()
  local w = workspace("2", "4")
  local r = proc.run { LLMDLUA, "treatments.lua", "--run", "x1=" .. w .. "/run-a", "--run", "x1=" .. w .. "/run-b",
    "--run", "x2=" .. w .. "/run-b", "--out", t.tmpdir() .. "/o", "--quiet" }
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, ("llmdlua: treatment x1: %s/run-a/run_state.json records gpus 2, %s/run-b/run_state.json records 4: "
    .. "give --gpus x1=N\n"):format(w, w))
end)
