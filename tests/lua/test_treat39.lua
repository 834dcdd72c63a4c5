-- treat39: treatments.lua ranks and sets on the Pareto front only what the evidence orders.
-- 1. A treatment is beaten on the Pareto front only where it is worse on both axes by the
--    figures and worse beyond noise on one (newuser38b: six copies of one server split the
--    front, three "beaten" on E2E p90s 2-12 % apart, each one draw).
-- 2. The rank table's open orders say "untested against X, and either may be higher: ...",
--    as the Verdict does, never "not comparable with X ... so either may be higher".
-- 3. treatment_ranking.csv has an in_doubt column.
-- 4. The same-results warning in compare.lua's words: the figures their harness recorded are
--    equal, and a throughput read two ways is said.
-- 5. One treatment kept up with every load, the other's saturation unknown or above it: no
--    throughput winner, as compare.lua (fixa38).
-- Expected values by hand, python3 (numpy) or the simulator's known configuration, as said
-- beside each.
local t = require "testlib"
local tr = require "llmd.treatments"
local json = require "llmd.json"
local proc = require "llmd.proc"
local stats = require "llmd.stats"

local ROOT = t.root()
local LLMDLUA = ROOT .. "/llmdlua"

-- a hand-made treatment offered 10, 20, 30 req/s, achieving 10, 20, 25 (saturated at 30: 25 <
-- 0.95 x 30; max sustained 20, ceiling 25), TTFT p90 ttft ms at each; at 20 req/s (the common
-- load of two such) its 200 requests' TTFTs evenly spaced lo..hi s with design effect deff, and
-- its TTFT p90 their linear p90, lo + 0.9 (hi - lo)
local function spread_treatment(label, lo, hi, deff)
  local p90 = (lo + 0.9 * (hi - lo)) * 1000
  local x = t.treatment(label, { { 10, 10, 100 }, { 20, 20, p90 }, { 30, 25, 3000 } })
  local acc = stats.new()
  for _, v in ipairs(t.spread(lo, hi, 200)) do acc:add(v) end
  local st = x.run.stages[2].metrics
  st.samples, st.sample_deff = { ttft = acc }, { ttft = deff or 1 }
  return x
end

t.test("1: Pareto: percentiles from one run's requests whose 95 % intervals overlap beat nothing; apart, they do",
  function()
    -- a: 0.100-0.300 s, p90 280.0 ms; b: 0.100-0.310 s, p90 289.0 ms (+3.2 %, symmetric, above
    -- the 2 % threshold). Their 95 % intervals (python3: the order statistics of
    -- numpy.linspace(lo, hi, 200) at ranks floor(180 - h) = 171 and ceil(180 + h) = 189, h =
    -- 1.959964 sqrt(200 x 0.09), calib39's outward ranks): a 270.85-288.94 ms, b 279.40-298.39
    -- ms, which overlap: b is not beaten (on main: "beaten on TTFT p90, no
    -- worse on max sustained throughput by a", by the figures)
    local m = tr.model { spread_treatment("a", 0.100, 0.300), spread_treatment("b", 0.100, 0.310) }
    t.eq(m.pareto_latency, "TTFT p90")
    t.eq(#m.dominated, 0)
    table.sort(m.front)
    t.eq(m.front, { "a", "b" })
    t.eq(#m.pareto_within_noise, 1)
    local wn = m.pareto_within_noise[1]
    t.eq({ wn.label, wn.other, wn.would }, { "b", "a", "on TTFT p90" })
    t.contains(wn.why, "TTFT p90 280.0 ms against 289.0 ms: the 95 % intervals of the two percentiles, from each one's "
      .. "requests (order statistics, n / design effect) overlap, 270.9–288.9 ms against 279.4–298.4 ms")
    -- the report says it under the front
    local out = t.tmpdir()
    local list = { spread_treatment("a", 0.100, 0.300), spread_treatment("b", 0.100, 0.310) }
    local paths = tr.write_report(out, list, { templates = ROOT .. "/templates" })
    t.contains(paths.text, "\n- b: not beaten by a, whose figures are ahead of it on TTFT p90, but not beyond noise (")
    t.eq(#json.read(out .. "/treatments.json").pareto_within_noise, 1)
    -- c: 0.110-0.330 s, p90 308.0 ms (+9.5 %), interval 297.94-317.84 ms (python3 as above),
    -- apart from a's: beaten on TTFT p90, no worse on throughput (both 20 req/s)
    m = tr.model { spread_treatment("a", 0.100, 0.300), spread_treatment("c", 0.110, 0.330) }
    t.eq(#m.dominated, 1)
    local d = m.dominated[1]
    t.eq({ d.label, d.by, d.on }, { "c", "a", "latency" })
    t.contains(d.evidence, "TTFT p90 at 20 req/s offered 280.0 ms against 308.0 ms (beyond noise: the 95 % intervals "
      .. "of the two percentiles, from each one's requests (order statistics, n / design effect) are apart, "
      .. "270.9–288.9 ms against 297.9–317.8 ms)")
    t.contains(d.evidence, "max sustained throughput 20.000 req/s against 20.000 req/s (no lower by the figures)")
    t.contains(m.verdict, "beyond noise on at least one of them (see the Pareto front): one treatment is beaten (c by "
      .. "a: beaten on TTFT p90, no worse on max sustained throughput)")
    -- the same requests with a design effect of 25 (200 / 25 = 8 effective, fewer than the 50
    -- a percentile's interval needs): the noise is there, its size unknown: not beaten
    m = tr.model { spread_treatment("a", 0.100, 0.300, 25), spread_treatment("c", 0.110, 0.330, 25) }
    t.eq(#m.dominated, 0)
    t.contains(m.pareto_within_noise[1].why, "noise there cannot be told: its 200 requests carry about 8 independent "
      .. "ones (design effect 25)")
  end)

-- tests/data/queue_sim.py: a FIFO server of 20 slots (2.1 s service), vLLM detailed files at
-- 2-12 req/s, 60 s each; seeds 42, 43 and 46 are three runs of that one server
local function sim(seed)
  local d = t.tmpdir() .. "/s" .. seed
  t.data_py("queue_sim.py", d, "--rates", "2,4,6,8,10,12", "--slots", 20, "--seed", seed)
  return d
end

if t.have_numpy() then
  t.test("1: Pareto: three simulated runs of one server stay on the front together (A/A)", function()
    -- the same server three times (the simulator's configuration, seeds 42, 43, 46): no
    -- domination can be a finding. The common load is 8 req/s offered (s46 saturates at 10).
    -- By the figures s43 is ahead of both (E2E p90 there 2,387.0 against s42's 2,675.5 and
    -- s46's 2,440.2 ms, max sustained 9.553 against 9.309 and 7.495 req/s): on main the front
    -- was s43 alone, the others "beaten on End-to-end latency p90 ... by the figures, untested".
    -- s42's p90 rests on 480 requests of design effect 25.2, about 19 independent ones (its
    -- interval cannot be told); s46's and s43's intervals overlap
    local out = t.tmpdir()
    local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "s42=" .. sim(42), "--run", "s43=" .. sim(43),
      "--run", "s46=" .. sim(46), "--out", out, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local j = json.read(out .. "/treatments.json")
    t.eq(#j.dominated, 0)
    table.sort(j.front)
    t.eq(j.front, { "s42", "s43", "s46" })
    t.eq(#j.pareto_within_noise, 2)
    t.eq({ j.pareto_within_noise[1].label, j.pareto_within_noise[1].other }, { "s42", "s43" })
    t.contains(j.pareto_within_noise[1].why, "s42's noise there cannot be told: its 480 requests carry about 19 "
      .. "independent ones")
    t.eq({ j.pareto_within_noise[2].label, j.pareto_within_noise[2].other }, { "s46", "s43" })
    t.contains(j.pareto_within_noise[2].why, "overlap")
    t.lacks(j.verdict, "beaten")
  end)
else
  t.test("1: Pareto A/A of simulated runs (skipped: no numpy for queue_sim.py)", function() end)
end

t.test("2: the rank table's open orders say 'untested, and either may be higher', as the Verdict", function()
  -- x: saturated at 30 (25 < 28.5), max sustained 20; y: 10 and 15 offered and achieved, never
  -- saturated: ≥ 15, only a lower bound. x ranks above y by its figure, but y's limit may be
  -- anywhere above 15: untested, and either may be higher (on main: "not comparable with y:
  -- ..., so either may be higher", and the Verdict line "...: not comparable.")
  local x = t.treatment("x", { { 10, 10, 100 }, { 20, 20, 200 }, { 30, 25, 3000 } })
  local y = t.treatment("y", { { 10, 10, 100 }, { 15, 15, 150 } })
  local m = tr.model { x, y }
  local r1 = m.ranking[1]
  t.eq(r1.label, "x")
  t.eq(r1.vs_next_text, "untested against y, and either may be higher: its max sustained throughput, ≥ 15.000 req/s "
    .. "(never saturated), is only a lower bound")
  t.contains(m.verdict_line, ": untested, and either may be higher.")
  t.lacks(m.verdict_line, "not comparable")
  t.contains(m.verdict, "but untested against y, and either may be higher: ")
end)

t.test("3: treatment_ranking.csv says which places are in doubt (in_doubt column), as the Verdict, rank and JSON",
  function()
  -- testlib.ips_over: IPS2's stage 1 file says it was asked for 2.1 req/s where its requests
  -- came at about 4.1 (more than 10 % above plus the Poisson allowance: 3.70 by hand), so its
  -- throughput is in doubt, nothing settling it; IPS's place is not. (The input this test
  -- first used, IPS2c's counts against its requests, is settled by its requests since fixb39.)
  -- On main the CSV had no such column.
  local data = ROOT .. "/tests/data/fixd38"
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "IPS=" .. data .. "/IPS", "--run",
    "IPSover=" .. t.ips_over(data), "--slo", "ttft_p90_ms=200,error_rate_pct=2", "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  local caveat = "IPSover's own files disagree on figures this ranking reads (request throughput), with nothing to "
    .. "settle which is right"
  local md = t.read(out .. "/treatment_report.md")
  t.contains(md:match("%*%*Verdict:%*%* ([^\n]*)"), " Warning: " .. caveat .. ", so its place is in doubt (see the "
    .. "Ranking).")
  t.contains(md, "| 1= (in doubt) | IPSover | ")
  -- (then "; not shown to differ from IPS (...)" where IPSover is listed first: since fixc40
  -- the pace's slope runs through the successes only, and the two capacities tie at 3.520)
  t.ok(md:find("| In doubt: " .. caveat .. " |", 1, true) or md:find("| In doubt: " .. caveat .. "; ", 1, true), md)
  local doc = json.read(out .. "/treatments.json")
  t.eq(#doc.in_doubt, 1)
  t.eq({ doc.in_doubt[1].label, doc.in_doubt[1].keys }, { "IPSover", { "throughput_req_s" } })
  local rows = {}
  for l in t.read(out .. "/treatment_ranking.csv"):gmatch("([^\r\n]*)\r\n") do rows[#rows + 1] = l end
  t.ok(rows[1]:find(",at_common_load,in_doubt,interval_coverage$"), rows[1])
  local said = 0
  for i = 2, #rows do
    -- (in_doubt before the last column, interval_coverage)
    local row = rows[i]:gsub(",[%w_]*$", "")
    if row:find(",IPSover,", 1, true) then
      t.eq(row:sub(-#caveat - 2), '"' .. caveat .. '"', rows[i])
      said = said + 1
    else
      t.ok(row:find(",$"), rows[i])
    end
  end
  t.eq(said, 1)
end)

t.test("4: two treatments of one run read two ways: the warning says so, in compare.lua's words", function()
  -- one vLLM detailed run (testlib.latency_ladder: 40 requests at 2, 4, 6 req/s) and its
  -- benchmark reports (extract.lua --br 0.2), which carry no per-request times: the same
  -- figures, but one's throughput is the pace of its answers, the other's the drain-reduced
  -- rate (test_fixe38's pair). On main: "every figure of every stage is equal to the last
  -- digit" beside max sustained throughputs that differ
  local spread = t.spread(0.100, 0.200, 40)
  local dir = t.latency_ladder { { 2, spread }, { 4, spread }, { 6, spread } }
  local br = t.tmpdir() .. "/br"
  local r = proc.run { LLMDLUA, ROOT .. "/lua/extract.lua", dir, "--br", "0.2", "--out", br }
  t.ok(r.ok, r.stderr)
  local out = t.tmpdir()
  r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "x=" .. dir, "--run", "xbr=" .. br, "--out", out,
    "--quiet" }
  t.eq(r.code, 0, r.stderr)
  t.contains(r.stderr, "the files differ, but every figure their harness recorded at every load point is equal to the "
    .. "last digit: the same requests, saved twice, read two ways: x's throughput is the pace of its answers, from the "
    .. "per-request times its files hold, xbr's the drain-reduced rate")
  t.contains(r.stderr, "differ by that reading alone, not by any configuration): this compares a run with itself")
  t.lacks(r.stderr, "every figure of every stage")
  -- and the Verdict's caveat (main's, since fixe39) in the same terms, never "every figure equal"
  local verdict = t.read(out .. "/treatment_report.md"):match("%*%*Verdict:%*%* ([^\n]*)")
  t.contains(verdict, "Caveat: x and xbr hold the same results (in other files, read two ways): each a run compared "
    .. "with itself")
end)

t.test("5: one treatment kept up with every load, the other's saturation unknown or higher: no throughput winner",
  function()
    -- k: 10, 20 req/s offered and achieved: kept up everywhere, ≥ 20 (never saturated)
    local k = t.treatment("k", { { 10, 10, 100 }, { 20, 20, 120 } })
    -- u: its second point's achieved rate unknown: saturation unknown, no max sustained figure
    local u = t.treatment("u", { { 10, 10, 100 }, { 20, 20, 120 } })
    u.run.stages[2].metrics.values.throughput_req_s = nil
    local m = tr.model { k, u }
    t.eq(m.treatments[2].max_rps, nil)
    t.ok(m.treatments[2].saturation.unknown, "u's saturation is unknown")
    -- nothing ranked against k, nothing beaten (as compare.lua: "u's saturation is unknown,
    -- so its throughput may be what it was sent too; no winner")
    t.eq(m.ranking[2].rank, nil)
    t.contains(m.verdict, "Only k has a known max sustained throughput; nothing to rank it against.")
    t.eq(#m.dominated, 0)
    -- s: saturated at 30 (25 < 28.5) with max sustained 20 at a load k was never sent: k's ≥ 20
    -- is a bound, s's figure may be only what more sent to it brought: no winner either way
    local s = t.treatment("s", { { 10, 10, 100 }, { 20, 20, 120 }, { 30, 25, 3000 } })
    local k2 = t.treatment("k2", { { 10, 10, 100 }, { 15, 15, 110 } })
    m = tr.model { s, k2 }
    t.eq(m.ranking[1].label, "s")
    t.eq(m.ranking[2].rank, 1) -- (shared: "1=")
    t.ok(not m.ranking[1].proven and not m.ranking[1].order_certain, m.ranking[1].vs_next_text)
    t.ok(m.verdict:find("^No treatment is shown to be best"), m.verdict)
    t.eq(#m.dominated, 0)
  end)
