-- A vLLM server that crashed and restarted (restartCount up, an OOM kill) or a serving pod
-- replaced during the benchmark is not a clean run: the attempt fails and is run again; if
-- no attempt ran without one, the results are kept and the report says so (Data checks,
-- Summary, Verdict). A restart from before the benchmark is said in the data checks.
-- Against the fake cluster (tests/fakecluster), whose pods report status.containerStatuses[]
-- .restartCount and metadata.uid as the API server does. Expected texts are written from the
-- task (audit48 S2), not taken from the code's output.
local t = require "testlib"
local json = require "llmd.json"

-- two helmfile runs of the "sim" guide; benchmark.command: a script that runs the fake
-- run_only.sh and then (when the file CRASH names holds a number > 0, counted down each
-- time) bumps every decode pod's vllm restartCount in the fake's state, as an OOM restart
-- mid-run leaves it
local function setup(crashes)
  local d = t.tmpdir()
  t.sim_guide(d)
  t.write(d .. "/crashes", tostring(crashes))
  t.write(d .. "/crash.sh", ([[#!/bin/sh
run_only.sh -c "$1" || exit $?
n=$(cat %q/crashes)
if [ "$n" -gt 0 ]; then
  echo $((n - 1)) > %q/crashes
  /usr/bin/python3 - "$FAKE_CLUSTER/state.json" "$NAMESPACE" <<'PY'
import json, sys
p, ns = sys.argv[1], sys.argv[2]
s = json.load(open(p))
for name, pod in s["ns"][ns]["pods"].items():
    for c in pod.get("containers", []):
        if c.get("name") == "vllm" and "decode" in name:
            c["restarts"] = c.get("restarts", 0) + 1
json.dump(s, open(p, "w"))
PY
fi
exit 0
]]):format(d, d))
  os.execute("chmod +x " .. d .. "/crash.sh")
  -- (only run a's benchmark crashes: b runs the fake run_only.sh as it is)
  t.sim_plan(d, function(plan) plan.runs.a.benchmark.command = { d .. "/crash.sh", "${CONFIG}" } end)
  local env = t.fake_env(d .. "/cluster")
  return { dir = d, plan = d .. "/plan.yaml", cluster = d .. "/cluster", env = env }
end

local function report(s)
  local w = t.workspaces(s.dir)[1]
  return t.read(w .. "/comparison_report.md"), json.read(w .. "/run-a/run_state.json"), w
end

t.test("server restarts: a vLLM restart during attempt 1 fails it, attempt 2 runs clean and the report is silent",
  function()
  local s = setup(1)
  local r = t.fake_compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  -- the failed attempt's line: pod, container, counts (0→1, by hand: the fake's pods start at
  -- 0 and the script adds 1), the previous container's last log line (the fake's OOM line)
  t.ok(r.stdout:find("the benchmark failed: vLLM container vllm of pod ms%-sim%-decode%-[%w%-]+ restarted during the "
    .. "benchmark %(restartCount 0→1%); its previous log's last line: \"[^\n]*CUDA out of memory\""), r.stdout)
  t.ok(r.stdout:find("running [^\n]*crash.sh[^\n]*%(attempt 2/2%)"), r.stdout)
  local md, st = report(s)
  -- attempt 2 began after the restart step had made new pods: nothing to say
  t.eq(st.server_restarts, nil)
  t.ok(not md:find("restarted", 1, true), "the report says nothing of a restart")
end)

t.test("server restarts: a restart during every attempt keeps the last one's results, and the report says so",
  function()
  local s = setup(5)
  local r = t.fake_compare(s)
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(r.stdout:find("no attempt of 2 ran without one: these results are kept, and the report says so", 1, true),
    r.stdout)
  local md, st = report(s)
  t.ok(#st.server_restarts >= 1, "run_state.json records it")
  t.eq(st.server_restarts[1].during, true)
  t.ok(st.server_restarts[1].text:find("restarted during the benchmark (restartCount 0→1)", 1, true))
  -- the Data checks list it, the Summary and the Verdict warn of it
  local checks = md:match("\n## Data checks\n(.*)$")
  t.ok(checks and checks:find("restarted during the benchmark (restartCount 0→1)", 1, true), md)
  t.ok(md:find("run-a's vLLM server restarted or was replaced during its benchmark, on every attempt", 1, true), md)
  local verdict = md:match("\n## Verdict\n(.-)\n## ") or md:match("Verdict[^\n]*\n([^\n]*)") or ""
  t.ok(md:find("Warning:[^\n]*run%-a's vLLM server restarted during its benchmark"), verdict)
end)

t.test("server restarts: one from before the benchmark is no failure, but the data checks say it", function()
  local s = setup(0)
  local r = t.fake_compare(s, nil, { FAKE_RESTARTED = "1" })
  t.eq(r.code, 0, r.stdout .. r.stderr)
  t.ok(not r.stdout:find("attempt 2/2", 1, true), "one attempt only")
  local md, st = report(s)
  t.eq(st.server_restarts[1].during, false)
  local checks = md:match("\n## Data checks\n(.*)$") or ""
  t.ok(checks:find("vLLM container vllm of pod ms%-sim%-decode%-[%w%-]+ had restarted 1 time before the benchmark "
    .. "started; its previous log's last line: \"[^\n]*CUDA out of memory\""), md)
  t.ok(md:find("run-a's vLLM server had restarted before its benchmark began (see Data checks).", 1, true), md)
end)
