-- Per-GPU figures and repeats in the Headline (new user's findings nu5-nu8): a per-GPU cell
-- says exactly what its total says, divided; with different GPU counts the per-GPU rows lead
-- and the totals follow, labelled as totals, in every output; each run's figure depends on
-- its own data only (3 repeats against 1); the whole-run output tok/s per GPU is the
-- Performance Results' figure divided, never N/A where both are known.
--
-- Expected values: python3 (numpy) on the exp-7 fixture files, one load point of 3 repeats
-- each (3.6 req/s offered), the means over the files of each configuration:
--   import json, glob, numpy as np
--   for c in ["vllm-2replicas", "llm-d-1p1d", "vllm-3replicas", "llm-d-2p1d"]:
--       ds = [json.load(open(f)) for f in sorted(glob.glob(c + "/*.json"))]
--       for k in ["request_throughput", "output_throughput", "p95_ttft_ms"]:
--           print(c, k, [d[k] for d in ds], np.mean([d[k] for d in ds]))
-- vllm-2replicas: request_throughput mean 3.4848701171063183, output_throughput mean
--   696.9740234212636, p95_ttft_ms mean 256.4424156124005
-- llm-d-1p1d: output_throughput mean 697.045583962757, p95_ttft_ms 261.13618802046403 in
--   its first file (benchmark_2025-05-13_04-37-51.json), 262.53460916535306 the mean
-- vllm-3replicas: request_throughput mean 5.345922454848432 (/ 3 GPUs = 1.781974)
-- llm-d-2p1d: request_throughput mean 5.3306927707815275 (/ 2 GPUs = 2.665346)
local t = require "testlib"
local json = require "llmd.json"
local report = require "llmd.report"
local decision = require "llmd.decision"
local harness = require "llmd.harness"

local F = t.fixtures()
local EXP7 = F .. "/vllm-benchmark/exp-7_H100"

local function sd(label, dir, gpus)
  return { label = label, state = { label = label, stack = { gpus = gpus } }, run = harness.extract(dir, {}),
    kv = {} }
end

local function labels(rows)
  local out = {}
  for _, r in ipairs(rows) do out[#out + 1] = r.label end
  return out
end

local function perf_row(m, key)
  for _, r in ipairs(m.perf) do if r.key == key then return r end end
  error("no performance row " .. key)
end

-- The Headline's total capacity row, whether labelled "Capacity at SLO (...)" (equal GPU
-- counts) or "Total capacity at SLO (...)" (different counts).
local function total_capacity(m)
  for _, r in ipairs(m.headline) do
    if r.label:match("^Total capacity at SLO %(") or r.label:match("^Capacity at SLO %(") then return r end
  end
  error("no total capacity row")
end

-- The first result file of an exp-7 configuration alone in a folder of its own: one run.
local function one_repeat(cfg)
  local dir = t.tmpdir() .. "/" .. cfg
  t.copy(EXP7 .. "/" .. cfg .. "/benchmark_2025-05-13_04-37-51.json", dir .. "/benchmark_2025-05-13_04-37-51.json")
  return dir
end

t.test("nu5: the per-GPU capacity says what the total says, divided: the repeats' range and 'by the means'", function()
  -- x: vllm-3replicas on 3 GPUs meets TTFT p95 <= 700 ms by its means (697.1 ms) at its one
  -- load, 5.345922 req/s; y: llm-d-2p1d on 2 GPUs fails it (721.4 ms) at 5.330693 req/s. The
  -- repeats' intervals straddle 700 ms on both, so neither capacity is placed by them
  local m = report.build { a = sd("x", EXP7 .. "/vllm-3replicas", 3), b = sd("y", EXP7 .. "/llm-d-2p1d", 2),
    slo = decision.parse_slo("ttft_p95_ms=700"), generated = 0 }
  local total = total_capacity(m)
  local gpu = t.headline_row(m, "Capacity at SLO per GPU")
  t.eq(total.a_text, "≥ 5.35 req/s by the means (never violated; the repeats cannot narrow it down: anywhere from 0 "
    .. "to beyond 5.35 req/s, the highest load measured)")
  t.eq(gpu.a_text, "≥ 1.78 req/s by the means (never violated; the repeats cannot narrow it down: anywhere from 0 "
    .. "to beyond 1.78 req/s, the highest load measured)")
  t.eq(total.b_text, "< 5.33 req/s by the means (failed TTFT p95 ≤ 700.0 ms at the lowest load tried; too noisy to "
    .. "bound: the repeats allow any capacity from 0 to beyond 5.33 req/s, the highest load tried)")
  t.eq(gpu.b_text, "< 2.67 req/s by the means (failed TTFT p95 ≤ 700.0 ms at the lowest load tried; too noisy to "
    .. "bound: the repeats allow any capacity from 0 to beyond 2.67 req/s, the highest load tried)")
  t.near(gpu.a, 5.345922454848432 / 3, 1e-9)
  -- the CSV's per-GPU row quotes the same cells
  local csv = report.csv(m)
  local line = csv:match("\ncapacity_at_slo_rps_per_gpu,[^\n]*")
  t.ok(line and line:find(gpu.a_text, 1, true) and line:find(gpu.b_text, 1, true), line)
end)

t.test("nu5: a per-GPU estimate keeps the range its repeats allow, as the total does", function()
  -- repeated_run: points at 10, 20, 30 req/s, 3 repeats each; TTFT p90 (ms) per repeat below.
  -- x's means 100, 150 and 300 cross 200 ms between its points 2 and 3. Each point's 95 %
  -- interval (sd 10, t(2) = 4.303): +-4.303 x 10 / sqrt(3) = +-24.8 ms, so 125.2-174.8 at
  -- point 2 and 275.2-324.8 at point 3: both ends cross 200 ms between the same points, and
  -- the range is that bracket, 20-30 req/s (the total); on 2 GPUs 10.00-15.00 req/s (by hand)
  local x = t.repeated_run { { 90, 100, 110 }, { 140, 150, 160 }, { 290, 300, 310 } }
  local function side(label, run, gpus)
    return { label = label, state = { label = label, stack = { gpus = gpus } }, run = run, kv = {} }
  end
  local m = report.build { a = side("x", x, 2), b = side("y", x, 1), slo = decision.parse_slo("ttft_p90_ms=200"),
    generated = 0 }
  local total = total_capacity(m)
  -- interpolated on the means: 20 + (200 - 150) / (300 - 150) x 10 = 23.33 req/s (by hand)
  t.eq(total.a_text, "23.33 req/s (the repeats allow 20.00–30.00 req/s)")
  t.eq(t.headline_row(m, "Capacity at SLO per GPU").a_text, "11.67 req/s (the repeats allow 10.00–15.00 req/s)")
  t.eq(t.headline_row(m, "Capacity at SLO per GPU").b_text, total.b_text) -- 1 GPU: the total itself
end)

t.test("nu6: different GPU counts: the per-GPU rows lead, the totals follow as totals, in every output", function()
  local ia, ib = t.tmpdir() .. "/a.yaml", t.tmpdir() .. "/b.yaml"
  t.write(ia, "gpus: 3\n")
  t.write(ib, "gpus: 2\n")
  local w, r = t.compare { "--a", EXP7 .. "/vllm-3replicas", "--a-label", "x", "--a-info", ia,
    "--b", EXP7 .. "/llm-d-2p1d", "--b-label", "y", "--b-info", ib, "--slo", "ttft_p95_ms=700" }
  t.eq(r.code, 0, r.stderr)
  local want = { "Capacity at SLO per GPU", "Max sustained throughput per GPU", "Output tok/s per GPU (whole run)",
    "Total capacity at SLO (TTFT p95 ≤ 700.0 ms and Error rate ≤ 5 % by default)", "Total capacity at SLO, output tok/s",
    "Total max sustained throughput", "GPUs" }
  local cj = json.read(w .. "/comparison.json")
  t.eq(labels(cj.headline), want)
  -- the Markdown and HTML tables in that order, row 1 the per-GPU capacity
  local md = t.read(w .. "/comparison_report.md")
  local head = md:match("\n## Headline\n(.-)\n\n")
  local got = {}
  for l in head:gmatch("\n| ([^|]-) |") do got[#got + 1] = l end
  t.eq(got, want)
  local html = t.read(w .. "/comparison_report.html")
  local hh = html:match("<h2>Headline</h2>(.-)</table>")
  got = {}
  for l in hh:gmatch("<tr><th>([^<]*)</th>") do
    if l ~= "" then got[#got + 1] = l end -- (the header row's empty corner)
  end
  t.eq(got, want)
  -- the CSV: the per-GPU capacity, then the total
  local csv = t.read(w .. "/comparison.csv")
  local i, j = csv:find("\ncapacity_at_slo_rps_per_gpu,", 1, true), csv:find("\ncapacity_at_slo_rps,", 1, true)
  t.ok(i and j and i < j, csv)
  -- the same count on both: the order of old (totals first, per GPU after), no "Total"
  w, r = t.compare { "--a", EXP7 .. "/vllm-3replicas", "--a-label", "x", "--a-info", ia,
    "--b", EXP7 .. "/llm-d-2p1d", "--b-label", "y", "--b-info", ia, "--slo", "ttft_p95_ms=700" }
  t.eq(r.code, 0, r.stderr)
  cj = json.read(w .. "/comparison.json")
  t.eq(labels(cj.headline), { "Capacity at SLO (TTFT p95 ≤ 700.0 ms and Error rate ≤ 5 % by default)", "Capacity at SLO, output tok/s",
    "Max sustained throughput", "Capacity at SLO per GPU", "Max sustained throughput per GPU",
    "Output tok/s per GPU (whole run)", "GPUs" })
  csv = t.read(w .. "/comparison.csv")
  i, j = csv:find("\ncapacity_at_slo_rps_per_gpu,", 1, true), csv:find("\ncapacity_at_slo_rps,", 1, true)
  t.ok(i and j and j < i, csv)
end)

t.test("nu7: a run's repeat means do not depend on how many repeats the other run has", function()
  -- x: vllm-2replicas, 3 repeats; against llm-d-1p1d's 3 repeats and against its first file alone
  local x3 = sd("x", EXP7 .. "/vllm-2replicas")
  local m33 = report.build { a = x3, b = sd("y", EXP7 .. "/llm-d-1p1d"), generated = 0 }
  local m31 = report.build { a = sd("x", EXP7 .. "/vllm-2replicas"), b = sd("y", one_repeat("llm-d-1p1d")),
    generated = 0 }
  local m13 = report.build { a = sd("y", one_repeat("llm-d-1p1d")), b = sd("x", EXP7 .. "/vllm-2replicas"),
    generated = 0 }
  -- the means of x's 3 files (python3 above): 256.4424 ms, 3.48487 req/s, 696.974 tok/s
  t.eq(perf_row(m33, "ttft_p95_ms").a_text, "256.4 ms (mean of 3)")
  t.eq(perf_row(m31, "ttft_p95_ms").a_text, "256.4 ms (mean of 3)")
  t.eq(perf_row(m13, "ttft_p95_ms").b_text, "256.4 ms (mean of 3)")
  t.near(perf_row(m31, "ttft_p95_ms").a, 256.4424156124005, 1e-9)
  t.near(perf_row(m31, "throughput_req_s").a, 3.4848701171063183, 1e-9)
  t.near(perf_row(m13, "throughput_tok_s").b, 696.9740234212636, 1e-9)
  -- y alone is its one file's figure (261.136 ms), with no "mean of"
  t.eq(perf_row(m31, "ttft_p95_ms").b_text, "261.1 ms")
  t.eq(perf_row(m13, "ttft_p95_ms").a_text, "261.1 ms")
  -- a mean against one run is no test
  t.eq(perf_row(m31, "ttft_p95_ms").verdict, "untested")
  -- the max sustained throughput's evidence says which run is which (it said "one run per
  -- load" of both when only one had repeats)
  t.eq(t.headline_row(m31, "Max sustained throughput").evidence,
    "means of the repeats at each load point for x, one run per load for y: untested; the measured loads cannot "
    .. "order them: x ≥ 3.48 req/s, y ≥ 3.49 req/s")
  -- (both never saturated: each limit from its figure up, 3.48 and 3.49 req/s, the means of
  -- request_throughput by python3 above; y's first file alone 3.4925 req/s)
  t.eq(t.headline_row(m33, "Max sustained throughput").evidence, "means of the repeats at each load point, untested; "
    .. "the measured loads cannot order them: x ≥ 3.48 req/s, y ≥ 3.49 req/s")
  -- every row of x's: the same text whichever run it is compared with
  for _, k in ipairs(report.PERF_KEYS) do
    local ok33, ok31 = pcall(perf_row, m33, k), pcall(perf_row, m31, k)
    if ok33 and ok31 then t.eq(perf_row(m31, k).a_text, perf_row(m33, k).a_text, k) end
  end
end)

t.test("nu8: whole-run output tok/s per GPU of repeats: the Performance Results' mean, divided", function()
  -- x: vllm-2replicas on 2 GPUs, 696.974 / 2 = 348.487 tok/s per GPU; y: llm-d-1p1d on 4,
  -- 697.0456 / 4 = 174.2614 (python3 above); B - A = -174.2256 tok/s, -50.0 %
  local m = report.build { a = sd("x", EXP7 .. "/vllm-2replicas", 2), b = sd("y", EXP7 .. "/llm-d-1p1d", 4),
    generated = 0 }
  local row = t.headline_row(m, "Output tok/s per GPU (whole run)")
  t.near(row.a, 696.9740234212636 / 2, 1e-9)
  t.near(row.b, 697.045583962757 / 4, 1e-9)
  t.eq({ row.a_text, row.b_text }, { "348.49 tok/s (mean of 3)", "174.26 tok/s (mean of 3)" })
  t.eq({ row.delta_text, row.pct_text }, { "-174.2 tok/s", "-50.0 %" })
  -- the same loads on 2 and 4 GPUs: the -50 % is the GPU counts' ratio (2 / 4), not a finding
  -- of the setups, and the evidence says so (lead, session 30)
  t.eq(row.evidence, "not like for like per GPU: the same loads served on 2 and 4 GPUs, so a run that keeps up "
    .. "delivers about the same total either way and its share per GPU follows the GPU counts, not the setups "
    .. "(means of the repeats); capacity and max sustained throughput per GPU compare them")
  t.near(m.per_gpu.a.output_tps, 696.9740234212636 / 2, 1e-9)
  -- the same figure as the Performance Results' row, per GPU
  t.near(perf_row(m, "throughput_tok_s").a / 2, row.a, 1e-12)
  -- 3 repeats against 1: each its own, and the evidence says which is which
  m = report.build { a = sd("x", EXP7 .. "/vllm-2replicas", 2), b = sd("y", one_repeat("llm-d-1p1d"), 4),
    generated = 0 }
  row = t.headline_row(m, "Output tok/s per GPU (whole run)")
  -- y's one file: output_throughput 698.4979897701463 / 4 = 174.6245 (python3 above)
  t.eq({ row.a_text, row.b_text }, { "348.49 tok/s (mean of 3)", "174.62 tok/s" })
  t.ok(row.evidence:find("(x the mean of its 3 repeats, y one run)", 1, true), row.evidence)
  -- the same GPU count on both sides: the figures per GPU compare as the totals do
  m = report.build { a = sd("x", EXP7 .. "/vllm-2replicas", 2), b = sd("y", EXP7 .. "/llm-d-1p1d", 2),
    generated = 0 }
  t.eq(t.headline_row(m, "Output tok/s per GPU (whole run)").evidence, "means of the repeats: untested")
end)

t.test("the output tok/s capacity below the lowest load keeps the repeats' caveat its req/s row has", function()
  -- repeated_run: points at 10, 20, 30 req/s and 100, 200, 300 tok/s, 3 repeats each, TTFT
  -- p90 (ms) per repeat below; SLO 200 ms. Each point's 95 % interval: mean +- 4.303 sd /
  -- sqrt(3) (t(2) = 4.303; python3 statistics.stdev)
  local function model(ttfts)
    local function side(label, run) return { label = label, state = { label = label }, run = run, kv = {} } end
    return report.build { a = side("x", t.repeated_run(ttfts)), b = side("y", t.repeated_run(ttfts)),
      slo = decision.parse_slo("ttft_p90_ms=200"), generated = 0 }
  end
  local function cells(m) return total_capacity(m).a_text, t.headline_row(m, "Capacity at SLO, output tok/s").a_text end
  -- means 220 ms at every point, sd 60.8: lower ends 68.9 ms pass everywhere, so the repeats
  -- cannot place the capacity at all (the req/s row: "too noisy to bound")
  local rps, tps = cells(model { { 150, 250, 260 }, { 150, 250, 260 }, { 150, 250, 260 } })
  t.eq(rps, "< 10.00 req/s by the means (failed TTFT p90 ≤ 200.0 ms at the lowest load tried; too noisy to bound: "
    .. "the repeats allow any capacity from 0 to beyond 30.00 req/s, the highest load tried)")
  t.eq(tps, "< 100.0 tok/s by the means (failed TTFT p90 ≤ 200.0 ms at the lowest load tried; too noisy to bound: "
    .. "the repeats allow any capacity from 0 to beyond the highest load tried)")
  -- point 1 as above, points 2 and 3 fail on their lower ends too (310 and 410 ms, sd 10):
  -- the range reaches up to point 2, 20 req/s, that is 200 tok/s
  rps, tps = cells(model { { 150, 250, 260 }, { 300, 310, 320 }, { 400, 410, 420 } })
  t.eq(rps, "< 10.00 req/s by the means (failed TTFT p90 ≤ 200.0 ms at the lowest load tried; the repeats allow up "
    .. "to 20.00 req/s)")
  t.eq(tps, "< 100.0 tok/s by the means (failed TTFT p90 ≤ 200.0 ms at the lowest load tried; the repeats allow up "
    .. "to 200.0 tok/s)")
  -- every point fails on the lower ends too (301 ms, sd 1): the bound alone, said so
  rps, tps = cells(model { { 300, 301, 302 }, { 400, 401, 402 }, { 500, 501, 502 } })
  t.eq(tps, "< 100.0 tok/s (failed TTFT p90 ≤ 200.0 ms at the lowest load tried, even at the lower ends of the "
    .. "repeats' 95 % intervals)")
  t.ok(rps:find("even at the lower ends", 1, true), rps)
end)

t.test("treatments per GPU: the spans the evidence weighs, not the bare brackets (audit39 #2)", function()
  -- Two runs of one server (tests/data/queue_sim.py, 20 slots, seeds 1 and 2) on 2 GPUs each
  -- and a 24-slot one on 1, TTFT p90 <= 500 ms. The order per GPU weighs each one-run point's
  -- percentile noise (decision.capacity_span); on main the sentence printed the measured
  -- brackets instead ("s2 ≥ 3.944 ..., s1 between 3.267 req/s and 3.938 req/s per GPU"): apart,
  -- beside "cannot order them". The spans are the totals' rank-table spans halved: an
  -- independent checker (audit39: numpy, Geyer design effect, order-statistic ranks) put s1 at
  -- 6.533-9.703 and s2 at 7.887-9.718 req/s in total, so 3.267-4.852 and 3.944-4.859 per GPU.
  if not t.have_numpy() then return end
  local proc = require "llmd.proc"
  local d = t.tmpdir()
  local function sim(name, slots, seed)
    local r = proc.run { "/usr/bin/python3", t.root() .. "/tests/data/queue_sim.py", d .. "/" .. name, "--rates",
      "2,4,6,8,10,12", "--slots", tostring(slots), "--seed", tostring(seed) }
    t.eq(r.code, 0, r.stderr)
    return d .. "/" .. name
  end
  local out = d .. "/tr"
  local r = proc.run { t.root() .. "/llmdlua", t.root() .. "/lua/treatments.lua", "--run", "s1=" .. sim("a", 20, 1),
    "--run", "s2=" .. sim("b", 20, 2), "--run", "k24=" .. sim("c", 24, 4), "--gpus", "s1=2,s2=2,k24=1", "--slo",
    "ttft_p90_ms=500", "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local md = t.read(out .. "/treatment_report.md")
  local said = md:match("s2 and s1 per GPU: untested, and the measured loads cannot order them: ([^(]+)")
  t.ok(said, md)
  local s2lo, s2hi, s1lo, s1hi = said:match("^s2 between ([%d.]+) req/s and ([%d.]+) req/s per GPU, s1 between "
    .. "([%d.]+) req/s and ([%d.]+) req/s per GPU")
  t.ok(s2lo, said)
  -- the totals' spans in the rank table, halved (2 GPUs each)
  local t2lo, t2hi, t1lo, t1hi = md:match("this one's capacity at SLO at ([%d.]+)–([%d.]+) req/s and s1's at "
    .. "([%d.]+)–([%d.]+) req/s")
  t.ok(t2lo, md)
  for _, p in ipairs { { s2lo, t2lo }, { s2hi, t2hi }, { s1lo, t1lo }, { s1hi, t1hi } } do
    t.near(tonumber(p[1]), tonumber(p[2]) / 2, 0.0011)
  end
  t.near(tonumber(s1hi), 9.703 / 2, 0.0011)
  t.near(tonumber(s2hi), 9.718 / 2, 0.0011)
end)
