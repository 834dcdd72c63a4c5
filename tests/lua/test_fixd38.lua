-- Session 38 (fixd38): audit38's findings.
-- 1. A run whose files disagree: a load point's latency statistics come from its requests in
--    the per-request file where there is one (the stage file's only checked against them, the
--    disagreement a data check), in every figure that reads them (capacity, tables, charts);
--    a figure left in doubt with no better source is said in the Verdict line itself.
-- 2. KV-cache figures from scrapes that count other traffic carry that caveat.
-- 3. vLLM's older metric names (gpu_prefix_cache_*, gpu_cache_usage_perc) are read too.
-- Expected values: tests/sim/fixd38_ref.py (numpy on the per-request files; its output lines
-- quoted beside each value) or by hand, as said.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local DATA = ROOT .. "/tests/data/fixd38"

local function verdict_line(ws)
  return t.read(ws .. "/comparison_report.md"):match("%*%*Verdict:%*%* ([^\n]*)")
end

t.test("a stage file that disagrees with the requests decides no capacity: the per-request figures are used", function()
  -- audit38 #1: IPS's stage_1_lifecycle_metrics.json says TTFT p90 108.6 ms (set 5 % high),
  -- its requests 103.46 ms; IPS2's agree. fixd38_ref.py: "IPS stage 1: ... TTFT p90 103.4631 ms
  -- (stage file 108.6363)", "IPS2 stage 1: ... TTFT p90 104.9069 ms": with TTFT p90 <= 105 ms both
  -- meet the SLO at both loads, so neither is named higher (main: "IPS2 sustains more load ...
  -- >= 3.90 against about 3.68 req/s for IPS ... the measured loads order them")
  local ws, r = t.compare { "--a", DATA .. "/IPS", "--b", DATA .. "/IPS2", "--a-label", "IPS", "--b-label", "IPS2",
    "--slo", "ttft_p90_ms=105" }
  t.eq(r.code, 0, r.stderr)
  local cmp = json.read(ws .. "/comparison.json")
  t.eq(cmp.verdict.kind, "cannot say", cmp.verdict.text)
  t.eq(cmp.verdict.higher, nil)
  t.eq(cmp.capacity.a.kind, "never_violated")
  t.eq(cmp.capacity.b.kind, "never_violated")
  local v = verdict_line(ws)
  t.ok(v:find("^Cannot say which sustains more load"), v)
  t.ok(not v:find("IPS2 sustains more load", 1, true), v)
  -- the load point's figures: the requests' (fixd38_ref.py: TTFT p90 103.4631, p50 80.2038,
  -- p99 108.6327, E2E p90 211.3205, TPOT p90 12.5784 ms)
  local p2 = cmp.load_points.a[2].values
  t.near(p2.ttft_p90_ms, 103.4631, 1e-3)
  t.near(p2.ttft_p50_ms, 80.2038, 1e-3)
  t.near(p2.ttft_p99_ms, 108.6327, 1e-3)
  t.near(p2.latency_p90_ms, 211.3205, 1e-3)
  t.near(p2.tpot_p90_ms, 12.5784, 1e-3)
  local md = t.read(ws .. "/comparison_report.md")
  local curves = md:match("## Load Curves(.-)\n## ")
  t.ok(curves:find("| 2 | 4/s | 1 | 3.90 | 3.92 | 39.0 | N/A | 80.2 | 103.5 | 108.6 |", 1, true), curves)
  -- the chart's data too
  local dat = t.read(ws .. "/charts/latency_throughput.dat")
  t.ok(dat:find("103.46", 1, true) and not dat:find("108.63", 1, true), dat)
  -- the disagreement is a data check, which says which figure is used
  t.ok(md:find("- IPS: ttft_p90_ms: computed from per-request data 103.5 ms, stage 1's stage_1_lifecycle_metrics.json "
    .. "says 108.6 ms (4.8 % apart); the per-request figure is used", 1, true), md)
  local chk = cmp.a.checks[1]
  t.eq(chk.key, "ttft_p90_ms")
  t.eq(chk.resolved, true)
  -- and the Summary says so, not that the figures are in doubt
  local sum = md:match("## Summary\n\n([^\n]+)")
  t.ok(sum:find("IPS's own result files disagree with each other (the harness's summaries with its per-request data: "
    .. "see Data checks); the figures they disagree on are the per-request data's here", 1, true), sum)
  t.ok(not sum:find("figures are in doubt", 1, true), sum)
end)

t.test("a figure in doubt with no better source: the Verdict line says so where it names a run", function()
  -- IPS2's stage 1 file made to say 40 successes and no failure, where its requests hold 39
  -- and 1 failure (fixd38_ref.py: "IPS2 stage 1: ok 39 failed 1"): the stage's counts stay the
  -- file's (the error rate, 0 %), the check is not settled. With error_rate_pct=2, IPS (2.5 %
  -- at 4 req/s by its file, 1 of 40) fails at its second load and IPS2 does not: the verdict
  -- names IPS2 on a figure its own files disagree on, and says so in its line.
  local b = t.tmpdir() .. "/IPS2c"
  t.copy_tree(DATA .. "/IPS2", b)
  local f = b .. "/stage_1_lifecycle_metrics.json"
  local d = json.read(f)
  d.successes.count, d.failures.count = 40, 0
  d.failures.request_latency, d.failures.prompt_len = json.null, json.null
  json.write(f, d)
  local ws, r = t.compare { "--a", DATA .. "/IPS", "--b", b, "--a-label", "IPS", "--b-label", "IPS2c",
    "--slo", "ttft_p90_ms=200,error_rate_pct=2" }
  t.eq(r.code, 0, r.stderr)
  local cmp = json.read(ws .. "/comparison.json")
  local v = verdict_line(ws)
  t.eq(cmp.verdict.higher, "b", v)
  t.ok(v:find("IPS2c's own files disagree on figures this verdict reads (requests completed, requests failed), with "
    .. "nothing to settle which is right, so the verdict is in doubt (see below).", 1, true), v)
  -- IPS's disagreement (TTFT, settled by its requests) puts nothing in doubt
  t.ok(not v:find("IPS's own files", 1, true), v)
  t.eq(#cmp.verdict.in_doubt, 1)
  t.eq(cmp.verdict.in_doubt[1].run, "b")
  local md = t.read(ws .. "/comparison_report.md")
  t.ok(md:find("IPS2c: requests_failed: computed from per-request data 1, stage 1's stage_1_lifecycle_metrics.json "
    .. "says 0 (100.0 % apart); the file's figure is kept, so it is in doubt", 1, true), md)
end)
