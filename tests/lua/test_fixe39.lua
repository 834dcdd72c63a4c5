-- A new user's trial of treatments.lua and experiment.lua (session 39): a capacity below the
-- lowest load is its bound in treatment_ranking.csv and treatments.json, never 0; the
-- Verdict of an experiment whose setups differ in replicas only says so and carries the
-- caveat of byte-identical results; the bars at the common load mark the treatments
-- overloaded there; the simulators' --help names every option with its unit and a python3
-- without numpy stops with one line.
local t = require "testlib"
local tr = require "llmd.treatments"
local json = require "llmd.json"
local proc = require "llmd.proc"
local decision = require "llmd.decision"
local ROOT, LLMDLUA = t.root()

local find = t.contains

-- treatment_ranking.csv's rows, each a list of its fields (no field here holds a comma but
-- the evidence, last but one, which is quoted: the fields before it are read)
local function csv_rows(text)
  local rows = {}
  for line in text:gmatch("([^\r\n]*)\r\n") do
    local f = {}
    for v in (line:gsub('".*"', "") .. ","):gmatch("([^,]*),") do f[#f + 1] = v end
    rows[#rows + 1] = f
  end
  return rows
end

t.test("1: a capacity below the lowest load is that load's rate with value_kind below, never 0 (the model, whose places treatments.json copies, and the CSV)",
  function()
  -- TTFT p90 <= 500 ms, by hand (each load offered = achieved, t.ttft_treatment):
  --   z, 2 GPUs: 5 (100 ms), 10 (200 ms): never violated, at least 10 req/s (at_least), 5 per GPU
  --   y, 2 GPUs: 5 (100 ms), 10 (900 ms): 5 + (500 - 100) / (900 - 100) x 5 = 7.5 (estimate), 3.75 per GPU
  --   x, 1 GPU: 5 (600 ms), 10 (900 ms): failed at the lowest load, below 5 req/s (below), 5 per GPU
  -- On main x's value_rps (and ranking[].value) was 0, its value_rps_per_gpu 5.
  local slo = decision.parse_slo("ttft_p90_ms=500")
  local list = { t.ttft_treatment("x", { { 5, 600 }, { 10, 900 } }, 1),
    t.ttft_treatment("y", { { 5, 100 }, { 10, 900 } }, 2), t.ttft_treatment("z", { { 5, 100 }, { 10, 200 } }, 2) }
  local m = tr.model(list, { slo = slo })
  local got = {}
  for _, r in ipairs(m.ranking) do got[#got + 1] = { r.label, r.value_kind } end
  t.eq(got, { { "z", "at_least" }, { "y", "estimate" }, { "x", "below" } })
  for i, want in ipairs { { 10, 5 }, { 7.5, 3.75 }, { 5, 5 } } do
    t.near(m.ranking[i].value, want[1], 1e-9)
    t.near(m.ranking[i].per_gpu_value, want[2], 1e-9)
  end
  local rows = csv_rows(tr.ranking_csv_text(m))
  t.eq({ rows[1][5], rows[1][6], rows[1][7], rows[1][9] }, { "value_rps", "value_kind", "text", "value_rps_per_gpu" })
  for i, want in ipairs { { "z", 10, "at_least", "≥ 10.000 req/s", 5 }, { "y", 7.5, "estimate", "about 7.500 req/s", 3.75 },
    { "x", 5, "below", "< 5.000 req/s", 5 } } do
    local r = rows[i + 1]
    t.eq(r[3], want[1])
    t.near(tonumber(r[5]), want[2], 1e-9)
    t.eq(r[6], want[3], r[3])
    t.ok(r[7]:sub(1, #want[4]) == want[4], r[7])
    t.near(tonumber(r[9]), want[5], 1e-9)
  end
end)

-- An experiment workspace whose setups differ in decode.replicas (1 and 2) with no
-- parallelism.tensor (GPU counts unknown), both holding the same files of one rate sweep
-- (t.latency_ladder: 10 and 20 req/s, TTFT 50 and 80 ms): as the README's fake-cluster
-- walkthrough leaves it.
local function replicas_workspace(w)
  t.mkdir(w)
  t.write(w .. "/experiment-state.json", json.encode { experiment = "replicas", results = {
    { setup_treatment = "one", status = "success" }, { setup_treatment = "two", status = "success" } } })
  local src = t.latency_ladder { { 10, t.spread(0.050, 0.050, 100) }, { 20, t.spread(0.080, 0.080, 100) } }
  for i, name in ipairs { "one", "two" } do
    local d = w .. "/setup-treatment-" .. name
    t.mkdir(d .. "/plan")
    t.write(d .. "/plan/values-override.yaml", ("decode:\n  replicas: %d\n"):format(i))
    t.mkdir(d .. "/run-sweep/results")
    for _, f in ipairs { "benchmark_01.json", "benchmark_02.json" } do
      t.write(d .. "/run-sweep/results/" .. f, t.read(src .. "/" .. f))
    end
  end
  return w
end

t.test("2: the Verdict of setups differing in replicas only says what is known, and the caveat of identical results",
  function()
  -- (on main: "the treatments ran on different numbers of accelerators", which nothing
  -- says, and no word of the byte-identical results in the Verdict, only in the warning)
  local w = replicas_workspace(t.tmpdir() .. "/exp")
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", w, "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local line = json.read(out .. "/treatments.json").verdict_line
  t.eq(line, "Caveat: one and two hold the same results (byte for byte): each a run compared with itself, "
    .. "so nothing here tells those configurations apart (see the warnings). Not like for like on cost: the setups' "
    .. "replicas differ (one decode.replicas 1; two decode.replicas 2) and their GPU counts are unknown, "
    .. "so none is named best on totals (see below).")
  find(t.read(out .. "/treatment_report.md"), "**Verdict:** " .. line, "md")
  t.ok(not line:find("different numbers of accelerators", 1, true), line)
  -- GPU counts known and different (--gpus): the accelerators are named as before
  r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", w, "--out", out .. "2", "--quiet", "--gpus",
    "one=1,two=2" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  find(json.read(out .. "2/treatments.json").verdict_line, "(see the warnings). Not like for like on cost: the "
    .. "treatments ran on different numbers of accelerators, so none is named best on totals", "json")
  -- one count unknown: said so, not "different numbers"
  r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", w, "--out", out .. "3", "--quiet", "--gpus", "one=1" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  find(json.read(out .. "3/treatments.json").verdict_line, "(see the warnings). Not known to be like for like on cost: "
    .. "the GPU count of two is unknown, so none is named best on totals", "json")
end)

if not t.have_numpy() then
  t.test("3 and 5: the simulated server's runs (skipped: no numpy for queue_sim.py)", function() end)
  return
end

t.test("3: the bars at the common load mark the treatment saturated there, in the chart and its note", function()
  -- queue_sim.py at 6 and 8 req/s offered for 30 s, each request 0.1 + 100 x 0.02 = 2.1 s
  -- (times noise): 10 slots serve at most 10 / 2.1 = 4.8 req/s, under 95 % of 6 (5.7):
  -- saturated at both loads; 100 slots serve 48 req/s: sustained. So at the common load the
  -- 10-slot server's bars are marked, in each of the 3 panels, the other's not (on main:
  -- no mark in the chart, only the note "small is saturated at this load").
  if not require("llmd.charts").gnuplot() then return end
  local d = t.tmpdir()
  t.data_py("queue_sim.py", d .. "/small", "--rates", "6,8", "--slots", "10", "--dur", "30", "--seed", "3")
  t.data_py("queue_sim.py", d .. "/big", "--rates", "6,8", "--slots", "100", "--dur", "30", "--seed", "4")
  local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "small=" .. d .. "/small", "--run",
    "big=" .. d .. "/big", "--out", d .. "/out", "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local svg = t.read(d .. "/out/charts/treatments_bars.svg")
  local n = 0
  for _ in svg:gmatch(">saturated<") do n = n + 1 end
  t.eq(n, 3)
  t.ok(not svg:find(">mild overload<", 1, true), "no mild overload")
  local md = t.read(d .. "/out/treatment_report.md")
  find(md, "Hatched bars, labelled \"saturated\" or \"mild overload\" above them, are of a treatment overloaded at "
    .. "this load (here 1 of 2): they show an overloaded server's latencies, not a sustained load's.", "md")
  find(md, "small is saturated at this load", "md")
  t.ok(not md:find("big is saturated", 1, true), "big kept up")
end)

t.test("5: the simulators' --help names each option with its unit; a python3 without numpy stops with one line",
  function()
  -- a numpy that cannot be imported, first on the path (as a python3 without it)
  local fake = t.tmpdir()
  t.mkdir(fake .. "/numpy")
  t.write(fake .. "/numpy/__init__.py", "raise ModuleNotFoundError(\"No module named 'numpy'\", name='numpy')\n")
  for _, s in ipairs { "queue_sim.py", "queue_sim_ip.py" } do
    local script = ROOT .. "/tests/data/" .. s
    -- --help needs no numpy (on main: a traceback, ModuleNotFoundError)
    local r = proc.run({ t.PY, script, "--help" }, { env = { PYTHONPATH = fake } })
    t.eq(r.code, 0, s .. ": " .. r.stdout .. r.stderr)
    for _, want in ipairs { "--ttft0 S", "seconds to the first token", "--tpot S", "seconds per output token",
      "--dur S", "seconds of arrivals at each rate", "--rates R,R,...", "requests per second", "--slots K",
      "--outtok N", "--intok N", "--seed N", "--noise F", "--fail F", "--timeout S" } do
      find(r.stdout, want, s)
    end
    -- --repeat is queue_sim.py's only
    t.eq(r.stdout:find("--repeat N", 1, true) ~= nil, s == "queue_sim.py", s)
    r = proc.run({ t.PY, script, t.tmpdir() .. "/x", "--rates", "1" }, { env = { PYTHONPATH = fake } })
    t.eq({ r.code, r.stdout, r.stderr }, { 1, "", s .. ": needs numpy: use /usr/bin/python3 or apt install "
      .. "python3-numpy\n" })
  end
end)
