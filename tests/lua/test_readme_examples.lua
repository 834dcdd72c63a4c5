-- The README's examples run as written, each on its own: what a reader pastes into a shell in the
-- repository's folder, with nothing set up by an earlier section (no PATH export).
local t = require "testlib"
local proc = require "llmd.proc"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")

-- mend54 #7: the README's blocks, run in a clone, left try/, sim-a/, abdemo/ and
-- cross-treatment-comparison/ as untracked files git status shows. What a block leaves in the
-- folder it ran in (dir: every entry but those given, the repository's own links) must be
-- what the repository's .gitignore ignores, as git reads it (git check-ignore --no-index: the
-- patterns, whether or not anything is tracked). nil and why where git cannot say (no git, or
-- no checkout: a source tarball, which git status is not run in).
local function git_ignores(name)
  local r = proc.run({ "git", "-C", ROOT, "check-ignore", "-q", "--no-index", "--", name })
  if r.code == 0 then return true end
  if r.code == 1 then return false end
  return nil, "git check-ignore: " .. (r.stderr ~= "" and r.stderr or tostring(r.code))
end

local function left_ignored(dir, own)
  local lfs = require "lfs"
  local mine = {}
  for _, n in ipairs(own) do mine[n] = true end
  local left = {}
  for n in lfs.dir(dir) do
    if n ~= "." and n ~= ".." and not mine[n] then
      left[#left + 1] = n .. (lfs.attributes(dir .. "/" .. n, "mode") == "directory" and "/" or "")
    end
  end
  table.sort(left)
  t.ok(#left > 0, "the block leaves what it made in " .. dir)
  for _, n in ipairs(left) do
    local ignored, why = git_ignores(n)
    if ignored == nil then
      io.write("  (not checked: ", why:gsub("%s+$", ""), ")\n")
      return
    end
    t.ok(ignored, n .. " is left in the clone and not in .gitignore")
  end
end

t.test("README 'Simulated results': the block runs in the repository's folder without llmdlua on PATH", function()
  if not t.have_numpy() then return end -- (queue_sim.py needs numpy)
  local readme = t.read(ROOT .. "/README.md")
  local block = readme:match("#### Simulated results: a pair without a cluster\n.-```sh\n(.-)```")
  t.ok(block, "the block")
  -- the repository's folder as the reader has it (llmdlua built, tests/ beside it), in a folder
  -- of its own so that sim-a/ and the workspaces land there; PATH holds no llmdlua (the fake
  -- cluster section's export is not run)
  local d = t.tmpdir()
  for _, n in ipairs { "llmdlua", "tests" } do assert(proc.run({ "ln", "-s", ROOT .. "/" .. n, d .. "/" .. n }).ok) end
  local r = proc.run({ "sh", "-ec", "cd \"$1\" && shift && eval \"$1\"", "sh", d, block },
    { env = { PATH = "/usr/bin:/bin" } })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(#t.workspaces(d), 2, "compare.lua's two workspaces")
  t.ok(t.read(d .. "/cross-treatment-comparison/treatment_report.md") ~= nil)
  left_ignored(d, { "llmdlua", "tests" })
end)

-- fixh45 #3c (newuser45): the README gave no autobench example a new user could run. Its block
-- runs in the repository's folder, with ../shared beside it as in a checkout (the fixture
-- cookbook), and no GPU: the mock server and client stand in for vLLM. 2 candidates x 2
-- scenarios (the config made small by the block's sed: max_candidates_per_framework 2), every
-- row ok with the mock's 20 ms TTFT and 0 ms TPOT well within the cookbook's SLA (1500 ms and
-- 30 ms).
t.test("README 'Trying it without GPUs': the autobench block runs on the mock server and client", function()
  local readme = t.read(ROOT .. "/README.md")
  local block = readme:match("#### Trying it without GPUs: the mock server\n.-```sh\n(.-)```")
  t.ok(block, "the block")
  local d = t.tmpdir()
  assert(proc.run({ "mkdir", "-p", d .. "/repo" }).ok)
  for _, n in ipairs { "llmdlua", "tests" } do
    assert(proc.run({ "ln", "-s", ROOT .. "/" .. n, d .. "/repo/" .. n }).ok)
  end
  local shared = proc.run({ "realpath", ROOT .. "/../shared" }).stdout:gsub("%s+$", "")
  assert(proc.run({ "ln", "-s", shared, d .. "/shared" }).ok)
  local r = proc.run({ "sh", "-ec", "cd \"$1\" && shift && eval \"$1\"", "sh", d .. "/repo", block },
    { env = { PATH = "/usr/bin:/bin" } })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local ab = require "llmd.autobench"
  local ok = {}
  for _, row in ipairs(ab.read_rows(d .. "/repo/abdemo/rep1.jsonl")) do
    if row.framework == "vllm" then
      t.eq(row.status, "ok", row.failure_reason)
      ok[#ok + 1] = row.candidate_id .. "/" .. ab.scenario(row)
    end
  end
  table.sort(ok)
  t.eq(ok, { "vllm-0/chat", "vllm-0/summarization", "vllm-1/chat", "vllm-1/summarization" })
  left_ignored(d .. "/repo", { "llmdlua", "tests" })
  t.ok(t.read(d .. "/repo/abdemo/summary.md"):find("## Best Commands By Framework", 1, true), "summary.md")
  -- fixe52 (newuser52 #2): the README's repeats block, run after it in abdemo/, measures twice
  -- more into files of their own and compares the three: a line per choice above the tables
  local again = readme:match("To know whether a pick holds.-```sh\n(.-)```")
  t.ok(again, "the repeats block")
  r = proc.run({ "sh", "-ec", "cd \"$1\" && shift && eval \"$1\"", "sh", d .. "/repo/abdemo", again },
    { env = { PATH = "/usr/bin:/bin" } })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  for _, f in ipairs { "rep2.jsonl", "rep3.jsonl" } do
    t.eq(#ab.read_rows(d .. "/repo/abdemo/" .. f) > 0, true, f)
  end
  local md = t.read(d .. "/repo/abdemo/summary.md")
  local at, best = md:find("## What The Repeats Say", 1, true), md:find("## Best Commands By Framework", 1, true)
  t.ok(at and best and at < best, md)
  t.ok(md:find("over 3 repeats", 1, true), md)
end)

-- mend54 #7: the fake cluster's walk-through (its commands need the fake's whole session) makes
-- its folder with mkdir -p and works in it; each folder a README block makes in the clone so
-- is ignored (what is made inside it too). The names from the blocks themselves.
t.test("README blocks: every folder they mkdir in the clone is in .gitignore", function()
  local readme = t.read(ROOT .. "/README.md")
  local made = {}
  for block in readme:gmatch("```sh\n(.-)```") do
    for path in block:gmatch("mkdir %-p ([^%s&;]+)") do
      local top = path:match("^([^/]+)")
      if top and not top:find("$", 1, true) then made[#made + 1] = top .. "/" end
    end
  end
  t.ok(#made >= 2, "the blocks' mkdir -p (try/, abdemo/)")
  for _, n in ipairs(made) do
    local ignored, why = git_ignores(n)
    if ignored == nil then io.write("  (not checked: ", why:gsub("%s+$", ""), ")\n") return end
    t.ok(ignored, n .. " (mkdir -p in a README block) is not in .gitignore")
  end
end)

-- fixe49 #3 (newuser49 #7): a user's own script could not list a folder through anything the
-- README named (lfs is linked in but was not documented; the user shelled out to ls). The
-- Modules section's lfs example runs as written, as a script given a folder: the .json files
-- in name order (b.json written first), a folder named like one and a .txt left out; sizes are
-- the bytes written here, by hand.
t.test("README 'Files and folders: lfs': the example lists a folder's JSON files", function()
  local readme = t.read(ROOT .. "/README.md")
  local block = readme:match("### Files and folders: `lfs`\n\n```lua\n(.-)```")
  t.ok(block, "the block")
  local d = t.tmpdir()
  t.write(d .. "/list.lua", block)
  assert(proc.run({ "mkdir", "-p", d .. "/runs/old.json" }).ok)
  t.write(d .. "/runs/b.json", '{"rps": 2}\n')      -- 11 bytes
  t.write(d .. "/runs/a.json", '[1, 2, 3]\n')       -- 10 bytes
  t.write(d .. "/runs/notes.txt", "not JSON\n")
  local r = proc.run { ROOT .. "/llmdlua", d .. "/list.lua", d .. "/runs" }
  t.eq(r.code, 0, r.stderr)
  t.eq(r.stdout, "a.json\t10\ttable\nb.json\t11\ttable\n")
  -- a path that is no folder: one line naming it
  r = proc.run { ROOT .. "/llmdlua", d .. "/list.lua", d .. "/nope" }
  t.eq(r.code, 1)
  t.eq(r.stderr, "llmdlua: " .. d .. "/nope: not a folder\n")
end)

-- newuser56 #7: README never said how a scan.csv function sink is keyed (the user guessed the
-- column name after `$` was refused). Its block runs as written on a CSV of three rows, one
-- without a TTFT: 3 rows, 2 with one, mean (120.5 + 98.25) / 2 = 109.375 ms (by hand); and
-- `$` is refused with the line README quotes.
t.test("README 'scan.csv row by row': the function-sink block runs; `$` is refused as it says", function()
  local readme = t.read(ROOT .. "/README.md")
  local sec = readme:match("#### `scan.csv` row by row: a function sink\n(.-)\n```lua\n")
  t.ok(sec, "the section")
  local block = readme:match("#### `scan.csv` row by row: a function sink\n.-```lua\n(.-)```")
  t.ok(block, "the block")
  local d = t.tmpdir()
  t.write(d .. "/rows.lua", block)
  t.write(d .. "/requests.csv", "id,ttft_ms\n1,120.5\n2,\n3,98.25\n")
  local r = proc.run({ ROOT .. "/llmdlua", "rows.lua", "requests.csv" }, { cwd = d })
  t.eq(r.code, 0, r.stderr)
  t.eq(r.stdout, "3 rows, 2 with a TTFT, mean 109.4 ms\n")
  -- the refusal README quotes, on a file of its two columns
  t.write(d .. "/req.csv", "id,ttft_ms\n1,120.5\n")
  local quoted = sec:match("is refused with `([^`]+)`")
  t.ok(quoted, sec)
  local ok, err = pcall(require("llmd.scan").csv, d .. "/req.csv", { { "$", function() end } })
  t.ok(not ok)
  t.eq(err, d .. "/" .. quoted)
end)

-- newuser56 #6: `harness: inference_perf` was accepted silently (an alias README did not
-- name). README now says a harness's name with `_` for `-` is the same harness wherever one is
-- named, and the reports name it as the table's first column does: each such name of the
-- table resolves to that harness, and a comparison given --harness inference_perf records
-- "inference-perf" (the table's own name, read off README here).
t.test("README: a harness named with _ for - is the same harness, named as the table does", function()
  local readme = t.read(ROOT .. "/README.md")
  t.contains(readme, "the same name with `_` for `-`\n(`inference_perf`, `vllm_benchmark`: its Lua module's name) "
    .. "names the same harness")
  local harness = require "llmd.harness"
  local names = {}
  for n in readme:gmatch("\n| `([a-z][a-z-]*)` | ") do
    if n:find("-", 1, true) and pcall(harness.get, n) then names[#names + 1] = n end
  end
  t.ok(#names >= 3, table.concat(names, ", "))
  for _, n in ipairs(names) do t.eq(harness.get((n:gsub("%-", "_"))).name, n) end
  local d = t.tmpdir()
  local base = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
  local r = proc.run({ ROOT .. "/llmdlua", "compare.lua", "--a", base, "--b", ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching",
    "--harness", "inference_perf", "--parent", d, "--quiet" })
  t.eq(r.code, 0, r.stderr)
  local ws = t.workspaces(d)[1]
  t.eq(require("llmd.json").read(ws .. "/run-a/run_model.json").harness, "inference-perf")
end)
