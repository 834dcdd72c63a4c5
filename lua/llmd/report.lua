-- llmd.report: the comparison model of two runs, and its outputs.
--
--   local report = require "llmd.report"
--   local model = report.build{ workspace = path, a = side_a, b = side_b, slo = list, min_effect = 2 }
--     -- side = { label =, state = run_state, run = run model (llmd.harness), kv = llmd.kvcache }
--   report.write(model, path, { templates = dir })   -- comparison_report.md, .json, .csv
--
-- Everything a report says is decided here, from the numbers, with the decision layer
-- (llmd.decision: workload match, tests, verdicts; llmd.loadpoints: load points, repeats,
-- saturation, capacity at an SLO, the ladder paired by offered or achieved load). The shape of the
-- decision fields is documented in README ("comparison.json") and is shared with the
-- visual report and N-way comparisons. The template only lays them out.
local metrics = require "llmd.metrics"
local json = require "llmd.json"
local T = require "llmd.template"
local decision = require "llmd.decision"
local lp = require "llmd.loadpoints"

local M = {}

M.PERF_KEYS = {
  "throughput_req_s", "throughput_tok_s", "latency_p50_ms", "latency_p90_ms", "latency_p95_ms",
  "latency_p99_ms", "latency_p999_ms", "ttft_mean_ms", "ttft_p50_ms", "ttft_p90_ms", "ttft_p95_ms", "ttft_p99_ms",
  "ttft_p999_ms", "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p95_ms", "tpot_p99_ms", "tpot_p999_ms",
  "itl_mean_ms", "itl_p50_ms", "itl_p90_ms", "itl_p95_ms", "itl_p99_ms", "itl_p999_ms", "itl_tw_p50_ms",
  "itl_tw_p90_ms", "itl_tw_p95_ms", "itl_tw_p99_ms", "error_rate_pct",
}

-- Rows shown only where a run has the figure (p99.9 and guidellm's token-weighted ITL
-- are in few files); every other row is shown, N/A with its reason included.
M.OPTIONAL_KEYS = {
  latency_p999_ms = true, ttft_p999_ms = true, tpot_p999_ms = true, itl_p999_ms = true,
  itl_tw_p50_ms = true, itl_tw_p90_ms = true, itl_tw_p95_ms = true, itl_tw_p99_ms = true,
}

-- Metrics whose formula is the same whichever harness measured them.
local UNIVERSAL = {
  throughput_req_s = true, throughput_tok_s = true, throughput_total_tok_s = true, error_rate_pct = true,
  requests_ok = true, requests_failed = true, requests_incomplete = true, input_tokens_total = true,
  output_tokens_total = true, duration_s = true,
}

M.TEST = "Mann-Whitney U (two-sided; exact, over every split of the mid-ranks, with at most 60 samples in all, "
  .. "else the normal approximation with tie correction) on the per-request samples, stratified by load point "
  .. "(van Elteren) where a run has several; where a load point of such runs was repeated, on the repeats instead, "
  .. "each repeat's mean (else p50) one sample, stratified by load point, as the requests of one repeat are no "
  .. "independent draws "
  .. "(the error rate: Fisher's exact test, two-sided, on the counts of failed and completed requests, "
  .. "stratified by load point where a run has several), "
  .. "or Welch's t-test on the repeats of one load point, on their log values where every value is above 0 (the "
  .. "exact Mann-Whitney test where a run's repeats are all one value); alpha = 0.05"

-- A p-value as printed: "0.0123", "< 1e-9".
local fmt_p = decision.fmt_p

local slo_limit = lp.slo_limit

-- A figure of key at d decimals, or as many more as show its side of the SLO limit on key
-- (metrics.decimals_apart: "35.41" beside TTFT p90 <= 35.4 ms, never "35.4").
local function num_beside(x, d, slo, key)
  local lim = type(x) == "number" and slo_limit(slo, key)
  return T.helpers.num(x, lim and metrics.decimals_apart({ x }, lim, d) or d)
end
M.fmt_p = fmt_p

local harness_note -- (defined below)
local formula_of, source_of -- (defined below)
local workload_title -- (defined below)
local like_unverified -- (defined below)
local same_plan_config -- (defined below)

local function harness_name(run)
  if run.tool and run.tool ~= "" then return run.harness .. " (" .. run.tool .. ")" end
  return run.harness
end

-- How a harness counts the token gaps behind ITL: "token" (every output token, the
-- tokens of one streamed chunk sharing its arrival time) or "chunk" (one gap per streamed
-- chunk, whatever its tokens).
local ITL_BASIS = { ["inference-perf"] = "token", guidellm = "token", ["vllm-benchmark"] = "chunk",
  inferencemax = "chunk" }
local ITL_BASIS_TEXT = { token = "counts per token, the tokens of one chunk sharing its time",
  chunk = "counts per streamed chunk" }

-- A run's ITL basis ("token" | "chunk"), or nil when unknown: its harness's, or for a
-- benchmark report the tool's (nil when its stages name several tools that count apart).
function M.itl_basis(run)
  if run.harness ~= "benchmark-report" then return ITL_BASIS[run.harness] end
  local basis
  for tool in tostring(run.tool or ""):gmatch("[^,%s]+") do
    local b = ITL_BASIS[tool]
    if not b or (basis and b ~= basis) then return nil end
    basis = b
  end
  return basis
end

-- The harness whose formulas a run's figures follow: its own, or for a benchmark report of
-- one harness llmdlua knows (its tool), that harness's.
formula_of = function(run)
  if run.harness == "benchmark-report" then
    local tool = tostring(run.tool or "")
    if ITL_BASIS[tool] then return tool end
  end
  return harness_name(run)
end

-- Where a run's figure of key comes from ("per-request data", "harness summary", ...): the
-- whole run's source, else its stages' (a run of repeats shows their mean, and its whole-run
-- value may be unknown), or nil when none is recorded.
source_of = function(run, key)
  local src = run.overall.source[key]
  if src then return src end
  for _, st in ipairs(run.stages or {}) do
    src = st.metrics and st.metrics.source and st.metrics.source[key]
    if src then return src end
  end
  return nil
end

-- Can key be compared between runs a and b? true, or false and why.
function M.comparable(key, ra, rb)
  local sa, sb = ra.overall, rb.overall
  local ma, mb = sa.method[key], sb.method[key]
  if ma and mb and ma ~= mb then
    return false, ("percentile methods differ: %s uses %s, %s uses %s"):format(ra.label or "A",
      ma == "nearest" and "nearest rank" or "linear interpolation", rb.label or "B",
      mb == "nearest" and "nearest rank" or "linear interpolation")
  end
  if UNIVERSAL[key] then return true end
  local ha, hb = harness_name(ra), harness_name(rb)
  -- a benchmark report of one harness carries that harness's own figures (its converter
  -- copies them): the same formula as the harness read natively
  if ha == hb or formula_of(ra) == formula_of(rb) then return true end
  -- token gaps are not the same quantity everywhere: inference-perf gives every token of a
  -- chunk the chunk's time (gaps of 0 inside it) and guidellm divides first-to-last token by
  -- the tokens, both per token; vLLM's benchmarks (and inferencemax, their fork) pool chunk
  -- gaps. Runs that count the same way give the catalogue's one quantity, whatever the
  -- harness; runs that do not are not compared, and the note says how each counts.
  if key:match("^itl_") then
    local ba, bb = M.itl_basis(ra), M.itl_basis(rb)
    if ba and ba == bb then return true end
    local function how(run, label, basis)
      return ("%s (%s) %s"):format(label, harness_name(run), basis and ITL_BASIS_TEXT[basis]
        or "does not say how it counts them")
    end
    return false, ("token gaps are counted differently: %s; %s"):format(how(ra, ra.label or "A", ba),
      how(rb, rb.label or "B", bb))
  end
  local pa, pb = source_of(ra, key), source_of(rb, key)
  if pa == "per-request data" and pb == "per-request data" then return true end
  local function from(label, h, src)
    if src then return ("%s from %s's %s"):format(label, h, src) end
    return ("%s from %s (its source not recorded)"):format(label, h)
  end
  return false, ("formula may differ: %s, %s"):format(from(ra.label or "A", ha, pa), from(rb.label or "B", hb, pb))
end

-- Two harnesses: which Performance Results rows compare across them and why, which do not
-- (M.comparable's reason), by metric (the percentiles of one metric together), for the
-- banner; the rows themselves say the same (a verdict, or "not comparable" with the note).
harness_note = function(rows, A, B)
  local same_formula = B and formula_of(A.run) == formula_of(B.run)
  local yes, no, order_yes, order_no = {}, {}, {}, {}
  local function family(label) return (label:gsub(" p[%d%.]+$", ""):gsub(" mean$", ""):gsub(" tw$", "")) end
  local function add(t, order, why, name)
    if not t[why] then
      t[why] = {}
      order[#order + 1] = why
    end
    for _, x in ipairs(t[why]) do if x == name then return end end
    t[why][#t[why] + 1] = name
  end
  for _, r in ipairs(rows) do
    if r.a ~= nil and r.b ~= nil then
      local name = family(r.label)
      if r.decide.comparable == false then
        -- each metric once, with its reasons (its mean and percentiles may have others)
        add(no, order_no, name, r.decide.why or "formula may differ")
      else
        local why = UNIVERSAL[r.key] and "counts over the same requests"
          or r.key:match("^itl_")
            and ("token gaps counted the same way by both: %s"):format(ITL_BASIS_TEXT[M.itl_basis(A.run)])
          or same_formula and ("%s's own figures on both sides: a benchmark report of %s carries them as %s "
            .. "records them"):format(formula_of(A.run), formula_of(A.run), formula_of(A.run))
          or "both computed from per-request data, by one formula"
        add(yes, order_yes, why, name)
      end
    end
  end
  local y, n = {}, {}
  for _, why in ipairs(order_yes) do y[#y + 1] = ("%s (%s)"):format(table.concat(yes[why], ", "), why) end
  -- each metric once, with all its reasons; metrics with the same reasons together
  local by_why, order_why = {}, {}
  for _, name in ipairs(order_no) do add(by_why, order_why, table.concat(no[name], "; "), name) end
  for _, why in ipairs(order_why) do n[#n + 1] = ("%s (%s)"):format(table.concat(by_why[why], ", "), why) end
  if #n == 0 then
    return ("Across the two harnesses every row with figures on both sides is measured the same way, so compared: %s")
      :format(#y > 0 and table.concat(y, "; ") or "none")
  end
  return ("Across the two harnesses only the rows measured the same way are compared: %s; not comparable, and "
    .. "marked so below: %s"):format(#y > 0 and table.concat(y, "; ") or "none", table.concat(n, "; "))
end

-- Is a run's ITL inference-perf's per-token timestamps (itself, or as a benchmark
-- report's tool)? Such gaps are 0 between the tokens of one streamed chunk.
local function itl_per_token_times(run)
  if run.harness ~= "inference-perf" and not tostring(run.tool or ""):find("inference-perf", 1, true) then
    return false
  end
  for _, q in ipairs(metrics.PCTS) do
    if run.overall.values["itl_" .. q[1] .. "_ms"] ~= nil then return true end
  end
  return run.overall.values.itl_mean_ms ~= nil
end
M.itl_per_token_times = itl_per_token_times

-- The footnote beside ITL figures from inference-perf's per-token timestamps (runs: the
-- labels of those runs), or nil. What comparable() does with them is said with it.
local function itl_note(runs, other_harness)
  if #runs == 0 then return nil end
  local who = #runs == 2 and ("%s and %s"):format(runs[1], runs[2]) or runs[1]
  return ("ITL of %s: inference-perf gives every token of a streamed chunk the chunk's arrival time, so the gaps "
    .. "inside a chunk are ~0 ms and low ITL percentiles (p50) say how the server chunks its stream, not how fast "
    .. "it decodes; TPOT (per request, first to last token) is the decode figure.%s"):format(who,
    other_harness and " ITL rows against a run that counts gaps otherwise (per streamed chunk, as vLLM's "
      .. "benchmarks do) are marked \"not comparable\" and get no delta." or "")
end

-- The Change cell where A's figure is 0: no relative change against nothing, and where B's
-- is 0 too there is nothing to compare ("0 in both": two runs without a failure read "A is 0"
-- as if A lacked something).
local function zero_change(vb)
  return vb == 0 and "N/A (0 in both)" or "N/A (A is 0)"
end

local function fmt_delta(key, d)
  local m = metrics.get(key)
  local s = T.helpers.signed(d, (m.format:match("%.(%d)f") or 0) + 0)
  if m.unit == "%" then return s .. " pp" end
  if m.unit == "count" then return s end
  return s .. " " .. m.unit
end

-- A run's whole-run figure of key as the reports give it (points: its load points). A run
-- that is repeats of one load point gives the mean over its repeats, "(mean of 3)" (what
-- Welch's test is about), whatever a pooled whole-run figure would be; else its whole-run
-- figure. Each run by its own data only: the other run's repeats change nothing here.
-- Returns the value (nil when unknown), its text, why it is unknown, and the number of
-- repeats when it is their mean.
-- Request and output token throughput of a run of one load point whose throughput is its pace
-- or its drain-reduced rate (llmd.loadpoints.THROUGHPUT_DEFINITION): that throughput, which
-- the ladder ranks and Welch's test on the repeats reads (their samples), not the harness's
-- completed / window, whose last answers' latency lowers it; the harness's figure is the
-- fifth value returned, and in the text beside it ("; harness 3.887"). other (optional): the
-- other run's figure of key, printed beside this one: as many more decimals as part the two
-- where they differ (metrics.decimals_apart: 35.406 against 35.35 ms "35.41" and "35.35", never
-- "35.4" twice, which reads as one figure).
local DEFINED = { throughput_req_s = { "achieved_rps", "harness_rps" },
  throughput_tok_s = { "output_tps", "harness_tps" } }
local function run_figure(run, points, key, other)
  local apart = type(other) == "number" and { limit = other } or nil
  local one = #points == 1 and points[1] or nil
  if one and one.rate_basis and one.rate_basis ~= "harness" and DEFINED[key] then
    local n = (one.repeats or 1) >= 2 and one.repeats or nil
    local v, h = one[DEFINED[key][1]], one[DEFINED[key][2]]
    if v == nil then
      local why = one.na[key] or "unknown"
      return nil, metrics.format(key, nil, why), why, n
    end
    local m = metrics.get(key)
    local parts = {}
    if n then parts[1] = ("mean of %d"):format(n) end
    if h ~= nil then parts[#parts + 1] = "harness " .. T.helpers.num(h, tonumber(m.format:match("%.(%d)f") or 0)) end
    local text = metrics.format(key, v, nil, apart) .. (#parts > 0 and (" (" .. table.concat(parts, "; ") .. ")") or "")
    return v, text, nil, n, h
  end
  if #points > 1 and DEFINED[key] then
    -- several load points, each with its throughput as defined: the run's is theirs pooled,
    -- every point's completed requests over the time that throughput gives them (completed /
    -- throughput: the drain-reduced window, or the pace's), sum over sum, weighed by its
    -- repeats; tok/s the same time-weighted sum of each point's output tok/s. Never the
    -- harness's completed / window pooled, which is the Load Curves' "Harness req/s"
    -- (newuser48 F2: one label, two formulas): that goes beside it, "(harness 81.089)".
    local sum_v, sum_t, all = 0, 0, true
    for _, q in ipairs(points) do
      local ok, rps, v = q.values and tonumber(q.values.requests_ok), q.achieved_rps, q[DEFINED[key][1]]
      if not (q.rate_basis and q.rate_basis ~= "harness" and ok and rps and rps > 0 and v) then all = false; break end
      local reps = q.repeats or 1
      local t = ok / rps * reps
      sum_v, sum_t = sum_v + v * t, sum_t + t
    end
    if all and sum_t > 0 then
      local v, h = sum_v / sum_t, run.overall.values[key]
      local m = metrics.get(key)
      local text = metrics.format(key, v, nil, apart)
        .. (h ~= nil and (" (harness " .. T.helpers.num(h, tonumber(m.format:match("%.(%d)f") or 0)) .. ")") or "")
      return v, text, nil, nil, h
    end
  end
  local p = #points == 1 and (points[1].repeats or 1) >= 2 and points[1] or nil
  if p then
    local v = p.values[key]
    if v ~= nil then
      return v, metrics.format(key, v, nil, apart) .. (" (mean of %d)"):format(p.repeats), nil, p.repeats
    end
    return nil, metrics.format(key, nil, p.na[key]), p.na[key], p.repeats
  end
  local v, w = run.overall.values[key], run.overall.na[key]
  return v, metrics.format(key, v, w, apart), v == nil and w or nil, nil
end
M.run_figure = run_figure

-- Why the throughput rows name no winner where both runs kept up with every load they were
-- sent (llmd.loadpoints.kept_up_everywhere; sat: both runs' saturation): "both runs kept up
-- with what they were sent (a 4.000, b 4.143 req/s sent), ...", the rates each run's requests
-- went out at where each is one load point (else its offered rate, or nothing where several);
-- nil where a run saturated, failed more than the limit, or its saturation is unknown: there
-- the throughput is the server's, and the rows are tested as any other.
local FOLLOWS_SENDS = { throughput_req_s = true, throughput_tok_s = true }
local function follows_sends_text(A, B, pa, pb, sat)
  if not (lp.kept_up_everywhere(sat.a, pa) and lp.kept_up_everywhere(sat.b, pb)) then return nil end
  local what
  if #pa == 1 and #pb == 1 then
    local d = tonumber(metrics.get("throughput_req_s").format:match("%.(%d)f") or 3)
    local xa, xb = lp.sent_rps(pa[1]), lp.sent_rps(pb[1])
    if xa and xb then
      what = (" (%s %s, %s %s req/s sent)"):format(A.label, T.helpers.num(xa, d), B.label, T.helpers.num(xb, d))
    else
      local function one(label, x, p)
        return x and ("%s %s req/s sent"):format(label, T.helpers.num(x, d))
          or ("%s %g req/s offered, its send rate unknown"):format(label, p.offered)
      end
      what = (" (%s; %s)"):format(one(A.label, xa, pa[1]), one(B.label, xb, pb[1]))
    end
  else
    what = " at every load point"
  end
  return ("both runs kept up with what they were sent%s, and a server that keeps up answers what it gets: the "
    .. "throughput follows the sends (times the share that succeeded, which the error rate row compares), so a "
    .. "difference in it measures the load generators, not the servers"):format(what)
end

-- One run kept up with every load it was sent (llmd.loadpoints.kept_up_everywhere), the
-- other did not, or is not known to have: the first's throughput is what it was sent, never
-- its capacity, so a throughput row's order is evidence only where the other run saturated
-- (fell behind what it was sent) at a throughput below the first's, which then delivered
-- more than the other's ceiling. Else (the other's saturation unknown, or its higher figure
-- perhaps only more sent to it) no winner. va, vb: the row's figures. Returns {why =,
-- short =, evidence =} or nil where the row's order stands or both kept up (follows_sends_text).
local function one_follows_sends(A, B, pa, pb, sat, va, vb)
  if va == nil or vb == nil then return nil end
  local ka, kb = lp.kept_up_everywhere(sat.a, pa), lp.kept_up_everywhere(sat.b, pb)
  if ka == kb then return nil end
  local K, O, so, pk, vk, vo = A, B, sat.b, pa, va, vb
  if kb then K, O, so, pk, vk, vo = B, A, sat.a, pb, vb, va end
  local saturated = so and so.point and not so.unknown
  if saturated and vk > vo then return nil end
  local what = " at every load point"
  if #pk == 1 then
    local x = lp.sent_rps(pk[1])
    what = x and (" (%s req/s sent)"):format(T.helpers.num(x, tonumber(metrics.get("throughput_req_s").format:match(
      "%.(%d)f") or 3))) or (" (%g req/s offered)"):format(pk[1].offered)
  end
  local why = saturated and ("%s fell behind what it was sent, at a throughput above %s's, which more sent to it may "
    .. "explain"):format(O.label, K.label)
    or so and so.unknown and ("%s's saturation is unknown, so its throughput may be what it was sent too"):format(
      O.label)
    or ("%s is not known to have fallen behind what it was sent"):format(O.label)
  return {
    why = ("%s kept up with what it was sent%s, so its throughput is its send rate, not its capacity (a server that "
      .. "keeps up answers what it gets), and %s: the difference may measure the load generators, not the servers")
      :format(K.label, what, why),
    short = ("no winner: %s kept up"):format(K.label),
    evidence = ("no test: %s kept up with what it was sent, so its throughput follows its sends (below)"):format(
      K.label),
  }
end

local function perf_row(key, ctx)
  local m = metrics.get(key)
  local A, B = ctx.A, ctx.B
  local ra, rb = A.run, B.run
  local va, ta, wa, na_, ha = run_figure(ra, ctx.pa, key)
  local vb, tb, wb, nb_, hb = run_figure(rb, ctx.pb, key)
  -- two figures that differ, each printed apart from the other (the row compares them)
  if type(va) == "number" and type(vb) == "number" and va ~= vb then
    ta = select(2, run_figure(ra, ctx.pa, key, vb))
    tb = select(2, run_figure(rb, ctx.pb, key, va))
  end
  local repeats = na_ ~= nil and nb_ ~= nil
  local row = {
    key = key, label = m.label, unit = m.unit, better_is = m.better,
    a = va, b = vb, a_text = ta, b_text = tb, repeat_means = repeats or nil,
    delta_text = "N/A", pct_text = "N/A", evidence = "",
    -- (the harness's completed / window beside a throughput shown as defined: run_figure)
    a_harness = ha, b_harness = hb,
  }
  -- which side is unknown and why, as fields of their own (comparison.json, the CSV's note)
  if va == nil then row.a_na = wa or "no value and no reason recorded" end
  if vb == nil then row.b_na = wb or "no value and no reason recorded" end
  local ok, why = true, nil
  if va ~= nil and vb ~= nil then ok, why = M.comparable(key, ra, rb) end
  -- a Delta that cannot be given says why in a word (the cells or the notes say more)
  if va == nil or vb == nil then
    row.delta_text = va == nil and vb == nil and "N/A (unknown on both sides)"
      or ("N/A (unknown for %s)"):format(va == nil and "A" or "B")
  elseif not ok then
    row.delta_text = "N/A (not comparable)"
  end
  local test, untested_why
  if va ~= nil and vb ~= nil and ok then
    local d = metrics.delta(key, va, vb)
    row.delta = d.diff
    row.pct = d.pct
    row.delta_text = fmt_delta(key, d.diff)
    row.pct_text = d.pct and T.helpers.pct(d.pct) or (va == 0 and zero_change(vb) or "N/A")
    test, untested_why = decision.row_test(key, ra, rb, ctx.pa, ctx.pb, ctx.memo, { a = A.label, b = B.label },
      ctx.saturation)
    -- (analyze.lua from saved state, no samples: a run measured once against the other's repeats
    -- was tested per request (sig.once), which the saved models cannot make again; the repeats'
    -- test they can make is the weaker one that test replaced: the saved one, as below)
    if test and test.units == "repeats" and ctx.saved and ctx.saved[key] and ctx.saved[key].p
      and type(ctx.saved[key].once) == "table" and not (ra.overall.samples or rb.overall.samples) then
      test = nil
    end
    -- (a saved test that took in a load a run did not sustain, by the tests' rule now: not
    -- brought back, and why: decision.saved_test_unsustained)
    local stale = not test and ctx.saved and ctx.saved[key] and ctx.saved[key].p
      and decision.tests_samples(key, ctx.pa, ctx.pb)
      and decision.saved_test_unsustained(ctx.saved[key], ra, rb, ctx.pa, ctx.pb, ctx.saturation)
    if stale then
      untested_why = stale
    elseif not test and ctx.saved and ctx.saved[key] and ctx.saved[key].p
      and decision.tests_samples(key, ctx.pa, ctx.pb) then
      -- analyze.lua from saved state: the test the last report made on the samples (never
      -- where the repeats are the units: their values are saved, and a row they cannot test
      -- stays untested, with why, rather than quote an older report's pooled test)
      test = ctx.saved[key]
      test.test = test.test or "mann_whitney"
      -- a test saved before winners were held to the whole interval of the row's effect has
      -- none, and the samples are not here to compute it: no winner on the estimate alone,
      -- said why and what settles it (decision.saved_effect), never the old rule silently
      -- (one saved on the old scale, relative to the mean of both: read on this one)
      test.row_effect = decision.read_saved_effect(test.row_effect)
      if type(test.row_effect) ~= "table" then test.row_effect = decision.saved_effect(va, vb) end
    elseif not test and ctx.saved and ctx.saved[key] and type(ctx.saved[key].untested_why) == "string"
      and not (ra.overall.samples and rb.overall.samples) and decision.tests_samples(key, ctx.pa, ctx.pb) then
      -- and why the last report made none, which the samples it had told (too dependent to
      -- test, overloaded): the saved state has no samples to tell it again
      untested_why = ctx.saved[key].untested_why
    end
    -- (saved in comparison.json for analyze.lua, as the test is: row.sig)
    if not test and untested_why and decision.tests_samples(key, ctx.pa, ctx.pb) then
      row.untested_why = untested_why
    end
  end
  row.sig = test
  row.like_for_like = ctx.match.like_for_like ~= false
  -- what the verdict needs, decided once the family of the comparison is known (finish_row)
  -- (the runs' labels: a note names the run whose repeats are all one value by its label)
  row.decide = { key = key, a = va, b = vb, test = test, min_effect = ctx.min_effect,
    like_for_like = ctx.match.like_for_like, comparable = ok, why = why, untested_why = untested_why,
    label_a = A.label, label_b = B.label, token_gap = ctx.token_gap,
    -- (the runs' load curves of key, where their token lengths differ: what a lighter load
    -- explains, decision.token_effect)
    token_curve = ctx.token_gap and decision.token_load_curve(key, ctx.pa, ctx.pb, test) or nil,
    follows_sends = FOLLOWS_SENDS[key] and ctx.follows_sends and (ctx.follows_sends .. "; no winner") or nil }
  local one = FOLLOWS_SENDS[key] and not ctx.follows_sends and ok
    and one_follows_sends(A, B, ctx.pa, ctx.pb, ctx.saturation, va, vb)
  if one then
    -- (one run's throughput is its sends: finish_row's verdict and evidence say which)
    row.decide.follows_sends, row.decide.sends_short, row.decide.sends_evidence = one.why .. "; no winner", one.short,
      one.evidence
    ctx.sends_why = ctx.sends_why or one.why
  end
  if not test and ok and va ~= nil and vb ~= nil and ctx.pooled_over and ctx.match.like_for_like ~= false then
    -- whole-run figures that pool loads where a run was overloaded, with no test at the loads
    -- both sustained: they measure how many loads overloaded each run, not the runs, so "not
    -- comparable" with the loads named, as the error rate's row and the Summary's gap say,
    -- never "untested" beside a Change read as a finding (newuser48 F1)
    row.decide.comparable = false
    row.decide.why = decision.pooled_overloaded_text(ctx.pooled_over)
      .. (untested_why and ("; untested: " .. untested_why) or "")
    row.like_for_like = false
    row.pools_overloaded, row.pooled_untested_why = ctx.pooled_over, untested_why
  end
  if ctx.broken and #ctx.broken > 0 and va ~= nil and vb ~= nil then
    -- a broken run (its health check failed): the figures stay, no verdict and no test is
    -- read from them, in every output that carries the row (the table, the CSV, the JSON)
    row.broken = true
    row.decide.comparable, row.decide.test = false, nil
    row.decide.why = ("not compared: %s; a broken run's figures say nothing of its configuration"):format(
      table.concat(ctx.broken, "; "))
    row.sig = nil
  end
  return row
end

-- Is a row in the family of the comparison? Only a row whose verdict a test decides: tested,
-- and not "not comparable" (unknown, another formula, pooled over differing loads).
local function in_family(row)
  local v = decision.verdict(row.decide)
  return v.p_value ~= nil and (v.verdict ~= "not comparable" or v.sustained_only == true) and not v.cannot_decide
end

-- The note of a row unknown on a side: which side, and why ("unknown for B (vllm): the
-- file's --metric-percentiles left out 90"), so that the CSV, which has no a_text, keeps it.
local function unknown_note(row, A, B)
  local function side(label, letter, why) return ("%s (%s): %s"):format(label, letter, why) end
  if row.a_na and row.b_na then
    return ("unknown on both sides: %s; %s"):format(side(A.label, "A", row.a_na), side(B.label, "B", row.b_na))
  end
  if row.a_na then return "unknown for " .. side(A.label, "A", row.a_na) end
  return "unknown for " .. side(B.label, "B", row.b_na)
end

-- The difference of a stratified test's weighted rates (the Mantel-Haenszel rate
-- difference, B - A): "+0.00 pp (Mantel-Haenszel)".
local function mh_text(test)
  return ("%s pp (Mantel-Haenszel)"):format(T.helpers.signed(test.mh_rate_b - test.mh_rate_a, 2))
end

-- A row's effect within the load points (decision.stratified_effect): "+1.0 % (95 %
-- interval -0.4 % to +2.4 %)", or "+3.1 % (its 95 % interval unbounded: too few independent
-- requests)".
-- inline: "+1.0 %, 95 % interval -0.4 % to +2.4 %" (inside parentheses of its own).
-- why: why it is unbounded (default: too few independent requests); pp, pp_lo, pp_hi: the
-- error rate's in percentage points, "+4.9 % (95 % interval +1.0 % to +8.8 %; +0.20 to
-- +1.80 pp)".
-- thr: the practical threshold (%) a list compares the effect with: its figures printed with
-- the decimals that keep them apart from it (decision.pct_near: "-1.45 %" beside a threshold
-- of 1.45, not "-1.4 %", as the CSV's -1.45).
local function effect_text(e, inline, thr)
  local pct = thr and function(x) return decision.pct_near(x, thr) end or T.helpers.pct
  local level = ("%d"):format(e.level or decision.EFFECT_LEVEL)
  if not e.pct and e.pp_lo and e.pp_hi then
    -- an error rate against A's of 0: no relative size (decision.count_effect), its pp interval
    return (inline and "relative N/A (%s), %s %% interval %s to %s pp"
      or "relative N/A (%s; %s %% interval %s to %s pp)"):format(e.relative_why or "A's rate is 0", level,
      T.helpers.signed(e.pp_lo, 2), T.helpers.signed(e.pp_hi, 2))
  end
  local pp = e.pp_lo and e.pp_hi
    and ("; %s to %s pp"):format(T.helpers.signed(e.pp_lo, 2), T.helpers.signed(e.pp_hi, 2)) or ""
  if not (e.lo and e.hi) then
    -- (an error rate's ratio with no upper end, decision.count_effect: from its lower end up)
    local from = e.lo and (", from %s up"):format(pct(e.lo)) or ""
    return (inline and "%s, its %s %% interval unbounded%s: %s%s"
      or "%s (its %s %% interval unbounded%s: %s%s)"):format(pct(e.pct), level, from,
      e.why or "too few independent requests", pp)
  end
  return (inline and "%s, %s %% interval %s to %s%s" or "%s (%s %% interval %s to %s%s)"):format(pct(e.pct),
    level, pct(e.lo), pct(e.hi), pp)
end

M.effect_text = effect_text -- (for the tests)

-- The practical threshold a list of rows (each {row = perf row}) was judged on, as its
-- sentence says it ("2.0 %"): the error rate's is in percentage points (decision.interval_beyond),
-- said as such, never "beyond the 2.0 % threshold" alone beside its pp interval: "2.0 % (the
-- error rate's: 0.39 pp, the larger of ...)", or of the error rate alone "0.39 pp (the larger
-- of 0.1 pp and 2.0 % of the lower rate)".
local function thresholds_said(list, min_effect)
  local thr = min_effect or decision.MIN_EFFECT
  local err, others = nil, false
  for _, x in ipairs(list) do
    if x.row.effect_pp then err = x.row else others = true end
  end
  local pct = decision.thr_num(thr) .. " %"
  if not err then return pct end
  local e = decision.error_threshold_text(err.effect_pp_thr, thr)
  if not others then return e end
  return ("%s (the error rate's: %s)"):format(pct, e)
end

-- The row's verdict with its test's Holm-adjusted p (fam: decision.family of the comparison).
local function finish_row(row, fam, A, B)
  local o = row.decide
  row.decide = nil
  local id = fam and o.test and in_family { decide = o } and decision.test_id(o.key, o.test)
  if id then
    o.p_adjusted, o.family_size = fam.adjusted[id], fam.size
    row.test_id = id
  end
  local v = decision.verdict(o)
  row.verdict, row.effect_pct, row.test, row.p_value, row.winner = v.verdict, v.effect_pct, v.test, v.p_value, v.winner
  -- (the test's name as the Evidence names it, decision.test_code: "exact_mann_whitney" beside
  -- "exact Mann-Whitney, p = ...", never the family's "mann_whitney")
  if row.test then row.test = decision.test_code(o.test) end
  -- a row without a delta (unknown, not comparable) has no effect either: one meaning per number;
  -- nor has a row no comparison bears a verdict on (not comparable: pooled over loads that
  -- differ, figures that follow the sends or describe the run, a broken run), beside whose change
  -- an effect read as a second, measured gap (newuser43: the demo's throughput, effect 39.9
  -- beside a change of 49.8). A test of the loads both sustained (sustained_only) keeps its own.
  if row.delta == nil or (v.verdict == "not comparable" and not v.sustained_only) then
    row.effect_pct = nil
    v.effect_lo, v.effect_hi, v.effect_pp, v.effect_pp_lo, v.effect_pp_hi = nil, nil, nil, nil, nil
  end
  row.p_adjusted, row.family_size, row.adjusted_away = v.p_adjusted, v.family_size, v.adjusted_away
  row.identical = v.identical
  row.sustained_winner = v.sustained_winner
  -- (a significant difference at the loads both sustained that names no winner: its size
  -- against the threshold, decision.effect_size's class, and the run whose values are lower)
  row.sustained_size, row.sustained_lower = v.sustained_size, v.sustained_lower
  -- the row's effect within the load points a stratified test compared, and its interval
  row.effect_lo, row.effect_hi, row.effect_level = v.effect_lo, v.effect_hi, v.effect_level
  row.effect_pp, row.effect_pp_lo, row.effect_pp_hi = v.effect_pp, v.effect_pp_lo, v.effect_pp_hi
  row.effect_relative_why = v.effect_relative_why
  row.effect_pp_thr = v.effect_pp_thr
  row.effect_where, row.effect_why = v.effect_where, v.effect_why
  row.effect_need, row.effect_fewest = v.effect_need, v.effect_fewest
  -- (an interval unbounded: what would settle it, decision.settle_text)
  row.settle = v.settle
  row.size, row.size_lower = v.size, v.size_lower
  if v.size or v.sustained_size then row.min_effect = o.min_effect or decision.MIN_EFFECT end
  row.cannot_decide = v.cannot_decide
  row.cannot_decide_units = v.units
  row.too_few = v.too_few
  row.partial = v.partial
  row.follows_sends = v.follows_sends
  row.verdict_text = decision.verdict_text(v.verdict, A.label, B.label)
  -- (both kept up: said as what it is, never a bare "not comparable")
  if v.follows_sends then row.verdict_text = o.sends_short or "no winner: both kept up" end
  if v.adjusted_away then
    -- significant alone, not among all the tests of the table: said, never silently dropped
    row.verdict_text = ("%s (%s)"):format(row.verdict_text,
      decision.adjusted_text(v.p_value, v.p_adjusted, v.family_size))
  end
  row.note = v.note
  -- (the requests' token lengths explain the difference, or a winner beyond them: said)
  row.token_explained = v.token_explained
  if v.token_note then row.note = (row.note and row.note ~= "" and (row.note .. "; ") or "") .. v.token_note end
  if row.a_na or row.b_na then row.note = unknown_note(row, A, B) end
  -- a verdict read off a test that left some load points out says so where the Verdict and
  -- the table do ("over 2 of 3 load points (1 left out: ...)", decision.test_scope_text): the
  -- CSV and the JSON keep it in the note, not only in sig.scope (newuser43: a winner row's
  -- note was empty beside "over 2 of 3 load points" in the Verdict). (A test of every load
  -- point, or of the one each run has, leaves nothing out: its note is as it was.)
  local s = row.sig and row.sig.scope
  local partial = type(s) == "table" and type(s.tested) == "table" and not s.one_each and #s.tested < (s.total or 0)
  local scope = partial and v.p_value and v.verdict ~= "untested"
    and (v.verdict ~= "not comparable" or v.sustained_only) and decision.test_scope_text(row.sig)
  if scope and not (row.note or ""):find(scope, 1, true) then
    row.note = (row.note and row.note ~= "" and (row.note .. "; ") or "") .. "tested " .. scope
  end
  -- (loads it kept in though a run answered them short in bursts of server errors: fixb46)
  local kept = type(s) == "table" and s.kept
  if type(kept) == "table" and #kept > 0 and v.verdict ~= "untested" then
    row.note = (row.note and row.note ~= "" and (row.note .. "; ") or "") .. decision.kept_bursts_text(kept)
  end
  if row.a_harness or row.b_harness then
    -- the CSV has no a_text: the harness's figure beside the throughput, in its note
    local function h(x) return x and T.helpers.num(x, tonumber(metrics.get(row.key).format:match("%.(%d)f") or 0))
      or "as shown" end
    local what = ("the throughput as defined (the answers' pace or the drain-reduced rate); the harness's "
      .. "completed / window: %s %s, %s %s %s"):format(A.label, h(row.a_harness), B.label, h(row.b_harness), row.unit)
    row.note = row.note and row.note ~= "" and (row.note .. "; " .. what) or what
  end
  local test = o.test
  if row.broken then
    row.evidence = "not compared: a broken run"
  elseif row.pools_overloaded and v.verdict == "not comparable" then
    -- (pooled over loads where a run was overloaded: perf_row's why, in the cell of each row)
    row.evidence = v.note
  elseif v.verdict == "not comparable" and o.like_for_like == false and o.comparable and o.a ~= nil and o.b ~= nil then
    -- a test of pooled figures over different loads says nothing: not shown as evidence
    row.evidence = "not like for like"
  elseif v.cannot_decide then
    row.evidence = v.note
    -- (a test on the repeats though a run measured a load once: why not per request)
    if test and test.once_spread then row.evidence = row.evidence .. "; " .. test.once_spread end
  elseif v.follows_sends then
    row.evidence = o.sends_evidence
      or "no test: both runs kept up with what they were sent, so the throughput follows the sends (below)"
  elseif test and test.p then
    row.evidence = ("%s, %s"):format(decision.test_name(test), decision.p_is(test.p))
    if v.p_adjusted then row.evidence = row.evidence .. (", Holm-adjusted %s"):format(fmt_p(v.p_adjusted)) end
    local e = test.row_effect
    if test.mh_rate_a and test.mh_rate_b then
      -- the stratified effect, which the verdict reads, beside the pooled Delta, with its
      -- interval (decision.count_effect's) in percentage points and relative
      local text = mh_text(test)
      if e and e.pp_lo and e.pp_hi and (e.lo and e.hi or not e.pct) and not v.partial then
        -- (relative: B against A's rate, decision.count_effect; N/A where A's is 0)
        text = text:sub(1, -2) .. (", %d %% interval %s to %s pp; relative %s)"):format(
          e.level or decision.EFFECT_LEVEL, T.helpers.signed(e.pp_lo, 2), T.helpers.signed(e.pp_hi, 2),
          e.pct and ("%s, %s to %s"):format(T.helpers.pct(e.pct), T.helpers.pct(e.lo), T.helpers.pct(e.hi))
            or ("N/A: " .. (e.relative_why or "A's rate is 0")))
        e = nil
      end
      row.evidence = row.evidence .. ("; within the load points %s"):format(text)
    end
    if e and (e.pct or e.pp) and not v.partial then
      -- each row its own size (within the points of a stratified test, decision.stratified_effect;
      -- at the one load point; over the repeats; the error rate's counts) with its interval
      row.evidence = row.evidence .. "; " .. (e.where and ("this row " .. e.where) or "this row's difference")
        .. ": " .. effect_text(e)
      -- (an interval that leaves out 0 beside a rank test that finds nothing: why it is no evidence)
      local not_evidence = decision.interval_not_evidence(row.key or o.key, test, e, v.p_adjusted or test.p)
      if not_evidence then row.evidence = row.evidence .. ", " .. not_evidence end
    end
    if test.left_out then row.evidence = row.evidence .. "; " .. test.left_out end
    -- (a run measured once where the other repeated: what the per-request test rests on)
    local once = decision.once_text(test, A.label, B.label)
    if once then row.evidence = row.evidence .. "; " .. once end
    -- (or why it is on the repeats though a run measured a load once: its other side's spread)
    if test.once_spread then row.evidence = row.evidence .. "; " .. test.once_spread end
    -- tested at only some of the loads both sustained: that first, never read as sameness
    if v.partial then row.evidence = v.note .. (test.left_out and ("; " .. test.left_out) or "") end
    if v.too_few then
      row.evidence = row.evidence .. (test.test == "fisher" and ": the smallest p these counts allow"
        or ": the smallest p these repeats allow") .. ", too few to show a difference"
    end
  elseif v.verdict == "untested" or v.identical then
    row.evidence = v.note or "no test possible"
  end
  if test and test.overdispersed and row.evidence then
    -- the repeats' rates were tested instead of the pooled counts: why, beside it
    row.evidence = row.evidence .. "; on the repeats' error rates: " .. test.overdispersed
  end
end

-- The Performance Results table's Evidence cell of each row (r.evidence_shown; the JSON and
-- the CSV keep each row's own evidence and p): rows that read one test (a sample kind's rows
-- share one Mann-Whitney) say its p once, at the first of them, "Mann-Whitney, p = 0.004,
-- Holm-adjusted 0.016 (one test for 6 rows: TPOT mean to p99.9)", and "same test as
-- TPOT mean" after it, each with its own difference; a shared p repeated on every row read as
-- six findings.
function M.shared_test_evidence(rows)
  local groups, order = {}, {}
  for _, r in ipairs(rows) do
    r.evidence_shown = r.evidence
    local s = r.sig
    local prefix = s and s.p and r.test_id and r.evidence and ("%s, %s"):format(decision.test_name(s),
      decision.p_is(s.p)) .. (r.p_adjusted and (", Holm-adjusted %s"):format(fmt_p(r.p_adjusted)) or "")
    if prefix and r.evidence:sub(1, #prefix) == prefix then
      local g = groups[r.test_id]
      if not g then
        g = {}
        groups[r.test_id], order[#order + 1] = g, r.test_id
      end
      g[#g + 1] = { row = r, prefix = prefix }
    end
  end
  for _, id in ipairs(order) do
    local g = groups[id]
    if #g > 1 then
      local first = g[1]
      -- ("TPOT mean to p99.9": the last label without the kind the first one names)
      local kind = first.row.label:match("^(.* )[^ ]+$")
      local last = g[#g].row.label
      if kind and last:sub(1, #kind) == kind then last = last:sub(#kind + 1) end
      first.row.evidence_shown = ("%s (one test for %d rows: %s to %s)%s"):format(first.prefix, #g, first.row.label,
        last, first.row.evidence:sub(#first.prefix + 1))
      for i = 2, #g do
        local x = g[i]
        x.row.evidence_shown = ("same test as %s%s"):format(first.row.label, x.row.evidence:sub(#x.prefix + 1))
      end
    end
  end
end

-- The Evidence cells' repeated explanations, said once (fixe51 3): a clause (a part of a
-- cell between top-level "; ", outside parentheses) that M.EVIDENCE_NOTE_MIN rows or more
-- say word for word, and that is long enough to be an explanation rather than a figure
-- (M.EVIDENCE_NOTE_CHARS) and holds no figure, becomes a note under the table, "note 1: no per-request samples or
-- repeats from both runs", and each of those rows says "note 1" in its place, keeping its own
-- other clauses (its p, its difference). Returns the notes, {{mark =, text =}, ...} in the
-- order first met; rows without such a clause are left as they are. (The JSON and the CSV
-- keep each row's whole evidence.)
M.EVIDENCE_NOTE_MIN, M.EVIDENCE_NOTE_CHARS = 3, 30
local function clauses(text)
  local out, depth, start = {}, 0, 1
  local i = 1
  while i <= #text do
    local c = text:sub(i, i)
    if c == "(" then depth = depth + 1
    elseif c == ")" then depth = math.max(depth - 1, 0)
    elseif depth == 0 and text:sub(i, i + 1) == "; " then
      out[#out + 1] = text:sub(start, i - 1)
      start = i + 2
      i = i + 1
    end
    i = i + 1
  end
  out[#out + 1] = text:sub(start)
  return out
end
function M.evidence_notes(rows)
  local count, parts = {}, {}
  for i, r in ipairs(rows) do
    if type(r.evidence_shown) == "string" and r.evidence_shown ~= "" then
      parts[i] = clauses(r.evidence_shown)
      local seen = {}
      for _, c in ipairs(parts[i]) do
        -- (a clause with a figure in it, a p, a difference, the loads a test left out, stays
        -- in its row: every row keeps its own numbers)
        if #c >= M.EVIDENCE_NOTE_CHARS and not c:find("%d") and not seen[c] then
          count[c], seen[c] = (count[c] or 0) + 1, true
        end
      end
    end
  end
  local notes, mark_of = {}, {}
  for i, r in ipairs(rows) do
    if parts[i] then
      local changed = false
      for k, c in ipairs(parts[i]) do
        if (count[c] or 0) >= M.EVIDENCE_NOTE_MIN then
          if not mark_of[c] then
            notes[#notes + 1] = { mark = ("note %d"):format(#notes + 1), text = c }
            mark_of[c] = notes[#notes].mark
          end
          parts[i][k], changed = mark_of[c], true
        end
      end
      if changed then r.evidence_shown = table.concat(parts[i], "; ") end
    end
  end
  return notes
end

-- The load stages the result files of run (llmd.harness) hold: "2 stages: 1/s, 5/s (warm-up)",
-- or nil when they name none. (The Configuration Summary's row when no stages are stated.)
-- Stages of one load are repeats of one load point, said as such: "3 stages (1 load point,
-- repeated): 3.6/s ×3", never "3.6/s, 3.6/s, 3.6/s", which reads as three loads.
function M.stages_read(run)
  local order, n, total = {}, {}, 0
  for _, st in ipairs(run and run.stages or {}) do
    local s = st.rate and ("%g/s"):format(st.rate) or st.concurrency and ("c=%g"):format(st.concurrency)
      or "load unknown"
    s = s .. (st.warmup and " (warm-up)" or "")
    -- (stages of an unknown load are no repeats of each other)
    if s:match("^load unknown") then s = s .. string.rep("\0", total) end
    if not n[s] then order[#order + 1], n[s] = s, 0 end
    n[s], total = n[s] + 1, total + 1
  end
  if total == 0 then return nil end
  local parts, repeated = {}, false
  for i, s in ipairs(order) do
    local k = n[s]
    repeated = repeated or k > 1
    parts[i] = s:gsub("%z", "") .. (k > 1 and (" ×" .. k) or "")
  end
  local head = T.helpers.count(total, "stage")
  if repeated then
    head = ("%s (%s, repeated)"):format(head, T.helpers.count(#order, "load point"))
  end
  return head .. ": " .. table.concat(parts, ", ")
end

local function config_rows(A, B)
  local function get(side, part, k)
    local s = side.state or {}
    local v = type(s[part]) == "table" and s[part][k] or nil
    return v ~= nil and tostring(v) or "unknown"
  end
  local function harness_text(side)
    local r = side.run
    local v = harness_name(r)
    if r.version then v = v .. " " .. tostring(r.version) end
    local stated = get(side, "benchmark", "harness")
    -- (a stated name of the same harness, inference_perf or inference-perf, is that harness:
    -- said beside it, it read as a difference where only the spelling differs, newuserd51 4)
    local sok, sh = pcall(require("llmd.harness").get, stated)
    if stated ~= "unknown" and stated ~= r.harness and not (sok and sh.name == r.harness) then
      v = v .. " (stated: " .. stated .. ")"
    end
    return v
  end
  local function stages_text(side)
    local stated = get(side, "benchmark", "load_stages")
    -- ("unknown (why)", a plan's run whose config gave none: the results say what ran)
    if not stated:match("^unknown") then return stated end
    return M.stages_read(side.run) or stated
  end
  -- what the user stated, else what the result files say (marked so)
  local function stated_or_read(side, k, ck)
    local v = get(side, "stack", k)
    if v ~= "unknown" then return v end
    local c = side.run.config and side.run.config[ck or k]
    return c and (c .. " (read from the results)") or "unknown"
  end
  local function read(side, ck)
    local c = side.run.config and side.run.config[ck]
    return c and (c .. " (read from the results)") or "unknown"
  end
  local rows = {}
  -- differs: both known and not the same: what the comparison is about
  local function add(label, fa, fb, not_config)
    local function bare(v) return (tostring(v):gsub(" %(read from .*%)$", "")) end
    -- ("unknown (why)" is unknown too: no difference)
    local function unknown(v) return tostring(v):match("^unknown") ~= nil end
    rows[#rows + 1] = { label = label, a = fa, b = fb,
      differs = not not_config and not unknown(fa) and not unknown(fb) and bare(fa) ~= bare(fb) or false }
  end
  add("Guide", get(A, "stack", "guide"), get(B, "stack", "guide"))
  add("llm-d version", get(A, "stack", "llmd_version"), get(B, "stack", "llmd_version"))
  add("Decode image", stated_or_read(A, "decode_image", "image"), stated_or_read(B, "decode_image", "image"))
  -- (the model the comparison reads, decision.model_of, and where it came from)
  add("Model", decision.model_text(A), decision.model_text(B))
  add("Hardware", stated_or_read(A, "hardware"), stated_or_read(B, "hardware"))
  for _, e in ipairs { { "Replicas", "replicas" }, { "Parallelism", "parallelism" }, { "Server", "server" },
    { "Target", "target" }, { "Load profile", "profile" } } do
    local fa, fb = read(A, e[2]), read(B, e[2])
    if fa ~= "unknown" or fb ~= "unknown" then add(e[1], fa, fb) end
  end
  -- the info files' own stack keys, in name order
  local extra, seen = {}, {}
  for _, side in ipairs { A, B } do
    for _, k in ipairs(side.state and side.state.stack_extra or {}) do
      if not seen[k] then seen[k] = true; extra[#extra + 1] = k end
    end
  end
  table.sort(extra)
  for _, k in ipairs(extra) do add(k, get(A, "stack", k), get(B, "stack", k)) end
  add("Gateway", get(A, "stack", "gateway"), get(B, "stack", "gateway"))
  add("Namespace", get(A, "stack", "namespace"), get(B, "stack", "namespace"), true)
  add("Harness", harness_text(A), harness_text(B))
  add("Workload", get(A, "benchmark", "workload"), get(B, "benchmark", "workload"))
  add("Load stages", stages_text(A), stages_text(B))
  -- (an imported run llmdlua benchmarked: where its configuration above was read)
  local function results(S)
    local p = S.state and S.state.source_path or S.run.root or "unknown"
    local from = S.state and type(S.state.config_from) == "string" and S.state.config_from
    -- (analyze.lua of a workspace whose run-x/results is gone: the report is the saved model's)
    if S.run.model_only then from = from and (from .. "; " .. S.run.model_only) or S.run.model_only end
    return from and ("%s (%s)"):format(p, from) or p
  end
  add("Results", results(A), results(B), true)
  return rows
end

-- The mark of a ladder value interpolated between a run's two measured points: "≈", never
-- "~", which at a normal zoom reads as a minus sign ("~43.26" as -43.26). In the md and HTML
-- text only; comparison.json keeps the numbers (a.values) and a.interpolated.
local APPROX = "≈"

-- Where a ladder cell stands against its run's saturation (sat: llmd.loadpoints.saturation,
-- the test behind the max sustained throughput and the capacity): "" (before it), "sat"
-- (the run's own point at or past its saturation point) or "~sat" (interpolated above its
-- max sustained rate, toward a saturated point; on the offered axis, above the offered load
-- of its last point before saturation: llmd.loadpoints.saturated_on).
local function saturated_cell(c, sat, r, pts)
  -- a shortfall made up by failed requests is not overload: never marked (its latencies are
  -- of the requests that succeeded at a load the server kept up with)
  if not (sat and sat.point) or sat.cause == "failures" or c.outside then return "" end
  if c.point then return c.point >= sat.point and "sat" or "" end
  if c.interpolated and r.axis ~= "achieved" then return lp.saturated_on(sat, pts, r.axis, r.load) and "~sat" or "" end
  if c.interpolated and sat.max_sustained_rps and r.rps > sat.max_sustained_rps then return "~sat" end
  return ""
end

-- The failed requests within the error-rate limit at load points the run sustained
-- (llmd.loadpoints.saturation's failed_within): neither saturation nor a failures point,
-- but the Errors % column shows them, so the legend says them too: "2 % of the requests
-- failed at load point 2, within 5.0 % failed, at a load it kept up with". A point whose
-- successful rate alone fell short (short) is said by the reason of a run that never
-- saturated ("counting the failed requests, which were answered, at load point 2 (where 4 %
-- failed ...)"), so left out there; the reason of a run that saturated says none, so there
-- every point is listed, as the Headline's note beside the max sustained throughput lists
-- them (the two once disagreed, "up to 5 % ... at load points 1, 2, 3 and 4" against "up to
-- 2.708 % ... at load points 1, 3 and 4"), the short ones said as such ("at load point 2 the
-- successful requests alone fell short of the offered rate: the failed ones made up the
-- rest, not overload"); nil when there are none.
local function within_note(s)
  local list, short, causes = {}, {}, {}
  for _, w in ipairs(type(s.failed_within) == "table" and s.failed_within or {}) do
    if not (w.short and s.none) then list[#list + 1] = w end
    if w.short and not s.none then
      short[#short + 1] = ("%d"):format(w.point)
      causes[#causes + 1] = w.failure_cause or false
    end
  end
  if #list == 0 then return nil end
  local note = lp.sustained_failure_notes { failed_within = list, limit = s.limit or (s.failures and s.failures.limit) }
  if not note[1] then return nil end
  local text = note[1] .. (#list > 1 and ", at loads it kept up with" or ", at a load it kept up with")
  if #short > 0 then
    -- (what the files say those failures were: "not overload" only where they name the causes)
    local kind = lp.failures_cause_kind(causes)
    text = text .. ("; at load point%s %s the successful requests alone fell short of the offered rate: the failed "
      .. "ones made up the rest, %s"):format(#short > 1 and "s" or "", table.concat(short, ", "),
      kind == "unknown" and "whose cause the files do not record (whether that was overload is unknown)"
      or kind == "errors_timeouts" and "errors, and timeouts within the limit, not overload" or "not overload")
  end
  return text
end

-- The ladder's legend for the saturation column: which point each run saturated at, and
-- why, in the words of the max sustained throughput; a run whose saturation is unknown
-- says so (a blank cell is then no evidence of a sustained load). Failed requests within the
-- error-rate limit at loads a run kept up with are said after its part (within_note).
local function saturation_legend(A, B, sat, axis)
  local parts = {}
  for _, x in ipairs { { A, sat.a, "A" }, { B, sat.b, "B" } } do
    local side, s, id = x[1], x[2], x[3]
    if s.point and s.cause == "failures" and s.load_type == "concurrency" then
      -- (a concurrency level that failed more than the limit: its throughput need not fall short)
      parts[#parts + 1] = ("%s (%s) never marked: %s"):format(id, side.label, s.reason)
    elseif s.point and s.cause == "failures" then
      parts[#parts + 1] = ("%s (%s) never marked: from load point %d on its achieved rate fell short, but %s")
        :format(id, side.label, s.point, s.reason)
    elseif s.point then
      parts[#parts + 1] = ("%s (%s) from load point %d on: %s"):format(id, side.label, s.point, s.reason)
    elseif s.unknown then
      parts[#parts + 1] = ("%s (%s): saturation unknown (%s), so a blank cell does not mean it kept up")
        :format(id, side.label, s.reason)
    else
      parts[#parts + 1] = ("%s (%s) never saturated: %s"):format(id, side.label, s.reason)
    end
    local within = not s.unknown and within_note(s)
    if within then parts[#parts] = parts[#parts] .. " (" .. within .. ")" end
  end
  return "Saturated: the load is at or past the run's saturation point (the test behind the max sustained "
    .. "throughput); its latencies there describe an overload, not a load it sustained (" .. APPROX
    .. ": interpolated above "
    .. (axis == "achieved" and "its max sustained throughput" or "the load of its last point before saturation")
    .. ", toward a saturated point). " .. table.concat(parts, "; ") .. "."
end

-- Under the ladder: the latencies left out (no percentile of them in either run) and a
-- column only one run has; "" when there is nothing to say.
local function latency_note(cols)
  local have, parts = {}, {}
  for _, col in ipairs(cols) do have[col.family] = col end
  local missing = {}
  for _, fam in ipairs(lp.LATENCY_FAMILIES) do
    if not have[fam.name] then missing[#missing + 1] = fam.label end
  end
  if #missing > 0 then
    parts[#parts + 1] = ("No %s column: neither run has a percentile of %s at its load points."):format(
      table.concat(missing, ", "), #missing == 1 and "it" or "them")
  end
  -- a column at another percentile than p90: why
  local other = {}
  for _, col in ipairs(cols) do
    if col.common and col.pct ~= "p90" then other[#other + 1] = col.short end
  end
  if #other > 0 then
    parts[#parts + 1] = ("%s: at the percentile both runs' files hold (p90 is not in both)."):format(
      table.concat(other, ", "))
  end
  for _, col in ipairs(cols) do
    if not col.common then
      parts[#parts + 1] = ("%s: only %s has it; the two runs share no %s percentile."):format(col.short,
        col.has[1] and "A" or "B", col.family_label)
    end
  end
  return table.concat(parts, " ")
end

-- The ladder table: both runs' load points paired by load (llmd.loadpoints.axis: the offered
-- rate or concurrency when both runs were driven by it, else the achieved rate).
local function ladder_section(A, B, pa, pb, sat, slo)
  -- the latency columns at the percentiles both runs have (the latency chart's panels):
  -- vLLM's benchmark often records p50, p95 and p99 and no p90; an SLO's percentile first
  local lat_cols = lp.latency_columns({ pa, pb }, nil, slo)
  local keys = {}
  for _, k in ipairs(lp.LADDER_KEYS) do keys[#keys + 1] = k end
  for _, col in ipairs(lat_cols) do
    local dup = false
    for _, k in ipairs(keys) do if k == col.key then dup = true end end
    if not dup then keys[#keys + 1] = col.key end
  end
  local rows = lp.ladder(pa, pb, keys)
  local any_na = false
  local function cell(c, key, d)
    if c.outside then return "" end
    if c.na_reason then return "N/A" end -- why: ladder.refused_note, below the table
    c.values = c.values or {}
    local v = c.values[key]
    if v == nil then
      any_na = true
      return "N/A"
    end
    return (c.interpolated and APPROX or "") .. num_beside(v, d, slo, key)
  end
  local function load(c)
    if c.outside or c.interpolated or c.na_reason then return "" end
    if not c.offered then return "unknown" end
    return c.load_type == "concurrency" and ("c=%g"):format(c.offered) or ("%g/s"):format(c.offered)
  end
  for _, r in ipairs(rows) do
    r.rps_text = r.axis == "achieved" and T.helpers.num(r.rps, 2)
      or r.axis == "concurrency" and ("c=%g"):format(r.load) or ("%g/s"):format(r.load)
    r.load_a, r.load_b = load(r.a), load(r.b)
    r.rps_a, r.rps_b = cell(r.a, "achieved_rps", 2), cell(r.b, "achieved_rps", 2)
    r.tok_a, r.tok_b = cell(r.a, "output_tps", 1), cell(r.b, "output_tps", 1)
    -- the fixed p90 cells of templates written before the latency columns (a workspace's
    -- copy): kept, but their N/A says nothing of the table the templates draw now
    local na_before = any_na
    r.ttft_p50_a, r.ttft_p50_b = cell(r.a, "ttft_p50_ms", 1), cell(r.b, "ttft_p50_ms", 1)
    r.ttft_p90_a, r.ttft_p90_b = cell(r.a, "ttft_p90_ms", 1), cell(r.b, "ttft_p90_ms", 1)
    r.tpot_p90_a, r.tpot_p90_b = cell(r.a, "tpot_p90_ms", 2), cell(r.b, "tpot_p90_ms", 2)
    r.e2e_p90_a, r.e2e_p90_b = cell(r.a, "latency_p90_ms", 1), cell(r.b, "latency_p90_ms", 1)
    r.err_a, r.err_b = cell(r.a, "error_rate_pct", 2), cell(r.b, "error_rate_pct", 2) -- (in no column)
    any_na = na_before
    -- the latency columns (ladder.latency_columns), one {a =, b =} each
    r.latency = {}
    for i, col in ipairs(lat_cols) do
      local d = col.key:match("^tpot_") and 2 or col.key:match("^itl_") and 2 or 1
      r.latency[i] = { a = cell(r.a, col.key, d), b = cell(r.b, col.key, d) }
    end
    r.sat_a, r.sat_b = saturated_cell(r.a, sat.a, r, pa), saturated_cell(r.b, sat.b, r, pb)
    local marks = {}
    if r.sat_a ~= "" then marks[#marks + 1] = (r.sat_a == "~sat" and APPROX or "") .. "A" end
    if r.sat_b ~= "" then marks[#marks + 1] = (r.sat_b == "~sat" and APPROX or "") .. "B" end
    r.saturated = table.concat(marks, ", ")
    -- the runs failing an SLO at this row's own measured point ("A", "B", "A, B"), the Load
    -- Curves' judgement (meets_slo): never read off an interpolated value (newuser48 F6)
    local fails = {}
    for _, x in ipairs { { r.a, pa, "A" }, { r.b, pb, "B" } } do
      local c = x[1]
      if not (c.outside or c.interpolated or c.na_reason) and c.point then
        for _, p in ipairs(x[2]) do
          if p.index == c.point and p.meets_slo == false then fails[#fails + 1] = x[3] end
        end
      end
    end
    r.slo_fails = table.concat(fails, ", ")
  end
  local excluded = {}
  for _, side in ipairs { A, B } do
    for _, st in ipairs(side.run.stages) do
      if st.warmup then excluded[#excluded + 1] = ("%s stage %d"):format(side.label, st.index) end
    end
  end
  local any_interp = false
  for _, r in ipairs(rows) do if r.a.interpolated or r.b.interpolated then any_interp = true end end
  -- the cells within a run's range where no value could be placed (llmd.loadpoints.ladder's
  -- na_reason), each with its row's load, its run and why
  local refused = {}
  for _, r in ipairs(rows) do
    for _, x in ipairs { { r.a, "A", A }, { r.b, "B", B } } do
      if x[1].na_reason then
        refused[#refused + 1] = ("at %s, %s (%s): %s"):format(r.rps_text, x[2], x[3].label, x[1].na_reason)
      end
    end
  end
  local axis = lp.axis { pa, pb }
  return {
    available = #pa > 1 or #pb > 1,
    rows = rows,
    -- the latency columns' headers ("TTFT p95"): each latency at the percentile both runs
    -- have, the latency chart's; none_note: the latencies neither run has any percentile of
    latency_columns = lat_cols,
    latency_note = latency_note(lat_cols),
    -- the load the rows pair the runs by (llmd.loadpoints.axis), for the first column and the intro
    axis = axis,
    load_header = axis == "achieved" and "Achieved req/s" or "Offered load",
    paired_by = axis == "concurrency" and "paired by the concurrency both runs were driven at (past saturation "
      .. "every concurrency achieves about the same rate, so the achieved rate would pair different overloads); "
      .. "the other run's values are interpolated linearly in concurrency"
      or axis == "rate" and "paired by the request rate both runs were offered (the achieved rate counts completed "
      .. "requests: past saturation every offered rate achieves about the same rate, and failed requests lower it, so "
      .. "the achieved rate would pair different loads); the other run's values are interpolated linearly in offered "
      .. "rate"
      or "paired by achieved request rate; the other run's values are interpolated linearly in achieved rate",
    excluded = table.concat(excluded, ", "),
    interpolated = any_interp,
    saturation_legend = saturation_legend(A, B, sat, axis),
    -- (the Fails SLO column's, shown only with SLOs)
    slo_legend = slo and #slo > 0 and ("Fails SLO: the run's own load point at that load fails an SLO the capacity "
      .. "is read within (which one, the Load Curves' SLO column says); an interpolated value (%s) is never judged.")
      :format(APPROX) or "",
    na_note = any_na and ("N/A: the run has no such value at its own load point (the Load Curves say why), or one "
      .. "of the two points it would be interpolated between lacks it.") or "",
    -- a whole side of a row N/A within the run's measured range: the reason, row by row
    refused_note = #refused > 0 and ("N/A where a run's values cannot be placed at a row's load within its measured "
      .. "range: %s."):format(table.concat(refused, "; ")) or "",
    count_a = #pa, count_b = #pb,
  }
end

-- The Load Curves' latency columns (both runs' tables the same): TTFT p50 and p99, and TTFT,
-- TPOT, ITL and end-to-end latency each at the percentile llmd.loadpoints.latency_columns
-- picks for it over both runs (the ladder's and the latency chart's rule: an SLO's percentile
-- first, then p90, p95, p99, p50, p99.9; vLLM's sweeps record p50, p95 and p99 and no p90),
-- labelled with it;
-- p90 where neither run has any (its cells N/A with the reason). A TTFT percentile that is
-- p50 or p99 is not shown twice. Each {key =, label = "TTFT p95", d = decimals}; and the
-- TTFT percentile picked ("p95"), the one the repeats' line gives an interval of.
local function curve_columns(pa, pb, slo)
  local function pct_of(prefix)
    local function has(p, key)
      local v = lp.field(p, key)
      return key:sub(1, #prefix + 1) == prefix .. "_" and type(v) == "number" and v == v and math.abs(v) ~= math.huge
    end
    local c = lp.latency_columns({ pa, pb }, has, slo)[1]
    return c and c.pct or "p90"
  end
  local label = { p50 = "p50", p90 = "p90", p95 = "p95", p99 = "p99", p999 = "p99.9" }
  local function col(prefix, name, pct, d)
    return { key = ("%s_%s_ms"):format(prefix, pct), label = name .. " " .. label[pct], d = d }
  end
  local cols = { col("ttft", "TTFT", "p50", 1) }
  local tp = pct_of("ttft")
  if tp ~= "p50" and tp ~= "p99" then cols[#cols + 1] = col("ttft", "TTFT", tp, 1) end
  cols[#cols + 1] = col("ttft", "TTFT", "p99", 1)
  cols[#cols + 1] = col("tpot", "TPOT", pct_of("tpot"), 2)
  cols[#cols + 1] = col("itl", "ITL", pct_of("itl"), 2)
  cols[#cols + 1] = col("latency", "E2E", pct_of("latency"), 1)
  -- an SLO on a latency no column above shows (a mean: NTPOT mean, TTFT mean): its own
  -- column, so that where the capacity crosses it can be checked from the table (fixh43: an
  -- NTPOT mean SLO was shown nowhere)
  local shown = {}
  for _, c in ipairs(cols) do shown[c.key] = true end
  for _, s in ipairs(slo or {}) do
    if not s.default and not shown[s.key] and metrics.has(s.key) and metrics.get(s.key).unit == "ms" then
      shown[s.key] = true
      cols[#cols + 1] = { key = s.key, label = metrics.get(s.key).label, d = 2, slo = true }
    end
  end
  return cols, tp
end

-- The columns of a load curve table whose N/A cells say why (lat: curve_columns).
local function curve_na_columns(lat)
  local cols = { { "achieved_rps", "Throughput req/s" }, { "harness_rps", "Harness req/s (completed / window)" },
    { "output_tps", "Output tok/s" },
    { "output_tps_per_gpu", "Output tok/s/GPU" } }
  for _, c in ipairs(lat) do cols[#cols + 1] = { c.key, c.label } end
  cols[#cols + 1] = { "error_rate_pct", "Errors %" }
  cols[#cols + 1] = { "interactivity_tps_per_user", "tok/s per user" }
  return cols
end

-- Why a load point's curve cell is N/A (gpu_why: why the accelerator count is unknown).
local function curve_na_reason(p, key, gpus, gpu_why)
  if key == "offered" then
    return "offered load unknown: " .. (p.offered_why or "the results state no request rate or concurrency")
  end
  if key == "achieved_rps" or key == "harness_rps" then
    return "achieved rate unknown: " .. (p.na.throughput_req_s
      or "neither the results' request throughput nor the harness's own rate")
  end
  if key == "output_tps" then return p.na.throughput_tok_s or "output tok/s not in the results" end
  if key == "output_tps_per_gpu" then
    if not gpus then return gpu_why end
    return "output tok/s unknown: " .. tostring(p.na.throughput_tok_s or "not in the results")
  end
  if key == "goodput_rps" or key == "slo_attainment_pct" then
    return p.goodput_why or "no per-request data counted against the SLOs at this point"
  end
  if key == "interactivity_tps_per_user" then
    return "1000 / TPOT p50 needs TPOT p50 or mean: " .. tostring(p.na.tpot_p50_ms or p.na.tpot_mean_ms
      or "not measured")
  end
  return p.na[key] or "not measured"
end

-- "at every point", "at point 3", "at points 2, 5".
local function at_points(list, n)
  if #list == n and n > 1 then return "at every point" end
  return (#list == 1 and "at point " or "at points ") .. table.concat(list, ", ")
end

-- The N/A cells of one run's curve table, grouped by column and reason: "Output tok/s/GPU
-- at every point: accelerator count unknown: ...; TTFT p99 at point 3: ...", or "".
local function curve_na_note(points, gpus, gpu_why, goodput, lat, goodput_why)
  local groups, order = {}, {}
  local cols = curve_na_columns(lat)
  -- the Offered cell ("?"): the load the results do not state
  table.insert(cols, 1, { "offered", "Offered" })
  if goodput then
    -- some point has goodput: the others say why not
    cols[#cols + 1] = { "goodput_rps", "Goodput req/s" }
    cols[#cols + 1] = { "slo_attainment_pct", "SLO attainment" }
  end
  for _, c in ipairs(cols) do
    for _, p in ipairs(points) do
      if lp.field(p, c[1]) == nil then
        local why = curve_na_reason(p, c[1], gpus, gpu_why)
        local id = c[2] .. "\0" .. why
        if not groups[id] then
          groups[id] = { label = c[2], why = why, points = {} }
          order[#order + 1] = id
        end
        local g = groups[id]
        g.points[#g.points + 1] = p.index
      end
    end
  end
  local parts = {}
  for _, id in ipairs(order) do
    local g = groups[id]
    parts[#parts + 1] = ("%s %s: %s"):format(g.label, at_points(g.points, #points), g.why)
  end
  if not goodput and #points > 0 and goodput_why then
    -- no point of either run has goodput: the line names those columns too (their reason is
    -- also in the note under both tables), so that it lists every N/A of the table
    local all = {}
    for _, p in ipairs(points) do all[#all + 1] = p.index end
    parts[#parts + 1] = ("Goodput req/s and SLO attainment %s: %s"):format(at_points(all, #points), goodput_why)
  end
  return table.concat(parts, "; ")
end

-- Where a run's tok/s per user is 1000 / TPOT mean (its files have no TPOT p50 there):
-- "tok/s per user at every point is 1000 / TPOT mean, not p50 (no TPOT p50: why)", or "".
local function interactivity_note(points)
  local at, why = {}, nil
  for _, p in ipairs(points) do
    if p.interactivity_basis == "tpot_mean_ms" then
      at[#at + 1] = p.index
      why = why or p.na.tpot_p50_ms
    end
  end
  if #at == 0 then return "" end
  return ("tok/s per user %s is 1000 / TPOT mean, not p50 (no TPOT p50 in the results%s)"):format(
    at_points(at, #points), why and (": " .. metrics.na(why):match("^N/A %((.*)%)$")) or "")
end

-- A load point against the SLOs (its meets_slo, slo_failing, slo_unknown), as the Load Curves'
-- SLO column gives it: "meets", "fails TTFT p90" (each SLO it fails), "unknown (TTFT p90)";
-- "" without SLOs (no column then). Capacity reads the same judgement (llmd.loadpoints.meets).
local function slo_cell(p, slo)
  if not slo or #slo == 0 then return "" end
  local function labels(keys)
    local out = {}
    for _, k in ipairs(keys) do
      local m = metrics.get(k)
      out[#out + 1] = m and m.label or k
    end
    return table.concat(out, ", ")
  end
  if p.meets_slo == true then return "meets" end
  if p.meets_slo == false then return "fails " .. labels(p.slo_failing or {}) end
  return ("unknown (%s)"):format(labels { p.slo_unknown })
end

-- One run's load curve for the report: its load points with printed values.
local function curve_rows(points, gpus, lat, ttft_pct, slo)
  local out = {}
  for _, p in ipairs(points) do
    local function v(key, d) return num_beside(lp.field(p, key), d, slo, key) end
    local function ci(key, d)
      local c = p.ci and p.ci[key]
      if not c then
        -- (unknown in the files: N/A with its reason, never a blank beside the unit, "TPOT mean
        -- ms" for guidellm with sample_size=0, audit53 F-ci)
        local why = p.na and p.na[key]
        return why and ("N/A (%s)"):format(why) or "N/A (no interval: not known in every repeat)"
      end
      -- identical repeats: an interval of width 0 would read as certainty
      if c.identical then
        return ("%s (repeats identical, no spread to estimate; n = %d)"):format(T.helpers.num(c.mean, d), c.n)
      end
      -- a t-interval reaching below 0 is clipped there (llmd.stattest.mean_ci), and says so
      local clip = c.clipped and (", its lower end clipped at 0 from the t-interval's %s: too wide to bound it "
        .. "below"):format(T.helpers.num(c.t_lo, d)) or ""
      return ("%s (CI %s–%s%s, range %s–%s)"):format(T.helpers.num(c.mean, d), T.helpers.num(c.lo, d),
        T.helpers.num(c.hi, d), clip, T.helpers.num(c.min, d), T.helpers.num(c.max, d))
    end
    out[#out + 1] = {
      index = p.index, load = not p.offered and "?" or p.load_type == "concurrency" and ("c=%g"):format(p.offered)
        or ("%g/s"):format(p.offered),
      repeats = p.repeats, rps = v("achieved_rps", 2), harness_rps = v("harness_rps", 2), tps = v("output_tps", 1),
      tps_gpu = gpus and p.output_tps and T.helpers.num(p.output_tps / gpus, 1) or "N/A",
      ttft_p50 = v("ttft_p50_ms", 1), ttft_p90 = v("ttft_p90_ms", 1), ttft_p99 = v("ttft_p99_ms", 1),
      tpot_p50 = v("tpot_p50_ms", 2), tpot_p90 = v("tpot_p90_ms", 2), tpot_p99 = v("tpot_p99_ms", 2),
      itl_p90 = v("itl_p90_ms", 2), e2e_p50 = v("latency_p50_ms", 1), e2e_p90 = v("latency_p90_ms", 1),
      e2e_p99 = v("latency_p99_ms", 1), err = v("error_rate_pct", 2),
      interactivity = T.helpers.num(p.interactivity_tps_per_user, 1),
      goodput = p.goodput_rps and T.helpers.num(p.goodput_rps, 2) or "N/A",
      attainment = p.slo_attainment_pct and (T.helpers.num(p.slo_attainment_pct, 1) .. " %") or "N/A",
      slo = slo_cell(p, slo), slo_fail = p.meets_slo == false,
      rps_ci = ci("throughput_req_s", 2), ttft_p90_ci = ci("ttft_p90_ms", 1),
      ttft_mean_ci = ci("ttft_mean_ms", 1), tpot_mean_ci = ci("tpot_mean_ms", 2),
    }
    -- each latency interval's unit, "" beside an N/A (whose reason would otherwise end in " ms")
    local row0 = out[#out]
    row0.ttft_mean_unit = p.ci and p.ci.ttft_mean_ms and " ms" or ""
    row0.tpot_mean_unit = p.ci and p.ci.tpot_mean_ms and " ms" or ""
    -- the latency columns (curve_columns: the percentiles the runs have), one {text =} each,
    -- and the interval of TTFT at its column's percentile (ttft_p90_ci above: older templates)
    local row = out[#out]
    row.latency = {}
    for i, c in ipairs(lat) do
      row.latency[i] = { text = v(c.key, c.d) }
      -- (an SLO's figure unknown but bracketed, lp.bounds_of: the bracket it is judged on, with
      -- a decimal more than the column's, as the capacity's reason quotes it)
      local b = c.slo and lp.field(p, c.key) == nil and lp.bounds_of(p, c.key)
      if b then
        row.latency[i].text = ("N/A (%s–%s)"):format(T.helpers.num(b.lo, c.d + 1), T.helpers.num(b.hi, c.d + 1))
      end
    end
    row.ttft_pct_label = "TTFT " .. (ttft_pct == "p999" and "p99.9" or ttft_pct)
    row.ttft_pct_ci = ci("ttft_" .. ttft_pct .. "_ms", 1)
    row.ttft_pct_unit = p.ci and p.ci["ttft_" .. ttft_pct .. "_ms"] and " ms" or ""
  end
  return out
end

-- A KV cache size not known, and why: no logs at all, or logs without the line.
local function no_size(kv)
  return ("unknown (%s)"):format(kv.size_why or "no 'GPU KV cache size' line in the vLLM logs")
end

-- The unit of each KV figure (comparison.json's rows, comparison.csv's unit column).
-- Which way is better for each row that is no metric of the catalogue (whose metrics.get(key).better the
-- performance rows carry as better_is): the curve rows' capacities and rates, and the KV-cache figures
-- ("kv_" .. field), so that a script ranking the runs reads every row's direction from the files
-- (comparison.csv's better_is, comparison.json's better_is and directions) rather than hardcode it
-- (newuser50b F6). "higher" | "lower" | "none" (a figure of the workload, not of the server: the tokens
-- the requests asked to look up). A direction says which figure would be the better one, not that the
-- rows were compared: the verdict says that ("context", "untested", "not comparable").
M.ROW_BETTER = {
  capacity_at_slo_rps = "higher", capacity_at_slo_output_tps = "higher", capacity_at_slo_rps_per_gpu = "higher",
  max_sustained_rps = "higher", max_sustained_rps_gap_low = "higher", max_sustained_rps_gap_high = "higher",
  max_sustained_rps_per_gpu = "higher", output_tps_per_gpu = "higher",
  kv_hits = "higher", kv_queries = "none", kv_misses = "lower", kv_hit_rate_pct = "higher",
  kv_misses_per_request = "lower", kv_hits_per_request = "higher", kv_cached_share_pct = "higher",
  kv_preemptions = "lower", kv_preemptions_per_1k = "lower",
}
-- A row's direction by its key (a performance row's from the catalogue), or nil for a key no row has.
function M.better_is(key)
  if M.ROW_BETTER[key] then return M.ROW_BETTER[key] end
  local ok, m = pcall(metrics.get, key)
  return ok and m.better or nil
end

local KV_UNIT = { hits = "tokens", queries = "tokens", misses = "tokens", hit_rate_pct = "%",
  misses_per_request = "tokens/request", hits_per_request = "tokens/request", cached_share_pct = "%",
  preemptions = "requests", preemptions_per_1k = "per 1,000 requests" }

-- "123,456 tokens (decode-0)", or with several pods the total and each pod's:
-- "246,912 tokens in total on 2 pods (decode-0 123,456; decode-1 123,456)"; a pod with
-- several data-parallel engines says so: "(decode-0 246,912 over 2 data-parallel engines)"
local function size_text(size)
  if not size then return nil end
  local per = {}
  for _, p in ipairs(size.pods or {}) do
    local e = (p.engines or 1) > 1 and (" over %d data-parallel engines"):format(p.engines) or ""
    per[#per + 1] = { pod = p.pod, text = p.pod .. " " .. T.helpers.num(p.tokens) .. e, engines = e }
  end
  if #per <= 1 then
    return T.helpers.num(size.total) .. " tokens" .. (per[1] and (" (" .. per[1].pod .. per[1].engines .. ")") or "")
  end
  local list = {}
  for i, p in ipairs(per) do list[i] = p.text end
  return ("%s tokens in total on %d pods (%s)"):format(T.helpers.num(size.total), #per, table.concat(list, "; "))
end

-- Decimals that show v to at least 3 significant digits where d would show fewer (0.0186
-- with d = 1 is "0.0186", never "0.0"; 1.9167 is "1.92", never "1.9"); d for 0, and for a
-- count (d = 0) of 1 or more.
local function kv_decimals(v, d)
  d = d or 0
  if type(v) ~= "number" or v == 0 or v ~= v or math.abs(v) == math.huge then return d end
  if d == 0 and math.abs(v) >= 1 then return d end
  return math.max(d, 2 - math.floor(math.log(math.abs(v), 10)))
end

-- not_like: why the runs' whole-run figures do not compare like with like (their requests
-- differ, or they pool different loads), nil when they do.
local function kv_section(A, B, model_min_effect, not_like, not_like_short)
  local ka, kb = A.kv or {}, B.kv or {}
  local sec = { available = ka.available or kb.available or false }
  if not sec.available then
    local reasons = {}
    if ka.reason then reasons[#reasons + 1] = A.label .. ": " .. ka.reason end
    if kb.reason and kb.reason ~= ka.reason then reasons[#reasons + 1] = B.label .. ": " .. kb.reason end
    if kb.reason and kb.reason == ka.reason then reasons[1] = "both runs: " .. ka.reason end
    sec.reason = table.concat(reasons, "; ")
    sec.size = (ka.size or kb.size) and {
      a = size_text(ka.size) or no_size(ka),
      b = size_text(kb.size) or no_size(kb),
    } or nil
    return sec
  end
  -- fixed: the row's decimals (row_decimals), else the figure's own
  local function cell(kv, f, d, unit, fixed)
    local v = kv.available and kv[f] or nil
    -- a side without data says why in a line under the table (sec.missing); a figure
    -- missing from a side with data says why here
    if v == nil then return kv.available and kv.na and kv.na[f] and metrics.na(kv.na[f]) or "N/A" end
    return T.helpers.num(v, fixed or kv_decimals(v, d)) .. (unit or "")
  end
  -- One number of decimals for a row's A, B and Delta: the most any of them needs
  -- (kv_decimals), so that the figures are as precise as the difference beside them ("1.9"
  -- beside "+0.0123" read as a difference the figures do not show): "1.9370", "1.9493",
  -- "+0.0123".
  local function row_decimals(va, vb, d)
    local n = d or 0
    for _, x in ipairs { va, vb, va and vb and vb - va or nil } do n = math.max(n, kv_decimals(x, d)) end
    return n
  end
  -- No KV row names a better run. The counters are read once per run (one increase over
  -- all its scrapes, whatever its repeats), so there is nothing to test a difference
  -- against: a rate (hit rate, per request, share) shows its difference and, beyond
  -- --min-effect, which run is higher, marked untested; a total (hits, misses, queries)
  -- grows with the requests a run served and is context, never a verdict.
  local min_effect = model_min_effect or decision.MIN_EFFECT
  local function row(label, f, d, kind, unit)
    local va, vb = ka.available and ka[f] or nil, kb.available and kb[f] or nil
    -- (both known: one precision for the row; one side alone: its own)
    local dd = va and vb and row_decimals(va, vb, d) or nil
    -- a, b, delta, pct: numbers (comparison.json); the *_text fields as the report prints
    -- them; a_na, b_na: why a side is unknown
    local r = { label = label, key = f, kind = kind, a = va, b = vb, unit = KV_UNIT[f],
      better_is = M.ROW_BETTER["kv_" .. f],
      a_text = cell(ka, f, d, unit, dd), b_text = cell(kb, f, d, unit, dd), delta_text = "N/A", pct_text = "N/A",
      verdict = "" }
    -- counters that count other traffic (or part of the run) than the harness's requests:
    -- every figure still shown says so beside it, and no rate compares the runs on them
    -- (kv.scope: "includes other traffic: 105 requests finished against 8 sent")
    local scoped = {}
    if va ~= nil and ka.scope then
      r.a_scope, r.a_text = ka.scope, ("%s (%s)"):format(r.a_text, ka.scope)
      scoped[#scoped + 1] = ("%s's %s"):format(A.label, ka.scope)
    end
    if vb ~= nil and kb.scope then
      r.b_scope, r.b_text = kb.scope, ("%s (%s)"):format(r.b_text, kb.scope)
      scoped[#scoped + 1] = ("%s's %s"):format(B.label, kb.scope)
    end
    -- (a reason that points "below" in the report carries the lines it points to: the
    -- JSON and the CSV have no "below")
    local function na_of(kv)
      local why = kv.available and kv.na and kv.na[f] or kv.reason or "no data"
      if why:find(", see below$") and kv.warnings and #kv.warnings > 0 then
        why = table.concat(kv.warnings, "; ") -- each says what the reason says, and why
      end
      return why
    end
    if va == nil then r.a_na = na_of(ka) end
    if vb == nil then r.b_na = na_of(kb) end
    if kind == "total" then
      r.verdict, r.evidence = "context", "a total: grows with the requests served"
      if #scoped > 0 then r.evidence = r.evidence .. "; " .. table.concat(scoped, "; ") end
    end
    if va and vb then
      -- a difference of percentages is in percentage points
      r.delta = vb - va
      r.delta_text = T.helpers.signed(vb - va, dd) .. (unit == " %" and " pp" or (unit or ""))
      r.pct = va ~= 0 and (vb - va) / math.abs(va) * 100 or nil
      r.pct_text = va ~= 0 and T.helpers.pct((vb - va) / math.abs(va) * 100) or zero_change(vb)
      if kind == "rate" then
        r.effect_pct = decision.effect_pct(va, vb)
        r.evidence = "untested: one counter increase per run"
        if not_like then
          -- counters over different requests or loads: no order is read from them (as the
          -- whole-run rows and the banner say)
          r.verdict = ("not comparable: %s (untested)"):format(not_like_short or not_like)
          r.evidence = r.evidence .. "; not comparable: " .. not_like
        elseif #scoped > 0 then
          -- a server's figure over other traffic than the run's (or part of the run) is not
          -- the run's: no order is read from it
          r.verdict = "not comparable (untested)"
          r.evidence = r.evidence .. "; not comparable: " .. table.concat(scoped, "; ")
        elseif va == vb then
          r.verdict = "no difference (untested)"
        elseif r.effect_pct and decision.magnitude(r.effect_pct) >= min_effect then
          r.higher = vb > va and "b" or "a"
          r.verdict = ("higher in %s (untested)"):format(vb > va and B.label or A.label)
        else
          r.verdict = ("within %s %% (untested)"):format(decision.thr_num(min_effect))
        end
      end
    end
    return r
  end
  sec.size = {
    a = size_text(ka.size) or no_size(ka),
    b = size_text(kb.size) or no_size(kb),
  }
  sec.rows = {
    row("Prefix cache hits (tokens)", "hits", 0, "total"),
    row("Prefix cache queries (tokens)", "queries", 0, "total"),
    row("Misses (tokens recomputed)", "misses", 0, "total"),
    row("Hit rate", "hit_rate_pct", 1, "rate", " %"),
    row("Misses per completed request (tokens)", "misses_per_request", 1, "rate"),
    row("Preemptions (requests evicted from the KV cache)", "preemptions", 0, "total"),
    row("Preemptions per 1,000 completed requests", "preemptions_per_1k", 2, "rate"),
  }
  sec.efficiency = {
    row("Tokens not reprocessed (served from cache)", "hits", 0, "total"),
    row("Cached tokens per completed request", "hits_per_request", 1, "rate"),
    row("Share of input tokens served from cache", "cached_share_pct", 1, "rate", " %"),
  }
  sec.tested = false
  sec.test_note = "KV rows are not tested: vLLM's prefix-cache counters give one increase per run (not per "
    .. "repeat), so no row names a winner; totals grow with the requests a run served and are context only."
  -- the "sum of max" figure, where it says something else: what it is for each run (the
  -- processed summary's, or computed from the raw scrapes) and why it differs there
  local kvm = require "llmd.kvcache"
  local som = {}
  for _, s in ipairs { { A, ka }, { B, kb } } do
    local side, kv = s[1], s[2]
    if kv.sum_of_max and not kv.sum_of_max_same then
      local what, why = kvm.sum_of_max_text(kv.sum_of_max, kv.hits)
      -- against the actual totals where they are known; where not (a processed summary
      -- without raw scrapes), no difference is claimed
      local known = kv.hits ~= nil and kv.queries ~= nil
      som[#som + 1] = {
        label = side.label, hits = T.helpers.num(kv.sum_of_max.hits), queries = T.helpers.num(kv.sum_of_max.queries),
        actual_hits = kv.hits and T.helpers.num(kv.hits) or "N/A",
        actual_queries = kv.queries and T.helpers.num(kv.queries) or "N/A", source = what, why = why,
        known = known,
        against = known and ("against the actual %s / %s"):format(T.helpers.num(kv.hits), T.helpers.num(kv.queries))
          or ("(the actual totals are unknown: %s, so how far it is from them is not known)"):format(
            kv.sum_of_max.source ~= "raw" and "no raw scrapes to count the increases over the run from"
              or "the increases over the run could not be counted"),
      }
    end
  end
  sec.sum_of_max = #som > 0 and som or nil
  -- the sentence above the list says "differs from the actual totals" only where every
  -- run listed has them
  local all_known = #som > 0
  for _, x in ipairs(som) do all_known = all_known and x.known end
  sec.sum_of_max_heading = all_known and "differs from the actual totals"
    or "is not the actual totals (the counters' increases over the run)"
  local ta, tb = ka.time_avg, kb.time_avg
  if ta or tb then
    -- every N/A says why: a run without the processed summary's aggregate, or an
    -- aggregate without that statistic
    local function t3(t, kv)
      local out = {}
      for _, f in ipairs { "mean", "p90", "p95" } do
        local v = t and t[f]
        if v then
          out[f] = T.helpers.num(v, 1) .. " %"
        elseif t then
          out[f] = metrics.na(("%s's vllm:prefix_cache_hit_rate aggregate has no %s"):format(
            tostring(t.source or "the processed summary"), f))
        else
          out[f] = metrics.na(kv.time_avg_why or kv.reason or "no vllm:prefix_cache_hit_rate aggregate in the results")
        end
      end
      -- scrapes that count other traffic than the run's (or part of it): the server's ratio
      -- over that traffic, said beside it as on the totals' rows (kv.scope)
      out.scope = t and kv.scope or false
      return out
    end
    sec.time_avg = { a = t3(ta, ka), b = t3(tb, kb) }
  end
  sec.source_a = ka.source or ka.reason
  sec.source_b = kb.source or kb.reason
  -- one line per side without data, instead of the reason in every cell
  local missing = {}
  for _, s in ipairs { { A, ka }, { B, kb } } do
    if not s[2].available then missing[#missing + 1] = ("%s: %s"):format(s[1].label, s[2].reason or "no data") end
    for _, wline in ipairs(s[2].warnings or {}) do missing[#missing + 1] = ("%s: %s"):format(s[1].label, wline) end
    for _, note in ipairs(s[2].notes or {}) do missing[#missing + 1] = ("%s: %s"):format(s[1].label, note) end
  end
  -- the whole reason the rates are not comparable (their cells give its gist)
  if not_like and sec.rows then
    for _, part in ipairs { sec.rows, sec.efficiency or {} } do
      for _, r in ipairs(part) do
        if r.verdict:find("^not comparable") then
          missing[#missing + 1] = ("Rates marked not comparable: %s, so neither run is named higher"):format(not_like)
          goto said
        end
      end
    end
    ::said::
  end
  sec.missing = missing
  return sec
end

-- (metrics.rate_text: the one precision of a rate, treatments.lua's too)
local function rate_text(v) return v and metrics.rate_text(v) or "N/A" end
M.rate_text = rate_text

-- More metrics won than this (both runs' together): the Summary counts them, and lists
-- each under its paragraph (model.summary_wins: {{label =, items = {"TTFT p90 (...)", ...}}}).
M.SUMMARY_LIST_MIN = 4

-- The Summary's matched load (model.matched_point): its achieved rate, "9.95 req/s", or on
-- the offered axis the load both runs were driven at with each run's own achieved rate there,
-- "concurrency 8 (8.10 req/s achieved by a, 15.30 req/s by b)" (one offered load can achieve
-- two very different rates: their mean is a rate neither run achieved); "about" where the
-- rate is interpolated between the run's measured loads.
local function matched_load_text(mp, A, B)
  if mp.axis == "rate" or mp.axis == "concurrency" then
    local x = lp.load_text(mp.axis, mp.load)
    local ra, rb = mp.rps_a, mp.rps_b
    if not (ra and rb) then return x end
    local ia, ib = mp.interpolated and mp.interpolated.a, mp.interpolated and mp.interpolated.b
    if not (ia or ib) and rate_text(ra) == rate_text(rb) then
      return ("%s (%s achieved by both)"):format(x, rate_text(ra))
    end
    return ("%s (%s%s achieved by %s, %s%s by %s)"):format(x, ia and "about " or "", rate_text(ra), A.label,
      ib and "about " or "", rate_text(rb), B.label)
  end
  return rate_text(mp.rps)
end

-- Max sustained throughput as printed (s: llmd.loadpoints.saturation; per: divide by this,
-- for per GPU). A run that never saturated has a lower bound; where repeats leave a point's
-- achieved rate possibly below the saturation share, that is said with it.
local function sustained_text(s, per)
  -- a run of two workloads: N/A with why (M.build's max_sustained_na)
  if s.max_sustained_na then return metrics.na(s.max_sustained_na) end
  local v = s.max_sustained_rps
  -- failed requests at the loads it counts (within the error-rate limit), or the load whose
  -- failures cut it, said beside the figure (llmd.loadpoints.sustained_failure_notes)
  local notes = lp.sustained_failure_notes(s)
  local function with_notes(text, first) return lp.with_notes(text, first, notes) end
  if v then
    local x = rate_text(v / (per or 1))
    if not s.none then
      if s.ceiling_rps and s.ceiling_rps > v then
        -- where between the last load that kept up and its ceiling the limit lies, the
        -- ladder's steps do not say
        -- (a ceiling read at a load where a repeat crashed leaves it out, and says so, as the
        -- cut's note names it: llmd.loadpoints.ceiling)
        local function num(r) return T.helpers.num(r / (per or 1), 2) end
        return with_notes(x, ("up to %s, its most at any load%s"):format(num(s.ceiling_rps),
          lp.ceiling_crash_text(s, num)))
      end
      return with_notes(x)
    end
    if s.near then
      return with_notes("≥ " .. x, ("never saturated by the means; the repeats' 95 %% interval at load point%s %s "
        .. "reaches below %d %% of the offered rate"):format(#s.near == 1 and "" or "s", table.concat(s.near, ", "),
        lp.SATURATION_SHARE * 100))
    end
    return with_notes("≥ " .. x, "never saturated")
  end
  -- the lowest load failed more requests than the error-rate limit: no load was sustained,
  -- for that reason (with repeats that differ, each one's share: one crashed repeat)
  local lowest = lp.failed_lowest_text(s)
  if lowest then return metrics.na(lowest) end
  return metrics.na(s.point == 1 and "saturated at the lowest load" or s.reason or "unknown")
end

-- Where a capacity the repeats bound neither from below nor from above may lie, said by the
-- loads measured (bottom, top: their texts, "1.00 req/s"; tried: "measured" or "tried"):
-- "from below 1.00 req/s, the lowest load measured, to beyond 30.00 req/s, the highest",
-- "below or above 5.35 req/s, the one load measured". Such an interval runs from 0, where it
-- was clipped, which is no bound: "from 0 to beyond 8.96" read as if a capacity of 0 had been
-- measured (verify44).
local function open_span(bottom, top, tried)
  if not top then return "(no bound either way)" end
  if bottom == top then return ("below or above %s, the one load %s"):format(top, tried) end
  if not bottom then return ("up to beyond %s, the highest load %s (no bound from below)"):format(top, tried) end
  return ("from below %s, the lowest load %s, to beyond %s, the highest"):format(bottom, tried, top)
end

-- A capacity range (llmd.loadpoints.capacity_interval): "3.40–3.85 req/s", "≥ 3.40 req/s",
-- "up to 3.48 req/s", "anywhere from below 1.00 req/s, the lowest load measured, to beyond
-- 30.00 req/s, the highest" (open_span); with tps, the same range in output tok/s (lo_tps,
-- hi_tps: "340.0–385.0 tok/s"; its loads are known in req/s only). per: after each unit
-- (" per GPU").
local function interval_text(iv, tps, per)
  local num = T.helpers.num
  local lo, hi, unit, d = iv.lo, iv.hi, "req/s" .. (per or ""), 2
  if tps then lo, hi, unit, d = iv.lo_tps, iv.hi_tps, "tok/s" .. (per or ""), 1 end
  if hi == math.huge and lo == 0 then
    if tps then return "anywhere (no bound either way)" end
    local function at(x) return x and (num(x, 2) .. " " .. unit) end
    return "anywhere " .. open_span(at(iv.bottom), at(iv.top), "measured")
  end
  if hi == math.huge then return ("≥ %s %s"):format(num(lo, d), unit) end
  if lo == 0 then return ("up to %s %s"):format(num(hi, d), unit) end
  return ("%s–%s %s"):format(num(lo, d), num(hi, d), unit)
end

-- What the repeats say of a capacity, as a clause: "the repeats allow 3.40–3.85 req/s";
-- when the 95 % intervals are too wide to place it at all, that, in those words.
local function range_clause(iv)
  if iv.hi == math.huge and iv.lo == 0 then
    return "the repeats cannot narrow it down: " .. interval_text(iv)
  end
  return "the repeats allow " .. interval_text(iv)
end

-- Capacity kinds that are lower bounds ("≥ X"), and what each says in a few words.
local BOUND_NOTE = decision.CAPACITY_BOUND
-- ... and a capacity below the lowest load ("< X"): the SLOs it failed there.
local below_note = decision.capacity_below_note
local is_bound = decision.capacity_is_bound

-- A capacity as printed; with repeats at every load point, the range they allow beside it.
-- One level of parentheses at most: it is also quoted inside sentences. rate: how a figure
-- is printed (default "3.48 req/s"; treatments.lua prints its own figures, with the same
-- words and the same range beside them: M.capacity_text).
-- The span a capacity of one run per load is ordered by where its load points' 95 %
-- intervals widen it beyond its measured bracket (c.noise, lp.capacity_noise;
-- decision.capacity_span, what the gap beside it is read from), as a clause: "with each
-- load's 95 % interval: between 6.53 and 9.70"; nil where it is the measured bracket (by the
-- means, decision.means_span), so that a cell never shows a narrower span than its gap uses.
-- A span [lo, hi] of capacities in words, each end printed by num, unit after each number
-- (default none): "between 6.53 and 9.70", "6.53 or more", "below 9.70", or "any rate, no
-- load being known to pass" (0 up, no upper end).
local function span_words(lo, hi, num, unit)
  unit = unit or ""
  -- (a load known to pass below the first that may fail is the span's floor, lp.capacity_noise:
  -- from 0, the lowest is not known to pass; a higher one may be, above one that may fail)
  if hi == math.huge and lo <= 0 then return "any rate, its lowest load not being known to pass" end
  if hi == math.huge then return num(lo) .. unit .. " or more" end
  if lo == 0 then return "below " .. num(hi) .. unit end
  return ("between %s and %s%s"):format(num(lo), num(hi), unit)
end

-- Beside a span that rests on one-run intervals known to run narrow near capacity
-- (c.noise.narrow: lp.interval_coverage).
local NARROW_CELL = "interval may be narrow near capacity: repeats settle it"
M.NARROW_CELL = NARROW_CELL
-- Beside a span whose one-run mean intervals took the ranks' design effect (c.noise.mean_deff
-- "ranks": a run model saved before the values' own was, lp.mean_ci; task fixa45).
local RANKS_MEAN_CELL = "its means' intervals take the requests' dependence from their ranks, "
  .. decision.RANKS_UNDERSTATE_MEAN
M.RANKS_MEAN_CELL = RANKS_MEAN_CELL
-- Beside a span whose one-run percentile intervals took the ranks' design effect alone
-- (c.noise.pct_deff "ranks": a run model saved before its indicator's was, lp.sample_deff; task
-- fixg46).
local RANKS_PCT_CELL = "its percentiles' intervals take the requests' dependence from their ranks alone, which "
  .. "understates a percentile's near capacity (its indicator's design effect was not saved)"
M.RANKS_PCT_CELL = RANKS_PCT_CELL

local function noise_clause(c)
  if not c.noise or c.interval then return nil end
  local lo, hi = decision.capacity_span(c)
  local blo, bhi = decision.means_span(c)
  if blo and math.abs(lo - blo) < 1e-9 and math.abs(hi - bhi) < 1e-9 then return nil end
  -- (a bound whose span the intervals do not widen past the bound itself ("≥ 10" beside "10.00
  -- or more", "< 5" beside "below 5.00") says nothing more: left out, and its cell is the
  -- bound alone, not "measured ≥")
  if c.kind == "below_lowest" then
    if c.lowest_rps and lo <= 0 and hi <= c.lowest_rps + 1e-9 then return nil end
  elseif is_bound(c) and c.rps and hi == math.huge and lo >= c.rps - 1e-9 then
    return nil
  end
  return "with each load's 95 % interval: " .. span_words(lo, hi, function(x) return T.helpers.num(x, 2) end)
end

-- The span a capacity is ordered by (decision.capacity_span) in a sentence, with which span
-- it is and the digits its cell gives it (capacity_text): "between 5.90 and 9.21 req/s (with
-- each load's 95 % interval)", "at 3.94–5.86 req/s (the range its repeats allow)", "between
-- 5.63 and 8.40 req/s (measured)"; for "the measured loads place x's capacity ...".
-- (newuser43: treatments.lua's ranking said "at 6.007–9.384 req/s" beside a cell "measured:
-- between 6.01 and 7.71", two ranges, neither named)
function M.capacity_span_text(c)
  local lo, hi = decision.capacity_span(c)
  local text, which
  if c.interval then
    text, which = interval_text(c.interval), "the range its repeats allow"
  else
    text = span_words(lo, hi, function(x) return T.helpers.num(x, 2) end, " req/s")
    -- (where the intervals widen nothing, the cell says "measured" alone: noise_clause)
    which = noise_clause(c) and "with each load's 95 % interval" or "measured"
  end
  local bare = text:find("^between ") or text:find("^below ") or text:find("^any") or text:find("^up to ")
  return ("%s%s (%s)"):format(bare and "" or "at ", text, which)
end

-- The caveat of a span of one run per load that rests on intervals known to run narrow near
-- capacity (NARROW_CELL), or on means' intervals from the ranks' design effect
-- (RANKS_MEAN_CELL), nil elsewhere; after the span's clause where there is one.
local function narrow_note(c)
  if not c.noise or c.interval then return nil end
  local notes = {}
  if c.noise.narrow then notes[#notes + 1] = NARROW_CELL end
  if c.noise.mean_deff == "ranks" then notes[#notes + 1] = RANKS_MEAN_CELL end
  if c.noise.pct_deff == "ranks" then notes[#notes + 1] = RANKS_PCT_CELL end
  return #notes > 0 and table.concat(notes, "; ") or nil
end
-- Beside a span that ends at the first load that failed the SLOs for certain (even at its
-- interval's good end), where a load above it met them there (lp ends_span's cut: audit49 F4):
-- that pass, which the span does not count, as a non-monotone note; nil elsewhere.
local function cut_note(c)
  local r = c.interval or c.noise
  local h = type(r) == "table" and (r.high or r.lower_ends) or nil
  if type(h) ~= "table" or h.kind ~= "non_monotone" or type(h.cut) ~= "table" or type(h.cut.offered) ~= "number" then
    return nil
  end
  local above = {}
  for _, o in ipairs(h.passed_offered or {}) do
    if type(o) == "number" and o > h.cut.offered then above[#above + 1] = ("%g"):format(o) end
  end
  if #above == 0 then return nil end
  local one = #above == 1
  local list = one and above[1] or (table.concat(above, ", ", 1, #above - 1) .. " and " .. above[#above])
  return ("%s at %s req/s offered, at the good end of %s only, above %g req/s offered, which failed for certain, "
    .. "%s not counted (non-monotone)"):format(one and "a pass" or "passes", list, c.interval
    and (one and "its repeats' 95 % interval" or "their repeats' 95 % intervals")
    or (one and "its 95 % interval" or "their 95 % intervals"), h.cut.offered, one and "is" or "are")
end
M.cut_note = cut_note

local function with_narrow(clause, c)
  local n = narrow_note(c)
  local cut = cut_note(c)
  if cut then n = n and (n .. "; " .. cut) or cut end
  if clause and n then return clause .. "; " .. n end
  return clause or n
end

-- Whether a capacity below its lowest load fails that load even at the lower ends of its
-- repeats' 95 % intervals: its bound is then the repeats' too, not the means' alone.
local function below_even_at_lower_ends(c)
  local iv = c.interval
  return iv and iv.hi ~= math.huge and ((iv.lower_ends and iv.lower_ends.kind == "below_lowest")
    or (c.lowest_rps and iv.hi <= c.lowest_rps)) or false
end

-- The words before a capacity's figure in its cell (capacity_text): "≥ " for a lower bound,
-- "measured ≥ " where its load points' 95 % intervals widen its span below the bound
-- (noise_clause), "< " / "measured < " for a capacity below its lowest load, "about " for an
-- estimate of one run per load between two measured loads, "" otherwise. The one source of
-- that prefix: a figure derived from the capacity (per GPU, treatments.lua) says it as the
-- cell does, never "4.06 per GPU" beside a total "measured ≥ 8.11" (newuser44).
function M.capacity_prefix(c)
  if not c then return "" end
  local measured = noise_clause(c) and "measured " or ""
  if is_bound(c) then return measured .. "≥ " end
  if c.kind == "below_lowest" then
    return below_even_at_lower_ends(c) and "< " or measured .. "< "
  end
  if c.kind == "interpolated" and not c.interval and c.last_passing_rps and c.first_failing_rps then
    return "about "
  end
  return ""
end

local function capacity_text(c, rate)
  rate = rate or rate_text
  local range = c.interval and range_clause(c.interval) or nil
  -- (nz: the span the intervals widen it to, which makes a bound's "≥" the measured one; note:
  -- that clause with the caveat of intervals known to run narrow, narrow_note, as printed)
  local nz = noise_clause(c)
  local note = with_narrow(nz, c)
  if is_bound(c) then
    -- a range that says no more than the lower bound itself is left out
    if c.interval and interval_text(c.interval) == "≥ " .. rate_text(c.rps) then range = nil end
    -- beside a range of the repeats, the figure is the means' reading: said so, or "≥ X"
    -- next to "from 0" reads as a contradiction
    -- (a saturated bound read at a load below the last one names it: c.bound_note)
    -- (beside a span its load points' 95 % intervals widen below it, the bound is what was
    -- measured, said so: "≥ 7.60 ... between 6.18 and 9.68" read as a contradiction)
    -- (a load that failed above an unknown one ends the span, lp.capacity's ceiling_failing: the
    -- cell says it, as the Summary and the Change beside it do, never "≥ 31.41 req/s" alone
    -- beside "+35.54 to +138.01 req/s" read up to that load's 92.21: fixb44)
    local below = type(c.ceiling_failing) == "number" and type(c.ceiling_rps) == "number"
      and c.ceiling_rps < math.huge and c.ceiling_rps
    return ("%s%s%s%s (%s%s%s%s)"):format(M.capacity_prefix(c), rate(c.rps), range and " by the means" or "",
      below and (", below " .. rate(below)) or "", c.bound_note or BOUND_NOTE[c.kind],
      below and ("; load point %d failed them"):format(c.ceiling_failing) or "", range and ("; " .. range) or "",
      note and ("; " .. note) or "")
  end
  if c.kind == "below_lowest" then
    -- the bound first, at a glance; what the repeats allow after it, in words
    local iv = c.interval
    if iv and iv.hi == math.huge then
      range = "too noisy to bound: the repeats allow any capacity "
        .. open_span(c.lowest_rps and rate(c.lowest_rps), iv.top and rate_text(iv.top), "tried")
    elseif below_even_at_lower_ends(c) then
      -- even the good ends of the intervals fail at the lowest load: the range says no more
      -- than the bound, which is then no longer the means' alone
      return ("%s%s (%s, even at the lower ends of the repeats' 95 %% intervals)"):format(M.capacity_prefix(c),
        rate(c.lowest_rps), below_note(c))
    end
    return ("%s%s%s (%s%s%s)"):format(M.capacity_prefix(c), rate(c.lowest_rps), range and " by the means" or "",
      below_note(c), range and ("; " .. range) or "", note and ("; " .. note) or "")
  end
  if c.kind == "interpolated" then
    if range then return rate(c.rps) .. " (" .. range .. ")" end
    -- one run per load: the figure is interpolated between two measured loads, an estimate;
    -- the measurements place the capacity only between them
    if c.last_passing_rps and c.first_failing_rps then
      return ("%s%s (measured: between %s and %s%s)"):format(M.capacity_prefix(c), rate(c.rps),
        T.helpers.num(c.last_passing_rps, 2),
        T.helpers.num(c.first_failing_rps, 2), note and ("; " .. note) or "")
    end
    return note and ("%s (%s)"):format(rate(c.rps), note) or rate(c.rps)
  end
  if c.kind == "non_monotone" then
    -- a load that met the SLOs above one that failed: no capacity, what is true in short
    return metrics.na(("non-monotone: %s; see the Summary"):format(c.brief))
  end
  if c.missing then
    -- the SLO metrics the run's files lack: named here, what to do said once in the Summary
    -- (one unknown at some load points only is said with them: the files have it elsewhere)
    local names, where = {}, {}
    local ip = require "llmd.harness.inference_perf"
    for _, m in ipairs(c.missing) do
      if ip.zero_counted(m.na) and not m.bracketed then
        -- (in the files, but the summary may count 0-token requests in it as 0: fixh43)
        where[#where + 1] = ("%s recorded but unknown%s: 0-token requests may count in it as 0"):format(
          metrics.get(m.key).label, m.every == false and type(m.points) == "table" and (" at load point%s %s"):format(
          #m.points == 1 and "" or "s", table.concat(m.points, ", ")) or "")
      elseif m.every == false and type(m.points) == "table" then
        where[#where + 1] = ("%s unknown at load point%s %s"):format(metrics.get(m.key).label,
          #m.points == 1 and "" or "s", table.concat(m.points, ", "))
      else
        names[#names + 1] = metrics.get(m.key).label
      end
    end
    if #names > 0 then where[#where + 1] = ("%s not in this run's files"):format(table.concat(names, ", ")) end
    return metrics.na(("%s, see the Summary"):format(table.concat(where, "; ")))
  end
  return metrics.na(c.reason or "unknown")
end
M.capacity_text = capacity_text

-- What the two capacities at the SLOs show, and on what evidence: decision.capacity_evidence,
-- the rule treatments.lua ranks by too (one definition: both tools give the same verdict).
local capacity_evidence = decision.capacity_evidence

-- The accelerator count of a side: the info file's (stack.gpus), else the run model's
-- (a benchmark report's stack), else unknown and why.
local function gpus_of(side)
  local s = side.state and side.state.stack or {}
  local g = require("llmd.workspace").stack_gpus(s)
  if g then
    -- the info file wins, but never silently over a count the results give otherwise
    local rg = side.run.gpus
    if rg and rg > 0 and rg ~= g and not side.run.gpus_stale then
      return g, "info file", ("gpus: %s in the info file; %s says %s"):format(T.helpers.num(g),
        side.run.gpus_source or "the results", T.helpers.num(rg))
    end
    return g, "info file"
  end
  -- (one replica's count, saved before session 43: N/A with why and the command that reads
  -- the results again, llmd.comparison.old_gpus; never per-GPU figures read off it)
  if side.run.gpus_stale then return nil, side.run.gpus_stale end
  if side.run.gpus and side.run.gpus > 0 then return side.run.gpus, side.run.gpus_source or "results" end
  -- (a plan's run: the plan's way, runs.X.info, newuser48 F7)
  return nil, side.plan_side and ("accelerator count unknown: give runs.%s.info: {gpus: N} in the plan (or gpus: N "
    .. "in the run's info file)"):format(side.plan_side)
    or "accelerator count unknown: give gpus: N in the run's info file"
end

local function per_gpu(side, cap, sat, points)
  local g, src, conflict = gpus_of(side)
  local out = { gpus = g, conflict = conflict }
  if not g then
    out.reason = src
    -- a run of repeats is one still (the evidence beside the other run's figure says so)
    out.output_tps_repeats = select(4, run_figure(side.run, points, "throughput_tok_s"))
    return out
  end
  out.source = src
  -- the whole-run figures as the Performance Results give them (run_figure: a run of repeats
  -- of one load point, the mean over them), divided: one definition per number
  local function per(x) return x and x / g or nil end
  local rps = run_figure(side.run, points, "throughput_req_s")
  local tps, _, tps_why, n = run_figure(side.run, points, "throughput_tok_s")
  out.throughput_rps = per(rps)
  out.output_tps = per(tps)
  out.output_tps_repeats = tps and n or nil
  out.output_tps_why = not tps and (tps_why or "not in the results") or nil
  out.max_sustained_rps = not sat.max_sustained_na and per(sat.max_sustained_rps) or nil
  out.capacity_rps = per(cap.rps)
  -- (a bound's: its floor in tok/s, what it is a bound of)
  out.capacity_output_tps = per(decision.capacity_is_bound(cap) and cap.floor_tps or cap.output_tps)
  return out
end

-- The Delta and Change cells of max sustained throughput (va, vb: the figures, per GPU or
-- not) when a run saturated below its ceiling: each run's true limit lies between its
-- figure and its ceiling, so the gap is the range those allow, "+64.70 to +78.88 req/s";
-- a range across 0 cannot order the runs. Without a ceiling above either figure, the
-- cells dt, pt as they are.
local function sustained_range(sa, sb, va, vb, dt, pt)
  local ka = sa.ceiling_rps and (sa.max_sustained_rps or 0) > 0 and sa.ceiling_rps / sa.max_sustained_rps or 1
  local kb = sb.ceiling_rps and (sb.max_sustained_rps or 0) > 0 and sb.ceiling_rps / sb.max_sustained_rps or 1
  if ka <= 1 and kb <= 1 then return dt, pt end
  local ha, hb = va * math.max(ka, 1), vb * math.max(kb, 1) -- the ceilings, in the row's unit
  local lo, hi = vb - ha, hb - va
  -- spans apart by less than the noise of their rates (decision.sustained_order's
  -- within_noise): the end beside 0 runs to the noise's, "-0.74 to +0.51 req/s", never a
  -- one-signed range beside "either may be higher" (va, vb: per GPU or not, each run's
  -- divisor read off its figure)
  local na = va > 0 and sa.max_sustained_rps and sa.max_sustained_rps / va or 1
  local nb = vb > 0 and sb.max_sustained_rps and sb.max_sustained_rps / vb or 1
  local _, sp = decision.sustained_order(sa, na, sb, nb)
  local nz = sp and sp.within_noise and sp.noise
  -- (and the far end by the same half-width: both ends carry the noise the Evidence quotes,
  -- decision.widen_gap_by_noise, audit47 F3)
  local half = nz and nz.gap and nz.gap_lo and nz.gap - nz.gap_lo or 0
  if nz and sp.within_noise == "b" then lo, hi = math.min(lo, nz.gap_lo), hi + half end
  if nz and sp.within_noise == "a" then lo, hi = lo - half, math.max(hi, -nz.gap_lo) end
  local d = T.helpers.signed(lo, 2) .. " to " .. T.helpers.signed(hi, 2) .. " req/s"
  if nz then
    d = d .. " (within the noise of the rates: either may be higher)"
  elseif lo < 0 and hi > 0 then
    d = d .. " (the load steps cannot order them)"
  end
  if va <= 0 or ha <= 0 then return d, "N/A (A is 0)" end
  return d, T.helpers.pct(lo / ha * 100) .. " to " .. T.helpers.pct(hi / va * 100)
end

-- The gap of two max sustained throughputs (B - A) where one run saturated already at its
-- lowest load (no figure: decision.saturated_lowest) and the measured loads order them, or
-- order them by less than the practical threshold (decision.sustained_order): that run's
-- limit lies from 0 up to its ceiling, the other's from its figure up to its ceiling (no
-- upper end where it never saturated), so B - A runs from B's lowest against A's highest to
-- B's highest against A's lowest, as decision.capacity_gap reads two capacities' spans:
-- {lo_rps, hi_rps (math.huge: no upper end), lo_pct, hi_pct, pct_text}, "at least +3.00
-- req/s" and "at least +62.0 %" in the Headline's cells (k20 sustained 7.84 req/s, k10 never
-- achieved more than 4.84). na, nb: the accelerators each is divided by (1: totals). nil for
-- any other pair (both saturated there, a run of two workloads, spans that overlap).
local function sustained_low_gap(sa, sb, na, nb, min_effect)
  if sa.max_sustained_na or sb.max_sustained_na then return nil end
  if not (decision.saturated_lowest(sa) or decision.saturated_lowest(sb)) then return nil end
  local order, sp = decision.sustained_order(sa, na, sb, nb, min_effect or decision.MIN_EFFECT)
  if not (sp and (order or sp.below_threshold or sp.least_below_threshold)) then return nil end
  local g = { lo_rps = sp.lb - sp.ha, hi_rps = sp.hb - sp.la }
  if sp.ha > 0 and sp.ha ~= math.huge then g.lo_pct = (sp.lb / sp.ha - 1) * 100 end
  if sp.la > 0 and sp.hb ~= math.huge then g.hi_pct = (sp.hb / sp.la - 1) * 100 else g.hi_pct = math.huge end
  if sp.ha == math.huge then g.lo_rps, g.lo_pct = -math.huge, nil end
  g.pct_text = decision.gap_pct_text(g, T.helpers.pct)
  return g
end
M.sustained_low_gap = sustained_low_gap

-- Why two capacities of one run per load are not ordered where their load points' percentile
-- SLO metrics carry their 95 % intervals (lp.capacity_noise), or where their noise is unknown
-- (a summary file: decision.capacity_evidence's noise_unknown).
-- Why a capacity gap bounded on both sides has no single B - A (comparison.csv's note and
-- comparison.json's capacity.gap.note): "%s" what is left empty, "%s" where the ends are.
local GAP_NO_POINT = "%s: no single B - A is known, the measured loads allow any from %s, a range as the "
  .. "Headline's Delta and Change give it, not a point estimate"

-- comparison.json's capacity.gap (and per GPU): where both ends are bounded and apart, its note
-- says what the CSV's does, that no single B - A stands beside lo_rps and hi_rps (a midpoint
-- would be a point estimate the Verdict does not make); capacity.delta_pct is absent then.
local function gap_note_json(g)
  local function finite(x) return type(x) == "number" and x == x and x ~= math.huge and x ~= -math.huge end
  if not (g and finite(g.lo_rps) and finite(g.hi_rps)) or g.lo_rps == g.hi_rps then return end
  g.note = GAP_NO_POINT:format("no point delta", (finite(g.lo_pct) and finite(g.hi_pct))
    and "lo_rps to hi_rps (lo_pct to hi_pct in % of A)" or "lo_rps to hi_rps")
end

local with_sustained_order
-- (where the Summary's no-SLO sentences on max sustained throughput end: with_sustained_order
-- puts the Verdict's order there, or nothing)
local SUSTAINED_ORDER_AT = "\1"
local NOISE_WHY = "each load's measured percentile is one draw, and with its 95 % interval (its requests' "
  .. "order statistics, counted as the independent requests they carry) the measured loads leave room for either "
  .. "order"
-- (an SLO on means only: a mean's interval, lp.mean_ci; task fixf40)
local NOISE_WHY_MEAN = "each load's measured mean is one draw, and with its 95 % interval (its requests' spread, "
  .. "counted as the independent requests they carry) the measured loads leave room for either order"
local function noise_why(slo)
  for _, x in ipairs(slo or {}) do
    if lp.percentile_key(x.key) then return NOISE_WHY end
  end
  for _, x in ipairs(slo or {}) do
    if lp.mean_key(x.key) then return NOISE_WHY_MEAN end
  end
  return NOISE_WHY
end
-- (decision.unknown_noise_orders: the loads that decide it too close, or their figures too near
-- the limit, lp.UNKNOWN_NOISE_BAND)
local NOISE_UNKNOWN_WHY = ("each load's pass or fail rests on one measured percentile whose noise these files "
  .. "cannot tell (no per-request data), and the loads that decide it lie too close, or their figures too near the "
  .. "limit, for a pass and a fail to order them (a figure %g %% off either way could swap them)"):format(
  lp.UNKNOWN_NOISE_BAND)
-- The same, naming the loads and the condition that left the order open where the evidence
-- keeps it (ev.noise_unknown_why, decision.unknown_noise_text; tidy55: the fixed words named
-- neither); rate: the formatter of one rate (per GPU where the capacities are).
function M.noise_unknown_why(ev, rate, A, B)
  local t = decision.unknown_noise_text(ev.noise_unknown_why, ev, rate, A.label, B.label)
  return t and (NOISE_UNKNOWN_WHY:match("^(.-%)), and ") .. ", and " .. t) or NOISE_UNKNOWN_WHY
end

-- The loads a capacity's evidence leaves unclear (lp.unclear_loads), as comparison.json keeps
-- them (capacity.a.settle: an interval's end off the sample is left out, not infinite).
local function settle_of(list)
  local out = {}
  for _, e in ipairs(list) do
    local x = {}
    for k, v in pairs(e) do
      if type(v) ~= "number" or (v == v and math.abs(v) ~= math.huge) then x[k] = v end
    end
    out[#out + 1] = x
  end
  return json.array(out)
end
M.settle_of = settle_of

-- What a capacity keeps of the range its one-run load points' uncertainty allows
-- (lp.capacity_noise): the range in req/s and tok/s, each end where it first fails (what
-- decision.capacity_touch reads, as a repeats' interval's), the points left unclear.
-- Each point left unclear has one shape in comparison.json (noise.unclear[]): {point, key,
-- reason (why, in words), n (its requests), deff (their design effect), effective_n (n /
-- deff)}, the numbers absent where unknown: lp.capacity_noise gives why as text, or as the
-- interval's {n, deff} where the interval is known and straddles the SLO.
local function unclear_of(list)
  local out = {}
  for i, u in ipairs(list or {}) do
    local e = { point = u.point, key = u.key }
    local why = u.reason or u.why
    if type(why) == "table" then
      e.n, e.deff = why.n, why.deff
      why = "its interval straddles the SLO"
    end
    e.reason = type(why) == "string" and why or "its interval straddles the SLO"
    e.n, e.deff = e.n or u.n, e.deff or u.deff
    if type(e.n) == "number" and type(e.deff) == "number" and e.deff > 0 then e.effective_n = e.n / e.deff end
    out[i] = e
  end
  return out
end
M.unclear_of = unclear_of

-- open: the same run's lp.capacity_noise with the intervals known to run narrow near capacity
-- counted as unknown (opts.open_narrow; nil: not weighed). Kept beside the span: coverage
-- (each one-run point's lp.interval_coverage), if_narrow_open (that span, its ends) and
-- narrow = true where it differs from the span: the span rests on intervals that may be
-- narrow near capacity, which the capacity's cells say (narrow_note).
local function noise_of(nz, open)
  local out = { lo = nz.lo, hi = nz.hi, lo_tps = nz.lo_tps, hi_tps = nz.hi_tps, upper_ends = lp.interval_end(nz.low),
    lower_ends = lp.interval_end(nz.high), unclear = unclear_of(nz.unclear), coverage = nz.coverage,
    mean_deff = nz.mean_deff, pct_deff = nz.pct_deff }
  if open and not open.unknown then
    out.if_narrow_open = { lo = open.lo, hi = open.hi, lo_tps = open.lo_tps, hi_tps = open.hi_tps,
      upper_ends = lp.interval_end(open.low), lower_ends = lp.interval_end(open.high) }
    out.narrow = math.abs(open.lo - nz.lo) > 1e-9 or not (open.hi == nz.hi or math.abs(open.hi - nz.hi) <= 1e-9)
  end
  return out
end
M.noise_of = noise_of

-- A capacity as it would be ordered with its one-run intervals known to run narrow counted
-- as unknown (c.noise.if_narrow_open in the span's place); c itself where it has none.
local function narrow_open_of(c)
  if not (c and c.noise and c.noise.if_narrow_open) then return c end
  local copy = {}
  for k, v in pairs(c) do copy[k] = v end
  local o = c.noise.if_narrow_open
  copy.noise = { lo = o.lo, hi = o.hi, lo_tps = o.lo_tps, hi_tps = o.hi_tps, upper_ends = o.upper_ends,
    lower_ends = o.lower_ends, unclear = c.noise.unclear }
  return copy
end

-- What the Verdict adds to an order that rests on one-run intervals known to run narrow
-- (narrow_check): which loads, the condition that marked them (lp.interval_coverage's, in
-- plain words: the run saturated, the load achieved at least lp.NARROW_SHARE of the run's
-- ceiling, and its percentile or mean SLO's interval widened by sqrt(lp.WORST_DEFF_RATIO) would cross
-- the SLO), and that repeats of them settle it.
local function narrow_verdict_text(ev, A, B)
  local parts = {}
  for _, l in ipairs(ev.narrow_loads or {}) do
    local load = not l.offered and ("load point %d"):format(l.point) or l.load_type == "concurrency"
      and ("concurrency %g"):format(l.offered) or ("%g req/s offered"):format(l.offered)
    parts[#parts + 1] = ("%s at %s"):format(l.run == "a" and A.label or B.label, load)
  end
  return ("It rests on loads measured once near capacity (%s: each in a run that saturated, at %d %% or more of the "
    .. "most its run achieved at any load, and with a 95 %% interval of a percentile or mean SLO that would cross the "
    .. "SLO if "
    .. "%.1f times as wide, the square root of the up to %g times a one-run design effect fell short of the "
    .. "run-to-run one in simulation), whose 95 %% intervals may be narrow (in simulation they held the run-to-run "
    .. "median in 64-80 %% of runs at 70-84 %% of capacity, fewer nearer it); repeats of those loads settle it.")
    :format(table.concat(parts, ", "), math.floor(lp.NARROW_SHARE * 100 + 0.5), math.sqrt(lp.WORST_DEFF_RATIO),
    lp.WORST_DEFF_RATIO)
end

-- An order of two capacities (evidence ev, decision.capacity_evidence of ca and cb) that rests
-- only on one-run intervals known to run narrow near capacity (lp.interval_coverage): the same
-- evidence with those intervals counted as unknown orders them no longer, or otherwise. Then
-- ev.interval_coverage = "narrow_near_capacity" and ev.narrow_loads = such loads (each {run =
-- "a" | "b", point, offered, load_type, achieved_rps}, at or above lp.NARROW_SHARE of their
-- run's ceiling): those the order reads, else every one of both runs; else, where it has an
-- order, "nominal". The order stands: see README ("Near capacity an interval called 95 %
-- covers far less").
local function narrow_check(ev, ca, cb, min_effect, opts)
  if not (ev and ev.higher and (ca.noise or cb.noise)) then return end
  ev.interval_coverage = "nominal"
  if not ((ca.noise and ca.noise.narrow) or (cb.noise and cb.noise.narrow)) then return end
  local open = decision.capacity_evidence(narrow_open_of(ca), narrow_open_of(cb), min_effect, opts)
  if open.higher == ev.higher and open.ordered == ev.ordered then return end
  ev.interval_coverage = "narrow_near_capacity"
  -- the loads the order reads (the higher run's pass at passed_rps, the lower's fail at
  -- failed_rps, unless past its saturation, where the fail holds whatever the interval) where
  -- they are such loads; else every such load of both runs
  local function collect(only)
    local loads = {}
    for _, x in ipairs { { "a", ca }, { "b", cb } } do
      local lower = x[1] ~= ev.higher
      local want = only and (lower and ev.failed_rps or not lower and ev.passed_rps)
      for _, e in ipairs(x[2].noise and x[2].noise.coverage or {}) do
        if e.interval_coverage == "narrow_near_capacity" and not (only and lower and e.past_saturation)
          and (not only or (want and e.achieved_rps
          and math.abs(e.achieved_rps - want) <= 1e-9 * math.max(1, want))) then
          loads[#loads + 1] = { run = x[1], point = e.point, offered = e.offered, load_type = e.load_type,
            achieved_rps = e.achieved_rps }
        end
      end
    end
    return loads
  end
  local loads = collect(true)
  if #loads == 0 then loads = collect(false) end
  ev.narrow_loads = json.array(loads)
end
M.narrow_check = narrow_check
M.narrow_verdict_text = narrow_verdict_text

-- A capacity in output tok/s, shaped as decision.capacity_span reads one (its figure, its
-- measured bracket and its bound in tok/s, or the repeats' range in tok/s: interval.lo_tps
-- and hi_tps, read off the same load points), for the gap of the tok/s row; nil where a
-- tok/s figure or that range is missing.
local capacity_in_tps_of
local function capacity_in_tps(c)
  local x = capacity_in_tps_of(c)
  if x then
    x.noise_unknown = c.noise_unknown
    -- (its band in tok/s, read off the same load points; none where a tok/s is unknown)
    local b = c.noise_band
    x.noise_band = b and b.lo_tps and { lo = b.lo_tps, hi = b.hi_tps } or nil
  end
  return x
end
capacity_in_tps_of = function(c)
  if c.interval then
    local lo, hi = c.interval.lo_tps, c.interval.hi_tps
    if not (lo and hi) then return nil end
    return { kind = c.kind, bound = c.bound, rps = c.output_tps, lowest_rps = c.lowest_tps,
      interval = { lo = lo, hi = hi } }
  end
  if c.noise then
    -- the range the load points' uncertainty allows, in tok/s (none where a tok/s is unknown)
    local lo, hi = c.noise.lo_tps, c.noise.hi_tps
    if not (lo and hi) then return nil end
    local x = { kind = c.kind, bound = c.bound, rps = c.output_tps, lowest_rps = c.lowest_tps,
      noise = { lo = lo, hi = hi } }
    if c.kind == "interpolated" then x.last_passing_rps, x.first_failing_rps = lp.bracket_tps(c) end
    if decision.capacity_is_bound(c) then x.rps, x.ceiling_rps = c.floor_tps, c.ceiling_tps end
    return x
  end
  if c.kind == "interpolated" then
    -- its bracket in tok/s, lower end first (lp.bracket_tps), whichever point delivered more
    local lo, hi = lp.bracket_tps(c)
    if not (c.output_tps and lo and hi) then return nil end
    return { kind = c.kind, rps = c.output_tps, last_passing_rps = lo, first_failing_rps = hi }
  elseif decision.capacity_is_bound(c) then
    -- from its floor in tok/s (the fewest delivered at its load point or above: a higher
    -- load, where the capacity may lie, can deliver fewer than its own point) to its ceiling,
    -- the most the run delivered at any load (none where the run never failed the SLOs, or a
    -- point's tok/s is unknown: no upper end)
    return c.floor_tps and { kind = c.kind, bound = c.bound, rps = c.floor_tps, ceiling_rps = c.ceiling_tps } or nil
  elseif c.kind == "below_lowest" then
    return c.lowest_tps and { kind = c.kind, lowest_rps = c.lowest_tps } or nil
  end
end

-- The gap of two capacities in output tok/s (B - A: decision.capacity_gap of capacity_in_tps),
-- on the req/s row's evidence: the same-load rule read off the req/s points
-- (decision.capacity_touch_tps), and where the req/s spans are apart only within the noise of
-- the rates they are read at (decision.ceiling_noise_order), that noise, carried to tok/s
-- (decision.gap_noise_scaled), widens the end beside 0 as it widens the req/s gap's
-- (newuser44: "at most -13.2 tok/s" beside "at most +0.36 req/s (either may be higher)").
-- Returns the gap (nil: a tok/s unknown) and the two capacities in tok/s.
local function capacity_gap_tps(ca, cb)
  local ta_, tb_ = capacity_in_tps(ca), capacity_in_tps(cb)
  if not (ta_ and tb_) then return nil, ta_, tb_ end
  local touch = decision.capacity_touch_tps(ca, cb)
  local g = decision.capacity_gap(ta_, tb_, touch)
  -- (the noise of the req/s spans, also where a pass and a fail at one load order them in
  -- req/s: that order carries to tok/s only where decision.capacity_touch_tps holds, and its
  -- size stays unknown there; elsewhere the tok/s spans are apart only within that noise)
  local w, nz = decision.ceiling_noise_order(ca, cb, true)
  if g and nz and not w and touch then
    decision.gap_end_at_zero(g, touch)
  elseif g and nz and not w then
    local la, ha = decision.capacity_span(ta_)
    local lb, hb = decision.capacity_span(tb_)
    local nzt = decision.gap_noise_scaled(nz, nz.higher == "b" and lb or la, nz.higher == "b" and ha or hb)
    if nzt then decision.widen_gap_by_noise(g, nzt, la, ha, hb) end
  end
  return g, ta_, tb_
end

-- The capacity in output tok/s's own order where the req/s one is the requests' token
-- lengths' (decision.capacity_token_check's token_explained; fixa53: the tok/s row repeated the
-- req/s row's evidence, "held to A's tokens (its request rate up to 4.2 % lower for them) ...;
-- compare ... capacity in output tok/s", in the tok/s row itself): the order its tok/s spans show
-- (decision.gap_order of capacity_gap_tps), held to the tokens by the tok/s rule
-- (decision.token_order_explained with unit_key "capacity_tok_s": the SLO limits the lengths
-- move read again, recompute(side, slo2) as the req/s check reads them, and the higher run's
-- least-gap figure divided by how far its lengths can raise its tok/s). Returns {order = "a" |
-- "b" | false (the tok/s spans allow either), token_explained (nil: the order holds), hi_fig,
-- lo_fig (the tok/s figures its least gap is read on), gap_text (the tok/s gap B - A in %,
-- decision.gap_pct_text), max_pct (the largest gap, of their mean)}, nil where a tok/s the
-- spans are read from is unknown.
local function tps_token_order(model, ca, cb, token_gap, recompute)
  local function order_of(xa, xb)
    local g = capacity_gap_tps(xa, xb)
    if not g then return nil end
    local o = decision.gap_order(g, decision.capacity_touch_tps(xa, xb))
    if not o then return false, nil, nil, g end
    -- (the least gap's two ends, as the gap reads them: its noise widening kept)
    local la, ha = decision.capacity_span(capacity_in_tps(xa))
    local lb, hb = decision.capacity_span(capacity_in_tps(xb))
    -- (and the largest, the higher run's upper end against the other's lower end)
    if o == "b" then return o, ha + g.lo_rps, ha, g, hb, la end
    return o, hb - g.hi_rps, hb, g, ha, lb
  end
  local order, hf, lf, g, hh, ll = order_of(ca, cb)
  if order == nil then return nil end
  -- (the gap the tok/s spans allow, in words: decision.gap_pct_text; its numbers, which may be
  -- unbounded, stay out of comparison.json)
  local gap_text = g and decision.gap_pct_text(g, T.helpers.pct) or nil
  if not order then return { order = false, gap_text = gap_text } end
  local te = token_gap and decision.token_order_explained { gap = token_gap, hi = order, slo = model.slo,
    unit_key = "capacity_tok_s", min_effect = model.min_effect, hi_fig = hf, lo_fig = lf,
    reorder = recompute and function(slo2)
      local c2 = recompute(order, slo2)
      if not c2 then return nil end
      local o2, h2, l2 = order_of(order == "a" and c2 or ca, order == "b" and c2 or cb)
      return o2 or nil, h2, l2
    end }
  return { order = order, token_explained = te or nil, hi_fig = hf, lo_fig = lf, gap_text = gap_text,
    max_pct = hh ~= math.huge and ll and decision.order_gap_pct(ll, hh) or nil }
end

-- The gap two capacities in output tok/s allow (capacity_gap_tps) held to the runs' tokens
-- (decision.token_held_gap, token54), for "no clear difference" beside the tok/s row's own gap:
-- each run the tokens favour in tok/s (decision.token_order_explained with unit_key
-- "capacity_tok_s": the SLO limits they move read again, recompute(side, slo2), and the tok/s
-- divided by how far they can raise it; shorter outputs never do) has its span's lower end
-- held. nil where they favour neither, or a tok/s is unknown.
function M.tps_token_held(model, ca, cb, token_gap, recompute)
  local g, ta_, tb_ = capacity_gap_tps(ca, cb)
  if not (g and token_gap) then return nil end
  local la, ha = decision.capacity_span(ta_)
  local lb, hb = decision.capacity_span(tb_)
  return decision.token_held_gap(g, { la = la, ha = ha, lb = lb, hb = hb }, function(side)
    local c2
    local te = decision.token_order_explained { gap = token_gap, hi = side, slo = model.slo,
      unit_key = "capacity_tok_s", min_effect = model.min_effect,
      reorder = recompute and function(slo2)
        c2 = recompute(side, slo2)
        return nil
      end }
    if not te then return nil end
    local lo = side == "a" and la or lb
    local t2 = c2 and capacity_in_tps(c2)
    if t2 then
      lo = math.min(lo, (decision.capacity_span(t2)))
    elseif te.limits then
      lo = 0 -- (its capacity at the moved limits unknown in tok/s: no lower end)
    end
    return te, lo / (1 + te.unit_pct / 100)
  end)
end

-- A capacity with every rate divided by k (its accelerators), for the per-GPU gap.
local function capacity_per(c, k)
  local out = {}
  for f, x in pairs(c) do out[f] = x end
  for _, f in ipairs { "rps", "last_passing_rps", "first_failing_rps", "ceiling_rps", "lowest_rps" } do
    if type(c[f]) == "number" then out[f] = c[f] / k end
  end
  if c.rate_noise then
    -- (the noise of its figure's and ceiling's rates per GPU: decision.ceiling_noise_order)
    out.rate_noise = {}
    for f, x in pairs(c.rate_noise) do out.rate_noise[f] = x end
    for _, f in ipairs { "fig_lo", "top_hi", "ceiling_hi" } do
      if type(c.rate_noise[f]) == "number" then out.rate_noise[f] = c.rate_noise[f] / k end
    end
  end
  -- (a span and its ends per GPU: the noise's, and the one with the intervals known to run
  -- narrow counted as unknown, narrow_check's)
  local function span_per(src)
    local x = { lo = src.lo / k, hi = src.hi / k }
    for _, e in ipairs { "upper_ends", "lower_ends" } do
      if src[e] then
        x[e] = {}
        for f, v in pairs(src[e]) do x[e][f] = v end
        for _, f in ipairs { "rps", "last_passing_rps", "first_failing_rps" } do
          if type(src[e][f]) == "number" then x[e][f] = src[e][f] / k end
        end
      end
    end
    return x
  end
  if c.noise_band then out.noise_band = { lo = c.noise_band.lo / k, hi = c.noise_band.hi and c.noise_band.hi / k } end
  if c.noise then
    out.noise = span_per(c.noise)
    out.noise.unclear, out.noise.narrow, out.noise.mean_deff = c.noise.unclear, c.noise.narrow, c.noise.mean_deff
    out.noise.pct_deff = c.noise.pct_deff
    if c.noise.coverage then
      -- (each point's achieved rate per GPU too, as narrow_check reads it beside the order's)
      local cov = {}
      for i, e in ipairs(c.noise.coverage) do
        cov[i] = {}
        for f, v in pairs(e) do cov[i][f] = v end
        if type(e.achieved_rps) == "number" then cov[i].achieved_rps = e.achieved_rps / k end
      end
      out.noise.coverage = json.array(cov)
    end
    if c.noise.if_narrow_open then out.noise.if_narrow_open = span_per(c.noise.if_narrow_open) end
  end
  if c.interval then
    out.interval = { lo = c.interval.lo / k, hi = c.interval.hi / k, top = c.interval.top and c.interval.top / k,
      bottom = c.interval.bottom and c.interval.bottom / k, sign = c.interval.sign }
    out.interval.text = interval_text(out.interval, false, " per GPU")
    -- each end's achieved rates per GPU as well (decision.capacity_touch compares them)
    for _, e in ipairs { "upper_ends", "lower_ends" } do
      if c.interval[e] then
        out.interval[e] = {}
        for f, x in pairs(c.interval[e]) do out.interval[e][f] = x end
        for _, f in ipairs { "rps", "last_passing_rps", "first_failing_rps" } do
          if type(c.interval[e][f]) == "number" then out.interval[e][f] = c.interval[e][f] / k end
        end
      end
    end
  end
  return out
end
M.capacity_per = capacity_per -- (treatments.lua orders per GPU by the same rule)

-- The Delta and Change cells of a capacity row (unit " req/s" or " tok/s") from the range
-- both runs' spans allow (decision.capacity_gap: each run's measured bracket, or the
-- repeats' range, within its ceiling): "+23.45 to +76.42 req/s", "+22.7 % to +83.7 %"; a
-- range across 0 says that the measured loads cannot order the runs; "at least +X" where
-- the higher run has no upper end. nil where the gap has no lower end (keep the N/A).
local function capacity_range_cells(g, unit, digits)
  if not g or g.lo_rps ~= g.lo_rps or g.hi_rps ~= g.hi_rps then return nil end
  local num = function(x) return T.helpers.signed(x, digits) end
  local pct = T.helpers.pct
  -- an end with no bound (a span with no upper end, or one left open where a pass and a
  -- fail of unknown noise decide the sign, decision.open_gap): the range as far as it goes,
  -- "either may be higher" where it reaches both sides of 0, never a point delta of the
  -- figures beside an open order
  local pct_text = decision.gap_pct_text(g, pct)
  if g.lo_rps == -math.huge and g.hi_rps == math.huge then
    local any = "N/A (the spans allow any gap: either may be higher)"
    return any, any
  end
  if g.lo_rps == -math.huge then
    -- (an end at exactly 0: B below A, by how much unknown; "at most +0.00" read as a gap of 0)
    if math.abs(g.hi_rps) < 1e-9 then return "0 or less, no lower end", pct_text or "N/A (A may be 0)" end
    if g.hi_rps <= 0 then return "at most " .. num(g.hi_rps) .. unit, pct_text or "N/A (A may be 0)" end
    return "at most " .. num(g.hi_rps) .. unit .. " (either may be higher)", pct_text or "N/A (A may be 0)"
  end
  if g.hi_rps == math.huge then
    -- (an end at exactly 0: the spans meet at one load, the higher run passing where the
    -- other failed: not "either may be higher", which reads against the order)
    if math.abs(g.lo_rps) < 1e-9 then return "0 or more, no upper end", pct_text or "N/A (A may be 0)" end
    if g.lo_rps < 0 then
      return num(g.lo_rps) .. unit .. " or more, no upper end (either may be higher)", pct_text or "N/A (A may be 0)"
    end
    return "at least " .. num(g.lo_rps) .. unit, g.lo_pct and ("at least " .. pct(g.lo_pct)) or "N/A"
  end
  if g.lo_rps == g.hi_rps then
    return num(g.lo_rps) .. unit, g.lo_pct and pct(g.lo_pct) or "N/A (A is 0)"
  end
  local d = num(g.lo_rps) .. " to " .. num(g.hi_rps) .. unit
  -- (a bound above the other's ceiling within the noise of the rates, its end beside 0 run
  -- to the noise's: decision.capacity_gap's within_noise)
  if g.within_noise then return d .. " (within the noise of the rates: either may be higher)", pct_text end
  -- an end at exactly 0 as decision.gap_pct_text says it: "-41.84 req/s up to 0"
  if math.abs(g.hi_rps) < 1e-9 then d = num(g.lo_rps) .. unit .. " up to 0" end
  if math.abs(g.lo_rps) < 1e-9 then d = "0 up to " .. num(g.hi_rps) .. unit end
  if g.lo_rps < 0 and g.hi_rps > 0 then d = d .. " (the measured loads cannot order them)" end
  -- a percentage range whose upper end comes of A's span starting near 0 is "at least"
  return d, decision.gap_pct_text(g, pct) or "N/A (A may be 0)"
end

-- A capacity gap's two cells (capacity_range_cells: the Delta, then the Change) as one
-- comparison.csv note, "B - A from the measured loads: +3.15 to +9.40 req/s, at least +64.9 %".
-- Where both cells are the same words with no figure ("0 or less, no lower end": an end at
-- exactly 0, the other open), they are said once, with both units: "0 or less in req/s and
-- in %, no lower end" (audit47: "0 or less, no lower end, 0 or less, no lower end" read as a
-- repeat, without a unit); a Delta's "(why)" is kept once.
local function gap_note(label, rd, rp, unit)
  local d, why = rd:match("^(.-) (%(.*%))$")
  d = d or rd
  local tail = why and not rp:find(why, 1, true) and (" " .. why) or ""
  if d == rp then
    local head, rest = d:match("^(0 or %a+), (.+)$")
    if head then return ("%s: %s in %s and in %%, %s%s"):format(label, head, unit, rest, tail) end
    return ("%s, in %s and in %%: %s%s"):format(label, unit, d, tail)
  end
  return ("%s: %s, %s%s"):format(label, d, rp, tail)
end

-- The Delta of a capacity row where a repeat's failures leave the order open (od:
-- decision.capacity_evidence's overdispersed, each side's cause: decision.failures_kind):
-- "N/A (a crashed repeat decides whether the error-rate SLO holds: either may be higher)" only
-- where the files say errors; timeouts are a queue near capacity (decision.FAILURE_WORDS).
local function crash_delta(od)
  local seen, parts, plural = {}, {}, false
  for _, d in ipairs { od.a or false, od.b or false } do
    local w = d and decision.failure_words(d.cause, d)
    if w and not seen[w.subject] then
      seen[w.subject], parts[#parts + 1], plural = true, w.subject, plural or w.plural
    end
  end
  return ("N/A (%s decide%s whether the error-rate SLO holds: either may be higher)"):format(
    table.concat(parts, " and "), (plural or #parts > 1) and "" or "s")
end

-- The Delta and Change cells; an N/A says why (the figures beside it say more).
local function delta_cells(va, vb, d)
  if va == nil and vb == nil then return "N/A (unknown on both sides)", "N/A" end
  if va == nil or vb == nil then return ("N/A (unknown for %s)"):format(va == nil and "A" or "B"), "N/A" end
  return T.helpers.signed(vb - va, d or 2), va ~= 0 and T.helpers.pct((vb - va) / math.abs(va) * 100)
    or zero_change(vb)
end

-- The differences between the runs' requests ("input tokens per request: mean 9999.0 vs
-- 204.0"), or nil when they match.
local function workloads_differ(model)
  local d = model.workload_differs
  return d and #d > 0 and table.concat(d, "; ") or nil
end

local function headline(model)
  local rows = {}
  local cap, sat, g = model.capacity, model.saturation, model.per_gpu
  local differ = workloads_differ(model)
  -- key: what the row is, whatever its label says (the labels of the totals change where
  -- the GPU counts differ): capacity, capacity_tps, max_sustained, capacity_per_gpu,
  -- max_sustained_per_gpu, output_tps_per_gpu, per_gpu (both counts unknown), gpus
  local function add(key, label, va, vb, ta, tb, d)
    local is_cap = key == "capacity" or key == "capacity_tps" or key == "capacity_per_gpu"
    local is_sus = key == "max_sustained" or key == "max_sustained_per_gpu"
    local dt, pt = delta_cells(va, vb, d)
    -- the delta in the row's unit ("+76.43 req/s"), as its figures are
    if va ~= nil and vb ~= nil then
      dt = dt .. ((key == "capacity_tps" or key == "output_tps_per_gpu") and " tok/s" or " req/s")
    end
    -- "≥ X" against a number is a lower bound: no delta
    if (is_bound(cap.a) or is_bound(cap.b)) and is_cap and va ~= nil and vb ~= nil then
      dt, pt = "N/A (a lower bound)", "N/A"
      if is_bound(cap.a) and is_bound(cap.b) then dt = "N/A (both lower bounds)" end
    end
    if is_cap and (cap.a.kind == "below_lowest" or cap.b.kind == "below_lowest") then
      dt, pt = "N/A (below the lowest load measured)", "N/A"
    end
    -- a capacity below the lowest load has no figure but a bracket, from 0 up to that load:
    -- the gap's range holds it as comparison.json's does (one run below, the other above)
    local ka = va ~= nil or cap.a.kind == "below_lowest"
    local kb = vb ~= nil or cap.b.kind == "below_lowest"
    -- a capacity is known only within its measured bracket: the gap is the range both allow
    if key == "capacity" and ka and kb then
      local rd, rp = capacity_range_cells(cap.gap, " req/s", 2)
      if rd then dt, pt = rd, rp end
    elseif key == "capacity_per_gpu" and ka and kb and cap.per_gpu then
      -- the same range, each side per its own accelerators
      local rd, rp = capacity_range_cells(cap.per_gpu.gap, " req/s", 2)
      if rd then dt, pt = rd, rp end
    elseif key == "capacity_tps" then
      -- the req/s row's evidence in tok/s (capacity_gap_tps): the same-load rule read off the
      -- req/s capacities' points, only where both tok/s spans end at that load too, and the
      -- noise of the rates where the req/s spans are apart only within it
      local tg, ta_, tb_ = capacity_gap_tps(cap.a, cap.b)
      local rd, rp = capacity_range_cells(tg, " tok/s", 1)
      if rd then dt, pt = rd, rp
      elseif va ~= nil and vb ~= nil and not (ta_ and tb_) and cap.a.kind == "interpolated"
        and cap.b.kind == "interpolated" and (cap.a.interval or cap.b.interval) then
        -- both figures are known (the means' readings); what is missing is the repeats' range
        -- in tok/s (a load point around it lacks its tok/s), and a point delta of the means
        -- would hide the range
        dt, pt = "N/A (the repeats' range in tok/s is unknown: a load point it is read from lacks its output tok/s; "
          .. "see the row above)", "N/A"
      elseif va ~= nil and vb ~= nil and not (ta_ and tb_) and cap.a.kind == "interpolated"
        and cap.b.kind == "interpolated" then
        dt, pt = "N/A (the tok/s of the measured loads around it are unknown)", "N/A"
      end
    end
    local la, lb = sat.a.none and sat.a.max_sustained_rps, sat.b.none and sat.b.max_sustained_rps
    if (la or lb) and va ~= nil and vb ~= nil and is_sus then
      dt, pt = "N/A (a lower bound)", "N/A"
      if la and lb then dt = "N/A (both lower bounds)" end
    elseif va ~= nil and vb ~= nil and is_sus then
      dt, pt = sustained_range(sat.a, sat.b, va, vb, dt, pt)
    elseif is_sus and (va ~= nil or vb ~= nil) then
      -- one run saturated at its lowest load, the other's figure above its ceiling: what the
      -- loads know of the gap, never "unknown for A" beside the evidence that orders them
      local sg = key == "max_sustained" and sat.gap
        or (g.a.gpus and g.b.gpus and sustained_low_gap(sat.a, sat.b, g.a.gpus, g.b.gpus, model.min_effect))
      local rd, rp = capacity_range_cells(sg or nil, " req/s", 2)
      if rd then dt, pt = rd, rp end
    end
    -- both capacities below their lowest loads: each lies somewhere from 0 up to its lowest
    -- load's rate, so the gap those allow ("-1.78 to +1.34 req/s", "at least -100.0 %") is no
    -- figure of either run: N/A, as the evidence beside it says (not compared)
    if is_cap and lp.both_below_lowest(cap.a, cap.b) then
      dt, pt = "N/A (both below their lowest load)", "N/A"
    end
    -- capacities (and whole-run tok/s) of different workloads: no gap between them is a
    -- difference of the setups (a run of longer outputs delivers more tok/s per request)
    local is_tps = key == "output_tps_per_gpu"
    if differ and ((va ~= nil and vb ~= nil) or (is_cap and ka and kb)) and (is_cap or is_sus or is_tps) then
      dt, pt = "N/A (the workloads differ)", "N/A"
    end
    -- a broken run (its health check failed): no gap is a finding
    if model.broken and #model.broken > 0 and (is_cap or is_sus) then
      dt, pt = "N/A (a broken run)", "N/A"
    end
    -- a repeat whose failures (a crash, timeouts: crash_delta says which) decide whether the
    -- error-rate SLO holds at a load where a capacity could lie
    -- (decision.capacity_evidence's overdispersed): the capacities read off
    -- the means move with it, so no gap between them is a finding, as the Verdict says
    -- (audit40 #2: "at least +0.22 req/s" beside "not shown to differ")
    if is_cap and cap.evidence and cap.evidence.overdispersed and not tostring(dt):match("^N/A") then
      dt, pt = crash_delta(cap.evidence.overdispersed), "N/A"
    end
    -- the Change says why it is missing, as the Delta beside it does (never a bare N/A)
    if pt == "N/A" and tostring(dt):match("^N/A %(") then pt = dt end
    rows[#rows + 1] = { key = key, label = label, a = va, b = vb, a_text = ta, b_text = tb, delta_text = dt,
      pct_text = pt }
  end
  if #model.slo > 0 then
    local phrase = decision.capacity_phrase(model.slo)
    add("capacity", "Capacity at SLO (" .. phrase .. ")", cap.a.rps, cap.b.rps, capacity_text(cap.a),
      capacity_text(cap.b))
    local function tps(c)
      if c.kind == "interpolated" or is_bound(c) then
        if not c.output_tps then return "N/A (output tok/s unknown at the load points it is read from)" end
        -- a bound from its floor: the fewest tok/s at its load point or above, where the
        -- capacity may lie (loadpoints.capacity's floor_tps), said where it is below the
        -- point's own ("≥ 10,472.5" read as a bound where a higher load delivered 8,510.4)
        local fell
        if is_bound(c) then
          if not c.floor_tps then
            return "N/A (output tok/s unknown at a load point above the bound's, where the capacity may lie)"
          end
          if c.floor_tps < c.output_tps then
            fell = ("%s tok/s at its bound's load point, as few as %s at a load above it"):format(
              T.helpers.num(c.output_tps, 1), T.helpers.num(c.floor_tps, 1))
          end
        end
        -- an interpolated figure of one run per load is an estimate, as in the req/s row
        local about = c.kind == "interpolated" and not c.interval and c.last_passing_rps and "about " or ""
        local fig = is_bound(c) and ("≥ " .. T.helpers.num(c.floor_tps, 1) .. " tok/s")
          or (about .. T.helpers.num(c.output_tps, 1) .. " tok/s")
        -- the repeats' range beside it, in tok/s, as the req/s row gives it in req/s
        local iv = c.interval
        if iv and iv.lo_tps and iv.hi_tps then
          local range = interval_text(iv, true)
          if is_bound(c) and range == fig and not fell then return fig end
          local clause = iv.lo_tps == 0 and iv.hi_tps == math.huge and "the repeats cannot narrow it down: "
            or "the repeats allow "
          return ("%s%s (%s%s%s)"):format(fig, is_bound(c) and " by the means" or "", fell and (fell .. "; ") or "",
            clause, range)
        end
        -- an estimate or a bound whose load points' 95 % intervals widen its span (c.noise,
        -- the req/s cell's noise_clause): that span in tok/s, the one the gap beside it is read
        -- from, as the req/s cell gives it (a bound's "≥" then the measured one, said so)
        local x = noise_clause(c) and capacity_in_tps(c)
        if x then
          local lo, hi = decision.capacity_span(x)
          local span = span_words(lo, hi, function(v) return T.helpers.num(v, 1) end, " tok/s")
          return ("%s%s (%s%s)"):format(is_bound(c) and "measured " or "", fig, fell and (fell .. "; ") or "",
            with_narrow("with each load's 95 % interval: " .. span, c))
        end
        local note = narrow_note(c)
        if fell and c.ceiling_tps and c.ceiling_tps ~= math.huge then
          -- its span, as the gap beside it reads it: up to the most the run delivered
          return ("%s–%s tok/s (%s)"):format(T.helpers.num(c.floor_tps, 1), T.helpers.num(c.ceiling_tps, 1),
            with_narrow(fell, c))
        end
        return (fell or note) and ("%s (%s)"):format(fig, with_narrow(fell, c)) or fig
      end
      if c.kind == "below_lowest" then
        if not c.lowest_tps then return ("N/A (%s; its output tok/s is unknown)"):format(below_note(c)) end
        -- what the req/s row says of the repeats (capacity_text), in tok/s: a bound of the
        -- means that the repeats cannot place is said so here too
        local fig, iv = "< " .. T.helpers.num(c.lowest_tps, 1) .. " tok/s", c.interval
        if iv and iv.hi == math.huge then
          return ("%s by the means (%s; too noisy to bound: the repeats allow any capacity from below the lowest "
            .. "load to beyond the highest load tried)"):format(fig, below_note(c))
        elseif iv and ((iv.lower_ends and iv.lower_ends.kind == "below_lowest")
          or (c.lowest_rps and iv.hi <= c.lowest_rps)) then
          return ("%s (%s, even at the lower ends of the repeats' 95 %% intervals)"):format(fig, below_note(c))
        elseif iv then
          local range = iv.lo_tps and iv.hi_tps and ("; the repeats allow " .. interval_text(iv, true))
            or "; the repeats' range in tok/s is unknown, see the row above"
          return ("%s by the means (%s%s)"):format(fig, below_note(c), range)
        end
        return ("%s (%s)"):format(fig, with_narrow(below_note(c), c))
      end
      return capacity_text(c)
    end
    -- a bound's figure is its floor in tok/s (what "≥" holds for), an estimate's its own
    local function tps_fig(c) if is_bound(c) then return c.floor_tps end return c.output_tps end
    add("capacity_tps", "Capacity at SLO, output tok/s", tps_fig(cap.a), tps_fig(cap.b), tps(cap.a), tps(cap.b), 1)
  else
    local why = "N/A (no SLO given: --slo or slo: in the info files)"
    rows[#rows + 1] = { key = "capacity", label = "Capacity at SLO", a_text = why, b_text = why,
      delta_text = "N/A (unknown on both sides)", pct_text = "N/A" }
  end
  local function sus_fig(s) if not s.max_sustained_na then return s.max_sustained_rps end end
  add("max_sustained", "Max sustained throughput", sus_fig(sat.a), sus_fig(sat.b), sustained_text(sat.a),
    sustained_text(sat.b))
  if not g.a.gpus and not g.b.gpus then
    local why = model.plan_gpus and "N/A (accelerator counts unknown: runs.a.info and runs.b.info: {gpus: N} in the "
      .. "plan, or gpus: N in the info files)" or "N/A (accelerator counts unknown: gpus: N in the info files)"
    rows[#rows + 1] = { key = "per_gpu", label = "Per GPU", a_text = why, b_text = why,
      delta_text = "N/A (unknown on both sides)", pct_text = "N/A" }
    return rows
  end
  -- per GPU, each figure exactly as its total says it, divided by the run's accelerators: a
  -- lower bound stays one, an estimate keeps its measured bracket, and a range from the
  -- repeats (or the means' reading it qualifies) stays beside it; every N/A why
  local function gcap(c, gp)
    if not gp.gpus then return metrics.na(gp.reason) end
    if c.kind == "non_monotone" or not (c.kind == "interpolated" or is_bound(c) or c.kind == "below_lowest") then
      return capacity_text(c)
    end
    return capacity_text(capacity_per(c, gp.gpus))
  end
  if #model.slo > 0 then
    add("capacity_per_gpu", "Capacity at SLO per GPU", g.a.capacity_rps, g.b.capacity_rps, gcap(cap.a, g.a),
      gcap(cap.b, g.b))
  end
  local function gsus(gp, s)
    if not gp.gpus then return metrics.na(gp.reason) end
    return sustained_text(s, gp.gpus)
  end
  add("max_sustained_per_gpu", "Max sustained throughput per GPU", g.a.max_sustained_rps, g.b.max_sustained_rps,
    gsus(g.a, sat.a), gsus(g.b, sat.b))
  -- the whole-run figure; where it is unknown but the load points have theirs, the N/A
  -- points to them with their range, so that it never stands unexplained beside them
  local function gtps(gp, points)
    if not gp.gpus then return metrics.na(gp.reason) end
    if not gp.output_tps then
      local lo, hi
      for _, p in ipairs(points or {}) do
        local v = p.output_tps_per_gpu
        if v then lo, hi = math.min(lo or v, v), math.max(hi or v, v) end
      end
      local why = "whole-run output tok/s unknown: " .. tostring(gp.output_tps_why)
      if lo then
        why = why .. ("; per load point it is known: %s tok/s per GPU, Output tok/s/GPU in the Load Curves"):format(
          lo == hi and T.helpers.num(lo, 1) or (T.helpers.num(lo, 1) .. "–" .. T.helpers.num(hi, 1)))
      end
      return metrics.na(why)
    end
    -- a run of repeats of one load point: the mean over them, as the Performance Results say
    return T.helpers.num(gp.output_tps, 2) .. " tok/s"
      .. (gp.output_tps_repeats and (" (mean of %d)"):format(gp.output_tps_repeats) or "")
  end
  add("output_tps_per_gpu", "Output tok/s per GPU (whole run)", g.a.output_tps, g.b.output_tps,
    gtps(g.a, model.load_points.a), gtps(g.b, model.load_points.b), 1)
  local function gtext(gp)
    if not gp.gpus then return "unknown" end
    return tostring(gp.gpus) .. (gp.conflict and (" (" .. gp.conflict .. ")") or "")
  end
  rows[#rows + 1] = { key = "gpus", label = "GPUs", a_text = gtext(g.a), b_text = gtext(g.b), delta_text = "",
    pct_text = "" }
  if g.a.gpus and g.b.gpus and g.a.gpus ~= g.b.gpus then
    -- different accelerator counts: the totals compare different amounts of hardware, so the
    -- per-GPU rows (like for like on cost) lead, and the totals follow, labelled as totals
    local lead, rest = {}, {}
    for _, r in ipairs(rows) do
      if r.key:match("_per_gpu$") then
        lead[#lead + 1] = r
      else
        if r.key == "capacity" or r.key == "capacity_tps" or r.key == "max_sustained" then
          r.label = "Total " .. r.label:sub(1, 1):lower() .. r.label:sub(2)
        end
        rest[#rest + 1] = r
      end
    end
    for _, r in ipairs(rest) do lead[#lead + 1] = r end
    rows = lead
  end
  return rows
end

-- "p = 0.0123", or with a family of several tests "p = 0.0123, Holm-adjusted 0.0861".
local function p_text(p, p_adj, size)
  if p_adj == nil or not size or size <= 1 then return decision.p_is(p) end
  return ("%s, Holm-adjusted %s"):format(decision.p_is(p), fmt_p(p_adj))
end

local function lower_label(label)
  return (label:lower():gsub("^ttft", "TTFT"):gsub("tpot", "TPOT"):gsub("itl", "ITL"):gsub("ntpot", "NTPOT"))
end

-- The kind of a performance row, as the Summary groups the rows it found no clear
-- difference in: "latency", "throughput" or "errors".
local SUMMARY_KIND_ORDER = { latency = 1, throughput = 2, errors = 3 }
local function summary_kind(key)
  if key:match("^throughput") then return "throughput" end
  if key == "error_rate_pct" then return "errors" end
  return "latency"
end

-- The SLO metric tested at the matched load: the first SLO (in the SLOs' own order, which
-- does not depend on which run is A) that limits either run's capacity.
local function matched_key(model)
  local la, lb = model.capacity.a.limiting, model.capacity.b.limiting
  for _, s in ipairs(model.slo) do
    if s.key == la or s.key == lb then return s.key end
  end
  return la or lb
end

-- The load the Summary compares the limiting SLO metric at: the runs' common load
-- (llmd.loadpoints.common_load, treatments.lua's rule): the lower of the two max sustained
-- throughputs when it lies within both runs' measured ranges, so that no latency compared is
-- an overloaded server's while both runs sustain more than their lowest load; else the
-- highest load inside both ranges, with the run past its saturation there said. The load is
-- on the runs' own load axis (llmd.loadpoints.axis): the offered concurrency or rate when
-- both were driven by it (past saturation every load achieves about the same rate, so that
-- the achieved rate would pair two different overloads), else the achieved rate. Each run's
-- value is its own point's there (within REPEAT_TOLERANCE), else interpolated linearly on
-- that axis between its two measured loads around it (an estimate, untested). The load
-- does not depend on which run is A. Returns {load =, axis =, rps = (the achieved axis: the
-- load), rps_a =, rps_b = (the offered axes: each run's achieved rate there, its point's or
-- interpolated; the runs' mean would be a rate neither achieved), sustained =,
-- a = {value, point | lo, hi}, b = ...}, or nil and why.
local function matched_load(A, B, pa, pb, key, sa, sb, slo)
  -- (a load point that failed requests, beyond the error-rate SLO or else 5 %, is no load
  -- sustained: llmd.loadpoints.failing; nor one a run answered short with its failures in
  -- bursts, a queue timing requests out: decision.point_unsustained, the tests' rule)
  local function side(pts, s, run)
    return { points = pts, saturation = s,
      unsustained = function(p) return decision.point_unsustained(s, p, run, #pts) end }
  end
  local cl, none = lp.common_load({ side(pa, sa, A.run), side(pb, sb, B.run) }, { slo = slo })
  local label = metrics.get(key).label
  if not cl then
    if none.unknown then return nil, "an achieved rate is unknown" end
    -- the ranges in the labels' order, so that the text does not depend on which run is A
    local parts = {}
    for i, x in ipairs { A, B } do
      parts[i] = { x.label, ("%s %s"):format(x.label, lp.range_text(none.ranges[i].lo, none.ranges[i].hi, none.axis)) }
    end
    table.sort(parts, function(x, y) return x[1] < y[1] end)
    return nil, ("no load lies within both runs' measured ranges of %s (%s)"):format(
      none.axis == "concurrency" and "concurrency" or none.axis == "rate" and "offered rates" or "achieved rates",
      parts[1][2] .. "; " .. parts[2][2])
  end
  local res = { load = cl.load, axis = cl.axis, sustained = cl.sustained, failing = cl.failing }
  local lacking, rates = {}, {}
  for _, x in ipairs { { "a", A, pa }, { "b", B, pb } } do
    local v, interp, p, q = lp.at(x[3], cl.load, key, cl.axis)
    if v == nil then
      -- a point measured at that load with the figure N/A: its own reason (newuser44: "not
      -- measured at that load" of NTPOT measured there, N/A for its summary's 0-token requests)
      local why
      for _, pt in ipairs(x[3]) do
        local l = lp.load_of(pt, cl.axis)
        if not why and l and lp.close(l, cl.load) and pt.na and pt.na[key] then
          why = ("N/A at its load point %d: %s"):format(pt.index, pt.na[key])
        end
      end
      lacking[#lacking + 1] = { x[2].label, why }
      interp = nil
    end
    res[x[1]] = { value = v, interpolated = interp, point = not interp and p or nil, lo = interp and p or nil,
      hi = interp and q or nil }
    rates[x[1]] = not cl.rps and lp.at(x[3], cl.load, "achieved_rps", cl.axis) or nil
  end
  if #lacking > 0 then
    table.sort(lacking, function(x, y) return x[1] < y[1] end)
    local at = cl.axis == "achieved" and rate_text(cl.load) or lp.load_text(cl.axis, cl.load)
    local parts = {}
    for _, l in ipairs(lacking) do
      parts[#parts + 1] = ("%s (%s)"):format(l[1], l[2] or "not measured at that load, nor at the loads on both "
        .. "sides of it")
    end
    -- (both without a point there: one reason for both, as before)
    if #lacking == 2 and not lacking[1][2] and not lacking[2][2] then
      parts = { ("%s and %s (not measured at that load, nor at the loads on both sides of it)"):format(lacking[1][1],
        lacking[2][1]) }
    end
    return nil, ("%s is not known at %s for %s"):format(label, at, table.concat(parts, " and "))
  end
  res.rps, res.rps_a, res.rps_b = cl.rps, rates.a, rates.b
  return res
end

-- The limiting metric compared at the runs' common load (matched_load), with Mann-Whitney
-- when both runs measured it and kept per-request samples there, else Welch on their
-- repeats; a value interpolated between two measured loads has neither, and is untested.
-- Without a test, reason says why (in comparison.json and the Summary).
local function matched_point(model, A, B, points_a, points_b, saved)
  local key = matched_key(model)
  if not key then
    model.matched_point = { reason = "no SLO metric limits either run's capacity at the loads measured" }
    return nil
  end
  local sat = model.saturation
  local ml, why = matched_load(A, B, points_a, points_b, key, sat.a, sat.b, model.slo)
  if not ml then
    model.matched_point = { key = key, reason = why }
    return nil
  end
  local rps, rps_a, rps_b, pa, pb = ml.rps, ml.rps_a, ml.rps_b, ml.a.point, ml.b.point
  -- a measured point is past saturation by its place on the load axis, whatever its achieved
  -- rate (flat past saturation); an interpolated figure by the load it is placed at
  local past_a = pa and lp.point_saturated(sat.a, pa) or not pa and lp.saturated_on(sat.a, points_a, ml.axis, ml.load)
  local past_b = pb and lp.point_saturated(sat.b, pb) or not pb and lp.saturated_on(sat.b, points_b, ml.axis, ml.load)
  -- a measured point a run is not known to have sustained, by the rule of the Performance
  -- Results' tests (decision.point_unsustained): past saturation (past_a, past_b), past a load
  -- whose saturation could not be judged, or answered short with its failures in bursts (a
  -- queue timing requests out): no load "both runs sustained", and no test there (audit44:
  -- before, saturation alone was checked here)
  local un_a = pa and decision.point_unsustained(sat.a, pa, A.run, #points_a)
  local un_b = pb and decision.point_unsustained(sat.b, pb, B.run, #points_b)
  if (un_a or un_b) and ml.sustained then ml.sustained, ml.failing = false, nil end
  if not (pa and pb) then
    -- interpolated on a side: the figures, said with the measured loads they lie between
    local res = { key = key, rps = rps, rps_a = rps_a, rps_b = rps_b, load = ml.load, axis = ml.axis, a = ml.a.value,
      b = ml.b.value,
      sustained = ml.sustained, sustained_failing = ml.failing, point_a = pa and pa.index or nil,
      point_b = pb and pb.index or nil, interpolated = {} }
    for _, side in ipairs { "a", "b" } do
      local x = ml[side]
      if x.interpolated then
        res.interpolated[side] = { lo_rps = x.lo.achieved_rps, hi_rps = x.hi.achieved_rps, lo_point = x.lo.index,
          hi_point = x.hi.index, lo_load = lp.load_of(x.lo, ml.axis), hi_load = lp.load_of(x.hi, ml.axis) }
      end
    end
    res.reason = "an interpolated figure has no per-request samples or repeats of its own to test"
    if past_a or past_b then res.saturated = { a = past_a or nil, b = past_b or nil } end
    model.matched_point = res
    return res
  end
  local res = { key = key, rps = rps, rps_a = rps_a, rps_b = rps_b, load = ml.load, axis = ml.axis,
    a = lp.field(pa, key), b = lp.field(pb, key),
    point_a = pa.index, point_b = pb.index, sustained = ml.sustained, sustained_failing = ml.failing }
  -- a load kept in although a run answered it short in bursts of server errors (fixb46): its
  -- test said so, as the rows say it (decision.kept_bursts_text); saved (res.kept, below) only
  -- where a test or an identical pair is said there, as the Summary says it (fixh47)
  local kept = decision.kept_bursts({ pa }, { pb }, sat, { a = A.run, b = B.run }, { a = #points_a, b = #points_b })
  -- no load both runs measured is below both saturations: which run is past its own here
  if past_a or past_b then
    -- past saturation the latency measures the queue that grew for the length of the test,
    -- and how long the test ran and how far past its limit each run was driven, not the
    -- server: no verdict, and no test in the family
    res.saturated = { a = past_a or nil, b = past_b or nil }
    res.reason = "past saturation the latency measures the queue, not the server"
    model.matched_point = res
    return res
  end
  if un_a or un_b then
    -- not past saturation, but not known to be sustained either: which run, and why
    local short, short_points, unjudged = {}, {}, {}
    for _, x in ipairs { { un_a, A, pa }, { un_b, B, pb } } do
      if x[1] == "short" then
        short[#short + 1], short_points[#short_points + 1] = x[2].label, x[3]
      elseif x[1] then
        unjudged[#unjudged + 1] = x[2].label
      end
    end
    local parts = {}
    if #short > 0 then
      -- (what the files say the failures were: a queue only for timeouts, fixl45)
      local w = decision.SHORT_BURST_WORDS[decision.points_failures_kind(short_points)]
      parts[#parts + 1] = ("%s answered short there, failed requests in bursts (%s) making up the rest: %s, and %s")
        :format(table.concat(short, " and "), w.cause, w.count, w.latency)
    end
    if #unjudged > 0 then
      parts[#parts + 1] = ("%s %s at or past a load whose saturation could not be judged"):format(
        table.concat(unjudged, " and "), #unjudged == 1 and "is" or "are")
    end
    res.unsustained = { a = un_a or nil, b = un_b or nil }
    res.reason = ("not a load both runs sustained: %s"):format(table.concat(parts, "; "))
    model.matched_point = res
    return res
  end
  local kind = decision.sample_kind(key)
  -- the error rate: Fisher's exact test on the point's request counts (its repeats' summed),
  -- as the row's test on the whole run's
  local function counts(p)
    local ok, failed, n = p.values.requests_ok, p.values.requests_failed, p.repeats or 1
    if ok and failed then
      return { requests_ok = math.floor(ok * n + 0.5), requests_failed = math.floor(failed * n + 0.5) }
    end
  end
  -- (failures in bursts: their design effect in send order, the larger side's, as the row's)
  local count_test, count_why
  if key == "error_rate_pct" and counts(pa) and counts(pb) then
    -- (each side's own too, so that a reason names the run too dependent to test)
    local da, db = decision.point_deff(A.run, pa, "failed", #points_a), decision.point_deff(B.run, pb, "failed",
      #points_b)
    count_test, count_why = decision.count_test(counts(pa), counts(pb), decision.u_design_effect(da, db), da, db,
      decision.bursts_cause { pa, pb })
  end
  -- failures that vary between the point's repeats beyond chance: the pooled counts are no
  -- test (decision.failure_dispersion); the repeats' rates are, below
  local od = count_test and not count_test.identical
    and decision.dispersion_text(decision.failure_dispersion(A.run, { pa }), decision.failure_dispersion(B.run, { pb }),
      A.label, B.label)
  if od then count_test = nil end
  -- (each test's effect with its interval, as the rows': the threshold reads the whole interval)
  if count_test and not count_test.identical and count_test.counts then
    count_test.row_effect = decision.count_effect(count_test.counts)
  end
  if count_test then count_test.counts = nil end
  if count_test then
    res.test = count_test
    if count_test.identical then res.identical, res.identical_note, res.test = true, count_test.note, nil end
  elseif kind and pa.repeats == 1 and pb.repeats == 1 then
    -- the point's samples (decision.point_samples: its stage's; a run whose one load point is
    -- its one measured stage has them as the whole run's, per-request data read as a whole,
    -- inference-perf's) and their design effects in send order (decision.point_deff_known, the
    -- rule the Performance Results' tests read): near saturation a request's latency is set by
    -- the queue the requests before it left. k: a key of sample_deff, kind's without it; kind
    -- .. "_mean": the values' own, a mean's interval's; nil where unknown.
    local function deff(run, p, points, k)
      local d, known = decision.point_deff_known(run, p, k or kind, #points)
      return known and d or nil
    end
    local xa, xb = decision.point_samples(A.run, pa, kind, #points_a),
      decision.point_samples(B.run, pb, kind, #points_b)
    local dep
    -- (a load kept in though a run answered it short in bursts of server errors: its
    -- dependence said by that cause, never the queue's, decision.pair_kept_bursts)
    local bursts = decision.pair_kept_bursts({ a = pa, b = pb }, sat, { a = A.run, b = B.run, na = #points_a,
      nb = #points_b }) or nil
    if kind == "itl" and xa and xb then
      res.test, dep = decision.itl_test(xa, xb, pa.values.requests_ok, pb.values.requests_ok, deff(A.run, pa, points_a),
        deff(B.run, pb, points_b), { bursts = bursts })
    else
      res.test, dep = decision.mann_whitney(xa, xb, deff(A.run, pa, points_a), deff(B.run, pb, points_b), {
        a = decision.point_ttft_lag1(A.run, pa, kind, #points_a), b = decision.point_ttft_lag1(B.run, pb, kind,
          #points_b), bursts = bursts })
    end
    if res.test then
      local ma, mb = deff(A.run, pa, points_a, kind .. "_mean"), deff(B.run, pb, points_b, kind .. "_mean")
      local qk = decision.quantile_deff_key(key)
      local qa, qb = qk and deff(A.run, pa, points_a, qk), qk and deff(B.run, pb, points_b, qk)
      res.test.row_effect = decision.samples_effect(key, xa, xb, decision.u_design_effect(
        deff(A.run, pa, points_a), deff(B.run, pb, points_b)), kind == "itl" and res.test.gaps_per_request or 1,
        ma and mb and decision.u_design_effect(ma, mb) or nil, qa and qb and decision.u_design_effect(qa, qb) or nil)
    end
    if not res.test then res.reason = dep or "no per-request samples from both runs at this load" end
  elseif pa.ci and pb.ci and pa.ci[key] and pb.ci[key] then
    res.test = decision.sized_repeat_test(pa.ci[key].samples, pb.ci[key].samples)
    if res.test and od then res.test.overdispersed = od end
    if res.test and res.test.identical then
      -- the same value in every repeat of both: said, but no test (and none in the family)
      res.identical, res.test = true, nil
    end
  else
    res.reason = od and (od .. "; no repeats of this load in both runs to test instead")
      or count_why or "no per-request samples or repeats from both runs at this load"
  end
  -- analyze.lua from saved state (no samples): the test the last report made at this point,
  -- only where it is a test of the samples (a point without repeats on either side): the
  -- repeats' values are saved, and a point they cannot test stays untested, with why
  if not res.test and not res.identical and type(saved) == "table" and saved.key == key
    and kind and pa.repeats == 1 and pb.repeats == 1
    and type(saved.test) == "table" and saved.axis == res.axis and type(saved.load) == "number"
    and lp.close(saved.load, res.load)
    and type(saved.test.p) == "number" then
    res.test, res.reason = saved.test, nil
    -- (saved before winners were held to the effect's whole interval: none, and said why)
    res.test.row_effect = decision.read_saved_effect(res.test.row_effect)
    if type(res.test.row_effect) ~= "table" then res.test.row_effect = decision.saved_effect(res.a, res.b) end
  elseif not res.test and not res.identical and type(saved) == "table" and saved.key == key
    and kind and pa.repeats == 1 and pb.repeats == 1 and saved.axis == res.axis and type(saved.load) == "number"
    and lp.close(saved.load, res.load) and type(saved.reason) == "string"
    and not (A.run.overall.samples and B.run.overall.samples) then
    -- and why it made none, which its samples told (too dependent to test): the saved state
    -- has no samples to tell it again
    res.reason = saved.reason
  end
  if #kept > 0 and (res.test or res.identical) then res.kept = kept end
  model.matched_point = res
  return res
end

-- Without an SLO there is no limiting metric to test at a matched load, but the runs' common
-- load (matched_load: the highest both sustained, else the highest in both ranges) still
-- shows how their latencies compare there: TTFT, TPOT and end-to-end p90, each run's own
-- figure (its point's, or interpolated), untested (descriptive: no test joins the family).
-- Returns {load =, axis =, rps =, rps_a =, rps_b =, interpolated = {a =, b =}, sustained =,
-- rows = {{key =, a =, b =}, ...}}, or nil when no such load holds a latency of both.
-- Where p90 of one of them is unknown in either run there (vLLM's benchmark run with
-- --metric-percentiles that leave 90 out: exp-7's files hold p95 and p99 only), the first of
-- p95, p99 both runs have stands in (row.instead_of: the p90's key, said beside the figure);
-- a metric none of them is known of is in res.missing ({key =, why =}: matched_load's
-- reason for its p90). No latency at all: nil, nil and why (said in the Verdict and JSON,
-- never a silent null).
M.NO_SLO_LATENCY_KEYS = { "ttft_p90_ms", "tpot_p90_ms", "latency_p90_ms" }
M.NO_SLO_LATENCY_STAND_INS = { "p95", "p99" }
local function no_slo_latency(A, B, pa, pb, sat)
  local res, at
  local missing = {}
  for _, p90 in ipairs(M.NO_SLO_LATENCY_KEYS) do
    local key, instead_of = p90, nil
    local ml, why = matched_load(A, B, pa, pb, p90, sat.a, sat.b, {})
    for _, q in ipairs(M.NO_SLO_LATENCY_STAND_INS) do
      if ml and ml.a.value and ml.b.value then break end
      local k = p90:gsub("_p90_", "_" .. q .. "_")
      local m2 = matched_load(A, B, pa, pb, k, sat.a, sat.b, {})
      if m2 and m2.a.value and m2.b.value then ml, key, instead_of = m2, k, p90 end
    end
    if not (ml and ml.a.value and ml.b.value) then
      missing[#missing + 1] = { key = p90, why = why or "not known in both runs at their common load" }
    end
    if ml and ml.a.value and ml.b.value then
      if not res then
        at = { a = ml.a.point, b = ml.b.point }
        res = { load = ml.load, axis = ml.axis, rps = ml.rps, rps_a = ml.rps_a, rps_b = ml.rps_b,
          sustained = ml.sustained, rows = {},
          interpolated = { a = ml.a.interpolated and true or nil, b = ml.b.interpolated and true or nil } }
        -- (a point a run is not known to have sustained, by the tests' rule: past saturation,
        -- unjudged, or answered short with its failures in bursts, decision.point_unsustained;
        -- before fixi44, saturation alone)
        if ml.sustained then
          local un_a = ml.a.point and decision.point_unsustained(sat.a, ml.a.point, A.run, #pa)
          local un_b = ml.b.point and decision.point_unsustained(sat.b, ml.b.point, B.run, #pb)
          if un_a or un_b then res.sustained = false end
        end
      end
      res.rows[#res.rows + 1] = { key = key, a = ml.a.value, b = ml.b.value, instead_of = instead_of }
    end
  end
  if res and #missing > 0 then res.missing = missing end
  if not res then
    -- (one reason where they share it, else each metric's own)
    local same = true
    for _, m in ipairs(missing) do if m.why ~= missing[1].why then same = false end end
    local parts = {}
    for _, m in ipairs(missing) do
      -- (matched_load's reasons name their metric: "TTFT p90 is not known at ...")
      parts[#parts + 1] = same and lower_label(metrics.get(m.key).label) or m.why
    end
    return nil, nil, ("no latency known in both runs at their common load (%s%s; nor their p95 or p99)"):format(
      table.concat(parts, same and ", " or "; "), same and (": " .. missing[1].why) or "")
  end
  return res, at
end

-- What the no-SLO latency figures leave out, said once after them (nl: M.no_slo_latency):
-- the percentile that stands in for p90 where a run's files lack it ("; p95 in place of p90,
-- which a run's files lack"), and the metrics known of neither ("; end-to-end latency p90
-- not known in both runs"; the reason in comparison.json's no_slo_latency.missing).
local function no_slo_missing_text(nl)
  local out, qs, seen = "", {}, {}
  for _, r in ipairs(nl.rows) do
    local q = r.instead_of and r.key:match("_(p%d+)_")
    if q and not seen[q] then qs[#qs + 1], seen[q] = q, true end
  end
  if #qs > 0 then out = ("; %s in place of p90, which a run's files lack"):format(table.concat(qs, " or ")) end
  if nl.missing then
    local names = {}
    for _, m in ipairs(nl.missing) do names[#names + 1] = lower_label(metrics.get(m.key).label) end
    out = out .. ("; %s not known in both runs"):format(table.concat(names, ", "))
  end
  return out
end

-- Why no test is made at the no-SLO common load, said beside its untested figures: each
-- figure's own reason (nl: M.no_slo_latency; at: its load points {a =, b =}, a side nil
-- where interpolated; rows: the Performance Results rows; pa, pb: the runs' load points):
-- a figure interpolated between load points has no samples of its own; one without
-- per-request samples from both runs there has nothing to test; one whose test left this
-- load out (too dependent: the row's sig.dependent) is untested there; else the row's test
-- pools this load with the others, and without an SLO no test of one load is made. One
-- reason for all, or each with the figures it holds for: "no test at this load: TTFT p90:
-- requests there too dependent to test ...; TPOT p90, end-to-end latency p90: the test ...".
local NO_SLO_WHY = {
  interpolated = "interpolated between load points, no samples of its own to test",
  no_samples = "no per-request samples from both runs there",
  dependent = "requests there too dependent to test (in send order neighbours are alike, the queue's doing), so "
    .. "the test leaves this load out",
  -- (a load a run answered short in bursts of server errors, kept in: no queue's, decision.pair_kept_bursts)
  dependent_bursts = "requests there too dependent to test (in send order neighbours are alike, at a load a run "
    .. "answered short with failed requests in bursts of server errors: the files record errors, no timeouts), so the "
    .. "test leaves this load out",
  pooled = "the test pools this load with the others, and without an SLO none is made of one load alone",
  identical = "the same figure in both runs, nothing to test",
  row_untested = "its Performance Results row has no test (its note says why)",
}
local function no_slo_untested_why(nl, at, rows, A, B, pa, pb)
  local order, names = {}, {}
  for _, r in ipairs(nl.rows) do
    local why
    if not (at and at.a and at.b) then
      why = "interpolated"
    else
      local load, tested = decision.load_point_text(at.a), false
      for _, row in ipairs(rows) do
        if row.key == r.key and row.sig and row.sig.p then tested = true end
        for _, d in ipairs(row.key == r.key and row.sig and row.sig.dependent or {}) do
          if d == load then why = "dependent" end
        end
        for _, d in ipairs(row.key == r.key and row.sig and row.sig.dependent_bursts or {}) do
          if d == load then why = "dependent_bursts" end
        end
      end
      -- (a test made, this load in it: pooled, also where analyze.lua reads it back without samples;
      -- with one load point a run, the test is this load's: tested here, no reason (audit41))
      local kind = decision.sample_kind(r.key)
      if not why and not tested and not (kind and decision.point_samples(A.run, at.a, kind, #pa)
        and decision.point_samples(B.run, at.b, kind, #pb)) then
        why = "no_samples"
      end
      if not why and #pa == 1 and #pb == 1 then
        why = tested and "this_load" or r.a == r.b and "identical" or "row_untested"
      end
      why = why or "pooled"
    end
    -- (a figure whose load its row's test left out: its test's result is the other loads',
    -- said so beside it, left_out_text)
    if why == "dependent" or why == "dependent_bursts" then
      nl.left_out = nl.left_out or {}
      nl.left_out[r.key] = true
    end
    if why ~= "this_load" then
      if not names[why] then order[#order + 1], names[why] = why, {} end
      table.insert(names[why], lower_label(metrics.get(r.key).label))
    end
  end
  if #order == 0 then return nil end
  if #order == 1 and #names[order[1]] == #nl.rows then return "no test at this load: " .. NO_SLO_WHY[order[1]] end
  local parts = {}
  for _, why in ipairs(order) do
    parts[#parts + 1] = ("%s: %s"):format(table.concat(names[why], ", "), NO_SLO_WHY[why])
  end
  return "no test at this load: " .. table.concat(parts, "; ")
end

-- How B's latencies compare with A's at the no-SLO common load (nl: M.no_slo_latency), the
-- Verdict's and the Summary's word for it. No test is made there, so no direction is named:
-- "the same" (every figure equal), "within the practical threshold" (every difference below
-- min_effect %, read as the rows' effect size is: decision.magnitude of B against A; and
-- where the Performance Results (perf: model.perf) tested that metric, its effect's whole
-- interval below min_effect too: figures a hair apart whose interval reaches past the
-- threshold are not shown to be within it, verify43b's "within the practical threshold of
-- 2.0 %" beside 95 % intervals of -5.5 % to +2.8 %), else "untested".
local function no_slo_how(nl, min_effect, perf)
  local same, within = true, true
  for _, r in ipairs(nl.rows) do
    if r.a ~= r.b then
      same = false
      local e = decision.effect_pct(r.a, r.b)
      if not (e and decision.magnitude(e) < min_effect) then within = false end
      for _, pr in ipairs(perf or {}) do
        if pr.key == r.key and pr.p_value and pr.verdict ~= "untested" and not (pr.effect_lo and pr.effect_hi
          and decision.magnitude(pr.effect_lo) < min_effect and decision.magnitude(pr.effect_hi) < min_effect) then
          within = false
        end
      end
    end
  end
  return same and "the same" or within and "within the practical threshold" or "untested"
end

-- Why the runs' latencies are not compared without an SLO (nl: M.no_slo_latency, not
-- sustained): at the highest load both measured, which run is past its saturation there or
-- not known to have sustained it (sa, sb: their saturations; pa, pb: their points).
local function no_slo_unsustained(nl, A, B, sa, sb, pa, pb)
  local who = {}
  for _, x in ipairs { { A, sa, pa }, { B, sb, pb } } do
    local s = x[2]
    if lp.saturated_on(s, x[3], nl.axis, nl.load) then
      who[#who + 1] = ("%s is past its saturation there"):format(x[1].label)
    elseif s and (s.unknown or s.sustained_upto) and not (s.sustained_upto and x[3][s.sustained_upto]
      and lp.load_of(x[3][s.sustained_upto], nl.axis) >= nl.load) then
      who[#who + 1] = ("%s is not known to have sustained it (%s)"):format(x[1].label, s.unknown
        and "its saturation is unknown" or ("load point %d could not be judged"):format(s.sustained_upto + 1))
    end
  end
  if #who == 0 then who[1] = "a run failed requests beyond the limit at or below it" end
  return ("no load both runs measured is one both are known to have sustained: at %s, the highest load both measured, "
    .. "%s, so a latency there is a queue's, not the server's"):format(matched_load_text(nl, A, B),
    table.concat(who, " and "))
end

-- The Performance Results' test of metric key, where the table tests it: "Performance
-- Results, over all load points: A better, p < 1e-9" (which loads it pooled,
-- decision.test_scope_text: "over 3 of 5 load points (2 left out: ...)", "at the one load
-- point each run has (4/s)"), for a sentence
-- that quotes that metric's figures at one load, untested there, so that it points to the
-- test the report made rather than leave a difference the table finds reading as untested
-- only; a row whose test left out the loads where a run was overloaded (decision.verdict's
-- sustained_only): what it found at the loads both sustained. nil where the row has no test
-- (untested, identical, not comparable, follows the sends).
-- A row whose test at the loads both sustained is significant but names no winner
-- (decision.effect_size's "small", "unsure" or "opposite"), in a few words: "a difference too
-- small to matter (+1.2 % within the load points tested, below the 2 % threshold)".
local function sustained_size_text(r, A, B)
  local t = r.min_effect or decision.MIN_EFFECT
  local thr = ("%g"):format(t)
  local e = r.effect_pct and decision.pct_near(r.effect_pct, t) or "N/A"
  if r.sustained_size == "small" then
    -- (shown within the threshold at both ends of its interval: decision.effect_size)
    local p3 = decision.pcts_near({ r.effect_pct, r.effect_lo, r.effect_hi }, t)
    return ("a difference too small to matter (%s within the load points tested, %d %% interval %s to %s, within %s "
      .. "at both ends)"):format(p3[1], r.effect_level or decision.EFFECT_LEVEL, p3[2], p3[3],
      decision.threshold_text(r.effect_lo < 0 and r.effect_lo or r.effect_hi, t))
  elseif r.sustained_size == "opposite" then
    return ("no winner: the test finds %s's values lower, this figure differs the other way within the load points "
      .. "(%s)"):format(r.sustained_lower == "a" and A.label or B.label, e)
  end
  -- (as decision.effect_size's: the difference B against A, the threshold where a fall reaches it)
  local fall = r.effect_pct and r.effect_pct < 0
    and (" (a fall reaches it at %+.2f %%)"):format(decision.fall_threshold(t)) or ""
  local who = r.sustained_lower == "a" and A.label or B.label
  if r.effect_pct and decision.magnitude(r.effect_pct) < t then
    -- (the estimate within the threshold, its interval reaching beyond it or unbounded: it may
    -- matter, decision.effect_size)
    if not r.effect_lo then
      return ("%s's values are lower (%s %s against %s) within the load points tested, within the %s %% practical "
        .. "threshold%s, but the interval of that difference is unbounded, so it may be beyond it: no winner")
        :format(who, B.label, e, A.label, thr, fall)
    end
    return ("%s's values are lower (%s %s against %s) within the load points tested, within the %s %% practical "
      .. "threshold%s, but the %d %% interval of that difference, %s to %s, reaches beyond it, so it may matter: no "
      .. "winner"):format(who, B.label, e, A.label, thr, fall, r.effect_level or decision.EFFECT_LEVEL,
      decision.pct_near(r.effect_lo, t), decision.pct_near(r.effect_hi, t))
  end
  if not r.effect_lo then
    return ("%s's values are lower (%s %s against %s) within the load points tested, but the interval of that "
      .. "difference is unbounded, so it may be smaller than the %s %% practical threshold%s: no winner"):format(who,
      B.label, e, A.label, thr, fall)
  end
  return ("%s's values are lower (%s %s against %s) within the load points tested, but the %d %% interval of that "
    .. "difference, %s to %s, takes in differences smaller than the %s %% practical threshold%s, so it may be too "
    .. "small to matter: no winner"):format(who, B.label, e, A.label, r.effect_level or decision.EFFECT_LEVEL,
    decision.pct_near(r.effect_lo, t), decision.pct_near(r.effect_hi, t), thr, fall)
end

-- A row whose test covered only some of the load points (decision.test_scope_text: "over 3 of 4
-- load points (1 left out: too dependent to test at 30/s)"): the effect that test measured over
-- the loads it covered (the row's effect, decision's row_effect: B against A within the points,
-- 100 (b / a - 1) as the Change column) with its interval, for a sentence that names a winner
-- on that test, so that it never quotes the gap of the whole-run figures, which pool loads the
-- test did not compare. Returns the effect ("+30.0 %"), the scope's words and the interval's (", 95 %
-- interval +25.4 % to +26.8 %"), or nil where the test covered every load point (or the one
-- each run has), or the row has no effect.
-- whole: also where the test covered every load point (a winner's: the effect that decided,
-- within the load points, never the whole-run figures' gap, which pools their mix).
local function partial_test_effect(r, whole)
  local s = type(r.sig) == "table" and r.sig.scope
  if type(s) ~= "table" or type(s.tested) ~= "table" or s.one_each
    or not whole and #s.tested >= (s.total or 0) then
    return nil
  end
  if not r.effect_pct then return nil end
  local level = ("%d"):format(r.effect_level or decision.EFFECT_LEVEL)
  local iv = r.effect_lo and r.effect_hi and (", %s %% interval %s to %s"):format(level, T.helpers.pct(r.effect_lo),
    T.helpers.pct(r.effect_hi)) or (", its %s %% interval unbounded: %s"):format(level,
    r.effect_why or "too few independent requests")
  return T.helpers.pct(r.effect_pct), decision.test_scope_text(r.sig), iv
end

-- The Performance Results' test beside a no-SLO common load's figure (tested: perf_test_text)
-- whose load that test left out (nl.left_out, no_slo_untested_why's "dependent"): the figure is
-- untested, the test is the other loads' (newuser47b V3: "TTFT p90 +280.9 % (Performance
-- Results, at 5 of the 6 loads ... (1 left out: too dependent to test at 8/s): no clear
-- difference ...)" read as "+281 % is no clear difference", the figure being the left-out load's).
local function left_out_text(nl, key, tested)
  if not (tested and nl.left_out and nl.left_out[key]) then return tested end
  return "untested at this load, which its test left out; at the other loads, " .. tested
end

local perf_test_text_of
-- (a test per request of a run measured once where the other repeated, decision.once_text: what
-- it rests on, in short, beside it wherever it is quoted: audit50 F2)
-- apart (optional, a table): that note set in apart.once instead, for a sentence that quotes
-- several such tests to say it once (once_sentence).
local function perf_test_text(perf, key, A, B, apart)
  local text = perf_test_text_of(perf, key, A, B)
  if not text then return nil end
  for _, r in ipairs(perf or {}) do
    local once = r.key == key and decision.once_short(r.sig, A.label, B.label)
    if once and apart then
      apart.once = once
    elseif once then
      return text .. "; " .. once
    end
  end
  return text
end
-- The sentence that says the note perf_test_text set apart (apart.once) once: "" without it.
local function once_sentence(apart)
  if not apart.once then return "" end
  return (" Those tests are %s."):format(apart.once)
end
function perf_test_text_of(perf, key, A, B)
  for _, r in ipairs(perf or {}) do
    local p = r.key == key and r.p_value and not r.identical and not r.follows_sends and not r.broken
      and p_text(r.p_value, r.p_adjusted, r.family_size)
    -- (which of the loads both sustained it tested: decision.test_scope_text)
    if p and r.sustained_winner then
      return ("Performance Results, %s: %s's lower, %s"):format(decision.test_scope_text(r.sig),
        r.sustained_winner == "a" and A.label or B.label, p)
    elseif p and r.sustained_size then
      -- significant there, but no winner: by how much, against the threshold (decision.effect_size)
      return ("Performance Results, %s: %s, %s"):format(decision.test_scope_text(r.sig),
        sustained_size_text(r, A, B), p)
    elseif p and r.verdict == "not comparable" and r.token_explained then
      -- (a difference the requests' token lengths can explain, decision.token_effect: the row's
      -- test said, never left to read as untested beside its figure; fixh52)
      return ("Performance Results, %s: no winner, the requests' token lengths can explain the difference (the "
        .. "row's note), %s"):format(decision.test_scope_text(r.sig), p)
    elseif p and r.verdict == "not comparable" and r.sig and r.sig.overloaded and r.sig.strata then
      return ("Performance Results, %s: no clear difference, %s"):format(decision.test_scope_text(r.sig), p)
    elseif p and r.verdict ~= "untested" and r.verdict ~= "not comparable" then
      -- (which loads it pooled: "over all load points" only where it tested every one; where
      -- not every one, the effect it measured over those, not a figure's gap at this load alone)
      local e, _, iv = partial_test_effect(r)
      -- (a verdict text that already gives its p, "no clear difference (p = 0.0219, Holm-adjusted
      -- 0.0875 over 4 tests)", not given it twice: verify43b)
      local said_p = r.verdict_text:find("(p = ", 1, true) or r.verdict_text:find("(p < ", 1, true)
      return ("Performance Results, %s: %s%s%s"):format(decision.test_scope_text(r.sig), r.verdict_text,
        said_p and "" or (", " .. p), e and ("; %s %s vs %s over those loads%s"):format(B.label, e, A.label, iv) or "")
    end
  end
end

-- The no-SLO common load's untested figures where their reason is not known (no_slo_untested_why).
local NO_SLO_UNTESTED_WHY = "no test at this load"

-- What the no-SLO latency clause says of its figures' tests (nl.untested_why: each untested
-- figure's reason, nil where every figure's test is this load's, one load point a run, as
-- audit41's "b1's latencies are untested" beside "p = 3.9e-06" was; tested: how many carry
-- the Performance Results' test beside them, perf_test_text): nil when nothing is untested.
local function no_slo_untested_note(nl, tested)
  if nl.untested_why then return nl.untested_why end
  if tested == 0 then return NO_SLO_UNTESTED_WHY end
  return nil
end

-- The Summary's sentence of M.no_slo_latency (nil without one): "At 92.19 req/s offered
-- (...), the highest load both runs sustained, B's latencies against A's are untested at
-- this load: TTFT p90 83.7 ms vs 64.4 ms (+30.0 %), ... (B − A; no test at this load: ...).
-- --slo ... gives each run's capacity." A metric the Performance Results test (perf: model.perf)
-- carries that test's result beside its figures, so that the sentence and the table never
-- read differently. Where no load both sustained was measured: that the latencies are not
-- compared, and why.
local function no_slo_latency_text(nl, A, B, min_effect, perf)
  if not nl then return nil end
  if nl.unknown then
    return ("The runs' latencies are not compared: %s. Give --slo for each run's capacity within it."):format(
      nl.unknown)
  end
  if not nl.sustained then
    return ("The runs' latencies are not compared: %s. Give --slo (e.g. --slo ttft_p90_ms=200) for each run's "
      .. "capacity within it."):format(nl.unsustained or "no load both runs sustained was measured")
  end
  local parts, n_tested, apart = {}, 0, {}
  for _, r in ipairs(nl.rows) do
    local d = r.a ~= 0 and (r.b - r.a) / math.abs(r.a) * 100 or nil
    local tested = left_out_text(nl, r.key, perf_test_text(perf, r.key, A, B, apart))
    if tested then n_tested = n_tested + 1 end
    parts[#parts + 1] = (r.a == r.b and ("%s %s for both%s"):format(lower_label(metrics.get(r.key).label),
      metrics.format(r.key, r.a), tested and (" (" .. tested .. ")") or "")
      or ("%s %s vs %s%s"):format(lower_label(metrics.get(r.key).label), metrics.format(r.key, r.b),
        metrics.format(r.key, r.a), (d or tested) and (" (%s)"):format(table.concat({ d and T.helpers.pct(d),
          tested }, "; ")) or ""))
  end
  local how = no_slo_how(nl, min_effect, perf)
  -- (a difference no test was made of is untested, never "not shown to differ", which reads
  -- as sameness)
  local what = how == "the same" and "the runs' latencies are the same"
    or how == "within the practical threshold" and ("%s's latencies are within the practical threshold of %s %% of "
      .. "%s's"):format(B.label, decision.thr_num(min_effect), A.label)
    or n_tested == 0 and ("%s's latencies against %s's are untested at this load"):format(B.label, A.label)
    or ("%s's latencies against %s's"):format(B.label, A.label)
  local note = no_slo_untested_note(nl, n_tested)
  return ("At %s, the highest load both runs sustained, %s: %s (%s − %s%s)%s.%s Give --slo (e.g. --slo "
    .. "ttft_p90_ms=200) for each run's capacity within it."):format(matched_load_text(nl, A, B), what,
    table.concat(parts, ", "), B.label, A.label, note and ("; " .. note) or "", no_slo_missing_text(nl),
    once_sentence(apart))
end
M.no_slo_latency_text = no_slo_latency_text

-- The matched-load test's identity in the family: a test is what it tests, the samples of
-- one kind (Mann-Whitney) or one metric's repeat values (Welch), of which data. When each
-- run has one load point, the matched point is the whole run, and the test is the very
-- test of the Performance Results rows of that kind or key (same samples, same p): it gets
-- their id and counts once. Otherwise it is a test of its own, "matched_point:<key>".
-- (rows: the performance rows, before finish_row; pa, pb: the runs' load points.)
local function matched_test_id(mp, rows, pa, pb)
  local t = mp.test
  local id
  if #pa == 1 and #pb == 1 then
    if t.test == "mann_whitney" and pa[1].repeats == 1 and pb[1].repeats == 1 then
      id = decision.test_id(mp.key, { test = "mann_whitney" })
    elseif t.test == "welch" or t.test == "fisher" or t.test == "exact_mann_whitney" then
      id = decision.test_id(mp.key, { test = t.test })
    end
  end
  if id then
    -- a row in the family with that test, on the same numbers; else it is a test of its own
    -- (the rows may have been tested otherwise: Mann-Whitney on samples, Welch here)
    local same = false
    for _, r in ipairs(rows) do
      local rt = r.decide.test
      if rt and in_family(r) and decision.test_id(r.key, rt) == id then
        if rt.p ~= t.p then same = false; break end
        same = true
      end
    end
    if not same then id = nil end
  end
  return id or ("matched_point:" .. mp.key), id ~= nil
end

-- Why two capacities name no higher one: one measurement per load (no spread to test), or
-- a run without repeats at some load point.
local function no_test_text(A, B, ca, cb)
  local one = "one run per load"
  local wa, wb = ca.interval_why, cb.interval_why
  if wa == nil and wb == nil then
    -- ranges from repeats on both sides (no reason for either to lack one): say the repeats
    -- there were, never "one run per load for B" (truth55: B had 2 repeats at every load)
    local function reps(S)
      local lo, hi = math.huge, 0
      for _, p in ipairs(S.run and lp.points(S.run) or {}) do
        local r = p.repeats or 1
        lo, hi = math.min(lo, r), math.max(hi, r)
      end
      if hi == 0 then return S.label end
      return ("%s per load for %s"):format(lo == hi and tostring(lo) or (lo .. "-" .. hi), S.label)
    end
    return ("repeats at every load point (%s, %s): no test"):format(reps(A), reps(B))
  end
  if (wa == nil or wa == one) and (wb == nil or wb == one) then
    if wa and wb then return "one run per load: no test" end
    return ("one run per load for %s: no test"):format(wa and A.label or B.label)
  end
  local parts = {}
  if wa then parts[#parts + 1] = ("for %s, %s"):format(A.label, wa) end
  if wb then parts[#parts + 1] = ("for %s, %s"):format(B.label, wb) end
  return "no test: " .. table.concat(parts, "; ")
end

M.no_test_text = no_test_text -- (for tests)

-- The same reason for a capacity sentence that names no higher run: "one run per load",
-- "one run per load for x", "for x, 1 of 3 load points with one run only".
local function untested_text(A, B, ca, cb)
  local t = no_test_text(A, B, ca, cb)
  return (t:gsub(": no test$", ""):gsub("^no test: ", ""))
end

local same_load_text = decision.same_load_text

-- Where the measured loads place a capacity by its means (decision.means_span: the last
-- load that met the SLOs to the first that failed one, a bound up to its run's ceiling),
-- per: " per GPU" or "": "between 20.00 and 30.00 req/s", "at 30.00 req/s or above",
-- "below 10.00 req/s".
local function bracket_text(c, per)
  local lo, hi = decision.means_span(c)
  per = per or ""
  if hi == math.huge then return ("at %s%s or above"):format(rate_text(lo), per) end
  if lo == 0 then return ("below %s%s"):format(rate_text(hi), per) end
  return ("between %s and %s%s"):format(T.helpers.num(lo, 2), rate_text(hi), per)
end

-- Why two capacities whose ranges from repeats overlap are not shown to differ where the
-- load steps cannot order them (decision.capacity_evidence's steps_cannot_order): both
-- means cross the SLOs between loads that overlap, so no repeats could order them.
-- Why runs A and B (labels a, b) a pass and a fail by their means at the same offered load
-- (sl: decision.capacity_evidence's open_same_load) leave unordered: no steps to blame; what is
-- short is the repeats sl.open names (decision.same_load_pass_fail): at that load, within their
-- noise, or at another load, where one run's repeats leave room for the other side of the SLOs
-- (audit47 t7_12_13: every repeat of both settled at 8 req/s, one of B's met the SLO at 9 req/s).
-- The one source of these words: the Verdict, the Summary, the Headline's evidence (CSV,
-- comparison.json) and treatments.lua's ranking.
function M.same_load_open_text(a, b, sl)
  local hi, lo = sl.passed == "b" and b or a, sl.passed == "b" and a or b
  local function load(x)
    return sl.load_type == "concurrency" and ("concurrency %g"):format(x) or ("%g req/s offered"):format(x)
  end
  local name = { a = a, b = b }
  local head = ("%s met the SLOs and %s failed them by their means at the same offered load, %s"):format(hi, lo,
    load(sl.offered))
  local here, there = {}, {}
  for _, e in ipairs(sl.open or {}) do
    if lp.close(e.offered, sl.offered) then here[#here + 1] = e else there[#there + 1] = e end
  end
  -- (nothing named, or both runs' repeats there: within the noise of the repeats at that load)
  if #there == 0 and #here ~= 1 then
    return head .. ", within the noise of the repeats there: no other load steps would order them, but more repeats "
      .. "at that load could settle it"
  end
  -- "8 and 9 req/s offered", "concurrency 4 and 8"
  local function loads_text(xs)
    table.sort(xs)
    local at = {}
    for i, v in ipairs(xs) do at[i] = ("%g"):format(v) end
    local list = #at == 1 and at[1] or (table.concat(at, ", ", 1, #at - 1) .. " and " .. at[#at])
    return sl.load_type == "concurrency" and ("concurrency " .. list) or (list .. " req/s offered")
  end
  -- (the loads to repeat, each run's together, in A's then B's order)
  local rep = { a = {}, b = {} }
  for _, e in ipairs(sl.open or {}) do
    local seen = false
    for _, v in ipairs(rep[e.run]) do seen = seen or lp.close(v, e.offered) end
    if not seen then table.insert(rep[e.run], e.offered) end
  end
  local out = { head }
  if #here == 1 then
    out[#out + 1] = (", within the noise of %s's repeats there"):format(name[here[1].run])
  elseif #here > 1 then
    out[#out + 1] = ", within the noise of both runs' repeats there"
  else
    out[#out + 1] = ", as both runs' repeats there bear out"
  end
  -- (the loads of one run on one side together: "at 8 and 9 req/s offered, lower loads")
  local groups, order = {}, {}
  for _, e in ipairs(there) do
    local k = e.run .. e.room
    if not groups[k] then groups[k], order[#order + 1] = { run = e.run, room = e.room, at = {} }, k end
    table.insert(groups[k].at, e.offered)
  end
  for i, k in ipairs(order) do
    local g = groups[k]
    local side = g.room == "meet" and "higher" or "lower"
    out[#out + 1] = ("; %s %s's repeats at %s, %s, leave room for it %s them there"):format(i == 1 and "but" or "and",
      name[g.run], loads_text(g.at), #g.at == 1 and ("a " .. side .. " load") or (side .. " loads"),
      g.room == "meet" and "meeting" or "failing")
  end
  local more = {}
  for _, x in ipairs { "a", "b" } do
    if #rep[x] > 0 then more[#more + 1] = ("of %s at %s"):format(name[x], loads_text(rep[x])) end
  end
  out[#out + 1] = (": more repeats %s could settle it"):format(table.concat(more, " and "))
  return table.concat(out)
end

local function steps_reason(A, B, ca, cb, per, ev)
  -- (a pass and a fail at the same offered load, decision.same_load_pass_fail)
  local sl = ev and ev.open_same_load
  if sl then return M.same_load_open_text(A.label, B.label, sl) end
  return ("the measured loads place %s's capacity by its means %s and %s's %s, so the load steps are too coarse "
    .. "to order them, whatever the repeats"):format(A.label, bracket_text(ca, per), B.label, bracket_text(cb, per))
end

-- Why two capacities the measured loads order are about the same: the order is shown, but by
-- a margin within the practical threshold at both ends of the gap (decision.capacity_evidence's
-- below_threshold): "the measured loads put rateB's capacity above concA's (rateB sustained
-- 3.52 req/s and concA never achieved more than 3.50 req/s at any load), but only 3.52 req/s
-- against 3.50 req/s (+0.6 % of their mean), and at most +1.4 %, both within the practical
-- threshold of 2.0 %".
local function below_threshold_reason(model, A, B, ev, per)
  per = per or ""
  return decision.below_threshold_reason(ev, { a = A.label, b = B.label, slo = lp.capacity_slo(model.slo),
    min_effect = model.min_effect,
    rate = function(x) return rate_text(x) .. per end, pct = T.helpers.pct })
end

-- decision.least_below_reason, with this report's labels and figures.
-- Why an order of the capacities (or of max sustained throughputs) names no run where the runs'
-- token lengths can explain it (decision.capacity_token_check's token_explained, te): "the
-- measured loads put B above A, but the requests differ (...), which alone can explain it: ...".
-- (what would compare them, decision.token_order_advice: this report has a capacity in output
-- tok/s row where an SLO is given; in output tok/s itself, te.unit, "the measured loads put B
-- above A in output tok/s")
local function token_order_reason(model, A, B, te)
  local H, L = te.higher == "b" and B or A, te.higher == "b" and A or B
  return ("the measured loads put %s above %s%s, %s"):format(H.label, L.label,
    te.unit == "tok/s" and " in output tok/s" or "", decision.token_order_text(te, H.label,
    L.label, model.min_effect, function(k, v) return metrics.format(k, v) end,
    { compare = true, tps_row = #(model.slo or {}) > 0 }))
end
M.token_order_reason = token_order_reason

-- Why two capacities (or max sustained throughputs) within the practical threshold are not
-- about the same held to their tokens (decision.capacity_token_same's token_same, ts; fixh53):
-- decision.token_same_text with this report's labels, figures and advice.
local function token_same_reason(model, A, B, ts)
  local F, O = ts.favoured == "b" and B or A, ts.favoured == "b" and A or B
  local function fmt(k, v) return metrics.format(k, v) end
  return decision.token_same_text(ts, F.label, O.label, model.min_effect, fmt,
    { compare = true, tps_row = #(model.slo or {}) > 0 })
end
M.token_same_reason = token_same_reason

-- The gap of two capacities whose ranges from repeats overlap, held to the runs' tokens
-- (decision.capacity_token_gap's token_held, token54), in words after the measured gap: "" where
-- the runs' requests alike (decision.token_held_gap_text with this report's labels and figures).
-- h: the held gap to say instead of ev's (the tok/s row's, M.tps_token_held's).
function M.token_held_text(A, B, ev, h)
  return decision.token_held_gap_text(h or (ev and ev.token_held), T.helpers.pct, A.label, B.label,
    function(k, v) return metrics.format(k, v) end)
end

local function least_below_reason(model, A, B, ev, per)
  per = per or ""
  local ca, cb = model.capacity.a, model.capacity.b
  return decision.least_below_reason(ev, { a = A.label, b = B.label, slo = lp.capacity_slo(model.slo),
    min_effect = model.min_effect, repeats = ca.interval ~= nil and cb.interval ~= nil,
    rate = function(x) return rate_text(x) .. per end, pct = T.helpers.pct })
end

-- Which of two capacities' ranges (decision.capacity_span) are open-ended, in words:
-- "vllm's has no upper end and chunk's has no lower end" (decision.capacity_evidence's
-- open_range). A span from 0 runs below the lowest load: 0 is no figure measured, so never
-- "reaches down to 0" (verify44).
local function open_ends_text(A, B, ca, cb)
  local parts = {}
  for _, x in ipairs { { A, ca }, { B, cb } } do
    local lo, hi = decision.capacity_span(x[2])
    local what = lo == 0 and hi == math.huge and "has neither a lower nor an upper end"
      or lo == 0 and "has no lower end" or hi == math.huge and "has no upper end" or nil
    if what then parts[#parts + 1] = ("%s's range %s"):format(x[1].label, what) end
  end
  return table.concat(parts, " and ")
end

-- Two lower bounds that no evidence compares (decision.capacity_evidence's "unknown": one run
-- per load on some side), where at least one ends at its run's ceiling (the most any of its
-- loads achieved): the spans the measured loads give them, as the Delta reads them, and that
-- they overlap: "x's capacity lies between 20.00 req/s and its ceiling, 24.00 req/s, y's at
-- 22.00 req/s or above: they overlap, so either may be higher". nil where both are open above
-- (nothing but two bounds to say). The one text of the Evidence and the Summary (fixd46).
-- rate: the formatter of a rate in the figures' unit.
local function bound_spans_text(A, B, ca, cb, rate)
  if not (is_bound(ca) and is_bound(cb)) then return nil end
  local parts, any_top = {}, false
  for i, x in ipairs { { A, ca }, { B, cb } } do
    local lo, hi = decision.capacity_span(x[2])
    local who = i == 1 and ("%s's capacity"):format(x[1].label) or ("%s's"):format(x[1].label)
    if hi ~= math.huge then
      any_top = true
      parts[#parts + 1] = ("%s lies between %s and its ceiling, %s"):format(who, rate(lo), rate(hi))
    else
      parts[#parts + 1] = ("%s at %s or above"):format(who, rate(lo))
    end
  end
  if not any_top then return nil end
  return table.concat(parts, ", ") .. ": they overlap, so either may be higher"
end

-- What the repeat whose failures stand out had, in words (od: {a =, b =} of
-- decision.error_slo_dispersion, d.cause: decision.failures_kind), decision.FAILURE_WORDS'
-- in_one: "a crash in one" only where the files say errors; "timeouts in one repeat: a queue
-- near capacity" where they say timeouts; unknown where they do not say.
local function dispersion_cause_text(od)
  local seen, parts = {}, {}
  for _, d in ipairs { od.a or false, od.b or false } do
    local w = d and decision.failure_words(d.cause, d).in_one
    if w and not seen[w] then seen[w], parts[#parts + 1] = true, w end
  end
  return table.concat(parts, "; ")
end
-- (treatments.lua's ranking says why an error-rate SLO orders no two places in these words)
M.dispersion_cause_text = dispersion_cause_text

-- Why an error-rate SLO orders no capacities (decision.capacity_evidence's overdispersed:
-- {a =, b =} of decision.error_slo_dispersion): "vllm-crash's repeats at load point 1 failed
-- 0 of 200, 0 of 200 and 60 of 200 requests (chi-square heterogeneity p < 1e-9), some
-- above Error rate's 1.00 % and some within it, so whether it meets that SLO is one
-- repeat's crash, not its configuration".
local function dispersion_reason(A, B, od)
  local parts = {}
  for _, x in ipairs { { A, od.a }, { B, od.b } } do
    local d = x[2]
    if d then
      local counts = {}
      for i = 1, #d.failed do counts[i] = ("%d of %d"):format(d.failed[i], d.total[i]) end
      parts[#parts + 1] = ("%s's repeats at load point %d failed %s and %s requests (chi-square heterogeneity %s), "
        .. "some above the %s of %s %% and some within it"):format(x[1].label, d.point,
        table.concat(counts, ", ", 1, #counts - 1), counts[#counts], decision.p_is(d.p),
        d.default and "default failure limit" or "error-rate SLO", T.helpers.num(d.limit, 2))
    end
  end
  return table.concat(parts, "; ") .. ", so whether the error-rate SLO holds there varies between repeats beyond "
    .. "chance (" .. dispersion_cause_text(od) .. "), not with the configuration"
end

-- An order that stands although the higher run's repeats disagree on the error-rate SLO
-- (decision.capacity_evidence's crash_in_higher: its loads fail that SLO with the failures
-- counted, so they can only have lowered that run's capacity, whatever their kind): "The order
-- stands although vllm's repeats at load point 3 failed 0 of 200, 0 of 200 and 60 of 200
-- requests (a crash in one, ...), above the error-rate SLO of 1.00 % with the crash counted: a
-- crash can only lower its run's capacity, so it cannot have put vllm above"; a crash only where
-- the files say errors (d.cause: decision.failures_kind, said by decision.FAILURE_WORDS).
local function crash_in_higher_text(R, d)
  local counts = {}
  for i = 1, #d.failed do counts[i] = ("%d of %d"):format(d.failed[i], d.total[i]) end
  local w = decision.failure_words(d.cause, d)
  return ("The order stands although %s's repeats at load point %d failed %s and %s requests (%s, chi-square "
    .. "heterogeneity %s), above the %s of %s %% with %s counted: %s have put %s above"):format(R.label, d.point,
    table.concat(counts, ", ", 1, #counts - 1), counts[#counts], w.in_one, decision.p_is(d.p),
    d.default and "default failure limit" or "error-rate SLO", T.helpers.num(d.limit, 2), w.counted, w.lowers,
    R.label)
end
-- (treatments.lua's ranking says a crash in the higher place in these words)
M.crash_in_higher_text = crash_in_higher_text

-- What a capacity verdict rests on: the repeats and the ranges they allow, or why there
-- are none ("one run per load, no interval", or with no repeats where the cells' spans are
-- each load's own intervals).
local function evidence_basis(A, B, ca, cb)
  if ca.interval and cb.interval then
    -- the ranges cover the measured brackets of three capacities (llmd.loadpoints
    -- capacity_interval): not 95 % intervals, and never called so
    return ("repeats at every load point, ranges %s (A) and %s (B), %s"):format(ca.interval.text,
      cb.interval.text, decision.range_what(ca, cb))
  end
  local basis = untested_text(A, B, ca, cb)
  if basis == "one run per load" then
    -- (a capacity cell widened by each load's own 95 % interval, noise_clause, has an
    -- interval: not the repeats' one, and the evidence says which)
    basis = (noise_clause(ca) or noise_clause(cb)) and "one run per load, no repeats (the spans beside the figures "
      .. "are from each load's own 95 % interval)" or "one run per load, no interval"
  end
  return basis
end

-- evidence_basis for the capacity in output tok/s (its Headline row's, the CSV's
-- capacity_at_slo_output_tps): the ranges its repeats allow in tok/s, read off the same load
-- points ("repeats at every load point, ranges 542.5–567.4 tok/s (A) and 544.6–575.9 tok/s
-- (B), ..."); it opened with the req/s ranges of the row above (token54). The req/s basis
-- where a range in tok/s is unknown.
function M.tps_evidence_basis(A, B, ca, cb)
  local ia, ib = ca.interval, cb.interval
  if not (ia and ib and ia.lo_tps and ia.hi_tps and ib.lo_tps and ib.hi_tps) then
    return evidence_basis(A, B, ca, cb)
  end
  local function range(i) return ("%s–%s tok/s"):format(T.helpers.num(i.lo_tps, 1), T.helpers.num(i.hi_tps, 1)) end
  return ("repeats at every load point, ranges %s (A) and %s (B), %s"):format(range(ia), range(ib),
    decision.range_what(ca, cb))
end

-- The gap the measured loads allow in output tok/s (gap_text: decision.gap_pct_text's words of
-- it, B − A), in words that read right whatever its form (token54: "allow B − A any (no end of
-- the range bounds it) in output tok/s"): "in output tok/s the measured loads allow B − A of
-- -4.0 % to +6.2 %", "... of at least +3.0 %", "... allow any B − A (no end of the range bounds
-- it)"; gap_text nil: "... allow B − A either way".
function M.tps_allow_text(gap_text)
  if not gap_text then return "in output tok/s the measured loads allow B − A either way" end
  if gap_text:match("^any ") then
    return "in output tok/s the measured loads allow any B − A" .. gap_text:sub(4)
  end
  return "in output tok/s the measured loads allow B − A of " .. gap_text
end

-- What would tell by how much a run whose capacity lies below its lowest load (c: that
-- capacity, side: its run) is the lower, beside "at least as high" on a least gap (read
-- against that load) below the practical threshold (decision.least_below_reason): "To tell by
-- how much: measure x below its lowest load, 10.00 req/s." nil for any other capacity.
-- What tells the size of a gap whose order rests on a pass and a fail at one offered load
-- (decision.capacity_evidence's least_below_threshold with same_load: a least gap of 0, the
-- two achieved rates there differ by the sends' noise): loads where each capacity lies, the
-- higher run's above that load (up to its first failing one), the lower run's below it (from
-- its last passing one): "To tell by how much: measure loads where each capacity lies: a
-- above 10 req/s offered, up to where it fails the SLOs; b between 9 req/s offered and 10
-- req/s offered." nil without same_load. (audit47 F2/F4)
local function same_load_gap_advice(model, A, B, ca, cb, ev)
  local s = ev.same_load
  if not (s and s.offered and ev.margin_higher) then return nil end
  local hiR, hiC = A, ca
  local loR, loC = B, cb
  if ev.margin_higher == "b" then hiR, hiC, loR, loC = B, cb, A, ca end
  local w = decision.slo_words(lp.capacity_slo(model.slo))
  local at = lp.load_text(s.load_type, s.offered)
  local fo, po = hiC.failing_offered, loC.passing_offered
  local up = (type(fo) == "number" and fo > s.offered and not lp.close(fo, s.offered))
    and ("%s between %s and %s"):format(hiR.label, at, lp.load_text(s.load_type, fo))
    or ("%s above %s, up to where it fails %s"):format(hiR.label, at, w.it)
  local down = (type(po) == "number" and po < s.offered and not lp.close(po, s.offered))
    and ("%s between %s and %s"):format(loR.label, lp.load_text(s.load_type, po), at)
    or ("%s below %s"):format(loR.label, at)
  return ("To tell by how much: measure loads where each capacity lies: %s; %s."):format(up, down)
end

local function below_lowest_advice(side, c)
  if not (c and c.kind == "below_lowest" and c.lowest_rps) then return nil end
  return ("To tell by how much: measure %s below its lowest load, %s."):format(side.label, rate_text(c.lowest_rps))
end

-- What would tell by how much on a least gap below the threshold (ev.least_below_threshold):
-- the lower run measured below its lowest load, or, on an order by a pass and a fail at one
-- offered load, loads where each capacity lies. One source for the Verdict and the Summary.
local function least_below_advice(model, A, B, ca, cb, ev)
  return below_lowest_advice(ev.margin_higher == "b" and A or B, ev.margin_higher == "b" and ca or cb)
    or same_load_gap_advice(model, A, B, ca, cb, ev)
end

-- An evidence text as the reader needs it, the finding first, then its basis, then the
-- details: "untested, but the measured loads order them (one run per load, no interval): A met
-- ...". (report_layout.short_evidence cuts a long one to the finding, its lead before " (".)
function M.finding_first(finding, basis, rest)
  return ("%s (%s)%s"):format(finding, basis, rest and rest ~= "" and (": " .. rest) or "")
end

-- What stands behind the headline's capacity verdict, in a few words: the finding, then the
-- repeats and the ranges they allow, the practical threshold, or one run per load with no
-- interval. gap:
-- the gap of the row it is said beside (decision.capacity_gap; the tok/s row's in tok/s),
-- by default the capacities' own.
local function capacity_evidence_text(model, A, B, cap, per, gap)
  cap, per = cap or model.capacity, per or ""
  local ca, cb = cap.a, cap.b
  local ev = cap.evidence or {}
  local v = ev.verdict
  local function rate(x) return rate_text(x) .. per end
  if v == "not comparable" then
    return ("not comparable: the workloads differ (%s)"):format(table.concat(ev.differences or {}, "; "))
  end
  if v == "broken" then
    return ("not compared: %s; a broken run's figures say nothing of its configuration"):format(
      table.concat(ev.broken or {}, "; "))
  end
  if v == nil or v == "unknown" then
    local nm = {}
    for _, x in ipairs { { A, ca }, { B, cb } } do
      if x[2].kind == "non_monotone" then nm[#nm + 1] = ("%s %s"):format(x[1].label, x[2].brief) end
    end
    if #nm > 0 then
      return ("non-monotone, no capacity read: %s; not compared"):format(table.concat(nm, "; "))
    end
    if is_bound(ca) and is_bound(cb) then
      local spans = bound_spans_text(A, B, ca, cb, rate)
      return spans and ("both lower bounds: %s, no winner"):format(spans) or "both lower bounds: not compared"
    end
    if ca.kind == "below_lowest" and cb.kind == "below_lowest" then
      return "both fail at their lowest load: not compared"
    end
    return "capacity unknown: not compared"
  end
  -- (the tok/s row, its gap given: its ranges in tok/s, token54)
  local basis = gap and M.tps_evidence_basis(A, B, ca, cb) or evidence_basis(A, B, ca, cb)
  if v == "not shown to differ" and ev.token_explained then
    return M.finding_first("not shown to differ, no winner", basis, token_order_reason(model, A, B, ev.token_explained))
  end
  if v == "not shown to differ" and ev.token_same then
    return M.finding_first("not shown to differ, no winner", basis, token_same_reason(model, A, B, ev.token_same))
  end
  if v == "not shown to differ" and ev.steps_cannot_order then
    -- ranges that overlap, from means between the same measured loads: no sameness either
    return M.finding_first("not shown to differ, no winner", basis,
      "they overlap, and " .. steps_reason(A, B, ca, cb, per, ev))
  end
  if v == "not shown to differ" and ev.overdispersed then
    return M.finding_first("not shown to differ, no winner", basis, dispersion_reason(A, B, ev.overdispersed))
  end
  if v == "not shown to differ" and ev.least_below_threshold then
    return M.finding_first(decision.AT_LEAST_NO_WINNER, basis, least_below_reason(model, A, B, ev, per))
  end
  if v == "not shown to differ" and ev.open_range then
    -- overlapping ranges, one of them open-ended: they leave room for any gap
    return M.finding_first("either may be higher, no winner", basis,
      ("they overlap, but %s, so the overlap leaves room for any gap"):format(open_ends_text(A, B, ca, cb)))
  end
  if v == "not shown to differ" then
    -- figures within the threshold, but measured brackets that allow far more
    local g = decision.capacity_gap(ca, cb)
    local pct = g and decision.gap_pct_text(g, T.helpers.pct)
    return M.finding_first("not shown to differ, no winner", basis, ("the figures are within the practical threshold "
      .. "of %s %%, but the measured loads allow B − A %s"):format(decision.thr_num(model.min_effect),
      pct or "either way"))
  end
  if v == "about the same" and ev.below_threshold then
    -- (an order by less than the threshold at both ends of the gap: no practical difference,
    -- the meaning "about the same" names, with the order and both ends it rests on)
    return M.finding_first("about the same, no winner", basis, below_threshold_reason(model, A, B, ev, per))
  end
  if v == "about the same" then
    return M.finding_first("about the same, no winner", basis, ("within the practical threshold of %s %%"):format(
      decision.thr_num(model.min_effect)))
  elseif v == "no clear difference" then
    -- with the gap the overlapping ranges allow, so that it never reads as sameness
    -- ("either may be higher — the repeats' ranges overlap; ...": its lead, then the basis)
    local said = decision.no_clear_difference_text(gap or decision.capacity_gap(ca, cb),
      T.helpers.pct, ("%s vs %s"):format(B.label, A.label),
      -- (the tok/s row, its gap given: its own held gap, in tok/s, or none where the tokens
      -- cannot raise a capacity in tok/s)
      gap and M.token_held_text(A, B, {}, cap.tps_held) or M.token_held_text(A, B, ev))
    local head, tail = said:match("^(either may be higher)( — .*)$")
    if not head then return ("%s: %s"):format(basis, said) end
    return ("%s (%s)%s"):format(head, basis, tail)
  elseif (v == "A higher" or v == "B higher") and ev.same_load then
    -- ranges that meet at one load, where the repeats' intervals lie on opposite sides
    local hi, lo = v == "B higher" and B or A, v == "B higher" and A or B
    local w = decision.slo_words(lp.capacity_slo(model.slo))
    return M.finding_first(hi.label .. " higher", basis, ("%s met %s at %s and %s already failed %s at %s%s, on the 95 "
      .. "%% intervals of both runs' repeats"):format(hi.label, w.the, rate(ev.passed_rps), lo.label, w.it,
      rate(ev.failed_rps), same_load_text(ev)))
  elseif v == "A higher" or v == "B higher" then
    local hi = v == "A higher" and A or B
    return M.finding_first("apart, " .. hi.label .. " higher", basis)
  end
  if ev.beyond_ceiling and ev.higher then
    -- one run never delivered the other's figure at any load: the order is not in doubt
    local hi, lo = ev.higher == "b" and B or A, ev.higher == "b" and A or B
    return M.finding_first("untested, but the order holds whatever the bound"
      .. ((is_bound(ca) and is_bound(cb)) and "s" or ""), basis,
      ("%s sustained %s, %s never achieved more than %s at any load"):format(hi.label, rate(ev.sustained_rps),
        lo.label, rate(ev.ceiling_rps)))
  end
  if ev.ordered and ev.higher then
    -- the measured loads order them, whatever the interpolation between them
    local hi, lo = ev.higher == "b" and B or A, ev.higher == "b" and A or B
    local w = decision.slo_words(lp.capacity_slo(model.slo))
    return M.finding_first("untested, but the measured loads order them", basis, ("%s met %s at %s, %s already failed "
      .. "%s at %s%s"):format(hi.label, w.the, rate(ev.passed_rps), lo.label, w.it, rate(ev.failed_rps),
      same_load_text(ev)))
  end
  if ev.order_open then
    local why = ""
    if ev.within_noise and ev.noise then
      -- spans apart (ranges from repeats, or measured brackets) within the noise of the rates
      -- they are read at: said so, as the max sustained row says it (decision.ceiling_noise_order)
      why = decision.capacity_noise_text(ev.noise, rate, ev.within_noise == "b" and B.label or A.label,
        ev.within_noise == "b" and A.label or B.label)
    elseif ev.noise_unknown then
      why = M.noise_unknown_why(ev, rate, A, B)
    elseif not ev.within_range and (ca.noise or cb.noise) then
      why = noise_why(model.slo)
    elseif not ev.within_range and ((ca.kind == "interpolated" and not ca.interval)
      or (cb.kind == "interpolated" and not cb.interval)) then
      why = "the measured loads' brackets overlap"
    end
    return M.finding_first("untested, and either may be higher", basis, why)
  end
  return M.finding_first("untested, no winner", basis)
end

-- Which runs' max sustained throughputs are the means of repeats at every load point: both,
-- one (its label) or neither.
local function sustained_repeated(model)
  local function all_repeated(points)
    if #points == 0 then return false end
    for _, p in ipairs(points) do if (p.repeats or 1) < 2 then return false end end
    return true
  end
  return all_repeated(model.load_points.a), all_repeated(model.load_points.b)
end

-- What stands behind the max sustained throughput: the means of the repeats or one run
-- per load; never a test.
local function sustained_evidence_text(model)
  local sa, sb = model.saturation.a, model.saturation.b
  local near = (sa.near or sb.near) and ("; by the means only, the repeats' 95 % intervals reach below "
    .. "the saturation share") or ""
  local ra, rb = sustained_repeated(model)
  if ra and rb then
    return "means of the repeats at each load point, untested" .. near
  end
  if ra or rb then
    -- each run as its own data are: one's repeats are no interval of the other's
    return ("means of the repeats at each load point for %s, one run per load for %s: untested%s"):format(
      ra and model.a.label or model.b.label, ra and model.b.label or model.a.label, near)
  end
  return "one run per load, no interval: untested" .. near
end

-- The order of the max sustained throughputs, in total (gpu: false) or per GPU (each divided
-- by its run's accelerator count): each run's limit lies between its figure and its
-- ceiling (the most it achieved at any load), from its figure up when it never saturated.
-- Spans apart order the runs, untested: {higher = "a" | "b", hi_rps = the higher run's
-- figure, lo_rps = the lower run's ceiling}; spans that overlap do not: {la, ha, lb, hb}
-- (each run's span) and no higher. unit: " req/s" or " req/s per GPU". nil when a figure
-- (or, per GPU, an accelerator count) is unknown.
local function sustained_order(model, gpu)
  local sa, sb = model.saturation.a, model.saturation.b
  -- (a run saturated at its lowest load has no figure, but its ceiling: the other's figure
  -- above it orders them, decision.sustained_order; nothing else is said of it here)
  local low = decision.saturated_lowest(sa) or decision.saturated_lowest(sb)
  if not ((sa.max_sustained_rps or low) and (sb.max_sustained_rps or low)) then return nil end
  local na, nb, unit = 1, 1, " req/s"
  if gpu then
    local g = model.per_gpu
    if not (g and g.a.gpus and g.b.gpus) then return nil end
    na, nb, unit = g.a.gpus, g.b.gpus, " req/s per GPU"
  end
  -- (the decision layer's rule, which treatments.lua orders per GPU by as well)
  -- the least gap the spans allow (the higher run's figure against the lower's ceiling),
  -- held to the practical threshold as the capacity's is (decision.capacity_evidence's
  -- below_threshold): an order by less is not shown to differ, in this row as in that one,
  -- where the largest gap is below it too; else the order stands, said with its least gap
  -- (runs whose token lengths differ beyond their noise: an order their ratio can explain names
  -- no run, decision.sustained_order's token_explained)
  local order, sp = decision.sustained_order(sa, na, sb, nb, model.min_effect or decision.MIN_EFFECT, nil,
    model.token_gap)
  -- (a least gap below the threshold, the largest beyond it: no order, the run at least as
  -- high said, decision.sustained_order's margin_higher, as the capacity row's)
  order = order or (sp and (sp.below_threshold or (sp.least_below_threshold and sp.margin_higher)))
  -- (a run saturated at its lowest load is said here only where the loads order the two, or
  -- put them apart within the noise of their rates)
  if not sp or (low and not order and not sp.within_noise and not sp.token_explained and not sp.token_same) then
    return nil
  end
  local o = { unit = unit, la = sp.la, ha = sp.ha, lb = sp.lb, hb = sp.hb, token_explained = sp.token_explained,
    token_same = sp.token_same }
  -- spans apart by less than the noise of their rates: no order (decision.sustained_order)
  o.within_noise, o.noise = sp.within_noise, sp.noise
  if order == "b" then o.higher, o.hi_rps, o.lo_rps = "b", sp.lb, sp.ha
  elseif order == "a" then o.higher, o.hi_rps, o.lo_rps = "a", sp.la, sp.hb end
  o.below_threshold = sp.below_threshold and true or nil
  -- (margin_max_pct: the largest gap, of an order at least as high, or of one about the same)
  o.least_below_threshold, o.margin_pct, o.margin_max_pct = sp.least_below_threshold, sp.margin_pct,
    sp.margin_max_pct
  return o
end

-- Why two max sustained throughputs the measured loads put apart name no winner where the
-- least gap is below the practical threshold (decision.sustained_order's least_below_threshold,
-- as the capacity's decision.least_below_reason): "the measured loads put fast at least as high
-- as slow (fast sustained 20.00 req/s, slow never achieved more than 17.00 req/s at any load),
-- by at least +0.6 % of their mean, below the practical threshold of 2.0 %, and up to +27.0 %:
-- the gap may be negligible". o: sustained_order's; hi, lo: the runs; where: "" or " per GPU".
local function sustained_least_below_reason(model, o, hi, lo, where, per)
  local least = decision.least_gap_text(o, T.helpers.pct, model.min_effect, per):gsub("^ by", ", by"):gsub("^: ", ", ")
  return ("the measured loads put %s at least as high as %s%s (%s sustained %s, %s never achieved more than %s at any "
    .. "load)%s: the gap may be negligible"):format(hi.label, lo.label, where, hi.label, per(o.hi_rps), lo.label,
    per(o.lo_rps), least)
end

-- A formatter of two rates said side by side as one above the other ("A sustained 11.479 req/s,
-- B never achieved more than 11.477 req/s"): with the decimals that tell x and y apart, 2 and up
-- to 4, so that two figures one is put above never read the same (11.48 and 11.48).
local function apart_rate(x, y, unit)
  local d = 2
  while d < 4 and x and y and T.helpers.num(x, d) == T.helpers.num(y, d) do d = d + 1 end
  return function(v) return T.helpers.num(v, d) .. unit end
end

-- The evidence of max sustained throughput, in total (per GPU: false) or per GPU (where both
-- runs' accelerator counts are known and differ, since per GPU the order may be the other
-- way from the totals'): one rule for both rows (sustained_order). "base": what stands
-- behind the figures. nil when a figure is unknown.
local function sustained_order_evidence(model, A, B, base, gpu)
  local o = sustained_order(model, gpu)
  if not o then return nil end
  local where, unit = gpu and " per GPU" or "", o.unit
  local function per(x) return T.helpers.num(x, 2) .. unit end
  if o.within_noise then
    local hi, lo = o.within_noise == "b" and B or A, o.within_noise == "b" and A or B
    per = apart_rate(o.within_noise == "b" and o.lb or o.la, o.within_noise == "b" and o.ha or o.hb, unit)
    return ("%s; the measured loads put %s above%s (%s sustained %s, %s never achieved more than %s at any load), "
      .. "%s: no winner"):format(base, hi.label, where, hi.label, per(o.within_noise == "b" and o.lb or o.la),
      lo.label, per(o.within_noise == "b" and o.ha or o.hb), decision.sustained_noise_text(o, per, hi.label, lo.label))
  end
  if o.token_explained then
    local te = o.token_explained
    local hi, lo = te.higher == "b" and B or A, te.higher == "b" and A or B
    per = apart_rate(te.higher == "b" and o.lb or o.la, te.higher == "b" and o.ha or o.hb, unit)
    return ("%s; %s sustained %s%s, %s never achieved more than %s at any load; %s: not shown to differ, no winner")
      :format(base, hi.label, per(te.higher == "b" and o.lb or o.la), where, lo.label,
        per(te.higher == "b" and o.ha or o.hb), token_order_reason(model, A, B, te))
  end
  if o.token_same then
    -- (within the threshold as measured, not held to the tokens: decision.sustained_token_same)
    return ("%s; %s: not shown to differ, no winner"):format(base, token_same_reason(model, A, B, o.token_same))
  end
  if o.higher and o.below_threshold then
    local hi, lo = o.higher == "b" and B or A, o.higher == "b" and A or B
    per = apart_rate(o.hi_rps, o.lo_rps, unit)
    return ("%s; the measured loads put %s above%s (%s sustained %s, %s never achieved more than %s at any load), "
      .. "but only by %s%s within the practical threshold of %s %%: about the same, no winner")
      :format(base, hi.label, where, hi.label, per(o.hi_rps), lo.label, per(o.lo_rps), T.helpers.pct(o.margin_pct),
        decision.largest_within_text(o.margin_max_pct, model.min_effect),
        T.helpers.num(model.min_effect or decision.MIN_EFFECT, 1))
  end
  if o.higher and o.least_below_threshold then
    local hi, lo = o.higher == "b" and B or A, o.higher == "b" and A or B
    return ("%s; %s; %s"):format(base, sustained_least_below_reason(model, o, hi, lo, where, per),
      decision.AT_LEAST_NO_WINNER)
  end
  if o.higher then
    local hi, lo = o.higher == "b" and B or A, o.higher == "b" and A or B
    return ("%s, but the measured loads order them%s: %s sustained %s, %s never achieved more than %s at any "
      .. "load"):format(base, where, hi.label, per(o.hi_rps), lo.label, per(o.lo_rps))
  end
  local function range(l, h)
    if h == math.huge then return "≥ " .. per(l) end
    if l == h then return per(l) end
    return ("%s–%s"):format(T.helpers.num(l, 2), per(h))
  end
  return ("%s;%s the measured loads cannot order them: %s %s, %s %s"):format(base, where, A.label, range(o.la, o.ha),
    B.label, range(o.lb, o.hb))
end

-- The tok/s row's evidence where the req/s order is the requests' token lengths' (tt:
-- model.capacity.tps_token, tps_token_order's; false: a tok/s unknown): its text, verdict and
-- order in comparison.csv's words, as capacity_tps_evidence_text returns them.
local function capacity_tps_token_text(model, A, B, tt)
  local cap = model.capacity
  local ca, cb = cap.a, cap.b
  local basis = M.tps_evidence_basis(A, B, ca, cb)
  local te = cap.evidence.token_explained
  local rps = ("the order in req/s, %s above %s, is one the requests' token lengths can explain (the req/s row)")
    :format(te.higher == "b" and B.label or A.label, te.higher == "b" and A.label or B.label)
  if not tt then
    return M.finding_first("not ordered in output tok/s", basis, ("a load point its span is read from has no tok/s; %s")
      :format(rps)), "unknown", "unknown"
  end
  if not tt.order then
    return M.finding_first("not shown to differ, no winner", basis, ("%s, so either may be higher in tok/s, and %s")
      :format(M.tps_allow_text(tt.gap_text), rps)), "not shown to differ", "either_may_be_higher"
  end
  if tt.token_explained then
    return M.finding_first("not shown to differ, no winner", basis, token_order_reason(model, A, B,
      tt.token_explained)), "not shown to differ", "either_may_be_higher"
  end
  local hi, lo = tt.order == "b" and B or A, tt.order == "b" and A or B
  local function tok(x) return T.helpers.num(x, 1) .. " tok/s" end
  local m = decision.order_gap_pct(tt.lo_fig, tt.hi_fig)
  local thr = model.min_effect
  local apart = ("%s's capacity lies at %s or more, %s's at %s or less"):format(hi.label, tok(tt.hi_fig), lo.label,
    tok(tt.lo_fig))
  if not m or m < thr then
    -- (its least gap below the threshold: at least as high, or, its largest below it too, no
    -- difference of practical size; the req/s row's words, M.CSV_ORDERS)
    local small = tt.max_pct and tt.max_pct < thr
    return M.finding_first("not shown to differ, no winner", basis, ("apart in output tok/s (%s), but by at least %s, "
      .. "below the practical threshold of %s %%%s, and %s"):format(apart, T.helpers.pct(m or 0),
      decision.thr_num(thr), small and ", the largest gap the spans allow too"
      or (", so %s is at least as high"):format(hi.label), rps)), "not shown to differ",
      small and "not_shown_to_differ" or (tt.order .. "_at_least_as_high")
  end
  local repeats = ca.interval and cb.interval
  return M.finding_first(("%sapart in output tok/s beyond what the requests' token lengths explain, %s higher"):format(
    repeats and "" or "untested, but ", hi.label), basis, ("%s (%s)"):format(apart, rps)),
    repeats and (tt.order == "b" and "B higher" or "A higher") or "untested", tt.order .. "_higher"
end

-- The evidence of the Headline's capacity in output tok/s: the req/s row's (cap_text), but
-- an order it names (ordered, a winner, or one below the practical threshold) is said of
-- tok/s only as the tok/s spans show it (decision.gap_order of their gap, capacity_in_tps,
-- the same-load rule only where it holds in tok/s, decision.capacity_touch_tps): tok/s per
-- request that fall with the load can leave the run that sustained more requests with
-- fewer tok/s at its capacity, and its req/s order is then no tok/s order. Returns the text,
-- the verdict it states and its order in comparison.csv's words (M.CSV_ORDERS; nil: the req/s
-- row's, whose evidence it repeats).
local function capacity_tps_evidence_text(model, A, B, cap_text)
  local cap = model.capacity
  local ev, ca, cb = cap.evidence or {}, cap.a, cap.b
  -- a req/s order the requests' token lengths can explain: the tok/s row's own evidence, its
  -- own order held by the tok/s rule (cap.tps_token, tps_token_order; fixa53), never the req/s
  -- row's words
  if ev.verdict == "not shown to differ" and ev.token_explained and cap.tps_token ~= nil then
    return capacity_tps_token_text(model, A, B, cap.tps_token)
  end
  -- (an order whose least gap is below the threshold names no winner, but says which run the
  -- loads put at least as high: in tok/s only as the tok/s spans show it too)
  local said = ev.winner or (ev.ordered and ev.higher)
    or ((ev.below_threshold or ev.least_below_threshold) and ev.margin_higher) or nil
  -- (gap_wide: req/s figures within the threshold whose spans allow more: the req/s row
  -- quotes its req/s gap, which says nothing of the gap in tok/s)
  -- (token_same: about the same in req/s as measured, not held to the tokens, fixh53: the tok/s
  -- gap said as for figures about the same)
  if not said and ev.verdict ~= "about the same" and not ev.gap_wide and not ev.token_same then
    return cap_text, ev.verdict
  end
  local basis = M.tps_evidence_basis(A, B, ca, cb)
  local touch = decision.capacity_touch_tps(ca, cb)
  local g, ta_, tb_ = capacity_gap_tps(ca, cb)
  if not said then
    -- about the same in req/s: in tok/s only where the gap the tok/s spans allow stays
    -- within the threshold too (the req/s rule, decision.capacity_evidence)
    local thr = model.min_effect
    if not ev.gap_wide and decision.gap_within(g, thr) then
      -- (held to the tokens not about the same in req/s: the req/s row's words, fixh53)
      return cap_text, ev.verdict
    end
    return M.finding_first("not shown to differ, no winner", basis, ("the req/s figures are within the practical "
      .. "threshold of %s %%, but %s"):format(decision.thr_num(thr),
      M.tps_allow_text(g and decision.gap_pct_text(g, T.helpers.pct)))),
      "not shown to differ", "either_may_be_higher"
  end
  if not g then
    return M.finding_first("not ordered in output tok/s", basis, "a load point its span is read from has no tok/s"),
      "unknown", "unknown"
  end
  local order = decision.gap_order(g, touch)
  local function tok(x) return T.helpers.num(x, 1) .. " tok/s" end
  if not order then
    -- (an end with no bound: a span with no upper end in tok/s, its ceiling unknown)
    local lo_open, hi_open = g.lo_rps == -math.huge, g.hi_rps == math.huge
    local range = lo_open and hi_open and "any gap"
      or lo_open and ("B − A of at most %s tok/s"):format(T.helpers.signed(g.hi_rps, 1))
      or hi_open and ("B − A of %s tok/s or more"):format(T.helpers.signed(g.lo_rps, 1))
      or ("B − A from %s to %s tok/s"):format(T.helpers.signed(g.lo_rps, 1), T.helpers.signed(g.hi_rps, 1))
    return M.finding_first(((ca.interval and cb.interval) and "" or "untested; ")
      .. "the order in req/s does not carry over to output tok/s", basis,
      ("the measured loads allow %s, so either may be higher in tok/s"):format(range)),
      (ca.interval and cb.interval) and "not shown to differ" or "untested", "either_may_be_higher"
  end
  if ev.least_below_threshold and order == said then
    return cap_text, "not shown to differ", said .. "_at_least_as_high"
  end
  if ev.below_threshold and order == said then
    -- about the same in req/s (both ends of the gap within the threshold): in tok/s only where
    -- the tok/s gap stays within it too (the req/s rule, as for two figures about the same);
    -- else the order holds in tok/s, by a gap the threshold does not bound: at least as high
    if decision.gap_within(g, model.min_effect) then return cap_text, "about the same", "about_the_same" end
    local hi, lo = said == "b" and B or A, said == "b" and A or B
    return M.finding_first(decision.AT_LEAST_NO_WINNER, basis, ("the req/s gap is within the practical threshold of %s "
      .. "%% at both ends, but in output tok/s the measured loads put %s at least as high as %s, by B − A %s"):format(
      decision.thr_num(model.min_effect), hi.label, lo.label,
      decision.gap_pct_text(g, T.helpers.pct) or "of unknown size")),
      "not shown to differ", said .. "_at_least_as_high"
  end
  local la, ha = decision.capacity_span(ta_)
  local lb, hb = decision.capacity_span(tb_)
  local hi, lo = order == "b" and B or A, order == "b" and A or B
  local spans = ("%s's capacity lies at %s or more, %s's at %s or less%s"):format(hi.label,
    tok(order == "b" and lb or la), lo.label, tok(order == "b" and ha or hb), touch and same_load_text(ev) or "")
  if ca.interval and cb.interval then
    return M.finding_first(("apart in output tok/s%s, %s higher"):format(order == said and " too" or "", hi.label),
      basis, spans), order == "b" and "B higher" or "A higher", order .. "_higher"
  end
  -- ("in output tok/s" after the basis: the short cell keeps the finding, the row names tok/s)
  return M.finding_first("untested, but the measured loads order them", basis, ("in output tok/s%s: %s"):format(
    order == said and " too" or "", spans)), "untested", order .. "_higher"
end

-- Where a run's accelerator count is given: "gpus: N in its info file", and in a plan's
-- comparison the plan's way first, "runs.b.info: {gpus: N} in the plan (or gpus: N in its info
-- file)" (newuser48 F7: a plan user has no info file to put it in). side: A or B.
-- whose: "its" (default) or "x's".
local function gpus_where(side, whose)
  whose = whose or "its"
  if side.plan_side then
    return ("runs.%s.info: {gpus: N} in the plan (or gpus: N in %s info file)"):format(side.plan_side, whose)
  end
  return ("gpus: N in %s info file"):format(whose)
end

-- The evidence of a per-GPU row where one run's accelerator count is unknown: N/A, with why
-- ("N/A (not compared per GPU: y's accelerator count is unknown; ...)"), never the totals'
-- order, which per GPU may be the other way.
local function per_gpu_unknown_evidence(model, A, B)
  local g = model.per_gpu or { a = {}, b = {} }
  local who = not g.a.gpus and A or B
  return ("N/A (not compared per GPU: %s's accelerator count is unknown, give %s; the "
    .. "totals' order says nothing of the order per GPU)"):format(who.label, gpus_where(who))
end

-- Each headline row's evidence column (rows read off the same figure share its evidence).
local function headline_evidence(model, A, B)
  local cap = capacity_evidence_text(model, A, B)
  -- the tok/s row beside its own gap, in tok/s (the same-load rule read off the req/s points)
  local gt = #model.slo > 0 and capacity_gap_tps(model.capacity.a, model.capacity.b)
  local cap_tps = gt and capacity_evidence_text(model, A, B, nil, nil, gt) or cap
  local sus = sustained_evidence_text(model)
  local differ = workloads_differ(model)
  if differ then
    sus = ("not comparable: the workloads differ (%s)"):format(differ)
  end
  -- a run of two workloads has no max sustained throughput (N/A, why in its cell)
  local mixed = {}
  for _, s in ipairs { model.saturation.a, model.saturation.b } do
    if s.max_sustained_na then mixed[#mixed + 1] = s.max_sustained_na end
  end
  if #mixed > 0 then sus = ("not compared: %s"):format(table.concat(mixed, "; ")) end
  if model.broken and #model.broken > 0 then
    -- a broken run's max sustained throughput is no more a finding than its capacity
    sus = ("not compared: %s; a broken run's figures say nothing of its configuration"):format(
      table.concat(model.broken, "; "))
  end
  -- per GPU, the order of the capacities each divided by its run's accelerators: its own
  -- evidence, which may point the other way from the totals' (1 GPU against 4)
  local cap_gpu = model.capacity.per_gpu and model.capacity.per_gpu.evidence
    and capacity_evidence_text(model, A, B, model.capacity.per_gpu, " per GPU")
  if not cap_gpu then
    -- one run's accelerator count unknown (the row is there for the other's): per GPU
    -- nothing is ordered, whatever the totals' order (which may be the other way per GPU)
    cap_gpu = per_gpu_unknown_evidence(model, A, B)
  end
  -- max sustained per GPU likewise, where the counts differ (the same count orders the
  -- runs as the totals do); not of different workloads or a broken run
  local comparable = not differ and not (model.broken and #model.broken > 0) and #mixed == 0
  local sus_gpu = model.gpus_differ and comparable and sustained_order_evidence(model, A, B, sus, true) or sus
  -- the same known count on both sides: the per-GPU figures are the totals divided by it, so
  -- the order is the totals' and the row says so, with that order in per-GPU figures (it said
  -- a bare "one run per load, no interval: untested" beside a total row that ordered them)
  local pgc = model.per_gpu
  local same_gpus = pgc and pgc.a and pgc.b and pgc.a.gpus and pgc.a.gpus == pgc.b.gpus and pgc.a.gpus
  if same_gpus and comparable then
    local e = sustained_order_evidence(model, A, B, sus, true)
    if e then
      sus_gpu = ("%s; both runs had %s, so each figure here is its total divided by %s and the order is the "
        .. "totals'"):format(e, ("%g GPU%s"):format(same_gpus, same_gpus == 1 and "" or "s"), ("%g"):format(same_gpus))
    end
  end
  -- the totals by the same rule: where the measured loads order them, the total row says so
  -- as the per-GPU row does, never only "untested"
  if comparable then sus = sustained_order_evidence(model, A, B, sus, false) or sus end
  -- one run's accelerator count unknown: no per-GPU row compares anything, and says so as
  -- the capacity's does (the max sustained one said "one run per load ...: untested", the
  -- whole-run tok/s one "not like for like", as if a test were all that was missing)
  local pg = model.per_gpu
  local one_unknown = pg and pg.a and pg.b and (pg.a.gpus == nil) ~= (pg.b.gpus == nil)
  if one_unknown then sus_gpu = per_gpu_unknown_evidence(model, A, B) end
  for _, r in ipairs(model.headline) do
    local k = r.key
    -- (a row N/A on both sides says why in its cells; its evidence says it is not compared,
    -- never a blank a reader could take for a missing test)
    if k == "capacity" and #model.slo == 0 then
      r.evidence = "not compared: no SLO given"
    elseif k == "per_gpu" then
      r.evidence = "not compared: neither run's accelerator count is known"
    elseif k == "gpus" then
      r.evidence = ""
    elseif k == "capacity_per_gpu" then
      r.evidence = cap_gpu
    elseif k == "capacity" then
      r.evidence = cap
    elseif k == "capacity_tps" then
      r.evidence, r.tps_verdict, r.tps_order = capacity_tps_evidence_text(model, A, B, cap_tps)
    elseif k == "max_sustained_per_gpu" then
      r.evidence = sus_gpu
    elseif k == "max_sustained" then
      r.evidence = sus
    else
      -- (the cause named: requests that differ are more than different loads); a run of
      -- repeats of one load point gives the mean over them (never tested here)
      local g = model.per_gpu
      local na, nb = g and g.a.output_tps_repeats, g and g.b.output_tps_repeats
      local basis = "one whole-run figure per run"
      if na and nb then
        basis = "means of the repeats"
      elseif na or nb then
        basis = ("%s the mean of its %d repeats, %s one run"):format(na and A.label or B.label, na or nb,
          na and B.label or A.label)
      end
      -- on different GPU counts, the same loads served give about the same total whatever
      -- the GPUs, and its share per GPU follows their count: no comparison of the setups
      local gc = k == "output_tps_per_gpu" and model.gpu_counts
      r.evidence = differ and ("not comparable: the workloads differ (%s)"):format(differ)
        or k == "output_tps_per_gpu" and one_unknown and per_gpu_unknown_evidence(model, A, B)
        -- (pooled over loads where a run was overloaded: as its total's row in the Performance
        -- Results, newuser48 F2, never "untested" beside a Change a reader quotes)
        or model.pooled_over and ("not comparable: " .. decision.pooled_overloaded_text(model.pooled_over, true))
        or gc and model.workload_match.like_for_like and ("not like for like per GPU: the same loads served on %d "
          .. "and %d GPUs, so a run that keeps up delivers about the same total either way and its share per GPU "
          .. "follows the GPU counts, not the setups (%s); capacity and max sustained throughput per GPU compare "
          .. "them"):format(gc.a, gc.b, basis)
        or model.workload_match.like_for_like and (basis .. ": untested")
        or "whole-run figure over different loads: not like for like"
      -- a whole-run figure that is not like for like has no Change a reader could quote: its
      -- Delta and Change cells say so and why, never "-43.3 %" beside a note marker (newuser56:
      -- 351.2 against 199.1 tok/s per GPU over different load ladders read as "4 GPUs give 43 %
      -- less per GPU"); the figures stay in their own cells. (Different workloads and an
      -- unknown count already say N/A with their reason.)
      local why = not differ and not (k == "output_tps_per_gpu" and one_unknown) and (model.pooled_over
        and "pooled over loads where a run was overloaded"
        or gc and model.workload_match.like_for_like and ("the share per GPU follows the GPU counts, %d and %d, "
          .. "at the same loads"):format(gc.a, gc.b)
        or not model.workload_match.like_for_like and "whole-run figures over different loads")
      if why and r.a ~= nil and r.b ~= nil then
        r.delta_text = ("not comparable (%s)"):format(why)
        r.pct_text = r.delta_text
      end
    end
  end
end

-- The figures a run's capacity or max sustained throughput reads (its load points' throughput,
-- counts and error rate, and with SLOs their SLO metrics) that its own files leave in doubt
-- with no better source: a data check (run.checks) of two files that disagree where the run
-- keeps the harness's figure (crosscheck's resolved = false; a check saved before llmdlua
-- said which figure it keeps counts as that), or an achieved rate above the offered one. A
-- disagreement the per-request data settle (their figure the one used) puts nothing in
-- doubt. Returns {key = true}, the keys in the order first met, and the checks' texts (in
-- the run's order). (llmd.treatments reads it too, for a place in its ranking.)
local VERDICT_KEYS = { throughput_req_s = true, requests_ok = true, requests_failed = true, error_rate_pct = true,
  duration_s = true }
function M.doubtful_figures(run, slo)
  local slo_keys = {}
  for _, x in ipairs(slo or {}) do slo_keys[x.key] = true end
  local seen, order, texts = {}, {}, {}
  for _, c in ipairs(run.checks or {}) do
    local doubt = (c.kind == nil and c.source ~= nil and c.resolved ~= true) or c.kind == "achieved_above_offered"
    if doubt and c.key and (VERDICT_KEYS[c.key] or slo_keys[c.key]) then
      if not seen[c.key] then
        seen[c.key] = true
        order[#order + 1] = c.key
      end
      if c.text then texts[#texts + 1] = c.text end
    end
  end
  return seen, order, texts
end
local doubtful_figures = M.doubtful_figures

-- The figures keys (doubtful_figures') as the verdicts name them: "requests completed".
function M.figure_names(keys)
  local names = {}
  for _, k in ipairs(keys) do names[#names + 1] = metrics.has(k) and lower_label(metrics.get(k).label) or k end
  return names
end

-- What would settle two capacities the evidence cannot order (a Verdict of "cannot say" or
-- "no clear difference"): from each run's unclear loads (capacity.settle, lp.unclear_loads)
-- the remedy its own figures point to, at that load: "To settle it: A at 8 req/s offered:
-- repeats of that load (its 480 requests carry about 31 independent ones, TTFT p90's interval
-- needs 50; ...)". nil where nothing is unclear.
local SETTLE_PER_RUN = 2

-- What settles a capacity that is only a lower bound (its loads leave it unmeasured above its
-- figure): loads where it lies, between its bound's load and the first load above that its
-- run did not hold (saturated, not judged, or failed an SLO while achieving no more), or
-- above its highest load where it never violated them. Clearing a load below the bound
-- leaves the bound a bound, so this, not the repeats of those loads, is what orders two
-- bounds (or a bound below the other's figure). points, sat: its run's load points and
-- saturation (llmd.loadpoints.points, saturation); R its run ({label}); c its capacity. "r22
-- between 10 and 12 req/s offered (the last load before saturation and the saturated one)".
-- (treatments.lua says its lower bounds' advice in these words)
local function bound_settle(points, sat, R, c)
  points, sat = points or {}, sat or {}
  local function at(index)
    for _, p in ipairs(points) do if p.index == index then return p end end
    return nil
  end
  local function load(p) return p and p.offered and p.load_type and lp.load_text(p.load_type, p.offered) end
  local lo = c.passing_offered and c.load_type and lp.load_text(c.load_type, c.passing_offered)
  local top = c.kind == "last_passing" and at(c.first_failing) or (c.kind ~= "never_violated" and sat.point
    and at(sat.point)) or nil
  local hi = load(top)
  local what = ({ saturated = "the last load before saturation and the saturated one",
    last_sustained = "the last load known to be sustained and the one whose saturation could not be judged",
    last_passing = "the last load that met the SLOs and the first that failed one, achieving no more" })[c.kind]
  -- a bound below a load whose SLO metric is unknown (lp.capacity's unknown_at): the first load
  -- above it that failed one (a rising rate: no "achieving no more"), else the saturated one
  -- (fixh43: a bracket fail above the unknown point was left out, and the saturated point
  -- named as if it were the first that failed); an NTPOT unknown only because inference-perf's
  -- summary counts 0-token requests as 0 is settled by that point's per-request file, not by
  -- more loads or a rerun (another summary counts them the same way)
  if c.kind == "last_passing" and c.unknown_at then
    local ip = require "llmd.harness.inference_perf"
    local zero, ids = true, {}
    for _, m in ipairs(c.unknown_at) do
      if not ip.zero_counted(m.na) then zero = false end
      for _, i in ipairs(m.points or {}) do
        local id = tostring(points[i] and points[i].index or i)
        if not ids[id] then ids[id], ids[#ids + 1] = true, id end
      end
    end
    if zero and #ids > 0 then
      return ("%s: inference-perf's per-request file (per_request_lifecycle_metrics.json) at load point%s %s, "
        .. "whose NTPOT leaves the 0-token requests out (another summary counts them as 0 again)"):format(R.label,
        #ids > 1 and "s" or "", table.concat(ids, ", "))
    end
    what = top and (c.first_failing and "the last load that met the SLOs and the first that failed one, with "
      .. "an SLO metric unknown between them" or "the last load that met the SLOs and the saturated one, with an "
      .. "SLO metric unknown between them") or nil
  end
  if c.kind == "never_violated" or c.kind == "never_saturated" then
    return decision.above_bound_text(R.label, lo, c.kind == "never_saturated" and "it stops keeping up"
      or "an SLO fails or it saturates")
  end
  local between = lo and hi and ("%s and %s"):format(lo, hi)
  -- "between 10 and 12 req/s offered", one unit for both where they share it
  if lo and hi and top.load_type == c.load_type and top.load_type == "rate" then
    between = ("%g and %g req/s offered"):format(c.passing_offered, top.offered)
  end
  -- (loads not known by their offered rate: the two named by what they are)
  if not between then return ("%s between %s"):format(R.label, what or "its bound's load and the next") end
  return ("%s between %s (%s)"):format(R.label, between, what or "its bound's load and the next")
end
M.bound_settle = bound_settle

-- Is c (one run's capacity) a lower bound whose order against o (the other run's) only its
-- own higher loads can settle: both bounds, or c's figure the lower one, or o below its
-- lowest load (settling o's loads leaves c a bound either way)?
local function deciding_bound(c, o)
  if not is_bound(c) then return false end
  return is_bound(o) or (o and o.kind == "below_lowest") or (o and type(o.rps) == "number" and c.rps <= o.rps)
    or false
end
M.deciding_bound = deciding_bound

-- What settles two max sustained throughputs (no SLO) the measured loads cannot order: each
-- run that never saturated measured above its highest load, up to where it stops keeping up
-- (bound_settle). nil where neither run is such a lower bound.
local function sustained_settle_text(model, A, B)
  local bounds = {}
  for _, x in ipairs { { "a", A }, { "b", B } } do
    local s = model.saturation and model.saturation[x[1]] or {}
    local q = model.load_points and model.load_points[x[1]] or {}
    local top
    for _, p in ipairs(q) do
      if p.offered and (not top or p.offered > top.offered) then top = p end
    end
    if s.none and not s.unknown and s.max_sustained_rps and top then
      bounds[#bounds + 1] = bound_settle(q, s, x[2], { kind = "never_saturated", passing_offered = top.offered,
        load_type = top.load_type })
    end
  end
  if #bounds == 0 then return nil end
  return "To settle it: " .. decision.bounds_advice(bounds, "max sustained throughput") .. "."
end

-- only: a list of {run = "a" | "b", offered =} (decision.same_load_pass_fail's open): the
-- advice for those loads alone, where they are what leaves the order open (nil: every load left
-- unclear, and the bounds).
local function settle_text(model, A, B, ca, cb, only)
  local parts, few = {}, false
  -- a lower bound that decides the order (deciding_bound): measure where it lies, never
  -- repeat loads below it, which leave it a bound (one advice, as the Summary gives it)
  local bounds = {}
  for _, x in ipairs { { "a", A, ca, cb }, { "b", B, cb, ca } } do
    if not only and deciding_bound(x[3], x[4]) then
      bounds[#bounds + 1] = bound_settle(model.load_points and model.load_points[x[1]],
        model.saturation and model.saturation[x[1]], x[2], x[3])
    end
  end
  if #bounds > 0 then parts[1] = decision.bounds_advice(bounds, "capacity") end
  -- (the default failure limit too, where no error-rate SLO is given: lp.capacity_noise weighs it)
  local limit, default = {}, {}
  for _, x in ipairs(lp.capacity_slo(model.slo) or {}) do limit[x.key], default[x.key] = x.max, x.default end
  local function at(e)
    if e.offered and e.load_type == "concurrency" then return lp.load_text("concurrency", e.offered) end
    if e.offered then return lp.load_text("rate", e.offered) end
    return ("load point %d"):format(e.point)
  end
  for _, side in ipairs { { A, ca, cb, "a" }, { B, cb, ca, "b" } } do
    local R, c = side[1], side[2]
    if not only and deciding_bound(c, side[3]) then goto next_side end
    if c.noise_unknown then
      parts[#parts + 1] = ("%s: per-request data (each request's latencies, not only the file's percentiles) or "
        .. "repeats of each load, to tell how far its percentiles vary"):format(R.label)
    end
    -- (the lowest unclear loads first: a run's capacity is decided from its lowest load up,
    -- so a load above two unclear ones matters only once they are settled; those are counted)
    local list = c.settle or {}
    if only then
      local kept = {}
      for _, e in ipairs(list) do
        for _, o in ipairs(only) do
          if o.run == side[4] and type(e.offered) == "number" and lp.close(e.offered, o.offered) then
            kept[#kept + 1] = e
            break
          end
        end
      end
      list = kept
    end
    for k = 1, math.min(#list, SETTLE_PER_RUN) do
      local e = list[k]
      local m = metrics.get(e.key)
      local name = m and m.label or e.key
      local fmt = function(v) return metrics.format(e.key, v) end
      local head = ("%s at %s: "):format(R.label, at(e))
      if e.remedy == "repeats" and e.few then
        -- (not a longer load: near capacity the queue's swings last as long as the load does,
        -- lp.unclear_loads)
        local unit = lp.sample_unit(lp.interval_key(e.key))
        parts[#parts + 1] = head .. (decision.deff_unmeasured(e.n, e.deff) and ("repeats of that load (its %d %s %s)")
          :format(e.n, unit, decision.carry_text(e.n, e.deff)) or ("repeats of that load (its %d %s carry about %.0f "
          .. "independent ones, fewer than the %d %s's interval needs)"):format(e.n, unit, e.n / e.deff,
          lp.SLO_CI_MIN_EFFECTIVE, name))
        few = true
      elseif e.remedy == "repeats" and e.key == "error_rate_pct" then
        -- (an error rate's interval is its failures' exact binomial one, lp.error_ci: more
        -- requests at that load narrow it, repeats or a longer load alike)
        -- (a repeated point's from its repeats' requests pooled: lp.repeats_error_ends)
        -- (how many: lp.error_repeats_needed, the pooled interval clearing the limit with
        -- lp.SETTLE_POWER % chance if the share is truly as measured; tests/sim/intervals55_error_settle.py)
        local how = "more requests at that load, repeats or a longer load"
        if e.pooled and e.need then
          how = ("%d repeats of that load, not %d, or as many requests in longer loads (about %d in all)"):format(
            e.need, e.repeats, e.need_requests)
        elseif e.pooled and e.repeats then
          how = ("more requests at that load than %d repeats of these give (its share lies too close to the limit "
            .. "for them to clear it with %d %% chance: its capacity lies near this load)"):format(
            lp.SETTLE_MAX_REPEATS, lp.SETTLE_POWER)
        end
        local chance = e.pooled and e.need and ("; %d would clear it with %d %% chance if its error rate is truly as "
          .. "measured and its failures as bursty"):format(e.need, lp.SETTLE_POWER) or ""
        parts[#parts + 1] = head .. ("%s (%s %s, its exact 95 %% interval %s to %s from its %s, across the %s "
          .. "limit%s%s)"):format(how, name, fmt(e.value), fmt(e.lo), fmt(e.hi),
          e.pooled and ("repeats' failed requests pooled, %.0f of %.0f"):format(e.pooled.failed, e.pooled.total)
            or "failed requests", fmt(limit[e.key]), default[e.key] and (": unclear whether it stays within the %g %% "
          .. "failure limit, the default where no error-rate SLO is given"):format(limit[e.key]) or "", chance)
      elseif e.remedy == "repeats" then
        parts[#parts + 1] = head .. ("repeats of that load (%s %s, its 95 %% interval %s to %s, across the %s limit: "
          .. "one run cannot show how much it varies from run to run)"):format(name, fmt(e.value), fmt(e.lo),
          e.hi and fmt(e.hi) or "unbounded", fmt(limit[e.key]))
      elseif e.remedy == "more repeats" and e.need then
        -- (sized as decision.noise_settle_text's longer loads: lp.SETTLE_POWER % chance; a lower
        -- end clipped at 0 says so, as every interval shown does: audit47 F6, "0.0 ms to
        -- 1,114.4 ms" from a t-interval of -488 to 1114)
        local lo = fmt(e.lo) .. (e.t_lo and (" (clipped at 0 from the t-interval's %s)"):format(fmt(e.t_lo)) or "")
        parts[#parts + 1] = head .. ("%d repeats, not %d (%s %s, the repeats' 95 %% interval %s to %s, across the %s "
          .. "limit; %d would clear it with %d %% chance if their mean is truly as measured and their spread no more "
          .. "than %s, the upper %d %% confidence limit of the %s measured)"):format(
          e.need, e.repeats, name, fmt(e.value), lo, fmt(e.hi), fmt(limit[e.key]), e.need, lp.SETTLE_POWER,
          fmt(e.sd_plan), lp.SETTLE_SD_CONFIDENCE, fmt(e.sd))
      elseif e.remedy == "more repeats" and e.spread_limited then
        -- (sized on the spread's upper confidence limit, lp.SETTLE_SD_CONFIDENCE: from few repeats
        -- the measured spread is no measure of how many more would settle it)
        local lo = fmt(e.lo) .. (e.t_lo and (" (clipped at 0 from the t-interval's %s)"):format(fmt(e.t_lo)) or "")
        parts[#parts + 1] = head .. ("more than %d repeats may be needed (%s %s over %d repeats, their 95 %% interval "
          .. "%s to %s, across the %s limit; their spread, %s, is measured on %d degree%s of freedom, and at its upper "
          .. "%d %% confidence limit, %s, %d repeats would clear it with less than %d %% chance)"):format(
          lp.SETTLE_MAX_REPEATS, name, fmt(e.value), e.repeats, lo, fmt(e.hi), fmt(limit[e.key]), fmt(e.sd),
          e.repeats - 1, e.repeats == 2 and "" or "s", lp.SETTLE_SD_CONFIDENCE, fmt(e.sd_plan), lp.SETTLE_MAX_REPEATS,
          lp.SETTLE_POWER)
      elseif e.remedy == "more repeats" then
        parts[#parts + 1] = head .. ("%s's mean over %d repeats, %s, lies too close to the %s limit for %d repeats "
          .. "to clear it with %d %% chance: its capacity lies near this load"):format(name, e.repeats, fmt(e.value),
          fmt(limit[e.key]), lp.SETTLE_MAX_REPEATS, lp.SETTLE_POWER)
      elseif e.remedy == "per-request data" then
        parts[#parts + 1] = head .. "per-request data or repeats of that load"
      end
    end
    if #list > SETTLE_PER_RUN then
      parts[#parts] = parts[#parts] .. (" (and %d higher load%s of %s left unclear)"):format(#list - SETTLE_PER_RUN,
        #list - SETTLE_PER_RUN == 1 and "" or "s", R.label)
    end
    ::next_side::
  end
  if #parts == 0 then return nil end
  if few then
    -- (fixl45 #4: which figure it is about, beside a max sustained throughput whose rates
    -- longer loads, not repeats, would settle: decision.sustained_noise_text)
    parts[#parts + 1] = "not a longer load alone, for these SLO figures: near capacity the queue's swings last as long "
      .. "as the load does"
  end
  -- (no "finer load steps" between the loads: in tests/sim/capa38_sim.py, loads 1 req/s apart
  -- from 6 to 12 ordered 24 slots above 20 in 0, 0 and 1 of 10 pairs at TTFT p90 <= 500 ms,
  -- <= 1000 ms and E2E p90 <= 3000 ms, against 1, 1 and 7 of 20 with loads 2 req/s apart: more
  -- loads near capacity are more loads left unclear)
  return "To settle it: " .. table.concat(parts, "; ") .. "."
end

-- What settles two capacities whose order the evidence leaves open because the pass or fail
-- that decides it rests on one percentile per load of unknown noise (decision.capacity_evidence's
-- noise_unknown, decision.unknown_noise_orders): per-request data for the runs read off summary
-- files, or repeats of each load - not more loads (a bound's "measure where it lies"), whose
-- pass or fail would rest on that noise too. nil where neither run's noise is unknown.
-- (the advice alone, without "To settle it: " and the full stop: treatments.lua joins it with
-- others)
function M.unknown_noise_advice(A, B, ca, cb)
  local who = {}
  for _, x in ipairs { { A, ca }, { B, cb } } do
    if x[2].noise_unknown and not x[2].interval then who[#who + 1] = x[1].label end
  end
  if #who == 0 then return nil end
  return ("per-request data for %s (each request's latencies, not only the %s percentiles: vllm bench serve with "
    .. "--save-detailed, guidellm's report with its requests, inference-perf's per-request file), or repeats of each "
    .. "load, to tell how far the percentiles that decide the order vary; more loads would not settle it, as each "
    .. "one's pass or fail would rest on one percentile of unknown noise too"):format(table.concat(who, " and "),
    #who > 1 and "files'" or "file's")
end
local function unknown_noise_settle(A, B, ca, cb)
  local advice = M.unknown_noise_advice(A, B, ca, cb)
  return advice and ("To settle it: " .. advice .. ".")
end

-- What would settle (or tell by how much) two capacities the evidence ev (decision.capacity_evidence
-- of ca, cb) leaves unordered, by its kind: an order left open (settle_text), spans apart within
-- the noise of their rates (decision.noise_settle_text: longer loads), a least gap below the
-- practical threshold (least_below_advice: loads where each capacity lies), a same-load order
-- left open (the repeats of those loads), overlapping ranges and two lower bounds (settle_text).
-- nil where ev orders them or nothing measured would settle it. One source for compare.lua's
-- Verdict and treatments.lua's ranking (its model: {slo, load_points = {a, b}, saturation =
-- {a, b}}; A, B: {label}; gpu: " per GPU" or ""; lead_gpu: the rates are per GPU). (fixp50)
local function capacity_settle(model, A, B, ca, cb, ev, gpu, lead_gpu)
  local ver = ev.verdict
  if ver == "untested" and not (ev.ordered and ev.higher) then
    -- (an order left open by the unknown noise of summary files' percentiles: what tells that
    -- noise, never more loads, whose pass or fail would rest on it too - fixs50)
    local s = ev.order_open and (ev.noise_unknown and unknown_noise_settle(A, B, ca, cb)
      or settle_text(model, A, B, ca, cb)) or nil
    local ns = ev.within_noise and decision.noise_settle_text(ev.noise, function(x) return rate_text(x) .. gpu end,
      lead_gpu)
    if ns then s = s and (s:sub(1, -2) .. "; " .. ns .. ".") or ("To settle it: " .. ns .. ".") end
    return s
  elseif ver == "no clear difference" then
    return settle_text(model, A, B, ca, cb)
  elseif ver == "not shown to differ" then
    if ev.least_below_threshold then return least_below_advice(model, A, B, ca, cb, ev) end
    if ev.steps_cannot_order then
      local open = ev.open_same_load and ev.open_same_load.open
      return open and #open > 0 and settle_text(model, A, B, ca, cb, open) or nil
    end
    if ev.overdispersed then return nil end
    if ev.open_range then return settle_text(model, A, B, ca, cb) end
    return nil
  elseif not (ver == "A higher" or ver == "B higher" or ver == "about the same" or ver == "untested") then
    -- (any other verdict, as the Verdict's last branch: two lower bounds, measured higher)
    if is_bound(ca) and is_bound(cb) then return settle_text(model, A, B, ca, cb) end
  end
  return nil
end
M.capacity_settle = capacity_settle

-- "B's results do not match the benchmark config it sent" (both runs named where both
-- have such a data check: llmd.comparison.check_config_stages's config_mismatch), or nil.
function M.config_mismatch(A, B)
  local who = {}
  for _, x in ipairs { A, B } do
    for _, c in ipairs(x.run and x.run.checks or {}) do
      if type(c) == "table" and c.kind == "config_mismatch" then
        who[#who + 1] = x.label
        break
      end
    end
  end
  if #who == 0 then return nil end
  if #who == 1 then return ("%s's results do not match the benchmark config it sent"):format(who[1]) end
  return ("%s's and %s's results do not match the benchmark config each sent"):format(who[1], who[2])
end

-- Is no run to be named higher, whatever the figures: one run's results in both folders
-- (model.identical), or results that are not known to be their configuration's
-- (model.config_mismatch)? Then comparison.csv's order is "not_compared".
local function order_withheld(model)
  return model.identical or model.config_mismatch
end

-- The report's first line (model.verdict): which configuration sustains more load within the
-- SLOs (capacity at SLO; without SLOs, the max sustained throughput), the two figures, by how
-- much, and how sure. Read off the Headline's lead row (per GPU where the Headline leads per
-- GPU: both accelerator counts known and different) and the evidence behind that row
-- (model.capacity.evidence, decision.capacity_evidence; sustained_order for the max
-- sustained throughput): never a computation of its own, so it names a higher run only where
-- the Headline's evidence does, and says tested, untested or not shown to differ as that
-- evidence does. Parts: kind ("winner": apart on the repeats; "ordered": untested, but the
-- measured loads order them; "about the same"; "not shown to differ"; "no clear difference";
-- "cannot say"; "not comparable"; "broken"), measure ("capacity" | "max_sustained"),
-- per_gpu, slo, higher ("a" | "b", only for winner and ordered), a_figure, b_figure (the
-- Headline's cells without their brackets), change (its Change, B against A), basis (what the
-- figures rest on), reason, caveat, headline_row (the row it is read from) and text.
-- The result files --tolerant left out of label's runs (their warnings "left out (--tolerant):
-- FILE: why"), in the words of a verdict's caveat: "vllm's result file stage_2.json was left
-- out (--tolerant), so the figures this verdict rests on lack what it held"; nil for none.
-- compare.lua's Verdict and treatments.lua's say it alike.
function M.left_out_text(label, runs)
  local names = {}
  for _, run in ipairs(runs) do
    for _, w in ipairs((run or {}).warnings or {}) do
      local what = tostring(w):match("^left out %(%-%-tolerant%): (.*)$")
      if what then
        local file = what:match("^(.-):%d+:%d+: ") or what:match("^(.-): ") or what
        names[#names + 1] = file:match("[^/]+$") or file
      end
    end
  end
  if #names == 0 then return nil end
  return ("%s's result file%s %s %s left out (--tolerant), so the figures this verdict rests on lack what %s held")
    :format(label, #names == 1 and "" or "s", table.concat(names, ", "), #names == 1 and "was" or "were",
      #names == 1 and "it" or "they")
end

-- A run whose own files disagree on how many requests it made, by more than 1 % (its
-- data checks: the per-request data's count against the harness's summary, the stage files'
-- count against the per-request data): it may have been cut short (a killed harness, a stage
-- file lost), and a ladder that looks shorter than the other run's may be that. The text, or
-- nil: "ipcut may have been cut short: its files disagree on its request count
-- (summary_lifecycle_metrics.json 2,940, per-request data 2,580, the stage files 2,220; see
-- Data checks)". The Verdict's warnings and the workload banner say it (audit49 F8).
function M.cut_short_text(label, run)
  local seen, parts = {}, {}
  local function add(what, n)
    local k = what .. "=" .. tostring(n)
    if seen[k] then return end
    seen[k] = true
    parts[#parts + 1] = ("%s %s"):format(what, metrics.group_thousands(("%d"):format(n)))
  end
  for _, c in ipairs(run.checks or {}) do
    if c.key == "requests_ok" and type(c.apart_pct) == "number" and c.apart_pct > 1
      and type(c.computed) == "number" and type(c.reported) == "number" then
      add(tostring(c.source or "the summary"), c.reported)
      add("per-request data", c.computed)
    end
  end
  for _, w in ipairs(run.warnings or {}) do
    local n, st = tostring(w):match("(%d+) requests, but the stage files count (%d+)")
    if n and math.abs(tonumber(n) - tonumber(st)) > 0.01 * math.max(tonumber(n), tonumber(st)) then
      add("per-request data", tonumber(n))
      add("the stage files", tonumber(st))
    end
  end
  if #parts == 0 then return nil end
  return ("%s may have been cut short: its files disagree on its request count (%s; see Data checks)"):format(
    label, table.concat(parts, ", "))
end

-- A run whose harness summary disagrees with its stage files on a request count (inference-
-- perf's summary_disagrees: check kind "files_disagree" with counts), said in the Verdict, not
-- only under Data checks (newuser55 #1: A's stage 3 was B's file, its summary 38,717 successes
-- against 40,851 in its stages, and the Verdict read A's "at most 127.76 req/s" off that file
-- with no warning). Said, not withheld: every stage file holds its own figures consistently, and
-- which one is foreign the counts do not tell (a summary left stale by an edit is the other
-- case); a stage out of the ladder's order (check kind "ladder_order") is named as the likely
-- one. The text, or nil.
function M.counts_disagree_text(label, run)
  local parts, odd = {}, {}
  for _, c in ipairs(run.checks or {}) do
    if c.kind == "files_disagree" and type(c.counts) == "table" then
      for _, n in ipairs(c.counts) do
        parts[#parts + 1] = ("%s %s in %s, %s in its stage files"):format(tostring(n.field),
          metrics.group_thousands(("%d"):format(n.summary)), tostring(c.source or "the summary"),
          metrics.group_thousands(("%d"):format(n.stages)))
      end
    elseif c.kind == "ladder_order" then
      odd[#odd + 1] = ("stage %d (%g req/s offered, before stage %d's %g)"):format(c.stage, c.rate, c.next_stage,
        c.next_rate)
    end
  end
  if #parts == 0 then return nil end
  return ("%s's own files disagree on its request count (%s), so a stage file may be another run's or edited, and "
    .. "the figures read from its stage files are in doubt%s (see Data checks)"):format(label,
    table.concat(parts, "; "), #odd > 0 and ("; out of its ladder's order: " .. table.concat(odd, ", ")) or "")
end

-- Are a run's repeats one value at every repeated load point in every SLO metric (the
-- repeats' 95 % intervals of width 0, llmd.loadpoints' ci.identical)? Then they give no spread
-- to estimate, and a range "they allow" is the loads' own. False where a point is not
-- repeated or a metric has no interval.
function M.repeats_without_spread(run, slo)
  local any = false
  for _, p in ipairs(lp.points(run or {})) do
    if (p.repeats or 1) < 2 then return false end
    for _, s in ipairs(slo or {}) do
      local ci = p.ci and p.ci[s.key]
      if s.key ~= "error_rate_pct" then
        if not (type(ci) == "table" and ci.identical) then return false end
        any = true
      end
    end
  end
  return any
end

-- A run whose requests are far from the token lengths its benchmark config asks for (more
-- than twice or less than half: llmd.comparison.check_config_lengths's far), said in the
-- Verdict: its figures are another workload's than the one asked (newuser55 #3: 204.1 input and
-- 62.4 output tokens measured against 4,200 and 300 asked, said nowhere). The text, or nil.
function M.lengths_text(label, run)
  for _, c in ipairs(run.checks or {}) do
    if c.kind == "config_lengths" and c.far then
      local parts = {}
      for _, k in ipairs { "input", "output" } do
        if type(c[k]) == "number" and type(c["asked_" .. k]) == "number" then
          parts[#parts + 1] = ("%s %.1f tokens measured against %s asked"):format(k, c[k],
            metrics.group_thousands(("%g"):format(c["asked_" .. k])))
        end
      end
      return ("%s's requests are far from the lengths its benchmark config asks for (%s): the harness may have "
        .. "ignored its data config, so its figures are another workload's (see Data checks)"):format(label,
        table.concat(parts, ", "))
    end
  end
  return nil
end

local function verdict_of(model, A, B)
  local rows = {}
  for _, r in ipairs(model.headline) do rows[r.key] = r end
  local has_slo, lead_gpu = #model.slo > 0, model.gpu_counts ~= nil
  local key = (has_slo and "capacity" or "max_sustained") .. (lead_gpu and "_per_gpu" or "")
  local row = rows[key] or rows[has_slo and "capacity" or "max_sustained"]
  local v = { measure = has_slo and "capacity" or "max_sustained", per_gpu = lead_gpu, headline_row = row.key,
    slo = has_slo and decision.capacity_phrase(model.slo) or nil }
  -- a figure as its cell gives it, without the brackets that qualify it (an N/A keeps its why)
  local function fig(text)
    if text:match("^N/A") then return text end
    return (text:gsub(" %(.*$", ""))
  end
  v.a_figure, v.b_figure = fig(row.a_text), fig(row.b_text)
  if not row.pct_text:match("^N/A") and row.pct_text ~= "" then v.change = row.pct_text end
  local thr = decision.thr_num(model.min_effect)
  local gpu = lead_gpu and " per GPU" or ""
  local measure = has_slo and ("capacity%s within %s"):format(gpu, v.slo)
    or ("max sustained throughput%s (no SLO given)"):format(gpu)
  local more = has_slo and ("sustains more load%s within %s"):format(gpu, v.slo)
    or ("sustains more load%s (max sustained throughput; no SLO given)"):format(gpu)
  local both = ("%s %s, %s %s"):format(A.label, v.a_figure, B.label, v.b_figure)
  -- An order whose least gap is below the practical threshold, the largest beyond it or open
  -- (decision's least_below_threshold): what is known first - the run at least as high, by
  -- how much it may be, decision.AT_LEAST_NO_WINNER (one wording everywhere) - never "No clear
  -- difference", which read as sameness beside "up to +200 %" or "with no upper end"
  -- (audit51b D3). Kind "at least as high", at_least_as_high that run ("a" | "b"; never
  -- higher, which names a winner). hi: that run; ev: the evidence; reason: its why.
  local function at_least_text(hi, ev, reason)
    local H, L = hi == "b" and B or A, hi == "b" and A or B
    v.kind, v.at_least_as_high = "at least as high", hi
    return ("%s's %s is at least as high as %s's (%s): %s. %s; %s."):format(H.label, measure, L.label,
      decision.at_least_gap_range(ev, T.helpers.pct, model.min_effect), decision.AT_LEAST_NO_WINNER, both, reason)
  end
  local settle_said = false -- (v.settle already in v.text, where it bears on its reason)
  local latency_said = "" -- (the no-SLO latency clause as v.text ends with it, where it does)
  -- a capacity's lower bound whose span ends at its run's ceiling, beside a Change with both
  -- ends: that upper end said with it, as the Summary says it ("≥ 92.21 req/s ... (+22.6 % to
  -- +83.7 %)" read as an open bound beside a closed gap, whose lower end is read off the ceiling)
  local function fig_of(x)
    local text = x == "b" and v.b_figure or v.a_figure
    local caps = has_slo and (lead_gpu and model.capacity.per_gpu or model.capacity) or nil
    local c = caps and caps[x]
    -- (a ceiling that is a load which failed the SLOs, ceiling_failing: the figure says "below" it)
    if not (c and v.change and v.change:match("^%S+ %% to %S+ %%$") and is_bound(c) and c.ceiling_rps)
      or c.ceiling_failing then
      return text
    end
    local _, top = decision.capacity_span(c)
    if top ~= c.ceiling_rps then return text end
    return ("%s (at most %s: the most it achieved at any load measured)"):format(text, rate_text(top) .. gpu)
  end
  -- the figures each end of a two-ended Change is between, B's against A's (decision.capacity_gap:
  -- B's lowest against A's highest, B's highest against A's lowest), where the Change is those
  -- ratios as they are: beside "≥ 8.11 against about 3.68", "+23.1 % to +361.3 %" could not be
  -- worked out from what was printed (its ends are 5.90 vs 4.79 and 9.21 vs 2.00, newuser47b V1)
  local function change_ends()
    if not (v.change and v.change:match("^%S+ %% to %S+ %%$")) then return "" end
    if not has_slo then
      -- no SLO: the max sustained throughputs' spans, each from the run's figure up to the most
      -- it achieved at any load (sustained_range's Change: B's figure against A's most, B's most
      -- against A's figure); "+62.5 % to +88.9 %" beside "169.43 against 92.21" could not be
      -- worked out from what was printed (169.43 / 92.21 is +83.7 %)
      local o = sustained_order(model, lead_gpu)
      if not (o and o.higher and not o.within_noise) then return "" end
      local la, ha, lb, hb = o.la, o.ha, o.lb, o.hb
      if not (la > 0 and ha > 0 and ha ~= math.huge and hb ~= math.huge) then return "" end
      -- (only where the Change is those two ratios as printed)
      if v.change ~= T.helpers.pct((lb / ha - 1) * 100) .. " to " .. T.helpers.pct((hb / la - 1) * 100) then
        return ""
      end
      local function r(x) return T.helpers.num(x, 2) end
      return (", from %s's %s against %s's %s req/s%s to %s's %s against %s's %s req/s%s: the ends of the two runs' "
        .. "ranges, each from its max sustained throughput up to the most it achieved at any load"):format(
        B.label, r(lb), A.label, r(ha), gpu, B.label, r(hb), A.label, r(la), gpu)
    end
    local caps = lead_gpu and model.capacity.per_gpu or model.capacity
    local ca, cb, g = caps.a, caps.b, caps.gap
    if not (ca and cb and g and g.lo_pct and g.hi_pct and g.hi_pct ~= math.huge) then return "" end
    local la, ha = decision.capacity_span(ca)
    local lb, hb = decision.capacity_span(cb)
    if not (ha > 0 and la > 0 and ha ~= math.huge and hb ~= math.huge) then return "" end
    -- (a gap an end of which was set to 0 or widened by the rates' noise is no such ratio)
    local function same(x, y) return math.abs(x - y) <= 1e-9 * math.max(1, math.abs(y)) end
    if not (same(g.lo_pct, (lb / ha - 1) * 100) and same(g.hi_pct, (hb / la - 1) * 100)) then return "" end
    local function r(x) return T.helpers.num(x, 2) end
    -- (repeats all one value allow no range of their own: the loads' ranges, newuser55 #2)
    local spread = not (M.repeats_without_spread(A.run, model.slo) or M.repeats_without_spread(B.run, model.slo))
    local what = (ca.interval and cb.interval and spread) and "the two ranges their repeats allow"
      or ((ca.noise or cb.noise) and not (ca.interval or cb.interval))
        and "the two runs' ranges with each load's 95 % interval"
      or "the two runs' ranges"
    return (", from %s's %s against %s's %s req/s%s to %s's %s against %s's %s req/s%s: the ends of %s"):format(
      B.label, r(lb), A.label, r(ha), gpu, B.label, r(hb), A.label, r(la), gpu, what)
  end
  local function ordered(hi, sure)
    local H, L = hi == "b" and B or A, hi == "b" and A or B
    local ch = ""
    if v.change then
      local ends = change_ends()
      ch = hi == "b" and (" (" .. v.change .. ends .. ")")
        or (" (%s %s vs %s%s)"):format(B.label, v.change, A.label, ends)
    end
    v.higher = hi
    return ("%s %s: %s against %s for %s%s. %s"):format(H.label, more, fig_of(hi), fig_of(hi == "b" and "a" or "b"),
      L.label, ch, sure)
  end
  local differ = workloads_differ(model)
  if model.broken and #model.broken > 0 then
    v.kind, v.reason = "broken", table.concat(model.broken, "; ")
    v.text = ("Cannot say which: %s; a broken run's figures say nothing of its configuration."):format(v.reason)
  elseif differ then
    v.kind, v.reason = "not comparable", differ
    v.text = ("Not comparable: the workloads differ (%s), so no capacity or throughput here names a higher "
      .. "run."):format(differ)
  elseif has_slo then
    local cap = lead_gpu and model.capacity.per_gpu or model.capacity
    local ca, cb, ev = cap.a, cap.b, cap.evidence or {}
    local ver = ev.verdict
    v.basis = untested_text(A, B, ca, cb)
    if ca.interval and cb.interval then v.basis = "repeats at every load point" end
    if ver == "A higher" or ver == "B higher" then
      v.kind = "winner"
      local sure = "Shown by the repeats at every load point: the ranges they allow are apart."
      -- (the runs whose repeats are one value at every load point, in every SLO metric: no
      -- spread to estimate, so their ranges are the loads' own, newuser55 #2)
      local flat = {}
      for _, x in ipairs { A, B } do
        if M.repeats_without_spread(x.run, model.slo) then flat[#flat + 1] = x.label end
      end
      local flat_text = #flat > 0 and ("%s repeats are identical at every load point (no spread to estimate)")
        :format(#flat == 2 and "both runs'" or (flat[1] .. "'s")) or nil
      if ev.beyond_ceiling and ev.sustained_rps and ev.ceiling_rps and not ev.same_load then
        -- an order the bounds give whatever the repeats (the higher run's lower end above all the
        -- other achieved at any load): said as that, not as the repeats' ranges (newuser55 #2: "the
        -- ranges they allow are apart" beside repeats that were all one value)
        local H, L = ev.winner == "b" and B or A, ev.winner == "b" and A or B
        sure = ("Shown by the bounds, whatever the repeats: %s sustained %s and %s never achieved more than %s at "
          .. "any load measured%s."):format(H.label, rate_text(ev.sustained_rps) .. gpu, L.label,
          rate_text(ev.ceiling_rps) .. gpu, flat_text and ("; " .. flat_text) or "")
      elseif flat_text and not ev.same_load then
        sure = ("Shown by the measured loads: the ranges are apart, but %s, so the repeats add nothing to what the "
          .. "loads show."):format(flat_text)
      end
      if ev.same_load then
        -- (ordered by one load, one run passing, the other failing: that load, as the Evidence says it)
        local H, L = ev.winner == "b" and B or A, ev.winner == "b" and A or B
        local w = decision.slo_words(lp.capacity_slo(model.slo))
        sure = ("Shown by the repeats at every load point: %s met %s at %s and %s already failed %s at %s%s, on the "
          .. "95 %% intervals of both runs' repeats."):format(H.label, w.the, rate_text(ev.passed_rps) .. gpu,
          L.label, w.it, rate_text(ev.failed_rps) .. gpu, same_load_text(ev))
      end
      v.text = ordered(ev.winner, sure)
    elseif ver == "untested" and ev.ordered and ev.higher then
      v.kind = "ordered"
      v.text = ordered(ev.higher, ("Untested (%s), but %s."):format(v.basis, ev.beyond_ceiling
        and ("the order holds whatever the bound" .. ((is_bound(ca) and is_bound(cb)) and "s" or ""))
        or "the measured loads order them"))
      -- an order resting on one-run intervals known to run narrow near capacity (narrow_check):
      -- it stands (README: the same server run twice was never ordered so), said so, with repeats
      v.interval_coverage = ev.interval_coverage
      if ev.interval_coverage == "narrow_near_capacity" then
        v.text = v.text .. " " .. narrow_verdict_text(ev, A, B)
      end
    elseif ver == "untested" then
      v.kind, v.reason = "cannot say", ("untested (%s), and either may be higher"):format(v.basis)
      if ev.within_noise and ev.noise then
        -- (ranges or brackets apart within the rates' noise: why, decision.ceiling_noise_order)
        local function per(x) return rate_text(x) .. gpu end
        v.reason = v.reason .. ": " .. decision.capacity_noise_text(ev.noise, per,
          ev.within_noise == "b" and B.label or A.label, ev.within_noise == "b" and A.label or B.label)
      elseif ev.order_open and ev.noise_unknown then
        -- (summary files' unknown noise: the loads and the condition that leave it open, tidy55)
        v.reason = v.reason .. ": " .. M.noise_unknown_why(ev, function(x) return rate_text(x) .. gpu end, A, B)
      end
      v.text = ("Cannot say which %s: %s; %s."):format(more, both, v.reason)
      -- (an order left open, and a bound above the other's ceiling by less than the noise of
      -- the two rates: how long the loads would have to be; capacity_settle, one source)
      v.settle = capacity_settle(model, A, B, ca, cb, ev, gpu, lead_gpu)
    elseif ver == "about the same" and ev.below_threshold then
      -- an order by less than the threshold at both ends of the gap: no practical difference,
      -- "about the same" (it read "Not shown to differ", the open case's words, fixb53), with
      -- the order, both ends and the two figures the least gap is between (newuser47 F13: beside
      -- "about 3.68, measured >= 8.11" a bare +20.7 % read as their gap)
      v.kind = "about the same"
      local hi, lo = ev.margin_higher == "b" and B.label or A.label, ev.margin_higher == "b" and A.label or B.label
      local between = (ev.margin_hi and ev.margin_lo) and (" (%s's %s against %s's %s, the figures that order "
        .. "them)"):format(hi, rate_text(ev.margin_hi) .. gpu, lo, rate_text(ev.margin_lo) .. gpu) or ""
      v.reason = ("the measured loads put %s above, but by %s only%s%s within the practical threshold "
        .. "of %s %%: no winner"):format(hi, T.helpers.pct(ev.margin_pct or 0), between,
        decision.largest_within_text(ev.margin_max_pct, model.min_effect), thr)
      v.text = ("About the same %s: %s; %s."):format(measure, both, v.reason)
    elseif ver == "about the same" then
      v.kind = "about the same"
      v.text = ("About the same %s: %s, within the practical threshold of %s %%%s."):format(measure, both, thr,
        v.change and (" (B − A: " .. v.change .. ")") or "")
    elseif ver == "no clear difference" then
      -- (kind kept for scripts; the words never read as sameness: ranges that overlap across
      -- 0 leave either order open)
      v.kind = "no clear difference"
      -- (the gap held to the runs' tokens beside the measured one, where their requests differ:
      -- decision.capacity_token_gap, token54)
      -- Its own words (verdict55): measured, and no difference found - never "Cannot say", the
      -- words of a comparison these data cannot decide (a capacity N/A, no repeats, an open
      -- range, the rates' noise), which printed the same sentence for both
      v.text = ("No clear difference in %s: %s; measured with repeats at every load point, whose ranges overlap, so "
        .. "neither is shown higher, nor are they shown the same%s: no winner."):format(measure, both,
        v.change and (" (B − A: " .. v.change .. M.token_held_text(A, B, ev) .. ")") or "")
      v.settle = capacity_settle(model, A, B, ca, cb, ev, gpu, lead_gpu)
    elseif ver == "not shown to differ" then
      v.kind = "not shown to differ"
      if ev.token_explained then
        v.reason = token_order_reason(model, A, B, ev.token_explained) .. "; no winner"
      elseif ev.token_same then
        v.reason = token_same_reason(model, A, B, ev.token_same) .. "; no winner"
      elseif ev.least_below_threshold then
        -- (an order whose least gap is below the threshold: at least as much, no winner;
        -- what measuring below a lowest load would tell, where that is the lower run's)
        v.reason = least_below_reason(model, A, B, ev, gpu) .. "; no winner"
        v.settle = capacity_settle(model, A, B, ca, cb, ev, gpu, lead_gpu)
      elseif ev.steps_cannot_order then
        v.reason = ev.open_same_load and steps_reason(A, B, ca, cb, gpu, ev)
          or "the load steps are too coarse to order them, whatever the repeats"
        -- (how many more repeats of the loads that leave it open, where the repeats say)
        v.settle = capacity_settle(model, A, B, ca, cb, ev, gpu, lead_gpu)
      elseif ev.overdispersed then
        v.reason = "whether the error-rate SLO holds varies between one run's repeats beyond chance ("
          .. dispersion_cause_text(ev.overdispersed) .. "), not with the configuration"
      elseif ev.open_range then
        -- (the evidence's verdict kept for scripts; the Verdict's kind is its words', "cannot say":
        -- either may be higher, and what would settle it; audit46: kind "not shown to differ"
        -- beside "Cannot say which sustains more load")
        v.kind = "cannot say"
        v.reason = ("the repeats' ranges overlap (%s), so either may be higher"):format(open_ends_text(A, B, ca, cb))
        v.settle = capacity_settle(model, A, B, ca, cb, ev, gpu, lead_gpu)
      else
        local g = decision.capacity_gap(ca, cb)
        v.reason = ("the figures are within the practical threshold of %s %%, but the measured loads allow B − A %s")
          :format(thr, g and decision.gap_pct_text(g, T.helpers.pct) or "either way")
      end
      -- (its words from its kind: one source for both; an order whose least gap is below the
      -- threshold, the largest beyond it: at least as high, at_least_text)
      v.text = v.kind == "cannot say" and ("Cannot say which %s: %s; %s."):format(more, both, v.reason)
        or ev.least_below_threshold and at_least_text(ev.margin_higher, ev,
          least_below_reason(model, A, B, ev, gpu))
        or ("Not shown to differ in %s: %s; %s."):format(measure, both, v.reason)
    else
      v.kind = "cannot say"
      -- a side with no capacity at all (non-monotone, an SLO metric missing, ...): its N/A
      -- and why are in its figure
      local na = {}
      for _, x in ipairs { { A, ca }, { B, cb } } do
        if not (lp.capacity_has_figure(x[2]) or is_bound(x[2]) or x[2].kind == "below_lowest") then
          na[#na + 1] = x[1].label
        end
      end
      if #na > 0 then
        v.reason = ("no capacity can be read for %s"):format(table.concat(na, " or "))
        -- a non-monotone run: the Summary's advice (repeat those loads), here too, naming them:
        -- from the first that failed to the last above it that met the SLOs
        local rep = {}
        for _, x in ipairs { { A, ca }, { B, cb } } do
          local c = x[2]
          if c.kind == "non_monotone" and c.first_failing and c.passed then
            local top = c.first_failing
            for _, i in ipairs(c.passed) do if i > top then top = i end end
            local ids = {}
            for i = c.first_failing, top do ids[#ids + 1] = tostring(i) end
            rep[#rep + 1] = #ids == 1 and ("%s's load point %s"):format(x[1].label, ids[1])
              or ("%s's load points %s"):format(x[1].label, #ids == 2 and table.concat(ids, " and ")
                or (ids[1] .. " to " .. ids[#ids]))
          end
        end
        if #rep > 0 then
          v.settle = ("To settle it: repeat %s (a load that met the SLOs lies above one that failed: noise or a "
            .. "warm-up can do this)."):format(table.concat(rep, "; "))
        end
      elseif is_bound(ca) and is_bound(cb) then
        v.reason = "both are lower bounds, which leave room for either order"
        v.settle = capacity_settle(model, A, B, ca, cb, ev, gpu, lead_gpu)
      elseif ca.kind == "below_lowest" and cb.kind == "below_lowest" then
        v.reason = "both failed the SLOs at their lowest load"
      else
        v.reason = "a capacity is unknown"
      end
      v.text = ("Cannot say which %s: %s: %s."):format(more, v.reason, both)
    end
    -- (a crash in the higher run, which can only have lowered it: said beside the order)
    if ev.crash_in_higher and v.higher then
      v.text = ("%s %s."):format(v.text, crash_in_higher_text(v.higher == "b" and B or A, ev.crash_in_higher))
    end
  else
    local mixed = {}
    for _, s in ipairs { model.saturation.a, model.saturation.b } do
      if s.max_sustained_na then mixed[#mixed + 1] = s.max_sustained_na end
    end
    local ra, rb = sustained_repeated(model)
    v.basis = (ra and rb) and "means of the repeats at each load point"
      or (ra or rb) and ("one run per load for %s"):format(ra and B.label or A.label) or "one run per load"
    local o = #mixed == 0 and sustained_order(model, lead_gpu) or nil
    if #mixed > 0 then
      v.kind, v.reason = "cannot say", table.concat(mixed, "; ")
      v.text = ("Cannot say which %s: %s."):format(more, v.reason)
    elseif o and o.within_noise then
      -- (spans apart by less than the noise of their rates: decision.sustained_order)
      local hi, lo = o.within_noise == "b" and B or A, o.within_noise == "b" and A or B
      local per = apart_rate(o.within_noise == "b" and o.lb or o.la, o.within_noise == "b" and o.ha or o.hb, o.unit)
      v.kind = "cannot say"
      v.reason = ("the measured loads put %s above (%s sustained %s, %s never achieved more than %s at any load), %s")
        :format(hi.label, hi.label, per(o.within_noise == "b" and o.lb or o.la), lo.label,
        per(o.within_noise == "b" and o.ha or o.hb), decision.sustained_noise_text(o, per, hi.label, lo.label))
      v.text = ("Cannot say which %s: %s: %s."):format(more, both, v.reason)
      -- how long the loads would have to be (decision.noise_settle_text), as the latency rows
      -- say what would settle theirs: right after the reason, before the latencies' sentence
      local ns = decision.noise_settle_text(o.noise, per, lead_gpu)
      if ns then
        v.settle = "To settle it: " .. ns .. "."
        v.text, settle_said = v.text .. " " .. v.settle, true
      end
    elseif o and o.token_explained then
      -- (an order the runs' token lengths can explain: no winner, decision.sustained_order)
      v.kind = "not shown to differ"
      v.reason = token_order_reason(model, A, B, o.token_explained)
      v.text = ("Not shown to differ in %s: %s; %s; no winner."):format(measure, both, v.reason)
    elseif o and o.token_same then
      -- (within the threshold as measured, not held to the tokens: fixh53)
      v.kind = "not shown to differ"
      v.reason = token_same_reason(model, A, B, o.token_same)
      v.text = ("Not shown to differ in %s: %s; %s; no winner."):format(measure, both, v.reason)
    elseif o and o.higher and o.least_below_threshold then
      -- (a least gap below the threshold: at least as high, no winner, as the capacity's)
      local hi, lo = o.higher == "b" and B or A, o.higher == "b" and A or B
      local per = function(x) return T.helpers.num(x, 2) .. o.unit end
      v.reason = sustained_least_below_reason(model, o, hi, lo, "", per)
      v.text = at_least_text(o.higher, o, v.reason)
      v.reason = v.reason .. "; no winner"
    elseif o and o.higher and o.below_threshold then
      -- an order by less than the threshold at both ends of the gap: no practical difference,
      -- "about the same", as the capacity's (it read "Not shown to differ", the open case's
      -- words, fixb53)
      v.kind = "about the same"
      -- (the two figures the gap is between, as the capacity's: newuser47 F13)
      local hi, lo = o.higher == "b" and B.label or A.label, o.higher == "b" and A.label or B.label
      local fh, fl = o.higher == "b" and o.lb or o.la, o.higher == "b" and o.ha or o.hb
      local between = (fh and fl) and (" (%s sustained %s, %s never achieved more than %s at any load)"):format(hi,
        T.helpers.num(fh, 2) .. o.unit, lo, T.helpers.num(fl, 2) .. o.unit) or ""
      v.reason = ("the measured loads put %s above, but by %s only%s%s within the practical threshold "
        .. "of %s %%: no winner"):format(hi, T.helpers.pct(o.margin_pct), between,
        decision.largest_within_text(o.margin_max_pct, model.min_effect), thr)
      v.text = ("About the same %s: %s; %s."):format(measure, both, v.reason)
    elseif o and o.higher then
      v.kind = "ordered"
      v.text = ordered(o.higher, ("Untested (%s), but the measured loads order them."):format(v.basis))
    else
      v.kind = "cannot say"
      v.reason = o and "the measured loads cannot order them" or "a max sustained throughput is unknown"
      v.text = ("Cannot say which %s: %s: %s."):format(more, v.reason, both)
      -- (what would settle it, as the SLO Verdict's settle_text says of its lower bounds)
      v.settle = o and sustained_settle_text(model, A, B) or nil
    end
    -- a verdict that cannot order them: what the runs' latencies at their common load say,
    -- in short (the Summary has the figures), and how to get a capacity
    -- (compared only at a load both runs are known to have sustained: past saturation a
    -- latency is the queue's, and no direction is named, as no test is made there)
    local nl = #mixed == 0 and v.kind == "cannot say" and model.no_slo_latency
    local before = v.text
    if nl and nl.unknown then
      v.latency = { how = "unknown", why = nl.unknown }
      v.text = ("%s Their latencies are not compared: %s. --slo gives capacity within an SLO."):format(v.text,
        nl.unknown)
    elseif nl and not nl.sustained then
      v.latency = { how = "not compared", load = matched_load_text(nl, A, B), sustained = false }
      v.text = ("%s Their latencies are not compared: %s. --slo gives capacity within an SLO."):format(v.text,
        nl.unsustained)
    elseif nl then
      local parts, n_tested, apart = {}, 0, {}
      for _, r in ipairs(nl.rows) do
        local tested = left_out_text(nl, r.key, perf_test_text(model.perf, r.key, A, B, apart))
        if tested then n_tested = n_tested + 1 end
        parts[#parts + 1] = ("%s %s%s"):format(lower_label(metrics.get(r.key).label),
          r.a == r.b and (metrics.format(r.key, r.a) .. " for both")
          or r.a ~= 0 and T.helpers.pct((r.b - r.a) / math.abs(r.a) * 100)
          or (metrics.format(r.key, r.b) .. " vs " .. metrics.format(r.key, r.a)), tested and (" (" .. tested .. ")")
          or "")
      end
      local how = no_slo_how(nl, model.min_effect, model.perf)
      v.latency = { how = how, load = matched_load_text(nl, A, B), sustained = nl.sustained, tested = n_tested }
      -- (a difference no test was made of reads as untested, never "not shown to differ",
      -- which reads as sameness; a metric the table tests, with that test's result, and then
      -- never "untested" beside it: no_slo_untested_note)
      local list = table.concat(parts, ", ")
      local what
      if how == "the same" or how == "within the practical threshold" then
        local note = n_tested == 0 and "untested" or no_slo_untested_note(nl, n_tested)
        what = ("are %s (%s%s)"):format(how == "the same" and "the same"
          or ("within the practical threshold of %s %%"):format(thr), list, note and ("; " .. note) or "")
      elseif n_tested == 0 then
        what = ("are untested: %s (%s)"):format(list, nl.untested_why or NO_SLO_UNTESTED_WHY)
      else
        local note = no_slo_untested_note(nl, n_tested)
        what = ("against %s's: %s%s"):format(A.label, list, note and (" (" .. note .. ")") or "")
      end
      v.text = ("%s At %s, the highest load both sustained, %s's latencies %s%s.%s --slo gives capacity within an "
        .. "SLO."):format(v.text, v.latency.load, B.label, what, no_slo_missing_text(nl), once_sentence(apart))
    end
    latency_said = v.text:sub(#before + 1)
  end
  -- one run in both folders (model.identical): nothing here is two configurations'. Figures
  -- that differ differ by how the two were read (per-request pace against a benchmark report's
  -- drain-reduced rate), never by a configuration; figures that agree are one measurement
  -- agreeing with itself. No run is named higher, whatever the figures, and nothing is advised
  -- to measure: no load measured again would tell a run from itself (the latencies at a
  -- common load, the same requests, say nothing either)
  if model.identical and v.kind ~= "broken" then
    v.kind, v.higher, v.reason, v.settle = "cannot say", nil, "one run's results in both folders", nil
    v.interval_coverage = nil
    -- (figures read two ways keep the latency clause: the same latencies at the highest load
    -- both sustained show the reader it is one run; one figure read once has nothing to add)
    if v.a_figure == v.b_figure then v.latency = nil end
    if v.a_figure ~= v.b_figure then
      v.text = ("Cannot say which sustains more load: both folders hold one run's results, so %s's %s against %s's "
        .. "%s differ by how the two were read, not by a configuration.%s"):format(A.label, v.a_figure or "figure",
        B.label, v.b_figure or "figure", v.latency and latency_said or "")
    else
      v.text = ("Cannot say which sustains more load: both folders hold one run's results (%s: %s), so this compares "
        .. "one measurement with itself%s"):format(has_slo and measure or ("max sustained throughput" .. gpu),
        v.a_figure, model.same_config_rerun and (": both recorded the same configuration (a re-run), and only the "
          .. "re-run's own results, measured again, show its run-to-run variation.")
        or (", and no further load measured of it would tell two configurations apart: give the other "
          .. "configuration's results."))
    end
  end
  -- results not known to be their configuration's (model.config_mismatch): the Verdict leads
  -- with that and names no run from them, whatever the figures (an A/A check, the wrong
  -- results folder, a harness that ran another workload)
  local mismatch_led = false
  if model.config_mismatch and v.kind ~= "broken" and v.kind ~= "not comparable" then
    mismatch_led = true
    v.kind, v.higher, v.reason, v.latency, v.settle = "cannot say", nil, model.config_mismatch, nil, nil
    v.text = ("Cannot say which %s: %s (see Data checks), so they are not known to be that configuration's run "
      .. "(%s)."):format(more, v.reason, both)
  end
  -- what the banners below warn of, where it bears on the figures
  -- (capacities the evidence cannot order: what would settle it, from their unclear loads)
  if v.settle and not settle_said then v.text = v.text .. " " .. v.settle end
  local caveats = {}
  -- result files --tolerant left out: the figures this verdict reads lack what they held (a
  -- stage file's load point gone moved newuser44's max sustained from 92.21 to 61.79 req/s,
  -- and only a banner under the Verdict named the file)
  if v.kind ~= "broken" then
    for _, x in ipairs { A, B } do
      caveats[#caveats + 1] = M.left_out_text(x.label, { x.run })
    end
  end
  -- (the same files byte for byte, or the same results in other files: said as found)
  if model.identical then
    caveats[#caveats + 1] = tostring(model.identical):find("byte for byte", 1, true)
      and "both folders hold the same files" or "both folders hold the same results, in other files"
  end
  for _, x in ipairs { model.a, model.b } do
    if x.partial then caveats[#caveats + 1] = ("%s is a partial run"):format(x.label) end
  end
  -- a run whose files disagree on its request count (cut short?), which the Data checks alone
  -- said before (M.cut_short_text)
  for _, x in ipairs { A, B } do
    if v.kind ~= "broken" then caveats[#caveats + 1] = M.cut_short_text(x.label, x.run or {}) end
  end
  -- (a summary that disagrees with its stage files: a stage file another run's?)
  for _, x in ipairs { A, B } do
    if v.kind ~= "broken" then caveats[#caveats + 1] = M.counts_disagree_text(x.label, x.run or {}) end
  end
  -- (requests far from the lengths the benchmark config asks for)
  for _, x in ipairs { A, B } do
    if v.kind ~= "broken" then caveats[#caveats + 1] = M.lengths_text(x.label, x.run or {}) end
  end
  -- (a re-run holding its run's results: the Verdict said so already)
  if model.same_config and v.kind ~= "broken" and not (model.identical and model.same_config_rerun) then
    caveats[#caveats + 1] = model.same_config
  end
  if model.different_cluster then caveats[#caveats + 1] = model.different_cluster end
  if model.config_mismatch and not mismatch_led then caveats[#caveats + 1] = model.config_mismatch end
  if model.like_unverified and v.kind ~= "broken" and v.kind ~= "not comparable" then
    caveats[#caveats + 1] = ("like for like not verified: %s"):format(model.like_unverified)
  end
  if model.gpus_differ and not lead_gpu then
    caveats[#caveats + 1] = "a GPU count is unknown, so the totals may compare different amounts of hardware"
  end
  -- a figure the verdict reads that the run's own files disagree on, with no better source
  -- (said here, in the line the decision is read from, not only in the Summary)
  for _, x in ipairs { A, B } do
    local _, keys = doubtful_figures(x.run or {}, has_slo and model.slo or nil)
    if #keys > 0 and v.kind ~= "broken" and v.kind ~= "not comparable" then
      local names = M.figure_names(keys)
      caveats[#caveats + 1] = ("%s's own files disagree on figures this verdict reads (%s), with nothing to settle "
        .. "which is right, so the verdict is in doubt"):format(x.label, table.concat(names, ", "))
      v.in_doubt = v.in_doubt or {}
      v.in_doubt[#v.in_doubt + 1] = { run = x == A and "a" or "b", keys = keys }
    end
  end
  -- a run saved under an older saturation rule (analyze.lua on an old workspace:
  -- llmd.comparison.saved_side), per run, with the command that reads it again; and where the
  -- two runs' rules differ and its results could not be read again, that too
  for _, x in ipairs { A, B } do
    local run = x.run or {}
    if run.mixed_rule then
      caveats[#caveats + 1] = run.mixed_rule
    elseif run.old_rule then
      caveats[#caveats + 1] = ("%s's saturation, and so its max sustained throughput and capacity, is judged by an "
        .. "older rule (saved before the current one; %s reads its results again)"):format(x.label, run.old_rule)
    end
  end
  -- a run whose vLLM server crashed and restarted during its benchmark (kept: no attempt ran
  -- without): its figures are not a steady server's
  for _, x in ipairs { A, B } do
    if (x.run or {}).server_restarted then
      caveats[#caveats + 1] = ("%s's vLLM server restarted during its benchmark (see Data checks), so its figures "
        .. "include a crash and a restart"):format(x.label)
    end
  end
  if #caveats > 0 then
    v.caveat = table.concat(caveats, "; ")
    v.text = ("%s Warning: %s (see below)."):format(v.text, v.caveat)
  end
  return v
end

-- Two capacities whose ranges from the repeats overlap.
local function overlap_text(phrase, A, B, ca, cb, ev)
  -- ("no clear difference (measured ...)" first, the Verdict's words: measured, and no
  -- difference found, never the undecidable case's "either may be higher" alone; verdict55)
  return ("Capacity within %s: %s for %s, %s for %s: no clear difference (measured with repeats): %s; the ranges are "
    .. "%s."):format(phrase, capacity_text(ca),
    A.label, capacity_text(cb), B.label, decision.no_clear_difference_text(decision.capacity_gap(ca, cb),
      T.helpers.pct, ("%s vs %s"):format(B.label, A.label), M.token_held_text(A, B, ev)), decision.range_what(ca, cb))
end

-- Two capacities that an error-rate SLO a run's repeats disagree on cannot order.
local function dispersion_text(phrase, A, B, ca, cb, od)
  return ("Capacity within %s not shown to differ: %s for %s, %s for %s; %s, so neither run is named higher.")
    :format(phrase, capacity_text(ca), A.label, capacity_text(cb), B.label, dispersion_reason(A, B, od))
end

-- Two capacities whose ranges from the repeats overlap, one of them open-ended (no upper
-- end, or down to 0): either may be higher, as the Verdict says (the evidence's verdict "not
-- shown to differ", kept for scripts), never "no clear difference" (which reads as sameness).
-- With what would settle it, the Verdict's advice (settle_text, one source for both), unless
-- both folders hold one run's results (nothing measured would tell it from itself).
local function open_range_text(model, phrase, A, B, ca, cb)
  local settle = not model.identical and settle_text(model, A, B, ca, cb) or nil
  return ("Capacity within %s: %s for %s, %s for %s: either may be higher; the ranges the repeats allow (%s) overlap, "
    .. "but %s, so they leave room for any gap: neither sameness nor an order is shown.%s"):format(phrase,
    capacity_text(ca), A.label, capacity_text(cb), B.label, decision.range_what(ca, cb), open_ends_text(A, B, ca, cb),
    settle and (" " .. settle) or "")
end

-- Two capacities the measured loads order by less than the practical threshold at both ends
-- of the gap: about the same (the Summary's words of that meaning, as two figures within it
-- whose spans keep it within), with the order and its margins, and no run named higher.
local function below_threshold_text(model, phrase, A, B, ca, cb, ev)
  return ("Both sustain about the same load within %s: %s for %s, %s for %s; %s, so neither run is named higher.")
    :format(phrase, capacity_text(ca), A.label, capacity_text(cb), B.label, below_threshold_reason(model, A, B, ev))
end

-- Two capacities whose order is known but whose least gap is below the practical threshold
-- and whose largest is beyond it or has no upper end (decision.capacity_evidence's
-- least_below_threshold): at least as much, decision.AT_LEAST_NO_WINNER (never "no
-- clear difference", which reads as sameness beside a gap up to +200 %: audit51b D3), no run
-- named higher; what measuring below a
-- lowest load would tell, where the lower run failed there, or loads where each capacity
-- lies, where a pass and a fail at one offered load order them (as the Verdict's advice).
local function least_below_text(model, phrase, A, B, ca, cb, ev)
  local advice = least_below_advice(model, A, B, ca, cb, ev)
  local hi, lo = ev.margin_higher == "b" and B or A, ev.margin_higher == "b" and A or B
  return ("Capacity within %s: %s at least as high as %s (%s), %s: %s for %s, "
    .. "%s for %s; %s, so neither run is named higher.%s"):format(phrase, hi.label, lo.label,
    decision.at_least_gap_range(ev, T.helpers.pct, model.min_effect), decision.AT_LEAST_NO_WINNER, capacity_text(ca),
    A.label, capacity_text(cb),
    B.label, least_below_reason(model, A, B, ev), advice and (" " .. advice) or "")
end

-- Two capacities whose ranges from the repeats overlap, where the load steps cannot order
-- them either: not shown to differ, never "no clear difference" (which reads as sameness).
local function steps_cannot_order_text(phrase, A, B, ca, cb, ev)
  return ("Capacity within %s not shown to differ: %s for %s, %s for %s; the ranges the repeats allow overlap, and "
    .. "%s%s."):format(phrase, capacity_text(ca), A.label,
    capacity_text(cb), B.label, steps_reason(A, B, ca, cb, nil, ev),
    ev and ev.open_same_load and "" or ": only loads measured between those could tell them apart")
end

-- "TTFT p90" for an SLO key, "the SLOs" without one.
local function slo_metric(key)
  return key and metrics.has(key) and metrics.get(key).label or "an SLO metric"
end

-- The statement that neither run violates the SLOs at any load measured, as certain as the
-- data make it: from the means, checked against the upper ends of each point's 95 %
-- confidence interval where a run has repeats (its capacity interval's upper_ends: where
-- the SLOs fail with every metric at its upper end), and said to rest on one run per load
-- where it does.
local function never_violated_text(phrase, A, B, ca, cb, w)
  local base = ("%s at any load measured (up to %s for %s, %s for %s)"):format(phrase, rate_text(ca.rps), A.label,
    rate_text(cb.rps), B.label)
  local crossing, held, single = {}, {}, {}
  for _, s in ipairs { { A, ca }, { B, cb } } do
    local side, c = s[1], s[2]
    local up = c.interval and c.interval.upper_ends
    if not up then
      single[#single + 1] = side.label
    elseif up.kind == "never_violated" then
      held[#held + 1] = side.label
    else
      crossing[#crossing + 1] = ("for %s the upper end of %s's 95 %% confidence interval crosses its limit at "
        .. "load point %s, %s"):format(side.label, slo_metric(up.limiting), tostring(up.first_failing or 1),
        rate_text(up.first_failing_rps))
    end
  end
  if #crossing > 0 then
    local rest = {}
    for _, l in ipairs(held) do rest[#rest + 1] = ("for %s the upper ends stay within it"):format(l) end
    for _, l in ipairs(single) do rest[#rest + 1] = ("for %s one run per load gives no interval"):format(l) end
    return ("Neither run's mean violates %s, but the repeats cannot rule a violation out: %s. Cannot tell "
      .. "whether %s %s there; more repeats would narrow the intervals."):format(base,
      table.concat(crossing, "; ") .. (#rest > 0 and ("; " .. table.concat(rest, "; ")) or ""), w.the, w.holds)
  end
  local how
  if #single == 0 then
    how = "even at the upper ends of the 95 % confidence intervals of the repeats"
  elseif #held == 0 then
    how = "from one run per load, with no confidence interval"
  else
    how = ("for %s even at the upper ends of its 95 %% confidence intervals, for %s from one run per load with "
      .. "no interval"):format(held[1], single[1])
  end
  return ("Neither run violates %s, %s: measure higher loads to find the capacities."):format(base, how)
end

-- The statement that neither run meets the SLOs even at its lowest load, as certain as
-- the data make it: checked against the lower ends of the 95 % confidence intervals (the
-- capacity interval's lower_ends) where a run has repeats.
local function below_lowest_text(phrase, A, B, ca, cb, w)
  local base = ("%s even at its lowest load (%s for %s, %s for %s)"):format(phrase, rate_text(ca.lowest_rps),
    A.label, rate_text(cb.lowest_rps), B.label)
  local reach, held, single = {}, {}, {}
  for _, s in ipairs { { A, ca }, { B, cb } } do
    local side, c = s[1], s[2]
    local lo = c.interval and c.interval.lower_ends
    if not lo then
      single[#single + 1] = side.label
    elseif lo.kind == "below_lowest" then
      held[#held + 1] = side.label
    elseif lo.kind == "non_monotone" and lo.passed and lo.passed[1] ~= 1 then
      -- the lower ends fail at the lowest load too, but meet the SLOs at a higher one
      reach[#reach + 1] = ("for %s the lower ends of the 95 %% confidence intervals meet every SLO at load point %d"
        .. ", above its lowest"):format(side.label, lo.passed[1])
    else
      reach[#reach + 1] = ("for %s the lower ends of the 95 %% confidence intervals at its lowest load meet "
        .. "every SLO"):format(side.label)
    end
  end
  if #reach > 0 then
    local rest = {}
    for _, l in ipairs(held) do rest[#rest + 1] = ("for %s even the lower ends fail"):format(l) end
    for _, l in ipairs(single) do rest[#rest + 1] = ("for %s one run per load gives no interval"):format(l) end
    return ("Neither run's mean meets %s, but the repeats cannot rule out that it does: %s. Cannot tell; "
      .. "more repeats would narrow the intervals; lower loads than those tried might or might not meet %s.")
      :format(base,
      table.concat(reach, "; ") .. (#rest > 0 and ("; " .. table.concat(rest, "; ")) or ""), w.the)
  end
  local how
  if #single == 0 then
    how = "even at the lower ends of the 95 % confidence intervals of the repeats"
  elseif #held == 0 then
    how = "from one run per load, with no confidence interval"
  else
    how = ("for %s even at the lower ends of its 95 %% confidence intervals, for %s from one run per load with "
      .. "no interval"):format(held[1], single[1])
  end
  -- failing even at the lowest load tried, an SLO may be out of reach at any load: lower loads
  -- than those tried might meet it, or might not
  return ("Neither run meets %s, %s: %s may be unattainable for both at any load; lower loads than those "
    .. "tried might or might not meet %s."):format(base, how, w.the, w.it)
end

-- "x meets ... at none of its load points", as certain as the data make it.
local function fails_all_text(side, c, phrase, slo)
  -- the SLOs that fail at the lowest load (c.failing), not all of them: "Error rate ≤ 1.00 %"
  -- where only the error rate fails
  if c.failing and slo then
    local fail, parts = {}, {}
    for _, k in ipairs(c.failing) do fail[k] = true end
    for _, s in ipairs(slo) do if fail[s.key] then parts[#parts + 1] = s.text end end
    if #parts > 0 and #parts < #slo then phrase = table.concat(parts, " and ") end
  end
  local lo = c.interval and c.interval.lower_ends
  if not lo then return ("%s meets %s at none of its load points"):format(side.label, phrase) end
  if lo.kind == "below_lowest" then
    return ("%s meets %s at none of its load points, even at the lower ends of its 95 %% confidence intervals")
      :format(side.label, phrase)
  end
  return ("%s's means meet %s at none of its load points, but the lower ends of its 95 %% confidence intervals "
    .. "allow a capacity %s"):format(side.label, phrase, interval_text(c.interval))
end

-- The percentiles of key's metric (TPOT for tpot_p90_ms) that a run's files hold at every
-- load point: {"p50", "p95", ...} in catalogue order, the mean first where there is one.
local function recorded_stats(points, key)
  local prefix = key:match("^(.-)_p%d+_ms$") or key:match("^(.-)_mean_ms$")
  if not prefix then return {} end
  local out = {}
  local cands = { { prefix .. "_mean_ms", "mean" } }
  for _, q in ipairs(metrics.PCTS) do cands[#cands + 1] = { prefix .. "_" .. q[1] .. "_ms", q[1] } end
  for _, c in ipairs(cands) do
    local all = #points > 0
    for _, p in ipairs(points) do if lp.field(p, c[1]) == nil then all = false end end
    if all and metrics.has(c[1]) and c[1] ~= key then out[#out + 1] = c end
  end
  return out
end

-- For an SLO on key (ttft_p90_ms) that some run's files lack: the percentile of its metric
-- nearest above it (else below) that every run's files record at every load point (lists:
-- one list of load points a run), its key (ttft_p95_ms); nil where none is.
function M.slo_alternative(lists, key)
  local want = tonumber(((key:match("_p(%d+)_ms$") or ""):gsub("^999$", "99.9"))) or 50
  local count, alt = {}, nil
  for _, pts in ipairs(lists) do
    for _, c in ipairs(recorded_stats(pts, key)) do count[c[1]] = (count[c[1]] or 0) + 1 end
  end
  for _, c in ipairs(recorded_stats(lists[1] or {}, key)) do
    local q = count[c[1]] == #lists and c[2] ~= "mean" and tonumber((c[2]:sub(2):gsub("^999$", "99.9"))) or nil
    if q and (not alt or (q >= want and (alt.q < want or q < alt.q)) or (alt.q < want and q > alt.q)) then
      alt = { key = c[1], q = q }
    end
  end
  return alt and alt.key or nil
end

-- key where every run's files record it at every load point, else M.slo_alternative's (or
-- key, where none is).
local function recorded_key(lists, key)
  local all = #lists > 0
  for _, pts in ipairs(lists) do
    for _, p in ipairs(pts) do if lp.field(p, key) == nil then all = false end end
  end
  return all and key or M.slo_alternative(lists, key) or key
end

-- The --slo a report suggests where none was given ("ttft_p90_ms=200,error_rate_pct=1"; rest:
-- the limits after the TTFT one), on a TTFT percentile every run's files record (lists: one
-- list of load points a run): TTFT p90 where they all do, else M.slo_alternative's
-- (newuser44: treatments.lua suggested TTFT p90 on files that hold p95 only).
function M.slo_suggestion(lists, rest)
  return ("%s=200%s"):format(recorded_key(lists, "ttft_p90_ms"), rest or ",error_rate_pct=1")
end

-- The SLO metrics the runs' files lack, each said once with the runs that lack it, what
-- they do record of that metric and what the user can do: an SLO on a recorded
-- percentile, or a rerun that records this one. nil when no SLO metric is missing.
local function missing_slo_text(model, A, B, pa, pb)
  local order, by = {}, {}
  for _, x in ipairs { { A, model.capacity.a, pa }, { B, model.capacity.b, pb } } do
    for _, m in ipairs(x[2].missing or {}) do
      local e = by[m.key]
      if not e then
        e = { key = m.key, runs = {} }
        by[m.key] = e
        order[#order + 1] = e
      end
      e.runs[#e.runs + 1] = { side = x[1], m = m, points = x[3] }
    end
  end
  if #order == 0 then return nil end
  local out = {}
  -- a metric unknown at some load points only (a null in one stage file): the files do
  -- record it, so neither "not in the files" nor another percentile is the fix
  local function partial_text(e, label)
    local where, whys = {}, {}
    for _, r in ipairs(e.runs) do
      where[#where + 1] = ("%s's load point%s %s"):format(r.side.label, #r.m.points > 1 and "s" or "",
        table.concat(r.m.points, ", "))
      whys[#whys + 1] = tostring(r.m.na)
    end
    return ("%s is unknown at %s (%s): rerun %s"):format(label, table.concat(where, " and "),
      table.concat(whys, "; "), (#e.runs > 1 or #e.runs[1].m.points > 1) and "those loads" or "that load")
  end
  -- NTPOT recorded but unknown only because inference-perf's summary may count 0-token
  -- requests as 0 (llmd.harness.inference_perf.zero_counted): neither "not in the files" nor a
  -- rerun (another summary has the same problem) but the per-request file settles it (fixh43)
  local ip = require "llmd.harness.inference_perf"
  local function zero_text(e, label)
    local where, whys, seen = {}, {}, {}
    for _, r in ipairs(e.runs) do
      where[#where + 1] = r.m.every == false and ("%s's load point%s %s"):format(r.side.label,
        #r.m.points > 1 and "s" or "", table.concat(r.m.points, ", ")) or r.side.label
      local why = tostring(r.m.na)
      if not seen[why] then seen[why], whys[#whys + 1] = true, why end
    end
    return ("%s is recorded in the files but unknown at %s (%s): inference-perf's per-request file "
      .. "(per_request_lifecycle_metrics.json), which lets the 0-token requests be left out, settles it; another "
      .. "summary would not"):format(label, table.concat(where, " and "), table.concat(whys, "; "))
  end
  for _, e in ipairs(order) do
    local label = metrics.get(e.key).label
    local partial = false
    local zero = true
    for _, r in ipairs(e.runs) do if not ip.zero_counted(r.m.na) then zero = false end end
    if zero then
      out[#out + 1] = zero_text(e, label)
      goto next
    end
    -- (or known to be recorded, its bracket holding the limit: llmd.loadpoints' m.bracketed)
    for _, r in ipairs(e.runs) do if r.m.every == false or r.m.bracketed then partial = true end end
    if partial then
      out[#out + 1] = partial_text(e, label)
      goto next
    end
    local family = label:gsub(" [^ ]+$", "")
    local names, rec_texts, whys, seen_why = {}, {}, {}, {}
    local pct
    for _, r in ipairs(e.runs) do
      names[#names + 1] = r.side.label
      local rec = recorded_stats(r.points, e.key)
      local list = {}
      for _, c in ipairs(rec) do list[#list + 1] = c[2] == "p999" and "p99.9" or c[2] end
      rec_texts[#rec_texts + 1] = #list > 0 and ("%s's files record %s %s only"):format(r.side.label, family,
        table.concat(list, "/")) or ("%s's files record no %s statistic"):format(r.side.label, family)
      local why = tostring(r.m.na)
      if not seen_why[why] then
        seen_why[why] = true
        whys[#whys + 1] = why
      end
      pct = pct or why:match("%-%-metric%-percentiles left out ([%d.]+)")
    end
    -- what the files hold, once when both runs hold the same
    local holds = rec_texts[1]
    if #rec_texts == 2 and rec_texts[1]:gsub("^.-'s files", "") == rec_texts[2]:gsub("^.-'s files", "") then
      holds = "both runs' files" .. rec_texts[1]:gsub("^.-'s files", "")
    elseif #rec_texts == 2 then
      holds = rec_texts[1] .. ", " .. rec_texts[2]
    end
    -- for --slo: the percentile nearest above the missing one (else below) that both
    -- runs hold at every load point, so that an SLO on it can be read for both
    local alt = M.slo_alternative({ pa, pb }, e.key)
    local where = #names == 2 and "in neither run's files" or ("not in %s's files"):format(names[1])
    local todo = {}
    if alt then todo[#todo + 1] = ("use --slo %s=… (a percentile both runs record)"):format(alt) end
    if pct then
      todo[#todo + 1] = ("rerun with --metric-percentiles including %s"):format(pct)
    elseif whys[1]:find("--percentile-metrics", 1, true) then
      todo[#todo + 1] = "rerun with e2el in --percentile-metrics"
    else
      -- no option to name: the run's own reason says what is missing
      todo[#todo + 1] = ("rerun so that the harness records it (%s)"):format(table.concat(whys, "; "))
    end
    out[#out + 1] = ("%s is %s (%s): %s"):format(label, where, holds, table.concat(todo, ", or "))
    ::next::
  end
  return "Capacity at SLO needs every SLO metric at every load point. " .. table.concat(out, ". ") .. "."
end

-- What each run's capacity rests on, for the SLO paragraph: "A: reason. B: reason", with
-- the SLO metrics the runs lack said once for both (missing_slo_text) instead.
local function capacity_reasons(model, A, B, missing)
  local parts, lacking = {}, {}
  local ip = require "llmd.harness.inference_perf"
  local recorded = true -- (every metric lacking is in the files, unknown for its 0-token requests)
  for _, x in ipairs { { A, model.capacity.a }, { B, model.capacity.b } } do
    if x[2].missing then
      lacking[#lacking + 1] = x[1].label
      for _, m in ipairs(x[2].missing) do if not ip.zero_counted(m.na) then recorded = false end end
    else
      parts[#parts + 1] = x[1].label .. ": " .. tostring(x[2].reason)
    end
  end
  if missing and #lacking > 0 then
    table.insert(parts, 1, ("%s: unknown, an SLO metric is %s (the Summary says which, and what "
      .. "to do)"):format(table.concat(lacking, " and "), recorded and "recorded in the files but unknown"
      or "not in the run's files"))
  end
  return table.concat(parts, ". ")
end

-- The differences between the runs' loads that pool the whole-run rows, as they are:
-- "A was driven at 1–183.38 req/s, B at 1–254.49 req/s (7 load points each)". "Driven
-- differently" is kept for different load types (rate against concurrency).
local function load_difference_text(model, A, B)
  local pa, pb = model.load_points.a, model.load_points.b
  local function span(points)
    local lo, hi, kind
    for _, p in ipairs(points) do
      if p.offered then
        lo = (not lo or p.offered < lo) and p.offered or lo
        hi = (not hi or p.offered > hi) and p.offered or hi
      end
      kind = kind or p.load_type
    end
    if not lo then
      local why = #points == 0 and lp.no_points_why(points == pa and A.run or B.run)
      return "at an unknown load" .. (why and (" (" .. why .. ")") or "")
    end
    local function f(v) return kind == "concurrency" and ("%g"):format(v) or ("%g"):format(v) end
    local unit = kind == "concurrency" and " concurrent requests" or " req/s"
    return (lo == hi and ("at %s%s"):format(f(lo), unit) or ("at %s–%s%s"):format(f(lo), f(hi), unit))
      .. (" (%s)"):format(T.helpers.count(#points, "load point"))
  end
  local out = {}
  for _, d in ipairs(model.workload_match.differences) do
    if d.breaks_pooled then
      if d.field == "load_type" then
        -- "unknown (why)": "at an unknown load (why)"
        local function by(v)
          v = tostring(v)
          if v:match("^unknown") then return "at an " .. v:gsub("^unknown", "unknown load", 1) end
          return "by " .. v:gsub("rate", "request rate")
        end
        out[#out + 1] = ("the runs were driven differently: %s %s, %s %s"):format(A.label, by(d.a), B.label, by(d.b))
      elseif d.field == "offered_load" or d.field == "load_points" then
        local sa, sb = span(pa), span(pb)
        local diff = {}
        if sa == sb and #pa == #pb then
          -- the same range and count: the points whose offered loads differ say what does
          for i = 1, #pa do
            local x, y = pa[i].offered, pb[i].offered
            if x and y and not lp.close(x, y) then
              local unit = pa[i].load_type == "concurrency" and " concurrent requests" or " req/s"
              diff[#diff + 1] = ("point %d at %g against %g%s"):format(i, x, y, unit)
            end
          end
        end
        if #diff > 0 then
          out[#out + 1] = ("%s and %s were driven %s each, but at different offered loads: %s"):format(A.label,
            B.label, sa, table.concat(diff, ", "))
        else
          out[#out + 1] = ("%s was driven %s, %s %s"):format(A.label, sa, B.label, sb)
        end
      else
        out[#out + 1] = d.text
      end
    end
  end
  return table.concat(out, "; ")
end

-- Why the whole-run rows could not be tested, as the Summary says it: rows are tested on
-- per-request samples of both runs, or on the repeats when each run is one load point;
-- when both runs have repeats but several load points, the pooled figures are what the
-- repeats cannot test (decision.row_test), and that is the reason, not "no repeats".
local function untested_why(model, A, B)
  local pa, pb = model.load_points.a, model.load_points.b
  local function repeated(points)
    for _, p in ipairs(points) do if (p.repeats or 1) >= 2 then return true end end
    return false
  end
  if (#pa > 1 or #pb > 1) and repeated(pa) and repeated(pb) then
    local function pts(n) return n == 1 and "1 load point" or (n .. " load points") end
    return ("the whole-run figures pool %s of %s and %s of %s, which repeats (each of one load point) cannot "
      .. "test, and there are no per-request samples from both runs"):format(pts(#pa), A.label, pts(#pb), B.label)
  end
  -- per-request samples from both runs, but no load point both sustained (a run saturated at
  -- its lowest load): every untested row says so, and that is the reason
  -- (a row "not comparable" as it pools loads where a run was overloaded, with no test at the
  -- loads both sustained, perf_row: untested too, for its own reason, which its evidence ends with)
  local function untested_row(r) return r.verdict == "untested" or r.pools_overloaded ~= nil end
  -- (its reason: such a row's own, without what the figures pool, which the gap sentence says)
  local function reason(r) return tostring(r.pools_overloaded and r.pooled_untested_why or r.evidence) end
  local untested, unsustained = 0, 0
  for _, r in ipairs(model.perf or {}) do
    if untested_row(r) then
      untested = untested + 1
      if reason(r):find("no load point both runs sustained", 1, true) then unsustained = unsustained + 1 end
    end
  end
  -- (the latency tests' reason, decision.LATENCY_UNSUSTAINED: a run's shortfall made up by
  -- bursts of failures leaves a load out too, not saturation alone; where every load was left
  -- out for bursts that were not timeouts, what the files say they were, not a queue's: fixb46)
  local function none_sustained()
    local w = decision.unsustained_burst_words(model.saturation, { a = A.run, b = B.run }, { a = pa, b = pb })
    if w then
      return ("no load point both runs sustained (answered short, failed requests in bursts (%s) making up the rest: "
        .. "%s, and %s)"):format(w.cause, w.count, w.latency)
    end
    return ("no load point both runs sustained (%s)"):format(decision.LATENCY_UNSUSTAINED)
  end
  if untested > 0 and unsustained == untested then return none_sustained() end
  if unsustained > 0 then
    -- (fixl45 #1) some rows for that reason, the others for their own (the throughput rows'
    -- "no repeats from both runs" where both runs have per-request samples): each said, never
    -- "no per-request samples", which those runs have
    local others, seen = {}, {}
    for _, r in ipairs(model.perf or {}) do
      local ev = reason(r)
      if untested_row(r) and not ev:find("no load point both runs sustained", 1, true) then
        if not seen[ev] then
          seen[ev] = {}
          others[#others + 1] = ev
        end
        local l = seen[ev]
        l[#l + 1] = lower_label(r.label)
      end
    end
    local parts = {}
    for _, ev in ipairs(others) do parts[#parts + 1] = ("%s: %s"):format(table.concat(seen[ev], ", "), ev) end
    -- (where the others pool those loads, newuser48: the loads' reason in full, as above)
    local pooled = false
    for _, r in ipairs(model.perf or {}) do if r.pools_overloaded then pooled = true end end
    return ("%d metric%s with per-request samples from both runs: %s; %s"):format(unsustained,
      unsustained == 1 and "" or "s", pooled and none_sustained() or "no load point both runs sustained (each row says "
      .. "why)", table.concat(parts, "; "))
  end
  -- per-request samples from both runs, but every one the same value (decision.mann_whitney)
  for _, r in ipairs(model.perf or {}) do
    if untested_row(r) and reason(r):find("per-request samples are all one value", 1, true) then
      return "the metrics with per-request samples from both runs have every sample one value, nothing to rank, and "
        .. "the others have no per-request samples or repeats from both runs"
    end
  end
  return "no metric has per-request samples or repeats from both runs"
end

-- Sentences from the decision layer: capacity first when SLOs were given, then the
-- tested rows' winners, or "no clear difference".

-- Where the runs' GPU counts differ (model.gpu_counts), a latency compared at one total load
-- is not like for like per GPU: the run with more GPUs carries less load on each. "" when
-- the counts are the same or unknown. what: "These latencies" or the like.
-- In the Summary it is a mark (what between \1 and \2) that M.gpu_caveat_once makes one sentence.
local function gpu_latency_caveat(model, _a, _b, what)
  local g = model.gpu_counts
  if not g or g.a == g.b then return "" end
  return " \1" .. what .. "\2"
end
-- The Summary's caveats (gpu_latency_caveat's marks) said once, naming the run with more GPUs
-- (newuser54 F3: the same sentence at the matched load and after the whole-run metrics, its
-- "it" unclear): one mark keeps its own subject where it stands; several are one sentence,
-- where the last stood (after every figure it qualifies), naming what each qualified.
-- (a field, not a local: the module is at Lua's limit of 200 locals)
function M.gpu_caveat_once(text, model, A, B)
  local CAVEAT_SUBJECT = { ["Those latencies"] = "the latencies at the matched load",
    ["Those figures"] = "the figures at the matched load",
    ["These whole-run latencies and rates"] = "the whole-run latencies and rates" }
  local whats, seen, n = {}, {}, 0
  for w in text:gmatch("\1(.-)\2") do
    n = n + 1
    if not seen[w] then seen[w] = true; whats[#whats + 1] = w end
  end
  if n == 0 then return text end
  local g = model.gpu_counts
  local more, less = g.b > g.a and B or A, g.b > g.a and A or B
  local gm, gl = math.max(g.a, g.b), math.min(g.a, g.b)
  local subject = whats[1]
  if #whats > 1 then
    local parts = {}
    for _, w in ipairs(whats) do parts[#parts + 1] = CAVEAT_SUBJECT[w] or w:lower() end
    subject = table.concat(parts, " and ")
    subject = subject:sub(1, 1):upper() .. subject:sub(2)
  end
  local sentence = ("%s are at equal total load, not equal load per GPU: %s, on %s, carried %s the load per GPU "
    .. "that %s carried on %s, so they do not show that %s is better per GPU."):format(subject, more.label,
    T.helpers.count(gm, "GPU"), T.helpers.num(gl / gm, 2) .. "x", less.label, T.helpers.count(gl, "GPU"), more.label)
  local k = 0
  return (text:gsub(" \1(.-)\2", function()
    k = k + 1
    return k == n and (" " .. sentence) or ""
  end))
end
-- The load the ladder pairs the runs at, as the Summary points to it: "offered rate",
-- "concurrency", else "achieved load".
local function matched_axis_text(axis)
  return axis == "rate" and "offered rate" or axis == "concurrency" and "concurrency" or "achieved load"
end

-- The "not comparable" whole-run row with the largest gap (at least M.OVERLOADED_GAP_PCT either
-- way) whose figures pool loads where a run was overloaded; nil where there is none.
M.OVERLOADED_GAP_PCT = 50
-- (an SLO metric's row first: the one the reader is comparing against)
local function overloaded_gap(model)
  local best, slo = nil, {}
  for _, x in ipairs(model.slo or {}) do slo[x.key] = true end
  local function rank(r) return (slo[r.key] and 1e9 or 0) + math.abs(r.pct) end
  for _, r in ipairs(model.perf or {}) do
    if r.verdict == "not comparable" and type(r.pct) == "number" and math.abs(r.pct) >= M.OVERLOADED_GAP_PCT
      and type(r.note) == "string" and r.note:find(decision.POOLED_OVER, 1, true)
      and (not best or rank(r) > rank(best)) then
      best = r
    end
  end
  return best
end
M.overloaded_gap = overloaded_gap

-- Without an SLO, the order of the max sustained throughputs the Verdict states, carried by
-- the Summary too where it says why no capacity can be inferred or gives the two figures
-- alone (task fixf40: k10 against k20, "No capacity can be inferred for either run: ..."
-- said nothing of the order the Verdict and the Headline read). model.summary otherwise.
with_sustained_order = function(model)
  local v, text = model.verdict, model.summary
  local at = text:find(SUSTAINED_ORDER_AT, 1, true)
  if not at then return text end
  local add = ""
  if v and v.measure == "max_sustained" and v.higher and (v.kind == "ordered" or v.kind == "winner")
    and not order_withheld(model) and not (model.slo and #model.slo > 0) and type(v.text) == "string" then
    add = " As the Verdict says: " .. v.text
  end
  return text:sub(1, at - 1) .. add .. text:sub(at + #SUSTAINED_ORDER_AT)
end

local function summary(model, A, B)
  local failed = {}
  for _, s in ipairs { A, B } do
    if s.run.status == "failed" then
      failed[#failed + 1] = ("%s failed (%s)"):format(s.label, table.concat(s.run.reasons, "; "))
    end
  end
  if #failed > 0 then
    return table.concat(failed, " ") .. ". Its numbers describe a broken run and say nothing about the "
      .. "configuration; fix it and compare again before drawing conclusions."
  end
  local out = {}
  local ca, cb = model.capacity.a, model.capacity.b
  local ev = model.capacity.evidence or {}
  local differ = workloads_differ(model)
  if model.gpus_differ then
    -- different amounts of hardware: said first; with both counts known, the capacity per
    -- GPU leads (the Headline's per-GPU row, its figures, range and evidence), the totals
    -- follow, so that the run with more GPUs is not read as the better configuration
    out[#out + 1] = "Not like for like on cost: " .. model.gpus_differ .. "."
    local row
    for _, r in ipairs(model.headline) do if r.key == "capacity_per_gpu" then row = r end end
    -- a side with no figure (a capacity below the lowest load: "< X") still has its text and
    -- the row its evidence: said, never skipped, or "per GPU first" would lead to nothing
    if row and model.capacity.per_gpu then
      local gap = row.pct_text:match("^N/A") and "" or (" (%s %s vs %s)"):format(B.label, row.pct_text, A.label)
      out[#out + 1] = ("Capacity per GPU within %s: %s for %s, %s for %s%s; %s."):format(
        decision.capacity_phrase(model.slo), row.a_text, A.label, row.b_text, B.label, gap, row.evidence)
    elseif #model.slo == 0 then
      -- no SLO: the max sustained throughput per GPU leads, with its own evidence, as the
      -- capacity per GPU does with SLOs
      for _, r in ipairs(model.headline) do if r.key == "max_sustained_per_gpu" then row = r end end
      if row then
        local gap = row.pct_text:match("^N/A") and "" or (" (%s %s vs %s)"):format(B.label, row.pct_text, A.label)
        out[#out + 1] = ("Max sustained throughput per GPU: %s for %s, %s for %s%s; %s."):format(row.a_text, A.label,
          row.b_text, B.label, gap, row.evidence)
      end
    end
  end
  local total_at = model.gpus_differ and #out + 1 -- where the totals' first sentence goes
  if #model.slo > 0 then
    local phrase = decision.capacity_phrase(model.slo)
    if model.identical and capacity_text(ca) == capacity_text(cb) then
      -- one run's results in both folders, its capacity read the same: one figure, no gap
      -- between it and itself, no order, and nothing to measure that would tell them apart
      out[#out + 1] = ("Capacity within %s: %s in both folders, one run's figure read twice, so it tells no two "
        .. "configurations apart."):format(phrase, capacity_text(ca))
      -- (its cell says "see the Summary": what the runs lack and what settles it, said here too)
      if model.capacity.missing_text then out[#out] = out[#out] .. " " .. model.capacity.missing_text end
    elseif ev.verdict == "not comparable" then
      -- the figures, and why no order is read from them
      -- token lengths differ beyond a tolerance; a model or load type simply differs
      local tokens = false
      for _, d in ipairs(model.workload_match.differences) do
        if d.field == "input_tokens" or d.field == "output_tokens" then tokens = true end
      end
      out[#out + 1] = ("Capacity within %s: %s for %s, %s for %s: not comparable, the workloads differ (%s%s): %s, so "
        .. "neither run is named higher, and latencies at matched load are not compared either."):format(phrase,
        capacity_text(ca), A.label, capacity_text(cb), B.label, differ or "", tokens and (", beyond the %s %% "
        .. "tolerance of the workload match"):format(T.helpers.num(decision.TOKEN_TOLERANCE * 100, 0)) or "",
        tokens and "a run whose requests are longer sustains fewer of them"
          or "what one run sustains says nothing of the other's configuration")
    elseif ev.verdict == "not shown to differ" and ev.token_explained then
      out[#out + 1] = ("Capacity within %s not shown to differ: %s for %s, %s for %s; %s, so neither run is named "
        .. "higher."):format(phrase, capacity_text(ca), A.label, capacity_text(cb), B.label,
        token_order_reason(model, A, B, ev.token_explained))
    elseif ev.verdict == "not shown to differ" and ev.token_same then
      out[#out + 1] = ("Capacity within %s not shown to differ: %s for %s, %s for %s; %s, so neither run is named "
        .. "higher."):format(phrase, capacity_text(ca), A.label, capacity_text(cb), B.label,
        token_same_reason(model, A, B, ev.token_same))
    elseif ev.verdict == "not shown to differ" and ev.least_below_threshold then
      -- loads that put one above by a least gap below the practical threshold, the largest
      -- beyond it (or with no end): at least as much, no winner, whatever kinds the two
      -- capacities are (every least_below_threshold evidence reaches here: fixh46 gives it
      -- this verdict, so the branches below never see one)
      out[#out + 1] = least_below_text(model, phrase, A, B, ca, cb, ev)
    elseif lp.capacity_has_figure(ca) and lp.capacity_has_figure(cb) then
      local eff = decision.order_gap_pct(ca.rps, cb.rps)
      if ca.kind == "never_violated" and cb.kind == "never_violated" then
        out[#out + 1] = never_violated_text(phrase, A, B, ca, cb, decision.slo_words(lp.capacity_slo(model.slo)))
      elseif is_bound(ca) and is_bound(cb) and (ev.verdict == "unknown" or ev.within_noise) then
        -- (only where the evidence compares nothing, "both lower bounds: not compared", or
        -- finds their spans apart within the noise of their rates: two bounds whose spans
        -- overlap with an upper end on one side, a ceiling, are compared as ranges, and the
        -- sentences below say so as the Evidence does, never "neither is known": fixd46)
        -- (two bounds whose error-rate SLO a run's repeats disagree on: that is the reason,
        -- below, and measuring more loads would not find what a crash decides)
        -- (the Verdict's advice, one for both: where each bound's capacity lies, settle_text)
        -- (one run's results in both folders: no advice, nothing measured would tell it from itself)
        -- (where one ends at its ceiling, the spans and their overlap, as the Evidence says them)
        local spans = not ev.within_noise and bound_spans_text(A, B, ca, cb, rate_text)
        out[#out + 1] = ("Both capacities within %s are only lower bounds, %s for %s and %s for %s: %s neither "
          .. "run is named higher%s.%s"):format(phrase, capacity_text(ca), A.label, capacity_text(cb),
          B.label, spans and (spans .. ";") or "neither is known, so",
          (ev.within_noise and ev.noise) and ("; " .. decision.capacity_noise_text(ev.noise, rate_text,
          ev.within_noise == "b" and B.label or A.label, ev.within_noise == "b" and A.label or B.label)) or "",
          model.identical and "" or (" " .. settle_text(model, A, B, ca, cb)))
      elseif ev.steps_cannot_order then
        out[#out + 1] = steps_cannot_order_text(phrase, A, B, ca, cb, ev)
      elseif ev.overdispersed then
        out[#out + 1] = dispersion_text(phrase, A, B, ca, cb, ev.overdispersed)
      elseif ev.below_threshold then
        out[#out + 1] = below_threshold_text(model, phrase, A, B, ca, cb, ev)
      elseif ev.open_range then
        out[#out + 1] = open_range_text(model, phrase, A, B, ca, cb)
      elseif ev.verdict == "not shown to differ" then
        -- figures within the threshold, estimates inside brackets that allow a wider gap
        local g = decision.capacity_gap(ca, cb)
        out[#out + 1] = ("Capacity within %s not shown to differ: %s for %s, %s for %s; the figures are within %s %% "
          .. "of each other, but the measured loads allow %s %s vs %s, so neither sameness nor an order is shown.")
          :format(phrase, capacity_text(ca), A.label, capacity_text(cb), B.label, decision.thr_num(model.min_effect),
          B.label, decision.gap_pct_text(g, T.helpers.pct) or "any gap", A.label)
      elseif eff and math.abs(eff) < model.min_effect and not is_bound(ca) and not is_bound(cb) then
        -- by the means: with repeats their ranges are beside them, and may be wide
        out[#out + 1] = ("Both sustain about the same load within %s%s: %s for %s, %s for %s."):format(phrase,
          (ca.interval or cb.interval) and " by their means" or "", capacity_text(ca), A.label, capacity_text(cb),
          B.label)
      elseif ev.verdict == "no clear difference" then
        out[#out + 1] = overlap_text(phrase, A, B, ca, cb, ev)
      else
        local hi, lo, chi, clo = B, A, cb, ca
        local first = ev.winner or ev.higher or ev.measured_higher or (ca.rps > cb.rps and "a" or "b")
        if first == "a" then hi, lo, chi, clo = A, B, ca, cb end
        -- the gap the measured brackets (or the repeats' ranges) of both runs allow, as the
        -- Headline, the CSV and comparison.json give it: B's change against A, whichever run
        -- is higher (one direction everywhere: swapping the runs gives the reciprocal range)
        local g = decision.capacity_gap(ca, cb)
        local gap = decision.gap_pct_text(g, T.helpers.pct) or "either may be higher"
        local zero = gap == "at least " .. T.helpers.pct(0) or gap == "0 or more, no upper end"
        if gap ~= "either may be higher" then
          -- (the sentence quotes it in brackets: a bracketed note of the gap's own, "at most
          -- +36.4 % (either may be higher)", follows it after a comma, never nested)
          local base, note = gap:match("^(.-) %((.*)%)$")
          if base == "any" then
            gap = "any gap, " .. note
          elseif base then
            -- ("-66.7 % or more, no upper end": "y -66.7 % or more vs x, no upper end, ...")
            local head, tail = base:match("^(.-)(, .*)$")
            gap = ("%s %s vs %s%s, %s"):format(B.label, head or base, A.label, tail or "", note)
          else
            gap = ("%s %s vs %s"):format(B.label, gap, A.label)
          end
        end
        if g and (g.lo_pct == 0 or g.hi_pct == 0) and ev.margin_pct and ev.margin_lo_kind == "interpolated" then
          -- ranges that touch bound no gap beyond 0 on one side: the order is named on the
          -- margin over the lower run's estimate, which is quoted beside the range, or instead
          -- of it where the range is only "at least +0.0 %": "x's figure, 6.00 req/s, is 0.3 %
          -- above y's estimate of 5.98 req/s" (a signed "-0.3 % over" read oddly)
          local d = (ev.margin_hi / ev.margin_lo - 1) * 100
          local m = ("%s's figure, %s, is %s %% %s %s's estimate of %s"):format(hi.label, rate_text(ev.margin_hi),
            T.helpers.num(math.abs(d), 1), d < 0 and "below" or "above", lo.label, rate_text(ev.margin_lo))
          gap = zero and (m .. "; the ranges bound no gap above 0") or (gap .. "; " .. m)
        end
        if ev.winner and ev.same_load then
          -- ranges that meet at one load: the repeats' intervals on opposite sides of the SLOs there
          local w = decision.slo_words(lp.capacity_slo(model.slo))
          out[#out + 1] = ("%s sustains more load than %s within %s (%s): %s against %s; %s met %s at %s and %s "
            .. "already failed %s at %s%s, on the 95 %% intervals of both runs' repeats, so %s."):format(hi.label,
            lo.label, phrase, gap, capacity_text(chi), capacity_text(clo), hi.label, w.the, rate_text(ev.passed_rps),
            lo.label, w.it, rate_text(ev.failed_rps), same_load_text(ev),
            -- (ranges apart by less than the noise of their rates, decision.capacity_touch_at: that
            -- load orders them, not the gap between the ranges, whose size is unknown)
            decision.gap_touch_within_noise(chi, clo) and "that load orders them, whatever the noise of the two "
              .. "achieved rates" or "the ranges meet only at that load")
        elseif ev.winner then
          out[#out + 1] = ("%s sustains more load than %s within %s (%s): %s against %s; the ranges do not overlap.")
            :format(hi.label, lo.label, phrase, gap, capacity_text(chi), capacity_text(clo))
        else
          -- one measurement per load (on some side): the figures and the gap, no winner named
          out[#out + 1] = ("Capacity within %s: %s for %s against %s for %s (%s), untested: %s."):format(phrase,
            capacity_text(chi), hi.label, capacity_text(clo), lo.label, gap, untested_text(A, B, ca, cb))
        end
        if ev.beyond_ceiling and is_bound(chi) then
          out[#out] = out[#out]:gsub("%.$", ("; both figures are lower bounds, but %s sustained %s and %s never "
            .. "achieved more than %s at any load measured, so %s's capacity is the higher whatever the bounds.")
            :format(hi.label, rate_text(ev.sustained_rps), lo.label, rate_text(clo.ceiling_rps), hi.label))
        elseif ev.beyond_ceiling then
          -- (with the figure it is below and what follows, as the both-bounds sentence says it: "but
          -- vllm achieved at most 104.24" alone left the reader to find 127.76 and the conclusion)
          out[#out] = out[#out]:gsub("%.$", ("; %s's figure is a lower bound, but %s achieved at most %s at any "
            .. "load measured and %s sustained %s, so %s's capacity is the higher whatever the bound."):format(lo.label,
            lo.label, rate_text(clo.ceiling_rps), hi.label, rate_text(ev.sustained_rps), hi.label))
        elseif ev.ordered and not ev.winner then
          local w = decision.slo_words(lp.capacity_slo(model.slo))
          out[#out] = out[#out]:gsub("%.$", ("; %s met %s at %s and %s already failed %s at %s%s, so %s's "
            .. "capacity is the higher whatever lies between the measured loads."):format(hi.label, w.the,
            rate_text(ev.passed_rps), lo.label, w.it, rate_text(ev.failed_rps), same_load_text(ev), hi.label))
        elseif ev.within_range then
          local with, other = ev.within_range == "a" and A or B, ev.within_range == "a" and B or A
          out[#out] = out[#out]:gsub("%.$", ("; %s's figure lies within the range %s's repeats allow, so either may "
            .. "be higher."):format(other.label, with.label))
        elseif ev.order_open and ev.noise_unknown then
          out[#out] = out[#out]:gsub("%.$", function()
            return "; " .. M.noise_unknown_why(ev, rate_text, A, B) .. ", so either may be higher."
          end)
        elseif ev.order_open and (ca.noise or cb.noise) then
          out[#out] = out[#out]:gsub("%.$", function()
            return "; " .. noise_why(model.slo) .. ", so either may be higher."
          end)
        elseif ev.order_open and is_bound(clo) then
          out[#out] = out[#out]:gsub("%.$", "; " .. lo.label .. "'s figure is only a lower bound, so either "
            .. "may be higher.")
        elseif ev.order_open then
          out[#out] = out[#out]:gsub("%.$", "; the load points measured leave room for either order (a figure "
            .. "between two measured loads is an estimate), so either may be higher.")
        end
        -- "either may be higher" once a sentence: the gap's own note ("(y at most +50.0 % vs
        -- x, either may be higher)") gives way to the clause after it that says why
        local _, n = out[#out]:gsub("either may be higher", "")
        if n > 1 then out[#out] = out[#out]:gsub(", either may be higher%)", ")", 1) end
        -- an order resting only on one-run intervals known to run narrow near capacity
        -- (narrow_check): the Verdict's caveat, here too (task fixf40)
        if ev.ordered and ev.higher and ev.interval_coverage == "narrow_near_capacity" then
          out[#out] = out[#out] .. " " .. narrow_verdict_text(ev, A, B)
        end
      end
    elseif ca.kind == "below_lowest" and cb.kind == "below_lowest" then
      out[#out + 1] = below_lowest_text(phrase, A, B, ca, cb, decision.slo_words(lp.capacity_slo(model.slo)))
    elseif ca.kind == "below_lowest" or cb.kind == "below_lowest" then
      local bad, good, cbad, cg = A, B, ca, cb
      if cb.kind == "below_lowest" then bad, good, cbad, cg = B, A, cb, ca end
      if ev.overdispersed then
        out[#out + 1] = dispersion_text(phrase, A, B, ca, cb, ev.overdispersed)
      elseif ev.below_threshold then
        out[#out + 1] = below_threshold_text(model, phrase, A, B, ca, cb, ev)
      elseif ev.steps_cannot_order then
        out[#out + 1] = steps_cannot_order_text(phrase, A, B, ca, cb, ev)
      elseif ev.open_range then
        out[#out + 1] = open_range_text(model, phrase, A, B, ca, cb)
      elseif ev.verdict == "no clear difference" then
        out[#out + 1] = overlap_text(phrase, A, B, ca, cb, ev)
      elseif cg.kind == "non_monotone" then
        -- no "sustains N/A": the other run's loads cross the limits more than once
        out[#out + 1] = ("%s; %s's capacity cannot be read: it %s, a load that met %s lying above one that failed "
          .. "(non-monotone), so the two are not compared."):format(fails_all_text(bad, cbad, phrase, model.slo),
          good.label, cg.detail, #model.slo == 1 and "it" or "them")
      elseif cg.kind == "unknown" then
        -- no "sustains N/A": the other capacity is unknown, and so is any order
        out[#out + 1] = ("%s; %s's capacity is unknown (%s), so the two are not compared."):format(
          fails_all_text(bad, cbad, phrase, model.slo), good.label, cg.reason or "no reason given")
      else
        -- the capacity's own parentheses are not nested in the evidence's
        out[#out + 1] = ("%s; %s sustains %s, %s."):format(fails_all_text(bad, cbad, phrase, model.slo),
          good.label, capacity_text(cg), ev.winner and "and the ranges do not overlap"
          or no_test_text(A, B, ca, cb))
        if ev.within_range then
          local with, other = ev.within_range == "a" and A or B, ev.within_range == "a" and B or A
          out[#out] = out[#out]:gsub("%.$", ("; %s's figure lies within the range %s's repeats allow, so either may "
            .. "be higher."):format(other.label, with.label))
        elseif ev.order_open and type(cg.rps) == "number" and type(cbad.lowest_rps) == "number"
          and cbad.lowest_rps > cg.rps then
          -- failing at a load above the other's figure says nothing of which is higher
          out[#out] = out[#out]:gsub("%.$", ("; %s failed only at %s, above %s's figure, so either may be higher.")
            :format(bad.label, rate_text(cbad.lowest_rps), good.label))
        elseif ev.order_open then
          -- below the other's figure, yet the spans each load's interval leaves overlap (audit49
          -- F4: "failed only at 4.44 req/s, above ipaa_1's figure", 8.03, was false): said by
          -- the spans, never as a comparison of the figures
          local _, bhi = decision.capacity_span(cbad)
          local glo = decision.capacity_span(cg)
          if type(bhi) == "number" and bhi ~= math.huge and type(glo) == "number" then
            out[#out] = out[#out]:gsub("%.$", ("; %s failed at %s, below %s's figure, but the spans the loads leave "
              .. "overlap (%s's up to %s, %s's from %s), so either may be higher."):format(bad.label,
              rate_text(cbad.lowest_rps), good.label, bad.label, rate_text(bhi), good.label, rate_text(glo)))
          else
            out[#out] = out[#out]:gsub("%.$", "; the spans the loads leave overlap, so either may be higher.")
          end
        end
      end
    elseif ca.kind == "non_monotone" or cb.kind == "non_monotone" then
      -- a load that met the SLOs above one that failed: what is true, and no order
      local parts = {}
      for _, x in ipairs { { A, ca }, { B, cb } } do
        local side, c = x[1], x[2]
        if c.kind == "non_monotone" then
          parts[#parts + 1] = ("%s's capacity within %s cannot be read: it %s, a load that met %s lying above one "
            .. "that failed (non-monotone: noise or a warm-up can do this; repeat those loads)"):format(side.label,
            phrase, c.detail, #model.slo == 1 and "it" or "them")
        else
          parts[#parts + 1] = ("%s's capacity is %s"):format(side.label, capacity_text(c))
        end
      end
      out[#out + 1] = table.concat(parts, "; ") .. "; neither run is named higher."
    elseif model.capacity.missing_text then
      out[#out + 1] = ("Capacity at %s is unknown. %s"):format(phrase, model.capacity.missing_text)
    else
      -- the reason of the side whose capacity is unknown (the other's may be known)
      local c = ca.kind == "unknown" and ca or cb
      out[#out + 1] = ("Capacity at %s is unknown: %s."):format(phrase, c.reason)
    end
    local mp = model.matched_point
    -- (its figures beside the SLO limit on its metric, where one is: their side of it shown)
    local function mp_fmt(x) return metrics.format(mp.key, x, nil, { limit = slo_limit(model.slo, mp.key) }) end
    if mp and mp.key and not mp.load and #out > 0 then
      -- no load both runs measured: no test at a matched load, and why
      out[#out + 1] = ("No test of %s at a matched load: %s, so the runs' %s is not compared at one load.")
        :format(metrics.get(mp.key).label, mp.reason, metrics.get(mp.key).label)
    elseif mp and mp.key and #out > 0 then
      local m = metrics.get(mp.key)
      local tested_after -- (the other loads' test of the metric, said after this load's figures)
      local d = mp.a ~= 0 and (mp.b - mp.a) / math.abs(mp.a) * 100 or nil
      local sig = mp.test and mp.test.p and decision.can_decide(mp.test)
        and (mp.p_adjusted or mp.test.p) < decision.ALPHA
      -- a difference beyond the practical threshold: its whole interval where the test has
      -- one (decision.effect_size, as the rows'), else its estimate; otherwise said as what it is
      local size, size_note = "beyond", nil
      local eff = sig and mp.test.row_effect
      if eff and (eff.pct or eff.pp) then
        size, size_note = decision.effect_size(mp.test, eff, model.min_effect, A.label, B.label)
      elseif sig and decision.magnitude(decision.effect_pct(mp.a, mp.b) or 0) < model.min_effect then
        -- (no interval: the estimate within the threshold bounds nothing, decision.verdict's
        -- words; it read "no clear difference" beside a significant p)
        size = "unsure"
        size_note = decision.effect_pct(mp.a, mp.b) and ("a difference within the %s %% practical threshold by the "
          .. "figures (%s), but with no interval of it, so it may be beyond it: no winner"):format(
          ("%g"):format(model.min_effect), decision.pct_near(decision.effect_pct(mp.a, mp.b), model.min_effect)) or nil
      end
      local big = sig and size == "beyond"
      if d and big then
        out[#out + 1] = ("At %s, %s's %s is %s %% %s than %s's (%s against %s, %s %s)."):format(
          matched_load_text(mp, A, B), B.label, m.label, T.helpers.num(math.abs(d), 0), d < 0 and "lower" or "higher",
          A.label,
          mp_fmt(mp.b), mp_fmt(mp.a),
          decision.test_name(mp.test) .. ",", p_text(mp.test.p, mp.p_adjusted, mp.family_size))
      elseif big then
        -- A's figure is 0: no percentage of it, the two figures
        out[#out + 1] = ("At %s, %s's %s is %s against %s for %s (%s %s)."):format(matched_load_text(mp, A, B), B.label,
          m.label, mp_fmt(mp.b), mp_fmt(mp.a), A.label,
          decision.test_name(mp.test) .. ",", p_text(mp.test.p, mp.p_adjusted, mp.family_size))
      elseif sig and size_note then
        -- significant, but too small to matter or not shown beyond the threshold: no "higher"
        out[#out + 1] = ("At %s, %s is %s for %s and %s for %s (%s; %s %s)."):format(matched_load_text(mp, A, B),
          m.label, mp_fmt(mp.a), A.label, mp_fmt(mp.b), B.label, size_note,
          decision.test_name(mp.test) .. ",", p_text(mp.test.p, mp.p_adjusted, mp.family_size))
      elseif mp.test and mp.test.p and not decision.can_decide(mp.test) then
        local v = decision.verdict { key = mp.key, a = mp.a, b = mp.b, test = mp.test }
        out[#out + 1] = ("At %s, %s is %s for %s and %s for %s (not shown to differ: %s)."):format(
          matched_load_text(mp, A, B),
          m.label, mp_fmt(mp.a), A.label, mp_fmt(mp.b), B.label, v.note)
      elseif mp.test and mp.test.p then
        out[#out + 1] = ("At %s, %s is %s for %s and %s for %s (%s)."):format(matched_load_text(mp, A, B), m.label,
          mp_fmt(mp.a), A.label, mp_fmt(mp.b), B.label,
          "no clear difference, " .. p_text(mp.test.p, mp.p_adjusted, mp.family_size))
      elseif mp.identical then
        out[#out + 1] = ("At %s, %s is %s for both runs%s."):format(matched_load_text(mp, A, B), m.label,
          mp_fmt(mp.a), mp.identical_note and (" (" .. mp.identical_note .. ")")
          or " in every repeat (identical, no test)")
      elseif mp.interpolated then
        -- a figure between two measured loads: which loads, and that it is untested
        local function fig(side, x)
          local iv = mp.interpolated[side]
          return ("%s for %s%s"):format(mp_fmt(mp[side]), x.label, iv and (" (interpolated between "
            .. "its loads at %s and %s)"):format(table.unpack((mp.axis == "rate" or mp.axis == "concurrency")
            and { lp.load_text(mp.axis, iv.lo_load), lp.load_text(mp.axis, iv.hi_load) }
            or { T.helpers.num(iv.lo_rps, 2), rate_text(iv.hi_rps) })) or "")
        end
        -- (untested at this load; where the Performance Results test the metric over the load
        -- points, that test named, as the no-SLO sentence does: never read as untested only)
        local tested = perf_test_text(model.perf, mp.key, A, B)
        out[#out + 1] = ("At %s, %s, %s is %s and %s; untested: %s%s."):format(matched_load_text(mp, A, B),
          mp.sustained and ("the highest load both runs sustained (the lower of their %s)"):format(mp.axis == "achieved"
            and "max sustained throughputs" .. (mp.sustained_failing and " below any load point that failed requests"
              or "") or ("loads at their last points before saturation%s"):format(mp.sustained_failing
              and " or a load point that failed requests" or ""))
          or "the highest load within both runs' measured ranges", m.label, fig("a", A), fig("b", B), mp.reason,
          tested and (" (" .. tested .. ")") or "")
      elseif not mp.test then
        local tested = perf_test_text(model.perf, mp.key, A, B)
        if tested then
          -- the load untested, and why, said first; the other loads' test after, as a sentence of
          -- its own: inside one parenthesis, "2,010.3 ms ... and 114.0 ms (...: no clear
          -- difference, p = 0.0748)" read as the test of this gap (newuser44)
          out[#out + 1] = ("At %s, %s is %s for %s and %s for %s, untested at this load: %s."):format(
            matched_load_text(mp, A, B), m.label, mp_fmt(mp.a), A.label, mp_fmt(mp.b),
            B.label, mp.reason or "no test possible")
          tested_after = ("%s is tested at other loads instead: %s."):format(m.label, tested)
        else
          out[#out + 1] = ("At %s, %s is %s for %s and %s for %s (untested: %s)."):format(
            matched_load_text(mp, A, B), m.label, mp_fmt(mp.a), A.label, mp_fmt(mp.b),
            B.label, mp.reason or "no test possible")
        end
      end
      -- a load tested though a run answered it short in bursts of server errors: kept in, in
      -- the rows' words (decision.kept_bursts_text), never a test said of a load as if sustained
      if type(mp.kept) == "table" and #mp.kept > 0 and (mp.test or mp.identical) then
        out[#out] = out[#out]:gsub("%.$", function() return "; " .. decision.kept_bursts_text(mp.kept) .. "." end)
      end
      -- beside every verdict at the matched load, "no clear difference" as much as a win: a
      -- latency at one total load is not at one load per GPU either way
      if mp.a ~= nil and mp.b ~= nil then
        out[#out] = out[#out] .. gpu_latency_caveat(model, A, B, metrics.get(mp.key).unit == "ms" and "Those latencies"
          or "Those figures")
      end
      if mp.saturated then
        -- no load both measured lies below both saturations: the figures are said with that
        local past, sat = {}, model.saturation
        for _, x in ipairs { { "a", A, sat.a }, { "b", B, sat.b } } do
          if mp.saturated[x[1]] then
            past[#past + 1] = x[3].max_sustained_rps and ("%s sustains at most %s"):format(x[2].label,
              rate_text(x[3].max_sustained_rps)) or lp.failed_lowest_text(x[3]) and ("%s sustained no load below it: "
              .. "%s"):format(x[2].label, lp.failed_lowest_text(x[3]))
              or ("%s saturated already at its lowest load"):format(x[2].label)
          end
        end
        -- a run that sustained no load at all for failed requests at its lowest (a crashed
        -- repeat) is the reason no load both sustain exists: said, never "no load below both
        -- saturations lies within both runs' measured ranges", which blames the ranges
        local none = {}
        for _, x in ipairs { { "a", A, sat.a }, { "b", B, sat.b } } do
          local s = x[3]
          if not mp.saturated[x[1]] and lp.failed_lowest_text(s) and not s.max_sustained_rps then
            -- (in the Headline's words, with the error-rate limit its lowest load failed)
            none[#none + 1] = ("%s sustained no load: %s"):format(x[2].label, lp.failed_lowest_text(s))
          end
        end
        if #none > 0 then
          out[#out + 1] = ("That load is past saturation (%s), and %s, so no load both runs sustain was measured: "
            .. "these latencies are an overloaded server's, of a queue that grew for the length of the test, not of "
            .. "a load both runs sustain."):format(table.concat(past, "; "), table.concat(none, "; "))
        else
          out[#out + 1] = ("That load is past saturation (%s), and no load below both saturations lies within "
            .. "both runs' measured ranges: these latencies are an overloaded server's, of a queue that grew for the "
            .. "length of the test, not of a load %s."):format(table.concat(past, "; "),
            #past == 2 and "either run sustains" or "both runs sustain")
        end
      end
      if tested_after then out[#out + 1] = tested_after end
    end
  else
    local sa, sb = model.saturation.a, model.saturation.b
    if sa.max_sustained_na or sb.max_sustained_na then
      -- a run of two workloads: no max sustained throughput to compare (the Headline's N/A)
      local why = {}
      for _, s in ipairs { sa, sb } do why[#why + 1] = s.max_sustained_na end
      out[#out + 1] = ("Max sustained throughput is not compared: %s; compare each workload's files on their "
        .. "own."):format(table.concat(why, "; "))
    elseif sa.max_sustained_rps and sb.max_sustained_rps and (sa.point or sb.point) then
      local function st(s)
        if s.ceiling_rps and s.ceiling_rps > s.max_sustained_rps then
          return ("%s (up to %s)"):format(rate_text(s.max_sustained_rps), T.helpers.num(s.ceiling_rps, 2))
        end
        return (s.none and "≥ " or "") .. rate_text(s.max_sustained_rps)
      end
      -- the rule each run was read by (llmd.loadpoints.saturation_rule): a rate sweep's and a
      -- concurrency sweep's differ, one said once where both runs share it
      local rule = sa.rule == sb.rule and sa.rule or (sa.rule or sb.rule) and ("%s: %s; %s: %s"):format(A.label,
        sa.rule or "no one load type", B.label, sb.rule or "no one load type")
      out[#out + 1] = ("Max sustained throughput%s: %s for %s, %s for %s%s."):format(
        rule and (" (" .. rule .. ")") or "", st(sa), A.label, st(sb), B.label,
        (sa.none or sb.none) and (" (≥: never saturated, a lower bound)") or "")
      if differ then
        out[#out] = out[#out]:gsub("%.$", ("; not comparable: the workloads differ (%s), so neither run is named "
          .. "higher."):format(differ))
      end
      -- "never saturated" from the means alone, where the repeats leave it open
      for _, x in ipairs { { A, sa }, { B, sb } } do
        local near = x[2].near
        if x[2].none and near then
          out[#out + 1] = ("%s never saturated by the means only: at load point%s %s the repeats' 95 %% interval of "
            .. "the achieved rate reaches below %d %% of the offered rate."):format(x[1].label,
            #near == 1 and "" or "s", table.concat(near, ", "), lp.SATURATION_SHARE * 100)
        end
      end
      -- failed requests at the loads a figure counts, or the load they cut it at: beside it,
      -- as in the Headline (never "never saturated" alone)
      for _, x in ipairs { { A, sa }, { B, sb } } do
        local notes = lp.sustained_failure_notes(x[2])
        if #notes > 0 then out[#out + 1] = ("%s: %s."):format(x[1].label, table.concat(notes, "; ")) end
      end
      out[#out] = out[#out] .. SUSTAINED_ORDER_AT
      -- without an SLO, what can be said at the load both runs sustained: their latencies
      out[#out + 1] = no_slo_latency_text(model.no_slo_latency, A, B, model.min_effect, model.perf)
    else
      -- nothing to read a capacity from: said, not left out
      local qa, qb = model.load_points.a, model.load_points.b
      local function load_of(p)
        if not (p and p.offered) then return "an unknown load" end
        return p.load_type == "concurrency" and ("concurrency %g"):format(p.offered) or ("%g req/s offered"):format(
          p.offered)
      end
      if #qa <= 1 and #qb <= 1 then
        -- a run without load points was not measured "at a single load": it says why it has none
        local function at(q, side)
          if #q == 0 then return ("no load point for %s (%s)"):format(side.label,
            lp.no_points_why(side.run) or "none measured") end
          return ("%s for %s"):format(load_of(q[1]), side.label)
        end
        out[#out + 1] = ("Each run was measured at %s (%s, %s), so no capacity can be "
          .. "inferred: measure several loads, up to where the runs stop keeping up, and give SLOs (--slo) to read a "
          .. "capacity at them."):format((#qa == 0 or #qb == 0) and "one load at most" or "a single load",
            at(qa, A), at(qb, B))
      else
        local parts = {}
        for _, x in ipairs { { A, sa, qa }, { B, sb, qb } } do
          local side, s, q = x[1], x[2], x[3]
          if #q <= 1 then
            parts[#parts + 1] = ("%s was measured at a single load (%s)"):format(side.label, load_of(q[1]))
          elseif lp.failed_lowest_text(s) and not s.max_sustained_rps then
            -- failures, not overload: no load sustained within the error-rate limit
            parts[#parts + 1] = ("%s sustained no load: %s"):format(side.label, lp.failed_lowest_text(s))
          elseif s.point and not s.max_sustained_rps then
            parts[#parts + 1] = ("%s saturated already at its lowest load"):format(side.label)
          elseif s.unknown then
            parts[#parts + 1] = ("%s's saturation is unknown (%s)"):format(side.label, s.reason)
          elseif s.none then
            local notes = lp.sustained_failure_notes(s)
            parts[#parts + 1] = ("%s never saturated (≥ %s, a lower bound%s)"):format(side.label,
              rate_text(s.max_sustained_rps), #notes > 0 and ("; " .. table.concat(notes, "; ")) or "")
          else
            parts[#parts + 1] = ("%s saturated at load point %d"):format(side.label, s.point)
          end
        end
        out[#out + 1] = ("No capacity can be inferred for either run: %s. Measure loads up to where each run stops "
          .. "keeping up, and give SLOs (--slo) to read a capacity at them."):format(table.concat(parts, "; "))
          .. SUSTAINED_ORDER_AT
      end
    end
  end
  if total_at and out[total_at] and (out[total_at - 1]:match("^Capacity per GPU")
    or out[total_at - 1]:match("^Max sustained throughput per GPU")) then
    -- after the per-GPU lead, the totals' sentence says it is of the totals
    local t, n = out[total_at]:gsub("^Capacity within", "In total, capacity within")
    if n == 0 then t, n = out[total_at]:gsub("^Max sustained throughput ", "In total, max sustained throughput ") end
    if n == 0 then
      -- "In total, no clear difference in ...": a sentence's first word in lower case, never a
      -- run's label
      local first = t:match("^%u%l*")
      if first and not (A.label:find(first, 1, true) == 1 or B.label:find(first, 1, true) == 1) then
        t, n = "In total, " .. first:lower() .. t:sub(#first + 1), 1
      end
    end
    out[total_at] = n > 0 and t or ("In total: " .. t)
  end
  if not model.workload_match.like_for_like then
    local f = {}
    -- "different loads" when only the load differs; token lengths or request counts are
    -- more than the load: "different workloads"
    local loads_only = true
    local LOAD = { load_type = true, load_points = true, offered_load = true }
    for _, d in ipairs(model.workload_match.differences) do
      if d.breaks_pooled then
        f[#f + 1] = d.field:gsub("_", " ")
        if not LOAD[d.field] then loads_only = false end
      end
    end
    local diff = load_difference_text(model, A, B)
    out[#out + 1] = ("Whole-run rows: not like for like, %s; they pool %s and name no winner.%s"):format(
      diff ~= "" and diff or table.concat(f, ", "), loads_only and "different loads" or "different workloads",
      differ and " The workloads differ, so no load, not even a matched one, compares like with like."
        or (" Compare the runs at matched %s (the Load Ladder)."):format(
          matched_axis_text(model.ladder and model.ladder.axis)))
  else
    local wins, sustained, sustained_small = { a = {}, b = {} }, { a = {}, b = {} }, {}
    -- significant, but no winner by the practical threshold (decision.effect_size's classes)
    local unsure = {}
    local untested, untested_rows = 0, {}
    local away = {}
    -- the kinds of metric a test found no clear difference in (never one that was not
    -- tested, nor one whose test could not decide): "latency, errors"
    local kinds, kind_seen, errors_tested, no_failures = {}, {}, false, nil
    local partial = {} -- rows tested at only some of the loads both sustained (decision.verdict's partial)
    local notes, seen = {}, {} -- the untested rows' own reasons, each once
    for _, r in ipairs(model.perf) do
      if (r.verdict == "untested" or r.pools_overloaded) and r.evidence ~= "" and not seen[r.evidence] then
        seen[r.evidence] = true
        notes[#notes + 1] = r.evidence
      end
      if r.winner then
        local w = wins[r.winner]
        -- always B's change against A, said so, whichever run is better
        -- (a percentage, the error rate, changes by percentage points: "+2.50 pp")
        -- (a test stratified by load point: its difference within the points, which decided)
        local strat = r.sig and r.sig.mh_rate_a and r.sig.mh_rate_b
        -- (the effect that decided, over the loads its test covered, with its interval, never
        -- the whole-run figures' gap, which pool loads it may not have compared: fixg43's
        -- "end-to-end latency p99 (-31.1 %)" beside a test that found -8.7 %)
        local e, scope, iv = partial_test_effect(r, true)
        if strat and r.effect_pp and r.effect_pp_lo and r.effect_pp_hi then
          -- (the error rate's: the Mantel-Haenszel difference in points, with its interval)
          w[#w + 1] = ("%s (%s %s pp vs %s %s, within each, %s %% interval %s to %s pp, %s)"):format(
            lower_label(r.label), B.label, T.helpers.signed(r.effect_pp, 2), A.label, decision.test_scope_text(r.sig),
            ("%d"):format(r.effect_level or decision.EFFECT_LEVEL), T.helpers.signed(r.effect_pp_lo, 2),
            T.helpers.signed(r.effect_pp_hi, 2), p_text(r.p_value, r.p_adjusted, r.family_size))
        elseif e and not strat then
          w[#w + 1] = ("%s (%s %s vs %s %s%s, %s)"):format(lower_label(r.label), B.label, e, A.label, scope, iv,
            p_text(r.p_value, r.p_adjusted, r.family_size))
        else
          w[#w + 1] = ("%s (%s %s vs %s%s, %s)"):format(lower_label(r.label), B.label,
            strat and T.helpers.signed(r.sig.mh_rate_b - r.sig.mh_rate_a, 2) .. " pp"
            or r.pct and r.unit ~= "%" and T.helpers.pct(r.pct) or r.delta_text, A.label,
            strat and " within the load points" or "", p_text(r.p_value, r.p_adjusted, r.family_size))
        end
      elseif r.sustained_winner or r.sustained_size then
        -- the test at the loads both sustained found a difference; the pooled figures
        -- name no winner (decision.verdict): said apart, below, by test (the rows of one
        -- sample kind read one test: its p said once) and, where it is too small or not
        -- shown beyond the threshold, as that (decision.effect_size)
        local w = r.sustained_winner and sustained[r.sustained_winner] or sustained_small
        w[#w + 1] = { label = lower_label(r.label), p = p_text(r.p_value, r.p_adjusted, r.family_size),
          left = r.sig and r.sig.left_out, id = r.test_id or decision.test_id(r.key, r.sig or {}) or r.key, row = r,
          -- the test that ran, as the Evidence column names it (one load point both sustained:
          -- a plain Mann-Whitney there; the repeats' figures where the points were repeated;
          -- nil: test_said's stratified Mann-Whitney)
          name = r.sig and r.sig.test and decision.test_name(r.sig) or nil }
      elseif r.size and r.p_value then
        -- significant, but too small to matter, not shown beyond the threshold, or the other
        -- way (decision.effect_size): said with its test, by class, below
        unsure[#unsure + 1] = { label = lower_label(r.label), p = p_text(r.p_value, r.p_adjusted, r.family_size),
          id = r.test_id or decision.test_id(r.key, r.sig or {}) or r.key, row = r,
          name = r.sig and r.sig.test and decision.test_name(r.sig) or nil }
      elseif r.verdict == "untested" or r.pools_overloaded then
        -- (pooled over loads where a run was overloaded, no test at the loads both sustained:
        -- "not comparable", and untested too, perf_row; said with its reason)
        untested = untested + 1
        untested_rows[#untested_rows + 1] = r
      elseif r.partial then
        partial[#partial + 1] = r
      elseif r.adjusted_away then
        away[#away + 1] = lower_label(r.label)
      elseif r.identical and r.key == "error_rate_pct" then
        -- no request failed in either run: nothing was tested, so it is not among the
        -- kinds "tested" (said apart, below)
        no_failures = r
      elseif (r.verdict == "no clear difference" or r.verdict == "negligible") and not r.cannot_decide then
        local k = summary_kind(r.key)
        if not kind_seen[k] then
          kind_seen[k] = true
          kinds[#kinds + 1] = k
        end
      end
      if r.key == "error_rate_pct" and r.test_id then errors_tested = true end
    end
    -- (fixh40) a large whole-run gap the table marks "not comparable" because it pools loads
    -- where a run was overloaded reads as a contradiction beside "no winner": say why it is no
    -- verdict, and what decides (nil where none: whether other rows were tested or not,
    -- newuser48 F1, where nothing could be tested it went unsaid)
    local function gap_sentence()
      local gap = overloaded_gap(model)
      local gap_test = gap and perf_test_text(model.perf, gap.key, A, B)
      -- (where every load left out was answered short with bursts of failures that were not
      -- timeouts: what the files say they were, never an overloaded queue: fixb46)
      local bw = gap and decision.unsustained_burst_words(model.saturation, { a = A.run, b = B.run },
        { a = model.load_points.a, b = model.load_points.b })
      -- (loads left out as a run's saturation is unknown: unknown, with why, tidy55)
      local uw, ur = decision.pooled_unjudged_words(model.pooled_over)
      if gap then
        return ("The whole-run %s gap (%s, %s for %s against %s for %s) is no verdict: those figures pool "
          .. "%s (%s), so they are not comparable; the capacity and the tests at the loads both sustained decide%s.")
          :format(gap.label, gap.pct_text, gap.a_text, A.label, gap.b_text, B.label,
            bw and ("loads a run answered short, failed requests in bursts (%s) making up the rest"):format(bw.cause)
              or uw or "loads where a run was overloaded",
            -- (the error rate's reason is its failures' spread between runs, not the queue's latency)
            bw and (gap.key == "error_rate_pct" and bw.count or bw.latency)
              or (ur and (ur .. "; ") or "") .. (gap.key == "error_rate_pct" and "how many requests an overloaded "
              .. "queue fails varies between runs beyond what one run's counts show" or decision.LATENCY_UNSUSTAINED),
            -- (that metric's own test, with the loads it covered: never read as all of them)
            gap_test and (" (its own: %s)"):format(gap_test) or "")
      end
    end
    local n = model.family.size
    -- the table's own tests (the family also holds the summary's test at the matched load)
    local n_rows = 0
    for _, r in ipairs(model.perf) do if r.test_id then n_rows = n_rows + 1 end end
    -- rows whose test could not reach alpha whatever the values (3 and 3 repeats, exact
    -- test): tested, but no evidence either way, said apart from "no clear difference"
    local cd, cd_counts, cd_requests = {}, nil, 0
    for _, r in ipairs(model.perf) do
      if r.cannot_decide and r.test == "fisher" then
        cd_counts = r
      elseif r.cannot_decide then
        cd[#cd + 1] = lower_label(r.label)
        if r.cannot_decide_units == "requests" then cd_requests = cd_requests + 1 end
      end
    end
    -- (tested on a run's repeats, or on its few per-request samples: said as which)
    local cd_on = cd_requests == #cd and "requests too few for any outcome of the exact test to reach p < %s"
      or cd_requests == 0 and ("repeats too few for any outcome of the test to reach p < %s (the exact test, where a "
        .. "run's repeats are all one value)")
      or "repeats or requests too few for any outcome of the exact test to reach p < %s"
    local cd_text = #cd > 0 and ("%s: %s, tested only on " .. cd_on .. ", so %s no winner.")
      :format(#cd == 1 and "One metric" or (#cd .. " metrics"), table.concat(cd, ", "),
        T.helpers.num(decision.ALPHA, 2), #cd == 1 and "it names" or "they name") or nil
    if cd_counts then
      -- the error rate from too few failed requests: no split of them could be significant
      local c = cd_counts.sig or {}
      local counts = c.x_a and c.n_a and c.x_b and c.n_b
        and ("; %d of %d failed against %d of %d"):format(c.x_a, c.n_a, c.x_b, c.n_b) or ""
      local s_ = ("Error rate not shown to differ (%s against %s%s): too few requests failed for any outcome of "
        .. "Fisher's exact test to reach p < %s, so it names no winner."):format(cd_counts.a_text, cd_counts.b_text,
        counts, T.helpers.num(decision.ALPHA, 2))
      cd_text = cd_text and (cd_text .. " " .. s_) or s_
    end
    if n_rows == 0 and cd_text then
      out[#out + 1] = "No whole-run metric could show a difference. " .. cd_text
      cd_text = nil
    elseif n_rows == 0 then
      -- no test at all: "no clear difference" would claim a comparison that was not made
      local what = n == 0 and "Nothing could be tested" or "No whole-run metric could be tested"
      out[#out + 1] = untested > 0 and ("%s: %s, so none names a winner (%d metric%s untested)."):format(what,
        untested_why(model, A, B), untested, untested == 1 and "" or "s")
        or ("%s: no metric was comparable with a test, so none names a winner."):format(what)
      untested = 0 -- said once
      out[#out + 1] = gap_sentence()
    elseif #wins.a == 0 and #wins.b == 0 then
      -- said only of what was tested: the kinds of metric whose tests found nothing; the
      -- untested rows are named below, never folded into "no clear difference"
      table.sort(kinds, function(x, y) return SUMMARY_KIND_ORDER[x] < SUMMARY_KIND_ORDER[y] end)
      local lead = #kinds > 0 and ("No clear difference in the whole-run metrics tested (%s): none differs beyond "
        .. "noise"):format(table.concat(kinds, ", "))
        or "No tested whole-run metric names a winner: none differs beyond noise"
      -- (none where the only tests that found something are at the loads both sustained:
      -- said below, and "none differs beyond noise" would deny them)
      if #kinds == 0 and (#sustained.a + #sustained.b + #sustained_small > 0 or #partial > 0) then lead = nil end
      -- (rows significant but not beyond the threshold are said below: no "no clear difference" of their kind)
      if lead and #unsure > 0 then
        lead = "No tested whole-run metric names a winner: none is shown to differ beyond both noise"
      end
      out[#out + 1] = lead and (lead
        .. (n > 1 and (" (Holm-Bonferroni over the %d tests of this comparison)"):format(n) or "")
        .. " and the practical threshold of " .. decision.thr_num(model.min_effect) .. " %"
        .. (errors_tested and (" (for the error rate also %s percentage points)"):format(
          T.helpers.num(decision.MIN_ERROR_PP, 1)) or "") .. "."
        -- as beside a win: "no clear difference" at equal total load is not one per GPU
        .. gpu_latency_caveat(model, A, B, "These whole-run latencies and rates")) or nil
      out[#out + 1] = gap_sentence()
      if no_failures and no_failures.note:match("^no request failed") then
        -- said apart: untested, and never among the kinds "tested"
        out[#out + 1] = ("No request failed in either run (%s), so the error rate was not tested."):format(
          no_failures.note:match("%((.-)%)") or "no failed request")
      elseif no_failures then
        -- every request failed in both, or every load point all-or-none alike: its own words
        out[#out + 1] = ("The error rate was not tested: %s."):format(no_failures.note)
      end
    else
      local parts = {}
      if #wins.a + #wins.b > M.SUMMARY_LIST_MIN then
        -- many metrics: counted here, each one in the list under the paragraph (one
        -- paragraph of 20 metrics with their p-values is unreadable)
        if #wins.b > 0 then parts[#parts + 1] = ("%s is better in %s"):format(B.label, T.helpers.count(#wins.b,
          "metric")) end
        if #wins.a > 0 then parts[#parts + 1] = ("%s is better in %s"):format(A.label, T.helpers.count(#wins.a,
          "metric")) end
        model.summary_wins = {}
        for _, x in ipairs { { B, wins.b }, { A, wins.a } } do
          if #x[2] > 0 then model.summary_wins[#model.summary_wins + 1] = { label = x[1].label, items = x[2] } end
        end
        out[#out + 1] = table.concat(parts, "; ") .. " (listed below)."
          .. gpu_latency_caveat(model, A, B, "These whole-run latencies and rates")
      else
        if #wins.b > 0 then parts[#parts + 1] = ("%s is better in %s"):format(B.label, table.concat(wins.b, ", ")) end
        if #wins.a > 0 then parts[#parts + 1] = ("%s is better in %s"):format(A.label, table.concat(wins.a, ", ")) end
        out[#out + 1] = table.concat(parts, "; ") .. "."
          .. gpu_latency_caveat(model, A, B, "These whole-run latencies and rates")
      end
    end
    if #partial > 0 then
      -- tested where the requests were independent enough, not at the other loads the
      -- whole-run figures pool: no difference shown, and none denied
      local names, why = {}, {}
      for _, r in ipairs(partial) do
        names[#names + 1] = lower_label(r.label)
        local d = r.sig and r.sig.dependent
        if d then why[table.concat(d, ", ")] = { #d, r.sig.sustained_strata or #d } end
      end
      local w = {}
      for loads, nn in pairs(why) do
        w[#w + 1] = ("untested at %d of %d loads, too dependent: %s"):format(nn[1], nn[2], loads)
      end
      table.sort(w)
      out[#out + 1] = ("Not shown to differ, as tested at only some of the loads both runs sustained (%s), which the "
        .. "whole-run figures pool: %s."):format(table.concat(w, "; "), table.concat(names, ", "))
    end
    -- the rows of w grouped by their test, in first-seen order: {{rows = {...}, x = the first}, ...}
    local function by_test(w)
      local groups, at = {}, {}
      for _, x in ipairs(w) do
        local g = at[x.id]
        if not g then
          g = { rows = {}, x = x }
          at[x.id], groups[#groups + 1] = g, g
        end
        g.rows[#g.rows + 1] = x
      end
      return groups
    end
    -- "(Mann-Whitney stratified by load point, p = ...)", or, for a test the rows share,
    -- "(one Mann-Whitney stratified by load point for these 6 rows, p = ...)"
    -- (with the loads it tested where it left out some of those both sustained,
    -- decision.test_scope_text: "at 2 of the 3 loads both sustained (1 left out: ...)")
    local function test_said(g)
      local name = g.x.name or "Mann-Whitney stratified by load point"
      if #g.rows > 1 then name = ("one %s for these %d rows"):format(name, #g.rows) end
      local sig = g.x.row.sig
      local scope = sig and sig.overloaded and decision.test_scope_text(sig)
      if scope and scope ~= decision.SUSTAINED_ALL then name = name .. ", " .. scope end
      return ("%s, %s"):format(name, g.x.p)
    end
    for _, side in ipairs { "a", "b" } do
      local w = sustained[side]
      if #w > 0 then
        local parts, groups = {}, by_test(w)
        for _, g in ipairs(groups) do
          local names = {}
          for _, x in ipairs(g.rows) do
            local e = x.row.effect_pct
            names[#names + 1] = (e or x.row.effect_pp_lo) and ("%s (%s)"):format(x.label, effect_text({ pct = e,
              lo = x.row.effect_lo, hi = x.row.effect_hi, level = x.row.effect_level, pp_lo = x.row.effect_pp_lo,
              pp_hi = x.row.effect_pp_hi, relative_why = x.row.effect_relative_why }, true,
              model.min_effect or decision.MIN_EFFECT)) or x.label
          end
          parts[#parts + 1] = ("%s (%s)"):format(table.concat(names, ", "), test_said(g))
        end
        -- (what the figures pool, by what the loads' failures were, as the rows' notes say it:
        -- decision.pooled_over_text)
        local sig1 = groups[1].x.row.sig
        out[#out + 1] = ("At the loads both runs sustained, %s's values are lower in %s, each beyond the %s "
          .. "threshold (%s against %s within the load points tested); %s, which the %s left out, so they name no "
          .. "winner."):format(side == "a" and A.label or B.label, table.concat(parts, "; "),
            thresholds_said(w, model.min_effect), B.label, A.label,
            decision.pooled_over_text(type(sig1) == "table" and sig1.overloaded or nil),
            #groups == 1 and "test" or "tests")
      end
    end
    -- Rows whose test is significant but names no winner (decision.effect_size's classes),
    -- grouped by their test (said once for its rows) and by class: too small to matter, not
    -- shown beyond the threshold (an interval that reaches back within it, or none: with what
    -- would settle it), the other way. size(r), lower(r): the row's class and lower side.
    local function sized_parts(list, size, lower_of)
      local parts = {}
      for _, g in ipairs(by_test(list)) do
        local cls = { small = {}, open = {}, unsure = {}, unbounded = {}, unbounded_open = {}, opposite = {} }
        local settle, why, needs, fewest = nil, nil, {}, nil
        for _, x in ipairs(g.rows) do
          local r = x.row
          local c = size(r) == "unsure" and not (r.effect_lo or r.effect_pp_lo) and cls.unbounded or cls[size(r)]
            or cls.unsure
          -- (an estimate within the threshold whose interval reaches beyond it: not shown within
          -- it, decision.effect_size; said apart from one beyond it whose interval reaches back)
          local thr = r.min_effect or decision.MIN_EFFECT
          local est_within = r.effect_pp and math.abs(r.effect_pp) < decision.MIN_ERROR_PP
            or not r.effect_pp and r.effect_pct and decision.magnitude(r.effect_pct) < thr
          if est_within and c == cls.unsure then c = cls.open end
          if est_within and c == cls.unbounded then c = cls.unbounded_open end
          if c == cls.unsure or c == cls.open or c == cls.small and (r.effect_lo or r.effect_pp_lo) then
            -- (beside the threshold: with the decimals that keep them apart from it)
            c[#c + 1] = ("%s (%s)"):format(x.label, effect_text({ pct = r.effect_pct, lo = r.effect_lo,
              hi = r.effect_hi, level = r.effect_level, pp_lo = r.effect_pp_lo, pp_hi = r.effect_pp_hi,
              relative_why = r.effect_relative_why }, true, r.min_effect or decision.MIN_EFFECT))
            -- (too small to matter: its interval, within the threshold at both ends, with it)
          elseif c == cls.small and r.effect_pp and math.abs(r.effect_pp) < decision.MIN_ERROR_PP then
            -- (the error rate below its percentage-point threshold)
            c[#c + 1] = ("%s %s pp"):format(x.label, T.helpers.signed(r.effect_pp, 2))
          else
            -- (too small to matter: beside the threshold, with the decimals that keep it apart)
            c[#c + 1] = ("%s %s"):format(x.label, r.effect_pct
              and decision.pct_near(r.effect_pct, r.min_effect or decision.MIN_EFFECT) or "N/A")
          end
          if c == cls.unbounded or c == cls.unbounded_open then
            why = why or r.effect_why
            -- (what would settle it: each row's requests a load point, decision.settle_text)
            if r.effect_need then
              needs[#needs + 1] = { n = r.effect_need, label = x.label }
              fewest = math.min(fewest or r.effect_fewest or math.huge, r.effect_fewest or math.huge)
            elseif r.settle then
              settle = r.settle
            end
          end
        end
        if #needs > 0 then
          -- "about 383 requests a load point for TTFT p99, 4706 for TTFT p99.9 (240 here at the
          -- fewest)": one number where they agree
          local same = true
          for _, x in ipairs(needs) do if x.n ~= needs[1].n then same = false end end
          local each = {}
          for i, x in ipairs(needs) do
            each[i] = (i == 1 and "%d requests a load point for %s" or "%d for %s"):format(x.n, x.label)
          end
          settle = ("about %s%s, or %s"):format(
            same and (needs[1].n .. " requests a load point") or table.concat(each, ", "),
            fewest and fewest < math.huge and (" (%d here at the fewest)"):format(fewest) or "",
            decision.REPEATS_SETTLE)
        end
        local said = {}
        if #cls.small > 0 then
          said[#said + 1] = ("too small to matter (the 95 %% interval within the threshold at both ends) in %s")
            :format(table.concat(cls.small, ", "))
        end
        if #cls.open > 0 then
          said[#said + 1] = ("within the threshold by the estimate, but not by the 95 %% interval, which reaches "
            .. "beyond it, in %s"):format(table.concat(cls.open, ", "))
        end
        if #cls.unsure > 0 then
          said[#said + 1] = ("not shown beyond the threshold in %s"):format(table.concat(cls.unsure, ", "))
        end
        -- (the settle said once, after the last of the unbounded: within the threshold by the
        -- estimate, with nothing to bound it there, and beyond it by the estimate)
        local ub = { { cls.unbounded_open, "within the threshold by the estimate, but not bounded within it in" },
          { cls.unbounded, "not shown beyond the threshold in" } }
        local last = #cls.unbounded > 0 and 2 or 1
        for i, u in ipairs(ub) do
          if #u[1] > 0 then
            said[#said + 1] = ("%s %s (%s: %s%s)"):format(u[2], table.concat(u[1], ", "),
              #u[1] == 1 and "its 95 % interval unbounded" or "their 95 % intervals unbounded",
              why or "too few independent requests", i == last and settle and ("; to settle it: " .. settle) or "")
          end
        end
        if #cls.opposite > 0 then
          said[#said + 1] = ("the other way in %s"):format(table.concat(cls.opposite, ", "))
        end
        parts[#parts + 1] = ("%s's values are lower (%s), %s"):format(lower_of(g.x.row) == "a" and A.label or B.label,
          test_said(g), table.concat(said, "; "))
      end
      return parts
    end
    if #unsure > 0 then
      -- significant, but too small to matter, or not shown beyond the threshold: no winner
      -- (the same words as at the loads both sustained, below)
      local where = unsure[1].row.effect_where
      out[#out + 1] = ("Significant, but not shown to be beyond the practical threshold of %s: %s, so no winner (%s "
        .. "against %s%s).")
        :format(thresholds_said(unsure, model.min_effect), table.concat(sized_parts(unsure,
          function(r) return r.size end, function(r) return r.size_lower end), "; "), B.label, A.label,
          where and (" " .. where) or "")
    end
    if #sustained_small > 0 then
      -- significant there, but too small to matter, or not shown beyond the threshold: no winner
      local parts = sized_parts(sustained_small, function(r) return r.sustained_size end,
        function(r) return r.sustained_lower end)
      out[#out + 1] = ("At the loads both runs sustained, %s, so no winner (%s against %s within the load points "
        .. "tested; the practical threshold is %s)."):format(table.concat(parts, "; "), B.label, A.label,
        thresholds_said(sustained_small, model.min_effect))
    end
    if model.follows_sends then
      -- both kept up with every load they were sent: the throughput is the sends' (finish_row)
      local f = model.follows_sends
      out[#out + 1] = ("%s %s no winner: %s."):format(table.concat(f.rows, " and "), #f.rows == 1 and "names"
        or "name", f.text)
    end
    if cd_text then out[#out + 1] = cd_text end
    if #away > 0 then
      -- with many tests some p < 0.05 are expected by chance: said, not hidden
      out[#out + 1] = ("%s %s p < %s alone but not after the Holm adjustment over %s (what chance gives among "
        .. "that many): no winner there."):format(#away == 1 and "One row" or (#away .. " rows"),
        #away == 1 and ("(" .. away[1] .. ") has") or ("(" .. table.concat(away, ", ") .. ") have"),
        T.helpers.num(decision.ALPHA, 2), T.helpers.count(n, "test"))
    end
    if untested > 0 then
      -- named, with both values and the rows' own reasons: an untested row is no finding of sameness
      local parts = {}
      for _, r in ipairs(untested_rows) do
        parts[#parts + 1] = ("%s (%s vs %s)"):format(lower_label(r.label), r.a_text, r.b_text)
      end
      out[#out + 1] = ("Not tested (%s), so no winner: %s."):format(
        #notes > 0 and table.concat(notes, "; ") or untested_why(model, A, B), table.concat(parts, ", "))
    end
  end
  -- the Summary comes before the Data checks: a run whose own files disagree is said here
  -- (files --tolerant left out are said as that, not as files that disagree)
  local warned, resolved = {}, {}
  for _, s in ipairs { A, B } do
    if s.run.status == "warnings" then
      local left, other, settled = 0, 0, 0
      -- (a check the per-request data settle, their figure the one used: said as that)
      local used = {}
      -- (and a results' model its server does not name: no figure in doubt, the Verdict's like for
      -- like says it)
      local model_check = {}
      for _, c in ipairs(s.run.checks or {}) do
        if c.resolved == true and c.text then used[c.text] = true end
        if c.kind == "served_model_mismatch" and c.text then model_check[c.text] = true end
        -- (a vLLM server that restarted: no file disagrees; said below, and by the Verdict)
        if c.kind == "server_restart" and c.text then model_check[c.text] = true end
        -- (repeats that are copies of one recording: no file disagrees; said below)
        if c.kind == "replayed_repeats" and c.text then model_check[c.text] = true end
      end
      for _, w in ipairs(s.run.warnings or {}) do
        if tostring(w):match("^left out %(%-%-tolerant%): ") then left = left + 1
        elseif used[w] then settled = settled + 1
        -- (a partial run is said first, M.build; an older save's saturation is no disagreement)
        elseif w ~= s.run.partial and not model_check[w]
          and not tostring(w):match("^saved before llmdlua judged saturation ") then
          other = other + 1
        end
      end
      if left > 0 then
        out[#out + 1] = ("%s: %s left out (--tolerant: missing or unreadable; see Data checks), so its figures "
          .. "lack what %s held."):format(s.label, left == 1 and "1 result file was" or (left .. " result files were"),
          left == 1 and "it" or "they")
      end
      if other > 0 then warned[#warned + 1] = s.label
      elseif settled > 0 then resolved[#resolved + 1] = s.label end
    end
  end
  for _, s in ipairs { A, B } do
    for _, c in ipairs(s.run.checks or {}) do
      if c.kind == "replayed_repeats" and c.text then
        out[#out + 1] = c.text:gsub("^%l", string.upper) .. " (see Data checks)."
      end
    end
  end
  for _, s in ipairs { A, B } do
    local during, before = 0, 0
    for _, c in ipairs(s.run.checks or {}) do
      if c.kind == "server_restart" then
        if c.during then during = during + 1 else before = before + 1 end
      end
    end
    if during > 0 then
      out[#out + 1] = ("%s's vLLM server restarted or was replaced during its benchmark, on every attempt (see "
        .. "Data checks): its figures include a crash and a restart."):format(s.label)
    elseif before > 0 then
      out[#out + 1] = ("%s's vLLM server had restarted before its benchmark began (see Data checks)."):format(s.label)
    end
  end
  if #resolved > 0 then
    out[#out + 1] = ("%s's own result files disagree with each other (the harness's summaries with %s per-request "
      .. "data: see Data checks); the figures they disagree on are the per-request data's here, the summaries' only "
      .. "checked against them."):format(table.concat(resolved, "'s and "), #resolved == 1 and "its" or "their")
  end
  if #warned > 0 then
    -- (each run's files are checked on their own: a file whose rates disagree with its own
    -- counts and duration, or two files of one run; never one run's against the other's)
    out[#out + 1] = ("%s's own result files hold figures that do not agree with each other (a file's rates with "
      .. "its counts, or one file with another: see Data checks), so %s figures are in doubt."):format(
      table.concat(warned, "'s and "), #warned == 1 and "its" or "their")
  end
  local ea, eb = A.run.overall.values.error_rate_pct, B.run.overall.values.error_rate_pct
  if (ea and ea > 0) or (eb and eb > 0) then
    out[#out + 1] = ("Error rates: %s %s, %s %s; latency percentiles cover successful requests only.")
      :format(A.label, metrics.format("error_rate_pct", ea), B.label, metrics.format("error_rate_pct", eb))
  end
  return M.gpu_caveat_once(table.concat(out, " "), model, A, B)
end

local function curve_of(points)
  local out = {}
  for _, p in ipairs(points) do
    out[#out + 1] = {
      index = p.index, offered = p.offered, load_type = p.load_type, repeats = p.repeats, stages = p.stages,
      duration_s = p.duration_s, requests = p.requests, achieved_rps = p.achieved_rps, output_tps = p.output_tps,
      -- (a paced run read on the other run's drain-reduced basis, p.rate_like: "pace_as_drain",
      -- the basis its figures are on, as treatment_comparison_sources.csv says it)
      harness_rps = p.harness_rps, harness_tps = p.harness_tps,
      rate_basis = p.rate_like and "pace_as_drain" or p.rate_basis,
      error_rate_pct = p.error_rate_pct, interactivity_tps_per_user = p.interactivity_tps_per_user,
      interactivity_basis = p.interactivity_basis,
      output_tps_per_gpu = p.output_tps_per_gpu, goodput_rps = p.goodput_rps,
      slo_attainment_pct = p.slo_attainment_pct, values = p.values, na = p.na, ci = p.ci, meets_slo = p.meets_slo,
      slo_failing = p.slo_failing,
      -- what the saturation search judged the point by (llmd.loadpoints.pace_of, drain_of):
      -- the charts read a shortfall from failed requests by them, as the search does (without
      -- them the caption named the loads whose achieved rate was below 95 % of the offered,
      -- points 1, 3 and 4, where the search and the legend found point 2)
      pace = p.pace, drain = p.drain,
      -- what its failed requests were (llmd.loadpoints.failure_cause): the failures note says
      -- "not overload" only where the files name every cause
      failure_kinds = p.failure_kinds,
      -- and by cause, summed over its repeats (llmd.loadpoints: errors)
      errors = p.errors,
    }
  end
  return json.array(out) -- [] in comparison.json when the run has no load point
end

-- An SLO limit far below every value of its metric either run measured (more than
-- SLO_UNIT_FACTOR times below the lowest: at any load, in any stage or repeat) is most likely
-- in the wrong unit (seconds for a limit in ms): "--slo ttft_p90_ms=0.2: below every measured
-- TTFT p90 (lowest 33.9 ms, ...)". Said, not refused: it may be intended. where: how the
-- SLOs were given ("--slo", else "SLO"). Returns the texts, in SLO order.
M.SLO_UNIT_FACTOR = 10
local function slo_unit_checks(slo, A, B, where)
  where = where or "SLO"
  local out = {}
  for _, s in ipairs(slo) do
    local m = metrics.get(s.key)
    if m.unit == "ms" then
      local low, who
      for _, side in ipairs { A, B } do
        local run = side.run
        local sets = { { run.overall, "the whole run" } }
        for _, st in ipairs(run.stages or {}) do
          if not st.warmup then sets[#sets + 1] = { st.metrics, ("stage %s"):format(tostring(st.index)) } end
        end
        for _, x in ipairs(sets) do
          local v = x[1] and x[1].values and x[1].values[s.key]
          if type(v) == "number" and v == v and (not low or v < low) then low, who = v, side.label .. ", " .. x[2] end
        end
      end
      if low and s.max * M.SLO_UNIT_FACTOR < low then
        out[#out + 1] = ("%s %s=%s: below every measured %s of both runs (lowest %s, %s), more than %dx below it: "
          .. "is it in ms? The limit is read in the metric's unit (ms), so no load can meet it"):format(where, s.key,
          ("%g"):format(s.max), m.label, metrics.format(s.key, low), who,
          M.SLO_UNIT_FACTOR)
      end
    end
  end
  return out
end

-- The banner's title where the workloads do not match (differences: the workload match's).
-- The load ladder (how many load points, their offered loads, the requests each sent) does
-- not set workloads apart, as treatments.lua groups them: the same requests and load type
-- on two ladders are one workload driven at other loads, said so. The harness alone (its
-- note given) is one workload measured twice. Anything else (token lengths, load type,
-- model, a stated workload) is not the same workload.
local LADDER_FIELDS = { load_points = true, offered_load = true, requests = true }

-- Did the plan (workspace/plan.yaml) deploy and benchmark both runs alike (runs.a and runs.b
-- with the same deploy: and benchmark:, labels aside)? Then the comparison is an A/A check:
-- any difference is the run-to-run variation of one configuration. The text saying so, or nil
-- (no plan, a run imported, or anything of the two differs). Every key of a run that changes
-- what is measured counts: baseline: (plain vLLM through the baseline Service, not the
-- gateway: the README's plain-vLLM-against-llm-d comparison), and what info: states of the
-- configuration (its stack: and benchmark: keys, flat or nested, read as --a-info reads them:
-- llmd.workspace.info_flat; its slo: and timestamp: are no configuration).
same_plan_config = function(workspace)
  if type(workspace) ~= "string" then return nil end
  local path = workspace .. "/plan.yaml"
  if require("lfs").attributes(path, "mode") ~= "file" then return nil end
  local ok, plan = pcall(require("llmd.yaml").load_file, path)
  if not ok or type(plan) ~= "table" or type(plan.runs) ~= "table" then return nil end
  local a, b = plan.runs.a, plan.runs.b
  if type(a) ~= "table" or type(b) ~= "table" or a.existing ~= nil or b.existing ~= nil then return nil end
  local same = M.same_value
  -- (the harness by what it names: inference_perf is inference-perf, an alias the plan accepts)
  local function bench(r)
    if type(r.benchmark) ~= "table" or r.benchmark.harness == nil then return r.benchmark end
    local c = {}
    for k, v in pairs(r.benchmark) do c[k] = v end
    local hok, h = pcall(require("llmd.harness").get, c.harness)
    if hok then c.harness = h.name end
    return c
  end
  if type(a.deploy) ~= "table" or not (same(a.deploy, b.deploy) and same(bench(a), bench(b))) then return nil end
  -- each run's baseline: the plan's true or false (none: false). Any other value is an old
  -- workspace's, from before the plan refused it (baseline: no, "false", null), which is no
  -- boolean to compare ("false" is a true string): what that deploy did is the run's record
  -- (run_state.json's baseline, true or false, written as it deployed), else not known and
  -- no A/A check is claimed
  local function baseline_of(x, r)
    if r.baseline == nil or type(r.baseline) == "boolean" then return r.baseline == true end
    local sok, st = pcall(json.read, workspace .. "/run-" .. x .. "/run_state.json")
    if sok and type(st) == "table" and type(st.baseline) == "boolean" then return st.baseline end
    return nil
  end
  local ba, bb = baseline_of("a", a), baseline_of("b", b)
  if ba == nil or bb == nil or ba ~= bb then return nil end
  local function stated(r)
    if type(r.info) ~= "table" then return {} end
    local ws = require "llmd.workspace"
    local flat, out = ws.info_flat(r.info), {}
    for k, v in pairs(flat) do
      if ws.STATE_KEYS[k] and type(v) == "table" then
        -- (a part's own keys are lifted; the rest of it, the user's extra rows, as stack.KEY)
        local own = {}
        for _, n in ipairs(ws.STATE_KEYS[k]) do own[n] = true end
        for n, x in pairs(v) do if not own[n] then out[k .. "." .. tostring(n)] = x end end
      elseif k ~= "slo" and k ~= "timestamp" and k ~= "label" then
        out[k] = v
      end
    end
    return out
  end
  if not same(stated(a), stated(b)) then return nil end
  return "both runs deployed the same configuration (the plan's runs a and b have the same deploy:, benchmark: and "
    .. "baseline:, and their info: states no difference), so this is an A/A check: a difference is run-to-run "
    .. "variation, not a configuration's"
end

-- Did two runs llmdlua deployed record the same configuration (their run_state.json, as
-- written, or as an import copied it: the commands that deployed and benchmarked them, the
-- baseline Service or not, the stack and the benchmark recorded)? A re-run (run_comparison.sh
-- re-runs run X with X's own deploy and benchmark files) records run X's configuration under
-- another label: that is what marks it, never the label. sa, sb: the two records (tables);
-- false when either records no deploy command (results imported from elsewhere).
function M.same_recorded_config(sa, sb)
  if type(sa) ~= "table" or type(sb) ~= "table" then return false end
  local function config(st)
    local cmds = type(st.recorded_commands) == "table" and st.recorded_commands or st.commands
    if type(cmds) ~= "table" or #cmds == 0 or type(st.stack) ~= "table" or type(st.benchmark) ~= "table" then
      return nil
    end
    -- (a baseline that is no boolean is no record of what was deployed: nothing to compare)
    if st.baseline ~= nil and type(st.baseline) ~= "boolean" then return nil end
    return { commands = cmds, baseline = st.baseline == true, stack = st.stack,
      benchmark = st.benchmark, stack_extra = st.stack_extra or {} }
  end
  local a, b = config(sa), config(sb)
  return a ~= nil and b ~= nil and M.same_value(a, b)
end

-- Are x and y the same value (YAML or JSON read: tables compared key by key, deep)?
function M.same_value(x, y)
  if type(x) ~= type(y) then return false end
  if type(x) ~= "table" then return x == y end
  for k, v in pairs(x) do if not M.same_value(v, y[k]) then return false end end
  for k in pairs(y) do if x[k] == nil then return false end end
  return true
end

-- What nothing verifies is like for like, or nil: "A's workload/model unknown" where one run
-- states its workload or model (the benchmark's workload, the model served: decision.model_of)
-- and the other does not (the token lengths may still match by chance); "neither run's model is
-- known" where no run names one: nothing measured tells two models apart. (A workload neither
-- states is what the workload match compares as measured: load points, requests, token lengths.)
-- Second: the one-sided part alone, or nil (the workload banner's).
like_unverified = function(A, B)
  local function stated(side, part, k)
    local st = side.state or {}
    local v = type(st[part]) == "table" and st[part][k] or nil
    if v == nil or v == "unknown" or v == "" then return nil end
    return tostring(v)
  end
  local ma, why_a = decision.model_of(A)
  local mb, why_b = decision.model_of(B)
  local known = {
    workload = { stated(A, "benchmark", "workload"), stated(B, "benchmark", "workload") },
    model = { ma, mb },
  }
  -- (why a model is unknown where the server names several: said, none picked)
  local why = { ma == nil and why_a or nil, mb == nil and why_b or nil }
  local out = {}
  for _, x in ipairs { { "a", 1, A }, { "b", 2, B } } do
    local other = 3 - x[2]
    local missing = {}
    for _, f in ipairs { "workload", "model" } do
      if known[f][x[2]] == nil and known[f][other] ~= nil then missing[#missing + 1] = f end
    end
    if #missing > 0 then
      out[#out + 1] = ("%s's %s unknown%s"):format(x[1]:upper(), table.concat(missing, "/"),
        known.model[x[2]] == nil and why[x[2]] and (": " .. why[x[2]]) or "")
    end
  end
  -- a run whose results name another model than its server's scrapes or logs
  -- (decision.check_served_model): the results' model alone does not make the pair like for like
  for _, x in ipairs { { "A", A }, { "B", B } } do
    local sm = type(x[2].run.served_model) == "table" and x[2].run.served_model or {}
    if type(sm.mismatch) == "string" then out[#out + 1] = ("%s's model in doubt: %s"):format(x[1], sm.mismatch) end
  end
  -- (the one-sided part, second: what the workload banner says; a model neither names leaves the
  -- banner to the requests measured, which the workload match compares)
  local one_sided = #out > 0 and table.concat(out, ", ") or nil
  if ma == nil and mb == nil then
    local whys = {}
    for i, x in ipairs { "A", "B" } do if why[i] then whys[#whys + 1] = x .. "'s " .. why[i] end end
    out[#out + 1] = "neither run's model is known" .. (#whys > 0 and (" (" .. table.concat(whys, "; ") .. ")") or "")
  end
  return #out > 0 and table.concat(out, ", ") or nil, one_sided
end
workload_title = function(differences, has_harness_note)
  if #differences == 0 then return nil end
  local ladder, harness, other = false, false, false
  for _, d in ipairs(differences) do
    if LADDER_FIELDS[d.field] then ladder = true
    elseif d.field == "harness" and has_harness_note then harness = true
    else other = true end
  end
  if other or not (ladder or harness) then return "Not the same workload." end
  if ladder and harness then
    return "The same workload, measured by different harnesses on different load ladders."
  end
  if harness then return "The same workload, measured by different harnesses." end
  return "The same workload (the same requests), on different load ladders."
end

-- The Data checks' line where no check failed: "No data check failed" only for a run whose
-- per-request data and harness summary were compared (run.crosschecked, llmd.runmodel's
-- count of figures compared, nil where none was); a run with nothing to compare says that no
-- check could run. An older saved run model does not say (false): the sentence that does not
-- claim either.
local function checks_note(A, B)
  local ran, none, unknown = {}, {}, false
  for _, s in ipairs { A, B } do
    local n = s.run.crosschecked
    if n == false then
      unknown = true
    elseif (n or 0) > 0 then
      ran[#ran + 1] = s.label
    else
      none[#none + 1] = s.label
    end
  end
  if unknown or #none == 0 then
    return "No data check failed: where a run has both per-request data and the harness's summary, every "
      .. "figure compared is within 1 %."
  end
  local no_data = "both per-request data and a summary of the harness's own to compare (each figure comes from "
    .. "one source only)"
  if #ran == 0 then
    return ("No data check could run: neither run has %s."):format(no_data)
  end
  return ("No data check failed for %s: its per-request data and the harness's summary agree within 1 %% on "
    .. "every figure compared. None could run for %s: it does not have %s."):format(ran[1], none[1], no_data)
end

-- The comparison model. opts: a, b (sides), workspace, generated (epoch, default now),
-- slo (llmd.decision.parse_slo's list), min_effect (%, default 2), significance (saved
-- tests by metric key, for analyze.lua).
-- Where one run's throughput is its answers' pace and the other's the drain-reduced rate
-- (llmd.loadpoints.like_basis), the paced run's figures are read on the other's basis
-- (run.rate_like, which llmd.loadpoints.points reads): set on both runs (nil where not), so
-- that every figure drawn from them, the charts' too, ranks like with like. Returns the
-- sentence that says so (nil where nothing changed).
function M.like_for_like(A, B)
  A.run.rate_like, B.run.rate_like = nil, nil
  local la, lb = lp.like_basis(lp.points(A.run), lp.points(B.run))
  if la then la.other = B.label end
  if lb then lb.other = A.label end
  A.run.rate_like, B.run.rate_like = la, lb
  local X, O = la and A or lb and B, la and B or A
  if not X then return nil end
  local pts, like, at = lp.points(X.run), {}, nil
  for _, p in ipairs(pts) do
    if p.rate_like then
      at = p
      like[#like + 1] = p.rate_like
    end
  end
  if #like == 0 then
    -- (a workspace saved before the paced stages kept their least latency, or a percentile
    -- they do not keep: the figures stay on their two bases, and the report says so)
    X.run.rate_like = nil
    return ("%s's throughput is its answers' pace (from its per-request start and finish times), %s's the "
      .. "drain-reduced rate (completed / (window - least latency), its files holding no per-request times), and "
      .. "%s's saved figures hold no least latency to read it on %s's basis: the two differ by how they are read, by "
      .. "about the spread of the latencies over the send span (for long requests often 10 %% or more): read no "
      .. "throughput order below smaller than that (read the result files again: analyze.lua WORKSPACE "
      .. "--reextract)"):format(
      X.label, O.label, X.label, O.label)
  end
  local b = X.run.rate_like
  local least = b.kind == "percentile" and ("its own e2e %s as %s's files give theirs, the lower bound"):format(
    b.label or ("p%g"):format(b.q), O.label) or "its own least latency, as " .. O.label .. "'s files give theirs"
  local p = at
  return ("%s's throughput figures (max sustained, capacity, Load Curves, Ladder, charts) are read on %s's basis, "
    .. "the drain-reduced rate, completed / (window - least latency), from %s's own successes, window and %s: %s's "
    .. "files hold no per-request start times, so the pace of %s's answers (from its per-request times) would "
    .. "compare two readings, not two servers (at %g req/s offered its pace is %.4g req/s, on %s's basis %.4g); "
    .. "whether a load kept up is still judged by %s's pace"):format(X.label, O.label, X.label, least, O.label,
    X.label, p.offered, p.rate_like.pace_rps, O.label, p.rate_like.rps, X.label)
end

-- What a report says of runs made on a simulated cluster (llmdlua's fake one: a run's
-- run_state.json simulated, llmd.cluster's, the nodes that say so): who (the runs or cells,
-- "runs A (x) and B (y)", "2 of the cells (a/r1, b/r1)"), several (whether who is more than
-- one: "their figures", "its figures"), nodes (the nodes' texts, each once) and noun (what the
-- report names: "configuration", "treatments"). One text for compare.lua's and an
-- experiment's reports.
function M.simulated_text(who, several, nodes, noun)
  return ("%s ran on a simulated cluster (llmdlua's fake one, whose benchmarks replay recorded result files: "
    .. "%s): %s figures are those files', not measurements of the %s named here"):format(who,
    table.concat(nodes, "; "), several and "their" or "its", noun)
end

-- What compare.lua's report says of runs made on a simulated cluster (a side's
-- state.simulated), nil when neither was: "runs A (x) and B (y) ran on a simulated cluster
-- (...): their figures are ...".
local function simulated_runs(A, B)
  local who, nodes = {}, {}
  for _, p in ipairs { { "A", A }, { "B", B } } do
    local st = p[2].state or {}
    if type(st.simulated) == "string" then
      who[#who + 1] = ("%s (%s)"):format(p[1], p[2].label)
      if not nodes[st.simulated] then
        nodes[st.simulated] = true
        nodes[#nodes + 1] = st.simulated
      end
    end
  end
  if #who == 0 then return nil end
  return M.simulated_text(("%s %s"):format(#who == 1 and "run" or "runs", table.concat(who, " and ")), #who > 1,
    nodes, #who == 1 and "configuration" or "configurations")
end

function M.build(opts)
  local A, B = opts.a, opts.b
  A.run.label, B.run.label = A.label, B.label
  local rate_like = M.like_for_like(A, B)
  -- a comparison compare.lua --plan made (its workspace holds the plan): where a hint says how
  -- to give a run's accelerator count, the plan's way, runs.X.info (gpus_where)
  local plan_gpus = type(opts.workspace) == "string"
    and require("lfs").attributes(opts.workspace .. "/plan.yaml", "mode") == "file" or nil
  A.plan_side, B.plan_side = plan_gpus and "a" or nil, plan_gpus and "b" or nil
  local config = config_rows(A, B)
  -- (the legend of "(read from the results)" only where a cell says it: a reader looked for a
  -- mark the table did not have)
  local config_read = false
  for _, r in ipairs(config) do
    for _, v in ipairs { r.a, r.b } do
      if tostring(v):find("(read from the results)", 1, true) then config_read = true end
    end
  end
  local model = {
    generated = T.helpers.date(opts.generated or os.time()),
    workspace = opts.workspace,
    plan_gpus = plan_gpus,
    a = { label = A.label, status = A.run.status, reasons = A.run.reasons, harness = harness_name(A.run),
      warnings = A.run.warnings, checks = A.run.checks or {}, partial = A.run.partial or false },
    b = { label = B.label, status = B.run.status, reasons = B.run.reasons, harness = harness_name(B.run),
      warnings = B.run.warnings, checks = B.run.checks or {}, partial = B.run.partial or false },
    config = config, config_read = config_read,
    test = M.TEST,
    slo = opts.slo or {},
    min_effect = opts.min_effect or decision.MIN_EFFECT,
    alpha = decision.ALPHA,
  }
  -- (the SLOs given; where none is an error-rate SLO, the default failure limit the capacity
  -- is read within too, said once here and "by default" beside every capacity)
  local default_note = decision.default_limit_note(model.slo)
  -- (where it came from, where the runs' records or info files gave it: comparison.slo_source)
  model.slo_source = opts.slo_source
  model.slo_text = decision.slo_phrase(model.slo) .. (opts.slo_source and (" (" .. opts.slo_source .. ")") or "")
    .. (default_note and (". " .. default_note) or "")
  model.checks_note = checks_note(A, B)
  model.rate_like = rate_like
  -- the result files --tolerant left out, each with why (the banner at the top says them:
  -- a run missing a stage must not read as complete above the Data checks)
  for _, x in ipairs { { A, model.a }, { B, model.b } } do
    x[2].left_out = {}
    for _, w in ipairs(x[1].run.warnings or {}) do
      local what = tostring(w):match("^left out %(%-%-tolerant%): (.*)$")
      if what then x[2].left_out[#x[2].left_out + 1] = what end
    end
  end
  model.slo_checks = slo_unit_checks(model.slo, A, B, opts.slo_where)
  model.slo_label = #model.slo == 1 and "SLO" or "SLOs" -- "SLO: TTFT p90 ≤ 200.0 ms."
  model.capacity_definition = decision.CAPACITY_DEFINITION -- what "capacity at SLO" means, every kind
  model.throughput_definition = lp.THROUGHPUT_DEFINITION -- the figure max sustained and capacity rank
  local pa, pb = lp.points(A.run), lp.points(B.run)
  local ga, gb = gpus_of(A), gpus_of(B)
  for _, s in ipairs { { pa, ga }, { pb, gb } } do
    for _, p in ipairs(s[1]) do
      if s[2] and p.output_tps then p.output_tps_per_gpu = p.output_tps / s[2] end
      if #model.slo > 0 then
        -- (and which SLOs it fails, or the one unknown: the Load Curves' SLO column, newuser48 F6)
        local ok, which = lp.meets(p, lp.capacity_slo(model.slo))
        p.meets_slo = ok
        if ok == false then p.slo_failing = json.array(which) elseif ok == nil then p.slo_unknown = which end
      end
    end
  end
  model.workload_match = decision.workload_match(A, B, pa, pb)
  model.saturation = { a = lp.saturation(pa, { slo = model.slo }), b = lp.saturation(pb, { slo = model.slo }) }
  -- a run whose load points sent different requests (two workloads in one folder): no
  -- capacity read across them
  local function capacity_of(side, points, slo)
    slo = slo or model.slo
    local mixed = #slo > 0 and decision.mixed_requests_reason(side.run, side.label)
    if mixed then return { kind = "unknown", reason = mixed } end
    return lp.capacity(points, slo)
  end
  model.capacity = { a = capacity_of(A, pa), b = capacity_of(B, pb) }
  model.mixed_requests = {}
  for _, s in ipairs { A, B } do
    if decision.mixed_requests_reason(s.run) then model.mixed_requests[#model.mixed_requests + 1] = s.label end
  end
  -- nor a max sustained throughput: where the achieved rate fell behind, and the most it
  -- reached, would be read across the two workloads (saturation.x.max_sustained_na: why it
  -- is N/A; the saturation's point facts stay, for the Load Ladder's marks)
  for _, s in ipairs { { A, model.saturation.a }, { B, model.saturation.b } } do
    s[2].max_sustained_na = decision.mixed_sustained_reason(s[1].run, s[1].label)
  end
  local ca, cb = model.capacity.a, model.capacity.b
  -- the range the repeats allow each capacity (none without repeats at every load point)
  -- (one function, so that a capacity read again at other limits, decision.capacity_token_check,
  -- is built as these are: c the capacity, points its run's, slo the limits)
  local function fill_capacity(c, points, slo)
    local s = { c, points }
    if #slo > 0 then
      local iv, why = lp.capacity_interval(s[2], slo, s[1])
      if iv then
        -- where the capacity on each end of the intervals first fails (what the summary's
        -- "at any load" and "even at its lowest load" rest on)
        s[1].interval = { lo = iv.lo, hi = iv.hi, top = iv.top, bottom = iv.bottom, text = interval_text(iv),
          upper_ends = lp.interval_end(iv.low), lower_ends = lp.interval_end(iv.high),
          -- the same range in output tok/s, for the chart's tok/s axis
          lo_tps = iv.lo_tps, hi_tps = iv.hi_tps,
          -- the loads a sign test of their repeats settled (lp.repeats_ends; nil: none)
          sign = iv.sign and json.array(iv.sign) or nil,
          -- each load's side of the SLOs on both ends (what leaves a same-load order open)
          ends = iv.ends and json.array(iv.ends) or nil }
      else
        s[1].interval_why = why
        -- one measured percentile per load: the capacity the SLO metrics' uncertainty
        -- leaves room for (lp.capacity_noise), what orders two capacities
        local nz = lp.capacity_noise(s[2], slo, s[1])
        if nz and nz.unknown then
          s[1].noise_unknown = nz.unknown
          -- (what no small latency difference can move: decision.capacity_evidence's band rule)
          s[1].noise_band = nz.band
        elseif nz then
          s[1].noise = noise_of(nz, lp.capacity_noise(s[2], slo, s[1], { open_narrow = true }))
        end
      end
      -- the loads its evidence leaves unclear, and what would settle each (the Verdict's advice)
      s[1].settle = settle_of(lp.unclear_loads(s[2], slo, s[1].noise and s[1].noise.unclear,
        lp.saturation(s[2], { slo = slo })))
    end
    -- the figure's and the ceiling's rate noise, read where its span starts now that its
    -- repeats' range or its intervals' noise is known (lp.capacity_rate_noise)
    s[1].rate_noise = lp.capacity_rate_noise(s[2], s[1])
  end
  for _, s in ipairs { { ca, pa }, { cb, pb } } do fill_capacity(s[1], s[2], model.slo) end
  -- runs whose workloads differ in what is measured (token lengths beyond the workload
  -- match's tolerance, model, a stated workload) are different workloads: their
  -- capacities, throughputs and latencies are not compared
  model.workload_differs = json.array(decision.measure_difference_texts(model.workload_match))
  -- a run whose health check failed (a traceback in its logs, ...) is never ordered
  local runs = { { label = A.label, status = A.run.status, reasons = A.run.reasons },
    { label = B.label, status = B.run.status, reasons = B.run.reasons } }
  model.broken = decision.broken_texts(runs)
  -- an error-rate SLO that a run's repeats disagree on beyond chance orders nothing
  local error_dispersion = { a = decision.error_slo_dispersion(A.run, pa, model.slo),
    b = decision.error_slo_dispersion(B.run, pb, model.slo) }
  -- requests whose token lengths differ beyond their noise inside the workload match's tolerance
  -- (decision.token_gap): an order of the capacities those lengths can explain names no run
  -- (decision.capacity_token_check), each side read again at the limits its tokens could move
  -- (wherever the lengths are within the workload match's tolerance, whatever else differs: a
  -- capacity and a max sustained throughput are read across ladders that differ, and one load
  -- more in B's ladder read "B higher" by its 4 % shorter outputs alone, token54; lengths beyond
  -- the tolerance make the capacities "not comparable" before any order)
  local token_gap = #decision.token_differences(A.run.overall, B.run.overall) == 0
    and next(decision.token_gap(A.run.overall, B.run.overall)) and decision.token_gap(A.run.overall, B.run.overall)
    or nil
  model.token_gap = token_gap
  local function recompute(side, slo2, gpus)
    local S, pts = side == "a" and A or B, side == "a" and pa or pb
    local c = capacity_of(S, pts, slo2)
    fill_capacity(c, pts, slo2)
    return gpus and capacity_per(c, gpus) or c
  end
  model.capacity.evidence = capacity_evidence(ca, cb, model.min_effect, { workload_differs = model.workload_differs,
    runs = runs, error_dispersion = error_dispersion, token_gap = token_gap, slo = model.slo, recompute = recompute })
  -- (the tok/s row's own order where the req/s one is the tokens': tps_token_order; fixa53)
  if model.capacity.evidence.token_explained then
    model.capacity.tps_token = tps_token_order(model, ca, cb, token_gap, recompute) or false
  end
  -- (ranges that overlap: the tok/s row's gap held to the tokens, token54)
  if model.capacity.evidence.verdict == "no clear difference" and token_gap then
    model.capacity.tps_held = M.tps_token_held(model, ca, cb, token_gap, recompute)
  end
  narrow_check(model.capacity.evidence, ca, cb, model.min_effect, { workload_differs = model.workload_differs,
    runs = runs, error_dispersion = error_dispersion })
  -- the difference (B - A) the measured brackets allow, in req/s and % of A
  -- (none where both are below their lowest loads: each lies anywhere from 0 up to its
  -- lowest load, and "-5.33 to +5.35 req/s, at least -100.0 %" is no figure of either run)
  model.capacity.gap = not lp.both_below_lowest(ca, cb) and decision.capacity_gap(ca, cb) or nil
  -- the Change as the Headline, Summary and CSV say it ("at least +37.8 %" where the upper
  -- end is unbounded or beyond decision.GAP_PCT_MAX)
  if model.capacity.gap then
    model.capacity.gap.pct_text = decision.gap_pct_text(model.capacity.gap, T.helpers.pct)
    gap_note_json(model.capacity.gap)
  end
  -- "no clear difference" (overlapping ranges from repeats) with the gap they allow, in
  -- comparison.json as in every text (the verdict stays, for what reads it): gap_lo_pct and
  -- gap_hi_pct (B - A, % of A; "+inf" where unbounded) and text
  -- (runs whose requests differ in length within the tolerance, beyond their noise: gap_lo_pct
  -- and gap_hi_pct the gap held to their tokens, decision.capacity_token_gap's, which the text
  -- says beside the measured one, token_held.measured_lo_pct and measured_hi_pct; token54)
  local function overlap_gap(ev, g)
    if ev.verdict ~= "no clear difference" then return end
    local h = ev.token_held
    ev.gap_lo_pct, ev.gap_hi_pct = g and g.lo_pct, g and g.hi_pct
    if h then ev.gap_lo_pct, ev.gap_hi_pct = h.lo_pct, h.hi_pct end
    ev.text = decision.no_clear_difference_text(g, T.helpers.pct, ("%s vs %s"):format(B.label, A.label),
      M.token_held_text(A, B, ev))
  end
  overlap_gap(model.capacity.evidence, model.capacity.gap)
  model.capacity.missing_text = missing_slo_text(model, A, B, pa, pb)
  -- the --slo "No SLO given" suggests: on percentiles both runs' files record (TTFT p95 where
  -- a vLLM benchmark's hold no p90: M.slo_suggestion, treatments.lua's too)
  model.slo_example = M.slo_suggestion({ pa, pb },
    (",%s=50,error_rate_pct=1"):format(recorded_key({ pa, pb }, "tpot_p90_ms")))
  model.capacity.reasons_text = capacity_reasons(model, A, B, model.capacity.missing_text)
  for _, c in ipairs { ca, cb } do c.text = capacity_text(c) end
  -- one change only where both figures are exact (no bracket around either): else the
  -- range in capacity.gap is what the measurements say
  local g = model.capacity.gap
  if ca.kind == "interpolated" and cb.kind == "interpolated" and ca.rps and cb.rps and ca.rps ~= 0
    and g and g.lo_rps == g.hi_rps then
    model.capacity.delta_pct = (cb.rps - ca.rps) / math.abs(ca.rps) * 100
  end
  model.per_gpu = { a = per_gpu(A, ca, model.saturation.a, pa), b = per_gpu(B, cb, model.saturation.b, pb) }
  -- the max sustained gap where one run saturated at its lowest load and the loads order the
  -- two (sustained_low_gap): comparison.json's saturation.gap, as capacity.gap
  model.saturation.gap = sustained_low_gap(model.saturation.a, model.saturation.b, 1, 1, model.min_effect)
  if #model.slo > 0 and ga and gb then
    -- each capacity per its own accelerators, ordered by the same rule as the totals
    local pa_, pb_ = capacity_per(ca, ga), capacity_per(cb, gb)
    model.capacity.per_gpu = { a = pa_, b = pb_, gap = not lp.both_below_lowest(pa_, pb_)
      and decision.capacity_gap(pa_, pb_) or nil,
      evidence = capacity_evidence(pa_, pb_, model.min_effect, { workload_differs = model.workload_differs,
        broken = model.broken, error_dispersion = error_dispersion, token_gap = token_gap, slo = model.slo,
        recompute = function(side, slo2) return recompute(side, slo2, side == "a" and ga or gb) end }) }
    local pg = model.capacity.per_gpu
    narrow_check(pg.evidence, pa_, pb_, model.min_effect, { workload_differs = model.workload_differs,
      broken = model.broken, error_dispersion = error_dispersion })
    if pg.gap then
      pg.gap.pct_text = decision.gap_pct_text(pg.gap, T.helpers.pct)
      gap_note_json(pg.gap)
    end
    overlap_gap(pg.evidence, pg.gap)
  end
  -- accelerator counts that differ, or are known for one run only: the totals compare
  -- different (or unknown) amounts of hardware, said first (banner, Summary)
  if ga ~= gb and (ga or gb) then
    local function n(x) return x and T.helpers.count(x, "GPU") or "an unknown number of GPUs" end
    -- both counts known: the latencies compared at one total load put a different load on
    -- each GPU, said beside every latency verdict (summary: gpu_latency_caveat)
    if ga and gb then model.gpu_counts = { a = ga, b = gb } end
    model.gpus_differ = ga and gb and ("%s ran on %s and %s on %s, so the totals compare different amounts of "
      .. "hardware and %s is compared per GPU first"):format(A.label, n(ga), B.label, n(gb),
      #model.slo > 0 and "capacity" or "max sustained throughput")
      or ("%s ran on %s and %s on %s (%s), so the totals may compare different "
      .. "amounts of hardware, and nothing can be compared per GPU"):format(A.label, n(ga), B.label, n(gb),
      -- (a count saved as one replica's, llmd.comparison.old_gpus: read the results again)
      (ga and B or A).run.gpus_stale and ("%s: %s"):format((ga and B or A).label, (ga and B or A).run.gpus_stale)
      or ("give %s"):format(gpus_where(ga and B or A, (ga and B.label or A.label) .. "'s")))
  end
  local any_goodput = false
  for _, p in ipairs(pa) do if p.goodput_rps then any_goodput = true end end
  for _, p in ipairs(pb) do if p.goodput_rps then any_goodput = true end end
  model.load_points = { a = curve_of(pa), b = curve_of(pb) }
  model.goodput = { available = any_goodput, thresholds = decision.request_thresholds(model.slo),
    reason = not any_goodput and (#model.slo == 0 and "no SLO given"
      or not decision.request_thresholds(model.slo) and "the SLOs name no per-request latency (TTFT, TPOT, E2E)"
      or (function()
        -- (the requests' own reason where a run's were counted but could not be judged)
        for _, p in ipairs(pa) do if p.goodput_why then return "run A: " .. p.goodput_why end end
        for _, p in ipairs(pb) do if p.goodput_why then return "run B: " .. p.goodput_why end end
      end)() or "no per-request data counted against the SLOs in either run") or nil }
  local _, wa = gpus_of(A)
  local _, wb = gpus_of(B)
  -- a run without load points: one line saying why instead of an empty table
  local function empty_why(points, run) return #points == 0 and (lp.no_points_why(run) or "no load point") or "" end
  local lat, ttft_pct = curve_columns(pa, pb, model.slo)
  model.curve_columns = lat
  model.curves = { { label = A.label, rows = curve_rows(pa, ga, lat, ttft_pct, model.slo),
    empty_why = empty_why(pa, A.run),
    na_note = curve_na_note(pa, ga, wa, any_goodput, lat, model.goodput.reason),
    interactivity_note = interactivity_note(pa) },
    { label = B.label, rows = curve_rows(pb, gb, lat, ttft_pct, model.slo), empty_why = empty_why(pb, B.run),
    na_note = curve_na_note(pb, gb, wb, any_goodput, lat, model.goodput.reason),
      interactivity_note = interactivity_note(pb) } }
  -- inference-perf's ITL: a note beside every ITL figure of such a run
  local ipa, ipb = itl_per_token_times(A.run), itl_per_token_times(B.run)
  local ip_runs = {}
  if ipa then ip_runs[#ip_runs + 1] = A.label end
  if ipb then ip_runs[#ip_runs + 1] = B.label end
  model.itl_note = itl_note(ip_runs, (ipa or ipb) and M.itl_basis(A.run) ~= M.itl_basis(B.run))
  local short = "ITL p90 here is from inference-perf's per-token timestamps, where the tokens of one streamed chunk "
    .. "share its arrival time (see the ITL note under Performance Results)"
  model.curves[1].itl_note = ipa and short or ""
  model.curves[2].itl_note = ipb and short or ""
  local ctx = { A = A, B = B, pa = pa, pb = pb, memo = {}, saved = opts.significance, match = model.workload_match,
    min_effect = model.min_effect, broken = model.broken, saturation = model.saturation }
  ctx.follows_sends = follows_sends_text(A, B, pa, pb, model.saturation)
  -- the requests' token lengths where they differ beyond their noise, within the workload
  -- match's tolerance (decision.token_gap): the rows they move name no winner they explain
  -- (model.token_gap, the orders' (capacity, max sustained): wherever the lengths are within the
  -- tolerance; the rows' only where the ladders match, else they are not like for like anyway)
  ctx.token_gap = model.workload_match.like_for_like ~= false and model.token_gap or nil
  -- (the loads where a run was overloaded that its whole-run figures pool: perf_row)
  -- (not where the ladders differ: those rows are not like for like whatever the loads)
  ctx.pooled_over = not ctx.follows_sends and model.workload_match.like_for_like ~= false
    and decision.pooled_overloaded(pa, pb, model.saturation, { a = A.run, b = B.run }) or nil
  model.pooled_over = ctx.pooled_over
  local rows, notes = {}, {}
  local any_sig = false
  for _, key in ipairs(M.PERF_KEYS) do
    local r = perf_row(key, ctx)
    if not (M.OPTIONAL_KEYS[key] and r.a == nil and r.b == nil) then rows[#rows + 1] = r end
  end
  model.ladder = ladder_section(A, B, pa, pb, model.saturation, model.slo)
  -- the summary's test of the limiting metric at the runs' common load (matched_load)
  local broken = #model.broken > 0
  local mp = #model.slo > 0 and #model.workload_differs == 0 and not broken
    and matched_point(model, A, B, pa, pb, opts.significance and opts.significance._matched_point) or nil
  if #model.slo == 0 and #model.workload_differs == 0 and not broken then
    local nl, at, why = no_slo_latency(A, B, pa, pb, model.saturation)
    model.no_slo_latency = nl or (why and { unknown = why }) or nil
    if nl and nl.sustained then nl.untested_why = no_slo_untested_why(nl, at, rows, A, B, pa, pb) end
    if nl and not nl.sustained then
      nl.unsustained = no_slo_unsustained(nl, A, B, model.saturation.a, model.saturation.b, pa, pb)
    end
  end
  if broken and #model.slo > 0 then
    -- no latency at a matched load is compared against a broken run either
    model.matched_point = { reason = ("not compared: %s; a broken run's figures say nothing of its configuration")
      :format(table.concat(model.broken, "; ")) }
  end
  -- One family per comparison: every test a verdict of this comparison rests on (the
  -- Performance Results rows that were tested, one test each however many rows read it,
  -- and the summary's test at the matched load) is Holm-adjusted with the others.
  local tests = {}
  for _, r in ipairs(rows) do
    if in_family(r) then tests[#tests + 1] = { id = decision.test_id(r.key, r.decide.test), p = r.decide.test.p } end
  end
  if mp and decision.can_decide(mp.test) then
    -- its identity from what it tests, never a saved id (an older report's may double-count)
    local shared
    mp.test.id, shared = matched_test_id(mp, rows, pa, pb)
    mp.shared_with_rows = shared or nil
    tests[#tests + 1] = { id = mp.test.id, p = mp.test.p }
  end
  -- (before finish_row: the rows' comparability)
  model.harness_only, model.harness_note = false, false
  for _, d in ipairs(model.workload_match.differences) do
    if d.field == "harness" then model.harness_note = harness_note(rows, A, B) end
  end
  if model.harness_note then
    model.harness_only = true
    for _, d in ipairs(model.workload_match.differences) do
      if d.field ~= "harness" then model.harness_only = false end
    end
  end
  model.workload_title = workload_title(model.workload_match.differences, model.harness_note)
  -- a run whose files disagree on its request count: a ladder that differs may be a run cut
  -- short, said in the banner as what it may be (M.cut_short_text)
  if model.workload_title then
    local cut = {}
    for _, x in ipairs { A, B } do cut[#cut + 1] = M.cut_short_text(x.label, x.run or {}) end
    if #cut > 0 then
      model.workload_title = ("%s, or %s."):format(model.workload_title:gsub("%.$", ""), table.concat(cut, "; "))
    end
  end
  -- one run's workload or model stated, the other's unknown (results imported with no info
  -- file beside a run the plan deployed): that they measured the same is not known, so no
  -- banner says "the same workload", and the Verdict says it is not verified
  local one_sided
  model.like_unverified, one_sided = like_unverified(A, B)
  model.same_config = same_plan_config(opts.workspace)
  -- (a run and its re-run, compared folder to folder: the same recorded configuration)
  -- (two clusters, as the runs' records say - a re-run on another kube context -: their
  -- difference is no run-to-run variation, and it is said; fixb55 #1)
  local ws_ = require "llmd.workspace"
  local function cl(st)
    local c = type(st) == "table" and st.cluster
    if type(c) ~= "table" then return nil end
    return { context = type(c.context) == "string" and c.context or nil,
      server = type(c.server) == "string" and c.server or nil, from = tostring(c.from or "run_state.json") }
  end
  model.different_cluster = ws_.cluster_difference(A.label, cl(A.state), B.label, cl(B.state))
  if not model.same_config and not model.different_cluster and M.same_recorded_config(A.state, B.state) then
    model.same_config_rerun = true
    model.same_config = ("%s and %s recorded the same configuration (the same deploy and benchmark commands, "
      .. "stack and benchmark: one is a re-run of the other), so this is an A/A check: a difference is run-to-run "
      .. "variation, not a configuration's"):format(A.label, B.label)
  end
  if one_sided and model.workload_title and model.workload_title:match("^The same workload") then
    model.workload_title = model.workload_title:gsub("^The same workload %(the same requests%)", "The same workload")
      :gsub("^The same workload", ("Not verified to be the same workload (%s)"):format(one_sided), 1)
  end
  local fam = decision.family(tests)
  if mp and decision.can_decide(mp.test) then mp.p_adjusted, mp.family_size = fam.adjusted[mp.test.id], fam.size end
  model.family = { method = "holm", alpha = decision.ALPHA, size = fam.size, tests = {} }
  for _, id in ipairs(fam.ids) do
    model.family.tests[#model.family.tests + 1] = { id = id, p_value = fam.raw[id], p_adjusted = fam.adjusted[id] }
  end
  local sends_rows = {} -- the throughput rows that follow the sends: one note for them all
  local held_per_token = false
  for _, r in ipairs(rows) do
    finish_row(r, fam, A, B)
    held_per_token = held_per_token or (r.token_explained and decision.per_token(r.key)) or false
  end
  -- a whole request's row held by the lengths points at the per-token rows
  -- (decision.PER_TOKEN_ADVICE) only where they are not held themselves (on a rate ladder a
  -- lighter workload is a lighter load for them too, decision.token_effect; fixh52)
  if held_per_token then
    for _, r in ipairs(rows) do
      if r.token_explained and type(r.note) == "string" then
        local i = r.note:find(decision.PER_TOKEN_ADVICE, 1, true)
        if i then r.note = r.note:sub(1, i - 1) .. r.note:sub(i + #decision.PER_TOKEN_ADVICE) end
      end
    end
  end
  for _, r in ipairs(rows) do
    if r.test then any_sig = true end
    if r.follows_sends then
      sends_rows[#sends_rows + 1] = #sends_rows == 0 and r.label or lower_label(r.label)
      if #sends_rows == 1 then notes[#notes + 1] = { sends = true } end
    elseif r.note and r.verdict == "not comparable" and r.evidence ~= "not like for like" and r.a ~= nil
      and r.b ~= nil and not r.broken and not r.pools_overloaded then
      notes[#notes + 1] = r.label .. ": " .. r.note
    end
  end
  -- (said in the Summary too: model.follows_sends)
  -- (both kept up, or one run's throughput only its sends: one_follows_sends)
  local sends_why = ctx.follows_sends or ctx.sends_why
  model.follows_sends = #sends_rows > 0 and { rows = sends_rows, text = sends_why } or nil
  for i, n in ipairs(notes) do
    if type(n) == "table" then
      notes[i] = ("%s: %s; no winner"):format(table.concat(sends_rows, " and "), sends_why)
    end
  end
  if broken then
    -- one note for every row a broken run leaves without a verdict
    table.insert(notes, 1, ("Every row: %s; a broken run's figures say nothing of its configuration, so they are "
      .. "shown, but no verdict or test is read from them."):format(table.concat(model.broken, "; ")))
  end
  model.throughput_note = nil
  -- what reads the pooled throughput: the delta, and the verdict and the test only where a
  -- row has them (a row "not comparable", or of a broken run, has neither: the kubecon pair's
  -- note said "the verdict and the test read" beside two such rows, fixh49)
  local function reads_text(list)
    local none, n = {}, 0
    for _, x in ipairs(list) do
      if x.a_harness or x.b_harness then
        n = n + 1
        if x.verdict == "not comparable" or x.broken then none[#none + 1] = x.label end
      end
    end
    if #none == 0 then return "which the delta, the verdict and the test read" end
    if #none == n then return "which the delta reads (not comparable here: no verdict or test)" end
    return ("which the delta, the verdict and the test read (%s: the delta only, not comparable)"):format(
      table.concat(none, " and "))
  end
  for _, r in ipairs(rows) do
    if r.a_harness or r.b_harness then
      -- (once, for both throughput rows)
      -- (a run of several load points: theirs pooled, each point's requests over the time its
      -- throughput gives them, run_figure)
      local several = #pa > 1 or #pb > 1
      model.throughput_note = (several and "Request and output token throughput: the throughput as the load ladder "
        .. "gives it (How these figures are defined: the answers' pace, or the drain-reduced rate), over several "
        .. "load points pooled as their completed requests over the time that throughput gives each point "
        .. "(completed / throughput, summed), "
        or "Request and output token throughput of a run of one load point: its throughput as the "
        .. "load ladder gives it (How these figures are defined: the answers' pace, or the drain-reduced rate), ")
        .. (r.follows_sends and "which the delta reads" or reads_text(rows))
        .. "; \"harness\" beside it is the harness's own completed / window, which the last answers' latency lowers."
      break
    end
  end
  -- each row's delta_unit (M.delta_unit), in comparison.json as in comparison.csv's column
  for _, r in ipairs(rows) do r.delta_unit = M.delta_unit(r.unit) end
  model.perf = rows
  model.perf_notes = notes
  model.any_identical = false
  model.any_cannot_decide = false
  model.any_too_few = false
  model.any_row_effect = false -- a tested row with its effect and interval (the key's rule)
  model.min_error_pp = decision.MIN_ERROR_PP
  -- (the fall, B against A, that reaches the practical threshold: decision.fall_threshold)
  model.min_effect_fall = decision.fall_threshold(model.min_effect or decision.MIN_EFFECT)
  for _, r in ipairs(rows) do
    if r.sig and r.sig.row_effect and r.p_value then model.any_row_effect = true end
    if r.identical then model.any_identical = true end
    if r.cannot_decide then model.any_cannot_decide = true end
    if r.too_few then model.any_too_few = true end
  end
  M.shared_test_evidence(rows)
  model.evidence_notes = M.evidence_notes(rows)
  model.significance_used = any_sig
  local ea, eb = A.run.overall.values.error_rate_pct, B.run.overall.values.error_rate_pct
  model.error_note = ((ea and ea > 0) or (eb and eb > 0)) and ("Latency rows count successful requests only; "
    .. "error rate %s: %s, %s: %s."):format(A.label, metrics.format("error_rate_pct", ea), B.label,
      metrics.format("error_rate_pct", eb)) or nil
  model.errors = { a = A.run.errors, b = B.run.errors }
  model.headline = headline(model)
  headline_evidence(model, A, B)
  model.kv = kv_section(A, B, model.min_effect, broken and ("a broken run: " .. table.concat(model.broken, "; "))
    or workloads_differ(model) and ("the workloads differ ("
    .. workloads_differ(model) .. ")") or model.workload_match.like_for_like == false
    and "whole-run counters over different loads, not like for like" or nil,
    -- (the gist, for the rows' Verdict cells)
    broken and "a broken run" or workloads_differ(model) and "the workloads differ"
    or model.workload_match.like_for_like == false and "counters over different loads" or nil)
  -- the same files (or results) in both folders (compare.lua finds it): known before the
  -- Summary, which then gives no advice on what to measure (nothing tells a run from itself)
  model.identical = opts.identical or false
  model.simulated = false -- (simulated_runs, below)
  model.summary = summary(model, A, B)
  -- a run cut short (its harness's end-of-run summary missing): its figures are those of the
  -- stages it finished, never a complete run's; said before anything else
  for _, x in ipairs { "b", "a" } do
    if model[x].partial then
      model.summary = ("Warning: run %s (%s) is %s. %s"):format(x:upper(), model[x].label, model[x].partial,
        model.summary)
    end
  end
  -- the same files in both folders: said first
  if opts.identical then model.summary = ("Warning: %s. %s"):format(opts.identical, model.summary) end
  -- results that do not match the benchmark config their run sent: said first too, and no
  -- run named higher from them (the Verdict, comparison.csv's order column)
  model.config_mismatch = M.config_mismatch(A, B)
  if model.config_mismatch then
    model.summary = ("Warning: %s (see Data checks), so they are not known to be that configuration's run: no run is "
      .. "named higher from them. %s"):format(model.config_mismatch, model.summary)
  end
  model.verdict = verdict_of(model, A, B)
  model.summary = with_sustained_order(model)
  -- runs made on a simulated cluster (llmdlua's fake one: run_state.json's simulated, from
  -- its nodes' label): their figures are recorded result files replayed, which say nothing of
  -- the configurations the report names. Said first, in the Verdict, the Summary and a banner
  -- (model.simulated), so that a report passed on is never read as a measurement
  local sim = simulated_runs(A, B)
  if sim then
    model.simulated = sim
    model.verdict.simulated = sim
    model.verdict.text = ("Simulated cluster, not a measurement (recorded results replayed; see the warning "
      .. "below): %s"):format(model.verdict.text)
    model.summary = ("Warning: %s. %s"):format(sim, model.summary)
  end
  -- the layout of the report's top: short Headline cells with each row's full text in a
  -- note, and a short Summary (llmd.report_layout); nothing above is changed
  require("llmd.report_layout").apply(model)
  return model
end

-- The model's lists (path from the top, "[]" for any index): written as JSON arrays when
-- empty too ([], never {}, which a reader takes for an object).
M.LIST_PATHS = {}
for _, p in ipairs { "slo", "comparison_slo",
  "slo_checks", "mixed_requests", "perf", "perf_notes", "evidence_notes", "headline",
  "headline_notes", "headline_notes[].parts", "summary_lines",
  "config",
  "workload_differs",
  "workload_match.differences", "load_points.a", "load_points.b", "load_points.a[].stages",
  "load_points.b[].stages", "errors.a", "errors.b", "curves", "curves[].rows", "family.tests", "ladder.rows",
  "ladder.rows[].latency", "ladder.latency_columns", "ladder.latency_columns[].has", "charts.list",
  "curve_columns", "curves[].rows[].latency", "charts.list[].notes", "a.warnings", "b.warnings", "a.reasons",
  "b.reasons", "a.checks", "b.checks", "a.left_out", "b.left_out",
  "kv.rows", "kv.efficiency", "kv.missing", "capacity.evidence.differences", "broken",
  "no_slo_latency.rows", "no_slo_latency.missing", "summary_wins", "summary_wins[].items", "capacity.a.noise.unclear",
  "capacity.b.noise.unclear", "capacity.per_gpu.a.noise.unclear", "capacity.per_gpu.b.noise.unclear" } do
  M.LIST_PATHS[p] = true
end

-- Plain data for comparison.json (no userdata, no infinities).
-- The unit of a row's delta (and delta_lo, delta_hi) whose figures are in unit: that unit,
-- but percentage points ("pp") where the figures are a share in % (error rate, KV hit rate,
-- cached share), whose change_pct is the relative change in % of A (audit49 F7: "%" over a
-- delta of 23.85 pp beside a change_pct of 106.9 %); the report's Delta says "pp" too.
-- comparison.csv's delta_unit column and comparison.json's perf[].delta_unit (fixj50: the
-- JSON had none, so a script reading it took a delta in points for one in %).
function M.delta_unit(unit) return unit == "%" and "pp" or unit end

function M.plain(model)
  local function clean(v, path)
    if type(v) == "number" then
      if v == math.huge then return "+inf" elseif v == -math.huge then return "-inf" end
      return v
    end
    if type(v) ~= "table" then return v end
    local out = {}
    local list = #v > 0 or json.is_array(v) or M.LIST_PATHS[path]
    for k, x in pairs(v) do
      if type(x) ~= "userdata" and type(x) ~= "function" then
        local sub = list and path .. "[]" or (path == "" and tostring(k) or path .. "." .. tostring(k))
        out[k] = clean(x, sub)
      end
    end
    if list then return json.array(out) end
    return out
  end
  return clean(model, "")
end

-- What a figure of the curve rows is, in comparison.csv's a_bound and b_bound columns: the
-- number in a or b alone does not say whether it is the figure or the floor under it.
M.CSV_BOUNDS = {
  estimate = "a capacity interpolated between the last load that met every SLO and the first that failed one",
  ["lower bound"] = "≥: the true figure is at or above it (never violated, never saturated, ...)",
  measured = "a load point's own achieved rate (a max sustained throughput, a ceiling, a whole-run figure)",
}
local function capacity_bound(c)
  if not c then return nil end
  if is_bound(c) then return "lower bound" end
  if c.kind == "interpolated" then return "estimate" end
  return nil -- below the lowest load (a empty, "<" in the note), or unknown
end
-- What a capacity row's evidence says of the order, in comparison.csv's order column (its
-- verdict column keeps the evidence's kind for scripts, and "no clear difference" or "not
-- shown to differ" there would read as sameness where the ranges leave either order open):
-- "a_higher" | "b_higher" (shown by the repeats, or untested but the measured loads order
-- them), "either_may_be_higher" (the spans or ranges overlap, or two lower bounds),
-- "a_at_least_as_high" | "b_at_least_as_high" (the loads put
-- that run at least as high, by a least gap below the threshold and a largest beyond it or
-- open: no winner, and no sameness either; the Verdict's kind "at least as high"),
-- "about_the_same" (the gap within the practical threshold at both ends: figures within it
-- whose spans keep it within, or an order of the loads by less than it both ways, which was
-- "not_shown_to_differ" before fixb53: one code per meaning), "not_compared" (a broken run,
-- different workloads, one run's results in both folders, results that do not match their
-- benchmark config), "unknown" (a capacity
-- is unknown, or both below their lowest loads).
M.CSV_ORDERS = { "a_higher", "b_higher", "either_may_be_higher", "a_at_least_as_high", "b_at_least_as_high",
  "about_the_same", "not_compared", "unknown" }
local function capacity_order(model, ev, ca, cb)
  local v = ev and ev.verdict
  if not v or v == "broken" or v == "not comparable" then return v and "not_compared" or "unknown" end
  local hi = ev.winner or (v == "untested" and ev.ordered and ev.higher) or nil
  if hi then return order_withheld(model) and "not_compared" or (hi .. "_higher") end
  if v == "about the same" then return "about_the_same" end
  if v == "not shown to differ" and ev.least_below_threshold and ev.margin_higher then
    return order_withheld(model) and "not_compared" or (ev.margin_higher .. "_at_least_as_high")
  end
  if v == "not shown to differ" or v == "no clear difference" or (v == "untested" and ev.order_open) then
    return "either_may_be_higher"
  end
  if v == "unknown" and is_bound(ca) and is_bound(cb) then return "either_may_be_higher" end
  return "unknown"
end

local function sustained_bound(s)
  if s.max_sustained_na or not s.max_sustained_rps then return nil end
  return s.none and "lower bound" or "measured"
end

-- The headline's capacity and max sustained throughput (and per GPU, with output tok/s) as
-- rows for comparison.csv: {key, a, b, delta, pct, verdict, note, unit (nil: req/s)}. A
-- figure that is a lower bound ("≥") or unknown gets no delta; the note quotes the report's
-- text for both runs.
function M.curve_rows(model)
  local out = {}
  -- bounds: {a, b}, what each figure is (M.CSV_BOUNDS), nil where there is none
  local function row(key, a, b, ta, tb, exact, verdict, bounds)
    bounds = bounds or {}
    local r = { key = key, a = a, b = b, verdict = verdict,
      a_bound = a ~= nil and bounds[1] or nil, b_bound = b ~= nil and bounds[2] or nil,
      note = ("%s: %s; %s: %s"):format(model.a.label, ta, model.b.label, tb) }
    if exact and a ~= nil and b ~= nil then
      r.delta = b - a
      r.pct = a ~= 0 and (b - a) / math.abs(a) * 100 or nil
    end
    out[#out + 1] = r
  end
  -- a capacity gap the measured loads bound on both sides (capacity.gap: the Headline's Delta
  -- and Change, "+6.32 to +79.45 req/s", "+5.6 % to +99.3 %"): its ends in numbers, delta_lo
  -- and delta_hi (B - A, the row's unit) and effect_lo and effect_hi (% of A, change_pct's
  -- scale), as no single delta is known (newuser48 F5: the CSV had them only in the note); an
  -- end without a bound (an open gap, "no upper end") stays empty, as the Change says it
  -- The note says why delta and change_pct are empty beside those ends (a midpoint would be a
  -- point estimate the Verdict does not make, and a spreadsheet sorts by it): GAP_NO_POINT.
  local function gap_columns(r, g)
    local function finite(x) return type(x) == "number" and x == x and x ~= math.huge and x ~= -math.huge end
    if not (g and finite(g.lo_rps) and finite(g.hi_rps)) then return end
    r.delta_lo, r.delta_hi = g.lo_rps, g.hi_rps
    if finite(g.lo_pct) and finite(g.hi_pct) then r.effect_lo, r.effect_hi = g.lo_pct, g.hi_pct end
    if r.delta == nil then
      r.note = r.note .. "; " .. GAP_NO_POINT:format("delta and change_pct are empty",
        r.effect_lo and "delta_lo to delta_hi (effect_lo to effect_hi in % of A)" or "delta_lo to delta_hi")
    end
  end
  local cap = model.capacity
  -- runs whose requests differ: no delta, as the Headline gives none
  local differ = workloads_differ(model) ~= nil
  -- the Headline's evidence at the end of its row's note (the order the measured loads
  -- show, "untested, but the measured loads order them: ..."), so that the CSV says what
  -- the report says; not where the note already holds it
  local hrow = {}
  for _, r in ipairs(model.headline or {}) do hrow[r.key] = r end
  local function with_evidence(key)
    local e, r = hrow[key] and hrow[key].evidence, out[#out]
    if e and e ~= "" and not r.note:find(e, 1, true) then r.note = r.note .. "; evidence: " .. e end
  end
  if #model.slo > 0 and cap then
    local ca, cb = cap.a, cap.b
    local function fig(c) return lp.capacity_has_figure(c) and c.rps or nil end
    local cbounds = { capacity_bound(ca), capacity_bound(cb) }
    -- one exact delta only where both spans are single figures; else the range the measured
    -- brackets allow goes in the note, as the Headline's Delta and Change give it
    local g = cap.gap
    -- (a crashed repeat that leaves the order open: no gap either, as the Headline gives none)
    local broken = cap.evidence and (cap.evidence.verdict == "broken" or cap.evidence.overdispersed)
    local single = g and g.lo_rps == g.hi_rps
    row("capacity_at_slo_rps", fig(ca), fig(cb), capacity_text(ca), capacity_text(cb),
      ca.kind == "interpolated" and cb.kind == "interpolated" and not differ and single and not broken,
      cap.evidence and cap.evidence.verdict or "unknown", cbounds)
    out[#out].order = capacity_order(model, cap.evidence, ca, cb)
    -- "no clear difference" with the gap the ranges allow first, as every text says it
    if cap.evidence and cap.evidence.text then out[#out].note = cap.evidence.text .. "; " .. out[#out].note end
    local rd, rp = capacity_range_cells(g, " req/s", 2)
    if rd and not single and not differ and not broken then
      out[#out].note = out[#out].note .. "; " .. gap_note("B - A from the measured loads", rd, rp, "req/s")
      gap_columns(out[#out], g)
    end
    -- (the "no clear difference" text that opens the note is the evidence's own)
    if not (cap.evidence and cap.evidence.text) then with_evidence("capacity") end
    -- the Headline's output tok/s capacity, as its row gives it: figures (a bound's floor),
    -- texts, its own B - A and evidence in the note, and the verdict that evidence states
    -- (the req/s one where the tok/s spans agree with it, else their own order or none)
    local h = hrow.capacity_tps
    if h then
      local v = cap.evidence and cap.evidence.verdict
      row("capacity_at_slo_output_tps", h.a, h.b, h.a_text, h.b_text, false,
        (v == "broken" or v == "not comparable") and v or h.tps_verdict or "untested", cbounds)
      out[#out].unit = "tok/s"
      -- its order column as the req/s row's (capacity_order), read off the tok/s evidence
      -- where that differs from the req/s one (capacity_tps_evidence_text's third value)
      local o = capacity_order(model, cap.evidence, ca, cb)
      if h.tps_order and o ~= "not_compared" then
        o = (order_withheld(model) and h.tps_order:match("_higher$")) and "not_compared" or h.tps_order
      end
      out[#out].order = o
      if h.delta_text and h.delta_text ~= "" then
        -- (the same words in both cells, said once with both units: gap_note)
        out[#out].note = out[#out].note .. "; " .. (h.pct_text == h.delta_text
          and gap_note("B - A", h.delta_text, h.pct_text, "tok/s") or ("B - A: %s"):format(h.pct_text
          and (h.delta_text .. ", " .. h.pct_text) or h.delta_text))
        -- (its ends in numbers, as the req/s row's: the Headline's gap in tok/s)
        if not differ and not broken then gap_columns(out[#out], (capacity_gap_tps(ca, cb))) end
      end
      with_evidence("capacity_tps")
    end
  end
  -- per GPU (both accelerator counts known): each capacity per its run's GPUs, with its own
  -- verdict and range, as the Headline's per-GPU row gives them
  local pg = #model.slo > 0 and cap and cap.per_gpu
  if pg then
    local h
    for _, r in ipairs(model.headline or {}) do if r.key == "capacity_per_gpu" then h = r end end
    local ca, cb = pg.a, pg.b
    local function fig(c) return lp.capacity_has_figure(c) and c.rps or nil end
    local broken = pg.evidence and (pg.evidence.verdict == "broken" or pg.evidence.overdispersed)
    local single = pg.gap and pg.gap.lo_rps == pg.gap.hi_rps
    row("capacity_at_slo_rps_per_gpu", fig(ca), fig(cb), h and h.a_text or "N/A", h and h.b_text or "N/A",
      ca.kind == "interpolated" and cb.kind == "interpolated" and not differ and single and not broken,
      pg.evidence and pg.evidence.verdict or "unknown", { capacity_bound(ca), capacity_bound(cb) })
    out[#out].order = capacity_order(model, pg.evidence, ca, cb)
    if pg.evidence and pg.evidence.text then out[#out].note = pg.evidence.text .. "; " .. out[#out].note end
    local rd, rp = capacity_range_cells(pg.gap, " req/s", 2)
    if rd and not single and not differ and not broken then
      out[#out].note = out[#out].note .. "; " .. gap_note("B - A from the measured loads, per GPU", rd, rp, "req/s")
      gap_columns(out[#out], pg.gap)
    end
    out[#out].note = ("per GPU (%s: %s, %s: %s); "):format(model.a.label, T.helpers.count(model.per_gpu.a.gpus, "GPU"),
      model.b.label, T.helpers.count(model.per_gpu.b.gpus, "GPU")) .. out[#out].note
    -- (the Headline's evidence after it, as the totals' row has its own: the order in words)
    if not (pg.evidence and pg.evidence.text) then with_evidence("capacity_per_gpu") end
    if model.gpu_counts and model.gpu_counts.a ~= model.gpu_counts.b then
      -- different accelerator counts: per GPU leads, as in the Headline; the totals follow
      table.insert(out, 1, table.remove(out))
    end
  end
  -- one run's accelerator count unknown: the Headline's per-GPU row is there for the other's,
  -- with no order (its evidence N/A with why), and so is this row: never the totals' order
  local h_gpu
  for _, r in ipairs(model.headline or {}) do if r.key == "capacity_per_gpu" then h_gpu = r end end
  if not pg and h_gpu then
    row("capacity_at_slo_rps_per_gpu", h_gpu.a, h_gpu.b, h_gpu.a_text, h_gpu.b_text, false, "not comparable",
      cap and { capacity_bound(cap.a), capacity_bound(cap.b) })
    if h_gpu.evidence and h_gpu.evidence ~= "" then out[#out].note = out[#out].note .. "; " .. h_gpu.evidence end
  end
  local sa, sb = model.saturation.a, model.saturation.b
  -- a run that saturated below its ceiling (the most it achieved at any load) has its true
  -- limit between the figure and the ceiling: the gap is a range, as the Headline gives it,
  -- so no point delta here; the range's two ends follow as rows of their own, each with its
  -- two figures (delta = b - a, change_pct against a, as every row): the lower end B's figure
  -- against A's ceiling, the upper end B's ceiling against A's figure
  -- (a run of two workloads: N/A, as in the Headline)
  local mixed = sa.max_sustained_na or sb.max_sustained_na
  local va = not sa.max_sustained_na and sa.max_sustained_rps or nil
  local vb = not sb.max_sustained_na and sb.max_sustained_rps or nil
  local function ceiling(s) return s.ceiling_rps and s.max_sustained_rps and s.ceiling_rps > s.max_sustained_rps
    and s.ceiling_rps or nil end
  local ha, hb = ceiling(sa), ceiling(sb)
  local broken = model.broken and #model.broken > 0
  local exact = not sa.none and not sb.none and not differ and not broken and not mixed
  local ranged = exact and va ~= nil and vb ~= nil and (ha or hb) ~= nil
  local sbounds = { sustained_bound(sa), sustained_bound(sb) }
  row("max_sustained_rps", va, vb, sustained_text(sa), sustained_text(sb), exact and not ranged,
    broken and "broken" or differ and "not comparable" or mixed and "unknown" or "untested", sbounds)
  with_evidence("max_sustained")
  -- its order column, as the capacity rows' (M.CSV_ORDERS), from the evidence's rule
  -- (sustained_order: spans apart, the least gap held to the practical threshold)
  -- (per GPU too, each run's figure per its accelerators: the per-GPU row's order, which the
  -- Verdict reads where the GPU counts differ, never left empty beside the totals' order)
  local function sus_order(gpu)
    local so = not (broken or differ or mixed) and sustained_order(model, gpu) or nil
    local na, nb = 1, 1
    if gpu then
      local gg = model.per_gpu
      if not (gg and gg.a.gpus and gg.b.gpus) then return (broken or differ) and "not_compared" or "unknown" end
      na, nb = gg.a.gpus, gg.b.gpus
    end
    return (broken or differ) and "not_compared" or mixed and "unknown"
      -- (an order the token lengths alone can explain: either may be higher, as the capacity
      -- row says it; at least as high: that run, by the capacity rows' words)
      or so and so.token_explained and "either_may_be_higher"
      or so and so.higher and so.below_threshold and "about_the_same"
      or so and so.higher and (order_withheld(model) and "not_compared"
        or (so.higher .. (so.least_below_threshold and "_at_least_as_high" or "_higher")))
      or (so or select(2, decision.sustained_order(sa, na, sb, nb))) and "either_may_be_higher" or "unknown"
  end
  out[#out].order = sus_order(false)
  -- one run saturated at its lowest load, ordered by the loads: the gap they allow, as the
  -- Headline's Delta and Change give it (saturation.gap in comparison.json)
  local sg = model.saturation.gap
  local sd_, sp_ = capacity_range_cells(sg, " req/s", 2)
  if sd_ and not differ and not broken and not mixed then
    out[#out].note = out[#out].note .. "; " .. gap_note("B - A from the measured loads", sd_, sp_, "req/s")
  end
  local ms_order = out[#out].order
  if ranged then
    -- (its empty delta said, as the capacity rows' are: the ends are the two rows below)
    out[#out].note = out[#out].note .. "; delta and change_pct are empty: no single B - A is known, the load steps "
      .. "allow a range, whose ends are the max_sustained_rps_gap_low and max_sustained_rps_gap_high rows"
    local label = { a = model.a.label, b = model.b.label }
    local function gap(key, a, b, ta, tb, what)
      -- (figures and ceilings of runs that saturated: each a load point's measurement)
      row(key, a, b, ta, tb, true, "untested", { "measured", "measured" })
      out[#out].note = what .. "; " .. out[#out].note
      -- (the order of the gap they are the ends of: max_sustained_rps's, task fixf40)
      out[#out].order = ms_order
    end
    gap("max_sustained_rps_gap_low", ha or va, vb, ha and ("its most at any load, " .. rate_text(ha))
      or rate_text(va), rate_text(vb), ("the lower end of the gap the load steps allow: %s's max sustained "
        .. "throughput against %s's %s"):format(label.b, label.a, ha and "ceiling" or "figure"))
    gap("max_sustained_rps_gap_high", va, hb or vb, rate_text(va), hb and ("its most at any load, " .. rate_text(hb))
      or rate_text(vb), ("the upper end of the gap the load steps allow: %s's %s against %s's max sustained "
        .. "throughput"):format(label.b, hb and "ceiling" or "figure", label.a))
  end
  -- per GPU, as the Headline's rows give them (their figures, their N/A reasons, their
  -- evidence): max sustained throughput and whole-run output tok/s, each divided by its run's
  -- accelerators. A delta only where the totals' row has one (exact, no range); else the
  -- Headline's Delta and Change go in the note. Both accelerator counts unknown: the rows
  -- still, empty, with the reason.
  local by, g = {}, model.per_gpu or { a = {}, b = {} }
  for _, r in ipairs(model.headline or {}) do by[r.key] = r end
  local none = by.per_gpu
  local function per_gpu_row(key, hkey, unit, a, b, known, verdict, bounds)
    local h = by[hkey] or none or { a_text = "N/A", b_text = "N/A" }
    -- (unknown on a side: as a performance row unknown there)
    row(key, a, b, h.a_text, h.b_text, known, (a == nil or b == nil) and "not comparable" or verdict, bounds)
    local r = out[#out]
    r.unit = unit
    -- (a whole-run row not like for like has no B - A, headline_evidence: the evidence says why)
    if a ~= nil and b ~= nil and not known and h.delta_text and h.delta_text ~= ""
      and not h.delta_text:match("^not comparable") then
      r.note = r.note .. ("; B - A per GPU: %s"):format(h.delta_text == h.pct_text and h.delta_text
        or (h.delta_text .. ", " .. h.pct_text))
    end
    if h.evidence and h.evidence ~= "" then r.note = r.note .. "; " .. h.evidence end
  end
  per_gpu_row("max_sustained_rps_per_gpu", "max_sustained_per_gpu", "req/s", g.a.max_sustained_rps,
    g.b.max_sustained_rps, exact and not ranged, broken and "broken" or differ and "not comparable" or "untested",
    sbounds)
  out[#out].order = sus_order(true)
  -- whole-run output tok/s per GPU: on different GPU counts (or pooled over different loads)
  -- not like for like, as the Headline's evidence says
  local gc = model.gpu_counts and model.gpu_counts.a ~= model.gpu_counts.b
  -- (pooled over loads where a run was overloaded too, model.pooled_over)
  local like = model.workload_match and model.workload_match.like_for_like ~= false and not model.pooled_over
  per_gpu_row("output_tps_per_gpu", "output_tps_per_gpu", "tok/s", g.a.output_tps, g.b.output_tps,
    not differ and not broken and like and not gc, broken and "broken"
      or (differ or gc or not like) and "not comparable" or "untested", { "measured", "measured" })
  return out
end

-- The KV-cache figures as rows for comparison.csv, after the others: metric "kv_" .. the
-- figure (kv_hits, kv_hit_rate_pct, ...), each once; a and b numbers, empty when unknown
-- with the side and the reason in the note; verdict "context" for a total, "untested" for
-- a rate (the KV section names no better run), "not comparable" when a side is unknown.
local KV_ORDER = { "hits", "queries", "misses", "hit_rate_pct", "misses_per_request", "hits_per_request",
  "cached_share_pct", "preemptions", "preemptions_per_1k" }
function M.kv_csv_rows(model)
  local kv, out = model.kv or {}, {}
  local la, lb = model.a.label, model.b.label
  if not kv.available then
    for _, f in ipairs(KV_ORDER) do
      out[#out + 1] = { key = "kv_" .. f, unit = KV_UNIT[f], verdict = "not comparable",
        note = "unknown on both sides: " .. tostring(kv.reason or "no KV-cache data") }
    end
    return out
  end
  local by = {}
  for _, part in ipairs { kv.rows or {}, kv.efficiency or {} } do
    for _, r in ipairs(part) do by[r.key] = by[r.key] or r end
  end
  for _, f in ipairs(KV_ORDER) do
    local r = by[f]
    if r then
      local x = { key = "kv_" .. f, unit = r.unit, a = r.a, b = r.b, delta = r.delta, pct = r.pct,
        effect_pct = r.effect_pct }
      if r.a_na or r.b_na then
        x.verdict = "not comparable"
        x.note = unknown_note(r, { label = la }, { label = lb })
      else
        x.verdict = r.verdict:find("^not comparable") and "not comparable" or r.kind == "total" and "context"
          or "untested"
        -- (counters over different requests or loads: no effect beside the change, as
        -- finish_row gives a not comparable performance row none)
        if x.verdict == "not comparable" then x.effect_pct = nil end
        local parts = {}
        -- (a not comparable row's evidence gives the whole reason its verdict has the gist of)
        if r.verdict ~= "" and r.verdict ~= x.verdict and not r.verdict:find("^not comparable") then
          parts[#parts + 1] = r.verdict
        end
        if r.evidence then parts[#parts + 1] = r.evidence end
        x.note = table.concat(parts, "; ")
      end
      out[#out + 1] = x
    end
  end
  return out
end

-- Every row's direction by its key, as comparison.csv's rows give it (their better_is column):
-- comparison.json's directions, one lookup for a script that ranks the runs on any row.
function M.directions(model)
  local out = {}
  for _, r in ipairs(model.perf or {}) do out[r.key] = r.better_is end
  for _, h in ipairs(M.curve_rows(model)) do out[h.key] = M.better_is(h.key) end
  for _, k in ipairs(M.kv_csv_rows(model)) do out[k.key] = M.better_is(k.key) end
  return out
end

-- The performance table as CSV (RFC 4180 quoting).
function M.csv(model)
  local function q(v)
    if type(v) == "number" then
      if v == math.huge then return "+inf" elseif v == -math.huge then return "-inf" end
      return json.encode(v) -- the shortest text that reads back to the same number
    end
    v = v == nil and "" or tostring(v)
    if v:find('[,"\r\n]') then v = '"' .. v:gsub('"', '""') .. '"' end
    return v
  end
  -- p_value is the test's own p; p_adjusted its Holm-adjusted p in the family of family_size
  -- tests; a_bound, b_bound what the curve rows' a and b are (M.CSV_BOUNDS: "lower bound"
  -- for a "≥" figure), empty in the other rows; effect_lo, effect_hi the 95 % interval of a
  -- stratified test's row's effect_pct (decision.stratified_effect), empty where it has none
  -- order what the capacity rows' evidence says of the order (M.CSV_ORDERS), empty in the
  -- other rows; delta_lo, delta_hi a capacity gap's ends where the loads bound it (its
  -- effect_lo, effect_hi the same in %: curve_rows' gap_columns) (columns added at the end,
  -- so that the earlier ones keep their places)
  -- delta_unit: the unit of delta (and delta_lo, delta_hi): M.delta_unit, the performance
  -- rows' own (comparison.json's perf[].delta_unit); better_is: which way is better, on every
  -- row (M.better_is: the catalogue's for the performance rows, M.ROW_BETTER for the others)
  local delta_unit = M.delta_unit
  local lines = { "metric,unit,a,b,delta,change_pct,verdict,test,p_value,effect_pct,note,p_adjusted,family_size,"
    .. "a_bound,b_bound,effect_lo,effect_hi,order,delta_lo,delta_hi,delta_unit,better_is" }
  for _, r in ipairs(model.perf) do
    lines[#lines + 1] = table.concat({ q(r.key), q(r.unit), q(r.a), q(r.b), q(r.delta),
      q(r.pct), q(r.verdict), q(r.test), q(r.p_value), q(r.effect_pct), q(r.note), q(r.p_adjusted),
      q(r.family_size), "", "", q(r.effect_lo), q(r.effect_hi), "", "", "", q(delta_unit(r.unit)),
      q(r.better_is) }, ",")
  end
  -- the headline's figures read off the load curves, after the table: a and b as the
  -- report's numbers (a lower bound's bound; empty when unknown or below the lowest load),
  -- no delta where either is a bound or unknown, the verdict from the capacity evidence
  -- (never a test), and the note with both figures as the report prints them
  for _, h in ipairs(M.curve_rows(model)) do
    lines[#lines + 1] = table.concat({ q(h.key), q(h.unit or "req/s"), q(h.a), q(h.b), q(h.delta), q(h.pct),
      q(h.verdict), "", "", "", q(h.note), "", "", q(h.a_bound), q(h.b_bound), q(h.effect_lo), q(h.effect_hi),
      q(h.order), q(h.delta_lo), q(h.delta_hi), q(delta_unit(h.unit or "req/s")), q(M.better_is(h.key)) }, ",")
  end
  -- the KV-cache figures, last (M.kv_csv_rows): never tested, so no test or p columns
  for _, k in ipairs(M.kv_csv_rows(model)) do
    lines[#lines + 1] = table.concat({ q(k.key), q(k.unit), q(k.a), q(k.b), q(k.delta), q(k.pct), q(k.verdict),
      "", "", q(k.effect_pct), q(k.note), "", "", "", "", "", "", "", "", "", q(delta_unit(k.unit)),
      q(M.better_is(k.key)) }, ",")
  end
  return table.concat(lines, "\n") .. "\n"
end

return M
