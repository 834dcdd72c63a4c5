-- The Pareto front's "beaten on max sustained throughput ... shown by repeats" rested on a test of
-- the repeats at the two treatments' max sustained points even where those are two offered loads
-- (audit51b D2): a kept-up point's throughput is its sending rate, so 5 against 4 req/s is
-- "significant" by construction. Four treatments of ONE server (tests/data/queue_sim.py, 10 slots,
-- one seed each, 3 repeats a load, TTFT p90 <= 500 ms): main said "t3: beaten ... by t4: 4.788 req/s
-- against 3.929 req/s (shown by repeats, Welch on the log values, p = 5.4e-05)"; t4's figure its
-- 5 req/s point, t3's its 4 req/s point. The expectation needs no computation: every treatment is
-- the same server, so none may be beaten (an A/A set); the test also checks that the set does hold
-- max sustained points at two offered loads, the case it is about.
local t = require "testlib"
local proc = require "llmd.proc"
local json = require "llmd.json"

local _, LLMDLUA = t.root()

t.test("the Pareto front tests repeats only at one offered load; at two, the measured loads' rule decides", function()
  local d = t.tmpdir()
  local argv = { LLMDLUA, "treatments.lua" }
  for k = 1, 4 do
    local r = proc.run { "/usr/bin/python3", t.root() .. "/tests/data/queue_sim.py", d .. "/r" .. k, "--rates",
      "2,3,4,5,6", "--slots", "10", "--seed", tostring(7010 + k), "--repeat", "3" }
    t.eq(r.code, 0, r.stderr)
    argv[#argv + 1], argv[#argv + 2] = "--run", ("t%d=%s/r%d"):format(k, d, k)
  end
  for _, a in ipairs { "--slo", "ttft_p90_ms=500", "--out", d .. "/out", "--quiet" } do argv[#argv + 1] = a end
  local r = proc.run(argv)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local m = json.read(d .. "/out/treatments.json")
  local by = {}
  for _, x in ipairs(m.treatments) do by[x.label] = x.max_sustained_rps end
  -- (the case: max sustained points at two offered loads, 1 req/s apart, > 15 % apart)
  t.ok(by.t4 / by.t3 > 1.15, ("t4 %s against t3 %s req/s"):format(by.t4, by.t3))
  t.eq(#m.dominated, 0)
  t.eq(#m.front, 4)
  local md = t.read(d .. "/out/treatment_report.md")
  t.ok(not md:find("beaten on max sustained throughput", 1, true), md)
end)
