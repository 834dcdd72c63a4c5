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
  local rps = t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)")
  t.eq(rps.pct_text, "-50.0 % to +100.0 %")
  local row = t.headline_row(m, "Capacity at SLO, output tok/s")
  t.eq(row.pct_text, "-25.0 % to +200.0 %")
  -- it read "... the figures are within the practical threshold of 2.0 %, but the measured
  -- loads allow B − A -50.0 % to +100.0 %", the req/s gap, beside -25.0 % to +200.0 %
  t.eq(row.evidence, "one run per load, no interval; the req/s figures are within the practical threshold of 2.0 %, "
    .. "but in output tok/s the measured loads allow B − A -25.0 % to +200.0 %: not shown to differ, no winner")
  t.ok(not row.evidence:find("+100.0 %", 1, true), row.evidence)
end)

local csv_row = t.csv_row

t.test("the max sustained throughput's order is said alike in the md, HTML, JSON and CSV", function()
  -- the demo pair (python3 on the stage files' successes.throughput.requests_per_sec):
  -- vllm 1.0172, 31.1559, 61.2419, 91.3573, 101.232 (of 122.59 offered: 82.6 %, saturated),
  -- 101.4602, 103.078; chunked ..., 126.5347, 167.7836, 170.2076 (of 212.24: 80.2 %,
  -- saturated), 172.9616. The ranked rates are the drain-reduced ones, completed / (window -
  -- least latency) (python3, _drain in harness_expected.lua): chunked sustained 169.43,
  -- above the most vllm achieved at any load, 104.24: the loads order them (untested)
  local w, r = t.compare { "--a", VLLM, "--a-label", "vllm", "--b", CHUNKED, "--b-label", "chunked", "--slo",
    "ttft_p90_ms=200" }
  t.eq(r.code, 0, r.stderr)
  local want = "one run per load, no interval: untested, but the measured loads order them: chunked sustained "
    .. "169.43 req/s, vllm never achieved more than 104.24 req/s at any load"
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
  -- the capacity row likewise: the order the Headline gives it (127.76 sustained within the
  -- SLO against vllm's 104.24 at most, drain-reduced rates)
  local cap = t.headline_row(js, "Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)").evidence
  t.ok(cap:find("the order holds whatever the bound: chunked sustained 127.76 req/s, vllm never achieved more than "
    .. "104.24 req/s at any load", 1, true), cap)
  t.ok(csv_row(csv, "capacity_at_slo_rps")[11]:find("; evidence: " .. cap, 1, true), "capacity's CSV note")
  -- the Headline's output tok/s capacity has its CSV row too (it had none; new-user trial,
  -- session 32): vllm's bound is its tok/s at the last load before saturation, 5747.232
  -- (stage 3's successes.throughput.output_tokens_per_sec x its drain-reduced rate / its
  -- requests_per_sec), chunked's the TTFT p90 = 200 ms crossing between stages 3 and 4
  -- (37.245 and 226.506 ms) carried onto their output tok/s (7978.361 and 10575.043, the
  -- same way): 10211.382 (python3 on the stage files); B - A from 7978.361 - 6503.427 (vllm's
  -- most) = +1,474.9 (+22.7 %) to 10575.043 - 5747.232 = +4,827.8 (+84.0 %); its evidence the
  -- Headline's tok/s row's
  local tps = csv_row(csv, "capacity_at_slo_output_tps")
  t.eq(tps[2], "tok/s")
  t.near(tonumber(tps[3]), 5747.232, 1e-3)
  t.near(tonumber(tps[4]), 10211.382, 1e-3)
  t.eq(tps[7], "untested")
  local ev = t.headline_row(js, "Capacity at SLO, output tok/s").evidence
  t.ok(ev:find("the measured loads order them in output tok/s too", 1, true), ev)
  t.ok(tps[11]:find("vllm: ≥ 5,747.2 tok/s; chunked: about 10,211.4 tok/s; B - A: +1,474.9 to +4,827.8 tok/s, "
    .. "+22.7 % to +84.0 %; evidence: " .. ev, 1, true), tps[11])
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

local latency_ladder = t.latency_ladder

local function perf_model(da, db)
  local harness = require "llmd.harness"
  local function side(dir, label)
    return { label = label, run = harness.extract(dir, {}), state = { label = label },
      kv = { available = false, reason = "none" } }
  end
  local m = report.build { a = side(da, "x"), b = side(db, "y"), generated = 0 }
  local rows = {}
  for _, row in ipairs(m.perf) do rows[row.key] = row end
  return m, rows
end

t.test("several load points with repeats: the repeats are the units of the stratified test, not their requests",
  function()
  -- 40 TTFTs at each load (50 + i ms at 2/s, 200 + i ms at 10/s, i = 1..40); A 3 repeats at
  -- 2/s and 1 at 10/s, B 1 and 3, each of B's 5.5 ms slower. With the requests of the
  -- repeats pooled as independent (van Elteren on the merged samples) p was 0.00061, "A
  -- better", from 4 runs a side. With the repeats as units, each repeat's TTFT mean one value
  -- (the TTFT rows' one test, as the samples' was):
  -- at 2/s A's three are one value v and B's one v + 5.5 ms (B's rank 4 of 4: probability
  -- 1/4), at 10/s A's one w and B's three w + 5.5 ms (B's ranks 2, 3, 4: 1/4); by hand, the
  -- exact p = 2 x 1/4 x 1/4 = 0.125, and no split of these values could give less (p_min
  -- 0.125): the test cannot show a difference
  local l1, l2, l1s, l2s = {}, {}, {}, {}
  for i = 1, 40 do
    l1[i], l2[i] = (50 + i) / 1000, (200 + i) / 1000
    l1s[i], l2s[i] = l1[i] + 0.0055, l2[i] + 0.0055
  end
  local da = latency_ladder { { 2, l1 }, { 2, l1 }, { 2, l1 }, { 10, l2 } }
  local db = latency_ladder { { 2, l1s }, { 10, l2s }, { 10, l2s }, { 10, l2s } }
  local m, rows = perf_model(da, db)
  t.eq(m.workload_match.like_for_like, true)
  local r = rows.ttft_p90_ms
  t.near(r.p_value, 0.125, 1e-12)
  t.eq({ r.verdict, r.test, r.winner }, { "not shown to differ", "mann_whitney", nil })
  t.eq(r.evidence, "Mann-Whitney on the repeats' TTFT mean, stratified by load point (van Elteren, 2 points, exact), "
    .. "p = 0.125: "
    .. "4 and 4 repeats over 2 load points can give no p below 0.125, so this test cannot show a difference; not in "
    .. "the Holm family")
  -- the TTFT rows read that one test
  t.eq(rows.ttft_p99_ms.evidence, r.evidence)
  -- 3 repeats at both loads on both sides, each repeat a little apart (+0.1 ms, +0.2 ms), B
  -- 5.5 ms slower in every one: complete separation at both loads, by hand p = 2 x (1 /
  -- C(6, 3))^2 = 0.005 (the TTFT means, and the E2E latencies' p50: the same test, 0.005,
  -- Holm 0.01 over the 2); TTFT p90 about 232 ms, 5.5 ms is 2.3 %, beyond 2 %: A better
  local shifted = t.shifted
  local pa, pb = {}, {}
  for k = 0, 2 do
    pa[#pa + 1] = { 2, shifted(l1, k * 1e-4) }
    pa[#pa + 1] = { 10, shifted(l2, k * 1e-4) }
    pb[#pb + 1] = { 2, shifted(l1s, k * 1e-4) }
    pb[#pb + 1] = { 10, shifted(l2s, k * 1e-4) }
  end
  rows = select(2, perf_model(latency_ladder(pa), latency_ladder(pb)))
  r = rows.ttft_p90_ms
  t.near(r.p_value, 0.005, 1e-12)
  t.eq({ r.test, r.winner, r.verdict }, { "mann_whitney", "a", "A better" })
  t.ok(r.evidence:find("^Mann%-Whitney on the repeats' TTFT mean, stratified by load point %(van Elteren, 2 points, "
    .. "exact%), p = 0.005, Holm%-adjusted 0.01"), r.evidence)
  t.eq(r.family_size, 2)
end)

t.test("the repeats pair of the README: TTFT mean tested on the repeats at each load point", function()
  -- exp-7's llm-d-1p1d and vllm-2replicas (3.6 req/s) with tests/fixtures/saturating-repeats'
  -- x and y (5.5 req/s), 3 repeats each: mean_ttft_ms per repeat (python3 on the files)
  -- x 249.540, 255.904, 250.207 | 442.802, 486.818, 431.573; y 243.571, 248.706, 244.259 |
  -- 452.593, 429.932, 426.775. Exact van Elteren (/usr/bin/python3, every split of each
  -- stratum with itertools, weights 1 / 7): p = 0.04, p_min = 0.005. (It was untested: no
  -- per-request samples.)
  local EXP7 = t.fixtures() .. "/vllm-benchmark/exp-7_H100"
  local SAT = ROOT .. "/tests/fixtures/saturating-repeats"
  local function dir(cfg, sat)
    local d = t.tmpdir() .. "/" .. sat
    t.mkdir(d)
    for _, src in ipairs { EXP7 .. "/" .. cfg, SAT .. "/" .. sat } do
      t.walk(src, function(path)
        if path:match("%.json$") then t.copy(path, d .. "/" .. path:match("[^/]+$")) end
      end)
    end
    return d
  end
  local _, rows = perf_model(dir("llm-d-1p1d", "x"), dir("vllm-2replicas", "y"))
  local r = rows.ttft_mean_ms
  t.near(r.p_value, 0.04, 1e-12)
  t.eq(r.test, "mann_whitney")
  t.ok(r.evidence:find("^Mann%-Whitney on the repeats' TTFT mean, stratified by load point %(van Elteren, 2 "
    .. "points, exact%), p = 0.04"), r.evidence)
end)

t.test("two overlapping ranges from repeats are two bars in lanes, never a grey wash over the panel", function()
  local charts = require "llmd.charts"
  -- x crosses TTFT p90 200 ms between 20 and 30 req/s by its means, y too; their repeats'
  -- ranges 10-40 and 20-40 req/s overlap (the Headline's, read by the model)
  local ra = t.repeated_run { { 50, 60, 70 }, { 170, 180, 190 }, { 250, 300, 350 }, { 400, 420, 440 } }
  local rb = t.repeated_run { { 60, 70, 80 }, { 150, 160, 170 }, { 190, 230, 260 }, { 400, 430, 460 } }
  local function sd(x, label, r) return { x = x, label = label, state = { label = label }, run = r, kv = {} } end
  local A, B = sd("a", "x", ra), sd("b", "y", rb)
  local m = report.build { a = A, b = B, slo = decision.parse_slo("ttft_p90_ms=200"), generated = 0 }
  t.eq({ m.capacity.a.interval.text, m.capacity.b.interval.text }, { "10.00–40.00 req/s", "20.00–40.00 req/s" })
  local c = charts.latency_throughput(m, A, B)
  local out = t.tmpdir()
  charts.render({ c }, ROOT .. "/templates", out, charts.gnuplot())
  local svg = t.read(out .. "/latency_throughput.svg")
  -- every filled polygon: its colour, opacity and vertical extent (gnuplot's SVG)
  local tall, bars = 0, { ["0, 114, 178"] = {}, ["213,  94,   0"] = {} }
  for fill, op, pts in svg:gmatch("<polygon fill = 'rgb%(([^)]*)%)' fill%-opacity = '([%d.]+)' points = '([^']*)'") do
    local ylo, yhi = math.huge, -math.huge
    for y in pts:gmatch("[%d.]+,([%d.]+)") do
      ylo, yhi = math.min(ylo, tonumber(y)), math.max(yhi, tonumber(y))
    end
    local h = yhi - ylo
    if h > 100 then
      -- a tint over the panel's height (179 px): faint, so that two of them stay light (it
      -- was 0.12 each, the overlap a grey wash)
      tall = tall + 1
      t.ok(tonumber(op) <= 0.05, ("a full-height fill of opacity %s"):format(op))
    elseif bars[fill:gsub("^%s+", "")] and h > 5 and tonumber(op) >= 0.3 then
      table.insert(bars[fill:gsub("^%s+", "")], { ylo, yhi })
    end
  end
  t.eq(tall, 4, "a tint per run and panel")
  -- each run's bar in each of the 2 panels (and its swatch in the key), A's lane above B's
  -- and apart from it (SVG y grows downwards)
  local ba, bb = bars["0, 114, 178"], bars["213,  94,   0"]
  t.ok(#ba >= 2 and #bb >= 2, ("bars: %d and %d"):format(#ba, #bb))
  t.ok(ba[1][2] <= bb[1][1] + 1e-9, ("A's lane %g-%g above B's %g-%g"):format(ba[1][1], ba[1][2], bb[1][1],
    bb[1][2]))
end)
