-- llmd.exitstatus: how a finished process ended, as the user reads it in a message.
--
--   local exitstatus = require "llmd.exitstatus"
--   exitstatus.text(r)   -- "exit 3", "killed by signal 9" or "exit status unknown (<why>)"
--
-- r is what llmd.proc's run/wait return: code (exited), signal (killed) or unknown (the
-- child was reaped by another wait, src/lproc.c push_status: its status is lost). Every
-- message naming a failed command's status says it through here, so that a lost status
-- reads as unknown, with the reason, never as "exit nil".
local M = {}

function M.text(r)
  if type(r) ~= "table" then return "exit status unknown (the command gave no status)" end
  if r.unknown then return ("exit status unknown (%s)"):format(tostring(r.unknown)) end
  if r.code then return "exit " .. tostring(r.code) end
  if r.signal then return "killed by signal " .. tostring(r.signal) end
  return "exit status unknown (the command gave no status)"
end

return M
