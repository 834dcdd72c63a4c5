-- Treatments holding the same results (a folder copied: the Warning and the Verdict's caveat
-- say "tp1 and tp2 hold the same results (byte for byte)") in the ranking (newuser49 F4): the
-- place above its copy says "the same results as tp2 (an A/A check: no difference to find)",
-- never "untested ... either may be higher", in the row and in the Verdict; a row's evidence
-- names whose figure it quotes ("rep2's max sustained throughput"), not "its", which read as
-- the row's own; and the Verdict's list of what to measure, which settles only the first place
-- per GPU, says so rather than "the order per GPU" beside the Warning's longer list. An
-- experiment workspace by hand: tp1 (1 GPU) and tp2 (2 GPUs) the same files, rep2 (1 GPU)
-- another ladder; none saturates (each figure a lower bound).
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"

local LLMDLUA = t.root() .. "/llmdlua"

local function workspace()
  local a = t.latency_ladder { { 1, t.spread(0.05, 0.06, 100) }, { 2, t.spread(0.05, 0.07, 100) },
    { 4, t.spread(0.06, 0.08, 100) } }
  local b = t.latency_ladder { { 1, t.spread(0.05, 0.06, 100) }, { 2, t.spread(0.05, 0.07, 100) },
    { 3, t.spread(0.06, 0.08, 100) } }
  return t.experiment_workspace(t.tmpdir() .. "/exp", { experiment = "aa", setups = {
    { name = "tp1", values = t.decode_values(1, 1), runs = { { "sweep", a } } },
    { name = "tp2", values = t.decode_values(1, 2), runs = { { "sweep", a } } },
    { name = "rep2", values = t.decode_values(1, 1), runs = { { "sweep", b } } } } })
end

t.test("identical treatments: the ranking's evidence and the Verdict agree with the Warning", function()
  local w = workspace()
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local j = json.read(out .. "/treatments.json")
  local rows = {}
  for _, x in ipairs(j.ranking) do rows[#rows + 1] = x.label end
  t.eq(rows, { "tp1", "tp2", "rep2" })
  t.eq(j.ranking[1].vs_next_text, "the same results as tp2 (an A/A check: no difference to find)")
  t.eq(j.ranking[1].same_results, "tp2")
  -- (the figure quoted is the next one's, named)
  t.ok(j.ranking[2].vs_next_text:find("^untested against rep2, and either may be higher: rep2's max sustained "
    .. "throughput, ≥ [%d.]+ req/s %(never saturated%), is only a lower bound$"), j.ranking[2].vs_next_text)
  local md = t.read(out .. "/treatment_report.md")
  t.contains(md, "| tp1 | ≥ ")
  t.contains(md, "| the same results as tp2 (an A/A check: no difference to find) |")
  t.lacks(md, "untested against tp2")
  -- the Verdict's totals part says the same
  t.contains(j.verdict, "tp1 holds the same results as tp2 (an A/A check: no difference to find).")
  -- what settles the first place per GPU (tp1 and rep2), said as such (cost.settle_first); the
  -- whole order's list (in the Warning and above the ranking) names tp2 too; the md Verdict line
  -- points to the note above the ranking rather than repeat it (the cost note said once)
  local line = md:match("%*%*Verdict:%*%*([^\n]*)")
  t.contains(line, "What would settle it: above the ranking.")
  t.lacks(line, "To settle")
  t.contains(j.cost.settle_first, "To settle which is first per GPU (each treatment at its own offered loads, in total): ")
  t.lacks(j.cost.settle_first, "tp2 above")
  t.contains(j.verdict, "To settle the order per GPU (each treatment at its own offered loads, in total): ")
  t.contains(j.verdict, "tp2 above 4 req/s offered")
end)

t.test("identical pairs within one workload (setup x run pairs): the same words in that workload's ranking", function()
  -- one and two x r1, r2, each a ladder at the same loads (so pairs, one workload each run
  -- treatment); one/r1 and two/r1 the same files, r2's another ladder for two
  local a = t.latency_ladder { { 1, t.spread(0.05, 0.06, 100) }, { 2, t.spread(0.05, 0.07, 100) } }
  local b = t.latency_ladder { { 1, t.spread(0.06, 0.07, 100) }, { 2, t.spread(0.06, 0.08, 100) } }
  local w = t.experiment_workspace(t.tmpdir() .. "/exp", { experiment = "aa", setups = {
    { name = "one", runs = { { "r1", a }, { "r2", b } } }, { name = "two", runs = { { "r1", a }, { "r2", a } } } } })
  local out = t.tmpdir() .. "/out"
  local r = proc.run { LLMDLUA, "treatments.lua", w, "--out", out, "--quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local j = json.read(out .. "/treatments.json")
  local by = {}
  for _, x in ipairs(j.ranking) do by[x.label] = x end
  local top = by["one/r1"].vs_next_text and by["one/r1"] or by["two/r1"]
  local other = top == by["one/r1"] and "two/r1" or "one/r1"
  t.eq(top.vs_next_text, ("the same results as %s (an A/A check: no difference to find)"):format(other))
  t.lacks(t.read(out .. "/treatment_report.md"), "untested against " .. other)
end)
