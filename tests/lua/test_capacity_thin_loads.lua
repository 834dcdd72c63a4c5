-- Low loads with too few requests for an interval, far inside the SLO, below loads that met it
-- for certain, are no possible failures (task fixn50, audit50 F1): adding them to a ladder
-- leaves the capacity order as it was (lp.capacity_noise).
local t = require "testlib"
local proc = require "llmd.proc"
local json = require "llmd.json"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local PY = "/usr/bin/python3"
local have_numpy = proc.run({ PY, "-c", "import numpy" }).code == 0

local function compare(a, b, slo)
  local parent = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, ROOT .. "/lua/compare.lua", "--a", a, "--b", b, "--a-label", "A", "--b-label", "B",
    "--slo", slo, "--parent", parent, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ws = r.stdout:match("Workspace: ([^\n]+)")
  return json.read(ws .. "/comparison.json"), t.read(ws .. "/comparison_report.md")
end

if not have_numpy then
  t.test("thin low loads (skipped: no numpy for queue_sim.py)", function() end)
else
  t.test("c=1 and c=2 far inside the SLO keep the order c=4, 8 and 16 give (audit50 F1)", function()
    -- the audit's k-a / k-b: 8 slots, TPOT 20 ms against 16 ms (B ~23 % more throughput at
    -- saturation), concurrency 1, 2, 4, 8, 16; k3: the same files without c=1 and c=2
    local d = t.tmpdir()
    for _, s in ipairs { { "a", "31", "0.02" }, { "b", "32", "0.016" } } do
      local r = proc.run { PY, ROOT .. "/tests/data/queue_sim.py", d .. "/k-" .. s[1], "--rates", "1,2,4,8,16",
        "--concurrency", "--slots", "8", "--seed", s[2], "--tpot", s[3] }
      t.eq(r.code, 0, r.stdout .. r.stderr)
      proc.run { "mkdir", "-p", d .. "/k3-" .. s[1] }
      local ls = proc.run { "ls", d .. "/k-" .. s[1] }
      for f in ls.stdout:gmatch("[^\n]+") do
        if not f:find("concurrency[12]%-") then proc.run { "cp", d .. "/k-" .. s[1] .. "/" .. f, d .. "/k3-" .. s[1] } end
      end
    end
    -- the case (python3 from the files): c=1 has 30 requests, every TTFT far under 500 ms
    local py = proc.run { PY, "-c", [[
import json, glob, sys
for f in glob.glob(sys.argv[1] + '/*concurrency1-*.json'):
    d = json.load(open(f)); print(d['completed'], max(d['ttfts']) * 1000)]], d .. "/k-a" }
    local n, most = py.stdout:match("(%d+) ([%d.]+)")
    t.eq(tonumber(n), 30, py.stdout .. py.stderr)
    t.ok(tonumber(most) < 150, most)
    local full, md = compare(d .. "/k-a", d .. "/k-b", "ttft_p90_ms=500")
    local three = compare(d .. "/k3-a", d .. "/k3-b", "ttft_p90_ms=500")
    t.eq(three.capacity.evidence.higher, "b")
    -- the same order and the same gap as without the low loads (main: "cannot say", A's range
    -- from 0.00 req/s, B - A -3.78 to +4.71 req/s)
    t.eq({ full.capacity.evidence.verdict, full.capacity.evidence.higher },
      { three.capacity.evidence.verdict, "b" })
    t.near(full.capacity.gap.lo_rps, three.capacity.gap.lo_rps, 1e-9)
    t.near(full.capacity.gap.hi_rps, three.capacity.gap.hi_rps, 1e-9)
    t.ok(full.capacity.a.noise.lo > 0, "A's range no longer from 0")
    -- c=1 and c=2 are no longer loads the order waits on
    for _, u in ipairs(full.capacity.a.noise.unclear) do t.ok(u.point > 2, json.encode(u)) end
    t.ok(md:find("**Verdict:** B sustains more load", 1, true), md:match("%*%*Verdict[^\n]*"))
  end)
end
