-- deploy.set (method helm) as helm's --set parser reads it. The grammar, from helm's docs
-- ("The Format and Limitations of --set") and its parser (pkg/strvals): NAME=VALUE; in NAME
-- '.' goes a level down, [N] into a list, '=' ends it, ',' starts the next NAME=VALUE; in
-- VALUE ',' starts the next, a leading '{' makes a list {a,b}; '\' takes the next character
-- as it is, in both. --set types "true", "false", "null" and whole numbers; --set-string
-- keeps a string. A mapping given as one value reached helm as "llmd.json.object: 0x..." and a
-- comma in a value added a key of its own (audit48 S8). Expected texts by hand; the round
-- trip decodes with the grammar above, written here, not llmdlua's code.
local t = require "testlib"
local cluster = require "llmd.cluster"
local yaml = require "llmd.yaml"

local function calls(s) return t.jsonl(s.cluster .. "/calls.log") end

-- a try-it setup whose run a deploys with helm, deploy.set = set (YAML text)
local function helm_setup(set)
  local s = t.try_setup()
  local text = t.read(s.plan)
  t.write(s.plan, (text:gsub("    deploy: {method: helmfile, guide_dir: guide, environment: istio, model: "
    .. "Qwen/Qwen3%-0%.6B}\n", function()
      return "    deploy: {method: helm, guide_dir: guide, release: sim, chart: oci://ghcr.io/llm-d/charts/"
        .. "llm-d-router-standalone, model: Qwen/Qwen3-0.6B, set: " .. set .. "}\n"
    end, 1)))
  return s
end

local function dry(s)
  return require("llmd.proc").run({ t.root() .. "/llmdlua", "compare.lua", "--plan", s.plan, "--yes", "--dry-run" },
    { env = s.env, timeout = 120, cwd = s.dir })
end

-- helm's reading of one --set argument NAME=VALUE (no list value, one pair): the value, and
-- whether anything was left for another pair
local function helm_reads(arg)
  local i, name = 1, {}
  while i <= #arg do
    local c = arg:sub(i, i)
    if c == "\\" then name[#name + 1] = arg:sub(i + 1, i + 1); i = i + 2
    elseif c == "=" then break
    else name[#name + 1] = c; i = i + 1 end
  end
  i = i + 1
  local v = {}
  while i <= #arg do
    local c = arg:sub(i, i)
    if c == "\\" then v[#v + 1] = arg:sub(i + 1, i + 1); i = i + 2
    elseif c == "," then return table.concat(name), table.concat(v), arg:sub(i + 1)
    else v[#v + 1] = c; i = i + 1 end
  end
  return table.concat(name), table.concat(v), ""
end

t.test("a comma in a value stays in it; a string helm would type goes with --set-string; the dry run shows it",
  function()
    local s = helm_setup([[{provider.name: "istio,namespaceOverride=kube-system", decode.replicas: 4, tag: "123", ]]
      .. [[enabled: true, esc: 'a\b{c', lst: "{x}", "list[0].x": "v1", nothing: null}]])
    -- (the dry run goes on to its smoke test, which this chart's Service fails: not looked at here)
    local r = dry(s)
    -- by hand: keys in order; ',' and '\' escaped, a leading '{' too; "123" a string (else an
    -- integer), null helm's "remove the key"
    t.ok(r.stdout:find("[dry-run] helm upgrade --install sim oci://ghcr.io/llm-d/charts/llm-d-router-standalone "
      .. "--set decode.replicas=4 --set enabled=true --set 'esc=a\\\\b{c' --set 'list[0].x=v1' --set 'lst=\\{x}' "
      .. "--set nothing=null --set 'provider.name=istio\\,namespaceOverride=kube-system' --set-string tag=123 --skip-crds "
      .. "-n llm-d-try", 1, true), r.stdout)
    t.ok(not r.stdout:find("llmd.json.object", 1, true), r.stdout)
  end)

t.test("property: helm reads every escaped string value back as written, and no second pair", function()
  local chars = { "a", ",", "\\", "{", "}", "=", ".", "[", "]", " ", "'", '"', "$", "x" }
  math.randomseed(48)
  for _ = 1, 500 do
    local v = {}
    for k = 1, math.random(0, 8) do v[k] = chars[math.random(#chars)] end
    v = table.concat(v)
    local flag, arg = cluster.helm_set_arg("a.b", v)
    local name, got, rest = helm_reads(arg)
    t.eq({ name, got, rest }, { "a.b", v, "" }, ("%q as %s %s"):format(v, flag, arg))
    -- (a leading '{' would be a list: escaped)
    t.ok(arg:sub(5, 5) ~= "{", arg)
  end
end)

t.test("a mapping or list as a set: value, or a key helm would split, is refused at the plan check", function()
  local s = helm_setup("{decode: {replicas: 4}}")
  local r = dry(s)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, "llmdlua: " .. s.plan .. ": runs.a.deploy.set.decode: a mapping is not a --set value (helm's --set "
    .. "takes one value: a mapping would reach it as text); give it in values_override (decode: ...), or one dotted "
    .. "key per value (decode.KEY: VALUE)\n")
  t.eq(#calls(s), 0, "no cluster call")
  s = helm_setup("{args: [a, b]}")
  r = dry(s)
  t.ok(r.stderr:find("runs.a.deploy.set.args: a list is not a --set value", 1, true), r.stderr)
  local why = " (helm's --set grammar: '.' separates the parts of the path, [N] indexes a list; a '\\' before '=', "
    .. "',', '.' or '[' makes it part of a name)"
  for key, said in pairs { ["a=b"] = "helm would end the key at its '='",
    ["a,b"] = "helm would read its ',' as the start of another KEY=VALUE", ["a..b"] = "it has an empty part",
    [".a"] = "it has an empty part", ["a."] = "it has an empty part", ["a[x]"] = "an index must be [N] after a name",
    ["[0]"] = "an index must be [N] after a name", ["a[0]b"] = "after [N] comes '.', another [N] or the end",
    ["a\\"] = "it ends in '\\', which escapes nothing" } do
    t.eq(cluster.helm_set_key_problem(key), ("'%s': %s"):format(key, said) .. why, key)
  end
  for _, key in ipairs { "a.b", "a[0].b", "a[0][1]", "podAnnotations.prometheus\\.io/scrape", "x-y_z" } do
    t.eq(cluster.helm_set_key_problem(key), nil, key)
  end
  -- in the plan: the plan's file and key
  local p = yaml.load("runs:\n  a:\n    deploy:\n      set: {'a=b': 1}\n")
  t.eq(cluster.helm_set_problems(p.runs.a.deploy.set, "runs.a.deploy.set"), { { key = "runs.a.deploy.set.a=b",
    why = "'a=b': helm would end the key at its '='" .. why } })
end)

-- mend54 #3: a count or name given by --set is held to what values_override's is (a
-- decode.replicas: two reached helm as --set-string decode.replicas=two). Expected texts by
-- hand, as the values_override refusal words them (test_mistyped_values).
t.test("set: decode.replicas: two, -2 or 1.5, and a namespace no Kubernetes name, are refused at the plan check",
  function()
  local s = helm_setup("{decode.replicas: two}")
  local r = dry(s)
  t.eq(r.code, 1, r.stdout .. r.stderr)
  t.eq(r.stderr, "llmdlua: " .. s.plan .. ": runs.a.deploy.set.decode.replicas: expected a whole number of "
    .. "replicas (0 or more), got 'two'\n")
  t.eq(#calls(s), 0, "no cluster call")
  local function problems(text)
    return cluster.helm_set_problems(yaml.load("set: " .. text .. "\n").set, "runs.a.deploy.set")
  end
  local why = "expected a whole number of replicas (0 or more), got "
  t.eq(problems("{decode.replicas: -2}"), { { key = "runs.a.deploy.set.decode.replicas", why = why .. "-2" } })
  t.eq(problems("{prefill.replicas: 1.5}"), { { key = "runs.a.deploy.set.prefill.replicas", why = why .. "1.5" } })
  t.eq(problems("{decode.replicas: '2'}"), { { key = "runs.a.deploy.set.decode.replicas", why = why .. "'2'" } })
  t.eq(#problems("{routing.namespaceOverride: Bad_NS}"), 1)
  t.eq(problems("{routing.namespaceOverride: Bad_NS}")[1].key, "runs.a.deploy.set.routing.namespaceOverride")
  -- a count, null (helm drops the key) and other keys pass
  t.eq(problems("{decode.replicas: 0, prefill.replicas: 3, a.replicas: null, b.x: two}"), {})
end)
