-- One walk up to a run's record (tidy55): llmd.workspace.recorded_run_above finds the nearest
-- run_state.json at a results folder or above it, checked as recorded_run checks it, for both
-- simulated_record (it walked every folder up, reading the file raw) and recorded_gpus (it
-- walked 3 folders up, so results/a/b/c found nothing, and past an unreadable record it went on
-- to one further up). The layouts and the counts below are written by hand.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local ws = require "llmd.workspace"

local function record(dir, gpus, simulated)
  t.mkdir(dir .. "/results")
  json.write(dir .. "/run_state.json", { label = "r", timestamp = "2026-12-06T12:00:00Z",
    stack = { guide = "/g", namespace = "ns", gpus = gpus }, benchmark = { harness = "inference-perf" },
    simulated = simulated })
end

t.test("results nested 3 and more folders deep find their run's record, GPUs and simulated mark alike", function()
  local w = proc.realpath(t.tmpdir())
  record(w .. "/run-a", 2, "Simulated cluster (kind node fake-1)")
  local deep = w .. "/run-a/results/a/b/c"
  t.mkdir(deep)
  t.write(deep .. "/file", "x\n")
  local file = w .. "/run-a/run_state.json"
  for _, p in ipairs { w .. "/run-a", w .. "/run-a/results", w .. "/run-a/results/a", w .. "/run-a/results/a/b",
    deep, deep .. "/" } do
    t.eq({ ws.recorded_gpus(p) }, { 2, file }, p)
    t.eq({ ws.simulated_record(p) }, { "Simulated cluster (kind node fake-1)", file }, p)
  end
  -- a folder beside results/ is the run's own, not results: no record for it
  t.mkdir(w .. "/run-a/benchmark")
  t.eq({ ws.recorded_gpus(w .. "/run-a/benchmark") }, {})
  t.eq({ ws.simulated_record(w .. "/run-a/benchmark") }, {})
  -- a run with no record above it: none
  t.mkdir(w .. "/plain/results/x")
  t.eq({ ws.recorded_gpus(w .. "/plain/results/x") }, {})
end)

t.test("the nearest record unreadable: unknown and why, never a record further up", function()
  local w = proc.realpath(t.tmpdir())
  -- an outer run whose results/ hold another run folder, whose record is not JSON
  record(w .. "/outer", 8, "Simulated cluster (outer)")
  local inner = w .. "/outer/results/inner"
  t.mkdir(inner .. "/results/x")
  t.write(inner .. "/run_state.json", "{not json\n")
  local g, file, bad, why = ws.recorded_gpus(inner .. "/results/x")
  t.eq({ g, file, bad }, { nil, nil, inner .. "/run_state.json" })
  t.ok(why:find("^not JSON: at "), why)
  local sim, sfile, swhy = ws.simulated_record(inner .. "/results/x")
  t.eq({ sim, sfile, swhy }, { nil, inner .. "/run_state.json", why })
  -- another shape: said so
  t.write(inner .. "/run_state.json", '{"label": 3}\n')
  g, file, bad, why = ws.recorded_gpus(inner)
  t.eq({ g, file, bad, why }, { nil, nil, inner .. "/run_state.json",
    "not the shape llmdlua writes (a mapping with label, stack and benchmark)" })
  -- treatments.lua: the count is unknown (not the outer run's 8), with --gpus the way out
  local tr = require "llmd.treatments"
  local list = tr.load({ { label = "x", dirs = { inner .. "/results/x" } } },
    { cache = { [inner .. "/results/x"] = t.run_of { { rate = 1, values = { throughput_req_s = 1 } } } } })
  t.eq(list[1].recorded_gpus, nil)
end)
