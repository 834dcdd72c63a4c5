-- llmd.report: the comparison model of two runs, and its outputs.
--
--   local report = require "llmd.report"
--   local model = report.build{ workspace = path, a = side_a, b = side_b }
--     -- side = { label =, state = run_state, run = run model (llmd.harness), kv = llmd.kvcache }
--   report.write(model, path, { templates = dir })   -- comparison_report.md, .json, .csv
--
-- Everything a report says is decided here, from the numbers: deltas and which side is
-- better (by each metric's direction), whether a pair can be compared at all (same
-- formula, same percentile method), whether a latency difference is more than noise
-- (Mann-Whitney U on the per-request samples), the ladder, the KV-cache figures and the
-- summary sentences. The template only lays them out.
local metrics = require "llmd.metrics"
local stats = require "llmd.stats"
local json = require "llmd.json"
local T = require "llmd.template"

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

-- The per-request samples behind a latency metric (run model set.samples).
local SAMPLES = {}
for _, p in ipairs { "mean", "p50", "p90", "p95", "p99", "p999" } do
  for _, k in ipairs { "latency", "ttft", "tpot" } do
    if metrics.has(k .. "_" .. p .. "_ms") then SAMPLES[k .. "_" .. p .. "_ms"] = k end
  end
end

M.ALPHA = 0.05
M.TEST = "Mann-Whitney U (two-sided, normal approximation with tie correction) on the per-request samples, "
  .. "alpha = 0.05"

local function harness_name(run)
  if run.tool and run.tool ~= "" then return run.harness .. " (" .. run.tool .. ")" end
  return run.harness
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
  if ha == hb then return true end
  local pa, pb = sa.source[key], sb.source[key]
  if pa == "per-request data" and pb == "per-request data" then return true end
  return false, ("formula may differ: %s from %s's %s, %s from %s's %s"):format(ra.label or "A", ha,
    pa or "?", rb.label or "B", hb, pb or "?")
end

-- A significance test for key when both runs kept per-request samples, or nil. The
-- metrics of one sample kind (TTFT mean/p50/p90) share one test: memo, by kind.
function M.significance(key, ra, rb, memo)
  local kind = SAMPLES[key]
  if not kind then return nil end
  local xa, xb = ra.overall.samples, rb.overall.samples
  if not (xa and xb and xa[kind] and xb[kind]) then return nil end
  local r = memo and memo[kind]
  if r == nil then
    local ok, res = pcall(stats.mann_whitney, xa[kind], xb[kind])
    r = ok and res or false
    if r then r.significant = r.p < M.ALPHA end
    if memo then memo[kind] = r end
  end
  if not r then return nil end
  local copy = {}
  for k, v in pairs(r) do copy[k] = v end
  return copy
end

local function fmt_delta(key, d)
  local m = metrics.get(key)
  local s = T.helpers.signed(d, (m.format:match("%.(%d)f") or 0) + 0)
  if m.unit == "%" then return s .. " pp" end
  if m.unit == "count" then return s end
  return s .. " " .. m.unit
end

local function perf_row(key, A, B, sig_cache, memo)
  local m = metrics.get(key)
  local ra, rb = A.run, B.run
  local va, wa = ra.overall.values[key], ra.overall.na[key]
  local vb, wb = rb.overall.values[key], rb.overall.na[key]
  local row = {
    key = key, label = m.label, unit = m.unit, better_is = m.better,
    a = va, b = vb, a_text = metrics.format(key, va, wa), b_text = metrics.format(key, vb, wb),
    delta_text = "N/A", pct_text = "N/A", verdict = "", note = nil,
  }
  if va == nil or vb == nil then
    row.verdict = "unknown"
    return row
  end
  local ok, why = M.comparable(key, ra, rb)
  if not ok then
    row.verdict = "not comparable"
    row.note = why
    return row
  end
  local d = metrics.delta(key, va, vb)
  row.delta = d.diff
  row.pct = d.pct
  row.delta_text = fmt_delta(key, d.diff)
  row.pct_text = d.pct and T.helpers.pct(d.pct) or "N/A"
  local sig = M.significance(key, ra, rb, memo) or (sig_cache and sig_cache[key])
  row.sig = sig
  if d.better == nil then
    row.verdict = d.diff == 0 and "same" or ""
  elseif sig and not sig.significant then
    row.verdict = "within noise"
    row.note = ("%s: p = %.3g, not a significant difference"):format(m.label, sig.p)
  else
    row.verdict = d.better and (B.label .. " better") or (A.label .. " better")
    row.winner = d.better and "b" or "a"
    if sig then row.note = ("%s: p = %.3g"):format(m.label, sig.p) end
  end
  return row
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
    if stated ~= "unknown" and stated ~= r.harness then v = v .. " (stated: " .. stated .. ")" end
    return v
  end
  local function stages_text(side)
    local stated = get(side, "benchmark", "load_stages")
    if stated ~= "unknown" then return stated end
    local parts = {}
    for _, st in ipairs(side.run.stages) do
      local s = st.rate and ("%g/s"):format(st.rate) or st.concurrency and ("c=%g"):format(st.concurrency) or "?"
      parts[#parts + 1] = s .. (st.warmup and " (warm-up)" or "")
    end
    return #parts > 0 and (#parts .. " stages: " .. table.concat(parts, ", ")) or "unknown"
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
    local function bare(v) return (tostring(v):gsub(" %(read from the results%)$", "")) end
    rows[#rows + 1] = { label = label, a = fa, b = fb,
      differs = not not_config and fa ~= "unknown" and fb ~= "unknown" and bare(fa) ~= bare(fb) or false }
  end
  add("Guide", get(A, "stack", "guide"), get(B, "stack", "guide"))
  add("llm-d version", get(A, "stack", "llmd_version"), get(B, "stack", "llmd_version"))
  add("Decode image", stated_or_read(A, "decode_image", "image"), stated_or_read(B, "decode_image", "image"))
  add("Model", stated_or_read(A, "model"), stated_or_read(B, "model"))
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
  add("Results", A.state and A.state.source_path or A.run.root or "unknown",
    B.state and B.state.source_path or B.run.root or "unknown", true)
  return rows
end

local function ladder(A, B)
  local function measured(run)
    local out = {}
    for _, st in ipairs(run.stages) do if not st.warmup then out[#out + 1] = st end end
    return out
  end
  local ma, mb = measured(A.run), measured(B.run)
  local n = math.max(#ma, #mb)
  local rows = {}
  local function load_of(st)
    if not st then return nil end
    if st.rate then return ("%g req/s"):format(st.rate) end
    if st.concurrency then return ("concurrency %g"):format(st.concurrency) end
    return "stage " .. st.index
  end
  for i = 1, n do
    local sa, sb = ma[i], mb[i]
    local la, lb = load_of(sa), load_of(sb)
    local function v(st, key, scale)
      if not st then return "-" end
      local x = st.metrics.values[key]
      if x == nil then return "N/A" end
      return T.helpers.num(x * (scale or 1), scale and 3 or 1)
    end
    rows[#rows + 1] = {
      load = (la == lb or not lb) and la or (not la and lb) or (la .. " / " .. lb),
      tok_a = v(sa, "throughput_tok_s"), tok_b = v(sb, "throughput_tok_s"),
      ttft_mean_a = v(sa, "ttft_mean_ms", 0.001), ttft_mean_b = v(sb, "ttft_mean_ms", 0.001),
      ttft_p90_a = v(sa, "ttft_p90_ms", 0.001), ttft_p90_b = v(sb, "ttft_p90_ms", 0.001),
      ttft_p90_a_v = sa and sa.metrics.values.ttft_p90_ms, ttft_p90_b_v = sb and sb.metrics.values.ttft_p90_ms,
    }
  end
  local excluded = {}
  for _, side in ipairs { A, B } do
    for _, st in ipairs(side.run.stages) do
      if st.warmup then excluded[#excluded + 1] = ("%s stage %d"):format(side.label, st.index) end
    end
  end
  return {
    available = n > 1 or (n == 1 and (#A.run.stages > 1 or #B.run.stages > 1)),
    rows = rows,
    excluded = table.concat(excluded, ", "),
    unequal = #ma ~= #mb,
    count_a = #ma, count_b = #mb,
  }
end

local NO_SIZE = "unknown (no 'GPU KV cache size' line in the vLLM logs)"

-- "123,456 tokens (decode-0)", or with several pods the total and each pod's:
-- "246,912 tokens in total on 2 pods (decode-0 123,456; decode-1 123,456)"
local function size_text(size)
  if not size then return nil end
  local per = {}
  for _, p in ipairs(size.pods or {}) do per[#per + 1] = p.pod .. " " .. T.helpers.num(p.tokens) end
  if #per <= 1 then
    return T.helpers.num(size.total) .. " tokens" .. (per[1] and (" (" .. per[1]:gsub(" [%d,]+$", "") .. ")") or "")
  end
  return ("%s tokens in total on %d pods (%s)"):format(T.helpers.num(size.total), #per, table.concat(per, "; "))
end

local function kv_section(A, B)
  local ka, kb = A.kv or {}, B.kv or {}
  local sec = { available = ka.available or kb.available or false }
  if not sec.available then
    local reasons = {}
    if ka.reason then reasons[#reasons + 1] = A.label .. ": " .. ka.reason end
    if kb.reason and kb.reason ~= ka.reason then reasons[#reasons + 1] = B.label .. ": " .. kb.reason end
    if kb.reason and kb.reason == ka.reason then reasons[1] = "both runs: " .. ka.reason end
    sec.reason = table.concat(reasons, "; ")
    sec.size = (ka.size or kb.size) and {
      a = size_text(ka.size) or "unknown",
      b = size_text(kb.size) or "unknown",
    } or nil
    return sec
  end
  local function cell(kv, f, d, unit)
    local v = kv.available and kv[f] or nil
    if v == nil then return "N/A" end
    return T.helpers.num(v, d or 0) .. (unit or "")
  end
  local function row(label, f, d, better, unit)
    local va, vb = ka.available and ka[f] or nil, kb.available and kb[f] or nil
    local r = { label = label, a = cell(ka, f, d, unit), b = cell(kb, f, d, unit),
      delta = "N/A", pct = "N/A", verdict = "" }
    if va and vb then
      -- a difference of percentages is in percentage points
      r.delta = T.helpers.signed(vb - va, d or 0) .. (unit == " %" and " pp" or (unit or ""))
      r.pct = va ~= 0 and T.helpers.pct((vb - va) / math.abs(va) * 100) or "N/A"
      if better and vb ~= va then
        local b_wins = (better == "higher") == (vb > va)
        r.verdict = (b_wins and B.label or A.label) .. " better"
      end
    end
    return r
  end
  sec.size = {
    a = size_text(ka.size) or NO_SIZE,
    b = size_text(kb.size) or NO_SIZE,
  }
  sec.rows = {
    row("Prefix cache hits (tokens)", "hits", 0, "higher"),
    row("Prefix cache queries (tokens)", "queries", 0, nil),
    row("Misses (tokens recomputed)", "misses", 0, "lower"),
    row("Hit rate", "hit_rate_pct", 1, "higher", " %"),
    row("Misses per completed request (tokens)", "misses_per_request", 1, "lower"),
  }
  sec.efficiency = {
    row("Tokens not reprocessed (served from cache)", "hits", 0, "higher"),
    row("Cached tokens per completed request", "hits_per_request", 1, "higher"),
    row("Share of input tokens served from cache", "cached_share_pct", 1, "higher", " %"),
  }
  -- the processed summary's figure, where it says something else
  local som = {}
  for _, s in ipairs { { A, ka }, { B, kb } } do
    local side, kv = s[1], s[2]
    if kv.sum_of_max and not kv.sum_of_max_same then
      som[#som + 1] = {
        label = side.label, hits = T.helpers.num(kv.sum_of_max.hits), queries = T.helpers.num(kv.sum_of_max.queries),
        actual_hits = kv.hits and T.helpers.num(kv.hits) or "N/A",
      }
    end
  end
  sec.sum_of_max = #som > 0 and som or nil
  -- why it differs, in the direction it differs (a restart can make it the smaller)
  local kvm = require "llmd.kvcache"
  local over, under = false, false
  for _, kv in ipairs { ka, kb } do
    if kv.sum_of_max and not kv.sum_of_max_same and kv.hits and kv.sum_of_max.hits then
      if kv.sum_of_max.hits > kv.hits or (kv.sum_of_max.queries or 0) > (kv.queries or 0) then over = true end
      if kv.sum_of_max.hits < kv.hits or (kv.sum_of_max.queries or math.huge) < (kv.queries or 0) then under = true end
    end
  end
  local why = {}
  if over or not under then why[#why + 1] = kvm.SUM_OF_MAX_WHY end
  if under then why[#why + 1] = kvm.SUM_OF_MAX_UNDER end
  sec.sum_of_max_why = table.concat(why, " ")
  local ta, tb = ka.time_avg, kb.time_avg
  if ta or tb then
    local function p1(v) return v and T.helpers.num(v, 1) .. " %" or "N/A" end
    local function t3(t) return t and { mean = p1(t.mean), p90 = p1(t.p90), p95 = p1(t.p95) }
      or { mean = "N/A", p90 = "N/A", p95 = "N/A" } end
    sec.time_avg = { a = t3(ta), b = t3(tb) }
  end
  sec.source_a = ka.source or ka.reason
  sec.source_b = kb.source or kb.reason
  -- one line per side without data, instead of the reason in every cell
  local missing = {}
  for _, s in ipairs { { A, ka }, { B, kb } } do
    if not s[2].available then missing[#missing + 1] = ("%s: %s"):format(s[1].label, s[2].reason or "no data") end
    for _, wline in ipairs(s[2].warnings or {}) do missing[#missing + 1] = ("%s: %s"):format(s[1].label, wline) end
  end
  sec.missing = missing
  return sec
end

-- Two or three sentences from the numbers.
local function summary(A, B, rows, ladder_rows)
  local by = {}
  for _, r in ipairs(rows) do by[r.key] = r end
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
  local primary = { "throughput_tok_s", "throughput_req_s", "ttft_p90_ms", "latency_p90_ms", "tpot_mean_ms",
    "itl_mean_ms", "error_rate_pct" }
  local wins = { a = {}, b = {} }
  local noise, incomparable = {}, {}
  for _, key in ipairs(primary) do
    local r = by[key]
    if r then
      if r.winner then
        local w = wins[r.winner]
        w[#w + 1] = ("%s (%s)"):format(r.label:lower():gsub("^ttft", "TTFT"):gsub("tpot", "TPOT"):gsub("itl", "ITL"),
          r.pct and T.helpers.pct(r.pct) or r.delta_text)
      elseif r.verdict == "within noise" then
        noise[#noise + 1] = r.label
      elseif r.verdict == "not comparable" then
        incomparable[#incomparable + 1] = r.label
      end
    end
  end
  local out = {}
  local na, nb = #wins.a, #wins.b
  if na == 0 and nb == 0 then
    out[1] = ("Neither configuration is measurably better: no headline metric differs beyond noise "
      .. "or both sides lack comparable numbers.")
  else
    local lead, other = nb >= na and B or A, nb >= na and A or B
    local lw, ow = nb >= na and wins.b or wins.a, nb >= na and wins.a or wins.b
    if na == nb then
      out[1] = ("Neither configuration wins outright: %s is better in %s, %s in %s."):format(B.label,
        table.concat(wins.b, ", "), A.label, table.concat(wins.a, ", "))
    else
      out[1] = ("%s did better overall than %s: %s."):format(lead.label, other.label, table.concat(lw, ", "))
      if #ow > 0 then
        out[2] = ("The trade-off: %s is better in %s."):format(other.label, table.concat(ow, ", "))
      end
    end
  end
  -- where the load mattered most: the measured stage pair whose TTFT p90 differs most
  if #out < 2 and ladder_rows then
    local best, best_ratio
    for _, r in ipairs(ladder_rows) do
      if r.ttft_p90_a_v and r.ttft_p90_b_v and r.ttft_p90_a_v > 0 and r.ttft_p90_b_v > 0 then
        local ratio = math.max(r.ttft_p90_a_v / r.ttft_p90_b_v, r.ttft_p90_b_v / r.ttft_p90_a_v)
        if not best_ratio or ratio > best_ratio then best, best_ratio = r, ratio end
      end
    end
    if best and best_ratio >= 1.5 then
      out[#out + 1] = ("The gap is widest at %s, where TTFT p90 is %s s for %s and %s s for %s.")
        :format(best.load, best.ttft_p90_a, A.label, best.ttft_p90_b, B.label)
    end
  end
  local ea, eb = A.run.overall.values.error_rate_pct, B.run.overall.values.error_rate_pct
  if (ea and ea > 0) or (eb and eb > 0) then
    out[#out + 1] = ("Error rates: %s %s, %s %s; latency percentiles cover successful requests only.")
      :format(A.label, metrics.format("error_rate_pct", ea), B.label, metrics.format("error_rate_pct", eb))
  elseif #noise > 0 then
    out[#out + 1] = ("Differences in %s are within noise."):format(table.concat(noise, ", "))
  elseif #incomparable > 0 then
    out[#out + 1] = ("%s are not compared: the runs measured them differently.")
      :format(table.concat(incomparable, ", "))
  end
  while #out > 3 do out[#out] = nil end
  return table.concat(out, " ")
end

-- The comparison model. opts.generated: epoch (default now).
function M.build(opts)
  local A, B = opts.a, opts.b
  A.run.label, B.run.label = A.label, B.label
  local model = {
    generated = T.helpers.date(opts.generated or os.time()),
    workspace = opts.workspace,
    a = { label = A.label, status = A.run.status, reasons = A.run.reasons, harness = harness_name(A.run),
      warnings = A.run.warnings, checks = A.run.checks or {} },
    b = { label = B.label, status = B.run.status, reasons = B.run.reasons, harness = harness_name(B.run),
      warnings = B.run.warnings, checks = B.run.checks or {} },
    config = config_rows(A, B),
    test = M.TEST,
  }
  local rows, notes = {}, {}
  local any_sig = false
  local memo = {}
  for _, key in ipairs(M.PERF_KEYS) do
    local r = perf_row(key, A, B, opts.significance, memo)
    if not (M.OPTIONAL_KEYS[key] and r.a == nil and r.b == nil) then rows[#rows + 1] = r end
    if r.sig then any_sig = true end
    if r.note and r.verdict == "not comparable" then notes[#notes + 1] = r.label .. ": " .. r.note end
  end
  model.perf = rows
  model.perf_notes = notes
  model.significance_used = any_sig
  local ea, eb = A.run.overall.values.error_rate_pct, B.run.overall.values.error_rate_pct
  model.error_note = ((ea and ea > 0) or (eb and eb > 0)) and ("Latency rows count successful requests only; "
    .. "error rate %s: %s, %s: %s."):format(A.label, metrics.format("error_rate_pct", ea), B.label,
      metrics.format("error_rate_pct", eb)) or nil
  model.errors = { a = A.run.errors, b = B.run.errors }
  model.ladder = ladder(A, B)
  model.kv = kv_section(A, B)
  model.summary = summary(A, B, rows, model.ladder.rows)
  return model
end

-- Plain data for comparison.json (no userdata, no infinities).
function M.plain(model)
  local function clean(v)
    if type(v) == "number" then
      if v == math.huge then return "+inf" elseif v == -math.huge then return "-inf" end
      return v
    end
    if type(v) ~= "table" then return v end
    local out = {}
    for k, x in pairs(v) do
      if type(x) ~= "userdata" and type(x) ~= "function" then out[k] = clean(x) end
    end
    if #v > 0 or json.is_array(v) then return json.array(out) end
    return out
  end
  return clean(model)
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
  local lines = { "metric,unit,a,b,delta,change_pct,verdict,p_value,note" }
  for _, r in ipairs(model.perf) do
    lines[#lines + 1] = table.concat({ q(r.key), q(r.unit), q(r.a), q(r.b), q(r.delta),
      q(r.pct), q(r.verdict), q(r.sig and r.sig.p), q(r.note) }, ",")
  end
  return table.concat(lines, "\n") .. "\n"
end

return M
