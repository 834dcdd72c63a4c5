-- audit36: session 35's saturation by pace, recomputed. Expected values from /usr/bin/python3
-- with numpy on the same request times (each rate (n - 1) * 0.8 / (percentile 90 - percentile
-- 10), numpy's linear percentiles), or by hand, as written beside each.
local t = require "testlib"
local json = require "llmd.json"

-- A folder of vLLM detailed results: pts = {{rate, starts (s after 100), latencies (s),
-- max_concurrency or nil}, ...}, one file each.
local function vllm_points(pts)
  local src = t.latency_ladder((function()
    local l = {}
    for i, p in ipairs(pts) do l[i] = { p[1], t.spread(0.1, 0.1, #p[2]) } end
    return l
  end)())
  local dir = t.tmpdir() .. "/v"
  t.mkdir(dir)
  for i, p in ipairs(pts) do
    local name = ("benchmark_%02d.json"):format(i)
    local d = json.read(src .. "/" .. name)
    local first, last = math.huge, -math.huge
    for k = 1, #p[2] do
      d.start_times[k], d.latencies[k] = 100 + p[2][k], p[3][k]
      first, last = math.min(first, d.start_times[k]), math.max(last, d.start_times[k] + p[3][k])
    end
    d.max_concurrency = p[4] or json.null
    d.duration = last - first
    d.request_throughput = #p[2] / d.duration
    t.write(dir .. "/" .. name, t.vllm_text(d))
  end
  return dir
end

t.test("sends that fell behind the offered rate (a client's concurrency cap) are no load kept up", function()
  -- point 1: 40 requests at 4 req/s, sent every 0.25 s, each answered in 2 s: kept up.
  -- point 2: 10 req/s offered through vLLM's --max-concurrency 10 with 2 s answers: request
  -- k (0-based) arrives at k / 10 s but goes out only when a slot frees, at (k mod 10) / 10 +
  -- 2 floor(k / 10), so 60 requests go out at 4.856 req/s and are answered at 4.856 (numpy on
  -- those times: 4.855967078189294 both); the answers keep pace with the sends, but only 48.6 %
  -- of the offered 10 went out, far below 95 % and beyond Poisson noise (3 / sqrt(0.8 x 59) =
  -- 43.7 % for 60 arrivals): saturated at point 2. (Before: "every load point kept up".)
  local s1, l1, s2, l2 = {}, {}, {}, {}
  for k = 0, 39 do s1[k + 1], l1[k + 1] = k * 0.25, 2 end
  for k = 0, 59 do s2[k + 1], l2[k + 1] = (k % 10) / 10 + 2 * (k // 10), 2 end
  local dir = vllm_points { { 4, s1, l1 }, { 10, s2, l2, 10 } }
  t.copy_tree(dir, dir .. "2")
  local ws, r = t.compare { "--a", dir, "--b", dir .. "2", "--a-label", "a", "--b-label", "b" }
  t.eq(r.code, 0, r.stderr)
  local s = json.read(ws .. "/comparison.json").saturation.a
  t.eq(s.point, 2, s.reason)
  t.eq(s.reason, "at 10 req/s offered requests went out at only 4.856 req/s and answers came back at 4.856 "
    .. "(48.6 % of the offered, below 95 %; the sends over their middle 80 %, the answers by the slope of their "
    .. "times on the sends', which no latency, long or spread, moves): the sends fell behind the offered rate, by more than Poisson arrivals explain, so the load "
    .. "asked for was not sustained, however the answers kept pace with the sends")
  -- max sustained: point 1's answers' pace (rate36: loadpoints.THROUGHPUT_DEFINITION), the
  -- send rate 39 x 0.8 / (p90 - p10 of k / 4 = 7.8 s) = 4 over the slope 1 (every answer 2 s
  -- after its request), by hand; not vLLM's own 40 / (9.75 + 2) = 3.404
  t.near(s.max_sustained_rps, 4, 1e-9)
end)

t.test("a server that kept up with latencies spread over tens of seconds is not saturated (the slope)", function()
  -- point 1: 100 requests at 5 req/s, sent every 0.2 s (0 to 19.8 s), each answered in one of
  -- 1, 5, ..., 37 s, a permutation of them per 10 requests, reversed every other 10, so the
  -- latency does not grow with the sends (numpy: cov(start, latency) = 0, polyfit slope 1.0):
  -- answers 5 req/s against sends at 5, kept up. The answers' own middle 80 % spans the
  -- latencies' spread too: 46.4 % of the sends' rate by that reading (numpy), "saturated at its
  -- lowest load" before. Point 2: 100 at 10 req/s (every 0.1 s) through a server answering
  -- every 1/8 s (the k-th answer at 4 + k / 8 s): slope 1.25, 8 req/s against 10, 80 % (by hand).
  local pat = { 1, 37, 13, 25, 5, 33, 17, 29, 9, 21 }
  local s1, l1, s2, l2 = {}, {}, {}, {}
  for k = 0, 99 do
    local j = k % 10
    s1[k + 1], l1[k + 1] = k * 0.2, (k // 10) % 2 == 0 and pat[j + 1] or pat[10 - j]
    s2[k + 1], l2[k + 1] = k * 0.1, 4 + k / 8 - k * 0.1
  end
  local dir = vllm_points { { 5, s1, l1 }, { 10, s2, l2 } }
  t.copy_tree(dir, dir .. "2")
  local ws, r = t.compare { "--a", dir, "--b", dir .. "2", "--a-label", "a", "--b-label", "b" }
  t.eq(r.code, 0, r.stderr)
  local s = json.read(ws .. "/comparison.json").saturation.a
  t.eq(s.point, 2, s.reason)
  t.eq(s.reason, "at 10 req/s offered answers came back at only 8 req/s against requests sent at 10 (80.0 %, "
    .. "below 95 %; the sends over their middle 80 %, the answers by the slope of their times on the sends', which no "
    .. "latency, long or spread, moves)")
  -- max sustained: point 1's answers' pace (rate36), 5 req/s sent over the slope 1.0 (above),
  -- not vLLM's own window, first request to last answer, 19.6 + 37 = 56.6 s: 100 / 56.6 = 1.767
  t.near(s.max_sustained_rps, 5, 1e-9)
end)

t.test("a shortfall of the answers' pace within its scatter is too few requests to judge, not saturated", function()
  -- 30 requests at 5 req/s (every 0.2 s, 0 to 5.8 s), answered in 1, 37, 13, 25, 5, 33, 17,
  -- 29, 9, 21 s, the same 10 latencies again every 10 requests (no growth): by their scatter
  -- alone numpy.polyfit(start, finish, 1) gives a slope of 1.2269 (answers at 5 / 1.2269 =
  -- 4.075 req/s, 81.5 % of the sends'), with a standard error of 1.2535, so the least slope
  -- the data allow, 1.2269 - 2 x 1.2535, is below 0: any rate. Saturation is unknown (too few
  -- requests), not "saturated at 5 req/s" (the answers' own middle 80 %: 14.7 %, numpy).
  local pat = { 1, 37, 13, 25, 5, 33, 17, 29, 9, 21 }
  local s1, l1 = {}, {}
  for k = 0, 29 do s1[k + 1], l1[k + 1] = k * 0.2, pat[k % 10 + 1] end
  local dir = vllm_points { { 5, s1, l1 } }
  t.copy_tree(dir, dir .. "2")
  local ws, r = t.compare { "--a", dir, "--b", dir .. "2", "--a-label", "a", "--b-label", "b" }
  t.eq(r.code, 0, r.stderr)
  local s = json.read(ws .. "/comparison.json").saturation.a
  t.eq({ s.point, s.unknown }, { nil, true }, s.reason)
  t.eq(s.reason, "too few requests to judge saturation: at load point 1 (5 req/s offered) answers came back at "
    .. "4.075 req/s against 5 (81.5 %, below 95 %), but the scatter of its requests' latencies about that pace allows "
    .. "any rate (2 standard errors), so the shortfall may be that scatter, not a queue")
end)

t.test("goodput with no TTFT measured (not streamed) under a TTFT SLO is N/A with the reason, not 0", function()
  -- 40 requests at 10 req/s, every TTFT 0 in the file (vLLM: not streamed, so not measured),
  -- SLO TTFT p90 <= 200 ms: whether any request met it is unknown. Before: goodput 0.00 req/s
  -- and SLO attainment 0.0 % at every point, a server that may have met the SLO read as
  -- meeting it for none of its requests.
  local dir = t.latency_ladder { { 10, t.spread(0, 0, 40) } }
  t.copy_tree(dir, dir .. "2")
  local ws, r = t.compare { "--a", dir, "--b", dir .. "2", "--a-label", "a", "--b-label", "b", "--slo",
    "ttft_p90_ms=200" }
  t.eq(r.code, 0, r.stderr)
  local c = json.read(ws .. "/comparison.json")
  local p = c.load_points.a[1]
  t.eq(p.goodput_rps, nil)
  t.eq(p.slo_attainment_pct, nil)
  local why = "none of its 40 completed requests has a TTFT to hold to the SLO (not measured: not streamed, or no "
    .. "per-token times), so whether any met it is unknown"
  t.eq(c.goodput.reason, "run A: " .. why)
  t.ok(t.read(ws .. "/comparison_report.md"):find("Goodput req/s and SLO attainment at point 1: run A: " .. why, 1,
    true), "the table's N/A note")
end)
