-- What llmdlua hands upstream's run_only.sh (llm-d-benchmark existing_stack/run_only.sh):
-- that script builds `kubectl create cm ... --from-file=KEY.yaml=<(yq ".workload.KEY ..."
-- CONFIG)` from each workload key and the config's path and runs it with bash's eval (read
-- at llm-d/llm-d-benchmark commit 180f128c), so a $(...) or `...` in a workload key, an
-- experiment's treatment name (a folder of the config path, and part of its workload key) or
-- the workspace's path would run on the user's machine. Each is refused before any cluster
-- call (the fake cluster's calls.log stays empty); a plain key with dots, dashes and
-- underscores still runs. Expected texts are written by hand from the rule (letters, digits,
-- '.', '_' and '-' for a name; those, '/' and + @ : , = % for a path).
local t = require "testlib"
local cluster = require "llmd.cluster"
local lfs = require "lfs"

local function calls(s) return t.jsonl(s.cluster .. "/calls.log") end

local function llmdlua(argv, env, cwd)
  local full = { t.root() .. "/llmdlua" }
  for _, a in ipairs(argv) do full[#full + 1] = a end
  return require("llmd.proc").run(full, { env = env, timeout = 120, cwd = cwd })
end

-- the README's try-it setup with its template's one workload key renamed to key
local function with_key(key)
  local s = t.try_setup()
  local text = t.read(s.dir .. "/template.yaml")
  t.write(s.dir .. "/template.yaml", (text:gsub("\n  sanity_random:\n", function() return "\n  " .. key .. ":\n" end)))
  return s
end

t.test("a workload key holding $(...) is refused at the plan check, naming the template's line; no cluster call",
  function()
    for _, dry in ipairs { false, true } do
      local s = with_key('"s$(id>PWNWL)"')
      local r = llmdlua({ "compare.lua", "--plan", s.plan, "--yes", "--quiet", dry and "--dry-run" or nil }, s.env,
        s.dir)
      t.eq(r.code, 1, r.stdout .. r.stderr)
      -- (line 10 of the template: endpoint: 5 lines, harness: 4, workload: 1)
      t.eq(r.stderr, "llmdlua: " .. s.dir .. "/template.yaml:11: workload key 's$(id>PWNWL)': expected letters, "
        .. "digits, '.', '_' and '-' only: each workload key names a file (KEY.yaml), a ConfigMap key and its results "
        .. "folder, and run_only.sh hands it to bash's eval (a $(...) or `...` in it would run on this machine); "
        .. "rename it - nothing was run\n")
      t.eq(#calls(s), 0, "no cluster call")
      t.eq(#t.workspaces(s.dir), 0, "no workspace")
      t.ok(not lfs.attributes(s.dir .. "/PWNWL"), "nothing ran")
    end
    -- backticks and a space too (a space splits run_only.sh's `for key in $(yq ...)`)
    for _, key in ipairs { '"s`id`"', '"s x"', '"s;id"' } do
      local s = with_key(key)
      local r = llmdlua({ "compare.lua", "--plan", s.plan, "--yes", "--quiet" }, s.env, s.dir)
      t.eq(r.code, 1, key .. ": " .. r.stdout .. r.stderr)
      t.ok(r.stderr:find(":11: workload key '" .. key:sub(2, -2) .. "': expected letters", 1, true), r.stderr)
      t.eq(#calls(s), 0, key .. ": no cluster call")
    end
  end)

t.test("a key a ${VAR} fills in: the plan's vars at the plan check, the environment's before run_only.sh runs",
  function()
    local s = with_key("${WL}")
    -- (both runs: each run's template is checked with its own vars, newuserd51 2, and run b's
    -- without WL would be refused as unset)
    t.write(s.plan, (t.read(s.plan):gsub("harness: inference%-perf}", "harness: inference-perf, vars: {WL: 'a b'}}")))
    local r = llmdlua({ "compare.lua", "--plan", s.plan, "--yes", "--quiet", "--dry-run" }, s.env, s.dir)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    -- (a key written ${WL} is on no line of its own: the template alone is named)
    t.ok(r.stderr:find("llmdlua: " .. s.dir .. "/template.yaml: workload key 'a b': expected letters", 1, true),
      r.stderr)
    t.eq(#calls(s), 0, "no cluster call")
    -- WL from the environment: run A's config, rendered at step 60, is refused there
    s = with_key("${WL}")
    local env = {}
    for k, v in pairs(s.env) do env[k] = v end
    env.WL = "w$(id>PWNENV)"
    r = llmdlua({ "compare.lua", "--plan", s.plan, "--yes", "--quiet" }, env, s.dir)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    local w = t.workspaces(s.dir)[1]
    t.ok(r.stdout:find(w .. "/run-a/benchmark/config.yaml:11: workload key 'w$(id>PWNENV)': expected letters", 1,
      true), r.stdout)
    t.ok(r.stdout:find("rename it - nothing was handed to run_only.sh", 1, true), r.stdout)
    for _, c in ipairs(calls(s)) do t.ok(c.tool ~= "run_only.sh", "run_only.sh never ran") end
  end)

t.test("a plain workload key with dots, dashes and underscores still runs and reaches run_only.sh as written",
  function()
    local s = with_key("sanity.random_v-2")
    local r = llmdlua({ "compare.lua", "--plan", s.plan, "--yes", "--quiet" }, s.env, s.dir)
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local w = t.workspaces(s.dir)[1]
    t.ok(t.read(w .. "/run-a/benchmark/config.yaml"):find("\n  sanity.random_v-2:\n", 1, true), "the key as written")
    local ran = 0
    for _, c in ipairs(calls(s)) do if c.tool == "run_only.sh" then ran = ran + 1 end end
    t.eq(ran, 2, "run_only.sh ran for both runs")
  end)

t.test("an experiment's run treatment named r1$(id>X) is refused before any cluster call; r1.fast_v-2 runs",
  function()
    local s = t.try_setup()
    t.write(s.dir .. "/eplan.yaml", "namespace: llm-d-exp\ntimeouts: {poll: 0.05, backoff: 0.01}\n"
      .. "deploy: {method: helmfile, guide_dir: guide, environment: istio, model: Qwen/Qwen3-0.6B}\n"
      .. "benchmark: {template: template.yaml, harness: inference-perf}\n")
    local function exp(name)
      t.write(s.dir .. "/exp.yaml", "experiment: {name: inj}\ntreatments:\n  - name: \"" .. name .. "\"\n"
        .. "    load.stages.0.rate: 2\n")
      return llmdlua({ "experiment.lua", s.dir .. "/exp.yaml", "--plan", s.dir .. "/eplan.yaml", "--dry-run" },
        s.env, s.dir)
    end
    local r = exp("r1$(id>PWNEXP)")
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.ok(r.stderr:find(s.dir .. "/exp.yaml: treatments[0].name: 'r1$(id>PWNEXP)' names the treatment's folder and "
      .. "(a run treatment's) workload: expected letters, digits, '.', '_' and '-' only, not '.' or '..' "
      .. "(run_only.sh hands the workload and its config's folder to bash's eval, which would run a $(...) or `...` "
      .. "in them)", 1, true), r.stderr)
    t.eq(#calls(s), 0, "no cluster call")
    r = exp("r1.fast_v-2")
    t.eq(r.code, 0, r.stdout .. r.stderr)
    t.ok(r.stdout:find("workload sanity_random-r1.fast_v-2: load.stages.0.rate: 2", 1, true), r.stdout)
  end)

t.test("a workspace under a folder whose path holds $(...), backticks or a space is refused before it is made",
  function()
    local s = t.try_setup()
    local odd = s.dir .. "/we ird $(touch PWNED1) `touch PWNED2`"
    t.mkdir(odd)
    -- the plan's folder is plain; the workspace would go into the current folder, odd
    local r = llmdlua({ "compare.lua", "--plan", s.plan, "--yes", "--quiet" }, s.env, odd)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.eq(r.stderr, "llmdlua: " .. s.plan .. ": the workspace's folder '" .. odd .. "': it holds ' ', '$', '(', ')', "
      .. "'`' (a path handed to run_only.sh may hold only letters, digits and / . _ - + @ : , = %: run_only.sh splits "
      .. "it at spaces and hands it to bash's eval, which would run a $(...) or `...` in it); give a parent folder "
      .. "whose path is plain (--parent DIR, or parent: in the plan); nothing was made or run\n")
    t.eq(#calls(s), 0, "no cluster call")
    local left = {}
    for n in lfs.dir(odd) do if n ~= "." and n ~= ".." then left[#left + 1] = n end end
    t.eq(left, {}, "no workspace made")
    -- the way out: a plain --parent
    r = llmdlua({ "compare.lua", "--plan", s.plan, "--yes", "--quiet", "--dry-run", "--parent", s.dir .. "/plain" },
      s.env, odd)
    t.eq(r.code, 0, r.stdout .. r.stderr)
    local before = #calls(s) -- (a dry run's reads)
    -- an experiment's workspace likewise (its plan's parent:)
    t.write(s.dir .. "/eplan.yaml", "namespace: llm-d-exp\nparent: '" .. odd .. "/sub'\n"
      .. "deploy: {method: helmfile, guide_dir: guide, environment: istio, model: Qwen/Qwen3-0.6B}\n"
      .. "benchmark: {template: template.yaml, harness: inference-perf}\n")
    t.write(s.dir .. "/exp.yaml", "treatments:\n  - name: r1\n    load.stages.0.rate: 2\n")
    r = llmdlua({ "experiment.lua", s.dir .. "/exp.yaml", "--plan", s.dir .. "/eplan.yaml", "--dry-run" }, s.env,
      s.dir)
    t.eq(r.code, 1, r.stdout .. r.stderr)
    t.ok(r.stderr:find(s.dir .. "/eplan.yaml: the workspace's folder '" .. odd .. "/sub': it holds ' ', '$', '(', ')', "
      .. "'`'", 1, true), r.stderr)
    t.ok(r.stderr:find("(the plan's parent:); nothing was made or run", 1, true), r.stderr)
    t.eq(#calls(s), before, "no cluster call")
    t.ok(not lfs.attributes(odd .. "/sub"), "no parent made")
  end)

t.test("run_only_config_problems: harness.name, harness.namespace and control.kubectl reach eval too", function()
  t.eq(cluster.run_only_config_problems({ harness = { name = "inference-perf", namespace = "ns-1" },
    control = { kubectl = "/usr/local/bin/kubectl" }, workload = { ["a.b_c-1"] = {}, [7] = {} } }, "c.yaml"), {})
  t.eq(cluster.run_only_config_problems({ harness = { name = "x;id", namespace = "n s" },
    control = { kubectl = "kubectl $(id)" } }, "c.yaml"), {
    "c.yaml: harness.name 'x;id': expected letters, digits, '.', '_' and '-' only: run_only.sh hands it to bash's "
      .. "eval (a $(...) or `...` in it would run on this machine)",
    "c.yaml: harness.namespace 'n s': expected letters, digits, '.', '_' and '-' only: run_only.sh hands it to "
      .. "bash's eval (a $(...) or `...` in it would run on this machine)",
    "c.yaml: control.kubectl 'kubectl $(id)': expected kubectl, oc or a plain path to one: it holds ' ', '$', '(', "
      .. "')' (a path handed to run_only.sh may hold only letters, digits and / . _ - + @ : , = %: run_only.sh splits "
      .. "it at spaces and hands it to bash's eval, which would run a $(...) or `...` in it)" })
  -- non-ASCII letters are no shell syntax: a path under /home/josé is plain
  t.eq(cluster.plain_path_problem("/home/jos\xc3\xa9/w-1/run_a/config.yaml"), nil)
  t.ok(cluster.plain_path_problem("/tmp/a'b"), "a quote")
end)
