-- llmd.autobench_run: `autobench.lua run` - launch each candidate's server, benchmark every
-- scenario against it, stop it, and append one normalised row per (candidate, scenario,
-- concurrency). The config's `run:` block (checked by llmd.autobench.validate_run) is
-- documented in the README ("Serving-config search"). Placeholders in run.client_command:
-- {base_url} {endpoint} {model} {tokenizer} {input_len} {output_len} {num_prompts}
-- {max_concurrency} {max_concurrency_flag} {extra_request_body} {extra_body_flag}
-- {result_dir} {result_file} {scenario} {framework} {candidate_id}.
local ab = require "llmd.autobench"
local http = require "llmd.http"
local json = require "llmd.json"
local lfs = require "lfs"
local proc = require "llmd.proc"

local M = {}

M.DEFAULT_CLIENT = ab.DEFAULT_CLIENT

-- lines of a server log that mean it ran out of memory
M.OOM_PATTERNS = { "out of memory", "OutOfMemoryError", "CUDA error: out of memory", "OOM" }

local function now() return os.time() end

local mkdir_p = require("llmd.workspace").mkdir_p -- raises, naming the folder

local function read(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local s = f:read("a")
  f:close()
  return s
end

local function is_oom(text)
  for _, p in ipairs(M.OOM_PATTERNS) do
    if text:find(p, 1, true) then return true end
  end
  return false
end

-- What vLLM's log says when its engine died while its API server goes on (it answers HTTP 500
-- to every request, and /health 503, until its watchdog stops it; for good with
-- VLLM_KEEP_ALIVE_ON_ENGINE_DEATH): V1's engine core ("EngineCore encountered a fatal error.",
-- core.py; "Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.",
-- core_client.py), its API server ("AsyncLLM output_handler failed.", then
-- vllm.v1.engine.exceptions.EngineDeadError), V0's AsyncEngineDeadError and MQLLMEngineDeadError.
M.ENGINE_DEAD_PATTERNS = { "EngineCore encountered a fatal error", "died unexpectedly, shutting down client",
  "AsyncLLM output_handler failed", "EngineDeadError" }

-- A log line as said in a reason: vLLM's prefix ("(EngineCore_DP0 pid=413) ERROR 11-10
-- 12:30:57 [core.py:710] ") left out, at most 200 bytes.
local function log_line(line)
  line = line:gsub("^%(.-%) ", ""):gsub("^%u+ %d%d%-%d%d %d%d:%d%d:%d%d ?%[.-%] ", ""):gsub("%s+$", "")
  return #line > 200 and (line:sub(1, 197) .. "...") or line
end

-- The part of a server log written since offset: nil, or the first line saying its engine
-- died and the first saying it ran out of memory (nil when none does).
local function engine_death(text)
  local dead, oom
  for line in text:gmatch("[^\n]+") do
    if not dead then
      for _, p in ipairs(M.ENGINE_DEAD_PATTERNS) do
        if line:find(p, 1, true) then dead = log_line(line); break end
      end
    end
    if not oom and is_oom(line) then oom = log_line(line) end
  end
  return dead, dead and oom or nil
end

-- The last n lines of a log, for a row's reason: each at most its last 300 bytes (a log of one
-- endless line, a progress bar's or a dump's, put all of it into the row: 8 KB of it past a
-- file-size limit failed the row's append, and a row of megabytes is no reason).
local function tail(text, n)
  local lines = {}
  for l in text:gmatch("[^\n]+") do
    if #l > 300 then l = ("...(%d bytes before) %s"):format(#l - 300, l:sub(-300)) end
    lines[#lines + 1] = l
  end
  return table.concat(lines, " / ", math.max(1, #lines - (n or 2) + 1))
end

-- FNV-1a, 64 bits, as 16 hex digits (Lua integers wrap like uint64 arithmetic).
function M.fnv1a64(text)
  local h = 0xcbf29ce484222325
  for i = 1, #text do
    h = (h ~ text:byte(i)) * 0x100000001b3
  end
  return ("%016x"):format(h)
end

-- One text per value, the same for equal values: maps with sorted keys.
local function canon(v)
  if v == nil or v == json.null then return "null" end
  if type(v) ~= "table" then return json.encode(v) end
  if json.is_array(v) or (#v > 0) then
    local t = {}
    for i, x in ipairs(v) do t[i] = canon(x) end
    return "[" .. table.concat(t, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  local t = {}
  for i, k in ipairs(keys) do t[i] = json.encode(k) .. ":" .. canon(v[k]) end
  return "{" .. table.concat(t, ",") .. "}"
end

-- The run key of one (candidate, scenario): a hash of all that decides what its row
-- measures (the rendered server command and its environment, the scenario, the workload,
-- the client), so that a finished row is reused only for exactly the same run.
function M.run_key(cfg, framework, server_command, sc)
  local ds, bm = cfg.dataset or {}, type(cfg.benchmark) == "table" and cfg.benchmark or {}
  local r = type(cfg.run) == "table" and cfg.run or {}
  local parts = {
    "framework=" .. framework, "server_command=" .. server_command, "scenario=" .. sc.name,
    "input_len=" .. canon(sc.input_len), "output_len=" .. canon(sc.output_len),
    "max_concurrency=" .. canon(sc.conc), "num_prompts=" .. canon(ds.num_prompts), "dataset_kind=" .. canon(ds.kind),
    "endpoint=" .. canon(bm.endpoint), "extra_request_body=" .. canon(bm.extra_request_body),
    "client_command=" .. ab.client_command(cfg), "server_env=" .. canon(r.env),
  }
  return "fnv1a64:" .. M.fnv1a64(table.concat(parts, "\n"))
end

local function row_text(row)
  row._line, row._file = nil, nil
  return json.encode(row) .. "\n"
end

-- The file's size once a last line with no end of line that is not JSON is cut, and
-- whether the last line (JSON, with no end of line) needs its newline.
local function mend_last_line(path, what)
  local size = lfs.attributes(path, "size") or 0
  if size == 0 then return 0, false end
  local f = io.open(path, "rb")
  if not f then return size, false end
  local last = f:seek("end", -1) and f:read(1)
  if last == "\n" or not last then f:close(); return size, false end
  f:seek("set")
  local data = f:read("a") or ""
  f:close()
  local cut = data:find("\n[^\n]*$") or 0 -- the bytes up to the last whole line's end
  if pcall(json.decode, data:sub(cut + 1)) then return size, true end
  local ok, err = proc.truncate(path, cut)
  if not ok then error(("%s: cannot %s: %s"):format(path, what, err), 0) end
  return cut, false
end

-- Appends text (whole JSON lines) to path, so that the file only ever holds whole lines:
-- - a last line with no end of line that is not JSON (an append cut short by a kill or a
--   full disk; read_rows leaves it out and says so) is cut first, so the new row is not glued
--   to it; one that is JSON (a file edited by hand, saved without a last newline) gets its
--   newline;
-- - an append that fails part-way (ENOSPC) is undone: the file is cut back to its size before,
--   and the error says so (audit48 S7: a half row made every later run and compare stop on
--   "invalid JSON" until the file was edited by hand).
local function append_text(path, text, what)
  local size, newline = mend_last_line(path, what)
  if newline then text = "\n" .. text end
  local f, err = io.open(path, "ab")
  if not f then error(("%s: cannot %s: %s"):format(path, what, err), 0) end
  local ok, werr = f:write(text)
  local cok, cerr = f:close()
  -- and on the disk before the run goes on (a crash after a row's candidate ran must not
  -- lose the row, nor leave its end unwritten): fsync, whose failure is the write's
  if ok and cok then cok, cerr = proc.fsync(path) end
  if not ok or not cok then
    local why = tostring(werr or cerr):gsub("^" .. path:gsub("%p", "%%%0") .. ": ", "")
    local back, terr = proc.truncate(path, size)
    error(("%s: cannot %s: %s; %s"):format(path, what, why, back
      and ("nothing of it kept (the file is back to its %d bytes)"):format(size)
      or ("and cannot cut the part written (%s): its last line is unfinished"):format(terr)), 0)
  end
end

local function append(path, row) append_text(path, row_text(row), "append a row") end

local function out_name(out) return ((out:match("[^/]+$") or out):gsub("%.jsonl$", "")) end
-- A path relative to the output's folder, as this run names it (from its working folder).
local function beside(out, rel)
  local d = out:match("^(.*)/[^/]*$")
  return d and (d .. "/" .. rel) or rel
end

-- The folder of an output's artifacts: autobench-artifacts/<output name without .jsonl>
-- beside it, one per output file (as this run names it, from its working folder).
function M.artifacts_dir(out) return beside(out, "autobench-artifacts/" .. out_name(out)) end

-- What a row stores for an artifact this run wrote at `path` (under artifacts_dir): the path
-- relative to the output's own folder, so that a rerun (or a reader) from any working folder
-- finds it, and the output and its artifacts can move together.
function M.stored_path(out, path)
  local d = M.artifacts_dir(out) .. "/"
  if path:sub(1, #d) == d then return "autobench-artifacts/" .. out_name(out) .. "/" .. path:sub(#d + 1) end
  return path
end

-- Where an artifact a row of `out` names is, from this run's working folder. The artifacts
-- are always beside the output (artifacts_dir), so a path naming autobench-artifacts/<name>/
-- is read from there, whatever folder the run that wrote it started in: rows written before
-- paths were stored relative to the output named them from that run's working folder
-- (sub/autobench-artifacts/r/... for --out sub/r.jsonl). Any other relative path is relative
-- to the output's folder.
function M.artifact_path(out, stored)
  local key, pos, i = "autobench-artifacts/" .. out_name(out) .. "/", nil, 1
  while true do
    local s = stored:find(key, i, true)
    if not s then break end
    if s == 1 or stored:sub(s - 1, s - 1) == "/" then pos = s end
    i = s + 1
  end
  if pos then return beside(out, stored:sub(pos)) end
  if stored:sub(1, 1) == "/" then return stored end
  return beside(out, stored)
end

-- Moves a file an earlier run left where this run writes (a client's result file, a log)
-- aside (to PATH.earlier-N, the first N free: never deleted, it may be the user's), so that
-- only a file this run's client writes (or, for sglang's JSONL, appends to) is read. Returns
-- the new name, nil when there was none; raises naming the file when it cannot be moved.
function M.move_aside(path)
  if lfs.attributes(path, "mode") == nil then return nil end
  local n = 1
  while lfs.attributes(("%s.earlier-%d"):format(path, n), "mode") ~= nil do n = n + 1 end
  local dest = ("%s.earlier-%d"):format(path, n)
  local ok, err = os.rename(path, dest)
  if not ok then error(("%s: cannot move an earlier run's file aside: %s"):format(path, tostring(err)), 0) end
  return dest
end

-- A server this run started is recorded in its candidate's folder (SERVER_PID: its pid,
-- which is its process group's, and its start, field 22 of /proc/PID/stat), removed once it
-- is stopped. A run killed outright (kill -9, the out-of-memory killer) cannot stop its
-- server, which goes on in its own process group holding its port and its GPUs' memory: the
-- next run's candidates would run out of memory beside it, rows saying oom of a
-- configuration that fits. The next run of the output finds the record (and the process of
-- that pid and start) and stops before it starts anything.
M.SERVER_PID = "server.pid"

local function record_server(cdir, p, command)
  local pid = p:pid()
  local start = require("llmd.cluster")._start_of(pid)
  require("llmd.workspace").write_text(cdir .. "/" .. M.SERVER_PID,
    json.encode { pid = pid, start = start or json.null, command = command } .. "\n")
end

-- Servers recorded under the artifacts folder dir that still run: {file =, pid =, command =}.
-- Records of servers gone (stopped by an interrupt, which stops what the run started, or
-- since) are removed.
function M.leftover_servers(dir)
  local found = {}
  if lfs.attributes(dir, "mode") ~= "directory" then return found end
  local names = {}
  for n in lfs.dir(dir) do
    if n ~= "." and n ~= ".." and lfs.attributes(dir .. "/" .. n .. "/" .. M.SERVER_PID, "mode") == "file" then
      names[#names + 1] = n
    end
  end
  table.sort(names)
  for _, n in ipairs(names) do
    local file = dir .. "/" .. n .. "/" .. M.SERVER_PID
    local ok, rec = pcall(json.decode, read(file), file)
    local pid = ok and type(rec) == "table" and math.tointeger(rec.pid)
    local start, state = nil, nil
    if pid then start, state = require("llmd.cluster")._start_of(pid) end
    if start and state ~= "Z" and (rec.start == json.null or rec.start == nil or tostring(rec.start) == start) then
      found[#found + 1] = { file = file, pid = pid, command = type(rec.command) == "string" and rec.command or "?" }
    else
      os.remove(file)
    end
  end
  return found
end

-- Where --force moves the rows that no longer match the config.
function M.stale_path(out) return (out:gsub("%.jsonl$", "")) .. ".stale.jsonl" end

-- The artifacts a row points to (row.artifacts: raw result, server and client logs).
M.ARTIFACTS = { "raw_result", "server_log", "benchmark_log" }

local function is_measured(row)
  return row.disposition == "selected" or (row.disposition == nil and row.status ~= "skipped")
end

-- A row that failed for a cause outside its candidate (its port held by another process, a
-- file that could not be moved aside, a command that could not be started): it says nothing
-- of the configuration, so a rerun measures it again (it is not resumed as done), and the
-- row measured then takes its place. Without this, the failure stood as the candidate's
-- result for good: every rerun said "already in" and skipped it.
local function environmental(row) return row.environment_failure == true end

local function note_id(row)
  return table.concat({ ab.framework(row), tostring(row.candidate_id), ab.scenario(row),
    canon(type(row.workload) == "table" and row.workload.max_concurrency or nil), tostring(row.disposition),
    tostring(row.failure_reason) }, "\0")
end

-- Rows of the output minus the notes (skipped rows of a disposition) that measured rows
-- have overtaken: an exclusion note of a framework with measured rows, a candidate's note
-- whose run key was measured. Returns the rows kept, and whether any was dropped.
local function prune(rows)
  local fw_measured, key_measured, last = {}, {}, {}
  for i, row in ipairs(rows) do
    if is_measured(row) then
      fw_measured[ab.framework(row)] = true
      if type(row.run_key) == "string" then key_measured[row.run_key] = true; last[row.run_key] = i end
    end
  end
  local keep = {}
  for i, row in ipairs(rows) do
    local overtaken = not is_measured(row) and (
      (row.disposition == "user-excluded" and fw_measured[ab.framework(row)]) or
      (type(row.run_key) == "string" and key_measured[row.run_key]))
      -- an environment's failure, measured again since (environmental)
      or (environmental(row) and type(row.run_key) == "string" and last[row.run_key] ~= i)
    if not overtaken then keep[#keep + 1] = row end
  end
  return keep, #keep < #rows
end

-- The path a file's name leads to: the last component's symbolic links followed (relative
-- targets from the link's folder; a link to a file not made yet is its target's path too).
function M.link_target(path)
  for _ = 1, 40 do
    if lfs.symlinkattributes(path, "mode") ~= "link" then break end
    local to = lfs.symlinkattributes(path, "target") or ""
    path = (to:sub(1, 1) ~= "/" and (path:match("^(.*/)[^/]*$") or "") or "") .. to
  end
  return path
end

-- Rewritten as a whole (atomically: a new file renamed over the old), through a symbolic link
-- to the file it leads to, so that the link stays a link and its target has the rows (the new
-- file in the link's place left the target with the old rows, and the two names apart). A
-- file of several names (hard links) cannot keep them: the others keep the rows as they were,
-- said on stderr.
local function rewrite(out, rows)
  local t = {}
  for i, row in ipairs(rows) do t[i] = row_text(row) end
  local target = M.link_target(out)
  local names = lfs.attributes(target, "nlink")
  require("llmd.workspace").write_text(target, table.concat(t))
  if names and names > 1 then
    io.stderr:write(("note: %s had %d names (hard links); it was rewritten as a new file, so the other %d keep "
      .. "the rows as they were\n"):format(out, names, names - 1))
  end
end

-- The folder of the locks that hold an output by its identity (M.lock_output): this user's,
-- under /tmp, made when missing (mode 700), a folder of this user's that nobody else can write
-- in (else a lock file there could be a link another user placed).
local function lock_dir()
  local uid = lfs.attributes("/proc/self", "uid") or 0
  local d = ("/tmp/llmdlua-locks-%d"):format(uid)
  if lfs.symlinkattributes(d, "mode") == nil then
    -- made with mode 700 at once (mkdir(2) with that mode): lfs.mkdir's 777 less the umask,
    -- then a chmod, left a moment in which another user could place a file in it (review53);
    -- a failure (made meanwhile by another run) is judged by the check below
    proc.run { "mkdir", "-m", "700", "--", d }
  end
  local a = lfs.symlinkattributes(d)
  if not (a and a.mode == "directory" and a.uid == uid and a.permissions:sub(4) == "------") then
    return nil, ("%s is not a folder of this user's that only it can write in (%s)"):format(d,
      a and ("%s, owner uid %d, %s"):format(a.mode, a.uid, a.permissions) or "it cannot be made")
  end
  -- the lock files no process holds (a run killed by kill -9, a crash: only a holder's own
  -- end removes its file) go, so that they do not pile up, one for each output ever run
  -- (proc.unlink_stale: a held one stays, and one taken meanwhile is taken again by path)
  for e in lfs.dir(d) do
    if e:match("^autobench%-.+%.lock$") then proc.unlink_stale(d .. "/" .. e) end
  end
  return d
end

-- Holds the output file itself, whatever name this run gives it: two runs of one file under
-- two names (a symbolic link to it, ./x and ../dir/x, a hard link) each held their own
-- artifacts folder's lock, and both measured its rows and appended them at once. Two locks,
-- in lock_dir(): one named after the file's real path (links followed, `.` and `..`
-- resolved), which a rewrite (a new file renamed over it) keeps, and one after its device and
-- inode, which a hard link shares. The file is made (empty) first when missing, so that a
-- run that starts before a link to it is made holds its inode as well. The artifacts stay
-- where they are, beside the output as named. Returns true, or nil and one line (in use:
-- "in_use" third); made.path is the file made, if it was.
function M.lock_output(out, made)
  local target = M.link_target(out)
  if lfs.attributes(target, "mode") == nil then
    local f = io.open(target, "ab")
    if f then f:close(); made.path = target end
  end
  local dir, base = target:match("^(.*)/([^/]*)$")
  if not dir then dir, base = ".", target elseif dir == "" then dir = "/" end
  local real = (proc.realpath(dir) or dir):gsub("/$", "") .. "/" .. base
  local ld, why = lock_dir()
  if not ld then return nil, ("%s: cannot lock the results file: %s"):format(out, why) end
  local ws = require "llmd.workspace"
  local locks = { { ("%s/autobench-path-%s.lock"):format(ld, M.fnv1a64(real)),
    ("these results (the file %s)"):format(real) } }
  local a = lfs.attributes(target)
  if a and a.mode == "file" then
    locks[2] = { ("%s/autobench-file-%d-%d.lock"):format(ld, a.dev, a.ino),
      ("these results (the file %s under another name, a hard link: the same device and inode)"):format(real) }
  end
  for _, l in ipairs(locks) do
    local ok, err = ws.lock(dir, "autobench.lua run", { shown = out, what = l[2], file = l[1] })
    if not ok then return nil, err, err:find(": in use by another llmdlua process", 1, true) and "in_use" end
  end
  return true
end

-- Rows of `file` (the output `out` or its stale file) pointing at `from` (an artifact, as
-- this run names it) are made to point at `to`; the file is rewritten (atomically) when one
-- changed.
local function repoint(file, out, from, to)
  if lfs.attributes(file, "mode") ~= "file" then return end
  local rows, changed = ab.read_rows(file), false
  for _, row in ipairs(rows) do
    if type(row.artifacts) == "table" then
      for _, k in ipairs(M.ARTIFACTS) do
        local v = row.artifacts[k]
        if type(v) == "string" and M.artifact_path(out, v) == from then
          row.artifacts[k], changed = M.stored_path(out, to), true
        end
      end
    end
  end
  if changed then rewrite(file, rows) end
end

-- Before this run writes an artifact at `path`: the file an earlier run left there is moved
-- aside (move_aside), and the rows of the output and of its stale file that point at it
-- point at where it is now, never at what this run writes. Returns move_aside's answer.
function M.set_aside(out, path)
  local dest = M.move_aside(path)
  if dest then
    repoint(out, out, path, dest)
    repoint(M.stale_path(out), out, path, dest)
  end
  return dest
end

-- Notes overtaken by measured rows leave the output (atomically rewritten).
function M.prune_file(out)
  if lfs.attributes(out, "mode") ~= "file" then return end
  local keep, dropped = prune(ab.read_rows(out))
  if dropped then rewrite(out, keep) end
end

-- What the output already holds (resume): done[run_key] for rows measured with exactly
-- this config, measured[framework] = how many, notes[note_id] for skipped rows. A measured
-- row whose key matches no candidate of the config any more is stale: an error naming
-- them, or with opts.force moved to stale_path(out).
local function resume(out, cfg, scenarios, opts)
  local st = { done = {}, measured = {}, notes = {} }
  if lfs.attributes(out, "mode") ~= "file" then return st end
  local known = {}
  for _, fw in ipairs(ab.FRAMEWORKS) do
    local sec = type(cfg.frameworks) == "table" and cfg.frameworks[fw]
    if type(sec) == "table" and type(sec.server_command) == "string" then
      for _, c in ipairs(ab.candidates(cfg, fw)) do
        local cmd = ab.render(cfg, fw, c)
        for _, sc in ipairs(scenarios) do known[M.run_key(cfg, fw, cmd, sc)] = true end
      end
    end
  end
  local rows, keep, stale = ab.read_rows(out), {}, {}
  mend_last_line(out, "cut its unfinished last row") -- read_rows left it out, saying so
  for _, row in ipairs(rows) do
    if is_measured(row) and not (type(row.run_key) == "string" and known[row.run_key]) then
      stale[#stale + 1] = row
    else
      keep[#keep + 1] = row
    end
  end
  local spath = M.stale_path(out)
  if #stale > 0 then
    local list = {}
    for i, row in ipairs(stale) do
      if i > 4 then list[#list + 1] = ("and %d more"):format(#stale - 4); break end
      list[#list + 1] = ("line %d (%s %s)"):format(row._line, tostring(row.candidate_id), ab.scenario(row))
    end
    local what = ("%s: %d row(s) no longer match the config (another server command, workload or client, "
      .. "or no run key): %s"):format(out, #stale, table.concat(list, ", "))
    if not opts.force then
      error(what .. ("; run again with --force to move them to %s and measure those candidates again, or "
        .. "choose another --out"):format(spath), 0)
    end
    local t = {}
    for i, row in ipairs(stale) do
      -- an artifact no longer there is said to be gone, not pointed at: this run may write
      -- a new file at that path (looked for beside the output, not in this run's folder)
      local a = type(row.artifacts) == "table" and row.artifacts or {}
      for _, k in ipairs(M.ARTIFACTS) do
        if type(a[k]) == "string" and lfs.attributes(M.artifact_path(out, a[k]), "mode") == nil then
          row.artifacts_gone = row.artifacts_gone or json.object {}
          row.artifacts_gone[k], a[k] = a[k], nil
          io.write(("%s %s: its %s %s is gone (no such file); the row moved to %s says so\n"):format(
            tostring(row.candidate_id), ab.scenario(row), k, row.artifacts_gone[k], spath))
        end
      end
      t[i] = row_text(row)
    end
    append_text(spath, table.concat(t), "write")
    io.write(what, "; moved to ", spath, "\n")
  end
  local dropped
  keep, dropped = prune(keep)
  if #stale > 0 or dropped then rewrite(out, keep) end
  for _, row in ipairs(keep) do
    if environmental(row) then
      io.write(("%s %s: not resumed: it failed before for a cause outside the candidate (%s)\n"):format(
        tostring(row.candidate_id), ab.scenario(row), tostring(row.failure_reason)))
    elseif is_measured(row) then
      st.done[row.run_key] = true
      local fw = ab.framework(row)
      st.measured[fw] = (st.measured[fw] or 0) + 1
    else
      st.notes[note_id(row)] = true
    end
  end
  return st
end

local function fill(template, vars)
  return (template:gsub("{([%w_]+)}", function(k)
    local v = vars[k]
    if v == nil then error(("client_command: unknown placeholder {%s}"):format(k), 0) end
    if k:match("_flag$") then return v end -- already command-line words
    return ab.quote(v)
  end))
end

local function exit_text(st)
  if st.code then return "code " .. st.code end
  -- (SIGXFSZ, 25 on Linux: a child writing its log past ulimit -f is killed by it)
  return "signal " .. tostring(st.signal) .. (st.signal == 25 and " (SIGXFSZ: a file it wrote grew past the "
    .. "file-size limit, ulimit -f)" or "")
end

-- The run's closing line where rows failed (failures: {row =, log =} in the order run): what
-- failed, by candidate and log, and where the rows are, as the exit status 1 it explains:
-- "not every row is ok (exit 1): vllm-0 chat oom, summarization oom (log
-- autobench-artifacts/rep1/vllm-0/server.log); the rows are in rep1.jsonl".
function M.failures_line(failures, out)
  local groups, order = {}, {}
  for _, f in ipairs(failures) do
    local r = f.row
    local key = tostring(r.candidate_id) .. "\0" .. tostring(f.log)
    if not groups[key] then
      groups[key] = { cand = tostring(r.candidate_id), log = f.log, items = {} }
      order[#order + 1] = key
    end
    local g = groups[key].items
    g[#g + 1] = ("%s %s"):format(r.workload.scenario, r.status)
  end
  local parts = {}
  for _, k in ipairs(order) do
    local g = groups[k]
    parts[#parts + 1] = ("%s %s%s"):format(g.cand, table.concat(g.items, ", "),
      g.log and (" (log " .. g.log .. ")") or "")
  end
  return ("not every row is ok (exit 1): %s; the rows are in %s"):format(table.concat(parts, "; "), out)
end

-- Why the server exited, from its log: "oom" or "failed", and the reason.
local function server_death(st, log, when)
  local text = read(log)
  local said = tail(text, 2)
  if said == "" then said = ("its log %s is empty"):format(log) end
  -- an exit of 0 before answering is a command that ended by itself: one that starts the server
  -- in the background and returns (a launcher, nohup ... &), or one that does not serve at all
  if st.code == 0 and when:match("^before answering") then
    said = said .. " (a command that returns at once, exit 0, is no server: one that starts the server in the "
      .. "background and returns cannot be watched nor stopped; run the server in the foreground)"
  end
  return is_oom(text) and "oom" or "failed", ("the server exited (%s) %s: %s"):format(exit_text(st), when, said)
end

-- The model names /v1/models lists (ids and roots), or nil when it gives none (and the
-- HTTP status when that is 401 or 403: the server wants authentication).
local function served_models(base)
  local ok, r = pcall(http.get, base .. "/v1/models", { timeout = 5, connect_timeout = 1 })
  if ok and (r.status == 401 or r.status == 403) then return nil, r.status end
  if not ok or r.status < 200 or r.status >= 300 then return nil end
  local okj, doc = pcall(json.decode, r.body or "")
  if not okj or type(doc) ~= "table" or type(doc.data) ~= "table" then return nil end
  local names, seen = {}, {}
  for _, m in ipairs(doc.data) do
    if type(m) == "table" then
      for _, k in ipairs { "id", "root" } do
        local v = m[k]
        if type(v) == "string" and not seen[v] then seen[v] = true; names[#names + 1] = v end
      end
    end
  end
  return names
end

-- Waits until the server launched answers one of the ready paths; nil, or why not. The
-- answer counts only while the process launched is alive and /v1/models lists one of
-- `models` (the candidate's model names): else another server is on the port.
-- A 401 or 403 is final: the server wants a key no request of the search sends.
local function auth_refused(base, path, status)
  return "failed", ("%s%s answered HTTP %d (%s): the server launched requires authentication, as when started with "
    .. "--api-key; neither the readiness check nor the benchmark client sends a key, so remove --api-key (and "
    .. "VLLM_API_KEY from run.env) for the search"):format(base, path, status,
    status == 401 and "Unauthorized" or "Forbidden")
end

-- The processes holding a listening TCP socket on port (Linux: the socket's inode in
-- /proc/net/tcp and tcp6, found among /proc/PID/fd): a list of pids, or nil and why they
-- cannot be known here.
local function listeners(port)
  local inodes, any = {}, false
  for _, f in ipairs { "/proc/net/tcp", "/proc/net/tcp6" } do
    local h = io.open(f, "rb")
    if h then
      any = true
      for line in h:lines() do
        -- "  0: 00000000:1F90 00000000:0000 0A ... uid timeout inode": state 0A is LISTEN
        local lport, st, inode = line:match("^%s*%d+: %x+:(%x+) %x+:%x+ (%x%x)%s+%S+%s+%S+%s+%S+%s+%d+%s+%d+%s+(%d+)")
        if lport and tonumber(lport, 16) == port and st == "0A" and inode ~= "0" then
          inodes["socket:[" .. inode .. "]"] = true
        end
      end
      h:close()
    end
  end
  if not any then return nil, "no /proc/net/tcp here" end
  local pids = {}
  if next(inodes) == nil then return pids end
  for pid in lfs.dir("/proc") do
    if pid:match("^%d+$") then
      local ok, iter, dir = pcall(lfs.dir, "/proc/" .. pid .. "/fd")
      if ok then
        for fd in iter, dir do
          if inodes[lfs.symlinkattributes("/proc/" .. pid .. "/fd/" .. fd, "target") or ""] then
            pids[#pids + 1] = tonumber(pid)
            break
          end
        end
      end
    end
  end
  table.sort(pids)
  return pids
end

-- A process's group and command name (/proc/PID/stat), or nil.
local function group_of(pid)
  local h = io.open(("/proc/%d/stat"):format(pid), "rb")
  if not h then return nil end
  local st = h:read("a")
  h:close()
  local comm, pgrp = st:match("^%d+ %((.*)%) %S+ %d+ (%d+)")
  return tonumber(pgrp), comm
end

-- Whether the server answering on port is the one launched (p, in its own process group):
-- nil when it is (or cannot be told: said on stdout), else why not. The port was free
-- before the launch, but a server that binds late (vLLM, SGLang while loading the model)
-- leaves time for another process to take it, and its answers would be recorded as the
-- candidate's (audit48 S3). run.check_port_owner: false turns it off (a server in a
-- container, whose port a proxy of the container runtime holds).
local function port_owner(p, port)
  local pids, why = listeners(port)
  if not pids or #pids == 0 then
    io.write(("(which process listens on port %d cannot be told here: %s; the server is taken to be the one "
      .. "launched)\n"):format(port, why or "no listening socket of this network namespace holds it"))
    return nil
  end
  local others = {}
  for _, pid in ipairs(pids) do
    local g, comm = group_of(pid)
    if g == p:pid() then return nil end
    others[#others + 1] = ("%d (%s)"):format(pid, comm or "?")
  end
  return ("port %d is answered by pid %s, not by the server launched (process group %d): another process took "
    .. "the port while the server was starting, and its answers would be recorded as this candidate's; stop it, "
    .. "or set another run.port (a server run in a container, whose port the container runtime's proxy holds: "
    .. "set run.check_port_owner: false)"):format(port, table.concat(others, ", "), p:pid())
end
M._port_owner = port_owner

local function wait_ready(p, base, paths, timeout, log, models)
  local t0 = now()
  local answered -- the path that answered while /v1/models did not (yet)
  while true do
    for _, path in ipairs(paths) do
      local ok, r = pcall(http.get, base .. path, { timeout = 5, connect_timeout = 1 })
      if ok and (r.status == 401 or r.status == 403) and not p:poll() then return auth_refused(base, path, r.status) end
      if ok and r.status >= 200 and r.status < 300 then
        answered = path
        local st = p:poll()
        if st then return server_death(st, log, "before answering (something else answers on its port)") end
        local names, auth = served_models(base)
        if auth and not p:poll() then return auth_refused(base, "/v1/models", auth) end
        if names then
          for _, n in ipairs(names) do
            for _, want in ipairs(models) do if n == want then return nil end end
          end
          -- the process launched is alive and its port was free before it started: it is the
          -- one answering, with another model name than the candidate's
          return "failed", ("the server launched (alive, answering on %s) serves model %s, not %s: the name it "
            .. "serves is its --served-model-name (else its model path); set served_model_name in the candidate's "
            .. "flags, or model.name, to the name the benchmark should request")
            :format(base, #names > 0 and table.concat(names, ", ") or "(none listed)", table.concat(models, " or "))
        end
        break -- /v1/models does not answer yet
      end
    end
    local st = p:poll()
    if st then return server_death(st, log, "before answering") end
    if now() - t0 >= timeout then
      if answered then
        return "timeout", ("the server answered %s but /v1/models did not list its models within %d s")
          :format(answered, timeout)
      end
      return "timeout", ("the server did not answer %s within %d s"):format(table.concat(paths, " or "), timeout)
    end
    p:wait(0.2) -- a pause that also notices the server's exit
  end
end

-- Runs the benchmark client in the background while watching the server: { st = the
-- client's exit } or { timed_out = true } or { server = the server's exit } (the client is
-- stopped at once: a client talking to a dead server would wait for it for minutes).
local function run_client(cargv, blog, server, timeout)
  local ok, c = pcall(proc.spawn, cargv, { stdout = { file = blog }, stderr = "stdout" })
  if not ok then return { spawn_error = tostring(c) } end
  local t0 = now()
  while true do
    local st = c:wait(0.2)
    local sst = server:poll()
    if sst then
      c:kill(2)
      return { server = sst }
    end
    if st then return { st = st } end
    if now() - t0 >= timeout then
      c:kill(5)
      return { timed_out = true }
    end
  end
end

-- The row's metrics (the normalised schema's names) <- the client result's keys, first
-- found: `vllm bench serve` / benchmark_serving.py (also kimbochen's bench_serving), then
-- `python -m sglang.bench_serving`. All latencies are in ms in both.
M.RESULT_KEYS = {
  { "request_throughput", { "request_throughput" } },
  { "output_token_throughput", { "output_throughput" } },
  { "total_token_throughput", { "total_token_throughput", "total_throughput" } },
  { "p50_ttft_ms", { "median_ttft_ms", "p50_ttft_ms" } },
  { "mean_ttft_ms", { "mean_ttft_ms" } },
  { "p99_ttft_ms", { "p99_ttft_ms" } },
  { "p50_tpot_ms", { "median_tpot_ms", "p50_tpot_ms" } },
  { "mean_tpot_ms", { "mean_tpot_ms" } },
  { "p99_tpot_ms", { "p99_tpot_ms" } },
  { "p50_e2e_ms", { "median_e2el_ms", "p50_e2el_ms", "median_e2e_latency_ms", "p50_e2e_latency_ms" } },
  { "mean_e2e_ms", { "mean_e2el_ms", "mean_e2e_latency_ms" } },
  { "p99_e2e_ms", { "p99_e2el_ms", "p99_e2e_latency_ms" } },
}

-- A client's result file: one JSON object, or JSONL (sglang appends a line per run: the last).
local function read_result(path)
  local text = read(path)
  local ok, v = pcall(json.decode, text, path)
  if not ok then
    local last, n = nil, 0
    for line in text:gmatch("[^\n]+") do
      n = n + 1
      if line:match("%S") then last = { line = line, n = n } end
    end
    if not last then error(path .. ": empty (expected the benchmark client's JSON result)", 0) end
    local dok, dv = pcall(json.decode, last.line, path)
    if not dok then
      -- (one line, named by the file and its line: the decoder's "x.lua:N: PATH:1:COL: why" was
      -- the row's reason as it came, a position in llmdlua's source in front)
      local col, why = tostring(dv):match(":1:(%d+): ([^\n]*)$")
      error(("%s:%d: the client's result is not whole JSON (a file cut short, or not JSON): column %s: %s")
        :format(path, last.n, col or "?", why or tostring(dv)), 0)
    end
    v = dv
  end
  if type(v) ~= "table" or json.is_array(v) then error(path .. ": expected a JSON object (a benchmark result)", 0) end
  return v
end

-- Metrics of a client's result file, named as the normalised schema names them, and nil
-- or why the run failed (and then, third, why the candidate's other scenarios would fail
-- alike, when that is not that its server failed every request). A metric the file does
-- not have stays absent; with no completed request, or completed ones without one output
-- token, there are no latencies or throughputs at all (vLLM writes 0 for them: numpy of
-- an empty list "or 0"), and a latency of 0 ms means not measured (vLLM's TTFT unstreamed).
-- num_prompts: the config's, when the file has neither `failed` nor `num_prompts`.
function M.result_metrics(path, num_prompts)
  local d = read_result(path)
  local function num(k) local v = d[k]; return type(v) == "number" and v or nil end
  local completed = num("completed")
  if not completed then
    error(path .. ": no numeric 'completed' (expected a vllm bench serve or sglang.bench_serving result)", 0)
  end
  local failed = num("failed")
  local n = num("num_prompts") or num_prompts
  if not failed and n then failed = math.max(0, n - completed) end
  local m = json.object {}
  if failed and completed + failed > 0 then m.success_rate = completed / (completed + failed) end
  if completed == 0 then
    return m, ("no request succeeded (%s failed)"):format(failed and math.tointeger(failed) or "all")
  end
  -- requests "completed" without one output token are answers with nothing in them (HTTP
  -- 200, empty text): vLLM's client counts a streamed answer a success once a chunk has
  -- choices, whatever its text, so a broken server's file says every request done, fast -
  -- the best request throughput of any. A server that generates emits a token per request
  -- at least (an EOS is one), so none at all is no measurement
  local toks = num("total_output_tokens")
  if toks == 0 then
    return m, ("%d requests answered without one output token (total_output_tokens 0 in the client's result: "
      .. "empty answers); no figure of them is a measurement"):format(math.tointeger(completed) or completed),
      "its server answered with no output"
  end
  for _, e in ipairs(M.RESULT_KEYS) do
    for _, k in ipairs(e[2]) do
      local v = num(k)
      if v and not (e[1]:match("_ms$") and v <= 0) then m[e[1]] = v; break end
    end
  end
  -- requests completed and no throughput (a client of another format, a file cut to its
  -- counts): nothing to rank the row by, which an ok row would be ranked by as unknown
  if not (m.request_throughput and m.request_throughput > 0) then
    local sr = m.success_rate
    return json.object { success_rate = sr }, ("%d requests completed, but the client's result has no "
      .. "request_throughput above 0 (got %s): no measurement to rank"):format(math.tointeger(completed) or completed,
      d.request_throughput == nil and "none" or ab.pyrepr(d.request_throughput)),
      "its client's results hold no throughput"
  end
  return m, nil
end

-- Whether the client's result file is of the workload it was asked for (want: num_prompts,
-- conc: the concurrency, nil for unbounded): nil, or why not, one line. A client_command that
-- leaves out {num_prompts} or {max_concurrency} runs its own default (vllm bench serve: 1000
-- prompts, no limit), and its figures were recorded as the scenario's. Read from the file:
-- `num_prompts`, `completed` + `failed` (the requests run), `max_concurrency` (the limit it
-- ran with; null: none), and the requests' mean number in flight, the sum of `latencies` over
-- `duration`, which no run within a limit of N exceeds (the average of a count is at most its
-- largest value; 1 % for rounding). What the file does not say is not held against it.
function M.workload_mismatch(path, want)
  local d = read_result(path)
  local function num(k) local v = d[k]; return type(v) == "number" and v or nil end
  local tail_text = "; no figure of it is this scenario's"
  local n, done, failed = num("num_prompts"), num("completed"), num("failed")
  if n and n ~= want.num_prompts then
    return ("the benchmark client ran num_prompts %s (its result's), not the %d asked: a client_command without "
      .. "{num_prompts} runs its own number of requests%s"):format(ab.pyrepr(n), want.num_prompts, tail_text)
  end
  if done and failed and done + failed ~= want.num_prompts then
    return ("the benchmark client ran %s requests (completed + failed in its result), not the %d asked: a "
      .. "client_command without {num_prompts} runs its own number of requests%s"):format(ab.pyrepr(done + failed),
      want.num_prompts, tail_text)
  end
  local mc = d.max_concurrency
  local asked = want.conc and ("a concurrency of " .. math.tointeger(want.conc)) or "unbounded (no limit was asked)"
  local advice = "a client_command without {max_concurrency} (or {max_concurrency_flag}) runs its own"
  if mc == json.null and want.conc then
    return ("the benchmark client ran with no concurrency limit (max_concurrency null in its result), not %s: %s%s")
      :format(asked, advice, tail_text)
  elseif type(mc) == "number" and mc ~= want.conc then
    return ("the benchmark client ran with max_concurrency %s (its result's), not %s: %s%s"):format(ab.pyrepr(mc),
      asked, advice, tail_text)
  end
  local dur, lat = num("duration"), d.latencies
  if want.conc and dur and dur > 0 and type(lat) == "table" then
    local sum = 0
    for _, v in ipairs(lat) do if type(v) == "number" then sum = sum + v end end
    if sum / dur > want.conc * 1.01 then
      return ("the benchmark client had %.2f requests in flight on average (the sum of its result's latencies over "
        .. "its duration), more than the concurrency of %d asked: %s%s"):format(sum / dur, math.tointeger(want.conc),
        advice, tail_text)
    end
  end
  return nil
end

function M.run(config_path, opts)
  local out = opts.out
  local plan = ab.plan(config_path, { frameworks = opts.frameworks })
  local cfg = plan.config
  local r = type(cfg.run) == "table" and cfg.run or {}
  local ds, bm = cfg.dataset, cfg.benchmark or {}
  local sla = type(bm.sla) == "table" and bm.sla or (type(cfg.sla) == "table" and cfg.sla or {})
  -- the toolchain's validator does not look at num_prompts, but every client would be given
  -- it: a wrong one is refused here, before any server starts (absent: the client's 80)
  local np = ds.num_prompts
  if np ~= nil and not (math.type(np) == "integer" and np >= 1) then
    error(("%s: dataset.num_prompts must be a whole number >= 1 (got %s); nothing was started"):format(config_path,
      type(np) == "table" and "a list or mapping" or ab.pyrepr(np)), 0)
  end
  -- each scenario's name names its files (the client's result, its log) and tells its rows
  -- apart: a name with "/" wrote outside the candidate's folder or failed as "the benchmark
  -- client did not start", and two scenarios of one name were read as repeats of one
  local named = {}
  for i, name in ipairs(type(ds.scenario_names) == "table" and ds.scenario_names or {}) do
    local text = tostring(name)
    local bad = (type(name) ~= "string" and type(name) ~= "number") and "not a name"
      or (text == "" and "empty") or (text:find("/", 1, true) and "it holds '/'")
      or ((text == "." or text == "..") and "it names a folder")
      or (text:find("[%z\n\r]") and "it holds a control character")
      or (named[text] and ("it is also scenario %d's"):format(named[text]))
    if bad then
      error(("%s: dataset.scenario_names[%d] %s cannot name a scenario (%s): each scenario's result file and log are "
        .. "named after it, and its rows are told apart by it; nothing was started"):format(config_path, i,
        ab.pyrepr(name), bad), 0)
    end
    named[text] = i
  end
  local scenarios = {}
  for i, name in ipairs(ds.scenario_names or {}) do
    scenarios[i] = { name = name, input_len = ds.input_len[i], output_len = ds.output_len[i] }
  end
  if #scenarios == 0 then
    for i = 1, #ds.input_len do scenarios[i] = { name = "scenario-" .. i, input_len = ds.input_len[i],
      output_len = ds.output_len[i] } end
  end
  -- every concurrency is run, one row each (run.max_concurrency overrides the config's)
  local concs = r.max_concurrency
  if concs == nil then concs = bm.max_concurrency end
  if type(concs) ~= "table" then concs = { concs == nil and json.null or concs } end
  if #concs == 0 then concs = { json.null } end
  for _, c in ipairs(concs) do
    if c ~= json.null and not (math.type(c) == "integer" and c >= 1) then
      error(("%s: max_concurrency %s is not an integer >= 1 or null (unbounded)"):format(config_path, ab.pyrepr(c)), 0)
    end
  end
  local expanded = {}
  for _, sc in ipairs(scenarios) do
    for _, c in ipairs(concs) do
      local conc = c ~= json.null and c or nil
      -- several concurrencies: each is its own scenario, so that rows compare like with like
      local label = #concs > 1 and ("%s@%s"):format(sc.name, conc and ("c" .. math.tointeger(conc)) or "unbounded")
        or sc.name
      expanded[#expanded + 1] = { name = label, input_len = sc.input_len, output_len = sc.output_len, conc = conc }
    end
  end
  scenarios = expanded
  local extra = type(bm.extra_request_body) == "table" and next(bm.extra_request_body) ~= nil
    and json.encode(bm.extra_request_body) or nil
  -- artifacts per output file: two outputs in one folder never share (and overwrite) the
  -- raw results their rows point to
  local dir = M.artifacts_dir(out)
  -- "rep1.jsonl" and "rep1" have one artifacts folder: with the other spelling's output
  -- beside, this run would move that one's raw results aside and leave its rows pointing at
  -- this run's files (audit48 S7b: a row saying p50 TTFT 25 ms, its raw file 206 ms)
  local name = out:match("[^/]+$") or out
  local other = beside(out, name:match("%.jsonl$") and name:sub(1, -7) or (name .. ".jsonl"))
  if lfs.attributes(other, "mode") == "file" then
    error(("%s: its artifacts folder %s/ is also the one of %s beside it: the two outputs would share the raw "
      .. "results their rows point to; name this output otherwise (or move %s and its folder away)"):format(out,
      dir, other, other), 0)
  end
  local prior = { done = {}, measured = {} }
  -- the empty output file made for its lock (M.lock_output) goes again when the run stops
  -- before its first row (a server an earlier run left running, Ctrl-C, another run holding
  -- the output), and so do the artifacts folder (and autobench-artifacts/) this run made, where
  -- they hold nothing but its own lock file: a refused run leaves nothing behind
  local function undo(m)
    if m.undone then return end
    m.undone = true
    if m.path and lfs.attributes(m.path, "size") == 0 then os.remove(m.path) end
    for _, f in ipairs(m.dirs or {}) do
      local only_lock = true
      for e in lfs.dir(f) do
        -- (the lock file counts as nothing only where this run holds it: two runs that made
        -- the folder at once, the refused one never removes the other's lock)
        if e ~= "." and e ~= ".." and not (m.locked and e == require("llmd.workspace").LOCK) then
          only_lock = false
        end
      end
      if only_lock then
        -- (the lock file is this process's: its flock stays on the removed file until the end)
        if m.locked then os.remove(f .. "/" .. require("llmd.workspace").LOCK) end
        os.remove(f)
      end
    end
  end
  local made <close> = setmetatable({}, { __close = function(m, err)
    if err then undo(m) end
  end })
  if not opts.dry_run then
    -- the output's folder made when missing, said on stderr as compare.lua says of the folder
    -- it makes for a workspace (a mistyped folder would hold the results where nobody looks)
    local odir = out:match("^(.*)/[^/]*$")
    local missing = odir and odir ~= "" and lfs.attributes(odir, "mode") == nil
    -- (which of the artifacts folder and its parent this run makes, deepest first: undo)
    made.dirs = {}
    local parent = dir:match("^(.*)/[^/]+$")
    if lfs.attributes(dir, "mode") == nil then made.dirs[#made.dirs + 1] = dir end
    if parent and lfs.attributes(parent, "mode") == nil then made.dirs[#made.dirs + 1] = parent end
    mkdir_p(dir)
    if missing then io.stderr:write(("note: %s did not exist; made it for the --out file\n"):format(odir)) end
    -- one run per output at a time, held to the end (a second run of it, resuming the same
    -- rows, would measure them again beside the first's and append both): refused here,
    -- before a row is read, a server started or anything written (opts.in_use: how the
    -- script says it; else raised)
    local lok, lerr = require("llmd.workspace").lock(dir, "autobench.lua run", { shown = out, what = "these results" })
    local in_use = not lok
    made.locked = lok
    if lok then lok, lerr, in_use = M.lock_output(out, made) end
    if not lok then
      -- (opts.in_use ends the process: what this run made goes first)
      if in_use and opts.in_use then undo(made); opts.in_use(lerr) end
      error(lerr, 0)
    end
    local left = M.leftover_servers(dir)
    if #left > 0 then
      local list = {}
      for i, l in ipairs(left) do
        list[i] = ("pid %d (%s; recorded in %s)"):format(l.pid, l.command, l.file)
      end
      error(("%s: a server an earlier run of it started is still running: %s. That run was killed before it could "
        .. "stop it (a Ctrl-C stops it; kill -9 or the out-of-memory killer cannot), and it holds its port and "
        .. "its GPUs' memory: this run's servers would run out of memory beside it. Stop it (kill -- -%d: its "
        .. "process group), then run this again; nothing was started"):format(out, table.concat(list, "; "),
        left[1].pid), 0)
    end
    prior = resume(out, cfg, scenarios, opts)
  end
  local todo = {}
  for _, e in ipairs(plan.entries) do
    for _, sc in ipairs(scenarios) do todo[#todo + 1] = { e = e, sc = sc } end
  end
  local t0 = now()
  local all_ok = true
  local failures = {} -- the rows of this run that are not ok, for the closing line: {row =, log =}
  local ran = next(prior.done) ~= nil -- some candidate measured, now or before
  local i = 0
  -- one server per candidate, every scenario against it
  local by_cand, order = {}, {}
  for _, t in ipairs(todo) do
    local key = t.e.framework .. "\0" .. tostring(t.e.candidate_id)
    if not by_cand[key] then by_cand[key] = {}; order[#order + 1] = key end
    table.insert(by_cand[key], t)
  end
  local total = #order
  for _, key in ipairs(order) do
    i = i + 1
    local group = by_cand[key]
    local e = group[1].e
    local function base_row(sc)
      return {
        framework = e.framework, candidate_id = e.candidate_id or (e.framework .. "-excluded"), model = cfg.model.name,
        disposition = e.disposition, status = "ok", failure_reason = "",
        hardware = { gpu_count = cfg.hardware and cfg.hardware.gpu_count or json.null },
        workload = { kind = ds.kind, scenario = sc.name, input_len = sc.input_len, output_len = sc.output_len,
          num_prompts = ds.num_prompts, max_concurrency = sc.conc or json.null, endpoint = bm.endpoint },
        sla = { max_p50_ttft_ms = sla.max_p50_ttft_ms, max_p50_tpot_ms = sla.max_p50_tpot_ms,
          min_success_rate = sla.min_success_rate, max_p50_e2e_ms = sla.max_p50_e2e_ms, passed = json.null },
        metrics = json.object {}, server_command = e.server_command, artifacts = json.object {},
      }
    end
    local pending = {}
    for _, t in ipairs(group) do
      t.key = e.server_command and M.run_key(cfg, e.framework, e.server_command, t.sc) or nil
      if not (t.key and prior.done[t.key]) then pending[#pending + 1] = t end
    end
    io.write(("[%d/%d +%ds] %s %s: "):format(i, total, now() - t0, e.framework, e.candidate_id or "-"))
    if #pending == 0 then
      io.write("already in ", out, " (same command and scenario), skipped\n")
    elseif not e.candidate_id and prior.measured[e.framework] then
      -- an exclusion note never stands beside (or for) rows this framework has measured
      io.write(e.disposition, " (", e.reason, "); its ", prior.measured[e.framework],
        " measured rows from an earlier run stay in ", out, "\n")
    elseif e.disposition ~= "selected" then
      io.write(e.disposition, " (", e.reason, ")\n")
      if not opts.dry_run then
        for _, t in ipairs(pending) do
          local row = base_row(t.sc)
          row.run_key = t.key
          row.status, row.failure_reason = "skipped", e.disposition .. ": " .. e.reason
          if not prior.notes[note_id(row)] then append(out, row) end -- the same note once
        end
      end
    else
      ran = true
      -- a dry run starts nothing, so the free port a real run would take is not known: shown
      -- as <PORT> (the README: a free port per candidate)
      local PORT_MARK = "LLMDLUA_DRY_RUN_PORT"
      local function shown(text) return (text:gsub(PORT_MARK, "<PORT>")) end
      local port = r.port or (not opts.dry_run and proc.free_port()) or PORT_MARK
      local argv = ab.split(e.server_command)
      argv[#argv + 1] = "--port"
      argv[#argv + 1] = tostring(port)
      local base = ("http://127.0.0.1:%s"):format(port)
      local cdir = ("%s/%s"):format(dir, e.candidate_id)
      local log = cdir .. "/server.log"
      local p, status, reason, outside -- outside: the failure is the environment's (environmental)
      if opts.dry_run then
        io.write("\n  server: ", shown(ab.join(argv)), "\n")
        if port == PORT_MARK then
          io.write("  (<PORT>: a free port, chosen when the server starts; run.port sets a fixed one)\n")
        end
      else
        -- a server already on the port would answer for this one: refuse before launching
        local free, why = proc.port_free(port)
        if not free then
          status, reason, outside = "failed", ("port %d is already in use (%s): another server is listening there; "
            .. "stop it or set another run.port"):format(port, why), true
          io.write(reason, "\n")
        else
          mkdir_p(cdir)
          -- an earlier run's server log (its rows point at it) is kept, not overwritten
          local mok, moved = pcall(M.set_aside, out, log)
          if not mok then
            status, reason, outside = "failed", "not started: " .. tostring(moved), true
            io.write(reason, "\n")
          else
            if moved then io.write(("an earlier server log moved aside to %s; "):format(moved)) end
            io.write("starting the server on port ", port, "\n")
            local ok, pr = pcall(proc.spawn, argv, { stdout = { file = log }, stderr = "stdout", env = r.env })
            if ok then
              p = pr
              record_server(cdir, p, ab.join(argv))
            else
              status, reason, outside = "failed", "the server did not start: " .. tostring(pr), true
            end
          end
        end
      end
      if p then
        local models = { cfg.model.name }
        local flags = e.flags or {}
        for _, k in ipairs { "served_model_name", "model_path", "model" } do
          if type(flags[k]) == "string" then models[#models + 1] = flags[k] end
        end
        status, reason = wait_ready(p, base, r.ready_paths or { "/health", "/v1/models" },
          opts.timeout or r.ready_timeout or 600, log, models)
        if not status and r.check_port_owner ~= false then
          reason = port_owner(p, port)
          if reason then status, outside = "failed", true; io.write(reason, "\n") end
        end
      end
      -- a server that exited before answering (out of memory while loading the model) fails
      -- every scenario of the candidate alike: each row its status (oom or failed) and
      -- server_exit, none "skipped", which would read as a scenario left out by policy while
      -- the server could run none
      local start_exit = status and p and p:poll()
      local dead -- why the remaining scenarios are not run, once the server has exited
      -- the server log read so far for an engine that died (engine_death): from where it
      -- stood once the server answered
      local seen = p and lfs.attributes(log, "size") or 0
      for _, t in ipairs(pending) do
        local sc = t.sc
        local row = base_row(sc)
        row.run_key = t.key
        if p then row.artifacts.server_log = M.stored_path(out, log) end
        if status then
          row.status, row.failure_reason = status, reason
          if outside then row.environment_failure = true end
          if start_exit then
            row.server_exit = start_exit.code and { code = start_exit.code } or { signal = start_exit.signal }
          end
        elseif dead then
          row.status, row.failure_reason = "skipped", dead
        else
          local rfile = ("%s-%s.json"):format(e.candidate_id, sc.name)
          local vars = {
            base_url = base, port = tostring(port), endpoint = bm.endpoint or "/v1/completions", model = cfg.model.name,
            tokenizer = bm.tokenizer or cfg.model.tokenizer or cfg.model.name, input_len = tostring(sc.input_len),
            output_len = tostring(sc.output_len), num_prompts = tostring(ds.num_prompts or 80),
            max_concurrency = sc.conc and tostring(math.tointeger(sc.conc)) or "",
            max_concurrency_flag = sc.conc and ("--max-concurrency " .. math.tointeger(sc.conc)) or "",
            extra_request_body = extra or "{}",
            extra_body_flag = extra and ("--extra-body " .. ab.quote(extra)) or "",
            result_dir = cdir, result_file = rfile, scenario = sc.name, framework = e.framework,
            candidate_id = e.candidate_id,
          }
          local text = fill(ab.client_command(cfg), vars)
          local cargv = ab.split(text)
          row.benchmark_command = ab.join(cargv)
          if opts.dry_run then
            io.write("  client (", sc.name, "): ", shown(row.benchmark_command), "\n")
          else
            io.write(("  %s: benchmarking\n"):format(sc.name))
            local blog = ("%s/benchmark-%s.log"):format(cdir, sc.name)
            row.artifacts.benchmark_log = M.stored_path(out, blog)
            local rpath = cdir .. "/" .. rfile
            -- a result file already there is an earlier run's: moved aside before the client
            -- starts, so that a client that writes nothing is not credited with its numbers
            local mok, moved = pcall(M.set_aside, out, rpath)
            if mok and moved then
              io.write(("  %s: an earlier result file moved aside to %s\n"):format(sc.name, moved))
            end
            if mok then
              mok, moved = pcall(M.set_aside, out, blog)
              if mok and moved then
                io.write(("  %s: an earlier benchmark log moved aside to %s\n"):format(sc.name, moved))
              end
            end
            local res = mok and run_client(cargv, blog, p, r.benchmark_timeout or 3600) or { move_error = moved }
            if lfs.attributes(rpath, "mode") == "file" then row.artifacts.raw_result = M.stored_path(out, rpath) end
            if res.move_error then
              row.status, row.failure_reason = "failed", "not benchmarked: " .. tostring(res.move_error)
              row.environment_failure = true
            elseif res.server then
              row.status, row.failure_reason = server_death(res.server, log, "during the benchmark of " .. sc.name)
              row.server_exit = res.server.code and { code = res.server.code } or { signal = res.server.signal }
              dead = ("not run: the server exited (%s, %s) during the benchmark of %s"):format(
                exit_text(res.server), row.status, sc.name)
            elseif res.spawn_error then
              row.status, row.failure_reason = "failed", "the benchmark client did not start: " .. res.spawn_error
              row.environment_failure = true
            elseif res.timed_out or not res.st.ok then
              row.status = res.timed_out and "timeout" or (is_oom(read(log)) and "oom" or "failed")
              row.failure_reason = ("the benchmark client %s: %s"):format(res.timed_out and "timed out" or
                ("exited with " .. exit_text(res.st)), tail(read(blog), 2))
            elseif not row.artifacts.raw_result then
              row.status, row.failure_reason = "failed", "the benchmark client wrote no result file " .. rpath
            else
              local ok, m, why, what = pcall(M.result_metrics, rpath, ds.num_prompts)
              local unlike = ok and not why and M.workload_mismatch(rpath, { num_prompts = ds.num_prompts or 80,
                conc = sc.conc })
              if not ok then
                row.status, row.failure_reason = "failed", tostring(m)
              elseif unlike then
                -- another workload than the scenario's: failed, and none of its figures kept
                row.status, row.failure_reason = "failed", unlike
              else
                row.metrics = m
                if why then
                  row.status, row.failure_reason = "failed", why
                  -- a server that fails every request will fail the next scenario's too, and
                  -- that client would first wait for it (vLLM's ready check: 600 s): the
                  -- candidate ends here, as when its server exits
                  dead = ("not run: %s in %s, so the candidate was stopped (%s; log %s)"):format(why, sc.name,
                    what or "its server failed every request", log)
                end
              end
            end
            -- a server alive whose engine died (vLLM's API server goes on, HTTP 500 to every
            -- request): whatever the client made of it, the row is the engine's death, oom where
            -- the log says out of memory; the requests that completed before are no measurement
            -- of the configuration, and its other scenarios are not run
            if not res.server and not res.move_error and not res.spawn_error then
              local logtext = require("llmd.workspace").read_from(log, seen)
              seen = seen + #logtext
              local died, oom = engine_death(logtext)
              if died then
                local sr = type(row.metrics) == "table" and row.metrics.success_rate or nil
                row.metrics = json.object { success_rate = sr }
                row.status = oom and "oom" or "failed"
                row.server_engine_dead = true
                row.failure_reason = ("the server's engine died during the benchmark of %s%s, while its API server "
                  .. "went on answering (HTTP 500): its log says \"%s\"%s; %s"):format(sc.name,
                  oom and ", out of memory" or "", died, oom and (" and \"" .. oom .. "\"") or "",
                  sr and ("%d %% of the requests completed, and no figure of this run is a measurement"):format(
                    math.floor(sr * 100 + 0.5)) or "no figure of this run is a measurement")
                dead = ("not run: the server's engine died (%s) during the benchmark of %s (log %s)"):format(
                  row.status, sc.name, log)
              end
            end
          end
        end
        if not opts.dry_run then
          ab.recompute_sla({ row }, nil)
          if row.status ~= "ok" or row.sla.passed == json.null then row.sla.passed = false end
          append(out, row)
          if row.status ~= "ok" then
            all_ok = false
            -- the log that says why: the server's where it did not start, exited or was
            -- gone, the client's where the client failed
            local blog = ("%s/benchmark-%s.log"):format(cdir, sc.name)
            failures[#failures + 1] = { row = row, log = (status or row.server_exit or row.status == "skipped"
              or row.server_engine_dead
              or not row.artifacts.benchmark_log) and p and log or row.artifacts.benchmark_log and blog or nil }
          end
          local how = row.failure_reason ~= "" and (" - " .. row.failure_reason)
            or (row.sla.passed and " (SLA passed)" or " (SLA not passed)")
          io.write(("  %s: %s%s\n"):format(sc.name, row.status, how))
        end
      end
      if p then
        p:kill(10)
        os.remove(cdir .. "/" .. M.SERVER_PID)
      end
    end
  end
  if not opts.dry_run then M.prune_file(out) end
  -- a dry run says what the real run would do, down to its exit status
  -- (the cause again as the one line on stderr an exit 1 has: the caller writes it)
  local cause
  if not ran then
    cause = "no candidate could be run here (every framework excluded, unsupported or an environment gap)"
    io.write(opts.dry_run and "a real run would measure nothing: " or "", cause, "\n")
    if opts.dry_run then cause = "a real run would measure nothing: " .. cause end
    all_ok = false
  elseif #failures > 0 then
    cause = M.failures_line(failures, out)
    io.write(cause, "\n")
  end
  return all_ok, cause
end

return M
