-- Concurrency (closed-loop) ladders: the requests of a load point are a result of the run, not
-- the workload asked for (task truth55). A closed loop sends again as each answer ends, so over
-- the same 20 s a server 20 % faster is sent about 25 % more requests at every concurrency. Main
-- read those counts as "requests per load point" differing: the banner said "The same workload
-- (the same requests), on different load ladders" over one ladder (c = 4, 8, 12 in both), and
-- every Performance Results row was "not comparable: not like for like", so a B truly faster
-- at every load (tests/sim/truth55_ladders.py's crossing: 0.08 + 99 x 0.016 s a request against
-- 0.1 + 99 x 0.02 s) was never said to be faster anywhere.
-- Expected values: the truth of tests/sim/audit53_harness.py --concurrency (its truth.json:
-- each request's TPOT by numpy, written before any harness file), never llmdlua's figures.
local t = require "testlib"
local proc = require "llmd.proc"
local json = require "llmd.json"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local PY = "/usr/bin/python3"

local function serving(dir, seed, extra)
  local argv = { PY, ROOT .. "/tests/sim/audit53_harness.py", dir, "--concurrency", "--rates", "4,8,12", "--dur", "20",
    "--repeat", "2", "--seed", tostring(seed), "--harnesses", "ip,gl" }
  for _, x in ipairs(extra) do argv[#argv + 1] = x end
  local r = proc.run(argv)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  return json.read(dir .. "/truth.json")
end

-- the truth's mean TPOT (ms) over every completed request of every load point and repeat
local function tpot_mean_ms(truth)
  local s, n = 0, 0
  for _, p in ipairs(truth.points) do
    for _, x in ipairs(p.tpot_s) do s, n = s + x, n + 1 end
  end
  return s / n * 1000, n
end

t.test("closed-loop ladder: more requests from a faster server at the same concurrency are no other workload",
  function()
    local d = t.tmpdir()
    local ta = serving(d .. "/A", 11, {})
    local tb = serving(d .. "/B", 12, { "--slots", "14", "--ttft0", "0.08", "--tpot", "0.016" })
    -- the truth: B was sent more requests at each concurrency (by 10 % or more: it answers
    -- 20 % faster), over the same ladder
    for i, p in ipairs(ta.points) do
      t.eq(p.rate, tb.points[i].rate)
      t.ok(tb.points[i].n > 1.1 * p.n, ("point %d: %d vs %d requests"):format(i, p.n, tb.points[i].n))
    end
    local want_a, want_b = tpot_mean_ms(ta), tpot_mean_ms(tb)
    for _, h in ipairs { "ip", "gl" } do
      local parent = d .. "/out_" .. h
      local r = proc.run { LLMDLUA, ROOT .. "/lua/compare.lua", "--a", d .. "/A/" .. h, "--b", d .. "/B/" .. h,
        "--a-label", "A", "--b-label", "B", "--parent", parent, "--quiet" }
      t.eq(r.code, 0, r.stdout .. r.stderr)
      local ws = r.stdout:match("Workspace: ([^\n]+)")
      local m = json.read(ws .. "/comparison.json")
      local md = t.read(ws .. "/comparison_report.md")
      t.eq(m.workload_match.like_for_like, true, h)
      for _, x in ipairs(m.workload_match.differences) do t.ok(x.field ~= "requests", h .. ": " .. x.text) end
      t.ok(not md:find("different load ladders", 1, true), h)
      local row
      for _, x in ipairs(m.perf) do if x.key == "tpot_mean_ms" then row = x end end
      -- the figures are the truth's (every request kept in both harnesses' files)
      t.near(row.a, want_a, 0.01, h)
      t.near(row.b, want_b, 0.01, h)
      -- and B, 20 % faster by construction at every load, is named so
      t.eq(row.winner, "b", h .. ": " .. tostring(row.verdict_text) .. " / " .. tostring(row.evidence))
    end
  end)


t.test("closed-loop ladder: loads asked to last 60 s against 6 s stay another workload", function()
  -- the same server, concurrency 4, 8, 12, 16, each load 60 s in A and 6 s in B (the truth:
  -- audit53_harness.py --dur): the requests still differ by the loads' length, which the load
  -- duration compares (more than 2x apart), so the runs are not like for like
  local d = t.tmpdir()
  local function gen(dir, seed, dur)
    local r = proc.run { PY, ROOT .. "/tests/sim/audit53_harness.py", dir, "--concurrency", "--rates", "4,8,12,16",
      "--dur", dur, "--repeat", "2", "--seed", tostring(seed), "--harnesses", "ip" }
    t.eq(r.code, 0, r.stdout .. r.stderr)
  end
  gen(d .. "/L", 21, "60")
  gen(d .. "/S", 22, "6")
  local r = proc.run { LLMDLUA, ROOT .. "/lua/compare.lua", "--a", d .. "/L/ip", "--b", d .. "/S/ip", "--a-label", "long", "--b-label", "short", "--parent",
    d .. "/out", "--slo", "ttft_p90_ms=500", "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local m = json.read(r.stdout:match("Workspace: ([^\n]+)") .. "/comparison.json")
  t.eq(m.workload_match.like_for_like, false)
  t.eq(m.workload_match.differences[1].field, "load_duration")
  t.eq(m.verdict.kind, "not comparable")
end)
