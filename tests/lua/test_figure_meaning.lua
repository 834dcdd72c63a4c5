-- One meaning per number: comparison.csv's order on the per-GPU max sustained row (the one the
-- Verdict reads where the GPU counts differ), the unit of a % row's delta (percentage points,
-- beside change_pct's relative %), and run_state.json's harness throughput named apart from the
-- report's throughput (audit49 findings 3, 7 and 6).
local t = require "testlib"

do
  local json = require "llmd.json"
  local proc = require "llmd.proc"

  -- comparison.csv's header, its columns by name: the row of key as {column = cell}
  local function csv_cells(csv, key)
    local head = t.csv_row("\n" .. csv:match("^[^\n]*"), "metric")
    local row, out = t.csv_row(csv, key), {}
    for i, name in ipairs(head) do out[name] = row[i] end
    return out
  end

  if not t.have_numpy() then
    t.test("per-GPU order (skipped: no numpy for queue_sim.py)", function() end)
  else
    t.test("max_sustained_rps_per_gpu carries the order the Verdict names per GPU (audit49 F3)", function()
      -- A: 20 slots on 1 GPU, B: 30 slots on 2 (queue_sim.py, 4..16 req/s, 60 s, the audit's
      -- seeds). The Verdict: "A sustains more load per GPU: 8.52 req/s against 6.93 req/s" (by
      -- hand: B's 13.87 req/s / 2 GPUs = 6.93). On main the CSV's max_sustained_rps_per_gpu order
      -- was empty while max_sustained_rps said b_higher: a script reading the order got B.
      local dir = t.tmpdir()
      t.data_py("queue_sim.py", dir .. "/s20", "--rates", "4,6,8,10,12,14,16", "--slots", "20", "--dur", "60",
        "--seed", "7021")
      t.data_py("queue_sim.py", dir .. "/s30", "--rates", "4,6,8,10,12,14,16", "--slots", "30", "--dur", "60",
        "--seed", "7020")
      t.write(dir .. "/g1.yaml", "stack:\n  gpus: 1\n  model: Qwen/Qwen3-0.6B\n")
      t.write(dir .. "/g2.yaml", "stack:\n  gpus: 2\n  model: Qwen/Qwen3-0.6B\n")
      local c = t.compare_ab(dir .. "/s20", dir .. "/s30", { "--a-info", dir .. "/g1.yaml", "--b-info",
        dir .. "/g2.yaml" })
      local v = c.json.verdict
      t.eq({ v.per_gpu, v.higher }, { true, "a" })
      local csv = t.read(c.ws .. "/comparison.csv")
      local g = csv_cells(csv, "max_sustained_rps_per_gpu")
      t.eq(g.order, "a_higher")
      t.eq(g.b:sub(1, 4), "6.93")
      -- the totals keep their own order (B's 13.87 req/s against A's 8.52): a different question
      t.eq(csv_cells(csv, "max_sustained_rps").order, "b_higher")
    end)
  end

  t.test("a % row's delta is in percentage points: comparison.csv's delta_unit (audit49 F7)", function()
    -- the demo pair (the README's): error rate and the throughput rows. A % row's delta is B - A
    -- in points (the report's "+0.00 pp"), its change_pct the relative change: delta_unit "pp";
    -- every other row's delta is in its unit
    local ROOT = t.root()
    local c = t.compare_ab(ROOT .. "/tests/fixtures/kubecon-na-2025_vllm",
      ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching", { "--slo", "ttft_p90_ms=200" })
    local csv = t.read(c.ws .. "/comparison.csv")
    t.eq(csv:match("^[^\n]*"):match("([^,]*),[^,]*$"), "delta_unit") -- (then better_is: fixq50)
    local e = csv_cells(csv, "error_rate_pct")
    t.eq({ e.unit, e.delta_unit }, { "%", "pp" })
    local kv = csv_cells(csv, "kv_hit_rate_pct")
    t.eq({ kv.unit, kv.delta_unit }, { "%", "pp" })
    t.eq(csv_cells(csv, "ttft_p90_ms").delta_unit, "ms")
    t.eq(csv_cells(csv, "throughput_req_s").delta_unit, "req/s")
    t.eq(csv_cells(csv, "capacity_at_slo_rps").delta_unit, "req/s")
    t.eq(csv_cells(csv, "capacity_at_slo_output_tps").delta_unit, "tok/s")
    -- comparison.json's performance rows say the same (fixj50: they had no delta_unit, so a
    -- script reading the JSON took the error rate's delta in points for one in %): each row's
    -- delta_unit is the CSV row's, and the report's Delta text ends in it ("+0.00 pp")
    local n = 0
    for _, r in ipairs(c.json.perf) do
      t.eq(r.delta_unit, csv_cells(csv, r.key).delta_unit, r.key)
      n = n + 1
      if r.key == "error_rate_pct" then
        t.eq(r.delta_unit, "pp")
        t.ok(r.delta_text:find(" pp$"), r.delta_text)
      end
    end
    t.ok(n >= 8, n)
  end)

  t.test("run_state.json names the harness's completed / window harness_throughput_*, and old names still read "
    .. "(audit49 F6)", function()
    -- comparison.csv's throughput_req_s is the load ladder's throughput (the answers' pace or
    -- the drain-reduced rate); run_state.json's figure is the harness's completed / window, the
    -- catalogue's throughput_req_s of the whole run (by hand on the audit's ipaa_0: 5.865 against
    -- 7.095 req/s under one name on main)
    local ROOT = t.root()
    local c = t.compare_ab(ROOT .. "/tests/fixtures/kubecon-na-2025_vllm",
      ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching", {})
    local w = c.ws
    -- (the figures as the fixture's summary states them: successes.throughput's requests_per_sec,
    -- output_tokens_per_sec and total_tokens_per_sec, read here as tests/data/harness_expectations.py does)
    local tp = json.read(ROOT .. "/tests/fixtures/kubecon-na-2025_vllm/summary_lifecycle_metrics.json").successes
      .throughput
    local want = { throughput_req_s = tp.requests_per_sec, throughput_tok_s = tp.output_tokens_per_sec,
      throughput_total_tok_s = tp.total_tokens_per_sec }
    local st = json.read(w .. "/run-a/run_state.json")
    for k, x in pairs(want) do
      t.eq(st.metrics[k], nil, k)
      t.eq(st.metrics["harness_" .. k], x, k)
    end
    t.ok(math.abs(st.metrics.harness_throughput_req_s - 63.4613) < 1e-4)
    -- a run_state.json written before (the old names): read as complete, not re-extracted
    local before = t.read(w .. "/comparison_report.md"):gsub("\nGenerated [^\n]*", "")
    for _, k in ipairs { "throughput_req_s", "throughput_tok_s", "throughput_total_tok_s" } do
      st.metrics[k], st.metrics["harness_" .. k] = st.metrics["harness_" .. k], nil
    end
    json.write(w .. "/run-a/run_state.json", st)
    local r = proc.run { ROOT .. "/llmdlua", ROOT .. "/lua/analyze.lua", w, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    t.ok(not r.stdout:find("re-extracted", 1, true), r.stdout)
    t.eq(t.read(w .. "/comparison_report.md"):gsub("\nGenerated [^\n]*", ""), before)
  end)

  -- The text a reader of an HTML report sees: tags out (a block tag a space, an inline one
  -- nothing), a chart's SVG as its title (its aria-label, which it draws), entities decoded,
  -- runs of white space one space.
  local INLINE = { a = true, strong = true, em = true, code = true, span = true, b = true, i = true }
  local function html_text(h)
    h = h:gsub("<style.->.-</style>", " ")
    h = h:gsub('<svg[^>]-aria%-label="([^"]*)".-</svg>', " %1 ")
    h = h:gsub("<svg.-</svg>", " ")
    h = h:gsub("<!%-%-.-%-%->", " ")
    h = h:gsub("</?([%a%d]+)[^>]*>", function(tag) return INLINE[tag:lower()] and "" or " " end)
    h = h:gsub("&#x(%x+);", function(x) return utf8.char(tonumber(x, 16)) end)
    h = h:gsub("&#(%d+);", function(x) return utf8.char(tonumber(x)) end)
    h = h:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&quot;", '"'):gsub("&amp;", "&")
    return (h:gsub("%s+", " "))
  end
  -- The prose of a markdown report (tables left out: their cells are checked elsewhere), as
  -- pieces of at least 25 characters cut after ". ", ": ", "; " and ") ", markup out: what
  -- a reader of the md reads, each piece to be found in the HTML's text.
  local function md_pieces(md)
    local out = {}
    for line in md:gmatch("[^\n]+") do
      if not line:find("^%s*|") and not line:find("^Generated ") then
        -- a list item's marker out, a nested one's too (indented "   - ", the HTML's <ul>
        -- inside an <li>) and a numbered one's ("1. ", the HTML's <ol>): markup, not text
        local x = line:gsub("^#+ ", ""):gsub("^> ", ""):gsub("^%s*[-*] ", ""):gsub("^%s*%d+%. ", "")
        x = x:gsub("!?%[([^%]]*)%]%([^)]*%)", "%1"):gsub("%*%*", ""):gsub("`", "")
        x = x:gsub("\\([%*_%[%]<>#|`])", "%1"):gsub("%s+", " ")
        local start = 1
        for stop in (x .. " "):gmatch("[.:;)] ()") do
          local piece = x:sub(start, stop - 2):match("^%s*(.-)%s*$")
          if #piece >= 25 then out[#out + 1] = piece end
          start = stop
        end
        local rest = x:sub(start):match("^%s*(.-)%s*$")
        if #rest >= 25 then out[#out + 1] = rest end
      end
    end
    return out
  end
  local function md_in_html(md, html, what)
    local text = html_text(html)
    local missing = {}
    for _, piece in ipairs(md_pieces(md)) do
      if not text:find(piece, 1, true) then missing[#missing + 1] = piece end
    end
    t.eq(missing, {}, what .. ": md text the HTML does not show")
  end

  t.test("every sentence of the markdown reports is in their HTML (what the PDF prints): fixj50", function()
    -- the treatments report's HTML left out, of its md: the common load's "interpolated between
    -- measured load points where none was measured there", "No SLO given (...): the ranking uses
    -- max sustained throughput", "latencies of different loads are not compared", the Pareto
    -- front's "(higher)" and "(lower)", a workload's own common load (its HTML said "this load"),
    -- and where treatment_comparison.csv is. Two treatments of two repeats each (no SLO), four
    -- of one in two workloads (an SLO), and compare.lua's bundled pair, with and without SLOs.
    local ROOT = t.root()
    local X = t.fixtures() .. "/vllm-benchmark/exp-7_H100/"
    local runs = {
      { "--run", "a=" .. X .. "llm-d-1p1d", "--run", "a=" .. X .. "llm-d-2p1d", "--run", "b=" .. X .. "vllm-2replicas",
        "--run", "b=" .. X .. "vllm-3replicas" },
      { "--run", "a=" .. X .. "llm-d-1p1d", "--run", "b=" .. X .. "llm-d-2p1d", "--run", "c=" .. X .. "vllm-2replicas",
        "--run", "d=" .. X .. "vllm-3replicas", "--slo", "ttft_p90_ms=1000" },
    }
    for i, args in ipairs(runs) do
      local out = t.tmpdir()
      local argv = { ROOT .. "/llmdlua", ROOT .. "/lua/treatments.lua", "--out", out, "--quiet" }
      for _, a in ipairs(args) do argv[#argv + 1] = a end
      local r = proc.run(argv)
      t.eq(r.code, 0, r.stdout .. r.stderr)
      local md = t.read(out .. "/treatment_report.md")
      if i == 1 then
        t.contains(md, "interpolated between measured load points where none was measured there")
        t.contains(md, "No SLO given")
      end
      md_in_html(md, t.read(out .. "/treatment_report.html"), "treatments " .. i)
    end
    for _, extra in ipairs { {}, { "--slo", "ttft_p90_ms=200" } } do
      local c = t.compare_ab(ROOT .. "/tests/fixtures/kubecon-na-2025_vllm",
        ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching", extra)
      md_in_html(c.md, t.read(c.ws .. "/comparison_report.html"), "compare " .. #extra)
    end
  end)
end
