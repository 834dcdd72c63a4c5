-- analyze.lua's SLO (newuser54 #2): an `analyze.lua W --slo X` holds for its own report only;
-- a plain `analyze.lua W` applies the comparison's own SLO again (the one compare.lua applied:
-- its --slo, the plan's slo:, the runs' info files or records, kept in comparison.json as
-- comparison_slo) and says that it went back. Before, the --slo silently stuck: a plain run
-- still applied X and no longer said what it had replaced. The --slo warning names the SLO's
-- real source (a plan's run records slo_by: plan), not "the run's info file". The SLOs are
-- the inputs here: each assertion checks which one a report applied, by comparison.json.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local KC_A = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local KC_B = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

local function slo_of(w)
  local out = {}
  for _, s in ipairs(json.read(w .. "/comparison.json").slo) do out[#out + 1] = s.key .. "=" .. tostring(s.max) end
  return table.concat(out, ",")
end

local function analyze(w, ...)
  local r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet", ... }
  t.eq(r.code, 0, r.stderr)
  return r
end

t.test("analyze.lua --slo holds for its own report; a plain analyze.lua goes back to the comparison's and says so",
  function()
    local w, r = t.compare { "--a", KC_A, "--b", KC_B, "--slo", "ttft_p90_ms=200" }
    t.eq(r.code, 0, r.stderr)
    t.eq(slo_of(w), "ttft_p90_ms=200")
    t.eq(json.read(w .. "/comparison.json").comparison_slo_by, "compare.lua's --slo")
    analyze(w, "--slo", "ttft_p90_ms=150")
    t.eq(slo_of(w), "ttft_p90_ms=150")
    r = analyze(w)
    t.eq(slo_of(w), "ttft_p90_ms=200", "the comparison's own SLO again")
    t.contains(r.stderr, "analyze.lua: note: the last report applied TTFT p90 ≤ 150.0 ms (an analyze.lua --slo, "
      .. "which holds for its own report only); this one applies the comparison's own SLO again, TTFT p90 ≤ 200.0 ms "
      .. "(compare.lua's --slo); to apply another, give --slo\n")
    -- once back, nothing more to say
    r = analyze(w)
    t.eq(slo_of(w), "ttft_p90_ms=200")
    t.lacks(r.stderr, "last report applied")
  end)

t.test("a plan's runs (slo_by: plan): --slo names the plan's slo: once; an older workspace goes back to it", function()
  local w, r = t.compare { "--a", KC_A, "--b", KC_B }
  t.eq(r.code, 0, r.stderr)
  -- as a --plan comparison's runs record the SLO the plan held them to (llmd.cluster's
  -- record_slo), in a workspace of an llmdlua that did not keep comparison_slo
  for _, x in ipairs { "a", "b" } do
    local st = json.read(w .. "/run-" .. x .. "/run_state.json")
    st.slo, st.slo_by = { ttft_p90_ms = 500, tpot_p90_ms = 50 }, "plan"
    json.write(w .. "/run-" .. x .. "/run_state.json", st)
  end
  local doc = json.read(w .. "/comparison.json")
  doc.comparison_slo, doc.comparison_slo_by = nil, nil
  json.write(w .. "/comparison.json", doc)
  r = analyze(w, "--slo", "ttft_p90_ms=300")
  t.eq(slo_of(w), "ttft_p90_ms=300")
  local line = "analyze.lua: warning: --slo replaced the plan's slo:, which both runs' run_state.json record "
    .. "(slo_by: plan) (TPOT p90 ≤ 50.00 ms and TTFT p90 ≤ 500.0 ms): this report applies TTFT p90 ≤ 300.0 ms to "
    .. "both runs\n"
  t.contains(r.stderr, line)
  t.eq(select(2, r.stderr:gsub("%-%-slo replaced", "")), 1, "said once: " .. r.stderr)
  t.lacks(r.stderr, "info file")
  r = analyze(w)
  t.eq(slo_of(w), "tpot_p90_ms=50,ttft_p90_ms=500", "the plan's SLO again")
  t.contains(r.stderr, "this one applies the comparison's own SLO again, TPOT p90 ≤ 50.00 ms and TTFT p90 ≤ 500.0 ms "
    .. "(the plan's slo:)")
end)
