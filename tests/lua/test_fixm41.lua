-- fixm41: an inference-perf success with 0 output tokens has no NTPOT (e2e / tokens is
-- undefined). The reader entered it as 0, inference-perf's own convention, which pulled the
-- NTPOT mean and its low percentiles down (and with them NTPOT's test and SLO interval).
-- It is now left out of the NTPOT samples, as a TPOT the request does not have is, on
-- every path the reader takes a success by: the C lane (one stage), the Lua lane (goodput
-- judged per request), the per-stage log (stages, no goodput) and the per-stage placing
-- (stages and goodput).
local t = require "testlib"
local harness = require "llmd.harness"
local ipsynth = require "ipsynth"

-- ipsynth runs of 20 requests a stage at 10 req/s (a second stage: 5 req/s); request k answers in 0.4 + 0.05 (k mod 4)
-- s, and every k with k mod 4 = 3 (the slowest, 0.55 s) succeeds with 0 output tokens, the
-- others with 8. By hand (and python3/numpy over the same times, e2e = (st + l) - st):
--   NTPOT over the 15 with tokens: mean (0.40 + 0.45 + 0.50) / 3 / 8 s = 56.25 ms,
--   p10 (linear; 5 each of 50, 56.25, 62.5 ms) = 50 ms
--   with the 5 entered as 0 (main before fixm41): mean 42.1875 ms, p10 0 ms
local function lat(k) return 0.4 + 0.05 * (k % 4) end
local function zero(_, k) return k % 4 == 3 end

local function check(run, where, nstages)
  local v = run.overall.values
  t.near(v.ntpot_mean_ms, 56.25, 1e-4, where .. " NTPOT mean")
  t.near(run.overall.samples.ntpot:percentile(10, "linear") * 1000, 50, 1e-4, where .. " NTPOT p10")
  t.eq(run.overall.samples.ntpot:count(), 15 * nstages, where .. " NTPOT samples")
  t.eq(v.requests_ok, 20 * nstages, where .. " successes")
  for i, st in ipairs(run.stages) do
    t.near(st.metrics.values.ntpot_mean_ms, 56.25, 1e-4, ("%s stage %d NTPOT mean"):format(where, i))
  end
  local joined = table.concat(run.warnings, "\n")
  t.ok(joined:find(("%d successful requests have an output token count of 0 (or none); their NTPOT is "
    .. "unknown, left out of the NTPOT figures"):format(5 * nstages), 1, true), joined)
  -- the stage files count them as 0 (inference-perf's rule): no NTPOT disagreement is flagged
  for _, c in ipairs(run.checks or {}) do t.ok(c.key ~= "ntpot_mean_ms", where .. ": " .. tostring(c.text)) end
end

t.test("inference-perf: a success of 0 output tokens is left out of NTPOT, on every reader path", function()
  local d = t.tmpdir()
  local one = ipsynth.run(d .. "/one", { { rate = 10, n = 20, latency = lat } },
    { per_request = true, zero_tokens = zero })
  local two = ipsynth.run(d .. "/two", { { rate = 10, n = 20, latency = lat }, { rate = 5, n = 20, latency = lat } },
    { per_request = true, zero_tokens = zero })
  check(harness.extract(one), "one stage, C lane", 1)
  check(harness.extract(one, { goodput = { e2e = 1e9 } }), "one stage, Lua lane", 1)
  check(harness.extract(two), "two stages, log", 2)
  check(harness.extract(two, { goodput = { e2e = 1e9 } }), "two stages, placed", 2)
end)

-- Only successes with 0 tokens: NTPOT is unknown (N/A with its reason), never 0.
t.test("inference-perf: no success with output tokens, NTPOT N/A", function()
  local d = ipsynth.run(t.tmpdir() .. "/z", { { rate = 10, n = 4, latency = lat } },
    { per_request = true, zero_tokens = function() return true end })
  local run = harness.extract(d)
  t.eq(run.overall.values.ntpot_mean_ms, nil)
  t.ok(run.overall.na.ntpot_mean_ms, "a reason")
end)
