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
