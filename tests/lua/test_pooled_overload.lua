-- Whole-run figures that pool load points where a run was overloaded: one meaning per number
-- in compare's tables (newuser48 F1, F2, F5, F6, F7).
local t = require "testlib"
local ipsynth = require "ipsynth"
local proc = require "llmd.proc"

-- Two inference-perf runs of one ladder, 4, 8 and 16 req/s, 80 requests each (ipsynth: one
-- server answering one request at a time, stage files and the run's summary, no per-request
-- file): "slow" takes 0.1 s a request (10 req/s at most: 16/s overloads it), "fast" 0.05 s
-- (20 req/s: it keeps up with all three). 2 GPUs each (info files), SLO E2E p90 <= 500 ms.
local function ladder(extra)
  local d = t.tmpdir()
  local function stages(svc)
    local out = {}
    for _, r in ipairs { 4, 8, 16 } do out[#out + 1] = { rate = r, n = 80, latency = ipsynth.queue(svc) } end
    return out
  end
  local a = ipsynth.run(d .. "/slow", stages(0.1), { summary = true })
  local b = ipsynth.run(d .. "/fast", stages(0.05), { summary = true })
  t.write(d .. "/a.yaml", "gpus: 2\n")
  t.write(d .. "/b.yaml", "gpus: 2\n")
  local args = { "--a-label", "slow", "--b-label", "fast", "--harness", "inference-perf", "--a-info", d .. "/a.yaml",
    "--b-info", d .. "/b.yaml", "--slo", "latency_p90_ms=500" }
  for _, x in ipairs(extra or {}) do args[#args + 1] = x end
  local c = t.compare_ab(a, b, args)
  c.a, c.b = a, b
  return c
end

-- python3 over the stage files: each stage's drain-reduced rate n / (window - least latency)
-- (benchmark_time_seconds and request_latency.min), and the run's figures pooled as README
-- defines them: requests over the time each stage's rate gives them, sum over sum (req/s, and
-- output tok/s from the stages' output tokens, 8 a request), and the harness's completed /
-- window pooled (the summary's requests_per_sec, sum of requests over sum of windows).
local POOLED = [[
import json, sys, glob
for d in sys.argv[1:]:
    n = t = w = out = 0
    for f in sorted(glob.glob(d + "/stage_*_lifecycle_metrics.json")):
        s = json.load(open(f))
        k = s["successes"]["count"]
        n += k; w += s["benchmark_time_seconds"]
        t += s["benchmark_time_seconds"] - s["successes"]["latency"]["request_latency"]["min"]
        out += 8 * k
    print(repr(n / t), repr(out / t), repr(n / w))
]]

local function pooled(a, b)
  local r = proc.run { "/usr/bin/python3", "-c", POOLED, a, b }
  t.eq(r.code, 0, r.stderr)
  local out = {}
  for line in r.stdout:gmatch("[^\n]+") do
    local x, y, z = line:match("^(%S+) (%S+) (%S+)$")
    out[#out + 1] = { rps = tonumber(x), tps = tonumber(y), harness = tonumber(z) }
  end
  return out[1], out[2]
end

-- python3: the runs' E2E latencies replayed (request k of a stage sent at k / rate, one server
-- answering in svc s each, first come first served: ipsynth.queue), the whole run's p90 by
-- numpy's linear percentile, in ms.
local P90 = [[
import numpy as np
def run(svc):
    lat = []
    for rate in (4, 8, 16):
        free = None
        for k in range(80):
            st = k / rate
            free = max(free if free is not None else st, st) + svc
            lat.append(free - st)
    return np.percentile(lat, 90) * 1000
print(repr(run(0.1)), repr(run(0.05)))
]]

t.test("whole-run rows pooled over a load a run was overloaded at: not comparable, the loads named, everywhere",
  function()
    if not t.have_numpy() then return end
    local c = ladder()
    -- main (newuser48 F1): "untested", like_for_like true, and no "is no verdict" sentence, beside
    -- an E2E p90 gap of -97.7 % that measures how many loads overloaded each run
    local why = "the whole-run figures pool load points where a run was overloaded (16/s in A), so they are not "
      .. "comparable; untested: "
    for _, key in ipairs { "throughput_req_s", "throughput_tok_s", "latency_p50_ms", "latency_p90_ms", "ttft_p90_ms",
      "tpot_p90_ms" } do
      local r = t.perf_row(c.json, key)
      t.eq({ r.verdict, r.like_for_like, r.pools_overloaded, r.effect_pct }, { "not comparable", false,
        { a = { "16/s" }, b = {} }, nil }, key)
      t.contains(r.evidence, why)
      t.contains(r.note, why)
      -- (the CSV's verdict, column 7)
      t.eq(t.csv_row(t.read(c.ws .. "/comparison.csv"), key)[7], "not comparable", key)
    end
    t.contains(t.perf_row(c.json, "latency_p90_ms").evidence, "untested: no per-request samples")
    t.contains(t.perf_row(c.json, "throughput_req_s").evidence, "untested: pooled over several load points")
    t.contains(c.md, "| not comparable | " .. why)
    t.contains(t.read(c.ws .. "/comparison_report.html"), "(16/s in A), so they are not comparable")
    -- the Summary says why the largest such gap is no verdict (README "Many rows, one family"):
    -- the SLO's metric, E2E p90, first; A's and B's p90 from python3
    local r = proc.run { "/usr/bin/python3", "-c", P90 }
    t.eq(r.code, 0, r.stderr)
    local pa, pb = r.stdout:match("^(%S+) (%S+)")
    pa, pb = tonumber(pa), tonumber(pb)
    local pct = (pb - pa) / pa * 100
    t.contains(c.json.summary, ("The whole-run End-to-end latency p90 gap (%s %%, %s ms for slow against %s ms for "
      .. "fast) is no verdict: those figures pool loads where a run was overloaded"):format(
      ("%+.1f"):format(pct):gsub("^%-", "-"), require("llmd.template").helpers.num(pa, 1),
      require("llmd.template").helpers.num(pb, 1)))
    t.contains(c.json.summary, "Nothing could be tested: no metric has per-request samples or repeats from both runs")
    -- the Headline's whole-run output tok/s per GPU: the same
    local h
    for _, x in ipairs(c.json.headline) do if x.key == "output_tps_per_gpu" then h = x end end
    t.eq(h.evidence, "not comparable: the whole-run figures pool load points where a run was overloaded (16/s in A)")
    -- (no Delta or Change a reader could quote beside it, fixc56)
    t.eq({ h.delta_text, h.pct_text }, { "not comparable (pooled over loads where a run was overloaded)",
      "not comparable (pooled over loads where a run was overloaded)" })
    t.eq(t.csv_row(t.read(c.ws .. "/comparison.csv"), "output_tps_per_gpu")[7], "not comparable")
  end)

t.test("whole-run request throughput of several load points: the throughput as defined, pooled; the harness's beside",
  function()
    local c = ladder()
    local ea, eb = pooled(c.a, c.b)
    -- main (newuser48 F2): the row was the harness's completed / window pooled (the Load
    -- Curves' "Harness req/s"), under the label the definitions give the drain-reduced rate
    local ra, rb = t.perf_row(c.json, "throughput_req_s"), t.perf_row(c.json, "throughput_tok_s")
    t.near(ra.a, ea.rps, 1e-9)
    t.near(ra.b, eb.rps, 1e-9)
    t.near(ra.a_harness, ea.harness, 1e-9)
    t.near(ra.b_harness, eb.harness, 1e-9)
    t.near(rb.a, ea.tps, 1e-9)
    t.near(rb.b, eb.tps, 1e-9)
    local num = require("llmd.template").helpers.num
    t.contains(c.md, ("| Request throughput | %s req/s (harness %s) | %s req/s (harness %s) |"):format(num(ea.rps, 3),
      num(ea.harness, 3), num(eb.rps, 3), num(eb.harness, 3)))
    -- the Headline's output tok/s per GPU follows it (2 GPUs each)
    local h
    for _, x in ipairs(c.json.headline) do if x.key == "output_tps_per_gpu" then h = x end end
    t.near(h.a, ea.tps / 2, 1e-9)
    t.near(h.b, eb.tps / 2, 1e-9)
  end)

t.test("Load Curves and Load Ladder mark the loads that fail the SLO", function()
  if not t.have_numpy() then return end
  local c = ladder()
  -- slow's E2E p90 at 16/s: its queue's (python3 replay as above, that stage alone: by hand, the
  -- 80th request waits behind 80 x 0.1 s of work sent over 5 s: about 3 s, far above 500 ms);
  -- every other point of either run answers within 0.1 s + the queue at 8/s (no queue: 0.1 s)
  local lp = c.json.load_points
  t.eq({ lp.a[1].meets_slo, lp.a[2].meets_slo, lp.a[3].meets_slo, lp.a[3].slo_failing }, { true, true, false,
    { "latency_p90_ms" } })
  for _, p in ipairs(lp.b) do t.eq(p.meets_slo, true) end
  t.contains(c.md, "| 3 | 16/s | fails End-to-end latency p90 | 1 |")
  t.contains(c.md, "| 2 | 8/s | meets | 1 |")
  t.contains(c.md, "| 16/s | 16/s | 16/s | A | A |")
  t.contains(c.md, "Fails SLO: the run's own load point at that load fails an SLO")
  local html = t.read(c.ws .. "/comparison_report.html")
  t.contains(html, "<th>Of&shy;fered</th><th>SLO</th>")
  t.contains(html, '<tr class="slo-fail"><td class="n">3</td><td>16/s</td><td>fails End-to-end latency p90</td>')
  t.contains(html, "<th>Satu&shy;rated</th><th>Fails SLO</th>")
  -- without an SLO, no such column
  local d = t.tmpdir()
  local stages = { { rate = 4, n = 40, latency = ipsynth.queue(0.1) }, { rate = 8, n = 40, latency = ipsynth.queue(0.1) } }
  local n = t.compare_ab(ipsynth.run(d .. "/x", stages, { summary = true }),
    ipsynth.run(d .. "/y", stages, { summary = true }), { "--harness", "inference-perf" })
  t.lacks(n.md, "| SLO |")
  t.lacks(n.md, "Fails SLO")
end)

t.test("a --plan comparison's per-GPU N/A names the plan's way to give the GPU count", function()
  -- main (newuser48 F7): "gpus: N in the info files", which a plan user has not got
  local d = t.tmpdir()
  local stages = { { rate = 4, n = 40, latency = ipsynth.queue(0.1) }, { rate = 8, n = 40, latency = ipsynth.queue(0.1) } }
  local c = t.compare_ab(ipsynth.run(d .. "/x", stages, { summary = true }),
    ipsynth.run(d .. "/y", stages, { summary = true }), { "--harness", "inference-perf" })
  -- (the cell "N/A [n]", its reason in the row's note under the Headline, readable55)
  t.eq(t.table_rows(c.md, "Headline")["Per GPU"][2], "N/A (accelerator counts unknown: gpus: N in the info files)")
  -- the same workspace as a plan made it (its plan.yaml beside), read again by analyze.lua
  t.write(c.ws .. "/plan.yaml", "runs:\n  a: {label: x}\n  b: {label: y}\n")
  local r = proc.run { t.root() .. "/llmdlua", "analyze.lua", c.ws }
  t.eq(r.code, 0, r.stderr)
  t.eq(t.table_rows(t.read(c.ws .. "/comparison_report.md"), "Headline")["Per GPU"][2], "N/A (accelerator counts "
    .. "unknown: runs.a.info and runs.b.info: {gpus: N} in the plan, or gpus: N in the info files)")
end)

-- audit53 F3: a stratified test that left out the loads a run was not known to sustain, and
-- that could not decide (4 and 4 repeats over 2 load points: no p below the
-- exact van Elteren's least, 0.0556 here), said "not shown to differ" of whole-run figures that
-- pool those loads (inferencemax's TTFT p90 +92.7 %, 2344 against 4516 ms, where vLLM's files of
-- the same requests said "not comparable"). Expected by hand: the figures pool loads no test
-- compared, so "not comparable", the pooled loads named, the test's limit beside it.
t.test("a stratified test that cannot decide over loads it left out: not comparable, never not shown to differ",
  function()
  local decision, json = require "llmd.decision", require "llmd.json"
  local test = { test = "mann_whitney", p = 1, p_min = 0.0556, strata = 2, units = "repeats", n_a = 4, n_b = 4,
    z = 0, overloaded = { a = json.array { "11/s" }, b = json.array { "10/s", "11/s" } } }
  local v = decision.verdict { key = "ttft_p90_ms", a = 2344.1, b = 4516.1, test = test, min_effect = 2,
    comparable = true, like_for_like = true }
  t.eq(v.verdict, "not comparable", v.note)
  t.ok(v.note:find("^the whole%-run figures pool load points where a run was overloaded, which the test left out; "),
    v.note)
  t.ok(v.note:find("can give no p below 0.0556", 1, true), v.note)
  -- the same test with no load left out stays "not shown to differ" (nothing pooled it did not test)
  test.overloaded = nil
  v = decision.verdict { key = "ttft_p90_ms", a = 2344.1, b = 4516.1, test = test, min_effect = 2, comparable = true,
    like_for_like = true }
  t.eq(v.verdict, "not shown to differ", v.note)
end)

-- satur54: a run whose saturation is unknown from its lowest load on (its stage 0 file says 2
-- req/s requested, yet 80 requests went out every 0.25 s: 4.03 req/s achieved, "the file's rates
-- cannot both be right") was read as sustained at every load by the tests and the whole-run
-- rows: on main they stratified over 2, 8 and 16/s, slow's 16/s (a 0.1 s server sent 16 req/s:
-- overloaded, E2E p90 2166 ms) among them, and said "no clear difference" / "untested" of
-- figures pooled over it. Expected by hand: no load of slow is known to be sustained, so every
-- whole-run row is "not comparable", naming its loads, and no capacity is read for slow.
t.test("a saturation unknown from the lowest load: whole-run rows not comparable, nothing pooled as sustained",
  function()
    local d = t.tmpdir()
    local function stages(svc, first)
      local out = {}
      for i, r in ipairs { first, 8, 16 } do
        out[#out + 1] = { rate = r, n = 80, latency = ipsynth.queue(svc), offered = i == 1 and 2 or nil }
      end
      return out
    end
    local c = t.compare_ab(ipsynth.run(d .. "/slow", stages(0.1, 4), { summary = true }),
      ipsynth.run(d .. "/fast", stages(0.05, 2), { summary = true }), { "--a-label", "slow", "--b-label", "fast",
        "--harness", "inference-perf", "--slo", "latency_p90_ms=500" })
    local sa = c.json.saturation.a
    t.eq({ sa.unknown, sa.sustained_upto, sa.point }, { true, 0, nil }, sa.reason)
    t.contains(sa.reason, "the file's rates cannot both be right")
    -- (tidy55: unknown reads unknown, with its reason, never "where a run was overloaded": the
    -- reason is the saturation's own, asserted above)
    local why = ("the whole-run figures pool load points not known to be sustained (2/s, 8/s, 16/s in A; A's "
      .. "saturation is unknown: %s), so they are not comparable"):format(sa.reason)
    for _, key in ipairs { "throughput_req_s", "latency_p90_ms", "ttft_p90_ms", "tpot_p90_ms", "error_rate_pct" } do
      local r = t.perf_row(c.json, key)
      t.eq({ r.verdict, r.winner, r.pools_overloaded }, { "not comparable", nil,
        { a = { "2/s", "8/s", "16/s" }, b = {} } }, key)
      t.contains(r.evidence, why)
    end
    t.eq(c.json.capacity.a.kind, "unknown")
    t.contains(c.json.capacity.a.reason, "the lowest load point could not be judged")
    -- no text of the report calls those loads overloaded
    local md = c.md
    t.ok(not md:find("where a run was overloaded", 1, true), md)
    t.contains(md, "those figures pool load points not known to be sustained (A's saturation is unknown: " .. sa.reason
      .. "; past saturation, or past a load whose saturation could not be judged, the latency may measure the queue")
  end)
