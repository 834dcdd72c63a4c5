-- comparison.json and comparison.csv as a script reads them (newuser50b F1, F6, F16): every
-- field means one thing. Two inference-perf runs of 5 requests each, only the per-request file,
-- B's end-to-end latencies all 50 ms above A's (A 0.30, 0.31, ..., 0.34 s): the exact
-- two-sided Mann-Whitney p of two samples of 5 with every B above every A is 2 / C(10, 5)
-- (python3: 2 / math.comb(10, 5) = 0.007936507936507936), printed "exact Mann-Whitney,
-- p = 0.00794" in the report.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local ips = require "ipsynth"

local LLMDLUA = t.root() .. "/llmdlua"

-- the two runs compared once for every test here: the workspace folder
local cached
local function workspace()
  if cached then return cached end
  local d = t.tmpdir()
  for _, side in ipairs { { "a", 0 }, { "b", 0.05 } } do
    local dir = ips.run(d .. "/" .. side[1], { { rate = 1, n = 5, latency = function(k) return 0.30 + 0.01 * k + side[2] end } },
      { per_request = true })
    os.remove(dir .. "/stage_0_lifecycle_metrics.json") -- only the per-request file, as the user's
  end
  local r = proc.run { LLMDLUA, "compare.lua", "--a", d .. "/a", "--b", d .. "/b", "--parent", d .. "/out", "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ws = assert(r.stdout:match("Workspace: (%S+)"), r.stdout)
  cached = ws
  return ws
end

-- What the Evidence column calls each test, by the test field's value (written here from
-- README's list, not from llmd.decision): a row's evidence starts with its test's name.
local NAMES = {
  welch = { "Welch t" }, welch_log = { "Welch t on the log values" }, mann_whitney = { "Mann-Whitney" }, exact_mann_whitney = { "exact Mann-Whitney" },
  van_elteren = { "Mann-Whitney stratified by load point (van Elteren" },
  exact_van_elteren = { "Mann-Whitney stratified by load point (van Elteren" },
  mixed_stouffer = { "Stouffer's combination of two Mann-Whitney tests stratified by load point (van Elteren" },
  fisher = { "Fisher's exact test on the request counts" },
  stratified_exact = { "exact test on the request counts stratified by load point" },
  cmh = { "normal test on the request counts" },
}

t.test("test: the name of the test the evidence names (exact Mann-Whitney is exact_mann_whitney)", function()
  local ws = workspace()
  local doc = json.decode(t.read(ws .. "/comparison.json"))
  local by = {}
  for _, r in ipairs(doc.perf) do by[r.key] = r end
  local e2e = by.latency_p50_ms
  t.eq(e2e.test, "exact_mann_whitney")
  t.near(e2e.p_value, 0.007936507936507936, 1e-12, "exact p")
  t.ok(e2e.evidence:find("exact Mann-Whitney, p = 0.00794", 1, true), e2e.evidence)
  t.ok(t.read(ws .. "/comparison_report.md"):find("exact Mann-Whitney, p = 0.00794", 1, true), "the report's text")
  -- the saved test says what gave its p, not the approximation
  t.ok(e2e.sig.name:find("exact", 1, true), e2e.sig.name)
  -- every tested row: a known name, and the evidence names that test (exact only where it says exact)
  local seen = 0
  for _, r in ipairs(doc.perf) do
    if r.test then
      seen = seen + 1
      t.ok(NAMES[r.test], "a test name README lists: " .. tostring(r.test))
      local starts = false
      for _, n in ipairs(NAMES[r.test]) do starts = starts or r.evidence:sub(1, #n) == n end
      t.ok(starts, ("%s: test %s beside evidence %q"):format(r.key, r.test, r.evidence))
      t.eq(r.evidence:find("^exact ") ~= nil or r.evidence:find(", exact)", 1, true) ~= nil,
        r.test:find("exact") ~= nil or r.test == "fisher", r.key .. ": exact in the evidence iff in the name")
    end
  end
  t.ok(seen >= 5, "rows with a test: " .. seen)
  -- the CSV's test column is the JSON's
  local csv = t.read_csv(ws .. "/comparison.csv")
  for _, row in ipairs(csv.rows) do
    if by[row.metric] then t.eq(row.test, by[row.metric].test or "", row.metric .. ": CSV test") end
  end
end)

-- Which way is better, by hand from what each figure is: latencies and error rates lower,
-- throughputs and capacities higher, KV hits higher, misses and preemptions lower, the
-- tokens the requests looked up (kv_queries) a figure of the workload.
local WANT = {
  ttft_p50_ms = "lower", latency_p99_ms = "lower", error_rate_pct = "lower", throughput_req_s = "higher",
  throughput_tok_s = "higher", max_sustained_rps = "higher", kv_hits = "higher", kv_queries = "none",
  kv_misses = "lower", kv_hit_rate_pct = "higher", kv_preemptions_per_1k = "lower",
}

t.test("every test code: README lists it with the name its Evidence starts with; a mixed test is mixed_stouffer",
  function()
  local decision = require "llmd.decision"
  local readme = t.read(t.root() .. "/README.md"):gsub("%s+", " ")
  for _, code in ipairs(decision.TEST_CODES) do
    t.ok(NAMES[code], "a code this test knows: " .. code)
    local first = NAMES[code][1]:sub(1, 24)
    -- (exact_van_elteren: "the same ending ', exact)'", van_elteren's name)
    t.ok(readme:find(("`%s` \"%s"):format(code, first), 1, true)
      or readme:find(("`%s` the same ending"):format(code), 1, true), "README lists " .. code)
  end
  -- a mixed test (decision.mixed_test's shape: per request at 3/s, over the repeats at 1/s and
  -- 2/s, z's combined): not a plain van Elteren test, though both parts are van Elteren's
  local mixed = { test = "mann_whitney", name = "van_elteren_mixed", units = "mixed", strata = 3, z = 1.8, p = 0.07,
    parts = { requests = { loads = { "3/s" }, z = 2.5, p = 0.0123, strata = 1 },
      repeats = { loads = { "1/s", "2/s" }, z = 0.45, p = 0.655, strata = 2, exact = true, figure_label = "TPOT mean" } } }
  t.eq(decision.test_code(mixed), "mixed_stouffer")
  local name = decision.test_name(mixed)
  t.eq(name:sub(1, #NAMES.mixed_stouffer[1]), NAMES.mixed_stouffer[1])
  -- the per-request part alone (the repeats untested): a plain van Elteren test, named so
  local alone = { test = "mann_whitney", name = "van_elteren", strata = 2, z = 2.5, p = 0.0123 }
  t.eq(decision.test_code(alone), "van_elteren")
  t.eq(decision.test_name(alone):sub(1, #NAMES.van_elteren[1]), NAMES.van_elteren[1])
end)

t.test("better_is: the last CSV column, on every row, and comparison.json's directions", function()
  local ws = workspace()
  local csv = t.read_csv(ws .. "/comparison.csv")
  -- a new last column: the earlier ones keep their places
  t.eq(csv.header[21], "delta_unit")
  t.eq(csv.header[22], "better_is")
  t.eq(#csv.header, 22)
  local doc = json.decode(t.read(ws .. "/comparison.json"))
  local n = 0
  for _, row in ipairs(csv.rows) do
    t.ok(row.better_is == "higher" or row.better_is == "lower" or row.better_is == "none",
      row.metric .. ": better_is " .. tostring(row.better_is))
    t.eq(doc.directions[row.metric], row.better_is, row.metric .. ": directions")
    if WANT[row.metric] then t.eq(row.better_is, WANT[row.metric], row.metric); n = n + 1 end
  end
  local keys = 0
  for _ in pairs(doc.directions) do keys = keys + 1 end
  t.eq(keys, #csv.rows, "one direction per CSV row")
  t.eq(n, 11, "rows checked by hand")
  for _, r in ipairs(doc.perf) do t.eq(r.better_is, doc.directions[r.key], r.key) end
end)

t.test("a KV row unknown on both sides: not comparable, with the reason", function()
  local ws = workspace()
  local csv = t.read_csv(ws .. "/comparison.csv")
  local kv = 0
  for _, row in ipairs(csv.rows) do
    if row.metric:find("^kv_") then
      kv = kv + 1
      t.eq(row.verdict, "not comparable", row.metric)
      t.eq(row.a, "")
      t.eq(row.b, "")
      t.ok(row.note:find("^unknown on both sides: .+"), row.note)
    end
  end
  t.eq(kv, 9)
end)
