-- The local path under stress (issue 17): concurrent compares, hostile labels and folder
-- names, a full disk, unreadable or linked result files, interrupted and rejected runs,
-- errors a person can act on. Each test is the reproduction of one reported defect.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local TREAT = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

local function run(argv, opts) return proc.run(argv, opts) end

-- POSIX single quotes, written here independently of llmd.template's sh filter
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local workspaces, copy_tree = t.workspaces, t.copy_tree

t.test("1: six compares at once with one --parent get six workspaces, nothing mixed", function()
  local tmp = t.tmpdir()
  local parent = tmp .. "/p"
  lfs.mkdir(parent)
  -- odd i compares BASE vs TREAT, even i the other way round, so a mix shows in the sources
  local cmds = {}
  for i = 1, 6 do
    local a, b = BASE, TREAT
    if i % 2 == 0 then a, b = TREAT, BASE end
    cmds[#cmds + 1] = ("%s compare.lua --a %s --b %s --a-label X%d --b-label Y%d --parent %s --quiet >%s 2>&1 &")
      :format(q(LLMDLUA), q(a), q(b), i, i, q(parent), q(tmp .. "/out" .. i))
  end
  local r = run { "sh", "-c", table.concat(cmds, "\n") .. "\nwait" }
  t.ok(r.ok, r.stderr)
  local ws = workspaces(parent)
  t.eq(#ws, 6, "one workspace per compare")
  local seen = {}
  for _, w in ipairs(ws) do
    local sa = json.read(w .. "/run-a/run_state.json")
    local sb = json.read(w .. "/run-b/run_state.json")
    local i = tonumber(sa.label:match("^X(%d)$"))
    t.ok(i and not seen[i], "each label once: " .. sa.label)
    seen[i] = true
    t.eq(sb.label, "Y" .. i)
    local want_a = i % 2 == 0 and TREAT or BASE
    t.eq(sa.source_path:match("[^/]+$"), want_a:match("[^/]+$"), w .. " run A's source")
    local report = t.read(w .. "/comparison_report.md")
    t.ok(report:find("Comparison: X" .. i .. " vs Y" .. i, 1, true), w .. ": report title")
    -- the run model saved is the one of this compare's A
    local model = json.read(w .. "/run-a/run_model.json")
    t.ok(model ~= nil)
    -- and compare i told its user about this very workspace
    local out = t.read(tmp .. "/out" .. i)
    t.eq(out:match("Workspace: ([^\n]+)"):match("[^/]+$"), w:match("[^/]+$"), "compare " .. i .. "'s message")
  end
end)

t.test("1: a workspace name given and taken is an error, never reused", function()
  local ws = require "llmd.workspace"
  local parent = t.tmpdir()
  local w = ws.create { parent = parent, name = "mine", quiet = true }
  t.eq(w.name, "mine")
  t.raises("already exists; not reusing it", ws.create, { parent = parent, name = "mine", quiet = true })
  -- without a name, a taken one gets a suffix
  lfs.mkdir(parent .. "/llm-d-comparison-x")
  local w2 = ws.create { parent = parent, name = nil, quiet = true }
  t.ok(w2.name:match("^llm%-d%-comparison%-"))
  -- 12: a missing parent is made
  local w3 = ws.create { parent = parent .. "/not/yet/there", quiet = true }
  t.eq(lfs.attributes(w3.path, "mode"), "directory")
  -- a parent that is a file
  t.write(parent .. "/afile", "x")
  t.raises("afile: not a folder", ws.create, { parent = parent .. "/afile", quiet = true })
end)

-- Every regular file under dir: { [relative path] = size }
local function files_of(dir)
  local out = {}
  t.walk(dir, function(p, rel, mode) if mode == "file" then out[rel] = lfs.attributes(p, "size") end end)
  return out
end

-- A temporary file of a write: write_set's NAME.tmp.PID.N, proc.write_file's .NAME.XXXXXX
local function temporary(rel) return rel:match("%.tmp%.") or rel:match("^%.[^/]+%.%w%w%w%w%w%w$") end

-- workspace.write_text and write_set once wrote through io.open and checked every step, but
-- never fsynced: after a crash a report "written" could be a 0-byte file (the rename on the
-- disk, the data not). Now both go through proc.write_file (temporary in the same folder,
-- fchmod, fsync, rename, folder fsync). A write that fails for real - a file-size limit
-- (ulimit -f: EFBIG, SIGXFSZ ignored), no root needed - is an error naming the file, and
-- leaves the old file as it was and no temporary (harden51 #1).
t.test("4: a write that fails (file too large) is an error naming the file; the old one kept, no temporary", function()
  local dir = t.tmpdir()
  t.write(dir .. "/report.md", "the old report\n")
  t.write(dir .. "/run.sh", "#!/bin/sh\n")
  local script = dir .. "/w.lua"
  t.write(script, [[
local ws = require "llmd.workspace"
local dir = arg[1]
local big = string.rep("x", 4096)
for _, call in ipairs {
  function() ws.write_text(dir .. "/report.md", big) end,
  function() ws.write_text(dir .. "/run.sh", big, "755") end,
  function() ws.write_set({ { dir .. "/a.json", "{}" }, { dir .. "/report.md", big } }) end,
} do
  local ok, err = pcall(call)
  io.write(ok and "ok" or tostring(err), "\n")
end
]])
  -- 1 block of 512 bytes: the old files (under it) can be read, the new text (4 KiB) not written
  local r = run { "sh", "-c", 'trap "" XFSZ; ulimit -f 1; exec "$0" "$1" "$2"', LLMDLUA, script, dir }
  t.eq(r.code, 0, r.stderr)
  local lines = {}
  for l in r.stdout:gmatch("[^\n]+") do lines[#lines + 1] = l end
  t.eq(lines, {
    dir .. "/report.md: cannot write: File too large",
    dir .. "/run.sh: cannot write: File too large",
    dir .. "/report.md: cannot write: File too large; none of a.json, report.md was changed",
  })
  t.eq(t.read(dir .. "/report.md"), "the old report\n")
  t.eq(t.read(dir .. "/run.sh"), "#!/bin/sh\n")
  for rel in pairs(files_of(dir)) do t.ok(not temporary(rel), "temporary left: " .. rel) end
  t.eq(lfs.attributes(dir .. "/a.json"), nil, "a.json of the failed set not written")
  -- the folder that is not there, or a text that is not one: the file named, nothing made
  local ws = require "llmd.workspace"
  t.raises(dir .. "/none/x.md: cannot write: No such file or directory", ws.write_text, dir .. "/none/x.md", "x")
  t.raises(dir .. "/x.md: cannot write: the text to write is a nil, not a string", ws.write_text, dir .. "/x.md")
  t.eq(lfs.attributes(dir .. "/x.md"), nil)
  -- and a written script has its mode, a report 644, the text whole
  ws.write_text(dir .. "/run.sh", "#!/bin/sh\necho new\n", "755")
  ws.write_set { { dir .. "/report.md", "new\n" }, { dir .. "/b.sh", "#!/bin/sh\n", "755" } }
  t.eq({ lfs.attributes(dir .. "/run.sh", "permissions"), lfs.attributes(dir .. "/report.md", "permissions"),
    lfs.attributes(dir .. "/b.sh", "permissions") }, { "rwxr-xr-x", "rw-r--r--", "rwxr-xr-x" })
  t.eq({ t.read(dir .. "/run.sh"), t.read(dir .. "/report.md") }, { "#!/bin/sh\necho new\n", "new\n" })
end)

-- harden52: the same limit as a user sets it (ulimit -f, no trap): SIGXFSZ's default action
-- killed compare.lua in the middle of a write (exit 153, no word, the workspace left
-- INCOMPLETE with its lock file). Now the write fails with EFBIG, is named, and the workspace
-- goes, as on a full disk; a child llmdlua starts still gets the signal's default.
t.test("harden52: compare.lua past the file-size limit is one line naming the file, no workspace left", function()
  local tmp = t.tmpdir()
  local parent = tmp .. "/p"
  lfs.mkdir(parent)
  -- 60 KiB (bash and dash count 1024-byte blocks): the copies of the results fit (the largest
  -- is 41 KiB), run-a's run_model.json (over 100 KiB) does not
  local r = run { "sh", "-c", 'ulimit -f 60; exec "$@"', "sh", LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT,
    "--parent", parent, "--quiet" }
  t.eq(r.code, 1, r.stderr)
  local last = r.stderr:match("([^\n]+)\n$") or ""
  t.ok(last:match("^llmdlua: .*: cannot write: File too large %(the workspace .* was removed%)$"), r.stderr)
  t.eq(#workspaces(parent), 0, "no workspace left")
  local left = {}
  for n in lfs.dir(parent) do if n ~= "." and n ~= ".." then left[#left + 1] = n end end
  t.eq(left, {}, "nothing left in --parent")
  -- a child started by llmdlua under the limit is stopped by the signal as it would be
  -- without llmdlua (SIGXFSZ is 25 on Linux; a shell that outlives head reports 128 + 25),
  -- not told EFBIG (head's exit 1, "File too large")
  local script = tmp .. "/child.lua"
  t.write(script, ([[
local r = require("llmd.proc").run { "sh", "-c", "ulimit -f 1; head -c 8192 /dev/zero > %s/big" }
io.write(tostring(r.code), " ", tostring(r.signal), "\n")
]]):format(tmp))
  r = run { LLMDLUA, script }
  t.eq(r.code, 0, r.stderr)
  t.ok(r.stdout == "153 nil\n" or r.stdout == "nil 25\n", r.stdout)
end)

-- Durable: the file's data fsynced before the rename that puts it in place, and the folder
-- fsynced after it (else a crash can leave the new name pointing at no data: a 0-byte
-- report). Seen in the system calls themselves (strace, where it is installed and may trace).
t.test("4: write_text and write_set fsync the file before its rename and the folder after", function()
  if not proc.which("strace") then
    io.stderr:write("  (skipped: no strace on PATH)\n")
    return
  end
  local dir = t.tmpdir()
  local log = dir .. "/trace"
  t.write(dir .. "/w.lua", ('local ws = require "llmd.workspace"\nws.write_text(%q, "text\\n")\n'
    .. 'ws.write_set({ { %q, "a" }, { %q, "b", "755" } })\n'):format(dir .. "/one.md", dir .. "/a.json", dir .. "/b.sh"))
  local r = run { "strace", "-f", "-qq", "-e", "trace=openat,fsync,rename,close", "-o", log, LLMDLUA, dir .. "/w.lua" }
  if not r.ok and r.stderr:find("ptrace", 1, true) then
    io.stderr:write("  (skipped: strace cannot trace here: " .. r.stderr:gsub("%s+$", "") .. ")\n")
    return
  end
  t.eq(r.code, 0, r.stderr)
  -- per target: before the rename onto it, an fsync of a file opened as its temporary
  -- (proc.write_file's .NAME.XXXXXX, or .NAME.tmp.*.XXXXXX for write_set's NAME.tmp.*);
  -- after that rename, an fsync of the folder
  local calls = {}
  for l in t.read(log):gmatch("[^\n]+") do calls[#calls + 1] = l:gsub("^%d+%s+", "") end
  local function check(target)
    local name = target:match("[^/]+$")
    local open_fd, data_synced, renamed = {}, false, false
    for _, c in ipairs(calls) do
      local p, fd = c:match('^openat%(AT_FDCWD, "([^"]+)", .-%)%s*=%s*(%d+)$')
      if p then open_fd[fd] = p end
      local sfd = c:match("^fsync%((%d+)%)%s*=%s*0$")
      local synced = sfd and open_fd[sfd]
      if synced and not renamed and synced:sub(1, #dir + 2 + #name) == dir .. "/." .. name then data_synced = true end
      local to = c:match('^rename%("[^"]+", "([^"]+)"%)%s*=%s*0$')
      if to == target then renamed = data_synced end
      if renamed and (synced == dir or synced == dir .. "/") then return true end
    end
    return false, ("%s: data fsynced before its rename and the folder after: no (%s)"):format(target,
      table.concat(calls, " | "))
  end
  for _, f in ipairs { "one.md", "a.json", "b.sh" } do
    local ok, why = check(dir .. "/" .. f)
    t.ok(ok, why)
  end
end)

-- The workspace's commands.log (every cluster command, k8s Client:log) was opened and
-- written with neither checked: a full disk left it silently incomplete. A failed append
-- stops nothing (a teardown goes on) but is said once on stderr, naming the file and why.
-- /dev/full: every write to it fails with ENOSPC (at the close, where the buffer goes out).
t.test("harden51-1: a command log that cannot be written is said once on stderr, and the commands go on", function()
  local code = [[
local k8s = require "llmd.k8s"
local k = k8s.new { namespace = "ns", log = arg[1], dry_run = true, out = io.open("/dev/null", "w"),
  bins = { kubectl = "kubectl" } }
k:call("kubectl", { "get", "pods" })
k:call("kubectl", { "get", "services" })
io.write(#k.calls, " calls\n")
]]
  local dir = t.tmpdir()
  t.write(dir .. "/log.lua", code)
  for log, why in pairs { ["/dev/full"] = "No space left on device",
    [dir .. "/none/commands.log"] = "No such file or directory" } do
    local r = run { LLMDLUA, dir .. "/log.lua", log }
    t.eq({ r.code, r.stdout }, { 0, "2 calls\n" }, r.stderr)
    t.eq(r.stderr, ("warning: %s: cannot append to the command log: %s; the cluster commands from here on are not "
      .. "recorded in it\n"):format(log, why))
  end
  -- and a log that can be written gets both lines, no warning
  local r = run { LLMDLUA, dir .. "/log.lua", dir .. "/commands.log" }
  t.eq({ r.code, r.stderr }, { 0, "" })
  local n = 0
  for _ in t.read(dir .. "/commands.log"):gmatch("| dry%-run |[^\n]*\n") do n = n + 1 end
  t.eq(n, 2)
end)

-- harden51 #6: a stack's command in a parallel run (steps.exec) had its output sent to
-- os.tmpname()..".out"/".err", names opened after the os.tmpname file was removed - in /tmp,
-- where another process could take the name or plant a link under it first. Now each output
-- is a file os.tmpname (mkstemp) made itself, mode 600, kept until read, then removed.
t.test("harden51-6: steps.exec in a parallel run writes outputs to files mkstemp made, removed after", function()
  local steps = require "llmd.steps"
  local seen = {}
  -- each command says where its stdout and stderr go, and their modes, while it runs
  local cmd = 'o=$(readlink /proc/$$/fd/1); e=$(readlink /proc/$$/fd/2); echo "$o $(stat -c %a "$o")"; '
    .. 'echo "$e $(stat -c %a "$e")" >&2'
  local list = { { number = 1, name = "work", per_stack = true, execute = function(_, st)
    local r = steps.exec({ "sh", "-c", cmd }, { timeout = 10 })
    seen[st] = { out = r.stdout, err = r.stderr }
    return "ok"
  end } }
  local r = steps.run("x", list, {}, { stacks = { "a", "b" }, parallel = 2, out = { write = function() end } })
  t.eq(r.ok, true, r.failed[1] and r.failed[1].message)
  local paths = {}
  for _, st in ipairs { "a", "b" } do
    local o, omode = seen[st].out:match("^(%S+) (%d+)\n$")
    local e, emode = seen[st].err:match("^(%S+) (%d+)\n$")
    t.ok(o and e, st .. ": " .. tostring(seen[st].out) .. " / " .. tostring(seen[st].err))
    -- (Lua's os.tmpname: /tmp/lua_XXXXXX, mkstemp's template; no suffix added after it)
    t.ok(o:match("^/tmp/lua_%w+$") and e:match("^/tmp/lua_%w+$"), o .. " " .. e)
    t.eq({ omode, emode }, { "600", "600" })
    t.eq(lfs.attributes(o), nil, "removed once read: " .. o)
    t.eq(lfs.attributes(e), nil, "removed once read: " .. e)
    paths[#paths + 1] = o
    paths[#paths + 1] = e
  end
  table.sort(paths)
  for i = 2, #paths do t.ok(paths[i] ~= paths[i - 1], "four files, four names") end
end)

-- Runs fn(disk) on a tmpfs of kib KiB mounted for it (needs root), unmounted after (also
-- when fn fails, whose error is then raised): true; false, having said why, when no tmpfs
-- can be mounted.
local function on_small_disk(kib, fn)
  local disk = t.tmpdir()
  local r = run { "mount", "-t", "tmpfs", "-o", ("size=%dk"):format(kib), "tmpfs", disk }
  if not r.ok then
    io.stderr:write("  (tmpfs part skipped: " .. tostring(r.stderr):gsub("%s+$", "") .. ")\n")
    return false
  end
  local okrun, err = pcall(fn, disk)
  run { "umount", disk }
  if not okrun then error(err, 0) end
  return true
end

-- Fills the filesystem of disk with a file disk/filler until free_pages pages (4 KiB) are free.
local function leave_free(disk, free_pages)
  local st = run { "stat", "-f", "-c", "%a %S", disk }
  local avail, bsize = st.stdout:match("(%d+) (%d+)")
  local fill = tonumber(avail) * tonumber(bsize) - free_pages * 4096
  if fill > 0 then
    run { "dd", "if=/dev/zero", "of=" .. disk .. "/filler", "bs=4096", "count=" .. (fill // 4096) }
  end
end

t.test("4: compare on a disk that fills at every point: success, or an error and no 0-byte file", function()
  local outcomes = { ok = 0, failed = 0 }
  if not on_small_disk(2048, function(disk)
    -- free space from 4 KiB up, in steps of three pages for the first 40 (each run fails
    -- at a different file), then growing, until a whole linked compare fits (the report's
    -- size grows as it gains sections)
    local points = {}
    for p = 1, 40, 3 do points[#points + 1] = p end
    for p = 48, 480, 24 do points[#points + 1] = p end
    for _, free_pages in ipairs(points) do
      if outcomes.ok > 0 then break end
      run { "sh", "-c", "rm -rf " .. q(disk) .. "/* " .. q(disk) .. "/.??*" }
      leave_free(disk, free_pages)
      local r = run { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--link", "--parent", disk .. "/p", "--quiet" }
      if r.ok then
        outcomes.ok = outcomes.ok + 1
        t.ok(r.stdout:find("Comparison report written", 1, true))
      else
        outcomes.failed = outcomes.failed + 1
        t.ok(not r.stdout:find("written to", 1, true), "no success message on failure: " .. r.stdout)
        t.ok(r.stderr:find("No space left on device", 1, true), "the cause named: " .. r.stderr)
        t.ok(r.stderr:find(disk, 1, true), "the file named: " .. r.stderr)
      end
      for _, w in ipairs(workspaces(disk .. "/p")) do
        for rel, size in pairs(files_of(w)) do
          t.ok(size > 0, ("%d free pages: %s is empty (compare %s)"):format(free_pages, rel, r.ok and "ok" or "failed"))
          t.ok(not temporary(rel), "temporary left: " .. rel)
        end
      end
    end
  end) then
    return -- no tmpfs here
  end
  t.ok(outcomes.ok > 0 and outcomes.failed > 0, ("both outcomes seen: %d ok, %d failed"):format(outcomes.ok, outcomes.failed))
end)

-- analyze.lua re-writing a report on a disk that fills (audit48 S6: the markdown got the new
-- SLO's verdict while the JSON, CSV and HTML kept the old one, exit 1). At every amount of
-- room, the report's files are one report's: comparison_report.md and .html, comparison.json
-- and run_comparison.sh carry the same "generated" time (each analysis a second apart, so
-- two reports never share one). Expected: the rule (one set), checked on what the files say.
t.test("analyze on a disk that fills at every point: the report's files stay one report's", function()
  local seen = { ok = 0, kept = 0 }
  if not on_small_disk(12288, function(disk)
    local r = run { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--link", "--parent", disk .. "/p", "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local w = workspaces(disk .. "/p")[1]
    local function stamps()
      local got = {}
      for _, f in ipairs { "comparison_report.md", "comparison_report.html", "comparison.json", "run_comparison.sh" } do
        local text = t.read(w .. "/" .. f)
        got[#got + 1] = text:match("(%d%d%d%d%-%d%d%-%d%d %d%d:%d%d:%d%d UTC)") or ("none in " .. f)
      end
      return got
    end
    for i, free_pages in ipairs { 8, 24, 40, 56, 72, 96, 128, 160, 200, 260, 330, 420 } do
      run { "rm", "-f", disk .. "/filler" }
      leave_free(disk, free_pages)
      proc.run { "sleep", "1.1" }
      r = run { LLMDLUA, "analyze.lua", w, "--quiet", "--slo", (i % 2 == 0) and "ttft_p90_ms=100" or "ttft_p90_ms=200" }
      local s = stamps()
      t.eq({ s[2], s[3], s[4] }, { s[1], s[1], s[1] }, ("%d free pages (analyze %s): one report's files: %s"):format(
        free_pages, r.ok and "ok" or "failed", r.stderr))
      if r.ok then
        seen.ok = seen.ok + 1
      else
        t.ok(r.stderr:find("No space left on device", 1, true), r.stderr)
        if r.stderr:find("is as it was", 1, true) then seen.kept = seen.kept + 1 end
      end
    end
  end) then
    return -- no tmpfs here
  end
  t.ok(seen.ok > 0 and seen.kept > 0, ("a failure while writing the report and a success seen: %d kept, %d ok")
    :format(seen.kept, seen.ok))
end)

-- issue 20: proc.copy_file, the copy behind importing results without --link
t.test("copy_file: byte-equal copies by reflink, copy_file_range and read/write", function()
  local dir = t.tmpdir()
  -- sizes: empty, 1 byte, and 3 MiB + 1234 (not a multiple of the page size; more
  -- than one read of the 1 MiB buffer); the bytes are a pseudo-random pattern
  local big = {}
  for i = 1, (3 * 1024 * 1024 + 1234) // 4 + 1 do big[i] = string.pack("<I4", (i * 2654435761) % 4294967296) end
  local sizes = { empty = "", one = "\0", big = table.concat(big):sub(1, 3 * 1024 * 1024 + 1234) }
  for name, bytes in pairs(sizes) do
    t.write(dir .. "/" .. name, bytes)
    for _, first in ipairs { "reflink", "copy_file_range", "read" } do
      local to = dir .. "/" .. name .. "." .. first
      local n, how = proc.copy_file(dir .. "/" .. name, to, first)
      t.eq(n, #bytes, name .. " by " .. first)
      t.ok(how == "reflink" or how == "copy_file_range" or how == "read", how)
      if first == "read" then t.eq(how, "read") end
      t.ok(t.read(to) == bytes, name .. " by " .. first .. ": the same bytes")
    end
  end
end)

t.test("copy_file: never over an existing file or through a link; a folder is no file", function()
  local dir = t.tmpdir()
  t.write(dir .. "/src", "new")
  t.write(dir .. "/mine", "the user's")
  t.raises(dir .. "/mine: cannot create (copying " .. dir .. "/src): File exists",
    proc.copy_file, dir .. "/src", dir .. "/mine")
  t.eq(t.read(dir .. "/mine"), "the user's")
  lfs.link(dir .. "/mine", dir .. "/link", true)
  t.raises(dir .. "/link: cannot create (copying " .. dir .. "/src): File exists",
    proc.copy_file, dir .. "/src", dir .. "/link")
  t.eq(t.read(dir .. "/mine"), "the user's")
  lfs.mkdir(dir .. "/sub")
  t.raises(dir .. "/sub: cannot copy to " .. dir .. "/out: is a directory",
    proc.copy_file, dir .. "/sub", dir .. "/out")
  t.raises(dir .. "/none: cannot read (copying to " .. dir .. "/out): No such file or directory",
    proc.copy_file, dir .. "/none", dir .. "/out")
  t.eq(lfs.attributes(dir .. "/out"), nil)
end)

-- A FIFO (or a device) named as a file to copy: refused at once, naming it. Before, the
-- open waited for a writer that never comes, so the copy runs in a child with a timeout:
-- a hang is a failure here, not a hung test run.
t.test("copy_file: a FIFO is refused at once with an error naming it, never waited on", function()
  local dir = t.tmpdir()
  assert(run({ "mkfifo", "--", dir .. "/results.json" }).ok)
  t.write(dir .. "/copy.lua", ([[
local proc = require "llmd.proc"
local ok, e = pcall(proc.copy_file, %q, %q)
io.write(tostring(ok), "\n", tostring(e), "\n")
]]):format(dir .. "/results.json", dir .. "/out"))
  local r = run({ LLMDLUA, dir .. "/copy.lua" }, { timeout = 20, kill_grace = 1 })
  t.ok(not r.timed_out, "copy_file waited on the FIFO for 20 s")
  t.eq(r.stdout, "false\n" .. dir .. "/results.json: cannot copy to " .. dir
    .. "/out: a FIFO (named pipe), not a regular file\n")
  t.eq(lfs.attributes(dir .. "/out"), nil, "nothing created")
  -- a character device: the same refusal, and nothing read from it
  t.raises("/dev/zero: cannot copy to " .. dir .. "/out: a character device, not a regular file",
    proc.copy_file, "/dev/zero", dir .. "/out")
  t.eq(lfs.attributes(dir .. "/out"), nil, "nothing created")
end)

t.test("copy_file on a disk that fills: an error naming both files, nothing left behind", function()
  on_small_disk(512, function(disk)
    local src = t.tmpdir() .. "/results.json"
    t.write(src, ("x"):rep(1024 * 1024 + 7)) -- 1 MiB + 7 bytes: never fits in 512 KiB
    for _, first in ipairs { "reflink", "copy_file_range", "read" } do
      local to = disk .. "/copy." .. first
      local ok, e = pcall(proc.copy_file, src, to, first)
      t.ok(not ok, first .. ": the copy fails")
      t.eq(e, to .. ": cannot write (copying " .. src .. "): No space left on device")
      t.eq(lfs.attributes(to), nil, first .. ": no partial file left")
    end
    -- with room, the same copy succeeds on the same disk
    local small = t.tmpdir() .. "/small.json"
    t.write(small, ("y"):rep(100 * 1024 + 3))
    t.eq(proc.copy_file(small, disk .. "/fits"), 100 * 1024 + 3)
    t.eq(t.read(disk .. "/fits"), t.read(small))
  end)
end)

-- compare.lua --a BASE --b TREAT (results copied, not linked) on disk with 1 to 40 free
-- pages: every one refused before anything is made, since less is free than the copies
-- and the margin kept besides (a 4 KiB block a file and folder, 1 % of the copies and 8 MB)
-- take. Returns how many were refused.
local function copy_sweep(disk, env)
  local refused = 0
  for free_pages = 1, 40, 3 do
    run { "sh", "-c", "rm -rf " .. q(disk) .. "/* " .. q(disk) .. "/.??*" }
    leave_free(disk, free_pages)
    local r = run({ LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--parent", disk .. "/p", "--quiet" },
      { env = env })
    t.eq(r.code, 1, free_pages .. " free pages: " .. r.stdout .. r.stderr)
    -- (the margin, by hand: 34 files and folders, find BASE TREAT | wc -l, x 4096 = 139,264 B,
    -- 1 % of the 66,470 B of copies (find -printf %s) = 665 B, and 8,000,000 B: 8,139,929 B)
    t.ok(r.stderr:find("^compare.lua: not enough free space for the workspace: it copies the two runs' results, "
      .. "[%d.]+ kB %(run a [%d.]+ kB, run b [%d.]+ kB%), keeping 8%.1 MB more free %(a 4 KiB block for each of their "
      .. "34 files and folders, 1 %% of them and 8 MB for the report and the workspace's other files%), and "
      .. disk:gsub("%p", "%%%0") .. " has [%d.]+ k?B free; free some space, give %-%-parent DIR on a disk with room, "
      .. "or %-%-link to read the results where they are, copying nothing\n$"), r.stderr)
    t.eq(lfs.attributes(disk .. "/p", "mode"), nil, "nothing made")
    refused = refused + 1
  end
  return refused
end

-- (fixf46: a full disk named whichever write hit it, "comparison_report.html: cannot write",
-- when copying the results had filled it, with no size and no word of --link.) No mount and
-- no root: run a's folder holds sparse files whose sizes add up to more than this disk
-- has free (as df reads it, not llmdlua), so copying them could never fit.
t.test("4: compare whose results' copies exceed the free space: refused first, with the size and --link", function()
  local tmp = t.tmpdir()
  local big = tmp .. "/big"
  copy_tree(BASE, big)
  local df = run { "df", "-B1", "--output=avail", tmp }
  local avail = tonumber(df.stdout:match("(%d+)%s*$"))
  t.ok(avail, df.stdout .. df.stderr)
  -- avail + 1 GB in sparse files of at most 4 TiB (ext4 holds files to 16 TiB); st_size
  -- is what a copy writes
  local left, k, pad = avail + 1e9, 0, 0
  while left > 0 do
    local n = math.min(left, 4 * 2 ^ 40)
    k = k + 1
    local f = assert(io.open(("%s/padding%d.bin"):format(big, k), "wb"))
    assert(f:seek("set", math.tointeger(n) - 1))
    assert(f:write("\0"))
    assert(f:close())
    left, pad = left - n, pad + n
  end
  -- the sizes by find, not by llmdlua's walk
  local function bytes(dir)
    local n = 0
    for sz in run({ "find", dir, "-type", "f", "-printf", "%s\n" }).stdout:gmatch("%d+") do n = n + tonumber(sz) end
    return n
  end
  local need_a, need_b = bytes(BASE) + pad, bytes(TREAT)
  local function text(n) -- as df -H rounds: powers of 1000, one decimal
    for _, u in ipairs { { 1e12, "TB" }, { 1e9, "GB" }, { 1e6, "MB" }, { 1e3, "kB" } } do
      if n >= u[1] then return ("%.1f %s"):format(n / u[1], u[2]) end
    end
  end
  -- (under a file-size limit of 32 MiB, ulimit -f's 512-byte blocks: without the check, the
  -- copy dies there rather than fill the shared disk)
  local r = run { "sh", "-c", 'ulimit -f 65536 && exec "$@"', "sh", LLMDLUA, "compare.lua", "--a", big, "--b", TREAT,
    "--parent", tmp .. "/p", "--quiet" }
  t.eq(r.code, 1, r.stdout .. r.stderr)
  -- (the margin: a 4 KiB block for each file and folder, find's count with the folders
  -- themselves, 1 % of the copies and 8 MB; here 1 % of more than the disk)
  local entries = #run({ "find", big, TREAT }).stdout:gsub("[^\n]", "")
  local prefix = ("compare.lua: not enough free space for the workspace: it copies the two runs' results, %s (run a "
    .. "%s, run b %s), keeping %s more free (a 4 KiB block for each of their %d files and folders, 1 %% of them and 8 "
    .. "MB for the report and the workspace's other files), and %s has "):format(text(need_a + need_b), text(need_a),
    text(need_b), text(4096 * entries + math.ceil((need_a + need_b) / 100) + 8e6), entries, tmp)
  t.eq(r.stderr:sub(1, #prefix), prefix, r.stderr)
  t.contains(r.stderr, " free; free some space, give --parent DIR on a disk with room, or --link to read the results "
    .. "where they are, copying nothing\n")
  t.eq(select(2, r.stderr:gsub("\n", "")), 1, "one line: " .. r.stderr)
  t.eq(lfs.attributes(tmp .. "/p", "mode"), nil, "nothing made")
  -- --link copies nothing: the same pair compares
  r = run { LLMDLUA, "compare.lua", "--a", big, "--b", TREAT, "--parent", tmp .. "/p", "--quiet", "--link" }
  t.eq(r.code, 0, r.stderr)
end)

t.test("4: compare copying results with less free than the copies and their margin: refused first", function()
  -- (fixc47: with just the copies' sizes free, a copy could start and then meet a full disk
  -- - blocks beyond the sizes, the report after them, a copy-on-write filesystem's metadata)
  -- 1 to 40 free pages, more than the 66.5 kB of copies from 17 of them: each refused, nothing
  -- made; one process and the children alike
  on_small_disk(2048, function(disk)
    t.eq(copy_sweep(disk, { LLMDLUA_JOBS = "1" }), 14)
    t.eq(copy_sweep(disk, {}), 14)
  end)
end)

-- (newuser47b E4: the margin was at least 64 MB, and a 10 MB pair was refused with 62.9 MB free)
t.test("4: compare copying results onto a disk with room for them and their margin, far below 64 MB: made", function()
  -- a 12 MB tmpfs: the kubecon pair's 66,470 B of copies and their margin, 8,139,929 B (by hand
  -- as copy_sweep's), fit with 4.3 MB to spare; the workspace took 1.05 MB on /tmp (du -B1)
  on_small_disk(12 * 1024, function(disk)
    local r = run { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--parent", disk .. "/p", "--quiet" }
    t.eq(r.code, 0, r.stderr)
    t.eq(#workspaces(disk .. "/p"), 1)
  end)
end)

t.test("4: compare whose copies pass the free-space check and still fail mid-copy: the workspace removed", function()
  -- The check counts bytes; a filesystem may refuse sooner (another writer, a quota, its
  -- inodes): a tmpfs of 100 MB (the copies and the margin fit) with 4 to 70 inodes runs out
  -- of them at one file or another - some while the results are copied. Each outcome: the
  -- report written, or an error naming the file and the cause, the workspace said removed
  -- and gone, nothing said written, no partial file. One process (LLMDLUA_JOBS=1): the same
  -- count fails at the same file every time.
  local outcomes = { ok = 0, failed = 0, in_copy = 0 }
  local base = t.tmpdir()
  for inodes = 4, 70, 3 do
    local disk = base .. "/d" .. inodes
    t.ok(lfs.mkdir(disk))
    local m = run { "mount", "-t", "tmpfs", "-o", ("size=100m,nr_inodes=%d"):format(inodes), "tmpfs", disk }
    if not m.ok then
      io.stderr:write("  (tmpfs part skipped: " .. tostring(m.stderr):gsub("%s+$", "") .. ")\n")
      return
    end
    local okrun, err = pcall(function()
      local r = run({ LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--parent", disk .. "/p", "--quiet" },
        { env = { LLMDLUA_JOBS = "1" } })
      local ws_left = workspaces(disk .. "/p")
      if r.ok then
        outcomes.ok = outcomes.ok + 1
        t.eq(#ws_left, 1, r.stdout)
        for rel, size in pairs(files_of(ws_left[1] .. "/run-a/results")) do
          t.eq(size, lfs.attributes(BASE .. "/" .. rel, "size"), rel)
        end
      else
        outcomes.failed = outcomes.failed + 1
        t.ok(not r.stdout:find("written", 1, true), inodes .. " inodes: nothing said written: " .. r.stdout)
        t.ok(r.stderr:find("No space left on device", 1, true), "the cause named: " .. r.stderr)
        -- out of inodes with 100 MiB free, said so (newuser47b E5): fewer free when it started than
        -- the 34 copies and the workspace's own 64 (M.OWN_ENTRIES) make
        t.ok(r.stderr:find("ran out of inodes, the files it can hold, not bytes: it had %d+ free when the comparison "
          .. "started, and 104%.9 MB free, and the workspace makes about 98 files and folders, 34 of them"), r.stderr)
        local err = r.stderr:gsub("^note: [^\n]* did not exist; made it for the workspace\n", "")
        -- (a report file's write says after the cause that the report is as it was: ws.write_set)
        t.ok(err:find("^llmdlua: " .. disk:gsub("%p", "%%%0") .. "/p/[^\n]*: No space left on device[\n; ]"),
          "the file named: " .. r.stderr)
        local gone = r.stderr:match(" %(the workspace (%S+) was removed%)\n$")
        t.ok(gone, "said removed: " .. r.stderr)
        t.eq(ws_left, {}, inodes .. " inodes: no workspace left")
        t.eq(lfs.attributes(tostring(gone)), nil, "and gone")
        if r.stderr:find("(copying ", 1, true) then outcomes.in_copy = outcomes.in_copy + 1 end
      end
    end)
    run { "umount", disk }
    if not okrun then error(err, 0) end
    if outcomes.ok > 0 then break end
  end
  t.ok(outcomes.in_copy > 0 and outcomes.ok > 0, ("failed in a copy %d times (%d failed), then ok"):format(
    outcomes.in_copy, outcomes.failed))
end)

-- Every entry under dir that is a link: { rel... }
local function links_under(dir)
  local out = {}
  t.walk(dir, function(_, rel, mode) if mode == "link" then out[#out + 1] = rel end end)
  return out
end

t.test("8: links out of a results folder are reported, never kept or followed; regular files copied", function()
  local tmp = t.tmpdir()
  local src = tmp .. "/run1"
  copy_tree(BASE, src)
  lfs.link("/etc", src .. "/etc_link", true)
  lfs.link("/etc/passwd", src .. "/stage_9_lifecycle_metrics.json", true)
  lfs.link("stage_0_lifecycle_metrics.json", src .. "/copy_of_stage0.json", true) -- inside: copied as a file
  lfs.link("nowhere", src .. "/dangling", true)
  run { "mkfifo", src .. "/a_fifo" }
  local r = run { LLMDLUA, "compare.lua", "--a", src, "--b", TREAT, "--parent", tmp .. "/p", "--quiet" }
  t.ok(r.ok, r.stderr)
  local w = workspaces(tmp .. "/p")[1]
  local res = w .. "/run-a/results"
  t.eq(lfs.symlinkattributes(res, "mode"), "directory", "a copy, not a link")
  t.eq(links_under(w), {}, "no link anywhere in the workspace")
  t.eq(lfs.attributes(res .. "/etc_link"), nil)
  t.eq(lfs.attributes(res .. "/stage_9_lifecycle_metrics.json"), nil)
  t.eq(lfs.attributes(res .. "/a_fifo"), nil)
  t.eq(t.read(res .. "/copy_of_stage0.json"), t.read(BASE .. "/stage_0_lifecycle_metrics.json"))
  -- every regular file of the source, byte for byte
  for rel, size in pairs(files_of(BASE)) do
    t.eq(lfs.attributes(res .. "/" .. rel, "size"), size, rel)
  end
  for _, what in ipairs { "etc_link -> /etc: a link out of the results folder",
    "stage_9_lifecycle_metrics.json -> /etc/passwd: a link out", "dangling -> nowhere: a dangling link",
    "a_fifo: a named pipe, not a regular file" } do
    t.ok(r.stderr:find(what, 1, true), "warned: " .. what .. " in " .. r.stderr)
  end
  local report = t.read(w .. "/comparison_report.md")
  t.ok(report:find("run1: not imported: etc_link -> /etc", 1, true), "the report's data checks say so")
  -- the same folder linked (--link): extraction reads the folder but follows no link out
  r = run { LLMDLUA, "compare.lua", "--a", src, "--b", TREAT, "--link", "--parent", tmp .. "/q", "--quiet" }
  t.ok(r.ok, r.stderr)
  w = workspaces(tmp .. "/q")[1]
  local model = json.read(w .. "/run-a/run_model.json")
  local said = table.concat(model.warnings, "\n")
  t.ok(said:find("stage_9_lifecycle_metrics.json -> /etc/passwd: a link out", 1, true), said)
  for _, f in ipairs(model.files or {}) do t.ok(not tostring(f):find("stage_9", 1, true), "read " .. tostring(f)) end
  t.ok(not t.read(w .. "/comparison.json"):find("root:x:0:0", 1, true))
end)

t.test("9: a run rejected after the checks leaves no workspace, and names the user's own file", function()
  local tmp = t.tmpdir()
  local src = tmp .. "/run1"
  copy_tree(BASE, src)
  local f = src .. "/stage_3_lifecycle_metrics.json"
  local text = t.read(f)
  t.write(f, text:sub(1, #text // 2)) -- truncated half way
  local r = run { LLMDLUA, "compare.lua", "--a", src, "--b", TREAT, "--parent", tmp .. "/p", "--quiet" }
  t.ok(not r.ok)
  t.ok(r.stderr:find(f, 1, true), "names " .. f .. ": " .. r.stderr)
  t.ok(not r.stderr:find("/run-a/results", 1, true), "not the workspace's copy: " .. r.stderr)
  t.eq(workspaces(tmp .. "/p"), {}, "nothing left")
  -- rejected before anything is made: the parent is not even created
  r = run { LLMDLUA, "compare.lua", "--a", tmp .. "/nope", "--b", TREAT, "--parent", tmp .. "/never", "--quiet" }
  t.eq(r.code, 2) -- a usage error (README: Errors before anything is created)
  t.eq(lfs.attributes(tmp .. "/never"), nil)
  t.write(tmp .. "/info.yaml", "model: [unclosed\n")
  r = run { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--a-info", tmp .. "/info.yaml", "--parent",
    tmp .. "/never", "--quiet" }
  t.eq(r.code, 1)
  t.eq(lfs.attributes(tmp .. "/never"), nil)
end)

t.test("9: Ctrl-C at any moment: a complete workspace (exit 0, or 130 saying so), or none (or one analyze.lua calls "
  .. "incomplete)", function()
  local tmp = t.tmpdir()
  local src = tmp .. "/run1"
  copy_tree(BASE, src)
  -- a large per-request file, so that the copy takes a while
  run { "truncate", "-s", "64M", src .. "/zz_big_per_request_lifecycle_metrics.bin" }
  local seen = { complete = 0, removed = 0, incomplete = 0 }
  for i = 0, 11 do
    local parent = ("%s/p%d"):format(tmp, i)
    local delay = ("%.3f"):format(0.02 + i * 0.03)
    local r = run { "sh", "-c", ('%s compare.lua --a %s --b %s --parent %s --quiet >/dev/null 2>%s & pid=$!; '
      .. 'sleep %s; kill -INT $pid 2>/dev/null; wait $pid; echo $?')
      :format(q(LLMDLUA), q(src), q(TREAT), q(parent), q(tmp .. "/err" .. i), delay) }
    local rc = tonumber(r.stdout:match("(%d+)"))
    local ws = workspaces(parent)
    t.ok(#ws <= 1)
    if rc == 0 then
      seen.complete = seen.complete + 1
      t.eq(#ws, 1)
      t.eq(lfs.attributes(ws[1] .. "/INCOMPLETE"), nil)
      t.eq(lfs.attributes(ws[1] .. "/run-a/results/zz_big_per_request_lifecycle_metrics.bin", "size"), 64 << 20)
    else
      -- (under load the INT can come before the shell has made the err file: no message then)
      local ef = io.open(tmp .. "/err" .. i, "rb")
      local said = ef and ef:read("a") or "(no err file: interrupted before the command started)"
      t.eq(rc, 130, "interrupted: " .. said)
      if ef then ef:close() end
      if #ws == 0 then
        seen.removed = seen.removed + 1
      elseif not lfs.attributes(ws[1] .. "/INCOMPLETE") then
        -- interrupted after the report was written (wsfix 6): the workspace is kept, complete,
        -- and that is what it says
        seen.complete = seen.complete + 1
        t.ok(said:find("^compare%.lua: interrupted after the comparison was complete; nothing is lost"), said)
        t.ok(lfs.attributes(ws[1] .. "/comparison_report.md"), "the report is there")
      else
        seen.incomplete = seen.incomplete + 1
        local a = run { LLMDLUA, "analyze.lua", ws[1] }
        t.ok(not a.ok and a.stderr:find("an incomplete workspace", 1, true), a.stderr)
      end
      for _, w in ipairs(ws) do
        for rel in pairs(files_of(w)) do t.ok(not rel:match("%.tmp%."), "temporary left: " .. rel) end
      end
    end
  end
  t.ok(seen.removed + seen.incomplete > 0, "some runs were interrupted")
end)

t.test("10: a CSV with a byte-order mark is read; the mark is not part of the first column's name", function()
  local scan = require "llmd.scan"
  local stats = require "llmd.stats"
  local dir = t.tmpdir()
  -- by hand: ttft_ms is 1.5 and 3.5, sum 5, count 2
  for _, text in ipairs { "\239\187\191ttft_ms,x\n1.5,2\n3.5,4\n", "\239\187\191\"ttft_ms\",x\r\n1.5,2\r\n3.5,4\r\n" } do
    local p = dir .. "/bom.csv"
    t.write(p, text)
    local s = stats.new()
    local r = scan.csv(p, { { "ttft_ms", s } }, { sep = "," })
    t.eq(s:count(), 2)
    t.eq(s:summary({ 50 }).sum, 5.0)
    t.eq(r.records, 2)
    -- through a pipe too (the mark may arrive before the rest of the header)
    local s2 = stats.new()
    local f = assert(io.popen("cat " .. q(p), "r"))
    scan.csv(f, { { "ttft_ms", s2 } }, { sep = "," })
    f:close()
    t.eq(s2:count(), 2)
  end
  -- a mark anywhere else is text, as before
  t.write(dir .. "/mid.csv", "x,\239\187\191ttft_ms\n1,2\n")
  t.raises("no column 'ttft_ms' in the header", scan.csv, dir .. "/mid.csv", { { "ttft_ms", stats.new() } }, { sep = "," })
end)

t.test("10: property: a byte-order mark changes nothing in what a CSV scan reads", function()
  local scan = require "llmd.scan"
  local stats = require "llmd.stats"
  local dir = t.tmpdir()
  math.randomseed(17)
  for case = 1, 60 do
    -- a random table: 1-4 columns, 0-30 rows, quoted or not, LF or CRLF, blank lines
    local ncol = math.random(1, 4)
    local head = {}
    for c = 1, ncol do
      head[c] = math.random() < 0.3 and ('"c' .. c .. '"') or ("c" .. c)
    end
    local nl = math.random() < 0.5 and "\n" or "\r\n"
    local lines = { table.concat(head, ",") }
    for _ = 1, math.random(0, 30) do
      local row = {}
      for c = 1, ncol do row[c] = tostring(math.random(-500, 500) / 8) end
      lines[#lines + 1] = table.concat(row, ",")
      if math.random() < 0.1 then lines[#lines + 1] = "" end
    end
    local text = table.concat(lines, nl) .. (math.random() < 0.5 and nl or "")
    local function read(src)
      local sinks, rules = {}, {}
      for c = 1, ncol do
        sinks[c] = stats.new()
        rules[c] = { "c" .. c, sinks[c] }
      end
      local r = scan.csv(src, rules, { sep = "," })
      local out = { records = r.records }
      for c = 1, ncol do out[c] = { sinks[c]:count(), sinks[c]:summary({ 50 }).sum } end
      return out
    end
    local plain = read { text = text, name = "plain" }
    t.eq(read { text = "\239\187\191" .. text, name = "bom" }, plain, "case " .. case)
    t.write(dir .. "/f.csv", "\239\187\191" .. text)
    t.eq(read(dir .. "/f.csv"), plain, "case " .. case .. " from a file")
  end
end)

t.test("10: .nan in a benchmark report names the file and the key", function()
  local dir = t.tmpdir()
  local src = t.fixtures() .. "/benchmark-report/br_v0_2_example.yaml"
  local text = t.read(src)
  -- the first 'mean: <number>' under request_performance's ttft
  local i = text:find("time_to_first_token:", text:find("request_performance:", 1, true), true)
  local a, b = text:find("mean: [%d%.]+", i)
  t.write(dir .. "/benchmark_report.yaml", text:sub(1, a - 1) .. "mean: .nan" .. text:sub(b + 1))
  local r = run { LLMDLUA, "extract.lua", dir }
  t.eq(r.code, 1)
  t.eq(r.stderr, ("llmdlua: %s/benchmark_report.yaml: results.request_performance.aggregate.latency."
    .. "time_to_first_token.mean is .nan (expected a number, or the key left out when unknown)\n"):format(dir))
end)

-- Runs a generated script with sh in a fresh folder; returns the names of the files it made.
local function run_script(path)
  local cwd = t.tmpdir()
  local r = run { "sh", "-c", "cd " .. q(cwd) .. " && sh " .. q(path) .. " >/dev/null 2>&1; ls -A" }
  local made = {}
  for n in r.stdout:gmatch("[^\n]+") do made[#made + 1] = n end
  return made
end

t.test("3: a newline in a label or a results folder's name cannot make run_comparison.sh run anything", function()
  local tmp = t.tmpdir()
  local src = tmp .. "/results\ntouch PWNED_dir\n"
  copy_tree(BASE, src)
  local label = "base\ntouch PWNED_label\n$(touch PWNED_subst) `touch PWNED_tick` 'q\" | x"
  local r = run { LLMDLUA, "compare.lua", "--a", src, "--b", TREAT, "--a-label", label, "--parent", tmp .. "/p", "--quiet" }
  t.ok(r.ok, r.stderr)
  local w = workspaces(tmp .. "/p")[1]
  local script = w .. "/run_comparison.sh"
  t.eq(run_script(script), {}, "the script made no file")
  -- it still says what it should: the label, exported as the exact value
  local bin = tmp .. "/bin"
  lfs.mkdir(bin)
  -- the script's last line runs analyze.lua ($LLMDLUA): a stand-in that prints the label it
  -- was given in the environment
  t.write(bin .. "/llmdlua", "#!/bin/sh\nprintf %s \"$RUN_A_LABEL\"\n")
  run { "chmod", "755", bin .. "/llmdlua" }
  local check = run({ "sh", script }, { env = { LLMDLUA = bin .. "/llmdlua" } })
  t.eq(check.code, 0, check.stderr)
  t.eq(check.stdout, label)
  -- and sh reads it as a script without a syntax error
  t.ok(run({ "sh", "-n", script }).ok)
end)

t.test("3: commands and plan values with newlines stay comments, in the shipped and in old templates", function()
  local template = require "llmd.template"
  local dir = t.tmpdir()
  local side = {
    x = "a", label = "a\ntouch PWNED_1", imported = false, source = "/x\ntouch PWNED_2",
    state_text = "label: a\ntouch PWNED_3", config_text = "set:\n  image: \"v1\ntouch PWNED_4\"\r\ntouch PWNED_5",
    commands = { "helm upgrade -n ns x --set image=v1\ntouch PWNED_6", "kubectl -n ns get pods\r\ntouch PWNED_7\0x" },
  }
  local model = { generated = "now\ntouch PWNED_8", workspace = "/w\ntouch PWNED_9", a = { label = side.label },
    b = { label = "b" }, namespace = "ns\ntouch PWNED_10", pvc = "", gateway_svc = "", sides = { side },
    analyze = template.safe("touch REACHED_END") }
  local shipped = template.render_file(ROOT .. "/templates/run_comparison.sh", model)
  t.write(dir .. "/shipped.sh", shipped)
  -- (a workspace's folders: the script stops at once in a folder that is no workspace)
  t.mkdir(dir .. "/run-a")
  t.mkdir(dir .. "/run-b")
  -- it ran to its last line and made nothing else
  t.eq(run_script(dir .. "/shipped.sh"), { "REACHED_END" })
  -- a workspace keeps a copy of its templates: one from before this fix wrote "# {{ c }}"
  -- and "{{ side.label }}" into comments; the engine's escaping for .sh covers them too
  local old = "#!/bin/sh\n# Run {{ side.label }}\n{% for side in sides %}\n# {{ side.source }}\n"
    .. "{% for c in side.commands %}\n# {{ c }}\n{% end %}\n{% end %}\n{{ analyze }}\n"
  t.write(dir .. "/old_run_comparison.sh", old)
  local text = template.render_file(dir .. "/old_run_comparison.sh", { side = side, sides = { side }, analyze = model.analyze })
  t.write(dir .. "/old.sh", text)
  t.eq(run_script(dir .. "/old.sh"), { "REACHED_END" })
  t.ok(text:find("# 'helm upgrade -n ns x --set image=v1\\ntouch PWNED_6'", 1, true), text)
end)

t.test("3: labels with | < [ ` or newlines keep the report's tables whole and inject nothing", function()
  local tmp = t.tmpdir()
  local la, lb = "A|x\n## injected <script>alert(1)</script>", "[click](http://e) `b` \\|"
  local r = run { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--a-label", la, "--b-label", lb,
    "--parent", tmp .. "/p", "--quiet" }
  t.ok(r.ok, r.stderr)
  local text = t.read(workspaces(tmp .. "/p")[1] .. "/comparison_report.md")
  -- (\<script> is a literal "<script>" to a Markdown renderer: only an unescaped < opens a tag)
  t.ok(not ("\n" .. text):find("[^\\]<script>"), "no raw HTML")
  t.ok(not text:find("\n## injected", 1, true), "no heading made from a label")
  t.ok(not text:find("[click](", 1, true), "no link made from a label")
  -- every table row has as many cells as its header row (| not escaped by a backslash)
  local function cells(line)
    local n = 0
    local i = 1
    while i <= #line do
      local c = line:sub(i, i)
      if c == "\\" then i = i + 1 elseif c == "|" then n = n + 1 end
      i = i + 1
    end
    return n
  end
  local want
  for line in text:gmatch("[^\n]*") do
    if line:match("^|") then
      if not want then want = cells(line) end
      t.eq(cells(line), want, "cells in: " .. line)
    else
      want = nil
    end
  end
  -- the labels are still there, escaped (by hand: \| for |, \< for < before a letter or /,
  -- \[ \] \` \\; never an HTML entity, which a terminal shows as it is)
  t.ok(text:find("A\\|x ## injected \\<script>alert(1)\\</script>", 1, true), "label A, escaped")
  t.ok(text:find("\\[click\\](http://e) \\`b\\` \\\\\\|", 1, true), "label B, escaped")
end)

t.test("3: escaping is the template format's: markdown, html, shell, none; raw and safe opt out", function()
  local template = require "llmd.template"
  local m = { v = "<a>|[x]\n#`\\", s = template.safe("<b>ok</b>") }
  t.eq(template.render("{{ v }}", m, "t.md", { format = "markdown" }), "\\<a>\\|\\[x\\] #\\`\\\\")
  t.eq(template.render("{{ v }}", m, "t.html", { format = "html" }), "&lt;a&gt;|[x]\n#`\\")
  t.eq(template.render("{{ v }}", m, "t.sh", { format = "shell" }), "'<a>|[x]\\n#`\\'")
  t.eq(template.render("{{ v }}", m, "t.txt"), m.v)
  t.eq(template.render("{{ v | raw }}", m, "t.md", { format = "markdown" }), m.v)
  t.eq(template.render("{{ s }}", m, "t.html", { format = "html" }), "<b>ok</b>")
  t.eq(template.render("{{ v | sh }}", m, "t.sh", { format = "shell" }), "'<a>|[x]\n#`\\'")
  t.eq(template.render("{{ v | comment }}", m, "t.sh", { format = "shell" }), "# <a>|[x]\n# #`\\")
  -- a heading or quote at the start of a value is escaped; a terminal escape is not printed
  t.eq(template.render("{{ v }}", { v = "> q\27[31m" }, "t.md", { format = "markdown" }), "\\> q?\\[31m")
  -- < only where it could open a tag or an autolink: "<= 200 ms" reads as it is
  t.eq(template.render("{{ v }}", { v = "TTFT p90 <= 200 ms <b <" }, "t.md", { format = "markdown" }),
    "TTFT p90 <= 200 ms \\<b \\<")
  t.eq(template.format_of("x/report.HTML"), "html")
  t.eq(template.format_of("run.sh"), "shell")
  t.eq(template.format_of("r.md"), "markdown")
end)

t.test("5: an empty, garbage or missing result file claimed by its name is an error; --tolerant warns", function()
  local F = t.fixtures()
  local tmp = t.tmpdir()
  -- vllm-benchmark: three load points, one of them replaced by an empty, then a garbage file
  local src = tmp .. "/vb"
  copy_tree(F .. "/vllm-benchmark/exp-7_H100/llm-d-1p1d", src)
  local victim = src .. "/benchmark_2025-05-13_04-43-11.json"
  for _, bad in ipairs { { "", "empty" }, { "{\"date\": \"2025", "not a vLLM benchmark result" } } do
    t.write(victim, bad[1])
    local r = run { LLMDLUA, "extract.lua", src }
    t.eq(r.code, 1)
    t.ok(r.stderr:find(victim .. ": " .. bad[2], 1, true), r.stderr)
    r = run { LLMDLUA, "extract.lua", src, "--tolerant", "--json" }
    t.ok(r.ok, r.stderr)
    local m = json.decode(r.stdout)
    t.eq(#m.stages, 2, "the two readable load points")
    t.ok(table.concat(m.warnings, "\n"):find("left out (--tolerant): " .. victim .. ": " .. bad[2], 1, true))
  end
  -- inference-perf: a stage file gone from the sequence 0..6
  local ip = tmp .. "/ip"
  copy_tree(BASE, ip)
  os.remove(ip .. "/stage_3_lifecycle_metrics.json")
  local r = run { LLMDLUA, "compare.lua", "--a", ip, "--b", TREAT, "--parent", tmp .. "/p", "--quiet" }
  t.eq(r.code, 1)
  t.ok(r.stderr:find(ip .. "/stage_3_lifecycle_metrics.json: missing", 1, true), r.stderr)
  t.eq(workspaces(tmp .. "/p"), {}, "checked before anything was made")
  r = run { LLMDLUA, "compare.lua", "--a", ip, "--b", TREAT, "--a-label", "ip", "--parent", tmp .. "/p", "--quiet",
    "--tolerant" }
  t.ok(r.ok, r.stderr)
  local w = workspaces(tmp .. "/p")[1]
  local report = t.read(w .. "/comparison_report.md")
  t.ok(report:find("- ip: left out (--tolerant): " .. ip .. "/stage_3_lifecycle_metrics.json: missing", 1, true),
    "in the data checks")
  -- and on stderr (fixf46), one line, as the data checks word it
  local said = report:match("\n%- ip: left out %(%-%-tolerant%): ([^\n]*)")
  t.ok(said and said:find(ip .. "/stage_3_lifecycle_metrics.json: missing", 1, true), report)
  t.eq(select(2, r.stderr:gsub("left out", "")), 1, r.stderr)
  t.contains(r.stderr, "compare.lua: warning: run a (ip): left out (--tolerant): " .. said .. "\n")
  -- analyze.lua re-extracts the same way (tolerant), and says the same, there too
  r = run { LLMDLUA, "analyze.lua", w, "--reextract", "--quiet" }
  t.ok(r.ok, r.stderr)
  t.contains(r.stderr, "analyze.lua: warning: run a (ip): left out (--tolerant): " .. ip
    .. "/stage_3_lifecycle_metrics.json: missing")
  -- a benchmark report cut short
  local br = tmp .. "/br"
  lfs.mkdir(br)
  local text = t.read(F .. "/benchmark-report/br_v0_2_example.yaml")
  for _, cut in ipairs { 8000, 12000, #text - 1 } do
    t.write(br .. "/benchmark_report.yaml", text:sub(1, cut))
    r = run { LLMDLUA, "extract.lua", br }
    t.eq(r.code, 1, "cut at " .. cut)
    t.ok(r.stderr:find(br .. "/benchmark_report.yaml: does not end with a newline", 1, true), r.stderr)
  end
  -- cut at a line's end inside the aggregate: the section that is gone is named
  local at = text:find("\n", text:find("throughput:", text:find("aggregate:", 1, true), true) - 40, true)
  t.write(br .. "/benchmark_report.yaml", text:sub(1, at))
  r = run { LLMDLUA, "extract.lua", br }
  t.eq(r.code, 1)
  t.ok(r.stderr:find("successful requests but no %a+ section: truncated or incomplete"), r.stderr)
  t.write(br .. "/benchmark_report.yaml", text)
  t.ok(run({ LLMDLUA, "extract.lua", br }).ok, "the whole report reads")
end)

t.test("12: extract.lua FILE reads one result file (the others beside it ignored)", function()
  local F = t.fixtures()
  local one = F .. "/vllm-benchmark/exp-7_H100/llm-d-1p1d/benchmark_2025-05-13_04-43-11.json"
  local r = run { LLMDLUA, "extract.lua", one, "--json" }
  t.ok(r.ok, r.stderr)
  local m = json.decode(r.stdout)
  t.eq(#m.stages, 1)
  t.eq(#m.files, 1)
  -- its throughput is the file's own request_throughput (read with python3's json)
  local py = run { "python3", "-c", "import json,sys; print(repr(json.load(open(sys.argv[1]))['request_throughput']))", one }
  t.eq(m.overall.throughput_req_s.value, tonumber(py.stdout))
  r = run { LLMDLUA, "extract.lua", BASE .. "/stage_3_lifecycle_metrics.json", "--json" }
  t.ok(r.ok, r.stderr)
  m = json.decode(r.stdout)
  t.eq(#m.stages, 1)
  t.eq(m.stages[1].index, 3)
end)

t.test("12: autobench.lua validate on a folder without configs is an error; --help works", function()
  local empty = t.tmpdir()
  local r = run { LLMDLUA, "autobench.lua", "validate", empty }
  t.eq(r.code, 1)
  t.eq(r.stdout, empty .. ": no autobench configs here (looked for *.yaml and *.yml in the folder and below)\n")
  for _, h in ipairs { "--help", "-h", "help" } do
    r = run { LLMDLUA, "autobench.lua", h }
    t.eq(r.code, 0, h)
    t.ok(r.stdout:find("usage: llmdlua autobench.lua COMMAND", 1, true), r.stdout)
  end
  -- a folder with configs still validates (the bundled cookbook configs are valid)
  r = run { LLMDLUA, "autobench.lua", "validate", t.fixtures() .. "/autobench/cookbook-llm" }
  t.ok(r.ok, r.stdout .. r.stderr)
end)

t.test("12: doctor.lua needs no cluster tool for analysis; --cluster requires them", function()
  local bin = t.tmpdir() -- a PATH with python3 only
  lfs.link(proc.which("python3"), bin .. "/python3", true)
  local r = run { "env", "PATH=" .. bin, LLMDLUA, "doctor.lua" }
  t.eq(r.code, 0, r.stdout)
  t.ok(r.stdout:find("helm      not found (needed only for compare.lua --plan", 1, true), r.stdout)
  t.ok(not r.stdout:find("required", 1, true), r.stdout)
  r = run { "env", "PATH=" .. bin, LLMDLUA, "doctor.lua", "--cluster" }
  t.eq(r.code, 1)
  t.ok(r.stdout:find("helm      MISSING (required by compare.lua --plan)", 1, true), r.stdout)
end)

t.test("12: the README's llmd.scan example runs on a file with a failed request", function()
  local readme = t.read(ROOT .. "/README.md")
  local sec = readme:match("### `llmd.scan`.-```lua\n(.-)```")
  t.ok(sec and sec:find("scan.json", 1, true), "the example found")
  local dir = t.tmpdir()
  -- the synthetic per-request file has 6 requests, one failed without output_token_times
  -- (counted with python3's json, by hand from the fixture)
  local per_req = t.fixtures() .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json"
  t.write(dir .. "/per_request_lifecycle_metrics.json", t.read(per_req))
  t.write(dir .. "/rows.jsonl", '{"metrics":{"mean_ttft_ms":1.5}}\n{"metrics":{"mean_ttft_ms":null}}\n')
  t.write(dir .. "/requests.csv", "ttft_ms,x\n2.5,1\n")
  t.write(dir .. "/example.lua", 'local stats = require "llmd.stats"\nlocal s = stats.new()\n' .. sec)
  local r = run { "sh", "-c", "cd " .. q(dir) .. " && " .. q(LLMDLUA) .. " example.lua" }
  t.ok(r.ok, r.stderr)
  t.eq(r.stdout, "6 requests, 5 with a first token\n")
end)

t.test("12: a Prometheus counter asked for without _total says 'did you mean ..._total'", function()
  local pf = require "llmd.prom_files"
  local agg = pf.read_raw_dir(t.fixtures() .. "/prometheus/synthetic-raw")
  t.raises("agg:counter_total: no series named 'vllm:prefix_cache_hits' (did you mean 'vllm:prefix_cache_hits_total'?)",
    agg.counter_total, agg, "vllm:prefix_cache_hits")
  t.ok(agg:counter_total("vllm:prefix_cache_hits_total") ~= nil)
  -- a name never scraped at all is unknown, with the reason beside it
  local v, why = agg:gauge_summary("vllm:no_such_gauge")
  t.eq(v, nil)
  t.eq(why, "vllm:no_such_gauge: never scraped")
  v, why = agg:counter_total("vllm:no_such_counter_total")
  t.eq(v, nil)
  t.eq(why, "vllm:no_such_counter_total: never scraped")
end)

-- The KV cache analysis reads metrics/ and logs/, which the harness extraction skips: it
-- followed every link there, so with --link (the user's own folder) a link to another
-- pod's scrapes, a folder elsewhere or a FIFO was read as this run's. Now it reads a
-- regular file or a link to one inside the run, nothing else, and says what it left out.
-- Expected figures: P (tests/data/prom_expectations.py over the six synthetic scrapes).
t.test("KV cache analysis: no link out of the run, no link to a folder, no FIFO is read (extract, --link)", function()
  local P = require "prom_expected"
  local F = t.fixtures()
  local tmp = t.tmpdir()
  local rd, out = tmp .. "/run", tmp .. "/outside"
  copy_tree(BASE, rd)
  for _, d in ipairs { rd .. "/metrics/raw", rd .. "/logs", rd .. "/saved", out .. "/processed" } do
    assert(run({ "mkdir", "-p", d }).ok)
  end
  local raw = F .. "/prometheus/synthetic-raw"
  for n in lfs.dir(raw) do
    if n:match("%.log$") then t.write(rd .. "/metrics/raw/" .. n, t.read(raw .. "/" .. n)) end
  end
  -- another pod's scrapes outside the run, linked in: they would add its increase
  for _, ts in ipairs { "1771233602", "1771233632" } do
    local text = t.read(raw .. "/qwen-qwen3-0-6b-decode-6f9c7d5b8-k2x9p_" .. ts .. "_metrics.log")
    text = text:gsub("# Pod: [^\n]+", "# Pod: intruder")
    t.write(out .. "/intruder_" .. ts .. "_metrics.log", text)
    lfs.link(out .. "/intruder_" .. ts .. "_metrics.log", rd .. "/metrics/raw/intruder_" .. ts .. "_metrics.log", true)
  end
  -- a log linked inside the run is read; one linked out of it is not
  t.write(rd .. "/saved/decode-1.log", "INFO GPU KV cache size: 1,000 tokens\n")
  lfs.link("../saved/decode-1.log", rd .. "/logs/decode-1.log", true)
  t.write(out .. "/secret.log", "INFO GPU KV cache size: 999 tokens\n")
  lfs.link(out .. "/secret.log", rd .. "/logs/decode-0.log", true)
  -- a folder linked in (a processed summary elsewhere) is not entered
  t.write(out .. "/processed/metrics_summary.json", t.read(F .. "/metrics-summary/synthetic-metrics_summary.json"))
  lfs.link(out .. "/processed", rd .. "/metrics/processed", true)
  -- a FIFO where a log is expected: opening it would wait for a writer forever
  assert(run({ "mkfifo", "--", rd .. "/logs/decode-2.log" }).ok)
  local left_out = {
    "logs/decode-0.log -> " .. out .. "/secret.log: a link out of the results folder (or to a folder), not followed",
    "logs/decode-2.log: a named pipe, not a regular file (not read)",
    "metrics/processed -> " .. out .. "/processed: a link out of the results folder (or to a folder), not followed",
    "metrics/raw/intruder_1771233602_metrics.log -> " .. out
      .. "/intruder_1771233602_metrics.log: a link out of the results folder (or to a folder), not followed",
    "metrics/raw/intruder_1771233632_metrics.log -> " .. out
      .. "/intruder_1771233632_metrics.log: a link out of the results folder (or to a folder), not followed",
  }
  local r = run({ LLMDLUA, "extract.lua", rd, "--json" }, { timeout = 60, kill_grace = 1 })
  t.ok(not r.timed_out, "extract.lua waited on the FIFO")
  t.eq(r.code, 0, r.stderr)
  local doc = json.decode(r.stdout)
  t.eq(doc.overall.prefix_cache_hits.value, P.hits)
  t.eq(doc.overall.prefix_cache_queries.value, P.queries)
  for _, l in ipairs(left_out) do
    local said = false
    for _, w in ipairs(doc.warnings) do if w == "KV cache analysis: " .. l then said = true end end
    t.ok(said, "warned: " .. l .. "\n" .. table.concat(doc.warnings, "\n"))
  end
  -- compare --link: the workspace's results are a link to rd; the same figures
  local parent = tmp .. "/p"
  r = run({ LLMDLUA, "compare.lua", "--a", rd, "--b", TREAT, "--link", "--parent", parent, "--quiet" },
    { timeout = 120, kill_grace = 1 })
  t.ok(not r.timed_out, "compare.lua waited on the FIFO")
  t.eq(r.code, 0, r.stderr)
  local st = json.read(workspaces(parent)[1] .. "/run-a/run_state.json")
  t.eq(st.metrics.prefix_cache_hits, P.hits)
  t.eq(st.metrics.prefix_cache_queries, P.queries)
  -- in-process (the FIFO gone): the cache size from the log inside only, no summary
  os.remove(rd .. "/logs/decode-2.log")
  table.remove(left_out, 2)
  local kv = require("llmd.kvcache").analyze(rd, nil)
  t.eq(kv.size.total, 1000)
  t.eq(kv.time_avg, nil, "the linked summary is not read")
  t.eq(kv.hits, P.hits)
  t.eq(kv.left_out, left_out)
  -- nothing was written through a link
  t.eq(t.read(out .. "/secret.log"), "INFO GPU KV cache size: 999 tokens\n")
end)

-- gzip on standard input was read as JSON ("unexpected byte 0x1F"): llmd.scan now
-- decompresses it there too (files were already), json.read / yaml.load_file decompress
-- a gzip file, and text that reaches a parser still compressed (a Lua file, a string) is
-- named as gzip. The .gz files come from the gzip program; the sums are by hand.
t.test("gzip: decompressed on stdin and in whole-file reads, named as gzip where it cannot be", function()
  local dir = t.tmpdir()
  local function gz(name, text)
    t.write(dir .. "/" .. name, text)
    assert(run({ "gzip", "-n", "--", dir .. "/" .. name }).ok)
    return dir .. "/" .. name .. ".gz"
  end
  local jgz = gz("r.json", '{"ttft": [1.5, 2.5, 4]}')
  local cgz = gz("r.csv", "ttft_ms,tpot_ms\n10,1\n30,3\n")
  local ygz = gz("p.yaml", "namespace: bench\nruns: [a, b]\n")
  t.write(dir .. "/scan.lua", [==[
local scan, stats = require "llmd.scan", require "llmd.stats"
local s = stats.new()
local ok, e = pcall(scan[arg[1]], "-", { { arg[2], s } })
io.write(ok and ("%d %g\n"):format(s:count(), s:sum()) or tostring(e) .. "\n")
]==])
  local function scan_stdin(kind, pattern, file)
    local r = run({ LLMDLUA, dir .. "/scan.lua", kind, pattern }, { stdin = { file = file }, timeout = 60 })
    t.eq(r.code, 0, r.stderr)
    return r.stdout
  end
  t.eq(scan_stdin("json", "$.ttft[*]", jgz), "3 8\n")     -- 1.5 + 2.5 + 4
  t.eq(scan_stdin("csv", "ttft_ms", cgz), "2 40\n")       -- 10 + 30
  t.eq(scan_stdin("json", "$.ttft[*]", dir .. "/r.json.gz"), "3 8\n")
  -- plain input on stdin is still read as it is, from a file and from a pipe
  t.write(dir .. "/plain.json", '{"ttft": [7, 8]}')
  t.eq(scan_stdin("json", "$.ttft[*]", dir .. "/plain.json"), "2 15\n")
  local r = run({ "sh", "-c", "cat " .. q(dir .. "/plain.json") .. " | " .. q(LLMDLUA) .. " " .. q(dir .. "/scan.lua")
    .. " json '$.ttft[*]'" })
  t.eq(r.stdout, "2 15\n", r.stderr)
  -- whole-file reads: the document inside
  t.eq(json.read(jgz), { ttft = { 1.5, 2.5, 4 } })
  t.eq(require("llmd.yaml").load_file(ygz), { namespace = "bench", runs = { "a", "b" } })
  -- two gzip members one after the other (cat a.gz b.gz) are one stream, as gunzip reads it
  local p1, p2 = gz("part1", '{"a": [1, '), gz("part2", '2]}')
  assert(run({ "sh", "-c", "cat " .. q(p1) .. " " .. q(p2) .. " > " .. q(dir .. "/both.json.gz") }).ok)
  t.eq(json.read(dir .. "/both.json.gz"), { a = { 1, 2 } })
  -- a cut gzip file is an error naming it, never the part that was there
  local bytes = t.read(jgz)
  t.write(dir .. "/cut.json.gz", bytes:sub(1, #bytes - 10))
  t.raises(dir .. "/cut.json.gz: gzip-compressed and cut short (truncated?)", json.read, dir .. "/cut.json.gz")
  -- compressed text reaching a parser: said so, with the name given
  t.raises("r.json: gzip-compressed; decompress it first (gunzip)", json.decode, bytes, "r.json")
  t.raises("p.yaml: gzip-compressed; decompress it first (gunzip)", require("llmd.yaml").load, t.read(ygz), "p.yaml")
  local f = assert(io.open(jgz, "rb"))
  local ok, e = pcall(require("llmd.scan").json, f, { { "$.ttft[*]", require("llmd.stats").new() } })
  f:close()
  t.ok(not ok and tostring(e):find(": gzip-compressed; decompress it first (gunzip)", 1, true), tostring(e))
end)
