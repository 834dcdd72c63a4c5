-- fixb38: correctness items left after session 37.
-- 1. inference-perf runs: the failures' design effect (err37) was 1 wherever llmdlua read a
--    run's per-request file: a run of several stages recorded no failed request's outcome per
--    stage (so the error rate's test fell back to Fisher's and bursts of failures near
--    saturation named false winners), and a one-stage run's fast lane left its successes out
--    of the outcomes (all failures, one value: design effect 1).
-- Expected values: tests/data/err_ref.py (numpy alone, on the generated files), python3 by
-- hand, or as said at each.
local t = require "testlib"
local proc = require "llmd.proc"
local decision = require "llmd.decision"
local harness = require "llmd.harness"
local lp = require "llmd.loadpoints"
local json = require "llmd.json"

local ROOT, LLMDLUA = t.root()
local PY = t.PY
local have_numpy = t.have_numpy()

-- an inference-perf run of queue_sim_ip.py (8 slots, 0.1 s + 99 x 0.02 s a request, 300 s
-- a stage, capacity about 3.8/s; the same server as test_err37's vLLM runs)
local function ipsim(name, seed, rates, extra)
  local dir = t.tmpdir() .. "/" .. name
  t.data_py("queue_sim_ip.py", dir, "--rates", rates, "--slots", "8", "--ttft0", "0.1", "--tpot", "0.02", "--outtok",
    "100", "--dur", "300", "--seed", seed, extra)
  return dir
end

local function ref(a, b)
  return t.data_json("err_ref.py", a, b)
end

local function error_row(a, b)
  return t.perf_row(t.compare_ab(a, b).json, "error_rate_pct")
end

if have_numpy then
  local RATES = "2,3,3.5,3.7"

  t.test("inference-perf, several stages, A/A with a client timeout: the failures' design effect, no winner",
    function()
      -- seeds 9 and 10, failures in bursts at 3.5 and 3.7 req/s: before, Fisher's test
      -- stratified by stage (every stage's design effect 1) gave p = 2.7e-06, "B better";
      -- err_ref.py: design effects 1, 1, 6.25, 6.42 (the larger side's), z = 1.865
      local a = ipsim("ipaa9", 9, RATES, { "--timeout", "3" })
      local b = ipsim("ipaa10", 10, RATES, { "--timeout", "3" })
      local want = ref(a, b)
      local ra, rb, pa, pb = t.extract_pair(a, b)
      local r = decision.stratified_count_test(ra, rb, pa, pb)
      t.eq(r.test, "cmh")
      t.near(r.z, want.z, 1e-9)
      t.eq(r.strata, want.strata)
      -- each stage's own design effect, against err_ref.py's on that side alone
      local r1 = proc.run { PY, "-c", ([[
import sys, json
sys.path.insert(0, %q)
from err_ref import deff, points
print(json.dumps([deff(v) for k, v in sorted(points(%q).items())]))]]):format(ROOT .. "/tests/data", a) }
      t.eq(r1.code, 0, r1.stderr)
      local each = json.decode(r1.stdout)
      for i, st in ipairs(ra.stages) do t.near(st.metrics.sample_deff.failed, each[i], 1e-9) end
      t.ok(each[4] > 3, "the bursts at 3.7 req/s: " .. each[4])
      local row = error_row(a, b)
      t.eq(row.verdict, "no clear difference", row.evidence)
      t.ok(row.evidence:find("design effect", 1, true), row.evidence)
    end)

  t.test("inference-perf, several stages, 2 % against 10 % of requests failing independently: still found",
    function()
      local a = ipsim("ipab2", 21, RATES, { "--fail", "0.02" })
      local b = ipsim("ipab10", 22, RATES, { "--fail", "0.1" })
      local want = ref(a, b)
      local ra, rb, pa, pb = t.extract_pair(a, b)
      local r = decision.stratified_count_test(ra, rb, pa, pb)
      t.near(r.z, want.z, 1e-9)
      t.ok(r.p < 1e-9, r.p)
      t.eq(error_row(a, b).verdict, "A better")
    end)

  t.test("inference-perf, one stage (the fast lane): its successes are in the failures' design effect", function()
    -- before, the successes the fast lane adds in C were left out of the outcomes: the
    -- failures alone, one value, design effect 1. err_ref.py's deff on the same requests
    local a = ipsim("ipone15", 15, "3.7", { "--timeout", "3" })
    local r = proc.run { PY, "-c", ([[
import sys, json
sys.path.insert(0, %q)
from err_ref import deff, points
print(json.dumps(deff(points(%q)[3.7])))]]):format(ROOT .. "/tests/data", a) }
    t.eq(r.code, 0, r.stderr)
    local want = json.decode(r.stdout)
    t.ok(want > 3, want)
    local run = harness.extract(a)
    t.near(run.overall.sample_deff.failed, want, 1e-9)
  end)
else
  t.test("inference-perf runs with bursts of failures (skipped: no numpy for queue_sim_ip.py)", function() end)
end

-- 5. InferenceX (inferencemax) files written without --save-detailed: current InferenceX
-- deletes ttfts, itls, generated_texts and errors and keeps input_lens and output_lens
-- (FORMATS.md §4); each such file was warned of as "per-request arrays of different
-- lengths" (ttfts 0, errors 0), though nothing in it disagrees.
local function inferencex(edit)
  local d = t.tmpdir()
  local doc = json.read(t.fixtures() .. "/inferencemax/synthetic-result.json")
  for _, k in ipairs { "ttfts", "itls", "generated_texts", "errors" } do doc[k] = nil end
  doc.benchmark_start_time_unix, doc.benchmark_end_time_unix = 1771234500.0, 1771234500.0 + doc.duration
  if edit then edit(doc) end
  json.write(d .. "/result.json", doc)
  local r = proc.run { LLMDLUA, "-e", ("local run = require('llmd.harness').extract(%q) "
    .. "print(run.harness, run.status) for _, w in ipairs(run.warnings) do print(w) end "
    .. "print(run.overall.values.requests_failed, run.overall.values.ttft_p90_ms)"):format(d) }
  t.eq(r.code, 0, r.stderr)
  return r, doc, d
end

t.test("inferencemax: InferenceX without --save-detailed (input_lens and output_lens only) is no array mismatch",
  function()
    local r, doc = inferencex()
    t.eq(r.stderr, "")
    -- no warning; the file's own figures: failed = num_prompts - completed = 8 - 7 = 1 (by
    -- hand from the fixture), TTFT p90 its p90_ttft_ms
    t.eq(r.stdout, ("inferencemax\tok\n1\t%.14g\n"):format(doc.p90_ttft_ms))
  end)

t.test("inferencemax: input_lens and output_lens of different lengths are still said", function()
  -- a real inconsistency: output_lens cut to 3 of 8 (input_lens keeps 8, num_prompts 8)
  local r, _, d = inferencex(function(doc) doc.output_lens = { doc.output_lens[1], doc.output_lens[2],
    doc.output_lens[3] } end)
  local want = d .. "/result.json: per-request arrays of different lengths (output_lens 3, input_lens 8, ttfts 0, "
    .. "errors 0, num_prompts 8): its per-request data is not used, only the file's own summary statistics"
  t.eq(r.stderr, "warning: " .. want .. "\n")
  t.ok(r.stdout:find(want, 1, true), r.stdout)
end)

-- 4. --warmup takes stage indexes: compare.lua's --help did not say how stages are numbered
-- (from 0, in the order they ran), so "--warmup 1" for "the first stage" left the first in.
t.test("compare.lua --help and extract.lua --help say --warmup's stages are numbered from 0 in time order",
  function()
    local r = proc.run { LLMDLUA, ROOT .. "/lua/compare.lua", "--help" }
    t.eq(r.code, 0, r.stderr)
    local text = r.stdout:gsub("%s+", " ")
    t.ok(text:find("stages are numbered from 0 in time order, as they ran: inference-perf's stage_N by N, "
      .. "vllm-benchmark's files by their date", 1, true), r.stdout)
    r = proc.run { LLMDLUA, ROOT .. "/lua/extract.lua", "--help" }
    t.ok(r.stdout:gsub("%s+", " "):find("(numbered from 0 in time order, as in compare.lua --help)", 1, true), r.stdout)
    t.ok(t.read(ROOT .. "/README.md"):gsub("%s+", " "):find("Stages are numbered from 0 in time order, as they ran",
      1, true), "README")
  end)

-- 2. Saturation from files with statistics only (agg37b): a point whose drain-reduced rate's
-- bounds straddle 95 % of the offered (N/A from a bound) ended the max sustained search at
-- once, though a higher load whose lower bound reaches 95 % kept up, and so settles it, as a
-- point unjudged for its spread or too few requests already is (saturation.resolved).
if have_numpy then
  -- my own arithmetic on the files (FORMATS.md §3, llmd.loadpoints.drain_rates' definition):
  -- n = completed, w = duration, P = the lowest e2e percentile q (p0.1 ... median), below
  -- which ceil(q / 100 n) successes may lie: lo = max((n - that) / (w - P), n / w); no e2e
  -- percentile: n / w
  local LO = [[
import json, glob, math, sys
out = {}
for f in glob.glob(sys.argv[1] + "/*.json"):
    x = json.load(open(f))
    n, w = x["completed"], x["duration"]
    ps = [(float(k[1:-len("_e2el_ms")]), v / 1000) for k, v in x.items() if k.startswith("p") and k.endswith("_e2el_ms")]
    if "median_e2el_ms" in x: ps.append((50.0, x["median_e2el_ms"] / 1000))
    lo = n / w
    if ps:
        q, p = min(ps)
        lo = max((n - math.ceil(q / 100 * n - 1e-9)) / (w - p), n / w)
    out[str(x["request_rate"])] = lo
print(json.dumps(out))
]]
  t.test("saturation: a point N/A by its bounds is settled by a higher load whose lower bound kept up", function()
    -- 480 slots of 30 s answers (capacity 16 req/s) at 4, 8 and 12 req/s for 300 s (seed 2,
    -- as test_agg37's "long" run), the 4 req/s file without any e2el statistic (vLLM's
    -- default --percentile-metrics): its completed / window is 94.3 % of 4, below 95 %, and
    -- nothing bounds its least latency, so it alone is N/A; 8 and 12 req/s keep p0.1 and
    -- their lower bounds reach 95 %
    local dir = t.tmpdir() .. "/mixed"
    t.data_py("queue_sim.py", dir, "--rates", "4,8,12", "--slots", "480", "--ttft0", "0.1", "--tpot", "0.302",
      "--outtok", "100", "--noise", "0.02", "--seed", "2", "--dur", "300", "--aggregate-only")
    for f in require("lfs").dir(dir) do
      if f:match("%.json$") then
        local d = json.read(dir .. "/" .. f)
        if d.request_rate == 4 then
          for k in pairs(d) do if k:match("_e2el_ms$") then d[k] = nil end end
          t.write(dir .. "/" .. f, json.encode(d))
        end
      end
    end
    local r = proc.run { PY, "-c", LO, dir }
    t.eq(r.code, 0, r.stderr)
    local lo = json.decode(r.stdout)
    t.ok(lo["4.0"] < 0.95 * 4 and lo["8.0"] >= 0.95 * 8 and lo["12.0"] >= 0.95 * 12, r.stdout)
    local pts = lp.points(harness.extract(dir))
    local s = lp.saturation(pts)
    -- before: { none, unknown, bound } at point 1, max sustained N/A
    t.eq({ s.none, s.unknown, s.bound, s.point }, { true, nil, nil, nil }, s.reason)
    t.near(s.max_sustained_rps, lo["12.0"], 1e-9 * lo["12.0"])
    t.eq({ #s.resolved, s.resolved[1].point, s.resolved[1].by }, { 1, 1, 2 })
    t.ok(s.reason:find("load point 1 (4 req/s offered) could not be judged on its own, but load point 2, at 8 req/s "
      .. "offered, kept up with its successful requests alone, so the server kept up with the lower load too", 1, true),
      s.reason)
    -- where no higher load settles it (the 4 req/s file alone), it stays N/A with its reason
    local solo = {}
    for _, p in ipairs(pts) do if p.offered == 4 then solo[1] = p end end
    s = lp.saturation(solo)
    t.eq({ s.none, s.unknown, s.bound, s.sustained_upto }, { true, true, true, 0 }, s.reason)
    t.ok(s.reason:find("point 1 (stage 0): at 4 req/s offered completed / window was", 1, true), s.reason)
  end)
end

-- 3. A max sustained figure cut by one crashed repeat: the row's note gave only the mean
-- share of failed requests, and the treatments' Status column read "ok".
do
  local tr = require "llmd.treatments"
  -- exp-7's vLLM summary (200 prompts) at this offered rate with this achieved throughput,
  -- `failed` of its requests failed (test_audit3's way: duration = completed / achieved, a
  -- shortfall with latencies rising in send order)
  local written = 0
  local function summary(rate, achieved, failed)
    local doc = json.read(t.fixtures() .. "/vllm-benchmark/exp-7_H100/vllm-2replicas/benchmark_2025-05-13_04-55-27.json")
    doc.request_rate, doc.request_throughput = rate, achieved
    doc.failed, doc.completed = failed or 0, doc.completed - (failed or 0)
    written = written + 1
    doc.duration = doc.completed / achieved + written * 1e-6
    doc.output_throughput = doc.total_output_tokens / doc.duration
    doc.total_token_throughput = (doc.total_output_tokens + doc.total_input_tokens) / doc.duration
    if achieved < 0.95 * rate then t.queue_latencies(doc) end
    return doc
  end
  -- three repeats at 10, 20 and 40 req/s; repeat 2 crashed at 40: 122 of its 200 requests
  -- failed (61 %), 78 completed at 15.6 req/s; the others kept up with none failed
  local function reps()
    local dirs = {}
    for i = 1, 3 do
      local d = t.tmpdir()
      local pts = { { 10, 10 }, { 20, 19.9 + 0.05 * (i - 1) }, i == 2 and { 40, 15.6, 122 } or { 40, 40 } }
      for j, p in ipairs(pts) do
        t.write(("%s/benchmark_%02d.json"):format(d, j), json.encode(summary(p[1], p[2], p[3])))
      end
      dirs[i] = d
    end
    return dirs
  end

  t.test("one crashed repeat cuts the max sustained figure: its note names the repeat, the Status says it", function()
    local out = t.tmpdir()
    local m = tr.load { { label = "crash", dirs = reps() } }
    tr.write_report(out, m, {})
    local j = json.read(out .. "/treatments.json").treatments[1]
    -- by hand: 40 req/s failed 0, 122 and 0 of 200: 61 / 3 = 20.33 % by the mean, more than
    -- the 5 % limit, so the max sustained is 20 req/s's mean achieved, 19.95
    t.near(j.max_sustained_rps, 19.95, 1e-9)
    t.eq({ j.saturation.cause, j.saturation.point }, { "failures", 3 })
    t.eq(j.crashed_repeats, "1 of 3 repeats failed 61 % at 40 req/s")
    local md = t.read(out .. "/treatment_report.md")
    local row = md:match("\n(| crash |[^\n]*)")
    t.ok(row and row:find("then 20.33 % failed at load point 3 (40 req/s offered; repeat 2: 61 % failed, the others 0 "
      .. "and 0 %), more than 5 %", 1, true), row or md)
    -- the Status column: the crash, not "ok"
    t.ok(row:find("| 1 of 3 repeats failed 61 % at 40 req/s |", 1, true), row)
    t.ok(not row:find("| ok |", 1, true), row)
    local html = t.read(out .. "/treatment_report.html")
    t.ok(html:find("<td>1 of 3 repeats failed 61 % at 40 req/s</td>", 1, true), "html")
  end)

  t.test("crashed_repeats: only repeats over the limit beside one within it", function()
    local limit = { pct = 5, text = "5 %" }
    -- every repeat over the limit (a load none sustained): no crash; one run: none
    t.eq(lp.crashed_repeats({ repeats_failed_pct = { 30, 40, 50 } }, limit), nil)
    t.eq(lp.crashed_repeats({ repeats_failed_pct = { 30 } }, limit), nil)
    local c = lp.crashed_repeats({ repeats_failed_pct = { 0, 61, 2, 9 } }, limit)
    t.eq({ #c, c[1].n, c[1].pct, c[2].n, c[2].pct, c.repeats }, { 2, 2, 61, 4, 9, 4 })
    t.eq(c.others, { 0, 2 })
    -- a mean within the limit from one crashed repeat (0, 14.5, 0: 4.83 %) is said too
    t.eq(lp.crashed_repeats_text { none = true, limit = limit, failed_within = { { offered = 30,
      repeats_failed_pct = { 0, 14.5, 0 } } } }, "1 of 3 repeats failed 14.5 % at 30 req/s")
  end)
end
