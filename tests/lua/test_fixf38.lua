-- Session 38 (fixf38): follow-ups of this session's fixes.
-- 1. treatments.lua (and experiment.lua's comparison, through llmd.treatments.write_outputs)
--    leave out a chart gnuplot fails to draw, as compare.lua does: the report written, saying
--    why, that chart's older picture removed, exit 1 (they wrote no report at all).
-- 2. A place in the treatments' ranking whose figure its own files leave in doubt (a run's
--    files disagree, nothing settles which is right) says so beside its rank, in the Verdict
--    and in treatments.json, as compare.lua's Verdict does (verdict.in_doubt).
-- 3. KV: the time-averaged hit rate from scrapes that count other traffic carries the caveat
--    the totals carry.
-- Expected values by construction or from the fixtures' files (python3 json), as said.
local t = require "testlib"
local json = require "llmd.json"
local lfs = require "lfs"
local proc = require "llmd.proc"

local ROOT = t.root()
local LLMDLUA = ROOT .. "/llmdlua"
local VLLM = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local CHUNK = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"
local DATA = ROOT .. "/tests/data/fixd38"
local find, lacks = t.contains, t.lacks

-- A gnuplot that fails on the template named NAME.gp (its last argument), the real one for
-- the others; returns the folder to put first on PATH.
local function failing_gnuplot(name)
  local bin = t.tmpdir()
  t.write(bin .. "/gnuplot", "#!/bin/sh\nfor a; do last=$a; done\ncase \"$last\" in\n*/" .. name .. ".gp) "
    .. "echo 'gnuplot echoes the variables' >&2; echo 'line 9: made to fail' >&2; exit 1;;\nesac\nexec "
    .. require("llmd.charts").gnuplot() .. " \"$@\"\n")
  proc.chmod(bin .. "/gnuplot", "755")
  return bin
end

local function names_in(dir)
  local out = {}
  for n in lfs.dir(dir) do
    if n ~= "." and n ~= ".." then out[#out + 1] = n end
  end
  table.sort(out)
  return out
end

t.test("treatments.lua: a chart gnuplot fails to draw is left out, the report written all the same, exit 1", function()
  if not require("llmd.charts").gnuplot() then error("gnuplot is not installed (scripts/install-deps.sh)") end
  local out = t.tmpdir() .. "/out"
  local argv = { LLMDLUA, "treatments.lua", "--run", "a=" .. VLLM, "--run", "b=" .. CHUNK, "--out", out, "--quiet" }
  -- an earlier comparison in --out, every chart drawn
  local r = proc.run(argv)
  t.eq(r.code, 0, r.stderr)
  t.ok(lfs.attributes(out .. "/charts/treatments_bars.svg", "mode") == "file")
  lacks(t.read(out .. "/treatment_report.md"), "not drawn. gnuplot could not draw it")
  local old_lt = t.read(out .. "/charts/treatments_latency_throughput.svg")
  -- gnuplot fails on the bars' template (before: "llmdlua: .../treatments_bars.gp: gnuplot
  -- failed ...", no report, --out as it was)
  r = proc.run(argv, { env = { PATH = failing_gnuplot("treatments_bars") .. ":" .. os.getenv("PATH") } })
  t.eq(r.code, 1, r.stderr)
  local tpl = ROOT .. "/templates/charts/treatments_bars.gp"
  -- one line, naming the chart, the template and gnuplot's words (no traceback)
  t.eq(r.stderr, "treatments.lua: error: the treatments_bars chart was not drawn (the report says so): " .. tpl
    .. ": gnuplot failed (exit code 1): gnuplot echoes the variables | line 9: made to fail\n")
  local md = t.read(out .. "/treatment_report.md")
  -- (the bars' title: "At the common load, 92.19 req/s offered", the fixtures' common load)
  t.ok(md:find("\n%- At the common load[^\n]*: not drawn%. gnuplot could not draw it: "
    .. tpl:gsub("%p", "%%%0") .. ": gnuplot failed %(exit code 1%): line 9: made to fail%.\n"), md:match("## Charts.-\n## "))
  lacks(md, "(charts/treatments_bars.svg)")
  find(md, "(charts/treatments_latency_throughput.svg)", "the other chart is in the report")
  find(t.read(out .. "/treatment_report.html"), 'data-chart-left-out="treatments_bars"')
  -- the older picture and data of that chart gone, the other chart drawn again, nothing left
  -- of the folder it was written in
  t.eq(names_in(out .. "/charts"), { "treatments_latency_throughput.dat", "treatments_latency_throughput.svg" })
  t.eq(t.read(out .. "/charts/treatments_latency_throughput.svg"), old_lt)
  for _, n in ipairs(names_in(out)) do t.ok(not n:find("^%.treatments%-writing"), n) end
  -- the printed report says it as well (without --quiet)
  table.remove(argv)
  r = proc.run(argv, { env = { PATH = failing_gnuplot("treatments_latency_throughput") .. ":" .. os.getenv("PATH") } })
  t.eq(r.code, 1, r.stderr)
  find(r.stdout, "- Latency against achieved load, every treatment: not drawn. gnuplot could not draw it: ")
  find(r.stdout, "Written: " .. out .. "/treatment_comparison.csv")
  find(r.stderr, "treatments.lua: error: the treatments_latency_throughput chart was not drawn (the report says so): ")
end)

t.test("write_outputs (experiment.lua's comparison): a template gnuplot rejects is named in chart_failures", function()
  if not require("llmd.charts").gnuplot() then error("gnuplot is not installed (scripts/install-deps.sh)") end
  local tr = require "llmd.treatments"
  local d = t.tmpdir()
  local tpl = d .. "/templates"
  proc.run { "cp", "-r", ROOT .. "/templates", tpl }
  t.write(tpl .. "/charts/treatments_bars.gp", "set terminal svg\nplot [0:1] nosuchvar\n")
  local list = tr.load { { label = "a", dirs = { VLLM } }, { label = "b", dirs = { CHUNK } } }
  local paths = tr.write_outputs(d .. "/out", list, { templates = tpl })
  t.eq(#paths.chart_failures, 1)
  t.ok(paths.chart_failures[1]:find("^the treatments_bars chart was not drawn %(the report says so%): "
    .. (tpl .. "/charts/treatments_bars.gp"):gsub("%p", "%%%0") .. ": gnuplot failed %(exit code 1%): [^\n]*"
    .. "undefined variable: nosuchvar$"), paths.chart_failures[1])
  find(t.read(paths.md), ": not drawn. gnuplot could not draw it: " .. tpl .. "/charts/treatments_bars.gp")
  t.eq(lfs.attributes(d .. "/out/charts/treatments_bars.svg", "mode"), nil)
  t.ok(lfs.attributes(d .. "/out/charts/treatments_latency_throughput.svg", "mode") == "file")
end)

-- IPS2's stage 1 file made to say 40 successes and no failure, where its requests hold 39
-- and 1 failure (tests/sim/fixd38_ref.py: "IPS2 stage 1: ok 39 failed 1"): the stage keeps
-- the file's counts (error rate 0 %), and nothing settles which is right (test_fixd38's
-- in-doubt input). IPS's own disagreement (TTFT p90, its stage file 5 % high) is settled by
-- its requests: nothing in doubt.
local function ips2c() return t.ips2c(DATA) end

local CAVEAT = "IPS2c's own files disagree on figures this ranking reads (requests completed, requests failed), with "
  .. "nothing to settle which is right"

t.test("treatments: a place whose figure its own files leave in doubt says so beside its rank, in the Verdict, JSON",
  function()
    local out = t.tmpdir() .. "/out"
    -- with error_rate_pct=2, IPS (1 of 40 failed at 4 req/s by its file: 2.5 %) fails at its
    -- second load, IPS2c (0 of 40 by its file, 1 of 40 by its requests) does not: IPS2c is
    -- ranked first on the very count its files disagree on (sharing rank 1= since capa38: a p90
    -- of 40 requests a load is one draw, which orders no pair; the doubt is said all the same)
    local r = proc.run { LLMDLUA, "treatments.lua", "--run", "IPS=" .. DATA .. "/IPS", "--run", "IPS2c=" .. ips2c(),
      "--slo", "ttft_p90_ms=200,error_rate_pct=2", "--out", out, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local md = t.read(out .. "/treatment_report.md")
    local verdict = md:match("%*%*Verdict:%*%* ([^\n]*)")
    t.ok(verdict:find("^No treatment is shown to be best"), verdict)
    find(verdict, " Warning: " .. CAVEAT .. ", so its place is in doubt (see the Ranking).", "the Verdict line")
    find(md:match("%*%*Verdict:%*%*[^\n]*\n\n([^\n]*)"), CAVEAT, "the verdict below it")
    local ranking = md:match("## Ranking by capacity at SLO(.-)\n## ")
    -- (fixa39: each figure with the span its load points' 95 % intervals allow, the one the
    -- comparison weighs: IPS2c's any rate, IPS's below 3.90, as the sentence after says)
    find(ranking, "| 1= (in doubt) | IPS2c | ≥ 3.896 req/s (never violated; with each load's 95 % interval: any rate, "
      .. "no load being known to pass) | In doubt: " .. CAVEAT .. "; not comparable with IPS (about 3.518 req/s "
      .. "(measured: between 2.00 and 3.90; with each load's 95 % interval: below 3.90)): the measured loads place "
      .. "this one's capacity at SLO at any rate (no load is known to pass) and IPS's at no more than 3.898 req/s")
    find(ranking, "| 1= | IPS | about ")
    find(ranking, "- IPS2c: requests_ok: computed from per-request data 39, stage 1's stage_1_lifecycle_metrics.json "
      .. "says 40 (2.5 % apart); the file's figure is kept, so it is in doubt; requests_failed: computed from "
      .. "per-request data 1, stage 1's stage_1_lifecycle_metrics.json says 0 (100.0 % apart); the file's figure is "
      .. "kept, so it is in doubt\n")
    lacks(ranking, "IPS's own files")
    local html = t.read(out .. "/treatment_report.html")
    find(html, ">1= (in doubt)</td>")
    find(html, "In doubt: " .. CAVEAT:gsub("'", "&#39;"))
    local doc = json.read(out .. "/treatments.json")
    t.eq(#doc.in_doubt, 1)
    t.eq({ doc.in_doubt[1].label, doc.in_doubt[1].keys }, { "IPS2c", { "requests_ok", "requests_failed" } })
    t.eq(doc.ranking[1].label, "IPS2c")
    t.eq(doc.ranking[1].in_doubt.figures, { "requests completed", "requests failed" })
    t.eq(doc.ranking[2].in_doubt, nil)
    t.eq({ doc.treatments[1].label, doc.treatments[1].in_doubt }, { "IPS", nil })
    t.eq(doc.treatments[2].in_doubt.text, CAVEAT)
    find(doc.verdict_line, CAVEAT)
  end)

t.test("treatments: no figure in doubt where the per-request data settle the disagreement; no SLO reads counts too",
  function()
    local tr = require "llmd.treatments"
    -- IPS and IPS2 as they are: IPS's TTFT disagreement is settled (the requests' figure used)
    local m = tr.model(tr.load { { label = "IPS", dirs = { DATA .. "/IPS" } }, { label = "IPS2", dirs = { DATA .. "/IPS2" } } },
      { slo = require("llmd.decision").parse_slo("ttft_p90_ms=105") })
    t.eq(#m.in_doubt, 0)
    lacks(m.verdict, "in doubt")
    for _, r in ipairs(m.ranking) do t.eq(r.in_doubt, nil, r.label) end
    -- without an SLO the ranking reads the max sustained throughput, which the counts decide
    -- too (the error-rate limit): IPS2c's place is in doubt all the same
    m = tr.model(tr.load { { label = "IPS", dirs = { DATA .. "/IPS" } }, { label = "IPS2c", dirs = { ips2c() } } })
    t.eq(#m.in_doubt, 1)
    t.eq(m.in_doubt[1].label, "IPS2c")
    find(m.verdict_line, "Warning: " .. CAVEAT)
  end)

-- KV scrapes that count other traffic (the synthetic raw scrapes: vllm:request_success_total
-- rises by 105, the harness sent 8) and the processed summary beside them: its
-- vllm:prefix_cache_hit_rate aggregate (python3 json on the fixture: mean 44.4727, p90
-- 79.2822, p95 79.2836) is over the same scrapes
t.test("KV: the time-averaged hit rate over other traffic says so, as the totals do", function()
  local F = t.fixtures()
  local a = t.tmpdir() .. "/other"
  t.mkdir(a .. "/metrics/processed")
  t.write(a .. "/synthetic-vllm_bench_serve_save_detailed.json",
    t.read(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json"))
  t.copy_tree(F .. "/prometheus/synthetic-raw", a .. "/metrics/raw")
  t.write(a .. "/metrics/processed/metrics_summary.json", t.read(F .. "/metrics-summary/synthetic-metrics_summary.json"))
  -- the other run: the processed summary alone (no raw scrapes: nothing checks its traffic)
  local b = t.tmpdir() .. "/own"
  t.mkdir(b .. "/metrics/processed")
  t.write(b .. "/synthetic-vllm_bench_serve_save_detailed.json",
    t.read(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json"))
  t.write(b .. "/metrics/processed/metrics_summary.json", t.read(F .. "/metrics-summary/synthetic-metrics_summary.json"))
  local ws, r = t.compare { "--a", a, "--a-label", "other", "--b", b, "--b-label", "own" }
  t.eq(r.code, 0, r.stderr)
  local scope = "includes other traffic: 105 requests finished against 8 sent"
  local md = t.read(ws .. "/comparison_report.md")
  local line = md:match("\nTime%-averaged hit rate [^\n]*")
  find(line, ": other mean 44.5 %, p90 79.3 %, p95 79.3 % (" .. scope .. "); own mean 44.5 %, p90 79.3 %, "
    .. "p95 79.3 %.", "the time-averaged hit rate")
  find(md, "| Hit rate | ", "the totals' rows say it too")
  find(md:match("| Hit rate |[^\n]*"), "(" .. scope .. ")")
  local html = t.read(ws .. "/comparison_report.html")
  find(html:match("Time%-averaged hit rate [^\n]*"), "p95 79.3 % (" .. scope .. "); own mean")
  local kv = json.read(ws .. "/comparison.json").kv
  t.eq({ kv.time_avg.a.scope, kv.time_avg.b.scope }, { scope, false })
end)
