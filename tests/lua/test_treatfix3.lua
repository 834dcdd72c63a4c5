-- treatments.lua's texts (session 32, treatfix3): places the evidence does not order share
-- a rank ("1=", the next 3) in every output; "untested" names the treatment without
-- repeats; "no clear difference" by max sustained throughput gives the gap the limits allow,
-- in llmd.decision's words (compare.lua's), and "not shown to differ" by capacity says which
-- one over which; --quiet prints nothing; the SLO paragraph quotes only the req/s part of the
-- capacity's definition; a dangling link in --out is an error naming it.
--
-- Expected values: by hand from the hand-made ladders below, or /usr/bin/python3 (stdlib
-- statistics, the t quantile 4.302652729911275 for df 2 that test_treatments.lua uses), each
-- computation in a comment beside its test.
local t = require "testlib"
local tr = require "llmd.treatments"
local decision = require "llmd.decision"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local VLLM = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local CHUNK = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

-- A hand-made treatment: {offered req/s, {achieved req/s of each repeat}, values} per load
-- point (values: the other metrics of every repeat there, none by default).
local function treat(label, pts)
  local stages = {}
  for _, p in ipairs(pts) do
    for _, a in ipairs(p[2]) do
      local v = { throughput_req_s = a, error_rate_pct = 0 }
      for k, x in pairs(p[3] or {}) do v[k] = type(x) == "table" and x[#stages % #x + 1] or x end
      stages[#stages + 1] = { rate = p[1], values = v }
    end
  end
  local run = t.run_of(stages)
  return { label = label, run = run, runs = { run }, dirs = { label }, status = "ok", reasons = {} }
end

-- Each load point's repeats, the same numbers each time (a treatment's lower loads, where
-- nothing is decided).
local LOW = { { 10, { 9.9, 10, 10.1 } }, { 20, { 19.9, 20, 20.1 } } }
local function with_low(pts)
  local out = { LOW[1], LOW[2] }
  for _, p in ipairs(pts) do out[#out + 1] = p end
  return out
end

local function ranks(m)
  local out = {}
  for _, r in ipairs(m.ranking) do out[#out + 1] = ("%s:%s"):format(tostring(r.rank_text), r.label) end
  return out
end

-- By hand (means of the three repeats; saturated where the mean achieved is below 95 % of
-- the offered rate): top sustains 40 (60 offered: 45 < 57), its ceiling 45; top2 sustains
-- 40.0167 ((39.8 + 40.05 + 40.2) / 3), ceiling 45; b sustains 30.0667 ((29.7 + 30.1 + 30.4)
-- / 3; 40 offered: 32.1 < 38), ceiling 32.1; a sustains 30, ceiling 32.
-- top2 over top: top's ceiling 45 is above top2's 40.02, so the steps cannot order them (not
-- shown to differ); top over b: Welch on 39.9/40/40.1 against 29.7/30.1/30.4 is p < 0.001 and
-- b's ceiling 32.1 is 21.9 % below top's 40 (effect_pct: 7.9 / 36.05), beyond the 2 %
-- threshold: shown above; b over a: a's ceiling 32 is above b's 30.07: not shown to differ.
local function four()
  return {
    treat("top2", with_low { { 40, { 39.8, 40.05, 40.2 } }, { 60, { 44.9, 45, 45.1 } } }),
    treat("top", with_low { { 40, { 39.9, 40, 40.1 } }, { 60, { 44.9, 45, 45.1 } } }),
    treat("b", with_low { { 30, { 29.7, 30.1, 30.4 } }, { 40, { 31.9, 32.1, 32.3 } } }),
    treat("a", with_low { { 30, { 29.8, 30, 30.2 } }, { 40, { 31.9, 32, 32.1 } } }),
  }
end

t.test("1: places the evidence does not order share a rank, 1= 1= 3= 3=, in the model, md, html and json", function()
  local list = four()
  local m = tr.model(list)
  -- on main: 1 2 3 4, the rank column ordering what the evidence column says is not shown
  t.eq(ranks(m), { "1=:top2", "1=:top", "3=:b", "3=:a" })
  t.eq({ m.ranking[1].vs_next, m.ranking[2].vs_next, m.ranking[3].vs_next },
    { "not shown to differ", "B better", "not shown to differ" })
  t.eq({ m.ranking[1].rank, m.ranking[2].rank, m.ranking[3].rank, m.ranking[4].rank }, { 1, 1, 3, 3 })
  local out = t.tmpdir()
  list.identical = {}
  tr.write_report(out, list, {})
  local md = t.read(out .. "/treatment_report.md")
  for _, row in ipairs { "| 1= | top2 |", "| 1= | top |", "| 3= | b |", "| 3= | a |" } do
    t.ok(md:find("\n" .. row, 1, true), row .. " in:\n" .. md)
  end
  t.ok(md:find('share a rank, marked "=": here two at "1=", then 3.', 1, true), md)
  local html = t.read(out .. "/treatment_report.html")
  t.ok(html:find('<td class="n">3=</td><td>b</td>', 1, true), html)
  local j = json.read(out .. "/treatments.json")
  local got = {}
  for _, r in ipairs(j.ranking) do got[#got + 1] = { r.rank, r.rank_text, r.tied } end
  t.eq(got, { { 1, "1=", true }, { 1, "1=", true }, { 3, "3=", true }, { 3, "3=", true } })
end)

t.test("1: a tie at the top (the same figures, README's experiment) is 1= twice; an order shown keeps 1 and 2",
  function()
  -- one run each, the same ladder: untested, the same figure
  local pts = with_low { { 40, { 40 } }, { 60, { 45 } } }
  local m = tr.model { treat("one", pts), treat("two", pts) }
  t.eq(ranks(m), { "1=:one", "1=:two" })
  t.ok(m.verdict:find("one and two tie at the highest figure", 1, true), m.verdict)
  -- shown above by repeats: its own rank
  local l = four()
  m = tr.model { l[2], l[3] }
  t.eq(ranks(m), { "1:top", "2:b" })
end)

t.test("2: 'untested' names the treatment without repeats, by capacity and by max sustained throughput", function()
  -- TTFT p90 against 10 i req/s (t.repeated_run: offered and achieved 10 i): x repeated at every
  -- point, meets 100 ms at 10 and fails it at 20 req/s; y has one run at its points 1 and 2
  -- (2 of 4 load points with one run only), meets 100 ms up to 30 and fails it at 40 req/s.
  -- The brackets [10, 20) and [30, 40) do not overlap: the loads order them, untested
  local x = t.repeated_run { { 40, 41, 42 }, { 120, 121, 122 }, { 200, 201, 202 }, { 300, 301, 302 } }
  local y = t.repeated_run { { 40 }, { 50 }, { 60, 61, 62 }, { 119, 120, 121 } }
  local function tt(label, run) return { label = label, run = run, runs = { run }, dirs = { label }, status = "ok",
    reasons = {} } end
  local slo = decision.parse_slo("ttft_p90_ms=100")
  local m = tr.model({ tt("x", x), tt("y", y) }, { slo = slo })
  local r = m.ranking[1]
  t.eq({ r.label, r.vs_next, r.order_certain }, { "y", "untested", true })
  -- on main: "untested (2 of 4 load points with one run only)", whose is not said
  t.ok(m.verdict:find("untested (for y, 2 of 4 load points with one run only), so no winner is shown", 1, true),
    m.verdict)
  t.ok(r.vs_next_text:find(", untested: for y, 2 of 4 load points with one run only;", 1, true), r.vs_next_text)
  t.eq(r.evidence.basis, "for y, 2 of 4 load points with one run only")
  -- ordered by the loads: a rank each
  t.eq(ranks(m), { "1:y", "2:x" })
  -- by max sustained throughput: top repeated, c one run per load (40 sustained, ceiling 45:
  -- above top's 40, so the steps cannot order them either way; the untested text names c)
  local l = four()
  local c = treat("c", with_low { { 40, { 40.5 } }, { 60, { 45 } } })
  m = tr.model { l[2], c }
  t.ok(m.ranking[1].vs_next_text:find("untested against top: c has no repeats at its max sustained load point", 1,
    true), m.ranking[1].vs_next_text)
end)

t.test("3: max sustained 'no clear difference' gives the gap the limits allow, in llmd.decision's words", function()
  -- x sustains 30 (29, 30, 31 at 30 offered; 40 offered: 33.5 < 38, saturated), ceiling 33.5;
  -- n sustains 29 (28, 29, 30 at 29 offered; 40 offered: 29.2), ceiling 29.2, below x's 30:
  -- the steps order nothing against it, and the test decides. Welch, python3: t = 1 /
  -- sqrt(1/3 + 1/3) = 1.2247, df 4, p = 0.2879 (numerical integration of the t density):
  -- no clear difference. The limits' ranges (the 95 % t-interval at the max sustained
  -- point, mean -+ 4.302652729911275 x 1 / sqrt 3, up to the ceiling): x 27.5159 to
  -- max(32.4841, 33.5) = 33.5, n 26.5159 to max(31.4841, 29.2) = 31.4841; x over n from
  -- 27.5159 / 31.4841 - 1 = -12.604 % to 33.5 / 26.5159 - 1 = +26.339 %
  local xs = treat("x", with_low { { 30, { 29, 30, 31 } }, { 40, { 33, 33.5, 34 } } })
  local n = treat("n", with_low { { 29, { 28, 29, 30 } }, { 40, { 29, 29.2, 29.4 } } })
  local m = tr.model { xs, n }
  local r = m.ranking[1]
  t.eq({ r.label, r.vs_next }, { "x", "no clear difference" })
  t.near(r.p_value, 0.28786413449232545, 1e-6)
  -- on main: "no clear difference vs n (Welch p = 0.288)", no gap at all
  -- (fixa39: ranges that allow -12.6 % to +26.3 % leave either order open: said so)
  t.eq(r.vs_next_text, "either this or n (Welch p = 0.288) may be higher — the repeats' ranges overlap; the gap could be "
    .. "anywhere from -12.6 % to +26.3 % (x vs n); each limit's range is from the lower end of the repeats' 95 % "
    .. "interval at its max sustained load point to the most it achieved at any load (no upper end where it never "
    .. "saturated)")
  t.eq(ranks(m), { "1=:x", "1=:n" })
end)

t.test("3: capacity 'not shown to differ' says which one the gap is of, over which", function()
  -- by hand (test_decision.lua's newuser B1): x crosses 100 ms between 20 and 30 req/s at 20
  -- + 10 x 20 / 40 = 25.0, y at 20 + 10 x 21 / 40 = 25.25: 1.0 % apart, within 2 %; each lies
  -- anywhere in 20-30 req/s, so y over x may be 20 / 30 - 1 = -33.3 % to 30 / 20 - 1 = +50.0 %
  local function run(ttfts)
    local st = {}
    for i, v in ipairs(ttfts) do
      st[i] = { rate = 10 * i, values = { throughput_req_s = 10 * i, ttft_p90_ms = v, error_rate_pct = 0 } }
    end
    local rr = t.run_of(st)
    return rr
  end
  local function tt(label, rr) return { label = label, run = rr, runs = { rr }, dirs = { label }, status = "ok",
    reasons = {} } end
  local m = tr.model({ tt("x", run { 40, 80, 120 }), tt("y", run { 40, 79, 119 }) },
    { slo = decision.parse_slo("ttft_p90_ms=100") })
  local r = m.ranking[1]
  t.eq({ r.label, r.vs_next }, { "y", "not shown to differ" })
  -- on main: "... but the measured loads allow -33.3 % to +50.0 %)": whose gap, over whom?
  t.ok(r.vs_next_text:find("the figures are within 2 %, but the measured loads allow y -33.3 % to +50.0 % vs x)", 1,
    true), r.vs_next_text)
  t.eq(ranks(m), { "1=:y", "1=:x" })
end)

t.test("4: --quiet prints nothing on stdout; without it, the report and the files written", function()
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "vllm=" .. VLLM, "--run", "chunked=" .. CHUNK,
    "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  -- on main: "Written: .../treatment_comparison.csv" and two more lines
  t.eq(r.stdout, "")
  t.ok(lfs.attributes(out .. "/treatment_report.md", "mode") == "file", "the report is written all the same")
  r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "vllm=" .. VLLM, "--run", "chunked=" .. CHUNK,
    "--out", out }
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stdout:find("^# llm%-d Comparison Across 2 Treatments"), r.stdout)
  t.ok(r.stdout:find("\nWritten: " .. out .. "/treatment_comparison.csv\n", 1, true), r.stdout)
end)

t.test("5: the SLO paragraph quotes the capacity's definition in req/s, not its output tok/s", function()
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "vllm=" .. VLLM, "--run", "chunked=" .. CHUNK,
    "--out", out, "--quiet", "--slo", "ttft_p90_ms=200" }
  t.eq(r.code, 0, r.stderr)
  for _, name in ipairs { "treatment_report.md", "treatment_report.html" } do
    local text = t.read(out .. "/" .. name)
    -- (cap37: within the default failure limit too, no error-rate SLO given, said beside it)
    local para = text:match("Capacity at SLO %(TTFT p90 ≤ 200%.0 ms and Error rate ≤ 5 %% by default%): ([^\n]*)")
    t.ok(para, name .. ":\n" .. text)
    -- the req/s part, whole: its first words and its last sentence's end
    -- (the HTML escapes the apostrophes between these two)
    t.ok(para:find("^the throughput %(req/s, as defined under Throughput: the answers"), para)
    t.ok(para:find("completed / window) at the highest load at which every SLO holds, and, where no error-rate SLO", 1,
      true), para)
    t.ok(para:find("within its measured bracket.", 1, true), para)
    -- on main also: "Its output tok/s is read at the same load: ... Two capacities are ordered
    -- in tok/s only where those spans are": this report shows no capacity in tok/s
    t.ok(not para:find("tok/s", 1, true), name .. ": " .. para)
  end
  -- one source of the text: compare.lua's (which shows the tok/s row) is the req/s part and the tok/s part
  t.eq(decision.CAPACITY_DEFINITION, decision.CAPACITY_DEFINITION_RPS .. ". " .. decision.CAPACITY_DEFINITION_TPS)
  t.ok(decision.CAPACITY_DEFINITION_TPS:find("^Its output tok/s is read at the same load"),
    decision.CAPACITY_DEFINITION_TPS)
end)

t.test("6: the folders made for --out: one helper, and a dangling link on the way is an error naming it", function()
  local ws = require "llmd.workspace"
  local d = t.tmpdir()
  t.eq(ws.missing_folders(d .. "/a/b/c/"), { d .. "/a/b/c", d .. "/a/b", d .. "/a" })
  t.eq(ws.missing_folders(d), {})
  -- a link to a folder that is there: the walk stops at it (the folder is there)
  t.mkdir(d .. "/real")
  proc.run { "ln", "-s", d .. "/real", d .. "/live" }
  t.eq(ws.missing_folders(d .. "/live/x/y"), { d .. "/live/x/y", d .. "/live/x" })
  -- a dangling one: an error naming it and its target
  proc.run { "ln", "-s", d .. "/gone", d .. "/dangling" }
  local ok, err = pcall(ws.missing_folders, d .. "/dangling/x")
  t.eq(ok, false)
  t.eq(err, ("%s/dangling: a link to %s/gone, which does not exist: no folder can be made there (make its target, "
    .. "or remove the link)"):format(d, d))
  -- treatments.lua --out through it: that one line, exit 1, nothing made anywhere (on main:
  -- mkdir -p's "File exists", the link not named as one)
  local r = proc.run { LLMDLUA, ROOT .. "/lua/treatments.lua", "--run", "vllm=" .. VLLM, "--run", "chunked=" .. CHUNK,
    "--out", d .. "/dangling/cmp", "--quiet" }
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, "llmdlua: " .. err .. "\n")
  t.eq(lfs.attributes(d .. "/gone"), nil)
  t.eq(lfs.symlinkattributes(d .. "/dangling", "mode"), "link")
end)

t.test("a workload whose first two the measured loads order is not 'not shown to differ' in the headline", function()
  -- the kubecon pair, by max sustained throughput: vllm never achieved more than 103.078
  -- req/s at any load, chunked sustained 167.784 (harness_expected.lua): ordered, untested
  -- (as test_treatments.lua's N-way test); beside it a workload of two hand-made treatments
  local list = tr.load { { label = "vllm", dirs = { VLLM }, workload = "w1" },
    { label = "chunked", dirs = { CHUNK }, workload = "w1" } }
  local l = four()
  l[2].workload, l[3].workload = "w2", "w2"
  list[3], list[4] = l[2], l[3]
  local m = tr.model(list)
  -- on main: "Workload w1 (vllm, chunked): not shown to differ (no treatment shown best). ..."
  t.ok(m.verdict:find("Workload w1 (vllm, chunked): chunked first by the figures, above vllm as the measured loads "
    .. "order them, untested (no treatment shown best by repeats). Highest max sustained throughput by the figures: "
    .. "chunked", 1, true), m.verdict)
  t.ok(m.verdict:find("Workload w2 (top, b): best: top.", 1, true), m.verdict)
  local got = {}
  for _, r in ipairs(m.ranking) do got[#got + 1] = ("%s:%s:%s"):format(r.workload, r.rank_text, r.label) end
  t.eq(got, { "w1:1:chunked", "w1:2:vllm", "w2:1:top", "w2:2:b" })
end)
