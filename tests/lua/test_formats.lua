-- The report's machine-readable files and its wording where a figure is unknown (the s25
-- audit's F3, F5, F6, F8 attainment, F9): comparison.csv, comparison.json and the
-- Markdown say which side is unknown and why, lists are JSON arrays, numbers are numbers.
-- Expected values are worked out by hand from the fixtures (each test says how).
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"

local F = t.fixtures()
local copy = t.copy

-- compare.lua (testlib's t.compare) that must succeed: the workspace's path
local function compare(extra)
  local w, r = t.compare(extra)
  t.eq(r.code, 0, "compare.lua: " .. tostring(r.stderr))
  return assert(w, "compare.lua made no workspace")
end

-- RFC 4180 rows of a CSV text: { [first field] = {fields...} }, and the header
local function csv_rows(text)
  local rows, header = {}, nil
  local i = 1
  while i <= #text do
    local fields, field = {}, ""
    while true do
      local c = text:sub(i, i)
      if c == '"' then
        local j = i + 1
        while true do
          local q = text:find('"', j, true)
          if text:sub(q + 1, q + 1) == '"' then
            field = field .. text:sub(j, q); j = q + 2
          else
            field = field .. text:sub(j, q - 1); i = q + 1; break
          end
        end
      else
        local e = text:find("[,\n]", i) or #text + 1
        field = field .. text:sub(i, e - 1); i = e
      end
      c = text:sub(i, i)
      fields[#fields + 1] = field
      field = ""
      i = i + 1
      if c ~= "," then break end
    end
    if not header then header = fields else rows[fields[1]] = fields end
  end
  return rows, header
end

local function col(header, name)
  for i, h in ipairs(header) do if h == name then return i end end
  error("no column " .. name)
end

local function exp7_dir()
  return F .. "/vllm-benchmark/exp-7_H100/vllm-2replicas"
end

local function detailed_dir()
  local d = t.tmpdir()
  copy(F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json", d .. "/openai-infqps-concurrency4.json")
  return d
end

t.test("F5: an unknown row says in the CSV and the JSON which side is unknown and why", function()
  -- exp-7's vllm-2replicas files hold median, p95 and p99 TTFT (no p90: its run's
  -- --metric-percentiles left 90 out, read off benchmark_2025-05-13_04-55-27.json's keys); the
  -- synthetic --save-detailed file has per-request TTFTs, so its p90 is known
  local w = compare { "--a", exp7_dir(), "--a-label", "e7", "--b", detailed_dir(), "--b-label", "det" }
  local rows, header = csv_rows(t.read(w .. "/comparison.csv"))
  local r = rows.ttft_p90_ms
  t.ok(r, "a ttft_p90_ms row")
  t.eq(r[col(header, "a")], "")
  t.ok(r[col(header, "b")] ~= "", "B's p90 is known")
  local note = r[col(header, "note")]
  t.ok(note:find("^unknown for e7 %(A%): ") ~= nil, note)
  t.ok(note:find("--metric-percentiles left out 90", 1, true) ~= nil, note)
  local doc = json.read(w .. "/comparison.json")
  local jr
  for _, x in ipairs(doc.perf) do if x.key == "ttft_p90_ms" then jr = x end end
  t.ok(jr.a_na:find("--metric-percentiles left out 90", 1, true) ~= nil, jr.a_na)
  t.eq(jr.b_na, nil)
  t.eq(jr.note, note, "the CSV's note is the JSON row's")
  -- both sides unknown: both reasons, each named
  w = compare { "--a", exp7_dir(), "--a-label", "e7", "--b", F .. "/vllm-benchmark/exp-7_H100/llm-d-1p1d",
    "--b-label", "pd" }
  rows, header = csv_rows(t.read(w .. "/comparison.csv"))
  note = rows.ttft_p90_ms[col(header, "note")]
  t.ok(note:find("^unknown on both sides: e7 %(A%): .*left out 90; pd %(B%): .*left out 90$") ~= nil, note)
end)

t.test("F3: a benchmark report whose rates contradict its counts: N/A in the rows and the per-GPU headline", function()
  -- br_v0_2_example: request_rate.mean 2262.448 req/s against 500 requests in 49.972 s
  -- (10.006 req/s by hand); output_token_rate.mean 2262.448 against 1,131,224 tokens (22,637 tok/s)
  local function dir(name)
    local d = t.tmpdir()
    copy(F .. "/benchmark-report/" .. name, d .. "/" .. name)
    return d
  end
  local w = compare { "--a", dir("br_v0_2_example.yaml"), "--a-label", "v02", "--b", dir("br_v0_2_1_example.yaml"),
    "--b-label", "v021" }
  local rows, header = csv_rows(t.read(w .. "/comparison.csv"))
  for _, k in ipairs { "throughput_req_s", "throughput_tok_s" } do
    t.eq(rows[k][col(header, "a")], "", k .. " a")
    t.eq(rows[k][col(header, "b")], "", k .. " b")
    t.ok(rows[k][col(header, "note")]:find("cannot both be right", 1, true), rows[k][col(header, "note")])
  end
  local md = t.read(w .. "/comparison_report.md")
  local row = md:match("\n| Output tok/s per GPU %(whole run%) |([^\n]*)")
  t.ok(row and row:find("N/A", 1, true) and not row:find("282.8", 1, true), tostring(row))
  row = md:match("\n| Request throughput |([^\n]*)")
  t.ok(row:find("500 / 49.972 s = 10.006 req/s", 1, true), row)
  t.ok(not row:find("2,262.448 req/s", 1, true), row)
end)

local function per_request_only_dir()
  local d = t.tmpdir()
  copy(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json", d .. "/per_request_lifecycle_metrics.json")
  return d
end

-- Every text of the workload match and the summary: no empty list "()", no "by ,", no
-- "vs ;" (the audit's F6 shapes of an empty text where a reason belongs).
local function no_empty_text(s, what)
  for _, bad in ipairs { "()", "by ,", " vs ;", ":  vs", "  " } do
    t.ok(not s:find(bad, 1, true), ("%s has %q: %s"):format(what, bad, s))
  end
end

t.test("F6: a run with only the per-request file: every empty text is 'unknown (why)', no empty table", function()
  -- inference-perf's per-request file alone holds no stage and no load: run A has no load point
  local w = compare { "--a", per_request_only_dir(), "--a-label", "ipr", "--b", detailed_dir(), "--b-label", "det" }
  local doc = json.read(w .. "/comparison.json")
  local by = {}
  for _, d in ipairs(doc.workload_match.differences) do
    by[d.field] = d
    no_empty_text(d.text, "difference " .. d.field)
  end
  t.eq(by.load_type.a, "unknown (no load stage in the results, only whole-run data, which does not say the load)")
  t.eq(by.load_type.b, "concurrency")
  t.eq(by.load_points.a, 0)
  t.ok(by.load_points.text:find("^load points: 0 %(none: no load stage in the results") ~= nil, by.load_points.text)
  no_empty_text(doc.summary, "summary")
  t.ok(doc.summary:find("ipr at an unknown load (no load stage in the results", 1, true), doc.summary)
  -- load_points.a is an empty JSON array, not an object
  local raw = t.read(w .. "/comparison.json")
  t.ok(raw:find('"load_points": {\n    "a": [],', 1, true), "load_points.a is []")
  -- the Markdown and the HTML: one line in place of a table without rows, a table for B
  local md = t.read(w .. "/comparison_report.md")
  local sec = md:match("\n## Load Curves\n(.-)\n## ")
  local a_part = sec:match("%*%*ipr%*%*\n(.-)%*%*det%*%*")
  t.ok(a_part:find("No load points to show: no load stage in the results", 1, true), a_part)
  t.ok(not a_part:find("| Point |", 1, true), "no empty table for ipr")
  t.ok(sec:match("%*%*det%*%*\n(.*)$"):find("| Point |", 1, true), "det's table")
  local html = t.read(w .. "/comparison_report.html")
  t.ok(html:find("<p><strong>ipr</strong></p>\n<p>No load points to show: no load stage", 1, true), "HTML")
end)

t.test("F9: lists are JSON arrays when empty; KV rows hold numbers, and the CSV has them", function()
  -- two exp-7 runs of the same workload: no workload difference, no KV data on either side
  local w = compare { "--a", exp7_dir(), "--a-label", "e7", "--b", F .. "/vllm-benchmark/exp-7_H100/llm-d-1p1d",
    "--b-label", "e7b" }
  local raw = t.read(w .. "/comparison.json")
  t.ok(raw:find('\n  "workload_differs": [],', 1, true), "workload_differs is []")
  t.ok(not raw:find('"workload_differs": {}', 1, true))
  t.ok(raw:find('"perf_notes": [],', 1, true) or raw:find('"perf_notes": [\n', 1, true), "perf_notes is a list")
  local rows, header = csv_rows(t.read(w .. "/comparison.csv"))
  -- no KV data: every KV row is in the CSV, empty a and b, the reason on both sides
  for _, k in ipairs { "kv_hits", "kv_queries", "kv_misses", "kv_hit_rate_pct", "kv_misses_per_request",
    "kv_hits_per_request", "kv_cached_share_pct" } do
    t.ok(rows[k], k .. " in the CSV")
    t.eq(rows[k][col(header, "a")], "")
    t.ok(rows[k][col(header, "note")]:find("^unknown on both sides: ") ~= nil, rows[k][col(header, "note")])
  end
end)

t.test("F9: KV figures from raw scrapes are numbers in the JSON and the CSV, the text beside them", function()
  -- the synthetic raw scrapes (prometheus/synthetic-raw) in both runs: hits and queries are
  -- prom_expected.lua's (prometheus_client's parser + numpy), the same on both sides
  local P = require "prom_expected"
  local function with_scrapes()
    local d = detailed_dir()
    local src = F .. "/prometheus/synthetic-raw"
    proc.run { "mkdir", "-p", d .. "/metrics/raw" }
    for n in lfs.dir(src) do
      if n:match("%.log$") then copy(src .. "/" .. n, d .. "/metrics/raw/" .. n) end
    end
    return d
  end
  local d = with_scrapes()
  local w = compare { "--a", d, "--a-label", "ka", "--b", with_scrapes(), "--b-label", "kb" }
  local doc = json.read(w .. "/comparison.json")
  local hits = doc.kv.rows[1]
  t.eq(hits.key, "hits")
  t.eq(math.type(hits.a) ~= nil, true, "a number")
  t.eq(hits.a, P.hits)
  -- (fixd38: these scrapes count other traffic, 105 requests finished against 8 sent, below:
  -- each figure says so beside it)
  t.eq(hits.a_text, require("llmd.metrics").group_thousands(("%d"):format(P.hits))
    .. " (includes other traffic: 105 requests finished against 8 sent)")
  local rate = doc.kv.rows[4]
  t.eq(rate.key, "hit_rate_pct")
  t.near(rate.a, P.hits / P.queries * 100, 1e-9)
  t.near(rate.delta, 0, 0)
  local rows, header = csv_rows(t.read(w .. "/comparison.csv"))
  t.eq(tonumber(rows.kv_hits[col(header, "a")]), P.hits)
  t.near(tonumber(rows.kv_hit_rate_pct[col(header, "b")]), P.hits / P.queries * 100, 1e-9)
  t.eq(rows.kv_hits[col(header, "verdict")], "context")
  -- (and no order is read from hit rates over other traffic: fixd38)
  t.eq(rows.kv_hit_rate_pct[col(header, "verdict")], "not comparable")
  -- vLLM finished 105 requests over the scrapes (the two pods' vllm:request_success_total
  -- rose 56 + 49), more than these results' 8 requests: per-request figures are N/A, and the
  -- CSV's note carries the line the report prints under its table (a CSV has no "below")
  local note = rows.kv_misses_per_request[col(header, "note")]
  t.ok(note:find("^unknown on both sides: ka %(A%): vLLM's vllm:request_success_total rose by 105 over the 30 s "
    .. "from the first scrape to the last, but the harness sent 8 requests: the scrapes count other requests too")
    ~= nil, note)
  t.ok(not note:find("see below", 1, true), note)
  -- preemptions (by hand from the scrapes: vllm:num_preemptions_total of pod wq7tz goes 0, 1,
  -- 1; of pod k2x9p 0, 0, 0): an increase of 1, a total (context); per 1,000 requests N/A for
  -- the same reason as every per-request figure here, never 0
  local pre
  for _, r in ipairs(doc.kv.rows) do if r.key == "preemptions" then pre = r end end
  t.near(pre.a, 1, 0)
  t.eq(pre.verdict, "context")
  t.near(tonumber(rows.kv_preemptions[col(header, "b")]), 1, 0)
  t.eq(rows.kv_preemptions_per_1k[col(header, "a")], "")
  t.ok(rows.kv_preemptions_per_1k[col(header, "note")]:find("rose by 105", 1, true))
  local md = t.read(w .. "/comparison_report.md")
  t.ok(md:find("| Preemptions (requests evicted from the KV cache) | 1 (includes other traffic: 105 requests finished "
    .. "against 8 sent) | 1 (includes other traffic: 105 requests finished against 8 sent) |", 1, true),
    md:match("## KV.-\n## "))
end)

-- vLLM scrapes without vllm:num_preemptions_total (older servers): the preemptions are
-- unknown with the reason, never 0
t.test("F9b: preemptions unknown where the scrapes lack the counter", function()
  local kvm = require "llmd.kvcache"
  local d = t.tmpdir()
  local src = F .. "/prometheus/synthetic-raw"
  proc.run { "mkdir", "-p", d .. "/metrics/raw" }
  for n in lfs.dir(src) do
    if n:match("%.log$") then
      local text = t.read(src .. "/" .. n):gsub("[^\n]*num_preemptions[^\n]*\n", "")
      t.write(d .. "/metrics/raw/" .. n, text)
    end
  end
  local kv = kvm.analyze(d, nil)
  t.eq(kv.available, true)
  t.eq(kv.preemptions, nil)
  t.eq(kv.na.preemptions, "the scrapes have no vllm:num_preemptions_total")
end)

t.test("F8: SLO attainment counts failed requests in the whole, and the footnote says so", function()
  -- the --save-detailed fixture's 8 requests, 1 failed: with TTFT <= 40 ms and TPOT <= 11 ms
  -- only one request is good (by hand, test_decision.lua's goodput test): 1 / 8 = 12.5 %,
  -- not 1 / 7 = 14.3 %
  local w = compare { "--a", detailed_dir(), "--a-label", "d1", "--b", detailed_dir(), "--b-label", "d2",
    "--slo", "ttft_p90_ms=40,tpot_p90_ms=11" }
  local md = t.read(w .. "/comparison_report.md")
  local sec = md:match("\n## Load Curves\n(.-)\n## ")
  t.ok(sec:find("| 12.5 % |\n", 1, true), sec)
  for _, f in ipairs { "comparison_report.md", "comparison_report.html" } do
    t.ok(t.read(w .. "/" .. f):find("SLO attainment is the share of all the load point's requests that meet every "
      .. "one of those SLOs, failed requests included", 1, true), f)
  end
end)

-- Items session 32 noticed and left (task fixleft4): treatments.lua's max sustained
-- throughput and capacity of a treatment holding two workloads, what Ctrl-C in analyze.lua
-- leaves, a plan's relative paths, the stratified test of an old workspace, bench.sh's
-- inputs generated by two people at once, and the CSV's capacity bound.
--
-- Expected values: by hand from the fixture files (each reading in a comment beside its
-- test), or /usr/bin/python3 where a computation is named.
-- (Formerly test_fixleft4.lua.)
do
  local HERE = t.here()
  local ROOT = proc.run({ "realpath", HERE .. "/../.." }).stdout:gsub("%s+$", "")
  local EXP7 = F .. "/vllm-benchmark/exp-7_H100"

  t.test("fl4-7: comparison.csv says whether a curve row's a and b are a lower bound, an estimate or measured",
    function()
    -- the demo pair, TTFT p90 <= 200 ms: the report reads vLLM's capacity "≥ 92.21 req/s (the
    -- last load before saturation)", a lower bound, and the chunked run's "about 163.59 req/s
    -- (measured: between ...)", interpolated; their max sustained throughputs are load points'
    -- ranked rates (drain-reduced, completed / (window - least latency), python3: 92.21 up to
    -- 104.24, 169.43 up to 174.22: the Headline's)
    local w, r = t.compare { "--a", ROOT .. "/tests/fixtures/kubecon-na-2025_vllm", "--b",
      ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching", "--slo", "ttft_p90_ms=200" }
    t.eq(r.code, 0, r.stderr)
    local csv = t.read(w .. "/comparison.csv")
    -- two columns at the end: every column before them where it was
    t.eq(csv:match("^[^\n]*"), "metric,unit,a,b,delta,change_pct,verdict,test,p_value,effect_pct,note,p_adjusted,"
      .. "family_size,a_bound,b_bound,effect_lo,effect_hi,order,delta_lo,delta_hi,delta_unit,better_is")
    local function bounds(key)
      local c = t.csv_row(csv, key)
      t.eq(#c, 22, key) -- (the order column, then delta_lo and delta_hi: fixg39, newuser48 F5; delta_unit: fixf49; better_is: fixq50)
      return { c[14], c[15] }
    end
    local cap = t.csv_row(csv, "capacity_at_slo_rps")
    t.ok(cap[11]:find(": ≥ 92.21 req/s (the last load before saturation);", 1, true), cap[11])
    t.eq(bounds("capacity_at_slo_rps"), { "lower bound", "estimate" })
    t.eq(bounds("capacity_at_slo_output_tps"), { "lower bound", "estimate" })
    -- newuser48 F5: the gap the Headline gives ("+23.52 to +77.21 req/s", "+22.6 % to +83.7 %")
    -- in numbers, delta_lo and delta_hi (columns 19, 20) and effect_lo and effect_hi (16, 17),
    -- delta and change_pct empty (no single B - A); main: all empty. Its ends by hand from the
    -- capacities' brackets: B's lowest (its last passing load's rate) against A's highest (its
    -- ceiling), B's highest (its first failing load's) against A's lowest (its bound), in
    -- req/s and % of that A figure
    local cj = require("llmd.json").decode(t.read(w .. "/comparison.json"))
    local ca, cb = cj.capacity.a, cj.capacity.b
    local lo, hi = cb.last_passing_rps - ca.ceiling_rps, cb.first_failing_rps - ca.rps
    t.eq({ cap[5], cap[6] }, { "", "" })
    for i, want in pairs { [19] = lo, [20] = hi, [16] = lo / ca.ceiling_rps * 100, [17] = hi / ca.rps * 100 } do
      t.near(tonumber(cap[i]), want, 1e-9, "column " .. i)
    end
    t.contains(cj.headline[1].delta_text, ("+%.2f to +%.2f req/s"):format(lo, hi))
    -- task fixa49 #4: the empty delta and change_pct said in the row's note, and the same in
    -- comparison.json's capacity.gap (no midpoint: the Verdict makes no point estimate); on
    -- main neither said why they were empty beside the ends
    t.contains(cap[11], "; delta and change_pct are empty: no single B - A is known, the measured loads allow any "
      .. "from delta_lo to delta_hi (effect_lo to effect_hi in % of A), a range as the Headline's Delta and Change give "
      .. "it, not a point estimate")
    t.contains(t.csv_row(csv, "capacity_at_slo_output_tps")[11], "; delta and change_pct are empty: no single B - A")
    t.eq(cj.capacity.gap.note, "no point delta: no single B - A is known, the measured loads allow any from lo_rps to "
      .. "hi_rps (lo_pct to hi_pct in % of A), a range as the Headline's Delta and Change give it, not a point estimate")
    t.eq(cj.capacity.delta_pct, nil)
    -- the max sustained row likewise: its gap's ends are the two rows after it
    t.contains(t.csv_row(csv, "max_sustained_rps")[11], "; delta and change_pct are empty: no single B - A is known, "
      .. "the load steps allow a range, whose ends are the max_sustained_rps_gap_low and max_sustained_rps_gap_high rows")
    t.eq(bounds("max_sustained_rps"), { "measured", "measured" })
    -- the performance rows and the KV rows: no bound, empty
    t.eq(bounds("ttft_p90_ms"), { "", "" })
    t.eq(bounds("kv_hits"), { "", "" })
    -- neither run saturated (exp-7's one load point each, 3.485 req/s achieved: "≥ 3.485 req/s
    -- (never saturated)"): both max sustained figures lower bounds; an unknown capacity
    -- (no TTFT p90 in these files) has an empty a and no bound
    w, r = t.compare { "--a", EXP7 .. "/llm-d-1p1d", "--b", EXP7 .. "/vllm-2replicas", "--slo", "ttft_p90_ms=200" }
    t.eq(r.code, 0, r.stderr)
    csv = t.read(w .. "/comparison.csv")
    t.eq(bounds("max_sustained_rps"), { "lower bound", "lower bound" })
    local c = t.csv_row(csv, "capacity_at_slo_rps")
    t.eq({ c[3], c[14] }, { "", "" })
  end)
end
