local t = require "testlib"

-- A step record (steps.json) that cannot be written - a full disk, found at the report step
-- on a tmpfs of 1.5 MB (harden54) - raised its own error out of steps.run in place of the
-- step's: the run ended on "steps.json: cannot write: No space left on device" alone, the
-- report's failure (naming the file it could not write), what was left deployed and the
-- command to go on all unsaid. Here the record's folder is a file (ENOTDIR), a write that
-- fails as a full disk's does.
t.test("a step record that cannot be written never hides the step's outcome", function()
  local steps = require "llmd.steps"
  local d = t.tmpdir()
  t.write(d .. "/notadir", "")
  local said = {}
  local list = {
    { number = 10, name = "first", execute = function() return "done" end },
    { number = 20, name = "report", execute = function() error("x.md: cannot write: No space left on device", 0) end },
  }
  local ok, r = pcall(steps.run, "x", list, {}, { previous = {}, record = d .. "/notadir/steps.json",
    out = { write = function(_, ...) said[#said + 1] = table.concat { ... } end } })
  t.ok(ok, tostring(r))
  t.eq(r.ok, false)
  t.eq(#r.failed, 1)
  t.eq(r.failed[1].message, "x.md: cannot write: No space left on device", "the step's own failure")
  local text = table.concat(said)
  t.contains(text, "[10] first: ok, but not recorded (a resume runs it again): " .. d .. "/notadir/steps.json: ")
  t.contains(text, "[20] report: FAILED - x.md: cannot write: No space left on device\n")
end)
