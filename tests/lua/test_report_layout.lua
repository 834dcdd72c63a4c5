-- The report's top as a busy reader meets it (readable55): a short Summary, Headline cells of a
-- figure, a range or a word, each row's qualification (an N/A's reason, a bound's load, the
-- evidence) in its note, never dropped, and the throughput to quote said once.
local t = require "testlib"
local json = require "llmd.json"

local ROOT = t.here() .. "/../.."
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local TREAT = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

-- scripts/demo.sh's comparison (slo: TTFT p90 <= 200 ms), or the pair with other options
local function pair(extra)
  local args = { "--a", BASE, "--a-label", "vllm", "--a-info", ROOT .. "/tests/fixtures/kubecon-vllm.info.yaml",
    "--b", TREAT, "--b-label", "vllm+chunked-prefix", "--b-info", ROOT .. "/tests/fixtures/kubecon-chunked.info.yaml" }
  for _, x in ipairs(extra) do args[#args + 1] = x end
  local w, r = t.compare(args)
  t.eq(r.code, 0, r.stderr)
  return w, t.read(w .. "/comparison_report.md"), t.read(w .. "/comparison_report.html"),
    json.read(w .. "/comparison.json")
end

local function words(s)
  local n = 0
  for _ in s:gmatch("%S+") do n = n + 1 end
  return n
end

local function ulen(s) return utf8.len(s) or #s end

-- every text of every Headline row (comparison.json keeps them whole) is in the Markdown and
-- the HTML, in its cell or in its row's note: nothing the cells held is lost
local function nothing_lost(md, html, cj)
  local function esc(s) return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;")
    :gsub("'", "&#39;")) end
  for _, r in ipairs(cj.headline) do
    for _, k in ipairs { "a_text", "b_text", "delta_text", "pct_text", "evidence" } do
      local s = tostring(r[k] or "")
      if s ~= "" then
        t.ok(md:find(s, 1, true), ("%s's %s in the Markdown: %s"):format(r.label, k, s))
        local h = esc(s)
        t.ok(html:find(h, 1, true) or html:find(s, 1, true), ("%s's %s in the HTML: %s"):format(r.label, k, s))
      end
    end
  end
end

t.test("the demo pair: a Summary of at most 150 words, led by the decision and the capacity at the SLO", function()
  local _, md, html = pair { "--slo", "ttft_p90_ms=200" }
  local sum = md:match("\n## Summary\n\n(.-)\n## Headline\n")
  t.ok(sum, "the Summary, before the Headline")
  -- (on main it was one paragraph of 233 words, with 170 more of SLO and saturation text after the Headline)
  t.ok(words(sum) <= 150, ("the Summary has %d words"):format(words(sum)))
  local lines = {}
  for l in sum:gmatch("%- %*%*([^:]+):%*%*") do lines[#lines + 1] = l end
  t.eq(lines[1], "Decision")
  t.eq(lines[2], "Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)")
  -- the figures the Headline's capacity row shows, A's a lower bound and B's an estimate
  t.ok(sum:find("vllm ≥ 92.21 req/s, vllm+chunked-prefix about 163.59 req/s; B − A +23.52 to +77.21 req/s "
    .. "(+22.6 % to +83.7 %) (see [1] under the Headline)", 1, true), sum)
  -- the caveats that qualify it: the ladders differ, the model is not known
  t.ok(sum:find("**Caveats:** The same workload (the same requests), on different load ladders; like for like not "
    .. "verified.", 1, true), sum)
  -- the long text one link away, whole
  t.ok(sum:find("[Evidence](#evidence)", 1, true))
  t.ok(md:find("\n## Evidence\n\nCapacity within TTFT p90 ≤ 200.0 ms", 1, true), "the long Summary, under Evidence")
  t.ok(html:find('<a href="#evidence">Evidence</a>', 1, true) and html:find('<h2 id="evidence">Evidence</h2>', 1, true))
end)

t.test("Headline cells: a figure or a word, the rest in the row's note, whole (md and HTML)", function()
  for _, extra in ipairs { { "--slo", "ttft_p90_ms=200" }, {} } do
    local _, md, html, cj = pair(extra)
    local rows = t.table_rows(md, "Headline", true)
    local n = 0
    for label, cells in pairs(rows) do
      if label ~= "" then
        n = n + 1
        for i = 2, 5 do
          local shown = cells[i]:gsub(" %[%d+%]$", "")
          t.ok(ulen(shown) <= 32, ("%s, column %d: %q"):format(label, i, cells[i]))
        end
        local ev = cells[6]:gsub(" ?%[%d+%]$", "")
        t.ok(ulen(ev) <= 50, ("%s, Evidence: %q"):format(label, cells[6]))
      end
    end
    t.ok(n >= 2, "Headline rows")
    nothing_lost(md, html, cj)
    -- each note a cell links to is there, in both formats
    for m in md:gmatch("| [^|\n]- %[(%d+)%] |") do
      t.ok(md:find("\n" .. m .. ". ", 1, true), "md note " .. m)
      t.ok(html:find('<li id="headline-note-' .. m .. '"', 1, true), "HTML note " .. m)
    end
  end
end)

t.test("an N/A's reason moves to the note, never dropped: per GPU without accelerator counts", function()
  local _, md = pair { "--slo", "ttft_p90_ms=200" }
  local raw = t.table_rows(md, "Headline", true)["Per GPU"]
  t.eq(raw[2], "N/A [4]")
  t.ok(md:find("\n4. Per GPU\n   - vllm (A): N/A (accelerator counts unknown: gpus: N in the info files)\n", 1, true), md)
  t.ok(md:find("\n   - Evidence: not compared: neither run's accelerator count is known\n", 1, true))
  -- the whole-run rows of different ladders keep "not like for like" in their own cells
  t.eq(t.table_rows(md, "Performance Results")["Request throughput"][7], "not like for like")
end)

t.test("which throughput to quote: said once, in both formats", function()
  local _, md, html = pair { "--slo", "ttft_p90_ms=200" }
  for _, text in ipairs { md, html } do
    local _, n = text:gsub("Which throughput to quote: ", "")
    t.eq(n, 1)
  end
  t.ok(md:find("Which throughput to quote: Throughput req/s (and Output tok/s), the rate the capacity, max sustained "
    .. "throughput, the Load Ladder and the charts use", 1, true))
  t.ok(md:find("Harness req/s (completed / window; \"harness\" in the Performance Results) is the harness's own rate",
    1, true))
end)
