-- The family of a comparison (Holm over its tests) and the summary's test at the matched
-- load: a test is what it tests, so the matched-load test that is a row's own test counts
-- once, and nothing in the family depends on which run is A. Expected p-values come from
-- tests/data/family_expectations.py (python3 stdlib Mann-Whitney, quoted below); Holm is
-- worked by hand in the comments.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local decision = require "llmd.decision"
local report = require "llmd.report"
local harness = require "llmd.harness"

local F = t.fixtures()
local ROOT = t.here() .. "/../.."
local DETAILED = F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json"
local EXP7 = F .. "/vllm-benchmark/exp-7_H100"
local KC_A = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local KC_B = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

local function side(dir, label)
  return { label = label, run = harness.extract(dir, {}), state = { label = label },
    kv = { available = false, reason = "none" } }
end

-- A side from a hand-made run: stages {rate | concurrency, values}.
local function synthetic(label, stages)
  local run = t.run_of(stages)
  if #stages == 1 then run.overall.values = stages[1].values end
  return { label = label, run = run, state = { label = label }, kv = { available = false, reason = "none" } }
end

local compare = t.compare

local vllm_text = t.vllm_text

-- The auditor's vsyn3: the synthetic vLLM detailed fixture with the TTFT of the k-th
-- successful request times FS[k] (its latency moved by as much) and every ITL gap x 0.93
-- (the latency moved by that too), as tests/data/family_expectations.py builds it.
local FS = { 1.017191764212727, 1.6700623805300583, 1.4451634581219468, 1.5138354903459565, 1.1487250127157742,
  1.794034729740852, 1.687957223036232 }
local function vsyn3_dir()
  local d = json.read(DETAILED)
  local j = 0
  for i, e in ipairs(d.errors) do
    if e == "" then
      j = j + 1
      local old = d.ttfts[i]
      d.ttfts[i] = old * FS[j]
      d.latencies[i] = d.latencies[i] + old * (FS[j] - 1)
      local gaps, s = {}, 0
      for k, g in ipairs(d.itls[i]) do gaps[k] = g * 0.93 end
      for _, g in ipairs(gaps) do s = s + g * 0.07 / 0.93 end
      d.itls[i] = gaps
      d.latencies[i] = d.latencies[i] - s
    end
  end
  local dir = t.tmpdir()
  t.write(dir .. "/result.json", vllm_text(d))
  return dir
end

-- Repeats of one load point with per-request data: the detailed fixture once per factor,
-- every TTFT (and so every latency) times that factor.
local function repeats_dir(factors)
  local dir = t.tmpdir()
  for n, f in ipairs(factors) do
    local d = json.read(DETAILED)
    for i, e in ipairs(d.errors) do
      if e == "" then
        d.latencies[i] = d.latencies[i] + d.ttfts[i] * (f - 1)
        d.ttfts[i] = d.ttfts[i] * f
      end
    end
    t.write(("%s/result-%d.json"):format(dir, n), vllm_text(d))
  end
  return dir
end

local function vsyn_dir()
  local dir = t.tmpdir()
  proc.run { "cp", DETAILED, dir .. "/result.json" }
  return dir
end

local MIRROR = { ["A better"] = "B better", ["B better"] = "A better" }

-- m2 is m1 with the runs swapped: every verdict mirrored, every p, adjusted p and family
-- size the same, the family the same tests with the same adjusted p, and the matched-load
-- test the same (its values swapped).
local function same_family(m1, m2, what)
  t.eq(#m1.perf, #m2.perf, what)
  for i, r in ipairs(m1.perf) do
    local q = m2.perf[i]
    local w = what .. ": " .. r.key
    t.eq(q.verdict, MIRROR[r.verdict] or r.verdict, w .. " verdict mirrors")
    t.eq(q.test_id, r.test_id, w .. " test id")
    t.eq(q.p_value, r.p_value, w .. " p")
    t.eq(q.p_adjusted, r.p_adjusted, w .. " adjusted p")
    t.eq(q.family_size, r.family_size, w .. " family size")
    t.eq(q.adjusted_away, r.adjusted_away, w .. " adjusted away")
  end
  t.eq(m2.family.size, m1.family.size, what .. ": family size")
  local f1, f2 = {}, {}
  for _, x in ipairs(m1.family.tests) do f1[x.id] = x.p_adjusted end
  for _, x in ipairs(m2.family.tests) do f2[x.id] = x.p_adjusted end
  t.eq(f2, f1, what .. ": the family's tests")
  local p1, p2 = m1.matched_point, m2.matched_point
  t.eq(p2 == nil, p1 == nil, what .. ": matched point on both sides or neither")
  if p1 then
    t.eq(p2.key, p1.key, what .. ": matched metric")
    t.eq(p2.rps, p1.rps, what .. ": matched load")
    t.eq({ p2.a, p2.b }, { p1.b, p1.a }, what .. ": matched values swap")
    t.eq(p2.reason, p1.reason, what .. ": why no test")
    t.eq(p2.test and p2.test.id, p1.test and p1.test.id, what .. ": matched test id")
    t.eq(p2.test and p2.test.p, p1.test and p1.test.p, what .. ": matched p")
    t.eq(p2.p_adjusted, p1.p_adjusted, what .. ": matched adjusted p")
    t.eq(p2.family_size, p1.family_size, what .. ": matched family size")
  end
end

-- One load point whose request counts are known: failed of total (the rest completed).
local function errors_side(label, failed, total)
  return synthetic(label, { { rate = 10, values = { throughput_req_s = 9.5, ttft_p90_ms = 50,
    requests_ok = total - failed, requests_failed = failed, error_rate_pct = failed / total * 100 } } })
end

-- inference-perf's synthetic per-request file (1 of its 6 requests failed), with its
-- failed request copied `more` times more: 16 more gives the auditor's 17 of 22 failed
local function ip_dir(more)
  local recs = json.read(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json")
  local failed
  for _, r in ipairs(recs) do if r.error ~= json.null and r.error ~= nil then failed = r end end
  for _ = 1, more do recs[#recs + 1] = failed end
  local d = t.tmpdir()
  json.write(d .. "/per_request_lifecycle_metrics.json", recs)
  return d
end

local function both_ways(sa, sb, slo, what)
  local s = slo and decision.parse_slo(slo) or nil
  local m1 = report.build { a = sa, b = sb, slo = s, generated = 0 }
  local m2 = report.build { a = sb, b = sa, slo = s, generated = 0 }
  same_family(m1, m2, what)
  return m1, m2
end

-- p-values from tests/data/family_expectations.py (python3 stdlib Mann-Whitney: exact, every
-- split enumerated, for 7 and 7 requests; the ITL gaps' declustered normal approximation)
local P = { e2e = 0.38286713286713286, ttft = 0.011072261072261072, tpot = 0.0005827505827505828,
  itl = 0.14440574286232538 }

t.test("F1: the matched-load test that is a row's own counts once, whichever run is A (the audit's vsyn/vsyn3)",
  function()
    local da, db = vsyn_dir(), vsyn3_dir()
    -- TTFT p90 <= 60 passes in vsyn (46.4 ms) and fails in vsyn3 (73.1); TPOT p90 <= 11 fails
    -- in vsyn (11.16) and passes in vsyn3 (10.38): each run is limited by another metric,
    -- and the matched-load test used to be that of run A's (TTFT when vsyn3 was A).
    -- (TPOT first: the SLOs keep the order given, fixf44, and the matched metric is the first
    -- that limits either run)
    local m1, m2 = both_ways(side(da, "vsyn"), side(db, "vsyn3"), "tpot_p90_ms=11,ttft_p90_ms=60", "vsyn/vsyn3")
    for _, m in ipairs { m1, m2 } do
      local by = {}
      for _, r in ipairs(m.perf) do by[r.key] = r end
      t.near(by.latency_p90_ms.p_value, P.e2e, 1e-12)
      t.near(by.ttft_p90_ms.p_value, P.ttft, 1e-12)
      t.near(by.tpot_p90_ms.p_value, P.tpot, 1e-12)
      t.near(by.itl_p90_ms.p_value, P.itl, 1e-12)
      -- one load point each: the matched test is the TPOT rows' own (TPOT p90, the first SLO
      -- in their order limiting either run), so the family is the 4 distinct tests. Holm by
      -- hand, sorted: TPOT 4 x 0.0017451 = 0.0069805; TTFT 3 x 0.0127163 = 0.0381488; ITL
      -- 2 x 0.1444057 = 0.2888115; E2E 1 x 0.3379040 = 0.3379040 (above the running max).
      t.eq(m.family.size, 4)
      t.near(by.tpot_p90_ms.p_adjusted, 4 * P.tpot, 1e-12)
      t.near(by.ttft_p90_ms.p_adjusted, 3 * P.ttft, 1e-12)
      t.near(by.itl_p90_ms.p_adjusted, 2 * P.itl, 1e-12)
      t.near(by.latency_p90_ms.p_adjusted, P.e2e, 1e-12)
      t.eq(m.matched_point.key, "tpot_p90_ms")
      t.eq(m.matched_point.test.id, "mann_whitney:tpot")
      t.eq(m.matched_point.family_size, 4)
      t.near(m.matched_point.p_adjusted, 4 * P.tpot, 1e-12)
      -- 0.0381 < 0.05 in both orders: significant in TTFT p90 (the swapped order used to read
      -- "no clear difference, Holm-adjusted 0.0509 over 5 tests"); since fixb40 no winner
      -- even so: 7 requests a run bound no 95 % interval of its p90 (fewer than the 50
      -- independent requests one needs), so the difference is not shown beyond 2 %
      t.ok(by.ttft_p90_ms.p_adjusted < 0.05)
      t.eq({ by.ttft_p90_ms.winner, by.ttft_p90_ms.size }, { nil, "unsure" })
    end
    t.eq(m1.perf[1].key, m2.perf[1].key)
    local function ttft(m) for _, r in ipairs(m.perf) do if r.key == "ttft_p90_ms" then return r end end end
    t.eq(ttft(m1).verdict, "not shown to differ")
    t.eq(ttft(m2).verdict, "not shown to differ")
    t.eq(ttft(m2).verdict_text, ttft(m1).verdict_text)
  end)

t.test("F1: with repeats, the matched-load Welch test is the row's own: 12 tests, not 13 (exp-7, TTFT p99)", function()
  local m1 = both_ways(side(EXP7 .. "/vllm-2replicas", "x"), side(EXP7 .. "/llm-d-1p1d", "y"), "ttft_p99_ms=300",
    "exp-7")
  local by = {}
  for _, r in ipairs(m1.perf) do by[r.key] = r end
  -- the same 12 Welch tests as without SLOs (test_decision's exp-7 test counts them by hand:
  -- the error rate is identical in every repeat, no test; both runs kept up with what they were
  -- sent, so the two throughput rows name no winner and leave the family, fixd37); the TTFT p99 test at the one load
  -- point is the TTFT p99 row's (Welch on the same three repeats each, p = 0.981387; since fixa51 on
  -- their log values, p = 0.997566868 by tests/sim/fixa51_log_welch.py over the files' p99_ttft_ms)
  t.eq(m1.matched_point.key, "ttft_p99_ms")
  t.eq(m1.matched_point.test.id, "welch:ttft_p99_ms")
  t.near(m1.matched_point.test.p, by.ttft_p99_ms.p_value, 0)
  t.near(m1.matched_point.test.p, 0.997566868, 1e-6)
  t.eq(m1.family.size, 12)
  -- ITL p50 has the smallest p of the 12: 12 x p (the audit's 0.0723 was 14 x p of the raw
  -- values' p; on their logs, fixa51_log_welch.py: p = 0.00664092362, 12 x p = 0.0796911; not 13 x p)
  t.near(by.itl_p50_ms.p_adjusted, 12 * by.itl_p50_ms.p_value, 1e-12)
  t.near(by.itl_p50_ms.p_adjusted, 12 * 0.00664092362, 5e-8)
end)

t.test("F1: swapping A and B leaves the family unchanged on constructed pairs and fixture pairs", function()
  local va, vb = side(vsyn_dir(), "vsyn"), side(vsyn3_dir(), "vsyn3")
  for _, slo in ipairs { "ttft_p90_ms=60,tpot_p90_ms=11", "ttft_p95_ms=60,tpot_p90_ms=11", "ttft_p95_ms=60",
    "tpot_p90_ms=11", "itl_p90_ms=11,latency_p90_ms=380", "ttft_p99_ms=40" } do
    both_ways(va, vb, slo, "vsyn/vsyn3 " .. slo)
  end
  -- several load points each, without samples: the matched test is Welch on repeats, or none
  local function ladder(label, ttfts, reps)
    local stages = {}
    for i, xs in ipairs(ttfts) do
      for r = 1, reps do
        stages[#stages + 1] = { rate = 10 * i, values = { throughput_req_s = 10 * i, ttft_p90_ms = xs[r] or xs[1],
          ttft_p95_ms = (xs[r] or xs[1]) * 1.1, tpot_p90_ms = 20 + i + r * 0.1, throughput_tok_s = 100 * i,
          error_rate_pct = 0 } }
      end
    end
    return synthetic(label, stages)
  end
  local la = ladder("x", { { 50, 60, 70 }, { 150, 160, 170 }, { 290, 300, 310 } }, 3)
  local lb = ladder("y", { { 50, 60, 70 }, { 140, 150, 160 }, { 280, 290, 300 } }, 3)
  for _, slo in ipairs { "ttft_p90_ms=200", "ttft_p95_ms=200", "ttft_p90_ms=200,tpot_p90_ms=22.5" } do
    local m = both_ways(la, lb, slo, "ladders " .. slo)
    -- rows pool three load points, untested; the one test is at the matched load (30 req/s)
    t.eq(m.matched_point.test.id, "matched_point:" .. m.matched_point.key, slo)
    t.eq(m.family.size, 1, slo)
  end
  both_ways(ladder("x", { { 50 }, { 150 }, { 290 } }, 1), ladder("y", { { 60 }, { 140 }, { 280 } }, 1),
    "ttft_p90_ms=200", "ladders without repeats")
  both_ways(side(EXP7 .. "/vllm-2replicas", "x"), side(EXP7 .. "/llm-d-1p1d", "y"), "ttft_p99_ms=300,tpot_p99_ms=20",
    "exp-7")
  both_ways(side(EXP7 .. "/vllm-3replicas", "x"), side(EXP7 .. "/llm-d-2p1d", "y"), "ttft_p99_ms=900", "exp-7 2p1d")
  both_ways(side(KC_A, "x"), side(KC_B, "y"), "ttft_p90_ms=200", "kubecon")
  both_ways(side(KC_A, "x"), side(KC_B, "y"), "ttft_p95_ms=200,tpot_p90_ms=30", "kubecon p95")
  -- the error rate's Fisher test on the request counts, in the family and as the matched
  -- test (below), and the auditor's 1 of 6 against 17 of 22 failed on per-request files
  local ea, eb = errors_side("x", 5, 1000), errors_side("y", 30, 1000)
  for _, slo in ipairs { "error_rate_pct=1", "ttft_p90_ms=60", "error_rate_pct=5,ttft_p90_ms=40" } do
    both_ways(ea, eb, slo, "error counts " .. slo)
  end
  both_ways(side(ip_dir(0), "ip"), side(ip_dir(16), "ip_err"), nil, "inference-perf with failures")
  both_ways(side(ip_dir(0), "ip"), side(ip_dir(16), "ip_err"), "ttft_p90_ms=60", "inference-perf with failures, SLO")
end)

t.test("the error rate: Fisher's exact test on the request counts, in the family, mirrored when A and B swap", function()
  -- one load point each, x 5 of 1,000 requests failed, y 30 of 1,000: python3 (fractions,
  -- math.comb over the hypergeometric table) two-sided p = 1.9155575571437376e-05
  local ea, eb = errors_side("x", 5, 1000), errors_side("y", 30, 1000)
  local m1, m2 = both_ways(ea, eb, "error_rate_pct=1", "error counts")
  for _, m in ipairs { m1, m2 } do
    local er
    for _, r in ipairs(m.perf) do if r.key == "error_rate_pct" then er = r end end
    t.eq({ er.test, er.test_id }, { "fisher", "fisher:error_rate_pct" })
    t.near(er.p_value, 1.9155575571437376e-05, 1e-15)
    -- the matched load's test (the error rate limits y) is the row's own: one test
    t.eq({ m.matched_point.test.id, m.matched_point.shared_with_rows, m.family.size },
      { "fisher:error_rate_pct", true, 1 })
  end
  local function er_of(m) for _, r in ipairs(m.perf) do if r.key == "error_rate_pct" then return r end end end
  t.eq({ er_of(m1).verdict, er_of(m2).verdict }, { "A better", "B better" })
  t.ok(m1.summary:find("x is better in error rate (y +2.50 pp vs x, p = 1.9e-05)", 1, true), m1.summary)
  t.ok(m2.summary:find("x is better in error rate (x -2.50 pp vs y, p = 1.9e-05)", 1, true), m2.summary)
  -- 0 of 100,000 against 60 of 100,000 failed, 0.06 pp apart: python3 fractions as above,
  -- p = 1.7194343785581175e-18: significant, and against a rate of 0 past any relative
  -- threshold (B against A: N/A one way, -100 % the other), but below the error rate's
  -- practical threshold of 0.1 percentage points: negligible, in both orders
  m1, m2 = both_ways(errors_side("x", 0, 100000), errors_side("y", 60, 100000), nil, "tiny error rates")
  for _, m in ipairs { m1, m2 } do
    local er = er_of(m)
    -- (to 1e-9 relative: log-gamma of 200,000 carries ~1e-10 absolute error in the log)
    t.near(er.p_value, 1.7194343785581175e-18, 1.7e-27)
    t.eq(er.verdict, "negligible")
  end
end)

t.test("F2: a p95 SLO gets its matched-load test (any SLO metric the runs have), in JSON and Summary", function()
  local da, db = vsyn_dir(), vsyn3_dir()
  -- TTFT p95 <= 60: vsyn 49.7 ms passes, vsyn3 fails; the matched test is Mann-Whitney on
  -- the TTFT samples at the one load point both measured: the TTFT rows' own test
  local w, r = compare { "--a", da, "--a-label", "vsyn", "--b", db, "--b-label", "vsyn3", "--slo", "ttft_p95_ms=60" }
  t.eq(r.code, 0, r.stderr)
  local cj = json.read(w .. "/comparison.json")
  local mp = cj.matched_point
  t.eq(mp.key, "ttft_p95_ms")
  t.eq(mp.test.test, "mann_whitney")
  t.near(mp.test.p, P.ttft, 1e-12)
  t.eq(mp.test.id, "mann_whitney:ttft")
  t.eq(cj.family.size, 4)
  -- Holm by hand as above: TTFT is the second smallest of 4, 3 x p
  t.near(mp.p_adjusted, 3 * P.ttft, 1e-12)
  local md = t.read(w .. "/comparison_report.md")
  local summary = md:match("## Evidence\n\n([^\n]*)")
  -- (since fixb40 the matched test's difference is "higher" only where its whole 95 % interval
  -- is beyond 2 %: 7 requests a run bound none for a p95, which needs 73 at design effect 1,
  -- by hand: ranks 73 x 0.95 -+ 1.96 sqrt(73 x 0.0475) = 65.7 and 73.0, inside 1..73; 72
  -- gives 72.02 > 72)
  -- (B against A since fixa43: numpy.percentile (linear) of the 7 successes' TTFTs, 49.703 and
  -- 74.868 ms, +50.63 %; 40.4 % of their mean before)
  t.ok(summary:find("TTFT p95 is 49.7 ms for vsyn and 74.9 ms for vsyn3 (vsyn's values are lower (vsyn3 +50.6 % against vsyn), "
    .. "but the 95 % interval of that difference is unbounded (too few independent requests), so it may be smaller than the 2 % practical threshold: no "
    .. "winner; to settle it: about 73 requests a load point (7 here at the fewest), or at least 3 repeats of each "
    .. "load point in both runs, more the more they vary (2 give the interval an end, but at about 9 of their standard "
    .. "deviations either side);", 1, true), summary)
  -- 0.011072 and 3 x 0.011072 = 0.033217 (P.ttft above)
  t.ok(summary:find("exact Mann-Whitney, p = 0.0111, Holm-adjusted 0.0332", 1, true), summary)
  for _, f in ipairs { "comparison_report.md", "comparison_report.html" } do
    t.ok(t.read(w .. "/" .. f):find("The 4 tests of this comparison are one family (rows that read the same test "
      .. "count once; the summary's test at the matched load is its metric's rows' own test, counted once)", 1, true), f)
  end
end)

t.test("F2: where no matched-load test can be made, the Summary and the JSON say why", function()
  local function one(label, rps, ttft)
    return synthetic(label, { { rate = rps, values = { throughput_req_s = rps, ttft_p95_ms = ttft,
      throughput_tok_s = 10 * rps, error_rate_pct = 0 } } })
  end
  -- the same load, no per-request samples and no repeats: the values, untested
  local m = report.build { a = one("x", 10, 50), b = one("y", 10, 90), slo = decision.parse_slo("ttft_p95_ms=60"),
    generated = 0 }
  t.eq(m.matched_point.key, "ttft_p95_ms")
  t.eq(m.matched_point.test, nil)
  t.eq(m.matched_point.reason, "no per-request samples from both runs at this load")
  -- (both offered 10 req/s: the load is that offered rate)
  t.ok(m.summary:find("At 10 req/s offered (10.00 req/s achieved by both), TTFT p95 is 50.0 ms for x and 90.0 ms for y "
    .. "(untested: no per-request samples from both runs at this load).", 1, true), m.summary)
  t.eq(m.family.size, 0)
  -- loads 10 and 20 req/s, more than 1 % apart: no load lies in both measured ranges, so no
  -- matched load (and no Load Ladder row compares them either: each is outside the other's)
  m = report.build { a = one("x", 10, 50), b = one("y", 20, 90), slo = decision.parse_slo("ttft_p95_ms=60"),
    generated = 0 }
  t.eq(m.matched_point.reason, "no load lies within both runs' measured ranges of offered rates (x 10 req/s offered; "
    .. "y 20 req/s offered)")
  t.ok(m.summary:find("No test of TTFT p95 at a matched load: no load lies within both runs' measured ranges of "
    .. "offered rates (x 10 req/s offered; y 20 req/s offered), so the runs' TTFT p95 is not compared at one load.", 1,
    true), m.summary)
  -- swapped: the same text (the ranges in the labels' order)
  local w = report.build { a = one("y", 20, 90), b = one("x", 10, 50), slo = decision.parse_slo("ttft_p95_ms=60"),
    generated = 0 }
  t.eq(w.matched_point.reason, m.matched_point.reason)
  -- the ranges overlap, but the metric is unknown at the common load for a run: said so
  local two = synthetic("z", { { rate = 5, values = { throughput_req_s = 5, ttft_p95_ms = 40, throughput_tok_s = 50,
    error_rate_pct = 0 } }, { rate = 20, values = { throughput_req_s = 20, throughput_tok_s = 200,
    error_rate_pct = 0 } } })
  m = report.build { a = one("x", 10, 70), b = two, slo = decision.parse_slo("ttft_p95_ms=60"), generated = 0 }
  t.eq(m.matched_point.reason, "TTFT p95 is not known at 10 req/s offered for z (not measured at that load, nor at "
    .. "the loads on both sides of it)")
  -- no SLO metric limits either run: said in the JSON only
  m = report.build { a = one("x", 10, 50), b = one("y", 10, 55), slo = decision.parse_slo("ttft_p95_ms=60"),
    generated = 0 }
  t.eq(m.matched_point.reason, "no SLO metric limits either run's capacity at the loads measured")
  t.ok(not m.summary:find("matched load", 1, true), m.summary)
end)

-- comparison.csv's rows by metric key: {cells} (text: the CSV itself, else read from path).
local function csv_rows(path, text)
  local rows = {}
  for line in (text or t.read(path)):gmatch("[^\n]+") do
    local cells, pos = {}, 1
    while pos <= #line + 1 do
      local c
      if line:sub(pos, pos) == '"' then
        local e = pos + 1
        local buf = {}
        while true do
          local q = line:find('"', e, true)
          buf[#buf + 1] = line:sub(e, q - 1)
          if line:sub(q + 1, q + 1) == '"' then buf[#buf + 1] = '"'; e = q + 2 else pos = q + 2; break end
        end
        c = table.concat(buf)
      else
        local e = line:find(",", pos, true) or (#line + 1)
        c = line:sub(pos, e - 1)
        pos = e + 1
      end
      cells[#cells + 1] = c
    end
    rows[cells[1]] = cells
  end
  return rows
end

t.test("F4: the CSV's max sustained throughput is the report's range, not a point delta (the demo, both orders)",
  function()
    -- from the Python expectations of the stage files (tests/data/harness_expectations.py):
    -- A saturates at point 5 (achieved below 95 % of offered), its max sustained is point 4's
    -- achieved rate, its ceiling the most at any load; B saturates at point 6
    local E = require "harness_expected"
    local sa, sb = E.kubecon_na_2025_vllm.stages, E.kubecon_na_2025_vllm_chunking_and_prefix_caching.stages
    local function ceiling(s)
      local c = 0
      for _, x in ipairs(s) do c = math.max(c, x._drain) end
      return c
    end
    -- the ranked rate of these rate points without per-request times: the drain-reduced one,
    -- completed / (window - least latency) (_drain, python3 on the stage files)
    local va, vb, ha, hb = sa[4]._drain, sb[5]._drain, ceiling(sa), ceiling(sb)
    -- 92.21 (up to 104.24) and 169.43 (up to 174.22)
    t.near(va, 92.213, 5e-4)
    t.near(ha, 104.238, 5e-4)
    t.near(vb, 169.427, 5e-4)
    t.near(hb, 174.221, 5e-4)
    for _, order in ipairs { { KC_A, KC_B, va, vb, ha, hb }, { KC_B, KC_A, vb, va, hb, ha } } do
      local w, r = compare { "--a", order[1], "--a-label", "x", "--b", order[2], "--b-label", "y", "--slo",
        "ttft_p90_ms=200" }
      t.eq(r.code, 0, r.stderr)
      local rows = csv_rows(w .. "/comparison.csv")
      local x, y, hx, hy = order[3], order[4], order[5], order[6]
      local ms = rows.max_sustained_rps
      t.near(tonumber(ms[3]), x, 1e-9)
      t.near(tonumber(ms[4]), y, 1e-9)
      t.eq({ ms[5], ms[6] }, { "", "" }, "no point delta where the figures are ranges")
      -- the gap's ends: y's figure against x's ceiling, y's ceiling against x's figure
      local lo, hi = rows.max_sustained_rps_gap_low, rows.max_sustained_rps_gap_high
      t.near(tonumber(lo[3]), hx, 1e-9)
      t.near(tonumber(lo[4]), y, 1e-9)
      t.near(tonumber(lo[5]), y - hx, 1e-9)
      t.near(tonumber(lo[6]), (y / hx - 1) * 100, 1e-9)
      t.near(tonumber(hi[3]), x, 1e-9)
      t.near(tonumber(hi[4]), hy, 1e-9)
      t.near(tonumber(hi[5]), hy - x, 1e-9)
      t.near(tonumber(hi[6]), (hy / x - 1) * 100, 1e-9)
      -- the Markdown's Delta and Change cells say the same two ends
      local md = t.read(w .. "/comparison_report.md")
      local line = md:match("\n| Max sustained throughput |[^\n]*")
      local H = require("llmd.template").helpers
      t.ok(line:find(("| %s to %s req/s |"):format(H.signed(y - hx, 2), H.signed(hy - x, 2)), 1, true), line)
      t.ok(line:find(("| %s to %s |"):format(H.pct((y / hx - 1) * 100), H.pct((hy / x - 1) * 100)), 1, true), line)
    end
    -- the first order (python3): 169.427 - 104.238 = +65.19 .. 174.221 - 92.213 = +82.01 req/s
    t.near(vb - ha, 65.19, 0.005)
    t.near(hb - va, 82.01, 0.005)
  end)

-- A results folder holding one fixture file under the given name.
local function one_file(src, name)
  local dir = t.tmpdir()
  proc.run { "cp", F .. "/" .. src, dir .. "/" .. name }
  return dir
end

t.test("F7: ITL rows are compared when both runs count token gaps the same way, else the note says how each counts",
  function()
    -- the catalogue: inference-perf and guidellm count per token, vLLM's benchmarks and
    -- inferencemax (their fork) per streamed chunk; a benchmark report as its tool does
    t.eq(report.itl_basis { harness = "inference-perf" }, "token")
    t.eq(report.itl_basis { harness = "guidellm" }, "token")
    t.eq(report.itl_basis { harness = "vllm-benchmark" }, "chunk")
    t.eq(report.itl_basis { harness = "inferencemax" }, "chunk")
    t.eq(report.itl_basis { harness = "benchmark-report", tool = "guidellm" }, "token")
    t.eq(report.itl_basis { harness = "benchmark-report", tool = "vllm-benchmark, inferencemax" }, "chunk")
    t.eq(report.itl_basis { harness = "benchmark-report", tool = "vllm-benchmark, guidellm" }, nil)
    t.eq(report.itl_basis { harness = "benchmark-report", tool = "" }, nil)
    local gl = side(one_file("guidellm/guidellm_report_v2.json", "guidellm_report_v2.json"), "gl")
    local ip = side(one_file("inference-perf/synthetic-per_request_lifecycle_metrics.json",
      "per_request_lifecycle_metrics.json"), "ip")
    local vb = side(one_file("vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json", "result.json"), "vb")
    local im = side(one_file("inferencemax/synthetic-result.json", "result.json"), "im")
    local function rows(a, b)
      local m = report.build { a = a, b = b, generated = 0 }
      local by = {}
      for _, r in ipairs(m.perf) do by[r.key] = r end
      return by, m
    end
    -- both per token: ITL mean has its delta (B - A) and no "counted differently" note
    -- (whatever else holds the verdict back: here the runs' loads differ)
    for _, pair in ipairs { { gl, ip }, { vb, im }, { im, vb } } do
      local by = rows(pair[1], pair[2])
      local r = by.itl_mean_ms
      local what = pair[1].label .. "/" .. pair[2].label
      t.ok(r.a and r.b, what)
      t.eq(r.delta, r.b - r.a, what .. ": a delta")
      t.ok(not tostring(r.note):find("token gaps", 1, true), what .. ": " .. tostring(r.note))
      -- (an effect only where a comparison bears a verdict: a "not comparable" row, these runs'
      -- loads differing, has none beside its delta, fixd43)
      if r.verdict == "not comparable" then
        t.eq(r.effect_pct, nil, what .. ": not comparable, no effect")
      else
        t.ok(r.effect_pct ~= nil, what .. ": a row with a delta keeps its effect")
      end
    end
    -- vLLM's benchmark and inferencemax both have ITL percentiles: compared too
    local by = rows(vb, im)
    t.eq(by.itl_p90_ms.delta, by.itl_p90_ms.b - by.itl_p90_ms.a)
    -- per token against per chunk: not compared, and the note says how each counts
    local m
    by, m = rows(ip, vb)
    for _, key in ipairs { "itl_mean_ms", "itl_p50_ms", "itl_p90_ms" } do
      local r = by[key]
      t.eq(r.verdict, "not comparable", key)
      t.eq(r.delta, nil, key)
      t.eq(r.delta_text, "N/A (not comparable)", key)
      t.eq(r.effect_pct, nil, key .. ": no effect without a delta")
      t.eq(r.note, "token gaps are counted differently: ip (inference-perf) counts per token, the tokens of one "
        .. "chunk sharing its time; vb (vllm-benchmark) counts per streamed chunk", key)
    end
    t.ok(m.itl_note:find("ITL rows against a run that counts gaps otherwise (per streamed chunk", 1, true), m.itl_note)
    -- guidellm against inference-perf: no such sentence (both count per token)
    local _, m2 = rows(gl, ip)
    t.ok(not m2.itl_note:find("counts gaps otherwise", 1, true), m2.itl_note)
    -- every row of every pair: an effect only beside a delta (TTFT mean of guidellm's
    -- summary against inference-perf's per-request data has no delta: no effect either)
    for _, pair in ipairs { { gl, ip }, { vb, im }, { ip, vb }, { gl, vb } } do
      local _, mm = rows(pair[1], pair[2])
      for _, r in ipairs(mm.perf) do
        t.ok(r.delta ~= nil or r.effect_pct == nil, pair[1].label .. "/" .. pair[2].label .. " " .. r.key)
      end
      local n = 0
      for key, c in pairs(csv_rows(nil, report.csv(mm))) do
        if key ~= "metric" then
          n = n + 1
          t.ok(c[5] ~= "" or c[10] == "", "CSV " .. table.concat(c, ","))
        end
      end
      t.ok(n >= #mm.perf, "every CSV row read")
    end
  end)

-- A hand-made run for the load-point functions: stages {rate | concurrency, values}.
local function run_of(stages) return synthetic("x", stages).run end

t.test("F8a: a saturation call needs 20 completed requests at the point", function()
  local lp = require "llmd.loadpoints"
  -- offered 2 and 4 req/s; achieved 0.40 and 0.79 (below 95 % of offered: saturated by the rule)
  local function two_points(n)
    return run_of { { rate = 2, values = { throughput_req_s = 0.398, requests_ok = n, duration_s = 5.02,
      latency_mean_ms = 19.8 } }, { rate = 4, values = { throughput_req_s = 0.794, requests_ok = n, duration_s = 2.52,
      latency_mean_ms = 17.6 } } }
  end
  -- 2 requests of 20 ms (guidellm_report_v2's first stage): too few to judge
  local s = lp.saturation(lp.points(two_points(2)))
  t.eq(s.point, nil)
  t.eq(s.unknown, true)
  t.eq(s.max_sustained_rps, nil)
  t.eq(s.reason, "too few requests to judge saturation: load point 1 completed 2 requests, fewer than the 20 a "
    .. "saturation call needs, as one request more or less moves its achieved rate by more than 5 %")
  -- 19 is still too few (1 / 19 = 5.3 % > 5 %), 20 is enough (1 / 20 = 5 %)
  t.eq(lp.saturation(lp.points(two_points(19))).unknown, true)
  t.eq(lp.saturation(lp.points(two_points(20))).point, 1)
  -- an unknown count is not held against a point (the rule as before)
  t.eq(lp.saturation(lp.points(two_points(nil))).point, 1)
  -- repeats: the count per repeat (the mean), said so
  local rep = run_of { { rate = 2, values = { throughput_req_s = 0.4, requests_ok = 3 } },
    { rate = 2, values = { throughput_req_s = 0.5, requests_ok = 5 } } }
  s = lp.saturation(lp.points(rep))
  t.ok(s.reason:find("load point 1 completed 4 requests per repeat", 1, true), s.reason)
  -- concurrency: throughput +2 % with latency growing is a plateau only with the evidence
  local function conc(n)
    return run_of { { concurrency = 1, values = { throughput_req_s = 10, latency_p50_ms = 100, requests_ok = 50 } },
      { concurrency = 2, values = { throughput_req_s = 10.2, latency_p50_ms = 150, requests_ok = n } } }
  end
  t.eq(lp.saturation(lp.points(conc(50))).point, 2)
  s = lp.saturation(lp.points(conc(3)))
  t.eq(s.unknown, true)
  t.ok(s.reason:find("load point 2 completed 3 requests", 1, true), s.reason)
  -- overload: 3.8 s latencies in a 72.7 s window (the demo's point 5, 7,360 requests) is a call
  local demo = run_of { { rate = 92.19, values = { throughput_req_s = 91.36, requests_ok = 5500,
    latency_mean_ms = 60 } }, { rate = 122.59, values = { throughput_req_s = 101.23, requests_ok = 7360,
    duration_s = 72.7, latency_mean_ms = 3840 } } }
  t.eq(lp.saturation(lp.points(demo)).point, 2)
end)

t.test("F8a: guidellm_report_v2 (2 requests per stage) is 'too few requests to judge saturation' in the report",
  function()
    local a = one_file("guidellm/guidellm_report_v2.json", "guidellm_report_v2.json")
    local b = one_file("guidellm/guidellm_report_v2.json", "guidellm_report_v2.json")
    local w, r = compare { "--a", a, "--a-label", "x", "--b", b, "--b-label", "y" }
    t.eq(r.code, 0, r.stderr)
    local md = t.read(w .. "/comparison_report.md")
    t.ok(not md:find("saturated already", 1, true), md:match("## Evidence\n\n[^\n]*"))
    t.ok(md:find("x's saturation is unknown (too few requests to judge saturation: load point 1 completed 2 requests",
      1, true), md:match("## Evidence\n\n[^\n]*"))
    local cj = json.read(w .. "/comparison.json")
    t.eq(cj.saturation.a.unknown, true)
    t.eq(cj.saturation.a.point, nil)
  end)

t.test("F8b: a longer measured duration is a result of the run, not a different workload", function()
  local function run(durs)
    local stages = {}
    for i, d in ipairs(durs) do
      stages[i] = { rate = 10 * i, values = { throughput_req_s = 600 * i / d, requests_ok = 600 * i, duration_s = d,
        requests_failed = 0 } }
    end
    return synthetic("x", stages)
  end
  local lp = require "llmd.loadpoints"
  -- the same requests asked at the same rates; B's last point took 90 s instead of 60
  local A, B = run { 60, 60, 60 }, run { 60, 60, 90 }
  local wm = decision.workload_match(A, B, lp.points(A.run), lp.points(B.run))
  t.eq(wm.same, true)
  t.eq(wm.like_for_like, true)
  t.eq(#wm.differences, 0)
  -- what the workload asked for still counts: 1800 requests against 1200 at point 3
  local C = synthetic("y", { { rate = 10, values = { throughput_req_s = 10, requests_ok = 600, duration_s = 60 } },
    { rate = 20, values = { throughput_req_s = 20, requests_ok = 1200, duration_s = 60 } },
    { rate = 30, values = { throughput_req_s = 20, requests_ok = 1200, duration_s = 60 } } })
  wm = decision.workload_match(A, C, lp.points(A.run), lp.points(C.run))
  t.eq(wm.same, false)
  t.eq(wm.differences[1].field, "requests")
  t.eq(wm.differences[1].text, "requests per load point: point 3: 1800 vs 1200")
  -- the demo: its banner names the offered loads, not the durations of the overloaded points
  local w, r = compare { "--a", KC_A, "--a-label", "x", "--b", KC_B, "--b-label", "y" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(w .. "/comparison_report.md")
  local banner = md:match("> %*%*The same workload %(the same requests%), on different load ladders%.%*%*[^\n]*")
  t.ok(banner and banner:find("offered load: ", 1, true), banner)
  t.ok(not banner:find("duration", 1, true), banner)
end)

t.test("F1/F2: a one-stage inference-perf run's per-request data is its load point's: the matched test is the rows'",
  function()
    -- one stage file (count 6) beside the synthetic per-request file; B with every latency
    -- doubled from each request's start (TTFT too): all 5 of B's TTFTs exceed A's, so
    -- U = 0: 5 and 5 requests, exact p = 2 / C(10, 5) = 2 / 252 (by hand: only the one split
    -- with all of B's values above A's is as extreme, on each side; the normal approximation
    -- said 0.009023438818080334)
    local function ip(double)
      local d = t.tmpdir()
      local s = json.read(KC_A .. "/stage_0_lifecycle_metrics.json")
      s.load_summary.count = 6
      if double then
        -- the stage's summary says the same (every latency statistic doubled): TTFT p90 35.4 ms
        -- passes 60 ms in x, 70.8 ms fails in y
        for _, stat in pairs(s.successes.latency) do
          for k, v in pairs(stat) do stat[k] = 2 * v end
        end
      end
      json.write(d .. "/stage_0_lifecycle_metrics.json", s)
      local recs = json.read(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json")
      if double then
        for _, r in ipairs(recs) do
          local st = r.start_time
          r.end_time = st + 2 * (r.end_time - st)
          local rm = r.info.response_metrics
          if rm ~= json.null and rm.output_token_times then
            for k, x in ipairs(rm.output_token_times) do rm.output_token_times[k] = st + 2 * (x - st) end
          end
        end
      end
      json.write(d .. "/per_request_lifecycle_metrics.json", recs)
      return d
    end
    local m1 = both_ways(side(ip(false), "x"), side(ip(true), "y"), "ttft_p90_ms=60", "inference-perf one stage")
    t.eq(m1.matched_point.key, "ttft_p90_ms")
    t.eq(m1.matched_point.test.id, "mann_whitney:ttft")
    t.near(m1.matched_point.test.p, 2 / 252, 1e-12)
    t.eq(m1.matched_point.shared_with_rows, true)
    for _, r in ipairs(m1.perf) do
      if r.key == "ttft_p90_ms" then t.eq(r.test_id, "mann_whitney:ttft") end
    end
    -- the family counts each kind of samples once: the matched test adds none
    local ids = {}
    for _, x in ipairs(m1.family.tests) do ids[#ids + 1] = x.id end
    table.sort(ids)
    t.eq(ids, { "mann_whitney:itl", "mann_whitney:latency", "mann_whitney:tpot", "mann_whitney:ttft" })
  end)

t.test("F1: repeats with per-request data: the rows and the matched load test the repeats (Welch), one test", function()
  -- one load point of 3 repeats each: the rows show the means of the repeats, so they test
  -- the repeats (Welch), as the matched load does on the 3 + 3 TTFT p90 values: the same
  -- test on the same numbers, counted once. (The rows tested the requests pooled over the
  -- repeats, Mann-Whitney, beside the means they showed: session 31, cmpfix item 6.)
  local a, b = repeats_dir { 1.0, 1.05, 0.95 }, repeats_dir { 1.5, 1.6, 1.4 }
  local m = both_ways(side(a, "x"), side(b, "y"), "ttft_p90_ms=60", "repeats with samples")
  t.eq(m.matched_point.key, "ttft_p90_ms")
  t.eq(m.matched_point.test.test, "welch")
  t.eq(m.matched_point.test.id, "welch:ttft_p90_ms")
  t.eq(m.matched_point.shared_with_rows, true)
  local row_ids = {}
  for _, r in ipairs(m.perf) do if r.test_id then row_ids[r.test_id] = true end end
  local n = 0
  for _ in pairs(row_ids) do n = n + 1 end
  t.eq(row_ids["welch:ttft_p90_ms"], true)
  t.eq(row_ids["mann_whitney:ttft"], nil)
  t.eq(m.family.size, n)
end)

-- The capacity gap's percentages as every output gives them: the Headline's Change cell,
-- the Summary, the CSV row's note, comparison.json's capacity.gap, and the HTML's Summary.
local function gap_everywhere(w)
  local md = t.read(w .. "/comparison_report.md")
  local out = {}
  local line = md:match("\n| Capacity at SLO %(TTFT[^\n]*")
  local cells = {}
  for c in line:gmatch("|([^|]*)") do cells[#cells + 1] = c:match("^%s*(.-)%s*$") end
  out.headline = cells[5]
  local summary = md:match("\n## Evidence\n\n([^\n]*)")
  out.summary = summary:match("%(%S+ ([+-][%d.]+ %% to [+-][%d.]+ %%) vs %S+%)")
  local note = csv_rows(w .. "/comparison.csv").capacity_at_slo_rps[11]
  -- (the note goes on with the Headline's evidence after the range)
  out.csv = note:match("B %- A from the measured loads: [^,]* req/s, ([+-][%d.]+ %% to [+-][%d.]+ %%)")
  local g = json.read(w .. "/comparison.json").capacity.gap
  local H = require("llmd.template").helpers
  out.json = H.pct(g.lo_pct) .. " to " .. H.pct(g.hi_pct)
  local html = t.read(w .. "/comparison_report.html")
  out.html = html:find(summary:match("%(%S+ [+-][%d.]+ %% to [+-][%d.]+ %% vs %S+%)"), 1, true) and out.summary
  return out, g
end

t.test("F6: the capacity gap is B's change against A in every output, and swapping the runs gives its reciprocal",
  function()
    -- from the Python expectations of the stage files (tests/data/harness_expectations.py):
    -- x (the demo's vllm) is a lower bound at point 4, up to its ceiling (the most at any
    -- load); y (chunked-prefix) crosses TTFT p90 = 200 ms between its points 4 and 5
    local E = require "harness_expected"
    local sa, sb = E.kubecon_na_2025_vllm.stages, E.kubecon_na_2025_vllm_chunking_and_prefix_caching.stages
    -- (the ranked rates: drain-reduced, completed / (window - least latency), _drain)
    local la, ha = sa[4]._drain, 0
    for _, x in ipairs(sa) do ha = math.max(ha, x._drain) end
    local lb, hb = sb[4]._drain, sb[5]._drain
    -- y against x: from y's lowest against x's highest to y's highest against x's lowest
    -- (127.76 / 104.24 - 1 = +22.6 %, 169.43 / 92.21 - 1 = +83.7 %); x against y, the
    -- reciprocal: 92.21 / 169.43 - 1 = -45.6 %, 104.24 / 127.76 - 1 = -18.4 %
    local want = {
      { lo = (lb / ha - 1) * 100, hi = (hb / la - 1) * 100 },
      { lo = (la / hb - 1) * 100, hi = (ha / lb - 1) * 100 },
    }
    t.near((1 + want[2].lo / 100) * (1 + want[1].hi / 100), 1, 1e-12)
    t.near((1 + want[2].hi / 100) * (1 + want[1].lo / 100), 1, 1e-12)
    local H = require("llmd.template").helpers
    for i, order in ipairs { { KC_A, "x", KC_B, "y" }, { KC_B, "y", KC_A, "x" } } do
      local w, r = compare { "--a", order[1], "--a-label", order[2], "--b", order[3], "--b-label", order[4],
        "--slo", "ttft_p90_ms=200" }
      t.eq(r.code, 0, r.stderr)
      local got, g = gap_everywhere(w)
      t.near(g.lo_pct, want[i].lo, 1e-6, "comparison.json lo_pct")
      t.near(g.hi_pct, want[i].hi, 1e-6, "comparison.json hi_pct")
      local text = H.pct(want[i].lo) .. " to " .. H.pct(want[i].hi)
      t.eq(got, { headline = text, summary = text, csv = text, json = text, html = text }, "order " .. i)
    end
  end)
