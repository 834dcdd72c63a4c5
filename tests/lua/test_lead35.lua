-- Session 35's lead fixes: findings of the new-user trial (newuser35) that were small enough
-- to fix beside the helpers. Expected values by hand or from the fixture files, as written.
local t = require "testlib"
local json = require "llmd.json"

local F = t.fixtures()

t.test("one load point against a run with none: the chart is drawn with N/A, not a gnuplot crash", function()
  -- A: the benchmark report's one stage (10 req/s offered); B: inference-perf's per-request
  -- file alone, which has no load stage. gnuplot 5.4 crashed (signal 11) on the labels of B's
  -- NaN row, and the whole comparison stopped with no report.
  local a, b = t.tmpdir() .. "/br", t.tmpdir() .. "/ipr"
  t.mkdir(a)
  t.mkdir(b)
  t.copy(F .. "/benchmark-report/br_v0_2_example.yaml", a .. "/br_v0_2_example.yaml")
  t.copy(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json", b .. "/per_request_lifecycle_metrics.json")
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "br", "--b-label", "ipr" }
  t.eq(r.code, 0, r.stderr)
  local svg = t.read(ws .. "/charts/latency_throughput.svg")
  t.ok(svg:find(">N/A<", 1, true), "B's place says N/A")
  local md = t.read(ws .. "/comparison_report.md")
  t.ok(md:find("ipr: no measured load point, so N/A in the chart.", 1, true), md)
  local chart
  for _, c in ipairs(json.read(ws .. "/comparison.json").charts.list) do
    if c.name == "latency_throughput" then chart = c end
  end
  t.eq({ chart.drawn, chart.reason }, { true, nil })
end)
