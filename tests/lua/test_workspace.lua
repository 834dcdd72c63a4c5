-- compare.lua's workspace as a user handles it (session 32; formerly test_wsfix.lua): a copied or moved
-- workspace's run_comparison.sh works on the copy; analyze.lua re-writes the script as
-- compare.lua wrote it (teardown, PVC, configuration); --resume of a complete workspace says
-- so; the report step says it writes only what it then writes; no workspace nested in
-- another; a Ctrl-C after the report says the workspace is complete.
--
-- Expected texts are written out by hand from what each case must say; the files compared
-- are the workspace's own (before and after), byte for byte.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"

local ROOT = proc.run({ "realpath", t.here() .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local BASE = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm"
local TREAT = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm_chunking_and_prefix_caching"

local function sh(v) return require("llmd.template").helpers.sh(v) end

local find = t.contains

local function real(p) return (proc.realpath(p)) end

-- Every file below dir (rel path -> bytes), links as "-> target".
local function snapshot(dir)
  local out = {}
  t.walk(dir, function(p, rel, mode)
    if mode == "file" then
      out[rel] = t.read(p)
    elseif mode == "link" then
      out[rel] = "-> " .. tostring(lfs.symlinkattributes(p, "target"))
    end
  end)
  return out
end

local function same_tree(a, b, what)
  local diffs = {}
  for k, v in pairs(a) do if b[k] ~= v then diffs[#diffs + 1] = k end end
  for k in pairs(b) do if a[k] == nil then diffs[#diffs + 1] = k end end
  table.sort(diffs)
  t.eq(diffs, {}, what)
end

-- A fake cluster and a plan as README's "try it" section writes them: a helmfile guide of
-- three releases, the inference-perf template, runs a and b. parent: the plan's parent
-- (default: the scratch folder itself).
local function setup(parent) return t.try_setup { parent = parent or "." } end

-- compare.lua without --quiet (which leaves out the progress lines these tests read): its
-- progress lines
local compare = t.fake_compare

-- 1. ---------------------------------------------------------------------------------------

t.test("wsfix-1: a copied or moved workspace's run_comparison.sh re-generates the copy's report, not the original's",
  function()
  local tmp = real(t.tmpdir())
  local parent = tmp .. "/made here 'q' \"d\""
  local r = proc.run { LLMDLUA, "compare.lua", "--a", BASE, "--a-label", "vllm", "--b", TREAT, "--b-label",
    "chunked", "--parent", parent, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  local w = t.workspaces(parent)[1]
  local before = snapshot(w)
  -- the copy, under another folder whose name needs quoting too
  local copy = tmp .. "/the copy's \"place\" $x/ws"
  t.mkdir(copy:match("^(.*)/[^/]*$"))
  t.copy_tree(w, copy)
  -- a line in the copy's own report template, so that its re-generated report shows it
  local tpl = copy .. "/templates/comparison_report.md"
  t.write(tpl, t.read(tpl) .. "\nMARK-OF-THE-COPY\n")
  t.ok(not t.read(copy .. "/comparison_report.md"):find("MARK-OF-THE-COPY", 1, true))
  -- run from another folder, as a user would: sh PATH
  r = proc.run({ "sh", copy .. "/run_comparison.sh" }, { cwd = "/", env = { LLMDLUA = LLMDLUA } })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  find(r.stdout, "Comparison report written to: " .. copy .. "/comparison_report.md\n", "the copy's report")
  -- the copy's report changed (its template's mark), and names the copy, never the original
  local md = t.read(copy .. "/comparison_report.md")
  find(md, "MARK-OF-THE-COPY", "the copy's report re-generated")
  find(md, "\nWorkspace: `" .. copy .. "`\n", "the copy's path")
  for _, f in ipairs { "comparison_report.md", "comparison_report.html", "comparison.json", "run_comparison.sh" } do
    t.ok(not t.read(copy .. "/" .. f):find(w, 1, true), f .. " names the original workspace")
  end
  -- the original: not a byte changed
  same_tree(before, snapshot(w), "the original workspace is as it was")
  -- moved (the original folder gone): its script still works where it now lies
  local moved = tmp .. "/moved"
  t.ok(os.rename(w, moved))
  r = proc.run({ "sh", "-c", "./run_comparison.sh" }, { cwd = moved, env = { LLMDLUA = LLMDLUA } })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  find(r.stdout, "Comparison report written to: " .. moved .. "/comparison_report.md\n", "the moved one's report")
  t.eq(lfs.attributes(w), nil, "nothing made where the workspace was")
  -- the script alone, out of its workspace: one line, nothing run
  t.copy(moved .. "/run_comparison.sh", tmp .. "/alone/run_comparison.sh")
  r = proc.run({ "sh", tmp .. "/alone/run_comparison.sh" }, { env = { LLMDLUA = LLMDLUA } })
  t.eq(r.code, 1)
  t.eq(r.stdout, "")
  t.eq(r.stderr, ("run_comparison.sh: %s/alone holds no run-a/ and run-b/: run the script as a file in its workspace "
    .. "(sh WORKSPACE/run_comparison.sh), not sourced or copied out of it\n"):format(tmp))
end)

-- 2. ---------------------------------------------------------------------------------------

t.test("wsfix-2: analyze.lua re-writes run_comparison.sh as compare.lua --plan wrote it: teardown, PVC, gateway, "
  .. "configuration", function()
  local s = setup()
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local script = t.read(w .. "/run_comparison.sh")
  -- what compare.lua wrote (by hand, from the fake cluster's run: README's "try it")
  find(script, "\nexport BENCHMARK_PVC=llmd-benchmark-results\n", "PVC")
  find(script, "\nexport GATEWAY_SVC=infra-try-inference-gateway-istio\n", "gateway")
  find(script, "\nexport NAMESPACE=llm-d-try\n", "namespace")
  find(script, "\n# teardown a 'releases gaie-try, infra-try, ms-try' helm uninstall gaie-try infra-try ms-try "
    .. "--ignore-not-found -n llm-d-try\n", "teardown a")
  find(script, "\n# teardown b 'releases gaie-try, infra-try, ms-try' helm uninstall gaie-try infra-try ms-try "
    .. "--ignore-not-found -n llm-d-try\n", "teardown b")
  find(script, "\n# Benchmark configuration:\n# endpoint:\n#   stack_name: try\n", "configuration")
  -- the benchmark's config by the script's folder: a copy runs its own
  find(script, "\n# benchmark a run_only.sh -c \"$COMPARISON_DIR\"/run-a/benchmark/config.yaml\n", "benchmark a")
  find(script, "\n\"$LLMDLUA\" analyze.lua \"$COMPARISON_DIR\"\n", "last line")
  r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  local again = t.read(w .. "/run_comparison.sh")
  -- (session 31: analyze.lua wrote it without these)
  find(again, "\n# teardown a 'releases gaie-try, infra-try, ms-try' helm uninstall ", "teardown a after analyze.lua")
  find(again, "\nexport BENCHMARK_PVC=llmd-benchmark-results\n", "PVC after analyze.lua")
  -- the same script, but the line that says who wrote it and when
  local function body(text)
    return (text:gsub("\n# Written by llmdlua [%w.]+ on [^\n]*\n", "\n# Written by ...\n"))
  end
  t.eq(body(again), body(script))
  find(again, "\n# Written by llmdlua analyze.lua on ", "who wrote it")
  -- a copy of the plan's workspace: analyze.lua there names the copy in the commands too
  local copy = real(t.tmpdir()) .. "/copy of ws"
  t.copy_tree(w, copy)
  r = proc.run { LLMDLUA, "analyze.lua", copy, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  local cs = t.read(copy .. "/run_comparison.sh")
  -- (the same but for the folder: its results are the copy's)
  local function where(text) return (text:gsub("\n# Workspace: [^\n]*", "\n# Workspace: ...")) end
  t.eq(where(body(cs)), where((body(script):gsub(w:gsub("%p", "%%%0"), (copy:gsub("%%", "%%%%"))))))
  t.ok(not cs:find(w, 1, true), cs)
  -- the report's Results row: the copy's results
  find(t.read(copy .. "/comparison_report.md"), "| Results | " .. copy .. "/run-a/results | " .. copy
    .. "/run-b/results |", "results row")
  -- the same after the copy's metrics are re-extracted and saved, and read again from them
  for _, args in ipairs { { "--reextract" }, {} } do
    r = proc.run { LLMDLUA, "analyze.lua", copy, "--quiet", table.unpack(args) }
    t.eq(r.code, 0, r.stderr)
    t.eq(where(body(t.read(copy .. "/run_comparison.sh"))), where(body(cs)), table.concat(args, " "))
    find(t.read(copy .. "/comparison_report.md"), "| Results | " .. copy .. "/run-a/results | ", "results row")
  end
end)

-- 3. ---------------------------------------------------------------------------------------

t.test("wsfix-3: --resume of a complete workspace says it is complete and what re-generates the report", function()
  local s = setup()
  local r = compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local calls = t.read(s.cluster .. "/calls.log")
  local steps_before = t.read(w .. "/steps.json")
  r = compare(s, { "--resume", w })
  t.eq(r.code, 0, r.stderr)
  t.eq(r.stdout, ("compare.lua: --resume %s: this comparison is complete: every step is done and its report is "
    .. "written (%s/comparison_report.md); nothing to resume, nothing was run.\n"
    .. "To re-generate its report from the saved results: llmdlua analyze.lua %s\n"):format(w, w, w))
  t.eq(r.stderr, "")
  -- nothing ran: no cluster call, no step recorded
  t.eq(t.read(s.cluster .. "/calls.log"), calls)
  t.eq(t.read(w .. "/steps.json"), steps_before)
  -- the command it gives works
  r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  -- a path that needs quoting is quoted in the command
  local odd = s.dir .. "/a b"
  t.ok(os.rename(w, odd))
  r = compare(s, { "--resume", odd })
  t.eq(r.code, 0, r.stderr)
  find(r.stdout, "To re-generate its report from the saved results: llmdlua analyze.lua '" .. odd .. "'\n")
end)

-- 4. ---------------------------------------------------------------------------------------

t.test("wsfix-4: the report step says 'Writing the comparison report.' only for a report it then writes", function()
  local s = setup()
  -- run A fails: the report step fails without claiming to write one
  local r = compare(s, nil, { FAKE_FAIL_ONCE = "smoke" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(not r.stdout:find("Writing the comparison report.", 1, true), r.stdout)
  find(r.stdout, "\n[100] report: FAILED - run a (baseline) failed at step 50 (smoke_test): nothing to compare until "
    .. "it completes; no report written\n")
  -- a report that fails while it is written says so after the announcement: both runs done
  -- (steps 0-90), then run A's results taken away and the report step alone
  local s2 = setup()
  r = compare(s2, { "--plan", s2.plan, "--step", "0-90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s2.dir)[1]
  t.ok(not r.stdout:find("Writing the comparison report.", 1, true), r.stdout)
  proc.run { "rm", "-rf", w .. "/run-a/results" }
  t.mkdir(w .. "/run-a/results")
  r = compare(s2, { "--resume", w, "--step", "100" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local said = r.stdout:match("Writing the comparison report%.\n(.*)")
  t.ok(said, r.stdout)
  t.ok((said or ""):find("^%[100%] report: FAILED %- failed while writing the comparison report, so there is none: "
    .. "run a %(baseline%): "), said)
  t.eq(lfs.attributes(w .. "/comparison_report.md"), nil, "no report")
end)

-- 5. ---------------------------------------------------------------------------------------

t.test("wsfix-5: a new workspace inside an existing one is refused, naming both; nothing is made", function()
  local tmp = real(t.tmpdir())
  local r = proc.run { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--parent", tmp, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  local w = t.workspaces(tmp)[1]
  local before = snapshot(w)
  local function refused(r2, what)
    t.eq(r2.code, 2, r2.stdout .. r2.stderr)
    t.eq(r2.stderr, ("compare.lua: %s the comparison workspace %s: a new workspace there would be nested in it; "
      .. "give a folder outside it (e.g. --parent %s)\n"):format(what, w, tmp))
  end
  -- --parent below it (not there yet), the workspace itself, the current folder inside it
  r = proc.run { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--parent", w .. "/run-a/sub", "--quiet" }
  refused(r, "--parent " .. w .. "/run-a/sub is inside")
  r = proc.run { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--parent", w .. "/", "--quiet" }
  refused(r, "--parent " .. w .. "/ is")
  r = proc.run({ LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--quiet" }, { cwd = w .. "/run-b" })
  refused(r, "the current folder is inside")
  -- a plan's parent: inside it too
  local s = setup(w .. "/nested")
  r = compare(s)
  refused(r, "the plan's parent: " .. w .. "/nested is inside")
  r = compare(s, { "--plan", s.plan, "--parent", w })
  refused(r, "--parent " .. w .. " is")
  t.eq(lfs.attributes(s.cluster .. "/calls.log"), nil, "no cluster call")
  same_tree(before, snapshot(w), "nothing made in the workspace")
  -- beside it is fine
  r = proc.run { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--parent", tmp .. "/beside", "--quiet" }
  t.eq(r.code, 0, r.stderr)
end)

-- A workspace inside a results folder it reads changed that folder (README: the sources are
-- never modified), and the next compare of it stopped on the copies ("choose one": audit48
-- S9b). Refused by real path, as a nested workspace is; the folder unchanged, nothing made.
-- The message is the rule's, by hand.
t.test("compare: a workspace inside a results folder it reads is refused; the folder unchanged", function()
  local tmp = real(t.tmpdir())
  proc.run { "cp", "-r", BASE, tmp .. "/A" }
  proc.run { "cp", "-r", TREAT, tmp .. "/B" }
  local before = snapshot(tmp .. "/A")
  local function refused(r, what, x, dir)
    t.eq({ r.code, r.stdout, r.stderr }, { 2, "", ("compare.lua: %s the results folder --%s %s: the workspace would "
      .. "be made among the results it reads; give a folder outside it (e.g. --parent %s)\n"):format(what, x, dir,
      sh(tmp)) })
  end
  refused(proc.run { LLMDLUA, "compare.lua", "--a", tmp .. "/A", "--b", tmp .. "/B", "--parent", tmp .. "/A/new/sub",
    "--quiet" }, "--parent " .. tmp .. "/A/new/sub is inside", "a", tmp .. "/A")
  refused(proc.run { LLMDLUA, "compare.lua", "--a", tmp .. "/A", "--b", tmp .. "/B", "--parent", tmp .. "/B/",
    "--quiet" }, "--parent " .. tmp .. "/B/ is", "b", tmp .. "/B")
  proc.run { "ln", "-s", tmp .. "/A", tmp .. "/linkA" }
  refused(proc.run({ LLMDLUA, "compare.lua", "--a", "../linkA", "--b", tmp .. "/B", "--quiet" }, { cwd = tmp .. "/A" }),
    "the current folder is", "a", "../linkA")
  same_tree(before, snapshot(tmp .. "/A"), "the results folder unchanged")
  -- beside them is fine
  local r = proc.run { LLMDLUA, "compare.lua", "--a", tmp .. "/A", "--b", tmp .. "/B", "--parent", tmp .. "/ws",
    "--quiet" }
  t.eq(r.code, 0, r.stderr)
end)

-- 6. ---------------------------------------------------------------------------------------

-- Runs argv with its stdout into a pipe of 4 KiB, read until the workspace under parent is
-- complete (report written, no INCOMPLETE), then not read any more: the process blocks
-- printing the report. Then Ctrl-C (SIGINT). {code, blocked (it was still running),
-- stderr}. (python3's os.pipe and F_SETPIPE_SZ: no llmdlua code runs the harness.)
local HOLD = [=[
import fcntl, glob, json, os, signal, subprocess, sys, time
parent, err_path, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
with open(err_path, "wb") as err:
    p = subprocess.Popen(argv, stdout=w, stderr=err)
os.close(w)
os.set_blocking(r, False)
def complete():
    for d in glob.glob(os.path.join(glob.escape(parent), "llm-d-comparison-*")):
        if os.path.exists(d + "/comparison_report.md") and not os.path.exists(d + "/INCOMPLETE"):
            return True
    return False
t0 = time.time()
while not complete() and p.poll() is None and time.time() - t0 < 120:
    try:
        os.read(r, 512)
    except BlockingIOError:
        time.sleep(0.01)
time.sleep(1.0)
blocked = p.poll() is None
if blocked:
    p.send_signal(signal.SIGINT)
os.set_blocking(r, True)
while os.read(r, 65536):
    pass
print(json.dumps({"code": p.wait(), "blocked": blocked}))
]=]

local function hold(parent, argv, env)
  local err = parent .. "/.stderr"
  local a = { "python3", "-c", HOLD, parent, err }
  for _, v in ipairs(argv) do a[#a + 1] = v end
  local r = proc.run(a, { env = env, timeout = 180 })
  t.eq(r.code, 0, r.stderr)
  local res = json.decode(r.stdout)
  res.stderr = t.read(err)
  return res
end

local function complete_text(w)
  return ("compare.lua: interrupted after the comparison was complete; nothing is lost: the workspace %s holds "
    .. "comparison_report.md, comparison_report.html, comparison.json, comparison.csv, run_comparison.sh.\n"
    .. "To see the report: %s/comparison_report.md, or llmdlua analyze.lua %s (re-generates and prints it)\n")
    :format(w, w, sh(w))
end

t.test("wsfix-6: Ctrl-C after the report is written: exit 130, saying the workspace is complete and kept", function()
  -- compare.lua --a/--b, printing the report
  local parent = real(t.tmpdir())
  local r = hold(parent, { LLMDLUA, "compare.lua", "--a", BASE, "--b", TREAT, "--parent", parent })
  t.ok(r.blocked, "compare.lua was still printing when interrupted")
  t.eq(r.code, 130, r.stderr)
  local w = t.workspaces(parent)[1]
  t.ok(w, "the workspace is kept")
  t.eq(r.stderr, complete_text(w))
  t.eq(lfs.attributes(w .. "/INCOMPLETE"), nil)
  local a = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq(a.code, 0, a.stderr)
  -- compare.lua --plan, the same
  local s = setup()
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  r = hold(s.dir, { LLMDLUA, "compare.lua", "--yes", "--plan", s.plan }, env)
  t.ok(r.blocked, "compare.lua --plan was still printing when interrupted")
  t.eq(r.code, 130, r.stderr)
  w = t.workspaces(s.dir)[1]
  t.eq(r.stderr, complete_text(w))
  -- and a resume then says it is complete
  local again = compare(s, { "--resume", w })
  t.eq(again.code, 0, again.stderr)
  find(again.stdout, "this comparison is complete")
end)

t.test("compare.lua --resume of an experiment's workspace is refused, pointing to experiment.lua --resume", function()
  -- an experiment.lua workspace (its plan.yaml and steps.json, as a compare.lua --plan one
  -- has): one setup treatment, failed at its smoke test on the fake cluster, kept to resume
  local yaml = require "llmd.yaml"
  local d = real(t.tmpdir())
  t.sim_guide(d)
  t.write(d .. "/experiment.yaml", "experiment:\n  name: edge\n  harness: inference-perf\ntreatments:\n"
    .. "  - name: rate1\n    load.stages.0.rate: 1\n")
  t.write(d .. "/plan.yaml", yaml.dump {
    namespaces = { "exp-a" }, parallel = 1, parent = d,
    timeouts = { ready = 3, poll = 0.05, smoke = 60, backoff = 0.01 },
    deploy = { method = "helmfile", guide_dir = d .. "/guide", environment = "istio", model = "Qwen/Qwen3-0.6B",
      gateway = "istio" },
    benchmark = { template = d .. "/template.yaml", harness = "inference-perf", attempts = 1 },
  })
  local env = t.fake_env(d .. "/cluster", { FAKE_FAIL = "smoke" })
  local r = proc.run({ LLMDLUA, "experiment.lua", d .. "/experiment.yaml", "--plan", d .. "/plan.yaml", "--quiet" },
    { env = env, cwd = d })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local w
  for n in lfs.dir(d) do if n:match("^llm%-d%-experiment%-edge%-") then w = d .. "/" .. n end end
  t.ok(w and lfs.attributes(w .. "/steps.json") and lfs.attributes(w .. "/plan.yaml"), "the experiment's workspace")
  local before, calls = snapshot(w), #t.read(d .. "/cluster/calls.log")
  r = proc.run({ LLMDLUA, "compare.lua", "--yes", "--resume", w }, { env = env, cwd = d })
  -- one line, exit 2: what the folder is, and the command that resumes it (its own copy of
  -- the experiment's file); nothing written into it, nothing asked of the cluster
  t.eq({ r.code, r.stdout, r.stderr }, { 2, "", ("compare.lua: --resume %s: an experiment's workspace "
    .. "(experiment.lua's: experiment.yaml), not a compare.lua --plan one; resume it with: llmdlua experiment.lua "
    .. "%s/experiment.yaml --resume %s\n"):format(w, w, w) })
  same_tree(before, snapshot(w), "the experiment's workspace as it was")
  t.eq(#t.read(d .. "/cluster/calls.log"), calls, "no cluster call")
end)

-- fixd46 4: a workspace keeps its own templates (made by an earlier version, or edited), with
-- no version marker: analyze.lua draws with them as they are, never rewrites them, and says in
-- one line which differ from this version's and how to take this version's (delete them).
t.test("analyze.lua names the workspace templates that differ from this version's, and leaves them", function()
  local w, r = t.compare { "--a", BASE, "--a-label", "A", "--b", TREAT, "--b-label", "B" }
  t.eq(r.code, 0, r.stderr)
  r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  t.lacks(r.stdout, "Note:") -- a fresh copy: nothing to say
  local gp = w .. "/templates/charts/latency_throughput.gp"
  local old = "# an older copy\n" .. t.read(gp)
  t.write(gp, old)
  r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  local _, n = r.stdout:gsub("Note: ", "")
  t.eq(n, 1, r.stdout)
  find(r.stdout, "Note: 1 of the workspace's templates differs from this llmdlua's (charts/latency_throughput.gp): a "
    .. "copy made by an earlier version")
  find(r.stdout, "delete it from " .. w .. "/templates (your edits go with it) and run `llmdlua analyze.lua " .. w
    .. "` again")
  t.eq(t.read(gp), old, "the user's file is not rewritten")
  -- deleted: this version's copied in, and nothing more to say
  os.remove(gp)
  r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq(r.code, 0, r.stderr)
  t.lacks(r.stdout, "Note:")
  t.eq(t.read(gp), t.read(ROOT .. "/templates/charts/latency_throughput.gp"))
end)

-- fixb47 2: analyze.lua on a workspace it cannot write (another user's, chmod -w, a read-only
-- mount) said only "cannot lock the workspace": it now says how to analyze it anyway, a
-- writable copy, and the command it gives works. Two ways a workspace is read-only: the whole
-- tree chmod -w (its lock file too: the lock is what fails), and the folder alone (its lock
-- file still writable: the folder is). Root writes whatever the modes say, so as root the
-- analyses run as nobody (setpriv) in a workspace nobody owns; without setpriv, skipped.
t.test("analyze.lua on a read-only workspace says to analyze a writable copy, and that command works", function()
  local as = t.unprivileged()
  if not as then return end
  local function run(argv)
    local full = {}
    for _, a in ipairs(as) do full[#full + 1] = a end
    for _, a in ipairs(argv) do full[#full + 1] = a end
    return proc.run(full)
  end
  local w, r = t.compare { "--a", BASE, "--a-label", "A", "--b", TREAT, "--b-label", "B" }
  t.eq(r.code, 0, r.stderr)
  -- compare.lua removed its lock file as it ended (fixg51): one as a holder killed by -9 leaves
  -- it, so that the folder alone read-only meets a lock file that can be taken
  t.eq(require("lfs").attributes(w .. "/.llmdlua.lock"), nil, "compare.lua's lock file removed")
  t.write(w .. "/.llmdlua.lock", "")
  local parent = w:match("^(.*)/[^/]+$")
  local mine = t.tmpdir() -- (the copy's parent: a folder of the user's)
  if #as > 0 then
    for _, d in ipairs { parent, mine } do t.ok(proc.run({ "chmod", "755", d }).ok) end
    t.ok(proc.run({ "chown", "-R", "65534:65534", w, mine }).ok)
  end
  local before = snapshot(w)
  local advice = "; analyze.lua writes its report into the workspace, so it cannot analyze this one in place: "
    .. "copy it to a folder of yours and analyze the copy: `cp -r " .. w .. " DIR && chmod -R u+w DIR && llmdlua "
    .. "analyze.lua DIR` (DIR: a new folder's path)\n"
  -- the folder alone read-only: the lock is taken (its file writable), the folder is not
  t.ok(proc.run({ "chmod", "a-w", w }).ok)
  r = run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq({ r.code, r.stdout, r.stderr }, { 2, "",
    "analyze.lua: " .. w .. ": cannot write in this workspace: Permission denied" .. advice })
  -- the whole tree read-only: its lock file cannot be opened
  t.ok(proc.run({ "chmod", "-R", "a-w", w }).ok)
  r = run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq({ r.code, r.stdout, r.stderr }, { 2, "", "analyze.lua: " .. w .. ": cannot lock this workspace: " .. w
    .. "/" .. ".llmdlua.lock: cannot open: Permission denied" .. advice })
  -- the folder and its lock file writable again, its charts/ not (`chmod u+w W` without -R):
  -- refused before anything is written, with the same advice, never a temporary file's name
  t.ok(proc.run({ "chmod", "u+w", w, w .. "/.llmdlua.lock" }).ok)
  r = run { LLMDLUA, "analyze.lua", w, "--quiet" }
  t.eq({ r.code, r.stdout, r.stderr }, { 2, "",
    "analyze.lua: " .. w .. ": cannot write in this workspace's charts/ folder: Permission denied" .. advice })
  -- (the lock file aside: taken in the first, it names its last holder, no part of the contents)
  local after = snapshot(w)
  before[".llmdlua.lock"], after[".llmdlua.lock"] = nil, nil
  same_tree(after, before, "the read-only workspace")
  -- the command given, DIR a new folder: the copy is analyzed
  local dir = mine .. "/copy"
  -- (this tree's llmdlua for the one on PATH)
  local cmd = advice:match("`(.-)`"):gsub("DIR", dir):gsub("llmdlua analyze", sh(LLMDLUA) .. " analyze")
  r = run { "sh", "-c", cmd .. " --quiet" }
  t.eq(r.code, 0, r.stdout .. r.stderr)
  find(r.stdout, "Comparison report written to: " .. dir .. "/comparison_report.md\n")
  t.ok(proc.run({ "chmod", "-R", "u+w", w }).ok) -- (for the runner to remove it)
end)

-- newuser52 #9: analyze.lua on a workspace whose run-b/results was deleted made its report from
-- the saved model (run-b/run_model.json) and named the results in its Results row as if read,
-- saying nothing: now one line on stderr, and the Results row says so for that run only. With
-- the results there, neither.
t.test("analyze.lua: a run whose results are gone from the workspace is reported from its saved model, said so",
  function()
    local w, r = t.compare { "--a", BASE, "--a-label", "A", "--b", TREAT, "--b-label", "B" }
    t.eq(r.code, 0, r.stderr)
    r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    t.lacks(r.stderr, "not in the workspace")
    local row = t.read(w .. "/comparison_report.md"):match("\n(| Results |[^\n]*)")
    t.ok(row, "the Results row")
    t.lacks(row, "not in the workspace")
    t.ok(proc.run({ "rm", "-rf", w .. "/run-b/results" }).ok)
    r = proc.run { LLMDLUA, "analyze.lua", w, "--quiet" }
    t.eq(r.code, 0, r.stderr)
    local said = "run-b/results is not in the workspace: its figures are the saved run-b/run_model.json and "
      .. "run_state.json, not read again from results"
    t.eq(r.stderr, "analyze.lua: note: B (b): " .. said .. "\n")
    row = t.read(w .. "/comparison_report.md"):match("\n(| Results |[^\n]*)")
    t.ok(row, "the Results row")
    -- (b's cell only: a's results are there)
    t.ok(row:find(" | " .. TREAT .. " (" .. said .. ") |", 1, true), row)
    t.eq(select(2, row:gsub("not in the workspace", "")), 1, row)
  end)

-- harden55 #3 ------------------------------------------------------------------------------

t.test("harden55-3: a report step that fails says what of the report is on disk and whether it is complete, "
  .. "never 'so there is none' beside a report", function()
  local s = setup()
  local r = compare(s, { "--plan", s.plan, "--step", "0-90" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local w = t.workspaces(s.dir)[1]
  local files = { "comparison_report.md", "comparison_report.html", "comparison.json", "comparison.csv",
    "run_comparison.sh" }
  local function failed_line(out)
    return out:match("\n%[100%] report: FAILED %- ([^\n]*)\n")
  end
  -- a write after the report's files fails: the record of the script written (its name a
  -- folder now), so the report on disk is whole and this attempt's
  t.mkdir(w .. "/llmdlua-written.json")
  r = compare(s, { "--resume", w, "--step", "100" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local said = failed_line(r.stdout)
  t.ok(said, r.stdout)
  t.ok(not (said or ""):find("so there is none", 1, true), said)
  t.ok((said or ""):find("^failed after writing the comparison report, which is on disk and complete, written whole "
    .. "by this attempt %(comparison_report%.md, comparison_report%.html, comparison%.json, comparison%.csv, "
    .. "run_comparison%.sh%), but the workspace is not marked complete %(%-%-resume .* %-%-step 100 writes it again%): "
    .. ".*llmdlua%-written%.json"), said)
  for _, n in ipairs(files) do t.eq(lfs.attributes(w .. "/" .. n, "mode"), "file", n) end
  local md = t.read(w .. "/comparison_report.md")
  proc.run { "rmdir", w .. "/llmdlua-written.json" }
  -- a failure before any file is written, beside that report: the report on disk is the
  -- earlier one, as it was (run A's results taken away, kept aside)
  t.ok(os.rename(w .. "/run-a/results", s.dir .. "/results-a"))
  t.mkdir(w .. "/run-a/results")
  r = compare(s, { "--resume", w, "--step", "100" })
  t.eq(r.code, 1, r.stdout .. r.stderr)
  said = failed_line(r.stdout)
  t.ok((said or ""):find("^failed while writing the comparison report; the report on disk %(comparison_report%.md, "
    .. "comparison_report%.html, comparison%.json, comparison%.csv, run_comparison%.sh%) is an earlier one's, as it was "
    .. "before this attempt, not this attempt's: run a %(baseline%): no inference%-perf results"), said)
  t.eq(t.read(w .. "/comparison_report.md"), md)
  -- complete, as said: the report a step that succeeds writes from the same results is that
  -- one, but for the time it was generated
  proc.run { "rm", "-rf", w .. "/run-a/results" }
  t.ok(os.rename(s.dir .. "/results-a", w .. "/run-a/results"))
  r = compare(s, { "--resume", w, "--step", "100" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  local function body(x) return (x:gsub("Generated [^\n]*", "")) end
  t.eq(body(t.read(w .. "/comparison_report.md")), body(md))
end)
