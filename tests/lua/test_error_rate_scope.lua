-- The error rate's row where its test covered only some loads: what it says of the loads left
-- out (audit47 F1).
local t = require "testlib"
local decision = require "llmd.decision"

t.test("an error rate alike at the loads tested, with loads left out, is untested, not 'no clear difference'",
  function()
    -- audit47's g7ab0 (queue_sim --error-bursts 2,30 --bursts-at 3,5 in A): A failed 33 of 480
    -- requests at 3 and 5 req/s, both left out as too dependent to test (bursts), none at the 5
    -- loads kept: whole-run 1.45 % against 0.00 %. Main: verdict "no clear difference" (CSV
    -- effect -100 %) beside the Summary's "No request failed in either run" for a difference
    -- no test compared
    local left = "left out, too dependent to test (in send order failed requests come in bursts): 3/s, 5/s"
    local test = { test = "identical", identical = true, n_a = 1800, n_b = 1800, left_out = left,
      note = "no request failed in either run at the 5 load points both measured (0 of 1800 and 0 of 1800 failed): "
        .. "no test; " .. left }
    local v = decision.verdict { key = "error_rate_pct", a = 1.45, b = 0, test = test }
    t.eq({ v.verdict, v.winner, v.identical }, { "untested", nil, true })
    -- its note keeps the scope: the loads compared, and those left out
    t.contains(v.note, "at the 5 load points both measured")
    t.contains(v.note, "3/s, 5/s")
    -- every load tested (nothing left out): the same rate at every load, no difference
    test.left_out, test.note = nil, "no request failed in either run at the 7 load points both measured (0 of 2280 "
      .. "and 0 of 2280 failed): no test"
    v = decision.verdict { key = "error_rate_pct", a = 0, b = 0, test = test }
    t.eq(v.verdict, "no clear difference")
  end)
