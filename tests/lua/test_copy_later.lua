-- issue 20: compare.lua reads results where they are and copies them beside the report
-- (ws.read_in_place, ws.copy_later), instead of copying first and reading the copy.
-- The reference for every check is the code path that was there before, run on the same
-- inputs: ws.import copying, then cmp.extract_side reading the copy.
local t = require "testlib"
local cmp = require "llmd.comparison"
local json = require "llmd.json"
local lfs = require "lfs"
local proc = require "llmd.proc"
local ws = require "llmd.workspace"

local F = t.fixtures()
local ROOT = t.here() .. "/../.."
local LLMDLUA = ROOT .. "/llmdlua"

local mkdir = t.mkdir

-- A per-request run with KV scrapes under metrics/raw, a vLLM log, and the n-th
-- request failed with a message: the run model then holds paths in many places
-- (files, dir, root, the KV source) and warnings.
local function kv_run()
  local d = t.tmpdir()
  local recs = json.read(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json")
  recs[2].error = { error_type = "HTTP Error 503", error_msg = "Service Unavailable" }
  json.write(d .. "/per_request_lifecycle_metrics.json", recs)
  local raw = F .. "/prometheus/synthetic-raw"
  mkdir(d .. "/metrics/raw")
  for n in lfs.dir(raw) do
    if n:match("%.log$") then t.write(d .. "/metrics/raw/" .. n, t.read(raw .. "/" .. n)) end
  end
  mkdir(d .. "/logs")
  t.write(d .. "/logs/decode-0.log", "INFO GPU KV cache size: 1,000 tokens\n")
  return d
end

-- A folder whose results give warnings naming its files: a stage file that is empty,
-- left out with --tolerant.
local function tolerant_run()
  local d = t.tmpdir()
  assert(proc.run({ "cp", "-a", ROOT .. "/tests/fixtures/kubecon-na-2025_vllm/.", d }).ok)
  local names = {}
  for n in lfs.dir(d) do
    if n:match("^stage_%d+_lifecycle_metrics%.json$") then names[#names + 1] = n end
  end
  table.sort(names)
  t.write(d .. "/" .. names[#names], "")
  return d
end

-- every file under dir, relative, with its bytes
local function files(dir)
  local out = {}
  t.walk(dir, function(p, rel, mode) if mode ~= "directory" then out[rel] = t.read(p) end end)
  return out
end

local function normalise(text, w) return (text:gsub(w:gsub("%p", "%%%0"), "<workspace>")) end

t.test("read in place, copied later: the same run state and model as reading the copy", function()
  local cases = {
    { "the bundled real run", ROOT .. "/tests/fixtures/kubecon-na-2025_vllm", {} },
    { "per-request, KV scrapes, a log, a failed request", kv_run(), { percentile_method = "nearest" } },
    { "a stage left out (--tolerant): warnings naming its file", tolerant_run(), { tolerant = true } },
    { "guidellm", F .. "/guidellm", {} },
    { "vllm bench", F .. "/vllm-benchmark/exp-7_H100/llm-d-1p1d", { warmup = { 0 } } },
  }
  for _, c in ipairs(cases) do
    local name, dir, opts = c[1], c[2], c[3]
    local plan = ws.plan_import(dir)
    -- before: copied, then the copy read
    local w1 = ws.create { parent = t.tmpdir(), quiet = true }
    local st = ws.import(w1, "a", { label = "x", plan = plan })
    st.extract_options = {}
    local o1 = { require_results = true }
    for k, v in pairs(opts) do o1[k] = v end
    local s1 = cmp.extract_side(w1, "a", st, o1)
    cmp.save_run(w1, s1)
    -- now: read where it is, copied afterwards
    local w2 = ws.create { parent = t.tmpdir(), quiet = true }
    t.ok(ws.read_in_place(w2, plan), name .. ": read in place")
    local o2 = { require_results = true }
    for k, v in pairs(opts) do o2[k] = v end
    local s2 = cmp.import_side(w2, "a", { label = "x", plan = plan, info = nil, opts = o2, extract_options = {} })
    t.eq(lfs.attributes(w2.path .. "/run-a/results"), nil, name .. ": nothing copied yet")
    ws.copy_later(w2, "a", plan)
    for _, f in ipairs { "run_state.json", "run_model.json" } do
      local a = normalise(t.read(w1.path .. "/run-a/" .. f), w1.path)
      local b = normalise(t.read(w2.path .. "/run-a/" .. f), w2.path)
      if a ~= b then error(("%s: run-a/%s differs from the copy's reading"):format(name, f), 0) end
      t.ok(b:find("<workspace>/run-a/results", 1, true), name .. ": the model names the copy (" .. f .. ")")
    end
    -- the warnings name the user's files, as before
    t.eq(json.encode(s2.run.warnings), json.encode(s1.run.warnings), name .. ": warnings")
    -- the copy is the folder, byte for byte
    local want, got = files(dir), files(w2.path .. "/run-a/results")
    local n = 0
    for rel, bytes in pairs(want) do
      n = n + 1
      t.ok(got[rel] == bytes, name .. ": " .. rel .. " copied")
    end
    for rel in pairs(got) do t.ok(want[rel] ~= nil, name .. ": " .. rel .. " is no copy") end
    t.ok(n > 0)
    if name:match("tolerant") then
      t.ok(json.encode(s2.run.warnings):find(dir, 1, true), "a warning names the user's folder")
    end
    if name:match("KV") then
      t.ok(s2.kv.available, "the KV scrapes were read")
      t.ok(s2.kv.source:find(w2.path .. "/run-a/results/metrics/raw", 1, true), s2.kv.source)
    end
  end
end)

t.test("swap_paths: the folder replaced where it is a whole path component, keys too", function()
  -- expected strings written by hand
  local v = { "/d/r", "/d/r/x.json", "in /d/r: bad", "/d/r-old/x", "/d/rr", "a /d/r/x and /d/r/y",
    k = { ["/d/r/f"] = 1 }, kept = { "/d/r/z" } }
  v.self = v
  cmp.swap_paths(v, "/d/r", "/w/run-a/results", { [v.kept] = true })
  t.eq(v[1], "/w/run-a/results")
  t.eq(v[2], "/w/run-a/results/x.json")
  t.eq(v[3], "in /w/run-a/results: bad")
  t.eq(v[4], "/d/r-old/x")
  t.eq(v[5], "/d/rr")
  t.eq(v[6], "a /w/run-a/results/x and /w/run-a/results/y")
  t.eq(v.k["/w/run-a/results/f"], 1)
  t.eq(v.k["/d/r/f"], nil)
  t.eq(v.kept[1], "/d/r/z")
end)

t.test("read in place: only a folder of regular files, apart from the workspace", function()
  local d = t.tmpdir()
  t.write(d .. "/r.json", "[]")
  local w = { path = t.tmpdir() }
  t.ok(ws.read_in_place(w, ws.plan_import(d)))
  -- a link to a file inside: copied as a file, so the copy is not the folder
  lfs.link("r.json", d .. "/l.json", true)
  t.ok(not ws.read_in_place(w, ws.plan_import(d)), "a link inside")
  os.remove(d .. "/l.json")
  -- a link out of the folder: left out of the copy
  t.write(w.path .. "/out.json", "[]")
  lfs.link(w.path .. "/out.json", d .. "/o.json", true)
  t.ok(not ws.read_in_place(w, ws.plan_import(d)), "a link out")
  os.remove(d .. "/o.json")
  t.ok(ws.read_in_place(w, ws.plan_import(d)))
  -- the workspace inside the results folder, or the other way round
  mkdir(d .. "/ws")
  t.ok(not ws.read_in_place({ path = d .. "/ws" }, ws.plan_import(d)), "workspace inside")
  t.ok(not ws.read_in_place({ path = proc.realpath(d):match("^(.*)/[^/]+$") }, ws.plan_import(d)),
    "results inside the workspace")
end)

t.test("copy_later: results that changed after they were planned are an error naming the change", function()
  local function fresh()
    local d = t.tmpdir()
    t.write(d .. "/a.json", "[1]")
    mkdir(d .. "/sub")
    t.write(d .. "/sub/b.json", "[2]")
    return d, ws.plan_import(d)
  end
  local function copy(plan)
    local w = { path = t.tmpdir() }
    mkdir(w.path .. "/run-a")
    return pcall(ws.copy_later, w, "a", plan)
  end
  local d, plan = fresh()
  t.ok(copy(plan), "unchanged: copied")
  local real
  local changes = {
    { "a.json changed", function() t.write(d .. "/a.json", "[9]") end }, -- same size
    { "sub/b.json changed", function() t.write(d .. "/sub/b.json", "[2, 3]") end },
    { "c.json appeared", function() t.write(d .. "/c.json", "[]") end },
    { "the folder new appeared", function() mkdir(d .. "/new") end },
  }
  for _, c in ipairs(changes) do
    d, plan = fresh()
    real = proc.realpath(d)
    c[2]()
    local ok, err = copy(plan)
    t.ok(not ok, c[1])
    t.eq(err, ("%s: %s while the comparison read and copied it; compare again once the run has finished "
      .. "writing its results"):format(real, c[1]))
  end
  -- a file gone: the copy itself fails, naming it
  d, plan = fresh()
  os.remove(d .. "/a.json")
  local ok, err = copy(plan)
  t.ok(not ok)
  t.ok(tostring(err):find(d .. "/a.json: cannot read (copying to ", 1, true), tostring(err))
end)

t.test("compare.lua: results copied beside the report, byte for byte; no hand-over or copy folder left", function()
  local a, b = kv_run(), t.tmpdir()
  assert(proc.run({ "cp", "-a", ROOT .. "/tests/fixtures/kubecon-na-2025_vllm/.", b }).ok)
  for _, jobs in ipairs { "1", false } do
    local parent = t.tmpdir()
    local r = proc.run({ LLMDLUA, "compare.lua", "--a", a, "--b", b, "--parent", parent, "--quiet" },
      { env = { LLMDLUA_JOBS = jobs } })
    t.eq(r.code, 0, r.stderr)
    local w
    for n in lfs.dir(parent) do
      if n ~= "." and n ~= ".." then w = parent .. "/" .. n end
    end
    for x, src in pairs { a = a, b = b } do
      local want, got = files(src), files(w .. "/run-" .. x .. "/results")
      for rel, bytes in pairs(want) do t.ok(got[rel] == bytes, x .. ": " .. rel) end
      for rel in pairs(got) do t.ok(want[rel] ~= nil, x .. ": " .. rel .. " is no copy") end
      t.eq(lfs.attributes(w .. "/run-" .. x .. "/results.partial"), nil)
      t.eq(json.read(w .. "/run-" .. x .. "/run_state.json").results_linked, false)
    end
    for n in lfs.dir(w) do t.ok(not n:match("^%.side"), "left: " .. n) end
    t.eq(lfs.attributes(w .. "/INCOMPLETE"), nil)
  end
end)

-- speed40b: the copies start with the workspace, beside the reading, so a copy (and its
-- check) can end before its run has been read: the results are checked again once both
-- have ended. Made certain here by a FIFO as LLMDLUA_TIMES: the helper below reads each
-- phase mark, and once both copies are made (the mark "copy b"; LLMDLUA_JOBS=1: one
-- process, the copies made in it first) it stops the comparison (SIGSTOP, the pid in the
-- mark), changes run a's results and lets it go on: the change follows both copies and
-- their checks, so only the check after the reading can see it. Without that check the
-- comparison succeeds, having read one version of per_request_lifecycle_metrics.json and
-- copied another. (The helper holds the FIFO open for reading and writing, so no mark is
-- lost: reading one line an open lost the marks written while it had not yet closed -
-- under load, "copy b" itself, failing this test.)
t.test("compare.lua: results changed after their copy, while they were being read, are an error naming them",
  function()
    local a, b = kv_run(), t.tmpdir()
    local recs = json.read(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json")
    json.write(b .. "/per_request_lifecycle_metrics.json", recs)
    local d = t.tmpdir()
    local fifo, seen = d .. "/times", d .. "/seen"
    assert(proc.run({ "mkfifo", fifo }).ok)
    -- each mark: "<seconds> <pid> <user> <system> <what>"; stopped once the comparison has
    -- ended
    local helper = proc.spawn({ "sh", "-c", [[
      exec 3<>"$1"
      while IFS= read -r line <&3; do
        printf '%s\n' "$line" >> "$2"
        case $line in *" copy b")
          pid=${line#* }; pid=${pid%% *}
          kill -STOP "$pid"
          printf ' ' >> "$3/per_request_lifecycle_metrics.json"
          printf 'changed\n' >> "$2"
          kill -CONT "$pid" ;;
        esac
      done]], "sh", fifo, seen, a }, { stdout = "null", stderr = "null" })
    local parent = t.tmpdir()
    local r = proc.run({ LLMDLUA, "compare.lua", "--a", a, "--b", b, "--parent", parent, "--quiet" },
      { env = { LLMDLUA_JOBS = "1", LLMDLUA_TIMES = fifo }, timeout = 120 })
    helper:kill(1)
    local marks = t.read(seen) or ""
    -- the order this test stands on: run a's results changed once both copies were made
    t.ok(marks:find(" copy a\n.* copy b\nchanged\n"), marks)
    t.ok(r.code ~= 0, "exit " .. tostring(r.code))
    t.contains(r.stderr, ("%s: per_request_lifecycle_metrics.json changed while the comparison read and copied it"
      .. "; compare again once the run has finished writing its results"):format(proc.realpath(a)))
    t.eq(t.workspaces(parent), {})
  end)
