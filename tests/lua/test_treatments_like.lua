-- treatments.lua compares like with like as compare.lua does (llmd.decision.load_differences,
-- the one rule of both): a treatment whose client was capped on requests in flight at a load the
-- others measured uncapped, or whose loads lasted a third as long, is never ranked with them.
-- audit52 F1: c/short, capped at 16, ranked with uncapped ones (its TTFT p90 114 ms vs 257-401),
-- no cap named; c/short's 20 s loads against 60 s ones, no caveat.
local t = require "testlib"
local proc = require "llmd.proc"
local json = require "llmd.json"
local lfs = require "lfs"
local tr = require "llmd.treatments"

local SIM = t.root() .. "/tests/data/queue_sim.py"
local function sim(dir, seed, extra)
  local argv = { "/usr/bin/python3", SIM, dir, "--rates", "3,6", "--slots", "10", "--seed", tostring(seed),
    "--outtok", "50" }
  for _, a in ipairs(extra or {}) do argv[#argv + 1] = a end
  local r = proc.run(argv)
  t.eq(r.code, 0, r.stderr)
  return dir
end

-- the most requests in flight at once in a vLLM file (start_times + latencies, a sweep over
-- the sorted starts and ends; written here, not llmd.runmodel's)
local function in_flight(d)
  local ev = {}
  for i, s in ipairs(d.start_times) do
    ev[#ev + 1] = { s, 1 }
    ev[#ev + 1] = { s + d.latencies[i], -1 }
  end
  table.sort(ev, function(x, y) if x[1] ~= y[1] then return x[1] < y[1] end return x[2] < y[2] end)
  local n, most = 0, 0
  for _, e in ipairs(ev) do n = n + e[2]; most = math.max(most, n) end
  return most
end

-- dir's files again in out, each saying its client was capped (vllm bench serve
-- --max-concurrency C) at the least of the files' most requests in flight: a cap its sends
-- reached at every load. Returns out and C.
local function capped(dir, out)
  lfs.mkdir(out)
  local docs, cap = {}, math.huge
  for f in lfs.dir(dir) do
    if f:match("%.json$") then
      docs[f] = json.read(dir .. "/" .. f)
      cap = math.min(cap, in_flight(docs[f]))
    end
  end
  for f, x in pairs(docs) do
    x.max_concurrency = cap
    json.write(out .. "/" .. f, x)
  end
  return out, cap
end

local function report_of(argv)
  local out = t.tmpdir() .. "/o"
  local all = { t.root() .. "/llmdlua", t.root() .. "/lua/treatments.lua", "--slo", "ttft_p90_ms=500", "--out", out,
    "--quiet" }
  for _, a in ipairs(argv) do all[#all + 1] = a end
  local r = proc.run(all)
  t.eq(r.code, 0, r.stderr)
  return json.read(out .. "/treatments.json"), t.read(out .. "/treatment_report.md")
end

t.test("a treatment whose client was capped at a load the others sent uncapped is ranked apart, the cap named", function()
  local d = t.tmpdir()
  local a, b = sim(d .. "/a", 5201), sim(d .. "/b", 5202)
  local c, cap = capped(sim(d .. "/c0", 5203), d .. "/c")
  local m, md = report_of { "--run", "a=" .. a, "--run", "b=" .. b, "--run", "c=" .. c }
  -- (on main: one workload, a, b and c ranked together, no cap named)
  t.eq(#m.workloads, 2, json.encode(m.workloads))
  t.eq(m.workloads[1].treatments, { "a", "b" })
  t.eq(m.workloads[2].treatments, { "c" })
  t.contains(m.workloads[2].signature, ("client capped at %d requests in flight"):format(cap))
  t.contains(m.workloads[1].signature, "no client cap reached")
  t.contains(md, ("c vs a: client concurrency cap (requests in flight): 3/s: %d vs none reached; 6/s: %d vs none "
    .. "reached"):format(cap, cap))
  t.contains(md, "2 workloads (told apart by the requests sent and how they were sent)")
  -- compare.lua on a against c says the same of the same pair (one rule)
  local parent = t.tmpdir()
  local r = proc.run { t.root() .. "/llmdlua", t.root() .. "/lua/compare.lua", "--a", a, "--b", c, "--parent", parent,
    "--slo", "ttft_p90_ms=500", "--quiet" }
  t.eq(r.code, 0, r.stderr)
  t.contains(t.read(t.workspaces(parent)[1] .. "/comparison_report.md"), ("client concurrency cap (requests in flight): 3/s: none reached vs %d"):format(cap))
end)

t.test("a treatment whose loads lasted a third as long is ranked apart, the durations named", function()
  local d = t.tmpdir()
  -- (queue_sim.py's loads: --dur seconds each; 60 s for a and b, 20 s for c: 3x apart, beyond 2x)
  local a, b = sim(d .. "/a", 5211, { "--dur", "60" }), sim(d .. "/b", 5212, { "--dur", "60" })
  local c = sim(d .. "/c", 5213, { "--dur", "20" })
  local m, md = report_of { "--run", "a=" .. a, "--run", "b=" .. b, "--run", "c=" .. c }
  t.eq(#m.workloads, 2, json.encode(m.workloads))
  t.eq({ m.workloads[1].treatments, m.workloads[2].treatments }, { { "a", "b" }, { "c" } })
  t.contains(md, "c vs a: load duration: ")
  t.contains(m.workloads[2].signature, "20 s loads")
  -- (loads within 2x of each other stay one workload: a and b)
  local m2 = tr.model(tr.load { { label = "a", dirs = { a } }, { label = "b", dirs = { b } } })
  t.eq(m2.workloads and #m2.workloads or 1, 1)
end)
