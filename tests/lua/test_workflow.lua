-- What a new user hit outside the verdicts (newuser report s25, items 5, 6, 8, 15, 16): each
-- test is the reproduction of one reported defect, and fails without its fix.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"

local function run(argv, opts) return proc.run(argv, opts) end

local workspaces, copy_tree = t.workspaces, t.copy_tree

-- The Summary section of a Markdown report.
local function summary_of(report) return report:match("\n## Evidence\n(.-)\n## ") or "" end

-- Item 6: a truncated file is what --tolerant says it covers ("empty, truncated, a stage
-- missing"): left out with the parse error's position in the data checks, never a silent drop.
t.test("6: --tolerant leaves a truncated inference-perf stage file out, naming the parse error's position",
  function()
  local tmp = t.tmpdir()
  local ip = tmp .. "/trunc"
  copy_tree(BASE, ip)
  local victim = ip .. "/stage_3_lifecycle_metrics.json"
  -- (the cut run's other files saved again, the same figures in other bytes: it is compared
  -- below as another run than BASE, whose files a comparison refuses to find byte for byte in
  -- both, llmd.comparison.check_shared_files)
  t.walk(ip, function(path, _, mode)
    if mode == "file" and path ~= victim and path:match("%.json$") then t.resave(path) end
  end)
  local text = t.read(victim)
  t.ok(#text > 3000, "the stage file is longer than the cut")
  t.write(victim, text:sub(1, 3000))
  -- without --tolerant: the error, as before
  local r = run { LLMDLUA, "extract.lua", ip }
  t.eq(r.code, 1)
  t.ok(r.stderr:find(victim .. ":1:3001: unexpected end of input", 1, true), r.stderr)
  -- with it: six of the seven stages, and the left-out file named with where it broke
  -- (byte 3000 is the last one: column 3001 of its one line, as the error above says)
  r = run { LLMDLUA, "extract.lua", ip, "--tolerant", "--json" }
  t.ok(r.ok, r.stderr)
  local m = json.decode(r.stdout)
  local idx = {}
  for _, st in ipairs(m.stages) do idx[#idx + 1] = st.index end
  t.eq(idx, { 0, 1, 2, 4, 5, 6 }, "stage 3 left out, the others kept")
  t.ok(table.concat(m.warnings, "\n"):find("left out (--tolerant): " .. victim .. ":1:3001: unexpected end of input",
    1, true), table.concat(m.warnings, "\n"))
  t.ok(not table.concat(m.warnings, "\n"):find("%.lua:%d+:"), "no llmdlua source position in the warning")
  -- compare.lua: the report's data checks say so, and so does the Summary (item 8)
  r = run { LLMDLUA, "compare.lua", "--a", BASE, "--b", ip, "--a-label", "full", "--b-label", "cut", "--parent",
    tmp .. "/p", "--quiet", "--tolerant" }
  t.ok(r.ok, r.stderr)
  -- and on stderr, --quiet or not (new-user trial s46: nothing there, only in the report),
  -- one line naming the run, the file and why
  t.contains(r.stderr, "compare.lua: warning: run b (cut): left out (--tolerant): " .. victim
    .. ":1:3001: unexpected end of input")
  t.eq(select(2, r.stderr:gsub("left out", "")), 1, r.stderr)
  local report = t.read(workspaces(tmp .. "/p")[1] .. "/comparison_report.md")
  t.ok(report:find("- cut: left out (--tolerant): " .. victim .. ":1:3001: unexpected end of input", 1, true),
    "in the data checks")
  local summary = summary_of(report)
  t.ok(summary:find("cut: 1 result file was left out (--tolerant", 1, true), summary)
  t.ok(not summary:find("disagree", 1, true), "not said as files that disagree: " .. summary)
end)

t.test("6: --tolerant leaves a truncated vllm-benchmark file out; the other load points stay", function()
  local F = t.fixtures()
  local tmp = t.tmpdir()
  local src = tmp .. "/vtrunc"
  copy_tree(F .. "/vllm-benchmark/exp-7_H100/llm-d-1p1d", src)
  local victim = src .. "/benchmark_2025-05-13_04-37-51.json"
  local text = t.read(victim)
  -- cut after the keys detection looks for, so the file is still claimed as this run's
  local cut = text:find('"request_throughput"', 1, true) + 40
  t.ok(text:sub(1, cut):find('"num_prompts"', 1, true), "the head still names num_prompts")
  t.write(victim, text:sub(1, cut))
  local r = run { LLMDLUA, "extract.lua", src }
  t.eq(r.code, 1)
  t.ok(r.stderr:find(victim .. ":1:" .. (cut + 1) .. ":", 1, true), r.stderr)
  r = run { LLMDLUA, "extract.lua", src, "--tolerant", "--json" }
  t.ok(r.ok, r.stderr)
  local m = json.decode(r.stdout)
  t.eq(#m.stages, 2, "the two whole load points")
  for _, st in ipairs(m.stages) do t.ok(st.file ~= victim, "the cut file is not a load point") end
  local w = table.concat(m.warnings, "\n")
  t.ok(w:find("left out (--tolerant): " .. victim .. ":1:" .. (cut + 1) .. ":", 1, true), w)
end)

t.test("6: --tolerant leaves a truncated per-request file out; the stage and summary files are used", function()
  local F = t.fixtures()
  local tmp = t.tmpdir()
  local ip = tmp .. "/ip"
  copy_tree(BASE, ip)
  local text = t.read(F .. "/inference-perf/synthetic-per_request_lifecycle_metrics.json")
  local pr = ip .. "/per_request_lifecycle_metrics.json"
  t.write(pr, text:sub(1, math.floor(#text / 2)))
  local r = run { LLMDLUA, "extract.lua", ip }
  t.eq(r.code, 1)
  t.ok(r.stderr:find(pr .. ":", 1, true), r.stderr)
  r = run { LLMDLUA, "extract.lua", ip, "--tolerant", "--json" }
  t.ok(r.ok, r.stderr)
  local m = json.decode(r.stdout)
  -- the position of the cut: a line and column, and the byte (half the file's length)
  local w = table.concat(m.warnings, "\n")
  t.ok(w:find("left out (--tolerant): " .. pr .. ":", 1, true), w)
  t.ok(w:find(":%d+:%d+: unexpected end of input[^\n]*%(byte " .. math.floor(#text / 2) .. "%)"), w)
  -- the whole run's figures are the summary file's own (read here with the JSON reader
  -- alone), not half a per-request file's
  local s = json.read(BASE .. "/summary_lifecycle_metrics.json")
  t.eq(m.overall.requests_ok.value, s.successes.count)
  t.eq(m.overall.requests_failed.value, s.failures.count)
  t.eq(m.overall.requests_ok.source, "harness summary")
  t.eq(#m.stages, 7)
end)

-- Item 5: experiment.lua with `method: custom`. Setup treatments' keys go into the values
-- override; helm and helmfile are given that file, a custom command only through
-- ${VALUES_OVERRIDE}. Treatments whose values nothing reads all deploy the same stack.
local yaml = require "llmd.yaml"

local function custom_setup(commands, extra)
  local F = t.fixtures()
  local d = t.tmpdir()
  proc.run { "mkdir", "-p", d .. "/guide", d .. "/cluster" }
  -- (with the gateway Service a smoke test needs: a dry run checks that the deploy adds one)
  t.write(d .. "/guide/deploy.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo-cm\ndata:\n  a: \"1\"\n"
    .. "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: demo-gateway\nspec:\n  ports:\n    - name: http\n"
    .. "      port: 80\n")
  t.write(d .. "/template.yaml", t.read(F .. "/llm-d-benchmark/benchmark-templates/optimized-baseline-sanity.yaml"))
  t.write(d .. "/exp.yaml", "experiment:\n  name: tiny\n  harness: inference-perf\nsetup:\n  treatments:\n"
    .. "    - name: one\n      decode.replicas: 1\n    - name: two\n      decode.replicas: 2\n"
    .. "treatments:\n  - name: r1\n    load.stages.0.rate: 1\n")
  local plan = {
    namespaces = { "exp-a", "exp-b" }, parallel = 2, parent = d,
    timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    deploy = { method = "custom", guide_dir = d .. "/guide", commands = commands, model = "Qwen/Qwen3-0.6B" },
    benchmark = { template = d .. "/template.yaml", harness = "inference-perf", attempts = 1 },
  }
  for k, v in pairs(extra or {}) do plan.deploy[k] = v end
  t.write(d .. "/plan.yaml", yaml.dump(plan))
  local env = t.fake_env(d .. "/cluster", { FAKE_RESULTS = false, FAKE_CONTEXT = false })
  local function go(more)
    local argv = { LLMDLUA, "experiment.lua", d .. "/exp.yaml", "--plan", d .. "/plan.yaml" }
    for _, a in ipairs(more or {}) do argv[#argv + 1] = a end
    return proc.run(argv, { env = env, timeout = 300 })
  end
  local function workspace()
    for n in lfs.dir(d) do
      if n:match("^llm%-d%-experiment%-tiny%-") then return d .. "/" .. n end
    end
  end
  return { dir = d, go = go, workspace = workspace }
end

t.test("5: custom deploy commands that never read the values override: setup treatments refused, dry run too",
  function()
  local s = custom_setup { { "kubectl", "apply", "-f", "deploy.yaml" } }
  for _, more in ipairs { {}, { "--dry-run" } } do
    local r = s.go(more)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    local e = s.dir .. "/exp.yaml"
    t.eq(r.stderr, "llmdlua: " .. e .. ": setup treatment one (decode.replicas: 1): written to "
      .. "values-override.yaml, but no command in deploy.commands of " .. s.dir .. "/plan.yaml reads it\n"
      .. e .. ": setup treatment two (decode.replicas: 2): written to values-override.yaml, but no command in "
      .. "deploy.commands of " .. s.dir .. "/plan.yaml reads it\n"
      .. "refused: setup treatments whose values no command reads would all deploy the same stack; pass the file "
      .. "to the deploy with \"${VALUES_OVERRIDE}\" (e.g. [helm, upgrade, --install, NAME, CHART, -f, "
      .. "\"${VALUES_OVERRIDE}\"]), or use method: helm or helmfile - nothing was run\n")
    t.eq(lfs.attributes(s.dir .. "/cluster/calls.log"), nil, "no command ran")
    t.eq(s.workspace(), nil, "no workspace was made")
  end
end)

t.test("5: ${VALUES_OVERRIDE} in a custom command is each setup treatment's own values file", function()
  local s = custom_setup { { "kubectl", "apply", "-f", "deploy.yaml" },
    { "helm", "upgrade", "--install", "ms", "llm-d-modelservice/llm-d-modelservice", "-f", "${VALUES_OVERRIDE}" } }
  local r = s.go { "--dry-run" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  -- (the dry run's workspace is removed when it ends: its path as it printed it)
  local w = r.stdout:match("^Workspace: ([^\n]+)")
  t.ok(w, r.stdout)
  t.eq(s.workspace(), nil, "the dry run leaves no workspace")
  for _, x in ipairs { { "one", "exp-a", 1 }, { "two", "exp-b", 2 } } do
    local file = ("%s/setup-treatment-%s/run-stack/deploy/values-override.yaml"):format(w, x[1])
    -- the command as a dry run prints it: the treatment's own file in place of the placeholder
    t.ok(r.stdout:find(("[%s] [dry-run] helm upgrade --install ms llm-d-modelservice/llm-d-modelservice -f %s")
      :format(x[1], file), 1, true), r.stdout)
  end
  t.ok(not r.stdout:find("${VALUES_OVERRIDE}", 1, true), "no placeholder left")
  -- the files themselves, as the real run writes them: each treatment's own replicas
  r = s.go {}
  w = s.workspace()
  t.ok(w, r.stdout .. r.stderr)
  for _, x in ipairs { { "one", "exp-a", 1 }, { "two", "exp-b", 2 } } do
    local file = ("%s/setup-treatment-%s/run-stack/deploy/values-override.yaml"):format(w, x[1])
    t.eq(yaml.load_file(file), { decode = { replicas = x[3] } })
  end
end)

t.test("5: a plan's values_override no custom command reads, or an unknown placeholder, is a plan error", function()
  local s = custom_setup({ { "kubectl", "apply", "-f", "deploy.yaml" } }, { values_override = { a = 1 } })
  local r = s.go { "--dry-run" }
  t.eq(r.code, 1)
  t.ok(r.stderr:find("plan.yaml: deploy.values_override: no custom command reads it: pass its file with "
    .. "\"${VALUES_OVERRIDE}\"", 1, true), r.stderr)
  s = custom_setup { { "helm", "upgrade", "--install", "ms", "chart", "-f", "${VALUES}" } }
  r = s.go { "--dry-run" }
  t.eq(r.code, 1)
  t.ok(r.stderr:find("plan.yaml: deploy.commands[1]: unknown placeholder ${VALUES} (a custom command may use "
    .. "${VALUES_OVERRIDE}, the values override's file)", 1, true), r.stderr)
  t.eq(s.workspace(), nil, "no workspace was made")
end)

-- Item 15: the HTML report at 1400 px (checked by screenshot, chromium-headless-shell
-- --window-size=1400,...: Headline, Performance Results, Load Curves and Ladder fit without
-- a scroll bar). What a test can hold: the rules that make the tables wrap, and the errors
-- chart's layout read from the SVG gnuplot writes.
local charts = require "llmd.charts"

t.test("15: the report's tables take the page's width and wrap their text, not scroll", function()
  local css = t.read(ROOT .. "/templates/comparison_report.html"):match("<style>(.-)</style>")
  t.ok(css:find(".wide > table { width: 100%;", 1, true), "a table fills its box (so the layout wraps to it)")
  t.ok(css:find("th, td {[^}]*overflow%-wrap: break%-word"), "a long word breaks rather than widen the table")
  -- the minimum widths that pushed the Evidence column out of a 1100 px page: at most 12em
  for sel, em in css:gmatch("([%w%.%s]+){[^}]*min%-width: ([%d%.]+)em") do
    t.ok(tonumber(em) <= 12, sel .. " min-width " .. em .. "em")
  end
end)

t.test("15: a long cause wraps onto two lines beside its bars; longer ones end in ...", function()
  -- by hand: 56 characters a line, broken at spaces
  local cause = "cause not recorded (no per-request errors: run without --save-detailed)"
  t.eq(charts.wrap(cause, 56, 2), { lines = { "cause not recorded (no per-request errors: run without",
    "--save-detailed)" } })
  t.eq(charts.wrap("503 busy", 56, 2), "503 busy")
  t.eq(charts.wrap("aaaa bbbb cccc dddd", 9, 2), { lines = { "aaaa bbbb", "cccc dddd" } }) -- fits exactly
  t.eq(charts.wrap("aaaa bbbb cccc dddd eeee", 9, 2), { lines = { "aaaa bbbb", "cccc d..." } })
  t.eq(charts.wrap("abcdefghijkl", 5, 2), { lines = { "abcde", "fg..." } })
  t.eq(charts.preamble { { "c", { charts.wrap("ab cd", 2, 2), "x" } } },
    [==[array c[2] = ['ab' . "\n" . 'cd', 'x']]==])
end)

t.test("15: errors chart: the whole cause shows, and the legend sits below the x label, inside the picture",
  function()
  local gp = charts.gnuplot()
  t.ok(gp, "gnuplot is installed (scripts/install-deps.sh)")
  local cause = "cause not recorded (no per-request errors: run without --save-detailed)"
  local function s(x, label, errs) return { x = x, label = label, run = { errors = errs } } end
  local c = charts.errors({}, s("a", "vllm-2rep", {}), s("b", "half-failed", { { cause = cause, count = 300 } }))
  local out = t.tmpdir()
  charts.render({ c }, ROOT .. "/templates", out, gp)
  local svg = t.read(out .. "/errors.svg")
  local texts, ys = {}, {}
  for y, text in svg:gmatch('translate%([%d%.]+,([%d%.]+)%)[^>]*>%s*<text>([^<]*)</text>') do
    texts[#texts + 1] = text
    ys[text] = tonumber(y)
  end
  t.ok(ys["cause not recorded (no per-request errors: run without"] and ys["--save-detailed)"], svg)
  t.ok(not svg:find("...", 1, true), "nothing cut")
  local height = tonumber(svg:match('viewBox="0 0 [%d%.]+ ([%d%.]+)"'))
  local xl, ka, kb = ys["failed requests"], ys["vllm-2rep"], ys["half-failed"]
  t.ok(xl and ka and kb and height, table.concat(texts, " | "))
  -- 12 pt text: a legend line at least one text height below the label's baseline, and
  -- its baseline inside the picture with room for its descenders
  t.ok(ka - xl >= 12 and kb - xl >= 12, ("x label at %g, legend at %g and %g"):format(xl, ka, kb))
  t.ok(math.max(ka, kb) + 4 <= height, ("legend at %g, picture %g high"):format(math.max(ka, kb), height))
end)

-- Item 16: treatments.lua's errors in the data read "llmdlua: ..." like the other scripts'
-- (the host's prefix), exit 1; its usage errors name the script, exit 2.
t.test("16: treatments.lua: an error in the data is 'llmdlua: ...', exit 1; a folder not there, exit 2", function()
  local d = t.tmpdir()
  lfs.mkdir(d .. "/e1")
  lfs.mkdir(d .. "/e2")
  local r = run { LLMDLUA, "treatments.lua", "--run", "a=" .. d .. "/e1", "--run", "b=" .. d .. "/e2", "--out",
    d .. "/out" }
  t.eq(r.code, 1)
  t.eq(r.stderr:sub(1, #("llmdlua: treatment a: " .. d .. "/e1: no results")),
    "llmdlua: treatment a: " .. d .. "/e1: no results", r.stderr)
  r = run { LLMDLUA, "treatments.lua", d .. "/e1" }
  t.eq(r.code, 1)
  t.eq(r.stderr, "llmdlua: " .. d .. "/e1: not an experiment workspace (no experiment-state.json)\n")
  r = run { LLMDLUA, "treatments.lua", "--results", d .. "/nope" }
  t.eq(r.code, 2)
  -- (the --results flag named and what was expected, as every script's args.path says: fixc46)
  t.eq(r.stderr, "treatments.lua: --results " .. d .. "/nope: no such folder (expected a folder with one results "
    .. "subfolder per treatment)\n")
end)

t.test("compare.lua: two folders of byte-identical files under two labels are said to be one run copied", function()
  local tmp = t.tmpdir()
  local copy = tmp .. "/copy"
  copy_tree(BASE, copy)
  local n = 0 -- the files of the fixture folder, counted here with find (not by compare.lua)
  for _ in run({ "find", BASE, "-type", "f" }).stdout:gmatch("[^\n]+") do n = n + 1 end
  local r = run { LLMDLUA, "compare.lua", "--a", BASE, "--b", copy, "--a-label", "x", "--b-label", "y", "--parent",
    tmp .. "/p", "--quiet" }
  t.ok(r.ok, r.stderr)
  local want = ("the two runs' results are identical (same files): %s (x) and %s (y) hold the same %d files, byte for "
    .. "byte, so this compares one measurement with itself, not two configurations"):format(BASE, copy, n)
  t.ok(r.stderr:find("compare.lua: warning: " .. want, 1, true), r.stderr)
  local report = t.read(workspaces(tmp .. "/p")[1] .. "/comparison_report.md")
  t.ok(report:find("> **Warning:** " .. want, 1, true), report)
  -- the Summary says it first
  t.ok((summary_of(report):find("Warning: " .. want, 1, true) or 99) <= 2, summary_of(report))
  t.ok(t.read(workspaces(tmp .. "/p")[1] .. "/comparison_report.html"):find("identical (same files)", 1, true))
  -- one byte changed in one file, the same size (whitespace for whitespace: the same
  -- JSON): two measurements, no warning
  local f = run({ "find", copy, "-type", "f", "-name", "*.json" }).stdout:match("[^\n]+")
  local text = t.read(f)
  local same_size = text:gsub(" ", "\t", 1)
  t.ok(same_size ~= text and #same_size == #text)
  t.write(f, same_size)
  r = run { LLMDLUA, "compare.lua", "--a", BASE, "--b", copy, "--a-label", "x", "--b-label", "y", "--parent",
    tmp .. "/s", "--quiet" }
  t.ok(r.ok, r.stderr)
  t.ok(not r.stderr:find("identical", 1, true), r.stderr)
  t.ok(not t.read(workspaces(tmp .. "/s")[1] .. "/comparison_report.md"):find("identical (same files)", 1, true))
  -- one byte added
  t.write(f, text .. " ")
  r = run { LLMDLUA, "compare.lua", "--a", BASE, "--b", copy, "--a-label", "x", "--b-label", "y", "--parent",
    tmp .. "/q", "--quiet" }
  t.ok(r.ok, r.stderr)
  t.ok(not r.stderr:find("identical", 1, true), r.stderr)
  t.ok(not t.read(workspaces(tmp .. "/q")[1] .. "/comparison_report.md"):find("identical (same files)", 1, true))
end)

t.test("compare.lua: the same requests from two harnesses: the banner names the rows compared and why, as the rows do",
  function()
  -- the synthetic vLLM benchmark file, and the same file as inferencemax's result.json (the
  -- old format's "best_of" added, which marks it: FORMATS.md section 4)
  local tmp = t.tmpdir()
  local src = t.fixtures() .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json"
  proc.run { "mkdir", "-p", tmp .. "/vb", tmp .. "/imax" }
  t.write(tmp .. "/vb/run.json", t.read(src))
  local doc = json.read(src)
  doc.best_of = 1
  -- without the per-request E2E latencies (as an older client writes it): its E2E and TPOT
  -- are then the summary's
  doc.latencies = nil
  json.write(tmp .. "/imax/result.json", doc)
  local r = run { LLMDLUA, "compare.lua", "--a", tmp .. "/vb", "--b", tmp .. "/imax", "--b-harness", "inferencemax",
    "--parent", tmp .. "/p", "--quiet" }
  t.ok(r.ok, r.stderr)
  local report = t.read(workspaces(tmp .. "/p")[1] .. "/comparison_report.md")
  local banner = report:match("\n> %*%*([^\n]*)")
  -- not "Not the same workload": the requests are the same, only the harness differs
  t.ok(banner:find("^The same workload, measured by different harnesses%.%*%* Differences: harness: vllm%-benchmark "
    .. "vs inferencemax%. Across the two harnesses only the rows measured the same way are compared: "), banner)
  -- by hand from the rules (README: Performance Results across harnesses): counts and
  -- throughputs are the same quantity whatever the harness; both runs' TTFT comes from the
  -- per-request arrays; both count ITL per streamed chunk; E2E and TPOT of inferencemax come
  -- from its summary, so their formula may differ
  t.ok(banner:find("Request throughput, Output token throughput, Error rate (counts over the same requests); TTFT (both "
    .. "computed from per-request data, by one formula); ITL (token gaps counted the same way by both: counts per "
    .. "streamed chunk); not comparable, and marked so below: End-to-end latency, TPOT (formula may differ: ", 1, true),
    banner)
  -- consistent with the rows: each metric the banner calls comparable has a verdict, each
  -- it calls not comparable is "not comparable" in every row
  local perf = report:match("## Performance Results\n(.-)\n\n")
  for _, m in ipairs { { "Request throughput", true }, { "TTFT", true }, { "ITL", true }, { "Error rate", true },
    { "End-to-end latency", false }, { "TPOT", false } } do
    local n = 0
    for line in perf:gmatch("[^\n]+") do
      if line:find("| " .. m[1], 1, true) == 1 then
        n = n + 1
        t.eq(line:find("| not comparable |", 1, true) == nil, m[2], line)
      end
    end
    t.ok(n > 0, m[1] .. " has rows")
  end
  -- with the per-request latencies both compute every latency the same way: all compared
  doc.latencies = json.read(src).latencies
  json.write(tmp .. "/imax/result.json", doc)
  r = run { LLMDLUA, "compare.lua", "--a", tmp .. "/vb", "--b", tmp .. "/imax", "--b-harness", "inferencemax",
    "--parent", tmp .. "/q", "--quiet" }
  t.ok(r.ok, r.stderr)
  report = t.read(workspaces(tmp .. "/q")[1] .. "/comparison_report.md")
  banner = report:match("\n> %*%*([^\n]*)")
  t.ok(banner:find("Across the two harnesses every row with figures on both sides is measured the same way, so "
    .. "compared: Request throughput, Output token throughput, Error rate (counts over the same requests); End-to-end "
    .. "latency, TTFT, TPOT (both computed from per-request data, by one formula); ITL (", 1, true), banner)
  t.ok(not report:match("## Performance Results\n(.-)\n\n"):find("| not comparable |", 1, true))
end)

-- fixe41: findings of the new-user trial of session 41. Expected values by hand, as written
-- beside each.
-- (Formerly test_fixe41.lua.)
do
  -- The README's fake-cluster try/ setup (tests/fakecluster): a guide, the one-stage
  -- sanity_random template, the plan of two identical runs; {dir, env}. context: the
  -- FAKE_CONTEXT to give (nil: unset, the fake's default).
  local BIN = ROOT .. "/llmdlua" -- (absolute: these run in another folder)
  local function try_setup(context)
    -- (README's guide, with the inference pool, and its one-stage template)
    local s = t.try_setup { env = { FAKE_CONTEXT = context or false, KUBERNETES_SERVICE_HOST = false,
      KUBERNETES_SERVICE_PORT = false } }
    s.env.PATH = ROOT .. ":" .. s.env.PATH -- (llmdlua on the PATH, as README's shell has it)
    return s
  end
  local function llmdlua(s, argv, envx)
    local env = {}
    for k, v in pairs(s.env) do env[k] = v end
    for k, v in pairs(envx or {}) do env[k] = v end
    local a = { BIN }
    for _, x in ipairs(argv) do a[#a + 1] = x end
    return proc.run(a, { env = env, timeout = 300, cwd = s.dir })
  end

  -- The fake kubectl answers as one with a configured kubeconfig (a context, its server),
  -- so the README's fake-cluster resume works as written; FAKE_CONTEXT="" is no context
  t.test("fake kubectl: a current context and its server by default, none when FAKE_CONTEXT is empty", function()
    local s = try_setup()
    local r = llmdlua(s, { ROOT .. "/tests/fakecluster/fake.lua", "kubectl", "config", "current-context" })
    t.eq({ r.code, r.stdout }, { 0, "kind-fake\n" }, r.stderr)
    r = llmdlua(s, { ROOT .. "/tests/fakecluster/fake.lua", "kubectl", "config", "view", "--minify", "-o",
      "jsonpath={.clusters[0].cluster.server}" })
    t.eq({ r.code, r.stdout }, { 0, "https://api.kind-fake.example.com:6443" }, r.stderr)
    r = llmdlua(s, { ROOT .. "/tests/fakecluster/fake.lua", "kubectl", "config", "current-context" },
      { FAKE_CONTEXT = "" })
    t.eq({ r.code, r.stderr }, { 1, "error: current-context is not set\n" })
  end)

  -- README: FAKE_FAIL_ONCE=smoke compare.lua --plan plan.yaml --yes --quiet (exit 1), then
  -- compare.lua --resume "$(ls -d llm-d-comparison-* | tail -n 1)" --yes --quiet (exit 0). With
  -- --quiet the progress lines are not printed; the failure and the way on are.
  t.test("README's fake-cluster failure and resume work as written, --quiet printing no progress", function()
    local s = try_setup()
    local r = llmdlua(s, { "compare.lua", "--plan", "plan.yaml", "--yes", "--quiet" }, { FAKE_FAIL_ONCE = "smoke" })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    local w = t.workspaces(s.dir)[1]
    t.ok(r.stdout:find("Run A failed at step 50 (smoke_test)", 1, true), r.stdout)
    -- (the README's comment on the command: exit 1's one line on stderr, newuser50 F3)
    t.ok(r.stderr:find("^compare%.lua: run A %(baseline%) failed at step 50 %(smoke_test%): [^\n]*\n$"), r.stderr)
    t.ok(r.stdout:find("To continue after fixing the cause: llmdlua compare.lua --resume " .. w .. "\n", 1, true),
      r.stdout)
    t.ok(r.stdout:find("To tear down without continuing:   llmdlua compare.lua --resume " .. w .. " --step 90\n", 1,
      true), r.stdout)
    for _, progress in ipairs { "Starting Run A", "waiting for the stack", "smoke test through a port-forward",
      "Namespace: " } do
      t.ok(not r.stdout:find(progress, 1, true), progress .. " printed with --quiet:\n" .. r.stdout)
    end
    r = llmdlua(s, { "compare.lua", "--resume", w, "--yes", "--quiet" })
    t.eq(r.code, 0, r.stdout .. r.stderr)
    t.eq(r.stdout, ("Comparison report written to: %s/comparison_report.md\nHTML report with charts: "
      .. "%s/comparison_report.html\n"):format(w, w))
  end)

  -- With no kube context the workspace records no cluster and a resume needs
  -- --use-current-context: the commands the failed run suggests carry it, and work as given
  t.test("a failed run of a workspace that records no cluster suggests --resume W --use-current-context", function()
    local s = try_setup("")
    local r = llmdlua(s, { "compare.lua", "--plan", "plan.yaml", "--yes", "--quiet" }, { FAKE_FAIL_ONCE = "smoke" })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    local w = t.workspaces(s.dir)[1]
    t.ok(r.stdout:find("To continue after fixing the cause: llmdlua compare.lua --resume " .. w
      .. " --use-current-context\n", 1, true), r.stdout)
    t.ok(r.stdout:find("To tear down without continuing:   llmdlua compare.lua --resume " .. w
      .. " --step 90 --use-current-context\n", 1, true), r.stdout)
    r = llmdlua(s, { "compare.lua", "--resume", w, "--use-current-context", "--yes", "--quiet" })
    t.eq(r.code, 0, r.stdout .. r.stderr)
  end)
end

-- Items session 32 noticed and left (task fixleft4): treatments.lua's max sustained
-- throughput and capacity of a treatment holding two workloads, what Ctrl-C in analyze.lua
-- leaves, a plan's relative paths, the stratified test of an old workspace, bench.sh's
-- inputs generated by two people at once, and the CSV's capacity bound.
--
-- Expected values: by hand from the fixture files (each reading in a comment beside its
-- test), or /usr/bin/python3 where a computation is named.
-- (Formerly test_fixleft4.lua.)
do

  -- A gnuplot on PATH that says it started (its pid into $FL4_MARK, and added to the list of
  -- every one started, $FL4_MARK.pids) and then draws nothing for a minute: analyze.lua waits
  -- for it with the runs' files re-written and the report's not yet, so that a Ctrl-C lands
  -- there every time, whatever the load.
  local function slow_gnuplot()
    local bin = t.tmpdir()
    t.write(bin .. "/gnuplot", '#!/bin/sh\necho $$ >> "$FL4_MARK.pids"\necho $$ > "$FL4_MARK.tmp"\n'
      .. 'mv "$FL4_MARK.tmp" "$FL4_MARK"\nexec sleep 60\n')
    proc.chmod(bin .. "/gnuplot", "755")
    return bin
  end

  t.test("fl4-2: Ctrl-C while analyze.lua re-generates a report says which files are this run's and which the last "
    .. "report's", function()
    local cmp = require "llmd.comparison"
    local w, r = t.compare { "--a", ROOT .. "/tests/fixtures/kubecon-na-2025_vllm", "--b",
      ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching" }
    t.eq(r.code, 0, r.stderr)
    local report_before = t.read(w .. "/comparison_report.md")
    local json_before = t.read(w .. "/comparison.json")
    local state_before = t.read(w .. "/run-a/run_state.json")
    local tmp = t.tmpdir()
    local mark, err = tmp .. "/mark", tmp .. "/err"
    -- another SLO than the saved one: the results are read again (each run's state and model
    -- re-written) before the charts are drawn, and the report's files after them
    local p = proc.spawn({ LLMDLUA, "analyze.lua", w, "--quiet", "--slo", "ttft_p90_ms=150" },
      { env = { PATH = slow_gnuplot() .. ":" .. os.getenv("PATH"), FL4_MARK = mark }, stdout = "null",
        stderr = { file = err } })
    for _ = 1, 1200 do
      if lfs.attributes(mark) or p:poll() then break end
      proc.run { "sleep", "0.05" }
    end
    t.ok(lfs.attributes(mark), "gnuplot was started")
    proc.run { "kill", "-INT", tostring(p:pid()) }
    local st = p:wait(60)
    t.eq(st and st.code, 130, t.read(err))
    local said = t.read(err)
    -- what it says is what the files are: the runs' states re-written (the new SLO's goodput),
    -- the report's files as they were, byte for byte
    t.ok(t.read(w .. "/run-a/run_state.json") ~= state_before, "run-a's state re-written")
    t.ok(t.read(w .. "/run-a/run_state.json"):find("TTFT p90 ≤ 150", 1, true), "with the new SLO")
    t.eq(t.read(w .. "/comparison.json"), json_before)
    t.eq(t.read(w .. "/comparison_report.md"), report_before)
    -- (the charts' data are put in place only once every chart is drawn: none is re-written
    -- while gnuplot runs)
    local head = ("analyze.lua: interrupted while re-generating the report; the workspace %s now mixes two reports: "
      .. "re-written by this run: run-a/run_model.json, run-a/run_state.json, run-b/run_model.json, "
      .. "run-b/run_state.json; "):format(w)
    t.eq(said:sub(1, #head), head)
    t.ok(said:find("; still the last report's: comparison_report.md, comparison_report.html, comparison.json, "
      .. "comparison.csv, run_comparison.sh, ", 1, true), said)
    -- with the run's --slo: without it analyze.lua takes whichever comparison.json's SLOs are in
    -- place (here the last report's), and the 150 ms asked for would silently go (newuser35 #15)
    local tail = "do not read them as one report.\nTo make them one again: llmdlua analyze.lua " .. w
      .. " --slo ttft_p90_ms=150\n"
    t.eq(said:sub(-#tail), tail)
    t.eq(select(2, said:gsub("\n", "")), 2, said)
    -- every gnuplot it started is gone with it, reaped before it exited: also one a Ctrl-C
    -- landing inside proc.spawn lost the handle of (it used to outlive analyze.lua, and to be
    -- the one that wrote the mark last: the flaky "gnuplot stopped" of session 35)
    for pid in t.read(mark .. ".pids"):gmatch("%d+") do
      t.ok(not proc.run({ "kill", "-0", pid }).ok, "gnuplot " .. pid .. " stopped")
    end
    -- run again, the workspace is one report
    local again = proc.run { LLMDLUA, "analyze.lua", w, "--quiet", "--slo", "ttft_p90_ms=150" }
    t.eq(again.code, 0, again.stderr)
    -- the other two states: nothing re-written yet (the snapshot unchanged), and all of it
    -- re-written (stopped while printing the report)
    local before = cmp.report_snapshot(w)
    t.eq(cmp.interrupted_analyze(w, before), ("analyze.lua: interrupted before it re-wrote anything; the workspace %s "
      .. "is as it was (comparison_report.md, comparison_report.html, comparison.json, comparison.csv, "
      .. "run_comparison.sh, run-a/run_model.json, run-a/run_state.json, run-b/run_model.json, run-b/run_state.json, "
      .. "%d files in charts/, the last report's), its results untouched.\nTo re-generate the report: llmdlua "
      .. "analyze.lua %s"):format(w, (function()
        local n = 0
        for f in lfs.dir(w .. "/charts") do if not f:match("^%.") then n = n + 1 end end
        return n
      end)(), w))
    t.eq(cmp.interrupted_analyze(w, before, true), ("analyze.lua: interrupted after the report was re-generated; "
      .. "nothing is lost: the workspace %s holds comparison_report.md, comparison_report.html, comparison.json, "
      .. "comparison.csv, run_comparison.sh.\nTo see the report: %s/comparison_report.md, or llmdlua analyze.lua %s "
      .. "(re-generates and prints it)"):format(w, w, w))
  end)

  t.test("fl4-3: a plan's relative paths are read from the plan's folder, not the current one (compare.lua and "
    .. "experiment.lua)", function()
    local d = t.tmpdir()
    t.try_guide(d)
    -- every path relative: the guide, the template, where the workspace goes
    local run_yaml = "    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: Qwen/Qwen3-0.6B}\n"
      .. "    benchmark: {template: ./template.yaml, harness: inference-perf}\n"
    t.write(d .. "/plan.yaml", "namespace: llm-d-try\nparent: out\ntimeouts: {poll: 0.05}\nruns:\n  a:\n"
      .. "    label: baseline\n" .. run_yaml .. "  b:\n    label: candidate\n" .. run_yaml)
    -- started from another folder, which holds none of them
    local elsewhere = t.tmpdir()
    local env = t.fake_env(d .. "/cluster", { FAKE_CONTEXT = false })
    local r = proc.run({ LLMDLUA, "compare.lua", "--plan", d .. "/plan.yaml", "--yes", "--quiet" },
      { env = env, cwd = elsewhere, timeout = 180 })
    t.eq(r.code, 0, r.stdout .. r.stderr)
    -- the workspace in the plan's out/, none in the current folder
    local w = t.workspaces(d .. "/out")[1]
    t.ok(w, "a workspace in " .. d .. "/out")
    t.eq(#t.workspaces(elsewhere), 0)
    -- helmfile ran in the plan's guide/ (the fake cluster logs each call's folder)
    local seen = 0
    for _, c in ipairs(t.jsonl(d .. "/cluster/calls.log")) do
      if c.tool == "helmfile" then
        t.eq(c.cwd, d .. "/guide")
        seen = seen + 1
      end
    end
    t.ok(seen > 0, "helmfile was called")
    -- the template was the plan's (its stack_name)
    t.ok(t.read(w .. "/run-a/benchmark/config.yaml"):find("stack_name: try", 1, true), "the plan's template")
    -- the workspace's copy names them absolute (a resume from anywhere finds them)
    local saved = yaml.load_file(w .. "/plan.yaml")
    t.eq({ saved.runs.a.deploy.guide_dir, saved.runs.b.benchmark.template, saved.parent },
      { d .. "/guide", d .. "/template.yaml", d .. "/out" })
    -- a path that is not there is said as the plan's folder gives it
    t.write(d .. "/bad.yaml", t.read(d .. "/plan.yaml"):gsub("guide_dir: guide", "guide_dir: guides"))
    r = proc.run({ LLMDLUA, "compare.lua", "--plan", d .. "/bad.yaml", "--yes", "--quiet", "--dry-run" },
      { env = env, cwd = elsewhere, timeout = 60 })
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.ok(r.stderr:find(d .. "/bad.yaml: runs.a.deploy.guide_dir: " .. d .. "/guides: no such folder", 1, true), r.stderr)
    -- absolute paths as they are
    local cluster = require "llmd.cluster"
    local a = { deploy = { guide_dir = "/abs/g" }, existing = { results = "../r" }, benchmark = { template = "~/t.yaml" } }
    local p = cluster.plan_paths_from_file({ parent = "/abs/out", bins = { helm = "helm", oc = "bin/oc" },
      runs = { a = a } }, "/x/y/plan.yaml", { a })
    -- (a bare tool name is looked up in PATH, not a path)
    -- (~/ the home folder, as README's example plan writes the guide)
    t.eq({ p.parent, p.bins.helm, p.bins.oc, a.deploy.guide_dir, a.existing.results, a.benchmark.template },
      { "/abs/out", "helm", "/x/y/bin/oc", "/abs/g", "/x/y/../r", os.getenv("HOME"):gsub("/+$", "") .. "/t.yaml" })
    -- experiment.lua's plan: the same rule (guide_dir, template at its top level)
    t.write(d .. "/xplan.yaml", "namespaces: [exp-a]\ndeploy: {method: helmfile, guide_dir: guide, environment: istio, "
      .. "model: Qwen/Qwen3-0.6B}\nbenchmark: {template: template.yaml, harness: inference-perf}\n")
    t.ok(lfs.currentdir() ~= d, "the test runs elsewhere")
    local xp = require("llmd.experiment_run").load_plan(d .. "/xplan.yaml")
    t.eq({ xp.deploy.guide_dir, xp.benchmark.template }, { d .. "/guide", d .. "/template.yaml" })
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
  local HERE = t.here()

  local find = t.contains

  t.test("nu31-4: identical runs are flagged through --plan, --resume and analyze.lua, as through --a/--b", function()
    -- the fake cluster's benchmark copies the same fixture folder for both runs (FAKE_RESULTS
    -- BASE twice): every figure of every stage equal, so the report must say it compares one run
    -- with itself, whichever path wrote it (the plan of README's "Trying the workflow")
    local root = proc.run({ "realpath", HERE .. "/../.." }).stdout:gsub("%s+$", "")
    local s = t.try_setup { timeouts = "{poll: 0.05}", env = { FAKE_RESULTS = root .. "/tests/fixtures/kubecon-na-2025_vllm:"
      .. root .. "/tests/fixtures/kubecon-na-2025_vllm", FAKE_FAIL_ONCE = "smoke", FAKE_CONTEXT = "kind-try" } }
    local d, env = s.dir, s.env
    local function llmdlua(args)
      local argv = { root .. "/llmdlua" }
      for _, a in ipairs(args) do argv[#argv + 1] = a end
      return proc.run(argv, { env = env, cwd = d, timeout = 120 })
    end
    local r = llmdlua { "compare.lua", "--plan", "plan.yaml", "--yes", "--quiet" }
    t.eq(r.code, 1, r.stdout .. r.stderr) -- run A's smoke test failed once
    local w = t.workspaces(d)[1]
    env.FAKE_FAIL_ONCE = false
    r = llmdlua { "compare.lua", "--resume", w, "--yes", "--quiet" }
    t.eq(r.code, 0, r.stdout .. r.stderr)
    find(r.stderr, "compare.lua: warning: ", "--resume")
    find(r.stderr, "hold the same results", "--resume")
    local cj = json.read(w .. "/comparison.json")
    t.ok(type(cj.identical) == "string" and cj.identical:find("(baseline)", 1, true), tostring(cj.identical))
    find(t.read(w .. "/comparison_report.md"), "> **Warning:** " .. cj.identical, "report")
    -- analyze.lua re-generating the report runs the same check
    r = llmdlua { "analyze.lua", w, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    find(r.stderr, "analyze.lua: warning: ", "analyze.lua")
    t.eq(json.read(w .. "/comparison.json").identical, cj.identical)
    -- two different runs through the plan (a fresh fake cluster: its n-th benchmark copies
    -- the n-th folder): nothing said
    t.mkdir(d .. "/cluster2")
    env.FAKE_CLUSTER = d .. "/cluster2"
    env.FAKE_RESULTS = root .. "/tests/fixtures/kubecon-na-2025_vllm:" .. root
      .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"
    r = llmdlua { "compare.lua", "--plan", "plan.yaml", "--yes", "--quiet" }
    t.eq(r.code, 0, r.stdout .. r.stderr)
    t.ok(not r.stderr:find("warning", 1, true), r.stderr)
    t.eq(json.read(t.workspaces(d)[2] .. "/comparison.json").identical, false)
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
  local FX = ROOT .. "/tests/fixtures"
  local CHUNK = FX .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching"

  local lacks = t.lacks

  t.test("nu32-9: README's failure-and-resume example compares two different runs, as a real cluster's would", function()
    -- the README's example: a fresh FAKE_CLUSTER before the failure
    local readme = t.read(ROOT .. "/README.md")
    local block = readme:match("To see a failure and a resume.-\n```sh\n(.-)\n```")
    t.ok(block, "the example")
    local fresh = 'export FAKE_CLUSTER="$(mktemp -d)"'
    t.eq(block:sub(1, #fresh), fresh, block)
    -- and the fake itself: in ONE fake cluster, the comparison, then a failure and a resume
    -- (its benchmarks 3 and 4 in the namespace) still get two different results folders (on
    -- main both got the last one, and the report compared a run with itself)
    local s = t.try_setup { gaie = false, timeouts = "{poll: 0.05}", env = { FAKE_CONTEXT = "kind-try" } }
    local d, env = s.dir, s.env
    local function llmdlua(argv)
      local cmd = { LLMDLUA }
      for _, a in ipairs(argv) do cmd[#cmd + 1] = a end
      return proc.run(cmd, { env = env, cwd = d, timeout = 180 })
    end
    local r = llmdlua { "compare.lua", "--plan", "plan.yaml", "--yes", "--quiet" }
    t.eq(r.code, 0, r.stdout .. r.stderr)
    env.FAKE_FAIL_ONCE = "smoke"
    r = llmdlua { "compare.lua", "--plan", "plan.yaml", "--yes", "--quiet" }
    t.eq(r.code, 1, r.stdout .. r.stderr)
    env.FAKE_FAIL_ONCE = false
    local w = t.workspaces(d)[2]
    r = llmdlua { "compare.lua", "--resume", w, "--yes", "--quiet" }
    t.eq(r.code, 0, r.stdout .. r.stderr)
    lacks(r.stderr, "hold the same results", "--resume")
    t.eq(json.read(w .. "/comparison.json").identical, false)
    -- A got the first folder again (the namespace's 3rd benchmark), B the second (its 4th):
    -- the template's one stage (1 req/s) is each folder's recorded 1 req/s stage, its latencies
    -- as recorded (the fake runs the config's workload from the recorded stages: fake.lua)
    local function stage0(x)
      local found
      t.walk(w .. "/run-" .. x .. "/results", function(p, _, mode)
        if mode == "file" and p:match("/stage_0_lifecycle_metrics%.json$") then found = p end
      end)
      return found and json.read(found).successes.latency
    end
    t.eq(stage0("a"), json.read(BASE .. "/stage_0_lifecycle_metrics.json").successes.latency, "run A")
    t.eq(stage0("b"), json.read(CHUNK .. "/stage_0_lifecycle_metrics.json").successes.latency, "run B")
  end)
end
