-- The CDF chart across treatments (treatments_cdf, llmd.treatments.cdf_chart) compares like
-- with like, as compare.lua's two-run chart does (llmd.charts.latency_cdf): each panel pools
-- only the loads every treatment drawn there measured and none of them saturated, each load
-- weighted equally; a treatment or a panel without such a load is left out with why.
-- Before (fixa42, found by verify41) each curve pooled every request of its run, saturated
-- loads included, so two runs of one server drew a tail gap the tables call not comparable.
-- Expected values: tests/data/cdf_mix_ref.py (python3/numpy from the per-request file) or
-- hand arithmetic, written beside each.
local t = require "testlib"
local tr = require "llmd.treatments"
local rm = require "llmd.runmodel"
local ipsynth = require "ipsynth"
local proc = require "llmd.proc"
local lfs = require "lfs"

-- The rows of a CDF chart's data: { [label] = { [percentile] = {q, ttft, tpot, itl, e2e} } }
-- (NaN, no such latency drawn: false).
local function rows_of(data)
  local out, cur = {}, nil
  for line in data:gmatch("[^\n]+") do
    local name = line:match("^# (.*)$")
    if name then
      if not name:find("^percentile ") then cur = name; out[name] = {} end
    else
      local f = {}
      for v in line:gmatch("%S+") do f[#f + 1] = tonumber(v) or false end
      out[cur][f[1]] = f
    end
  end
  return out
end

local function var(c, name)
  for _, v in ipairs(c.vars) do if v[1] == name then return v[2] end end
end

-- An A/A pair: one server's two runs at 2, 4 and 12 req/s (100, 100 and 120 requests),
-- alike at 2 and 4 req/s (no queue: request k answers in 0.05 + 0.001 x (37 k mod 100) s,
-- 0.1 s more at 4 req/s); at 12 req/s x kept up (the same spread) and y queued (one request
-- at a time, 0.1 s each: 10 req/s at most, saturated), its last request waiting 2 s. Pooled
-- over every load (main), y's E2E p99 read its queue, x's its spread.
local function spread(k) return 0.05 + 0.001 * ((k * 37) % 100) end
local function aa_pair(d)
  local low = { { rate = 2, n = 100, latency = spread },
    { rate = 4, n = 100, latency = function(k) return 0.1 + spread(k) end } }
  local function with(third)
    return { low[1], low[2], third }
  end
  local x = ipsynth.run(d .. "/x", with { rate = 12, n = 120, latency = spread }, { per_request = true })
  local y = ipsynth.run(d .. "/y", with { rate = 12, n = 120, latency = ipsynth.queue(0.1) }, { per_request = true })
  return x, y
end

t.test("an A/A pair, one load saturated in one run: the CDF pools only the loads both sustained", function()
  if not t.have_numpy() then return end
  local d = t.tmpdir()
  local x, y = aa_pair(d)
  local list = tr.load { { label = "x", dirs = { x } }, { label = "y", dirs = { y } } }
  local m = tr.model(list)
  local c
  for _, ch in ipairs(tr.charts(m, list)) do if ch.name == "treatments_cdf" then c = ch end end
  t.ok(c.available, c.reason)
  -- the loads, in the title and each panel's label; what was left out and why
  t.eq(c.title, "Per-request latency distributions (CDF) at 2/s, 4/s offered, loads every treatment sustained")
  t.eq(var(c, "panel_label")[4], "end-to-end latency (ms) at 2/s, 4/s")
  t.eq(c.notes[1], "Every panel: the requests at 2/s, 4/s offered pooled, each load weighted equally; loads left "
    .. "out: 12/s (saturated in y).")
  t.contains(table.concat(c.notes, "\n"), "Untested: the curves are figures, not a test")
  t.eq(var(c, "has"), { 1, 1 })
  local rows = rows_of(c.data)
  -- python3/numpy from the per-request file (cdf_mix_ref.py): each stage's linear percentiles
  -- on the grid, mixed with equal weights, and the two stages' requests pooled
  for _, who in ipairs { { "x", x }, { "y", y } } do
    local ref = t.data_json("cdf_mix_ref.py", who[2] .. "/per_request_lifecycle_metrics.json", "100,100,120", "0,1",
      "25,50,90,99,100")
    for _, q in ipairs { 25, 50, 90, 99, 100 } do
      local got = rows[who[1]][q][5]
      t.near(got, ref.grid[tostring(q)], 0.01, ("%s E2E p%g, the mix of the grids"):format(who[1], q))
      -- (the grid interpolates between percentiles: within half the requests' 1 ms spacing)
      t.near(got, ref.pooled[tostring(q)], 0.6, ("%s E2E p%g, the requests pooled"):format(who[1], q))
    end
  end
  -- so the two runs of one server draw one curve (on main: y's E2E p99 was its queue's,
  -- seconds, against x's 0.2 s)
  for q, r in pairs(rows.x) do
    for k = 2, 5 do t.near(rows.y[q][k], r[k], 1e-9, ("p%g column %d"):format(q, k)) end
  end
  t.ok(rows.y[100][5] < 260, "y's slowest drawn request is not its queue's: " .. rows.y[100][5])
end)

-- Synthetic treatments (as compare.lua's CDF test, tests/lua/test_charts.lua): per-stage grids
-- linear in q, 100 requests a stage unless said.
local function grid(f)
  local g = {}
  for _, q in ipairs(rm.CDF_GRID) do g[#g + 1] = { q, f(q) } end
  return g
end
local function treatment(label, points, sat_point)
  -- points: { {offered, {stage = {kinds = {ttft_ms = f, ...}, count = n}, ...}}, ... }
  local stages, pts, idx = {}, {}, 0
  for i, p in ipairs(points) do
    local ids = {}
    for _, st in ipairs(p[2]) do
      local cdf, count = {}, {}
      for k, f in pairs(st.kinds) do cdf[k], count[k] = grid(f), st.count or 100 end
      stages[#stages + 1] = { index = idx, rate = p[1], cdf = cdf, cdf_count = count, metrics = { values = {} } }
      ids[#ids + 1] = idx
      idx = idx + 1
    end
    pts[i] = { index = i, offered = p[1], load_type = "rate", stages = ids, repeats = #ids, values = {} }
  end
  return { label = label, points = pts, saturation = { point = sat_point } }, { label = label, run = { stages = stages } }
end
local function new_chart(title) return { title = title, vars = {}, notes = {}, available = false } end

t.test("a treatment without a comparable load, and a panel with none, are left out with why", function()
  local function u(lo) return function(q) return lo + q end end -- U(lo, lo + 100)
  -- P: 1, 2, 3 req/s, saturated at 3; TTFT and E2E everywhere
  local P, lP = treatment("P", { { 1, { { kinds = { ttft_ms = u(10), e2e_ms = u(100) } } } },
    { 2, { { kinds = { ttft_ms = u(10), e2e_ms = u(200) } } } },
    { 3, { { kinds = { ttft_ms = u(5000), e2e_ms = u(9000) } } } } }, 3)
  -- Q: never saturated; TTFT only at 3 req/s; at 2 req/s two repeats, 300 and 100 requests
  local Q, lQ = treatment("Q", { { 1, { { kinds = { e2e_ms = u(100) } } } },
    { 2, { { kinds = { e2e_ms = u(200) }, count = 300 }, { kinds = { e2e_ms = u(300) }, count = 100 } } },
    { 3, { { kinds = { ttft_ms = u(10), e2e_ms = u(400) } } } } }, nil)
  -- R: 3 req/s alone, saturated there
  local R, lR = treatment("R", { { 3, { { kinds = { ttft_ms = u(8000), e2e_ms = u(9000) } } } } }, 1)
  local c = tr.cdf_chart({ P, Q, R }, { lP, lQ, lR }, new_chart)
  t.ok(c.available, c.reason)
  -- E2E: P and Q share 1 and 2 req/s (R only 3 req/s, saturated); TTFT: P sustained 1 and 2,
  -- Q has it at 3 alone, R saturated there: no load two share, so no panel
  t.eq(var(c, "panel_col"), { 5 })
  t.eq(var(c, "panel_label"), { "end-to-end latency (ms) at 1/s, 2/s" })
  t.eq(c.title, "Per-request latency distributions (CDF) at 1/s, 2/s offered, loads every treatment drawn sustained")
  t.eq(var(c, "has"), { 1, 1, 0 })
  local notes = table.concat(c.notes, "\n")
  t.contains(notes, "End-to-end latency: the requests at 1/s, 2/s offered pooled, each load weighted equally (a "
    .. "load's repeats by their request counts); loads left out: 3/s (saturated in P).")
  t.contains(notes, "End-to-end latency: not drawn: R (not measured at 1/s, 2/s).")
  t.contains(notes, "TTFT is not drawn: no load that two treatments both measured and sustained with its per-request "
    .. "data: P (sustained 1/s, 2/s; saturated at 3/s), Q (no per-request data of it at 1/s, 2/s; sustained 3/s), "
    .. "R (saturated at 3/s).")
  -- by hand: P is U(100, 200) and U(200, 300) weighted equally, U(100, 300): p25 150, p50 200,
  -- p90 280. Q is U(100, 200) at 1/2, and at 2 req/s its repeats by their counts, U(200, 300)
  -- at 3/4 and U(300, 400) at 1/4 of its half: 0.5 by 200, 0.875 by 300, p90 = 300 + 100 x
  -- (0.9 - 0.875) / 0.125 = 320; p50 200, p25 150
  local rows = rows_of(c.data)
  t.near(rows.P[90][5], 280, 0.01, "P E2E p90")
  t.near(rows.P[25][5], 150, 0.01, "P E2E p25")
  t.near(rows.Q[90][5], 320, 0.01, "Q E2E p90")
  t.near(rows.Q[50][5], 200, 0.01, "Q E2E p50")
  t.eq(rows.R[90], nil, "R drawn nowhere")
  t.eq(rows.P[90][2], false, "no TTFT column drawn")
  -- every panel without a comparable load: no chart, and why
  c = tr.cdf_chart({ P, R }, { lP, lR }, new_chart)
  t.eq(c.available, false)
  t.ok(c.reason:find("^No latency can be drawn at a load the treatments sustained alike: TTFT is not drawn: no load "
    .. "that two treatments both measured and sustained with its per%-request data: P %(sustained 1/s, 2/s; "
    .. "saturated at 3/s%), R %(saturated at 3/s%)%."), c.reason)
end)

-- fixh44: a load a treatment answered short, its failed requests in bursts making up the rest,
-- was pooled as sustained (only "saturated" was left out), where the tests leave it out
-- (llmd.decision.point_unsustained): the latencies there are those of the requests that
-- outlasted the queue. Now the same rule picks the loads.
t.test("a load a treatment answered short with failures in bursts is left out of the CDF, as the tests do", function()
  local function u(lo) return function(q) return lo + q end end -- U(lo, lo + 100)
  local function pq()
    local P, lP = treatment("P", { { 1, { { kinds = { e2e_ms = u(100) } } } }, { 2, { { kinds = { e2e_ms = u(200) } } } },
      { 3, { { kinds = { e2e_ms = u(5000) } } } } })
    local Q, lQ = treatment("Q", { { 1, { { kinds = { e2e_ms = u(100) } } } }, { 2, { { kinds = { e2e_ms = u(200) } } } },
      { 3, { { kinds = { e2e_ms = u(300) } } } } })
    -- P answered 3/s short (never saturated), its failures there in bursts (design effect 4
    -- of the failure indicator in send order, above decision.BURST_DEFF 2); stage 2 is 3/s's
    P.saturation = { none = true, answered_short = { 3 } }
    lP.run.stages[3].metrics.sample_deff = { failed = 4 }
    return P, Q, lP, lQ
  end
  local P, Q, lP, lQ = pq()
  local c = tr.cdf_chart({ P, Q }, { lP, lQ }, new_chart)
  t.ok(c.available, c.reason)
  t.eq(var(c, "panel_label"), { "end-to-end latency (ms) at 1/s, 2/s" })
  t.contains(table.concat(c.notes, "\n"), "loads left out: 3/s (answered short, failed requests in bursts making up "
    .. "the rest in P).")
  -- by hand: U(100, 200) and U(200, 300) weighted equally, U(100, 300): p90 280 for both (on
  -- main 3/s too, a third each: p90 at q = 70 of 3/s's grid, P 5070, Q 370)
  local rows = rows_of(c.data)
  t.near(rows.P[90][5], 280, 0.01, "P E2E p90")
  t.near(rows.Q[90][5], 280, 0.01, "Q E2E p90")
  -- failures one at a time there (design effect 1): kept, as the tests keep it: P 5070, Q 370
  P, Q, lP, lQ = pq()
  lP.run.stages[3].metrics.sample_deff = { failed = 1 }
  c = tr.cdf_chart({ P, Q }, { lP, lQ }, new_chart)
  rows = rows_of(c.data)
  t.eq(var(c, "panel_label"), { "end-to-end latency (ms) at 1/s, 2/s, 3/s" })
  t.near(rows.P[90][5], 5070, 0.01, "P E2E p90, 3/s kept")
  t.near(rows.Q[90][5], 370, 0.01, "Q E2E p90, 3/s kept")
end)

t.test("treatments on different GPU counts: the CDF's loads are total loads, and its caption says so", function()
  -- newuser43: with --gpus s10=1,s20=2 the CDF pools equal TOTAL loads, so s20 serves each at
  -- half the load per GPU; the latency chart beside it said how it reads the GPUs, this one
  -- nothing (on main: no note naming a GPU)
  local function u(lo) return function(q) return lo + q end end
  local function pair()
    local P, lP = treatment("P", { { 1, { { kinds = { e2e_ms = u(100) } } } }, { 2, { { kinds = { e2e_ms = u(200) } } } } })
    local Q, lQ = treatment("Q", { { 1, { { kinds = { e2e_ms = u(100) } } } }, { 2, { { kinds = { e2e_ms = u(200) } } } } })
    return P, Q, lP, lQ
  end
  local P, Q, lP, lQ = pair()
  P.gpus, Q.gpus = 1, 2
  local c = tr.cdf_chart({ P, Q }, { lP, lQ }, new_chart)
  t.ok(c.available, c.reason)
  local note = "At equal total loads, not per GPU: the GPU counts differ (P 1 GPU, Q 2 GPUs), so the one with more "
    .. "hardware serves each load at a lighter load per GPU, and its curves are not its latency at the same load per "
    .. "GPU (the latency chart per GPU compares that)."
  t.contains(table.concat(c.notes, "\n"), note)
  -- a count unknown: the latency chart is on totals, and says how to have it per GPU
  P, Q, lP, lQ = pair()
  P.gpus = 1
  c = tr.cdf_chart({ P, Q }, { lP, lQ }, new_chart)
  t.contains(table.concat(c.notes, "\n"), "At equal total loads, not per GPU: the GPU counts differ or are not all "
    .. "known (P 1 GPU, Q unknown), so the one with more hardware serves each load at a lighter load per GPU, and its "
    .. "curves are not its latency at the same load per GPU (the latency chart per GPU compares that, given --gpus "
    .. "LABEL=N).")
  -- the same counts, or none: no such note
  for _, g in ipairs { { 2, 2 }, {} } do
    P, Q, lP, lQ = pair()
    P.gpus, Q.gpus = g[1], g[2]
    c = tr.cdf_chart({ P, Q }, { lP, lQ }, new_chart)
    t.ok(c.available, c.reason)
    t.eq(table.concat(c.notes, "\n"):find("GPU", 1, true), nil, table.concat(c.notes, "\n"))
  end
end)

t.test("the CDF across treatments drawn in a browser: its loads and what was left out on its page", function()
  if not (t.have_numpy() and require("llmd.charts").gnuplot()) then
    error("gnuplot and numpy are needed (scripts/install-deps.sh test)")
  end
  local chrome = proc.which("chromium-headless-shell") or proc.which("chromium")
  t.ok(chrome, "chromium-headless-shell is installed (scripts/install-deps.sh test)")
  local d = t.tmpdir()
  local x, y = aa_pair(d)
  local list = tr.load { { label = "x", dirs = { x } }, { label = "y", dirs = { y } } }
  local out = d .. "/out"
  tr.write_outputs(out, list, {})
  local svg = t.read(out .. "/charts/treatments_cdf.svg")
  t.ok(svg:find("end-to-end latency (ms) at 2/s, 4/s", 1, true), "the panel's loads in the SVG")
  local pdf = d .. "/report.pdf"
  local r = proc.run({ chrome, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--user-data-dir=" .. d .. "/profile", "--no-pdf-header-footer", "--print-to-pdf=" .. pdf,
    "file://" .. out .. "/treatment_report.html" }, { timeout = 120 })
  t.ok(r.ok and (lfs.attributes(pdf, "size") or 0) > 0, "chromium printed the page: " .. tostring(r.stderr))
  local txt = proc.run({ "pdftotext", "-enc", "UTF-8", pdf, "-" }, { timeout = 60 })
  t.ok(txt.ok, txt.stderr)
  -- the chart's page: its title (the SVG's text), a panel's loads and the note under it
  local page
  for p in (txt.stdout .. "\f"):gmatch("(.-)\f") do
    p = p:gsub("%s+", " ")
    if p:find("Per-request latency distributions (CDF) at 2/s, 4/s offered", 1, true) then page = p end
  end
  t.ok(page, "the CDF chart is rendered with its loads in its title")
  t.contains(page, "end-to-end latency (ms) at 2/s, 4/s")
  t.contains(page, "loads left out: 12/s (saturated in y).")
end)
