-- Importing a run llmdlua benchmarked before (its workspace's run-x/results, or the run
-- folder run-x itself, beside run-x/run_state.json): its recorded configuration is read,
-- under what --a-info / runs.x.info states, and said; a run_state.json of another shape is
-- one warning line, not a crash. The records are written by hand here in the shape
-- llmd.workspace writes (label, timestamp, stack, benchmark), so the expected rows are the
-- values written.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local ROOT = t.root()
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local TREAT = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

-- an earlier comparison's workspace: run-a (a plain vLLM baseline) and run-b (llm-d), each
-- its results/ and the run_state.json compare.lua --plan wrote; returns its path
local function earlier_workspace()
  local d = proc.realpath(t.tmpdir())
  local w = d .. "/llm-d-comparison-20261201-100000"
  for x, r in pairs { a = { BASE, "vllm-service", "none (baseline Service)", "ghcr.io/vllm/vllm:v0.11" },
    b = { TREAT, "llm-d-prefix-aware", "Gateway infra-try-inference-gateway", "ghcr.io/llm-d/llm-d-cuda:v0.4.0" } } do
    t.mkdir(w .. "/run-" .. x)
    t.copy_tree(r[1], w .. "/run-" .. x .. "/results")
    json.write(w .. "/run-" .. x .. "/run_state.json", {
      label = r[2], timestamp = "2026-12-01T10:00:00Z", baseline = x == "a",
      stack = { guide = "/guides/" .. x, namespace = "llm-d-try", hardware = "8x H100", gateway = r[3],
        model = "Qwen/Qwen3-0.6B", llmd_version = "unknown", decode_image = r[4], gpus = "unknown" },
      benchmark = { harness = "inference-perf", workload = "sanity_random", load_stages = "unknown" },
      results_path = w .. "/run-" .. x .. "/results", commands = { "run_only.sh -c config.yaml" },
    })
  end
  return w
end

-- the Configuration Summary rows of comparison.json, by label
local function config(ws)
  local out = {}
  for _, r in ipairs(json.read(ws .. "/comparison.json").config) do out[r.label] = r end
  return out
end

-- (newuser48 F4) `--a WS/run-a/results --b WS/run-b/results` was refused ("both runs are
-- labelled 'results'"), and an import showed model, guide, hardware, gateway, namespace as
-- "unknown" with "like for like not verified" while run_state.json sat beside the results.
t.test("an imported llmdlua run keeps its recorded configuration and label, and the report says where from", function()
  local w = earlier_workspace()
  local ws, r = t.compare { "--a", w .. "/run-a/results", "--b", w .. "/run-b/results" }
  t.eq(r.code, 0, r.stderr)
  local cj = json.read(ws .. "/comparison.json")
  t.eq(cj.a.label, "vllm-service")
  t.eq(cj.b.label, "llm-d-prefix-aware")
  local rows = config(ws)
  t.eq(rows.Guide.a, "/guides/a")
  t.eq(rows.Guide.b, "/guides/b")
  t.eq(rows.Gateway.a, "none (baseline Service)")
  t.eq(rows.Namespace.b, "llm-d-try")
  t.eq(rows.Hardware.a, "8x H100")
  t.eq(rows["Decode image"].a, "ghcr.io/vllm/vllm:v0.11")
  t.ok(tostring(rows.Model.a):find("Qwen/Qwen3-0.6B", 1, true), tostring(rows.Model.a))
  t.eq(rows.Results.a, ("%s/run-a/results (configuration from %s/run-a/run_state.json)"):format(w, w))
  t.eq(rows.Results.b, ("%s/run-b/results (configuration from %s/run-b/run_state.json)"):format(w, w))
  local md = t.read(ws .. "/comparison_report.md")
  t.lacks(md, "like for like not verified")
  t.contains(t.read(ws .. "/run_comparison.sh"), "\n# configuration from " .. w .. "/run-a/run_state.json\n")
end)

t.test("an imported run folder: --a-info stated over the record, and which won is said", function()
  local w = earlier_workspace()
  local info = t.tmpdir() .. "/a-info.yaml"
  t.write(info, "model: Qwen/Qwen3-8B\ngpus: 2\n")
  local ws, r = t.compare { "--a", w .. "/run-a", "--b", w .. "/run-b", "--a-info", info }
  t.eq(r.code, 0, r.stderr)
  local rows = config(ws)
  t.ok(tostring(rows.Model.a):find("Qwen/Qwen3-8B", 1, true), tostring(rows.Model.a))
  t.eq(rows.Guide.a, "/guides/a", "the rest of the record kept")
  -- (the run folder is read as its results/ since fixc51: the row names what was read)
  t.eq(rows.Results.a, ("%s/run-a/results (configuration from %s/run-a/run_state.json; --a-info %s stated over it: "
    .. "model Qwen/Qwen3-8B (recorded: Qwen/Qwen3-0.6B))"):format(w, w, info))
  t.eq(json.read(ws .. "/comparison.json").a.label, "vllm-service")
end)

-- (fixc51, newuser50c N5) A run folder given as --a (run_state.json and results/ in it) was read
-- whole: an experiment's cell holds benchmark reports made from its results beside them, and
-- compare.lua said "holds results of 2 harness runs". It is read as its results/ (README: "that
-- run folder run-x/ itself"), whatever else lies beside them. And a record whose load stages
-- are "unknown (why)" (a --plan run whose benchmark config gave none) shows the stages the
-- results hold, as a plain "unknown" does. Expected stages: the fixture's stage files'
-- load_summary.requested_rate, read with python3 (1, 31.4, 61.79, 92.19, 122.59, 152.98, 183.38).
t.test("a run folder is read as its results/ beside its own files; an 'unknown (why)' of the stages reads them",
  function()
  local w = earlier_workspace()
  -- beside run A's results: a second harness run's files (as an experiment cell's reports are)
  t.copy_tree(TREAT, w .. "/run-a/benchmark_report")
  local p = w .. "/run-a/run_state.json"
  local st = json.read(p)
  st.benchmark.load_stages = "unknown (not stated in the plan's benchmark.load_stages, and the benchmark config "
    .. "run-a/benchmark/config.yaml gives no load stages with a rate each for its workload sanity_random)"
  json.write(p, st)
  local ws, r = t.compare { "--a", w .. "/run-a", "--b", w .. "/run-b/" }
  t.eq(r.code, 0, r.stderr)
  t.lacks(r.stderr, "harness runs")
  local rows = config(ws)
  t.eq(rows["Load stages"].a, "7 stages: 1/s, 31.4/s, 61.79/s, 92.19/s, 122.59/s, 152.98/s, 183.38/s")
  t.eq(rows.Results.b, ("%s/run-b/results (configuration from %s/run-b/run_state.json)"):format(w, w))
  -- the copy holds the results alone: not the run folder's record, nor the files beside it
  t.ok(require("lfs").attributes(ws .. "/run-a/results/stage_0_lifecycle_metrics.json"), "results copied")
  t.ok(not require("lfs").attributes(ws .. "/run-a/results/benchmark_report"), "not the reports beside them")
  t.ok(not require("lfs").attributes(ws .. "/run-a/results/run_state.json"), "not the record")
  -- the record's "unknown (why)" is not taken as stated stages into the new record
  t.eq(json.read(ws .. "/run-a/run_state.json").benchmark.load_stages, "unknown")
end)

-- (fixc51) A --plan run's run_state.json said benchmark.load_stages "unknown" though its
-- rendered benchmark config names them: llmd.cluster.config_load_stages reads them (in the
-- words the report reads the results' stages with), else says why they are unknown. Expected
-- texts by hand from the configs written here.
t.test("a plan run's load stages: from its benchmark config, else unknown with why", function()
  local cluster = require "llmd.cluster"
  local d = t.tmpdir()
  local head = "unknown (not stated in the plan's benchmark.load_stages, and "
  t.eq(cluster.config_load_stages(d, "a", "w1"), head .. "no benchmark config: the run stopped before step 60 "
    .. "rendered it)")
  t.mkdir(d .. "/benchmark")
  local cfg = d .. "/benchmark/config.yaml"
  t.write(cfg, "workload:\n  w1:\n    load: {type: constant, stages: [{rate: 1, duration: 30}, {rate: 2.5, "
    .. "duration: 30}, {rate: 1, duration: 30}]}\n")
  t.eq(cluster.config_load_stages(d, "a", "w1"), "3 stages (2 load points, repeated): 1/s ×2, 2.5/s "
    .. "(read from the benchmark config)")
  t.write(cfg, "workload:\n  w1:\n    load: {type: concurrent, stages: [{concurrency_level: 4, num_requests: 50}]}\n")
  t.eq(cluster.config_load_stages(d, "b", "w1"), head .. "the benchmark config run-b/benchmark/config.yaml gives no "
    .. "load stages with a rate each for its workload w1)")
  t.write(cfg, "workload:\n  w1:\n    load: {stages: [{rate: 1}]}\n  w2:\n    load: {stages: [{rate: 2}]}\n")
  t.eq(cluster.config_load_stages(d, "a", "w1, w2"), head .. "the benchmark config run-a/benchmark/config.yaml gives "
    .. "no load stages with a rate each for one workload (it runs several))")
  t.write(cfg, "workload: [unclosed\n")
  t.ok(cluster.config_load_stages(d, "a", "w1"):find("^" .. head:gsub("%p", "%%%0") .. "the benchmark config "
    .. "run%-a/benchmark/config%.yaml cannot be read: .+%)$"), cluster.config_load_stages(d, "a", "w1"))
  -- such a record's stages are not taken as stated by a later import (as "unknown" is not)
  local ws = require "llmd.workspace"
  local merged = ws.merge_recorded(nil, { stack = {}, benchmark = { load_stages = head .. "...)",
    workload = "w1" } })
  t.eq(merged.benchmark, { workload = "w1" })
end)

t.test("a run_state.json of another shape is one warning line; the run is labelled by its run folder", function()
  local w = earlier_workspace()
  t.write(w .. "/run-a/run_state.json", "not json\n")
  t.write(w .. "/run-b/run_state.json", '{"version": 7, "runs": []}\n')
  local ws, r = t.compare { "--a", w .. "/run-a/results", "--b", w .. "/run-b/results" }
  t.eq(r.code, 0, r.stderr)
  local warn = {}
  for l in r.stderr:gmatch("[^\n]+") do if l:find("run_state.json", 1, true) then warn[#warn + 1] = l end end
  table.sort(warn)
  t.eq(warn, {
    "warning: " .. w .. "/run-a/run_state.json: not read (not JSON: at 1:1: invalid literal, expected 'null'): run A's "
      .. "configuration is what is stated of it, else unknown",
    "warning: " .. w .. "/run-b/run_state.json: not read (not the shape llmdlua writes (a mapping with label, stack "
      .. "and benchmark)): run B's configuration is what is stated of it, else unknown" })
  local cj = json.read(ws .. "/comparison.json")
  t.eq(cj.a.label, "run-a")
  t.eq(cj.b.label, "run-b")
  t.eq(config(ws).Results.a, w .. "/run-a/results")
end)

-- (fixc49) An imported run llmdlua benchmarked lost what else its run_state.json records: the
-- SLO it was held to (slo:, as compare.lua --plan writes the plan's), whether it was a
-- baseline run, and the commands its comparison ran (run_comparison.sh said "No commands
-- recorded for this run"). Expected: the values written into the records above.
local function with_slo(w, slo)
  for _, x in ipairs { "a", "b" } do
    local p = w .. "/run-" .. x .. "/run_state.json"
    local st = json.read(p)
    st.slo = slo
    st.commands = { "helm upgrade --install ms-" .. x .. " llm-d-modelservice/llm-d-modelservice -n llm-d-try",
      "run_only.sh -c " .. w .. "/run-" .. x .. "/benchmark/config.yaml" }
    json.write(p, st)
  end
end

t.test("an imported llmdlua run keeps its recorded SLO, baseline flag and commands, said as the original run's",
  function()
  local w = earlier_workspace()
  with_slo(w, { ttft_p90_ms = 200 })
  local ws, r = t.compare { "--a", w .. "/run-a/results", "--b", w .. "/run-b/results" }
  t.eq(r.code, 0, r.stderr)
  local sa, sb = json.read(ws .. "/run-a/run_state.json"), json.read(ws .. "/run-b/run_state.json")
  t.eq(sa.slo, { ttft_p90_ms = 200 })
  t.eq(sa.baseline, true)
  t.eq(sb.baseline, false)
  -- the report applies it (goodput counted against it)
  t.eq(sa.goodput_slo, "TTFT p90 ≤ 200.0 ms")
  t.contains(t.read(ws .. "/comparison_report.md"), "TTFT p90 ≤ 200.0 ms")
  local sh = t.read(ws .. "/run_comparison.sh")
  t.lacks(sh, "No commands recorded")
  t.contains(sh, "# Commands of the original run, as its own comparison ran them (recorded in\n#   " .. w
    .. "/run-a/run_state.json\n")
  t.contains(sh, "\n# helm upgrade --install ms-a llm-d-modelservice/llm-d-modelservice -n llm-d-try\n# run_only.sh -c "
    .. w .. "/run-a/benchmark/config.yaml\n")
end)

-- (fixo50, audit50 M3) A's recorded SLO, B's record none: the one SLO a comparison applies is
-- A's, to both runs (README: the record's slo: is the run's SLO where nothing states one;
-- comparison.resolve_slo: one SLO for both), and the report says where it came from.
t.test("a recorded SLO of one run applied to both: the report says whose record it came from", function()
  local w = earlier_workspace()
  with_slo(w, { ttft_p90_ms = 200 })
  local pb = w .. "/run-b/run_state.json"
  local st = json.read(pb)
  st.slo = nil
  json.write(pb, st)
  local ws, r = t.compare { "--a", w .. "/run-a", "--b", w .. "/run-b" }
  t.eq(r.code, 0, r.stderr)
  local cj = json.read(ws .. "/comparison.json")
  local want = ("from %s's record (%s/run-a/run_state.json); %s's states none, so it is applied to both runs")
    :format(cj.a.label, w, cj.b.label)
  t.eq(cj.slo_source, want)
  t.contains(t.read(ws .. "/comparison_report.md"), "SLO: TTFT p90 ≤ 200.0 ms (" .. want .. "). ")
  t.contains(t.read(ws .. "/comparison_report.html"), (want:gsub("'", "&#39;")))
  -- both records state it: both named
  with_slo(w, { ttft_p90_ms = 200 })
  ws, r = t.compare { "--a", w .. "/run-a", "--b", w .. "/run-b" }
  t.eq(r.code, 0, r.stderr)
  cj = json.read(ws .. "/comparison.json")
  t.eq(cj.slo_source, ("from %s's record (%s/run-a/run_state.json) and %s's record (%s/run-b/run_state.json), which "
    .. "state the same"):format(cj.a.label, w, cj.b.label, w))
  -- --slo: the user's, nothing recorded to name
  ws, r = t.compare { "--a", w .. "/run-a", "--b", w .. "/run-b", "--slo", "ttft_p90_ms=500" }
  t.eq(r.code, 0, r.stderr)
  t.eq(json.read(ws .. "/comparison.json").slo_source, nil)
end)

t.test("stated over the record: --slo wins over a recorded SLO, and an --a-info slo: too; each said", function()
  local w = earlier_workspace()
  with_slo(w, { ttft_p90_ms = 200 })
  local ws, r = t.compare { "--a", w .. "/run-a", "--b", w .. "/run-b", "--slo", "ttft_p90_ms=500" }
  t.eq(r.code, 0, r.stderr)
  t.eq(json.read(ws .. "/run-a/run_state.json").goodput_slo, "TTFT p90 ≤ 500.0 ms")
  t.contains(r.stderr, "--slo replaced the slo: of vllm-service's record, " .. w
    .. "/run-a/run_state.json (TTFT p90 ≤ 200.0 ms): this report applies TTFT p90 ≤ 500.0 ms to both runs")
  local info = t.tmpdir() .. "/a-info.yaml"
  t.write(info, "slo: {ttft_p90_ms: 300}\n")
  local info_b = t.tmpdir() .. "/b-info.yaml"
  t.write(info_b, "slo: {ttft_p90_ms: 300}\n")
  ws, r = t.compare { "--a", w .. "/run-a", "--b", w .. "/run-b", "--a-info", info, "--b-info", info_b }
  t.eq(r.code, 0, r.stderr)
  t.eq(json.read(ws .. "/run-a/run_state.json").goodput_slo, "TTFT p90 ≤ 300.0 ms")
  t.eq(config(ws).Results.a, ("%s/run-a/results (configuration from %s/run-a/run_state.json; --a-info %s stated over "
    .. "it: slo TTFT p90 ≤ 300.0 ms (recorded: TTFT p90 ≤ 200.0 ms))"):format(w, w, info))
end)

-- (newuser54 #1) Runs made on the fake cluster (run_state.json's simulated: its nodes say so)
-- lost their warning once imported again: `compare.lua --a W/run-a --b W/run-b` (or
-- run-a/results) wrote a report with no "simulated" and comparison.json "simulated": false,
-- and treatments.lua --run likewise. Every way the results enter a report keeps the mark: the
-- run folder, its results/, a folder inside results/ (the nearest run_state.json above it),
-- analyze.lua of the new workspace, treatments.lua --run. The expected text is
-- llmd.report.simulated_text's wording (test_cluster's, for runs the fake deployed) with this
-- record's node text and label.
t.test("an imported run made on a simulated cluster keeps the mark, by every way it is given", function()
  local w = earlier_workspace()
  local node = "node gpu-node-1 labelled llmdlua.dev/simulated=true"
  local st = json.read(w .. "/run-a/run_state.json")
  st.simulated = node
  json.write(w .. "/run-a/run_state.json", st)
  -- results in a folder inside results/: --a names that folder
  local deep = w .. "/run-a/results"
  local want = "run A (vllm-service) ran on a simulated cluster (llmdlua's fake one, whose benchmarks replay "
    .. "recorded result files: " .. node .. "): its figures are those files', not measurements of the "
    .. "configuration named here"
  for _, a in ipairs { w .. "/run-a", w .. "/run-a/results" } do
    local ws, r = t.compare { "--a", a, "--b", w .. "/run-b", "--a-label", "vllm-service" }
    t.eq(r.code, 0, r.stderr)
    local cj = json.read(ws .. "/comparison.json")
    t.eq(cj.simulated, want, a)
    t.ok(cj.verdict.text:find("^Simulated cluster, not a measurement"), cj.verdict.text)
    t.contains(t.read(ws .. "/comparison_report.md"), want)
    t.eq(json.read(ws .. "/run-a/run_state.json").simulated, node, "recorded in the new workspace")
    t.eq(json.read(ws .. "/run-b/run_state.json").simulated, nil, "run B was not simulated")
    -- analyze.lua of the new workspace keeps it (its run_state.json records it)
    r = proc.run { ROOT .. "/llmdlua", "analyze.lua", ws, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    t.eq(json.read(ws .. "/comparison.json").simulated, want, "analyze.lua " .. a)
  end
  -- a folder inside results/ (the stage files moved one level down)
  t.mkdir(deep .. "/sub")
  for f in require("lfs").dir(deep) do
    if f:match("%.json$") then os.rename(deep .. "/" .. f, deep .. "/sub/" .. f) end
  end
  local ws, r = t.compare { "--a", deep .. "/sub", "--b", w .. "/run-b", "--a-label", "vllm-service" }
  t.eq(r.code, 0, r.stderr)
  t.eq(json.read(ws .. "/comparison.json").simulated, want, "a folder inside results/")
  -- treatments.lua --run: the treatment's folder is marked likewise
  local out = t.tmpdir() .. "/tc"
  r = proc.run { ROOT .. "/llmdlua", ROOT .. "/lua/treatments.lua", "--run", "sim=" .. deep .. "/sub",
    "--run", "real=" .. w .. "/run-b/results", "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  local tj = json.read(out .. "/treatments.json")
  t.eq(tj.simulated, "1 of the treatments (sim) ran on a simulated cluster (llmdlua's fake one, whose benchmarks "
    .. "replay recorded result files: " .. node .. "): their figures are those files', not measurements of the "
    .. "treatments named here")
  t.contains(t.read(out .. "/treatment_report.md"), "Simulated cluster, not a measurement")
end)
