-- A verification trial of treatments.lua (session 41): the bars at the common load drew one
-- server's two runs (queue_sim.py, 24 slots, seeds 12 and 14) 2x apart in TTFT p90 with no
-- whisker and no word, where no test compares them. A latency bar's whisker is now its noise
-- there, as the Pareto front weighs it (treatments.latency_noise); where a latency has no
-- interval (its requests too dependent), the chart is left out and says why.
local t = require "testlib"
local tr = require "llmd.treatments"
local proc = require "llmd.proc"
local ROOT, LLMDLUA = t.root()

t.test("1: an A/A pair whose latencies at the common load have no interval: no bars, and why", function()
  if not t.have_numpy() then return end
  -- README's rates and the trial's server: 24 slots, a request about 0.1 + 99 x 0.02 = 2.08 s,
  -- so about 11.5 req/s: every load sustained, the common load 10 req/s. There the queue
  -- forms (TTFT p90 559.6 against 285.9 ms, the latency table, by seed alone) and b's 600
  -- requests' TTFTs run in streaks (design effect 19.5, about 31 independent ones: too few
  -- for a p90's interval, llmd.loadpoints.percentile_ci). On main: drawn, 2x apart, bare.
  local d = t.tmpdir()
  for _, s in ipairs { { "b", "12" }, { "b2", "14" } } do
    t.data_py("queue_sim.py", d .. "/" .. s[1], "--rates", "2,3,4,5,6,8,10", "--slots", "24", "--seed", s[2])
  end
  local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "b=" .. d .. "/b", "--run",
    "b2=" .. d .. "/b2", "--out", d .. "/out", "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local md = t.read(d .. "/out/treatment_report.md")
  t.contains(md, "- At the common load, 10 req/s offered: not drawn. No interval of b's TTFT p90 (its 600 requests "
    .. "carry about 31 independent ones (design effect 19.5))")
  t.contains(md, "so the latency table alone gives the figures, untested.")
  t.ok(not md:find("charts/treatments_bars.svg", 1, true), "no bars drawn")
  -- the CDFs pool the loads every treatment sustained, each weighted equally, and say so (fixa42;
  -- tests/lua/test_treatments_cdf.lua)
  t.contains(md, "Every panel: the requests at 2/s, 3/s, 4/s, 5/s, 6/s, 8/s, 10/s offered pooled, each load weighted "
    .. "equally; loads left out: none.")
end)

t.test("2: bars whose latencies have intervals: whiskers from the requests, marked untested", function()
  -- two treatments of one load point (3.6 req/s), 201 requests each, TTFTs spread evenly
  -- over 0.12-0.14 s and 0.14-0.16 s, interleaved in send order (no neighbours alike): each
  -- p90 has an interval from its requests, so its whisker reaches below and above the bar.
  -- On main: no repeats and no interpolation, so lo = hi = the bar (no whisker).
  local list = {}
  for i = 1, 2 do
    local d = t.latency_ladder { { 3.6, t.interleave(t.spread(0.1 + 0.02 * i, 0.12 + 0.02 * i, 201)) } }
    list[i] = { label = "v" .. i, dirs = { d } }
  end
  list = tr.load(list)
  local bars
  for _, c in ipairs(tr.charts(tr.model(list), list)) do if c.name == "treatments_bars" then bars = c end end
  t.ok(bars.available, bars.reason)
  for k = 0, 1 do
    local cells = {}
    for x in bars.data:match("\n" .. k .. " ([^\n]+)"):gmatch("%S+") do cells[#cells + 1] = tonumber(x) end
    -- TTFT p90 (ms) and its whisker, then E2E p90's
    t.ok(cells[2] < cells[1] and cells[3] > cells[1], ("v%d TTFT whisker %g-%g around %g"):format(k + 1, cells[2],
      cells[3], cells[1]))
    t.ok(cells[5] < cells[4] and cells[6] > cells[4], ("v%d E2E whisker"):format(k + 1))
  end
  local notes = table.concat(bars.notes, "\n")
  t.contains(notes, "Untested: the bars are figures, not a test; latencies whose whiskers overlap are not shown to "
    .. "differ, and only the Verdict orders the treatments.")
end)
