-- What a new user found in session 33 (a fresh clone, README only): treatments.lua naming no
-- winner beside a table that shows one clearly faster, its Pareto front empty for want of
-- E2E latency, the experiment's wording of repeated results and of where a workload came
-- from, the order of the latency rows, a single --run, experiment.lua --dry-run's workspace
-- left behind, and misspelt keys and options without "did you mean".
--
-- Expected values: by hand from the fixture files (each reading in a comment beside its
-- test), or /usr/bin/python3 where a computation is named.
local t = require "testlib"
local json = require "llmd.json"
local proc = require "llmd.proc"
local lfs = require "lfs"

local F = t.fixtures()
local HERE = t.here()
local ROOT = proc.run({ "realpath", HERE .. "/../.." }).stdout:gsub("%s+$", "")
local LLMDLUA = ROOT .. "/llmdlua"
local EXP7 = F .. "/vllm-benchmark/exp-7_H100"

local find, lacks = t.contains, t.lacks

-- vllm-2replicas with every latency (each "..._ms" figure) times 0.7: the trial's
-- runs/better, a treatment 30 % faster at the same load
local function better_copy()
  local d = t.tmpdir() .. "/better"
  lfs.mkdir(d)
  for name in lfs.dir(EXP7 .. "/vllm-2replicas") do
    if name:match("%.json$") then
      local text = t.read(EXP7 .. "/vllm-2replicas/" .. name)
      text = text:gsub('("[%w_]+_ms"): (%-?[%d.]+[eE]?[-+]?%d*)', function(k, v)
        return ("%s: %.17g"):format(k, tonumber(v) * 0.7)
      end)
      t.write(d .. "/" .. name, text)
    end
  end
  return d
end

local function treatments(argv, want_code)
  local out = t.tmpdir() .. "/out"
  local cmd = { LLMDLUA, ROOT .. "/lua/treatments.lua", "--out", out, "--quiet" }
  for _, a in ipairs(argv) do cmd[#cmd + 1] = a end
  local r = proc.run(cmd)
  t.eq(r.code, want_code or 0, r.stdout .. r.stderr)
  if (want_code or 0) ~= 0 then return r end
  return { json = json.read(out .. "/treatments.json"), md = t.read(out .. "/treatment_report.md"), out = out, r = r }
end

t.test("nu33-2: treatments tied on capacity are told apart by their latency at the common load", function()
  local better = better_copy()
  local r = treatments { "--run", "1p1d=" .. EXP7 .. "/llm-d-1p1d", "--run", "v2=" .. EXP7 .. "/vllm-2replicas",
    "--run", "better=" .. better, "--slo", "ttft_p95_ms=300" }
  local v = r.json.verdict
  -- every treatment meets TTFT p95 <= 300 ms at its one load (3.6 req/s offered): the
  -- capacities tie as lower bounds; at that load better's TTFT p95 repeats are 0.7 times
  -- v2's (mean 179.5 against 256.4 ms) and far below 1p1d's (262.5 ms). Welch by
  -- /usr/bin/python3 (numpy, the t density integrated numerically) on the p95_ttft_ms of
  -- the three files of each: better vs v2 p = 1.05e-07, better vs 1p1d p = 3.67e-04; Holm
  -- over the two: 2.1e-07 and 3.7e-04
  find(v, "better is best at the common load", "verdict")
  find(v, "better TTFT p95 179.5 ms against 256.4 ms for v2 (Welch t, p = 1.1e-07, Holm-adjusted 2.1e-07 "
    .. "over 2 tests)", "verdict")
  find(v, "better TTFT p95 179.5 ms against 262.5 ms for 1p1d (Welch t, p = 3.7e-04, Holm-adjusted 3.7e-04",
    "verdict")
  find(v, "The capacity at SLO does not order them", "verdict")
  lacks(v, "No treatment is shown to be best", "verdict")
  local j = r.json.latency_at_common
  t.eq({ j.best, j.keys, j.family_size, #j.tests }, { "better", { "ttft_p95_ms" }, 2, 2 })
  t.near(j.tests[2].p_adjusted, 2 * 1.0549046935735192e-07, 2e-9)
  t.near(j.tests[1].p, 3.671490655876817e-04, 2e-6)
  -- v2 against 1p1d alone: 256.4 against 262.5 ms, Welch p = 0.0775 by the same python
  -- (over 2.26 degrees of freedom): not shown lower, and said so
  local r2 = treatments { "--run", "1p1d=" .. EXP7 .. "/llm-d-1p1d", "--run", "v2=" .. EXP7 .. "/vllm-2replicas",
    "--slo", "ttft_p95_ms=300" }
  find(r2.json.verdict, "No treatment is shown to be best", "two alike")
  find(r2.json.verdict, "Nor is one shown lower on TTFT p95 at the common load (3.6 req/s offered): v2 TTFT p95 "
    .. "256.4 ms against 262.5 ms for 1p1d (Welch t, p = 0.0775", "two alike")
  lacks(r2.json.verdict, "is best at the common load", "two alike")
end)

t.test("nu33-2: the Pareto front is built on a latency every treatment has, and says which", function()
  local better = better_copy()
  local r = treatments { "--run", "1p1d=" .. EXP7 .. "/llm-d-1p1d", "--run", "v2=" .. EXP7 .. "/vllm-2replicas",
    "--run", "better=" .. better, "--slo", "ttft_p95_ms=300" }
  -- vLLM's benchmark here kept no e2el percentiles (no p*_e2el_ms in the files), but TTFT
  -- p95 in every file: the front compares TTFT p95, and no treatment is left out for want of
  -- E2E latency
  t.eq(r.json.pareto_latency, "TTFT p95")
  t.eq(r.json.pareto_excluded, {})
  find(r.md, "The latency compared: TTFT p95, as not every treatment has a percentile of E2E latency (none has one)")
  lacks(r.md, "End-to-end latency p90 at the common load unknown")
end)

t.test("nu33-4: the latency rows are grouped by workload, not in --run order", function()
  -- 2p1d's requests are 9999 input and 100 output tokens, 1p1d's and 2replicas' 7999 and 200
  -- (by the fixture files' total_input_tokens / completed): two workloads, 1p1d's first
  local r = treatments { "--run", "a=" .. EXP7 .. "/llm-d-1p1d", "--run", "b=" .. EXP7 .. "/llm-d-2p1d",
    "--run", "c=" .. EXP7 .. "/vllm-2replicas" }
  local rows = {}
  local sec = r.md:match("## Latency at a common load(.-)\n## ")
  for w, l in sec:gmatch("\n| (workload %d) | (%a) |") do rows[#rows + 1] = w .. " " .. l end
  t.eq(rows, { "workload 1 a", "workload 1 c", "workload 2 b" }, sec)
  -- the HTML table too
  local html = t.read(r.out .. "/treatment_report.html")
  local hsec = html:match("<h2>Latency at a common load</h2>(.-)</table>")
  local hrows = {}
  for w, l in hsec:gmatch("<tr><td>(workload %d)</td><td>(%a)</td>") do hrows[#hrows + 1] = w .. " " .. l end
  t.eq(hrows, rows, hsec)
end)

t.test("nu33-4: one treatment is refused, one line, exit 2", function()
  local r = treatments({ "--run", "a=" .. EXP7 .. "/llm-d-1p1d" }, 2)
  t.eq(r.stderr, "treatments.lua: --run: only one treatment (a) given: a comparison needs two or more labels (the "
    .. "same label repeated makes its folders repeats of one treatment)\n")
  t.eq(r.stdout, "")
  -- the same label twice is one treatment with repeats: refused too
  r = treatments({ "--run", "a=" .. EXP7 .. "/llm-d-1p1d", "--run", "a=" .. EXP7 .. "/vllm-2replicas" }, 2)
  t.ok(r.stderr:find("only one treatment (a) given", 1, true), r.stderr)
  -- --results with a single subfolder
  local d = t.tmpdir() .. "/results"
  lfs.mkdir(d)
  t.copy_tree(EXP7 .. "/llm-d-1p1d", d .. "/only")
  r = treatments({ "--results", d }, 2)
  t.eq(r.stderr, ("treatments.lua: --results %s: one subfolder (only), a comparison needs two or more treatment "
    .. "subfolders\n"):format(d))
end)

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
  find(r.stderr, "unknown option --zzzzzz\n")
end)

t.test("nu33-3: the same results given for two workloads are said to be that, not 'a run with itself'", function()
  local copy = t.tmpdir() .. "/copy"
  t.copy_tree(EXP7 .. "/llm-d-1p1d", copy)
  local r = treatments { "--run", "one1=" .. EXP7 .. "/llm-d-1p1d", "--run", "two1=" .. EXP7 .. "/vllm-2replicas",
    "--run", "one2=" .. copy, "--run", "two2=" .. EXP7 .. "/vllm-3replicas",
    "--workload", "rate1=one1,two1", "--workload", "rate2=one2,two2" }
  local err = r.r.stderr
  find(err, "treatments one1 and one2 hold the same results (", "stderr")
  find(err, "the same files, byte for byte), though they are of two different workloads (rate1 and rate2): the same "
    .. "results were given for both, likely a mistake", "stderr")
  lacks(err, "compares a run with itself", "stderr")
  -- within one workload it is what it says: a run compared with itself
  r = treatments { "--run", "one1=" .. EXP7 .. "/llm-d-1p1d", "--run", "one2=" .. copy }
  find(r.r.stderr, "this compares a run with itself", "one workload")
end)

t.test("nu33-1: treatments on different GPU counts: not like for like on cost, figures per GPU", function()
  -- 2p1d's and 3replicas' capacities (max sustained throughput, no SLO): both never
  -- saturated; 3replicas achieved more in total. By the files' request_throughput (mean of
  -- 3, by hand): 2p1d 5.331 req/s, 3replicas 5.346 req/s; per GPU on 3 and 6 GPUs:
  -- 1.777 and 0.891 req/s, the other order by the figures; but both are lower bounds (each
  -- kept up with what it was sent), which no measured load orders (session 35: compare.lua's
  -- rule, so no "p2 first per GPU")
  local r = treatments { "--run", "v3=" .. EXP7 .. "/vllm-3replicas", "--run", "p2=" .. EXP7 .. "/llm-d-2p1d",
    "--gpus", "v3=6", "--gpus", "p2=3" }
  local v = r.json.verdict
  find(v, "Not like for like on cost: v3 6 GPUs, p2 3 GPUs. Per GPU, max sustained throughput: p2 ≥ 1.777 req/s per "
    .. "GPU, v3 ≥ 0.891 req/s per GPU; p2 and v3 per GPU: the measured loads cannot order them", "verdict")
  lacks(v, "first per GPU", "verdict")
  find(v, "On totals (not per GPU): ", "verdict")
  t.eq(r.json.cost.differ, true)
  t.near(r.json.cost.per_gpu[1].value * 3, r.json.ranking[2].value, 1e-9)
  -- one count unknown: said, and no winner on cost
  r = treatments { "--run", "v3=" .. EXP7 .. "/vllm-3replicas", "--run", "p2=" .. EXP7 .. "/llm-d-2p1d",
    "--gpus", "v3=6" }
  find(r.json.verdict, "Not like for like on cost: v3 6 GPUs; p2 unknown (give --gpus LABEL=N), so max sustained "
    .. "throughput is not compared per GPU", "one unknown")
  -- the same count everywhere: no banner
  r = treatments { "--run", "v3=" .. EXP7 .. "/vllm-3replicas", "--run", "p2=" .. EXP7 .. "/llm-d-2p1d",
    "--gpus", "v3=2,p2=2" }
  lacks(r.json.verdict, "like for like on cost", "same counts")
  t.eq(r.json.cost, false)
  -- a label no treatment has: one line, exit 2
  local bad = treatments({ "--run", "v3=" .. EXP7 .. "/vllm-3replicas", "--run", "p2=" .. EXP7 .. "/llm-d-2p1d",
    "--gpus", "v4=2" }, 2)
  t.eq(bad.stderr, "treatments.lua: --gpus v4=2: no treatment is labelled v4 (the treatments: v3, p2)\n")
end)

t.test("nu33-1: an experiment's setups: GPU counts from the values they were deployed with", function()
  local tr = require "llmd.treatments"
  local d = t.tmpdir()
  -- decode 2 replicas x tensor 2 = 4, prefill 1 x tensor 2 x data 2 = 4: 8 in all (by hand)
  t.write(d .. "/a.yaml", "decode:\n  replicas: 2\n  parallelism: {tensor: 2}\nprefill:\n  replicas: 1\n"
    .. "  parallelism: {tensor: 2, data: 2}\n")
  t.eq({ tr.setup_gpus(d .. "/a.yaml") }, { 8, "decode.replicas 2, prefill.replicas 1" })
  -- replicas without the GPUs per replica: the count is unknown, the replicas said
  t.write(d .. "/b.yaml", "decode:\n  replicas: 2\n")
  t.eq({ tr.setup_gpus(d .. "/b.yaml") }, { nil, "decode.replicas 2" })
  t.eq({ tr.setup_gpus(d .. "/none.yaml") }, {})
  -- two setups whose decode.replicas differ, GPU counts unknown (the README's experiment,
  -- one and two): the banner, and no winner on totals
  local list = tr.load { { label = "one", dirs = { EXP7 .. "/vllm-2replicas" }, hardware = "decode.replicas 1" },
    { label = "two", dirs = { EXP7 .. "/llm-d-1p1d" }, hardware = "decode.replicas 2" } }
  local m = tr.model(list)
  find(m.verdict, "Not like for like on cost: the setups' replicas differ (one decode.replicas 1; two "
    .. "decode.replicas 2), and their GPU counts are unknown", "verdict")
  find(m.verdict, "On totals (not per GPU): ", "verdict")
end)

t.test("nu33-1: per GPU the capacities are ordered as compare.lua orders them, the other way from the totals", function()
  local K = ROOT .. "/tests/fixtures"
  -- the README's pair, at the drain-reduced rates completed / (window - least latency)
  -- (python3 on the stage files): chunked's capacity within TTFT p90 <= 200 ms is about
  -- 163.591 req/s (between 127.76 and 169.43), vllm's >= 92.213 (its last load before
  -- saturation): on 4 GPUs and 1, per GPU 163.591 / 4 = 40.898 and 169.427 / 4 = 42.357,
  -- below vllm's 92.213: vllm first per GPU, as compare.lua --a-info/--b-info
  -- gpus: 1 and 4 says ("vllm met the SLO at 92.21 req/s per GPU, chunk already failed it at
  -- 42.36 req/s per GPU")
  local r = treatments { "--run", "vllm=" .. K .. "/kubecon-na-2025_vllm", "--run",
    "chunk=" .. K .. "/kubecon-na-2025_vllm_chunking_and_prefix_caching", "--slo", "ttft_p90_ms=200",
    "--gpus", "vllm=1,chunk=4" }
  local v = r.json.verdict
  find(v, "Not like for like on cost: chunk 4 GPUs, vllm 1 GPU. Per GPU, capacity at SLO: vllm ≥ 92.213 req/s per "
    .. "GPU, chunk about 40.898 req/s per GPU; vllm above chunk per GPU: untested, but the measured loads order them: "
    .. "vllm met the SLO at 92.213 req/s per GPU, chunk already failed it at 42.357 req/s per GPU", "verdict")
  find(v, "the order per GPU is not the totals' order: vllm first per GPU, chunk on totals", "verdict")
  t.eq(r.json.cost.per_gpu[1].label, "vllm")
  -- the ranking's table is on totals, and says so above it
  find(r.md, "## Ranking by capacity at SLO\n\n**These places are on totals**: Not like for like on cost: chunk 4 "
    .. "GPUs, vllm 1 GPU.", "md")
  -- no best on totals in the ranking's own words
  lacks(v, "chunk has the highest", "verdict")
end)
