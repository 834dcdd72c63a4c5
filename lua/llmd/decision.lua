-- llmd.decision: what a comparison may conclude, and with what evidence. Shared by the
-- two-run report (llmd.report) and any N-way comparison; nothing here renders text
-- beyond short sentences.
--
--   local d = require "llmd.decision"
--   local slo = d.parse_slo("ttft_p90_ms=200,error_rate_pct=1", "--slo")
--   local wm = d.workload_match(A, B, points_a, points_b)   -- {same, like_for_like, differences}
--   local fam = d.family{ {id = "welch:ttft_p50_ms", p = 0.02}, ... }  -- Holm over one comparison
--   local v = d.verdict{ key =, a =, b =, test =, min_effect =, like_for_like =,
--                        p_adjusted = fam.adjusted[id], family_size = fam.size }
--
-- Rules (README: "How a comparison decides"):
-- - a row is tested with Mann-Whitney U when both runs kept per-request samples of it
--   (the error rate: Fisher's exact test on both runs' counts of failed and completed
--   requests, M.count_test), with Welch's t-test on the repeat values when both runs are
--   repeats of one load point
--   (the exact Mann-Whitney test where a run's repeats are all one value: M.repeat_test),
--   and is otherwise "untested": an untested row never names a winner;
-- - the tests of one comparison are one family: their p-values are Holm-Bonferroni adjusted
--   together (M.family), so that the chance of any false winner in the table stays below
--   ALPHA whatever the dependence between the metrics;
-- - a tested difference with adjusted p >= ALPHA is "no clear difference" (and says so when
--   its p alone was below ALPHA), "not shown to differ" when no outcome of the test could
--   have been below ALPHA (too few repeats, or too few failed requests); a significant one
--   whose size is below min_effect is "negligible", and so is an error rate less than
--   MIN_ERROR_PP percentage points apart;
-- - one scale for every relative effect shown (effect_pct, the rows' effects and their
--   intervals, the Summary's): B against A, 100 (b / a - 1), as the tables' Change column
--   (metrics.change_pct), so -100 % at the least and unbounded above (B = 3 A: +200 %, B =
--   A / 3: -66.7 %); N/A where A's figure is 0. An effect pooled over load points or strata
--   is the weighted mean of their log ratios taken back to that scale, and its interval the
--   log ratio's, 100 (exp(L -+ q se) - 1) (ratio_interval); the error rate's the ratio of
--   its two weighted rates', by MOVER on the log scale (M.count_effect);
-- - the practical threshold t is judged on how far apart the runs are whichever is A
--   (M.magnitude): |log(b / a)| >= log(1 + t / 100), a rise of t % or a fall of 100 t /
--   (100 + t) % (2 %: +2.0 % or -1.96 %), so that swapping A and B flips every effect's sign
--   and never changes which run wins or whether a difference is "negligible"; a sentence
--   that compares a fall with t says where a fall reaches it (M.threshold_text), and its
--   figures carry the decimals that keep them apart from it (never "-2.0 %, below the 2 %
--   threshold");
-- - rows pooled over load ladders that differ are "not comparable" (not like for like).
local metrics = require "llmd.metrics"
local stats = require "llmd.stats"
local stattest = require "llmd.stattest"
local lp = require "llmd.loadpoints"
-- (a signed figure as every text prints it: never "-0.0", template.helpers.signed)
local signed = require("llmd.template").helpers.signed

local M = {}

M.ALPHA = 0.05
M.MIN_EFFECT = 2 -- percent
-- The error rate's practical threshold besides MIN_EFFECT (relative, as every row): an
-- absolute difference of at least 0.1 percentage points, one request in a thousand. Relative
-- to rates near 0 every gap is large (0.01 % against 0.03 % is 100 %), so a significant
-- gap smaller than this, which only a very large run can show, is "negligible".
M.MIN_ERROR_PP = 0.1
M.VERDICTS = { "B better", "A better", "no clear difference", "not shown to differ", "negligible", "untested",
  "not comparable" }

-- The per-request samples behind a metric (run model set.samples).
M.SAMPLES = {
  latency_p50_ms = "latency", latency_p90_ms = "latency", latency_p99_ms = "latency",
  ttft_mean_ms = "ttft", ttft_p50_ms = "ttft", ttft_p90_ms = "ttft", ttft_p99_ms = "ttft",
  tpot_mean_ms = "tpot", tpot_p50_ms = "tpot", tpot_p90_ms = "tpot", tpot_p99_ms = "tpot",
  itl_mean_ms = "itl", itl_p50_ms = "itl", itl_p90_ms = "itl", itl_p99_ms = "itl",
  -- NTPOT, (end - start) / output tokens of each request: one value a request, as TPOT, with
  -- its design effect in send order (llmd.runmodel sample_design_effects), so its rows get
  -- TPOT's tests and effect intervals (fixi41; before, "no repeats from both runs")
  ntpot_mean_ms = "ntpot",
}
-- Catalogue keys added later (p95 rows, ...) with these prefixes find their samples too.
local SAMPLE_PREFIX = { latency = "latency", ttft = "ttft", tpot = "tpot", itl = "itl", ntpot = "ntpot" }
function M.sample_kind(key)
  if M.SAMPLES[key] then return M.SAMPLES[key] end
  local prefix = key:match("^(%a+)_p%d+_ms$") or key:match("^(%a+)_mean_ms$")
  return prefix and SAMPLE_PREFIX[prefix] or nil
end

-- C(n, k), in floating point (exact for the repeat counts tests see)
local function choose(n, k)
  local c = 1
  for i = 1, k do c = c * (n - k + i) / i end
  return c
end

-- SLOs -------------------------------------------------------------------------------------

local function slo_key_ok(key)
  if key == "error_rate_pct" then return true end
  if not metrics.has(key) then return false end
  local m = metrics.get(key)
  return m.unit == "ms" and m.better == "lower"
end

-- The hint for an SLO key k that is none: "; did you mean ttft_p90_ms?" for the key k begins or
-- the nearest by edit distance (llmd.metrics.closest), "" when none is close. Where keys of
-- several metrics are that near (npot_p90_ms: tpot_p90_ms and ntpot_p90_ms), every one is
-- named with its label and the hint says they differ: one of them alone would offer a
-- different metric as if it were the one meant (NTPOT is about twice TPOT on a busy server,
-- so a limit set on the wrong one is looser, fixf44).
local function slo_hint(k)
  local near = metrics.closest(k, function(m) return slo_key_ok(m.key) end)
  if not near then return "" end
  if near:sub(1, #k) == k then return ("; did you mean %s?"):format(near) end
  local distance = require("llmd.opts").distance
  local d, ties, seen = distance(k, near), {}, {}
  for _, m in ipairs(metrics.list) do
    local fam = m.key:match("^(%a+)_")
    if slo_key_ok(m.key) and distance(k, m.key) == d and not seen[fam] then
      seen[fam] = true
      ties[#ties + 1] = ("%s (%s)"):format(m.key, m.label)
    end
  end
  if #ties < 2 then return ("; did you mean %s?"):format(near) end
  return ("; did you mean %s? (different metrics)"):format(table.concat(ties, " or "))
end

-- "TTFT p95 ≤ 200.0 ms": the limit in the metric's own format where that format shows it
-- exactly, else as given ("≤ 0.25 ms", never "≤ 0.2 ms": a limit rounded reads as a
-- different SLO, and a value between the two would seem to pass or fail wrongly)
local function slo_text(key, max)
  local m = metrics.get(key)
  local shown = metrics.format(key, max, nil, { bare = true })
  if tonumber((shown:gsub(",", ""))) ~= max then
    local exact = metrics.group_thousands(("%.15g"):format(max))
    shown = metrics.format(key, max):gsub("^[%d,.%-]+", function() return exact end)
  else
    shown = metrics.format(key, max)
  end
  return ("%s ≤ %s"):format(m.label, shown)
end

-- The SLO list from "key=max,key=max" (in the order given: every text lists them so, newuser44
-- read "Error rate ... and TPOT p90 ... and TTFT p90" of --slo ttft_p90_ms=..,tpot_p90_ms=..,
-- error_rate_pct=..), a list {{key =, max =}, ...} (comparison.json's `slo`, in its order),
-- or a mapping {key = max} (an info file's or a plan's `slo:`, which has no order: sorted by
-- key). where names the source in errors ("--slo", "a.info.yaml: slo").
function M.parse_slo(spec, where)
  where = where or "slo"
  local pairs_ = {}
  if type(spec) == "string" then
    for item in spec:gmatch("[^,]+") do
      -- (a value with spaces in it, "500 ms", is read whole: the unit check below says what
      -- to drop, not "expected key=value", tidy55)
      local k, v = item:match("^%s*([%w_%.]+)%s*=%s*(%S.-)%s*$")
      if not k then
        error(("%s: '%s': expected key=value, e.g. ttft_p90_ms=200"):format(where, item), 0)
      end
      pairs_[#pairs_ + 1] = { k, v }
    end
    if #pairs_ == 0 then -- `--slo ""` is a mistake, not "no SLO"
      error(("%s: '%s': expected key=value pairs, e.g. ttft_p90_ms=200,error_rate_pct=1"):format(where, spec), 0)
    end
  elseif type(spec) == "table" and spec[1] ~= nil then
    for i, e in ipairs(spec) do
      if type(e) ~= "table" or e.key == nil then
        error(("%s: entry %d: expected {key =, max =}"):format(where, i), 0)
      end
      pairs_[#pairs_ + 1] = { tostring(e.key), e.max }
    end
  elseif type(spec) == "table" then
    for k, v in pairs(spec) do pairs_[#pairs_ + 1] = { tostring(k), v } end
    table.sort(pairs_, function(x, y) return x[1] < y[1] end)
  else
    error(("%s: expected key=value pairs, e.g. ttft_p90_ms=200,error_rate_pct=1"):format(where), 0)
  end
  local out, seen = {}, {}
  for _, kv in ipairs(pairs_) do
    local k, v = metrics.canonical(kv[1]), tonumber(kv[2])
    if not slo_key_ok(k) then
      error(("%s: '%s' is not a latency or error-rate metric%s (e.g. ttft_p90_ms, tpot_p90_ms, latency_p99_ms "
        .. "or e2e_p99_ms, itl_p90_ms, ntpot_p90_ms, error_rate_pct; see the metric catalogue)")
        :format(where, k, slo_hint(k)), 0)
    end
    if not v or v ~= v or v < 0 or v == math.huge then
      -- a number with a unit ("500ms", "5%", "0.5s"): the limits are in the key's unit, which
      -- the key names; the fix said (newuser54 F5)
      local num, unit = tostring(kv[2]):match("^%s*(%d*%.?%d+)%s*(%a+)%s*$")
      if not num then num, unit = tostring(kv[2]):match("^%s*(%d*%.?%d+)%s*(%%)%s*$") end
      local ku = metrics.get(k).unit
      if num and (ku == "ms" or ku == "%") then
        error(("%s: %s: expected a plain number, got '%s': drop the unit (the limit is in %s, as the key says)%s")
          :format(where, k, tostring(kv[2]), ku, unit:lower() == ku and (": %s=%s"):format(k, num)
            or ""), 0)
      end
      error(("%s: %s: expected a limit >= 0, got '%s'"):format(where, k, tostring(kv[2])), 0)
    end
    if metrics.get(k).unit == "%" and v > 100 then
      error(("%s: %s=%s: a percentage, expected a limit in [0, 100]"):format(where, k, tostring(kv[2])), 0)
    end
    if seen[k] then error(("%s: %s given twice"):format(where, k), 0) end
    seen[k] = true
    out[#out + 1] = { key = k, max = v, text = slo_text(k, v) }
  end
  -- (a mapping's keys are sorted before canonical names: e2e_p90_ms sorts as latency_p90_ms)
  if type(spec) == "table" and spec[1] == nil then table.sort(out, function(x, y) return x.key < y.key end) end
  return out
end

-- SLO limits most likely in the wrong unit, known before anything is measured: a latency
-- limit in ms below M.SLO_MS_FLOOR (1 ms), which no LLM server's first token, next token or
-- answer meets over the network, is a limit in seconds read as ms (plan.yaml's ttft_p90_ms:
-- 0.8 for 800 ms: newuser55 #4, said only once both runs had deployed and benchmarked, by the
-- report's check against the measured figures). slo: parse_slo's list; where: how it was given
-- ("--slo", "plan.yaml: slo"). Said, not refused: the SLO changes nothing that is deployed or
-- measured, and analyze.lua WORKSPACE --slo re-reads the runs with another. Texts, in SLO order.
M.SLO_MS_FLOOR = 1
function M.slo_unit_doubts(slo, where)
  local out = {}
  for _, s in ipairs(slo or {}) do
    local m = metrics.get(s.key)
    if m and m.unit == "ms" and type(s.max) == "number" and s.max < M.SLO_MS_FLOOR then
      out[#out + 1] = ("%s: %s=%s: a %s limit below %g ms, which no LLM server meets over the network: is it in "
        .. "seconds? The limit is read in ms (%s=%s for %s s), so no load could meet it; said before anything is "
        .. "deployed"):format(where, s.key, ("%g"):format(s.max), m.label, M.SLO_MS_FLOOR, s.key,
        ("%g"):format(s.max * 1000), ("%g"):format(s.max))
    end
  end
  return out
end

-- Do two SLO lists hold the same limits, whatever their order (--slo's against an info
-- file's sorted mapping)?
function M.same_slo(x, y)
  local function set(l)
    local t = {}
    for _, s in ipairs(l or {}) do t[#t + 1] = s.key .. "=" .. ("%.17g"):format(s.max) end
    table.sort(t)
    return table.concat(t, ",")
  end
  return set(x) == set(y)
end

-- The SLOs as one phrase: "TTFT p90 ≤ 200.0 ms and Error rate ≤ 1.00 %".
function M.slo_phrase(slo)
  local parts = {}
  for _, s in ipairs(slo) do parts[#parts + 1] = s.text end
  return table.concat(parts, " and ")
end

-- The limits a capacity is read within, as one phrase: the SLOs, and the default failure
-- limit where none of them is an error-rate SLO (llmd.loadpoints.capacity_slo): "TTFT p90 ≤
-- 200.0 ms and Error rate ≤ 5 % by default". What every output says beside a capacity.
function M.capacity_phrase(slo)
  return M.slo_phrase(lp.capacity_slo(slo) or {})
end

-- The sentence the SLO paragraph adds where the default failure limit applies (slo: the SLOs
-- given), else nil: both headline figures count the same loads as sustained.
function M.default_limit_note(slo)
  local c = lp.capacity_slo(slo)
  if not c or c == slo then return nil end
  return ("No error-rate SLO was given: capacity at SLO counts a load only where at most %g %% of its requests "
    .. "failed, the default failure limit that max sustained throughput applies too (--slo error_rate_pct=N "
    .. "sets another for both)"):format(lp.FAILURES_PCT)
end

-- The words for an SLO list in a sentence, singular when one SLO was given ("met the SLO
-- at 40.00 req/s, already failed it at 30.00") and plural otherwise ("met the SLOs ...,
-- failed them"): {the = "the SLO" | "the SLOs", it = "it" | "them", holds = "holds" |
-- "hold"}.
function M.slo_words(slo)
  if slo and #slo == 1 then return { the = "the SLO", it = "it", holds = "holds" } end
  return { the = "the SLOs", it = "them", holds = "hold" }
end

-- ", at the same load (61.79 req/s offered)" where two capacities' brackets only touch
-- (M.capacity_evidence's same_load: one run passed where the other failed), else "".
function M.same_load_text(ev)
  local s = ev.same_load
  if not s then return "" end
  return (", at the same load (%s)"):format(s.load_type == "concurrency" and ("concurrency %g"):format(s.offered)
    or ("%g req/s offered"):format(s.offered))
end

-- The higher and lower runs' labels of ev (margin_higher) and what put the one above the
-- other, in words: "y sustained 3.52 req/s and x never achieved more than 3.50 req/s at any
-- load" (beyond the lower one's ceiling), "y met TTFT mean at 8.33 req/s and x already failed
-- it at 8.32 req/s, at the same load (8 req/s offered)", nil where ev has neither. o: as
-- M.below_threshold_reason's.
local function order_how(ev, o)
  local rate = o.rate
  local hi, lo = ev.margin_higher == "b" and o.b or o.a, ev.margin_higher == "b" and o.a or o.b
  if ev.beyond_ceiling then
    return hi, lo, ("%s sustained %s and %s never achieved more than %s at any load"):format(hi,
      rate(ev.sustained_rps), lo, rate(ev.ceiling_rps))
  elseif ev.passed_rps and ev.failed_rps then
    local w = M.slo_words(o.slo)
    return hi, lo, ("%s met %s at %s and %s already failed %s at %s%s"):format(hi, w.the, rate(ev.passed_rps), lo,
      w.it, rate(ev.failed_rps), M.same_load_text(ev))
  end
  return hi, lo, nil
end

-- Why two capacities the measured loads order are about the same (M.capacity_evidence's
-- below_threshold: an order whose least and largest gaps are both within the practical
-- threshold), the one wording of compare.lua and treatments.lua: "the measured loads put
-- rateB's capacity above concA's (rateB sustained 3.52 req/s and concA never achieved more than
-- 3.50 req/s at any load), but only 3.52 req/s against 3.50 req/s (+0.6 % of their mean), and
-- at most +1.4 %, both within the practical threshold of 2.0 %" (", and at most ..." where the
-- largest gap, margin_max_pct, is known: the claim rests on both ends). o: {a =, b =
-- (the runs' labels, as ev's a and b), slo = the SLO list, min_effect = the threshold in %,
-- rate = function(req/s) -> text (the tool's own figures), pct = function(%) -> "+0.6 %"}.
function M.below_threshold_reason(ev, o)
  local rate = o.rate
  local hi, lo, how = order_how(ev, o)
  local thr = M.thr_num(o.min_effect)
  -- (a lower run that failed at its lowest load never gets here: its span reaches down to 0,
  -- so the largest gap is beyond the threshold: M.capacity_evidence's least_below_threshold,
  -- which names no winner either (M.least_below_reason); what measuring below that load
  -- would tell is said beside it there)
  return ("the measured loads put %s's capacity above %s's (%s), but only %s against %s (%s)%s "
    .. "within the practical threshold of %s %%"):format(hi, lo, how, rate(ev.margin_hi), rate(ev.margin_lo),
    o.pct(ev.margin_pct), M.largest_within_text(ev.margin_max_pct, o.min_effect), thr)
end

-- The largest gap of an order about the same (below_threshold: both ends within the
-- threshold), said after its least gap and before "within the practical threshold of ...":
-- ", and at most +1.4 %, both" (with the decimals that keep it apart from the threshold,
-- M.pct_near: never "at most +2.0 %, both within ... 2 %" of 1.98 %), "," where it is not
-- known. max_pct: of the two figures' mean; min_effect: the threshold in % (nil: MIN_EFFECT).
function M.largest_within_text(max_pct, min_effect)
  if not max_pct then return "," end
  return (", and at most %s, both"):format(M.pct_near(max_pct, min_effect or M.MIN_EFFECT))
end

-- Why two capacities whose order is known name no winner (M.capacity_evidence's
-- least_below_threshold: the least gap below the practical threshold, the largest beyond it
-- or open), the one wording of compare.lua and treatments.lua: "the measured loads put y at
-- least as high as x (y met TTFT mean at 8.33 req/s and x already failed it at 8.32 req/s, at
-- the same load (8 req/s offered)), by at least +0.1 % of their mean, below the practical
-- threshold of 2.0 %, and with no upper end: the gap may be negligible" ("... and up to +39.3
-- %: the gap ..." where the largest has an end; ", their ranges meet at ..., so the least gap
-- is 0, ... and the largest is +54.5 % of their mean: ..." where they meet). o: as
-- M.below_threshold_reason's; o.repeats: the order is the repeats' ranges'.
function M.least_below_reason(ev, o)
  local rate = o.rate
  local hi, lo, how = order_how(ev, o)
  -- (", by at least ..."; spans that meet: ", their ranges meet ...", never a second colon
  -- after the parenthesis, "(...): their ranges meet ...: the gap may be negligible")
  local least = M.least_gap_text(ev, o.pct, o.min_effect, rate):gsub("^ by", ", by"):gsub("^: ", ", ")
  return ("%s put %s at least as high as %s%s%s: the gap may be negligible"):format(
    o.repeats and "the repeats' ranges" or "the measured loads", hi, lo, how and (" (" .. how .. ")") or "", least)
end

-- What a least gap below the practical threshold, the largest beyond it or open, says of
-- the two (M.capacity_evidence's and M.sustained_order's least_below_threshold): the one at
-- least as high, not shown higher by the threshold, no winner; never "no clear difference",
-- which reads as sameness beside a gap that may be +200 % or have no upper end (audit51b
-- D3). A gap the evidence bounds within the threshold both ways is "about the same"
-- (below_threshold), the one name of that meaning.
-- One wording for compare.lua's rows and treatments.lua's places.
M.AT_LEAST_NO_WINNER = "not shown to be higher by the practical threshold, no winner"

-- The gap a least_below_threshold evidence allows, in a few words for an opening sentence:
-- "by a gap from +0.1 %, under the practical threshold of 2.0 %, up to +48.9 %"
-- ("from 0" where the spans meet, "from above 0" where the least gap rounds to nothing;
-- ", with no upper end" where the largest has none). "" for any other evidence. pct: the
-- formatter of one percentage; min_effect: the threshold in %.
function M.at_least_gap_range(ev, pct, min_effect)
  if not (ev and ev.least_below_threshold and ev.margin_pct) then return "" end
  local least = "0"
  if ev.margin_pct > 0 then
    least = pct(ev.margin_pct)
    -- (never "+2.0 %, under the practical threshold of 2.0 %" of 1.96 %: M.least_gap_text)
    if least == pct(min_effect or M.MIN_EFFECT) then least = M.pct_near(ev.margin_pct, min_effect or M.MIN_EFFECT) end
    if not least:find("[1-9]") then least = "above 0" end
  end
  return ("by a gap from %s, under the practical threshold of %s %%, %s"):format(least,
    M.thr_num(min_effect or M.MIN_EFFECT),
    ev.margin_max_pct and ("up to " .. pct(ev.margin_max_pct)) or "with no upper end")
end

-- The per-request thresholds of an SLO list, for goodput (in seconds): the tightest limit
-- of each of TTFT, TPOT and end-to-end latency, as DistServe and vLLM apply them to each
-- request. nil when the SLOs name none of them.
function M.request_thresholds(slo)
  local th, any = {}, false
  for _, s in ipairs(slo or {}) do
    local kind = s.key:match("^(%a+)_")
    local f = (kind == "ttft" and "ttft") or (kind == "tpot" and "tpot") or (kind == "latency" and "e2e") or nil
    if f then
      local v = s.max / 1000
      if not th[f] or v < th[f] then th[f] = v end
      any = true
    end
  end
  return any and th or nil
end

-- Workload match ------------------------------------------------------------------------------

local function fmt_load(p)
  if not p.offered then return "unknown" end
  return p.load_type == "concurrency" and ("c=%g"):format(p.offered) or ("%g/s"):format(p.offered)
end

local function list_of(points, f)
  local parts = {}
  for _, p in ipairs(points) do parts[#parts + 1] = f(p) end
  return table.concat(parts, ", ")
end

local function mean_len(set, total_key)
  local n, t = set.values.requests_ok, set.values[total_key]
  if n and t and n > 0 then return t / n end
end

-- How far token lengths per request may differ before two runs are different workloads
-- (relative, on the mean and on p50 and p90 where known).
M.TOKEN_TOLERANCE = 0.05

-- The differences between the requests two runs sent (oa, ob: their whole-run metric sets):
-- input and output tokens per request, mean (total over completed requests) and p50/p90
-- where the run model has them, beyond TOKEN_TOLERANCE and beyond their sampling noise.
-- {{field = "input_tokens" | "output_tokens", a = mean, b = mean, text = "input tokens per
-- request: mean 9999.0 vs 204.0"}, ...}, empty when they match or are unknown. The workload
-- match lists them, and capacities and latencies of runs whose requests differ are not
-- compared.
-- Noise (audit51 F1: lengths drawn at random, lognormal sigma 0.3, 300 requests a load, read
-- "two workloads" in 9 of 30 A/A pairs and "the workloads differ (output tokens p90 93 vs
-- 98)"): a statistic differs only where it is beyond the tolerance by more than its sampling
-- noise, |x - y| - TOKEN_TOLERANCE max(x, y) > z sqrt(se_a^2 + se_b^2), a test that the two
-- differ by more than the tolerance (not merely that they differ and the figures are 5 %
-- apart: that reads any true difference near 5 %, 4 % say, as two workloads about half the
-- time, and one workload at random as two in about 1 in 10 A/A pairs of 300 requests a load,
-- fixf51's ensemble); a smaller difference the noise shows is the rows' matter
-- (M.token_gap). A mean's se is sd / sqrt(n) (token_lengths' sd,
-- ddof 1, and n), a percentile's its 95 % order-statistic interval's half on the side facing
-- the other over 1.96 (llmd.runmodel's p50_lo, p50_hi, ...); z Bonferroni's for the family
-- of statistics compared (m, here 6: two kinds by mean, p50 and p90; check_request_shapes'
-- more), two-sided 5 % in all (M.family_z). Lengths the same in every request (sd 0, an
-- interval of one value) differ wherever they do (constant 64 against 80 tokens), and a
-- statistic whose noise is unknown (no per-request lengths: a summary file, a run model
-- saved before) is read on the tolerance alone, as before.
M.SHAPE_ALPHA = 0.05
function M.family_z(m)
  local target = M.SHAPE_ALPHA / math.max(1, m or 1)
  local lo, hi = 0, 40
  for _ = 1, 200 do
    local mid = (lo + hi) / 2
    if stattest.normal_two_sided(mid) > target then lo = mid else hi = mid end
  end
  return (lo + hi) / 2
end
-- (a percentile's standard error from its interval: the half facing y, over 1.96; nil unknown)
local function pct_se(l, q, y)
  local x, lo, hi = l[q], l[q .. "_lo"], l[q .. "_hi"]
  if type(x) ~= "number" or type(lo) ~= "number" or type(hi) ~= "number" then return nil end
  return ((y or x) >= x and hi - x or x - lo) / 1.959964
end
local function shape_beyond(x, y, se, z)
  if lp.close(x, y, M.TOKEN_TOLERANCE) then return false end
  return se == nil or math.abs(x - y) - M.TOKEN_TOLERANCE * math.max(math.abs(x), math.abs(y)) > z * se
end
function M.token_differences(oa, ob, m)
  local out = {}
  local z = M.family_z(m or 6)
  for _, t in ipairs { { "input", "input_tokens_total" }, { "output", "output_tokens_total" } } do
    local ma, mb = mean_len(oa, t[2]), mean_len(ob, t[2])
    local parts = {}
    local la_, lb_ = (oa.token_lengths or {})[t[1]], (ob.token_lengths or {})[t[1]]
    if ma and mb then
      local se
      if la_ and lb_ and type(la_.sd) == "number" and type(lb_.sd) == "number" and (la_.n or 0) > 1
        and (lb_.n or 0) > 1 then
        se = math.sqrt(la_.sd ^ 2 / la_.n + lb_.sd ^ 2 / lb_.n)
      end
      if shape_beyond(ma, mb, se, z) then parts[#parts + 1] = ("mean %.1f vs %.1f"):format(ma, mb) end
    end
    if la_ and lb_ then
      for _, q in ipairs { "p50", "p90" } do
        local x, y = la_[q], lb_[q]
        if x and y then
          local sa, sb = pct_se(la_, q, y), pct_se(lb_, q, x)
          if shape_beyond(x, y, sa and sb and math.sqrt(sa ^ 2 + sb ^ 2) or nil, z) then
            parts[#parts + 1] = ("%s %g vs %g"):format(q, x, y)
          end
        end
      end
    end
    if #parts > 0 then
      out[#out + 1] = { field = t[1] .. "_tokens", a = ma, b = mb,
        text = ("%s tokens per request: %s"):format(t[1], table.concat(parts, ", ")) }
    end
  end
  return out
end

-- The requests' token lengths of two runs (oa, ob: their whole-run metric sets) where they
-- differ by more than their sampling noise, even within TOKEN_TOLERANCE (audit51 F2: B asked
-- 4.1 % more output tokens, inside the 5 % workload tolerance, and End-to-end latency said "A
-- better" p < 1e-9, +3.3 %, with TPOT no different: the gap was the tokens, not the server).
-- {input = g, output = g} (each nil where the runs' means are unknown or the same within noise),
-- g = {a = A's mean per completed request, b = B's, ratio = b / a, z = the difference over its
-- standard error (sqrt(sa^2 / na + sb^2 / nb), the requests' own sd, ddof 1: token_lengths),
-- nil where a side's spread is unknown (a summary file): a difference then counts as real,
-- the side that holds a winner back}. Beyond the noise: |z| > 1.96 (two-sided 5 %); lengths
-- that are the same in every request (sd 0) differ for certain wherever their means do.
M.TOKEN_GAP_Z = 1.959964
function M.token_gap(oa, ob)
  local out = {}
  for _, t in ipairs { { "input", "input_tokens_total" }, { "output", "output_tokens_total" } } do
    local ma, mb = mean_len(oa, t[2]), mean_len(ob, t[2])
    if ma and mb and ma > 0 and mb > 0 and ma ~= mb then
      local la, lb = (oa.token_lengths or {})[t[1]], (ob.token_lengths or {})[t[1]]
      local se
      if la and lb and type(la.sd) == "number" and type(lb.sd) == "number" and (la.n or 0) > 1 and (lb.n or 0) > 1 then
        se = math.sqrt(la.sd ^ 2 / la.n + lb.sd ^ 2 / lb.n)
      end
      local z = se and (se > 0 and (mb - ma) / se or math.huge) or nil
      if not z or math.abs(z) > M.TOKEN_GAP_Z then out[t[1]] = { a = ma, b = mb, ratio = mb / ma, z = z } end
    end
  end
  return out
end

-- The rows whose figure the requests' token lengths move (M.token_gap), and how: each token
-- kind that moves it, the figure at most in proportion to that kind's length (E2E latency is
-- prefill, in proportion to the input at most, plus decode, to the output; TTFT the prefill; a
-- request rate at the server's limit falls as the requests grow: inversely; output tok/s at one
-- request rate grows with the output). Per-token figures (TPOT, ITL, NTPOT) are not in it:
-- they are what stays comparable when the lengths differ.
-- capacity_tok_s: a capacity in output tok/s (compare.lua's tok/s row; fixa53): a run whose
-- inputs are shorter has less prefill a request, so at the server's limit more requests and
-- their tokens (inversely, at most); one whose outputs are longer has less prefill an output
-- token (in proportion, at most; on a decode-bound server none: its tok/s is the server's);
-- shorter outputs never raise it.
local TOKEN_SCALED = {
  ttft = { input = 1 }, latency = { input = 1, output = 1 },
  throughput_req_s = { input = -1, output = -1 }, throughput_tok_s = { output = 1 },
  throughput_total_tok_s = { input = 1, output = 1 }, capacity_tok_s = { input = -1, output = 1 },
}
local function token_scaled(key)
  if TOKEN_SCALED[key] then return TOKEN_SCALED[key] end
  local prefix = tostring(key):match("^(%a+)_p%d+_ms$") or tostring(key):match("^(%a+)_mean_ms$")
  return prefix and TOKEN_SCALED[prefix] or nil
end
M.token_scaled = token_scaled

-- The range of ratios (B / A) by which the token lengths' difference alone (gap: M.token_gap)
-- may move the figure of key, {lo, hi} with lo <= 1 <= hi, and the differences it rests on
-- (texts: "output tokens per request 66.6 vs 64.0 (+4.1 %)"); nil where none moves it. Each
-- kind moves it at most in proportion (TOKEN_SCALED); several kinds at most by the farthest.
function M.token_range(key, gap)
  local sc = token_scaled(key)
  if not (sc and gap) then return nil end
  local lo, hi, texts = 1, 1, {}
  for _, kind in ipairs { "input", "output" } do
    local g, e = gap[kind], sc[kind]
    if g and e then
      local r = g.ratio ^ e
      lo, hi = math.min(lo, r), math.max(hi, r)
      texts[#texts + 1] = ("%s tokens per request %.1f vs %.1f (%+.1f %%)"):format(kind, g.a, g.b, (g.ratio - 1) * 100)
    end
  end
  if #texts == 0 then return nil end
  -- (unknown: a difference counted with its spread unknown, M.token_gap: said so)
  local unknown = false
  for _, kind in ipairs { "input", "output" } do
    if gap[kind] and sc[kind] and gap[kind].z == nil then unknown = true end
  end
  return { lo = lo, hi = hi, texts = texts, unknown = unknown }
end

-- How far the requests' token lengths alone (gap: M.token_gap) can favour run hi ("a" | "b")
-- in the figure of key (M.token_range, each kind in proportion at most): a factor f >= 1 by
-- which hi's figure may be better than the other's for its tokens alone (a latency lower, a
-- request rate higher), 1 where they move it not or the other way; and the range (nil: none).
function M.token_favour(key, gap, hi)
  local tr = M.token_range(key, gap)
  if not tr then return 1, nil end
  local higher = key:match("^throughput_") ~= nil or key == "capacity_tok_s"
  local f
  if higher then f = hi == "b" and tr.hi or 1 / tr.lo else f = hi == "b" and 1 / tr.lo or tr.hi end
  return math.max(1, f), tr
end

-- The one token rule of an order read off loads (capacity at the SLOs and max sustained
-- throughput, in compare.lua and treatments.lua; fixb52): runs whose requests' token lengths
-- differ beyond their sampling noise (gap: M.token_gap), even inside the workload match's
-- tolerance, put one run above the other by its tokens alone where a rate in req/s is the
-- figure (a run whose requests are shorter sustains more of them: throughput_req_s's range)
-- and where an SLO metric grows with the tokens (E2E latency with the output and the input,
-- TTFT with the input: a run whose requests are shorter meets such a limit at more load; a
-- per-token SLO, TPOT, ITL, NTPOT, is not moved). The order holds only where it stays beyond
-- the practical threshold with the higher run held to the other's tokens, as far as they can
-- explain: its SLO limits on such metrics divided by the factor its tokens favour it by
-- (M.token_favour: its latencies may be that much lower for its tokens), its capacity read
-- again at those limits (recompute), and the least gap's higher figure divided by the
-- request rate's factor. A latency SLO's effect on a capacity is not in proportion (near the
-- limit a few per cent of latency can move the capacity past several loads), so it is read
-- again at the moved limit, never scaled. Returns nil where the order holds (or nothing
-- orders), else {higher = "a" | "b", texts = the differences ("output tokens per request
-- 50.0 vs 48.0 (-4.0 %)"), unit_pct = what the request rate may take ((f - 1) x 100, 0 where
-- not moved), limits = {{key, max, moved}} (the SLO limits read again), unknown = a gap whose
-- spread was unknown}.
-- Inputs: hi (the run the order names), hi_fig and lo_fig (the figures its least gap is read
-- on, in req/s: the higher run's lower end and the lower run's upper end), min_effect (%),
-- slo (the SLO list, the default failure limit not moved), reorder(slo2) -> hi2, hi_fig2,
-- lo_fig2 (the order and its figures again with hi's SLO at slo2; nil where no SLO moved).
-- unit_key: the figures' unit, "throughput_req_s" (default) or "capacity_tok_s" (a capacity in
-- output tok/s, compare.lua's tok/s row: fixa53); te.unit = "tok/s" then.
-- Per-token SLOs (TPOT, ITL, NTPOT) keep their limits (fixa53): on a request-rate ladder a
-- run of shorter outputs is a lighter load and meets such a limit at more req/s, but a
-- capacity is the load where the heavier run's curve crosses the limit, read back: B's F_A(r L)
-- meets it at L = L_A / r exactly, which the request rate's division by 1 / r already holds
-- to (tests/sim/fixa53_tokens.py: the same server's capacities at TPOT p90 <= 170 ms, 11.44
-- and 10.98 req/s, held 10.98 against 10.98); moving the limit as well would count the lighter
-- load twice and hide a faster server.
-- Also in te: input (the requests' input lengths differ beyond their noise: no figure here is
-- free of them), slo_given (an SLO other than the default failure limit was read), for
-- M.token_order_advice.
function M.token_order_explained(o)
  local gap, hi = o.gap, o.hi
  if not (gap and next(gap) and (hi == "a" or hi == "b")) then return nil end
  local unit_key = o.unit_key or "throughput_req_s"
  local fu, ur = M.token_favour(unit_key, gap, hi)
  local texts, seen, unknown = {}, {}, false
  local function add(tr)
    for _, x in ipairs(tr and tr.texts or {}) do
      if not seen[x] then seen[x], texts[#texts + 1] = true, x end
    end
    if tr and tr.unknown then unknown = true end
  end
  if fu > 1 then add(ur) end
  local slo2, limits, moved = {}, {}, false
  for i, s in ipairs(o.slo or {}) do
    local f, tr = 1, nil
    if type(s.max) == "number" and not s.default then f, tr = M.token_favour(s.key, gap, hi) end
    slo2[i] = s
    if f > 1 then
      local c = {}
      for k, v in pairs(s) do c[k] = v end
      c.max = s.max / f
      slo2[i], moved = c, true
      limits[#limits + 1] = { key = s.key, max = s.max, moved = c.max }
      add(tr)
    end
  end
  if fu <= 1 and not moved then return nil end
  local hi2, hf, lf = hi, o.hi_fig, o.lo_fig
  if moved and o.reorder then hi2, hf, lf = o.reorder(slo2) end
  local thr = o.min_effect or M.MIN_EFFECT
  local holds = hi2 == hi and type(hf) == "number" and type(lf) == "number"
  if holds then
    local x = hf / fu
    local m = x > lf and M.order_gap_pct(lf, x) or nil
    holds = m ~= nil and m >= thr
  end
  if holds then return nil end
  local slo_given = false
  for _, s in ipairs(o.slo or {}) do
    if type(s.max) == "number" and not s.default then slo_given = true end
  end
  return { higher = hi, texts = texts, unit_pct = (fu - 1) * 100, limits = #limits > 0 and limits or nil,
    unknown = unknown or nil, unit = unit_key == "capacity_tok_s" and "tok/s" or nil,
    input = gap.input ~= nil or nil, slo_given = slo_given or nil }
end

-- Why an order of two rates names no winner where the runs' token lengths can explain it
-- (te: M.token_order_explained's), in words after "the measured loads put B above A": "but
-- the requests differ (output tokens per request 50.0 vs 48.0 (-4.0 %), beyond their sampling
-- noise though within the workload match's 5 %), which alone can explain it: held to A's
-- tokens (its request rate up to 4.2 % lower for them, End-to-end latency p90 read against
-- 7,680.0 ms for 8,000.0 ms), B is not above A by the practical threshold of 2.0 %", then
-- what would compare them (M.token_order_advice, with opts). hi_label, lo_label: the labels
-- of the higher run and the other; fmt(key, v): a limit's figure.
function M.token_order_text(te, hi_label, lo_label, min_effect, fmt, opts)
  local held = {}
  if te.unit_pct and te.unit_pct > 0 then
    held[#held + 1] = ("its %s up to %.1f %% lower for them"):format(te.unit == "tok/s" and "output tok/s"
      or "request rate", te.unit_pct)
  end
  for _, l in ipairs(te.limits or {}) do
    held[#held + 1] = ("%s read against %s for %s"):format(metrics.has(l.key) and metrics.get(l.key).label or l.key,
      fmt and fmt(l.key, l.moved) or ("%g"):format(l.moved), fmt and fmt(l.key, l.max) or ("%g"):format(l.max))
  end
  return ("but the requests differ (%s, %s though within the workload match's %g %%), which alone can explain it: "
    .. "held to %s's tokens (%s), %s is not above %s by the practical threshold of %s %%%s"):format(
    table.concat(te.texts, "; "),
    te.unknown and "their spread unknown (no per-request lengths), so counted" or "beyond their sampling noise",
    M.TOKEN_TOLERANCE * 100, lo_label, table.concat(held, ", "), hi_label, lo_label,
    M.thr_num(min_effect or M.MIN_EFFECT), M.token_order_advice(te, opts))
end

-- What would compare two runs whose order of rates their token lengths can explain (te:
-- M.token_order_explained's), only what is comparable (fixa53: "compare per-token SLOs (TPOT,
-- ITL, NTPOT) or capacity in output tok/s" was said beside a capacity at TPOT p90 itself held,
-- and beside an E2E SLO where the tok/s capacity moves with the lengths too). A capacity in
-- req/s is held at every SLO, a per-token one too (a run of shorter requests sustains more of
-- them). Shorter outputs never raise a capacity in output tok/s at SLOs whose limits they do
-- not move (per-token ones, TTFT: tests/sim/fixa53_tokens.py, 549.4 tok/s for both at TPOT p90
-- <= 170 ms), but at an E2E one they do (548.4 against 539.8 tok/s at 8,000 ms); input lengths
-- move every figure, the per-token ones too (a prompt's prefill delays the batch's tokens).
-- opts.tps_row: the report has a capacity in output tok/s row (compare.lua with an SLO);
-- opts.compare: compare.lua's report (--slo can give one). Returns "; ..." or "".
function M.token_order_advice(te, opts)
  opts = opts or {}
  local same = "; only runs of the same requests would compare them"
  if te.input then
    return same .. " (the input lengths move every figure here, the per-token ones too: a prompt's prefill "
      .. "delays the tokens of the requests beside it)"
  end
  if te.unit == "tok/s" then return same end
  if opts.tps_row and te.slo_given and not te.limits then
    return "; compare their capacity in output tok/s (its own row): at these SLOs shorter outputs do not raise it"
  end
  if opts.compare then
    return "; a per-token SLO (TPOT, ITL, NTPOT) in --slo would give a capacity in output tok/s, which shorter "
      .. "outputs do not raise"
  end
  return same
end

-- One run's load points that sent different requests (token lengths per request beyond the
-- workload match's TOKEN_TOLERANCE, M.token_differences between each point and the first):
-- one folder holding two workloads (vLLM files of 8k-token prompts beside 10k ones). A data
-- check (run.warnings, run.checks kind "mixed_requests"), and a capacity interpolated across
-- them would mix the two: the report makes it N/A with M.mixed_requests_reason. Only points
-- of at least SHAPE_MIN_REQUESTS completed requests and no failed one are compared.
M.SHAPE_MIN_REQUESTS = 30
function M.check_request_shapes(run)
  local points = lp.points(run)
  if #points < 2 then return end
  local function mean(p, k)
    local n, total = p.values.requests_ok, p.values[k]
    if n and total and n > 0 then return ("%.1f"):format(total / n) end
    return "unknown"
  end
  local function describe(i, p)
    return ("point %d (%s%s): %s input and %s output tokens per request"):format(i,
      lp.load_text(p.load_type == "concurrency" and "concurrency" or "rate", p.offered), (p.repeats or 1) > 1
      and (", %d repeats"):format(p.repeats) or "", mean(p, "input_tokens_total"), mean(p, "output_tokens_total"))
  end
  -- points of a handful of requests are left out: the mean of 2 random prompts moves by
  -- more than 5 % by chance (guidellm's 2-request fixture: 71.5 against 65.5 tokens); so
  -- are points with failed requests: whether a harness's token totals count them is not
  -- the same everywhere, so a mean per completed request may be off there
  local function enough(p)
    return (p.values.requests_ok or 0) >= M.SHAPE_MIN_REQUESTS and (p.values.requests_failed or 0) == 0
  end
  -- each point's lengths' spread (mean, sd, n: its stages' pooled, the spread between its
  -- repeats' means counted in), so that a point's mean differs from the first's only beyond
  -- its sampling noise (M.token_differences, the means alone: a family of two kinds for each
  -- point against the first; audit51 F1: random lengths, sigma 0.3, 300 a load, flagged 9 of
  -- 30 A/A pairs as two workloads by chance)
  local function spread(p, kind)
    local n, sum, ss, parts = 0, 0, 0, {}
    for _, idx in ipairs(p.stages or {}) do
      local l
      for _, st in ipairs(run.stages or {}) do
        if st.index == idx then l = st.metrics and st.metrics.token_lengths and st.metrics.token_lengths[kind] end
      end
      if not (l and type(l.sd) == "number" and type(l.n) == "number" and l.n > 1 and type(l.mean) == "number") then
        return nil
      end
      parts[#parts + 1] = l
      n, sum = n + l.n, sum + l.n * l.mean
    end
    if n < 2 then return nil end
    local m = sum / n
    for _, l in ipairs(parts) do ss = ss + (l.n - 1) * l.sd ^ 2 + l.n * (l.mean - m) ^ 2 end
    return { mean = m, sd = math.sqrt(ss / (n - 1)), n = n }
  end
  local function shape(p)
    return { values = p.values, token_lengths = { input = spread(p, "input"), output = spread(p, "output") } }
  end
  local differ = {}
  local first = shape(points[1])
  for i = 2, #points do
    if enough(points[1]) and enough(points[i])
      and #M.token_differences(first, shape(points[i]), 2 * (#points - 1)) > 0 then
      differ[#differ + 1] = i
    end
  end
  if #differ == 0 then return end
  local parts = { describe(1, points[1]) }
  for _, i in ipairs(differ) do parts[#parts + 1] = describe(i, points[i]) end
  local text = ("load points of different requests (token lengths beyond the workload match's %d %%): %s; one folder "
    .. "holding two workloads? A capacity is not read across them (N/A): compare each workload's files on their own")
    :format(math.floor(M.TOKEN_TOLERANCE * 100 + 0.5), table.concat(parts, "; "))
  run.warnings[#run.warnings + 1] = text
  run.checks = run.checks or {}
  run.checks[#run.checks + 1] = { kind = "mixed_requests", points = differ, text = text,
    detail = table.concat(parts, "; ") }
end

-- The words of a run's figure that is N/A because its load points sent different requests
-- (M.check_request_shapes), or nil when they did not. what: "a capacity between them";
-- detailed: say which points sent what (a report without a Data checks section) rather
-- than "see the Data checks".
local function mixed_reason(run, label, what, detailed)
  for _, c in ipairs(run.checks or {}) do
    if type(c) == "table" and c.kind == "mixed_requests" then
      return ("%s's load points sent different requests (%s), so %s would mix two workloads"):format(
        label or run.label or "the run", detailed and c.detail or "see the Data checks", what)
    end
  end
  return nil
end

-- The reason a run's capacity is N/A when its load points sent different requests
-- (M.check_request_shapes), or nil. label: the run's name in the report; detailed: as
-- mixed_reason.
function M.mixed_requests_reason(run, label, detailed)
  return mixed_reason(run, label, "a capacity between them", detailed)
end

-- The reason a run's max sustained throughput is N/A when its load points sent different
-- requests, or nil: where the achieved rate fell behind, and the most it reached, would be
-- read across the two workloads (compare.lua's Headline and treatments.lua's tables alike).
function M.mixed_sustained_reason(run, label, detailed)
  return mixed_reason(run, label, "a max sustained throughput across them", detailed)
end

-- The texts of M.token_differences, for capacity_evidence's workload_differs.
function M.token_difference_texts(oa, ob)
  local out = {}
  for _, d in ipairs(M.token_differences(oa, ob)) do out[#out + 1] = d.text end
  return out
end

-- The workload match's fields that change what is measured (the requests' token lengths,
-- the model that answers them, a stated workload, the load type, each load's duration): two
-- runs that differ in one are not the same workload, and no capacity, throughput or latency
-- of theirs names a winner. The load type: a concurrency (closed-loop) ladder caps the queue
-- at its level and sends only as answers come back, a rate (open-loop) ladder sends on its
-- clock whatever the queue, so at one achieved rate their queues, and so their TTFT and the
-- capacity within an SLO, are the load generator's as much as the server's (audit49 F1: a
-- concurrency ladder "sustained more load" than a rate ladder on the same server, by the
-- repeats). The load duration (M.DURATION_RATIO): near capacity a queue grows for as long as
-- the load lasts, so a 10 s load passes an SLO a 300 s one fails on the same server (F2). The
-- load ladder (points, offered loads, requests per point at durations within the ratio) and
-- the harness alone do not.
M.MEASURE_FIELDS = { input_tokens = true, output_tokens = true, model = true, workload = true, load_type = true,
  load_duration = true, client_cap = true }

-- Two loads whose durations (M.load_duration) differ by more than this factor are not like
-- for like: a queue near capacity builds over the load's length, so a latency percentile or a
-- capacity within an SLO read from a load a fraction as long is not the same measurement. 2:
-- a harness's own jitter in a load's length (a cut-off stage, a rounded request count,
-- warm-up left out) stays well under twice; what a queue does near capacity differs already
-- between 300 s and 120 s loads, but by far less than between 300 s and 10 s (audit49 F2: at
-- 9 req/s, TTFT p90 1,521 ms over 300 s and 421 ms over 10 s, the same server).
M.DURATION_RATIO = 2

-- How long a load point's load lasted (s, per repeat), and what it rests on, or nil: the
-- load asked for, never the time an overloaded server took to answer it (its drain is a
-- result, not the workload): a rate load's requests / its offered rate (its send span, the
-- same basis for any two runs), else the sends' span from per-request data (sends / send
-- rate), else the send span the files give (inference-perf), else the window (concurrency
-- loads of statistics-only files: a closed loop stops sending at its end).
function M.load_duration(p)
  local function ok(x) return type(x) == "number" and x == x and x > 0 and x < math.huge end
  local reps = p.repeats or 1
  if p.load_type == "rate" and ok(p.offered) and ok(p.requests) then
    return p.requests / p.offered, "requests / offered rate"
  end
  local pace = type(p.pace) == "table" and p.pace or nil
  if pace and ok(pace.sends) and ok(pace.send_rps) then return pace.sends / reps / pace.send_rps, "send span" end
  if type(p.drain) == "table" and #p.drain > 0 then
    local s, n = 0, 0
    for _, r in ipairs(p.drain) do
      if ok(r.send_span_s) then s, n = s + r.send_span_s, n + 1 end
    end
    if n == #p.drain then return s / n, "send span" end
  end
  if ok(p.duration_s) then return p.duration_s, "window" end
  return nil
end

-- The load points of two runs whose loads' durations (M.load_duration) differ by more than
-- M.DURATION_RATIO, where they are at least half the loads compared (one short load among
-- long ones, 10 requests where the others sent 600, is one odd load, not another workload):
-- the points paired as the same load (M.paired_points), and each of A's
-- left unpaired against B's nearest load of its type within M.DURATION_NEAR (a ladder of
-- 6.5, 7.5, 8.5 req/s against one of 6, 7, 8), never loads further apart: a harness that sends
-- a fixed count of requests at each rate (vllm bench serve's --num-prompts) gives a 1 req/s
-- load five times a 5 req/s one's length, in both runs alike. Returns the workload match's
-- text of them, or nil where none does: "load duration: 300 s vs 10 s per load, more than 2x
-- apart at 4 of 4 paired load points: ...".
M.DURATION_NEAR = 1.25
-- (the load of list nearest p's by ratio, of its load type, within M.DURATION_NEAR; nil if none)
local function nearest_load(p, list)
  local best, gap
  if type(p.offered) ~= "number" or p.offered <= 0 then return nil end
  for _, q in ipairs(list) do
    if q.load_type == p.load_type and type(q.offered) == "number" and q.offered > 0 then
      local r = math.max(p.offered, q.offered) / math.min(p.offered, q.offered)
      if r <= M.DURATION_NEAR and (not gap or r < gap) then best, gap = q, r end
    end
  end
  return best
end

local function duration_difference(pa, pb)
  local prs = M.paired_points(pa, pb)
  local paired = {}
  for _, pr in ipairs(prs) do paired[pr.a] = true end
  for _, p in ipairs(pa) do
    local q = not paired[p] and nearest_load(p, pb)
    if q then prs[#prs + 1] = { a = p, b = q } end
  end
  -- (and each of B's loads left, to A's nearest: so that which run is A does not change what
  -- is compared - one direction alone left a B load out that the other direction pairs)
  local used = {}
  for _, pr in ipairs(prs) do used[pr.b] = true end
  for _, q in ipairs(pb) do
    local p = not used[q] and nearest_load(q, pa)
    if p then prs[#prs + 1] = { a = p, b = q } end
  end
  local far, amin, amax, bmin, bmax, compared = 0, math.huge, 0, math.huge, 0, 0
  for _, pr in ipairs(prs) do
    local da, db = M.load_duration(pr.a), M.load_duration(pr.b)
    if da and db then
      compared = compared + 1
      if math.max(da, db) > M.DURATION_RATIO * math.min(da, db) then
        far = far + 1
        amin, amax = math.min(amin, da), math.max(amax, da)
        bmin, bmax = math.min(bmin, db), math.max(bmax, db)
      end
    end
  end
  -- (at half the compared loads or more: one load of another length, a probe of a few requests
  -- or a stage cut off, is no other workload; the loads that decide lie among the rest)
  if far == 0 or 2 * far < compared then return nil end
  local function span(lo, hi)
    local function s(x) return ("%.3g"):format(x) end
    return s(lo) == s(hi) and (s(lo) .. " s") or (s(lo) .. "–" .. s(hi) .. " s")
  end
  return ("load duration: %s vs %s per load, more than %gx apart at %d of %d paired load points: near capacity a "
    .. "queue grows for as long as the load lasts, so a shorter load passes SLOs a longer one fails"):format(
    span(amin, amax), span(bmin, bmax), M.DURATION_RATIO, far, compared), { a = { amin, amax }, b = { bmin, bmax } }
end

-- How two runs' loads were sent differs beyond what their requests say: {{field, a, b, text},
-- ...}, empty where they match or it is unknown. The client's cap on requests in flight, where
-- both runs' files say it and it differs at a load both measured (llmd.loadpoints.client_cap): a
-- capped client's wait is outside its latencies, so those loads are not paired
-- (M.paired_points) and no pooled row compares them ("client_cap"); each load's duration, the
-- load asked for (duration_difference), beyond M.DURATION_RATIO apart ("load_duration"). The
-- one rule of compare.lua's workload match (M.workload_match) and of treatments.lua's workload
-- split (llmd.treatments.workload_groups): a treatment capped, or loaded for a third as long,
-- is never ranked with the others (audit52 F1).
function M.load_differences(pa, pb)
  local out = {}
  local caps = {}
  for _, p in ipairs(pa) do
    for _, q in ipairs(pb) do
      if lp.same_load(p, q) and M.caps_differ(p.client_cap, q.client_cap) then
        local function f(c) return c == "none" and "none reached" or ("%g"):format(c) end
        caps[#caps + 1] = ("%s: %s vs %s"):format(fmt_load(p), f(p.client_cap), f(q.client_cap))
        break
      end
    end
  end
  if #caps > 0 then
    out[#out + 1] = { field = "client_cap", text = ("client concurrency cap (requests in flight): %s; a cap the "
      .. "sends reach holds requests in the client, whose wait the harness does not time, so those loads' "
      .. "latencies are not compared"):format(table.concat(caps, "; ")) }
  end
  local text, d = duration_difference(pa, pb)
  if text then out[#out + 1] = { field = "load_duration", a = d.a, b = d.b, text = text } end
  return out
end

-- The texts of the differences of a workload match (M.workload_match) in M.MEASURE_FIELDS,
-- for capacity_evidence's workload_differs; a side that is unknown ("unknown (no load
-- point)") is no difference.
function M.measure_difference_texts(wm)
  local out = {}
  for _, d in ipairs(wm and wm.differences or {}) do
    local unknown = type(d.a) == "string" and d.a:find("^unknown") or type(d.b) == "string" and d.b:find("^unknown")
    if M.MEASURE_FIELDS[d.field] and not unknown then out[#out + 1] = d.text end
  end
  return out
end

-- The model a side served, or nil where nothing says: the one its results name (run.model, which
-- each harness reader sets from its own files: vLLM's model_id, inference-perf's config.yaml
-- server.model_name, a benchmark report's scenario.stack model name; run.config.model for a
-- run model saved before the readers set run.model), else the one its info file states, else
-- the one the server names (run.served_model, llmd.kvcache.served_model: the model_name label
-- of vLLM's scrapes in metrics/raw, else the start-up line of its logs). Returns the model and
-- where it came from ("results", "info" or the server's source text), or nil and why where the
-- server names several models (none is picked: which one the requests reached is not known).
function M.model_of(side)
  local run = side.run or {}
  local function known(v)
    if v == nil or v == "unknown" or v == "" then return nil end
    return tostring(v)
  end
  local st = side.state or {}
  local m = known(run.model) or known(type(run.config) == "table" and run.config.model or nil)
  if m then return m, "results" end
  m = known(type(st.stack) == "table" and st.stack.model or nil)
  if m then return m, "info" end
  local sm = type(run.served_model) == "table" and run.served_model or {}
  m = known(sm.name)
  if m then return m, sm.source end
  return nil, sm.several and sm.why or nil
end

-- The model a run's results name (the harness's request model: run.model, else run.config.model
-- of an older saved run model) and the file it was read from, relative to the results folder
-- (run.config_source: every reader sets the model first among its config), or nil.
local function results_model(run)
  local m = run.model
  if m == nil or m == "" or m == "unknown" then m = type(run.config) == "table" and run.config.model or nil end
  if m == nil or m == "" or m == "unknown" then return nil end
  local src = type(run.config_source) == "string" and run.config_source or nil
  local root = type(run.root) == "string" and run.root:gsub("/+$", "") or nil
  if src and root and src:sub(1, #root + 1) == root .. "/" then src = src:sub(#root + 2) end
  return tostring(m), src
end

-- The data check that the server the results name is the one that answered: where a run's results
-- name a model and vLLM's scrapes or logs name the server's (run.served_model.answers,
-- llmd.kvcache.served_model), the results' model must be one of the names the server answers to
-- (exact, case and all): the scrapes' model_name label (the served name), and from its start-up
-- arguments each --served-model-name, the model (a path or hub id) and vllm serve's model_tag,
-- since a benchmark's own model setting (vLLM's model_id) is often the model's path or hub id while
-- it sends the served name. None of them: the requests may have reached another server than the
-- one these files are of, or an alias only --served-model-name gave (which scrapes alone cannot
-- tell): a warning and a data check naming both models and where each was read, and the run's
-- served_model.mismatch, so that the pair is not called like for like on the results' model
-- alone (llmd.report's like_unverified, llmd.treatments.workload_groups). A benchmark report
-- whose stack lists several models (run.models; run.model their joined text, which no server
-- answers to): each must be a name the server answers to, and the check names the ones that are
-- not. Once per run (a saved run read again keeps its check). Returns the text, or nil where
-- they match or either is unknown.
function M.check_served_model(run)
  local sm = type(run.served_model) == "table" and run.served_model or nil
  local m, src = results_model(run)
  if not (sm and m and type(sm.answers) == "table" and #sm.answers > 0) then return nil end
  local parts, served, seen = {}, {}, {}
  for _, a in ipairs(sm.answers) do
    for _, n in ipairs(a.names or {}) do
      if not seen[n] then seen[n], served[#served + 1] = true, n end
    end
    parts[#parts + 1] = ("%s %s %s"):format(a.where, a.where:match("^vLLM's start%-up") and "name" or "names",
      table.concat(a.names, ", "))
  end
  -- (a benchmark report whose stack lists several models names each in run.models, m their
  -- joined text: each must be a name the server answers to, the ones that are not named)
  local list = type(run.models) == "table" and #run.models > 1 and run.models or { m }
  local other = {}
  for _, x in ipairs(list) do
    if not seen[tostring(x)] then other[#other + 1] = tostring(x) end
  end
  if #other == 0 then return nil end
  local o = table.concat(other, " and ")
  local text = ("the server is not known to be the one the results measured: the results name %s %s (%s), "
    .. "but %s; the benchmark's requests %smay have reached another server, or %s %s "
    .. "these files do not show; like for like is not verified on the results' model"):format(
    #list > 1 and "models" or "model", #list > 1 and table.concat(list, ", ") or m,
    src and ("read from " .. src) or "read from the results", table.concat(parts, "; "),
    #list > 1 and ("for " .. o .. " ") or "", o, #other > 1 and "are --served-model-name aliases"
    or "is a --served-model-name alias")
  -- (the short form the Verdict's "like for like not verified" gives)
  sm.mismatch = ("its results name model%s %s, its server %s (see Data checks)"):format(#other > 1 and "s" or "", o,
    table.concat(served, ", "))
  run.checks = run.checks or {}
  for _, c in ipairs(run.checks) do if c.kind == "served_model_mismatch" then return text end end
  run.checks[#run.checks + 1] = { kind = "served_model_mismatch", text = text, results_model = m,
    results_source = src, served = sm.answers }
  require("llmd.runmodel").warn(run, "%s", text)
  if run.status == "ok" then run.status = "warnings" end
  return text
end

-- The Configuration Summary's text of a side's model: what its info file states (stated wins, as
-- in every row of it), else what M.model_of finds, with where: "... (read from the results)",
-- "... (read from the model_name label of vLLM's metrics in metrics/raw)"; "unknown (why)" where
-- the server names several models, "unknown" where nothing names one.
function M.model_text(side)
  local st = side.state or {}
  local stated = type(st.stack) == "table" and st.stack.model
  if stated ~= nil and stated ~= "unknown" and stated ~= "" then return tostring(stated) end
  local m, from = M.model_of(side)
  if not m then return from and ("unknown (" .. from .. ")") or "unknown" end
  return ("%s (read from %s)"):format(m, from == "results" and "the results" or from)
end

-- What differs between the workloads two runs measured: {same =, like_for_like =,
-- differences = {{field, a, b, text, like_for_like = false when it breaks pooled rows}}}.
-- A and B: sides ({label, state, run}); pa, pb: their load points.
function M.workload_match(A, B, pa, pb)
  local diffs = {}
  local function add(field, a, b, text, breaks)
    diffs[#diffs + 1] = { field = field, a = a, b = b, text = text, breaks_pooled = breaks or false }
  end
  local ra, rb = A.run, B.run
  local ha = ra.harness .. (ra.tool and ra.tool ~= "" and (" (" .. ra.tool .. ")") or "")
  local hb = rb.harness .. (rb.tool and rb.tool ~= "" and (" (" .. rb.tool .. ")") or "")
  if ha ~= hb then add("harness", ha, hb, ("harness: %s vs %s"):format(ha, hb), false) end
  local ta, tb = list_of(pa, function(p) return p.load_type end), list_of(pb, function(p) return p.load_type end)
  local function uniq(s)
    local seen, out = {}, {}
    for w in s:gmatch("[^, ]+") do if not seen[w] then seen[w] = true; out[#out + 1] = w end end
    return table.concat(out, "+")
  end
  -- a run without load points: "unknown (why)", never an empty text
  local whya, whyb = #pa == 0 and (lp.no_points_why(ra) or "no load point"), #pb == 0 and (lp.no_points_why(rb)
    or "no load point")
  ta = whya and ("unknown (" .. whya .. ")") or uniq(ta)
  tb = whyb and ("unknown (" .. whyb .. ")") or uniq(tb)
  if ta ~= tb then
    -- (a side unknown is no difference in what is measured: llmd.decision.measure_difference_texts)
    local why = (whya or whyb) and "" or (": a concurrency (closed-loop) ladder caps the queue, a rate (open-loop) "
      .. "one does not")
    add("load_type", ta, tb, ("load type: %s vs %s%s"):format(ta, tb, why), true)
  end
  -- the client's cap on requests in flight and each load's duration (M.load_differences, the
  -- one rule llmd.treatments' workload split uses too)
  for _, d in ipairs(M.load_differences(pa, pb)) do add(d.field, d.a, d.b, d.text, true) end
  local la = whya and ("none: " .. whya) or list_of(pa, fmt_load)
  local lb = whyb and ("none: " .. whyb) or list_of(pb, fmt_load)
  if #pa ~= #pb then
    add("load_points", #pa, #pb, ("load points: %d (%s) vs %d (%s)"):format(#pa, la, #pb, lb), true)
  else
    local same = true
    for i = 1, #pa do
      local x, y = pa[i].offered, pb[i].offered
      if (x == nil) ~= (y == nil) or (x and not lp.close(x, y)) then same = false end
    end
    if not same then add("offered_load", la, lb, ("offered load: %s vs %s"):format(la, lb), true) end
    -- per point: the requests sent, where both know them. Not the measured duration: an
    -- overloaded server takes longer over the same requests, so a longer window is a result
    -- of the run, not a difference of the workload asked for. Nor the requests of a point both
    -- runs drove at one concurrency: a closed loop sends again as each answer ends, so over the
    -- same time a faster server is sent more requests - a result of the run, as the window of a
    -- rate is (truth55: B 20 % faster at 4 to 12 users had every row "not comparable" and the
    -- banner "on different load ladders" over one ladder); a load asked to last longer is
    -- load_differences' duration, above
    local rq = {}
    for i = 1, #pa do
      local x, y = pa[i].requests, pb[i].requests
      local closed = pa[i].load_type == "concurrency" and pb[i].load_type == "concurrency"
      if x and y and not closed and not lp.close(x, y, 0.02) then
        rq[#rq + 1] = ("point %d: %g vs %g"):format(i, x, y)
      end
    end
    if same and #rq > 0 then
      add("requests", nil, nil, "requests per load point: " .. table.concat(rq, "; "), true)
    end
  end
  -- token lengths per request (mean; p50 and p90 where the run model has them)
  for _, d in ipairs(M.token_differences(ra.overall, rb.overall)) do add(d.field, d.a, d.b, d.text, true) end
  local function stated(side, part, k)
    local s = side.state or {}
    local v = type(s[part]) == "table" and s[part][k] or nil
    if v == nil or v == "unknown" then return nil end
    return tostring(v)
  end
  local wa, wb = stated(A, "benchmark", "workload"), stated(B, "benchmark", "workload")
  -- a stated workload or a model that differs changes what is measured, as token lengths do:
  -- no row, pooled or at one load, compares like with like
  if wa and wb and wa ~= wb then add("workload", wa, wb, ("workload/profile: '%s' vs '%s'"):format(wa, wb), true) end
  -- (a run whose results name a model its server does not, M.check_served_model, may have
  -- measured either: the models differ only where neither of its could be the other run's)
  local ma, mb = M.model_of(A), M.model_of(B)
  local function could_be(side, m)
    local set = { [m] = true }
    local sm = type(side.run.served_model) == "table" and side.run.served_model or {}
    if sm.mismatch then
      for _, a in ipairs(sm.answers or {}) do for _, n in ipairs(a.names or {}) do set[n] = true end end
    end
    return set
  end
  local differ = ma and mb and ma ~= mb
  if differ then
    local sa, sb = could_be(A, ma), could_be(B, mb)
    for n in pairs(sa) do if sb[n] then differ = false end end
  end
  if differ then add("model", ma, mb, ("model: %s vs %s"):format(ma, mb), true) end
  local like = true
  for _, d in ipairs(diffs) do if d.breaks_pooled then like = false end end
  return { same = #diffs == 0, like_for_like = like, differences = diffs }
end

-- Tests ---------------------------------------------------------------------------------------

-- Mann-Whitney U of two sample accumulators: {test = "mann_whitney", p, z, u, effect} or nil.
-- With at most llmd.stattest.EXACT_MAX (60) samples in all, p is the exact one
-- (stattest.exact_mann_whitney: every split of the pooled values, ties at their mid-ranks,
-- so that ties are handled by the permutation distribution itself, no correction needed):
-- exact = true, p_min (the smallest p any split could give: llmd.decision.can_decide),
-- p_normal (the approximation's, for reference). The normal approximation misstates a
-- small sample's p (7 and 7 requests: 0.0476 where the exact p is 0.0530), on the side
-- that names a winner. z and u stay the approximation's (the direction, the effect).
-- da, db: the sides' design effects in send order (M.design_effect; nil: 1): where their
-- U's (M.u_design_effect) is above 1, z is divided by its square root and p is the normal
-- approximation's (deff = that factor, z_independent and p_independent the test's as if
-- the requests were independent). via (optional): M.dependence_reason's.
function M.mann_whitney(xa, xb, da, db, via)
  if not (xa and xb) or xa:count() == 0 or xb:count() == 0 then return nil end
  local ok, r, why = pcall(stats.mann_whitney, xa, xb)
  if not ok then return nil end
  if not r then
    -- samples from both runs, every one the same value: nothing to rank (not "no samples")
    return nil, why == "every sample is tied" and ("the %d and %d per-request samples are all one value: nothing to "
      .. "rank"):format(xa:count(), xb:count()) or nil
  end
  local out = {}
  for k, v in pairs(r) do out[k] = v end
  out.name = r.test
  out.test = "mann_whitney"
  local deff = M.u_design_effect(da, db)
  local dep = M.dependence_reason(xa:count(), xb:count(), deff, da, db, via)
  if dep then return nil, dep end
  if deff > 1 and out.z then
    out.z_independent, out.p_independent = out.z, out.p
    out.z = out.z / math.sqrt(deff)
    out.p = stattest.normal_two_sided(out.z)
    out.deff = deff
    return out
  end
  local small = xa:count() + xb:count() <= stattest.EXACT_MAX
  local va, vb = small and xa:values(stattest.EXACT_MAX), small and xb:values(stattest.EXACT_MAX)
  if va and vb then
    local e = stattest.exact_mann_whitney(va, vb)
    out.p_normal, out.p, out.p_min, out.exact = out.p, e.p, e.p_min, true
    -- (the name the saved test carries says what gave its p: not the approximation's)
    out.name = "Mann-Whitney U, two-sided, exact (every split of the pooled values; p_normal: the approximation's)"
  end
  return out
end

-- Requests are no independent draws where the server queues them: near saturation a
-- request's latency is set by the arrivals before it (a burst lengthens the queue for every
-- request behind it), so neighbouring requests in send order are alike, and a rank test
-- that takes them for independent counts every excursion of the queue dozens of times (the
-- same server twice, another random seed: "B better in TTFT mean -28 %, p < 1e-9").
-- design_effect(xs) (xs: one run's values in send order) is the factor by which that
-- dependence inflates the variance of a sum of their ranks: tau = 1 + 2 sum of the lag-k
-- autocorrelations of the ranks, summed by Geyer's initial positive sequence (pairs of lags
-- added while their sum is positive; Geyer 1992, as MCMC's effective sample size), at least
-- 1 (a negative correlation is no extra evidence here). The ranks, not the values: the test
-- is on ranks, and one long request does not dominate them.
-- With fewer than M.DEFF_MIN_N values the sum is not estimated: a lag-k correlation of 40
-- values has a standard error of about 0.16, and Geyer's sum adds dozens of them. But
-- neither are such values taken for independent (fixi45: one server twice at 85 requests,
-- 89 % busy, named a TTFT winner in 8 of 28 A/A pairs, p down to 3.4e-06; their lag-1 rank
-- correlation had a median of 0.51, Geyer's sum 3.4 to 12): where the lag-1 correlation
-- alone is clearly positive, above 2 / sqrt(n) (two of its standard errors if independent:
-- an independent sample is that far above in about 2.3 % of runs), their dependence is
-- unmeasured, and the design effect is its bound, n (every value alike: one independent
-- one), which no test takes (M.dependence_reason; M.deff_unmeasured says which); 1 otherwise.
-- So fewer requests never read more boldly than more of them (170 such requests: Geyer's sum
-- leaves them untested).
M.DEFF_MIN_N = 100
M.DEFF_MAX_LAG = 2000

-- The design effect below M.DEFF_MIN_N values (n of them) from tau1, their one-lag sum
-- (max(1, 1 + 2 rho_1), stats.design_effect(xs, 1)): n where rho_1 > 2 / sqrt(n), else 1.
local function small_deff(n, tau1)
  if n >= 3 and tau1 and (tau1 - 1) / 2 > 2 / math.sqrt(n) then return n end
  return 1
end

-- Whether a design effect d of n values is the bound of unmeasured dependence (small_deff),
-- not an estimate: fewer than M.DEFF_MIN_N values, d at least n.
function M.deff_unmeasured(n, d)
  return type(n) == "number" and type(d) == "number" and n < M.DEFF_MIN_N and d > 1 and d >= n
end

-- What n units (requests, token gaps) with design effect d carry, in words: "carry about
-- 19 independent ones (design effect 61.9)", or where d is the bound of an unmeasured dependence
-- (M.deff_unmeasured) that they are alike and too few to say how much.
function M.carry_text(n, d)
  if M.deff_unmeasured(n, d) then
    return ("are too few (fewer than %d) to measure how many independent ones they carry, alike to their neighbours "
      .. "in send order (lag-1 correlation above 2 / sqrt(%d))"):format(M.DEFF_MIN_N, n)
  end
  return ("carry about %.0f independent ones (design effect %.3g)"):format(n / d, d)
end

-- (M.design_effect_lua: the same in Lua, for values the C cannot take: NaN, not numbers;
-- max_lag: the most lags summed, M.DEFF_MAX_LAG where nil)
local function geyer_lua(xs, max_lag)
  local n = #xs
  local idx = {}
  for i = 1, n do idx[i] = i end
  table.sort(idx, function(x, y)
    if xs[x] ~= xs[y] then return xs[x] < xs[y] end
    return x < y
  end)
  -- mid-ranks, centred
  local r, i = {}, 1
  while i <= n do
    local j = i
    while j < n and xs[idx[j + 1]] == xs[idx[i]] do j = j + 1 end
    for k = i, j do r[idx[k]] = (i + j) / 2 - (n + 1) / 2 end
    i = j + 1
  end
  local c0 = 0
  for t = 1, n do c0 = c0 + r[t] * r[t] end
  if c0 <= 0 then return 1 end
  local function rho(lag)
    local c = 0
    for t = 1, n - lag do c = c + r[t] * r[t + lag] end
    return c / c0
  end
  local tau, m, maxlag = -1, 0, math.min(max_lag, n - 2)
  while 2 * m + 1 <= maxlag do
    local g = (m == 0 and 1 or rho(2 * m)) + rho(2 * m + 1)
    if g <= 0 then break end
    tau = tau + 2 * g
    m = m + 1
  end
  return math.max(1, tau)
end
-- The lag-1 correlation of xs (in send order) that small_deff reads, the larger of their
-- ranks' and their values' (M.design_effect's and M.value_design_effect's one-lag sums, tau1 =
-- max(1, 1 + 2 rho_1): (tau1 - 1) / 2, 0 where neither is positive); nil for fewer than 3.
function M.lag1(xs)
  local n = xs and #xs or 0
  if n < 3 then return nil end
  local t = math.max(stats.design_effect(xs, 1) or geyer_lua(xs, 1), stats.value_design_effect(xs, 1) or 1)
  return (t - 1) / 2
end

function M.design_effect_lua(xs)
  local n = xs and #xs or 0
  if n < M.DEFF_MIN_N then return small_deff(n, n > 0 and geyer_lua(xs, 1) or nil) end
  return geyer_lua(xs, M.DEFF_MAX_LAG)
end

-- issue 20: in C (stats.design_effect, the same sums in the same order, so bit for bit the
-- same number); the sort of the ranks with a Lua comparator and the lagged sums were most
-- of the Lua time of reading a run of several stages
function M.design_effect(xs)
  local n = xs and #xs or 0
  if n < M.DEFF_MIN_N then
    return n == 0 and 1 or small_deff(n, stats.design_effect(xs, 1) or geyer_lua(xs, 1))
  end
  return stats.design_effect(xs, M.DEFF_MAX_LAG) or M.design_effect_lua(xs)
end

-- value_design_effect(xs): the same sum on the values themselves, centred on their mean
-- (stats.value_design_effect, in C): the factor by which their order inflates the variance
-- of their mean, which a mean's effect interval reads (sample_effect). Not the ranks': a
-- queue's long waits come together and move the mean more than the ranks (fixh44, one
-- server at 2 req/s, 80 seeds a side, tests/sim/mean_deff_coverage.py: the TTFT mean's
-- interval with the ranks' covered the true effect in 80 % of the pairs and left out 0 in
-- 11 of 40 A/A pairs; with the values' 95 % and 0 of 40). Below M.DEFF_MIN_N values the
-- ranks' rule on the values' lag-1 correlation (small_deff: n where clearly positive, else
-- 1); nil where the C cannot take them (NaN, not numbers).
function M.value_design_effect(xs)
  local n = xs and #xs or 0
  if n < M.DEFF_MIN_N then
    if n == 0 then return 1 end
    local t1 = stats.value_design_effect(xs, 1)
    return t1 and small_deff(n, t1) or nil
  end
  return stats.value_design_effect(xs, M.DEFF_MAX_LAG)
end

-- quantile_design_effects(xs): that of each percentile of xs (in send order; metrics.PCTS),
-- which its interval reads (sample_effect): {p50 =, p90 =, ...}, for v the value at its
-- nearest rank (sorted xs[max(1, ceil(#xs p / 100))]) the same sum as the values' on the
-- indicator series 1{x <= v}, the share of requests at or below v whose variance moves the
-- order statistics. Not the ranks' alone: near capacity a percentile's interval with the
-- ranks' covered the true effect in 57-71 % of 300 pairs for TTFT p90 (7 req/s on 9.5, 600
-- s a run, tests/data/pct_deff_coverage.py, task fixe45); README gives the figures. 1 below
-- M.DEFF_MIN_N values; none where a value is NaN or not a number, or there are none.
-- issue 20: in C (stats.quantile_design_effects: the ranks selected, the indicators built
-- and summed by stats.value_design_effect's own code, no Lua table): a Lua sort and a Lua
-- table an indicator, each stage and latency kind, took a tenth of compare.lua's CPU.
local PCT_VALUES = {}
for i, p in ipairs(metrics.PCTS) do PCT_VALUES[i] = p[2] end
function M.quantile_design_effects(xs)
  local d = stats.quantile_design_effects(xs or {}, PCT_VALUES, M.DEFF_MIN_N, M.DEFF_MAX_LAG)
  local out = {}
  for i, p in ipairs(metrics.PCTS) do out[p[1]] = d and d[i] end
  return out
end
-- The sample_deff key of key's percentile's design effect (ttft_p90_ms -> "ttft_p90";
-- llmd.runmodel.sample_design_effects), nil for a key that is no percentile of a kind with one.
function M.quantile_deff_key(key)
  local kind, pct = lp.percentile_key(key)
  if not kind or kind == "itl" then return nil end
  for _, x in ipairs(metrics.PCTS) do
    if x[2] == pct then return kind .. "_" .. x[1] end
  end
end

-- Both design effects of one series xs (its ranks', M.design_effect, and its values',
-- M.value_design_effect; the latter nil where the C cannot take them). Below M.DEFF_MIN_N
-- values either one's dependence unmeasured (small_deff) makes both so (n): a queue's long
-- waits come together in the values where the ranks, spread by each request's own service
-- time, may show less (fixi45: one server twice at 85 requests, 89 % busy, seeds 20007 and
-- 20008: E2E latency's lag-1 rank correlations -0.076 and 0.138, its values' 0.223 above
-- 2 / sqrt(85) = 0.217, and the rank test on them named A better in E2E p90, p 2.7e-04). An
-- independent sample of 85 is above in either in about 2.7 % of runs (numpy, lognormal
-- values, 20000 runs), 1.6 % in the ranks alone.
function M.design_effects(xs)
  local n = xs and #xs or 0
  local d, v = M.design_effect(xs), M.value_design_effect(xs)
  if n < M.DEFF_MIN_N and (M.deff_unmeasured(n, d) or M.deff_unmeasured(n, v)) then return n, v and n end
  return d, v
end

-- The design effect of a Mann-Whitney U on two runs' values (da, db: their design effects,
-- nil for 1): the larger. Under the null hypothesis both runs' requests come from one
-- process, and a run whose queue did not happen to build up in its minute of load shows a
-- small design effect that the process does not have (the same server, two seeds, at 20/s:
-- 62 and 1.3).
function M.u_design_effect(da, db)
  return math.max(1, da or 1, db or 1)
end

-- The fewest effective requests (requests / design effect) a side may have for its
-- requests to be tested: an autocorrelation time is estimated reliably only from a series
-- at least 50 times as long (emcee's rule, Foreman-Mackey et al. 2013); below it the
-- estimate is too low (one excursion of the queue in the whole run), and the test with it
-- still names a winner between two seeds of one server.
M.MIN_EFFECTIVE = 50

-- Why a pair of samples (counts na, nb; design effect d) is too dependent to test, or nil.
-- da, db (optional): each side's own design effect (d their M.u_design_effect): the reason then
-- names the side (or both) whose own requests carry too few independent ones, each with its own
-- count and design effect (fixl45 #3: "82 requests are too few", B's count with A's design
-- effect, no side named); where neither side alone is below the bound (only the pair's fewest
-- requests over the larger design effect are), the pair's as before.
-- via (optional): {failures = M.bursts_cause's words} for a test of failed requests, whose
-- dependence is their bursts, said by what the files say they were ("in send order failed
-- requests come in bursts (server errors, not a queue: ...)"), never the queue's words for
-- bursts of 503s (fixb46); {a =, b =} the TTFTs' lag-1 correlation of a side whose E2E or NTPOT
-- dependence is unmeasured for its TTFTs' (llmd.runmodel.sample_design_effects'
-- <kind>_ttft_lag1, fixg46): that side's words say the dependence is the TTFTs', the wait
-- each request's latency contains, with their figure, never the row's own values'.
-- {bursts = true}: the requests are those of a load kept in though a run answered it short
-- in bursts of server errors (M.pair_kept_bursts): their dependence said by that cause.
function M.dependence_reason(na, nb, d, da, db, via)
  if not d or d <= 1 then return nil end
  if math.min(na, nb) / d >= M.MIN_EFFECTIVE then return nil end
  local sides = {}
  if da and db then
    for _, x in ipairs { { "A's ", na, math.max(1, da), "a" }, { "B's ", nb, math.max(1, db), "b" } } do
      if x[2] / x[3] < M.MIN_EFFECTIVE then sides[#sides + 1] = x end
    end
  end
  if #sides == 0 then sides = { { "", math.min(na, nb), d } } end
  local parts, measured = {}, false
  for _, x in ipairs(sides) do
    local who, n, dd = x[1], x[2], x[3]
    local r = via and x[4] and via[x[4]]
    if M.deff_unmeasured(n, dd) and r then
      parts[#parts + 1] = ("%s%d requests are too few (fewer than %d) to measure how many independent ones they "
        .. "carry, their TTFTs (the wait each one's latency contains) alike to their neighbours in send order "
        .. "(TTFT's lag-1 correlation %.2f, above 2 / sqrt(%d) = %.2f)"):format(who, n, M.DEFF_MIN_N, r, n,
        2 / math.sqrt(n))
    elseif M.deff_unmeasured(n, dd) then
      parts[#parts + 1] = ("%s%d requests %s"):format(who, n, M.carry_text(n, dd))
    else
      measured = true
      parts[#parts + 1] = ("%s%d requests %s, fewer than the %d the estimate needs"):format(who, n,
        M.carry_text(n, dd), M.MIN_EFFECTIVE)
    end
  end
  -- (a load kept in though a run answered it short in bursts of server errors, via.bursts: by
  -- that cause, as the stratified tests' lists say it, never "the queue", M.DEPENDENT_BURSTS)
  local lead = via and via.failures and ("in send order failed requests come in bursts (%s), so "):format(via.failures)
    or via and via.bursts and "in send order neighbours are alike, at a load a run answered short with failed "
      .. "requests in bursts of server errors (the files record errors, no timeouts), so "
    or "in send order neighbours are alike (the queue), so "
  return "its requests are too dependent to test: " .. (measured and lead or "") .. table.concat(parts, "; ")
end

-- The ITL test on two runs' gaps (xa, xb; na, nb: their successful requests; da, db: the
-- design effects of their requests in send order, those of the TPOT, a request's mean gap):
-- Mann-Whitney declustered to one unit a request (M.declustered), then, as the other
-- latencies' tests (M.mann_whitney), its z divided by the square root of the requests'
-- design effect (deff; z_declustered, p_declustered before), or nil and why where the
-- requests carry too few independent ones (M.dependence_reason). The declustering takes
-- the requests for independent units, which near saturation they are not.
function M.itl_test(xa, xb, na, nb, da, db, via)
  local r = M.mann_whitney(xa, xb)
  if not r then return nil end
  r = M.declustered(r, xa:count() + xb:count(), na and nb and na + nb)
  local d = M.u_design_effect(da, db)
  if d <= 1 or not r.z then return r end
  local why = M.dependence_reason(na or 0, nb or 0, d, da, db, via)
  if why then return nil, why end
  r.z_declustered, r.p_declustered = r.z, r.p
  r.z = r.z / math.sqrt(d)
  r.p = stattest.normal_two_sided(r.z)
  r.exact, r.p_min, r.p_normal = nil, nil, nil
  r.deff = d
  return r
end

-- Token gaps (ITL) are pooled over requests, and the gaps of one request are not
-- independent: Mann-Whitney on the pooled gaps would count every request dozens of times
-- and call noise significant. The test is kept but its z is divided by the square root of
-- the gaps per request (the design effect of fully correlated clusters), so it counts no
-- more evidence than the requests give.
function M.declustered(r, gaps, requests)
  if not (r and r.z and gaps and requests and requests > 0) then return r end
  local m = gaps / requests
  if m <= 1 then return r end
  r.z_pooled, r.p_pooled = r.z, r.p
  r.z = r.z / math.sqrt(m)
  -- the declustered p is the normal approximation's, whatever the pooled one was
  r.p = stattest.normal_two_sided(r.z)
  r.exact, r.p_min, r.p_normal = nil, nil, nil
  r.gaps_per_request = m
  return r
end

-- The test on repeat values (xs: A's, ys: B's, one value per repeat): Welch's t-test
-- {test = "welch", p, t, df, mean_a, mean_b}, or nil and why (fewer than 2 repeats each, a
-- value that is not a finite number).
-- Every repeat of both runs the same value (an error rate of 0 % in each): no test, but
-- {test = "identical", identical = true, n_a, n_b, value}: a p of 1 from two constant
-- samples carries no evidence, and counted in the Holm family it would make every other
-- row's correction stricter than needed.
-- Every repeat of one run (or both, at different values) the same value: that run's
-- values are discrete or at a floor (0 errors, a fixed token count), not normal noise, and
-- the t statistic divides by a spread measured on one side only (on none when both are
-- constant: t = +-inf, p = 0 from 3 repeats). Such data get the exact Mann-Whitney test
-- (llmd.stattest.exact_mann_whitney), which assumes no distribution: {test =
-- "exact_mann_whitney", p, p_min, u, n_a, n_b, constant = "a" | "b" | "both"}; complete
-- separation of 3 and 3 repeats gives p = 2 / C(6, 3) = 0.1 at best, of 5 and 5 0.0079.
function M.repeat_test(xs, ys)
  if not (xs and ys) or #xs < 2 or #ys < 2 then return nil, "fewer than 2 repeats on a side" end
  for _, s in ipairs { xs, ys } do
    for _, v in ipairs(s) do
      if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
        return nil, ("a repeat value is %s, not a finite number"):format(tostring(v))
      end
    end
  end
  local function constant(s)
    for _, v in ipairs(s) do if v ~= s[1] then return false end end
    return true
  end
  local ca, cb = constant(xs), constant(ys)
  if ca and cb and xs[1] == ys[1] then
    return { test = "identical", identical = true, n_a = #xs, n_b = #ys, value = xs[1] }
  end
  if ca or cb then
    local r = stattest.exact_mann_whitney(xs, ys)
    r.constant = ca and cb and "both" or ca and "a" or "b"
    return r
  end
  local r = stattest.welch(xs, ys)
  return { test = "welch", p = r.p, t = r.t, df = r.df, mean_a = r.mean_a, mean_b = r.mean_b }
end
M.welch = M.repeat_test -- (its name before the exact test joined it)

-- The exact Mann-Whitney test's own interval of the shift of B's values against A's (lx, ly:
-- on the scale tested): every shift d that, taken off B's values, leaves a two-sided p of at
-- least alpha (llmd.stattest.exact_mann_whitney, its mid-ranks and ties as the test has them),
-- and the Hodges-Lehmann estimate, the median of the differences y - x. The test's p is that
-- at d = 0, so p < alpha exactly where the interval leaves out 0 (a test and an interval that
-- disagree would rest a verdict on a test its interval contradicts). The p changes only at a
-- difference y - x: each one and a point inside each gap between two is tried, a shift there
-- tying y - d with x as the difference says (never by floating-point subtraction). Returns lo,
-- hi, the estimate, and why where there are no bounds: no shift is refused (too few repeats for
-- a p below alpha), or the shifts kept are not one range (0 refused between two kept: ties).
function M.exact_shift_interval(lx, ly, alpha)
  local diffs = {}
  for _, x in ipairs(lx) do for _, y in ipairs(ly) do diffs[#diffs + 1] = y - x end end
  table.sort(diffs)
  local m = #diffs
  local hl = m % 2 == 1 and diffs[(m + 1) // 2] or (diffs[m // 2] + diffs[m // 2 + 1]) / 2
  local distinct = {}
  for _, d in ipairs(diffs) do if d ~= distinct[#distinct] then distinct[#distinct + 1] = d end end
  local function kept(d, at_diff)
    local shifted = {}
    for j, y in ipairs(ly) do
      shifted[j] = y - d
      if at_diff then
        for _, x in ipairs(lx) do if y - x == d then shifted[j] = x end end
      end
    end
    return stattest.exact_mann_whitney(lx, shifted).p >= alpha
  end
  -- (each candidate: a shift to try and the end it gives the interval)
  local lo, hi
  local k = #distinct
  local function try(d, at_diff, from, to)
    if kept(d, at_diff) then
      lo = lo or from
      hi = to
    end
  end
  try(distinct[1] - 1, false, -math.huge, distinct[1])
  for i = 1, k do
    try(distinct[i], true, distinct[i], distinct[i])
    if i < k then try((distinct[i] + distinct[i + 1]) / 2, false, distinct[i], distinct[i + 1]) end
  end
  try(distinct[k] + 1, false, distinct[k], math.huge)
  if lo == nil then return nil, nil, hl, "the exact test keeps no difference: no interval" end
  if lo == -math.huge or hi == math.huge then
    return nil, nil, hl, ("the exact test's interval is unbounded: %d and %d repeats give no p below %g whatever "
      .. "the difference"):format(#lx, #ly, alpha)
  end
  local p0 = stattest.exact_mann_whitney(lx, ly).p
  if p0 < alpha and lo <= 0 and hi >= 0 then
    return nil, nil, hl, "the differences the exact test keeps are not one range (ties): no interval"
  end
  return lo, hi, hl
end

-- The test of two runs' repeats of one figure (xs: A's, ys: B's) and the size of the difference
-- over the repeats with its interval (row_effect; where: its words, "over the repeats" by
-- default), which M.verdict holds to --min-effect over the whole interval: a throughput row, a
-- treatment's place or its latency at the common load names a winner only where the repeats'
-- whole 95 % interval is beyond the threshold, as every latency row does.
-- The test and the interval on one scale (fixa51; audit50b F6 in autobench's evidence: Welch on
-- the raw values beside an interval of the log ratio disagreed, A {103, 104, 100} against B {85,
-- 82, 94} read p = 0.040 "different" beside -27.8 % to +0.06 %). Values all above 0 (throughputs,
-- latencies, rates that never hit 0): their natural logs, so the effect is the ratio of the
-- geometric means, B against A, and its interval exp(d -+ t(0.975, df) se) - 1 from the same
-- Welch t and df as the p: p < 0.05 exactly where the interval leaves out 0. Else the raw values,
-- the difference over A's mean (its lower end not below -100 % where no value is below 0). The
-- test is M.repeat_test's on those values (Welch; the exact Mann-Whitney where a side is
-- constant, whose ranks a log does not change, with its own interval and Hodges-Lehmann
-- estimate, M.exact_shift_interval; "identical" without an effect); scale: "log" |
-- "raw" (M.test_name says "on the log values", M.test_code "welch_log"); mean_a, mean_b: the
-- means of the figures themselves, as the row shows them (t and df are the logs'). Returns as
-- M.repeat_test.
function M.sized_repeat_test(xs, ys, where)
  local pos, nonneg = true, true
  for _, s in ipairs { xs or {}, ys or {} } do
    for _, v in ipairs(s) do
      if not (type(v) == "number" and v > 0 and v ~= math.huge) then pos = false end
      if not (type(v) == "number" and v >= 0) then nonneg = false end
    end
  end
  local function on_scale(list)
    if not (pos and list) then return list end
    local out = {}
    for i, v in ipairs(list) do out[i] = math.log(v) end
    return out
  end
  local lx, ly = on_scale(xs), on_scale(ys)
  local t, why = M.repeat_test(lx, ly)
  if not t or t.identical then
    -- (identical repeats: the value as measured, never its log)
    if t and pos then t.value = xs[1] end
    return t, why
  end
  t.scale = pos and "log" or "raw"
  local function mean_var(list)
    local sum = 0
    for _, v in ipairs(list) do sum = sum + v end
    local m, ss = sum / #list, 0
    for _, v in ipairs(list) do ss = ss + (v - m) ^ 2 end
    return m, ss / (#list - 1)
  end
  local ma, va = mean_var(lx)
  local mb, vb = mean_var(ly)
  -- (the means of the figures as the row shows them, never of their logs)
  if pos then t.mean_a, t.mean_b = mean_var(xs), mean_var(ys) end
  local diff = mb - ma
  local function pct(v)
    if pos then return 100 * (math.exp(v) - 1) end
    return ma > 0 and 100 * v / ma or nil
  end
  local eff = { pct = pct(diff), strata = 1, level = M.EFFECT_LEVEL, where = where or "over the repeats",
    units = "repeats", scale = M.EFFECT_SCALE, values = t.scale }
  if eff.pct == nil then return t, why end
  local qa, qb = va / #lx, vb / #ly
  if qa + qb <= 0 then
    eff.why, eff.settle = "repeats identical, no spread to estimate", "repeats whose values vary"
  elseif t.test == "exact_mann_whitney" then
    -- (one side constant: the exact test's own interval and estimate, never Welch's on one
    -- side's spread, which could leave out 0 where the ranks' p is 0.1, or the reverse)
    local lo, hi, hl, unbounded = M.exact_shift_interval(lx, ly, 1 - M.EFFECT_LEVEL / 100)
    eff.pct, eff.estimate = pct(hl), "hodges_lehmann"
    if unbounded then
      eff.why, eff.settle = unbounded, M.REPEATS_SETTLE
    else
      eff.lo, eff.hi = pct(lo), pct(hi)
      if not pos and nonneg then eff.lo = math.max(-100, eff.lo) end
    end
  else
    local df = (qa + qb) ^ 2 / (qa * qa / (#lx - 1) + qb * qb / (#ly - 1))
    local h = stattest.t_quantile(1 - (1 - M.EFFECT_LEVEL / 100) / 2, df) * math.sqrt(qa + qb)
    eff.lo, eff.hi, eff.df = pct(diff - h), pct(diff + h), df
    if not pos and nonneg then eff.lo = math.max(-100, eff.lo) end
  end
  t.row_effect = eff
  return t, why
end

-- Fisher's exact test on the request counts of two metric sets (run model values
-- requests_failed and requests_ok: pooled over every stage they hold, as the per-request
-- samples of the latency rows are): llmd.stattest.fisher_exact's result, or nil and why
-- when a side's counts are unknown or it finished no request. No failure in either run (or
-- nothing but failures in both): {test = "identical", identical = true, note}, as for
-- repeats with one value: no table with those margins could differ, so there is nothing to
-- test, and it stays out of the Holm family.
-- d: the failure indicator's design effect in send order (M.u_design_effect of the sides';
-- nil: 1): above 1 the failures came in bursts, and the test is M.dependent_count_test's
-- (none where too few independent requests' worth are left: M.dependence_reason, which names
-- the run whose own requests carry too few where da, db, each side's design effect, are given;
-- cause: M.bursts_cause's words of the failures, which that reason then says).
function M.count_test(va, vb, d, da, db, cause)
  local fa, oa, fb, ob = va.requests_failed, va.requests_ok, vb.requests_failed, vb.requests_ok
  if not (fa and oa and fb and ob) then
    return nil, "the counts of failed and completed requests are not known for both runs"
  end
  local na, nb = fa + oa, fb + ob
  if na == 0 or nb == 0 then return nil, "a run finished no request" end
  if fa + fb == 0 or fa + fb == na + nb then
    return { test = "identical", identical = true, n_a = na, n_b = nb,
      note = ("%s (%d of %d and %d of %d failed): no test"):format(fa + fb == 0 and "no request failed in either run"
        or "every request failed in both runs", fa, na, fb, nb) }
  end
  if d and d > 1 then
    local why = M.dependence_reason(na, nb, d, da, db, { failures = cause })
    if why then return nil, why end
    local r = M.dependent_count_test { { fa, na, fb, nb, d } }
    r.mh_rate_a, r.mh_rate_b, r.strata = nil, nil, nil
    r.counts = { { fa, na, fb, nb, d } }
    return r
  end
  local r = stattest.fisher_exact(fa, na, fb, nb)
  -- (the counts the test read, for its effect's interval: M.count_effect; row_test drops them)
  if type(r) == "table" then r.counts = { { fa, na, fb, nb, 1 } } end
  return r
end

-- Whether two load points' (or runs') client caps on requests in flight differ (each
-- llmd.loadpoints.client_cap's: "none", a number, or nil where not known): only where both are
-- known. A cap neither run's sends reached is "none" on both sides.
function M.caps_differ(a, b)
  return a ~= nil and b ~= nil and a ~= b
end

-- The load points of two runs paired as the same load: the same load type and offered
-- loads within llmd.loadpoints.REPEAT_TOLERANCE (the rule that makes stages repeats of one
-- point, and the workload match's), each point paired once, in A's order. Returns the pairs
-- {{a = pa[i], b = pb[j]}, ...} and the points left unpaired, as texts ("3/s (A)").
function M.paired_points(pa, pb)
  local pairs_, used, left = {}, {}, {}
  for _, p in ipairs(pa) do
    local hit
    for j, q in ipairs(pb) do
      if not used[j] and lp.same_load(p, q)
        and not M.caps_differ(p.client_cap, q.client_cap) then
        hit = j
        break
      end
    end
    if hit then
      used[hit] = true
      pairs_[#pairs_ + 1] = { a = p, b = pb[hit] }
    else
      left[#left + 1] = fmt_load(p) .. " (A)"
    end
  end
  for j, q in ipairs(pb) do if not used[j] then left[#left + 1] = fmt_load(q) .. " (B)" end end
  return pairs_, left
end

-- The load points a stratified test covered (its scope), for every text that names the test
-- (M.test_scope_text) and for comparison.json (the row's sig.scope): {tested = the loads it
-- tested ("2/s", ...), total = the load points the runs measured (the pairs at one load and
-- the points of one run only: M.paired_points), left = {{why = "too dependent to test", loads
-- = {"6/s"}}, ...}, the groups of the others, by why; "measured by one run only" last}.
-- groups: {{why, {loads}}, ...} in order, empty ones dropped.
local OVERLOADED_WHY, ONE_RUN_WHY = "a run overloaded", "measured by one run only"
-- (the groups of loads left out as a run's were not known to be sustained: overloaded, its
-- saturation unknown, or some of each; over_why)
local OVER_WHYS = { [OVERLOADED_WHY] = true, ["a run's saturation unknown"] = true,
  ["a run overloaded or its saturation unknown"] = true }
-- (M.test_scope_text of a test of every load both runs sustained)
M.SUSTAINED_ALL = "at the loads both sustained"
local function test_scope(tested, n_pairs, left, groups)
  local json = require "llmd.json"
  local s = { tested = json.array(tested), total = n_pairs + #left, left = json.array {} }
  for _, g in ipairs(groups) do
    if #g[2] > 0 then s.left[#s.left + 1] = { why = g[1], loads = json.array(g[2]) } end
  end
  if #left > 0 then s.left[#s.left + 1] = { why = ONE_RUN_WHY, loads = json.array(left) } end
  return s
end

-- The scope of a test of runs with one load point each (M.row_test's unstratified tests):
-- {one_each = true, paired = whether the two are at one load (M.paired_points), loads = {A's,
-- B's}, tested (the one load where paired), total = 1 (2 where not paired)}.
local function one_point_scope(pa, pb)
  local json = require "llmd.json"
  local pairs_ = M.paired_points(pa, pb)
  local paired = #pairs_ == 1
  return { one_each = true, paired = paired, loads = json.array { fmt_load(pa[1]), fmt_load(pb[1]) },
    tested = json.array(paired and { fmt_load(pa[1]) } or {}), total = paired and 1 or 2 }
end

-- Which load points a test pooled (t.scope: test_scope or one_point_scope), in a few words
-- for a sentence that names the test ("Performance Results, <this>: A better, p = 0.01"):
-- "over all load points" only where it tested every load point either run measured; "over 3
-- of 5 load points (2 left out: too dependent to test at 6/s; measured by one run only at 8/s
-- (B))"; "at the one load point each run has (4/s)"; "over each run's one load point (4/s in
-- A, 6/s in B)". A test that left out the loads where a run was overloaded (M.verdict's
-- sustained_only rows) is said of the loads both sustained: "at the loads both sustained"
-- only where it tested every one of them, else "at 2 of the 4 loads both sustained (2 left
-- out: too dependent to test at 4/s, 5/s)" (verify42: "at the loads both sustained: no
-- clear difference" of a test of 2/s and 3/s only, beside a 17-fold gap at 5/s it never
-- looked at). A test saved without one (analyze.lua on an older comparison.json): "over
-- the load points it tested" ("at the loads both sustained that it tested" where it left
-- out overloaded ones), which holds whatever it left out.
function M.test_scope_text(t)
  local s = t and t.scope
  if type(s) ~= "table" or type(s.tested) ~= "table" then
    return t and t.overloaded and "at the loads both sustained that it tested" or "over the load points it tested"
  end
  if s.one_each then
    local l = s.loads or {}
    if s.paired then return ("at the one load point each run has (%s)"):format(tostring(l[1])) end
    return ("over each run's one load point (%s in A, %s in B)"):format(tostring(l[1]), tostring(l[2]))
  end
  local n = #s.tested
  if n == s.total then return "over all load points" end
  local over, sustained = false, s.total
  for _, g in ipairs(s.left or {}) do
    if OVER_WHYS[g.why] then over = true end
    if OVER_WHYS[g.why] or g.why == ONE_RUN_WHY then sustained = sustained - #g.loads end
  end
  if over and n == sustained then return M.SUSTAINED_ALL end
  local parts, k = {}, 0
  for _, g in ipairs(s.left or {}) do
    -- (of the loads both sustained: the others are not among them)
    if not (over and (OVER_WHYS[g.why] or g.why == ONE_RUN_WHY)) then
      parts[#parts + 1] = ("%s at %s"):format(g.why, table.concat(g.loads, ", "))
      k = k + #g.loads
    end
  end
  if over then
    return ("at %d of the %d loads both sustained (%d left out: %s)"):format(n, sustained, k,
      table.concat(parts, "; "))
  end
  return ("over %d of %d load points (%d left out: %s)"):format(n, s.total, k, table.concat(parts, "; "))
end

-- Is load point p of a run one it is not known to have sustained (s: its
-- llmd.loadpoints.saturation; run, n: its run model and its number of load points)? Past
-- saturation, or past a load whose saturation could not be judged
-- (llmd.loadpoints.point_unsustained), or where its successful answers fell short and its
-- failed requests made up the rest in bursts (their design effect in send order, M.point_deff,
-- at least M.BURST_DEFF): a queue timing requests out, the overload's own failures, however
-- the run's counts read them. Failures that come one at a time (a server's errors, design
-- effect about 1) are no overload: such a load stays in, where a difference in failing is
-- what the error rate's test is for.
-- Returns "saturated", "unjudged", "short" (lp.point_unsustained's words) or nil. The CDF
-- charts pool by it too (llmd.charts.latency_cdf, llmd.treatments.cdf_chart), so a curve
-- never sets beside another a load the tests left out, and so does the Summary's test at
-- the matched load (llmd.report). s: the run's llmd.loadpoints.saturation; run, n: its run
-- model and its number of load points.
-- A short load whose files record every failure as an error, none a timeout (M.failures_kind
-- "errors": a server down for a while, its requests answered at once with 503s), stays in
-- (fixb46): such bursts leave no queue behind, and the requests answered between them are a
-- server that kept up. Measured on tests/data/queue_sim.py (20 slots, 3 and 4.75 req/s, a
-- third and a half of what they serve, --error-bursts 2,30, 30 pairs each): kept in, A/A named
-- no winner in any row (left out, every row was untested); a 5 % faster TPOT named B better on
-- TPOT, ITL and end-to-end p90 in 28-29 of 30, TTFT never; bursts in A only named B better on
-- the error rate in 26 of 30, no latency row; and a queue shedding load with 503s after 3 s
-- (--timeout 3 at 5.5 req/s on 10 slots, its TimeoutErrors relabelled, 12 A/A pairs) named no
-- winner either (its latencies too dependent to test, M.dependence_reason). The rows say which
-- loads were kept in (M.kept_bursts_text).
local function short_errors(s, p, run, n)
  return lp.point_unsustained(s, p) == "short" and run ~= nil and M.point_deff(run, p, "failed", n) >= M.BURST_DEFF
    and M.failures_kind(p) == "errors"
end
local function unsustained(s, p, run, n)
  local why = lp.point_unsustained(s, p)
  if why == "short" and not (run and M.point_deff(run, p, "failed", n) >= M.BURST_DEFF) then return nil end
  if why == "short" and M.failures_kind(p) == "errors" then return nil end
  return why
end
M.point_unsustained = unsustained
M.point_kept_bursts = short_errors

-- The loads of a pair of runs (pa, pb: their load points; sat: {a =, b =}, runs: {a =, b =}
-- their saturations and run models) kept in although a run answered them short, its failures
-- in bursts of server errors (short_errors): {"4.75/s in A", ...}, in A's order then B's.
-- n (optional): {a =, b =} the runs' numbers of load points, where pa, pb are only some of
-- them (the Summary's matched load: one point each).
function M.kept_bursts(pa, pb, sat, runs, n)
  local out = {}
  if not sat then return out end
  for _, x in ipairs { { "a", pa, "A" }, { "b", pb, "B" } } do
    for _, p in ipairs(x[2]) do
      if short_errors(sat[x[1]], p, runs[x[1]], n and n[x[1]] or #x[2]) then
        out[#out + 1] = ("%s in %s"):format(fmt_load(p), x[3])
      end
    end
  end
  return out
end

-- Is either load point of a pair (pr: {a =, b =}) one a run answered short with failed requests
-- in bursts of server errors, kept in (short_errors)? sat, runs: as overloaded's. Where such a
-- load's requests are too dependent to test, the texts say that load's bursts, never "the
-- queue's doing" (README: failures are never a queue's unless they timed out; the row notes say
-- the load was kept in as "leaving no queue behind").
function M.pair_kept_bursts(pr, sat, runs)
  if not (sat and pr) then return false end
  runs = runs or {}
  return (pr.a and short_errors(sat.a, pr.a, runs.a, runs.na)) or (pr.b and short_errors(sat.b, pr.b, runs.b, runs.nb))
    or false
end

-- Why a latency's requests at some loads are too dependent to test, by what those loads were:
-- the queue's doing, or a load kept in though a run answered it short in bursts of server
-- errors (M.pair_kept_bursts). The stratified tests' lists, the CDF chart's notes and the
-- untested no-SLO figures say them.
M.DEPENDENT_QUEUE = "in send order neighbouring requests are alike, the queue's doing"
M.DEPENDENT_BURSTS = "in send order neighbouring requests are alike, at a load a run answered short with failed "
  .. "requests in bursts of server errors (the files record errors, no timeouts)"

-- What a row says of the loads kept (M.kept_bursts' list).
function M.kept_bursts_text(kept)
  return ("kept in: %s, answered short with failed requests in bursts of server errors (the files record errors, no "
    .. "timeouts), which leave no queue behind: the requests answered between the bursts are a server that kept up")
    :format(table.concat(kept, ", "))
end

-- The load points of a pair at which either run was overloaded (sat: {a =, b =}, each
-- llmd.loadpoints.saturation of its run's points): "a", "b", "both" or nil. runs ({a =, b =,
-- na =, nb =}: the run models and their numbers of load points): any load a run is not known
-- to have sustained (unsustained), the one rule of every stratified test (the requests'
-- latency, the error rate's counts, the repeats); without the run models a shortfall's
-- failures cannot be judged bursty, and such a load stays in.
local function overloaded(sat, pr, runs)
  if not sat then return nil end
  runs = runs or {}
  local a, b = unsustained(sat.a, pr.a, runs.a, runs.na), unsustained(sat.b, pr.b, runs.b, runs.nb)
  return a and b and "both" or a and "a" or b and "b" or nil, a, b
end

-- The kinds of failures (M.failures_kind's) of several load points as one: the one kind where
-- they agree, "errors_timeouts" for errors and timeouts, "unknown" where any is unknown.
function M.points_failures_kind(points)
  local seen, n = {}, 0
  for _, p in ipairs(points) do
    local k = M.failures_kind(p)
    if not seen[k] then seen[k], n = true, n + 1 end
  end
  if n == 0 or seen.unknown then return "unknown" end
  if n == 1 then return next(seen) end
  return "errors_timeouts"
end

-- What the failed requests of points came in bursts of, in words (M.SHORT_BURST_WORDS' cause
-- of M.points_failures_kind, over the points where some failed): "server errors, not a queue:
-- the files record errors, no timeouts", "a queue timing requests out", ...; nil where none
-- failed. The error rate's reasons say it where its requests are too dependent to test.
function M.bursts_cause(points)
  local failing = {}
  for _, p in ipairs(points or {}) do
    local t, e, u = lp.failure_counts(p)
    local v = p.values or {}
    if t + e + u > 0 or (tonumber(v.requests_failed) or 0) > 0 or (tonumber(v.error_rate_pct) or 0) > 0 then
      failing[#failing + 1] = p
    end
  end
  if #failing == 0 then return nil end
  return M.SHORT_BURST_WORDS[M.points_failures_kind(failing)].cause
end

-- The words for a load a run answered short, failed requests in bursts making up the rest
-- (unsustained's "short"), by what the files say those failures were (M.failures_kind): a
-- queue only where they timed out; bursts of server errors are no queue (fixl45 #2: the server
-- down 2 s in every 30, immediate 503s at half its capacity, was called "a queue timing requests
-- out" whose latencies "may measure the queue"). cause: what the failures were; count: why the
-- error rate's counts there are no test; latency: whose latencies the load's are.
M.SHORT_BURST_WORDS = {
  timeouts = { cause = "a queue timing requests out",
    count = "how many fail varies between runs beyond what one run's counts show",
    latency = "the latencies are those of the requests that outlasted the queue" },
  errors = { cause = "server errors, not a queue: the files record errors, no timeouts",
    count = "how many fail depends on how many bursts fall in a run and when, beyond what one run's counts show",
    latency = "the latencies are those of the requests answered between the bursts" },
  errors_timeouts = { cause = "server errors and timeouts: a crash or a queue",
    count = "how many fail varies between runs beyond what one run's counts show",
    latency = "the latencies are those of the requests that outlasted the failures" },
  unknown = { cause = "of a cause the files do not record",
    count = "how many fail varies between runs beyond what one run's counts show",
    latency = "the latencies are those of the requests that outlasted the failures" },
}

-- The words (M.SHORT_BURST_WORDS) for the loads two runs did not sustain, by what the files
-- say their failures were, where every such load (unsustained: of either run) was left out for
-- a short answer in bursts of failures that were not timeouts alone; nil where none was left
-- out, or any was past saturation, past a load that could not be judged, or every failure
-- there timed out: a queue's words then hold (M.LATENCY_UNSUSTAINED). sat: {a =, b =}, each
-- run's llmd.loadpoints.saturation; runs: {a =, b =} the run models; points: {a =, b =} their
-- load points. (fixb46: the Summary's "nothing could be tested" and the whole-run gap said
-- the queue's words of a server down 2 s in every 30 at a third of its capacity.)
function M.unsustained_burst_words(sat, runs, points)
  local short = {}
  for _, side in ipairs { "a", "b" } do
    local pts = points[side] or {}
    for _, p in ipairs(pts) do
      local why = unsustained(sat[side], p, runs[side], #pts)
      if why == "short" then short[#short + 1] = p elseif why then return nil end
    end
  end
  if #short == 0 then return nil end
  local kind = M.points_failures_kind(short)
  return kind ~= "timeouts" and M.SHORT_BURST_WORDS[kind] or nil
end

-- The left-out loads' failure kind (M.points_failures_kind) where every load a sustained_pairs
-- left out was left out for a short answer in bursts alone (none past saturation or unjudged),
-- keyed by its over table (over_text reads it; weak, so it goes with the table).
local OVER_SHORT = setmetatable({}, { __mode = "k" })

-- The loads of an over table left out because their run's saturation is unknown
-- (lp.point_unsustained's "unjudged"), keyed by it (weak): {all = every load left out was,
-- reasons = {a =, b =} each such run's saturation's reason}. Such a load is not known to be
-- sustained, never "overloaded" (tidy55: satur54's unknown-saturation loads read "where a run
-- was overloaded").
local OVER_UNJUDGED = setmetatable({}, { __mode = "k" })
local function unjudged_reason(s)
  if type(s) ~= "table" then return nil end
  if s.unknown and s.reason then return tostring(s.reason) end
  if type(s.unjudged) == "table" and s.unjudged.reason then return tostring(s.unjudged.reason) end
  return nil
end
-- (note: side "a" | "b" left out for why, its saturation s)
local function note_unjudged(acc, side, why, s)
  if why == "unjudged" then
    acc.any = true
    acc.reasons[side] = acc.reasons[side] or unjudged_reason(s) or "its saturation could not be judged"
  elseif why then
    acc.other = true
  end
end
local function keep_unjudged(over, acc)
  if acc.any then OVER_UNJUDGED[over] = { all = not acc.other, reasons = acc.reasons } end
end
-- The reasons of the unknown saturations an over table's loads were left out for: "A's saturation
-- is unknown: WHY"; nil where none.
local function unjudged_text(over)
  local u = type(over) == "table" and OVER_UNJUDGED[over]
  if not u then return nil end
  local ra, rb = u.reasons.a, u.reasons.b
  -- (one reason for both, said once)
  if ra and ra == rb then return ("A's and B's saturations are unknown: %s"):format(ra) end
  local parts = {}
  for _, x in ipairs { { "a", "A" }, { "b", "B" } } do
    if u.reasons[x[1]] then parts[#parts + 1] = ("%s's saturation is unknown: %s"):format(x[2], u.reasons[x[1]]) end
  end
  return table.concat(parts, "; ")
end
-- The loads of an over table that were left out as their run's saturation is unknown, in
-- words, for a sentence's "those figures pool ...": "load points not known to be sustained"
-- where every one was, "loads where a run was overloaded or its saturation is unknown" where
-- some were, and why ("A's saturation is unknown: WHY"); nil where none.
function M.pooled_unjudged_words(over)
  local u = type(over) == "table" and OVER_UNJUDGED[over]
  if not u then return nil end
  return u.all and "load points not known to be sustained"
    or "loads where a run was overloaded or its saturation is unknown", unjudged_text(over)
end
-- The scope's word for the loads left out of an over table (test_scope's groups)
local UNKNOWN_SAT_WHY, OVER_OR_UNKNOWN_WHY = "a run's saturation unknown", "a run overloaded or its saturation unknown"
local function over_why(over)
  local u = type(over) == "table" and OVER_UNJUDGED[over]
  return u and (u.all and UNKNOWN_SAT_WHY or OVER_OR_UNKNOWN_WHY) or OVERLOADED_WHY
end

-- (over_text's why of the loads the error rate's tests leave out: M.stratified_count_test's
-- and the one load point's, one_point_unsustained)
local COUNT_UNSUSTAINED = "how many requests an overloaded queue fails varies between runs beyond what one run's "
  .. "counts show"

-- The pairs of load points (M.paired_points) split by overloaded(sat, pr, runs): kept, the
-- ones both runs sustained; over = {a = {loads}, b = {loads}} (json arrays); over_loads,
-- the scope's texts ("10/s (A)"). Those left out make no tested winner, whatever the test.
-- (fixa44: before, the per-request latency test left out the saturated loads only, so it
-- could name a winner from a load a run answered short, its failures in bursts: the
-- latencies there are those of the requests that outlasted the queue.)
local function sustained_pairs(pairs_, sat, runs)
  local json = require "llmd.json"
  local kept, over, over_loads = {}, { a = json.array {}, b = json.array {} }, {}
  local short, short_only = {}, true
  local unj = { reasons = {} }
  for _, pr in ipairs(pairs_) do
    local ov, why_a, why_b = overloaded(sat, pr, runs)
    if ov then
      note_unjudged(unj, "a", why_a, sat.a)
      note_unjudged(unj, "b", why_b, sat.b)
      for _, x in ipairs { { why_a, pr.a }, { why_b, pr.b } } do
        if x[1] == "short" then short[#short + 1] = x[2] elseif x[1] then short_only = false end
      end
      if ov ~= "b" then over.a[#over.a + 1] = fmt_load(pr.a) end
      if ov ~= "a" then over.b[#over.b + 1] = fmt_load(pr.b) end
      over_loads[#over_loads + 1] = fmt_load(pr.a) .. (ov == "both" and "" or (" (%s)"):format(ov:upper()))
    else
      kept[#kept + 1] = pr
    end
  end
  if short_only and #short > 0 then OVER_SHORT[over] = M.points_failures_kind(short) end
  keep_unjudged(over, unj)
  return kept, over, over_loads
end

-- What a row's whole-run figures pool that its test left out (over: sustained_pairs' over,
-- a test's overloaded), by what the files say those loads' failures were (OVER_SHORT: every
-- one left out for a short answer in bursts that were not timeouts alone): "the whole-run
-- figures pool load points a run answered short, failed requests in bursts (of a cause the
-- files do not record) making up the rest", else a queue's words, "... where a run was
-- overloaded" (past saturation, unjudged, or timeouts). M.POOLED_OVER: what every one begins with.
M.POOLED_OVER = "the whole-run figures pool load points "
function M.pooled_over_text(over)
  -- (loads left out as their run's saturation is unknown: unknown, with why, never "overloaded")
  local u = type(over) == "table" and OVER_UNJUDGED[over]
  if u then
    return ("%s%s (%s)"):format(M.POOLED_OVER, u.all and "not known to be sustained"
      or "where a run was overloaded or its saturation is unknown", unjudged_text(over))
  end
  local kind = type(over) == "table" and OVER_SHORT[over] or nil
  if kind and kind ~= "timeouts" then
    return ("%sa run answered short, failed requests in bursts (%s) making up the rest"):format(M.POOLED_OVER,
      M.SHORT_BURST_WORDS[kind].cause)
  end
  return M.POOLED_OVER .. "where a run was overloaded"
end

-- The text of the loads sustained_pairs left out, for a test's left_out: "not sustained (WHY):
-- 10/s in A; 8/s in B"; nil where none.
local function over_text(over, why)
  if #over.a + #over.b == 0 then return nil end
  -- (every load left out for a short answer in bursts of failures that are not timeouts: what
  -- the files say they were, not a queue's: M.SHORT_BURST_WORDS)
  local kind = OVER_SHORT[over]
  if kind and kind ~= "timeouts" then
    local w = M.SHORT_BURST_WORDS[kind]
    why = why == COUNT_UNSUSTAINED and ("answered short, failed requests in bursts (%s) making up the rest: %s")
      :format(w.cause, w.count)
      or ("answered short, failed requests in bursts (%s) making up the rest, a load the tests leave out whatever "
        .. "the failures' cause: %s"):format(w.cause, w.latency)
  end
  local parts = {}
  if #over.a > 0 then parts[#parts + 1] = ("%s in A"):format(table.concat(over.a, ", ")) end
  if #over.b > 0 then parts[#parts + 1] = ("%s in B"):format(table.concat(over.b, ", ")) end
  local u = OVER_UNJUDGED[over]
  if u then
    return ("%s (%s; %s): %s"):format(u.all and "not known to be sustained" or "not sustained or not known to be",
      unjudged_text(over), why, table.concat(parts, "; "))
  end
  return ("not sustained (%s): %s"):format(why, table.concat(parts, "; "))
end

-- The loads a run is not known to have sustained (unsustained: past saturation, unjudged, or
-- answered short in bursts of a queue's failures) among the load points its whole-run figures
-- pool, where a run has several: over = {a = {loads}, b = {loads}} (json arrays, as a test's
-- overloaded, so M.pooled_over_text words it alike), or nil where none or each run is one
-- load point (its one point is the figure: no pooling). pa, pb: the runs' load points; sat:
-- {a =, b =} their saturations; runs: {a =, b =} the run models. A whole-run figure over such
-- loads mixes in how many of them overloaded each run, so it is no like-for-like figure,
-- tested or not (newuser48 F1: TTFT p50 -98.5 % "untested" over 3 overloaded loads of A).
function M.pooled_overloaded(pa, pb, sat, runs)
  if not sat or (#pa <= 1 and #pb <= 1) then return nil end
  local json = require "llmd.json"
  local over = { a = json.array {}, b = json.array {} }
  local short, short_only = {}, true
  local unj = { reasons = {} }
  for _, x in ipairs { { "a", pa }, { "b", pb } } do
    for _, p in ipairs(x[2]) do
      local why = unsustained(sat[x[1]], p, runs and runs[x[1]], #x[2])
      note_unjudged(unj, x[1], why, sat[x[1]])
      if why then
        over[x[1]][#over[x[1]] + 1] = fmt_load(p)
        if why == "short" then short[#short + 1] = p else short_only = false end
      end
    end
  end
  if #over.a + #over.b == 0 then return nil end
  if short_only and #short > 0 then OVER_SHORT[over] = M.points_failures_kind(short) end
  keep_unjudged(over, unj)
  return over
end

-- What a whole-run row pooled over such loads (M.pooled_overloaded's over) says: "the
-- whole-run figures pool load points where a run was overloaded (120/s, 160/s in A; 200/s
-- in B), so they are not comparable" (bare: without ", so they ...").
function M.pooled_overloaded_text(over, bare)
  local parts = {}
  if #over.a > 0 then parts[#parts + 1] = ("%s in A"):format(table.concat(over.a, ", ")) end
  if #over.b > 0 then parts[#parts + 1] = ("%s in B"):format(table.concat(over.b, ", ")) end
  local u = OVER_UNJUDGED[over]
  if u then
    -- (the loads and the unknown saturations' reasons in one parenthesis)
    return ("%s%s (%s; %s)%s"):format(M.POOLED_OVER, u.all and "not known to be sustained"
      or "where a run was overloaded or its saturation is unknown", table.concat(parts, "; "),
      unjudged_text(over), bare and "" or ", so they are not comparable")
  end
  return ("%s (%s)%s"):format(M.pooled_over_text(over), table.concat(parts, "; "),
    bare and "" or ", so they are not comparable")
end

-- A load point's counts of failed and completed requests: its stages' (the repeats')
-- summed; nil when a stage does not know them.
local function point_counts(run, p)
  local ok, failed = 0, 0
  for _, idx in ipairs(p.stages or {}) do
    local v
    for _, st in ipairs(run.stages or {}) do
      if st.index == idx then v = st.metrics and st.metrics.values end
    end
    if not (v and v.requests_ok and v.requests_failed) then return nil end
    ok, failed = ok + v.requests_ok, failed + v.requests_failed
  end
  if #(p.stages or {}) == 0 then return nil end
  return ok, failed
end

-- The error rate's test where failures come in bursts (a queue that times requests out near
-- saturation fails dozens in a row): strata {xa, na, xb, nb, d}, d the design effect of the
-- failure indicator (1 failed, 0 completed) in send order (the sides' larger, as
-- M.u_design_effect). Fisher's exact test takes every request for an independent draw; here
-- each stratum's hypergeometric variance of A's failures, na nb m (N - m) / (N^2 (N - 1)),
-- is multiplied by its d: the Cochran-Mantel-Haenszel statistic, normal, with the effective
-- counts (the counts divided by d give the same z). Returns {test = "cmh", z (> 0: A fails
-- more), p, deff (the largest d), the totals and pooled rates as fisher_exact's, and the
-- Mantel-Haenszel weighted rates mh_rate_a, mh_rate_b (fractions)}, or nil where no stratum
-- has both a failure and a completed request.
function M.dependent_count_test(strata)
  local num, var, dmax = 0, 0, 1
  local xa, na, xb, nb, wsum, wa, wb = 0, 0, 0, 0, 0, 0, 0
  for _, st in ipairs(strata) do
    local a, n1, b, n2, d = st[1], st[2], st[3], st[4], math.max(1, st[5] or 1)
    local n, m = n1 + n2, a + b
    xa, na, xb, nb = xa + a, na + n1, xb + b, nb + n2
    local w = n1 * n2 / n
    wsum, wa, wb = wsum + w, wa + w * a / n1, wb + w * b / n2
    if m > 0 and m < n then
      num = num + a - n1 * m / n
      var = var + d * n1 * n2 * m * (n - m) / (n * n * (n - 1))
      if d > dmax then dmax = d end
    end
  end
  if var <= 0 then return nil end
  local z = num / math.sqrt(var)
  return { test = "cmh", z = z, p = stattest.normal_two_sided(z), deff = dmax, strata = #strata, x_a = xa, n_a = na,
    x_b = xb, n_b = nb, rate_a = xa / na, rate_b = xb / nb, mh_rate_a = wa / wsum, mh_rate_b = wb / wsum }
end

-- The error rate's test when a run has several load points: the exact test stratified by
-- load point (llmd.stattest.stratified_exact), each stratum a pair of points at the same
-- load (M.paired_points) with its repeats' counts summed. Pooling the counts over the load
-- points instead would compare the runs' mix of loads as much as the runs: A with 3 repeats
-- at a load where nothing fails and 1 at one where 5 % fail, B the other way round, differ
-- in the pooled rate (3.1 % against 4.7 %) with identical rates at every load. Points of
-- one run at a load the other did not measure are left out (left_out: their texts).
-- Returns the test (fisher fields, strata, mh_rate_a and mh_rate_b in %: the weighted
-- rates whose difference is the Mantel-Haenszel rate difference, left_out), {test =
-- "identical", ...} when no request failed in either run's paired points (or all did), or
-- nil and why. sat ({a =, b =}: the runs' llmd.loadpoints.saturation): the loads a run is
-- not known to have sustained are left out (overloaded, sustained_pairs; overloaded = {a =,
-- b =}, their loads): past saturation, or where failed requests made up a shortfall of
-- successful answers, how many requests an overloaded queue fails (client timeouts) varies
-- between runs far beyond what one run's counts and their design effect show (audit43: 2 to
-- 49 of 600 at one load over 26 runs of one server, variance 7 times the binomial), so a
-- difference there is no evidence; the failures stay in the figures, the capacity and the
-- causes. Where both runs repeated such a load, the repeats' spread is no more use here:
-- the test's units are requests.
-- (over_text's why of these loads: COUNT_UNSUSTAINED, above)
function M.stratified_count_test(ra, rb, pa, pb, sat)
  local pairs_, left = M.paired_points(pa, pb)
  if #pairs_ == 0 then return nil, "no load point of one run is at a load the other measured" end
  local strata, fa, na, fb, nb = {}, 0, 0, 0, 0
  local dependent, bursty, tested, empty, unmeasured, dep_points = {}, false, {}, {}, false, {}
  local kept, over, over_loads = sustained_pairs(pairs_, sat, { a = ra, b = rb, na = #pa, nb = #pb })
  for _, pr in ipairs(kept) do
    local oa, xa = point_counts(ra, pr.a)
    local ob, xb = point_counts(rb, pr.b)
    if not (oa and ob) then
      return nil, "the counts of failed and completed requests are not known at every load point of both runs"
    end
    if oa + xa > 0 and ob + xb > 0 then
      -- failures in bursts (the failure indicator's design effect in send order, M.point_deff)
      local d = M.u_design_effect(M.point_deff(ra, pr.a, "failed", #pa), M.point_deff(rb, pr.b, "failed", #pb))
      if M.dependence_reason(oa + xa, ob + xb, d) then
        dependent[#dependent + 1] = fmt_load(pr.a)
        dep_points[#dep_points + 1], dep_points[#dep_points + 2] = pr.a, pr.b
        unmeasured = unmeasured or M.deff_unmeasured(math.min(oa + xa, ob + xb), d)
      else
        if d > 1 then bursty = true end
        strata[#strata + 1] = { xa, oa + xa, xb, ob + xb, d }
        tested[#tested + 1] = fmt_load(pr.a)
        fa, na, fb, nb = fa + xa, na + oa + xa, fb + xb, nb + ob + xb
      end
    else
      empty[#empty + 1] = fmt_load(pr.a)
    end
  end
  local texts = {}
  if #dependent > 0 then
    -- (their failures' bursts by what the files say they were, M.bursts_cause: a queue's only
    -- where they timed out)
    texts[#texts + 1] = ("too dependent to test (in send order failed requests come in bursts (%s): "
      .. "fewer than %d independent requests' worth%s): %s"):format(M.bursts_cause(dep_points) or "a queue timing "
      .. "requests out", M.MIN_EFFECTIVE, unmeasured and (", or fewer "
      .. "than %d requests alike to their neighbours, too few to measure how many they carry"):format(M.DEFF_MIN_N)
      or "", table.concat(dependent, ", "))
  end
  if #left > 0 then texts[#texts + 1] = ("measured by one run only: %s"):format(table.concat(left, ", ")) end
  texts[#texts + 1] = over_text(over, COUNT_UNSUSTAINED)
  local left_text = #texts > 0 and ("left out, " .. table.concat(texts, "; left out, ")) or nil
  if #kept == 0 then return nil, ("no load point both runs sustained (%s)"):format(left_text) end
  if #strata == 0 and #dependent > 0 then return nil, ("no load point to test (%s)"):format(left_text) end
  if #strata == 0 then return nil, "no load point at which both runs finished a request" end
  local function with_dependent(r)
    if #dependent > 0 then r.dependent, r.sustained_strata = dependent, #strata + #dependent end
    return r
  end
  local where = #over_loads > 0 and "sustained by both" or "both measured"
  local scope = test_scope(tested, #pairs_, left, { { "too dependent to test", dependent },
    { over_why(over), over_loads }, { "no requests counted in a run", empty } })
  if fa + fb == 0 or fa + fb == na + nb then
    return { test = "identical", identical = true, n_a = na, n_b = nb, scope = scope,
      overloaded = #over_loads > 0 and over or nil, left_out = left_text,
      note = ("%s at the %d load points %s (%d of %d and %d of %d failed): no test%s"):format(
        fa + fb == 0 and "no request failed in either run" or "every request failed in both runs", #strata, where,
        fa, na, fb, nb, left_text and ("; " .. left_text) or "") }
  end
  -- every load point all-or-none alike in both runs (no request failed in either, or every
  -- one did): the same rate at every load point, and no split within one: no test
  local alike = true
  for _, st in ipairs(strata) do
    if not ((st[1] == 0 and st[3] == 0) or (st[1] == st[2] and st[3] == st[4])) then alike = false end
  end
  if alike then
    return { test = "identical", identical = true, n_a = na, n_b = nb, scope = scope,
      overloaded = #over_loads > 0 and over or nil, left_out = left_text,
      note = ("at each of the %d load points %s either no request failed in both runs or every one did "
        .. "(%d of %d and %d of %d failed in all): the same rate at every load point, no test%s"):format(#strata,
        where, fa, na, fb, nb, left_text and ("; " .. left_text) or "") }
  end
  local r
  if bursty then
    r = M.dependent_count_test(strata)
    if not r then return nil, "no load point at which both runs' requests are not all one outcome" end
  else
    r = stattest.stratified_exact(strata)
  end
  r.mh_rate_a, r.mh_rate_b = r.mh_rate_a * 100, r.mh_rate_b * 100
  r.left_out = left_text
  r.overloaded = #over_loads > 0 and over or nil
  r.scope = scope
  r.counts = strata
  return with_dependent(r)
end

-- A load point's per-request samples of one kind: its stage's, or its repeats' merged into
-- one accumulator; a run whose one load point is its one measured stage has them as the
-- whole run's (per-request data read as a whole, inference-perf's). nil when a stage has none.
-- A load point's design effect of one kind (M.design_effect, its stages' largest); 1 when
-- not known (point_deff_known: and whether any was known). kind: a key of sample_deff
-- (llmd.runmodel.sample_design_effects: "ttft", ..., "ttft_mean" the values' own, ...).
local function point_deff_known(run, p, kind, n_points)
  local d, known = 1, false
  for _, idx in ipairs(p.stages or {}) do
    local x
    for _, st in ipairs(run.stages or {}) do
      if st.index == idx and st.metrics and st.metrics.sample_deff then x = st.metrics.sample_deff[kind] end
    end
    if not x and n_points == 1 and #(p.stages or {}) == 1 and run.overall and run.overall.sample_deff then
      x = run.overall.sample_deff[kind]
    end
    if x then known = true end
    if x and x > d then d = x end
  end
  return d, known
end
function M.point_deff(run, p, kind, n_points)
  return (point_deff_known(run, p, kind, n_points))
end
-- The TTFTs' lag-1 correlation where they left a load point's E2E or NTPOT (kind) dependence
-- unmeasured (llmd.runmodel.sample_design_effects' <kind>_ttft_lag1), for the reason a test
-- gives (M.dependence_reason's via); nil where its own values' left it so, or it is measured.
-- (A point of several stages: nil; the most dependent stage bounds it, whosever it is.)
function M.point_ttft_lag1(run, p, kind, n_points)
  if #(p.stages or {}) ~= 1 then return nil end
  local key = kind .. "_ttft_lag1"
  for _, st in ipairs(run.stages or {}) do
    if st.index == p.stages[1] and st.metrics and st.metrics.sample_deff then return st.metrics.sample_deff[key] end
  end
  if n_points == 1 and run.overall and run.overall.sample_deff then return run.overall.sample_deff[key] end
end
-- (the one rule every test at a load point reads, the Summary's at the matched load too,
-- llmd.report matched_point: a point of several stages tests their samples merged,
-- point_samples, whose dependence the most dependent stage bounds; its first stage's alone
-- understates it where a later repeat queued, fixe45)
M.point_deff_known = point_deff_known

local function point_samples(run, p, kind, n_points)
  local got = {}
  for _, idx in ipairs(p.stages or {}) do
    local acc
    for _, st in ipairs(run.stages or {}) do
      if st.index == idx and st.metrics and st.metrics.samples then acc = st.metrics.samples[kind] end
    end
    if not acc then
      if n_points == 1 and #(p.stages or {}) == 1 and run.overall.samples then
        acc = run.overall.samples[kind]
      end
      if not acc then return nil end
    end
    got[#got + 1] = acc
  end
  if #got == 0 then return nil end
  if #got == 1 then return got[1] end
  local ok, merged = pcall(function()
    local m = stats.new()
    for _, acc in ipairs(got) do m:merge(acc) end
    return m
  end)
  return ok and merged or nil
end
M.point_samples, M.load_point_text = point_samples, fmt_load

-- The latency rows' test when a run has several load points: van Elteren's stratified
-- rank-sum test (van Elteren 1960), each stratum a pair of load points at the same load
-- (M.paired_points) with its repeats' samples merged. Per stratum k, A's Mann-Whitney U_k
-- and its tie-corrected null variance V_k (llmd.stats.mann_whitney); the statistic sums
-- (U_k - n_a n_b / 2) / (N_k + 1) over the strata, its variance V_k / (N_k + 1)^2, and z
-- is their ratio (normal, two-sided). Mann-Whitney on the samples pooled over the load
-- points instead compares each run's mix of loads: with latency rising with load, the run
-- with more repeats at the light loads is "faster" at every load at which both are the
-- same. A stratum whose samples are all one value carries no information and is skipped.
-- With at most llmd.stattest.EXACT_MAX (60) requests in all, as the unstratified test, p
-- is the exact one (llmd.stattest.exact_van_elteren: every split of each stratum's values,
-- the same weights): exact = true, p_min, p_normal (the approximation's); the normal
-- approximation misstates a small sample's p, as it does unstratified.
-- Returns {test = "mann_whitney", p, z (> 0: A's values larger, as the unstratified
-- test's), strata, left_out}, or nil and why.
-- Why the latency tests leave out the loads a run did not sustain (over_text's why).
-- (the requests' and the repeats' alike)
M.LATENCY_UNSUSTAINED = "past saturation, or past a load whose saturation could not be judged, the latency may "
  .. "measure the queue, which grows with time; where failed requests in bursts made up a shortfall, it is that of "
  .. "the requests that outlasted the queue"
-- only (optional): a predicate on a pair; the pairs it refuses are not this test's (the
-- loads both runs repeated, which a mixed test weighs over their repeats: M.row_test), and
-- tested_pairs keeps the places in M.paired_points' whole list (M.stratified_effect's).
function M.stratified_mann_whitney(ra, rb, pa, pb, kind, sat, only)
  local all_pairs, left = M.paired_points(pa, pb)
  local pairs_ = all_pairs
  if only then
    pairs_ = {}
    for _, pr in ipairs(all_pairs) do if only(pr) then pairs_[#pairs_ + 1] = pr end end
  end
  if #pairs_ == 0 then return nil, "no load point of one run is at a load the other measured" end
  local num, var, used = 0, 0, 0
  -- each stratum's values for the exact test, while there are few enough in all
  local small, n_all = {}, 0
  -- (over's two lists: [] in comparison.json where one side has none, never {})
  -- (past saturation the latency is the queue's length, which grows with time; where a
  -- shortfall's failures came in bursts, the requests timed are those that outlasted the
  -- queue: no test, the rule of every stratified test, sustained_pairs)
  local kept, over, over_loads = sustained_pairs(pairs_, sat, { a = ra, b = rb, na = #pa, nb = #pb })
  local deff_max, dependent, unmeasured = 1, {}, false
  -- (those of the dependent loads a run answered short in bursts of server errors, kept in:
  -- never "the queue's doing", M.pair_kept_bursts)
  local dep_bursts, dep_queue = {}, {}
  local runs_ = { a = ra, b = rb, na = #pa, nb = #pb }
  -- (the scope's lists, test_scope: loads tested, overloaded, with nothing to rank)
  local tested, blank = {}, {}
  -- the pairs tested (their places in M.paired_points' list) and each one's design effect,
  -- for the rows' effect sizes (M.stratified_effect)
  local place, tested_pairs, tested_deff = {}, {}, {}
  for i, pr in ipairs(all_pairs) do place[pr] = i end
  for _, pr in ipairs(kept) do
    local xa, xb = point_samples(ra, pr.a, kind, #pa), point_samples(rb, pr.b, kind, #pb)
    if not (xa and xb) then return nil, "no per-request samples at every load point of both runs" end
    n_all = n_all + xa:count() + xb:count()
    if small and n_all <= stattest.EXACT_MAX then
      local va, vb = xa:values(stattest.EXACT_MAX), xb:values(stattest.EXACT_MAX)
      if va and vb then small[#small + 1] = { a = va, b = vb } else small = nil end
    else
      small = nil
    end
    local r
    if xa:count() > 0 and xb:count() > 0 then
      local ok
      ok, r = pcall(stats.mann_whitney, xa, xb)
      if not ok then return nil, "no per-request samples at every load point of both runs" end
    end
    if not r then
      blank[#blank + 1] = fmt_load(pr.a)
    else
      local n = r.n1 + r.n2
      -- the requests' dependence in send order inflates this stratum's variance
      local d = M.u_design_effect(M.point_deff(ra, pr.a, kind, #pa), M.point_deff(rb, pr.b, kind, #pb))
      -- (ITL: the requests' dependence, on the requests' count: its gaps are declustered
      -- to one unit a request after the sum, row_test)
      local n1, n2 = r.n1, r.n2
      if kind == "itl" then n1, n2 = point_counts(ra, pr.a) or 0, point_counts(rb, pr.b) or 0 end
      if M.dependence_reason(n1, n2, d) then
        -- too dependent to test here: left out, as an overloaded point
        dependent[#dependent + 1] = fmt_load(pr.a)
        local group = M.pair_kept_bursts(pr, sat, runs_) and dep_bursts or dep_queue
        group[#group + 1] = fmt_load(pr.a)
        unmeasured = unmeasured or M.deff_unmeasured(math.min(n1, n2), d)
        small = nil
      else
        if d > deff_max then deff_max = d end
        tested_pairs[#tested_pairs + 1], tested_deff[#tested_deff + 1] = place[pr], d
        tested[#tested + 1] = fmt_load(pr.a)
        num = num + (r.u - r.n1 * r.n2 / 2) / (n + 1)
        var = var + r.var * d / ((n + 1) * (n + 1))
        used = used + 1
      end
    end
  end
  local texts = {}
  for _, g in ipairs { { M.DEPENDENT_QUEUE, dep_queue }, { M.DEPENDENT_BURSTS, dep_bursts } } do
    if #g[2] > 0 then
      texts[#texts + 1] = ("too dependent to test (%s: fewer than %d independent requests' worth%s): %s"):format(g[1],
        M.MIN_EFFECTIVE, unmeasured and (", or fewer than %d requests alike to their neighbours, too few to measure "
        .. "how many they carry"):format(M.DEFF_MIN_N) or "", table.concat(g[2], ", "))
    end
  end
  if #left > 0 then texts[#texts + 1] = ("measured by one run only: %s"):format(table.concat(left, ", ")) end
  texts[#texts + 1] = over_text(over, M.LATENCY_UNSUSTAINED)
  local left_text = #texts > 0 and ("left out, " .. table.concat(texts, "; left out, ")) or nil
  if #kept == 0 then
    return nil, ("no load point both runs sustained (%s)"):format(left_text or "none")
  end
  if used == 0 and #dependent > 0 then return nil, ("no load point to test (%s)"):format(left_text) end
  if var <= 0 or var ~= var then return nil, "no load point at which both runs' samples are not all one value" end
  local z = num / math.sqrt(var)
  local r = { test = "mann_whitney", name = "van_elteren", z = z, p = stattest.normal_two_sided(z), strata = used,
    left_out = left_text, overloaded = (#over.a + #over.b > 0) and over or nil,
    deff = deff_max > 1 and deff_max or nil,
    -- the loads both runs sustained that the test could not cover (M.verdict: no sameness
    -- is said of figures that pool them)
    dependent = #dependent > 0 and dependent or nil, sustained_strata = #kept,
    dependent_bursts = #dep_bursts > 0 and dep_bursts or nil,
    tested_pairs = tested_pairs, tested_deff = tested_deff,
    scope = test_scope(tested, #pairs_, left, { { "too dependent to test", dependent },
      { over_why(over), over_loads }, { "nothing to rank (no requests, or all one value)", blank } }) }
  local e = small and deff_max <= 1 and stattest.exact_van_elteren(small)
  if e then r.p_normal, r.p, r.p_min, r.exact, r.n_requests = r.p, e.p, e.p_min, true, n_all end
  return r
end

-- The two-sided level of an effect's interval (M.stratified_effect) and its normal quantile:
-- those of a percentile's interval (llmd.loadpoints.percentile_ci), which gives its ends.
M.EFFECT_LEVEL = 95
local EFFECT_Z = lp.SLO_CI_Z

-- An accumulator's figure of key (its mean, or its percentile: tpot_p90_ms -> 90,
-- ttft_p999_ms -> 99.9) and that figure's standard error, d the requests' design effect in
-- send order (dependent requests are fewer independent ones). A percentile's: its 95 %
-- interval by llmd.loadpoints.percentile_ci (the order statistics at q -+ z sqrt(d q (1 -
-- q) / n), the one definition the capacity's SLO points use), its width over 2 z; nil where
-- an end falls off the sample (p99.9 of 500 requests: no bound from the data) or the
-- requests carry fewer than llmd.loadpoints.SLO_CI_MIN_EFFECTIVE independent ones. The
-- mean's: the sample standard deviation over the square root of n / d, under the same floor.
-- Its third value: the standard error of the figure's log (a percentile's: its interval's
-- width on the log scale over 2 z; the mean's: its standard error over the mean), for the
-- interval of a ratio (ratio_interval); nil where the figure is not above 0.
local function figure_se(acc, key, kind, d)
  local n = acc:count()
  if n < 2 then return nil end
  if key:match("_mean_ms$") then
    local sd = acc:sample_stddev()
    if not sd or n / d < lp.SLO_CI_MIN_EFFECTIVE then return acc:mean(), nil end
    local m, se = acc:mean(), sd / math.sqrt(n / d)
    return m, se, m > 0 and se / m or nil
  end
  local _, pct = lp.percentile_key(key)
  if not pct then return nil end
  local v = acc:percentile(pct)
  -- (percentile_ci reads ms figures of seconds' samples: v * 1000, its ends in ms)
  local lo, hi = lp.percentile_ci({ values = { [key] = v * 1000 },
    per_request = { samples = { [kind] = acc }, deff = { [kind] = d } } }, key)
  if not lo or lo <= 0 or hi == math.huge then return v, nil end
  return v, (hi - lo) / 1000 / (2 * EFFECT_Z), (math.log(hi) - math.log(lo)) / (2 * EFFECT_Z)
end

-- The interval of a relative effect (M.effect_pct's: B against A, 100 (r - 1) of the ratio
-- r = b / a) computed as the interval of that ratio: on the log scale, around the log ratio
-- l, l -+ q se_log (se_log: the standard error of the log ratio, by the delta method:
-- sqrt(se(log a)^2 + se(log b)^2)), its ends taken back to the effect's scale, 100 (exp(l -+
-- q se_log) - 1). So it is asymmetric and never below -100 %, what a ratio of positive
-- figures can be: verify42's "-23.2 % (95 % interval -119.6 % to +73.3 %)" was the estimate
-- -+ q se on the effect's own scale, which a wide interval carries past any ratio. Returns
-- lo, hi.
local function ratio_interval(l, se_log, q)
  local h = q * se_log
  return 100 * (math.exp(l - h) - 1), 100 * (math.exp(l + h) - 1)
end

-- The interval of a relative effect where a figure is not above 0 (no ratio to take the log
-- of): the difference's interval, est -+ h (h: q times its standard error, in the figures'
-- unit) over A's figure base, its lower end at -100 % at the least (B's figure is not below
-- 0 either). Returns lo, hi.
local function linear_interval(pct, h, base)
  return math.max(-100, pct - h / base * 100), pct + h / base * 100
end

-- The requests a load point needs for key's figure to have a standard error (figure_se) at
-- design effect d: the floor of llmd.loadpoints.SLO_CI_MIN_EFFECTIVE independent requests,
-- and for a percentile both order statistics of its interval inside the sample (ranks
-- floor(n q - h) >= 1 and ceil(n q + h) <= n, h = z sqrt(n d q (1 - q)): about z^2 d q /
-- (1 - q) for a tail, 380 d for p99). nil for a key that is neither.
function M.requests_needed(key, d)
  d = math.max(1, d or 1)
  local floor_n = math.ceil(lp.SLO_CI_MIN_EFFECTIVE * d)
  if key:match("_mean_ms$") then return floor_n end
  local _, pct = lp.percentile_key(key)
  if not pct then return nil end
  local q = pct / 100
  local function bounded(n)
    local h = EFFECT_Z * math.sqrt(n * d * q * (1 - q))
    return n / d >= lp.SLO_CI_MIN_EFFECTIVE and math.floor(n * q - h) >= 1 and math.ceil(n * q + h) <= n
  end
  -- (from n0, 0.9 of the tail's estimate, each condition only grows with n: n q - h rises
  -- once n > z^2 d (1 - q) / (4 q), n (1 - q) - h once n > z^2 d q / (4 (1 - q)), both below
  -- n0; so the first n at or past n0 that holds is found by doubling steps, then halving
  -- them: the one a walk one by one finds, where that walk, 10^6 steps at most, found none
  -- for a p99.9 at a design effect past ~2,600, long outputs' token gaps; speed43d)
  local n = math.max(floor_n, math.floor(0.9 * EFFECT_Z * EFFECT_Z * d * math.max(q / (1 - q), (1 - q) / q)))
  if bounded(n) then return n end
  local step = 1
  while not bounded(n + step) do
    n = n + step
    step = step * 2
    if n > 2 ^ 52 then return nil end
  end
  -- bounded(n + step) holds, bounded(n) does not
  while step > 1 do
    local half = step // 2
    if bounded(n + half) then step = half else n, step = n + half, step - half end
  end
  return n + step
end

-- A row's effect and its interval from per-request samples, strata {{xa =, xb = (the two
-- runs' accumulators at one load point), d = the design effect the test used there, per =
-- samples a request (ITL's gaps; 1 else)}, ...}: at each point the effect of key's figure
-- (M.effect_pct: B against A), over the points 100 (exp(L) - 1) of their log ratios' mean L
-- weighted n_a n_b / (n_a + n_b) (the error rate's Mantel-Haenszel weights); its interval
-- the log ratio's, L -+ z sqrt(sum w^2 se^2) / sum w, se a point's standard error of the
-- log ratio (figure_se of each side; ratio_interval), EFFECT_LEVEL two-sided; where a
-- figure is not above 0, of the weighted figures' difference over A's (linear_interval). One
-- stratum is a whole run's samples at its one load point. Where a point's figure has no
-- standard error the interval is unbounded: then need (the requests a load point would
-- need, M.requests_needed, the most over the points) and fewest (the fewest it had).
-- Returns {pct, lo, hi, strata, level, need, fewest, mean_deff = "values" (a mean's interval
-- from its values' own design effect at every point; "ranks": the test's, where a run lacks
-- them, as a test's made-up one)}, or nil where a figure is unknown.
local sample_effect
-- The same of one load point's samples (xa, xb: the two runs' accumulators of key's kind; d:
-- the design effect the test used; per: ITL's gaps a request; dm: the values' own, a mean's,
-- dq: a percentile's indicator's (M.quantile_design_effects), each nil where unknown): the
-- Summary's test at the matched load.
function M.samples_effect(key, xa, xb, d, per, dm, dq)
  local kind = M.sample_kind(key)
  if not (kind and xa and xb) then return nil end
  return sample_effect(key, kind, { { xa = xa, xb = xb, d = math.max(1, d or 1) * (per or 1), per = per or 1,
    dm = dm and math.max(1, dm) * (per or 1), dq = dq and math.max(1, dq) } })
end
function sample_effect(key, kind, strata)
  -- (sums over the points: sw of the weights, swr of the weighted log ratios (nil once a
  -- figure is not above 0), swl of their variances; swa of A's weighted figures, swd of the
  -- weighted differences and swv of their variances, for figures not above 0)
  local sw, swr, swl, swa, swd, swv, bounded = 0, 0, 0, 0, 0, 0, true
  local need, fewest
  local mean, own = key:match("_mean_ms$") ~= nil, true
  for _, st in ipairs(strata) do
    -- (one design effect for both sides, st.d: the larger of the two runs' at this point, the
    -- test's, M.u_design_effect; a mean's st.dm, its values' own, where known: the ranks'
    -- understates a mean's, M.value_design_effect; README says so)
    local d = mean and st.dm or st.d
    -- (a percentile's: the larger of that and its indicator's, st.dq, where known: fixe45)
    if not mean and st.dq then d = math.max(d, st.dq) end
    own = own and st.dm ~= nil
    local fa, sa, la = figure_se(st.xa, key, kind, d)
    local fb, sb, lb = figure_se(st.xb, key, kind, d)
    if fa == nil or fb == nil then return nil end
    local na, nb = st.xa:count(), st.xb:count()
    local w = na * nb / (na + nb)
    sw, swa, swd = sw + w, swa + w * fa, swd + w * (fb - fa)
    swr = swr and fa > 0 and fb > 0 and swr + w * math.log(fb / fa) or nil
    if sa and sb then
      swv = swv + w * w * (sa * sa + sb * sb)
      -- (the log ratio's, ratio_interval; nil once a figure is not above 0)
      swl = swl and la and lb and swl + w * w * (la * la + lb * lb) or nil
    else
      bounded = false
      local per = st.per or 1
      local n = M.requests_needed(key, d)
      if n then need = math.max(need or 0, math.ceil(n / per)) end
      local few = math.floor(math.min(na, nb) / per + 0.5)
      fewest = math.min(fewest or few, few)
    end
  end
  if sw <= 0 then return nil end
  -- the effect: B against A of the points' weighted mean log ratio (a ratio's mean that
  -- swapping the runs only inverts), or, where a figure is not above 0, of the weighted
  -- figures (N/A where A's are 0)
  local r = { strata = #strata, level = M.EFFECT_LEVEL, scale = M.EFFECT_SCALE,
    mean_deff = mean and (own and "values" or "ranks") or nil }
  if swr then
    r.pct = 100 * (math.exp(swr / sw) - 1)
  elseif swd == 0 then
    r.pct = 0
  elseif swa > 0 then
    r.pct = swd / swa * 100
  else
    return nil
  end
  if bounded then
    -- the interval of a ratio (ratio_interval); of the difference over A's figure where a
    -- figure is not above 0 (linear_interval)
    if swr and swl then
      r.lo, r.hi = ratio_interval(swr / sw, math.sqrt(swl) / sw, EFFECT_Z)
    elseif swa > 0 then
      r.lo, r.hi = linear_interval(r.pct, EFFECT_Z * math.sqrt(swv) / sw, swa / sw)
    end
  else
    r.need, r.fewest = need, fewest
  end
  return r
end

-- The size of the difference a stratified test (M.stratified_mann_whitney's test, its
-- tested_pairs and tested_deff) found in row key: at each load point it tested, the effect
-- of key's figure there from that point's samples, and over the points their weighted
-- mean, so that the rows' effect is the difference within the loads the test compared,
-- never the whole-run figures', which pool the loads (and the overloaded ones the test left
-- out); its interval as sample_effect's (ITL's standard errors inflated by the gaps per
-- request, as its test is). Returns {pct, lo, hi (nil where a point's figure has no
-- standard error), strata, level, where, need, fewest}, or nil where a point's samples or
-- figures are unknown.
function M.stratified_effect(key, ra, rb, pa, pb, test)
  local kind = M.sample_kind(key)
  if not (kind and test and test.tested_pairs and #test.tested_pairs > 0) then return nil end
  local pairs_ = M.paired_points(pa, pb)
  local strata = {}
  for i, idx in ipairs(test.tested_pairs) do
    local pr = pairs_[idx]
    local xa = pr and point_samples(ra, pr.a, kind, #pa)
    local xb = pr and point_samples(rb, pr.b, kind, #pb)
    if not (xa and xb) then return nil end
    local per = kind == "itl" and test.gaps_per_request or 1
    -- (a mean's: its values' own design effect, the larger side's, where both runs have it)
    local ma, ka = point_deff_known(ra, pr.a, kind .. "_mean", #pa)
    local mb, kb = point_deff_known(rb, pr.b, kind .. "_mean", #pb)
    -- (a percentile's: its indicator's, the larger side's, where both runs have it)
    local qk = M.quantile_deff_key(key)
    local qa, qka = point_deff_known(ra, pr.a, qk or "", #pa)
    local qb, qkb = point_deff_known(rb, pr.b, qk or "", #pb)
    strata[i] = { xa = xa, xb = xb, d = (test.tested_deff and test.tested_deff[i] or 1) * per, per = per,
      dm = ka and kb and M.u_design_effect(ma, mb) * per or nil,
      dq = qk and qka and qkb and M.u_design_effect(qa, qb) or nil }
  end
  local r = sample_effect(key, kind, strata)
  if r then r.where = "within the load points tested" end
  return r
end

-- The same for a row tested on the whole runs' samples at their one load point each (test:
-- M.mann_whitney's or M.itl_test's): one stratum, the design effect the test used (the
-- larger of the two runs', at least 1; ITL's times its gaps per request). The row's figure
-- there is the whole run's, so the effect is the row's Delta, said without a "where".
function M.one_point_effect(key, ra, rb, test)
  local kind = M.sample_kind(key)
  local sa, sb = ra.overall.samples, rb.overall.samples
  if not (kind and test and sa and sb and sa[kind] and sb[kind]) then return nil end
  local da, db = ra.overall.sample_deff and ra.overall.sample_deff[kind],
    rb.overall.sample_deff and rb.overall.sample_deff[kind]
  local per = kind == "itl" and test.gaps_per_request or 1
  local ma, mb = ra.overall.sample_deff and ra.overall.sample_deff[kind .. "_mean"],
    rb.overall.sample_deff and rb.overall.sample_deff[kind .. "_mean"]
  local qk = M.quantile_deff_key(key)
  local qa, qb = qk and ra.overall.sample_deff and ra.overall.sample_deff[qk],
    qk and rb.overall.sample_deff and rb.overall.sample_deff[qk]
  return sample_effect(key, kind, { { xa = sa[kind], xb = sb[kind], d = M.u_design_effect(da, db) * per, per = per,
    dm = ma and mb and M.u_design_effect(ma, mb) * per or nil, dq = qa and qb and M.u_design_effect(qa, qb) or nil } })
end

-- A row's effect from repeat values, strata {{a = {A's repeats' values}, b = {B's}}, ...}
-- (one stratum: each run repeats of one load point; several: the load points both
-- measured): at each the effect of B's repeats' mean against A's (M.effect_pct), over the
-- strata 100 (exp(L) - 1) of their log ratios' mean L weighted n_a n_b / (n_a + n_b)
-- repeats; its interval from the repeats' spread: L -+ t sqrt(sum w^2 se^2) / sum w, se^2
-- the log ratio's variance, s_a^2 / (n_a m_a^2) + s_b^2 / (n_b m_b^2), t Student's
-- at EFFECT_LEVEL with Welch-Satterthwaite's degrees of freedom (one stratum: Welch's own
-- interval, relative). Unbounded (why, settle) where a load point was measured once on a
-- side (no spread to estimate) or every repeat of both sides is one value at every point.
-- Returns {pct, lo, hi, strata, level, where, why, settle, units = "repeats"}, or nil where
-- a mean is unknown or the effect has no size.
-- What repeats would settle an effect whose interval is unbounded (a load point measured
-- once): 2 repeats give the interval an end, but with t(0.975, 1) = 12.71 its half-width is
-- about 9 times the repeats' standard deviation (12.71 / sqrt 2), against 2.5 from 3 (4.30 /
-- sqrt 3): 2 rarely settle it, and how many do depends on the spread they show (fixh42: "2 or
-- more repeats ... to settle it" promised what 2 seldom give).
M.REPEATS_SETTLE = "at least 3 repeats of each load point in both runs, more the more they vary (2 give the "
  .. "interval an end, but at about 9 of their standard deviations either side)"

function M.repeat_effect(strata, where)
  -- (swa, swd: A's weighted means and the weighted differences; swv, sdf: the differences'
  -- variance and its Welch-Satterthwaite sum)
  local sw, swa, swd, swv, sdf, once = 0, 0, 0, 0, 0, false
  -- (the same on the log scale, ratio_interval: swr the weighted log ratios, se(log mean)^2 =
  -- var / (n mean^2); nil once a mean is not above 0)
  local swr, swl, sdfl = 0, 0, 0
  for _, st in ipairs(strata) do
    local na, nb = #st.a, #st.b
    if na == 0 or nb == 0 then return nil end
    local function mean_var(xs)
      local s = 0
      for _, v in ipairs(xs) do s = s + v end
      local m, ss = s / #xs, 0
      for _, v in ipairs(xs) do ss = ss + (v - m) ^ 2 end
      return m, #xs > 1 and ss / (#xs - 1) or nil
    end
    local ma, va = mean_var(st.a)
    local mb, vb = mean_var(st.b)
    local w = na * nb / (na + nb)
    sw, swa, swd = sw + w, swa + w * ma, swd + w * (mb - ma)
    swr = swr and ma > 0 and mb > 0 and swr + w * math.log(mb / ma) or nil
    if not (va and vb) then
      once = true
    else
      local qa, qb = va / na, vb / nb
      swv = swv + w * w * (qa + qb)
      sdf = sdf + w ^ 4 * (qa * qa / (na - 1) + qb * qb / (nb - 1))
      if swl and ma > 0 and mb > 0 then
        local ga, gb = va / na / (ma * ma), vb / nb / (mb * mb)
        swl, sdfl = swl + w * w * (ga + gb), sdfl + w ^ 4 * (ga * ga / (na - 1) + gb * gb / (nb - 1))
      else
        swl = nil
      end
    end
  end
  if sw <= 0 then return nil end
  -- (as sample_effect's: of the weighted mean log ratio, else of the weighted means)
  local pct = swr and 100 * (math.exp(swr / sw) - 1) or swd == 0 and 0 or swa > 0 and swd / swa * 100 or nil
  if pct == nil then return nil end
  local r = { pct = pct, strata = #strata, level = M.EFFECT_LEVEL, where = where, units = "repeats",
    scale = M.EFFECT_SCALE }
  if once then
    r.why = "a load point measured once on a side: no spread to estimate"
    r.settle = M.REPEATS_SETTLE
  elseif swv <= 0 or sdf <= 0 then
    r.why = "repeats identical, no spread to estimate"
    r.settle = "repeats whose values vary"
  else
    -- the interval of a ratio of the means (ratio_interval), Welch-Satterthwaite's degrees of
    -- freedom of the log ratio; of the difference over A's mean (linear_interval) only where
    -- a mean is not above 0
    local level = 1 - (1 - M.EFFECT_LEVEL / 100) / 2
    if swr and swl and swl > 0 and sdfl > 0 then
      local df = swl * swl / sdfl
      r.lo, r.hi = ratio_interval(swr / sw, math.sqrt(swl) / sw, stattest.t_quantile(level, df))
      r.df = df
    elseif swa > 0 then
      local df = swv * swv / sdf
      r.lo, r.hi = linear_interval(r.pct, stattest.t_quantile(level, df) * math.sqrt(swv) / sw, swa / sw)
      r.df = df
    else
      r.why, r.settle = "A's mean is 0: no figure to be relative to", nil
    end
  end
  return r
end

-- The effect of a row whose test was taken from a report saved before llmdlua held a winner
-- to the whole 95 % interval of the row's effect (analyze.lua on an older workspace: its
-- saved test has no row_effect, and the samples it was made on are not at hand to compute
-- one): the row's figures' effect (M.effect_pct of a and b) with no interval, why, and what
-- would settle it, so that M.effect_size names no winner on the estimate alone (the old
-- rule, never applied silently) and says why. nil where the effect is unknown.
M.SAVED_EFFECT_WHY = "not computed: the test was saved by an older report, before winners were held to this "
  .. "interval, and its samples are not at hand"
function M.saved_effect(a, b)
  local pct = M.effect_pct(a, b)
  if pct == nil then return nil end
  return { pct = pct, level = M.EFFECT_LEVEL, why = M.SAVED_EFFECT_WHY, saved_rule = "old", scale = M.EFFECT_SCALE,
    settle = "the results read again and the rows tested again (analyze.lua WORKSPACE --reextract)" }
end

-- The scale of every row effect (M.effect_pct's), as saved with it in comparison.json: a
-- saved effect without it (a report before session 43) is relative to the mean of both
-- figures, 200 (r - 1) / (r + 1) of the ratio r = b / a, and M.read_saved_effect takes its
-- pct, lo and hi back to this one, 100 (r - 1), where a ratio gives them (|x| < 200; an end
-- at or past +-200 % has none: the interval is then left unbounded, never read on the
-- wrong scale). The error rate's old relative size was its pp over the mean rate, the same
-- ratio's, so it reads back exactly; its old relative ends are read as a ratio's too.
M.EFFECT_SCALE = "b_against_a"
function M.read_saved_effect(e)
  if type(e) ~= "table" or e.scale == M.EFFECT_SCALE then return e end
  local function back(x)
    if type(x) ~= "number" or math.abs(x) >= 200 then return nil end
    return 100 * ((200 + x) / (200 - x) - 1)
  end
  local out = {}
  for k, v in pairs(e) do out[k] = v end
  out.pct, out.lo, out.hi, out.scale = back(e.pct), back(e.lo), back(e.hi), M.EFFECT_SCALE
  if not (out.lo and out.hi) then out.lo, out.hi = nil, nil end
  if out.pct == nil and not out.pp then return nil end
  return out
end

-- Wilson's score interval of a proportion x / n with n / d effective requests (d: the
-- failures' design effect, at least 1), EFFECT_LEVEL two-sided: lo, hi (fractions).
local function wilson(x, n, d)
  local ne, p, z2 = n / math.max(1, d or 1), x / n, EFFECT_Z * EFFECT_Z
  local den = 1 + z2 / ne
  local c = (p + z2 / (2 * ne)) / den
  local h = EFFECT_Z * math.sqrt(p * (1 - p) / ne + z2 / (4 * ne * ne)) / den
  return math.max(0, c - h), math.min(1, c + h)
end

-- The error rate's effect and its interval from request counts, strata {{xa, na, xb, nb,
-- d}, ...} (failed and all requests of each run at a load point, d the failures' design
-- effect): the Mantel-Haenszel rate difference D = sum c (p_b - p_a), c = w / sum w, w = n_a
-- n_b / (n_a + n_b), as the stratified test's (one stratum: the two rates' difference); its
-- interval Newcombe's hybrid score interval, each rate's Wilson interval (l, u) at its
-- effective counts combined by MOVER (Zou and Donner's method for a sum of independent
-- estimates): D - sqrt(sum c^2 ((p_b - l_b)^2 + (u_a - p_a)^2)) to D + sqrt(sum c^2 ((u_b -
-- p_b)^2 + (p_a - l_a)^2)); one stratum is Newcombe's own. pp, pp_lo, pp_hi: in percentage
-- points; pct, lo, hi: B against A as every row's effect, 100 (r - 1) of the ratio r = m_b /
-- m_a of the two weighted rates m = sum c p, its interval the ratio's by MOVER on the log
-- scale: each weighted rate's interval (l, u) its strata's Wilson intervals combined as
-- above (m - sqrt(sum c^2 (p - l)^2), m + sqrt(sum c^2 (u - p)^2)), then log r -+ sqrt((log
-- m_b - log l_b)^2 + (log u_a - log m_a)^2) below, sqrt((log u_b - log m_b)^2 + (log m_a -
-- log l_a)^2) above: both rates' noise, so swapping the runs gives the reciprocal interval
-- (verify43b: over A's rate as if known, 1 failure of 240 against 15 read +492 % to +2,553 %,
-- its swap -100 % to -32.8 %). An end whose rate interval reaches 0 is unbounded (lo -100 %,
-- hi nil with why); where B's rate is 0 (r = 0, no log) the upper end is u_b / l_a, the
-- two rates' ends set against each other (at least 95 %). N/A where no request of A failed
-- (pct nil, relative_why: the pp interval is still given, and M.effect_size judges it
-- alone). rate_a, rate_b: the two weighted rates (fractions), for the practical threshold
-- (M.interval_beyond), which reads the pp interval and the lower of the two rates, never
-- these ends. Returns nil where no request failed in either.
function M.count_effect(strata, where)
  local sw = 0
  for _, st in ipairs(strata) do sw = sw + st[2] * st[4] / (st[2] + st[4]) end
  if sw <= 0 then return nil end
  local d, ma, mb = 0, 0, 0
  local la2, ua2, lb2, ub2 = 0, 0, 0, 0 -- (each weighted rate's MOVER sums, below and above)
  for _, st in ipairs(strata) do
    local c = st[2] * st[4] / (st[2] + st[4]) / sw
    local pa, pb = st[1] / st[2], st[3] / st[4]
    local la, ua = wilson(st[1], st[2], st[5])
    local lb, ub = wilson(st[3], st[4], st[5])
    d, ma, mb = d + c * (pb - pa), ma + c * pa, mb + c * pb
    la2, ua2 = la2 + c * c * (pa - la) ^ 2, ua2 + c * c * (ua - pa) ^ 2
    lb2, ub2 = lb2 + c * c * (pb - lb) ^ 2, ub2 + c * c * (ub - pb) ^ 2
  end
  if ma + mb <= 0 then return nil end
  local r = { pp = d * 100, pp_lo = (d - math.sqrt(lb2 + ua2)) * 100, pp_hi = (d + math.sqrt(ub2 + la2)) * 100,
    strata = #strata, level = M.EFFECT_LEVEL, where = where, rate_a = ma, rate_b = mb, scale = M.EFFECT_SCALE }
  if ma > 0 then
    local lra, ura, lrb, urb = ma - math.sqrt(la2), ma + math.sqrt(ua2), mb - math.sqrt(lb2), mb + math.sqrt(ub2)
    r.pct = (mb / ma - 1) * 100
    if mb <= 0 then
      r.lo, r.hi = -100, lra > 0 and (urb / lra - 1) * 100 or nil
    else
      local lr = math.log(mb / ma)
      r.lo = lrb > 0 and (math.exp(lr - math.sqrt((math.log(mb) - math.log(lrb)) ^ 2
        + (math.log(ura) - math.log(ma)) ^ 2)) - 1) * 100 or -100
      r.hi = lra > 0 and (math.exp(lr + math.sqrt((math.log(urb) - math.log(mb)) ^ 2
        + (math.log(ma) - math.log(lra)) ^ 2)) - 1) * 100 or nil
    end
    if not r.hi then
      r.why = "A's failures too few for its rate's interval to stay above 0: the ratio has no upper end"
    end
  else
    r.relative_why = "no request of A failed: no rate to be relative to"
  end
  if d == 0 then r.pct = 0 end -- (as M.effect_pct says equal rates)
  return r
end

-- A load point's values of key, one per repeat (its repeats' own figures: loadpoints'
-- ci[key].samples), or its one value where it was measured once; nil when unknown.
local function repeat_values(p, key)
  if p.ci and p.ci[key] and p.ci[key].samples then return p.ci[key].samples end
  if (p.repeats or 1) == 1 and type(p.values[key]) == "number" and p.values[key] == p.values[key]
    and math.abs(p.values[key]) ~= math.huge then
    return { p.values[key] }
  end
  return nil
end

-- Does any load point of either run hold repeats (2 or more stages at one load)?
function M.any_repeats(pa, pb)
  for _, ps in ipairs { pa, pb } do
    for _, p in ipairs(ps) do if (p.repeats or 1) >= 2 then return true end end
  end
  return false
end

-- The loads at which one run measured once what the other repeated (M.paired_points' pairs,
-- one stage against 2 or more), by the side measured once: {a = {"1/s", ...}, b = {...}}, or
-- nil where every load both measured has repeats on both sides or on neither. (audit50 F2:
-- there the repeats cannot be the test's units: one run is one unit, with no spread between
-- its runs to weigh, so A's 3 repeats against B's one run at each of 3 loads capped the
-- repeats' test at p = 1/32 (exact van Elteren, 2 (1/4)^3), "not shown to differ", where the
-- same B against one run of A, per request, showed its 20 % lower TPOT at p < 1e-9: more
-- repeats of A made the evidence weaker. Such runs are tested per request, as single runs
-- are: M.row_test.)
function M.once_against_repeats(pa, pb)
  local a, b = {}, {}
  for _, pr in ipairs((M.paired_points(pa, pb))) do
    local na, nb = pr.a.repeats or 1, pr.b.repeats or 1
    if na < 2 and nb >= 2 then a[#a + 1] = fmt_load(pr.a) end
    if nb < 2 and na >= 2 then b[#b + 1] = fmt_load(pr.b) end
  end
  if #a + #b == 0 then return nil end
  local json = require("llmd.json")
  return { a = json.array(a), b = json.array(b) }
end

-- The latency rows' test when a run has several load points and repeats at one of them:
-- van Elteren's stratified rank-sum test with the repeats as the units, each stratum a pair
-- of load points at the same load (M.paired_points) with each repeat's own figure of the
-- sample kind (kind: "ttft"; its mean per repeat, else its p50: the first of those every
-- paired point has for every repeat). The requests of one repeat share that repeat's
-- server, cache and neighbours, so they are no independent draws: pooled over the repeats
-- (M.stratified_mann_whitney on their merged samples), a repeat that ran slow counts as
-- hundreds of slow requests, and the test is blind to how much the repeats differ (an
-- over-confident p). A point measured once is one unit. As on the samples, the rows of one
-- kind (TTFT mean, p50, p90, ...) read one test, counted once in the Holm family. Exact
-- where there are at most llmd.stattest.EXACT_MAX values in all
-- (llmd.stattest.exact_van_elteren), else the normal approximation with tie correction,
-- the weights of M.stratified_mann_whitney. Returns {test = "mann_whitney", name =
-- "van_elteren_repeats", units = "repeats", figure = the key tested, figure_label, id, p, z
-- (> 0: A's values larger), p_min, exact, strata, n_a, n_b (the units of each run),
-- left_out}, or nil and why. sat ({a =, b =}, the runs' llmd.loadpoints.saturation): the loads
-- a run is not known to have sustained are left out, as on the requests (sustained_pairs:
-- past saturation a repeat's latency is its queue's length, and a load one run's saturation
-- could not be judged at may be past it); overloaded = {a =, b =}, their loads.
function M.stratified_repeat_test(pa, pb, kind, sat, runs, only)
  local all_pairs, left = M.paired_points(pa, pb)
  if only then
    local some = {}
    for _, pr in ipairs(all_pairs) do if only(pr) then some[#some + 1] = pr end end
    all_pairs = some
  end
  if #all_pairs == 0 then return nil, "no load point of one run is at a load the other measured" end
  local pairs_, over, over_loads = sustained_pairs(all_pairs, sat, runs or {})
  local over_left = over_text(over, M.LATENCY_UNSUSTAINED)
  if #pairs_ == 0 then
    return nil, ("no load point both runs sustained (left out, %s)"):format(over_left)
  end
  local key
  for _, k in ipairs { kind .. "_mean_ms", kind .. "_p50_ms" } do
    local all = true
    for _, pr in ipairs(pairs_) do
      if not (repeat_values(pr.a, k) and repeat_values(pr.b, k)) then all = false; break end
    end
    if all then key = k; break end
  end
  if not key then
    return nil, ("repeats at a load point, but not every repeat has its own %s mean or p50 at the load points both "
      .. "measured, and their requests pooled are no independent samples"):format(kind)
  end
  local strata, num, var, n_a, n_b = {}, 0, 0, 0, 0
  for _, pr in ipairs(pairs_) do
    local xa, xb = repeat_values(pr.a, key), repeat_values(pr.b, key)
    strata[#strata + 1] = { a = xa, b = xb }
    n_a, n_b = n_a + #xa, n_b + #xb
    -- A's U (mid-ranks) and its tie-corrected null variance in this stratum
    local all = {}
    for _, v in ipairs(xa) do all[#all + 1] = { v = v, a = true } end
    for _, v in ipairs(xb) do all[#all + 1] = { v = v, a = false } end
    table.sort(all, function(x, y) return x.v < y.v end)
    local n, ra, ties, i = #all, 0, 0, 1
    while i <= n do
      local j = i
      while j < n and all[j + 1].v == all[i].v do j = j + 1 end
      local t = j - i + 1
      ties = ties + t * t * t - t
      for k = i, j do if all[k].a then ra = ra + (i + j) / 2 end end
      i = j + 1
    end
    local na, nb = #xa, #xb
    local u = ra - na * (na + 1) / 2
    local v = n > 1 and na * nb / 12 * ((n + 1) - ties / (n * (n - 1))) or 0
    num = num + (u - na * nb / 2) / (n + 1)
    var = var + v / ((n + 1) * (n + 1))
  end
  if var <= 0 or var ~= var then return nil, "no load point at which both runs' repeats are not all one value" end
  local z = num / math.sqrt(var)
  local ok, m = pcall(metrics.get, key)
  local r = { test = "mann_whitney", name = "van_elteren_repeats", units = "repeats", figure = key,
    figure_label = ok and m.label or key, id = "van_elteren_repeats:" .. kind, z = z,
    p = stattest.normal_two_sided(z), n_a = n_a, n_b = n_b, overloaded = #over_loads > 0 and over or nil }
  local texts = {}
  if #left > 0 then texts[#texts + 1] = ("measured by one run only: %s"):format(table.concat(left, ", ")) end
  texts[#texts + 1] = over_left
  r.left_out = #texts > 0 and ("left out, " .. table.concat(texts, "; left out, ")) or nil
  local tested = {}
  for _, pr in ipairs(pairs_) do tested[#tested + 1] = fmt_load(pr.a) end
  r.scope = test_scope(tested, #all_pairs, left, { { over_why(over), over_loads } })
  r.kept_pairs = pairs_
  local e = stattest.exact_van_elteren(strata)
  r.strata = e and e.strata or #strata
  if e then r.p_normal, r.p, r.p_min, r.exact = r.p, e.p, e.p_min, true end
  return r
end

-- Failures over-dispersed across the repeats of a run's load points (run: its run model;
-- points: llmd.loadpoints.points of it). Fisher's test on pooled request counts
-- (M.count_test) assumes that every request fails independently with one probability: one
-- crashed repeat, failing 12 of 200 where its siblings failed none, would weigh like 12
-- independent failures. So at every load point with 2 or more repeats whose counts of failed
-- and completed requests are known, the repeats' failure shares are tested for homogeneity
-- (llmd.loadpoints.repeats_failures_differ: Pearson's chi-square on the 2 x k table of the
-- repeats' counts over their failures' design effect in send order, the one rule the error
-- rate's interval of a repeated point reads too). Returns the load
-- point with the smallest p among those with p < alpha: {point = its index, p, x2, df,
-- failed = {per repeat}, total = {per repeat}, text = "load point 1: 0 of 200, 0 of 200
-- and 12 of 200 failed, chi-square heterogeneity p = 4.8e-06"}; nil when none is (or none
-- can be checked).
function M.failure_dispersion(run, points, alpha)
  alpha = alpha or M.ALPHA
  local by_index = {}
  for _, st in ipairs(run.stages or {}) do by_index[st.index] = st end
  local worst
  for _, p in ipairs(points or {}) do
    if (p.repeats or 1) >= 2 and p.stages then
      local failed, total, deff = {}, {}, {}
      for _, i in ipairs(p.stages) do
        local m = by_index[i] and by_index[i].metrics or {}
        local v = m.values or {}
        local f, ok = v.requests_failed, v.requests_ok
        if not (f and ok) then failed = nil; break end
        failed[#failed + 1], total[#total + 1] = math.floor(f + 0.5), math.floor(f + ok + 0.5)
        deff[#deff + 1] = m.sample_deff and m.sample_deff.failed
      end
      -- (the rule lp.repeats_error_ends reads too: each repeat's counts over its failures' design
      -- effect in send order, so that bursts within a repeat are not read as a crash)
      local h = failed and lp.repeats_failures_differ(failed, total, deff, alpha) or nil
      if h and h.differ and (not worst or h.p < worst.p) then
        local parts = {}
        for i = 1, #failed do parts[i] = ("%d of %d"):format(failed[i], total[i]) end
        local on = h.deff > 1 and (" on the counts over their failures' design effect in send order (%.1f)"):format(
          h.deff) or ""
        worst = { point = p.index, p = h.p, x2 = h.x2, df = h.df, failed = failed, total = total,
          text = ("load point %d: %s and %s failed, chi-square heterogeneity%s %s"):format(p.index,
            table.concat(parts, ", ", 1, #parts - 1), parts[#parts], on, M.p_is(h.p)) }
      end
    end
  end
  return worst
end

-- An error-rate SLO that a run's repeats disagree on (run, points: as M.failure_dispersion;
-- slo: M.parse_slo's list): the first load point whose repeats' failures are over-dispersed
-- (M.failure_dispersion of that point alone) with some repeat above the SLO's limit and
-- some at or below it. A crash in one repeat then decides whether the SLO holds there, so
-- the run's failures order no capacity. Returns that point's M.failure_dispersion result
-- with limit = the SLO's limit (%); nil when the SLOs have no error rate, or no point is so.
-- Without an error-rate SLO (but with others), the default failure limit the capacity is read
-- within (llmd.loadpoints.capacity_slo), default = true then.
-- Only at a load where a capacity could lie: not where another SLO fails beyond doubt
-- (fails_anyway), nor at a load point past the run's saturation
-- (llmd.loadpoints.saturated_from) both with the crashed repeats and without them (the
-- other repeats' own points: a crash that alone pulled a load below the saturation share
-- does not make it saturated) is no such load, as no capacity reaches past the first load
-- its run did not sustain; whether the error-rate SLO holds there changes no capacity, so
-- a crash there leaves no order open (audit40 #2: a crash at 16 req/s, where the repeats
-- answered 94.2, 92.5 and 82.5 % of their sends, made a clear order "not shown to differ").
-- from: where the run's saturation starts with every repeat (lp.saturated_from of
-- lp.saturation(points, {slo = slo}); nil: none), read once by the caller for all its points.
local function past_saturation(run, points, slo, p, d, limit, from)
  local pos
  for i, q in ipairs(points) do if q == p then pos = i end end
  if not (pos and from and pos >= from) then return false end
  local gone = {}
  for i = 1, #d.failed do
    if d.failed[i] / d.total[i] * 100 > limit then gone[p.stages[i]] = true end
  end
  local kept = {}
  for _, st in ipairs(run.stages or {}) do
    if not gone[st.index] then kept[#kept + 1] = st end
  end
  local pts = lp.points(setmetatable({ stages = kept }, { __index = run }))
  from = lp.saturated_from(lp.saturation(pts, { slo = slo }))
  if type(p.offered) ~= "number" then return false end
  for i, q in ipairs(pts) do
    if lp.same_load(q, p) then
      return from ~= nil and i >= from
    end
  end
  return false
end

-- Does load point p fail an SLO other than the error rate beyond doubt (its repeats' 95 %
-- interval, else its figure, wholly above the limit)? Then it fails the SLOs whatever its
-- error rate, and a crash there decides no capacity either.
local function fails_anyway(p, slo)
  for _, s in ipairs(slo or {}) do
    if s.key ~= "error_rate_pct" then
      local c, v = p.ci and p.ci[s.key], lp.field(p, s.key)
      local lo = c and c.lo or v
      if type(v) == "number" and type(lo) == "number" and lo > s.max then return true end
      -- (a figure unknown but bracketed wholly beyond the limit: lp.slo_verdict)
      if v == nil and lp.slo_verdict(p, s) == false then return true end
    end
  end
  return false
end

-- What load point p's failed requests were, over its repeats, as its files say (p.failure_kinds:
-- llmd.loadpoints.points, llmd.runmodel.error_kind): "timeouts" where every one timed out,
-- "errors" where every one is a recorded error, "errors_timeouts" for both, "unknown" where the
-- files record no kind for some (or give no kinds). A repeat whose failures stand out is "a crash"
-- only for errors: timeouts are a queue near capacity (verify44 #1: 11, 0, 22 of 380 failed, every
-- one a TimeoutError, were called "a crash").
function M.failures_kind(p)
  local t, e, u = lp.failure_counts(p)
  if u > 0 or t + e <= 0 then return "unknown" end
  if e <= 0 then return "timeouts" end
  return t > 0 and "errors_timeouts" or "errors"
end

-- The words for a repeat whose failures stand out, by the kind of its load point's failures
-- (M.failures_kind): only errors are "a crash"; timeouts are a queue near capacity (the client
-- gave up on requests still waiting); where the files do not say, the cause is unknown, never
-- a crash. in_one: beside the repeats' counts ("(a crash in one)"); subject: of a sentence,
-- plural where its verb is ("a crashed repeat decides"); counted: "with the crash counted";
-- lowers: why, at a load that fails the error-rate SLO with them counted, they cannot have
-- raised a run's capacity (a failed request, of whatever kind, only adds to the error rate,
-- which only counts against that SLO); which: a repeat left out of a figure ("repeat 2, which
-- crashed there"). These say one repeat: M.failure_words says how many where more are over.
M.FAILURE_WORDS = {
  errors = { in_one = "a crash in one", subject = "a crashed repeat", counted = "the crash",
    lowers = "a crash can only lower its run's capacity, so it cannot", which = "which crashed there" },
  timeouts = { in_one = "timeouts in one repeat: a queue near capacity",
    subject = "timeouts in one repeat, a queue near capacity,", plural = true, counted = "the timeouts",
    lowers = "timed-out requests can only lower its run's capacity, so they cannot",
    which = "which timed out there, a queue near capacity" },
  errors_timeouts = { in_one = "errors and timeouts in one repeat: a crash or a queue near capacity",
    subject = "errors and timeouts in one repeat, a crash or a queue near capacity,", plural = true,
    counted = "the failures", lowers = "failed requests can only lower its run's capacity, so they cannot",
    which = "which failed there with errors and timeouts, a crash or a queue near capacity" },
  unknown = { in_one = "failures in one repeat, of a cause the files do not record",
    subject = "one repeat's failures, of a cause the files do not record,", plural = true, counted = "the failures",
    lowers = "failed requests, whatever their cause, can only lower its run's capacity, so they cannot",
    which = "which failed there, of a cause the files do not record" },
}

-- The same words where k of a load point's n repeats are over the limit, k > 1 ("in 2 of 3
-- repeats": fixj45, queue_sim --timeout 2 seed 754 failed 15, 8 and 0 of 380 against a 1.5 %
-- SLO, two over, and the texts said "in one").
local FAILURE_WORDS_SOME = {
  errors = { in_one = "crashes in %s", subject = "crashes in %s", counted = "the crashes",
    lowers = "crashes can only lower its run's capacity, so they cannot" },
  timeouts = { in_one = "timeouts in %s: a queue near capacity", subject = "timeouts in %s, a queue near capacity," },
  errors_timeouts = { in_one = "errors and timeouts in %s: a crash or a queue near capacity",
    subject = "errors and timeouts in %s, a crash or a queue near capacity," },
  unknown = { in_one = "failures in %s, of a cause the files do not record",
    subject = "the failures in %s, of a cause the files do not record," },
}

-- How many of d's repeats (M.failure_dispersion's, with d.limit: M.error_slo_dispersion's)
-- failed more than d.limit % of their requests, and of how many; nil without a limit.
function M.repeats_over(d)
  if not (d and d.limit and d.failed) then return nil end
  local k = 0
  for i = 1, #d.failed do
    if d.failed[i] / d.total[i] * 100 > d.limit then k = k + 1 end
  end
  return k, #d.failed
end

-- M.FAILURE_WORDS of kind (M.failures_kind's), the unknown kind's for any other; d (optional,
-- M.error_slo_dispersion's result): where more than one of its repeats is over the limit, the
-- words say how many ("timeouts in 2 of 3 repeats") from its own counts.
function M.failure_words(kind, d)
  local w = M.FAILURE_WORDS[kind] or M.FAILURE_WORDS.unknown
  local k, n = M.repeats_over(d)
  if not (k and k > 1) then return w end
  local some = FAILURE_WORDS_SOME[kind] or FAILURE_WORDS_SOME.unknown
  local how = ("%d of %d repeats"):format(k, n)
  local out = {}
  for key, v in pairs(w) do out[key] = v end
  for key, v in pairs(some) do out[key] = v:find("%%s") and v:format(how) or v end
  out.plural = true
  return out
end

-- all_fail: whether every such load point fails the error-rate SLO with its crash counted
-- (its error rate as the capacity reads it, over all its repeats, above the limit): then the
-- crash can only have lowered the run's capacity (M.capacity_evidence reads which way).
function M.error_slo_dispersion(run, points, slo, alpha)
  local limit, default
  for _, s in ipairs(lp.capacity_slo(slo) or {}) do
    if s.key == "error_rate_pct" then limit, default = s.max, s.default end
  end
  if not limit then return nil end
  local first, all_fail = nil, true
  -- (the run's saturation with every repeat, read once: past_saturation's from)
  local from, known = nil, false
  for _, p in ipairs(points or {}) do
    local d = M.failure_dispersion(run, { p }, alpha)
    if d then
      local above, within = false, false
      for i = 1, #d.failed do
        if d.failed[i] / d.total[i] * 100 > limit then above = true else within = true end
      end
      if above and within and not fails_anyway(p, slo) then
        if not known then from, known = lp.saturated_from(lp.saturation(points, { slo = slo })), true end
        if not past_saturation(run, points, slo, p, d, limit, from) then
          d.limit, d.default, d.cause = limit, default, M.failures_kind(p)
          first = first or d
          local e = lp.field(p, "error_rate_pct")
          if not (type(e) == "number" and e > limit) then all_fail = false end
        end
      end
    end
  end
  if first then first.all_fail = all_fail end
  return first
end

-- Why pooled request counts are no test of two runs' error rates (da, db: the runs'
-- M.failure_dispersion, either nil; la, lb: the runs' labels, "A" and "B" without them):
-- "the failures vary between repeats beyond chance (vllm's load point 1: ...), so the pooled
-- request counts are no test (they assume requests fail independently)"; nil when neither
-- run's failures are over-dispersed.
function M.dispersion_text(da, db, la, lb)
  if not (da or db) then return nil end
  local parts = {}
  if da then parts[#parts + 1] = (la or "A") .. "'s " .. da.text end
  if db then parts[#parts + 1] = (lb or "B") .. "'s " .. db.text end
  return ("the failures vary between repeats beyond chance (%s), so the pooled request counts are no test (they "
    .. "assume requests fail independently)"):format(table.concat(parts, "; "))
end

-- Can a test show a difference at alpha? Not when no outcome of it could give p < alpha (an
-- exact test on 3 and 3 repeats: p >= 0.1 whatever the values): such a test is no evidence
-- either way, and it stays out of the Holm family (Tarone 1990), so that it does not make
-- the correction of the tests that can decide stricter.
function M.can_decide(test, alpha)
  return test ~= nil and test.p ~= nil and not (test.p_min and test.p_min >= (alpha or M.ALPHA))
end

-- The design effect from which the Evidence column says failures "come in bursts": below it the figure alone
-- (a one-run design effect scatters around 1 for independent failures; 2 is a clear doubling of the variance).
M.BURST_DEFF = 2

-- The test's name as the Evidence column prints it.
function M.test_name(test)
  local t = test and test.test
  if t == "welch" then return test.scale == "log" and "Welch t on the log values" or "Welch t" end
  if t == "exact_mann_whitney" then return "exact Mann-Whitney on the repeats" end
  if t == "fisher" and (test.strata or 1) > 1 then
    return ("exact test on the request counts stratified by load point (%d point%s)"):format(test.strata,
      test.strata == 1 and "" or "s")
  end
  if t == "fisher" then return "Fisher's exact test on the request counts" end
  if t == "cmh" then
    -- the counts' variance inflated by their design effect; "bursts" only where the effect is clearly above 1
    -- (M.BURST_DEFF): a design effect of 1.25 is what independent failures' estimate scatters to
    local deff = test.deff or 1
    return ("normal test on the request counts%s, their variance times the failures' design effect in send order "
      .. "(%.3g%s)"):format((test.strata or 1) > 1 and (" stratified by load point (%d points)")
      :format(test.strata) or "", deff, deff >= M.BURST_DEFF and ": they come in bursts" or "")
  end
  -- (one stratum is a plain Mann-Whitney at that load point: named so, never "van Elteren")
  if t == "mann_whitney" and test.strata == 1 and test.units == "repeats" then
    return ("%sMann-Whitney on the repeats' %s at 1 load point"):format(test.exact and "exact " or "",
      test.figure_label or "figures")
  end
  if t == "mann_whitney" and test.strata == 1 then
    return ("%sMann-Whitney at 1 load point"):format(test.exact and "exact " or "")
  end
  if t == "mann_whitney" and test.units == "mixed" and type(test.parts) == "table" then
    -- (fixb51: per request where a run measured once, over the repeats where both repeated)
    local q, r = test.parts.requests or {}, test.parts.repeats or {}
    local function at(x) return type(x.loads) == "table" and table.concat(x.loads, ", ") or "?" end
    return ("Stouffer's combination of two Mann-Whitney tests stratified by load point (van Elteren, %d points: "
      .. "per request at %s, %s; over the repeats' %s at %s, %s; %s)"):format(test.strata or 0, at(q), M.p_is(q.p),
      r.figure_label or "figures", at(r), M.p_is(r.p), M.MIXED_RULE)
  end
  if t == "mann_whitney" and test.strata and test.units == "repeats" then
    return ("Mann-Whitney on the repeats' %s, stratified by load point (van Elteren, %d points%s)"):format(
      test.figure_label or "figures", test.strata, test.exact and ", exact" or "")
  end
  if t == "mann_whitney" and test.strata then
    return ("Mann-Whitney stratified by load point (van Elteren, %d points%s)"):format(test.strata,
      test.exact and ", exact" or "")
  end
  return test and test.exact and "exact Mann-Whitney" or "Mann-Whitney"
end

-- A test's p said with its name, short, as treatments.lua's places and latencies at the common
-- load say it: "Welch p = 0.0327", "Welch on the log values, p = 0.0327" (M.sized_repeat_test's
-- on repeats all above 0: the log values it read, which its interval is on too), else
-- M.test_name's ("exact Mann-Whitney on the repeats p = 0.1"). ptext: the p as the caller prints it.
function M.test_p_text(test, ptext)
  if test and test.test == "welch" then
    return (test.scale == "log" and "Welch on the log values, p = %s" or "Welch p = %s"):format(ptext)
  end
  return ("%s p = %s"):format(M.test_name(test), ptext)
end

-- The test's name in comparison.json's perf[].test and comparison.csv's test column: one name
-- per test the Evidence column names (M.test_name), so that a script filtering on it sees what
-- the report says (newuser50b F1: an exact test read "mann_whitney" beside "exact Mann-Whitney,
-- p = 0.00794"). "welch" (Welch t), "welch_log" (Welch t on the log values: M.sized_repeat_test's
-- on repeats all above 0, whose interval is the ratio's on that scale), "mann_whitney"
-- (Mann-Whitney, its normal approximation), "exact_mann_whitney" (exact Mann-Whitney, on the
-- requests or on the repeats), "van_elteren" (Mann-Whitney stratified by load point) and
-- "exact_van_elteren" (the same, exact), "mixed_stouffer" (M.mixed_test: a van Elteren test per
-- request at the loads a run measured once and one over the repeats at the loads both repeated,
-- their z's combined by Stouffer's method; its p is neither's), "fisher" (Fisher's exact test on
-- the request counts),
-- "stratified_exact" (the exact test on the request counts stratified by load point), "cmh"
-- (the normal test on the request counts). What
-- a rank test ranked (each request, or each repeat's figure) is the Evidence's, not the name's.
M.TEST_CODES = { "welch", "welch_log", "mann_whitney", "exact_mann_whitney", "van_elteren", "exact_van_elteren",
  "mixed_stouffer", "fisher", "stratified_exact", "cmh" }
function M.test_code(test)
  local t = test and test.test
  if t == nil then return nil end
  if t == "fisher" then return (test.strata or 1) > 1 and "stratified_exact" or "fisher" end
  if t == "welch" then return test.scale == "log" and "welch_log" or "welch" end
  if t == "mann_whitney" and test.units == "mixed" then return "mixed_stouffer" end
  if t == "mann_whitney" then
    local stratified = test.strata and test.strata > 1
    return (test.exact and "exact_" or "") .. (stratified and "van_elteren" or "mann_whitney")
  end
  return t
end

-- One test of a sample kind, shared by every row of it: memo[key] holds its result (or
-- {why =}) once compute() has run; each caller gets its own copy of the result, or nil, why.
local function memoised(memo, key, compute)
  local r = memo and memo[key]
  if r == nil then
    local why
    r, why = compute()
    r = r or { why = why }
    if memo then memo[key] = r end
  end
  if r.why then return nil, r.why end
  local copy = {}
  for k, v in pairs(r) do copy[k] = v end
  return copy
end

-- Whether M.row_test tests key on the runs' per-request samples: a latency row of runs
-- without repeats (several load points stratified by point, or one each). Only such a
-- test may be taken from the last report when the samples are not at hand (analyze.lua
-- from a workspace's saved run models, which hold none). Where repeats are the units (the
-- repeats' means or p50s, or their values at one load point) the saved models hold what
-- the test needs: a row untested there is untested for a reason the last report's test,
-- perhaps an older version's on the requests pooled over the repeats, does not remove.
function M.tests_samples(key, pa, pb)
  if key == "error_rate_pct" or not M.sample_kind(key) then return false end
  -- (a run measured once where the other repeated: per request, M.once_against_repeats)
  if M.once_against_repeats(pa, pb) then return true end
  if #pa > 1 or #pb > 1 then return not M.any_repeats(pa, pb) end
  return (pa[1] and pa[1].repeats or 1) < 2 and (pb[1] and pb[1].repeats or 1) < 2
end

-- A latency test saved by an earlier report (analyze.lua: comparison.json's row.sig) that
-- took in a load a run is not known to have sustained by the rule the tests follow now
-- (sustained_pairs: it left out other loads than they would, its overloaded): why no test is
-- made instead; nil where it left out the same loads. The samples are not there to
-- test again without them. (fixi44: before, analyze.lua on an older comparison.json brought
-- such a test back for a row now untested, a load a queue answered short in bursts.)
function M.saved_test_unsustained(t, ra, rb, pa, pb, sat)
  local kept, over = sustained_pairs(M.paired_points(pa, pb), sat, { a = ra, b = rb, na = #pa, nb = #pb })
  if #over.a + #over.b == 0 then return nil end
  local was = type(t.overloaded) == "table" and t.overloaded or {}
  local function same(x, y)
    y = type(y) == "table" and y or {}
    if #x ~= #y then return false end
    for i = 1, #x do if x[i] ~= y[i] then return false end end
    return true
  end
  if same(over.a, was.a) and same(over.b, was.b) then return nil end
  local text = over_text(over, M.LATENCY_UNSUSTAINED)
  if #kept == 0 then return ("no load point both runs sustained (left out, %s)"):format(text) end
  return ("the saved test (an earlier report's) took in loads a run did not sustain (%s), and the samples are not "
    .. "at hand to test without them: the results read again and the rows tested again (analyze.lua WORKSPACE "
    .. "--reextract)"):format(text)
end

-- (the latency tests' reason for such a point: M.LATENCY_UNSUSTAINED, above)
-- Runs with one load point each (M.row_test's unstratified tests): the reason no test is
-- made where a run is not known to have sustained its point, by the stratified tests' rule
-- (sustained_pairs with the run models: saturated, unjudged, or answered short with its
-- failures in bursts), in their words: "no load point both runs sustained (left out, not
-- sustained (WHY): 5.5/s in B)"; nil where both sustained theirs (or sat is not given).
-- (audit44: before, the one point was tested whatever its load did: two runs of one
-- server at 5.5 req/s, a queue of 10 timing requests out after 3 s, failed 2.73 % and
-- 16.36 %, "A better" in error rate at p = 5.4e-05, a difference their many loads'
-- stratified test leaves out.) why: over_text's.
local function one_point_unsustained(ra, rb, pa, pb, sat, why)
  local _, over = sustained_pairs({ { a = pa[1], b = pb[1] } }, sat, { a = ra, b = rb, na = 1, nb = 1 })
  local text = over_text(over, why)
  return text and ("no load point both runs sustained (left out, %s)"):format(text) or nil
end

-- The per-request test of a sample kind stratified by load point (M.stratified_mann_whitney),
-- ITL's declustered to the requests (the design effect of the gaps per request, over the
-- points tested): r, or nil and why.
local function per_request_stratified(ra, rb, pa, pb, kind, sat, only)
  local r, why = M.stratified_mann_whitney(ra, rb, pa, pb, kind, sat, only)
  if r and kind == "itl" then
    local gaps, reqs = 0, 0
    for _, pr in ipairs(M.paired_points(pa, pb)) do
      local sides = (only and not only(pr)) and {} or { { ra, pr.a, #pa }, { rb, pr.b, #pb } }
      for _, side in ipairs(sides) do
        local acc = point_samples(side[1], side[2], kind, side[3])
        local ok_, _ = point_counts(side[1], side[2])
        gaps, reqs = gaps + (acc and acc:count() or 0), reqs + (ok_ or 0)
      end
    end
    r = M.declustered(r, gaps, reqs > 0 and reqs or nil)
  end
  return r, why
end

-- The sides of t.once (M.once_against_repeats') that measured once what the other repeated,
-- in order A, B: each {who = its label, loads = its loads (a list), other = the other's
-- label}; nil without t.once or where neither did (la, lb: the runs' labels).
local function once_sides(t, la, lb)
  local o = t and t.once
  if type(o) ~= "table" then return nil end
  local sides = {}
  for _, side in ipairs { { la or "A", o.a, lb or "B" }, { lb or "B", o.b, la or "A" } } do
    if type(side[2]) == "table" and #side[2] > 0 then
      sides[#sides + 1] = { who = side[1], loads = side[2], other = side[3] }
    end
  end
  return #sides > 0 and sides or nil
end

-- What a per-request test of runs one of which measured once a load the other repeated
-- (t.once: M.once_against_repeats') rests on, for the Evidence column and the Verdict (la,
-- lb: the runs' labels): "per request, as for runs measured once: B measured 1/s, 2/s, 3/s
-- once where A repeated them, so how much B's runs differ is unknown, a spread the test, taking
-- each run's requests as draws with their design effect in send order, cannot weigh (repeat B
-- there to firm it up)". nil without t.once.
function M.once_text(t, la, lb)
  local sides = once_sides(t, la, lb)
  if not sides then return nil end
  local who, loads = {}, {}
  for _, x in ipairs(sides) do
    who[#who + 1] = x.who
    loads[#loads + 1] = ("%s measured %s once where %s repeated %s"):format(x.who, table.concat(x.loads, ", "),
      x.other, #x.loads == 1 and "it" or "them")
  end
  local names = table.concat(who, " and ")
  -- (a mixed test, M.mixed_test: per request there only, the loads both repeated over their repeats)
  local lead = t.units == "mixed" and "per request where a run measured once (over the repeats where both repeated)"
    or "per request"
  return ("%s, as for runs measured once: %s, so how much %s's runs differ is unknown, a spread the test, "
    .. "taking each run's requests as draws with their design effect in send order, cannot weigh (repeat %s there "
    .. "to firm it up)"):format(lead, table.concat(loads, "; "), names, names)
end

-- The same in short, for the Verdict's sentences that quote the test: "per request: B
-- measured once where A repeated, its runs' spread unknown (repeat B to firm it up)".
function M.once_short(t, la, lb)
  local sides = once_sides(t, la, lb)
  if not sides then return nil end
  local parts, who = {}, {}
  for _, x in ipairs(sides) do
    parts[#parts + 1] = ("%s measured once where %s repeated"):format(x.who, x.other)
    who[#who + 1] = x.who
  end
  return ("per request%s: %s, %s runs' spread unknown (repeat %s to firm it up)"):format(
    t.units == "mixed" and " where a run measured once (over the repeats where both repeated)" or "",
    table.concat(parts, "; "),
    #who == 1 and "its" or "their", table.concat(who, " and "))
end

-- Whether the repeats of load point p of a run (run: its run model) differ beyond their
-- requests' noise in the mean of a sample kind (ITL's: the TPOT's, a request's mean gap):
-- llmd.stattest.means_heterogeneity of the repeats' means, each one's standard error its
-- requests' standard deviation over sqrt(n / d), d the design effect of its values in send
-- order (sample_deff <kind>_mean, else <kind>'s; 1 where neither is known). Returns {p =, q =,
-- df =, load = "2/s"}, or nil where it cannot be checked (fewer than 2 repeats with 2 or more
-- requests of that kind). A per-request test of a run measured once against such repeats
-- takes the requests of a run for draws that tell how its server serves: where runs of one
-- server differ beyond their requests' noise, they do not, and one run cannot be weighed
-- (M.row_test falls back to the repeats' test).
function M.repeats_spread(run, p, kind)
  local k = kind == "itl" and "tpot" or kind
  local means, ses = {}, {}
  for _, idx in ipairs(p.stages or {}) do
    for _, st in ipairs(run.stages or {}) do
      local acc = st.index == idx and st.metrics and st.metrics.samples and st.metrics.samples[k]
      if acc and acc:count() >= 2 then
        local sd, n = acc:sample_stddev(), acc:count()
        local dd = st.metrics.sample_deff or {}
        local d = math.max(1, dd[k .. "_mean"] or dd[k] or 1)
        if sd and sd == sd then means[#means + 1], ses[#ses + 1] = acc:mean(), sd / math.sqrt(n / d) end
      end
    end
  end
  if #means < 2 then return nil end
  local h = stattest.means_heterogeneity(means, ses)
  if h then h.load = fmt_load(p) end
  return h
end

-- The repeats that make a per-request test of a run measured once against the other's
-- repeats unsound: M.repeats_spread at every load both measured, of each side that repeated
-- it (the loads repeated on both sides too: since fixb51 M.mixed_test tests those over their
-- repeats, but runs of one server that differ beyond their requests' noise at one load make
-- the requests of a single run at another no sound draws either); the load whose repeats
-- differ most, where its p is below M.ALPHA over the number of checks (Bonferroni: each check
-- is a chance to find spread where there is none), as {p =, q =, df =, load =, side = "a" or
-- "b"}; nil where none does.
local function once_spread(ra, rb, pa, pb, kind)
  local checks, worst = 0, nil
  for _, pr in ipairs((M.paired_points(pa, pb))) do
    for _, side in ipairs { "a", "b" } do
      if (pr[side].repeats or 1) >= 2 then
        local h = M.repeats_spread(side == "a" and ra or rb, pr[side], kind)
        if h then
          checks = checks + 1
          if not worst or h.p < worst.p then worst = h; worst.side = side end
        end
      end
    end
  end
  if worst and worst.p < M.ALPHA / checks then return worst end
  return nil
end

-- Why a run measured once is not tested per request against the other's repeats (h:
-- once_spread's; once: M.once_against_repeats'; la, lb: the runs' labels): "r-a's repeats at
-- 2/s differ beyond their requests' noise (their TPOT means: Cochran's Q p = 1.2e-05), so runs
-- of one server differ, and v-b's single runs cannot be weighed per request".
local function once_spread_text(h, kind, once, la, lb)
  local own = h.side == "a" and (la or "A") or (lb or "B")
  local single = {}
  if once and #(once.a or {}) > 0 then single[#single + 1] = la or "A" end
  if once and #(once.b or {}) > 0 then single[#single + 1] = lb or "B" end
  return ("%s's repeats at %s differ beyond their requests' noise (their %s means: Cochran's Q %s), so runs of one "
    .. "server differ, and %s's single runs cannot be weighed per request"):format(own, h.load,
    (kind == "itl" or kind == "tpot") and "TPOT" or kind == "latency" and "E2E" or kind:upper(), M.p_is(h.p),
    table.concat(single, " and "))
end

-- Whether both runs repeated the load of pair pr (2 or more stages each).
function M.both_repeated(pr)
  return (pr.a.repeats or 1) >= 2 and (pr.b.repeats or 1) >= 2
end

-- The z of a two-sided p with the sign of z0 (an exact test's p turned back to a normal
-- score for M.mixed_test: the z whose two-sided tail is p), by bisection on the tail.
local function z_of_p(p, z0)
  if not (p and p > 0) then return (z0 or 0) < 0 and -40 or 40 end
  if p >= 1 or not z0 or z0 == 0 then return 0 end
  local lo, hi = 0, 40
  for _ = 1, 200 do
    local mid = (lo + hi) / 2
    if stattest.normal_two_sided(mid) > p then lo = mid else hi = mid end
  end
  return (z0 < 0 and -1 or 1) * (lo + hi) / 2
end
M.z_of_p = z_of_p

-- The left-out texts of two tests ("left out, X; left out, Y"), each once, in order.
local function merged_left_out(a, b)
  local seen, parts = {}, {}
  for _, t in ipairs { a or "", b or "" } do
    for part in (t:gsub("^left out, ", "") .. "; left out, "):gmatch("(.-); left out, ") do
      if part ~= "" and not seen[part] then seen[part], parts[#parts + 1] = true, part end
    end
  end
  return #parts > 0 and ("left out, " .. table.concat(parts, "; left out, ")) or nil
end

-- (the rule, for the Evidence column's test name and README)
M.MIXED_RULE = "their z's combined by Stouffer's method, each load weighted alike"

-- The latency rows' test where a run measured once a load the other repeated
-- (M.once_against_repeats) and both runs repeated some other load (fixb51, review50 #2):
-- the loads both repeated are tested over their repeats (M.stratified_repeat_test: one unit a
-- repeat, its spread weighed), the others per request (per_request_stratified: the requests
-- with their design effect in send order, as runs measured once are), and the two combined.
-- (Before, one load measured once on a side put every load on the per-request test, those
-- both runs repeated too, where the repeats' test is the careful one: it sees how much runs
-- of one server differ, which the requests cannot show.)
-- The rule of the combination: Stouffer's, each load tested weighted alike: z = (sqrt(k_r) z_r
-- + sqrt(k_q) z_q) / sqrt(k_r + k_q), k_r and k_q the loads each part tested, z_r and z_q their
-- normal scores (an exact part's its p's, z_of_p, with its direction), p = the normal's
-- two-sided tail. It is what Stouffer over every load's own z, each weighted alike, gives where
-- each part's z is its loads' sum over sqrt(k): no part outweighs the other by its units'
-- count (a per-request stratum of 500 requests would swamp one of 3 repeats in one van Elteren
-- sum, and the repeats' spread would count for nothing). Directions that disagree cancel. One
-- test of the kind in the Holm family (id mixed:<kind>). Where a part has no test (every load
-- of it left out, say), the other alone, with why beside it; where the per-request part
-- has none, nil and its why (M.row_test's fall-back). Returns the test (units = "mixed", parts =
-- {requests = {loads, z, p, strata, exact}, repeats = {loads, z, p, strata, exact, figure_label,
-- n_a, n_b}}, scope over every load, p_min where both parts are exact), or nil and why.
function M.mixed_test(ra, rb, pa, pb, kind, sat)
  local once_only = function(pr) return not M.both_repeated(pr) end
  local q, qwhy = per_request_stratified(ra, rb, pa, pb, kind, sat, once_only)
  if not q then return nil, qwhy end
  local r, rwhy = M.stratified_repeat_test(pa, pb, kind, sat, { a = ra, b = rb, na = #pa, nb = #pb },
    M.both_repeated)
  if not r then
    -- (the per-request part alone: the loads both repeated said as left out, in its texts and
    -- its scope, never as tested, and never put on the requests instead)
    local all_pairs, left = M.paired_points(pa, pb)
    local both, json = {}, require "llmd.json"
    for _, pr in ipairs(all_pairs) do if M.both_repeated(pr) then both[#both + 1] = fmt_load(pr.a) end end
    q.left_out = merged_left_out(q.left_out, ("left out, the loads both runs repeated (%s), untested over their "
      .. "repeats: %s"):format(table.concat(both, ", "), rwhy))
    if type(q.scope) == "table" then
      q.scope.total = #all_pairs + #left
      table.insert(q.scope.left, 1, { why = "repeated on both sides, no test over their repeats",
        loads = json.array(both) })
    end
    return q
  end
  local kq, kr = q.strata or 0, r.strata or 0
  local zq, zr = q.z or 0, r.z or 0
  if q.exact then zq = z_of_p(q.p, q.z) end
  if r.exact then zr = z_of_p(r.p, r.z) end
  local function combine(a, b) return (math.sqrt(kq) * a + math.sqrt(kr) * b) / math.sqrt(kq + kr) end
  local z = combine(zq, zr)
  local all_pairs, left = M.paired_points(pa, pb)
  local _, over, over_loads = sustained_pairs(all_pairs, sat, { a = ra, b = rb, na = #pa, nb = #pb })
  -- every load tested, in the runs' order; the groups left out merged by why
  local in_q, in_r = {}, {}
  for _, l in ipairs(q.scope and q.scope.tested or {}) do in_q[l] = true end
  for _, l in ipairs(r.scope and r.scope.tested or {}) do in_r[l] = true end
  local tested, loads_q, loads_r = {}, {}, {}
  for _, pr in ipairs(all_pairs) do
    local l = fmt_load(pr.a)
    if in_q[l] or in_r[l] then tested[#tested + 1] = l end
    if in_q[l] then loads_q[#loads_q + 1] = l end
    if in_r[l] then loads_r[#loads_r + 1] = l end
  end
  local groups, by_why = {}, {}
  for _, sc in ipairs { q.scope or {}, r.scope or {} } do
    for _, g in ipairs(sc.left or {}) do
      if g.why ~= ONE_RUN_WHY and not OVER_WHYS[g.why] then
        if not by_why[g.why] then
          by_why[g.why] = {}
          groups[#groups + 1] = { g.why, by_why[g.why] }
        end
        for _, l in ipairs(g.loads) do by_why[g.why][#by_why[g.why] + 1] = l end
      end
    end
  end
  table.insert(groups, 1, { over_why(over), over_loads })
  local json = require "llmd.json"
  local t = { test = "mann_whitney", name = "van_elteren_mixed", units = "mixed", id = "mixed:" .. kind,
    z = z, p = stattest.normal_two_sided(z), strata = kq + kr,
    figure = r.figure, figure_label = r.figure_label,
    left_out = merged_left_out(q.left_out, r.left_out),
    overloaded = #over_loads > 0 and over or nil,
    deff = q.deff, dependent = q.dependent, dependent_bursts = q.dependent_bursts,
    sustained_strata = (q.sustained_strata or kq) + kr,
    tested_pairs = q.tested_pairs, tested_deff = q.tested_deff, gaps_per_request = q.gaps_per_request,
    n_requests = q.n_requests, n_a = r.n_a, n_b = r.n_b,
    parts = {
      requests = { loads = json.array(loads_q), z = q.z, p = q.p, strata = kq, exact = q.exact },
      repeats = { loads = json.array(loads_r), z = r.z, p = r.p, strata = kr, exact = r.exact,
        figure_label = r.figure_label, n_a = r.n_a, n_b = r.n_b },
    },
    scope = test_scope(tested, #all_pairs, left, groups),
    -- (each row's effect over the repeats at the loads both repeated: M.row_test)
    repeat_pairs = r.kept_pairs }
  if q.exact and r.exact and q.p_min and r.p_min then
    t.p_min = stattest.normal_two_sided(combine(z_of_p(q.p_min, 1), z_of_p(r.p_min, 1)))
  end
  return t
end

-- A mixed test's row effect (M.mixed_test; eq: the per-request part's effect within its
-- loads, M.stratified_effect; er: the repeats' at theirs, M.repeat_effect): the two log
-- ratios averaged with the test's weights, each part by the loads it tested (k_q, k_r), and
-- the interval's ends averaged the same way. Where the two estimates are independent that
-- interval is at least as wide as their exact combination (the half-widths add, where the
-- exact one adds their squares): it holds at EFFECT_LEVEL at least. Unbounded where a part's
-- is (its why, settle, need, fewest beside it). A part with no effect (the repeats lack the
-- row's figure, say) leaves the size unknown: an unbounded effect that says why, so the row
-- names no winner on its p alone (M.effect_size: "unsure"), with the other part's estimate
-- where it has one, else nil.
function M.mixed_effect(eq, er, kq, kr)
  if not (eq and er and eq.pct and er.pct and eq.pct > -100 and er.pct > -100) then
    local known = eq and eq.pct and eq or er and er.pct and er or nil
    if not known then return nil end
    return { pct = known.pct, level = M.EFFECT_LEVEL, scale = M.EFFECT_SCALE, strata = kq + kr,
      where = "within the load points tested",
      why = ("the size over the %s is not known for this figure, so that of both together is not either"):format(
        known == eq and "loads both runs repeated" or "loads tested per request") }
  end
  local wq, wr = kq / (kq + kr), kr / (kq + kr)
  local function avg(a, b)
    if not (a and b and a > -100 and b > -100) then return nil end
    return 100 * (math.exp(wq * math.log(1 + a / 100) + wr * math.log(1 + b / 100)) - 1)
  end
  local e = { pct = avg(eq.pct, er.pct), level = M.EFFECT_LEVEL, scale = M.EFFECT_SCALE, strata = kq + kr,
    mean_deff = eq.mean_deff,
    where = ("within the load points tested (%d per request, %d over their repeats; the two parts' log ratios "
      .. "averaged, each load weighted alike)"):format(kq, kr) }
  local lo, hi = avg(eq.lo, er.lo), avg(eq.hi, er.hi)
  if lo and hi then
    e.lo, e.hi = lo, hi
  else
    e.why, e.settle, e.need, e.fewest = er.why or eq.why, er.settle or eq.settle, eq.need, eq.fewest
  end
  return e
end

-- The test for an overall row: Mann-Whitney on per-request samples of both runs, else
-- Welch on the repeats when each run is repeats of one load point, else nil and why.
-- Runs with one load point each: the error rate and the latency rows untested where a run
-- did not sustain its point (one_point_unsustained), as a stratified test leaves it out.
-- labels: {a =, b =}, the runs' names in its texts ("A" and "B" without them).
local row_test
function M.row_test(key, ra, rb, pa, pb, memo, labels, sat)
  local t, why = row_test(key, ra, rb, pa, pb, memo, labels, sat)
  -- (which loads it pooled, M.test_scope_text: the stratified tests set their own scope)
  if t and t.scope == nil and #pa == 1 and #pb == 1 then t.scope = one_point_scope(pa, pb) end
  -- (the loads it kept in though a run answered them short in bursts of server errors)
  if t and type(t.scope) == "table" and (key == "error_rate_pct" or M.sample_kind(key)) then
    local kept = M.kept_bursts(pa, pb, sat, { a = ra, b = rb })
    if #kept > 0 then t.scope.kept = require("llmd.json").array(kept) end
  end
  return t, why
end
function row_test(key, ra, rb, pa, pb, memo, labels, sat)
  if #pa == 1 and #pb == 1 and (key == "error_rate_pct" or M.sample_kind(key)) then
    local left = one_point_unsustained(ra, rb, pa, pb, sat,
      key == "error_rate_pct" and COUNT_UNSUSTAINED or M.LATENCY_UNSUSTAINED)
    if left then return nil, left end
  end
  if key == "error_rate_pct" then
    -- per-request outcomes first, as the latency rows' per-request samples; else the repeats.
    -- Several load points: stratified by load point, never the counts pooled over them.
    -- Where a run's failures vary between its repeats beyond chance (a crashed repeat), the
    -- pooled counts (of a point's repeats, too) are no test: the repeats' error rates are,
    -- where each run is repeats of one load point; else the row is untested, and says why
    local several = #pa > 1 or #pb > 1
    local r, why
    if several then
      r, why = M.stratified_count_test(ra, rb, pa, pb, sat)
    else
      local da, db = ra.overall.sample_deff, rb.overall.sample_deff
      da, db = da and da.failed, db and db.failed
      r, why = M.count_test(ra.overall.values, rb.overall.values, M.u_design_effect(da, db), da, db,
        M.bursts_cause { pa[1], pb[1] })
    end
    local od = r and not r.identical and M.dispersion_text(M.failure_dispersion(ra, pa), M.failure_dispersion(rb, pb),
      labels and labels.a, labels and labels.b)
    if od then
      if #pa == 1 and #pb == 1 and pa[1].ci and pb[1].ci and pa[1].ci.error_rate_pct and pb[1].ci.error_rate_pct then
        -- (its size against the threshold: the repeats' rates' interval, as any repeat row's)
        local t, twhy = M.sized_repeat_test(pa[1].ci.error_rate_pct.samples, pb[1].ci.error_rate_pct.samples)
        if t then
          t.overdispersed = od
          return t
        end
        return nil, od .. "; " .. twhy
      end
      return nil, od .. ", and the whole-run error rates pool several load points, which their repeats cannot test"
    end
    -- the difference the counts measured, with its interval (M.count_effect): the threshold
    -- is applied to the whole interval, as on the latency rows
    if r and not r.identical and r.counts then
      r.row_effect = M.count_effect(r.counts, several and "within the load points" or nil)
    end
    if r then r.counts = nil end
    if r or several then return r, why end
  end
  local kind = M.sample_kind(key)
  local sa, sb = ra.overall.samples, rb.overall.samples
  -- A run measured once at a load the other repeated (M.once_against_repeats): the per-request
  -- test stratified by load point, as for runs measured once (each repeat's requests merged with
  -- its siblings', their largest design effect). It rests on what the single runs' test rests
  -- on: requests as draws with their design effect in send order, blind to how much runs of one
  -- server differ; the run measured once has no such spread to weigh, and repeating it firms the
  -- test up (t.once: its loads, for the texts, M.once_text). Where a run kept no per-request
  -- samples, the repeats' test below, as before.
  -- Where the side that repeated shows runs of one server differing beyond their requests' noise
  -- (once_spread), the requests of one run are no sound draws: the repeats' test, as before,
  -- with that reason beside it (spread).
  -- fixb51: the loads both runs repeated stay on the repeats' test, the others per request, the
  -- two combined (M.mixed_test: Stouffer's, each load weighted alike); where no load is
  -- repeated on both sides, the per-request test alone, as before.
  local once = kind and M.once_against_repeats(pa, pb)
  local spread = once and once_spread(ra, rb, pa, pb, kind)
  if once and not spread then
    local mixed = false
    for _, pr in ipairs((M.paired_points(pa, pb))) do
      if M.both_repeated(pr) then mixed = true end
    end
    local t, twhy = memoised(memo, (mixed and "mixed:" or "once:") .. kind, function()
      if mixed then return M.mixed_test(ra, rb, pa, pb, kind, sat) end
      return per_request_stratified(ra, rb, pa, pb, kind, sat)
    end)
    if t then
      t.once = once
      local eq = M.stratified_effect(key, ra, rb, pa, pb, t)
      if t.units == "mixed" then
        local strata = {}
        for _, pr in ipairs(t.repeat_pairs or {}) do
          local xa, xb = repeat_values(pr.a, key), repeat_values(pr.b, key)
          if not (xa and xb) then strata = nil; break end
          strata[#strata + 1] = { a = xa, b = xb }
        end
        local er = strata and #strata > 0 and M.repeat_effect(strata) or nil
        t.row_effect = M.mixed_effect(eq, er, t.parts.requests.strata, t.parts.repeats.strata)
      else
        t.row_effect = eq
      end
      t.repeat_pairs = nil
      return t
    end
    -- no per-request test to make (too dependent, say): the repeats' test, and why not the
    -- requests' beside it (none needed where a run kept no per-request samples)
    if twhy ~= "no per-request samples at every load point of both runs" then
      spread = { why = twhy }
    end
  end
  local spread_text = spread and (spread.why and ("not per request, though a run measured loads once where the other "
    .. "repeated them: %s"):format(spread.why)
    or once_spread_text(spread, kind, once, labels and labels.a, labels and labels.b))
  if kind and (#pa > 1 or #pb > 1) and M.any_repeats(pa, pb) then
    -- several load points, repeated: the repeats are the units, never their requests
    -- pooled (M.stratified_repeat_test); one test per sample kind, as on the samples
    local t, twhy = memoised(memo, "repeats:" .. kind, function()
      return M.stratified_repeat_test(pa, pb, kind, sat, { a = ra, b = rb, na = #pa, nb = #pb })
    end)
    if t then
      -- each row its own effect over the repeats at the load points the test covered, with
      -- the repeats' interval (M.repeat_effect), as the samples' rows have theirs
      local strata = {}
      for _, pr in ipairs(t.kept_pairs or M.paired_points(pa, pb)) do
        local xa, xb = repeat_values(pr.a, key), repeat_values(pr.b, key)
        if not (xa and xb) then strata = nil; break end
        strata[#strata + 1] = { a = xa, b = xb }
      end
      t.kept_pairs = nil
      t.row_effect = strata and #strata > 0 and M.repeat_effect(strata, "within the load points tested, over their "
        .. "repeats") or nil
      t.once_spread = spread_text
    end
    return t, spread_text and twhy and (twhy .. "; " .. spread_text) or twhy
  end
  if kind and (#pa > 1 or #pb > 1) then
    -- several load points: stratified by load point, never the samples pooled over them
    local t, twhy = memoised(memo, kind, function()
      return per_request_stratified(ra, rb, pa, pb, kind, sat)
    end)
    -- (each row its own effect size within the load points tested: M.verdict's threshold)
    if t then t.row_effect = M.stratified_effect(key, ra, rb, pa, pb, t) end
    return t, twhy
  end
  -- A run that is repeats of one load point shows the mean over its repeats (what the
  -- report's figure is: its run_figure), so such a row is tested on the repeats, never on
  -- the requests pooled over them: their test is about a figure the table does not show
  -- (the pooled percentile, which can lie on the other side of the other run's), and it
  -- takes the requests of one run's repeats for independent draws, blind to how much the
  -- repeats differ. Repeats on both sides: the repeats' test below. On one side only: no
  -- test, as without per-request samples (a mean against one run is no test).
  local rep_a = #pa == 1 and (pa[1].repeats or 1) >= 2
  local rep_b = #pb == 1 and (pb[1].repeats or 1) >= 2
  if kind and rep_a ~= rep_b then
    return nil, "a mean of repeats against one run: no test (the requests pooled over the repeats would test a "
      .. "figure the table does not show" .. (spread_text and ("; " .. spread_text) or "") .. ")"
  end
  if kind and sa and sb and sa[kind] and sb[kind] and not (rep_a and rep_b) then
    local r = memo and memo[kind]
    if r == nil then
      local dep
      local da, db = ra.overall.sample_deff and ra.overall.sample_deff[kind],
        rb.overall.sample_deff and rb.overall.sample_deff[kind]
      -- (one load point each, kept in though a run answered it short in bursts of server
      -- errors: a dependence said by that cause, never the queue's, M.pair_kept_bursts)
      local bursts = #pa == 1 and #pb == 1
        and M.pair_kept_bursts({ a = pa[1], b = pb[1] }, sat, { a = ra, b = rb, na = 1, nb = 1 }) or nil
      if kind == "itl" then
        r, dep = M.itl_test(sa[kind], sb[kind], ra.overall.values.requests_ok, rb.overall.values.requests_ok, da, db,
          { bursts = bursts })
      else
        r, dep = M.mann_whitney(sa[kind], sb[kind], da, db, {
          a = ra.overall.sample_deff and ra.overall.sample_deff[kind .. "_ttft_lag1"],
          b = rb.overall.sample_deff and rb.overall.sample_deff[kind .. "_ttft_lag1"], bursts = bursts })
      end
      r = r or (dep and { why = dep }) or false
      if memo then memo[kind] = r end
    end
    if r and r.why then return nil, r.why end
    if r then
      local copy = {}
      for k, v in pairs(r) do copy[k] = v end
      -- the row's own difference at the one load point, with its interval (M.one_point_effect)
      copy.row_effect = M.one_point_effect(key, ra, rb, copy)
      return copy
    end
  end
  if #pa == 1 and #pb == 1 and pa[1].ci and pb[1].ci and pa[1].ci[key] and pb[1].ci[key] then
    -- (the row's difference over the repeats, with the repeats' interval: M.sized_repeat_test;
    -- a throughput row's too, held to the whole interval as a latency row is)
    return M.sized_repeat_test(pa[1].ci[key].samples, pb[1].ci[key].samples)
  end
  local why
  if #pa == 1 and #pb == 1 and (pa[1].repeats or 1) >= 2 and (pb[1].repeats or 1) >= 2
    and pa[1].values[key] ~= nil and pb[1].values[key] ~= nil then
    -- repeats on both sides, but no interval: a repeat's value is not a finite number
    return nil, "repeats on both sides, but a repeat value is not a finite number"
  end
  if #pa > 1 or #pb > 1 then
    why = kind and "no per-request samples from both runs" or "pooled over several load points, no repeats to test"
  else
    why = kind and "no per-request samples or repeats from both runs" or "no repeats from both runs"
  end
  return nil, why
end

-- Multiple comparisons -----------------------------------------------------------------------

-- A p-value as printed: "0.0123", "3.2e-04", "< 1e-9", "N/A".
function M.fmt_p(p)
  if p == nil then return "N/A" end
  if p < 1e-9 then return "< 1e-9" end
  if p < 0.001 then return ("%.1e"):format(p) end
  return ("%.3g"):format(p)
end

-- "p = 0.0123", or "p < 1e-9" (never "p = < 1e-9").
function M.p_is(p)
  local f = M.fmt_p(p)
  return (f:sub(1, 1) == "<" and "p " or "p = ") .. f
end

-- Holm-Bonferroni step-down adjusted p-values of ps (a list of numbers in [0, 1]): sorted
-- ascending, the j-th smallest of m becomes max over i <= j of (m - i + 1) p_(i), capped at
-- 1; the adjusted values are in the input's order. Rejecting where the adjusted p < alpha
-- keeps the family-wise error rate (any false rejection) at most alpha under any
-- dependence between the tests (Holm 1979).
function M.holm(ps)
  local m = #ps
  local order = {}
  for i = 1, m do
    local p = ps[i]
    if type(p) ~= "number" or p ~= p or p < 0 or p > 1 then
      error(("holm: p-value %d is not a number in [0, 1] (%s)"):format(i, tostring(p)), 2)
    end
    order[i] = i
  end
  table.sort(order, function(x, y)
    if ps[x] ~= ps[y] then return ps[x] < ps[y] end
    return x < y
  end)
  local adj, run = {}, 0
  for rank, i in ipairs(order) do
    run = math.max(run, math.min(1, (m - rank + 1) * ps[i]))
    adj[i] = run
  end
  return adj
end

-- The family of one comparison: tests = {{id =, p =}, ...}, one entry per row tested; rows
-- that read the same test (TTFT mean/p50/p90/p99 all read one Mann-Whitney on the TTFT
-- samples) give the same id and count once. Returns {size = the number of distinct tests,
-- adjusted = {[id] = Holm-adjusted p}, raw = {[id] = p}, ids = {ids in first-seen order}}.
function M.family(tests)
  local ids, raw = {}, {}
  for _, x in ipairs(tests) do
    if raw[x.id] == nil then
      ids[#ids + 1] = x.id
      raw[x.id] = x.p
    elseif raw[x.id] ~= x.p then
      error(("family: test %s given two p-values (%s and %s)"):format(x.id, tostring(raw[x.id]), tostring(x.p)), 2)
    end
  end
  local ps = {}
  for i, id in ipairs(ids) do ps[i] = raw[id] end
  local adj = M.holm(ps)
  local out = { size = #ids, adjusted = {}, raw = raw, ids = ids }
  for i, id in ipairs(ids) do out.adjusted[id] = adj[i] end
  return out
end

-- The test's identity in the family: one Mann-Whitney per sample kind, one Welch per key.
function M.test_id(key, test)
  if not test then return nil end
  if test.id then return test.id end
  if test.test == "mann_whitney" then return "mann_whitney:" .. (M.sample_kind(key) or key) end
  return (test.test or "test") .. ":" .. key
end

-- "p = 0.03, Holm-adjusted 0.41 over 18 tests"
function M.adjusted_text(p, p_adj, size)
  return ("%s, Holm-adjusted %s over %d test%s"):format(M.p_is(p), M.fmt_p(p_adj), size,
    size == 1 and "" or "s")
end

-- Capacity at SLO between two runs ------------------------------------------------------------

-- Capacity kinds (llmd.loadpoints.capacity) that are lower bounds ("≥ X"), each with its
-- note: llmd.loadpoints.CAPACITY_KINDS, the one list of the kinds.
M.CAPACITY_BOUND = {}
-- What "capacity at SLO" means, for the reports' SLO paragraph (compare.lua's and
-- treatments.lua's, Markdown and HTML): every kind llmd.loadpoints.capacity can give, each
-- bound with the words its cells say in brackets (M.CAPACITY_BOUND, M.capacity_below_note),
-- and the cases with no capacity. One text, so that no output defines it differently:
-- M.CAPACITY_DEFINITION_RPS, the capacity in req/s, and M.CAPACITY_DEFINITION_TPS, its
-- output tok/s, which only a report that shows a capacity in tok/s quotes (compare.lua's;
-- treatments.lua's shows none); M.CAPACITY_DEFINITION is both.
-- (the figure llmd.loadpoints.capacity reads: the throughput of llmd.loadpoints.
-- THROUGHPUT_DEFINITION, at the highest load that holds every SLO, interpolated to where
-- they give way; never the most throughput of any passing load, which a lower load can
-- exceed, nor the harness's completed / window)
M.CAPACITY_DEFINITION_RPS = "the throughput (req/s, as defined under Throughput: the answers' pace or the "
  .. "drain-reduced rate, not the harness's completed / window) at the highest load at which every SLO holds, and, "
  .. "where no error-rate SLO is given, at which at most " .. ("%g"):format(lp.FAILURES_PCT) .. " % of the requests "
  .. "failed (the default failure limit, \"by default\" beside the SLOs, the one max sustained throughput applies; "
  .. "an error-rate SLO replaces it for both). Where the SLOs give way "
  .. "between the last load point that met them all and the first that failed one, while the achieved rate rises "
  .. "and keeps up with the offered load, it is interpolated between the two, at the load where the first SLO "
  .. "reaches its limit: an estimate, which the measurements place only between those loads, and which a lower "
  .. "load's throughput can exceed. Otherwise it is a bound on one side: ≥ the highest achieved "
  .. "rate measured when every load point met every SLO (never violated); ≥ the highest achieved rate before "
  .. "saturation when every SLO still held up to the last load before it (the last load before saturation), that "
  .. "load point named where a lower load achieved more (the most before saturation, at load point N), and likewise "
  .. "below a "
  .. "load whose saturation could not be judged, with no crossing read at or past it (the last load known to be "
  .. "sustained); ≥ the achieved rate of "
  .. "the last load that met the SLOs when the first load that failed one achieved no more than it, as its failed "
  .. "requests held the rate down, so that no crossing can be interpolated, or when an SLO metric of the next "
  .. "load is unknown (the last load that met the SLOs); < "
  .. "the lowest load's achieved rate when that load already failed an SLO (failed it at the lowest load tried). "
  .. "None (N/A) where a load that met the SLOs lies above one that failed them (non-monotone) or an SLO metric "
  .. "is unknown at the lowest load or above one that failed. A capacity never reaches past the first load its "
  .. "run did not sustain, saturated or over the error-rate limit, as the max sustained throughput does not; an "
  .. "estimate can lie above the max sustained throughput only between it and a load over the error-rate limit, "
  .. "where that limit is crossed, within its measured bracket"
M.CAPACITY_DEFINITION_TPS = "Its output tok/s is read at the same load: an estimate's on the "
  .. "same line, between the two points' own; a bound's from the fewest tok/s delivered at its load point or any "
  .. "load above it (a higher load can deliver fewer, with fewer output tokens per request) to the most delivered "
  .. "at any load (no upper end where every load met the SLOs). Two capacities are ordered in tok/s only where those "
  .. "spans are, never by their order in req/s"
M.CAPACITY_DEFINITION = M.CAPACITY_DEFINITION_RPS .. ". " .. M.CAPACITY_DEFINITION_TPS

-- Capacity kinds two capacities can be compared by (M.capacity_gap, M.capacity_evidence):
-- a figure, a lower bound, or "below the lowest load" (every kind of that list).
local CAPACITY_ORDERED = {}
for kind, k in pairs(lp.CAPACITY_KINDS) do
  if k.gives == "lower" then M.CAPACITY_BOUND[kind] = k.note end
  CAPACITY_ORDERED[kind] = true
end
function M.capacity_is_bound(c) return c ~= nil and M.CAPACITY_BOUND[c.kind] ~= nil end
-- What a capacity below the lowest load ("< X", c: llmd.loadpoints.capacity of kind
-- below_lowest) says in a few words: the SLOs it failed there, by name ("failed TTFT p90 ≤
-- 200.0 ms at the lowest load tried"), never "the SLO" where several were given and only
-- some failed; a capacity that does not name them (read back from a file) says "the SLOs".
function M.capacity_below_note(c)
  return ("failed %s at the lowest load tried"):format(c and c.failed_slos or "the SLOs")
end

-- What a capacity range from repeats (llmd.loadpoints.capacity_interval) is, in words: not a
-- 95 % interval, but the loads measured around three capacities, the means' and the ones on
-- either end of the SLO metrics' 95 % confidence intervals, so that it is never narrower
-- than the loads measured.
M.RANGE_WHAT = "from the measured loads around the capacities on the means and on both ends of the repeats' 95 % "
  .. "intervals"

-- M.RANGE_WHAT for the ranges of capacities ca and cb, with what settled a load where each of 5
-- or more repeats lay on one side of an SLO (interval.sign, llmd.loadpoints.repeats_ends).
function M.range_what(ca, cb)
  for _, c in ipairs { ca or {}, cb or {} } do
    if type(c.interval) == "table" and type(c.interval.sign) == "table" and #c.interval.sign > 0 then
      return M.RANGE_WHAT .. ("; where each of %d or more repeats of a load lay on one side of an SLO, on that side "
        .. "at both ends (a sign test)"):format(lp.SIGN_MIN_REPEATS)
    end
  end
  return M.RANGE_WHAT
end

-- The measured bracket of a capacity at the SLOs, [lo, hi): llmd.loadpoints.bracket (from
-- the last load that met every SLO to the first that failed one, the figure between them
-- an estimate; a lower bound from its figure up, to the run's ceiling below; from 0 up to
-- the lowest load; nil, nil for an unknown or non-monotone capacity).
M.capacity_bracket = lp.bracket

-- The lowest and the highest capacity the evidence leaves room for: the range of the
-- repeats where there is one, else the measured bracket (M.capacity_bracket); never above
-- the run's ceiling (ceiling_rps, the most it achieved at any load, where it saturated).
function M.capacity_span(c)
  local lo, hi
  if c.interval then
    lo, hi = c.interval.lo, c.interval.hi
  elseif c.noise then
    -- one measured percentile per load: the range its uncertainty allows (lp.capacity_noise)
    lo, hi = c.noise.lo, c.noise.hi
  else
    lo, hi = M.capacity_bracket(c)
  end
  if c.ceiling_rps and c.ceiling_rps < hi then hi = c.ceiling_rps end
  return lo, hi
end

-- Two rates that differ by no more than float rounding (a relative 1e-9: the achieved rate of
-- one load point, n / duration, read from two files of different request counts) are one
-- rate: spans that meet by a float's width meet, never "apart" by a gap of +0.0 %.
function M.same_rate(x, y)
  return x == y or math.abs(x - y) <= 1e-9 * math.max(math.abs(x), math.abs(y))
end

-- Which of two spans [la, ha] and [lb, hb] lies wholly above the other: "b" where B's lower
-- end is above A's upper end, "a" the other way, nil where they overlap or meet (within float
-- rounding, M.same_rate). The one rule of M.capacity_evidence, M.ceiling_noise_order and
-- M.sustained_order.
function M.spans_apart(la, ha, lb, hb)
  if ha < lb and not M.same_rate(ha, lb) then return "b" end
  if hb < la and not M.same_rate(hb, la) then return "a" end
  return nil
end

-- A capacity as its means read it: c without the range of its repeats.
local function means_of(c)
  local copy = {}
  for k, v in pairs(c) do copy[k] = v end
  copy.interval, copy.noise = nil, nil
  return copy
end

-- Where the measured loads place a capacity by its means, whatever its repeats: its
-- measured bracket (M.capacity_bracket) within its run's ceiling (M.capacity_span of the
-- means); nil, nil for an unknown or non-monotone capacity.
function M.means_span(c)
  if M.capacity_bracket(c) == nil then return nil, nil end
  return M.capacity_span(means_of(c))
end

-- Where two capacities whose repeats' ranges overlap are a pass and a fail at the same offered
-- load by their means (one run met the SLOs where the other failed them, the load its means
-- pass at being the other's first failing one): {offered =, load_type =, passed = "a" | "b"};
-- nil otherwise. There no other load steps would order them, but more repeats at that load
-- could (M.capacity_touch_at orders a pass against a clear fail at one offered load): verify44
-- #2, seeds 602/603 at 9.5 req/s, said "the load steps are too coarse ... whatever the repeats".
--
-- open: what the repeats leave open, the loads where a run's repeats' 95 % intervals (or
-- their sign test, lp.repeats_ends) leave room for the other side of the SLOs, {run = "a" |
-- "b", offered =, room = "fail" | "meet"} each: the passing run's bad end (interval.upper_ends)
-- failing at or below that load, the failing run's good end (interval.lower_ends) meeting them
-- there or at a load above. Empty where neither does (the order is open on the achieved rates
-- there, M.capacity_touch_at). audit47 t7_12_13: every repeat of A met TTFT p90 at 8 req/s
-- offered and every one of B failed it, but one of B's repeats met it at 9 req/s (B's good end
-- non-monotone, its range up to 9.44 req/s); the text said "within the noise of the repeats
-- there ... more repeats at that load could settle it", of a load whose repeats were settled.
local function same_load_open(hi, lo, who_hi, who_lo, x)
  local open = {}
  local function num(v) return type(v) == "number" and v == v end
  local function at_or_above(v) return num(v) and (lp.close(v, x) or v > x) end
  -- each load's side on both ends, where the range keeps them (interval.ends, lp.capacity_interval):
  -- every load at or below x the passing run's bad end fails, every sustained load at or above
  -- it the failing run's good end meets (x0_14 of audit47: B's bad end failed at 8 and 9 req/s)
  local he, le = hi.interval and hi.interval.ends, lo.interval and lo.interval.ends
  if type(he) == "table" and type(le) == "table" then
    for _, e in ipairs(he) do
      if num(e.offered) and (e.offered < x or lp.close(e.offered, x)) and e.bad == false then
        open[#open + 1] = { run = who_hi, offered = e.offered, room = "fail" }
      end
    end
    for _, e in ipairs(le) do
      if at_or_above(e.offered) and e.good == true and not e.past then
        open[#open + 1] = { run = who_lo, offered = e.offered, room = "meet" }
      end
    end
    return open
  end
  -- the passing run as bad as its repeats allow: it must still meet the SLOs at x
  local hb = hi.interval and hi.interval.upper_ends
  if hb then
    if hb.kind == "non_monotone" then
      local f = hb.failed_offered and hb.failed_offered[1]
      if num(f) and (lp.close(f, x) or f < x) then
        open[#open + 1] = { run = who_hi, offered = f, room = "fail" }
      end
    elseif not at_or_above(hb.passing_offered) and num(hb.failing_offered) then
      open[#open + 1] = { run = who_hi, offered = hb.failing_offered, room = "fail" }
    end
  end
  -- the failing run as good as its repeats allow: it must still fail them at x, and at every
  -- load above it
  local lg = lo.interval and lo.interval.lower_ends
  if lg then
    if lg.kind == "non_monotone" then
      local m
      for _, v in ipairs(lg.passed_offered or {}) do
        if at_or_above(v) and (m == nil or v < m) then m = v end
      end
      if m then open[#open + 1] = { run = who_lo, offered = m, room = "meet" } end
    elseif at_or_above(lg.passing_offered) then
      open[#open + 1] = { run = who_lo, offered = x, room = "meet" }
    end
  end
  return open
end

function M.same_load_pass_fail(ca, cb)
  for _, x in ipairs { { "a", means_of(ca), means_of(cb), ca, cb }, { "b", means_of(cb), means_of(ca), cb, ca } } do
    local hi, lo = x[2], x[3]
    local po, fo = hi.passing_offered, lo.failing_offered
    if type(po) == "number" and type(fo) == "number" and hi.load_type ~= nil and hi.load_type == lo.load_type
      and lp.close(po, fo) then
      local other = x[1] == "a" and "b" or "a"
      return { offered = po, load_type = hi.load_type, passed = x[1],
        open = require("llmd.json").array(same_load_open(x[4], x[5], x[1], other, po)) }
    end
  end
  return nil
end

-- Two measured brackets that only touch: one run met every SLO at a load where the other
-- already failed one. "The same load" is the same load point of both ladders: the same
-- load type and offered load within REPEAT_TOLERANCE (what makes stages repeats of one
-- point), and achieved rates within it too (one run cannot have sustained more of it than
-- the other, beyond the noise the repeats rule allows). Then the first run's capacity is at
-- least that load and the other's below it: the order is known although the spans meet (or
-- overlap by less than the tolerance). With repeats (c.interval), the run that passed must
-- pass there on the upper ends of its SLO metrics' 95 % intervals (interval.upper_ends: the
-- capacity as bad as the repeats allow) and the other fail there on their lower ends
-- (interval.lower_ends: as good as they allow): the two runs' intervals lie on opposite
-- sides of the SLO at that load. Returns "a" | "b" (the higher); nil otherwise.
--
-- Offered rates (load type "rate"): the run that failed may have achieved less there than the
-- one that passed, by any amount (newuser44 #3). Both were sent one Poisson process of one
-- rate, so their achieved rates differ by that process's noise (or the failing one fell
-- behind, a fail too): the one that met the SLO at that offered rate is above the one that
-- failed it there, whatever the noise of the two achieved rates (rA met TTFT p90 at 6 req/s
-- offered in every repeat, 115 ms; rB failed it 6 times over, 3,144 ms: "within the noise of
-- 5.75 against 5.62 req/s" was no reason to say "cannot say"). Either way: the failing run
-- may have achieved more there too, by that same send noise (audit47 F4: t7_12_0, an A/A
-- pair, every repeat of A met TTFT p90 at 8 req/s offered and every one of B failed it, B's
-- achieved rate 4.8 % above A's, read "within the noise of the repeats there ... more repeats
-- could settle it"; the same pair with the send luck the other way was ordered). Such an order
-- is real but says nothing of its size: the least gap it allows is 0 (M.capacity_evidence
-- names no winner on it). The failing run may also be a
-- bound whose next load failed the SLO where its saturation could not be judged or it
-- saturated (kinds last_sustained, saturated with failing_offered): it failed there either
-- way. Not concurrency loads, where a faster server's answers come at a higher rate from
-- the same users. A pass and a fail within the latency's noise order nothing: the intervals
-- must lie on opposite sides of the limit, as above. M.capacity_touch_at: the same, with
-- {offered, load_type, passed_rps, failed_rps} of the load it holds at.
function M.capacity_touch(ca, cb, raw)
  return (M.capacity_touch_at(ca, cb, raw))
end

function M.capacity_touch_at(ca, cb, raw)
  -- (a pass and a fail of one measured percentile each, of unknown noise: no per-request
  -- data, noise_unknown; they order nothing at one load, M.capacity_evidence, so the gap
  -- is not cut at 0 either; raw: the touch all the same, for the evidence to say why)
  if not raw and not (ca.interval and cb.interval) and (ca.noise_unknown or cb.noise_unknown) then return nil end
  -- (relaxed: the achieved rates may differ beyond the tolerance only where both latencies'
  -- noise is known, the repeats' intervals or a one-run point's percentile interval: a pass
  -- and a fail of unknown noise are one draw each, held to the rates' noise as before)
  local function touch(hi, lo, relaxed)
    if not (hi and lo) then return nil end
    if not lp.capacity_has_figure(hi) then return nil end
    local failed_bound = (lo.kind == "last_sustained" or lo.kind == "saturated") and lo.first_failing
    if not (lo.kind == "interpolated" or lo.kind == "below_lowest" or failed_bound) then return nil end
    local p_rps = hi.kind == "interpolated" and hi.last_passing_rps or hi.rps
    local f_rps = lo.first_failing_rps
    local po, fo = hi.passing_offered, lo.failing_offered
    if not (type(p_rps) == "number" and type(f_rps) == "number" and type(po) == "number" and type(fo) == "number"
      and hi.load_type ~= nil and hi.load_type == lo.load_type and lp.close(po, fo)) then return nil end
    if not (lp.close(p_rps, f_rps) or (relaxed and hi.load_type == "rate")) then return nil end
    return { offered = po, load_type = hi.load_type, passed_rps = p_rps, failed_rps = f_rps }
  end
  -- the end of each capacity that must hold: the passing run's worst, the failing run's best
  -- (one measured percentile per load, lp.capacity_noise: the same on the ends of its
  -- uncertainty, the passing run's as bad as it allows, the failing run's as good)
  local function passing(c)
    if c.interval then return c.interval.upper_ends end
    return c.noise and c.noise.upper_ends or not c.noise and c
  end
  local function failing(c)
    if c.interval then return c.interval.lower_ends end
    return c.noise and c.noise.lower_ends or not c.noise and c
  end
  local relaxed = (ca.interval or ca.noise) and (cb.interval or cb.noise) and true or false
  -- a fail at a load the failing run did not sustain (past its saturation, or not judged:
  -- lp.capacity's failing_unsustained) orders nothing unless its repeats measured it: there
  -- its latencies are a queue's, whose length is the arrivals' luck, and one run's own
  -- interval says nothing of how long another run's queue would be. Two runs of one server
  -- near its limit saturate at that load or not by chance (fixa46: queue_sim --rates
  -- 6,7,8,8.5 --slots 20 --timeout 1, seeds 2007 and 2008, TTFT mean failed at 8 req/s offered
  -- by the one that saturated there, met by the other, read "b sustains more load"); the
  -- repeats' spread is that luck measured (newuser44 #3: rB failed 3 repeats of 6 req/s by
  -- 2,365-4,184 ms against 500 ms). Other evidence (spans apart beyond the rates' noise) may
  -- still order them.
  local function measured(c) return c.interval ~= nil or not c.failing_unsustained end
  local at = measured(cb) and touch(passing(ca), failing(cb), relaxed)
  if at then return "a", at end
  at = measured(ca) and touch(passing(cb), failing(ca), relaxed)
  if at then return "b", at end
  return nil
end

-- The same-load order of two capacities (M.capacity_touch, read off their load points in
-- req/s) where it holds in output tok/s too: "a" | "b" | false. It holds only where, in
-- tok/s, both spans end at that load: the higher run's tok/s span starts at its passing
-- point's own (an estimate whose failing point delivered no fewer; a bound whose floor_tps,
-- the fewest at that load or above, is its own point's), and the lower run's ends at its
-- failing point's (an estimate whose failing point delivered no fewer than its passing one;
-- a capacity below its lowest load), and both delivered the same tok/s there (within
-- REPEAT_TOLERANCE, lp.close, as the req/s rule's achieved rates). Elsewhere tok/s per
-- request that fall with the load
-- can put the higher run's capacity below the other's in tok/s although it sustained more
-- requests: its req/s order is no tok/s order.
function M.capacity_touch_tps(ca, cb)
  local t = M.capacity_touch(ca, cb)
  if not t then return false end
  local hi, lo = t == "a" and ca or cb, t == "a" and cb or ca
  local function num(x) return type(x) == "number" and x == x end
  -- where the ranges in tok/s (the repeats' intervals, or the load points' noise: lo_tps,
  -- hi_tps) are apart that way or meet, the same pass and fail orders them in tok/s too, whichever
  -- loads the ranges end at: the higher's capacity is no less than its range's lower end, the
  -- other's no more than its upper end (verify44 #3: rA met TTFT p90 at 6 req/s offered where rB
  -- failed it, achieving less, M.capacity_touch_at's relaxed rule; the tok/s ranges >= 575.4 and
  -- 372.4-562.2 tok/s, 100 output tokens a request, were said to leave either order open)
  local function range(c)
    local r = c.interval or c.noise
    if r then return r.lo_tps, r.hi_tps end
    return nil, nil
  end
  local h_lo = range(hi)
  local _, l_hi = range(lo)
  if num(h_lo) and num(l_hi) and (l_hi <= h_lo or lp.close(h_lo, l_hi)) then return t end
  local starts_at_passing
  if hi.kind == "interpolated" then
    starts_at_passing = num(hi.last_passing_tps) and num(hi.first_failing_tps)
      and hi.first_failing_tps >= hi.last_passing_tps
  else
    starts_at_passing = num(hi.floor_tps) and num(hi.output_tps) and hi.floor_tps >= hi.output_tps
  end
  local ends_at_failing = lo.kind == "below_lowest" or (num(lo.last_passing_tps) and num(lo.first_failing_tps)
    and lo.first_failing_tps >= lo.last_passing_tps)
  -- and there the two delivered the same tok/s (within REPEAT_TOLERANCE, as the req/s rule
  -- reads the achieved rates): a run of longer answers delivered more tok/s at that load, so
  -- the other's pass there orders nothing in tok/s (x failed at 20 req/s delivering 4000
  -- tok/s, y met the SLOs there with 2000: x's capacity may lie at 3990 tok/s, above y's)
  local hs = hi.kind == "interpolated" and hi.last_passing_tps or hi.floor_tps
  local le = lo.kind == "below_lowest" and lo.lowest_tps or lo.first_failing_tps
  local same = num(hs) and num(le) and lp.close(hs, le)
  return starts_at_passing and ends_at_failing and same and t or false
end

-- The order two capacities' gap (M.capacity_gap, g) shows: "b" where B's lowest is above
-- A's highest (or meets it at the same load: touch, M.capacity_touch or, in tok/s,
-- M.capacity_touch_tps), "a" the other way, nil where the gap allows either sign or is
-- unknown.
function M.gap_order(g, touch)
  if not g or g.lo_rps ~= g.lo_rps or g.hi_rps ~= g.hi_rps then return nil end
  if g.lo_rps > 0 or (touch == "b" and g.lo_rps == 0 and g.hi_rps > 0) then return "b" end
  if g.hi_rps < 0 or (touch == "a" and g.hi_rps == 0 and g.lo_rps < 0) then return "a" end
  return nil
end

-- Whether a capacity whose span is above the other's (their spans apart: M.capacity_evidence's
-- order) is above it beyond the noise of the two rates (c.rate_noise,
-- llmd.loadpoints.capacity_rate_noise: the 95 % interval of the higher one's span's lower end,
-- and of the lower one's upper end: its ceiling where it is a bound whose span ends there,
-- beyond_ceiling, else the load it already failed at, failed_rps), by M.gap_noise, the rule
-- M.sustained_order holds max sustained throughputs to: "a" | "b" where it is, nil where the
-- gap's interval reaches 0 or below, then the noise (M.gap_noise's, nil where the pair is no
-- such order or a rate's noise is unknown). Ranges from repeats on both sides are held to it
-- too (fixh42: they come of the SLO metrics' intervals at loads read by their means, not of the
-- achieved rates' noise; the rates' intervals, llmd.loadpoints.rate_interval, are widened to the
-- repeats' own spread of the rate: cAy >= 10.12 req/s against cB's ceiling 9.60 was "shown by the
-- repeats" beside a max sustained row that said the same two rates were within the noise).
-- (audit41: the failed_rps order had no noise check; the rule is one rule.)
function M.ceiling_noise_order(ca, cb, spans_only)
  if not (ca and cb) then return nil, nil end
  local la, ha = M.capacity_span(ca)
  local lb, hb = M.capacity_span(cb)
  if not (la and lb) then return nil, nil end
  local apart = M.spans_apart(la, ha, lb, hb)
  -- (a pass and a fail at the same load point, M.capacity_touch, are ordered by that load,
  -- whatever the noise of their achieved rates: the same load's, a float's width apart;
  -- spans_only: the noise of the spans all the same, for the gap an order by that load leaves)
  if not apart or (not spans_only and M.capacity_touch(ca, cb, true)) then return nil, nil end
  local chi, clo = apart == "b" and cb or ca, apart == "b" and ca or cb
  local lo_hi, hi_lo = apart == "b" and ha or hb, apart == "b" and lb or la
  local fz, cz = chi.rate_noise, clo.rate_noise
  if not (fz and cz and fz.fig_lo) then return nil, nil end
  local c_hi, c_n = cz.top_hi, cz.top_n
  if M.capacity_is_bound(clo) and clo.ceiling_rps and lo_hi == clo.ceiling_rps and not clo.ceiling_failing then
    c_hi, c_n = cz.ceiling_hi, cz.ceiling_n
  end
  if not c_hi then return nil, nil end
  local nz = M.gap_noise({ fig_lo = fz.fig_lo, fig_n = fz.fig_n, fig_repeats = fz.fig_repeats,
    ceil_hi = c_hi, ceil_n = c_n }, hi_lo, lo_hi)
  nz.higher = apart
  return nz.gap_lo > 0 and apart or nil, nz
end

-- Why two capacities whose spans are apart order nothing (nz: M.ceiling_noise_order's noise,
-- hi and lo the labels of the run the loads put above and the other, rate the formatter of one
-- rate): "the measured loads put y above x only within the noise of those rates: y's 24.50
-- req/s less x's 23.00 req/s, 1.50 req/s, has a 95 % interval from -0.54 req/s to 3.54 req/s
-- (from 1104 and 990 requests)". With repeats too: their ranges come of the SLO metrics'
-- intervals, not of the achieved rates' noise, so a range apart is no order by itself (fixh42).
function M.capacity_noise_text(nz, rate, hi, lo)
  return ("the measured loads put %s above %s only within the noise of those rates: %s's %s less %s's %s, %s, has a "
    .. "95 %% interval from %s to %s (from %d and %d requests)"):format(hi, lo, hi, rate(nz.fig_rps), lo,
    rate(nz.ceil_rps), rate(nz.gap), rate(nz.gap_lo), rate(nz.gap_hi), math.floor(nz.fig_n + 0.5),
    math.floor(nz.ceil_n + 0.5))
end

-- The difference of two capacities (B - A) that their spans (M.capacity_span) allow:
-- {lo_rps, hi_rps, lo_pct, hi_pct}: from B's lowest against A's highest to B's highest
-- against A's lowest; a percentage relative to A (math.huge where A may be 0 or B has no
-- upper end; nil where A's upper end is unknown). nil when a capacity is unknown.
-- touch: M.capacity_touch of the capacities in req/s, for a gap in another unit (output
-- tok/s: ca and cb then carry tok/s and no loads), so that both rows read the same-load rule
-- off the same load points (false: they do not touch); computed from ca and cb when nil.
function M.capacity_gap(ca, cb, touch)
  local known = CAPACITY_ORDERED
  if not (ca and cb and known[ca.kind] and known[cb.kind]) then return nil end
  local la, ha = M.capacity_span(ca)
  local lb, hb = M.capacity_span(cb)
  local g = { lo_rps = lb - ha, hi_rps = hb - la }
  if ha > 0 and ha ~= math.huge then g.lo_pct = (lb / ha - 1) * 100 end
  if la > 0 and hb ~= math.huge then g.hi_pct = (hb / la - 1) * 100 else g.hi_pct = math.huge end
  if ha == math.huge then g.lo_rps, g.lo_pct = -math.huge, nil end
  -- (spans that meet within float rounding, M.same_rate, meet: that end is 0, not 1e-14)
  if g.lo_pct and M.same_rate(lb, ha) then g.lo_rps, g.lo_pct = 0, 0 end
  if la > 0 and hb ~= math.huge and M.same_rate(hb, la) then g.hi_rps, g.hi_pct = 0, 0 end
  -- brackets that touch at one load (M.capacity_touch): the order is known, so the gap ends
  -- at 0 on the side it crossed to only by the noise of the achieved rates
  local t = touch
  if t == nil then t = M.capacity_touch(ca, cb) end
  if t == "a" and g.hi_rps > 0 then g.hi_rps, g.hi_pct = 0, 0 end
  if t == "b" and g.lo_rps < 0 then g.lo_rps, g.lo_pct = 0, 0 end
  -- spans one side of 0 whose order rests on a pass and a fail of unknown noise, too close
  -- to order them (M.capacity_evidence's noise_unknown: "either may be higher"): the end at
  -- or beyond 0 is no bound, so it is left open (M.open_gap), never "0 up to +46.47 req/s"
  -- beside an open order
  if M.gap_on_unknown_noise(ca, cb, g) then M.open_gap(g) end
  -- a bound above the other's ceiling within the noise of the rates (M.ceiling_noise_order):
  -- the end beside 0 runs to the noise's, within_noise = whose figure was above
  local w, nz = M.ceiling_noise_order(ca, cb)
  if nz and not w then M.widen_gap_by_noise(g, nz, la, ha, hb) end
  -- spans apart only within the noise of their rates, ordered by a pass and a fail at one
  -- offered rate (M.capacity_touch_at, newuser44 #3): the order is known, its size is not,
  -- so the end beside 0 is 0 ("at most 0", never "at most -0.13 req/s" read off two achieved
  -- rates 0.13 apart within a noise of 0.49)
  if t and M.gap_touch_within_noise(ca, cb) then M.gap_end_at_zero(g, t) end
  return g
end

-- Whether two capacities that a pass and a fail at one load order (M.capacity_touch) have
-- spans apart only within the noise of the rates they are read at (M.ceiling_noise_order's
-- rule, the touch left aside): the size of their gap is then unknown beyond its sign.
function M.gap_touch_within_noise(ca, cb)
  local w, nz = M.ceiling_noise_order(ca, cb, true)
  return nz ~= nil and w == nil
end

-- A gap g (B - A) whose order t ("a" | "b", the higher) is known but not its size: the end
-- beside 0 is 0. Changes g in place and returns it.
function M.gap_end_at_zero(g, t)
  if t == "a" and g.hi_rps < 0 then g.hi_rps, g.hi_pct = 0, 0 end
  if t == "b" and g.lo_rps > 0 then g.lo_rps, g.lo_pct = 0, 0 end
  return g
end

-- A capacity gap g (B - A, M.capacity_gap) whose spans are apart only within the noise of the
-- rates they are read at (nz: M.ceiling_noise_order's, nz.higher the run put above): its end
-- beside 0 runs to the noise's (the gap's 95 % interval), within_noise = nz.higher; la, ha, hb
-- the spans' ends the percentages are of. Changes g in place and returns it.
--
-- The far end carries the same noise (audit47 F3: g6aa1's Evidence gave B - A 0.09 req/s, 95 %
-- interval -0.99 to 1.16, beside a Delta of "-0.99 to +0.10", which leant against the order the
-- loads measured): the spans' far end (B's highest against A's lowest, or the mirror) is two
-- rates read as those the noise is of, so it runs out by the same half-width (the noise of
-- the far end's two rates is not counted separately: both ends are the same loads' rates,
-- a ceiling and a figure at most one load apart).
function M.widen_gap_by_noise(g, nz, la, ha, hb)
  g.within_noise = nz.higher
  local half = nz.gap - nz.gap_lo
  if nz.higher == "b" then
    if nz.gap_lo < g.lo_rps then
      g.lo_rps = nz.gap_lo
      g.lo_pct = ha > 0 and ha ~= math.huge and nz.gap_lo / ha * 100 or nil
    end
    if g.hi_rps ~= math.huge and half > 0 then
      g.hi_rps = g.hi_rps + half
      g.hi_pct = la > 0 and hb ~= math.huge and g.hi_rps / la * 100 or math.huge
    end
  elseif nz.higher == "a" then
    if -nz.gap_lo > g.hi_rps then
      g.hi_rps = -nz.gap_lo
      g.hi_pct = la > 0 and hb ~= math.huge and g.hi_rps / la * 100 or math.huge
    end
    if g.lo_rps ~= -math.huge and half > 0 then
      g.lo_rps = g.lo_rps - half
      g.lo_pct = ha > 0 and ha ~= math.huge and g.lo_rps / ha * 100 or nil
    end
  end
  return g
end

-- Does the gap two capacities' spans allow (g: M.capacity_gap, B against A) stay within the
-- practical threshold thr (%) at both ends, judged as every threshold is, on how far apart
-- the runs are whichever is A (M.magnitude: a rise of thr % or a fall of 100 thr / (100 +
-- thr) % reaches it)? false where an end is unknown or open. The one rule of "about the
-- same" (M.capacity_evidence, and the tok/s row's reading of it).
function M.gap_within(g, thr)
  return type(g) == "table" and g.lo_pct ~= nil and g.hi_pct ~= nil and M.magnitude(g.lo_pct) <= thr
    and M.magnitude(g.hi_pct) <= thr
end

-- The noise of two rates (nz: M.gap_noise's, in req/s) carried to the same two ends read in
-- another unit (fv, cv: the higher run's figure and the lower run's ceiling, in output tok/s):
-- each end keeps its relative half-width (a rate's noise is its count's; the tokens per
-- request at that load scale the rate and its interval alike), then M.gap_noise. nil where an
-- end is unknown or not above 0.
function M.gap_noise_scaled(nz, fv, cv)
  if not (nz and nz.fig_lo and nz.ceil_hi and nz.fig_rps and nz.ceil_rps) then return nil end
  if not (fv and cv and fv > 0 and cv > 0 and fv ~= math.huge and cv ~= math.huge) then return nil end
  if nz.fig_rps <= 0 or nz.ceil_rps <= 0 then return nil end
  local out = M.gap_noise({ fig_lo = fv * nz.fig_lo / nz.fig_rps, fig_n = nz.fig_n, fig_repeats = nz.fig_repeats,
    ceil_hi = cv * nz.ceil_hi / nz.ceil_rps, ceil_n = nz.ceil_n }, fv, cv)
  out.higher = nz.higher
  return out
end

-- Whether the sign of a capacity gap g (B - A, M.capacity_gap of ca and cb) rests on one
-- measured percentile per load of unknown noise (no repeats' ranges on both sides, a side
-- noise_unknown): its spans lie one side of 0 (or meet there), and M.unknown_noise_orders
-- does not hold (neither beyond the lower run's ceiling nor M.UNKNOWN_NOISE_GAP apart, or
-- apart only by a latency difference the files' noise may hide): the rule
-- M.capacity_evidence orders nothing by (order_open).
function M.gap_on_unknown_noise(ca, cb, g)
  if not g or (ca.interval and cb.interval) or not (ca.noise_unknown or cb.noise_unknown) then return false end
  local up = g.lo_rps >= 0 and "b" or g.hi_rps <= 0 and "a" or nil
  if not up then return false end
  local chi, clo = up == "b" and cb or ca, up == "b" and ca or cb
  local _, lo_hi = M.capacity_span(clo)
  local hi_lo = M.capacity_span(chi)
  if lo_hi == math.huge then return false end
  local beyond = M.capacity_is_bound(clo) and clo.ceiling_rps and lo_hi == clo.ceiling_rps and not clo.ceiling_failing
  return not M.unknown_noise_orders(ca, cb, up, beyond, M.mean_gap_pct(lo_hi, hi_lo))
end

-- The span of capacity c that a summary file's noise leaves (lp.capacity_noise's band, c.noise_band:
-- each such load's SLO figure anywhere within lp.UNKNOWN_NOISE_BAND % of itself), within its
-- run's ceiling; a capacity whose noise is known, its own span (M.capacity_span); nil, nil
-- for one of unknown noise without a band.
local function band_span(c)
  if c.noise_band then
    local lo, hi = c.noise_band.lo, c.noise_band.hi or math.huge
    if c.ceiling_rps and c.ceiling_rps < hi then hi = math.max(lo, c.ceiling_rps) end
    return lo, hi
  end
  if c.noise_unknown then return nil, nil end
  return M.capacity_span(c)
end

-- Whether the order up ("a" | "b": the run the measured loads put higher) of two capacities,
-- one or both of them read off summary files (one percentile or mean per load, of unknown
-- noise: noise_unknown), is evidence (task fixn50). Two conditions, both needed:
-- 1. the loads that decide it lie far apart: the higher run met the SLOs beyond the most the
--    other achieved at any load (beyond_ceiling), or its lower end is at least
--    M.UNKNOWN_NOISE_GAP above the other's upper end (margin_pct, about one load step, so that
--    a pass and a fail at neighbouring loads that noise alone can swap order nothing);
-- 2. that order survives a latency difference of the size such noise may hide: with every
--    summary load's SLO figure moved anywhere within lp.UNKNOWN_NOISE_BAND % of itself (both
--    runs, either way), the spans stay apart (band_span). Below saturation latency is flat in
--    load, so a few per cent of noise move pass and fail across the whole ladder: a capacity
--    gap, however large, from a small latency gap is none (audit50 F3: one server twice, TTFT
--    p90 212.9 against 193.0 ms at 1 req/s, "+192.7 %" at a 200 ms SLO). A failing figure far
--    beyond the limit, a passing one far within it, or a failure past its run's saturation
--    (its queue grew: the latency rose with load, a fail at both ends) still orders them.
function M.unknown_noise_orders(ca, cb, up, beyond_ceiling, margin_pct)
  return M.unknown_noise_why(ca, cb, up, beyond_ceiling, margin_pct) == nil
end

-- Which of M.unknown_noise_orders' two conditions leaves the order up open (nil: none, it is
-- evidence), for the texts that say why either may be higher (tidy55: they said only "too
-- close, or too near the limit", naming no load): {cond = "close", margin_pct} - the loads
-- that decide it less than M.UNKNOWN_NOISE_GAP apart (margin_pct nil: unknown); {cond =
-- "near_limit", margin_pct, beyond, a = {lo, hi}, b = {lo, hi}} - far enough apart, but with
-- every summary figure moved by lp.UNKNOWN_NOISE_BAND % each capacity may lie anywhere in its
-- span {lo, hi} (hi nil: no upper end), and the spans do not keep up above; {cond = "no_band"}:
-- a side's span under that noise is unknown.
function M.unknown_noise_why(ca, cb, up, beyond_ceiling, margin_pct)
  if not (beyond_ceiling or (margin_pct and margin_pct >= M.UNKNOWN_NOISE_GAP)) then
    return { cond = "close", margin_pct = margin_pct }
  end
  local la, ha = band_span(ca)
  local lb, hb = band_span(cb)
  if not (la and lb) then return { cond = "no_band" } end
  if M.spans_apart(la, ha, lb, hb) == up then return nil end
  -- (no upper end: hi nil, as comparison.json keeps it - JSON has no infinity)
  local function fin(v) return v ~= math.huge and v or nil end
  return { cond = "near_limit", margin_pct = margin_pct, beyond = beyond_ceiling or nil, a = { lo = la, hi = fin(ha) },
    b = { lo = lb, hi = fin(hb) } }
end

-- Why summary files' unknown noise leaves an order open, naming the loads (w: M.unknown_noise_why's
-- result; ev: M.capacity_evidence's, whose margin_hi and margin_lo are the ends that decide it,
-- the higher run's lower end and the lower run's upper end; rate: the formatter of one rate;
-- la, lb: the runs' labels, A's and B's). The clause after "either may be higher:", or nil
-- where w says nothing more than that the noise is unknown.
function M.unknown_noise_text(w, ev, rate, la, lb)
  if not w then return nil end
  local up = ev.measured_higher
  local hi, lo = up == "a" and la or lb, up == "a" and lb or la
  local function pct(v) return ("%.1f %%"):format(v) end
  if w.cond == "close" then
    if not (ev.margin_hi and ev.margin_lo and w.margin_pct) then return nil end
    return ("the loads that decide it lie too close: the measured loads put %s's capacity at %s or more and %s's "
      .. "at %s or less, %s of their mean apart, and a pass and a fail that each rest on one percentile of "
      .. "unknown noise order two runs only from %s apart"):format(hi, rate(ev.margin_hi), lo, rate(ev.margin_lo),
      pct(w.margin_pct), pct(M.UNKNOWN_NOISE_GAP))
  elseif w.cond == "near_limit" then
    local function span(s)
      if not s.hi and s.lo <= 0 then return "anywhere, with no bound either way" end
      if not s.hi then return ("at %s or more"):format(rate(s.lo)) end
      if s.lo <= 0 then return ("anywhere below %s"):format(rate(s.hi)) end
      return ("between %s and %s"):format(rate(s.lo), rate(s.hi))
    end
    local apart = w.beyond and ("%s met the SLO beyond the most %s achieved at any load"):format(hi, lo)
      or (ev.margin_hi and ev.margin_lo and w.margin_pct) and ("the measured loads put %s's capacity at %s or "
        .. "more and %s's at %s or less, %s of their mean apart"):format(hi, rate(ev.margin_hi), lo,
        rate(ev.margin_lo), pct(w.margin_pct))
      or ("the measured loads put %s above"):format(hi)
    return ("%s, but the figures that decide it lie too near the limit: with each summary figure %s%% off either "
      .. "way, %s's capacity may lie %s and %s's %s, which do not keep %s above"):format(apart,
      lp.UNKNOWN_NOISE_BAND .. " ", la, span(w.a), lb, span(w.b), hi)
  end
  return nil
end

-- A capacity gap g with the end that a one-signed range closes at or beyond 0 left open,
-- where the evidence leaves the order open (M.gap_on_unknown_noise): B above by the spans
-- gives lo_rps = -inf (no lower end: "at most +46.47 req/s"), A above gives hi_rps = +inf;
-- open = "lo" | "hi" says which. Changes g in place and returns it.
function M.open_gap(g)
  if not g then return g end
  if g.lo_rps >= 0 and g.hi_rps > g.lo_rps then
    g.lo_rps, g.lo_pct, g.open = -math.huge, nil, "lo"
  elseif g.hi_rps <= 0 and g.lo_rps < g.hi_rps then
    g.hi_rps, g.hi_pct, g.open = math.huge, math.huge, "hi"
  end
  return g
end

-- Where a max sustained throughput limit may lie (s: llmd.loadpoints.saturation's result, n:
-- the accelerators it is divided by, 1 for the total): from its figure up to the most the run
-- achieved at any load (its ceiling), with no upper end (math.huge) where it never
-- saturated; nil, nil where the figure is unknown. One rule for compare.lua's rows and
-- treatments.lua's order per GPU.
function M.sustained_span(s, n)
  n = n or 1
  if not (s and type(s.max_sustained_rps) == "number") then return nil, nil end
  local hi = s.none and math.huge or (s.ceiling_rps and math.max(s.ceiling_rps, s.max_sustained_rps))
    or s.max_sustained_rps
  return s.max_sustained_rps / n, hi / n
end

-- Whether a run saturated already at its lowest load (s: llmd.loadpoints.saturation's
-- result): no max sustained figure, a ceiling (the most it achieved at any load) known. Its
-- server fell behind there, so its limit is below that load and at most that ceiling. Not a
-- run cut there by its failures (cause "failures", or failures with the cut): what it could
-- sustain with fewer failures is not bounded by what it achieved while failing (a crashed
-- repeat's doing), nor one whose lowest load could not be judged.
function M.saturated_lowest(s)
  return type(s) == "table" and s.point == 1 and not s.none and type(s.max_sustained_rps) ~= "number"
    and type(s.ceiling_rps) == "number" and s.cause ~= "failures" and not s.failures and not s.unjudged or false
end

-- The gap between one run's figure fv and another's ceiling cv (fv - cv) and its 95 %
-- interval, into nz ({fig_lo, ceil_hi}: the lower end of the figure's interval and the upper
-- end of the ceiling's, llmd.loadpoints.rate_interval): each end's half-width combined as
-- independent errors are, sqrt(h_fig^2 + h_ceil^2); nz.gap, gap_lo, gap_hi. The one noise rule
-- of an order read off a ceiling: M.sustained_order's and M.capacity_evidence's
-- (beyond_ceiling). Returns nz.
function M.gap_noise(nz, fv, cv)
  local half = math.sqrt((fv - nz.fig_lo) ^ 2 + (nz.ceil_hi - cv) ^ 2)
  nz.gap, nz.gap_lo, nz.gap_hi = fv - cv, fv - cv - half, fv - cv + half
  nz.fig_rps, nz.ceil_rps = fv, cv -- (the two rates, for M.noise_settle_text)
  return nz
end

-- Beyond this many times as long, loads are no practical way to put a gap beyond the noise
-- of its rates (M.noise_settle_text).
M.SETTLE_MAX_LONGER = 100

-- The chance (power) with which the loads M.noise_settle_text asks for put a gap beyond the
-- noise if the gap is as measured (llmd.loadpoints', which sizes the repeats of a load the
-- same way), and the normal quantile at it (z_0.80, numpy/scipy norm.ppf(0.8) =
-- 0.8416212335729143).
M.SETTLE_POWER = lp.SETTLE_POWER
M.SETTLE_POWER_Z = 0.8416212335729143

-- What would settle an order the noise of two rates leaves open (nz: M.gap_noise's, fig_n
-- and ceil_n the requests each rate was counted from, fig_repeats the repeats of the
-- figure's load point (nil: 1); rate: the formatter of one rate): a rate's 95 % interval is
-- its count's, Poisson (llmd.loadpoints.rate_interval), so its half-width shrinks as the
-- square root of the requests behind it, and the gap's, h = sqrt(h_fig^2 + h_ceil^2), with
-- both. Loads k times as long that made h equal the gap g would clear 0 only half the time
-- with a true gap of g (audit42: k17 vs k20 slots "2.8 times as long" ordered them in about
-- half of the pairs); the measured gap is about normal with sd h / z (z = z_0.975), so it
-- clears the new half-width h / sqrt(k) with chance M.SETTLE_POWER where g / (h / (z
-- sqrt(k))) = z + z_power: k = ((z + z_power) / z)^2 (h / g)^2, 2.04 (h / g)^2 at 80 %:
-- "loads about 5.7 times as long: about 3080 and 3080 requests at those loads, not 540 and
-- 540 (about 351 s at 8.79 req/s, not 61 s), would put the gap beyond the noise with 80 %
-- chance if it is truly 0.64 req/s, as measured". With repeats, the seconds are a repeat's.
-- Longer loads, not repeats: a repeated load's rate is read with its repeats' Student-t
-- interval where that is wider (rate_interval), and t_0.975 with 2 degrees of freedom is
-- 4.30, so 3 repeats of a load are about twice as noisy as one load 3 times as long (audit42:
-- k17 vs k20 slots ordered in 8 of 20 pairs with 3 repeats of 60 s, 18 of 20 with one of 180
-- s); the text says so. Where k is over M.SETTLE_MAX_LONGER: a gap this small against the
-- noise needs loads over that many times as long; its order is practically unknowable from
-- longer loads. nil where the gap is 0 or less, or a count unknown. no_secs: no seconds
-- (rates per GPU, which the requests' time does not divide by).
function M.noise_settle_text(nz, rate, no_secs)
  if not (nz and nz.gap and nz.gap > 0 and nz.gap_lo and nz.fig_n and nz.ceil_n and nz.fig_rps) then return nil end
  local half = nz.gap - nz.gap_lo
  local z = lp.RATE_Z
  local k = ((z + M.SETTLE_POWER_Z) / z) ^ 2 * (half / nz.gap) ^ 2
  if k > M.SETTLE_MAX_LONGER then
    return ("the gap, %s, is so small against the noise of those rates that only loads over %d times as long could "
      .. "put it beyond that noise with %d %% chance"):format(rate(nz.gap), M.SETTLE_MAX_LONGER, M.SETTLE_POWER)
  end
  local reps = math.max(1, nz.fig_repeats or 1)
  local each = nz.fig_n / reps / nz.fig_rps
  local secs = not no_secs and (" (about %.0f s%s at %s, not %.0f s)"):format(k * each,
    reps > 1 and (" each of its %d repeats"):format(reps) or "", rate(nz.fig_rps), each) or ""
  return ("loads about %.1f times as long: about %d and %d requests at those loads, not %d and %d%s, would put the gap "
    .. "beyond the noise with %d %% chance if it is truly %s, as measured (longer loads, not more repeats: a "
    .. "repeated load's rate is read with its repeats' Student-t interval, which from 3 repeats is about twice as "
    .. "wide as from one load 3 times as long)"):format(k, math.ceil(k * nz.fig_n), math.ceil(k * nz.ceil_n),
    math.floor(nz.fig_n + 0.5), math.floor(nz.ceil_n + 0.5), secs, M.SETTLE_POWER, rate(nz.gap))
end

-- What settles lower bounds whose order only higher loads can tell (compare.lua's and
-- treatments.lua's Verdicts): "measure loads where each capacity lies, above its lower bound:
-- x above 10 req/s offered, its highest load, up to where it stops keeping up; ...". bounds:
-- one text each (M.above_bound_text, or the bracket report.lua's bound_settle names); what:
-- "capacity" | "max sustained throughput".
function M.bounds_advice(bounds, what)
  return ("measure loads where %s lies, above its lower bound: %s"):format(
    (#bounds > 1 and "each " or "that ") .. what, table.concat(bounds, "; "))
end

-- One run's part of M.bounds_advice where its bound is its highest load: "x above 10 req/s
-- offered, its highest load, up to where it stops keeping up" (lo: that load's text, nil
-- unknown; till: what ends the search).
function M.above_bound_text(label, lo, till)
  return ("%s above %s, up to where %s"):format(label, lo and (lo .. ", its highest load") or "its highest load", till)
end

-- Whether the measured loads order two max sustained throughputs (sa, sb with na, nb
-- accelerators, as M.sustained_span): "a" or "b" where one's figure is above the other's
-- whole span (the other never achieved as much at any load), nil where the spans overlap
-- (two lower bounds always do: neither has an upper end), then the spans {la, ha, lb, hb}.
-- With min_effect (%), an order by less (the higher figure against the other's ceiling, of
-- their mean) is none: nil, with spans.below_threshold = "a" or "b" (whose figure was above)
-- and spans.margin_pct, as compare.lua's row says "not shown to differ", but only where the
-- largest gap the spans allow (the higher's ceiling against the lower's figure) is below it
-- too; where it is not, nil too (fixh46: no order on a least gap below the threshold, as
-- M.capacity_evidence), with spans.least_below_threshold = true, margin_higher (the run at
-- least as high), margin_pct and margin_max_pct (nil: no upper end) (M.least_gap_text).
--
-- A run saturated at its lowest load (no figure: M.saturated_lowest) sustains less than that
-- load and at most its ceiling: its span is 0 to its ceiling, so the other's figure above that
-- ceiling orders them (k20 sustained 7.84 req/s, k10 never achieved more than 4.85 at any
-- load); two such runs are not ordered (nil, nil: both limits are unknown, whatever their
-- ceilings).
--
-- Spans apart by less than the noise of the rates they are read off are no order (audit40:
-- two runs of one server, A "sustained 9.76 req/s" where B "never achieved more than 9.74",
-- a kept-up point's rate being its Poisson send rate, +-8.6 % from its 135 requests): the
-- gap, the higher run's figure less the lower run's ceiling, must be above 0 over its whole
-- 95 % interval, both rates' noise counted (llmd.loadpoints.saturation's noise: each rate's
-- 95 % interval from the requests counted in its window, widened to the repeats' spread
-- where repeated; half-widths h_fig and h_ceil combine as sqrt(h_fig^2 + h_ceil^2)). Else
-- nil, with spans.within_noise = "a" or "b" (whose figure was above) and spans.noise =
-- {fig_lo, fig_n (the lower end of the higher figure's interval and its count), ceil_hi,
-- ceil_n (the upper end of the lower run's ceiling's), gap, gap_lo, gap_hi}
-- (M.sustained_noise_text). spans_only: the spans alone, for an order shown otherwise (by a
-- test of repeats) whose least gap is said beside it. Where a count is unknown (fig_lo or ceil_hi nil: files that
-- count no requests, synthetic ones) the spans alone decide, as before, with noise.unknown.
-- compare.lua and treatments.lua both order by this function.
function M.sustained_order(sa, na, sb, nb, min_effect, spans_only, token_gap)
  local la, ha = M.sustained_span(sa, na)
  local lb, hb = M.sustained_span(sb, nb)
  if not la and lb and M.saturated_lowest(sa) then la, ha = 0, sa.ceiling_rps / (na or 1) end
  if not lb and la and M.saturated_lowest(sb) then lb, hb = 0, sb.ceiling_rps / (nb or 1) end
  if not (la and lb) then return nil, nil end
  local spans = { la = la, ha = ha, lb = lb, hb = hb }
  local order = M.spans_apart(la, ha, lb, hb)
  if order and not spans_only then
    local hi_s, hi_n = order == "b" and sb or sa, (order == "b" and nb or na) or 1
    local lo_s, lo_n = order == "b" and sa or sb, (order == "b" and na or nb) or 1
    local fig = type(hi_s.noise) == "table" and hi_s.noise.sustained or nil
    local ceil = type(lo_s.noise) == "table" and lo_s.noise or {}
    local nz = { fig_lo = fig and fig.lo / hi_n, fig_n = fig and fig.n, fig_repeats = fig and fig.repeats,
      ceil_hi = ceil.ceiling_hi and ceil.ceiling_hi / lo_n, ceil_n = ceil.ceiling_n }
    spans.noise = nz
    -- (files that count no requests, which no supported harness writes, leave the noise
    -- unknown: the spans alone, as before; nz.unknown says so)
    nz.unknown = not (nz.fig_lo and nz.ceil_hi) or nil
    if not nz.unknown then
      local fv, cv = order == "b" and lb or la, order == "b" and ha or hb
      M.gap_noise(nz, fv, cv)
      if nz.gap_lo <= 0 then
        spans.within_noise = order
        return nil, spans
      end
    end
  end
  if order and min_effect then
    local m = order == "b" and M.order_gap_pct(ha, lb) or M.order_gap_pct(hb, la)
    if m and m < min_effect then
      local hi_hi, lo_lo = order == "b" and hb or ha, order == "b" and la or lb
      local big = hi_hi ~= math.huge and M.order_gap_pct(lo_lo, hi_hi) or nil
      if big and big < min_effect then
        -- (both ends within the threshold: about the same, as M.capacity_evidence's
        -- below_threshold; margin_max_pct the largest, which that claim rests on too), but only
        -- where it holds with each run held to the other's tokens (fixh53, M.capacity_token_same's
        -- rule: the run they favour has its request rate divided by what they favour it by, and
        -- the other's upper end against its held lower end stays within the threshold); else
        -- spans.token_same (as M.capacity_token_same's), no order and no sameness
        local ts = token_gap and M.sustained_token_same(spans, token_gap, min_effect)
        if ts then
          spans.token_same, spans.margin_pct, spans.margin_max_pct = ts, m, big
          return nil, spans
        end
        spans.below_threshold, spans.margin_pct, spans.margin_max_pct = order, m, big
        return nil, spans
      end
      spans.least_below_threshold, spans.margin_pct, spans.margin_max_pct = true, m, big
      -- (the figures the least gap is read on: where the spans meet, when they do)
      spans.margin_hi, spans.margin_lo = order == "b" and lb or la, order == "b" and ha or hb
      -- the largest beyond the threshold (or with no upper end) leaves the gap anywhere from
      -- below the threshold up: no order is named, as M.capacity_evidence names none (the
      -- latency rows' rule: a winner only where the whole interval is beyond the threshold),
      -- so that the two rows never disagree; margin_higher: the run at least as high
      spans.margin_higher = order
      -- (fixb52's token rule on that "at least as high": where the request rate's token ratio
      -- can put the higher run's figure at or below the other's ceiling, even the order is not
      -- known, review52; M.token_order_explained at a threshold of 0, the order's direction):
      -- token_explained as below, the at-least-as-high fields cleared
      local te = token_gap and M.token_order_explained { gap = token_gap, hi = order, min_effect = 0,
        hi_fig = spans.margin_hi, lo_fig = spans.margin_lo }
      if te then
        spans.token_explained, spans.least_below_threshold, spans.margin_higher = te, nil, nil
      end
      return nil, spans
    end
  end
  -- runs whose token lengths differ beyond their noise (token_gap: M.token_gap of their
  -- whole-run sets): an order a request rate's token ratio can explain names no run
  -- (M.token_order_explained, the higher run's figure against the other's ceiling): nil, with
  -- spans.token_explained (its result)
  if order and token_gap then
    local te = M.token_order_explained { gap = token_gap, hi = order, min_effect = min_effect,
      hi_fig = order == "b" and lb or la, lo_fig = order == "b" and ha or hb }
    if te then
      spans.token_explained = te
      return nil, spans
    end
  end
  return order, spans
end

-- M.capacity_token_same's rule on two max sustained throughputs' spans (sp: la, ha, lb, hb, in
-- req/s) of runs whose token lengths differ (gap: M.token_gap): nil where their gap, held to the
-- tokens, stays within the threshold (%) of their mean; else {te, favoured, held_pct, other_hi,
-- fav_lo} as M.capacity_token_same's token_same.
function M.sustained_token_same(sp, gap, min_effect)
  local thr = min_effect or M.MIN_EFFECT
  for _, fav in ipairs { "a", "b" } do
    local te = M.token_order_explained { gap = gap, hi = fav, min_effect = thr }
    if te then
      local held = (fav == "a" and sp.la or sp.lb) / (1 + te.unit_pct / 100)
      local o_hi = fav == "a" and sp.hb or sp.ha
      local pct = o_hi == math.huge and math.huge or (o_hi > held and M.order_gap_pct(held, o_hi)) or nil
      if pct and pct >= thr then
        return { te = te, favoured = fav, held_pct = pct, other_hi = o_hi, fav_lo = held }
      end
    end
  end
  return nil
end

-- Why spans that the measured loads put apart (sp: M.sustained_order's spans with
-- within_noise) order nothing, as every output says it, with rate the formatter of one rate
-- ("9.76 req/s") and hi, lo the labels of the run whose figure was above and the other:
-- "but within the noise of those rates: A's figure less B's ceiling, 0.02 req/s, has a 95 %
-- interval from -2.15 req/s to 2.19 req/s (A's figure from 165 requests, B's ceiling from
-- 150), so either may be higher; for these rates, more requests at each load (longer loads,
-- rather than repeats) would tell" (why not repeats: M.noise_settle_text; "for these rates":
-- fixl45 #4, beside the capacity's advice, which asks repeats for a latency percentile near
-- its SLO: report.lua settle_text, each saying which figure it is about).
function M.sustained_noise_text(sp, rate, hi, lo)
  local nz = sp.noise or {}
  return ("but within the noise of those rates: %s's figure less %s's ceiling, %s, has a 95 %% interval from %s to %s "
    .. "(%s's figure from %d requests, %s's ceiling from %d), so either may be higher; for these rates, more requests "
    .. "at each load (longer loads, rather than repeats) would tell"):format(hi, lo, rate(nz.gap), rate(nz.gap_lo),
    rate(nz.gap_hi), hi, math.floor(nz.fig_n + 0.5), lo, math.floor(nz.ceil_n + 0.5))
end

-- Beyond this upper end (in %: B more than 11 times A) a percentage range of a capacity gap
-- says nothing a reader can use: it comes of a span of A's that starts near 0 (a bracket from
-- 0 below the lowest load, or from a low load), and "+37.8 % to +8,234.0 %" reads as a
-- finding. The gap's own numbers stay (lo_pct, hi_pct); its text is "at least +37.8 %",
-- beside the range in req/s.
M.GAP_PCT_MAX = 1000

-- The Change of a capacity gap (M.capacity_gap) as a reader can use it, with pct the
-- formatter of one percentage ("+12.3 %"): "+22.8 % to +83.7 %"; "+37.8 %" when both ends
-- are one; "at least +37.8 %" where the upper end is unbounded (A may be 0, or B is a
-- bound) or beyond M.GAP_PCT_MAX ("-15.0 % or more, no upper end (either may be
-- higher)" where the lower end is below 0, "any (...)" where it is -100 %); "at most
-- +12.0 % (either may be higher)" where only the upper end is known (A is a lower bound, or
-- the lower end is open, M.open_gap: no lower end below an upper end above 0 orders
-- nothing); "-40.6 % up to 0" where
-- an end is 0; nil when neither end is known.
function M.gap_pct_text(g, pct)
  if not g then return nil end
  local lo, hi = g.lo_pct, g.hi_pct
  if lo == nil then
    -- (no lower end, an upper end above 0: B may be lower by any amount, so either may be
    -- higher, said so; "at most +36.4 %" alone reads as B higher by up to that)
    if hi and hi ~= math.huge and hi <= M.GAP_PCT_MAX then
      -- (an end at exactly 0: B below A, by how much unknown, never "at most +0.0 %")
      if math.abs(hi) < 1e-9 then return "0 or less, no lower end" end
      return "at most " .. pct(hi) .. (hi > 0 and " (either may be higher)" or "")
    end
    return nil
  end
  if hi == nil or hi == math.huge or hi > M.GAP_PCT_MAX then
    -- (below 0, "at least -14.0 %" reads as "B at least 14 % lower", and "at least -100.0 %"
    -- says nothing: the range runs from below 0, so either may be higher)
    if lo <= -99.95 then return "any (no end of the range bounds it)" end
    if lo < 0 then return pct(lo) .. " or more, no upper end (either may be higher)" end
    -- (ranges that meet at one load, no upper end: "at least +0.0 %" would read as a gap
    -- measured at 0; the higher run is not below the other, by how much is open)
    if math.abs(lo) < 1e-9 then return "0 or more, no upper end" end
    return "at least " .. pct(lo)
  end
  if lo == hi then return pct(lo) end
  -- an end at exactly 0 (B met the SLO where A failed it, at the same load) is no "+0.0 %":
  -- "-40.6 % up to 0"
  if math.abs(hi) < 1e-9 then return pct(lo) .. " up to 0" end
  if math.abs(lo) < 1e-9 then return "0 up to " .. pct(hi) end
  return pct(lo) .. " to " .. pct(hi)
end

-- The verdict "no clear difference" of two capacities (M.capacity_evidence: ranges from
-- repeats that overlap) in words that never read as sameness: "either may be higher" (the
-- overlap of ranges that allow -15 % to +80 % is no "no clear difference", which reads as
-- sameness), with the gap the ranges allow (g: M.capacity_gap of the two, B - A; pct: the
-- formatter of one percentage, "+12.3 %"; who: whose gap, "y vs x", in brackets after it, or
-- nil): "either may be higher — the repeats' ranges overlap; the gap could be anywhere from
-- -17.8 % to +438.0 % (y vs x)". An end of the gap that is unbounded or beyond M.GAP_PCT_MAX is said so ("anything
-- from -17.8 % up"); neither end known: "the ranges leave room for any gap". The verdict
-- itself stays "no clear difference" (what reads it); this is its text, for every output
-- that prints it. held: M.token_held_gap_text's words of the gap held to the runs' tokens
-- (token54), after it ("... (y vs x) as measured, and from -36.0 % to +100.0 % held to x's
-- tokens (...): the requests differ (...)"), or nil.
function M.no_clear_difference_text(g, pct, who, held)
  local lo, hi = g and g.lo_pct, g and g.hi_pct
  local open_hi = hi == nil or hi == math.huge or hi > M.GAP_PCT_MAX
  local gap
  if lo ~= nil and not open_hi then
    gap = lo == hi and ("the gap they allow is %s"):format(pct(lo))
      or ("the gap could be anywhere from %s to %s"):format(pct(lo), pct(hi))
  elseif lo ~= nil then
    gap = ("the gap could be anything from %s up"):format(pct(lo))
  elseif not open_hi then
    gap = ("the gap could be anything up to %s"):format(pct(hi))
  else
    gap = "the ranges leave room for any gap"
  end
  return ("either may be higher — the repeats' ranges overlap; %s%s%s"):format(gap, who and (" (" .. who .. ")") or "",
    held or "")
end

-- What two capacities at the SLOs (ca, cb: llmd.loadpoints.capacity, with .interval = the
-- range llmd.loadpoints.capacity_interval allows where every load point was repeated) show,
-- and on what evidence: {verdict = "A higher" | "B higher" | "about the same" (figures within
-- the threshold whose spans keep the gap within it too) | "not shown to differ" (figures
-- within the threshold whose spans allow a gap beyond it: gap_wide = true, or with ranges
-- from repeats on both sides steps_cannot_order / open_range as below; ranges from repeats
-- the load steps cannot order, steps_cannot_order = true) | "about the same" too for an order
-- the loads show by a margin within the threshold at both ends (below_threshold = true,
-- below) | "no clear
-- difference" | "untested" | "not comparable" | "broken" | "unknown", basis = "repeats" |
-- why there is no range (e.g. "one run per load"), winner = "a" | "b" (shown by the
-- repeats), higher = "a" | "b" (the higher run, untested: only where the measured loads
-- order them)}. With repeats at every load point of both runs a winner needs the two
-- ranges to be apart; overlapping ranges are "no clear difference" (or "not shown to
-- differ", below). Without, the figures are one
-- measurement per load: "untested", never a winner. Capacity is not a p-value, so it is not in a Holm family.
-- The order of two capacities is known only where their spans (M.capacity_span: the
-- measured bracket, [last load that met the SLOs, first that failed one), or the repeats'
-- range; never above the ceiling) do not overlap: an interpolated figure is an estimate
-- between two measured loads and orders nothing. Apart: ordered = true, and
-- - beyond_ceiling = true when the lower run's span ends at its ceiling (it never achieved
--   the other's lower end at any load): ceiling_rps = that ceiling, sustained_rps = the
--   higher run's lower end;
-- - else failed_rps = where the lower run's span ends (the load at which it already failed
--   the SLOs), passed_rps = the higher run's lower end (a load at which it met them).
-- Ranges from repeats that overlap where the means' measured brackets overlap too: the
-- load steps cannot order them, whatever the repeats (no test could): verdict "not shown to
-- differ" with steps_cannot_order = true (never "no clear difference", which reads as
-- sameness; the gap_wide "not shown to differ" is the other case of that verdict).
-- Ranges from repeats that overlap where one of them has no upper end or reaches down to 0
-- (open-ended: they leave room for any gap): verdict "not shown to differ" with open_range
-- = true, never "no clear difference".
-- Overlapping spans: order_open = true ("either may be higher"), higher absent and
-- measured_higher = "a" | "b" (the larger figure, no order), and where only one run has
-- a range from repeats and the other's figure lies inside it, within_range = "a" | "b".
-- Two lower bounds that overlap are "unknown".
-- opts.error_dispersion: {a =, b =} (M.error_slo_dispersion of each run, either nil): where
-- either is given, an error-rate SLO that run's repeats disagree on beyond chance decides
-- nothing: verdict "not shown to differ", overdispersed = that table, no order.
-- opts.workload_differs: the texts of the differences between the runs' requests
-- (M.token_differences): the capacities of different workloads are "not comparable", and
-- differences = those texts. opts.runs: the two runs behind ca and cb ({label, status,
-- reasons} each, a run model or a treatment): where one's health check failed (status
-- "failed": a Traceback in its stderr.log, ...), its capacity says nothing of its
-- configuration: verdict "broken", broken = M.broken_texts(opts.runs), no order. The rule
-- is checked here, where the evidence is built, so that no output reading it can forget it
-- (opts.broken: those texts, given instead of the runs).
-- opts.token_gap (M.token_gap of the runs' whole-run sets, nil where their lengths match): an
-- order (a winner, or the measured loads' untested one) that the runs' token lengths can
-- explain (M.token_order_explained, with opts.slo the SLO list and opts.recompute(side,
-- slo2) -> that run's capacity read again at slo2, built as ca and cb were) names no run:
-- verdict "not shown to differ", token_explained = its result, measured_higher = the run
-- the loads put above; winner, higher and ordered cleared.
local capacity_evidence_core
function M.capacity_token_check(ev, ca, cb, min_effect, opts)
  local gap = opts and opts.token_gap
  local hi = ev.winner or (ev.verdict == "untested" and ev.ordered and ev.higher) or nil
  -- an order whose least gap is below the threshold ("at least as high", least_below_threshold)
  -- is held to its direction (a threshold of 0): where the tokens can put the higher run at or
  -- below the other, even "at least as high" is not known (review52)
  local direction = not hi and ev.least_below_threshold and ev.margin_higher or nil
  hi = hi or direction
  if not (gap and hi) then return ev end
  local rest = {}
  for k, v in pairs(opts) do rest[k] = v end
  rest.token_gap = nil
  local te = M.token_order_explained { gap = gap, hi = hi, slo = opts.slo,
    min_effect = direction and 0 or min_effect, hi_fig = ev.margin_hi, lo_fig = ev.margin_lo,
    reorder = opts.recompute and function(slo2)
      local c2 = opts.recompute(hi, slo2)
      if not c2 then return nil end
      local e2 = capacity_evidence_core(hi == "a" and c2 or ca, hi == "b" and c2 or cb, min_effect, rest)
      local h2 = e2.winner or (e2.verdict == "untested" and e2.ordered and e2.higher)
        or (direction and (e2.below_threshold or e2.least_below_threshold) and e2.margin_higher) or nil
      return h2, e2.margin_hi, e2.margin_lo
    end }
  if not te then return ev end
  ev.verdict, ev.token_explained, ev.measured_higher = "not shown to differ", te, hi
  ev.winner, ev.higher, ev.ordered = nil, nil, nil
  ev.least_below_threshold, ev.margin_higher = nil, nil
  return ev
end

function M.capacity_evidence(ca, cb, min_effect, opts)
  local ev = capacity_evidence_core(ca, cb, min_effect, opts)
  ev = M.capacity_token_check(ev, ca, cb, min_effect, opts)
  ev = M.capacity_token_same(ev, ca, cb, min_effect, opts)
  return M.capacity_token_gap(ev, ca, cb, min_effect, opts)
end

-- The bounded claim of "about the same" held to the runs' tokens (fixh53): two capacities whose
-- gap the spans keep within the practical threshold both ways, of runs whose requests' token
-- lengths differ beyond their noise (opts.token_gap), are about the same only where the gap
-- stays within it with each run held to the other's tokens, by M.token_order_explained's one
-- rule: the run the tokens favour (fav) has its SLO limits on metrics they move read again
-- (opts.recompute), and its request rate divided by the factor they favour it by, as far as they
-- can explain (0 up to that: its span's lower end the lower of the two readings, divided). One
-- server whose outputs are 4 % shorter on a server 4 % slower reads the same req/s, but held to
-- equal tokens one does 4 % more work a request (tests/sim/fixh53_same.py). Where the gap held
-- (the other run's upper end against fav's held lower end: of their mean for an order the loads
-- show, below_threshold; else how far apart, M.magnitude, as M.gap_within) reaches the
-- threshold: verdict "not shown to differ", token_same = {te (M.token_order_explained's, with
-- fav as its higher), favoured = fav, held_pct (that gap, %), other_hi, fav_lo (the req/s it is
-- read on)}, measured_higher = the run whose figure is the larger; below_threshold and
-- margin_higher cleared. Else ev unchanged.
-- The run fav's capacity (cf) held to the other's tokens (gap: M.token_gap), by
-- M.token_order_explained's one rule: its SLO limits on metrics the tokens move read again
-- (opts.recompute; its capacity there unknown: no lower end, 0), its span's lower end the lower
-- of the two readings, divided by the factor the tokens favour its request rate by, as far as
-- they can explain (0 up to that). Returns te (M.token_order_explained's, fav its higher) and
-- that held lower end (req/s), or nil where the tokens favour fav in nothing or its span is
-- unknown. The one reading of capacity_token_same and capacity_token_gap.
local function capacity_held_low(fav, cf, gap, thr, opts)
  local c2
  local te = M.token_order_explained { gap = gap, hi = fav, slo = opts.slo, min_effect = thr,
    reorder = opts.recompute and function(slo2)
      c2 = opts.recompute(fav, slo2)
      return nil
    end }
  if not te then return nil end
  local f_lo = M.capacity_span(cf)
  if not f_lo then return nil end
  if c2 and CAPACITY_ORDERED[c2.kind] then
    f_lo = math.min(f_lo, (M.capacity_span(c2)))
  elseif te.limits then
    f_lo = 0 -- (its capacity at the moved limits unknown: no lower end)
  end
  return te, f_lo / (1 + te.unit_pct / 100)
end

function M.capacity_token_same(ev, ca, cb, min_effect, opts)
  local gap = opts and opts.token_gap
  if not (gap and next(gap) and ev.verdict == "about the same") then return ev end
  local thr = min_effect or M.MIN_EFFECT
  for _, fav in ipairs { "a", "b" } do
    local cf, co = fav == "a" and ca or cb, fav == "a" and cb or ca
    local te, held = capacity_held_low(fav, cf, gap, thr, opts)
    local _, o_hi = M.capacity_span(co)
    if te and not o_hi then return ev end
    if te then
      local pct
      if o_hi == math.huge or held <= 0 then
        pct = math.huge
      elseif o_hi > held then
        pct = M.order_gap_pct(held, o_hi)
      end
      if pct and (ev.below_threshold and pct >= thr or not ev.below_threshold and pct > thr) then
        ev.verdict, ev.token_same = "not shown to differ", { te = te, favoured = fav, held_pct = pct,
          other_hi = o_hi, fav_lo = held }
        ev.measured_higher = ev.margin_higher or ((ca.rps and cb.rps) and (cb.rps > ca.rps and "b" or "a")) or nil
        ev.below_threshold, ev.margin_higher = nil, nil
        return ev
      end
    end
  end
  return ev
end

-- The gap two runs' spans allow (g: M.capacity_gap's, B - A; sp = {la, ha, lb, hb}, its spans)
-- held to the runs' tokens (token54: "no clear difference" stated the measured gap alone, while
-- every other kind holds its claim to them), by the rule of M.capacity_token_same: low(side) ->
-- te, held (that run's span's lower end held to the other's tokens; nil where the tokens favour
-- it in nothing). Where they favour B, its held lower end against A's upper end lowers the
-- gap's lower end; where they favour A, B's upper end against A's held lower end raises its
-- upper end (each end only ever widened: the tokens explain 0 up to that). Returns nil where
-- they favour neither, else {lo_pct, hi_pct (the held ends, % of A as g's: nil no lower end,
-- math.huge no upper end), measured_lo_pct, measured_hi_pct (g's), a, b (te of the run they
-- favour, M.token_order_explained's)}.
function M.token_held_gap(g, sp, low)
  if not (g and sp and sp.ha and sp.hb) then return nil end
  local h = { lo_pct = g.lo_pct, hi_pct = g.hi_pct, measured_lo_pct = g.lo_pct, measured_hi_pct = g.hi_pct }
  local te_b, lb = low("b")
  if te_b then
    h.b = te_b
    if h.lo_pct ~= nil and sp.ha > 0 and sp.ha ~= math.huge then
      h.lo_pct = math.min(h.lo_pct, (lb / sp.ha - 1) * 100)
    end
  end
  local te_a, la = low("a")
  if te_a then
    h.a = te_a
    if h.hi_pct ~= nil and h.hi_pct ~= math.huge then
      h.hi_pct = (la > 0 and sp.hb ~= math.huge) and math.max(h.hi_pct, (sp.hb / la - 1) * 100) or math.huge
    end
  end
  if not (te_a or te_b) then return nil end
  return h
end

-- Two capacities whose ranges from repeats overlap ("no clear difference", ev) of runs whose
-- requests' token lengths differ beyond their noise (opts.token_gap): the gap their ranges allow
-- held to the tokens (M.token_held_gap, each run read by capacity_held_low), in ev.token_held;
-- the verdict stays (either may be higher either way). ev unchanged otherwise.
function M.capacity_token_gap(ev, ca, cb, min_effect, opts)
  local gap = opts and opts.token_gap
  if not (gap and next(gap) and ev.verdict == "no clear difference") then return ev end
  local la, ha = M.capacity_span(ca)
  local lb, hb = M.capacity_span(cb)
  if not (la and lb) then return ev end
  local thr = min_effect or M.MIN_EFFECT
  ev.token_held = M.token_held_gap(M.capacity_gap(ca, cb), { la = la, ha = ha, lb = lb, hb = hb }, function(side)
    return capacity_held_low(side, side == "a" and ca or cb, gap, thr, opts)
  end)
  return ev
end

-- The same for two max sustained throughputs' limits (g: their gap, B - A; sp: their spans,
-- {la, ha, lb, hb} in req/s, each from its figure (or its interval's lower end) up to its
-- ceiling) of runs whose token lengths differ (gap: M.token_gap): each run's lower end divided
-- by the factor the tokens favour its request rate by (no SLO limits: M.sustained_token_same's
-- reading). nil where they favour neither.
function M.sustained_token_gap(g, sp, gap)
  if not (gap and next(gap)) then return nil end
  return M.token_held_gap(g, sp, function(side)
    local te = M.token_order_explained { gap = gap, hi = side }
    if not te then return nil end
    return te, (side == "a" and sp.la or sp.lb) / (1 + te.unit_pct / 100)
  end)
end

-- The parts of "held to A's tokens (B's request rate up to 4.2 % lower for them, B's End-to-end
-- latency p90 read against 7,680.0 ms for 8,000.0 ms)": what holding fav (fav_label) to the
-- other's tokens moved (te: M.token_order_explained's); fmt(key, v): a limit's figure.
local function held_parts(te, fav_label, fmt)
  local held = {}
  if te.unit_pct and te.unit_pct > 0 then
    held[#held + 1] = ("%s's %s up to %.1f %% lower for them"):format(fav_label, te.unit == "tok/s" and "output tok/s"
      or "request rate", te.unit_pct)
  end
  for _, l in ipairs(te.limits or {}) do
    local label = metrics.has(l.key) and metrics.get(l.key).label or l.key
    held[#held + 1] = ("%s's %s read against %s for %s"):format(fav_label, label, fmt and fmt(l.key, l.moved)
      or ("%g"):format(l.moved), fmt and fmt(l.key, l.max) or ("%g"):format(l.max))
  end
  return held
end

-- "the requests differ (output tokens per request 50.0 vs 48.0 (-4.0 %), beyond their sampling
-- noise though within the workload match's 5 %)": the differences a te rests on.
local function requests_differ_text(te)
  return ("the requests differ (%s, %s though within the workload match's %g %%)"):format(table.concat(te.texts, "; "),
    te.unknown and "their spread unknown (no per-request lengths), so counted" or "beyond their sampling noise",
    M.TOKEN_TOLERANCE * 100)
end

-- A gap's ends in words after "from" ("-36.0 % to +100.0 %", "-36.0 % up", "any"), pct the
-- formatter of one percentage; an end beyond M.GAP_PCT_MAX reads as none.
local function gap_range_words(lo, hi, pct)
  local open_hi = hi == nil or hi == math.huge or hi > M.GAP_PCT_MAX
  if lo ~= nil and not open_hi then return lo == hi and pct(lo) or ("%s to %s"):format(pct(lo), pct(hi)) end
  if lo ~= nil then return ("%s up"):format(pct(lo)) end
  if not open_hi then return ("anything up to %s"):format(pct(hi)) end
  return "any"
end

-- The held gap (h: M.token_held_gap's) in words after the measured one: " as measured, and from
-- -36.0 % to +100.0 % held to x's tokens (y's request rate up to 4.2 % lower for them): the
-- requests differ (output tokens per request 50.0 vs 48.0 (-4.0 %), beyond their sampling noise
-- though within the workload match's 5 %)"; where the tokens favour both runs in something,
-- "held to each other's tokens". label_a, label_b: the runs' labels; pct: the formatter of one
-- percentage; fmt(key, v): a limit's figure. "" where h is nil.
function M.token_held_gap_text(h, pct, label_a, label_b, fmt)
  if not h then return "" end
  local parts, to = {}, nil
  if h.b then
    for _, x in ipairs(held_parts(h.b, label_b, fmt)) do parts[#parts + 1] = x end
    to = label_a .. "'s tokens"
  end
  if h.a then
    for _, x in ipairs(held_parts(h.a, label_a, fmt)) do parts[#parts + 1] = x end
    to = h.b and "each other's tokens" or (label_b .. "'s tokens")
  end
  local words = gap_range_words(h.lo_pct, h.hi_pct, pct)
  return (" as measured, and %s held to %s%s: %s"):format(words == "any" and "any gap" or ("from " .. words), to,
    #parts > 0 and (" (" .. table.concat(parts, ", ") .. ")") or "", requests_differ_text(h.b or h.a))
end

-- Why two capacities (or max sustained throughputs) whose gap is within the practical threshold
-- are not about the same held to their tokens (ts: M.capacity_token_same's token_same, or
-- M.sustained_order's): "within the practical threshold of 2 % as measured, but the requests
-- differ (output tokens per request 50.0 vs 48.0 (-4.0 %), beyond their sampling noise though
-- within the workload match's 5 %): held to A's tokens (B's request rate up to 4.2 % lower for
-- them), A may be above B by up to +6.1 %, beyond the threshold, so either may be higher; ..."
-- (M.token_order_advice). fav_label, other_label: the favoured run's label and the other's.
function M.token_same_text(ts, fav_label, other_label, min_effect, fmt, opts)
  local te = ts.te
  local held = held_parts(te, fav_label, fmt)
  local by = ts.held_pct == math.huge and "with no upper end" or ("by up to %s"):format(M.pct_near(ts.held_pct,
    min_effect or M.MIN_EFFECT))
  return ("within the practical threshold of %s %% as measured, but %s: held to %s's tokens (%s), %s may be above %s "
    .. "%s, beyond the threshold, so they are not shown to be about the same and either may be higher%s"):format(
    M.thr_num(min_effect or M.MIN_EFFECT), requests_differ_text(te), other_label, table.concat(held, ", "),
    other_label, fav_label, by, M.token_order_advice(te, opts))
end

capacity_evidence_core = function(ca, cb, min_effect, opts)
  local broken = opts and (opts.runs and M.broken_texts(opts.runs) or opts.broken)
  if broken and #broken > 0 then
    return { verdict = "broken", broken = broken }
  end
  local known = CAPACITY_ORDERED
  if not (ca and cb and known[ca.kind] and known[cb.kind]) then return { verdict = "unknown" } end
  local ev = { basis = "repeats" }
  if not (ca.interval and cb.interval) then
    local wa, wb = ca.interval_why, cb.interval_why
    ev.basis = (wa == nil or wa == "one run per load") and wb or wa
    ev.basis = ev.basis or wa
  end
  local differs = opts and opts.workload_differs
  if differs and #differs > 0 then
    -- a run whose requests are longer sustains fewer of them: no order, whatever the figures
    ev.verdict, ev.differences = "not comparable", differs
    return ev
  end
  -- an error-rate SLO that one run's repeats disagree on beyond chance (a crashed repeat):
  -- whether that run meets it is the crash's doing, so it can open the order, but only where
  -- it could have flattered the run put higher. Which way a crash pushes: its failures only
  -- add to its run's error rate, and an error rate only ever counts against the SLO, so where
  -- every such load fails the error-rate SLO with the crash counted (M.error_slo_dispersion's
  -- all_fail), the crash can only have lowered that run's capacity (without it those loads
  -- might pass and the capacity rise), never raised it. In the run the evidence puts higher,
  -- such a crash cannot have flattered it: without the crash it would be as high or higher,
  -- and the order stands (ev.crash_in_higher says so). In the lower run it could have put
  -- that run below (without it, it might be the higher): the order is open. Where a crashed
  -- load passes the SLO despite the crash, the crash turned no pass into a fail there, but the
  -- crashed repeat's answered requests (a server that dropped its queue answers the rest
  -- sooner) are in that load's figures: it may have flattered its run, so it opens the order
  -- whichever run it is in. Without an order (the same, overlapping, within the threshold)
  -- a crash on either side opens it.
  local od = opts and opts.error_dispersion
  if od and (od.a or od.b) then
    local rest = {}
    for k, v in pairs(opts) do rest[k] = v end
    rest.error_dispersion = nil
    local ev0 = M.capacity_evidence(ca, cb, min_effect, rest)
    local hi = ev0.winner or (ev0.verdict == "untested" and ev0.ordered and ev0.higher) or nil
    local lo = hi == "a" and "b" or hi == "b" and "a" or nil
    if hi and not od[lo] and od[hi] and od[hi].all_fail then
      ev0.crash_in_higher = od[hi]
      return ev0
    end
    ev.verdict, ev.overdispersed = "not shown to differ", od
    return ev
  end
  local bound = M.capacity_is_bound
  if ca.kind == "below_lowest" and cb.kind == "below_lowest" then
    ev.verdict = "unknown" -- both below their lowest load: nothing to compare
    return ev
  end
  local la, ha = M.capacity_span(ca)
  local lb, hb = M.capacity_span(cb)
  local apart = M.spans_apart(la, ha, lb, hb)
  -- brackets that only touch at one load: one passed where the other failed
  local touch = not apart and M.capacity_touch(ca, cb, true) or nil
  -- spans apart that also meet at one offered rate (M.capacity_touch_at: the lower run failed
  -- where the other passed): that load is the evidence, whatever the noise of the two
  -- achieved rates the spans are read at (newuser44 #3)
  local t_apart, at = M.capacity_touch_at(ca, cb, true)
  if not (touch or (apart and t_apart == apart)) then at = nil end
  apart = apart or touch
  -- two lower bounds that leave room for either order; but where both have ranges from repeats
  -- and one of them ends at its run's ceiling, those ranges are compared as any two (fixk45:
  -- p5_0's 8.53-9.50 against >= 9.44 req/s read "both lower bounds: not compared" beside a
  -- Headline cell with that upper end and a Delta of -0.06 req/s or more)
  if not apart and bound(ca) and bound(cb) and not (ca.interval and cb.interval
    and (ha < math.huge or hb < math.huge)) then
    ev.verdict = "unknown"
    return ev
  end
  local thr = min_effect or M.MIN_EFFECT
  -- two figures within the practical threshold are about the same, whatever their order,
  -- but only where the gap their spans allow stays within it too; both judged on how far
  -- apart the runs are whichever is A (M.magnitude, M.gap_within), so that swapping A and B
  -- never turns "about the same" into "not shown to differ" (fixa44: the gap's ends, B
  -- against A, were held to -thr and +thr: 9.99-10.01 against 10.0-10.19 req/s allowed
  -- +2.002 %, not shown to differ, and swapped -1.963 %, about the same)
  if ca.kind ~= "below_lowest" and cb.kind ~= "below_lowest" and not bound(ca) and not bound(cb) then
    local eff = M.effect_pct(ca.rps, cb.rps)
    if eff and M.magnitude(eff) < thr then
      ev.verdict = "about the same"
      -- the figures are estimates inside their spans (the repeats' ranges, else the measured
      -- brackets): sameness only where the gap those spans allow stays within the
      -- threshold, else "not shown to differ", with why: with ranges from repeats on both
      -- sides, the same reasons as for any two ranges that overlap (the load steps cannot
      -- order the means, or a range is open-ended), else the gap is wider than the threshold
      local g = M.capacity_gap(ca, cb)
      if g and not M.gap_within(g, thr) then
        ev.verdict = "not shown to differ"
        local ba, ta = M.means_span(ca)
        local bb, tb = M.means_span(cb)
        if ca.interval and cb.interval and ba and bb and not (ta < bb or tb < ba)
          and not M.capacity_touch(means_of(ca), means_of(cb)) then
          ev.steps_cannot_order = true
          ev.open_same_load = M.same_load_pass_fail(ca, cb)
        elseif ca.interval and cb.interval and (ha == math.huge or hb == math.huge or la == 0 or lb == 0) then
          ev.open_range = true
        else
          ev.gap_wide = true
        end
      end
      return ev
    end
  end
  local hi = apart
  if not hi then
    if ca.kind == "below_lowest" then hi = "b"
    elseif cb.kind == "below_lowest" then hi = "a"
    else hi = cb.rps > ca.rps and "b" or "a" end
  end
  if apart then
    ev.ordered = true
    local clo = apart == "b" and ca or cb
    local lo_hi = apart == "b" and ha or hb -- the lower run's upper end
    local hi_lo = apart == "b" and lb or la -- the higher run's lower end
    if clo.ceiling_rps and lo_hi == clo.ceiling_rps and bound(clo) and not clo.ceiling_failing then
      ev.beyond_ceiling, ev.ceiling_rps, ev.sustained_rps = true, clo.ceiling_rps, hi_lo
    else
      ev.failed_rps, ev.passed_rps = lo_hi, hi_lo
    end
    -- a lower end above the other's upper end (its ceiling, or the load it already failed at)
    -- by less than the noise of the two rates orders nothing (M.ceiling_noise_order,
    -- M.sustained_order's rule: an A/A pair, 4.82 req/s sustained against a ceiling of 4.79
    -- from ~300 requests each)
    local w, nz = M.ceiling_noise_order(ca, cb)
    if not touch and nz and w == nil then
      ev.beyond_ceiling, ev.ceiling_rps, ev.sustained_rps, ev.ordered = nil, nil, nil, nil
      ev.failed_rps, ev.passed_rps = nil, nil
      ev.verdict, ev.measured_higher, ev.order_open, ev.within_noise, ev.noise = "untested", apart, true, apart, nz
      return ev
    end
    -- at the same load: which one passed and which failed it, each at its own achieved rate
    if touch then
      local c = touch == "a" and ca or cb
      ev.same_load = { offered = c.passing_offered, load_type = c.load_type }
      -- (the two achieved rates at that load, as the order is read there)
      if at then ev.failed_rps, ev.passed_rps = at.failed_rps, at.passed_rps end
    elseif at and M.gap_touch_within_noise(ca, cb) then
      -- (spans apart only within the noise of their rates: what orders them is the load the
      -- lower one failed where the other passed, said so, with the two achieved rates there;
      -- spans apart beyond that noise keep their own evidence, a ceiling the other passed)
      ev.same_load = { offered = at.offered, load_type = at.load_type }
      ev.beyond_ceiling, ev.ceiling_rps, ev.sustained_rps = nil, nil, nil
      ev.failed_rps, ev.passed_rps = at.failed_rps, at.passed_rps
    end
  end
  -- an order the measured loads show, but by a margin below the practical threshold: the
  -- higher run's figure (an estimate, or a lower bound) against the most the lower run's
  -- capacity can be (its estimate; a lower bound's ceiling, a capacity below its lowest
  -- load's that load: the top of its measured span by the means). Two estimates were
  -- weighed above; a bound has no estimate, and the least gap it allows is what is shown:
  -- "≥ 3.52 against at most 3.50" is +0.6 %, no practical difference shown either way.
  -- Verdict "about the same" (fixb53: it was "not shown to differ", the open case's name),
  -- below_threshold = true, margin_max_pct (the largest gap), margin_pct (M.effect_pct of the
  -- two, symmetric in the runs, positive where the higher run's figure is the larger),
  -- margin_hi and margin_lo (the figures it is read on), margin_higher = "a" | "b" (the run
  -- the loads put above); ordered is cleared (no order is named), the texts' fields kept.
  -- That is only where the largest gap the spans allow (the higher run's upper end against
  -- the lower run's lower end) is below the threshold too; where it is not, no order is
  -- named either (fixh46): "not shown to differ" with least_below_threshold = true,
  -- margin_higher, margin_pct and margin_max_pct (that largest gap of their mean; nil: no
  -- upper end), M.least_gap_text; ordered and winner are never set with it.
  if apart then
    local chi, clo = apart == "a" and ca or cb, apart == "a" and cb or ca
    local x_lo = clo.rps
    if clo.kind ~= "interpolated" then x_lo = select(2, M.means_span(clo)) end
    local x_hi = chi.rps
    -- one measurement per load (no range from repeats on both sides): the gap the loads that
    -- decide the order show, the higher run's lower end against the lower run's upper end
    -- (B met the SLOs at 7.89 req/s, A failed them at 7.88: +0.1 %, never A's estimate of
    -- 7.54 between its loads, which made it +4.6 %)
    if not (ca.interval and cb.interval) then
      x_lo = apart == "b" and ha or hb
      x_hi = apart == "b" and lb or la
    end
    local m = type(x_hi) == "number" and type(x_lo) == "number" and x_lo ~= math.huge
      and M.order_gap_pct(x_lo, x_hi) or nil
    -- (the two ends one rate within float rounding, M.same_rate: they meet, a least gap of 0)
    if m and M.same_rate(x_lo, x_hi) then m = 0 end
    -- the margin is kept whichever way the threshold goes (a gap beyond it names the order);
    -- ranges that touch at one load have a least gap of 0 and name none (below, same_load;
    -- fixh46 and audit47 F2: never "ordered, or a winner with repeats"); margin_lo_kind says
    -- whether the lower run's figure is an estimate or the top of a span with no estimate
    -- (below its lowest load)
    if m then
      ev.margin_pct, ev.margin_hi, ev.margin_lo, ev.margin_lo_kind = m, x_hi, x_lo, clo.kind
      -- (read on the loads' ends, not on an estimate: "span")
      if not (ca.interval and cb.interval) then ev.margin_lo_kind = "span" end
    end
    -- one measured percentile per load with no per-request data (a summary file): whether a
    -- load met the SLO is one draw of unknown noise, so a pass and a fail at neighbouring
    -- loads order nothing, nor do a pass and a fail far apart in load whose figures lie near
    -- the limit (below saturation latency is flat in load: a few per cent move pass and fail
    -- across the ladder). M.unknown_noise_orders: beyond the other's ceiling or at least
    -- M.UNKNOWN_NOISE_GAP apart, and in either case still apart with every summary figure
    -- moved by as much as such noise may hide (lp.UNKNOWN_NOISE_BAND)
    local unknown = not (ca.interval and cb.interval) and (ca.noise_unknown or cb.noise_unknown)
    -- (the rule's gap on the scale M.gap_on_unknown_noise reads it, of the two ends' mean:
    -- ev.margin_pct is now the Change column's, the higher against the lower)
    local mean_margin = ev.margin_lo and ev.margin_hi and M.mean_gap_pct(ev.margin_lo, ev.margin_hi) or nil
    local open = apart and unknown and M.unknown_noise_why(ca, cb, apart, ev.beyond_ceiling, mean_margin)
    if open then
      ev.noise_unknown_why = open
      ev.noise_unknown, ev.ordered, ev.failed_rps, ev.passed_rps, ev.same_load = unknown, nil, nil, nil, nil
      ev.verdict, ev.measured_higher, ev.order_open = "untested", hi, true
      return ev
    end
    -- an order that rests on a pass and a fail at one offered load (ev.same_load: brackets that
    -- touch there, or spans apart only within the noise of their rates): the two achieved rates
    -- there differ by send noise alone, so the least gap the order allows is 0, whatever the
    -- estimates between loads (audit47 F2: s5ab1084_2 named A the winner by 2.38 %, A's 9.75
    -- req/s against B's 9.52 at the same 10 req/s offered, a gap a 0.24 req/s swing of either
    -- send rate undoes; its Delta already read "0 or less, no lower end"). By the rows' rule
    -- (a winner only where the whole gap is beyond the threshold) it names no winner: "at
    -- least as high", least_below_threshold below, read on the two achieved rates there.
    if ev.same_load and ev.passed_rps and ev.failed_rps then
      m, ev.margin_pct, ev.margin_hi, ev.margin_lo, ev.margin_lo_kind = 0, 0, ev.passed_rps, ev.failed_rps, "span"
    end
    if m and m < thr then
      -- the largest gap the spans allow (the higher run's upper end against the lower run's
      -- lower end, of their mean): where it stays below the threshold too, no difference of
      -- practical size is possible, and none is named; where it reaches beyond, the gap may be
      -- large or negligible: no winner either (below), said as "at least as high" with its
      -- least gap below the threshold, never as sameness
      local hi_hi = apart == "b" and hb or ha
      local lo_lo = apart == "b" and la or lb
      local big = hi_hi ~= math.huge and M.order_gap_pct(lo_lo, hi_hi) or nil
      if big and big < thr then
        -- both ends of the gap within the threshold: evidence of no practical difference, the
        -- meaning "about the same" names (never "not shown to differ", the weaker claim of a
        -- gap the evidence leaves open: one name per meaning, fixb53); margin_max_pct the
        -- largest gap, which that claim rests on too
        ev.verdict, ev.below_threshold, ev.margin_higher, ev.ordered = "about the same", true, apart, nil
        ev.margin_max_pct = big
        return ev
      end
      ev.least_below_threshold, ev.margin_max_pct = true, big
      -- the largest gap beyond the threshold (or with no upper end: the higher run a bound
      -- that never failed, or a range open above) leaves the gap anywhere from below the
      -- threshold up: the order is known, its practical size is not, so no winner is named,
      -- as a latency row whose interval reaches back within the threshold names none (the
      -- rows' rule: a winner only where the whole interval is beyond the threshold,
      -- M.effect_size's "unsure"): "at least as much; the gap may be negligible" (fixa46: an
      -- A/A pair read "b sustains more load ... higher by at least +0.1 %, below the practical
      -- threshold of 2.0 %, and with no upper end"; fixh46: "... and up to +39.3 %" named b
      -- higher). margin_higher: the run at least as high; the texts' fields kept.
      ev.verdict, ev.margin_higher, ev.ordered = "not shown to differ", apart, nil
      return ev
    end
  end
  if ca.interval and cb.interval then
    if apart then
      ev.verdict, ev.winner = hi == "b" and "B higher" or "A higher", hi
    else
      ev.verdict, ev.ordered = "no clear difference", nil
      -- the means' own measured brackets overlap too (each within its run's ceiling: a bound
      -- never reaches above the most its run achieved): the load steps cannot order the two,
      -- whatever the repeats (no test could): "not shown to differ", never sameness
      local ba, ta = M.means_span(ca)
      local bb, tb = M.means_span(cb)
      -- (brackets that only touch at the same load are ordered by the loads: not this case)
      if ba and bb and not (ta < bb or tb < ba) and not M.capacity_touch(means_of(ca), means_of(cb)) then
        ev.verdict, ev.steps_cannot_order = "not shown to differ", true
        ev.open_same_load = M.same_load_pass_fail(ca, cb)
      elseif ha == math.huge or hb == math.huge or la == 0 or lb == 0 then
        -- a range with no upper end ("≥ X", "0 to beyond X") or one from 0 leaves room for
        -- any gap: the overlap shows no sameness, only that the repeats cannot tell
        ev.verdict, ev.open_range = "not shown to differ", true
      end
    end
    return ev
  end
  ev.verdict = "untested"
  if apart then ev.higher = hi end
  if not apart then
    -- no order: the run whose figure is the larger is measured_higher, never higher, which a
    -- script reading comparison.json would take for a winner
    ev.order_open, ev.measured_higher = true, hi
    -- one run's repeats give a range, and the other's figure lies inside it
    if ca.interval or cb.interval then
      local with = ca.interval and ca or cb
      local other = with == ca and cb or ca
      local lo, up = M.capacity_span(with)
      local x = other.kind == "below_lowest" and other.lowest_rps or other.rps
      if x and x >= lo and x <= up then ev.within_range = ca.interval and "a" or "b" end
    end
  end
  return ev
end

-- Loads that put one run above by a least gap below the practical threshold, the largest
-- beyond it (M.capacity_evidence's and M.sustained_order's least_below_threshold, which name
-- no order), in words after "at least as high" (M.least_below_reason): "by at least
-- +0.1 % of their mean, below the practical threshold of 2.0 %, and up to +39.3 %" ("and with
-- no upper end" where the higher run's span has none); where the spans meet (a least gap of
-- 0): ": their ranges meet at 20.00 req/s, so the least gap is 0, below the practical
-- threshold of 2.0 %, and the largest is +100.0 % of their mean" (at one load, "20 req/s
-- offered", where they meet at the same load); a least gap above 0 that rounds to "+0.0 %":
-- "by a least gap under 0.05 % of their mean, ...". "" for any other evidence. pct: the formatter
-- of one percentage; min_effect: the threshold in %; rate (optional): the formatter of a rate
-- in the figures' unit (without it, "at one load").
function M.least_gap_text(ev, pct, min_effect, rate)
  if not (ev and ev.least_below_threshold and ev.margin_pct) then return "" end
  local thr = min_effect or M.MIN_EFFECT
  if ev.margin_pct <= 0 then
    -- spans that meet at one load (a least gap of 0, never "at least -0.5 %", nor "higher by
    -- a least gap of 0", which reads as no gap): where they meet, and the largest gap
    local at = ev.same_load and M.same_load_text(ev):gsub("^, at the same load", " at one load")
      or (rate and type(ev.margin_hi) == "number") and (" at " .. rate(ev.margin_hi)) or " at one load"
    return (": their ranges meet%s, so the least gap is 0, below the practical threshold of %s %%, and the "
      .. "largest %s"):format(at, M.thr_num(thr),
      ev.margin_max_pct and ("is " .. pct(ev.margin_max_pct)) or "has no upper end")
  end
  -- a least gap above 0 that the formatter rounds to nothing is no "at least +0.0 %", which
  -- reads as a gap measured at 0: below what the formatter shows, said so (template.helpers.pct
  -- shows a small one's first digit, "+0.03 %", down to 0.0005 %)
  local least = pct(ev.margin_pct)
  -- (a least gap below the threshold that the formatter rounds up to it, 1.96 % as "+2.0 %",
  -- read "at least +2.0 %, below the practical threshold of 2.0 %": with the decimals that keep
  -- it apart, M.pct_near, as every figure beside a threshold; verdict55's scale made it reachable)
  if least == pct(thr) then least = M.pct_near(ev.margin_pct, thr) end
  least = least:find("[1-9]") and ("at least " .. least) or "a least gap under 0.0005 %"
  return (" by %s, below the practical threshold of %s %%, and %s"):format(
    least, M.thr_num(thr), ev.margin_max_pct and ("up to " .. pct(ev.margin_max_pct)) or "with no upper end")
end

-- The least gap (in %, M.effect_pct of the loads that decide it) by which a pass and a fail
-- of one measured percentile each, of unknown noise (no per-request data), order two
-- capacities: about one load step of a ladder that doubles every few points (8 and 10 req/s
-- are 22 % apart), so that a pass and a fail at the same or at neighbouring loads, which
-- noise alone can swap, order nothing (M.capacity_evidence). One of the two conditions of
-- M.unknown_noise_orders: alone it ordered a few per cent of flat latency (audit50 F3).
M.UNKNOWN_NOISE_GAP = 25

-- The runs among runs ({label, status, reasons} each) whose health check failed, as texts:
-- {"crashed's run failed its health check (stderr.log: Traceback ...)"}, empty when none did.
-- A broken run is never ordered (M.capacity_evidence, and every ranking).
function M.broken_texts(runs)
  local out = {}
  for _, r in ipairs(runs or {}) do
    if r.status == "failed" then
      out[#out + 1] = ("%s's run failed its health check (%s)"):format(r.label, table.concat(r.reasons or {}, "; "))
    end
  end
  return out
end

-- Verdicts -------------------------------------------------------------------------------------

-- The size of a difference, B against A as the tables' Change column: (b - a) / |a| x 100
-- (metrics.change_pct); nil where A's figure is 0 (no baseline) or either is unknown.
function M.effect_pct(a, b) return metrics.change_pct(a, b) end

-- A capacity's margin (the two runs' capacities, or the ends of their spans), on the scale
-- its sentences name, "+0.6 % of their mean": (b - a) / mean(|a|, |b|) x 100, symmetric in
-- the two runs. Only the capacity orders read it (their threshold on it); every row's
-- effect is M.effect_pct's.
function M.mean_gap_pct(a, b)
  if a == nil or b == nil then return nil end
  if a == b then return 0 end
  local den = (math.abs(a) + math.abs(b)) / 2
  if den == 0 or den == math.huge or den ~= den then return nil end
  return (b - a) / den * 100
end

-- How far apart a difference of pct (B against A, M.effect_pct's) puts the runs, the same
-- whichever run is A: the higher figure against the lower one in %, 100 (exp(|log(b / a)|)
-- - 1), so pct itself for a rise and 100 |pct| / (100 + pct) for a fall (-1.96 % -> 2.0 %);
-- infinite for a fall to 0 (-100 %). What every practical threshold is judged on.
function M.magnitude(pct)
  if pct == nil then return nil end
  if pct >= 0 then return pct end
  if pct <= -100 then return math.huge end
  return -100 * pct / (100 + pct)
end

-- The fall (B against A, %) that reaches a threshold of thr % (M.magnitude): -100 thr / (100 + thr).
function M.fall_threshold(thr) return -100 * thr / (100 + thr) end

-- A capacity's (or max sustained throughput's) margin between two figures a and b, on the one
-- scale every practical threshold is judged on, the Change column's: the higher figure against
-- the lower, 100 (max / min - 1), M.magnitude of B against A (so B's +2.01 % against A is beyond
-- a 2 % threshold here as in a latency row, and A above B by 2.01 % shows as B -1.97 % in the
-- Change, a fall beyond -1.96 %), signed as b - a. Before verdict55 these margins were of the
-- two figures' mean (M.mean_gap_pct), so +2.01 % B against A (1.99 % of the mean) was "about
-- the same" for capacity and beyond the threshold for a latency. nil where either is unknown,
-- and where the lower is 0 or the higher unbounded: a gap with no upper end, as its callers say.
function M.order_gap_pct(a, b)
  if a == nil or b == nil then return nil end
  if a == b then return 0 end
  local lo, hi = math.min(a, b), math.max(a, b)
  if not (lo > 0 and hi < math.huge) then return nil end
  return (b > a and 1 or -1) * (hi / lo - 1) * 100
end

-- Is the whole interval of an effect (eff: a row effect, as M.interval_beyond's) within the
-- practical threshold thr (%) at both ends, so that the difference is shown too small to
-- matter ("negligible", the rows' word for what the Verdict calls "about the same")? A ratio's:
-- both ends within thr (M.magnitude); the error rate's: its pp interval within its threshold
-- (M.error_pp_threshold, else M.MIN_ERROR_PP) at both ends ("pp"), or, where the rates are not
-- known, its relative interval within thr. false where the interval is unbounded: an estimate
-- alone bounds nothing.
function M.interval_within(eff, thr)
  if eff.pp and eff.pp_lo and eff.pp_hi then
    local floor = M.error_pp_threshold(eff, thr) or M.MIN_ERROR_PP
    if eff.pp_lo > -floor and eff.pp_hi < floor then return "pp" end
    if eff.rate_a and eff.rate_b then return false end
  end
  if not (eff.lo and eff.hi) then return false end
  return M.magnitude(eff.lo) < thr and M.magnitude(eff.hi) < thr
end

-- Is the whole interval of an effect (eff: M.count_effect's, or any other row effect's with
-- lo and hi) beyond the practical threshold thr (%) on one side? A ratio's: its lower end a
-- rise of thr or more, or its upper end a fall that reaches it (M.magnitude). The error
-- rate's: its pp interval beyond M.MIN_ERROR_PP and beyond thr % of the lower of the two
-- rates (one rate at least thr % above the other, both ways alike), else, of a saved effect
-- without its rates, its relative ends as a ratio's.
-- The error rate's percentage-point threshold an effect (M.count_effect's) is judged on at
-- a practical threshold of thr %: the larger of M.MIN_ERROR_PP and thr % of the lower of
-- its two rates (one rate at least thr % above the other); nil without its rates (a saved
-- effect: M.interval_beyond then reads M.MIN_ERROR_PP and its relative ends).
function M.error_pp_threshold(eff, thr)
  if not (eff.rate_a and eff.rate_b) then return nil end
  return math.max(M.MIN_ERROR_PP, math.min(eff.rate_a, eff.rate_b) * thr)
end

-- The error rate's thresholds as the texts say them (pp_thr: M.error_pp_threshold's, or nil;
-- thr: %): "0.39 pp (the larger of 0.1 pp and 2.0 % of the lower rate)", without the rates
-- "0.1 pp and 2.0 %".
function M.error_threshold_text(pp_thr, thr)
  if not pp_thr then return ("%g pp and %s %%"):format(M.MIN_ERROR_PP, M.thr_num(thr)) end
  return ("%.2f pp (the larger of %g pp and %s %% of the lower rate)"):format(pp_thr, M.MIN_ERROR_PP, M.thr_num(thr))
end

function M.interval_beyond(eff, thr)
  if eff.pp then
    if not (eff.pp_lo and eff.pp_hi) then return false end
    local floor = M.error_pp_threshold(eff, thr)
    if not floor and not (eff.lo and eff.hi) then return false end
    floor = floor or M.MIN_ERROR_PP
    if not (eff.pp_lo >= floor or eff.pp_hi <= -floor) then return false end
    if eff.rate_a and eff.rate_b then return true end
  end
  if not (eff.lo and eff.hi) then return false end
  return eff.lo > 0 and M.magnitude(eff.lo) >= thr or eff.hi < 0 and M.magnitude(eff.hi) >= thr
end

-- A percentage as the notes print it ("+1.0 %") beside the threshold it is judged against
-- (thr_pct, on pct's scale): with as many decimals (1 to 3) as it takes for the two not to
-- read alike ("-1.95 %" beside a threshold of -1.96 %, never "-2.0 %").
local function pct_beside(pct, thr_pct)
  return signed(pct, metrics.decimals_apart({ pct }, thr_pct, 1, 3)) .. " %"
end

-- pct as a sentence that compares it with the practical threshold thr (%) shows it: with
-- the decimals that keep it apart from where the threshold lies on its side (pct_beside).
function M.pct_near(pct, thr)
  return pct_beside(pct, pct >= 0 and thr or M.fall_threshold(thr))
end

-- Several percentages said together beside the threshold thr (%), an estimate and its
-- interval's ends: each as M.pct_near, all with the most decimals any of them takes ("-1.95 %
-- to -1.95 %", never "-1.95 % to -1.9 %"). Returns the strings in xs's order.
function M.pcts_near(xs, thr)
  local d = 1
  for _, x in ipairs(xs) do
    d = math.max(d, metrics.decimals_apart({ x }, x >= 0 and thr or M.fall_threshold(thr), 1, 3))
  end
  local out = {}
  for i, x in ipairs(xs) do out[i] = signed(x, d) .. " %" end
  return out
end

-- The practical threshold as a sentence compares pct with it (thr: %): "the 2 % threshold"
-- for a rise; for a fall "the 2 % threshold (a fall of -1.96 % B against A reaches it)",
-- the threshold being one run's figure thr % above the other's, whichever is A.
-- The practical threshold t as the texts print it: one decimal where that is all it has
-- ("2.0"), else all it has ("1.45", not "1.4" beside "-1.41 %, below the threshold":
-- verify43b).
function M.thr_num(t)
  local one = ("%.1f"):format(t)
  return tonumber(one) == t and one or ("%.6g"):format(t)
end

function M.threshold_text(pct, thr)
  local t = ("%g"):format(thr)
  if pct == nil or pct >= 0 then return ("the %s %% threshold"):format(t) end
  return ("the %s %% threshold (a fall reaches it at %s)"):format(t, ("%+.2f %%"):format(M.fall_threshold(thr)))
end

-- What would bound an unbounded interval (eff: M.stratified_effect's, M.one_point_effect's
-- or M.repeat_effect's): "about 380 requests a load point (240 here at the fewest), or at
-- least 3 repeats ..." (M.REPEATS_SETTLE), the repeats' own settle, or nil.
function M.settle_text(eff)
  if eff.settle then return eff.settle end
  if eff.need then
    return ("about %d requests a load point%s, or %s"):format(eff.need,
      eff.fewest and (" (%d here at the fewest)"):format(eff.fewest) or "", M.REPEATS_SETTLE)
  end
  return nil
end

-- Where a significant test's difference in a row stands against the practical threshold
-- (min_effect, %), from the row's effect with its interval (eff: M.stratified_effect's,
-- M.one_point_effect's, M.repeat_effect's or M.count_effect's; where: "within the load
-- points tested", "over the repeats", or nil for the whole runs' figures): "beyond" when
-- its whole interval is beyond the threshold on the side the test found (then, and only
-- then, a winner); "small" when its whole interval is within it at both ends (M.interval_within:
-- "a difference too small to matter", "negligible"); "unsure" when the interval reaches across
-- the threshold, or is unbounded (too few requests for a tail percentile's, a point measured
-- once): an estimate beyond it whose interval reaches back within it, or one within it whose
-- interval reaches beyond it (wording54: +1.5 %, interval +0.3 % to +2.7 %, read "negligible"
-- on its estimate alone, a claim of no practical difference the interval does not carry);
-- "opposite" when the figure's difference and the rank test's point opposite ways. The
-- error rate (eff.pp: in percentage points) also has M.MIN_ERROR_PP: its interval within it
-- at both ends is "small", it must be beyond both for a winner. Returns the class and, but for "beyond",
-- the note that says it (la, lb: the runs' names), and for an unbounded interval what would
-- settle it (M.settle_text). Why the interval, not the estimate alone: an estimate just past
-- 2 % is as likely to be 1 % as 3 %, and a tail percentile's estimate is noisy enough to
-- pass the threshold between two runs of one server; a winner is a claim that the
-- difference matters.
function M.effect_size(test, eff, min_effect, la, lb)
  local thr = min_effect or M.MIN_EFFECT
  local pct = eff.pct
  local z = test.z ~= 0 and test.z or nil
  local where = eff.where and (" " .. eff.where) or ""
  -- (the direction of the difference: its relative size, else, of an error rate against A's
  -- rate of 0, its percentage points)
  local dir = pct or eff.pp or 0
  -- (the side whose values are lower: the rank test's where it has a direction, else the figures')
  local lower = (z and z < 0 or not z and dir > 0) and (la or "A") or (lb or "B")
  -- (the difference as B against A: "B -4.0 % against A", the error rate's "B +1.17 pp, +5.8 %
  -- against A"; of A's rate of 0 the relative size is N/A, said why)
  local ba = (lb or "B") .. " %s against " .. (la or "A")
  local rel = pct and M.pct_near(pct, thr)
  local by = ba:format(rel or "")
  if eff.pp then
    by = ba:format(("%s pp%s"):format(signed(eff.pp, 2), rel and (", " .. rel) or ""))
    if not pct then by = ("%s; relative N/A: %s"):format(by, eff.relative_why or "A's rate is 0") end
  end
  if z and (z < 0) ~= (dir > 0) and dir ~= 0 then
    return "opposite", ("the test finds %s's values lower, and this figure differs the other way%s (%s): no winner")
      :format(lower, where, rel or (signed(eff.pp, 2) .. " pp"))
  end
  local within = M.interval_within(eff, thr)
  if within == "pp" then
    local floor = M.error_pp_threshold(eff, thr) or M.MIN_ERROR_PP
    return "small", ("%s pp apart%s, %d %% interval %s to %s pp, within the error rate's practical threshold of %s "
      .. "percentage points at both ends"):format(("%.3g"):format(math.abs(eff.pp)), where,
      eff.level or M.EFFECT_LEVEL, signed(eff.pp_lo, 2), signed(eff.pp_hi, 2), ("%.3g"):format(floor))
  end
  if within then
    local p3 = M.pcts_near({ pct or eff.lo, eff.lo, eff.hi }, thr)
    return "small", ("a difference too small to matter (%s%s, %d %% interval %s to %s, within %s at both ends)")
      :format(pct and p3[1] or "N/A", where, eff.level or M.EFFECT_LEVEL, p3[2], p3[3],
        M.threshold_text(eff.lo < 0 and eff.lo or eff.hi, thr))
  end
  if M.interval_beyond(eff, thr) then return "beyond" end
  -- (the estimate within the threshold, its interval across it or unbounded: it may matter)
  local est_within = eff.pp and math.abs(eff.pp) < M.MIN_ERROR_PP or pct and M.magnitude(pct) < thr
  -- (the error rate's thresholds are read on its pp interval, M.interval_beyond: said in pp,
  -- where its relative ends, over A's rate, would not show them)
  local fall = dir < 0 and not eff.pp and (" (a fall reaches it at %s)"):format(("%+.2f %%"):format(
    M.fall_threshold(thr))) or ""
  local floor = eff.pp and M.error_pp_threshold(eff, thr)
  local thr_text = eff.pp and ("%s %% and %s percentage point practical thresholds%s"):format(("%g"):format(thr),
    ("%g"):format(M.MIN_ERROR_PP), floor and (" (here %.2f pp: the larger of %g pp and %g %% of the lower rate, "
    .. "%.2f %%)"):format(floor, M.MIN_ERROR_PP, thr, math.min(eff.rate_a, eff.rate_b) * 100)
    or "")
    or ("%s %% practical threshold%s"):format(("%g"):format(thr), fall)
  local bounded = eff.pp and eff.pp_lo and eff.pp_hi or not eff.pp and eff.lo and eff.hi
  if not bounded then
    local settle = M.settle_text(eff)
    if est_within then
      return "unsure", ("%s's values are lower (%s)%s, within the %s, but the %d %% interval of that difference is "
        .. "unbounded (%s), so it may be beyond it: no winner%s"):format(lower, by, where, thr_text,
        eff.level or M.EFFECT_LEVEL, eff.why or "too few independent requests",
        settle and ("; to settle it: " .. settle) or ""), settle
    end
    return "unsure", ("%s's values are lower (%s)%s, but the %d %% interval of that difference is unbounded (%s), so "
      .. "it may be smaller than the %s: no winner%s"):format(lower, by, where, eff.level or M.EFFECT_LEVEL,
      eff.why or "too few independent requests", thr_text, settle and ("; to settle it: " .. settle) or ""), settle
  end
  local ends = eff.lo and eff.hi and ("%s to %s"):format(M.pct_near(eff.lo, thr), M.pct_near(eff.hi, thr)) or nil
  if eff.pp then
    local pp = ("%s to %s pp"):format(signed(eff.pp_lo, 2), signed(eff.pp_hi, 2))
    ends = ends and ("%s, %s"):format(ends, pp) or pp
  end
  if est_within then
    -- (the estimate within the threshold, the interval reaching beyond it: it may matter)
    return "unsure", ("%s's values are lower (%s)%s, within the %s, but the %d %% interval of that difference, %s, "
      .. "reaches beyond it, so it may matter: no winner"):format(lower, by, where, thr_text,
      eff.level or M.EFFECT_LEVEL, ends)
  end
  -- (plain words: the interval of the difference takes in differences smaller than the
  -- threshold; "but by less than the 2 % practical threshold could be (...)" was read wrong)
  return "unsure", ("%s's values are lower (%s)%s, but the %d %% interval of that difference, %s, takes in "
    .. "differences smaller than the %s, so it may be too small to matter: no winner"):format(lower, by, where,
    eff.level or M.EFFECT_LEVEL, ends, thr_text)
end

-- Where a per-request rank test (Mann-Whitney, van Elteren's; ITL's) finds no clear
-- difference (p, the row's Holm-adjusted one where it has it, not below M.ALPHA) but the
-- row's effect interval (eff: M.stratified_effect's or M.one_point_effect's) leaves out 0,
-- why that interval is no evidence: it is of the row's figure, a mean or a percentile,
-- where the test is of every request's rank; and where a mean's interval took the
-- requests' dependence in send order from their ranks (the test's design effect: eff.
-- mean_deff not "values": the values' own not known, as in a test's made-up run), it is too narrow:
-- a queue's long waits come together, and they move a mean, not the ranks
-- (M.value_design_effect). The text, or nil where the interval takes in 0, or the test found
-- a difference, or the test is not on the requests.
-- What a mean's interval read with the ranks' design effect is, after "from their ranks, ":
-- here, and beside a capacity whose one-run mean intervals took it (llmd.report, lp.mean_ci).
M.RANKS_UNDERSTATE_MEAN = "which understates a mean's (a queue's long waits come together; the values' own design "
  .. "effect was not known)"
function M.interval_not_evidence(key, test, eff, p)
  if not (test and eff and test.test == "mann_whitney" and test.units ~= "repeats" and eff.units ~= "repeats") then
    return nil
  end
  if not (p and p >= M.ALPHA and eff.lo and eff.hi and (eff.lo > 0 or eff.hi < 0)) then return nil end
  local mean = key:match("_mean_ms$") ~= nil
  return ("its interval leaves out 0, but that names no winner: it is of %s, the test (which decides) of "
    .. "every request's rank, and that finds no clear difference%s"):format(mean and "the mean, which a few long waits "
    .. "move" or "one percentile", mean and eff.mean_deff ~= "values" and "; and it is too narrow for a mean: it takes "
    .. "the requests' dependence from their ranks, as the test does, " .. M.RANKS_UNDERSTATE_MEAN or "")
end

-- The rows' token rule (fixf51), one function for compare.lua's rows and treatments.lua's
-- latencies at the common load (fixb52): a difference of key's figure, B against A, lo to hi
-- in % (its interval, or its figure twice), where the runs' token lengths differ beyond their
-- noise (gap: M.token_gap) and move that figure (M.token_range): divided by the range's far end
-- on its side, (1 + lo) / range.hi - 1 to (1 + hi) / range.lo - 1, the difference left if the
-- lengths moved the figure as far as they can; explained where that is not beyond min_effect
-- (M.interval_beyond). nil where no token kind moves key; else {explained, range = {lo, hi
-- (in %), texts}, note (why no winner, or that it is beyond what the lengths explain)}.
-- curve (M.token_load_curve's, nil: the range alone, as above): the runs measured on a rate
-- ladder, where "in proportion at most" is far too weak near saturation (fixg52: one server,
-- B's outputs 4 % shorter, E2E p90 17 % lower at 12 req/s, a queue amplifying a 4 % lighter
-- load many times, named B). A lighter workload (its work r times the heavier's, r the range's
-- far end, e.g. 0.96) at request rate L loads the server about as the heavier one does at r L,
-- and each of its requests is r times as long: so at L the lengths can explain a ratio down to
-- r x F(r L) / F(L), F the heavier run's figure on its own measured load curve (M.curve_at:
-- interpolated between its loads; below its lowest, the line of its lowest two extended, the
-- most a queue's curve, rising ever faster with load, can fall there). Read at every load the
-- row's test covered, the farthest of them (and never less than the range) divides the row's
-- interval, as the range did: conservative, the row's effect being their weighted mean. Where
-- the heavier run's ladder cannot give F(r L) (one load, its figure unknown, the line falling
-- to 0), the row is not comparable: near that load the figure may move with load faster than
-- its ladder shows.
-- Per-token rows (TPOT, ITL, NTPOT; M.per_token) are not moved by the lengths in proportion
-- (M.token_range has none for them), but on a rate ladder a lighter workload is a lighter load
-- for them too (fixh52: one server, B's outputs 4 % shorter, TPOT 10.6 % lower near saturation,
-- named B): with curve, what the lengths explain at load L is F(r L) / F(L), F the heavier
-- run's per-token curve, r the far end of the lengths' work (E2E latency's range: the input
-- and the output), without the r factor of a whole request's time; without curve (a
-- concurrency ladder: the same batch whatever the lengths) nil, as before.
local PER_TOKEN = { tpot = true, itl = true, ntpot = true }
-- (a whole request's row's note held by the lengths: where to look instead; dropped where a
-- per-token row is held too, llmd.report)
M.PER_TOKEN_ADVICE = ": compare the per-token rows (TPOT, ITL, NTPOT)"
function M.per_token(key)
  return PER_TOKEN[tostring(key):match("^(%a+)_")] == true and tostring(key):match("_ms$") ~= nil
end
function M.token_effect(key, gap, lo, hi, min_effect, curve)
  local tr = gap and M.token_range(key, gap)
  local per_token = not tr and curve and gap and M.per_token(key)
  if per_token then tr = M.token_range("latency", gap) end
  if not (tr and lo and hi) then return nil end
  -- (a whole request's figure: the r factor at least; a per-token one: the load's alone)
  local rlo, rhi = per_token and 1 or tr.lo, per_token and 1 or tr.hi
  local queue_at, why
  if curve then
    for _, l in ipairs(curve.tested) do
      -- (B lighter: A's curve; A lighter: B's, its ratio B / A the inverse)
      for _, side in ipairs { { r = tr.lo, f = curve.a }, { r = 1 / tr.hi, f = curve.b } } do
        if side.r < 1 then
          local at, lower = M.curve_at(side.f, l), M.curve_at(side.f, side.r * l)
          if not (at and lower and at > 0 and lower > 0) then
            if not queue_at then
              queue_at = l
              why = #side.f < 2 and M.ONE_LOAD_WHY or "its figure at the lighter load cannot be read off the ladder"
            end
          else
            local k = per_token and 1 or side.r
            if side.f == curve.a then rlo = math.min(rlo, k * lower / at) else rhi = math.max(rhi, at / (k * lower)) end
          end
        end
      end
    end
  end
  local out = { range = { lo = (rlo - 1) * 100, hi = (rhi - 1) * 100, texts = tr.texts } }
  if queue_at then
    out.explained, out.queue_load = true, queue_at
    out.note = ("the requests differ (%s, %s though within the workload match's %g %%), and a lighter workload is "
      .. "also a lighter load: near %g req/s this figure may move with load faster than the ladder shows (%s), so "
      .. "what that explains is not known and no winner%s"):format(
      table.concat(tr.texts, "; "), tr.unknown and "their spread unknown (no per-request lengths), so counted"
      or "beyond their sampling noise", M.TOKEN_TOLERANCE * 100, queue_at,
      why, per_token and "" or M.PER_TOKEN_ADVICE)
    return out
  end
  local alo, ahi = ((1 + lo / 100) / rhi - 1) * 100, ((1 + hi / 100) / rlo - 1) * 100
  local loads = (per_token or rlo < tr.lo or rhi > tr.hi)
    and " (with the lighter load that makes at the loads measured)" or ""
  if not M.interval_beyond({ lo = alo, hi = ahi }, min_effect or M.MIN_EFFECT) then
    out.explained = true
    out.note = ("the requests differ (%s, %s though within the workload match's %g %%), "
      .. "which alone%s can move this figure by %s to %s; its difference (%s) is within what that explains, so no "
      .. "winner%s"):format(table.concat(tr.texts, "; "),
      tr.unknown and "their spread unknown (no per-request lengths), so counted" or "beyond their sampling noise",
      M.TOKEN_TOLERANCE * 100, loads, signed((rlo - 1) * 100, 1) .. " %", signed((rhi - 1) * 100, 1) .. " %",
      lo ~= hi and ("%s to %s"):format(signed(lo, 1) .. " %", signed(hi, 1) .. " %") or (signed(lo, 1) .. " %"),
      per_token and "" or M.PER_TOKEN_ADVICE)
    return out
  end
  out.explained = false
  out.note = ("the requests differ (%s), which alone%s can move this figure by %s to %s; its difference is "
    .. "beyond that"):format(table.concat(tr.texts, "; "), loads, signed((rlo - 1) * 100, 1) .. " %",
    signed((rhi - 1) * 100, 1) .. " %")
  return out
end

-- A run's figure at request rate x on its measured load curve f ({{x, y}, ...} sorted by x,
-- M.token_load_curve's): linear between its loads; past its highest, its highest's figure
-- (x is never above the load the row measured there); below its lowest, the line of its
-- lowest two extended (a queue's curve rises ever faster with load, so below its lowest load
-- it falls at most as steeply as there: the most a lighter load can explain). nil where f has
-- fewer than 2 loads or the line falls to 0.
function M.curve_at(f, x)
  if not (f and #f >= 2) then return nil end
  if x >= f[#f][1] then return f[#f][2] end
  local i = 1
  while i < #f - 1 and f[i + 1][1] <= x do i = i + 1 end
  local p, q = f[i], f[i + 1]
  local y = p[2] + (x - p[1]) * (q[2] - p[2]) / (q[1] - p[1])
  return y > 0 and y or nil
end

-- (a run's curve of key over its points on axis: "rate", the offered rates of a rate ladder,
-- or "achieved", the achieved ones; sorted by load)
function M.load_curve(pts, key, axis)
  local f = {}
  for _, p in ipairs(pts or {}) do
    local v, x = p.values and p.values[key], lp.load_of(p, axis or "rate")
    if (axis == "achieved" or p.load_type == "rate") and type(x) == "number" and type(v) == "number" then
      f[#f + 1] = { x, v }
    end
  end
  table.sort(f, function(x, y) return x[1] < y[1] end)
  return f
end
M.ONE_LOAD_WHY = "a run measured one load: its ladder shows nothing of how the figure moves with load"
-- The load curves token_effect reads (fixg52) for row key of two runs (pa, pb: their load
-- points, llmd.loadpoints.points; key a latency, E2E, TTFT or per-token) and its test: {tested = {the
-- request rates of the loads the test covered (its tested_pairs), else every load both
-- measured}, a = {{rate, figure}, ...} (A's loads of a rate ladder where key's figure is
-- known, sorted), b = B's}. nil where the runs are not on request-rate ladders (at a
-- concurrency the server's batch is the same whatever the lengths: a lighter workload there
-- is no lighter load, and the range alone holds) or no load is paired.
function M.token_load_curve(key, pa, pb, test)
  -- (latencies only: a rate row's figure at a load is the load, not a curve to read)
  -- (and the per-token rows, M.per_token: a lighter load moves them too, fixh52)
  if not (pa and pb and (token_scaled(key) or M.per_token(key)) and tostring(key):match("_ms$")) then return nil end
  local function curve(pts) return M.load_curve(pts, key, "rate") end
  local pairs_ = M.paired_points(pa, pb)
  local tested = {}
  local idx = test and test.tested_pairs
  if idx and #idx > 0 then
    for _, i in ipairs(idx) do
      local pr = pairs_[i]
      if pr and pr.a.load_type == "rate" then tested[#tested + 1] = pr.a.offered end
    end
  else
    -- (a test that left out the loads a run was overloaded at, test.overloaded: the loads both
    -- sustained, where its difference was found; past saturation a heavier run's curve climbs
    -- so steeply that reading it there would explain any difference at the others, fixa53)
    local over = { a = {}, b = {} }
    for _, side in ipairs { "a", "b" } do
      for _, l in ipairs(test and type(test.overloaded) == "table" and test.overloaded[side] or {}) do
        over[side][l] = true
      end
    end
    for _, pr in ipairs(pairs_) do
      if pr.a.load_type == "rate" and type(pr.a.offered) == "number"
        and not (over.a[fmt_load(pr.a)] or over.b[fmt_load(pr.b)]) then
        tested[#tested + 1] = pr.a.offered
      end
    end
  end
  if #tested == 0 then return nil end
  return { tested = tested, a = curve(pa), b = curve(pb) }
end

-- One row's verdict. o: key, a, b (values), test ({test, p} or nil), min_effect (%),
-- like_for_like (false: pooled over differing ladders), comparable (false, why),
-- p_adjusted and family_size (the test's Holm-adjusted p in its family, M.family; without
-- them the raw p decides, as for a family of one), label_a and label_b (the sides' names in
-- notes; "A" and "B" without them), follows_sends (a throughput row of two runs that both
-- kept up with every load they were sent: why it names no winner, its note), token_gap
-- (M.token_gap) and token_curve (M.token_load_curve: the rows the token lengths move).
-- Returns {verdict, effect_pct, p_value (raw), p_adjusted, family_size, test,
-- winner = "a" | "b" | nil, note, adjusted_away = true when p alone < alpha but not after
-- the adjustment, cannot_decide = true when no outcome of the test could be below alpha
-- (M.can_decide: "not shown to differ", out of the family), too_few = true when the test's
-- outcome was the most extreme it allows (p = p_min) and not below alpha after the
-- adjustment ("not shown to differ", in the family), follows_sends = true ("not comparable",
-- no test: o.follows_sends)}.
local function verdict_of(o)
  local m = metrics.get(o.key)
  -- a test stratified by load point (the error rate over several points) measures the
  -- difference within the points: its weighted rates (mh_rate_a, mh_rate_b) give the size
  -- and the direction, never the pooled figures, which mix in each run's spread over loads
  local ea, eb = o.a, o.b
  if o.test and o.test.mh_rate_a and o.test.mh_rate_b and o.a ~= nil and o.b ~= nil then
    ea, eb = o.test.mh_rate_a, o.test.mh_rate_b
  end
  local r = { effect_pct = M.effect_pct(ea, eb), test = o.test and o.test.test or nil,
    p_value = o.test and o.test.p or nil }
  -- a latency test stratified by load point: the row's effect within the points it tested
  -- (M.stratified_effect), with its interval; the pooled figures mix in the loads' spread
  local se = o.test and o.test.row_effect
  if se and (se.pct or se.pp) and o.a ~= nil and o.b ~= nil then
    r.effect_pct, r.effect_lo, r.effect_hi, r.effect_level = se.pct, se.lo, se.hi, se.level
    -- (the error rate's in percentage points too, and why its relative size is N/A where A's
    -- rate is 0; where it was measured; why it is unbounded)
    r.effect_pp, r.effect_pp_lo, r.effect_pp_hi = se.pp, se.pp_lo, se.pp_hi
    r.effect_relative_why = se.relative_why
    -- (the error rate is judged in percentage points: the threshold its pp interval was read on)
    r.effect_pp_thr = se.pp and M.error_pp_threshold(se, o.min_effect or M.MIN_EFFECT) or nil
    r.effect_where, r.effect_why = se.where, se.why
    r.effect_need, r.effect_fewest = se.need, se.fewest
  end
  if r.p_value ~= nil and o.p_adjusted ~= nil then
    r.p_adjusted, r.family_size = o.p_adjusted, o.family_size
  end
  if o.a == nil or o.b == nil then
    r.verdict = "not comparable"
    r.note = "unknown on at least one side"
    return r
  end
  if o.comparable == false then
    r.verdict = "not comparable"
    r.note = o.why
    return r
  end
  if o.like_for_like == false then
    -- a test of figures pooled over different loads is no evidence: none is reported
    r.verdict, r.test, r.p_value, r.p_adjusted, r.family_size = "not comparable", nil, nil, nil, nil
    r.note = "not like for like: pooled over load points that differ between the runs"
    return r
  end
  if m.better == "none" then
    r.verdict = "not comparable"
    r.note = "describes the run; neither value is better"
    return r
  end
  if o.follows_sends then
    -- a throughput of two runs that both kept up with every load they were sent is the rate
    -- each was sent (llmd.loadpoints.kept_up_everywhere): its difference, tested or not, is
    -- the load generators', so no winner, no test, and nothing in the family
    r.verdict, r.test, r.p_value, r.p_adjusted, r.family_size = "not comparable", nil, nil, nil, nil
    r.follows_sends = true
    r.note = o.follows_sends
    return r
  end
  if o.test and o.test.identical then
    -- the same value in every repeat of both runs: nothing to test, and no difference
    r.verdict, r.test = "no clear difference", nil
    r.identical = true
    r.note = o.test.note or ("identical in every repeat (%d and %d repeats): no test"):format(o.test.n_a, o.test.n_b)
    if o.test.overloaded then
      -- alike only at the loads both sustained: the figures pool the others, which differ
      r.verdict = "not comparable"
      r.note = M.pooled_over_text(o.test.overloaded) .. ", which the test left out; " .. r.note
    elseif o.test.left_out then
      -- alike only at the loads it kept: the loads left out (too dependent to test, measured
      -- by one run) are in the whole-run figures, and no test compared them: untested, never
      -- "no clear difference" (audit47 F1: 1.45 % against 0.00 %, all of A's failures at the
      -- two loads left out, read "no clear difference", CSV effect -100 %)
      r.verdict, r.untested_left_out = "untested", true
    end
    return r
  end
  local alpha = o.alpha or M.ALPHA
  if o.test and o.test.p ~= nil and not M.can_decide(o.test, alpha) then
    -- no outcome of this test could be significant: no evidence either way, not in the family,
    -- and never said as "no clear difference", which reads as a finding of sameness
    r.verdict, r.p_adjusted, r.family_size = "not shown to differ", nil, nil
    r.cannot_decide = true
    if o.test.test == "fisher" then
      -- (a count a saved test lacks is said as unknown, never as 0)
      local function n(v) return v and ("%d"):format(v) or "an unknown number" end
      r.note = ("%s, p = %s: %s of %s and %s of %s failed, too few failures for any split of them to give a "
        .. "p below %s, so this test cannot show a difference; not in the Holm family"):format(M.test_name(o.test),
        M.fmt_p(o.test.p), n(o.test.x_a), n(o.test.n_a), n(o.test.x_b), n(o.test.n_b), M.fmt_p(o.test.p_min))
      return r
    end
    if o.test.strata and o.test.units == "repeats" then
      -- stratified by load point over the repeats: too few of them
      r.note = ("%s, p = %s: %d and %d repeats over %d load points can give no p below %s, so this test cannot "
        .. "show a difference; not in the Holm family"):format(M.test_name(o.test), M.fmt_p(o.test.p), o.test.n_a or 0,
        o.test.n_b or 0, o.test.strata, M.fmt_p(o.test.p_min))
      return r
    end
    if o.test.strata then
      -- stratified by load point over per-request samples: no repeats to count, and no
      -- side whose repeats are all one value (it said "0 and 0 repeats (B's ...)")
      r.note = ("%s, p = %s: %s requests over %d load points can give no p below %s, so this test cannot show a "
        .. "difference; not in the Holm family"):format(M.test_name(o.test), M.fmt_p(o.test.p),
        o.test.n_requests and ("%d"):format(o.test.n_requests) or "too few", o.test.strata, M.fmt_p(o.test.p_min))
      return r
    end
    -- whose repeats are all one value: "A's repeats all one value" (a bare "A the same value
    -- in every repeat" read as garbled), by the caller's names of the sides where it gives
    -- them (label_a, label_b: treatments.lua's a and b are its own places, never "A"/"B")
    local which = o.test.constant == "both" and (o.label_a and ("%s's and %s's"):format(o.label_a, o.label_b)
      or "each run's") or o.test.constant == "a" and (o.label_a or "A") .. "'s"
      or (o.label_b or "B") .. "'s"
    -- the exact test's least p is that of these values: where they tie across the runs (0 %
    -- errors in both, say) it is above what as many repeats of distinct values allow (2 /
    -- C(n_a + n_b, n_a): 0.1 for 3 and 3), and the ties, not the number of repeats, are why
    local na, nb = o.test.n_a or 0, o.test.n_b or 0
    local best = na > 0 and nb > 0 and math.min(1, 2 / choose(na + nb, na)) or nil
    if best and o.test.p_min and o.test.p_min > best * (1 + 1e-9) then
      r.note = ("%s, p = %s: %d and %d repeats (%s repeats all one value), whose values tie across the runs, so no "
        .. "split of these values could give a p below %s (%d and %d repeats of values all different could reach %s); "
        .. "this test cannot show a difference; not in the Holm family"):format(M.test_name(o.test),
        M.fmt_p(o.test.p), na, nb, which, M.fmt_p(o.test.p_min), na, nb, M.fmt_p(best))
      return r
    end
    if not o.test.n_a and o.test.n1 and o.test.n2 then
      -- a test of per-request samples (exact Mann-Whitney on few requests): their count
      r.note = ("%s, p = %s: %d and %d requests can give no p below %s, so this test cannot show a difference; not "
        .. "in the Holm family"):format(M.test_name(o.test), M.fmt_p(o.test.p), o.test.n1, o.test.n2,
        M.fmt_p(o.test.p_min))
      r.units = "requests"
      return r
    end
    r.note = ("%s, p = %s: %d and %d repeats (%s repeats all one value) can give no p below %s, "
      .. "so this test cannot show a difference; not in the Holm family"):format(M.test_name(o.test),
      M.fmt_p(o.test.p), na, nb, which, M.fmt_p(o.test.p_min))
    return r
  end
  if o.test and o.test.p ~= nil and o.test.strata and o.test.overloaded
    and (o.test.test == "mann_whitney" or o.test.test == "cmh" or o.test.test == "fisher") then
    -- the test left out the load points where a run was overloaded, and the whole-run
    -- figures pool them: their difference is the queues', so they name no winner, and the
    -- row says what the test found at the loads both sustained (sustained_winner: the run
    -- whose values are lower there, where the test is significant; in the Holm family)
    r.verdict, r.sustained_only = "not comparable", true
    local sig = (r.p_adjusted or o.test.p) < alpha and o.test.z and o.test.z ~= 0
    -- a winner there only where the row's difference within those loads is beyond the
    -- practical threshold too (M.effect_size): else what it is, and no winner
    local size, size_note, settle = "beyond", nil, nil
    -- (no row effect - the samples at a tested load not at hand, a mixed test's repeats without
    -- the figure -: the test's finding as it is, as below where no load was overloaded; it
    -- raised "attempt to index a nil value" here)
    if sig and se and (se.pct or se.pp) then
      size, size_note, settle = M.effect_size(o.test, se, o.min_effect, o.label_a, o.label_b)
    elseif sig then
      -- (significant there, but no interval of the difference at those loads: its size is
      -- unknown, so no winner, as the rows' rule below; verdict55)
      size = "unsure"
      r.effect_why = r.effect_why or "no interval of that difference"
      size_note = ("significant, size unknown: the test finds %s's values lower, but with no interval of that "
        .. "difference its size is unknown, so it may be within the %s %% practical threshold: no winner"):format(
        o.test.z < 0 and (o.label_a or "A") or (o.label_b or "B"), ("%g"):format(o.min_effect or M.MIN_EFFECT))
    end
    r.settle = settle
    -- (which of the loads both sustained it tested, M.test_scope_text: never "at the loads both
    -- sustained" of a test that left some of them out)
    local where = M.test_scope_text(o.test)
    -- requests whose token lengths differ beyond their noise: the rows' token rule below
    -- (M.token_effect, on a rate ladder the heavier run's own curve at the loads tested) holds
    -- the difference found at the loads both sustained too (fixa53: one server, B's outputs 4 %
    -- shorter, E2E p90 -17.2 % at 12 req/s with a 17.5 req/s load overloaded, read "B's lower"
    -- in the max sustained Verdict, its lighter load explaining -16.6 %)
    local te = sig and size == "beyond" and se and se.pct and M.token_effect(o.key, o.token_gap, se.lo or se.pct,
      se.hi or se.pct, o.min_effect, o.token_curve)
    if te then r.token_range = te.range end
    if te and te.explained then
      r.token_explained = true
      r.note = ("%s, which the test left out; the test finds %s's values lower %s, but %s"):format(
        M.pooled_over_text(o.test.overloaded), o.test.z < 0 and (o.label_a or "A") or (o.label_b or "B"), where,
        te.note)
      return r
    end
    if te then r.token_note = te.note end
    if sig and size == "beyond" then r.sustained_winner = o.test.z < 0 and "a" or "b" end
    if sig and size ~= "beyond" then r.sustained_size, r.sustained_lower = size, o.test.z < 0 and "a" or "b" end
    r.note = M.pooled_over_text(o.test.overloaded) .. ", which the test left out; "
      .. (sig and size_note and (where .. ", " .. size_note)
      or sig and ("the test finds %s's values lower %s"):format(o.test.z < 0 and (o.label_a
      or "A") or (o.label_b or "B"), where) or ("the test finds no clear difference " .. where))
    return r
  end
  -- (after the test that cannot decide: equal values are no reason to count it in the family)
  if ea == eb and o.test and o.test.p ~= nil then
    r.verdict = "no clear difference"
    return r
  end
  if not o.test or o.test.p == nil then
    -- equal values with no test are untested too: equal figures from one run each say
    -- nothing of the noise around them
    r.verdict = "untested"
    r.note = o.a == o.b and ("identical values; " .. (o.untested_why or "no test possible")) or o.untested_why
    return r
  end
  if (r.p_adjusted or o.test.p) >= alpha and o.test.dependent then
    -- the test covered only some of the loads both runs sustained, and the figures pool the
    -- others, where a difference may lie: nothing is said of sameness
    local n, all = #o.test.dependent, o.test.sustained_strata or (#o.test.dependent + (o.test.strata or 0))
    r.verdict, r.partial = "not shown to differ", true
    r.note = ("untested at %d of %d loads (too dependent: %s), which the figures pool; %s%s, %s"):format(
      n, all, table.concat(o.test.dependent, ", "), M.test_name(o.test),
      (o.test.strata or 0) == 1 and ", the one tested" or (" at the %d tested"):format(o.test.strata or 0),
      r.p_adjusted and M.adjusted_text(o.test.p, r.p_adjusted, r.family_size or 1) or M.p_is(o.test.p))
    return r
  end
  if (r.p_adjusted or o.test.p) >= alpha then
    r.verdict = "no clear difference"
    if o.test.p < alpha then
      r.adjusted_away = true
      r.note = "significant alone (" .. M.adjusted_text(o.test.p, r.p_adjusted, r.family_size or 1)
        .. "): not after the Holm adjustment"
      if o.test.p_min and o.test.p <= o.test.p_min * (1 + 1e-9) then
        -- the most extreme outcome this exact test allows (complete separation of the
        -- repeats), and still not below alpha among the family's tests: the data could not
        -- have shown a difference, so nothing is said of sameness either
        r.verdict, r.too_few = "not shown to differ", true
        r.note = ("%s, p = %s, the smallest p %s allow, is %s after the Holm adjustment over %d tests: too few "
          .. "to show a difference"):format(M.test_name(o.test), M.fmt_p(o.test.p), o.test.test == "fisher"
          and "these request counts" or ("these %d and %d repeats"):format(o.test.n_a or 0, o.test.n_b or 0),
          M.fmt_p(r.p_adjusted), r.family_size or 1)
      end
    end
    return r
  end
  local eff = r.effect_pct
  if se and (se.pct or se.pp) then
    -- the row's own effect (within the points, at the one point, over the repeats, or the
    -- error rate's counts) and its interval: a winner only where the whole interval is
    -- beyond the threshold
    local size, size_note, settle = M.effect_size(o.test, se, o.min_effect, o.label_a, o.label_b)
    if size ~= "beyond" then
      r.verdict = size == "small" and "negligible" or size == "opposite" and "not comparable"
        or "not shown to differ"
      r.size, r.note, r.settle = size, size_note, settle
      -- (the run whose values are lower: the test's direction where it has one, else the figures')
      local z = o.test.z ~= 0 and o.test.z or nil
      r.size_lower = (z and z < 0 or not z and (se.pct or se.pp) > 0) and "a" or "b"
      return r
    end
  elseif eff and M.magnitude(eff) < (o.min_effect or M.MIN_EFFECT) then
    -- (no interval of the difference: the estimate within the threshold bounds nothing, so
    -- never "negligible", which says the whole difference is within it, wording54)
    r.verdict, r.size = "not shown to differ", "unsure"
    r.size_lower = eb > ea and "a" or "b"
    r.note = ("a difference within the %s %% practical threshold by the figures (%s), but with no interval of it, so "
      .. "it may be beyond it: no winner"):format(("%g"):format(o.min_effect or M.MIN_EFFECT),
      M.pct_near(eff, o.min_effect or M.MIN_EFFECT))
    return r
  end
  if o.key == "error_rate_pct" and math.abs(eb - ea) < M.MIN_ERROR_PP and not (se and (se.pct or se.pp)) then
    r.verdict, r.size = "not shown to differ", "unsure"
    r.size_lower = eb > ea and "a" or "b"
    r.note = ("%s pp apart%s, within the error rate's practical threshold of %s percentage points by the figures, but "
      .. "with no interval of that difference, so it may be beyond it: no winner"):format(
      ("%.3g"):format(math.abs(eb - ea)), ea ~= o.a and " within the load points" or "", ("%g"):format(M.MIN_ERROR_PP))
    return r
  end
  if not se and o.test.strata and o.test.test == "mann_whitney" and o.test.z and o.test.z ~= 0
    and (o.test.z < 0) ~= (eb > ea) then
    -- stratified by load point, the test finds B's values larger (z < 0) or smaller, and
    -- the figures pooled over the loads differ the other way: they mix in the runs' spread
    -- over the loads, and name no winner
    r.verdict = "not comparable"
    r.note = "the test within the load points and the figures pooled over them differ in opposite directions "
      .. "(the runs spread their requests over the loads differently)"
    return r
  end
  if not (se and (se.pct or se.pp)) then
    -- significant, but no interval of the difference: the estimate beyond the threshold
    -- bounds nothing (an estimate just past 2 % is as likely 1 % as 3 %), so its size is
    -- unknown and no winner is named - the mirror of the estimate within it (wording54);
    -- a winner needs the whole interval beyond the threshold (M.effect_size, verdict55)
    -- (size "unsure", as an unbounded interval's: every reader of it says no winner, and why)
    r.verdict, r.size = "not shown to differ", "unsure"
    r.effect_why = r.effect_why or "no interval of that difference"
    -- (the run whose values are lower: the test's direction where it has one, else the figures')
    local z = o.test.z ~= 0 and o.test.z or nil
    r.size_lower = (z and z < 0 or not z and eb > ea) and "a" or "b"
    local lower = r.size_lower == "a" and (o.label_a or "A") or (o.label_b or "B")
    local by = eff and M.pct_near(eff, o.min_effect or M.MIN_EFFECT)
      or (o.key == "error_rate_pct" and ("%s pp"):format(signed(eb - ea, 2))) or "N/A"
    r.note = ("significant, size unknown: %s's values are lower (%s %s against %s), %s, but with no interval of that "
      .. "difference its size is unknown, so it may be within the %s %% practical threshold: no winner"):format(
      lower, o.label_b or "B", by, o.label_a or "A", r.p_adjusted and M.adjusted_text(o.test.p, r.p_adjusted,
      r.family_size or 1) or M.p_is(o.test.p), ("%g"):format(o.min_effect or M.MIN_EFFECT))
    return r
  end
  local b_better = (m.better == "higher") == (eb > ea)
  -- (stratified: the direction within the load points, which the effect_size check agreed with)
  if se and (se.pct or se.pp) then b_better = (m.better == "higher") == ((se.pct or se.pp) > 0) end
  -- Requests whose token lengths differ beyond their noise (o.token_gap, M.token_gap), even within
  -- the workload match's tolerance: a figure those lengths move (M.token_range) names a winner
  -- only where its difference is beyond what the lengths explain. The row's effect (its
  -- interval where it has one, else its figure) as a ratio B / A is divided by the token
  -- range's far end on its side: (1 + lo) / range.hi - 1 to (1 + hi) / range.lo - 1, the
  -- difference left if the lengths moved the figure as far as they can, in the direction that
  -- explains most; a winner only where that is still beyond the practical threshold
  -- (M.interval_beyond), else "not comparable", and why. A difference against the lengths'
  -- direction (B asks more tokens, and is faster) is only the larger for it: the winner stays.
  -- On request-rate ladders (o.token_curve: M.token_load_curve) the far end is read on the
  -- heavier run's own load curve too: a lighter workload is a lighter load (M.token_effect).
  local pct = se and se.pct or r.effect_pct
  local te = pct and M.token_effect(o.key, o.token_gap, se and se.pct and se.lo or pct,
    se and se.pct and se.hi or pct, o.min_effect, o.token_curve)
  if te then
    r.token_range = te.range
    if te.explained then
      r.verdict, r.token_explained, r.note = "not comparable", true, te.note
      return r
    end
    r.token_note = te.note
  end
  r.verdict = b_better and "B better" or "A better"
  r.winner = b_better and "b" or "a"
  return r
end

-- A row's verdict (verdict_of). A test that left out the loads where a run was overloaded or
-- could not be judged (test.overloaded), and that could not decide, said "not shown to differ"
-- of whole-run figures that pool those loads (audit53 F3: inferencemax's TTFT p90 +93 %, its
-- saturation unknown past load 2 of B, "not shown to differ" where vLLM's files of the same
-- requests said "not comparable"): the figures pool loads the test did not compare, so they
-- are "not comparable", with what the test could not show beside it.
function M.verdict(o)
  local r = verdict_of(o)
  if r.cannot_decide and r.verdict == "not shown to differ" and o.test and o.test.strata
    and type(o.test.overloaded) == "table" then
    r.verdict = "not comparable"
    r.note = M.pooled_over_text(o.test.overloaded) .. ", which the test left out; " .. (r.note or "")
  end
  return r
end

-- The verdict as the report prints it: "vllm better" for a win, the verdict otherwise.
function M.verdict_text(v, la, lb)
  if v == "B better" then return lb .. " better" end
  if v == "A better" then return la .. " better" end
  return v
end

return M
