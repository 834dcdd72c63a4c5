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
local function summary_of(report) return report:match("\n## Summary\n(.-)\n## ") or "" end

-- Item 6: a truncated file is what --tolerant says it covers ("empty, truncated, a stage
-- missing"): left out with the parse error's position in the data checks, never a silent drop.
t.test("6: --tolerant leaves a truncated inference-perf stage file out, naming the parse error's position",
  function()
  local tmp = t.tmpdir()
  local ip = tmp .. "/trunc"
  copy_tree(BASE, ip)
  local victim = ip .. "/stage_3_lifecycle_metrics.json"
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
  t.eq(r.stderr, "treatments.lua: " .. d .. "/nope: no such folder\n")
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
