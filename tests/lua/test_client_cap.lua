-- A client's cap on requests in flight (vllm bench serve --max-concurrency, inference-perf's
-- num_workers x worker_max_concurrency) that the sends reach holds requests in the client, and
-- the harness times a request from when the client lets it go: a capped run's TTFT leaves out a
-- wait an uncapped one's includes. audit51b C1: one server, B capped at 10, A not: main said
-- "B's TTFT p90 is 96 % lower than A's (p = 8.3e-04)" and never named the caps.
local t = require "testlib"
local proc = require "llmd.proc"
local json = require "llmd.json"
local lfs = require "lfs"
local lp = require "llmd.loadpoints"
local harness = require "llmd.harness"
local report = require "llmd.report"
local decision = require "llmd.decision"

t.test("client_cap: a cap the sends never reached is none; unknown or mixed stages are nil", function()
  t.eq(lp.client_cap { { client_cap = "none" } }, "none")
  t.eq(lp.client_cap { { client_cap = 10, pace = { max_in_flight = 7 } } }, "none")
  t.eq(lp.client_cap { { client_cap = 10, pace = { max_in_flight = 10 } } }, 10)
  -- (the requests in flight not known: whether the cap held is not known either)
  t.eq(lp.client_cap { { client_cap = 10 } }, nil)
  t.eq(lp.client_cap { { client_cap = "none" }, {} }, nil)
  t.eq(lp.client_cap { { client_cap = 10, pace = { max_in_flight = 10 } }, { client_cap = 12, pace = { max_in_flight = 12 } } },
    nil)
  t.eq(decision.caps_differ("none", 10), true)
  t.eq(decision.caps_differ(nil, 10), false)
  t.eq(decision.caps_differ(10, 10), false)
end)

-- the most requests in flight at once, from a file's start_times and latencies (s): a sweep over
-- the sorted starts and ends, an end at the same instant as a start first (written here, not
-- llmd.runmodel.max_in_flight)
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

t.test("runs whose clients are capped differently are not compared at those loads", function()
  local d = t.tmpdir()
  -- one server's files twice (tests/data/queue_sim.py, 10 slots), B's saying --max-concurrency 10
  local r = proc.run { "/usr/bin/python3", t.root() .. "/tests/data/queue_sim.py", d .. "/A", "--rates", "2,5",
    "--slots", "10", "--seed", "3002" }
  t.eq(r.code, 0, r.stderr)
  lfs.mkdir(d .. "/B")
  local most = {}
  for f in lfs.dir(d .. "/A") do
    if f:match("%.json$") then
      local x = json.read(d .. "/A/" .. f)
      t.eq(x.max_concurrency, json.null)
      most[("%g"):format(x.request_rate)] = in_flight(x)
      x.max_concurrency = 10
      json.write(d .. "/B/" .. f, x)
    end
  end
  -- (the case: the sends reach 10 in flight at 5 req/s; at 2 req/s they may not)
  t.ok(most["5"] >= 10, tostring(most["5"]))
  local function side(l) return { label = l, state = { label = l }, run = harness.extract(d .. "/" .. l, {}), kv = {} } end
  local A, B = side("A"), side("B")
  local m = report.build { a = A, b = B, generated = 0, slo = decision.parse_slo("ttft_p90_ms=500") }
  local diff
  for _, x in ipairs(m.workload_match.differences) do if x.field == "client_cap" then diff = x end end
  t.ok(diff, "a client_cap difference")
  t.contains(diff.text, "5/s: none reached vs 10")
  t.eq(diff.text:find("2/s: none reached vs 10", 1, true) ~= nil, most["2"] >= 10, diff.text)
  t.eq(m.capacity.evidence.verdict, "not comparable")
  -- (a workload difference: no matched load at all, the Summary says the workloads differ)
  t.eq(m.matched_point, nil)
  t.contains(m.verdict.text or m.verdict, "Not comparable: the workloads differ (client concurrency cap")
  -- no load where the caps differ is paired for a test
  local pairs_ = decision.paired_points(lp.points(A.run), lp.points(B.run))
  t.eq(#pairs_, most["2"] >= 10 and 0 or 1)
  -- a saved run model keeps each stage's cap, so analyze.lua reads the same (it lost it: the
  -- re-generated Verdict named no difference)
  local rm = require "llmd.runmodel"
  for _, x in ipairs { A, B } do
    local back = rm.from_plain(json.decode(json.encode(rm.to_plain(x.run))), "run_model.json")
    local p0, p1 = lp.points(x.run), lp.points(back)
    for i = 1, #p0 do t.eq(p1[i].client_cap, p0[i].client_cap, x.label .. " point " .. i) end
  end
end)
