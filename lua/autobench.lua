-- llmdlua autobench.lua: cross-framework serving-config search (SGLang, vLLM,
-- TensorRT-LLM, TokenSpeed).
--
--   validate PATH... [--help-dir DIR] [--print-commands]
--   plan CONFIG [--frameworks sglang,vllm] [--out plan.jsonl] [--text]
--   run CONFIG --out results.jsonl [--frameworks ...] [--dry-run]
--   compare RESULTS.jsonl... [--sla K=V,... | --sla CONFIG] [--md OUT.md] [--csv OUT.csv]
local ab = require "llmd.autobench"
local args = require "llmd.args"
local json = require "llmd.json"

local cmd = arg[1]
local rest = {}
for i = 2, #arg do rest[#rest + 1] = arg[i] end

local USAGE = [[usage: llmdlua autobench.lua COMMAND ...
  validate PATH... [--help-dir DIR] [--print-commands]
  plan CONFIG [--frameworks LIST] [--out FILE] [--text]
  run CONFIG --out FILE [--frameworks LIST] [--dry-run] [--timeout S]
  compare RESULTS.jsonl... [--sla K=V,...|CONFIG] [--md FILE] [--csv FILE]
]]

if cmd == "-h" or cmd == "--help" or cmd == "help" then
  io.write(USAGE, "  (llmdlua autobench.lua COMMAND --help for a command's options)\n")
  os.exit(0)
end

local ws = require "llmd.workspace"

-- the output's folder made when missing, the file written atomically
local function write_file(path, text)
  local dir = path:match("^(.*)/[^/]*$")
  if dir and dir ~= "" then ws.mkdir_p(dir) end
  ws.write_text(path, text)
end

if cmd == "validate" then
  local o = args.parse(rest, { usage = "llmdlua autobench.lua validate PATH... [--help-dir DIR] [--print-commands]",
    options = { help_dir = "DIR", print_commands = true }, positional = { min = 1 } })
  local help = o.help_dir and ab.read_help_dir(o.help_dir) or nil
  local paths = {}
  local failed = false
  for i = 1, #o do
    -- a folder without a config is a mistake (a wrong path), not "all valid"
    if require("lfs").attributes(o[i], "mode") == "directory" and #ab.config_paths { o[i] } == 0 then
      io.write(o[i], ": no autobench configs here (looked for *.yaml and *.yml in the folder and below)\n")
      failed = true
    end
    paths[i] = o[i]
  end
  for _, p in ipairs(ab.config_paths(paths)) do
    local cfg, err = ab.load(p)
    local errs = cfg and ab.validate(cfg, { help = help }) or { err }
    for _, e in ipairs(errs) do io.write(p, ": ", e, "\n") end
    if #errs > 0 then
      failed = true
    elseif o.print_commands then
      for _, fw in ipairs(ab.FRAMEWORKS) do
        local sec = cfg.frameworks[fw]
        if sec.enabled ~= false then
          io.write("# ", p:match("[^/]+$"), " ", fw, "\n")
          io.write((ab.render(cfg, fw, ab.candidates(cfg, fw)[1])), "\n")
        end
      end
    end
  end
  os.exit(failed and 1 or 0)
elseif cmd == "plan" then
  local o = args.parse(rest, { usage = "llmdlua autobench.lua plan CONFIG [--frameworks LIST] [--out FILE] [--text]",
    options = { frameworks = "LIST", out = "FILE", text = true }, positional = { min = 1, max = 1 } })
  local plan = ab.plan(o[1], { frameworks = o.frameworks })
  if o.text then
    io.write(ab.plan_text(plan))
  else
    local lines = {}
    for _, e in ipairs(plan.entries) do lines[#lines + 1] = json.encode(e) end
    local text = table.concat(lines, "\n") .. "\n"
    if o.out then write_file(o.out, text) else io.write(text) end
  end
  os.exit(0)
elseif cmd == "compare" then
  local o = args.parse(rest, {
    usage = "llmdlua autobench.lua compare RESULTS.jsonl... [--sla ...] [--md FILE] [--csv FILE]",
    options = { sla = "K=V,...|CONFIG", md = "FILE", csv = "FILE" }, positional = { min = 1 } })
  local rows = {}
  for i = 1, #o do
    for _, r in ipairs(ab.read_rows(o[i])) do rows[#rows + 1] = r end
  end
  local sla = o.sla and ab.parse_sla(o.sla) or nil
  for _, note in ipairs(ab.recompute_sla(rows, sla)) do io.stderr:write("note: ", note, "\n") end
  local md = ab.summary(rows)
  if o.md then write_file(o.md, md) else io.write(md) end
  if o.csv then write_file(o.csv, ab.csv(rows)) end
  os.exit(0)
elseif cmd == "run" then
  local o = args.parse(rest, { usage = "llmdlua autobench.lua run CONFIG --out FILE [--frameworks LIST] [--dry-run]",
    options = { out = "FILE", frameworks = "LIST", dry_run = true, timeout = "S" }, positional = { min = 1, max = 1 } })
  if not o.out then io.stderr:write("autobench.lua run: --out FILE is required\n"); os.exit(2) end
  local ok = require("llmd.autobench_run").run(o[1], { out = o.out, frameworks = o.frameworks, dry_run = o.dry_run,
    timeout = o.timeout and tonumber(o.timeout) })
  os.exit(ok and 0 or 1)
else
  io.stderr:write(cmd and ("autobench.lua: unknown command '" .. cmd .. "'\n") or "", USAGE)
  os.exit(2)
end
