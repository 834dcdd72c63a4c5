-- Session 37 (fixd37): a throughput "winner" from the load generator, not the server. Two runs
-- that both kept up with every load they were sent have as their throughput the rate each was
-- sent (a server that keeps up answers what it gets): their throughput rows name no winner.
-- Where one saturated, the throughput is the server's, and the order stands.
-- Expected values from tests/sim/fixd37_sim.py (numpy, on the same requests; its output
-- lines quoted beside each value) or by hand.
local t = require "testlib"
local json = require "llmd.json"

-- A vLLM detailed run of 3 repeats of one load point, 4 req/s offered, 240 requests a
-- repeat, one file a repeat. reps: {rate, L, gap} a repeat: request k sent at
-- 100 + (k - 1) / rate, answered L s later, or, with gap, 2 + (k - 1) (gap - 1 / rate) s later
-- (a server answering every gap s from its first answer); TTFT 0.1 s, 64 output tokens.
local function repeats(reps)
  local n = 240
  local src = t.latency_ladder { { 4, t.spread(0.1, 0.1, n) } }
  local d0 = json.read(src .. "/benchmark_01.json")
  local dir = t.tmpdir() .. "/r"
  t.mkdir(dir)
  for i, rp in ipairs(reps) do
    local r, L, gap = rp[1], rp[2], rp[3]
    local d = json.decode(json.encode(d0))
    local last = 0
    for k = 1, n do
      local lat = gap and 2 + (k - 1) * (gap - 1 / r) or L
      d.start_times[k], d.ttfts[k], d.latencies[k] = 100 + (k - 1) / r, 0.1, lat
      last = math.max(last, (k - 1) / r + lat)
      local g = {}
      for j = 1, 63 do g[j] = (lat - 0.1) / 63 end
      d.itls[k] = g
    end
    for k in pairs(d) do if type(k) == "string" and k:match("_ms$") then d[k] = nil end end
    d.total_output_tokens, d.total_input_tokens = 64 * n, 256 * n
    d.duration = last
    d.request_throughput = n / d.duration
    d.output_throughput = 64 * n / d.duration
    d.total_token_throughput = (64 + 256) * n / d.duration
    t.write(("%s/r4_%d.json"):format(dir, i), t.vllm_text(d))
  end
  return dir
end

local function rows_of(ws)
  local cmp = json.read(ws .. "/comparison.json")
  local rows = {}
  for _, x in ipairs(cmp.perf) do rows[x.key] = x end
  return cmp, rows
end

t.test("both runs kept up with what they were sent: the throughput rows name no winner, in every output", function()
  -- audit37 #1's gA / gB2: A sends at 4.00, 3.98, 4.02 req/s, answers in 2 s; B at 4.14,
  -- 4.12, 4.16, answers in 11 s. sim "case 1": short sent mean 4.000000, pace 4.000000
  -- (256 tok/s), kept up; long sent mean 4.140000, pace 4.140000 (264.96 tok/s), kept up;
  -- Welch t 8.573214, p 0.00102: main named "long better" in both throughput rows, a
  -- difference of the clients' send rates.
  local a = repeats { { 4.00, 2 }, { 3.98, 2 }, { 4.02, 2 } }
  local b = repeats { { 4.14, 11 }, { 4.12, 11 }, { 4.16, 11 } }
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "short", "--b-label", "long" }
  t.eq(r.code, 0, r.stderr)
  local cmp, rows = rows_of(ws)
  local sends = "both runs kept up with what they were sent (short 4.000, long 4.140 req/s sent), and a server that "
    .. "keeps up answers what it gets: the throughput follows the sends"
  for _, key in ipairs { "throughput_req_s", "throughput_tok_s" } do
    local x = rows[key]
    t.eq({ x.verdict, x.winner, x.p_value, x.test_id, x.follows_sends }, { "not comparable", nil, nil, nil, true }, key)
    t.eq(x.verdict_text, "no winner: both kept up", key)
    t.ok(x.note:find(sends, 1, true), x.note)
    t.ok(x.evidence:find("no test: both runs kept up with what they were sent", 1, true), x.evidence)
  end
  -- the figures shown stay the throughput as defined (sim: 4.0 and 4.14 req/s, 256 and 264.96 tok/s)
  t.near(rows.throughput_req_s.a, 4.0, 1e-9)
  t.near(rows.throughput_req_s.b, 4.14, 1e-9)
  t.near(rows.throughput_tok_s.a, 256, 1e-9)
  t.near(rows.throughput_tok_s.b, 264.96, 1e-9)
  -- nothing of them in the Holm family
  for _, x in ipairs(cmp.family.tests) do t.ok(not x.id:find("throughput", 1, true), x.id) end
  local md = t.read(ws .. "/comparison_report.md")
  t.ok(md:find("| Request throughput | 4.000 req/s (mean of 3; harness 3.887) | 4.140 req/s (mean of 3; harness "
    .. "3.492) | +0.140 req/s | +3.5 % | no winner: both kept up | no test:", 1, true), md)
  t.ok(md:find("| Output token throughput | 256.0 tok/s (mean of 3; harness 248.7) | 265.0 tok/s (mean of 3; "
    .. "harness 223.5) | +9.0 tok/s | +3.5 % | no winner: both kept up | no test:", 1, true), md)
  -- the Summary says it, and lists no throughput among either run's wins (short is better in
  -- the latencies: 2 s against 11 s)
  t.ok(md:find("Request throughput and output token throughput name no winner: " .. sends, 1, true), md)
  t.ok(md:find("- Not compared — Request throughput and output token throughput: " .. sends, 1, true), md)
  t.ok(not md:find("long better", 1, true), md)
  t.ok(not md:find("long is better", 1, true), md)
  t.ok(not md:find("better in request throughput", 1, true) and not md:find("- request throughput", 1, true), md)
  local html = t.read(ws .. "/comparison_report.html")
  t.ok(html:find("<td>no winner: both kept up</td>", 1, true), html)
  t.ok(html:find("Request throughput and output token throughput name no winner: " .. sends, 1, true), html)
  local csv = t.read(ws .. "/comparison.csv")
  for _, key in ipairs { "throughput_req_s", "throughput_tok_s" } do
    local c = t.csv_row(csv, key)
    t.eq({ c[7], c[8], c[9] }, { "not comparable", "", "" }, key)
    t.ok(c[11]:find(sends, 1, true), c[11])
  end
  -- swapped, the same: no winner either way
  ws, r = t.compare { "--a", b, "--b", a, "--a-label", "long", "--b-label", "short" }
  t.eq(r.code, 0, r.stderr)
  rows = select(2, rows_of(ws))
  t.eq({ rows.throughput_req_s.verdict, rows.throughput_tok_s.verdict }, { "not comparable", "not comparable" })
  t.ok(rows.throughput_req_s.note:find("(long 4.140, short 4.000 req/s sent)", 1, true), rows.throughput_req_s.note)
end)

t.test("one run saturated at the load the other kept up with: the throughput is the server's, and the order stands",
  function()
  -- A as above; B sent at 4 req/s, its server answering every 1 / 3.00, 1 / 3.02, 1 / 2.98 s.
  -- sim "case 2": kept pace mean 4.000000 (256 tok/s), kept up; sat sent 4.000000, pace
  -- 3.000000 (192 tok/s), kept up False; Welch t -61.237244, p 4.26e-07; change -25.0000 %.
  local a = repeats { { 4.00, 2 }, { 3.98, 2 }, { 4.02, 2 } }
  local b = repeats { { 4.0, 2, 1 / 3.00 }, { 4.0, 2, 1 / 3.02 }, { 4.0, 2, 1 / 2.98 } }
  local ws, r = t.compare { "--a", a, "--b", b, "--a-label", "kept", "--b-label", "sat" }
  t.eq(r.code, 0, r.stderr)
  local cmp, rows = rows_of(ws)
  t.eq({ cmp.saturation.a.point, cmp.saturation.b.point }, { nil, 1 }, cmp.saturation.b.reason)
  local rq, tk = rows.throughput_req_s, rows.throughput_tok_s
  t.near(rq.a, 4.0, 1e-9)
  t.near(rq.b, 3.0, 1e-9)
  t.near(tk.b, 192, 1e-9)
  t.near(rq.pct, -25, 1e-7)
  t.eq({ rq.verdict, rq.winner, rq.follows_sends, tk.verdict, tk.winner }, { "A better", "a", nil, "A better", "a" })
  t.near(rq.sig.t, -61.237244, 1e-5)
  t.ok(rq.p_value < 0.05, rq.p_value)
  local md = t.read(ws .. "/comparison_report.md")
  t.ok(md:find("kept is better in request throughput (sat -25.0 % vs kept", 1, true)
    or md:find("- request throughput (sat -25.0 % vs kept", 1, true), md)
  t.ok(not md:find("no winner: both kept up", 1, true), md)
end)

-- Hand-made run models (no per-request data: kept up by the achieved rate against the
-- offered), through llmd.report.build. stages: {offered, achieved}, 10 output tokens a
-- request; overall: the whole-run request rate.
local function synthetic(stages, overall)
  local list = {}
  for i, st in ipairs(stages) do
    list[i] = { rate = st[1], values = { throughput_req_s = st[2], throughput_tok_s = 10 * st[2], ttft_p90_ms = 100,
      error_rate_pct = 0 } }
  end
  local run = t.run_of(list)
  run.overall.values.throughput_req_s, run.overall.values.throughput_tok_s = overall, overall and 10 * overall
  return run
end
local function build(ra, rb)
  local report = require "llmd.report"
  local function sd(x, label, run) return { x = x, label = label, state = { label = label }, run = run, kv = {} } end
  return report.build { a = sd("a", "x", ra), b = sd("b", "y", rb), generated = 0 }
end
local function perf(m)
  local rows = {}
  for _, r in ipairs(m.perf) do rows[r.key] = r end
  return rows
end

t.test("runs that kept up at every load point, with no send rates in their files: no winner either, and why", function()
  -- 3 repeats at 10 req/s offered: x achieved 10.0, 9.9, 10.1, y 10.4, 10.3, 10.5 (by hand
  -- 99-101 % and 103-105 % of the offered: both kept up). Main: Welch on the repeats, t =
  -- 0.4 / sqrt(2 x 0.01 / 3) = 4.899 (numpy: (10.4 - 10) / np.sqrt(0.01 / 3 + 0.01 / 3)),
  -- "y better" (p 0.008, +3.9 %).
  local m = build(synthetic { { 10, 10.0 }, { 10, 9.9 }, { 10, 10.1 } },
    synthetic { { 10, 10.4 }, { 10, 10.3 }, { 10, 10.5 } })
  local rows = perf(m)
  for _, key in ipairs { "throughput_req_s", "throughput_tok_s" } do
    local x = rows[key]
    t.eq({ x.verdict, x.follows_sends, x.winner, x.p_value }, { "not comparable", true, nil, nil }, key)
    t.ok(x.note:find("both runs kept up with what they were sent (x 10 req/s offered, its send rate unknown; y 10 "
      .. "req/s offered, its send rate unknown), and a server that keeps up answers what it gets", 1, true), x.note)
  end
  t.near(rows.throughput_req_s.sig.t, 4.898979485566356, 1e-9)
  -- several load points, 10 and 20 req/s offered, each kept up (x 10 and 20, y 10.3 and 20.5
  -- achieved); whole-run rates 15 and 15.4. Main: "untested" (one figure a run), counted
  -- among the untested metrics.
  m = build(synthetic({ { 10, 10 }, { 20, 20 } }, 15), synthetic({ { 10, 10.3 }, { 20, 20.5 } }, 15.4))
  rows = perf(m)
  for _, key in ipairs { "throughput_req_s", "throughput_tok_s" } do
    local x = rows[key]
    t.eq({ x.verdict, x.follows_sends }, { "not comparable", true }, key .. ": " .. tostring(x.note))
    t.ok(x.note:find("both runs kept up with what they were sent at every load point, and a server", 1, true), x.note)
  end
  local s = m.summary
  t.ok(s:find("Request throughput and output token throughput name no winner: both runs kept up with what they "
    .. "were sent at every load point", 1, true), s)
  -- y saturated at 20 req/s offered (15 achieved, 75 %): the order is the server's, as before
  m = build(synthetic({ { 10, 10 }, { 20, 20 } }, 15), synthetic({ { 10, 10.3 }, { 20, 15 } }, 12.7))
  rows = perf(m)
  t.eq({ rows.throughput_req_s.follows_sends, rows.throughput_req_s.verdict }, { nil, "untested" })
end)
