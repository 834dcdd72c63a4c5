-- An order of capacities resting only on one-run intervals known to run narrow near capacity
-- (lp.interval_coverage "narrow_near_capacity", cover40) carries its caveat wherever the order
-- is read (task fixf40): the Summary's restatement of compare.lua's order, and treatments.lua's
-- ranking (the rank table's evidence against the next place, treatment_ranking.csv's
-- interval_coverage column, treatments.json's ranking[].evidence). Before: only the Verdict,
-- the capacity cells and comparison.json said so.
local t = require "testlib"
local json = require "llmd.json"
local decision = require "llmd.decision"
local tr = require "llmd.treatments"
local lp = require "llmd.loadpoints"

-- (fixh40: lp.interval_coverage now marks a point only in a saturated run where its interval,
-- widened by sqrt(6), would cross the SLO: test_capacity_coverage tests that rule. These tests
-- are of how a mark is carried, so they mark by the share of the ceiling alone, as the rule did
-- when they were written: every one-run point at or above 0.6 of its run's ceiling)
local function by_share(points)
  local out, top = {}, 0
  for _, p in ipairs(points) do top = math.max(top, p.achieved_rps or 0) end
  for i, p in ipairs(points) do
    if (p.repeats or 1) < 2 and p.per_request and top > 0 and type(p.achieved_rps) == "number" then
      out[i] = p.achieved_rps >= lp.NARROW_SHARE * top and "narrow_near_capacity" or "nominal"
    end
  end
  return out
end
local function test(name, f)
  t.test(name, function()
    local orig = lp.interval_coverage
    lp.interval_coverage = by_share
    local ok, err = pcall(f)
    lp.interval_coverage = orig
    if not ok then error(err, 0) end
  end)
end

-- one stage a load at rates 10, 20, 30, 40 req/s, TTFT p90 as given (testlib.p90_ladder), x
-- against y at TTFT p90 <= 500 ms
local run = t.p90_ladder
local function model(ra, rb) return t.xy_model(ra, rb, "ttft_p90_ms=500") end

-- (by hand: x meets 500 ms up to 30 req/s, y fails from 20; both ceilings 40, so 0.6 x 40 =
-- 24: the order rests on x's pass at 30, narrow, and y's fail at 20, nominal (20 < 24); x's
-- capacity in 30-40, y's in 10-20, apart by far more than the practical threshold. Before
-- fixa46/fixh46 y failed from 30: a pass and a fail at the same load, whose ranges meet (a
-- least gap of 0), now no winner, as the rows' rule reads a gap that may be negligible)
local NARROW = { 100, 100, 100, 2000 }
-- (fixc41: the caveat states lp.interval_coverage's condition, in words; sqrt(6) = 2.449)
local CONDITION = "each in a run that saturated, at 60 % or more of the most its run achieved at any load, and with a "
  .. "95 % interval of a percentile or mean SLO that would cross the SLO if 2.4 times as wide, the square root of the up to "
  .. "6 times a one-run design effect fell short of the run-to-run one in simulation"
local NARROW_B = { 100, 2000, 2000, 2000 }
-- (x meets it up to 20, y fails from 10, its lowest load: x's pass at 20 and y's fail at 10
-- are nominal, both below 24; x in 20-30, y below 10. Before fixa46 x met it everywhere and y
-- failed from 20, ordered by the pass and the fail at 20; ranges that meet there (a least gap
-- of 0) now order nothing by themselves, and the order fell to x's pass at 40, narrow)
local NOMINAL = { 100, 100, 2000, 2000 }
local NOMINAL_B = { 2000, 2000, 2000, 2000 }

test("the Summary's restatement of a narrow order carries the Verdict's caveat; a nominal one none", function()
  local m = model(run(NARROW), run(NARROW_B))
  t.eq({ m.verdict.higher, m.verdict.interval_coverage }, { "a", "narrow_near_capacity" })
  t.ok(m.summary:find("It rests on loads measured once near capacity (x at 30 req/s offered: "
    .. CONDITION .. "), whose 95 % intervals may be narrow", 1, true), m.summary)
  m = model(run(NOMINAL), run(NOMINAL_B))
  t.eq({ m.verdict.higher, m.verdict.interval_coverage }, { "a", "nominal" })
  -- (x's own cell still says its bound rests on narrow points: the cell's caveat, not the order's)
  t.ok(not m.summary:find("It rests on loads measured once near capacity", 1, true), m.summary)
end)

local function treatment(label, p90s)
  local x = t.treatment(label, { { 10, 10, p90s[1] }, { 20, 20, p90s[2] }, { 30, 30, p90s[3] }, { 40, 40, p90s[4] } })
  t.with_samples(x.run)
  return x
end

local SLO = decision.parse_slo("ttft_p90_ms=500")

test("treatments: a rank order resting on narrow points is flagged in the table, the CSV and the JSON", function()
  local m = tr.model({ treatment("x", NARROW), treatment("y", NARROW_B) }, { slo = SLO })
  t.eq({ m.ranking[1].label, m.ranking[2].label }, { "x", "y" })
  local ev = m.ranking[1].evidence
  t.eq(ev.interval_coverage, "narrow_near_capacity")
  t.eq(ev.narrow_loads, {
    { treatment = "x", place = "this", point = 3, offered = 30, load_type = "rate", achieved_rps = 30 } })
  t.ok(m.ranking[1].vs_next_text:find("; it rests on loads measured once near capacity (x at 30 "
    .. "req/s offered: " .. CONDITION .. "), whose 95 % intervals may be narrow", 1, true),
    m.ranking[1].vs_next_text)
  -- fixc41: the verdict paragraph repeats it (main: only the rank table said so)
  t.ok(m.verdict:find("x's place above y rests on loads measured once near capacity (x at 30 "
    .. "req/s offered: " .. CONDITION .. "), whose 95 % intervals may be narrow", 1, true), m.verdict)
  t.ok(m.ranking[1].vs_next_text:find("repeats of those loads settle it$"), m.ranking[1].vs_next_text)
  -- treatment_ranking.csv: its last column
  local csv = tr.ranking_csv_text(m)
  local header, first = csv:match("^([^\r]*)\r\n([^\r]*)\r\n")
  t.ok(header:find(",interval_coverage$"), header)
  t.ok(first:find(",narrow_near_capacity$"), first)
  -- treatments.json keeps the evidence
  local out = t.tmpdir()
  tr.write_report(out, { treatment("x", NARROW), treatment("y", NARROW_B) }, { slo = SLO,
    templates = t.root() .. "/templates" })
  local js = json.read(out .. "/treatments.json")
  t.eq(js.ranking[1].evidence.interval_coverage, "narrow_near_capacity")
end)

test("treatments: a rank order nominal points decide is nominal, with no caveat", function()
  local m = tr.model({ treatment("x", NOMINAL), treatment("y", NOMINAL_B) }, { slo = SLO })
  t.eq({ m.ranking[1].label, m.ranking[2].label }, { "x", "y" })
  t.eq(m.ranking[1].evidence.interval_coverage, "nominal")
  t.eq(m.ranking[1].evidence.narrow_loads, nil)
  t.ok(not m.ranking[1].vs_next_text:find("rests on loads measured once near capacity", 1, true),
    m.ranking[1].vs_next_text)
  t.ok(not m.verdict:find("rests on loads measured once near capacity", 1, true), m.verdict)
  local first = tr.ranking_csv_text(m):match("^[^\r]*\r\n([^\r]*)\r\n")
  t.ok(first:find(",nominal$"), first)
end)
