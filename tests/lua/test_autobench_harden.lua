-- autobench.lua run against hostile or odd surroundings (harden53): one results file under
-- two names, a server whose engine died while its API answers, a client that ignores the
-- workload it is given, and the like. Mock server and client: tests/autobench/.
local t = require "testlib"
local ab = require "llmd.autobench"
local abrun = require "llmd.autobench_run"
local proc = require "llmd.proc"
local lfs = require "lfs"
local yaml = require "llmd.yaml"

local mock = require "abmock"
local LLMDLUA, vllm_shim, mock_config = mock.LLMDLUA, mock.vllm_shim, mock.config

local function ab_cli(args, cwd, env)
  local argv = { LLMDLUA, "autobench.lua" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return proc.run(argv, { cwd = cwd, env = env })
end

local function rows_by(path)
  local got = {}
  for _, row in ipairs(ab.read_rows(path)) do got[row.candidate_id .. "/" .. ab.scenario(row)] = row end
  return got
end

-- Starts `run CFG --out OUT` in d in the background and waits until its server started
-- (the progress line); returns the process.
local function start_run(d, env, cfg_name, out)
  local p = proc.spawn({ LLMDLUA, "autobench.lua", "run", cfg_name, "--out", out },
    { cwd = d, env = env, stdout = { file = d .. "/bg.txt" }, stderr = { file = d .. "/bg-err.txt" } })
  for _ = 1, 400 do
    if t.read(d .. "/bg.txt"):find("starting the server on port", 1, true) then return p end
    t.eq(p:wait(0.05), nil, "still running: " .. t.read(d .. "/bg-err.txt"))
  end
  error("the background run did not start its server: " .. t.read(d .. "/bg.txt"))
end

-- One results file under other names - a symbolic link beside it, one in another folder, a
-- hard link, the same file through `..` - is the file itself: while a run writes it, a run
-- of it by any of those names is refused (exit 2, one line naming the holder) before it
-- starts anything. On main each name had its own lock (its artifacts folder's), and two runs
-- measured the same rows at once, both appending to the one file.
t.test("run: one results file under another name (a link, a hard link, ..) is refused while a run writes it", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = mock_config()
  cfg.frameworks.vllm.base_server_flags.max_num_seqs = 2 -- never answers: the run waits
  cfg.run.ready_timeout = 60
  t.write(d .. "/slow.yaml", yaml.dump(cfg))
  t.write(d .. "/run3.jsonl", "")
  lfs.mkdir(d .. "/other")
  t.ok(proc.run({ "ln", "-s", "run3.jsonl", d .. "/latest.jsonl" }).ok)
  t.ok(proc.run({ "ln", "-s", "../run3.jsonl", d .. "/other/last.jsonl" }).ok)
  t.ok(proc.run({ "ln", d .. "/run3.jsonl", d .. "/hard.jsonl" }).ok)
  local p = start_run(d, env, "slow.yaml", "run3.jsonl")
  local results = {}
  for _, name in ipairs { "latest.jsonl", "other/last.jsonl", "hard.jsonl", "other/../run3.jsonl" } do
    results[name] = ab_cli({ "run", "slow.yaml", "--out", name }, d, env)
  end
  proc.run { "kill", "-INT", tostring(p:pid()) }
  local st = p:wait(20)
  local real = proc.realpath(d) .. "/run3.jsonl"
  for name, r in pairs(results) do
    t.eq(r.code, 2, name .. ": " .. r.stdout .. r.stderr)
    t.eq(r.stdout, "", name)
    t.ok(r.stderr:find("^autobench%.lua run: " .. name:gsub("%p", "%%%0") .. ": in use by another llmdlua process "
      .. "%(autobench%.lua run, pid " .. p:pid() .. ", started [%dT:Z-]+%): it is writing these results"), r.stderr)
    -- (the line names the file the two names share, where it is not the name given)
    if name == "hard.jsonl" then
      t.ok(r.stderr:find("(the file " .. proc.realpath(d) .. "/hard.jsonl under another name, a hard link: the same "
        .. "device and inode)", 1, true), r.stderr)
    elseif name ~= "other/../run3.jsonl" then
      t.ok(r.stderr:find("(the file " .. real .. ")", 1, true), r.stderr)
    end
  end
  -- one server was started in all: the first run's
  t.eq(st and st.code, 130, t.read(d .. "/bg-err.txt"))
  -- the rows are the first run's alone (its notes for sglang, ahead of vllm), none twice
  local seen = {}
  for _, row in ipairs(ab.read_rows(d .. "/run3.jsonl")) do
    local k = row.candidate_id .. "/" .. ab.scenario(row)
    t.eq({ k, seen[k] }, { k, nil }, "each row once")
    t.eq(row.framework, "sglang")
    seen[k] = true
  end
  for _, name in ipairs { "latest", "last", "hard" } do
    t.eq(lfs.attributes(d .. "/autobench-artifacts/" .. name .. "/vllm-0"), nil, name .. ": no server started")
  end
  -- the locks go when their holder ends: none left for the file
  local uid = lfs.attributes("/proc/self", "uid")
  t.eq(lfs.attributes(("/tmp/llmdlua-locks-%d/autobench-path-%s.lock"):format(uid, abrun.fnv1a64(real))), nil)
end)

-- Through a symbolic link a run measures the link's file, keeps its artifacts beside the link
-- as named (autobench-artifacts/latest/, as before: not moved to the target's folder), and a
-- rewrite of the output (notes overtaken by measured rows) goes to the file the link leads
-- to: on main it put a new regular file in the link's place, the target keeping the old rows.
t.test("run: a rewrite through a symbolic link keeps the link and writes its file; artifacts stay beside the link",
  function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  t.write(d .. "/cfg.yaml", yaml.dump(mock_config()))
  lfs.mkdir(d .. "/store")
  t.ok(proc.run({ "ln", "-s", "store/run3.jsonl", d .. "/latest.jsonl" }).ok)
  -- first only sglang (no candidate enabled): the other frameworks are noted user-excluded
  local r = ab_cli({ "run", "cfg.yaml", "--out", "latest.jsonl", "--frameworks", "sglang" }, d, env)
  t.eq(lfs.symlinkattributes(d .. "/latest.jsonl", "mode"), "link")
  t.ok(rows_by(d .. "/store/run3.jsonl")["vllm-excluded/chat"], r.stdout .. r.stderr)
  -- then all: vllm measured, its exclusion notes overtaken and the file rewritten
  r = ab_cli({ "run", "cfg.yaml", "--out", "latest.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(lfs.symlinkattributes(d .. "/latest.jsonl", "mode"), "link", "the link is still a link")
  local got = rows_by(d .. "/store/run3.jsonl")
  t.eq({ got["vllm-excluded/chat"], got["vllm-0/chat"].status }, { nil, "ok" })
  t.eq(lfs.attributes(d .. "/autobench-artifacts/latest/vllm-0/server.log", "mode"), "file")
  t.eq(lfs.attributes(d .. "/store/autobench-artifacts"), nil, "nothing written beside the target")
  t.eq(got["vllm-0/chat"].artifacts.server_log, "autobench-artifacts/latest/vllm-0/server.log")
end)

-- A vLLM whose engine died while its API server goes on answering (HTTP 500 to every request,
-- VLLM_KEEP_ALIVE_ON_ENGINE_DEATH): mock modes 10 (out of memory after 3 completions: the
-- client's test prompt and 2 of its 3 requests) and 11 (the engine core process died after
-- the test prompt). The row is the engine's death, named from the server log (oom where it
-- says out of memory), never "ok": on main mode 10's row was ok, 2 of 3 requests done, and
-- with no success-rate limit in the SLA it passed; mode 11's said "no request succeeded"
-- without the cause. The expected texts are the rule's, by hand, with the mock's log lines.
t.test("run: a server whose engine died while its API answers 500 is that row's cause, oom from its log", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  env.MOCK_READY_CHECK_S = "2" -- mode 11: the client's test prompt fails for 2 s, not 600
  for _, c in ipairs {
    { mode = 10, status = "oom", said = '"EngineCore encountered a fatal error." and "torch.OutOfMemoryError: CUDA '
      .. 'out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is '
      .. 'free."; 67 % of the requests completed, and no figure of this run is a measurement' },
    { mode = 11, status = "failed", said = '"Engine core proc EngineCore_DP0 died unexpectedly, shutting down '
      .. 'client."; 0 % of the requests completed, and no figure of this run is a measurement' },
  } do
    local cfg = mock_config(nil, c.mode)
    cfg.benchmark.sla = { max_p50_ttft_ms = 5000, max_p50_tpot_ms = 30 } -- no success-rate limit
    local name = ("m%d"):format(c.mode)
    t.write(d .. "/" .. name .. ".yaml", yaml.dump(cfg))
    local r = ab_cli({ "run", name .. ".yaml", "--out", name .. ".jsonl" }, d, env)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    local got = rows_by(d .. "/" .. name .. ".jsonl")
    local chat = got["vllm-0/chat"]
    t.eq({ chat.status, chat.sla.passed, chat.server_engine_dead }, { c.status, false, true }, chat.failure_reason)
    t.eq(chat.failure_reason, "the server's engine died during the benchmark of chat"
      .. (c.mode == 10 and ", out of memory" or "") .. ", while its API server went on answering (HTTP 500): its "
      .. "log says " .. c.said)
    -- no latency or throughput of it stands in the row
    t.eq(chat.metrics.request_throughput, nil)
    t.eq(chat.metrics.p50_ttft_ms, nil)
    local log = "autobench-artifacts/" .. name .. "/vllm-0/server.log"
    t.eq({ got["vllm-0/summarization"].status, got["vllm-0/summarization"].failure_reason }, { "skipped",
      ("not run: the server's engine died (%s) during the benchmark of chat (log %s)"):format(c.status, log) })
    t.ok(r.stderr:find(("not every row is ok (exit 1): vllm-0 chat %s, summarization skipped (log %s); the rows are "
      .. "in %s.jsonl\n"):format(c.status, log, name), 1, true), r.stderr)
    -- compare names the cause in the failed table, and no winner is drawn from the row
    r = ab_cli({ "compare", name .. ".jsonl" }, d)
    t.eq(r.code, 0, r.stderr)
    t.ok(r.stdout:find("the server's engine died during the benchmark of chat", 1, true), r.stdout)
    t.ok(not r.stdout:find("| chat | 1 | vllm | vllm-0 | True |", 1, true), r.stdout)
  end
end)

-- A client_command that leaves out {num_prompts} or {max_concurrency} runs its own workload
-- (the mock client's default: 10 prompts, no limit), and its figures were recorded as the
-- scenario's: ok rows of 10 requests at full concurrency where the config asks 3 at 2. The
-- row is failed, saying what the result file shows against what was asked, and keeps none
-- of the figures. (On main: ok rows.) The expected lines are the rule's, by hand.
t.test("run: a client_command that ignores {num_prompts} or {max_concurrency} gives failed rows saying so", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cases = {
    { client = "vllm bench serve --base-url {base_url} --model {model} --max-concurrency {max_concurrency} "
      .. "--save-result --result-dir {result_dir} --result-filename {result_file}",
      why = "the benchmark client ran num_prompts 10 (its result's), not the 3 asked: a client_command without "
        .. "{num_prompts} runs its own number of requests; no figure of it is this scenario's" },
    { client = "vllm bench serve --base-url {base_url} --model {model} --num-prompts {num_prompts} "
      .. "--save-result --result-dir {result_dir} --result-filename {result_file}",
      why = "the benchmark client ran with no concurrency limit (max_concurrency null in its result), not a "
        .. "concurrency of 2: a client_command without {max_concurrency} (or {max_concurrency_flag}) runs its own; no "
        .. "figure of it is this scenario's" },
    { client = "vllm bench serve --base-url {base_url} --model {model} --num-prompts {num_prompts} "
      .. "--max-concurrency 1 --save-result --result-dir {result_dir} --result-filename {result_file}",
      why = "the benchmark client ran with max_concurrency 1 (its result's), not a concurrency of 2: a client_command "
        .. "without {max_concurrency} (or {max_concurrency_flag}) runs its own; no figure of it is this scenario's" },
  }
  for i, c in ipairs(cases) do
    local cfg = mock_config()
    cfg.run.client_command = c.client
    t.write(("%s/c%d.yaml"):format(d, i), yaml.dump(cfg))
    local r = ab_cli({ "run", ("c%d.yaml"):format(i), "--out", ("c%d.jsonl"):format(i) }, d, env)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    local got = rows_by(("%s/c%d.jsonl"):format(d, i))
    for _, sc in ipairs { "chat", "summarization" } do
      local row = got["vllm-0/" .. sc]
      t.eq({ row.status, row.failure_reason, row.sla.passed }, { "failed", c.why, false }, sc)
      t.eq(next(row.metrics), nil, "no figure kept")
    end
  end
  -- the client's own arguments as the config's: ok (the third case with {max_concurrency})
  local cfg = mock_config()
  cfg.run.client_command = cases[3].client:gsub("%-%-max%-concurrency 1", "{max_concurrency_flag}")
  t.write(d .. "/ok.yaml", yaml.dump(cfg))
  local r = ab_cli({ "run", "ok.yaml", "--out", "ok.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(rows_by(d .. "/ok.jsonl")["vllm-0/chat"].status, "ok")
end)

-- A client file that does not say its limit: the mean number of requests in flight, the sum
-- of the latencies over the duration, cannot exceed the limit it ran within. By hand:
-- latencies 1.0, 1.0, 1.0, 1.0 s over 1.0 s are 4 in flight on average: more than 2, within 4.
t.test("workload_mismatch: requests in flight on average above the limit asked; counts; silence is no mismatch",
  function()
  local d = t.tmpdir()
  local file = d .. "/r.json"
  t.write(file, '{"completed": 4, "failed": 0, "duration": 1.0, "latencies": [1.0, 1.0, 1.0, 1.0]}')
  t.eq(abrun.workload_mismatch(file, { num_prompts = 4, conc = 2 }), "the benchmark client had 4.00 requests in "
    .. "flight on average (the sum of its result's latencies over its duration), more than the concurrency of 2 "
    .. "asked: a client_command without {max_concurrency} (or {max_concurrency_flag}) runs its own; no figure of it "
    .. "is this scenario's")
  t.eq(abrun.workload_mismatch(file, { num_prompts = 4, conc = 4 }), nil)
  t.eq(abrun.workload_mismatch(file, { num_prompts = 4 }), nil)
  t.eq(abrun.workload_mismatch(file, { num_prompts = 5, conc = 4 }), "the benchmark client ran 4 requests "
    .. "(completed + failed in its result), not the 5 asked: a client_command without {num_prompts} runs its own "
    .. "number of requests; no figure of it is this scenario's")
  -- a limit where none was asked
  t.write(file, '{"completed": 4, "failed": 0, "max_concurrency": 8}')
  t.ok(abrun.workload_mismatch(file, { num_prompts = 4 }):find("^the benchmark client ran with max_concurrency 8 "
    .. "%(its result's%), not unbounded %(no limit was asked%): "))
  -- a file that says neither (sglang's line without counts): nothing held against it
  t.write(file, '{"completed": 4, "request_throughput": 2.0}')
  t.eq(abrun.workload_mismatch(file, { num_prompts = 9, conc = 1 }), nil)
end)

-- Hostile or odd inputs, each refused or said in one line (harden53's hunt; on main: a
-- scenario named "../x" ran and failed as "the benchmark client did not start", marked a
-- failure of the environment and measured again by every rerun; a result file cut short was
-- the row's reason with a position in llmdlua's source in front and "PATH:1:1:43"; a server
-- command that returned at once said "before answering: " and nothing; --out a folder or
-- /dev/null failed at the first row, after a server had run; --out the config itself said
-- "invalid JSON"). The lines are the rules', by hand.
t.test("run: a scenario name that cannot name its files (a '/', '..', twice) is refused before anything starts",
  function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  for _, c in ipairs {
    { names = { "chat", "../x" }, why = "'../x' cannot name a scenario (it holds '/')", i = 2 },
    { names = { "chat", "chat" }, why = "'chat' cannot name a scenario (it is also scenario 1's)", i = 2 },
    { names = { "..", "chat" }, why = "'..' cannot name a scenario (it names a folder)", i = 1 },
  } do
    local cfg = mock_config()
    cfg.dataset.scenario_names = c.names
    t.write(d .. "/names.yaml", yaml.dump(cfg))
    for _, extra in ipairs { {}, { "--dry-run" } } do
      local argv = { "run", "names.yaml", "--out", "n.jsonl" }
      for _, x in ipairs(extra) do argv[#argv + 1] = x end
      local r = ab_cli(argv, d, env)
      t.eq({ r.code, r.stdout, r.stderr }, { 1, "", ("llmdlua: names.yaml: dataset.scenario_names[%d] %s: each "
        .. "scenario's result file and log are named after it, and its rows are told apart by it; nothing was "
        .. "started\n"):format(c.i, c.why) })
    end
    t.eq(lfs.attributes(d .. "/n.jsonl"), nil, "nothing written")
  end
end)

t.test("run: a client result cut short mid-JSON is a failed row naming the file, its line and column", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  -- a client whose result file is cut short mid-JSON: the row's reason names the file and where
  -- (column 43: the end of its 42 bytes, where the string was still open)
  t.write(d .. "/cut.sh", "#!/bin/sh\nprintf '%s' '{\"completed\": 3, \"failed\": 0, \"request_thr' > \"$1\"\n")
  proc.run { "chmod", "+x", d .. "/cut.sh" }
  local cfg = mock_config()
  cfg.run.client_command = d .. "/cut.sh {result_dir}/{result_file} {base_url}"
  t.write(d .. "/cut.yaml", yaml.dump(cfg))
  local r = ab_cli({ "run", "cut.yaml", "--out", "cut.jsonl" }, d, env)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local row = rows_by(d .. "/cut.jsonl")["vllm-0/chat"]
  t.eq({ row.status, row.failure_reason }, { "failed", "autobench-artifacts/cut/vllm-0/vllm-0-chat.json:1: the "
    .. "client's result is not whole JSON (a file cut short, or not JSON): column 43: unexpected end of input in a "
    .. "string" })
end)

t.test("run: a server command that returns at once (exit 0, nothing logged) says so, not an empty reason", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = mock_config()
  cfg.frameworks.vllm.server_command = "true"
  t.write(d .. "/true.yaml", yaml.dump(cfg))
  local r = ab_cli({ "run", "true.yaml", "--out", "true.jsonl" }, d, env)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local row = rows_by(d .. "/true.jsonl")["vllm-0/chat"]
  t.eq({ row.status, row.failure_reason }, { "failed", "the server exited (code 0) before answering: its log "
    .. "autobench-artifacts/true/vllm-0/server.log is empty (a command that returns at once, exit 0, is no server: one "
    .. "that starts the server in the background and returns cannot be watched nor stopped; run the server in the "
    .. "foreground)" })
end)

t.test("run: an --out that is a folder, a device or the config itself is refused before anything starts", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local r
  -- an --out that is no results file, or the config itself (by a link too): exit 2, one line, nothing started
  t.write(d .. "/cfg.yaml", yaml.dump(mock_config()))
  lfs.mkdir(d .. "/adir")
  t.ok(proc.run({ "ln", "-s", "cfg.yaml", d .. "/cfg-link.jsonl" }).ok)
  local before = t.read(d .. "/cfg.yaml")
  for _, c in ipairs {
    { "adir", "--out adir is a folder, not a file: expected the path of a results file (JSON lines, made when missing)" },
    { "/dev/null", "--out /dev/null is a char device, not a file: expected the path of a results file (JSON lines, "
      .. "made when missing)" },
    { "cfg.yaml", "--out cfg.yaml is the config cfg.yaml: the rows would be appended to it; give another file" },
    { "cfg-link.jsonl", "--out cfg-link.jsonl is the config cfg.yaml: the rows would be appended to it; give another "
      .. "file" },
  } do
    r = ab_cli({ "run", "cfg.yaml", "--out", c[1] }, d, env)
    t.eq({ r.code, r.stdout, r.stderr }, { 2, "", "autobench.lua run: " .. c[2] .. "\n" }, c[1])
  end
  t.eq(t.read(d .. "/cfg.yaml"), before)
  t.eq(lfs.attributes(d .. "/autobench-artifacts/adir"), nil)
end)

-- A disk "full" by the file-size limit (ulimit -f 8: 4 or 8 KB a file): a server writing one
-- endless line (100 KB of "x" with no end of line) is killed by SIGXFSZ at its log's limit. Its
-- rows say so, with the log's last 300 bytes only: on main the reason held the whole line, and
-- that row's append itself went past the limit ("cannot append a row: File too large"), the
-- run stopping with no row for the candidate.
t.test("run: past the file-size limit a server's endless log line is cut in its row, and the row is written", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = mock_config()
  cfg.frameworks.vllm.server_command = "sh -c 'head -c 100000 /dev/zero | tr \"\\\\0\" x; exit 3' sh"
  t.write(d .. "/big.yaml", yaml.dump(cfg))
  local r = proc.run({ "sh", "-c", 'ulimit -f 8; exec "$0" autobench.lua run big.yaml --out r.jsonl', LLMDLUA },
    { cwd = d, env = env })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local got = rows_by(d .. "/r.jsonl")
  -- (the limit's blocks are the shell's: dash counts 512 bytes, bash 1024)
  local size = lfs.attributes(d .. "/autobench-artifacts/r/vllm-0/server.log", "size")
  t.ok(size == 4096 or size == 8192, size)
  for _, sc in ipairs { "chat", "summarization" } do
    local row = got["vllm-0/" .. sc]
    t.eq(row.status, "failed", sc)
    t.eq(row.failure_reason, ("the server exited (signal 25 (SIGXFSZ: a file it wrote grew past the file-size limit, "
      .. "ulimit -f)) before answering: ...(%d bytes before) %s"):format(size - 300, ("x"):rep(300)))
  end
end)

-- A lock file in /tmp/llmdlua-locks-UID that is a symbolic link is refused, never followed:
-- the lock is taken by truncating its file and writing the holder into it, so a link placed
-- there (the folder is made by lfs.mkdir, mode 775 less the umask, and only then chmod 700:
-- for that moment others of the group, or all under umask 0, may write in it) made a run
-- truncate whatever file the link named, with the owner's rights. On main the file the link
-- named was emptied and held the lock's JSON. Expected: the file as it was, one line naming
-- the lock file.
t.test("run's output lock: a lock file that is a symbolic link is refused, its target untouched", function()
  local d = t.tmpdir()
  local real = proc.realpath(d)
  -- (the lock folder made, by a lock of another file of this test's)
  t.eq({ abrun.lock_output(d .. "/first.jsonl", {}) }, { true })
  local uid = lfs.attributes("/proc/self", "uid")
  local lockf = ("/tmp/llmdlua-locks-%d/autobench-path-%s.lock"):format(uid, abrun.fnv1a64(real .. "/r.jsonl"))
  t.write(d .. "/victim.txt", "precious\n")
  t.ok(proc.run({ "ln", "-s", d .. "/victim.txt", lockf }).ok)
  local ok, err = abrun.lock_output(d .. "/r.jsonl", {})
  os.remove(lockf)
  t.eq(t.read(d .. "/victim.txt"), "precious\n", "the link's file untouched")
  t.eq(ok, nil)
  t.ok(tostring(err):find(lockf .. ": cannot open: it is a symbolic link", 1, true), tostring(err))
  t.eq(select(2, tostring(err):gsub("\n", "")), 0, "one line")
end)
