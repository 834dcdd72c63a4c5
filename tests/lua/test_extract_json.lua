-- extract.lua --json as a script reads it (newuser50b F3, F4, F5, F11): the README's shape is
-- the output's (every key printed is documented, every key documented as always there is
-- printed), goodput with --slo (harness.extract's slo), each stage's failures by cause, and
-- why an inference-perf folder with only its per-request file has no stage.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local ips = require "ipsynth"

local ROOT, LLMDLUA = t.root()

-- The README's extract.lua --json block: the keys it shows at the top level, in a stage and in
-- overall's entries, and the keys its next paragraph says may be absent.
local function documented()
  local text = t.read(ROOT .. "/README.md")
  local at = assert(text:find("`extract.lua --json` prints the same run as plain JSON", 1, true))
  local open = assert(text:find("```\n", at, true))
  local close = assert(text:find("\n```\n", open + 4, true))
  local block = text:sub(open + 4, close)
  local after = text:sub(close + 5, close + 5000)
  -- the keys by where they stand: depth 1 the top level, depth 3 under "stages" a stage's,
  -- depth 3 under "overall" an entry's (the block is JSON with "..." for values)
  local top, stage, entry = {}, {}, {}
  local depth, under, i = 0, {}, 1
  while i <= #block do
    local c = block:sub(i, i)
    if c == "{" or c == "[" then
      depth = depth + 1
      i = i + 1
    elseif c == "}" or c == "]" then
      depth = depth - 1
      i = i + 1
    else
      local k, j = block:match('^"([%w_]+)":()', i)
      if k then
        if depth == 1 then top[k], under.top = true, k
        elseif depth == 3 and under.top == "stages" then stage[k] = true
        elseif depth == 3 and under.top == "overall" then entry[k] = true end
        i = j
      else
        i = i + 1
      end
    end
  end
  -- "A key whose value is unknown is left out (...): `tool`, ... and, in a stage, all but `index`, ..."
  local sentence = assert(after:match("^%s*(A key whose value is unknown is left out.-may be absent%.)"), after:sub(1, 200))
  local optional, stage_kept = {}, {}
  local head, tail = sentence:match("^(.-)and, in a%s+stage, all but(.*)$")
  for k in head:gmatch("`([%w_]+)`") do optional[k] = true end
  for k in tail:gmatch("`([%w_]+)`") do stage_kept[k] = true end
  return { top = top, stage = stage, entry = entry, optional = optional, stage_kept = stage_kept }
end

local function extract_json(dir, extra)
  local argv = { LLMDLUA, "extract.lua", dir, "--json" }
  for _, a in ipairs(extra or {}) do argv[#argv + 1] = a end
  local r = proc.run(argv)
  return json.decode(r.stdout), r
end

-- a 2-stage inference-perf run with its per-request file (ipsynth: 40 requests at 4/s, then 40 at
-- 8/s), requests 0-5 of stage 0 failed with a 503 and 10-13 of stage 1 with a 429 (set here:
-- the counts expected below are these), and its latencies 0.30 + 0.002 k s
local FAIL = { [1] = { status = "HTTP Error 503", msg = "no ready endpoints", ks = { 0, 1, 2, 3, 4, 5 } },
  [2] = { status = "HTTP Error 429", msg = "too many requests", ks = { 10, 11, 12, 13 } } }
local function two_stage(d)
  ips.run(d, { { rate = 4, n = 40, latency = function(k) return 0.30 + 0.002 * k end },
    { rate = 8, n = 40, latency = function(k) return 0.30 + 0.002 * k end } }, { per_request = true })
  local recs = json.decode(t.read(d .. "/per_request_lifecycle_metrics.json"))
  for si, f in ipairs(FAIL) do
    for _, k in ipairs(f.ks) do
      local r = recs[(si - 1) * 40 + k + 1]
      r.error = { error_type = f.status, error_msg = f.msg }
      r.info.response_metrics.output_token_times = json.array {}
    end
  end
  t.write(d .. "/per_request_lifecycle_metrics.json", json.encode(recs))
  return d
end

t.test("README's extract.lua --json shape is the output's keys", function()
  local doc = documented()
  t.ok(doc.optional.goodput and doc.optional.gpus, "goodput and gpus are documented as absent when unknown")
  local d = two_stage(t.tmpdir() .. "/ip")
  local F = t.fixtures()
  local runs = {
    { d, { "--slo", "tpot_p90_ms=43" } },
    { F .. "/inference-perf/kubecon-na-2025_vllm" },
    { F .. "/guidellm/guidellm_report_v2.json" },
    { F .. "/benchmark-report/br_v0_2_example.yaml" },
    -- (vLLM's file: its stages carry client_cap, "none" where max_concurrency is null)
    { F .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json" },
  }
  local seen_stage_errors = false
  for _, x in ipairs(runs) do
    local out, r = extract_json(x[1], x[2])
    t.ok(type(out) == "table", x[1] .. ": " .. r.stderr)
    for k in pairs(out) do t.ok(doc.top[k], ("%s: printed key %q is not in README's shape"):format(x[1], k)) end
    for k in pairs(doc.top) do
      t.ok(out[k] ~= nil or doc.optional[k], ("%s: documented key %q is not printed"):format(x[1], k))
    end
    for key, e in pairs(out.overall) do
      for k in pairs(e) do
        t.ok(doc.entry[k],
          ("%s: overall.%s.%s is not in README's shape"):format(x[1], key, k))
      end
    end
    for _, st in ipairs(out.stages) do
      for k in pairs(st) do t.ok(doc.stage[k], ("%s: stage key %q is not in README's shape"):format(x[1], k)) end
      for k in pairs(doc.stage_kept) do t.ok(st[k] ~= nil, ("%s: stage key %q is not printed"):format(x[1], k)) end
      if st.errors then seen_stage_errors = true end
    end
  end
  t.ok(seen_stage_errors, "a stage's errors printed")
  -- the prefix cache counts tokens (as metrics.get says), not "count"
  local text = t.read(ROOT .. "/README.md")
  t.ok(text:find('"prefix_cache_hits": { "value": null,  "unit": "tokens"', 1, true), "README's unit")
  t.eq(require("llmd.metrics").get("prefix_cache_hits").unit, "tokens")
end)

t.test("goodput with --slo, and each stage's failures by cause", function()
  local d = two_stage(t.tmpdir() .. "/ip")
  local out, r = extract_json(d, { "--slo", "tpot_p90_ms=43" })
  t.eq(r.code, 0, r.stderr)
  -- by hand: a success's TPOT is (latency - 0.02) / 7 s (ipsynth: 8 tokens, the first at 20 ms,
  -- the last at the end), latency 0.30 + 0.002 k: TPOT <= 43 ms where 0.28 + 0.002 k <= 0.301,
  -- k <= 10 (k = 10: 0.300 / 7 = 42.86 ms; k = 11: 43.14 ms). Stage 0: k 0-10 good but 0-5
  -- failed: 5 good (6-10) of 40; stage 1: k 0-9 good (10-13 failed, above 10 anyway): 10 of 40.
  t.eq({ out.stages[1].goodput.good, out.stages[1].goodput.total }, { 5, 40 })
  t.eq({ out.stages[2].goodput.good, out.stages[2].goodput.total }, { 10, 40 })
  t.eq({ out.goodput.good, out.goodput.total }, { 15, 80 })
  -- the window: stage 0 sent k / 4 s, last answer at 39/4 + 0.30 + 0.078 = 10.128 s; stage 1
  -- starts 1 s after, its last answer 39/8 + 0.378 = 5.253 s later: 10.128 + 1 + 5.253 = 16.381 s
  t.near(out.goodput.duration_s, 16.381, 1e-6)
  -- the causes, per stage and for the run (the counts set in two_stage)
  local function causes(list)
    local m = {}
    for _, e in ipairs(list) do m[e.cause] = e.count end
    return m
  end
  t.eq(causes(out.stages[1].errors), { ["503 no ready endpoints"] = 6 })
  t.eq(causes(out.stages[2].errors), { ["429 too many requests"] = 4 })
  t.eq(causes(out.errors), { ["503 no ready endpoints"] = 6, ["429 too many requests"] = 4 })
  t.eq(out.stages[1].errors[1].status, 503)
  -- an SLO without a per-request limit: goodput unknown, with why (never absent, never 0)
  out = extract_json(d, { "--slo", "error_rate_pct=1" })
  t.ok(type(out.goodput.unknown) == "string" and out.goodput.unknown:find("no per-request latency limit", 1, true),
    json.encode(out.goodput))
  -- harness.extract's slo option, as a mapping: the same counts
  local run = require("llmd.harness").extract(d, { slo = { tpot_p90_ms = 43 } })
  t.eq({ run.overall.goodput.good, run.stages[1].metrics.goodput.good }, { 15, 5 })
  -- the text output says it
  local tr = proc.run { LLMDLUA, "extract.lua", d, "--slo", "tpot_p90_ms=43" }
  t.contains(tr.stdout, "Goodput: 15 of 80 requests met every limit (tpot_p90_ms=43), 0.916 req/s over 16.4 s")
  -- a bad --slo is a bad option value: one line, exit 2
  local br = proc.run { LLMDLUA, "extract.lua", d, "--slo", "tpot=4" }
  t.eq(br.code, 2)
  t.ok(br.stderr:find("^extract.lua: %-%-slo: ") and select(2, br.stderr:gsub("\n", "")) == 1, br.stderr)
end)

t.test("inference-perf with only its per-request file: no stage, and why, in one line", function()
  local d = t.tmpdir() .. "/ip"
  two_stage(d)
  for i = 0, 1 do os.remove(("%s/stage_%d_lifecycle_metrics.json"):format(d, i)) end
  local out = extract_json(d)
  t.eq(#out.stages, 0)
  t.contains(out.stages_why, "no stage_<N>_lifecycle_metrics.json beside per_request_lifecycle_metrics.json")
  local r = proc.run { LLMDLUA, "extract.lua", d }
  local line = r.stdout:match("\n(Stages: none %([^\n]*%))\n")
  t.ok(line, r.stdout)
  t.contains(line, "its per-request file records no stage or load")
  -- the whole run's causes are still there
  t.contains(r.stdout, "503 no ready endpoints")
end)

t.test("comparison.json: each load point's failures by cause (load_points[].errors)", function()
  local tmp = t.tmpdir()
  local a, b = two_stage(tmp .. "/a"), two_stage(tmp .. "/b")
  local r = proc.run { LLMDLUA, "compare.lua", "--a", a, "--b", b, "--parent", tmp .. "/out", "--quiet" }
  t.eq(r.code, 0, r.stderr)
  local ws = assert(r.stdout:match("Workspace: (%S+)"), r.stdout)
  local doc = json.decode(t.read(ws .. "/comparison.json"))
  for _, side in ipairs { "a", "b" } do
    local pts = doc.load_points[side]
    t.eq(#pts, 2, side)
    -- the counts two_stage set: 6 503s at 4/s, 4 429s at 8/s
    t.eq({ pts[1].errors[1].cause, pts[1].errors[1].count, #pts[1].errors }, { "503 no ready endpoints", 6, 1 }, side)
    t.eq({ pts[2].errors[1].cause, pts[2].errors[1].count, #pts[2].errors }, { "429 too many requests", 4, 1 }, side)
    t.eq(pts[1].failure_kinds, { error = 6, timeout = 0, unknown = 0 }, side)
  end
end)
