-- treatments.lua --gpus on an experiment whose treatments are setup x run pairs (newuser47 F7):
-- the GPUs are a setup treatment's (its deployment), the same under every run treatment, so
-- a setup treatment's name gives them to all its pairs ("--gpus one=1,two=2" was refused: "no
-- treatment is labelled one"), and the report's hint, which said "give it there", says where:
-- the experiment's setup.constants or setup treatments, or --gpus SETUP=N. Expected counts
-- written by hand: one's pairs 1 GPU, two's 2.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local LLMDLUA = t.root() .. "/llmdlua"

-- an experiment workspace of setups one (decode.replicas 1) and two (2) x run treatments r1, r2,
-- each a load ladder of 10 and 20 req/s (t.latency_ladder)
local function workspace()
  local setups = {}
  for i, name in ipairs { "one", "two" } do
    local runs = {}
    for j, rt in ipairs { "r1", "r2" } do
      local ttft = 0.040 + 0.010 * i + 0.005 * j
      runs[j] = { rt, t.latency_ladder { { 10, t.spread(ttft, ttft, 100) }, { 20, t.spread(ttft, ttft, 100) } } }
    end
    setups[i] = { name = name, values = t.decode_values(i), runs = runs }
  end
  return t.experiment_workspace(t.tmpdir() .. "/exp", { experiment = "pairs", setups = setups })
end

t.test("--gpus SETUP=N on setup x run pairs: every pair of the setup; an unknown name lists both kinds", function()
  local w = workspace()
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out, "--quiet", "--gpus", "one=1,two=2" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local got = {}
  for _, x in ipairs(json.read(out .. "/treatments.json").treatments) do got[x.label] = x.gpus end
  t.eq(got, { ["one/r1"] = 1, ["one/r2"] = 1, ["two/r1"] = 2, ["two/r2"] = 2 })
  -- a pair's own label still names that pair alone
  r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out .. "2", "--quiet", "--gpus", "one/r1=4" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  got = {}
  for _, x in ipairs(json.read(out .. "2/treatments.json").treatments) do got[x.label] = x.gpus end
  t.eq(got["one/r1"], 4)
  t.eq(got["one/r2"], nil)
  -- neither a pair nor a setup: the labels, and the setups' names
  r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out .. "3", "--quiet", "--gpus", "three=1" }
  t.eq(r.code, 2, r.stdout .. r.stderr)
  t.eq(r.stderr, "treatments.lua: --gpus three=1: no treatment is labelled three (the treatments: one/r1, one/r2, "
    .. "two/r1, two/r2; or a setup treatment's name for all its pairs: one, two)\n")
  -- no GPU count: the hint says where to give one
  r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out .. "4", "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local v = json.read(out .. "4/treatments.json").verdict
  t.ok(v:find("(the values give no parallelism.tensor: set decode.parallelism.tensor in the experiment's "
    .. "setup.constants or setup treatments, or give treatments.lua WORKSPACE --gpus SETUP=N)", 1, true), v)
  t.ok(not v:find("give it there", 1, true), v)
end)

-- (newuser47 F8) The same cost caveat under every run treatment (the setups' replicas differ,
-- their GPU counts unknown) is said once in the Verdict, in the setups' names, before the
-- workloads: it was repeated per workload, "one/r1 decode.replicas 1; ..." then "one/r2 ...".
t.test("the Verdict says a cost caveat shared by every workload once", function()
  local w = workspace()
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local v = json.read(out .. "/treatments.json").verdict
  local _, n = v:gsub("Not like for like on cost", "")
  t.eq(n, 1, v)
  t.ok(v:find("never across workloads. Not like for like on cost, in every workload: the setups' replicas differ (one "
    .. "decode.replicas 1; two decode.replicas 2), and their GPU counts are unknown (", 1, true), v)
  -- each workload's own part still says its figures are on totals
  local _, k = v:gsub("On totals %(not per GPU%)", "")
  t.eq(k, 2, v)
end)

-- (newuser47 F8, the rest of it) That caveat is said once in the headline, above the ranking
-- ("These places are on totals") and beside the Pareto front too: each repeated it per
-- workload, "r1: Not like for like on cost: ... (one/r1 ...; two/r1 ...) ... r2: Not like ...".
-- Expected by hand: every workload's caveat is the same in its setups' names (replicas 1 and 2).
t.test("the headline, the ranking's and the front's cost notes say a caveat shared by every workload once", function()
  local w = workspace()
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local md = t.read(out .. "/treatment_report.md")
  local html = t.read(out .. "/treatment_report.html")
  local function line(text, start) return text:match("\n(" .. start:gsub("%p", "%%%0") .. "[^\n]*)") end
  t.eq(line(md, "**Verdict:**"), "**Verdict:** Not like for like on cost, in every workload: the setups' replicas "
    .. "differ (one decode.replicas 1; two decode.replicas 2) and their GPU counts are unknown, so none is named best "
    .. "on totals (see below).")
  local totals = line(md, "**These places are on totals**")
  t.ok(totals:find("^%*%*These places are on totals%*%*: Not like for like on cost, in every workload: the setups' "
    .. "replicas differ %(one decode.replicas 1; two decode.replicas 2%)"), totals)
  local front = line(md, "**Not like for like on cost**")
  t.eq(front, "**Not like for like on cost**: in every workload, the front is on totals, of treatments whose replicas "
    .. "differ (one decode.replicas 1; two decode.replicas 2) and whose GPU counts are unknown: it compares different "
    .. "amounts of hardware, and a latency at one total load is not one at the same load per GPU, so no domination "
    .. "below is one per GPU.")
  -- once in each of the four places (the Verdict paragraph's since F8): no pair's name in any
  local _, n = md:gsub("replicas differ", "")
  t.eq(n, 4, md)
  t.ok(not md:find("one/r1 decode.replicas", 1, true), md)
  local _, h = html:gsub("replicas differ", "")
  t.eq(h, 4)
  local j = json.read(out .. "/treatments.json")
  t.eq(select(2, j.verdict_line:gsub("Not like for like on cost", "")), 1, j.verdict_line)
  -- with the GPU counts (one 1, two 2): the caveat once, then each workload with what it adds
  r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out .. "2", "--quiet", "--gpus", "one=1,two=2" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local v = json.read(out .. "2/treatments.json").verdict_line
  t.ok(v:find("^Not like for like on cost, in every workload: the treatments ran on different numbers of accelerators, "
    .. "so none is named best on totals %(see below%)%. Workload r1: Per GPU, none is shown first either %(see below%)%. "
    .. "To settle the order per GPU .* Workload r2: Per GPU, none is shown first either %(see below%)%. To settle "), v)
  t.eq(select(2, v:gsub("Not like for like on cost", "")), 1, v)
end)
