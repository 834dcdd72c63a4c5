-- Session 34 lead fixes of the new-user trial: an SLO metric unknown at one load point
-- (a null in one stage file) no longer hides what the loads below it measured.
local t = require "testlib"
local json = require "llmd.json"
local lp = require "llmd.loadpoints"
local decision = require "llmd.decision"

local ROOT = debug.getinfo(1, "S").source:match("^@(.*)/tests/lua/[^/]*$") or "."
local FIX = ROOT .. "/tests/fixtures"

-- offered 10..50 req/s, achieved as offered; TTFT p90 per point (nil: not in the point's
-- data)
local function run(ttfts)
  local stages = {}
  for i = 1, 5 do
    stages[i] = { rate = 10 * i, values = { throughput_req_s = 10 * i, ttft_p90_ms = ttfts[i],
      throughput_tok_s = 100 * i, error_rate_pct = 0 } }
  end
  return t.run_of(stages)
end

-- A copy (folder name) of the bundled chunked run whose stage file `stage` has its TTFT p90
-- null.
local function null_p90(name, stage)
  local b = t.tmpdir() .. "/" .. name
  t.copy_tree(FIX .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching", b)
  local f = ("%s/stage_%d_lifecycle_metrics.json"):format(b, stage)
  local d = json.read(f)
  d.successes.latency.time_to_first_token.p90 = json.null
  t.write(f, json.encode(d))
  return b
end

t.test("capacity: an SLO metric unknown above loads that all met the SLO gives a lower bound", function()
  local slo = decision.parse_slo("ttft_p90_ms=200", "--slo")
  -- points 1-3 at 50, 80, 150 ms (<= 200), point 4 unknown, point 5 at 900 ms: whatever point
  -- 4 measured, every SLO held at 30 req/s, so the capacity is at least 30 (by hand)
  local c = lp.capacity(lp.points(run { 50, 80, 150, nil, 900 }), slo)
  t.eq({ c.kind, c.bound, c.rps, c.output_tps }, { "last_passing", "lower", 30, 300 })
  t.ok(c.reason:find("every SLO holds up to load point 3 (30 req/s achieved); TTFT p90 unknown at load point 4",
    1, true), c.reason)
  t.ok(c.reason:find("load point 5 violates TTFT p90. The capacity is at least 30 req/s, whatever load point 4 "
    .. "measured", 1, true), c.reason)
  -- unknown at the lowest load: nothing measured below it, still unknown
  c = lp.capacity(lp.points(run { nil, 80, 150, 170, 900 }), slo)
  t.eq(c.kind, "unknown")
  t.ok(c.reason:find("TTFT p90 unknown at load point 1", 1, true), c.reason)
  -- unknown above a point that failed: the crossing (or a pass above the failure) is not
  -- known, still unknown
  c = lp.capacity(lp.points(run { 50, 300, nil, 900, 950 }), slo)
  t.eq(c.kind, "unknown")
  -- a known point that passes above a failure (non-monotone): no bound, unknown as before
  c = lp.capacity(lp.points(run { 50, 80, nil, 900, 150 }), slo)
  t.eq(c.kind, "unknown")
end)

t.test("compare.lua: a null TTFT p90 in one stage file: named as null in that file, B's capacity a bound", function()
  -- B: the bundled chunked run with time_to_first_token.p90 set to null in stage_4 (load
  -- point 5). Read with python3 from the stage files: TTFT p90 at stages 0-3 is 34.4, 31.2,
  -- 33.2, 37.2 ms (<= 200), stage 5 1858.6 ms; stage 3 ranks 127.75524872207903 req/s (drain-reduced, _drain)
  -- (successes.throughput.requests_per_sec). A's ceiling (its most at any load) is stage
  -- 6's 104.24 req/s (drain-reduced), below B's bound: B's capacity is the higher whatever the bounds.
  local b = null_p90("nullv", 4)
  local ws, r = t.compare { "--a", FIX .. "/kubecon-na-2025_vllm", "--b", b, "--a-label", "base", "--b-label",
    "nullv", "--slo", "ttft_p90_ms=200" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(ws .. "/comparison_report.md")
  local hl = t.table_rows(md, "Headline")["Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)"]
  t.eq(hl[3], "≥ 127.76 req/s (the last load that met the SLOs)")
  t.ok(hl[6]:find("nullv sustained 127.76 req/s, base never achieved more than 104.24 req/s", 1, true), hl[6])
  -- the reason names the file and the null, not the harness config's percentiles
  t.ok(md:find("time_to_first_token.p90 is null in stage_4_lifecycle_metrics.json, not a number", 1, true))
  t.ok(not md:find("percentiles are set in the harness config", 1, true))
  local cm = json.read(ws .. "/comparison.json")
  t.eq(cm.capacity.b.kind, "last_passing")
  t.near(cm.capacity.b.rps, 127.75524872207903, 1e-9)
end)

t.test("compare.lua: a null at the lowest load: capacity N/A, the Summary says where, not 'not in the files'", function()
  -- stage_0 (load point 1) of the chunked run with its TTFT p90 null: nothing was measured
  -- below it, so no bound; the other six stages hold TTFT p90, so the files do record it
  local b = null_p90("null0", 0)
  local ws, r = t.compare { "--a", FIX .. "/kubecon-na-2025_vllm", "--b", b, "--a-label", "base", "--b-label",
    "null0", "--slo", "ttft_p90_ms=200" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(ws .. "/comparison_report.md")
  local s = md:match("## Summary\n\n(.-)\n\n## ")
  t.ok(s:find("TTFT p90 is unknown at null0's load point 1 (time_to_first_token.p90 is null in "
    .. "stage_0_lifecycle_metrics.json, not a number): rerun that load", 1, true), s)
  t.ok(not s:find("not in null0's files", 1, true), s)
  t.eq(json.read(ws .. "/comparison.json").capacity.b.kind, "unknown")
end)

t.test("Data checks: 'no data check failed' only where a check ran; a run with nothing to compare says so", function()
  -- the kubecon runs hold stage and summary files only (no per-request data: ls of the
  -- fixture folders), so nothing of theirs is checked; vLLM's --save-detailed file holds
  -- per-request arrays and its own summary, which agree (the shared fixture, unchanged)
  local v = t.tmpdir() .. "/detailed"
  t.mkdir(v)
  t.write(v .. "/bench.json", t.read(t.fixtures() .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json"))
  local function checks(a, b)
    local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "A", "--b-label", "B" }
    t.eq(r.code, 0, r.stderr)
    return t.read(ws .. "/comparison_report.md"):match("## Data checks\n\n([^\n]*)"), ws
  end
  local line = checks(FIX .. "/kubecon-na-2025_vllm", FIX .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching")
  t.eq(line, "No data check could run: neither run has both per-request data and a summary of the harness's own "
    .. "to compare (each figure comes from one source only).")
  local ws
  line, ws = checks(v, FIX .. "/kubecon-na-2025_vllm")
  t.eq(line, "No data check failed for A: its per-request data and the harness's summary agree within 1 % on every "
    .. "figure compared. None could run for B: it does not have both per-request data and a summary of the "
    .. "harness's own to compare (each figure comes from one source only).")
  -- the HTML says the same; analyze.lua (from the saved run models) too
  t.ok(t.read(ws .. "/comparison_report.html"):find("None could run for B: it does not have both", 1, true))
  local r = require("llmd.proc").run { ROOT .. "/llmdlua", ROOT .. "/lua/analyze.lua", ws }
  t.eq(r.code, 0, r.stderr)
  t.ok(t.read(ws .. "/comparison_report.md"):find("None could run for B: it does not have both", 1, true))
end)

t.test("--tolerant: a left-out file is a banner at the top; without it the file's error names --tolerant", function()
  -- the chunked run with stage_3's file cut to its first 1000 bytes (not valid JSON)
  local b = t.tmpdir() .. "/trunc"
  t.copy_tree(FIX .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching", b)
  local f = b .. "/stage_3_lifecycle_metrics.json"
  t.write(f, t.read(f):sub(1, 1000))
  local args = { "--a", FIX .. "/kubecon-na-2025_vllm", "--b", b, "--a-label", "A", "--b-label", "B" }
  local _, r = t.compare(args)
  t.eq(r.code, 1)
  t.ok(r.stderr:find("^llmdlua: " .. f:gsub("%p", "%%%0") .. ":1:%d+: [^\n]*%(%-%-tolerant goes on without this "
    .. "file, with a warning in the report%)\n"), r.stderr)
  args[#args + 1] = "--tolerant"
  local ws
  ws, r = t.compare(args)
  t.eq(r.code, 0, r.stderr)
  for _, name in ipairs { "comparison_report.md", "comparison_report.html" } do
    local text = t.read(ws .. "/" .. name)
    local banner = text:find("Result files left out (--tolerant).", 1, true)
    t.ok(banner and banner < text:find("Headline", 1, true), name .. ": the banner comes before the Headline")
    t.ok(text:find(" B (B): " .. f .. ":1:", 1, true), name)
    t.ok(text:find("Its figures lack what that file held (see Data checks).", 1, true), name)
  end
  -- a run with nothing left out has no banner
  ws, r = t.compare { "--a", FIX .. "/kubecon-na-2025_vllm", "--b", FIX .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching" }
  t.eq(r.code, 0, r.stderr)
  t.ok(not t.read(ws .. "/comparison_report.md"):find("left out (--tolerant)", 1, true))
end)

t.test("analyze.lua with a chart template gnuplot rejects: the report without that chart, the others redrawn", function()
  local lfs = require "lfs"
  local ws, r = t.compare { "--a", FIX .. "/kubecon-na-2025_vllm", "--b",
    FIX .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching", "--slo", "ttft_p90_ms=200" }
  t.eq(r.code, 0, r.stderr)
  -- each file's inode: a rewrite (a new file renamed into place) changes it, even with the
  -- same bytes (the data are the same from one analyze to the next)
  local function ids()
    local out = {}
    for name in lfs.dir(ws .. "/charts") do
      if name ~= "." and name ~= ".." then out[name] = lfs.attributes(ws .. "/charts/" .. name, "ino") end
    end
    out["report"] = lfs.attributes(ws .. "/comparison_report.md", "ino")
    return out
  end
  local before = ids()
  t.ok(before["latency_throughput.dat"] and before["achieved_offered.svg"], "the charts were drawn")
  local gp = ws .. "/templates/charts/latency_throughput.gp"
  t.write(gp, "set xrange [ 0 :\n" .. t.read(gp))
  r = require("llmd.proc").run { ROOT .. "/llmdlua", ROOT .. "/lua/analyze.lua", ws, "--quiet" }
  t.eq(r.code, 1)
  t.ok(r.stderr:find(gp .. ": gnuplot failed (exit code 1)", 1, true), r.stderr)
  -- the report and the other chart written again; the one gnuplot rejected gone with its
  -- data (the report says why it is not drawn), no temporary file left
  local after = ids()
  t.ok(after.report ~= before.report, "the report was written")
  t.ok(after["achieved_offered.svg"] ~= before["achieved_offered.svg"], "the other chart was drawn")
  t.eq({ after["latency_throughput.svg"], after["latency_throughput.dat"] }, {})
  local n = 0
  for _ in pairs(after) do n = n + 1 end
  t.eq(n, 3, "report, achieved_offered.svg and .dat")
  t.ok(t.read(ws .. "/comparison_report.md"):find("- Latency against achieved throughput: not drawn. gnuplot could not "
    .. "draw it: " .. gp .. ": gnuplot failed (exit code 1): ", 1, true))
end)

t.test("primitives: a wrong argument's type is said as that, at the script's line (new-user API findings)", function()
  local st = require "llmd.stattest"
  t.raises("welch: b must be a list of numbers, got string", st.welch, { 1, 2, 3 }, "x")
  t.raises("yaml.load: expected YAML text (a string), got number", require("llmd.yaml").load, 5)
  t.raises("json.read: expected a file path (a string), got number", json.read, 42)
  -- a counter asked for without _total, from a script: its line, the function's name
  local d = t.tmpdir()
  t.write(d .. "/s.lua", "local pf = require 'llmd.prom_files'\n"
    .. ("local agg = pf.read_raw_dir(%q)\n"):format(t.fixtures() .. "/prometheus/synthetic-raw")
    .. "print(agg:counter_total('vllm:prefix_cache_hits'))\n")
  local r = require("llmd.proc").run { ROOT .. "/llmdlua", d .. "/s.lua" }
  t.eq(r.code, 1)
  t.eq(r.stderr, ("llmdlua: %s/s.lua:3: agg:counter_total: no series named 'vllm:prefix_cache_hits' (did you mean "
    .. "'vllm:prefix_cache_hits_total'?)\n"):format(d))
end)

t.test("proc.mkdir_marked: the folder and its marker in one call; an existing folder is refused, untouched", function()
  local proc = require "llmd.proc"
  local lfs = require "lfs"
  local d = t.tmpdir() .. "/w"
  t.eq(proc.mkdir_marked(d, "INCOMPLETE", "being made\n"), true)
  t.eq(t.read(d .. "/INCOMPLETE"), "being made\n")
  t.write(d .. "/keep", "x")
  local ok, why, code = proc.mkdir_marked(d, "INCOMPLETE", "again\n")
  t.eq({ ok, code }, { nil, "exists" })
  t.ok(why:find("exists", 1, true), why)
  t.eq(t.read(d .. "/INCOMPLETE"), "being made\n")
  -- a parent that is not there: no folder, the reason
  ok, why, code = proc.mkdir_marked(d .. "/no/such", "INCOMPLETE", "x")
  t.eq({ ok, code }, { nil, nil })
  t.ok(why:find("No such file", 1, true), why)
  t.eq(lfs.attributes(d .. "/no"), nil)
  t.raises("expected a file name", proc.mkdir_marked, d .. "/v", "a/b", "x")
end)
