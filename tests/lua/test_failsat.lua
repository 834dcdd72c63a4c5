-- A new user's findings on runs with failed requests (session 28, "failsat"): a stage whose
-- shortfall is failed requests is a failure of the error-rate SLO, not saturation, so the
-- saturation search goes on past it; lp.at on the achieved axis interpolates only between
-- load neighbours; an error rate judged on repeats cannot order capacities by its mean.
-- Inputs are made here from the shared fixtures the way the user made them
-- (/tmp/nu/gen/make_inputs.py); expected figures come from python3 on the fixture files,
-- the computation written beside each value.
local t = require "testlib"
local json = require "llmd.json"
local lp = require "llmd.loadpoints"
local decision = require "llmd.decision"
local report = require "llmd.report"
local harness = require "llmd.harness"
local tr = require "llmd.treatments"

local F = t.fixtures()
local CHUNK = F .. "/inference-perf/kubecon-na-2025_vllm_chunking_and_prefix_caching"
local VLLM = F .. "/inference-perf/kubecon-na-2025_vllm"
local EXP7 = F .. "/vllm-benchmark/exp-7_H100"

-- The chunked + prefix-caching run with 3060 of stage 4's 10199 requests failed (503s) and
-- its success throughputs scaled by the share that succeeded, as the user made it.
local function chunk_fail()
  local d = t.tmpdir() .. "/chunk-fail"
  t.copy_tree(CHUNK, d)
  for _, name in ipairs { "stage_4_lifecycle_metrics.json", "summary_lifecycle_metrics.json" } do
    local p = d .. "/" .. name
    local x = json.read(p)
    local s = x.successes
    local n = s.count
    for k, v in pairs(s.throughput or {}) do s.throughput[k] = v * (n - 3060) / n end
    s.count = n - 3060
    local lat = { mean = 30.0, min = 30.0, median = 30.0, p90 = 30.0, p99 = 30.0, max = 30.0 }
    x.failures = { count = 3060, request_latency = lat, prompt_len = s.prompt_len }
    t.write(p, json.encode(x))
  end
  return d
end

-- exp-7's vllm-2replicas (three repeats at 3.6 req/s) with its third repeat completing 140
-- of its 200 requests (60 failed), its rates scaled, as the user made it.
local function vllm2_crash()
  local d = t.tmpdir() .. "/vllm2-crash"
  t.copy_tree(EXP7 .. "/vllm-2replicas", d)
  local p = d .. "/benchmark_2025-05-13_05-03-46.json"
  local x = json.read(p)
  local n = 140
  x.completed, x.total_input_tokens, x.total_output_tokens = n, 7999 * n, 200 * n
  x.request_throughput, x.output_throughput = n / x.duration, 200 * n / x.duration
  x.total_token_throughput = 8199 * n / x.duration
  t.write(p, json.encode(x))
  return d
end

local function sd(label, dir)
  return { label = label, state = { label = label }, run = harness.extract(dir, {}), kv = {} }
end

t.test("saturation search goes on past a stage whose shortfall is failed requests", function()
  local pts = lp.points(harness.extract(chunk_fail(), {}))
  local sat = lp.saturation(pts)
  -- python3 on the stage files: stage 4 (point 5) 3060 / (7139 + 3060) = 30.0029 % failed,
  -- 117.44 req/s of 169.99 (69.1 %) succeeded, answered 117.44 / 0.6999 = 167.8 (98.7 %):
  -- failures; stage 5 (point 6) 170.2076 / 212.24 = 80.196 % with none failed: overload
  t.eq({ sat.point, sat.cause, sat.failures and sat.failures.point }, { 6, nil, 5 })
  -- the max sustained rate: the highest achieved before point 6, stage 3's 126.53470729666181
  t.near(sat.max_sustained_rps, 126.53470729666181, 1e-9)
  t.ok(sat.reason:find("^at 212.24 req/s offered only 170.2 req/s were achieved %(80.2 %%, below 95 %%%); the "
    .. "shortfall at load point 5 %(169.99 req/s offered%), below it, was failed requests %(30 %% of them failed%), "
    .. "not overload"), sat.reason)
  t.eq(lp.point_saturated(sat, pts[5]), false)
  t.eq(lp.point_saturated(sat, pts[6]), true)
  t.eq(lp.point_saturated(sat, pts[7]), true)
  -- the comparison: B is marked from point 6 on, and its capacity text agrees with the
  -- ladder: point 5 violates the SLOs there, it did not "saturate"
  local m = report.build { a = sd("vllm", VLLM), b = sd("chunk-fail", chunk_fail()), generated = 0,
    slo = decision.parse_slo("ttft_p90_ms=200,error_rate_pct=1") }
  local marked = {}
  for _, r in ipairs(m.ladder.rows) do
    if r.b and r.b.point and r.sat_b ~= "" then marked[#marked + 1] = r.b.point end
  end
  t.eq(table.concat(marked, " "), "6 7")
  t.ok(m.ladder.saturation_legend:find("B (chunk-fail) from load point 6 on: at 212.24 req/s offered only 170.2",
    1, true), m.ladder.saturation_legend)
  local c = m.capacity.b
  -- every SLO holds up to point 4 (TTFT p90 37.2 ms, 0 failed); point 5 fails both (30 %,
  -- TTFT p90 226.5 ms > 200) at 117.44 req/s, below point 4's 126.53: no crossing on the
  -- achieved rate, a lower bound at point 4's rate
  t.eq({ c.kind, c.bound, c.first_failing }, { "last_passing", "lower", 5 })
  t.near(c.rps, 126.53470729666181, 1e-9)
  t.ok(c.reason:find("load point 5 violates Error rate, TTFT p90 there", 1, true), c.reason)
  t.ok(not c.reason:find("saturated", 1, true), c.reason)
  local by = {}
  for _, r in ipairs(m.headline) do by[r.label] = r end
  local cap = by["Capacity at SLO (Error rate ≤ 1.00 % and TTFT p90 ≤ 200.0 ms)"]
  t.eq(cap.b_text, "≥ 126.53 req/s (the last load that met the SLOs)")
end)

t.test("a run whose only shortfall is failed requests: the capacity says 'violates', never 'had saturated'",
  function()
  -- 4, 8 and 12 req/s offered; 4, 4 and 6 succeed, with 0, 50 and 50 % failed: answered 4,
  -- 4 / 0.5 = 8 and 6 / 0.5 = 12, the whole offered rate (by hand): failures, no overload
  local run = t.run_of {
    { rate = 4, values = { throughput_req_s = 4, ttft_p90_ms = 50, error_rate_pct = 0 } },
    { rate = 8, values = { throughput_req_s = 4, ttft_p90_ms = 60, error_rate_pct = 50 } },
    { rate = 12, values = { throughput_req_s = 6, ttft_p90_ms = 70, error_rate_pct = 50 } } }
  local pts = lp.points(run)
  local sat = lp.saturation(pts)
  t.eq({ sat.point, sat.cause, sat.failed_pct }, { 2, "failures", 50 })
  local c = lp.capacity(pts, decision.parse_slo("error_rate_pct=1"), sat)
  t.eq({ c.kind, c.rps, c.first_failing }, { "last_passing", 4, 2 })
  t.ok(c.reason:find("^every SLO holds up to load point 1 %(4 req/s achieved%); load point 2 violates Error rate "
    .. "there, and achieved only 4 req/s %(50 %% of its requests failed%)"), c.reason)
  -- a failing point with a higher achieved rate is interpolated as before: 5 % failed at
  -- 8 req/s offered, 7.6 achieved; 1 % is crossed 1/5 of the way: 4 + 0.2 x 3.6 = 4.72
  run.stages[2].metrics.values = { throughput_req_s = 7.6, ttft_p90_ms = 60, error_rate_pct = 5 }
  pts = lp.points(run)
  c = lp.capacity(pts, decision.parse_slo("error_rate_pct=1"))
  t.eq(c.kind, "interpolated")
  t.near(c.rps, 4.72, 1e-12)
end)

t.test("lp.at on the achieved axis interpolates between load neighbours only", function()
  local pts = lp.points(harness.extract(chunk_fail(), {}))
  -- python3 on the stage files: 100 req/s lies between stage 2 (84.77301380618104 req/s,
  -- TTFT p90 33.18592401919887 ms) and stage 3 (126.53470729666181, 37.24500122480095),
  -- load neighbours: 33.186 + (100 - 84.773) / (126.535 - 84.773) x 4.059 = 34.665928956820395
  -- (not 123.29, the line to stage 4's 117.44 req/s and 226.5 ms that sorting by the
  -- achieved rate drew)
  local v, interp, lo, hi = lp.at(pts, 100, "ttft_p90_ms")
  t.near(v, 34.665928956820395, 1e-9)
  t.eq({ interp, lo.index, hi.index }, { true, 3, 4 })
  -- 120 req/s: achieved between points 3 and 4, between 4 and 5 (126.5 down to 117.4) and
  -- between 5 and 6: at three loads, so nil with the reason
  local why
  v, why = lp.at(pts, 120, "ttft_p90_ms")
  t.eq(v, nil)
  t.ok(type(why) == "string" and why:find("not increasing in load order", 1, true), why)
  t.ok(why:find("between load points 4 and 5 (126.5 then 117.4 req/s)", 1, true), why)
  -- a point's own rate that the run also passed through between two other loads: nil too
  v, why = lp.at(pts, 117.4436040499989, "ttft_p90_ms")
  t.eq(v, nil)
  t.ok(why:find("load point 5; between load points 3 and 4", 1, true), why)
  -- a monotone run is as before: the unmodified run at 100 req/s, the same neighbours
  v = lp.at(lp.points(harness.extract(CHUNK, {})), 100, "ttft_p90_ms")
  t.near(v, 34.665928956820395, 1e-9)
end)

t.test("a crashed repeat: the error rate on repeats orders no capacities", function()
  local crash = vllm2_crash()
  local m = report.build { a = sd("vllm-2rep", EXP7 .. "/vllm-2replicas"), b = sd("vllm-crash", crash),
    generated = 0, slo = decision.parse_slo("error_rate_pct=1,ttft_p95_ms=300") }
  -- B's repeats failed 0, 0 and 30 % (60 of 200): mean 10 %, sd sqrt(300) = 17.32, 95 %
  -- interval 10 -/+ 4.303 x 17.32 / sqrt 3 = -33.0 .. 53.0 (python3: statistics.stdev,
  -- t(0.975, 2) = 4.302652729911275), whose lower end (clipped at 0) meets 1 %: B may meet
  -- the SLO at 3.6 req/s, as A did; nothing orders the two
  local ev = m.capacity.evidence
  t.ok(ev.verdict ~= "A higher" and not ev.ordered, ev.verdict)
  -- and the repeats disagree on the SLO beyond chance: 0, 0 and 60 of 200 failed (0, 0 and
  -- 30 %, two within 1 % and one above), Pearson's chi-square on the 2 x 3 table (python3
  -- by hand: expected 20 failed per repeat, x2 = 20 + 20 + 80 + (20^2/180) x 2 + 40^2/180
  -- = 133.3, df 2, p = exp(-133.3 / 2) < 1e-9): "not shown to differ", never "no clear
  -- difference" and never an order
  t.eq({ ev.verdict, ev.overdispersed and ev.overdispersed.b and ev.overdispersed.b.point },
    { "not shown to differ", 1 })
  t.eq(ev.overdispersed.a, nil)
  local by = {}
  for _, r in ipairs(m.headline) do by[r.label] = r end
  local cap = by["Capacity at SLO (Error rate ≤ 1.00 % and TTFT p95 ≤ 300.0 ms)"]
  t.ok(cap.evidence:find("vllm-crash's repeats at load point 1 failed 0 of 200, 0 of 200 and 60 of 200 requests "
    .. "(chi-square heterogeneity p < 1e-9), some above the error-rate SLO of 1.00 % and some within it", 1, true),
    cap.evidence)
  t.ok(m.summary:find("^Capacity within Error rate ≤ 1.00 %% and TTFT p95 ≤ 300.0 ms not shown to differ: "),
    m.summary)
  -- a dispersion whose repeats all meet the SLO decides nothing of it: limit 40 %
  t.eq(decision.error_slo_dispersion(harness.extract(crash, {}), lp.points(harness.extract(crash, {})),
    decision.parse_slo("error_rate_pct=40")), nil)
  -- nor without an error-rate SLO
  t.eq(decision.error_slo_dispersion(harness.extract(crash, {}), lp.points(harness.extract(crash, {})),
    decision.parse_slo("ttft_p95_ms=300")), nil)
  for _, r in ipairs(m.headline) do
    t.ok(not (r.evidence or ""):find("order them", 1, true), r.evidence)
  end
  t.ok(not m.summary:find("order them", 1, true), m.summary)
  t.ok(not m.summary:find("at none of its load points", 1, true), m.summary)
  -- treatments: the same pair, no order either
  local list = tr.load { { label = "ok", dirs = { EXP7 .. "/vllm-2replicas" } }, { label = "crash", dirs = { crash } } }
  local tm = tr.model(list, { slo = decision.parse_slo("error_rate_pct=1") })
  t.ok(not tm.verdict:find("order them", 1, true), tm.verdict)
  t.ok(tm.verdict:find("not shown to differ from crash", 1, true), tm.verdict)
  for _, r in ipairs(tm.ranking) do
    t.ok(not (r.vs_next_text or ""):find("order them", 1, true), r.vs_next_text)
  end
end)

t.test("concurrency: the never-saturated reason says what the plateau rule found, not 'grew 5 % at every step'",
  function()
  -- the user's conc-flat: requests 2, 4, 7.5, 8 and 8.1 req/s at c = 1, 2, 4, 8, 16, E2E p50
  -- flat at 380 ms; steps (by hand): +100 %, +100 %, +87.5 %, +6.7 %, and c=8 to 16
  -- 8.1 / 8 - 1 = +1.25 % (below 5 %) with E2E p50 +0.0 %: no plateau by the rule (latency
  -- did not grow), but throughput did not grow 5 % at every step either
  local stages = {}
  for i, p in ipairs { { 1, 2 }, { 2, 4 }, { 4, 7.5 }, { 8, 8 }, { 16, 8.1 } } do
    stages[i] = { concurrency = p[1], values = { throughput_req_s = p[2], latency_p50_ms = 380, ttft_p50_ms = 30 * i,
      error_rate_pct = 0, requests_ok = 200 } }
  end
  local sat = lp.saturation(lp.points(t.run_of(stages)))
  t.eq({ sat.none, sat.point }, { true, nil })
  t.ok(not sat.reason:find("at every step", 1, true), sat.reason)
  t.ok(sat.reason:find("from concurrency 8 to 16 throughput grew +1.2 % and end-to-end latency p50 +0.0 %", 1, true),
    sat.reason)
  -- every step +5 % or more (8 to 8.5 at c=16, +6.25 %): the old words, which are then true
  stages[5].values.throughput_req_s = 8.5
  sat = lp.saturation(lp.points(t.run_of(stages)))
  t.eq(sat.reason, "throughput grew by at least 5 % at every step of concurrency")
end)

t.test("overlapping capacity ranges that are open-ended are 'not shown to differ', never 'no clear difference'",
  function()
  -- exp-7, TTFT p95 <= 260 ms at 3.6 req/s, three repeats each (python3 statistics on
  -- p95_ttft_ms, t(0.975, 2) = 4.302652729911275): vllm-2replicas 256.44 ms, interval
  -- 254.35 .. 258.54, within 260 on both ends: "≥ 3.48" with no upper end; llm-d-1p1d
  -- 262.53 ms, interval 254.33 .. 270.74, across 260: anywhere from 0 to beyond its load.
  -- The ranges overlap, but both are open: they allow any gap, so nothing is shown either way
  local m = report.build { a = sd("vllm-2replicas", EXP7 .. "/vllm-2replicas"),
    b = sd("llm-d-1p1d", EXP7 .. "/llm-d-1p1d"), generated = 0, slo = decision.parse_slo("ttft_p95_ms=260") }
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.open_range, ev.winner }, { "not shown to differ", true, nil })
  local by = {}
  for _, r in ipairs(m.headline) do by[r.label] = r end
  local cap = by["Capacity at SLO (TTFT p95 ≤ 260.0 ms)"]
  t.ok(cap.evidence:find("they overlap, but vllm-2replicas's range has no upper end and llm-d-1p1d's range reaches "
    .. "down to 0 and has no upper end, so the overlap leaves room for any gap: not shown to differ, no winner", 1, true),
    cap.evidence)
  t.ok(m.summary:find("^Capacity within TTFT p95 ≤ 260.0 ms not shown to differ: "), m.summary)
  t.ok(not m.summary:find("No clear difference in capacity", 1, true), m.summary)
end)
