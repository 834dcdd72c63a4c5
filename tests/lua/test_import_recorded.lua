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
  t.eq(rows.Results.a, ("%s/run-a (configuration from %s/run-a/run_state.json; --a-info %s stated over it: "
    .. "model Qwen/Qwen3-8B (recorded: Qwen/Qwen3-0.6B))"):format(w, w, info))
  t.eq(json.read(ws .. "/comparison.json").a.label, "vllm-service")
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
