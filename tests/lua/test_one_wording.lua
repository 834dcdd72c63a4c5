-- Task fixb53: one wording per meaning in the report. An order of two capacities (or max
-- sustained throughputs) is said in one of four ways, each with one name in every output
-- (the Verdict, the Summary, the Headline's evidence, comparison.json's verdict.kind and
-- evidence.verdict, comparison.csv's order column, the rendered markdown and HTML, and
-- treatments.lua's ranking):
--   - bounded within the threshold (least and largest gap both under it): "about the same"
--     (kind "about the same", CSV "about_the_same", treatments vs_next "negligible"); main
--     said "Not shown to differ", the name of a gap the evidence leaves open;
--   - at least as high (least gap under it, largest beyond it): "not shown to be higher by
--     the practical threshold, no winner" (main's Verdict said "not shown to be more by the
--     practical threshold; no winner", its Summary "not shown higher by the practical
--     threshold": three wordings of one meaning);
--   - open (the spans allow a gap beyond the threshold either way): "not shown to differ" or
--     "Cannot say", "either_may_be_higher", never "about the same";
--   - untested but ordered beyond the threshold: "Untested (...), but ...", "b_higher".
-- Every gap below was computed apart, in python3 (of the two figures' mean before verdict55:
-- m(a, b) = (b - a) / ((a + b) / 2) * 100; since verdict55 every margin is on the Change's
-- scale, the higher against the lower, c(a, b) = (b / a - 1) * 100: c(3.50, 3.52) = +0.57 %,
-- c(3.49, 3.54) = +1.43 %, c(17.0, 17.2) = +1.18 %, c(17.0, 17.3) = +1.76 % (+1.8 %), and from
-- 0 no upper end):
--   bounded capacity: least m(3.50, 3.52) = 0.5698 (+0.6 %), largest m(3.49, 3.54) = 1.4225
--     (+1.4 %); Change (3.52 - 3.50) / 3.50 = +0.57 %, (3.54 - 3.49) / 3.49 = +1.43 %
--   bounded max sustained: least m(17.0, 17.2) = 1.1696 (+1.2 %), largest m(17.0, 17.3) =
--     1.7493 (+1.7 %)
--   at least as high capacity: least m(10.0, 10.1) = 0.9950 (+1.0 %), largest y's 20 against
--     x's 0 (x failed at its lowest load) = 200 %
--   open capacity: x between 10 and 20 req/s, y between 12 and 18 (estimates both 15): B − A
--     from (12 - 20) / 20 = -40 % to (18 - 10) / 10 = +80 %
--   untested order: x between 10 and 20, y between 30 and 40: least m(20, 30) = 40 %
local t = require "testlib"
local report = require "llmd.report"
local decision = require "llmd.decision"
local tr = require "llmd.treatments"
local json = require "llmd.json"
local template = require "llmd.template"

local ROOT = debug.getinfo(1, "S").source:match("^@(.*)/tests/lua/[^/]*$") or "."
local SLO = "ttft_p90_ms=100"

local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end

-- points {offered, achieved, TTFT p90 ms}: a treatment (and its run), each p90 known exactly,
-- 10 output tokens a request (so that the capacity's tok/s row has its figures too)
local function treat(label, points)
  local x = t.treatment(label, points)
  for _, st in ipairs(x.run.stages) do
    st.metrics.values.throughput_tok_s = 10 * st.metrics.values.throughput_req_s
  end
  t.with_samples(x.run)
  return x
end

-- compare.lua's model of two treatments' runs (x as A, y as B), with every output of it:
-- md, html (rendered from the templates), json (comparison.json's text), csv
local function outputs(x, y, slo)
  local m = report.build { a = sd(x.label, x.run), b = sd(y.label, y.run), generated = 0, workspace = "/tmp/fixb53",
    slo = slo and decision.parse_slo(slo) or nil }
  m.charts = { list = {} }
  local md = template.render_file(ROOT .. "/templates/comparison_report.md", m)
  local html = template.render_file(ROOT .. "/templates/comparison_report.html", m)
  local js = json.encode(report.plain(m))
  return m, { md = md, html = html, json = js, csv = report.csv(m) }
end

local function csv_order(m, key)
  for _, r in ipairs(report.curve_rows(m)) do if r.key == key then return r.order end end
end

-- none of the old wordings, and none of the other meanings' names, in any output
local OLD = { "not shown to be more by", "not shown higher by", "not shown higher per GPU" }
local function lacks_everywhere(out, list)
  for name, text in pairs(out) do
    for _, s in ipairs(list) do t.lacks(text, s, name) end
  end
end

t.test("bounded within the threshold: capacity 'about the same' in every output, both ends said", function()
  -- x: the last load before saturation 3.49, ceiling 3.50 (4 offered, 3.50 < 0.95 x 4); y:
  -- 3.52, ceiling 3.54; TTFT 50 ms everywhere, within 100 ms: both lower bounds whose spans end
  -- at their ceilings, so the gap is bounded both ways (gaps above, by python)
  local x = treat("x", { { 3, 3, 50 }, { 3.49, 3.49, 50 }, { 4, 3.50, 50 } })
  local y = treat("y", { { 3, 3, 50 }, { 3.52, 3.52, 50 }, { 4, 3.54, 50 } })
  local m, out = outputs(x, y, SLO)
  local ev = m.capacity.evidence
  t.eq({ ev.verdict, ev.below_threshold, ev.margin_higher, ev.higher }, { "about the same", true, "b", nil })
  -- (the Change's scale since verdict55, python3: 3.52 / 3.50 - 1, 3.54 / 3.49 - 1; of their
  -- mean before, 0.5698 and 1.4225)
  t.near(ev.margin_pct, 0.5714285714, 1e-6)
  t.near(ev.margin_max_pct, 1.4326647564, 1e-6)
  t.eq({ m.verdict.kind, m.verdict.higher, m.verdict.at_least_as_high }, { "about the same", nil, nil })
  local both = "and at most +1.4 %, both within the practical threshold of 2.0 %"
  t.eq(m.verdict.text, "About the same capacity within TTFT p90 ≤ 100.0 ms and Error rate ≤ 5 % by default: x ≥ 3.49 "
    .. "req/s, y ≥ 3.52 req/s; the measured loads put y above, but by +0.6 % only (y's 3.52 req/s against "
    .. "x's 3.50 req/s, the figures that order them), " .. both .. ": no winner.")
  t.contains(m.summary, "Both sustain about the same load within TTFT p90 ≤ 100.0 ms and Error rate ≤ 5 % by default: "
    .. "≥ 3.49 req/s (the last load before saturation) for x, ≥ 3.52 req/s (the last load before saturation) for y; "
    .. "the measured loads put y's capacity above x's (y sustained 3.52 req/s and x never achieved more than 3.50 req/s "
    .. "at any load), but only 3.52 req/s against 3.50 req/s (+0.6 %), " .. both .. ", so neither run "
    .. "is named higher.")
  local row = t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 100.0 ms and Error rate ≤ 5 % by default)")
  t.contains(row.evidence, both)
  t.eq(row.evidence:sub(1, #"about the same, no winner ("), "about the same, no winner (")
  t.eq(row.pct_text, "+0.6 % to +1.4 %")
  t.eq({ csv_order(m, "capacity_at_slo_rps"), csv_order(m, "capacity_at_slo_output_tps"),
    csv_order(m, "max_sustained_rps") }, { "about_the_same", "about_the_same", "about_the_same" })
  for _, line in ipairs { "capacity_at_slo_rps", "max_sustained_rps" } do
    t.ok(t.csv_row(out.csv, line), line)
  end
  t.contains(out.csv, ",about_the_same,")
  t.lacks(out.csv, "not_shown_to_differ")
  local doc = json.decode(out.json)
  t.eq({ doc.verdict.kind, doc.capacity.evidence.verdict }, { "about the same", "about the same" })
  -- the rendered reports say it as the model does: the Verdict's words, no open-case name
  t.contains(out.md, "About the same capacity within TTFT p90")
  t.contains(out.html, "About the same capacity within TTFT p90")
  lacks_everywhere(out, { "Not shown to differ in capacity", "Capacity within TTFT p90 ≤ 100.0 ms and Error rate ≤ 5 % "
    .. "by default not shown to differ", "below the practical threshold of 2.0 %, so neither" })
  lacks_everywhere(out, OLD)
  -- treatments.lua: the same pair about the same, the ranking's code of that meaning
  local tm = tr.model({ x, y }, { slo = decision.parse_slo(SLO) })
  local r = tm.ranking[1]
  t.eq({ r.label, r.vs_next, r.proven, r.below_threshold, r.rank_text, tm.ranking[2].rank_text },
    { "y", "negligible", false, true, "1=", "1=" })
  t.contains(r.vs_next_text, "about the same as x (")
  t.contains(r.vs_next_text, both)
  t.lacks(r.vs_next_text, "not shown to differ")
  t.contains(tm.verdict, "about the same as x")
end)

t.test("bounded within the threshold: max sustained throughput 'about the same', both ends said", function()
  -- a sustains 17 (17 offered), saturated at 20 (17.0 < 19): 17 to 17; b 17.2, saturated at 20
  -- (17.3): 17.2 to 17.3. No SLO: the Verdict reads max sustained throughput
  local a = t.treatment("a", { { 10, 10, 100 }, { 17, 17, 100 }, { 20, 17.0, 100 } })
  local b = t.treatment("b", { { 10, 10, 100 }, { 17.2, 17.2, 100 }, { 20, 17.3, 100 } })
  local m, out = outputs(a, b, nil)
  local both = "but by +1.2 % only (b sustained 17.20 req/s, a never achieved more than 17.00 req/s at "
    .. "any load), and at most +1.8 %, both within the practical threshold of 2.0 %: no winner."
  t.eq(m.verdict.kind, "about the same")
  t.eq(m.verdict.text, "About the same max sustained throughput (no SLO given): a 17.00 req/s, b 17.20 req/s; the "
    .. "measured loads put b above, " .. both)
  t.contains(t.headline_row(m, "Max sustained throughput").evidence, "but only by +1.2 %, and at most "
    .. "+1.8 %, both within the practical threshold of 2.0 %: about the same, no winner")
  t.eq({ csv_order(m, "max_sustained_rps"), csv_order(m, "max_sustained_rps_gap_low"),
    csv_order(m, "max_sustained_rps_gap_high") }, { "about_the_same", "about_the_same", "about_the_same" })
  t.eq(json.decode(out.json).verdict.kind, "about the same")
  t.contains(out.md, "About the same max sustained throughput")
  t.contains(out.html, "About the same max sustained throughput")
  lacks_everywhere(out, { "Not shown to differ in max sustained", "not_shown_to_differ" })
  lacks_everywhere(out, OLD)
  -- treatments.lua: its ranking said "untested" alone, as if nothing bounded the gap
  local tm = tr.model { a, b }
  t.eq({ tm.ranking[1].label, tm.ranking[1].vs_next, tm.ranking[1].rank_text }, { "b", "negligible", "1=" })
  t.contains(tm.ranking[1].vs_next_text, "but only by +1.2 %, and at most +1.8 %, both within the "
    .. "practical threshold of 2 %: about the same")
end)

t.test("at least as high: one wording in the Verdict, the Summary, the Headline and treatments.lua", function()
  -- x fails TTFT p90 <= 100 ms at its lowest load (10 req/s, 150 ms): below 10; y meets it at
  -- 10.1 and fails at 20: least gap +1.0 %, largest 20 against 0, no upper end on the Change's
  -- scale (verdict55; +200 % of their mean before)
  local x = treat("x", { { 10, 10, 150 }, { 20, 20, 300 } })
  local y = treat("y", { { 10.1, 10.1, 50 }, { 20, 20, 150 } })
  local m, out = outputs(x, y, SLO)
  local w = decision.AT_LEAST_NO_WINNER
  t.eq(w, "not shown to be higher by the practical threshold, no winner")
  t.eq({ m.verdict.kind, m.verdict.at_least_as_high }, { "at least as high", "b" })
  t.contains(m.verdict.text, "is at least as high as x's (by a gap from +1.0 %, under the practical threshold of 2.0 %, "
    .. "with no upper end): " .. w .. ". ")
  t.contains(m.summary, ": y at least as high as x (by a gap from +1.0 %, under the practical threshold of 2.0 %, with no "
    .. "upper end), " .. w .. ": ")
  t.eq(t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 100.0 ms and Error rate ≤ 5 % by default)").evidence:sub(1, #w + 2),
    w .. " (")
  t.eq(csv_order(m, "capacity_at_slo_rps"), "b_at_least_as_high")
  -- (the Verdict, the Summary and the Headline row each: three in the markdown, as in the HTML)
  local _, n = out.md:gsub(w:gsub("%p", "%%%0"), "")
  t.ok(n >= 3, "md: " .. n)
  _, n = out.html:gsub(w:gsub("%p", "%%%0"), "")
  t.ok(n >= 3, "html: " .. n)
  lacks_everywhere(out, OLD)
  lacks_everywhere(out, { "About the same capacity", "Both sustain about the same load" })
  local tm = tr.model({ x, y }, { slo = decision.parse_slo(SLO) })
  t.contains(tm.ranking[1].vs_next_text, "at least as high as x (")
  t.contains(tm.ranking[1].vs_next_text, "), " .. w .. ": ")
end)

t.test("open: a gap the spans leave beyond the threshold is never 'about the same'", function()
  -- figures within 2 % (both about 15 req/s), but x's bracket 10-20 and y's 12-18 allow B − A
  -- from -40 % to +80 % (by python, above): not shown to differ, the weaker claim
  local x = treat("x", { { 10, 10, 50 }, { 20, 20, 150 } })
  local y = treat("y", { { 12, 12, 50 }, { 18, 18, 150 } })
  local m, out = outputs(x, y, SLO)
  t.eq({ m.capacity.evidence.verdict, m.capacity.evidence.below_threshold }, { "not shown to differ", nil })
  t.eq(m.verdict.kind, "not shown to differ")
  t.contains(m.verdict.text, "Not shown to differ in capacity within")
  t.contains(m.verdict.text, "but the measured loads allow B − A -40.0 % to +80.0 %")
  t.eq(csv_order(m, "capacity_at_slo_rps"), "either_may_be_higher")
  lacks_everywhere(out, { "About the same capacity", "Both sustain about the same load", "about_the_same" })
  -- max sustained: both never saturated, two lower bounds: cannot say, either may be higher
  local a = t.treatment("a", { { 10, 10, 50 }, { 20, 20, 50 } })
  local b = t.treatment("b", { { 10, 10, 50 }, { 20.1, 20.1, 50 } })
  m, out = outputs(a, b, nil)
  t.eq(m.verdict.kind, "cannot say")
  t.eq(csv_order(m, "max_sustained_rps"), "either_may_be_higher")
  lacks_everywhere(out, { "About the same max sustained", "about_the_same" })
end)

t.test("untested, ordered beyond the threshold: named by the loads, never about the same", function()
  -- x between 10 and 20 req/s, y between 30 and 40: the least gap 40 % (by python), beyond 2 %
  local x = treat("x", { { 10, 10, 50 }, { 20, 20, 150 } })
  local y = treat("y", { { 10, 10, 50 }, { 30, 30, 50 }, { 40, 40, 150 } })
  local m, out = outputs(x, y, SLO)
  t.eq({ m.capacity.evidence.verdict, m.capacity.evidence.higher }, { "untested", "b" })
  t.eq(m.verdict.kind, "ordered")
  t.contains(m.verdict.text, "Untested (")
  t.eq(csv_order(m, "capacity_at_slo_rps"), "b_higher")
  lacks_everywhere(out, { "About the same capacity", "about_the_same" })
  lacks_everywhere(out, OLD)
end)
