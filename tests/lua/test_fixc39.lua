-- Task fixc39: a latency winner only with a practical difference. The new-user trial's A/A
-- pair (tests/data/queue_sim.py, the same FIFO server of 20 slots, seeds 25 and 26, 4 to 12
-- req/s) read on main "v25's values are lower in TPOT mean, TPOT p50, p90, p95, p99, p99.9
-- (... p = 0.00998, Holm-adjusted 0.0399)": the stratified test is significant, but the
-- difference within the load points is about 1 %, below --min-effect (2 %), which was never
-- applied to it. Now each row of a stratified test has its own effect within the load points
-- the test compared, with a 95 % interval, and names a winner only where the whole interval
-- is beyond the threshold.
local t = require "testlib"
local json = require "llmd.json"

if not t.have_numpy() then
  t.test("A/A and A/B pairs of queue_sim.py (skipped: no numpy for queue_sim.py)", function() end)
  return
end

local made = {}
local function sim(name, seed, extra)
  local dir = t.tmpdir() .. "/" .. name
  if made[name] then return made[name] end
  t.data_py("queue_sim.py", dir, "--rates", "4,6,8,9,10,12", "--slots", 20, "--seed", seed, extra or {})
  made[name] = dir
  return dir
end

local TPOT = { "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p95_ms", "tpot_p99_ms" }
local STAT = { tpot_mean_ms = "mean", tpot_p50_ms = "50", tpot_p90_ms = "90", tpot_p95_ms = "95", tpot_p99_ms = "99" }

-- The rows' effects by tests/data/stratified_effect_ref.py (numpy alone) at the loads given.
local function reference(a, b, rates)
  return t.data_json("stratified_effect_ref.py", a, b, rates, "mean,50,90,95,99")
end

local function check_effects(doc, ref, what)
  for _, key in ipairs(TPOT) do
    local r, e = t.perf_row(doc, key), ref[STAT[key]]
    t.near(r.effect_pct, e.pct, 1e-9, what .. " " .. key)
    if e.lo == json.null then
      t.eq({ r.effect_lo, r.effect_hi }, { nil, nil }, what .. " " .. key .. " unbounded")
    else
      t.near(r.effect_lo, e.lo, 1e-9, what .. " " .. key .. " lo")
      t.near(r.effect_hi, e.hi, 1e-9, what .. " " .. key .. " hi")
    end
  end
end

t.test("A/A (seeds 25 and 26): the stratified TPOT test is significant, the difference too small: no winner",
  function()
  for _, slo in ipairs { false, "ttft_p90_ms=1000" } do
    local c = t.compare_ab(sim("v25", 25), sim("v26", 26), slo and { "--slo", slo } or nil)
    local what = slo and "--slo " .. slo or "no SLO"
    -- the test left out 10 and 12 req/s (A), 12 (B) as overloaded: the four loads below
    local tp = t.perf_row(c.json, "tpot_mean_ms")
    t.contains(tp.sig.left_out, "10/s, 12/s in A; 12/s in B", what)
    t.ok(tp.p_adjusted < 0.05, what .. ": the test itself is significant")
    -- within the loads: +0.96 % (mean) to +1.24 % (p90), each below 2 % (numpy)
    check_effects(c.json, reference(sim("v25", 25), sim("v26", 26), "4,6,8,9"), what)
    for _, key in ipairs(TPOT) do
      local r = t.perf_row(c.json, key)
      t.eq({ r.sustained_winner, r.winner, r.sustained_size }, { nil, nil, "small" }, what .. " " .. key)
    end
    -- (p99.9: the figure's difference within the loads is the other way, -1.3 %: no winner either)
    t.eq(t.perf_row(c.json, "tpot_p999_ms").sustained_winner, nil, what)
    t.lacks(c.md, "values are lower in TPOT", what)
    t.lacks(c.md, "at the loads both sustained: v25's lower", what)
    t.lacks(c.md, "at the loads both sustained: v26's lower", what)
    -- what it is instead, with the one test said once for its rows
    t.contains(c.md, "v25's values are lower (one Mann-Whitney stratified by load point (van Elteren, 4 points) for these 6 rows, p = "
      .. "0.00998, Holm-adjusted 0.0399), too small to matter in TPOT mean +1.0 %, TPOT p50 +1.2 %, TPOT p90 +1.2 %, "
      .. "TPOT p95 +0.5 %, TPOT p99 +0.5 % (below the threshold)", what)
    if not slo then
      t.contains(c.md, "TPOT p90 +2.8 % (Performance Results, at the loads both sustained: a difference too small to "
        .. "matter (+1.2 % within the load points tested, below the 2 % threshold), p = 0.00998", what)
    end
  end
end)

t.test("a real difference (TPOT +10 %, queue_sim --tpot 0.022) is still named, with its size and interval",
  function()
  local a, b = sim("v25", 25), sim("t26", 26, { "--tpot", "0.022" })
  local c = t.compare_ab(a, b)
  local tp = t.perf_row(c.json, "tpot_mean_ms")
  t.contains(tp.sig.left_out, "10/s, 12/s in A; 9/s, 10/s, 12/s in B")
  local ref = reference(a, b, "4,6,8")
  check_effects(c.json, ref, "tpot +10 %")
  -- mean, p50, p90, p95: intervals beyond 2 % (numpy: +8.8 % to +10.7 % for the mean), A lower
  for _, key in ipairs { "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p95_ms" } do
    t.eq(t.perf_row(c.json, key).sustained_winner, "a", key)
    t.ok(ref[STAT[key]].lo > 2, key)
  end
  -- p99 of 240 to 540 requests a load: no bound above (numpy: null), so not shown beyond 2 %
  t.eq({ t.perf_row(c.json, "tpot_p99_ms").sustained_winner, t.perf_row(c.json, "tpot_p99_ms").sustained_size },
    { nil, "unsure" })
  t.contains(c.md, "At the loads both runs sustained, v25's values are lower in end-to-end latency p50 (+9.0 %")
  -- (the intervals as tests/data/stratified_effect_ref.py gives them, rounded: order
  -- statistics at ranks rounded outward since task calib39, a hair wider than the linear
  -- percentiles' +8.8 % to +11.0 %, +8.3 % to +11.7 %, +6.4 % to +10.6 % before)
  t.contains(c.md, "TPOT mean (+9.8 %, 95 % interval +8.8 % to +10.7 %), TPOT p50 (+9.9 %, 95 % interval +8.7 % to "
    .. "+11.0 %), TPOT p90 (+10.0 %, 95 % interval +8.2 % to +11.8 %), TPOT p95 (+8.5 %, 95 % interval +6.2 % to "
    .. "+10.7 %) (one Mann-Whitney stratified by load point (van Elteren, 3 points) for these 4 rows, p < 1e-9")
end)

t.test("the unstratified rows' rule is unchanged: a whole-run test at one load point, the estimate's threshold",
  function()
  -- (decision.verdict without a row_effect: the pooled figures' effect against min_effect)
  local decision = require "llmd.decision"
  local v = decision.verdict { key = "tpot_p90_ms", a = 100, b = 101, test = { test = "mann_whitney", p = 1e-6 } }
  t.eq(v.verdict, "negligible")
  v = decision.verdict { key = "tpot_p90_ms", a = 100, b = 110, test = { test = "mann_whitney", p = 1e-6 } }
  t.eq(v.verdict, "A better")
end)
