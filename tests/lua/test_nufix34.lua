-- What a new user found in session 34 trying `autobench.lua run` and `compare` (the trial's
-- files were /work/nu34/ab): an earlier run's result file taken for a new measurement,
-- repeats grouped by a candidate's position in the search rather than its command, two
-- outputs in one folder overwriting each other's raw results, a num_prompts that is not a
-- number starting every server, a server failing every request costing each later scenario
-- the client's ready check, and the wording of a user's --sla and of an SLA nobody passed.
--
-- Expected values: by hand (each in a comment beside its test), or /usr/bin/python3 where a
-- computation is named. The servers are tests/autobench/mockserver.py, the client
-- tests/autobench/mockclient.py (a stand-in for `vllm bench serve`).
local t = require "testlib"
local ab = require "llmd.autobench"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"
local yaml = require "llmd.yaml"

local mock = require "abmock"
local LLMDLUA = mock.LLMDLUA

local function ab_cli(args, cwd, env)
  local argv = { LLMDLUA, "autobench.lua" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return proc.run(argv, { cwd = cwd, env = env })
end

local find = t.contains

local vllm_shim = mock.vllm_shim
-- the trial's config: one vllm candidate on the mock server (mode: its --max-num-seqs)
local function config(mode) return mock.config(nil, mode) end

local function rows_by(path)
  local got = {}
  for _, row in ipairs(ab.read_rows(path)) do got[row.candidate_id .. "/" .. ab.scenario(row)] = row end
  return got
end

t.test("run: an earlier run's result file is never taken for this run's measurement (moved aside, kept)", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  t.write(d .. "/cfg.yaml", yaml.dump(config()))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local first = rows_by(d .. "/r.jsonl")["vllm-0/chat"]
  t.eq(first.status, "ok")
  local raw = first.artifacts.raw_result
  local before = t.read(d .. "/" .. raw)
  -- the user starts over (the output removed) with a client that writes nothing: the trial's
  -- `client_command: "true {result_dir}/{result_file}"`. Every row used to say "ok (SLA
  -- passed)" with the first run's throughput.
  os.remove(d .. "/r.jsonl")
  local cfg = config()
  cfg.run.client_command = "true {result_dir}/{result_file}"
  t.write(d .. "/cfg-true.yaml", yaml.dump(cfg))
  r = ab_cli({ "run", "cfg-true.yaml", "--out", "r.jsonl" }, d, env)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  for _, sc in ipairs { "chat", "summarization" } do
    local row = rows_by(d .. "/r.jsonl")["vllm-0/" .. sc]
    t.eq({ row.status, row.sla.passed, row.metrics }, { "failed", false, json.object {} }, sc)
    find(row.failure_reason, "the benchmark client wrote no result file", sc)
  end
  -- the earlier file is not lost: moved aside, byte for byte, and said so
  t.eq(t.read(d .. "/" .. raw .. ".earlier-1"), before)
  find(r.stdout, "chat: an earlier result file moved aside to " .. raw .. ".earlier-1")
  -- sglang's JSONL, which its client appends to: only the line this run appended counts.
  -- The client below appends one line (completed 3 of 3, 7.5 req/s, by hand); the earlier
  -- line (42.0 req/s) must be neither read nor lost.
  os.remove(d .. "/r.jsonl")
  t.write(d .. "/append.sh", "#!/bin/sh\nprintf '%s\\n' '{\"completed\": 3, \"failed\": 0, \"request_throughput\": 7.5, "
    .. "\"median_ttft_ms\": 12.0, \"median_tpot_ms\": 3.0}' >> \"$1\"\n")
  proc.run { "chmod", "+x", d .. "/append.sh" }
  cfg.run.client_command = d .. "/append.sh {result_dir}/{result_file}"
  t.write(d .. "/cfg-append.yaml", yaml.dump(cfg))
  local old_line = '{"completed": 3, "failed": 0, "request_throughput": 42.0, "median_ttft_ms": 1.0}\n'
  t.write(d .. "/" .. raw, old_line)
  r = ab_cli({ "run", "cfg-append.yaml", "--out", "r.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local row = rows_by(d .. "/r.jsonl")["vllm-0/chat"]
  t.eq({ row.status, row.metrics.request_throughput, row.metrics.p50_ttft_ms }, { "ok", 7.5, 12.0 })
  t.eq(t.read(d .. "/" .. raw .. ".earlier-2"), old_line)
end)

t.test("run: two outputs in one folder keep their own artifacts; each row's raw result holds its own numbers", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  t.write(d .. "/cfg.yaml", yaml.dump(config()))
  for _, out in ipairs { "rep1.jsonl", "rep2.jsonl" } do
    local r = ab_cli({ "run", "cfg.yaml", "--out", out }, d, env)
    t.eq(r.code, 0, r.stdout .. r.stderr)
  end
  local raws = {}
  for _, out in ipairs { "rep1", "rep2" } do
    for _, row in ipairs(ab.read_rows(d .. "/" .. out .. ".jsonl")) do
      if row.status == "ok" then
        -- the row's throughput is the one in the file its row points to (rep1's used to hold rep2's)
        local raw = json.read(d .. "/" .. row.artifacts.raw_result)
        t.eq(row.metrics.request_throughput, raw.request_throughput, out .. " " .. ab.scenario(row))
        t.ok(row.artifacts.raw_result:find("autobench-artifacts/" .. out .. "/vllm-0/", 1, true),
          row.artifacts.raw_result)
        t.ok(row.artifacts.server_log:find("autobench-artifacts/" .. out .. "/vllm-0/server.log", 1, true))
        t.eq(raws[row.artifacts.raw_result], nil, "one raw result per row")
        raws[row.artifacts.raw_result] = true
      end
    end
  end
  local n = 0
  for _ in pairs(raws) do n = n + 1 end
  t.eq(n, 4) -- 2 outputs x 2 scenarios
end)

t.test("run: a num_prompts that is not a whole number is refused in one line before any server starts", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = config()
  cfg.dataset.num_prompts = "six"
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  for _, extra in ipairs { {}, { "--dry-run" } } do
    local argv = { "run", "cfg.yaml", "--out", "r.jsonl" }
    for _, a in ipairs(extra) do argv[#argv + 1] = a end
    local r = ab_cli(argv, d, env)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.eq(r.stderr, "llmdlua: cfg.yaml: dataset.num_prompts must be a whole number >= 1 (got 'six'); nothing was "
      .. "started\n")
    t.eq(r.stdout, "")
  end
  t.eq(lfs.attributes(d .. "/r.jsonl"), nil, "no row")
  t.eq(lfs.attributes(d .. "/autobench-artifacts"), nil, "no server started, no folder made")
  cfg.dataset.num_prompts = 2.5
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: cfg.yaml: dataset.num_prompts must be a whole number >= 1 (got 2.5); "
    .. "nothing was started\n" })
end)

t.test("run: a server failing every request ends its candidate after that scenario, not a ready-check wait later", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  -- the client's ready check (vLLM's 600 s) shortened to 25 s: the next scenario used to wait it all
  env.MOCK_READY_CHECK_S = "25"
  t.write(d .. "/cfg.yaml", yaml.dump(config(4))) -- mode 4: HTTP 500 after the first completion
  local t0 = os.time()
  local r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  t.ok(os.time() - t0 < 20, "no ready-check wait for summarization: " .. (os.time() - t0) .. " s")
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local got = rows_by(d .. "/r.jsonl")
  local chat, summ = got["vllm-0/chat"], got["vllm-0/summarization"]
  -- 3 prompts, none answered (by hand: mode 4 answers only the client's test prompt)
  t.eq({ chat.status, chat.failure_reason, chat.sla.passed }, { "failed", "no request succeeded (3 failed)", false })
  t.eq({ summ.status, summ.sla.passed }, { "skipped", false })
  find(summ.failure_reason, "not run: no request succeeded (3 failed) in chat, so the candidate was stopped (its "
    .. "server failed every request; log ")
  find(r.stdout, "summarization: skipped - not run: no request succeeded (3 failed) in chat")
  t.eq(lfs.attributes(d .. "/autobench-artifacts/r/vllm-0/benchmark-summarization.log"), nil, "never started")
  -- and compare names no winner
  r = ab_cli({ "compare", "r.jsonl" }, d)
  t.eq(r.code, 0, r.stderr)
  t.ok(not r.stdout:find("| chat | 1 |", 1, true), r.stdout)
end)

-- rows of one candidate (framework vllm, scenario chat) with the command cmd, one per value
local function rows(cid, cmd, values)
  local out = {}
  for _, v in ipairs(values) do
    out[#out + 1] = json.encode { framework = "vllm", candidate_id = cid, status = "ok",
      workload = { scenario = "chat", input_len = 10, output_len = 4 }, sla = { max_p50_ttft_ms = 5000, passed = true },
      metrics = { request_throughput = v, output_token_throughput = v * 4, p50_ttft_ms = 100.0, p50_tpot_ms = 10.0,
        success_rate = 1.0 },
      hardware = { gpu_count = 1 }, server_command = cmd }
  end
  return table.concat(out, "\n") .. "\n"
end

local EV_HEAD = "How sure each choice is (llmdlua's reading; the summary ranks single best measurements):\n"

t.test("compare: rows are repeats of one command, not of one candidate id (a position in each search)", function()
  local d = t.tmpdir()
  -- the trial: vllm-0 is --max-model-len 200 in one results file and 300 in the other
  local c200, c300 = "vllm serve m --max-model-len 200", "vllm serve m --max-model-len 300"
  t.write(d .. "/a.jsonl", rows("vllm-0", c200, { 10.0, 10.4, 9.8 }))
  t.write(d .. "/b.jsonl", rows("vllm-0", c300, { 12.0, 12.2, 11.9 }))
  local r = ab_cli({ "compare", "a.jsonl", "b.jsonl", "--evidence", "ev.txt" }, d)
  t.eq(r.code, 0, r.stderr)
  -- /usr/bin/python3 (stdlib: Welch's t and df, the t density integrated by Simpson's rule):
  -- [12.0, 12.2, 11.9] vs [10.0, 10.4, 9.8]: t = 9.973, df = 2.941, p = 0.0023326; means
  -- 12.0333 and 10.0667, |a - b| / mean of the two = 17.8 %. Pooled as one candidate they
  -- used to have nothing to be weighed against.
  t.eq(t.read(d .. "/ev.txt"), EV_HEAD .. "chat, vllm: vllm vllm-0 (`" .. c300 .. "`) ranks above vllm vllm-0 (`"
    .. c200 .. "`) by request throughput, best rows 12.20 vs 10.40 req/s (the toolchain's rule), means of the "
    .. "repeats 12.03 vs 10.07 req/s (17.8 % apart): a clear difference (Welch p = 0.00233; 3 and 3 measurements)\n")
  -- one command per id: named by the id alone, as before
  t.write(d .. "/c.jsonl", rows("vllm-0", c200, { 10.0 }) .. rows("vllm-1", c300, { 12.0 }))
  r = ab_cli({ "compare", "c.jsonl" }, d)
  find(r.stderr, "chat, vllm: vllm vllm-1 ranks above vllm vllm-0 by request throughput")
end)

t.test("compare --sla: a stricter limit is said to be the user's; no pass is said in words; Reason names the limit", function()
  local d = t.tmpdir()
  t.write(d .. "/a.jsonl", rows("vllm-0", "vllm serve m", { 10.0 }) .. rows("vllm-1", "vllm serve m --x 1", { 9.0 }))
  local r = ab_cli({ "compare", "a.jsonl", "--sla", "max_p50_ttft_ms=10", "--md", "s.md" }, d)
  t.eq(r.code, 0, r.stderr)
  -- each row: p50 TTFT 100 ms, run with max_p50_ttft_ms 5000 (passed), judged against 10
  find(r.stderr, "note: a.jsonl:1: vllm vllm-0: --sla sets other limits than the row was run with "
    .. "(max_p50_ttft_ms=10 (the row's own: 5000)): fails against them (p50 TTFT ms 100.0 > 10), where the stored "
    .. "sla.passed (True) was against the row's own\n")
  t.ok(not r.stderr:find("disagrees with its metrics", 1, true), r.stderr)
  local md = t.read(d .. "/s.md")
  find(md, "## Best Commands By Framework\n\nNo candidate passed the SLA (an ok row within every limit), so there is "
    .. "no best command and no rank")
  find(md, "## Cross-Framework Best Comparison\n\nNo candidate passed the SLA: nothing to rank.\n")
  find(md, "| vllm | vllm-0 | ok | False | SLA failed: p50 TTFT ms 100.0 > 10 |")
  find(md, "| vllm | vllm-1 | ok | False | SLA failed: p50 TTFT ms 100.0 > 10 |")
  -- a stored flag that does not follow from the row's own limits is still the row's own disagreement
  t.write(d .. "/bad.jsonl", (rows("vllm-0", "vllm serve m", { 10.0 }):gsub('"max_p50_ttft_ms":5000',
    '"max_p50_ttft_ms":50')))
  r = ab_cli({ "compare", "bad.jsonl", "--md", "b.md" }, d)
  find(r.stderr, "note: bad.jsonl:1: vllm vllm-0: the stored sla.passed (True) disagrees with its metrics; using False "
    .. "(p50 TTFT ms 100.0 > 50)")
  -- the toolchain's markdown stays byte for byte its own: no sentence, no Reason added
  r = ab_cli({ "compare", "a.jsonl", "--sla", "max_p50_ttft_ms=10", "--toolchain-md" }, d)
  t.ok(not r.stdout:find("No candidate passed", 1, true), r.stdout)
  find(r.stdout, "| vllm | vllm-0 | ok | False |  |")
end)

-- Session 35 (leftfix35): a rerun moves an earlier run's artifacts aside (.earlier-N) and
-- overwrites the logs; the rows that pointed at them (in the output and in its
-- .stale.jsonl) used to keep the old paths, which then held the NEW run's data.
t.test("run --force: a stale row points at where its data is now (.earlier-N), never at the new run's files", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  t.write(d .. "/cfg.yaml", yaml.dump(config()))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local first = rows_by(d .. "/r.jsonl")
  local art = first["vllm-0/chat"].artifacts
  -- what each artifact holds after the first run (the server log names the server's pid,
  -- so the rerun's log differs from it)
  local before = {}
  for _, k in ipairs { "raw_result", "server_log", "benchmark_log" } do before[k] = t.read(d .. "/" .. art[k]) end
  -- a flag changed: the rows are stale; --force moves them and measures the candidate again
  local cfg = config()
  cfg.frameworks.vllm.base_server_flags.gpu_memory_utilization = 0.8
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl", "--force" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local new = rows_by(d .. "/r.jsonl")["vllm-0/chat"]
  local stale = rows_by(d .. "/r.stale.jsonl")["vllm-0/chat"]
  t.eq(stale.run_key, first["vllm-0/chat"].run_key)
  for _, k in ipairs { "raw_result", "server_log", "benchmark_log" } do
    -- by hand: the first run's file, moved aside once, is PATH.earlier-1
    t.eq(stale.artifacts[k], art[k] .. ".earlier-1", k)
    t.eq(t.read(d .. "/" .. stale.artifacts[k]), before[k], k .. ": the stale row's file holds its own data")
    t.eq(new.artifacts[k], art[k], k .. ": the new row writes where the first one did")
  end
  -- the stale row's metrics are the numbers of the file it points to
  local raw = json.read(d .. "/" .. stale.artifacts.raw_result)
  t.eq(stale.metrics.request_throughput, raw.request_throughput)
end)

t.test("run: a scenario added to the config keeps the measured rows pointing at their own server log", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = config()
  cfg.dataset.scenario_names, cfg.dataset.input_len, cfg.dataset.output_len = { "chat" }, { 10 }, { 4 }
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local log = rows_by(d .. "/r.jsonl")["vllm-0/chat"].artifacts.server_log
  local before = t.read(d .. "/" .. log)
  -- summarization added: chat is still done (same run key), but the candidate's server
  -- starts again for summarization and writes its own server.log
  t.write(d .. "/cfg.yaml", yaml.dump(config()))
  r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local got = rows_by(d .. "/r.jsonl")
  t.eq(got["vllm-0/chat"].artifacts.server_log, log .. ".earlier-1")
  t.eq(t.read(d .. "/" .. got["vllm-0/chat"].artifacts.server_log), before)
  t.eq(got["vllm-0/summarization"].artifacts.server_log, log)
  t.ok(t.read(d .. "/" .. log) ~= before, "the new server's log")
end)

t.test("run --force: a stale row whose artifact is no longer there says so", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  t.write(d .. "/cfg.yaml", yaml.dump(config()))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local raw = rows_by(d .. "/r.jsonl")["vllm-0/chat"].artifacts.raw_result
  os.remove(d .. "/" .. raw) -- the user deleted it
  local cfg = config()
  cfg.frameworks.vllm.base_server_flags.gpu_memory_utilization = 0.8
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl", "--force" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local stale = rows_by(d .. "/r.stale.jsonl")["vllm-0/chat"]
  t.eq(stale.artifacts.raw_result, nil, "no pointer at the new run's file")
  t.eq(stale.artifacts_gone, { raw_result = raw })
  find(r.stdout, "vllm-0 chat: its raw_result " .. raw .. " is gone")
  -- the other scenario's file was there: moved aside and pointed at
  local other = rows_by(d .. "/r.stale.jsonl")["vllm-0/summarization"]
  t.ok(other.artifacts.raw_result:match("%.earlier%-1$"), other.artifacts.raw_result)
  t.eq(other.artifacts_gone, nil)
end)
