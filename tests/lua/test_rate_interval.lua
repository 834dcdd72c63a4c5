-- A paced load point's rate interval (llmd.loadpoints.rate_interval) where some of its requests
-- failed (fixc42): its rate is its successes', the sends' rate times the share that succeeded,
-- so the binomial noise of that share, relative variance (n - k) / (n k), adds to the sends'
-- 1 / (0.8 (n - repeats)). tests/sim/fixc42_paced_fail.py (numpy, 20000 Poisson points of 480
-- sends at 8 req/s) finds it covers 94.7-94.8 % with 0-30 % failing, where r / sqrt(0.8 (n - 1))
-- covered 93.8 % at 10 % failing (90.6 % at 30 %) and the successes' count r / sqrt(k) 92.1 %.
-- Expected half-widths: python3, Z r sqrt(1 / (0.8 (n - repeats)) + (n - k) / (n k)).
local t = require "testlib"
local lp = require "llmd.loadpoints"

-- a paced point: sends at send_rps (offered alike), answered at answer_rps, ok of them succeeded
local function paced(sends, ok, send_rps, answer_rps)
  local success = answer_rps * ok / sends
  return { offered = send_rps, load_type = "rate", rate_basis = "pace", achieved_rps = success,
    values = { requests_ok = ok },
    pace = { sends = sends, answered = sends, succeeded = ok, send_rps = send_rps, answer_rps = answer_rps,
      success_rps = success } }
end

t.test("a paced point that kept pace with 10 % failing: the success share's noise is in its interval", function()
  -- 600 sends at 10 req/s, all answered at that pace, 540 succeeded: 9 req/s. Half-width
  -- 1.959964 x 9 x sqrt(1 / 479.2 + 60 / 324000) = 0.840803 (python3; the script's example
  -- line); main: its successes' count, 1.959964 x 9 / sqrt(540) = 0.759091 (90 % answered is
  -- below 95 %, read as a server's rate)
  local x = lp.rate_interval(paced(600, 540, 10, 10))
  t.near(x.hi - 9, 0.840803349, 1e-6)
  t.near(9 - x.lo, 0.840803349, 1e-6)
  t.eq(x.n, 540)
  -- three repeats of 200 sends: 0.8 x (600 - 3) sends' worth, 0.842096 (python3)
  local p = paced(600, 540, 10, 10)
  p.repeats = 3
  t.near(lp.rate_interval(p, nil, false).hi - 9, 0.842095943, 1e-6)
end)

t.test("a kept-up paced point with 3 % failing: wider than the sends' noise alone", function()
  -- 582 of 600 succeeded, 9.7 req/s: 1.959964 x 9.7 x sqrt(1 / 479.2 + 18 / 349200) = 0.879144
  -- (python3); main 1.959964 x 9.7 / sqrt(479.2) = 0.868483
  local x = lp.rate_interval(paced(600, 582, 10, 10))
  t.near(x.hi - 9.7, 0.879143981, 1e-6)
end)

t.test("a point whose answers fell behind (a queue) keeps its successes' count", function()
  -- answered at 8.5 of 10 req/s sent (85 %, a queue), 540 of 600 succeeded: 7.65 req/s, the
  -- server's rate: 1.959964 x 7.65 / sqrt(540) = 0.645227 (python3), unchanged
  local x = lp.rate_interval(paced(600, 540, 10, 8.5))
  t.near(x.hi - 7.65, 1.959963984540054 * 7.65 / math.sqrt(540), 1e-9)
  t.near(x.hi - 7.65, 0.645227, 1e-6)
end)
