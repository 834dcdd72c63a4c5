-- The report's first line, the Verdict (s34 #16): which run sustains more load within the
-- SLOs, by how much, how sure; read off the Headline's lead row and its evidence, so that it
-- never names a winner the Headline does not. Runs are hand-made (testlib.repeated_run: load
-- point i offered and achieving 10 i req/s, TTFT p90 as given); every expected figure is
-- worked out by hand in the comment beside it.
local t = require "testlib"
local report = require "llmd.report"
local decision = require "llmd.decision"

local SLO = decision.parse_slo("ttft_p90_ms=200", "--slo")

local function sd(label, run, gpus)
  return { label = label, state = { label = label, stack = { gpus = gpus } }, run = run, kv = {} }
end

local function build(a, b, slo)
  return report.build { a = sd("x", a), b = sd("y", b), slo = slo or SLO, generated = 0 }
end

-- The Headline's lead row of a model (its first: capacity, or per GPU where it leads).
local function lead(m) return m.headline[1] end

-- The figure of a Headline cell without its brackets, as a reader takes it from the cell.
local function cell_figure(text) return (text:gsub(" %(.*$", "")) end

t.test("verdict: a winner on repeats at every load point, ranges apart", function()
  -- x: TTFT p90 repeats {100,110,120}, {150,160,170}, {250,260,270} at 10, 20, 30 req/s.
  -- Means 110, 160, 260: the SLO (200) crossed at 20 + 10 x (200 - 160) / (260 - 160) =
  -- 24.00 req/s. 95 % intervals (t(0.975, 2) = 4.303, sd 10): +-24.8 ms, so every end passes
  -- at 20 (<= 194.8) and fails at 30 (>= 235.2): range 20-30 req/s.
  -- y: five points passing, then {150,160,170}, {250,260,270} at 50, 60: 54.00 req/s, range
  -- 50-60. Apart: B − A from 50 - 30 = 20 (+66.7 % of 30) to 60 - 20 = 40 (+200.0 % of 20).
  local x = t.repeated_run { { 100, 110, 120 }, { 150, 160, 170 }, { 250, 260, 270 } }
  local y = t.repeated_run { { 100, 110, 120 }, { 100, 110, 120 }, { 100, 110, 120 }, { 100, 110, 120 },
    { 150, 160, 170 }, { 250, 260, 270 } }
  local m = build(x, y)
  local v = m.verdict
  t.eq(m.capacity.evidence.verdict, "B higher") -- what the Headline's evidence reads
  t.ok(lead(m).evidence:find("apart, y higher", 1, true), lead(m).evidence)
  t.eq({ v.kind, v.higher, v.a_figure, v.b_figure, v.change }, { "winner", "b", "24.00 req/s", "54.00 req/s",
    "+66.7 % to +200.0 %" })
  t.eq(v.text, "y sustains more load within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: 54.00 req/s against 24.00 req/s for x "
    .. "(+66.7 % to +200.0 %, from y's 50.00 against x's 30.00 req/s to y's 60.00 against x's 20.00 req/s: the ends of "
    .. "the two ranges their repeats allow). Shown by the repeats at every load point: the ranges they allow are apart.")
  -- the figures are the Headline's cells, the Change its Change, each end with the two ends of
  -- the ranges it is between, by hand: 50 / 30 - 1 = +66.7 %, 60 / 20 - 1 = +200.0 % (fixg47)
  t.eq({ v.a_figure, v.b_figure, v.change }, { cell_figure(lead(m).a_text), cell_figure(lead(m).b_text),
    lead(m).pct_text })
  -- the other way round: the same winner, named as A, its Change still B against A
  -- (by hand: 20 - 60 = -40 (-66.7 % of 60) to 30 - 50 = -20 (-40.0 % of 50))
  m = build(y, x)
  t.eq(m.verdict.text, "x sustains more load within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: 54.00 req/s against 24.00 req/s for y "
    .. "(y -66.7 % to -40.0 % vs x, from y's 20.00 against x's 60.00 req/s to y's 30.00 against x's 50.00 req/s: the "
    .. "ends of the two ranges their repeats allow). Shown by the repeats at every load point: the ranges they allow are apart.")
end)

t.test("verdict: untested, but the measured loads order them (one run per load)", function()
  -- x: 100, 160, 260 ms at 10, 20, 30: about 24.00 req/s, measured between 20 and 30;
  -- y: 100 ms to 40 req/s, 160 at 50, 260 at 60: about 54.00, between 50 and 60. x's
  -- bracket ends (30) below y's start (50): ordered, no test. Change as above.
  local x = t.repeated_run { { 100 }, { 160 }, { 260 } }
  local y = t.repeated_run { { 100 }, { 100 }, { 100 }, { 100 }, { 160 }, { 260 } }
  local m = build(x, y)
  t.eq(m.capacity.evidence.verdict, "untested")
  t.ok(lead(m).evidence:find("untested, but the measured loads order them", 1, true), lead(m).evidence)
  t.eq(m.verdict.kind, "ordered")
  t.eq(m.verdict.text, "y sustains more load within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: about 54.00 req/s against about 24.00 req/s "
    .. "for x (+66.7 % to +200.0 %, from y's 50.00 against x's 30.00 req/s to y's 60.00 against x's 20.00 req/s: the "
    .. "ends of the two runs' ranges). Untested (one run per load), but the measured loads order them.")
  -- the figures are the Headline's own
  t.eq(lead(m).b_text, "about 54.00 req/s (measured: between 50.00 and 60.00)")
end)

t.test("verdict: brackets that overlap name no winner, whichever figure is higher", function()
  -- x: 100, 160, 260 -> about 24.00 (20-30); y: 100, 150, 250 -> 20 + 10 x 50 / 100 = about
  -- 25.00 (20-30). +4.2 % (25 / 24), beyond the 2 % threshold, but both brackets are 20-30:
  -- untested, either may be higher
  local m = build(t.repeated_run { { 100 }, { 160 }, { 260 } }, t.repeated_run { { 100 }, { 150 }, { 250 } })
  t.eq(m.capacity.evidence.verdict, "untested")
  t.ok(lead(m).evidence:find("either may be higher", 1, true), lead(m).evidence)
  t.eq(m.verdict.kind, "cannot say")
  t.eq(m.verdict.higher, nil)
  -- what would settle it (capa39): these points carry no per-request data, so neither run's
  -- percentiles' noise is known
  t.eq(m.verdict.text, "Cannot say which sustains more load within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: x about 24.00 req/s, y about "
    .. "25.00 req/s; untested (one run per load), and either may be higher. To settle it: x: per-request data (each "
    .. "request's latencies, not only the file's percentiles) or repeats of each load, to tell how far its "
    .. "percentiles vary; y: per-request data (each request's latencies, not only the file's percentiles) or repeats "
    .. "of each load, to tell how far its percentiles vary.")
end)

t.test("verdict: figures within the threshold whose brackets allow more are not shown to differ", function()
  -- x about 24.00 (100, 160, 260); y: 100, 162, 262 -> 20 + 10 x 38 / 100 = about 23.80:
  -- 0.8 % apart, within 2 %, but both brackets are 20-30, which allow B − A from 20 / 30 - 1
  -- = -33.3 % to 30 / 20 - 1 = +50.0 %
  local m = build(t.repeated_run { { 100 }, { 160 }, { 260 } }, t.repeated_run { { 100 }, { 162 }, { 262 } })
  t.eq(m.capacity.evidence.verdict, "not shown to differ")
  t.ok(lead(m).evidence:find("not shown to differ, no winner", 1, true), lead(m).evidence)
  t.eq(m.verdict.kind, "not shown to differ")
  t.eq(m.verdict.text, "Not shown to differ in capacity within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: x about 24.00 req/s, y about "
    .. "23.80 req/s; the figures are within the practical threshold of 2.0 %, but the measured loads allow B − A "
    .. "-33.3 % to +50.0 %.")
end)

t.test("verdict: ranges from repeats that overlap are no clear difference", function()
  -- 95 % intervals of three repeats: mean +- 4.303 x sd / sqrt(3) (t(0.975, 2), python3).
  -- x at 10-40 req/s: {100,110,120}, {150,160,170}, {180,230,280} (sd 50: 105.8-354.2),
  -- {300,310,320}. Means 110, 160, 230, 310: 20 + 10 x 40 / 70 = 25.71 req/s; the upper ends
  -- fail from 30 (354.2) and the lower ends only from 40 (285.2): range 20-40.
  -- y: the same but {150,190,230} at 30 (sd 40: 90.6-289.4): means 110, 160, 190, 310 ->
  -- 30 + 10 x 10 / 120 = 30.83 req/s, range 20-40 too. The means' brackets (20-30, 30-40)
  -- meet at one load, so the load steps do not rule an order out: the repeats' ranges
  -- overlap, the gap they allow from 20 / 40 - 1 = -50.0 % to 40 / 20 - 1 = +100.0 %
  local x = t.repeated_run { { 100, 110, 120 }, { 150, 160, 170 }, { 180, 230, 280 }, { 300, 310, 320 } }
  local y = t.repeated_run { { 100, 110, 120 }, { 150, 160, 170 }, { 150, 190, 230 }, { 300, 310, 320 } }
  local m = build(x, y)
  t.eq(m.capacity.evidence.verdict, "no clear difference")
  -- (fixa39: ranges that allow -50 % to +100 % leave either order open, which "no clear
  -- difference" read as sameness; the kind stays, for scripts)
  t.ok(lead(m).evidence:find("^either may be higher %(repeats at every load point.-%) — the repeats' ranges overlap"),
    lead(m).evidence)
  t.ok(not lead(m).evidence:find("no clear difference", 1, true), lead(m).evidence)
  t.eq(m.verdict.kind, "no clear difference")
  -- what would settle it (capa39): at 30 req/s x's mean 230 is 30 ms from 200 with sd 50, y's
  -- 190 is 10 ms from it with sd 40; 10 repeats give t(0.975, 9) x sd / sqrt 10 = 2.262 x 50 /
  -- 3.162 = 35.8 and 28.6 ms (by hand), still wider: no number of repeats up to 10 clears it,
  -- let alone with 80 % chance (fixd43)
  -- (verdict55: measured with repeats, no difference found: its own words, never "Cannot say
  -- which ...", the words of what these data cannot decide, which it printed before)
  t.eq(m.verdict.text, "No clear difference in capacity within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by "
    .. "default: x 25.71 req/s, y 30.83 req/s; measured with repeats at every load point, whose ranges overlap, so "
    .. "neither is shown higher, nor are they shown the same (B − A: -50.0 % to +100.0 %): no winner. To settle it: x at 30 req/s offered: TTFT p90's mean "
    .. "over 3 repeats, 230.0 ms, lies too close to the 200.0 ms limit for 10 repeats to clear it with 80 % chance: its "
    .. "capacity lies near this load; y at 30 req/s offered: TTFT p90's mean over 3 repeats, 190.0 ms, lies too close "
    .. "to the 200.0 ms limit for 10 repeats to clear it with 80 % chance: its capacity lies near this load.")
end)

t.test("verdict: runs whose requests differ are not comparable and name no winner", function()
  -- y orders far above x by its loads (as in the ordered case), but asks 9999 input tokens a
  -- request against x's 204
  local x = t.repeated_run { { 100 }, { 160 }, { 260 } }
  local y = t.repeated_run { { 100 }, { 100 }, { 100 }, { 100 }, { 160 }, { 260 } }
  x.overall.values = { requests_ok = 1000, input_tokens_total = 204000 }
  y.overall.values = { requests_ok = 1000, input_tokens_total = 9999000 }
  local m = build(x, y)
  t.eq(m.capacity.evidence.verdict, "not comparable")
  t.eq(m.verdict.kind, "not comparable")
  t.eq(m.verdict.higher, nil)
  t.eq(m.verdict.text, "Not comparable: the workloads differ (input tokens per request: mean 204.0 vs 9999.0), so "
    .. "no capacity or throughput here names a higher run.")
  t.ok(not m.verdict.text:find("sustains more", 1, true))
end)

t.test("verdict: runs of different models are not comparable and name no winner, nor does any row", function()
  -- the same requests (204 input tokens each), y ordered far above x by its loads (as in the
  -- ordered case: about 54.00 against about 24.00 req/s), but y's answers come from another
  -- model: what one sustains says nothing of the other's configuration (new-user trial: the
  -- banner said "Not the same workload" while the Verdict named llama the winner)
  local x = t.repeated_run { { 100 }, { 160 }, { 260 } }
  local y = t.repeated_run { { 100 }, { 100 }, { 100 }, { 100 }, { 160 }, { 260 } }
  x.overall.values = { requests_ok = 1000, input_tokens_total = 204000 }
  y.overall.values = { requests_ok = 1000, input_tokens_total = 204000 }
  x.model, y.model = "Qwen/Qwen3-0.6B", "meta-llama/Llama-3.1-8B"
  local m = build(x, y)
  t.eq(m.workload_title, "Not the same workload.")
  t.eq(m.capacity.evidence.verdict, "not comparable")
  t.eq({ m.verdict.kind, m.verdict.higher }, { "not comparable", nil })
  t.eq(m.verdict.text, "Not comparable: the workloads differ (model: Qwen/Qwen3-0.6B vs meta-llama/Llama-3.1-8B), "
    .. "so no capacity or throughput here names a higher run.")
  for _, r in ipairs(m.headline) do
    t.ok(r.evidence:find("not compar", 1, true) or r.evidence:find("not compared", 1, true), r.label .. ": " .. r.evidence)
    t.eq(r.higher, nil, r.label)
  end
  -- whole-run rows pool different workloads: none is tested nor names a run
  t.eq(m.workload_match.like_for_like, false)
  -- the same model on both sides (one unknown): the ordered verdict of the case above
  y.model = nil
  m = build(x, y)
  t.eq(m.verdict.kind, "ordered")
end)

t.test("verdict: a capacity N/A on one side names no winner and says whose", function()
  -- x: 250, 150, 160 ms: fails at 10 req/s and meets the SLO at 20 and 30 (non-monotone: no
  -- capacity); y: 100, 150, 250 -> about 25.00 req/s. The Summary's advice for x, repeat
  -- those loads, in the Verdict too (fixg39): from the one that failed, 1, to the last above
  -- it that met the SLO, 3
  local m = build(t.repeated_run { { 250 }, { 150 }, { 160 } }, t.repeated_run { { 100 }, { 150 }, { 250 } })
  t.eq(m.capacity.a.kind, "non_monotone")
  t.eq(m.verdict.kind, "cannot say")
  t.eq(m.verdict.text, "Cannot say which sustains more load within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: no capacity can be read for x: "
    .. "x N/A (non-monotone: met every SLO at 20, 30 req/s, failed TTFT p90 at 10 req/s; see the Summary), y about 25.00 "
    .. "req/s. To settle it: repeat x's load points 1 to 3 (a load that met the SLOs lies above one that failed: noise "
    .. "or a warm-up can do this).")
end)

t.test("verdict: without an SLO, the max sustained throughput", function()
  -- x offered 10, 20, 30 req/s, achieved 10, 20, 22 (22 < 95 % of 30: saturated at point 3):
  -- max sustained 20, ceiling 22. y offered 10-50, achieved 10, 20, 30, 40, 41 (41 < 47.5):
  -- 40, ceiling 41. x's span 20-22 ends below y's 40: ordered, untested. Change: 40 / 22 - 1
  -- = +81.8 % to 41 / 20 - 1 = +105.0 %
  local function run(achieved)
    local stages = {}
    for i, r in ipairs(achieved) do
      stages[i] = { rate = 10 * i, values = { throughput_req_s = r, ttft_p90_ms = 50, error_rate_pct = 0 } }
    end
    return t.run_of(stages)
  end
  local m = build(run { 10, 20, 22 }, run { 10, 20, 30, 40, 41 }, {})
  local row = t.headline_row(m, "Max sustained throughput")
  t.ok(row.evidence:find("the measured loads order them: y sustained 40.00 req/s, x never achieved more than 22.00 "
    .. "req/s", 1, true), row.evidence)
  t.eq({ m.verdict.kind, m.verdict.measure, m.verdict.headline_row }, { "ordered", "max_sustained", "max_sustained" })
  -- the Change's two ends with the four figures they are read from (task fixa49 #2: on main
  -- "+81.8 % to +105.0 %" stood beside 40.00 against 20.00, +100 %, with no 22 or 41 named):
  -- 40 / 22 - 1 and 41 / 20 - 1, by hand as above
  t.eq(m.verdict.text, "y sustains more load (max sustained throughput; no SLO given): 40.00 req/s against 20.00 "
    .. "req/s for x (+81.8 % to +105.0 %, from y's 40.00 against x's 22.00 req/s to y's 41.00 against x's 20.00 req/s: "
    .. "the ends of the two runs' ranges, each from its max sustained throughput up to the most it achieved at any "
    .. "load). Untested (one run per load), but the measured loads order them.")
  -- spans that overlap (x 20-22, y 21-21.5): no winner. y: 10, 21, 21.5 achieved at 10, 20,
  -- 30 offered: saturated at point 3 (21.5 < 28.5), max sustained 21, ceiling 21.5
  m = build(run { 10, 20, 22 }, run { 10, 21, 21.5 }, {})
  t.eq(m.verdict.kind, "cannot say")
  t.ok(t.headline_row(m, "Max sustained throughput").evidence:find("cannot order them", 1, true))
  -- ... and says what it can at the highest load both sustained (offered 20: each one's point
  -- 2, both below saturation), where both TTFT p90 are 50 ms; and that --slo gives capacity
  t.eq(m.verdict.text, "Cannot say which sustains more load (max sustained throughput; no SLO given): the measured "
    .. "loads cannot order them: x 20.00 req/s, y 21.00 req/s. At 20 req/s offered (20.00 req/s achieved by x, "
    .. "21.00 req/s by y), the highest load both sustained, y's latencies are the same (TTFT p90 50.0 ms for both; "
    .. "untested); TPOT p90, end-to-end latency p90 not known in both runs. --slo gives capacity within an SLO.")
  -- (these runs hold a TTFT only: the metrics the clause cannot give are said, fixe51 2)
end)

t.test("verdict: per GPU first where the Headline leads per GPU", function()
  -- the ordered pair, x on 1 GPU and y on 4: per GPU, x's bracket 20-30 and y's 50 / 4 =
  -- 12.5 to 60 / 4 = 15: x's above y's, so x sustains more per GPU (the totals order them
  -- the other way). Figures: 24.00 and 54.00 / 4 = 13.50; B − A from 12.5 - 30 (-58.3 % of
  -- 30) to 15 - 20 (-25.0 % of 20)
  local x = t.repeated_run { { 100 }, { 160 }, { 260 } }
  local y = t.repeated_run { { 100 }, { 100 }, { 100 }, { 100 }, { 160 }, { 260 } }
  local m = report.build { a = sd("x", x, 1), b = sd("y", y, 4), slo = SLO, generated = 0 }
  t.eq(lead(m).key, "capacity_per_gpu")
  t.eq({ m.verdict.kind, m.verdict.higher, m.verdict.per_gpu }, { "ordered", "a", true })
  t.eq(m.verdict.text, "x sustains more load per GPU within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: about 24.00 req/s against about "
    .. "13.50 req/s for y (y -58.3 % to -25.0 % vs x, from y's 12.50 against x's 30.00 req/s per GPU to y's 15.00 "
    .. "against x's 20.00 req/s per GPU: the ends of the two runs' ranges). Untested (one run per load), but the measured loads order them.")
end)

t.test("verdict: in every output, first (md, html, comparison.json)", function()
  -- (200 requests a point, each TTFT alike: each p90 known exactly, so the loads order them;
  -- 20 a point are too few to tell a p90 from its SLO, capa38)
  local x = t.latency_ladder { { 2, t.spread(0.055, 0.055, 200) }, { 4, t.spread(0.305, 0.305, 200) } }
  local y = t.latency_ladder { { 2, t.spread(0.055, 0.055, 200) }, { 4, t.spread(0.065, 0.065, 200) },
    { 6, t.spread(0.065, 0.065, 200) }, { 8, t.spread(0.305, 0.305, 200) } }
  local w, r = t.compare { "--a", x, "--a-label", "x", "--b", y, "--b-label", "y", "--slo", "ttft_p90_ms=200" }
  t.eq(r.code, 0, r.stderr)
  local json = require "llmd.json"
  local v = json.read(w .. "/comparison.json").verdict
  t.eq(v.kind, "ordered", v.text)
  local md = t.read(w .. "/comparison_report.md")
  t.ok(md:find("^# [^\n]*\n\nGenerated [^\n]*\nWorkspace: [^\n]*\n\n%*%*Verdict:%*%* "), md:sub(1, 300))
  t.ok(md:find("**Verdict:** " .. v.text .. "\n", 1, true), "the md's verdict is comparison.json's")
  local html = t.read(w .. "/comparison_report.html")
  local hv = html:match('<p class="verdict"><strong>Verdict:</strong> ([^<]*)</p>')
  t.eq(hv, (v.text:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub("'", "&#39;"):gsub('"', "&quot;")))
  t.ok(html:find('<p class="verdict">', 1, true) < html:find('<h2 id="summary">', 1, true), "above the Summary")
end)

t.test("ladder legend: failed requests within the error-rate limit at loads a run kept up with are said", function()
  -- x: 10, 20, 30 req/s offered, 10, 20, 22 achieved (22 < 95 % of 30: saturated at point 3),
  -- 2 % of requests failed at point 2 (which kept up: 20 of 20); y: never short, 1.5 % and
  -- 3 % failed at points 2 and 3. No error-rate SLO: the limit is 5 %. Before, the legend
  -- said only the saturation, and the Errors % column showed failures nothing explained
  local function run(achieved, err)
    local stages = {}
    for i, r in ipairs(achieved) do
      stages[i] = { rate = 10 * i, values = { throughput_req_s = r, ttft_p90_ms = 50, error_rate_pct = err[i] } }
    end
    return t.run_of(stages)
  end
  local m = build(run({ 10, 20, 22 }, { 0, 2, 0 }), run({ 10, 20, 30 }, { 0, 1.5, 3 }), {})
  local legend = m.ladder.saturation_legend
  t.ok(legend:find("A (x) from load point 3 on: at 30 req/s offered only 22 req/s were achieved (73.3 %, below 95 %) "
    .. "(2 % of the requests failed at load point 2, within 5 %, the error-rate limit used when no error-rate SLO is "
    .. "given, at a load it kept up with)", 1, true), legend)
  t.ok(legend:find("B (y) never saturated: every load point achieved at least 95 % of its offered rate (up to 3 % of "
    .. "the requests failed at load points 2 and 3, within 5 %, the error-rate limit used when no error-rate SLO is "
    .. "given, at loads it kept up with).", 1, true), legend)
  -- no failed request: nothing added
  m = build(run({ 10, 20, 22 }, { 0, 0, 0 }), run({ 10, 20, 30 }, { 0, 0, 0 }), {})
  t.ok(not m.ladder.saturation_legend:find("failed", 1, true), m.ladder.saturation_legend)
end)

t.test("ladder legend and Headline list the same failed loads, a short one too (new-user trial)", function()
  -- y at 10, 20, 30 req/s offered: point 2 achieved 18.9 req/s (94.5 % of 20, below 95 %)
  -- with 4 % failed: with the failed ones 18.9 / 0.96 = 19.69 req/s were answered (98.4 %),
  -- so the shortfall is its failed requests, within the 5 % limit (a load it sustained);
  -- point 3 kept up (30 of 30) with 3 % failed. Before, the Headline said "up to 4 % ... at
  -- load points 2 and 3" and the legend "3 % ... at load point 3", leaving out point 2 (the
  -- files name the failures as the server's errors, failure_kinds: "not overload" needs that)
  local function run(achieved, err)
    local stages = {}
    for i, r in ipairs(achieved) do
      stages[i] = { rate = 10 * i, values = { throughput_req_s = r, ttft_p90_ms = 50, error_rate_pct = err[i] },
        failure_kinds = { timeout = 0, error = err[i], unknown = 0 } }
    end
    return t.run_of(stages)
  end
  -- a fourth point, 40 req/s offered, achieved 25 with none failed (62.5 %): saturated there,
  -- whose reason says nothing of the loads below it
  local m = build(run({ 10, 20, 30 }, { 0, 0, 0 }), run({ 10, 18.9, 30, 25 }, { 0, 4, 3, 0 }), {})
  local said = "up to 4 % of the requests failed at load points 2 and 3, within 5 %, the error-rate limit used when "
    .. "no error-rate SLO is given"
  local legend = m.ladder.saturation_legend
  t.ok(legend:find("B (y) from load point 4 on: at 40 req/s offered only 25 req/s were achieved (62.5 %, below 95 %) ("
    .. said .. ", at loads it kept up with; at load point 2 the successful requests alone fell short of the offered "
    .. "rate: the failed ones made up the rest, not overload).", 1, true), legend)
  local sus
  for _, r in ipairs(m.headline) do if r.key == "max_sustained" then sus = r end end
  t.ok(sus.b_text:find(said, 1, true), sus.b_text)
  -- never saturated: its reason says the short point (counting the failed requests), the
  -- note the others
  m = build(run({ 10, 20, 30 }, { 0, 0, 0 }), run({ 10, 18.9, 30 }, { 0, 4, 3 }), {})
  legend = m.ladder.saturation_legend
  t.ok(legend:find("counting the failed requests, which were answered, at load point 2 (where 4 % failed", 1, true),
    legend)
  t.ok(legend:find("(3 % of the requests failed at load point 3, within 5 %", 1, true), legend)
end)

-- treatments.lua ---------------------------------------------------------------------------

local tr = require "llmd.treatments"
local proc = require "llmd.proc"
local E = require "harness_expected"
local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local VLLM = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local CHUNK = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

t.test("treatments verdict: the kubecon pair, untested but ordered by the measured loads, with and without SLO",
  function()
  local sa, sb = E.kubecon_na_2025_vllm.stages, E.kubecon_na_2025_vllm_chunking_and_prefix_caching.stages
  -- (harness_expected.lua: python3 on the stage files; the ranked _drain rates) chunked's capacity: TTFT p90
  -- crosses 200 ms between its points 4 (126.53 req/s) and 5 (167.78), interpolated in the
  -- achieved rate; vllm's is ≥ its point 4 (91.357, the last before saturation), and vllm
  -- never achieved more than its point 7 (103.078), below chunked's point 4: ordered. Gap:
  -- 126.53 / 103.078 - 1 = +22.8 % to 167.78 / 91.357 - 1 = +83.7 %
  local t4 = (200 - sb[4].ttft_p90_ms) / (sb[5].ttft_p90_ms - sb[4].ttft_p90_ms)
  local capb = sb[4]._drain + t4 * (sb[5]._drain - sb[4]._drain)
  local H = require("llmd.template").helpers
  local list = tr.load { { label = "vllm", dirs = { VLLM } }, { label = "chunked", dirs = { CHUNK } } }
  local m = tr.model(list, { slo = SLO })
  t.eq(m.ranking[1].order_certain, true) -- what the ranking's evidence says
  -- (vllm's bound says its upper end, its point 7, and each end of the gap the two figures it
  -- is between, as compare.lua's Verdict says them: fixb48)
  t.eq(m.verdict_line, ("chunked sustains more load within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 %% by default: about %s "
    .. "req/s against ≥ %s req/s (at most %s req/s: the most it achieved at any load measured) for "
    .. "vllm (chunked %s to %s vs vllm, from chunked's %s against vllm's %s req/s to chunked's %s against vllm's %s "
    .. "req/s: the ends of the two treatments' ranges). Untested (one run per load), but the measured loads order "
    .. "them."):format(
    H.num(capb, 2), H.num(sa[4]._drain, 2), H.num(sa[7]._drain, 2), H.pct((sb[4]._drain / sa[7]._drain - 1) * 100),
    H.pct((sb[5]._drain / sa[4]._drain - 1) * 100), H.num(sb[4]._drain, 2), H.num(sa[7]._drain, 2),
    H.num(sb[5]._drain, 2), H.num(sa[4]._drain, 2)))
  -- treatments.json's gap carries those four figures, one meaning a number (fixb49: only its
  -- ends in % and req/s were there): the lower end chunked's point 4 against vllm's 7, the
  -- upper end chunked's point 5 against vllm's 4
  local ends = m.ranking[1].evidence.gap.ends
  t.near(ends.lower.this_rps, sb[4]._drain, 1e-9)
  t.near(ends.lower.next_rps, sa[7]._drain, 1e-9)
  t.near(ends.upper.this_rps, sb[5]._drain, 1e-9)
  t.near(ends.upper.next_rps, sa[4]._drain, 1e-9)
  -- no SLO: max sustained throughput, chunked's point 5 (167.784) against vllm's point 4;
  -- vllm's ceiling (103.078) below 167.784: ordered, untested. The gap of the two limits'
  -- ranges (each from its figure to its ceiling, its point 7), with the four figures its ends
  -- are between, as compare.lua's Verdict gives its Change (fixb49: no gap was said)
  m = tr.model(tr.load { { label = "vllm", dirs = { VLLM } }, { label = "chunked", dirs = { CHUNK } } })
  t.eq(m.verdict_line, ("chunked sustains more load (max sustained throughput; no SLO given): %s req/s against %s "
    .. "req/s for vllm (chunked %s to %s vs vllm, from chunked's %s against vllm's %s req/s to chunked's %s against "
    .. "vllm's %s req/s: the ends of the two limits' ranges). Untested (neither chunked nor vllm has repeats at its "
    .. "max sustained load point), but the measured loads order them."):format(H.num(sb[5]._drain, 2),
    H.num(sa[4]._drain, 2), H.pct((sb[5]._drain / sa[7]._drain - 1) * 100),
    H.pct((sb[7]._drain / sa[4]._drain - 1) * 100), H.num(sb[5]._drain, 2), H.num(sa[7]._drain, 2),
    H.num(sb[7]._drain, 2), H.num(sa[4]._drain, 2)))
  ends = m.ranking[1].evidence.gap.ends
  t.near(ends.lower.this_rps, sb[5]._drain, 1e-9)
  t.near(ends.lower.next_rps, sa[7]._drain, 1e-9)
  t.near(ends.upper.this_rps, sb[7]._drain, 1e-9)
  t.near(ends.upper.next_rps, sa[4]._drain, 1e-9)
end)

t.test("treatments verdict: shown by repeats, or no treatment shown best; the report's first line", function()
  -- three repeats each at 2, 4, 8 req/s (latency_ladder: achieved 0.99 x offered); TTFT
  -- (s) spread over 20 requests. fast meets TTFT p90 ≤ 200 ms up to 4 and fails at 8 (all
  -- repeats 0.30-0.31 s); slow fails already at 2: ranges 3.96-7.92 req/s and below 1.98,
  -- apart (beyond the rates' noise, fast passing at 4 req/s offered where slow failed at 2):
  -- shown. (Ranges meeting only at 4 req/s offered, slow failing there, were shown too until
  -- audit47 F2: an order by one offered load has a least gap of 0, no winner.)
  local function ladder(ttft2, ttft4)
    local pts = {}
    for _, rate in ipairs { 2, 4, 8 } do
      for k = 1, 3 do
        local lo = rate == 2 and ttft2 or rate == 4 and ttft4 or 0.300
        pts[#pts + 1] = { rate, t.spread(lo + k * 0.001, lo + 0.010 + k * 0.001, 20) }
      end
    end
    return t.latency_ladder(pts)
  end
  local fast, slow = ladder(0.050, 0.060), ladder(0.300, 0.300)
  local m = tr.model(tr.load { { label = "slow", dirs = { slow } }, { label = "fast", dirs = { fast } } },
    { slo = SLO })
  t.eq(m.ranking[1].proven, true, m.ranking[1].vs_next_text)
  t.ok(m.verdict_line:find("^fast sustains more load within TTFT p90 ≤ 200%.0 ms and Error rate ≤ 5 %% by default: "
    .. "[%d.]+ req/s against < [%d.]+ req/s for "
    .. "slow %(fast [^)]*vs slow%)%. Shown by repeats%.$"), m.verdict_line)
  -- the same ladder twice: no treatment shown best
  local twin = ladder(0.050, 0.060)
  m = tr.model(tr.load { { label = "a", dirs = { fast } }, { label = "b", dirs = { twin } } }, { slo = SLO })
  t.ok(not m.ranking[1].proven and not m.ranking[1].order_certain, m.ranking[1].vs_next_text)
  t.ok(m.verdict_line:find("^No treatment is shown to be best within TTFT p90 ≤ 200%.0 ms and Error rate ≤ 5 %% by default: "), m.verdict_line)
  -- two workloads: one line each, each its own ranking's (fast over slow in one, the twins
  -- not ordered in the other)
  m = tr.model(tr.load { { label = "slow", dirs = { slow }, workload = "one" },
    { label = "fast", dirs = { fast }, workload = "one" }, { label = "a", dirs = { fast }, workload = "two" },
    { label = "b", dirs = { twin }, workload = "two" } }, { slo = SLO })
  t.ok(m.verdict_line:find("^Workload one: fast sustains more load within TTFT p90 ≤ 200%.0 ms and Error rate ≤ 5 %% "
    .. "by default: .-%. Shown by repeats%. Workload two: No treatment is shown to be best within TTFT p90 ≤ 200%.0 ms "
    .. "and Error rate ≤ 5 %% by default: "), m.verdict_line)
  -- in the report, first
  local out = t.tmpdir()
  local r = proc.run { ROOT .. "/llmdlua", "treatments.lua", "--run", "slow=" .. slow, "--run", "fast=" .. fast,
    "--slo", "ttft_p90_ms=200", "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  local md = t.read(out .. "/treatment_report.md")
  local json = require "llmd.json"
  local line = json.read(out .. "/treatments.json").verdict_line
  t.ok(md:find("^# [^\n]*\n\nGenerated [^\n]*\n\n%*%*Verdict:%*%* "), md:sub(1, 300))
  t.ok(md:find("**Verdict:** " .. line .. "\n", 1, true), line)
  t.ok(md:find("\n## How these figures are defined\n\nThroughput: the throughput of a load point (req/s, ", 1, true))
  t.ok(md:find(" the throughput is the harness's own rate.\n\nMax sustained throughput: the highest throughput "
    .. "before the load curve saturates (llmd.loadpoints); the true limit lies between it and the most", 1, true))
  t.ok(md:find(" is marked mildly overloaded.\nCapacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % "
    .. "by default): the throughput (req/s, as defined under Throughput", 1, true))
end)

t.test("verdict: one run's results in both folders say so, and advise nothing to measure", function()
  -- TTFT p90 100, 110, 120 ms at 10, 20, 30 req/s: the SLO (200) never fails, so the capacity is
  -- a lower bound, >= 30.00 req/s (by hand). Two such runs: "both are lower bounds", and where
  -- each capacity lies would settle it. The same run in both folders (compare.lua's same-files
  -- check, report.build's identical): nothing measured again tells a run from itself
  local z = t.repeated_run { { 100 }, { 110 }, { 120 } }
  t.contains(build(z, z).verdict.text, "To settle it: measure loads where each capacity lies")
  local m = report.build { a = sd("x", z), b = sd("y", z), slo = SLO, generated = 0,
    identical = "X (x) and Y (y) hold the same 3 files, byte for byte, so this compares one measurement with itself" }
  t.eq({ m.verdict.kind, m.verdict.higher, m.verdict.settle }, { "cannot say", nil, nil })
  t.eq(m.verdict.text, "Cannot say which sustains more load: both folders hold one run's results (capacity within "
    .. "TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: ≥ 30.00 req/s), so this compares one measurement with "
    .. "itself, and no further load measured of it would tell two configurations apart: give the other "
    .. "configuration's results. Warning: both folders hold the same files (see below).")
  -- (without it the Summary says "measure higher loads to find the capacities")
  t.contains(build(z, z).summary, "measure higher loads")
  t.lacks(m.summary, "measure higher loads")
  t.lacks(m.summary, "To settle it")
  t.contains(m.summary, "≥ 30.00 req/s (never violated) in both folders, one run's figure read twice, so it tells no "
    .. "two configurations apart.")
end)

-- Session 38 (fixa38): decision-layer wording and verdicts left by session 37. The no-SLO
-- latency clause names an untested difference untested (never "not shown to differ") and
-- points to the table's test of the same metric; a throughput row names no winner where one
-- run's throughput is only what it was sent; one load point's van Elteren test is a plain
-- Mann-Whitney; the capacity's definition says what is computed; treatments mark a run
-- mildly overloaded at the common load.
--
-- Expected values by hand or python3 (numpy), as said beside each.
-- (Formerly test_fixa38.lua.)
do
  local ipsynth = require "ipsynth"

  -- inference-perf runs (tests/lua/ipsynth.lua: n requests sent every 1 / rate s, 8 output
  -- tokens, TTFT 20 ms, with the per-request file). A answers request k in 0.4 + 0.01 (7k mod 10)
  -- s, B in 0.02 + 1.5 (0.38 + 0.01 (7k mod 10)) s: B's decode is 1.5 times A's. (7k mod 10,
  -- not k mod 10: a rising saw has neighbours alike in send order, lag-1 correlation 0.423 above
  -- 2 / sqrt(60), which since fixi45 no test takes for independent; 7k's is -0.25, python3; the
  -- same values in every 10, so the same figures.)
  local fa = function(k) return 0.4 + 0.01 * (7 * k % 10) end
  local fb = function(k) return 0.02 + (0.38 + 0.01 * (7 * k % 10)) * 1.5 end
  local function pair(b_last)
    local d = t.tmpdir()
    local sa, sb = {}, {}
    for i, rate in ipairs { 2, 4, 6 } do
      sa[i], sb[i] = { rate = rate, n = 60, latency = fa }, { rate = rate, n = 60, latency = fb }
    end
    if b_last then
      sa[4], sb[4] = { rate = 8, n = 80, latency = fa }, { rate = 8, n = 80, latency = b_last }
    end
    local a = ipsynth.run(d .. "/a", sa, { per_request = true })
    local b = ipsynth.run(d .. "/b", sb, { per_request = true })
    local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "A", "--b-label", "B", "--harness", "inference-perf" }
    t.eq(r.code, 0, r.stderr)
    return t.read(ws .. "/comparison_report.md")
  end

  -- python3 (numpy), on the latencies above, 60 a stage: end-to-end p90 481.0 ms (A) and
  -- 711.5 ms (B), +47.92 %; TPOT p90 ((e2e - 0.02) / 7) 65.857 and 98.786 ms, +50.0 %. Every
  -- B latency (>= 0.59 s) is above every A latency (<= 0.49 s): the van Elteren z over the
  -- three equal strata is 9.459 x sqrt(3) = 16.38 (tie-corrected), p 2.5e-60, "p < 1e-9".
  t.test("no SLO: an untested latency difference reads as untested, and the table's test of it is named (Verdict)",
    function()
      -- both never saturated (6 req/s kept up): the max sustained throughputs cannot be ordered,
      -- so the Verdict goes on with the latencies at 6 req/s. Before: "B's latencies are not
      -- shown to differ (untested: ... end-to-end latency p90 +47.9 %)" beside a table whose
      -- end-to-end p90 row finds A better, p < 1e-9.
      local md = pair()
      local verdict = md:match("\n%*%*Verdict:%*%* ([^\n]*)")
      -- (since fixb39 each load point's TPOT samples are tested too: every B TPOT, >= 0.57 / 7 s,
      -- is above every A TPOT, <= 0.47 / 7 s, the same complete separation as the end-to-end
      -- latencies, p < 1e-9; two tests in the family, each Holm-adjusted)
      -- (fixh41: a figure the table tests is not called untested beside its test; the one
      -- without a test is)
      t.ok(verdict:find("the highest load both sustained, B's latencies against A's: TTFT p90 20.0 ms for both, TPOT "
        .. "p90 +50.0 % (Performance Results, over all load points: A better, p < 1e-9, Holm-adjusted < 1e-9), "
        .. "end-to-end latency p90 +47.9 % (Performance Results, over all load points: A better, p < 1e-9, "
        .. "Holm-adjusted < 1e-9) (no test at this load: the test pools this load with the others, and without an SLO none is made of one "
        .. "load alone).", 1, true), verdict)
      t.ok(not verdict:find("not shown to differ", 1, true), verdict)
      t.ok(md:find("| End-to-end latency p90 | 481.0 ms | 711.5 ms | +230.5 ms | +47.9 % | A better |", 1, true))
    end)

  t.test("no SLO: the Summary's latencies at the common load point to the test the next sentence makes", function()
    -- B's last stage (8 req/s) goes through one server answering every 0.25 s (4 req/s): B
    -- saturates there, A keeps up; the highest load both sustained is 6 req/s. The table's
    -- end-to-end rows test the loads both sustained only (B overloaded at 8): "A's values are
    -- lower" there, p < 1e-9 (as above: 3 equal strata, complete separation).
    local md = pair(ipsynth.queue(0.25))
    local summary = md:match("\n## Evidence\n\n([^\n]*)")
    -- (5.99 req/s achieved before fixi45 reordered the latencies, 7k mod 10: the achieved rate
    -- reads when the stage's answers ended, which the order moves; not what is tested here)
    t.ok(summary:find("At 6 req/s offered (6.00 req/s achieved by both), the highest load both runs sustained, B's "
      .. "latencies against A's: TTFT p90 20.0 ms for both, TPOT p90 98.79 ms vs 65.86 ms "
      .. "(+50.0 %; Performance Results, at the loads both sustained: A's lower, p < 1e-9, Holm-adjusted < 1e-9), "
      .. "end-to-end latency p90 711.5 ms vs 481.0 ms (+47.9 %; Performance Results, at the loads both sustained: A's "
      .. "lower, p < 1e-9, Holm-adjusted < 1e-9) (B − A; no test at this load: the test pools this load with the others, and without an SLO "
      .. "none is made of one load alone).", 1,
      true),
      summary)
    -- (each row with its effect within the load points and its interval, fixc39: the
    -- percentiles of 65 requests a point above p90 have no bound, so name no winner; B against
    -- A since fixa43, by hand: each point's p50 (linear, ranks 30 and 31 of 60) 0.445 s for A,
    -- 0.59 + 0.015 x 4.5 = 0.6575 s for B, 0.6575 / 0.445 = 1.4775: +47.8 %)
    t.ok(summary:find("At the loads both runs sustained, A's values are lower in end-to-end latency p50 (+47.8 %, 95 % "
      .. "interval", 1, true), summary)
    -- (fixb39) each test named as it ran, with its own p: TPOT's and E2E's are two tests, at the
    -- 3 loads both sustained (2, 4 and 6 req/s; B overloaded at 8), never one name for both
    t.ok(summary:find("(one Mann-Whitney stratified by load point (van Elteren, 3 points) for these ", 1, true), summary)
    t.ok(summary:find("which the tests left out, so they name no winner.", 1, true), summary)
    t.ok(not summary:find("not shown to differ", 1, true), summary)
  end)

  t.test("a rank-sum test over one load point is a plain Mann-Whitney, named so", function()
    -- one stratum: van Elteren's statistic is the Mann-Whitney U of that stratum (its weight
    -- cancels), so the name says what was computed
    t.eq(decision.test_name { test = "mann_whitney", strata = 1, p = 0.5 }, "Mann-Whitney at 1 load point")
    t.eq(decision.test_name { test = "mann_whitney", strata = 1, exact = true, p = 0.5 },
      "exact Mann-Whitney at 1 load point")
    t.eq(decision.test_name { test = "mann_whitney", strata = 1, units = "repeats", figure_label = "TTFT means",
      p = 0.5 }, "Mann-Whitney on the repeats' TTFT means at 1 load point")
    -- several: van Elteren's, as before
    t.eq(decision.test_name { test = "mann_whitney", strata = 3, p = 0.5 },
      "Mann-Whitney stratified by load point (van Elteren, 3 points)")
    t.eq(decision.test_name { test = "mann_whitney", strata = 2, exact = true, units = "repeats", p = 0.5 },
      "Mann-Whitney on the repeats' figures, stratified by load point (van Elteren, 2 points, exact)")
  end)
end

-- fixa41: ingest leftovers of session 40. Expected values by hand or with python3, as written
-- beside each.
-- (Formerly test_fixa41.lua.)
do
  -- A side of report.build, hand-made (testlib.run_of), naming model (nil: none).
  local function model_sd(label, model, info_model)
    local run = t.run_of { { rate = 10, values = { throughput_req_s = 10, ttft_p90_ms = 100, error_rate_pct = 0 } },
      { rate = 20, values = { throughput_req_s = 20, ttft_p90_ms = 300, error_rate_pct = 0 } } }
    run.model = model
    return { label = label, state = { label = label, stack = { model = info_model } }, run = run, kv = {} }
  end

  t.test("2: the Verdict says like for like is not verified where neither run's model is known", function()
    local slo = require("llmd.decision").parse_slo("ttft_p90_ms=200", "--slo")
    local function verdict(a, b) return report.build { a = a, b = b, slo = slo, generated = 0 }.verdict.text end
    -- neither names a model: said (before session 41 nothing was)
    t.contains(verdict(model_sd("x"), model_sd("y")), "Warning: like for like not verified: neither run's model is known "
      .. "(see below).")
    -- one names it: the one-sided caveat, as before
    t.contains(verdict(model_sd("x", "m"), model_sd("y")), "like for like not verified: B's model unknown")
    -- both name one (in the results, or one in its info file): none
    t.lacks(verdict(model_sd("x", "m"), model_sd("y", "m")), "like for like")
    t.lacks(verdict(model_sd("x", nil, "m"), model_sd("y", "m")), "like for like")
    -- a run model saved before the readers set run.model (inference-perf, benchmark reports):
    -- its config's model counts
    local a = model_sd("x")
    a.run.config = { model = "m" }
    t.lacks(verdict(a, model_sd("y", "m")), "like for like")
  end)
end

-- Session 39 (fixb39): session 38's leftovers.
-- 1. Where inference-perf's per-request file exists, every figure of a load point (counts,
--    window, rates, tokens, ITL, NTPOT, as TTFT/TPOT/E2E already were) is its requests': the
--    stage file is only checked against them; per-stage TPOT and ITL samples reach the
--    per-load tests.
-- 2. A crashed repeat is named beside the ceiling its load's mean sets and in the note of a
--    lowest load it failed.
-- 3. With an SLO, an untested latency at the matched load names the Performance Results' test
--    of it; the several-point sentence names the test that ran.
-- (4. vLLM's p0.1-p75 checked against the arrays: fixe38 (test_harness.lua).)
-- Expected values: tests/sim/fixb39_ref.py (numpy on the per-request file; its output lines
-- quoted beside each value) or by hand, as said.
-- (Formerly test_fixb39.lua.)
do
  -- 3. With an SLO, the Summary's untested latency at the matched load points to the Performance
  --    Results' test of that metric, as the no-SLO sentence does (fixa38); the several-point
  --    sentence names the test that ran, with its strata.
  local stats = require "llmd.stats"
  -- a hand-made run of stages {offered, achieved, TTFT p90 ms}, each with 200 TTFT samples spread
  -- evenly over 0.9 to 1.1 times its p90 figure (independent: design effect 1)
  local function sampled_run(points)
    local stages = {}
    for i, p in ipairs(points) do
      stages[i] = { rate = p[1], values = { throughput_req_s = p[2], ttft_p90_ms = p[3], throughput_tok_s = 10 * p[2],
        error_rate_pct = 0, requests_ok = 200, requests_failed = 0 } }
    end
    local r = t.run_of(stages)
    r.overall.values = { ttft_p90_ms = points[#points - 1][3] }
    for i, st in ipairs(r.stages) do
      local acc = stats.new()
      for k = 1, 200 do acc:add(points[i][3] / 1000 * (0.9 + 0.2 * ((k * 37) % 200) / 200)) end
      st.metrics.samples, st.metrics.sample_deff = { ttft = acc }, { ttft = 1 }
    end
    return r
  end

  t.test("with an SLO: an untested latency at the matched load names the Performance Results' test of it", function()
    -- x and y offered 10-40 req/s; y achieved 32 of 40 (80 %, below 95 %): saturated there, so the
    -- matched load is 30 req/s, whose samples are made too dependent (design effect 10: 200
    -- requests carry 20 independent ones, fewer than 50) to test there. The table's TTFT test
    -- then runs at 10 and 20 req/s only (30 too dependent, 40 overloaded): x's samples (18-22 and
    -- 36-44 ms) all below y's (23.4-28.6 and 46.8-57.2 ms) at both, by hand: complete separation,
    -- van Elteren over 200 + 200 a stratum, p < 1e-9.
    local x = sampled_run { { 10, 10, 20 }, { 20, 20, 40 }, { 30, 30, 60 }, { 40, 40, 80 } }
    local y = sampled_run { { 10, 10, 26 }, { 20, 20, 52 }, { 30, 30, 78 }, { 40, 32, 3000 } }
    x.stages[3].metrics.sample_deff.ttft, y.stages[3].metrics.sample_deff.ttft = 10, 10
    local function side(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
    local m = report.build { a = side("x", x), b = side("y", y), slo = decision.parse_slo("ttft_p90_ms=100"),
      generated = 0 }
    -- (this load untested, and why, first; the other loads' test a sentence of its own after:
    -- newuser44 read "2,010.3 ms ... and 114.0 ms (...: no clear difference, p = 0.0748)" as
    -- that gap's test)
    t.ok(m.summary:find("At 30 req/s offered (30.00 req/s achieved by both), TTFT p90 is 60.0 ms for x and 78.0 ms for "
      .. "y, untested at this load: its requests are too dependent to test: in send order neighbours are alike (the "
      .. "queue), so A's 200 requests carry about 20 independent ones (design effect 10), fewer than the 50 the "
      .. "estimate needs; B's 200 requests carry about 20 independent ones (design effect 10), fewer than the 50 the "
      .. "estimate needs. TTFT p90 is tested at other loads instead: Performance Results, at 2 of the 3 loads both sustained (1 "
      .. "left out: too dependent to test at 30/s): x's lower, p < 1e-9.", 1, true), m.summary)
    -- (fixi42) the sentence of what the test found there names the loads it left out too
    t.contains(m.summary, "(Mann-Whitney stratified by load point (van Elteren, 2 points), at 2 of the 3 loads both "
      .. "sustained (1 left out: too dependent to test at 30/s), p < 1e-9)")
    -- (with its size within the two points, fixc39: 26 against 20 ms and 52 against 40, B
    -- against A (fixa43) 6 / 20 = +30.0 % at each, by hand)
    t.ok(m.summary:find("At the loads both runs sustained, x's values are lower in TTFT p90 (+30.0 %, 95 % interval ",
      1, true), m.summary)
    t.ok(m.summary:find(") (Mann-Whitney stratified by load point (van Elteren, 2 points), at 2 of the 3 loads both "
      .. "sustained (1 left out: too dependent to test at 30/s), p < 1e-9), each beyond the 2.0 % "
      .. "threshold (y against x within the load points tested); the whole-run figures pool load points where a run was "
      .. "overloaded, which the test left out, so they name no winner.", 1, true), m.summary)
  end)
end

-- Task fixh41: audit41's findings in the rate-noise and near-capacity rules.
-- Expected values: hand arithmetic below, and audit41's independent numpy recomputation
-- (/tmp/a41/recomp.py, cov.py, meancov.py: the rates and intervals of queue_sim.py ladders).
-- (Formerly test_fixh41.lua.)
do
  t.test("no SLO, one load point a run: latencies the Performance Results test are not called untested", function()
    -- (audit41: --rates 4, TPOT +5 %: "b1's latencies are untested: ... TPOT p90 +7.1 % (Performance
    -- Results, over all load points: a1 better, p < 1e-9 ...)", the table's test being this
    -- load's.) inference-perf runs of one stage, 60 requests at 4 req/s (tests/lua/ipsynth.lua,
    -- as fixa38): A answers request k in 0.4 + 0.01 (7k mod 10) s, B 1.5 times A's decode
    local ipsynth = require "ipsynth"
    local d = t.tmpdir()
    local fa = function(k) return 0.4 + 0.01 * (7 * k % 10) end
    local fb = function(k) return 0.02 + (0.38 + 0.01 * (7 * k % 10)) * 1.5 end
    local a = ipsynth.run(d .. "/a", { { rate = 4, n = 60, latency = fa } }, { per_request = true })
    local b = ipsynth.run(d .. "/b", { { rate = 4, n = 60, latency = fb } }, { per_request = true })
    local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "A", "--b-label", "B", "--harness", "inference-perf" }
    t.eq(r.code, 0, r.stderr)
    local md = t.read(ws .. "/comparison_report.md")
    local verdict = md:match("\n%*%*Verdict:%*%* ([^\n]*)")
    -- TTFT p90 20.0 ms for both (no test: every TTFT 20 ms, identical); TPOT and end-to-end
    -- p90 tested (every B latency above every A one: p < 1e-9, as fixa38 by python3)
    t.ok(verdict:find("the highest load both sustained, B's latencies against A's: TTFT p90 20.0 ms for both", 1, true),
      verdict)
    -- (TTFT's reason its own: identical figures, nothing to test; the lead's merge with fixl41's
    -- per-figure reasons, which had said "the test pools this load" of a run with one load)
    t.ok(verdict:find("(no test at this load: TTFT p90: the same figure in both runs, nothing to test)", 1,
      true), verdict)
    t.ok(not verdict:find("latencies are untested", 1, true), verdict)
    local summary = md:match("\n## Evidence\n\n([^\n]*)")
    t.ok(not summary:find("are untested at this load", 1, true), summary)
  end)
end

-- Task fixl41: the no-SLO texts of an A/A pair (README's queue_sim runs, one server, two
-- seeds) say the true reason a latency at the common load is untested, and what would settle
-- an order the evidence leaves open, in compare.lua's and treatments.lua's Verdicts alike;
-- treatments.lua's Verdict never says "the measured loads do not order them" where its
-- ranking says they put one above within the noise (within the noise is no order: either
-- may be higher).
-- (Formerly test_fixl41.lua.)
do
  local LLMDLUA = ROOT .. "/llmdlua"
  local PY = "/usr/bin/python3"

  if not proc.run({ PY, "-c", "import numpy" }).ok then
    t.test("no-SLO A/A texts on queue_sim.py runs (skipped: no numpy for queue_sim.py)", function() end)
  else

    local made = {}
    local function sim(name, slots, seed)
      local dir = t.tmpdir() .. ("/%s"):format(name)
      if made[dir] then return dir end
      local r = proc.run { PY, ROOT .. "/tests/data/queue_sim.py", dir, "--rates", "2,3,4,5,6,8,10", "--slots",
        tostring(slots), "--seed", tostring(seed) }
      t.eq(r.code, 0, r.stdout .. r.stderr)
      made[dir] = true
      return dir
    end

    local function verdict(md) return md:match("\n%*%*Verdict:%*%* ([^\n]*)") end

    t.test("compare.lua, no SLO: each latency's own reason at the common load, and what settles two lower bounds",
      function()
        -- 24 slots (README's A/A pair at --slots 24, seeds 12 and 14): about 11.5 req/s, so
        -- neither saturates at 10 req/s (achieved 9.85 and 9.77 of 10: /usr/bin/python3 on the
        -- files, the 95 % rule), both lower bounds, the common load 10 req/s
        local a, b = sim("sim-b", 24, 12), sim("sim-b2", 24, 14)
        local parent = t.tmpdir() .. "/out"
        local r = proc.run { LLMDLUA, ROOT .. "/lua/compare.lua", "--a", a, "--b", b, "--parent", parent, "--quiet" }
        t.eq(r.code, 0, r.stdout .. r.stderr)
        local ws = r.stdout:match("Workspace: ([^\n]+)")
        local md = t.read(ws .. "/comparison_report.md")
        local v = verdict(md)
        -- analyze.lua reads the saved tests back without samples: the same reasons, never "no
        -- per-request samples" for a figure whose test pooled this load
        local ra = proc.run { LLMDLUA, ROOT .. "/lua/analyze.lua", ws, "--quiet" }
        t.eq(ra.code, 0, ra.stdout .. ra.stderr)
        t.eq(verdict(t.read(ws .. "/comparison_report.md")), v)
        -- the reason the old text gave for every figure (an SLO would make no test there either)
        t.ok(not v:find("without an SLO none is made there", 1, true), v)
        -- the TTFT rows' test leaves 10/s out as too dependent (the table's own words) ...
        local ttft = md:match("\n| TTFT p90 |[^\n]*")
        t.ok(ttft:find("too dependent to test[^|]*: 8/s, 10/s |"), ttft)
        -- ... and the Verdict says so of TTFT p90 there; the others' tests pool 10/s with the rest
        t.ok(v:find("(no test at this load: TTFT p90: requests there too dependent to test (in send order neighbours are "
          .. "alike, the queue's doing), so the test leaves this load out; TPOT p90, end-to-end latency p90: the test "
          .. "pools this load with the others, and without an SLO none is made of one load alone).", 1, true), v)
        -- what would settle it: both lower bounds measured higher (as the SLO Verdict says of its own)
        t.ok(v:find("To settle it: measure loads where each max sustained throughput lies, above its lower bound: sim-b "
          .. "above 10 req/s offered, its highest load, up to where it stops keeping up; sim-b2 above 10 req/s offered, "
          .. "its highest load, up to where it stops keeping up.", 1, true), v)
      end)

    t.test("compare.lua, no SLO: figures a hair apart are not called within the threshold when their intervals "
      .. "reach past it", function()
        -- verify43b: one load point (3 req/s, 60 s), seeds 31 and 32, B's decode step 2.5 % slower: the
        -- Verdict said "oB's latencies are within the practical threshold of 2.0 %" from the
        -- figures (TTFT p90 -1.4 %, TPOT p90 +0.4 %) beside their own 95 % intervals reaching -5.5 %
        -- and +4.6 %; an equivalence the evidence does not show. Checked against the CSV the same
        -- run writes: the claim may stand only where every tested row's interval is inside +-2 %
        -- (log scale: -1.96 % to +2 %). Also its "(p = ...)" said once, not twice.
        local d = t.tmpdir()
        for _, x in ipairs { { "oA", "31", "0.02" }, { "oB", "32", "0.0205" } } do
          local r = proc.run { PY, ROOT .. "/tests/data/queue_sim.py", d .. "/" .. x[1], "--rates", "3", "--slots", "20",
            "--dur", "60", "--seed", x[2], "--tpot", x[3] }
          t.eq(r.code, 0, r.stdout .. r.stderr)
        end
        local r = proc.run { LLMDLUA, ROOT .. "/lua/compare.lua", "--a", d .. "/oA", "--b", d .. "/oB", "--parent",
          d .. "/out", "--quiet" }
        t.eq(r.code, 0, r.stdout .. r.stderr)
        local ws = r.stdout:match("Workspace: ([^\n]+)")
        local md, csv = t.read(ws .. "/comparison_report.md"), t.read(ws .. "/comparison.csv")
        local v = verdict(md)
        local col, i = {}, 0
        for name in csv:match("^[^\n]*"):gmatch("[^,]+") do i = i + 1; col[name] = i end
        local inside = true
        for _, key in ipairs { "ttft_p90_ms", "tpot_p90_ms", "latency_p90_ms" } do
          local row = t.csv_row(csv, key)
          local lo, hi = tonumber(row[col.effect_lo]), tonumber(row[col.effect_hi])
          if not (lo and hi and lo > -100 * 2 / 102 and hi < 2) then inside = false end
        end
        t.ok(not inside, "the case: some interval reaches past the threshold")
        t.ok(not v:find("within the practical threshold", 1, true), v)
        t.ok(not v:find("Holm%-adjusted [%d.]+ over %d+ tests%), p = "), v)
      end)

    local function treatments(a, b)
      local parent = t.tmpdir() .. ("/tr_%s"):format(a:match("[^/]+$"))
      local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "b=" .. a, "--run", "b2=" .. b, "--out",
        parent, "--quiet" }
      t.eq(r.code, 0, r.stdout .. r.stderr)
      return t.read(parent .. "/treatment_report.md")
    end

    t.test("treatments.lua, no SLO: two lower bounds say what settles them", function()
      local v = verdict(treatments(sim("sim-b", 24, 12), sim("sim-b2", 24, 14)))
      t.ok(v:find("untested, and either may be higher. To settle it: measure loads where each max sustained throughput "
        .. "lies, above its lower bound: b above 10 req/s offered, its highest load, up to where it stops keeping up; b2 "
        .. "above 10 req/s offered, its highest load, up to where it stops keeping up.", 1, true), v)
    end)

    t.test("treatments.lua, no SLO: within the noise is said as the ranking says it, with what settles it", function()
      -- 20 slots (README's pair): b2 sustained 9.428 req/s, b never achieved more than 9.208
      -- req/s, but the gap of 0.220 req/s is within the noise of those rates (the ranking's text)
      local md = treatments(sim("s20-b", 20, 12), sim("s20-b2", 20, 14))
      local v = verdict(md)
      t.ok(md:find("the measured loads put this one above (it sustained 9.43 req/s, b never achieved more than 9.21 "
        .. "req/s at any load), but within the noise of those rates", 1, true))
      t.ok(not v:find("do not order them", 1, true), v)
      t.ok(v:find("untested, and either may be higher: the measured loads put b2 above b only within the noise of those "
        .. "rates. To settle it: loads about ", 1, true), v)
    end)
  end
end

-- What the new user of session 36 found misleading: autobench.lua compare's cross-framework
-- evidence when the other framework was measured but failed the SLA, and compare.lua's
-- report without --slo.
--
-- Expected values: by hand from the rows written here (each reading in a comment beside its
-- test).
-- (Formerly test_misc36.lua.)
do
  local json = require "llmd.json"

  local LLMDLUA = ROOT .. "/llmdlua"

  t.test("compare.lua without --slo: the latencies at the load both runs sustained, and the hint of --slo", function()
    -- the new user's pair: B = A with every latency x 1.3 (A: the bundled KubeCon baseline's
    -- lifecycle files). Both saturate at the same stage, so max sustained cannot order them; at
    -- stage 3 (92.19 req/s offered), by /usr/bin/python3 from stage_3_lifecycle_metrics.json:
    -- TTFT p90 0.06436099 s -> 64.4 ms, x 1.3 = 83.7 ms; TPOT p90 8.98 ms -> 11.68 ms;
    -- request_latency p90 1.2336859 s -> 1,233.7 ms, x 1.3 = 1,603.8 ms; +30.0 % each.
    -- The ranked rate is the drain-reduced one, completed / (window - least latency): A's stage
    -- 3 5531 / (60.54250 - 0.56198) = 92.21 req/s; B's least latency is x 1.3 in the same
    -- window, which leaves 60.54250 - 0.73057 = 59.81193 s, shorter than the send span,
    -- 59.97348 s: a file no run writes, so its rate is completed / send span, 5531 / 59.97348 =
    -- 92.22 (python3; it was 92.47, above the 92.22 req/s the requests were sent at, fixl50).
    -- Their ranges (up to each one's most at any load) overlap, so still no order
    local d = t.tmpdir()
    local src = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
    proc.run { "mkdir", "-p", d .. "/A", d .. "/B", d .. "/out" }
    for name in require("lfs").dir(src) do
      if name:match("_lifecycle_metrics%.json$") then
        local doc = json.read(src .. "/" .. name)
        json.write(d .. "/A/" .. name, doc)
        for _, m in pairs(doc.successes.latency) do
          for k, v in pairs(m) do if type(v) == "number" then m[k] = v * 1.3 end end
        end
        json.write(d .. "/B/" .. name, doc)
      end
    end
    local r = proc.run { LLMDLUA, "compare.lua", "--a", d .. "/A", "--b", d .. "/B", "--parent", d .. "/out", "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local ws
    for n in require("lfs").dir(d .. "/out") do if n:match("^llm%-d%-comparison") then ws = d .. "/out/" .. n end end
    local md = t.read(ws .. "/comparison_report.md")
    local verdict = md:match("\n%*%*Verdict:%*%* ([^\n]*)")
    t.eq(verdict, "Cannot say which sustains more load (max sustained throughput; no SLO given): the measured loads "
      .. "cannot order them: A 92.21 req/s, B 92.22 req/s. At 92.19 req/s offered (92.21 req/s achieved by A, 92.22 "
      .. "req/s by B), the "
      .. "highest load both sustained, B's latencies are untested: TTFT p90 +30.0 %, TPOT p90 +30.0 %, end-to-end "
      .. "latency p90 +30.0 % (no test at this load: no per-request samples from both runs there). --slo gives capacity within an "
      .. "SLO. Warning: like for like not verified: neither run's model is known (see below).")
    local summary = md:match("\n## Evidence\n\n([^\n]*)")
    t.ok(summary:find("At 92.19 req/s offered (92.21 req/s achieved by A, 92.22 req/s by B), the highest load both runs sustained, B's "
      .. "latencies against A's are untested at this load: TTFT p90 83.7 ms vs 64.4 ms (+30.0 %), TPOT p90 11.68 ms vs "
      .. "8.98 ms (+30.0 %), end-to-end latency p90 1,603.8 ms vs 1,233.7 ms (+30.0 %) (B − A; no test at this load: "
      .. "no per-request samples from both runs there). Give --slo (e.g. --slo ttft_p90_ms=200) for each run's capacity within it.",
      1, true), summary)
    -- with --slo ttft_p90_ms=70 B fails at 92.19 offered (83.7 ms) where A meets it (64.4 ms):
    -- B's capacity lies in its bracket 61.79-92.22 req/s (drain-reduced, each over its send span
    -- as above: 3707 / 59.99381 and 5531 / 59.97348, python3), A's at 92.21 or more (up
    -- to its ceiling 104.24); B failed at the same offered load where A met it, so B - A from
    -- 61.79 - 104.24 = -42.45 up to 0; 61.79 / 104.24 - 1 = -40.7 %. Since capa38 a pass and a
    -- fail at one load of summary files (noise unknown) bound no gap at 0: B's bracket reaches
    -- 92.22, A's starts at 92.21, so up to 92.22409851829183 - 92.21326544259206 = +0.01 req/s,
    -- +0.012 % (python3)
    proc.run { "rm", "-rf", ws }
    r = proc.run { LLMDLUA, "compare.lua", "--a", d .. "/A", "--b", d .. "/B", "--parent", d .. "/out", "--quiet",
      "--slo", "ttft_p90_ms=70" }
    t.eq(r.code, 0, r.stderr)
    for n in require("lfs").dir(d .. "/out") do if n:match("^llm%-d%-comparison") then ws = d .. "/out/" .. n end end
    md = t.read(ws .. "/comparison_report.md")
    -- (the Delta in full: its qualification in the row's note, the cell "-42.45 to +0.01 req/s [1]", readable55)
    local cap_row
    for label, cells in pairs(t.table_rows(md, "Headline")) do
      if label:match("^Capacity at SLO %(") then cap_row = cells end
    end
    t.eq({ cap_row[4], cap_row[5] }, { "-42.45 to +0.01 req/s (the measured loads cannot order them)", "-40.7 % to +0.01 %" })
    t.ok(md:find("(B -40.7 % to +0.01 % vs A)", 1, true), md)
    -- the contradiction said in the Data checks (B's stage 3, python3 above)
    t.ok(md:find("stage_3_lifecycle_metrics.json (92.19 req/s offered): its window (60.543 s, successes / "
      .. "requests_per_sec) less its least latency (0.731 s) is shorter than its send span (59.973 s)", 1, true), md)
  end)
end

t.test("verdict: a gap below the threshold names the two figures it is between (newuser47 F13)", function()
  -- x: TTFT p90 100, 160, 260 ms at 10, 20, 30 req/s: about 24.00 (passes at 20, fails at
  -- 30). y: 100 ms at 10 to 50 req/s offered, achieving 10, 20, 30, 40, 42 (42 < 95 % of 50:
  -- saturated there): a lower bound, >= 40.00, its ceiling 42. Per-request samples, so a pass
  -- and a fail order the runs. The least gap is y's 40 against x's 30: (40 - 30) / 35 =
  -- +28.6 % of their mean; the largest, y's 42 against x's 20: 22 / 31 = 71.0 % (since verdict55 on the
  -- Change's scale: 40 / 30 - 1 = +33.3 %, 42 / 20 - 1 = +110.0 %, python3), below a
  -- 200 % threshold too: about the same (fixb53: "not shown to differ" before, the name of a
  -- gap left open; both ends said now). The Verdict said "+28.6 % of their mean only"
  -- right after "about 24.00, >= 40.00" (50 % apart): it names 40.00 and 30.00 now
  local x = t.with_samples(t.repeated_run { { 100 }, { 160 }, { 260 } })
  local stages = {}
  for i, got in ipairs { 10, 20, 30, 40, 42 } do
    stages[i] = { rate = 10 * i, values = { throughput_req_s = got, ttft_p90_ms = 100, throughput_tok_s = 10 * got,
      error_rate_pct = 0 } }
  end
  local y = t.with_samples(t.run_of(stages))
  local m = report.build { a = sd("x", x), b = sd("y", y), slo = SLO, generated = 0, min_effect = 200 }
  t.eq({ m.capacity.evidence.verdict, m.capacity.evidence.below_threshold }, { "about the same", true })
  t.eq(m.verdict.kind, "about the same")
  t.eq(m.verdict.text, "About the same capacity within TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default: "
    .. "x about 24.00 req/s, y ≥ 40.00 req/s; the measured loads put y above, but by +33.3 % only (y's "
    .. "40.00 req/s against x's 30.00 req/s, the figures that order them), and at most +110.0 %, both within the "
    .. "practical threshold of 200.0 %: no winner.")
end)

t.test("verdict: a max sustained gap below the threshold names the two figures it is between (newuser47 F13)",
  function()
  -- the runs of "without an SLO" above: x sustained 20, ceiling 22; y 40, ceiling 41. The
  -- least gap, y's 40 against x's 22: 18 / 31 = +58.1 % of their mean; the largest, 41
  -- against 20: 21 / 30.5 = 68.9 %, below a 200 % threshold too: about the same (fixb53); on the
  -- Change's scale since verdict55, 40 / 22 - 1 = +81.8 % and 41 / 20 - 1 = +105.0 % (python3). The
  -- Verdict said "+58.1 % of their mean only" after "x 20.00, y 40.00" (66.7 % apart)
  local function run(achieved)
    local stages = {}
    for i, r in ipairs(achieved) do
      stages[i] = { rate = 10 * i, values = { throughput_req_s = r, ttft_p90_ms = 50, error_rate_pct = 0 } }
    end
    return t.run_of(stages)
  end
  local m = report.build { a = sd("x", run { 10, 20, 22 }), b = sd("y", run { 10, 20, 30, 40, 41 }), slo = {},
    generated = 0, min_effect = 200 }
  t.eq(m.verdict.kind, "about the same")
  t.eq(m.verdict.text, "About the same max sustained throughput (no SLO given): x 20.00 req/s, y 40.00 req/s; "
    .. "the measured loads put y above, but by +81.8 % only (y sustained 40.00 req/s, x never achieved "
    .. "more than 22.00 req/s at any load), and at most +105.0 %, both within the practical threshold of 200.0 %: "
    .. "no winner.")
end)
