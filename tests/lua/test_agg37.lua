-- Session 37 (agg37): files with no per-request latencies at all, only statistics (vLLM
-- without `latencies`, inferencemax, benchmark reports), kept the old rule, completed /
-- window, which the last answers' own latency lowers: long answers read "saturated already
-- at the lowest load" (newuser36 finding 3). Their least latency is now bounded by the file's
-- lowest e2e percentile P (or its min): hi = completed / (window - P) is at least the
-- drain-reduced rate, lo = (completed - ceil(q / 100 x completed)) / (window - P) at most
-- what the server answered at (llmd.loadpoints.drain_rates). Kept up needs lo, saturated
-- needs hi short and a queue's evidence, which statistics never hold: else N/A with why.
--
-- The runs are made by tests/data/queue_sim.py (a FIFO server of K slots, each request
-- 0.1 s + 99 tpot with 2 % lognormal noise, Poisson arrivals for 300 s), --aggregate-only
-- as vLLM writes without --save-detailed. Two servers of one capacity, 16 req/s: 240 slots
-- of 15 s answers and 480 slots of 30 s answers, one seed (the same arrivals).
-- Expected values: /usr/bin/python3 on the generated files (BOUNDS below, my own code), and,
-- from the same runs written with their per-request latencies, the true drain-reduced rate,
-- completed / (window - least latency), and the rate answers came back after P.
local t = require "testlib"
local proc = require "llmd.proc"
local json = require "llmd.json"
local harness = require "llmd.harness"
local lp = require "llmd.loadpoints"
local rm = require "llmd.runmodel"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local PY = "/usr/bin/python3"
local have_numpy = proc.run({ PY, "-c", "import numpy" }).ok

-- per file of DIR (by rate): the bounds from the statistics, the harness's rate, and, where
-- DETAILED (the same run with per-request latencies) is given, the true least latency's rate
-- and how many successes lie below the lowest e2e percentile
local BOUNDS = [[
import json, glob, math, sys
def files(d):
    return {json.load(open(f))["request_rate"]: json.load(open(f)) for f in glob.glob(d + "/*.json")}
agg = files(sys.argv[1])
det = files(sys.argv[2]) if len(sys.argv) > 2 else {}
out = []
for rate in sorted(agg):
    x = agg[rate]
    n, w = x["completed"], x["duration"]
    ps = [(float(k[1:-len("_e2el_ms")]), v / 1000) for k, v in x.items() if k.startswith("p") and k.endswith("_e2el_ms")]
    if "median_e2el_ms" in x: ps.append((50.0, x["median_e2el_ms"] / 1000))
    r = {"rate": rate, "n": n, "harness": n / w}
    if ps:
        q, p = min(ps)
        below = math.ceil(q / 100 * n - 1e-9)
        # (the harness's completed / window where that is higher)
        r.update(q=q, p=p, below=below, lo=max((n - below) / (w - p), n / w), hi=n / (w - p))
    if rate in det:
        y = det[rate]
        lats = [l for l in y["latencies"] if l > 0]
        r["exact"] = n / (w - min(lats))
        if ps:
            r["true_below"] = sum(1 for l in lats if l < p)
            # the answers that came back between the first request + P and the window's end
            s0 = y["start_times"][0]
            ends = [s - s0 + l for s, l in zip(y["start_times"], y["latencies"]) if l > 0]
            r["answered_rps"] = sum(1 for e in ends if p <= e <= w + 1e-9) / (w - p)
    out.append(r)
print(json.dumps(out))
]]

local function bounds(dir, detailed)
  local r = proc.run { PY, "-c", BOUNDS, dir, detailed }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  return json.decode(r.stdout)
end

local made = {}
-- one simulated run: label, slots, tpot, rates, detailed? -> its folder (made once)
local function sim(label, slots, tpot, rates, detailed)
  local key = table.concat({ label, slots, tpot, rates, tostring(detailed) }, "/")
  if made[key] then return made[key] end
  local dir = t.tmpdir() .. "/" .. label
  local argv = { PY, ROOT .. "/tests/data/queue_sim.py", dir, "--rates", rates, "--slots", tostring(slots),
    "--ttft0", "0.1", "--tpot", tostring(tpot), "--outtok", "100", "--noise", "0.02", "--seed", "2", "--dur", "300" }
  if not detailed then argv[#argv + 1] = "--aggregate-only" end
  local r = proc.run(argv)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  made[key] = dir
  return dir
end

-- 15 s answers (0.1 + 99 x 0.1505, 240 slots) and 30 s answers (0.1 + 99 x 0.3020, 480)
local SHORT, LONG = { 240, 0.1505 }, { 480, 0.302 }

-- each file of dir rewritten by fn(doc)
local function edit(dir, fn)
  for f in require("lfs").dir(dir) do
    if f:match("%.json$") then
      local path = dir .. "/" .. f
      local d = json.read(path)
      fn(d)
      t.write(path, json.encode(d))
    end
  end
end

t.test("drain_from_stats: the lowest percentile, and the successes that may lie below it", function()
  -- 1000 successes, p0.1 and p1: ceil(0.1 / 100 x 1000) = 1 may lie below p0.1 (by hand;
  -- 0.1 / 100 x 1000 is 1.0000000000000002 in doubles, not 2)
  local r = rm.drain_from_stats(1000, 100, { { 1, 2.5, "p1" }, { 0.1, 2.0, "p0.1" } })
  t.eq({ r.least_kind, r.least_latency_s, r.least_label, r.below }, { "percentile", 2.0, "p0.1", 1 })
  -- lo = 999 / 98, hi = 1000 / 98 (by hand)
  local lo, hi = lp.drain_rates(r)
  t.near(lo, 999 / 98, 1e-12)
  t.near(hi, 1000 / 98, 1e-12)
  -- the file's min: exact, both bounds one rate
  r = rm.drain_from_stats(1000, 100, { { 0.1, 2.0 } }, 1.5)
  t.eq({ r.least_kind, r.least_latency_s }, { "min", 1.5 })
  lo, hi = lp.drain_rates(r)
  t.eq({ lo, hi }, { 1000 / 98.5, 1000 / 98.5 })
  -- nothing: completed / window, no upper bound
  r = rm.drain_from_stats(1000, 100, {})
  t.eq({ r.least_kind, lp.drain_rates(r) }, { "none", 10 })
  -- no window, no count: no record
  t.eq(rm.drain_from_stats(1000, nil, {}), nil)
  t.eq(rm.drain_from_stats(0, 100, {}), nil)
end)

-- A benchmark report v0.2 (JSON) of one stage: tool, rate, requests, window (s) and its
-- request_latency statistics (ms)
local function br(dir, stage, tool, rate, n, dur, lat)
  lat.units = "ms"
  lat.mean = lat.mean or 31000
  t.write(("%s/benchmark_report_v0.2,_stage_%d.json"):format(dir, stage), json.encode {
    version = "0.2",
    run = { uid = "u", eid = "e", time = { duration = ("PT%gS"):format(dur) } },
    scenario = { load = { standardized = { tool = tool, stage = stage, rate_qps = rate } } },
    results = { request_performance = { aggregate = {
      requests = { total = n, failures = 0 },
      latency = { request_latency = lat },
      throughput = { request_rate = { units = "queries/s", mean = n / dur } } } } } })
end

t.test("benchmark reports: the least latency from request_latency's min, else its lowest percentile", function()
  -- 1200 requests at 4 req/s in 330 s, answers of 30 s or more: completed / window is
  -- 3.636 req/s, below 3.8 (95 %), the old rule's "saturated" (by hand)
  local dir = t.tmpdir() .. "/br"
  t.mkdir(dir)
  -- vllm-benchmark: p0p1 29.9 s: below = ceil(1.2) = 2, lo = 1198 / 300.1 = 3.99200 >= 3.8:
  -- kept up, and ranked (by hand)
  br(dir, 0, "vllm-benchmark", 4, 1200, 330, { p0p1 = 29900, p50 = 31000, p99 = 33000 })
  local run = harness.extract(dir)
  local x = run.stages[1].drain
  t.eq({ x.least_kind, x.least_label, x.below, x.least_latency_s }, { "percentile", "p0p1", 2, 29.9 })
  local pts = lp.points(run)
  t.near(pts[1].achieved_rps, 1198 / 300.1, 1e-12)
  local s = lp.saturation(pts)
  t.eq({ s.none, s.unknown, s.basis }, { true, nil, "drain" }, s.reason)
  t.near(s.max_sustained_rps, 1198 / 300.1, 1e-12)
  -- inference-perf with its min, 30 s: exact, 1200 / 300 = 4 (by hand)
  dir = t.tmpdir() .. "/br_ip"
  t.mkdir(dir)
  br(dir, 0, "inference-perf", 4, 1200, 330, { min = 30000, p0p1 = 30010, p50 = 31000 })
  run = harness.extract(dir)
  t.eq({ run.stages[1].drain.least_kind, run.stages[1].drain.least_latency_s }, { "min", 30 })
  t.near(lp.points(run)[1].achieved_rps, 4, 1e-12)
  -- guidellm's measured window may leave the drain out: no record, its own rate
  dir = t.tmpdir() .. "/br_gl"
  t.mkdir(dir)
  br(dir, 0, "guidellm", 4, 1200, 330, { min = 30000, p50 = 31000 })
  run = harness.extract(dir)
  t.eq(run.stages[1].drain, nil)
  t.near(lp.points(run)[1].achieved_rps, 1200 / 330, 1e-12)
end)

if not have_numpy then
  t.test("statistics-only runs of queue_sim.py (skipped: no numpy for queue_sim.py)", function() end)
  return
end

t.test("statistics only, one capacity, 15 s and 30 s answers: both kept up, not ordered", function()
  local a = sim("short", SHORT[1], SHORT[2], "4,8,12")
  local b = sim("long", LONG[1], LONG[2], "4,8,12")
  local ba, bb = bounds(a, sim("short_d", SHORT[1], SHORT[2], "4,8,12", true)),
    bounds(b, sim("long_d", LONG[1], LONG[2], "4,8,12", true))
  for _, x in ipairs { ba, bb } do
    for _, r in ipairs(x) do
      -- hi is at least the drain-reduced rate with the true least latency; lo at most the
      -- rate answers came back at from the first request + P to the window's end; the
      -- successes below P within the count allowed
      t.ok(r.exact <= r.hi, json.encode(r))
      t.ok(r.lo <= r.answered_rps, json.encode(r))
      t.ok(r.true_below <= r.below, json.encode(r))
      -- and the lower bound kept up at every load
      t.ok(r.lo >= 0.95 * r.rate, json.encode(r))
    end
  end
  -- the old rule: the long answers' completed / window is below 95 % at 4 req/s already,
  -- 3.771 / 4 (python), where main read "saturated at the lowest load"
  t.ok(bb[1].harness < 0.95 * 4, json.encode(bb[1]))
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "short", "--b-label", "long" }
  t.eq(r.code, 0, r.stderr)
  local cmp = json.read(ws .. "/comparison.json")
  local sa, sb = cmp.saturation.a, cmp.saturation.b
  t.eq({ sa.none, sa.unknown, sa.basis, sb.none, sb.unknown, sb.basis }, { true, nil, "drain", true, nil, "drain" },
    sb.reason)
  -- max sustained: the lower bound at 12 req/s (python: 11.9069 and 11.8687)
  t.near(sa.max_sustained_rps, ba[3].lo, 1e-9 * ba[3].lo)
  t.near(sb.max_sustained_rps, bb[3].lo, 1e-9 * bb[3].lo)
  t.ok(sb.reason:find("the least latency only by their e2e p0.1", 1, true), sb.reason)
  local md = t.read(ws .. "/comparison_report.md")
  local verdict = md:match("%*%*Verdict[^\n]*")
  t.ok(not md:find("short sustains more load", 1, true) and not md:find("long sustains more load", 1, true), verdict)
  t.ok(verdict:find("the measured loads cannot order them: short ≥ " .. ("%.2f"):format(ba[3].lo) .. " req/s, long ≥ "
    .. ("%.2f"):format(bb[3].lo) .. " req/s", 1, true), verdict)
end)

t.test("statistics only, past the capacity: N/A, never a 'saturated' the files cannot show", function()
  -- 20 req/s into 16 req/s: the upper bound falls short (python: 16.23 of 20), but
  -- statistics hold no order of the latencies and no send times, no queue's evidence
  local dir = sim("over", SHORT[1], SHORT[2], "4,8,12,20")
  local b = bounds(dir)
  t.ok(b[4].hi < 0.95 * 20, json.encode(b[4]))
  local s = lp.saturation(lp.points(harness.extract(dir)))
  t.eq({ s.none, s.unknown, s.spread, s.basis }, { true, true, true, "drain" }, s.reason)
  t.ok(s.reason:find(("point 4 (stage 3): at 20 req/s offered the drain-reduced rate was at most %.4g req/s (%.1f %% "
    .. "of the offered, below 95 %%;"):format(b[4].hi, b[4].hi / 20 * 100), 1, true), s.reason)
  t.ok(s.reason:find(("the least latency at most the file's e2e p0.1, %.4g s), but files with latency statistics "
    .. "only cannot tell a queue"):format(b[4].p), 1, true), s.reason)
end)

t.test("statistics only, the lowest e2e percentile above p5: no bound, completed / window a lower bound only",
  function()
  -- p0.1..p25 of e2el removed: the median is the lowest, and up to half of the successes may
  -- lie below it, so (completed - half) / (window - median) is at most half the rate of a
  -- server that kept up exactly: above p5 (the rule's 5 % margin) it can never show one kept
  -- up. Nothing bounds the least latency (the record says which percentile was left unused):
  -- the rate's lower bound is completed / window (python: BOUNDS' harness), no upper bound
  -- (agg37b). p5 itself is used: its at most ceil(5 % x 1200) = 60 successes below it (by hand)
  local dir = t.tmpdir() .. "/median"
  t.copy_tree(sim("short", SHORT[1], SHORT[2], "4,8,12"), dir)
  edit(dir, function(d) for _, q in ipairs { "0.1", "1", "5", "10", "25" } do d["p" .. q .. "_e2el_ms"] = nil end end)
  local b = bounds(dir)
  local run = harness.extract(dir)
  local x = run.stages[1].drain
  t.eq({ x.least_kind, x.least_label, x.least_latency_s }, { "none", "median", 0 })
  local pts = lp.points(run)
  local d = lp.drain_of(pts[1])
  t.eq({ d.least_kind, d.rps_hi, pts[1].rate_basis }, { "none", nil, nil })
  t.near(d.rps, b[1].harness, 1e-9)
  x = rm.drain_from_stats(1200, 300, { { 5, 14.5, "p5" }, { 50, 15, "median" } })
  t.eq({ x.least_kind, x.least_label, x.below }, { "percentile", "p5", 60 })
end)

t.test("statistics only, least latency bounded by p5 alone: N/A where the bounds straddle the share", function()
  -- p0.1 and p1 of e2el removed: p5 is the lowest, up to 5 % of the successes may lie below
  -- it (python: at 12 req/s the bounds are 94.9 % and 99.5 % of the offered; at 4 and 8 req/s
  -- the lower one is 99.1 and 95.1 %: kept up there)
  local dir = t.tmpdir() .. "/p5"
  t.copy_tree(sim("short", SHORT[1], SHORT[2], "4,8,12"), dir)
  edit(dir, function(d) d["p0.1_e2el_ms"], d["p1_e2el_ms"] = nil, nil end)
  local b = bounds(dir)
  t.eq({ b[3].q, b[3].below }, { 5, 180 })
  t.ok(b[1].lo >= 0.95 * 4 and b[2].lo >= 0.95 * 8 and b[3].lo < 0.95 * 12 and b[3].hi >= 0.95 * 12, json.encode(b))
  local pts = lp.points(harness.extract(dir))
  for i = 1, 3 do t.near(pts[i].achieved_rps, b[i].lo, 1e-9 * b[i].lo) end
  local s = lp.saturation(pts)
  t.eq({ s.none, s.unknown, s.bound }, { true, true, true }, s.reason)
  t.ok(s.reason:find(("point 3 (stage 2): at 12 req/s offered the drain-reduced rate (%s) was between %.4g and %.4g "
    .. "req/s (%.1f to %.1f %% of the offered), as the files bound the least latency only by their e2e p5 (%.4g "
    .. "s), below which up to 180 of 3600 successes may lie"):format(lp.DRAIN_SPAN, b[3].lo, b[3].hi,
    b[3].lo / 12 * 100, b[3].hi / 12 * 100, b[3].p), 1, true), s.reason)
end)

t.test("statistics only, no e2el at all (vLLM's default --percentile-metrics): N/A, never saturated by answer length",
  function()
  -- nothing bounds the least latency but 0: completed / window, the harness's rate, is a
  -- lower bound only (python: 3.771 of 4 req/s for 30 s answers, 94.3 %). Its shortfall is
  -- no saturation (the same capacity's 15 s answers read 95.6 % there): N/A with what would
  -- tell (agg37b; before, the old rule called the long answers saturated at 4 req/s)
  local dir = t.tmpdir() .. "/noe2el"
  t.copy_tree(sim("long", LONG[1], LONG[2], "4,8,12"), dir)
  edit(dir, function(d) for k in pairs(d) do if k:match("_e2el_ms$") then d[k] = nil end end end)
  local b = bounds(dir)
  t.eq(b[1].lo, nil)
  t.ok(b[1].harness < 0.95 * 4, json.encode(b))
  local run = harness.extract(dir)
  local pts = lp.points(run)
  t.eq({ run.stages[1].drain.least_kind, pts[1].rate_basis, lp.drain_of(pts[1]).rps_hi }, { "none", nil, nil })
  t.near(pts[1].achieved_rps, b[1].harness, 1e-9)
  local s = lp.saturation(pts)
  t.eq({ s.none, s.unknown, s.bound, s.point }, { true, true, true, nil }, s.reason)
  t.ok(s.reason:find(("point 1 (stage 0): at 4 req/s offered completed / window was %.4g req/s (%.1f %% of the "
    .. "offered, below 95 %%)"):format(b[1].harness, b[1].harness / 4 * 100), 1, true), s.reason)
  t.ok(s.reason:find("(no e2e latency statistic)", 1, true), s.reason)
  t.ok(s.reason:find("--percentile-metrics with e2el and --metric-percentiles with 0.1 (or --save-detailed)", 1, true),
    s.reason)
  -- a lower bound reaching 95 % still says kept up: the short answers at 4 and 8 req/s
  local sdir = t.tmpdir() .. "/noe2el-short"
  t.copy_tree(sim("short48", SHORT[1], SHORT[2], "4,8"), sdir)
  edit(sdir, function(d) for k in pairs(d) do if k:match("_e2el_ms$") then d[k] = nil end end end)
  local sb = bounds(sdir)
  t.ok(sb[1].harness >= 0.95 * 4 and sb[2].harness >= 0.95 * 8, json.encode(sb))
  s = lp.saturation(lp.points(harness.extract(sdir)))
  t.eq({ s.none, s.unknown }, { true, nil }, s.reason)
  t.ok(s.reason:find("where the files give no least latency, completed / window, a lower bound", 1, true), s.reason)
end)

t.test("analyze.lua: a workspace saved before these bounds says so; re-rendered or --reextract, judged by them",
  function()
  local a = sim("short", SHORT[1], SHORT[2], "4,8,12")
  local b = sim("long", LONG[1], LONG[2], "4,8,12")
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "short", "--b-label", "long" }
  t.eq(r.code, 0, r.stderr)
  local run = require("llmd.proc").run
  local llmdlua = t.here() .. "/../../llmdlua"
  -- the saved record re-rendered: the same saturation, no warning
  local res = run { llmdlua, "analyze.lua", ws, "--quiet" }
  t.eq(res.code, 0, res.stderr)
  t.ok(not res.stderr:find("saved before", 1, true), res.stderr)
  local s = json.read(ws .. "/comparison.json").saturation.b
  t.eq({ s.none, s.basis }, { true, "drain" }, s.reason)
  -- as session 36 saved it: drain_saved, but no record for a stage of statistics only
  for _, x in ipairs { "a", "b" } do
    local p = ws .. "/run-" .. x .. "/run_model.json"
    local doc = json.read(p)
    doc.drain_stats_saved = nil
    for _, st in ipairs(doc.stages) do st.drain = nil end
    t.write(p, json.encode(doc))
  end
  res = run { llmdlua, "analyze.lua", ws, "--quiet" }
  t.eq(res.code, 0, res.stderr)
  t.ok(res.stderr:find("analyze.lua: warning: long (b): saved before llmdlua bounded the least latency of files with "
    .. "latency statistics only by their lowest e2e percentile (a shortfall N/A where nothing bounds it): stages 0, 1, "
    .. "2 are judged by the achieved rate", 1, true), res.stderr)
  -- judged as before (the old rule): the long answers saturated at the lowest load
  t.eq(json.read(ws .. "/comparison.json").saturation.b.point, 1)
  res = run { llmdlua, "analyze.lua", ws, "--quiet", "--reextract" }
  t.eq(res.code, 0, res.stderr)
  t.ok(not res.stderr:find("saved before", 1, true), res.stderr)
  s = json.read(ws .. "/comparison.json").saturation.b
  t.eq({ s.none, s.basis }, { true, "drain" }, s.reason)
end)

t.test("a model saved before agg37 whose stages have no e2e statistic says they are on the old rule", function()
  -- (agg37b: such stages are now N/A where completed / window falls short; before, only a
  -- stage with an e2e statistic was said to be judged by the achieved rate. A stage with no
  -- successes or no window gets no record either way: not listed)
  local cmp = require "llmd.comparison"
  local doc = { drain_saved = true, harness = "vllm-benchmark" }
  local run = { stages = {
    { index = 0, rate = 4, metrics = { values = { requests_ok = 1200, duration_s = 318.2 } } },
    { index = 1, rate = 8, metrics = { values = { requests_ok = 0, duration_s = 300 } } },
  } }
  local text = cmp.old_saturation(doc, run)
  t.ok(text and text:find("(a shortfall N/A where nothing bounds it): stage 0 is judged by the achieved rate", 1, true),
    text)
  doc.drain_stats_saved = true
  t.eq(cmp.old_saturation(doc, run), nil)
end)
