-- The answers' pace (llmd.runmodel.pace) is read off the requests that succeeded: a failed
-- request is no answer served, and vLLM records one that never reached the server with
-- latency 0 (audit40 #2: r20c's crashed repeat, 416 of 720 failed, read as kept up).
local t = require "testlib"
local rm = require "llmd.runmodel"

-- 40 requests sent one a second (start k, k = 0..39); the first 20 succeed with latencies
-- growing by 0.5 s a request (a queue: finish = 1 + 1.5 k, an exact line of slope 1.5), the
-- last 20 fail at once (latency 0, as vLLM records a refused connection)
local function crashed()
  local g = rm.pace_accumulators()
  for k = 0, 39 do
    if k < 20 then
      local lat = 1 + 0.5 * k
      g.add(k, k + lat, k + lat, lat, k, lat)
    else
      g.add(k, k, false, 0, false, false)
    end
  end
  return g
end

t.test("pace: the slope runs through the successes, not the failures recorded with latency 0", function()
  local p = rm.pace_of(crashed())
  -- by hand and /usr/bin/python3 + numpy: sends over their middle 80 %, numpy's p10 and p90
  -- of 0..39 are 3.9 and 35.1: 39 x 0.8 / 31.2 = 1.0 req/s. numpy.polyfit over the 20
  -- successes gives 1.5 (the old fit over all 40, 0.8466228893058159, below 1, held the
  -- answers to the sends: 1.0 req/s, read as kept up); answers 1.0 / 1.5 = 2/3 req/s, the
  -- successes 20/40 of that, 1/3 req/s; the points lie on the line: se 0, slope_lo 1.5
  t.eq({ p.sends, p.answered, p.succeeded }, { 40, 40, 20 })
  t.near(p.send_rps, 1.0, 1e-12)
  t.near(p.slope, 1.5, 1e-9)
  t.near(p.slope_lo, 1.5, 1e-6)
  t.eq(p.slope_of, "successes")
  t.near(p.answer_rps, 2 / 3, 1e-9)
  t.near(p.success_rps, 1 / 3, 1e-9)
end)

t.test("pace: fewer than three successes leave no line through them: every answered request's", function()
  local g = rm.pace_accumulators()
  -- 10 requests one a second, latency 2 s each, the first two succeed: the line through all
  -- 10 (finish = start + 2 for the 2, start for the 8) has slope 0.8060606060606058 by
  -- numpy.polyfit (below 1: answers held to the sends,
  -- 9 x 0.8 / (8.1 - 0.9) = 1.0 req/s), successes 2/10 of that
  for k = 0, 9 do
    if k < 2 then g.add(k, k + 2, k + 2, 2, k, 2) else g.add(k, k, false, 0, false, false) end
  end
  local p = rm.pace_of(g)
  t.eq(p.slope_of, "answered")
  t.near(p.slope, 0.8060606060606058, 1e-9)
  t.near(p.answer_rps, 1.0, 1e-12)
  t.near(p.success_rps, 0.2, 1e-12)
end)

t.test("pace: failed requests without the successes' starts and latencies is misuse, raised", function()
  local g = crashed()
  local ok, err = pcall(rm.pace, g.starts, g.ends, g.oks, g.lats)
  t.ok(not ok)
  t.ok(tostring(err):find("successes' starts and latencies", 1, true), tostring(err))
end)

t.test("analyze.lua on a run model whose slopes ran through failed requests says so and reads them again", function()
  if not t.have_numpy() then return end
  local proc, json = require "llmd.proc", require "llmd.json"
  local d = t.tmpdir()
  -- queue_sim.py --fail 0.2: a fifth of the requests fail at once (HTTP 503, latency 0)
  local function sim(name, seed)
    local r = proc.run { t.PY, t.root() .. "/tests/data/queue_sim.py", d .. "/" .. name, "--slots", "20",
      "--rates", "4,8", "--dur", "20", "--fail", "0.2", "--seed", tostring(seed) }
    t.eq(r.code, 0, r.stderr)
    return d .. "/" .. name
  end
  local llmdlua = t.root() .. "/llmdlua"
  local r = proc.run { llmdlua, t.root() .. "/lua/compare.lua", "--a", sim("a", 21), "--b", sim("b", 22), "--parent",
    d .. "/out", "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ws = t.workspaces(d .. "/out")[1]
  -- what an llmdlua of before fixc40 saved: no slope_of (its slope ran through every answered request)
  local p = ws .. "/run-a/run_model.json"
  local doc = json.read(p)
  local n = 0
  for _, st in ipairs(doc.stages) do
    if type(st.pace) == "table" and st.pace.slope_of then
      t.eq(st.pace.slope_of, "successes")
      t.ok(st.pace.succeeded < st.pace.answered, "failed requests at every stage")
      st.pace.slope_of, n = nil, n + 1
    end
  end
  t.eq(n, 2)
  t.write(p, json.encode(doc))
  r = proc.run { llmdlua, t.root() .. "/lua/analyze.lua", ws }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  -- (stages numbered as the folder's files are, from 0)
  t.contains(r.stderr, "saved before llmdlua fitted the answers' pace through the successful requests only: stages "
    .. "0, 1 are judged by a slope through its failed requests too")
  -- read again from its results (the other run is saved under the current rule): slope_of back
  doc = json.read(p)
  for _, st in ipairs(doc.stages) do t.eq(st.pace.slope_of, "successes") end
end)
