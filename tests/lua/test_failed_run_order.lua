-- compare.lua --plan after a run's step failed: its lines come in the order things happened -
-- the step's failure, then what was saved of that run (its state and logs), then the report
-- step's failure that follows from it, then how to go on. (The state and logs were saved
-- after the report step had already said it failed.) Expected lines are written out by hand
-- from the steps' order (README's step table: 50 smoke_test, 100 report).
local t = require "testlib"
local proc = require "llmd.proc"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"

local function setup() return t.try_setup { parent = "." } end -- (the workspace beside the plan)

-- the positions of each text in out, in the order given; each must be there
local function positions(out, texts)
  local at = {}
  for i, x in ipairs(texts) do
    at[i] = out:find(x, 1, true)
    t.ok(at[i], ("%q in the output:\n%s"):format(x, out))
  end
  return at
end

t.test("a failed run's state and logs are said saved before the report step's failure, then how to go on",
  function()
  local s = setup()
  local r = proc.run({ LLMDLUA, "compare.lua", "--yes", "--plan", s.plan },
    { env = (function() local e = {} for k, v in pairs(s.env) do e[k] = v end e.FAKE_FAIL_ONCE = "smoke" return e end)(),
      timeout = 120 })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local at = positions(r.stdout, {
    "\n[50] smoke_test (a): FAILED - run a: smoke test failed: ",
    "  workload: unknown (no benchmark.workload in the plan, and no benchmark config: the run stopped before step 60 "
      .. "rendered it)\n",
    " Run A failed at step 50 (smoke_test). State saved, logs saved; whatever was deployed is left in place, for "
      .. "--resume to go on from this step without deploying again and for you to look at the failure there (to "
      .. "remove it instead: the teardown command below).\n",
    "\n[100] report: FAILED - run a (baseline) failed at step 50 (smoke_test): nothing to compare until it "
      .. "completes; no report written\n",
    "\nTo continue after fixing the cause: llmdlua compare.lua --resume ",
  })
  for i = 2, #at do
    t.ok(at[i - 1] and at[i] and at[i - 1] < at[i], ("line %d before line %d:\n%s"):format(i - 1, i, r.stdout))
  end
end)

-- Two steps, "work" on each stack (raising a_error on stack a) and "report" after, and the
-- lines they and steps.run write, in order, in seen.
local function two_steps(a_error)
  local seen = {}
  local out = { write = function(self, ...) seen[#seen + 1] = table.concat({ ... }):gsub("\n$", ""); return self end }
  local list = {
    { number = 10, name = "work", per_stack = true, execute = function(_, x)
      seen[#seen + 1] = "work " .. x
      if x == "a" then error(a_error, 0) end
    end },
    { number = 100, name = "report", execute = function() seen[#seen + 1] = "report" end },
  }
  return list, out, seen
end

t.test("steps.run: after_failed_stack runs as the stack fails, before the next stack and the global steps after",
  function()
  local steps = require "llmd.steps"
  local list, out, seen = two_steps("a broke")
  local res = steps.run("p", list, {}, { stacks = { "a", "b" }, out = out,
    after_failed_stack = function(x, o) seen[#seen + 1] = ("salvage %s (step %d %s)"):format(x, o.number, o.status) end })
  t.eq(res.ok, false)
  t.eq(seen, { "work a", "[10] work (a): FAILED - a broke", "salvage a (step 10 failed)", "work b", "report" })
end)

t.test("steps.run: a failure that mentions 'interrupted' is that step's failure, not an interrupt that stops the rest",
  function()
  -- (fixd52: a message with the word in it, a workspace path named so, read as a Ctrl-C: the
  -- flow stopped with every stack left; an interrupt's message ends "interrupted")
  local steps = require "llmd.steps"
  local list, out, seen = two_steps("cannot read /runs/interrupted-ws/run-a/results: No such file")
  local res = steps.run("p", list, {}, { stacks = { "a", "b" }, out = out })
  t.eq(res.ok, false)
  t.eq(seen, { "work a", "[10] work (a): FAILED - cannot read /runs/interrupted-ws/run-a/results: No such file",
    "work b", "report" })
  -- and a real interrupt's message still stops the flow where it is
  list, out, seen = two_steps("interrupted")
  local ok, err = pcall(steps.run, "p", list, {}, { stacks = { "a", "b" }, out = out })
  t.eq({ ok, err }, { false, "interrupted" })
  t.eq(seen, { "work a", "[10] work (a): FAILED - interrupted" })
end)
