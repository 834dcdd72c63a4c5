-- Task fixh41: audit41's findings in the rate-noise and near-capacity rules.
-- Expected values: hand arithmetic below, and audit41's independent numpy recomputation
-- (/tmp/a41/recomp.py, cov.py, meancov.py: the rates and intervals of queue_sim.py ladders).
local t = require "testlib"
local lp = require "llmd.loadpoints"

local Z = 1.959963984540054

local function paced(offered, sends, send_rps, answer_rps)
  return { offered = offered, load_type = "rate", rate_basis = "pace", achieved_rps = answer_rps,
    values = { requests_ok = sends },
    pace = { sends = sends, answered = sends, succeeded = sends, send_rps = send_rps, answer_rps = answer_rps,
      success_rps = answer_rps } }
end

t.test("rate_interval: a kept-up paced point's rate is its middle 80 % of sends' (0.8 (n - 1)), not n", function()
  -- 600 sends at 10.5 req/s, all answered at that pace: sd 10.5 / sqrt(0.8 x 599) = 0.47966,
  -- half 1.959964 x 0.47966 = 0.94011 (hand; main: 10.5 / sqrt(600) x 1.959964 = 0.84017)
  local x = lp.rate_interval(paced(10, 600, 10.5, 10.5))
  t.near(x.hi - 10.5, Z * 10.5 / math.sqrt(0.8 * 599), 1e-9)
  t.near(x.hi - 10.5, 0.94011, 1e-4)
  t.eq(x.n, 600) -- (the requests counted, for the texts)
  -- three repeats of 200 sends each: 0.8 x (600 - 3) arrivals' worth
  local p = paced(10, 600, 10.5, 10.5)
  p.repeats = 3
  t.near(lp.rate_interval(p, nil, false).hi - 10.5, Z * 10.5 / math.sqrt(0.8 * 597), 1e-9)
  -- a saturated point (9.7 of 12 req/s answered) keeps its successes' count: its rate is the
  -- server's, not the sends': 1.959964 x 9.7 / sqrt(720) = 0.70853
  local s = lp.rate_interval(paced(12, 720, 12, 9.7))
  t.near(s.hi - 9.7, 0.70853, 1e-4)
end)

t.test("interval_coverage: a mean SLO's one-run interval near capacity is marked as a percentile's is", function()
  local stats = require "llmd.stats"
  -- 1000 TTFTs of 1, 2, ..., 1000 ms (in s), design effect 1: mean 500.5 ms, sd (ddof 1)
  -- sqrt(1000 x 1001 / 12) = 288.819 ms, half 1.959964 x 288.819 / sqrt(1000) = 17.901 ms,
  -- widened by sqrt(6): 43.848 ms: 456.65 to 544.35 (hand; python3: numpy std(ddof=1))
  local acc = stats.new()
  for k = 1, 1000 do acc:add(k / 1000) end
  local function pt(rps)
    return { offered = rps, load_type = "rate", achieved_rps = rps, values = { ttft_mean_ms = 500.5 },
      per_request = { samples = { ttft = acc }, deff = { ttft = 1 } } }
  end
  local points = { pt(2), pt(8), pt(10) }
  local sat = { point = 3 }
  -- 8 of the run's 10 req/s (>= 0.6), its widened interval across 520 ms: narrow (main: nominal,
  -- only percentile SLOs were weighed)
  local c = lp.interval_coverage(points, { { key = "ttft_mean_ms", max = 520 } }, sat)
  t.eq({ c[1], c[2] }, { "nominal", "narrow_near_capacity" })
  -- 550 ms is beyond 544.35: not across, nominal
  c = lp.interval_coverage(points, { { key = "ttft_mean_ms", max = 550 } }, sat)
  t.eq(c[2], "nominal")
end)

t.test("capacity_evidence: an order read off the load the lower run already failed at is held to the rates' noise",
  function()
  local decision = require "llmd.decision"
  local SLO = { { key = "ttft_p90_ms", max = 500 } }
  -- one-run loads of 60 s (no per-request data: each rate's noise its successes' count)
  local function run(loads)
    local pts = {}
    for i, x in ipairs(loads) do
      pts[i] = { index = i, offered = x[1], load_type = "rate", achieved_rps = x[2],
        values = { requests_ok = x[3], ttft_p90_ms = x[4] } }
    end
    local c = lp.capacity(pts, SLO)
    c.rate_noise = lp.capacity_rate_noise(pts, c)
    return c
  end
  -- A meets 500 ms up to 6 req/s and fails at 8 (7.9 achieved, 474 requests): span 6 to 7.9.
  -- B meets it at 8 (8.0 achieved, 480 requests), fails at 10: span 8.0 to 9.5
  local ca = run { { 4, 4, 240, 100 }, { 6, 6, 360, 100 }, { 8, 7.9, 474, 900 } }
  local cb = run { { 4, 4, 240, 100 }, { 6, 6, 360, 100 }, { 8, 8.0, 480, 100 }, { 10, 9.5, 570, 900 } }
  -- hand: B's 8.0 less 1.959964 x 8 / sqrt(480) = 0.715678; A's 7.9 plus 1.959964 x 7.9 /
  -- sqrt(474) = 0.711191; the gap 0.1 -+ sqrt(0.715678^2 + 0.711191^2) = 1.008953: -0.908953
  -- to 1.108953, across 0: no order (main: ordered, B higher, failed_rps 7.9)
  local ev = decision.capacity_evidence(ca, cb)
  t.eq({ ev.verdict, ev.ordered, ev.order_open, ev.within_noise, ev.failed_rps }, { "untested", nil, true, "b", nil })
  t.near(ev.noise.gap_lo, -0.908953, 1e-5)
  t.near(ev.noise.gap_hi, 1.108953, 1e-5)
  -- B meeting it at 10 (9.9 achieved, 594 requests) instead: 9.9 - 1.959964 x 9.9 / sqrt(594)
  -- = 9.103859 against 8.611191: the gap 2.0 -+ sqrt(0.796141^2 + 0.711191^2) = 1.067536 stays
  -- above 0: ordered, from the load A already failed at
  cb = run { { 4, 4, 240, 100 }, { 6, 6, 360, 100 }, { 8, 8.0, 480, 100 }, { 10, 9.9, 594, 100 },
    { 12, 11, 660, 900 } }
  ev = decision.capacity_evidence(ca, cb)
  t.eq({ ev.verdict, ev.ordered, ev.higher, ev.failed_rps }, { "untested", true, "b", 7.9 })
end)

t.test("no SLO, one load point a run: latencies the Performance Results test are not called untested", function()
  -- (audit41: --rates 4, TPOT +5 %: "b1's latencies are untested: ... TPOT p90 +7.1 % (Performance
  -- Results, over all load points: a1 better, p < 1e-9 ...)", the table's test being this
  -- load's.) inference-perf runs of one stage, 60 requests at 4 req/s (tests/lua/ipsynth.lua,
  -- as test_fixa38.lua): A answers request k in 0.4 + 0.01 (k mod 10) s, B 1.5 times A's decode
  local ipsynth = require "ipsynth"
  local d = t.tmpdir()
  local fa = function(k) return 0.4 + 0.01 * (k % 10) end
  local fb = function(k) return 0.02 + (0.38 + 0.01 * (k % 10)) * 1.5 end
  local a = ipsynth.run(d .. "/a", { { rate = 4, n = 60, latency = fa } }, { per_request = true })
  local b = ipsynth.run(d .. "/b", { { rate = 4, n = 60, latency = fb } }, { per_request = true })
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "A", "--b-label", "B", "--harness", "inference-perf" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(ws .. "/comparison_report.md")
  local verdict = md:match("\n%*%*Verdict:%*%* ([^\n]*)")
  -- TTFT p90 20.0 ms for both (no test: every TTFT 20 ms, identical); TPOT and end-to-end
  -- p90 tested (every B latency above every A one: p < 1e-9, as test_fixa38.lua by python3)
  t.ok(verdict:find("the highest load both sustained, B's latencies against A's: TTFT p90 20.0 ms for both", 1, true),
    verdict)
  -- (TTFT's reason its own: identical figures, nothing to test; the lead's merge with fixl41's
  -- per-figure reasons, which had said "the test pools this load" of a run with one load)
  t.ok(verdict:find("(no test at this load: TTFT p90: the same figure in both runs, nothing to test)", 1,
    true), verdict)
  t.ok(not verdict:find("latencies are untested", 1, true), verdict)
  local summary = md:match("\n## Summary\n\n([^\n]*)")
  t.ok(not summary:find("are untested at this load", 1, true), summary)
end)
