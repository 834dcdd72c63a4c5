-- Session 35's lead fixes: findings of the new-user trial (newuser35) that were small enough
-- to fix beside the helpers. Expected values by hand or from the fixture files, as written.
local t = require "testlib"
local json = require "llmd.json"
local ipsynth = require "ipsynth"

local F = t.fixtures()

t.test("one load point against a run with none: the chart is drawn with N/A, not a gnuplot crash", function()
  -- A: the benchmark report's one stage (10 req/s offered); B: inference-perf's per-request
  -- file alone, which has no load stage. gnuplot 5.4 crashed (signal 11) on the labels of B's
  -- NaN row, and the whole comparison stopped with no report.
  local a, b = t.tmpdir() .. "/br", t.tmpdir() .. "/ipr"
  t.mkdir(a)
  t.mkdir(b)
  t.copy(F .. "/benchmark-report/br_v0_2_example.yaml", a .. "/br_v0_2_example.yaml")
  t.copy(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json", b .. "/per_request_lifecycle_metrics.json")
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "br", "--b-label", "ipr" }
  t.eq(r.code, 0, r.stderr)
  local svg = t.read(ws .. "/charts/latency_throughput.svg")
  t.ok(svg:find(">N/A<", 1, true), "B's place says N/A")
  local md = t.read(ws .. "/comparison_report.md")
  t.ok(md:find("ipr: no measured load point, so N/A in the chart.", 1, true), md)
  local chart
  for _, c in ipairs(json.read(ws .. "/comparison.json").charts.list) do
    if c.name == "latency_throughput" then chart = c end
  end
  t.eq({ chart.drawn, chart.reason }, { true, nil })
end)

-- An inference-perf run in folder d, stage files and the per-request file (tests/lua/ipsynth.lua:
-- per stage {rate, n, latency(k, start) -> e2e}, n requests sent every 1 / rate s, 8 output
-- tokens each)
local function ip_run(d, stages) return ipsynth.run(d, stages, { per_request = true }) end

t.test("saturation by the answers' pace: a server that kept up with long answers is not 'saturated at its lowest "
  .. "load'; one that fell behind still is (audit35 F1)", function()
  -- A: 100 requests at 5 req/s (sent over 19.8 s), each answered after 0.2 + 0.4 (k mod 10) s,
  -- never queued: the last answer comes 3.8 s after the last request, so the achieved rate,
  -- 100 / (19.8 + 3.8) = 4.2373 req/s, is 84.7 % of the offered (the old rule: "saturated
  -- already at its lowest load"); then 100 at 6 req/s alike. B: the same first stage; then
  -- 200 at 10 req/s through one server answering one request at a time in 0.125 s (8 req/s):
  -- its k-th answer at k * 0.125 s after the first request, so answers come at 8 req/s
  -- against 10 sent, 80 % (by hand).
  local d = t.tmpdir()
  local kept = function(k) return 0.2 + 0.4 * (k % 10) end
  local a = ip_run(d .. "/kept", { { rate = 5, n = 100, latency = kept }, { rate = 6, n = 100, latency = kept } })
  local queue = ipsynth.queue(0.125)
  local b = ip_run(d .. "/behind", { { rate = 5, n = 100, latency = kept }, { rate = 10, n = 200, latency = queue } })
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "kept", "--b-label", "behind", "--harness",
    "inference-perf" }
  t.eq(r.code, 0, r.stderr)
  local j = json.read(ws .. "/comparison.json")
  local sa, sb = j.saturation.a, j.saturation.b
  t.eq(sa.none, true, sa.reason)
  t.ok(sa.reason:find("every load point kept up: answers came back at 95 % or more of the rate requests were sent",
    1, true), sa.reason)
  -- the figure is the answers' pace (loadpoints.THROUGHPUT_DEFINITION), not the harness's
  -- 100 / (99 / 6 + 3.8) = 4.926: at 6 req/s the send rate 99 x 0.8 / (p90 - p10 of k / 6)
  -- = 6 over the least-squares slope of finish on start, 1.0237624 (exact in Python's
  -- fractions; the latencies' k mod 10 pattern leans on k), = 5.8607350 (within 1e-6: epoch
  -- times near 1.77e9 s carry about 2e-7 s of rounding each)
  t.near(sa.max_sustained_rps, 5.860735009671179, 1e-6)
  t.eq(sb.point, 2, sb.reason)
  t.eq(sb.reason, "at 10 req/s offered answers came back at only 8 req/s against requests sent at 10 (80.0 %, "
    .. "below 95 %; the sends over their middle 80 %, the answers by the slope of their times on the sends', which no "
    .. "latency, long or spread, moves)")
  -- B's lowest load kept up alike: its max sustained is that load's answers' pace, the send
  -- rate / the slope of finish on start (as above, 5 req/s: 4.9029126), not the harness's
  -- 100 / 23.6 = 4.237
  t.near(sb.max_sustained_rps, 4.9029126213592225, 1e-6)
end)

t.test("saturation by the answers' pace in vLLM's detailed results (start_times and latencies)", function()
  -- point 1: 40 requests at 10 req/s (start_times 0.1 s apart), each answered in 4 s, so
  -- vLLM's duration, first request to last answer, is 3.9 + 4 = 7.9 s and its achieved rate
  -- 40 / 7.9 = 5.06 req/s, 50.6 % of the offered (the old rule: saturated at its lowest
  -- load); answers came every 0.1 s as sent: kept up. Point 2: 40 at 20 req/s through a
  -- server answering every 1/15 s (the k-th answer at 4 + k / 15 s after the first request):
  -- 15 req/s against 20, 75 % (by hand).
  local src = t.latency_ladder { { 10, t.spread(0.1, 0.1, 40) }, { 20, t.spread(0.1, 0.1, 40) } }
  local dir = t.tmpdir() .. "/v"
  t.mkdir(dir)
  for i, gap in ipairs { 0.1, 1 / 15 } do
    local name = ("benchmark_%02d.json"):format(i)
    local d = json.read(src .. "/" .. name)
    local step = 1 / (i == 1 and 10 or 20)
    for k = 1, 40 do
      d.start_times[k] = 100 + (k - 1) * step
      d.latencies[k] = 4 + (k - 1) * gap - (k - 1) * step
    end
    d.duration = d.start_times[40] + d.latencies[40] - 100
    d.request_throughput = 40 / d.duration
    t.write(dir .. "/" .. name, json.encode(d))
  end
  t.copy_tree(dir, dir .. "2")
  local ws, r = t.compare { "--a", dir, "--b", dir .. "2", "--a-label", "a", "--b-label", "b" }
  t.eq(r.code, 0, r.stderr)
  local s = json.read(ws .. "/comparison.json").saturation.a
  t.eq(s.point, 2, s.reason)
  t.eq(s.reason, "at 20 req/s offered answers came back at only 15 req/s against requests sent at 20 (75.0 %, "
    .. "below 95 %; the sends over their middle 80 %, the answers by the slope of their times on the sends', which no "
    .. "latency, long or spread, moves)")
  -- max sustained: point 1's answers' pace, 10 req/s (answers 0.1 s apart, by hand: slope 1),
  -- not vLLM's own 40 / 7.9 = 5.06 (loadpoints.THROUGHPUT_DEFINITION)
  t.near(s.max_sustained_rps, 10, 1e-9)
end)

t.test("treatments' Verdict line per GPU gives the two figures it orders", function()
  -- the kubecon pair with vllm on 1 GPU and chunk on 2, SLO TTFT p90 <= 200 ms. python3 on the
  -- stage files, at the drain-reduced rates completed / (window - least latency): vllm met
  -- the SLO up to its last load before saturation, stage 3's 92.2133 req/s (a lower bound),
  -- 92.213 per GPU; chunk's TTFT p90 crosses 200 ms between stage 3 (127.7552 req/s, 37.245
  -- ms) and stage 4 (169.4273 req/s, 226.5056 ms): 127.7552 + (200 - 37.245) / (226.5056 -
  -- 37.245) * (169.4273 - 127.7552) = 163.5912 req/s, 81.796 per GPU
  local ip = F .. "/inference-perf"
  local out = t.tmpdir()
  local r = require("llmd.proc").run { t.here() .. "/../../llmdlua", "treatments.lua", "--run", "vllm=" .. ip
    .. "/kubecon-na-2025_vllm", "--run", "chunk=" .. ip .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching",
    "--gpus", "vllm=1,chunk=2", "--slo", "ttft_p90_ms=200", "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  -- (capa38: summary files carry no per-request data, so a load's pass or fail is one draw of
  -- unknown noise; vllm's 92.213 and chunk's 81.796 per GPU, 12.7 % apart, are within the
  -- 25 % gap such loads need to order two runs (decision.UNKNOWN_NOISE_GAP): no first per
  -- GPU, as test_nufix35a's ranks "1=")
  t.eq(json.read(out .. "/treatments.json").verdict_line, "Not like for like on cost: the treatments ran on "
    .. "different numbers of accelerators, so none is named best on totals; per GPU, none is shown first either "
    .. "(see below).")
end)
