-- newuserd51 4: a plan run with `harness: inference_perf` (an alias the plan accepts) showed
-- "**Harness** ≠ | inference-perf | inference-perf (stated: inference_perf)" in the Configuration
-- Summary: the same harness spelt another way read as a difference. The stated name is read as the
-- harness it names (llmd.harness.get: inference_perf is inference-perf) before it is compared;
-- another harness stated stays said, and a difference. Expected rows written by hand.
local t = require "testlib"
local report = require "llmd.report"

local function side(label, stated)
  local run = t.run_of { { rate = 1, values = { ttft_p90_ms = 50 } }, { rate = 2, values = { ttft_p90_ms = 60 } } }
  run.harness = "inference-perf"
  return { label = label, state = { label = label, benchmark = { harness = stated } }, run = run, kv = {} }
end

local function harness_row(m)
  for _, r in ipairs(m.config) do if r.label == "Harness" then return r end end
end

t.test("a stated harness alias is that harness: no stated text, no ≠", function()
  local m = report.build { a = side("x", "inference-perf"), b = side("y", "inference_perf"), generated = 0 }
  local r = harness_row(m)
  t.eq({ r.a, r.b, r.differs }, { "inference-perf", "inference-perf", false })
end)

t.test("another harness stated than the files' is said, and differs", function()
  local m = report.build { a = side("x", "inference-perf"), b = side("y", "guidellm"), generated = 0 }
  local r = harness_row(m)
  t.eq({ r.a, r.b, r.differs }, { "inference-perf", "inference-perf (stated: guidellm)", true })
end)

t.test("a plan whose runs differ only in the harness's spelling is an A/A check", function()
  local d = t.tmpdir()
  local function plan(hb)
    t.write(d .. "/plan.yaml", "runs:\n  a:\n    label: x\n    deploy: {method: helmfile, guide_dir: g, model: m}\n"
      .. "    benchmark: {template: t.yaml, harness: inference-perf}\n  b:\n    label: y\n"
      .. "    deploy: {method: helmfile, guide_dir: g, model: m}\n    benchmark: {template: t.yaml, harness: " .. hb
      .. "}\n")
    return report.build { a = side("x", "inference-perf"), b = side("y", hb), generated = 0, workspace = d }
  end
  t.ok(plan("inference_perf").same_config, "inference_perf")
  t.eq(plan("guidellm").same_config, nil)
end)
