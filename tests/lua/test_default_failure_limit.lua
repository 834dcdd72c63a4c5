-- The default failure limit (5 % of the requests, where no error-rate SLO is given: the limit
-- capacity at SLO and max sustained throughput both apply) decides a one-run load's pass or fail
-- within its failures' binomial noise, as the error-rate SLO does since fixf51 (task fixb52): an
-- A/A pair of one server failing 5 % of its requests at random, 300 a load, read "A sustains
-- more load" in 3 of 20 pairs on main (tests/sim/fixb52_failure_limit.py), a load at 16 of 300
-- (5.33 %) failing the limit "for certain". A point whose exact (Clopper-Pearson) 95 % interval
-- straddles 5 % is now unclear: "unclear whether it stays within the 5 % failure limit".
-- Expected values: python3, the binomial tails summed exactly (math.comb) and each end found by
-- bisection (lo solves P(X >= k | p) = 0.025, hi solves P(X <= k | p) = 0.025), as
-- test_capacity_error_slo.lua's.
local t = require "testlib"
local json = require "llmd.json"
local lp = require "llmd.loadpoints"

-- a one-run load point of n requests, k of them failed, its E2E p90 e2e ms
local function point(rps, k, n, e2e)
  return { offered = rps, load_type = "rate", achieved_rps = rps, repeats = 1,
    values = { requests_failed = k, requests_ok = n - k, error_rate_pct = k / n * 100, latency_p90_ms = e2e } }
end

t.test("capacity_noise: a load whose failures' interval straddles the default 5 % limit is unclear", function()
  -- 0 of 300 at 2 and 4 req/s (upper end 1.222 %: within 5 % for certain); 16 of 300 at 6 (3.079
  -- to 8.517 %, python3: straddles 5 %); 25 of 300 at 8 (5.465 to 12.056 %: fails it for certain)
  local pts = { point(2, 0, 300), point(4, 0, 300), point(6, 16, 300), point(8, 25, 300) }
  for i, p in ipairs(pts) do p.index = i end
  -- an SLO on a figure no load comes near: the default failure limit decides
  local slo = { { key = "error_rate_pct", max = 5, default = true } }
  local cap = lp.capacity(pts, slo)
  -- by the figures alone, 5.33 % > 5 % at 6 req/s: interpolated between 4 and 6
  t.eq(cap.kind, "interpolated")
  local r = lp.capacity_noise(pts, slo, cap)
  -- (main: nil, the default limit an exact number)
  t.ok(r, "the default limit gets a noise range")
  t.eq(#r.unclear, 1)
  t.eq({ r.unclear[1].point, r.unclear[1].key }, { 3, "error_rate_pct" })
  t.ok(r.unclear[1].reason:find("unclear whether it stays within the 5 % failure limit", 1, true), r.unclear[1].reason)
  -- the range: load 3 failing (4 to 6) to load 3 passing (6 to 8): 4 to 8 req/s
  t.near(r.lo, 4, 1e-9)
  t.near(r.hi, 8, 1e-9)
  -- its interval, as the settle advice quotes it (python3: 3.078832 %)
  local s = lp.unclear_loads(pts, slo, r.unclear)
  t.eq({ #s, s[1].point }, { 1, 3 })
  t.near(s[1].lo, 3.078832, 1e-5)
end)

-- A ladder of vLLM `--save-detailed` files, one run a load: n requests sent every 1 / rate s,
-- each answered in 2 s (TTFT 0.1 s, 8 output tokens), failed[i] of load i failing (HTTP 503,
-- spread evenly over its requests, so that they come in no bursts).
local function ladder(rates, n, failed)
  local dir = t.tmpdir() .. "/l"
  t.mkdir(dir)
  local base = json.read(t.fixtures() .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json")
  for i, r in ipairs(rates) do
    local d = {}
    for k, v in pairs(base) do if not (type(k) == "string" and k:match("_ms$")) then d[k] = v end end
    for _, k in ipairs { "input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times",
      "generated_texts", "errors" } do d[k] = {} end
    local step, ok = n / math.max(failed[i], 1), 0
    for k = 1, n do
      local bad = failed[i] > 0 and math.floor((k - 1) / step) ~= math.floor(k / step) and k <= n
      d.start_times[k], d.input_lens[k], d.generated_texts[k], d.queue_times[k] = 100 + (k - 1) / r, 256, "", 0
      if bad then
        d.ttfts[k], d.latencies[k], d.output_lens[k], d.itls[k], d.errors[k] = 0, 0, 0, {}, "HTTP 503"
      else
        d.ttfts[k], d.latencies[k], d.output_lens[k], d.errors[k] = 0.1, 2, 8, ""
        d.itls[k] = { 0.27, 0.27, 0.27, 0.27, 0.27, 0.27, 0.28 }
        ok = ok + 1
      end
    end
    d.num_prompts, d.completed, d.failed, d.request_rate, d.max_concurrency = n, ok, n - ok, r, json.null
    d.duration = (n - 1) / r + 2 + i * 1e-9
    d.request_throughput = ok / d.duration
    d.total_output_tokens, d.total_input_tokens = 8 * ok, 256 * ok
    d.output_throughput, d.total_token_throughput = 8 * ok / d.duration, 264 * ok / d.duration
    t.write(("%s/benchmark_%02d.json"):format(dir, i), t.vllm_text(d))
  end
  return dir
end

t.test("compare: one server failing about 5 % at random names no run by the default limit", function()
  -- A: 16 of 300 failed at 6, 8 and 10 req/s (5.33 %, interval 3.08 to 8.52 %); B: 14 of 300
  -- at every load (4.67 %, 2.57 to 7.71 %, python3); both straddle 5 %: by the figures A's
  -- capacity ends between 4 and 6 req/s and B's is at least 10, and main read "B sustains
  -- more load" (untested, "the measured loads order them"); latencies far inside the SLO
  local a = ladder({ 4, 6, 8, 10 }, 300, { 14, 16, 16, 16 })
  local b = ladder({ 4, 6, 8, 10 }, 300, { 14, 14, 14, 14 })
  -- (the two runs' 4 req/s files are alike: B's saved again in other bytes, the same figures,
  -- as a file byte for byte the other run's is refused as copied from its folder, fixa56)
  t.resave(b .. "/benchmark_01.json")
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "A", "--b-label", "B", "--slo", "latency_p90_ms=8000" }
  t.eq(r.code, 0, r.stderr)
  local ev = json.read(ws .. "/comparison.json").capacity.evidence
  t.eq({ ev.winner, ev.higher }, { nil, nil })
  local md = t.read(ws .. "/comparison_report.md")
  local verdict = md:match("%*%*Verdict:%*%*[^\n]*")
  t.ok(verdict:find("^%*%*Verdict:%*%* Cannot say which sustains more load"), verdict)
  t.lacks(md, "B sustains more load")
  t.ok(md:find("unclear whether it stays within the 5 % failure limit", 1, true), verdict)
end)

t.test("max sustained: a failures point within its interval's reach of the limit says it is unclear", function()
  -- 16 of 300 (5.33 %): above 5 % as measured, its interval 3.078832 % to 8.516676 % (python3)
  local u = lp.failures_unclear(point(6, 16, 300))
  t.near(u.lo, 3.078832, 1e-5)
  t.near(u.hi, 8.516676, 1e-5)
  -- 25 of 300 (8.33 %): 5.465428 % to 12.055874 %, beyond 5 % for certain: no hedge
  t.eq(lp.failures_unclear(point(8, 25, 300)), nil)
  -- (a repeated point's failures are read by its repeats: not here)
  local rep = point(6, 16, 300)
  rep.repeats = 3
  t.eq(lp.failures_unclear(rep), nil)
  -- the words beside an N/A at the lowest load (main: "more than 5 %, ..., so no load was
  -- sustained within it", as if certain)
  local s = { cause = "failures", point = 1, failed_pct = 16 / 3, limit = lp.error_limit(nil), unclear = u,
    failure_cause = "errors" }
  local text = lp.failed_lowest_text(s)
  t.ok(text:find("as measured more than 5 %", 1, true), text)
  t.ok(text:find("its exact 95 % interval, 3.079 % to 8.517 %, leaves it unclear whether it stays within the 5 % "
    .. "failure limit, so no load is known to be sustained within it", 1, true), text)
  -- and beside a cut above the lowest load
  s.point, s.offered, s.load_type = 3, 6, "rate"
  local notes = lp.sustained_failure_notes(s)
  t.ok(notes[#notes]:find("then 5.333 % failed at load point 3 (6 req/s offered), as measured more than 5 %", 1, true),
    notes[#notes])
  t.ok(notes[#notes]:find("leaves it unclear whether it stays within the 5 % failure limit", 1, true), notes[#notes])
end)
