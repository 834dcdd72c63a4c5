-- llmd.autobench_run: `autobench.lua run` - launch each candidate's server, benchmark every
-- scenario against it, stop it, and append one normalised row per (candidate, scenario).
--
-- The cookbook config may carry a `run:` block (llmdlua's, ignored by the validator):
--   run:
--     port: 30000                 # default: a free port per candidate
--     ready_timeout: 600          # seconds for the server to answer
--     ready_paths: [/health, /v1/models]
--     benchmark_timeout: 3600
--     max_concurrency: 16         # default: the first of benchmark.max_concurrency
--     client_command: "vllm bench serve ... --result-dir {result_dir} --result-filename {result_file}"
--     env: {VAR: value}           # for the server
-- Placeholders in client_command: {base_url} {endpoint} {model} {tokenizer} {input_len}
-- {output_len} {num_prompts} {max_concurrency} {max_concurrency_flag} {result_dir}
-- {result_file} {scenario} {framework} {candidate_id}.
local ab = require "llmd.autobench"
local http = require "llmd.http"
local json = require "llmd.json"
local lfs = require "lfs"
local proc = require "llmd.proc"

local M = {}

M.DEFAULT_CLIENT = ab.DEFAULT_CLIENT

-- lines of a server log that mean it ran out of memory
M.OOM_PATTERNS = { "out of memory", "OutOfMemoryError", "CUDA error: out of memory", "OOM" }

local function now() return os.time() end

local mkdir_p = require("llmd.workspace").mkdir_p -- raises, naming the folder

local function read(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local s = f:read("a")
  f:close()
  return s
end

local function is_oom(text)
  for _, p in ipairs(M.OOM_PATTERNS) do
    if text:find(p, 1, true) then return true end
  end
  return false
end

local function tail(text, n)
  local lines = {}
  for l in text:gmatch("[^\n]+") do lines[#lines + 1] = l end
  return table.concat(lines, " / ", math.max(1, #lines - (n or 2) + 1))
end

-- Rows already in the output, by framework, candidate and scenario (resume).
local function done_rows(path)
  local done = {}
  if lfs.attributes(path, "mode") ~= "file" then return done end
  for _, r in ipairs(ab.read_rows(path)) do
    done[("%s\0%s\0%s"):format(ab.framework(r), tostring(r.candidate_id), ab.scenario(r))] = true
  end
  return done
end

local function append(path, row)
  row._line, row._file = nil, nil
  local f = assert(io.open(path, "ab"))
  f:write(json.encode(row), "\n")
  f:close()
end

local function fill(template, vars)
  return (template:gsub("{([%w_]+)}", function(k)
    local v = vars[k]
    if v == nil then error(("client_command: unknown placeholder {%s}"):format(k), 0) end
    if k:match("_flag$") then return v end -- already command-line words
    return ab.quote(v)
  end))
end

local function exit_text(st)
  return st.code and ("code " .. st.code) or ("signal " .. tostring(st.signal))
end

-- Why the server exited, from its log: "oom" or "failed", and the reason.
local function server_death(st, log, when)
  local text = read(log)
  return is_oom(text) and "oom" or "failed",
    ("the server exited (%s) %s: %s"):format(exit_text(st), when, tail(text, 2))
end

-- Waits until the server answers one of the ready paths; nil, or why not.
local function wait_ready(p, base, paths, timeout, log)
  local t0 = now()
  while true do
    for _, path in ipairs(paths) do
      local ok, r = pcall(http.get, base .. path, { timeout = 5, connect_timeout = 1 })
      if ok and r.status >= 200 and r.status < 300 then return nil end
    end
    local st = p:poll()
    if st then return server_death(st, log, "before answering") end
    if now() - t0 >= timeout then
      return "timeout", ("the server did not answer %s within %d s"):format(table.concat(paths, " or "), timeout)
    end
    p:wait(0.2) -- a pause that also notices the server's exit
  end
end

-- Runs the benchmark client in the background while watching the server: { st = the
-- client's exit } or { timed_out = true } or { server = the server's exit } (the client is
-- stopped at once: a client talking to a dead server would wait for it for minutes).
local function run_client(cargv, blog, server, timeout)
  local ok, c = pcall(proc.spawn, cargv, { stdout = { file = blog }, stderr = "stdout" })
  if not ok then return { spawn_error = tostring(c) } end
  local t0 = now()
  while true do
    local st = c:wait(0.2)
    local sst = server:poll()
    if sst then
      c:kill(2)
      return { server = sst }
    end
    if st then return { st = st } end
    if now() - t0 >= timeout then
      c:kill(5)
      return { timed_out = true }
    end
  end
end

-- The row's metrics (the normalised schema's names) <- the client result's keys, first
-- found: `vllm bench serve` / benchmark_serving.py (also kimbochen's bench_serving), then
-- `python -m sglang.bench_serving`. All latencies are in ms in both.
M.RESULT_KEYS = {
  { "request_throughput", { "request_throughput" } },
  { "output_token_throughput", { "output_throughput" } },
  { "total_token_throughput", { "total_token_throughput", "total_throughput" } },
  { "p50_ttft_ms", { "median_ttft_ms", "p50_ttft_ms" } },
  { "mean_ttft_ms", { "mean_ttft_ms" } },
  { "p99_ttft_ms", { "p99_ttft_ms" } },
  { "p50_tpot_ms", { "median_tpot_ms", "p50_tpot_ms" } },
  { "mean_tpot_ms", { "mean_tpot_ms" } },
  { "p99_tpot_ms", { "p99_tpot_ms" } },
  { "p50_e2e_ms", { "median_e2el_ms", "p50_e2el_ms", "median_e2e_latency_ms", "p50_e2e_latency_ms" } },
  { "mean_e2e_ms", { "mean_e2el_ms", "mean_e2e_latency_ms" } },
  { "p99_e2e_ms", { "p99_e2el_ms", "p99_e2e_latency_ms" } },
}

-- A client's result file: one JSON object, or JSONL (sglang appends a line per run: the last).
local function read_result(path)
  local text = read(path)
  local ok, v = pcall(json.decode, text, path)
  if not ok then
    local last, n = nil, 0
    for line in text:gmatch("[^\n]+") do
      n = n + 1
      if line:match("%S") then last = { line = line, n = n } end
    end
    if not last then error(path .. ": empty (expected the benchmark client's JSON result)", 0) end
    v = json.decode(last.line, path .. ":" .. last.n)
  end
  if type(v) ~= "table" or json.is_array(v) then error(path .. ": expected a JSON object (a benchmark result)", 0) end
  return v
end

-- Metrics of a client's result file, named as the normalised schema names them, and nil
-- or why the run failed. A metric the file does not have stays absent; with no completed
-- request there are no latencies or throughputs at all (vLLM writes 0 for them: numpy of
-- an empty list "or 0"), and a latency of 0 ms means not measured (vLLM's TTFT unstreamed).
-- num_prompts: the config's, when the file has neither `failed` nor `num_prompts`.
function M.result_metrics(path, num_prompts)
  local d = read_result(path)
  local function num(k) local v = d[k]; return type(v) == "number" and v or nil end
  local completed = num("completed")
  if not completed then error(path .. ": no numeric 'completed' (expected a vllm bench serve or sglang.bench_serving result)", 0) end
  local failed = num("failed")
  local n = num("num_prompts") or num_prompts
  if not failed and n then failed = math.max(0, n - completed) end
  local m = json.object {}
  if failed and completed + failed > 0 then m.success_rate = completed / (completed + failed) end
  if completed == 0 then
    return m, ("no request succeeded (%s failed)"):format(failed and math.tointeger(failed) or "all")
  end
  for _, e in ipairs(M.RESULT_KEYS) do
    for _, k in ipairs(e[2]) do
      local v = num(k)
      if v and not (e[1]:match("_ms$") and v <= 0) then m[e[1]] = v; break end
    end
  end
  return m, nil
end

function M.run(config_path, opts)
  local out = opts.out
  local plan = ab.plan(config_path, { frameworks = opts.frameworks })
  local cfg = plan.config
  local r = type(cfg.run) == "table" and cfg.run or {}
  local ds, bm = cfg.dataset, cfg.benchmark or {}
  local sla = type(bm.sla) == "table" and bm.sla or (type(cfg.sla) == "table" and cfg.sla or {})
  local scenarios = {}
  for i, name in ipairs(ds.scenario_names or {}) do
    scenarios[i] = { name = name, input_len = ds.input_len[i], output_len = ds.output_len[i] }
  end
  if #scenarios == 0 then
    for i = 1, #ds.input_len do scenarios[i] = { name = "scenario-" .. i, input_len = ds.input_len[i],
      output_len = ds.output_len[i] } end
  end
  local conc = r.max_concurrency
  if conc == nil and type(bm.max_concurrency) == "table" then conc = bm.max_concurrency[1] end
  if conc == json.null then conc = nil end
  local dir = (out:match("^(.*)/[^/]*$") or ".") .. "/autobench-artifacts"
  if not opts.dry_run then mkdir_p(dir) end
  local done = opts.dry_run and {} or done_rows(out)
  local todo = {}
  for _, e in ipairs(plan.entries) do
    for _, sc in ipairs(scenarios) do todo[#todo + 1] = { e = e, sc = sc } end
  end
  local t0 = now()
  local all_ok = true
  local i = 0
  -- one server per candidate, every scenario against it
  local by_cand, order = {}, {}
  for _, t in ipairs(todo) do
    local key = t.e.framework .. "\0" .. tostring(t.e.candidate_id)
    if not by_cand[key] then by_cand[key] = {}; order[#order + 1] = key end
    table.insert(by_cand[key], t)
  end
  local total = #order
  for _, key in ipairs(order) do
    i = i + 1
    local group = by_cand[key]
    local e = group[1].e
    local function base_row(sc)
      return {
        framework = e.framework, candidate_id = e.candidate_id or (e.framework .. "-excluded"), model = cfg.model.name,
        disposition = e.disposition, status = "ok", failure_reason = "",
        hardware = { gpu_count = cfg.hardware and cfg.hardware.gpu_count or json.null },
        workload = { kind = ds.kind, scenario = sc.name, input_len = sc.input_len, output_len = sc.output_len,
          num_prompts = ds.num_prompts, max_concurrency = conc or json.null, endpoint = bm.endpoint },
        sla = { max_p50_ttft_ms = sla.max_p50_ttft_ms, max_p50_tpot_ms = sla.max_p50_tpot_ms,
          min_success_rate = sla.min_success_rate, max_p50_e2e_ms = sla.max_p50_e2e_ms, passed = json.null },
        metrics = json.object {}, server_command = e.server_command, artifacts = json.object {},
      }
    end
    local pending = {}
    for _, t in ipairs(group) do
      if not done[("%s\0%s\0%s"):format(e.framework, tostring(e.candidate_id or (e.framework .. "-excluded")),
        t.sc.name)] then pending[#pending + 1] = t end
    end
    io.write(("[%d/%d +%ds] %s %s: "):format(i, total, now() - t0, e.framework, e.candidate_id or "-"))
    if #pending == 0 then
      io.write("already in ", out, ", skipped\n")
    elseif e.disposition ~= "selected" then
      io.write(e.disposition, " (", e.reason, ")\n")
      if not opts.dry_run then
        for _, t in ipairs(pending) do
          local row = base_row(t.sc)
          row.status, row.failure_reason = "skipped", e.disposition .. ": " .. e.reason
          append(out, row)
        end
      end
    else
      local port = r.port or math.random(20000, 29999)
      local argv = ab.split(e.server_command)
      argv[#argv + 1] = "--port"
      argv[#argv + 1] = tostring(port)
      local base = ("http://127.0.0.1:%d"):format(port)
      local cdir = ("%s/%s"):format(dir, e.candidate_id)
      local log = cdir .. "/server.log"
      if opts.dry_run then
        io.write("\n  server: ", ab.join(argv), "\n")
      else
        mkdir_p(cdir)
        io.write("starting the server\n")
      end
      local p = not opts.dry_run and proc.spawn(argv, { stdout = { file = log }, stderr = "stdout", env = r.env })
      local status, reason
      if p then
        status, reason = wait_ready(p, base, r.ready_paths or { "/health", "/v1/models" },
          opts.timeout or r.ready_timeout or 600, log)
      end
      local dead -- why the remaining scenarios are not run, once the server has exited
      for _, t in ipairs(pending) do
        local sc = t.sc
        local row = base_row(sc)
        row.artifacts.server_log = log
        if status then
          row.status, row.failure_reason = status, reason
        elseif dead then
          row.status, row.failure_reason = "skipped", dead
        else
          local rfile = ("%s-%s.json"):format(e.candidate_id, sc.name)
          local vars = {
            base_url = base, endpoint = bm.endpoint or "/v1/completions", model = cfg.model.name,
            tokenizer = bm.tokenizer or cfg.model.tokenizer or cfg.model.name, input_len = tostring(sc.input_len),
            output_len = tostring(sc.output_len), num_prompts = tostring(ds.num_prompts or 80),
            max_concurrency = conc and tostring(conc) or "",
            max_concurrency_flag = conc and ("--max-concurrency " .. math.tointeger(conc)) or "",
            result_dir = cdir, result_file = rfile, scenario = sc.name, framework = e.framework,
            candidate_id = e.candidate_id,
          }
          local text = fill(ab.client_command(cfg), vars)
          local cargv = ab.split(text)
          row.benchmark_command = ab.join(cargv)
          if opts.dry_run then
            io.write("  client (", sc.name, "): ", row.benchmark_command, "\n")
          else
            io.write(("  %s: benchmarking\n"):format(sc.name))
            local blog = ("%s/benchmark-%s.log"):format(cdir, sc.name)
            row.artifacts.benchmark_log = blog
            local res = run_client(cargv, blog, p, r.benchmark_timeout or 3600)
            local rpath = cdir .. "/" .. rfile
            if lfs.attributes(rpath, "mode") == "file" then row.artifacts.raw_result = rpath end
            if res.server then
              row.status, row.failure_reason = server_death(res.server, log, "during the benchmark of " .. sc.name)
              row.server_exit = res.server.code and { code = res.server.code } or { signal = res.server.signal }
              dead = ("not run: the server exited (%s, %s) during the benchmark of %s"):format(
                exit_text(res.server), row.status, sc.name)
            elseif res.spawn_error then
              row.status, row.failure_reason = "failed", "the benchmark client did not start: " .. res.spawn_error
            elseif res.timed_out or not res.st.ok then
              row.status = res.timed_out and "timeout" or (is_oom(read(log)) and "oom" or "failed")
              row.failure_reason = ("the benchmark client %s: %s"):format(res.timed_out and "timed out" or
                ("exited with " .. exit_text(res.st)), tail(read(blog), 2))
            elseif not row.artifacts.raw_result then
              row.status, row.failure_reason = "failed", "the benchmark client wrote no result file " .. rpath
            else
              local ok, m, why = pcall(M.result_metrics, rpath, ds.num_prompts)
              if not ok then
                row.status, row.failure_reason = "failed", tostring(m)
              else
                row.metrics = m
                if why then row.status, row.failure_reason = "failed", why end
              end
            end
          end
        end
        if not opts.dry_run then
          ab.recompute_sla({ row }, nil)
          if row.status ~= "ok" or row.sla.passed == json.null then row.sla.passed = false end
          append(out, row)
          if row.status ~= "ok" then all_ok = false end
          local how = row.failure_reason ~= "" and (" - " .. row.failure_reason)
            or (row.sla.passed and " (SLA passed)" or " (SLA not passed)")
          io.write(("  %s: %s%s\n"):format(sc.name, row.status, how))
        end
      end
      if p then p:kill(10) end
    end
  end
  return all_ok
end

return M
