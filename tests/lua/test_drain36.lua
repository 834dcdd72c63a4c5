-- Saturation without per-request start times (drain36): inference-perf stage files alone and
-- vLLM results without --save-detailed are judged by the drain-reduced rate, completed /
-- (window - least latency), not by the achieved rate, whose window also counts the last
-- requests' own latency (audit35 F1). Every expected value is from tests/sim/drain36_sim.py
-- (numpy, on the same simulated requests; its output lines are quoted beside each value).
local t = require "testlib"
local json = require "llmd.json"
local ipsynth = require "ipsynth"

local F = t.fixtures()

-- the runs: stage files only (no per-request file), sent on schedule (schedule_delay 1 ms
-- at most), 8 output tokens (tests/lua/ipsynth.lua)
local SCHEDULED = { mean = 0.0005, min = 0, median = 0.0005, max = 0.001 }
local function ip_stages(d, stages) return ipsynth.run(d, stages, { schedule_delay = SCHEDULED }) end
local queue = ipsynth.queue

local function const(l) return function() return l end end

local DRAIN = "completed / (window - least latency), the harness's rate without the latency every request carries, "
  .. "as the files have no per-request start times"

t.test("inference-perf stage files alone: a server that kept up with 20 s answers is not 'saturated at its lowest "
  .. "load'; an M/D/1 queue still is", function()
  -- sim "ip kept stage 0/1": 600 at 10 req/s and 720 at 12, every answer 20 s after its
  -- request: the achieved rate reads 75.09 % and 75.08 % of the offered (the old rule: saturated
  -- at the lowest load); the drain-reduced rate is 100.00 % of the sends' rate at both.
  -- "ip queue stage 1": 720 at 12 req/s through one server of 9.6 req/s: drain-reduced
  -- 9.613344543 req/s, 80.00 % of the 12.02 req/s sent; the drain, 15.08 s, is the longest
  -- latency (0.1042 to 15.08 s): a kept-up server drains that long with a chance of at most
  -- 0.01 (above the p99)
  local d = t.tmpdir()
  local a = ip_stages(d .. "/kept", { { rate = 10, n = 600, latency = const(20) },
    { rate = 12, n = 720, latency = const(20) } })
  local b = ip_stages(d .. "/queue", { { rate = 10, n = 600, latency = const(20) },
    { rate = 12, n = 720, latency = queue(1 / 9.6) } })
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "kept", "--b-label", "queue", "--harness",
    "inference-perf" }
  t.eq(r.code, 0, r.stderr)
  local j = json.read(ws .. "/comparison.json")
  local sa, sb = j.saturation.a, j.saturation.b
  t.eq({ sa.none, sa.unknown, sa.basis }, { true, nil, "drain" }, sa.reason)
  t.eq(sa.reason, "every load point kept up: the drain-reduced rate was 95 % or more of the rate requests were "
    .. "offered at (" .. DRAIN .. "); the achieved rate, first request to last answer, was below 95 % of the offered "
    .. "at load points 1 (75.1 %), 2 (75.1 %), but it also counts the last requests' own latency (the drain): judged "
    .. "by the drain-reduced rate, they kept up")
  -- the figure ranked is the drain-reduced rate too (fig36; main had the harness's achieved
  -- 9.009384767): sim "ip kept stage 1 ... reduced 12.0167 req/s", by hand 720 / (719 / 12)
  -- (the window, 719 / 12 + 20 s, read back from the file's 14 digits)
  t.near(sa.max_sustained_rps, 720 * 12 / 719, 1e-7)
  t.eq({ sb.point, sb.basis }, { 2, "drain" }, sb.reason)
  t.eq(sb.reason, "at 12 req/s offered the drain-reduced rate was only 9.613 req/s (80.0 % of the 12.02 req/s "
    .. "requests were sent at, on their schedule, below 95 %; " .. DRAIN .. "); a queue: the last requests were "
    .. "among the slowest; a server that kept up drains as long as this (15.08 s past the last request, its "
    .. "latencies 0.1042 to 15.08 s) with a chance of at most 0.01; the achieved rate, first request to last "
    .. "answer, was below 95 % of the offered at load point 1 (75.1 %), but it also counts the last requests' own "
    .. "latency (the drain): judged by the drain-reduced rate, it kept up")
  -- the run model records what each stage was judged by
  local rm = json.read(ws .. "/run-a/run_model.json")
  t.eq(rm.stages[1].drain.basis, "completed / (window - least latency)")
  t.near(rm.stages[1].drain.window_s, 79.9, 1e-6)
end)

t.test("inference-perf stage files alone: a kept-up server whose latencies spread over 10 to 30 s is not called "
  .. "saturated (unknown, with why)", function()
  -- sim "ip spread": 600 at 10 req/s, each answered 10 to 30 s later (scrambled, no queue:
  -- the pace reads 98.12 %): the achieved rate is 68.26 % of the offered, the drain-reduced
  -- 7.702248304 req/s, 76.9 % of the sends' rate; its drain, 28 s, is one a server that kept up
  -- makes with a chance of 1 (the p50 is below it, the p90 not): no call
  local d = t.tmpdir()
  local function spread(n) return function(k) return 10 + 20 * ((k * 389) % n) / (n - 1) end end
  local a = ip_stages(d .. "/spread", { { rate = 10, n = 600, latency = spread(600) },
    { rate = 12, n = 720, latency = spread(720) } })
  local b = ip_stages(d .. "/kept", { { rate = 10, n = 600, latency = const(20) },
    { rate = 12, n = 720, latency = const(20) } })
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "spread", "--b-label", "kept", "--harness",
    "inference-perf" }
  t.eq(r.code, 0, r.stderr)
  local s = json.read(ws .. "/comparison.json").saturation.a
  t.eq({ s.point, s.unknown, s.spread }, { nil, true, true }, s.reason)
  t.eq(s.reason, "point 1 (stage 0): at 10 req/s offered the drain-reduced rate was 7.702 req/s (76.9 % of the 10.02 "
    .. "req/s requests were sent at, on their schedule, below 95 %; " .. DRAIN .. "), but the files cannot tell a "
    .. "queue from the latencies' spread (10 to 30 s): a server that kept up drains as long as this (28 s past the "
    .. "last request, its latencies 10 to 30 s) with a chance of 1, above 0.05, so whether the server kept up there "
    .. "is unknown; per-request start times (inference-perf's per-request file, vLLM's --save-detailed) would tell")
end)

-- A vLLM result without --save-detailed (llm-d-benchmark's default): the detailed fixture's
-- per-request arrays removed as vLLM's writer removes them, `latencies` kept (in the order
-- requests were sent). Points {rate, n, latency(k, start)}: n requests 1 / rate s apart.
local function vllm_plain(dir, points)
  t.mkdir(dir)
  for i, p in ipairs(points) do
    local d = json.read(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json")
    for _, k in ipairs { "input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts", "errors" } do
      d[k] = nil
    end
    d.latencies, d.queue_times = {}, {}
    local last = -math.huge
    for k = 0, p.n - 1 do
      local st = 100 + k / p.rate
      local l = p.latency(k, st)
      d.latencies[k + 1], d.queue_times[k + 1] = l, 0
      last = math.max(last, st + l)
    end
    d.num_prompts, d.completed, d.failed = p.n, p.n, 0
    d.request_rate, d.max_concurrency = p.rate, json.null
    d.duration = last - 100
    d.request_throughput = p.n / d.duration
    t.write(("%s/benchmark_%02d.json"):format(dir, i), t.vllm_text(d))
  end
  return dir
end

t.test("vLLM without --save-detailed: 20 s answers kept up; a queue whose last requests were the slowest saturated",
  function()
  -- sim "vllm kept": 200 at 10 req/s and 240 at 12, 20 s each: achieved 5.012531328 and
  -- 6.012526096 req/s (50.13 %, 50.10 %: the old rule, saturated at the lowest load); the
  -- drain-reduced rate 100.50 % and 100.42 % of the offered. "vllm queue": 240 at 12 req/s
  -- through one server of 9.6 req/s: drain-reduced 9.640167364 req/s (80.33 %), and its last
  -- 24 requests the 24 slowest: by the rank sum a chance of 4.750982833e-16 in no order
  local a = vllm_plain(t.tmpdir() .. "/kept", { { rate = 10, n = 200, latency = const(20) },
    { rate = 12, n = 240, latency = const(20) } })
  local b = vllm_plain(t.tmpdir() .. "/queue", { { rate = 10, n = 200, latency = const(20) },
    { rate = 12, n = 240, latency = queue(1 / 9.6) } })
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "kept", "--b-label", "queue" }
  t.eq(r.code, 0, r.stderr)
  local j = json.read(ws .. "/comparison.json")
  local sa, sb = j.saturation.a, j.saturation.b
  t.eq({ sa.none, sa.unknown, sa.basis }, { true, nil, "drain" }, sa.reason)
  t.ok(sa.reason:find("at load points 1 (50.1 %), 2 (50.1 %), but it also counts the last requests' own latency",
    1, true), sa.reason)
  -- the drain-reduced rate ranked (fig36; main: the achieved 6.012526096): sim "vllm kept: 240
  -- at 12 req/s ... reduced 12.0502 req/s", by hand 240 / (239 / 12)
  t.near(sa.max_sustained_rps, 240 * 12 / 239, 1e-8)
  t.eq({ sb.point, sb.basis }, { 2, "drain" }, sb.reason)
  t.eq(sb.reason, "at 12 req/s offered the drain-reduced rate was only 9.64 req/s (80.3 % of the offered, below 95 %; "
    .. DRAIN .. "); a queue: the last requests were among the slowest; latencies in no particular order rank the last "
    .. "24 requests this high with a chance of 4.8e-16; the achieved rate, first request to last answer, "
    .. "was below 95 % of the offered at load point 1 (50.1 %), but it also counts the last requests' own latency "
    .. "(the drain): judged by the drain-reduced rate, it kept up")
  -- (main: the achieved 5.012531328) sim "vllm kept: 200 at 10 req/s ... reduced 10.0503",
  -- by hand 200 / (199 / 10)
  t.near(sb.max_sustained_rps, 200 * 10 / 199, 1e-8)
end)

t.test("analyze.lua on a workspace saved before the drain-reduced rate says its saturation is the achieved rate's, "
  .. "and --reextract judges it again", function()
  -- the kept-up run of the first test (20 s answers: the achieved rate 75.1 % of the offered),
  -- its run_model.json made as an older llmdlua saved it: no drain figures, no drain_saved
  local d = t.tmpdir()
  local a = ip_stages(d .. "/kept", { { rate = 10, n = 600, latency = const(20) },
    { rate = 12, n = 720, latency = const(20) } })
  local b = ip_stages(d .. "/again", { { rate = 10, n = 600, latency = const(21) },
    { rate = 12, n = 720, latency = const(21) } })
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "kept", "--b-label", "again", "--harness",
    "inference-perf" }
  t.eq(r.code, 0, r.stderr)
  for _, x in ipairs { "a", "b" } do
    local p = ws .. "/run-" .. x .. "/run_model.json"
    local doc = json.read(p)
    doc.drain_saved = nil
    for _, st in ipairs(doc.stages) do st.drain = nil end
    t.write(p, json.encode(doc))
  end
  local run = require("llmd.proc").run
  local res = run { t.here() .. "/../../llmdlua", "analyze.lua", ws, "--quiet" }
  t.eq(res.code, 0, res.stderr)
  local line = "saved before llmdlua judged saturation without per-request start times by the drain-reduced rate, "
    .. "completed / (window - least latency): stages 0, 1 are judged by the achieved rate, which also counts the last "
    .. "requests' own latency (a server that kept up with long answers can read saturated)"
  t.ok(res.stderr:find("analyze.lua: warning: kept (a): " .. line .. "; `llmdlua analyze.lua " .. ws
    .. " --reextract` reads the results again", 1, true), res.stderr)
  local md = t.read(ws .. "/comparison_report.md")
  -- (the command with this workspace's path, cap37; its backticks escaped in the Markdown)
  t.ok(md:find("- kept: " .. line .. "; \\`llmdlua analyze.lua " .. ws .. " --reextract\\` reads the results again and "
    .. "judges saturation by the pace or the drain-reduced rate", 1, true), md)
  -- (no disagreement of the run's own files: the Summary does not say its figures are in doubt)
  t.ok(not md:find("figures are in doubt", 1, true), md)
  -- judged as before (the old rule): saturated at its lowest load
  t.eq(json.read(ws .. "/comparison.json").saturation.a.point, 1)
  res = run { t.here() .. "/../../llmdlua", "analyze.lua", ws, "--quiet", "--reextract" }
  t.eq(res.code, 0, res.stderr)
  t.ok(not res.stderr:find("saved before", 1, true), res.stderr)
  local s = json.read(ws .. "/comparison.json").saturation.a
  t.eq({ s.none, s.basis }, { true, "drain" }, s.reason)
end)
