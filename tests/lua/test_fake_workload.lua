-- The fake cluster's run_only.sh runs the workload the benchmark config gives it, as the real
-- one does (../shared/reference/llmd-benchmark.md section 5: each workload key its own
-- experiment <uid>_<workload> and results folder; inference-perf runs the workload's
-- load.stages): each stage asked for is the recorded stage of the nearest requested rate,
-- sent at the asked rate for the asked duration. So a run's results match the config it sent
-- (no "do not match the benchmark config" check), and the summary agrees with the stages.
-- Expected figures: python3 over the fixtures' stage files (json.load), written beside each.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"

local function only_dir(d)
  local out = {}
  for n in lfs.dir(d) do
    if n ~= "." and n ~= ".." and n ~= "vllm-logs" and lfs.attributes(d .. "/" .. n, "mode") == "directory" then
      out[#out + 1] = n
    end
  end
  t.eq(#out, 1, d .. ": one results folder")
  return d .. "/" .. out[1], out[1]
end

t.test("two stages asked (1 req/s for 30 s, 100 req/s for 10 s): two stages measured at those rates, the "
  .. "summary their sum; the report names no mismatch", function()
  local s = t.try_setup { parent = "." }
  local d = s.dir
  t.write(d .. "/template.yaml", (t.read(d .. "/template.yaml"):gsub("stages: %[{rate: 1, duration: 30}%]",
    "stages: [{rate: 1, duration: 30}, {rate: 100, duration: 10}]")))
  t.ok(t.read(d .. "/template.yaml"):find("rate: 100", 1, true), "template edited")
  local r = proc.run({ LLMDLUA, "compare.lua", "--yes", "--quiet", "--plan", s.plan }, { env = s.env, timeout = 180 })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(d)[1]
  local res, name = only_dir(w .. "/run-a/results")
  t.ok(name:match("^inference%-perf_%d+_sanity_random_try$"), name)
  local files = {}
  for n in lfs.dir(res) do if n:match("%.json$") then files[#files + 1] = n end end
  table.sort(files)
  t.eq(files, { "stage_0_lifecycle_metrics.json", "stage_0_prometheus_metrics.json", "stage_1_lifecycle_metrics.json",
    "stage_1_prometheus_metrics.json", "summary_lifecycle_metrics.json", "summary_prometheus_metrics.json" })
  -- run A (the kubecon vLLM run): 100 req/s is nearest its recorded 92.19 (stage 3; |ln(100/92.19)| 0.081
  -- against 0.204 for 122.59): 1000 requests, sent at 92.22409851829183 * 100 / 92.19 = 100.03698722018856
  -- req/s, so over 9.996302645529784 s; its window that send span plus stage 3's drain past its last
  -- request (5531 / 91.35730480202015 - 59.97346317768097 = 0.5690254820510674 s, python3), so
  -- completed at 1000 / 10.565328127580852 = 94.64921372290313 req/s (it was 99.0967619069532, the
  -- recorded rate scaled: a window of 10.091 s, shorter than the send span plus the least latency,
  -- 0.562 s, which no real run writes, fixl50), TTFT p90 stage 3's 0.06436099205166101 s; 1 req/s is its
  -- stage 0 (60 recorded, 30 asked)
  local s0, s1 = json.read(res .. "/stage_0_lifecycle_metrics.json"), json.read(res .. "/stage_1_lifecycle_metrics.json")
  t.eq(s0.load_summary.requested_rate, 1)
  t.eq(s0.load_summary.count, 30)
  t.eq(s0.successes.count, 30)
  t.eq(s1.load_summary.requested_rate, 100)
  t.eq(s1.load_summary.count, 1000)
  t.eq(s1.successes.count, 1000)
  t.eq(s1.failures.count, 0)
  t.near(s1.load_summary.achieved_rate, 100.03698722018856, 1e-9)
  t.near(s1.load_summary.send_duration, 1000 / 100.03698722018856, 1e-9)
  t.near(s1.successes.throughput.requests_per_sec, 94.64921372290313, 1e-9)
  -- (output tokens: stage 3's per success, 1000 of them, over that window, python3: 5899.053743082011)
  t.near(s1.successes.throughput.output_tokens_per_sec, 5899.053743082011, 1e-6)
  -- each stage's window - least latency at least its send span, as a real run's
  for _, st in ipairs { s0, s1 } do
    local win = st.successes.count / st.successes.throughput.requests_per_sec
    t.ok(win - st.successes.latency.request_latency.min >= st.load_summary.send_duration - 1e-9,
      ("window %.6f, least latency %.6f, send span %.6f"):format(win, st.successes.latency.request_latency.min,
        st.load_summary.send_duration))
  end
  t.eq(s1.successes.latency.time_to_first_token.p90, 0.06436099205166101)
  -- the summary: every request of the run, 30 + 1000; TTFT mean the count-weighted means
  -- ((30 * 0.0... + 1000 * 0.0...) / 1030 = 0.04998295633053012), min and max the stages' extremes
  local sm = json.read(res .. "/summary_lifecycle_metrics.json")
  t.eq(sm.load_summary.count, 1030)
  t.eq(sm.successes.count, 1030)
  t.eq(sm.failures.count, 0)
  t.near(sm.successes.latency.time_to_first_token.mean, 0.04998295633053012, 1e-12)
  t.eq(sm.successes.latency.time_to_first_token.min, 0.02462312299758196)
  t.eq(sm.successes.latency.time_to_first_token.max, 0.27017339202575386)
  -- run B (the chunked run): 100 req/s nearest its 85.5 (stage 2; 0.157 against 0.245 for 127.75)
  local b1 = json.read(only_dir(w .. "/run-b/results") .. "/stage_1_lifecycle_metrics.json")
  t.eq(b1.load_summary.requested_rate, 100)
  t.eq(b1.successes.latency.time_to_first_token.p90, 0.03318592401919887)
  -- the results are the config's: no mismatch said, no files disagreeing
  local md = t.read(w .. "/comparison_report.md")
  t.lacks(md, "do not match the benchmark config")
  t.lacks(md, "the result files disagree")
  t.lacks(r.stdout .. r.stderr, "do not match the benchmark config")
end)

t.test("a workload without load.stages (another harness's shape) gets the recorded results as they are, and says so",
  function()
  local d = proc.realpath(t.tmpdir())
  t.mkdir(d .. "/cluster")
  t.mkdir(d .. "/out")
  -- the fake's state: a namespace with the results PVC (as compare.lua's step 60 makes it)
  local env = t.fake_env(d .. "/cluster", { FAKE_RESULTS = BASE })
  local k = proc.run({ "kubectl", "-n", "ns1", "apply", "-f", "-" }, { env = env, stdin = "apiVersion: v1\n"
    .. "kind: PersistentVolumeClaim\nmetadata:\n  name: res\nspec:\n  accessModes: [ReadWriteMany]\n"
    .. "  resources: {requests: {storage: 1Gi}}\n" })
  t.eq(k.code, 0, k.stderr)
  proc.run({ "kubectl", "-n", "ns1", "apply", "-f", "-" }, { env = env, stdin = "apiVersion: v1\nkind: Service\n"
    .. "metadata:\n  name: gw\nspec:\n  ports: [{port: 80}]\n" })
  t.write(d .. "/config.yaml", "endpoint: {stack_name: s, model: m, namespace: ns1, base_url: 'http://gw.ns1:80'}\n"
    .. "harness: {name: inference-perf, results_pvc: res, namespace: ns1}\n"
    .. "workload:\n  chat:\n    profile: sweep\n    rate: [1, 2]\n")
  local r = proc.run({ "run_only.sh", "-c", d .. "/config.yaml" }, { env = env })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.contains(r.stdout, "fake run_only.sh: the workload has no load.stages: the recorded results " .. BASE
    .. " copied as they are\n")
  t.contains(r.stdout, "==> Running harness inference-perf workload chat\n")
end)

-- fixe52: two stages asked at one rate (40 req/s twice) were made from one recorded stage
-- (31.4, run A's stage 1) by the same arithmetic, and written byte for byte the same: the run
-- then failed "stage_0... and stage_1... are the same file, byte for byte", which a real
-- inference-perf never gives (each stage is a measurement of its own: its sends' schedule
-- delays, its send span and its first-to-last window are clock readings;
-- ../shared/fixtures/FORMATS.md, Lifecycle summary schema). Each stage the fake makes from a
-- recorded stage already used is its own measurement: the files differ, the folder reads as a
-- run of two stages, and a file genuinely saved twice there is still refused.
t.test("two stages asked at one rate are two measurements, not one file written twice", function()
  local d = proc.realpath(t.tmpdir())
  t.mkdir(d .. "/cluster")
  local env = t.fake_env(d .. "/cluster", { FAKE_RESULTS = BASE })
  local k = proc.run({ "kubectl", "-n", "ns1", "apply", "-f", "-" }, { env = env, stdin = "apiVersion: v1\n"
    .. "kind: PersistentVolumeClaim\nmetadata:\n  name: res\nspec:\n  accessModes: [ReadWriteMany]\n"
    .. "  resources: {requests: {storage: 1Gi}}\n" })
  t.eq(k.code, 0, k.stderr)
  proc.run({ "kubectl", "-n", "ns1", "apply", "-f", "-" }, { env = env, stdin = "apiVersion: v1\nkind: Service\n"
    .. "metadata:\n  name: gw\nspec:\n  ports: [{port: 80}]\n" })
  t.write(d .. "/config.yaml", "endpoint: {stack_name: s, model: m, namespace: ns1, base_url: 'http://gw.ns1:80'}\n"
    .. "harness: {name: inference-perf, results_pvc: res, namespace: ns1}\n"
    .. "workload:\n  chat:\n    load:\n      type: constant\n      stages: [{rate: 40, duration: 10}, {rate: 40, duration: 10}]\n")
  local r = proc.run({ "run_only.sh", "-c", d .. "/config.yaml" }, { env = env })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local res = only_dir(d .. "/cluster/pvc/ns1/res")
  for _, kind in ipairs { "lifecycle", "prometheus" } do
    local a = t.read(("%s/stage_0_%s_metrics.json"):format(res, kind))
    local b = t.read(("%s/stage_1_%s_metrics.json"):format(res, kind))
    t.ok(a and b and a ~= b, kind .. ": two stages' files, not one written twice")
  end
  local s0, s1 = json.read(res .. "/stage_0_lifecycle_metrics.json"), json.read(res .. "/stage_1_lifecycle_metrics.json")
  -- both at the rate asked, 400 requests each (40 req/s for 10 s)
  for _, s in ipairs { s0, s1 } do
    t.eq(s.load_summary.requested_rate, 40)
    t.eq(s.load_summary.count, 400)
  end
  -- the clock readings differ; each stage's window still at least its send span plus the least latency
  t.ok(s0.load_summary.schedule_delay.max ~= s1.load_summary.schedule_delay.max, "schedule delays")
  for _, st in ipairs { s0, s1 } do
    local win = st.successes.count / st.successes.throughput.requests_per_sec
    t.ok(win - st.successes.latency.request_latency.min >= st.load_summary.send_duration - 1e-9)
  end
  -- read as a run of two stages (it was refused as one file saved twice)
  local harness = require "llmd.harness"
  local ex = harness.extract(res)
  t.eq(#ex.stages, 2)
  -- (fake56) and two repeats: the second a new draw from the recorded stage's distribution,
  -- not the recording scaled (which the comparison reads as one measurement); its TTFT p90
  -- within 10 % of the recorded one (400 draws: the p90's sampling error, about
  -- sqrt(0.9 x 0.1 / 400) = 1.5 % of the distribution, is a few % of it here)
  t.eq(require("llmd.loadpoints").scaled_copy(ex.stages[1], ex.stages[2]), false)
  t.eq(require("llmd.loadpoints").points(ex)[1].repeats, 2)
  local q0, q1 = s0.successes.latency.time_to_first_token.p90, s1.successes.latency.time_to_first_token.p90
  t.ok(q0 ~= q1 and math.abs(q1 / q0 - 1) < 0.1, ("TTFT p90 %g, then %g"):format(q0, q1))
  -- the real-harness path still refuses a file genuinely saved twice beside them
  assert(proc.run({ "cp", res .. "/stage_1_lifecycle_metrics.json", res .. "/stage_2_lifecycle_metrics.json" }).ok)
  t.contains(t.raises("are the same file, byte for byte", harness.extract, res), "stage_1_lifecycle_metrics.json")
end)

-- (newuser54 #5) A recording's per_request_lifecycle_metrics.json was dropped, said nowhere:
-- the replayed run had no per-request data although the recording had. Now each stage made
-- takes its recorded stage's requests (the k-th block in start order, by the stage files'
-- counts), moved in time to follow the stage before, a recorded stage taken again a new draw
-- of its requests (a measurement of its own: next test); where a stage is not asked as recorded
-- (another rate or count) the file is left out and the benchmark's output says why. The
-- recording here: kubecon stages 0 (1 req/s, 60 requests) and 1 (31.4 req/s, 1884), and a
-- per-request file made below (stage 0's requests 1 s apart, 0.5 s long; stage 1's 1/31.4 s
-- apart from 100 s on, 0.3 + (i mod 7) ms long), so every expected time is this arithmetic.
t.test("the recording's per-request file is replayed with the stages made of it, or left out and said", function()
  local d = proc.realpath(t.tmpdir())
  local rec = d .. "/rec"
  t.mkdir(rec)
  for i = 0, 1 do
    local n = ("stage_%d_lifecycle_metrics.json"):format(i)
    t.write(rec .. "/" .. n, t.read(BASE .. "/" .. n))
  end
  local T0, reqs = 1771234500, json.array {}
  local function req(st, len)
    return { start_time = st, end_time = st + len, request = "{}", response = json.null,
      info = { request_metrics = { text = { input_tokens = 10 } }, response_metrics = { output_tokens = 2,
        output_token_times = json.array { st + 0.1, st + 0.2 } } } }
  end
  for i = 0, 59 do reqs[#reqs + 1] = req(T0 + i, 0.5) end
  for i = 0, 1883 do reqs[#reqs + 1] = req(T0 + 100 + i / 31.4, 0.3 + i % 7 / 1000) end
  json.write(rec .. "/per_request_lifecycle_metrics.json", reqs)
  t.mkdir(d .. "/cluster")
  local env = t.fake_env(d .. "/cluster", { FAKE_RESULTS = rec })
  local k = proc.run({ "kubectl", "-n", "ns1", "apply", "-f", "-" }, { env = env, stdin = "apiVersion: v1\n"
    .. "kind: PersistentVolumeClaim\nmetadata:\n  name: res\nspec:\n  accessModes: [ReadWriteMany]\n"
    .. "  resources: {requests: {storage: 1Gi}}\n" })
  t.eq(k.code, 0, k.stderr)
  proc.run({ "kubectl", "-n", "ns1", "apply", "-f", "-" }, { env = env, stdin = "apiVersion: v1\nkind: Service\n"
    .. "metadata:\n  name: gw\nspec:\n  ports: [{port: 80}]\n" })
  local function bench(stages)
    t.write(d .. "/config.yaml", "endpoint: {stack_name: s, model: m, namespace: ns1, base_url: 'http://gw.ns1:80'}\n"
      .. "harness: {name: inference-perf, results_pvc: res, namespace: ns1}\n"
      .. "workload:\n  chat:\n    load: {type: constant, stages: " .. stages .. "}\n")
    local r = proc.run({ "run_only.sh", "-c", d .. "/config.yaml" }, { env = env })
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local exp = r.stdout:match("==> Results in /requests/(%S+)")
    return d .. "/cluster/pvc/ns1/res/" .. exp, r
  end
  -- asked as recorded: 1 req/s for 60 s, then 31.4 req/s for 60 s twice (1884 requests each)
  local res = bench("[{rate: 1, duration: 60}, {rate: 31.4, duration: 60}, {rate: 31.4, duration: 60}]")
  local got = json.read(res .. "/per_request_lifecycle_metrics.json")
  t.eq(#got, 60 + 1884 + 1884)
  -- stage 0 as recorded; stage 1 (recorded stage 1) from 1 s after stage 0's last answer
  -- (T0 + 59.5 + 1); stage 2 (recorded stage 1 again) from 1 s after stage 1's last answer,
  -- (T0 + 60.5 + 1883 / 31.4 + 0.3 + 1: request 1883 the last to end), its requests a new draw
  -- of stage 1's (first token at 0.1 s, last at 0.2 s, as each drawn one; to 1e-6 s: the epoch
  -- times carry about 2.4e-7 s of float precision)
  t.near(got[1].start_time, T0, 1e-6)
  t.near(got[61].start_time, T0 + 60.5, 1e-6)
  t.near(got[61].end_time - got[61].start_time, 0.3, 1e-6)
  local s2 = T0 + 60.5 + 1883 / 31.4 + 0.3 + 1
  t.near(got[61 + 1884].start_time, s2, 1e-6)
  local l2 = got[61 + 1884].end_time - got[61 + 1884].start_time
  t.ok(l2 > 0.3 - 1e-6 and l2 < 0.306 + 1e-6 and math.abs(l2 * 1000 - math.floor(l2 * 1000 + 0.5)) < 1e-3,
    "a recorded stage 1 length, 0.300 to 0.306 s: " .. l2)
  t.near(got[61 + 1884].info.response_metrics.output_token_times[2] - got[61 + 1884].start_time, 0.2, 1e-6)
  for i = 2, #got do t.ok(got[i].start_time > got[i - 1].start_time, "in start order at " .. i) end
  -- the folder reads as one run of three stages, with per-request figures
  local r = proc.run { LLMDLUA, "extract.lua", res, "--json" }
  t.eq(r.code, 0, r.stderr)
  local j = json.decode(r.stdout)
  t.eq(#j.stages, 3)
  -- another rate than recorded (2 req/s: recorded stage 0's requests are 1 s apart): left out, said
  local res2, r2 = bench("[{rate: 2, duration: 60}]")
  t.eq(lfs.attributes(res2 .. "/per_request_lifecycle_metrics.json", "mode"), nil)
  t.contains(r2.stdout, "fake run_only.sh: per_request_lifecycle_metrics.json of " .. rec .. " not replayed (the "
    .. "stage and summary files are): stage 0 asks 120 requests at 2/s, made from recorded stage 0's 60 at 1/s, "
    .. "whose requests are not that stage's\n")
end)

-- (fake56) A stage taken again was the same recording with latencies 0.01 % longer, so a
-- comparison read "repeats" of zero spread (intervals "-47.7 % to -47.7 %"); and the summary
-- was a mixture of the stages' percentiles, not the requests' (TTFT p90 1,185.2 ms against
-- numpy's 1,013.7 ms on the same requests), so every fake ladder run warned that its own files
-- disagree. Now a stage taken again is a seeded bootstrap of its recorded stage's requests
-- (its schedule kept, each answer drawn with replacement: the same draw on a rerun), and the
-- summary's and that stage's latency and length dicts are the requests' own, by numpy's
-- percentile (its default, linear), as inference-perf's summarize_requests takes them.
-- The recording: kubecon stages 0 (60 requests, 1 s apart) and 1 (1884, 1/31.4 s apart),
-- each request's TTFT, gap and output tokens varied by its index (below); expected values:
-- numpy (python3) over the per-request file the fake wrote.
t.test("a stage taken again is a new draw of its requests, and the summary is the requests' own", function()
  local d = proc.realpath(t.tmpdir())
  local rec = d .. "/rec"
  t.mkdir(rec)
  for i = 0, 1 do
    local n = ("stage_%d_lifecycle_metrics.json"):format(i)
    t.write(rec .. "/" .. n, t.read(BASE .. "/" .. n))
  end
  local T0, reqs = 1771234500, json.array {}
  local function req(st, i, slow)
    local ttft, gap, out = slow * (0.05 + (i * 37 % 101) / 1000), 0.01 + (i * 53 % 17) / 1000, 2 + i % 9
    local times = json.array {}
    for k = 0, out - 1 do times[#times + 1] = st + ttft + k * gap end
    return { start_time = st, end_time = times[#times] + 0.001, request = "{}", response = json.null, error = json.null,
      info = { request_metrics = { text = { input_tokens = 100 + i % 50 } }, response_metrics = { output_tokens = out,
        output_token_times = times } } }
  end
  for i = 0, 59 do reqs[#reqs + 1] = req(T0 + i, i, 1) end
  for i = 0, 1883 do reqs[#reqs + 1] = req(T0 + 100 + i / 31.4, i, 4) end
  json.write(rec .. "/per_request_lifecycle_metrics.json", reqs)
  -- the recorded stage files made to agree with these requests (a recording whose own files
  -- agree, as a real one's do): numpy's summaries of each stage's requests, its throughputs
  -- over first start to last end (FORMATS.md, Lifecycle summary schema)
  local mk = proc.run { t.PY, "-c", [==[
import json, sys, numpy as np
d = sys.argv[1]
reqs = json.load(open(d + "/per_request_lifecycle_metrics.json"))
P = {"p0.1": 0.1, "p1": 1, "p5": 5, "p10": 10, "p25": 25, "median": 50, "p75": 75, "p90": 90, "p95": 95,
     "p99": 99, "p99.9": 99.9}
def sm(v):
    out = {"mean": float(np.mean(v)), "min": float(min(v)), "max": float(max(v))}
    out.update({k: float(np.percentile(v, q)) for k, q in P.items()})
    return out
for i, rs in enumerate([reqs[:60], reqs[60:]]):
    f = "%s/stage_%d_lifecycle_metrics.json" % (d, i)
    doc = json.load(open(f))
    tt = [r["info"]["response_metrics"]["output_token_times"] for r in rs]
    out = [r["info"]["response_metrics"]["output_tokens"] for r in rs]
    inp = [r["info"]["request_metrics"]["text"]["input_tokens"] for r in rs]
    e2e = [r["end_time"] - r["start_time"] for r in rs]
    w = max(r["end_time"] for r in rs) - min(r["start_time"] for r in rs)
    doc["successes"] = {"count": len(rs), "latency": {
        "request_latency": sm(e2e),
        "time_to_first_token": sm([t[0] - r["start_time"] for t, r in zip(tt, rs)]),
        "time_per_output_token": sm([(t[-1] - t[0]) / (o - 1) for t, o in zip(tt, out)]),
        "normalized_time_per_output_token": sm([e / o for e, o in zip(e2e, out)]),
        "inter_token_latency": sm([b - a for t in tt for a, b in zip(t, t[1:])])},
        "prompt_len": sm(inp), "output_len": sm(out),
        "throughput": {"input_tokens_per_sec": sum(inp) / w, "output_tokens_per_sec": sum(out) / w,
                       "total_tokens_per_sec": (sum(inp) + sum(out)) / w, "requests_per_sec": len(rs) / w}}
    doc["failures"] = {"count": 0, "request_latency": None, "prompt_len": None}
    json.dump(doc, open(f, "w"))
]==], rec }
  t.eq(mk.code, 0, mk.stderr)
  local function bench(cluster)
    t.mkdir(cluster)
    local env = t.fake_env(cluster, { FAKE_RESULTS = rec })
    t.eq(proc.run({ "kubectl", "-n", "ns1", "apply", "-f", "-" }, { env = env, stdin = "apiVersion: v1\n"
      .. "kind: PersistentVolumeClaim\nmetadata:\n  name: res\nspec:\n  accessModes: [ReadWriteMany]\n"
      .. "  resources: {requests: {storage: 1Gi}}\n" }).code, 0)
    proc.run({ "kubectl", "-n", "ns1", "apply", "-f", "-" }, { env = env, stdin = "apiVersion: v1\nkind: Service\n"
      .. "metadata:\n  name: gw\nspec:\n  ports: [{port: 80}]\n" })
    t.write(d .. "/config.yaml", "endpoint: {stack_name: s, model: m, namespace: ns1, base_url: 'http://gw.ns1:80'}\n"
      .. "harness: {name: inference-perf, results_pvc: res, namespace: ns1}\n"
      .. "workload:\n  chat:\n    load: {type: constant, stages: [{rate: 1, duration: 60}, {rate: 31.4, duration: 60}, "
      .. "{rate: 31.4, duration: 60}]}\n")
    local r = proc.run({ "run_only.sh", "-c", d .. "/config.yaml" }, { env = env })
    t.eq(r.code, 0, r.stdout .. r.stderr)
    return cluster .. "/pvc/ns1/res/" .. r.stdout:match("==> Results in /requests/(%S+)")
  end
  local res = bench(d .. "/c1")
  local got = json.read(res .. "/per_request_lifecycle_metrics.json")
  t.eq(#got, 60 + 1884 + 1884)
  local function lat(q) return q.end_time - q.start_time end
  local first, again, seen = {}, {}, {}
  for k = 61, 60 + 1884 do first[#first + 1] = lat(got[k]); seen[("%.6f"):format(lat(got[k]))] = true end
  for k = 61 + 1884, #got do again[#again + 1] = lat(got[k]) end
  -- every latency of the repeat is one of the recorded stage's (a resample), but not in the
  -- same order, and not the same set: a bootstrap of 1884 leaves out about 1/e of them
  local same = 0
  for k, v in ipairs(again) do
    t.ok(seen[("%.6f"):format(v)], "request " .. k .. " of the repeat is a recorded answer")
    if math.abs(v - first[k]) < 1e-9 then same = same + 1 end
  end
  t.ok(same < 1884 / 2, "the repeat is not the recording again: " .. same .. " of 1884 in place")
  -- the starts are the schedule's: 1/31.4 s apart
  t.near(got[62 + 1884].start_time - got[61 + 1884].start_time, 1 / 31.4, 1e-6)
  -- numpy over the file written: the summary's and the repeated stage's dicts are its own
  local py = proc.run { t.PY, "-c", [==[
import json, sys, numpy as np
reqs = json.load(open(sys.argv[1]))
def dicts(rs):
    ttft = [r["info"]["response_metrics"]["output_token_times"][0] - r["start_time"] for r in rs]
    e2e = [r["end_time"] - r["start_time"] for r in rs]
    itl = [b - a for r in rs for a, b in zip(r["info"]["response_metrics"]["output_token_times"],
           r["info"]["response_metrics"]["output_token_times"][1:])]
    out = [r["info"]["response_metrics"]["output_tokens"] for r in rs]
    return [float(np.percentile(ttft, 90)), float(np.percentile(e2e, 50)), float(np.mean(e2e)),
            float(np.percentile(itl, 99)), float(np.percentile(out, 25))]
print(json.dumps({"all": dicts(reqs), "again": dicts(reqs[1944:])}))
]==], res .. "/per_request_lifecycle_metrics.json" }
  t.eq(py.code, 0, py.stderr)
  local want = json.decode(py.stdout)
  local function check(doc, w, what)
    local s = doc.successes
    local have = { s.latency.time_to_first_token.p90, s.latency.request_latency.median, s.latency.request_latency.mean,
      s.latency.inter_token_latency.p99, s.output_len.p25 }
    for i, v in ipairs(w) do t.near(have[i], v, 1e-9 * math.max(1, math.abs(v)), what .. " figure " .. i) end
  end
  check(json.read(res .. "/summary_lifecycle_metrics.json"), want.all, "summary")
  check(json.read(res .. "/stage_2_lifecycle_metrics.json"), want.again, "stage 2")
  -- the same namespace, stack and workload again: the same draw
  local got2 = json.read(bench(d .. "/c2") .. "/per_request_lifecycle_metrics.json")
  for k = 61 + 1884, #got do t.near(lat(got2[k]), lat(got[k]), 1e-9, "rerun request " .. k) end
  -- the folder reads as one run whose files agree
  local r = proc.run { LLMDLUA, "extract.lua", res, "--json" }
  t.eq(r.code, 0, r.stderr)
  local j = json.decode(r.stdout)
  t.eq(#j.stages, 3)
  t.lacks(table.concat(j.warnings or {}, "\n"), "per-request data")
  t.lacks(table.concat(j.warnings or {}, "\n"), "disagree")
  t.eq(j.status, "ok")
  -- and the check still fires where the summary is not the requests' (its TTFT p90 17 % over
  -- numpy's, as the mixture wrote 1,185.2 against 1,013.7 ms)
  local sp = res .. "/summary_lifecycle_metrics.json"
  local sm = json.read(sp)
  sm.successes.latency.time_to_first_token.p90 = want.all[1] * 1.17
  json.write(sp, sm)
  r = proc.run { LLMDLUA, "extract.lua", res, "--json" }
  j = json.decode(r.stdout)
  t.eq(j.status, "warnings")
  t.contains(table.concat(j.warnings, "\n"), ("ttft_p90_ms: computed from per-request data %.1f ms, "
    .. "summary_lifecycle_metrics.json says %.1f ms (14.5 %% apart); the per-request figure is used"):format(
    want.all[1] * 1000, want.all[1] * 1170))
end)

-- fixa56: the fake replays one recorded stage for every stage asked at one rate, so two
-- benchmarks (two runs, of other workloads or configs) wrote their stage 0 byte for byte
-- alike, which compare.lua refuses as one run's file copied into the other's folder
-- (llmd.comparison.check_shared_files); a real run's files are never another's (its clocks,
-- its request ids). Each benchmark of the cluster now writes its own readings where no figure
-- is read (a stage's schedule-delay mean, each Prometheus rate, each request's completion id),
-- so no file of one benchmark is one of another's, and every figure stays the recording's: two
-- runs of one workload are still one measurement twice to every figure (the A/A check's).
-- The recording: kubecon stages 0 (1 req/s, 60 requests) and 1 (31.4 req/s, 1884) with their
-- Prometheus files and a per-request file whose SSE answers carry completion ids.
t.test("two benchmarks of one recording write no file alike, with the same figures", function()
  local rm = require "llmd.runmodel"
  local harness = require "llmd.harness"
  local d = proc.realpath(t.tmpdir())
  local rec = d .. "/rec"
  t.mkdir(rec)
  for i = 0, 1 do
    for _, kind in ipairs { "lifecycle", "prometheus" } do
      local n = ("stage_%d_%s_metrics.json"):format(i, kind)
      t.write(rec .. "/" .. n, t.read(BASE .. "/" .. n))
    end
  end
  t.write(rec .. "/summary_prometheus_metrics.json", t.read(BASE .. "/summary_prometheus_metrics.json"))
  local T0, reqs = 1771234500, json.array {}
  local function req(i, st, len)
    return { start_time = st, end_time = st + len, request = "{}",
      response = ('data: {"id": "cmpl-%d", "object": "text_completion"}\n\ndata: [DONE]\n\n'):format(i),
      info = { request_metrics = { text = { input_tokens = 10 } }, response_metrics = { output_tokens = 2,
        output_token_times = json.array { st + 0.1, st + 0.2 } } } }
  end
  for i = 0, 59 do reqs[#reqs + 1] = req(i, T0 + i, 0.5) end
  for i = 0, 1883 do reqs[#reqs + 1] = req(60 + i, T0 + 100 + i / 31.4, 0.3) end
  json.write(rec .. "/per_request_lifecycle_metrics.json", reqs)
  t.mkdir(d .. "/cluster")
  local env = t.fake_env(d .. "/cluster", { FAKE_RESULTS = rec })
  local k = proc.run({ "kubectl", "-n", "ns1", "apply", "-f", "-" }, { env = env, stdin = "apiVersion: v1\n"
    .. "kind: PersistentVolumeClaim\nmetadata:\n  name: res\nspec:\n  accessModes: [ReadWriteMany]\n"
    .. "  resources: {requests: {storage: 1Gi}}\n" })
  t.eq(k.code, 0, k.stderr)
  proc.run({ "kubectl", "-n", "ns1", "apply", "-f", "-" }, { env = env, stdin = "apiVersion: v1\nkind: Service\n"
    .. "metadata:\n  name: gw\nspec:\n  ports: [{port: 80}]\n" })
  -- three benchmarks: the recorded ladder twice (an A/A), then a workload of its first stage only
  local function bench(stages)
    t.write(d .. "/config.yaml", "endpoint: {stack_name: s, model: m, namespace: ns1, base_url: 'http://gw.ns1:80'}\n"
      .. "harness: {name: inference-perf, results_pvc: res, namespace: ns1}\n"
      .. "workload:\n  chat:\n    load:\n      type: constant\n      stages: " .. stages .. "\n")
    local before = {}
    for n in lfs.dir(d .. "/cluster/pvc/ns1/res") do before[n] = true end
    local r = proc.run({ "run_only.sh", "-c", d .. "/config.yaml" }, { env = env })
    t.eq(r.code, 0, r.stdout .. r.stderr)
    t.lacks(r.stdout, "not replayed")
    for n in lfs.dir(d .. "/cluster/pvc/ns1/res") do
      if not before[n] and n ~= "." and n ~= ".." then return d .. "/cluster/pvc/ns1/res/" .. n end
    end
    error("no new results folder")
  end
  local ladder = "[{rate: 1, duration: 60}, {rate: 31.4, duration: 60}]"
  local a, b, c = bench(ladder), bench(ladder), bench("[{rate: 1, duration: 60}]")
  local function files(dir)
    local out = {}
    for n in lfs.dir(dir) do
      if n:match("%.json$") then out[#out + 1] = dir .. "/" .. n end
    end
    table.sort(out)
    return out
  end
  t.eq(#files(a), 7, table.concat(files(a), " ")) -- 2 stages x 2 kinds, 2 summaries, the per-request file
  -- no file of one benchmark is byte for byte one of another's (each was, before)
  for _, p in ipairs { { a, b }, { a, c }, { b, c } } do
    local shared = rm.shared_files(files(p[1]), files(p[2]))
    t.eq(#shared, 0, shared[1] and (shared[1][1] .. " = " .. shared[1][2]))
  end
  -- and every figure is the recording's: the A/A pair one measurement to the last digit, and
  -- the one-stage run's stage 0 that of the ladders' stage 0
  local xa, xb, xc = harness.extract(a), harness.extract(b), harness.extract(c)
  t.eq(rm.same_figures(xa, xb), true)
  t.eq(#xc.stages, 1)
  t.eq(rm.same_values(xa.stages[1].metrics, xc.stages[1].metrics), true)
  -- what differs is the run's own: the second benchmark's stage 0 schedule-delay mean 1 ns
  -- later, its Prometheus rates 1e-6 higher, its completion ids its own (the third's 2 ns, 2e-6)
  local s0 = json.read(BASE .. "/stage_0_lifecycle_metrics.json").load_summary.schedule_delay
  local p0 = json.read(BASE .. "/stage_0_prometheus_metrics.json").successes.rate
  for i, dir in ipairs { a, b, c } do
    local sd = json.read(dir .. "/stage_0_lifecycle_metrics.json").load_summary.schedule_delay
    t.near(sd.mean, s0.mean + (i - 1) * 1e-9, 1e-15)
    t.eq(sd.max, s0.max)
    t.near(json.read(dir .. "/stage_0_prometheus_metrics.json").successes.rate, p0 + (i - 1) * 1e-6, 1e-9)
  end
  local ids = {}
  for i, dir in ipairs { a, b } do
    ids[i] = json.read(dir .. "/per_request_lifecycle_metrics.json")[1].response:match('"id": "([^"]+)"')
  end
  t.eq(ids, { "cmpl-0", "cmpl-0-r1" })
end)
