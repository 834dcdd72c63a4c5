-- treatments.lua's ranking by a partial order (audit40 #3): a tie is not transitive. Three
-- treatments, b30 (never saturated, >= its highest load), n20 (never saturated) and a72
-- (saturated, its limit at most the most it achieved at any load) were all "1=" where the
-- measured loads put b30 ahead of a72 (a72 never achieved b30's figure) and the Pareto
-- section said a72 is beaten by b30. A place's rank is now 1 + the number of places the
-- evidence orders ahead of it: b30 "1=", n20 "1=", a72 "2". And n20's row said "neither n20
-- nor a72 has repeats at its max sustained load point" where its figure is a lower bound.
-- Expected values by hand, beside each case.
local t = require "testlib"
local tr = require "llmd.treatments"

local function ranks(m)
  local out = {}
  for _, r in ipairs(m.ranking) do out[#out + 1] = { r.label, r.rank_text } end
  return out
end

t.test("partial_ranks: 1 + the places ordered ahead, by a chain too; ties not chained", function()
  -- by hand. ord: a set of "k:j" pairs (k ahead of j), k < j
  local function ranks_of(n, pairs)
    local set = {}
    for _, p in ipairs(pairs) do set[p] = true end
    return tr.partial_ranks(n, function(k, j) return set[k .. ":" .. j] == true end)
  end
  -- 1 ahead of 3 only (2 tied with both): 1, 1, 2 (old rule: 1, 1, 1)
  t.eq(ranks_of(3, { "1:3" }), { 1, 1, 2 })
  -- 1 ahead of 2 only (3 tied with both): 1, 2, 1
  t.eq(ranks_of(3, { "1:2" }), { 1, 2, 1 })
  -- a total order with a tie at the top: 1 and 2 ahead of 3: competition ranking 1, 1, 3
  t.eq(ranks_of(3, { "1:3", "2:3" }), { 1, 1, 3 })
  -- a chain 1 > 2 > 3 given only between neighbours: 3 has two ahead of it (1 by the chain)
  t.eq(ranks_of(3, { "1:2", "2:3" }), { 1, 2, 3 })
  -- nothing ordered: all 1
  t.eq(ranks_of(4, {}), { 1, 1, 1, 1 })
  -- 1 > 2 > 4, 3 tied with every one: 1, 2, 1, 3
  t.eq(ranks_of(4, { "1:2", "2:4" }), { 1, 2, 1, 3 })
end)

t.test("b30, n20 never saturated, a72 saturated below b30: 1=, 1=, 2, with the true reasons (audit40 #3)",
  function()
  -- max sustained throughput, one run a load, no SLO (by hand):
  --   b30: 4 -> 4, 8 -> 8, 12.6 -> 12.6: never saturated, >= 12.6
  --   n20: 4 -> 4, 8.15 -> 8.15: never saturated, >= 8.15
  --   a72: 4 -> 4, 7.7 -> 7.7, 12 -> 9.45 (78.75 %, saturated): 7.7, up to 9.45
  -- b30 vs n20: n20's figure is a lower bound: either may be higher. n20 vs a72: n20's limit
  -- is >= 8.15 with no upper end, a72's at most 9.45: either may be higher (n20's own figure
  -- is the lower bound). b30 vs a72: a72 never achieved more than 9.45, below b30's 12.6 by
  -- (12.6 - 9.45) / 11.025 = 28.6 % of their mean, past the 2 % threshold: ordered.
  local m = tr.model { t.treatment("b30", { { 4, 4 }, { 8, 8 }, { 12.6, 12.6 } }),
    t.treatment("n20", { { 4, 4 }, { 8.15, 8.15 } }),
    t.treatment("a72", { { 4, 4 }, { 7.7, 7.7 }, { 12, 9.45 } }) }
  t.eq(m.rank_by, "max sustained throughput")
  t.eq(ranks(m), { { "b30", "1=" }, { "n20", "1=" }, { "a72", "2" } })
  t.eq({ m.ranking[1].rank, m.ranking[2].rank, m.ranking[3].rank }, { 1, 1, 2 })
  -- n20's reason: its own figure is a lower bound, and a72 reached above it at some load
  t.eq(m.ranking[2].vs_next_text, "untested against a72, and either may be higher: n20's max sustained "
    .. "throughput, ≥ 8.150 req/s (never saturated), is only a lower bound, and a72 achieved up to 9.450 req/s at "
    .. "some load")
  t.lacks(m.ranking[2].vs_next_text, "has repeats", "n20's reason")
  t.eq(m.ranking[2].either, true)
  -- the note under the table reads the ranks: two at 1=, then 2
  t.eq(tr.rank_share_text(m.ranking), 'here two at "1=", then 2')
  -- no best named
  t.contains(m.verdict, "No treatment is shown to be best", "verdict")
end)

t.test("rank_share_text: ranks from a partial order need not be contiguous", function()
  -- by hand: 1=, 2, 1= reads two at 1=, then 2
  t.eq(tr.rank_share_text { { rank = 1, tied = true }, { rank = 2 }, { rank = 1, tied = true } },
    'here two at "1=", then 2')
  t.eq(tr.rank_share_text { { rank = 1, tied = true }, { rank = 1, tied = true }, { rank = 3 } },
    'here two at "1=", then 3')
  t.eq(tr.rank_share_text { { rank = 1 }, { rank = 2 } }, "here no place shares a rank")
end)
