-- Session 37 (fixa37): audit37's findings. Expected values from tests/sim/fixa37_sim.py
-- (numpy, on the same requests; its output lines quoted beside each value) or by hand.
local t = require "testlib"
local json = require "llmd.json"

-- A vLLM detailed run of repeats of one load point, 4 req/s offered: one file a repeat,
-- requests sent every 1 / rates[i] s, each answered L s later (TTFT 0.1 s), 64 output tokens.
local function repeats(rates, L, n)
  n = n or 240
  local src = t.latency_ladder { { 4, t.spread(0.1, 0.1, n) } }
  local d0 = json.read(src .. "/benchmark_01.json")
  local dir = t.tmpdir() .. "/r"
  t.mkdir(dir)
  for i, r in ipairs(rates) do
    local d = json.decode(json.encode(d0))
    for k = 1, n do
      d.start_times[k], d.ttfts[k], d.latencies[k] = 100 + (k - 1) / r, 0.1, L
      local g = {}
      for j = 1, 63 do g[j] = (L - 0.1) / 63 end
      d.itls[k] = g
    end
    -- (the summary's latency figures are the fixture's: left out, the per-request data gives them)
    for k in pairs(d) do if type(k) == "string" and k:match("_ms$") then d[k] = nil end end
    d.total_output_tokens, d.total_input_tokens = 64 * n, 256 * n
    d.duration = (n - 1) / r + L
    d.request_throughput = n / d.duration
    d.output_throughput = 64 * n / d.duration
    d.total_token_throughput = (64 + 256) * n / d.duration
    t.write(("%s/r4_%d.json"):format(dir, i), t.vllm_text(d))
  end
  return dir
end

t.test("#1 a run of repeats: the throughput rows show, and judge, the rate their test reads; the harness's beside it",
  function()
  -- A sends at 4.00, 3.98, 4.02 req/s, answers in 2 s; B at 4.14, 4.12, 4.16, answers in 11 s.
  -- Both kept up: the pace is the send rate. sim "row": A pace mean 4.0, harness mean
  -- 3.88664; B pace mean 4.14, harness 3.49194; Welch t 8.5732; +3.5 %. Main showed the
  -- harness's 3.887 and 3.492 (-10.2 %, "A better") beside a test on 4.00 against 4.14.
  local a, b = repeats({ 4.00, 3.98, 4.02 }, 2), repeats({ 4.14, 4.12, 4.16 }, 11)
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "short", "--b-label", "long" }
  t.eq(r.code, 0, r.stderr)
  local cmp = json.read(ws .. "/comparison.json")
  local rows = {}
  for _, x in ipairs(cmp.perf) do rows[x.key] = x end
  local rq, tk = rows.throughput_req_s, rows.throughput_tok_s
  t.near(rq.a, 4.0, 1e-9)
  t.near(rq.b, 4.14, 1e-9)
  t.near(rq.pct, 3.5, 1e-7)
  -- (fixd37: both kept up with what they were sent, so the difference is the clients' sends:
  -- no winner, test_fixd37.lua; the test's figures, in sig, are still the row's)
  t.eq({ rq.verdict, rq.follows_sends }, { "not comparable", true })
  -- the test reads the same figures the row shows
  t.near(rq.sig.mean_a, rq.a, 1e-12)
  t.near(rq.sig.mean_b, rq.b, 1e-12)
  t.near(rq.sig.t, 8.573214099741143, 1e-6)
  -- the harness's own rates beside them: sim "A ... harness mean 3.88664", "B ... 3.49194"
  t.near(rq.a_harness, 3.8866376460152723, 1e-9)
  t.near(rq.b_harness, 3.491944618736184, 1e-9)
  -- output tok/s: 64 tokens a request at the same rates (sim: 256.0 and 264.96; harness
  -- 248.745 and 223.484)
  t.near(tk.a, 256, 1e-9)
  t.near(tk.b, 264.96, 1e-9)
  t.eq({ tk.verdict, tk.follows_sends }, { "not comparable", true })
  t.near(tk.sig.mean_a, tk.a, 1e-9)
  t.near(tk.sig.mean_b, tk.b, 1e-9)
  t.near(tk.a_harness, 248.74480934497743, 1e-6)
  t.near(tk.b_harness, 223.48445559911576, 1e-6)
  local md = t.read(ws .. "/comparison_report.md")
  t.ok(md:find("| Request throughput | 4.000 req/s (mean of 3; harness 3.887) | 4.140 req/s (mean of 3; harness "
    .. "3.492) | +0.140 req/s | +3.5 % | no winner: both kept up |", 1, true), md)
  t.ok(md:find("| Output token throughput | 256.0 tok/s (mean of 3; harness 248.7) | 265.0 tok/s (mean of 3; "
    .. "harness 223.5) | +9.0 tok/s | +3.5 % | no winner: both kept up |", 1, true), md)
  t.ok(md:find("\"harness\" beside it is the harness's own completed / window", 1, true), md)
  -- the Summary names neither (fixd37), and never the harness's direction
  t.ok(not md:find("better in request throughput", 1, true), md)
  t.ok(not md:find("short better", 1, true), md)
  local html = t.read(ws .. "/comparison_report.html")
  t.ok(html:find("<td class=\"n why\">4.000 req/s (mean of 3; harness 3.887)</td>", 1, true), html)
  local csv = t.read(ws .. "/comparison.csv")
  local c = t.csv_row(csv, "throughput_req_s")
  t.near(tonumber(c[3]), 4.0, 1e-9)
  t.near(tonumber(c[4]), 4.14, 1e-9)
  t.eq(c[7], "not comparable")
  t.ok(c[11]:find("the harness's completed / window: short 3.887, long 3.492 req/s", 1, true), c[11])
end)

-- The requests of tests/sim/fixa37_sim.py's sim(seed, rate): SplitMix64 uniforms, Poisson
-- sends for 60 s from t = 100 s, each served in 0.1 + 1.98 x lognormal(0, 0.1) s by the first
-- of 10 slots to come free (FIFO). Returns the send times and the latencies, in send order.
local function fifo(seed, rate)
  local x = seed
  local function u()
    -- (Lua's integers wrap at 64 bits and >> is a logical shift: Python's masked ones)
    x = x + 0x9E3779B97F4A7C15
    local z = x
    z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ~ (z >> 27)) * 0x94D049BB133111EB
    z = z ~ (z >> 31)
    return ((z >> 11) + 0.5) / 2 ^ 53
  end
  local n = math.floor(rate * 60)
  local starts, tt = {}, 100.0
  for k = 1, n do
    starts[k] = tt
    tt = tt + -math.log(u()) / rate
  end
  local svc = {}
  for k = 1, n do
    local u1, u2 = u(), u()
    svc[k] = 0.1 + 1.98 * math.exp(0.1 * math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2))
  end
  local free, lat = {}, {}
  for j = 1, 10 do free[j] = starts[1] end
  for k = 1, n do
    local jmin = 1
    for j = 2, 10 do if free[j] < free[jmin] then jmin = j end end
    free[jmin] = math.max(free[jmin], starts[k]) + svc[k]
    lat[k] = free[jmin] - starts[k]
  end
  return starts, lat
end

-- A vLLM result without --save-detailed (test_drain36's way) of one load point: the
-- simulated latencies in send order, no start times.
local function vllm_plain(seed, rate)
  local starts, lat = fifo(seed, rate)
  local dir = t.tmpdir() .. "/v"
  t.mkdir(dir)
  local d = json.read(t.fixtures() .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json")
  for _, k in ipairs { "input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts", "errors" } do
    d[k] = nil
  end
  for k in pairs(d) do if type(k) == "string" and k:match("_ms$") then d[k] = nil end end
  d.latencies, d.queue_times = {}, {}
  local last = -math.huge
  for k = 1, #lat do
    d.latencies[k], d.queue_times[k] = lat[k], 0
    last = math.max(last, starts[k] + lat[k])
  end
  d.num_prompts, d.completed, d.failed = #lat, #lat, 0
  d.request_rate, d.max_concurrency = rate, json.null
  d.duration = last - 100
  d.request_throughput = #lat / d.duration
  t.write(dir .. "/benchmark_01.json", t.vllm_text(d))
  return dir
end

t.test("#2 vLLM without start times: kept-up servers whose latencies queue near capacity are not called saturated; "
  .. "an overload still is", function()
  -- sim "kept 4": 264 requests at 4.4 req/s, the pace 0.9976 (kept up); drain-reduced
  -- 4.137555787 req/s (94.04 %, short); last 26: z 3.240779, chance 0.000596 (main: saturated
  -- at the lowest load); design effect 11.224902, chance 0.166699: not a queue, unknown.
  -- "overloaded 1": 360 at 6.0 req/s, pace 0.8640; 4.813807065 req/s (80.23 %); z 9.843653,
  -- design effect 3.357777, chance 3.89491e-08: saturated.
  local ws, r = t.compare { "--a", vllm_plain(4, 4.4), "--b", vllm_plain(1, 6.0), "--a-label", "kept",
    "--b-label", "over" }
  t.eq(r.code, 0, r.stderr)
  local j = json.read(ws .. "/comparison.json")
  local sa, sb = j.saturation.a, j.saturation.b
  t.eq({ sa.point, sa.unknown, sa.spread }, { nil, true, true }, sa.reason)
  t.ok(sa.reason:find("at 4.4 req/s offered the drain-reduced rate was 4.138 req/s (94.0 % of the offered", 1, true),
    sa.reason)
  t.ok(sa.reason:find("latencies in no particular order, as alike as these are to their neighbours in send order (a "
    .. "design effect of 11.2), rank the last 26 requests this high with a chance of 0.17, above 0.05", 1, true),
    sa.reason)
  t.eq({ sb.point, sb.basis }, { 1, "drain" }, sb.reason)
  t.ok(sb.reason:find("at 6 req/s offered the drain-reduced rate was only 4.814 req/s (80.2 % of the offered", 1,
    true), sb.reason)
  t.ok(sb.reason:find("(a design effect of 3.36), rank the last 36 requests this high with a chance of 3.9e-08", 1,
    true), sb.reason)
  -- sim "kept 58": 94.36 % of 4.4 req/s, z 1.912546 (chance 0.0279: main saturated), design
  -- effect 17.089482, chance 0.32181
  ws, r = t.compare { "--a", vllm_plain(58, 4.4), "--b", vllm_plain(1, 6.0), "--a-label", "kept",
    "--b-label", "over" }
  t.eq(r.code, 0, r.stderr)
  sa = json.read(ws .. "/comparison.json").saturation.a
  t.eq({ sa.point, sa.unknown, sa.spread }, { nil, true, true }, sa.reason)
  t.ok(sa.reason:find("(a design effect of 17.1), rank the last 26 requests this high with a chance of 0.32", 1,
    true), sa.reason)
end)

-- A vLLM detailed ladder: points {rate, n, failed, sent, gap}: n requests offered at rate,
-- sent every 1 / sent s (sent: rate when nil), each answered 2 s later (TTFT 0.1 s, 64 output
-- tokens), or, with gap, the k-th answered 2 + (k - 1) gap s after the first request (a server
-- answering every gap s), or, failed, with vLLM's empty answer.
local function ladder(points)
  local src = t.latency_ladder { { 2, t.spread(0.1, 0.1, 4) } }
  local d0 = json.read(src .. "/benchmark_01.json")
  local dir = t.tmpdir() .. "/l"
  t.mkdir(dir)
  for i, pt in ipairs(points) do
    local rate, n, failed, sent, gap = pt[1], pt[2], pt[3], pt[4] or pt[1], pt[5]
    local d = json.decode(json.encode(d0))
    for k in pairs(d) do if type(k) == "string" and k:match("_ms$") then d[k] = nil end end
    for _, k in ipairs { "start_times", "ttfts", "latencies", "itls", "output_lens", "input_lens", "errors",
      "generated_texts" } do d[k] = {} end
    for k = 1, n do
      d.start_times[k], d.input_lens[k], d.generated_texts[k] = 100 + (k - 1) / sent, 256, ""
      local L = gap and 2 + (k - 1) * (gap - 1 / sent) or 2
      if failed then
        d.ttfts[k], d.latencies[k], d.output_lens[k], d.itls[k], d.errors[k] = 0, 0, 0, {}, "HTTP 503"
      else
        local g = {}
        for j = 1, 63 do g[j] = (L - 0.1) / 63 end
        d.ttfts[k], d.latencies[k], d.output_lens[k], d.itls[k], d.errors[k] = 0.1, L, 64, g, ""
      end
    end
    local ok = failed and 0 or n
    d.num_prompts, d.completed, d.failed, d.request_rate = n, ok, n - ok, rate
    d.duration = failed and (n - 1) / sent or math.max((n - 1) / sent + 2, gap and 2 + (n - 1) * gap or 0)
    d.request_throughput = ok / d.duration
    d.output_throughput, d.total_token_throughput = 64 * ok / d.duration, 320 * ok / d.duration
    d.total_output_tokens, d.total_input_tokens = 64 * ok, 256 * ok
    t.write(("%s/benchmark_%02d.json"):format(dir, i), t.vllm_text(d))
  end
  return dir
end

t.test("#3 a load point where every request failed is a failures point, not one of too few requests", function()
  -- 120 requests at 2 req/s and 240 at 4 kept up (sent every 1 / rate s, each answered 2 s
  -- later: the pace is the send rate, 2 and 4 req/s by hand); at 8 req/s all 480 failed:
  -- 100 % failed, more than the 5 % limit: max sustained 4 req/s, "then 100 % failed at load
  -- point 3". Main: N/A, "too few requests to judge saturation: load point 3 completed 0".
  local a = ladder { { 2, 120 }, { 4, 240 }, { 8, 480, true } }
  local b = ladder { { 2, 120 }, { 4, 240 } }
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "failing", "--b-label", "fine" }
  t.eq(r.code, 0, r.stderr)
  local s = json.read(ws .. "/comparison.json").saturation.a
  t.eq({ s.few, s.unknown, s.cause, s.point, s.failed_pct }, { nil, nil, "failures", 3, 100 }, s.reason)
  t.near(s.max_sustained_rps, 4, 1e-9)
  local md = t.read(ws .. "/comparison_report.md")
  t.ok(not md:find("too few requests to judge saturation", 1, true), md)
  t.ok(md:find("then 100 % failed at load point 3", 1, true), md:match("| Max sustained throughput[^\n]*"))
end)

t.test("#4 a capacity bound read at a load below the last before saturation names that load", function()
  -- offered 4, 5, 6 and 8 req/s, 60 s each: sent at 4, 5.1, 5.0 (the client a little ahead, then
  -- behind: 5.0 is within Poisson noise of 6 for 300 requests, 3 / sqrt(0.8 x 299) = 19.4 %,
  -- so the answers are held to the sends) and 8 req/s, sent every 1 / 8 s and answered every
  -- 1 / 5.5 s (68.75 %: saturated). By hand the pace is the send rate where
  -- answers keep up: 4, 5.1, 5.0. The SLO (TTFT p90 <= 1 s: 0.1 s everywhere) holds up to
  -- load point 3, so the capacity is at least the most before saturation, 5.1 req/s, load
  -- point 2's: main labelled it "the last load before saturation" (load point 3, 5.0 req/s).
  local a = ladder { { 4, 240 }, { 5, 306, false, 5.1 }, { 6, 300, false, 5.0 }, { 8, 480, false, 8, 1 / 5.5 } }
  local b = ladder { { 4, 240 }, { 5, 300 } }
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "dip", "--b-label", "other", "--slo", "ttft_p90_ms=1000" }
  t.eq(r.code, 0, r.stderr)
  local j = json.read(ws .. "/comparison.json")
  t.eq(j.saturation.a.point, 4, j.saturation.a.reason)
  local c = j.capacity.a
  t.eq(c.kind, "saturated", c.reason)
  t.near(c.rps, 5.1, 1e-9)
  t.ok(c.reason:find("every SLO holds up to load point 3 (5 req/s achieved); load point 4 had saturated", 1, true),
    c.reason)
  t.ok(c.reason:find("The capacity is at least 5.1 req/s, the max sustained throughput, load point 2's;", 1, true),
    c.reason)
  local md = t.read(ws .. "/comparison_report.md")
  -- (fixh40: its pass at 5.1 req/s is at or above 0.6 of its ceiling, but its interval widened by
  -- sqrt(6) stays below the SLO: no caveat, test_capacity_coverage)
  t.ok(md:find("≥ 5.10 req/s (the most before saturation, at load point 2)", 1, true), md)
  t.ok(not md:find("narrow near capacity", 1, true), md)
  t.ok(not md:find("5.10 req/s (the last load before saturation)", 1, true), md)
end)
