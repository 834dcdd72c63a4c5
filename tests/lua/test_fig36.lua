-- Session 36 (fig36): where a rate-based point has no per-request start times (vLLM without
-- --save-detailed, llm-d-benchmark's default; inference-perf stage files alone), the
-- throughput ranked (max sustained, capacity, ladder, charts) is the drain-reduced rate its
-- saturation is judged by, completed / (window - least latency), not the harness's completed /
-- window, which the last answers' own latency lowers: two servers of one capacity whose
-- answers take 15 s and 30 s were ranked by answer length (newuser36 finding 1, aggregate-only).
local t = require "testlib"
local json = require "llmd.json"

local F = t.fixtures()

-- A vLLM ladder without --save-detailed, by hand: the detailed fixture's per-request arrays
-- removed as vLLM's writer removes them, `latencies` kept in the order sent. Point 1: 200
-- requests at 20 req/s (1/20 s apart), each answered in L s: kept up. Point 2: 240 requests at
-- 24 req/s through a server answering every 1/21 s (the k-th answer L + (k - 1) / 21 s after
-- the first request), a queue whose last requests are the slowest. 64 output tokens each.
local function plain(L)
  local dir = t.tmpdir() .. "/v"
  t.mkdir(dir)
  for i, p in ipairs { { 20, 200, 1 / 20 }, { 24, 240, 1 / 21 } } do
    local rate, n, gap = p[1], p[2], p[3]
    local d = json.read(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json")
    for _, k in ipairs { "input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts", "errors" } do
      d[k] = nil
    end
    d.latencies, d.queue_times = {}, {}
    for k = 1, n do
      d.latencies[k], d.queue_times[k] = L + (k - 1) * gap - (k - 1) / rate, 0
    end
    d.num_prompts, d.completed, d.failed = n, n, 0
    d.request_rate, d.max_concurrency = rate, json.null
    d.duration = (n - 1) * gap + L
    d.request_throughput = n / d.duration
    d.total_input_tokens, d.total_output_tokens = 256 * n, 64 * n
    d.total_token_throughput = (256 + 64) * n / d.duration
    d.output_throughput = 64 * n / d.duration
    t.write(("%s/benchmark_%02d.json"):format(dir, i), t.vllm_text(d))
  end
  return dir
end

t.test("aggregate-only, answers of 15 s and 30 s at one capacity: ranked by the drain-reduced rate, no winner",
  function()
  local a, b = plain(15), plain(30)
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "short", "--b-label", "long" }
  t.eq(r.code, 0, r.stderr)
  local cmp = json.read(ws .. "/comparison.json")
  local sa, sb = cmp.saturation.a, cmp.saturation.b
  t.eq({ sa.point, sa.basis, sb.point, sb.basis }, { 2, "drain", 2, "drain" }, sa.reason)
  -- max sustained: point 1's drain-reduced rate, by hand 200 / ((199 / 20 + L) - L) =
  -- 200 / 9.95 = 20.10050251 req/s on both; main ranked vLLM's 200 / (9.95 + 15) = 8.016 and
  -- 200 / (9.95 + 30) = 5.006 req/s
  t.near(sa.max_sustained_rps, 200 / 9.95, 1e-8)
  t.near(sb.max_sustained_rps, 200 / 9.95, 1e-8)
  -- the most at any load: point 2's 240 / ((239 / 21 + L) - L) = 21.08786611 req/s on both
  -- (main: 240 / (239 / 21 + 15) = 9.098 and 5.800)
  t.near(sa.ceiling_rps, 240 * 21 / 239, 1e-8)
  t.near(sb.ceiling_rps, 240 * 21 / 239, 1e-8)
  local md = t.read(ws .. "/comparison_report.md")
  -- main: "short sustains more load ... the order holds whatever the bounds"
  t.ok(not md:find("short sustains more load", 1, true) and not md:find("long sustains more load", 1, true),
    md:match("%*%*Verdict[^\n]*"))
  t.ok(md:find("**Verdict:** Cannot say which sustains more load (max sustained throughput; no SLO given): the "
    .. "measured loads cannot order them: short 20.10 req/s, long 20.10 req/s.", 1, true),
    md:match("%*%*Verdict[^\n]*"))
  -- the load curve: the throughput 20.10 req/s, the harness's 8.02 (A) and 5.01 (B) beside it,
  -- output tok/s 20.1005 x 64 = 1,286.4
  t.ok(md:find("| 1 | 20/s | 1 | 20.10 | 8.02 | 1,286.4 |", 1, true), md)
  t.ok(md:find("| 1 | 20/s | 1 | 20.10 | 5.01 | 1,286.4 |", 1, true), md)
  t.ok(md:find("successful requests / (the window - the least latency)", 1, true), md)
end)
