-- treatment_comparison.csv keeps upstream's columns byte for byte (test_treatments), so its
-- request_qps / output_tps are the harness's rates (completed / window), not the throughput the
-- reports rank, and its source_file is one basename on every row of an experiment (newuser49
-- F8). treatment_comparison_sources.csv, beside it, traces each of its rows, in its order: the
-- file the row came from, and the ranked rate beside the harness's. Expected by hand: the
-- ladder's requests are sent 1/r s apart, their latencies rise evenly from lo + 0.5 to
-- hi + 0.5 s over n = 100 requests (testlib.latency_ladder, t.spread), so the answers come
-- 1/r + (hi - lo) / 99 s apart and their pace is 1 / (1/r + (hi - lo)/99) (python3:
-- 0.9998990001009999 at 1 req/s, 3.996770286637061 at 4); the harness's rate is the
-- fixture's 0.99 x r.
local t = require "testlib"
local proc = require "llmd.proc"

local LLMDLUA = t.root() .. "/llmdlua"

t.test("treatment_comparison_sources.csv: each CSV row's file and the ranked rate beside the harness's", function()
  local ladder = t.latency_ladder { { 1, t.spread(0.05, 0.06, 100) }, { 4, t.spread(0.06, 0.08, 100) } }
  local w = t.experiment_workspace(t.tmpdir() .. "/exp", { experiment = "src", setups = {
    { name = "one", runs = { { "sweep", ladder } } }, { name = "two", runs = { { "sweep", ladder } } } } })
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local csv = t.read_csv(out .. "/treatment_comparison.csv", true)
  local src = t.read_csv(out .. "/treatment_comparison_sources.csv", true)
  t.eq(src.header, { "treatment", "source_file", "source_path", "request_qps", "throughput_rps_ranked",
    "output_tps_ranked", "rate_basis" })
  local rows, crow = src.rows, csv.rows
  t.eq(#rows, 4)
  t.eq(#crow, 4)
  local pace = { 0.9998990001009999, 3.996770286637061 }
  for i, x in ipairs(rows) do
    local k = (i - 1) % 2 + 1
    local who = i <= 2 and "one" or "two"
    -- the CSV's row, in its order: its keys and its (harness) rate
    t.eq({ x.treatment, x.source_file }, { crow[i].treatment, crow[i].source_file })
    t.eq(x.treatment, who)
    t.eq(x.source_file, ("benchmark_report_v0.2,_benchmark_0%d.json.yaml"):format(k))
    t.eq(x.source_path, ("exp/setup-treatment-%s/run-sweep/results/benchmark_0%d.json"):format(who, k))
    t.eq(x.request_qps, crow[i].request_qps)
    t.near(tonumber(x.request_qps), 0.99 * (k == 1 and 1 or 4), 1e-9)
    t.near(tonumber(x.throughput_rps_ranked), pace[k], 1e-12)
    t.eq(x.rate_basis, "pace")
  end
end)

-- treatments.lua's "Written:" lines name every file it wrote (they left out
-- treatment_comparison_sources.csv, treatments.json and the charts): what they say against
-- what is in the fresh --out folder afterwards (lfs, not the code's own list), the charts by
-- their count of SVGs, each beside its .dat.
t.test("treatments.lua's Written: lines name every file it wrote into --out", function()
  local lfs = require "lfs"
  local w = t.tp_workspace(t.tmpdir() .. "/exp", 100)
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local named, block = {}, r.stdout:match("\nWritten: (.-)\n$")
  t.ok(block, r.stdout)
  for l in (block .. "\n"):gmatch("%s*([^\n]+)\n") do named[#named + 1] = l end
  local want, svgs = {}, 0
  for n in lfs.dir(out) do
    if n ~= "." and n ~= ".." and n ~= "charts" then want[#want + 1] = out .. "/" .. n end
  end
  for n in lfs.dir(out .. "/charts") do
    local base = n:match("^(.+)%.svg$")
    if base then
      svgs = svgs + 1
      t.eq(lfs.attributes(out .. "/charts/" .. base .. ".dat", "mode"), "file", base)
    elseif n ~= "." and n ~= ".." then
      t.ok(n:match("%.dat$") and lfs.attributes(out .. "/charts/" .. n:gsub("%.dat$", ".svg")), n)
    end
  end
  t.ok(svgs > 0, "charts drawn")
  table.sort(want)
  local files, charts = {}, {}
  for _, n in ipairs(named) do
    if n:find(out .. "/charts/", 1, true) == 1 then charts[#charts + 1] = n else files[#files + 1] = n end
  end
  table.sort(files)
  t.eq(files, want)
  t.eq(charts, { ("%s/charts/ (%d charts: each an .svg and its .dat)"):format(out, svgs) })
  -- the sources CSV among them (the line that was missing)
  t.contains(block, out .. "/treatment_comparison_sources.csv")
end)
