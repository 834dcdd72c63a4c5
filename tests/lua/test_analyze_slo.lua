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

-- (tidy55) --min-effect the same way: an `analyze.lua W --min-effect X` holds for its own
-- report only (before, it stuck to every later analyze.lua); a plain run applies the
-- comparison's own threshold again (compare.lua's --min-effect, else the default 2 %, kept as
-- comparison_min_effect) and says so. The thresholds are the inputs; comparison.json says which
-- one each report applied.
t.test("analyze.lua --min-effect holds for its own report; a plain analyze.lua goes back to the comparison's",
  function()
    local w, r = t.compare { "--a", KC_A, "--b", KC_B, "--slo", "ttft_p90_ms=200", "--min-effect", "5" }
    t.eq(r.code, 0, r.stderr)
    local doc = json.read(w .. "/comparison.json")
    t.eq({ doc.min_effect, doc.comparison_min_effect, doc.comparison_min_effect_by }, { 5, 5,
      "compare.lua's --min-effect" })
    analyze(w, "--min-effect", "10")
    doc = json.read(w .. "/comparison.json")
    t.eq({ doc.min_effect, doc.comparison_min_effect }, { 10, 5 })
    r = analyze(w)
    t.eq(json.read(w .. "/comparison.json").min_effect, 5, "the comparison's own threshold again")
    t.contains(r.stderr, "analyze.lua: note: the last report applied a practical threshold of 10.0 % (an analyze.lua "
      .. "--min-effect, which holds for its own report only); this one applies the comparison's own again, 5.0 % "
      .. "(compare.lua's --min-effect); to apply another, give --min-effect\n")
    -- once back, nothing more to say
    r = analyze(w)
    t.eq(json.read(w .. "/comparison.json").min_effect, 5)
    t.lacks(r.stderr, "practical threshold of")
    -- a comparison made without one: the default, 2 % (decision.MIN_EFFECT)
    w, r = t.compare { "--a", KC_A, "--b", KC_B }
    t.eq(r.code, 0, r.stderr)
    analyze(w, "--min-effect", "7")
    r = analyze(w)
    doc = json.read(w .. "/comparison.json")
    t.eq({ doc.min_effect, doc.comparison_min_effect, doc.comparison_min_effect_by }, { 2, 2, "the default" })
    t.contains(r.stderr, "this one applies the comparison's own again, 2.0 % (the default)")
  end)
