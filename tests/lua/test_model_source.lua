-- Where a run's model comes from (llmd.decision.model_of): the results, the info file, else what
-- the vLLM server itself names: the model_name label of its Prometheus scrapes (metrics/raw), else
-- the start-up line of its pod logs (logs/*.log). Expected values: the fixture scrapes carry
-- model_name="Qwen/Qwen3-0.6B" on both pods (read off the files: grep model_name); the log lines
-- are vLLM's own formats, cited beside each.
local t = require "testlib"
local json = require "llmd.json"
local kvcache = require "llmd.kvcache"

local F = t.fixtures()

-- inference-perf's synthetic per-request file (its results name no model: no config.yaml) in a
-- new folder; shift moves one request's end (so that two such runs are not one run twice).
local function ip_run(shift)
  local d = t.tmpdir()
  local recs = json.read(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json")
  recs[1].end_time = recs[1].end_time + (shift or 0)
  json.write(d .. "/per_request_lifecycle_metrics.json", recs)
  return d
end

-- the fixture scrapes into d/metrics/raw, pod wq7tz's model_name set to other (when given)
local function with_scrapes(d, other)
  t.edited_scrapes(d, function(pod, _, text)
    if other and pod == "wq7tz" then
      return (text:gsub('model_name="Qwen/Qwen3%-0%.6B"', ('model_name="%s"'):format(other)))
    end
    return text
  end)
  return d
end

local function report_of(a, b)
  local w, r = t.compare { "--a", a, "--a-label", "x", "--b", b, "--b-label", "y" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(w .. "/comparison_report.md")
  return md, md:match("%*%*Verdict:%*%* ([^\n]*)"), t.table_rows(md, "Configuration Summary"), w
end

t.test("the scrapes' model_name names the model where the results do not: like for like is verified", function()
  -- (on main: "Warning: like for like not verified: neither run's model is known", Model unknown | unknown)
  local md, verdict, rows = report_of(with_scrapes(ip_run()), with_scrapes(ip_run(0.001)))
  t.lacks(verdict, "like for like not verified", "verdict")
  local read = "Qwen/Qwen3-0.6B (read from the model_name label of vLLM's metrics in metrics/raw)"
  t.eq({ rows.Model[2], rows.Model[3] }, { read, read })
  t.lacks(md, "model: Qwen/Qwen3-0.6B vs")
end)

t.test("two runs whose scrapes name different models are not the same workload", function()
  local a = with_scrapes(ip_run())
  local b = ip_run(0.001)
  t.edited_scrapes(b, function(_, _, text)
    return (text:gsub('model_name="Qwen/Qwen3%-0%.6B"', 'model_name="meta-llama/Llama-3.1-8B"'))
  end)
  local _, verdict, rows = report_of(a, b)
  t.contains(verdict, "Not comparable: the workloads differ (model: Qwen/Qwen3-0.6B vs meta-llama/Llama-3.1-8B)")
  t.eq(rows["**Model** ≠"][3], "meta-llama/Llama-3.1-8B (read from the model_name label of vLLM's metrics in "
    .. "metrics/raw)")
end)

t.test("scrapes that name two models: the model is unknown, said with which on which pod, none picked", function()
  local _, verdict, rows = report_of(with_scrapes(ip_run()), with_scrapes(ip_run(0.001), "meta-llama/Llama-3.1-8B"))
  local why = "the model_name label of vLLM's metrics in metrics/raw names 2 models, Qwen/Qwen3-0.6B on pod "
    .. "qwen-qwen3-0-6b-decode-6f9c7d5b8-k2x9p and meta-llama/Llama-3.1-8B on pod "
    .. "qwen-qwen3-0-6b-decode-6f9c7d5b8-wq7tz, and which one the benchmark's requests reached is not known"
  t.contains(verdict, "Warning: like for like not verified: B's model unknown: " .. why .. " (see below).")
  t.lacks(verdict, "Not comparable")
  -- an unknown model is no difference: the row is not marked
  t.eq(rows.Model[3], "unknown (" .. why .. ")")
end)

-- vLLM's start-up lines, as its sources write them:
-- * vllm/entrypoints/utils.py, log_non_default_args: logger.info("non-default args: %s", redacted_args),
--   a Python dict's repr; served_model_name is a list (--served-model-name takes several names);
--   the process prefix "(APIServer pid=1)" of recent versions;
-- * before it (vLLM 0.8.5: api_server.py, logger.info("args: %s", args)), the whole Namespace, as
--   vllm-project/vllm pull request 17803 quotes it ("INFO 05-07 17:14:39 [api_server.py:1043] args:
--   Namespace(subparser='serve', model_tag='meta-llama/Llama-3.2-1B-Instruct', ..., model='meta-llama/
--   Llama-3.2-1B-Instruct', ...)"), served_model_name=None where not given;
-- * the line of vLLM 0.9.1 in issue text quoted on GitHub: "INFO 08-06 21:23:02 [cli_args.py:309]
--   non-default args: {'port': 8011, 'model': '/data/huggingface/models/mistralai/Mixtral-8x7B-Instruct-v0.1',
--   'tokenizer_mode': 'mistral', ...}".
-- The name the requests use (and the metrics' model_name label) is vLLM's get_served_model_name:
-- the first served name, else the model.
local NON_DEFAULT = "(APIServer pid=1) INFO 11-03 09:12:01 [utils.py:253] non-default args: {'model_tag': "
  .. "'/model-cache/Qwen3-0.6B', 'host': '0.0.0.0', 'port': 8200, 'model': '/model-cache/Qwen3-0.6B', "
  .. "'served_model_name': ['Qwen/Qwen3-0.6B'], 'enable_prefix_caching': True}"

t.test("vLLM's start-up line: the served name, else the model, in each format vLLM logged", function()
  t.eq({ kvcache.log_model(NON_DEFAULT) }, { "Qwen/Qwen3-0.6B", "non-default args" })
  t.eq({ kvcache.log_model("INFO 08-06 21:23:02 [cli_args.py:309] non-default args: {'port': 8011, 'model': "
    .. "'/data/huggingface/models/mistralai/Mixtral-8x7B-Instruct-v0.1', 'tokenizer_mode': 'mistral', "
    .. "'tensor_parallel_size': 2}") }, { "/data/huggingface/models/mistralai/Mixtral-8x7B-Instruct-v0.1",
    "non-default args" })
  -- (the model equal to vLLM's default is no non-default arg: vllm serve's positional model_tag names it)
  t.eq(kvcache.log_model("INFO 11-03 09:12:01 [utils.py:253] non-default args: {'model_tag': 'Qwen/Qwen3-0.6B', "
    .. "'port': 8200}"), "Qwen/Qwen3-0.6B")
  local ns = "INFO 05-07 17:14:39 [api_server.py:1043] args: Namespace(subparser='serve', model_tag='meta-llama/"
    .. "Llama-3.2-1B-Instruct', config='', host=None, port=8000, speculative_model=None, model='meta-llama/"
    .. "Llama-3.2-1B-Instruct', task='auto', served_model_name=None, tokenizer=None)"
  t.eq({ kvcache.log_model(ns) }, { "meta-llama/Llama-3.2-1B-Instruct", "args: Namespace" })
  t.eq(kvcache.log_model((ns:gsub("served_model_name=None", "served_model_name=['llama-1b']"))), "llama-1b")
  t.eq(kvcache.log_model("INFO 02-16 09:10:00 [kv_cache_utils.py:1087] GPU KV cache size: 500,000 tokens"), nil)
end)

t.test("the pod log's start-up line names the model where neither the results nor the scrapes do", function()
  local a = ip_run()
  t.mkdir(a .. "/logs")
  t.write(a .. "/logs/qwen-decode-abc.log", NON_DEFAULT .. "\n(APIServer pid=1) INFO 11-03 09:12:30 "
    .. "[api_server.py:1] Starting vLLM API server 0 on http://0.0.0.0:8200\n")
  local _, verdict, rows, w = report_of(a, with_scrapes(ip_run(0.001)))
  t.lacks(verdict, "like for like not verified", "verdict")
  t.eq(rows.Model[2], "Qwen/Qwen3-0.6B (read from vLLM's start-up arguments in logs/qwen-decode-abc.log)")
  -- saved with the run model: analyze.lua reads the workspace again to the same report
  t.eq(json.read(w .. "/run-a/run_model.json").served_model.name, "Qwen/Qwen3-0.6B")
  local r = require("llmd.proc").run { t.here() .. "/../../llmdlua", "analyze.lua", w, "--quiet" }
  t.ok(r.ok, r.stderr)
  t.eq(t.table_rows(t.read(w .. "/comparison_report.md"), "Configuration Summary").Model[2],
    "Qwen/Qwen3-0.6B (read from vLLM's start-up arguments in logs/qwen-decode-abc.log)")
end)

-- A v0.1 benchmark report names its model in scenario.model.name (the v0.1 schema; by hand from
-- br_v0_1_example.yaml: deepseek-ai/DeepSeek-R1-0528), as v0.2 does in scenario.stack.
t.test("a benchmark report v0.1 names the model in scenario.model.name: like for like is verified", function()
  -- (on main: Model unknown | unknown, "like for like not verified: neither run's model is known")
  local a, b = t.tmpdir(), t.tmpdir()
  local text = t.read(F .. "/benchmark-report/br_v0_1_example.yaml")
  t.write(a .. "/benchmark_report,_stage.yaml", text)
  -- another run: one more request failed (not the same files, so not one run twice)
  t.write(b .. "/benchmark_report,_stage.yaml", (text:gsub("failures: 0", "failures: 1", 1)))
  local _, verdict, rows = report_of(a, b)
  t.lacks(verdict, "model is known", "verdict")
  t.lacks(verdict, "model unknown", "verdict")
  local read = "deepseek-ai/DeepSeek-R1-0528 (read from the results)"
  t.eq({ rows.Model[2], rows.Model[3] }, { read, read })
end)

t.test("what the results name wins over the scrapes, and the info file too", function()
  local decision = require "llmd.decision"
  local run = { served_model = { name = "from/scrapes", source = "the model_name label of vLLM's metrics in m" } }
  t.eq({ decision.model_of { run = run } }, { "from/scrapes", "the model_name label of vLLM's metrics in m" })
  t.eq({ decision.model_of { run = run, state = { stack = { model = "from/info" } } } }, { "from/info", "info" })
  run.model = "from/results"
  t.eq({ decision.model_of { run = run, state = { stack = { model = "from/info" } } } }, { "from/results", "results" })
end)

-- The server that answered is the one the results name (llmd.decision.check_served_model): the
-- results' model (here inference-perf's config.yaml server.model_name, its request model) must be
-- one of the names the server's scrapes or logs give it; the fixture scrapes name Qwen/Qwen3-0.6B
-- (grep model_name ../shared/fixtures/prometheus/synthetic-raw/*: 162 lines a file, all that name).
local function config_yaml(d, model)
  t.write(d .. "/config.yaml", "server:\n  type: vllm\n  model_name: " .. model .. "\n")
  return d
end

local MISMATCH = "the server is not known to be the one the results measured: the results name model "
  .. "meta-llama/Llama-3.1-8B (read from config.yaml), but the model_name label of vLLM's metrics in metrics/raw "
  .. "names Qwen/Qwen3-0.6B; the benchmark's requests may have reached another server, or meta-llama/Llama-3.1-8B "
  .. "is a --served-model-name alias these files do not show; like for like is not verified on the results' model"

t.test("results naming another model than the scrapes: a data check, and like for like not verified", function()
  -- (on main: both results name meta-llama/Llama-3.1-8B, so the pair read as like for like, the Verdict
  -- said nothing of the scrapes' Qwen/Qwen3-0.6B and the Data checks neither)
  local a = config_yaml(with_scrapes(ip_run()), "meta-llama/Llama-3.1-8B")
  local b = config_yaml(with_scrapes(ip_run(0.001)), "Qwen/Qwen3-0.6B")
  local md, verdict, _, w = report_of(a, b)
  t.contains(verdict, "Warning: like for like not verified: A's model in doubt: its results name model "
    .. "meta-llama/Llama-3.1-8B, its server Qwen/Qwen3-0.6B (see Data checks)")
  t.contains(md:match("## Data checks(.-)\n## "), "- x: " .. MISMATCH .. "\n")
  -- B's results name the model its scrapes do: no check of B
  t.lacks(verdict, "B's model in doubt")
  local checks = json.read(w .. "/run-a/run_model.json").checks
  local kinds = {}
  for _, c in ipairs(checks) do kinds[#kinds + 1] = c.kind end
  t.contains(table.concat(kinds, ","), "served_model_mismatch")
  -- (a model in doubt is no figure in doubt: the Summary does not say x's files disagree)
  t.lacks(md:match("## Evidence(.-)\n## "), "x's own result files")
end)

t.test("the results' model matches the server's by any name its start-up line gives: served name or model", function()
  local decision = require "llmd.decision"
  local kvcache_ = kvcache
  -- vLLM started with the model's path and a served name (NON_DEFAULT above): a benchmark's model
  -- setting may be either (vLLM's benchmark sends --served-model-name, records --model as model_id)
  local d = ip_run()
  t.mkdir(d .. "/logs")
  t.write(d .. "/logs/qwen-decode-abc.log", NON_DEFAULT .. "\n")
  local sm = kvcache_.served_model(kvcache_.model_sources(d))
  t.eq(sm.answers, { { where = "vLLM's start-up arguments in logs/qwen-decode-abc.log",
    names = { "Qwen/Qwen3-0.6B", "/model-cache/Qwen3-0.6B" } } })
  for _, m in ipairs { "Qwen/Qwen3-0.6B", "/model-cache/Qwen3-0.6B" } do
    local run = { model = m, served_model = sm, warnings = {}, status = "ok" }
    t.eq(decision.check_served_model(run), nil, m)
    t.eq({ #run.warnings, run.status }, { 0, "ok" }, m)
  end
  -- exact: another case or a near name is another model
  local run = { model = "qwen/qwen3-0.6b", served_model = sm, warnings = {}, status = "ok",
    config_source = d .. "/config.yaml", root = d }
  t.eq(decision.check_served_model(run), "the server is not known to be the one the results measured: the results "
    .. "name model qwen/qwen3-0.6b (read from config.yaml), but vLLM's start-up arguments in logs/qwen-decode-abc.log "
    .. "name Qwen/Qwen3-0.6B, /model-cache/Qwen3-0.6B; the benchmark's requests may have reached another server, or "
    .. "qwen/qwen3-0.6b is a --served-model-name alias these files do not show; like for like is not verified on the "
    .. "results' model")
  t.eq({ #run.warnings, run.status, run.checks[1].kind }, { 1, "warnings", "served_model_mismatch" })
  -- once per run: a run read again keeps one check
  decision.check_served_model(run)
  t.eq({ #run.warnings, #run.checks }, { 1, 1 })
  -- nothing the server names, or no model in the results: no check
  t.eq(decision.check_served_model { model = "x", warnings = {} }, nil)
  t.eq(decision.check_served_model { served_model = sm, warnings = {}, config = {} }, nil)
end)

t.test("treatments read the server's model as compare.lua does: scrapes that name two models are two workloads",
  function()
  -- (on main treatments.lua never read the scrapes: both results name no model, so x and y were one
  -- workload, ranked together, though x's server served Qwen/Qwen3-0.6B and y's meta-llama/Llama-3.1-8B)
  local tr = require "llmd.treatments"
  local a = with_scrapes(ip_run())
  local b = ip_run(0.001)
  t.edited_scrapes(b, function(_, _, text)
    return (text:gsub('model_name="Qwen/Qwen3%-0%.6B"', 'model_name="meta-llama/Llama-3.1-8B"'))
  end)
  local list = tr.load { { label = "x", dirs = { a } }, { label = "y", dirs = { b } } }
  t.eq(list[1].runs[1].served_model.name, "Qwen/Qwen3-0.6B")
  local groups = tr.workload_groups(list)
  t.eq(#groups, 2)
  t.eq(groups.apart, { "y vs x: model: meta-llama/Llama-3.1-8B vs Qwen/Qwen3-0.6B" })
end)

t.test("treatments: results naming another model than the scrapes: warned, and not grouped on the results' word",
  function()
  -- (on main: x's results name meta-llama/Llama-3.1-8B and y's Qwen/Qwen3-0.6B, so they were two
  -- workloads on the results' word alone, and nothing said x's scrapes name Qwen/Qwen3-0.6B)
  local tr = require "llmd.treatments"
  local a = config_yaml(with_scrapes(ip_run()), "meta-llama/Llama-3.1-8B")
  local b = config_yaml(with_scrapes(ip_run(0.001)), "Qwen/Qwen3-0.6B")
  local list = tr.load { { label = "x", dirs = { a } }, { label = "y", dirs = { b } } }
  t.eq(list[1].model_doubt, { tr.shown_dir(nil, a) .. ": " .. MISMATCH })
  t.eq(list[2].model_doubt, {})
  local groups = tr.workload_groups(list)
  t.eq({ #groups, #groups.apart }, { 1, 0 })
  -- the Verdict says it first, as a run cut short is said, and as compare.lua's Verdict says it
  -- (on main: only in the paragraph under the Verdict line and on stderr)
  local paths = tr.write_outputs(t.tmpdir(), list, {})
  local md = t.read(paths.md)
  t.contains(md, "Warning: treatment x: " .. tr.shown_dir(nil, a) .. ": " .. MISMATCH)
  local verdict = md:match("%*%*Verdict:%*%* ([^\n]*)")
  local first = "Warning: like for like not verified: treatment x's model in doubt: its results name "
    .. "model meta-llama/Llama-3.1-8B, its server Qwen/Qwen3-0.6B (see below). "
  t.eq(verdict:sub(1, #first), first)
  t.lacks(verdict, "treatment y", "verdict")
  t.eq(json.read(paths.md:gsub("[^/]*$", "treatments.json")).verdict_line:sub(1, #first), first)
end)

-- A benchmark report whose scenario.stack lists several inference engines of different models:
-- the results name each (run.model is their joined text, "a, b", which is no name a server
-- answers to). The fixture br_v0_2_example.yaml's one engine (model.name Qwen/Qwen3-0.6B, lines
-- 27-67) copied once per model, each copy's model.name replaced; the fixture scrapes in
-- metrics/raw with pod wq7tz's model_name set to meta-llama/Llama-3.1-8B, so the server answers
-- to Qwen/Qwen3-0.6B (pod k2x9p) and meta-llama/Llama-3.1-8B (pod wq7tz). shift: seconds added
-- to run.time.duration (two runs, not one run twice).
local function br_models(models, shift)
  local d = t.tmpdir()
  local src = t.read(F .. "/benchmark-report/br_v0_2_example.yaml")
  local head, first, rest = src:match("^(.-\n  stack:\n)(  %- metadata:.-\n)(  %- metadata:.*)$")
  assert(head, "br_v0_2_example.yaml: no second stack component")
  local comps = {}
  for i, m in ipairs(models) do
    comps[i] = first:gsub("label: vllm%-svc%-0", "label: vllm-svc-" .. i, 1)
      :gsub("\n        name: Qwen/Qwen3%-0%.6B\n", "\n        name: " .. m .. "\n", 1)
  end
  local text = head .. table.concat(comps) .. rest
  text = text:gsub("\n    duration: PT([%d.]+)S", function(x) return ("\n    duration: PT%gS"):format(x + (shift or 0)) end,
    1)
  t.write(d .. "/br_v0_2_example.yaml", text)
  return with_scrapes(d, "meta-llama/Llama-3.1-8B")
end

t.test("a benchmark report of several models: each served passes the served-model check, one not served warns",
  function()
  -- (on main: run.model "Qwen/Qwen3-0.6B, meta-llama/Llama-3.1-8B" was held against the server's
  -- names as one name, so x, whose every model the scrapes name, drew "the results name model
  -- Qwen/Qwen3-0.6B, meta-llama/Llama-3.1-8B ..., but ..." and "like for like not verified")
  local both = { "Qwen/Qwen3-0.6B", "meta-llama/Llama-3.1-8B" }
  local md, verdict, _, w = report_of(br_models(both), br_models(both, 0.5))
  t.lacks(verdict, "like for like not verified", "verdict")
  t.lacks(md, "the server is not known to be the one the results measured")
  t.eq(json.read(w .. "/run-a/run_model.json").models, both)
  -- y's stack names a model no pod serves: its check names that one, and only that one
  md = report_of(br_models(both), br_models({ "Qwen/Qwen3-0.6B", "other/Model-7B" }, 0.5))
  local checks = md:match("## Data checks(.-)\n## ")
  t.lacks(checks, "- x: the server is not known")
  t.contains(checks, "- y: the server is not known to be the one the results measured: the results name models "
    .. "Qwen/Qwen3-0.6B, other/Model-7B (read from br_v0_2_example.yaml: scenario.stack), but the model_name label of "
    .. "vLLM's metrics in metrics/raw names Qwen/Qwen3-0.6B, meta-llama/Llama-3.1-8B; the benchmark's requests for "
    .. "other/Model-7B may have reached another server, or other/Model-7B is a --served-model-name alias these files "
    .. "do not show; like for like is not verified on the results' model\n")
end)

t.test("check_served_model: a list of results' models, each against every name the server answers to", function()
  local decision = require "llmd.decision"
  local sm = { answers = { { where = "the model_name label of vLLM's metrics in metrics/raw", names = { "a/one" } },
    { where = "vLLM's start-up arguments in logs/p.log", names = { "b/two", "/cache/two" } } } }
  local run = { model = "a/one, /cache/two", models = { "a/one", "/cache/two" }, served_model = sm, warnings = {},
    status = "ok" }
  t.eq(decision.check_served_model(run), nil)
  t.eq({ #run.warnings, run.status }, { 0, "ok" })
  run = { model = "a/one, c/three, d/four", models = { "a/one", "c/three", "d/four" }, served_model = sm,
    warnings = {}, status = "ok" }
  t.contains(decision.check_served_model(run), "the benchmark's requests for c/three and d/four may have reached "
    .. "another server, or c/three and d/four are --served-model-name aliases these files do not show")
  t.eq(sm.mismatch, "its results name models c/three and d/four, its server a/one, b/two, /cache/two (see Data checks)")
  t.eq({ #run.warnings, run.status }, { 1, "warnings" })
end)
