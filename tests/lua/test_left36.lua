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
