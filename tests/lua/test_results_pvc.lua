-- The results PVC llmdlua makes when a namespace has none (llmd-benchmark-results) is made
-- with `kubectl create`, never `apply`: one that someone else makes between llmdlua's `get
-- pvc` and its write is the API server's AlreadyExists, and is left as it is (an apply would
-- have labelled it llmdlua's and asked 200Gi of it: an expansion on expandable classes;
-- audit48 S10). The race is made by a kubectl in the plan's bins that, right after the `get
-- pvc`, lets another tool apply a PVC of that name. Expected texts by hand, kubectl's from
-- the API server's AlreadyExists as kubectl prints it for -f - ("STDIN").
local t = require "testlib"
local json = require "llmd.json"

t.test("a results PVC made by someone else after llmdlua's get is not patched: refused, naming it", function()
  local s = t.try_setup()
  local fake = t.root() .. "/tests/fakecluster/bin/kubectl"
  -- (once: the first `get pvc` is followed by someone's apply of llmd-benchmark-results)
  t.write(s.dir .. "/kubectl", table.concat({
    "#!/bin/sh",
    ("%q \"$@\"; rc=$?"):format(fake),
    "case \" $* \" in *' get pvc '*)",
    "  if [ ! -e \"$FAKE_CLUSTER/raced\" ]; then : > \"$FAKE_CLUSTER/raced\"",
    ("    printf '%%s\\n' 'apiVersion: v1' 'kind: PersistentVolumeClaim' 'metadata: {name: llmd-benchmark-results}' "
      .. "'spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}' | %q -n llm-d-try apply -f - "
      .. ">/dev/null"):format(fake),
    "  fi;;",
    "esac",
    "exit $rc", "" }, "\n"))
  require("llmd.proc").run { "chmod", "+x", s.dir .. "/kubectl" }
  t.write(s.plan, (t.read(s.plan):gsub("^namespace: llm%-d%-try\n", "namespace: llm-d-try\nbins: {kubectl: ./kubectl}\n")))
  local r = t.fake_compare(s, { "--plan", s.plan, "--quiet" }, nil, s.dir)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.ok(r.stdout:find("run a: the PVC llmd-benchmark-results was made by someone else after llmdlua found none in "
    .. "llm-d-try (" .. s.dir .. "/kubectl -n llm-d-try create -f - -o json: Error from server (AlreadyExists): error when "
    .. "creating \"STDIN\": persistentvolumeclaims \"llmd-benchmark-results\" already exists): it is not changed; name "
    .. "one with benchmark_pvc: in the plan (or benchmark.pvc, $BENCHMARK_PVC)", 1, true), r.stdout)
  local pvc = json.decode(t.read(s.cluster .. "/state.json")).ns["llm-d-try"].pvcs["llmd-benchmark-results"]
  t.eq({ pvc.access, pvc.size, pvc.labels }, { "ReadWriteOnce", "1Gi", nil }, "the other tool's PVC as it made it")
  local verbs = {}
  for _, c in ipairs(t.jsonl(s.cluster .. "/calls.log")) do
    if c.tool == "kubectl" and c.stdin and c.stdin:find("llmdlua", 1, true) then verbs[#verbs + 1] = c.args[3] end
  end
  t.eq(verbs, { "create" }, "llmdlua's PVC went with create, once")
end)
