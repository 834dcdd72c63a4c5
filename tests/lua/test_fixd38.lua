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
  -- without an SLO (no goodput to count: the requests placed in stages after the one pass,
  -- another path), the same figures
  ws, r = t.compare { "--a", DATA .. "/IPS", "--b", DATA .. "/IPS2" }
  t.eq(r.code, 0, r.stderr)
  p2 = json.read(ws .. "/comparison.json").load_points.a[2].values
  t.near(p2.ttft_p90_ms, 103.4631, 1e-3)
  t.near(p2.tpot_p90_ms, 12.5784, 1e-3)
  t.near(p2.latency_p90_ms, 211.3205, 1e-3)
end)

t.test("a stage file's counts that disagree with its requests: the requests' are used, nothing is in doubt", function()
  -- IPS2's stage 1 file made to say 40 successes and no failure, where its requests hold 39
  -- and 1 failure (fixd38_ref.py: "IPS2 stage 1: ok 39 failed 1"). Since fixb39 a load point's
  -- counts are its requests' too (they were the file's, the check left unsettled, the Verdict
  -- in doubt): IPS2c's stage 1 has IPS's error rate, 1 of 40, 2.5 % (by hand), and with
  -- error_rate_pct=2 both fail at their second load; the check is settled, the Verdict line
  -- calls nothing in doubt.
  local b = t.ips2c(DATA)
  local ws, r = t.compare { "--a", DATA .. "/IPS", "--b", b, "--a-label", "IPS", "--b-label", "IPS2c",
    "--slo", "ttft_p90_ms=200,error_rate_pct=2" }
  t.eq(r.code, 0, r.stderr)
  local cmp = json.read(ws .. "/comparison.json")
  local v = verdict_line(ws)
  t.eq(cmp.verdict.higher, nil, v)
  t.ok(not v:find("own files disagree", 1, true), v)
  t.eq(cmp.verdict.in_doubt, nil)
  t.near(cmp.load_points.b[2].values.error_rate_pct, 2.5, 1e-9)
  t.near(cmp.load_points.b[2].values.requests_ok, 39, 0)
  local md = t.read(ws .. "/comparison_report.md")
  t.ok(md:find("IPS2c: requests_failed: computed from per-request data 1, stage 1's stage_1_lifecycle_metrics.json "
    .. "says 0 (100.0 % apart); the per-request figure is used", 1, true), md)
end)

-- KV scrapes (FORMATS.md §7's text format) of one pod, one engine, three scrapes 15 s apart,
-- written into dir/metrics/raw beside the vLLM synthetic run (8 requests sent: 7 completed,
-- 1 failed). series: {name = {v1, v2, v3}} (names without "vllm:"; a counter's name is given
-- with its _total, and gets a _created gauge at 1771233000.5, before the first scrape).
local F = t.fixtures()
local function kv_run(series)
  local d = t.tmpdir() .. "/run"
  t.mkdir(d .. "/metrics/raw")
  t.write(d .. "/synthetic-vllm_bench_serve_save_detailed.json",
    t.read(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json"))
  local names = {}
  for n in pairs(series) do names[#names + 1] = n end
  table.sort(names)
  for i = 1, 3 do
    local ts = 1771233602 + 15 * (i - 1)
    local L = { ("# Timestamp: %s"):format(os.date("!%Y-%m-%dT%H:%M:%S+0000", ts)), "# Pod: decode-p1",
      "# PodIP: 10.0.0.1", "# Source: prometheus_metrics", "" }
    for _, n in ipairs(names) do
      local counter = n:match("_total$")
      local labels = n == "request_success_total" and '{engine="0",finished_reason="stop",model_name="m"}'
        or '{engine="0",model_name="m"}'
      L[#L + 1] = ("# HELP vllm:%s x"):format(n)
      L[#L + 1] = ("# TYPE vllm:%s %s"):format(n, counter and "counter" or "gauge")
      L[#L + 1] = ("vllm:%s%s %s"):format(n, labels, json.encode(series[n][i] + 0.0))
      if counter then
        local c = n:gsub("_total$", "_created")
        L[#L + 1] = ("# HELP vllm:%s x"):format(c)
        L[#L + 1] = ("# TYPE vllm:%s gauge"):format(c)
        L[#L + 1] = ("vllm:%s%s 1771233000.5"):format(c, labels)
      end
    end
    t.write(("%s/metrics/raw/decode-p1_%d_metrics.log"):format(d, ts), table.concat(L, "\n") .. "\n\n")
  end
  return d
end

-- By hand: queries 0, 1000, 2000 and hits 0, 300, 800: 2,000 queries, 800 hits, hit rate
-- 40.0 %; preemptions 0, 1, 3: 3; request_success_total 0, 4, 8: 8 finished, the 8 sent.
local V1 = { prefix_cache_queries_total = { 0, 1000, 2000 }, prefix_cache_hits_total = { 0, 300, 800 },
  num_preemptions_total = { 0, 1, 3 }, request_success_total = { 0, 4, 8 }, kv_cache_usage_perc = { 0.1, 0.3, 0.5 } }
local function with(base, changes)
  local out = {}
  for k, v in pairs(base) do out[k] = v end
  for k, v in pairs(changes) do out[k] = v or nil end
  return out
end

local function kv_rows(ws)
  local cmp = json.read(ws .. "/comparison.json")
  local rows = {}
  for _, r in ipairs(cmp.kv.rows) do rows[r.key] = r end
  return rows, cmp
end

t.test("KV figures from scrapes that count other traffic say so on their rows, and no rate compares the runs", function()
  -- audit38 #2: the synthetic raw scrapes' vllm:request_success_total rises by 105 (56 + 49,
  -- the two pods', test_report.lua) while the harness sent 8 (7 completed, 1 failed)
  local a = t.tmpdir() .. "/other"
  t.mkdir(a .. "/metrics")
  t.write(a .. "/synthetic-vllm_bench_serve_save_detailed.json",
    t.read(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json"))
  t.copy_tree(F .. "/prometheus/synthetic-raw", a .. "/metrics/raw")
  local b = kv_run(V1)
  local ws, r = t.compare { "--a", a, "--a-label", "other", "--b", b, "--b-label", "own" }
  t.eq(r.code, 0, r.stderr)
  local rows = kv_rows(ws)
  local scope = "includes other traffic: 105 requests finished against 8 sent"
  for _, k in ipairs { "hits", "queries", "misses", "hit_rate_pct", "preemptions" } do
    t.eq(rows[k].a_scope, scope, k)
    t.ok(rows[k].a_text:find("(" .. scope .. ")", 1, true), rows[k].a_text)
    t.eq(rows[k].b_scope, nil, k)
  end
  -- own's hit rate, by hand 40.0 %, stays as it was
  t.eq(rows.hit_rate_pct.b_text, "40.0 %")
  -- a hit rate over all of a server's traffic is no figure of the run: no order read
  t.eq(rows.hit_rate_pct.verdict, "not comparable (untested)")
  t.eq(rows.hit_rate_pct.higher, nil)
  t.ok(rows.hit_rate_pct.evidence:find("not comparable: other's " .. scope, 1, true), rows.hit_rate_pct.evidence)
  local md = t.read(ws .. "/comparison_report.md")
  t.ok(md:find("| Hit rate | %d+%.%d %% %(" .. scope:gsub("%p", "%%%0") .. "%) | 40%.0 %% |"), md)
  t.ok(md:find("the totals, the hit rate and the preemptions are the server's over all its traffic, not this run's",
    1, true), md)
  -- the CSV's note and run_state.json's source say it too
  local csv = t.read(ws .. "/comparison.csv")
  t.ok(table.concat(t.csv_row(csv, "kv_hit_rate_pct"), ","):find("not comparable: other's " .. scope, 1, true), csv)
  local st = json.read(ws .. "/run-a/run_model.json")
  local src = st.overall.prefix_cache_hit_rate_pct.source
  t.ok(src:find(scope, 1, true), src)
  -- and the KV chart's notes
  t.ok(md:find("other: the scrapes' figures, not the run's alone (" .. scope .. ").", 1, true), md)
end)

t.test("KV: vLLM's older metric names are read, the v1 ones preferred, each counter N/A for its own reason", function()
  local kvcache = require "llmd.kvcache"
  local run = { overall = { values = { requests_ok = 7, requests_failed = 1, input_tokens_total = 1792 } } }
  -- the older names (gpu_prefix_cache_*, gpu_cache_usage_perc): the same figures as V1's,
  -- by hand 800 / 2,000 = 40 %, 3 preemptions, usage mean (10 + 30 + 50) / 3 = 30 %
  local old = with(V1, { prefix_cache_queries_total = false, prefix_cache_hits_total = false,
    kv_cache_usage_perc = false, gpu_prefix_cache_queries_total = V1.prefix_cache_queries_total,
    gpu_prefix_cache_hits_total = V1.prefix_cache_hits_total, gpu_cache_usage_perc = V1.kv_cache_usage_perc })
  local kv = kvcache.analyze(kv_run(old), run)
  t.eq(kv.available, true, kv.reason)
  t.near(kv.hits, 800, 0)
  t.near(kv.queries, 2000, 0)
  t.near(kv.hit_rate_pct, 40, 1e-12)
  t.near(kv.preemptions, 3, 0)
  t.near(kv.usage.mean, 30, 1e-9)
  t.eq(kv.counter_names.hits, "vllm:gpu_prefix_cache_hits_total")
  -- the timeline reads them too: usage 10, 30, 50 %; hit rate 300 / 1000 = 30 %, then
  -- 500 / 1000 = 50 % (by hand)
  t.eq(#kv.timeline, 3)
  t.near(kv.timeline[2].hit_rate_pct, 30, 1e-9)
  t.near(kv.timeline[3].hit_rate_pct, 50, 1e-9)
  t.near(kv.timeline[3].usage_pct, 50, 1e-9)
  -- both sets: the v1 names win (the older ones here say 100 / 1,000)
  local both = with(V1, { gpu_prefix_cache_queries_total = { 0, 500, 1000 }, gpu_prefix_cache_hits_total = { 0, 100, 100 } })
  kv = kvcache.analyze(kv_run(both), run)
  t.near(kv.hits, 800, 0)
  t.near(kv.queries, 2000, 0)
  -- no prefix-cache counters: the preemptions are still read, the prefix figures N/A for that reason
  local nopfx = with(V1, { prefix_cache_queries_total = false, prefix_cache_hits_total = false })
  kv = kvcache.analyze(kv_run(nopfx), run)
  t.eq(kv.available, true, kv.reason)
  t.near(kv.preemptions, 3, 0)
  t.near(kv.preemptions_per_1k, 3 / 7 * 1000, 1e-9)
  t.eq(kv.hits, nil)
  t.eq(kv.na.hit_rate_pct, "the scrapes have no prefix-cache counters (vllm:prefix_cache_hits_total / "
    .. "vllm:prefix_cache_queries_total, or the older vllm:gpu_prefix_cache_hits_total / "
    .. "vllm:gpu_prefix_cache_queries_total)")
  t.eq(kv.na.preemptions, nil)
  -- no preemption counter: that one N/A for its own reason, the prefix figures read
  local nopre = with(old, { num_preemptions_total = false })
  kv = kvcache.analyze(kv_run(nopre), run)
  t.near(kv.hits, 800, 0)
  t.eq(kv.preemptions, nil)
  t.eq(kv.na.preemptions, "the scrapes have no vllm:num_preemptions_total")
  -- in the report: the older names' run against the v1 names' run, the same figures
  local ws, r = t.compare { "--a", kv_run(old), "--a-label", "old", "--b", kv_run(V1), "--b-label", "v1" }
  t.eq(r.code, 0, r.stderr)
  local rows = kv_rows(ws)
  t.eq(rows.hit_rate_pct.a_text, "40.0 %")
  t.eq(rows.hit_rate_pct.b_text, "40.0 %")
  t.eq(rows.preemptions.a_text, "3")
  -- and a run with no prefix counters: Preemptions shown, the hit rate N/A with its reason
  ws, r = t.compare { "--a", kv_run(nopfx), "--a-label", "nopfx", "--b", kv_run(V1), "--b-label", "v1" }
  t.eq(r.code, 0, r.stderr)
  rows = kv_rows(ws)
  t.eq(rows.preemptions.a_text, "3")
  t.ok(rows.hit_rate_pct.a_text:find("^N/A %(the scrapes have no prefix%-cache counters"), rows.hit_rate_pct.a_text)
end)
