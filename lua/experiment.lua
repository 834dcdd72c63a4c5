-- llmdlua experiment.lua EXPERIMENT.yaml --show
--
-- Reads an llm-d-benchmark experiment (setup treatments x run treatments) and prints
-- its parsed form (JSON) and the warnings about what was skipped.
local args = require "llmd.args"
local ex = require "llmd.experiment"
local json = require "llmd.json"

local o = args.parse(arg, {
  usage = "llmdlua experiment.lua EXPERIMENT.yaml --show",
  help = [[
  --show                    print the parsed experiment (JSON) and its warnings
]],
  options = { show = true },
  positional = { min = 1, max = 1 },
})

-- a user's mistake (a bad file, a bad key) is one line naming it, not a traceback
local function fail(msg)
  io.stderr:write("experiment.lua: ", tostring(msg), "\n")
  os.exit(1)
end

local ok, e = pcall(ex.load, o[1])
if not ok then fail(e) end
for _, w in ipairs(e.warnings) do io.stderr:write("warning: ", w, "\n") end
if o.show then
  io.write(json.encode(ex.summary(e), { indent = 2 }), "\n")
  os.exit(0)
end
io.stderr:write("experiment.lua: nothing to do (give --show)\n")
os.exit(2)
