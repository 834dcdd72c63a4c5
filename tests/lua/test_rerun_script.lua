-- Re-running a comparison from its workspace's run_comparison.sh, on the fake cluster
-- (tests/fakecluster): a baseline run (plain vLLM behind the Service compare.lua's step 40
-- makes) is re-run to a finished benchmark by its uncommented lines, and a stop part-way
-- says what the script left deployed and how to remove it. Expected texts by hand, from
-- the template's lines (templates/run_comparison.sh) and what the fake's helmfile installs.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"
local rr = require "rerunlib"

local ROOT = t.root()

local setup = rr.setup

-- the workspace's script with lines uncommented (each must be there once, commented),
-- written to a copy of the workspace and run from / ; returns proc.run's result
local function rerun(s, w, lines, envx)
  local copy = s.dir .. "/copy-" .. tostring(math.random(1, 1 << 30))
  t.copy_tree(w, copy)
  t.write(copy .. "/run_comparison.sh", rr.uncomment(t.read(copy .. "/run_comparison.sh"), lines))
  local r = rr.run_script(s, copy .. "/run_comparison.sh", envx)
  -- (the script's own lines on stderr: helmfile, which its deploy line runs, logs there too)
  r.stderr, r.helmfile_log = t.without_helmfile_log(r.stderr)
  return r, copy
end

-- what the script's last line (analyze.lua "$COMPARISON_DIR") says of the script it runs from,
-- edited (its lines uncommented): kept, the new one beside it (newuserd51 5)
local function kept(copy)
  local p = copy .. "/run_comparison.sh"
  return ("analyze.lua: %s was edited since llmdlua wrote it: kept as it is; the script as llmdlua writes it now is "
    .. "%s.new (compare them, e.g. diff %s %s.new)\n"):format(p, p, p, p)
end

local ns_state = rr.ns_state

local DEPLOY_A_TAIL, SERVICE_A, BENCH_A, TEARDOWN_A = rr.DEPLOY_A_TAIL, rr.SERVICE_A, rr.BENCH_A, rr.TEARDOWN_A

-- (newuser48 F3) the Service step 40 made (kubectl apply -f -) had no line in the script,
-- though its teardown line deleted it: uncommented, run A's benchmark could not reach the
-- pods ("Could not resolve host: llm-d-baseline-model-server...") and the stop left ms-vllm
-- deployed without a word.
t.test("run_comparison.sh re-runs a baseline run: its Service line, then the benchmark, then the teardown", function()
  local s = setup()
  local r = t.fake_compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local sh = t.read(w .. "/run_comparison.sh")
  local deploy_a = "deploy a " .. s.dir .. "/guide-vllm" .. DEPLOY_A_TAIL
  -- in the order they ran: deploy, the Service, the benchmark
  local i1 = sh:find("\n# " .. deploy_a .. "\n", 1, true)
  local i2 = sh:find("\n# " .. SERVICE_A .. "\n", 1, true)
  local i3 = sh:find("\n# " .. BENCH_A .. "\n", 1, true)
  t.ok(i1 and i2 and i3 and i1 < i2 and i2 < i3, sh)
  -- the manifest kept is the Service step 40 applied (the fake's calls.log holds its stdin)
  local applied
  for _, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    if c.tool == "kubectl" and table.concat(c.args, " ") == "-n llm-d-try create -f - -o json"
      and tostring(c.stdin):find("kind: Service", 1, true) then
      applied = c.stdin
    end
  end
  t.eq(t.read(w .. "/run-a/deploy/baseline-service.yaml"), applied)

  local lines = { deploy_a, SERVICE_A, BENCH_A, TEARDOWN_A[1], TEARDOWN_A[2] }
  local copy
  r, copy = rerun(s, w, lines)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(r.stderr, kept(copy))
  local dest = r.stdout:match("run a: results of the re%-run in (%S+)/results; compare it with run a: ")
  t.ok(dest and dest:find(copy .. "/reruns/run-a-", 1, true) == 1, r.stdout)
  t.ok(dest and lfs.attributes(dest .. "/results", "mode") == "directory", dest)
  t.ok(r.stdout:find("run a: Service llm-d-baseline-model-server removed (where still there)", 1, true), r.stdout)
  -- the Service created from the copy's manifest, scoped to the namespace
  local seen = false
  for _, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    seen = seen or (c.tool == "kubectl"
      and table.concat(c.args, " ") == "-n llm-d-try create -f " .. copy .. "/run-a/deploy/baseline-service.yaml")
  end
  t.ok(seen, "the Service line's kubectl create")
  local ns = ns_state(s)
  t.eq(ns.releases["ms-vllm"], nil, "ms-vllm torn down")
  t.eq(ns.services["llm-d-baseline-model-server"], nil, "Service torn down")
end)

t.test("run_comparison.sh: a stop says what this script left deployed and the teardown that removes it", function()
  local s = setup()
  t.eq(t.fake_compare(s).code, 0)
  local w = t.workspaces(s.dir)[1]
  local deploy_a = "deploy a " .. s.dir .. "/guide-vllm" .. DEPLOY_A_TAIL
  -- the Service line left commented: the benchmark cannot reach the pods and fails
  local r, copy = rerun(s, w, { deploy_a, BENCH_A, TEARDOWN_A[1], TEARDOWN_A[2] })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, "run_comparison.sh: run a: the benchmark command failed (exit 1): run_only.sh -c " .. copy
    .. "/run-a/benchmark/config.yaml; stopping here\n"
    .. "run_comparison.sh: stopped with run a left deployed in namespace llm-d-try by this script (release "
    .. "ms-vllm); remove it with run a's teardown:\n"
    .. "    helm uninstall ms-vllm --ignore-not-found -n llm-d-try\n")
  t.ok(ns_state(s).releases["ms-vllm"], "ms-vllm still deployed, as said")
  -- the teardown it prints removes it
  for _, c in ipairs { { "helm", "uninstall", "ms-vllm", "--ignore-not-found", "-n", "llm-d-try" },
    { "kubectl", "-n", "llm-d-try", "delete", "service", "llm-d-baseline-model-server", "--ignore-not-found" } } do
    local env = {}
    for k, v in pairs(s.env) do env[k] = v end
    t.eq(proc.run(c, { env = env }).code, 0)
  end
  t.eq(ns_state(s).releases["ms-vllm"], nil)

  -- someone else's Service of that name: the Service line refuses it, and the stop names
  -- the release the script did deploy
  local k = proc.run({ "kubectl", "-n", "llm-d-try", "apply", "-f", "-" }, { env = s.env,
    stdin = "apiVersion: v1\nkind: Service\nmetadata: {name: llm-d-baseline-model-server}\nspec: {selector: "
      .. "{app: other}}\n" })
  t.eq(k.code, 0, k.stderr)
  r, copy = rerun(s, w, { deploy_a, SERVICE_A, BENCH_A })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, "run_comparison.sh: run a: Service llm-d-baseline-model-server already exists in namespace "
    .. "llm-d-try and was not made by this comparison (not recorded in " .. copy .. "/run-a/deployed.json or "
    .. "run-a/rerun_deployed.json as made and not torn down since): it is not this script's to use; not creating it (kubectl -n llm-d-try create -f " .. copy
    .. "/run-a/deploy/baseline-service.yaml)\n"
    .. "run_comparison.sh: stopped with run a left deployed in namespace llm-d-try by this script (release "
    .. "ms-vllm); remove it with run a's teardown:\n"
    .. "    helm uninstall ms-vllm --ignore-not-found -n llm-d-try\n")
  t.eq(ns_state(s).services["llm-d-baseline-model-server"].selector, { app = "other" }, "theirs unchanged")
end)

-- (fixc49) The script's deploy lines were followed straight by the Service and benchmark
-- lines: a re-run benchmarked pods still starting, where compare.lua's step 30 had waited for
-- them. After a run's deploy lines comes wait_ready X: this run's pods Ready (not those there
-- before its deploy) and the routes accepted, within the plan's timeouts.ready, a pod in
-- ImagePullBackOff said at once. Expected texts: the template's lines, by hand.
t.test("run_comparison.sh waits for the deployed pods Ready before the Service and benchmark lines", function()
  local s = setup()
  t.write(s.plan, (t.read(s.plan):gsub("timeouts: {poll: 0.05, backoff: 0.01}",
    "timeouts: {poll: 0.05, backoff: 0.01, ready: 1}")))
  t.eq(t.fake_compare(s).code, 0)
  local w = t.workspaces(s.dir)[1]
  local sh = t.read(w .. "/run_comparison.sh")
  local deploy_a = "deploy a " .. s.dir .. "/guide-vllm" .. DEPLOY_A_TAIL
  -- right after the deploy line, before the Service line (run B: before its benchmark)
  t.contains(sh, "\n# " .. deploy_a .. "\n# wait_ready a\n# " .. SERVICE_A .. "\n")
  local ib, iw, ibench = sh:find("\n# deploy b ", 1, true), sh:find("\n# wait_ready b\n", 1, true),
    sh:find("\n# benchmark b ", 1, true)
  t.ok(ib and iw and ibench and ib < iw and iw < ibench, sh)
  t.contains(sh, "\nREADY_TIMEOUT=1\nREADY_POLL=0.05\n")
  -- healthy: it says the stack is ready, then the Service and benchmark run
  local r = rerun(s, w, { deploy_a, "wait_ready a", SERVICE_A, BENCH_A, TEARDOWN_A[1], TEARDOWN_A[2] })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("run a: the stack is ready (pods Ready 2/2)\n", 1, true), r.stdout)
  -- the pods never Ready: it stops at the wait, naming them, before the Service line
  r = rerun(s, w, { deploy_a, "wait_ready a", SERVICE_A, BENCH_A }, { FAKE_FAIL = "notready" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local first = r.stderr:match("^[^\n]*")
  t.ok(first:match("^run_comparison%.sh: run a: the stack was not ready within 1 s %(not ready: ms%-vllm%-[%w%-]+, "
    .. "ms%-vllm%-[%w%-]+%); stopping here$"), r.stderr)
  t.ok(r.stdout:find("run a: pods Ready 0/2\n", 1, true), r.stdout)
  t.ok(not r.stdout:find("Verifying model", 1, true), "no benchmark ran")
  for _, c in ipairs { { "helm", "uninstall", "ms-vllm", "--ignore-not-found", "-n", "llm-d-try" } } do
    t.eq(proc.run(c, { env = s.env }).code, 0)
  end
  -- a pod that cannot start: said at once
  r = rerun(s, w, { deploy_a, "wait_ready a", SERVICE_A }, { FAKE_FAIL = "imagepull" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stderr:match("^run_comparison%.sh: run a: pod ms%-vllm%-[%w%-]+ is in ImagePullBackOff %(see kubectl "
    .. "%-n llm%-d%-try describe pod ms%-vllm%-[%w%-]+%); stopping here\n"), r.stderr)
end)

-- newuser50 F5: a re-run landed in run-a/rerun-ID/, inside the run folder, so the README's
-- `compare.lua --a WS/run-a --b WS/run-a/rerun-ID` failed ("holds 2 inference-perf runs"),
-- and the re-run had no run_state.json: B's workload and model unknown ("like for like not
-- verified"), and the plan's SLO not carried. The script's lines run against the fake, then
-- the comparison exactly as the script's line says (and the README): like for like, with
-- the plan's SLO, labels told apart.
t.test("a re-run from run_comparison.sh compares with its run as the script and the README say", function()
  local s = setup()
  -- the plan with an SLO (README: slo: in a plan, a mapping like --slo's)
  t.write(s.plan, "slo: {ttft_p90_ms: 200}\n" .. t.read(s.plan))
  local r = t.fake_compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local deploy_a = "deploy a " .. s.dir .. "/guide-vllm" .. DEPLOY_A_TAIL
  -- (fixc51) the line said `llmdlua compare.lua ...`, a bare name that need not be on PATH nor be
  -- the llmdlua the script runs ($LLMDLUA): it names that one, one quoted word. Here an llmdlua
  -- off PATH, in a folder whose name holds a space and a quote (a link to this one).
  local bin = s.dir .. "/my tools, Bob's"
  t.mkdir(bin)
  t.ok(lfs.link(ROOT .. "/llmdlua", bin .. "/llmdlua", true), "link")
  local copy
  r, copy = rerun(s, w, { deploy_a, "wait_ready a", SERVICE_A, BENCH_A, TEARDOWN_A[1], TEARDOWN_A[2] },
    { LLMDLUA = bin .. "/llmdlua" })
  t.eq({ r.code, r.stderr }, { 0, kept(copy) }, r.stdout)
  local dest, cmd = r.stdout:match("run a: results of the re%-run in (%S+)/results; compare it with run a: ([^\n]*)\n")
  t.ok(dest, r.stdout)
  t.ok(dest:match("^" .. copy:gsub("%p", "%%%0") .. "/reruns/run%-a%-%d+$"), dest)
  -- (by hand: each word in '...', a ' in it written '\'')
  t.eq(cmd, "'" .. s.dir .. "/my tools, Bob'\\''s/llmdlua' compare.lua --a '" .. copy .. "/run-a' --b '" .. dest .. "'")
  local a, b = copy .. "/run-a", dest
  -- its record: run A's configuration, its own label and time, the plan's SLO
  local st = json.read(dest .. "/run_state.json")
  local orig = json.read(copy .. "/run-a/run_state.json")
  t.eq(st.label, "vllm-service-rerun-" .. dest:match("(%d+)$"))
  t.eq({ st.stack, st.benchmark, st.baseline }, { orig.stack, orig.benchmark, orig.baseline })
  t.eq(st.slo, { ttft_p90_ms = 200 })
  -- (fixc51 6) run A's own record holds the plan's SLO it was held to (it had none: only the
  -- script's fall-back to plan.yaml gave the re-run one, and compare.lua --a WS/run-a --b
  -- WS/run-b compared the plan's runs with no SLO)
  t.eq({ orig.slo, orig.slo_by }, { { ttft_p90_ms = 200 }, "plan" })
  t.eq({ st.metrics, st.results_path }, { nil, dest .. "/results" })
  -- run-a/ holds run A's results alone: compared by the line as printed, pasted into a shell in
  -- the folder the user is in, llmdlua not on its PATH
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.PATH = "/usr/bin:/bin"
  t.ok(proc.run({ "sh", "-c", "command -v llmdlua" }, { env = env }).code ~= 0, "llmdlua on PATH")
  r = proc.run({ "sh", "-c", cmd .. " --quiet" }, { env = env, cwd = s.dir, timeout = 120 })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(not r.stderr:find("holds 2", 1, true), r.stderr)
  local ws2 = r.stdout:match("Workspace: (%S+)\n")
  local md = t.read(ws2 .. "/comparison_report.md")
  t.ok(not md:find("like for like not verified", 1, true), md)
  t.ok(md:find("| Workload | sanity_random | sanity_random |", 1, true), md)
  t.ok(md:find("vllm-service-rerun-", 1, true), "B's label")
  -- (fixt50, newuser50c N2) the fake's re-run returns run A's recording again: one measurement
  -- twice, and the advice is not "give the other configuration's results" (there is none: the
  -- user compared a re-run on purpose) but the re-run's own results
  local verdict = md:match("%*%*Verdict:%*%*[^\n]*")
  t.contains(verdict, "so this compares one measurement with itself: both recorded the same configuration (a "
    .. "re-run), and only the re-run's own results, measured again, show its run-to-run variation.")
  t.lacks(md, "give the other")
  t.contains(r.stderr, "; both recorded the same configuration (a re-run), so only the re-run's own results, "
    .. "measured again, show its run-to-run variation\n")
  -- (the plan's SLO, recorded by run A and carried by the re-run's record; since bb85fc6f the
  -- line says where from)
  t.contains(md, "\nSLO: TTFT p90 ≤ 200.0 ms (from vllm-service's record (" .. a .. "/run_state.json) and "
    .. st.label .. "'s record (" .. b .. "/run_state.json), which state the same).")
end)

-- (fixt50, newuser50c N1) a run and its re-run with other results named a winner with no A/A
-- caveat ("... the order holds whatever the bound"). The re-run's run_state.json records run
-- A's configuration (its commands, stack, benchmark, baseline), as a plan's A/A pair: the
-- Verdict says a difference is run-to-run variation. The re-run gets the other recording
-- (FAKE_RESULTS reversed: the third benchmark reads the chunked-prefill one). Run B against
-- run A (baseline against gateway, other commands) is no A/A check.
t.test("a run compared with its re-run is an A/A check, known from the recorded configuration", function()
  local s = setup()
  local r = t.fake_compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local deploy_a = "deploy a " .. s.dir .. "/guide-vllm" .. DEPLOY_A_TAIL
  local first, second = s.env.FAKE_RESULTS:match("^([^:]+):([^:]+)$")
  local copy
  r, copy = rerun(s, w, { deploy_a, "wait_ready a", SERVICE_A, BENCH_A, TEARDOWN_A[1], TEARDOWN_A[2] },
    { FAKE_RESULTS = second .. ":" .. first })
  t.eq({ r.code, r.stderr }, { 0, kept(copy) }, r.stdout)
  local a, b = r.stdout:match("compare it with run a: '[^\n]*/llmdlua' compare%.lua %-%-a '(%S+)' %-%-b '(%S+)'\n")
  -- the re-run's label is its own, so the label cannot be what tells: renamed, it still is one
  local stp = b .. "/run_state.json"
  local st = json.read(stp)
  st.label = "tuesday"
  json.write(stp, st)
  r = proc.run({ ROOT .. "/llmdlua", "compare.lua", "--a", a, "--b", b, "--quiet" }, { env = s.env, cwd = s.dir,
    timeout = 120 })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local md = t.read(r.stdout:match("Workspace: (%S+)\n") .. "/comparison_report.md")
  local verdict = md:match("%*%*Verdict:%*%*[^\n]*")
  t.contains(verdict, "vllm-service and tuesday recorded the same configuration (the same deploy and benchmark "
    .. "commands, stack and benchmark: one is a re-run of the other), so this is an A/A check: a difference is "
    .. "run-to-run variation, not a configuration's")
  t.lacks(md, "give the other")
  -- the plan's runs a and b, folder to folder: other configurations, no A/A note
  r = proc.run({ ROOT .. "/llmdlua", "compare.lua", "--a", w .. "/run-a", "--b", w .. "/run-b", "--quiet" },
    { env = s.env, cwd = s.dir, timeout = 120 })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.lacks(t.read(r.stdout:match("Workspace: (%S+)\n") .. "/comparison_report.md"), "A/A check")
end)

-- (harden50 7) wait_ready counted every pod not there before the script's deploy lines: another
-- team's Deployment starting during the re-run (helm-stamped for their release) was waited
-- for and counted as run A's. It follows each pod's chain of owners, as step 30 does, to a
-- release or object run A deployed (run-a/deployed.json). The fake's FAKE_CONCURRENT_DEPLOYMENTS
-- starts their Deployment (two serving pods, Ready) during the re-run's helmfile apply.
t.test("run_comparison.sh's wait_ready does not count another team's pods started during the re-run", function()
  local s = setup()
  t.eq(t.fake_compare(s).code, 0)
  local w = t.workspaces(s.dir)[1]
  local deploy_a = "deploy a " .. s.dir .. "/guide-vllm" .. DEPLOY_A_TAIL
  local r = rerun(s, w, { deploy_a, "wait_ready a" }, { FAKE_CONCURRENT_DEPLOYMENTS = "their-decode@their-team",
    FAKE_CONCURRENT_AT = "helmfile" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local theirs = 0
  for n in pairs(ns_state(s).pods) do if n:find("^their%-decode%-") then theirs = theirs + 1 end end
  t.eq(theirs, 2, "their pods started during the re-run")
  t.ok(r.stdout:find("run a: the stack is ready (pods Ready 2/2)\n", 1, true), r.stdout)
end)

-- (fixt50, newuser50c N8) a prose line ("# Teardown, as it ran (through teardown() above ...")
-- sat between a run's benchmark line and its teardown lines: uncommenting the run's block, as
-- a user does, gave `Syntax error: "(" unexpected` after the deploy and benchmark had run. Each
-- run's block (the lines under its "every line of this block is a command" header, up to the
-- blank line) uncommented whole must be shell: sh -n passes, and run against the fake it
-- re-runs that run and tears it down.
t.test("each run's command block of run_comparison.sh, uncommented whole, is shell and runs", function()
  local s = setup()
  t.eq(t.fake_compare(s).code, 0)
  local w = t.workspaces(s.dir)[1]
  local sh = t.read(w .. "/run_comparison.sh")
  for _, x in ipairs { "a", "b" } do
    local copy = s.dir .. "/block-" .. x
    t.copy_tree(w, copy)
    -- the run's section, its block's header, then the block: the lines up to the blank one
    local section = sh:find("\n# ---- Run " .. x:upper() .. ": ", 1, true)
    t.ok(section, "run " .. x .. "'s section")
    local _, hdr = sh:find("every line of this block is a command, to uncomment as a whole or line by line:\n",
      section, true)
    t.ok(hdr, "run " .. x .. "'s block header")
    local stop = sh:find("\n\n", hdr, true)
    local block = sh:sub(hdr + 1, stop)
    local n = 0
    local open = block:gsub("[^\n]+", function(l)
      n = n + 1
      t.eq(l:sub(1, 2), "# ", l)
      return l:sub(3)
    end)
    -- deploy, wait_ready, (a's Service), benchmark, its teardown lines (a: its release and Service;
    -- b: one line for the guide's releases)
    t.eq(n, x == "a" and 6 or 4, block)
    for l in open:gmatch("[^\n]+") do
      t.ok(l:match("^deploy ") or l:match("^wait_ready ") or l:match("^service ") or l:match("^benchmark ")
        or l:match("^teardown "), l)
    end
    t.write(copy .. "/run_comparison.sh", sh:sub(1, hdr) .. open .. sh:sub(stop + 1))
    local r = proc.run({ "sh", "-n", copy .. "/run_comparison.sh" })
    t.eq({ r.code, r.stderr }, { 0, "" }, x)
    local env = { LLMDLUA = ROOT .. "/llmdlua" }
    for k, v in pairs(s.env) do env[k] = v end
    r = proc.run({ "sh", copy .. "/run_comparison.sh" }, { env = env, timeout = 120, cwd = "/" })
    r.stderr = t.without_helmfile_log(r.stderr)
    t.eq({ r.code, r.stderr }, { 0, kept(copy) }, r.stdout)
    t.contains(r.stdout, "run " .. x .. ": results of the re-run in " .. copy .. "/reruns/run-" .. x .. "-")
    t.eq(next(ns_state(s).releases or {}), nil, "run " .. x .. " torn down")
  end
end)

-- (fixb55 #1, newuser55) the script deployed, benchmarked and tore down on whatever context
-- kubectl pointed at (FAKE_CONTEXT=prod-east against a workspace made in kind-bench), and the
-- re-run's run_state.json, recording no cluster but run A's hardware, compared with run A as
-- an A/A check. The script now refuses another context before any cluster command, as
-- compare.lua --resume does (the line: cluster.check_identity's, with the script's override,
-- by hand); with LLMDLUA_USE_CURRENT_CONTEXT=1 it runs, the re-run records the cluster it ran
-- on (and no hardware of run A's), and compare.lua says "different clusters", no A/A check.
t.test("run_comparison.sh on another kube context: refused unless overridden, then recorded and said", function()
  local s = setup()
  local r = t.fake_compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local lines = { rr.deploy_a(s), "wait_ready a", SERVICE_A, BENCH_A, TEARDOWN_A[1], TEARDOWN_A[2] }
  local before = #t.jsonl(s.cluster .. "/calls.log")
  local copy
  r, copy = rerun(s, w, lines, { FAKE_CONTEXT = "prod-east" })
  t.eq({ r.code, r.stderr }, { 1, "run_comparison.sh: not acting on namespace llm-d-try: " .. copy .. " was made in "
    .. "kube context kind-bench, the current context is prod-east: switch back first (kubectl config use-context "
    .. "kind-bench), or run the script with LLMDLUA_USE_CURRENT_CONTEXT=1 to act on the current one all the same (the "
    .. "re-run's run_state.json then records it, and compare.lua says the two runs ran on different clusters)\n" },
    r.stdout)
  -- (only the context reads: nothing deployed, benchmarked, locked or torn down)
  for i, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    local l = c.tool .. " " .. table.concat(c.args, " ")
    if i > before then t.ok(l:find("^kubectl %-n llm%-d%-try config ") or l:find("^kubectl config "), l) end
  end
  r, copy = rerun(s, w, lines, { FAKE_CONTEXT = "prod-east", LLMDLUA_USE_CURRENT_CONTEXT = "1" })
  t.eq({ r.code, r.stderr }, { 0, kept(copy) }, r.stdout)
  local a, b = r.stdout:match("compare it with run a: '[^\n]*/llmdlua' compare%.lua %-%-a '(%S+)' %-%-b '(%S+)'\n")
  local st = json.read(b .. "/run_state.json")
  local saved = json.read(copy .. "/cluster.json")
  t.eq(saved.context, "kind-bench")
  t.eq({ st.cluster.context, st.cluster.namespace, st.cluster.override, st.cluster.workspace_cluster },
    { "prod-east", "llm-d-try", "LLMDLUA_USE_CURRENT_CONTEXT=1", { context = "kind-bench", server = saved.server } })
  t.ok(type(st.cluster.server) == "string" and st.cluster.server ~= saved.server, tostring(st.cluster.server))
  t.eq({ st.stack.hardware, st.stack.gpus }, { "unknown", "unknown" })
  r = proc.run({ ROOT .. "/llmdlua", "compare.lua", "--a", a, "--b", b, "--quiet" }, { env = s.env, cwd = s.dir,
    timeout = 120 })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local differ = ("vllm-service and %s ran on different clusters (vllm-service: kube context kind-bench (server %s), "
    .. "recorded in %s/cluster.json; %s: kube context prod-east (server %s), recorded in %s/run_state.json): a "
    .. "difference between them is the clusters' as much as the configurations', not run-to-run variation"):format(
    st.label, saved.server, copy, st.label, st.cluster.server, b)
  t.contains(r.stderr, "compare.lua: warning: " .. differ .. "\n")
  local md = t.read(r.stdout:match("Workspace: (%S+)\n") .. "/comparison_report.md")
  t.lacks(md, "A/A check")
  t.lacks(md, "a re-run")
  t.contains(md, "ran on different clusters")
end)

-- harden56 #4: a script written before the cluster check (fixb55 #1: the template then had no
-- stamp_cluster line, all else the same for this) still takes its lock through
-- rerun_script.hold, so with this llmdlua it is refused on another context as a new script is;
-- but with LLMDLUA_USE_CURRENT_CONTEXT=1 it ran, and its re-run's run_state.json recorded no
-- cluster: compare.lua took a re-run on another cluster as run-to-run variation. The override
-- is refused for such a script, with the command that writes it anew (texts by hand).
t.test("an older run_comparison.sh (no cluster record) on another context: refused, override too", function()
  local s = setup()
  local r = t.fake_compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local text = t.read(w .. "/run_comparison.sh")
  local old, n = text:gsub("\n[^\n]*require%(\"llmd%.rerun_script\"%)%.stamp_cluster%([^\n]*", "")
  t.eq(n, 1, "the one stamp_cluster line taken out")
  t.write(w .. "/run_comparison.sh", old)
  local lines = { rr.deploy_a(s), "wait_ready a", SERVICE_A, BENCH_A, TEARDOWN_A[1], TEARDOWN_A[2] }
  local before = #t.jsonl(s.cluster .. "/calls.log")
  local copy
  r, copy = rerun(s, w, lines, { FAKE_CONTEXT = "prod-east" })
  t.eq({ r.code, r.stderr:match("^[^\n]*") }, { 1, "run_comparison.sh: not acting on namespace llm-d-try: " .. copy
    .. " was made in kube context kind-bench, the current context is prod-east: switch back first (kubectl config "
    .. "use-context kind-bench), or run the script with LLMDLUA_USE_CURRENT_CONTEXT=1 to act on the current one all "
    .. "the same (the re-run's run_state.json then records it, and compare.lua says the two runs ran on different "
    .. "clusters)" }, r.stdout)
  r, copy = rerun(s, w, lines, { FAKE_CONTEXT = "prod-east", LLMDLUA_USE_CURRENT_CONTEXT = "1" })
  local sh = require("llmd.template").helpers.sh
  t.eq({ r.code, r.stderr }, { 1, "run_comparison.sh: not acting on namespace llm-d-try: " .. copy
    .. "/run_comparison.sh was written by an older llmdlua: it does not record in a re-run's run_state.json the "
    .. "cluster the re-run ran on, so compare.lua would take a re-run here (" .. copy .. " was made in kube context "
    .. "kind-bench, the current context is prod-east) as run-to-run variation; LLMDLUA_USE_CURRENT_CONTEXT=1 is "
    .. "refused for it. Write the script anew first: llmdlua analyze.lua " .. sh(copy) .. " (a script you edited is "
    .. "kept, and the new one written beside it as run_comparison.sh.new)\n" }, r.stdout)
  -- (only the context reads: nothing deployed, benchmarked, locked or torn down)
  for i, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    local l = c.tool .. " " .. table.concat(c.args, " ")
    if i > before then t.ok(l:find("^kubectl %-n llm%-d%-try config ") or l:find("^kubectl config "), l) end
  end
  -- what it says to do: analyze.lua writes the script beside it (edited: .new), which records the cluster
  r = proc.run({ ROOT .. "/llmdlua", "analyze.lua", copy, "--quiet" }, { env = s.env, cwd = s.dir, timeout = 120 })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.contains(t.read(copy .. "/run_comparison.sh.new"), "stamp_cluster")
end)
