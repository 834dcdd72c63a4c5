-- llmd.timeline: where a comparison's wall time goes, for whoever tunes it.
--
--   local tl = require "llmd.timeline"
--   tl.mark("scan a")          -- a line in $LLMDLUA_TIMES, nothing without it
--
-- With LLMDLUA_TIMES=FILE every mark appends one line to FILE (opened for each line, so
-- a parent and its children can share it):
--   <monotonic seconds> <pid> <user CPU s> <system CPU s> <what just ended>
-- The clock is the system's monotonic one, the same in every process, so the lines of
-- the two readers of a comparison sort into one timeline. Without the variable a mark
-- costs one table lookup.
local M = {}

local path = os.getenv("LLMDLUA_TIMES")
if path == "" then path = nil end
M.enabled = path ~= nil

local proc, pid
if path then
  proc = require "llmd.proc"
  local f = io.open("/proc/self/stat", "rb")
  local s = f and f:read("l")
  if f then f:close() end
  pid = tonumber(s and s:match("^(%d+)")) or 0
end

-- Notes that what (a phase) has just ended.
function M.mark(what)
  if not path then return end
  local u, s = proc.cpu()
  local f = io.open(path, "ab")
  if not f then return end -- (a timing aid: never a reason to fail the comparison)
  f:write(("%.6f %d %.3f %.3f %s\n"):format(proc.now(), pid, u, s, what))
  f:close()
end

return M
