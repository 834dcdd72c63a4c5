-- llmd.br: llm-d-benchmark's Benchmark Report (v0.2, v0.1) written from a run model,
-- so a run of any harness llmdlua reads can go to tools that read only reports.
--
--   local br = require "llmd.br"
--   local run = require("llmd.harness").extract("results/")
--   local docs = br.build(run, { version = "0.2", stack = {...}, eid = "...", description = "..." })
--   -- { {name = "benchmark_report_v0.2,_stage_0_lifecycle_metrics.json.yaml", doc = <ordered>,
--   --    stage = 0, dropped = {"request_latency: ..."}} , ... }
--   br.write(dir, run, opts)   -- the files, one per load point; returns their paths
--
-- One report per load stage (as upstream converts one native file per load point), from
-- the stage's metric set: the catalogue's ms are written with units ms / ms/token, rates in
-- queries/s and tokens/s. A statistic whose mean is unknown cannot be a Statistics (the
-- mean is required) and is left out, named in `dropped`. Names follow upstream's
-- converter per tool: a guidellm report carries guidellm's inter-token latency under
-- inter_token_latency, as llm-d-benchmark's own converter writes it: its mean is the pooled
-- gap mean (the catalogue's itl_mean_ms) and its percentiles are token-weighted
-- (itl_tw_pN_ms), so every reader maps them back to the same keys. guidellm's
-- time_per_output_token is token-weighted and has no catalogue key: it is not written.
local metrics = require "llmd.metrics"
local yo = require "llmd.yamlout"
local ws = require "llmd.workspace"

local M = {}

-- BR latency key <- catalogue prefix, per convention (see llmd.harness.benchmark_report)
local LAT = {
  { "time_to_first_token", "ttft", "ms" },
  { "normalized_time_per_output_token", "ntpot", "ms/token" },
  { "time_per_output_token", "tpot", "ms/token" },
  { "inter_token_latency", "itl", "ms/token" },
  { "request_latency", "latency", "ms" },
}
local LAT_GUIDELLM = {
  { "time_to_first_token", "ttft", "ms" },
  { "inter_token_latency", "itl", "ms/token", "itl_tw" },
  { "request_latency", "latency", "ms" },
}

-- 64-bit FNV-1a of s, as 16 hex digits: a stable id for the same input.
function M.hash(s)
  local h = 0xcbf29ce484222325
  for i = 1, #s do
    h = h ~ s:byte(i)
    h = h * 0x100000001b3
  end
  return ("%016x"):format(h)
end

local function int(v)
  if v == nil then return nil end
  return math.tointeger(v) or math.floor(v + 0.5)
end

-- The Statistics field of each catalogue percentile (metrics.PCTS): every one the run has
-- is written (a vLLM file records p95 and no p90; p99.9 is the schema's p99p9).
local BR_PCT = { p50 = "p50", p90 = "p90", p95 = "p95", p99 = "p99", p999 = "p99p9" }

-- The Statistics fields below the catalogue's p50, and p75, that a run's per-request samples
-- give (the schema's min, p0p1 ... p25, p75, max): a reader of the report bounds the
-- requests' least latency by request_latency's min, else its lowest percentile, for the
-- drain-reduced rate behind its max sustained throughput (llmd.harness.benchmark_report);
-- without them a report of a run read from vLLM's detailed files gave "no e2e percentile at
-- p5 or below, only from p50 up": N/A. NTPOT's min, likewise, tells a reader that no success
-- without output tokens was counted as 0 in an inference-perf run's mean (its per-request
-- NTPOTs leave such a request out).
local LOW_PCT = { { 0.1, "p0p1" }, { 1, "p1" }, { 5, "p5" }, { 10, "p10" }, { 25, "p25" }, { 75, "p75" } }
local SAMPLES = { latency = "latency", ttft = "ttft", tpot = "tpot", itl = "itl", ntpot = "ntpot" }

-- pct: the prefix of the percentile keys when it is not the mean's (guidellm's token-weighted ITL).
-- set: the stage's metric set, whose per-request samples (set.samples, seconds) add min, max
-- and the percentiles the catalogue does not keep, by the set's own percentile method.
-- drain: the stage's drain record (llmd.runmodel), whose least and most latency, where they
-- are the requests' own (a stage file's request_latency min and max, the latencies a vLLM
-- file keeps; not a bound from a percentile), are request_latency's min and max when there
-- are no samples: the reader's drain-reduced rate needs the min (without it, inference-perf's
-- stage files gave a report whose max sustained throughput was N/A).
local function stats(values, prefix, units, pct, set, drain)
  local mean = values[prefix .. "_mean_ms"]
  if mean == nil then return nil end
  local own = pct == nil
  pct = pct or prefix
  local m = yo.map("units", units, "mean", mean)
  local x = own and set and type(set.samples) == "table" and SAMPLES[prefix] and set.samples[SAMPLES[prefix]]
  if x and (type(x) ~= "userdata" and type(x) ~= "table" or not x.count or x:count() == 0) then x = nil end
  local method = set and set.method and set.method[prefix .. "_p50_ms"] or "linear"
  if method ~= "nearest" then method = "linear" end
  if x then
    yo.set(m, "min", x:min() * 1000)
    for _, q in ipairs(LOW_PCT) do
      if q[1] < 50 then yo.set(m, q[2], x:percentile(q[1], method) * 1000) end
    end
  end
  for _, q in ipairs(metrics.PCTS) do
    local v = values[pct .. "_" .. q[1] .. "_ms"]
    if v ~= nil then yo.set(m, BR_PCT[q[1]], v) end
    if x and q[1] == "p50" then yo.set(m, "p75", x:percentile(75, method) * 1000) end
  end
  if x then yo.set(m, "max", x:max() * 1000) end
  -- NTPOT's min where an inference-perf summary gave it (set.ntpot_min_s, above 0): a reader
  -- keeps a report's inference-perf NTPOT mean only where its min rules out successes without
  -- output tokens counted as 0 (llmd.harness.benchmark_report)
  if not x and own and prefix == "ntpot" and set and type(set.ntpot_min_s) == "number" then
    local with = yo.map("units", units, "mean", mean, "min", set.ntpot_min_s * 1000)
    for i = 3, #m.k do yo.set(with, m.k[i], m.v[i]) end
    m = with
  end
  -- NTPOT's mean an inference-perf summary gave with exactly one 0 (set.ntpot_raw: its own
  -- statistic, s, in inference-perf's names): the statistic as the summary gave it, mean, min 0
  -- and percentiles, which its reader corrects by the same rule to the same figure
  -- (llmd.harness.inference_perf.ntpot_zeros); the corrected mean without a min would read N/A
  -- there ("no NTPOT min"), and the corrected mean with that min 0 would be corrected twice
  if not x and own and prefix == "ntpot" and set and type(set.ntpot_raw) == "table"
    and type(set.ntpot_raw.mean) == "number" then
    local raw, names = set.ntpot_raw, { median = "p50", ["p0.1"] = "p0p1", ["p99.9"] = "p99p9" }
    local by = {}
    for k, v in pairs(raw) do if type(v) == "number" then by[names[k] or k] = v * 1000 end end
    m = yo.map("units", units, "mean", by.mean)
    for _, k in ipairs { "min", "p0p1", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99p9", "max" } do
      if by[k] then yo.set(m, k, by[k]) end
    end
  end
  if not x and own and prefix == "latency" and type(drain) == "table" and (drain.least_kind == nil
    or drain.least_kind == "min") and type(drain.least_latency_s) == "number" and drain.least_latency_s > 0 then
    -- (min before the percentiles, max after them, as the schema lists them)
    local with = yo.map("units", units, "mean", mean, "min", drain.least_latency_s * 1000)
    for i = 3, #m.k do yo.set(with, m.k[i], m.v[i]) end
    if type(drain.most_latency_s) == "number" then yo.set(with, "max", drain.most_latency_s * 1000) end
    m = with
  end
  return m
end

-- What a benchmark report cannot carry of run, or nil: the per-request send and answer
-- times behind a load point's pace (llmd.loadpoints.pace_of), which the schema has no place
-- for. A reader of the reports reads its throughput as the drain-reduced rate instead
-- (completed / (duration - request_latency's min)), so its max sustained throughput and
-- capacity can differ from this run's own.
-- Likewise a drain-reduced rate whose shortfall the results judge by what a report cannot
-- hold: inference-perf's send span and schedule delay, the order of vLLM's latencies (a
-- reader of the reports has the statistics alone, and leaves such a load unjudged: N/A).
function M.cannot_carry(run)
  local n, d, total = 0, 0, 0
  for _, st in ipairs(run.stages or {}) do
    total = total + 1
    if type(st.pace) == "table" then n = n + 1
    elseif type(st.drain) == "table" and not st.drain.stats_only and (st.drain.send_span_s or st.drain.trend_chance)
    then d = d + 1 end
  end
  local out = {}
  if n > 0 then
    out[#out + 1] = ("%d of %d load points' throughput is the pace of their answers against their sends, from "
      .. "per-request start and finish times, which a benchmark report has no field for: a reader of these reports "
      .. "reads the drain-reduced rate instead (completed / (duration - request_latency's min)), so its max "
      .. "sustained throughput and capacity at SLO can differ from those of the results themselves"):format(n, total)
  end
  if d > 0 then
    out[#out + 1] = ("%d of %d load points' saturation is judged by their send span and schedule delay or the order "
      .. "of their latencies, which a benchmark report has no field for: a reader of these reports has the latency "
      .. "statistics alone, which cannot tell a queue from the latencies' spread, so a load the results judge "
      .. "saturated can be unknown there, and the max sustained throughput N/A"):format(d, total)
  end
  if #out == 0 then return nil end
  return table.concat(out, "; ") .. "; compare the results folder, not its reports, where both are at hand"
end

-- Does the set have any percentile of prefix?
local function any_pct(values, prefix)
  for _, q in ipairs(metrics.PCTS) do
    if values[prefix .. "_" .. q[1] .. "_ms"] ~= nil then return true end
  end
  return false
end

local function rate(v, units)
  if v == nil then return nil end
  return yo.map("units", units, "mean", v)
end

-- The stages to write: every stage, or the overall set as stage 0 when there are none.
local function points(run)
  if #run.stages > 0 then return run.stages end
  return { { index = 0, metrics = run.overall, file = run.files and run.files[1], requests = run.requests } }
end

local function base(path) return tostring(path or "results"):match("([^/]+)$") end

-- The stack as components (Generic: llmdlua seldom knows replicas and parallelism), from
-- what --info states and the model the results name (decision.model_of: vLLM's model_id,
-- inference-perf's config model, a report's own stack), written as an inference engine's is,
-- model: {name: ...} (a Generic component takes extra keys), so a reader of the reports knows
-- the model as a reader of the results does: without it a run compared with its own reports
-- read "like for like not verified: B's model unknown".
local function stack(info, run)
  info = type(info) == "table" and info or {}
  local known = {}
  for _, k in ipairs { "guide", "model", "hardware", "gateway", "llmd_version", "decode_image", "namespace" } do
    local v = info[k]
    if type(v) == "string" and v ~= "" and v ~= "unknown" then known[k] = v end
  end
  known.model = require("llmd.decision").model_of { run = run, state = { stack = known } }
  if next(known) == nil then return nil end
  local label = info.label or known.guide or "stack"
  local std = yo.map("kind", "generic", "tool", known.guide and ("llm-d " .. known.guide) or "llm-d",
    "tool_version", known.decode_image or known.llmd_version or "unknown",
    "model", known.model and yo.map("name", known.model), "hardware", known.hardware, "gateway", known.gateway,
    "namespace", known.namespace)
  local cfg = {}
  for _, k in ipairs { "guide", "model", "hardware", "gateway", "llmd_version", "decode_image" } do
    cfg[#cfg + 1] = k .. "=" .. tostring(known[k])
  end
  return { yo.map(
    "metadata", yo.map("schema_version", "0.0.1", "label", tostring(label), "cfg_id", M.hash(table.concat(cfg, ";"))),
    "standardized", std,
    "native", yo.map()) }
end

-- One report for stage st of run (version "0.2" or "0.1").
function M.stage_doc(run, st, opts)
  local version = opts.version or "0.2"
  local v = st.metrics.values
  -- a benchmark report read back keeps the tool it came from
  local tool = run.harness
  if tool == "benchmark-report" then tool = st.tool or run.tool end
  local dropped = {}
  local ok, failed, inc = int(v.requests_ok), int(v.requests_failed), int(v.requests_incomplete)
  if ok == nil or failed == nil then
    error(("%s: stage %d has no request counts; a benchmark report needs requests.total"):format(run.dir,
      st.index), 0)
  end
  local total = ok + failed + (inc or 0)
  -- token counts as mean lengths, over the population each tool's converter averages over
  local in_n = (tool == "vllm-benchmark" or tool == "inferencemax") and total or ok
  local out_n = tool == "inferencemax" and total or ok
  local function len(tokens, n)
    if tokens == nil or n == 0 then return nil end
    return yo.map("units", "count", "mean", tokens / n)
  end
  local input_mean = v.input_tokens_total and in_n > 0 and v.input_tokens_total / in_n or nil
  local requests = yo.map("total", total, "failures", failed, "incomplete", inc,
    "input_length", len(v.input_tokens_total, in_n), "output_length", len(v.output_tokens_total, out_n))
  local conv = tool == "guidellm" and LAT_GUIDELLM or LAT
  local latency = yo.map()
  for _, e in ipairs(conv) do
    local s = stats(v, e[2], e[3], e[4], st.metrics, st.drain)
    if s then
      yo.set(latency, e[1], s)
    elseif any_pct(v, e[4] or e[2]) then
      dropped[#dropped + 1] = ("%s: its mean is unknown (%s), so its percentiles cannot be written")
        :format(e[1], st.metrics.na[e[2] .. "_mean_ms"] or "no reason given")
    end
  end
  if #latency.k == 0 then latency = nil end
  local dur = v.duration_s
  for _, k in ipairs { "throughput_req_s", "throughput_tok_s", "throughput_total_tok_s" } do
    if v[k] == nil and st.metrics.na[k] then
      -- a reader computes it again from the counts and the duration, when both are written
      dropped[#dropped + 1] = ("%s: unknown (%s), not written"):format(k, st.metrics.na[k])
    end
  end
  local label = base(st.file)
  if version == "0.1" then
    local tp = yo.map("output_tokens_per_sec", v.throughput_tok_s, "total_tokens_per_sec", v.throughput_total_tok_s,
      "requests_per_sec", v.throughput_req_s)
    return yo.map(
      "version", "0.1",
      "scenario", yo.map("description", opts.description, "load", yo.map("name", tool,
        "args", yo.map("stage", st.index, "rate_qps", st.rate, "concurrency", st.concurrency))),
      "metrics", yo.map("time", yo.map("duration", dur), "requests", requests, "latency", latency,
        "throughput", #tp.k > 0 and tp or nil)), dropped
  end
  local throughput = yo.map("output_token_rate", rate(v.throughput_tok_s, "tokens/s"),
    "total_token_rate", rate(v.throughput_total_tok_s, "tokens/s"),
    "request_rate", rate(v.throughput_req_s, "queries/s"))
  if #throughput.k == 0 then throughput = nil end
  local load
  if input_mean then
    load = yo.map(
      "metadata", yo.map("schema_version", "0.0.1", "cfg_id", opts.cfg_id),
      "standardized", yo.map("tool", tool, "tool_version", run.tool_version or run.version or "unknown",
        "source", "unknown", "stage", int(st.index),
        "input_seq_len", yo.map("distribution", "other", "value", input_mean),
        "output_seq_len", v.output_tokens_total and out_n > 0 and
          yo.map("distribution", "other", "value", v.output_tokens_total / out_n) or nil,
        "rate_qps", st.rate and st.rate > 0 and st.rate or nil,
        "concurrency", st.concurrency and st.concurrency >= 1 and st.concurrency or nil),
      "native", yo.map())
  else
    dropped[#dropped + 1] = "scenario.load: the mean input length is unknown (it is required there); "
      .. "the load point's stage, rate and tool are not recorded"
  end
  local id = table.concat({ tostring(run.dir), tool, tostring(st.index), label, opts.eid or "" }, "|")
  local doc = yo.map(
    "version", "0.2",
    "run", yo.map("uid", M.hash(id), "eid", opts.eid,
      "time", dur and yo.map("duration", ("PT%sS"):format(yo.float(dur + 0.0))) or nil,
      "description", opts.description, "keywords", opts.keywords),
    "scenario", yo.map("stack", stack(opts.stack, run), "load", load),
    "results", yo.map("request_performance", yo.map("aggregate",
      yo.map("requests", requests, "latency", latency, "throughput", throughput))))
  return doc, dropped
end

-- The reports of run: { {name =, doc =, stage =, dropped =}, ... }
function M.build(run, opts)
  opts = opts or {}
  local version = opts.version or "0.2"
  if version ~= "0.2" and version ~= "0.1" then
    error(("--br: expected 0.2 or 0.1, got %s"):format(tostring(version)), 0)
  end
  local prefix = version == "0.2" and "benchmark_report_v0.2,_" or "benchmark_report,_"
  local pts = points(run)
  local uses = {}
  for _, st in ipairs(pts) do
    local b = base(st.file)
    uses[b] = (uses[b] or 0) + 1
  end
  local out = {}
  for _, st in ipairs(pts) do
    local doc, dropped = M.stage_doc(run, st, opts)
    local b = base(st.file)
    -- one native file with several load points (guidellm): one report per point
    if uses[b] > 1 then b = ("%s_stage_%d"):format(b, st.index) end
    out[#out + 1] = { name = prefix .. b .. ".yaml", doc = doc, stage = st.index, dropped = dropped }
  end
  return out
end

-- Writes the reports into dir (created); returns the list build() made, with .path.
function M.write(dir, run, opts)
  ws.mkdir_p(dir)
  local list = M.build(run, opts)
  for _, r in ipairs(list) do
    r.path = dir:gsub("/+$", "") .. "/" .. r.name
    ws.write_text(r.path, yo.dump(r.doc))
  end
  return list
end

return M
