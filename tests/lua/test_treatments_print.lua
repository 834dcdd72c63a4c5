-- The treatments report printed and drawn as compare.lua's is since session 47 (fixg47,
-- fixh47): every table's header row is a thead, so a table split across printed pages
-- repeats it; and the keys under treatments_latency_throughput's and treatments_cdf's panels
-- take the rows gnuplot draws (8.39 px a character + 59.4 px a column at 12 pt, gnuplot 5.4),
-- so that long treatment labels never print over the last panel's x label. Before (fixb48):
-- no thead, and the keys reserved rows for 2 (3 for the CDF) columns whatever the labels'
-- lengths, 60-character labels drawing 6 rows in 1 column over the x label.
local t = require "testlib"
local tr = require "llmd.treatments"
local charts = require "llmd.charts"
local decision = require "llmd.decision"
local ipsynth = require "ipsynth"

-- k treatments of three loads (2, 4, 6 req/s, 100 requests each, every request's data kept),
-- labelled t1xxx... of n characters, their latencies apart by treatment
local function treatments(d, k, n)
  local function spread(i) return 0.05 + 0.001 * (i % 50) end
  local list = {}
  for j = 1, k do
    local dir = ipsynth.run(("%s/r%d"):format(d, j), { { rate = 2, n = 100, latency = spread },
      { rate = 4, n = 100, latency = function(i) return 0.02 * j + spread(i) end },
      { rate = 6, n = 100, latency = function(i) return 0.04 * j + spread(i) end } }, { per_request = true })
    list[j] = { label = ("t%d"):format(j) .. ("x"):rep(n - 2), dirs = { dir } }
  end
  return tr.load(list)
end

t.test("every table of the treatments report has its header row in a thead", function()
  local d = t.tmpdir()
  local out = d .. "/out"
  tr.write_outputs(out, treatments(d, 2, 4), { slo = decision.parse_slo("ttft_p90_ms=500") })
  local html = t.read(out .. "/treatment_report.html")
  local _, tables = html:gsub("<table", "")
  local _, heads = html:gsub("<table[^>]*><thead><tr>", "")
  -- the treatments, the ranking, the latency at the common load and one load-point table each
  t.eq(tables, 5)
  t.eq(heads, tables, "every table's header row in a thead")
  local _, closed = html:gsub("</tr></thead>", "")
  t.eq(closed, tables)
end)

-- The boxes are read off the SVG, as test_charts' latency_throughput key test reads them: each
-- 12 px text's anchor point (baseline) and side, 7 px a character wide (DejaVu Sans at 12 px
-- averages under that), from 12 px above the baseline to 3 px below; no key entry's box may
-- meet an x label's.
t.test("the treatments charts' keys never overlap the panels' x labels, for short and long labels", function()
  local gp = charts.gnuplot()
  t.ok(gp, "gnuplot is installed (scripts/install-deps.sh test)")
  local boxes, meet = t.svg_text_boxes, t.boxes_meet
  local drawn = 0
  for _, size in ipairs { { 6, 3 }, { 5, 24 }, { 3, 40 }, { 4, 60 } } do
    local k, n = size[1], size[2]
    local d = t.tmpdir()
    local list = treatments(d, k, n)
    local m = tr.model(list, { slo = decision.parse_slo("ttft_p90_ms=500") })
    local cs = {}
    for _, c in ipairs(tr.charts(m, list)) do
      if c.name == "treatments_cdf" or c.name == "treatments_latency_throughput" then cs[#cs + 1] = c end
    end
    t.eq(#cs, 2)
    charts.render(cs, t.root() .. "/templates", d .. "/out", gp)
    for _, c in ipairs(cs) do
      local all = boxes(t.read(d .. "/out/" .. c.name .. ".svg"))
      local axis, key = {}, {}
      for _, b in ipairs(all) do
        -- (x labels: the latency chart's rate, the CDF's latencies at their loads)
        if b.txt:find("^achieved ") or b.txt:find("%(ms%) at ") then axis[#axis + 1] = b end
        if b.txt:find("^t%dx*$") or b.txt == "SLO threshold" or b.txt:find("^capacity ") then key[#key + 1] = b end
      end
      t.ok(#axis >= 3 and #key >= k, ("%s: %d x labels, %d key entries"):format(c.name, #axis, #key))
      for _, e in ipairs(key) do
        for _, a in ipairs(axis) do
          t.ok(not meet(e, a), ("%s, labels of %d characters: key '%s' (y %.1f) over '%s' (y %.1f)"):format(c.name, n,
            e.txt, e.y1 - 3, a.txt, a.y1 - 3))
        end
      end
      drawn = drawn + 1
    end
  end
  t.eq(drawn, 8)
end)

-- Printed (headless Chromium, Letter, pdftotext -bbox), a chart's labels are the size of the
-- tables' text on the page. Each word's box is the font's height at its size (one font,
-- DejaVu Sans, for both), so the ratio of two boxes' heights is that of their sizes. The
-- kubecon pair by capacity: its latency chart (900 x 906 units, upright, held to 8.3 in high)
-- and its bars (1080 x 480, sideways). Before (fixb48's CSS, every chart's text 125 %): the
-- tables' text at 8.67 pt (the body's 12 pt shrunk to fit), the latency chart's tick labels at
-- 7.15 pt (0.82 of it), the bars' at 9.76 pt (1.13): by the digits' widths, 0.636 em each.
t.test("printed, every chart's labels are the size of the tables' text", function()
  local proc = require "llmd.proc"
  local chrome = proc.which("chromium-headless-shell") or proc.which("chromium")
  t.ok(chrome, "chromium-headless-shell is installed (scripts/install-deps.sh test)")
  local root = t.root()
  local d = t.tmpdir()
  tr.write_outputs(d .. "/out", tr.load { { label = "vllm", dirs = { root .. "/tests/fixtures/kubecon-na-2025_vllm" } },
    { label = "chunked", dirs = { root .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching" } } },
    { slo = decision.parse_slo("ttft_p90_ms=200") })
  -- the percentages the page is given, by hand: 8 / (12 x min(543.97 / 900, 597.6 / 906)) =
  -- 110 %, 8 / (12 x min(735.31 / 1080, 432 / 480)) = 98 %
  -- (a chart held to the page's height would need more, 8 / (12 x 597.6 / 2000) = 223 %: at most
  -- 125 %, so that long axis labels grow no more than every chart's did before)
  t.eq({ tr.print_text_pct('<svg viewBox="0 0 900 2000">'), tr.print_text_pct("<svg>") }, { "125%", nil })
  local page = t.read(d .. "/out/treatment_report.html")
  t.contains(page, 'data-chart="treatments_latency_throughput" style="--print-text: 110%"')
  t.contains(page, 'data-chart="treatments_bars" class="print-landscape" style="--print-text: 98%"')
  local pdf = d .. "/report.pdf"
  local r = proc.run({ chrome, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--user-data-dir=" .. d .. "/profile", "--no-pdf-header-footer", "--print-to-pdf=" .. pdf,
    "file://" .. d .. "/out/treatment_report.html" }, { timeout = 120 })
  t.ok(r.ok, r.stderr)
  local bb = proc.run({ "pdftotext", "-bbox", pdf, "-" }, { timeout = 60 })
  t.ok(bb.ok, bb.stderr)
  -- each page's words: {text, height}
  local pages = {}
  for p in bb.stdout:gmatch("<page .-</page>") do
    local words = {}
    for y0, y1, w in p:gmatch('<word xMin="[%d.]+" yMin="([%d.]+)" xMax="[%d.]+" yMax="([%d.]+)">([^<]*)</word>') do
      words[#words + 1] = { w = w, h = tonumber(y1) - tonumber(y0) }
    end
    pages[#pages + 1] = words
  end
  -- (the page with these words one after another: a chart's title)
  local function page_of(...)
    local seq = { ... }
    for _, words in ipairs(pages) do
      for i = 1, #words - #seq + 1 do
        local all = true
        for k, s in ipairs(seq) do all = all and words[i + k - 1].w == s end
        if all then return words end
      end
    end
  end
  -- the tables' text: the Treatments table's header words
  local tbl
  for _, x in ipairs(page_of("Harness")) do if x.w == "Harness" then tbl = x.h end end
  -- a chart's tick labels: the words of its SVG's texts that are numbers, on its page (the
  -- caption's words are the page's text, 0.9 em, and none of them is one of its tick labels)
  for _, c in ipairs { { "treatments_latency_throughput", { "Latency", "against", "achieved" } },
    { "treatments_bars", { "At", "the", "common", "load," } } } do
    local ticks = {}
    for s in t.read(d .. "/out/charts/" .. c[1] .. ".svg"):gmatch("<text>%s*(%d+)%s*</text>") do ticks[s] = true end
    local n = 0
    for _, x in ipairs(page_of(table.unpack(c[2]))) do
      if ticks[x.w] then
        n = n + 1
        t.near(x.h / tbl, 1, 0.03, ("%s: tick label %s %.2f high, the tables' text %.2f"):format(c[1], x.w, x.h, tbl))
      end
    end
    t.ok(n >= 10, c[1] .. ": its tick labels found on its page")
  end
end)

-- The CDF chart's y labels are rotated, one a panel: printed at the most text the report
-- allows (125 %, print_text_pct), each must stay within its own panel, off the title and the
-- next panel's label (fixh49: "share of requests at or below (%)", 33 characters, 7 px each
-- at 12 pt (testlib's estimate) x 1.25 = 289 px, against panels 260 px apart).
t.test("the CDF chart's rotated y labels fit their panels at the largest print text", function()
  local d = t.tmpdir()
  tr.write_outputs(d .. "/out", treatments(d, 2, 4), {})
  local svg = t.read(d .. "/out/charts/treatments_cdf.svg")
  local labels = {}
  for y, txt in svg:gmatch('<g transform="translate%([%d.]+,([%d.]+)%) rotate%(270%)"[^>]*>%s*<text>([^<]*)</text>') do
    local half = 7 * utf8.len(txt) * 1.25 / 2
    labels[#labels + 1] = { txt = txt, y0 = tonumber(y) - half, y1 = tonumber(y) + half }
  end
  t.ok(#labels >= 2, "the panels' y labels found")
  -- (the title's line: the multiplot's top 40 px)
  t.ok(labels[1].y0 >= 40, ("%s reaches %.0f, into the title"):format(labels[1].txt, labels[1].y0))
  for i = 2, #labels do
    t.ok(labels[i - 1].y1 < labels[i].y0, ("panel %d's y label (to %.0f) meets panel %d's (from %.0f)"):format(
      i - 1, labels[i - 1].y1, i, labels[i].y0))
  end
end)

-- Printed, a heading is never the last line of a page, its section on the next (newuser49:
-- "Charts" alone at the foot of page 3 of the tp1/tp2 report, its chart on page 4); compare's
-- report keeps its headings with what follows likewise.
t.test("printed, no heading is left at the foot of a page", function()
  local proc = require "llmd.proc"
  local chrome = proc.which("chromium-headless-shell") or proc.which("chromium")
  t.ok(chrome, "chromium-headless-shell is installed (scripts/install-deps.sh test)")
  local root, llmdlua = t.root()
  local d = t.tmpdir()
  local w = t.tp_workspace(d .. "/exp")
  local r = proc.run { llmdlua, root .. "/lua/treatments.lua", w, "--slo", "ttft_p90_ms=100", "--out", d .. "/out",
    "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local page = t.read(d .. "/out/treatment_report.html")
  local heads = {}
  for h in page:gmatch("<h[23][^>]*>([^<]*)</h[23]>") do heads[h] = true end
  t.ok(heads.Charts, "the Charts heading")
  local pdf = d .. "/report.pdf"
  r = proc.run({ chrome, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--user-data-dir=" .. d .. "/profile", "--no-pdf-header-footer", "--print-to-pdf=" .. pdf,
    "file://" .. d .. "/out/treatment_report.html" }, { timeout = 120 })
  t.ok(r.ok, r.stderr)
  local txt = proc.run({ "pdftotext", "-layout", pdf, "-" }, { timeout = 60 })
  t.ok(txt.ok, txt.stderr)
  local n = 0
  for p in (txt.stdout .. "\f"):gmatch("([^\f]*)\f") do
    local last
    for line in p:gmatch("[^\n]+") do
      if line:find("%S") then last = line:match("^%s*(.-)%s*$") end
    end
    if last then
      n = n + 1
      t.ok(not heads[last], ("page %d ends with the heading %q"):format(n, last))
    end
  end
  t.ok(n >= 3, "pages read")
  -- compare's report: the same rule in its print styles
  t.contains(t.read(root .. "/templates/comparison_report.html"), "h1, h2, h3 { break-after: avoid;")
end)
