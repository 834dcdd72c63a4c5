-- Session 37: the design effect (session 36: requests in send order near saturation are
-- alike, so a per-request test's variance is inflated by it) in every latency test that
-- takes requests for independent draws. Main missed three:
--  * one-stage inference-perf runs: the C fast lane added their requests without the order
--    the design effect needs, so the same server run twice at 20 req/s (one stage) got "B
--    better in TTFT, p = 5.2e-172" (seeds 105 and 106 below); with --slo (the Lua path) the
--    same files said "too dependent to test";
--  * ITL: its test counted each request as one unit (the gaps declustered), but the
--    requests as independent ones;
--  * analyze.lua on a saved workspace said "no per-request samples" where compare.lua had
--    said "too dependent to test".
-- The runs are made by tests/data/queue_sim_ip.py (a FIFO server of 320 slots, each request
-- 0.1 s + 99 x 0.15 s with 10 % lognormal noise, Poisson arrivals for 60 s; about 21 req/s
-- at most). Expected values: tests/data/deff_ref.py, run here on the same files: numpy only,
-- its own parse of the per-request files, mid-ranks, Geyer's sum and the tie-corrected
-- Mann-Whitney (its header); the A/A verdicts need no number.
local t = require "testlib"
local proc = require "llmd.proc"
local decision = require "llmd.decision"
local lp = require "llmd.loadpoints"
local json = require "llmd.json"

local ROOT, LLMDLUA = t.root()
local have_numpy = t.have_numpy()

t.test("ITL's request dependence is counted in requests, not gaps", function()
  -- 100 requests a side (1000 gaps) and a design effect of 3: 100 / 3 = 33 independent
  -- requests' worth, below the 50 a test needs (by hand), whatever the gaps' count
  local stats = require "llmd.stats"
  local xa, xb = stats.new(), stats.new()
  for i = 1, 1000 do
    xa:add(i % 97)
    xb:add(i % 89)
  end
  local r, why = decision.itl_test(xa, xb, 100, 100, 3, 1)
  t.eq(r, nil)
  t.ok(why and why:find("so 100 requests carry about 33 independent ones (design effect 3)", 1, true), why)
  -- no design effect: the declustered test as before (z over the square root of 10 gaps a
  -- request)
  r = decision.itl_test(xa, xb, 100, 100, nil, nil)
  t.near(r.z, r.z_pooled / math.sqrt(10), 1e-12)
  t.eq(r.deff, nil)
end)

if not have_numpy then
  t.test("one-stage inference-perf pairs (skipped: no numpy for queue_sim_ip.py)", function() end)
  return
end

-- one run: seed, rate, ttft0 -> its directory (made once)
local made = {}
local function sim(seed, rate, ttft0)
  local key = ("%d/%s/%s"):format(seed, rate, ttft0)
  if made[key] then return made[key] end
  local dir = ("%s/ip_%d_%s_%s"):format(t.tmpdir(), seed, rate, ttft0)
  t.data_py("queue_sim_ip.py", dir, "--rates", rate, "--slots", "320", "--ttft0", ttft0, "--tpot", "0.15",
    "--outtok", "100", "--seed", seed)
  made[key] = dir
  return dir
end

local compare = t.compare_ab

local function ref(a, b, kind)
  return t.data_json("deff_ref.py", a, b, kind)
end

-- the whole-run test of a row, as the report makes it
local function row_test(a, b, key)
  local ra, rb, pa, pb = t.extract_pair(a, b)
  return decision.row_test(key, ra, rb, pa, pb, nil, nil, { a = lp.saturation(pa), b = lp.saturation(pb) })
end

t.test("one-stage inference-perf A/A at 20 req/s, four seed pairs: no latency winner (main: 4 of 4 had one)", function()
  -- main, the same pairs: B better in TTFT (p = 5.2e-172, 3.6e-4, 3.2e-05), A better
  -- (1.4e-05), B better in E2E (1.1e-26); the fast lane (no --slo) is the one tested
  for _, seeds in ipairs { { 105, 106 }, { 107, 108 }, { 111, 112 }, { 115, 116 } } do
    local a, b = sim(seeds[1], 20, 0.1), sim(seeds[2], 20, 0.1)
    local o = compare(a, b)
    for _, r in ipairs(o.json.perf) do
      if decision.sample_kind(r.key) then
        t.ok(r.verdict ~= "A better" and r.verdict ~= "B better",
          ("seeds %d/%d, %s: %s (%s)"):format(seeds[1], seeds[2], r.key, tostring(r.verdict), tostring(r.evidence)))
      end
    end
  end
  -- seeds 105/106: deff_ref.py's TTFT design effects decide: too dependent where either
  -- side has fewer than 50 independent requests' worth, else its z
  local a, b = sim(105, 20, 0.1), sim(106, 20, 0.1)
  local want = ref(a, b, "ttft")
  local d = math.max(want.deff_a, want.deff_b)
  t.ok(math.min(want.n_a, want.n_b) / d < 50, ("deff_ref.py: %s"):format(json.encode(want)))
  local r, why = row_test(a, b, "ttft_p90_ms")
  t.eq(r, nil)
  t.ok(why:find(("so %d requests carry about %.0f independent ones (design effect %.3g)"):format(
    math.min(want.n_a, want.n_b), math.min(want.n_a, want.n_b) / d, d), 1, true), why)
end)

t.test("one-stage inference-perf at 14 req/s, TTFT 0.13 s against 0.1 s: found, z as deff_ref.py's", function()
  local a, b = sim(7, 14, 0.1), sim(8, 14, 0.13)
  local o = compare(a, b)
  t.eq(t.perf_row(o.json, "ttft_p90_ms").verdict, "A better")
  t.eq(t.perf_row(o.json, "ttft_mean_ms").verdict, "A better")
  -- each kind's z with the design effects of both runs' requests in send order (TTFT
  -- about -31.4, design effects about 1.06 and 1.11); ITL's with the TPOT's
  for _, x in ipairs { { "ttft_p90_ms", "ttft" }, { "latency_p90_ms", "latency" }, { "tpot_p90_ms", "tpot" },
    { "itl_p90_ms", "itl" } } do
    local want = ref(a, b, x[2])
    local r, why = row_test(a, b, x[1])
    t.ok(r, why)
    t.near(r.z, want.z, 1e-6 * math.max(1, math.abs(want.z)), x[1])
    t.near(r.deff, math.max(want.deff_a, want.deff_b), 1e-9, x[1])
  end
end)

t.test("NTPOT's test and effect interval are TPOT's (fixi41; main: untested, 'no repeats')", function()
  -- the pair above: NTPOT, (end - start) / output tokens, one value a request as TPOT; its
  -- z, design effect and mean's effect interval as deff_ref.py's (numpy, its own parse)
  local a, b = sim(7, 14, 0.1), sim(8, 14, 0.13)
  local want = ref(a, b, "ntpot")
  local r, why = row_test(a, b, "ntpot_mean_ms")
  t.ok(r, why)
  t.eq(r.test, "mann_whitney")
  t.near(r.z, want.z, 1e-6 * math.max(1, math.abs(want.z)))
  t.near(r.deff, math.max(want.deff_a, want.deff_b), 1e-9)
  local e = r.row_effect
  t.near(e.pct, want.mean_pct, 1e-6)
  t.near(e.lo, want.mean_lo, 1e-6)
  t.near(e.hi, want.mean_hi, 1e-6)
end)

t.test("analyze.lua on the saved workspace says why compare.lua did not test (main: 'no per-request samples')",
  function()
    local o = compare(sim(105, 20, 0.1), sim(106, 20, 0.1), { "--slo", "ttft_p90_ms=500" })
    local copy = t.tmpdir() .. "/ws"
    t.copy_tree(o.ws, copy)
    local r = proc.run { LLMDLUA, ROOT .. "/lua/analyze.lua", copy, "--quiet" }
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local again = json.decode(t.read(copy .. "/comparison.json"))
    local before = t.perf_row(o.json, "ttft_p90_ms")
    t.ok(before.evidence:find("too dependent to test", 1, true), before.evidence)
    local after = t.perf_row(again, "ttft_p90_ms")
    t.eq(after.evidence, before.evidence)
    t.eq(after.verdict, "untested")
    -- the Summary's test at the matched load too
    t.ok(o.json.matched_point.reason:find("too dependent to test", 1, true), o.json.matched_point.reason)
    t.eq(again.matched_point.reason, o.json.matched_point.reason)
    t.ok(not t.read(copy .. "/comparison_report.md"):find("no per-request samples", 1, true))
  end)
