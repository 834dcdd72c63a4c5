-- Session 34's decision-layer fixes (decfix5): max sustained throughput where failed
-- requests, not overload, cut the successful rate; single load points drawn with their
-- repeats' intervals; "1=" ranks and per-GPU ranking in every place they are printed.
-- Expected figures come from python3 on the fixture files or by hand, as written beside them.
local t = require "testlib"
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
  return d
end

-- text as the HTML report escapes it
local function html_text(s)
  return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub("'", "&#39;"))
end

-- The text of a Headline row's B cell in the Markdown report.
local function md_cell(ws, label, col)
  local line = t.read(ws .. "/comparison_report.md"):match("\n| " .. label:gsub("%p", "%%%0") .. " |([^\n]*)")
  local cells = {}
  for c in line:gmatch("%s*([^|]-)%s*|") do cells[#cells + 1] = c end
  return cells[col]
end

t.test("max sustained: failed requests within the error-rate limit are sustained, said beside the figure, alike "
  .. "in md, html, csv, json and treatments.lua", function()
  local errs = errs_run()
  -- python3 on the files: the repeats succeeded at 200 / 57.4217 = 3.4830, 180 / 57.1308 =
  -- 3.1507 and 200 / 57.6225 = 3.4709 req/s, mean 3.3682 (93.6 % of 3.6 offered, below the
  -- 95 % share); 20 of 600 failed = 3.333 %, so 3.3682 / (1 - 1/30) = 3.4843 req/s were
  -- answered (96.8 %): failed requests, not overload, and 3.333 % is within the 5 % a load
  -- may fail without an error-rate SLO. It read "N/A (3.333 % of requests failed at the
  -- lowest load)".
  local want = "≥ 3.37 req/s (never saturated; 3.333 % of the requests failed at load point 1, within 5 %, the "
    .. "error-rate limit used when no error-rate SLO is given)"
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
  t.ok(md:find("≥ 3.368 req/s (never saturated; 3.333 % of the requests failed at load point 1, within 5 %, the "
    .. "error-rate limit used when no error-rate SLO is given)", 1, true), md)
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
  local want = "N/A (3.333 % of requests failed at the lowest load, 0, 10 and 0 % in its 3 repeats, more than the "
    .. "error-rate SLO's 1 %, so no load was sustained within it; failed requests, not overload)"
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
      t.eq(x.max_sustained_why, "3.333 % of requests failed at the lowest load, 0, 10 and 0 % in its 3 repeats, more "
        .. "than the error-rate SLO's 1 %, so no load was sustained within it; failed requests, not overload")
    end
  end
end)
