-- The treatments report says its cost note (the figures per GPU, their order and what would
-- settle it, often 170 words) once, above the ranking ("These places are on totals"); the
-- Verdict says its first sentence and where the rest is, and the Verdict line no longer
-- repeats what would settle it (newuser49 #10: the same paragraph three times at the top).
-- Expected by hand: tp1 (1 GPU) and tp2 (2 GPUs) hold the same files, both never saturated at
-- 30 req/s: per GPU tp1 >= 30, tp2 >= 15, lower bounds, so no order per GPU and a "To settle".
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local ROOT, LLMDLUA = t.root()

local function count(text, s)
  local n, at = 0, 1
  while true do
    local a, b = text:find(s, at, true)
    if not a then return n end
    n, at = n + 1, b + 1
  end
end

t.test("the cost note is said once in md and html; the Verdict points to it", function()
  local w = t.tp_workspace(t.tmpdir() .. "/exp")
  -- tp2 holds tp1's files (an A/A check on unlike GPU counts, as newuser49 ran)
  local r2 = w .. "/setup-treatment-tp2/run-sweep/results"
  assert(proc.run({ "rm", "-r", r2 }).ok)
  t.mkdir(r2)
  for _, f in ipairs { "benchmark_01.json", "benchmark_02.json", "benchmark_03.json" } do
    t.write(r2 .. "/" .. f, t.read(w .. "/setup-treatment-tp1/run-sweep/results/" .. f))
  end
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", w, "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local j = json.read(out .. "/treatments.json")
  local per = "Per GPU, max sustained throughput: tp1 ≥ 30.00 req/s per GPU, tp2 ≥ 15.00 req/s per GPU"
  t.ok(j.cost.text:find(per, 1, true), j.cost.text)
  local settle = "To settle the order per GPU"
  t.ok(j.cost.text:find(settle, 1, true), j.cost.text)
  for _, name in ipairs { "treatment_report.md", "treatment_report.html" } do
    local text = t.read(out .. "/" .. name)
    t.eq(count(text, per), 1, name)
    t.eq(count(text, settle), 1, name)
    t.ok(text:find("Not like for like on cost: tp1 1 GPU, tp2 2 GPUs; the figures per GPU and their order are above "
      .. "the ranking (", 1, true), name)
    t.ok(text:find("What would settle it: above the ranking.", 1, true), name)
    -- (the one place: above the ranking table)
    local at = text:find(per, 1, true)
    t.ok(at > text:find("Ranking by max sustained throughput", 1, true), name)
  end
  -- the json keeps the whole verdict, for scripts
  t.ok(j.verdict:find(per, 1, true), j.verdict)
end)

-- The same over workloads (an experiment's setups tp1, 1 GPU, and tp2, 2 GPUs, x run
-- treatments r1, r2, each at 10, 20, 30 req/s and never saturated): the note, the same in
-- every workload, is said once above the rankings; the Verdict line's per-workload "To settle"
-- sentences point there.
t.test("over workloads: the cost note and what would settle it are said once", function()
  local setups = {}
  for i, name in ipairs { "tp1", "tp2" } do
    local runs = {}
    for j, rt in ipairs { "r1", "r2" } do
      local l = {}
      for k, rate in ipairs { 10, 20, 30 } do
        local s = 0.04 + 0.01 * i * k + 0.005 * j
        l[k] = { rate, t.spread(s, s, 100) }
      end
      runs[j] = { rt, t.latency_ladder(l) }
    end
    setups[i] = { name = name, values = t.decode_values(1, i), runs = runs }
  end
  local w = t.experiment_workspace(t.tmpdir() .. "/exp", { experiment = "pairs", setups = setups })
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", w, "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  for _, name in ipairs { "treatment_report.md", "treatment_report.html" } do
    local text = t.read(out .. "/" .. name)
    t.eq(count(text, "Per GPU, max sustained throughput: tp1 ≥ 30.00 req/s per GPU, tp2 ≥ 15.00 req/s per GPU"), 1,
      name)
    t.eq(count(text, "To settle the order per GPU"), 1, name)
    t.eq(count(text, "What would settle it: above the ranking."), 2, name)
  end
end)
