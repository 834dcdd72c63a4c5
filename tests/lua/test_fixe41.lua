-- fixe41: findings of the new-user trial of session 41. Expected values by hand, as written
-- beside each.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local F = t.fixtures()
local LLMDLUA = t.here() .. "/../../llmdlua"
local KUBECON = F .. "/inference-perf/kubecon-na-2025_vllm"

-- The kubecon demo's results with summary_prometheus_metrics.json cut to its first 100
-- bytes: its one line ends inside a string (the 100 bytes hold no newline, checked with
-- head -c 100), so the JSON reader stops at line 1, column 101.
local function truncated_kubecon()
  local d = t.tmpdir() .. "/kc"
  t.copy_tree(KUBECON, d)
  local p = d .. "/summary_prometheus_metrics.json"
  t.write(p, t.read(p):sub(1, 100))
  return d
end

-- A malformed *_prometheus_metrics.json was read as zeros ("are 0 in every file", exit 0):
-- it is an error naming it with its position, or with --tolerant left out with a warning
t.test("extract.lua: a truncated *_prometheus_metrics.json is an error, never zeros", function()
  local d = truncated_kubecon()
  local r = proc.run { LLMDLUA, "extract.lua", d, "--json" }
  t.eq(r.code, 1, r.stderr)
  t.ok(r.stderr:find(d .. "/summary_prometheus_metrics.json:1:101: ", 1, true), r.stderr)
  t.ok(r.stderr:find("--tolerant", 1, true), r.stderr)
  t.ok(not r.stderr:find("traceback", 1, true), r.stderr)
  r = proc.run { LLMDLUA, "extract.lua", d, "--json", "--tolerant" }
  t.eq(r.code, 0, r.stderr)
  local run = json.decode(r.stdout)
  local left
  for _, w in ipairs(run.warnings) do
    if w:find("left out (--tolerant): " .. d .. "/summary_prometheus_metrics.json:1:101", 1, true) then left = w end
  end
  t.ok(left, table.concat(run.warnings, "\n"))
  -- the 7 stage files read all hold 0.0 for both means (python3 json: stage_0..6)
  local why = run.overall.prefix_cache_hits.unknown
  t.ok(why:find("8 *_prometheus_metrics.json files in the results", 1, true), why)
  t.ok(why:find("(1 left out, --tolerant: unreadable, see Data checks)", 1, true), why)
  t.ok(why:find("are 0 in every file read,", 1, true), why)
end)

t.test("compare.lua: a truncated *_prometheus_metrics.json fails the comparison; --tolerant says it in a banner",
  function()
  local d = truncated_kubecon()
  local w, r = t.compare { "--a", d, "--b", KUBECON }
  t.eq(r.code, 1, r.stderr)
  t.ok(r.stderr:find(d .. "/summary_prometheus_metrics.json:1:101: ", 1, true), r.stderr)
  t.eq(w, nil, "the failed comparison's workspace is removed")
  w, r = t.compare { "--a", d, "--b", KUBECON, "--tolerant" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(w .. "/comparison_report.md")
  t.ok(md:find("**Result files left out (--tolerant).** kc (A): " .. d .. "/summary_prometheus_metrics.json:1:101",
    1, true), md:sub(1, 2000))
  -- (A's KV reason counts the files read only; B's, the intact demo, all 8)
  t.ok(md:find("(1 left out, --tolerant: unreadable, see Data checks), and their prefix_cache_hit_percent and "
    .. "kv_cache_usage_percentage are 0 in every file read", 1, true), md)
end)

-- A file that reads but holds neither mean is no file of zeros
t.test("kvcache: *_prometheus_metrics.json without the cache means is not said to hold 0", function()
  local d = t.tmpdir()
  t.copy(KUBECON .. "/stage_0_lifecycle_metrics.json", d .. "/stage_0_lifecycle_metrics.json")
  local p = json.read(KUBECON .. "/stage_0_prometheus_metrics.json")
  p.successes.prefix_cache_hit_percent, p.successes.kv_cache_usage_percentage = nil, nil
  json.write(d .. "/stage_0_prometheus_metrics.json", p)
  local r = proc.run { LLMDLUA, "extract.lua", d, "--json" }
  t.eq(r.code, 0, r.stderr)
  local why = json.decode(r.stdout).overall.prefix_cache_hits.unknown
  t.ok(not why:find("are 0 in every file", 1, true), why)
  t.ok(why:find("none of them holds a prefix_cache_hit_percent mean", 1, true), why)
end)

-- The audit of the other pcalls: a workspace file that is not YAML/JSON is its reader's
-- error, not "no stage check" / "GPUs unknown" / a script without its deploy lines
t.test("malformed workspace records raise with their position", function()
  local d = t.tmpdir()
  local cfg = d .. "/config.yaml"
  t.write(cfg, "workload:\n  a: [1, 2\n")
  t.raises(cfg .. ":", require("llmd.comparison").config_stages, cfg, {})
  t.eq(require("llmd.comparison").config_stages(d .. "/none.yaml", {}), nil)
  t.raises(cfg .. ":", require("llmd.treatments").setup_gpus, cfg)
  t.eq(require("llmd.treatments").setup_gpus(d .. "/none.yaml"), nil)
  t.mkdir(d .. "/run-a")
  t.write(d .. "/run-a/deployed.json", '{"commands": ["helm')
  t.raises(d .. "/run-a/deployed.json:1:", require("llmd.comparison").script_records, { path = d })
end)

-- The README's fake-cluster try/ setup (tests/fakecluster): a guide, the one-stage
-- sanity_random template, the plan of two identical runs; {dir, env}. context: the
-- FAKE_CONTEXT to give (nil: unset, the fake's default).
local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local CHUNKED = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"
local BIN = ROOT .. "/llmdlua" -- (absolute: these run in another folder)
local function try_setup(context)
  -- (README's guide, with the inference pool, and its one-stage template)
  local s = t.try_setup { env = { FAKE_CONTEXT = context or false, KUBERNETES_SERVICE_HOST = false,
    KUBERNETES_SERVICE_PORT = false } }
  s.env.PATH = ROOT .. ":" .. s.env.PATH -- (llmdlua on the PATH, as README's shell has it)
  return s
end
local function llmdlua(s, argv, envx)
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  for k, v in pairs(envx or {}) do env[k] = v end
  local a = { BIN }
  for _, x in ipairs(argv) do a[#a + 1] = x end
  return proc.run(a, { env = env, timeout = 300, cwd = s.dir })
end

-- The fake kubectl answers as one with a configured kubeconfig (a context, its server),
-- so the README's fake-cluster resume works as written; FAKE_CONTEXT="" is no context
t.test("fake kubectl: a current context and its server by default, none when FAKE_CONTEXT is empty", function()
  local s = try_setup()
  local r = llmdlua(s, { ROOT .. "/tests/fakecluster/fake.lua", "kubectl", "config", "current-context" })
  t.eq({ r.code, r.stdout }, { 0, "kind-fake\n" }, r.stderr)
  r = llmdlua(s, { ROOT .. "/tests/fakecluster/fake.lua", "kubectl", "config", "view", "--minify", "-o",
    "jsonpath={.clusters[0].cluster.server}" })
  t.eq({ r.code, r.stdout }, { 0, "https://api.kind-fake.example.com:6443" }, r.stderr)
  r = llmdlua(s, { ROOT .. "/tests/fakecluster/fake.lua", "kubectl", "config", "current-context" },
    { FAKE_CONTEXT = "" })
  t.eq({ r.code, r.stderr }, { 1, "error: current-context is not set\n" })
end)

-- README: FAKE_FAIL_ONCE=smoke compare.lua --plan plan.yaml --yes --quiet (exit 1), then
-- compare.lua --resume "$(ls -d llm-d-comparison-* | tail -n 1)" --yes --quiet (exit 0). With
-- --quiet the progress lines are not printed; the failure and the way on are.
t.test("README's fake-cluster failure and resume work as written, --quiet printing no progress", function()
  local s = try_setup()
  local r = llmdlua(s, { "compare.lua", "--plan", "plan.yaml", "--yes", "--quiet" }, { FAKE_FAIL_ONCE = "smoke" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  t.ok(r.stdout:find("Run A failed at step 50 (smoke_test)", 1, true), r.stdout)
  t.ok(r.stdout:find("To continue after fixing the cause: llmdlua compare.lua --resume " .. w .. "\n", 1, true),
    r.stdout)
  t.ok(r.stdout:find("To tear down without continuing:   llmdlua compare.lua --resume " .. w .. " --step 90\n", 1,
    true), r.stdout)
  for _, progress in ipairs { "Starting Run A", "waiting for the stack", "smoke test through a port-forward",
    "Namespace: " } do
    t.ok(not r.stdout:find(progress, 1, true), progress .. " printed with --quiet:\n" .. r.stdout)
  end
  r = llmdlua(s, { "compare.lua", "--resume", w, "--yes", "--quiet" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(r.stdout, ("Comparison report written to: %s/comparison_report.md\nHTML report with charts: "
    .. "%s/comparison_report.html\n"):format(w, w))
end)

-- With no kube context the workspace records no cluster and a resume needs
-- --use-current-context: the commands the failed run suggests carry it, and work as given
t.test("a failed run of a workspace that records no cluster suggests --resume W --use-current-context", function()
  local s = try_setup("")
  local r = llmdlua(s, { "compare.lua", "--plan", "plan.yaml", "--yes", "--quiet" }, { FAKE_FAIL_ONCE = "smoke" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  t.ok(r.stdout:find("To continue after fixing the cause: llmdlua compare.lua --resume " .. w
    .. " --use-current-context\n", 1, true), r.stdout)
  t.ok(r.stdout:find("To tear down without continuing:   llmdlua compare.lua --resume " .. w
    .. " --step 90 --use-current-context\n", 1, true), r.stdout)
  r = llmdlua(s, { "compare.lua", "--resume", w, "--use-current-context", "--yes", "--quiet" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
end)

-- A missing --plan file is a usage error (exit 2), as a missing --a folder is
t.test("compare.lua --plan with no such file: one line, exit 2", function()
  local d = t.tmpdir()
  local r = proc.run({ BIN, "compare.lua", "--plan", "nope.yaml", "--yes" }, { cwd = d })
  t.eq({ r.code, r.stderr }, { 2, "compare.lua: --plan nope.yaml: no such file (expected the plan, a YAML file)\n" })
  t.eq(t.workspaces(d), {})
end)

-- Results that do not match the benchmark config their run sent (comparison.check_config_stages)
-- are not known to be that configuration's: the Verdict leads with it and names no run,
-- comparison.json and comparison.csv agreeing. The kubecon pair: B (the chunked run) sustains
-- 169.43 req/s against A's 92.21 (the README's demo Verdict), so B is named without the check;
-- a config.yaml asking 1 stage of 1 req/s against B's 7 stages makes it mismatch.
t.test("results that do not match their benchmark config: the Verdict leads with it and names no winner", function()
  local w, r = t.compare { "--a", KUBECON, "--b", CHUNKED }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(w .. "/comparison_report.md")
  t.ok(md:find("**Verdict:** kubecon-na-2025_vllm_chunking_and_prefix_caching sustains more load", 1, true),
    md:sub(1, 800))
  t.mkdir(w .. "/run-b/benchmark")
  t.write(w .. "/run-b/benchmark/config.yaml", "workload:\n  sanity_random:\n"
    .. "    load: {type: constant, stages: [{rate: 1, duration: 30}]}\n")
  r = proc.run { LLMDLUA, "analyze.lua", w, "--reextract", "--quiet" }
  t.eq(r.code, 0, r.stderr)
  md = t.read(w .. "/comparison_report.md")
  local verdict = md:match("%*%*Verdict:%*%*[^\n]*")
  t.ok(verdict:find("**Verdict:** Cannot say which sustains more load (max sustained throughput; no SLO given): "
    .. "kubecon-na-2025_vllm_chunking_and_prefix_caching's results do not match the benchmark config it sent", 1,
    true), verdict)
  t.ok(not verdict:find("sustains more load:", 1, true), verdict)
  t.ok(md:find("\n\nWarning: kubecon-na-2025_vllm_chunking_and_prefix_caching's results do not match the benchmark "
    .. "config it sent", 1, true), "the Summary opens with it")
  local cj = json.read(w .. "/comparison.json")
  t.eq(cj.verdict.kind, "cannot say")
  t.eq(cj.verdict.higher, nil)
  local csv = t.read(w .. "/comparison.csv")
  local order = t.csv_row(csv, "max_sustained_rps")
  t.eq(order[#order], "not_compared")
end)
