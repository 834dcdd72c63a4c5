-- doctor.lua: what this llmdlua sees — where it is installed, where it looks for Lua
-- modules, and which of the tools a benchmark run calls are on PATH.
--
-- usage: llmdlua doctor.lua [--cluster]
--   Comparing runs that exist (compare.lua --a/--b, analyze.lua, extract.lua) needs no
--   cluster tool: they are listed, not required. With --cluster (before compare.lua
--   --plan), kubectl, helm and helmfile are required: exit 1 (one line on stderr) if one is
--   missing or its version call fails.
local exitstatus = require "llmd.exitstatus"
local args = require "llmd.args"
local proc = require "llmd.proc"
local host = require "llmd.host"

local o = args.parse(arg, {
  command = "llmdlua doctor.lua",
  usage = "llmdlua doctor.lua [--cluster]",
  help = "  --cluster   require the cluster tools compare.lua --plan drives (exit 1 if one is missing or fails)\n",
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
local failing = {} -- required tools on PATH whose version call failed
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
    if ok and r.ok then
      what = path .. (first and ("  (" .. first .. ")") or "")
    else
      -- Found but failing (exit status, or could not be run): a tool compare.lua --plan
      -- calls that fails here fails there too, so --cluster counts it as missing.
      local why = first or (ok and exitstatus.text(r) or tostring(r))
      local call = table.concat(argv0, " ")
      if cluster and o.cluster then
        failing[#failing + 1] = { name = name, why = ("`%s %s`: %s"):format(name, call, why) }
      end
      what = ("%s  FAILED: `%s %s`: %s"):format(path, name, call, why)
    end
  end
  print(("%-9s %s"):format(name, what))
end
-- Exit 1 with one line on stderr naming the cause, as every llmdlua script's exit 1.
if missing > 0 or #failing > 0 then
  local names, parts = {}, {}
  for _, t in ipairs(tools) do
    if t[2] and not proc.which(t[1]) then names[#names + 1] = t[1] end
  end
  if #names > 0 then
    parts[#parts + 1] = table.concat(names, ", ") .. (#names == 1 and " is" or " are") .. " not on PATH"
  end
  if #failing > 0 then
    local failed = {}
    for _, f in ipairs(failing) do failed[#failed + 1] = f.name end
    parts[#parts + 1] = ("%s failed (%s)"):format(table.concat(failed, ", "), failing[1].why)
  end
  io.stderr:write("doctor.lua: --cluster: ", table.concat(parts, "; "),
    "; compare.lua --plan needs kubectl, helm and helmfile\n")
  os.exit(1)
end
os.exit(0)
