-- compare.lua reads its two runs at once (llmd.parallel: run b in a child llmdlua):
-- the same workspace, byte for byte, as reading them one after the other
-- (LLMDLUA_JOBS=1), and a child that fails fails the comparison with its own error.
-- The reference is always the serial path on the same inputs (the code that was there
-- before, and whose reports the other tests check against Python).
local t = require "testlib"
local json = require "llmd.json"
local lfs = require "lfs"
local par = require "llmd.parallel"
local proc = require "llmd.proc"
local stats = require "llmd.stats"

local F = t.fixtures()
local ROOT = t.here() .. "/../.."
local LLMDLUA = ROOT .. "/llmdlua"
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local TREAT = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

-- compare.lua into a fresh parent, serial or not: workspace path (or nil), result
local function compare(args, serial)
  local parent = t.tmpdir()
  local argv = { LLMDLUA, "compare.lua", "--parent", parent }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  local r = proc.run(argv, { env = { LLMDLUA_JOBS = serial and "1" or false } })
  local w
  for n in lfs.dir(parent) do
    if n ~= "." and n ~= ".." then w = parent .. "/" .. n end
  end
  return w, r, parent
end

-- every file under dir (results excluded: the inputs' copies), relative, sorted;
-- folders end with "/" (so that a stray empty folder counts too)
local function listing(dir)
  local out = {}
  t.walk(dir, function(_, rel, mode)
    if rel:match("[^/]+$") == "results" then return false end
    -- (the workspace's lock file says which process held it, and when: llmd.workspace.lock)
    if rel == ".llmdlua.lock" then return false end
    out[#out + 1] = mode == "directory" and rel .. "/" or rel
  end)
  table.sort(out)
  return out
end

-- the time and the workspace's path are all that may differ between two comparisons
local function normalise(text, w)
  text = text:gsub(w:gsub("%p", "%%%0"), "<workspace>")
  text = text:gsub(w:match("[^/]+$"):gsub("%p", "%%%0"), "<name>")
  return (text:gsub("%d%d%d%d%-%d%d%-%d%d %d%d:%d%d:%d%d UTC", "<time>"))
end

local function same_workspace(ws, wp, what)
  local ls, lp = listing(ws), listing(wp)
  t.eq(table.concat(lp, "\n"), table.concat(ls, "\n"), what .. ": the same files")
  for _, f in ipairs(ls) do
    -- (llmdlua-written.json: the hash of run_comparison.sh as written, which holds the workspace's
    -- path and time; the script itself is compared, normalised)
    if f:sub(-1) ~= "/" and f ~= "llmdlua-written.json" then
      local a, b = normalise(t.read(ws .. "/" .. f), ws), normalise(t.read(wp .. "/" .. f), wp)
      if a ~= b then error(("%s: %s differs between the serial and the parallel path"):format(what, f), 2) end
    end
  end
end

-- A per-request inference-perf run with its latencies scaled (failures included).
local function ip_run(scale)
  local d = t.tmpdir()
  local recs = json.read(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json")
  for _, r in ipairs(recs) do
    local s = r.start_time
    r.end_time = s + scale * (r.end_time - s)
    local rm = type(r.info) == "table" and r.info.response_metrics
    if type(rm) == "table" and type(rm.output_token_times) == "table" then
      for i, x in ipairs(rm.output_token_times) do rm.output_token_times[i] = s + scale * (x - s) end
    end
  end
  json.write(d .. "/per_request_lifecycle_metrics.json", recs)
  return d
end

-- A larger per-request run: 600 requests of 200 to 320 token times (about 156,000
-- gaps: a hand-over file of more than 1 MB), seeded. coarse: the gaps whole milliseconds
-- (5 to 14, as clocks that tick in ms give), so that run b's gaps, sorted, are handed
-- over as runs of a value (stats:dump: at most one run a 8 samples).
local function ip_big_run(slow, seed, coarse)
  local d = t.tmpdir()
  local tpl = json.read(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json")[1]
  local x = seed
  local function rnd()
    x = (x * 1103515245 + 12345) % 2147483648
    return x / 2147483648
  end
  local recs = json.array {}
  for i = 1, 600 do
    local r = json.decode(json.encode(tpl))
    local start = 1771234500 + i * 0.05 + rnd() * 0.01
    local n, at, times = 200 + math.floor(rnd() * 121), start + (0.02 + rnd() * 0.3) * slow, json.array {}
    for j = 1, n do
      times[j] = at
      at = at + (coarse and (5 + math.floor(rnd() * 10)) * 0.001 or (0.005 + rnd() * 0.01) * slow)
    end
    r.start_time, r.end_time = start, times[n] + 0.001
    local m = r.info.response_metrics
    m.output_token_times, m.chunk_times, m.output_tokens = times, times, n
    if type(m.server_usage) == "table" then m.server_usage.completion_tokens = n end
    recs[i] = r
  end
  json.write(d .. "/per_request_lifecycle_metrics.json", recs)
  return d
end

t.test("parallel compare: the same workspace, byte for byte, as the serial path", function()
  local ip_a, ip_b = ip_run(1), ip_run(1.5)
  local big_a, big_b = ip_big_run(1, 7), ip_big_run(1.1, 11)
  local coarse_a, coarse_b = ip_big_run(1, 5, true), ip_big_run(1, 13, true)
  local cases = {
    { name = "the bundled real pair", args = { "--a", BASE, "--a-label", "vllm", "--a-info",
      ROOT .. "/tests/fixtures/kubecon-vllm.info.yaml", "--b", TREAT, "--b-label", "chunked", "--b-info",
      ROOT .. "/tests/fixtures/kubecon-chunked.info.yaml" } },
    { name = "per-request runs, SLO, warm-up", args = { "--a", ip_a, "--b", ip_b, "--slo", "ttft_p90_ms=200",
      "--percentile-method", "nearest" } },
    { name = "per-request runs, linked", args = { "--a", ip_a, "--b", ip_b, "--link" } },
    { name = "large per-request runs (run b's gaps mapped on hand-over)", args = { "--a", big_a, "--b", big_b } },
    { name = "large per-request runs of ms gaps (run b's handed over as runs of a value)",
      args = { "--a", coarse_a, "--b", coarse_b } },
    { name = "mixed harnesses", args = { "--a", BASE, "--a-label", "ip", "--b", F .. "/guidellm", "--b-label", "gl" } },
    { name = "vllm bench runs", args = { "--a", F .. "/vllm-benchmark/exp-7_H100/vllm-2replicas", "--a-label", "x", "--b",
      F .. "/vllm-benchmark/exp-7_H100/llm-d-1p1d", "--b-label", "y", "--warmup", "0" } },
  }
  for _, c in ipairs(cases) do
    local ws, rs = compare(c.args, true)
    local wp, rp = compare(c.args, false)
    t.eq(rs.code, 0, c.name .. ": " .. rs.stderr)
    t.eq(rp.code, 0, c.name .. ": " .. rp.stderr)
    t.eq(normalise(rp.stdout, wp), normalise(rs.stdout, ws), c.name .. ": stdout")
    t.eq(normalise(rp.stderr, wp), normalise(rs.stderr, ws), c.name .. ": stderr")
    same_workspace(ws, wp, c.name)
    -- the report and the model are there (not two empty workspaces that agree)
    t.ok(t.read(wp .. "/comparison_report.md"):find("## Performance Results", 1, true), c.name)
    t.ok(json.read(wp .. "/run-b/run_state.json").label ~= nil, c.name)
  end
end)

-- An inference-perf run of two stages with its per-request file, as llm-d's profiles leave
-- it (tests/lua/ipsynth.lua), two of whose requests failed (one in each stage, causes of
-- their own), so that each stage holds its failures by cause.
local function ip_staged_run(svc)
  local ips = require "ipsynth"
  local d = ips.run(t.tmpdir() .. "/run", { { rate = 4, n = 40, latency = ips.queue(svc) },
    { rate = 8, n = 40, latency = ips.queue(svc) } }, { per_request = true, summary = true })
  local recs = json.read(d .. "/per_request_lifecycle_metrics.json")
  for i, e in pairs { [5] = { "HTTP Error 503", "overloaded" }, [60] = { "TimeoutError", "" } } do
    recs[i].error = { error_type = e[1], error_msg = e[2] }
    recs[i].info.response_metrics.output_token_times = json.array {}
  end
  json.write(d .. "/per_request_lifecycle_metrics.json", recs)
  return d
end

-- The child's side is handed over, not read again: a side it cannot hand over (a function
-- in it, as each stage's groups of causes were: runmodel.close now leaves them as data)
-- sends the parent to read that run itself, which gives the same workspace (the test
-- above cannot tell) at the cost of reading the run twice, one after the other.
t.test("parallel compare: a run with stages and per-stage causes is handed over, not read twice", function()
  local a, b = ip_staged_run(0.1), ip_staged_run(0.12)
  local args = { "--a", a, "--a-label", "x", "--b", b, "--b-label", "y", "--slo", "ttft_p90_ms=200" }
  local ws, rs = compare(args, true)
  local log = t.tmpdir() .. "/times.txt"
  local parent = t.tmpdir()
  local argv = { LLMDLUA, "compare.lua", "--parent", parent }
  for _, x in ipairs(args) do argv[#argv + 1] = x end
  local rp = proc.run(argv, { env = { LLMDLUA_TIMES = log, LLMDLUA_JOBS = false } })
  t.eq(rs.code, 0, rs.stderr)
  t.eq(rp.code, 0, rp.stderr)
  local wp
  for n in lfs.dir(parent) do
    if n ~= "." and n ~= ".." then wp = parent .. "/" .. n end
  end
  same_workspace(ws, wp, "staged per-request runs")
  -- each stage's causes, as the run's are, in both (not an empty list that agrees)
  local st = json.read(wp .. "/run-b/run_model.json").stages
  t.eq(json.encode(st[1].errors), '[{"cause":"503 overloaded","count":1,"example":"overloaded","status":503}]')
  t.eq(json.encode(st[2].errors), '[{"cause":"TimeoutError","count":1,"example":"","status":"TimeoutError"}]')
  local first, reads = nil, {}
  for line in t.read(log):gmatch("[^\n]+") do
    local pid, what = line:match("^%d+%.%d+ (%d+) %d+%.%d+ %d+%.%d+ (.+)$")
    first = first or pid
    if what == "read b" then reads[#reads + 1] = pid end
  end
  t.eq(#reads, 1, "run b read once: " .. table.concat(reads, ", "))
  t.ok(reads[1] ~= first, "by the child, not by the first llmdlua")
end)

t.test("parallel compare: a run that cannot be read fails it with that run's error, as the serial path", function()
  local good = ip_run(1)
  local bad = t.tmpdir()
  local text = t.read(good .. "/per_request_lifecycle_metrics.json")
  t.write(bad .. "/per_request_lifecycle_metrics.json", text:sub(1, #text // 2))
  for _, order in ipairs { { good, bad, "b" }, { bad, good, "a" } } do
    local args = { "--a", order[1], "--b", order[2], "--quiet" }
    local ws, rs, ps = compare(args, true)
    local wp, rp, pp = compare(args, false)
    t.eq(ws, nil, "serial: no workspace left")
    t.eq(wp, nil, "parallel: no workspace left (nor any of its hand-over files)")
    t.eq(rp.code, 1)
    t.eq(rs.code, 1)
    -- the user's file is named, not the workspace's copy
    t.ok(rp.stderr:find(bad .. "/per_request_lifecycle_metrics.json", 1, true), rp.stderr)
    local function msg(r, p) return (r.stderr:gsub(p:gsub("%p", "%%%0") .. "/llm%-d%-comparison%-[%d%-]+", "<w>")) end
    t.eq(msg(rp, pp), msg(rs, ps), "the same message, run " .. order[3] .. " bad")
  end
end)

t.test("llmd.parallel: a child's failure, or its death, is raised naming the run; nothing is left", function()
  local w = { path = t.tmpdir() }
  -- a job whose import fails in the child: the plan names a file that is not there
  local plan = { root = "/nonexistent", dirs = {}, files = { { rel = "x.json", from = w.path .. "/missing.json" } },
    skipped = {} }
  local h = assert(par.start(w, "b", { label = "b", plan = plan, info = {}, opts = {}, extract_options = {} }))
  local ok, err = pcall(par.finish, h)
  t.ok(not ok)
  t.ok(tostring(err):find(w.path .. "/missing.json: cannot read", 1, true), tostring(err))
  t.eq(lfs.attributes(w.path .. "/.side-b"), nil, "the hand-over folder is gone")
  -- a child killed while it copies (50,000 files: a FIFO no longer blocks a copy, it is
  -- refused at once): its death is the error
  t.write(w.path .. "/one.json", "1")
  local many = {}
  for i = 1, 50000 do many[i] = { rel = ("x%d.json"):format(i), from = w.path .. "/one.json" } end
  local hang = { root = w.path, dirs = {}, files = many, skipped = {} }
  h = assert(par.start(w, "a", { label = "a", plan = hang, info = {}, opts = {}, extract_options = {} }))
  -- stopped at once (starting llmdlua alone takes longer than this), so that it cannot
  -- finish its copies first on a fast machine
  t.eq(proc.run({ "kill", "-STOP", tostring(h.p:pid()) }).code, 0)
  t.eq(h.p:wait(0.3), nil, "still copying")
  h.p:kill(0)
  ok, err = pcall(par.finish, h)
  t.ok(not ok)
  t.ok(tostring(err):find("run a: the llmdlua reading it stopped (killed by signal", 1, true), tostring(err))
  t.eq(lfs.attributes(w.path .. "/.side-a"), nil)
  -- abort stops a child and removes its folder
  h = assert(par.start(w, "a", { label = "a", plan = hang, info = {}, opts = {}, extract_options = {} }))
  par.abort(h)
  t.ok(h.p:poll() ~= nil, "stopped")
  t.eq(lfs.attributes(w.path .. "/.side-a"), nil)
  -- LLMDLUA_JOBS=1 is the serial path: no child
  local r = proc.run({ LLMDLUA, "-e", "local p = require('llmd.parallel'); print(p.start({path = '/nonexistent'}, 'b', {}))" },
    { env = { LLMDLUA_JOBS = "1" } })
  t.eq(r.stdout, "nil\tLLMDLUA_JOBS=1\tchosen\n")
end)

-- The hand-over format against values built by hand.
t.test("llmd.parallel: serialize keeps values exactly, shared tables once, marks and accumulators", function()
  local d = t.tmpdir()
  local shared = { 1, 2 }
  local acc = stats.new()
  for _, x in ipairs { 3.5, 0.1, 2 } do acc:add(x) end
  local v = {
    i = 3, f = 3.0, third = 1 / 3, big = math.maxinteger, small = math.mininteger, inf = math.huge,
    ninf = -math.huge, s = "a\n\"b\"\0c", yes = true, no = false, null = json.null,
    arr = json.array {}, obj = json.object {}, one = shared, two = shared, acc = acc, [7] = "seven",
    [0.5] = "half",
  }
  v.self = v
  local back = par.deserialize(par.serialize(v, d), d)
  t.eq(math.type(back.i), "integer")
  t.eq(math.type(back.f), "float")
  t.eq(back.third, 1 / 3)
  t.eq(back.big, math.maxinteger)
  t.eq(back.small, math.mininteger)
  t.eq(back.inf, math.huge)
  t.eq(back.ninf, -math.huge)
  t.eq(back.s, "a\n\"b\"\0c")
  t.eq(back.yes, true)
  t.eq(back.no, false)
  t.eq(back.null, json.null)
  t.eq(json.encode(back.arr), "[]")
  t.eq(json.encode(back.obj), "{}")
  t.ok(back.one == back.two, "a shared table stays shared")
  t.eq(back.one[2], 2)
  t.ok(back.self == back, "a cycle stays a cycle")
  t.eq(back[7], "seven")
  t.eq(back[0.5], "half")
  t.eq(back.acc:count(), 3)
  t.eq(back.acc:mean(), acc:mean())
  t.eq(back.acc:percentile(50), 2.0)
  t.raises("side.fn: a function cannot be handed over", par.serialize, { fn = print }, d)
  t.raises("a table with a metatable cannot be handed over", par.serialize, { x = setmetatable({}, {}) }, d)
end)

t.test("LLMDLUA_TIMES: each phase of both readers on one clock, nothing without it", function()
  local a, b = ip_run(1), ip_run(1.5)
  local log = t.tmpdir() .. "/times.txt"
  local parent = t.tmpdir()
  local r = proc.run({ LLMDLUA, "compare.lua", "--parent", parent, "--a", a, "--b", b, "--quiet" },
    { env = { LLMDLUA_TIMES = log, LLMDLUA_JOBS = false } })
  t.eq(r.code, 0, r.stderr)
  local by_pid, phases, n = {}, {}, 0
  for line in t.read(log):gmatch("[^\n]+") do
    local at, pid, u, s, what = line:match("^(%d+%.%d+) (%d+) (%d+%.%d+) (%d+%.%d+) (.+)$")
    t.ok(at, "a line of the documented form: " .. line)
    local last = by_pid[pid]
    t.ok(not last or (tonumber(at) >= last.at and tonumber(u) >= last.u and tonumber(s) >= last.s),
      "each process's clock and CPU go forward: " .. line)
    by_pid[pid] = { at = tonumber(at), u = tonumber(u), s = tonumber(s) }
    phases[what] = (phases[what] or 0) + 1
    n = n + 1
  end
  local pids = 0
  for _ in pairs(by_pid) do pids = pids + 1 end
  t.eq(pids, 4, "the first llmdlua, the child reading run b, the two copying the results")
  for _, what in ipairs { "checks", "import a", "import b", "read a", "read b", "save a", "save b",
    "hand-over written", "hand-over b loaded", "report model", "charts", "markdown", "copy a", "copy b", "done" } do
    t.eq(phases[what], 1, what)
  end
  -- without it: no file, the same report
  os.remove(log)
  r = proc.run({ LLMDLUA, "compare.lua", "--parent", t.tmpdir(), "--a", a, "--b", b, "--quiet" },
    { env = { LLMDLUA_TIMES = false } })
  t.eq(r.code, 0, r.stderr)
  t.eq(lfs.attributes(log), nil)
  t.ok(n >= 20, "phases noted: " .. n)
end)

-- fixg51: a child that could not hand its side over sent the parent to read the run again,
-- silently, whatever the cause: a side holding closures (a bug) went unseen for a session.
-- A value that cannot be handed over (a function, a userdata) is now a bug: an error under
-- LLMDLUA_STRICT=1 (every test runs so: tests/lua/run.lua, tests/run.sh), else the run read
-- here with one warning line; a write that fails (the disk: /dev/full in side.tmp's place here)
-- is the environment: read here, with one note naming the cause. The child's own hand-over
-- (M.hand_over, as M.child ends) runs in a process of its own, its side given here.
t.test("llmd.parallel: a side that cannot be handed over is a bug (an error in tests), a full disk a note", function()
  local script = t.tmpdir() .. "/hand.lua"
  t.write(script, [[
local par, proc, lfs = require "llmd.parallel", require "llmd.proc", require "lfs"
local d, side, prep = arg[1], arg[2], arg[3]
assert(lfs.mkdir(d))
local f = assert(io.open(d .. "/error.txt", "wb"))
f:write((" "):rep(16384))
f:close()
if prep == "full" then assert(lfs.link("/dev/full", d .. "/side.tmp", true)) end
if prep == "full-stats" then assert(lfs.link("/dev/full", d .. "/stats-1.bin", true)) end
local p = proc.spawn({ par.exe(), "-e", ("require('llmd.parallel').hand_over(%q, %s)"):format(d, side) },
  { stdout = "null", stderr = { file = d .. "/stderr.txt" } })
local ok, v, why, kind = pcall(par.finish, { dir = d, x = "b", p = p })
if type(v) == "table" then v = "side n=" .. tostring(v.n) end
io.write(table.concat({ tostring(ok), tostring(v), tostring(why), tostring(kind),
  tostring(lfs.attributes(d, "mode")) }, "|"), "\n")
]])
  local function run(side, prep, strict)
    local r = proc.run({ LLMDLUA, script, t.tmpdir() .. "/.side-b", side, prep or "" },
      { env = { LLMDLUA_STRICT = strict and "1" or false } })
    t.eq(r.code, 0, r.stderr)
    return r.stdout
  end
  local fn = "parallel: side.f: a function cannot be handed over"
  t.eq(run("{ f = print }", nil, true), "false|run b: the llmdlua reading it could not hand it over: " .. fn
    .. " (a bug in llmdlua)|nil|nil|nil\n")
  t.eq(run("{ f = print }", nil, false), "true|nil|" .. fn .. "|bug|nil\n")
  t.eq(run("{ u = io.stdout }", nil, false), "true|nil|parallel: side.u: a userdata cannot be handed over|bug|nil\n")
  -- the disk: the same either way
  for _, strict in ipairs { true, false } do
    local got = run("{ n = 1 }", "full", strict)
    t.ok(got:match("^true|nil|[^|]*/%.side%-b/side%.tmp: cannot write: No space left on device|environment|nil\n$"), got)
  end
  -- a stats dump the disk refused (newuser56 #3: its note named
  -- ".../lua/llmd/parallel.lua:83: .../stats-12.bin: cannot write: ..."): the cause, naming the
  -- file, and no place in llmdlua's own code, in the note compare.lua prints
  local got = run("{ s = require('llmd.stats').new() }", "full-stats", false)
  local why = got:match("^true|nil|([^|]*)|environment|nil\n$")
  t.ok(why and why:find("/.side-b/stats-1.bin: cannot write: No space left on device", 1, true), got)
  local line = par.fallback_line("compare.lua", "run b", "was read again by this llmdlua: its reader could not hand "
    .. "it over", why, "environment")
  t.ok(line:match("^compare%.lua: note: run b was read again by this llmdlua: its reader could not hand it over %([^%(]*"
    .. "/%.side%-b/stats%-1%.bin: cannot write: No space left on device%)$"), line)
  t.ok(not line:find("%.lua:%d"), line)
  -- (and a side that can be: handed over, as before)
  t.eq(run("{ n = 1 }", nil, true), "true|side n=1|nil|nil|nil\n")
  -- the job handed to the child: the same bug, found before it starts
  local w = { path = t.tmpdir() }
  t.raises("run b: its job cannot be handed to the llmdlua that would read it: parallel: side.job.f: a function "
    .. "cannot be handed over (a bug in llmdlua)", par.start, w, "b", { f = print })
  t.eq(lfs.attributes(w.path .. "/.side-b"), nil, "nothing left")
  local r = proc.run({ LLMDLUA, "-e", ("print(require('llmd.parallel').start({ path = %q }, 'b', { f = print }))")
    :format(w.path) }, { env = { LLMDLUA_STRICT = false, LLMDLUA_JOBS = false } })
  t.eq(r.stdout, "nil\tparallel: side.job.f: a function cannot be handed over\tbug\n")
  -- what compare.lua says of each: one line; nothing where the user chose it
  t.eq(par.fallback_line("compare.lua", "run b", "was read again by this llmdlua: its reader could not hand it over",
    fn, "bug"), "compare.lua: warning: run b was read again by this llmdlua: its reader could not hand it over: " .. fn
    .. " (a bug in llmdlua, please report it; the figures are the same)")
  t.eq(par.fallback_line("compare.lua", "run b", "was read again by this llmdlua: its reader could not hand it over",
    "W/.side-b/side.tmp: cannot write: No space left on device", "environment"), "compare.lua: note: run b was read "
    .. "again by this llmdlua: its reader could not hand it over (W/.side-b/side.tmp: cannot write: No space left on "
    .. "device)")
  t.eq(par.fallback_line("compare.lua", "run b", "is read by this llmdlua after run a, not beside it", "LLMDLUA_JOBS=1",
    "chosen"), nil)
end)
