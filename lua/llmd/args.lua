-- llmd.args: command-line options for llmdlua scripts.
--
--   local args = require "llmd.args"
--   local o = args.parse(arg, {
--     usage = "llmdlua extract.lua RESULTS_DIR [options]",
--     options = { harness = "NAME", json = true, warmup = "LIST" },   -- true: a flag; a string: takes a value
--     positional = { min = 1, max = 1 },
--   })
--   o.harness, o.json, o[1]
--
-- "--name value" and "--name=value"; "-h"/"--help" prints the usage and exits 0; anything
-- else unknown is a usage error (exit 2) naming it. Dashes in names become underscores.
local M = {}

local function usage_error(spec, msg)
  io.stderr:write(("%s: %s\nusage: %s\n"):format(arg and arg[0] or "llmdlua", msg, spec.usage))
  os.exit(2)
end

function M.parse(argv, spec)
  local out, i = {}, 1
  local n = #argv
  while i <= n do
    local a = argv[i]
    if a == "-h" or a == "--help" then
      io.stdout:write("usage: " .. spec.usage .. "\n" .. (spec.help or ""))
      os.exit(0)
    elseif a == "--" then
      for j = i + 1, n do out[#out + 1] = argv[j] end
      break
    elseif a:sub(1, 2) == "--" then
      local name, value = a:match("^%-%-([^=]+)=(.*)$")
      name = name or a:sub(3)
      local key = name:gsub("%-", "_")
      local kind = spec.options[key]
      if kind == nil then usage_error(spec, "unknown option --" .. name) end
      if kind == true then
        if value then usage_error(spec, "--" .. name .. " takes no value") end
        out[key] = true
      else
        if not value then
          i = i + 1
          value = argv[i]
          if value == nil then usage_error(spec, "--" .. name .. " needs a value (" .. kind .. ")") end
        end
        out[key] = value
      end
    elseif a:sub(1, 1) == "-" and a ~= "-" then
      usage_error(spec, "unknown option " .. a)
    else
      out[#out + 1] = a
    end
    i = i + 1
  end
  local p = spec.positional or { min = 0, max = 0 }
  if #out < (p.min or 0) then usage_error(spec, "missing argument") end
  if p.max and #out > p.max then usage_error(spec, "unexpected argument " .. out[p.max + 1]) end
  return out
end

-- "0,2-4" -> {0, 2, 3, 4}; errors name the option.
function M.list_of_ints(s, what)
  local out = {}
  for part in tostring(s):gmatch("[^,]+") do
    local a, b = part:match("^%s*(%d+)%s*%-%s*(%d+)%s*$")
    if a then
      for k = tonumber(a), tonumber(b) do out[#out + 1] = k end
    elseif part:match("^%s*%d+%s*$") then
      out[#out + 1] = tonumber(part)
    else
      error(("%s: '%s' is not a number or a range like 2-4"):format(what, part), 0)
    end
  end
  return out
end

return M
