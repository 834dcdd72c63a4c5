-- Session 33 lead fixes of the new-user trial: capacity texts that read a gap not measured
-- as a gap measured at 0.
local t = require "testlib"
local json = require "llmd.json"

-- n TTFTs (seconds) evenly from lo to hi
local spread = t.spread

-- the verdict column (7th) of a comparison.csv row; the rows tested here have no quoted
-- cell before it
local function csv_verdict(ws, key)
  local line = t.read(ws .. "/comparison.csv"):match("\n" .. key .. ",([^\n]*)")
  local cells = {}
  for c in (line .. ","):gmatch("([^,]*),") do cells[#cells + 1] = c end
  return cells[6]
end

local function summary(ws)
  local md = t.read(ws .. "/comparison_report.md")
  return md:match("## Summary\n\n(.-)\n\n## ") or md
end

t.test("capacity: A fails at its lowest load where B passes: no '+0.0 %' gap; the order stands with its least gap", function()
  -- three repeats of one load each; A's TTFTs all 250-260 ms (p95 > 230 ms in every
  -- repeat), B's all 170-180 ms (< 230 ms): B met the SLO where A failed it, at the one load
  -- both measured, so A's capacity has no estimate and the gap has no size
  local a, b = t.slo_split_pair()
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "base", "--b-label", "fast", "--slo", "ttft_p95_ms=230" }
  t.eq(r.code, 0, r.stderr)
  local s = summary(ws)
  -- least39 (by hand): base's capacity is below 3.594 req/s (it failed at 3.594, its lowest
  -- load), fast's is 3.594 req/s or more (never violated): the least gap the loads allow is
  -- 0 (they meet at that load), below 2 %, but fast's span has no upper end and base's runs
  -- down to 0, so the gap may be any size: the order stands, said with its least gap, never
  -- "not shown to differ" (which reads as sameness; it did before least39)
  t.ok(s:find("fast is higher: their ranges meet at one load (3.6 req/s offered), so the least gap is 0, below the "
    .. "practical threshold of 2.0 %, and the largest has no upper end.", 1, true), s)
  t.ok(not s:find("not shown to differ", 1, true), s)
  t.ok(not s:find("(+0.0 %)", 1, true), s)
  t.ok(not s:find("+0.0 %", 1, true), s)
  -- the CSV's tok/s row says what the Headline's tok/s row says: both ordered by the repeats
  t.eq({ csv_verdict(ws, "capacity_at_slo_rps"), csv_verdict(ws, "capacity_at_slo_output_tps") },
    { "B higher", "B higher" })
  local md = t.read(ws .. "/comparison_report.md")
  -- the Delta beside that order: from 0 (they meet) with no upper end, never "either may be
  -- higher" (it said so before least39) nor "at least +0.0 %", a gap read as measured at 0
  t.ok(md:find("| ≥ 3.59 req/s (never violated) | 0 or more, no upper end | 0 or more, no upper end |", 1, true), md)
  t.ok(not md:find("at least +0.0 %", 1, true), "md: at least +0.0 %")
end)

t.test("capacity: a winner whose ranges touch quotes its margin over the other's estimate, not 'at least +0.0 %'",
  function()
    -- A: 3 loads x 3 repeats, TTFTs far under 300 ms at the first two, far over at the third;
    -- B: the same loads, under everywhere. The repeats' ranges meet only at the third load.
    local lo, hi = spread(0.100, 0.110, 20), spread(0.380, 0.390, 20)
    local pa, pb = {}, {}
    local shifted = t.shifted
    for _, rate in ipairs { 2, 3.6, 5 } do
      for j = 1, 3 do -- each repeat 1 ms apart, so that the repeats have a spread
        pa[#pa + 1] = { rate, shifted(rate == 5 and hi or lo, j / 1000) }
        pb[#pb + 1] = { rate, shifted(lo, j / 1000) }
      end
    end
    local ws, r = t.compare { "--a", t.latency_ladder(pa), "--b", t.latency_ladder(pb), "--a-label", "ladA",
      "--b-label", "ladB", "--slo", "ttft_p95_ms=300" }
    t.eq(r.code, 0, r.stderr)
    local s = summary(ws)
    t.ok(not s:find("at least +0.0 %", 1, true), s)
    local m = json.read(ws .. "/comparison.json")
    local ca, cb = m.capacity.a, m.capacity.b
    t.eq({ ca.kind, cb.kind }, { "interpolated", "never_violated" })
    -- the margin quoted is B's lower end over A's estimate, as an ordinary percentage
    -- (B / A - 1), computed here from the two figures comparison.json holds
    -- (in words since fixf39: "x's figure, 4.99 req/s, is 10.1 % above y's estimate")
    local want = ("ladB's figure, %.2f req/s, is %.1f %% above ladA's estimate of %.2f req/s"):format(cb.rps,
      (cb.rps / ca.rps - 1) * 100, ca.rps)
    t.ok(s:find(want, 1, true), want .. " in: " .. s)
    t.ok(s:find("the ranges bound no gap above 0", 1, true), s)
    -- the tok/s capacities are apart too (A's at most what it delivered at 5 req/s, B's at
    -- least that): the CSV names the order, as the Headline's tok/s evidence does
    t.eq({ csv_verdict(ws, "capacity_at_slo_rps"), csv_verdict(ws, "capacity_at_slo_output_tps") },
      { "B higher", "B higher" })
  end)

t.test("headline: whole-run output tok/s per GPU of different workloads has no delta", function()
  -- llm-d-1p1d (7999/200 tokens a request) against llm-d-2p1d (9999/100): different
  -- workloads (FORMATS.md / the files' input_lens, output_lens), every other Headline gap is
  -- "N/A (the workloads differ)"; this row gave "-170.8 tok/s | -49.0 %"
  local dir = t.tmpdir()
  t.write(dir .. "/a.yaml", "gpus: 2\n")
  t.write(dir .. "/b.yaml", "gpus: 3\n")
  local F = t.fixtures() .. "/vllm-benchmark/exp-7_H100"
  local ws, r = t.compare { "--a", F .. "/llm-d-1p1d", "--b", F .. "/llm-d-2p1d", "--a-info", dir .. "/a.yaml",
    "--b-info", dir .. "/b.yaml" }
  t.eq(r.code, 0, r.stderr)
  local line = t.read(ws .. "/comparison_report.md"):match("\n(| Output tok/s per GPU %(whole run%) |[^\n]*)")
  t.ok(line and line:find("| N/A (the workloads differ) | N/A (the workloads differ) |", 1, true), line)
end)

t.test("an SLO's limit is shown as given, never rounded to another limit", function()
  local d = require "llmd.decision"
  -- by hand: the limits as typed; the metric's own format (one decimal for ms, two for %)
  -- where it shows them exactly
  local cases = { { "ttft_p95_ms=0.25", "TTFT p95 ≤ 0.25 ms" }, { "ttft_p95_ms=226.55", "TTFT p95 ≤ 226.55 ms" },
    { "ttft_p95_ms=200", "TTFT p95 ≤ 200.0 ms" }, { "error_rate_pct=1", "Error rate ≤ 1.00 %" },
    { "error_rate_pct=0.125", "Error rate ≤ 0.125 %" }, { "ttft_p95_ms=12345.678", "TTFT p95 ≤ 12,345.678 ms" } }
  for _, c in ipairs(cases) do t.eq(d.slo_phrase(d.parse_slo(c[1])), c[2], c[1]) end
end)

t.test("max sustained N/A for failures at the lowest load gives the share as measured, not rounded", function()
  local report = require "llmd.report"
  -- 1 request in 30 failed (3.333... %, printed to 4 significant digits as the saturation's
  -- reason gives it): 3.6 req/s offered, 3.36 succeeded (93.3 %, below the 95 % share), and
  -- with the failed ones 3.36 / (1 - 1/30) = 3.476 answered (96.6 %): the shortfall is
  -- failures, not overload (by hand); it read "3 %"
  local err = 100 / 30
  local run = t.run_of { { rate = 3.6, values = { throughput_req_s = 3.36, ttft_p90_ms = 50, error_rate_pct = err } } }
  local ok = t.run_of { { rate = 3.6, values = { throughput_req_s = 3.6, ttft_p90_ms = 50, error_rate_pct = 0 } } }
  local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
  local m = report.build { a = sd("x", ok), b = sd("y", run), generated = 0 }
  -- (decfix5: 3.333 % failed is within the default error-rate limit of 5 %, so the load was
  -- sustained, the failures said beside it; see test_decfix5 for the rule in every output)
  t.eq(t.headline_row(m, "Max sustained throughput").b_text, "≥ 3.36 req/s (never saturated; 3.333 % of the requests "
    .. "failed at load point 1, within 5 %, the error-rate limit used when no error-rate SLO is given)")
  -- with an error-rate SLO of 1 %, more failed than it allows: N/A, with why
  m = report.build { a = sd("x", ok), b = sd("y", run), generated = 0, slo = require("llmd.decision").parse_slo(
    "error_rate_pct=1") }
  t.eq(t.headline_row(m, "Max sustained throughput").b_text, "N/A (3.333 % of requests failed at the lowest load, "
    .. "more than the error-rate SLO's 1 %, so no load was sustained within it; failed requests, not overload)")
end)

t.test("an exact test that cannot decide says when ties, not the number of repeats, are why", function()
  local d = require "llmd.decision"
  -- error rates 0, 0, 0 % against 0, 10, 0 %: five of the six values tie at 0, so each of
  -- the C(6, 3) = 20 splits only says on which side the one 10 lies: 10 splits put it in A,
  -- 10 in B, and the two-sided exact p of the most extreme split is 2 x 10 / 20 = 1 (by
  -- hand); 3 and 3 values all different could reach 2 / C(6, 3) = 0.1
  local tst = d.repeat_test({ 0, 0, 0 }, { 0, 10, 0 })
  t.eq({ tst.test, tst.p_min }, { "exact_mann_whitney", 1 })
  local r = d.verdict { key = "error_rate_pct", a = 0, b = 10 / 3, test = tst }
  t.ok(r.note:find("whose values tie across the runs, so no split of these values could give a p below 1 (3 and 3 "
    .. "repeats of values all different could reach 0.1)", 1, true), r.note)
  -- 0, 0, 0 against 2, 3, 4: no ties across; the least p is 0.1, said as before
  local r2 = d.verdict { key = "error_rate_pct", a = 0, b = 3, test = d.repeat_test({ 0, 0, 0 }, { 2, 3, 4 }) }
  t.eq(r2.verdict, "not shown to differ")
  t.ok(r2.note:find("3 and 3 repeats (A's repeats all one value) can give no p below 0.1,", 1, true), r2.note)
end)

t.test("one run's GPU count unknown: every per-GPU row's evidence says so, none 'untested'", function()
  local dir = t.tmpdir()
  t.write(dir .. "/g1.yaml", "gpus: 1\n")
  local K = t.here() .. "/../fixtures"
  local ws, r = t.compare { "--a", K .. "/kubecon-na-2025_vllm", "--b",
    K .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching", "--a-info", dir .. "/g1.yaml", "--b-label", "chunk" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(ws .. "/comparison_report.md")
  for _, label in ipairs { "Max sustained throughput per GPU", "Output tok/s per GPU (whole run)" } do
    local line = md:match("\n(| " .. label:gsub("%p", "%%%0") .. " |[^\n]*)")
    t.ok(line and line:find("| N/A (not compared per GPU: chunk's accelerator count is unknown, give gpus: N in its "
      .. "info file; the totals' order says nothing of the order per GPU) |", 1, true), label .. ": " .. tostring(line))
  end
end)

t.test("Configuration Summary's load stages say repeats of one load as repeats", function()
  local report = require "llmd.report"
  -- by hand: stages of one load are repeats of one load point
  t.eq(report.stages_read { stages = { { rate = 3.6 }, { rate = 3.6 }, { rate = 3.6 } } },
    "3 stages (1 load point, repeated): 3.6/s ×3")
  t.eq(report.stages_read { stages = { { rate = 2 }, { rate = 2 }, { rate = 3.6 }, { rate = 3.6 }, { rate = 5 } } },
    "5 stages (3 load points, repeated): 2/s ×2, 3.6/s ×2, 5/s")
  -- no repeats: as before; a warm-up stage is no repeat of its load; unknown loads are not
  -- repeats of each other
  t.eq(report.stages_read { stages = { { rate = 1, warmup = true }, { rate = 1 }, { rate = 5 } } },
    "3 stages: 1/s (warm-up), 1/s, 5/s")
  t.eq(report.stages_read { stages = { { rate = 2 }, {}, {} } }, "3 stages: 2/s, load unknown, load unknown")
end)

t.test("N/A reasons of one stage name its file, and a load point its stage", function()
  local harness = require "llmd.harness"
  -- inference-perf's stage files record no TTFT sample counts (FORMATS.md): the whole run's
  -- TTFT mean is N/A, and the reason names the last such stage's file, stage 6's (the
  -- folder holds stage_0 .. stage_6, stage 0 a warm-up here)
  local ip = harness.extract(t.fixtures() .. "/inference-perf/kubecon-na-2025_vllm", { warmup = { 0 } })
  t.ok(ip.overall.na.ttft_mean_ms:find("^stage 6's summary in stage_6_lifecycle_metrics.json does not record"),
    ip.overall.na.ttft_mean_ms)
  -- a load point of one stage whose achieved rate is unknown: its stage beside it, as the
  -- Data checks name it
  local lp = require "llmd.loadpoints"
  local sat = lp.saturation { { load_type = "rate", offered = 10, stages = { 3 }, na = { throughput_req_s = "why" } } }
  t.eq(sat.reason, "point 1 (stage 3): achieved rate unknown (why)")
end)

t.test("treatments: a treatment that failed at its lowest load is not said to be '+0.0 %' below the next", function()
  -- the first test's runs as two treatments: base failed the SLO at the one load, fast met it
  local a, b = t.slo_split_pair()
  local out = t.tmpdir()
  local r = require("llmd.proc").run({ t.here() .. "/../../llmdlua", "treatments.lua", "--run", "base=" .. a, "--run",
    "fast=" .. b, "--slo", "ttft_p95_ms=230", "--out", out, "--quiet" })
  t.eq(r.code, 0, r.stderr)
  local j = json.read(out .. "/treatments.json")
  local text
  for _, row in ipairs(j.ranking) do if row.label == "fast" then text = row.vs_next_text end end
  -- least39: the order stands (the least gap 0, below 2 %, but no upper end: see the first
  -- test, by hand), said with its least gap; treatments' own figures: every repeat achieved
  -- 0.99 x 3.6 = 3.594 req/s (testlib.latency_ladder's duration n / (0.99 rate)), by hand
  t.eq(text, "above base (< 3.594 req/s (failed TTFT p95 ≤ 230.0 ms at the lowest load tried, even at the lower "
    .. "ends of the repeats' 95 % intervals)): at the same load (3.6 req/s offered), this one met the SLOs at 3.594 "
    .. "req/s and base already failed them at 3.594 req/s, on the 95 % intervals of both treatments' repeats; this "
    .. "one is higher: their ranges meet at one load (3.6 req/s offered), so the least gap is 0, below the practical "
    .. "threshold of 2.0 %, and the largest has no upper end")
  t.ok(not text:find("+0.0 %", 1, true), text)
  -- and compare.lua says the same of them, in its figures (two decimals)
  local ws = t.compare { "--a", a, "--b", b, "--a-label", "base", "--b-label", "fast", "--slo", "ttft_p95_ms=230" }
  t.ok(t.read(ws .. "/comparison_report.md"):find("fast higher: fast met the SLOs at 3.59 req/s and base already "
    .. "failed them at 3.59 req/s, at the same load (3.6 req/s offered), on the 95 % intervals of both runs' repeats; "
    .. "fast is higher: their ranges meet at one load (3.6 req/s offered), so the least gap is 0, below the "
    .. "practical threshold of 2.0 %, and the largest has no upper end", 1, true), "compare.lua's wording")
end)
