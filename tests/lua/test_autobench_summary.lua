-- autobench.lua compare's own summary and CSV (not --toolchain-md) on repeated runs: the
-- figure a pick is shown with is the typical one (the mean of its repeats, with its 95 %
-- interval), the rank 1's Evidence carries the test within its framework, the CSV's
-- llmdlua_note carries both, and a candidate left out by --frameworks is N/A (not run) in every
-- scenario it was left out of, never "SLA False" (newuser49 findings 5 and 6).
--
-- Expected values: /usr/bin/python3 + numpy on the rows written here: vllm-1's request
-- throughputs 25.01, 14.0, 14.18 have mean 17.73, sd 6.2153, 95 % t-interval mean -/+
-- 4.302653 (t 0.975 quantile, 2 df) x sd / sqrt(3) = 2.07 to 33.39; vllm-0's 18.5, 17.9, 18.3
-- mean 18.2333. Welch's t on the two: t = -0.1381, df = 2.0094, p = 0.9028 (the t density
-- integrated numerically), the only test of the call: no clear difference.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"

local function row(fw, cid, sc, v, status, reason)
  return json.encode { framework = fw, candidate_id = cid, status = status or "ok",
    workload = { scenario = sc, input_len = 1024, output_len = 256 }, sla = { passed = status == nil },
    metrics = status and {} or { request_throughput = v, output_token_throughput = v * 256, p50_ttft_ms = 100.0,
      p50_tpot_ms = 10.0, success_rate = 1.0 },
    failure_reason = reason, hardware = { gpu_count = 1 }, server_command = not status and ("vllm serve m --n " .. cid)
      or nil } .. "\n"
end

-- three runs of one config with --frameworks vllm (README's mock demo, three times)
local function three_runs(d)
  local v1, v0 = { 25.01, 14.0, 14.18 }, { 18.5, 17.9, 18.3 }
  local files = {}
  for i = 1, 3 do
    files[i] = d .. "/rep" .. i .. ".jsonl"
    local skip = ""
    for _, sc in ipairs { "chat", "summarization" } do
      skip = skip .. row("sglang", "sglang-excluded", sc, nil, "skipped", "user-excluded: not in --frameworks")
    end
    t.write(files[i], skip .. row("vllm", "vllm-0", "chat", v0[i]) .. row("vllm", "vllm-1", "chat", v1[i]))
  end
  return files
end

-- compare of the three runs, with --md and --csv, run once for the tests below: {d, files, r}
local once
local function compared()
  if not once then
    local d = t.tmpdir()
    local f = three_runs(d)
    local r = proc.run { LLMDLUA, "autobench.lua", "compare", f[1], f[2], f[3], "--md", d .. "/s.md", "--csv",
      d .. "/s.csv" }
    once = { d = d, f = f, r = r }
  end
  return once.d, once.f, once.r
end

local TYPICAL = "17.73 (3 repeats, 95 % CI 2.07 to 33.39; range 14.00 to 25.01)"
-- (Welch on the log values and the ratio's interval from the same t and df, audit50b F6, by
-- /usr/bin/python3 + numpy: logs of [25.01, 14.0, 14.18] and [18.5, 17.9, 18.3],
-- Welch's t and df, the t density integrated numerically: p = 0.761671, df = 2.010, the
-- geometric means' ratio 18.23.../17.21... - 1 = +6.87 %, interval -52.94 % to +142.69 %)
local WELCH = "no clear difference (Welch on the log values, p = 0.762; 3 and 3 measurements; vllm vllm-0 +6.9 % "
  .. "against vllm vllm-1 over the repeats, 95 % interval -52.9 % to +142.7 %)"

t.test("autobench compare: a pick's figure with repeats is their mean with its interval, beside the best row",
  function()
    local d, _, r = compared()
    t.eq(r.code, 0, r.stderr)
    local md = t.read(d .. "/s.md")
    t.contains(md, "| Scenario | Rank | Framework | Candidate | SLA | Req/s | Req/s mean of repeats (95 % CI) |")
    -- the column header says what the toolchain's Req/s is: the pick's own row, its best
    t.contains(md, "Req/s and the figures beside it are each pick's own row")
    -- rank 1 across frameworks: the toolchain's best row (25.01) and beside it the mean of 3
    local rank1 = md:match("\n(| chat | 1 | vllm | vllm%-1 [^\n]*)")
    t.ok(rank1, md)
    t.contains(rank1, "| True | 25.01 | " .. TYPICAL .. " |")
    -- its Evidence carries the test within vllm, not only "no other framework measured"
    t.contains(rank1, "| no other framework measured in this scenario; its pick within vllm: vllm vllm-1 ranks "
      .. "above vllm vllm-0 by request throughput")
    t.contains(rank1, WELCH .. " |")
    -- the best command's row too
    local best = md:match("\n(| chat | vllm%-1 | ok [^\n]*)")
    t.ok(best, md)
    t.contains(best, "| True | 25.01 | " .. TYPICAL .. " |")
    -- the CSV: request_throughput stays the row's own figure (the toolchain's column); the
    -- pick's llmdlua_note carries the mean and the evidence (it was empty)
    local csv = t.read(d .. "/s.csv")
    local line = csv:match("\r\n(vllm,chat,vllm%-1,ok,True,25%.01,[^\r]*)\r\n")
    t.ok(line, csv)
    -- (the means of the repeats order vllm-1 below vllm-0, 17.73 vs 18.23: its row is vllm's best
    -- row, which the toolchain's rule picks, not called vllm's pick; what the repeats say first)
    t.ok(line:find('^vllm,chat,vllm%-1,ok,True,25%.01,[^"]*,"no clear winner for chat within vllm: vllm vllm%-1 vs '
      .. "vllm vllm%-0, means 17%.73 vs 18%.23 req/s over 3 repeats, p = 0%.762;"), line)
    t.contains(line, "vllm's best row for chat (the toolchain's rule picks it, its best of 3 repeats); Req/s mean of "
      .. "repeats (95 % CI): " .. TYPICAL)
    t.contains(line, WELCH)
    t.contains(line, "rank 1 in chat: no other framework measured in this scenario")
    -- the other repeats of vllm-1 are rows of their own figures, no note
    t.ok(csv:find("\r\nvllm,chat,vllm%-1,ok,True,14%.0,[^\r]*,\r\n"), csv)
  end)

t.test("autobench compare: a candidate left out by --frameworks is N/A (not run), in every scenario, never False",
  function()
    local d, f, r = compared()
    t.eq(r.code, 0, r.stderr)
    local md = t.read(d .. "/s.md")
    local failed = md:match("## Failed Or SLA%-Failing Candidates(.*)$")
    t.ok(failed, md)
    -- once, with both scenarios it was left out of and the six rows it stands for (three files,
    -- lines 1 and 2 of each, as three_runs writes them: chat then summarization, first)
    t.contains(failed, "| sglang | sglang-excluded | skipped | N/A (skipped by --frameworks) | user-excluded: not in "
      .. "--frameworks |  | chat, summarization | " .. ("%s:1, 2; %s:1, 2; %s:1, 2 |"):format(f[1], f[2], f[3]))
    t.lacks(failed, "| False |")
    -- the CSV: sla_passed empty (a column of True and False otherwise), why in llmdlua_note
    local csv = t.read(d .. "/s.csv")
    local n = 0
    for l in csv:gmatch("[^\r\n]+") do
      if l:find("^sglang,") then
        n = n + 1
        t.ok(l:find("^sglang,[a-z]+,sglang%-excluded,skipped,,"), l)
        t.ok(l:find(",user%-excluded: not in %-%-frameworks,sla_passed: N/A %(skipped by %-%-frameworks%)$"), l)
      end
    end
    t.eq(n, 6, csv)
    for l in csv:gmatch("[^\r\n]+") do
      local cell = l:match("^[^,]*,[^,]*,[^,]*,[^,]*,([^,]*),")
      t.ok(cell == "sla_passed" or cell == "True" or cell == "False" or cell == "", l)
    end
    -- --toolchain-md: the toolchain's own form, byte for byte, keeps its False
    r = proc.run { LLMDLUA, "autobench.lua", "compare", f[1], f[2], f[3], "--md", d .. "/t.md", "--toolchain-md" }
    t.eq(r.code, 0, r.stderr)
    t.contains(t.read(d .. "/t.md"), "| sglang | sglang-excluded | skipped | False | user-excluded: not in --frameworks |")
  end)


-- newuser49: a misspelt --sla key listed the allowed keys, with no "did you mean" as other
-- options give (llmd.opts.closest: max_p50_ttf_ms is one edit from max_p50_ttft_ms)
t.test("autobench compare: a misspelt --sla key gets the key it most likely meant", function()
  local d = t.tmpdir()
  local f = three_runs(d)
  local r = proc.run { LLMDLUA, "autobench.lua", "compare", f[1], "--sla", "max_p50_ttf_ms=300" }
  t.eq(r.code, 2, r.stderr)
  t.eq(r.stdout, "")
  t.contains(r.stderr, "--sla: unknown key 'max_p50_ttf_ms' (did you mean max_p50_ttft_ms?) (allowed: "
    .. "max_p50_ttft_ms, max_p50_tpot_ms, min_success_rate, max_p50_e2e_ms)")
  t.eq(select(2, r.stderr:gsub("\n", "")), 1, "one line")
  -- a deprecated key keeps its own hint, no guess
  r = proc.run { LLMDLUA, "autobench.lua", "compare", f[1], "--sla", "max_ttft_ms=300" }
  t.eq(r.code, 2, r.stderr)
  t.lacks(r.stderr, "did you mean")
end)

-- newuser52 #2: the tables rank single best rows; what the repeats say of each choice stands
-- above them ("What The Repeats Say") and first in the pick's llmdlua_note, and where the means
-- order the choice the other way the best row is never called the pick.
-- Expected values: /usr/bin/python3 + numpy (Welch's t on the logs, the t density integrated
-- numerically, as above): vllm-0 [30.67, 22.0, 22.33] mean 25.00 against vllm-1
-- [29.5, 29.0, 29.31] mean 29.27, p = 0.257472; vllm-0 [31, 20, 20.1, 19.9, 20.2, 20] mean 21.87
-- against vllm-1 [30, 29.8, 30.1, 29.9, 30.2, 30] mean 30.00, p = 0.006117; vllm-0
-- [30.5, 30.1, 30.3] mean 30.30 against vllm-1 [20.2, 20.0, 20.4] mean 20.20, p = 2e-06.
local function repeats(d, v0, v1, sc)
  local files = {}
  for i = 1, #v0 do
    files[i] = d .. "/rep" .. i .. ".jsonl"
    t.write(files[i], row("vllm", "vllm-0", sc, v0[i]) .. row("vllm", "vllm-1", sc, v1[i]))
  end
  return files
end

local function compare_all(d, files)
  local cmd = { LLMDLUA, "autobench.lua", "compare" }
  for _, f in ipairs(files) do cmd[#cmd + 1] = f end
  for _, x in ipairs { "--md", d .. "/s.md", "--csv", d .. "/s.csv" } do cmd[#cmd + 1] = x end
  local r = proc.run(cmd)
  t.eq(r.code, 0, r.stderr)
  return t.read(d .. "/s.md"), t.read(d .. "/s.csv")
end

t.test("autobench compare: repeats that leave the pick open say 'no clear winner' above the tables", function()
  local d = t.tmpdir()
  local md, csv = compare_all(d, repeats(d, { 30.67, 22.0, 22.33 }, { 29.5, 29.0, 29.31 }, "summarization"))
  local line = "- No clear winner for summarization within vllm: vllm vllm-0 vs vllm vllm-1, means 25.00 vs 29.27 "
    .. "req/s over 3 repeats, p = 0.257; the summary's tables rank single best rows (30.67 vs 29.50 req/s), not "
    .. "these means.\n"
  local at, best = md:find(line, 1, true), md:find("## Best Commands By Framework", 1, true)
  t.ok(at and best and at < best, md)
  t.ok(md:find("## What The Repeats Say\n\n" .. line, 1, true), md)
  -- the tables themselves stay the toolchain's: vllm-0 by its best row
  t.ok(md:find("\n| summarization | 1 | vllm | vllm-0 | True | 30.67 |", 1, true), md)
  -- the CSV's note of that row: the reading first, and the row not called vllm's pick
  local note = csv:match("\r\nvllm,summarization,vllm%-0,ok,True,30%.67,[^\r]*")
  t.ok(note, csv)
  t.contains(note, ',"no clear winner for summarization within vllm: vllm vllm-0 vs vllm vllm-1, means 25.00 vs '
    .. "29.27 req/s over 3 repeats, p = 0.257;")
  t.contains(note, "vllm's best row for summarization (the toolchain's rule picks it, its best of 3 repeats)")
  t.lacks(note, "vllm's pick for summarization")
end)

t.test("autobench compare: repeats that clearly favour the other candidate name it, not the best row's", function()
  local d = t.tmpdir()
  local md, csv = compare_all(d, repeats(d, { 31, 20, 20.1, 19.9, 20.2, 20 }, { 30, 29.8, 30.1, 29.9, 30.2, 30 },
    "chat"))
  t.contains(md, "## What The Repeats Say\n\n- Chat within vllm: the repeats favour vllm vllm-1, not vllm vllm-0 the "
    .. "tables show: means 30.00 vs 21.87 req/s over 6 repeats, p = 0.00612 (a clear difference); the summary's "
    .. "tables rank single best rows (31.00 vs 30.20 req/s), not these means.\n\n## Best Commands")
  local note = csv:match("\r\nvllm,chat,vllm%-0,ok,True,31,[^\r]*") or csv:match("\r\nvllm,chat,vllm%-0,ok,True,31%.0,[^\r]*")
  t.ok(note, csv)
  t.lacks(note, "vllm's pick for chat")
  t.contains(note, "vllm's best row for chat (the toolchain's rule picks it, its best of 6 repeats)")
end)

t.test("autobench compare: repeats that carry the pick say so; without repeats nothing is added", function()
  local d = t.tmpdir()
  local md, csv = compare_all(d, repeats(d, { 30.5, 30.1, 30.3 }, { 20.2, 20.0, 20.4 }, "chat"))
  t.contains(md, "## What The Repeats Say\n\n- Chat within vllm: the repeats carry vllm vllm-0 over vllm vllm-1, means "
    .. "30.30 vs 20.20 req/s over 3 repeats, p = 2.")
  t.contains(csv, "vllm's pick for chat (by the toolchain's rule, its best of 3 repeats)")
  -- one results file: single measurements, no such section (the Evidence column says untested)
  local d2 = t.tmpdir()
  local md2 = compare_all(d2, repeats(d2, { 30.5 }, { 20.2 }, "chat"))
  t.lacks(md2, "What The Repeats Say")
end)
