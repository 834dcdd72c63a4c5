-- The local path under stress (issue 17): concurrent compares, hostile labels and folder
-- names, a full disk, unreadable or linked result files, interrupted and rejected runs,
-- errors a person can act on. Each test is the reproduction of one reported defect.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"

local ROOT = t.here() .. "/../.."
local LLMDLUA = ROOT .. "/llmdlua"
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local TREAT = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

local function run(argv, opts) return proc.run(argv, opts) end

-- POSIX single quotes, written here independently of llmd.template's sh filter
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function workspaces(parent)
  local out = {}
  if lfs.attributes(parent, "mode") ~= "directory" then return out end
  for n in lfs.dir(parent) do
    if n:match("^llm%-d%-comparison%-") then out[#out + 1] = parent .. "/" .. n end
  end
  table.sort(out)
  return out
end

local function copy_tree(src, dst)
  local r = run { "cp", "-R", "--", src, dst }
  assert(r.ok, r.stderr)
end

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
  local function walk(d, rel)
    for n in lfs.dir(d) do
      if n ~= "." and n ~= ".." then
        local p, r = d .. "/" .. n, rel == "" and n or rel .. "/" .. n
        local mode = lfs.symlinkattributes(p, "mode")
        if mode == "directory" then walk(p, r) elseif mode == "file" then out[r] = lfs.attributes(p, "size") end
      end
    end
  end
  walk(dir, "")
  return out
end

t.test("4: a failed close (disk full) is an error naming the file; no file, no temporary left", function()
  local ws = require "llmd.workspace"
  local dir = t.tmpdir()
  -- a file whose writes are buffered and whose close then fails, as fclose does on ENOSPC
  local real_open = io.open
  local function failing(path, mode)
    local f = real_open(path, mode)
    return setmetatable({}, { __index = {
      write = function(self) return self end,
      flush = function() return true end,
      close = function() f:close(); return nil, "No space left on device", 28 end,
    } })
  end
  io.open = failing -- luacheck: ignore 122
  local ok, err = pcall(ws.write_text, dir .. "/report.md", "text")
  io.open = real_open -- luacheck: ignore 122
  t.ok(not ok, "write_text raised")
  t.eq(err, dir .. "/report.md: cannot write: No space left on device")
  t.eq(files_of(dir), {}, "neither the file nor its temporary")
  -- a failing flush too
  io.open = function(path, mode) -- luacheck: ignore 122
    local f = real_open(path, mode)
    return setmetatable({}, { __index = {
      write = function(self) return self end,
      flush = function() return nil, "Input/output error", 5 end,
      close = function() return f:close() end,
    } })
  end
  ok, err = pcall(ws.write_text, dir .. "/run.sh", "text", "755")
  io.open = real_open -- luacheck: ignore 122
  t.eq(err, dir .. "/run.sh: cannot write: Input/output error")
  t.eq(files_of(dir), {})
end)

-- A tmpfs of `kib` KiB at a fresh folder, or nil and why (needs root).
local function small_disk(kib)
  local dir = t.tmpdir()
  local r = run { "mount", "-t", "tmpfs", "-o", ("size=%dk"):format(kib), "tmpfs", dir }
  if not r.ok then return nil, r.stderr end
  return dir
end

t.test("4: compare on a disk that fills at every point: success, or an error and no 0-byte file", function()
  local disk, why = small_disk(2048)
  if not disk then
    io.stderr:write("  (tmpfs part skipped: " .. tostring(why):gsub("%s+$", "") .. ")\n")
    return
  end
  local outcomes = { ok = 0, failed = 0 }
  local okrun, err = pcall(function()
    -- free space from 4 KiB up, one page at a time for the first 40, then growing, until a
    -- whole linked compare fits (the report's size grows as it gains sections)
    local points = {}
    for p = 1, 40 do points[#points + 1] = p end
    for p = 48, 480, 24 do points[#points + 1] = p end
    for _, free_pages in ipairs(points) do
      if outcomes.ok > 0 then break end
      run { "sh", "-c", "rm -rf " .. q(disk) .. "/* " .. q(disk) .. "/.??*" }
      local st = run { "stat", "-f", "-c", "%a %S", disk }
      local avail, bsize = st.stdout:match("(%d+) (%d+)")
      local fill = tonumber(avail) * tonumber(bsize) - free_pages * 4096
      if fill > 0 then
        run { "dd", "if=/dev/zero", "of=" .. disk .. "/filler", "bs=4096", "count=" .. (fill // 4096) }
      end
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
          t.ok(not rel:match("%.tmp%."), "temporary left: " .. rel)
        end
      end
    end
  end)
  run { "umount", disk }
  if not okrun then error(err, 0) end
  t.ok(outcomes.ok > 0 and outcomes.failed > 0, ("both outcomes seen: %d ok, %d failed"):format(outcomes.ok, outcomes.failed))
end)

-- Every entry under dir that is a link: { rel... }
local function links_under(dir)
  local out = {}
  local function walk(d, rel)
    for n in lfs.dir(d) do
      if n ~= "." and n ~= ".." then
        local p, r = d .. "/" .. n, rel == "" and n or rel .. "/" .. n
        local mode = lfs.symlinkattributes(p, "mode")
        if mode == "link" then out[#out + 1] = r elseif mode == "directory" then walk(p, r) end
      end
    end
  end
  walk(dir, "")
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
  t.eq(r.code, 1)
  t.eq(lfs.attributes(tmp .. "/never"), nil)
  t.write(tmp .. "/info.yaml", "model: [unclosed\n")
  r = run { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--a-info", tmp .. "/info.yaml", "--parent",
    tmp .. "/never", "--quiet" }
  t.eq(r.code, 1)
  t.eq(lfs.attributes(tmp .. "/never"), nil)
end)

t.test("9: Ctrl-C at any moment: a complete workspace, or none (or one analyze.lua calls incomplete)", function()
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
      t.eq(rc, 130, "interrupted: " .. t.read(tmp .. "/err" .. i))
      if #ws == 0 then
        seen.removed = seen.removed + 1
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
