-- inference-perf (kubernetes-sigs/inference-perf): summary_lifecycle_metrics.json,
-- stage_<N>_lifecycle_metrics.json and per_request_lifecycle_metrics.json.
--
-- Every figure, per stage and overall, comes from the per-request file when it exists
-- (streamed once, token gaps reduced in C; its requests placed in stages by their start
-- times), the stage and summary files only checked against them; otherwise per-stage
-- figures come from the stage files (the harness's own summaries, seconds, numpy-linear
-- percentiles) and the overall ones from the summary file, or, when warm-up stages are
-- excluded, from the measured stage files by formula.
local json = require "llmd.json"
local rm = require "llmd.runmodel"
local scan = require "llmd.scan"
local stats = require "llmd.stats"
local tl = require "llmd.timeline"

local M = {
  name = "inference-perf",
  percentile_method = "linear",
  -- what classify accepts, as the "looked for" error lists it
  describe = "summary_lifecycle_metrics.json, stage_<N>_lifecycle_metrics.json, either also .yaml or .yml; "
    .. "per_request_lifecycle_metrics.json or .json.gz",
}

local function classify(name)
  if name:match("^summary_lifecycle_metrics%.json$") or name:match("^summary_lifecycle_metrics%.ya?ml$") then
    return "summary"
  end
  local n = name:match("^stage_(%d+)_lifecycle_metrics%.json$") or name:match("^stage_(%d+)_lifecycle_metrics%.ya?ml$")
  if n then return "stage", tonumber(n) end
  if name:match("^per_request_lifecycle_metrics%.json$") or name:match("^per_request_lifecycle_metrics%.json%.gz$") then
    return "per_request"
  end
end

-- Why a file given alone (extract.lua FILE) is not read, when its name says it is
-- inference-perf's: nil when this harness has nothing to say of it.
function M.explain(path)
  local name = path:match("[^/]*$")
  for _, x in ipairs { "per_request_lifecycle_metrics%.json%.gz", "per_request_lifecycle_metrics%.json",
    "summary_lifecycle_metrics%.ya?ml", "summary_lifecycle_metrics%.json", "stage_%d+_lifecycle_metrics%.ya?ml",
    "stage_%d+_lifecycle_metrics%.json" } do
    local own = name:match("(" .. x .. ")$")
    if own then
      return ("named like inference-perf's %s, which it reads only under that exact name: pass a copy named "
        .. "%s in a folder of its own, or the folder of the run it came from"):format(own, own)
    end
  end
  if name:match("lifecycle") and (name:match("%.json$") or name:match("%.ya?ml$")) then
    return "named like an inference-perf lifecycle report, which it reads only as summary_lifecycle_metrics, "
      .. "stage_<N>_lifecycle_metrics (.json, .yaml or .yml) or per_request_lifecycle_metrics.json: pass a copy "
      .. "under the name it had in its run in a folder of its own, or the folder of the run it came from"
  end
  if name:match("_prometheus_metrics%.json$") then
    return "inference-perf's Prometheus metrics of a stage, not a result file: pass its run's folder"
  end
end

function M.detect(dir)
  local cs = rm.group_files(dir, function(f) return classify(f.name) end)
  -- stages are numbered 0, 1, 2, ...: a gap is a stage file lost; an empty or unreadable
  -- file claimed by its name is one that cannot be read
  for _, c in ipairs(cs) do
    local have, max = {}, -1
    for _, s in ipairs(c.stages) do
      have[s.index] = true
      if s.index > max then max = s.index end
    end
    for i = 0, rm.only_file and -1 or max do -- (one file asked for: no sequence to check)
      if not have[i] then
        rm.claim_failed(c, ("%s/stage_%d_lifecycle_metrics.json"):format(c.dir, i),
          ("missing (stage files 0 to %d are expected, a ladder row would be lost)"):format(max))
      end
    end
    for _, p in ipairs(c.files) do
      local why = rm.unreadable(p)
      if why then rm.claim_failed(c, p, why) end
    end
    if #(c.unreadable or {}) > 0 then
      local bad = {}
      for _, u in ipairs(c.unreadable) do bad[u:match("^(.-): ")] = true end
      local kept = {}
      for _, s in ipairs(c.stages) do if not bad[s.path] then kept[#kept + 1] = s end end
      c.stages = kept
      if c.summary and bad[c.summary] then c.summary = nil end
      if c.per_request and bad[c.per_request] then c.per_request = nil end
    end
  end
  return cs
end

-- Summary dicts -> metric keys. Percentile keys are f"p{p:g}"; p50 is "median".
local LATENCY = {
  { "request_latency", "latency" },
  { "time_to_first_token", "ttft" },
  { "time_per_output_token", "tpot" },
  { "inter_token_latency", "itl" },
  { "normalized_time_per_output_token", "ntpot" },
}
local WHICH = { { "mean", "mean" }, { "p50", "median" }, { "p90", "p90" }, { "p95", "p95" }, { "p99", "p99" },
  { "p999", "p99.9" } }

local function num(v) return type(v) == "number" and v or nil end

local function need_table(v, path, where)
  if type(v) ~= "table" then
    error(("%s: %s is missing or not an object (expected inference-perf's lifecycle report)")
      :format(path, where), 0)
  end
  return v
end

-- Fills set from one lifecycle report (summary or stage file).
-- The stage file's figures for a drain-reduced rate (llmd.runmodel.DRAIN_BASIS), where
-- the per-request file is absent: the window (the catalogue's duration), the successes and
-- their least and most latency, the send span and count (load_summary), the drain past the
-- last request (window - send span) and the share of successes at least that slow, bounded
-- by the summary's percentiles, and the most a request was sent late against its schedule
-- (load_summary.schedule_delay.max). nil where the window or the least latency is unknown.
local function drain_record(d, st)
  local load = type(d.load_summary) == "table" and d.load_summary or {}
  local succ = type(d.successes) == "table" and d.successes or {}
  local lat = type(succ.latency) == "table" and succ.latency or {}
  local rl = type(lat.request_latency) == "table" and lat.request_latency or {}
  local w, ok, least, most = st.metrics.values.duration_s, num(succ.count), num(rl.min), num(rl.max)
  if not (w and w > 0 and ok and least and most) then return nil end
  local span, sends = num(load.send_duration), num(load.count)
  local delay = type(load.schedule_delay) == "table" and num(load.schedule_delay.max) or nil
  local rec = { basis = rm.DRAIN_BASIS, completed = ok, window_s = w, least_latency_s = least, most_latency_s = most,
    send_span_s = span, sends = sends, schedule_delay_max_s = delay }
  if span and span > 0 and w >= span then
    rec.drain_s = w - span
    local pcts = { { 100, most, "max" } }
    for k, v in pairs(rl) do
      local q = k == "median" and 50 or (type(k) == "string" and tonumber(k:match("^p([%d.]+)$")))
      if q and q < 100 and num(v) then pcts[#pcts + 1] = { q, v, k } end
    end
    -- (a window and a span, differences of epoch times, carry about 1e-6 s of rounding)
    rec.tail_share, rec.tail_basis = rm.tail_bound(pcts, rec.drain_s, 1e-6 * math.max(1, w))
  end
  return rec
end

-- A file whose successes.count is 0 yet whose successes.latency holds figures (inference-perf
-- writes a summary of no samples as null): it contradicts itself, and which half is right the
-- file cannot say. "request_latency mean 1.234 s, time_to_first_token ..." or nil.
local function latency_without_successes(d)
  local succ = type(d) == "table" and type(d.successes) == "table" and d.successes or {}
  if succ.count ~= 0 or type(succ.latency) ~= "table" then return nil end
  local said = {}
  for _, e in ipairs(LATENCY) do
    local sd = succ.latency[e[1]]
    if type(sd) == "table" then
      local k = num(sd.mean) and "mean" or nil
      if not k then
        for key, v in pairs(sd) do if num(v) and (k == nil or tostring(key) < k) then k = tostring(key) end end
      end
      if k then said[#said + 1] = ("%s %s %.4g s"):format(e[1], k, sd[k]) end
    end
  end
  return #said > 0 and table.concat(said, ", ") or nil
end

-- NTPOT, where inference-perf's summary dict sd of n successes is all this run has of it: its
-- reportgen enters a success without output tokens as NTPOT 0 (a value no request had), which
-- pulls the mean down; the catalogue's NTPOT leaves such a request out (unknown), as the
-- per-request path does. sd's min says which: every other success has (end - start) / tokens
-- > 0, so a min above 0 proves no such 0 is in it (nil, and that said for the source), a min of
-- 0 proves one is, and without a min it cannot be ruled out (the text for its N/A). With a 0
-- in it the mean without the zeros is mean x n / (n - z) for z zeros; z >= 1, and at most
-- floor((n - 1) q / 100) + 1 when the summary's q-th percentile (numpy's linear) is above 0,
-- so the reason gives that bracket, which no test takes for the figure; it is returned too,
-- third, {lo =, hi =} in ms, for an SLO to judge the point on where the whole bracket lies on
-- one side of its limit (llmd.loadpoints: set.bounds).
local ZERO_TAG = "may count 0-token requests as 0 (inference-perf's summary)"
-- Is why (a load point's N/A reason) M.ntpot_zeros's: NTPOT unknown only because the summary
-- counts 0-token successes as 0? Then another summary has the same problem; the per-request
-- file, which lets those requests be left out, settles it (llmd.loadpoints, llmd.report).
function M.zero_counted(why)
  return type(why) == "string" and why:find(ZERO_TAG, 1, true) ~= nil
end

function M.ntpot_zeros(sd, n)
  local TAG = ZERO_TAG
  local min, mean = num(sd.min), num(sd.mean)
  if min and min > 0 then
    return nil, ("its NTPOT min %.4g ms > 0: no success without output tokens counted as 0"):format(min * 1000)
  end
  if not min then
    return ("NTPOT %s: the summary has no NTPOT min, so a success with 0 output tokens, which inference-perf "
      .. "enters as NTPOT 0, cannot be ruled out of its mean"):format(TAG)
  end
  local q
  for k, v in pairs(sd) do
    local p = k == "median" and 50 or k == "max" and 100 or (type(k) == "string" and tonumber(k:match("^p([%d.]+)$")))
    if p and num(v) and v > 0 and (not q or p < q) then q = p end
  end
  local why = ("NTPOT %s: its NTPOT min is %.4g ms, so at least one of its %d successes had 0 output tokens and "
    .. "was entered as NTPOT 0"):format(TAG, min * 1000, n)
  if not mean then return why end
  if not q then
    return why .. ("; its mean %.2f ms and every percentile are 0: no success had an output token, so NTPOT is "
      .. "unknown"):format(mean * 1000)
  end
  local zmax = math.floor((n - 1) * q / 100) + 1
  why = why .. ("; its mean %.2f ms counts them"):format(mean * 1000)
  if n - zmax < 1 or n < 2 then return why .. ", and how many they are its percentiles do not bound" end
  local name = q == 50 and "median" or q == 100 and "max" or ("p%g"):format(q)
  -- exactly one zero (zmax 1: two would make its q-th percentile, interpolated between the two
  -- lowest values, 0): the mean without it is known, mean x n / (n - 1), and is the figure,
  -- over n - 1 requests, fourth (fixh43: "1 to 1 ... 36.93 to 36.93 ms" was left N/A)
  if zmax == 1 then
    local exact = mean * n / (n - 1) * 1000
    return nil, ("its NTPOT min is 0 ms and its %s above 0, so exactly one of its %d successes had 0 output tokens "
      .. "and was entered as NTPOT 0; its mean %.2f ms counts it, the figure %.2f ms leaves it out"):format(name, n,
      mean * 1000, exact), nil, exact
  end
  local lo, hi = mean * n / (n - 1) * 1000, mean * n / (n - zmax) * 1000
  -- (the bracket with the digits of the Load Curves cell that shows it, "N/A (11.008–11.017)":
  -- one more than the NTPOT column's 2, fixb44; "11.01 to 11.02" read as another bracket)
  return why .. ("; without them (1 to %d, as its %s is above 0) the mean is %.3f to %.3f ms"):format(zmax, name,
    lo, hi), nil, { lo = lo, hi = hi }
end

-- NTPOT's percentiles from such a summary dict sd of n successes (in set as its figures, by
-- map_report): each 0 entered for a success without output tokens is below every real NTPOT,
-- so the summary's q-th percentile (numpy's linear) of n values with z zeros is, without them,
-- its percentile at the level 100 (z + (n - z - 1) q / 100) / (n - 1), which grows with z.
-- With a min above 0 (no zero) the figures stand. Else each is N/A (tagged as the mean's,
-- M.zero_counted) with a bracket where the summary bounds it: z from 0 (no min) or 1 (min 0)
-- to M.ntpot_zeros's most, floor((n - 1) q0 / 100) + 1 for q0 its least level above 0; the
-- low end is its own q-th percentile, the high end its percentile at the least level it gives
-- at or above the level for the most zeros (its max at 100). Unbounded (no level that high,
-- or every level 0): N/A without a bracket. An SLO judges a point on the bracket as on the
-- mean's (llmd.loadpoints).
function M.ntpot_percentile_zeros(set, sd, n)
  local min = num(sd.min)
  if min and min > 0 then return end
  local levels, q0 = {}, nil
  for k, v in pairs(sd) do
    local p = k == "median" and 50 or k == "max" and 100 or k == "min" and 0
      or (type(k) == "string" and tonumber(k:match("^p([%d.]+)$")))
    if p and num(v) then
      levels[#levels + 1] = { p, v, k }
      if v > 0 and p > 0 and (not q0 or p < q0) then q0 = p end
    end
  end
  table.sort(levels, function(x, y) return x[1] < y[1] end)
  local zmax = q0 and math.floor((n - 1) * q0 / 100) + 1 or nil
  local metrics = require "llmd.metrics"
  for _, pc in ipairs(metrics.PCTS) do
    local key = "ntpot_" .. pc[1] .. "_ms"
    local v = set.values[key]
    if v ~= nil then
      local label = metrics.get(key).label
      local why = ("%s %s: %s"):format(label, ZERO_TAG, min and ("its NTPOT min is 0 ms, so at least one of its %d "
        .. "successes had 0 output tokens and was entered as NTPOT 0, below every other"):format(n)
        or "the summary has no NTPOT min, so a success with 0 output tokens, which inference-perf enters as NTPOT 0, "
        .. "cannot be ruled out")
      local bracket
      if not zmax then
        why = why .. "; every percentile it gives is 0, so how many they are it does not bound"
      elseif n < 2 or n - zmax < 1 then
        why = why .. "; how many they are its percentiles do not bound"
      else
        local zmin = min and 1 or 0
        local function level(z) return 100 * (z + (n - z - 1) * pc[2] / 100) / (n - 1) end
        local top, hi = level(zmax), nil
        for _, l in ipairs(levels) do
          if l[1] >= top - 1e-9 then hi = l; break end
        end
        local name = q0 == 50 and "median" or q0 == 100 and "max" or ("p%g"):format(q0)
        local own = label:gsub("^NTPOT ", "")
        why = why .. ("; its %s %.2f ms counts them, and without them (%d to %d, as its %s is above 0) NTPOT %s is "
          .. "its percentile at a level from %.4f to %.4f"):format(own, v, zmin, zmax, name, own, level(zmin), top)
        if hi then
          bracket = { lo = v, hi = hi[2] * 1000 }
          why = why .. (": %.2f to %.2f ms (its %s to its %s)"):format(v, hi[2] * 1000, own, hi[3] == "max" and "max"
            or hi[3] == "median" and "median" or hi[3])
        else
          why = why .. (", above every level it gives: at least %.2f ms"):format(v)
        end
      end
      set.values[key], set.source[key], set.method[key] = nil, nil, nil
      rm.unknown(set, key, why)
      rm.put_bounds(set, key, bracket)
    end
  end
end

local function map_report(set, d, path)
  need_table(d, path, "the document")
  local succ = need_table(d.successes, path, "'successes'")
  local fail = need_table(d.failures, path, "'failures'")
  local load = type(d.load_summary) == "table" and d.load_summary or {}
  local src = rm.SUMMARY
  local ok, failed = num(succ.count), num(fail.count)
  if not ok or not failed then
    error(path .. ": successes.count and failures.count must be numbers", 0)
  end
  rm.put(set, "requests_ok", ok, src)
  rm.put(set, "requests_failed", failed, src)
  if num(load.count) then
    rm.put(set, "requests_incomplete", math.max(0, load.count - ok - failed), src)
  end
  if ok + failed > 0 then rm.put(set, "error_rate_pct", failed / (ok + failed) * 100, src) end

  local lat = type(succ.latency) == "table" and succ.latency or {}
  for _, e in ipairs(LATENCY) do
    local sd = lat[e[1]]
    for _, w in ipairs(WHICH) do
      local key = e[2] .. "_" .. w[1] .. "_ms"
      if require("llmd.metrics").has(key) then
        if ok == 0 or type(sd) ~= "table" then
          -- (no success: no latency, whatever figures the file holds beside its count of 0)
          rm.unknown(set, key, ok == 0 and "no successful requests"
            or ("the report has no %s (no streamed request with more than one token?)"):format(e[1]))
        elseif num(sd[w[2]]) then
          rm.put(set, key, sd[w[2]] * 1000, src, w[1] ~= "mean" and M.percentile_method or nil)
        elseif sd[w[2]] ~= nil then
          -- the key is there with no number (null, a string): the file is at fault, not
          -- the harness config's percentiles
          rm.unknown(set, key, ("%s.%s is %s in %s, not a number"):format(e[1], w[2],
            sd[w[2]] == json.null and "null" or type(sd[w[2]]), path:match("[^/]+$")))
        else
          rm.unknown(set, key, ("%s has no '%s' (percentiles are set in the harness config)"):format(e[1], w[2]))
        end
      end
    end
  end
  -- (NTPOT's mean, where the summary may count a success without output tokens as 0: N/A
  -- with the reason, M.ntpot_zeros; proven free of them, the source says so)
  local nt = lat.normalized_time_per_output_token
  local nt_zero = false
  if ok > 0 and type(nt) == "table" and set.values.ntpot_mean_ms then
    local why, fine, bracket, exact = M.ntpot_zeros(nt, ok)
    if exact then
      -- (exactly one 0 in it: the mean without it, over the other successes. A benchmark report
      -- written from this set (llmd.br) carries the summary's own statistic, its 0 min and its
      -- percentiles with it, set.ntpot_raw (s, these names), so that its reader takes the 0 out
      -- again by this rule and reads the same figure: the corrected mean alone, without a min,
      -- read N/A there, fixj45)
      set.ntpot_raw = {}
      for k, v in pairs(nt) do if k ~= "units" and num(v) then set.ntpot_raw[k] = num(v) end end
      set.values.ntpot_mean_ms = exact
      set.source.ntpot_mean_ms = ("%s (%s)"):format(set.source.ntpot_mean_ms, fine)
      set.counts.ntpot = ok - 1
      nt_zero = true
    elseif why then
      set.values.ntpot_mean_ms, set.source.ntpot_mean_ms, set.method.ntpot_mean_ms = nil, nil, nil
      rm.unknown(set, "ntpot_mean_ms", why)
      rm.put_bounds(set, "ntpot_mean_ms", bracket)
      nt_zero = true
      -- (the file has the statistic: no "stage lacks NTPOT" data check, llmd.harness)
      set.explained = set.explained or {}
      set.explained.ntpot = true
    else
      set.source.ntpot_mean_ms = ("%s (%s)"):format(set.source.ntpot_mean_ms, fine)
      -- (its min, for a benchmark report written from this set: llmd.br, whose reader applies
      -- this rule again)
      set.ntpot_min_s = num(nt.min)
    end
  end
  -- sample counts a stage mean is over, where the harness's definition fixes them: NTPOT
  -- has one value per success (none of them 0: else its mean is N/A, above); TTFT, TPOT and
  -- ITL only count streamed requests with more than one token time, which it does not say
  if ok > 0 and type(nt) == "table" then M.ntpot_percentile_zeros(set, nt, ok) end
  if type(nt) == "table" and not nt_zero then set.counts.ntpot = ok end
  -- request_latency likewise: one value per success
  if type(lat.request_latency) == "table" then set.counts.latency = ok end
  rm.latency_all_from_summary(set, failed, 0, src, M.percentile_method)

  local tp = type(succ.throughput) == "table" and succ.throughput or {}
  local t = num(d.benchmark_time_seconds)
  if t and t > 0 then
    rm.put(set, "duration_s", t, src)
  elseif num(tp.requests_per_sec) and tp.requests_per_sec > 0 then
    -- older builds write no benchmark_time_seconds: requests_per_sec = successes / time
    rm.put(set, "duration_s", ok / tp.requests_per_sec, src .. " (successes / requests_per_sec)")
  else
    rm.unknown(set, "duration_s", "no benchmark_time_seconds and no request rate")
  end
  if num(tp.requests_per_sec) then rm.put(set, "throughput_req_s", tp.requests_per_sec, src) end
  -- token rates are the catalogue's output_tokens_total / window: v0.5+ totals are the
  -- server's counts (its *_tokens_per_sec divide the client's), older builds have only
  -- the client's, and their rates
  local has_totals = type(succ.output_tokens) == "table" and num(succ.output_tokens.total)
  if not has_totals then
    if num(tp.output_tokens_per_sec) then rm.put(set, "throughput_tok_s", tp.output_tokens_per_sec, src) end
    if num(tp.total_tokens_per_sec) then rm.put(set, "throughput_total_tok_s", tp.total_tokens_per_sec, src) end
  end

  if ok == 0 then
    -- no request succeeded: nothing completed, at any window (inference-perf's rates are the
    -- successes over the time); a rate the file gives all the same contradicts its own count
    local said = num(tp.requests_per_sec)
    local why = said and said ~= 0 and (" (its requests_per_sec %g contradicts successes.count 0)"):format(said) or ""
    for _, k in ipairs { "throughput_req_s", "throughput_tok_s", "throughput_total_tok_s" } do
      rm.put(set, k, 0, src .. ": no request succeeded" .. why)
    end
  end

  local token_source = "client count (inference-perf's tokenizer)"
  if type(succ.prompt_tokens) == "table" and num(succ.prompt_tokens.total) then
    rm.put(set, "input_tokens_total", succ.prompt_tokens.total, src .. " (server usage)")
    token_source = "server usage"
  elseif type(succ.prompt_len) == "table" and num(succ.prompt_len.mean) then
    rm.put(set, "input_tokens_total", math.floor(succ.prompt_len.mean * ok + 0.5),
      src .. " (mean prompt length x successes)")
  end
  if type(succ.output_tokens) == "table" and num(succ.output_tokens.total) then
    rm.put(set, "output_tokens_total", succ.output_tokens.total, src .. " (server usage)")
  elseif type(succ.output_len) == "table" and num(succ.output_len.mean) then
    rm.put(set, "output_tokens_total", math.floor(succ.output_len.mean * ok + 0.5),
      src .. " (mean output length x successes)")
  end
  local dur = set.values.duration_s
  if has_totals and dur and dur > 0 then
    local out, inp = set.values.output_tokens_total, set.values.input_tokens_total
    rm.put(set, "throughput_tok_s", out / dur, src .. " (output_tokens.total / benchmark time)")
    if inp then
      rm.put(set, "throughput_total_tok_s", (inp + out) / dur, src .. " (token totals / benchmark time)")
    end
  end
  return token_source
end

-- failures.by_label (v0.6.1): {label = {count, messages = [{message}]}}
local function map_errors(groups, d)
  local fail = d.failures
  local by = type(fail.by_label) == "table" and fail.by_label or nil
  local n = 0
  if by then
    local labels = {}
    for label in pairs(by) do labels[#labels + 1] = label end
    table.sort(labels)
    for _, label in ipairs(labels) do
      local e = by[label]
      local msgs = type(e) == "table" and e.messages
      local example = type(msgs) == "table" and type(msgs[1]) == "table" and msgs[1].message or nil
      local code = tostring(label):match("^(%d%d%d) ")
      local what = code and label:gsub("^%d%d%d %- ", "") or label
      local count = num(e.count) or 0
      groups.add(code and tonumber(code), what .. (example and (": " .. rm.error_text(example)) or ""), count)
      n = n + count
    end
  end
  if (num(fail.count) or 0) > n then
    groups.add(nil, "cause not recorded (this inference-perf version writes only a count)", fail.count - n)
  end
end

-- One streaming pass over the per-request file. keep(start) says whether a request counts.
local function per_request(path, acc, keep, opts)
  local groups = opts.groups
  local inexact_itl = false
  -- (passed to record as its arguments, in this order: no table a request; the last
  -- one is left out in the fast lane, below)
  local F = {
    "start_time", "end_time", "error.error_type", "error.error_msg",
    "info.response_metrics.output_tokens", "info.response_metrics.server_usage.completion_tokens",
    "info.response_metrics.server_usage.prompt_tokens", "info.request_metrics.text.input_tokens",
    "info.input_tokens", "info.response_metrics.output_token_times[0]",
    "#info.response_metrics.output_token_times", "info.response_metrics.output_token_times[-1]",
  }
  local fast = keep == nil
  local itl_all = stats.new(opts.sketch and { sketch = opts.sketch } or nil)
  -- The last token time: a [-1] field keeps the scanner from reading the token times
  -- in its fast lane (it would have to remember every element as possibly the last),
  -- which doubles the cost of the pass. When the gaps are reduced here (every element
  -- must be a number, or the pass fails), a "last" reduction of the same array gives
  -- the same number: it lands in `lasts` at the array's end, before its record's
  -- callback, which takes it (0 or 1 value: max is that value, exactly) and empties it
  -- (one call: take_max).
  local last_field, lasts = "info.response_metrics.output_token_times[-1]", nil
  if fast then
    lasts = stats.new()
    for i, f in ipairs(F) do
      if f == last_field then table.remove(F, i); break end
    end
  end
  local take_max = stats.new().take_max -- (the method)
  -- (fast lane: every request's token gaps land in itl_all in file order, as the scanner
  -- reduces them; gaps_seen counts them, so that a request's gaps are samples goff + 1 ..
  -- goff + gn of itl_all, which its load point takes after the pass (stats add_range))
  local gaps_seen = 0
  opts.itl_all = fast and itl_all or nil
  -- (what the callback reaches each request, as upvalues: issue 20, each table look-up
  -- a request costs all the requests)
  local add_done, count_goodput, per_stage, pace = acc.add_done, opts.count_goodput, opts.per_stage, opts.pace
  -- (opts.log: each request's start, finish, TTFT (false: none; true: a failure) and TPOT
  -- (false: none) kept in file order, for the caller to place in stages after the pass)
  local log = opts.log and opts.log.push
  local n_server, n_client = 0, 0
  -- (opts.seq: the accumulator's requests in file order with their starts, filled here for
  -- the successes added in C (llmd.runmodel.accumulator's seq, which add_done fills for the
  -- others): the design effects of a one-stage run, which the accumulators cannot give, as
  -- they sort their samples)
  local seq, seq_max = opts.seq, rm.SEQ_MAX
  local seq_push = seq and seq.push
  -- (and their outcomes, 0 completed, in the same order as the failures acc.add records: the
  -- error rate's design effect, which counted the failures alone when the successes added
  -- in C were left out of it, 1 whatever their bursts)
  local out_seq = seq and seq.outcome
  local out_push = out_seq and out_seq.push
  -- A success of the fast lane is computed and added in C (stats.request_adder: the
  -- same formulas as below, the same values; issue 20: in Lua they, the counts and the
  -- window were half of this callback's cost), its counts and window added to acc after
  -- the pass. Not when goodput is judged here (it needs the request's values), nor for
  -- a request it does not take as it is (say, a start_time that is not a number): the
  -- code below handles (or refuses) that one.
  local add_request, request_totals
  if fast and not count_goodput and not acc.goodput then
    -- (the last token time taken from lasts in the same call)
    add_request, request_totals = stats.request_adder { e2e = acc.e2e, e2e_all = acc.e2e_all, ttft = acc.ttft,
      tpot = acc.tpot, ntpot = acc.ntpot, in_len = acc.in_len, out_len = acc.out_len, last = lasts }
  end
  local type = type
  local function record(start, finish, etype, emsg, client, out, prompt_tok, text_in, info_in, t0, ntimes, tn)
    local goff, gn = gaps_seen, 0
    if fast and type(ntimes) == "number" and ntimes > 1 then
      gn = ntimes - 1
      gaps_seen = goff + gn
    end
    if add_request and etype == nil then
      local e2e, ttft, tpot = add_request(start, finish, t0, nil, ntimes, client, text_in or info_in or prompt_tok,
        out or client)
      if e2e then
        if out then n_server = n_server + 1 elseif client then n_client = n_client + 1 end
        -- (NTPOT as below: unknown without output tokens, as the adder left it out)
        local nc = type(client) == "number" and client or 0
        local ntpot = nc > 0 and e2e / nc or nil
        if seq then
          local n = seq.n + 1
          if n <= seq_max then
            seq.n = n
            seq_push(start, ttft or false, e2e, tpot or false, ntpot or false)
          end
          if out_seq then
            n = out_seq.n + 1
            if n <= seq_max then
              out_seq.n = n
              out_push(start, 0)
            end
          end
        end
        local inp, o = text_in or info_in or prompt_tok, out or client
        if log then
          log(start, finish, ttft or false, tpot or false, ntpot or false, inp or false, o or false, goff, gn)
          return
        end
        if per_stage then per_stage(start, finish, e2e, ttft, tpot, ntpot, inp, o, goff, gn) end
        if pace then pace(start, finish, finish, finish - start, start, finish - start) end
        return
      end
    end
    if lasts then tn = take_max(lasts) end
    if type(start) ~= "number" or type(finish) ~= "number" then
      error(("%s: a request without numeric start_time/end_time (request %d)")
        :format(path, acc.ok + acc.failed + (request_totals and request_totals().count or 0) + 1), 0)
    end
    if keep and not keep(start) then return end
    if etype ~= nil then
      local code = tostring(etype):match("HTTP Error (%d%d%d)")
      local status, text = code and tonumber(code) or tostring(etype), rm.error_text(emsg)
      groups.add(status, text)
      -- (each failure's start and kind, for its load point's causes: placed after the pass)
      local fails = opts.failures
      if fails then fails[#fails + 1] = { start, rm.error_kind(status, text), status, text } end
      acc.add { ok = false, start = start, finish = finish }
      if count_goodput then count_goodput(start, false) end
      if log then log(start, finish, true, false, false, false, false, goff, gn) end
      if per_stage then per_stage(start, finish) end
      if pace then pace(start, finish, false, finish - start, false, false) end
      if (ntimes or 0) > 1 then inexact_itl = true end
      return
    end
    -- inference-perf's own formulas (summarize_requests), so that this path gives its
    -- summaries: totals count the server's completion tokens (the client's count when the
    -- server sent none); TPOT and NTPOT divide by the client's count; TTFT, TPOT and ITL
    -- need more than one token time. NTPOT is unknown for a success without output
    -- tokens (left out of NTPOT's samples, as a TPOT it has not is): inference-perf enters
    -- it as 0 (compute_request_latency_metrics: `... if ntpot_output_tokens > 0 else 0.0`,
    -- kept in summarize_requests' NTPOT summary), a value no request had, which pulls the
    -- NTPOT mean and low percentiles down; the warning after the pass says how many
    if out then n_server = n_server + 1
    else
      out = client
      if out then n_client = n_client + 1 end
    end
    local inp = text_in or info_in or prompt_tok
    ntimes = ntimes or 0
    local e2e = finish - start
    local n = type(client) == "number" and client or 0
    if n <= 0 then opts.zero_tokens = (opts.zero_tokens or 0) + 1 end
    local ttft = ntimes > 1 and t0 - start or nil
    local tpot = (ntimes > 1 and n > 1) and (tn - t0) / (n - 1) or nil
    local ntpot = n > 0 and e2e / n or nil
    if count_goodput or acc.goodput then
      -- (judged per request: one token time is still its TTFT, and one token no decode to
      -- hold to a TPOT; runmodel.request_good)
      local q = { ok = true, start = start, finish = finish, e2e = e2e, ttft = ttft, tpot = tpot, ntpot = ntpot,
        in_tok = inp, out_tok = out, ttft_one = ntimes == 1 and type(t0) == "number" and t0 - start or nil,
        single = type(client) == "number" and client <= 1 }
      acc.add(q)
      if count_goodput then count_goodput(start, q) end
    else
      add_done(start, finish, e2e, ttft, tpot, ntpot, inp, out)
    end
    if log then
      log(start, finish, ttft or false, tpot or false, ntpot or false, inp or false, out or false, goff, gn)
    end
    if per_stage then per_stage(start, finish, e2e, ttft, tpot, ntpot, inp, out, goff, gn) end
    if pace then pace(start, finish, finish, finish - start, start, finish - start) end
  end
  local rules = { { "$[*]", record, fields = F, args = true } }
  if fast then
    rules[2] = { "$[*].info.response_metrics.output_token_times", itl_all, reduce = "diffs" }
    rules[3] = { "$[*].info.response_metrics.output_token_times", lasts, reduce = "last" }
  end
  scan.json(path, rules)
  tl.mark("per-request file read")
  if request_totals then -- (what add_done would have counted of those requests)
    local t = request_totals()
    acc.ok = acc.ok + t.count
    acc.in_tok, acc.out_tok = acc.in_tok + t.in_tok, acc.out_tok + t.out_tok
    if t.in_missing > 0 then acc.in_known = false end
    if t.out_missing > 0 then acc.out_known = false end
    acc.window(t.first, t.last)
    if t.zero_tokens > 0 then opts.zero_tokens = (opts.zero_tokens or 0) + t.zero_tokens end
  end
  -- (the gaps counted are the gaps reduced, or no request's range can be trusted)
  if fast and (itl_all:relative_error() or gaps_seen ~= itl_all:count()) then opts.itl_all = nil end
  if fast and not inexact_itl then
    -- the pass's own accumulator is the run's when the run has none yet (one per-request
    -- file: the same samples, sums and extremes as a merge would give, without a copy
    -- of every gap)
    if acc.itl:count() == 0 then acc.itl = itl_all else acc.itl:merge(itl_all) end
  else
    -- a failed request streamed tokens, or stages are excluded: pool the gaps of the
    -- requests that count only (a second pass, token times decoded in Lua)
    -- (opts.itl_stage(start, times): a counted request's token times, for its load point
    -- where the pass above gave no ranges of gaps)
    local itl_stage = not opts.itl_all and opts.itl_stage
    scan.json(path, { { "$[*]", function(r)
      if r["error.error_type"] ~= nil then return end
      if keep and not keep(r.start_time) then return end
      local t = r["info.response_metrics.output_token_times"]
      if type(t) == "table" then
        for i = 2, #t do acc.itl:add(t[i] - t[i - 1]) end
        if itl_stage then
          itl_stage(r.start_time, t)
          opts.itl_staged = true
        end
      end
    end, fields = { "start_time", "error.error_type", "info.response_metrics.output_token_times" } } })
  end
  if n_client == 0 and n_server > 0 then
    return "server usage"
  elseif n_server == 0 and n_client > 0 then
    return "client count (inference-perf's tokenizer)"
  elseif n_server > 0 then
    return ("server usage (client count for %d request%s without usage)"):format(n_client,
      n_client == 1 and "" or "s")
  end
  return "unknown (no completed request)"
end

-- Start-time windows of the stages, from the stage files' request counts: stages run one
-- after the other, so the k-th block of requests in start order is stage k.
-- starts: every request's start time (left as it is: their order is found in C, issue 20,
-- or, where a start is not a number, by table.sort of a copy, which raises as it did).
local function windows(starts, path, stages, run)
  -- (a column, freed as this returns: Lua's collector counts a column as its handle alone,
  -- and let 2.4 MB of 300,000 requests' order stay until much later)
  local order <close> = stats.order(starts)
  if not order then
    starts = table.move(starts, 1, #starts, 1, {})
    table.sort(starts)
  end
  local total = 0
  for _, st in ipairs(stages) do
    if not st.requests.total then
      error(("%s: stage %d has no load_summary.count; cannot place per-request data in stages")
        :format(run.files[1], st.index), 0)
    end
    total = total + st.requests.total
  end
  if total ~= #starts then
    error(("%s: %d requests, but the stage files count %d; cannot tell which requests are warm-up")
      :format(path, #starts, total), 0)
  end
  local bounds, cum = {}, 0
  for i, st in ipairs(stages) do
    local k = cum + 1 -- (the k-th start in time order; none past the last)
    local lo = starts[k]
    if order then lo = order[k] and starts[order[k]] end
    bounds[i] = { lo = lo, warmup = st.warmup }
    cum = cum + st.requests.total
  end
  -- (each stage's least start in a list of its own, false for none: which runs once a
  -- request, issue 20)
  local los, nb = {}, #bounds
  for i, b in ipairs(bounds) do los[i] = b.lo or false end
  local function which(start)
    for i = nb, 1, -1 do
      local lo = los[i]
      if lo and start >= lo then return i end
    end
  end
  return function(start)
    local i = which(start)
    return i ~= nil and not bounds[i].warmup
  end, which, los
end

-- The same, from the start times read off the per-request file in a pass of their own.
local function stage_windows(path, stages, run)
  local starts = {}
  scan.json(path, { { "$[*].start_time", function(v) starts[#starts + 1] = v end } })
  return windows(starts, path, stages, run)
end

-- the stage indexes extract will give, from the stage files' names (nil without any)
function M.stage_indexes(c)
  if #c.stages == 0 then return nil end
  local t = {}
  for _, s in ipairs(c.stages) do t[#t + 1] = s.index end
  return t
end

-- The summary and the stage files are one run's: the summary's request counts are the stages'
-- summed (inference-perf writes both from the same requests). Where they differ (a file edited,
-- or copied from another run) the files contradict each other: the summary's whole-run figures
-- would describe requests the stage rows do not hold, so a run whose stages all failed could
-- read as a good run. Then the disagreement is a data check naming both files and fields, and
-- the whole run is the stages' (request-level data, llmd.runmodel.combine), so the whole-run
-- rows agree with the stage rows. true when they disagree.
function M.summary_disagrees(run, c, summary, measured)
  if #measured == 0 then return false end
  -- (a stage file left out, --tolerant: the stages no longer sum to the whole run, as said)
  if #run.stages < #c.stages then return false end
  for _, u in ipairs(c.unreadable or {}) do
    if u:find("/stage_%d+_lifecycle_metrics%.") then return false end
  end
  local rep = rm.set()
  local okr = pcall(map_report, rep, summary, c.summary)
  if not okr then return false end -- (the summary's own error is raised where it is read)
  local FIELDS = { { "requests_ok", "successes.count" }, { "requests_failed", "failures.count" } }
  local diffs, counts = {}, {}
  for _, f in ipairs(FIELDS) do
    local sum = 0
    for _, st in ipairs(measured) do
      local v = st.metrics.values[f[1]]
      if v == nil then sum = nil; break end
      sum = sum + v
    end
    local said = rep.values[f[1]]
    if sum and said and sum ~= said then
      diffs[#diffs + 1] = ("%s %d in the summary, %d in the stage files"):format(f[2], said, sum)
      counts[#counts + 1] = { field = f[2], summary = said, stages = sum }
    end
  end
  if #diffs == 0 then return false end
  local first, last = measured[1].file or "", measured[#measured].file or ""
  local stages = #measured == 1 and first:match("[^/]+$")
    or ("%s to %s"):format(first:match("[^/]+$"), last:match("[^/]+$"))
  local text = ("the result files disagree: %s against %s (summed): %s; the whole run's figures are the stage "
    .. "files' (the request counts of each load point), not the summary's"):format(
    c.summary:match("[^/]+$"), stages, table.concat(diffs, "; "))
  rm.warn(run, "%s", text)
  run.checks = run.checks or {}
  -- (counts: each count the two disagree on, which the Verdict's warning names,
  -- llmd.report.counts_disagree_text)
  run.checks[#run.checks + 1] = { kind = "files_disagree", key = "requests_ok", source = c.summary:match("[^/]+$"),
    text = text, resolved = true, counts = counts }
  return true
end

-- Stages whose offered rates fall out of the ladder's order: inference-perf runs its stages in
-- the order its config lists them, and a ladder rises, so a stage offered less than the one
-- before it, at a rate no earlier stage was offered (within 1 %: a fall back to a rate measured
-- before is a repeated sweep, 10, 20, 30, 10, 20, 30), is out of place: a stage file of another
-- run, most likely (newuser55 #1: B's stage 3 at 127.75 req/s between A's 61.79 and 122.59), or
-- a ladder listed so. A data check naming both stages and their rates (kind "ladder_order",
-- stage = the index of the one before the fall), never a refusal: a falling ladder may be meant.
function M.check_ladder_order(run)
  local lp = require "llmd.loadpoints"
  local seen = {}
  for i, st in ipairs(run.stages) do
    local prev = run.stages[i - 1]
    if prev and type(st.rate) == "number" and type(prev.rate) == "number" and st.rate < prev.rate
      and not lp.close(st.rate, prev.rate) then
      local before = false
      for _, r in ipairs(seen) do if lp.close(r, st.rate) then before = true end end
      if not before then
        local text = ("the offered rates are out of ladder order: stage %d (%s) was offered %g req/s, then stage %d "
          .. "(%s) %g req/s, a load no stage before it was offered; inference-perf runs its stages in the order its "
          .. "config lists them, and a ladder rises, so one of them may be another run's stage file (or the ladder was "
          .. "listed so)"):format(prev.index, tostring(prev.file or ""):match("[^/]+$") or "?", prev.rate, st.index,
          tostring(st.file or ""):match("[^/]+$") or "?", st.rate)
        rm.warn(run, "%s", text)
        run.checks = run.checks or {}
        run.checks[#run.checks + 1] = { kind = "ladder_order", stage = prev.index, rate = prev.rate,
          next_stage = st.index, next_rate = st.rate, text = text }
      end
    end
    if type(st.rate) == "number" then seen[#seen + 1] = st.rate end
  end
end

function M.extract(c, opts)
  opts = opts or {}
  local run = rm.start(M, c)
  table.sort(c.stages, function(a, b) return a.index < b.index end)
  local token_source
  for _, s in ipairs(c.stages) do
    -- a stage file that cannot be read as one (truncated, corrupt): with --tolerant that
    -- load point is left out, said in the data checks
    local st = rm.stage(s.index)
    local ok, d, ts = rm.tolerate(run, opts, s.path, function()
      local doc = rm.load(s.path)
      return doc, map_report(st.metrics, doc, s.path)
    end)
    if ok then
      token_source = ts
      st.file = s.path
      local load = type(d.load_summary) == "table" and d.load_summary or {}
      st.rate = num(load.requested_rate) and load.requested_rate > 0 and load.requested_rate or nil
      st.concurrency = num(load.concurrency) or num(load.num_sessions)
      -- load_summary.achieved_rate is count / send_duration: the rate requests were SENT,
      -- not completed; the stage's achieved rate is the catalogue's (llmd.harness)
      st.send_rate = num(load.achieved_rate)
      st.duration = st.metrics.values.duration_s
      st.send_duration = num(load.send_duration)
      st.requests = { total = num(load.count), ok = st.metrics.values.requests_ok,
        failed = st.metrics.values.requests_failed }
      st.drain = drain_record(d, st)
      st.doc = d
      -- (a window less its least latency shorter than its send span: no run's, as the last
      -- request is answered at least the least latency after it is sent; its drain-reduced
      -- rate is taken over the send span, llmd.loadpoints.drain_rates, said here)
      local x = st.drain
      if x and x.send_span_s and x.send_span_s > 0
        and x.window_s - x.least_latency_s < x.send_span_s - 1e-6 * math.max(1, x.window_s) then
        rm.warn(run, "%s%s: its window (%.3f s, successes / requests_per_sec) less its least latency (%.3f s) is "
          .. "shorter than its send span (%.3f s), which no run's is (the last request is answered at least the least "
          .. "latency after it is sent): the file contradicts itself, so its drain-reduced rate is completed / send "
          .. "span (%.2f req/s), the most these figures allow, not completed / (window - least latency) (%.2f req/s)",
          s.path:match("[^/]+$"), st.rate and (" (%g req/s offered)"):format(st.rate) or "", x.window_s,
          x.least_latency_s, x.send_span_s, x.completed / x.send_span_s, x.completed / (x.window_s - x.least_latency_s))
      end
      -- what its failures were, as its file's failures.by_label says (a count alone: unknown);
      -- the per-request file's, where it is read, replace them
      if type(d.failures) == "table" then map_errors(rm.stage_errors(rm.error_groups(), st), d) end
      -- (a data check of its own: the stage's latencies are N/A, as of no success, but the
      -- figures its file holds say requests did succeed, so its count may be the fault)
      local said = latency_without_successes(d)
      if said then
        rm.warn(run, "%s: successes.count is 0, yet successes.latency holds figures (%s), which inference-perf "
          .. "writes as null where no request succeeded: the file contradicts itself (edited, or cut and mended?), "
          .. "so load point %d's count of 0 successes may be the fault; its latencies are N/A, as for no success",
          s.path:match("[^/]+$"), said, s.index)
        run.checks = run.checks or {}
        run.checks[#run.checks + 1] = { kind = "latency_without_successes", key = "requests_ok", stage = s.index,
          file = s.path, text = run.warnings[#run.warnings], resolved = true }
      end
      run.stages[#run.stages + 1] = st
    end
  end
  rm.finish_stages(run, opts)
  M.check_ladder_order(run)
  local measured = rm.measured(run)
  local excluded = #measured < #run.stages
  local groups = rm.error_groups()

  local summary
  if c.summary then
    local ok, d = rm.tolerate(run, opts, c.summary, rm.load, c.summary)
    if ok then summary = d end
  end
  -- the per-request file, streamed once; with --tolerant one that cannot be read to its
  -- end is left out (what it had added is dropped with it) and the stage and summary
  -- files are used, as for a run without one
  local per_path = c.per_request
  local acc, po, counts, goodput_warning, stage_warning
  local place_failure -- (the stage a request's start puts it in, for its failure's kind)
  local by_stage, paces = {}, {}
  if per_path then
    acc = rm.accumulator(opts)
    po = { groups = groups, sketch = opts.sketch, failures = {} }
    counts = {}
    -- a request's figures in stage i, every one the stage's figures come from (its stage file
    -- is only checked against them): an accumulator a stage, as the whole run's
    -- (llmd.runmodel.accumulator: counts, window, tokens, every latency's samples and their
    -- order); the pace of answers against sends (llmd.loadpoints.saturation) is every
    -- request's start and finish in its stage (three exact accumulators a stage, added to in C)
    -- (e2e nil: a failed request; goff, gn: its token gaps are samples goff + 1 .. goff + gn
    -- of the pass's pooled gaps, po.itl_all, which it hands over (stats add_range), or the
    -- second pass adds them, po.itl_stage)
    local function stage_of(i)
      local g = by_stage[i]
      if not g then
        g = { acc = rm.accumulator(), gaps_ok = true }
        by_stage[i] = g
      end
      return g
    end
    local function stage_add(i, start, finish, e2e, ttft, tpot, ntpot, inp, out, goff, gn)
      local g = stage_of(i)
      if not e2e then
        g.acc.add { ok = false, start = start, finish = finish }
        return
      end
      g.acc.add_done(start, finish, e2e, ttft, tpot, ntpot, inp, out)
      local all = po.itl_all
      if all and gn and gn > 0 then
        -- (the request's gaps are the last gn the pass reduced, or it is after the pass and
        -- they lie within what it reduced)
        if goff + gn <= all:count() then g.acc.itl:add_range(all, goff + 1, goff + gn) else g.gaps_ok = false end
      end
    end
    local function pace_of(i)
      local g = paces[i]
      if not g then
        -- (start, finish, finish or false, latency, and a success's start and latency:
        -- llmd.runmodel.pace's slope, through the successes)
        g = rm.pace_accumulators()
        paces[i] = g
      end
      return g
    end
    local ok, ts = rm.tolerate(run, opts, per_path, function()
      -- Requests are placed in stages by their start times (the k-th block in start order is
      -- stage k, by the stage files' counts). Where a request must be placed while the file
      -- is read (warm-up stages left out, or goodput counted per stage), the start times are
      -- read first, in a pass of their own; else every request's start, finish and TTFT are
      -- kept as it is read and placed after the pass (issue 20: no second pass over the file,
      -- no Lua call a request for it); one stage takes every request, added in C as read.
      local keep, which
      if excluded then
        keep, which = stage_windows(per_path, run.stages, run)
        if #run.stages == 1 then which = nil end -- (one stage: it takes every request)
      end
      local log
      if #run.stages > 1 and not which then
        if opts.goodput then
          local okw, res, w = pcall(stage_windows, per_path, run.stages, run)
          if okw then which = w else goodput_warning = tostring(res) end
        else
          -- (in C columns: 8 bytes a value, issue 20)
          log = { starts = stats.column(), finishes = stats.column(), ttfts = stats.column(),
            tpots = stats.column(), ntpots = stats.column(), ins = stats.column(), outs = stats.column(),
            goffs = stats.column(), gns = stats.column() }
          log.push = stats.appender(log.starts, log.finishes, log.ttfts, log.tpots, log.ntpots, log.ins, log.outs,
            log.goffs, log.gns)
          po.log = log
        end
      end
      if which then
        local place = which
        po.per_stage = function(start, finish, e2e, ttft, tpot, ntpot, inp, out, goff, gn)
          local i = place(start)
          if i then stage_add(i, start, finish, e2e, ttft, tpot, ntpot, inp, out, goff, gn) end
        end
        -- (the second pass's token times, where the first gave no ranges of gaps)
        po.itl_stage = function(start, times)
          local i = place(start)
          if i then
            local itl = stage_of(i).acc.itl
            for k = 2, #times do itl:add(times[k] - times[k - 1]) end
          end
        end
        po.pace = function(start, finish, fin)
          local i = place(start)
          if i then pace_of(i).add(start, finish, fin, finish - start, fin and start, fin and finish - start) end
        end
      elseif #run.stages == 1 then
        po.pace = pace_of(1).add
      end
      -- one load point (or none named): its requests' order, for the design effects of the
      -- whole run (a sweep's are its stages')
      if not which and #run.stages <= 1 then po.seq = acc.seq end
      place_failure = which or #run.stages == 1 and function() return 1 end or nil
      if not opts.goodput then which = nil end
      if which then
        po.count_goodput = function(start, q)
          local i = which(start)
          if not i then return end
          local g = counts[i] or { good = 0, total = 0, ok = 0 }
          counts[i] = g
          g.total = g.total + 1
          if q then g.ok = g.ok + 1 end
          if q and rm.request_good(opts.goodput, q) then
            g.good = g.good + 1
          elseif q then
            local what = rm.request_unjudged(opts.goodput, q)
            if what then g.unjudged, g.what = (g.unjudged or 0) + 1, g.what or what end
          end
        end
      end
      local source = per_request(per_path, acc, keep, po)
      if paces[1] and paces[1].starts:count() == 0 then paces[1] = nil end -- (one stage, no request)
      if log then
        local S = log.starts
        local okw, res, place, los = pcall(windows, S, per_path, run.stages, run)
        if okw then
          place_failure = place
          -- (stage_add and pace_of's add, as they would be called, in one C call: each row
          -- placed by los as place places it, a stage's accumulators met through sink the
          -- first time a row lands there; issue 20, this loop in Lua, with calls into C a
          -- request, was a sixth of compare.lua's CPU on a run of many short requests)
          -- (a stage's gaps that are one range of the pass's, in file order, are taken as runs of
          -- that range counted, not copied: issue 20, the copy was 4 bytes of fresh memory a gap, a
          -- fault in the host a page, and its own sort, a quarter of compare.lua's CPU on the bench
          -- pair; and the whole run's, when every gap is in such a stage, as their runs merged, so
          -- no longer in file order: the variance rm.fill asks of them in that order (a sample with
          -- its requests' order, acc.seq) is taken first; else they are sorted before any is asked)
          local all = po.itl_all
          if all and all == acc.itl and acc.seq.n > 0 then all:variance(1) end
          stats.place_rows({ S, log.finishes, log.ttfts, log.tpots, log.ntpots, log.ins, log.outs, log.goffs,
            log.gns }, los, all or false, rm.SEQ_MAX, function(i) return stage_of(i), pace_of(i) end, true)
        else
          stage_warning = tostring(res)
        end
      end
      return source
    end)
    if ok then
      token_source = ts
    else
      per_path = nil
      groups = rm.error_groups() -- (the causes it had counted go with it)
    end
  end
  if per_path then
    if goodput_warning then rm.warn(run, "goodput per load point: %s", goodput_warning) end
    for i, st in ipairs(run.stages) do
      if paces[i] then st.pace = rm.pace_of(paces[i]) end
    end
    -- each load point's failures by kind (llmd.runmodel.error_kind), from its requests
    -- (unknown where they could not be placed in stages: the stage files' stay)
    if place_failure then
      -- (and by cause, as the run's errors: each stage's own, rm.stage_causes)
      for _, st in ipairs(run.stages) do
        st.failure_kinds, st.error_groups = { timeout = 0, error = 0, unknown = 0 }, rm.error_groups()
      end
      for _, f in ipairs(po.failures) do
        local st = run.stages[place_failure(f[1]) or 0]
        if st then
          st.failure_kinds[f[2]] = st.failure_kinds[f[2]] + 1
          st.error_groups.add(f[3], f[4])
        end
      end
    end
    -- (why TTFT or TPOT is unknown, in inference-perf's own rule, true whether the requests
    -- were not streamed, streamed one token time each, or came without the client's count)
    local WHY = {
      ttft = "no success with more than one token time (inference-perf gives TTFT only to those: not streamed, or "
        .. "one token time each)",
      tpot = "no success with more than one token time and a client's output token count above 1 (inference-perf's "
        .. "rule for TPOT)" }
    rm.fill(run.overall, acc, opts.percentile_method or "linear", WHY)
    tl.mark("per-request metrics (sorted, percentiles)")
    -- (the harness's summaries count those NTPOTs as 0, so their NTPOT mean is not checked
    -- against the one here: they would disagree by design, not for a fault of the files)
    local zero = (po.zero_tokens or 0) > 0
    if zero then
      local one = po.zero_tokens == 1
      rm.warn(run, "%s: %d successful request%s an output token count of 0 (or none); %s NTPOT is unknown, left "
        .. "out of the NTPOT figures (inference-perf's own summaries count it as 0, so their NTPOT mean is not "
        .. "checked against these)", c.per_request, po.zero_tokens, one and " has" or "s have",
        one and "its" or "their")
    end
    local function checked(keys)
      if not zero then return keys end
      local out = {}
      for _, k in ipairs(keys) do
        if k ~= "ntpot_mean_ms" then out[#out + 1] = k end
      end
      return out
    end
    -- a load point's figures (counts, window, rates, tokens, and every latency's mean and
    -- percentiles: E2E, TTFT, TPOT, ITL, NTPOT) come from the requests the per-request file
    -- places in it, as the whole run's do: its stage file's are only checked against them, as
    -- the whole run's are against the summary below, and a stage file that disagrees is named
    -- in the Data checks. One file's figure for a point and the other's for the whole run (or
    -- for another figure of the same point) would let a stage file that disagrees with the
    -- requests decide a capacity the Performance table contradicts. A one-stage run's one
    -- stage is the whole run. (Under --sketch no request's token gaps are kept apart: the
    -- stage file's ITL is kept, checked against the requests' mean gap.)
    if stage_warning then
      rm.warn(run, "per-stage check: %s, so the stage files' figures are not checked against the per-request data",
        stage_warning)
    end
    local method = opts.percentile_method or "linear"
    local CHECKED = checked { "requests_ok", "requests_failed", "duration_s", "throughput_req_s",
      "throughput_tok_s", "ttft_mean_ms", "ttft_p90_ms", "latency_p90_ms", "tpot_mean_ms", "itl_mean_ms",
      "ntpot_mean_ms" }
    local function take(st, comp, itl_ok)
      rm.crosscheck(run, comp, st.metrics, CHECKED,
        ("stage %d's %s"):format(st.index, (st.file or ""):match("[^/]+$") or "stage file"))
      local keep_itl = not itl_ok and st.metrics.values.itl_mean_ms ~= nil
      for _, m in ipairs(require("llmd.metrics").list) do
        local k = m.key
        if not (keep_itl and k:match("^itl_")) and (comp.values[k] ~= nil or comp.na[k] ~= nil) then
          st.metrics.values[k], st.metrics.na[k] = comp.values[k], comp.na[k]
          st.metrics.source[k], st.metrics.method[k] = comp.source[k], comp.method[k]
        end
      end
      for p, n in pairs(comp.counts) do
        if not (keep_itl and p == "itl") then st.metrics.counts[p] = n end
      end
      st.metrics.samples, st.metrics.sample_deff = comp.samples, comp.sample_deff
      if keep_itl then st.metrics.samples = { latency = comp.samples.latency, ttft = comp.samples.ttft,
        tpot = comp.samples.tpot } end
      st.metrics.token_lengths = comp.token_lengths
      local v = st.metrics.values
      st.duration = v.duration_s
      st.requests.ok, st.requests.failed = v.requests_ok, v.requests_failed
    end
    for i, st in ipairs(run.stages) do
      local g = by_stage[i]
      if g and not st.warmup then
        local comp = rm.set()
        rm.fill(comp, g.acc, method, WHY)
        take(st, comp, g.gaps_ok and (po.itl_all ~= nil or po.itl_staged == true))
      end
    end
    -- (one stage, measured: the whole run's figures are its)
    local one_stage = #run.stages == 1 and not excluded and not by_stage[1] and run.stages[1] or nil
    if one_stage then
      local comp = rm.set()
      for _, k in ipairs { "values", "na", "source", "method", "counts" } do
        for key, v in pairs(run.overall[k]) do comp[k][key] = v end
      end
      comp.samples, comp.sample_deff, comp.token_lengths = run.overall.samples, run.overall.sample_deff,
        run.overall.token_lengths
      take(one_stage, comp, true)
    end
    -- (goodput over the point's window, the requests' own)
    for i, st in ipairs(run.stages) do
      local g = counts[i]
      if g then
        st.metrics.goodput = g.ok > 0 and g.unjudged == g.ok and { unknown = rm.unjudged_text(g.ok, g.what) }
          or { good = g.good, total = g.total, duration_s = st.metrics.values.duration_s }
      end
    end
    if summary and not excluded then
      local rep = rm.set()
      map_report(rep, summary, c.summary)
      rm.crosscheck(run, run.overall, rep, checked {
        "requests_ok", "requests_failed", "throughput_req_s", "throughput_tok_s", "ttft_mean_ms",
        "ttft_p90_ms", "latency_p90_ms", "tpot_mean_ms", "itl_mean_ms", "ntpot_mean_ms",
      }, "summary_lifecycle_metrics.json")
    end
  elseif summary and not excluded and not M.summary_disagrees(run, c, summary, measured) then
    token_source = map_report(run.overall, summary, c.summary)
    map_errors(groups, summary)
  elseif #measured == 1 then
    for k, v in pairs(measured[1].metrics) do run.overall[k] = v end
    map_errors(groups, measured[1].doc)
  elseif #measured > 1 then
    rm.combine(run, measured)
    for _, st in ipairs(measured) do map_errors(groups, st.doc) end
  elseif #run.stages == 0 then
    rm.fail(run, "no result file of this run could be read (each was left out: see the data checks)")
  else
    rm.fail(run, "every stage is marked warm-up: nothing is measured")
  end
  for _, st in ipairs(run.stages) do st.doc = nil end
  -- no stage file: the requests are one whole run, no stage (no load point), and why, one line
  -- (extract.lua's "Stages: none (...)", the JSON's stages_why)
  if #c.stages == 0 and #run.stages == 0 then
    run.stages_why = ("no stage_<N>_lifecycle_metrics.json beside %s: inference-perf's stage files give the stages "
      .. "(each one's load and request count), and its per-request file records no stage or load, so the requests are "
      .. "one whole run"):format(c.per_request and "per_request_lifecycle_metrics.json" or "its summary")
  end
  -- the configuration inference-perf wrote beside its reports
  local cfg_path = c.dir .. "/config.yaml"
  local cfg
  if require("lfs").attributes(cfg_path, "mode") == "file" then
    cfg = rm.load(cfg_path)
    local server = type(cfg) == "table" and type(cfg.server) == "table" and cfg.server or {}
    rm.config(run, "model", server.model_name, cfg_path)
    -- (the model the results name, as every reader sets it: llmd.decision.model_of)
    if type(server.model_name) == "string" and server.model_name ~= "" then run.model = server.model_name end
    rm.config(run, "server", server.type, cfg_path)
    rm.config(run, "target", server.base_url, cfg_path)
    local load = type(cfg) == "table" and type(cfg.load) == "table" and cfg.load or {}
    rm.config(run, "profile", load.type, cfg_path)
    -- (its data:, whose token lengths llmd.comparison.check_config_lengths holds the requests to)
    if type(cfg) == "table" and type(cfg.data) == "table" then
      run.data_config = { data = cfg.data, file = cfg_path:match("[^/]+/[^/]+$") or cfg_path }
    end
  end
  M.mark_cap(run, cfg)
  M.mark_arrivals(run, cfg)
  M.check_partial(run, c, cfg)
  return rm.close(run, measured, groups, token_source, true)
end

-- How the requests of a stage file without load_summary.schedule_delay went out (inference-perf
-- before v0.6.1 wrote none): with no schedule to say whether they kept to it, its drain-reduced
-- rate is read against the nominal rate (llmd.loadpoints.drain_of), which a poisson load's own
-- randomness moves: its count fixed, its gaps exponential, the rate over the send span has a
-- relative standard deviation of about 1 / sqrt(count - 1) (satur54: tests/sim/satur54_arrivals.py,
-- 30 servings at 2 to 8 req/s of a server of 9.6, saturated at 2 req/s in most of them). A
-- constant load (config.yaml's load.type) has no such noise: nil, the rule as before. Where
-- config.yaml does not say, poisson, the noisier: a shortfall within its noise is then N/A, never
-- a wrong "saturated". {shape = 1, sends, said, unsaid, tell} (llmd.loadpoints.arrival_noise).
function M.mark_arrivals(run, cfg)
  local load = type(cfg) == "table" and type(cfg.load) == "table" and cfg.load or {}
  if load.type == "constant" then return end
  for _, st in ipairs(run.stages or {}) do
    local x = st.drain
    local n = type(x) == "table" and x.sends
    if x and x.schedule_delay_max_s == nil and type(n) == "number" and n >= 2 and st.rate then
      x.arrivals = { shape = 1, sends = n, said = load.type == "poisson",
        unsaid = "the stage files do not say whether the load was poisson or constant, and no config.yaml beside them "
          .. "states its load.type: taken as poisson, the noisier",
        tell = "load_summary.schedule_delay in the stage files (inference-perf v0.6.1 and later) or its per-request "
          .. "file" }
    end
  end
end

-- Whether a rate-based stage's sends could have been held back by the client's concurrency
-- cap, for the saturation rule (llmd.loadpoints.saturation): inference-perf's client runs
-- load.num_workers processes of load.worker_max_concurrency requests each (its load
-- generator queues each request at its scheduled time, and a worker takes it only with a
-- free slot), so it holds at most their product in flight. Where config.yaml states both
-- and a stage's most requests in flight at once (llmd.runmodel.max_in_flight, from its
-- per-request times) stayed below that cap, no send waited for a slot: sends behind the
-- schedule were the client's own (pace.open_loop, as vLLM's with no --max-concurrency);
-- where they reached it, the cap held them back (the capped rule). Where config.yaml does
-- not state both (num_workers defaults to the machine's CPUs), the cap is unknown
-- (pace.cap_unknown, the words why), and the rule says so where it decides (fixj50).
-- pace.cap = the cap where known. A stage's own requests are all that hold its slots:
-- inference-perf's load generator ends a stage only when every request it queued has
-- finished (or, timed out, been cancelled and drained), and only then waits load.interval and
-- starts the next, so no earlier stage's request is in flight during a stage (fixw50: as its
-- loadgen's run_stage reads).
function M.mark_cap(run, cfg)
  local load = type(cfg) == "table" and type(cfg.load) == "table" and cfg.load or {}
  local function count(x)
    return type(x) == "number" and x >= 1 and x == math.floor(x) and x < math.huge and x or nil
  end
  local w, c = count(load.num_workers), count(load.worker_max_concurrency)
  local cap = w and c and w * c or nil
  for _, st in ipairs(run.stages) do
    -- (the client's cap on requests in flight, for the workload match: llmd.loadpoints client_cap)
    if st.rate and cap then st.client_cap = cap end
    local x = st.pace
    if type(x) == "table" and st.rate then
      if cap and x.max_in_flight then
        x.cap = cap
        if x.max_in_flight < cap then x.open_loop = true end
      elseif cap then
        x.cap = cap
        x.cap_unknown = "the requests in flight at once are not known from its files"
      else
        x.cap_unknown = cfg == nil and ("no config.yaml beside the results states inference-perf's load.num_workers "
          .. "and load.worker_max_concurrency, whose product caps the requests in flight")
          or "its config.yaml does not state both load.num_workers and load.worker_max_concurrency, whose product "
          .. "caps the requests in flight (num_workers defaults to the machine's CPUs)"
      end
    end
  end
end

-- A run cut short: inference-perf writes summary_lifecycle_metrics.json when every stage has
-- run (report.request_lifecycle.summary, true unless the config says false), so stage files
-- without it are the stages a run finished before it stopped (or a folder copied without
-- it); and a config.yaml that lists more stages than there are stage files says so too. The
-- run is read, but marked partial (run.partial, a data check, the report's banner): its
-- figures are never those of a complete run.
local function summary_left_out(c) -- (said as that: "left out (--tolerant)")
  for _, u in ipairs(c.unreadable or {}) do
    if u:find("/summary_lifecycle_metrics.", 1, true) then return true end
  end
  return false
end

function M.check_partial(run, c, cfg)
  if #c.stages == 0 then return end
  local idx = {}
  for _, s in ipairs(c.stages) do idx[#idx + 1] = s.index end
  table.sort(idx)
  -- the indexes as runs ("0-2, 4-6") and those missing below the last ("3"): a stage file gone
  -- from the middle is said as that, never as a run cut short after its last stage (newuser53 #5)
  local function runs_of(list)
    local out, i = {}, 1
    while i <= #list do
      local j = i
      while j < #list and list[j + 1] == list[j] + 1 do j = j + 1 end
      out[#out + 1] = i == j and tostring(list[i]) or ("%d-%d"):format(list[i], list[j])
      i = j + 1
    end
    return table.concat(out, ", ")
  end
  local have, missing = {}, {}
  for _, n in ipairs(idx) do have[n] = true end
  for n = 0, idx[#idx] do if not have[n] then missing[#missing + 1] = n end end
  local files = ("%d stage file%s (stage%s %s)"):format(#idx, #idx == 1 and "" or "s", #idx == 1 and "" or "s",
    runs_of(idx))
  local gap = #missing > 0 and ("stage%s %s %s missing (no %s; there %s %s)"):format(#missing == 1 and "" or "s",
    runs_of(missing), #missing == 1 and "is" or "are", #missing == 1
    and ("stage_%d_lifecycle_metrics.json"):format(missing[1]) or "stage_N_lifecycle_metrics.json for them",
    #idx == 1 and "is" or "are", files)
  local report = type(cfg) == "table" and type(cfg.report) == "table" and cfg.report or {}
  local life = type(report.request_lifecycle) == "table" and report.request_lifecycle or {}
  local load = type(cfg) == "table" and type(cfg.load) == "table" and cfg.load or {}
  local why
  if type(load.stages) == "table" and #load.stages > #idx then
    why = gap and ("%s, of the %d load stages config.yaml lists (a stage file lost or not copied%s)")
      :format(gap, #load.stages, #load.stages > idx[#idx] + 1 and (", and the run cut short after stage "
        .. idx[#idx]) or "")
      or ("config.yaml lists %d load stages, but there are only %s: the run was cut short (or stage files were "
      .. "not copied)"):format(#load.stages, files)
  elseif not c.summary and life.summary ~= false and not summary_left_out(c) then
    why = gap and ("%s, and so is summary_lifecycle_metrics.json (inference-perf writes it when every stage has "
      .. "run: lost or not copied, or the run was cut short after stage %d)"):format(gap, idx[#idx])
      or ("no summary_lifecycle_metrics.json beside its %s: inference-perf writes it when every stage has run, "
      .. "so the run was cut short after stage %d (or the file was not copied)"):format(files, idx[#idx])
  end
  if not why then return end
  run.partial = ("a partial run: %s; its figures are from those stages only, not from a complete run"):format(why)
  rm.warn(run, "%s", run.partial)
  run.checks = run.checks or {}
  run.checks[#run.checks + 1] = { kind = "partial_run", text = run.partial }
end

return M
