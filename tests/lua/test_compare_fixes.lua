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
  r = select(2, t.compare { "--a", int, "--b", copy, "--a-label", "x", "--b-label", "y" })
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
  for _, c in ipairs { { reser, "the files differ, but every figure their harness recorded at every load point is equal to the "
      .. "last digit: the same requests, saved twice" },
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

local report = require "llmd.report"
local decision = require "llmd.decision"
local template = require "llmd.template"

local function render(name, m)
  m.charts = m.charts or { list = {} }
  return template.render_file(ROOT .. "/templates/" .. name, m)
end

local function cap_model(ra, rb, slo)
  local function sd(label, run) return { label = label, state = { label = label }, run = run, kv = {} } end
  return report.build { a = sd("x", ra), b = sd("y", rb), slo = decision.parse_slo(slo or "ttft_p90_ms=200"),
    generated = 0, workspace = "/tmp/cmpfix" }
end

-- Item 3: "no clear difference" in capacity beside a wide gap read as sameness. Two runs of
-- repeats (t.repeated_run: point i at 10 i req/s, TTFT p90 per repeat as listed); each
-- point's 95 % interval mean +- t(0.975, 2) sd / sqrt 3 (/usr/bin/python3, numpy):
--   x {50,60,70} {150,160,170} {290,300,310}: upper ends 84.84 184.84 324.84, lower ends
--     35.16 135.16 275.16: every end crosses 200 ms between 20 and 30 req/s: range 20-30
--   y {50,60,70} {100,110,120} {150,160,250} {250,260,270}: upper ends cross between 20 and
--     30 (323.48 at 30), the means (186.67 at 30, 260 at 40) and the lower ends (49.85,
--     235.16) between 30 and 40: range 20-40
-- The ranges overlap and the means' brackets (20-30, 30-40) do not: "no clear difference".
-- The gap they allow, y against x: 20 / 30 - 1 = -33.3 % to 40 / 20 - 1 = +100.0 % (by hand).
local X_REP = { { 50, 60, 70 }, { 150, 160, 170 }, { 290, 300, 310 } }
local Y_REP = { { 50, 60, 70 }, { 100, 110, 120 }, { 150, 160, 250 }, { 250, 260, 270 } }

t.test("3: decision.no_clear_difference_text says the gap the overlapping ranges allow", function()
  local pct = function(v) return ("%+.1f %%"):format(v) end
  t.eq(decision.no_clear_difference_text({ lo_pct = -17.8, hi_pct = 438 }, pct, "y vs x"),
    "either may be higher — the repeats' ranges overlap; the gap could be anywhere from -17.8 % to +438.0 % (y vs x)")
  t.eq(decision.no_clear_difference_text({ lo_pct = -17.8, hi_pct = math.huge }, pct),
    "either may be higher — the repeats' ranges overlap; the gap could be anything from -17.8 % up")
  t.eq(decision.no_clear_difference_text({ lo_pct = -17.8, hi_pct = 2000 }, pct),
    "either may be higher — the repeats' ranges overlap; the gap could be anything from -17.8 % up")
  t.eq(decision.no_clear_difference_text({ hi_pct = 12 }, pct),
    "either may be higher — the repeats' ranges overlap; the gap could be anything up to +12.0 %")
  t.eq(decision.no_clear_difference_text(nil, pct),
    "either may be higher — the repeats' ranges overlap; the ranges leave room for any gap")
end)

t.test("3: capacity 'no clear difference' is printed with the gap its ranges allow: md, HTML, JSON, CSV", function()
  local m = cap_model(t.repeated_run(X_REP), t.repeated_run(Y_REP))
  local ev = m.capacity.evidence
  t.eq(ev.verdict, "no clear difference") -- the verdict itself is kept (other code reads it)
  t.eq({ m.capacity.a.interval.lo, m.capacity.a.interval.hi, m.capacity.b.interval.lo, m.capacity.b.interval.hi },
    { 20, 30, 20, 40 })
  local want = "either may be higher — the repeats' ranges overlap; the gap could be anywhere from -33.3 % to "
    .. "+100.0 % (y vs x)"
  -- the Summary and the Headline's evidence (both capacity rows)
  t.ok(m.summary:find("Capacity within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: 22.86 req/s (the repeats allow 20.00–30.00 req/s) for "
    .. "x, 31.82 req/s (the repeats allow 20.00–40.00 req/s) for y: " .. want, 1, true), m.summary)
  t.ok(not m.summary:find("No clear difference in capacity", 1, true), m.summary)
  for _, label in ipairs { "Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)", "Capacity at SLO, output tok/s" } do
    local row = t.headline_row(m, label)
    t.eq(row.evidence:sub(-#want - 2), ": " .. want)
  end
  -- the rendered reports
  for _, name in ipairs { "comparison_report.md", "comparison_report.html" } do
    local text = render(name, m)
    local w = name:match("html$") and want:gsub("'", "&#39;") or want -- (HTML escapes the apostrophe)
    local _, n = text:gsub(w:gsub("%p", "%%%0"), "")
    t.ok(n >= 3, name .. ": " .. n) -- the Summary and the two Headline rows
    t.ok(not text:find("they overlap, no clear difference", 1, true), name)
  end
  -- comparison.json: the gap beside the verdict
  local plain = json.decode(json.encode(report.plain(m)))
  t.eq(plain.capacity.evidence.verdict, "no clear difference")
  t.near(plain.capacity.evidence.gap_lo_pct, -100 / 3, 1e-9)
  t.near(plain.capacity.evidence.gap_hi_pct, 100, 1e-9)
  t.eq(plain.capacity.evidence.text, want)
  -- the CSV: the verdict cell kept, the note opens with the gap
  local line = report.csv(m):match("\ncapacity_at_slo_rps,[^\n]*")
  t.ok(line:find(',no clear difference,,,,"' .. want .. "; x: 22.86 req/s", 1, true), line)
  -- per GPU (2 GPUs each): the ranges halved, 10-15 and 10-20 req/s, the same gap (10 / 15 - 1,
  -- 20 / 10 - 1: by hand), said on the per-GPU row, in its JSON evidence and its CSV row
  local function sd(label, run) return { label = label, state = { label = label, stack = { gpus = 2 } }, run = run,
    kv = {} } end
  m = report.build { a = sd("x", t.repeated_run(X_REP)), b = sd("y", t.repeated_run(Y_REP)),
    slo = decision.parse_slo("ttft_p90_ms=200"), generated = 0, workspace = "/tmp/cmpfix" }
  t.eq(m.capacity.per_gpu.evidence.verdict, "no clear difference")
  local ev_gpu = t.headline_row(m, "Capacity at SLO per GPU").evidence
  t.eq(ev_gpu:sub(-#want - 2), ": " .. want)
  t.eq(json.decode(json.encode(report.plain(m))).capacity.per_gpu.evidence.text, want)
  line = report.csv(m):match("\ncapacity_at_slo_rps_per_gpu,[^\n]*")
  t.ok(line:find(",no clear difference,", 1, true) and line:find(want, 1, true), line)
end)

-- Item 4: the Load Curves table had fixed p90 columns, N/A (no p90) on every vLLM sweep, which
-- records p50, p95 and p99. exp-7's files have TTFT, TPOT and ITL at median, p95 and p99
-- and no end-to-end latency. The means of each run's 3 repeats (/usr/bin/python3, numpy, of
-- the files' p95_ttft_ms, p95_tpot_ms, p95_itl_ms):
--   llm-d-1p1d:     TTFT p95 262.5346, TPOT p95 27.0219, ITL p95 15.3478
--   vllm-2replicas: TTFT p95 256.4424, TPOT p95 24.0824, ITL p95 13.1390
t.test("4: the Load Curves' latency columns at the percentile the runs have, labelled (vLLM sweeps: p95)", function()
  local function sd(label, dir)
    return { label = label, state = { label = label }, run = harness.extract(dir), kv = {} }
  end
  local m = report.build { a = sd("x", EXP7 .. "/llm-d-1p1d"), b = sd("y", EXP7 .. "/vllm-2replicas"),
    generated = 0, workspace = "/tmp/cmpfix" }
  local labels = {}
  for i, c in ipairs(m.curve_columns) do labels[i] = c.label end
  -- TTFT p95 between p50 and p99; E2E: no percentile in either run, p90 kept (N/A, why)
  t.eq(labels, { "TTFT p50", "TTFT p95", "TTFT p99", "TPOT p95", "ITL p95", "E2E p90" })
  local md = render("comparison_report.md", m)
  local sec = md:match("## Load Curves\n(.-)\n## ")
  t.ok(sec:find("| Output tok/s/GPU | TTFT p50 (ms) | TTFT p95 (ms) | TTFT p99 (ms) | TPOT p95 (ms) | ITL p95 (ms) | "
    .. "E2E p90 (ms) | Errors % |", 1, true), sec)
  t.ok(not sec:find("TTFT p90", 1, true), sec)
  -- x's one row: TTFT p50 249.6, p95 262.5, p99 347.3; TPOT p95 27.02; ITL p95 15.35; E2E N/A
  t.ok(sec:find("| 249.6 | 262.5 | 347.3 | 27.02 | 15.35 | N/A |", 1, true), sec)
  t.ok(sec:find("| 243.9 | 256.4 | 350.3 | 24.08 | 13.14 | N/A |", 1, true), sec)
  -- the N/A note names the column as drawn, and no p90 column that is not there
  t.ok(sec:find("E2E p90 at point 1: ", 1, true), sec)
  t.ok(not sec:find("TTFT p90 at", 1, true) and not sec:find("TPOT p90 at", 1, true), sec)
  -- the repeats' line gives the interval of the TTFT percentile the table shows
  t.ok(sec:find("; TTFT p95 262.5 (CI ", 1, true), sec)
  -- the HTML table likewise
  local html = render("comparison_report.html", m)
  t.ok(html:find("<th>Output tok/s/GPU</th><th>TTFT p50 (ms)</th><th>TTFT p95 (ms)</th><th>TTFT p99 (ms)</th>"
    .. "<th>TPOT p95 (ms)</th><th>ITL p95 (ms)</th><th>E2E p90 (ms)</th><th>Errors %</th>", 1, true))
  t.ok(html:find('<td class="n">262.5</td>', 1, true))
  -- comparison.json: the columns, and each row's cells in their order
  local plain = json.decode(json.encode(report.plain(m)))
  t.eq(plain.curve_columns[2].key, "ttft_p95_ms")
  t.eq(plain.curves[2].rows[1].latency[2].text, "256.4")
end)

-- Item 5: comparison.csv had no per-GPU rows for max sustained throughput and whole-run
-- output tok/s, which the Headline and comparison.json show. exp-7 (/usr/bin/python3, numpy:
-- the means over each folder's files): vllm-2replicas request_throughput 3.4848701171063183,
-- output_throughput 696.9740234212636, on 2 GPUs 1.7424350585531592 and 348.4870117106318;
-- llm-d-1p1d 3.4852279198137848 and 697.045583962757, on 4 GPUs 0.8713069799534462 and
-- 174.26139599068924. Neither saturated (max sustained = the highest achieved, a lower bound).
local function csv_row(csv, key)
  local f = t.csv_row(csv, key)
  return { key = f[1], unit = f[2], a = f[3], b = f[4], delta = f[5], pct = f[6], verdict = f[7], note = f[11] }
end

t.test("5: the CSV has the Headline's per-GPU max sustained and output tok/s rows, with their N/A reasons", function()
  local function sd(label, dir, gpus)
    return { label = label, state = { label = label, stack = { gpus = gpus } }, run = harness.extract(dir), kv = {} }
  end
  local m = report.build { a = sd("x", EXP7 .. "/vllm-2replicas", 2), b = sd("y", EXP7 .. "/llm-d-1p1d", 4),
    generated = 0, workspace = "/tmp/cmpfix" }
  local csv = report.csv(m)
  local md = render("comparison_report.md", m)
  local sus = csv_row(csv, "max_sustained_rps_per_gpu")
  t.eq({ sus.unit, sus.verdict, sus.delta }, { "req/s", "untested", "" }) -- two lower bounds: no delta
  t.near(tonumber(sus.a), 1.7424350585531592, 1e-12)
  t.near(tonumber(sus.b), 0.8713069799534462, 1e-12)
  -- the note quotes the Headline's cells, as the report prints them
  local hl = t.table_rows(md, "Headline")["Max sustained throughput per GPU"]
  t.eq({ hl[2], hl[3] }, { "≥ 1.74 req/s (never saturated)", "≥ 0.87 req/s (never saturated)" })
  t.ok(sus.note:find(("x: %s; y: %s"):format(hl[2], hl[3]), 1, true), sus.note)
  local tps = csv_row(csv, "output_tps_per_gpu")
  t.eq(tps.unit, "tok/s")
  t.near(tonumber(tps.a), 348.4870117106318, 1e-9)
  t.near(tonumber(tps.b), 174.26139599068924, 1e-9)
  hl = t.table_rows(md, "Headline")["Output tok/s per GPU (whole run)"]
  t.eq({ hl[2], hl[3] }, { "348.49 tok/s (mean of 3)", "174.26 tok/s (mean of 3)" })
  -- on 2 against 4 GPUs the per-GPU share follows the counts: not comparable, and why (the
  -- Headline's evidence), never a bare -50 % with a verdict
  t.eq({ tps.verdict, tps.delta }, { "not comparable", "" })
  t.ok(tps.note:find("B - A per GPU: -174.2 tok/s, -50.0 %; not like for like per GPU", 1, true), tps.note)
  -- the same GPU count: the delta, untested (174.2614 x 4 / 2 = 348.5228; -/+: by hand)
  m = report.build { a = sd("x", EXP7 .. "/vllm-2replicas", 2), b = sd("y", EXP7 .. "/llm-d-1p1d", 2),
    generated = 0, workspace = "/tmp/cmpfix" }
  tps = csv_row(report.csv(m), "output_tps_per_gpu")
  t.eq(tps.verdict, "untested")
  t.near(tonumber(tps.delta), 697.045583962757 / 2 - 696.9740234212636 / 2, 1e-9)
  -- one count unknown: that side empty, the Headline's reason in the note
  m = report.build { a = sd("x", EXP7 .. "/vllm-2replicas"), b = sd("y", EXP7 .. "/llm-d-1p1d", 4),
    generated = 0, workspace = "/tmp/cmpfix" }
  csv, md = report.csv(m), render("comparison_report.md", m)
  local why = t.table_rows(md, "Headline")["Max sustained throughput per GPU"][2]
  t.eq(why, "N/A (accelerator count unknown: give gpus: N in the run's info file)")
  for _, key in ipairs { "max_sustained_rps_per_gpu", "output_tps_per_gpu" } do
    local r = csv_row(csv, key)
    t.eq({ r.a, r.verdict }, { "", "not comparable" }, key)
    t.ok(r.note:find("x: " .. why, 1, true), r.note)
  end
  -- both unknown: the rows, empty, with the reason the Headline's Per GPU row gives
  m = report.build { a = sd("x", EXP7 .. "/vllm-2replicas"), b = sd("y", EXP7 .. "/llm-d-1p1d"),
    generated = 0, workspace = "/tmp/cmpfix" }
  local r = csv_row(report.csv(m), "output_tps_per_gpu")
  t.eq({ r.a, r.b }, { "", "" })
  t.ok(r.note:find("x: N/A (accelerator counts unknown: gpus: N in the info files)", 1, true), r.note)
end)

-- Item 6: one run of repeats against one run (mixed repeats), with per-request samples: the
-- TTFT rows showed the repeats' mean and were tested on the requests pooled over the
-- repeats. vLLM detailed files written by python3 (the synthetic fixture's fields, 20
-- requests each, TTFT in ms as listed, no failures, all at 20 req/s):
--   x: 3 repeats, TTFT 30..49 (step 1), 60..117 (step 3), 62..119 (step 3)
--   y: 1 run, TTFT 55..102.5 (step 2.5); y3: that run and two more, every TTFT +3 and -2 ms;
--   y1: the +3 ms one alone
-- numpy.percentile (linear) p90: x's repeats 47.1, 111.3, 113.3, mean 90.5667; x's 60
-- requests pooled 110.1; y 97.75. The pooled figure lies above y's, the mean shown below it:
-- a test of the pooled requests is about a figure on the other side of the one shown.
local MIX = [==[
import json, os, sys
src, out = sys.argv[1], sys.argv[2]
d = json.load(open(src))
def write(path, ttfts, date):
    n = len(ttfts)
    lats = [x + 300.0 for x in ttfts]
    e = dict(d, date=date, num_prompts=n, completed=n, failed=0, request_rate=20, max_concurrency=None)
    e.update(ttfts=[x / 1000 for x in ttfts], latencies=[x / 1000 for x in lats], output_lens=[32] * n,
             errors=[""] * n, start_times=[100 + i * 0.05 for i in range(n)], input_lens=[256] * n,
             itls=[[(l - x) / 1000 / 31] * 31 for x, l in zip(ttfts, lats)], generated_texts=["x"] * n,
             queue_times=[0.0] * n)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump(e, open(path, "w"))
xs = [[30 + i for i in range(20)], [60 + i * 3 for i in range(20)], [62 + i * 3 for i in range(20)]]
for k, x in enumerate(xs):
    write("%s/x/result_%d.json" % (out, k), x, "2026010%d-101500" % (k + 1))
y = [55 + i * 2.5 for i in range(20)]
write(out + "/y/result.json", y, "20260201-101500")
for k, off in enumerate((0, 3, -2)):
    write("%s/y3/result_%d.json" % (out, k), [v + off for v in y], "2026020%d-101500" % (k + 1))
write(out + "/y1/result.json", [v + 3 for v in y], "20260203-101500")
]==]

t.test("6: mixed repeats: a row showing one run's repeat mean is not tested on the requests pooled over them",
  function()
  local tmp = t.tmpdir()
  py(MIX, F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json", tmp)
  local function sd(label, dir) return { label = label, state = { label = label }, run = harness.extract(dir), kv = {} } end
  local function row(m, key)
    for _, r in ipairs(m.perf) do if r.key == key then return r end end
  end
  local x = harness.extract(tmp .. "/x")
  t.near(x.overall.values.ttft_p90_ms, 110.1, 1e-9) -- the pooled figure (what was tested)
  for _, order in ipairs { { "x", "y" }, { "y", "x" } } do
    local m = report.build { a = sd(order[1], tmp .. "/" .. order[1]), b = sd(order[2], tmp .. "/" .. order[2]),
      generated = 0, workspace = "/tmp/cmpfix" }
    local r = row(m, "ttft_p90_ms")
    local xt = order[1] == "x" and r.a_text or r.b_text
    local yt = order[1] == "x" and r.b_text or r.a_text
    t.eq({ xt, yt }, { "90.6 ms (mean of 3)", "97.8 ms" })
    -- the figure shown is the mean of the repeats: untested, and why (it was "Mann-Whitney")
    t.eq({ r.verdict, r.test, r.p_value }, { "untested", nil, nil })
    t.eq(r.note, "a mean of repeats against one run: no test (the requests pooled over the repeats would test a "
      .. "figure the table does not show)")
    for _, key in ipairs { "ttft_mean_ms", "tpot_p90_ms", "itl_p90_ms", "latency_p90_ms" } do
      t.eq(row(m, key).verdict, "untested", key)
    end
  end
  -- repeats on both sides: the repeats' test of the means shown (Welch), never the pooled
  -- requests' Mann-Whitney
  local m = report.build { a = sd("x", tmp .. "/x"), b = sd("y3", tmp .. "/y3"), generated = 0, workspace = "/tmp/c" }
  local r = row(m, "ttft_p90_ms")
  t.eq(r.a_text, "90.6 ms (mean of 3)")
  t.eq(r.test, "welch")
  -- one run each: the per-request test, as before (the figures shown are the runs' own)
  m = report.build { a = sd("y", tmp .. "/y"), b = sd("y1", tmp .. "/y1"), generated = 0,
    workspace = "/tmp/c" }
  t.eq(row(m, "ttft_p90_ms").test, "mann_whitney")
end)
