-- Session 31's leftovers in compare.lua's report (task cmpfix3): the tok/s capacity row's own
-- gap, the same order in every output, max sustained of a run of two workloads, the
-- stratified test with repeats, precision of cached tokens, the repeats' bands in charts.
-- Expected values are by hand or python3 (numpy) as each test says.
local t = require "testlib"
local json = require "llmd.json"
local report = require "llmd.report"
local decision = require "llmd.decision"

local ROOT = t.here() .. "/../.."
local VLLM = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local CHUNKED = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

-- A run of rate-based load points {offered = achieved req/s, output tok/s, TTFT p90 ms}.
local function run(rows)
  local stages = {}
  for i, r in ipairs(rows) do
    stages[i] = { rate = r[1], values = { throughput_req_s = r[1], throughput_tok_s = r[2], ttft_p90_ms = r[3],
      error_rate_pct = 0 } }
  end
  return t.run_of(stages)
end
local function sdr(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end

t.test("a tok/s capacity row beside a req/s 'not shown to differ' (gap wide) quotes its own tok/s gap", function()
  -- TTFT p90 <= 200 ms crosses between 10 and 20 req/s in both (by hand: x halfway, 15.00;
  -- y at 10 + 10 x 100 / 190 = 15.26): within 2 % of each other, but the brackets 10-20 and
  -- 10-20 allow B - A from 10 / 20 - 1 = -50 % to 20 / 10 - 1 = +100 % in req/s. In tok/s x
  -- delivers 100 a request (1000-2000 tok/s), y 150 (1500-3000): B - A from 1500 / 2000 - 1 =
  -- -25.0 % to 3000 / 1000 - 1 = +200.0 % (by hand)
  local m = report.build { a = sdr("x", run { { 10, 1000, 100 }, { 20, 2000, 300 } }),
    b = sdr("y", run { { 10, 1500, 100 }, { 20, 3000, 290 } }), slo = decision.parse_slo("ttft_p90_ms=200"),
    generated = 0 }
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.gap_wide }, { "not shown to differ", true })
  local rps = t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 200.0 ms)")
  t.eq(rps.pct_text, "-50.0 % to +100.0 %")
  local row = t.headline_row(m, "Capacity at SLO, output tok/s")
  t.eq(row.pct_text, "-25.0 % to +200.0 %")
  -- it read "... the figures are within the practical threshold of 2.0 %, but the measured
  -- loads allow B − A -50.0 % to +100.0 %", the req/s gap, beside -25.0 % to +200.0 %
  t.eq(row.evidence, "one run per load, no interval; the req/s figures are within the practical threshold of 2.0 %, "
    .. "but in output tok/s the measured loads allow B − A -25.0 % to +200.0 %: not shown to differ, no winner")
  t.ok(not row.evidence:find("+100.0 %", 1, true), row.evidence)
end)

-- The CSV row of metric key in comparison.csv's text: its cells (RFC 4180, as written).
local function csv_row(csv, key)
  local line = csv:match("\n" .. key:gsub("%p", "%%%0") .. ",[^\n]*")
  assert(line, "no CSV row " .. key)
  local cells, pos = {}, 1
  line = line:sub(2)
  while pos <= #line + 1 do
    if line:sub(pos, pos) == '"' then
      local j, text = pos + 1, {}
      while true do
        local q = line:find('"', j, true)
        text[#text + 1] = line:sub(j, q - 1)
        if line:sub(q + 1, q + 1) == '"' then text[#text + 1] = '"'; j = q + 2 else pos = q + 2; break end
      end
      cells[#cells + 1] = table.concat(text)
    else
      local c = line:find(",", pos, true) or #line + 1
      cells[#cells + 1] = line:sub(pos, c - 1)
      pos = c + 1
    end
  end
  return cells
end

t.test("the max sustained throughput's order is said alike in the md, HTML, JSON and CSV", function()
  -- the demo pair (python3 on the stage files' successes.throughput.requests_per_sec):
  -- vllm 1.0172, 31.1559, 61.2419, 91.3573, 101.232 (of 122.59 offered: 82.6 %, saturated),
  -- 101.4602, 103.078; chunked ..., 126.5347, 167.7836, 170.2076 (of 212.24: 80.2 %,
  -- saturated), 172.9616. Chunked sustained 167.78, above the most vllm achieved at any
  -- load, 103.08: the loads order them (untested: one run per load)
  local w, r = t.compare { "--a", VLLM, "--a-label", "vllm", "--b", CHUNKED, "--b-label", "chunked", "--slo",
    "ttft_p90_ms=200" }
  t.eq(r.code, 0, r.stderr)
  local want = "one run per load, no interval: untested, but the measured loads order them: chunked sustained "
    .. "167.78 req/s, vllm never achieved more than 103.08 req/s at any load"
  local md = t.read(w .. "/comparison_report.md")
  t.eq(t.table_rows(md, "Headline")["Max sustained throughput"][6], want)
  local js = json.read(w .. "/comparison.json")
  t.eq(t.headline_row(js, "Max sustained throughput").evidence, want)
  local html = t.read(w .. "/comparison_report.html")
  t.ok(html:find(require("llmd.html").escape(want), 1, true), "the HTML's Headline")
  local csv = t.read(w .. "/comparison.csv")
  local row = csv_row(csv, "max_sustained_rps")
  -- (it said "untested" with only the two figures in its note)
  t.eq(row[7], "untested")
  t.ok(row[11]:find("; evidence: " .. want, 1, true), row[11])
  -- the capacity row likewise: the order the Headline gives it (126.53 sustained within the
  -- SLO against vllm's 103.08 at most)
  local cap = t.headline_row(js, "Capacity at SLO (TTFT p90 ≤ 200.0 ms)").evidence
  t.ok(cap:find("the order holds whatever the bound: chunked sustained 126.53 req/s, vllm never achieved more than "
    .. "103.08 req/s at any load", 1, true), cap)
  t.ok(csv_row(csv, "capacity_at_slo_rps")[11]:find("; evidence: " .. cap, 1, true), "capacity's CSV note")
end)

t.test("KV rates: at least 3 significant digits, and a row's A, B and Delta to one precision", function()
  -- cached tokens per completed request 1.9167 against 1.9290 (by hand: +0.0123, whose 3
  -- significant digits need 4 decimals, so A and B get 4 too: it read "1.9", "1.9" beside
  -- "+0.0123"); misses per request 12.5 against 12.5 + 0.25 = 12.75 (+0.250: 3 decimals for
  -- all three); a hit rate of 5.5 % against 6 % (+0.500 pp: 3 decimals, "5.500 %", "6.000 %")
  local function kv_side(label, kv)
    kv.available = true
    return { label = label, state = { label = label }, kv = kv,
      run = t.run_of { { rate = 10, values = { throughput_req_s = 10, ttft_p90_ms = 100 } } } }
  end
  local m = report.build { a = kv_side("x", { hits_per_request = 1.9167, misses_per_request = 12.5,
    hit_rate_pct = 5.5 }), b = kv_side("y", { hits_per_request = 1.9290, misses_per_request = 12.75,
    hit_rate_pct = 6 }), generated = 0, workspace = "/tmp/kv" }
  local by = {}
  for _, part in ipairs { m.kv.rows, m.kv.efficiency } do
    for _, r in ipairs(part) do by[r.key] = r end
  end
  local function cells(k) return { by[k].a_text, by[k].b_text, by[k].delta_text } end
  t.eq(cells("hits_per_request"), { "1.9167", "1.9290", "+0.0123" })
  t.eq(cells("misses_per_request"), { "12.500", "12.750", "+0.250" })
  t.eq(cells("hit_rate_pct"), { "5.500 %", "6.000 %", "+0.500 pp" })
  -- one side unknown: the other at its own 3 significant digits
  m = report.build { a = kv_side("x", { hits_per_request = 1.9167 }), b = kv_side("y", {}), generated = 0,
    workspace = "/tmp/kv" }
  for _, r in ipairs(m.kv.efficiency) do
    if r.key == "hits_per_request" then t.eq(r.a_text, "1.92") end
  end
end)

t.test("a run of two workloads has no max sustained throughput: N/A with why, in every output", function()
  -- vllm-2replicas' files (3.6 req/s, 1599800 / 200 = 7999.0 input tokens a request) beside
  -- vllm-3replicas' (5.5 req/s, 2499750 / 250 = 9999.0): python3 on the files, 25 % apart (>
  -- 5 %): two workloads in one folder (test_newuser31's nu31-8). It read "≥ 5.35 req/s (never
  -- saturated)", the 5.5 req/s workload's rate as the run's limit
  local EXP7 = t.fixtures() .. "/vllm-benchmark/exp-7_H100"
  local dir = t.tmpdir() .. "/mixed"
  for _, c in ipairs { "vllm-2replicas", "vllm-3replicas" } do
    t.walk(EXP7 .. "/" .. c, function(path)
      if path:match("%.json$") then t.copy(path, dir .. "/" .. path:match("[^/]+$")) end
    end)
  end
  local why = "mixed's load points sent different requests (see the Data checks), so a max sustained throughput "
    .. "across them would mix two workloads"
  for _, slo in ipairs { { "--slo", "ttft_p95_ms=300" }, {} } do
    local args = { "--a", dir, "--b", EXP7 .. "/llm-d-1p1d" }
    for _, x in ipairs(slo) do args[#args + 1] = x end
    local w, r = t.compare(args)
    t.eq(r.code, 0, r.stderr)
    local md = t.read(w .. "/comparison_report.md")
    local row = t.table_rows(md, "Headline")["Max sustained throughput"]
    t.eq(row[2], "N/A (mixed's load points sent different requests, see the Data checks, so a max sustained "
      .. "throughput across them would mix two workloads)")
    t.eq({ row[4], row[6] }, { "N/A (unknown for A)", "not compared: " .. why })
    t.ok(md:find("so that run's capacity and max sustained throughput are N/A", 1, true), "the banner")
    local js = json.read(w .. "/comparison.json")
    local h = t.headline_row(js, "Max sustained throughput")
    t.eq({ h.a, h.a_text, h.evidence }, { nil, row[2], row[6] })
    t.eq(js.saturation.a.max_sustained_na, why)
    t.eq(js.saturation.b.max_sustained_na, nil)
    local csv = csv_row(t.read(w .. "/comparison.csv"), "max_sustained_rps")
    t.eq({ csv[3], csv[5], csv[6] }, { "", "", "" })
    t.ok(csv[11]:find("mixed: " .. row[2], 1, true), csv[11])
    local html = t.read(w .. "/comparison_report.html")
    t.ok(html:find(require("llmd.html").escape(row[2]), 1, true), "the HTML's Headline")
    if #slo == 0 then
      -- without SLOs the Summary says it where it gave the two figures
      t.ok(js.summary:find("Max sustained throughput is not compared: " .. why, 1, true), js.summary)
      t.ok(not js.summary:find("5.35", 1, true), js.summary)
    end
  end
end)
