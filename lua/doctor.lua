-- doctor.lua: what this llmdlua sees — where it is installed, where it looks for Lua
-- modules, and which of the tools a benchmark run calls are on PATH.
--
-- usage: llmdlua doctor.lua          (exit 1 if a required tool is missing)
local proc = require "llmd.proc"
local host = require "llmd.host"

print(("llmdlua   %s (%s)"):format(host.version, host.lua))
print(("root      %s"):format(host.root or "(not found)"))
print(("path      %s"):format(package.path))

-- The cluster tools compare.lua drives; oc only on OpenShift, python3 for benchmarks.
local tools = {
  { "kubectl", true, { "version", "--client" } },
  { "helm", true, { "version", "--short" } },
  { "helmfile", true, { "--version" } },
  { "oc", false, { "version", "--client" } },
  { "python3", false, { "--version" } },
}

local missing = 0
for _, t in ipairs(tools) do
  local name, required, args = t[1], t[2], t[3]
  local path = proc.which(name)
  local what
  if not path then
    what = required and "MISSING (required)" or "not found (optional)"
    if required then missing = missing + 1 end
  else
    local argv = { path }
    for _, a in ipairs(args) do argv[#argv + 1] = a end
    local ok, r = pcall(proc.run, argv, { timeout = 10, stderr = "stdout" })
    local first = ok and r.stdout:match("[^\n]+") or nil
    what = path .. (first and ("  (" .. first .. ")") or "")
  end
  print(("%-9s %s"):format(name, what))
end
os.exit(missing == 0 and 0 or 1)
