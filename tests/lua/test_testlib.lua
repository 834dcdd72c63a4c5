-- testlib's own helpers where the tests that use them could not tell them broken: t.walk
-- feeds comparisons of two listings (test_copy_later, test_parallel) and checks that a
-- listing is empty (test_hardening), which a walk that saw nothing would pass; so do
-- t.workspaces (test_hardening, test_workflow: "no workspace was left") and t.copy_tree.
-- The trees below are made by hand and their listings written out by hand.
local t = require "testlib"
local lfs = require "lfs"

t.test("t.walk: every entry, depth first, links named and not followed, a folder pruned", function()
  local d = t.tmpdir()
  t.mkdir(d .. "/a/b")
  t.mkdir(d .. "/results/deep")
  t.write(d .. "/top.txt", "1")
  t.write(d .. "/a/one.txt", "22")
  t.write(d .. "/a/b/two.txt", "333")
  t.write(d .. "/results/deep/kept.txt", "4444")
  assert(lfs.link(d .. "/a", d .. "/link_to_a", true))
  local seen, parents = {}, {}
  t.walk(d, function(p, rel, mode)
    t.eq(p, d .. "/" .. rel)
    seen[#seen + 1] = rel .. " " .. mode
    parents[rel] = true
    t.ok(rel:match("^(.*)/[^/]*$") == nil or parents[rel:match("^(.*)/[^/]*$")], "its folder came first: " .. rel)
  end)
  table.sort(seen)
  t.eq(seen, { "a directory", "a/b directory", "a/b/two.txt file", "a/one.txt file", "link_to_a link",
    "results directory", "results/deep directory", "results/deep/kept.txt file", "top.txt file" })
  -- false from fn: that folder is not gone into (its entry itself was seen)
  seen = {}
  t.walk(d, function(_, rel)
    seen[#seen + 1] = rel
    if rel == "results" then return false end
  end)
  table.sort(seen)
  t.eq(seen, { "a", "a/b", "a/b/two.txt", "a/one.txt", "link_to_a", "results", "top.txt" })
end)

t.test("t.table_rows: a Markdown table's rows by their first cell, the last section too", function()
  local md = "## One\n\n| | A | B |\n|---|---|---|\n| x | 1 | 2 |\n| y z | a b | |\n\n## Two\n| k | v |\n"
  t.eq(t.table_rows(md, "One"), { [""] = { "", "A", "B" }, x = { "x", "1", "2" }, ["y z"] = { "y z", "a b", "" } })
  t.eq(t.table_rows(md, "Two"), { k = { "k", "v" } })
end)

t.test("t.workspaces: compare.lua's workspaces in a folder, sorted, nothing else; {} for no folder", function()
  local d = t.tmpdir()
  t.mkdir(d .. "/llm-d-comparison-20261202-101500-b")
  t.mkdir(d .. "/llm-d-comparison-20261202-101500-a")
  t.mkdir(d .. "/other")
  t.write(d .. "/llm-d-comparison.txt", "not one: no dash after the prefix")
  t.eq(t.workspaces(d), { d .. "/llm-d-comparison-20261202-101500-a", d .. "/llm-d-comparison-20261202-101500-b" })
  t.eq(t.workspaces(d .. "/other"), {})
  t.eq(t.workspaces(d .. "/nothing-here"), {})
end)

t.test("t.copy_tree: a folder with everything below it; a missing source fails", function()
  local d = t.tmpdir()
  t.mkdir(d .. "/src/a/b")
  t.write(d .. "/src/top.txt", "1")
  t.write(d .. "/src/a/b/deep.txt", "22")
  t.copy_tree(d .. "/src", d .. "/dst")
  local seen = {}
  t.walk(d .. "/dst", function(_, rel, mode) seen[#seen + 1] = rel .. " " .. mode end)
  table.sort(seen)
  t.eq(seen, { "a directory", "a/b directory", "a/b/deep.txt file", "top.txt file" })
  t.eq(t.read(d .. "/dst/a/b/deep.txt"), "22")
  t.eq(pcall(t.copy_tree, d .. "/missing", d .. "/dst2"), false)
end)

t.test("t.headline_row: the row of that label; a label missing or there twice fails, naming the rows", function()
  local m = { headline = { { label = "Capacity at SLO (TTFT p90 ≤ 200.0 ms)", a_text = "1" },
    { label = "Max sustained throughput", a_text = "2" } } }
  t.eq(t.headline_row(m, "Max sustained throughput").a_text, "2")
  t.eq(t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 200.0 ms)").a_text, "1")
  local err = t.raises('no Headline row "Per GPU"', t.headline_row, m, "Per GPU")
  t.ok(err:find("its rows: Capacity at SLO (TTFT p90 ≤ 200.0 ms) | Max sustained throughput", 1, true), err)
  t.raises("no Headline row", t.headline_row, {}, "Per GPU")
  m.headline[3] = { label = "Max sustained throughput", a_text = "3" }
  t.raises('the Headline has two rows "Max sustained throughput"', t.headline_row, m, "Max sustained throughput")
end)

t.test("t.contains / t.lacks: a plain substring (no pattern), the label and the text in the failure", function()
  t.contains("p90 (ms) 1.5", "(ms) 1.5")
  t.lacks("p90 (ms) 1.5", "p95")
  -- plain: "." and "%d" are themselves, not patterns ("1x5" would match the pattern "1.5")
  local err = t.raises("md: want «1.5» in:\n1x5", t.contains, "1x5", "1.5", "md")
  t.ok(not err:find("want no", 1, true), err)
  t.lacks("1x5", "1.5")
  t.raises("want «%d» in:\n42", t.contains, "42", "%d")
  t.raises("html: want no «B better» in:\nA/B: B better", t.lacks, "A/B: B better", "B better", "html")
  -- no text at all fails, for either, rather than passing a lacks
  t.raises("want no «x» in a text, got nil", t.lacks, nil, "x")
  t.raises("json: want «x» in a text, got 3", t.contains, 3, "x", "json")
end)

t.test("t.treatment / t.ttft_treatment: one run, a stage per load point (per repeat), its values as given", function()
  -- written out by hand: the stages llmd.treatments reads, in order
  local function stage(i, rate, req, ttft)
    return { index = i, rate = rate, warmup = false, metrics = { values = { throughput_req_s = req,
      ttft_p90_ms = ttft, error_rate_pct = 0 }, na = {}, source = {}, method = {} } }
  end
  local x = t.treatment("x", { { 10, 9.5, 50 }, { 20, { 19, 18.5 } } }, 2)
  t.eq(x.run.stages, { stage(0, 10, 9.5, 50), stage(1, 20, 19), stage(2, 20, 18.5) })
  t.eq(x.run.harness, "synthetic")
  t.eq({ x.label, x.runs, x.dirs, x.status, x.reasons, x.gpus }, { "x", { x.run }, { "x" }, "ok", {}, 2 })
  t.eq(t.treatment("y", { { 1, 1 } }).gpus, nil)
  -- offered and achieved alike
  local y = t.ttft_treatment("y", { { 10, 50 }, { 16, 150 } }, 1)
  -- (with each TTFT p90's requests, t.with_samples: 1000 samples of exactly that TTFT, in s,
  -- design effect 1, so the p90 is known exactly)
  for i, want in ipairs { 0.050, 0.150 } do
    local m = y.run.stages[i].metrics
    t.eq(m.samples.ttft:count(), 1000)
    t.near(m.samples.ttft:percentile(0), want, 1e-15)
    t.near(m.samples.ttft:percentile(100), want, 1e-15)
    t.eq(m.sample_deff, { ttft = 1 })
    m.samples, m.sample_deff = nil, nil
  end
  t.eq(y.run.stages, { stage(0, 10, 10, 50), stage(1, 16, 16, 150) })
  t.eq(y.gpus, 1)
end)

t.test("t.tp_workspace: experiment.lua's layout of tp1 (tensor 1) and tp2 (tensor 2), one sweep each", function()
  local json = require "llmd.json"
  local w = t.tp_workspace(t.tmpdir() .. "/exp")
  local seen = {}
  t.walk(w, function(_, rel, mode) seen[#seen + 1] = rel .. " " .. mode end)
  table.sort(seen)
  local want = { "experiment-state.json file" }
  for _, s in ipairs { "tp1", "tp2" } do
    local d = "setup-treatment-" .. s
    for _, e in ipairs { "", "/plan", "/run-sweep", "/run-sweep/results" } do want[#want + 1] = d .. e .. " directory" end
    want[#want + 1] = d .. "/plan/values-override.yaml file"
    for i = 1, s == "tp1" and 3 or 4 do want[#want + 1] = ("%s/run-sweep/results/benchmark_%02d.json file"):format(d, i) end
  end
  table.sort(want)
  t.eq(seen, want)
  t.eq(json.read(w .. "/experiment-state.json").results[2], { setup_treatment = "tp2", status = "success" })
  t.eq(t.read(w .. "/setup-treatment-tp2/plan/values-override.yaml"),
    "decode:\n  replicas: 1\n  parallelism:\n    tensor: 2\n")
  -- tp2's last point: 35 req/s, 800 requests of TTFT 400 ms
  local d = json.read(w .. "/setup-treatment-tp2/run-sweep/results/benchmark_04.json")
  t.eq(d.request_rate, 35)
  t.eq(#d.ttfts, 800)
  t.near(d.ttfts[1], 0.4, 1e-12)
  t.near(d.ttfts[800], 0.4, 1e-12)
  t.near(json.read(w .. "/setup-treatment-tp1/run-sweep/results/benchmark_02.json").ttfts[7], 0.08, 1e-12)
end)

t.test("t.root: the checkout's real path, holding this test file, and its llmdlua", function()
  local root, llmdlua = t.root()
  t.eq(root:sub(1, 1), "/")
  t.eq(llmdlua, root .. "/llmdlua")
  t.eq(lfs.attributes(llmdlua, "mode"), "file")
  -- the same folder as this test file's ../.. (each made canonical by realpath)
  local r = require("llmd.proc").run { "realpath", t.here() .. "/../.." }
  t.eq(root, (r.stdout:gsub("%s+$", "")))
  t.eq(lfs.attributes(root .. "/tests/lua/test_testlib.lua", "mode"), "file")
end)

t.test("t.data_py / t.data_json / t.have_numpy: tests/data's scripts, arguments flattened, a failure fails", function()
  -- numpy present exactly when python3 can find it (asked another way than testlib does)
  local found = require("llmd.proc").run { t.PY, "-c",
    "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('numpy') else 1)" }.ok
  t.eq(t.have_numpy(), found)
  local help = t.data_py("queue_sim.py", "--help")
  t.contains(help, "usage: queue_sim.py")
  t.eq(t.data_py("queue_sim.py", { "--help" }), help)
  t.raises("tests/data/queue_sim.py exited 2: ", t.data_py, "queue_sim.py", "--no-such-option")
  t.raises("tests/data/no_such_script.py exited", t.data_py, "no_such_script.py")
  if not found then return end
  -- err_ref.py on two hand-made vLLM files (one load point, 90 requests each, so design
  -- effect 1): A fails 9 (every 10th), B 3. Python by hand, the Cochran-Mantel-Haenszel z of
  -- one stratum: (9 - 90 x 12 / 180) / sqrt(90 x 90 x 12 x 168 / (180^2 x 179)) =
  -- 3 / sqrt(2.815642458100559) = 1.787855858683404; the number 5 and the list {5} alike
  local d = t.tmpdir()
  local json = require "llmd.json"
  for side, every in pairs { a = 10, b = 30 } do
    local starts, errors = {}, {}
    for i = 1, 90 do starts[i], errors[i] = i, i % every == 0 and "timeout" or "" end
    t.mkdir(d .. "/" .. side)
    t.write(d .. "/" .. side .. "/r.json", json.encode { request_rate = 5, start_times = starts, errors = errors })
  end
  local got = t.data_json("err_ref.py", d .. "/a", { d .. "/b" })
  t.near(got.z, 1.787855858683404, 1e-12)
  t.eq({ got.strata, got.deff, got.dependent }, { 1, { ["5"] = 1.0 }, {} })
end)

t.test("t.compare_ab / t.perf_row: compare.lua's workspace, report and JSON; a failed run fails", function()
  local a, b = t.slo_split_pair()
  local o = t.compare_ab(a, b, { "--slo", "ttft_p95_ms=230" })
  t.eq(#t.workspaces(o.ws:match("^(.*)/[^/]*$")), 1)
  t.eq(o.md, t.read(o.ws .. "/comparison_report.md"))
  t.eq(o.json, require("llmd.json").read(o.ws .. "/comparison.json"))
  -- A and B in that order, and the extra argument (the SLO) taken
  t.contains(o.md, "# llm-d Configuration Comparison: " .. a:match("[^/]+$") .. " vs " .. b:match("[^/]+$"))
  t.eq(o.json.slo, { { key = "ttft_p95_ms", max = 230, text = "TTFT p95 ≤ 230.0 ms" } })
  t.eq(t.perf_row(o.json, "ttft_p95_ms").key, "ttft_p95_ms")
  t.raises("compare.lua exited 2", t.compare_ab, a, t.tmpdir() .. "/missing")
  -- perf_row on a hand-made table: the row of that key, nil for none
  local doc = { perf = { { key = "x", v = 1 }, { key = "y", v = 2 } } }
  t.eq(t.perf_row(doc, "y"), { key = "y", v = 2 })
  t.eq(t.perf_row(doc, "z"), nil)
  t.eq(t.perf_row({}, "x"), nil)
end)

t.test("tests/data/seqstats.py (deff_ref.py's and err_ref.py's design effect): mid-ranks and Geyer's sum", function()
  if not t.have_numpy() then return end
  -- mid-ranks by hand: [3, 1, 3, 2] -> the two 3s share ranks 3 and 4: [3.5, 1, 3.5, 2].
  -- Design effects as tests36 (test_design_effect.lua)'s header computed them (python3, its own numpy code): 100
  -- values in 10 runs of 10 equal ones (3,1,5,2,6,4,9,7,10,8): 27.148484848; i * 37 mod 101
  -- (a negative lag-1 correlation): 1; 99 values: 1 (too few); one value only: 1
  local r = require("llmd.proc").run { t.PY, "-c", ([[
import sys, json
import numpy as np
sys.path.insert(0, %q)
from seqstats import deff, midranks
runs = np.repeat([3, 1, 5, 2, 6, 4, 9, 7, 10, 8], 10).astype(float)
print(json.dumps([list(midranks(np.array([3.0, 1, 3, 2]))), deff(runs),
                  deff(np.array([i * 37 %% 101 for i in range(1, 101)], float)),
                  deff(np.arange(99.0)), deff(np.zeros(200))]))]]):format(t.root() .. "/tests/data") }
  t.eq(r.code, 0, r.stderr)
  local got = require("llmd.json").decode(r.stdout)
  t.eq(got[1], { 3.5, 1.0, 3.5, 2.0 })
  t.near(got[2], 27.148484848, 1e-8)
  t.eq({ got[3], got[4], got[5] }, { 1.0, 1.0, 1.0 })
end)

t.test("t.extract_pair: both runs read and their load points, A first", function()
  -- two hand-made ladders (t.latency_ladder, 20 requests a point): A at 2 and 4 req/s, B at 3
  local a = t.latency_ladder { { 2, t.spread(0.1, 0.2, 20) }, { 4, t.spread(0.1, 0.2, 20) } }
  local b = t.latency_ladder { { 3, t.spread(0.1, 0.2, 20) } }
  local ra, rb, pa, pb = t.extract_pair(a, b)
  t.eq({ #ra.stages, #rb.stages, #pa, #pb }, { 2, 1, 2, 1 })
  t.eq({ pa[1].offered, pa[2].offered, pb[1].offered }, { 2, 4, 3 })
  t.eq({ pa[1].load_type, pb[1].load_type }, { "rate", "rate" })
end)

-- t.without_helmfile_log: helmfile's log (its stderr, as helmfile v1 writes it on an apply that
-- installs one release) is cut, the script's own lines around it kept whole, in order
t.test("without_helmfile_log cuts helmfile's stderr log and keeps every other line", function()
  local log = "Comparing release=ms, chart=repo/ms\nAffected releases are:\n  ms (repo/ms) UPDATED\n\n"
    .. "Upgrading release=ms, chart=repo/ms\nListing releases matching ^ms$\n\nUPDATED RELEASES:\n"
    .. "NAME   NAMESPACE   CHART     VERSION   DURATION\nms     ns          repo/ms   0.3.0         1m2s\n"
  local mine = "run_comparison.sh: run a: failed; stopping here\n    helm uninstall ms -n ns\n"
  t.eq({ t.without_helmfile_log("before: one line\n" .. log .. mine) },
    { "before: one line\n" .. mine, log })
  t.eq({ t.without_helmfile_log(mine) }, { mine, "" })
  t.eq({ t.without_helmfile_log("no newline at the end") }, { "no newline at the end", "" })
  -- an apply that finds nothing changed (helmfile's pkg/app apply logs "" and "No affected
  -- releases", fixc53)
  local none = "Comparing release=ms, chart=repo/ms\n\nNo affected releases\n"
  t.eq({ t.without_helmfile_log(none .. mine) }, { mine, none })
end)
