-- llmdlua autobench.lua: cross-framework serving-config search (SGLang, vLLM,
-- TensorRT-LLM, TokenSpeed).
--
--   validate PATH... [--help-dir DIR] [--print-commands]
--   plan CONFIG [--frameworks sglang,vllm] [--out plan.jsonl] [--text]
--   run CONFIG --out results.jsonl [--frameworks ...] [--dry-run] [--force] [--timeout S]
--   compare RESULTS.jsonl... [--sla K=V,... | --sla CONFIG] [--md OUT.md] [--csv OUT.csv]
--           [--evidence OUT.txt] [--toolchain-md]
local ab = require "llmd.autobench"
local args = require "llmd.args"
local lfs = require "lfs"

-- --frameworks LIST: each a framework autobench knows, else one line and exit 2
local function check_frameworks(list)
  if not list then return end
  for f in list:gmatch("[^,%s]+") do args.choice("--frameworks", f, ab.FRAMEWORKS) end
end
local json = require "llmd.json"

local cmd = arg[1]
local rest = {}
for i = 2, #arg do rest[#rest + 1] = arg[i] end

local USAGE = [[usage: llmdlua autobench.lua COMMAND ...
  validate PATH... [--help-dir DIR] [--print-commands]
  plan CONFIG [--frameworks LIST] [--out FILE] [--text]
  run CONFIG --out FILE [--frameworks LIST] [--dry-run] [--force] [--timeout S]
  compare RESULTS.jsonl... [--sla K=V,...|CONFIG] [--md FILE] [--csv FILE] [--evidence FILE]
]]

if cmd == "-h" or cmd == "--help" or cmd == "help" then
  io.write(USAGE, "  (llmdlua autobench.lua COMMAND --help for a command's options)\n")
  os.exit(0)
end

local ws = require "llmd.workspace"
local proc = require "llmd.proc"

-- the output's folder made when missing (said on stderr, as compare.lua says of --parent: a
-- mistyped folder would otherwise hold the file silently where nobody looks), the file
-- written atomically; what names the option (--md, --csv, --evidence, --out)
local function make_dir(path, what)
  local dir = path:match("^(.*)/[^/]*$")
  if dir and dir ~= "" and lfs.attributes(dir, "mode") == nil then
    ws.mkdir_p(dir)
    io.stderr:write(("note: %s did not exist; made it for the %s file\n"):format(dir, what))
  end
end

local function write_file(path, text, what)
  make_dir(path, what)
  ws.write_text(path, text)
end

-- Several outputs of one command (compare's --md, --csv, --evidence) as one set: all
-- written, or none changed (ws.write_set), never a new summary beside the last run's CSV.
-- files: { {path, text, what}, ... }
local function write_files(files)
  if #files == 0 then return end
  local set = {}
  for i, f in ipairs(files) do
    make_dir(f[1], f[3])
    set[i] = { f[1], f[2] }
  end
  ws.write_set(set)
end

-- Each output the command line names can be written, checked before anything is written
-- or printed: a folder that cannot be made or written would otherwise fail after the whole
-- summary went to stdout (one output done, the next refused). A folder still missing is
-- made later, by write_file, as it says; here only the nearest folder that is there must
-- be one this process can write in, and a file already there a file.
local function check_out(path, what)
  if lfs.attributes(path, "mode") == "directory" then
    error(("%s: is a folder (%s expects a file's path)"):format(path, what), 0)
  end
  local dir = path:match("^(.*)/[^/]*$")
  if dir == "" then dir = "/" end
  dir = dir or "."
  while lfs.attributes(dir, "mode") == nil and dir:match("/") do
    dir = dir:match("^(.*)/[^/]*$")
    if dir == "" then dir = "/" end
  end
  if lfs.attributes(dir, "mode") == nil then dir = "." end
  if lfs.attributes(dir, "mode") ~= "directory" then
    error(("%s: cannot write the %s file: %s is not a folder"):format(path, what, dir), 0)
  end
  local ok, why = ws.writable(dir)
  if not ok then
    error(("%s: cannot write the %s file: %s: %s; nothing written"):format(path, what, dir, why), 0)
  end
end

-- What tells two paths apart as files: device and inode where the file is there (a symlink or
-- a hard link to a results file is that file), else its folder's real path and its name (a
-- file not made yet can only be named twice).
local function file_key(path)
  local id = proc.file_id(path)
  if id then return "file " .. id:match("^%d+:%d+") end
  local dir, base = path:match("^(.*)/([^/]*)$")
  if not dir then dir, base = ".", path elseif dir == "" then dir = "/" end
  return "path " .. (proc.realpath(dir) or dir) .. "/" .. base
end

-- An output that is one of the results files read (or another output) would replace the
-- measurements with a summary (audit48 S7c: `compare R.jsonl --md R.jsonl` left R.jsonl a
-- 28-line markdown file, exit 0): refused before anything is read or written, exit 2.
local function check_outs_apart(inputs, outs)
  local seen = {}
  for _, p in ipairs(inputs) do seen[file_key(p)] = seen[file_key(p)] or ("the results file " .. p) end
  for _, o in ipairs(outs) do
    local k = file_key(o.path)
    if seen[k] then
      io.stderr:write(("%s: %s %s is %s: writing it would replace what is there; give another file\n")
        :format(args.script(), o.option, o.path, seen[k]))
      os.exit(2)
    end
    seen[k] = ("the %s file %s"):format(o.option, o.path)
  end
end

-- the evidence's first line: the summary is the toolchain's, this is llmdlua's reading of it
local EVIDENCE_HEAD = "How sure each choice is (llmdlua's reading; the summary ranks single best measurements):"

local interrupt_note -- what Ctrl-C leaves behind, said in its one line

local function main()
  if cmd == "validate" then
    local o = args.parse(rest, { command = "llmdlua autobench.lua validate",
      usage = "llmdlua autobench.lua validate PATH... [--help-dir DIR] [--print-commands]",
      options = { help_dir = "DIR", print_commands = true }, positional = { min = 1 } })
    local help = o.help_dir and ab.read_help_dir(o.help_dir) or nil
    local paths = {}
    local failed = false
    -- (configs and folders with a problem said on stdout, of those looked at; those that could
    -- not be read, each said in its own line on stderr)
    local nbad, nchecked, unreadable = 0, 0, 0
    for i = 1, #o do
      -- a folder without a config is a mistake (a wrong path), not "all valid"
      if require("lfs").attributes(o[i], "mode") == "directory" and #ab.config_paths { o[i] } == 0 then
        io.write(o[i], ": no autobench configs here (looked for *.yaml and *.yml in the folder and below)\n")
        failed = true
        nbad, nchecked = nbad + 1, nchecked + 1
      end
      paths[i] = o[i]
    end
    for _, p in ipairs(ab.config_paths(paths)) do
      -- a file that cannot be read (not YAML, no such file) is one line on stderr naming it
      -- and where, "llmdlua: cfg.yaml:3:1: ...", as every script's error in the data; the
      -- other files are still validated
      local lok, cfg, err = pcall(ab.load, p)
      local errs = {}
      nchecked = nchecked + 1
      if not lok then unreadable = unreadable + 1 end
      if not lok then
        if tostring(cfg):match("interrupted$") then error(cfg, 0) end -- (Ctrl-C: stops, as anywhere)
        io.stdout:flush()
        io.stderr:write("llmdlua: ", require("llmd.errors").text(cfg), "\n")
        failed = true
        cfg = nil
      elseif cfg then
        errs = ab.validate(cfg, { help = help })
        for _, e in ipairs(ab.validate_run(cfg)) do errs[#errs + 1] = e end
      else
        errs = { err }
      end
      for _, e in ipairs(errs) do io.write(p, ": ", e, "\n") end
      if #errs > 0 then
        failed = true
        nbad = nbad + 1
      elseif o.print_commands and cfg then
        for _, fw in ipairs(ab.FRAMEWORKS) do
          local sec = cfg.frameworks[fw]
          if sec.enabled ~= false then
            io.write("# ", p:match("[^/]+$"), " ", fw, "\n")
            io.write((ab.render(cfg, fw, ab.candidates(cfg, fw)[1])), "\n")
          end
        end
      end
    end
    -- (a file that could not be read said its own line on stderr already: that is the cause
    -- named; the other configs' problems are on stdout)
    if failed and unreadable > 0 then os.exit(1) end
    if failed then
      -- the problems are listed above, one line each (stdout, the validation's output; an
      -- unreadable file's on stderr); the exit 1's one line on stderr says where
      io.stdout:flush()
      io.stderr:write(("autobench.lua validate: %d of %d config(s) or folder(s) have problems (listed above, each "
        .. "naming its file)\n"):format(nbad, nchecked))
      os.exit(1)
    end
    os.exit(0)
  elseif cmd == "plan" then
    local o = args.parse(rest, { command = "llmdlua autobench.lua plan",
      usage = "llmdlua autobench.lua plan CONFIG [--frameworks LIST] [--out FILE] [--text]",
      options = { frameworks = "LIST", out = "FILE", text = true }, positional = { min = 1, max = 1 } })
    check_frameworks(o.frameworks)
    args.path(o[1], o[1], "file", "an autobench config, a YAML file", "autobench.lua plan")
    local plan = ab.plan(o[1], { frameworks = o.frameworks })
    if o.text then
      io.write(ab.plan_text(plan))
    else
      local lines = {}
      for _, e in ipairs(plan.entries) do lines[#lines + 1] = json.encode(e) end
      local text = table.concat(lines, "\n") .. "\n"
      if o.out then write_file(o.out, text, "--out") else io.write(text) end
    end
    os.exit(0)
  elseif cmd == "compare" then
    local o = args.parse(rest, {
      command = "llmdlua autobench.lua compare",
      usage = "llmdlua autobench.lua compare RESULTS.jsonl... [--sla ...] [--md FILE] [--csv FILE] [--evidence FILE] "
        .. "[--toolchain-md]",
      help = [[
  --sla K=V,...|CONFIG  thresholds sla.passed is recomputed against (else each row's own)
  --md FILE             the markdown summary (else on stdout): the toolchain's tables, with
                        beside each best command and rank 1 the mean of its repeats (95 %
                        CI; the toolchain's Req/s is its best row) and an Evidence column
  --toolchain-md        the toolchain's markdown summary and CSV byte for byte (no Evidence
                        column, a skipped candidate once per results file, no llmdlua_note)
  --csv FILE            the toolchain's CSV of every row (each row's own figures), and a
                        last column llmdlua_note: for each pick, the mean of its repeats
                        and the evidence for it; for an ok row, where its server command
                        crashed in another row (out of memory under another scenario, say);
                        for a row whose sla_passed is empty (not True nor False: skipped,
                        or a metric the SLA needs unknown), why
  --evidence FILE       how sure each choice of the summary is (else on stderr): what
                        decided it, and whether repeats carry it (Welch, Holm) or it is
                        untested (one measurement each)
]],
      options = { sla = "K=V,...|CONFIG", md = "FILE", csv = "FILE", evidence = "FILE", toolchain_md = true },
      positional = { min = 1 } })
    local rows = {}
    for i = 1, #o do args.path(o[i], o[i], "file", "a results file, JSON lines", "autobench.lua compare") end
    local outs = {}
    for _, k in ipairs { "md", "csv", "evidence" } do
      if o[k] then
        check_out(o[k], "--" .. k)
        outs[#outs + 1] = { option = "--" .. k, path = o[k] }
      end
    end
    check_outs_apart(o, outs)
    for i = 1, #o do
      local got = ab.read_rows(o[i])
      -- an empty file is no results (the toolchain writes "No rows found." and exits 0):
      -- a wrong path or a run that never started, said as one line, exit 1
      if #got == 0 then
        error(("%s: no autobench rows (no JSON line in it; expected JSON lines, one row per candidate and "
          .. "scenario, as autobench.lua run writes)"):format(o[i]), 0)
      end
      for _, r in ipairs(got) do
        ab.check_row(r)
        rows[#rows + 1] = r
      end
    end
    -- a K=V list that is wrong is a bad option value (exit 2); a config file's, its data (exit 1)
    local sla = o.sla and (lfs.attributes(o.sla, "mode") == "file" and ab.parse_sla(o.sla)
      or args.value(ab.parse_sla, o.sla)) or nil
    for _, note in ipairs(ab.recompute_sla(rows, sla)) do io.stderr:write("note: ", note, "\n") end
    -- how sure each choice of the summary is: beside each best command and rank 1 in the
    -- markdown (--toolchain-md: the toolchain's summary as it writes it, byte for byte), and
    -- on stderr (or --evidence FILE)
    local ev = ab.evidence(rows)
    local md = ab.summary(rows, { evidence = not o.toolchain_md and (ev.by_where or {}) or nil,
      readings = ev.readings })
    local files = {}
    if o.md then files[#files + 1] = { o.md, md, "--md" } else io.write(md) end
    -- (the summary in a file: that its rows are a mock's said on stdout too, as the summary
    -- says it first; tidy55)
    local sim = o.md and ab.simulated_text(rows)
    if sim then io.write(("Simulated, not a measurement: %s The summary, %s, says so first.\n"):format(sim, o.md)) end
    if o.csv then
      files[#files + 1] = { o.csv, ab.csv(rows, { notes = not o.toolchain_md, evidence = ev.by_where,
        readings = ev.readings }), "--csv" }
    end
    if #ev > 0 then
      local text = EVIDENCE_HEAD .. "\n" .. table.concat(ev, "\n") .. "\n"
      if o.evidence then files[#files + 1] = { o.evidence, text, "--evidence" } else io.stderr:write(text) end
    elseif o.evidence then
      files[#files + 1] = { o.evidence, EVIDENCE_HEAD .. "\nno choice to weigh: fewer than two candidates in every "
        .. "scenario\n", "--evidence" }
    end
    write_files(files)
    os.exit(0)
  elseif cmd == "run" then
    local o = args.parse(rest, {
      command = "llmdlua autobench.lua run",
      usage = "llmdlua autobench.lua run CONFIG --out FILE [--frameworks LIST] [--dry-run] [--force] [--timeout S]",
      help = [[
  --out FILE         the results, one JSON row per candidate and scenario; rows already there
                     for the same command and scenario are kept and not run again (resume)
  --frameworks LIST  only these frameworks (comma list); the others are noted user-excluded
  --dry-run          print each server and client command; start nothing, write nothing
  --force            move rows that no longer match the config to FILE.stale.jsonl and
                     measure those candidates again (without it the run stops, naming them)
  --timeout S        seconds a server may take to answer (overrides run.ready_timeout, 600)
Exit status: 0 every candidate run has ok rows (an SLA miss is a result, not a failure);
1 a row failed, ran out of memory or timed out, a server exited, no candidate could be run,
or an error (a bad config, stale rows); 2 a usage error, or another run writing FILE;
130 interrupted (rerun to resume).
]],
      options = { out = "FILE", frameworks = "LIST", dry_run = true, timeout = "S", force = true },
      positional = { min = 1, max = 1 } })
    if not o.out then io.stderr:write("autobench.lua run: --out FILE is required\n"); os.exit(2) end
    args.path(o[1], o[1], "file", "an autobench config, a YAML file", "autobench.lua run")
    -- an --out that is there must be a results file (links followed): a folder failed at the
    -- first row, after a server had run; /dev/null took the rows, then "cannot cut the part
    -- written"; a FIFO would hang the run. And never the config itself (its YAML was then
    -- read as rows: "invalid JSON").
    local omode = lfs.attributes(o.out, "mode")
    if omode and omode ~= "file" then
      io.stderr:write(("autobench.lua run: --out %s is %s, not a file: expected the path of a results file (JSON "
        .. "lines, made when missing)\n"):format(o.out, omode == "directory" and "a folder" or ("a " .. omode)))
      os.exit(2)
    end
    if omode and file_key(o.out) == file_key(o[1]) then
      io.stderr:write(("autobench.lua run: --out %s is the config %s: the rows would be appended to it; give another "
        .. "file\n"):format(o.out, o[1]))
      os.exit(2)
    end
    check_frameworks(o.frameworks)
    local timeout = o.timeout and tonumber(o.timeout)
    if o.timeout and not (timeout and timeout > 0) then
      io.stderr:write("autobench.lua run: --timeout must be a number of seconds > 0, not '", o.timeout, "'\n")
      os.exit(2)
    end
    io.stdout:setvbuf("line") -- progress shows as it happens, also in a file or a pipe
    interrupt_note = ("the rows finished so far are in %s; run the same command again to resume"):format(o.out)
    local ok, cause = require("llmd.autobench_run").run(o[1], { out = o.out, frameworks = o.frameworks,
      dry_run = o.dry_run,
      timeout = timeout, force = o.force, in_use = function(msg)
        -- (another run writing this output: one line, exit 2, as compare.lua's workspace in use)
        io.stderr:write("autobench.lua run: ", msg, "\n")
        os.exit(2)
      end })
    if not ok then
      -- one line on stderr, the cause (README: exit 1), after the progress it sums up
      io.stdout:flush()
      io.stderr:write("autobench.lua run: ", cause or "not every row is ok", "\n")
      os.exit(1)
    end
    os.exit(0)
  else
    -- no command: the usage (the commands) is the answer; a wrong one is one line, as a
    -- wrong option is (llmd.args)
    if not cmd then io.stderr:write(USAGE); os.exit(2) end
    local near = require("llmd.opts").closest(cmd, { "compare", "plan", "run", "validate" })
    io.stderr:write(("autobench.lua: unknown command '%s'%s; see llmdlua autobench.lua --help\n"):format(cmd,
      near and (" (did you mean %s?)"):format(near) or ""))
    os.exit(2)
  end
end

-- A user's mistake (a bad row, a config that says no) is one line naming the file,
-- "llmdlua: ..." as every script's error in the data is (README: Running scripts); Ctrl-C
-- one line naming the script and saying where the rows are; only a fault in llmdlua itself
-- keeps its traceback.
-- Closing the state stops every server and client still running (their __gc).
local ok, err = xpcall(main, function(e)
  local msg = tostring(e)
  if msg:match("interrupted$") then return { code = 130, msg = "interrupted" } end
  -- (a reader's "file.lua:N: " position in front of the user's file is dropped: llmd.errors)
  local user = require("llmd.errors").user_text(e)
  if user then return { code = 1, msg = user } end
  return { code = 1, msg = debug.traceback(msg, 2) }
end)
if not ok then
  local msg = err.msg
  if err.code == 130 and interrupt_note then msg = msg .. "; " .. interrupt_note end
  io.stdout:flush()
  io.stderr:write(err.code == 130 and "autobench.lua: " or "llmdlua: ", msg, "\n")
  os.exit(err.code, true)
end
