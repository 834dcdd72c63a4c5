-- Throughput tested on repeats names a winner only where the whole 95 % interval of its
-- difference over the repeats is beyond --min-effect, as every latency and error row does
-- since fixb40 (task fixb41 #1): the compare rows (decision.row_test, decision.verdict) and
-- treatments.lua's own tests of repeats (its ranking by max sustained throughput). Main named
-- a winner wherever the estimate alone passed the threshold.
-- Expected intervals: tests/data/effect_interval_ref.py repeats (numpy; Student's t by
-- numerical integration of its density, not llmd.stattest; since fixi42 the interval of the
-- ratio of the means, on the log scale; since fixa43 B against A, 100 (b / a - 1)):
--   [[2.90, 2.93, 2.96], [3.00, 3.05, 3.10]] -> +4.096 %, 95 % interval +0.668 % to +7.640 %
--   [[2.60, 2.62, 2.64], [2.90, 2.93, 2.96]] -> +11.832 %, 95 % interval +9.492 % to +14.222 %
-- Welch p (python3 stdlib, test_treatments.lua's family test): 0.0327026 and 0.000280431.
-- Since fixa51 the test and its interval on one scale, the repeats' log values (decision.sized_repeat_test:
-- Welch on the logs, the ratio of the geometric means from the same t and df), by
-- tests/sim/fixa51_log_welch.py (numpy; Student's t CDF from the incomplete beta, no scipy):
--   [2.90, 2.93, 2.96] [3.00, 3.05, 3.10] -> p = 0.0307872, +4.0899 %, +0.6620 % to +7.6345 %
--   [2.60, 2.62, 2.64] [2.90, 2.93, 2.96] -> p = 0.000182613, +11.8303 %, +9.4902 % to +14.2205 %
local t = require "testlib"
local decision = require "llmd.decision"
local tr = require "llmd.treatments"

-- one load point of a run's repeats of throughput_req_s (values: one a repeat)
local function point(values)
  local s = 0
  for _, v in ipairs(values) do s = s + v end
  return { repeats = #values, values = { throughput_req_s = s / #values }, ci = { throughput_req_s = {
    samples = values } } }
end
local function run() return { overall = { values = {} } } end

local function verdict(xa, xb)
  local pa, pb = { point(xa) }, { point(xb) }
  local test = decision.row_test("throughput_req_s", run(), run(), pa, pb, {}, { a = "A", b = "B" })
  return decision.verdict { key = "throughput_req_s", a = pa[1].values.throughput_req_s,
    b = pb[1].values.throughput_req_s, test = test, min_effect = 2 }, test
end

t.test("a request throughput row on repeats: a winner only where its whole interval is beyond --min-effect",
  function()
    -- +4.1 %, Welch p = 0.0327 (on the logs 0.0308), but its interval reaches down to +0.7 %:
    -- main said "B better"
    local v, test = verdict({ 2.90, 2.93, 2.96 }, { 3.00, 3.05, 3.10 })
    t.eq({ test.test, test.scale }, { "welch", "log" })
    t.near(test.p, 0.0307872, 1e-6)
    t.near(test.row_effect.pct, 4.0899, 1e-3)
    t.near(test.row_effect.lo, 0.6620, 1e-3)
    t.near(test.row_effect.hi, 7.6345, 1e-3)
    t.eq({ v.verdict, v.winner, v.size }, { "not shown to differ", nil, "unsure" })
    t.contains(v.note, "A's values are lower (B +4.1 % against A) over the repeats, but the 95 % interval of that difference, "
      .. "+0.7 % to +7.6 %, takes in differences smaller than the 2 % practical threshold, so it may be too small to "
      .. "matter: no winner")
    -- +11.8 %, 9.5 % to 14.2 %: beyond it, B better
    v, test = verdict({ 2.60, 2.62, 2.64 }, { 2.90, 2.93, 2.96 })
    t.near(test.row_effect.lo, 9.4902, 1e-3)
    t.eq({ v.verdict, v.winner }, { "B better", "b" })
  end)

t.test("a repeat whose values never vary on both sides: unbounded, with what would settle it", function()
  -- every repeat of A 2.90, of B 3.05 (+5.0 %): the exact test, no spread to bound the effect
  local v = verdict({ 2.90, 2.90, 2.90, 2.90, 2.90 }, { 3.05, 3.05, 3.05, 3.05, 3.05 })
  t.eq({ v.verdict, v.winner }, { "not shown to differ", nil })
  t.contains(v.note, "the 95 % interval of that difference is unbounded (repeats identical, no spread to estimate)")
  t.contains(v.note, "to settle it: repeats whose values vary")
  t.eq(v.settle, "repeats whose values vary")
end)

-- A treatment of three vLLM summaries (exp-7's, counts kept) at 2.4 req/s offered achieving
-- these rates, and one at 10 req/s achieving 2.5 (saturated), as test_treatments.lua's
-- four_treatments: its max sustained throughput the mean of the three.
local function treatment(rates)
  local json = require "llmd.json"
  local dir = t.tmpdir()
  local function write(name, rate, achieved)
    t.write(dir .. "/" .. name, json.encode(t.exp7_summary(rate, achieved)))
  end
  for i, x in ipairs(rates) do write(("benchmark_%d.json"):format(i), 2.4, x) end
  write("benchmark_9.json", 10, 2.5)
  return dir
end

t.test("treatments: a place above the next only where the repeats' whole interval is beyond the threshold",
  function()
    local m = tr.model(tr.load { { label = "t1", dirs = { treatment { 3.00, 3.05, 3.10 } } },
      { label = "t2", dirs = { treatment { 2.90, 2.93, 2.96 } } } })
    local r1 = m.ranking[1]
    t.eq(r1.label, "t1")
    -- main: "above t2 (Welch p = 0.0327, +4.1 %)"; since fixa51 on the log values, p = 0.0308
    t.eq({ r1.vs_next, r1.proven }, { "not shown to differ", false })
    -- (t1 against t2, as above: +4.1 %, +0.7 % to +7.6 %)
    t.contains(r1.vs_next_text, "not shown to differ from t2 (Welch on the log values, p = 0.0308; t2's values are lower (t1 +4.1 % against t2) over "
      .. "the max sustained points' repeats, but the 95 % interval of that difference, +0.7 % to +7.6 %, takes in "
      .. "differences smaller than the 2 % practical threshold, so it may be too small to matter: no winner)")
  end)

t.test("treatments' latency at the common load: a best only where the repeats' whole interval is beyond it",
  function()
    -- TTFT p90 repeats at the common load: a 200, 204, 208 ms; b 192, 194, 196 (-4.9 %,
    -- interval -8.7 % to -1.0 %, effect_interval_ref.py, B against A; Welch t = 3.873, df 2.94, p = 0.0316,
    -- numpy trapezoids on the t density) and c 188, 190, 192 (-6.9 %, -10.6 % to -3.0 %;
    -- p = 0.0130). Main named b best on its estimate; c is best by the interval too.
    -- Since fixa51 on the log values (tests/sim/fixa51_log_welch.py): b p = 0.0290074, -4.8931 %,
    -- -8.6683 % to -0.9619 %; c p = 0.011041, -6.8542 %, -10.5437 % to -3.0127 %.
    local function m_of(low)
      local m = { common_load = 10, common_text = "10 req/s offered",
        latency_choice = { ttft = { common = true, key = "ttft_p90_ms" } } }
      local function tr_of(label, xs)
        return { label = label, at_common = { ttft_p90_ms = { value = (xs[1] + xs[2] + xs[3]) / 3,
          ci = { samples = xs } } } }
      end
      return m, { tr_of("a", { 200, 204, 208 }), tr_of(low[1], low[2]) }
    end
    local m, T = m_of { "b", { 192, 194, 196 } }
    local res = tr.latency_at_common(m, T, { "a", "b" })
    t.eq(res.best, nil)
    t.near(res.tests[1].p, 0.0290074, 1e-6)
    t.contains(res.text, "Nor is one shown lower on TTFT p90 at the common load (10 req/s offered): b TTFT p90 194.0 ms "
      .. "against 204.0 ms for a (Welch t on the log values, p = 0.029, Holm-adjusted 0.029 over 1 test; b's values are lower (b -4.9 % against a) "
      .. "over the repeats, but the 95 % interval of that difference, -8.7 % to -1.0 %, takes in differences smaller "
      .. "than the 2 % practical threshold (a fall reaches it at -1.96 %), so it may be too small to matter: no winner)")
    m, T = m_of { "c", { 188, 190, 192 } }
    res = tr.latency_at_common(m, T, { "a", "c" })
    t.eq(res.best, "c")
  end)
