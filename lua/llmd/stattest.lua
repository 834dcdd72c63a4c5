-- llmd.stattest: the statistics a decision needs beyond llmd.stats' accumulators: the
-- Student t distribution, Welch's t-test and confidence intervals of a mean.
--
--   local st = require "llmd.stattest"
--   st.t_cdf(2.0, 10)              -- P(T <= 2) with 10 degrees of freedom
--   st.t_quantile(0.975, 2)        -- 4.3027 (the 95 % two-sided critical value)
--   st.welch({1, 2, 3}, {4, 5, 6}) -- {t =, df =, p =, mean_a =, mean_b =, diff =}
--   st.exact_mann_whitney({0, 0, 0}, {2, 2, 2}) -- {p = 0.1, p_min = 0.1, u = 9, ...}
--   st.exact_van_elteren{ {a = {1, 2, 3}, b = {4, 5, 6}}, {a = {1, 2, 3}, b = {4, 5, 6}} } -- {p = 0.005, ...}
--   st.fisher_exact(1, 6, 17, 22) -- 1 of 6 against 17 of 22: {p = 0.0126, p_min =, ...}
--   st.stratified_exact{ {0, 1800, 0, 600}, {150, 3000, 450, 9000} } -- per load point: {p = 1, ...}
--   st.chi2_upper(3.84, 1)         -- P(X >= 3.84), chi-square with 1 degree of freedom: 0.05
--   st.heterogeneity({0, 0, 12}, {200, 200, 200}) -- {x2 =, df = 2, p =}: do the shares differ?
--   st.mean_ci({1, 2, 3}, 0.95)    -- {mean =, lo =, hi =, min =, max =, n =, sd =}
--   st.mean_ci(xs, 0.95, 0)        -- lo never below 0 (clipped = true, t_lo = the t end)
--   st.t_interval_power(1542.3, 1372.5, 9) -- 0.838: 9 values' t-interval clears a limit that far
--
-- The t distribution is computed from the regularised incomplete beta function
-- (continued fraction, evaluated with the modified Lentz method) and log-gamma (Lanczos
-- approximation, g = 7, 9 terms): |error| below 1e-12 over the range a report uses.
-- Degrees of freedom may be fractional (Welch-Satterthwaite).
local M = {}

local LANCZOS = {
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
  1.5056327351493116e-7,
}

-- log Gamma(x) for x > 0.
function M.lgamma(x)
  if x < 0.5 then
    -- reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x)
    return math.log(math.pi / math.abs(math.sin(math.pi * x))) - M.lgamma(1 - x)
  end
  x = x - 1
  local a = LANCZOS[1]
  local t = x + 7.5
  for i = 2, 9 do a = a + LANCZOS[i] / (x + i - 1) end
  return 0.5 * math.log(2 * math.pi) + (x + 0.5) * math.log(t) - t + math.log(a)
end

-- The continued fraction of the incomplete beta function (modified Lentz).
local function betacf(a, b, x)
  local TINY, EPS = 1e-300, 1e-15
  local qab, qap, qam = a + b, a + 1, a - 1
  local c, d = 1, 1 - qab * x / qap
  if math.abs(d) < TINY then d = TINY end
  d = 1 / d
  local h = d
  for m = 1, 10000 do
    local m2 = 2 * m
    local aa = m * (b - m) * x / ((qam + m2) * (a + m2))
    d = 1 + aa * d
    if math.abs(d) < TINY then d = TINY end
    c = 1 + aa / c
    if math.abs(c) < TINY then c = TINY end
    d = 1 / d
    h = h * d * c
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
    d = 1 + aa * d
    if math.abs(d) < TINY then d = TINY end
    c = 1 + aa / c
    if math.abs(c) < TINY then c = TINY end
    d = 1 / d
    local del = d * c
    h = h * del
    if math.abs(del - 1) < EPS then return h end
  end
  return h
end

-- The regularised incomplete beta function I_x(a, b), x in [0, 1].
function M.ibeta(x, a, b)
  if x <= 0 then return 0 end
  if x >= 1 then return 1 end
  local lbt = M.lgamma(a + b) - M.lgamma(a) - M.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
  local bt = math.exp(lbt)
  if x < (a + 1) / (a + b + 2) then return bt * betacf(a, b, x) / a end
  return 1 - bt * betacf(b, a, 1 - x) / b
end

local function check_df(df, fname)
  if type(df) ~= "number" or df ~= df or df <= 0 then
    error(("%s: degrees of freedom must be a positive number, got %s"):format(fname, tostring(df)), 3)
  end
end

-- P(|T| >= |t|) for Student's t with df degrees of freedom: the two-sided p-value.
function M.t_two_sided(t, df)
  check_df(df, "t_two_sided")
  if t ~= t then return nil end
  if math.abs(t) == math.huge then return 0 end
  return M.ibeta(df / (df + t * t), df / 2, 0.5)
end

-- P(T <= t).
function M.t_cdf(t, df)
  check_df(df, "t_cdf")
  if t == math.huge then return 1 elseif t == -math.huge then return 0 end
  local tail = M.t_two_sided(t, df) / 2
  return t >= 0 and 1 - tail or tail
end

-- The t with P(T <= t) = p (bisection on t_cdf to 1e-12 relative).
function M.t_quantile(p, df)
  check_df(df, "t_quantile")
  if type(p) ~= "number" or not (p > 0 and p < 1) then
    error(("t_quantile: p must be in (0, 1), got %s"):format(tostring(p)), 2)
  end
  if p == 0.5 then return 0 end
  if p < 0.5 then return -M.t_quantile(1 - p, df) end
  local lo, hi = 0, 1
  while M.t_cdf(hi, df) < p do
    lo, hi = hi, hi * 2
    if hi > 1e12 then return math.huge end
  end
  for _ = 1, 200 do
    local mid = (lo + hi) / 2
    if M.t_cdf(mid, df) < p then lo = mid else hi = mid end
    if hi - lo <= 1e-12 * hi then break end
  end
  return (lo + hi) / 2
end

-- erfc(x) for x >= 0: the Maclaurin series of erf below 3, the continued fraction above.
local function erfc(x)
  if x < 3 then
    local sum, term, n = x, x, 0
    repeat
      n = n + 1
      term = -term * x * x / n
      local add = term / (2 * n + 1)
      sum = sum + add
    until math.abs(add) <= 1e-17 * math.abs(sum) or n >= 200
    return 1 - 2 / math.sqrt(math.pi) * sum
  end
  -- erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))), from the tail
  local f = x
  for k = 60, 1, -1 do f = x + (k / 2) / f end
  return math.exp(-x * x) / math.sqrt(math.pi) / f
end

-- P(|Z| >= |z|) for a standard normal Z: the two-sided p-value.
function M.normal_two_sided(z)
  if z ~= z then return nil end
  return erfc(math.abs(z) / math.sqrt(2))
end

local function mean_var(xs)
  local n, s = #xs, 0
  for i = 1, n do s = s + xs[i] end
  local mean = s / n
  local ss = 0
  for i = 1, n do ss = ss + (xs[i] - mean) ^ 2 end
  return mean, n > 1 and ss / (n - 1) or nil
end

local function check_sample(xs, fname, what)
  if type(xs) ~= "table" then
    error(("%s: %s must be a list of numbers, got %s"):format(fname, what, type(xs)), 3)
  end
  if #xs < 2 then
    error(("%s: %s needs at least 2 values"):format(fname, what), 3)
  end
  for i = 1, #xs do
    local x = xs[i]
    if type(x) ~= "number" or x ~= x or math.abs(x) == math.huge then
      error(("%s: %s[%d] is not a finite number"):format(fname, what, i), 3)
    end
  end
end

-- Welch's unequal-variance t-test of b against a (two-sided): {t, df, p, mean_a, mean_b,
-- diff = mean_b - mean_a}. Both samples constant: the t statistic is 0/0 or +-inf and the
-- degrees of freedom 0/0, so there is no test: t, df and p are nil and undefined says why
-- (an infinite t is not infinite evidence: M.exact_mann_whitney is the test for such data).
function M.welch(a, b)
  check_sample(a, "welch", "a")
  check_sample(b, "welch", "b")
  local ma, va = mean_var(a)
  local mb, vb = mean_var(b)
  local qa, qb = va / #a, vb / #b
  local se2 = qa + qb
  local r = { mean_a = ma, mean_b = mb, diff = mb - ma, n_a = #a, n_b = #b }
  if se2 == 0 then
    r.undefined = "both samples are constant: the t statistic is undefined"
    return r
  end
  r.t = (mb - ma) / math.sqrt(se2)
  r.df = se2 * se2 / (qa * qa / (#a - 1) + qb * qb / (#b - 1))
  r.p = M.t_two_sided(r.t, r.df)
  return r
end

-- Above this many values in all, exact_mann_whitney uses the normal approximation.
M.EXACT_MAX = 60

-- The exact two-sided Mann-Whitney (Wilcoxon rank-sum) test of b against a, for small
-- samples such as the repeats of a load point: the distribution of b's rank sum (mid-ranks
-- for ties) over all C(n_a + n_b, n_b) ways to split the pooled values, counted exactly;
-- p = 2 min(P(W <= w), P(W >= w)), capped at 1 (the convention of R's wilcox.test and
-- scipy's exact method). Assumes nothing of the values' distribution: it is the test for
-- repeats whose values are all the same on one side, where a t-test's normal noise does
-- not hold. Returns {test = "exact_mann_whitney", p, u = b's U (ties count 1/2),
-- p_min = the smallest p any split of these values could give (complete separation of
-- 3 and 3 distinct values: 2 / C(6, 3) = 0.1), n_a, n_b, mean_a, mean_b, exact = true};
-- with more than M.EXACT_MAX values, the normal approximation with tie correction
-- (exact = false, p_min = 0).
function M.exact_mann_whitney(a, b)
  check_sample(a, "exact_mann_whitney", "a")
  check_sample(b, "exact_mann_whitney", "b")
  local na, nb = #a, #b
  local n = na + nb
  local all = {}
  for i = 1, na do all[i] = { v = a[i], b = false } end
  for i = 1, nb do all[na + i] = { v = b[i], b = true } end
  table.sort(all, function(x, y) return x.v < y.v end)
  -- doubled mid-ranks (integers): a tie group over positions i..j ranks (i + j) / 2
  local r2, ties, wb2 = {}, 0, 0
  local i = 1
  while i <= n do
    local j = i
    while j < n and all[j + 1].v == all[i].v do j = j + 1 end
    for k = i, j do r2[k] = i + j end
    local t = j - i + 1
    ties = ties + t * t * t - t
    i = j + 1
  end
  for k = 1, n do if all[k].b then wb2 = wb2 + r2[k] end end
  local sa, sb = 0, 0
  for k = 1, na do sa = sa + a[k] end
  for k = 1, nb do sb = sb + b[k] end
  local r = { test = "exact_mann_whitney", n_a = na, n_b = nb, mean_a = sa / na, mean_b = sb / nb,
    u = wb2 / 2 - nb * (nb + 1) / 2 }
  if n > M.EXACT_MAX then
    local mu = na * nb / 2
    local var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))
    r.exact, r.p_min = false, 0
    r.p = var > 0 and M.normal_two_sided((r.u - mu) / math.sqrt(var)) or 1
    return r
  end
  -- cnt[k][s]: the number of ways to pick k of the values seen so far with doubled rank
  -- sum s (floating point: C(60, 30) is beyond 2^53 but well within a double's range)
  local cnt = { [0] = { [0] = 1.0 } }
  for k = 1, nb do cnt[k] = {} end
  for idx = 1, n do
    local r_ = r2[idx]
    for k = math.min(idx, nb), 1, -1 do
      local from, to = cnt[k - 1], cnt[k]
      for s, c in pairs(from) do to[s + r_] = (to[s + r_] or 0) + c end
    end
  end
  local total, lo, hi, smin, smax = 0, 0, 0, math.huge, -math.huge
  for s, c in pairs(cnt[nb]) do
    total = total + c
    if s <= wb2 then lo = lo + c end
    if s >= wb2 then hi = hi + c end
    if s < smin then smin = s end
    if s > smax then smax = s end
  end
  r.exact = true
  r.p = math.min(1, 2 * math.min(lo, hi) / total)
  r.p_min = math.min(1, 2 * math.min(cnt[nb][smin], cnt[nb][smax]) / total)
  return r
end

-- Beyond this many distinct values of its statistic, exact_van_elteren gives up (nil): strata
-- of many different sizes multiply their distributions' supports.
M.EXACT_STRATIFIED_SUPPORT = 200000

-- The exact van Elteren test (the stratified rank-sum test, van Elteren 1960) for small
-- samples: strata = {{a = {values}, b = {values}}, ...}, e.g. the requests of two runs at
-- each load point both measured. The statistic is the sum over the strata of B's rank sum
-- in its stratum (mid-ranks for ties) weighted by 1 / (N_k + 1), N_k the stratum's values
-- (the weights of llmd.decision.stratified_mann_whitney's normal approximation). With no
-- difference between the runs every split of a stratum's pooled values is equally likely,
-- independently between strata, so the statistic's distribution is the convolution of the
-- strata's rank-sum distributions, counted exactly: p = 2 min(P(T <= t), P(T >= t)) capped
-- at 1, and p_min the smallest p any splits could give, as exact_mann_whitney. Ranks are
-- doubled and the weights multiplied by the least common multiple of the (N_k + 1), so
-- every sum is an exact integer. A stratum whose values are all one (or with an empty side)
-- carries no information and is left out. Returns {test = "exact_van_elteren", p, p_min,
-- exact = true, strata = the strata used, n = the values in them}; nil and why with more
-- than M.EXACT_MAX values in all, no stratum left, or a support beyond
-- M.EXACT_STRATIFIED_SUPPORT.
function M.exact_van_elteren(strata)
  local used, n_all, lcm = {}, 0, 1
  local function gcd(x, y)
    while y ~= 0 do x, y = y, x % y end
    return x
  end
  for i, s in ipairs(strata) do
    for _, side in ipairs { "a", "b" } do
      local xs = s[side]
      if type(xs) ~= "table" then error(("exact_van_elteren: stratum %d: %s is not a list"):format(i, side), 2) end
      for j, x in ipairs(xs) do
        if type(x) ~= "number" or x ~= x or math.abs(x) == math.huge then
          error(("exact_van_elteren: stratum %d: %s[%d] is not a finite number"):format(i, side, j), 2)
        end
      end
    end
    local one = true
    for _, xs in ipairs { s.a, s.b } do
      for _, v in ipairs(xs) do if v ~= s.a[1] then one = false end end
    end
    if #s.a > 0 and #s.b > 0 and not one then
      used[#used + 1] = s
      n_all = n_all + #s.a + #s.b
      local w = #s.a + #s.b + 1
      lcm = lcm // gcd(lcm, w) * w
    end
  end
  if #used == 0 then return nil, "no stratum with values that differ on both sides" end
  if n_all > M.EXACT_MAX then return nil, ("%d values, more than %d"):format(n_all, M.EXACT_MAX) end
  local dist, observed = { [0] = 1.0 }, 0
  for _, s in ipairs(used) do
    local na, nb = #s.a, #s.b
    local n = na + nb
    local all = {}
    for i = 1, na do all[i] = { v = s.a[i], b = false } end
    for i = 1, nb do all[na + i] = { v = s.b[i], b = true } end
    table.sort(all, function(x, y) return x.v < y.v end)
    local r2, wb2, i = {}, 0, 1
    while i <= n do
      local j = i
      while j < n and all[j + 1].v == all[i].v do j = j + 1 end
      for k = i, j do r2[k] = i + j end
      i = j + 1
    end
    for k = 1, n do if all[k].b then wb2 = wb2 + r2[k] end end
    -- cnt[k][sum]: ways to pick k of the stratum's values with that doubled rank sum
    local cnt = { [0] = { [0] = 1.0 } }
    for k = 1, nb do cnt[k] = {} end
    for idx = 1, n do
      for k = math.min(idx, nb), 1, -1 do
        local from, to = cnt[k - 1], cnt[k]
        for x, c in pairs(from) do to[x + r2[idx]] = (to[x + r2[idx]] or 0) + c end
      end
    end
    local w = lcm // (n + 1)
    observed = observed + w * wb2
    local next_, size = {}, 0
    for x, c in pairs(dist) do
      for y, d in pairs(cnt[nb]) do
        local key = x + w * y
        if not next_[key] then size = size + 1 end
        next_[key] = (next_[key] or 0) + c * d
      end
    end
    if size > M.EXACT_STRATIFIED_SUPPORT then
      return nil, ("the exact distribution has more than %d values"):format(M.EXACT_STRATIFIED_SUPPORT)
    end
    dist = next_
  end
  local total, lo, hi, smin, smax = 0, 0, 0, math.huge, -math.huge
  for x, c in pairs(dist) do
    total = total + c
    if x <= observed then lo = lo + c end
    if x >= observed then hi = hi + c end
    if x < smin then smin = x end
    if x > smax then smax = x end
  end
  return { test = "exact_van_elteren", exact = true, strata = #used, n = n_all,
    p = math.min(1, 2 * math.min(lo, hi) / total),
    p_min = math.min(1, 2 * math.min(dist[smin], dist[smax]) / total) }
end

-- Fisher's exact test of two proportions: xa events (failed requests) of na trials in A
-- against xb of nb in B, two-sided. Given the margins (xa + xb events of na + nb trials),
-- A's count x is hypergeometric, P(x) = C(K, x) C(N - K, na - x) / C(N, na); p is the sum
-- of P over every x no more likely than the one observed (a relative tolerance of 1e-7 for
-- ties of floating point, as R's fisher.test), each term from log-gamma and divided by
-- their total, so that the constant C(N, na) cancels. p_min is the smallest p any table
-- with these margins could give (no events at all, or all of them: 1): a test whose p_min
-- is >= alpha cannot show a difference. Returns {test = "fisher", p, p_min, x_a, n_a, x_b,
-- n_b, rate_a, rate_b}; counts that are not whole numbers with 0 <= x <= n raise.
function M.fisher_exact(xa, na, xb, nb)
  for i, v in ipairs { xa, na, xb, nb } do
    if type(v) ~= "number" or v ~= v or v < 0 or v ~= math.floor(v) or v == math.huge then
      error(("bad argument #%d to 'fisher_exact' (expected a count, a whole number >= 0, got %s)")
        :format(i, tostring(v)), 2)
    end
  end
  if xa > na or xb > nb then
    error(("fisher_exact: %s events of %s trials: more events than trials"):format(
      xa > na and xa or xb, xa > na and na or nb), 2)
  end
  if na == 0 or nb == 0 then error("fisher_exact: a side with no trials", 2) end
  local r = { test = "fisher", x_a = xa, n_a = na, x_b = xb, n_b = nb, rate_a = xa / na, rate_b = xb / nb }
  -- one orientation of the table whichever side is given first, so that swapping the
  -- sides gives the same p to the last bit (the sums run in one order)
  if na > nb or (na == nb and xa > xb) then xa, na, xb, nb = xb, nb, xa, na end
  local k, n = xa + xb, na + nb
  local lo, hi = math.max(0, k - nb), math.min(k, na)
  local lg = M.lgamma
  local function logc(a, b) return lg(a + 1) - lg(b + 1) - lg(a - b + 1) end
  local lp, top = {}, -math.huge
  for x = lo, hi do
    lp[x] = logc(k, x) + logc(n - k, na - x)
    if lp[x] > top then top = lp[x] end
  end
  local total, tail, least = 0, 0, math.huge
  for x = lo, hi do
    local w = math.exp(lp[x] - top)
    total = total + w
    if lp[x] <= lp[xa] + 1e-7 then tail = tail + w end
    if lp[x] < least then least = lp[x] end
  end
  local tail_min = 0
  for x = lo, hi do
    if lp[x] <= least + 1e-7 then tail_min = tail_min + math.exp(lp[x] - top) end
  end
  r.p, r.p_min = math.min(1, tail / total), math.min(1, tail_min / total)
  return r
end

-- Terms of a stratum's (or of the running sum's) distribution below this share of its
-- most likely one are left out of stratified_exact's convolution: they change no p that a
-- report prints (p < 1e-9 prints as "< 1e-9"), and without the cut a stratum of 300000
-- requests half of them failed would carry 150000 terms through every convolution.
M.STRATIFIED_CUT = 1e-30

-- The exact stratified test of two proportions (the exact conditional test behind the
-- Mantel-Haenszel test): strata = {{xa, na, xb, nb}, ...}, A's xa events of na trials
-- against B's xb of nb in each stratum (a load point both runs measured). Given every
-- stratum's margins, A's count there is hypergeometric (as in M.fisher_exact) and
-- independent of the other strata's, so A's total T is distributed as the convolution of
-- the strata's hypergeometric distributions; the two-sided p sums P(T = t) over every t no
-- more likely than the observed total (relative tolerance 1e-7, as fisher_exact). One
-- stratum is fisher_exact itself. A difference between the runs that comes only of how
-- they spread their requests over the strata (more repeats at a load with more failures)
-- is no evidence here, as it is in a test of the pooled counts (Simpson's paradox).
-- Returns fisher_exact's fields (x_a, n_a, x_b, n_b and rate_a, rate_b: the totals and the
-- pooled rates), test = "fisher", strata = the number of strata, and the Mantel-Haenszel
-- weighted rates (weights na nb / (na + nb)): mh_rate_a, mh_rate_b, whose difference is
-- the Mantel-Haenszel rate difference, the stratified effect. p_min: the smallest p any
-- tables with these margins could give.
function M.stratified_exact(strata)
  if type(strata) ~= "table" or #strata == 0 then error("stratified_exact: no stratum", 2) end
  for k, s in ipairs(strata) do
    for i = 1, 4 do
      local v = type(s) == "table" and s[i] or nil
      if type(v) ~= "number" or v ~= v or v < 0 or v ~= math.floor(v) or v == math.huge then
        error(("stratified_exact: stratum %d, count %d: expected a whole number >= 0, got %s")
          :format(k, i, tostring(v)), 2)
      end
    end
    if s[1] > s[2] or s[3] > s[4] then
      error(("stratified_exact: stratum %d: more events than trials"):format(k), 2)
    end
    if s[2] == 0 or s[4] == 0 then error(("stratified_exact: stratum %d: a side with no trials"):format(k), 2) end
  end
  local xa, na, xb, nb, wsum, wa, wb = 0, 0, 0, 0, 0, 0, 0
  for _, s in ipairs(strata) do
    xa, na, xb, nb = xa + s[1], na + s[2], xb + s[3], nb + s[4]
    local w = s[2] * s[4] / (s[2] + s[4])
    wsum, wa, wb = wsum + w, wa + w * s[1] / s[2], wb + w * s[3] / s[4]
  end
  local r
  if #strata == 1 then
    r = M.fisher_exact(strata[1][1], strata[1][2], strata[1][3], strata[1][4])
  else
    r = { test = "fisher", x_a = xa, n_a = na, x_b = xb, n_b = nb, rate_a = xa / na, rate_b = xb / nb }
    -- one orientation whichever side is given first (as fisher_exact): swapping the runs
    -- gives the same p to the last bit
    local swap = na > nb or (na == nb and xa > xb)
    if na == nb and xa == xb then
      for _, s in ipairs(strata) do
        if s[2] ~= s[4] then swap = s[2] > s[4]; break end
        if s[1] ~= s[3] then swap = s[1] > s[3]; break end
      end
    end
    local lg = M.lgamma
    local function logc(a, b) return lg(a + 1) - lg(b + 1) - lg(a - b + 1) end
    local cut = math.log(M.STRATIFIED_CUT)
    -- dist[t - off] (1-based) = the weight of A's (oriented) total t, scaled by its largest
    local dist, off = { 1.0 }, 0
    local obs = 0
    for _, s in ipairs(strata) do
      local x, n1, y, n2 = s[1], s[2], s[3], s[4]
      if swap then x, n1, y, n2 = y, n2, x, n1 end
      obs = obs + x
      local k, n = x + y, n1 + n2
      local lo, hi = math.max(0, k - n2), math.min(k, n1)
      local lp, top = {}, -math.huge
      for v = lo, hi do
        lp[v] = logc(k, v) + logc(n - k, n1 - v)
        if lp[v] > top then top = lp[v] end
      end
      local a, b = lo, hi
      while lp[a] - top < cut do a = a + 1 end
      while lp[b] - top < cut do b = b - 1 end
      local w = {}
      for v = a, b do w[v - a + 1] = math.exp(lp[v] - top) end
      local out, big = {}, 0
      for i = 1, #dist + #w - 1 do out[i] = 0 end
      for i = 1, #dist do
        local di = dist[i]
        if di > 0 then
          for j = 1, #w do out[i + j - 1] = out[i + j - 1] + di * w[j] end
        end
      end
      for i = 1, #out do if out[i] > big then big = out[i] end end
      -- the running distribution rescaled to its largest term, its negligible ends cut
      local first, last = 1, #out
      while out[first] < big * M.STRATIFIED_CUT do first = first + 1 end
      while out[last] < big * M.STRATIFIED_CUT do last = last - 1 end
      local kept = {}
      for i = first, last do kept[i - first + 1] = out[i] / big end
      dist, off = kept, off + a + first - 1
    end
    local total, least = 0, math.huge
    for i = 1, #dist do
      total = total + dist[i]
      if dist[i] < least then least = dist[i] end
    end
    local tail, tail_min = 0, 0
    local at = obs - off + 1
    local pobs = dist[at]
    for i = 1, #dist do
      if pobs and dist[i] <= pobs * (1 + 1e-7) then tail = tail + dist[i] end
      if dist[i] <= least * (1 + 1e-7) then tail_min = tail_min + dist[i] end
    end
    -- an observed total beyond the cut: less likely than any term kept, its p below what
    -- the cut leaves out (at most STRATIFIED_CUT of the largest term per term)
    if not pobs then tail = (#dist + 1) * M.STRATIFIED_CUT end
    r.p, r.p_min = math.min(1, tail / total), math.min(1, tail_min / total)
  end
  r.strata = #strata
  r.mh_rate_a, r.mh_rate_b = wa / wsum, wb / wsum
  return r
end

-- The regularised upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a), a > 0,
-- x >= 0: the power series of P(a, x) below x = a + 1, the continued fraction of Q (modified
-- Lentz) above it, each to a relative 1e-15.
local function gamma_q(a, x)
  if x <= 0 then return 1 end
  local lead = -x + a * math.log(x) - M.lgamma(a)
  if x < a + 1 then
    local ap, del, sum = a, 1 / a, 1 / a
    for _ = 1, 10000 do
      ap = ap + 1
      del = del * x / ap
      sum = sum + del
      if math.abs(del) < math.abs(sum) * 1e-15 then break end
    end
    return math.max(0, 1 - sum * math.exp(lead))
  end
  local TINY = 1e-300
  local b = x + 1 - a
  local c, d = 1 / TINY, 1 / b
  local h = d
  for i = 1, 10000 do
    local an = -i * (i - a)
    b = b + 2
    d = an * d + b
    if math.abs(d) < TINY then d = TINY end
    c = b + an / c
    if math.abs(c) < TINY then c = TINY end
    d = 1 / d
    local del = d * c
    h = h * del
    if math.abs(del - 1) < 1e-15 then break end
  end
  return math.min(1, math.exp(lead) * h)
end

-- P(X >= x) for X chi-square with df degrees of freedom (df > 0): Q(df / 2, x / 2).
function M.chi2_upper(x, df)
  check_df(df, "chi2_upper")
  if type(x) ~= "number" or x ~= x then error("bad argument #1 to 'chi2_upper' (number expected)", 2) end
  return gamma_q(df / 2, math.max(0, x) / 2)
end

-- The quantile of the chi-square distribution with df degrees of freedom at probability q
-- (0 < q < 1): the x with P(X <= x) = q, by bisection on M.chi2_upper (monotone in x), to a
-- relative 1e-12 (chi2(0.2, 1) = 0.0641848, chi2(0.2, 2) = 0.4462871: scipy.stats.chi2.ppf).
function M.chi2_quantile(q, df)
  check_df(df, "chi2_quantile")
  if not (type(q) == "number" and q > 0 and q < 1) then
    error(("chi2_quantile: expected 0 < q < 1, got %s"):format(tostring(q)), 2)
  end
  local lo, hi = 0, df + 10 * math.sqrt(2 * df) + 100
  while 1 - M.chi2_upper(hi, df) < q do hi = hi * 2 end
  for _ = 1, 200 do
    local mid = (lo + hi) / 2
    if 1 - M.chi2_upper(mid, df) < q then lo = mid else hi = mid end
    if hi - lo <= 1e-12 * hi then break end
  end
  return (lo + hi) / 2
end

-- The one-sided upper confidence limit (level conf, 0 < conf < 1) of a normal spread measured
-- as sd from n values: sd sqrt((n - 1) / chi2(1 - conf, n - 1)), since (n - 1) s^2 / sigma^2 is
-- chi-square with n - 1 degrees of freedom. From 2 values at 80 %: 3.947 sd.
function M.sd_upper(sd, n, conf)
  return sd * math.sqrt((n - 1) / M.chi2_quantile(1 - conf, n - 1))
end

-- Do k shares differ beyond chance: events[i] of trials[i] (failed requests of each repeat
-- of one load point)? Pearson's chi-square test of homogeneity on the 2 x k table: with the
-- pooled share q = sum(events) / sum(trials), X2 = sum over i of (events[i] - trials[i] q)^2
-- / (trials[i] q (1 - q)), df = k - 1 (groups with no trials left out). It is what pooling
-- the counts assumes away: that every request fails independently with one probability; a
-- crashed repeat, failing 12 of 200 where its siblings failed none, makes X2 large. Returns
-- {x2 =, df =, p =, share = q}, or nil when fewer than 2 groups have trials or q is 0 or 1
-- (no event, or nothing else: no variation to test). A large-sample test: with few
-- expected events its p is approximate.
function M.heterogeneity(events, trials)
  local e, n, k = 0, 0, 0
  for i, x in ipairs(events) do
    local t = trials[i]
    if type(x) ~= "number" or type(t) ~= "number" or x < 0 or x > t then
      error(("heterogeneity: group %d: %s events of %s trials"):format(i, tostring(x), tostring(t)), 2)
    end
    if t > 0 then e, n, k = e + x, n + t, k + 1 end
  end
  if k < 2 or e == 0 or e == n then return nil end
  local q = e / n
  local x2 = 0
  for i, x in ipairs(events) do
    local t = trials[i]
    if t > 0 then x2 = x2 + (x - t * q) ^ 2 / (t * q * (1 - q)) end
  end
  return { x2 = x2, df = k - 1, p = M.chi2_upper(x2, k - 1), share = q }
end

-- Do k means differ beyond their own noise: means[i] with standard errors ses[i] (a run's
-- repeats' mean latencies at one load, each its requests' standard deviation over the square
-- root of their count over their design effect)? Cochran's Q: with weights w = 1 / se^2 and
-- the weighted mean m, Q = sum w (mean - m)^2, chi-square with k - 1 df where the means differ
-- by their noise alone (Cochran 1954). Returns {q =, df =, p =}, or nil where fewer than 2
-- means have a standard error above 0.
function M.means_heterogeneity(means, ses)
  local sw, swm, k = 0, 0, 0
  for i, m in ipairs(means) do
    local se = ses[i]
    if type(m) ~= "number" or type(se) ~= "number" or m ~= m or se ~= se then
      error(("means_heterogeneity: group %d: mean %s, standard error %s"):format(i, tostring(m), tostring(se)), 2)
    end
    if se > 0 and se < math.huge then sw, swm, k = sw + 1 / (se * se), swm + m / (se * se), k + 1 end
  end
  if k < 2 then return nil end
  local mw, q = swm / sw, 0
  for i, m in ipairs(means) do
    local se = ses[i]
    if se > 0 and se < math.huge then q = q + (m - mw) ^ 2 / (se * se) end
  end
  return { q = q, df = k - 1, p = M.chi2_upper(q, k - 1) }
end

-- The mean of xs with its two-sided confidence interval (Student t, level 0.95 by
-- default) and the range: {mean, lo, hi, min, max, n, sd, identical}. With floor (the least
-- value the quantity can take: 0 for a latency, a rate, a share), a t-interval reaching below
-- it (few repeats, much spread: the symmetric interval knows nothing of the bound) has lo
-- = floor, clipped = true and t_lo = the t-interval's own lower end, so that no interval
-- claims a negative latency: the bound is all that is known from below. identical = true
-- when every value is the same: the interval then has width 0, which is no certainty but
-- no spread to estimate from n values; its users say so instead of printing it.
function M.mean_ci(xs, level, floor)
  check_sample(xs, "mean_ci", "the sample")
  level = level or 0.95
  local mean, var = mean_var(xs)
  local sd = math.sqrt(var)
  local half = M.t_quantile(1 - (1 - level) / 2, #xs - 1) * sd / math.sqrt(#xs)
  local lo, hi = math.huge, -math.huge
  for _, x in ipairs(xs) do lo, hi = math.min(lo, x), math.max(hi, x) end
  local r = { mean = mean, lo = mean - half, hi = mean + half, min = lo, max = hi, n = #xs, sd = sd,
    identical = lo == hi }
  if floor and r.lo < floor then r.t_lo, r.lo, r.clipped = r.lo, floor, true end
  return r
end

-- The chance that the two-sided t-interval (level, 0.95 by default) of the mean of n values
-- drawn from a normal distribution whose mean lies gap (> 0) from a limit, standard deviation
-- sd, lies wholly on the mean's side of that limit: the power of the one-sided t-test at the
-- interval's edge, P(T' > t) for T' noncentral t with n - 1 degrees of freedom and
-- noncentrality gap sqrt(n) / sd, t = t_quantile(1 - (1 - level) / 2, n - 1). With u = s / sd
-- (s the values' own standard deviation, (n - 1) u^2 chi-square with n - 1 degrees of
-- freedom) it is the mean over u of P(Z > t u - gap sqrt(n) / sd), integrated by Simpson's
-- rule (4000 steps over u up to where the chi-square's upper tail is below 1e-12): |error|
-- below 1e-6 for n from 2 to 100 (tests/lua/test_capacity_repeats.lua checks it against a
-- numpy simulation). n >= 2, sd > 0.
function M.t_interval_power(gap, sd, n, level)
  check_df(n - 1, "t_interval_power")
  if not (type(gap) == "number" and gap > 0 and type(sd) == "number" and sd > 0) then
    error(("t_interval_power: gap and sd must be positive numbers, got %s and %s"):format(tostring(gap),
      tostring(sd)), 2)
  end
  local df = n - 1
  local t = M.t_quantile(1 - (1 - (level or 0.95)) / 2, df)
  local ncp = gap * math.sqrt(n) / sd
  -- the density of u: 2 (df / 2)^(df / 2) / Gamma(df / 2) u^(df - 1) exp(-df u^2 / 2)
  local lead = math.log(2) + df / 2 * math.log(df / 2) - M.lgamma(df / 2)
  local function f(u)
    local dens = u > 0 and math.exp(lead + (df - 1) * math.log(u) - df * u * u / 2) or (df == 1 and math.exp(lead))
      or 0
    local z = t * u - ncp
    local upper = z >= 0 and M.normal_two_sided(z) / 2 or 1 - M.normal_two_sided(z) / 2
    return dens * upper
  end
  local top = math.sqrt((df + 20 * math.sqrt(2 * df) + 60) / df)
  local steps = 4000
  local h = top / steps
  local sum = f(0) + f(top)
  for i = 1, steps - 1 do sum = sum + (i % 2 == 1 and 4 or 2) * f(i * h) end
  return math.min(1, math.max(0, sum * h / 3))
end

-- The quantile of the Beta(a, b) distribution at probability q (0 < q < 1): the x with
-- I_x(a, b) = q, by bisection on M.ibeta (monotone in x), to 1e-12.
function M.beta_quantile(q, a, b)
  local lo, hi = 0, 1
  for _ = 1, 200 do
    local mid = (lo + hi) / 2
    if M.ibeta(mid, a, b) < q then lo = mid else hi = mid end
    if hi - lo < 1e-12 then break end
  end
  return (lo + hi) / 2
end

-- The exact (Clopper-Pearson) two-sided interval of a binomial proportion: k successes of n
-- trials, level 0.95 by default; lo, hi as shares (0..1). lo is the Beta(k, n - k + 1)
-- quantile at (1 - level) / 2 (0 where k = 0), hi the Beta(k + 1, n - k) quantile at
-- (1 + level) / 2 (1 where k = n): each tail of the binomial at the end holds (1 - level) / 2.
-- k and n need not be whole numbers: a count read with a design effect d is k / d of n / d
-- (the effective sample, Korn and Graubard 1998), the same Beta quantiles of real parameters.
function M.clopper_pearson(k, n, level)
  if not (type(k) == "number" and type(n) == "number" and n > 0 and k >= 0 and k <= n) then
    error(("clopper_pearson: expected 0 <= k <= n, n > 0, got k = %s, n = %s"):format(tostring(k), tostring(n)), 2)
  end
  local alpha = 1 - (level or 0.95)
  local lo = k > 0 and M.beta_quantile(alpha / 2, k, n - k + 1) or 0
  local hi = k < n and M.beta_quantile(1 - alpha / 2, k + 1, n - k) or 1
  return lo, hi
end

-- The chance that the exact (Clopper-Pearson, M.clopper_pearson) interval at level of k
-- failures in n independent requests (n whole), k ~ Binomial(n, q), lies wholly beyond limit
-- on q's side: above it (its lower end > limit) where q > limit, else within it (its upper end
-- <= limit). The interval's ends rise with k, so it clears for k at or past one count (found by
-- bisection) and the chance is the binomial tail there (P(K >= k) = I_q(k, n - k + 1), P(K <=
-- k) = 1 - I_q(k + 1, n - k): M.ibeta). 0 where q == limit or no count clears it.
function M.cp_power(n, q, limit, level)
  if not (type(n) == "number" and n >= 1 and n == math.floor(n) and q > 0 and q < 1 and limit > 0 and limit < 1) then
    error(("cp_power: expected n whole >= 1, 0 < q, limit < 1, got n = %s, q = %s, limit = %s"):format(
      tostring(n), tostring(q), tostring(limit)), 2)
  end
  if q == limit then return 0 end
  local above = q > limit
  local function clears(k)
    local lo, hi = M.clopper_pearson(k, n, level)
    if above then return lo > limit end
    return hi <= limit
  end
  if above then
    -- the fewest failures that clear it (none: n itself does not)
    if not clears(n) then return 0 end
    local a, b = 0, n -- clears(b); not clears(a): lo(0) = 0
    while b - a > 1 do
      local m = (a + b) // 2
      if clears(m) then b = m else a = m end
    end
    return M.ibeta(q, b, n - b + 1)
  end
  -- the most failures that still clear it (none: not even 0)
  if not clears(0) then return 0 end
  if clears(n) then return 1 end
  local a, b = 0, n -- clears(a); not clears(b)
  while b - a > 1 do
    local m = (a + b) // 2
    if clears(m) then a = m else b = m end
  end
  return 1 - M.ibeta(q, a + 1, n - a)
end

return M
