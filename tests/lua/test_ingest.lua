-- What a new user hit reading runs (newuser report s29, items 1, 9, 10, 11): one run's file
-- saved twice, two runs that are one, a run cut short, a relative workspace path. Each test
-- is the reproduction of the reported defect and fails without its fix.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local harness = require "llmd.harness"
local lfs = require "lfs"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local F = t.fixtures()
local V = F .. "/vllm-benchmark/exp-7_H100"
local KC = F .. "/inference-perf/kubecon-na-2025_vllm"

local function run(argv, opts) return proc.run(argv, opts) end

-- the files of a folder, sorted by name (listed here, not by llmdlua)
local function files_of(dir)
  local out = {}
  for n in lfs.dir(dir) do
    if n ~= "." and n ~= ".." then out[#out + 1] = n end
  end
  table.sort(out)
  return out
end

-- a folder holding the named files of src (by their index in name order)
local function folder_of(dst, src, picks)
  t.mkdir(dst)
  local names = files_of(src)
  for _, i in ipairs(picks) do t.copy(src .. "/" .. names[i], dst .. "/" .. names[i]) end
  return names
end

-- the JSON document of path written again, indented: other bytes, the same values
-- (Python's json module, not llmdlua's, so the test does not lean on the reader it checks)
local function reserialise(src, dst)
  local r = run { "/usr/bin/python3", "-c",
    "import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], 'w'), indent=2)", src, dst }
  t.ok(r.ok, r.stderr)
  t.ok(t.read(src) ~= t.read(dst), "the copy's bytes differ")
end

-- Item 1 (HIGH, wrong way): a copy of a result file inside one run's folder was one more
-- repeat: 3 repeats where 2 were measured, and the Holm-adjusted tests named "winners".
t.test("1: a result file saved twice in one run's folder is refused, naming both files", function()
  local tmp = t.tmpdir()
  local d = tmp .. "/dup"
  local names = folder_of(d, V .. "/vllm-2replicas", { 1, 2 }) -- two real repeats
  t.copy(V .. "/vllm-2replicas/" .. names[1], d .. "/benchmark_rerun.json")
  local err = t.raises("are the same file, byte for byte", harness.extract, d)
  t.ok(err:find(("%s: %s and benchmark_rerun.json are the same file"):format(d, names[1]), 1, true), err)
  t.ok(not err:find("\n", 1, true), "one line: " .. err)
  -- the two real repeats alone: read, two stages (the two files given)
  local clean = tmp .. "/clean"
  folder_of(clean, V .. "/vllm-2replicas", { 1, 2 })
  t.eq(#harness.extract(clean).stages, 2)
  -- compare.lua: exit 1, that line, and no workspace made (refused before anything is)
  local parent = tmp .. "/p"
  local r = run { LLMDLUA, "compare.lua", "--a", clean, "--b", d, "--parent", parent, "--quiet" }
  t.eq(r.code, 1, r.stderr)
  t.ok(r.stderr:find(names[1] .. " and benchmark_rerun.json are the same file, byte for byte", 1, true), r.stderr)
  t.ok(not r.stderr:find("traceback", 1, true) and not r.stderr:find("%.lua:%d+:"), r.stderr)
  t.eq(#t.workspaces(parent), 0)
  -- treatments.lua and extract.lua refuse it too
  r = run { LLMDLUA, "treatments.lua", "--run", "x=" .. clean, "--run", "y=" .. d, "--out", tmp .. "/tr", "--quiet" }
  t.eq(r.code, 1, r.stderr)
  t.ok(r.stderr:find("benchmark_rerun.json are the same file", 1, true), r.stderr)
  r = run { LLMDLUA, "extract.lua", d }
  t.eq(r.code, 1, r.stderr)
end)

t.test("1: the same requests saved twice in one run's folder, re-serialised (other bytes), are refused", function()
  local tmp = t.tmpdir()
  local d = tmp .. "/dup"
  local names = folder_of(d, V .. "/llm-d-1p1d", { 1, 3 })
  reserialise(V .. "/llm-d-1p1d/" .. names[1], d .. "/result_rep1.json")
  local err = t.raises("hold the same results, every figure equal to the last digit", harness.extract, d)
  t.ok(err:find(("%s: %s and result_rep1.json hold the same results"):format(d, names[1]), 1, true), err)
  -- one file of another run beside them, re-serialised: a measurement of its own, read
  local ok = tmp .. "/ok"
  folder_of(ok, V .. "/llm-d-1p1d", { 1, 3 })
  reserialise(V .. "/llm-d-1p1d/" .. names[2], ok .. "/result_rep2.json")
  t.eq(#harness.extract(ok).stages, 3)
end)

-- Item 9: two runs that are one (a folder re-serialised under another label) gave a report of
-- "no clear difference" with no word that it compared a run with itself.
t.test("9: compare.lua warns when both runs hold the same results in other bytes", function()
  local tmp = t.tmpdir()
  local a, b = V .. "/llm-d-1p1d", tmp .. "/y2"
  t.mkdir(b)
  for i, n in ipairs(files_of(a)) do reserialise(a .. "/" .. n, ("%s/result_rep%d.json"):format(b, i)) end
  local w, r = t.compare { "--a", a, "--b", b, "--a-label", "x", "--b-label", "y" }
  t.ok(r.ok, r.stderr)
  local want = ("%s (x) and %s (y) hold the same results (the files differ, but every figure of every load point is "
    .. "equal to the last digit: the same requests, saved twice): this compares a run with itself"):format(a, b)
  t.ok(r.stderr:find("compare.lua: warning: " .. want, 1, true), r.stderr)
  local report = t.read(w .. "/comparison_report.md")
  t.ok(report:find("> **Warning:** " .. want, 1, true), report)
  t.ok(json.read(w .. "/comparison.json").identical:find(want, 1, true))
  -- analyze.lua keeps it
  r = run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.ok(r.ok, r.stderr)
  t.ok(t.read(w .. "/comparison_report.md"):find("> **Warning:** " .. want, 1, true))
  -- two different runs: no such warning
  w, r = t.compare { "--a", a, "--b", V .. "/vllm-2replicas", "--a-label", "x", "--b-label", "y" }
  t.ok(r.ok, r.stderr)
  t.ok(not r.stderr:find("same results", 1, true), r.stderr)
  t.ok(not t.read(w .. "/comparison_report.md"):find("same results", 1, true))
end)

t.test("9: treatments.lua warns for two treatments holding the same results, bytes or figures", function()
  local tmp = t.tmpdir()
  local a = V .. "/llm-d-1p1d"
  local copy, y2 = tmp .. "/copy", tmp .. "/y2"
  t.copy_tree(a, copy)
  t.mkdir(y2)
  for i, n in ipairs(files_of(a)) do reserialise(a .. "/" .. n, ("%s/result_rep%d.json"):format(y2, i)) end
  for _, c in ipairs { { copy, "the same files, byte for byte" },
    { y2, "the files differ, but every figure their harness recorded at every load point is equal to the "
      .. "last digit: the same requests, saved twice" } } do
    local out = tmp .. "/out" .. #files_of(tmp)
    local r = run { LLMDLUA, "treatments.lua", "--run", "x=" .. a, "--run", "y=" .. c[1], "--run",
      "z=" .. V .. "/vllm-2replicas", "--out", out, "--quiet" }
    t.ok(r.ok, r.stderr)
    local want = ("treatments x and y hold the same results (%s and %s: %s): this compares a run with itself")
      :format(a, c[1], c[2])
    t.ok(r.stderr:find("treatments.lua: warning: " .. want, 1, true), r.stderr)
    t.ok(not r.stderr:find("treatments x and z", 1, true) and not r.stderr:find("treatments y and z", 1, true),
      r.stderr)
    -- the report's first paragraph says it, before any ranking
    local report = t.read(out .. "/treatment_report.md")
    t.ok(report:find("\n\nWarning: " .. want, 1, true), report)
    t.eq(#json.read(out .. "/treatments.json").identical, 1)
  end
end)

-- Item 10: a run cut short (stages 0-4 of 7, no summary) was reported as a complete run.
t.test("10: an inference-perf run without its summary is read, marked partial in the run and the report", function()
  local tmp = t.tmpdir()
  local cut = tmp .. "/cut"
  t.mkdir(cut)
  for i = 0, 4 do
    for _, k in ipairs { "lifecycle", "prometheus" } do
      local n = ("stage_%d_%s_metrics.json"):format(i, k)
      -- (saved again, the same figures in other bytes: the cut run is another run than the
      -- full one, whose stage files a comparison refuses to find byte for byte in both)
      t.copy(KC .. "/" .. n, cut .. "/" .. n)
      t.resave(cut .. "/" .. n)
    end
  end
  local want = "a partial run: no summary_lifecycle_metrics.json beside its 5 stage files (stages 0-4): inference-perf "
    .. "writes it when every stage has run, so the run was cut short after stage 4 (or the file was not copied); its "
    .. "figures are from those stages only, not from a complete run"
  local m = harness.extract(cut)
  t.eq(m.partial, want)
  t.eq(m.status, "warnings")
  t.eq(#m.stages, 5)
  -- the complete run is not partial
  local full = harness.extract(KC)
  t.eq(full.partial, nil)
  -- compare.lua: the banner, the Summary's first words, the data checks, run_state.json
  local w, r = t.compare { "--a", cut, "--b", KC, "--a-label", "cut", "--b-label", "full" }
  t.ok(r.ok, r.stderr)
  local report = t.read(w .. "/comparison_report.md")
  t.ok(report:find("> **Partial run.** cut (A) is " .. want .. ".", 1, true), report)
  local summary = report:match("\n## Evidence\n\n(.-)\n\n## ")
  t.eq(summary:sub(1, #("Warning: run A (cut) is " .. want)), "Warning: run A (cut) is " .. want)
  t.ok(not summary:find("disagree", 1, true), summary)
  t.ok(report:find("- cut: " .. want, 1, true))
  t.ok(t.read(w .. "/comparison_report.html"):find("Partial run.", 1, true))
  t.eq(json.read(w .. "/run-a/run_state.json").partial, want)
  t.eq(json.read(w .. "/run-b/run_state.json").partial, nil)
  -- analyze.lua (from the saved run model) keeps it
  r = run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.ok(r.ok, r.stderr)
  t.ok(t.read(w .. "/comparison_report.md"):find("> **Partial run.** cut (A)", 1, true))
  -- treatments.lua: its status, and the report's first words
  local out = tmp .. "/tr"
  r = run { LLMDLUA, "treatments.lua", "--run", "cut=" .. cut, "--run", "full=" .. KC, "--out", out, "--quiet" }
  t.ok(r.ok, r.stderr)
  local tr = t.read(out .. "/treatment_report.md")
  t.ok(tr:find("\n\nWarning: treatment cut: " .. cut .. ": " .. want, 1, true), tr)
  t.ok(tr:find("| partial: " .. cut .. ": a partial run", 1, true), tr)
end)

t.test("10: config.yaml listing more stages than the files marks a run partial; summary: false does not", function()
  local tmp = t.tmpdir()
  local d = tmp .. "/five"
  t.mkdir(d)
  for i = 0, 4 do
    local n = ("stage_%d_lifecycle_metrics.json"):format(i)
    t.copy(KC .. "/" .. n, d .. "/" .. n)
  end
  t.copy(KC .. "/summary_lifecycle_metrics.json", d .. "/summary_lifecycle_metrics.json")
  local stages = {}
  for i = 1, 7 do stages[i] = "    - rate: " .. i .. "\n      duration: 60" end
  t.write(d .. "/config.yaml", "load:\n  type: constant\n  stages:\n" .. table.concat(stages, "\n") .. "\n")
  t.eq(harness.extract(d).partial, "a partial run: config.yaml lists 7 load stages, but there are only 5 stage "
    .. "files (stages 0-4): the run was cut short (or stage files were not copied); its figures are from those "
    .. "stages only, not from a complete run")
  -- the config asked for no summary: its absence says nothing
  os.remove(d .. "/summary_lifecycle_metrics.json")
  t.write(d .. "/config.yaml", "load:\n  type: constant\nreport:\n  request_lifecycle:\n    summary: false\n")
  local m = harness.extract(d)
  t.eq(m.partial, nil)
  t.eq(m.status, "ok")
end)

-- Item 11: analyze.lua given a relative workspace path wrote run_comparison.sh with that
-- relative path, which pointed nowhere from another folder.
t.test("11: analyze.lua RELATIVE writes absolute, quoted paths; the script runs from another folder", function()
  local tmp = proc.run({ "realpath", t.tmpdir() }).stdout:gsub("%s+$", "")
  local parent = tmp .. "/with space"
  local r = run { LLMDLUA, "compare.lua", "--a", V .. "/llm-d-1p1d", "--b", V .. "/vllm-2replicas", "--parent",
    parent, "--quiet" }
  t.ok(r.ok, r.stderr)
  local w = t.workspaces(parent)[1]
  local name = w:match("[^/]+$")
  r = run({ LLMDLUA, "analyze.lua", name, "--quiet" }, { cwd = parent })
  t.ok(r.ok, r.stderr)
  local script = t.read(w .. "/run_comparison.sh")
  -- the workspace named by its absolute path, in single quotes (it has a space); the script
  -- works on the folder it is in (wsfix: a copy's re-generated the original's report)
  t.ok(script:find("\n# Workspace: '" .. w .. "'\n", 1, true), script)
  t.ok(script:find("\n\"$LLMDLUA\" analyze.lua \"$COMPARISON_DIR\"\n", 1, true), script)
  t.ok(script:find("\nCOMPARISON_DIR=$(CDPATH='' cd -- \"$(dirname -- \"$0\")\" && pwd -P) ||\n", 1, true), script)
  t.ok(t.read(w .. "/comparison_report.md"):find("\nWorkspace: `" .. w .. "`\n", 1, true))
  -- run from / it re-generates that workspace's report
  r = run({ "sh", w .. "/run_comparison.sh" }, { cwd = "/", env = { LLMDLUA = LLMDLUA } })
  t.ok(r.ok, r.stderr)
  t.ok(r.stdout:find("Comparison report written to: " .. w .. "/comparison_report.md", 1, true), r.stdout)
end)

-- What a new user found in session 31 (a fresh clone, README only), compare.lua's side:
-- the GPU caveat beside every latency verdict, the total max sustained row's evidence by the
-- per-GPU row's rule, the banner of runs that differ only in their load ladders, identical
-- runs through every path, an SLO in the wrong unit, the cross-harness texts, --br's
-- percentiles, a sweep of two workloads in one folder, and the errors of --resume/--harness.
--
-- Expected values: /usr/bin/python3 (numpy) on the fixture files, each computation in a
-- comment beside its test; texts by hand from the numbers.
-- (Formerly test_newuser31.lua.)
do
  local decision = require "llmd.decision"
  local EXP7 = F .. "/vllm-benchmark/exp-7_H100"

  local find = t.contains

  t.test("nu31-8: one folder of two workloads: a data check and a banner, and no capacity interpolated across them",
    function()
    -- vllm-2replicas' files (3.6 req/s, total_input_tokens / completed = 1599800 / 200 = 7999.0,
    -- total_output_tokens 40000 / 200 = 200.0) beside vllm-3replicas' (5.5 req/s, 2499750 / 250 =
    -- 9999.0 and 25000 / 250 = 100.0): python3 on the files; 9999 is 25 % above 7999 (> 5 %)
    local dir = t.tmpdir() .. "/mixed"
    for _, c in ipairs { "vllm-2replicas", "vllm-3replicas" } do
      for f in require("lfs").dir(EXP7 .. "/" .. c) do
        if f:match("%.json$") then t.copy(EXP7 .. "/" .. c .. "/" .. f, dir .. "/" .. f) end
      end
    end
    local w, r = t.compare { "--a", dir, "--b", EXP7 .. "/llm-d-1p1d", "--slo", "ttft_p95_ms=300" }
    t.eq(r.code, 0, r.stderr)
    local md = t.read(w .. "/comparison_report.md")
    find(md, "> **Two workloads in one run.** In mixed, load points of one run sent different requests", "banner")
    find(md, "\n- mixed: load points of different requests (token lengths beyond the workload match's 5 %): point 1 "
      .. "(3.6 req/s offered, 3 repeats): 7999.0 input and 200.0 output tokens per request; point 2 (5.5 req/s offered, "
      .. "3 repeats): 9999.0 input and 100.0 output tokens per request; one folder holding two workloads?", "Data checks")
    local cj = json.read(w .. "/comparison.json")
    t.eq(cj.capacity.a.kind, "unknown")
    t.eq(cj.capacity.a.reason, "mixed's load points sent different requests (see the Data checks), so a capacity "
      .. "between them would mix two workloads")
    t.eq(cj.mixed_requests, { "mixed" })
    -- one workload's repeats (llm-d-1p1d alone): nothing said, its capacity read as before
    t.ok(cj.capacity.b.kind ~= "unknown", cj.capacity.b.kind)
    -- the same rule as the workload match (5 %): 2 % longer prompts at the second point are one workload
    local function run_i2(i2)
      return t.run_of { { rate = 1, values = { requests_ok = 100, input_tokens_total = 100000, output_tokens_total = 10000,
        throughput_req_s = 1 } }, { rate = 2, values = { requests_ok = 100, input_tokens_total = i2,
        output_tokens_total = 10000, throughput_req_s = 2 } } }
    end
    local near = run_i2(102000)
    near.warnings = {}
    decision.check_request_shapes(near)
    t.eq(near.warnings, {})
    local far = run_i2(106000)
    far.warnings = {}
    decision.check_request_shapes(far)
    t.eq(#far.warnings, 1)
    -- a handful of requests per point (guidellm's fixture: 2 each, 71.5 and 65.5 prompt tokens
    -- by guidellm's own means) says little of the mean: not flagged
    local few = harness.extract(F .. "/guidellm", {})
    for _, w8 in ipairs(few.warnings) do t.ok(not w8:find("different requests", 1, true), w8) end
  end)
end

-- NTPOT from inference-perf's summaries alone (no per-request file): its reportgen enters a
-- success with 0 output tokens as NTPOT 0, which pulls the mean down (main took that mean as
-- the catalogue's NTPOT, where the per-request path leaves such a request out). The summary's
-- NTPOT min says which files hold such a 0 (kubecon-na-2025_vllm: stages 2, 3, 6 and the
-- summary have min 0; the chunking run's files all have min > 0). Expected values by hand
-- (python): the mean without z zeros is mean x n / (n - z), 1 <= z <= floor((n - 1) q) + 1
-- where the q-th percentile is above 0.
local NTPOT_TAG = "may count 0-token requests as 0 (inference-perf's summary)"
t.test("summary-only inference-perf: an NTPOT mean with 0-token requests in it is N/A, bracketed", function()
  local r = harness.extract(KC)
  local o = r.overall
  t.eq(o.values.ntpot_mean_ms, nil, "main: 50.91 ms, the summary's mean with the zeros")
  -- summary: n 38717, mean 50.91185951844198 ms, p0.1 > 0: z <= floor(38716 x 0.001) + 1 = 39;
  -- 50.91185951844198 x 38717 / 38716 = 50.913, x 38717 / 38678 = 50.963
  t.ok(o.na.ntpot_mean_ms:find(NTPOT_TAG, 1, true), o.na.ntpot_mean_ms)
  -- (its bracket with the 3 decimals of the Load Curves cell that shows it, fixb44)
  t.ok(o.na.ntpot_mean_ms:find("without them (1 to 39, as its p0.1 is above 0) the mean is 50.913 to 50.963 ms", 1,
    true), o.na.ntpot_mean_ms)
  -- stage 2: n 3707, mean 11.004771 ms: z <= floor(3706 x 0.001) + 1 = 4; 11.0077 to 11.0167
  local s2 = r.stages[3]
  t.eq(s2.index, 2)
  t.eq(s2.metrics.values.ntpot_mean_ms, nil)
  t.ok(s2.metrics.na.ntpot_mean_ms:find("(1 to 4, as its p0.1 is above 0) the mean is 11.008 to 11.017 ms", 1,
    true), s2.metrics.na.ntpot_mean_ms)
  -- stage 1 (min 7.536 ms > 0): its mean is kept, and its source says why
  local s1 = r.stages[2].metrics
  t.near(s1.values.ntpot_mean_ms, 8.900488819633114, 1e-9)
  t.ok(s1.source.ntpot_mean_ms:find("no success without output tokens counted as 0", 1, true), s1.source.ntpot_mean_ms)
  -- the file has the statistic: no "stage lacks NTPOT" data check
  for _, w in ipairs(r.warnings or {}) do t.ok(not w:find("has no NTPOT", 1, true), w) end
  -- warm-up stage 0 left out: the stages combined cannot weigh an unknown mean; the reason is the
  -- last such stage's own (stage 6: n 11002, mean 67.224682 ms, z <= floor(11001 x 0.001) + 1 = 12;
  -- 67.2308 to 67.2981), not "does not record how many samples"
  local wu = harness.extract(KC, { warmup = { 0 } }).overall
  t.eq(wu.values.ntpot_mean_ms, nil)
  t.ok(wu.na.ntpot_mean_ms:find("stage 6's ntpot_mean_ms in stage_6_lifecycle_metrics.json is unknown: NTPOT "
    .. NTPOT_TAG, 1, true), wu.na.ntpot_mean_ms)
  t.ok(wu.na.ntpot_mean_ms:find("(1 to 12, as its p0.1 is above 0) the mean is 67.231 to 67.298 ms", 1, true),
    wu.na.ntpot_mean_ms)
end)

t.test("summary-only inference-perf: NTPOT min > 0 proves no 0 counted; no min cannot rule one out", function()
  local CH = F .. "/inference-perf/kubecon-na-2025_vllm_chunking_and_prefix_caching"
  local o = harness.extract(CH).overall
  -- the summary's own mean, 0.026059788051843315 s (its NTPOT min 7.267 ms, output_len min 3)
  t.near(o.values.ntpot_mean_ms, 26.059788051843315, 1e-9)
  t.ok(o.source.ntpot_mean_ms:find("its NTPOT min 7.267 ms > 0", 1, true), o.source.ntpot_mean_ms)
  -- a copy whose summary lost its NTPOT min (edited): a 0 cannot be ruled out
  local d = t.tmpdir() .. "/nomin"
  t.copy_tree(CH, d)
  local p = d .. "/summary_lifecycle_metrics.json"
  local doc = json.decode(t.read(p))
  doc.successes.latency.normalized_time_per_output_token.min = nil
  t.write(p, json.encode(doc))
  local n = harness.extract(d).overall
  t.eq(n.values.ntpot_mean_ms, nil)
  t.ok(n.na.ntpot_mean_ms:find(NTPOT_TAG .. ": the summary has no NTPOT min", 1, true), n.na.ntpot_mean_ms)
end)

-- NTPOT's percentiles (fixf44: an SLO may be set on them) by the same rule: each 0 is below every
-- real NTPOT, so without z zeros the summary's q-th percentile (numpy's linear) is its
-- percentile at level 100 (z + (n - z - 1) q / 100) / (n - 1). Stage 3 of kubecon-na-2025_vllm
-- (stage_3_lifecycle_metrics.json, by hand with python): n 5531, min 0, p0.1 9.149 ms > 0, so
-- 1 <= z <= floor(5530 x 0.001) + 1 = 6; levels 100 (1 + 5529 x 0.9) / 5530 = 90.0018 to
-- 100 (6 + 5524 x 0.9) / 5530 = 90.0108, which its p90 20.0366 ms and p95 21.9322 ms bound;
-- its p99.9 (38.98 ms): levels 99.90002 to 99.90011, p99.9 to max 175.75 ms. Stage 1 (min 7.536
-- ms > 0): its p90 9.7728 ms is the figure.
t.test("summary-only inference-perf: NTPOT percentiles with 0-token requests in them are N/A, bracketed", function()
  local r = harness.extract(KC)
  local s3 = r.stages[4].metrics
  t.eq(r.stages[4].index, 3)
  t.eq(s3.values.ntpot_p90_ms, nil)
  t.ok(s3.na.ntpot_p90_ms:find("NTPOT p90 " .. NTPOT_TAG, 1, true), s3.na.ntpot_p90_ms)
  t.ok(s3.na.ntpot_p90_ms:find("(1 to 6, as its p0.1 is above 0) NTPOT p90 is its percentile at a level from "
    .. "90.0018 to 90.0108: 20.04 to 21.93 ms (its p90 to its p95)", 1, true), s3.na.ntpot_p90_ms)
  t.near(s3.bounds.ntpot_p90_ms.lo, 20.0366, 1e-3)
  t.near(s3.bounds.ntpot_p90_ms.hi, 21.9322, 1e-3)
  t.ok(s3.na.ntpot_p999_ms:find("level from 99.9000 to 99.9001: 38.98 to 175.75 ms (its p99.9 to its max)", 1,
    true), s3.na.ntpot_p999_ms)
  local s1 = r.stages[2].metrics
  t.near(s1.values.ntpot_p90_ms, 9.7728, 1e-3)
  t.eq(s1.bounds and s1.bounds.ntpot_p90_ms, nil)
end)

-- A result file cut short, read by extract.lua, which writes no report: its error says where
-- --tolerant's warning goes in extract (newuser43: "with a warning in the report"), and it goes
-- there. The cut: the kubecon vLLM run's stage 2 file, its first 3000 bytes.
t.test("extract.lua: a truncated file's error says where --tolerant's warning goes, and it goes there", function()
  local d = t.tmpdir() .. "/kc"
  lfs.mkdir(d)
  local src = F .. "/inference-perf/kubecon-na-2025_vllm"
  for name in lfs.dir(src) do
    if name:match("%.json$") then t.write(d .. "/" .. name, t.read(src .. "/" .. name)) end
  end
  local file = d .. "/stage_2_lifecycle_metrics.json"
  t.write(file, t.read(file):sub(1, 3000))
  local cut = file .. ":1:3001: unexpected end of input in a string"
  local function way(where) return ("(--tolerant goes on without this file, with a warning %s)\n"):format(where) end
  local r = run { LLMDLUA, "extract.lua", d }
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: " .. cut .. " " .. way("under Warnings in extract.lua's output") })
  r = run { LLMDLUA, "extract.lua", d, "--json" }
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: " .. cut .. " " .. way("in the JSON's warnings") })
  local out = t.tmpdir()
  r = run { LLMDLUA, "extract.lua", d, "--br", "0.2", "--out", out }
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: " .. cut .. " " .. way("on stderr") })
  -- and with --tolerant, each where its error said
  r = run { LLMDLUA, "extract.lua", d, "--tolerant" }
  t.eq(r.code, 0, r.stderr)
  t.contains(r.stdout, "\nWarnings\n  - left out (--tolerant): " .. cut .. "\n")
  r = run { LLMDLUA, "extract.lua", d, "--tolerant", "--json" }
  t.eq(json.decode(r.stdout).warnings, { "left out (--tolerant): " .. cut })
  r = run { LLMDLUA, "extract.lua", d, "--tolerant", "--br", "0.2", "--out", out }
  t.eq(r.code, 0, r.stderr)
  t.contains(r.stderr, "warning: left out (--tolerant): " .. cut .. "\n")
end)

-- (newuser54 #4) Several broken result files were reported one at a time without --tolerant:
-- the first truncated one stopped the reading, so each fix met the next error. Now the rest is
-- read, and one error lists every file that cannot be read: missing from the numbered series,
-- empty, truncated (each its reader's line and column), in extract.lua, compare.lua and
-- treatments.lua alike; with --tolerant each is a warning, as before. The breakages are made
-- here on a copy of the kubecon vLLM run (7 stage files, 0-6): stage 1 removed, stage 3 empty,
-- stages 2 and 5 cut (their first 3000 and 200 bytes), the summary removed.
t.test("every broken result file is said in one error, by extract.lua, compare.lua and treatments.lua", function()
  local d = t.tmpdir() .. "/kc"
  lfs.mkdir(d)
  for name in lfs.dir(KC) do
    if name:match("%.json$") then t.write(d .. "/" .. name, t.read(KC .. "/" .. name)) end
  end
  local function p(i) return ("%s/stage_%d_lifecycle_metrics.json"):format(d, i) end
  os.remove(p(1))
  os.remove(d .. "/summary_lifecycle_metrics.json")
  t.write(p(3), "")
  t.write(p(2), t.read(p(2)):sub(1, 3000))
  t.write(p(5), t.read(p(5)):sub(1, 200))
  local function check(stderr, prefix, where)
    local lines = {}
    for l in stderr:gmatch("[^\n]+") do lines[#lines + 1] = l end
    t.eq(lines[1], ("%s%s: 4 inference-perf result files named like the others cannot be read (a load point or "
      .. "stage would be missing; --tolerant goes on without them, with a warning %s):"):format(prefix, d, where))
    t.eq(lines[2], "  " .. p(1) .. ": missing (stage files 0 to 6 are expected, a ladder row would be lost)")
    t.eq(lines[3], "  " .. p(3) .. ": empty")
    t.eq(lines[4], "  " .. p(2) .. ":1:3001: unexpected end of input in a string")
    t.ok(lines[5]:find("  " .. p(5) .. ":1:201: ", 1, true), lines[5])
    t.ok(lines[6]:find("^besides, a partial run: stages 1, 3 are missing"), lines[6])
    t.ok(lines[6]:find("summary_lifecycle_metrics.json", 1, true), lines[6])
    t.eq(#lines, 6, stderr)
  end
  local r = run { LLMDLUA, "extract.lua", d }
  t.eq(r.code, 1, r.stderr)
  check(r.stderr, "llmdlua: ", "under Warnings in extract.lua's output")
  local parent = t.tmpdir()
  r = run { LLMDLUA, "compare.lua", "--a", d, "--b", KC, "--parent", parent, "--quiet" }
  t.eq(r.code, 1, r.stderr)
  check(r.stderr, "llmdlua: ", "in the report")
  t.eq(t.workspaces(parent), {}, "nothing made")
  r = run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "x=" .. d, "--run", "y=" .. KC, "--out",
    t.tmpdir() .. "/tc", "--quiet" }
  t.eq(r.code, 1, r.stderr)
  check(r.stderr, "llmdlua: treatment x: ", "in the report")
  -- with --tolerant: each one a warning, the report made from the rest
  r = run { LLMDLUA, "extract.lua", d, "--tolerant", "--json" }
  t.eq(r.code, 0, r.stderr)
  local left = 0
  for _, w in ipairs(json.decode(r.stdout).warnings) do if w:find("^left out %(%-%-tolerant%)") then left = left + 1 end end
  t.eq(left, 4)
end)

-- two truncated vLLM benchmark files of a sweep: both said
t.test("vllm-benchmark: two truncated result files, one error naming both", function()
  local d = t.tmpdir() .. "/v"
  lfs.mkdir(d)
  local names = {}
  for name in lfs.dir(V .. "/vllm-2replicas") do if name:match("%.json$") then names[#names + 1] = name end end
  table.sort(names)
  for _, name in ipairs(names) do t.write(d .. "/" .. name, t.read(V .. "/vllm-2replicas/" .. name)) end
  -- (cut 5 bytes before their end: their first bytes still name them vLLM's, so the reading
  -- finds each; cut short of those, the detection already listed both, before this fix too)
  for _, n in ipairs { names[1], names[#names] } do
    local text = t.read(d .. "/" .. n)
    t.write(d .. "/" .. n, text:sub(1, #text - 5))
  end
  local r = run { LLMDLUA, "extract.lua", d }
  t.eq(r.code, 1, r.stderr)
  t.contains(r.stderr, ": 2 vllm-benchmark result files named like the others cannot be read")
  t.contains(r.stderr, "\n  " .. d .. "/" .. names[1] .. ":")
  t.contains(r.stderr, "\n  " .. d .. "/" .. names[#names] .. ":")
end)

-- Defects of the two-run comparison left by session 30 (the lead's cmpfix brief, session 31),
-- each reproduced: every test here fails without its fix. Expected values are worked by
-- hand or by python3 (numpy) on the fixture files, as said beside them.
-- (Formerly test_compare_fixes.lua.)
do
  local rm = require "llmd.runmodel"
  local EXP7 = F .. "/vllm-benchmark/exp-7_H100"
  local function py(script, ...)
    local r = proc.run { "/usr/bin/python3", "-c", script, ... }
    t.ok(r.ok, r.stderr)
    return r.stdout
  end

  -- Item 1: one "same results" rule. Two folders of vLLM summary files written by python3 from
  -- an exp-7 file (not by llmdlua), in folder:
  --   "int": two repeats with every number whole (each float of the file rounded; durations 50
  --     and 40 s, so that the rates llmdlua computes, 200 / 50 and 200 / 40, are whole too)
  --   "failed1", "failed2": one run each in which all 200 requests failed within a fixed 57 s
  --     (latencies and rates 0), on two dates: two runs, nothing measured, the same counts
  local MAKE = [[
import json, os, sys
src, out = sys.argv[1], sys.argv[2]
d = json.load(open(src))
os.makedirs(out + "/int")
for i, (dur, ttft) in enumerate([(50, 250), (40, 260)]):
    e = {k: (int(round(v)) if isinstance(v, float) else v) for k, v in d.items()}
    e.update(duration=dur, request_rate=4, request_throughput=200 // dur, output_throughput=40000 // dur,
             total_token_throughput=(1599800 + 40000) // dur, mean_ttft_ms=ttft)
    json.dump(e, open("%s/int/benchmark_%d.json" % (out, i), "w"))
for name, date in (("failed1", "20250513-043912"), ("failed2", "20250514-101010")):
    os.makedirs(out + "/" + name)
    e = dict(d, completed=0, failed=200, date=date, duration=57.0)
    for k in list(e):
        if k.endswith("_ms") or k.endswith("throughput"):
            e[k] = 0.0
    json.dump(e, open(out + "/" + name + "/benchmark.json", "w"))
]]
  local RESERIALISE = "import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], 'w'), indent=2)"

  local function synthetic()
    local tmp = t.tmpdir()
    py(MAKE, EXP7 .. "/llm-d-1p1d/benchmark_2025-05-13_04-37-51.json", tmp)
    -- the all-integer run re-serialised (other bytes, the same numbers) and copied byte for byte
    t.mkdir(tmp .. "/int-reser")
    for _, n in ipairs { "benchmark_0.json", "benchmark_1.json" } do
      py(RESERIALISE, tmp .. "/int/" .. n, tmp .. "/int-reser/" .. n)
      t.ok(t.read(tmp .. "/int/" .. n) ~= t.read(tmp .. "/int-reser/" .. n), "the copy's bytes differ")
    end
    t.copy_tree(tmp .. "/int", tmp .. "/int-copy")
    return tmp
  end

  t.test("1: the figures read from the all-integer files are all whole numbers (what the old rule missed)", function()
    local tmp = synthetic()
    local int_run = harness.extract(tmp .. "/int")
    t.eq(#int_run.stages, 2)
    for _, st in ipairs(int_run.stages) do
      for k, v in pairs(st.metrics.values) do t.ok(v == math.floor(v), k .. " = " .. tostring(v)) end
    end
  end)

  t.test("1: one same-results rule: copies (bytes, re-serialised, all-integer) caught, different runs never", function()
    local tmp = synthetic()
    local function ex(d) return harness.extract(d) end
    -- copies: byte for byte and re-serialised, whole numbers only
    t.eq(rm.same_figures(ex(tmp .. "/int"), ex(tmp .. "/int-reser")), true)
    t.eq(rm.same_figures(ex(tmp .. "/int"), ex(tmp .. "/int-copy")), true)
    -- real copies (fractional figures) too: an exp-7 folder and its copy
    t.copy_tree(EXP7 .. "/llm-d-1p1d", tmp .. "/real-copy")
    t.eq(rm.same_figures(ex(EXP7 .. "/llm-d-1p1d"), ex(tmp .. "/real-copy")), true)
    -- two runs in which every request failed: the same counts (the workload's) and the same
    -- fixed duration, but nothing measured: never the same results by their figures
    t.eq(rm.same_figures(ex(tmp .. "/failed1"), ex(tmp .. "/failed2")), false)
    -- two different real runs, and the two repeats of the all-integer run against each other
    t.eq(rm.same_figures(ex(EXP7 .. "/llm-d-1p1d"), ex(EXP7 .. "/vllm-2replicas")), false)
    -- same_files: {rel, path} pairs in any order; a differing byte or name is not the same
    local function files(d)
      local out = {}
      for n in lfs.dir(d) do
        if n:match("%.json$") then table.insert(out, 1, { rel = n, path = d .. "/" .. n }) end
      end
      return out
    end
    t.eq(rm.same_files(files(tmp .. "/int"), files(tmp .. "/int-copy")), true)
    t.eq(rm.same_files(files(tmp .. "/int"), files(tmp .. "/int-reser")), false)
    t.eq(rm.same_files({}, {}), false)
    local swapped = files(tmp .. "/int-copy")
    swapped[1].rel, swapped[2].rel = swapped[2].rel, swapped[1].rel
    t.eq(rm.same_files(files(tmp .. "/int"), swapped), false)
  end)

  t.test("1: compare.lua and treatments.lua: the all-integer copy caught by both, the all-failed runs by neither",
    function()
    local tmp = synthetic()
    local int, reser, copy = tmp .. "/int", tmp .. "/int-reser", tmp .. "/int-copy"
    -- compare.lua: the re-serialised all-integer copy is the same results (it was compared
    -- silently: the old rule asked for a value that is not a whole number)
    local w, r = t.compare { "--a", int, "--b", reser, "--a-label", "x", "--b-label", "y" }
    t.ok(r.ok, r.stderr)
    t.ok(r.stderr:find(("compare.lua: warning: %s (x) and %s (y) hold the same results (the files differ"):format(int,
      reser), 1, true), r.stderr)
    t.ok(json.read(w .. "/comparison.json").identical, "comparison.json says it")
    -- the byte-for-byte copy: the same files
    r = select(2, t.compare { "--a", int, "--b", copy, "--a-label", "x", "--b-label", "y" })
    t.ok(r.stderr:find("the two runs' results are identical (same files)", 1, true), r.stderr)
    -- the two all-failed runs: no warning
    w, r = t.compare { "--a", tmp .. "/failed1", "--b", tmp .. "/failed2", "--a-label", "x", "--b-label", "y" }
    t.ok(r.ok, r.stderr)
    t.ok(not r.stderr:find("same results", 1, true) and not r.stderr:find("identical", 1, true), r.stderr)
    t.eq(json.read(w .. "/comparison.json").identical, false)
    -- treatments.lua: the same, by the same rule
    local n = 0
    local function tr(args)
      n = n + 1
      local argv = { LLMDLUA, "treatments.lua", "--out", tmp .. "/tr" .. n, "--quiet" }
      for _, a in ipairs(args) do argv[#argv + 1] = a end
      return proc.run(argv)
    end
    for _, c in ipairs { { reser, "the files differ, but every figure their harness recorded at every load point is equal to the "
        .. "last digit: the same requests, saved twice" },
      { copy, "the same files, byte for byte" } } do
      r = tr { "--run", "x=" .. int, "--run", "y=" .. c[1] }
      t.ok(r.ok, r.stderr)
      t.ok(r.stderr:find(("treatments.lua: warning: treatments x and y hold the same results (%s and %s: %s)"):format(
        int, c[1], c[2]), 1, true), r.stderr)
    end
    -- two all-failed runs, as two treatments: no warning (the old rule of treatments.lua said
    -- they were one run: any figures equal counted); as two repeats of one treatment, read
    -- (the old rule refused them as a copy)
    r = tr { "--run", "x=" .. tmp .. "/failed1", "--run", "y=" .. tmp .. "/failed2" }
    t.ok(r.ok, r.stderr)
    t.ok(not r.stderr:find("same results", 1, true), r.stderr)
    r = tr { "--run", "x=" .. tmp .. "/failed1", "--run", "x=" .. tmp .. "/failed2", "--run", "y=" .. int }
    t.ok(not r.stderr:find("one run copied", 1, true), r.stderr)
    -- a byte copy of an all-failed run is still caught, by its bytes
    t.copy_tree(tmp .. "/failed1", tmp .. "/failed1-copy")
    r = tr { "--run", "x=" .. tmp .. "/failed1", "--run", "y=" .. tmp .. "/failed1-copy" }
    t.ok(r.stderr:find("the same files, byte for byte", 1, true), r.stderr)
  end)
end

-- A vllm-benchmark file read from its summary (no latencies, or per-request arrays of
-- different lengths) still has its `errors` array: the failures' causes are read from it when
-- it is whole, else the reason no cause is known is the file's own, never "run without
-- --save-detailed" (fixj45). The fixture: 8 prompts, 7 completed, 1 failed; its errors[6]
-- (1-based) a traceback ending in aiohttp's ClientResponseError 503 (python3 over the file).
t.test("vllm-benchmark from its summary: the errors array's causes where whole, else the real reason", function()
  local function variant(edit)
    local d = json.read(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json")
    edit(d)
    local dir = t.tmpdir()
    t.write(dir .. "/result.json", t.vllm_text(d))
    return harness.extract(dir)
  end
  -- no latencies (nor itls): the summary's figures, the 503 from the errors array
  local r = variant(function(d) d.latencies, d.itls = nil, nil end)
  t.eq(#r.errors, 1)
  t.eq({ r.errors[1].status, r.errors[1].count }, { 503, 1 })
  t.eq(r.stages[1].failure_kinds, { timeout = 0, error = 1, unknown = 0 })
  -- arrays of different lengths (ttfts one short), the errors array whole: its cause still
  r = variant(function(d) d.ttfts[8] = nil end)
  t.eq({ r.errors[1].status, r.errors[1].count }, { 503, 1 })
  -- the errors array cut before the failure (4 entries, none failed): no cause, and why
  r = variant(function(d) for i = 5, 8 do d.errors[i] = nil end end)
  t.eq(#r.errors, 1)
  t.eq(r.errors[1].cause, "cause not recorded (the file's errors array names fewer or more failed requests than its "
    .. "summary; its per-request arrays have different lengths)")
  t.eq(r.stages[1].failure_kinds, { timeout = 0, error = 0, unknown = 1 })
end)
