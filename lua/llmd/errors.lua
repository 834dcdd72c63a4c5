-- llmd.errors: a raised error as the user reads it, and how a script ends on one.
--
--   local errors = require "llmd.errors"
--   errors.text(e)          -- e without the "file.lua:N: " position in front of it (nor llmdlua's own inside)
--   errors.strip_own(text)  -- text without the positions of llmdlua's own sources anywhere in it
--   errors.user_text(e)     -- that one line, or nil when e is a bug of Lua code (keeps its traceback)
--   errors.exit(e [, code]) -- one line on stderr and exit code (1 unless said); a bug raised again
--
-- A reader called from Lua (json.read, yaml.load_file, a check raising with error(msg, 2))
-- puts its caller's position in front of its message: "/usr/share/llmdlua/lua/llmd/prom_files.lua:183:
-- run/metrics_summary.json:1:2: ...". That place is of no use to the user, and it names
-- llmdlua's own sources; the message after it names the user's file and where in it. The
-- host (src/main.c) prints an error that reaches it by the same rule.
local M = {}
local host = require "llmd.host"

-- e as text, without a leading "file.lua:N: " (on its first line), nor the position of one
-- of llmdlua's own sources (a file of its lua/ folder: /usr/share/llmdlua/lua/llmd/parallel.lua:83:,
-- or as Lua shortens a long one, ".../lua/llmd/parallel.lua:83: ") anywhere in it: an error
-- caught and wrapped into another's message or a note ("note: run b was read again ...
-- (/x/lua/llmd/parallel.lua:83: /w/stats-12.bin: cannot write: ...)", newuser56) names the
-- user's file after it, and the place in llmdlua's code is of no use to them. The one rule
-- for every error text shown to a user (M.exit, llmd.parallel's notes, llmd.cluster's
-- progress lines). A position in any other file stays, except in front.
local own_cache = {}
local function own_source(path)
  local rel = path:match("/lua/(.+%.lua)$") or path:match("^lua/(.+%.lua)$")
  -- (Lua shortens a long name to its end, cut anywhere: "...lua/llmd/x.lua", "...a/llmd/x.lua")
  if not rel and path:sub(1, 3) == "..." then
    rel = path:match("(llmd/.+%.lua)$") or path:match("lua/([^/]+%.lua)$")
  end
  if not rel or not host.root then return false end
  local hit = own_cache[rel]
  if hit == nil then
    local f = io.open(host.root .. "/lua/" .. rel, "rb")
    hit = f ~= nil
    if f then f:close() end
    own_cache[rel] = hit
  end
  return hit
end
local function lead(e) return (tostring(e):gsub("^[^\n(]-%.lua:%d+: ", "")) end
-- text without the positions of llmdlua's own sources anywhere in it (what M.text does
-- after the leading one): for a line that wraps an error (a note, a progress line).
function M.strip_own(text)
  return (tostring(text):gsub("([^%s%(%)\"']+%.lua):%d+: ", function(path)
    if own_source(path) then return "" end
  end))
end
function M.text(e) return M.strip_own(lead(e)) end

-- Does text start with the user's file ("plan.yaml:2:1: ...", "/data/x.json: ...",
-- "(stdin):1: ...")? The host's own rule (names_a_file in src/main.c), one implementation for
-- the errors it prints and the ones a script ends on here.
local names_a_file = host.names_a_file

-- The one line the user reads for e, a raised error: e itself when it carries no Lua
-- position, the message after the position when that names the user's file. nil for a
-- bug: a position in front of anything else (a runtime error such as indexing nil), a
-- standard function's "bad argument", one of Lua's runtime errors without its position
-- ("attempt to index a nil value" raised in a C function, caught by a pcall and passed on:
-- the host's runtime_error rule, which prints such an error with its traceback), a value
-- that is not a string.
function M.user_text(e)
  if type(e) ~= "string" then
    local mt = getmetatable(e)
    -- an error object with a text of its own (llmd.harness's bad warm-up list)
    if mt and mt.__tostring then return tostring(e) end
    return nil
  end
  if e:match("^bad argument") or host.runtime_error(e) then return nil end
  -- (the position in front decides; any of llmdlua's own inside it goes either way: M.text)
  local rest = lead(e)
  if rest == e or names_a_file(rest) then return M.text(rest) end
  return nil
end

-- Ends the script on e, a raised error: one line on stderr and os.exit(code), 1 unless
-- said. A usage error (2) and an interrupt (130) name the script ("experiment.lua: ..."), as
-- llmd.args does; an error in the data is "llmdlua: ...", as the host prints the other
-- scripts' (README: Running scripts). A bug (user_text is nil) is raised again, so the
-- host prints it with its traceback.
function M.exit(e, code)
  code = code or 1
  local msg
  if code == 2 or code == 130 then
    msg = M.text(e)
  else
    msg = M.user_text(e)
    if not msg then error(e, 0) end
  end
  local script = tostring(arg and arg[0] or "llmdlua"):match("[^/]+$")
  io.stdout:flush()
  io.stderr:write((code == 2 or code == 130) and (script .. ": ") or "llmdlua: ", msg, "\n")
  os.exit(code)
end

return M
