-- Task capa39: where two capacities at an SLO cannot be ordered, the Verdict says what would
-- settle it, from the evidence: at which loads of which run the pass or fail is unclear, and
-- why, with the remedy (repeats of that load, where its requests carry too few independent
-- ones or one run's interval straddles the SLO; more repeats, and how many, where the
-- repeats' interval does; not a longer load or finer steps, which in tests/sim/capa38_sim.py
-- ordered no more pairs).
-- (The interval itself is unchanged: tests/sim/capa39_deff.py shows that a run's own
-- design effect already understates how far its percentile varies from run to run near
-- capacity, and that taking the within-run trend out makes it smaller still.)
local t = require "testlib"
local proc = require "llmd.proc"
local json = require "llmd.json"
local lp = require "llmd.loadpoints"
local stats = require "llmd.stats"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local PY = "/usr/bin/python3"
local have_numpy = proc.run({ PY, "-c", "import numpy" }).ok

local SLO = { { key = "ttft_p90_ms", max = 900 } }

t.test("unclear_loads: repeats, or how many more repeats, from each point's own figures", function()
  -- one-run points: 1000 TTFTs of 1, 2, ..., 1000 ms, p90 900.1 ms against 900 ms
  local acc = stats.new()
  for k = 1, 1000 do acc:add(k / 1000) end
  local function one(deff)
    return { offered = 8, load_type = "rate", values = { ttft_p90_ms = 900.1 },
      per_request = { samples = { ttft = acc }, deff = { ttft = deff } } }
  end
  -- repeated points, their repeats' t-intervals by hand (t(0.975, 2) = 4.302653):
  -- {700, 900, 1300}: mean 966.667, sd sqrt((266.667^2 + 66.667^2 + 333.333^2) / 2) = 305.505,
  --   half 4.302653 x 305.505 / sqrt 3 = 758.92: 207.75 to 1725.59, across 900? no: 207.75 <= 900
  --   < 1725.59, yes. The fewest repeats whose half-width, sd as now, is below |966.667 - 900|
  --   = 66.667: t(0.975, r - 1) x 305.505 / sqrt r: r = 10 gives 2.262157 x 96.61 = 218.5,
  --   still wider: none up to 10.
  -- {1500, 1700, 2100} against 900... is not across (lo 1007.75 > 900): not listed.
  -- {400, 600, 1300} against 900: mean 766.667, sd sqrt((366.667^2 + 166.667^2 + 533.333^2) / 2)
  --   = 472.58, half 4.302653 x 272.84 = 1173.95: 0 (clipped) to 1940.6, across. |766.667 - 900|
  --   = 133.33: r = 10: 2.262157 x 472.58 / 3.16228 = 338.1, wider: none.
  -- {1000, 1100, 1300} against 900: mean 1133.33, sd 152.753, half 4.302653 x 88.19 = 379.46:
  --   753.87 to 1512.79, across. gap 233.33: r = 4: 3.182446 x 152.753 / 2 = 243.06, wider;
  --   r = 5: 2.776445 x 152.753 / 2.236068 = 189.67 < 233.33: 5 repeats.
  local function rep(xs, mean, sd, lo, hi)
    return { offered = 10, load_type = "rate", repeats = 3, values = { ttft_p90_ms = mean },
      ci = { ttft_p90_ms = { lo = lo, hi = hi, n = #xs, sd = sd, samples = xs } } }
  end
  local points = { one(1), one(25), rep({ 700, 900, 1300 }, 966.667, 305.505, 207.75, 1725.59),
    rep({ 1000, 1100, 1300 }, 1133.333, 152.753, 753.87, 1512.79) }
  local out = lp.unclear_loads(points, SLO, { { point = 1, key = "ttft_p90_ms", why = "straddles" },
    { point = 2, key = "ttft_p90_ms", why = "few" } })
  t.eq(#out, 4)
  -- point 1: deff 1, 1000 effective: its interval (numpy, as test_capa38: the order
  -- statistics at ranks 881 and 919, 881 to 919 ms) straddles 900: repeats
  t.eq(out[1].remedy, "repeats")
  t.near(out[1].lo, 881, 1e-9)
  t.near(out[1].hi, 919, 1e-9)
  -- point 2: deff 25, 1000 / 25 = 40 effective of the 50 needed: repeats, too few
  t.eq({ out[2].remedy, out[2].few, out[2].n, out[2].deff }, { "repeats", true, 1000, 25 })
  t.eq(out[1].few, nil)
  t.eq({ out[3].remedy, out[3].repeats, out[3].need }, { "more repeats", 3, nil })
  t.eq({ out[4].remedy, out[4].repeats, out[4].need }, { "more repeats", 3, 5 })
  -- a repeated point whose interval is on one side is not listed
  t.eq(#lp.unclear_loads({ rep({ 1500, 1700, 2100 }, 1766.67, 305.505, 1007.75, 2525.59) }, SLO, nil), 0)
end)

if not have_numpy then
  t.test("the Verdict's advice on queue_sim.py runs (skipped: no numpy for queue_sim.py)", function() end)
  return
end

local made = {}
local function sim(slots, seed, repeat_)
  local dir = t.tmpdir() .. ("/k%d_s%d_r%d"):format(slots, seed, repeat_ or 1)
  if made[dir] then return dir end
  local r = proc.run { PY, ROOT .. "/tests/data/queue_sim.py", dir, "--rates", "2,4,6,8,10,12", "--slots",
    tostring(slots), "--seed", tostring(seed), "--repeat", tostring(repeat_ or 1) }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  made[dir] = true
  return dir
end

local function compare(a, b, slo)
  local parent = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, ROOT .. "/lua/compare.lua", "--a", a, "--b", b, "--a-label", "A", "--b-label", "B",
    "--slo", slo, "--parent", parent, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ws = r.stdout:match("Workspace: ([^\n]+)")
  return json.read(ws .. "/comparison.json"), t.read(ws .. "/comparison_report.md")
end

-- Does the Verdict's advice name each load the run's evidence left unclear (comparison.json:
-- capacity.<side>.settle, the same list as noise.unclear for one-run points), its lowest two
-- a run by name and the rest counted? How many are listed.
local function names_each(cj, what)
  local text = cj.verdict.settle or ""
  local n = 0
  for _, side in ipairs { "a", "b" } do
    local list = cj.capacity[side].settle or {}
    for k, e in ipairs(list) do
      n = n + 1
      local at = ("%s at %g req/s offered: "):format(side:upper(), e.offered)
      t.eq(text:find(at, 1, true) ~= nil, k <= 2, what .. ": " .. at .. " in " .. text)
    end
    if #list > 2 then
      t.ok(text:find(("(and %d higher load"):format(#list - 2), 1, true), what .. ": " .. text)
    end
  end
  return n
end

t.test("20 slots against 24 (+20 %, 9.52 against 11.43 req/s), one run a load: unordered, and what would settle it",
  function()
  -- queue_sim's first A/B pair of tests/sim/capa38_sim.py (seeds 1001 and 2001): B has the
  -- higher capacity by construction (24 / 2.1 s against 20 / 2.1 s), which the 2 req/s steps
  -- and one run a load cannot show; on main the Verdict said "either may be higher" and no more
  local cj, md = compare(sim(20, 1001), sim(24, 2001), "ttft_p90_ms=500")
  t.eq({ cj.verdict.kind, cj.verdict.higher }, { "cannot say", nil })
  t.ok(cj.verdict.settle and cj.verdict.settle:find("^To settle it: "), tostring(cj.verdict.settle))
  t.ok(md:find(cj.verdict.settle, 1, true), "the report's Verdict carries it")
  -- the unclear loads are the ones capacity_noise left open
  local unclear = 0
  for _, side in ipairs { "a", "b" } do unclear = unclear + #(cj.capacity[side].noise.unclear or {}) end
  t.eq(names_each(cj, "20 vs 24"), unclear)
  t.ok(unclear > 0, "some load is unclear")
  -- A's 10 req/s carries too few independent requests (its 600 requests in send order: a
  -- design effect about 60; the capacity_noise why says so): repeats, and why
  t.ok(cj.verdict.settle:find("A at 10 req/s offered: repeats of that load (its 600 requests carry about ", 1, true),
    cj.verdict.settle)
  t.ok(cj.verdict.settle:find("; not a longer load alone: near capacity the queue's swings last as long as the load "
    .. "does.", 1, true), cj.verdict.settle)
  -- no finer load steps: in tests/sim/capa38_sim.py they ordered fewer such pairs, not more
  t.ok(not cj.verdict.settle:find("loads between", 1, true), cj.verdict.settle)
end)

t.test("20 slots against 10 (half the capacity): ordered, no advice", function()
  local cj, md = compare(sim(20, 1001), sim(10, 2001), "ttft_p90_ms=500")
  t.eq({ cj.verdict.higher, cj.verdict.settle }, { "a", nil })
  t.ok(not md:find("To settle it", 1, true), md:sub(1, 1500))
end)

t.test("3 repeats a load, 20 slots against 24: the repeats' intervals that straddle the SLO, and how many would do",
  function()
  local cj = compare(sim(20, 1, 3), sim(24, 2, 3), "ttft_p90_ms=500")
  t.eq(cj.verdict.kind, "no clear difference")
  t.ok(names_each(cj, "repeats") > 0, "some load is unclear")
  -- A (20 slots) at 8 req/s: its repeats' TTFT p90 563.5 ms mean, 360.9 to 700.1 (python3 on
  -- the files: numpy.percentile(ttfts, 90) of each repeat), too close to 500 ms for 10 repeats
  -- with their spread (sd 179: t(0.975, 9) x 179 / sqrt 10 = 128 > 63.5)
  t.ok(cj.verdict.settle:find("A at 8 req/s offered: TTFT p90's mean over 3 repeats, 563.5 ms, lies too close to the "
    .. "500.0 ms limit for 10 repeats to clear it", 1, true), cj.verdict.settle)
end)

t.test("analyze.lua gives the saved workspace the same advice as compare.lua", function()
  -- (its run model keeps each stage's intervals, not the samples: a load with too few
  -- effective requests keeps its requests and design effect, so it still reads "its 600
  -- requests carry about ...", not "per-request data")
  local parent = t.tmpdir() .. "/an"
  local r = proc.run { LLMDLUA, ROOT .. "/lua/compare.lua", "--a", sim(20, 1001), "--b", sim(24, 2001), "--a-label", "A",
    "--b-label", "B", "--slo", "ttft_p90_ms=500", "--parent", parent, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ws = r.stdout:match("Workspace: ([^\n]+)")
  local before = json.read(ws .. "/comparison.json").verdict.settle
  r = proc.run { LLMDLUA, ROOT .. "/lua/analyze.lua", ws, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(before and before:find("requests carry about", 1, true), tostring(before))
  t.eq(json.read(ws .. "/comparison.json").verdict.settle, before)
end)
