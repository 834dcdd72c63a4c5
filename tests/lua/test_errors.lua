-- What the user reads when something is wrong (polish3): one line naming their file, never
-- a traceback, never a path into llmdlua's own Lua; a bug keeps its traceback. Each test
-- reproduces one defect and fails without its fix; the expected texts are written by hand
-- from the messages' rules (README: Running scripts).
local t = require "testlib"
local errors = require "llmd.errors"
local proc = require "llmd.proc"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"

-- the one line a failed command printed: exit 1, "llmdlua: " + want, no source path
local function one_line(r, want)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, "llmdlua: " .. want .. "\n")
  t.ok(not r.stderr:find("%.lua:%d"), "no Lua source position: " .. r.stderr)
end

t.test("1: errors.text drops the Lua position in front; user_text keeps a bug for its traceback", function()
  local reader = "/opt/llmdlua/lua/llmd/prom_files.lua:183: run/metrics_summary.json:1:2: unexpected end of input"
  t.eq(errors.text(reader), "run/metrics_summary.json:1:2: unexpected end of input")
  t.eq(errors.user_text(reader), "run/metrics_summary.json:1:2: unexpected end of input")
  -- (only the first line's: a later line is the message's own)
  t.eq(errors.text("plan.yaml: bad\nsee x.lua:3: y"), "plan.yaml: bad\nsee x.lua:3: y")
  t.eq(errors.user_text("treatment a: /data/e1: no results"), "treatment a: /data/e1: no results")
  -- a position in front of anything but the user's file is a bug of Lua code
  t.eq(errors.user_text("/opt/llmdlua/lua/llmd/x.lua:12: attempt to index a nil value (local 'r')"), nil)
  t.eq(errors.user_text("/opt/llmdlua/lua/llmd/x.lua:12: other.lua:3: y"), nil)
  t.eq(errors.user_text("bad argument #1 to 'insert' (table expected, got nil)"), nil)
  t.eq(errors.user_text({}), nil)
  t.eq(errors.user_text(setmetatable({}, { __tostring = function() return "--warmup 7: no stage 7" end })),
    "--warmup 7: no stage 7")
end)

-- llmd.errors had its own copy of the host's names_a_file (src/main.c), in Lua: one rule, two
-- implementations that differed (the copy ended a name at any white space, the host only at
-- ':', ' ' and a newline). Now the host's own function is the one both use. Expected values by
-- hand from the host's rule (main.c's comment above names_a_file).
t.test("6: llmd.errors uses the host's names_a_file (llmd.host), not a copy of it", function()
  local host = require "llmd.host"
  t.eq(type(host.names_a_file), "function")
  -- ("stats.new: x" is a name with a '.': the host prints it as the user's file only when that
  -- path exists, names_a_path in main.c)
  for text, want in pairs {
    ["plan.yaml:2:1: bad"] = true, ["/data/x.json: bad"] = true, ["(stdin):1: bad"] = true,
    ["x.lua:3: bad"] = false, ["harness: unknown option"] = false, ["stats.new: x"] = true, ["plan.yaml bad"] = false,
    ["plan.yaml:x"] = false, ["run dir/x.json: bad"] = false, ["my\tfile.json: bad"] = true,
  } do
    t.eq(host.names_a_file(text), want, text)
  end
  t.raises("string expected, got no value", host.names_a_file)
  -- where the copy and the host differed: a tab in the file's name (the host's rule: the name
  -- runs to ':', so "my<TAB>file.json" holds a '.' and names the user's file)
  t.eq(errors.user_text("/opt/llmdlua/lua/llmd/x.lua:3: my\tfile.json: bad"), "my\tfile.json: bad")
end)

t.test("1: errors.exit: a user's error is one line, a bug is raised again with its traceback", function()
  local d = t.tmpdir()
  t.write(d .. "/user.lua", 'require("llmd.errors").exit("/opt/lua/llmd/x.lua:3: data.json:1:2: bad")\n')
  one_line(proc.run { LLMDLUA, d .. "/user.lua" }, "data.json:1:2: bad")
  t.write(d .. "/usage.lua", 'require("llmd.errors").exit("--step: expected numbers", 2)\n')
  local r = proc.run { LLMDLUA, d .. "/usage.lua" }
  t.eq({ r.code, r.stderr }, { 2, "usage.lua: --step: expected numbers\n" })
  t.write(d .. "/bug.lua", 'require("llmd.errors").exit("/opt/lua/llmd/x.lua:3: attempt to index a nil value")\n')
  r = proc.run { LLMDLUA, d .. "/bug.lua" }
  t.eq(r.code, 1)
  t.ok(r.stderr:find("^llmdlua: /opt/lua/llmd/x%.lua:3: attempt to index a nil value\nstack traceback:"), r.stderr)
end)

-- treatments.lua read a treatment's benchmark report with yaml.load_file from its own Lua:
-- the error came out as "llmdlua: ROOT/lua/llmd/treatments.lua:229: t2/benchmark_report...".
t.test("1: treatments.lua: a malformed benchmark report is one line naming it, no llmdlua source path", function()
  local d = t.tmpdir()
  t.copy_tree(BASE, d .. "/t1")
  proc.run { "mkdir", "-p", d .. "/t2" }
  t.write(d .. "/t2/benchmark_report_v0.2_x.yaml", "a: [1,\n")
  local r = proc.run({ LLMDLUA, "treatments.lua", "--run", "a=t1", "--run", "b=t2", "--out", "o" }, { cwd = d })
  -- (libyaml's message, as `yaml.load_file` gives it for this text)
  one_line(r, "t2/benchmark_report_v0.2_x.yaml:2:1: did not find expected node content while parsing a flow node "
    .. "(started at line 2, column 1)")
end)

-- experiment.lua --resume read experiment-state.json with json.read from llmd.experiment_run:
-- "llmdlua: ROOT/lua/llmd/experiment_run.lua:638: ws/experiment-state.json:2:1: ...".
t.test("1: experiment.lua --resume: a corrupt experiment-state.json is one line naming it", function()
  local d = t.tmpdir()
  proc.run { "mkdir", "-p", d .. "/ws", d .. "/guide" }
  t.write(d .. "/ws/experiment-state.json", '{"results": \n')
  t.write(d .. "/exp.yaml", "treatments:\n  - name: r1\n    load.stages.0.rate: 1\n")
  t.write(d .. "/template.yaml", t.read(t.fixtures() .. "/llm-d-benchmark/benchmark-templates/optimized-baseline-sanity.yaml"))
  t.write(d .. "/guide/helmfile.yaml", "releases: []\n")
  t.write(d .. "/ws/plan.yaml", ("namespace: bench\ndeploy: {method: helmfile, guide_dir: %s/guide, environment: istio, "
    .. "model: Qwen/Qwen3-0.6B}\nbenchmark: {template: %s/template.yaml, harness: inference-perf}\n"):format(d, d))
  local r = proc.run({ LLMDLUA, "experiment.lua", "exp.yaml", "--resume", "ws", "--dry-run" }, { cwd = d })
  -- (named by its absolute path: --resume makes the workspace absolute on entry, nu35-2)
  one_line(r, proc.realpath(d) .. "/ws/experiment-state.json:2:1: unexpected end of input, expected a value")
end)

-- Item 5: llmd.json writes an unmarked empty table as {}; lists made with {} and left empty
-- came out as objects: run_model.json's kv.left_out (and kv.notes, warnings, checks),
-- comparison.json's broken.
t.test("5: empty lists in run_model.json and comparison.json are [], not {}", function()
  local json = require "llmd.json"
  local d = t.tmpdir()
  local r = proc.run({ LLMDLUA, "compare.lua", "--a", BASE, "--b",
    ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching", "--quiet" }, { cwd = d })
  t.eq(r.code, 0, r.stderr)
  local w = t.workspaces(d)[1]
  for _, x in ipairs { "a", "b" } do
    -- the bundled runs have no links out and no vLLM scrapes: nothing left out
    local text = t.read(w .. "/run-" .. x .. "/run_model.json")
    t.ok(text:find('"left_out": []', 1, true), text:match('"left_out"[^\n]*'))
    t.ok(json.is_array(json.decode(text).kv.left_out))
  end
  local cj = t.read(w .. "/comparison.json")
  t.ok(cj:find('"broken": []', 1, true), cj:match('"broken"[^\n]*')) -- (neither run is broken)
  -- a run with scrapes: notes, warnings and checks too (none in these six clean scrapes)
  local raw = d .. "/run/metrics/raw"
  proc.run { "mkdir", "-p", raw }
  proc.run { "sh", "-c", 'cp "$1"/* "$2"/', "sh", t.fixtures() .. "/prometheus/synthetic-raw", raw }
  local kv = require("llmd.kvcache").analyze(d .. "/run", nil)
  t.eq(kv.available, true)
  local doc = json.decode(json.encode(require("llmd.report").plain(kv)))
  for _, k in ipairs { "left_out", "notes", "warnings", "checks", "timeline" } do
    t.ok(json.is_array(doc[k]), k .. " is a list: " .. json.encode(doc[k]))
  end
  t.eq(#doc.notes + #doc.warnings + #doc.checks + #doc.left_out, 0)
end)

-- Item 6: extract.lua --json on a folder no harness recognises exited 1 with nothing on
-- stderr (the reasons were only inside the JSON).
t.test("6: extract.lua --json on a folder it does not recognise says on stderr what it looked for", function()
  local json = require "llmd.json"
  local d = t.tmpdir()
  t.write(d .. "/notes.txt", "not a result\n")
  local r = proc.run { LLMDLUA, "extract.lua", d, "--json" }
  t.eq(r.code, 1)
  t.eq(json.decode(r.stdout).status, "failed") -- (the JSON as before)
  t.eq(r.stderr:sub(1, #("llmdlua: no benchmark results under " .. d .. " (")),
    "llmdlua: no benchmark results under " .. d .. " (", r.stderr)
  -- what was looked for: each harness's files, as the text output lists them
  t.ok(r.stderr:find("\nlooked for: benchmark-report: ", 1, true), r.stderr)
  t.ok(r.stderr:find("inference-perf: summary_lifecycle_metrics.json", 1, true), r.stderr)
  -- a run that is read: nothing on stderr
  r = proc.run { LLMDLUA, "extract.lua", BASE, "--json" }
  t.eq({ r.code, r.stderr }, { 0, "" })
end)

-- A comparison that fails after making its workspace removes it, and the --parent folders it
-- made for it (each only if empty): a new user found an empty --parent tree left behind.
t.test("compare.lua: a failure removes the --parent folders it made, and nothing of the user's", function()
  local d, bad = t.tmpdir(), t.tmpdir()
  -- a stage file that parses but is not inference-perf's report: read after the workspace is made
  t.write(bad .. "/stage_0_lifecycle_metrics.json", '{"load_summary": 3}')
  t.write(d .. "/mine.txt", "x")
  local r = proc.run { LLMDLUA, "compare.lua", "--a", BASE, "--b", bad, "--parent", d .. "/new/deep", "--quiet" }
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:find("stage_0_lifecycle_metrics.json: 'successes' is missing", 1, true), r.stderr)
  t.ok(r.stderr:find("was removed", 1, true), r.stderr)
  local left = {}
  for n in require("lfs").dir(d) do if n ~= "." and n ~= ".." then left[#left + 1] = n end end
  t.eq(left, { "mine.txt" })
  -- an existing --parent stays, empty or not
  proc.run { "mkdir", d .. "/kept" }
  r = proc.run { LLMDLUA, "compare.lua", "--a", BASE, "--b", bad, "--parent", d .. "/kept", "--quiet" }
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(require("lfs").attributes(d .. "/kept", "mode"), "directory")
end)
