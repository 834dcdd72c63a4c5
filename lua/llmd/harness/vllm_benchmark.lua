-- vllm-benchmark (`vllm bench serve --save-result`, formerly benchmark_serving.py): one
-- JSON file per load point, several in one folder for a sweep.
--
-- Latency statistics are in ms with numpy-linear percentiles; TPOT is per request
-- (latency - ttft) / (output tokens - 1); ITL pools every chunk gap; end-to-end latency
-- appears only when --percentile-metrics asked for e2el; TTFT is 0 when it was not
-- measured (non-streamed); older files spell the goodput key "request_goodput:". With
-- --save-detailed the per-request arrays are there and the metrics are computed from them.
--
-- inferencemax (kimbochen/bench_serving, llm-d-benchmark's "inferencemax") writes the same
-- old format with `best_of` and without latencies/start_times: see inferencemax.lua,
-- which is this file with other settings.
local lfs = require "lfs"
local rm = require "llmd.runmodel"
local scan = require "llmd.scan"
local stats = require "llmd.stats"

local function num(v) return type(v) == "number" and v or nil end

-- The keys that tell a result file, said by its first 64 KiB where they are there: the
-- writers put num_prompts (and bench_serving its best_of) among the setup keys and
-- request_throughput among the aggregates, all before the per-request arrays. A file
-- re-serialised with its keys in another order (sorted: `itls` before `num_prompts`) can
-- have an array of every request's token gaps first, megabytes long: a head holding one of
-- the arrays' keys is then told by the keys of its whole top level, read by llmd.scan
-- (which skips the arrays' values; ~0.1 s for 90 MB), once per file for both variants.
local HEAD = 65536
local ARRAY_KEYS = { "input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times",
  "generated_texts", "errors" }
local TELLS = { "request_throughput", "num_prompts", "best_of" }

-- The gzipped files other harnesses name (guidellm's, inference-perf's per-request file, which
-- can be gigabytes): never read whole to be told apart.
local GZ_OTHERS = { ["benchmarks.json.gz"] = true, ["results.json.gz"] = true,
  ["per_request_lifecycle_metrics.json.gz"] = true }

local function has_arrays(head)
  for _, k in ipairs(ARRAY_KEYS) do
    if head:find('"' .. k .. '"%s*:%s*%[') then return true end
  end
  return false
end

-- path -> { stamp =, keys = {name = true}, err = } (keys seen though the file cannot be read)
local top_cache = {}
local function top_keys(path)
  local a = lfs.attributes(path)
  local stamp = a and ("%d %d"):format(a.size, a.modification) or ""
  local c = top_cache[path]
  if c and c.stamp == stamp then return c end
  local keys, rules = {}, {}
  for _, k in ipairs(TELLS) do rules[#rules + 1] = { "$." .. k, function() keys[k] = true end } end
  local ok, err = pcall(scan.json, path, rules)
  c = { stamp = stamp, keys = keys, err = not ok and require("llmd.errors").text(err) or nil }
  top_cache[path] = c
  return c
end

local function new(variant)
  local M = {
    name = variant.name,
    percentile_method = "linear",
    describe = variant.describe,
  }

  -- true when the file at path (head: its first HEAD bytes) is this variant's; false and
  -- why not when it reads as a result file of neither variant
  local function is_ours(path, head)
    if not head then return false end
    if head:find('"request_throughput"', 1, true) and head:find('"num_prompts"', 1, true) then
      return (head:find('"best_of"', 1, true) ~= nil) == variant.best_of
    end
    if #head < HEAD or not has_arrays(head) then return false end
    local top = top_keys(path)
    if top.err then
      -- per-request arrays first, and the file cannot be read to its end: claimed by the
      -- variant its head says (best_of is a setup key), for its reader to name the fault
      -- and where (or --tolerant to leave it out), never passed over as no result file
      return (head:find('"best_of"', 1, true) ~= nil) == variant.best_of
    end
    if not (top.keys.request_throughput and top.keys.num_prompts) then return false end
    return (top.keys.best_of ~= nil) == variant.best_of
  end

  function M.detect(dir)
    local others = {} -- .json files not recognised, by folder
    local cs = rm.group_files(dir, function(f)
      if f.name:match("%.json%.gz$") and not f.name:match("%.pytorch%.json%.gz$") and not GZ_OTHERS[f.name] then
        -- a result file gzipped (its reader's llmd.scan decompresses it): no head to peek at,
        -- so told by the keys of its top level, whose values the scan skips; one that cannot
        -- be read to its end (cut short, results appended) but has them is claimed, for its
        -- reader to name the fault
        local top = top_keys(f.path)
        if not (top.keys.request_throughput and top.keys.num_prompts) then return nil end
        return (top.keys.best_of ~= nil) == variant.best_of or nil
      end
      if f.name:match("%.json$") == nil or f.name:match("%.pytorch%.json$") then return nil end
      if is_ours(f.path, rm.peek(f.path, HEAD)) then return true end
      others[#others + 1] = f
    end)
    -- a file named like this run's result files (benchmark_<date>.json beside
    -- benchmark_<date>.json) that cannot be read as one is a load point lost: said
    for _, c in ipairs(cs) do
      local shapes = {}
      for _, p in ipairs(c.files) do shapes[rm.name_shape(p:match("[^/]+$"))] = true end
      for _, f in ipairs(others) do
        if f.dir == c.dir and shapes[rm.name_shape(f.name)] then
          local head = rm.peek(f.path, HEAD)
          rm.claim_failed(c, f.path, rm.unreadable(f.path)
            or (head and head:match("^%s*$") and "empty")
            or (head and #head == HEAD and has_arrays(head) and "not a vLLM benchmark result (its top level has no "
              .. "request_throughput and num_prompts)")
            or "not a vLLM benchmark result (no request_throughput and num_prompts at its start: truncated or "
              .. "corrupt?)")
        end
      end
    end
    return cs
  end

  local SCALARS = {
    "date", "backend", "endpoint_type", "label", "model_id", "num_prompts", "request_rate", "max_concurrency",
    "duration", "completed", "failed", "total_input_tokens", "total_output_tokens", "request_throughput",
    "request_goodput", '["request_goodput:"]', "output_throughput", "total_token_throughput", "burstiness",
  }
  local STATS = { { "ttft", "ttft" }, { "tpot", "tpot" }, { "itl", "itl" }, { "latency", "e2el" } }
  local fields = {}
  for _, k in ipairs(SCALARS) do fields[#fields + 1] = k end
  local MC_FIELD = 8 -- (max_concurrency's place in fields: its found count)
  assert(fields[MC_FIELD] == "max_concurrency")
  -- percentile keys as vLLM writes them (p99.9 has a dot: a bracketed field name)
  local WHICH = { { "mean", "mean" }, { "p50", "median" }, { "p90", "p90" }, { "p95", "p95" }, { "p99", "p99" },
    { "p999", "p99.9" } }
  local function field(w, s) return w .. "_" .. s .. "_ms" end
  for _, s in ipairs(STATS) do
    for _, w in ipairs(WHICH) do
      local k = field(w[2], s[2])
      fields[#fields + 1] = k:find(".", 1, true) and ('["' .. k .. '"]') or k
    end
  end
  -- the lower e2el percentiles (the llm-d inferencemax profile asks for 0.1, 1, 5, 10, 25):
  -- with the catalogue's, what bounds the least latency of a file without `latencies`
  local LOW_E2EL = { 0.1, 1, 5, 10, 25 }
  for _, q in ipairs(LOW_E2EL) do
    local k = field(("p%g"):format(q), "e2el")
    fields[#fields + 1] = k:find(".", 1, true) and ('["' .. k .. '"]') or k
  end
  local function f(d, k)
    if d[k] ~= nil then return d[k] end
    return d['["' .. k .. '"]']
  end
  -- vLLM's other percentiles (--metric-percentiles: p0.1 to p75 of TTFT, TPOT and ITL, and
  -- e2el's p75), which no figure of the report comes from: read only to be checked against a
  -- file's per-request arrays (check_stated), in a pass of their own (one scan pass takes at
  -- most 64 rules and fields, which the pass above nearly fills), only over a file that has
  -- the arrays
  local LOW_FIELDS = {}
  for _, s in ipairs { "ttft", "tpot", "itl", "e2el" } do
    for _, q in ipairs(s == "e2el" and { 75 } or { 0.1, 1, 5, 10, 25, 75 }) do
      local k = field(("p%g"):format(q), s)
      LOW_FIELDS[#LOW_FIELDS + 1] = k:find(".", 1, true) and ('["' .. k .. '"]') or k
    end
  end

  -- Every mean and percentile of TTFT, TPOT, ITL and e2el the file states that this reader
  -- reads (the catalogue's mean, median, p90, p95, p99, p99.9, and e2el's p0.1 to p25, which
  -- bound the least latency), against its own per-request arrays (acc: the load point's
  -- accumulator, in seconds), each percentile by numpy's linear interpolation as vLLM
  -- computes it, whatever --percentile-method the report uses: a summary figure edited, or
  -- written by another version than its arrays, is a data check (run.checks, a warning), as
  -- counts and means were; and its other percentiles (LOW_FIELDS: p0.1 to p75 of TTFT, TPOT
  -- and ITL, e2el's p75), read for this check alone. Those already compared by rm.crosscheck (skip: catalogue keys) are
  -- left to it. Apart: more than 1 % of the larger (rm.crosscheck's tolerance; twice a
  -- sketch's relative error where wider) and more than 0.001 ms (float noise on ~0 ms).
  local ACC_OF = { ttft = "ttft", tpot = "tpot", itl = "itl", e2el = "e2e" }
  local CHECKED = { "mean", "p0.1", "p1", "p5", "p10", "p25", "median", "p75", "p90", "p95", "p99", "p99.9" }
  local function check_stated(run, d, acc, what, skip, sketch)
    local mt = require "llmd.metrics"
    local tol = math.max(0.01, 2 * (sketch or 0))
    run.checks = run.checks or {}
    for _, s in ipairs(STATS) do
      local x = acc[ACC_OF[s[2]]]
      if x and x:count() > 0 then
        for _, w in ipairs(CHECKED) do
          local k = field(w, s[2])
          local stated = num(f(d, k))
          local key = mt.canonical(k)
          if stated and not skip[key] then
            local q = w == "median" and 50 or tonumber(w:match("^p([%d.]+)$"))
            local v = (w == "mean" and x:mean() or x:percentile(q, "linear")) * 1000
            run.crosschecked = (run.crosschecked or 0) + 1
            local scale = math.max(math.abs(v), math.abs(stated))
            local known = mt.has(key)
            if scale > 0 and math.abs(v - stated) > 0.001 and math.abs(v - stated) / scale > tol then
              local apart = math.abs(v - stated) / scale * 100
              local function fmt(y) return known and mt.format(key, y) or ("%.2f ms"):format(y) end
              -- (the load point's figures are its arrays': the stated one is only checked, so the
              -- disagreement is reported and settled, resolved, as rm.crosscheck's)
              rm.warn(run, "%s: computed from per-request data %s, %s says %s (%.1f %% apart); the per-request "
                .. "figure is used", known and key or k, fmt(v), what, fmt(stated), apart)
              run.checks[#run.checks + 1] = { key = known and key or k, computed = v, reported = stated, source = what,
                apart_pct = apart, text = run.warnings[#run.warnings], resolved = true }
            end
          end
        end
      end
    end
  end

  -- A file whose own rates disagree with its counts and duration. vLLM writes each rate as
  -- count / duration (request_throughput = completed / duration, output_throughput =
  -- total_output_tokens / duration, total_token_throughput = both token totals / duration),
  -- so beyond RATE_TOLERANCE (llmd.harness.benchmark_report's, 1 %: more than the rounding of
  -- a rewritten file) one of the figures was altered. The run uses count / duration: the
  -- figures the per-request path and the drain-reduced rate (which judges saturation) read,
  -- so the throughput shown is the one its saturation is judged by. A data check says both
  -- figures and which one is used; it is left unresolved (either figure may be the altered
  -- one), so the verdicts that read the rate say it is in doubt.
  local RATES = {
    { "throughput_req_s", "request_throughput", "requests_ok", "completed", "req/s" },
    { "throughput_tok_s", "output_throughput", "output_tokens_total", "total_output_tokens", "tok/s" },
    { "throughput_total_tok_s", "total_token_throughput", nil, "total_input_tokens + total_output_tokens", "tok/s" },
  }
  local function check_rates(run, set, path)
    local v = set.values
    local dur = v.duration_s
    if not (dur and dur > 0) then return end
    local name = path:match("[^/]+$")
    local tol = require("llmd.harness.benchmark_report").RATE_TOLERANCE
    for _, r in ipairs(RATES) do
      local count = r[3] and v[r[3]] or (v.input_tokens_total and v.output_tokens_total
        and v.input_tokens_total + v.output_tokens_total)
      local reported = v[r[1]]
      if count and reported then
        local computed = count / dur
        local scale = math.max(math.abs(computed), math.abs(reported))
        if scale > 0 and math.abs(computed - reported) / scale > tol then
          local apart = math.abs(computed - reported) / scale * 100
          local fmt = require("llmd.metrics").format
          rm.warn(run, "%s: %s is %s, but %s / duration = %.0f / %.2f s = %s (%.1f %% apart): vLLM computes the "
            .. "one from the other, so one of these figures was altered, and which is not known; the report uses %s / "
            .. "duration, vLLM's definition%s, so this rate is in doubt", name, r[2], fmt(r[1], reported),
            r[4], count, dur, fmt(r[1], computed), apart, r[3] and r[4] or "the token totals",
            r[1] == "throughput_req_s" and " and the counts and window the drain-reduced rate judges saturation by"
            or "")
          rm.put(set, r[1], computed, rm.SUMMARY .. (": %s / duration (%s disagrees)"):format(r[4], r[2]))
          run.checks[#run.checks + 1] = { key = r[1], computed = computed, reported = reported, source = name,
            apart_pct = apart, text = run.warnings[#run.warnings], resolved = false }
        end
      end
    end
  end

  -- Metrics of one file from its own aggregates.
  local function map_summary(set, d, path)
    local src = rm.SUMMARY
    local ok, n = num(f(d, "completed")), num(f(d, "num_prompts"))
    if not ok then error(path .. ": no numeric 'completed' (expected a vLLM benchmark result)", 0) end
    local failed = num(f(d, "failed"))
    rm.put(set, "requests_ok", ok, src)
    if failed then
      rm.put(set, "requests_failed", failed, src)
      if n then rm.put(set, "requests_incomplete", math.max(0, n - ok - failed), src) end
    elseif n then
      rm.put(set, "requests_failed", n - ok, src .. " (num_prompts - completed)")
      rm.unknown(set, "requests_incomplete", "this format counts every unfinished request as failed")
      failed = n - ok
    end
    if failed and ok + failed > 0 then rm.put(set, "error_rate_pct", failed / (ok + failed) * 100, src) end
    local ttft_zero = f(d, "mean_ttft_ms") == 0
    -- vLLM's TTFT has one value per completed request; its TPOT and ITL counts are not written
    if not ttft_zero and num(f(d, "mean_ttft_ms")) then set.counts.ttft = ok end
    -- its e2el likewise: one latency per completed request
    if num(f(d, "mean_e2el_ms")) then set.counts.latency = ok end
    for _, s in ipairs(STATS) do
      for _, w in ipairs(WHICH) do
        local key = s[1] .. "_" .. w[1] .. "_ms"
        local v = num(f(d, field(w[2], s[2])))
        if require("llmd.metrics").has(key) then
          if ok == 0 then
            -- vLLM writes 0.0 for every statistic when no request completed: not a latency
            rm.unknown(set, key, "no completed requests")
          elseif s[1] == "ttft" and ttft_zero then
            rm.unknown(set, key, "the file says 0: TTFT was not measured (not streamed)")
          elseif v then
            rm.put(set, key, v, src, w[1] ~= "mean" and M.percentile_method or nil)
          elseif s[1] == "latency" then
            rm.unknown(set, key, "no e2el statistics (the run's --percentile-metrics left out e2el)")
          else
            -- said as the report's tables name it, with what the user can change
            local pct = w[1]:match("^p(%d+)$")
            rm.unknown(set, key, pct and ("vLLM's benchmark recorded no %s: the run's --metric-percentiles left "
              .. "out %s"):format(require("llmd.metrics").get(key).label, pct == "999" and "99.9" or pct)
              or ("the file has no %s"):format(field(w[2], s[2])))
          end
        end
      end
    end
    rm.unknown_all(set, "ntpot", "vLLM writes no per-request e2e / output-tokens statistic")
    rm.latency_all_from_summary(set, failed, 0, src, M.percentile_method)
    local dur = num(f(d, "duration"))
    if dur then rm.put(set, "duration_s", dur, src) end
    if num(f(d, "request_throughput")) then rm.put(set, "throughput_req_s", d.request_throughput, src) end
    if num(f(d, "output_throughput")) then rm.put(set, "throughput_tok_s", d.output_throughput, src) end
    if num(f(d, "total_token_throughput")) then rm.put(set, "throughput_total_tok_s", d.total_token_throughput, src) end
    if num(f(d, "total_input_tokens")) then rm.put(set, "input_tokens_total", d.total_input_tokens, src) end
    if num(f(d, "total_output_tokens")) then rm.put(set, "output_tokens_total", d.total_output_tokens, src) end
  end

  -- A file that holds several results, one after another (`vllm bench serve --append-result`
  -- appends each run's JSON to the file, a newline between, each on a line of its own): one
  -- line "FILE holds N vLLM benchmark results appended ..." saying how to split it, raised in
  -- place of the parser's "expected end of input" after the first; nil where the file is not that.
  -- Not read as load points: every load point of this reader is a file (its stage, its name in
  -- the report and the benchmark reports), and the results appended to one file need not be
  -- one run's ladder (--append-result adds whatever ran with that file name).
  local function appended(path, err)
    if not require("llmd.errors").text(err):find("expected end of input", 1, true) then return nil end
    local n = 0
    local ok = pcall(scan.jsonl, path, { { "$.num_prompts", function() n = n + 1 end } })
    if not ok or n < 2 then return nil end
    local sh = require("llmd.template").helpers.sh
    local name = path:match("([^/]+)%.json$") or path:match("([^/]+)%.json%.gz$") or "result"
    local split = path:match("%.gz$") and ("gunzip -c %s | split -l 1 -d --additional-suffix=.json - DIR/%s_")
      :format(sh(path), sh(name)) or ("split -l 1 -d --additional-suffix=.json %s DIR/%s_"):format(sh(path), sh(name))
    return ("%s: holds %d vLLM benchmark results appended one after another (vllm bench serve --append-result), "
      .. "one a line, where llmdlua reads one result, one load point, a file: split it into a folder of its own, "
      .. "one file a line (mkdir DIR && %s), and pass that folder"):format(path, n, split)
  end

  -- One file: its scalars, and its per-request arrays when present.
  local function read_file(path, opts)
    local d
    local arr = { ttfts = {}, latencies = {}, output_lens = {}, input_lens = {}, errors = {}, start_times = {},
      itl_sums = {} }
    local itl = stats.new(opts.sketch and { sketch = opts.sketch } or nil)
    local function collect(name) return function(v) local a = arr[name]; a[#a + 1] = v end end
    local rules = { { "$", function(r) d = r end, fields = fields } }
    for _, name in ipairs { "ttfts", "latencies", "output_lens", "input_lens", "errors", "start_times" } do
      rules[#rules + 1] = { "$." .. name .. "[*]", collect(name) }
    end
    if variant.best_of then
      -- no latencies in this format: a request's chunk gaps add up to its decode time
      rules[#rules + 1] = { "$.itls[*]", function(gaps)
        local sum = 0
        for i = 1, #gaps do sum = sum + gaps[i] end
        arr.itl_sums[#arr.itl_sums + 1] = sum
      end }
    end
    rules[#rules + 1] = { "$.itls[*][*]", itl }
    local ok, res = pcall(scan.json, path, rules)
    local err = res
    if not ok then error(appended(path, err) or err, 0) end
    if type(d) ~= "table" then error(path .. ": expected a JSON object (a vLLM benchmark result)", 0) end
    -- max_concurrency there but null: sent with no concurrency cap; absent: not said
    -- (cap_unknown: vLLM writes the key, null where no --max-concurrency was set, in every
    -- file since that option came, so a file without it says nothing of a cap; fixj50)
    local mc = type(res) == "table" and res.rules and res.rules[1] and res.rules[1].found
    if mc and (mc[MC_FIELD] or 0) > 0 and d.max_concurrency == nil then d.uncapped = true end
    if mc and (mc[MC_FIELD] or 0) == 0 then d.cap_unknown = true end
    if #arr.ttfts > 0 or #arr.latencies > 0 or itl:count() > 0 then
      scan.json(path, { { "$", function(r)
        for k, v in pairs(r) do d[k] = v end
      end, fields = LOW_FIELDS } })
    end
    d.request_goodput = d.request_goodput or d['["request_goodput:"]']
    return d, arr, itl
  end

  local NO_SWEEP_WINDOW = "each invocation file has its own clock and none says when the others ran: the "
    .. "window from the first request to the last, idle time included, is not recorded"
  local NO_LAT = "no per-request latencies in this file (TTFT + chunk gaps stops at the last chunk: not the "
    .. "end-to-end time)"

  -- The whole run of several stages whose files hold per-request TTFTs and chunk gaps but no
  -- latencies (bench_serving's, inferencemax's): rm.close combined its figures from the
  -- stages' summaries, where percentiles cannot be combined; the TTFT's and the ITL's are the
  -- requests' of every stage pooled (each stage's accumulator, as the stages' own figures
  -- read them). The E2E, TPOT and NTPOT stay unknown, for the reason they are: no per-request
  -- end-to-end time is in these files. (audit50 M1: every whole-run percentile read "cannot be
  -- combined across stages from summaries (no per-request file)" beside the per-request TTFTs
  -- the per-load tests used.) Only where every measured stage has them.
  local NO_LAT_WHOLE = "these files hold no per-request end-to-end times (only TTFTs and chunk gaps), and "
    .. "percentiles cannot be combined across stages from their summaries"
  local function whole_run_from_chunks(run, measured, loaded, method)
    local accs = {}
    for _, st in ipairs(measured) do
      local l
      for _, x in ipairs(loaded) do if x.path == st.file then l = x end end
      if not (l and l.acc) or l.has_lat then return end
      accs[#accs + 1] = l.acc
    end
    local set = run.overall
    local src = rm.PER_REQUEST .. ", every stage's requests pooled"
    for _, kind in ipairs { "ttft", "itl" } do
      local m = stats.new()
      for _, a in ipairs(accs) do m:merge(a[kind]) end
      if m:count() > 0 then
        -- (the percentiles' reasons set by the combination give way to the figures)
        for _, x in ipairs(require("llmd.metrics").list) do
          if x.key:match("^" .. kind .. "_p%d+_ms$") then set.na[x.key] = nil end
        end
        rm.from_stats(set, kind, m, 1000, src, method)
      end
    end
    for _, x in ipairs(require("llmd.metrics").list) do
      if x.key:match("^latency_p%d+_ms$") or x.key:match("^tpot_p%d+_ms$") or x.key:match("^ntpot_p%d+_ms$") then
        if set.values[x.key] == nil then set.na[x.key] = NO_LAT_WHOLE end
      end
    end
    -- the E2E and TPOT means: the stages' own (their files'), each weighted by the requests it
    -- is over (bench_serving's: every completed request's E2E, the TPOT of those with more than
    -- one output token), counted from the file's arrays; rm.combine weighed them by the
    -- per-request samples, which these stages do not have, and read them unknown
    local nums = { latency = 0, tpot = 0 }
    local dens = { latency = 0, tpot = 0 }
    for _, st in ipairs(measured) do
      local l
      for _, x in ipairs(loaded) do if x.path == st.file then l = x end end
      local ok, long = 0, 0
      local null = require("llmd.json").null
      for j = 1, #l.arr.errors do
        local e = l.arr.errors[j]
        if e == nil or e == "" or e == null then
          ok = ok + 1
          local out = tonumber(l.arr.output_lens[j])
          if out and out > 1 then long = long + 1 end
        end
      end
      for kind, n in pairs { latency = ok, tpot = long } do
        local v = st.metrics.values[kind .. "_mean_ms"]
        if nums[kind] and type(v) == "number" then
          nums[kind], dens[kind] = nums[kind] + v * n, dens[kind] + n
        elseif n > 0 then
          nums[kind] = nil
        end
      end
    end
    for kind, num_ in pairs(nums) do
      if num_ and dens[kind] > 0 then
        rm.put(set, kind .. "_mean_ms", num_ / dens[kind], rm.SUMMARY .. ", each stage's mean weighted by the "
          .. (kind == "tpot" and "completed requests with more than one output token" or "completed requests")
          .. " it is over (their arrays)")
      end
    end
  end

  -- Per-request accumulation of one file; nil when the arrays are missing or short.
  -- The per-request arrays a file holds, when their lengths disagree (one per request
  -- each): "FILE: per-request arrays of different lengths (ttfts 10, ...)"; nil when they
  -- agree, the file has none, only `latencies` (vLLM without --save-detailed), or none of
  -- ttfts, itls and errors (InferenceX without --save-detailed). A short array would be read
  -- as no per-request data, silently, or pair one request's TTFT with another's tokens.
  local ARRAYS = { "ttfts", "output_lens", "errors", "latencies", "input_lens", "start_times", "itl_sums" }
  local function mismatch(arr, path, prompts)
    local lens, n, differ = {}, nil, false
    for _, name in ipairs(ARRAYS) do
      local k = #arr[name]
      if k > 0 then
        lens[#lens + 1] = ("%s %d"):format(name == "itl_sums" and "itls" or name, k)
        if n and k ~= n then differ = true end
        n = n or k
      end
    end
    if not n then return nil end
    -- (without --save-detailed the writer deletes every array but `latencies` and
    -- `queue_times`: that file is as documented, not cut; its latencies give the least one)
    if #lens == 1 and #arr.latencies > 0 then return nil end
    -- (current InferenceX without --save-detailed deletes ttfts, itls, generated_texts and
    -- errors and keeps input_lens and output_lens (FORMATS.md §4): arrays not saved, not cut;
    -- none of the arrays a request's outcome and times need is there, so there is no
    -- per-request data to use, only the file's own statistics, as for vLLM's)
    if not differ and #arr.ttfts == 0 and #arr.errors == 0 and #arr.itl_sums == 0 then return nil end
    -- (ttfts, output_lens and errors are in every detailed file: one missing is one cut)
    for _, name in ipairs { "ttfts", "output_lens", "errors" } do
      if #arr[name] == 0 then differ = true; lens[#lens + 1] = name .. " 0" end
    end
    if not differ then return nil end
    return ("%s: per-request arrays of different lengths (%s%s): its per-request data is not used, only the "
      .. "file's own summary statistics"):format(path, table.concat(lens, ", "),
      prompts and (", num_prompts %d"):format(prompts) or "")
  end

  -- One failed request's cause (an `errors` entry: the reason, else a traceback whose last
  -- line names it) added to a load point's groups (add: llmd.runmodel.stage_errors' add).
  local function add_error(add, err)
    local text = rm.last_line(tostring(err))
    add(rm.http_status(text), text)
  end

  -- The failures of a file read from its summary (no per-request data used: no latencies, or
  -- arrays of different lengths), by cause (add: llmd.runmodel.stage_errors' add; bad: the
  -- file's mismatch text, if any). Its `errors` array names each failure where it is whole (as
  -- many non-empty entries as the summary's failed); else the reason no cause is known,
  -- the real one (fixj45: a file with `errors` but no `latencies` said "run without
  -- --save-detailed", its errors in it).
  local function summary_errors(arr, failed, add, bad)
    local null, errs = require("llmd.json").null, {}
    for i = 1, #arr.errors do
      local e = arr.errors[i]
      if not (e == nil or e == "" or e == null) then errs[#errs + 1] = e end
    end
    if #arr.errors > 0 and #errs == failed then
      for _, e in ipairs(errs) do add_error(add, e) end
      return
    end
    local why = #arr.errors == 0 and "no per-request errors: run without --save-detailed"
      or ("the file's errors array names fewer or more failed requests than its summary%s"):format(
        bad and "; its per-request arrays have different lengths" or "")
    add(nil, ("cause not recorded (%s)"):format(why), failed)
  end

  local function per_request(arr, itl, opts)
    local n = #arr.ttfts
    if n == 0 or #arr.output_lens ~= n or #arr.errors ~= n then return nil end
    local has_lat = #arr.latencies == n
    if not has_lat and #arr.itl_sums ~= n then return nil end
    local has_start = #arr.start_times == n
    local acc = rm.accumulator(opts)
    local streamed = false
    -- the pace of answers against sends (llmd.runmodel.pace): every request's start and
    -- finish, where the file has both
    local pc = rm.pace_accumulators()
    local add_pace = pc.add
    local paced = has_start and has_lat
    -- (a success is added as its values, no table a request, unless goodput judges it on
    -- that table; and json.null looked up once. Issue 20: a comparison of two 20 MB
    -- --save-detailed files, 6,512 requests, 909 M -> 879 M instructions)
    local null, add_done, goodput = require("llmd.json").null, acc.add_done, acc.goodput
    for i = 1, n do
      local err = arr.errors[i]
      local ok = err == nil or err == "" or err == null
      local ttft = num(arr.ttfts[i])
      -- without latencies (bench_serving) there is no exact end-to-end time: TTFT + chunk
      -- gaps stops at the last chunk, so e2e, TPOT and NTPOT come from the file's own
      -- aggregates (M.extract) or stay unknown
      local e2e = has_lat and num(arr.latencies[i]) or nil
      local start = has_start and num(arr.start_times[i]) or nil
      if start and e2e then add_pace(start, start + e2e, ok and start + e2e, e2e, ok and start, ok and e2e)
      else paced = false end
      if not ok then
        acc.add { ok = false, start = start, finish = start and e2e and start + e2e }
        add_error(opts.groups.add, err)
      else
        local out = num(arr.output_lens[i])
        if ttft == 0 then ttft = nil else streamed = true end
        local finish = start and e2e and start + e2e
        local tpot = (ttft and e2e and out and out > 1) and (e2e - ttft) / (out - 1) or nil
        local ntpot = (e2e and out and out > 0) and e2e / out or nil
        if goodput then
          acc.add { ok = true, start = start, finish = finish, e2e = e2e, ttft = ttft, tpot = tpot, ntpot = ntpot,
            in_tok = num(arr.input_lens[i]), out_tok = out, single = out ~= nil and out <= 1 }
        else
          add_done(start, finish, e2e, ttft, tpot, ntpot, num(arr.input_lens[i]), out)
        end
      end
    end
    -- the pass's own accumulator is the load point's (acc is new: its itl is empty, and a
    -- merge into it would copy every gap to give the same samples, sums and extremes)
    if acc.itl:count() == 0 then acc.itl = itl else acc.itl:merge(itl) end
    local why = {
      ttft = not streamed and "every TTFT is 0: not measured (not streamed)" or nil,
      e2e = NO_LAT, tpot = not has_lat and NO_LAT or nil, ntpot = not has_lat and NO_LAT or nil,
    }
    return acc, why, has_start, has_lat, paced and rm.pace_of(pc) or nil
  end

  -- A file without start times (vLLM without --save-detailed keeps its latencies, in the
  -- order requests were sent): the figures for a drain-reduced rate (llmd.runmodel.
  -- DRAIN_BASIS): the window (duration), the completed requests and their least and most
  -- latency, and whether the last tenth of the requests were the slowest (a queue that
  -- grew): trend_chance, the one-sided chance that latencies in no order put the last
  -- tenth's ranks this high (Mann-Whitney's rank sum against the others, normal, ties
  -- corrected; 1 where every latency is the same). nil where the latencies do not match the
  -- completed count (a failed request's latency is 0: its place is only known by that), or
  -- the window is unknown or shorter than the longest latency.
  -- The design effect of ranks (1..n, in send order) less their least-squares line in send
  -- order (llmd.decision.design_effect); 1 where nothing is left around the line.
  local function trend_design_effect(rank, n)
    local tm, rm_ = (n + 1) / 2, 0
    for i = 1, n do rm_ = rm_ + rank[i] / n end
    local sxy, sxx = 0, 0
    for i = 1, n do sxy, sxx = sxy + (i - tm) * (rank[i] - rm_), sxx + (i - tm) ^ 2 end
    local b, left, most = sxy / sxx, {}, 0
    for i = 1, n do
      left[i] = rank[i] - rm_ - b * (i - tm)
      most = math.max(most, math.abs(left[i]))
    end
    if most < 1e-9 * n then return 1 end
    return require("llmd.decision").design_effect(left)
  end

  local function drain_record(lats, summary)
    local w, ok = summary.values.duration_s, summary.values.requests_ok
    if not (w and w > 0 and ok and ok > 0 and #lats > 0) then return nil end
    local xs, least, most = {}, math.huge, -math.huge
    for _, v in ipairs(lats) do
      if type(v) ~= "number" then return nil end
      if v > 0 then xs[#xs + 1], least, most = v, math.min(least, v), math.max(most, v) end
    end
    if #xs ~= ok then return nil end
    -- (a window shorter than a request's own latency holds no such request: not the
    -- window of these latencies)
    if w < most * (1 - 1e-9) then return nil end
    local rec = { basis = rm.DRAIN_BASIS, completed = ok, window_s = w, least_latency_s = least, most_latency_s = most }
    local n = #xs
    local m = math.floor(n / 10)
    if m >= 1 and n - m >= 1 then
      -- mid-ranks of every latency, and the ties' correction
      local order = {}
      for i = 1, n do order[i] = i end
      table.sort(order, function(a, b) return xs[a] < xs[b] end)
      local rank, ties, i = {}, 0, 1
      while i <= n do
        local j = i
        while j < n and xs[order[j + 1]] == xs[order[i]] do j = j + 1 end
        for k = i, j do rank[order[k]] = (i + j) / 2 end
        local t = j - i + 1
        ties = ties + t * t * t - t
        i = j + 1
      end
      local sum = 0
      for k = n - m + 1, n do sum = sum + rank[k] end
      local var = m * (n - m) / 12 * ((n + 1) - ties / (n * (n - 1)))
      local chance = 1
      -- (every latency the same: no order at all; the variance is 0 up to rounding)
      if var > 1e-9 * m * (n - m) * (n + 1) / 12 then
        local z = (sum - m * (n + 1) / 2) / math.sqrt(var)
        -- neighbouring requests are alike where a server queues (a burst of sends slows
        -- every request behind it): a kept-up server near its capacity puts its last tenth
        -- this high far more often than independent latencies would (audit37: 16 of 40
        -- at 4 req/s below a capacity of 4.78 read a chance <= 0.05). The rank sum's
        -- variance grows by the design effect of the latencies in send order
        -- (llmd.decision.design_effect), read on their ranks less their straight line in
        -- send order, as Hamed & Rao's modified trend test (1998) does: a queue's own trend
        -- is the effect tested, not dependence (a growing queue's ranks are their trend,
        -- whose design effect would hide it)
        local deff = trend_design_effect(rank, n)
        z = z / math.sqrt(deff)
        rec.trend_deff = deff
        local two = require("llmd.stattest").normal_two_sided(z)
        chance = z > 0 and two / 2 or 1 - two / 2
      end
      rec.trend_last, rec.trend_chance = m, chance
    end
    return rec
  end

  -- How the requests of a file without send times went out (llmd.loadpoints.drain_of: its
  -- drain-reduced rate is read against the nominal rate, which the arrivals' own noise moves):
  -- vLLM sends num_prompts requests with gaps drawn from a gamma distribution of shape
  -- burstiness (1: Poisson; files written before --burstiness came have no key and were
  -- Poisson) and mean 1 / request_rate, so the rate they went out at over their span has a
  -- relative standard deviation of about 1 / sqrt(burstiness x (num_prompts - 1)). nil where
  -- the rate is not a finite one (inf: every request at once) or the count is unknown.
  -- {shape, sends, said (false where the file has no burstiness key)}
  local function arrivals_of(d)
    local rate, n = num(d.request_rate), num(d.num_prompts)
    if not (rate and rate > 0 and rate < math.huge and n and n >= 2) then return nil end
    local b = num(d.burstiness)
    if d.burstiness ~= nil and not (b and b > 0) then return nil end
    return { shape = b or 1, sends = n, said = b ~= nil }
  end

  -- the stage indexes extract will give, without reading a file: one load point per file
  function M.stage_indexes(c)
    local t = {}
    for i = 1, #c.files do t[i] = i - 1 end
    return t
  end

  function M.extract(c, opts)
    opts = opts or {}
    local run = rm.start(M, c)
    local groups = rm.error_groups()
    local method = opts.percentile_method or "linear"
    local loaded = {}
    for _, path in ipairs(c.files) do
      -- a file cut short or corrupt: with --tolerant its load point is left out (a data
      -- check names it and the reader's position), else the run stops here
      local ok, d, arr, itl = rm.tolerate(run, opts, path, function()
        local d1, arr1, itl1 = read_file(path, opts)
        map_summary(rm.set(), d1, path) -- (its shape, checked before it counts)
        return d1, arr1, itl1
      end)
      if ok then loaded[#loaded + 1] = { path = path, d = d, arr = arr, itl = itl } end
    end
    -- load points in time order: the date key, then the file name
    table.sort(loaded, function(a, b)
      local da, db = tostring(a.d.date or ""), tostring(b.d.date or "")
      if da ~= db then return da < db end
      return a.path < b.path
    end)
    local overall, all_detailed = rm.accumulator(opts), true
    for i, l in ipairs(loaded) do
      local d = l.d
      local st = rm.stage(i - 1)
      st.file = l.path
      st.rate = num(d.request_rate)
      st.concurrency = num(d.max_concurrency)
      -- the client's cap on requests in flight (--max-concurrency): "none" where the file says
      -- null, its number where set, nil where the file does not say (llmd.loadpoints client_cap)
      st.client_cap = d.uncapped and "none" or num(d.max_concurrency)
      st.duration = num(d.duration)
      st.goodput_req_s = num(d.request_goodput)
      st.date = d.date
      local summary = rm.set()
      map_summary(summary, d, l.path)
      local bad = mismatch(l.arr, l.path, num(d.num_prompts))
      if bad then
        -- said in the Data checks and at once on stderr: without it the run silently has no
        -- per-request data (and its saturation, pace and errors are read from less)
        rm.warn(run, bad)
        io.stderr:write("warning: ", bad, "\n")
      end
      local acc, why, _, has_lat, pace
      if not bad then
        acc, why, _, has_lat, pace = per_request(l.arr, l.itl, { groups = rm.stage_errors(groups, st),
          sketch = opts.sketch,
          goodput = opts.goodput })
      end
      l.acc, l.has_lat, st.pace = acc, has_lat, pace
      -- (sent on vLLM's own Poisson schedule, no --max-concurrency in the file: the sends are
      -- not held back by the answers, so sends behind the offered rate are no server's doing,
      -- llmd.loadpoints.saturation; a file without the field says nothing of it)
      if type(pace) == "table" and d.uncapped then pace.open_loop = true end
      -- (no max_concurrency key: whether the sends were held to a cap is unknown, and where
      -- that decides the point, llmd.loadpoints.saturation says so rather than guess)
      if type(pace) == "table" and d.cap_unknown then
        pace.cap_unknown = "the file has no max_concurrency key, which vLLM writes, null where no --max-concurrency "
          .. "was set"
      end
      if not pace then st.drain = drain_record(l.arr.latencies, summary) end
      if not pace and #l.arr.latencies == 0 then
        -- no latencies at all (vLLM's old writer, inferencemax): the least latency as the
        -- file's e2el percentiles bound it (llmd.runmodel.drain_from_stats), over the
        -- completed requests, in ms
        local pcts = {}
        for _, q in ipairs(LOW_E2EL) do
          local lab = ("p%g"):format(q)
          local v = num(f(d, field(lab, "e2el")))
          if v then pcts[#pcts + 1] = { q, v / 1000, lab } end
        end
        for _, w in ipairs(WHICH) do
          local q = w[1] == "p50" and 50 or w[1] ~= "mean" and tonumber(w[2]:match("^p([%d.]+)$"))
          local v = q and num(f(d, field(w[2], "e2el")))
          if v then pcts[#pcts + 1] = { q, v / 1000, w[2] == "median" and "median" or w[2] } end
        end
        st.drain = rm.drain_from_stats(summary.values.requests_ok, summary.values.duration_s, pcts)
      end
      if st.drain then st.drain.arrivals = arrivals_of(d) end
      if acc then
        -- the window is the file's duration (vLLM's own measure of first request to last
        -- response), on this path as on the summary one
        local dur = summary.values.duration_s
        why.window = dur and dur > 0 and { dur, rm.SUMMARY .. ": duration" } or nil
        rm.fill(st.metrics, acc, method, why)
        if not has_lat then
          -- the file's exact aggregates, where the run asked for them
          for _, prefix in ipairs { "latency_", "latency_all_", "tpot_" } do
            for _, m in ipairs(require("llmd.metrics").list) do
              if m.key:sub(1, #prefix) == prefix and (prefix ~= "latency_" or not m.key:find("^latency_all_")) then
                local v = summary.values[m.key]
                if v then
                  rm.put(st.metrics, m.key, v, summary.source[m.key], summary.method[m.key])
                else
                  st.metrics.values[m.key], st.metrics.source[m.key], st.metrics.method[m.key] = nil, nil, nil
                  st.metrics.na[m.key] = summary.na[m.key] or NO_LAT
                end
              end
            end
          end
        end
        -- (the e2el p99 is st.metrics' by the report's method: with --percentile-method
        -- nearest it is checked by check_stated instead, by vLLM's linear one)
        local keys = { "requests_ok", "requests_failed", "ttft_mean_ms", "tpot_mean_ms", "itl_mean_ms",
          "output_tokens_total" }
        if method == "linear" then keys[#keys + 1] = "latency_p99_ms" end
        rm.crosscheck(run, st.metrics, summary, keys, l.path:match("[^/]+$"), nil, st)
        local skip = {}
        for _, k in ipairs(keys) do skip[k] = true end
        check_stated(run, d, acc, l.path:match("[^/]+$"), skip, opts.sketch)
      else
        -- (the summary's own rates, where they are the run's: with per-request data the
        -- rates are count / duration already, the summary's unread)
        run.checks = run.checks or {}
        check_rates(run, summary, l.path)
        st.metrics = summary
        local failed = summary.values.requests_failed or 0
        if failed > 0 then summary_errors(l.arr, failed, rm.stage_errors(groups, st).add, bad) end
      end
      st.requests = { ok = st.metrics.values.requests_ok, failed = st.metrics.values.requests_failed,
        total = num(d.num_prompts) }
      run.stages[#run.stages + 1] = st
    end
    rm.finish_stages(run, opts)
    local measured = rm.measured(run)
    for _, st in ipairs(measured) do
      local l
      for _, x in ipairs(loaded) do if x.path == st.file then l = x end end
      if l.acc and l.has_lat then rm.merge_accumulator(overall, l.acc) else all_detailed = false end
    end
    -- several load points all with per-request data: pooled; else what rm.close does.
    -- Each invocation has its own clock (perf_counter start times) and the files do not say
    -- when one ended and the next began: the run's window is unknown
    local pooled = #measured > 1 and all_detailed
    if pooled then
      rm.fill(run.overall, overall, method, { no_window = NO_SWEEP_WINDOW })
    end
    if loaded[1] then
      run.model = loaded[1].d.model_id
      run.backend = loaded[1].d.backend
      local src = loaded[1].path:match("[^/]+$")
      rm.config(run, "model", loaded[1].d.model_id, src)
      rm.config(run, "server", loaded[1].d.backend, src)
    end
    rm.close(run, measured, groups, variant.token_source, pooled)
    if not pooled and #measured > 1 then whole_run_from_chunks(run, measured, loaded, method) end
    if #measured > 1 then
      -- the reason that holds for these files: each invocation has its own clock
      for _, k in ipairs { "duration_s", "throughput_req_s", "throughput_tok_s", "throughput_total_tok_s" } do
        if run.overall.values[k] == nil then run.overall.na[k] = NO_SWEEP_WINDOW end
      end
    end
    return run
  end

  return M
end

local M = new {
  name = "vllm-benchmark", best_of = false,
  describe = "vllm bench serve --save-result files, one per load point: any .json file, not .pytorch.json, "
    .. "whose first 64 KiB has \"request_throughput\" and \"num_prompts\" and no \"best_of\" (or, where it opens "
    .. "with per-request arrays, whose top level has them); or a .json.gz whose top level has them",
  token_source = "vLLM's count (prompt lengths from its tokenizer, output from server usage when returned)",
}
M.variant = new
return M
