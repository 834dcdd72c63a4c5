-- Repeats one side of which is constant get the exact Mann-Whitney test (decision.repeat_test);
-- their row's interval was Welch's on the log values, from the other side's spread alone, so the
-- p (from ranks) and the interval could disagree: A 100 in 5 repeats against B 80, 81, 82, 83,
-- 101 read p = 0.127 beside -24.6 % to -4.1 %, and A 100 in 4 against B 101, 102, 103, 150
-- p = 0.0286 beside -17.4 % to +52.7 % (task fixc52 #4). Now the interval is the exact test's
-- own (decision.exact_shift_interval: the shifts it keeps, Hodges-Lehmann's estimate).
-- Expected: tests/data/exact_shift_ref.py (python3, every split of the mid-ranks enumerated by
-- itertools, the kept shifts tried one by one; no llmdlua code).
local t = require "testlib"
local json = require "llmd.json"
local decision = require "llmd.decision"

local CASES = {
  { { 100, 100, 100, 100, 100 }, { 90, 91, 92, 93, 94 } },
  { { 100, 100, 100, 100, 100 }, { 90, 91, 92, 93, 101 } },
  { { 100, 100, 100 }, { 90, 91, 92 } },
  { { 100, 100, 100, 100 }, { 101, 102, 103, 150 } },
  { { 100, 100, 100, 100, 100 }, { 80, 81, 82, 83, 101 } },
  { { 100, 100, 100, 100, 100, 100 }, { 90, 101, 92, 99, 94, 95 } },
  -- (B constant; A with a value tying B's)
  { { 7, 8, 9, 10, 12, 5 }, { 10, 10, 10, 10, 10 } },
}

t.test("exact Mann-Whitney on repeats: its p and its own interval agree, as an independent computation has them",
  function()
  local want = json.decode(t.data_py("exact_shift_ref.py", json.encode(CASES)))
  for i, c in ipairs(CASES) do
    local r = decision.sized_repeat_test(c[1], c[2])
    local w, e = want[i], r.row_effect
    local what = ("case %d"):format(i)
    t.eq(r.test, "exact_mann_whitney", what)
    t.near(r.p, w.p, 1e-12, what .. " p")
    t.near(e.pct, w.pct, 1e-9, what .. " estimate")
    if w.lo == json.null then
      t.eq({ e.lo, e.hi }, { nil, nil }, what .. " unbounded")
      t.contains(e.why, "the exact test's interval is unbounded")
    else
      t.near(e.lo, w.lo, 1e-9, what .. " lo")
      t.near(e.hi, w.hi, 1e-9, what .. " hi")
      -- the property itself: p < 0.05 exactly where the interval leaves out 0
      t.eq(r.p < 0.05, e.lo > 0 or e.hi < 0, what .. ": p and interval agree")
    end
  end
end)

t.test("a verdict on such repeats rests on the test its interval agrees with", function()
  -- (throughput, higher better: decision.verdict as compare.lua's rows call it)
  local function verdict(xa, xb)
    local test = decision.sized_repeat_test(xa, xb)
    local function mean(xs) local s = 0 for _, v in ipairs(xs) do s = s + v end return s / #xs end
    return decision.verdict { key = "throughput_req_s", a = mean(xa), b = mean(xb), test = test, min_effect = 2 }
  end
  -- p = 0.127: no clear difference, and the interval (-20 % to +1 %, the reference's) takes in 0
  local v = verdict(CASES[5][1], CASES[5][2])
  t.eq({ v.verdict, v.winner }, { "no clear difference", nil })
  t.ok(v.effect_lo < 0 and v.effect_hi > 0, ("%s to %s"):format(v.effect_lo, v.effect_hi))
  -- p = 0.0286 and +1 % to +50 %: the difference is shown, its size not beyond 2 %: no winner,
  -- for the threshold's sake (before: "takes in" differences down to -17 %)
  v = verdict(CASES[4][1], CASES[4][2])
  t.eq({ v.verdict, v.winner, v.size }, { "not shown to differ", nil, "unsure" })
  t.contains(v.note, "+1.0 % to +50.0 %")
  -- p = 0.0079, -10 % to -6 %: A better
  v = verdict(CASES[1][1], CASES[1][2])
  t.eq({ v.verdict, v.winner }, { "A better", "a" })
end)
