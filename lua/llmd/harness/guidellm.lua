-- guidellm (vllm-project/guidellm): one report, results.json (llm-d-benchmark) or
-- benchmarks.json (guidellm's default), with one entry of `benchmarks` per load point.
--
-- Names differ from the catalogue, and so do weights. In guidellm 0.7+ the
-- inter_token_latency_ms distribution is weighted by each request's output tokens - 1:
-- its mean is the pooled gap mean sum(last - first token) / sum(output tokens - 1), the
-- catalogue's itl_mean_ms; its percentiles are token-weighted percentiles of the
-- per-request means (itl_tw_*), neither TPOT nor pooled-gap percentiles.
-- time_per_output_token_ms is weighted by output tokens and ends at the last token, not at
-- the request's end: no catalogue key has that meaning, so it is left out. The per-request
-- TPOT and NTPOT need the kept requests. guidellm records no per-token times, so pooled
-- ITL percentiles are unknown. Its summaries use nearest-rank percentiles and write 0.0 for
-- an empty distribution (read here as unknown). When a benchmark kept every request (no
-- sample_size), the metrics are computed from the requests instead, and compared with the
-- summaries. The window of a benchmark is its own start_time..end_time (the scheduler's
-- measured window) on both paths.
local rm = require "llmd.runmodel"
local scan = require "llmd.scan"

local M = {
  name = "guidellm",
  percentile_method = "nearest",
  -- what detect accepts, as the "looked for" error lists it
  describe = "a GenerativeBenchmarksReport: any .json, .yaml or .yml file whose first 64 KiB names "
    .. "guidellm_version or generative_benchmark, or has \"benchmarks\" and \"request_totals\"; "
    .. "benchmarks.json.gz, results.json.gz",
}

M.NO_ITL = "guidellm records no per-token times, so token gaps cannot be pooled"

local function num(v) return type(v) == "number" and v or nil end

function M.detect(dir)
  return rm.group_files(dir, function(f)
    if f.name:match("%.json$") or f.name:match("%.ya?ml$") then
      -- guidellm writes metadata first; a re-serialised report (keys sorted) has its
      -- benchmarks first, whose metrics come before their requests
      local head = rm.peek(f.path, 65536)
      return head ~= nil and (head:find("guidellm_version", 1, true) or head:find("generative_benchmark", 1, true)
        or (head:find('"benchmarks"', 1, true) and head:find('"request_totals"', 1, true))) ~= nil
    end
    return f.name:match("^benchmarks%.json%.gz$") ~= nil or f.name:match("^results%.json%.gz$") ~= nil
  end)
end

-- A DistributionSummary's statistic, or nil when it has no samples (guidellm writes 0.0).
local function dist(block, status)
  local d = type(block) == "table" and block[status or "successful"]
  if type(d) ~= "table" or not num(d.count) or d.count == 0 then return nil end
  return d
end

local MAP = {
  -- catalogue prefix, guidellm metric, scale to ms, what it is called there, sample count per
  { "ttft", "time_to_first_token_ms", 1, "time_to_first_token_ms" },
  { "latency", "request_latency", 1000, "request_latency (s)" },
}
local PCT = { { "p50", "p50" }, { "p90", "p90" }, { "p95", "p95" }, { "p99", "p99" }, { "p999", "p999" } }

M.NO_TPOT = "guidellm's summaries weight inter-token latency by tokens; the per-request TPOT needs its kept "
  .. "requests (no sample_size)"
M.NO_NTPOT = "guidellm's time_per_output_token is weighted by output tokens and ends at the last token, not at "
  .. "the request's end: not the per-request NTPOT"

-- Metrics of one benchmark entry from guidellm's own summaries.
local function map_summary(set, b, where)
  local m = b.metrics
  if type(m) ~= "table" or type(m.request_totals) ~= "table" then
    error(where .. ": no metrics.request_totals (expected a guidellm generative benchmark)", 0)
  end
  local rt = m.request_totals
  local ok, failed, inc = num(rt.successful), num(rt.errored), num(rt.incomplete)
  if not ok or not failed then error(where .. ": metrics.request_totals.successful/errored must be numbers", 0) end
  local src = rm.SUMMARY
  local metrics = require "llmd.metrics"
  rm.put(set, "requests_ok", ok, src)
  rm.put(set, "requests_failed", failed, src)
  if inc then rm.put(set, "requests_incomplete", inc, src) end
  if ok + failed > 0 then rm.put(set, "error_rate_pct", failed / (ok + failed) * 100, src) end
  local function empty(name)
    if ok == 0 then return "no successful requests" end
    return ("guidellm's %s is empty (it writes 0.0: not a measurement)"):format(name)
  end
  for _, e in ipairs(MAP) do
    local d = dist(m[e[2]])
    local src_e = src .. ": " .. e[4]
    if d then set.counts[e[1]] = d.count end
    for _, w in ipairs { { "mean" }, table.unpack(PCT) } do
      local key = e[1] .. "_" .. w[1] .. "_ms"
      if metrics.has(key) then
        if not d then
          rm.unknown(set, key, empty(e[2]))
        else
          local v = w[1] == "mean" and d.mean or (type(d.percentiles) == "table" and d.percentiles[w[2]])
          if num(v) then
            rm.put(set, key, v * e[3], src_e, w[1] ~= "mean" and M.percentile_method or nil)
          else
            rm.unknown(set, key, e[2] .. " has no " .. (w[2] or w[1]))
          end
        end
      end
    end
  end
  -- inter_token_latency_ms, weighted by output tokens - 1: the pooled mean, and
  -- token-weighted percentiles under their own keys
  local itl = dist(m.inter_token_latency_ms)
  if itl then
    set.counts.itl = itl.count
    rm.put(set, "itl_mean_ms", itl.mean, src .. ": inter_token_latency_ms mean (weighted by output tokens - 1: "
      .. "the pooled gap mean)")
    for _, w in ipairs(PCT) do
      local key = "itl_tw_" .. w[1] .. "_ms"
      local v = type(itl.percentiles) == "table" and itl.percentiles[w[2]]
      if metrics.has(key) then
        if num(v) then
          rm.put(set, key, v, src .. ": inter_token_latency_ms (token-weighted)", M.percentile_method)
        else
          rm.unknown(set, key, "inter_token_latency_ms has no " .. w[2])
        end
      end
    end
  else
    rm.unknown(set, "itl_mean_ms", empty("inter_token_latency_ms"))
    for _, w in ipairs(PCT) do
      local key = "itl_tw_" .. w[1] .. "_ms"
      if metrics.has(key) then rm.unknown(set, key, empty("inter_token_latency_ms")) end
    end
  end
  for _, p in ipairs { { "mean" }, table.unpack(PCT) } do
    if metrics.has("tpot_" .. p[1] .. "_ms") then rm.unknown(set, "tpot_" .. p[1] .. "_ms", M.NO_TPOT) end
    if metrics.has("itl_" .. p[1] .. "_ms") then rm.unknown(set, "itl_" .. p[1] .. "_ms", M.NO_ITL) end
  end
  rm.unknown_all(set, "ntpot", M.NO_NTPOT)
  rm.latency_all_from_summary(set, failed, inc, src, M.percentile_method)
  local dur = num(b.duration)
  if dur and dur > 0 then
    rm.put(set, "duration_s", dur, src)
    rm.put(set, "throughput_req_s", ok / dur, src .. " (successful / duration)")
  end
  local pin, pout = dist(m.prompt_token_count), dist(m.output_token_count)
  if ok == 0 then
    rm.put(set, "input_tokens_total", 0, src)
    rm.put(set, "output_tokens_total", 0, src)
  end
  if pin and num(pin.total_sum) then rm.put(set, "input_tokens_total", pin.total_sum, src) end
  if pout and num(pout.total_sum) then rm.put(set, "output_tokens_total", pout.total_sum, src) end
  local out, inp = set.values.output_tokens_total, set.values.input_tokens_total
  if dur and dur > 0 and out then
    rm.put(set, "throughput_tok_s", out / dur, src .. " (output tokens / duration)")
    if inp then rm.put(set, "throughput_total_tok_s", (inp + out) / dur, src .. " (tokens / duration)") end
  end
end

local function strategy_load(st, strategy)
  if type(strategy) ~= "table" then return end
  local t = strategy.type_
  st.strategy = t
  if t == "constant" or t == "poisson" or t == "async" then
    st.rate = num(strategy.rate)
  elseif t == "concurrent" then
    st.concurrency = num(strategy.streams) or num(strategy.max_concurrency)
  elseif t == "throughput" then
    st.concurrency = num(strategy.max_concurrency) or num(strategy.worker_count)
  elseif t == "synchronous" then
    st.concurrency = 1
  end
end

local WINDOW_SRC = "guidellm's measured window (benchmark start_time to end_time)"

-- A benchmark's drain-reduced rate record (llmd.runmodel.drain_from_stats), where its file
-- keeps no per-request times: guidellm's window (start_time..end_time, its scheduler's
-- measure_start..measure_end) starts at the first request sent where no warmup moved it
-- (measure_start_time = request_start_time), and ends at the last answer, or at the stop of
-- a duration constraint or the cooldown's start: so no answer comes in its first least
-- latency, and the successes over (window - least latency) are the rate the answers came
-- back at, free of the drain the last answers' latency adds, as the vLLM and benchmark
-- report readers give it. The least latency: request_latency's min (s, over every
-- success, sample_size or not), else its lowest percentile. Where a warmup moved the
-- window's start (answers come from its first moment) or the file does not say where it
-- started, none is taken out (least_kind "none": the harness's own rate, successes /
-- window, as it is), and least_why says why: a shortfall of that rate, which still counts
-- the last answers' latency, is then unknown, never saturation (llmd.loadpoints.bound_text).
local GL_PCTS = { { 0.1, "p001" }, { 1, "p01" }, { 5, "p05" }, { 10, "p10" }, { 25, "p25" }, { 50, "p50" },
  { 75, "p75" }, { 90, "p90" }, { 95, "p95" }, { 99, "p99" }, { 99.9, "p999" } }
local function drain_record(b, ok, dur)
  local smt = num(b["scheduler_metrics.measure_start_time"])
  local srt = num(b["scheduler_metrics.request_start_time"])
  local wu = num(b.warmup_duration)
  -- a window that may not start at the first request sent: no least latency can be taken
  -- out, but completed / window still counts the last answers' latency, so a shortfall of it
  -- is no saturation (unknown, llmd.loadpoints.bound_text; audit53 F1: a 40-slot server read
  -- as saturated at 5 req/s of its 13)
  local function unplaced(why)
    local rec = rm.drain_from_stats(ok, dur, {}, nil)
    if rec then rec.least_why = why end
    return rec
  end
  if wu and wu > 0 then
    return unplaced(("guidellm's measured window starts after its %.4g s warmup, where answers may already come "
      .. "in, so no least latency can be taken out of it"):format(wu))
  end
  if not (smt and srt) or math.abs(smt - srt) > 1e-3 then
    return unplaced("guidellm's file does not place its measured window's start at the first request sent "
      .. "(scheduler_metrics.measure_start_time and request_start_time), so no least latency can be taken out of it")
  end
  local rl = dist(b.metrics.request_latency)
  if not rl then return nil end
  local pcts = {}
  if type(rl.percentiles) == "table" then
    for _, x in ipairs(GL_PCTS) do
      local v = num(rl.percentiles[x[2]])
      if v then pcts[#pcts + 1] = { x[1], v, x[2] } end
    end
  end
  return rm.drain_from_stats(ok, dur, pcts, num(rl.min))
end

-- The token-weighted ITL percentiles exist only in guidellm's summary: kept beside what
-- the requests give.
local function copy_tw(dst, summary)
  for _, p in ipairs(PCT) do
    local key = "itl_tw_" .. p[1] .. "_ms"
    if require("llmd.metrics").has(key) then
      local v, why = rm.get(summary, key)
      if v then rm.put(dst, key, v, summary.source[key], summary.method[key]) else rm.unknown(dst, key, why) end
    end
  end
end

local REQ_FIELDS = {
  "request_start_time", "request_end_time", "request_latency", "prompt_tokens", "output_tokens",
  "time_to_first_token_ms", "inter_token_latency_ms", "info.timings.request_start",
  "info.timings.request_end", "info.timings.first_token_iteration", "info.timings.last_token_iteration",
  "info.error", "info.status",
}

function M.extract(c, opts)
  opts = opts or {}
  if #c.files > 1 then
    error(("%s: %d guidellm reports in one folder (%s); pass the one to read")
      :format(c.dir, #c.files, table.concat(c.files, ", ")), 0)
  end
  local path = c.files[1]
  local run = rm.start(M, c)
  local wu = {}
  for _, i in ipairs(opts.warmup or {}) do wu[tonumber(i)] = true end
  local groups = rm.error_groups()
  local method = opts.percentile_method or "linear"
  local overall = rm.accumulator(opts)
  local itl_sum, itl_gaps = 0, 0
  local all_complete = true
  local index = 0
  -- (pace: each answered request's start and finish, for llmd.runmodel.pace)
  local function new_cur()
    local b = { acc = rm.accumulator(opts), ok = 0, err = 0, inc = 0, itl_sum = 0, itl_gaps = 0, errs = {},
      pc = rm.pace_accumulators(), paced = true }
    b.pace = b.pc.add
    return b
  end
  local cur = new_cur()

  local function add(r, kind)
    local start = r.request_start_time or r["info.timings.request_start"]
    local finish = r.request_end_time or r["info.timings.request_end"]
    local q = { start = start, finish = finish }
    if kind ~= "inc" then
      if type(start) == "number" and type(finish) == "number" then
        local ok = kind == "ok"
        cur.pace(start, finish, ok and finish, finish - start, ok and start, ok and finish - start)
      else
        cur.paced = false
      end
    end
    if kind == "ok" then
      cur.ok = cur.ok + 1
      q.ok = true
      q.e2e = r.request_latency or (start and finish and finish - start)
      q.ttft = r.time_to_first_token_ms and r.time_to_first_token_ms / 1000
      q.tpot = r.inter_token_latency_ms and r.inter_token_latency_ms / 1000
      q.out_tok, q.in_tok = r.output_tokens, r.prompt_tokens
      -- (one output token: no decode phase, no TPOT to judge its goodput by; runmodel.request_good)
      q.single = type(q.out_tok) == "number" and q.out_tok <= 1
      q.ntpot = q.e2e and q.out_tok and q.out_tok > 0 and q.e2e / q.out_tok or nil
      local t0, tn = r["info.timings.first_token_iteration"], r["info.timings.last_token_iteration"]
      if t0 and tn and q.out_tok and q.out_tok > 1 then
        cur.itl_sum, cur.itl_gaps = cur.itl_sum + (tn - t0), cur.itl_gaps + (q.out_tok - 1)
      end
    elseif kind == "err" then
      cur.err = cur.err + 1
      q.ok = false
      cur.errs[#cur.errs + 1] = r["info.error"]
    else
      cur.inc = cur.inc + 1
      q.incomplete = true
    end
    cur.acc.add(q)
  end

  local function bench(b)
    local where = ("%s: benchmarks[%d]"):format(path, index)
    local st = rm.stage(index)
    st.file = path
    strategy_load(st, b["config.strategy"])
    local bb = { metrics = b.metrics, duration = b.duration }
    map_summary(st.metrics, bb, where)
    st.duration = num(b.duration)
    st.start, st.finish = num(b.start_time), num(b.end_time)
    local rt = b.metrics.request_totals
    st.requests = { ok = rt.successful, failed = rt.errored, incomplete = rt.incomplete, total = rt.total }
    st.warmup = wu[index] or false
    -- every request kept? then the requests are the source, and the summary a cross-check
    local complete = cur.ok == rt.successful and cur.err == rt.errored and cur.ok + cur.err > 0
    if complete then
      local summary = st.metrics
      st.metrics = rm.set()
      -- the window is the benchmark's own (its scheduler's measured window), as on the
      -- summary path
      local window = st.duration and st.duration > 0 and { st.duration, WINDOW_SRC } or nil
      rm.fill(st.metrics, cur.acc, method, { itl = M.NO_ITL, window = window,
        no_window = not window and "the benchmark has no duration" or nil })
      if cur.itl_gaps > 0 then
        rm.put(st.metrics, "itl_mean_ms", cur.itl_sum / cur.itl_gaps * 1000,
          rm.PER_REQUEST .. " (sum of first-to-last token times / sum of gaps)")
      end
      copy_tw(st.metrics, summary)
      if cur.paced then st.pace = rm.pace_of(cur.pc) end
      rm.crosscheck(run, st.metrics, summary, { "requests_ok", "requests_failed", "ttft_mean_ms",
        "itl_mean_ms", "latency_p50_ms" }, ("guidellm's summary of benchmarks[%d]"):format(index), nil, st)
    end
    if not st.pace then st.drain = drain_record(b, rt.successful, st.duration) end
    local sg = rm.stage_errors(groups, st)
    for _, e in ipairs(cur.errs) do
      local code = tostring(e or ""):match("'(%d%d%d) ") or tostring(e or ""):match("status[ _]code[=: ]+(%d%d%d)")
      sg.add(code and tonumber(code), e or "(no message)")
    end
    if rt.errored > #cur.errs then
      sg.add(nil, ("cause not kept (guidellm kept %d of %d errored requests: sample_size)")
        :format(#cur.errs, rt.errored), rt.errored - #cur.errs)
    end
    if not st.warmup then
      if complete then
        rm.merge_accumulator(overall, cur.acc)
        itl_sum, itl_gaps = itl_sum + cur.itl_sum, itl_gaps + cur.itl_gaps
      else
        all_complete = false
      end
    end
    run.stages[#run.stages + 1] = st
    index = index + 1
    cur = new_cur()
  end

  local meta, scenario, args
  scan.json(path, {
    { "$.metadata", function(v) meta = v end },
    { "$.config.spec", function(v) scenario = v end, fields = { "backend.model", "backend.target", "profile.kind" } },
    { "$.args", function(v) args = v end, fields = { "model", "target", "profile" } },
    { "$.benchmarks[*]", bench, fields = { "config.strategy", "metrics", "duration", "start_time", "end_time",
      "warmup_duration", "scheduler_metrics.measure_start_time", "scheduler_metrics.request_start_time" } },
    { "$.benchmarks[*].requests.successful[*]", function(r) add(r, "ok") end, fields = REQ_FIELDS },
    { "$.benchmarks[*].requests.errored[*]", function(r) add(r, "err") end, fields = REQ_FIELDS },
    { "$.benchmarks[*].requests.incomplete[*]", function(r) add(r, "inc") end, fields = REQ_FIELDS },
  })
  if index == 0 then
    error(path .. ": no benchmarks (expected a guidellm report with a 'benchmarks' array)", 0)
  end
  if type(meta) == "table" then run.version = meta.guidellm_version end
  -- the configuration it was run with: config.spec (0.7+), or args (older reports)
  local src = path:match("[^/]+$")
  if type(scenario) == "table" then
    rm.config(run, "model", scenario["backend.model"], src .. ": config.spec.backend.model")
    rm.config(run, "target", scenario["backend.target"], src)
    rm.config(run, "profile", scenario["profile.kind"], src)
  end
  if type(args) == "table" then
    rm.config(run, "model", args.model, src .. ": args")
    rm.config(run, "target", args.target, src)
    rm.config(run, "profile", args.profile, src)
  end
  rm.finish_stages(run, opts)
  local measured = rm.measured(run)
  if #measured > 0 and all_complete then
    -- the window: first measured benchmark's start to the last one's end, as rm.combine
    local first, last = math.huge, -math.huge
    for _, st in ipairs(measured) do
      if not (st.start and st.finish) then first = nil; break end
      first, last = math.min(first, st.start), math.max(last, st.finish)
    end
    local window = first and last > first and { last - first, WINDOW_SRC } or nil
    rm.fill(run.overall, overall, method, { itl = M.NO_ITL, window = window,
      no_window = not window and rm.NO_WINDOW or nil })
    if #measured == 1 then copy_tw(run.overall, measured[1].metrics) end
    if itl_gaps > 0 then
      rm.put(run.overall, "itl_mean_ms", itl_sum / itl_gaps * 1000,
        rm.PER_REQUEST .. " (sum of first-to-last token times / sum of gaps)")
    end
  end
  return rm.close(run, measured, groups,
    "guidellm's count (server usage when the backend returned it, else its tokenizer)", #measured > 0 and all_complete)
end

return M
