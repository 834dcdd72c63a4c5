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
