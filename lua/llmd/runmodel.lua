-- llmd.runmodel: the run model every harness mapping produces, and the helpers they share.
--
--   local rm = require "llmd.runmodel"
--   local run = rm.new("inference-perf", dir)
--   local set = rm.set()                       -- one metric set: overall, or one stage
--   rm.put(set, "ttft_p90_ms", 231.5, "per-request", "linear")
--   rm.unknown(set, "itl_p90_ms", "guidellm records no per-token times")
--   rm.from_stats(set, "ttft", acc, 1000, "per-request", "linear")   -- mean, p50, p90, p99
--
-- A metric set is { values = {key = number}, na = {key = reason}, source = {key = text},
-- method = {key = "linear" | "nearest"} }. Every key of llmd.metrics ends up either with a
-- value or with a reason (rm.finish_set): a report never has to guess why a cell is empty.
local metrics = require "llmd.metrics"
local stats = require "llmd.stats"

local lfs = require "lfs"

local M = {}

-- Where a value came from. Reports print these words.
M.PER_REQUEST = "per-request data"
M.SUMMARY = "harness summary"

function M.set()
  return { values = {}, na = {}, source = {}, method = {}, counts = {} }
end

function M.put(set, key, value, source, method)
  metrics.get(key)
  if type(value) ~= "number" then
    error(("metric %s: %s is not a number (use rm.unknown with a reason)"):format(key, tostring(value)), 2)
  end
  if value ~= value then error(("metric %s: NaN"):format(key), 2) end
  set.values[key], set.na[key] = value, nil
  if set.bounds then set.bounds[key] = nil end
  set.source[key] = source
  set.method[key] = method
end

function M.unknown(set, key, reason)
  metrics.get(key)
  if set.values[key] == nil and set.na[key] == nil then set.na[key] = reason end
end

-- Every catalogue key of a distribution (prefix "ntpot": ntpot_mean_ms and each ntpot_pN_ms)
-- unknown, with reason (M.unknown: a key with a value or a reason keeps it).
function M.unknown_all(set, prefix, reason)
  for _, m in ipairs(metrics.list) do
    if m.key == prefix .. "_mean_ms" or m.key:match("^" .. prefix .. "_p%d+_ms$") then M.unknown(set, m.key, reason) end
  end
end

-- Where key is unknown (N/A with its reason) but its reader bounds the figure it would be
-- (inference-perf's summary NTPOT with 0-token successes counted as 0: the mean without them,
-- llmd.harness.inference_perf.ntpot_zeros): set.bounds[key] = {lo =, hi =}. No figure: a test,
-- an effect row or a combined mean never takes it; an SLO judges a load point on it where the
-- whole bracket lies on one side of its limit (llmd.loadpoints). b nil: nothing is set.
function M.put_bounds(set, key, b)
  metrics.get(key)
  if type(b) ~= "table" or type(b.lo) ~= "number" or type(b.hi) ~= "number" then return end
  if b.lo ~= b.lo or b.hi ~= b.hi or b.lo > b.hi then return end
  if set.values[key] ~= nil then return end
  set.bounds = set.bounds or {}
  set.bounds[key] = { lo = b.lo, hi = b.hi }
end

-- value or nil, and the reason when nil
function M.get(set, key)
  return set.values[key], set.na[key]
end

-- Every catalogue key not yet given a value or a reason gets `reason`.
function M.finish_set(set, reason)
  for _, m in ipairs(metrics.list) do
    if set.values[m.key] == nil and set.na[m.key] == nil then set.na[m.key] = reason end
  end
  return set
end

-- The prefix's mean and percentiles (p50 ... p99.9, those the catalogue has) from an
-- llmd.stats accumulator, scaled (1000: s -> ms); set.counts[prefix] is the sample count
-- (what combining stages weights means by). An empty accumulator makes them unknown with
-- `empty_reason`.
function M.from_stats(set, prefix, acc, scale, source, method, empty_reason)
  scale = scale or 1
  local keys = { { prefix .. "_mean_ms" } }
  for _, p in ipairs(metrics.PCTS) do keys[#keys + 1] = { prefix .. "_" .. p[1] .. "_ms", p[2] } end
  set.counts[prefix] = acc:count()
  -- several percentiles of one accumulator: its samples sorted once, each percentile a
  -- look-up then (the second query would sort them anyway, after a first one that reads
  -- its ranks in two passes over them)
  local asked = 0
  for _, k in ipairs(keys) do
    if k[2] and metrics.has(k[1]) then asked = asked + 1 end
  end
  if asked > 1 then acc:sort() end
  for _, k in ipairs(keys) do
    local key, pct = k[1], k[2]
    if metrics.has(key) then
      if acc:count() == 0 then
        M.unknown(set, key, empty_reason or "no samples")
      else
        local v
        if pct then v = acc:percentile(pct, method) else v = acc:mean() end
        if v == nil then
          M.unknown(set, key, "not defined for these samples")
        else
          M.put(set, key, v * scale, source, pct and method or nil)
        end
      end
    end
  end
end

-- A new run model. status is "ok" until a health check says otherwise.
function M.new(harness, dir)
  return {
    harness = harness, dir = dir, version = nil, files = {}, status = "ok", reasons = {},
    overall = M.set(), stages = {}, errors = {}, requests = {}, warnings = {},
    token_source = nil, percentile_method = nil,
    -- what the result files say of the configuration: {model =, hardware =, image =,
    -- server =, target =, profile =, replicas =, parallelism =}, each a string, and
    -- config_source (which file)
    config = {}, config_source = nil,
  }
end

function M.warn(run, fmt, ...)
  run.warnings[#run.warnings + 1] = select("#", ...) > 0 and fmt:format(...) or fmt
end

-- Sets run.config[k] = v (as text) when v is a non-empty string or a number.
function M.config(run, k, v, source)
  if type(v) == "number" then v = ("%g"):format(v) end
  if type(v) == "string" and v ~= "" then
    run.config[k] = v
    run.config_source = run.config_source or source
  end
end

-- Did the run fail its health checks ("warnings" is a usable run)?
function M.failed(run) return run.status == "failed" end

function M.fail(run, reason)
  run.status = "failed"
  run.reasons[#run.reasons + 1] = reason
end

function M.stage(index)
  return { index = index, rate = nil, concurrency = nil, achieved_rate = nil, send_rate = nil, duration = nil,
    warmup = false, metrics = M.set(), requests = {} }
end

-- Error causes -------------------------------------------------------------------------

-- The message with what varies between requests of one cause replaced: ids, hex, numbers,
-- quoted URLs' hosts stay (they say where), whitespace squeezed, cut at 160 characters.
function M.normalise_message(msg)
  local s = tostring(msg or "")
  s = s:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")
  -- Kubernetes pod names (<owner>-<replicaset hash>-<5 chars>, <owner>-<5 chars>: the
  -- generator's alphabet has no vowels), so one cause on several pods is one cause
  s = s:gsub("%f[%w]([%w][%w%-]*%w)%f[^%w%-]", function(word)
    local parts = {}
    for p in word:gmatch("[^%-]+") do parts[#parts + 1] = p end
    local function gen(x, lo, hi)
      return #x >= lo and #x <= hi and not x:find("[^bcdfghjklmnpqrstvwxz2456789]")
    end
    local n = #parts
    if n >= 3 and gen(parts[n], 5, 5) and gen(parts[n - 1], 6, 10) and (parts[n] .. parts[n - 1]):find("%d") then
      return table.concat(parts, "-", 1, n - 2) .. "-<pod>"
    elseif n >= 2 and gen(parts[n], 5, 5) and parts[n]:find("%d") then
      return table.concat(parts, "-", 1, n - 1) .. "-<pod>"
    end
  end)
  -- IP addresses (a pod's), then long ids of letters and digits (ULIDs, base62 ids)
  s = s:gsub("%f[%w%.]%d+%.%d+%.%d+%.%d+%f[^%w%.]", "<ip>")
  s = s:gsub("%f[%w]%w+%f[^%w]", function(tok)
    if #tok >= 16 and tok:find("%d") and tok:find("%a") then return "<id>" end
  end)
  -- uuids and long hex ids first, then ids with a known prefix, then numbers
  s = s:gsub("%x%x%x%x%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x", "<id>")
  s = s:gsub("(%f[%w_][%w]+%-)(%x+)%f[^%w]", function(p, hex)
    if #hex >= 8 then return p .. "<id>" end
  end)
  s = s:gsub("%f[%w]%x*%d%x*%f[^%w]", function(hex)
    if #hex >= 12 then return "<id>" end
  end)
  s = s:gsub("%f[%w%.]%d+%.?%d*%f[^%w%.]", "<n>")
  -- an id with its kind's prefix (chatcmpl-, cmpl-, req_) is just an id
  s = s:gsub("%f[%w][%a]+[%-_]<id>", "<id>")
  if #s > 160 then s = s:sub(1, 157) .. "..." end
  return s
end

-- The text inside a JSON error body ({"error": {"message": ...}}, {"message": ...},
-- {"detail": ...}), or the text itself.
function M.error_text(body)
  if type(body) ~= "string" then return body ~= nil and tostring(body) or "" end
  local first = body:match("^%s*(.)")
  if first == "{" then
    local json = require "llmd.json"
    local ok, d = pcall(json.decode, body)
    if ok and type(d) == "table" then
      local e = d.error
      if type(e) == "table" and type(e.message) == "string" then return e.message end
      if type(e) == "string" then return e end
      if type(d.message) == "string" then return d.message end
      if type(d.detail) == "string" then return d.detail end
    end
  end
  return body
end

-- The HTTP status a message names ("'503 Service Unavailable'", "HTTP Error 429",
-- "status code 500", "Bad Request (400)"), or nil. Also aiohttp's ClientResponseError, as
-- its str ("503, message='Service Unavailable', url='...'", alone or after the class name in
-- a traceback's last line) and its repr ("ClientResponseError(..., status=504, ...)"), and a
-- message that is a status's reason phrase alone (REASONS): vllm bench serve's error for an
-- answer other than 200 is the response's reason only ("Service Unavailable"; nginx's 504
-- is "Gateway Time-out").
M.REASONS = {
  ["bad request"] = 400, ["unauthorized"] = 401, ["forbidden"] = 403, ["not found"] = 404,
  ["request timeout"] = 408, ["payload too large"] = 413, ["too many requests"] = 429,
  ["internal server error"] = 500, ["not implemented"] = 501, ["bad gateway"] = 502,
  ["service unavailable"] = 503, ["service temporarily unavailable"] = 503, ["gateway timeout"] = 504,
  ["gateway time-out"] = 504,
}
function M.http_status(text)
  text = tostring(text or "")
  local code = text:match("HTTP Error (%d%d%d)") or text:match("'(%d%d%d) ") or text:match("^(%d%d%d) ")
    or text:match("[Ss]tatus[ _]?[Cc]ode[=: ]*(%d%d%d)") or text:match("HTTP/%d%.?%d? (%d%d%d)")
    or text:match("%((%d%d%d)%)") or text:match("Error: (%d%d%d), message=") or text:match("^(%d%d%d), message=")
    or text:match("[(,]%s*status=(%d%d%d)[,)]")
  if code then return tonumber(code) end
  return M.REASONS[text:match("^%s*(.-)%s*$"):lower()]
end

-- The last non-blank line (a traceback's exception), or the text.
function M.last_line(s)
  local last
  for l in tostring(s):gmatch("[^\n]+") do
    if l:match("%S") then last = l end
  end
  return last or tostring(s)
end

-- Collects causes: add(status_or_nil, message [, n]) then list() sorted by count, then cause;
-- merge(e) adds a cause already grouped ({cause, status, count, example}: another group's,
-- a stage's: llmd.loadpoints sums a load point's repeats so).
function M.error_groups()
  local by, order = {}, {}
  local g = {}
  local function entry(cause, status, example)
    local e = by[cause]
    if not e then
      e = { cause = cause, status = status, count = 0, example = example }
      by[cause] = e
      order[#order + 1] = e
    end
    return e
  end
  function g.add(status, message, n)
    local text = M.normalise_message(message)
    -- (a status with no message is the status alone: "TimeoutError", not "TimeoutError ")
    local cause = status and (text ~= "" and (tostring(status) .. " " .. text) or tostring(status)) or text
    if cause == "" then cause = "(no message)" end
    local e = entry(cause, status, tostring(message or ""):sub(1, 400))
    e.count = e.count + (n or 1)
  end
  function g.merge(x)
    -- (a group saved by an llmdlua before the one above: its trailing space goes, so that
    -- one cause is one group)
    local e = entry((tostring(x.cause):gsub("%s+$", "")), x.status, x.example)
    e.count = e.count + x.count
  end
  function g.list()
    table.sort(order, function(a, b)
      if a.count ~= b.count then return a.count > b.count end
      return a.cause < b.cause
    end)
    return order
  end
  return g
end

-- What kind of failure a cause is, as its status and message say: "timeout" (the client, or
-- a gateway in front of the server, gave up waiting for the answer: HTTP 504 Gateway Timeout;
-- without a status, a read or total timeout: asyncio's TimeoutError, aiohttp's
-- ServerTimeoutError "Timeout on reading data from socket", httpx's ReadTimeout, "timed
-- out", gRPC's deadline exceeded, Envoy's "upstream request timeout", inference-perf's bare
-- "Timeout" label), which is a load the server did not serve in time; "unknown" (the files
-- keep only a count, or no message: M.UNRECORDED's texts); else "error" (the server's
-- errors, 5xx, 4xx, a refused or broken connection): the server answered, or could not be
-- reached at all.
-- The word "timeout" alone is no timeout (fixi45): a status other than 504 decides first
-- (Envoy's 503 "upstream connect error or disconnect/reset before headers. reset reason:
-- connection timeout" is a pod that could not be reached; a 400 "invalid value for timeout"
-- a bad request), and a connect timeout is an error (M.CONNECT_TEXTS: nothing reached the
-- server, so no queue of it made the wait), though its text says "timeout" or "timed out".
M.UNRECORDED = { "cause not recorded", "cause not kept", "(no message)" }
-- (lower-cased, as plain text: the texts of a connection that was never made)
M.CONNECT_TEXTS = { "connect timeout", "connection timeout", "connecttimeout", "connectiontimeout", "connect_timeout",
  "cannot connect to host", "upstream connect error" }
-- (lower-cased, as plain text: a read or total timeout, the answer waited for too long)
M.TIMEOUT_TEXTS = { "timeouterror", "timed out", "timeout on reading", "readtimeout", "read timeout",
  "upstream request timeout", "deadline exceeded", "deadline_exceeded" }
function M.error_kind(status, message)
  local text = (tostring(status or "") .. " " .. tostring(message or "")):lower()
  if not text:find("%S") then return "unknown" end
  for _, u in ipairs(M.UNRECORDED) do
    if tostring(message or ""):sub(1, #u) == u then return "unknown" end
  end
  -- (the status as the message names it where none was given apart: M.http_status, so a
  -- gateway's 504 whose reason says no "timeout", nginx's "Gateway Time-out", is one)
  local code = tonumber(status) or M.http_status(message) or M.http_status(status)
  if code and code >= 100 and code <= 599 then return code == 504 and "timeout" or "error" end
  for _, c in ipairs(M.CONNECT_TEXTS) do
    if text:find(c, 1, true) then return "error" end
  end
  for _, c in ipairs(M.TIMEOUT_TEXTS) do
    if text:find(c, 1, true) then return "timeout" end
  end
  -- (inference-perf's label of a non-HTTP timeout, FORMATS.md: "Timeout", alone or before its
  -- example message, llmd.harness.inference_perf's "Timeout: ...")
  if text:match("^%s*timeout%s*$") or text:match("^%s*timeout:") then return "timeout" end
  return "error"
end

-- groups (M.error_groups) whose add also counts each cause's kind (M.error_kind) on stage
-- st, as st.failure_kinds = {timeout =, error =, unknown =}: what a load point's failures
-- were (llmd.loadpoints.failure_cause), which the whole run's causes cannot say per load;
-- and each cause on the stage's own groups, st.error_groups (its causes: M.stage_causes).
function M.stage_errors(groups, st)
  st.failure_kinds = st.failure_kinds or { timeout = 0, error = 0, unknown = 0 }
  st.error_groups = st.error_groups or M.error_groups()
  local k, own = st.failure_kinds, st.error_groups
  return { add = function(status, message, n)
    groups.add(status, message, n)
    own.add(status, message, n)
    local kind = M.error_kind(status, message)
    k[kind] = k[kind] + (n or 1)
  end, list = groups.list }
end

-- A stage's failures by cause, as the run's errors ({cause, status, count, example}, most
-- first), or nil where its reader grouped none per stage (its failures are the run's only).
function M.stage_causes(st)
  if st.error_groups then
    local json = require "llmd.json"
    local out = json.array {}
    for _, e in ipairs(st.error_groups.list()) do
      out[#out + 1] = { cause = e.cause, status = e.status, count = e.count, example = e.example }
    end
    return out
  end
  return st.errors
end

-- Run health ----------------------------------------------------------------------------

-- Lines of a harness's stderr.log that mean the harness stopped before it finished
-- (matched case-sensitively, as plain text).
M.PREMATURE_PATTERNS = {
  "Traceback (most recent call last)",
  "Killed",
  "OOMKilled",
  "Segmentation fault",
  "MemoryError",
  "KeyboardInterrupt",
  "command terminated with exit code",
  "Terminated",
  "Aborted (core dumped)",
  "No space left on device",
}

-- {file=, line=, text=, pattern=} of the first premature-termination line, or nil.
function M.check_stderr(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local n = 0
  for line in f:lines() do
    n = n + 1
    for _, p in ipairs(M.PREMATURE_PATTERNS) do
      if line:find(p, 1, true) then
        f:close()
        return { file = path, line = n, text = line:sub(1, 200), pattern = p }
      end
    end
  end
  f:close()
  return nil
end

-- Cross-checks ----------------------------------------------------------------------------

-- Warn where two sets both know a key and differ by more than tol (relative, 0.01 = 1 %).
-- Each disagreement is also a data check (run.checks: {key, computed, reported, source,
-- apart_pct, text}), which the report shows and which makes the run's status "warnings".
-- stage (optional): the stage the two sets describe; a count of requests that disagrees
-- (the per-request data holds fewer or more than the file's own count: a file cut short)
-- is kept on it as stage.count_check = the check's text (llmd.loadpoints reads no load from
-- such a stage).
-- The computed figure (the per-request data's) is the one the run uses, so the check is
-- resolved (check.resolved = true: the disagreement is reported, the figure is not in doubt);
-- kept (optional, a set of keys): those whose reported figure the run keeps, which a
-- disagreement leaves in doubt (check.resolved = false: a verdict that reads it says so).
function M.crosscheck(run, computed, reported, keys, what, tol, stage, kept)
  tol = tol or 0.01
  run.checks = run.checks or {}
  for _, key in ipairs(keys) do
    local a, b = computed.values[key], reported.values[key]
    if a and b then
      -- how many figures were compared at all (run.crosschecked): the report says "no check
      -- failed" only where some check ran, never for a run with nothing to compare
      run.crosschecked = (run.crosschecked or 0) + 1
      local scale = math.max(math.abs(a), math.abs(b))
      if scale > 0 and math.abs(a - b) / scale > tol then
        local apart = math.abs(a - b) / scale * 100
        local kept_it = kept and kept[key]
        M.warn(run, "%s: computed from per-request data %s, %s says %s (%.1f %% apart)%s", key,
          metrics.format(key, a), what, metrics.format(key, b), apart, kept_it
          and "; the file's figure is kept, so it is in doubt" or "; the per-request figure is used")
        run.checks[#run.checks + 1] = { key = key, computed = a, reported = b, source = what, apart_pct = apart,
          text = run.warnings[#run.warnings], resolved = not kept_it }
        if stage and not stage.count_check and (key == "requests_ok" or key == "requests_failed") then
          stage.count_check = run.warnings[#run.warnings]
        end
      end
    end
  end
end

-- Per-request accumulation ------------------------------------------------------------------

-- Does a completed request {ttft =, tpot =, e2e =} (seconds) meet every threshold of th
-- ({ttft =, tpot =, e2e =}, llmd.decision.request_thresholds)? A threshold the request has
-- no value for (not streamed, one token) is not met.
-- A request of at most one output token (r.single, its count known) has no decode phase, so no
-- TPOT to hold it to (vLLM's goodput takes its TPOT as 0); r.ttft_one is the TTFT of a stream
-- of one token time, which the TTFT statistics leave out (inference-perf's rule) but which is
-- its TTFT all the same. An unknown value otherwise fails its SLO.
function M.request_good(th, r)
  local function within(v, limit) return limit == nil or (v ~= nil and v <= limit) end
  local ttft = r.ttft
  if ttft == nil then ttft = r.ttft_one end
  return within(ttft, th.ttft) and (within(r.tpot, th.tpot) or (r.tpot == nil and r.single == true))
    and within(r.e2e, th.e2e)
end

-- The first threshold of th that completed request r has no value for (M.request_good: not
-- met), "TTFT", "TPOT" or "end-to-end latency", or nil. A load point none of whose completed
-- requests could be judged has no goodput: counting them all as failing would make it up
-- (every request of a run that did not stream fails a TTFT SLO: goodput 0, attainment 0 %,
-- for a server that may have met it). (Some unjudged among judged ones count as not met.)
function M.request_unjudged(th, r)
  if th.ttft and r.ttft == nil and r.ttft_one == nil then return "TTFT" end
  if th.tpot and r.tpot == nil and r.single ~= true then return "TPOT" end
  if th.e2e and r.e2e == nil then return "end-to-end latency" end
  return nil
end

-- Why a load point's goodput is unknown: none of its n completed requests had a value for
-- what (M.request_unjudged), or another threshold.
function M.unjudged_text(n, what)
  return ("none of its %d completed request%s has a %s to hold to the SLO (not measured: not streamed, or no "
    .. "per-token times), so whether any met it is unknown"):format(n, n == 1 and "" or "s", what)
end

-- The most requests an accumulator keeps in their order (M.accumulator's seq): beyond them
-- the design effects (M.sample_design_effects) are estimated on the first M.SEQ_MAX.
M.SEQ_MAX = 200000

-- An empty record of requests in their order (M.accumulator's seq): n, and the columns
-- start, ttft, latency, tpot, ntpot (a number, or false for unknown) and outcome = {n, start,
-- failed}, each a stats.column (C doubles: a kept request costs 8 bytes a value).
-- push(start, ttft, latency, tpot, ntpot) and outcome.push(start, failed) append one request
-- (the caller counts n, up to M.SEQ_MAX).
function M.new_seq()
  local col = stats.column
  local seq = { n = 0, start = col(), ttft = col(), latency = col(), tpot = col(), ntpot = col(),
    outcome = { n = 0, start = col(), failed = col() } }
  seq.push = stats.appender(seq.start, seq.ttft, seq.latency, seq.tpot, seq.ntpot)
  seq.outcome.push = stats.appender(seq.outcome.start, seq.outcome.failed)
  return seq
end

-- One accumulator for the per-request metrics of a group of requests (overall or a stage).
-- add{ok=, start=, finish=, ttft=, tpot=, ntpot=, e2e=, in_tok=, out_tok=} in seconds;
-- failed requests only widen the time window and count as +inf in the all-requests latency.
-- add_done(start, finish, e2e, ttft, tpot, ntpot, in_tok, out_tok) is add{ok = true, ...}.
function M.accumulator(opts)
  opts = opts or {}
  local function new() return stats.new(opts.sketch and { sketch = opts.sketch } or nil) end
  local a = {
    e2e = new(), e2e_all = new(), ttft = new(), tpot = new(), ntpot = new(), itl = new(),
    ok = 0, failed = 0, incomplete = 0, in_tok = 0, out_tok = 0, in_known = true, out_known = true,
    first = nil, last = nil,
    -- token lengths per completed request (workload match: p50, p90)
    in_len = new(), out_len = new(),
    -- opts.goodput = {ttft =, tpot =, e2e =} (seconds): completed requests meeting every one
    goodput = opts.goodput, good = 0,
  }
  function a.window(start, finish)
    if start and (a.first == nil or start < a.first) then a.first = start end
    if finish and (a.last == nil or finish > a.last) then a.last = finish end
  end
  -- a completed request, its values as arguments (no table: the per-request readers
  -- call it once a request, millions of times); r, when the caller has the request as a
  -- table, is what goodput is judged on
  -- (the seven accumulators in one C call, each value skipped when nil: issue 20, a
  -- call of its own per value was a third of inference-perf's per-request cost; the
  -- window inlined for the same reason)
  local add7 = stats.adder(a.e2e, a.e2e_all, a.ttft, a.tpot, a.ntpot, a.in_len, a.out_len)
  -- the completed requests' latencies in the order they were added (and their starts), up
  -- to M.SEQ_MAX of them: the accumulators sort their samples, and the order is what tells
  -- how dependent neighbouring requests are (M.fill: the design effects); false for unknown
  -- (each column a stats.column: 8 bytes a value in C, not a Lua table's 16 and more; issue
  -- 20, peak memory)
  local seq = M.new_seq()
  a.seq = seq
  -- every finished request's outcome (1 failed, 0 completed) and start, in the order added,
  -- up to M.SEQ_MAX: failures come in bursts where a queue times requests out, and the
  -- error rate's test needs how dependent they are (M.sample_design_effects: failed)
  local fseq, push, opush = seq.outcome, seq.push, seq.outcome.push
  local function outcome(start, failed)
    local n = fseq.n + 1
    if n <= M.SEQ_MAX then
      fseq.n = n
      opush(start or false, failed)
    end
  end
  function a.add_done(start, finish, e2e, ttft, tpot, ntpot, in_tok, out_tok, r)
    local n = seq.n + 1
    if n <= M.SEQ_MAX then
      seq.n = n
      push(start or false, ttft or false, e2e or false, tpot or false, ntpot or false)
    end
    outcome(start, 0)
    if start and (a.first == nil or start < a.first) then a.first = start end
    if finish and (a.last == nil or finish > a.last) then a.last = finish end
    a.ok = a.ok + 1
    if in_tok then a.in_tok = a.in_tok + in_tok else a.in_known = false end
    if out_tok then a.out_tok = a.out_tok + out_tok else a.out_known = false end
    add7(e2e, e2e, ttft, tpot, ntpot, in_tok, out_tok)
    if a.goodput then
      local q = r or { ttft = ttft, tpot = tpot, e2e = e2e }
      if M.request_good(a.goodput, q) then
        a.good = a.good + 1
      else
        local what = M.request_unjudged(a.goodput, q)
        if what then a.unjudged, a.unjudged_what = (a.unjudged or 0) + 1, a.unjudged_what or what end
      end
    end
  end
  function a.add(r)
    if r.incomplete then
      a.window(r.start, r.finish)
      a.incomplete = a.incomplete + 1
      return
    end
    if not r.ok then
      a.window(r.start, r.finish)
      a.failed = a.failed + 1
      outcome(r.start, 1)
      a.e2e_all:add(math.huge)
      return
    end
    a.add_done(r.start, r.finish, r.e2e, r.ttft, r.tpot, r.ntpot, r.in_tok, r.out_tok, r)
  end
  return a
end

-- Request and token rates of an accumulator's completed requests over dur seconds; an
-- unknown token count leaves its rates out.
function M.put_rates(set, dur, a, src)
  M.put(set, "throughput_req_s", a.ok / dur, src)
  if a.out_known then M.put(set, "throughput_tok_s", a.out_tok / dur, src) end
  if a.out_known and a.in_known then M.put(set, "throughput_total_tok_s", (a.in_tok + a.out_tok) / dur, src) end
end

-- A run model for a harness module's candidate (see llmd.harness).
function M.start(h, c)
  local run = M.new(h.name, c.dir)
  run.files = c.files
  run.percentile_method = h.percentile_method
  return run
end

-- Adds src's requests to dst (both from M.accumulator).
function M.merge_accumulator(dst, src)
  for _, k in ipairs { "e2e", "e2e_all", "ttft", "tpot", "ntpot", "itl", "in_len", "out_len" } do
    dst[k]:merge(src[k])
  end
  for _, k in ipairs { "ok", "failed", "incomplete", "in_tok", "out_tok", "good" } do dst[k] = dst[k] + src[k] end
  local d, sq = dst.seq, src.seq
  local read = stats.reader(sq.start, sq.ttft, sq.latency, sq.tpot, sq.ntpot)
  for i = 1, math.min(sq.n, M.SEQ_MAX - d.n) do d.push(read(i)) end
  d.n = math.min(M.SEQ_MAX, d.n + sq.n)
  local fo, fi = d.outcome, sq.outcome
  if fo and fi then
    read = stats.reader(fi.start, fi.failed)
    for i = 1, math.min(fi.n, M.SEQ_MAX - fo.n) do fo.push(read(i)) end
    fo.n = math.min(M.SEQ_MAX, fo.n + fi.n)
  end
  dst.in_known = dst.in_known and src.in_known
  dst.out_known = dst.out_known and src.out_known
  dst.window(src.first, src.last)
end

-- The indexes 1..seq.n of an accumulator's ordered requests (or outcomes: seq.start beside
-- them) in the order they were sent where every one has a start time (ties in the order
-- added), else in the order they were added (nil: stats.gather's own order, 1..n):
-- M.sample_design_effects' and M.outcome_design_effect's one order, for stats.gather.
local function send_order(seq)
  -- (by start, ties in the order added, in C, a column: nil where a start is unknown (false);
  -- where they are in order already that is 1..n)
  return stats.order(seq.start)
end

-- The design effect of the failure indicator (1 failed, 0 completed) of every finished
-- request (fseq: an accumulator's seq.outcome) in send order where every one has a start
-- time (ties in the order added), else in the order added; nil without it.
function M.outcome_design_effect(fseq)
  if not fseq or fseq.n == 0 then return nil end
  -- (the order's column freed as this returns, as below)
  local order <close> = send_order(fseq)
  return require("llmd.decision").design_effect(stats.gather(fseq.failed, order, true))
end

-- The design effect of each latency kind of an accumulator's ordered requests (seq, from
-- M.accumulator): {ttft =, latency =, tpot =, ntpot =, itl = (the TPOT's)} (llmd.decision.design_effect),
-- and of their values, for a mean's interval: {ttft_mean =, ..., itl_mean = (the TPOT's)}
-- (llmd.decision.value_design_effect),
-- each over the requests that have it, in the order they were sent where every one has a start time (a
-- reader may add them as they finished), else in the order they were added; nil without seq.
function M.sample_design_effects(seq)
  if not seq or seq.n == 0 then return nil end
  -- (a column, freed as this returns: Lua's collector counts a column as its handle alone,
  -- and let the order of 300,000 requests, 2.4 MB, stay until much later)
  local order <close> = send_order(seq)
  local decision = require("llmd.decision")
  local out, count, xs_ttft = {}, {}, nil
  for _, kind in ipairs { "ttft", "latency", "tpot", "ntpot" } do
    -- (the unknown left out; a column, which the C of the sums below reads as it is: a Lua
    -- table a kind, read again by each, was most of this function's time; issue 20)
    local xs = stats.gather(seq[kind], order, true)
    count[kind] = #xs
    if kind == "ttft" then xs_ttft = xs end
    -- and the values' own, which a mean's interval reads (llmd.decision.value_design_effect;
    -- both together below decision.DEFF_MIN_N values: llmd.decision.design_effects)
    out[kind], out[kind .. "_mean"] = decision.design_effects(xs)
    -- and each percentile's, its indicator's (llmd.decision.quantile_design_effects), at the
    -- value at its nearest rank: ttft_p90 =, ... (none where a value is not a number)
    local q = decision.quantile_design_effects(xs)
    for _, p in ipairs(metrics.PCTS) do out[kind .. "_" .. p[1]] = q[p[1]] end
  end
  -- A request's E2E latency and its NTPOT (E2E over its output tokens) contain its TTFT, its
  -- wait in the queue: below decision.DEFF_MIN_N requests, where the TTFTs' dependence is
  -- unmeasured (decision.deff_unmeasured: their lag-1 correlation above 2 / sqrt(n)), so is
  -- theirs, however little their own lag-1 shows: the decode time each adds at random hides the
  -- queue's (fixg46, audit46: queue_sim.py 20 slots at 7.5 req/s, 82 requests, seeds 2034 and
  -- 2035: B's TTFT lag-1 0.77, its E2E's below the bound, and E2E p50/p95 "A better", p 2.2e-04,
  -- in an A/A pair). TPOT (and ITL, read as the TPOT) leaves the wait out: a request's pace
  -- once decoding, whose dependence is the batch's, measured on its own.
  -- <kind>_ttft_lag1: where that made theirs so (their own was measured), the TTFTs' lag-1
  -- correlation, so that the reason a row is untested names whose dependence it is
  -- (llmd.decision.dependence_reason: the TTFTs', the wait they contain, not their own)
  if decision.deff_unmeasured(count.ttft, out.ttft) or decision.deff_unmeasured(count.ttft, out.ttft_mean) then
    local ttft_lag1 = decision.lag1(xs_ttft)
    for _, kind in ipairs { "latency", "ntpot" } do
      local n = count[kind]
      if n > 1 and n < decision.DEFF_MIN_N then
        if not (decision.deff_unmeasured(n, out[kind]) or decision.deff_unmeasured(n, out[kind .. "_mean"])) then
          out[kind .. "_ttft_lag1"] = ttft_lag1
        end
        out[kind] = math.max(out[kind] or 1, n)
        if out[kind .. "_mean"] then out[kind .. "_mean"] = math.max(out[kind .. "_mean"], n) end
      end
    end
  end
  -- ITL's test counts a request as one unit (llmd.decision.itl_test): its requests'
  -- dependence is that of their mean gaps, the TPOT's
  out.itl, out.itl_mean = out.tpot, out.tpot_mean
  out.failed = M.outcome_design_effect(seq.outcome)
  return out
end

-- The design effect of an accumulator's token gaps (a.itl) as one sample, the requests their
-- clusters: the gaps of one request share its batch and its pace, so the pooled gaps' mean
-- varies as their requests' mean gaps (TPOTs) do, not as so many independent gaps
-- (tests/sim/fixc41_itl.py: the gaps counted as samples with the TPOTs' design effect,
-- d_tpot, covered 24-48 % of runs). The gaps' mean has the relative variance of a ratio of
-- the requests' gap sums to their gap counts, var(tpot) / mean(tpot)^2 * kish * d_tpot /
-- requests, kish = 1 + CV^2 of the output lengths (Kish's design effect of unequal weights:
-- what is kept are the TPOTs and the lengths, not the two paired); as a design effect of the
-- gaps: gaps * mean(gaps)^2 * that / var(gaps), at least d_tpot. In the simulation the mean's
-- and the percentiles' intervals read with it (llmd.loadpoints.percentile_ci) covered 92-98 %.
-- Without TPOTs to weigh (fewer than 2, no spread): every request's gaps one unit, gaps per
-- completed request times d_tpot. nil without gaps.
function M.gap_design_effect(a, d_tpot)
  local ng = a.itl:count()
  if ng == 0 then return nil end
  local d = math.max(1, d_tpot or 1)
  local nr = a.tpot:count()
  local vg, vt, mg, mt = a.itl:variance(1), a.tpot:variance(1), a.itl:mean(), a.tpot:mean()
  local function ok(x) return type(x) == "number" and x == x and math.abs(x) ~= math.huge end
  if nr < 2 or not (ok(vg) and ok(vt) and ok(mg) and ok(mt)) or vg <= 0 or mt <= 0 then
    return math.max(d, ng / math.max(1, a.ok) * d)
  end
  local kish, lm, lv = 1, a.out_len:count() > 0 and a.out_len:mean(), a.out_len:variance(0)
  if ok(lm) and ok(lv) and lm > 0 then kish = 1 + lv / (lm * lm) end
  return math.max(d, ng * mg * mg * vt / (mt * mt) * kish * d / (nr * vg))
end

-- Fills set from an accumulator (see M.accumulator). method: the percentile method.
function M.fill(set, a, method, why)
  local src = M.PER_REQUEST
  -- the samples themselves, for significance tests between runs (llmd.stats.mann_whitney)
  -- and the intervals of a load point's SLO metrics (llmd.loadpoints.slo_ci)
  set.samples = { latency = a.e2e, ttft = a.ttft, tpot = a.tpot, itl = a.itl, ntpot = a.ntpot }
  -- and how far their order makes them dependent (llmd.decision.design_effect); itl_gaps:
  -- the pooled gaps' own (M.gap_design_effect), which the ITL's intervals read; itl_gaps_mean:
  -- the same from the TPOTs' values' own, which the ITL mean's reads (llmd.loadpoints.sample_deff)
  set.sample_deff = M.sample_design_effects(a.seq)
  if set.sample_deff then
    set.sample_deff.itl_gaps = M.gap_design_effect(a, set.sample_deff.tpot)
    set.sample_deff.itl_gaps_mean = M.gap_design_effect(a, set.sample_deff.tpot_mean)
  end
  why = why or {}
  M.put(set, "requests_ok", a.ok, src)
  M.put(set, "requests_failed", a.failed, src)
  M.put(set, "requests_incomplete", a.incomplete, src)
  if a.ok + a.failed > 0 then
    M.put(set, "error_rate_pct", a.failed / (a.ok + a.failed) * 100, src)
  else
    M.unknown(set, "error_rate_pct", "no finished requests")
  end
  -- the measured window: the requests' first start to last end, or the harness's own
  -- record of the same interval (why.window = {seconds, source}), or unknown (why.no_window)
  local dur, dsrc = a.first and a.last and a.last - a.first, src
  if why.window then dur, dsrc = why.window[1], why.window[2] end
  if why.no_window then dur = nil end
  if dur and dur > 0 then
    M.put(set, "duration_s", dur, dsrc)
    M.put_rates(set, dur, a, dsrc == src and src or (src .. " / " .. dsrc))
  else
    for _, k in ipairs { "duration_s", "throughput_req_s", "throughput_tok_s", "throughput_total_tok_s" } do
      M.unknown(set, k, why.no_window or "no request has both a start and an end time")
    end
  end
  -- per-request token lengths, and goodput against the SLOs' per-request thresholds
  local function lengths(acc)
    if acc:count() == 0 then return nil end
    -- (sd, ddof 1, and n: the sampling noise of the mean, for the workload checks that weigh a
    -- difference against it, llmd.decision.token_gap and check_request_shapes)
    -- (and each percentile's distribution-free 95 % interval, the order statistics at ranks n q
    -- -+ 1.96 sqrt(n q (1 - q)) rounded outward, as llmd.loadpoints.percentile_ci reads a
    -- latency's: nil ends where a rank falls off the sample)
    local n = acc:count()
    local var = n > 1 and acc:variance(1) or nil
    local out = { mean = acc:mean(), p50 = acc:percentile(50, method), p90 = acc:percentile(90, method),
      sd = var and var == var and var >= 0 and math.sqrt(var) or nil, n = n }
    for _, q in ipairs { 50, 90 } do
      local h = 1.959964 * math.sqrt(n * q / 100 * (1 - q / 100))
      local rl, ru = math.floor(n * q / 100 - h), math.ceil(n * q / 100 + h)
      if rl >= 1 and ru <= n then
        out["p" .. q .. "_lo"] = acc:percentile(100 * (rl - 0.5) / n, "nearest")
        out["p" .. q .. "_hi"] = acc:percentile(100 * (ru - 0.5) / n, "nearest")
      end
    end
    return out
  end
  set.token_lengths = { input = a.in_known and lengths(a.in_len) or nil,
    output = a.out_known and lengths(a.out_len) or nil }
  if a.goodput and a.ok + a.failed > 0 then
    -- duration: the requests' window (nil without start times: the stage's duration then)
    set.goodput = { good = a.good, total = a.ok + a.failed, duration_s = dur and dur > 0 and dur or nil }
    -- (no completed request with a value for every threshold: goodput unknown, not 0)
    if a.ok > 0 and a.unjudged == a.ok then set.goodput = { unknown = M.unjudged_text(a.ok, a.unjudged_what) } end
  end
  if a.in_known then M.put(set, "input_tokens_total", a.in_tok, src) end
  if a.out_known then M.put(set, "output_tokens_total", a.out_tok, src) end
  M.unknown(set, "input_tokens_total", "some completed requests have no input token count")
  M.unknown(set, "output_tokens_total", "some completed requests have no output token count")
  M.unknown(set, "throughput_tok_s", "some completed requests have no output token count")
  M.unknown(set, "throughput_total_tok_s", "some completed requests have no token counts")
  local none = a.ok == 0 and "no completed requests"
  M.from_stats(set, "latency", a.e2e, 1000, src, method, none or why.e2e or "no end-to-end latencies")
  M.from_stats(set, "latency_all", a.e2e_all, 1000, src, method, "no finished requests")
  M.from_stats(set, "ttft", a.ttft, 1000, src, method,
    none or why.ttft or "no first-token times (not streamed?)")
  M.from_stats(set, "tpot", a.tpot, 1000, src, method,
    none or why.tpot or "no streamed request with more than one output token")
  M.from_stats(set, "ntpot", a.ntpot, 1000, src, method, none or why.ntpot or "no output tokens")
  M.from_stats(set, "itl", a.itl, 1000, src, method,
    none or why.itl or "no token gaps (not streamed, or one token per request)")
end

-- Why an overall duration cannot come from stage summaries that do not say when each
-- stage ran (the window is not the sum of the stage durations: idle time counts).
M.NO_WINDOW = "the stage summaries give each stage's own duration, not when it ran; the measured window "
  .. "(first request start to last request end, idle time between stages included) needs per-request data "
  .. "or stage start and end times"

-- Overall from measured stage summaries, by formula: counts and totals add up; the window
-- runs from the first stage's start to the last stage's end when every stage says when it
-- ran (else the window and the rates are unknown); a mean is weighted by its own sample
-- count (set.counts[prefix]), and unknown when a stage does not record that count;
-- percentiles cannot be combined from summaries.
function M.combine(run, measured)
  local set, src = run.overall, M.SUMMARY .. " (measured stages combined)"
  -- a metric no stage knows, for one reason: that reason, not the combining one
  for _, m in ipairs(metrics.list) do
    local why = measured[1].metrics.na[m.key]
    for _, st in ipairs(measured) do
      if st.metrics.na[m.key] ~= why or st.metrics.values[m.key] ~= nil then why = nil; break end
    end
    if why then M.unknown(set, m.key, why) end
  end
  local SUMS = { "requests_ok", "requests_failed", "requests_incomplete", "input_tokens_total", "output_tokens_total" }
  local sum = {}
  local function add(k, v) if v then sum[k] = (sum[k] or 0) + v else sum[k .. "?"] = true end end
  for _, st in ipairs(measured) do
    for _, k in ipairs(SUMS) do add(k, st.metrics.values[k]) end
  end
  for _, k in ipairs(SUMS) do
    if not sum[k .. "?"] then M.put(set, k, sum[k], src) end
  end
  -- stages that say when they ran: the window from the first start to the last end
  local first, last = math.huge, -math.huge
  for _, st in ipairs(measured) do
    if not (st.start and st.finish) then first = nil; break end
    first, last = math.min(first, st.start), math.max(last, st.finish)
  end
  if first and last > first then
    M.put(set, "duration_s", last - first, M.SUMMARY .. " (first stage start to last stage end)")
  end
  for _, k in ipairs { "duration_s", "throughput_req_s", "throughput_tok_s", "throughput_total_tok_s" } do
    M.unknown(set, k, M.NO_WINDOW)
  end
  local ok, failed, dur = sum.requests_ok, sum.requests_failed, set.values.duration_s
  if ok and failed and ok + failed > 0 then M.put(set, "error_rate_pct", failed / (ok + failed) * 100, src) end
  if dur and dur > 0 and ok then
    local out, inp = set.values.output_tokens_total, set.values.input_tokens_total
    M.put_rates(set, dur, { ok = ok, out_tok = out, in_tok = inp, out_known = out ~= nil, in_known = inp ~= nil }, src)
  elseif ok == 0 then
    -- no request succeeded in any stage: nothing completed, whatever the window
    for _, k in ipairs { "throughput_req_s", "throughput_tok_s", "throughput_total_tok_s" } do
      M.put(set, k, 0, src .. ": no request succeeded")
    end
  end
  for _, p in ipairs { "latency", "ttft", "tpot", "itl", "ntpot" } do
    local key = p .. "_mean_ms"
    local w, total, missing = 0, 0, nil
    for _, st in ipairs(measured) do
      local m, n = st.metrics.values[key], st.metrics.counts and st.metrics.counts[p]
      -- a stage without samples (n == 0) has nothing to weigh
      if m and n and n > 0 then
        w, total = w + n, total + m * n
      elseif n ~= 0 then
        missing = st
      end
    end
    if missing then
      -- (the stage's file named: "stage 8" alone is hard to find among repeats)
      local file = missing.file and (" in " .. tostring(missing.file):match("[^/]*$")) or ""
      -- (a stage whose mean is unknown for a reason of its own: that reason, not the weights)
      local why = missing.metrics.values[key] == nil and missing.metrics.na[key]
      if why then M.unknown(set, key, ("stage %d's %s%s is unknown: %s"):format(missing.index, key, file, why)) end
      M.unknown(set, key, ("stage %d's summary%s does not record how many samples its %s is over, so the "
        .. "stage means cannot be weighted (weighting by requests would be another quantity)"):format(missing.index,
        file, key))
    elseif w > 0 then
      M.put(set, key, total / w, src .. ", each stage weighted by its own sample count")
    end
  end
  for _, m in ipairs(metrics.list) do
    if m.key:match("_p%d+_ms$") then
      M.unknown(set, m.key, "percentiles cannot be combined across stages from summaries (no per-request file)")
    end
  end
end


-- Quantile grids ------------------------------------------------------------------------------

-- The percentiles of a CDF grid: p0 to p100 in steps of 1, with p99.5 and p99.9 for the tail.
M.CDF_GRID = {}
for q = 0, 99 do M.CDF_GRID[#M.CDF_GRID + 1] = q end
M.CDF_GRID[#M.CDF_GRID + 1] = 99.5
M.CDF_GRID[#M.CDF_GRID + 1] = 99.9
M.CDF_GRID[#M.CDF_GRID + 1] = 100

-- The kinds of per-request samples (set.samples, filled by M.fill) and their grid names.
M.CDF_KINDS = { { "ttft", "ttft_ms" }, { "tpot", "tpot_ms" }, { "itl", "itl_ms" }, { "latency", "e2e_ms" } }

-- From the accumulators the harness reader already filled (no second pass over the data):
-- { ttft_ms = { {q, ms}, ... }, tpot_ms =, itl_ms =, e2e_ms = } (linear interpolation,
-- seconds to ms) and { ttft_ms = sample count, ... }; a kind without samples is absent.
-- nil when there are no samples at all.
function M.cdf(samples)
  if type(samples) ~= "table" then return nil end
  local cdf, count, any = {}, {}, false
  for _, k in ipairs(M.CDF_KINDS) do
    local acc = samples[k[1]]
    if acc and acc:count() > 0 then
      local grid = {}
      -- the whole grid in one call (percentiles only: no other statistic computed)
      local vs = acc:percentiles(M.CDF_GRID, "linear")
      for i, q in ipairs(M.CDF_GRID) do
        local v = vs[i]
        if v ~= nil and v == v and v ~= math.huge then grid[#grid + 1] = { q, v * 1000 } end
      end
      cdf[k[2]], count[k[2]], any = grid, acc:count(), true
    end
  end
  if not any then return nil end
  return cdf, count
end

-- Plain data ---------------------------------------------------------------------------------

local function plain_set(set)
  local json = require "llmd.json"
  local out = json.object {}
  for _, m in ipairs(metrics.list) do
    local v = set.values[m.key]
    if v ~= nil then
      -- JSON has no infinity: a percentile that lands on a failed request says so
      if v == math.huge then v = "+inf" elseif v == -math.huge then v = "-inf" end
      out[m.key] = { value = v, unit = m.unit, source = set.source[m.key], method = set.method[m.key] }
      -- (NTPOT's min (s) where an inference-perf summary gave it above 0, set.ntpot_min_s: a
      -- benchmark report written from the saved model carries it, llmd.br, whose reader keeps
      -- the mean only with it; fixb44: lost in run_model.json, so such a report read N/A)
      if m.key == "ntpot_mean_ms" and type(set.ntpot_min_s) == "number" then out[m.key].min_s = set.ntpot_min_s end
      -- (and the summary's own statistic behind a mean it corrected for one 0, set.ntpot_raw)
      if m.key == "ntpot_mean_ms" and type(set.ntpot_raw) == "table" then
        out[m.key].raw_s = json.object {}
        for k, x in pairs(set.ntpot_raw) do out[m.key].raw_s[k] = x end
      end
    else
      local b = set.bounds and set.bounds[m.key]
      out[m.key] = { value = json.null, unit = m.unit, unknown = set.na[m.key] or "unknown",
        bounds = b and { lo = b.lo, hi = b.hi } or nil }
    end
  end
  return out
end

-- The pace of a load point's answers against its requests, from per-request start and
-- finish times (llmd.stats accumulators: starts, ends, the ends of the requests that
-- succeeded, and lats, each answered request's own latency, finish - start): the rate
-- requests were sent at, over the middle M.PACE_SHARE of their times (10th to 90th
-- percentile, numpy's linear), and the rates answers came back at (all of them, and the
-- successful ones). A server that keeps up answers at the rate it is sent to, whatever its
-- latency and however the latency varies from request to request; an overloaded one
-- answers at its own, lower rate while its queue grows, each request waiting longer than
-- the one sent before it. So the answers' rate is the sends' divided by the slope of the
-- finish times on the start times (least squares over every answered request: a queue
-- growing by 1 s a second of sends doubles it), from the variances alone, cov(start,
-- finish) = (var(start) + var(finish) - var(latency)) / 2, which no latency, long or
-- spread, moves: only its growth does. (The answers' own middle 80 % was read before:
-- a latency spread over tens of seconds widens that span as a queue would, and a server
-- that kept up read saturated.) slope_lo: the slope less 2 standard errors of it (the
-- scatter of the finish times about the line), the least growth the data allow, for
-- llmd.loadpoints.saturation to tell a slope from its noise; a slope below 1 gives the
-- sends' rate (answers cannot outpace sends). The slope is fitted over the requests that
-- succeeded (ok_starts, oks and ok_lats: their starts, finishes and latencies): a failed
-- request is no answer served, and vLLM records one that never reached the server with
-- latency 0, finished as it started, so that a crashed repeat's failures pull the line
-- towards 1 and read its queue as kept up (audit40: r20c's crashed repeat at 12 req/s, 416 of
-- 720 failed: slope 0.866 over all, read as 100 % answered; 1.370 over its 304 successes,
-- 73 %). Where fewer than three succeeded there is no line through them: every answered
-- request's (slope_of says which: "successes" | "answered"). ok_starts and ok_lats may be
-- nil only where every answered request succeeded (then they are starts and lats). Without
-- lats (nil), the answers' rates over the middle of their own times, as before. {sends,
-- answered, succeeded (counts), send_rps, answer_rps, success_rps, slope, slope_lo,
-- slope_of (nil where fewer than three times or a zero span)}.
M.PACE_SHARE = 0.8
-- The low e2e percentiles a paced stage keeps of its successes (M.pace: least_s beside
-- them), under the keys M.like_key gives ("e2e_p0_1_s"): those files with statistics only
-- give (vLLM's e2el p0.1, p1, p5; a benchmark report's p0p1, p1, p5).
M.LIKE_QS = { 0.1, 1, 5 }
function M.like_key(q) return ("e2e_p%s_s"):format((("%g"):format(q)):gsub("%.", "_")) end

-- The most requests in flight at once (sent, not yet finished) among requests whose sends and
-- finishes are the samples of starts and ends (one finish each, in the same clock): a sweep
-- over both in time order, a finish before a send at the same instant. nil where the counts
-- differ (a request without its finish) or the samples are not kept. What says whether a
-- client's concurrency cap held its sends back (llmd.harness.inference_perf: its workers').
function M.max_in_flight(starts, ends)
  local n = starts:count()
  if n == 0 or ends:count() ~= n then return nil end
  local s, e = starts:values(n), ends:values(n)
  if not (s and e) then return nil end
  local i, j, cur, most = 1, 1, 0, 0
  while i <= n do
    if j <= n and e[j] <= s[i] then
      cur, j = cur - 1, j + 1
    else
      cur, i = cur + 1, i + 1
      if cur > most then most = cur end
    end
  end
  return most
end

function M.pace(starts, ends, oks, lats, ok_starts, ok_lats)
  local lo_q = (1 - M.PACE_SHARE) / 2 * 100
  local function rate(s)
    local n = s:count()
    if n < 2 then return nil end
    local q = s:percentiles({ lo_q, 100 - lo_q }, "linear")
    local span = q[2] - q[1]
    if span <= 0 then return nil end
    return (n - 1) * M.PACE_SHARE / span
  end
  local out = { sends = starts:count(), answered = ends:count(), succeeded = oks:count(), send_rps = rate(starts) }
  local n = starts:count()
  out.max_in_flight = M.max_in_flight(starts, ends)
  if not lats then
    out.answer_rps, out.success_rps = rate(ends), rate(oks)
    return out
  end
  if n < 3 or ends:count() ~= n or lats:count() ~= n or not out.send_rps then return out end
  -- the line through the successes (every answered request where all succeeded, or where
  -- fewer than three did)
  local k = oks:count()
  local S, E, L, m, of = starts, ends, lats, n, "successes"
  if k < n then
    if not (ok_starts and ok_lats) then
      error("llmd.runmodel.pace: the successes' starts and latencies are needed where a request failed", 2)
    end
    if ok_starts:count() ~= k or ok_lats:count() ~= k then
      error(("llmd.runmodel.pace: %d successes' finishes, but %d starts and %d latencies"):format(k,
        ok_starts:count(), ok_lats:count()), 2)
    end
    if k >= 3 then S, E, L, m = ok_starts, oks, ok_lats, k else of = "answered" end
  end
  local vs, ve, vl = S:variance(), E:variance(), L:variance()
  if not (vs and ve and vl and vs > 0) then return out end
  local b = (vs + ve - vl) / (2 * vs)
  if b ~= b or b <= 0 then return out end
  local se = math.sqrt(math.max(ve - b * b * vs, 0) / ((m - 2) * vs))
  out.slope, out.slope_lo, out.slope_of = b, b - 2 * se, of
  -- the successes' least latency and their lowest e2e percentiles (s, linear), which files
  -- with latency statistics only bound it by (M.drain_from_stats): what reads this run's
  -- throughput on such a file's basis where the other run of a comparison has only that
  -- (llmd.loadpoints.rate_like), from its own figures
  if m == k and k >= 1 then
    out.least_s = L:min()
    local q = L:percentiles(M.LIKE_QS, "linear")
    for i, x in ipairs(M.LIKE_QS) do out[M.like_key(x)] = type(q) == "table" and q[i] or nil end
  end
  -- (a slope below 1, latencies shrinking over the run, as after a cold start, would put
  -- the answers above the sends: no server answers more requests than it is sent, so the
  -- answers' rate is held to the sends' (audit37 #7: 1.34 req/s answered of 1.03 sent))
  out.answer_rps = out.send_rps / math.max(b, 1)
  out.success_rps = out.answer_rps * oks:count() / n
  return out
end

-- The accumulators M.pace reads, and add(start, finish, ok_finish, latency, ok_start,
-- ok_latency) adding one answered request to them in one call (the ok_ values false for a
-- failed one); M.pace_of(g) reads them.
function M.pace_accumulators()
  local g = { starts = stats.new(), ends = stats.new(), oks = stats.new(), lats = stats.new(), ok_starts = stats.new(),
    ok_lats = stats.new() }
  g.add = stats.adder(g.starts, g.ends, g.oks, g.lats, g.ok_starts, g.ok_lats)
  return g
end
function M.pace_of(g) return M.pace(g.starts, g.ends, g.oks, g.lats, g.ok_starts, g.ok_lats) end

-- What a load point's saturation is judged by where its files have no per-request start
-- times (so no M.pace): the drain-reduced rate, completed / (window - least latency)
-- (llmd.loadpoints.drain_of), and what says whether a shortfall of it is a queue or could be
-- the latencies' spread. A stage's record: {basis, completed, window_s, least_latency_s,
-- most_latency_s, send_span_s, sends (inference-perf: its send span and count; nil where the
-- files do not say), drain_s (the window past the last request, window - send span) or
-- last_latency_s (the last request's own latency, a least drain: vLLM, whose latencies are
-- in the order requests were sent), tail_share (the share of successes at least that slow,
-- or an upper bound of it from the file's percentiles), tail_basis (which)}.
M.DRAIN_BASIS = "completed / (window - least latency)"

-- The record for a file with no per-request latencies at all, only statistics (vLLM
-- without `latencies`, inferencemax, a benchmark report): completed successes, the window
-- (s), their least latency as the file bounds it. min (s): the file's own minimum, exact
-- (least_kind "min"). Else pcts ({q (0-100), value (s), label}, over the successes): the
-- lowest one (least_kind "percentile", least_q, least_label): the least latency is at most
-- it, and at most ceil(q / 100 x completed) successes lie below it (a linearly
-- interpolated percentile lies between the values ranked floor(h) and floor(h) + 1, h = q
-- / 100 x (n - 1); a nearest rank's at or above ceil(q / 100 x n) of them), kept as
-- below. Only a percentile at most STATS_LEAST_Q: above it, more than the saturation
-- rule's 5 % margin of the successes may lie below P, so (completed - below) / (window - P)
-- cannot show even a server that kept up exactly to have kept up (it is at most 1 - q of
-- its rate): such a bound adds nothing but N/A. Else least_kind "none", least_latency_s 0
-- (least_label the percentile left unused, if any): nothing bounds it but 0.
-- (llmd.loadpoints.drain_rates reads the bounds; nil where window or count is unknown.)
M.STATS_LEAST_Q = 5 -- (1 - llmd.loadpoints.SATURATION_SHARE) x 100
function M.drain_from_stats(completed, window, pcts, min)
  local function fin(x) return type(x) == "number" and x == x and math.abs(x) ~= math.huge end
  if not (fin(completed) and completed > 0 and fin(window) and window > 0) then return nil end
  local rec = { basis = M.DRAIN_BASIS, completed = completed, window_s = window, stats_only = true }
  if fin(min) and min >= 0 and min < window then
    rec.least_kind, rec.least_latency_s, rec.least_label = "min", min, "min"
    return rec
  end
  local low
  for _, x in ipairs(pcts or {}) do
    if fin(x[1]) and fin(x[2]) and x[2] >= 0 and x[2] < window and (not low or x[1] < low[1]) then low = x end
  end
  if low and low[1] > M.STATS_LEAST_Q then
    rec.least_kind, rec.least_latency_s, rec.least_label = "none", 0, low[3] or ("p%g"):format(low[1])
  elseif low then
    rec.least_kind, rec.least_latency_s, rec.least_q = "percentile", low[2], low[1]
    rec.least_label = low[3] or ("p%g"):format(low[1])
    rec.below = math.min(completed, math.ceil(low[1] / 100 * completed - 1e-9))
  else
    rec.least_kind, rec.least_latency_s = "none", 0
  end
  return rec
end

-- The share of latencies at or above d, bounded from a summary's percentiles (pcts: list
-- of {q (0-100), value (s)}, the max as q = 100): 1 - q of the highest percentile below d
-- (at least that share of them is below d), 1 where none is; nil where even the max is
-- below d (the window's drain was no success's: a failed request's). Times within tol of d
-- count as d (a window and a span are differences of epoch times, rounded).
function M.tail_bound(pcts, d, tol)
  tol = tol or 1e-6
  local best, top, label = nil, -math.huge, nil
  for _, x in ipairs(pcts) do
    if x[1] == 100 then top = x[2] end
    if x[1] < 100 and x[2] < d - tol and (not best or x[1] > best) then best, label = x[1], x[3] end
  end
  if top < d - tol then return nil end
  if not best then return 1, "no percentile below it" end
  return 1 - best / 100, label or ("p%g"):format(best)
end

-- The keys of a latency kind's design effects in a sample_deff: its ranks' (kind), its
-- values' own (kind_mean) and its percentiles' (kind_p50, ...: M.sample_design_effects).
local function deff_keys(kind)
  local out = { kind, kind .. "_mean" }
  for _, p in ipairs(metrics.PCTS) do out[#out + 1] = kind .. "_" .. p[1] end
  return out
end

-- The latencies' design effects of a set's sample_deff ({ttft =, tpot =, itl =, latency =},
-- their values' own, ttft_mean =, ..., and their percentiles', ttft_p90 =, ...), or nil: what
-- a saved stage keeps of it besides the failures'.
local function latency_deff(d)
  if type(d) ~= "table" then return nil end
  local out, any = {}, false
  for _, k in ipairs(M.CDF_KINDS) do
    for _, key in ipairs(deff_keys(k[1])) do
      if type(d[key]) == "number" then out[key], any = d[key], true end
    end
  end
  return any and out or nil
end

-- The run model as plain data for llmd.json (every metric {value, unit, source, method} or
-- {value = null, unknown = reason}).
function M.to_plain(run)
  local json = require "llmd.json"
  local stages = json.array {}
  for _, st in ipairs(run.stages) do
    stages[#stages + 1] = {
      index = st.index, rate = st.rate, concurrency = st.concurrency, achieved_rate = st.achieved_rate,
      -- (the client's cap on requests in flight: "none" or a number, llmd.loadpoints.client_cap)
      client_cap = st.client_cap, send_rate = st.send_rate, duration = st.duration, warmup = st.warmup, file = st.file,
      strategy = st.strategy, offered_why = st.offered_why, requests = st.requests, metrics = plain_set(st.metrics),
      goodput = st.metrics.goodput,
      token_lengths = st.metrics.token_lengths, pace = st.pace, drain = st.drain, failure_kinds = st.failure_kinds,
      errors = M.stage_causes(st),
      -- (the failures' design effect in send order: the error rate's test, M.sample_design_effects)
      failure_deff = st.metrics.sample_deff and st.metrics.sample_deff.failed,
      -- (each percentile's 95 % interval from its requests: llmd.loadpoints.percentile_ci,
      -- which capacity at an SLO is ordered by; the samples themselves are not saved)
      percentile_ci = st.metrics.percentile_ci or require("llmd.loadpoints").stage_percentile_cis(st.metrics),
      -- (the stage's latency quantile grid and the latencies' design effects in send order:
      -- the CDF chart pools the loads both runs sustained and could test, llmd.charts.latency_cdf)
      cdf = st.cdf, cdf_count = st.cdf_count, latency_deff = latency_deff(st.metrics.sample_deff),
    }
  end
  local errors = json.array {}
  for _, e in ipairs(run.errors) do
    errors[#errors + 1] = { cause = e.cause, status = e.status, count = e.count, example = e.example }
  end
  return {
    harness = run.harness, tool = run.tool, version = run.version, dir = run.dir, root = run.root,
    files = json.array(run.files), status = run.status, reasons = json.array(run.reasons),
    token_source = run.token_source, percentile_method = run.percentile_method,
    requests = run.requests, overall = plain_set(run.overall), stages = stages, errors = errors,
    stages_why = #run.stages == 0 and run.stages_why or nil,
    goodput = run.overall.goodput, token_lengths = run.overall.token_lengths, gpus = run.gpus,
    gpus_source = run.gpus_source, model = run.model, models = run.models, served_model = run.served_model,
    failure_deff = run.overall.sample_deff and run.overall.sample_deff.failed,
    percentile_ci = run.overall.percentile_ci or require("llmd.loadpoints").stage_percentile_cis(run.overall),
    warnings = json.array(run.warnings), warmup_stages = json.array(run.warmup_stages or {}),
    checks = json.array(run.checks or {}), config = json.object(run.config or {}), config_source = run.config_source,
    partial = run.partial, crosschecked = run.crosschecked or 0,
    cdf = run.cdf, cdf_count = run.cdf_count,
    -- (a model saved with every stage's drain-reduced rate figures where its files give
    -- them: llmd.comparison.saved_side says when an older one is judged by the achieved rate)
    drain_saved = true,
    -- (and the bounds of files with latency statistics only: llmd.comparison.old_saturation)
    drain_stats_saved = true,
    -- (and guidellm's aggregate-only benchmarks' drain-reduced rate, from request_latency:
    -- llmd.comparison.old_saturation)
    guidellm_drain_saved = true,
    -- (a v0.2 benchmark report's GPUs counted as count x replicas, session 43: one saved
    -- before has one replica's, llmd.comparison.old_gpus; never set on a model read with that
    -- stale count, run.gpus_stale, which saving again does not correct)
    gpus_replicas_saved = not run.gpus_stale or nil,
  }
end

-- The inverse of M.to_plain (a run model saved as JSON): no samples, so no significance
-- tests from it.
function M.from_plain(doc, path)
  if type(doc) ~= "table" or type(doc.overall) ~= "table" then
    error((path or "run model") .. ": expected a saved run model with 'overall'", 0)
  end
  local json = require "llmd.json"
  local function unplain(t)
    local set = M.set()
    for key, e in pairs(t or {}) do
      if metrics.has(key) and type(e) == "table" then
        local v = e.value
        if v == "+inf" then v = math.huge elseif v == "-inf" then v = -math.huge end
        if type(v) == "number" then
          set.values[key], set.source[key], set.method[key] = v, e.source, e.method
          -- (NTPOT's min, plain_set; a model saved before fixb44 has none: as before, no min)
          if key == "ntpot_mean_ms" and type(e.min_s) == "number" then set.ntpot_min_s = e.min_s end
          if key == "ntpot_mean_ms" and type(e.raw_s) == "table" then
            set.ntpot_raw = {}
            for k, x in pairs(e.raw_s) do if type(x) == "number" then set.ntpot_raw[k] = x end end
          end
        else
          set.na[key] = e.unknown or "unknown"
          -- (the bracket an SLO judges on: M.put_bounds)
          if type(e.bounds) == "table" then M.put_bounds(set, key, e.bounds) end
        end
      end
    end
    return set
  end
  local run = M.new(doc.harness, doc.dir)
  local function opt(v) if v == json.null then return nil end return v end
  run.tool, run.version, run.root = opt(doc.tool), opt(doc.version), opt(doc.root)
  run.files, run.status, run.reasons = doc.files or {}, doc.status or "ok", doc.reasons or {}
  run.token_source, run.percentile_method = opt(doc.token_source), opt(doc.percentile_method)
  run.requests, run.warnings, run.warmup_stages = doc.requests or {}, doc.warnings or {}, doc.warmup_stages or {}
  run.checks = doc.checks or {}
  -- (false: an older save, which does not say whether any figure was compared)
  run.crosschecked = type(doc.crosschecked) == "number" and doc.crosschecked or false
  run.partial = type(doc.partial) == "string" and doc.partial or nil
  run.config, run.config_source = type(doc.config) == "table" and doc.config or {}, opt(doc.config_source)
  run.overall = unplain(doc.overall)
  local function tab(v) return type(v) == "table" and v or nil end
  run.overall.goodput, run.overall.token_lengths = tab(doc.goodput), tab(doc.token_lengths)
  -- (the failures' design effect, which the error rate's test reads: no samples needed)
  local function fdeff(v) return type(v) == "number" and v >= 1 and { failed = v } or nil end
  run.overall.sample_deff = fdeff(doc.failure_deff)
  -- (the percentiles' intervals compare.lua saved: llmd.loadpoints.stage_percentile_cis)
  local function fci(v) return type(v) == "table" and v or nil end
  run.overall.percentile_ci = fci(doc.percentile_ci)
  run.gpus, run.gpus_source, run.model = opt(doc.gpus), opt(doc.gpus_source), opt(doc.model)
  -- (the several models a benchmark report's stack lists, each a string, else none)
  if type(doc.models) == "table" and #doc.models > 1 then
    run.models = {}
    for i, x in ipairs(doc.models) do run.models[i] = tostring(x) end
  end
  -- (the model vLLM's scrapes or logs name: llmd.kvcache.served_model)
  run.served_model = type(doc.served_model) == "table" and doc.served_model or nil
  run.stages_why = type(doc.stages_why) == "string" and doc.stages_why or nil
  -- a saved quantile grid (M.cdf's), checked; where names where it was read
  local function grid(cdf, where)
    if type(cdf) ~= "table" then return nil end
    local out = {}
    for _, k in ipairs(M.CDF_KINDS) do
      local g = cdf[k[2]]
      if type(g) == "table" then
        for i, p in ipairs(g) do
          if type(p) ~= "table" or type(p[1]) ~= "number" or type(p[2]) ~= "number" then
            error(("%s: %s.%s[%d]: expected [percentile, value]"):format(path or "run model", where, k[2], i), 0)
          end
        end
        out[k[2]] = g
      end
    end
    return out
  end
  run.cdf = grid(doc.cdf, "cdf")
  if run.cdf then run.cdf_count = type(doc.cdf_count) == "table" and doc.cdf_count or {} end
  for _, st in ipairs(doc.stages or {}) do
    local s = M.stage(st.index)
    s.rate, s.concurrency, s.achieved_rate = opt(st.rate), opt(st.concurrency), opt(st.achieved_rate)
    s.send_rate = opt(st.send_rate)
    s.client_cap = (st.client_cap == "none" or type(st.client_cap) == "number") and st.client_cap or nil
    s.offered_why = type(st.offered_why) == "string" and st.offered_why or nil
    s.duration, s.warmup, s.file, s.strategy = opt(st.duration), st.warmup, opt(st.file), opt(st.strategy)
    s.requests = st.requests or {}
    s.metrics = unplain(st.metrics)
    s.metrics.goodput, s.metrics.token_lengths = tab(st.goodput), tab(st.token_lengths)
    s.pace = tab(st.pace)
    s.drain = tab(st.drain)
    s.failure_kinds = tab(st.failure_kinds)
    if type(st.errors) == "table" then
      s.errors = {}
      for _, e in ipairs(st.errors) do
        if type(e) == "table" then
          s.errors[#s.errors + 1] = { cause = e.cause, status = opt(e.status), count = e.count, example = e.example }
        end
      end
    end
    s.metrics.sample_deff = fdeff(st.failure_deff)
    if type(st.latency_deff) == "table" then
      s.metrics.sample_deff = s.metrics.sample_deff or {}
      -- (a model saved before the values' own, ttft_mean, ..., has none: a mean's effect
      -- interval then takes the ranks', and says so, llmd.decision.interval_not_evidence)
      for _, k in ipairs(M.CDF_KINDS) do
        for _, key in ipairs(deff_keys(k[1])) do
          local d = st.latency_deff[key]
          if type(d) == "number" and d >= 1 then s.metrics.sample_deff[key] = d end
        end
      end
    end
    s.cdf = grid(st.cdf, ("stages[%d].cdf"):format(#run.stages + 1))
    if s.cdf then s.cdf_count = type(st.cdf_count) == "table" and st.cdf_count or {} end
    s.metrics.percentile_ci = fci(st.percentile_ci)
    run.stages[#run.stages + 1] = s
  end
  for _, e in ipairs(doc.errors or {}) do
    run.errors[#run.errors + 1] = { cause = e.cause, status = opt(e.status), count = e.count, example = e.example }
  end
  return run
end

-- Files ------------------------------------------------------------------------------------

-- Folders a harness's files are never in (llm-d-benchmark's scrapes and logs, our own
-- workspace state).
local SKIP = { metrics = true, logs = true, analysis = true, [".git"] = true }

-- Every regular file under dir, up to `depth` folders down (4): {path=, name=, dir=}, sorted
-- by path so that every listing and every error is in the same order on every machine.
-- A link is followed only to a regular file inside dir: a link out of the results folder
-- (to /etc, say), or to a folder, is never followed (M.links_out lists them).
function M.files(dir, depth)
  local out = {}
  local root
  local function walk(d, left)
    local names = {}
    for name in lfs.dir(d) do
      if name ~= "." and name ~= ".." then names[#names + 1] = name end
    end
    table.sort(names)
    for _, name in ipairs(names) do
      local p = d .. "/" .. name
      local mode = lfs.symlinkattributes(p, "mode")
      if mode == "link" then
        root = root or M.realpath(dir)
        local real = M.realpath(p)
        mode = real and root and M.inside(root, real) and lfs.attributes(real, "mode") == "file" and "file" or nil
      end
      if mode == "file" and M.only_file
        and (name ~= M.only_file.name or M.realpath(p) ~= M.only_file.real) then
        mode = nil -- extract.lua FILE: only that file
      end
      if mode == "file" then
        out[#out + 1] = { path = p, name = name, dir = d }
      elseif mode == "directory" and left > 0 and not SKIP[name] and name:sub(1, 1) ~= "." then
        walk(p, left - 1)
      end
    end
  end
  walk(dir, depth or 4)
  return out
end

-- The real path of p (links resolved), or nil when it does not exist.
function M.realpath(p)
  return (require("llmd.proc").realpath(p))
end

function M.inside(root, p) return p == root or p:sub(1, #root + 1) == root .. "/" end

-- "name -> target" of every link under dir (depth 4) that M.files does not follow.
function M.links_out(dir, depth)
  local out, root = {}, nil
  local function walk(d, rel, left)
    local names = {}
    for name in lfs.dir(d) do
      if name ~= "." and name ~= ".." then names[#names + 1] = name end
    end
    table.sort(names)
    for _, name in ipairs(names) do
      local p, r = d .. "/" .. name, rel == "" and name or rel .. "/" .. name
      local mode = lfs.symlinkattributes(p, "mode")
      if mode == "link" then
        root = root or M.realpath(dir)
        local real = M.realpath(p)
        if not (real and root and M.inside(root, real) and lfs.attributes(real, "mode") == "file") then
          out[#out + 1] = ("%s -> %s"):format(r, tostring(lfs.symlinkattributes(p, "target")))
        end
      elseif mode == "directory" and left > 0 and not SKIP[name] and name:sub(1, 1) ~= "." then
        walk(p, r, left - 1)
      end
    end
  end
  walk(dir, "", depth or 4)
  return out
end

-- Why a file claimed by its name cannot be read ("empty", "cannot read: ..."), or nil.
function M.unreadable(path)
  local f, err = io.open(path, "rb")
  if not f then return "cannot read: " .. tostring(err) end
  local head, rerr = f:read(1)
  f:close()
  if head == nil then return rerr and ("cannot read: " .. tostring(rerr)) or "empty" end
  return nil
end

-- Whether two files hold the same bytes (sizes first; then read side by side, 1 MiB at a
-- time, so a multi-GB file is never held whole).
function M.same_bytes(p1, p2)
  local s1, s2 = lfs.attributes(p1, "size"), lfs.attributes(p2, "size")
  if not s1 or s1 ~= s2 then return false end
  local h1, h2 = io.open(p1, "rb"), io.open(p2, "rb")
  local eq = h1 ~= nil and h2 ~= nil
  while eq do
    local c1, c2 = h1:read(1 << 20), h2:read(1 << 20)
    if c1 ~= c2 then eq = false elseif c1 == nil then break end
  end
  if h1 then h1:close() end
  if h2 then h2:close() end
  return eq
end

-- The pairs of files in the list that hold the same bytes ({first, second} in list order),
-- empty files left out (those are unreadable, said elsewhere). Only files of one size are
-- read, so a folder of distinct files costs a stat each.
function M.duplicate_files(files)
  local by_size, sizes, out = {}, {}, {}
  for _, p in ipairs(files) do
    local n = lfs.attributes(p, "size")
    if n and n > 0 then
      if not by_size[n] then by_size[n] = {}; sizes[#sizes + 1] = n end
      table.insert(by_size[n], p)
    end
  end
  for _, n in ipairs(sizes) do
    local g, copied = by_size[n], {}
    for j = 2, #g do
      for k = 1, j - 1 do
        if not copied[k] and M.same_bytes(g[k], g[j]) then
          out[#out + 1] = { g[k], g[j] }
          copied[j] = true
          break
        end
      end
    end
  end
  return out
end

-- The pairs of files, one of list a and one of list b, that hold the same bytes ({a, b} in a's
-- order, each file of b paired once), empty files left out. Two runs' result files never do by
-- chance (every latency is read off the clock), so such a pair is one run's file copied into
-- the other's folder (newuser55 #1: a stage file of B's in A's folder read as A's load point).
-- Only files of one size are read.
function M.shared_files(a, b)
  local by_size, out, used = {}, {}, {}
  for _, q in ipairs(b) do
    local n = lfs.attributes(q, "size")
    if n and n > 0 then
      by_size[n] = by_size[n] or {}
      table.insert(by_size[n], q)
    end
  end
  for _, p in ipairs(a) do
    local n = lfs.attributes(p, "size")
    for _, q in ipairs(n and n > 0 and by_size[n] or {}) do
      if not used[q] and M.same_bytes(p, q) then
        out[#out + 1] = { p, q }
        used[q] = true
        break
      end
    end
  end
  return out
end

-- Whether a set of figures (M.set) is a measurement two runs cannot share by chance: some
-- request completed (requests_ok above 0, or not recorded) and the set holds a latency of
-- them above 0 (a value in ms: TTFT, TPOT, ITL, end-to-end), whole number or not. Each is
-- read off the clock request by request, and two measurements never agree on all of them.
-- Nothing else is evidence: counts and token totals are the workload's (equal in every run
-- of it, and in every run whose requests all failed), a duration may be the one the
-- benchmark was set to run for, and a rate is a count over that duration.
function M.is_measurement(set)
  local ok = set.values.requests_ok
  if ok ~= nil and ok <= 0 then return false end
  for k, v in pairs(set.values) do
    if metrics.has(k) and metrics.get(k).unit == "ms" and v > 0 then return true end
  end
  return false
end

-- Whether two sets of figures (M.set) hold the same values (the same keys, every value
-- equal), and whether that says they are one measurement: they are a measurement
-- (M.is_measurement). Equal counts alone say nothing (a fixed workload's counts are equal
-- in every run of it); equal latencies of completed requests, all of them, are one run
-- saved twice, whether its numbers are whole or not. Equal is equal to the last digit a
-- file can say: within 1e-12 of each other (relative), so that a rate a reader computes again
-- from the counts (a benchmark report's mean output length x requests / duration) and the
-- harness's own, which differ in the last bit of a double only, are the same figure; two
-- measurements never come that close on every figure.
local SAME_REL = 1e-12
local function same_number(a, b)
  if a == b then return true end
  if type(a) ~= "number" or type(b) ~= "number" then return false end
  return math.abs(a - b) <= SAME_REL * math.max(math.abs(a), math.abs(b))
end
function M.same_values(s1, s2)
  for k, v in pairs(s1.values) do
    if not same_number(s2.values[k], v) then return false, false end
  end
  for k in pairs(s2.values) do
    if s1.values[k] == nil then return false, false end
  end
  return true, M.is_measurement(s1)
end

-- The one "same results" rule of compare.lua and treatments.lua: whether two run models hold
-- the same figures, every stage's (or, without stages, the whole run's) values equal, and at
-- least one of those stages a measurement (M.same_values). A copied folder does, byte for
-- byte, re-serialised or with its numbers all whole; two measurements never do. A copy of a
-- run none of whose stages is a measurement (every request failed) is not told from another
-- such run by its figures: M.same_files finds it where the bytes are the same.
function M.same_figures(r1, r2)
  if #r1.stages ~= #r2.stages then return false end
  if #r1.stages == 0 then
    local eq, says = M.same_values(r1.overall, r2.overall)
    return eq and says
  end
  local any = false
  for i, st in ipairs(r1.stages) do
    local eq, says = M.same_values(st.metrics, r2.stages[i].metrics)
    if not eq then return false end
    any = any or says
  end
  return any
end

-- How each load point's throughput is read (llmd.loadpoints: the pace of its answers from
-- per-request times, the drain-reduced rate from the window and the least latency, or the
-- harness's own rate): "pace", "drain" or "harness", per stage; "drain_stats" where the
-- drain-reduced rate rests on latency statistics alone (a benchmark report: no send span, no
-- order of the latencies), which cannot tell a queue from the latencies' spread, so that a
-- load the results judge by their send span (inference-perf's stage files) or their
-- latencies' order (vLLM's) is unknown read from the reports.
local function throughput_basis(st)
  if type(st.pace) == "table" then return "pace" end
  if type(st.drain) == "table" then return st.drain.stats_only and "drain_stats" or "drain" end
  return "harness"
end
local BASIS_TEXT = {
  pace = "the pace of its answers, from the per-request times its files hold",
  drain = "the drain-reduced rate, from the window and the least latency, its files holding no per-request times",
  drain_stats = "the drain-reduced rate from latency statistics alone, its files holding neither a send span nor the "
    .. "order of the latencies, so that a shortfall there cannot be told from the latencies' spread",
  harness = "the harness's own rate, its files holding neither per-request times nor a least latency",
}

-- Where two runs of the same figures (M.same_figures) still read their throughput two ways
-- (one's files hold per-request times, the other's, the same run saved as benchmark reports,
-- do not): {a = text, b = text} of the first stage whose bases differ, or nil. The report
-- ranks that throughput (max sustained, capacity, the ladder), so their figures there differ
-- by the reading alone.
function M.throughput_bases_differ(r1, r2)
  for i, st in ipairs(r1.stages or {}) do
    local o = (r2.stages or {})[i]
    if o then
      local x, y = throughput_basis(st), throughput_basis(o)
      if x ~= y then return { a = BASIS_TEXT[x], b = BASIS_TEXT[y] } end
    end
  end
  return nil
end

-- Whether two runs' result files are the same bytes (f1, f2: lists of {rel = the name
-- relative to the run's folder, path = where to read it}): as many, at least one, the same
-- names, each pair byte for byte (M.same_bytes), in whatever order they are listed.
function M.same_files(f1, f2)
  if #f1 == 0 or #f1 ~= #f2 then return false end
  local by = {}
  for _, f in ipairs(f2) do by[f.rel] = f.path end
  for _, f in ipairs(f1) do
    local q = by[f.rel]
    if not q or not M.same_bytes(f.path, q) then return false end
  end
  return true
end

-- A file's name with every run of digits as "#": files of one series share it
-- (benchmark_2025-05-13_04-37-51.json -> benchmark_#-#-#_#-#-#.json).
function M.name_shape(name) return (name:gsub("%d+", "#")) end

-- Records that candidate c claims path by its name but cannot read it: an error when
-- the candidate is resolved, or with opts.tolerant a warning in the run's data checks.
function M.claim_failed(c, path, why)
  c.unreadable = c.unreadable or {}
  c.unreadable[#c.unreadable + 1] = ("%s: %s"):format(path, why)
end

-- Reads one result file with fn(...). Without opts.tolerant its error stops the run as it
-- is, saying --tolerant's way on and where its warning goes (opts.tolerant_warning: "in
-- the report" unless the script says otherwise, as extract.lua, which writes none, does).
-- With it, a file that cannot be read (truncated, corrupt JSON, not the expected shape)
-- is left out: nil, with a warning in the run's data checks that names the file
-- and keeps the reader's own message (its line and column). Ctrl-C and out-of-memory are
-- never a file's fault: they stop the run whatever opts says.
function M.tolerate(run, opts, path, fn, ...)
  local res = table.pack(pcall(fn, ...))
  if res[1] then return table.unpack(res, 1, res.n) end
  local err = res[2]
  if type(err) ~= "string" or err:match("interrupted$") or err:match("not enough memory") then error(err, 0) end
  if not (opts and opts.tolerant) then
    -- the file's own error, with the way on without it (as for a file that cannot be
    -- opened, llmd.harness); any other error (a bug: a traceback) as it is
    local text = require("llmd.errors").text(err)
    if text:sub(1, #path) == path then
      -- (harness.extract collecting: the rest is read, and every such file said in one error)
      if M.collecting then
        M.collecting[#M.collecting + 1] = text
        return false
      end
      error(("%s (--tolerant goes on without this file, with a warning %s)"):format(text,
        opts and opts.tolerant_warning or "in the report"), 0)
    end
    error(err, 0)
  end
  -- the message names the file (with its position) when the reader gave one; where in
  -- llmdlua's own Lua the reader was called is of no use to the user
  err = require("llmd.errors").text(err)
  if err:sub(1, #path) ~= path then err = ("%s: %s"):format(path, err) end
  M.warn(run, "left out (--tolerant): %s", err)
  return false
end

-- Candidates of a harness under dir: the files for which pick(file) is true, grouped by
-- the folder they are in ({dir =, files = {...}} in path order). pick may also return a
-- kind and a value, collected in the candidate as c[kind] (or c.stages for "stage").
function M.group_files(dir, pick)
  local by_dir, order = {}, {}
  for _, f in ipairs(M.files(dir)) do
    local kind, v = pick(f)
    if kind then
      local c = by_dir[f.dir]
      if not c then
        c = { dir = f.dir, files = {}, stages = {} }
        by_dir[f.dir] = c
        order[#order + 1] = c
      end
      c.files[#c.files + 1] = f.path
      if kind == "stage" then
        c.stages[#c.stages + 1] = { index = v, path = f.path }
      elseif type(kind) == "string" then
        c[kind] = f.path
      end
    end
  end
  return order
end

-- The end of every mapping: overall from the measured stages when no per-request data
-- gave it (one stage: its own metrics; several: combined by formula), errors, requests.
function M.close(run, measured, groups, token_source, overall_done)
  if not overall_done then
    if #measured == 0 then
      M.fail(run, "every stage is marked warm-up: nothing is measured")
    elseif #measured == 1 then
      for k, v in pairs(measured[1].metrics) do run.overall[k] = v end
    else
      M.combine(run, measured)
    end
  end
  run.errors = groups.list()
  -- each stage's causes as data from here on (M.stage_causes' list in st.errors, as a saved
  -- run loads them), its groups' functions gone: llmd.parallel hands a run over as data, and
  -- a function anywhere in it made every child read in vain (the parent read that run again)
  for _, st in ipairs(run.stages) do
    if st.error_groups then st.errors, st.error_groups = M.stage_causes(st), nil end
  end
  run.token_source = token_source
  local v = run.overall.values
  run.requests = { ok = v.requests_ok, failed = v.requests_failed, incomplete = v.requests_incomplete }
  return run
end

-- Failure-inclusive latency percentiles from summaries: known only without failures,
-- where they equal the plain ones.
function M.latency_all_from_summary(set, failed, incomplete, src, method)
  for _, p in ipairs { "p50", "p90", "p99" } do
    local v = set.values["latency_" .. p .. "_ms"]
    if failed == 0 and (incomplete or 0) == 0 and v then
      M.put(set, "latency_all_" .. p .. "_ms", v, src, method)
    else
      M.unknown(set, "latency_all_" .. p .. "_ms", "needs every request's latency (each failure counted as +inf)")
    end
  end
end

-- The first n bytes of a file (detection never reads a multi-GB file whole).
function M.peek(path, n)
  local f = io.open(path, "rb")
  if not f then return "" end
  local s = f:read(n or 65536) or ""
  f:close()
  if s:sub(1, 2) == "\31\139" then
    return nil -- gzip: the caller decides by name
  end
  return s
end

-- A small JSON or YAML document, by extension; errors name the file.
function M.load(path)
  if path:match("%.ya?ml$") then
    return require("llmd.yaml").load_file(path)
  end
  return require("llmd.json").read(path)
end

-- Sorting and finishing ---------------------------------------------------------------------

-- Marks stages listed in opts.warmup (stage indexes) as warm-up, sorts stages by index.
function M.finish_stages(run, opts)
  local wu = {}
  for _, i in ipairs(opts and opts.warmup or {}) do wu[tonumber(i)] = true end
  for _, st in ipairs(run.stages) do
    if wu[st.index] then st.warmup = true end
  end
  table.sort(run.stages, function(a, b) return a.index < b.index end)
end

-- The stages that count: not warm-up.
function M.measured(run)
  local out = {}
  for _, st in ipairs(run.stages) do
    if not st.warmup then out[#out + 1] = st end
  end
  return out
end

-- Final pass: every key known or explained, the health verdict.
function M.finish(run, opts)
  local default = ("not reported by %s"):format(run.harness)
  for _, k in ipairs { "prefix_cache_hits", "prefix_cache_queries", "prefix_cache_hit_rate_pct" } do
    M.unknown(run.overall, k, "from vLLM's Prometheus counters, not from the harness")
  end
  M.finish_set(run.overall, default)
  for _, st in ipairs(run.stages) do
    for _, k in ipairs { "prefix_cache_hits", "prefix_cache_queries", "prefix_cache_hit_rate_pct" } do
      M.unknown(st.metrics, k, "from vLLM's Prometheus counters, not from the harness")
    end
    M.finish_set(st.metrics, default)
  end
  local ok = run.overall.values.requests_ok
  if ok == 0 then M.fail(run, "no request succeeded") end
  -- usable, but the files disagree with themselves (or say something the reader must
  -- know): "warnings", never plain "ok"
  if run.status == "ok" and #run.warnings > 0 then run.status = "warnings" end
  local bad = run.root and M.find_stderr(run.root, opts)
  if not bad and run.dir and run.dir ~= run.root then bad = M.find_stderr(run.dir, opts) end
  if bad then
    M.fail(run, ("%s:%d: %s (the harness stopped early: '%s')"):format(bad.file, bad.line, bad.text, bad.pattern))
  end
  return run
end

-- stderr.log in the folder or up to two levels below it.
function M.find_stderr(dir, _)
  local function walk(d, depth)
    local p = d .. "/stderr.log"
    if lfs.attributes(p, "mode") == "file" then
      local bad = M.check_stderr(p)
      if bad then return bad end
    end
    if depth == 0 then return nil end
    local names = {}
    for name in lfs.dir(d) do
      if name ~= "." and name ~= ".." and lfs.attributes(d .. "/" .. name, "mode") == "directory" then
        names[#names + 1] = name
      end
    end
    table.sort(names)
    for _, name in ipairs(names) do
      local bad = walk(d .. "/" .. name, depth - 1)
      if bad then return bad end
    end
  end
  return walk(dir, 2)
end

return M
