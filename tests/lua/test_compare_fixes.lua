-- Defects of the two-run comparison left by session 30 (the lead's cmpfix brief, session 31),
-- each reproduced: every test here fails without its fix. Expected values are worked by
-- hand or by python3 (numpy) on the fixture files, as said beside them.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"
local rm = require "llmd.runmodel"
local harness = require "llmd.harness"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local F = t.fixtures()
local EXP7 = F .. "/vllm-benchmark/exp-7_H100"

local function py(script, ...)
  local r = proc.run { "/usr/bin/python3", "-c", script, ... }
  t.ok(r.ok, r.stderr)
  return r.stdout
end

-- Item 1: one "same results" rule. Two folders of vLLM summary files written by python3 from
-- an exp-7 file (not by llmdlua), in folder:
--   "int": two repeats with every number whole (each float of the file rounded; durations 50
--     and 40 s, so that the rates llmdlua computes, 200 / 50 and 200 / 40, are whole too)
--   "failed1", "failed2": one run each in which all 200 requests failed within a fixed 57 s
--     (latencies and rates 0), on two dates: two runs, nothing measured, the same counts
local MAKE = [[
import json, os, sys
src, out = sys.argv[1], sys.argv[2]
d = json.load(open(src))
os.makedirs(out + "/int")
for i, (dur, ttft) in enumerate([(50, 250), (40, 260)]):
    e = {k: (int(round(v)) if isinstance(v, float) else v) for k, v in d.items()}
    e.update(duration=dur, request_rate=4, request_throughput=200 // dur, output_throughput=40000 // dur,
             total_token_throughput=(1599800 + 40000) // dur, mean_ttft_ms=ttft)
    json.dump(e, open("%s/int/benchmark_%d.json" % (out, i), "w"))
for name, date in (("failed1", "20250513-043912"), ("failed2", "20250514-101010")):
    os.makedirs(out + "/" + name)
    e = dict(d, completed=0, failed=200, date=date, duration=57.0)
    for k in list(e):
        if k.endswith("_ms") or k.endswith("throughput"):
            e[k] = 0.0
    json.dump(e, open(out + "/" + name + "/benchmark.json", "w"))
]]
local RESERIALISE = "import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], 'w'), indent=2)"

local function synthetic()
  local tmp = t.tmpdir()
  py(MAKE, EXP7 .. "/llm-d-1p1d/benchmark_2025-05-13_04-37-51.json", tmp)
  -- the all-integer run re-serialised (other bytes, the same numbers) and copied byte for byte
  t.mkdir(tmp .. "/int-reser")
  for _, n in ipairs { "benchmark_0.json", "benchmark_1.json" } do
    py(RESERIALISE, tmp .. "/int/" .. n, tmp .. "/int-reser/" .. n)
    t.ok(t.read(tmp .. "/int/" .. n) ~= t.read(tmp .. "/int-reser/" .. n), "the copy's bytes differ")
  end
  t.copy_tree(tmp .. "/int", tmp .. "/int-copy")
  return tmp
end

t.test("1: the figures read from the all-integer files are all whole numbers (what the old rule missed)", function()
  local tmp = synthetic()
  local run = harness.extract(tmp .. "/int")
  t.eq(#run.stages, 2)
  for _, st in ipairs(run.stages) do
    for k, v in pairs(st.metrics.values) do t.ok(v == math.floor(v), k .. " = " .. tostring(v)) end
  end
end)

t.test("1: one same-results rule: copies (bytes, re-serialised, all-integer) caught, different runs never", function()
  local tmp = synthetic()
  local function ex(d) return harness.extract(d) end
  -- copies: byte for byte and re-serialised, whole numbers only
  t.eq(rm.same_figures(ex(tmp .. "/int"), ex(tmp .. "/int-reser")), true)
  t.eq(rm.same_figures(ex(tmp .. "/int"), ex(tmp .. "/int-copy")), true)
  -- real copies (fractional figures) too: an exp-7 folder and its copy
  t.copy_tree(EXP7 .. "/llm-d-1p1d", tmp .. "/real-copy")
  t.eq(rm.same_figures(ex(EXP7 .. "/llm-d-1p1d"), ex(tmp .. "/real-copy")), true)
  -- two runs in which every request failed: the same counts (the workload's) and the same
  -- fixed duration, but nothing measured: never the same results by their figures
  t.eq(rm.same_figures(ex(tmp .. "/failed1"), ex(tmp .. "/failed2")), false)
  -- two different real runs, and the two repeats of the all-integer run against each other
  t.eq(rm.same_figures(ex(EXP7 .. "/llm-d-1p1d"), ex(EXP7 .. "/vllm-2replicas")), false)
  -- same_files: {rel, path} pairs in any order; a differing byte or name is not the same
  local function files(d)
    local out = {}
    for n in lfs.dir(d) do
      if n:match("%.json$") then table.insert(out, 1, { rel = n, path = d .. "/" .. n }) end
    end
    return out
  end
  t.eq(rm.same_files(files(tmp .. "/int"), files(tmp .. "/int-copy")), true)
  t.eq(rm.same_files(files(tmp .. "/int"), files(tmp .. "/int-reser")), false)
  t.eq(rm.same_files({}, {}), false)
  local swapped = files(tmp .. "/int-copy")
  swapped[1].rel, swapped[2].rel = swapped[2].rel, swapped[1].rel
  t.eq(rm.same_files(files(tmp .. "/int"), swapped), false)
end)

t.test("1: compare.lua and treatments.lua: the all-integer copy caught by both, the all-failed runs by neither",
  function()
  local tmp = synthetic()
  local int, reser, copy = tmp .. "/int", tmp .. "/int-reser", tmp .. "/int-copy"
  -- compare.lua: the re-serialised all-integer copy is the same results (it was compared
  -- silently: the old rule asked for a value that is not a whole number)
  local w, r = t.compare { "--a", int, "--b", reser, "--a-label", "x", "--b-label", "y" }
  t.ok(r.ok, r.stderr)
  t.ok(r.stderr:find(("compare.lua: warning: %s (x) and %s (y) hold the same results (the files differ"):format(int,
    reser), 1, true), r.stderr)
  t.ok(json.read(w .. "/comparison.json").identical, "comparison.json says it")
  -- the byte-for-byte copy: the same files
  w, r = t.compare { "--a", int, "--b", copy, "--a-label", "x", "--b-label", "y" }
  t.ok(r.stderr:find("the two runs' results are identical (same files)", 1, true), r.stderr)
  -- the two all-failed runs: no warning
  w, r = t.compare { "--a", tmp .. "/failed1", "--b", tmp .. "/failed2", "--a-label", "x", "--b-label", "y" }
  t.ok(r.ok, r.stderr)
  t.ok(not r.stderr:find("same results", 1, true) and not r.stderr:find("identical", 1, true), r.stderr)
  t.eq(json.read(w .. "/comparison.json").identical, false)
  -- treatments.lua: the same, by the same rule
  local n = 0
  local function tr(args)
    n = n + 1
    local argv = { LLMDLUA, "treatments.lua", "--out", tmp .. "/tr" .. n, "--quiet" }
    for _, a in ipairs(args) do argv[#argv + 1] = a end
    return proc.run(argv)
  end
  for _, c in ipairs { { reser, "the files differ, but every figure of every stage is equal to the last digit" },
    { copy, "the same files, byte for byte" } } do
    r = tr { "--run", "x=" .. int, "--run", "y=" .. c[1] }
    t.ok(r.ok, r.stderr)
    t.ok(r.stderr:find(("treatments.lua: warning: treatments x and y hold the same results (%s and %s: %s)"):format(
      int, c[1], c[2]), 1, true), r.stderr)
  end
  -- two all-failed runs, as two treatments: no warning (the old rule of treatments.lua said
  -- they were one run: any figures equal counted); as two repeats of one treatment, read
  -- (the old rule refused them as a copy)
  r = tr { "--run", "x=" .. tmp .. "/failed1", "--run", "y=" .. tmp .. "/failed2" }
  t.ok(r.ok, r.stderr)
  t.ok(not r.stderr:find("same results", 1, true), r.stderr)
  r = tr { "--run", "x=" .. tmp .. "/failed1", "--run", "x=" .. tmp .. "/failed2", "--run", "y=" .. int }
  t.ok(not r.stderr:find("one run copied", 1, true), r.stderr)
  -- a byte copy of an all-failed run is still caught, by its bytes
  t.copy_tree(tmp .. "/failed1", tmp .. "/failed1-copy")
  r = tr { "--run", "x=" .. tmp .. "/failed1", "--run", "y=" .. tmp .. "/failed1-copy" }
  t.ok(r.stderr:find("the same files, byte for byte", 1, true), r.stderr)
end)
