-- analyze.lua on a workspace saved before winners were held to the whole 95 % interval of a
-- row's effect (fixb40): the saved per-request tests have no interval, and the samples they
-- were made on are not at hand, so the old rule (a winner wherever the estimate passes
-- --min-effect) must never be applied silently (task fixb41 #3): no winner, said why, and what
-- settles it (--reextract). Main named a winner on the estimate.
-- Expected values by hand: TTFT p90 100 against 120 ms is (120 - 100) / 110 = +18.2 %.
local t = require "testlib"
local decision = require "llmd.decision"
local report = require "llmd.report"

-- one run of one load point, its figures those of its only stage, no per-request samples (a
-- saved run model's)
local function run(ttft)
  local v = { throughput_req_s = 10, ttft_p90_ms = ttft, requests_ok = 600, requests_failed = 0,
    error_rate_pct = 0 }
  local r = t.run_of { { rate = 10, values = v } }
  for k, x in pairs(v) do r.overall.values[k] = x end
  return r
end
local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end

-- the TTFT rows' test as a report before fixb40 saved it in comparison.json (row.sig): no row_effect
local OLD = { test = "mann_whitney", p = 1e-6, z = 4.9, id = "mann_whitney:ttft", n1 = 600, n2 = 600 }

local function row(m, key)
  for _, r in ipairs(m.perf) do if r.key == key then return r end end
end

t.test("a saved test without an effect interval names no winner, and says why and what settles it", function()
  local m = report.build { a = sd("A", run(120)), b = sd("B", run(100)), generated = 0,
    significance = { ttft_p90_ms = OLD } }
  local r = row(m, "ttft_p90_ms")
  t.near(r.p_value, 1e-6, 1e-12)
  -- main: "B better" on the estimate, -18.2 %
  t.eq({ r.verdict, r.winner }, { "not shown to differ", nil })
  t.near(r.effect_pct, -200 / 11, 1e-9)
  t.contains(r.note, "B's lower by 18.2 %, but its 95 % interval is unbounded (" .. decision.SAVED_EFFECT_WHY
    .. "), so it may be less than the 2 % practical threshold: no winner; to settle it: the results read again and "
    .. "the rows tested again (analyze.lua WORKSPACE --reextract)")
  -- the Summary says it too, with what settles it
  t.contains(m.summary, "to settle it: the results read again and the rows tested again (analyze.lua WORKSPACE "
    .. "--reextract)")
end)

t.test("a saved test with its interval keeps its verdict (a report saved since fixb40)", function()
  local new = {}
  for k, v in pairs(OLD) do new[k] = v end
  -- -18.2 %, its interval -25 % to -11 %: beyond the 2 % threshold
  new.row_effect = { pct = -200 / 11, lo = -25, hi = -11, level = 95, strata = 1 }
  local m = report.build { a = sd("A", run(120)), b = sd("B", run(100)), generated = 0,
    significance = { ttft_p90_ms = new } }
  local r = row(m, "ttft_p90_ms")
  t.eq({ r.verdict, r.winner }, { "B better", "b" })
end)
