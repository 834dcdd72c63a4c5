-- When an experiment's run treatments are the load points of one curve, and when each is its
-- own workload (newuser49 F1): one curve only when the run treatments differ in the load
-- alone (load.stages...: rate, duration, concurrent_sessions); a run treatment that also sets
-- another key (input length, prefix groups, load.type) is another workload, so every setup x
-- run pair is its own treatment, ranked within its run treatment. The figures are the same in
-- every case (each run treatment one load point, 10 and 20 req/s: no two at one load, what
-- the offered-load rule alone read as a sweep); only the keys in experiment.yaml differ.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local LLMDLUA = t.root() .. "/llmdlua"

-- setups one and two x run treatments lo (one load point, 10 req/s) and hi (20 req/s), and
-- experiment.yaml (the run treatments' keys, as experiment.lua copies it in) when given
local function workspace(experiment_yaml)
  local setups = {}
  for i, name in ipairs { "one", "two" } do
    local runs = {}
    for j, rt in ipairs { { "lo", 10 }, { "hi", 20 } } do
      local ttft = 0.040 + 0.010 * i + 0.005 * j
      runs[j] = { rt[1], t.latency_ladder { { rt[2], t.spread(ttft, ttft, 100) } } }
    end
    setups[i] = { name = name, values = t.decode_values(1, 1), runs = runs }
  end
  local w = t.experiment_workspace(t.tmpdir() .. "/exp", { experiment = "curve", setups = setups })
  if experiment_yaml then t.write(w .. "/experiment.yaml", experiment_yaml) end
  return w
end

local function compare(w)
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local j = json.read(out .. "/treatments.json")
  local labels = {}
  for _, x in ipairs(j.treatments) do labels[#labels + 1] = x.label end
  table.sort(labels)
  return labels, t.read(out .. "/treatment_report.md")
end

local HEAD = "experiment:\n  name: curve\nsetup:\n  treatments:\n    - name: one\n    - name: two\n"

t.test("run treatments that set the rate and the input length are two workloads, not one curve", function()
  local labels, md = compare(workspace(HEAD .. [[
constants:
  data.type: random
treatments:
  - name: lo
    load.stages.0.rate: 10
    data.input_distribution.mean: 100
  - name: hi
    load.stages.0.rate: 20
    data.input_distribution.mean: 4000
]]))
  t.eq(labels, { "one/hi", "one/lo", "two/hi", "two/lo" })
  t.ok(md:find("Treatments compared: setup x run treatment pairs (the run treatments set "
    .. "data.input_distribution.mean, not only the load (load.stages), so each is its own workload).", 1, true), md)
  -- a key one sets and the other leaves at the template's (prefix groups): the same
  labels = compare(workspace(HEAD .. [[
treatments:
  - name: lo
    load.stages.0.rate: 10
  - name: hi
    load.stages.0.rate: 20
    data.shared_prefix.num_groups: 4
]]))
  t.eq(labels, { "one/hi", "one/lo", "two/hi", "two/lo" })
  -- load.type (another arrival pattern) is a workload key too
  labels = compare(workspace(HEAD .. [[
treatments:
  - name: lo
    load.stages.0.rate: 10
    load.type: constant
  - name: hi
    load.stages.0.rate: 20
    load.type: poisson
]]))
  t.eq(labels, { "one/hi", "one/lo", "two/hi", "two/lo" })
end)

t.test("run treatments that differ in load.stages alone (a constant beside) are the load points of one curve", function()
  local labels, md = compare(workspace(HEAD .. [[
constants:
  data.input_distribution.mean: 100
treatments:
  - name: lo
    load.stages.0.rate: 10
  - name: hi
    load.stages.0.rate: 20
    load.stages.0.duration: 60
]]))
  t.eq(labels, { "one", "two" })
  t.ok(md:find("Treatments compared: setup treatments (their run treatments are the load points of one curve).",
    1, true), md)
  -- a workspace with no experiment.yaml (made by hand): by the loads, and says so
  labels, md = compare(workspace(nil))
  t.eq(labels, { "one", "two" })
  t.ok(md:find("load points of one curve; no experiment.yaml in the workspace to tell which keys they set, so read "
    .. "as a sweep by their offered loads alone)", 1, true), md)
  -- one that is not YAML: pairs, naming it
  labels, md = compare(workspace("treatments: [\n"))
  t.eq(labels, { "one/hi", "one/lo", "two/hi", "two/lo" })
  t.ok(md:find("the run treatments' keys are not known (", 1, true), md)
end)
