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

-- newuser56 #3: an error caught and wrapped into a note or another message kept the
-- position in llmdlua's own code that the error carried ("(/x/lua/llmd/parallel.lua:83:
-- .../stats-12.bin: cannot write: ...)"): one rule (errors.text, strip_own) takes out every
-- position of a file of llmdlua's lua/ folder (this tree's, found by its path, whole or as Lua
-- shortens it, ".../lua/llmd/x.lua"), wherever it is; one in a file of the user's stays.
t.test("newuser56-3: errors.text and strip_own drop llmdlua's own source positions anywhere in a text", function()
  local own = ROOT .. "/lua/llmd/parallel.lua:83: "
  local full = "/w/.side-b/stats-12.bin: cannot write: No space left on device"
  t.eq(errors.text("run b: its reader could not hand it over (" .. own .. full .. ")"),
    "run b: its reader could not hand it over (" .. full .. ")")
  t.eq(errors.strip_own("note: x (..." .. ("lua/llmd/parallel.lua:83: "):sub(1) .. full .. "; " .. ROOT
    .. "/lua/compare.lua:9: y)"), "note: x (" .. full .. "; y)")
  -- (a user's file, or a name no file of lua/ has, keeps its position)
  t.eq(errors.strip_own("x (/home/me/my.lua:3: y; /opt/other/lua/llmd/nosuchfile.lua:4: z)"),
    "x (/home/me/my.lua:3: y; /opt/other/lua/llmd/nosuchfile.lua:4: z)")
  -- user_text: the one line, without it; a bug (a position in front, not the user's file) still nil
  t.eq(errors.user_text("run b: its reader (" .. own .. full .. ")"), "run b: its reader (" .. full .. ")")
  t.eq(errors.user_text(own .. "attempt to index a nil value"), nil)
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

-- harden51 #4: a runtime error Lua raised inside a C function has no position ("attempt to
-- index a nil value", table.concat's "invalid value (...)"); caught by a pcall and passed to
-- errors.exit, user_text took it for the user's one line (no position, so "the user's"),
-- where the host prints the same text as a bug with its traceback. The texts below are Lua
-- 5.4's own, made by Lua itself where it can (so the test follows the Lua built in).
t.test("harden51-4: user_text: Lua's runtime errors without a position are bugs, as the host has them", function()
  local host = require "llmd.host"
  local _, concat = pcall(table.concat, { {} })
  local _, index = pcall(ipairs(5), 5, 0) -- (ipairs' iterator indexes the number, in C)
  local _, insert = pcall(table.insert, {}, 1, 2, 3)
  t.ok(not concat:find("%.lua:%d") and not index:find("%.lua:%d") and not insert:find("%.lua:%d"),
    "raised in C, without a position: " .. concat .. " / " .. index .. " / " .. insert)
  for _, e in ipairs { concat, index, insert, "attempt to index a nil value (field 'x')", "table index is nil",
    "number has no integer representation", "invalid order function for sorting", "stack overflow",
    "'__index' chain too long; possibly a loop" } do
    t.eq(host.runtime_error(e), true, e)
    t.eq(errors.user_text(e), nil, e)
  end
  -- a user's mistake stays one line: a message naming the file, with or without a position
  -- in front, or one naming an option
  for e, want in pairs {
    ["plan.yaml:2:1: attempt to deploy twice"] = "plan.yaml:2:1: attempt to deploy twice",
    ["/opt/llmdlua/lua/llmd/x.lua:3: data.json:1:2: invalid value (expected a number)"] =
      "data.json:1:2: invalid value (expected a number)",
    ["--slo: expected METRIC<=VALUE, got 'x'"] = "--slo: expected METRIC<=VALUE, got 'x'",
  } do
    t.eq(host.runtime_error(e), false, e)
    t.eq(errors.user_text(e), want, e)
  end
  -- and errors.exit shows such a bug with its traceback (the host's rule), a user's text as
  -- one line
  local d = t.tmpdir()
  t.write(d .. "/bug.lua", "local _, e = pcall(table.concat, { {} })\nrequire('llmd.errors').exit(e)\n")
  local r = proc.run({ LLMDLUA, "bug.lua" }, { cwd = d })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("^llmdlua: [^\n]*%.lua:%d+: invalid value %([^\n]*'concat'\nstack traceback:\n"), r.stderr)
  t.ok(r.stderr:find("\n\tbug%.lua:2: in main chunk"), r.stderr)
  t.write(d .. "/user.lua", "require('llmd.errors').exit('plan.yaml:2:1: attempt to deploy twice')\n")
  one_line(proc.run({ LLMDLUA, "user.lua" }, { cwd = d }), "plan.yaml:2:1: attempt to deploy twice")
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

-- fixb38: correctness items left after session 37.
-- 1. inference-perf runs: the failures' design effect (err37) was 1 wherever llmdlua read a
--    run's per-request file: a run of several stages recorded no failed request's outcome per
--    stage (so the error rate's test fell back to Fisher's and bursts of failures near
--    saturation named false winners), and a one-stage run's fast lane left its successes out
--    of the outcomes (all failures, one value: design effect 1).
-- Expected values: tests/data/err_ref.py (numpy alone, on the generated files), python3 by
-- hand, or as said at each.
-- (Formerly test_fixb38.lua.)
do
  -- 4. --warmup takes stage indexes: compare.lua's --help did not say how stages are numbered
  -- (from 0, in the order they ran), so "--warmup 1" for "the first stage" left the first in.
  t.test("compare.lua --help and extract.lua --help say --warmup's stages are numbered from 0 in time order",
    function()
      local r = proc.run { LLMDLUA, ROOT .. "/lua/compare.lua", "--help" }
      t.eq(r.code, 0, r.stderr)
      local text = r.stdout:gsub("%s+", " ")
      t.ok(text:find("stages are numbered from 0 in time order, as they ran: inference-perf's stage_N by N, "
        .. "vllm-benchmark's files by their date", 1, true), r.stdout)
      r = proc.run { LLMDLUA, ROOT .. "/lua/extract.lua", "--help" }
      t.ok(r.stdout:gsub("%s+", " "):find("(numbered from 0 in time order, as in compare.lua --help)", 1, true), r.stdout)
      t.ok(t.read(ROOT .. "/README.md"):gsub("%s+", " "):find("Stages are numbered from 0 in time order, as they ran",
        1, true), "README")
    end)
end

-- fixe41: findings of the new-user trial of session 41. Expected values by hand, as written
-- beside each.
-- (Formerly test_fixe41.lua.)
do
  -- The audit of the other pcalls: a workspace file that is not YAML/JSON is its reader's
  -- error, not "no stage check" / "GPUs unknown" / a script without its deploy lines
  t.test("malformed workspace records raise with their position", function()
    local d = t.tmpdir()
    local cfg = d .. "/config.yaml"
    t.write(cfg, "workload:\n  a: [1, 2\n")
    t.raises(cfg .. ":", require("llmd.comparison").config_stages, cfg, {})
    t.eq(require("llmd.comparison").config_stages(d .. "/none.yaml", {}), nil)
    t.raises(cfg .. ":", require("llmd.treatments").setup_gpus, cfg)
    t.eq(require("llmd.treatments").setup_gpus(d .. "/none.yaml"), nil)
    t.mkdir(d .. "/run-a")
    t.write(d .. "/run-a/deployed.json", '{"commands": ["helm')
    t.raises(d .. "/run-a/deployed.json:1:", require("llmd.comparison").script_records, { path = d })
  end)

  -- The README's fake-cluster try/ setup (tests/fakecluster): a guide, the one-stage
  -- sanity_random template, the plan of two identical runs; {dir, env}. context: the
  -- FAKE_CONTEXT to give (nil: unset, the fake's default).
  local BIN = ROOT .. "/llmdlua" -- (absolute: these run in another folder)

  -- A missing --plan file is a usage error (exit 2), as a missing --a folder is
  t.test("compare.lua --plan with no such file: one line, exit 2", function()
    local d = t.tmpdir()
    local r = proc.run({ BIN, "compare.lua", "--plan", "nope.yaml", "--yes" }, { cwd = d })
    t.eq({ r.code, r.stderr }, { 2, "compare.lua: --plan nope.yaml: no such file (expected the plan, a YAML file)\n" })
    t.eq(t.workspaces(d), {})
  end)

  -- The same mistake, the same exit in every script (README: Exit status): a file or folder
  -- the command line names that is not there is a usage error, one line naming the script,
  -- what was given and what was expected, exit 2 (llmd.args.path). experiment.lua said
  -- "llmdlua: nope.yaml: cannot open: ..." with exit 1 where compare.lua said exit 2
  -- (newuser44); treatments.lua called a missing folder "not an experiment workspace", and
  -- autobench.lua's plan, run and compare, analyze.lua and extract.lua read a missing path as
  -- an error in the data (exit 1).
  -- Texts written by hand from that rule.
  t.test("a file or folder the command line names that is not there: exit 2 in every script", function()
    local d = t.tmpdir()
    local exp = ROOT .. "/../shared/fixtures/llm-d-benchmark/experiments/kubecon-smoke.yaml"
    t.write(d .. "/plan.yaml", "namespace: x\n")
    for _, c in ipairs {
      { { "experiment.lua", "nope.yaml", "--show" },
        "experiment.lua: nope.yaml: no such file (expected the experiment, a YAML file)" },
      { { "experiment.lua", "nope.yaml", "--plan", "plan.yaml" },
        "experiment.lua: nope.yaml: no such file (expected the experiment, a YAML file)" },
      { { "experiment.lua", exp, "--plan", "nope.yaml" },
        "experiment.lua: --plan nope.yaml: no such file (expected the plan, a YAML file)" },
      { { "experiment.lua", exp, "--show", "--plan", "nope.yaml" },
        "experiment.lua: --plan nope.yaml: no such file (expected the plan, a YAML file)" },
      { { "experiment.lua", d, "--show" },
        "experiment.lua: " .. d .. ": a folder, not a file (expected the experiment, a YAML file)" },
      { { "treatments.lua", "nope-ws" }, "treatments.lua: nope-ws: no such folder (expected an experiment workspace)" },
      { { "autobench.lua", "plan", "nope.yaml" },
        "autobench.lua plan: nope.yaml: no such file (expected an autobench config, a YAML file)" },
      { { "autobench.lua", "run", "nope.yaml", "--out", "r.jsonl" },
        "autobench.lua run: nope.yaml: no such file (expected an autobench config, a YAML file)" },
      { { "autobench.lua", "compare", "nope.jsonl" },
        "autobench.lua compare: nope.jsonl: no such file (expected a results file, JSON lines)" },
      { { "compare.lua", "--plan", d }, "compare.lua: --plan " .. d .. ": a folder, not a file (expected the plan, a YAML file)" },
      { { "analyze.lua", "nope-ws" }, "analyze.lua: nope-ws: no such folder (expected a comparison workspace)" },
      { { "extract.lua", "nope" },
        "extract.lua: nope: no such file or folder (expected a benchmark results folder or one result file)" },
    } do
      local argv = { BIN }
      for _, x in ipairs(c[1]) do argv[#argv + 1] = x end
      local r = proc.run(argv, { cwd = d })
      t.eq({ r.code, r.stderr }, { 2, c[2] .. "\n" }, table.concat(c[1], " "))
    end
    t.eq(t.workspaces(d), {})
    t.eq(require("lfs").attributes(d .. "/r.jsonl"), nil, "nothing written")
  end)
end

-- Session 36 (left36): small defects session 35 left. Expected values by hand, each in a
-- comment beside its test.
-- (Formerly test_left36.lua.)
do

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
end

-- What a new user found in session 31 (a fresh clone, README only), compare.lua's side:
-- the GPU caveat beside every latency verdict, the total max sustained row's evidence by the
-- per-GPU row's rule, the banner of runs that differ only in their load ladders, identical
-- runs through every path, an SLO in the wrong unit, the cross-harness texts, --br's
-- percentiles, a sweep of two workloads in one folder, and the errors of --resume/--harness.
--
-- Expected values: /usr/bin/python3 (numpy) on the fixture files, each computation in a
-- comment beside its test; texts by hand from the numbers.
-- (Formerly test_newuser31.lua.)
do
  local json = require "llmd.json"
  local report = require "llmd.report"
  local decision = require "llmd.decision"
  local harness = require "llmd.harness"

  local F = t.fixtures()
  local EXP7 = F .. "/vllm-benchmark/exp-7_H100"
  local HERE = t.here()
  local FX = HERE .. "/../fixtures"
  local TREAT = FX .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching"

  local function sd(label, dir, gpus)
    return { label = label, state = { label = label, stack = { gpus = gpus } }, run = harness.extract(dir, {}),
      kv = {} }
  end

  local find = t.contains

  t.test("nu31-5: an SLO limit more than 10x below every measured value of its metric is said: is it in ms?", function()
    -- python3 on the demo pair's stage files, successes.latency.time_to_first_token.p90 x 1000:
    -- vllm 35.41, 35.61, 44.51, 64.36, 3175.7, 3270.8, 3314.1 ms; chunked 34.44, 31.20 (stage 1),
    -- 33.19, 37.25, 226.5, 1858.6, 1899.3 ms: the lowest is 31.20 ms, and 0.2 x 10 = 2 < 31.2
    local w, r = t.compare { "--a", BASE, "--a-label", "vllm", "--b", TREAT, "--b-label", "chunked",
      "--slo", "ttft_p90_ms=0.2" }
    t.eq(r.code, 0, r.stderr)
    local text = "--slo ttft_p90_ms=0.2: below every measured TTFT p90 of both runs (lowest 31.2 ms, chunked, stage 1), "
      .. "more than 10x below it: is it in ms? The limit is read in the metric's unit (ms), so no load can meet it"
    find(r.stderr, "compare.lua: warning: " .. text .. "\n", "stderr")
    local md = t.read(w .. "/comparison_report.md")
    find(md:match("## Data checks(.-)## Failed") or "", "\n- " .. text .. ".\n", "Data checks")
    find(t.read(w .. "/comparison_report.html"), "<li>" .. text:gsub("'", "&#39;") .. ".</li>", "html")
    t.eq(json.read(w .. "/comparison.json").slo_checks, { text })
    -- 3 ms is 10.4x below 31.2 ms: said; 4 ms (7.8x) and the demo's 200 ms are not
    local function checks(spec)
      return report.build { a = sd("vllm", BASE), b = sd("chunked", TREAT), slo = decision.parse_slo(spec),
        generated = 0 }.slo_checks
    end
    t.eq(#checks("ttft_p90_ms=3"), 1)
    t.eq(checks("ttft_p90_ms=4,error_rate_pct=0"), {})
    t.eq(checks("ttft_p90_ms=200"), {})
  end)

  t.test("nu31-9: --resume of a folder that is not a --plan workspace, a wrong --harness, two harnesses: one clear line",
    function()
    local LL = HERE .. "/../../llmdlua"
    -- a compare.lua --a/--b workspace: nothing to resume, analyze.lua re-generates it
    local w = t.compare { "--a", BASE, "--b", TREAT }
    local r = proc.run { LL, "compare.lua", "--resume", w, "--yes" }
    t.eq(r.code, 2, r.stderr)
    t.eq(r.stderr, ("compare.lua: --resume %s: not a --plan workspace (no steps.json: it compares two existing runs, "
      .. "nothing to resume; llmdlua analyze.lua %s re-generates its report)\n"):format(w, w))
    local gone = t.tmpdir() .. "/nothing-here"
    r = proc.run { LL, "compare.lua", "--resume", gone, "--yes" }
    t.eq(r.code, 2, r.stderr)
    t.eq(r.stderr, ("compare.lua: --resume %s: no such folder (expected the workspace of a compare.lua --plan run)\n")
      :format(gone))
    -- --harness naming a harness the folder does not hold: what it holds, and for two harnesses
    -- the per-run options (the demo's folder is inference-perf's, exp-7's vLLM's)
    local parent = t.tmpdir()
    r = proc.run { LL, "compare.lua", "--a", BASE, "--b", EXP7 .. "/llm-d-1p1d", "--harness", "inference-perf",
      "--parent", parent }
    t.eq(r.code, 1, r.stderr)
    local first = r.stderr:match("^[^\n]*")
    find(first, ("--b %s: no inference-perf results under %s"):format(EXP7 .. "/llm-d-1p1d", EXP7 .. "/llm-d-1p1d"))
    find(first, ": it holds vllm-benchmark results (leave --harness out to read them as such); to compare runs of two "
      .. "harnesses, give each its own: --a-harness NAME --b-harness NAME (--b-harness for this one)")
    t.eq(#t.workspaces(parent), 0)
    -- extract.lua: one line on stderr naming the folder and what it holds, nothing on stdout
    -- (newuser47 F6: it printed "vllm-benchmark results in DIR" and the failure on stdout)
    r = proc.run { LL, "extract.lua", BASE, "--harness", "vllm-benchmark" }
    t.eq({ r.code, r.stdout }, { 1, "" }, r.stderr)
    t.eq(r.stderr, ("llmdlua: no vllm-benchmark results under %s (no file of vllm-benchmark; README "
      .. "\"llmd.harness\": what each harness reads): it holds inference-perf results (leave --harness out to read "
      .. "them as such)\n"):format(BASE))
  end)
end

-- What a new user found in session 32 (a fresh clone, README only): a broken treatment
-- ranked first and "beating" a healthy one, treatments charts of one load point each, where
-- treatments.lua --results writes, the plan and experiment checks that let misspelt keys
-- through, --slo over an info file's slo:, Markdown escaping of labels, the usage line of
-- compare.lua, and autobench.lua compare's evidence beside its ranking.
--
-- Expected values: by hand from the fixture files (each reading in a comment beside its
-- test), or /usr/bin/python3 where a computation is named.
-- (Formerly test_newuser32.lua.)
do

  local find = t.contains

  t.test("nu32-4: the plan check refuses what the command line refuses: harness, info, existing results", function()
    local yaml = require "llmd.yaml"
    local cluster = require "llmd.cluster"
    local d = t.tmpdir()
    t.mkdir(d .. "/guide")
    t.write(d .. "/guide/helmfile.yaml", "releases: []\n")
    t.write(d .. "/template.yaml", "x: 1\n")
    local function run(harness)
      return { label = harness, deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio",
        model = "Qwen/Qwen3-0.6B" }, benchmark = { template = d .. "/template.yaml", harness = harness } }
    end
    -- the user's plan: harness inferenceperf (the tool is inference-perf)
    t.write(d .. "/p.yaml", yaml.dump { namespace = "llm-d-try", runs = { a = run("inferenceperf"),
      b = run("inference-perf") } })
    local r = proc.run({ LLMDLUA, "compare.lua", "--plan", d .. "/p.yaml", "--yes", "--dry-run" }, { cwd = d })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.eq(r.stderr, "llmdlua: " .. d .. "/p.yaml: runs.a.benchmark.harness: expected benchmark-report, guidellm, "
      .. "inference-perf, inferencemax or vllm-benchmark, got 'inferenceperf' (did you mean inference-perf?)\n")
    t.eq(r.stdout, "", "nothing done")
    -- the module's name is a harness too, as --harness takes it
    t.write(d .. "/p.yaml", yaml.dump { namespace = "llm-d-try", runs = { a = run("inference_perf"),
      b = run("vllm-benchmark") } })
    t.ok(cluster.load_plan(d .. "/p.yaml"))
    -- an existing run: its folder, link and info as --a DIR, --link and --a-info are checked
    t.write(d .. "/p.yaml", yaml.dump { namespace = "llm-d-try", runs = { b = run("inference-perf"),
      a = { label = "before", existing = { results = d .. "/nope", link = "maybe" },
        info = { guidee = "x", stack = { gpus = 2 } } } } })
    local err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
    find(err, "p.yaml: runs.a.existing.results: " .. d .. "/nope: no such folder (expected the run's results folder)")
    find(err, "p.yaml: runs.a.existing.link: expected true or false, got 'maybe'")
    -- (a misspelt info key named with its line, as the plan's other keys: newuser54 F5; the
    -- line found here by reading the file written)
    local gl = 0
    for line in (t.read(d .. "/p.yaml") .. "\n"):gmatch("([^\n]*)\n") do
      gl = gl + 1
      if line:find("guidee:", 1, true) then break end
    end
    t.ok(gl > 0)
    find(err, ("p.yaml:%d: runs.a.info.guidee: unknown key (did you mean guide? known: "):format(gl))
    -- a resumed comparison imported its existing runs already: their folders may be gone
    t.write(d .. "/p.yaml", yaml.dump { namespace = "llm-d-try", runs = { b = run("inference-perf"),
      a = { label = "before", existing = { results = d .. "/nope" } } } })
    t.ok(cluster.load_plan(d .. "/p.yaml", { resume = true }))
    -- info's slo: and gpus: as in an info file
    t.write(d .. "/p.yaml", yaml.dump { namespace = "llm-d-try", runs = { b = run("inference-perf"),
      a = { label = "before", existing = { results = BASE }, info = { slo = { ttft_p90 = 200 }, gpus = "two" } } } })
    err = t.raises("p.yaml", cluster.load_plan, d .. "/p.yaml")
    find(err, "runs.a.info: slo")
  end)

  t.test("nu32-8: compare.lua's usage line names every option the README's synopsis does", function()
    local readme = t.read(ROOT .. "/README.md")
    local synopsis = readme:match("\n```\n(llmdlua compare%.lua %-%-a RESULTS_A.-)\nllmdlua analyze%.lua")
    t.ok(synopsis, "the README's synopsis")
    -- (--help's first line: a wrong option is one line pointing to --help, newuser47 F10)
    local r = proc.run { LLMDLUA, "compare.lua", "--help" }
    t.eq(r.code, 0)
    local usage = r.stdout:match("^usage: ([^\n]*)")
    t.ok(usage, r.stdout)
    local n = 0
    for opt in synopsis:gmatch("%-%-[%w%-]+") do
      n = n + 1
      t.ok(usage:find(opt:gsub("%-", "%%-") .. "%f[^%w%-]"), opt .. " in: " .. usage)
    end
    t.ok(n >= 19, n) -- (19 when written: --a, --b, --a-label ... --quiet)
    -- and the ones the synopsis leaves to the plan section
    for _, opt in ipairs { "--plan", "--resume", "--namespace", "--yes", "--dry-run", "--step" } do
      t.ok(usage:find(opt:gsub("%-", "%%-") .. "%f[^%w%-]"), opt)
    end
  end)
end

-- What a new user found in session 33 (a fresh clone, README only): treatments.lua naming no
-- winner beside a table that shows one clearly faster, its Pareto front empty for want of
-- E2E latency, the experiment's wording of repeated results and of where a workload came
-- from, the order of the latency rows, a single --run, experiment.lua --dry-run's workspace
-- left behind, and misspelt keys and options without "did you mean".
--
-- Expected values: by hand from the fixture files (each reading in a comment beside its
-- test), or /usr/bin/python3 where a computation is named.
-- (Formerly test_newuser33.lua.)
do

  local find, lacks = t.contains, t.lacks

  t.test("nu33-5: a misspelt option or command says what it most likely meant", function()
    -- each one edit (or a transposition, two) from the option the script knows
    for _, c in ipairs {
      { { "compare.lua", "--a-lable", "x" }, "unknown option --a-lable (did you mean --a-label?)" },
      { { "experiment.lua", "x.yaml", "--dryrun" }, "unknown option --dryrun (did you mean --dry-run?)" },
      { { "autobench.lua", "compar" }, "autobench.lua: unknown command 'compar' (did you mean compare?)" },
      -- options treatments.lua takes out before the rest is parsed (they repeat) are guessed too
      { { "treatments.lua", "--runn", "a=b" }, "unknown option --runn (did you mean --run?)" },
      { { "treatments.lua", "--gpu", "a=1" }, "unknown option --gpu (did you mean --gpus?)" },
    } do
      local argv = { LLMDLUA }
      for _, a in ipairs(c[1]) do argv[#argv + 1] = a end
      local r = proc.run(argv, { cwd = ROOT })
      t.eq(r.code, 2, r.stdout .. r.stderr)
      find(r.stderr, c[2], c[1][1])
      lacks(r.stderr, "traceback", c[1][1])
    end
    -- nothing close: no guess
    local r = proc.run({ LLMDLUA, "compare.lua", "--zzzzzz", "x" }, { cwd = ROOT })
    t.eq(r.code, 2)
    find(r.stderr, "unknown option --zzzzzz; see")
  end)

  t.test("nu47-F10: a wrong option or command is one line (the error, did you mean, see --help)", function()
    -- each used to be followed by a usage line of up to ~500 characters (autobench.lua's
    -- unknown command: 5 lines more); expected text by hand from each script's usage
    for _, c in ipairs {
      { { "compare.lua", "--a", "x", "--b", "y", "--sloo", "ttft_p90_ms=500" },
        "compare.lua: unknown option --sloo (did you mean --slo?); see llmdlua compare.lua --help\n" },
      { { "experiment.lua", "x.yaml", "--dryrun" },
        "experiment.lua: unknown option --dryrun (did you mean --dry-run?); see llmdlua experiment.lua --help\n" },
      { { "autobench.lua", "compar" },
        "autobench.lua: unknown command 'compar' (did you mean compare?); see llmdlua autobench.lua --help\n" },
      { { "autobench.lua", "compare", "x.jsonl", "--mdd", "x.md" },
        "autobench.lua: unknown option --mdd (did you mean --md?); see llmdlua autobench.lua compare --help\n" },
      { { "autobench.lua", "run", "c.yaml", "--dry-run=1" },
        "autobench.lua: --dry-run takes no value; see llmdlua autobench.lua run --help\n" },
    } do
      local argv = { LLMDLUA }
      for _, a in ipairs(c[1]) do argv[#argv + 1] = a end
      local r = proc.run(argv, { cwd = ROOT })
      t.eq({ r.code, r.stdout, r.stderr }, { 2, "", c[2] }, table.concat(c[1], " "))
    end
  end)
end

-- newuser50b F2/F9 (fixr50): the README's rule in three places it did not hold. Expected
-- texts by hand from that rule and from Lua 5.4's own messages.
t.test("fixr50-1: a runtime error raised inside a C function gets the nearest Lua line and a traceback", function()
  local d = t.tmpdir()
  -- ipairs' iterator indexes the number: Lua raises it in C, without a position
  t.write(d .. "/s.lua", "local n = 5\nfor _ in ipairs(n) do end\n")
  local r = proc.run({ LLMDLUA, "s.lua" }, { cwd = d })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("^llmdlua: s%.lua:2: attempt to index a number value\nstack traceback:\n"), r.stderr)
  t.ok(r.stderr:find("\n\ts%.lua:2: in main chunk"), r.stderr)
  -- in a module too: file:line (the bug's place) with the traceback
  t.write(d .. "/m.lua", "local M = {}\nfunction M.f(x) for _ in ipairs(x) do end end\nreturn M\n")
  r = proc.run({ "env", "LLMDLUA_PATH=" .. d .. "/?.lua", LLMDLUA, "-e", "require('m').f(true)" }, { cwd = d })
  t.ok(r.stderr:find("^llmdlua: %S*m%.lua:2: attempt to index a boolean value\nstack traceback:\n"), r.stderr)
end)

t.test("fixr50-1: loadpoints refuses a run without stages at the script's line, naming the argument", function()
  local d = t.tmpdir()
  t.write(d .. "/s.lua", 'local lp = require "llmd.loadpoints"\nlp.points({})\n')
  local r = proc.run({ LLMDLUA, "s.lua" }, { cwd = d })
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: s.lua:2: loadpoints.points: argument 1 (run): expected a run from "
    .. "llmd.harness.extract (a table with a 'stages' list), got a table without 'stages'\n" })
  t.write(d .. "/n.lua", 'require("llmd.loadpoints").no_points_why(nil)\n')
  r = proc.run({ LLMDLUA, "n.lua" }, { cwd = d })
  t.eq(r.stderr, "llmdlua: n.lua:1: loadpoints.no_points_why: argument 1 (run): expected a run from "
    .. "llmd.harness.extract (a table with a 'stages' list), got nil\n")
  -- harness.extract without a folder indexed nil in harness/init.lua
  t.write(d .. "/h.lua", 'local harness = require "llmd.harness"\nharness.extract()\n')
  r = proc.run({ LLMDLUA, "h.lua" }, { cwd = d })
  t.eq(r.stderr, "llmdlua: h.lua:2: harness.extract: argument 1 (dir): expected a results folder's path (a string), "
    .. "got nil\n")
end)

t.test("fixr50-2: a syntax error in the script is one line (no empty traceback)", function()
  local d = t.tmpdir()
  t.write(d .. "/s.lua", "local x = = 1\n")
  local r = proc.run({ LLMDLUA, "s.lua" }, { cwd = d })
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: s.lua:1: unexpected symbol near '='\n" })
  r = proc.run({ LLMDLUA, "-e", "x = = 1" }, { cwd = d })
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: (command line):1: unexpected symbol near '='\n" })
  -- LLMDLUA_TRACE=1 still adds one
  r = proc.run({ "env", "LLMDLUA_TRACE=1", LLMDLUA, "s.lua" }, { cwd = d })
  t.ok(r.stderr:find("^llmdlua: s%.lua:1: unexpected symbol near '='\nstack traceback:"), r.stderr)
end)

t.test("fixr50-2: error() in a callback a native module calls has its traceback, as anywhere else", function()
  local d = t.tmpdir()
  t.write(d .. "/data.json", '{"v": [1, 2]}\n')
  t.write(d .. "/s.lua", 'local scan = require "llmd.scan"\n'
    .. 'local function f(x) error("mine at " .. x) end\n'
    .. 'scan.json("data.json", { { "$.v[*]", f } })\n')
  local r = proc.run({ LLMDLUA, "s.lua" }, { cwd = d })
  t.eq(r.code, 1)
  t.ok(r.stderr:find("^llmdlua: s%.lua:2: mine at 1\nstack traceback:\n"), r.stderr)
  t.ok(r.stderr:find("\n\ts%.lua:2: in "), r.stderr)         -- the callback's frame
  t.ok(r.stderr:find("\n\ts%.lua:3: in main chunk"), r.stderr)
  -- a proc line callback and the CSV scan the same
  t.write(d .. "/d.csv", "a\n1\n")
  t.write(d .. "/p.lua", 'require("llmd.proc").run({ "echo", "x" }, { stdout = function() error("cb") end })\n')
  t.write(d .. "/c.lua", 'require("llmd.scan").csv("d.csv", { { "a", function() error("cb") end } })\n')
  for _, s in ipairs { "p.lua", "c.lua" } do
    r = proc.run({ LLMDLUA, s }, { cwd = d })
    t.ok(r.stderr:find("^llmdlua: " .. s:gsub("%.", "%%.") .. ":1: cb\nstack traceback:\n"), r.stderr)
  end
  -- an error a callback caught and a later error() with the same text: that one's own traceback
  t.write(d .. "/again.lua", 'local scan = require "llmd.scan"\n'
    .. 'pcall(scan.json, "data.json", { { "$.v[*]", function() error("same", 0) end } })\n'
    .. 'error("same", 0)\n')
  r = proc.run({ LLMDLUA, "again.lua" }, { cwd = d })
  t.eq(r.stderr, "llmdlua: same\n")
  -- a callback reading a bad file: one line naming the file, as outside a callback
  t.write(d .. "/bad.json", "{,}\n")
  t.write(d .. "/b.lua", 'local scan = require "llmd.scan"\n'
    .. 'scan.json("data.json", { { "$.v[*]", function() require("llmd.json").read("bad.json") end } })\n')
  r = proc.run({ LLMDLUA, "b.lua" }, { cwd = d })
  t.eq(r.stderr, "llmdlua: bad.json:1:2: unexpected ',', expected a string key or '}'\n")
end)

t.test("fixr50-4: a data file given as the script says llmdlua runs a Lua script", function()
  local d = t.tmpdir()
  t.write(d .. "/r.json", '{"a": 1}\n')
  local r = proc.run({ LLMDLUA, "r.json" }, { cwd = d })
  t.eq({ r.code, r.stderr }, { 1, "llmdlua: r.json:1: unexpected symbol near '{' (llmdlua runs a Lua script: "
    .. "is r.json one?)\n" })
end)

-- (newuser54 #3) A plan's benchmark.harness vllm-benchmark with a template whose harness.name
-- is inference-perf passed --dry-run, deployed, benchmarked twice and failed at step 60 with
-- the stack left up, saying "leave --harness out" though the plan's key had set it. Now the
-- plan check refuses it before anything deploys (and in --dry-run), naming the plan key and
-- the template's line; a harness named in both alike (by its module name too), a plan's
-- benchmark-report (the report llm-d-benchmark converts any harness's results to) pass; a
-- template without harness.name runs run_only.sh's default, inference-perf (tidy55: it passed,
-- to fail at step 60), so it is checked as one naming inference-perf, and says so. The template
-- line is the file's 6th (counted below).
t.test("a plan's benchmark.harness that is not the template's harness.name is refused before anything deploys",
  function()
    local yaml = require "llmd.yaml"
    local cluster = require "llmd.cluster"
    local d = t.tmpdir()
    t.mkdir(d .. "/guide")
    t.write(d .. "/guide/helmfile.yaml", "releases: []\n")
    local template = "endpoint:\n  stack_name: chat\n  model: ${MODEL}\n  namespace: ${NAMESPACE}\n"
      .. "harness:\n  name: inference-perf\n  results_pvc: ${BENCHMARK_PVC}\n"
      .. "workload:\n  chat:\n    load: {type: constant, stages: [{rate: 1, duration: 30}]}\n"
    t.write(d .. "/template.yaml", template)
    t.write(d .. "/bare.yaml", (template:gsub("  name: inference%-perf\n", "")))
    local function run(label, harness, tpl)
      return { label = label, deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio",
        model = "Qwen/Qwen3-0.6B" }, benchmark = { template = d .. "/" .. (tpl or "template.yaml"), harness = harness } }
    end
    t.write(d .. "/p.yaml", yaml.dump { namespace = "llm-d-try", runs = { a = run("x1", "vllm-benchmark"),
      b = run("x2", "inference-perf") } })
    local r = proc.run({ LLMDLUA, "compare.lua", "--plan", d .. "/p.yaml", "--yes", "--dry-run" }, { cwd = d })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.eq(r.stderr, "llmdlua: " .. d .. "/p.yaml: runs.a.benchmark.harness: vllm-benchmark, but the benchmark "
      .. "template sets harness.name: inference-perf (" .. d .. "/template.yaml:6), the harness run_only.sh runs: its "
      .. "results are inference-perf's, which are not read as vllm-benchmark's (the run would deploy, benchmark and "
      .. "then fail at step 60); make the two name the same harness, or leave benchmark.harness out (the results say "
      .. "which harness wrote them); nothing was deployed\n")
    t.eq(r.stdout, "", "nothing done")
    -- alike by the module's name, benchmark-report, no harness.name, no benchmark.harness: read
    t.write(d .. "/p.yaml", yaml.dump { namespace = "llm-d-try", runs = { a = run("x1", "inference_perf"),
      b = run("x2", "benchmark-report") } })
    t.ok(cluster.load_plan(d .. "/p.yaml"))
    t.write(d .. "/p.yaml", yaml.dump { namespace = "llm-d-try", runs = { a = run("x1", "vllm-benchmark", "bare.yaml"),
      b = run("x2", nil) } })
    r = proc.run({ LLMDLUA, "compare.lua", "--plan", d .. "/p.yaml", "--yes", "--dry-run" }, { cwd = d })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.eq(r.stderr, "llmdlua: " .. d .. "/p.yaml: runs.a.benchmark.harness: vllm-benchmark, but the benchmark "
      .. "template (" .. d .. "/bare.yaml) sets no harness.name, so run_only.sh runs its default harness, "
      .. "inference-perf: its results are inference-perf's, which are not read as vllm-benchmark's (the run would "
      .. "deploy, benchmark and then fail at step 60); set harness.name: vllm-benchmark in the template, or leave "
      .. "benchmark.harness out (the results say which harness wrote them); nothing was deployed\n")
    t.eq(r.stdout, "", "nothing done")
    -- the default named by the plan, or no plan harness, with that template: read
    t.write(d .. "/p.yaml", yaml.dump { namespace = "llm-d-try", runs = { a = run("x1", "inference-perf", "bare.yaml"),
      b = run("x2", nil, "bare.yaml") } })
    t.ok(cluster.load_plan(d .. "/p.yaml"))
    -- at step 60 (a template that names no harness): the results' harness, and the plan key to leave out
    local c, why = require("llmd.harness").resolve(ROOT .. "/tests/fixtures/kubecon-na-2025_vllm",
      { harness = "vllm-benchmark", harness_option = "the plan's runs.a.benchmark.harness" })
    t.eq(c, nil)
    t.contains(tostring(why), ": it holds inference-perf results (leave the plan's runs.a.benchmark.harness out to "
      .. "read them as such)")
  end)
