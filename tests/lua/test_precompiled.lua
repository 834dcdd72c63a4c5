-- issue 20: llmdlua's own Lua files load from the bytecode built into the binary
-- (src/precompiled.h) when the file found holds the text it was compiled from, byte for
-- byte; any other text (a file the user edited, even to the same size) is compiled from
-- the file, so what the file says always runs. Each case runs a copy of the binary under
-- test beside a copy of lua/ in a temporary folder (its install root), so the files can
-- be edited without touching the tree.
local t = require "testlib"
local lfs = require "lfs"
local proc = require "llmd.proc"

local ROOT = t.here() .. "/../.."
-- the binary under test (the sanitizer build under make check), else the tree's
local BIN = lfs.symlinkattributes("/proc/self/exe", "target")
if type(BIN) ~= "string" or not BIN:match("llmdlua$") then BIN = ROOT .. "/llmdlua" end

-- A fresh install root: TMP/llmdlua and TMP/lua/ (copies). Returns TMP.
local function fresh_root()
  local dir = t.tmpdir()
  assert(proc.run({ "cp", BIN, dir .. "/llmdlua" }).ok)
  assert(proc.run({ "cp", "-R", ROOT .. "/lua", dir .. "/lua" }).ok)
  return dir
end

-- Runs code with the root's binary; its stdout (fails the test on a non-zero exit).
local function run_in(root, code, env)
  local r = proc.run({ root .. "/llmdlua", "-e", code }, { env = env })
  t.eq(r.code, 0, r.stderr)
  return r.stdout
end

-- What a module's loading shows: bytecode loads it took (0 or 1), its chunk's name, the
-- line its function `fn` starts at, and M.edited.
local PROBE = [[
local h = require "llmd.host"
local before = h.precompiled()
local m = require %q
local after, count = h.precompiled()
local info = debug.getinfo(m.%s, "S")
io.write(after - before, " ", count, " ", info.source, " ", info.linedefined, " ", tostring(m.edited), "\n")
]]

-- The line of text that `needle` is on (1-based), found by a plain text search.
local function line_of(text, needle)
  local at = assert(text:find(needle, 1, true), needle)
  local _, n = text:sub(1, at):gsub("\n", "")
  return n + 1
end

local function probe(root, module, fn, env)
  local out = run_in(root, PROBE:format(module, fn), env)
  local loads, count, source, line, edited = out:match("^(%d+) (%d+) (%S+) (%d+) (%S+)\n$")
  t.ok(loads, out)
  return { loads = tonumber(loads), count = tonumber(count), source = source, line = tonumber(line),
    edited = edited }
end

t.test("precompiled: an unedited module loads from bytecode, named after its file, same lines", function()
  local root = fresh_root()
  local file = root .. "/lua/llmd/timeline.lua"
  local p = probe(root, "llmd.timeline", "mark")
  t.eq(p.loads, 1, "timeline.lua from bytecode (a binary built before lua/llmd/timeline.lua was last edited? make)")
  t.ok(p.count > 0, "the binary holds bytecode")
  -- the name is the copy's path (where it was found), not the tree it was built from
  t.eq(p.source, "@" .. file)
  t.eq(p.line, line_of(t.read(file), "function M.mark("))
  t.eq(p.edited, "nil")
  -- with LLMDLUA_PRECOMPILED=0 the same module is compiled from its text, the same way
  local q = probe(root, "llmd.timeline", "mark", { LLMDLUA_PRECOMPILED = "0" })
  t.eq({ q.loads, q.count, q.source, q.line }, { 0, 0, p.source, p.line })
end)

t.test("precompiled: an edited module is compiled from its file (the edit runs), also at the same size", function()
  local root = fresh_root()
  local file = root .. "/lua/llmd/timeline.lua"
  local text = t.read(file)
  -- a line added before the end: a new text, a new size
  local added = text:gsub("\nreturn M%s*$", "\nM.edited = 'yes'\nreturn M\n")
  t.ok(added ~= text, "the edit was made")
  t.write(file, added)
  local p = probe(root, "llmd.timeline", "mark")
  t.eq({ p.loads, p.edited }, { 0, "yes" })
  t.eq(p.line, line_of(added, "function M.mark("))
  -- one byte changed, the size kept: `path ~= nil` becomes `path == nil`, so enabled
  -- (false without LLMDLUA_TIMES) reads true
  local same = text:gsub("M%.enabled = path ~= nil", "M.enabled = path == nil")
  t.eq(#same, #text)
  t.ok(same ~= text, "the edit was made")
  t.write(file, same)
  t.eq(run_in(root, [[
local h = require "llmd.host"
local m = require "llmd.timeline"
io.write(tostring(m.enabled), " ", (h.precompiled()), "\n")]]), "true 0\n")
  -- and back to the text it was built from: from bytecode again
  t.write(file, text)
  t.eq(probe(root, "llmd.timeline", "mark").loads, 1)
end)

t.test("precompiled: a copy found first along LLMDLUA_PATH is named after that copy", function()
  local root = fresh_root()
  local other = t.tmpdir()
  t.mkdir(other .. "/llmd")
  t.write(other .. "/llmd/timeline.lua", t.read(root .. "/lua/llmd/timeline.lua"))
  local p = probe(root, "llmd.timeline", "mark", { LLMDLUA_PATH = other .. "/?.lua;;" })
  t.eq({ p.loads, p.source }, { 1, "@" .. other .. "/llmd/timeline.lua" })
end)

t.test("precompiled: a module not found says so as Lua does, nothing added", function()
  local root = fresh_root()
  local code = [[local ok, e = pcall(require, "llmd.no_such_module") io.write(e)]]
  local with = run_in(root, code)
  local without = run_in(root, code, { LLMDLUA_PRECOMPILED = "0" })
  t.eq(with, without)
  t.ok(with:find("module 'llmd.no_such_module' not found:\n\tno field package.preload['llmd.no_such_module']\n\t"
    .. "no file '", 1, true), with)
end)

t.test("precompiled: an error's position and traceback name the file and line either way", function()
  local root = fresh_root()
  -- runmodel.to_plain indexes its argument: a number fails there, in the module's text
  local function err(env)
    local r = proc.run({ root .. "/llmdlua", "-e", "require('llmd.runmodel').to_plain(5)" }, { env = env })
    return r.code, r.stderr
  end
  local c1, e1 = err()
  local c0, e0 = err({ LLMDLUA_PRECOMPILED = "0" })
  t.eq({ c1, e1 }, { c0, e0 })
  t.eq(c1, 1)
  local text = t.read(root .. "/lua/llmd/runmodel.lua")
  local line = line_of(text, "function M.to_plain(")
  -- the first line of to_plain's body that indexes run (found in the text, not asked of Lua)
  local body = text:sub((text:find("function M.to_plain(", 1, true)))
  local first = body:match("^[^\n]*\n(.-)run[%.%[]")
  local _, n = first:gsub("\n", "")
  t.ok(e1:find(("%s/lua/llmd/runmodel.lua:%d: attempt to index a number value"):format(root, line + 1 + n), 1, true), e1)
end)
