-- The README's examples run as written, each on its own: what a reader pastes into a shell in the
-- repository's folder, with nothing set up by an earlier section (no PATH export).
local t = require "testlib"
local proc = require "llmd.proc"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")

t.test("README 'Simulated results': the block runs in the repository's folder without llmdlua on PATH", function()
  if not t.have_numpy() then return end -- (queue_sim.py needs numpy)
  local readme = t.read(ROOT .. "/README.md")
  local block = readme:match("#### Simulated results: a pair without a cluster\n.-```sh\n(.-)```")
  t.ok(block, "the block")
  -- the repository's folder as the reader has it (llmdlua built, tests/ beside it), in a folder
  -- of its own so that sim-a/ and the workspaces land there; PATH holds no llmdlua (the fake
  -- cluster section's export is not run)
  local d = t.tmpdir()
  for _, n in ipairs { "llmdlua", "tests" } do assert(proc.run({ "ln", "-s", ROOT .. "/" .. n, d .. "/" .. n }).ok) end
  local r = proc.run({ "sh", "-ec", "cd \"$1\" && shift && eval \"$1\"", "sh", d, block },
    { env = { PATH = "/usr/bin:/bin" } })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(#t.workspaces(d), 2, "compare.lua's two workspaces")
  t.ok(t.read(d .. "/cross-treatment-comparison/treatment_report.md") ~= nil)
end)
