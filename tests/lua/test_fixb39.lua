-- Session 39 (fixb39): session 38's leftovers.
-- 1. Where inference-perf's per-request file exists, every figure of a load point (counts,
--    window, rates, tokens, ITL, NTPOT, as TTFT/TPOT/E2E already were) is its requests': the
--    stage file is only checked against them; per-stage TPOT and ITL samples reach the
--    per-load tests.
-- 2. A crashed repeat is named beside the ceiling its load's mean sets and in the note of a
--    lowest load it failed.
-- 3. With an SLO, an untested latency at the matched load names the Performance Results' test
--    of it; the several-point sentence names the test that ran.
-- (4. vLLM's p0.1-p75 checked against the arrays: test_fixe38.)
-- Expected values: tests/sim/fixb39_ref.py (numpy on the per-request file; its output lines
-- quoted beside each value) or by hand, as said.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local DATA = ROOT .. "/tests/data/fixd38"
local LLMDLUA = ROOT .. "/llmdlua"

-- IPS2 with its stage 1 file made to disagree with its requests on every figure item 1 moves:
-- 40 successes and no failure (its requests: 39 and 1), a window of 11 s, 4.4 req/s, ITL and
-- NTPOT 20 % high, output tokens per request 12 (its requests: 10).
local function tampered()
  local b = t.tmpdir() .. "/IPS2t"
  t.copy_tree(DATA .. "/IPS2", b)
  local f = b .. "/stage_1_lifecycle_metrics.json"
  local d = json.read(f)
  d.successes.count, d.failures.count = 40, 0
  d.failures.request_latency, d.failures.prompt_len = json.null, json.null
  d.benchmark_time_seconds = 11.0
  d.successes.throughput.requests_per_sec = 4.4
  d.successes.throughput.output_tokens_per_sec = 48
  local lat = d.successes.latency
  for _, k in ipairs { "mean", "median", "p90", "p95", "p99" } do
    lat.inter_token_latency[k] = lat.inter_token_latency[k] * 1.2
    lat.normalized_time_per_output_token[k] = lat.normalized_time_per_output_token[k] * 1.2
  end
  d.successes.output_len.mean = 12
  json.write(f, d)
  return b
end

local function extract(dir, ...)
  local r = proc.run { LLMDLUA, "extract.lua", dir, "--json", ... }
  t.eq(r.code, 0, r.stderr)
  return json.read_string and json.read_string(r.stdout) or json.decode(r.stdout)
end

local function value(st, key) return st.metrics[key] and st.metrics[key].value end

-- fixb39_ref.py: "IPS2 stage 1: ok 39 failed 1; window 9.933092 s; 3.926270 req/s; output tokens
-- 390; ITL mean 12.054335 ms, p90 13.637066 ms, 351 gaps; NTPOT mean 18.754446 ms; TPOT samples 39"
local function stage1_is_requests(st, what)
  t.eq(value(st, "requests_ok"), 39, what)
  t.eq(value(st, "requests_failed"), 1, what)
  t.near(value(st, "error_rate_pct"), 2.5, 1e-9, what) -- (1 / 40, by hand)
  t.near(value(st, "duration_s"), 9.933092, 1e-5, what)
  t.near(value(st, "throughput_req_s"), 3.926270, 1e-5, what)
  t.eq(value(st, "output_tokens_total"), 390, what)
  t.near(value(st, "ntpot_mean_ms"), 18.754446, 1e-5, what)
  t.eq(st.metrics.duration_s.source, "per-request data", what)
  t.eq(st.metrics.requests_ok.source, "per-request data", what)
end

t.test("inference-perf: a load point's counts, window, rates, tokens, ITL and NTPOT are its requests'", function()
  local b = tampered()
  local run = extract(b)
  local st = run.stages[2]
  stage1_is_requests(st, "placed after the pass")
  t.near(value(st, "itl_mean_ms"), 12.054335, 1e-5)
  t.near(value(st, "itl_p90_ms"), 13.637066, 1e-5)
  t.eq(st.metrics.itl_p90_ms.source, "per-request data")
  -- the stage file is checked against them, each disagreement settled (the requests' figure)
  local seen = {}
  for _, c in ipairs(run.checks) do
    if c.source == "stage 1's stage_1_lifecycle_metrics.json" then
      seen[c.key] = true
      t.eq(c.resolved, true, c.key)
      t.ok(c.text:sub(-32) == "; the per-request figure is used", c.text)
    end
  end
  for _, k in ipairs { "requests_ok", "requests_failed", "duration_s", "throughput_req_s", "throughput_tok_s",
    "itl_mean_ms", "ntpot_mean_ms" } do
    t.ok(seen[k], "a data check of " .. k)
  end
  -- stage 1 left out as warm-up's mirror: stage 0 out, stage 1 read in a pass that places every
  -- request as it is read (its token gaps in a second pass of their own)
  run = extract(b, "--warmup", "0")
  st = run.stages[2]
  stage1_is_requests(st, "warm-up left out")
  t.near(value(st, "itl_mean_ms"), 12.054335, 1e-5)
  t.near(value(st, "itl_p90_ms"), 13.637066, 1e-5)
  -- under --sketch no request's gaps are kept apart: the stage file's ITL stays (its p90 x 1.2
  -- above), said as the harness's
  run = extract(b, "--sketch", "0.01")
  st = run.stages[2]
  stage1_is_requests(st, "sketch")
  t.eq(st.metrics.itl_p90_ms.source, "harness summary")
end)

t.test("inference-perf: the same figures where goodput places requests as they are read; TPOT tested per load",
  function()
    local b = tampered()
    local ws, r = t.compare { "--a", DATA .. "/IPS2", "--b", b, "--a-label", "IPS2", "--b-label", "IPS2t",
      "--slo", "ttft_p90_ms=500" }
    t.eq(r.code, 0, r.stderr)
    local cmp = json.read(ws .. "/comparison.json")
    local p = cmp.load_points.b[2].values
    t.near(p.requests_ok, 39, 0)
    t.near(p.requests_failed, 1, 0)
    t.near(p.duration_s, 9.933092, 1e-5)
    t.near(p.itl_p90_ms, 13.637066, 1e-5)
    t.near(p.ntpot_mean_ms, 18.754446, 1e-5)
    -- the two runs hold the same requests: every figure of theirs is equal, the stage file's
    -- edits change none
    local pa = cmp.load_points.a[2].values
    for _, k in ipairs { "requests_ok", "duration_s", "throughput_req_s", "itl_mean_ms", "itl_p90_ms",
      "ntpot_mean_ms", "tpot_p90_ms", "output_tokens_total" } do
      t.eq(p[k], pa[k], k)
    end
    -- TPOT and ITL rows are tested on each load point's requests (van Elteren over the 2 points),
    -- no longer "untested" for want of per-stage samples
    local md = t.read(ws .. "/comparison_report.md")
    -- (the table names the test its rows share once, at the first of them, since fixb40)
    for _, kind in ipairs { "TPOT", "ITL" } do
      local line = md:match("\n| " .. kind .. " mean |[^\n]*")
      t.ok(line and line:find("Mann-Whitney stratified by load point (van Elteren, 2 points)", 1, true), line)
      line = md:match("\n| " .. kind .. " p90 |[^\n]*")
      t.ok(line and line:find("same test as " .. kind .. " mean", 1, true), line)
    end
  end)

t.test("inference-perf: a one-stage run's stage figures are its requests', its stage file checked", function()
  -- IPS2's stage 0 alone with its 40 requests (fixb39_ref.py: "IPS2 stage 0: ok 40 failed 0;
  -- window 19.682853 s; 2.032226 req/s; output tokens 400; ITL mean 12.053309 ms, p90 13.634348
  -- ms"); its stage file's window set to 25 s and its ITL p90 to 20 ms
  local d = t.tmpdir() .. "/one"
  t.mkdir(d)
  local reqs = json.read(DATA .. "/IPS2/per_request_lifecycle_metrics.json")
  table.sort(reqs, function(x, y) return x.start_time < y.start_time end)
  local first = {}
  for i = 1, 40 do first[i] = reqs[i] end
  json.write(d .. "/per_request_lifecycle_metrics.json", first)
  local s0 = json.read(DATA .. "/IPS2/stage_0_lifecycle_metrics.json")
  s0.benchmark_time_seconds = 25.0
  s0.successes.latency.inter_token_latency.p90 = 0.020
  json.write(d .. "/stage_0_lifecycle_metrics.json", s0)
  local run = extract(d)
  local st = run.stages[1]
  t.near(value(st, "duration_s"), 19.682853, 1e-5)
  t.near(value(st, "throughput_req_s"), 2.032226, 1e-5)
  t.near(value(st, "itl_p90_ms"), 13.634348, 1e-5)
  t.eq(value(st, "output_tokens_total"), 400)
  local keys = {}
  for _, c in ipairs(run.checks) do if c.source then keys[c.key] = c.resolved end end
  t.eq(keys.duration_s, true)
end)

-- 3. With an SLO, the Summary's untested latency at the matched load points to the Performance
--    Results' test of that metric, as the no-SLO sentence does (fixa38); the several-point
--    sentence names the test that ran, with its strata.
local report = require "llmd.report"
local decision = require "llmd.decision"
local stats = require "llmd.stats"
-- a hand-made run of stages {offered, achieved, TTFT p90 ms}, each with 200 TTFT samples spread
-- evenly over 0.9 to 1.1 times its p90 figure (independent: design effect 1)
local function sampled_run(points)
  local stages = {}
  for i, p in ipairs(points) do
    stages[i] = { rate = p[1], values = { throughput_req_s = p[2], ttft_p90_ms = p[3], throughput_tok_s = 10 * p[2],
      error_rate_pct = 0, requests_ok = 200, requests_failed = 0 } }
  end
  local r = t.run_of(stages)
  r.overall.values = { ttft_p90_ms = points[#points - 1][3] }
  for i, st in ipairs(r.stages) do
    local acc = stats.new()
    for k = 1, 200 do acc:add(points[i][3] / 1000 * (0.9 + 0.2 * ((k * 37) % 200) / 200)) end
    st.metrics.samples, st.metrics.sample_deff = { ttft = acc }, { ttft = 1 }
  end
  return r
end

t.test("with an SLO: an untested latency at the matched load names the Performance Results' test of it", function()
  -- x and y offered 10-40 req/s; y achieved 32 of 40 (80 %, below 95 %): saturated there, so the
  -- matched load is 30 req/s, whose samples are made too dependent (design effect 10: 200
  -- requests carry 20 independent ones, fewer than 50) to test there. The table's TTFT test
  -- then runs at 10 and 20 req/s only (30 too dependent, 40 overloaded): x's samples (18-22 and
  -- 36-44 ms) all below y's (23.4-28.6 and 46.8-57.2 ms) at both, by hand: complete separation,
  -- van Elteren over 200 + 200 a stratum, p < 1e-9.
  local x = sampled_run { { 10, 10, 20 }, { 20, 20, 40 }, { 30, 30, 60 }, { 40, 40, 80 } }
  local y = sampled_run { { 10, 10, 26 }, { 20, 20, 52 }, { 30, 30, 78 }, { 40, 32, 3000 } }
  x.stages[3].metrics.sample_deff.ttft, y.stages[3].metrics.sample_deff.ttft = 10, 10
  local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
  local m = report.build { a = sd("x", x), b = sd("y", y), slo = decision.parse_slo("ttft_p90_ms=100"),
    generated = 0 }
  t.ok(m.summary:find("At 30 req/s offered (30.00 req/s achieved by both), TTFT p90 is 60.0 ms for x and 78.0 ms for "
    .. "y (untested: its requests are too dependent to test: in send order neighbours are alike (the queue), so 200 "
    .. "requests carry about 20 independent ones (design effect 10), fewer than the 50 the estimate needs; "
    .. "Performance Results, at 2 of the 3 loads both sustained (1 left out: too dependent to test at 30/s): x's "
    .. "lower, p < 1e-9).", 1, true), m.summary)
  -- (fixi42) the sentence of what the test found there names the loads it left out too
  t.contains(m.summary, "(Mann-Whitney stratified by load point (van Elteren, 2 points), at 2 of the 3 loads both "
    .. "sustained (1 left out: too dependent to test at 30/s), p < 1e-9)")
  -- (with its size within the two points, fixc39: 26 against 20 ms, 6 / 23 = +26.1 % of their
  -- mean, by hand)
  t.ok(m.summary:find("At the loads both runs sustained, x's values are lower in TTFT p90 (+26.1 %, 95 % interval ",
    1, true), m.summary)
  t.ok(m.summary:find(") (Mann-Whitney stratified by load point (van Elteren, 2 points), at 2 of the 3 loads both "
    .. "sustained (1 left out: too dependent to test at 30/s), p < 1e-9), each beyond the 2.0 % "
    .. "threshold (y against x within the load points tested); the whole-run figures pool load points where a run was "
    .. "overloaded, which the test left out, so they name no winner.", 1, true), m.summary)
end)

-- 2. A crashed repeat named wherever its load's figures are said: the ceiling of a figure its
--    crash cut (a mean that counts its successes), and the note of a lowest load it failed.
do
  local tr = require "llmd.treatments"
  local lp = require "llmd.loadpoints"
  -- exp-7's vLLM summary (200 prompts) at this offered rate with this achieved throughput,
  -- `failed` of its requests failed (test_fixb38's builder)
  local written = 0
  local function summary(rate, achieved, failed)
    local doc = json.read(t.fixtures() .. "/vllm-benchmark/exp-7_H100/vllm-2replicas/benchmark_2025-05-13_04-55-27.json")
    doc.request_rate, doc.request_throughput = rate, achieved
    doc.failed, doc.completed = failed or 0, doc.completed - (failed or 0)
    written = written + 1
    doc.duration = doc.completed / achieved + written * 1e-6
    doc.output_throughput = doc.total_output_tokens / doc.duration
    doc.total_token_throughput = (doc.total_output_tokens + doc.total_input_tokens) / doc.duration
    if achieved < 0.95 * rate then t.queue_latencies(doc) end
    return doc
  end
  -- three repeats; points(i): repeat i's {offered, achieved, failed}
  local function reps(points)
    local dirs = {}
    for i = 1, 3 do
      local d = t.tmpdir()
      for j, p in ipairs(points(i)) do
        t.write(("%s/benchmark_%02d.json"):format(d, j), json.encode(summary(p[1], p[2], p[3])))
      end
      dirs[i] = d
    end
    return dirs
  end

  t.test("a crashed repeat's ceiling and lowest load: the repeat named", function()
    -- at 10, 20 and 40 req/s; repeat 2 crashed at 40: 122 of 200 failed (61 %), 78 completed at
    -- 15.6 req/s; the others kept up, none failed. By hand: the max sustained is 20 req/s's mean
    -- achieved, 19.95; the most at any load is 40 req/s's, repeat 2 left out (fixf39: a crash
    -- does not pull the ceiling down), (40 + 40) / 2 = 40, where the mean of all three is
    -- (40 + 15 + 40) / 3 = 31.667: its file's rate, 78 / 5.2 s = 15 req/s (duration 78 / 15.6 = 5 s
    -- plus the 0.2 s least latency testlib's queue_latencies adds, its request_throughput
    -- made completed / duration as vLLM writes it; the drain-reduced rate is 78 / 5 = 15.6)
    local cut = reps(function(i)
      return { { 10, 10 }, { 20, 19.9 + 0.05 * (i - 1) }, i == 2 and { 40, 15.6, 122 } or { 40, 40 } }
    end)
    -- repeat 3 failed 60 of 200 (30 %) at its lowest load (10 req/s), the others none: 10 % by
    -- the mean, more than 5 %
    local low = reps(function(i) return { i == 3 and { 10, 10, 60 } or { 10, 10 }, { 20, 20 } } end)
    local out = t.tmpdir()
    tr.write_report(out, tr.load { { label = "cut", dirs = cut }, { label = "low", dirs = low } }, {})
    local md = t.read(out .. "/treatment_report.md")
    local row = md:match("\n(| cut |[^\n]*)")
    t.ok(row:find("19.950 req/s (up to 40.000 req/s, its most at any load: load point 3's mean leaving out repeat 2, "
      .. "which crashed there (61 % of its requests failed; 31.667 req/s with it); then 20.33 % failed at load point 3",
      1, true), row)
    local j = json.read(out .. "/treatments.json")
    local by = {}
    for _, x in ipairs(j.treatments) do by[x.label] = x end
    t.eq(by.low.max_sustained_why, "10 % of requests failed at the lowest load (repeat 3: 30 % failed, the others 0 "
      .. "and 0 %), more than 5 %, the error-rate limit used when no error-rate SLO is given, so no load was "
      .. "sustained within it; failed requests, not overload")
    -- a ceiling with no crash left out of it (llmd.loadpoints.ceiling's left_out): nothing added
    local limit = { pct = 5, text = "5 %" }
    t.eq(lp.ceiling_crash_text { cause = "failures", point = 3, achieved_rps = 31, ceiling_rps = 40, limit = limit,
      repeats_failed_pct = { 0, 61, 0 } }, "")
  end)
end
