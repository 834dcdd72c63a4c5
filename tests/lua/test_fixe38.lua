-- fixe38: findings of the new-user trial of session 38. Expected values by hand, as written
-- beside each.
local t = require "testlib"
local json = require "llmd.json"
local harness = require "llmd.harness"

-- One vLLM detailed file (testlib.latency_ladder: 40 requests at 4 req/s, TTFTs evenly spaced
-- 0.100 to 0.200 s, each answered 0.5 s after its first token, 64 output tokens and 63 gaps of
-- 0.5 / 63 s each) whose summary states what numpy (vLLM's np.percentile, linear) gives for
-- those arrays, worked by hand: evenly spaced values lo..hi have their q-th linear percentile
-- at lo + (hi - lo) q / 100, so TTFT p90 = 100 + 100 x 0.9 = 190 ms, median 150, p95 195,
-- p99 199, p99.9 199.9, mean 150 (p0.1 100.1, p1 101, p5 105, p10 110, p25 125, p75 175);
-- e2el = TTFT + 500 ms (p5 605, p25 625, median 650, p75 675, ...); TPOT and ITL are 500 / 63 =
-- 7.936507... ms for every request and gap. edit(d) changes it.
local function vllm_file(edit)
  local dir = t.latency_ladder { { 4, t.spread(0.100, 0.200, 40) } }
  local path = dir .. "/benchmark_01.json"
  local d = json.read(path)
  local gap = 500 / 63
  local stated = {
    ttft = { mean = 150, median = 150, p90 = 190, p95 = 195, p99 = 199, ["p99.9"] = 199.9, ["p0.1"] = 100.1,
      p1 = 101, p5 = 105, p10 = 110, p25 = 125, p75 = 175 },
    e2el = { mean = 650, median = 650, p90 = 690, p95 = 695, p99 = 699, ["p99.9"] = 699.9, ["p0.1"] = 600.1,
      p1 = 601, p5 = 605, p10 = 610, p25 = 625, p75 = 675 },
    tpot = { mean = gap, median = gap, p90 = gap, p95 = gap, p99 = gap, ["p99.9"] = gap, ["p0.1"] = gap, p1 = gap,
      p5 = gap, p10 = gap, p25 = gap, p75 = gap },
    itl = { mean = gap, median = gap, p90 = gap, p95 = gap, p99 = gap, ["p99.9"] = gap, ["p0.1"] = gap, p1 = gap,
      p5 = gap, p10 = gap, p25 = gap, p75 = gap },
  }
  for metric, s in pairs(stated) do
    for w, v in pairs(s) do d[w .. "_" .. metric .. "_ms"] = v end
  end
  d.total_output_tokens = 40 * 64
  if edit then edit(d) end
  t.write(path, t.vllm_text(d))
  return dir
end

local function checks_of(run)
  local out = {}
  for _, c in ipairs(run.checks or {}) do out[#out + 1] = c.key end
  table.sort(out)
  return out
end

t.test("vLLM: every percentile the file states is checked against its per-request arrays", function()
  -- the file as numpy states it: no check fails, whichever method the report uses
  for _, method in ipairs { "linear", "nearest" } do
    local run = harness.extract(vllm_file(), { percentile_method = method })
    t.eq(checks_of(run), {}, method .. ": " .. table.concat(run.warnings, " | "))
    -- 12 figures of TTFT, TPOT, ITL and e2el each (since fixb39 p0.1-p75 of TTFT, TPOT and ITL
    -- and e2el's p75 too), besides the counts and tokens
    t.ok(run.crosschecked >= 48, tostring(run.crosschecked))
  end
  -- the trial's edits (p90_ttft_ms x 1.1, median_e2el_ms x 1.2, p99_tpot_ms x 2), and a low
  -- e2el percentile (what bounds the least latency) x 1.5: each is a data check, named
  local run = harness.extract(vllm_file(function(d)
    d.p90_ttft_ms = d.p90_ttft_ms * 1.1
    d.median_e2el_ms = d.median_e2el_ms * 1.2
    d.p99_tpot_ms = d.p99_tpot_ms * 2
    d.p5_e2el_ms = d.p5_e2el_ms * 1.5
    -- (fixb39) the percentiles no report figure comes from are checked too: p25 TTFT x 1.5,
    -- p75 ITL x 2, p0.1 TPOT x 3, p75 e2el x 1.1
    d.p25_ttft_ms, d.p75_itl_ms, d["p0.1_tpot_ms"] = d.p25_ttft_ms * 1.5, d.p75_itl_ms * 2, d["p0.1_tpot_ms"] * 3
    d.p75_e2el_ms = d.p75_e2el_ms * 1.1
  end))
  t.eq(checks_of(run), { "latency_p50_ms", "p0.1_tpot_ms", "p25_ttft_ms", "p5_e2el_ms", "p75_e2el_ms", "p75_itl_ms",
    "tpot_p99_ms", "ttft_p90_ms" })
  -- 125 x 1.5 = 187.5: 62.5 / 187.5 = 33.3 %; 7.94 x 2 = 15.87: 50.0 %
  t.ok(table.concat(run.warnings, "\n"):find("p25_ttft_ms: computed from per-request data 125.00 ms, benchmark_01.json "
    .. "says 187.50 ms (33.3 % apart)", 1, true))
  t.ok(table.concat(run.warnings, "\n"):find("p75_itl_ms: computed from per-request data 7.94 ms, benchmark_01.json "
    .. "says 15.87 ms (50.0 % apart)", 1, true))
  local said = table.concat(run.warnings, "\n")
  -- 190 x 1.1 = 209.0 against 190.0: 19 / 209 = 9.1 % of the larger
  t.ok(said:find("ttft_p90_ms: computed from per-request data 190.0 ms, benchmark_01.json says 209.0 ms (9.1 % "
    .. "apart)", 1, true), said)
  -- 650 x 1.2 = 780: 130 / 780 = 16.7 %; 7.94 x 2 = 15.87: 50.0 %; 605 x 1.5 = 907.5: 33.3 %
  t.ok(said:find("latency_p50_ms: computed from per-request data 650.0 ms, benchmark_01.json says 780.0 ms (16.7 % "
    .. "apart)", 1, true), said)
  t.ok(said:find("tpot_p99_ms: computed from per-request data 7.94 ms, benchmark_01.json says 15.87 ms (50.0 % "
    .. "apart)", 1, true), said)
  t.ok(said:find("p5_e2el_ms: computed from per-request data 605.00 ms, benchmark_01.json says 907.50 ms (33.3 % "
    .. "apart)", 1, true), said)
end)

t.test("a run and its benchmark reports: the reports carry the least latency, and the warning says both readings",
  function()
  -- three load points of 40 requests each (testlib.latency_ladder, 2, 4 and 6 req/s): TTFTs
  -- evenly spaced 0.100-0.200 s, e2e = TTFT + 0.5 s, so by hand (linear percentiles of an
  -- even spread, lo + (hi - lo) q / 100): min 600 ms, p0.1 600.1, p1 601, p5 605, p10 610,
  -- p25 625, p75 675, max 700
  local spread = t.spread(0.100, 0.200, 40)
  local dir = t.latency_ladder { { 2, spread }, { 4, spread }, { 6, spread } }
  local out = t.tmpdir() .. "/br"
  local src = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
  local bin = src .. "/../../llmdlua"
  local r = require("llmd.proc").run { bin, "extract.lua", dir, "--br", "0.2", "--out", out }
  t.ok(r.ok, r.stderr)
  -- what no report can carry, said once: the per-request times of the pace
  t.ok(r.stderr:find("note: the benchmark reports cannot carry everything: 3 of 3 load points' throughput is the "
    .. "pace of their answers against their sends", 1, true), r.stderr)
  local yaml = t.read(out .. "/benchmark_report_v0.2,_benchmark_01.json.yaml")
  local rl = yaml:match("request_latency:\n(.-)\n%s*throughput:") or yaml:match("request_latency:\n(.*)$")
  t.ok(rl, yaml)
  local function field(k) return tonumber(rl:match("\n%s*" .. k .. ": ([%d%.e%-]+)")) end
  for k, want in pairs { min = 600, p0p1 = 600.1, p1 = 601, p5 = 605, p10 = 610, p25 = 625, p75 = 675, max = 700 } do
    local got = field(k)
    t.ok(got and math.abs(got - want) < 1e-6, ("%s: %s, want %g"):format(k, tostring(got), want))
  end
  -- compared with the results it came from: the same results, read two ways
  local w, c = t.compare { "--a", dir, "--b", out, "--a-label", "x", "--b-label", "xbr", "--slo", "ttft_p90_ms=500" }
  t.ok(c.ok, c.stderr)
  t.ok(c.stderr:find("hold the same results (the files differ, but every figure their harness recorded at every "
    .. "load point is equal to the last digit: the same requests, saved twice), read two ways: x's throughput is the "
    .. "pace of its answers, from the per-request times its files hold, xbr's the drain-reduced rate", 1, true),
    c.stderr)
  local md = t.read(w .. "/comparison_report.md")
  local verdict = md:match("%*%*Verdict:%*%* ([^\n]*)")
  -- (since session 41 the reports carry the model the results name, Qwen/Qwen3-0.6B, t.latency_ladder's
  -- model_id, in scenario.stack: the same model on both sides, so like for like is verified; in
  -- session 40 they stated none, and the Verdict said "like for like not verified: B's model unknown")
  t.ok(verdict:find("Warning: both folders hold the same results, in other files (see below).", 1, true), verdict)
  t.ok(not verdict:find("like for like", 1, true), verdict)
  t.ok(not md:find("same files", 1, true), "the files differ: never 'the same files'")
end)

t.test("comparison.json's load points keep what the saturation search judged them by (pace), for the charts",
  function()
  -- two points of 40 requests (testlib.latency_ladder), sent every 1 / 2 and 1 / 4 s: their
  -- pace's send rate is 2 and 4 req/s (by hand: evenly spaced sends, (n - 1) x 0.8 over the
  -- 10th-90th percentile span of 0.8 (n - 1) / rate). Without it the charts read a failed
  -- requests' shortfall off achieved / offered, and named other load points than the legend
  local spread = t.spread(0.100, 0.200, 40)
  local dir = t.latency_ladder { { 2, spread }, { 4, spread } }
  local other = t.latency_ladder { { 2, t.spread(0.110, 0.210, 40) }, { 4, t.spread(0.110, 0.210, 40) } }
  local w, r = t.compare { "--a", dir, "--b", other, "--a-label", "x", "--b-label", "y" }
  t.ok(r.ok, r.stderr)
  local cj = json.read(w .. "/comparison.json")
  for i, want in ipairs { 2, 4 } do
    local p = cj.load_points.a[i]
    t.ok(type(p.pace) == "table" and math.abs(p.pace.send_rps - want) < 1e-9, json.encode(p.pace))
  end
  -- and the charts' points read it
  local charts = require "llmd.charts"
  local pts = charts.load_points(cj, { x = "a" })
  t.ok(pts[1].pace and math.abs(pts[1].pace.send_rps - 2) < 1e-9)
end)

t.test("one run in both folders, read two ways: the Verdict names no run higher, whatever the figures", function()
  -- x: TTFT p90 100, 160, 260 ms at 10, 20, 30 req/s (about 24.00 req/s, measured 20-30);
  -- y: 100 ms up to 40 req/s, then 160, 260 (about 54.00, measured 50-60): ordered, as
  -- test_verdict's "untested, but the measured loads order them". Told they are one run
  -- (compare.lua's same-results check), no order of theirs is a configuration's
  local report = require "llmd.report"
  local decision = require "llmd.decision"
  local function sd(label, run) return { label = label, state = { label = label, stack = {} }, run = run, kv = {} } end
  local x = t.repeated_run { { 100 }, { 160 }, { 260 } }
  local y = t.repeated_run { { 100 }, { 100 }, { 100 }, { 100 }, { 160 }, { 260 } }
  local slo = decision.parse_slo("ttft_p90_ms=200", "--slo")
  local m = report.build { a = sd("x", x), b = sd("y", y), slo = slo, generated = 0 }
  t.eq(m.verdict.kind, "ordered") -- (without the warning: the order the loads show)
  m = report.build { a = sd("x", x), b = sd("y", y), slo = slo, generated = 0,
    identical = "X (x) and Y (y) hold the same results (...), read two ways: ..." }
  t.eq({ m.verdict.kind, m.verdict.higher }, { "cannot say", nil })
  t.eq(m.verdict.text, "Cannot say which sustains more load: both folders hold one run's results, so x's about "
    .. "24.00 req/s against y's about 54.00 req/s differ by how the two were read, not by a configuration. Warning: "
    .. "both folders hold the same results, in other files (see below).")
end)
