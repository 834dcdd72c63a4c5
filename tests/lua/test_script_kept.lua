-- newuserd51 5: README tells users to uncomment lines of WORKSPACE/run_comparison.sh; the script's
-- own last line (analyze.lua "$COMPARISON_DIR"), or any later analyze.lua, wrote the script again
-- and the edits were gone. llmdlua records the hash of what it last wrote
-- (WORKSPACE/llmdlua-written.json); a script on disk that differs from it is kept, the new one is
-- written beside it as run_comparison.sh.new, and one line says so. The expectations: the bytes
-- of the user's file, unchanged; the hash of the file written, computed here by a separate
-- FNV-1a (python3, below).
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"

local _, LLMDLUA = t.root()
local F = t.fixtures() .. "/vllm-benchmark/exp-7_H100"

-- FNV-1a 64 of a file's bytes by python3, independent of llmd.br.hash
local function fnv(path)
  local r = proc.run { "/usr/bin/python3", "-c", "import sys\nh=0xcbf29ce484222325\n"
    .. "for b in open(sys.argv[1],'rb').read():\n h=((h^b)*0x100000001b3)&0xffffffffffffffff\nprint('%016x'%h)",
    path }
  assert(r.ok, r.stderr)
  return "fnv1a64:" .. r.stdout:gsub("%s+$", "")
end

local function workspace()
  local parent = t.tmpdir()
  local r = proc.run { LLMDLUA, "compare.lua", "--a", F .. "/llm-d-2p1d", "--b", F .. "/vllm-2replicas", "--parent",
    parent, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  return t.workspaces(parent)[1]
end

t.test("an unedited run_comparison.sh is written again; the record holds the hash of what was written", function()
  local w = workspace()
  local script = w .. "/run_comparison.sh"
  t.eq(json.read(w .. "/llmdlua-written.json"), { ["run_comparison.sh"] = fnv(script) })
  local r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  t.eq(r.stderr, "")
  t.eq(lfs.attributes(script .. ".new"), nil)
  t.eq(json.read(w .. "/llmdlua-written.json"), { ["run_comparison.sh"] = fnv(script) })
end)

t.test("an edited run_comparison.sh is kept: the new one beside it, said in one line", function()
  local w = workspace()
  local script = w .. "/run_comparison.sh"
  local recorded = json.read(w .. "/llmdlua-written.json")["run_comparison.sh"]
  local mine = t.read(script) .. "# my edit: the benchmark lines uncommented\n"
  t.write(script, mine)
  for round = 1, 2 do -- (the second: the edit is still told apart, the record still the written one's)
    local r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    t.eq(t.read(script), mine, "round " .. round)
    t.ok(lfs.attributes(script .. ".new", "mode") == "file", "round " .. round)
    t.ok(not t.read(script .. ".new"):find("# my edit", 1, true))
    t.eq(r.stderr, ("analyze.lua: %s was edited since llmdlua wrote it: kept as it is; the script as llmdlua writes it "
      .. "now is %s.new (compare them, e.g. diff %s %s.new)\n"):format(script, script, script, script))
    t.eq(json.read(w .. "/llmdlua-written.json")["run_comparison.sh"], recorded)
  end
end)

t.test("a workspace of an older llmdlua (no record): the script kept unless only its Written-by line differs",
  function()
    local w = workspace()
    local script = w .. "/run_comparison.sh"
    os.remove(w .. "/llmdlua-written.json")
    -- as written, but for the Written-by line (another time, another script): written again
    local text, n = t.read(script):gsub("\n# Written by llmdlua [^\n]*", "\n# Written by llmdlua compare.lua on 1999",
      1)
    t.eq(n, 1)
    t.write(script, text)
    local r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
    t.eq({ r.code, r.stderr }, { 0, "" })
    t.eq(lfs.attributes(script .. ".new"), nil)
    os.remove(w .. "/llmdlua-written.json")
    local mine = t.read(script) .. "echo mine\n"
    t.write(script, mine)
    r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    t.eq(t.read(script), mine)
    t.ok(lfs.attributes(script .. ".new", "mode") == "file")
  end)
