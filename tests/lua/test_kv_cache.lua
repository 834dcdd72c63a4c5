-- KV-cache figures from the Prometheus scrapes (*_prometheus_metrics.json): rates and hit
-- rates with their precision, scrapes that count other traffic, vLLM's older and v1 metric
-- names, truncated or incomplete scrape files (an error or N/A with why, never zeros).
-- Expected values: each section says where its own come from.
local t = require "testlib"

-- Session 38 (fixd38): audit38's findings.
-- 1. A run whose files disagree: a load point's latency statistics come from its requests in
--    the per-request file where there is one (the stage file's only checked against them, the
--    disagreement a data check), in every figure that reads them (capacity, tables, charts);
--    a figure left in doubt with no better source is said in the Verdict line itself.
-- 2. KV-cache figures from scrapes that count other traffic carry that caveat.
-- 3. vLLM's older metric names (gpu_prefix_cache_*, gpu_cache_usage_perc) are read too.
-- Expected values: tests/sim/fixd38_ref.py (numpy on the per-request files; its output lines
-- quoted beside each value) or by hand, as said.
-- (Formerly test_fixd38.lua.)
do
  local json = require "llmd.json"

  -- KV scrapes (FORMATS.md §7's text format) of one pod, one engine, three scrapes 15 s apart,
  -- written into dir/metrics/raw beside the vLLM synthetic run (8 requests sent: 7 completed,
  -- 1 failed). series: {name = {v1, v2, v3}} (names without "vllm:"; a counter's name is given
  -- with its _total, and gets a _created gauge at 1771233000.5, before the first scrape).
  local F = t.fixtures()
  -- (each run's harness file dated a second after the one before, as two runs' are: the same
  -- requests' figures, but no file byte for byte another run's, which a comparison refuses as
  -- one run's file copied into the other's folder, llmd.comparison.check_shared_files)
  local kv_runs = 0
  local function kv_run(series)
    local d = t.tmpdir() .. "/run"
    t.mkdir(d .. "/metrics/raw")
    kv_runs = kv_runs + 1
    local h = json.read(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json")
    h.date = os.date("!%Y%m%d-%H%M%S", 1771150502 + kv_runs)
    t.write(d .. "/synthetic-vllm_bench_serve_save_detailed.json", json.encode(h))
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
    -- with no effect beside its change (fixd43: no comparison bears on a not comparable row;
    -- columns 6 change_pct, 7 verdict, 10 effect_pct)
    local c = t.csv_row(csv, "kv_hit_rate_pct")
    t.eq({ c[7], c[10] }, { "not comparable", "" })
    t.ok(c[6] ~= "", "its change stays")
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
end

-- fixe41: findings of the new-user trial of session 41. Expected values by hand, as written
-- beside each.
-- (Formerly test_fixe41.lua.)
do
  local json = require "llmd.json"
  local proc = require "llmd.proc"

  local F = t.fixtures()
  local LLMDLUA = t.here() .. "/../../llmdlua"
  local KUBECON = F .. "/inference-perf/kubecon-na-2025_vllm"

  -- The kubecon demo's results with summary_prometheus_metrics.json cut to its first 100
  -- bytes: its one line ends inside a string (the 100 bytes hold no newline, checked with
  -- head -c 100), so the JSON reader stops at line 1, column 101.
  local function truncated_kubecon()
    local d = t.tmpdir() .. "/kc"
    t.copy_tree(KUBECON, d)
    local p = d .. "/summary_prometheus_metrics.json"
    t.write(p, t.read(p):sub(1, 100))
    return d
  end

  -- A malformed *_prometheus_metrics.json was read as zeros ("are 0 in every file", exit 0):
  -- it is an error naming it with its position, or with --tolerant left out with a warning
  t.test("extract.lua: a truncated *_prometheus_metrics.json is an error, never zeros", function()
    local d = truncated_kubecon()
    local r = proc.run { LLMDLUA, "extract.lua", d, "--json" }
    t.eq(r.code, 1, r.stderr)
    t.ok(r.stderr:find(d .. "/summary_prometheus_metrics.json:1:101: ", 1, true), r.stderr)
    t.ok(r.stderr:find("--tolerant", 1, true), r.stderr)
    t.ok(not r.stderr:find("traceback", 1, true), r.stderr)
    r = proc.run { LLMDLUA, "extract.lua", d, "--json", "--tolerant" }
    t.eq(r.code, 0, r.stderr)
    local run = json.decode(r.stdout)
    local left
    for _, w in ipairs(run.warnings) do
      if w:find("left out (--tolerant): " .. d .. "/summary_prometheus_metrics.json:1:101", 1, true) then left = w end
    end
    t.ok(left, table.concat(run.warnings, "\n"))
    -- the 7 stage files read all hold 0.0 for both means (python3 json: stage_0..6)
    local why = run.overall.prefix_cache_hits.unknown
    t.ok(why:find("8 *_prometheus_metrics.json files in the results", 1, true), why)
    t.ok(why:find("(1 left out, --tolerant: unreadable, see Data checks)", 1, true), why)
    t.ok(why:find("are 0 in every file read,", 1, true), why)
  end)

  t.test("compare.lua: a truncated *_prometheus_metrics.json fails the comparison; --tolerant says it in a banner",
    function()
    local d = truncated_kubecon()
    local w, r = t.compare { "--a", d, "--b", KUBECON }
    t.eq(r.code, 1, r.stderr)
    t.ok(r.stderr:find(d .. "/summary_prometheus_metrics.json:1:101: ", 1, true), r.stderr)
    t.eq(w, nil, "the failed comparison's workspace is removed")
    w, r = t.compare { "--a", d, "--b", KUBECON, "--tolerant" }
    t.eq(r.code, 0, r.stderr)
    local md = t.read(w .. "/comparison_report.md")
    t.ok(md:find("**Result files left out (--tolerant).** kc (A): " .. d .. "/summary_prometheus_metrics.json:1:101",
      1, true), md:sub(1, 2000))
    -- (A's KV reason counts the files read only; B's, the intact demo, all 8)
    t.ok(md:find("(1 left out, --tolerant: unreadable, see Data checks), and their prefix_cache_hit_percent and "
      .. "kv_cache_usage_percentage are 0 in every file read", 1, true), md)
  end)

  -- A file that reads but holds neither mean is no file of zeros
  t.test("kvcache: *_prometheus_metrics.json without the cache means is not said to hold 0", function()
    local d = t.tmpdir()
    t.copy(KUBECON .. "/stage_0_lifecycle_metrics.json", d .. "/stage_0_lifecycle_metrics.json")
    local p = json.read(KUBECON .. "/stage_0_prometheus_metrics.json")
    p.successes.prefix_cache_hit_percent, p.successes.kv_cache_usage_percentage = nil, nil
    json.write(d .. "/stage_0_prometheus_metrics.json", p)
    local r = proc.run { LLMDLUA, "extract.lua", d, "--json" }
    t.eq(r.code, 0, r.stderr)
    local why = json.decode(r.stdout).overall.prefix_cache_hits.unknown
    t.ok(not why:find("are 0 in every file", 1, true), why)
    t.ok(why:find("none of them holds a prefix_cache_hit_percent mean", 1, true), why)
  end)
end

-- Session 38 (fixf38): follow-ups of this session's fixes.
-- 1. treatments.lua (and experiment.lua's comparison, through llmd.treatments.write_outputs)
--    leave out a chart gnuplot fails to draw, as compare.lua does: the report written, saying
--    why, that chart's older picture removed, exit 1 (they wrote no report at all).
-- 2. A place in the treatments' ranking whose figure its own files leave in doubt (a run's
--    files disagree, nothing settles which is right) says so beside its rank, in the Verdict
--    and in treatments.json, as compare.lua's Verdict does (verdict.in_doubt).
-- 3. KV: the time-averaged hit rate from scrapes that count other traffic carries the caveat
--    the totals carry.
-- Expected values by construction or from the fixtures' files (python3 json), as said.
-- (Formerly test_fixf38.lua.)
do
  local json = require "llmd.json"
  local find = t.contains

  -- KV scrapes that count other traffic (the synthetic raw scrapes: vllm:request_success_total
  -- rises by 105, the harness sent 8) and the processed summary beside them: its
  -- vllm:prefix_cache_hit_rate aggregate (python3 json on the fixture: mean 44.4727, p90
  -- 79.2822, p95 79.2836) is over the same scrapes
  t.test("KV: the time-averaged hit rate over other traffic says so, as the totals do", function()
    local F = t.fixtures()
    local a = t.tmpdir() .. "/other"
    t.mkdir(a .. "/metrics/processed")
    t.write(a .. "/synthetic-vllm_bench_serve_save_detailed.json",
      t.read(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json"))
    t.copy_tree(F .. "/prometheus/synthetic-raw", a .. "/metrics/raw")
    t.write(a .. "/metrics/processed/metrics_summary.json", t.read(F .. "/metrics-summary/synthetic-metrics_summary.json"))
    -- the other run: the processed summary alone (no raw scrapes: nothing checks its traffic)
    local b = t.tmpdir() .. "/own"
    t.mkdir(b .. "/metrics/processed")
    t.write(b .. "/synthetic-vllm_bench_serve_save_detailed.json",
      t.read(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json"))
    t.write(b .. "/metrics/processed/metrics_summary.json", t.read(F .. "/metrics-summary/synthetic-metrics_summary.json"))
    -- (own's files saved again, the same figures in other bytes: another run than other's,
    -- whose files a comparison refuses to find byte for byte in both)
    t.resave(b .. "/synthetic-vllm_bench_serve_save_detailed.json")
    t.resave(b .. "/metrics/processed/metrics_summary.json")
    local ws, r = t.compare { "--a", a, "--a-label", "other", "--b", b, "--b-label", "own" }
    t.eq(r.code, 0, r.stderr)
    local scope = "includes other traffic: 105 requests finished against 8 sent"
    local md = t.read(ws .. "/comparison_report.md")
    local line = md:match("\nTime%-averaged hit rate [^\n]*")
    find(line, ": other mean 44.5 %, p90 79.3 %, p95 79.3 % (" .. scope .. "); own mean 44.5 %, p90 79.3 %, "
      .. "p95 79.3 %.", "the time-averaged hit rate")
    find(md, "| Hit rate | ", "the totals' rows say it too")
    find(md:match("| Hit rate |[^\n]*"), "(" .. scope .. ")")
    local html = t.read(ws .. "/comparison_report.html")
    find(html:match("Time%-averaged hit rate [^\n]*"), "p95 79.3 % (" .. scope .. "); own mean")
    local kv = json.read(ws .. "/comparison.json").kv
    t.eq({ kv.time_avg.a.scope, kv.time_avg.b.scope }, { scope, false })
  end)
end

-- Session 31's leftovers in compare.lua's report (task cmpfix3): precision of cached tokens.
-- Expected values are by hand or python3 (numpy) as each test says.
-- (Formerly test_cmpfix3.lua, then test_compare_fixes.lua.)
do
  local report = require "llmd.report"

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
end
