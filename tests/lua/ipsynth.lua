-- ipsynth: synthetic inference-perf runs for the saturation tests (lead35, drain36):
-- requests sent on a schedule, their latencies from a function, written as inference-perf
-- writes its files (FORMATS.md §1), the stage files' summaries by numpy's linear
-- percentile. The expected values stay in each test, computed independently.
local t = require "testlib"
local json = require "llmd.json"

local M = {}

-- numpy's linear percentile of xs (sorted here)
function M.pct(xs, p)
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  local h = (#s - 1) * p / 100
  local lo = math.floor(h)
  local hi = math.min(lo + 1, #s - 1)
  return s[lo + 1] + (h - lo) * (s[hi + 1] - s[lo + 1])
end

-- inference-perf's summary of xs (the fields the readers use)
function M.summ(xs)
  if #xs == 0 then return json.null end -- (as inference-perf's summarize of no values)
  local sum, lo, hi = 0, math.huge, -math.huge
  for _, x in ipairs(xs) do sum, lo, hi = sum + x, math.min(lo, x), math.max(hi, x) end
  return { mean = sum / #xs, min = lo, max = hi, median = M.pct(xs, 50), p90 = M.pct(xs, 90), p95 = M.pct(xs, 95),
    p99 = M.pct(xs, 99) }
end

-- One server answering one request at a time in `svc` s (M/D/1): latency(k, start), k
-- from 0 in each stage.
function M.queue(svc)
  local free
  return function(k, st)
    if k == 0 then free = st end
    free = math.max(free, st) + svc
    return free - st
  end
end

-- An inference-perf run in folder d: per stage {rate, n, latency(k, start) -> e2e, offered
-- (optional: the requested_rate, where the sends fell behind it; else rate)}, n
-- requests sent every 1 / rate s, 8 output tokens each (the first 20 ms after the start,
-- the last at the end), 256 input tokens; a stage starts 1 s after the last answer of the
-- one before. opts: per_request (also the per-request file, holding them all),
-- schedule_delay (the stage files' load_summary.schedule_delay), zero_tokens(si, k) (true:
-- that request succeeds with 0 output tokens and no token times: no TTFT or TPOT, and the
-- stage file's NTPOT counts it as 0, as inference-perf's summarize_requests does), summary
-- (also summary_lifecycle_metrics.json, the summary over every stage's requests, its time
-- the stages' durations summed: a complete run, whose whole-run percentiles are known).
-- Returns d.
function M.run(d, stages, opts)
  opts = opts or {}
  t.mkdir(d)
  local recs, t0 = {}, 1771234500
  local all = { e2e = {}, ttft = {}, tpot = {}, ntpot = {}, n = 0, out = 0, dur = 0 }
  for si, sg in ipairs(stages) do
    local e2e, ttft, starts, ends, zeros, out_tok = {}, {}, {}, {}, {}, 0
    for k = 0, sg.n - 1 do
      local st = t0 + k / sg.rate
      local l = sg.latency(k, st)
      local zero = opts.zero_tokens and opts.zero_tokens(si, k)
      local nout = zero and 0 or 8
      if opts.per_request then
        local times = {}
        if not zero then
          for j = 0, 7 do times[j + 1] = st + 0.02 + (l - 0.02) * j / 7 end
        end
        recs[#recs + 1] = { start_time = st, end_time = st + l, request = "{}", response = json.null,
          error = json.null, info = { input_tokens = 256, response_metrics = { output_tokens = nout,
            server_usage = { prompt_tokens = 256, completion_tokens = nout }, output_token_times = json.array(times) } } }
      end
      e2e[#e2e + 1], starts[#starts + 1], ends[#ends + 1] = l, st, st + l
      if not zero then ttft[#ttft + 1] = 0.02 end
      zeros[#e2e] = zero or nil
      out_tok = out_tok + nout
    end
    local last = -math.huge
    for i = 1, #ends do last = math.max(last, ends[i]) end
    -- (the starts ascend: the first is the least, the last the latest)
    local dur, send = last - starts[1], starts[#starts] - starts[1]
    local tpot, ntpot = {}, {}
    for i = 1, #e2e do
      if zeros[i] then ntpot[i] = 0 else tpot[#tpot + 1], ntpot[i] = (e2e[i] - 0.02) / 7, e2e[i] / 8 end
    end
    for _, x in ipairs { { all.e2e, e2e }, { all.ttft, ttft }, { all.tpot, tpot }, { all.ntpot, ntpot } } do
      for _, v in ipairs(x[2]) do x[1][#x[1] + 1] = v end
    end
    all.n, all.out, all.dur = all.n + sg.n, all.out + out_tok, all.dur + dur
    t.write(("%s/stage_%d_lifecycle_metrics.json"):format(d, si - 1), json.encode {
      benchmark_time_seconds = dur,
      load_summary = { count = sg.n, send_duration = send, requested_rate = sg.offered or sg.rate,
        achieved_rate = sg.n / send,
        schedule_delay = opts.schedule_delay },
      successes = { count = sg.n, latency = { request_latency = M.summ(e2e), time_to_first_token = M.summ(ttft),
        time_per_output_token = M.summ(tpot), normalized_time_per_output_token = M.summ(ntpot),
        inter_token_latency = M.summ(tpot) },
        throughput = { requests_per_sec = sg.n / dur, output_tokens_per_sec = out_tok / dur,
          input_tokens_per_sec = 256 * sg.n / dur, total_tokens_per_sec = (256 * sg.n + out_tok) / dur },
        prompt_len = M.summ { 256 }, output_len = M.summ { out_tok / sg.n } },
      failures = { count = 0, request_latency = json.null, prompt_len = json.null } })
    t0 = last + 1
  end
  if opts.per_request then t.write(d .. "/per_request_lifecycle_metrics.json", json.encode(recs)) end
  if opts.summary then
    t.write(d .. "/summary_lifecycle_metrics.json", json.encode {
      benchmark_time_seconds = all.dur,
      load_summary = { count = all.n },
      successes = { count = all.n, latency = { request_latency = M.summ(all.e2e), time_to_first_token = M.summ(all.ttft),
        time_per_output_token = M.summ(all.tpot), normalized_time_per_output_token = M.summ(all.ntpot),
        inter_token_latency = M.summ(all.tpot) },
        throughput = { requests_per_sec = all.n / all.dur, output_tokens_per_sec = all.out / all.dur,
          input_tokens_per_sec = 256 * all.n / all.dur, total_tokens_per_sec = (256 * all.n + all.out) / all.dur },
        prompt_len = M.summ { 256 }, output_len = M.summ { all.out / all.n } },
      failures = { count = 0, request_latency = json.null, prompt_len = json.null } })
  end
  return d
end

return M
