-- Max sustained throughput: failed requests within the error-rate limit, load points too thin
-- or unjudged below a clear saturation, crashed repeats and the ceiling they may lower, mild
-- overload, and the figure's words in every output (md, HTML, CSV, JSON, treatments.lua).
-- Expected values: each section says where its own come from.
local t = require "testlib"

-- A vLLM summary without --save-detailed keeps only a count of its failed requests, never
-- their errors: whether they were overload (timeouts) or the server's errors is unknown, and
-- the texts say so (llmd.loadpoints.failures_cause_text), never "not overload".
local CAUSE_UNKNOWN = "failed requests whose cause the files do not record, so whether it was overload is unknown"

-- The third auditor's findings (session 30): texts and treatments.json fields that named the
-- wrong thing or left out what the reports say. Each fixture is written here (vLLM summaries,
-- exp-7's counts kept); the expected texts and figures are worked by hand, said beside each.
-- (Formerly test_audit3.lua.)
do
  local tr = require "llmd.treatments"
  local json = require "llmd.json"

  -- exp-7's vLLM summary at this offered rate with this achieved throughput (duration =
  -- completed / achieved), E2E latencies all `e2e` ms when given, `failed` of its requests
  -- failed (the rest completed): testlib.exp7_summary.
  local function vllm_summary(rate, achieved, e2e, failed)
    return t.exp7_summary(rate, achieved, { e2e = e2e, failed = failed, unique = true })
  end

  -- One run folder of these points, each {rate, achieved[, e2e[, failed]]}.
  local function run_dir(points)
    local dir = t.tmpdir()
    for i, p in ipairs(points) do
      t.write(("%s/benchmark_%02d.json"):format(dir, i), json.encode(vllm_summary(p[1], p[2], p[3], p[4])))
    end
    return dir
  end

  t.test("a test that cannot decide names the treatment whose repeats are all one value, by its label", function()
    -- "first": three repeats sustaining 20 req/s offered at 19.9 achieved (>= 95 %, by hand),
    -- saturated at 30 (25.0/25.2/25.4 < 28.5): its max sustained is 19.9 in every repeat.
    -- "second": 19.7/19.75/19.8 at 20 offered, saturated at 30 too. first ranks above second
    -- (19.9 > 19.75 by the figures); the exact Mann-Whitney of 3 and 3 repeats with first's all
    -- one value cannot give p below 0.1 (by hand: ties on one side), so the note says whose
    -- repeats those are: first's, the place above, never decision.verdict's internal "B"
    local list = {}
    for _, s in ipairs { { "first", { 19.9, 19.9, 19.9 }, 25.0 }, { "second", { 19.7, 19.75, 19.8 }, 24.0 } } do
      local dirs = {}
      for i, v in ipairs(s[2]) do
        dirs[i] = run_dir { { 10, 10 }, { 20, v }, { 30, s[3] + 0.2 * (i - 1) } }
      end
      list[#list + 1] = { label = s[1], dirs = dirs }
    end
    local out = t.tmpdir()
    local p = tr.write_report(out, tr.load(list), {})
    local r1 = p.model.ranking[1]
    t.eq(r1.label, "first")
    t.ok(r1.vs_next_text:find("(first's repeats all one value)", 1, true), r1.vs_next_text)
    local text = t.read(out .. "/treatment_report.md") .. t.read(out .. "/treatments.json")
    t.ok(not text:find("B's repeats", 1, true) and not text:find("A's repeats", 1, true), "no internal side")
  end)

  t.test("treatments.json says a place shown above the next as 'above', never the internal 'B better'", function()
    -- three repeats each at one sustained load, 20 req/s offered (one offered load: at two the
    -- repeats' test is not made, s51): hi 19.98, 20, 20.02, lo 19.03, 19.05, 19.07 (95 % of 20
    -- and more), lo saturated at 30 (19.2 achieved, its ceiling, below hi's 20 by 4.1 %): hi is
    -- shown above lo (Welch on the repeats' logs, by hand t > 50); treatments.json's vs_next
    -- is "above"
    local out = t.tmpdir()
    tr.write_report(out, { t.treatment("hi", { { 20, { 19.98, 20, 20.02 }, 100 }, { 30, 25, 100 } }),
      t.treatment("lo", { { 20, { 19.03, 19.05, 19.07 }, 100 }, { 30, 19.2, 100 } }) }, {})
    local j = json.read(out .. "/treatments.json")
    t.eq({ j.ranking[1].label, j.ranking[1].vs_next }, { "hi", "above" })
    t.ok(not t.read(out .. "/treatments.json"):find("B better", 1, true), "no internal verdict")
  end)

  -- A treatment whose third repeat crashed at the lowest load (60 of its 200 requests failed,
  -- 140 completed at 7 req/s) and a clean one saturated at 30 req/s offered (24 achieved),
  -- the clean repeats at 10 req/s achieving 10, 9.99, 9.98 (repeats alike in every figure are
  -- copies of one recording, read as measured once since fake56: loadpoints.scaled_copy),
  -- both E2E p90 within 2 s where they sustain (500, 600, 700 ms; clean 3 s saturated).
  local function crash_reps()
    local dirs = {}
    for i = 1, 3 do
      dirs[i] = run_dir { i == 3 and { 10, 7.0, 500, 60 } or { 10, 10 - 0.01 * (i - 1), 500 }, { 20, 19.9 + 0.05 * (i - 1), 600 },
        { 30, 29.8 + 0.05 * (i - 1), 700 } }
    end
    return dirs
  end
  local function clean_reps()
    local dirs = {}
    for i = 1, 3 do
      dirs[i] = run_dir { { 10, 10 - 0.01 * (i - 1), 500 }, { 20, 19.9 + 0.05 * (i - 1), 600 },
        { 30, 24.0 + 0.2 * (i - 1), 3000 } }
    end
    return dirs
  end
  local CRASH_SLO = "latency_p90_ms=2000,error_rate_pct=20"
  -- by hand: the crashed repeats' failures at load point 1, 0, 0 and 60 of 200, against 20
  -- each expected (60 of 600 pooled): chi-square 20 + 20 + 80 on the failures and 2.22 +
  -- 2.22 + 8.89 on the completed = 133.3, 2 df, p = exp(-133.3 / 2) ~ 1e-29, below 1e-9;
  -- 30 % is above the SLO's 20 %, 0 % within it: the repeats disagree on the error-rate SLO
  local CRASH_COUNTS = "0 of 200, 0 of 200 and 60 of 200"

  t.test("treatments: a crashed repeat in one of several folders is the reason no capacity order is shown", function()
    -- each folder numbers its stages from 0, so the combined run held three stages "0": the
    -- repeats' counts were all read from one of them (60, 60, 60 of 200: not over-dispersed),
    -- and the text gave "both capacities are only lower bounds ... neither is known" instead
    local slo = require("llmd.decision").parse_slo(CRASH_SLO)
    local out = t.tmpdir()
    local p = tr.write_report(out, tr.load { { label = "crash", dirs = crash_reps() },
      { label = "clean", dirs = clean_reps() } }, { slo = slo })
    local r1 = p.model.ranking[1]
    t.eq({ r1.label, r1.vs_next, r1.overdispersed }, { "crash", "not shown to differ", true })
    t.ok(r1.vs_next_text:find("crash's repeats at load point 1 disagree on the error-rate SLO beyond chance (load "
      .. "point 1: " .. CRASH_COUNTS .. " failed", 1, true), r1.vs_next_text)
    local md = t.read(out .. "/treatment_report.md")
    t.ok(not md:find("neither is known", 1, true), md)
  end)

  -- Each treatment's three repeats in one folder (compare.lua reads repeats of a load point in
  -- one run folder).
  local proc = require "llmd.proc"
  local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
  local function one_folder(dirs)
    local d = t.tmpdir()
    for i, src in ipairs(dirs) do
      for j = 1, 3 do t.copy(("%s/benchmark_%02d.json"):format(src, j), ("%s/benchmark_%d%d.json"):format(d, i, j)) end
    end
    return d
  end

  -- compare.lua on two folders (a, b: {label, dir}) with these SLOs: comparison.json's summary.
  local function compare_summary(a, b, slo)
    local parent = t.tmpdir()
    local r = proc.run { ROOT .. "/llmdlua", ROOT .. "/lua/compare.lua", "--a", a[2], "--a-label", a[1], "--b", b[2],
      "--b-label", b[1], "--slo", slo, "--parent", parent, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local dir = proc.run({ "sh", "-c", "ls -d \"$1\"/llm-d-comparison-*", "sh", parent }).stdout:gsub("%s+$", "")
    return json.read(dir .. "/comparison.json").summary
  end

  t.test("compare.lua's Summary names the crashed repeat, not two lower bounds and loads to measure", function()
    local summary = compare_summary({ "crash", one_folder(crash_reps()) }, { "clean", one_folder(clean_reps()) },
      CRASH_SLO)
    t.ok(summary:find("crash's repeats at load point 1 failed " .. CRASH_COUNTS .. " requests", 1, true), summary)
    t.ok(not summary:find("only lower bounds", 1, true), summary)
    t.ok(not summary:find("Measure loads between", 1, true), summary)
  end)

  t.test("compare.lua: a matched load past saturation says the run with a crashed repeat sustained no load", function()
    -- clean saturates at 30 req/s offered (24.0-24.4 achieved, below 95 %, by hand) and
    -- sustains 19.95 (the mean of 19.9, 19.95, 20.0); crash's lowest load failed 60 of 600
    -- requests pooled (10.0 %, above the 5 % a sustained load allows; 0, 0 and 30 % in its
    -- repeats, by hand): it sustained no load, so no load both sustain exists, and that is
    -- the reason, not the runs' measured ranges
    local summary = compare_summary({ "clean", one_folder(clean_reps()) }, { "crash", one_folder(crash_reps()) },
      "latency_p90_ms=2000")
    -- (in the Headline's words, decfix5: with the limit it failed, 5 % without an error-rate SLO)
    -- (the crashed repeat named since fixb39, as a cut row names it)
    t.ok(summary:find("crash sustained no load: 10 % of requests failed at the lowest load (repeat 3: 30 % failed, the "
      .. "others 0 and 0 %), more than 5 %, the error-rate limit used when no error-rate SLO is given, so no load was sustained "
      .. "within it; " .. CAUSE_UNKNOWN .. ", so no load both runs sustain was measured", 1, true), summary)
    t.ok(not summary:find("no load below both saturations lies within both runs' measured ranges", 1, true), summary)
  end)

  t.test("treatments.json says why max sustained is N/A and the saturation's cause and each repeat's failures", function()
    -- crash: its lowest load failed 60 of 600 requests pooled (10 %, by hand) in repeats of 0,
    -- 0 and 30 % (60 / 200): no load sustained, for failed requests (cause "failures"); clean
    -- sustains 19.95 req/s (mean of 19.9, 19.95, 20.0) and saturates at point 3
    local out = t.tmpdir()
    tr.write_report(out, tr.load { { label = "crash", dirs = crash_reps() }, { label = "clean", dirs = clean_reps() } },
      {})
    local j = json.read(out .. "/treatments.json")
    local by = {}
    for _, x in ipairs(j.treatments) do by[x.label] = x end
    local c = by.crash
    t.eq({ c.max_sustained_rps, c.saturation.cause, c.saturation.point, c.saturation.failed_pct,
      c.saturation.repeats_failed_pct }, { nil, "failures", 1, 10.0, { 0.0, 0.0, 30.0 } })
    -- (10 % is more than the 5 % a load may fail without an error-rate SLO: compare.lua's words)
    -- (the crashed repeat named since fixb39, as a cut row names it)
    t.eq(c.max_sustained_why, "10 % of requests failed at the lowest load (repeat 3: 30 % failed, the others 0 and 0 %), "
      .. "more than 5 %, the error-rate limit used when no error-rate SLO is given, so no load was sustained within it; "
      .. CAUSE_UNKNOWN)
    t.eq(c.max_sustained_output_tps_why, "no max sustained load point")
    -- the same reason the Markdown gives
    -- (its brackets read as commas inside N/A's, metrics.na)
    t.ok(t.read(out .. "/treatment_report.md"):find(require("llmd.metrics").na(c.max_sustained_why), 1, true), "md")
    t.near(by.clean.max_sustained_rps, 19.95, 1e-9)
    t.eq({ by.clean.max_sustained_why, by.clean.saturation.point, by.clean.saturation.cause }, { nil, 3, nil })
  end)

  t.test("two treatments with the same max sustained figure and different ceilings tie", function()
    -- both sustain 19.95 req/s (the mean of 19.9, 19.95 and 20.0 at 20 offered, by hand) and
    -- saturate at 30 offered: one achieved up to 21.2 there (mean of 21.0-21.4), the other
    -- 20.8 (20.6-21.0). The figures are equal: a tie, never "has the highest figure", whatever
    -- the "(up to ...)" each says beside it
    local function reps(top)
      local dirs = {}
      for i = 1, 3 do
        dirs[i] = run_dir { { 10, 10 }, { 20, 19.9 + 0.05 * (i - 1) }, { 30, top - 0.2 + 0.2 * (i - 1) } }
      end
      return dirs
    end
    local m = tr.model(tr.load { { label = "flaky", dirs = reps(21.2) }, { label = "other", dirs = reps(20.8) } })
    t.ok(m.verdict:find("No treatment is shown to be best: flaky and other tie at the highest figure of max sustained "
      .. "throughput, 19.95 req/s;", 1, true), m.verdict)
    t.ok(not m.verdict:find("has the highest figure", 1, true), m.verdict)
  end)

  t.test("a stratified test that cannot decide says its requests and load points, not '0 and 0 repeats (B's ...)'", function()
    -- the auditor's c5: van Elteren over 2 load points, 32 requests in all, exact p = 1 and
    -- smallest possible p 0.5 (>= 0.05: cannot decide). It has no repeats and no constant side
    local decision = require "llmd.decision"
    local v = decision.verdict { key = "ttft_mean_ms", a = 35, b = 36, test = { test = "mann_whitney",
      name = "van_elteren", strata = 2, exact = true, p = 1, p_min = 0.5, n_requests = 32 } }
    t.eq(v.verdict, "not shown to differ")
    t.eq(v.note, "Mann-Whitney stratified by load point (van Elteren, 2 points, exact), p = 1: 32 requests over 2 "
      .. "load points can give no p below 0.5, so this test cannot show a difference; not in the Holm family")
  end)
end

-- Session 35 audit (audit35): numbers and words of sessions 33-34 recomputed from the files
-- with python3 (numpy-free, my own code in the audit's /tmp/au35-fx) or by hand, as written
-- beside each expected value.
-- (Formerly test_audit35.lua.)
do
  local lp = require "llmd.loadpoints"

  -- A load sustained "within 5 %" by the mean of its repeats, one of which failed far more:
  -- the repeats' shares are said beside it, as they are for a failures point (audit35: exp-7's
  -- vllm-2replicas with its second repeat failing 29 of 200 read "4.833 % of the requests
  -- failed at load point 1, within 5 %", the same words as 10, 10 and 9 of 200).
  t.test("max sustained: failures within the limit by the means say each repeat's share where they differ", function()
    -- three repeats at 3.6 req/s offered, 200 requests each; failed 0, 29, 0 (by hand: 0, 14.5,
    -- 0 %, mean 29 / 600 = 4.833 %; achieved 3.48, 2.96, 3.48 req/s, answered keeps up)
    local function run(fails)
      local stages = {}
      for i, f in ipairs(fails) do
        local ok = 200 - f
        stages[i] = { rate = 3.6, values = { throughput_req_s = 3.48 * ok / 200, error_rate_pct = f / 2,
          requests_ok = ok, requests_failed = f, ttft_p90_ms = 250, throughput_tok_s = 697 * ok / 200 } }
      end
      return t.run_of(stages)
    end
    local s = lp.saturation(lp.points(run { 0, 29, 0 }))
    t.ok(s.none and s.failed_within, "sustained, failures within the limit")
    local notes = lp.sustained_failure_notes(s)
    t.eq(notes[1], "4.833 % of the requests failed at load point 1 (0, 14.5 and 0 % in its 3 repeats), within 5 %, "
      .. "the error-rate limit used when no error-rate SLO is given")
    -- repeats that failed one share: said once, as before
    s = lp.saturation(lp.points(run { 10, 10, 10 }))
    t.eq(lp.sustained_failure_notes(s)[1], "5 % of the requests failed at load point 1, within 5 %, the error-rate "
      .. "limit used when no error-rate SLO is given")
  end)
end

-- Session 34's decision-layer fixes (decfix5): max sustained throughput where failed
-- requests, not overload, cut the successful rate; single load points drawn with their
-- repeats' intervals; "1=" ranks and per-GPU ranking in every place they are printed.
-- Expected figures come from python3 on the fixture files or by hand, as written beside them.
-- (Formerly test_decfix5.lua.)
do
  local json = require "llmd.json"
  local proc = require "llmd.proc"

  local F = t.fixtures()
  local EXP7 = F .. "/vllm-benchmark/exp-7_H100"
  local LLMDLUA = t.here() .. "/../../llmdlua"

  -- exp-7's vllm-2replicas (three repeats at 3.6 req/s offered) with its second repeat
  -- completing 180 of its 200 requests (20 failed), its rates scaled: the new user's "errs" run
  -- of session 33.
  local function errs_run()
    local d = t.tmpdir() .. "/errs"
    t.copy_tree(EXP7 .. "/vllm-2replicas", d)
    local p = d .. "/benchmark_2025-05-13_04-59-44.json"
    local x = json.read(p)
    local n = 180
    x.completed, x.failed = n, 20
    x.total_input_tokens, x.total_output_tokens = 7999 * n, 200 * n
    x.request_throughput, x.output_throughput = n / x.duration, 200 * n / x.duration
    x.total_token_throughput = 8199 * n / x.duration
    t.write(p, json.encode(x))
    -- (its other two points, unchanged, saved in other bytes: this run's own files, not the base
    -- run's copied in, which a comparison with the base refuses)
    for _, f in ipairs { "benchmark_2025-05-13_04-55-27.json", "benchmark_2025-05-13_05-03-46.json" } do
      t.resave(d .. "/" .. f)
    end
    return d
  end

  -- text as the HTML report escapes it
  local function html_text(s)
    return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub("'", "&#39;"))
  end

  -- The text of a Headline row's B cell in the Markdown report.
  -- a Headline cell in full (a cut cell's text from its row's note, readable55); col 1 is A's
  local function md_cell(ws, label, col)
    return t.table_rows(t.read(ws .. "/comparison_report.md"), "Headline")[label][col + 1]
  end

  t.test("max sustained: failed requests within the error-rate limit are sustained, said beside the figure, alike "
    .. "in md, html, csv, json and treatments.lua", function()
    local errs = errs_run()
    -- python3 on the files: the repeats succeeded at 200 / 57.4217 = 3.4830, 180 / 57.1308 =
    -- 3.1507 and 200 / 57.6225 = 3.4709 req/s, mean 3.3682 (93.6 % of 3.6 offered, below the
    -- 95 % share); 20 of 600 failed = 3.333 %, so 3.3682 / (1 - 1/30) = 3.4843 req/s were
    -- answered (96.8 %): failed requests, not overload, and 3.333 % is within the 5 % a load
    -- may fail without an error-rate SLO. It read "N/A (3.333 % of requests failed at the
    -- lowest load)". The repeats failed 0, 20 and 0 of 200: 0, 10 and 0 %, said beside the
    -- mean (audit35: a mean within the limit can be one crashed repeat's)
    local want = "≥ 3.37 req/s (never saturated; 3.333 % of the requests failed at load point 1 (0, 10 and 0 % in its "
      .. "3 repeats), within 5 %, the error-rate limit used when no error-rate SLO is given)"
    local ws, r = t.compare { "--a", EXP7 .. "/vllm-2replicas", "--b", errs, "--a-label", "base", "--b-label", "errs" }
    t.eq(r.code, 0, r.stderr)
    t.eq(md_cell(ws, "Max sustained throughput", 2), want)
    local html = t.read(ws .. "/comparison_report.html")
    t.ok(html:find(html_text(want), 1, true), "html")
    local csv = t.csv_row(t.read(ws .. "/comparison.csv"), "max_sustained_rps")
    t.near(tonumber(csv[4]), 3.368178770653634, 1e-9)
    t.ok(csv[11]:find("errs: " .. want, 1, true), csv[11])
    local j = json.read(ws .. "/comparison.json")
    local s = j.saturation.b
    t.eq({ s.none, s.limit.pct, s.limit.given, s.failed_within[1].point }, { true, 5, false, 1 })
    t.near(s.failed_within[1].failed_pct, 100 / 30, 1e-9)
    t.near(s.max_sustained_rps, 3.368178770653634, 1e-9)
    -- treatments.lua: the same words, with its own figures (three decimals)
    local out = t.tmpdir()
    local tr = proc.run { LLMDLUA, "treatments.lua", "--run", "base=" .. EXP7 .. "/vllm-2replicas", "--run",
      "errs=" .. errs, "--out", out, "--quiet" }
    t.eq(tr.code, 0, tr.stderr)
    local md = t.read(out .. "/treatment_report.md")
    t.ok(md:find("≥ 3.37 req/s (never saturated; 3.333 % of the requests failed at load point 1 (0, 10 and 0 % in "
      .. "its 3 repeats), within 5 %, the error-rate limit used when no error-rate SLO is given)", 1, true), md)
    t.ok(t.read(out .. "/treatment_report.html"):find(html_text("≥ 3.37 req/s (never saturated; 3.333 % of the "
      .. "requests failed at load point 1 (0, 10 and 0 % in its 3 repeats), within 5 %, the error-rate limit used when "
      .. "no error-rate SLO is given)"), 1, true), "treatments html")
    local tj = json.read(out .. "/treatments.json")
    local found
    for _, x in ipairs(tj.treatments) do if x.label == "errs" then found = x end end
    t.eq({ found.saturation.error_limit_pct, found.saturation.failed_within[1].point }, { 5, 1 })
    t.near(found.max_sustained_rps, 3.368178770653634, 1e-9)
  end)

  t.test("max sustained: more failed than the error-rate SLO allows at the lowest load is N/A with why, alike in every "
    .. "output", function()
    local errs = errs_run()
    -- 3.333 % failed (as above) is more than the SLO's 1 %: no load was sustained within it
    -- (the crashed repeat named since fixb39; N/A's brackets read as commas)
    local want = "N/A (3.333 % of requests failed at the lowest load, repeat 2: 10 % failed, the others 0 and 0 %, more "
      .. "than the error-rate SLO's 1 %, so no load was sustained within it; " .. CAUSE_UNKNOWN .. ")"
    local ws, r = t.compare { "--a", EXP7 .. "/vllm-2replicas", "--b", errs, "--a-label", "base", "--b-label", "errs",
      "--slo", "error_rate_pct=1" }
    t.eq(r.code, 0, r.stderr)
    t.eq(md_cell(ws, "Max sustained throughput", 2), want)
    t.ok(t.read(ws .. "/comparison_report.html"):find(html_text(want), 1, true), "html")
    t.ok(t.csv_row(t.read(ws .. "/comparison.csv"), "max_sustained_rps")[11]:find("errs: " .. want, 1, true), "csv")
    local s = json.read(ws .. "/comparison.json").saturation.b
    t.eq({ s.cause, s.point, s.limit.pct, s.limit.given, s.max_sustained_rps }, { "failures", 1, 1, true, nil })
    local out = t.tmpdir()
    local tr = proc.run { LLMDLUA, "treatments.lua", "--run", "base=" .. EXP7 .. "/vllm-2replicas", "--run",
      "errs=" .. errs, "--slo", "error_rate_pct=1", "--out", out, "--quiet" }
    t.eq(tr.code, 0, tr.stderr)
    local tj = json.read(out .. "/treatments.json")
    for _, x in ipairs(tj.treatments) do
      if x.label == "errs" then
        t.eq(x.max_sustained_why, "3.333 % of requests failed at the lowest load (repeat 2: 10 % failed, the others 0 "
          .. "and 0 %), more than the error-rate SLO's 1 %, so no load was sustained within it; " .. CAUSE_UNKNOWN)
      end
    end
  end)

  -- n values evenly from lo to hi
  local spread = t.spread

  -- A vLLM-benchmark ladder in folder dir: one file per {offered req/s, achieved req/s} (800
  -- requests each, TTFT 100-110 ms, latencies 0.5 s more, in the order sent), its duration
  -- set so that its drain-reduced rate, completed / (window - least latency), the figure
  -- ranked, is that rate: window = 800 / achieved + least latency. (800, not 20 as before
  -- fixc40: an order of max sustained throughputs must be beyond the noise of the rates, 1.96 /
  -- sqrt(n) of each: 20 requests leave +-44 %.) (Without start_times: the
  -- requests' own times, answers keeping pace with sends, would say every point kept up. With
  -- latencies, rising in the order sent: a shortfall is a queue's, by the rank sum of the last
  -- tenth, so saturated; from statistics only it could not be told, agg37.)
  local function rate_ladder(dir, pts)
    local src = t.latency_ladder((function()
      local l = {}
      for i, p in ipairs(pts) do l[i] = { p[1], spread(0.100, 0.110, 800) } end
      return l
    end)())
    t.mkdir(dir)
    for i, p in ipairs(pts) do
      local name = ("benchmark_%02d.json"):format(i)
      local d = json.read(src .. "/" .. name)
      local least = math.huge
      for _, v in ipairs(d.latencies) do least = math.min(least, v) end
      d.duration = 800 / p[2] + least
      d.request_throughput = 800 / d.duration
      d.start_times = nil
      -- (json.encode sorts the keys: 800 x 63 token gaps, `itls`, before num_prompts and
      -- request_throughput, past the first 64 KiB; read by the file's top-level keys since session 40)
      t.write(dir .. "/" .. name, json.encode(d))
    end
  end

  t.test("per GPU, by max sustained throughput: an experiment's setups ranked on totals, their figures per GPU in "
    .. "the other order, untested, in md, html and json", function()
    -- an experiment workspace as experiment.lua leaves it: two setups, each one run treatment
    -- of four (big) or two (small) rates; GPU counts from each setup's values: big decode 2
    -- replicas x tensor 2 = 4, small 1 x 1 = 1 (by hand)
    local w = t.tmpdir() .. "/exp"
    t.mkdir(w)
    t.write(w .. "/experiment-state.json", json.encode { experiment = "gpus", results = {
      { setup_treatment = "big" }, { setup_treatment = "small" } } })
    t.mkdir(w .. "/setup-treatment-big/plan")
    t.write(w .. "/setup-treatment-big/plan/values-override.yaml", "decode:\n  replicas: 2\n  parallelism: {tensor: 2}\n")
    t.mkdir(w .. "/setup-treatment-small/plan")
    t.write(w .. "/setup-treatment-small/plan/values-override.yaml", "decode:\n  replicas: 1\n  parallelism: {tensor: 1}\n")
    -- big: 10, 20, 30, 40 req/s offered, 9.9, 19.8, 29.7 and 33 achieved (33 < 95 % of 40:
    -- saturated there), so it sustains 29.7 (ceiling 33); small: 10 and 20 offered, 9.9 and 15
    -- achieved (15 < 19: saturated), so it sustains 9.9 (ceiling 15). Totals: big first. Per
    -- GPU: 29.7 / 4 = 7.425 against 9.9 / 1 = 9.9: small first (by hand)
    rate_ladder(w .. "/setup-treatment-big/run-r1/results", { { 10, 9.9 }, { 20, 19.8 }, { 30, 29.7 }, { 40, 33 } })
    rate_ladder(w .. "/setup-treatment-small/run-r1/results", { { 10, 9.9 }, { 20, 15 } })
    local out = t.tmpdir()
    local r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local j = json.read(out .. "/treatments.json")
    t.eq({ j.ranking[1].label, j.ranking[2].label }, { "big", "small" })
    t.near(j.ranking[1].value, 29.7, 1e-9)
    t.near(j.ranking[2].value, 9.9, 1e-9)
    local per = j.cost.per_gpu
    t.eq({ per[1].label, per[1].gpus, per[2].label, per[2].gpus, j.cost.differ }, { "small", 1, "big", 4, true })
    t.near(per[1].value, 9.9, 1e-9)
    t.near(per[2].value, 29.7 / 4, 1e-9)
    -- untested, but ordered by the measured loads as compare.lua's per-GPU rule reads them
    -- (session 35): small sustained 9.9 per GPU, big never achieved more than 33 / 4 = 8.25 per
    -- GPU at any load (by hand); beyond the noise of 800 requests a point (python3: the gap 1.65
    -- less math.hypot(9.9, 8.25) x 1.96 / sqrt(800) = 0.757 above 0; from 20, -4.00); no best
    -- named on totals
    -- (at 2 decimals, metrics.RATE_DECIMALS: 29.7 / 4 is the double just below 7.425, which
    -- python3's '%.2f' prints 7.42, as C's printf does)
    local banner = "Not like for like on cost: big 4 GPUs, small 1 GPU. Per GPU, max sustained throughput: small 9.90 "
      .. "req/s per GPU, big 7.42 req/s per GPU; small above big per GPU: untested, but the measured loads order them: "
      .. "small sustained 9.90 req/s per GPU, big never achieved more than 8.25 req/s per GPU at any load (each "
      .. "against the next per GPU as compare.lua orders them, untested; a lower bound stays one); the order per GPU is "
      .. "not the totals' order: small first per GPU, big on totals."
    -- (and the places the rank per GPU puts otherwise, fixc43: small 1 and big 2 per GPU, the
    -- order above, against big 1 and small 2 on totals)
    t.ok(j.verdict:find(banner .. " The rank per GPU is not the rank on totals for 2 places: small 1 per GPU (2 on "
      .. "totals), big 2 per GPU (1 on totals). On totals (not per GPU): ", 1, true), j.verdict)
    t.ok(not j.verdict:find("is best", 1, true), j.verdict)
    t.ok(t.read(out .. "/treatment_report.md"):find(banner, 1, true), "md")
    t.ok(t.read(out .. "/treatment_report.html"):find(html_text(banner), 1, true), "html")
  end)

  t.test("max sustained: failures within the limit below an overload are said beside the figure; above it, the lowest "
    .. "load sustains nothing, said with the limit", function()
    local report = require "llmd.report"
    local decision = require "llmd.decision"
    -- 10 req/s offered, 9.3 succeeded with 3 % failed: answered 9.3 / 0.97 = 9.588 >= 9.5 (95 %
    -- of 10): failures, not overload; 20 offered, 15 achieved, none failed: 15 < 19, overloaded
    -- (by hand). Without an error-rate SLO 3 % is within 5 %: max sustained 9.3, ceiling 15.
    -- (the files name the failures: the server's errors, failure_kinds; "not overload" needs that)
    local function stage(rate, rps, err) return { rate = rate, values = { throughput_req_s = rps, ttft_p90_ms = 50,
      error_rate_pct = err, requests_ok = 1000 }, failure_kinds = { timeout = 0, error = err, unknown = 0 } } end
    local x = t.run_of { stage(10, 9.3, 3), stage(20, 15, 0) }
    local ok = t.run_of { stage(10, 10, 0), stage(20, 20, 0) }
    local function sd(label, r) return { label = label, state = { label = label }, run = r, kv = {} } end
    local m = report.build { a = sd("ok", ok), b = sd("x", x), generated = 0 }
    t.eq(t.headline_row(m, "Max sustained throughput").b_text, "9.30 req/s (up to 15.00, its most at any load; 3 % of "
      .. "the requests failed at load point 1, within 5 %, the error-rate limit used when no error-rate SLO is given)")
    -- and the Summary's sentence on max sustained throughput says it beside the figures too
    t.ok(m.summary:find("9.30 req/s (up to 15.00) for x (≥: never saturated, a lower bound). x: 3 % of the requests "
      .. "failed at load point 1, within 5 %, the error-rate limit used when no error-rate SLO is given.", 1, true),
      m.summary)
    -- with an error-rate SLO of 1 %: more failed than it allows at the lowest load, and the load
    -- above is overloaded: no load was sustained
    m = report.build { a = sd("ok", ok), b = sd("x", x), generated = 0, slo = decision.parse_slo("error_rate_pct=1") }
    t.eq(t.headline_row(m, "Max sustained throughput").b_text, "N/A (3 % of requests failed at the lowest load, more "
      .. "than the error-rate SLO's 1 %, so no load was sustained within it; failed requests, not overload)")
    -- (the Summary's matched load said x "saturated already at its lowest load")
    t.ok(not m.summary:find("saturated already at its lowest load", 1, true), m.summary)
    t.ok(m.summary:find("That load is past saturation (x sustained no load below it: 3 % of requests failed at the "
      .. "lowest load, more than the error-rate SLO's 1 %, so no load was sustained within it; failed requests, not "
      .. "overload)", 1, true), m.summary)
  end)
end

-- Session 37's decision-layer fixes (newuser37 #4, #5, #6, #11; audit37 #5, #6): the
-- max sustained search past a point it cannot judge, the no-SLO latency clause at a load
-- both runs sustained, capacity bounded at the last sustained load, and the texts that
-- name no direction or sameness the tests do not show.
--
-- Runs are hand-made (testlib.run_of); every expected figure is worked out by hand in the
-- comment beside it.
-- (Formerly test_fixb37.lua.)
do
  local report = require "llmd.report"
  local lp = require "llmd.loadpoints"
  local decision = require "llmd.decision"
  local proc_ok_numpy = require("llmd.proc").run({ "/usr/bin/python3", "-c", "import numpy" }).ok

  local function sd(label, run)
    return { label = label, state = { label = label, stack = {} }, run = run, kv = {} }
  end

  local function build(a, b, slo)
    return report.build { a = sd("x", a), b = sd("y", b), slo = slo or {}, generated = 0 }
  end

  -- A run offered 10, 20, 30, ... req/s (stage i at 10 i), achieving achieved[i], with TTFT
  -- p90 ttft[i] (50 ms where not given) and, where few[i], only few[i] requests completed.
  local function run(achieved, ttft, few)
    local stages = {}
    for i, r in ipairs(achieved) do
      stages[i] = { rate = 10 * i, values = { throughput_req_s = r, ttft_p90_ms = ttft and ttft[i] or 50,
        error_rate_pct = 0, requests_ok = few and few[i] or nil } }
    end
    return t.run_of(stages)
  end

  local function sat(r) return lp.saturation(lp.points(r), {}) end

  t.test("max sustained: a point too thin to judge is settled by a higher load that kept up", function()
    -- 10, 15, 30, 40 achieved at 10-40 offered; point 2 completed 10 requests (< 20) and fell
    -- short (15 < 19): it cannot be judged. Points 3 and 4 kept up (30 >= 28.5, 40 >= 38): a
    -- server that kept up with 40 req/s kept up with 20 too, so it never saturated, >= 40.
    local s = sat(run({ 10, 15, 30, 40 }, nil, { nil, 10 }))
    t.eq({ s.none, s.unknown, s.max_sustained_rps }, { true, nil, 40 })
    t.eq(s.resolved, { { point = 2, offered = 20, by = 3, by_offered = 30 } })
    t.ok(s.reason:find("load point 2 (20 req/s offered) could not be judged on its own, but load point 3, at 30 req/s "
      .. "offered, kept up with its successful requests alone, so the server kept up with the lower load too", 1, true),
      s.reason)
    -- ... and saturated later (30 < 38 at 40 offered): max sustained the highest achieved
    -- below point 4, max(10, 15, 30) = 30
    s = sat(run({ 10, 15, 30, 30 }, nil, { nil, 10 }))
    t.eq({ s.point, s.max_sustained_rps }, { 4, 30 })
    t.ok(s.resolved, "resolved listed")
  end)

  t.test("max sustained: an unjudged point no higher load settles stays unknown", function()
    -- point 2 thin, point 3 clearly saturated (20 < 28.5): the limit lies between 10 (point 1,
    -- the last known sustained) and 20 (the most at any load), the figure 10 "up to" 20, the
    -- unjudged point widening the range (fixd39; before: unknown)
    local s = sat(run({ 10, 15, 20 }, nil, { nil, 10 }))
    t.eq({ s.unknown, s.point, s.max_sustained_rps, s.ceiling_rps, s.sustained_upto }, { nil, 3, 10, 20, 1 })
    t.ok(s.reason:find("(too few requests to judge saturation: load point 2", 1, true), s.reason)
    -- point 3 thin as well, last: nothing above settles point 2
    s = sat(run({ 10, 15, 20 }, nil, { nil, 10, 10 }))
    t.eq({ s.unknown, s.sustained_upto }, { true, 1 })
    t.ok(s.reason:find("too few requests to judge saturation: load point 2", 1, true), s.reason)
    -- a later point short but thin does not settle it either: only one that clearly kept up
    s = sat(run({ 10, 15, 20, 40 }, nil, { nil, 10, 10 }))
    t.eq({ s.none, s.unknown, s.max_sustained_rps }, { true, nil, 40 })
  end)

  t.test("no SLO: latencies at the highest load both are known to have sustained", function()
    -- x: 10, 20, 22 at 10, 20, 30 offered: saturated at point 3 (22 < 28.5), sustained to 20
    -- offered. y: 10, 15 (10 requests: unjudged), 16 (10 requests: unjudged too, so nothing
    -- above point 2 bounds it): unknown, known to have sustained only 10 offered. The highest load both sustained: 10 req/s offered, where
    -- TTFT p90 is 50 ms (x) and 60 ms (y): +20.0 %, above the 2 % threshold: untested, no
    -- direction named. (Before: compared at 30 offered, past x's saturation.)
    local m = build(run({ 10, 20, 22 }, { 50, 50, 900 }), run({ 10, 15, 16 }, { 60, 60, 100 }, { nil, 10, 10 }))
    t.eq(m.verdict.kind, "cannot say")
    t.ok(m.verdict.text:find(" At 10 req/s offered (10.00 req/s achieved by both), the highest load both sustained, y's "
      .. "latencies are untested: TTFT p90 +20.0 % (no test at this load: no per-request samples from both "
      .. "runs there); TPOT p90, end-to-end latency p90 not known in both runs. --slo gives capacity within an SLO.",
      1, true),
      m.verdict.text)
    t.eq({ m.no_slo_latency.load, m.no_slo_latency.sustained, m.verdict.latency.how }, { 10, true, "untested" })
  end)

  t.test("no SLO: no load both sustained, so the latencies are not compared", function()
    -- x: 5 and 6 at 10 and 20 offered: saturated at its lowest load (5 < 9.5). y: 5 at 10 (10
    -- requests: unjudged), 12 at 20 (< 19: saturated): unknown, nothing known sustained. The
    -- highest load both measured, 20 offered, is past x's saturation and not known sustained
    -- by y: no latency compared there.
    local m = build(run({ 5, 6 }, { 900, 1900 }), run({ 5, 12 }, { 100, 200 }, { 10 }))
    t.eq(m.verdict.kind, "cannot say")
    t.eq(m.no_slo_latency.sustained, false)
    t.eq(m.verdict.latency.how, "not compared")
    t.ok(m.verdict.text:find(" Their latencies are not compared: no load both runs measured is one both are known to "
      .. "have sustained: at 20 req/s offered (6.00 req/s achieved by x, 12.00 req/s by y), the highest load both "
      .. "measured, x is past its saturation there and y is not known to have sustained it (its saturation is "
      .. "unknown), so a latency there is a queue's, not the server's. --slo gives capacity within an SLO.", 1, true),
      m.verdict.text)
    t.ok(not m.verdict.text:find("latencies are higher", 1, true) and not m.verdict.text:find("lower on", 1, true))
  end)

  t.test("no SLO: differences below the practical threshold name no direction", function()
    -- spans that overlap (x 20-22, y 21-21.5: cannot order); at 20 offered, both sustained,
    -- TTFT p90 50 ms (x) and 50.5 ms (y): +1.0 % of x, 0.995 % of their mean, below 2 %
    local m = build(run({ 10, 20, 22 }), run({ 10, 21, 21.5 }, { 50, 50.5, 50 }))
    t.eq(m.verdict.latency.how, "within the practical threshold")
    t.ok(m.verdict.text:find("the highest load both sustained, y's latencies are within the practical threshold of 2.0 "
      .. "% (TTFT p90 +1.0 %; untested); TPOT p90, end-to-end latency p90 not known in both runs.", 1, true),
      m.verdict.text)
    -- 50 against 49 ms: -2.0 % of x, 2.02 % of their mean (1 / 49.5): above, untested
    m = build(run({ 10, 20, 22 }), run({ 10, 21, 21.5 }, { 50, 49, 50 }))
    t.eq(m.verdict.latency.how, "untested")
    -- (untested, never "not shown to differ", which reads as sameness: fixa38)
    t.ok(m.verdict.text:find("y's latencies are untested: TTFT p90 -2.0 % (no test at this load: no per-request "
      .. "samples from both runs there); TPOT p90, end-to-end latency p90 not known in both runs.", 1, true),
      m.verdict.text)
    t.ok(report.no_slo_latency_text(m.no_slo_latency, { label = "x" }, { label = "y" }, 2):find(
      "y's latencies against x's are untested at this load: TTFT p90 49.0 ms vs 50.0 ms (-2.0 %) (y − x; no test at "
      .. "this load: no per-request samples from both runs there)", 1, true))
  end)

  t.test("capacity: no crossing read at or past a point whose saturation is unknown", function()
    local slo = decision.parse_slo("ttft_p90_ms=200", "--slo")
    -- 10, 20, 25, 28 achieved at 10-40 offered; point 3 completed 10 requests and fell short
    -- (25 < 28.5): unjudged; point 4 saturated (28 < 38): unknown, known sustained to point 2.
    -- TTFT p90 100, 150, 250, 400: the SLO (200) is crossed between points 2 and 3, which
    -- read as about 20 + (200 - 150) / (250 - 150) x 5 = 22.5 req/s at 25 offered, into the
    -- unjudged point. Bounded instead: at least point 2's 20 req/s.
    local r = run({ 10, 20, 25, 28 }, { 100, 150, 250, 400 }, { nil, nil, 10 })
    local pts = lp.points(r)
    local c = lp.capacity(pts, slo, lp.saturation(pts, { slo = slo }))
    t.eq({ c.kind, c.rps, c.bound }, { "last_sustained", 20, "lower" })
    t.ok(c.reason:find("load point 3 could not be judged", 1, true), c.reason)
    -- TTFT 100, 150, 190, 400: crossed between points 3 and 4, about 25 + 10 / 210 x 3 =
    -- 25.14 req/s "at about 30.48 req/s offered", past the unjudged point into the saturated
    -- one; bounded at 20 as well
    r = run({ 10, 20, 25, 28 }, { 100, 150, 190, 400 }, { nil, nil, 10 })
    pts = lp.points(r)
    c = lp.capacity(pts, slo, lp.saturation(pts, { slo = slo }))
    t.eq({ c.kind, c.rps, c.offered }, { "last_sustained", 20, nil })
    -- the Headline says which bound it is
    local m = build(r, run({ 10, 20, 30, 40 }, { 100, 150, 190, 400 }), slo)
    -- (cap37: the default 5 % failure limit is named beside the SLO)
    local row = t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)")
    t.ok(row.a_text:find("≥ 20.00 req/s (the last load known to be sustained)", 1, true), row.a_text)
  end)

  t.test("a test that left out loads as too dependent is no finding of sameness (newuser37 #11)", function()
    -- decision.verdict on a van Elteren test of 1 of 2 sustained strata (the other, 45/s,
    -- too dependent), p = 0.62 (not significant): "not shown to differ", with how much was
    -- untested, never "no clear difference"; one point's test is a plain Mann-Whitney, named so
    -- (fixa38: not "van Elteren, 1 point")
    local test = { test = "mann_whitney", name = "van_elteren", z = 0.49, p = 0.62, strata = 1,
      dependent = { "45/s" }, sustained_strata = 2 }
    local v = decision.verdict { key = "ttft_p90_ms", a = 482.6, b = 173.7, test = test }
    t.eq({ v.verdict, v.partial }, { "not shown to differ", true })
    t.eq(v.note, "untested at 1 of 2 loads (too dependent: 45/s), which the figures pool; Mann-Whitney at 1 load "
      .. "point, the one tested, p = 0.62")
    -- the same test with nothing left out: no clear difference, as before
    test.dependent = nil
    t.eq(decision.verdict({ key = "ttft_p90_ms", a = 482.6, b = 173.7, test = test }).verdict, "no clear difference")
  end)

  if proc_ok_numpy then
    t.test("a test that left out loads as too dependent: the report, on the simulated server", function()
      -- tests/data/queue_sim.py (as test_tests36.lua): a FIFO server of 320 slots, 0.1 s + 99 x
      -- 0.15 s a request, Poisson arrivals for 60 s at 4 and 20 req/s, seeds 101 and 102. At
      -- 20/s the TTFTs in send order are too dependent to test (test_tests36.lua checks the
      -- design effect against Python); 4/s alone is tested, p > 0.05. The TTFT p90 rows differ
      -- by -84.5 % in the pooled figures: not shown to differ (main: "no clear difference").
      local proc = require "llmd.proc"
      local json = require "llmd.json"
      local root = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
      local d = t.tmpdir()
      for _, s in ipairs { 101, 102 } do
        local r = proc.run { "/usr/bin/python3", root .. "/tests/data/queue_sim.py", d .. "/s" .. s, "--rates", "4,20",
          "--slots", "320", "--ttft0", "0.1", "--tpot", "0.15", "--outtok", "100", "--seed", tostring(s) }
        t.eq(r.code, 0, r.stdout .. r.stderr)
      end
      local r = proc.run { root .. "/llmdlua", root .. "/lua/compare.lua", "--a", d .. "/s101", "--b", d .. "/s102",
        "--parent", d .. "/out", "--quiet" }
      t.eq(r.code, 0, r.stderr)
      local ws = t.workspaces(d .. "/out")[1]
      local model = json.decode(t.read(ws .. "/comparison.json"))
      local seen = 0
      for _, row in ipairs(model.perf) do
        if row.evidence and row.evidence:find("too dependent", 1, true) then
          seen = seen + 1
          t.ok(row.verdict ~= "no clear difference", row.key .. ": " .. tostring(row.verdict))
          t.ok(row.evidence:find("^untested at 1 of 2 loads %(too dependent: 20/s%)"), row.evidence)
          t.ok(not row.evidence:find("1 points", 1, true), row.evidence)
        end
      end
      t.ok(seen > 0, "a row left 20/s out")
      local md = t.read(ws .. "/comparison_report.md")
      t.ok(md:find("Not shown to differ, as tested at only some of the loads both runs sustained (untested at 1 of 2 "
        .. "loads, too dependent: 20/s), which the whole-run figures pool: ", 1, true), md)
    end)
  end

  if proc_ok_numpy then
    t.test("reason texts: requests, not repeats; all-or-none load points; samples all one value; 0 tok/s", function()
      -- tests/data/edge_vllm.py (audit37's hand-made vLLM --save-detailed files)
      local proc = require "llmd.proc"
      local json = require "llmd.json"
      local root = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
      local d = t.tmpdir()
      local g = proc.run { "/usr/bin/python3", root .. "/tests/data/edge_vllm.py", d }
      t.eq(g.code, 0, g.stdout .. g.stderr)
      local function compare(a, b)
        local parent = d .. "/out_" .. a .. b
        local r = proc.run { root .. "/llmdlua", root .. "/lua/compare.lua", "--a", d .. "/" .. a, "--b", d .. "/" .. b,
          "--parent", parent, "--quiet" }
        t.eq(r.code, 0, r.stderr)
        local ws = t.workspaces(parent)[1]
        local m = json.decode(t.read(ws .. "/comparison.json"))
        local rows = {}
        for _, row in ipairs(m.perf) do rows[row.key] = row end
        return m, rows, t.read(ws .. "/comparison_report.md")
      end
      -- e1: 2 requests a side, TTFT 100 ms against 200 ms: the exact test's least p is
      -- 2 / C(4, 2) = 0.333; it tested 2 and 2 requests (main: "0 and 0 repeats")
      -- (the whole-run test itself, decision.row_test without the runs' saturations: 2 requests
      -- are too few to judge one, so the report leaves the point out, as a load a run is not
      -- known to have sustained, audit44)
      local ra, rb, pa, pb = t.extract_pair(d .. "/e1a", d .. "/e1b")
      local v = decision.verdict { key = "ttft_p90_ms", a = 100, b = 200,
        test = decision.row_test("ttft_p90_ms", ra, rb, pa, pb) }
      t.eq(v.verdict, "not shown to differ")
      t.eq(v.note, "exact Mann-Whitney, p = 0.333: 2 and 2 requests can give no p below 0.333, so this test cannot "
        .. "show a difference; not in the Holm family")
      local _, rows, md = compare("e1a", "e1b")
      t.eq(rows.ttft_p90_ms.verdict, "untested")
      -- (its saturation unknown, with why: not known to be sustained, never "not sustained", tidy55)
      t.contains(rows.ttft_p90_ms.evidence, "not known to be sustained (A's and B's saturations are unknown: too few "
        .. "requests to judge saturation: load point 1 completed 2 requests")
      t.contains(rows.ttft_p90_ms.evidence, "; past saturation, or past a load whose saturation could not be judged")
      t.ok(not md:find("tested only on repeats", 1, true))
      -- e2: 2 and 4 req/s no failure in either run, 8 req/s every one of 480 failed in both:
      -- the same rate at every load point (main: "too few requests failed" with 480 of 840)
      local m
      m, rows = compare("e2a", "e2b")
      t.eq(rows.error_rate_pct.verdict, "no clear difference")
      t.ok(rows.error_rate_pct.evidence:find("^at each of the 3 load points both measured either no request failed in "
        .. "both runs or every one did %(480 of 840 and 480 of 840 failed in all%)"), rows.error_rate_pct.evidence)
      -- its point 3 completed none: 0 req/s and 0 output tok/s (main: tok/s N/A, "the achieved
      -- rate unknown")
      local p3 = m.load_points.a[3]
      t.eq({ p3.achieved_rps, p3.output_tps }, { 0, 0 })
      -- e3: 200 requests a side, every TTFT 100 ms and latency 2 s: samples, all one value
      -- (main: "no per-request samples or repeats from both runs")
      _, rows, md = compare("e3a", "e3b")
      t.eq(rows.ttft_p90_ms.evidence, "identical values; the 200 and 200 per-request samples are all one value: nothing "
        .. "to rank")
      t.ok(md:find("the metrics with per-request samples from both runs have every sample one value, nothing to rank",
        1, true), md)
    end)
  end
end

-- fixb38: correctness items left after session 37.
-- 1. inference-perf runs: the failures' design effect (err37) was 1 wherever llmdlua read a
--    run's per-request file: a run of several stages recorded no failed request's outcome per
--    stage (so the error rate's test fell back to Fisher's and bursts of failures near
--    saturation named false winners), and a one-stage run's fast lane left its successes out
--    of the outcomes (all failures, one value: design effect 1).
-- Expected values: tests/data/err_ref.py (numpy alone, on the generated files), python3 by
-- hand, or as said at each.
-- (Formerly test_fixb38.lua.)
do
  local lp = require "llmd.loadpoints"
  local json = require "llmd.json"

  -- 3. A max sustained figure cut by one crashed repeat: the row's note gave only the mean
  -- share of failed requests, and the treatments' Status column read "ok".
  do
    local tr = require "llmd.treatments"
    -- (testlib.exp7_repeats) exp-7's vLLM summary (200 prompts) at each offered rate and achieved throughput,
    -- `failed` of its requests failed (test_audit3's way: duration = completed / achieved, a
    -- shortfall with latencies rising in send order)
    -- three repeats at 10, 20 and 40 req/s; repeat 2 crashed at 40: 122 of its 200 requests
    -- failed (61 %), 78 completed at 15.6 req/s; the others kept up with none failed
    local function reps()
      return t.exp7_repeats(function(i)
        return { { 10, 10 }, { 20, 19.9 + 0.05 * (i - 1) }, i == 2 and { 40, 15.6, 122 } or { 40, 40 } }
      end)
    end

    t.test("one crashed repeat cuts the max sustained figure: its note names the repeat, the Status says it", function()
      local out = t.tmpdir()
      local m = tr.load { { label = "crash", dirs = reps() } }
      tr.write_report(out, m, {})
      local j = json.read(out .. "/treatments.json").treatments[1]
      -- by hand: 40 req/s failed 0, 122 and 0 of 200: 61 / 3 = 20.33 % by the mean, more than
      -- the 5 % limit, so the max sustained is 20 req/s's mean achieved, 19.95
      t.near(j.max_sustained_rps, 19.95, 1e-9)
      t.eq({ j.saturation.cause, j.saturation.point }, { "failures", 3 })
      t.eq(j.crashed_repeats, "1 of 3 repeats failed 61 % at 40 req/s")
      local md = t.read(out .. "/treatment_report.md")
      local row = md:match("\n(| crash |[^\n]*)")
      t.ok(row and row:find("then 20.33 % failed at load point 3 (40 req/s offered; repeat 2: 61 % failed, the others 0 "
        .. "and 0 %), more than 5 %", 1, true), row or md)
      -- the Status column: the crash, not "ok"
      t.ok(row:find("| 1 of 3 repeats failed 61 % at 40 req/s |", 1, true), row)
      t.ok(not row:find("| ok |", 1, true), row)
      local html = t.read(out .. "/treatment_report.html")
      t.ok(html:find("<td>1 of 3 repeats failed 61 % at 40 req/s</td>", 1, true), "html")
    end)

    t.test("crashed_repeats: only repeats over the limit beside one within it", function()
      local limit = { pct = 5, text = "5 %" }
      -- every repeat over the limit (a load none sustained): no crash; one run: none
      t.eq(lp.crashed_repeats({ repeats_failed_pct = { 30, 40, 50 } }, limit), nil)
      t.eq(lp.crashed_repeats({ repeats_failed_pct = { 30 } }, limit), nil)
      local c = lp.crashed_repeats({ repeats_failed_pct = { 0, 61, 2, 9 } }, limit)
      t.eq({ #c, c[1].n, c[1].pct, c[2].n, c[2].pct, c.repeats }, { 2, 2, 61, 4, 9, 4 })
      t.eq(c.others, { 0, 2 })
      -- a mean within the limit from one crashed repeat (0, 14.5, 0: 4.83 %) is said too
      t.eq(lp.crashed_repeats_text { none = true, limit = limit, failed_within = { { offered = 30,
        repeats_failed_pct = { 0, 14.5, 0 } } } }, "1 of 3 repeats failed 14.5 % at 30 req/s")
    end)
  end
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
-- (4. vLLM's p0.1-p75 checked against the arrays: test_fixe38.)
-- Expected values: tests/sim/fixb39_ref.py (numpy on the per-request file; its output lines
-- quoted beside each value) or by hand, as said.
-- (Formerly test_fixb39.lua.)
do
  local json = require "llmd.json"

  -- 2. A crashed repeat named wherever its load's figures are said: the ceiling of a figure its
  --    crash cut (a mean that counts its successes), and the note of a lowest load it failed.
  do
    local tr = require "llmd.treatments"
    local lp = require "llmd.loadpoints"
    -- (testlib.exp7_repeats) exp-7's vLLM summary (200 prompts) at each offered rate and achieved throughput,
    -- `failed` of its requests failed (test_fixb38's builder)
    -- three repeats; points(i): repeat i's {offered, achieved, failed}
    local function reps(points) return t.exp7_repeats(points) end

    t.test("a crashed repeat's ceiling and lowest load: the repeat named", function()
      -- at 10, 20 and 40 req/s; repeat 2 crashed at 40: 122 of 200 failed (61 %), 78 completed at
      -- 15.6 req/s; the others kept up, none failed. By hand: the max sustained is 20 req/s's mean
      -- achieved, 19.95; the most at any load is 40 req/s's, repeat 2 left out (fixf39: a crash
      -- does not pull the ceiling down), (40 + 40) / 2 = 40, where the mean of all three is
      -- (40 + 15 + 40) / 3 = 31.667: its file's rate, 78 / 5.2 s = 15 req/s (duration 78 / 15.6 = 5 s
      -- plus the 0.2 s least latency testlib's queue_latencies adds, its request_throughput
      -- made completed / duration as vLLM writes it; the drain-reduced rate is 78 / 5 = 15.6)
      local cut = reps(function(i)
        return { { 10, 10 }, { 20, 19.9 + 0.05 * (i - 1) }, i == 2 and { 40, 15.6, 122 } or { 40, 40 } }
      end)
      -- repeat 3 failed 60 of 200 (30 %) at its lowest load (10 req/s), the others none: 10 % by
      -- the mean, more than 5 %
      local low = reps(function(i) return { i == 3 and { 10, 10, 60 } or { 10, 10 }, { 20, 20 } } end)
      local out = t.tmpdir()
      tr.write_report(out, tr.load { { label = "cut", dirs = cut }, { label = "low", dirs = low } }, {})
      local md = t.read(out .. "/treatment_report.md")
      local row = md:match("\n(| cut |[^\n]*)")
      -- (vLLM's summary files record how many failed, not why: "crashed" only where the files
      -- say errors, fixb45)
      t.ok(row:find("19.95 req/s (up to 40.00 req/s, its most at any load: load point 3's mean leaving out repeat 2, "
        .. "which failed there, of a cause the files do not record (61 % of its requests failed; 31.67 req/s with "
        .. "it); then 20.33 % failed at load point 3", 1, true), row)
      local j = json.read(out .. "/treatments.json")
      local by = {}
      for _, x in ipairs(j.treatments) do by[x.label] = x end
      t.eq(by.low.max_sustained_why, "10 % of requests failed at the lowest load (repeat 3: 30 % failed, the others 0 "
        .. "and 0 %), more than 5 %, the error-rate limit used when no error-rate SLO is given, so no load was "
        .. "sustained within it; " .. CAUSE_UNKNOWN)
      -- a ceiling with no crash left out of it (llmd.loadpoints.ceiling's left_out): nothing added
      local limit = { pct = 5, text = "5 %" }
      t.eq(lp.ceiling_crash_text { cause = "failures", point = 3, achieved_rps = 31, ceiling_rps = 40, limit = limit,
        repeats_failed_pct = { 0, 61, 0 } }, "")
    end)
  end
end

-- Task fixd39 (audit of main d77aef0):
-- 1. a load point that could not be judged (too few requests, or a shortfall the scatter may
--    explain) below a point that clearly saturated made the whole max sustained throughput
--    N/A, and the run fell out of the ranking; now the clear saturation bounds the limit: the
--    figure is the last load known to be sustained, the limit up to the most achieved at any
--    load (the unjudged point widens that range);
-- 2. a max sustained point that answered 95-97.5 % of its sends is marked "mildly overloaded"
--    beside the figure (treatments.lua marked it only at the common load);
-- 3. comparison.json wrote an empty capacity noise.unclear (and an empty side of a test's
--    overloaded loads) as {} where the other side's is a list: empty lists are [].
-- Expected values are hand arithmetic on the hand-made load points (each said where used).
-- (Formerly test_fixd39.lua.)
do
  local json = require "llmd.json"
  local lp = require "llmd.loadpoints"
  local report = require "llmd.report"
  local decision = require "llmd.decision"

  -- rate-based stages {offered, achieved req/s, completed requests}
  local function run(list)
    local stages = {}
    for i, x in ipairs(list) do
      stages[i] = { rate = x[1], values = { throughput_req_s = x[2], requests_ok = x[3], error_rate_pct = 0,
        ttft_p90_ms = x[4] } }
    end
    return t.run_of(stages)
  end

  t.test("an unjudged load below a clear saturation widens the max sustained range, never N/A (audit39 #1)", function()
    -- point 3: 27 of 30 req/s (90 %, below 95 %) from 15 requests (fewer than 20: too few to
    -- judge); point 4: 28 of 40 req/s (70 %), 1680 requests: clearly saturated
    local pts = lp.points(run { { 10, 10, 600 }, { 20, 19.8, 1188 }, { 30, 27, 15 }, { 40, 28, 1680 } })
    local s = lp.saturation(pts)
    t.ok(not s.unknown, s.reason)
    -- by hand: the most achieved up to point 2 (the last judged sustained) is 19.8; the most at
    -- any load is 28 (point 4)
    t.eq({ s.point, s.max_sustained_rps, s.ceiling_rps, s.sustained_upto }, { 4, 19.8, 28, 2 })
    t.eq(s.unjudged.points, { 3 })
    t.contains(s.reason, "load point 3 (30 req/s offered) could not be judged (too few requests")
    t.contains(s.reason, "lies between 19.800 req/s, the most up to load point 2, the last known to be sustained, and "
      .. "28.000 req/s, the most at any load")
    -- beside the figure, in every output
    t.eq(lp.sustained_failure_notes(s), { "load point 3 (30 req/s offered) could not be judged, load point 4 saturated" })
    -- past saturation at an achieved rate above the most below the saturated point (27, point
    -- 3's), not in between (19.8 to 27: not known either way)
    t.eq({ lp.saturated_at(s, 25), lp.saturated_at(s, 27.5) }, { false, true })
    t.eq({ lp.point_saturated(s, pts[3]), lp.point_saturated(s, pts[4]) }, { false, true })
    -- the common load stops below the unjudged point (20 req/s offered), against a run that
    -- kept up at every load
    local other = lp.points(run { { 10, 10, 600 }, { 20, 20, 1200 }, { 30, 30, 1800 }, { 40, 40, 2400 } })
    local cl = lp.common_load({ { points = pts, saturation = s }, { points = other, saturation = lp.saturation(other) } })
    t.eq({ cl.load, cl.sustained }, { 20, true })
    -- with an SLO: the capacity is at least the last load known sustained, as before
    local pts2 = lp.points(run { { 10, 10, 600, 50 }, { 20, 19.8, 1188, 60 }, { 30, 27, 15, 70 }, { 40, 28, 1680, 90 } })
    local c = lp.capacity(pts2, decision.parse_slo("ttft_p90_ms=200"))
    t.eq({ c.kind, c.rps, c.ceiling_rps }, { "last_sustained", 19.8, 28 })
  end)

  t.test("several unjudged loads: all of them named; settled together by a higher load that kept up", function()
    local s = lp.saturation(lp.points(run { { 10, 10, 600 }, { 20, 18, 10 }, { 30, 27, 15 }, { 40, 28, 1680 } }))
    t.eq({ s.point, s.max_sustained_rps, s.sustained_upto }, { 4, 10, 1 })
    t.eq(s.unjudged.points, { 2, 3 })
    t.contains(lp.sustained_failure_notes(s)[1], "load points 2 and 3 could not be judged")
    -- kept up at 40 req/s (39.5, 98.75 %): points 2 and 3 kept up too, both said (main: point 2 only)
    s = lp.saturation(lp.points(run { { 10, 10, 600 }, { 20, 18, 10 }, { 30, 27, 15 }, { 40, 39.5, 2370 } }))
    t.ok(s.none and not s.unknown, s.reason)
    local settled = {}
    for _, r in ipairs(s.resolved) do settled[#settled + 1] = r.point end
    t.eq(settled, { 2, 3 })
    t.contains(s.reason, "load point 3 (30 req/s offered) could not be judged on its own")
  end)

  t.test("an unjudged lowest load: still unknown (no load is known to be sustained)", function()
    local s = lp.saturation(lp.points(run { { 10, 9, 10 }, { 20, 12, 720 } }))
    t.eq({ s.unknown, s.max_sustained_rps }, { true, nil })
    t.contains(s.reason, "too few requests to judge saturation")
  end)

  t.test("a max sustained point that answered 95-97.5 % of its sends is marked mildly overloaded (audit39 #2)",
    function()
    -- 9.65 of 10 req/s: 96.5 % (hand), kept up by the 95 % rule, below 97.5 %; then 15 of 20 (75 %)
    local s = lp.saturation(lp.points(run { { 10, 9.65, 579 }, { 20, 15, 900 } }))
    t.eq({ s.point, s.max_sustained_rps }, { 2, 9.65 })
    t.eq({ s.edge.point, s.edge.share_text }, { 1, "96.5" })
    t.eq(lp.sustained_failure_notes(s), { "mildly overloaded there: answered 96.5 % of its sends at load point 1 (10 "
      .. "req/s offered), kept up by the 95 % rule but below 97.5 %, at the edge of its limit" })
    -- 9.76 of 10 (97.6 %): not marked; a run that never saturated, its highest load at 19.3 of
    -- 20 (96.5 %): marked
    t.eq(lp.saturation(lp.points(run { { 10, 9.76, 586 }, { 20, 15, 900 } })).edge, nil)
    s = lp.saturation(lp.points(run { { 10, 10, 600 }, { 20, 19.3, 1158 } }))
    t.ok(s.none, s.reason)
    t.eq({ s.edge.point, s.edge.share_text }, { 2, "96.5" })
  end)

  t.test("capacity noise: no unclear point encodes as [] in comparison.json, never {} (audit39 #3)", function()
    -- TTFT p90 50, 100 and 300 ms at 10, 20, 30 req/s, each exactly so (1000 requests at that
    -- value: t.with_samples), against 200 ms: no point's interval straddles the SLO
    local r = t.with_samples(run { { 10, 10, 600, 50 }, { 20, 20, 1200, 100 }, { 30, 30, 1800, 300 } })
    local pts = lp.points(r)
    local nz = lp.capacity_noise(pts, decision.parse_slo("ttft_p90_ms=200"))
    t.ok(nz and not nz.unknown, nz and nz.unknown)
    t.eq(json.encode(nz.unclear), "[]")
    local plain = report.plain { capacity = { b = { noise = report.noise_of(nz) } } }
    t.contains(json.encode(plain), '"unclear":[]')
  end)

  -- The audit's runs: tests/data/queue_sim.py, 20 slots (9.52 req/s at most), 2 to 12 req/s,
  -- 3 repeats, seeds 11 (A) and 12 (B)
  local function sim(d, name, seed, extra)
    local proc = require "llmd.proc"
    local args = { t.PY, t.root() .. "/tests/data/queue_sim.py", d .. "/" .. name, "--rates", "2,4,6,8,10,12",
      "--slots", "20", "--seed", tostring(seed) }
    for _, a in ipairs(extra or {}) do args[#args + 1] = a end
    local r = proc.run(args)
    t.eq(r.code, 0, r.stderr)
    return d .. "/" .. name
  end

  t.test("treatments.lua: B, whose 10 req/s could not be judged below a clear saturation at 12, is ranked", function()
    if not t.have_numpy() then return end
    local proc = require "llmd.proc"
    local d = t.tmpdir()
    local a, b = sim(d, "a", 11, { "--repeat", "3" }), sim(d, "b", 12, { "--repeat", "3" })
    local out = d .. "/tr"
    local r = proc.run { t.root() .. "/llmdlua", t.root() .. "/lua/treatments.lua", "--run", "A=" .. a, "--run",
      "B=" .. b, "--out", out, "--quiet" }
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local j = json.read(out .. "/treatments.json")
    local md = t.read(out .. "/treatment_report.md")
    local B = j.treatments[2]
    t.eq(B.label, "B")
    -- its figure: the most its load points 1-4 achieved (the Load points table's 8 req/s row:
    -- the throughputs there rise with the load), not N/A
    local at8 = md:match("### B.-| 8 req/s | ([%d.]+) |")
    t.ok(at8 and B.max_sustained_rps, md)
    -- (the load table's throughput at compare.lua's 2 decimals, metrics.RATE_DECIMALS)
    t.eq(("%.2f"):format(B.max_sustained_rps), at8)
    t.eq(B.saturation.point, 6)
    t.eq(B.saturation.unjudged.points, { 5 })
    -- the limits overlap (B up to 9.559 at 12 req/s): neither is placed above the other
    t.eq({ j.ranking[1].rank_text, j.ranking[2].rank_text }, { "1=", "1=" })
    t.lacks(md, "B: left out")
    -- A's figure is read at 10 req/s, where it answered 95 to 97.5 % of its sends: marked there
    local A = j.treatments[1]
    t.eq(A.saturation.max_sustained_mild.point, 5)
    t.ok(A.saturation.max_sustained_mild.share_pct >= 95 and A.saturation.max_sustained_mild.share_pct < 97.5,
      A.saturation.max_sustained_mild.share_text)
    t.contains(md, "mildly overloaded there: answered " .. A.saturation.max_sustained_mild.share_text
      .. " % of its sends at load point 5 (10 req/s offered)")
  end)

  t.test("comparison.json: a side with no overloaded load in a test's strata is [], never {} (audit39 #3)", function()
    -- 20 slots saturate at 10 and 12 req/s (9.52 req/s at most), 30 slots (14.3) never do
    if not t.have_numpy() then return end
    local proc = require "llmd.proc"
    local d = t.tmpdir()
    local a, b = sim(d, "a", 7), sim(d, "b", 8, { "--slots", "30" })
    local args = { t.root() .. "/llmdlua", t.root() .. "/lua/compare.lua", "--a", a, "--b", b, "--parent", d .. "/c",
      "--quiet" }
    local r = proc.run(args)
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local ws = r.stdout:match("Workspace: ([^\n]+)")
    local cj = json.read(ws .. "/comparison.json")
    local seen = 0
    for _, row in ipairs(cj.perf) do
      local ov = type(row.sig) == "table" and row.sig.overloaded
      if ov then
        seen = seen + 1
        t.ok(json.is_array(ov.a) and json.is_array(ov.b), row.key)
        t.eq(#ov.b, 0, row.key)
      end
    end
    t.ok(seen > 0, "no test left out an overloaded load")
  end)

  t.test("treatments per GPU: two lower bounds and a pair not shown to differ, in the totals' words (audit39 #4)",
    function()
    if not t.have_numpy() then return end
    local proc = require "llmd.proc"
    local d = t.tmpdir()
    -- 24 slots on 2 GPUs (11.4 req/s at most) and 16 on 1 (7.6), TTFT p90 <= 100 s: neither run
    -- fails the SLO before saturating, so both capacities are lower bounds (the last load before
    -- saturation); main said "k16 and k24 per GPU: not known", as if data were missing
    local k24, k16 = sim(d, "k24", 4, { "--slots", "24" }), sim(d, "k16", 5, { "--slots", "16" })
    local out = d .. "/tr"
    local r = proc.run { t.root() .. "/llmdlua", t.root() .. "/lua/treatments.lua", "--run", "k24=" .. k24, "--run",
      "k16=" .. k16, "--gpus", "k24=2,k16=1", "--slo", "ttft_p90_ms=100000", "--out", out, "--quiet" }
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local md = t.read(out .. "/treatment_report.md")
    local j = json.read(out .. "/treatments.json")
    local cap = {}
    for _, x in ipairs(j.treatments) do cap[x.label] = x.capacity.rps end
    -- the per-GPU figures: the totals over 1 and 2 GPUs (hand)
    -- (fixc51: in the totals' words, untested, never "not comparable", and treatments.json says so too)
    t.contains(md, ("k16 and k24 per GPU: untested, and either may be higher: both only lower bounds, ≥ %.2f req/s "
      .. "and ≥ %.2f req/s per GPU, which leave room for either order"):format(cap.k16, cap.k24 / 2))
    t.lacks(md, "per GPU: not comparable")
    t.eq(j.cost.per_gpu[1].vs_next, "untested")
    t.lacks(md, "per GPU: not known")
    -- the same server twice (3 repeats each, seeds 11 and 12) on 2 GPUs each, and k24 on 1: A
    -- and B per GPU are the totals halved, so the gap the per-GPU spans allow is the totals'
    -- (a ratio of two figures each halved); main said "not shown to differ" with no gap
    local a, b = sim(d, "a", 11, { "--repeat", "3" }), sim(d, "b", 12, { "--repeat", "3" })
    out = d .. "/tr2"
    r = proc.run { t.root() .. "/llmdlua", t.root() .. "/lua/treatments.lua", "--run", "A=" .. a, "--run", "B=" .. b,
      "--run", "k24=" .. k24, "--gpus", "A=2,B=2,k24=1", "--slo", "ttft_p90_ms=500", "--out", out, "--quiet" }
    t.eq(r.code, 0, r.stdout .. r.stderr)
    md = t.read(out .. "/treatment_report.md")
    local lo, hi = md:match("the gap could be anywhere from (%S+ %%) to (%S+ %%) %(A vs B%)")
    t.ok(lo, md)
    t.contains(md, ("A and B per GPU: not shown to differ (A %s to %s vs B per GPU)"):format(lo, hi))
  end)

  t.test("compare.lua: a run bounded by a saturation above its unjudged load is ordered by the measured loads", function()
    -- x: 10, 20, 22 req/s at 10, 20, 30 offered: saturated at 30 (22 < 28.5), 20 sustained, up
    -- to 22. y: 10, then 15 from 10 requests (too few to judge), then 16 of 30 (1000 requests,
    -- clearly saturated): y's limit lies between 10 and 16, below x's 20 whatever lies between the
    -- loads. By hand, y against x from 10 / 22 - 1 = -54.5 % to 16 / 20 - 1 = -20.0 %. On main
    -- y's max sustained was N/A and nothing was said of the order.
    local function r(achieved, few)
      local stages = {}
      for i, v in ipairs(achieved) do
        stages[i] = { rate = 10 * i, values = { throughput_req_s = v, ttft_p90_ms = 50, error_rate_pct = 0,
          requests_ok = few[i] } }
      end
      return t.run_of(stages)
    end
    local function sd(label, run_) return { label = label, state = { label = label, stack = {} }, run = run_, kv = {} } end
    local m = report.build { a = sd("x", r({ 10, 20, 22 }, { 600, 1200, 1320 })),
      b = sd("y", r({ 10, 15, 16 }, { 600, 10, 1000 })), slo = {}, generated = 0 }
    t.eq(m.verdict.kind, "ordered")
    -- (each end with its two figures: 10 / 22 - 1 and 16 / 20 - 1)
    t.contains(m.verdict.text, "x sustains more load (max sustained throughput; no SLO given): 20.00 req/s against "
      .. "10.00 req/s for y (y -54.5 % to -20.0 % vs x, from y's 10.00 against x's 22.00 req/s to y's 16.00 against "
      .. "x's 20.00 req/s: the ends of the two runs' ranges")
  end)
end

-- Session 39 (fixf39): leftovers of this session's helpers.
-- 1. A crashed repeat does not pull a run's ceiling (the most it achieved at any load) down:
--    at a load where one crashed, the ceiling reads the other repeats' mean
--    (llmd.loadpoints.ceiling), so that no run is ordered above another "beyond its ceiling"
--    only because a crash lowered it.
-- 2. treatments: a max sustained place whose limits' ranges lie apart, not shown after Holm,
--    never reads "no clear difference vs".
-- 3. (compare.lua's Summary wording: test_capacity_toks, test_decision.)
-- 4. The common load's mild-overload mark is llmd.loadpoints.mild_overload's rule.
-- 5. (The latency/throughput chart's log tics: test_charts.)
-- Expected values by hand, as said beside each.
-- (Formerly test_fixf39.lua.)
do
  local json = require "llmd.json"

  -- (testlib.exp7_repeats) exp-7's vLLM summary (200 prompts) at each offered rate and achieved throughput,
  -- `failed` of its requests failed (test_fixb39's builder, its tokens scaled to the completed requests)
  -- three repeats; points(i): repeat i's {offered, achieved, failed}
  local function reps(points) return t.exp7_repeats(points, { completed_tokens = true }) end

  t.test("a crashed repeat is left out of the ceiling: no order beyond a ceiling a crash lowered", function()
    local tr = require "llmd.treatments"
    -- cut: at 10, 20 and 40 req/s; repeat 2 crashed at 40 (122 of 200 failed, 61 %; 78 completed
    -- at 15.6 req/s), the others kept up. By hand: max sustained 19.95 (20 req/s's mean of 19.9,
    -- 19.95, 20.0); ceiling 40 req/s's mean without repeat 2, (40 + 40) / 2 = 40, where all
    -- three's, (40 + 15 + 40) / 3 = 31.667 (the crashed file's rate 78 / 5.2 s = 15 req/s, its
    -- completed / duration, as test_fixb39 says), would put it below other's 35
    local cut = reps(function(i)
      return { { 10, 10 }, { 20, 19.9 + 0.05 * (i - 1) }, i == 2 and { 40, 15.6, 122 } or { 40, 40 } }
    end)
    -- other: kept up at 10, 20 and 35 (34.9, 35.0, 35.1), saturated at 50 (40 < 0.95 * 50): max
    -- sustained 35.0, ceiling 40
    local other = reps(function(i)
      return { { 10, 10 }, { 20, 20 }, { 35, 34.9 + 0.1 * (i - 1) }, { 50, 40 } }
    end)
    local out = t.tmpdir()
    tr.write_report(out, tr.load { { label = "cut", dirs = cut }, { label = "other", dirs = other } }, {})
    local md = t.read(out .. "/treatment_report.md")
    local j = json.read(out .. "/treatments.json")
    -- the ceiling said as 40, the failed repeat named beside it (of a cause vLLM's summary files
    -- do not record: never "crashed" without errors in the files, fixb45)
    t.ok(md:find("| cut | vllm-benchmark | 3 | 3 | 19.95 req/s (up to 40.00 req/s, its most at any load: load point "
      .. "3's mean leaving out repeat 2, which failed there, of a cause the files do not record (61 % of its requests "
      .. "failed; 31.67 req/s with it); then 20.33 % failed at load point 3", 1, true), md)
    -- other's 35 lies below cut's ceiling, 40: the load steps cannot order their limits, so
    -- both share the first place (main put other above cut, as cut's crash-lowered ceiling,
    -- 31.667 (31.867 before its file's rate was made completed / duration), lay below 35)
    local by = {}
    for _, r in ipairs(j.ranking) do by[r.label] = r end
    t.eq({ by.other.rank_text, by.cut.rank_text }, { "1=", "1=" })
    t.eq(by.other.vs_next, "not shown to differ")
    t.eq(by.other.steps_cannot_order, true)
    t.ok(by.other.vs_next_text:find("cut achieved up to 40.00 req/s", 1, true), by.other.vs_next_text)
    -- (other's 35 req/s offered against cut's 20: two offered loads, no repeats' test, s51)
    t.contains(by.other.vs_next_text, "the max sustained points are two offered loads (other at 35 req/s offered, "
      .. "cut at 20 req/s offered)")
    t.ok(not md:find("31.67 req/s at any load", 1, true), md)
  end)

  -- synthetic load points as llmd.loadpoints.points gives them: each {offered, {repeats' rates},
  -- {repeats' failed %}, {repeats' output tok/s}}
  local function points(list)
    local out = {}
    for i, x in ipairs(list) do
      local function mean(xs)
        local s = 0
        for _, v in ipairs(xs) do s = s + v end
        return s / #xs
      end
      out[i] = { index = i, load_type = "rate", offered = x[1], repeats = #x[2], achieved_rps = mean(x[2]),
        repeat_rps = x[2], output_tps = mean(x[4]), error_rate_pct = mean(x[3]),
        values = { error_rate_pct = mean(x[3]), throughput_req_s = mean(x[2]), throughput_tok_s = mean(x[4]),
          ttft_p90_ms = 100 * i },
        na = {}, ci = { error_rate_pct = { samples = x[3] }, throughput_tok_s = { samples = x[4] } } }
    end
    return out
  end

  t.test("llmd.loadpoints.ceiling: a crashed repeat never pulls the ceiling down; the capacity's ceiling too", function()
    local lp = require "llmd.loadpoints"
    -- 30 req/s: repeat 3 crashed, every request failed (100 %, over the default 5 %, the others
    -- 0 %), 0 req/s. By hand: the mean of all three, (30 + 30 + 0) / 3 = 20, no more than 20
    -- req/s's; the others', (30 + 30) / 2 = 30, the ceiling; tok/s likewise (3000 + 3000) / 2 =
    -- 3000, not (3000 + 3000 + 0) / 3 = 2000
    local pts = points {
      { 10, { 10, 10, 10 }, { 0, 0, 0 }, { 1000, 1000, 1000 } },
      { 20, { 20, 20, 20 }, { 0, 0, 0 }, { 2000, 2000, 2000 } },
      { 30, { 30, 30, 0 }, { 0, 0, 100 }, { 3000, 3000, 0 } },
    }
    -- (its files name every failure a server error: a crash, llmd.decision.failures_kind)
    pts[3].failure_kinds = { timeout = 0, error = 30 * 60, unknown = 0 }
    local rps, tps, left = lp.ceiling(pts)
    t.near(rps, 30, 1e-12)
    t.near(tps, 3000, 1e-12)
    t.eq({ left.point, left.offered, left.crashed[1].n, left.crashed[1].pct }, { 3, 30, 3, 100 })
    t.near(left.mean_rps, 20, 1e-12)
    -- a crash is a repeat over the error-rate limit where another stayed within it: where every
    -- repeat failed alike (none within), none is left out, and the ceiling is the mean, 20
    local alike = points { { 10, { 10, 10 }, { 0, 0 }, { 1000, 1000 } }, { 20, { 20, 20 }, { 0, 0 }, { 2000, 2000 } },
      { 30, { 15, 15 }, { 50, 50 }, { 1500, 1500 } } }
    local r2, t2, l2 = lp.ceiling(alike)
    t.near(r2, 20, 1e-12)
    t.near(t2, 2000, 1e-12)
    t.eq(l2, nil)
    -- the capacity (TTFT p90 <= 1000 ms, met everywhere; 30 req/s fails the default error
    -- limit, with a mean rate, 20, no higher than 20 req/s's): at least 20, up to its ceiling,
    -- 30 req/s and 3000 tok/s (the crash left out), not 20 and 2000
    local c = lp.capacity(pts, { { key = "ttft_p90_ms", max = 1000 } })
    t.eq(c.kind, "last_passing")
    t.near(c.rps, 20, 1e-12)
    t.near(c.ceiling_rps, 30, 1e-12)
    t.near(c.ceiling_tps, 3000, 1e-12)
    -- and the max sustained throughput's ceiling: 20 (before the failures point), up to 30
    local sat = lp.saturation(pts)
    t.near(sat.max_sustained_rps, 20, 1e-12)
    t.near(sat.ceiling_rps, 30, 1e-12)
    t.eq(lp.ceiling_crash_text(sat), ": load point 3's mean leaving out repeat 3, which crashed there (100 % of its "
      .. "requests failed; 20 with it)")
    -- "crashed" only where the files say errors (fixb45; main said it of every kind): none
    -- recorded is a cause unknown (below). Every failure a timeout (fixb46): no crash but the
    -- server's overload at that load, a measure of it like the other repeats, so it counts
    -- toward the ceiling: the mean of all three, (30 + 30 + 0) / 3 = 20 req/s and (3000 + 3000
    -- + 0) / 3 = 2000 tok/s (by hand), nothing left out (main: 30, repeat 3 "timed out there")
    pts[3].failure_kinds = { timeout = 30 * 60, error = 0, unknown = 0 }
    local rt, tt, lt = lp.ceiling(pts)
    t.near(rt, 20, 1e-12)
    t.near(tt, 2000, 1e-12)
    t.eq(lt, nil)
    t.eq(lp.ceiling_crash_text { ceiling_left_out = lt }, "")
    -- each repeat by its own kinds (repeat_failure_kinds, in repeat order): repeat 3's 1800
    -- failures errors, the load's other failures timeouts elsewhere: a crash, left out (30)
    pts[3].repeat_failure_kinds = { { timeout = 0, error = 0, unknown = 0 }, { timeout = 0, error = 0, unknown = 0 },
      { timeout = 0, error = 30 * 60, unknown = 0 } }
    t.near((lp.ceiling(pts)), 30, 1e-12)
    -- a repeat whose timeouts are within the limit (1 % of its requests, of 100 % failed): a crash
    pts[3].repeat_failure_kinds[3] = { timeout = 18, error = 30 * 60 - 18, unknown = 0 }
    t.near((lp.ceiling(pts)), 30, 1e-12)
    pts[3].repeat_failure_kinds = nil
    pts[3].failure_kinds = nil
    t.eq(lp.ceiling_crash_text { ceiling_left_out = select(3, lp.ceiling(pts)) }, ": load point 3's mean leaving out "
      .. "repeat 3, which failed there, of a cause the files do not record (100 % of its requests failed; 20 with it)")
  end)

  -- 2. Max sustained throughput, tested but not shown to differ after the Holm adjustment,
  --    whose limits' ranges lie apart: never "no clear difference" (which reads as sameness
  --    beside a gap one side of 0), nor "either may be higher" (the ranges leave one order).
  do
    local tr = require "llmd.treatments"
    -- a hand-made treatment: {offered req/s, {achieved req/s of each repeat}} per load point
    local function treat(label, pts)
      local stages = {}
      for _, p in ipairs(pts) do
        for _, a in ipairs(p[2]) do
          stages[#stages + 1] = { rate = p[1], values = { throughput_req_s = a, error_rate_pct = 0 } }
        end
      end
      local run = t.run_of(stages)
      return { label = label, run = run, runs = { run }, dirs = { label }, status = "ok", reasons = {} }
    end
    local LOW = { { 10, { 9.9, 10, 10.1 } }, { 20, { 19.9, 20, 20.1 } } }
    local function with_low(pts)
      local out = { LOW[1], LOW[2] }
      for _, p in ipairs(pts) do out[#out + 1] = p end
      return out
    end

    t.test("max sustained limits at three offered loads: no repeats' test, the loads order them, no family", function()
      -- a sustains 40 (39.5, 40, 40.5) at 40 offered, x 34.8 (33.068, 34.8, 36.532) at 36.6
      -- offered (50 offered saturated at 36.2), n 30 (29.99, 30, 30.01) at 30 offered (40
      -- offered saturated at 29.2). Until s51 the repeats of each pair were tested (Welch on the
      -- logs, x vs n p = 0.0359345, a vs x p = 0.0332555, Holm over 2: 0.066511, "no clear
      -- difference" beside ranges apart); but at two offered loads a kept-up point's throughput
      -- is its sending rate, and the test compares the loads, not the treatments. Now no pair is
      -- tested, the family is empty, and the measured loads order them (by hand: x never
      -- achieved more than 36.2 req/s at any load, below a's 40, by 9.98 % of their mean; n
      -- never more than 30, below x's 34.8, by 14.8 %: both beyond 2 %; no request counts, so no
      -- noise of the rates to weigh)
      local m = tr.model { treat("a", with_low { { 40, { 39.5, 40, 40.5 } }, { 60, { 45, 45.5, 46 } } }),
        treat("x", with_low { { 36.6, { 33.068, 34.8, 36.532 } }, { 50, { 36, 36.2, 36.4 } } }),
        treat("n", with_low { { 30, { 29.99, 30, 30.01 } }, { 40, { 29, 29.2, 29.4 } } }) }
      t.eq(m.family.size, 0)
      local r = m.ranking[2]
      t.eq({ r.label, r.vs_next, r.p_value, r.p_adjusted, r.order_certain }, { "x", "untested", nil, nil, true })
      t.eq(r.vs_next_text, "untested against n: the max sustained points are two offered loads (x at 36.6 req/s "
        .. "offered, n at 30 req/s offered), where a kept-up point's throughput is its sending rate: their repeats' test "
        .. "would compare the loads, not the treatments; the measured loads order them: this one sustained 34.80 req/s, "
        .. "n never achieved more than 30.00 req/s at any load")
      t.eq({ m.ranking[1].label, m.ranking[1].p_value, m.ranking[1].order_certain }, { "a", nil, true })
      t.eq({ m.ranking[1].rank_text, r.rank_text, m.ranking[3].rank_text }, { "1", "2", "3" })
    end)
  end


  -- 4. The mild-overload mark at the common load and at a max sustained point are one rule
  --    (llmd.loadpoints.mild_overload): moving its threshold moves both (main's treatments kept
  --    its own copy of the check and of the threshold).
  t.test("the common load's mild-overload mark follows llmd.loadpoints.mild_overload, as the max sustained one", function()
    local tr = require "llmd.treatments"
    local lp = require "llmd.loadpoints"
    -- x keeps up everywhere; y answers 19.6 of 20 req/s (98 %, by hand) and saturates at 30
    -- (20 of 30): the common load is 20 req/s offered, y's max sustained point too. 98 % is
    -- above 97.5 %: unmarked; with the rule's threshold at 99 %, marked at both
    local x = t.treatment("x", { { 10, 10, 50 }, { 20, 20, 55 }, { 30, 30, 60 } })
    local y = t.treatment("y", { { 10, 10, 50 }, { 20, 19.6, 60 }, { 30, 20, 2000 } })
    local m = tr.model({ x, y }, {})
    t.eq(#m.mild_at_common, 0)
    local keep = lp.MILD_OVERLOAD_SHARE
    lp.MILD_OVERLOAD_SHARE = 0.99
    local ok, err = pcall(function()
      m = tr.model({ t.treatment("x", { { 10, 10, 50 }, { 20, 20, 55 }, { 30, 30, 60 } }),
        t.treatment("y", { { 10, 10, 50 }, { 20, 19.6, 60 }, { 30, 20, 2000 } }) }, {})
    end)
    lp.MILD_OVERLOAD_SHARE = keep
    assert(ok, err)
    t.eq(#m.mild_at_common, 1)
    t.eq({ m.mild_at_common[1].label, m.mild_at_common[1].share_text }, { "y", "98.0" })
    local ys
    for _, z in ipairs(m.treatments) do if z.label == "y" then ys = z end end
    t.eq(ys.saturation.edge and ys.saturation.edge.share_text, "98.0")
  end)
end

-- Session 31's leftovers in compare.lua's report (task cmpfix3): the max sustained order said
-- alike in every output, and max sustained of a run of two workloads.
-- Expected values are by hand or python3 (numpy) as each test says.
-- (Formerly test_cmpfix3.lua, then test_compare_fixes.lua.)
do
  local json = require "llmd.json"
  local ROOT = t.here() .. "/../.."
  local EXP7 = t.fixtures() .. "/vllm-benchmark/exp-7_H100"
  local VLLM = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
  local CHUNKED = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"
  local csv_fields = t.csv_row

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
    local row = csv_fields(csv, "max_sustained_rps")
    -- (it said "untested" with only the two figures in its note)
    t.eq(row[7], "untested")
    t.ok(row[11]:find("; evidence: " .. want, 1, true), row[11])
    -- the capacity row likewise: the order the Headline gives it (127.76 sustained within the
    -- SLO against vllm's 104.24 at most, drain-reduced rates)
    local cap = t.headline_row(js, "Capacity at SLO (TTFT p90 ≤ 200.0 ms and Error rate ≤ 5 % by default)").evidence
    t.ok(cap:find("the order holds whatever the bound (one run per load, no interval): chunked sustained 127.76 req/s, vllm never achieved more than "
      .. "104.24 req/s at any load", 1, true), cap)
    t.ok(csv_fields(csv, "capacity_at_slo_rps")[11]:find("; evidence: " .. cap, 1, true), "capacity's CSV note")
    -- the Headline's output tok/s capacity has its CSV row too (it had none; new-user trial,
    -- session 32): vllm's bound is its tok/s at the last load before saturation, 5747.232
    -- (stage 3's successes.throughput.output_tokens_per_sec x its drain-reduced rate / its
    -- requests_per_sec), chunked's the TTFT p90 = 200 ms crossing between stages 3 and 4
    -- (37.245 and 226.506 ms) carried onto their output tok/s (7978.361 and 10575.043, the
    -- same way): 10211.382 (python3 on the stage files); B - A from 7978.361 - 6503.427 (vllm's
    -- most) = +1,474.9 (+22.7 %) to 10575.043 - 5747.232 = +4,827.8 (+84.0 %); its evidence the
    -- Headline's tok/s row's
    local tps = csv_fields(csv, "capacity_at_slo_output_tps")
    t.eq(tps[2], "tok/s")
    t.near(tonumber(tps[3]), 5747.232, 1e-3)
    t.near(tonumber(tps[4]), 10211.382, 1e-3)
    t.eq(tps[7], "untested")
    local ev = t.headline_row(js, "Capacity at SLO, output tok/s").evidence
    t.ok(ev:find("^untested, but the measured loads order them %(one run per load, no interval%): in output tok/s too"), ev)
    -- (why delta and change_pct are empty beside those ends, after them: task fixa49 #4)
    t.ok(tps[11]:find("vllm: ≥ 5,747.2 tok/s; chunked: about 10,211.4 tok/s; B - A: +1,474.9 to +4,827.8 tok/s, "
      .. "+22.7 % to +84.0 %; delta and change_pct are empty: no single B - A is known, the measured loads allow any "
      .. "from delta_lo to delta_hi (effect_lo to effect_hi in % of A), a range as the Headline's Delta and Change give "
      .. "it, not a point estimate; evidence: " .. ev, 1, true), tps[11])
  end)

  t.test("a run of two workloads has no max sustained throughput: N/A with why, in every output", function()
    -- vllm-2replicas' files (3.6 req/s, 1599800 / 200 = 7999.0 input tokens a request) beside
    -- vllm-3replicas' (5.5 req/s, 2499750 / 250 = 9999.0): python3 on the files, 25 % apart (>
    -- 5 %): two workloads in one folder (newuser31 (test_ingest.lua)'s nu31-8). It read "≥ 5.35 req/s (never
    -- saturated)", the 5.5 req/s workload's rate as the run's limit
    local dir = t.two_workload_folder()
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
      local csv = csv_fields(t.read(w .. "/comparison.csv"), "max_sustained_rps")
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
end
