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
