-- A values key misspelt in an override (newuserd51 1): an experiment's setup treatment
-- `decode.replicsa: 2` beside another's `decode.replicas: 1` was accepted by --show, --dry-run
-- and the run, written into values-override.yaml, and both setups deployed the chart's own
-- replicas. Such a key (absent from the values it overrides and from the other overrides, a
-- letter or two from a key one of them has at the same path) is refused before anything
-- deploys, unless the plan's deploy.new_values_keys lists it. Expected keys are read off the
-- files by hand (each test says which key is where).
local t = require "testlib"
local vk = require "llmd.valuekeys"
local proc = require "llmd.proc"
local json = require "llmd.json"
local ROOT, LLMDLUA = t.root()

t.test("the near key: one edit or one swap of two letters in a long key; case and -/_; short keys only a swap",
  function()
    -- by hand: replicsa is replicas with s and a swapped (one swap); Levenshtein would count 2
    t.eq(require("llmd.opts").swap_distance("replicsa", "replicas"), 1)
    t.eq(vk.near("replicsa", { "parallelism", "replicas" }), "replicas")
    t.eq(vk.near("Replicas", { "replicas" }), "replicas")
    t.eq(vk.near("tensr", { "data", "tensor" }), "tensor")
    t.eq(vk.near("max_model_len", { "max-model-len" }), "max-model-len")
    -- 8 letters, two edits away (replicas -> replicaxy): beyond a fifth, a new key
    t.eq(vk.near("replicaxy", { "replicas" }), nil)
    -- short keys: dp beside tp is another key; pt is tp swapped
    t.eq(vk.near("dp", { "tp" }), nil)
    t.eq(vk.near("pt", { "tp" }), "tp")
    t.eq(vk.near("extraArgs", { "replicas", "image" }), nil)
  end)

t.test("the near key's threshold (llmd.opts.near with valuekeys' own): a fifth of the key, short keys only a swap",
  function()
    -- distances by hand, checked with an independent optimal-string-alignment distance in
    -- python3: max_nun_seq (11 characters, 11 // 5 = 2) is 2 from max_num_seqs (m->n, +s),
    -- mux_nun_seq 3; rat (3 characters) is 1 insertion from rate, which a short key is not
    -- allowed (experiment's near_miss allows it: test_experiment pins that threshold)
    t.eq(vk.near("max_nun_seq", { "max_num_seqs" }), "max_num_seqs")
    t.eq(vk.near("mux_nun_seq", { "max_num_seqs" }), nil)
    t.eq(vk.near("rat", { "rate" }), nil)
    t.eq(vk.near("Rat", { "rate" }), nil)
    -- the nearer of two within reach, the list's first on a tie
    t.eq(vk.near("max_num_seqq", { "max_nun_seqx", "max_num_seqs" }), "max_num_seqs")
    t.eq(vk.near("replicaz", { "replicax", "replicay" }), "replicax")
  end)

t.test("helm --set keys as values paths", function()
  t.eq(vk.set_path("routing.proxy.enabled"), { "routing", "proxy", "enabled" })
  t.eq(vk.set_path([[podAnnotations.prometheus\.io/scrape]]), { "podAnnotations", "prometheus.io/scrape" })
  t.eq(vk.set_path("decode.containers[0].image"), { "decode", "containers", "image" })
end)

t.test("problems: a key the base has wins; between overrides the one more set; a tie names both", function()
  local base = { { tree = { decode = { replicas = 1, parallelism = { tensor = 1 } } }, from = "base.yaml" } }
  local l = vk.problems({ { who = "setup treatment two", tree = { decode = { replicsa = 2 } }, base = base } },
    { where = "x.yaml" })
  t.eq(l, { "x.yaml: setup treatment two: decode.replicsa is not a key of the values it overrides (did you mean "
    .. "decode.replicas? base.yaml has it)" })
  -- a new key far from every key: kept (helm takes it; so does the chart that reads it)
  t.eq(vk.problems({ { who = "s", tree = { decode = { extraArgs = { "--x" } } }, base = base } }, { where = "x" }), {})
  -- listed as new: kept
  t.eq(vk.problems({ { who = "s", tree = { decode = { replicsa = 2 } }, base = base } },
    { where = "x", allowed = { ["decode.replicsa"] = true } }), {})
  -- no base: two of three treatments set replicas, one replicsa -> that one is named
  local sets = { { who = "one", tree = { decode = { replicas = 1 } } },
    { who = "two", tree = { decode = { replicsa = 2 } } }, { who = "three", tree = { decode = { replicas = 3 } } } }
  t.eq(vk.problems(sets, { where = "e.yaml" }), { "e.yaml: two: decode.replicsa is a letter or two from "
    .. "decode.replicas, which more of them set (one, three; decode.replicsa: two) (did you mean decode.replicas?)" })
  -- one against one: either may be the typo, one line for the pair
  l = vk.problems({ sets[1], sets[2] }, { where = "e.yaml" })
  t.eq(#l, 1)
  t.ok(l[1]:find("one sets decode.replicas and two sets decode.replicsa, a letter or two apart", 1, true), l[1])
  -- a misspelt mapping key, not only a leaf: decdoe beside decode
  t.eq(vk.problems({ { who = "s", tree = { decdoe = { replicas = 2 } }, base = base } }, { where = "x" }),
    { "x: s: decdoe is not a key of the values it overrides (did you mean decode? base.yaml has it)" })
end)

-- the README's experiment (two setup treatments, two run treatments) with the fake guide
local function experiment_files(d, second, plan_extra)
  t.try_guide(d)
  t.write(d .. "/e.yaml", "experiment:\n  name: replicas\nsetup:\n  treatments:\n    - name: one\n"
    .. "      decode.replicas: 1\n    - name: two\n      " .. second .. ": 2\ntreatments:\n  - name: rate1\n"
    .. "    load.stages.0.rate: 1\n  - name: rate2\n    load.stages.0.rate: 2\n")
  t.write(d .. "/p.yaml", "namespaces: [try-a, try-b]\nparallel: 2\ntimeouts: {poll: 1}\n"
    .. "deploy: {method: helmfile, guide_dir: guide, environment: istio, model: Qwen/Qwen3-0.6B" .. (plan_extra or "")
    .. "}\nbenchmark: {template: template.yaml, harness: inference-perf}\n")
end

local function experiment(d, args)
  local argv = { LLMDLUA, ROOT .. "/lua/experiment.lua", d .. "/e.yaml" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  local env = { PATH = ROOT .. "/tests/fakecluster/bin:" .. ROOT .. ":" .. os.getenv("PATH"), FAKE_CLUSTER = d .. "/cluster",
    FAKE_RESULTS = ROOT .. "/tests/fixtures/kubecon-na-2025_vllm" }
  return proc.run(argv, { env = env, cwd = d })
end

t.test("experiment.lua: a setup key a letter from another's is refused by --show --plan, --dry-run and the run",
  function()
    local d = t.tmpdir()
    experiment_files(d, "decode.replicsa")
    local pair = d .. "/e.yaml: setup treatment one sets decode.replicas and setup treatment two sets "
      .. "decode.replicsa, a letter or two apart, and no values file the plan names has either: one is most likely "
      .. "misspelt (did you mean decode.replicsa in setup treatment one, or decode.replicas in setup treatment two?)"
    -- --show without a plan: warned, exit 0 (no plan to keep a new key in)
    local r = experiment(d, { "--show" })
    t.eq(r.code, 0, r.stderr)
    t.ok(r.stderr:find("warning: " .. pair .. "; --plan refuses it", 1, true), r.stderr)
    local refusal = "llmdlua: " .. pair .. "; refused: helm would take it as a new value and deploy the chart's own, "
      .. "so the setup treatments would differ less than they say; fix the key, or keep a genuinely new one by "
      .. "listing it under deploy.new_values_keys in " .. d .. "/p.yaml - nothing was deployed\n"
    for _, extra in ipairs { { "--show", "--plan", d .. "/p.yaml" }, { "--plan", d .. "/p.yaml", "--dry-run" },
      { "--plan", d .. "/p.yaml" } } do
      r = experiment(d, extra)
      t.eq(r.code, 1, table.concat(extra, " ") .. ": " .. r.stdout .. r.stderr)
      t.eq(r.stderr, refusal, table.concat(extra, " "))
    end
    -- nothing deployed: the fake cluster received no call at all (its calls.log is never made), and
    -- no workspace is left
    t.eq(require("lfs").attributes(d .. "/cluster/calls.log", "mode"), nil)
    local ws = {}
    for n in require("lfs").dir(d) do if n:match("^llm%-d%-experiment") then ws[#ws + 1] = n end end
    t.eq(ws, {})
  end)

t.test("experiment.lua: the plan's values_override is the base; deploy.new_values_keys keeps a new key", function()
  local d = t.tmpdir()
  -- the plan's override holds decode.replicas: two's decode.replicsa is named against it alone
  experiment_files(d, "decode.replicsa", ", values_override: {decode: {replicas: 1}}")
  local r = experiment(d, { "--show", "--plan", d .. "/p.yaml" })
  t.eq(r.code, 1, r.stderr)
  t.ok(r.stderr:find("llmdlua: " .. d .. "/e.yaml: setup treatment two: decode.replicsa is not a key of the values "
    .. "it overrides (did you mean decode.replicas? deploy.values_override has it); refused:", 1, true), r.stderr)
  t.eq(select(2, r.stderr:gsub("\n", "")), 1, r.stderr)
  -- listed as a new key: accepted (the parsed design on stdout, exit 0)
  experiment_files(d, "decode.replicsa", ", new_values_keys: [decode.replicsa]")
  r = experiment(d, { "--show", "--plan", d .. "/p.yaml" })
  t.eq(r.code, 0, r.stderr)
  t.eq(json.decode(r.stdout).setup_treatments[2].overrides, { decode = { replicsa = 2 } })
  -- given as one string, not a list: refused by name (read as no list, the key's refusal would
  -- tell the user to list it where it already stands)
  experiment_files(d, "decode.replicsa", ", new_values_keys: decode.replicsa")
  r = experiment(d, { "--show", "--plan", d .. "/p.yaml" })
  t.eq(r.code, 1, r.stderr)
  t.eq(r.stderr, "llmdlua: " .. d .. "/p.yaml: deploy.new_values_keys: expected a list of dotted values keys "
    .. "(decode.replicas)\n")
  -- the key spelt right: no word of it
  experiment_files(d, "decode.replicas")
  r = experiment(d, { "--show", "--plan", d .. "/p.yaml" })
  t.eq(r.code, 0, r.stderr)
  t.eq(r.stderr:find("misspelt", 1, true), nil, r.stderr)
end)

t.test("compare.lua plan: a run's values_override or set key a letter from its values file's is refused", function()
  local d = t.tmpdir()
  t.try_guide(d)
  t.mkdir(d .. "/guide/router")
  -- the values file holds decode.replicas, decode.parallelism.tensor and routing.proxy.enabled
  t.write(d .. "/guide/router/base.values.yaml", "decode:\n  replicas: 1\n  parallelism: {tensor: 1}\n"
    .. "routing: {proxy: {enabled: true}}\n")
  local function plan(b_extra)
    t.write(d .. "/plan.yaml", "namespace: llm-d-try\ntimeouts: {poll: 1}\nruns:\n  a:\n    label: base\n"
      .. "    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: Qwen/Qwen3-0.6B}\n"
      .. "    benchmark: {template: template.yaml, harness: inference-perf}\n  b:\n    label: cand\n"
      .. "    deploy: {method: helm, release: ms, chart: llm-d-modelservice/llm-d-modelservice, guide_dir: guide, "
      .. "values: [router/base.values.yaml], model: Qwen/Qwen3-0.6B, service: ms-svc:80" .. b_extra .. "}\n"
      .. "    benchmark: {template: template.yaml, harness: inference-perf}\n")
    local _, r = t.compare({ "--plan", d .. "/plan.yaml", "--yes", "--dry-run" },
      { PATH = ROOT .. "/tests/fakecluster/bin:" .. ROOT .. ":" .. os.getenv("PATH"), FAKE_CLUSTER = d .. "/cluster" })
    return r
  end
  local r = plan(", values_override: {decode: {parallelism: {tensr: 2}}}, set: {routing.proxy.enabld: 'false'}")
  t.eq(r.code, 1, r.stdout .. r.stderr)
  local file = d .. "/guide/router/base.values.yaml"
  local keep = "; refused: helm would take it as a new value and deploy the chart's own under the run's label; fix "
    .. "the key, or keep a genuinely new one by listing it under the run's deploy.new_values_keys - nothing was deployed"
  t.eq(r.stderr, "llmdlua: " .. d .. "/plan.yaml: runs.b.deploy: decode.parallelism.tensr is not a key of the values "
    .. "it overrides (did you mean decode.parallelism.tensor? " .. file .. " has it)" .. keep .. "\n"
    .. d .. "/plan.yaml: runs.b.deploy: routing.proxy.enabld is not a key of the values it overrides (did you mean "
    .. "routing.proxy.enabled? " .. file .. " has it)" .. keep .. "\n")
  r = plan(", values_override: {decode: {parallelism: {tensr: 2}}}, new_values_keys: [decode.parallelism.tensr]")
  t.eq(r.code, 0, r.stdout .. r.stderr)
  r = plan(", new_values_keys: decode.replicas")
  t.eq(r.code, 1, r.stderr)
  t.ok(r.stderr:find("runs.b.deploy.new_values_keys: expected a list of dotted values keys", 1, true), r.stderr)
end)
