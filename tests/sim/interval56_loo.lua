-- interval56: a candidate rule for tests/sim/interval56_crash.py --alt (not adopted: see test_capacity_repeats.lua,
-- verify44 #1): each repeat against the others pooled, the counts over the others' one design effect, Bonferroni.
local lp, st = require "llmd.loadpoints", require "llmd.stattest"
return function(failed, total, deff)
  local k = #failed
  local any, minp = false, 1
  for j = 1, k do
    local of, od = {}, {}
    local F, T = 0, 0
    for i = 1, k do if i ~= j then of[#of + 1], od[#od + 1] = failed[i], deff[i]; F, T = F + failed[i], T + total[i] end end
    local d = lp.repeats_deff(of, od)
    local h = st.heterogeneity({ failed[j] / d, F / d }, { total[j] / d, T / d })
    if h then any = true; minp = math.min(minp, h.p) end
  end
  if not any then return nil end
  return minp < 0.05 / k
end
