-- NTPOT, (end - start) / output tokens of each request, is one value a request as TPOT is,
-- with its design effect in send order since fixc41: its comparisons get TPOT's one-point
-- test and effect interval (task fixi41). Main had no sample kind for it, so the Summary's
-- comparison at the common load under an NTPOT SLO was untested ("no per-request samples").
local t = require "testlib"
local decision = require "llmd.decision"
local report = require "llmd.report"
local stats = require "llmd.stats"

-- 60 requests a load point: NTPOT base + 4 ms x ((7 i) mod 11 - 5) / 5, i = 1..60, in s
local function ntpots(base)
  local out = {}
  for i = 1, 60 do out[i] = base + 0.004 * (((7 * i) % 11) - 5) / 5 end
  return out
end
-- two load points, 10 and 20 req/s, one stage each; NTPOT means (s) as given
local function run(b10, b20)
  local stages = {}
  for i, b in ipairs { b10, b20 } do
    local acc, s = stats.new(), 0
    for _, v in ipairs(ntpots(b)) do acc:add(v); s = s + v end
    stages[i] = { rate = 10 * i, values = { throughput_req_s = 10 * i, throughput_tok_s = 100 * i,
      ntpot_mean_ms = s / 60 * 1000, error_rate_pct = 0, requests_ok = 60, requests_failed = 0 } }
    stages[i].samples = acc
  end
  local r = t.run_of(stages)
  for i, st in ipairs(r.stages) do
    st.metrics.samples, st.metrics.sample_deff = { ntpot = stages[i].samples }, { ntpot = 1 }
  end
  return r
end

t.test("an NTPOT SLO's comparison at the common load: TPOT's test and interval (main: untested)", function()
  local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
  local m = report.build { a = sd("x", run(0.100, 0.300)), b = sd("y", run(0.104, 0.320)),
    slo = decision.parse_slo("ntpot_mean_ms=200"), generated = 0 }
  -- /usr/bin/python3 (numpy: mid-ranks, the tie-corrected variance n1 n2 / 12 ((N + 1) -
  -- sum(t^3 - t) / (N (N - 1))), p = erfc(|z| / sqrt 2); the effect B against A (fixa43),
  -- 100 (mean_b / mean_a - 1), its interval that of the ratio (fixi42): L = log(m_b / m_a) -+
  -- 1.959964 sqrt(s_a^2 / (60 m_a^2) + s_b^2 / (60 m_b^2)), each end 100 (exp(x) - 1)): at 20
  -- req/s x's NTPOTs all below y's, U = 0, var 36225.630252, z = -9.457243, p = 3.1617e-21;
  -- means 300.04 and 320.04 ms, +6.665778 %, interval +6.353549 to +6.978923 %
  local mp = m.matched_point
  t.eq({ mp.key, mp.load }, { "ntpot_mean_ms", 20 })
  t.ok(mp.test, mp.reason)
  t.eq(mp.test.test, "mann_whitney")
  t.near(mp.test.z, -9.457243, 1e-6)
  t.near(mp.test.p, 3.1617e-21, 1e-25)
  local e = mp.test.row_effect
  t.near(e.pct, 6.665778, 1e-6)
  t.near(e.lo, 6.353549, 1e-6)
  t.near(e.hi, 6.978923, 1e-6)
end)

t.test("NTPOT's mean is a sample kind with TPOT's tests; the other rows' kinds unchanged", function()
  t.eq(decision.sample_kind("ntpot_mean_ms"), "ntpot")
  t.eq(decision.sample_kind("tpot_mean_ms"), "tpot")
  t.eq(decision.sample_kind("throughput_req_s"), nil)
end)

-- kubecon-na-2025_vllm (inference-perf summaries alone) against its chunking run at NTPOT mean
-- <= 20 ms: load points 3, 4 and 7 of A have NTPOT N/A (0-token successes counted as 0), their
-- brackets of the mean without them 11.01-11.02, 16.63-16.64 and 67.23-67.30 ms (python3, in
-- test_capacity_mean_slo.lua). The capacity judges those points on the brackets (fixb43; main:
-- "≥ 31.41 req/s", unknown at point 3), but no row takes a bracket for the figure: the points'
-- NTPOT stays N/A, the whole-run row has none for A, and the comparison at the common load
-- (92.19 req/s offered, A's point 4) is untested.
t.test("an NTPOT SLO judged on a summary's bracket: the capacity uses it, no row or test does", function()
  local F = t.fixtures() .. "/inference-perf/"
  local c = t.compare_ab(F .. "kubecon-na-2025_vllm", F .. "kubecon-na-2025_vllm_chunking_and_prefix_caching",
    { "--slo", "ntpot_mean_ms=20" })
  local ca = c.json.capacity.a
  t.eq(ca.kind, "saturated", ca.reason)
  t.eq(#ca.judged_on_bounds, 3)
  t.ok(c.md:find("NTPOT mean, N/A at load points 3, 4, 7, was judged there on its bracket of the figure", 1, true))
  local p4 = c.json.load_points.a[4]
  t.eq(p4.values.ntpot_mean_ms, nil)
  t.eq(p4.meets_slo, true)
  t.ok(p4.na.ntpot_mean_ms:find("may count 0-token requests as 0", 1, true), p4.na.ntpot_mean_ms)
  local row = t.perf_row(c.json, "ntpot_mean_ms")
  t.ok(row == nil or row.a == nil, "no whole-run NTPOT figure for A")
  t.eq(c.json.matched_point.key, "ntpot_mean_ms")
  t.eq(c.json.matched_point.load, nil, "no test at the common load")
  -- why: A's point 4 was measured there, its NTPOT N/A for the summary's 0-token requests
  -- (newuser44; main: "not measured at that load, nor at the loads on both sides of it")
  local why = c.json.matched_point.reason
  t.ok(why:find("for kubecon-na-2025_vllm (N/A at its load point 4: NTPOT may count 0-token requests as 0", 1, true),
    why)
  t.ok(not why:find("not measured", 1, true), why)
end)

-- An NTPOT p90 SLO (fixf44; main refused ntpot_p90_ms) on the same pair, at 25 ms: A's points 3
-- and 4 have NTPOT p90 N/A (0-token successes in the summary), bracketed by their p90 and p95
-- (stage_2/3_lifecycle_metrics.json, by hand: 12.62-13.67 and 20.04-21.93 ms, wholly below 25:
-- met); point 5 (stage 4, min 17.49 ms > 0) has p90 75.08 ms: failed.
t.test("an NTPOT p90 SLO: accepted, judged on a summary's percentile bracket", function()
  local F = t.fixtures() .. "/inference-perf/"
  local c = t.compare_ab(F .. "kubecon-na-2025_vllm", F .. "kubecon-na-2025_vllm_chunking_and_prefix_caching",
    { "--slo", "ntpot_p90_ms=25" })
  local pts = c.json.load_points.a
  t.eq(pts[4].values.ntpot_p90_ms, nil)
  t.eq({ pts[3].meets_slo, pts[4].meets_slo, pts[5].meets_slo }, { true, true, false })
  t.near(pts[5].values.ntpot_p90_ms, 75.0809, 1e-3)
  t.ok(c.md:find("NTPOT p90 ≤ 25.00 ms", 1, true))
end)
