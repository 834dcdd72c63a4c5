-- The treatments Verdict (and its HTML) listed every treatment without repeats at the common
-- load once per treatment and again per latency: "x1 has no repeats measured there; x2 has no
-- repeats measured there; x1 has ..." (newuser54 F3). Said once: "neither" with two, "none"
-- with more, by name where only some have none. Expected sentences written by hand.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local LLMDLUA = t.root() .. "/llmdlua"

-- a ladder of 10 and 20 req/s, every request's TTFT s (one file a load point: no repeats)
local function ladder(s)
  return t.latency_ladder { { 10, t.spread(s, s, 100) }, { 20, t.spread(s, s, 100) } }
end

local function verdict(runs)
  local out = t.tmpdir() .. "/out"
  local argv = { LLMDLUA, "treatments.lua", "--out", out, "--quiet", "--slo", "ttft_p90_ms=500" }
  for _, r in ipairs(runs) do argv[#argv + 1] = "--run"; argv[#argv + 1] = r end
  local r = proc.run(argv)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  return json.read(out .. "/treatments.json").verdict, t.read(out .. "/treatment_report.html")
end

t.test("two treatments without repeats at the common load: 'neither has repeats measured there', once", function()
  local v, html = verdict { "x1=" .. ladder(0.040), "x2=" .. ladder(0.045) }
  local want = "Nor is one shown lower on TTFT p90 at the common load (20 req/s offered): neither has repeats "
    .. "measured there."
  t.ok(v:find(want, 1, true), v)
  t.ok(html:find(want, 1, true), html)
  t.ok(not v:find("has no repeats", 1, true), v)
end)

t.test("three treatments, none with repeats: 'none has'; two of three: named once", function()
  local v = verdict { "x1=" .. ladder(0.040), "x2=" .. ladder(0.045), "x3=" .. ladder(0.050) }
  t.ok(v:find("at the common load (20 req/s offered): none has repeats measured there.", 1, true), v)
  -- x2 repeated (two folders of one ladder, their TTFTs a little apart)
  v = verdict { "x1=" .. ladder(0.040), "x2=" .. ladder(0.045), "x2=" .. ladder(0.046), "x3=" .. ladder(0.050) }
  t.ok(v:find(": x1 and x3 have no repeats measured there.", 1, true), v)
  local _, n = v:gsub("repeats measured there", "")
  t.eq(n, 1, v)
end)
