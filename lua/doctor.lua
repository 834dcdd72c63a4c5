-- doctor.lua: what this llmdlua sees — where it is installed, where it looks for Lua
-- modules, and which of the tools a benchmark run calls are on PATH.
--
-- usage: llmdlua doctor.lua [--cluster]
--   Comparing runs that exist (compare.lua --a/--b, analyze.lua, extract.lua) needs no
--   cluster tool: they are listed, not required. With --cluster (before compare.lua
--   --plan), kubectl, helm and helmfile are required: exit 1 if one is missing.
local args = require "llmd.args"
local proc = require "llmd.proc"
local host = require "llmd.host"

local o = args.parse(arg, {
  command = "llmdlua doctor.lua",
  usage = "llmdlua doctor.lua [--cluster]",
  help = "  --cluster   require the cluster tools compare.lua --plan drives (exit 1 if one is missing)\n",
  options = { cluster = true },
})

print(("llmdlua   %s (%s)"):format(host.version, host.lua))
print(("root      %s"):format(host.root or "(not found)"))
print(("path      %s"):format(package.path))

-- The cluster tools compare.lua --plan drives; oc only on OpenShift, python3 for benchmarks.
local tools = {
  { "kubectl", true, { "version", "--client" } },
  { "helm", true, { "version", "--short" } },
  { "helmfile", true, { "--version" } },
  { "oc", false, { "version", "--client" } },
  { "python3", false, { "--version" } },
}

local missing = 0
for _, t in ipairs(tools) do
  local name, cluster, argv0 = t[1], t[2], t[3]
  local path = proc.which(name)
  local what
  if not path then
    if cluster and o.cluster then
      what = "MISSING (required by compare.lua --plan)"
      missing = missing + 1
    elseif cluster then
      what = "not found (needed only for compare.lua --plan; comparing existing runs works without it)"
    else
      what = "not found (optional)"
    end
  else
    local argv = { path }
    for _, a in ipairs(argv0) do argv[#argv + 1] = a end
    local ok, r = pcall(proc.run, argv, { timeout = 10, stderr = "stdout" })
    local first = ok and r.stdout:match("[^\n]+") or nil
    what = path .. (first and ("  (" .. first .. ")") or "")
  end
  print(("%-9s %s"):format(name, what))
end
os.exit(missing == 0 and 0 or 1)
