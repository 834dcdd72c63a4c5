-- Session 41 (fixg41): a new user's findings on data checks and texts.
-- (2. below: a run and its benchmark reports; 3. and 4.: README's simulated pair.)
-- 1. A vLLM file whose request_throughput disagrees with its own completed / duration (vLLM
--    writes the one as the other) is a data check naming both figures and the one used
--    (completed / duration, the figures its saturation is judged by), and the throughput the
--    report shows is that one, so that the max sustained text ("kept up") matches it.
-- Expected values: /usr/bin/python3 on the fixture files, as said beside each.
local t = require "testlib"
local report = require "llmd.report"
local decision = require "llmd.decision"
local harness = require "llmd.harness"

local ROOT = t.here() .. "/../.."
local SAT = ROOT .. "/tests/fixtures/saturating-repeats"

local function sd(label, dir)
  return { label = label, state = { label = label }, run = harness.extract(dir, {}), kv = {} }
end

t.test("a vLLM file's request_throughput against its own completed / duration is a data check", function()
  local run = harness.extract(SAT .. "/x", {})
  -- python3: completed / duration of the three files, 250 / 47.003815454023425 = 5.318717163387223,
  -- 5.363343661860013, 5.310017487097344; request_throughput 4.946406961950117 (7.0 % below)
  local want = { 5.318717163387223, 5.363343661860013, 5.310017487097344 }
  for i, st in ipairs(run.stages) do
    t.near(st.achieved_rate, want[i], 1e-9, "stage " .. i)
  end
  local req, tok = {}, {}
  for _, c in ipairs(run.checks) do
    if c.key == "throughput_req_s" then req[#req + 1] = c end
    if c.key == "throughput_tok_s" then tok[#tok + 1] = c end
  end
  t.eq({ #req, #tok }, { 3, 3 })
  t.near(req[1].reported, 4.946406961950117, 1e-12)
  t.near(req[1].computed, 5.318717163387223, 1e-9)
  t.near(req[1].apart_pct, 7.0, 1e-6)
  -- (either figure may be the altered one: the verdicts that read it say it is in doubt)
  t.eq(req[1].resolved, false)
  t.contains(req[1].text, "benchmark_2025-05-13_05-00-45.json: request_throughput is 4.946 req/s, but completed / "
    .. "duration = 250 / 47.00 s = 5.319 req/s (7.0 % apart)")
  t.contains(req[1].text, "the report uses completed / duration")
  -- python3: total_output_tokens / duration = 50000 / 47.003815454023425 = 1063.7434326774446
  t.near(tok[1].computed, 1063.7434326774446, 1e-6)
  t.eq(run.status, "warnings")
end)

t.test("the max sustained text and figure of a file that disagrees with itself read the same rate", function()
  local m = report.build { a = sd("x", SAT .. "/x"), b = sd("y", SAT .. "/y"),
    slo = decision.parse_slo("ttft_p99_ms=2000,error_rate_pct=1"), generated = 0 }
  -- python3: the means of completed / duration, x 5.3306927707815275, y 5.345922454848432 req/s
  -- (96.9 % and 97.2 % of the 5.5 offered: kept up, as the text says)
  local row = t.headline_row(m, "Max sustained throughput")
  t.contains(row.a_text, "5.33 req/s")
  t.contains(row.b_text, "5.35 req/s")
  local text = m.saturation.a.reason or ""
  -- (it said the achieved rate "was below 95 % of the offered at load point 1 (90.1 %)" beside "kept up")
  t.lacks(text, "90.1 %")
  t.contains(text, "kept up")
  -- (the Data checks said "No data check could run")
  t.contains(table.concat(m.a.warnings, "\n"), "request_throughput is 4.946 req/s")
end)

-- 2. extract.lua --br of inference-perf's stage files keeps request_latency's min (the
--    drain-reduced rate needs it), and such reports compared with their results are the same
--    results, read two ways.
local VLLM = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"

t.test("benchmark reports of inference-perf stage files keep the least latency the drain-reduced rate needs", function()
  local br = require "llmd.br"
  local src = harness.extract(VLLM, {})
  local dir = t.tmpdir() .. "/br1"
  br.write(dir, src, { version = "0.2" })
  local text = t.read(dir .. "/benchmark_report_v0.2,_stage_3_lifecycle_metrics.json.yaml")
  -- python3: stage_3's successes.latency.request_latency min 0.5619798880070448 s, max
  -- 1.5111624980345368 s (written in ms)
  t.contains(text, "min: 561.9798880070448")
  t.contains(text, "max: 1511.1624980345368")
  local back = harness.extract(dir, {})
  local st
  for _, x in ipairs(back.stages) do if x.index == 3 then st = x end end
  t.eq(st.drain.least_kind, "min")
  -- python3: completed / (window - min), window = 5531 / requests_per_sec = 60.542504094075404 s:
  -- 5531 / (60.542504094075404 - 0.5619798880070448) = 92.21326544259206 req/s (it was N/A)
  t.near(require("llmd.loadpoints").drain_rates(st.drain), 92.21326544259206, 1e-9)
  -- the same results (a rate the reader computes again differs in a double's last bit only)
  local rm = require "llmd.runmodel"
  t.eq(rm.same_figures(src, back), true)
  local two = rm.throughput_bases_differ(src, back)
  t.ok(two and two.b:find("latency statistics alone", 1, true), two and two.b)
  t.contains(br.cannot_carry(src) or "", "7 of 7 load points' saturation is judged by their send span")
end)

t.test("compare.lua warns that a run and its benchmark reports hold the same results, read two ways", function()
  local dir = t.tmpdir() .. "/br1"
  require("llmd.br").write(dir, harness.extract(VLLM, {}), { version = "0.2" })
  local r = t.compare_ab(VLLM, dir)
  -- (main said nothing: stage 4's output tok/s differed in a double's last bit)
  t.contains(r.md, "hold the same results (the files differ, but every figure their harness recorded at every load "
    .. "point is equal to the last digit: the same requests, saved twice), read two ways")
  t.contains(r.md, "br1's the drain-reduced rate from latency statistics alone")
  -- the rate at the highest load both sustained is the same, 92.21 req/s (python3, above)
  t.contains(r.md, "(92.21 req/s achieved by both)")
end)

-- 3. and 4.: README's simulated pair of one server, queue_sim.py --slots 24, seeds 12 and 14
-- (an A/A pair): their max sustained throughputs are 11.4794 and 11.4765 req/s, both "11.48".
local sims
local function sim_pair()
  if sims then return sims end
  local base = t.tmpdir()
  for _, x in ipairs { { "sim-b", 12 }, { "sim-b2", 14 } } do
    t.data_py("queue_sim.py", base .. "/" .. x[1], "--rates", "6,8,10,11,12,13", "--slots", 24, "--seed", x[2])
  end
  sims = { sd("sim-b", base .. "/sim-b"), sd("sim-b2", base .. "/sim-b2") }
  return sims
end

if not t.have_numpy() then
  t.test("queue_sim.py pairs (skipped: no numpy for queue_sim.py)", function() end)
  return
end

t.test("one run put above another by figures that read the same shows the decimals that tell them apart", function()
  local p = sim_pair()
  local m = report.build { a = p[1], b = p[2], generated = 0 }
  local row = t.headline_row(m, "Max sustained throughput")
  for _, text in ipairs { row.evidence, m.verdict.text } do
    local hi, x, lo, y = text:match("the measured loads put ([%w%-]+) above %(%1 sustained ([%d.,]+) req/s, "
      .. "([%w%-]+) never achieved more than ([%d.,]+) req/s")
    t.ok(hi and lo, text)
    -- (it read "sim-b sustained 11.48 req/s, sim-b2 never achieved more than 11.48 req/s")
    t.ok(x ~= y and tonumber(x) > tonumber(y), ("%s above %s: %s against %s"):format(hi, lo, x, y))
  end
end)

t.test("a capacity cell widened by each load's own 95 % interval is not called 'no interval' beside it", function()
  local p = sim_pair()
  local m = report.build { a = p[1], b = p[2], slo = decision.parse_slo("ttft_p90_ms=500"), generated = 0 }
  local row = t.headline_row(m, "Capacity at SLO (TTFT p90 ≤ 500.0 ms and Error rate ≤ 5 % by default)")
  t.contains(row.a_text, "with each load's 95 % interval")
  t.lacks(row.evidence, "no interval")
  t.contains(row.evidence, "one run per load, no repeats (the spans beside the figures are from each load's own "
    .. "95 % interval)")
end)
