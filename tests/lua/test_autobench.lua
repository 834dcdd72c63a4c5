-- autobench.lua: validate, plan, compare against the golden outputs in
-- ../shared/fixtures/autobench/expected (written by the upstream toolchain on the same
-- inputs), and run mode against a mock server (tests/autobench/mockserver.py).
local t = require "testlib"
local ab = require "llmd.autobench"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"
local yaml = require "llmd.yaml"

local F = t.fixtures() .. "/autobench"
local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"

-- runs autobench.lua in the fixtures folder (paths in messages are as given)
local function ab_cli(args, cwd, env)
  local argv = { LLMDLUA, "autobench.lua" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return proc.run(argv, { cwd = cwd or F, env = env })
end

local mock = require "abmock"
local PY, MOCKSERVER, vllm_shim, mock_config = mock.PY, mock.MOCKSERVER, mock.vllm_shim, mock.config

-- rows of a results file by "candidate/scenario"
local function rows_by(path)
  local got = {}
  for _, row in ipairs(ab.read_rows(path)) do got[row.candidate_id .. "/" .. ab.scenario(row)] = row end
  return got
end

local function expected(name) return t.read(F .. "/expected/" .. name) end

t.test("validate: all 39 cookbook configs are clean; --print-commands equals the golden file", function()
  local n = 0
  for name in lfs.dir(F .. "/cookbook-llm") do if name:match("%.yaml$") then n = n + 1 end end
  t.eq(n, 39)
  local r = ab_cli { "validate", "cookbook-llm" }
  t.eq(r.code, 0, r.stdout)
  t.eq(r.stdout, "")
  r = ab_cli { "validate", "cookbook-llm", "--print-commands" }
  t.eq(r.stdout, expected "validate-cookbook-print-commands.stdout.txt")
end)

t.test("validate: every negative config and help-dir case gives exactly the golden messages and exit code", function()
  for _, c in ipairs {
    { { "negative/derived-llama-3.1-70b-instruct.trt-backend-in-search-space.yaml" },
      "validate-derived-llama-3.1-70b-instruct.trt-backend-in-search-space.stdout.txt" },
    { { "negative/derived-llama-3.1-70b-instruct.trt-base-backend-trt.yaml" },
      "validate-derived-llama-3.1-70b-instruct.trt-base-backend-trt.stdout.txt" },
    { { "negative/derived-llama-3.1-70b-instruct.sglang-vllm-only.yaml", "--print-commands" },
      "validate-derived-llama-3.1-70b-instruct.sglang-vllm-only.stdout.txt" },
    { { "reference/example-plan.yaml" }, "validate-example-plan.stdout.txt" },
    { { "negative/sglang-older-llama-3.1-70b-instruct.p99-sla-3-frameworks.yaml" }, "validate-negative-sglang-older.stdout.txt" },
    { { "cookbook-llm/llama-3.1-70b-instruct.yaml", "--help-dir", "help-synthetic/full" },
      "validate-llama-3.1-70b-helpdir-full.stdout.txt" },
    { { "cookbook-llm/llama-3.1-70b-instruct.yaml", "--help-dir", "help-synthetic/mismatch" },
      "validate-llama-3.1-70b-helpdir-mismatch.stdout.txt" },
    { { "cookbook-llm/llama-3.1-70b-instruct.yaml", "--help-dir", "help-synthetic/missing-trtllm" },
      "validate-llama-3.1-70b-helpdir-missing-trtllm.stdout.txt" },
  } do
    local args = { "validate" }
    for _, a in ipairs(c[1]) do args[#args + 1] = a end
    local r = ab_cli(args)
    t.eq(r.stdout .. "exit=" .. r.code .. "\n", expected(c[2]), c[2])
  end
  -- a help capture with no flags ("command not found") does not register its framework
  local help = ab.read_help_dir(F .. "/help-synthetic/missing-trtllm")
  t.eq(help.tensorrt_llm, nil)
  t.ok(ab.read_help_dir(F .. "/help-synthetic/full").tokenspeed["tensor-parallel-size"])
end)

t.test("validate: a broken config reports several problems without stopping", function()
  local d = t.tmpdir()
  t.write(d .. "/bad.yaml", yaml.dump {
    schema_version = 1, source = { kind = "llm_serving_cookbook" }, model = { name = "m" },
    dataset = { input_len = json.array {}, output_len = json.array {} }, search = 3,
    frameworks = { sglang = { base_server_flags = {}, search_space = {} }, vllm = { enabled = false },
      tensorrt_llm = { enabled = false }, tokenspeed = { enabled = false } },
  })
  local r = ab_cli({ "validate", "bad.yaml" }, d)
  t.eq(r.code, 1)
  t.eq(r.stdout, "bad.yaml: dataset.input_len and dataset.output_len must not be empty\n"
    .. "bad.yaml: search must be a mapping\nbad.yaml: sglang: server_command must be a string\n")
end)

-- A config that is not YAML printed its name twice ("broken.yaml: broken.yaml:2:1: ..."):
-- now one line, "llmdlua: FILE:LINE:COL: what was expected", on stderr; validate goes on with
-- the other files (exit 1), plan stops (exit 1). The text after the position is libyaml's for
-- this input, the same that test_errors.lua expects of yaml.load_file on it; the rest is
-- written by hand from the rule.
t.test("validate, plan: a config that is not YAML is one line naming the file once, where", function()
  local d = t.tmpdir()
  t.write(d .. "/broken.yaml", "a: [1,\n")
  t.write(d .. "/bad.yaml", yaml.dump { schema_version = 2 })
  local want = "llmdlua: broken.yaml:2:1: did not find expected node content while parsing a flow node "
    .. "(started at line 2, column 1)\n"
  local r = ab_cli({ "validate", "broken.yaml", "bad.yaml" }, d)
  t.eq(r.code, 1)
  t.eq(r.stderr, want)
  -- bad.yaml was still validated (its first finding, as the toolchain words it)
  t.ok(r.stdout:find("^bad%.yaml: schema_version must be 1\n"), r.stdout)
  t.ok(not r.stdout:find("broken.yaml", 1, true), r.stdout)
  -- --print-commands does not stop at the unreadable file either
  r = ab_cli({ "validate", "broken.yaml", "--print-commands" }, d)
  t.eq({ r.code, r.stderr, r.stdout }, { 1, want, "" })
  r = ab_cli({ "plan", "broken.yaml" }, d)
  t.eq({ r.code, r.stderr, r.stdout }, { 1, want, "" })
  -- (a config the command line names that is not there: a usage error, exit 2, as in every
  -- script: llmd.args.path; validate reads on past it, as past any unreadable file)
  r = ab_cli({ "plan", "nope.yaml", "--text" }, d)
  t.eq({ r.code, r.stderr }, { 2, "autobench.lua plan: nope.yaml: no such file (expected an autobench config, a YAML "
    .. "file)\n" })
  r = ab_cli({ "validate", "nope.yaml" }, d)
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: nope.yaml: cannot open: No such file or directory\n" })
end)

t.test("plan: candidate lists equal the golden lists; dispositions recorded", function()
  for _, n in ipairs { "llama-3.1-70b-instruct", "mimo-v2-flash", "qwen3-235b-a22b" } do
    local plan = ab.plan(F .. "/cookbook-llm/" .. n .. ".yaml", { gap = function() return nil end })
    t.eq(ab.plan_text(plan), expected(n .. ".all-candidates.txt"), n)
  end
  -- frameworks left out are user-excluded; a missing CLI is an environment gap
  local plan = ab.plan(F .. "/cookbook-llm/llama-3.1-70b-instruct.yaml", {
    frameworks = "sglang,vllm",
    gap = function(cmd) if cmd:match("^vllm") then return "'vllm' is not installed here" end end,
  })
  local disp = {}
  for _, e in ipairs(plan.entries) do disp[e.framework] = disp[e.framework] or e.disposition end
  -- vllm missing is also the default benchmark client (vllm bench serve) missing: sglang
  -- cannot be measured either
  t.eq(disp, { sglang = "environment-gap", vllm = "environment-gap", tensorrt_llm = "user-excluded",
    tokenspeed = "user-excluded" })
  for _, e in ipairs(plan.entries) do
    if e.framework == "sglang" then t.eq(e.reason, "the benchmark client: 'vllm' is not installed here") end
  end
  plan = ab.plan(F .. "/cookbook-llm/llama-3.1-70b-instruct.yaml", {
    frameworks = "sglang,vllm", gap = function(cmd) if cmd:match("^python") then return "no sglang" end end })
  disp = {}
  for _, e in ipairs(plan.entries) do disp[e.framework] = disp[e.framework] or e.disposition end
  t.eq({ disp.sglang, disp.vllm }, { "environment-gap", "selected" })
  t.raises("--frameworks: unknown framework 'trt'", ab.plan, F .. "/cookbook-llm/llama-3.1-70b-instruct.yaml",
    { frameworks = "trt" })
end)

t.test("TensorRT-LLM: a non-PyTorch backend is unsupported with the reason, never translated", function()
  local plan = ab.plan(F .. "/negative/derived-llama-3.1-70b-instruct.trt-base-backend-trt.yaml",
    { gap = function() return nil end })
  local trt = {}
  for _, e in ipairs(plan.entries) do if e.framework == "tensorrt_llm" then trt[#trt + 1] = e end end
  t.ok(#trt > 0)
  for _, e in ipairs(trt) do
    t.eq(e.disposition, "unsupported")
    t.ok(e.reason:find("only with the PyTorch backend", 1, true), e.reason)
    t.ok(e.server_command:find("--backend trt", 1, true), "the command says what was asked: " .. e.server_command)
  end
end)

t.test("compare: markdown and CSV byte-identical to the golden files for every upstream case", function()
  local d = t.tmpdir()
  for name in lfs.dir(F .. "/results") do
    local base = name:match("^(.+)%.jsonl$")
    if base then
      -- (--toolchain-md: its summary as it writes it, without the Evidence column: nu32-11)
      local r = ab_cli { "compare", "results/" .. name, "--md", d .. "/" .. base .. ".md", "--csv", d .. "/" .. base .. ".csv",
        "--toolchain-md" }
      t.eq(r.code, 0, r.stderr)
      t.eq(t.read(d .. "/" .. base .. ".md"), expected(base .. ".summary.md"), base .. " md")
      t.eq(t.read(d .. "/" .. base .. ".csv"), expected(base .. ".summary.csv"), base .. " csv")
    end
  end
end)

t.test("compare: sla.passed recomputed from the metrics, a disagreement reported; bad rows name file:line", function()
  local d = t.tmpdir()
  -- p50 TTFT 410 ms against a 300 ms limit: the stored true is stale
  local row = json.read(F .. "/results/result-schema-example-row.json")
  t.write(d .. "/r.jsonl", json.encode(row) .. "\n")
  local r = ab_cli({ "compare", "r.jsonl", "--sla", "max_p50_ttft_ms=300" }, d)
  t.eq(r.code, 0)
  -- (the row was run with 2000 ms and passed it: it is the user's --sla that differs, and
  -- the note says so; it used to say the stored flag "disagrees with its metrics")
  t.ok(r.stderr:find("r.jsonl:1: sglang sglang-tp8-flashinfer: --sla sets other limits than the row was run with "
    .. "(max_p50_ttft_ms=300 (the row's own: 2000)): fails against them (p50 TTFT ms 410.0 > 300), where the stored "
    .. "sla.passed (True) was against the row's own", 1, true), r.stderr)
  t.ok(r.stdout:find("| sglang | sglang-tp8-flashinfer | ok | False |", 1, true), r.stdout)
  t.write(d .. "/bad.jsonl", json.encode(row) .. "\n\n{\"framework\": \n")
  r = ab_cli({ "compare", "bad.jsonl" }, d)
  t.eq(r.code, 1)
  -- one line, no traceback: the row's line and column (after `{"framework": `, column 15)
  t.eq(r.stderr, "llmdlua: bad.jsonl:3: invalid JSON: unexpected end of input, expected a value (column 15)\n")
  t.write(d .. "/arr.jsonl", "[1, 2, 3]\n")
  r = ab_cli({ "compare", "arr.jsonl" }, d)
  t.ok(r.stderr:find("arr.jsonl:1: expected a JSON object", 1, true), r.stderr)
  r = ab_cli({ "compare", "r.jsonl", "--sla", "max_p99_ttft_ms=3" }, d)
  t.ok(r.stderr:find("unknown key 'max_p99_ttft_ms'", 1, true) and r.stderr:find("use max_p50_ttft_ms", 1, true), r.stderr)
end)

t.test("compare: a null or 0 p50 TTFT makes the SLA unknown (N/A), never a failed check nor a win", function()
  local d = t.tmpdir()
  -- three rows of one scenario, the SLA p50 TTFT <= 2000 ms stored as passed: v-null's TTFT
  -- null, s-zero's 0 (README: TTFT 0 means not measured), t-ok's 500 (passes: 500 <= 2000).
  -- By hand: only t-ok is known to pass, so it alone is a winner; the other two are unknown
  local function row(fw, cid, ttft)
    return ('{"framework": "%s", "candidate_id": "%s", "status": "ok", "workload": {"scenario": "chat"}, '
      .. '"sla": {"max_p50_ttft_ms": 2000, "passed": true}, "metrics": {"request_throughput": %s, '
      .. '"p50_ttft_ms": %s, "p50_tpot_ms": 25}, "hardware": {"gpu_count": 8}}'):format(fw, cid,
      cid == "t-ok" and "5" or "10", ttft)
  end
  t.write(d .. "/nz.jsonl", table.concat({ row("vllm", "v-null", "null"), row("sglang", "s-zero", "0"),
    row("trtllm", "t-ok", "500") }, "\n") .. "\n")
  local r = ab_cli({ "compare", "nz.jsonl", "--csv", "nz.csv" }, d)
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stderr:find("note: nz.jsonl:1: vllm v-null: SLA unknown (N/A): p50 TTFT ms unknown (N/A: null in the row); "
    .. "the stored sla.passed (True) is not used, and the row is not counted as passing\n", 1, true), r.stderr)
  t.ok(r.stderr:find("note: nz.jsonl:2: sglang s-zero: SLA unknown (N/A): p50 TTFT ms unknown (N/A: 0, which means "
    .. "not measured);", 1, true), r.stderr)
  -- no Python words, no failed check of an unknown
  for _, w in ipairs { "None", "using False" } do t.ok(not r.stderr:find(w, 1, true), r.stderr) end
  -- the winners: t-ok only (s-zero's 10 req/s would have won the cross-framework ranking)
  local cross = r.stdout:match("## Cross%-Framework Best Comparison(.-)## Failed")
  t.ok(cross:find("| chat | 1 | trtllm | t-ok | True |", 1, true), cross)
  t.ok(not cross:find("s-zero", 1, true) and not cross:find("v-null", 1, true), cross)
  t.ok(r.stdout:find("| vllm | v-null | ok | unknown (N/A) | SLA unknown: p50 TTFT ms unknown (N/A: null in the row) |",
    1, true), r.stdout)
  t.ok(r.stdout:find("| sglang | s-zero | ok | unknown (N/A) |", 1, true), r.stdout)
  -- the CSV's sla_passed stays True/False or empty (unknown), why in llmdlua_note, the last column
  local csv = t.read(d .. "/nz.csv")
  t.ok(csv:find("\r\nsglang,chat,s-zero,ok,,10,", 1, true), csv)
  t.ok(csv:find('\r\nsglang,chat,s-zero,ok,,10,,0,25,,,,,,,,8,,,"sla_passed: unknown (N/A): p50 TTFT ms unknown (N/A: 0, '
    .. 'which means not measured)"\r\n', 1, true), csv)
  t.lacks(csv, "unknown (N/A),")
  -- a known failing check still fails, whatever else is unknown: 2500 > 2000 with success rate null
  t.write(d .. "/f.jsonl", row("vllm", "v-slow", "2500"):gsub('"p50_tpot_ms": 25', '"p50_tpot_ms": 25, '
    .. '"success_rate": null') .. "\n")
  r = ab_cli({ "compare", "f.jsonl", "--sla", "min_success_rate=0.99" }, d)
  t.ok(r.stderr:find("using False (p50 TTFT ms 2500 > 2000)", 1, true), r.stderr)
  t.ok(r.stdout:find("| vllm | v-slow | ok | False |", 1, true), r.stdout)
  -- the evidence line of a choice made by the SLA says unknown, not "does not pass it"
  t.write(d .. "/two.jsonl", row("vllm", "a", "null") .. "\n" .. row("vllm", "t-ok", "100") .. "\n")
  r = ab_cli({ "compare", "two.jsonl" }, d)
  t.ok(r.stderr:find("chat, vllm: vllm t-ok ranks above vllm a by the SLA: vllm a is not known to pass it (SLA "
    .. "unknown (N/A): p50 TTFT ms unknown (N/A: null in the row))", 1, true), r.stderr)
end)

-- rows of one candidate in scenario chat (1024 in unless inlen, 256 out, one GPU unless
-- gpus): one per value
local function ev_rows(fw, cid, values, gpus, inlen)
  local out = {}
  for _, v in ipairs(values) do
    out[#out + 1] = json.encode { framework = fw, candidate_id = cid, status = "ok",
      workload = { scenario = "chat", input_len = inlen or 1024, output_len = 256 }, sla = { passed = true },
      metrics = { request_throughput = v, output_token_throughput = v * 256, p50_ttft_ms = 100.0,
        p50_tpot_ms = 10.0, success_rate = 1.0 },
      hardware = { gpu_count = gpus or 1 }, server_command = "x" }
  end
  return table.concat(out, "\n") .. "\n"
end

local EV_HEAD = "How sure each choice is (llmdlua's reading; the summary ranks single best measurements):\n"

t.test("compare: evidence for each choice: untested from one measurement, repeats tested (Welch, Holm)", function()
  local d = t.tmpdir()
  -- the toolchain's own case: one row each; the files stay byte-identical (test above)
  local r = ab_cli({ "compare", "results/tests-renders_scenario_tables.jsonl", "--md", d .. "/s.md" }, F)
  t.eq(r.code, 0)
  -- vllm-c1 12 req/s over sglang-c1 10: 12 / 10 - 1 = 20.0 % apart (the higher over the lower,
  -- decision.magnitude, the practical threshold's reading since fixa43), by hand
  t.eq(r.stderr, EV_HEAD .. "chat, across frameworks: vllm vllm-c1 ranks above sglang sglang-c1 by request "
    .. "throughput, 12.00 vs 10.00 req/s (20.0 % apart): untested: one measurement each, no repeats to test\n")
  -- repeats: vllm-c2's best row (12.4) wins vllm by the toolchain's rule, but its mean is
  -- below vllm-best's. Welch's t on the log values, the interval of the geometric means'
  -- ratio from the same t and df (audit50b F6), by /usr/bin/python3 + numpy (the t density
  -- integrated numerically, its 0.975 quantile by bisection): best vs c2 p = 0.896851,
  -- df = 3.576, +0.29 %, -5.67 % to +6.63 %; sglang vs c2 p = 0.002799; Holm over the two:
  -- 2 x 0.002799 = 0.0056, and max(0.0056, 0.896851) = 0.897.
  t.write(d .. "/rep.jsonl", ev_rows("vllm", "vllm-best", { 12.0, 12.3, 11.8 })
    .. ev_rows("vllm", "vllm-c2", { 11.9, 12.4, 11.7 }) .. ev_rows("sglang", "sglang-steady", { 10.0, 10.2, 9.9 }))
  r = ab_cli({ "compare", "rep.jsonl", "--evidence", "ev.txt" }, d)
  t.eq(r.code, 0)
  t.eq(r.stderr, "", "the evidence went to its file")
  t.ok(r.stdout:find("| chat | 1 | vllm | vllm-c2 | True | 12.40 |", 1, true), r.stdout)
  -- (apart: 12.0333 / 12.00 - 1 = 0.3 %, 12.00 / 10.0333 - 1 = 19.6 %, by hand)
  t.eq(t.read(d .. "/ev.txt"), EV_HEAD
    .. "chat, vllm: vllm vllm-c2 ranks above vllm vllm-best by request throughput, best rows 12.40 vs 12.30 req/s "
    .. "(the toolchain's rule), means of the repeats 12.00 vs 12.03 req/s (0.3 % apart; the means order them the "
    .. "other way): no clear difference (Welch on the log values, p = 0.897, 0.897 after Holm over 2 tests; 3 and 3 "
    .. "measurements; vllm vllm-best +0.3 % against vllm vllm-c2 over the repeats, 95 % interval -5.7 % to +6.6 %)\n"
    .. "chat, across frameworks: vllm vllm-c2 ranks above sglang sglang-steady by request throughput, best rows "
    .. "12.40 vs 10.20 req/s (the toolchain's rule), means of the repeats 12.00 vs 10.03 req/s (19.6 % apart): a "
    .. "clear difference (Welch on the log values, p = 0.0028, 0.0056 after Holm over 2 tests; 3 and 3 "
    .. "measurements)\n")
  -- every repeat of each the same value: Welch's t would be infinite (p = 0); the exact
  -- Mann-Whitney test gives 2 / C(6, 3) = 0.1 at best (by hand), so it cannot decide
  t.write(d .. "/const.jsonl", ev_rows("vllm", "v", { 12.0, 12.0, 12.0 }) .. ev_rows("sglang", "s", { 10.0, 10.0, 10.0 }))
  r = ab_cli({ "compare", "const.jsonl", "--evidence", "const.txt" }, d)
  t.eq(r.code, 0)
  t.eq(t.read(d .. "/const.txt"), EV_HEAD .. "chat, across frameworks: vllm v ranks above sglang s by request "
    .. "throughput, best rows 12.00 vs 10.00 req/s (the toolchain's rule), means of the repeats 12.00 vs 10.00 "
    .. "req/s (20.0 % apart): no clear difference (exact "
    .. "Mann-Whitney on the repeats, p = 0.1; 3 and 3 repeats can give no p below 0.1: it cannot show a "
    .. "difference)\n")
end)

t.test("compare: evidence says when a choice is by the SLA, below the practical threshold, or unlike", function()
  local d = t.tmpdir()
  -- the toolchain's case: sglang-fast-fail misses the SLA, so sglang-steady is sglang's best
  local r = ab_cli({ "compare", "results/tests-scenario_winner_prefers_successful_sla_passing_rows.jsonl",
    "--md", d .. "/s.md" }, F)
  t.ok(r.stderr:find("chat, sglang: sglang sglang-steady ranks above sglang sglang-fast-fail by the SLA: "
    .. "sglang sglang-fast-fail does not pass it\n", 1, true), r.stderr)
  -- 10.1 against 10.0 from one row each: 10.1 / 10.0 - 1 = 1.0 % apart, below 2 %; and 8 GPUs
  -- against 1: the throughputs are not per GPU
  t.write(d .. "/one.jsonl", ev_rows("vllm", "v8", { 10.1 }, 8) .. ev_rows("sglang", "s1", { 10.0 }))
  r = ab_cli({ "compare", "one.jsonl", "--md", "s.md" }, d)
  t.eq(r.stderr, EV_HEAD .. "chat, across frameworks: vllm v8 ranks above sglang s1 by request throughput, "
    .. "10.10 vs 10.00 req/s (1.0 % apart): one measurement each; not like for like: 8 vs 1 GPUs: the figures "
    .. "are not per GPU; no verdict (a difference between unlike set-ups is no evidence for the choice)\n")
  -- repeats that Welch would call a clear difference (the rows of the test above: p =
  -- 0.0028, 19.6 % apart), but sglang ran on 2 GPUs and 2048-token prompts: no test, no
  -- verdict, and out of the Holm family, so vllm's own choice keeps its unadjusted p =
  -- 0.896851 (the test above's /usr/bin/python3 value) with no "after Holm" at all
  t.write(d .. "/unlike.jsonl", ev_rows("vllm", "vllm-best", { 12.0, 12.3, 11.8 })
    .. ev_rows("vllm", "vllm-c2", { 11.9, 12.4, 11.7 }) .. ev_rows("sglang", "sglang-steady", { 10.0, 10.2, 9.9 }, 2, 2048))
  r = ab_cli({ "compare", "unlike.jsonl", "--evidence", "unlike.txt" }, d)
  t.eq(r.code, 0)
  t.eq(t.read(d .. "/unlike.txt"), EV_HEAD
    .. "chat, vllm: vllm vllm-c2 ranks above vllm vllm-best by request throughput, best rows 12.40 vs 12.30 req/s "
    .. "(the toolchain's rule), means of the repeats 12.00 vs 12.03 req/s (0.3 % apart; the means order them the "
    .. "other way): no clear difference (Welch on the log values, p = 0.897; 3 and 3 measurements; vllm vllm-best "
    .. "+0.3 % against vllm vllm-c2 over the repeats, 95 % interval -5.7 % to +6.6 %)\n"
    .. "chat, across frameworks: vllm vllm-c2 ranks above sglang sglang-steady by request throughput, best rows "
    .. "12.40 vs 10.20 req/s (the toolchain's rule), means of the repeats 12.00 vs 10.03 req/s (19.6 % apart): "
    .. "3 and 3 measurements; not like for like: 1 vs 2 GPUs: "
    .. "the figures are not per GPU; input_len 1024 vs 2048: not the same workload; no verdict (a difference "
    .. "between unlike set-ups is no evidence for the choice)\n")
  -- best rows that tie (10.1 each) on every criterion: the repeats' request throughput is
  -- still weighed. Means 10.00 vs 10.05, 10.05 / 10.00 - 1 = 0.5 % apart; Welch on the log
  -- values by /usr/bin/python3 + numpy (as above): p = 0.49483, df = 2.933, the geometric
  -- means' ratio +0.50 %, interval -1.57 % to +2.61 %; the only test, so no Holm
  t.write(d .. "/tie.jsonl", ev_rows("vllm", "vllm-a", { 10.0, 9.9, 10.1 }) .. ev_rows("vllm", "vllm-b", { 10.1, 10.05, 10.0 }))
  r = ab_cli({ "compare", "tie.jsonl", "--evidence", "tie.txt" }, d)
  t.eq(r.code, 0)
  t.eq(t.read(d .. "/tie.txt"), EV_HEAD .. "chat, vllm: vllm vllm-a ranks above vllm vllm-b: a tie on every "
    .. "criterion of the best rows (the first row read is listed first); request throughput: best rows 10.10 vs "
    .. "10.10 req/s (the toolchain's rule), means of the repeats 10.00 vs 10.05 req/s (0.5 % apart): no clear "
    .. "difference (Welch on the log values, p = 0.495; 3 and 3 measurements; vllm vllm-b +0.5 % against vllm vllm-a "
    .. "over the repeats, 95 % interval -1.6 % to +2.6 %)\n")
  -- a significant difference whose estimate is past the 2 % threshold but whose 95 %
  -- interval reaches back within it: no clear difference, as compare's rows (fixi41). Welch on
  -- the log values and the geometric means' ratio's interval from the same t and df (audit50b
  -- F6), by /usr/bin/python3 + numpy (as above): p = 0.008093, df = 3.994, s against v -3.85 %,
  -- -5.96 % to -1.68 %, whose upper end is not past the fall of -1.96 % that reaches 2 %; the
  -- means 4.0 % apart (10.4 / 10.0, the higher over the lower)
  t.write(d .. "/near.jsonl", ev_rows("vllm", "v", { 10.5, 10.3, 10.4 }) .. ev_rows("sglang", "s", { 10.0, 10.1, 9.9 }))
  r = ab_cli({ "compare", "near.jsonl", "--evidence", "near.txt" }, d)
  t.eq(r.code, 0)
  t.eq(t.read(d .. "/near.txt"), EV_HEAD .. "chat, across frameworks: vllm v ranks above sglang s by request "
    .. "throughput, best rows 10.50 vs 10.10 req/s (the toolchain's rule), means of the repeats 10.40 vs 10.00 req/s "
    .. "(4.0 % apart): not shown to differ by the 2 % practical threshold (Welch on the log values, p = 0.00809; 3 "
    .. "and 3 measurements): sglang s's values are lower (sglang s -3.8 % against vllm v over the repeats, 95 % "
    .. "interval -6.0 % to -1.7 %), but the interval reaches within the 2 % practical threshold (a fall reaches it at "
    .. "-1.96 %), so the difference may be too small to matter: no winner\n")
  -- a single candidate: nothing to weigh; the file says so
  t.write(d .. "/solo.jsonl", ev_rows("vllm", "v", { 10.0 }))
  r = ab_cli({ "compare", "solo.jsonl", "--md", "s.md", "--evidence", "solo.txt" }, d)
  t.eq(r.code, 0)
  t.eq(t.read(d .. "/solo.txt"), EV_HEAD .. "no choice to weigh: fewer than two candidates in every scenario\n")
end)

-- newuser47 F3, F11: an empty results file and another harness's JSON (an inference-perf stage
-- file: load_summary, successes, failures) were "No rows found." / a row "unknown", exit 0; a
-- --md into a missing folder made it silently. Texts by hand from the rule.
t.test("compare: an empty file or another harness's JSON is no results (exit 1); a missing folder is said", function()
  local d = t.tmpdir()
  t.write(d .. "/empty.jsonl", "")
  t.write(d .. "/blank.jsonl", "\n  \n")
  for _, f in ipairs { "empty.jsonl", "blank.jsonl" } do
    local r = ab_cli({ "compare", f, "--md", "e.md" }, d)
    t.eq({ r.code, r.stderr }, { 1, "llmdlua: " .. f .. ": no autobench rows (no JSON line in it; expected JSON "
      .. "lines, one row per candidate and scenario, as autobench.lua run writes)\n" }, f)
  end
  t.eq(lfs.attributes(d .. "/e.md"), nil, "nothing written")
  t.write(d .. "/stage_0_lifecycle_metrics.json", '{"load_summary": {"count": 60}, "successes": {"count": 58}, '
    .. '"failures": {"count": 2}}\n')
  local r = ab_cli({ "compare", "stage_0_lifecycle_metrics.json" }, d)
  t.eq({ r.code, r.stdout, r.stderr }, { 1, "", "llmdlua: stage_0_lifecycle_metrics.json:1: not an autobench "
    .. "results row: it has no framework, candidate_id or status (its keys: failures, load_summary, successes); "
    .. "expected one JSON row per candidate and scenario, as autobench.lua run writes\n" })
  t.write(d .. "/e.jsonl", "{}\n")
  r = ab_cli({ "compare", "e.jsonl" }, d)
  t.ok(r.code == 1 and r.stderr:find("e.jsonl:1: not an autobench results row: it has no framework, candidate_id "
    .. "or status (an empty object)", 1, true), r.stderr)
  -- a row with only some of the three (the toolchain reads a missing framework as unknown) stays accepted
  t.write(d .. "/some.jsonl", '{"candidate_id": "c1", "status": "ok", "sla": {"passed": true}, '
    .. '"metrics": {"request_throughput": 2}}\n')
  r = ab_cli({ "compare", "some.jsonl", "--md", "sub/dir/s.md", "--csv", "sub/dir/s.csv" }, d)
  t.eq(r.code, 0, r.stderr)
  t.ok(t.read(d .. "/sub/dir/s.md"):find("| default | c1 | ok | True |", 1, true))
  -- the folder made is said once, naming the option that needed it
  t.eq(r.stderr:match("^note: [^\n]*\n"), "note: sub/dir did not exist; made it for the --md file\n", r.stderr)
  t.ok(not r.stderr:find("for the --csv file", 1, true), r.stderr)
end)

t.test("compare: a malformed number in a row is one line naming file:line and the field, exit 1", function()
  local d = t.tmpdir()
  local row = json.read(F .. "/results/result-schema-example-row.json")
  -- each case: the field, a malformed value, and the message written by hand from the rule
  -- (throughputs and latencies are numbers >= 0, a success rate a fraction in [0, 1])
  local cases = {
    { "metrics", "request_throughput", "fast", 'metrics.request_throughput: expected a number >= 0, got the string "fast"' },
    { "metrics", "success_rate", 7, "metrics.success_rate: expected a number in [0, 1], got 7" },
    { "metrics", "mean_ttft_ms", -5, "metrics.mean_ttft_ms: expected a number >= 0, got -5" },
    { "metrics", "p50_tpot_ms", true, "metrics.p50_tpot_ms: expected a number >= 0, got boolean (true)" },
    { "sla", "min_success_rate", 99, "sla.min_success_rate: expected a number in [0, 1], got 99" },
    { "hardware", "gpu_count", 1.5, "hardware.gpu_count: expected a whole number >= 0, got 1.5" },
  }
  for _, c in ipairs(cases) do
    local bad = json.decode(json.encode(row))
    bad[c[1]][c[2]] = c[3]
    -- line 1 valid, line 2 blank, line 3 the malformed row
    t.write(d .. "/m.jsonl", json.encode(row) .. "\n\n" .. json.encode(bad) .. "\n")
    local r = ab_cli({ "compare", "m.jsonl", "--md", d .. "/m.md" }, d)
    t.eq(r.code, 1, c[4])
    t.eq(r.stderr, "llmdlua: m.jsonl:3: " .. c[4] .. "\n")
  end
  -- the same row valid (null = unknown, as upstream writes it) is accepted
  local ok = json.decode(json.encode(row))
  ok.metrics.success_rate = json.null
  t.write(d .. "/ok.jsonl", json.encode(ok) .. "\n")
  t.eq(ab_cli({ "compare", "ok.jsonl", "--md", d .. "/ok.md" }, d).code, 0)
  -- a bad option value is a usage error: exit 2, one line (texts by hand from the rule)
  local r = ab_cli({ "compare", "ok.jsonl", "--sla", "max_p50_ttft_ms=-3" }, d)
  t.eq(r.code, 2)
  t.eq(r.stderr, "autobench.lua: --sla: max_p50_ttft_ms: expected a limit >= 0, got '-3'\n")
  r = ab_cli({ "compare", "ok.jsonl", "--sla", "min_success_rate=99" }, d)
  t.eq(r.code, 2)
  t.eq(r.stderr, "autobench.lua: --sla: min_success_rate: expected a fraction in [0, 1], got '99'\n")
  r = ab_cli({ "plan", "nope.yaml", "--frameworks", "vlm" }, d)
  t.eq(r.code, 2)
  t.ok(r.stderr:find("autobench.lua: --frameworks: expected sglang, vllm, ", 1, true)
    and r.stderr:find("got 'vlm' (did you mean vllm?)", 1, true), r.stderr)
end)

t.test("run: against a mock server - a good candidate, one that never comes up, one that OOMs, one that errors", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  env.MOCK_READY_CHECK_S = "2" -- vllm-3 fails every request: its client gives up after 2 s, not 600
  local cfg = mock_config {
    search = { max_candidates_per_framework = 4 },
    run = { ready_timeout = 10 }, -- (vllm-1, mode 2, waits it all)
    frameworks = {
      sglang = { enabled = false }, tensorrt_llm = { enabled = false },
      vllm = { enabled = true, server_command = MOCKSERVER,
        base_server_flags = { max_model_len = 100, max_num_seqs = 1 }, search_space = { max_num_seqs = { 2, 3, 4 } } },
      tokenspeed = { enabled = true, server_command = "tokenspeed-not-installed serve",
        base_server_flags = { max_model_len = 100 }, search_space = {} },
    },
  }
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "out/results.jsonl" }, d, env)
  t.eq(r.code, 1, r.stdout .. r.stderr) -- some candidates failed
  t.ok(r.stdout:find("[1/", 1, true), "progress shown")
  local rows = ab.read_rows(d .. "/out/results.jsonl")
  local got = rows_by(d .. "/out/results.jsonl")
  t.eq(got["vllm-0/chat"].status, "ok", got["vllm-0/chat"].failure_reason)
  t.eq(got["vllm-0/chat"].sla.passed, true)
  t.ok(got["vllm-0/summarization"].metrics.request_throughput > 0)
  t.eq(got["vllm-0/chat"].metrics.success_rate, 1.0)
  t.eq(got["vllm-1/chat"].status, "timeout")
  t.ok(got["vllm-1/chat"].failure_reason:find("did not answer", 1, true))
  t.eq(got["vllm-2/chat"].status, "oom")
  t.ok(got["vllm-2/chat"].failure_reason:find("CUDA out of memory", 1, true))
  -- every request an HTTP 500: vLLM's file says 0.0 for every statistic; the row has no
  -- latency or throughput at all (absent, never 0), only the success rate
  local v3 = got["vllm-3/chat"]
  t.eq(v3.status, "failed")
  t.ok(v3.failure_reason:find("no request succeeded (3 failed)", 1, true), v3.failure_reason)
  -- (a row's artifact paths are relative to the output's folder, out/)
  local raw3 = json.read(d .. "/out/" .. v3.artifacts.raw_result)
  t.eq({ raw3.completed, raw3.median_tpot_ms, raw3.request_throughput }, { 0, 0.0, 0.0 }) -- what the client wrote
  t.eq(v3.metrics, json.object { success_rate = 0.0 })
  -- every metric the schema names, from the client's file (p99 TPOT and mean E2E included)
  local v0 = got["vllm-0/chat"]
  local raw = json.read(d .. "/out/" .. v0.artifacts.raw_result)
  t.eq(v0.metrics, json.object {
    request_throughput = raw.request_throughput, output_token_throughput = raw.output_throughput,
    total_token_throughput = raw.total_token_throughput,
    p50_ttft_ms = raw.median_ttft_ms, mean_ttft_ms = raw.mean_ttft_ms, p99_ttft_ms = raw.p99_ttft_ms,
    p50_tpot_ms = raw.median_tpot_ms, mean_tpot_ms = raw.mean_tpot_ms, p99_tpot_ms = raw.p99_tpot_ms,
    p50_e2e_ms = raw.median_e2el_ms, mean_e2e_ms = raw.mean_e2el_ms, p99_e2e_ms = raw.p99_e2el_ms,
    success_rate = 1.0,
  })
  t.eq(got["tokenspeed-0/chat"].status, "skipped")
  t.eq(got["tokenspeed-0/chat"].disposition, "environment-gap")
  t.eq(got["sglang-excluded/chat"].disposition, "user-excluded")
  t.eq(#rows, 14) -- 4 vllm + 1 tokenspeed + 2 excluded frameworks, x 2 scenarios
  -- resumable: a second run skips every row already there
  r = ab_cli({ "run", "cfg.yaml", "--out", "out/results.jsonl" }, d, env)
  t.eq(#ab.read_rows(d .. "/out/results.jsonl"), 14)
  t.ok(r.stdout:find("already in", 1, true))
  -- and the results compare: the good candidate wins chat and summarization
  r = ab_cli({ "compare", "out/results.jsonl" }, d)
  t.ok(r.stdout:find("| chat | 1 | vllm | vllm-0 | True |", 1, true), r.stdout)
  t.ok(r.stdout:find("| vllm | vllm-2 | oom | False |", 1, true))
  r = ab_cli({ "compare", "out/results.jsonl", "--csv", "out.csv" }, d)
  t.eq(r.code, 0, r.stderr)
  local csv = {}
  for line in t.read(d .. "/out.csv"):gmatch("[^\r\n]+") do
    local cells = {}
    for c in (line .. ","):gmatch("([^,]*),") do cells[#cells + 1] = c end
    csv[cells[3] .. "/" .. cells[2]] = cells
  end
  -- columns 9 and 13: p50_tpot_ms and p99_tpot_ms (ab.CSV_COLUMNS)
  t.eq(tonumber(csv["vllm-0/chat"][13]), raw.p99_tpot_ms)
  t.eq({ csv["vllm-3/chat"][9], csv["vllm-3/chat"][13] }, { "", "" })
  -- dry run: commands printed, nothing started
  r = ab_cli({ "run", "cfg.yaml", "--out", "dry/results.jsonl", "--dry-run" }, d, env)
  t.eq(lfs.attributes(d .. "/dry/results.jsonl"), nil)
  t.ok(r.stdout:find("mockserver.py mock/model --max-model-len 100 --max-num-seqs 1 --port", 1, true), r.stdout)
  -- no port is chosen in a dry run: it says so (README: a free port per candidate), and the
  -- client's URL points at the same placeholder; it used to print --port 8000
  t.ok(r.stdout:find("--max-num-seqs 1 --port <PORT>\n  (<PORT>: a free port, chosen when the server starts; "
    .. "run.port sets a fixed one)\n", 1, true), r.stdout)
  t.ok(r.stdout:find("http://127.0.0.1:<PORT>", 1, true), r.stdout)
  t.ok(not r.stdout:find("8000", 1, true), r.stdout)
  -- with run.port, the dry run shows that port
  cfg.run = cfg.run or {}
  cfg.run.port = 18123
  t.write(d .. "/cfg-port.yaml", yaml.dump(cfg))
  r = ab_cli({ "run", "cfg-port.yaml", "--out", "dry/results.jsonl", "--dry-run" }, d, env)
  t.ok(r.stdout:find("--max-num-seqs 1 --port 18123\n", 1, true), r.stdout)
  t.ok(r.stdout:find("http://127.0.0.1:18123", 1, true), r.stdout)
  t.ok(not r.stdout:find("<PORT>", 1, true), r.stdout)
end)

t.test("result_metrics: sglang.bench_serving's JSONL maps to the same schema names; no completed means no metrics", function()
  local d = t.tmpdir()
  -- the keys sglang.bench_serving writes (its result dict), values made up by hand; two runs
  -- appended, the last one counts
  local line = '{"backend": "sglang-oai", "completed": 76, "request_throughput": 1.5, "input_throughput": 900.0, '
    .. '"output_throughput": 300.5, "total_throughput": 1200.5, "mean_e2e_latency_ms": 2100.0, '
    .. '"median_e2e_latency_ms": 2000.0, "p99_e2e_latency_ms": 3900.0, "mean_ttft_ms": 410.0, '
    .. '"median_ttft_ms": 400.0, "p99_ttft_ms": 800.0, "mean_tpot_ms": 21.0, "median_tpot_ms": 20.0, '
    .. '"p99_tpot_ms": 35.0, "mean_itl_ms": 20.5, "median_itl_ms": 19.0, "p99_itl_ms": 60.0}'
  t.write(d .. "/sg.jsonl", '{"completed": 1}\n' .. line .. "\n")
  local m, why = require("llmd.autobench_run").result_metrics(d .. "/sg.jsonl", 80)
  t.eq(why, nil)
  t.eq(m, json.object {
    request_throughput = 1.5, output_token_throughput = 300.5, total_token_throughput = 1200.5,
    p50_ttft_ms = 400.0, mean_ttft_ms = 410.0, p99_ttft_ms = 800.0, p50_tpot_ms = 20.0, mean_tpot_ms = 21.0,
    p99_tpot_ms = 35.0, p50_e2e_ms = 2000.0, mean_e2e_ms = 2100.0, p99_e2e_ms = 3900.0,
    success_rate = 0.95, -- 76 of the config's 80 (the file has no `failed`)
  })
  -- unstreamed vLLM: TTFT 0 means not measured, so absent
  t.write(d .. "/v.json", '{"completed": 2, "failed": 0, "num_prompts": 2, "mean_ttft_ms": 0.0, "median_ttft_ms": 0.0, '
    .. '"p99_ttft_ms": 0.0, "mean_e2el_ms": 5.0, "request_throughput": 2.0}')
  m = require("llmd.autobench_run").result_metrics(d .. "/v.json")
  t.eq(m, json.object { success_rate = 1.0, mean_e2e_ms = 5.0, request_throughput = 2.0 })
  t.write(d .. "/bad.json", '{"done": 1}')
  t.raises("bad.json: no numeric 'completed'", require("llmd.autobench_run").result_metrics, d .. "/bad.json")
end)

t.test("run: a missing benchmark client is an environment gap: skipped rows, no traceback", function()
  local d = t.tmpdir()
  local path = "/usr/bin:/bin" -- python3 is called by its absolute path; vllm is nowhere
  t.eq(proc.run({ "sh", "-c", "command -v vllm" }, { env = { PATH = path } }).ok, false, "vllm must be absent")
  local cfg = mock_config()
  cfg.frameworks.vllm = { enabled = false }
  cfg.frameworks.sglang = { enabled = true, server_command = MOCKSERVER,
    base_server_flags = { model_path = "mock/model", context_length = 100 }, search_space = {} }
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local r = ab_cli({ "plan", "cfg.yaml", "--text" }, d, { PATH = path })
  t.ok(r.stdout:find("# environment-gap: the benchmark client: 'vllm' is not installed here (not found in PATH)", 1, true),
    r.stdout)
  -- a dry run says so, and exits as the real run would (nothing written)
  r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl", "--dry-run" }, d, { PATH = path })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("a real run would measure nothing: no candidate could be run here", 1, true), r.stdout)
  t.eq(io.open(d .. "/results.jsonl"), nil)
  r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d, { PATH = path })
  -- (exit 1's one line on stderr, the cause: newuser50 F3)
  t.eq(r.stderr, "autobench.lua run: no candidate could be run here (every framework excluded, unsupported or an "
    .. "environment gap)\n")
  t.eq(r.code, 1) -- nothing could be measured
  t.ok(r.stdout:find("no candidate could be run here", 1, true), r.stdout)
  local got = rows_by(d .. "/results.jsonl")
  for _, sc in ipairs { "chat", "summarization" } do
    local row = got["sglang-0/" .. sc]
    t.eq({ row.status, row.disposition }, { "skipped", "environment-gap" })
    t.eq(row.failure_reason, "environment-gap: the benchmark client: 'vllm' is not installed here (not found in PATH)")
  end
  t.eq(lfs.attributes(d .. "/autobench-artifacts/results/sglang-0"), nil, "no server was started")
end)

t.test("run: a port already in use is refused before launching; a server serving another model is not the candidate", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  env.MOCK_READY_CHECK_S = "2"
  -- someone else's fast server on the configured port
  local port = proc.free_port()
  t.eq(proc.port_free(port), true)
  local squatter = proc.spawn({ PY, ROOT .. "/tests/autobench/mockserver.py", "other/model", "--port", tostring(port) },
    { env = { MOCK_TTFT_MS = "1", MOCK_REQUEST_LOG = d .. "/squatter.jsonl" } })
  local up = false
  for _ = 1, 100 do
    if not proc.port_free(port) then up = true; break end
    squatter:wait(0.05)
  end
  t.ok(up, "the squatter listens")
  local free, why = proc.port_free(port)
  t.eq({ free, why }, { false, "Address already in use" })
  local cfg = mock_config()
  cfg.run.port = port
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d, env)
  squatter:kill(1)
  t.eq(r.code, 1)
  local got = rows_by(d .. "/results.jsonl")
  for _, sc in ipairs { "chat", "summarization" } do
    local row = got["vllm-0/" .. sc]
    t.eq({ row.status, row.sla.passed, row.metrics }, { "failed", false, json.object {} })
    t.eq(row.failure_reason, ("port %d is already in use (Address already in use): another server is listening there; "
      .. "stop it or set another run.port"):format(port))
  end
  t.eq(lfs.attributes(d .. "/squatter.jsonl"), nil, "the squatter was never benchmarked")
  t.eq(lfs.attributes(d .. "/autobench-artifacts/results/vllm-0/server.log"), nil, "nothing was launched")
  -- harden52: a port someone else held says nothing of the candidate: the rows say so, and a
  -- rerun once the port is free measures them (before, it said "already in results.jsonl"
  -- and the failure stood as the candidate's for good), the new rows in the old ones' place
  t.eq(got["vllm-0/chat"].environment_failure, true)
  squatter:wait(10)
  r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.contains(r.stdout, "vllm-0 chat: not resumed: it failed before for a cause outside the candidate (port " .. port)
  local vllm_rows = {}
  for _, row in ipairs(ab.read_rows(d .. "/results.jsonl")) do
    if row.framework == "vllm" then vllm_rows[#vllm_rows + 1] = ab.scenario(row) .. " " .. row.status end
  end
  t.eq(vllm_rows, { "chat ok", "summarization ok" })
  -- a server whose /v1/models lists another model (mode 6) is not taken for the candidate
  cfg = mock_config()
  cfg.frameworks.vllm.base_server_flags.max_num_seqs = 6
  t.write(d .. "/cfg6.yaml", yaml.dump(cfg))
  r = ab_cli({ "run", "cfg6.yaml", "--out", "results6.jsonl" }, d, env)
  t.eq(r.code, 1)
  got = rows_by(d .. "/results6.jsonl")
  t.eq(got["vllm-0/chat"].status, "failed")
  -- (the process launched is alive and its port was free: it is the one serving the wrong
  -- model, and the row says so and where the name comes from; session 34's trial)
  t.ok(got["vllm-0/chat"].failure_reason:find("the server launched (alive, answering on http://127.0.0.1:", 1, true),
    got["vllm-0/chat"].failure_reason)
  t.ok(got["vllm-0/chat"].failure_reason:find(") serves model someone-else/other-model, not mock/model: the name it "
    .. "serves is its --served-model-name (else its model path)", 1, true), got["vllm-0/chat"].failure_reason)
  -- /health answers but /v1/models is HTTP 401 (mode 7, as behind --api-key): final, said at
  -- once as authentication, not a wait of ready_timeout ending in "timeout"
  cfg.frameworks.vllm.base_server_flags.max_num_seqs = 7
  cfg.run.ready_timeout = 60
  t.write(d .. "/cfg7.yaml", yaml.dump(cfg))
  local t0 = os.time()
  ab_cli({ "run", "cfg7.yaml", "--out", "results7.jsonl" }, d, env)
  t.ok(os.time() - t0 < 40, "a 401 is final: no wait of ready_timeout (60 s)")
  got = rows_by(d .. "/results7.jsonl")
  t.eq(got["vllm-0/chat"].status, "failed")
  t.ok(got["vllm-0/chat"].failure_reason:find("/v1/models answered HTTP 401 (Unauthorized): the server launched "
    .. "requires authentication, as when started with --api-key", 1, true), got["vllm-0/chat"].failure_reason)
end)

t.test("fnv1a64: the published FNV-1a 64-bit test vectors", function()
  local run = require "llmd.autobench_run"
  -- python3: h = 0xcbf29ce484222325; for c in data: h = ((h ^ c) * 0x100000001b3) % 2**64
  t.eq({ run.fnv1a64(""), run.fnv1a64("a"), run.fnv1a64("foobar") },
    { "cbf29ce484222325", "af63dc4c8601ec8c", "85944171f73967e8" })
end)

t.test("run: resume reuses rows only for the same command and scenario; stale rows refused or moved with --force", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = mock_config()
  cfg.frameworks.vllm.base_server_flags.gpu_memory_utilization = 0.9
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local first = t.read(d .. "/results.jsonl")
  local rows = ab.read_rows(d .. "/results.jsonl")
  t.eq(rows[3].candidate_id .. rows[4].candidate_id, "vllm-0vllm-0") -- lines 3 and 4 below (after sglang's notes)
  t.eq(#rows, 8) -- vllm-0 x 2 scenarios, and 3 excluded frameworks x 2 scenarios
  local key = rows_by(d .. "/results.jsonl")["vllm-0/chat"].run_key
  t.ok(key:match("^fnv1a64:%x+$"), key)
  -- the same config again: nothing to do, no row added
  r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d, env)
  t.ok(r.stdout:find("vllm vllm-0: already in results.jsonl (same command and scenario), skipped", 1, true), r.stdout)
  t.eq(t.read(d .. "/results.jsonl"), first, "nothing added, nothing moved")
  -- another gpu_memory_utilization and num_prompts: the rows no longer match
  cfg.frameworks.vllm.base_server_flags.gpu_memory_utilization = 0.8
  cfg.dataset.num_prompts = 4
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d, env)
  t.eq(r.code, 1)
  t.ok(r.stderr:find("results.jsonl: 2 row(s) no longer match the config (another server command, workload or client, "
    .. "or no run key): line 3 (vllm-0 chat), line 4 (vllm-0 summarization); run again with --force to move them to "
    .. "results.stale.jsonl", 1, true), r.stderr)
  t.eq(t.read(d .. "/results.jsonl"), first, "untouched when refused")
  r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl", "--force" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("moved to results.stale.jsonl", 1, true), r.stdout)
  local got = rows_by(d .. "/results.jsonl")
  t.eq(#ab.read_rows(d .. "/results.jsonl"), 8)
  t.ok(got["vllm-0/chat"].server_command:find("--gpu-memory-utilization 0.8", 1, true))
  t.eq(got["vllm-0/chat"].workload.num_prompts, 4)
  t.ok(got["vllm-0/chat"].run_key ~= key)
  local old = ab.read_rows(d .. "/results.stale.jsonl")
  t.eq(#old, 2)
  t.eq({ old[1].run_key, old[1].workload.num_prompts }, { key, 3 })
  -- --frameworks leaving vllm out: its measured rows stay and no user-excluded row joins them
  r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl", "--frameworks", "sglang" }, d, env)
  t.ok(r.stdout:find("vllm -: user-excluded (not in --frameworks); its 2 measured rows from an earlier run stay", 1, true),
    r.stdout)
  local vllm_rows = {}
  for _, row in ipairs(ab.read_rows(d .. "/results.jsonl")) do
    if row.framework == "vllm" then vllm_rows[#vllm_rows + 1] = row.candidate_id .. "/" .. row.status end
  end
  t.eq(vllm_rows, { "vllm-0/ok", "vllm-0/ok" })
  -- the other way round: exclusion notes written first leave once the framework is measured
  ab_cli({ "run", "cfg.yaml", "--out", "other.jsonl", "--frameworks", "sglang" }, d, env)
  t.ok(rows_by(d .. "/other.jsonl")["vllm-excluded/chat"], "vllm noted as excluded")
  r = ab_cli({ "run", "cfg.yaml", "--out", "other.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  got = rows_by(d .. "/other.jsonl")
  t.eq({ got["vllm-excluded/chat"], got["vllm-0/chat"].status }, { nil, "ok" })
  t.eq(#ab.read_rows(d .. "/other.jsonl"), 8)
end)

t.test("run: the run block's keys are checked; --help lists --timeout", function()
  local d = t.tmpdir()
  local cfg = mock_config()
  cfg.run = { prot = 8000, ready_timeout = "soon" }
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local r = ab_cli({ "validate", "cfg.yaml" }, d)
  t.eq(r.code, 1)
  t.eq(r.stdout, "cfg.yaml: run: unknown key 'prot'; allowed keys are [port, ready_timeout, ready_paths, "
    .. "benchmark_timeout, max_concurrency, client_command, env, check_port_owner]\n"
    .. "cfg.yaml: run.ready_timeout must be a number of seconds > 0 (got 'soon')\n")
  r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d)
  t.eq(r.code, 1)
  t.eq(r.stderr, "llmdlua: cfg.yaml: run: unknown key 'prot'; allowed keys are [port, ready_timeout, ready_paths, "
    .. "benchmark_timeout, max_concurrency, client_command, env, check_port_owner]\n"
    .. "cfg.yaml: run.ready_timeout must be a number of seconds > 0 (got 'soon')\n")
  t.eq(lfs.attributes(d .. "/results.jsonl"), nil)
  cfg = mock_config()
  cfg.benchmark.max_concurrency = { 8, 2.5 }
  t.write(d .. "/cfg2.yaml", yaml.dump(cfg))
  r = ab_cli({ "run", "cfg2.yaml", "--out", "results.jsonl" }, d)
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: cfg2.yaml: max_concurrency 2.5 is not an integer >= 1 or null "
    .. "(unbounded)\n" })
  r = ab_cli({ "run", "--help" }, d)
  t.eq(r.code, 0)
  t.ok(r.stdout:find("[--timeout S]", 1, true) and r.stdout:find("--timeout S        seconds a server may take", 1, true)
    and r.stdout:find("Exit status: 0", 1, true), r.stdout)
end)

t.test("run: progress reaches a file as it happens; Ctrl-C is one line and stops the server", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = mock_config()
  cfg.frameworks.vllm.base_server_flags.max_num_seqs = 2 -- never answers
  cfg.run.ready_timeout = 30
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local p = proc.spawn({ LLMDLUA, "autobench.lua", "run", "cfg.yaml", "--out", "results.jsonl" },
    { cwd = d, env = env, stdout = { file = d .. "/out.txt" }, stderr = { file = d .. "/err.txt" } })
  local seen = false
  for _ = 1, 200 do
    local log = io.open(d .. "/autobench-artifacts/results/vllm-0/server.log")
    local started = log and log:read("a"):find("mock server starting", 1, true)
    if log then log:close() end
    if started and t.read(d .. "/out.txt"):find("vllm vllm-0: starting the server on port", 1, true) then
      seen = true
      break
    end
    t.eq(p:wait(0.05), nil, "still running")
  end
  t.ok(seen, "the progress line is in the file while the run goes on: " .. t.read(d .. "/out.txt"))
  local pid = t.read(d .. "/autobench-artifacts/results/vllm-0/server.log"):match("pid (%d+)")
  t.eq(proc.run({ "kill", "-0", pid }).ok, true, "the server runs")
  proc.run { "kill", "-INT", tostring(p:pid()) }
  local st = p:wait(20)
  t.eq(st and st.code, 130)
  t.eq(t.read(d .. "/err.txt"), "autobench.lua: interrupted; the rows finished so far are in results.jsonl; "
    .. "run the same command again to resume\n")
  t.eq(proc.run({ "kill", "-0", pid }, { stderr = "null" }).ok, false, "the server was stopped")
end)

t.test("run: a second run of one output while the first runs is refused at once, before it starts anything",
  function()
  -- (two runs of one --out both resumed its rows, measured them on two servers at once and
  -- appended both's rows to one file)
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = mock_config()
  cfg.frameworks.vllm.base_server_flags.max_num_seqs = 2 -- never answers
  cfg.run.ready_timeout = 30
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local p = proc.spawn({ LLMDLUA, "autobench.lua", "run", "cfg.yaml", "--out", "results.jsonl" },
    { cwd = d, env = env, stdout = { file = d .. "/out.txt" }, stderr = { file = d .. "/err.txt" } })
  local started = false
  for _ = 1, 200 do
    if t.read(d .. "/out.txt"):find("vllm vllm-0: starting the server on port", 1, true) then
      started = true
      break
    end
    t.eq(p:wait(0.05), nil, "still running")
  end
  t.ok(started, t.read(d .. "/out.txt") .. t.read(d .. "/err.txt"))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d, env)
  proc.run { "kill", "-INT", tostring(p:pid()) }
  local st = p:wait(20)
  -- one line naming the output and the run that writes it, exit 2 (as compare.lua's
  -- workspace in use); nothing said on stdout, no server of its own started
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.ok(r.stderr:find("^autobench%.lua run: results%.jsonl: in use by another llmdlua process %(autobench%.lua run, pid "
    .. p:pid() .. ", started %d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%dZ%): it is writing these results, and two at once "
    .. "would mix their results; wait for it to end %(or stop it%), then run this again\n$"), r.stderr)
  t.eq(r.stdout, "")
  local logs = 0
  for n in lfs.dir(d .. "/autobench-artifacts/results/vllm-0") do
    if n:match("^server%.log") then logs = logs + 1 end
  end
  t.eq(logs, 1, "the first's server log alone")
  t.eq(st and st.code, 130)
end)

t.test("run: --out into a missing folder makes it and says so in one line, as compare.lua does", function()
  -- (compare.lua: "note: DIR did not exist; made it for the workspace"; autobench.lua compare's
  -- --md, --csv: "... made it for the --md file". A candidate whose client is missing keeps
  -- the run short: its rows are written, no server started.)
  local d = t.tmpdir()
  local path = "/usr/bin:/bin"
  local cfg = mock_config()
  cfg.frameworks.vllm = { enabled = false }
  cfg.frameworks.sglang = { enabled = true, server_command = MOCKSERVER,
    base_server_flags = { model_path = "mock/model", context_length = 100 }, search_space = {} }
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  -- a dry run writes nothing: no folder made, nothing said of one
  -- (no client here: nothing can be measured, exit 1 with its one line on stderr, the cause)
  local none = "autobench.lua run: no candidate could be run here (every framework excluded, unsupported or an "
    .. "environment gap)\n"
  local r = ab_cli({ "run", "cfg.yaml", "--out", "new/deeper/r.jsonl", "--dry-run" }, d, { PATH = path })
  t.eq(r.stderr, (none:gsub("^autobench%.lua run: ", "%0a real run would measure nothing: ")))
  t.eq(lfs.attributes(d .. "/new"), nil)
  r = ab_cli({ "run", "cfg.yaml", "--out", "new/deeper/r.jsonl" }, d, { PATH = path })
  t.eq(r.stderr, "note: new/deeper did not exist; made it for the --out file\n" .. none)
  t.eq(rows_by(d .. "/new/deeper/r.jsonl")["sglang-0/chat"].status, "skipped")
  -- there now: nothing said of it
  r = ab_cli({ "run", "cfg.yaml", "--out", "new/deeper/r.jsonl" }, d, { PATH = path })
  t.eq(r.stderr, none)
end)

t.test("run: every max_concurrency value is a row; extra_request_body is in every request", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = mock_config()
  cfg.benchmark.max_concurrency = { json.null, 2 }
  cfg.benchmark.extra_request_body = { temperature = 0.0 }
  cfg.run.env = { MOCK_REQUEST_LOG = d .. "/requests.jsonl" }
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local got = rows_by(d .. "/results.jsonl")
  for _, sc in ipairs { "chat", "summarization" } do
    local un, c2 = got["vllm-0/" .. sc .. "@unbounded"], got["vllm-0/" .. sc .. "@c2"]
    t.eq({ un.status, c2.status }, { "ok", "ok" })
    t.eq({ un.workload.max_concurrency, c2.workload.max_concurrency }, { json.null, 2 })
    t.eq(un.benchmark_command:find("--max-concurrency", 1, true), nil)
    t.ok(c2.benchmark_command:find("--max-concurrency 2 --extra-body '{\"temperature\":0.0}'", 1, true),
      c2.benchmark_command)
    -- what the client itself says it ran with
    t.eq(json.read(d .. "/" .. un.artifacts.raw_result).max_concurrency, json.null)
    t.eq(json.read(d .. "/" .. c2.artifacts.raw_result).max_concurrency, 2)
  end
  -- 2 scenarios x 2 concurrencies x (the client's test prompt + 3 prompts), each with the body's temperature
  local n = 0
  for line in t.read(d .. "/requests.jsonl"):gmatch("[^\n]+") do
    n = n + 1
    local body = json.decode(line)
    t.eq(body.temperature, 0.0, line)
    t.eq(math.type(body.temperature), "float")
  end
  t.eq(n, 16)
end)

t.test("run: a server that dies mid-benchmark is an oom row at once, its other scenarios not run", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  -- mode 5 answers 5 completions then dies with a CUDA OOM: the client's test prompt and
  -- 4 of chat's 8 requests succeed, then the server is gone
  local cfg = mock_config {
    dataset = { kind = "random", num_prompts = 8, scenario_names = { "chat", "summarization" },
      input_len = { 10, 20 }, output_len = { 4, 8 } },
  }
  cfg.frameworks.vllm.base_server_flags.max_num_seqs = 5
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local t0 = os.time()
  local r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d, env)
  -- the mock client, like vLLM's, would wait 600 s for a dead server; the run does not
  t.ok(os.time() - t0 < 30, "the candidate was stopped at once")
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local got = rows_by(d .. "/results.jsonl")
  local chat = got["vllm-0/chat"]
  t.eq(chat.status, "oom", chat.failure_reason)
  t.ok(chat.failure_reason:find("the server exited (code 1) during the benchmark of chat", 1, true), chat.failure_reason)
  t.ok(chat.failure_reason:find("CUDA out of memory", 1, true), chat.failure_reason)
  t.eq(chat.server_exit.code, 1)
  t.eq(chat.sla.passed, false)
  local summ = got["vllm-0/summarization"]
  t.eq(summ.status, "skipped")
  t.ok(summ.failure_reason:find("not run: the server exited (code 1, oom) during the benchmark of chat", 1, true),
    summ.failure_reason)
  t.eq(lfs.attributes(d .. "/autobench-artifacts/results/vllm-0/benchmark-summarization.log"), nil, "never started")
end)

-- newuser47 F4: the toolchain picks per (framework, scenario), so a command whose server ran
-- out of memory under summarization is chat's best command, and its Evidence said only "no
-- other candidate measured". Mock mode 5 answers 5 completions, then exits out of memory:
-- with 3 prompts, chat's test prompt and 3 requests (4) pass, summarization's test prompt
-- (the 5th) passes and its first request kills it. The pick stays (upstream's rule); beside
-- it, in the markdown (Best Commands and Cross-Framework), the evidence and the CSV, the
-- crash is named with its results row (the oom row's file:line, read back from the file).
t.test("compare: a best command whose server crashed in another scenario says so beside the pick", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  t.write(d .. "/cfg.yaml", yaml.dump(mock_config(nil, 5)))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "results.jsonl" }, d, env)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local got = rows_by(d .. "/results.jsonl")
  t.eq({ got["vllm-0/chat"].status, got["vllm-0/summarization"].status }, { "ok", "oom" })
  local note = ("its server ran out of memory under summarization (results.jsonl:%d)"):format(
    got["vllm-0/summarization"]._line)
  r = ab_cli({ "compare", "results.jsonl", "--md", "s.md", "--csv", "s.csv" }, d)
  t.eq(r.code, 0, r.stderr)
  local md = t.read(d .. "/s.md")
  local best = md:match("## Best Commands By Framework(.-)## Cross")
  local cross = md:match("## Cross%-Framework Best Comparison(.-)## Failed")
  t.ok(best:find("| chat | vllm-0 | ok | True |", 1, true), best)
  t.ok(best:find("| " .. note .. ", yet picked here as the toolchain picks, per scenario; no other candidate "
    .. "measured to weigh it against |", 1, true), best)
  t.ok(cross:find("| " .. note .. ", yet picked here as the toolchain picks, per scenario; no other framework "
    .. "measured in this scenario |", 1, true), cross)
  t.ok(r.stderr:find("chat, vllm: vllm vllm-0 is the best (no other candidate measured to weigh it against); " .. note,
    1, true), r.stderr)
  local csv = t.read(d .. "/s.csv")
  t.ok(csv:find(",failure_reason,llmdlua_note\r\n", 1, true), csv)
  -- (fixe49: the pick's note goes on with its typical figure and evidence, so the field is quoted)
  t.ok(csv:find("\r\nvllm,chat,vllm%-0,ok,True,[^\r]*,\"" .. (note .. ", yet picked here as the toolchain picks, per "
    .. "scenario; vllm's pick for chat (by the toolchain's rule); "):gsub("%p", "%%%0")), csv)
  -- the toolchain's outputs keep their form
  r = ab_cli({ "compare", "results.jsonl", "--toolchain-md", "--csv", "t.csv" }, d)
  t.ok(not r.stdout:find("ran out of memory under", 1, true), r.stdout)
  t.ok(not t.read(d .. "/t.csv"):find("llmdlua_note", 1, true))
end)

-- fixh45 #3a, #3b (newuser45): a server that runs out of memory while loading (mock mode 3)
-- could run none of its scenarios: each is an oom row with server_exit (the README said
-- "skipped", the code wrote oom: the code is kept, as a load-time failure fails the
-- configuration whatever the workload, and "skipped" is the schema's policy status); the run
-- ends with one line saying which rows failed and where the log is (it ended on "[4/4]
-- tokenspeed -: user-excluded", exit 1 unexplained); and compare of two such files tells the
-- four oom rows apart by Scenario and Results row (file:line; written in order: the excluded
-- sglang's two notes first, lines 1 and 2, then vllm-0's chat and summarization, 3 and 4).
t.test("run: a server out of memory while loading fails every scenario as oom, said in the last line; compare tells "
  .. "the rows apart", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  t.write(d .. "/cfg.yaml", yaml.dump(mock_config(nil, 3)))
  for _, out in ipairs { "rep1", "rep2" } do
    local r = ab_cli({ "run", "cfg.yaml", "--out", out .. ".jsonl" }, d, env)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    local last = r.stdout:match("([^\n]*)\n$")
    t.eq(last, ("not every row is ok (exit 1): vllm-0 chat oom, summarization oom (log "
      .. "autobench-artifacts/%s/vllm-0/server.log); the rows are in %s.jsonl"):format(out, out))
    -- (and as exit 1's one line on stderr: newuser50 F3)
    t.eq(r.stderr, "autobench.lua run: " .. last .. "\n")
    t.ok(lfs.attributes(d .. "/autobench-artifacts/" .. out .. "/vllm-0/server.log", "mode") == "file", "the log named")
    local got = rows_by(d .. "/" .. out .. ".jsonl")
    for _, sc in ipairs { "chat", "summarization" } do
      local row = got["vllm-0/" .. sc]
      t.eq({ row.status, row.server_exit and row.server_exit.code }, { "oom", 1 }, sc)
      t.ok(row.failure_reason:find("the server exited (code 1) before answering", 1, true), row.failure_reason)
    end
  end
  local r = ab_cli({ "compare", "rep1.jsonl", "rep2.jsonl" }, d)
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stdout:find("| Framework | Candidate | Status | SLA | Reason | Server command | Scenario | Results row |", 1,
    true), r.stdout)
  for _, want in ipairs { "| chat | rep1.jsonl:3 |", "| summarization | rep1.jsonl:4 |", "| chat | rep2.jsonl:3 |",
    "| summarization | rep2.jsonl:4 |" } do
    t.ok(r.stdout:find("| vllm | vllm-0 | oom | False | the server exited (code 1) before answering: ", 1, true)
      and r.stdout:find(" --max-num-seqs 3 " .. want, 1, true), want .. "\n" .. r.stdout)
  end
  -- the toolchain's own summary keeps its 5 columns
  r = ab_cli({ "compare", "rep1.jsonl", "--toolchain-md" }, d)
  t.ok(r.stdout:find("| Framework | Candidate | Status | SLA | Reason |\n", 1, true), r.stdout)
end)

-- Session 36 (left36): small defects session 35 left. Expected values by hand, each in a
-- comment beside its test.
-- (Formerly test_left36.lua.)
do
  local function ab_cli_in(args, cwd, env)
    local argv = { LLMDLUA, "autobench.lua" }
    for _, a in ipairs(args) do argv[#argv + 1] = a end
    return proc.run(argv, { cwd = cwd, env = env })
  end

  -- 1. autobench run --force judged a stale row's artifacts "gone" from the folder the rerun
  -- started in, and repointed only rows naming a moved file exactly as this run names it: a
  -- rerun from another folder called every file gone, or left a row pointing at the path the
  -- new run writes. Run once from one folder, once from another: the stale row must point at
  -- its own data (moved aside once: PATH.earlier-1), and nothing is said gone.
  local function rerun_elsewhere(first_cwd, first_out, second_cwd, second_out, legacy)
    local d = t.tmpdir()
    t.mkdir(d .. "/sub")
    local env = mock.vllm_shim(d)
    t.write(d .. "/cfg.yaml", yaml.dump(mock.config()))
    local r = ab_cli_in({ "run", d .. "/cfg.yaml", "--out", first_out }, d .. first_cwd, env)
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local out = d .. "/sub/r.jsonl"
    if legacy then
      -- rows as main wrote them before paths were stored relative to the output: from the
      -- run's working folder (d), i.e. sub/autobench-artifacts/r/...
      local text = t.read(out):gsub('"autobench%-artifacts/', '"sub/autobench-artifacts/')
      t.write(out, text)
    end
    local first = rows_by(out)["vllm-0/chat"]
    local before = {}
    for _, k in ipairs { "raw_result", "server_log", "benchmark_log" } do
      before[k] = t.read(d .. "/sub/autobench-artifacts/r/vllm-0/" .. first.artifacts[k]:match("[^/]+$"))
    end
    local cfg = mock.config()
    cfg.frameworks.vllm.base_server_flags.gpu_memory_utilization = 0.8
    t.write(d .. "/cfg.yaml", yaml.dump(cfg))
    r = ab_cli_in({ "run", d .. "/cfg.yaml", "--out", second_out, "--force" }, d .. second_cwd, env)
    t.eq(r.code, 0, r.stdout .. r.stderr)
    t.ok(not r.stdout:find("is gone", 1, true), "nothing is gone:\n" .. r.stdout)
    local stale = rows_by(d .. "/sub/r.stale.jsonl")["vllm-0/chat"]
    local new = rows_by(out)["vllm-0/chat"]
    t.eq(stale.artifacts_gone, nil)
    for _, k in ipairs { "raw_result", "server_log", "benchmark_log" } do
      local name = first.artifacts[k]:match("[^/]+$")
      -- by hand: relative to the output's folder (sub/), the first run's file moved aside once
      t.eq(stale.artifacts[k], "autobench-artifacts/r/vllm-0/" .. name .. ".earlier-1", k)
      t.eq(t.read(d .. "/sub/" .. stale.artifacts[k]), before[k], k .. ": the stale row's file holds its own data")
      t.eq(new.artifacts[k], "autobench-artifacts/r/vllm-0/" .. name, k)
    end
  end

  t.test("run --force from another folder: a stale row points at its own data, nothing called gone", function()
    rerun_elsewhere("", "sub/r.jsonl", "/sub", "r.jsonl")
  end)

  t.test("run --force from the parent folder after a run from the output's folder", function()
    rerun_elsewhere("/sub", "r.jsonl", "", "sub/r.jsonl")
  end)

  t.test("run --force: rows written with paths from another working folder (before this fix) are found", function()
    rerun_elsewhere("", "sub/r.jsonl", "/sub", "r.jsonl", true)
  end)
end

-- What the new user of session 36 found misleading: autobench.lua compare's cross-framework
-- evidence when the other framework was measured but failed the SLA, and compare.lua's
-- report without --slo.
--
-- Expected values: by hand from the rows written here (each reading in a comment beside its
-- test).
-- (Formerly test_misc36.lua.)
do

  t.test("autobench compare: a lone rank 1 names the frameworks measured there that fail the SLA", function()
    local d = t.tmpdir()
    local function row(fw, cid, ttft, status)
      return json.encode { framework = fw, candidate_id = cid, status = status or "ok",
        workload = { scenario = "chat", input_len = 1024, output_len = 256 }, sla = { passed = true },
        metrics = status and {} or { request_throughput = 10.0, output_token_throughput = 2560.0, p50_ttft_ms = ttft,
          p50_tpot_ms = 10.0, success_rate = 1.0 },
        failure_reason = status and "user-excluded: disabled in the config" or nil,
        hardware = { gpu_count = 1 }, server_command = "x" } .. "\n"
    end
    -- sglang's p50 TTFT 400 ms is within max_p50_ttft_ms=410; vllm's three ok rows (420 ms)
    -- are not; trt's only row was skipped (not measured)
    t.write(d .. "/r.jsonl", row("sglang", "sg", 400) .. row("vllm", "vl-a", 420) .. row("vllm", "vl-a", 420)
      .. row("vllm", "vl-b", 420) .. row("trt", "trt-x", nil, "skipped"))
    local r = proc.run { LLMDLUA, "autobench.lua", "compare", d .. "/r.jsonl", "--md", d .. "/s.md", "--sla",
      "max_p50_ttft_ms=410" }
    t.eq(r.code, 0, r.stderr)
    local line = t.read(d .. "/s.md"):match("\n(| chat | 1 | sglang[^\n]*)")
    t.ok(line, t.read(d .. "/s.md"))
    t.eq(line:match("| ([^|]*) |$"), "vllm (3 rows) measured in this scenario, but no row within the SLA: nothing "
      .. "to weigh it against")
  end)
end

-- What a new user found in session 32 (a fresh clone, README only): a broken treatment
-- ranked first and "beating" a healthy one, treatments charts of one load point each, where
-- treatments.lua --results writes, the plan and experiment checks that let misspelt keys
-- through, --slo over an info file's slo:, Markdown escaping of labels, the usage line of
-- compare.lua, and autobench.lua compare's evidence beside its ranking.
--
-- Expected values: by hand from the fixture files (each reading in a comment beside its
-- test), or /usr/bin/python3 where a computation is named.
-- (Formerly test_newuser32.lua.)
do

  local find, lacks = t.contains, t.lacks

  t.test("nu32-11: autobench compare's markdown says how sure each best is, beside it; a skipped row once", function()
    local d = t.tmpdir()
    local function row(fw, cid, v, status)
      return json.encode { framework = fw, candidate_id = cid, status = status or "ok",
        workload = { scenario = "chat", input_len = 1024, output_len = 256 }, sla = { passed = status == nil },
        metrics = status and {} or { request_throughput = v, output_token_throughput = v * 256, p50_ttft_ms = 100.0,
          p50_tpot_ms = 10.0, success_rate = 1.0 },
        failure_reason = status and "user-excluded: disabled in the config" or nil,
        hardware = { gpu_count = 1 }, server_command = "x" } .. "\n"
    end
    -- three results files of one config (autobench.lua run three times): vllm-best 12.0, 12.3,
    -- 11.8 and vllm-c2 11.9, 12.4, 11.7 req/s; sglang skipped by the config in each. The
    -- toolchain's rule names vllm-c2 (best row 12.4); Welch on the repeats' log values, by
    -- /usr/bin/python3 + numpy (test_autobench.lua's computation above): p = 0.896851, +0.29 %,
    -- 95 % interval -5.67 % to +6.63 %, the only test: no clear difference
    local best, c2 = { 12.0, 12.3, 11.8 }, { 11.9, 12.4, 11.7 }
    local files = {}
    for i = 1, 3 do
      files[i] = d .. "/r" .. i .. ".jsonl"
      t.write(files[i], row("sglang", "sglang-excluded", nil, "skipped") .. row("vllm", "vllm-best", best[i])
        .. row("vllm", "vllm-c2", c2[i]))
    end
    local r = proc.run { LLMDLUA, "autobench.lua", "compare", files[1], files[2], files[3], "--md", d .. "/s.md" }
    t.eq(r.code, 0, r.stderr)
    local md = t.read(d .. "/s.md")
    local ev = "vllm vllm-c2 ranks above vllm vllm-best by request throughput, best rows 12.40 vs 12.30 req/s (the "
      .. "toolchain's rule), means of the repeats 12.00 vs 12.03 req/s (0.3 % apart; the means order them the other "
      .. "way): no clear difference (Welch on the log values, p = 0.897; 3 and 3 measurements; vllm vllm-best +0.3 % "
      .. "against vllm vllm-c2 over the repeats, 95 % interval -5.7 % to +6.6 %)"
    -- the best command's row ends with its evidence
    local best_row = md:match("\n(| chat | vllm%-c2 | ok [^\n]*)")
    t.ok(best_row, md)
    t.eq(best_row:sub(-#ev - 4), "| " .. ev .. " |")
    find(md, "| Artifacts | Evidence |")
    -- rank 1 across frameworks: the only framework measured
    find(md, "| chat | 1 | vllm | vllm-c2 | True | 12.40 |")
    -- (fixe49: and the test its pick within vllm rests on, which was only in the other table)
    find(md:match("\n| chat | 1 | vllm[^\n]*"), " no other framework measured in this scenario; its pick within vllm: "
      .. ev .. " |")
    -- the skipped candidate once, not once per file
    local n = 0
    for _ in md:gmatch("| sglang | sglang%-excluded | skipped |") do n = n + 1 end
    t.eq(n, 1, md)
    -- --toolchain-md: the toolchain's summary as it writes it (no Evidence, the row 3 times)
    r = proc.run { LLMDLUA, "autobench.lua", "compare", files[1], files[2], files[3], "--md", d .. "/t.md",
      "--toolchain-md" }
    t.eq(r.code, 0, r.stderr)
    md = t.read(d .. "/t.md")
    lacks(md, "Evidence")
    n = 0
    for _ in md:gmatch("| sglang | sglang%-excluded | skipped |") do n = n + 1 end
    t.eq(n, 3, md)
  end)
end

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
-- (Formerly test_nufix34.lua.)
do
  local function ab_cli_in(args, cwd, env)
    local argv = { LLMDLUA, "autobench.lua" }
    for _, a in ipairs(args) do argv[#argv + 1] = a end
    return proc.run(argv, { cwd = cwd, env = env })
  end

  local find = t.contains
  -- the trial's config: one vllm candidate on the mock server (mode: its --max-num-seqs)
  local function config(mode) return mock.config(nil, mode) end

  t.test("run: an earlier run's result file is never taken for this run's measurement (moved aside, kept)", function()
    local d = t.tmpdir()
    local env = vllm_shim(d)
    t.write(d .. "/cfg.yaml", yaml.dump(config()))
    local r = ab_cli_in({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
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
    cfg.run.client_command = "true {base_url} {result_dir}/{result_file}"
    t.write(d .. "/cfg-true.yaml", yaml.dump(cfg))
    r = ab_cli_in({ "run", "cfg-true.yaml", "--out", "r.jsonl" }, d, env)
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
    cfg.run.client_command = d .. "/append.sh {result_dir}/{result_file} {base_url}"
    t.write(d .. "/cfg-append.yaml", yaml.dump(cfg))
    local old_line = '{"completed": 3, "failed": 0, "request_throughput": 42.0, "median_ttft_ms": 1.0}\n'
    t.write(d .. "/" .. raw, old_line)
    r = ab_cli_in({ "run", "cfg-append.yaml", "--out", "r.jsonl" }, d, env)
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
      local r = ab_cli_in({ "run", "cfg.yaml", "--out", out }, d, env)
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
    -- "rep1" beside "rep1.jsonl" would use the same folder (audit48 S7b: the second run moved
    -- the first's raw results aside and its rows then pointed at the second's): refused, in
    -- either spelling, dry run too, before anything is written; the first output untouched
    local before = t.read(d .. "/rep1.jsonl")
    for _, c in ipairs { { "rep1", "rep1.jsonl" }, { "sub/rep3.jsonl", "sub/rep3" } } do
      lfs.mkdir(d .. "/sub")
      t.write(d .. "/sub/rep3", "")
      for _, extra in ipairs { {}, { "--dry-run" } } do
        local argv = { "run", "cfg.yaml", "--out", c[1] }
        for _, a in ipairs(extra) do argv[#argv + 1] = a end
        local r = ab_cli_in(argv, d, env)
        local dir = c[1]:gsub("rep%d.*$", "") .. "autobench-artifacts/" .. c[1]:match("(rep%d)")
        t.eq({ r.code, r.stderr }, { 1, ("llmdlua: %s: its artifacts folder %s/ is also the one of %s beside it: the "
          .. "two outputs would share the raw results their rows point to; name this output otherwise (or move %s "
          .. "and its folder away)\n"):format(c[1], dir, c[2], c[2]) }, table.concat(argv, " "))
      end
    end
    t.eq(lfs.attributes(d .. "/rep1"), nil, "nothing written")
    t.eq(lfs.attributes(d .. "/sub/autobench-artifacts"), nil, "nothing written")
    t.eq(t.read(d .. "/rep1.jsonl"), before, "the first output untouched")
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
      local r = ab_cli_in(argv, d, env)
      t.eq(r.code, 1, r.stdout .. r.stderr)
      t.eq(r.stderr, "llmdlua: cfg.yaml: dataset.num_prompts must be a whole number >= 1 (got 'six'); nothing was "
        .. "started\n")
      t.eq(r.stdout, "")
    end
    t.eq(lfs.attributes(d .. "/r.jsonl"), nil, "no row")
    t.eq(lfs.attributes(d .. "/autobench-artifacts"), nil, "no server started, no folder made")
    cfg.dataset.num_prompts = 2.5
    t.write(d .. "/cfg.yaml", yaml.dump(cfg))
    local r = ab_cli_in({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
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
    local r = ab_cli_in({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
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
    r = ab_cli_in({ "compare", "r.jsonl" }, d)
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

  t.test("compare: rows are repeats of one command, not of one candidate id (a position in each search)", function()
    local d = t.tmpdir()
    -- the trial: vllm-0 is --max-model-len 200 in one results file and 300 in the other
    local c200, c300 = "vllm serve m --max-model-len 200", "vllm serve m --max-model-len 300"
    t.write(d .. "/a.jsonl", rows("vllm-0", c200, { 10.0, 10.4, 9.8 }))
    t.write(d .. "/b.jsonl", rows("vllm-0", c300, { 12.0, 12.2, 11.9 }))
    local r = ab_cli_in({ "compare", "a.jsonl", "b.jsonl", "--evidence", "ev.txt" }, d)
    t.eq(r.code, 0, r.stderr)
    -- /usr/bin/python3 + numpy (Welch's t and df on the log values, the t density integrated
    -- numerically): [12.0, 12.2, 11.9] vs [10.0, 10.4, 9.8]: df = 2.682, p = 0.003919; means
    -- 12.0333 and 10.0667, the higher over the lower 12.0333 / 10.0667 - 1 = 19.5 % (fixa43).
    -- Pooled as one candidate they used to have nothing to be weighed against.
    t.eq(t.read(d .. "/ev.txt"), EV_HEAD .. "chat, vllm: vllm vllm-0 (`" .. c300 .. "`) ranks above vllm vllm-0 (`"
      .. c200 .. "`) by request throughput, best rows 12.20 vs 10.40 req/s (the toolchain's rule), means of the "
      .. "repeats 12.03 vs 10.07 req/s (19.5 % apart): a clear difference (Welch on the log values, p = 0.00392; 3 and "
      .. "3 measurements)\n")
    -- one command per id: named by the id alone, as before
    t.write(d .. "/c.jsonl", rows("vllm-0", c200, { 10.0 }) .. rows("vllm-1", c300, { 12.0 }))
    r = ab_cli_in({ "compare", "c.jsonl" }, d)
    find(r.stderr, "chat, vllm: vllm vllm-1 ranks above vllm vllm-0 by request throughput")
  end)

  t.test("compare --sla: a stricter limit is said to be the user's; no pass is said in words; Reason names the limit", function()
    local d = t.tmpdir()
    t.write(d .. "/a.jsonl", rows("vllm-0", "vllm serve m", { 10.0 }) .. rows("vllm-1", "vllm serve m --x 1", { 9.0 }))
    local r = ab_cli_in({ "compare", "a.jsonl", "--sla", "max_p50_ttft_ms=10", "--md", "s.md" }, d)
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
    r = ab_cli_in({ "compare", "bad.jsonl", "--md", "b.md" }, d)
    find(r.stderr, "note: bad.jsonl:1: vllm vllm-0: the stored sla.passed (True) disagrees with its metrics; using False "
      .. "(p50 TTFT ms 100.0 > 50)")
    -- the toolchain's markdown stays byte for byte its own: no sentence, no Reason added
    r = ab_cli_in({ "compare", "a.jsonl", "--sla", "max_p50_ttft_ms=10", "--toolchain-md" }, d)
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
    local r = ab_cli_in({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
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
    r = ab_cli_in({ "run", "cfg.yaml", "--out", "r.jsonl", "--force" }, d, env)
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
    local r = ab_cli_in({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local log = rows_by(d .. "/r.jsonl")["vllm-0/chat"].artifacts.server_log
    local before = t.read(d .. "/" .. log)
    -- summarization added: chat is still done (same run key), but the candidate's server
    -- starts again for summarization and writes its own server.log
    t.write(d .. "/cfg.yaml", yaml.dump(config()))
    r = ab_cli_in({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
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
    local r = ab_cli_in({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local raw = rows_by(d .. "/r.jsonl")["vllm-0/chat"].artifacts.raw_result
    os.remove(d .. "/" .. raw) -- the user deleted it
    local cfg = config()
    cfg.frameworks.vllm.base_server_flags.gpu_memory_utilization = 0.8
    t.write(d .. "/cfg.yaml", yaml.dump(cfg))
    r = ab_cli_in({ "run", "cfg.yaml", "--out", "r.jsonl", "--force" }, d, env)
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
end

-- Each output path is checked before anything is written or printed: a summary on stdout and
-- then a refused --csv left the user with half the outputs. The messages are the rule's, by hand.
t.test("compare: an output that cannot be written is refused before any output", function()
  local d = t.tmpdir()
  t.write(d .. "/some.jsonl", '{"candidate_id": "c1", "status": "ok", "sla": {"passed": true}, '
    .. '"metrics": {"request_throughput": 2}}\n')
  t.write(d .. "/f.txt", "a file\n")
  -- a folder in the way of a file: no markdown on stdout, nothing written
  local r = ab_cli({ "compare", "some.jsonl", "--md", "s.md", "--csv", "f.txt/sub/x.csv" }, d)
  t.eq({ r.code, r.stdout, r.stderr }, { 1, "",
    "llmdlua: f.txt/sub/x.csv: cannot write the --csv file: f.txt is not a folder\n" })
  t.eq(lfs.attributes(d .. "/s.md"), nil, "nothing written")
  lfs.mkdir(d .. "/dir")
  r = ab_cli({ "compare", "some.jsonl", "--evidence", "dir" }, d)
  t.eq({ r.code, r.stdout, r.stderr }, { 1, "", "llmdlua: dir: is a folder (--evidence expects a file's path)\n" })
  -- a folder this user cannot write in (as nobody, as test_workspace.lua's read-only case)
  local as = t.unprivileged()
  if not as then return end
  if #as > 0 then
    t.ok(proc.run({ "chmod", "755", d, d:match("^(.*)/[^/]+$") }).ok)
    lfs.mkdir(d .. "/out")
    t.ok(proc.run({ "chown", "65534:65534", d .. "/out" }).ok)
  else
    lfs.mkdir(d .. "/out")
  end
  lfs.mkdir(d .. "/ro")
  t.ok(proc.run({ "chmod", "555", d .. "/ro" }).ok)
  local argv = {}
  for _, a in ipairs(as) do argv[#argv + 1] = a end
  for _, a in ipairs { LLMDLUA, "autobench.lua", "compare", "some.jsonl", "--md", "out/s.md", "--csv",
    "ro/sub/x.csv" } do argv[#argv + 1] = a end
  r = proc.run(argv, { cwd = d })
  t.eq({ r.code, r.stdout, r.stderr }, { 1, "",
    "llmdlua: ro/sub/x.csv: cannot write the --csv file: ro: Permission denied; nothing written\n" })
  t.eq(lfs.attributes(d .. "/out/s.md"), nil, "nothing written")
end)

-- An output that is a results file read (by name, through a symlink or a hard link) or another
-- output would replace the measurements (audit48 S7c: `compare R.jsonl --md R.jsonl` exit 0 left
-- R.jsonl a markdown summary). Refused before anything is read or written; the file is kept
-- byte for byte. The messages are the rule's, by hand.
t.test("compare: an output that is a results file read, or another output, is refused", function()
  local d = t.tmpdir()
  local row = '{"candidate_id": "c1", "status": "ok", "sla": {"passed": true}, "metrics": {"request_throughput": 2}}\n'
  t.write(d .. "/r.jsonl", row)
  t.write(d .. "/q.jsonl", row)
  t.ok(proc.run({ "ln", "-s", "r.jsonl", d .. "/link.jsonl" }).ok)
  t.ok(proc.run({ "ln", d .. "/q.jsonl", d .. "/hard.md" }).ok)
  local cases = {
    { { "compare", "r.jsonl", "--md", "r.jsonl" }, "--md r.jsonl is the results file r.jsonl" },
    { { "compare", "q.jsonl", "r.jsonl", "--csv", "./r.jsonl" }, "--csv ./r.jsonl is the results file r.jsonl" },
    { { "compare", "r.jsonl", "--evidence", "link.jsonl" }, "--evidence link.jsonl is the results file r.jsonl" },
    { { "compare", "r.jsonl", "q.jsonl", "--md", "hard.md" }, "--md hard.md is the results file q.jsonl" },
    { { "compare", "r.jsonl", "--md", "s.md", "--csv", "s.md" }, "--csv s.md is the --md file s.md" },
  }
  for _, c in ipairs(cases) do
    local r = ab_cli(c[1], d)
    t.eq({ r.code, r.stdout, r.stderr }, { 2, "", "autobench.lua: " .. c[2]
      .. ": writing it would replace what is there; give another file\n" }, table.concat(c[1], " "))
  end
  t.eq(t.read(d .. "/r.jsonl"), row, "the results kept")
  t.eq(t.read(d .. "/q.jsonl"), row, "the results kept")
  t.eq(lfs.attributes(d .. "/s.md"), nil, "nothing written")
  -- outputs apart from the inputs and each other: written
  local r = ab_cli({ "compare", "r.jsonl", "--md", "s.md", "--csv", "s.csv" }, d)
  t.eq(r.code, 0, r.stderr)
  t.ok(t.read(d .. "/s.md"):match("c1"), "the summary written")
end)

-- A results file whose last line was cut short (a kill or a full disk mid-append: no end of
-- line, not JSON) is read without it, with a note; the rows before it stay usable (audit48 S7:
-- every later compare stopped on "invalid JSON" until the file was edited by hand). A line
-- that is not JSON anywhere else still stops, as before. Expected texts: the rule's, by hand.
t.test("compare: an unfinished last row (an append cut short) is left out with a note", function()
  local d = t.tmpdir()
  local row = '{"candidate_id": "c%d", "framework": "vllm", "status": "ok", "sla": {"passed": true}, '
    .. '"metrics": {"request_throughput": %d}}'
  local whole = row:format(1, 2) .. "\n" .. row:format(2, 3) .. "\n"
  t.write(d .. "/r.jsonl", whole .. row:format(3, 4):sub(1, 40))
  local r = ab_cli({ "compare", "r.jsonl" }, d)
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stderr:find("note: r.jsonl:3: an unfinished last row (no end of line, not JSON: an append cut short, by a "
    .. "kill or a full disk) is left out; autobench.lua run measures it again\n", 1, true), r.stderr)
  t.ok(r.stdout:find("c2", 1, true) and not r.stdout:find("c3", 1, true), r.stdout)
  t.eq(t.read(d .. "/r.jsonl"), whole .. row:format(3, 4):sub(1, 40), "compare never edits its input")
  -- the same cut line with an end of line after it (then another row) is no interrupted append
  t.write(d .. "/m.jsonl", whole .. row:format(3, 4):sub(1, 40) .. "\n" .. row:format(4, 5) .. "\n")
  r = ab_cli({ "compare", "m.jsonl" }, d)
  t.eq(r.code, 1)
  t.ok(r.stderr:find("^llmdlua: m.jsonl:3: invalid JSON: "), r.stderr)
  -- a last row that is JSON but has no end of line (edited by hand) is read
  t.write(d .. "/e.jsonl", whole .. row:format(3, 4))
  r = ab_cli({ "compare", "e.jsonl" }, d)
  t.eq({ r.code, r.stderr:find("unfinished", 1, true) }, { 0, nil }, r.stderr)
  t.ok(r.stdout:find("c3", 1, true), r.stdout)
end)

-- every line of a results file is one whole JSON object, and it ends with an end of line
local function whole_lines(path)
  local data = t.read(path)
  t.eq(data:sub(-1), "\n", path .. " ends with an end of line")
  local n = 0
  for line in data:gmatch("[^\n]+") do
    n = n + 1
    t.ok(pcall(json.decode, line), ("%s:%d is JSON: %s"):format(path, n, line:sub(1, 80)))
  end
  return n
end

-- run: an append that fails part-way (a full disk) is undone, and a row a kill cut short
-- before is cut and measured again: the output only ever holds whole lines, and a later run
-- completes it. Four scenarios on a 4 KiB tmpfs: 16 rows (the vllm candidate's four, ~1.6 KB
-- each, and a skipped note, ~0.5 KB, for each of the three frameworks the config disables)
-- cannot fit.
t.test("run: a full disk or a kill mid-append never leaves a half row in --out", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = mock_config()
  cfg.dataset.scenario_names = { "a", "b", "c", "d" }
  cfg.dataset.input_len, cfg.dataset.output_len = { 10, 20, 10, 20 }, { 4, 8, 6, 4 }
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local disk = d .. "/disk"
  lfs.mkdir(disk)
  local m = proc.run { "mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", disk }
  if not m.ok then
    io.stderr:write("  (tmpfs part skipped: " .. tostring(m.stderr):gsub("%s+$", "") .. ")\n")
  else
    local ok, err = pcall(function()
      t.write(disk .. "/out.jsonl", "")
      t.ok(proc.run({ "ln", "-s", disk .. "/out.jsonl", d .. "/r.jsonl" }).ok)
      local r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
      t.eq(r.code, 1, r.stdout .. r.stderr)
      local size = lfs.attributes(disk .. "/out.jsonl", "size")
      t.ok(r.stderr:find(("r.jsonl: cannot append a row: No space left on device; nothing of it kept (the file is "
        .. "back to its %d bytes)"):format(size), 1, true), r.stderr)
      t.ok(whole_lines(d .. "/r.jsonl") >= 1, "the rows that fitted are kept")
      t.ok(proc.run({ "mount", "-o", "remount,size=64k", disk }).ok)
      r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
      t.eq(r.code, 0, r.stdout .. r.stderr)
      t.eq(whole_lines(d .. "/r.jsonl"), 16)
    end)
    proc.run { "umount", disk }
    if not ok then error(err, 0) end
  end
  -- a kill mid-append: the last row half written, no end of line
  local r = ab_cli({ "run", "cfg.yaml", "--out", "k.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  -- killed while writing the candidate's last row: that row half there, nothing after it
  local lines, n = {}, 0
  for line in t.read(d .. "/k.jsonl"):gmatch("[^\n]+") do
    lines[#lines + 1] = line
    if json.decode(line).candidate_id == "vllm-0" then n = #lines end
  end
  t.eq(whole_lines(d .. "/k.jsonl"), 16)
  t.write(d .. "/k.jsonl", table.concat(lines, "\n", 1, n - 1) .. "\n" .. lines[n]:sub(1, #lines[n] // 2))
  r = ab_cli({ "run", "cfg.yaml", "--out", "k.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stderr:find(("note: k.jsonl:%d: an unfinished last row"):format(n), 1, true), r.stderr)
  t.eq(whole_lines(d .. "/k.jsonl"), 16)
  local got = rows_by(d .. "/k.jsonl")
  for _, sc in ipairs { "a", "b", "c", "d" } do t.eq(got["vllm-0/" .. sc].status, "ok", sc) end
end)

-- A server that binds late leaves its port free for a while after the launch; another process
-- that takes it then answers the ready check with the right model, and its measurements were
-- recorded as the candidate's (audit48 S3: "ok (SLA passed)" for a server that never
-- listened). The candidate (mock mode 2: never listens) must fail, naming the intruder's pid;
-- with run.check_port_owner: false (a container's proxy holds the port) the check is off.
-- The intruder starts once the candidate's server has said it started (its log), after the
-- port-free check. The expected line is the rule's, by hand, with the intruder's real pid.
t.test("run: a port another process took while the server started is not the candidate's", function()
  for _, check in ipairs { true, false } do
    local d = t.tmpdir()
    local env = vllm_shim(d)
    local port = proc.free_port()
    local cfg = mock_config(nil, 2)
    cfg.run.port, cfg.run.ready_timeout = port, 60
    if not check then cfg.run.check_port_owner = false end
    t.write(d .. "/cfg.yaml", yaml.dump(cfg))
    local log = d .. "/autobench-artifacts/r/vllm-0/server.log"
    local intruder = proc.spawn({ "sh", "-c", 'while ! grep -q "mock server starting" "$1" 2>/dev/null; do sleep 0.1; '
      .. 'done; exec "$2" "$3" mock/model --port "$4"', "sh", log, PY, ROOT .. "/tests/autobench/mockserver.py",
      tostring(port) })
    local r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
    local ipid = intruder:pid()
    intruder:kill(1)
    local row = rows_by(d .. "/r.jsonl")["vllm-0/chat"]
    if check then
      t.eq(r.code, 1, r.stdout .. r.stderr)
      t.eq({ row.status, row.failure_reason }, { "failed", ("port %d is answered by pid %d (python3), not by the server "
        .. "launched (process group %d): another process took the port while the server was starting, and its "
        .. "answers would be recorded as this candidate's; stop it, or set another run.port (a server run in a "
        .. "container, whose port the container runtime's proxy holds: set run.check_port_owner: false)")
        :format(port, ipid, tonumber(t.read(log):match("pid (%d+)"))) })
    else
      t.eq({ r.code, row.status }, { 0, "ok" }, r.stdout .. r.stderr)
    end
  end
  -- the key is checked as the others are
  local cfg = mock_config()
  cfg.run.check_port_owner = "no"
  t.eq(ab.validate_run(cfg), { "run.check_port_owner must be true or false (got 'no')" })
end)

-- audit50b F6: vllm-2 [12.0, 12.2, 11.9] against vllm-1 [10.2, 10.9, 9.4] read p = 0.045 (Welch on
-- the raw values) beside a 95 % interval of -29.2 % to +0.8 % (of the log ratio): one said there
-- is a difference, the other that there may be none. Test and interval are now on one scale, the
-- log values'. By /usr/bin/python3 + numpy (Welch's t and df on the logs, the t density
-- integrated numerically, its 0.975 quantile by bisection): p = 0.054046, df = 2.117, vllm-1
-- against vllm-2 -15.66 %, interval -29.37 % to +0.70 %: both say no clear difference.
t.test("compare: the test and the interval of a choice are on one scale and agree (audit50b F6)", function()
  -- (the shared test of repeats on one scale, decision.sized_repeat_test, which compare's rows use too)
  local r = require("llmd.decision").sized_repeat_test({ 12.0, 12.2, 11.9 }, { 10.2, 10.9, 9.4 })
  t.eq({ r.test, r.scale }, { "welch", "log" })
  t.near(r.p, 0.054046, 5e-6)
  t.near(r.row_effect.pct, -15.662221, 1e-5)
  t.near(r.row_effect.lo, -29.368729, 1e-4)
  t.near(r.row_effect.hi, 0.704134, 1e-4)
  -- (the interval takes in 0 exactly when p >= 0.05: the same t and df)
  t.eq(r.p >= 0.05, r.row_effect.lo < 0 and r.row_effect.hi > 0)
  local d = t.tmpdir()
  t.write(d .. "/w.jsonl", ev_rows("vllm", "vllm-2", { 12.0, 12.2, 11.9 }) .. ev_rows("vllm", "vllm-1", { 10.2, 10.9, 9.4 }))
  local c = ab_cli({ "compare", "w.jsonl", "--evidence", "w.txt" }, d)
  t.eq(c.code, 0)
  t.eq(t.read(d .. "/w.txt"), EV_HEAD .. "chat, vllm: vllm vllm-2 ranks above vllm vllm-1 by request throughput, best "
    .. "rows 12.20 vs 10.90 req/s (the toolchain's rule), means of the repeats 12.03 vs 10.17 req/s (18.4 % apart): no "
    .. "clear difference (Welch on the log values, p = 0.054; 3 and 3 measurements; vllm vllm-1 -15.7 % against vllm "
    .. "vllm-2 over the repeats, 95 % interval -29.4 % to +0.7 %)\n")
end)

-- harden52: a server that answers HTTP 200 with nothing in it. vLLM's client counts a
-- streamed answer with a chunk of choices as a success whatever its text (by its source,
-- vllm/benchmarks/lib/endpoint_request_func.py: success once a chunk has "choices"; its
-- output length is usage's completion_tokens, else the text's tokens: 0), so its result file
-- says every request completed, fast, with no output token: request throughput the best of
-- any server. Mode 8 answers so; mode 9 answers an HTML page with HTTP 200 (the client's
-- JSON parse fails: every request failed, which held before). Neither may be an ok row.
t.test("run: a server answering HTTP 200 with empty or garbage bodies is no result", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  env.MOCK_READY_CHECK_S = "3" -- mode 9 fails the client's test prompt: its wait shortened
  for _, mode in ipairs { 8, 9 } do
    local out = "r" .. mode .. ".jsonl"
    t.write(d .. "/cfg.yaml", yaml.dump(mock_config(nil, mode)))
    local r = ab_cli({ "run", "cfg.yaml", "--out", out }, d, env)
    t.eq(r.code, 1, "mode " .. mode .. ": " .. r.stdout .. r.stderr)
    local got = rows_by(d .. "/" .. out)
    local chat = got["vllm-0/chat"]
    t.ok(chat.status ~= "ok", ("mode %d: chat is %s: %s"):format(mode, chat.status, json.encode(chat.metrics)))
    t.eq(chat.sla.passed, false)
    -- nothing measured is kept as a figure: no throughput, no latency (3 prompts answered
    -- with no token: the success rate is all that was seen)
    t.eq(chat.metrics.request_throughput, nil, "mode " .. mode)
    t.eq(chat.metrics.p50_ttft_ms, nil, "mode " .. mode)
    if mode == 8 then
      t.eq(chat.status, "failed")
      t.contains(chat.failure_reason, "3 requests answered without one output token (total_output_tokens 0")
      t.eq(chat.metrics.success_rate, 1.0)
      local summ = got["vllm-0/summarization"]
      t.eq(summ.status, "skipped")
      t.contains(summ.failure_reason, "not run: 3 requests answered without one output token")
    end
    for _, row in pairs(got) do t.ok(row.status ~= "ok", mode .. " " .. row.workload.scenario .. " " .. row.status) end
    -- and compare ranks none of them
    r = ab_cli({ "compare", out }, d)
    t.eq(r.code, 0, r.stderr)
    t.ok(not r.stdout:find("| chat | 1 |", 1, true), r.stdout)
  end
end)

-- harden52: a hang-up (the terminal or ssh session closed) killed llmdlua outright, by
-- SIGHUP's default action, and the server it had started in a process group of its own ran
-- on (a GPU and a port held, nobody to stop it); now it stops the run as Ctrl-C does. Under
-- nohup (SIGHUP ignored when llmdlua starts) the run goes on.
t.test("run: a hang-up stops the run and its server as Ctrl-C does; under nohup it is ignored", function()
  for _, nohup in ipairs { false, true } do
    local d = t.tmpdir()
    local env = vllm_shim(d)
    local cfg = mock_config()
    cfg.frameworks.vllm.base_server_flags.max_num_seqs = 2 -- never answers
    cfg.run.ready_timeout = 60
    t.write(d .. "/cfg.yaml", yaml.dump(cfg))
    local argv = { LLMDLUA, "autobench.lua", "run", "cfg.yaml", "--out", "results.jsonl" }
    if nohup then argv = { "sh", "-c", "trap '' HUP; exec \"$@\"", "sh", table.unpack(argv) } end
    local p = proc.spawn(argv, { cwd = d, env = env, stdout = { file = d .. "/out.txt" },
      stderr = { file = d .. "/err.txt" } })
    local log = d .. "/autobench-artifacts/results/vllm-0/server.log"
    local pid
    for _ = 1, 400 do
      pid = lfs.attributes(log) and t.read(log):match("mock server starting, pid (%d+)")
      if pid then break end
      t.eq(p:wait(0.05), nil, "still running: " .. t.read(d .. "/err.txt"))
    end
    t.ok(pid, "the server started: " .. t.read(d .. "/out.txt"))
    proc.run { "kill", "-HUP", tostring(p:pid()) }
    if nohup then
      t.eq(p:wait(1), nil, "a hang-up ignored under nohup: " .. t.read(d .. "/err.txt"))
      t.eq(proc.run({ "kill", "-0", pid }).ok, true, "its server runs on")
      proc.run { "kill", "-INT", tostring(p:pid()) }
    end
    local st = p:wait(20)
    t.eq(st and st.code, 130, "nohup " .. tostring(nohup))
    t.eq(t.read(d .. "/err.txt"), "autobench.lua: interrupted; the rows finished so far are in results.jsonl; "
      .. "run the same command again to resume\n")
    t.eq(proc.run({ "kill", "-0", pid }, { stderr = "null" }).ok, false, "the server was stopped")
    t.eq(lfs.attributes(d .. "/autobench-artifacts/results/.llmdlua.lock"), nil, "the lock let go")
  end
end)

-- harden52: a client_command that does not tell the client the candidate's address (vllm
-- bench serve's --port 8000 or no address at all: its default is 127.0.0.1:8000) measured
-- whatever answered there - a server of an earlier run, a colleague's - and its figures
-- were recorded as the candidate's, status ok. The run picks a free port per candidate, so
-- such a command can never be aimed at it: refused by validate, plan and run, before any
-- server starts. {port} is there for clients that take a host and a port.
t.test("run: a client_command without the candidate's address is refused; {port} names it", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  -- someone else's server, on the port the client would go to: it must never be measured
  local other = proc.free_port()
  local squatter = proc.spawn({ PY, ROOT .. "/tests/autobench/mockserver.py", "mock/model", "--port", tostring(other) },
    { stdout = "null", stderr = "null" })
  local cfg = mock_config()
  cfg.dataset.scenario_names, cfg.dataset.input_len, cfg.dataset.output_len = { "chat" }, { 10 }, { 4 }
  cfg.run.client_command = "vllm bench serve --port " .. other .. " --model {model} --num-prompts {num_prompts} "
    .. "--random-output-len {output_len} --save-result --result-dir {result_dir} --result-filename {result_file}"
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local want = "cfg.yaml: run.client_command must tell the client which server to benchmark, by {base_url} (or "
    .. "{port}): without it the client measures whatever answers at its own default address, and its figures would "
    .. "be recorded as each candidate's\n"
  local r = ab_cli({ "validate", "cfg.yaml" }, d, env)
  t.eq({ r.code, r.stdout }, { 1, want })
  r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  squatter:kill(1)
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: " .. want })
  t.eq(lfs.attributes(d .. "/r.jsonl"), nil, "no row")
  t.eq(lfs.attributes(d .. "/autobench-artifacts/r/vllm-0"), nil, "no server started")
  -- {port}: the candidate's own port, as the row's base URL's (mockclient takes --base-url
  -- only, so here a shell passes it on; with the scenario's concurrency, which a client left
  -- without it does not run: a failed row, test_autobench_harden)
  cfg.run.client_command = "sh -c 'exec vllm bench serve --base-url http://127.0.0.1:$0 \"$@\"' {port} --model {model} "
    .. "--num-prompts {num_prompts} {max_concurrency_flag} --random-output-len {output_len} --save-result "
    .. "--result-dir {result_dir} --result-filename {result_file}"
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local row = rows_by(d .. "/r.jsonl")["vllm-0/chat"]
  local port = t.read(d .. "/autobench-artifacts/r/vllm-0/server.log"):match("port (%d+)")
  t.ok(port and row.benchmark_command:find("' " .. port .. " --model", 1, true), row.benchmark_command)
  t.eq(row.status, "ok")
end)

-- harden52: a run killed outright (kill -9, the out-of-memory killer) cannot stop its server,
-- which runs on in its own process group, holding its port and its GPUs' memory; the next
-- run started its candidates beside it, and on GPUs they ran out of memory: rows saying oom
-- of configurations that fit. The next run of the output now stops first, naming it.
t.test("run: a server left running by a killed run is named, and the next run starts nothing beside it", function()
  local d = t.tmpdir()
  local env = vllm_shim(d)
  local cfg = mock_config()
  cfg.frameworks.vllm.base_server_flags.max_num_seqs = 2 -- never answers
  cfg.run.ready_timeout = 60
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local p = proc.spawn({ LLMDLUA, "autobench.lua", "run", "cfg.yaml", "--out", "r.jsonl" },
    { cwd = d, env = env, stdout = "null", stderr = "null" })
  local log = d .. "/autobench-artifacts/r/vllm-0/server.log"
  local pid
  for _ = 1, 400 do
    pid = lfs.attributes(log) and t.read(log):match("mock server starting, pid (%d+)")
    if pid then break end
    t.eq(p:wait(0.05), nil, "still running")
  end
  t.ok(pid, "the server started")
  proc.run { "kill", "-KILL", tostring(p:pid()) }
  p:wait(10)
  t.eq(proc.run({ "kill", "-0", pid }).ok, true, "the server outlived its run")
  local r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  local alive = proc.run({ "kill", "-0", pid }).ok
  proc.run { "kill", "--", "-" .. pid } -- (the test's own leftover, by its process group)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, ("llmdlua: r.jsonl: a server an earlier run of it started is still running: pid %s (%s "
    .. "mock/model --max-model-len 100 --max-num-seqs 2 --port %s; recorded in "
    .. "autobench-artifacts/r/vllm-0/server.pid). That run was killed before it could stop it (a Ctrl-C stops it; "
    .. "kill -9 or the out-of-memory killer cannot), and it holds its port and its GPUs' memory: this run's servers "
    .. "would run out of memory beside it. Stop it (kill -- -%s: its process group), then run this again; nothing "
    .. "was started\n"):format(pid, MOCKSERVER, t.read(log):match("port (%d+)"), pid))
  t.eq(alive, true, "left to its owner: not stopped by the refusal")
  t.eq(rows_by(d .. "/r.jsonl")["vllm-0/chat"], nil, "no vllm row (the killed run wrote the excluded ones')")
  t.eq(lfs.attributes(log .. ".earlier-1"), nil, "no server started: its log not moved aside")
  -- once it is gone, the record is dropped and the run goes on; a server this run stopped
  -- leaves no record
  for _ = 1, 100 do
    if not proc.run({ "kill", "-0", pid }, { stderr = "null" }).ok then break end
    proc.run { "sleep", "0.05" }
  end
  t.write(d .. "/cfg.yaml", yaml.dump(mock_config()))
  r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(lfs.attributes(d .. "/autobench-artifacts/r/vllm-0/server.pid"), nil)
end)

-- harden52: a client that exits 0 with a result of counts and no throughput (a client of
-- another format, a file cut to its counts) was an ok row with no figure at all, ranked
-- as unknown beside measured ones; now a failed row saying what is missing.
t.test("run: a client result with completed requests but no throughput is no result", function()
  local d = t.tmpdir()
  local cfg = mock_config()
  cfg.dataset.scenario_names, cfg.dataset.input_len, cfg.dataset.output_len = { "chat" }, { 10 }, { 4 }
  t.write(d .. "/client.sh", "#!/bin/sh\nprintf '%s\\n' '{\"completed\": 3, \"failed\": 0, \"median_ttft_ms\": 12.0}' > \"$1\"\n")
  proc.run { "chmod", "+x", d .. "/client.sh" }
  cfg.run.client_command = d .. "/client.sh {result_dir}/{result_file} {base_url}"
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  local r = ab_cli({ "run", "cfg.yaml", "--out", "r.jsonl" }, d)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local row = rows_by(d .. "/r.jsonl")["vllm-0/chat"]
  t.eq({ row.status, row.failure_reason, row.sla.passed }, { "failed", "3 requests completed, but the client's result "
    .. "has no request_throughput above 0 (got none): no measurement to rank", false })
  t.eq(row.metrics, json.object { success_rate = 1.0 })
end)

-- harden52: vLLM writes 0 for a TPOT it could not measure (no request with two output
-- tokens: numpy of an empty list "or 0"), as for TTFT; a server answering with empty text
-- gives such a file, its requests "completed" fast. compare read TTFT 0 as not measured, but
-- a TPOT of 0 passed max_p50_tpot_ms and was the best TPOT, so the toolchain's file of
-- such a server (status ok) was the scenario's winner. Rows by hand: e-empty 50 req/s, 0
-- tokens/s, TPOT 0; r-real 10 req/s, 400 tokens/s, TPOT 20 ms; SLA TPOT <= 30 ms.
t.test("compare: a p50 TPOT of 0 (not measured) makes the SLA unknown, never a pass nor a win", function()
  local d = t.tmpdir()
  local function row(cid, rt, out, ttft, tpot)
    return ('{"framework": "vllm", "candidate_id": "%s", "status": "ok", "workload": {"scenario": "chat"}, '
      .. '"sla": {"max_p50_ttft_ms": 1500, "max_p50_tpot_ms": 30, "min_success_rate": 0.99, "passed": true}, '
      .. '"metrics": {"request_throughput": %s, "output_token_throughput": %s, "p50_ttft_ms": %s, '
      .. '"p50_tpot_ms": %s, "success_rate": 1.0}, "hardware": {"gpu_count": 1}, "server_command": "vllm serve m %s"}')
      :format(cid, rt, out, ttft, tpot, cid)
  end
  t.write(d .. "/z.jsonl", row("e-empty", 50, 0, 5, 0) .. "\n" .. row("r-real", 10, 400, 100, 20) .. "\n")
  local r = ab_cli({ "compare", "z.jsonl" }, d)
  t.eq(r.code, 0, r.stderr)
  t.contains(r.stderr, "note: z.jsonl:1: vllm e-empty: SLA unknown (N/A): p50 TPOT ms unknown (N/A: 0, which means "
    .. "not measured);")
  local cross = r.stdout:match("## Cross%-Framework Best Comparison(.-)## Failed")
  t.ok(cross and cross:find("| chat | 1 | vllm | r-real | True |", 1, true), r.stdout)
  t.ok(not cross:find("| vllm | e-empty |", 1, true), cross)
  t.contains(r.stdout, "| vllm | e-empty | ok | unknown (N/A) | SLA unknown: p50 TPOT ms unknown (N/A: 0, which means "
    .. "not measured) |")
end)

-- harden52: compare's --md, --csv and --evidence were written one after the other, so a
-- disk that filled (here the file-size limit) between them left the new markdown beside the
-- last run's CSV: two summaries of different rows read as one. They are one set now, as
-- compare.lua's report: all written, or none changed.
t.test("compare: --md, --csv and --evidence are written as one set: a failed write changes none", function()
  local d = t.tmpdir()
  -- 300 repeats of one candidate: the CSV has a line for each (about 40 KiB), the markdown
  -- its best row only (a few KiB)
  local lines = {}
  for i = 1, 300 do
    lines[i] = json.encode { framework = "vllm", candidate_id = "vllm-0", status = "ok",
      workload = { scenario = "chat", input_len = 10, output_len = 4 }, sla = { max_p50_ttft_ms = 5000 },
      metrics = { request_throughput = 10 + i / 100, output_token_throughput = 40.0, p50_ttft_ms = 100.0,
        p50_tpot_ms = 10.0, success_rate = 1.0 },
      hardware = { gpu_count = 1 }, server_command = "vllm serve m" }
  end
  t.write(d .. "/r.jsonl", table.concat(lines, "\n") .. "\n")
  for _, f in ipairs { "s.md", "s.csv", "s.txt" } do t.write(d .. "/" .. f, "the last run's " .. f .. "\n") end
  -- 16 KiB a file (sh's ulimit -f counts 1024-byte blocks), SIGXFSZ ignored as llmdlua does
  local r = proc.run({ "sh", "-c", 'trap "" XFSZ; ulimit -f 16; exec "$@"', "sh", LLMDLUA, "autobench.lua",
    "compare", "r.jsonl", "--md", "s.md", "--csv", "s.csv", "--evidence", "s.txt" }, { cwd = d })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.contains(r.stderr, "s.csv: cannot write: File too large; none of s.md, s.csv, s.txt was changed")
  for _, f in ipairs { "s.md", "s.csv", "s.txt" } do t.eq(t.read(d .. "/" .. f), "the last run's " .. f .. "\n", f) end
  -- without the limit all three are written
  r = ab_cli({ "compare", "r.jsonl", "--md", "s.md", "--csv", "s.csv", "--evidence", "s.txt" }, d)
  t.eq(r.code, 0, r.stderr)
  t.ok(#t.read(d .. "/s.csv") > 16 * 1024 and #t.read(d .. "/s.md") < 16 * 1024, "the CSV alone past the limit")
  t.contains(t.read(d .. "/s.md"), "| chat | vllm-0 | ok | True | 13.00 | 11.50 (300 repeats")
end)
