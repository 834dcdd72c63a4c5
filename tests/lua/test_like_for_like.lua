-- Like for like: two runs driven another way (a rate ladder against a concurrency ladder), or
-- with loads of very different lengths (300 s against 10 s), are not the same workload, and no
-- capacity or throughput of theirs names a winner; a run cut short (its files disagree on its
-- request count) is said in the Verdict and the banner, not only under Data checks (audit49
-- findings 1, 2 and 8).
--
-- The runs are tests/data/queue_sim.py's and queue_sim_ip.py's (one FIFO server of 20 slots,
-- 0.1 s + 100 x 0.02 s a request: 9.52 req/s at most), the very files of the audit
-- (/tmp/audit49/sims long5, conc5, long5b, short5b, ipaa_1/ipaa_2/ipcut: the same seeds).
local t = require "testlib"

do
  local json = require "llmd.json"
  local decision = require "llmd.decision"

  if not t.have_numpy() then
    t.test("like for like (skipped: no numpy for queue_sim.py)", function() end)
  else
    local function sim(script, name, args)
      local dir = t.tmpdir() .. "/" .. name
      t.data_py(script, dir, args)
      return dir
    end

    t.test("a rate ladder against a concurrency ladder on one server names no winner (audit49 F1)", function()
      -- A: Poisson arrivals at 6..10 req/s; B: closed loops of 12..28 users; 5 repeats of 120 s
      -- each, one server (20 slots). On main B "sustains more load ... Shown by the repeats at
      -- every load point" (verdict winner b, CSV capacity order b_higher), with "Not the same
      -- workload (load type)" only in the banner under it: a closed loop caps the queue, so its
      -- TTFT p90 stays low at any throughput, the load generator's doing, not the server's.
      local a = sim("queue_sim.py", "rate5", { "--rates", "6,7,8,9,10", "--repeat", "5", "--slots", "20", "--dur",
        "120", "--seed", "7300" })
      local b = sim("queue_sim.py", "conc5", { "--rates", "12,16,20,24,28", "--concurrency", "--repeat", "5",
        "--slots", "20", "--dur", "120", "--seed", "7610" })
      local c = t.compare_ab(a, b, { "--a-label", "rate", "--b-label", "conc", "--slo", "ttft_p90_ms=500" })
      local v = c.json.verdict
      t.eq({ v.kind, v.higher }, { "not comparable", nil })
      t.ok(v.text:find("^Not comparable: the workloads differ %(load type: rate vs concurrency"), v.text)
      t.ok(c.md:find("**Verdict:** Not comparable: the workloads differ (load type: rate vs concurrency", 1, true))
      -- the banner: not the same workload, none of the rows below names a better run
      t.ok(c.md:find("> **Not the same workload.** The workloads differ in what is measured, so no capacity, "
        .. "throughput or latency below compares like with like", 1, true), c.md:sub(1, 3000))
      -- comparison.csv: no order from the capacity or max sustained rows
      local csv = t.read(c.ws .. "/comparison.csv")
      for _, key in ipairs { "capacity_at_slo_rps", "capacity_at_slo_output_tps", "max_sustained_rps" } do
        t.eq(t.csv_row(csv, key)[18], "not_compared", key)
      end
      -- and no latency row names a better run either (every verdict "not comparable")
      for _, r in ipairs(c.json.perf) do t.eq(r.verdict, "not comparable", r.key) end
      -- swapped: the same, mirrored
      c = t.compare_ab(b, a, { "--slo", "ttft_p90_ms=500" })
      t.eq({ c.json.verdict.kind, c.json.verdict.higher }, { "not comparable", nil })
    end)

    t.test("loads of 300 s against 10 s on one server name no winner, and the banner gives the durations "
      .. "(audit49 F2)", function()
      -- 7, 8, 9, 10 req/s, 5 repeats, 20 slots; A's loads 300 s (2,100 requests at 7 req/s),
      -- B's 10 s (70): by hand, requests / rate = 300 s and 10 s. At 9 req/s a queue builds for
      -- as long as the load lasts (numpy on these files, the audit: TTFT p90 1,521 ms over 300 s,
      -- 421 ms over 10 s), so B passes TTFT p90 <= 1 s where A fails it. On main, with
      -- --min-effect 0: "B sustains more load ... Shown by the repeats at every load point"
      -- (winner b), and the banner said only "requests per load point: 2100 vs 70".
      local a = sim("queue_sim.py", "long5b", { "--rates", "7,8,9,10", "--repeat", "5", "--slots", "20", "--dur",
        "300", "--seed", "7310" })
      local b = sim("queue_sim.py", "short5b", { "--rates", "7,8,9,10", "--repeat", "5", "--slots", "20", "--dur",
        "10", "--seed", "7311" })
      local c = t.compare_ab(a, b, { "--a-label", "long", "--b-label", "short", "--slo", "ttft_p90_ms=1000",
        "--min-effect", "0" })
      local v = c.json.verdict
      t.eq({ v.kind, v.higher }, { "not comparable", nil })
      local want = "load duration: 300 s vs 10 s per load, more than 2x apart at 4 of 4 paired load points"
      t.ok(v.text:find("Not comparable: the workloads differ (" .. want, 1, true), v.text)
      -- the banner names the durations
      t.ok(c.md:find("> **Not the same workload.**", 1, true))
      local banner = c.md:match("\n> %*%*Not the same workload%.%*%*[^\n]*")
      t.ok(banner and banner:find(want, 1, true), banner)
      local csv = t.read(c.ws .. "/comparison.csv")
      t.eq(t.csv_row(csv, "capacity_at_slo_rps")[18], "not_compared")
      -- swapped (on main: winner a), and with the default --min-effect: the same
      c = t.compare_ab(b, a, { "--slo", "ttft_p90_ms=1000" })
      t.eq({ c.json.verdict.kind, c.json.verdict.higher }, { "not comparable", nil })
    end)

    t.test("a load's duration: requests / offered rate, send span, window; within 2x is like for like", function()
      -- by hand: 2,100 requests at 7 req/s = 300 s; a pace of 600 sends over 3 repeats at 5
      -- req/s = 40 s a repeat; inference-perf's send spans 58 and 62 s: 60 s; a window alone 12 s
      t.eq(decision.load_duration { load_type = "rate", offered = 7, requests = 2100 }, 300.0)
      t.eq(decision.load_duration { load_type = "concurrency", offered = 8, repeats = 3,
        pace = { sends = 600, send_rps = 5 } }, 40.0)
      t.eq(decision.load_duration { load_type = "concurrency", offered = 8, repeats = 2,
        drain = { { send_span_s = 58 }, { send_span_s = 62 } } }, 60.0)
      t.eq(decision.load_duration { load_type = "concurrency", offered = 8, duration_s = 12 }, 12)
      t.eq(decision.load_duration { load_type = "concurrency", offered = 8 }, nil)
      -- the workload match: 2x apart at most is no difference; beyond, one
      local function side(label) return { label = label, state = {}, run = { harness = "vllm", overall = {
        values = {} } } } end
      local function pts(n) return { { load_type = "rate", offered = 10, requests = n } } end
      local wm = decision.workload_match(side("A"), side("B"), pts(600), pts(1200))
      for _, d in ipairs(wm.differences) do t.ok(d.field ~= "load_duration", d.text) end
      wm = decision.workload_match(side("A"), side("B"), pts(600), pts(1201))
      local found
      for _, d in ipairs(wm.differences) do if d.field == "load_duration" then found = d end end
      t.ok(found, "60 s against 120.1 s: a difference")
      t.eq(found.text:match("^[^,]*"), "load duration: 60 s vs 120 s per load")
      t.eq(decision.measure_difference_texts(wm)[1], found.text)
      -- other loads: a fixed count (1,000 requests) at 1 req/s against 5 req/s is 1,000 s
      -- against 200 s, but no like load to compare (by hand: 5 > 1.25 x 1): no difference; at
      -- 6 against 6.5 req/s (within 1.25 x), 600 s against 20 s: one
      local function at(rate, n) return { { load_type = "rate", offered = rate, requests = n } } end
      wm = decision.workload_match(side("A"), side("B"), at(1, 1000), at(5, 1000))
      for _, d in ipairs(wm.differences) do t.ok(d.field ~= "load_duration", d.text) end
      wm = decision.workload_match(side("A"), side("B"), at(6, 3600), at(6.5, 130))
      found = nil
      for _, d in ipairs(wm.differences) do if d.field == "load_duration" then found = d end end
      t.eq(found and found.text:match("^[^,]*"), "load duration: 600 s vs 20 s per load")
      -- one odd load among like ones (10 requests at 20 req/s, 0.5 s, against 60 s; the other two
      -- 60 s each side): 1 of 3 loads, fewer than half, is no other workload (test_max_sustained's
      -- "too few to judge" load); 2 of 3 is
      local function ladder(ns)
        local out = {}
        for i, n in ipairs(ns) do out[i] = { load_type = "rate", offered = 10 * i, requests = n } end
        return out
      end
      wm = decision.workload_match(side("A"), side("B"), ladder { 600, 1200, 1800 }, ladder { 600, 10, 1800 })
      for _, d in ipairs(wm.differences) do t.ok(d.field ~= "load_duration", d.text) end
      wm = decision.workload_match(side("A"), side("B"), ladder { 600, 1200, 1800 }, ladder { 600, 10, 30 })
      found = nil
      for _, d in ipairs(wm.differences) do if d.field == "load_duration" then found = d end end
      t.ok(found and found.text:find("more than 2x apart at 2 of 3 paired load points", 1, true), found and found.text)
      -- which run is A changes nothing (review49 #8): A one load at 6 req/s of 3,600 requests
      -- (600 s), B 6.5 req/s of 3,900 (600 s) and 7 req/s of 140 (20 s), by hand. A's 6 pairs
      -- with B's 6.5 (600 s both); B's 7 is within 1.25x of A's 6 (7/6 = 1.17) and 20 s against
      -- 600 s: 1 of 2 paired loads far apart, half, a difference either way round (before: A
      -- first compared 1 pair, no difference; B first compared 2, a difference)
      local function loads(x) local o = {} for i, v in ipairs(x) do
        o[i] = { load_type = "rate", offered = v[1], requests = v[2] } end return o end
      local one, two = loads { { 6, 3600 } }, loads { { 6.5, 3900 }, { 7, 140 } }
      for _, order in ipairs { { one, two, "600 s vs 20 s" }, { two, one, "20 s vs 600 s" } } do
        wm = decision.workload_match(side("A"), side("B"), order[1], order[2])
        found = nil
        for _, d in ipairs(wm.differences) do if d.field == "load_duration" then found = d end end
        t.eq(found and found.text:match("^[^,]*"), "load duration: " .. order[3] .. " per load")
        t.ok(found and found.text:find("more than 2x apart at 1 of 2 paired load points", 1, true),
          found and found.text)
      end
    end)

    t.test("a run cut short is said in the Verdict's warnings and the banner, not only under Data checks "
      .. "(audit49 F8)", function()
      -- ipcut: queue_sim_ip.py's run at 4, 6, 8, 9, 10, 12 req/s for 60 s (seed 4901), its stage 5
      -- file deleted and its per-request records kept up to the middle of stage 5. By hand: the
      -- summary counts 240 + 360 + 480 + 540 + 600 + 720 = 2,940 requests, the per-request file
      -- 2,220 + 360 = 2,580, the stage files 2,940 - 720 = 2,220. On main the Verdict compared it
      -- silently and the banner called it "different load ladders".
      local a = sim("queue_sim_ip.py", "ipaa_2", { "--rates", "4,6,8,9,10,12", "--slots", "20", "--dur", "60",
        "--seed", "4902" })
      local b = sim("queue_sim_ip.py", "ipcut", { "--rates", "4,6,8,9,10,12", "--slots", "20", "--dur", "60",
        "--seed", "4901" })
      os.remove(b .. "/stage_5_lifecycle_metrics.json")
      local per = json.read(b .. "/per_request_lifecycle_metrics.json")
      t.eq(#per, 2940)
      local kept = {}
      for i = 1, 2580 do kept[i] = per[i] end
      t.write(b .. "/per_request_lifecycle_metrics.json", json.encode(kept))
      local c = t.compare_ab(a, b, { "--a-label", "ipaa_2", "--b-label", "ipcut", "--slo", "ttft_p90_ms=500" })
      local want = "ipcut may have been cut short: its files disagree on its request count "
        .. "(summary_lifecycle_metrics.json 2,940, per-request data 2,580, the stage files 2,220; see Data checks)"
      local v = c.json.verdict
      t.ok(v.text:find("Warning: " .. want, 1, true), v.text)
      local banner = c.md:match("\n> %*%*The same workload[^\n]*")
      t.ok(banner and banner:find("on different load ladders, or " .. want .. ".**", 1, true), banner)
      -- the intact run is not called cut short
      t.ok(not c.md:find("ipaa_2 may have been cut short", 1, true))
    end)

    t.test("a paced run against a drain-reduced one: both throughputs on the drain-reduced basis (audit50 M4)",
      function()
      -- One server, long answers: 4 req/s for 60 s, 1000 tokens at 20 ms (about 20 s each),
      -- 200 slots (never a queue). A: vLLM's files with --save-detailed (per-request start
      -- times: the answers' pace). B: the very same requests written aggregate-only (no
      -- per-request list: the drain-reduced rate's lower bound, its least latency at most
      -- the file's e2el p0.1). B2: A's file without start_times (its latencies still there:
      -- the drain-reduced rate with their exact minimum). On main A read its pace (about
      -- 4.4 req/s here) against B's 3.9: the same requests 12 % apart by the reading alone.
      local args = { "--rates", "4", "--slots", "200", "--outtok", "1000", "--tpot", "0.02", "--dur", "60",
        "--seed", "5004" }
      local a = sim("queue_sim.py", "paced", args)
      local b = sim("queue_sim.py", "agg", { "--aggregate-only", table.unpack(args) })
      local b2 = t.tmpdir() .. "/nostart"
      require("lfs").mkdir(b2)
      local name
      for f in require("lfs").dir(a) do if f:match("%.json$") then name = f end end
      local d = json.read(a .. "/" .. name)
      d.start_times = nil
      t.write(b2 .. "/" .. name, json.encode(d))
      -- the expected figures, by python3/numpy from the files themselves: A's pace (the sends'
      -- rate over their middle 80 %, over the slope of finish on start times, held to 1 at
      -- least); each side's drain-reduced rate, (completed - ceil(0.001 n)) / (duration - p0.1)
      -- or completed / duration x ... where higher (llmd.runmodel.drain_from_stats), from A's
      -- own latencies' p0.1 (numpy linear) and from B's e2el p0.1 field; with the exact
      -- minimum, completed / (duration - min)
      local py = [[
import json, math, sys, numpy as np
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
s = np.array(a["start_times"]); l = np.array(a["latencies"]); n = a["completed"]; w = a["duration"]
q = np.percentile(s, [10, 90]); send = (len(s) - 1) * 0.8 / (q[1] - q[0])
f = s + l; slope = (s.var() + f.var() - l.var()) / (2 * s.var())
def lo(n, w, p):
    span = w - p
    return max(n - math.ceil(0.001 * n - 1e-9), n * span / w) / span
print(repr(send / max(slope, 1)), repr(lo(n, w, np.percentile(l, 0.1))),
      repr(lo(b["completed"], b["duration"], b["p0.1_e2el_ms"] / 1000)), repr(n / (w - l.min())))
]]
      local out = require("llmd.proc").run({ t.PY, "-c", py, a .. "/" .. name, b .. "/" .. name })
      t.eq(out.code, 0, out.stderr)
      local pace, like_a, like_b, by_min = out.stdout:match("(%S+) (%S+) (%S+) (%S+)")
      pace, like_a, like_b, by_min = tonumber(pace), tonumber(like_a), tonumber(like_b), tonumber(by_min)
      -- (the case the audit saw: the pace well above the drain-reduced reading)
      t.ok(pace > like_a * 1.05, ("pace %g, drain-reduced %g"):format(pace, like_a))
      local c = t.compare_ab(a, b, { "--a-label", "paced", "--b-label", "agg" })
      local pa, pb = c.json.load_points.a[1], c.json.load_points.b[1]
      t.near(pa.achieved_rps, like_a, 1e-9)
      t.near(pb.achieved_rps, like_b, 1e-9)
      t.near(pa.achieved_rps, pb.achieved_rps, 1e-6 * pb.achieved_rps) -- the same requests: one figure
      -- the basis its figures are on, the word treatment_comparison_sources.csv uses (it said
      -- "pace" for a figure that is not the pace)
      t.eq({ pa.rate_basis, pb.rate_basis }, { "pace_as_drain", "drain" })
      -- the ranked figure is that one (max sustained: a lower bound; B's drain-reduced
      -- rate here at most 93.5 % of the offered, whose saturation its statistics cannot tell)
      t.ok(c.json.verdict.text:find(("paced ≥ %.3g req/s"):format(like_a), 1, true), c.json.verdict.text)
      t.ok(c.json.verdict.text:find(("(%.3g req/s achieved by both)"):format(like_a), 1, true), c.json.verdict.text)
      -- and the report says which basis, with the pace it set aside
      local banner = c.md:match("\n> %*%*Throughput on one basis%.%*%*[^\n]*")
      t.ok(banner and banner:find(("its pace is %.4g req/s, on agg's basis %.4g"):format(pace, like_a), 1, true)
        and banner:find("its own e2e p0.1 as agg's files give theirs, the lower bound", 1, true), banner)
      -- swapped: B is the paced one
      c = t.compare_ab(b, a, { "--a-label", "agg", "--b-label", "paced" })
      t.near(c.json.load_points.b[1].achieved_rps, like_a, 1e-9)
      -- against its own latencies without start times: the exact least latency on both sides
      c = t.compare_ab(a, b2, { "--a-label", "paced", "--b-label", "nostart" })
      t.near(c.json.load_points.a[1].achieved_rps, by_min, 1e-9)
      t.near(c.json.load_points.b[1].achieved_rps, by_min, 1e-9)
      t.ok(c.md:find("its own least latency, as nostart's files give theirs", 1, true))
      -- two paced runs (A and another seed): each its pace, no banner
      local a2 = sim("queue_sim.py", "paced2", { "--rates", "4", "--slots", "200", "--outtok", "1000", "--tpot",
        "0.02", "--dur", "60", "--seed", "5005" })
      c = t.compare_ab(a, a2, { "--a-label", "p1", "--b-label", "p2" })
      t.near(c.json.load_points.a[1].achieved_rps, pace, 1e-9)
      t.eq({ c.json.load_points.a[1].rate_basis, c.json.load_points.b[1].rate_basis }, { "pace", "pace" })
      t.ok(not c.md:find("Throughput on one basis", 1, true))
    end)

    t.test("a saved paced run without its least latency: left on its pace, and the banner says so (fixb51)",
      function()
      -- (fixu50's fallback, which no test reached: a workspace whose run_model.json was saved
      -- before the paced stages kept their least latency, read again by analyze.lua. Its paced
      -- run cannot be read on the other's basis: its figure stays its pace, and the report says
      -- the two are read differently, and how to read them on one basis)
      local args = { "--rates", "4", "--slots", "200", "--outtok", "1000", "--tpot", "0.02", "--dur", "60",
        "--seed", "5004" }
      local a = sim("queue_sim.py", "paced", args)
      local b = sim("queue_sim.py", "agg", { "--aggregate-only", table.unpack(args) })
      local c = t.compare_ab(a, b, { "--a-label", "paced", "--b-label", "agg" })
      -- the run model as such a workspace holds it: no least_s, no low e2e percentiles in a pace
      local f = c.ws .. "/run-a/run_model.json"
      local d = json.read(f)
      local pace = d.stages[1].pace.success_rps -- (its one stage's pace: the load point's, unchanged)
      t.ok(c.json.load_points.a[1].achieved_rps < pace * 0.95, c.json.load_points.a[1].achieved_rps)
      local stripped = 0
      for _, st in ipairs(d.stages) do
        for k in pairs(st.pace or {}) do
          if k == "least_s" or k:match("^e2e_p") then st.pace[k], stripped = nil, stripped + 1 end
        end
      end
      t.eq(stripped, 4) -- least_s, e2e_p0_1_s, e2e_p1_s, e2e_p5_s
      json.write(f, d)
      local r = require("llmd.proc").run { t.root() .. "/llmdlua", t.root() .. "/lua/analyze.lua", c.ws, "--quiet" }
      t.eq(r.code, 0, r.stdout .. r.stderr)
      local md = t.read(c.ws .. "/comparison_report.md")
      local banner = md:match("\n> %*%*Throughput on one basis%.%*%*[^\n]*")
      t.ok(banner and banner:find("paced's throughput is its answers' pace (from its per-request start and finish "
        .. "times), agg's the drain-reduced rate", 1, true)
        and banner:find("paced's saved figures hold no least latency to read it on agg's basis", 1, true)
        and banner:find("(read the result files again: analyze.lua WORKSPACE --reextract)", 1, true), banner)
      local j = json.read(c.ws .. "/comparison.json")
      t.near(j.load_points.a[1].achieved_rps, pace, 1e-9) -- its pace, as the banner says
      t.eq(j.load_points.a[1].rate_basis, "pace") -- (and said so: it is on its pace)
      -- --reextract reads the files again: one basis, and the fallback's words gone
      r = require("llmd.proc").run { t.root() .. "/llmdlua", t.root() .. "/lua/analyze.lua", c.ws, "--quiet",
        "--reextract" }
      t.eq(r.code, 0, r.stdout .. r.stderr)
      md = t.read(c.ws .. "/comparison_report.md")
      t.ok(not md:find("saved figures hold no least latency", 1, true))
      t.ok(md:find("paced's throughput figures (max sustained, capacity, Load Curves, Ladder, charts) are read on "
        .. "agg's basis", 1, true))
    end)

    t.test("treatments: a paced treatment without its least latency stays on its pace, said (fixb51)", function()
      local tr = require "llmd.treatments"
      local args = { "--rates", "4", "--slots", "200", "--outtok", "1000", "--tpot", "0.02", "--dur", "60",
        "--seed", "5004" }
      local a = sim("queue_sim.py", "paced", args)
      local b = sim("queue_sim.py", "agg", { "--aggregate-only", table.unpack(args) })
      local list = tr.load { { label = "p", dirs = { a } }, { label = "g", dirs = { b } } }
      local text = tr.like_for_like(list)
      t.ok(text:find("^p's throughput figures %(max sustained"), text)
      t.ok(list[1].run.rate_like and list[2].run.rate_like == nil)
      -- (a paced stage without its least latency cannot be read on the other's basis)
      for _, st in ipairs(list[1].run.stages) do st.pace.least_s = nil end
      text = tr.like_for_like(list)
      t.eq(list[1].run.rate_like, nil)
      t.ok(text:find("^p's throughput is its answers' pace and g's the drain%-reduced rate, and p's paced stages "
        .. "keep no least latency to read it on that basis"), text)
    end)

    -- fixc52 #6: treatment_comparison_sources.csv's writer read each workload's basis by
    -- M.like_for_like on the treatments it was given, which sets their run.rate_like: the
    -- model the writers after it read was changed by a CSV writer. Now it reads copies.
    t.test("treatments: the sources CSV's writer leaves the model's rate_like as it found it", function()
      local tr = require "llmd.treatments"
      local args = { "--rates", "4", "--slots", "200", "--outtok", "1000", "--tpot", "0.02", "--dur", "60",
        "--seed", "5004" }
      local a = sim("queue_sim.py", "paced", args)
      local b = sim("queue_sim.py", "agg", { "--aggregate-only", table.unpack(args) })
      local list = tr.load { { label = "p", dirs = { a } }, { label = "g", dirs = { b } } }
      -- (as a model on each one's own basis holds them: none set)
      t.eq({ list[1].run.rate_like, list[2].run.rate_like }, { nil, nil })
      local text = tr.csv_sources_text(list)
      -- the CSV reads p on g's basis (its last column), and the treatments are as they were
      t.ok(text:find("\r\np,[^\r]*,pace_as_drain\r\n"), text)
      t.eq({ list[1].run.rate_like, list[2].run.rate_like }, { nil, nil })
      -- a model on one basis (M.like_for_like's): the very table it set, kept
      tr.like_for_like(list)
      local set = list[1].run.rate_like
      t.ok(set ~= nil)
      t.eq(tr.csv_sources_text(list), text)
      t.ok(rawequal(list[1].run.rate_like, set), "the model's own rate_like")
    end)

    t.test("treatments: a paced treatment among statistics-only ones is ranked on the drain-reduced basis (fixb51)",
      function()
      -- an experiment workspace (as test_treatments' one): s-paced, queue_sim's server at 2 and 4
      -- req/s with per-request times; s-agg, the very same requests written aggregate-only; s-other,
      -- another seed, paced. Before, s-paced and s-other were ranked on their answers' pace, s-agg on
      -- the drain-reduced rate: the same requests read 4.151 and 4.044 req/s (2.6 % apart, a rank
      -- apart in a ranking by max sustained throughput) by how they were read alone.
      local args = { "--rates", "2,4", "--slots", "200", "--outtok", "100", "--tpot", "0.02", "--dur", "300" }
      local w = t.tmpdir()
      json.write(w .. "/experiment-state.json", { experiment = "basis", results = {
        { setup_treatment = "s-paced", status = "success" }, { setup_treatment = "s-agg", status = "success" },
        { setup_treatment = "s-other", status = "success" } } })
      local dirs = {}
      for _, x in ipairs { { "s-paced", { "--seed", "5004" } }, { "s-agg", { "--seed", "5004", "--aggregate-only" } },
        { "s-other", { "--seed", "5005" } } } do
        dirs[x[1]] = w .. "/setup-treatment-" .. x[1] .. "/run-r1/results"
        local all = {}
        for _, v in ipairs(args) do all[#all + 1] = v end
        for _, v in ipairs(x[2]) do all[#all + 1] = v end
        t.data_py("queue_sim.py", dirs[x[1]], all)
      end
      -- the expected figures at 4 req/s (each one's max sustained: never saturated), by python3 +
      -- numpy from the files, as the compare test above: a paced file's drain-reduced rate on the
      -- other's basis, (completed - ceil(0.001 n)) / (duration - p0.1) or completed / duration x
      -- ... where higher, p0.1 its own latencies' (numpy linear); the aggregate-only file's from its
      -- e2el p0.1 field; and the paced file's pace (the sends' rate over their middle 80 %, over
      -- the slope of finish on start times, held to 1 at least), for the banner
      local py = [[
import glob, json, math, sys, numpy as np
def lo(n, w, p):
    span = w - p
    return max(n - math.ceil(0.001 * n - 1e-9), n * span / w) / span
out = []
for d in sys.argv[1:]:
    x = json.load(open(glob.glob(d + "/openai-4qps-*.json")[0]))
    if "latencies" in x:
        s = np.array(x["start_times"]); l = np.array(x["latencies"])
        q = np.percentile(s, [10, 90]); send = (len(s) - 1) * 0.8 / (q[1] - q[0])
        f = s + l; slope = (s.var() + f.var() - l.var()) / (2 * s.var())
        out += [lo(x["completed"], x["duration"], np.percentile(l, 0.1)), send / max(slope, 1)]
    else:
        out += [lo(x["completed"], x["duration"], x["p0.1_e2el_ms"] / 1000), 0]
print(" ".join(repr(v) for v in out))
]]
      local r = require("llmd.proc").run({ t.PY, "-c", py, dirs["s-paced"], dirs["s-agg"], dirs["s-other"] })
      t.eq(r.code, 0, r.stderr)
      local v = {}
      for x in r.stdout:gmatch("%S+") do v[#v + 1] = tonumber(x) end
      local like_paced, pace, like_agg, like_other = v[1], v[2], v[3], v[5]
      t.ok(pace > like_paced * 1.02, ("pace %g, drain-reduced %g"):format(pace, like_paced))
      r = require("llmd.proc").run { t.root() .. "/llmdlua", t.root() .. "/lua/treatments.lua", w, "--quiet" }
      t.eq(r.code, 0, r.stdout .. r.stderr)
      local j = json.read(w .. "/cross-treatment-comparison/treatments.json")
      local max = {}
      for _, x in ipairs(j.treatments) do max[x.label] = x.max_sustained_rps end
      t.near(max["s-paced"], like_paced, 1e-9)
      t.near(max["s-agg"], like_agg, 1e-9)
      t.near(max["s-paced"], max["s-agg"], 1e-6 * max["s-agg"]) -- the same requests: one figure
      t.near(max["s-other"], like_other, 1e-9)
      -- and the report says so, as compare's banner does, with the pace it set aside
      local md = t.read(w .. "/cross-treatment-comparison/treatment_report.md")
      local banner = md:match("\n> %*%*Throughput on one basis%.%*%*[^\n]*")
      t.ok(banner and banner:find("s-paced, s-other's throughput figures (max sustained, capacity, ranking, Pareto "
        .. "front, charts) are read on s-agg's basis", 1, true)
        and banner:find("their own e2e p0.1 as s-agg's files give theirs, the lower bound", 1, true)
        and banner:find(("(s-paced at 4 req/s offered: its pace %.4g req/s, on this basis %.4g)"):format(pace,
          like_paced), 1, true), banner)
      t.ok(j.rate_like and j.rate_like:find("read on s-agg's basis", 1, true), j.rate_like)
      t.ok(t.read(w .. "/cross-treatment-comparison/treatment_report.html"):find("Throughput on one basis.", 1, true))
      -- the banner qualifies the Verdict: right under its line, before the paragraph of its
      -- evidence, in both reports (fixf53: after that paragraph, as long as the ranking, on main)
      t.ok(md:find("\n%*%*Verdict:%*%* [^\n]*\n\n> %*%*Throughput on one basis%.%*%*"), md:sub(1, 600))
      t.ok(t.read(w .. "/cross-treatment-comparison/treatment_report.html"):find('<p class="verdict%-line"><strong>'
        .. 'Verdict:</strong> [^\n]*</p>%s*<p class="warning"><strong>Throughput on one basis%.</strong>'),
        "the HTML banner under the Verdict line")
      -- the sources CSV gives the figure ranked, and how it was read
      local got = {}
      for line in t.read(w .. "/cross-treatment-comparison/treatment_comparison_sources.csv"):gmatch("[^\r\n]+") do
        -- (the 4 req/s file's row: its treatment first, the ranked figure and its basis last but one
        -- and last; source_file, quoted, holds a comma)
        local label, rps, basis = line:match("^([^,]*),.*openai%-4qps%-[^,]*,[^,]*,([^,]*),[^,]*,([^,]*)$")
        if label then got[label] = { rps = tonumber(rps), basis = basis } end
      end
      t.eq({ got["s-paced"].basis, got["s-agg"].basis, got["s-other"].basis }, { "pace_as_drain", "drain",
        "pace_as_drain" })
      t.near(got["s-paced"].rps, like_paced, 1e-9)
      -- all paced: each on its pace, no banner
      local w2 = t.tmpdir()
      json.write(w2 .. "/experiment-state.json", { experiment = "paced", results = {
        { setup_treatment = "s-paced", status = "success" }, { setup_treatment = "s-other", status = "success" } } })
      for _, x in ipairs { "s-paced", "s-other" } do
        assert(require("llmd.proc").run({ "mkdir", "-p", w2 .. "/setup-treatment-" .. x .. "/run-r1" }).ok)
        t.copy_tree(dirs[x], w2 .. "/setup-treatment-" .. x .. "/run-r1/results")
      end
      r = require("llmd.proc").run { t.root() .. "/llmdlua", t.root() .. "/lua/treatments.lua", w2, "--quiet" }
      t.eq(r.code, 0, r.stdout .. r.stderr)
      j = json.read(w2 .. "/cross-treatment-comparison/treatments.json")
      for _, x in ipairs(j.treatments) do
        if x.label == "s-paced" then t.near(x.max_sustained_rps, pace, 1e-9) end
      end
      t.eq(j.rate_like, nil)
      t.ok(not t.read(w2 .. "/cross-treatment-comparison/treatment_report.md"):find("Throughput on one basis", 1, true))
    end)
  end
end

