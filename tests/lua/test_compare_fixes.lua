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

-- Session 31's leftovers in compare.lua's report (task cmpfix3): the tok/s capacity row's own
-- gap, the same order in every output, max sustained of a run of two workloads, the
-- stratified test with repeats, precision of cached tokens, the repeats' bands in charts.
-- Expected values are by hand or python3 (numpy) as each test says.
-- (Formerly test_cmpfix3.lua.)
do
  local VLLM = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
  local CHUNKED = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

  -- A run of rate-based load points {offered = achieved req/s, output tok/s, TTFT p90 ms}.
  local function run(rows)
    local stages = {}
    for i, r in ipairs(rows) do
      stages[i] = { rate = r[1], values = { throughput_req_s = r[1], throughput_tok_s = r[2], ttft_p90_ms = r[3],
        error_rate_pct = 0 } }
    end
    return t.run_of(stages)
  end
  local function sdr(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end

  t.test("a tok/s capacity row beside a req/s 'not shown to differ' (gap wide) quotes its own tok/s gap", function()
    -- TTFT p90 <= 200 ms crosses between 10 and 20 req/s in both (by hand: x halfway, 15.00;
    -- y at 10 + 10 x 100 / 190 = 15.26): within 2 % of each other, but the brackets 10-20 and
    -- 10-20 allow B - A from 10 / 20 - 1 = -50 % to 20 / 10 - 1 = +100 % in req/s. In tok/s x
    -- delivers 100 a request (1000-2000 tok/s), y 150 (1500-3000): B - A from 1500 / 2000 - 1 =
    -- -25.0 % to 3000 / 1000 - 1 = +200.0 % (by hand)
    local m = report.build { a = sdr("x", run { { 10, 1000, 100 }, { 20, 2000, 300 } }),
      b = sdr("y", run { { 10, 1500, 100 }, { 20, 3000, 290 } }), slo = decision.parse_slo("ttft_p90_ms=200"),
      generated = 0 }
    local ev = m.capacity.evidence
    t.eq({ ev.verdict, ev.gap_wide }, { "not shown to differ", true })
    local rps = t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)")
    t.eq(rps.pct_text, "-50.0 % to +100.0 %")
    local row = t.headline_row(m, "Capacity at SLO, output tok/s")
    t.eq(row.pct_text, "-25.0 % to +200.0 %")
    -- it read "... the figures are within the practical threshold of 2.0 %, but the measured
    -- loads allow B − A -50.0 % to +100.0 %", the req/s gap, beside -25.0 % to +200.0 %
    t.eq(row.evidence, "one run per load, no interval; the req/s figures are within the practical threshold of 2.0 %, "
      .. "but in output tok/s the measured loads allow B − A -25.0 % to +200.0 %: not shown to differ, no winner")
    t.ok(not row.evidence:find("+100.0 %", 1, true), row.evidence)
  end)

  local csv_fields = t.csv_row

  t.test("the max sustained throughput's order is said alike in the md, HTML, JSON and CSV", function()
    -- the demo pair (python3 on the stage files' successes.throughput.requests_per_sec):
    -- vllm 1.0172, 31.1559, 61.2419, 91.3573, 101.232 (of 122.59 offered: 82.6 %, saturated),
    -- 101.4602, 103.078; chunked ..., 126.5347, 167.7836, 170.2076 (of 212.24: 80.2 %,
    -- saturated), 172.9616. The ranked rates are the drain-reduced ones, completed / (window -
    -- least latency) (python3, _drain in harness_expected.lua): chunked sustained 169.43,
    -- above the most vllm achieved at any load, 104.24: the loads order them (untested)
    local w, r = t.compare { "--a", VLLM, "--a-label", "vllm", "--b", CHUNKED, "--b-label", "chunked", "--slo",
      "ttft_p90_ms=200" }
    t.eq(r.code, 0, r.stderr)
    local want = "one run per load, no interval: untested, but the measured loads order them: chunked sustained "
      .. "169.43 req/s, vllm never achieved more than 104.24 req/s at any load"
    local md = t.read(w .. "/comparison_report.md")
    t.eq(t.table_rows(md, "Headline")["Max sustained throughput"][6], want)
    local js = json.read(w .. "/comparison.json")
    t.eq(t.headline_row(js, "Max sustained throughput").evidence, want)
    local html = t.read(w .. "/comparison_report.html")
    t.ok(html:find(require("llmd.html").escape(want), 1, true), "the HTML's Headline")
    local csv = t.read(w .. "/comparison.csv")
    local row = csv_fields(csv, "max_sustained_rps")
    -- (it said "untested" with only the two figures in its note)
    t.eq(row[7], "untested")
    t.ok(row[11]:find("; evidence: " .. want, 1, true), row[11])
    -- the capacity row likewise: the order the Headline gives it (127.76 sustained within the
    -- SLO against vllm's 104.24 at most, drain-reduced rates)
    local cap = t.headline_row(js, "Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)").evidence
    t.ok(cap:find("the order holds whatever the bound: chunked sustained 127.76 req/s, vllm never achieved more than "
      .. "104.24 req/s at any load", 1, true), cap)
    t.ok(csv_fields(csv, "capacity_at_slo_rps")[11]:find("; evidence: " .. cap, 1, true), "capacity's CSV note")
    -- the Headline's output tok/s capacity has its CSV row too (it had none; new-user trial,
    -- session 32): vllm's bound is its tok/s at the last load before saturation, 5747.232
    -- (stage 3's successes.throughput.output_tokens_per_sec x its drain-reduced rate / its
    -- requests_per_sec), chunked's the TTFT p90 = 200 ms crossing between stages 3 and 4
    -- (37.245 and 226.506 ms) carried onto their output tok/s (7978.361 and 10575.043, the
    -- same way): 10211.382 (python3 on the stage files); B - A from 7978.361 - 6503.427 (vllm's
    -- most) = +1,474.9 (+22.7 %) to 10575.043 - 5747.232 = +4,827.8 (+84.0 %); its evidence the
    -- Headline's tok/s row's
    local tps = csv_fields(csv, "capacity_at_slo_output_tps")
    t.eq(tps[2], "tok/s")
    t.near(tonumber(tps[3]), 5747.232, 1e-3)
    t.near(tonumber(tps[4]), 10211.382, 1e-3)
    t.eq(tps[7], "untested")
    local ev = t.headline_row(js, "Capacity at SLO, output tok/s").evidence
    t.ok(ev:find("the measured loads order them in output tok/s too", 1, true), ev)
    t.ok(tps[11]:find("vllm: ≥ 5,747.2 tok/s; chunked: about 10,211.4 tok/s; B - A: +1,474.9 to +4,827.8 tok/s, "
      .. "+22.7 % to +84.0 %; evidence: " .. ev, 1, true), tps[11])
  end)

  t.test("KV rates: at least 3 significant digits, and a row's A, B and Delta to one precision", function()
    -- cached tokens per completed request 1.9167 against 1.9290 (by hand: +0.0123, whose 3
    -- significant digits need 4 decimals, so A and B get 4 too: it read "1.9", "1.9" beside
    -- "+0.0123"); misses per request 12.5 against 12.5 + 0.25 = 12.75 (+0.250: 3 decimals for
    -- all three); a hit rate of 5.5 % against 6 % (+0.500 pp: 3 decimals, "5.500 %", "6.000 %")
    local function kv_side(label, kv)
      kv.available = true
      return { label = label, state = { label = label }, kv = kv,
        run = t.run_of { { rate = 10, values = { throughput_req_s = 10, ttft_p90_ms = 100 } } } }
    end
    local m = report.build { a = kv_side("x", { hits_per_request = 1.9167, misses_per_request = 12.5,
      hit_rate_pct = 5.5 }), b = kv_side("y", { hits_per_request = 1.9290, misses_per_request = 12.75,
      hit_rate_pct = 6 }), generated = 0, workspace = "/tmp/kv" }
    local by = {}
    for _, part in ipairs { m.kv.rows, m.kv.efficiency } do
      for _, r in ipairs(part) do by[r.key] = r end
    end
    local function cells(k) return { by[k].a_text, by[k].b_text, by[k].delta_text } end
    t.eq(cells("hits_per_request"), { "1.9167", "1.9290", "+0.0123" })
    t.eq(cells("misses_per_request"), { "12.500", "12.750", "+0.250" })
    t.eq(cells("hit_rate_pct"), { "5.500 %", "6.000 %", "+0.500 pp" })
    -- one side unknown: the other at its own 3 significant digits
    m = report.build { a = kv_side("x", { hits_per_request = 1.9167 }), b = kv_side("y", {}), generated = 0,
      workspace = "/tmp/kv" }
    for _, r in ipairs(m.kv.efficiency) do
      if r.key == "hits_per_request" then t.eq(r.a_text, "1.92") end
    end
  end)

  t.test("a run of two workloads has no max sustained throughput: N/A with why, in every output", function()
    -- vllm-2replicas' files (3.6 req/s, 1599800 / 200 = 7999.0 input tokens a request) beside
    -- vllm-3replicas' (5.5 req/s, 2499750 / 250 = 9999.0): python3 on the files, 25 % apart (>
    -- 5 %): two workloads in one folder (newuser31 (test_ingest.lua)'s nu31-8). It read "≥ 5.35 req/s (never
    -- saturated)", the 5.5 req/s workload's rate as the run's limit
    local dir = t.tmpdir() .. "/mixed"
    for _, c in ipairs { "vllm-2replicas", "vllm-3replicas" } do
      t.walk(EXP7 .. "/" .. c, function(path)
        if path:match("%.json$") then t.copy(path, dir .. "/" .. path:match("[^/]+$")) end
      end)
    end
    local why = "mixed's load points sent different requests (see the Data checks), so a max sustained throughput "
      .. "across them would mix two workloads"
    for _, slo in ipairs { { "--slo", "ttft_p95_ms=300" }, {} } do
      local args = { "--a", dir, "--b", EXP7 .. "/llm-d-1p1d" }
      for _, x in ipairs(slo) do args[#args + 1] = x end
      local w, r = t.compare(args)
      t.eq(r.code, 0, r.stderr)
      local md = t.read(w .. "/comparison_report.md")
      local row = t.table_rows(md, "Headline")["Max sustained throughput"]
      t.eq(row[2], "N/A (mixed's load points sent different requests, see the Data checks, so a max sustained "
        .. "throughput across them would mix two workloads)")
      t.eq({ row[4], row[6] }, { "N/A (unknown for A)", "not compared: " .. why })
      t.ok(md:find("so that run's capacity and max sustained throughput are N/A", 1, true), "the banner")
      local js = json.read(w .. "/comparison.json")
      local h = t.headline_row(js, "Max sustained throughput")
      t.eq({ h.a, h.a_text, h.evidence }, { nil, row[2], row[6] })
      t.eq(js.saturation.a.max_sustained_na, why)
      t.eq(js.saturation.b.max_sustained_na, nil)
      local csv = csv_fields(t.read(w .. "/comparison.csv"), "max_sustained_rps")
      t.eq({ csv[3], csv[5], csv[6] }, { "", "", "" })
      t.ok(csv[11]:find("mixed: " .. row[2], 1, true), csv[11])
      local html = t.read(w .. "/comparison_report.html")
      t.ok(html:find(require("llmd.html").escape(row[2]), 1, true), "the HTML's Headline")
      if #slo == 0 then
        -- without SLOs the Summary says it where it gave the two figures
        t.ok(js.summary:find("Max sustained throughput is not compared: " .. why, 1, true), js.summary)
        t.ok(not js.summary:find("5.35", 1, true), js.summary)
      end
    end
  end)

  local latency_ladder = t.latency_ladder

  local function perf_model(da, db)
    local function side(dir, label)
      return { label = label, run = harness.extract(dir, {}), state = { label = label },
        kv = { available = false, reason = "none" } }
    end
    local m = report.build { a = side(da, "x"), b = side(db, "y"), generated = 0 }
    local rows = {}
    for _, row in ipairs(m.perf) do rows[row.key] = row end
    return m, rows
  end

  t.test("several load points with repeats: the repeats are the units of the stratified test, not their requests",
    function()
    -- 40 TTFTs at each load (50 + i ms at 2/s, 200 + i ms at 10/s, i = 1..40); A 3 repeats at
    -- 2/s and 1 at 10/s, B 1 and 3, each of B's 5.5 ms slower. With the requests of the
    -- repeats pooled as independent (van Elteren on the merged samples) p was 0.00061, "A
    -- better", from 4 runs a side. With the repeats as units, each repeat's TTFT mean one value
    -- (the TTFT rows' one test, as the samples' was):
    -- at 2/s A's three are one value v and B's one v + 5.5 ms (B's rank 4 of 4: probability
    -- 1/4), at 10/s A's one w and B's three w + 5.5 ms (B's ranks 2, 3, 4: 1/4); by hand, the
    -- exact p = 2 x 1/4 x 1/4 = 0.125, and no split of these values could give less (p_min
    -- 0.125): the test cannot show a difference
    local l1, l2, l1s, l2s = {}, {}, {}, {}
    for i = 1, 40 do
      l1[i], l2[i] = (50 + i) / 1000, (200 + i) / 1000
      l1s[i], l2s[i] = l1[i] + 0.0055, l2[i] + 0.0055
    end
    local da = latency_ladder { { 2, l1 }, { 2, l1 }, { 2, l1 }, { 10, l2 } }
    local db = latency_ladder { { 2, l1s }, { 10, l2s }, { 10, l2s }, { 10, l2s } }
    local m, rows = perf_model(da, db)
    t.eq(m.workload_match.like_for_like, true)
    local r = rows.ttft_p90_ms
    t.near(r.p_value, 0.125, 1e-12)
    t.eq({ r.verdict, r.test, r.winner }, { "not shown to differ", "mann_whitney", nil })
    t.eq(r.evidence, "Mann-Whitney on the repeats' TTFT mean, stratified by load point (van Elteren, 2 points, exact), "
      .. "p = 0.125: "
      .. "4 and 4 repeats over 2 load points can give no p below 0.125, so this test cannot show a difference; not in "
      .. "the Holm family")
    -- the TTFT rows read that one test
    t.eq(rows.ttft_p99_ms.evidence, r.evidence)
    -- 3 repeats at both loads on both sides, each repeat a little apart (+0.1 ms, +0.2 ms), B
    -- 5.5 ms slower in every one: complete separation at both loads, by hand p = 2 x (1 /
    -- C(6, 3))^2 = 0.005 (the TTFT means, and the E2E latencies' p50: the same test, 0.005,
    -- Holm 0.01 over the 2); TTFT p90 about 232 ms, 5.5 ms is 2.3 %, beyond 2 %: A better
    local shifted = t.shifted
    local pa, pb = {}, {}
    for k = 0, 2 do
      pa[#pa + 1] = { 2, shifted(l1, k * 1e-4) }
      pa[#pa + 1] = { 10, shifted(l2, k * 1e-4) }
      pb[#pb + 1] = { 2, shifted(l1s, k * 1e-4) }
      pb[#pb + 1] = { 10, shifted(l2s, k * 1e-4) }
    end
    rows = select(2, perf_model(latency_ladder(pa), latency_ladder(pb)))
    r = rows.ttft_p90_ms
    t.near(r.p_value, 0.005, 1e-12)
    t.eq({ r.test, r.winner, r.verdict }, { "mann_whitney", "a", "A better" })
    t.ok(r.evidence:find("^Mann%-Whitney on the repeats' TTFT mean, stratified by load point %(van Elteren, 2 points, "
      .. "exact%), p = 0.005, Holm%-adjusted 0.01"), r.evidence)
    t.eq(r.family_size, 2)
  end)

  t.test("the repeats pair of the README: TTFT mean tested on the repeats at each load point", function()
    -- exp-7's llm-d-1p1d and vllm-2replicas (3.6 req/s) with tests/fixtures/saturating-repeats'
    -- x and y (5.5 req/s), 3 repeats each: mean_ttft_ms per repeat (python3 on the files)
    -- x 249.540, 255.904, 250.207 | 442.802, 486.818, 431.573; y 243.571, 248.706, 244.259 |
    -- 452.593, 429.932, 426.775. Exact van Elteren (/usr/bin/python3, every split of each
    -- stratum with itertools, weights 1 / 7): p = 0.04, p_min = 0.005. (It was untested: no
    -- per-request samples.)
    local SAT = ROOT .. "/tests/fixtures/saturating-repeats"
    local function dir(cfg, sat)
      local d = t.tmpdir() .. "/" .. sat
      t.mkdir(d)
      for _, src in ipairs { EXP7 .. "/" .. cfg, SAT .. "/" .. sat } do
        t.walk(src, function(path)
          if path:match("%.json$") then t.copy(path, d .. "/" .. path:match("[^/]+$")) end
        end)
      end
      return d
    end
    local _, rows = perf_model(dir("llm-d-1p1d", "x"), dir("vllm-2replicas", "y"))
    local r = rows.ttft_mean_ms
    t.near(r.p_value, 0.04, 1e-12)
    t.eq(r.test, "mann_whitney")
    t.ok(r.evidence:find("^Mann%-Whitney on the repeats' TTFT mean, stratified by load point %(van Elteren, 2 "
      .. "points, exact%), p = 0.04"), r.evidence)
  end)

  t.test("two overlapping ranges from repeats are two brackets in lanes, never a grey wash over the panel",
    function()
    local charts = require "llmd.charts"
    -- x crosses TTFT p90 200 ms between 20 and 30 req/s by its means, y too; their repeats'
    -- ranges 10-40 and 20-40 req/s overlap (the Headline's, read by the model)
    local ra = t.repeated_run { { 50, 60, 70 }, { 170, 180, 190 }, { 250, 300, 350 }, { 400, 420, 440 } }
    local rb = t.repeated_run { { 60, 70, 80 }, { 150, 160, 170 }, { 190, 230, 260 }, { 400, 430, 460 } }
    local function sd(x, label, r) return { x = x, label = label, state = { label = label }, run = r, kv = {} } end
    local A, B = sd("a", "x", ra), sd("b", "y", rb)
    local m = report.build { a = A, b = B, slo = decision.parse_slo("ttft_p90_ms=200"), generated = 0 }
    t.eq({ m.capacity.a.interval.text, m.capacity.b.interval.text }, { "10.00–40.00 req/s", "20.00–40.00 req/s" })
    local c = charts.latency_throughput(m, A, B)
    local out = t.tmpdir()
    charts.render({ c }, ROOT .. "/templates", out, charts.gnuplot())
    local svg = t.read(out .. "/latency_throughput.svg")
    -- every filled polygon over the panel's height (179 px): a tint, faint, so that two of them
    -- stay light (it was 0.12 each, the overlap a grey wash)
    local tall = 0
    for op, pts in svg:gmatch("<polygon fill = 'rgb%([^)]*%)' fill%-opacity = '([%d.]+)' points = '([^']*)'") do
      local ylo, yhi = math.huge, -math.huge
      for y in pts:gmatch("[%d.]+,([%d.]+)") do ylo, yhi = math.min(ylo, tonumber(y)), math.max(yhi, tonumber(y)) end
      if yhi - ylo > 100 then
        tall = tall + 1
        t.ok(tonumber(op) <= 0.05, ("a full-height fill of opacity %s"):format(op))
      end
    end
    t.eq(tall, 4, "a tint per run and panel")
    -- each run's range a bracket |---| (fixe42: a filled bar there read as a data series): in
    -- gnuplot's SVG an arrow with barred heads, one path holding two vertical bars and the
    -- horizontal line between them; each run's in each of the 2 panels, A's lane above B's and
    -- apart from it (SVG y grows downwards)
    local lanes = { ["0, 114, 178"] = {}, ["213,  94,   0"] = {} }
    for col, d in svg:gmatch("<path stroke='rgb%(%s*([^)]*)%)'%s+d='([^']*)'") do
      local bars, line = 0, nil
      for x1, y1, x2, y2 in d:gmatch("M([%d.]+),([%d.]+) L([%d.]+),([%d.]+)") do
        x1, y1, x2, y2 = tonumber(x1), tonumber(y1), tonumber(x2), tonumber(y2)
        if math.abs(x1 - x2) < 0.1 then bars = bars + 1
        elseif math.abs(y1 - y2) < 0.1 and math.abs(x2 - x1) > 50 then line = y1 end
      end
      if lanes[col] and bars >= 2 and line then table.insert(lanes[col], line) end
    end
    local la, lb = lanes["0, 114, 178"], lanes["213,  94,   0"]
    t.ok(#la >= 2 and #lb >= 2, ("brackets: %d and %d"):format(#la, #lb))
    for i = 1, 2 do t.ok(la[i] + 1 < lb[i], ("A's lane at %g above B's at %g"):format(la[i], lb[i])) end
  end)
end
