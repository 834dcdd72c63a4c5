-- fixb51 (review50 #2): runs that repeated some loads on both sides and measured another once on
-- one side. Before, the one load measured once put every load of the row on the per-request test
-- (the requests with their design effect in send order), those both runs repeated too, where the
-- repeats' test is the careful one (it weighs how much runs of one server differ, which the
-- requests cannot show, and Cochran's Q, the only guard, has little power at 2-3 repeats). Now
-- the loads both repeated stay on the repeats' test, the others per request, and the two are
-- combined by Stouffer's method, each load weighted alike (decision.mixed_test).
-- Expected values: tests/data/mixed_repeats_ref.py (python3 + numpy, statistics.NormalDist, no
-- llmdlua code), which writes the pair and computes the test from the values it wrote.
local t = require "testlib"
local decision = require "llmd.decision"
local json = require "llmd.json"

t.test("mixed_effect: log ratios and interval ends averaged by the loads each part tested", function()
  -- python3: w = 1/3, 2/3; 100 (exp(w_q ln(1 + x_q / 100) + w_r ln(1 + x_r / 100)) - 1) of
  -- (-10, 4) = -0.8932892293351924, of the lows (-15, -2) = -6.5404485441615146, of the highs
  -- (-5, 10) = 4.75376920949917
  local e = decision.mixed_effect({ pct = -10, lo = -15, hi = -5 }, { pct = 4, lo = -2, hi = 10, units = "repeats" },
    1, 2)
  t.near(e.pct, -0.8932892293351924, 1e-12)
  t.near(e.lo, -6.5404485441615146, 1e-12)
  t.near(e.hi, 4.75376920949917, 1e-12)
  t.eq(e.strata, 3)
  -- a part without an interval (its repeats measured once): no interval, its why and settle kept
  e = decision.mixed_effect({ pct = -10, lo = -15, hi = -5 }, { pct = 4, why = "no spread", settle = "repeat" }, 1, 2)
  t.eq({ e.lo, e.hi, e.why, e.settle }, { nil, nil, "no spread", "repeat" })
  t.near(e.pct, -0.8932892293351924, 1e-12)
  -- a part with no effect: none
  -- a part without an effect: no size for the row, unbounded and said (review51: the row named a
  -- winner on its p alone), the other part's estimate kept; neither part's: none
  e = decision.mixed_effect(nil, { pct = 4, lo = -2, hi = 10 }, 1, 2)
  t.eq({ e.pct, e.lo, e.hi }, { 4, nil, nil })
  t.contains(e.why, "the size over the loads tested per request is not known")
  e = decision.mixed_effect({ pct = -10, lo = -15, hi = -5 }, { why = "no figure" }, 1, 2)
  t.eq({ e.pct, e.lo, e.hi }, { -10, nil, nil })
  t.contains(e.why, "the size over the loads both runs repeated is not known")
  -- held to the threshold, such an effect names no winner however small p is (z +5: B lower, as -10 %)
  local size, note = decision.effect_size({ z = 5, p = 1e-6 }, e, 2, "A", "B")
  t.eq(size, "unsure")
  t.contains(note, "interval of that difference is unbounded (the size over the loads both runs repeated")
  t.eq(decision.mixed_effect(nil, { why = "none" }, 1, 2), nil)
end)

t.test("z_of_p: the normal score of a two-sided p, with the direction given", function()
  -- statistics.NormalDist().inv_cdf(1 - p / 2): 1.9599639845400536 (p = 0.05), 4.891638475714779 (1e-6)
  t.near(decision.z_of_p(0.05, 0.3), 1.9599639845400536, 1e-9)
  t.near(decision.z_of_p(1e-6, -2), -4.891638475714779, 1e-9)
  t.eq(decision.z_of_p(1, 2), 0)
end)

if t.have_numpy() then
  local report = require "llmd.report"
  local harness = require "llmd.harness"
  t.test("a load measured once among loads both repeated: those stay on the repeats' test, combined (fixb51)",
    function()
    local tmp = t.tmpdir()
    local want = json.decode(t.data_py("mixed_repeats_ref.py",
      t.fixtures() .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json", tmp))
    -- (the pair's repeats agree beyond their noise nowhere: else the row is tested over the
    -- repeats alone, decision's once_spread; 5 checks, Bonferroni)
    t.ok(want.spread_p_min > 0.05 / 5, want.spread_p_min)
    local ra, rb, pa, pb = t.extract_pair(tmp .. "/a", tmp .. "/b")
    local memo = {}
    local r = decision.row_test("tpot_mean_ms", ra, rb, pa, pb, memo, { a = "ra", b = "vb" })
    t.eq({ r.name, r.units, r.id, r.strata }, { "van_elteren_mixed", "mixed", "mixed:tpot", 3 })
    t.eq(r.parts.requests.loads, { "3/s" })
    t.eq(r.parts.repeats.loads, { "1/s", "2/s" })
    t.near(r.parts.requests.z, want.z_requests, 1e-9)
    t.near(r.parts.requests.p, want.p_requests, 1e-9 * want.p_requests)
    t.eq(r.parts.repeats.exact, true)
    t.near(r.parts.repeats.p, want.p_repeats, 1e-12)
    t.near(r.z, want.z, 1e-9)
    t.near(r.p, want.p, 1e-9 * want.p)
    -- every load tested, none left out
    t.eq({ r.scope.tested, r.scope.total, #r.scope.left }, { { "1/s", "2/s", "3/s" }, 3, 0 })
    t.eq(decision.test_scope_text(r), "over all load points")
    t.eq(r.once, { a = {}, b = { "3/s" } })
    -- the other rows of the kind read the same test (one in the Holm family)
    local r90 = decision.row_test("tpot_p90_ms", ra, rb, pa, pb, memo, { a = "ra", b = "vb" })
    t.eq({ r90.id, r90.p }, { r.id, r.p })
    t.eq(decision.test_name(r), ("Stouffer's combination of two Mann-Whitney tests stratified by load point "
      .. "(van Elteren, 3 points: per request at 3/s, %s; over the repeats' TPOT mean at 1/s, 2/s, %s; their z's "
      .. "combined by Stouffer's method, each load weighted alike)"):format(decision.p_is(want.p_requests),
      decision.p_is(want.p_repeats)))
    -- (its own code: a plain van Elteren test's would tell a script it has one test's p)
    t.eq(decision.test_code(r), "mixed_stouffer")
    -- the row's effect: the two parts' averaged, by loads (mixed_effect, above)
    t.eq(r.row_effect.strata, 3)
    t.ok(r.row_effect.where:find("(1 per request, 2 over their repeats;", 1, true), r.row_effect.where)

    -- the report: its Evidence names both parts and the rule, and says where it is per request
    local function sd(label, dir) return { label = label, state = { label = label }, run = harness.extract(dir), kv = {} } end
    local m = report.build { a = sd("ra", tmp .. "/a"), b = sd("vb", tmp .. "/b"), generated = 0,
      workspace = "/tmp/fixb51" }
    local row
    for _, x in ipairs(m.perf) do if x.key == "tpot_mean_ms" then row = x end end
    t.near(row.p_value, want.p, 1e-9 * want.p)
    t.contains(row.evidence, "their z's combined by Stouffer's method, each load weighted alike), "
      .. decision.p_is(want.p))
    -- comparison.json/CSV's test: README's code and the name the Evidence starts with
    t.eq(row.test, "mixed_stouffer")
    t.eq(row.evidence:sub(1, 62), "Stouffer's combination of two Mann-Whitney tests stratified by")
    t.contains(row.evidence, "per request where a run measured once (over the repeats where both repeated), as for "
      .. "runs measured once: vb measured 3/s once where ra repeated it")
    -- (p = 0.07 here: the loads both repeated, p = 0.655 over their repeats, weigh as much as
    -- the one per request, p = 0.012; before, all three per request)
    t.eq(row.verdict, "no clear difference")
  end)

  t.test("a mixed row whose repeats' part has no test: the per-request part alone, the others said left out",
    function()
    local tmp = t.tmpdir()
    t.data_py("mixed_repeats_ref.py", t.fixtures() .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json",
      tmp)
    -- (every TTFT the file writes is the same list, 50 + (7 i mod 13) ms: the repeats' TTFT means
    -- are all one value, which the repeats' test cannot rank)
    local ra, rb, pa, pb = t.extract_pair(tmp .. "/a", tmp .. "/b")
    local r = decision.row_test("ttft_mean_ms", ra, rb, pa, pb, {}, { a = "ra", b = "vb" })
    t.eq(r.strata, 1)
    t.eq(r.scope.tested, { "3/s" })
    t.eq(r.scope.total, 3)
    t.eq(decision.test_scope_text(r), "over 1 of 3 load points (2 left out: repeated on both sides, no test over "
      .. "their repeats at 1/s, 2/s)")
    t.contains(r.left_out, "left out, the loads both runs repeated (1/s, 2/s), untested over their repeats: ")
  end)
end
