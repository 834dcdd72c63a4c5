-- Session 36 (left36): small defects session 35 left. Expected values by hand, each in a
-- comment beside its test.
local t = require "testlib"
local ab = require "llmd.autobench"
local json = require "llmd.json"
local proc = require "llmd.proc"
local yaml = require "llmd.yaml"

local mock = require "abmock"
local LLMDLUA = mock.LLMDLUA

local function ab_cli(args, cwd, env)
  local argv = { LLMDLUA, "autobench.lua" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return proc.run(argv, { cwd = cwd, env = env })
end

local function rows_by(path)
  local got = {}
  for _, row in ipairs(ab.read_rows(path)) do got[row.candidate_id .. "/" .. ab.scenario(row)] = row end
  return got
end

-- 1. autobench run --force judged a stale row's artifacts "gone" from the folder the rerun
-- started in, and repointed only rows naming a moved file exactly as this run names it: a
-- rerun from another folder called every file gone, or left a row pointing at the path the
-- new run writes. Run once from one folder, once from another: the stale row must point at
-- its own data (moved aside once: PATH.earlier-1), and nothing is said gone.
local function rerun_elsewhere(first_cwd, first_out, second_cwd, second_out, legacy)
  local d = t.tmpdir()
  t.mkdir(d .. "/sub")
  local env = mock.vllm_shim(d)
  t.write(d .. "/cfg.yaml", yaml.dump(mock.config()))
  local r = ab_cli({ "run", d .. "/cfg.yaml", "--out", first_out }, d .. first_cwd, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local out = d .. "/sub/r.jsonl"
  if legacy then
    -- rows as main wrote them before paths were stored relative to the output: from the
    -- run's working folder (d), i.e. sub/autobench-artifacts/r/...
    local text = t.read(out):gsub('"autobench%-artifacts/', '"sub/autobench-artifacts/')
    t.write(out, text)
  end
  local first = rows_by(out)["vllm-0/chat"]
  local before = {}
  for _, k in ipairs { "raw_result", "server_log", "benchmark_log" } do
    before[k] = t.read(d .. "/sub/autobench-artifacts/r/vllm-0/" .. first.artifacts[k]:match("[^/]+$"))
  end
  local cfg = mock.config()
  cfg.frameworks.vllm.base_server_flags.gpu_memory_utilization = 0.8
  t.write(d .. "/cfg.yaml", yaml.dump(cfg))
  r = ab_cli({ "run", d .. "/cfg.yaml", "--out", second_out, "--force" }, d .. second_cwd, env)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(not r.stdout:find("is gone", 1, true), "nothing is gone:\n" .. r.stdout)
  local stale = rows_by(d .. "/sub/r.stale.jsonl")["vllm-0/chat"]
  local new = rows_by(out)["vllm-0/chat"]
  t.eq(stale.artifacts_gone, nil)
  for _, k in ipairs { "raw_result", "server_log", "benchmark_log" } do
    local name = first.artifacts[k]:match("[^/]+$")
    -- by hand: relative to the output's folder (sub/), the first run's file moved aside once
    t.eq(stale.artifacts[k], "autobench-artifacts/r/vllm-0/" .. name .. ".earlier-1", k)
    t.eq(t.read(d .. "/sub/" .. stale.artifacts[k]), before[k], k .. ": the stale row's file holds its own data")
    t.eq(new.artifacts[k], "autobench-artifacts/r/vllm-0/" .. name, k)
  end
end

t.test("run --force from another folder: a stale row points at its own data, nothing called gone", function()
  rerun_elsewhere("", "sub/r.jsonl", "/sub", "r.jsonl")
end)

t.test("run --force from the parent folder after a run from the output's folder", function()
  rerun_elsewhere("/sub", "r.jsonl", "", "sub/r.jsonl")
end)

t.test("run --force: rows written with paths from another working folder (before this fix) are found", function()
  rerun_elsewhere("", "sub/r.jsonl", "/sub", "r.jsonl", true)
end)


-- 3. A Ctrl-C landing while proc.spawn returns loses the child's handle (the error is raised
-- before the variable is set); the scripts that exit on Ctrl-C (analyze.lua, compare.lua:
-- os.exit(130)) left such a child running - analyze.lua's gnuplot outlived it (the flaky
-- fl4-2 of session 35). llmdlua's os.exit closes the state: every process's __gc kills and
-- reaps it before the exit.
t.test("os.exit: a child whose handle was lost is killed and reaped before llmdlua exits", function()
  local d = t.tmpdir()
  t.write(d .. "/lost.lua", 'local proc = require "llmd.proc"\n'
    .. 'local p = proc.spawn({ "sleep", "60" })\nio.write(p:pid(), "\\n")\np = nil\nos.exit(130)\n')
  local r = proc.run { LLMDLUA, d .. "/lost.lua" }
  t.eq(r.code, 130, r.stderr)
  local pid = r.stdout:match("^(%d+)\n$")
  t.ok(pid, r.stdout)
  local alive = proc.run({ "kill", "-0", pid }).ok
  if alive then proc.run { "kill", pid } end -- (main: left running for a minute)
  t.ok(not alive, "the child " .. tostring(pid) .. " is gone")
  -- os.exit(code, false) is still Lua's: no close (the child would be left); codes as Lua's
  t.write(d .. "/codes.lua", "os.exit(" .. "false" .. ")\n")
  t.eq(proc.run({ LLMDLUA, d .. "/codes.lua" }).code, 1)
  t.write(d .. "/codes.lua", "os.exit(true)\n")
  t.eq(proc.run({ LLMDLUA, d .. "/codes.lua" }).code, 0)
end)

-- 4. A number beyond a double (1e999) in a result file read as +inf, and a report showed
-- "inf" (a latency of +inf is no measurement). JSON has no infinity (NaN and Infinity are
-- refused already): the file is corrupt, an error at the number. Positions by hand
-- (columns from 1); 1.7976931348623157e308 is the largest double, 1e-999 underflows to 0
-- (no infinity: read as 0.0, as strtod and Python read it).
t.test("json: a number beyond a double is an error at it; the largest double and underflow are read", function()
  local cases = {
    { '{"a": 1e999}', "r.json:1:7: number out of range: 1e999 is beyond" },
    { "[1, -1e999]", "r.json:1:5: number out of range: -1e999 is beyond" },
    { '{"x":\n  [1.5, 2e308]}', "r.json:2:9: number out of range: 2e308 is beyond" },
    -- 400 digits: no exponent, still beyond (the first 24 shown)
    { "[" .. ("1"):rep(400) .. "]", "r.json:1:2: number out of range: " .. ("1"):rep(24) .. "... is beyond" },
  }
  for _, c in ipairs(cases) do
    local ok, err = pcall(json.decode, c[1], "r.json")
    t.eq(ok, false, c[1])
    t.eq(tostring(err):sub(1, #c[2]), c[2])
    t.ok(tostring(err):find("JSON has no infinity, so the file is corrupt", 1, true), err)
  end
  local v = json.decode("[1e308, 1.7976931348623157e308, 1e-999, 0.1e2]")
  t.eq({ v[1], v[2], v[3], v[4] }, { 1e308, 1.7976931348623157e308, 0.0, 10.0 })
end)

t.test("scan: a number beyond a double in an array, a reduced array, a field or a record is an error at it", function()
  local scan = require "llmd.scan"
  local stats = require "llmd.stats"
  local d = t.tmpdir()
  local xs = {}
  for i = 1, 300 do xs[i] = ("%d.5"):format(i) end -- the number lane reads a long array
  local text = '{"ttfts": [' .. table.concat(xs, ", ") .. ', 1e999, 3.5],\n "itls": [[0.1, 0.2], [0.3, -2e400]], '
    .. '"rec": [{"a": 1, "b": 1e999}]}\n'
  t.write(d .. "/s.json", text)
  -- by hand: line 1 holds 11 + 300 numbers ("1.5" .. "300.5", each with ", ") before it
  local at1 = text:find("1e999", 1, true) -- 1-based: the column on line 1, byte at1 - 1
  local nl = text:find("\n", 1, true)
  local at2 = text:find("-2e400", 1, true)
  local at3 = text:find("1e999}", 1, true)
  -- (misc37: a number beyond a double that no rule reads is an error too, at it -
  -- test_scan.lua; so each case's file holds only the one its rule reads, the others
  -- written as doubles of the same length, 1e100 and -2e300: every byte stays where it is)
  local function err(rules, keep)
    local only = text:gsub("1e999, 3%.5", keep == "ttfts" and "%0" or "1e100, 3.5")
      :gsub("%-2e400", keep == "itls" and "%0" or "-2e300"):gsub("1e999}", keep == "rec" and "%0" or "1e100}")
    t.eq(#only, #text)
    t.write(d .. "/s.json", only)
    local ok, e = pcall(scan.json, d .. "/s.json", rules)
    t.eq(ok, false)
    return tostring(e)
  end
  local tail = " is beyond a double (about 1.8e308); JSON has no infinity, so the file is corrupt"
  t.eq(err({ { "$.ttfts[*]", stats.new() } }, "ttfts"),
    ("%s/s.json:1:%d: $.ttfts[300]: number out of range: 1e999%s (byte %d)"):format(d, at1, tail, at1 - 1))
  local want2 = ("%s/s.json:2:%d: $.itls[1][1]: number out of range: -2e400%s (byte %d)"):format(d, at2 - nl, tail,
    at2 - 1)
  t.eq(err({ { "$.itls[*]", stats.new(), reduce = "diffs" } }, "itls"), want2)
  t.eq(err({ { "$.itls[*][*]", stats.new() } }, "itls"), want2)
  t.eq(err({ { "$.rec[*].b", function() end } }, "rec"),
    ("%s/s.json:2:%d: $.rec[0].b: number out of range: 1e999%s (byte %d)"):format(d, at3 - nl, tail, at3 - 1))
  -- a record's whole value: its numbers are passed over while it is captured, so (misc37)
  -- the error is the parser's, at the number, with the line and column too
  t.eq(err({ { "$.rec[*]", function() end } }, "rec"), ("%s/s.json:2:%d: number out of range: 1e999%s (byte %d)")
    :format(d, at3 - nl, tail, at3 - 1))
end)

t.test("extract.lua: a vllm bench result with 1e999 is a corrupt file, named with the place, no report", function()
  local d = t.tmpdir()
  local src = t.read(t.fixtures() .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json")
  for _, c in ipairs {
    -- a summary figure, and one request's TTFT (read by llmd.scan)
    { '"request_throughput": 8.232866371711454', '"request_throughput": 1e999' },
    { '"ttfts": [', '"ttfts": [1e999, ' },
  } do
    local text = src:gsub(c[1]:gsub("%p", "%%%0"), c[2])
    t.ok(text ~= src, c[1])
    t.write(d .. "/result.json", text)
    local col = text:find("1e999", 1, true) -- one line: the column is the 1-based index
    local r = proc.run { LLMDLUA, "extract.lua", d }
    t.ok(r.code ~= 0, r.stdout)
    t.ok(r.stderr:find(("result.json:1:%d: "):format(col), 1, true), r.stderr)
    t.ok(r.stderr:find("number out of range: 1e999 is beyond a double", 1, true), r.stderr)
    t.ok(not r.stderr:find("traceback", 1, true), r.stderr)
    t.ok(not r.stdout:find("inf", 1, true), r.stdout)
  end
end)
