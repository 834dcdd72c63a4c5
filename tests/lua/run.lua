-- run.lua: runs Lua test files with the llmdlua binary itself, so that the real
-- preloaded native modules are exercised.
--
--   llmdlua tests/lua/run.lua [FILE.lua | DIR]...   (default: every test_*.lua here)
--
-- Ends with "N passed, N failed" and exits 1 when a test failed.
local lfs = require "lfs"

-- Every test runs with LLMDLUA_STRICT=1: a fallback that hides a bug in llmdlua (a run's side
-- its reader could not hand over for a value that cannot be serialized: llmd.parallel) is an
-- error, not a warning a passing test would not see. Run without it, this runner runs again
-- with it (llmdlua has no setenv), with what it was given.
if os.getenv("LLMDLUA_STRICT") ~= "1" then
  local proc = require "llmd.proc"
  local argv = { require("llmd.parallel").exe() or "llmdlua", arg[0] }
  for _, a in ipairs(arg) do argv[#argv + 1] = a end
  local r = proc.run(argv, { env = { LLMDLUA_STRICT = "1" }, stdin = { inherit = true }, stdout = "inherit",
    stderr = "inherit" })
  os.exit(r.code or 1)
end

local t = require "testlib"

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local files = {}

local function add_dir(dir)
  local names = {}
  for name in lfs.dir(dir) do
    if name:match("^test_.*%.lua$") then names[#names + 1] = dir .. "/" .. name end
  end
  table.sort(names)
  for _, n in ipairs(names) do files[#files + 1] = n end
end

if #arg == 0 then add_dir(here) end
for _, a in ipairs(arg) do
  if lfs.attributes(a, "mode") == "directory" then add_dir(a) else files[#files + 1] = a end
end

local passed, failed = 0, 0
local only = os.getenv("TEST_ONLY") -- a name pattern, to run a subset while debugging

for _, file in ipairs(files) do
  local chunk, err = loadfile(file)
  local tests
  if not chunk then
    io.stderr:write(("FAIL %s: cannot load: %s\n"):format(file, err))
    failed = failed + 1
  else
    local ok, ret = xpcall(chunk, debug.traceback)
    tests = t._take()
    if not ok then
      io.stderr:write(("FAIL %s: %s\n"):format(file, ret))
      failed = failed + 1
    elseif type(ret) == "table" then
      local names = {}
      for name in pairs(ret) do names[#names + 1] = name end
      table.sort(names)
      for _, name in ipairs(names) do tests[#tests + 1] = { name = name, fn = ret[name] } end
    end
  end
  for _, case in ipairs(tests or {}) do
    if not only or case.name:find(only) then
      local ok, e = xpcall(case.fn, function(m)
        return debug.traceback(tostring(m), 2)
      end)
      if ok then
        passed = passed + 1
      else
        failed = failed + 1
        io.stderr:write(("FAIL %s: %s\n  %s\n"):format(file, case.name, e:gsub("\n", "\n  ")))
      end
    end
  end
  t._cleanup()
end

print(("%d passed, %d failed"):format(passed, failed))
os.exit(failed == 0 and 0 or 1)
