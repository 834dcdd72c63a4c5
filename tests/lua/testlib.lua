-- testlib: assertions and test registration for llmdlua's Lua tests.
--
--   local t = require "testlib"
--   t.test("name", function() t.eq(f(1), 2) end)
--
-- A test file may also return a table of named test functions. Failures are raised
-- with error(msg, 2) so they point at the test's own line.
local M = {}

local registered = {}

function M.test(name, fn)
  registered[#registered + 1] = { name = name, fn = fn }
end

-- Hands the registered tests to the runner and starts a fresh list.
function M._take()
  local list = registered
  registered = {}
  return list
end

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

-- Deep comparison; returns nil or the path and the two values that differ.
local function diff(a, b, path, seen)
  if a == b then return nil end
  if type(a) ~= "table" or type(b) ~= "table" then
    if type(a) == "number" and type(b) == "number" and a ~= a and b ~= b then return nil end
    if type(a) == "number" and type(b) == "number" and math.type(a) ~= math.type(b) then
      return string.format("%s: %s (%s) ~= %s (%s)", path, show(a), math.type(a), show(b), math.type(b))
    end
    return string.format("%s: %s ~= %s", path, show(a), show(b))
  end
  seen = seen or {}
  if seen[a] == b then return nil end
  seen[a] = b
  for k, v in pairs(a) do
    local d = diff(v, b[k], path .. "[" .. show(k) .. "]", seen)
    if d then return d end
  end
  for k, v in pairs(b) do
    if a[k] == nil then
      return string.format("%s[%s]: nil ~= %s", path, show(k), show(v))
    end
  end
  return nil
end

-- got equals want: same value, same number subtype, same table contents (deep).
function M.eq(got, want, what)
  if math.type(got) ~= math.type(want) and type(got) == "number" and type(want) == "number" then
    error(string.format("%s%s (%s) ~= %s (%s)", what and what .. ": " or "", show(got),
      math.type(got), show(want), math.type(want)), 2)
  end
  local d = diff(got, want, "value")
  if d then error((what and what .. ": " or "") .. d, 2) end
end

function M.near(got, want, tol, what)
  if type(got) ~= "number" or math.abs(got - want) > tol then
    error(string.format("%sgot %s, want %s within %g", what and what .. ": " or "", show(got),
      show(want), tol), 2)
  end
end

function M.ok(v, what)
  if not v then error("not true: " .. (what or show(v)), 2) end
  return v
end

-- fn() must raise an error whose message contains text (plain match).
function M.raises(text, fn, ...)
  local ok, err = pcall(fn, ...)
  if ok then error("expected an error containing " .. show(text) .. ", got none", 2) end
  err = tostring(err)
  if not err:find(text, 1, true) then
    error("expected an error containing " .. show(text) .. ", got " .. show(err), 2)
  end
  return err
end

-- A fresh temporary folder, removed by the runner after the test file has run.
local tmpdirs = {}
function M.tmpdir()
  local proc = require "llmd.proc"
  local r = proc.run({ "mktemp", "-d", "/tmp/llmdlua-test-XXXXXX" })
  assert(r.ok, r.stderr)
  local dir = r.stdout:gsub("%s+$", "")
  tmpdirs[#tmpdirs + 1] = dir
  return dir
end

function M._cleanup()
  local proc = require "llmd.proc"
  for _, d in ipairs(tmpdirs) do proc.run({ "rm", "-rf", d }) end
  tmpdirs = {}
end

function M.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

function M.read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- The documents of a JSON-lines file (the fake cluster's calls.log), {} when it does not exist.
function M.jsonl(path)
  local out = {}
  local f = io.open(path)
  if not f then return out end
  for line in f:lines() do out[#out + 1] = require("llmd.json").decode(line) end
  f:close()
  return out
end

-- ../shared/fixtures beside the repository (or $LLMDLUA_FIXTURES); fails loudly when
-- it is missing rather than skipping what depends on it.
function M.fixtures()
  local lfs = require "lfs"
  local src = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
  local dir = os.getenv("LLMDLUA_FIXTURES") or (src .. "/../../../shared/fixtures")
  assert(lfs.attributes(dir, "mode") == "directory",
    "fixtures not found at " .. dir .. " (set LLMDLUA_FIXTURES)")
  return dir
end

-- |got - want| / |want| (0 when equal).
function M.rel(got, want)
  if got == want then return 0 end
  return math.abs(got - want) / math.max(math.abs(want), 1e-300)
end

-- The folder of the running test file, for fixtures beside it.
function M.here()
  local src = debug.getinfo(2, "S").source
  return (src:match("^@(.*)/[^/]*$")) or "."
end

return M
