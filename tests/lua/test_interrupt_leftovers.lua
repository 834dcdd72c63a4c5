-- What an interrupt in the benchmark (step 60) leaves, said: the interrupted attempt's
-- results folder on the PVC is named in the interrupt summary and by the --resume that
-- benchmarks again (partial, not used), and with stdout and stderr in one file the summary
-- comes after the last progress line. On the fake cluster (tests/fakecluster): FAKE_SLOW_BENCH
-- holds the benchmark; its run_only.sh names its results folder
-- <harness>_<experiment id>_<workload>_<stack> on the PVC (fake.lua), read back from the
-- fake's PVC folder here, so the expected names are the fake's own.
local t = require "testlib"
local lfs = require "lfs"

-- (newuser48 F8) the folder stayed on the PVC, never mentioned; and with output redirected
-- to a file the summary came before "[60] benchmark (a): FAILED - interrupted".
t.test("interrupted in the benchmark: its results folder on the PVC is named, then by --resume; summary last", function()
  local s = t.try_setup { parent = "." }
  local r, text, w = t.interrupt_in_benchmark(s)
  t.eq(r.code, 130, text)
  -- the folder the interrupted run_only.sh made on the fake's PVC
  local names = {}
  for n in lfs.dir(s.cluster .. "/pvc/llm-d-try/llmd-benchmark-results") do
    if n:match("^inference%-perf_") then names[#names + 1] = n end
  end
  t.eq(#names, 1, table.concat(names, ", "))
  local id = names[1]:match("^inference%-perf_(%d+)_")
  t.contains(text, "compare.lua: interrupted during step 60 (benchmark) of run A.\n")
  t.contains(text, "On the results PVC llmd-benchmark-results, the interrupted benchmark's results, if it wrote any "
    .. ("(experiment %s: the folders named *_%s_* in /requests), stay: partial, never used by the report; --resume "
    .. "benchmarks run A anew, copies only the new run's folders and names these.\n"):format(id, id))
  -- the last progress line before the summary, not after it
  local failed = text:find("[60] benchmark (a): FAILED - interrupted", 1, true)
  local summary = text:find("compare.lua: interrupted during step 60", 1, true)
  t.ok(failed and summary and failed < summary, text)

  r = t.fake_compare(s, { "--resume", w })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.contains(r.stdout, ("  also on the PVC: %s - the results of the benchmark interrupted earlier (experiment %s): "
    .. "partial, not used (left there)\n"):format(names[1], id))
  -- and not among the results the report reads
  t.eq(lfs.attributes(w .. "/run-a/results/" .. names[1]), nil)
end)

-- fixc53 #5: a hang-up (SIGHUP: the terminal or ssh session closed) stops compare.lua as Ctrl-C
-- does since s52 (README, exit codes: 130 "Ctrl-C / SIGTERM, or SIGHUP"), but the summary's
-- "Not saved" line named only "an interrupt, Ctrl-C or SIGTERM": a user whose ssh session
-- dropped read of two signals neither of which they sent.
t.test("a hang-up in the benchmark: exit 130, and the summary names the hang-up among the interrupts", function()
  local s = t.try_setup { parent = "." }
  local r, text, w = t.interrupt_in_benchmark(s, "HUP")
  t.eq(r.code, 130, text)
  t.contains(text, "compare.lua: interrupted during step 60 (benchmark) of run A.\n")
  t.contains(text, "Not saved: run A's state and run A's vLLM logs (nothing is collected after an interrupt: Ctrl-C, "
    .. "SIGTERM or a hang-up, SIGHUP); whatever was deployed is left as it is.\n")
  t.contains(text, "Continue with:               llmdlua compare.lua --resume " .. w .. "\n")
end)

-- newuser56 #2: Ctrl-C (SIGINT to the whole process group: compare.lua and the helmfile it
-- runs) while the deploy's helmfile apply ran, after it had installed the three releases:
-- the summary said "its deploy started (nothing recorded as added yet)" while `helm list`
-- showed all three (the interrupted command's answer was never seen, so nothing was
-- recorded). It must not understate: what may be deployed, and that --resume's teardown finds it.
t.test("Ctrl-C during the deploy: the summary says what may be deployed, and --resume finds and removes it", function()
  local proc = require "llmd.proc"
  local s = t.try_setup { parent = "." }
  local out = s.dir .. "/out.txt"
  local env = {}
  for k, v in pairs(s.env) do env[k] = v end
  env.FAKE_SLOW_DEPLOY = "30"
  -- (llmd.proc starts it in its own process group, as a shell's foreground job: its pid is the
  -- group's id)
  local p = proc.spawn({ "sh", "-c", 'exec "$0" compare.lua --yes --plan "$1" >"$2" 2>&1',
    t.root() .. "/llmdlua", s.plan, out }, { env = env, cwd = s.dir })
  t.ok(t.wait_for_file(s.cluster .. "/deploy-sleeping", p), "the deploy ran")
  t.eq(proc.run({ "kill", "-INT", "--", "-" .. tostring(p:pid()) }).code, 0, "Ctrl-C to the group")
  local r = p:wait(60) or p:kill(5)
  local text, w = t.read(out), t.workspaces(s.dir)[1]
  t.eq(r.code, 130, text)
  local FAKEBIN = t.root() .. "/tests/fakecluster/bin"
  local function releases()
    local l = proc.run({ FAKEBIN .. "/helm", "list", "-n", "llm-d-try", "--short" }, { env = s.env })
    t.eq(l.code, 0, l.stderr)
    local names = {}
    for n in l.stdout:gmatch("[^\n]+") do names[#names + 1] = n end
    table.sort(names)
    return table.concat(names, " ")
  end
  t.eq(releases(), "gaie-try infra-try ms-try", "the interrupted helmfile had installed the stack")
  t.lacks(text, "nothing recorded as added yet")
  t.contains(text, "Left deployed in namespace llm-d-try: run A (baseline): its deploy was stopped while its commands "
    .. "ran, before it recorded what they made: whatever they installed may be deployed (helm list -n llm-d-try "
    .. "shows the releases); --resume, or a teardown of this workspace, finds it (what is new in the namespace "
    .. "since the deploy started).\nTear down without going on:  llmdlua compare.lua --resume " .. w .. " --step 90\n")
  r = t.fake_compare(s, { "--resume", w, "--step", "90" }, nil, s.dir)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.eq(releases(), "", "--resume's teardown removed them")
end)
