-- Task fixb40: one rule for a winner on every latency and error-rate row. Since fixc39 a row
-- of a test stratified by load point named a winner only where its whole 95 % effect
-- interval is beyond --min-effect; the rows tested on one load point's samples, on repeats,
-- and the error rate still compared their estimate alone with it. On main, queue_sim.py's
-- server with TPOT 2.5 % longer (--tpot 0.0205, one load point of 720 requests) read "A
-- better" in TPOT mean at +2.9 % whose interval is +1.7 % to +4.1 %, and in TPOT p99.9 at
-- +3.1 % with no interval at all. Now each such row has its interval (one load point: the
-- stratified rows' definition with one stratum; repeats: the repeats' t interval; the error
-- rate: Newcombe's, relative) and the same rule and words. Expected values by numpy alone:
-- tests/data/stratified_effect_ref.py (samples) and tests/data/effect_interval_ref.py
-- (repeats, counts).
local t = require "testlib"
local json = require "llmd.json"

if not t.have_numpy() then
  t.test("latency and error rows' effect intervals (skipped: no numpy for queue_sim.py)", function() end)
  return
end

local made = {}
local function sim(name, ...)
  if made[name] then return made[name] end
  local dir = t.tmpdir() .. "/" .. name
  t.data_py("queue_sim.py", dir, "--slots", 20, ...)
  made[name] = dir
  return dir
end

-- one load point, 6 req/s for 120 s (720 requests): seeds 25 and 26 (A/A), TPOT +2.5 %, +10 %
local function one(name, seed, tpot)
  return sim(name, "--rates", 6, "--dur", 120, "--seed", seed, "--tpot", tpot or 0.02)
end

local function near_effect(r, e, what)
  t.near(r.effect_pct, e.pct, 1e-9, what)
  if e.lo == json.null or e.lo == nil then
    t.eq({ r.effect_lo, r.effect_hi }, { nil, nil }, what .. " unbounded")
  else
    -- (1e-6: the reference's t quantile is a numerical integral)
    t.near(r.effect_lo, e.lo, 1e-6, what .. " lo")
    t.near(r.effect_hi, e.hi, 1e-6, what .. " hi")
  end
end

local TPOT = { tpot_mean_ms = "mean", tpot_p50_ms = "50", tpot_p90_ms = "90", tpot_p95_ms = "95", tpot_p99_ms = "99",
  tpot_p999_ms = "99.9" }

t.test("one load point's samples: TPOT +2.5 % is significant but not shown beyond 2 %; +10 % is found", function()
  local a, b = one("a25", 25), one("b26", 26, 0.0205)
  local c = t.compare_ab(a, b)
  -- numpy: the figures' effect at the one load point, each side's standard error from its
  -- design effect in send order (one stratum of the stratified rows' definition)
  local ref = t.data_json("stratified_effect_ref.py", a, b, "6", "mean,50,90,95,99,99.9")
  for key, stat in pairs(TPOT) do near_effect(t.perf_row(c.json, key), ref[stat], key) end
  -- mean +2.96 % (+1.7 % to +4.2 %, B against A since fixa43: near_effect above holds the
  -- rows to the reference), p50, p90, p95: the interval reaches back within 2 %
  for _, key in ipairs { "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p95_ms" } do
    local r = t.perf_row(c.json, key)
    t.ok(r.p_adjusted < 0.05, key .. ": the test is significant")
    t.ok(ref[TPOT[key]].pct > 2 and ref[TPOT[key]].lo < 2, key .. ": the reference's estimate beyond, interval not")
    t.eq({ r.verdict, r.winner, r.size }, { "not shown to differ", nil, "unsure" }, key) -- main: "A better"
  end
  t.contains(t.perf_row(c.json, "tpot_mean_ms").note, "a25's values are lower (b26 +3.0 % against a25), but the 95 % "
    .. "interval of that difference, +1.7 % to +4.2 %, takes in differences smaller than the 2 % practical threshold, "
    .. "so it may be too small to matter: no winner")
  -- p99 +1.0 %, within 2 %, but its 95 % interval -3.4 % to +5.6 % (the reference's, near_effect
  -- above) reaches beyond 2 % both ways: not shown to be too small to matter, no winner
  -- (wording54: on main "negligible" on the estimate alone, the same words as the stratified rows')
  local p99 = t.perf_row(c.json, "tpot_p99_ms")
  t.ok(ref["99"].lo < -2 and ref["99"].hi > 2 and math.abs(ref["99"].pct) < 2, "the reference's p99: within, "
    .. "its interval beyond")
  t.eq({ p99.verdict, p99.winner, p99.size }, { "not shown to differ", nil, "unsure" })
  t.eq(p99.note, "a25's values are lower (b26 +1.0 % against a25), within the 2 % practical threshold, but the 95 % "
    .. "interval of that difference, -3.4 % to +5.6 %, reaches beyond it, so it may matter: no winner")
  -- p99.9 +3.1 % of 720 requests: no interval; what would settle it (numpy: the requests the
  -- order statistics' ranks need at the design effect, `need`)
  local p999 = t.perf_row(c.json, "tpot_p999_ms")
  t.eq({ p999.verdict, p999.winner }, { "not shown to differ", nil }) -- main: "A better"
  t.contains(p999.note, ("the 95 %% interval of that difference is unbounded (too few independent requests), so it may be smaller than "
    .. "the 2 %% practical threshold: no winner; to settle it: about %d requests a load point (720 here at the "
    .. "fewest), or at least 3 repeats of each load point in both runs, more the more they vary (2 give the interval "
    .. "an end, but at about 9 of their standard deviations either side)"):format(ref["99.9"].need))
  -- no latency winner anywhere, and the Summary says why, the test once for its rows
  for _, r in ipairs(c.json.perf) do t.eq(r.winner, nil, r.key) end
  t.lacks(c.md, "is better in")
  t.contains(c.md, "Significant, but not shown to be beyond the practical threshold of 2.0 %: ")
  t.contains(c.md, "a25's values are lower (one Mann-Whitney for these 6 rows, p = ")
  t.contains(c.md, "within the threshold by the estimate, but not by the 95 % interval, which reaches beyond it, in "
    .. "TPOT p99 (+1.0 %, 95 % interval -3.4 % to +5.6 %); not shown beyond the threshold in "
    .. "TPOT mean (+3.0 %, 95 % interval +1.7 % to +4.2 %)")
  -- the Evidence gives the interval, and the CSV its ends
  t.contains(t.perf_row(c.json, "tpot_mean_ms").evidence, "; this row's difference: +3.0 % (95 % interval +1.7 % "
    .. "to +4.2 %)")
  -- the table gives the shared test's p once (md and HTML), each row its own difference; the
  -- JSON's evidence keeps each row's p
  for _, f in ipairs { "comparison_report.md", "comparison_report.html" } do
    local text = t.read(c.ws .. "/" .. f):gsub("&#39;", "'")
    t.contains(text, "Mann-Whitney, p = 1.6e-06, Holm-adjusted 6.3e-06 (one test for 6 rows: TPOT mean to p99.9); "
      .. "this row's difference: +3.0 % (95 % interval +1.7 % to +4.2 %)", f)
    t.contains(text, "same test as TPOT mean; this row's difference: +2.9 % (95 % interval +1.4 % to +4.4 %)", f)
    local _, shared = text:gsub("Mann%-Whitney, p = 1%.6e%-06", "")
    t.eq(shared, 1, f .. ": the TPOT test's p once in the table")
  end
  t.contains(t.perf_row(c.json, "tpot_p50_ms").evidence, "Mann-Whitney, p = 1.6e-06, Holm-adjusted 6.3e-06; this row's")
  local line = t.read(c.ws .. "/comparison.csv"):match("\ntpot_mean_ms,[^\n]*")
  local lo, hi = line:match(",([^,]+),([^,]+),,,,ms,lower$") -- (then delta_lo, delta_hi: newuser48 F5; delta_unit: fixf49; better_is: fixq50)
  t.near(tonumber(lo), ref.mean.lo, 1e-9, line)
  t.near(tonumber(hi), ref.mean.hi, 1e-9, line)

  -- the Summary's test at the matched load (an SLO on TPOT p90) follows the same rule: not
  -- "B's TPOT p90 is 3 % higher" (main), but what it is, with the interval (numpy: ref["90"])
  t.ok(ref["90"].lo < 2 and ref["90"].pct > 2)
  local s = t.compare_ab(a, b, { "--slo", "tpot_p90_ms=23" })
  -- (B against A since fixa43: 23.32 / 22.58 = 1.033, by hand; its interval ref["90"]'s)
  t.contains(s.md, "TPOT p90 is 22.58 ms for a25 and 23.32 ms for b26 (a25's values are lower (b26 +3.3 % against a25), but the "
    .. "95 % interval of that difference, +1.0 % to +5.6 %, takes in differences smaller than the 2 % practical "
    .. "threshold, so it may be too small to matter: no winner; Mann-Whitney, p = 1.6e-06")
  t.lacks(s.md, "TPOT p90 is 3 % higher")

  -- TPOT +10 %: the whole interval beyond 2 %, a winner as before
  local b10 = one("t26", 26, 0.022)
  s = t.compare_ab(a, b10, { "--slo", "tpot_p90_ms=23" })
  t.contains(s.md, "t26's TPOT p90 is 11 % higher than a25's (25.03 ms against 22.58 ms, Mann-Whitney, p < 1e-9")
  c = t.compare_ab(a, b10)
  ref = t.data_json("stratified_effect_ref.py", a, b10, "6", "mean,50,90,95,99,99.9")
  for key, stat in pairs(TPOT) do near_effect(t.perf_row(c.json, key), ref[stat], key .. " +10 %") end
  for _, key in ipairs { "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p95_ms", "tpot_p99_ms" } do
    t.ok(ref[TPOT[key]].lo > 2, key)
    t.eq(t.perf_row(c.json, key).verdict, "A better", key)
  end
  t.contains(c.md, "a25 is better in ")
end)

t.test("A/A at one load point and with repeats: no winner on any row", function()
  -- (a check, not a reproduction: these pairs named no winner on main either)
  for _, pair in ipairs {
    { one("a25", 25), one("a27", 27) },
    { sim("ra25", "--rates", 6, "--seed", 25, "--repeat", 5), sim("ra27", "--rates", 6, "--seed", 27, "--repeat", 5) },
  } do
    local c = t.compare_ab(pair[1], pair[2])
    for _, r in ipairs(c.json.perf) do t.eq(r.winner, nil, r.key) end
    t.lacks(c.md, "is better in")
  end
end)

t.test("repeats of one load point: the repeats' t interval decides (Welch's, relative)", function()
  local a = sim("ra25", "--rates", 6, "--seed", 25, "--repeat", 5)
  local b = sim("rb26", "--rates", 6, "--seed", 26, "--repeat", 5, "--tpot", 0.0206)
  local c = t.compare_ab(a, b)
  -- numpy: the 5 repeats' TPOT means, Welch's interval of the ratio of the means, B against A
  -- (fixa43): +2.9 % (+1.8 % to +4.0 %). Since fixa51 the test and its interval on one scale,
  -- the repeats' logs: the ratio of the geometric means from the Welch t and df that give the
  -- row's p (effect_interval_ref.py log-files, its t density integrated numerically)
  local ref = t.data_json("effect_interval_ref.py", "log-files", a, b, "mean_tpot_ms")
  local r = t.perf_row(c.json, "tpot_mean_ms")
  t.eq(r.test, "welch_log")
  t.near(r.p_value, ref.p, 1e-6)
  t.ok(r.p_adjusted < 0.05)
  near_effect(r, ref, "TPOT mean over the repeats")
  t.eq({ r.verdict, r.winner }, { "not shown to differ", nil }) -- main: "A better"
  t.contains(r.note, "ra25's values are lower (rb26 +2.9 % against ra25) over the repeats, but the 95 % interval of that "
    .. "difference, +1.8 % to +4.0 %, takes in differences smaller than the 2 % practical threshold, so it may be too "
    .. "small to matter: no winner")
  ref = t.data_json("effect_interval_ref.py", "log-files", a, b, "median_tpot_ms")
  near_effect(t.perf_row(c.json, "tpot_p50_ms"), ref, "TPOT p50 over the repeats")
  t.near(t.perf_row(c.json, "tpot_p50_ms").p_value, ref.p, 1e-6)
  -- +10 %: found
  local b10 = sim("rt26", "--rates", 6, "--seed", 26, "--repeat", 5, "--tpot", 0.022)
  c = t.compare_ab(a, b10)
  ref = t.data_json("effect_interval_ref.py", "log-files", a, b10, "mean_tpot_ms")
  near_effect(t.perf_row(c.json, "tpot_mean_ms"), ref, "TPOT mean +10 %")
  t.ok(ref.lo > 2)
  t.eq(t.perf_row(c.json, "tpot_mean_ms").verdict, "A better")
end)

t.test("repeats over several load points: each row's effect over the repeats, with their interval", function()
  local a = sim("sa25", "--rates", "4,6,8", "--seed", 25, "--repeat", 3)
  local b = sim("sb26", "--rates", "4,6,8", "--seed", 26, "--repeat", 3, "--tpot", 0.0206)
  local c = t.compare_ab(a, b)
  local r = t.perf_row(c.json, "tpot_p90_ms")
  t.eq(r.sig.units, "repeats")
  -- numpy: the repeats' TPOT p90 per load point, weighted n_a n_b / (n_a + n_b), Welch-
  -- Satterthwaite, B against A (fixa43): +3.3 % (+1.6 % to +5.0 %)
  local ref = t.data_json("effect_interval_ref.py", "files", a, b, "p90_tpot_ms")
  near_effect(r, ref, "TPOT p90 over the repeats of 3 load points")
  t.ok(r.p_adjusted < 0.05)
  t.eq({ r.verdict, r.winner }, { "not shown to differ", nil }) -- main: "A better"
  t.contains(r.note, "sa25's values are lower (sb26 +3.3 % against sa25) within the load points tested, over their repeats, but the "
    .. "95 % interval of that difference, +1.6 % to +5.0 %, takes in differences smaller than the 2 % practical "
    .. "threshold, so it may be too small to matter: no winner")
  local b10 = sim("st26", "--rates", "4,6,8", "--seed", 26, "--repeat", 3, "--tpot", 0.022)
  c = t.compare_ab(a, b10)
  ref = t.data_json("effect_interval_ref.py", "files", a, b10, "mean_tpot_ms")
  near_effect(t.perf_row(c.json, "tpot_mean_ms"), ref, "TPOT mean +10 % over the repeats")
  t.ok(ref.lo > 2)
  t.eq(t.perf_row(c.json, "tpot_mean_ms").verdict, "A better")
end)

t.test("the error rate: Newcombe's interval of the difference, relative, beyond 2 % and 0.1 pp for a winner",
  function()
  -- 20000 requests a run at 20 req/s, each failing with chance 20 % (A) and 20.5 % (B)
  local a = sim("ea", "--rates", 20, "--slots", 100, "--dur", 1000, "--seed", 5, "--fail", 0.20)
  local b = sim("eb", "--rates", 20, "--slots", 100, "--dur", 1000, "--seed", 6, "--fail", 0.205)
  local c = t.compare_ab(a, b)
  local r = t.perf_row(c.json, "error_rate_pct")
  -- numpy: 19.52 % against 20.68 %, +1.17 pp, Newcombe +0.37 to +1.96 pp at the failures'
  -- design effect; relative, the rates' ratio (session 43: effect_interval_ref.py's MOVER on
  -- the log scale of each rate's interval, which near_effect checks first): +6.0 %, +1.9 % to
  -- +10.2 % (over A's rate as if known, fixa43, it was +10.0 %); the pp lower end 0.37 below 2 %
  -- of the lower rate, 0.39 pp
  local ref = t.data_json("effect_interval_ref.py", "count-files", a, b)
  near_effect(r, ref, "error rate")
  t.near(r.effect_pp_lo, ref.pp_lo, 1e-9)
  t.near(r.effect_pp_hi, ref.pp_hi, 1e-9)
  t.ok(r.p_adjusted < 0.05)
  t.eq({ r.verdict, r.winner }, { "not shown to differ", nil }) -- main: "A better"
  -- (the thresholds in pp, as they are read: 2 % of the lower rate, 19.52 %, 0.39 pp by hand)
  t.contains(r.note, "ea's values are lower (eb +1.17 pp, +6.0 % against ea), but the 95 % interval of that difference, +1.9 % to "
    .. "+10.2 %, +0.37 to +1.96 pp, takes in differences smaller than the 2 % and 0.1 percentage point practical "
    .. "thresholds (here 0.39 pp: the larger of 0.1 pp and 2 % of the lower rate, 19.52 %), so it may be too small to "
    .. "matter: no winner")
  t.contains(c.md, "not shown beyond the threshold in error rate (+6.0 %, 95 % interval +1.9 % to +10.2 %; +0.37 to "
    .. "+1.96 pp)")
  t.lacks(c.md, "better in error rate")
  -- 2 % against 10 % is still found
  local b10 = sim("e10", "--rates", 20, "--slots", 100, "--dur", 100, "--seed", 6, "--fail", 0.10)
  local a2 = sim("e02", "--rates", 20, "--slots", 100, "--dur", 100, "--seed", 5, "--fail", 0.02)
  c = t.compare_ab(a2, b10)
  r = t.perf_row(c.json, "error_rate_pct")
  ref = t.data_json("effect_interval_ref.py", "count-files", a2, b10)
  near_effect(r, ref, "error rate 2 % against 10 %")
  t.ok(ref.lo > 2 and ref.pp_lo > 0.1)
  t.eq(r.verdict, "A better")
end)

t.test("decision.effect_size: the error rate's percentage-point threshold applies to its whole interval", function()
  local decision = require "llmd.decision"
  -- relative beyond 2 %, but the pp interval reaches below 0.1: not shown (by hand)
  local size = decision.effect_size({}, { pct = 30, lo = 10, hi = 50, pp = 0.3, pp_lo = 0.09, pp_hi = 0.51 }, 2)
  t.eq(size, "unsure")
  size = decision.effect_size({}, { pct = 30, lo = 10, hi = 50, pp = 0.3, pp_lo = 0.11, pp_hi = 0.51 }, 2)
  t.eq(size, "beyond")
  t.eq(decision.effect_size({}, { pct = 30, lo = 10, hi = 50, pp = 0.05, pp_lo = 0.01, pp_hi = 0.09 }, 2), "small")
  -- the requests a p99 needs at design effect 1: ranks 0.99 n -+ 1.959964 sqrt(0.0099 n)
  -- inside 1..n, first at n = 381 (python3 loop: 380 gives 0.99 x 380 + h = 380.0015, its
  -- ceiling 381 > 380; 381 gives 380.9965, ceiling 381)
  t.eq(decision.requests_needed("tpot_p99_ms", 1), 381)
  t.eq(decision.requests_needed("tpot_mean_ms", 2.5), 125)
  -- p99.9 at the design effects of long outputs' token gaps: the first n by python3 (doubling
  -- then bisection on the same condition with q = 99.9 / 100, and no n in the 20,000 below it
  -- holds): 1,032,320 at d 269, 11,512,853 at d 3000, where a walk of 10^6 steps from 0.9 of the
  -- estimate found none (nil: "requests needed" unknown)
  t.eq(decision.requests_needed("itl_p999_ms", 269), 1032320)
  t.eq(decision.requests_needed("itl_p999_ms", 3000), 11512853)
  for _, d in ipairs { 1, 1.7, 2.5, 10, 40 } do
    for _, key in ipairs { "ttft_p50_ms", "ttft_p90_ms", "tpot_p95_ms", "itl_p99_ms", "itl_p999_ms" } do
      -- the first n that holds, and n - 1 does not (ranks inside 1..n, n / d >= 50)
      local n = decision.requests_needed(key, d)
      local q = ({ ttft_p50_ms = 50, ttft_p90_ms = 90, tpot_p95_ms = 95, itl_p99_ms = 99, itl_p999_ms = 99.9 })[key] / 100
      local function holds(m)
        local h = 1.959964 * math.sqrt(m * d * q * (1 - q))
        return m / d >= 50 and math.floor(m * q - h) >= 1 and math.ceil(m * q + h) <= m
      end
      t.ok(holds(n) and not holds(n - 1), key .. " at d " .. d .. ": " .. n)
    end
  end
end)
