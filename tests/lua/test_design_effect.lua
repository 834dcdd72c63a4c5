-- Tests on requests that depend on each other: the design effect in send order (latencies,
-- failures, ITL token gaps, NTPOT), the stratified tests by load point, and A/A pairs of
-- simulated servers (tests/data/queue_sim.py, ipsynth) that must name no winner where an A/B
-- pair is still found. Expected values: numpy / the tests/data reference scripts, as each
-- section says.
local t = require "testlib"

-- err37: the error rate's test took every request for an independent draw. Near saturation
-- failures come in bursts (a client timeout fails every request behind a long queue), and
-- two runs of one server got a false error-rate winner: tests/data/queue_sim.py with
-- --timeout 3 (8 slots, 0.1 s + 99 x 0.02 s a request, 2, 3, 3.5 and 3.7 req/s for 300 s,
-- capacity about 3.8/s), 20 A/A pairs (seeds 2k+1, 2k+2): 8 named a winner at Holm-adjusted
-- p < 0.05 (seeds 15/16: p = 5.7e-09), none now. The test now inflates each load point's
-- variance by the failure indicator's design effect in send order, and leaves out a point
-- with fewer than 50 independent requests' worth, as the latency rows do.
--
-- Expected values: tests/data/err_ref.py (numpy alone, on the generated files: Geyer's
-- design effect of the 0/1 indicator's mid-ranks, the Cochran-Mantel-Haenszel z with the
-- variance times d), or python3 by hand as said at each.
-- (Formerly test_err37.lua.)
do
  local proc = require "llmd.proc"
  local decision = require "llmd.decision"
  local runmodel = require "llmd.runmodel"
  local json = require "llmd.json"

  local ROOT, LLMDLUA = t.root()
  local have_numpy = t.have_numpy()

  t.test("CMH with the design effect: the counts' variance times d, by hand", function()
    -- python3: z = sum(a - n1 m / N) / sqrt(sum d n1 n2 m (N - m) / (N^2 (N - 1)))
    --   strata (10 of 1050, 15 of 1050, d 4), (63 of 1110, 25 of 1110, d 9): 1.1254184067930044
    local r = decision.dependent_count_test { { 10, 1050, 15, 1050, 4 }, { 63, 1110, 25, 1110, 9 } }
    t.near(r.z, 1.1254184067930044, 1e-12)
    t.eq(r.test, "cmh")
    t.eq(r.deff, 9)
    -- one load point (decision.count_test with the design effect): 63 of 1110 against 25 of
    -- 1110, d 6.73: z = 1.5930146852249782, p = erfc(z / sqrt 2) = 0.11115689667813027 (Fisher's
    -- exact test alone would say p < 1e-4)
    r = decision.count_test({ requests_failed = 63, requests_ok = 1047 }, { requests_failed = 25, requests_ok = 1085 }, 6.73)
    t.near(r.z, 1.5930146852249782, 1e-12)
    t.near(r.p, 0.11115689667813027, 1e-9)
    -- d 1: Fisher's exact test, as before
    r = decision.count_test({ requests_failed = 63, requests_ok = 1047 }, { requests_failed = 25, requests_ok = 1085 }, 1)
    t.eq(r.test, "fisher")
    t.ok(r.p < 1e-4, r.p)
    -- 1110 requests at design effect 30 carry 37 independent ones: no test, and why
    local none, why = decision.count_test({ requests_failed = 63, requests_ok = 1047 },
      { requests_failed = 25, requests_ok = 1085 }, 30)
    t.eq(none, nil)
    t.ok(why:find("too dependent to test", 1, true), why)
    -- each side's own design effect given (fixb46: the one-point path named no run, as
    -- dependence_reason does elsewhere): A's 1110 at 30 carry 1110 / 30 = 37 independent
    -- requests, fewer than 50; B's 1110 at 1.2 carry 925 (hand arithmetic): A's named, not B's
    none, why = decision.count_test({ requests_failed = 63, requests_ok = 1047 },
      { requests_failed = 25, requests_ok = 1085 }, 30, 30, 1.2)
    t.eq(none, nil)
    t.eq(why, decision.dependence_reason(1110, 1110, 30, 30, 1.2))
    t.ok(why:find("A's 1110 requests", 1, true), why)
    t.lacks(why, "B's")
  end)

  t.test("the failure indicator's design effect in send order", function()
    -- 100 requests in 10 blocks of 10 alike (0, 1, 0, ...), added out of order: sorted by
    -- start. python3 (err_ref.py's deff): 5.3; three lone failures among 100: 1
    local acc = runmodel.accumulator()
    for i = 100, 1, -1 do
      local failed = math.floor((i - 1) / 10) % 2 == 1
      if failed then acc.add { ok = false, start = i } else acc.add_done(i, i + 1, 1, 0.1, 0.01, 9) end
    end
    t.near(runmodel.outcome_design_effect(acc.seq.outcome), 5.3, 1e-9)
    t.near(runmodel.sample_design_effects(acc.seq).failed, 5.3, 1e-9)
    acc = runmodel.accumulator()
    for i = 1, 100 do
      if i == 3 or i == 17 or i == 50 then acc.add { ok = false, start = i } else acc.add_done(i, i + 1, 1, 0.1, 0.01, 9) end
    end
    t.eq(runmodel.outcome_design_effect(acc.seq.outcome), 1)
  end)

  if not have_numpy then
    t.test("A/A and A/B pairs with bursts of failures (skipped: no numpy for queue_sim.py)", function() end)
  else

    local function sim(name, seed, extra)
      local dir = t.tmpdir() .. "/" .. name
      t.data_py("queue_sim.py", dir, "--rates", "2,3,3.5,3.7", "--slots", "8", "--ttft0", "0.1", "--tpot", "0.02",
        "--outtok", "100", "--dur", "300", "--seed", seed, extra)
      return dir
    end

    -- compare.lua on a and b: its error-rate row and workspace
    local function compare(a, b)
      local o = t.compare_ab(a, b)
      return t.perf_row(o.json, "error_rate_pct"), o.ws
    end

    local function ref(a, b)
      return t.data_json("err_ref.py", a, b)
    end

    local function stratified(a, b)
      return decision.stratified_count_test(t.extract_pair(a, b))
    end

    t.test("A/A with a client timeout (failures in bursts near saturation): no error-rate winner", function()
      -- seeds 15 and 16: before, "A better" at p = 5.7e-09 (Fisher stratified by load point)
      local a, b = sim("aa15", 15, { "--timeout", "3" }), sim("aa16", 16, { "--timeout", "3" })
      local want = ref(a, b)
      local r = stratified(a, b)
      t.eq(r.test, "cmh")
      t.near(r.z, want.z, 1e-9)
      t.eq(r.strata, want.strata)
      local row, ws = compare(a, b)
      t.eq(row.verdict, "no clear difference", row.evidence)
      t.ok(row.evidence:find("design effect", 1, true), row.evidence)
      -- analyze.lua on the saved workspace (run models without samples) keeps the design
      -- effects, so the same test and verdict, not Fisher's again
      local copy = t.tmpdir() .. "/ws15"
      t.copy_tree(ws, copy)
      local r2 = proc.run { LLMDLUA, ROOT .. "/lua/analyze.lua", copy, "--quiet" }
      t.eq(r2.code, 0, r2.stdout .. r2.stderr)
      for _, x in ipairs(json.decode(t.read(copy .. "/comparison.json")).perf) do
        if x.key == "error_rate_pct" then
          t.eq(x.verdict, row.verdict)
          t.eq(x.evidence, row.evidence)
        end
      end
    end)

    t.test("A/A past capacity with client timeouts (audit43): the overloaded load is left out, no error-rate winner",
      function()
        -- queue_sim.py's 20 slots at 2.1 s a request serve 9.52 req/s; at 10 req/s with a 1.5 s
        -- client timeout the queue fails a varying number in bursts (2 to 49 of 600 over 26
        -- seeds, audit43). Seeds 901 and 902: on main "s902 better", p = 0.00861, Holm-adjusted
        -- 0.0431, from 29 against 2 failed at 10 req/s. python3 (err_ref.py's points and deff on
        -- the files): at 2, 4, 6, 8 req/s no request failed in either run (120 + 240 + 360 + 480
        -- = 1200 requests each); at 10 req/s A failed 29 of 600, in bursts (design effect >= 2)
        local function big(name, seed)
          local dir = t.tmpdir() .. "/" .. name
          t.data_py("queue_sim.py", dir, "--rates", "2,4,6,8,10", "--dur", "60", "--slots", "20", "--timeout", "1.5",
            "--seed", seed)
          return dir
        end
        local a, b = big("aa901", 901), big("aa902", 902)
        local r1 = proc.run { t.PY, "-c", ([[
import sys, json
sys.path.insert(0, %q)
from err_ref import deff, points
out = {}
for side, d in (("a", %q), ("b", %q)):
    for k, v in points(d).items():
        out["%%s%%g" %% (side, k)] = [int(v.sum()), len(v), deff(v)]
print(json.dumps(out))]]):format(ROOT .. "/tests/data", a, b) }
        t.eq(r1.code, 0, r1.stderr)
        local want = json.decode(r1.stdout)
        local low_a, low_b = 0, 0
        for _, k in ipairs { "2", "4", "6", "8" } do
          t.eq({ want["a" .. k][1], want["b" .. k][1] }, { 0, 0 }, k)
          low_a, low_b = low_a + want["a" .. k][2], low_b + want["b" .. k][2]
        end
        t.eq({ low_a, low_b, want.a10[1], want.a10[2], want.b10[1] }, { 1200, 1200, 29, 600, 2 })
        t.ok(want.a10[3] >= decision.BURST_DEFF, want.a10[3])
        local o = t.compare_ab(a, b, { "--slo", "ttft_p90_ms=1000" })
        local row = t.perf_row(o.json, "error_rate_pct")
        t.eq({ row.verdict, row.winner }, { "not comparable", nil }, row.evidence)
        t.eq(row.sig.scope.tested, { "2/s", "4/s", "6/s", "8/s" })
        t.eq(row.sig.scope.left, { { why = "a run overloaded", loads = { "10/s (A)" } } })
        t.ok(row.evidence:find("(0 of 1200 and 0 of 1200 failed)", 1, true), row.evidence)
        t.ok(row.evidence:find("10/s in A", 1, true), row.evidence)
        -- the failures stay in the figures and say why they decide nothing
        t.eq({ row.a_text, row.b_text }, { "1.61 %", "0.11 %" })
        t.ok(not o.md:find("better in error rate", 1, true), o.md)
      end)

    t.test("one load point with bursts of failures: the count test with the design effect, or too dependent", function()
      -- 3.7/s alone, seeds 15 and 16 (other draws than with four rates): python3 err_ref.py,
      -- the same formula with one stratum: design effect 7.13, z = 0.386
      local function one(name, seed)
        local dir = t.tmpdir() .. "/" .. name
        t.data_py("queue_sim.py", dir, "--rates", "3.7", "--slots", "8", "--ttft0", "0.1", "--tpot", "0.02", "--outtok",
          "100", "--dur", "300", "--seed", seed, "--timeout", "3")
        return dir
      end
      local a, b = one("one15", 15), one("one16", 16)
      local want = ref(a, b)
      local r = decision.row_test("error_rate_pct", t.extract_pair(a, b))
      t.eq(r.test, "cmh")
      t.near(r.z, want.z, 1e-9)
    end)

    -- audit44: runs of one load point each were tested at it whatever its load did, where a
    -- run of several leaves out a load it did not sustain (decision.stratified_count_test,
    -- sustained_pairs). queue_sim.py's 10 slots at about 2.1 s a request (0.1 s + 99 x 0.02 s)
    -- serve about 4.8 req/s: at 5.5 req/s with a 3 s client timeout the queue fails a varying
    -- number, in bursts. 29 A/A pairs (seeds 2k, 2k + 1, k = 0..28): on main 2 named an
    -- error-rate winner (28/29, 46/47), none now (each pair's row untested, the load left out).
    local function one_point(name, seed, rate, extra)
      local dir = t.tmpdir() .. "/" .. name
      t.data_py("queue_sim.py", dir, "--rates", rate, "--slots", "10", "--dur", "100", "--seed", seed, extra)
      return dir
    end
    -- each side's failed requests, requests and failures' design effect at its one load point
    -- (err_ref.py's points and deff, numpy on the files)
    local function fails(dir)
      local r = proc.run { t.PY, "-c", ([[
import sys, json
sys.path.insert(0, %q)
from err_ref import deff, points
(v,) = points(%q).values()
print(json.dumps([int(v.sum()), len(v), deff(v)]))]]):format(ROOT .. "/tests/data", dir) }
      t.eq(r.code, 0, r.stderr)
      return json.decode(r.stdout)
    end

    t.test("one load point each, A/A past capacity with client timeouts (audit44): left out, no error-rate winner",
      function()
        -- python3 (fails, above): seeds 28/29, 15 and 90 of 550 failed, B's design effect 3.63;
        -- seeds 46/47, 95 and 37 of 550, 3.20 and 3.23. A side whose successes are below 95 %
        -- of its requests (B of 28/29: 460 of 550, 83.6 %; both of 46/47) answered short, its
        -- failures in bursts (design effect >= 2): left out. On main: 28/29 "A better", 2.73 %
        -- against 16.36 %, p = 5.4e-05; 46/47 "B better", p = 0.0028.
        for _, c in ipairs { { 28, 29, { 15, 550 }, { 90, 550 }, "5.5/s in B" },
          { 46, 47, { 95, 550 }, { 37, 550 }, "5.5/s in A; 5.5/s in B" } } do
          local a = one_point("aa" .. c[1], c[1], "5.5", { "--timeout", "3" })
          local b = one_point("aa" .. c[2], c[2], "5.5", { "--timeout", "3" })
          local fa, fb = fails(a), fails(b)
          t.eq({ fa[1], fa[2], fb[1], fb[2] }, { c[3][1], c[3][2], c[4][1], c[4][2] })
          for _, f in ipairs { fa, fb } do
            if (f[2] - f[1]) / f[2] < 0.95 then t.ok(f[3] >= decision.BURST_DEFF, f[3]) end
          end
          local o = t.compare_ab(a, b)
          local row = t.perf_row(o.json, "error_rate_pct")
          t.eq(row.verdict, "untested", row.evidence)
          t.contains(row.evidence, "no load point both runs sustained (left out, not sustained (how many requests an "
            .. "overloaded queue fails varies between runs beyond what one run's counts show): " .. c[5] .. ")")
          for _, x in ipairs(o.json.perf) do t.ok(x.verdict ~= "A better" and x.verdict ~= "B better", x.key) end
          t.lacks(o.md, "better in error rate")
        end
      end)

    -- Every failed request's error in dir's result files replaced by text (fixb46: "(no
    -- message)", llmd.runmodel.UNRECORDED, makes their cause unknown: decision.failures_kind
    -- "unknown", where the server's "Service Unavailable" is "errors", a load kept in).
    local function relabel(dir, text)
      t.walk(dir, function(p, _, mode)
        if mode == "file" and p:match("%.json$") then
          local d = json.read(p)
          for i, e in ipairs(d.errors) do if e ~= "" then d.errors[i] = text end end
          t.write(p, json.encode(d))
        end
      end)
      return dir
    end

    -- fixl45: the server down 2 s in every 30, answering 503 at once (--error-bursts 2,30), at
    -- 4.75 req/s, half what 20 slots serve: both sides answer short, their failures in bursts;
    -- their cause unknown (relabel, unknown = true), the one load is left out; the throughput
    -- rows are untested for their own reason.
    local function bursts_pair(unknown)
      local function one(seed)
        local dir = t.tmpdir() .. "/eb" .. seed .. (unknown and "u" or "")
        t.data_py("queue_sim.py", dir, "--rates", "4.75", "--slots", "20", "--dur", "126", "--seed", seed,
          "--error-bursts", "2,30")
        return unknown and relabel(dir, "(no message)") or dir
      end
      return t.compare_ab(one(3015), one(3016), { "--slo", "ttft_p90_ms=1000,tpot_p90_ms=50,error_rate_pct=5" })
    end

    t.test("bursts of server errors, per-request samples on both sides: the Summary says each row's own reason",
      function()
        -- on main: "Nothing could be tested: no metric has per-request samples or repeats from
        -- both runs", though both runs have per-request samples (python3: len(ttfts)
        -- 598 in each file)
        local o = bursts_pair(true)
        t.eq(t.perf_row(o.json, "throughput_req_s").evidence, "no repeats from both runs")
        t.lacks(o.md, "no metric has per-request samples or repeats from both runs")
        t.contains(o.md, "Nothing could be tested: 24 metrics with per-request samples from both runs: no load point "
          .. "both runs sustained (each row says why); request throughput, output token throughput: no repeats from "
          .. "both runs, so none names a winner (26 metrics untested).")
      end)

    t.test("bursts of server errors, not a queue: the Summary, the rows and the CDF note say the files' cause",
      function()
        -- python3 on the files: every failure's error "Service Unavailable" (35 in A, 32 in B),
        -- none a timeout: decision.failures_kind "errors". On main the Summary said "failed
        -- requests in bursts (a queue timing requests out)", the latency rows "the latency may
        -- measure the queue", the error rate "how many requests an overloaded queue fails"
        -- (fixb46: such a load, its failures all the server's errors, is kept in and tested, and
        -- the rows say so: decision.point_unsustained)
        local o = bursts_pair()
        for _, bad in ipairs { "a queue timing requests out", "overloaded queue", "may measure the queue",
          "outlasted the queue" } do
          t.lacks(o.md, bad)
        end
        local kept = "kept in: 4.75/s in A, 4.75/s in B, answered short with failed requests in bursts of server "
          .. "errors (the files record errors, no timeouts), which leave no queue behind"
        for _, key in ipairs { "ttft_p90_ms", "error_rate_pct" } do
          local row = t.perf_row(o.json, key)
          t.ok(row.verdict ~= "untested", row.evidence)
          t.contains(row.note, kept)
        end
      end)

    -- fixb46: the same server at 3 and 4.75 req/s (a third and a half of what 20 slots serve),
    -- down 2 s in every 30 (--error-bursts 2,30; --bursts-at: only there). python3 on the files:
    -- seeds 3015/3016, both loads with bursts: 36 and 35 of 378 and 598 failed in A, 31 and 35 in
    -- B, every error "Service Unavailable", each load's successes below 95 % of its requests
    -- (90.5 %, 94.1 %; 91.8 %, 94.1 %): answered short at every load, so no load both sustained;
    -- seed 3015 with bursts at 4.75 only against 3016 without: 34 of 598 failed there (94.3 %),
    -- none anywhere in B, the error rate's whole-run gap -100 %. On main the Summary said "the
    -- latency may measure the queue ... outlasted the queue" and the gap "how many requests an
    -- overloaded queue fails", of a server whose failures were its errors.
    local function burst_run(name, seed, rates, extra)
      local dir = t.tmpdir() .. "/" .. name
      local args = { "queue_sim.py", dir, "--rates", rates, "--slots", "20", "--dur", "126", "--seed", seed }
      for _, x in ipairs(extra or {}) do args[#args + 1] = x end
      t.data_py(table.unpack(args))
      return dir
    end
    local SLO = { "--slo", "ttft_p90_ms=1000,tpot_p90_ms=50,error_rate_pct=5" }
    -- (the failures' cause unknown, relabel: bursts of the server's errors are kept in, fixb46)
    local ERRORS = "answered short, failed requests in bursts (of a cause the files do not record) making up the rest"

    t.test("bursts of server errors at every load: the Summary's 'nothing could be tested' says the files' cause",
      function()
        local a = relabel(burst_run("eb2a", 3015, "3,4.75", { "--error-bursts", "2,30" }), "(no message)")
        local b = relabel(burst_run("eb2b", 3016, "3,4.75", { "--error-bursts", "2,30" }), "(no message)")
        local o = t.compare_ab(a, b, SLO)
        -- (the throughput rows, known from the load points' own windows since newuser48 F2, pool
        -- those loads with no test: their own reason after the latency rows')
        t.contains(o.md, "Nothing could be tested: 24 metrics with per-request samples from both runs: no load point "
          .. "both runs sustained (" .. ERRORS .. ": how many fail varies between runs beyond what one run's counts "
          .. "show, and the latencies are those of the requests that outlasted the failures); request throughput, "
          .. "output token throughput: pooled over several load points, no repeats to test, so none names a winner")
        for _, bad in ipairs { "may measure the queue", "outlasted the queue", "overloaded queue" } do
          t.lacks(o.md, bad)
        end
      end)

    t.test("a whole-run gap from bursts of server errors at one load is no verdict, said by the files' cause",
      function()
        local a = relabel(burst_run("eb1a", 3015, "2,4.75", { "--error-bursts", "2,30", "--bursts-at", "4.75" }),
          "(no message)")
        local b = burst_run("eb1b", 3016, "2,4.75")
        local o = t.compare_ab(a, b, SLO)
        t.contains(o.md, "The whole-run Error rate gap (-100.0 %, 4.00 % for eb1a against 0.00 % for eb1b) is no "
          .. "verdict: those figures pool loads a run " .. ERRORS .. " (how many fail varies between runs beyond what "
          .. "one run's counts show), so they are not comparable")
        t.lacks(o.md, "overloaded queue fails")
      end)

    t.test("bursts that are no queue's are said by their cause: the rows' pooled note, the Summary's matched load, "
      .. "the error rate's dependence", function()
        -- (main: "the whole-run figures pool load points where a run was overloaded" of a load left
        -- out for bursts of unknown cause; the Summary's test at a load kept in for bursts of
        -- server errors said nothing of it; count_test's reason "neighbours are alike (the queue)")
        -- eb1a's bursts at 4.75 relabelled (cause unknown: left out, fixb46), eb1b none: every
        -- latency row pools that load, said by its cause
        local a = relabel(burst_run("eb1ka", 3015, "2,4.75", { "--error-bursts", "2,30", "--bursts-at", "4.75" }),
          "(no message)")
        local o = t.compare_ab(a, burst_run("eb1kb", 3016, "2,4.75"), SLO)
        local row = t.perf_row(o.json, "ttft_p90_ms")
        t.eq(row.verdict, "not comparable")
        t.contains(row.note, "the whole-run figures pool load points a run " .. ERRORS .. ", which the test left out")
        t.lacks(o.md, "where a run was overloaded")
        -- the one load both runs answered short with bursts of server errors (python3 on the
        -- files: 35 of 598 failed in A, 32 of 598 in B, every one "Service Unavailable"): kept
        -- in and tested at the matched load, said there as the rows say it
        o = bursts_pair()
        t.contains(o.md, "Error rate is 5.85 % for eb3015 and 5.35 % for eb3016 (no clear difference, p = ")
        t.contains(o.md, "Holm-adjusted 1); kept in: 4.75/s in A, 4.75/s in B, answered short with failed requests in "
          .. "bursts of server errors (the files record errors, no timeouts), which leave no queue behind")
        -- an error rate too dependent to test, its failures the server's errors: their bursts,
        -- by cause (by hand: 1200 / 30 = 40 independent, below 50)
        local pe = { values = { requests_failed = 40 }, failure_kinds = { timeout = 0, error = 40, unknown = 0 } }
        local pn = { values = { requests_failed = 0 } }
        local _, why = decision.count_test({ requests_failed = 40, requests_ok = 1160 },
          { requests_failed = 0, requests_ok = 3000 }, 30, 30, 2, decision.bursts_cause { pe, pn })
        t.contains(why, "in send order failed requests come in bursts (server errors, not a queue: the files record "
          .. "errors, no timeouts), so A's 1200 requests carry about 40 independent ones (design effect 30)")
        t.lacks(why, "the queue)")
        pe.failure_kinds = { timeout = 40, error = 0, unknown = 0 }
        t.eq(decision.bursts_cause { pe, pn }, "a queue timing requests out")
        t.eq(decision.bursts_cause { pn }, nil)
      end)

    -- task fixa48 #3: a latency too dependent to test at a load kept in for bursts of server
    -- errors. A queue shedding load (10 slots, --timeout 3 at 5.5 req/s, above the ~4.8 they
    -- serve; seeds 31/32), its TimeoutErrors relabelled "Service Unavailable" (python3 on the
    -- files: 46 and 49 of 330 failed there, none at 3 req/s): the files record server errors, so
    -- the load is kept in ("which leave no queue behind"), and its TTFTs are too dependent to
    -- test there. On main the stratified test's list said "the queue's doing" of it (and the CDF
    -- note), beside the rows' "kept in ... no queue behind"; now it says the load's bursts.
    t.test("a latency too dependent at a load kept in for bursts of server errors is not called the queue's doing",
      function()
        local function run(seed)
          local dir = t.tmpdir() .. "/shed" .. seed
          t.data_py("queue_sim.py", dir, "--rates", "3,5.5", "--slots", "10", "--timeout", "3", "--seed", seed)
          return relabel(dir, "Service Unavailable")
        end
        local o = t.compare_ab(run(31), run(32))
        local kept = "kept in: 5.5/s in A, 5.5/s in B, answered short with failed requests in bursts of server errors"
        t.contains(t.perf_row(o.json, "tpot_mean_ms").note, kept)
        local row = t.perf_row(o.json, "ttft_p90_ms")
        t.contains(row.evidence, "too dependent to test (in send order neighbouring requests are alike, at a load a "
          .. "run answered short with failed requests in bursts of server errors (the files record errors, no "
          .. "timeouts): fewer than 50 independent requests' worth): 5.5/s")
        t.lacks(row.evidence, "the queue's doing: fewer than 50 independent requests' worth): 5.5/s")
        t.lacks(row.evidence, "the queue's doing: fewer than 50 independent requests' worth): 3/s, 5.5/s")
        t.contains(o.md, "too dependent to test (neighbouring requests alike, at a load answered short in bursts of "
          .. "server errors): 5.5/s")
        t.lacks(o.md, "the queue's doing): 3/s, 5.5/s")
      end)

    -- task fixa49 #3: the same load as each run's only one (5.5 req/s, seeds 31/32, relabelled as
    -- above): the rows' whole-run test is that load's, and its TTFT and end-to-end latency are
    -- too dependent to test there. On main their reason said "in send order neighbours are alike
    -- (the queue)" beside the TPOT rows' "kept in: ... bursts of server errors ..., which leave no
    -- queue behind"; now it says the load's bursts, as the multi-load lists do (fixa48).
    t.test("one load each, kept in for bursts of server errors: a latency too dependent to test says the bursts",
      function()
        local function run(seed)
          local dir = t.tmpdir() .. "/shed1_" .. seed
          t.data_py("queue_sim.py", dir, "--rates", "5.5", "--slots", "10", "--timeout", "3", "--seed", seed)
          return relabel(dir, "Service Unavailable")
        end
        local o = t.compare_ab(run(31), run(32))
        t.contains(t.perf_row(o.json, "tpot_mean_ms").note, "kept in: 5.5/s in A, 5.5/s in B, answered short with "
          .. "failed requests in bursts of server errors")
        for _, key in ipairs { "ttft_p90_ms", "latency_p90_ms" } do
          local row = t.perf_row(o.json, key)
          t.contains(row.evidence, "its requests are too dependent to test: in send order neighbours are alike, at a "
            .. "load a run answered short with failed requests in bursts of server errors (the files record errors, no "
            .. "timeouts), so A's ")
          t.lacks(row.evidence, "(the queue)")
        end
        t.lacks(o.md, "neighbours are alike (the queue)")
      end)

    t.test("one load point each, 2 % against 10 % failing independently (answered short, no bursts): still found",
      function()
        -- 3 req/s, below the 4.8 the 10 slots serve: python3 (fails, err_ref.py) 9 of 300 against
        -- 32 of 300 failed, B's design effect 1.47 (below 2: the failures come one at a time,
        -- the server's errors, not a queue's), so its point stays in though its successes fell
        -- short (268 of 300); err_ref.py's CMH z with that design effect: -3.0635
        local a = one_point("ab1p2", 21, "3", { "--fail", "0.02" })
        local b = one_point("ab1p10", 22, "3", { "--fail", "0.1" })
        local fa, fb = fails(a), fails(b)
        t.eq({ fa[1], fa[2], fb[1], fb[2] }, { 9, 300, 32, 300 })
        t.ok(fb[3] < decision.BURST_DEFF, fb[3])
        local want = ref(a, b)
        local o = t.compare_ab(a, b)
        t.eq(o.json.saturation.b.answered_short, { 1 })
        local row = t.perf_row(o.json, "error_rate_pct")
        t.eq(row.verdict, "A better", row.evidence)
        local ra, rb, pa, pb = t.extract_pair(a, b)
        local lp = require "llmd.loadpoints"
        local r = decision.row_test("error_rate_pct", ra, rb, pa, pb, nil, nil,
          { a = lp.saturation(pa), b = lp.saturation(pb) })
        t.near(r.z, want.z, 1e-9)
      end)

    t.test("one load point each, both saturated (audit44): no latency test there, as at several loads", function()
      -- 8 req/s to 10 slots of about 2.1 s: python3 on the files, 800 requests each, none
      -- failed, 800 answered in 169.2 s (4.73 req/s, 59 % of 8): overloaded, its latencies the
      -- queue's. On main TPOT and ITL were tested there ("no clear difference", p = 0.996)
      local a, b = one_point("sat1", 1, "8"), one_point("sat2", 2, "8")
      local o = t.compare_ab(a, b)
      for _, key in ipairs { "tpot_mean_ms", "itl_mean_ms", "ttft_p90_ms" } do
        local row = t.perf_row(o.json, key)
        t.eq(row.verdict, "untested", key)
        t.contains(row.evidence, "no load point both runs sustained (left out, not sustained (past saturation")
        t.contains(row.evidence, "8/s in A; 8/s in B")
      end
    end)

    -- fixh47: comparison.json's matched_point.kept is saved only where the Summary says it,
    -- beside a test made at the matched load. bursts_pair's files with TTFT p90 <= 1 ms (every
    -- load fails it: the matched load is TTFT p90's, 4.75 req/s, kept in for bursts of server
    -- errors, python3: 35 and 32 of 598 "Service Unavailable"). analyze.lua on that workspace
    -- without the saved test (no samples to make it again): no test there, so the Summary says
    -- nothing of the load kept in, and on main kept was saved anyway.
    t.test("the matched load's 'kept in' is saved where the Summary says it, beside a test, and not without one",
      function()
        local function one(seed)
          local dir = t.tmpdir() .. "/eb" .. seed
          t.data_py("queue_sim.py", dir, "--rates", "4.75", "--slots", "20", "--dur", "126", "--seed", seed,
            "--error-bursts", "2,30")
          return dir
        end
        local o = t.compare_ab(one(3015), one(3016), { "--slo", "ttft_p90_ms=1,error_rate_pct=10" })
        local mp = o.json.matched_point
        t.eq({ mp.key, mp.test ~= nil, type(mp.kept) }, { "ttft_p90_ms", true, "table" })
        local said = "(no clear difference, p = 0.255, Holm-adjusted 1); kept in: 4.75/s in A, 4.75/s in B, answered "
          .. "short with failed requests in bursts of server errors"
        t.contains(o.md, said)
        local copy = t.tmpdir() .. "/notest"
        t.copy_tree(o.ws, copy)
        local doc = json.decode(t.read(copy .. "/comparison.json"))
        doc.matched_point.test = nil
        t.write(copy .. "/comparison.json", json.encode(doc))
        local r = proc.run { LLMDLUA, ROOT .. "/lua/analyze.lua", copy, "--quiet" }
        t.eq(r.code, 0, r.stdout .. r.stderr)
        mp = json.decode(t.read(copy .. "/comparison.json")).matched_point
        t.eq({ mp.test, mp.reason, mp.kept }, { nil, "no per-request samples from both runs at this load", nil })
        local md = t.read(copy .. "/comparison_report.md")
        t.contains(md, "TTFT p90 is 113.4 ms for eb3015 and 113.0 ms for eb3016, untested at this load: no per-request "
          .. "samples from both runs at this load.")
        t.lacks(md, "kept in: 4.75/s in A")
      end)

    -- fixi44: analyze.lua on a comparison.json an earlier report wrote, whose latency test took
    -- in a load a run did not sustain (by the rule the tests follow now): the saved test is not
    -- brought back (decision.saved_test_unsustained). Made by editing a fresh comparison.json's
    -- TTFT rows as the earlier report's would read (its test with no load left out).
    local n_older = 0
    local function analyze_older(ws, key, edit)
      n_older = n_older + 1
      local copy = ("%s/%s_older%d"):format(t.tmpdir(), key, n_older)
      t.copy_tree(ws, copy)
      local doc = json.decode(t.read(copy .. "/comparison.json"))
      -- (every TTFT row: they share one test, as the earlier report's did)
      for _, x in ipairs(doc.perf) do if x.key:match("^ttft_") then edit(x) end end
      t.write(copy .. "/comparison.json", json.encode(doc))
      local r = proc.run { LLMDLUA, ROOT .. "/lua/analyze.lua", copy, "--quiet" }
      t.eq(r.code, 0, r.stdout .. r.stderr)
      local out = json.decode(t.read(copy .. "/comparison.json"))
      return t.perf_row(out, key), t.read(copy .. "/comparison_report.md")
    end

    t.test("analyze.lua, one load point each, an earlier report's test at a load answered short in bursts: not "
      .. "brought back (fixi44)", function()
        -- seeds 28/29 at 5.5 req/s (above: B answered short, 90 of 550 failed, design effect
        -- 3.63): untested now; an earlier report (before audit44) tested TTFT p90 there. On main
        -- analyze.lua brought its test back (here p = 0.001: "A better"/"B better").
        local a = one_point("aa28", 28, "5.5", { "--timeout", "3" })
        local b = one_point("aa29", 29, "5.5", { "--timeout", "3" })
        local o = t.compare_ab(a, b)
        local now = t.perf_row(o.json, "ttft_p90_ms")
        t.eq(now.verdict, "untested", now.evidence)
        local row = analyze_older(o.ws, "ttft_p90_ms", function(x)
          x.sig = { test = "mann_whitney", p = 0.001, z = -3.29 }
          x.untested_why = nil
        end)
        t.eq(row.verdict, "untested", row.evidence)
        t.eq(row.sig, nil)
        t.contains(row.evidence, "no load point both runs sustained (left out, not sustained (past saturation")
        t.contains(row.evidence, "5.5/s in B")
        t.lacks(row.evidence, "p = 0.001")
      end)

    t.test("analyze.lua, several load points, an earlier report's test that took in a load not sustained: not "
      .. "brought back (fixi44)", function()
        -- 3 and 5.5 req/s, 100 s, seeds 28/29, SLO error rate 20 %: compare.lua leaves 5.5 req/s
        -- out in both (past saturation: the answers came back at 86 % and 83 % of the sends, by
        -- the pace) and tests TTFT p90 at 3 req/s alone (the stratified test's overloaded); an
        -- earlier report's test that pooled both loads (no overloaded) is stale. On main
        -- analyze.lua quoted it (its p = 0.001 here).
        local function two(name, seed)
          local dir = t.tmpdir() .. "/" .. name
          t.data_py("queue_sim.py", dir, "--rates", "3,5.5", "--slots", "10", "--timeout", "3", "--dur", "100",
            "--seed", seed)
          return dir
        end
        local o = t.compare_ab(two("m28", 28), two("m29", 29), { "--slo", "error_rate_pct=20,ttft_p90_ms=2000" })
        local now = t.perf_row(o.json, "ttft_p90_ms")
        t.eq(now.sig.overloaded, { a = { "5.5/s" }, b = { "5.5/s" } })
        -- (the same test saved, the same loads left out: still brought back, as before)
        local same = analyze_older(o.ws, "ttft_p90_ms", function() end)
        t.eq(same.sig and same.sig.p, now.sig.p)
        local row, md = analyze_older(o.ws, "ttft_p90_ms", function(x)
          x.sig = { test = "mann_whitney", name = "van_elteren", p = 0.001, z = -3.29, strata = 2 }
        end)
        t.eq(row.sig, nil)
        t.contains(row.evidence, "the saved test (an earlier report's) took in loads a run did not sustain (not "
          .. "sustained (past saturation")
        t.contains(row.evidence, "5.5/s in A; 5.5/s in B), and the samples are not at hand to test without them: the results read again and the "
          .. "rows tested again (analyze.lua WORKSPACE --reextract)")
        t.lacks(md, "p = 0.001")
      end)

    t.test("the Summary's matched load below a load neither run sustained: tested at the load below",
      function()
        -- 3 and 5.5 req/s, 3 repeats of 60 s, seeds 28 and 29
        local function rep(name, seed)
          local dir = t.tmpdir() .. "/" .. name
          t.data_py("queue_sim.py", dir, "--rates", "3,5.5", "--slots", "10", "--timeout", "3", "--dur", "60",
            "--repeat", "3", "--seed", seed)
          return dir
        end
        -- SLO error rate 20 %, TTFT p90 2 s. python3 (seqstats.deff on each 5.5 req/s file):
        -- rp28 failed 27, 63, 47 of 330 (design effects 9.02, 2.90, 2.11), rp29 21, 44, 47 (2.02,
        -- 5.24, 4.58), in bursts. Written (audit44) when both were read as answered short at 5.5
        -- req/s, not saturated, the matched load staying there untested; llmdlua now reads both
        -- as past saturation there (saturation.point 2: their answers fall behind the sends), so
        -- the highest load both sustained is 3 req/s (this test failed on main, ce260b8: 3 ~= 5.5).
        -- Expected at 3 req/s, python3 on the files' p90_ttft_ms: rp28 114.12, 121.42, 136.52
        -- (mean 124.02), rp29 228.98, 114.54, 126.95 (mean 156.82); Welch t = 0.8901, df 2.1323.
        -- Since fixa51 on their log values (the scale of the row's interval): the same files (queue_sim.py
        -- as above) through tests/sim/fixa51_log_welch.py's welch(): t = 0.8483641, df 2.2363917, p = 0.4773
        local a, b = rep("rp28", 28), rep("rp29", 29)
        local o = t.compare_ab(a, b, { "--slo", "error_rate_pct=20,ttft_p90_ms=2000" })
        local mp = o.json.matched_point
        t.eq({ mp.key, mp.load, mp.point_a, mp.point_b, mp.sustained, mp.unsustained }, { "ttft_p90_ms", 3, 1, 1, true })
        t.eq({ o.json.saturation.a.point, o.json.saturation.b.point }, { 2, 2 })
        t.near(mp.a, 124.02006, 1e-4)
        t.near(mp.b, 156.82140, 1e-4)
        t.eq({ mp.test.test, mp.test.scale }, { "welch", "log" })
        t.near(mp.test.t, 0.8483641, 1e-6)
        t.near(mp.test.df, 2.2363917, 1e-6)
        t.contains(o.md, "At 3 req/s offered (2.83 req/s achieved by rp28, 3.12 req/s by rp29), TTFT p90 is 124.0 ms "
          .. "for rp28 and 156.8 ms for rp29 (no clear difference, p = 0.477)")
        t.lacks(o.md, "not a load both runs sustained")
        t.lacks(o.md, "2,963.3 ms")
      end)

    t.test("A/B, 2 % against 10 % of requests failing independently: still found", function()
      local a, b = sim("ab2", 21, { "--fail", "0.02" }), sim("ab10", 22, { "--fail", "0.1" })
      local want = ref(a, b)
      local r = stratified(a, b)
      t.near(r.z, want.z, 1e-9)
      t.ok(r.p < 1e-9, r.p)
      local o = t.compare_ab(a, b)
      t.eq(t.perf_row(o.json, "error_rate_pct").verdict, "A better")
      -- (fixg43) the Summary's winner quotes the difference that decided, the Mantel-Haenszel
      -- one within the load points, with its interval, never the whole-run gap. python3 on
      -- err_ref.py's points: D = sum_k w_k (p_b,k - p_a,k) / sum_k w_k, w_k = n_a n_b / (n_a + n_b)
      local r1 = proc.run { t.PY, "-c", ([[
import sys
sys.path.insert(0, %q)
from err_ref import points
pa, pb = points(%q), points(%q)
num = den = 0.0
for k in pa:
    na, nb = len(pa[k]), len(pb[k])
    w = na * nb / (na + nb)
    num += w * (pb[k].mean() - pa[k].mean()); den += w
print("%%+.2f" %% (num / den * 100))]]):format(ROOT .. "/tests/data", a, b) }
      t.eq(r1.code, 0, r1.stderr)
      local d = r1.stdout:match("%S+")
      t.ok(o.md:find(("error rate (ab10 %s pp vs ab2 over all load points, within each, 95 %% interval "):format(d), 1,
        true), o.md:match("## Evidence.-\n## ") or o.md)
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
  local proc = require "llmd.proc"
  local decision = require "llmd.decision"
  local harness = require "llmd.harness"
  local json = require "llmd.json"

  local ROOT = t.root()
  local PY = t.PY
  local have_numpy = t.have_numpy()

  -- an inference-perf run of queue_sim_ip.py (8 slots, 0.1 s + 99 x 0.02 s a request, 300 s
  -- a stage, capacity about 3.8/s; the same server as test_err37's vLLM runs)
  local function ipsim(name, seed, rates, extra)
    local dir = t.tmpdir() .. "/" .. name
    t.data_py("queue_sim_ip.py", dir, "--rates", rates, "--slots", "8", "--ttft0", "0.1", "--tpot", "0.02", "--outtok",
      "100", "--dur", "300", "--seed", seed, extra)
    return dir
  end

  local function ref(a, b)
    return t.data_json("err_ref.py", a, b)
  end

  local function error_row(a, b)
    return t.perf_row(t.compare_ab(a, b).json, "error_rate_pct")
  end

  if have_numpy then
    local RATES = "2,3,3.5,3.7"

    t.test("inference-perf, several stages, A/A with a client timeout: the failures' design effect, no winner",
      function()
        -- seeds 9 and 10, failures in bursts at 3.5 and 3.7 req/s: before, Fisher's test
        -- stratified by stage (every stage's design effect 1) gave p = 2.7e-06, "B better";
        -- err_ref.py: design effects 1, 1, 6.25, 6.42 (the larger side's), z = 1.865
        local a = ipsim("ipaa9", 9, RATES, { "--timeout", "3" })
        local b = ipsim("ipaa10", 10, RATES, { "--timeout", "3" })
        local want = ref(a, b)
        local ra, rb, pa, pb = t.extract_pair(a, b)
        local r = decision.stratified_count_test(ra, rb, pa, pb)
        t.eq(r.test, "cmh")
        t.near(r.z, want.z, 1e-9)
        t.eq(r.strata, want.strata)
        -- each stage's own design effect, against err_ref.py's on that side alone
        local r1 = proc.run { PY, "-c", ([[
import sys, json
sys.path.insert(0, %q)
from err_ref import deff, points
print(json.dumps([deff(v) for k, v in sorted(points(%q).items())]))]]):format(ROOT .. "/tests/data", a) }
        t.eq(r1.code, 0, r1.stderr)
        local each = json.decode(r1.stdout)
        for i, st in ipairs(ra.stages) do t.near(st.metrics.sample_deff.failed, each[i], 1e-9) end
        t.ok(each[4] > 3, "the bursts at 3.7 req/s: " .. each[4])
        local row = error_row(a, b)
        -- (fixg43) A's successes fell short at 3.7/s, its failures in bursts (design effect
        -- above 3, err_ref.py): that load is left out, and the row names no winner
        t.eq(row.verdict, "not comparable", row.evidence)
        t.ok(row.evidence:find("design effect", 1, true), row.evidence)
        t.ok(row.evidence:find("not sustained (", 1, true) and row.evidence:find("3.7/s in A", 1, true), row.evidence)
      end)

    t.test("inference-perf, several stages, 2 % against 10 % of requests failing independently: still found",
      function()
        local a = ipsim("ipab2", 21, RATES, { "--fail", "0.02" })
        local b = ipsim("ipab10", 22, RATES, { "--fail", "0.1" })
        local want = ref(a, b)
        local ra, rb, pa, pb = t.extract_pair(a, b)
        local r = decision.stratified_count_test(ra, rb, pa, pb)
        t.near(r.z, want.z, 1e-9)
        t.ok(r.p < 1e-9, r.p)
        t.eq(error_row(a, b).verdict, "A better")
      end)

    t.test("inference-perf, one stage (the fast lane): its successes are in the failures' design effect", function()
      -- before, the successes the fast lane adds in C were left out of the outcomes: the
      -- failures alone, one value, design effect 1. err_ref.py's deff on the same requests
      local a = ipsim("ipone15", 15, "3.7", { "--timeout", "3" })
      local r = proc.run { PY, "-c", ([[
import sys, json
sys.path.insert(0, %q)
from err_ref import deff, points
print(json.dumps(deff(points(%q)[3.7])))]]):format(ROOT .. "/tests/data", a) }
      t.eq(r.code, 0, r.stderr)
      local want = json.decode(r.stdout)
      t.ok(want > 3, want)
      local run = harness.extract(a)
      t.near(run.overall.sample_deff.failed, want, 1e-9)
    end)
  else
    t.test("inference-perf runs with bursts of failures (skipped: no numpy for queue_sim_ip.py)", function() end)
  end
end

-- Task fixc39: a latency winner only with a practical difference. The new-user trial's A/A
-- pair (tests/data/queue_sim.py, the same FIFO server of 20 slots, seeds 25 and 26, 4 to 12
-- req/s) read on main "v25's values are lower in TPOT mean, TPOT p50, p90, p95, p99, p99.9
-- (... p = 0.00998, Holm-adjusted 0.0399)": the stratified test is significant, but the
-- difference within the load points is about 1 %, below --min-effect (2 %), which was never
-- applied to it. Now each row of a stratified test has its own effect within the load points
-- the test compared, with a 95 % interval, and names a winner only where the whole interval
-- is beyond the threshold.
-- (Formerly test_fixc39.lua.)
do
  local json = require "llmd.json"

  if not t.have_numpy() then
    t.test("A/A and A/B pairs of queue_sim.py (skipped: no numpy for queue_sim.py)", function() end)
  else

    local made = {}
    local function sim(name, seed, extra)
      local dir = t.tmpdir() .. "/" .. name
      if made[name] then return made[name] end
      t.data_py("queue_sim.py", dir, "--rates", "4,6,8,9,10,12", "--slots", 20, "--seed", seed, extra or {})
      made[name] = dir
      return dir
    end

    local TPOT = { "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p95_ms", "tpot_p99_ms" }
    local STAT = { tpot_mean_ms = "mean", tpot_p50_ms = "50", tpot_p90_ms = "90", tpot_p95_ms = "95", tpot_p99_ms = "99" }

    -- The rows' effects by tests/data/stratified_effect_ref.py (numpy alone) at the loads given.
    local function reference(a, b, rates)
      return t.data_json("stratified_effect_ref.py", a, b, rates, "mean,50,90,95,99")
    end

    local function check_effects(doc, ref, what)
      for _, key in ipairs(TPOT) do
        local r, e = t.perf_row(doc, key), ref[STAT[key]]
        t.near(r.effect_pct, e.pct, 1e-9, what .. " " .. key)
        if e.lo == json.null then
          t.eq({ r.effect_lo, r.effect_hi }, { nil, nil }, what .. " " .. key .. " unbounded")
        else
          t.near(r.effect_lo, e.lo, 1e-9, what .. " " .. key .. " lo")
          t.near(r.effect_hi, e.hi, 1e-9, what .. " " .. key .. " hi")
        end
      end
    end

    t.test("A/A (seeds 25 and 26): the stratified TPOT test is significant, the difference too small: no winner",
      function()
      for _, slo in ipairs { false, "ttft_p90_ms=1000" } do
        local c = t.compare_ab(sim("v25", 25), sim("v26", 26), slo and { "--slo", slo } or nil)
        local what = slo and "--slo " .. slo or "no SLO"
        -- the test left out 10 and 12 req/s (A), 12 (B) as overloaded: the four loads below
        local tp = t.perf_row(c.json, "tpot_mean_ms")
        t.contains(tp.sig.left_out, "10/s, 12/s in A; 12/s in B", what)
        t.ok(tp.p_adjusted < 0.05, what .. ": the test itself is significant")
        -- within the loads: +0.97 % (mean) to +1.25 % (p90), each below 2 % (numpy; B against A
        -- since fixa43). Only the mean's 95 % interval (+0.2 % to +1.7 %, the reference's) is within
        -- 2 % at both ends: too small to matter; p50's, p90's and p95's reach beyond it (to +2.1 %,
        -- +2.8 %, +2.5 %) and p99's is unbounded, so those are not shown within it (wording54: on
        -- main all five "small" on their estimates alone, stronger than their intervals carry)
        local ref = reference(sim("v25", 25), sim("v26", 26), "4,6,8,9")
        check_effects(c.json, ref, what)
        for _, key in ipairs(TPOT) do
          local r, e = t.perf_row(c.json, key), ref[STAT[key]]
          -- (within 2 % whichever run is A: a rise below +2 %, a fall above -200 / 102 %)
          local within = e.lo ~= json.null and e.lo > -200 / 102 and e.hi < 2
          t.eq(within, key == "tpot_mean_ms", what .. " " .. key .. ": the reference's interval within 2 %")
          t.eq({ r.sustained_winner, r.winner, r.sustained_size }, { nil, nil, within and "small" or "unsure" },
            what .. " " .. key)
        end
        -- (p99.9: the figure's difference within the loads is the other way, -1.3 %: no winner either)
        t.eq(t.perf_row(c.json, "tpot_p999_ms").sustained_winner, nil, what)
        t.lacks(c.md, "values are lower in TPOT", what)
        t.lacks(c.md, "at the loads both sustained: v25's lower", what)
        t.lacks(c.md, "at the loads both sustained: v26's lower", what)
        -- what it is instead, with the one test said once for its rows
        t.contains(c.md, "v25's values are lower (one Mann-Whitney stratified by load point (van Elteren, 4 points) for these 6 rows, p = "
          .. "0.00998, Holm-adjusted 0.0399), too small to matter (the 95 % interval within the threshold at both ends) "
          .. "in TPOT mean (+1.0 %, 95 % interval +0.2 % to +1.7 %); within the threshold by the estimate, but not by "
          .. "the 95 % interval, which reaches beyond it, in TPOT p50 (+1.2 %, 95 % interval +0.2 % to +2.1 %), TPOT "
          .. "p90 (+1.3 %, 95 % interval -0.2 % to +2.8 %), TPOT p95 (+0.5 %, 95 % interval -1.5 % to +2.5 %); within "
          .. "the threshold by the estimate, but not "
          .. "bounded within it in TPOT p99 +0.5 % (its 95 % interval unbounded", what)
        if not slo then
          t.contains(c.md, "TPOT p90 +2.8 % (Performance Results, at the loads both sustained: v25's values are lower "
            .. "(v26 +1.3 % against v25) within the load points tested, within the 2 % practical threshold, but the 95 % "
            .. "interval of that difference, -0.2 % to +2.8 %, reaches beyond it, so it may matter: no winner, p = "
            .. "0.00998", what)
        end
      end
    end)

    t.test("a real difference (TPOT +10 %, queue_sim --tpot 0.022) is still named, with its size and interval",
      function()
      local a, b = sim("v25", 25), sim("t26", 26, { "--tpot", "0.022" })
      local c = t.compare_ab(a, b)
      local tp = t.perf_row(c.json, "tpot_mean_ms")
      t.contains(tp.sig.left_out, "10/s, 12/s in A; 9/s, 10/s, 12/s in B")
      local ref = reference(a, b, "4,6,8")
      check_effects(c.json, ref, "tpot +10 %")
      -- mean, p50, p90, p95: intervals beyond 2 % (numpy: +9.3 % to +11.3 % for the mean), A lower
      for _, key in ipairs { "tpot_mean_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p95_ms" } do
        t.eq(t.perf_row(c.json, key).sustained_winner, "a", key)
        t.ok(ref[STAT[key]].lo > 2, key)
      end
      -- p99 of 240 to 540 requests a load: no bound above (numpy: null), so not shown beyond 2 %
      t.eq({ t.perf_row(c.json, "tpot_p99_ms").sustained_winner, t.perf_row(c.json, "tpot_p99_ms").sustained_size },
        { nil, "unsure" })
      -- (end-to-end p50: +9.0 % of the mean before fixa43, by hand (200 + 9.0) / (200 - 9.0) = 1.094 B against A)
      t.contains(c.md, "At the loads both runs sustained, v25's values are lower in end-to-end latency p50 (+9.4 %")
      -- (the intervals as tests/data/stratified_effect_ref.py gives them, rounded, B against A
      -- since fixa43: mean +10.26 % (+9.25 to +11.28 with the ranks' design effect; with the
      -- values' own since fixj44 +9.3 % to +11.3 %, rounded), p50 +10.39 % (+9.11 to +11.69), p90
      -- +10.52 % (+8.55 to +12.54; with the larger of the ranks' and the percentile's indicator's
      -- design effect since fixe45 +8.50 to +12.58), p95 +8.85 % (+6.43 to +11.33; since fixe45
      -- +5.99 to +11.80))
      t.contains(c.md, "TPOT mean (+10.3 %, 95 % interval +9.3 % to +11.3 %), TPOT p50 (+10.4 %, 95 % interval +9.1 % to "
        .. "+11.7 %), TPOT p90 (+10.5 %, 95 % interval +8.5 % to +12.6 %), TPOT p95 (+8.9 %, 95 % interval +6.0 % to "
        .. "+11.8 %) (one Mann-Whitney stratified by load point (van Elteren, 3 points) for these 4 rows, p < 1e-9")
    end)

    t.test("the unstratified rows' rule: a whole-run test with no interval names no winner on its estimate",
      function()
      -- (decision.verdict without a row_effect: the pooled figures' effect against min_effect)
      local decision = require "llmd.decision"
      -- (+1 % with no interval: not shown within the threshold, so "not shown to differ", never
      -- "negligible" on the estimate alone, wording54)
      local v = decision.verdict { key = "tpot_p90_ms", a = 100, b = 101, test = { test = "mann_whitney", p = 1e-6 } }
      t.eq(v.verdict, "not shown to differ")
      -- (+10 % with no interval: significant, but its size unknown, so no winner on the estimate
      -- alone either, the mirror of the +1 % above: verdict55; before it "A better")
      v = decision.verdict { key = "tpot_p90_ms", a = 100, b = 110, test = { test = "mann_whitney", p = 1e-6 } }
      t.eq({ v.verdict, v.size, v.winner, v.size_lower }, { "not shown to differ", "unsure", nil, "a" })
      t.contains(v.note, "significant, size unknown")
      -- (the same at the loads both sustained, a test that left an overloaded load out: no
      -- sustained_winner on the estimate alone; before verdict55 sustained_winner "a")
      v = decision.verdict { key = "tpot_p90_ms", a = 100, b = 110, test = { test = "mann_whitney", p = 1e-6, z = -3,
        strata = 2, overloaded = { "12/s" } } }
      t.eq({ v.verdict, v.sustained_winner, v.sustained_size, v.sustained_lower }, { "not comparable", nil, "unsure",
        "a" })
      t.contains(v.note, "significant, size unknown")
    end)
  end
end

-- Task fixc41: the intervals of the ITL (token gaps pooled over requests) count the requests,
-- not the gaps, as their independent units; NTPOT's mean has an interval of its own from the
-- per-request NTPOTs, and none (with why) without them.
-- Expected values: tests/data/fixc41_ref.py (numpy and tests/data/seqstats.py, no llmdlua
-- code), run on the same 150 requests as fixc41_requests below.
-- (Formerly test_fixc41.lua.)
do
  local rm = require "llmd.runmodel"
  local lp = require "llmd.loadpoints"

  -- 150 requests sent 0.5 s apart, request i with m_i = 20 + (37 i mod 61) gaps of its own pace
  -- 0.02 (1 + 0.5 sin(1.3 i)) s (times 1 + 0.1 ((7 k + i) mod 5 - 2) for gap k), TTFT 0.1 s,
  -- m_i + 1 output tokens: a run whose requests differ in pace far more than their gaps do
  local function fixc41_set()
    local a = rm.accumulator()
    for i = 1, 150 do
      local m = 20 + (37 * i) % 61
      local pace = 0.02 * (1 + 0.5 * math.sin(1.3 * i))
      local s = 0
      for k = 1, m do
        local g = pace * (1 + 0.1 * (((7 * k + i) % 5) - 2))
        a.itl:add(g)
        s = s + g
      end
      local start, e2e = 0.5 * i, 0.1 + s
      a.add_done(start, start + e2e, e2e, 0.1, s / m, e2e / (m + 1), 100, m + 1)
    end
    local set = rm.set()
    rm.fill(set, a, "linear")
    return set
  end

  local function point(set)
    return { offered = 2, load_type = "rate", achieved_rps = 2, values = set.values,
      per_request = { samples = set.samples, deff = set.sample_deff } }
  end

  t.test("ITL intervals: the requests are the units (design effect from the requests' paces), not the gaps",
    function()
    local set = fixc41_set()
    -- fixc41_ref.py: 7530 gaps, the TPOTs' design effect 1.509472, Kish's 1.118159, the gaps' 72.986632
    t.near(set.sample_deff.itl_gaps, 72.986632, 1e-4)
    t.near(set.sample_deff.itl, 1.509472, 1e-4) -- (the ITL test's request-level one, unchanged)
    local lo, hi, info = lp.mean_ci(point(set), "itl_mean_ms")
    -- 20.070673 ms -+, the gaps' design effect from the TPOTs' values' own 1.532067 (fixa45, a
    -- mean's: fixc41_ref.py): 74.079193, 18.578868 to 21.562478 (with the TPOTs' ranks', fixc41:
    -- 18.589910 to 21.551436; the gaps counted, before: 19.857724 to 20.283622)
    t.near(set.sample_deff.itl_gaps_mean, 74.079193, 1e-4)
    t.near(lo, 18.578868, 1e-4)
    t.near(hi, 21.562478, 1e-4)
    t.eq({ info.n, info.mean_deff }, { 7530, "values" })
    -- the p90's: order statistics 6341 and 7213: 29.051674 to 33.178223 ms (main: 30.394460 to 31.300359)
    lo, hi = lp.percentile_ci(point(set), "itl_p90_ms")
    t.near(lo, 29.051674, 1e-4)
    t.near(hi, 33.178223, 1e-4)
  end)

  t.test("ITL gaps without the requests' TPOTs: each request's gaps one unit", function()
    local a = rm.accumulator()
    -- 200 requests of 10 gaps each (1..10 ms), no TPOT recorded: 2000 gaps / 200 requests x 1
    for i = 1, 200 do
      for k = 1, 10 do a.itl:add(k / 1000) end
      a.add_done(i, i + 1, 1, 0.1, nil, 0.1, 10, 11)
    end
    t.near(rm.gap_design_effect(a, 1), 10, 1e-12)
  end)

  t.test("NTPOT mean: an interval from the per-request NTPOTs, none without them (with why)", function()
    local set = fixc41_set()
    t.eq(lp.mean_key("ntpot_mean_ms"), "ntpot")
    -- fixc41_ref.py: 21.811534 ms, the NTPOTs' values' own design effect 1.519428 (fixa45):
    -- 20.438374 to 23.184694 (with their ranks' 1.498186, fixc41: 20.448007 to 23.175062)
    local lo, hi, info = lp.slo_ci(point(set), "ntpot_mean_ms")
    t.near(lo, 20.438374, 1e-4)
    t.near(hi, 23.184694, 1e-4)
    t.near(info.deff, 1.519428, 1e-4)
    -- a summary file's point: no interval, and why
    local p = { offered = 2, load_type = "rate", achieved_rps = 2, values = { ntpot_mean_ms = 21.8 },
      per_request = { samples = {} } }
    local l2, h2, why = lp.slo_ci(p, "ntpot_mean_ms")
    t.eq({ l2, h2 }, { nil, nil })
    t.ok(tostring(why):find("no per-request data", 1, true), tostring(why))
    -- an NTPOT SLO is weighed within that noise: a point without per-request data leaves the
    -- capacity's noise unknown, said why (main: the SLO was not weighed at all, nil)
    local pts = { { offered = 1, load_type = "rate", achieved_rps = 1, values = { ntpot_mean_ms = 10 } },
      { offered = 2, load_type = "rate", achieved_rps = 2, values = { ntpot_mean_ms = 30 } } }
    for i, q in ipairs(pts) do q.index = i end
    local r = lp.capacity_noise(pts, { { key = "ntpot_mean_ms", max = 20 } })
    t.ok(r and r.unknown and r.unknown:find("no per-request data", 1, true), r and r.unknown)
  end)

  t.test("ITL with too few effective units: why counts token gaps, not requests", function()
    local acc = require("llmd.stats").new()
    for k = 1, 1000 do acc:add(k / 1000) end
    -- 1000 gaps at the gaps' design effect 25: 40 effective, fewer than 50
    local p = { values = { itl_p90_ms = 900 }, per_request = { samples = { itl = acc }, deff = { itl_gaps = 25 } } }
    local lo, hi, why = lp.percentile_ci(p, "itl_p90_ms")
    t.eq({ lo, hi }, { nil, nil })
    t.eq(why, "its 1000 token gaps carry about 40 independent ones (design effect 25)")
  end)
end

-- Session 36's new-user trial (finding 2, WRONG-WAY): the same server run twice with
-- another random seed got latency "winners" at Holm-adjusted p = 4.2e-05 ("aa_102 better
-- in TTFT mean -27.7 %"), because the per-request tests took the requests for independent
-- draws where they are not: past saturation a latency is the queue's length, which grows
-- with time, and near it the requests in send order are alike (the queue a burst left).
-- Finding 4: inference-perf sweeps with a per-request file were never tested per load
-- point. The runs are made by tests/data/queue_sim.py (the trial's vsim.py: a FIFO server
-- of 320 slots, each request 0.1 s + 99 x 0.15 s with 10 % lognormal noise, Poisson
-- arrivals for 60 s at 4..24 req/s; seeds 101 and 102 are the trial's own).
--
-- Expected values: /usr/bin/python3 with numpy on the generated files, my own code
-- (mid-ranks by numpy argsort; Geyer's initial positive sequence on the centred ranks;
-- van Elteren over the loads, each stratum's U variance n1 n2 (N + 1) / 12 times the larger
-- of the two sides' design effects; strata left out where min(n) / design effect < 50 or
-- where both runs were overloaded, 24/s: 1440 requests in 85.5 s, 16.8 of 24 req/s).
-- (Formerly test_tests36.lua.)
do
  local decision = require "llmd.decision"
  local lp = require "llmd.loadpoints"

  local have_numpy = t.have_numpy()

  -- one run of the simulated server: seed, ttft0 (seconds) -> its directory (made once)
  local made = {}
  local function sim(seed, ttft0)
    local key = seed .. "/" .. ttft0
    if made[key] then return made[key] end
    local dir = t.tmpdir() .. "/sim_" .. seed .. "_" .. ttft0
    t.data_py("queue_sim.py", dir, "--rates", "4,8,12,16,20,24", "--slots", "320", "--ttft0", ttft0, "--tpot", "0.15",
      "--outtok", "100", "--seed", seed)
    made[key] = dir
    return dir
  end

  local function compare(a, b)
    return t.compare_ab(a, b, { "--slo", "ttft_p90_ms=500" })
  end

  local function runs(a, b)
    local ra, rb, pa, pb = t.extract_pair(a, b)
    return ra, rb, pa, pb, { a = lp.saturation(pa), b = lp.saturation(pb) }
  end

  t.test("design effect: Geyer's initial positive sequence on the ranks; below 100 values, n or 1 by the lag-1 "
    .. "correlation", function()
    -- 99 values in rising order: too few to estimate Geyer's sum from, but not independent
    -- (fixi45; main: 1): python3 (numpy), the lag-1 correlation of 1..99 centred is 0.96970,
    -- above 2 / sqrt(99) = 0.20101: their dependence unmeasured, the bound 99 (every one alike)
    local xs = {}
    for i = 1, 99 do xs[i] = i end
    t.eq(decision.design_effect(xs), 99)
    t.eq(decision.design_effect_lua(xs), 99)
    t.eq(decision.value_design_effect(xs), 99)
    t.ok(decision.deff_unmeasured(99, 99))
    t.ok(decision.dependence_reason(99, 99, 99):find("99 requests are too few (fewer than 100) to measure how many "
      .. "independent ones they carry", 1, true))
    -- fixl45: one side's 85 requests alike (its design effect the bound, 85), the other's 82
    -- independent (1): the reason names the side and says its own count, not min(85, 82) = 82
    -- with the other's design effect (on main: "82 requests are too few ... sqrt(82)")
    local why = decision.dependence_reason(85, 82, 85, 85, 1)
    t.contains(why, "A's 85 requests are too few (fewer than 100) to measure how many independent ones they carry, "
      .. "alike to their neighbours in send order (lag-1 correlation above 2 / sqrt(85))")
    t.contains(decision.dependence_reason(82, 85, 85, 1, 85), "B's 85 requests are too few")
    -- 1200 requests with design effect 30 (40 independent, by hand 1200 / 30) against 3000 with
    -- 2 (1500): A's, below 50, said with its own figures
    t.contains(decision.dependence_reason(1200, 3000, 30, 30, 2), "so A's 1200 requests carry about 40 independent "
      .. "ones (design effect 30), fewer than the 50")
    -- i * 37 mod 101 for i = 1..85: python3, lag-1 correlation -0.40062, not above 2 / sqrt(85):
    -- taken for independent, 1 (ranks and values alike)
    xs = {}
    for i = 1, 85 do xs[i] = i * 37 % 101 end
    t.eq(decision.design_effect(xs), 1)
    t.eq(decision.value_design_effect(xs), 1)
    -- 36 values: python3, the lag-1 correlation of 1..36 centred is 0.91667 (above 2 / 6 =
    -- 0.333: 36); of 1, 36, 2, 35, ... (i odd: (i + 1) / 2, even: 37 - i / 2) -0.95837: 1
    xs = {}
    for i = 1, 36 do xs[i] = i end
    t.eq(decision.design_effect(xs), 36)
    for i = 1, 36 do xs[i] = i % 2 == 1 and (i + 1) // 2 or 37 - i // 2 end
    t.eq(decision.design_effect(xs), 1)
    -- both together (decision.design_effects): 21 values, low and high in turn with three long
    -- ones together in the middle (1, 18, 3, 16, 5, 14, 7, 12, 9, 1000, 1001, 1002, 10, 11, 8,
    -- 13, 6, 15, 4, 17, 2): python3, lag-1 correlation of the ranks -0.332468, of the values
    -- 0.602003, above 2 / sqrt(21) = 0.436436: the values' dependence unmeasured, so both 21
    -- (main: 1 and 1); alone, the ranks' 1
    xs = { 1, 18, 3, 16, 5, 14, 7, 12, 9, 1000, 1001, 1002, 10, 11, 8, 13, 6, 15, 4, 17, 2 }
    t.eq(decision.design_effect(xs), 1)
    t.eq(decision.value_design_effect(xs), 21)
    t.eq({ decision.design_effects(xs) }, { 21, 21 })
    -- 100 values in 10 runs of 10 equal ones (3,1,5,2,6,4,9,7,10,8): python3 (numpy, the code
    -- in the header): rho_1..4 = 0.9373 0.8745 0.8118 0.7491 ..., Geyer's sum 27.148484848
    xs = {}
    for _, v in ipairs { 3, 1, 5, 2, 6, 4, 9, 7, 10, 8 } do for _ = 1, 10 do xs[#xs + 1] = v end end
    t.near(decision.design_effect(xs), 27.148484848, 1e-8)
    -- i * 37 mod 101 for i = 1..100: a permutation whose neighbours differ by 37 or -64, a
    -- negative correlation at lag 1 (python3: rho_1 = -0.4045, so -1 + 2 (1 - 0.4045) = 0.19
    -- below 1; at least 1: no extra evidence from it)
    xs = {}
    for i = 1, 100 do xs[i] = i * 37 % 101 end
    t.eq(decision.design_effect(xs), 1)
    -- the larger side's design effect is the U's; 50 effective requests at the least
    t.eq(decision.u_design_effect(62, 1.3), 62)
    t.eq(decision.u_design_effect(nil, nil), 1)
    t.eq(decision.dependence_reason(1200, 1200, 24), nil) -- 1200 / 24 = 50
    t.ok(decision.dependence_reason(1200, 1200, 24.1):find("carry about 50 independent ones", 1, true))
  end)

  if not have_numpy then
    t.test("A/A and A/B pairs of the simulated server (skipped: no numpy for queue_sim.py)", function() end)
  else

    t.test("A/A, the trial's seeds 101 and 102: no latency winner (main: aa_102 better in TTFT mean -27.7 %)", function()
      local a, b = sim(101, 0.1), sim(102, 0.1)
      local o = compare(a, b)
      for _, r in ipairs(o.json.perf) do
        if decision.sample_kind(r.key) then
          t.ok(r.verdict ~= "A better" and r.verdict ~= "B better", r.key .. ": " .. tostring(r.verdict))
        end
      end
      -- 24/s overloaded in both (16.8 of 24 req/s achieved in the files): left out of the test
      local ev = t.perf_row(o.json, "ttft_mean_ms").evidence
      t.ok(ev:find("not sustained (past saturation, or past a load whose saturation could not be judged, the latency "
        .. "may measure the queue, which grows with time; where failed requests in bursts made up a shortfall, it is "
        .. "that of the requests that outlasted the queue): 24/s in A; 24/s in B", 1, true), ev)
      -- 20/s: aa_101's TTFTs in send order have a design effect of 61.9 (python3, header):
      -- 1200 requests carry 19 independent ones, too few to test
      t.ok(ev:find("too dependent to test", 1, true) and ev:find("fewer than 50 independent requests' worth): 20/s",
        1, true), ev)
      -- the Summary's test at 20/s is not made either, and no test at the sustained loads finds
      -- one lower
      t.ok(not o.md:find("TTFT p90 is %d+ %% lower"), o.md)
      t.ok(not o.md:find("values are lower", 1, true), o.md)
      -- the test itself, at 4, 8, 12 and 16/s: python3 z = 0.34672 (TTFT), 0.32626 (E2E, with
      -- 20/s, design effect 1.31)
      local ra, rb, pa, pb, sat = runs(a, b)
      local r = decision.stratified_mann_whitney(ra, rb, pa, pb, "ttft", sat)
      t.near(r.z, 0.34672, 1e-4)
      t.eq(r.strata, 4)
      r = decision.stratified_mann_whitney(ra, rb, pa, pb, "latency", sat)
      t.near(r.z, 0.32626, 1e-4)
      t.eq(r.strata, 5)
    end)

    t.test("A/A at 85 requests, 89 % busy (fixi45): no latency winner (main: s20002 better in 6 rows, TTFT mean "
      .. "-58.6 %, p 3.4e-06)", function()
      -- queue_sim.py --rates 8.5 --slots 20 --dur 10 (2.1 s a request, 20 slots: 9.52 req/s),
      -- seeds 20001 and 20002: 85 requests each, fewer than decision.DEFF_MIN_N, which main took
      -- for independent. python3 (numpy) on the files, TTFTs in send order: the lag-1
      -- correlation of their mid-ranks 0.72500 (20001) and 0.01769 (20002), of their values
      -- 0.85602 and 0.31311; 2 / sqrt(85) = 0.21693: 20001's dependence is unmeasured, so the
      -- TTFT rows are untested and say why; TPOT (a slot's own pace, no queue) is still tested
      local a, b = t.tmpdir() .. "/s85_20001", t.tmpdir() .. "/s85_20002"
      for _, x in ipairs { { a, "20001" }, { b, "20002" } } do
        t.data_py("queue_sim.py", x[1], "--rates", "8.5", "--slots", "20", "--dur", "10", "--seed", x[2])
      end
      local o = t.compare_ab(a, b)
      for _, r in ipairs(o.json.perf) do
        if decision.sample_kind(r.key) then
          t.ok(r.verdict ~= "A better" and r.verdict ~= "B better", r.key .. ": " .. tostring(r.verdict))
        end
      end
      local row = t.perf_row(o.json, "ttft_mean_ms")
      t.eq(row.verdict, "untested")
      t.ok(row.evidence:find("too dependent to test: A's 85 requests are too few (fewer than 100) to measure how many "
        .. "independent ones they carry, alike to their neighbours in send order (lag-1 correlation above 2 / "
        .. "sqrt(85))", 1, true), row.evidence)
      t.eq(t.perf_row(o.json, "tpot_mean_ms").verdict, "no clear difference")
      -- seeds 20007 and 20008: E2E latency's lag-1 correlations (python3, as above) of the ranks
      -- -0.076 and 0.138, not above 0.217, of the values -0.093 and 0.223: 20008's values'
      -- dependence unmeasured makes its ranks' so too (decision.design_effects); with the
      -- ranks' alone the test named A better in E2E p90 (+8.9 %, p 2.7e-04)
      a, b = t.tmpdir() .. "/s85_20007", t.tmpdir() .. "/s85_20008"
      for _, x in ipairs { { a, "20007" }, { b, "20008" } } do
        t.data_py("queue_sim.py", x[1], "--rates", "8.5", "--slots", "20", "--dur", "10", "--seed", x[2])
      end
      o = t.compare_ab(a, b)
      for _, r in ipairs(o.json.perf) do
        if decision.sample_kind(r.key) then
          t.ok(r.verdict ~= "A better" and r.verdict ~= "B better", r.key .. ": " .. tostring(r.verdict))
        end
      end
      t.eq(t.perf_row(o.json, "latency_p90_ms").verdict, "untested")
    end)

    t.test("below 100 requests a load whose TTFTs' dependence is unmeasured leaves E2E and NTPOT untested too, not "
      .. "TPOT (fixg46; main: E2E p50 and p95 s2034 better, p 2.2e-04, in an A/A pair)", function()
      -- queue_sim.py --rates 7.5,8,8.5 --slots 20 --dur 11, seeds 2034 and 2035: 82 requests at
      -- 7.5 req/s. python3 (numpy) on the files in send order, lag-1 correlations (ranks, values):
      -- 2035's TTFTs 0.4787 and 0.7710, above 2 / sqrt(82) = 0.2209 (unmeasured); its E2E
      -- latencies -0.0767 and -0.0930 (below: each request's random decode time hides its wait);
      -- 2034's all below (-0.10, -0.14). E2E contains the TTFT: its dependence is unmeasured too.
      local a, b = t.tmpdir() .. "/s82_2034", t.tmpdir() .. "/s82_2035"
      for _, x in ipairs { { a, "2034" }, { b, "2035" } } do
        t.data_py("queue_sim.py", x[1], "--rates", "7.5,8,8.5", "--slots", "20", "--dur", "11", "--seed", x[2])
      end
      local o = t.compare_ab(a, b)
      for _, r in ipairs(o.json.perf) do
        if decision.sample_kind(r.key) then
          t.ok(r.verdict ~= "A better" and r.verdict ~= "B better", r.key .. ": " .. tostring(r.verdict))
        end
      end
      -- B's first load: E2E's design effect is the bound, 82, as TTFT's; TPOT's its own
      local st = require("llmd.json").decode(t.read(o.ws .. "/run-b/run_model.json")).stages[1]
      t.eq({ st.latency_deff.ttft, st.latency_deff.latency, st.latency_deff.latency_mean }, { 82, 82, 82 })
      t.ok(st.latency_deff.tpot < 82, tostring(st.latency_deff.tpot))
      -- the rule on its own: 90 requests, TTFT rising 0.01..0.90 s in send order (its lag-1 far above
      -- 2 / sqrt(90)), E2E that plus 5 s or 1 s by turns (lag-1 about -1, hand: every even request
      -- above every odd one), TPOT 0.02 and 0.01 s by turns: E2E's and NTPOT's (E2E / 10) are the
      -- bound, 90, TPOT's its own (1: its lag-1 is negative)
      local runmodel = require "llmd.runmodel"
      local acc = runmodel.accumulator()
      for i = 1, 90 do
        local e2e = i / 100 + (i % 2 == 0 and 5 or 1)
        acc.add_done(i, i + e2e, e2e, i / 100, 0.01 * (2 - i % 2), e2e / 10)
      end
      local d = runmodel.sample_design_effects(acc.seq)
      t.eq({ d.ttft, d.latency, d.ntpot }, { 90, 90, 90 })
      t.eq(d.tpot, 1)
    end)

    t.test("an E2E row left untested for its TTFTs' dependence says it is the TTFTs', with their lag-1 correlation "
      .. "(main: 'alike to their neighbours (lag-1 correlation above 2 / sqrt(82))', E2E's own)", function()
      -- queue_sim.py --rates 7.5 --slots 20 --dur 11, seeds 2034 and 2035: one load each, 82
      -- requests, tested on the whole runs. python3 (numpy) on 2035's files in send order, the
      -- lag-1 correlations (values, ranks): TTFT 0.7710 and 0.4787, E2E latency -0.0930 and
      -- -0.0767; 2 / sqrt(82) = 0.2209 (2034's all below). So E2E is untested for the TTFTs'
      -- dependence (fixg46), not its own: said so, with TTFT's 0.77
      local a, b = t.tmpdir() .. "/one_2034", t.tmpdir() .. "/one_2035"
      for _, x in ipairs { { a, "2034" }, { b, "2035" } } do
        t.data_py("queue_sim.py", x[1], "--rates", "7.5", "--slots", "20", "--dur", "11", "--seed", x[2])
      end
      local o = t.compare_ab(a, b)
      local e2e = t.perf_row(o.json, "latency_p90_ms")
      t.eq(e2e.verdict, "untested")
      t.contains(e2e.evidence, "B's 82 requests are too few (fewer than 100) to measure how many independent ones they "
        .. "carry, their TTFTs (the wait each one's latency contains) alike to their neighbours in send order (TTFT's "
        .. "lag-1 correlation 0.77, above 2 / sqrt(82) = 0.22)")
      -- the TTFT rows keep their own words (their own lag-1 is above the bound)
      local ttft = t.perf_row(o.json, "ttft_p90_ms")
      t.contains(ttft.evidence, "B's 82 requests are too few (fewer than 100) to measure how many independent ones "
        .. "they carry, alike to their neighbours in send order (lag-1 correlation above 2 / sqrt(82))")
      t.lacks(ttft.evidence, "their TTFTs")
      -- the reason on its own: a side named via its TTFTs only where they are given for it
      t.contains(decision.dependence_reason(82, 82, 82, 1, 82, { b = 0.5 }), "B's 82 requests are too few (fewer "
        .. "than 100) to measure how many independent ones they carry, their TTFTs (the wait each one's latency "
        .. "contains) alike to their neighbours in send order (TTFT's lag-1 correlation 0.50, above 2 / sqrt(82) = "
        .. "0.22)")
      t.lacks(decision.dependence_reason(82, 82, 82, 1, 82, { a = 0.5 }), "TTFT")
    end)

    t.test("A/B, TTFT 0.13 s against 0.1 s a request: still found at the loads both sustained", function()
      local a, b = sim(101, 0.1), sim(102, 0.13)
      local ra, rb, pa, pb, sat = runs(a, b)
      -- python3 (header): z = -52.357 over 4..16/s (20/s left out: design effect 61.9)
      local r = decision.stratified_mann_whitney(ra, rb, pa, pb, "ttft", sat)
      t.near(r.z, -52.357, 1e-3)
      t.ok(r.p < 1e-9, r.p)
      local o = compare(a, b)
      -- the whole-run figures pool the overloaded 24/s, so they name no winner, but the row
      -- says what the test found
      local p50 = t.perf_row(o.json, "ttft_p50_ms")
      t.eq(p50.verdict, "not comparable")
      -- (fixi42: of the 5 loads both sustained, 4..20/s, the ones it tested)
      t.ok(p50.note:find("the test finds sim_101_0.1's values lower at 4 of the 5 loads both sustained (1 left out: too "
        .. "dependent to test at 20/s)", 1, true), p50.note)
      -- (each row with its size within the loads tested, fixc39: p99 and p99.9 of the 240 requests
      -- at 4/s have no bound, so they are not shown beyond the 2 % threshold; the sizes and
      -- intervals by tests/data/stratified_effect_ref.py A B 4,8,12,16 mean,50,90,95,99 ttft:
      -- B against A since fixa43: mean 29.85 % (29.05 to 30.65; +29.1 % to +30.6 % rounded with
      -- the values' own design effect since fixj44), p50 29.80 %, p95 29.04 % (27.18 to
      -- 30.93), p99 30.05 %, p99.9 34.61 %, unbounded)
      t.ok(o.md:find("At the loads both runs sustained, sim_101_0.1's values are lower in TTFT mean (+29.8 %, 95 % "
        .. "interval +29.1 % to +30.6 %), TTFT p50 (+29.8 %", 1, true), o.md)
      t.ok(o.md:find("TTFT p95 (+29.0 %, 95 % interval +27.2 % to +30.9 %) (one Mann-Whitney stratified by load point "
        .. "(van Elteren, 4 points) for these 4 rows, at 4 of the 5 loads both sustained (1 left out: too dependent to "
        .. "test at 20/s), p < 1e-9, Holm-adjusted < 1e-9), each beyond the 2.0 % threshold", 1, true), o.md)
      -- and what would settle them (fixb40): the requests a load point each needs for a bound, by
      -- stratified_effect_ref.py's need (n / d >= 50 and the order statistics' ranks inside the
      -- sample at the larger design effect of the points): 383 for p99, 4706 for p99.9
      t.ok(o.md:find("not shown beyond the threshold in TTFT p99 +30.0 %, TTFT p99.9 +34.6 % (their 95 % intervals "
        .. "unbounded: too few independent requests; to settle it: about 383 requests a load point for TTFT p99, 4706 for "
        .. "TTFT p99.9 (240 here at the fewest), or at least 3 repeats of each load point in both runs, more the more they "
        .. "vary (2 give the interval an end, but at about 9 of their standard deviations either side))", 1, true), o.md)
    end)

    t.test("inference-perf sweep with a per-request file: tested per load point (main: untested)", function()
      -- queue_sim_ip.py at 4, 8 and 12 req/s (none near the 320 slots' 21 req/s), TTFT 0.1 s
      -- (seed 1) against 0.13 s (seed 2) a request. python3 on the per-request files (the
      -- requests of stage k the k-th block of 240, 480, 720 in the file, TTFT = the first
      -- token time - start_time; header's code): design effects 1, 1.340, 1.277, z = -39.032;
      -- pooled TTFT p50 99.9 ms against 130.4 ms
      local dir = t.tmpdir()
      for _, x in ipairs { { "1", "0.1", "a" }, { "2", "0.13", "b" } } do
        t.data_py("queue_sim_ip.py", dir .. "/" .. x[3], "--rates", "4,8,12", "--slots", "320", "--ttft0", x[2],
          "--tpot", "0.15", "--outtok", "100", "--seed", x[1])
      end
      local ra, rb, pa, pb, sat = runs(dir .. "/a", dir .. "/b")
      local r = decision.stratified_mann_whitney(ra, rb, pa, pb, "ttft", sat)
      t.near(r.z, -39.032, 1e-3)
      t.eq(r.strata, 3)
      local o = compare(dir .. "/a", dir .. "/b")
      local p50 = t.perf_row(o.json, "ttft_p50_ms")
      t.eq(p50.verdict, "A better")
      t.ok(p50.evidence:find("Mann-Whitney stratified by load point (van Elteren, 3 points), p < 1e-9", 1, true),
        p50.evidence)
    end)
  end
end

-- Session 37: the design effect (session 36: requests in send order near saturation are
-- alike, so a per-request test's variance is inflated by it) in every latency test that
-- takes requests for independent draws. Main missed three:
--  * one-stage inference-perf runs: the C fast lane added their requests without the order
--    the design effect needs, so the same server run twice at 20 req/s (one stage) got "B
--    better in TTFT, p = 5.2e-172" (seeds 105 and 106 below); with --slo (the Lua path) the
--    same files said "too dependent to test";
--  * ITL: its test counted each request as one unit (the gaps declustered), but the
--    requests as independent ones;
--  * analyze.lua on a saved workspace said "no per-request samples" where compare.lua had
--    said "too dependent to test".
-- The runs are made by tests/data/queue_sim_ip.py (a FIFO server of 320 slots, each request
-- 0.1 s + 99 x 0.15 s with 10 % lognormal noise, Poisson arrivals for 60 s; about 21 req/s
-- at most). Expected values: tests/data/deff_ref.py, run here on the same files: numpy only,
-- its own parse of the per-request files, mid-ranks, Geyer's sum and the tie-corrected
-- Mann-Whitney (its header); the A/A verdicts need no number.
-- (Formerly test_tests37.lua.)
do
  local proc = require "llmd.proc"
  local decision = require "llmd.decision"
  local lp = require "llmd.loadpoints"
  local json = require "llmd.json"

  local ROOT, LLMDLUA = t.root()
  local have_numpy = t.have_numpy()

  t.test("ITL's request dependence is counted in requests, not gaps", function()
    -- 100 requests a side (1000 gaps) and a design effect of 3: 100 / 3 = 33 independent
    -- requests' worth, below the 50 a test needs (by hand), whatever the gaps' count
    local stats = require "llmd.stats"
    local xa, xb = stats.new(), stats.new()
    for i = 1, 1000 do
      xa:add(i % 97)
      xb:add(i % 89)
    end
    local r, why = decision.itl_test(xa, xb, 100, 100, 3, 1)
    t.eq(r, nil)
    -- (A's: B's design effect is 1, its 100 requests enough, fixl45)
    t.ok(why and why:find("so A's 100 requests carry about 33 independent ones (design effect 3)", 1, true), why)
    -- no design effect: the declustered test as before (z over the square root of 10 gaps a
    -- request)
    r = decision.itl_test(xa, xb, 100, 100, nil, nil)
    t.near(r.z, r.z_pooled / math.sqrt(10), 1e-12)
    t.eq(r.deff, nil)
  end)

  if not have_numpy then
    t.test("one-stage inference-perf pairs (skipped: no numpy for queue_sim_ip.py)", function() end)
  else

    -- one run: seed, rate, ttft0 -> its directory (made once)
    local made = {}
    local function sim(seed, rate, ttft0)
      local key = ("%d/%s/%s"):format(seed, rate, ttft0)
      if made[key] then return made[key] end
      local dir = ("%s/ip_%d_%s_%s"):format(t.tmpdir(), seed, rate, ttft0)
      t.data_py("queue_sim_ip.py", dir, "--rates", rate, "--slots", "320", "--ttft0", ttft0, "--tpot", "0.15",
        "--outtok", "100", "--seed", seed)
      made[key] = dir
      return dir
    end

    local compare = t.compare_ab

    local function ref(a, b, kind)
      return t.data_json("deff_ref.py", a, b, kind)
    end

    -- the whole-run test of a row, as the report makes it
    local function row_test(a, b, key)
      local ra, rb, pa, pb = t.extract_pair(a, b)
      return decision.row_test(key, ra, rb, pa, pb, nil, nil, { a = lp.saturation(pa), b = lp.saturation(pb) })
    end

    t.test("one-stage inference-perf A/A at 20 req/s, four seed pairs: no latency winner (main: 4 of 4 had one)", function()
      -- main, the same pairs: B better in TTFT (p = 5.2e-172, 3.6e-4, 3.2e-05), A better
      -- (1.4e-05), B better in E2E (1.1e-26); the fast lane (no --slo) is the one tested
      for _, seeds in ipairs { { 105, 106 }, { 107, 108 }, { 111, 112 }, { 115, 116 } } do
        local a, b = sim(seeds[1], 20, 0.1), sim(seeds[2], 20, 0.1)
        local o = compare(a, b)
        for _, r in ipairs(o.json.perf) do
          if decision.sample_kind(r.key) then
            t.ok(r.verdict ~= "A better" and r.verdict ~= "B better",
              ("seeds %d/%d, %s: %s (%s)"):format(seeds[1], seeds[2], r.key, tostring(r.verdict), tostring(r.evidence)))
          end
        end
      end
      -- seeds 105/106: deff_ref.py's TTFT design effects decide: too dependent where either
      -- side has fewer than 50 independent requests' worth, else its z
      local a, b = sim(105, 20, 0.1), sim(106, 20, 0.1)
      local want = ref(a, b, "ttft")
      local d = math.max(want.deff_a, want.deff_b)
      t.ok(math.min(want.n_a, want.n_b) / d < 50, ("deff_ref.py: %s"):format(json.encode(want)))
      local r, why = row_test(a, b, "ttft_p90_ms")
      t.eq(r, nil)
      -- each side below 50 on its own figures named with them (fixl45), the others not
      local named = 0
      for _, x in ipairs { { "A", want.n_a, want.deff_a }, { "B", want.n_b, want.deff_b } } do
        local said = ("%s's %d requests carry about %.0f independent ones (design effect %.3g)"):format(x[1], x[2],
          x[2] / x[3], x[3])
        t.eq(why:find(said, 1, true) ~= nil, x[2] / x[3] < 50, said .. " in " .. why)
        if x[2] / x[3] < 50 then named = named + 1 end
      end
      t.ok(named > 0, why)
    end)

    t.test("one-stage inference-perf at 14 req/s, TTFT 0.13 s against 0.1 s: found, z as deff_ref.py's", function()
      local a, b = sim(7, 14, 0.1), sim(8, 14, 0.13)
      local o = compare(a, b)
      t.eq(t.perf_row(o.json, "ttft_p90_ms").verdict, "A better")
      t.eq(t.perf_row(o.json, "ttft_mean_ms").verdict, "A better")
      -- each kind's z with the design effects of both runs' requests in send order (TTFT
      -- about -31.4, design effects about 1.06 and 1.11); ITL's with the TPOT's
      for _, x in ipairs { { "ttft_p90_ms", "ttft" }, { "latency_p90_ms", "latency" }, { "tpot_p90_ms", "tpot" },
        { "itl_p90_ms", "itl" } } do
        local want = ref(a, b, x[2])
        local r, why = row_test(a, b, x[1])
        t.ok(r, why)
        t.near(r.z, want.z, 1e-6 * math.max(1, math.abs(want.z)), x[1])
        t.near(r.deff, math.max(want.deff_a, want.deff_b), 1e-9, x[1])
      end
    end)

    t.test("NTPOT's test and effect interval are TPOT's (fixi41; main: untested, 'no repeats')", function()
      -- the pair above: NTPOT, (end - start) / output tokens, one value a request as TPOT; its
      -- z, design effect and mean's effect interval as deff_ref.py's (numpy, its own parse)
      local a, b = sim(7, 14, 0.1), sim(8, 14, 0.13)
      local want = ref(a, b, "ntpot")
      local r, why = row_test(a, b, "ntpot_mean_ms")
      t.ok(r, why)
      t.eq(r.test, "mann_whitney")
      t.near(r.z, want.z, 1e-6 * math.max(1, math.abs(want.z)))
      t.near(r.deff, math.max(want.deff_a, want.deff_b), 1e-9)
      local e = r.row_effect
      t.near(e.pct, want.mean_pct, 1e-6)
      t.near(e.lo, want.mean_lo, 1e-6)
      t.near(e.hi, want.mean_hi, 1e-6)
    end)

    t.test("analyze.lua on the saved workspace says why compare.lua did not test (main: 'no per-request samples')",
      function()
        local o = compare(sim(105, 20, 0.1), sim(106, 20, 0.1), { "--slo", "ttft_p90_ms=500" })
        local copy = t.tmpdir() .. "/ws"
        t.copy_tree(o.ws, copy)
        local r = proc.run { LLMDLUA, ROOT .. "/lua/analyze.lua", copy, "--quiet" }
        t.eq(r.code, 0, r.stdout .. r.stderr)
        local again = json.decode(t.read(copy .. "/comparison.json"))
        local before = t.perf_row(o.json, "ttft_p90_ms")
        t.ok(before.evidence:find("too dependent to test", 1, true), before.evidence)
        local after = t.perf_row(again, "ttft_p90_ms")
        t.eq(after.evidence, before.evidence)
        t.eq(after.verdict, "untested")
        -- the Summary's test at the matched load too
        t.ok(o.json.matched_point.reason:find("too dependent to test", 1, true), o.json.matched_point.reason)
        t.eq(again.matched_point.reason, o.json.matched_point.reason)
        t.ok(not t.read(copy .. "/comparison_report.md"):find("no per-request samples", 1, true))
      end)
  end
end

-- Session 31's leftovers in compare.lua's report (task cmpfix3): the stratified test with
-- repeats.
-- Expected values are by hand or python3 (numpy) as each test says.
-- (Formerly test_cmpfix3.lua, then test_compare_fixes.lua.)
do
  local report = require "llmd.report"
  local harness = require "llmd.harness"
  local ROOT = t.here() .. "/../.."
  local EXP7 = t.fixtures() .. "/vllm-benchmark/exp-7_H100"
  local latency_ladder = t.latency_ladder

  local function perf_model(da, db)
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
    -- (the test's name as the evidence words it: stratified, exact, fixq50)
    t.eq({ r.verdict, r.test, r.winner }, { "not shown to differ", "exact_van_elteren", nil })
    t.eq(r.evidence, "Mann-Whitney on the repeats' TTFT mean, stratified by load point (van Elteren, 2 points, exact), "
      .. "p = 0.125: "
      .. "4 and 4 repeats over 2 load points can give no p below 0.125, so this test cannot show a difference; not in "
      .. "the Holm family; not per request, though a run measured loads once where the other repeated them: no load "
      .. "point to test (left out, too dependent to test (in send order neighbouring requests are alike, the queue's "
      .. "doing: fewer than 50 independent requests' worth, or fewer than 100 requests alike to their neighbours, too "
      .. "few to measure how many they carry): 2/s, 10/s)")
    -- (fixo50: each side measured a load once that the other repeated, so the requests' test,
    -- as for single runs, came first; its TTFTs rise in send order, 50 + i ms, too dependent to
    -- test, so the repeats' test, as before, and why)
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
    t.eq({ r.test, r.winner, r.verdict }, { "exact_van_elteren", "a", "A better" }) -- (fixq50: the evidence's name)
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
    t.eq(r.test, r.evidence:find("exact)", 1, true) and "exact_van_elteren" or "van_elteren") -- (fixq50)
    t.ok(r.test == "exact_van_elteren", r.evidence)
    t.ok(r.evidence:find("^Mann%-Whitney on the repeats' TTFT mean, stratified by load point %(van Elteren, 2 "
      .. "points, exact%), p = 0.04"), r.evidence)
  end)
end

-- Defects of the two-run comparison left by session 30 (the lead's cmpfix brief, session 31),
-- each reproduced: every test here fails without its fix. Expected values are worked by
-- hand or by python3 (numpy) on the fixture files, as said beside them.
-- (Formerly test_compare_fixes.lua.)
do
  local proc = require "llmd.proc"
  local report = require "llmd.report"
  local harness = require "llmd.harness"
  local F = t.fixtures()
  local function py(script, ...)
    local r = proc.run { "/usr/bin/python3", "-c", script, ... }
    t.ok(r.ok, r.stderr)
    return r.stdout
  end

  -- Item 6: one run of repeats against one run (mixed repeats), with per-request samples: the
  -- TTFT rows showed the repeats' mean and were tested on the requests pooled over the
  -- repeats. vLLM detailed files written by python3 (the synthetic fixture's fields, 20
  -- requests each, TTFT in ms as listed, no failures, all at 20 req/s):
  --   x: 3 repeats, TTFT 30..49 (step 1), 60..117 (step 3), 62..119 (step 3)
  --   y: 1 run, TTFT 55..102.5 (step 2.5); y3: that run and two more, every TTFT +3 and -2 ms;
  --   y1: the +3 ms one alone
  -- numpy.percentile (linear) p90: x's repeats 47.1, 111.3, 113.3, mean 90.5667; x's 60
  -- requests pooled 110.1; y 97.75. The pooled figure lies above y's, the mean shown below it:
  -- a test of the pooled requests is about a figure on the other side of the one shown.
  local MIX = [==[
import json, os, sys
src, out = sys.argv[1], sys.argv[2]
d = json.load(open(src))
def write(path, ttfts, date):
    n = len(ttfts)
    lats = [x + 300.0 for x in ttfts]
    e = dict(d, date=date, num_prompts=n, completed=n, failed=0, request_rate=20, max_concurrency=None)
    e.update(ttfts=[x / 1000 for x in ttfts], latencies=[x / 1000 for x in lats], output_lens=[32] * n,
             errors=[""] * n, start_times=[100 + i * 0.05 for i in range(n)], input_lens=[256] * n,
             itls=[[(l - x) / 1000 / 31] * 31 for x, l in zip(ttfts, lats)], generated_texts=["x"] * n,
             queue_times=[0.0] * n)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump(e, open(path, "w"))
xs = [[30 + i for i in range(20)], [60 + i * 3 for i in range(20)], [62 + i * 3 for i in range(20)]]
for k, x in enumerate(xs):
    write("%s/x/result_%d.json" % (out, k), x, "2026010%d-101500" % (k + 1))
y = [55 + (7 * i % 20) * 2.5 for i in range(20)]
write(out + "/y/result.json", y, "20260201-101500")
for k, off in enumerate((0, 3, -2)):
    write("%s/y3/result_%d.json" % (out, k), [v + off for v in y], "2026020%d-101500" % (k + 1))
write(out + "/y1/result.json", [v + 3 for v in y], "20260203-101500")
]==]

  -- (y's 20 TTFTs in the order 7i mod 20, not rising: a rising series has neighbours alike
  -- in send order, lag-1 correlation 0.85 above 2 / sqrt(20), which since fixi45 no test
  -- takes for independent; 7i mod 20's is -0.318, python3; the same values, so the same
  -- figures)
  t.test("6: mixed repeats: a row showing one run's repeat mean is not tested on the requests pooled over them",
    function()
    local tmp = t.tmpdir()
    py(MIX, F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json", tmp)
    local function sd(label, dir) return { label = label, state = { label = label }, run = harness.extract(dir), kv = {} } end
    local function row(m, key)
      for _, r in ipairs(m.perf) do if r.key == key then return r end end
    end
    local x = harness.extract(tmp .. "/x")
    t.near(x.overall.values.ttft_p90_ms, 110.1, 1e-9) -- the pooled figure (what was tested)
    for _, order in ipairs { { "x", "y" }, { "y", "x" } } do
      local m = report.build { a = sd(order[1], tmp .. "/" .. order[1]), b = sd(order[2], tmp .. "/" .. order[2]),
        generated = 0, workspace = "/tmp/cmpfix" }
      local r = row(m, "ttft_p90_ms")
      local xt = order[1] == "x" and r.a_text or r.b_text
      local yt = order[1] == "x" and r.b_text or r.a_text
      t.eq({ xt, yt }, { "90.6 ms (mean of 3)", "97.8 ms" })
      -- the figure shown is the mean of the repeats: untested, and why (it was "Mann-Whitney").
      -- (fixo50: a run measured once is tested per request against the other's repeats only
      -- where those repeats do not differ beyond their requests' noise; x's TTFT means 39.5,
      -- 88.5 and 90.5 ms do, by far)
      t.eq({ r.verdict, r.test, r.p_value }, { "untested", nil, nil })
      t.ok(r.note:find("a mean of repeats against one run: no test (the requests pooled over the repeats would "
        .. "test a figure the table does not show; x's repeats at 20/s differ beyond their requests' noise (their TTFT "
        .. "means: Cochran's Q p = ", 1, true), r.note)
      t.ok(r.note:find("so runs of one server differ, and y's single runs cannot be weighed per request)", 1, true),
        r.note)
      for _, key in ipairs { "ttft_mean_ms", "tpot_p90_ms", "itl_p90_ms", "latency_p90_ms" } do
        t.eq(row(m, key).verdict, "untested", key)
      end
    end
    -- repeats on both sides: the repeats' test of the means shown (Welch), never the pooled
    -- requests' Mann-Whitney
    local m = report.build { a = sd("x", tmp .. "/x"), b = sd("y3", tmp .. "/y3"), generated = 0, workspace = "/tmp/c" }
    local r = row(m, "ttft_p90_ms")
    t.eq(r.a_text, "90.6 ms (mean of 3)")
    t.eq(r.test, "welch_log") -- (every repeat's figure above 0: on their logs, fixa51)
    -- one run each: the per-request test, as before (the figures shown are the runs' own)
    m = report.build { a = sd("y", tmp .. "/y"), b = sd("y1", tmp .. "/y1"), generated = 0,
      workspace = "/tmp/c" }
    -- (few requests: the exact test, as the evidence names it, fixq50)
    t.eq(row(m, "ttft_p90_ms").test, "exact_mann_whitney")
    t.ok(row(m, "ttft_p90_ms").evidence:find("^exact Mann%-Whitney"), row(m, "ttft_p90_ms").evidence)
  end)
end

-- fixo50 (audit50 F2): more data must never weaken the evidence. A run measured once
-- against the other's repeats was tested on the repeats, one unit a repeat, and 3 repeats
-- against 1 run at each of 3 loads cap an exact van Elteren at p = 2 (1/4)^3 = 1/32: "not shown
-- to differ", where the same B against one run of A showed its 20 % lower TPOT at p < 1e-9.
do
  local stattest = require "llmd.stattest"
  t.test("means_heterogeneity: Cochran's Q of three means against their standard errors", function()
    -- /usr/bin/python3 + numpy: w = 1 / se^2, mw = sum(w m) / sum(w), Q = sum(w (m - mw)^2)
    -- = 5.327868852459017; with 2 df the chi-square tail is exp(-Q / 2) = 0.06967355630608034
    local h = stattest.means_heterogeneity({ 10, 12, 15 }, { 1, 1.5, 2 })
    t.near(h.q, 5.327868852459017, 1e-12)
    t.eq(h.df, 2)
    t.near(h.p, 0.06967355630608034, 1e-12)
    -- a mean without a standard error is left out; fewer than two left: nil
    t.eq(stattest.means_heterogeneity({ 10, 12 }, { 1, 0 }), nil)
    -- (two means: Q = (m1 - m2)^2 / (se1^2 + se2^2) = 4 / 3.25, by hand)
    t.near(stattest.means_heterogeneity({ 10, 12, 99 }, { 1, 1.5, 0 }).q, 4 / 3.25, 1e-12)
    local ok, err = pcall(stattest.means_heterogeneity, { 0 / 0, 1 }, { 1, 1 })
    t.ok(not ok and tostring(err):find("means_heterogeneity: group 1: mean", 1, true), tostring(err))
  end)

  if t.have_numpy() then
    local function sim(dir, ...)
      t.data_py("queue_sim.py", dir, "--rates", "1,2,3", "--slots", "50", ...)
      return dir
    end
    t.test("a run measured once against repeats: tested per request, as single runs, and says so (audit50 F2)",
      function()
      local tmp = t.tmpdir()
      -- A: 20 ms a token, 3 repeats (seed 51); A1: one run of it (seed 11); B: 16 ms (seed 12), one run
      local a3 = sim(tmp .. "/ra", "--seed", "51", "--repeat", "3")
      local a1 = sim(tmp .. "/va", "--seed", "11")
      local b = sim(tmp .. "/vb", "--seed", "12", "--tpot", "0.016")
      local single = t.compare_ab(a1, b)
      local rep = t.compare_ab(a3, b)
      for _, o in ipairs { single, rep } do
        for _, key in ipairs { "tpot_mean_ms", "tpot_p90_ms", "itl_mean_ms", "latency_p90_ms" } do
          local row = t.perf_row(o.json, key)
          t.eq({ row.verdict, row.winner }, { "B better", "b" }, key .. ": " .. tostring(row.evidence))
          t.ok(row.p_value < 1e-6, key)
          t.eq(row.sig.name, "van_elteren")
          -- the truth is the simulator's: 16 ms against 20 ms a token, -20 %; the row's effect
          -- within the loads (TPOT's; E2E's 0.1 s + 99 tokens, -19.6 %) lies near it
          t.ok(row.effect_pct > -23 and row.effect_pct < -17, key .. " " .. row.effect_pct)
        end
      end
      local row = t.perf_row(rep.json, "tpot_mean_ms")
      t.eq(row.sig.once, { a = {}, b = { "1/s", "2/s", "3/s" } })
      t.eq(t.perf_row(single.json, "tpot_mean_ms").sig.once, nil)
      t.ok(row.evidence:find("per request, as for runs measured once: vb measured 1/s, 2/s, 3/s once where ra "
        .. "repeated them, so how much vb's runs differ is unknown", 1, true), row.evidence)
      t.ok(row.evidence:find("(repeat vb there to firm it up)", 1, true), row.evidence)
      -- the Verdict says what the tests rest on, once
      local verdict = rep.md:match("%*%*Verdict:%*%*[^\n]*")
      local _, n = verdict:gsub("per request: vb measured once where ra repeated, its runs' spread unknown %(repeat "
        .. "vb to firm it up%)", "")
      t.eq(n, 1, verdict)
      t.ok(not single.md:find("firm it up", 1, true))
    end)

    t.test("a run measured once against repeats that differ beyond their noise: on the repeats, and why (fixo50)",
      function()
      local tmp = t.tmpdir()
      -- A's 3 repeats: the 1st and 3rd of a 20 ms server, the 2nd of a 26 ms one (its files dated
      -- the 16th: queue_sim names repeat r's files 202602(15 + r)); B measured once at 16 ms
      local x = sim(tmp .. "/x", "--seed", "61", "--repeat", "3")
      local y = sim(tmp .. "/y", "--seed", "62", "--repeat", "3", "--tpot", "0.026")
      local a = tmp .. "/mix"
      assert(os.execute(("mkdir -p '%s' && cp '%s'/*-20260215-* '%s'/*-20260217-* '%s'/ && cp '%s'/*-20260216-* '%s'/")
        :format(a, x, x, a, y, a)))
      local b = sim(tmp .. "/vb", "--seed", "12", "--tpot", "0.016")
      local o = t.compare_ab(a, b)
      local row = t.perf_row(o.json, "tpot_mean_ms")
      t.eq(row.sig.name, "van_elteren_repeats")
      t.eq(row.sig.once, nil)
      t.ok(row.evidence:find("mix's repeats at %d/s differ beyond their requests' noise %(their TPOT means: Cochran's "
        .. "Q p [<=] "), row.evidence)
      t.ok(row.evidence:find("and vb's single runs cannot be weighed per request", 1, true), row.evidence)
    end)
  end
end

-- Task fixj44: a mean's effect interval reads its values' own design effect, not the ranks'
-- (a queue's long waits come together and move the mean more than the ranks;
-- tests/sim/mean_deff_coverage.py). Each run's latency kinds carry it (<kind>_mean), and
-- run_model.json keeps it.
do
  local rm = require "llmd.runmodel"
  local json = require "llmd.json"
  t.test("sample design effects: a mean's from its values (ten long waits together), kept in run_model.json",
    function()
    -- 200 requests sent 1 s apart, TTFT 0.1 + 0.001 ((37 i) mod 101) s, requests 51-60 5 + 0.5 (i - 51) s more.
    -- /usr/bin/python3 + numpy: the values' Geyer sum on x - x.mean() (mean_deff_coverage.py's value_deff)
    -- 9.117471500286676; the ranks' (tests/data/seqstats.py deff) 1.491669360663841
    local a = rm.accumulator()
    for i = 1, 200 do
      local x = 0.1 + 0.001 * ((37 * i) % 101) + ((i >= 51 and i <= 60) and 5 + 0.5 * (i - 51) or 0)
      a.add_done(i, i + x + 1, x + 1, x, 0.01, 0.01, 100, 101)
    end
    local st = rm.stage(0)
    rm.fill(st.metrics, a, "linear")
    t.near(st.metrics.sample_deff.ttft_mean, 9.117471500286676, 1e-9)
    t.near(st.metrics.sample_deff.ttft, 1.491669360663841, 1e-9)
    -- (every TPOT the same: no dependence to take)
    t.eq(st.metrics.sample_deff.tpot_mean, 1)
    t.eq(st.metrics.sample_deff.itl_mean, st.metrics.sample_deff.tpot_mean)
    local run = rm.new("inference-perf", "/x")
    run.stages[1] = st
    local back = rm.from_plain(json.decode(json.encode(rm.to_plain(run))), "run_model.json")
    t.near(back.stages[1].metrics.sample_deff.ttft_mean, 9.117471500286676, 1e-9)
    t.near(back.stages[1].metrics.sample_deff.ttft, 1.491669360663841, 1e-9)
  end)
end

-- Task fixe45: a percentile's effect interval read the ranks' design effect in send order,
-- which near capacity understates how much a percentile moves between runs: the share of
-- requests at or below it moves with the queue's swings (tests/data/pct_deff_coverage.py,
-- queue_sim.py's server at 7 req/s of 9.5, 600 s a run, 200 pairs: TTFT p90's interval
-- covered the true effect in 68.5 % of A/A pairs and 54.5 % of 20-against-22-slot pairs
-- with the ranks', 86.0 % and 78.5 % with the larger of theirs and the percentile's
-- indicator's). Each latency kind now carries its percentiles' indicator design effects
-- (ttft_p90, ...: llmd.decision.quantile_design_effect), and a percentile's interval reads
-- the larger of the test's and that. Expected values: /usr/bin/python3 with numpy and
-- tests/data/seqstats.py (quantile_deff, deff), the interval by the order statistics at n q
-- -+ z sqrt(n d q (1 - q)) (percentile_ci's rule), as said at each.
do
  local rm = require "llmd.runmodel"
  local json = require "llmd.json"
  local stats = require "llmd.stats"
  local decision = require "llmd.decision"
  t.test("sample design effects: a percentile's from its indicator series (long waits in blocks), kept in "
    .. "run_model.json", function()
    -- 200 requests sent 1 s apart, TTFT 0.1 + 0.001 ((37 j) mod 101) s, requests 1-5, 51-55,
    -- 101-105, 151-155 5 + 0.5 ((j - 1) mod 50) s more (the top 10 % in four blocks).
    -- python3: seqstats.quantile_deff(t, 90) 4.483333333333314 (the ranks' deff 1.838514804847241),
    -- quantile_deff(t, 50) 1.46, quantile_deff(t, 99) 1.0
    local a = rm.accumulator()
    for j = 1, 200 do
      local x = 0.1 + 0.001 * ((37 * j) % 101) + (((j - 1) % 50) < 5 and 5 + 0.5 * ((j - 1) % 50) or 0)
      a.add_done(j, j + x + 1, x + 1, x, 0.01, 0.01, 100, 101)
    end
    local st = rm.stage(0)
    rm.fill(st.metrics, a, "linear")
    local d = st.metrics.sample_deff
    t.near(d.ttft_p90, 4.483333333333314, 1e-9)
    t.near(d.ttft, 1.838514804847241, 1e-9)
    t.near(d.ttft_p50, 1.46, 1e-9)
    t.eq(d.ttft_p99, 1)
    local run = rm.new("inference-perf", "/x")
    run.stages[1] = st
    local back = rm.from_plain(json.decode(json.encode(rm.to_plain(run))), "run_model.json")
    t.near(back.stages[1].metrics.sample_deff.ttft_p90, 4.483333333333314, 1e-9)
  end)

  -- issue 20 (speed46a): the percentiles' design effects in C (stats.quantile_design_effects),
  -- one call a latency kind, no Lua sort or indicator table. Expected values: /usr/bin/python3
  -- with numpy and tests/data/seqstats.py quantile_deff.
  t.test("sample design effects: a percentile's indicator counts every value tied at its rank; 1 below "
    .. "DEFF_MIN_N requests and where all are alike", function()
    -- TTFT 0.1 + 0.01 (floor(j / 4) mod 10) s, j = 1..130: twelve or more of each value, in
    -- runs of 4. p50 at rank 65 and p90 at 117 fall inside runs of twelve ties (0.14 at 59..70,
    -- 0.18 at 107..118): quantile_deff 10.049450549450546 and 3.6855280312907435 (1{x < v}
    -- would give 9.7354 and 6.3487); p95 and up at the largest value, every x <= v: 1
    local function run(n, ttft)
      local a = rm.accumulator()
      for j = 1, n do
        local x = ttft(j)
        a.add_done(j, j + x + 1, x + 1, x, 0.01, 0.01, 100, 101)
      end
      local st = rm.stage(0)
      rm.fill(st.metrics, a, "linear")
      return st.metrics.sample_deff
    end
    local function u(j) return 0.1 + 0.01 * ((j // 4) % 10) end
    local d = run(130, u)
    t.near(d.ttft_p50, 10.049450549450546, 1e-12)
    t.near(d.ttft_p90, 3.6855280312907435, 1e-12)
    t.eq(d.ttft_p95, 1)
    t.eq(d.ttft_p999, 1)
    -- the first 100 (DEFF_MIN_N): 10.632525837122788, 3.7286956521739123; 99: none estimated, 1
    d = run(100, u)
    t.near(d.ttft_p50, 10.632525837122788, 1e-12)
    t.near(d.ttft_p90, 3.7286956521739123, 1e-12)
    d = run(99, u)
    t.eq(d.ttft_p50, 1)
    t.eq(d.ttft_p90, 1)
    -- every TTFT the same: no spread in any indicator, 1
    d = run(150, function() return 0.25 end)
    for _, p in ipairs { "p50", "p90", "p95", "p99", "p999" } do t.eq(d["ttft_" .. p], 1) end
    -- a value that is no number: no percentile's known (none, not 1)
    local q = decision.quantile_design_effects { 1, 2, 0 / 0 }
    t.eq(q.p50, nil)
    t.eq(next(decision.quantile_design_effects {}), nil)
  end)

  t.test("a percentile's effect interval reads the larger of the test's and its indicator's design effect", function()
    -- A: 1000 TTFTs 0.1 + 0.001 ((37 i) mod 1000) s, B 1.2 times each: p90 +20 %. python3
    -- (numpy percentile, order statistics at floor / ceil of n q -+ z sqrt(n d q (1 - q))): at d
    -- = 1 +16.815006722612868 to +23.271832994831044; at d = 4 +13.712333200096861 to
    -- +26.635340202374238 (main read d 1, the test's, and left the indicator's 4 out)
    local xa, xb = stats.new(), stats.new()
    for i = 1, 1000 do
      local x = 0.1 + 0.001 * ((37 * i) % 1000)
      xa:add(x)
      xb:add(1.2 * x)
    end
    local r = decision.samples_effect("ttft_p90_ms", xa, xb, 1, 1, nil, 4)
    t.near(r.pct, 20, 1e-9)
    t.near(r.lo, 13.712333200096861, 1e-9)
    t.near(r.hi, 26.635340202374238, 1e-9)
    -- (the larger of the two: the test's 4 against the indicator's 1 gives the same)
    r = decision.samples_effect("ttft_p90_ms", xa, xb, 4, 1, nil, 1)
    t.near(r.lo, 13.712333200096861, 1e-9)
    -- (none known: the test's)
    r = decision.samples_effect("ttft_p90_ms", xa, xb, 1, 1, nil, nil)
    t.near(r.lo, 16.815006722612868, 1e-9)
    t.near(r.hi, 23.271832994831044, 1e-9)
  end)
end

-- Task fixe45: one rule for a load point's design effect. The Summary's test at the matched
-- load (llmd.report matched_point) read its own: the point's first stage's alone, and a stage
-- with design effects but none of this kind's gave none (1: independent requests), where the
-- tests of the Performance Results read llmd.decision's (its stages' largest, the run's own
-- where its one load point is its one stage). Both now read decision.point_deff_known.
-- Expected values: by hand (the figures set below; 200 / 10 = 20 effective requests, under
-- decision.MIN_EFFECTIVE's 50).
do
  local stats = require "llmd.stats"
  local decision = require "llmd.decision"
  t.test("a load point's design effect: its stages' largest, whichever stage has it", function()
    -- one load point of two repeats (stages 0 and 1 at 10 req/s): the second's TTFT design
    -- effect (6) is the larger; the first stage's alone (report.lua's before fixe45) said 2
    local r = t.run_of { { rate = 10, values = { throughput_req_s = 10 } }, { rate = 10, values = { throughput_req_s = 10 } } }
    r.stages[1].metrics.sample_deff = { ttft = 2, failed = 1.5 }
    r.stages[2].metrics.sample_deff = { ttft = 6, failed = 1 }
    local p = { stages = { 0, 1 } }
    t.eq({ decision.point_deff_known(r, p, "ttft", 1) }, { 6, true })
    t.eq({ decision.point_deff_known(r, p, "failed", 1) }, { 1.5, true })
    -- (no stage has it: 1, not known)
    t.eq({ decision.point_deff_known(r, p, "tpot", 1) }, { 1, false })
  end)

  t.test("the Summary's test at the matched load reads the row's design effect (main: p < 1e-9 at 20 of 200)",
    function()
    -- one load point a run, one stage of 200 TTFTs (x 18-22 ms, y 23.4-28.6 ms: every y above
    -- every x); the run's design effect of TTFT 10 (its one stage is the whole run), the
    -- stage's design effects the failures' alone. With 200 / 10 = 20 effective requests the
    -- rows' test says too dependent; the Summary's said "30 % higher (p < 1e-9)" at d = 1.
    local function one(p90)
      local r = t.run_of { { rate = 10, values = { throughput_req_s = 10, ttft_p90_ms = p90, throughput_tok_s = 100,
        error_rate_pct = 0, requests_ok = 200, requests_failed = 0 } } }
      local acc = stats.new()
      for k = 1, 200 do acc:add(p90 / 1000 * (0.9 + 0.2 * ((k * 37) % 200) / 200)) end
      r.stages[1].metrics.samples, r.stages[1].metrics.sample_deff = { ttft = acc }, { failed = 1 }
      r.overall.samples, r.overall.sample_deff = { ttft = acc }, { ttft = 10, failed = 1 }
      r.overall.values = { ttft_p90_ms = p90, requests_ok = 200, requests_failed = 0 }
      return r
    end
    local m = t.xy_model(one(20), one(26), "ttft_p90_ms=24")
    t.eq(m.matched_point.test, nil)
    -- (each side's own, both below 50: fixl45)
    t.eq(m.matched_point.reason, "its requests are too dependent to test: in send order neighbours are alike (the "
      .. "queue), so A's 200 requests carry about 20 independent ones (design effect 10), fewer than the 50 the "
      .. "estimate needs; B's 200 requests carry about 20 independent ones (design effect 10), fewer than the 50 the "
      .. "estimate needs")
    t.ok(not m.summary:find("p < 1e-9", 1, true), m.summary)
  end)
end
