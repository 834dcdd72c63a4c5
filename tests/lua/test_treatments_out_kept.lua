-- newuserd51 6: treatments.lua without --out wrote ./cross-treatment-comparison/ and silently
-- replaced an earlier report there (with --quiet it printed nothing): the trial lost its own
-- report of other --gpus. An earlier report in the output folder is now moved aside whole first,
-- to OUT-previous-YYYYmmdd-HHMMSS (the earlier report's time: its treatments.json's mtime, formatted
-- here by python3), and one line on stderr says so, --quiet too; --replace writes over it, said.
-- The earlier files are compared byte for byte with what the first run wrote.
local t = require "testlib"
local proc = require "llmd.proc"
local lfs = require "lfs"

local _, LLMDLUA = t.root()
local F = proc.realpath(t.fixtures()) .. "/vllm-benchmark/exp-7_H100"

local function treatments(dir, extra)
  local argv = { LLMDLUA, "treatments.lua", "--run", "a=" .. F .. "/llm-d-1p1d", "--run", "b=" .. F .. "/vllm-2replicas",
    "--quiet" }
  for _, a in ipairs(extra or {}) do argv[#argv + 1] = a end
  return proc.run(argv, { cwd = dir })
end

local function files(dir)
  local out = {}
  t.walk(dir, function(p, rel, mode) if mode == "file" then out[rel] = t.read(p) end end)
  return out
end

local function stamp(path, fmt)
  local r = proc.run { "/usr/bin/python3", "-c", "import os,sys,time\n"
    .. "print(time.strftime(sys.argv[2], time.localtime(int(os.path.getmtime(sys.argv[1])))))", path, fmt }
  assert(r.ok, r.stderr)
  return (r.stdout:gsub("%s+$", ""))
end

t.test("a second report in the default folder keeps the first beside it, said with --quiet", function()
  local d = t.tmpdir()
  local r = treatments(d, { "--gpus", "a=2,b=2" })
  t.eq({ r.code, r.stdout, r.stderr }, { 0, "", "" })
  local out = "cross-treatment-comparison"
  local first = files(d .. "/" .. out)
  t.ok(first["treatments.json"] and first["charts/treatments_bars.svg"], "the first report's files")
  local aside = out .. "-previous-" .. stamp(d .. "/" .. out .. "/treatments.json", "%Y%m%d-%H%M%S")
  local when = stamp(d .. "/" .. out .. "/treatments.json", "%Y-%m-%d %H:%M:%S")
  r = treatments(d)
  t.eq(r.code, 0, r.stderr)
  t.eq(r.stdout, "")
  t.eq(r.stderr, ("treatments.lua: %s held an earlier report (written %s): kept in %s; this one is in %s "
    .. "(--replace writes over it instead)\n"):format(out, when, aside, out))
  t.eq(files(d .. "/" .. aside), first)
  -- the new one is this run's: no --gpus, so no GPU count from the option
  local now = files(d .. "/" .. out)
  t.ok(now["treatments.json"] ~= first["treatments.json"])
  t.ok(first["treatments.json"]:find('"gpus": 2', 1, true), "the first had --gpus")
  t.ok(not now["treatments.json"]:find('"gpus": 2', 1, true), "the second had none")
end)

t.test("--replace writes over the earlier report, and says so; an explicit --out is kept the same way", function()
  local d = t.tmpdir()
  t.eq(treatments(d, { "--out", "mine" }).code, 0)
  local when = stamp(d .. "/mine/treatments.json", "%Y-%m-%d %H:%M:%S")
  local aside = "mine-previous-" .. stamp(d .. "/mine/treatments.json", "%Y%m%d-%H%M%S")
  local r = treatments(d, { "--out", "mine" })
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stderr:find("treatments.lua: mine held an earlier report (written " .. when .. "): kept in " .. aside, 1,
    true), r.stderr)
  local before = {}
  for n in lfs.dir(d) do before[#before + 1] = n end
  when = stamp(d .. "/mine/treatments.json", "%Y-%m-%d %H:%M:%S")
  r = treatments(d, { "--out", "mine", "--replace" })
  t.eq(r.code, 0, r.stderr)
  t.eq(r.stderr, ("treatments.lua: the earlier report in mine (written %s) was replaced (--replace)\n"):format(when))
  local after = {}
  for n in lfs.dir(d) do after[#after + 1] = n end
  table.sort(before)
  table.sort(after)
  t.eq(after, before, "no folder made aside")
end)

-- fixg51: a comparison whose treatment has no load points writes its two CSVs alone (and fails);
-- they went into --out before the earlier report was kept aside, so the earlier report's CSVs
-- were replaced, and its report, left beside the new CSVs, read as theirs. Now the earlier
-- report is kept aside whole first (byte for byte), or with --replace its other files go.
t.test("a comparison without every treatment's load points keeps the earlier report aside first", function()
  local d = t.tmpdir()
  -- the treatment without load points: two benchmark reports that both say stage 3 (as
  -- test_treatments' first test; its CSV is upstream's)
  local B = t.fixtures() .. "/llm-d-benchmark/benchmark-report"
  local x, y = d .. "/x", d .. "/y"
  t.copy(B .. "/br_v0_2_example.yaml", x .. "/benchmark_report_v0.2,_stage_0_lifecycle_metrics.json.yaml")
  t.copy(B .. "/br_v0_2_example.yaml", y .. "/benchmark_report_v0.2,_stage_0_lifecycle_metrics.json.yaml")
  t.copy(B .. "/br_v0_2_1_example.yaml", y .. "/benchmark_report_v0.2,_stage_1_lifecycle_metrics.json.yaml")
  local function bad(extra)
    local argv = { LLMDLUA, "treatments.lua", "--run", "x=" .. x, "--run", "y=" .. y, "--quiet", "--out", "mine" }
    for _, a in ipairs(extra or {}) do argv[#argv + 1] = a end
    return proc.run(argv, { cwd = d })
  end
  t.eq(treatments(d, { "--out", "mine" }).code, 0)
  local first = files(d .. "/mine")
  t.ok(first["treatment_report.md"] and first["charts/treatments_bars.svg"], "the first report's files")
  local when = stamp(d .. "/mine/treatments.json", "%Y-%m-%d %H:%M:%S")
  local aside = "mine-previous-" .. stamp(d .. "/mine/treatments.json", "%Y%m%d-%H%M%S")
  local r = bad()
  t.eq(r.code, 1, r.stderr)
  t.ok(r.stderr:find("both are stage 3", 1, true), r.stderr)
  t.ok(r.stderr:find(("mine/treatment_comparison.csv is written; the earlier report there (written %s) is kept in "
    .. "%s)\n"):format(when, aside), 1, true), r.stderr)
  t.eq(files(d .. "/" .. aside), first, "the earlier report, whole, CSVs too")
  local now = files(d .. "/mine")
  local names = {}
  for n in pairs(now) do names[#names + 1] = n end
  table.sort(names)
  t.eq(names, { "treatment_comparison.csv", "treatment_comparison_sources.csv" }, "this comparison's CSVs alone")
  -- (upstream's, its treatments here named x and y)
  t.eq(now["treatment_comparison.csv"], (t.read(t.fixtures() .. "/llm-d-benchmark/expected/"
    .. "treatment_comparison.from-br-examples.csv"):gsub("\ninference%-perf%-conc1%-[%w%-_]+,", "\nx,")
    :gsub("\ninference%-perf%-conc8%-[%w%-_]+,", "\ny,")))
  -- --replace: the earlier report (a good one again) goes, not left beside the new CSVs
  t.ok(proc.run({ "rm", "-rf", d .. "/mine", d .. "/" .. aside }).ok)
  t.eq(treatments(d, { "--out", "mine" }).code, 0)
  when = stamp(d .. "/mine/treatments.json", "%Y-%m-%d %H:%M:%S")
  r = bad { "--replace" }
  t.eq(r.code, 1, r.stderr)
  t.ok(r.stderr:find(("is written; the earlier report there (written %s) is replaced (--replace))\n"):format(when),
    1, true), r.stderr)
  names = {}
  for n in pairs(files(d .. "/mine")) do names[#names + 1] = n end
  table.sort(names)
  t.eq(names, { "treatment_comparison.csv", "treatment_comparison_sources.csv" }, "--replace: the CSVs alone")
  t.eq(lfs.attributes(d .. "/mine/charts"), nil, "its charts gone too")
end)
