-- Without an SLO, the order of the max sustained throughputs the Verdict states is carried by
-- the Summary and by every CSV row of that gap (task fixf40). Before: 10 slots saturated at
-- its lowest load against 20 slots, the Summary said only "No capacity can be inferred for
-- either run: ..." beside a Verdict "k20 sustains more load"; and comparison.csv's
-- max_sustained_rps_gap_low/high rows had no `order` where max_sustained_rps had b_higher.
local t = require "testlib"
local proc = require "llmd.proc"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local PY = "/usr/bin/python3"
local json = require "llmd.json"

if not proc.run({ PY, "-c", "import numpy" }).ok then
  t.test("max sustained order in the Summary (skipped: no numpy for queue_sim.py)", function() end)
  return
end

-- queue_sim.py's server: K slots of 2.1 s a request serve K / 2.1 req/s (by hand: 10 slots
-- 4.76 req/s, 20 slots 9.52), so 20 slots sustain more by construction
local function sim(name, slots, seed, rates)
  local dir = t.tmpdir() .. "/" .. name
  local r = proc.run { PY, ROOT .. "/tests/data/queue_sim.py", dir, "--rates", rates, "--slots", tostring(slots),
    "--seed", tostring(seed) }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  return dir
end

local function compare(a, b)
  local r = proc.run { LLMDLUA, ROOT .. "/lua/compare.lua", "--a", a, "--b", b, "--a-label", "k10", "--b-label",
    "k20", "--parent", t.tmpdir() .. "/out", "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ws = r.stdout:match("Workspace: ([^\n]+)")
  return json.read(ws .. "/comparison.json"), t.read(ws .. "/comparison_report.md"), t.read(ws .. "/comparison.csv")
end

local function summary_of(md)
  return md:match("\n## Evidence\n\n(.-)\n\n") or ""
end

-- (the order column, the 18th: delta_lo and delta_hi follow it since newuser48 F5)
local function order_of(csv, metric)
  local line = csv:match("\n" .. metric:gsub("_", "%%_") .. ",[^\n]*")
  return line and t.csv_row(csv, metric)[18]
end

local k20 -- (one 20-slot run for both tests)

t.test("10 slots saturated at its lowest load, no SLO: the Summary carries the Verdict's order", function()
  k20 = sim("k20", 20, 1001, "2,4,6,8,10,12")
  -- 10 slots from 6 req/s up: past its 4.76 req/s from the first load
  local cj, md = compare(sim("k10hi", 10, 5, "6,8,10"), k20)
  t.eq({ cj.verdict.measure, cj.verdict.higher }, { "max_sustained", "b" })
  local s = summary_of(md)
  t.ok(s:find("No capacity can be inferred for either run", 1, true), s)
  t.ok(s:find("As the Verdict says: " .. cj.verdict.text, 1, true), s)
end)

t.test("10 against 20 slots over one ladder, no SLO: the Summary and the gap rows carry the order", function()
  local cj, md, csv = compare(sim("k10", 10, 2001, "2,4,6,8,10,12"), k20)
  t.eq({ cj.verdict.measure, cj.verdict.higher }, { "max_sustained", "b" })
  t.ok(summary_of(md):find("As the Verdict says: k20 sustains more load", 1, true), summary_of(md))
  t.eq(order_of(csv, "max_sustained_rps"), "b_higher")
  t.eq(order_of(csv, "max_sustained_rps_gap_low"), "b_higher")
  t.eq(order_of(csv, "max_sustained_rps_gap_high"), "b_higher")
end)
