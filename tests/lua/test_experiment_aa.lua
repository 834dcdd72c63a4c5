-- An experiment whose setup treatments deploy the same configuration (the same values, and
-- the plan's one deploy and benchmark) is an A/A check between them, as compare.lua says of a
-- plan's two runs alike: the cross-treatment Verdict says so; setups with other values do
-- not get it. Expected texts written by hand from what the note must say.
local t = require "testlib"
local yaml = require "llmd.yaml"
local proc = require "llmd.proc"
local lfs = require "lfs"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"

local NOTE = "setup treatments one and two deployed the same configuration (the same values in their "
  .. "plan/values-override.yaml, and the plan's deploy and benchmark), so comparing them is an A/A check: a "
  .. "difference between them is run-to-run variation, not a configuration's"

local function run_experiment(two_replicas)
  local d = proc.realpath(t.tmpdir())
  t.try_guide(d, true)
  t.write(d .. "/exp.yaml", "experiment:\n  name: aa\nsetup:\n  treatments:\n    - name: one\n"
    .. "      decode.replicas: 1\n    - name: two\n      decode.replicas: " .. two_replicas .. "\n"
    .. "treatments:\n  - name: rate1\n    load.stages.0.rate: 1\n")
  t.write(d .. "/plan.yaml", yaml.dump { namespaces = { "exp-a" }, parent = d,
    timeouts = { poll = 0.05, backoff = 0.01 }, deploy = { method = "helmfile", guide_dir = d .. "/guide",
      environment = "istio", model = "Qwen/Qwen3-0.6B" },
    benchmark = { template = d .. "/template.yaml", harness = "inference-perf" } })
  local r = proc.run({ LLMDLUA, "experiment.lua", "exp.yaml", "--plan", "plan.yaml" }, { cwd = d, timeout = 300,
    env = t.fake_env(d .. "/cluster") })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  for n in lfs.dir(d) do
    if n:match("^llm%-d%-experiment%-aa%-") then
      return t.read(d .. "/" .. n .. "/cross-treatment-comparison/treatment_report.md"), r
    end
  end
  error("no workspace")
end

t.test("two setup treatments with the same values: the cross-treatment Verdict says it is an A/A check", function()
  local md = run_experiment(1)
  local verdict = md:match("%*%*Verdict:%*%*[^\n]*") or md:match("[^\n]*Verdict[^\n]*")
  t.ok(verdict, md)
  t.contains(verdict, "Caveat: " .. NOTE .. ". ")
  -- newuser53 #2: the fake cluster's cells are said to be simulated, first (its nodes' label
  -- llmdlua.dev/simulated=true; what the text must say, written by hand)
  t.eq(verdict:sub(1, #"**Verdict:** Simulated cluster, not a measurement (recorded results replayed; see below): "),
    "**Verdict:** Simulated cluster, not a measurement (recorded results replayed; see below): ")
  t.contains(md, "Warning: 2 of the cells (one/rate1, two/rate1) ran on a simulated cluster (llmdlua's fake one, "
    .. "whose benchmarks replay recorded result files: node gpu-node-1 labelled llmdlua.dev/simulated=true): their "
    .. "figures are those files', not measurements of the treatments named here. ")
end)

t.test("setup treatments with other values get no such note", function()
  local md = run_experiment(2)
  t.lacks(md, "A/A check")
end)
