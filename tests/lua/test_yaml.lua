-- llmd.yaml: core-schema scalars, anchors and merge keys, key order, errors, dump.
-- Expected values: the YAML 1.2.2 spec's core schema (section 10.3.2) for scalars;
-- PyYAML's yaml.safe_load for merge keys (the command is written beside them);
-- PyYAML reports the same error positions as libyaml, which both use.
local t = require "testlib"
local yaml = require "llmd.yaml"
local json = require "llmd.json"

t.test("plain scalars resolve by the YAML 1.2 core schema", function()
  local cases = {
    { "~", yaml.null }, { "null", yaml.null }, { "Null", yaml.null }, { "", yaml.null },
    { "true", true }, { "False", false }, { "TRUE", true },
    { "0", 0 }, { "-19", -19 }, { "+12", 12 }, { "0o14", 12 }, { "0x1F", 31 }, { "0xC", 12 },
    { "1.0", 1.0 }, { "-1.5e3", -1500.0 }, { "1e3", 1000.0 }, { ".5", 0.5 }, { "1.", 1.0 },
    { ".inf", math.huge }, { "-.Inf", -math.huge }, { "+.INF", math.huge },
    -- YAML 1.1 booleans, sexagesimals and underscores are strings in 1.2
    { "yes", "yes" }, { "off", "off" }, { "1_000", "1_000" }, { "1:20", "1:20" },
    { "0x", "0x" }, { "--", "--" }, { "v1.2.3", "v1.2.3" }, { "1e", "1e" },
    { "12345678901234567890", 12345678901234567890.0 }, -- beyond int64: nearest float
  }
  for _, c in ipairs(cases) do
    local v = yaml.load("x: " .. c[1]).x
    t.eq(v, c[2], "x: " .. c[1])
  end
  local nan = yaml.load("x: .nan").x
  t.ok(nan ~= nan, ".nan is NaN")
end)

t.test("quoted scalars and !!str stay strings; explicit tags convert", function()
  local v = yaml.load([[
a: "123"
b: '1.5'
c: !!str 7
d: !!float 3
e: !!int "42"
f: "~"
g: !!bool "true"
]])
  t.eq(v, { a = "123", b = "1.5", c = "7", d = 3.0, e = 42, f = "~", g = true })
  t.raises("'abc' is not a valid int", yaml.load, "x: !!int abc")
  t.raises("unsupported tag '!custom'", yaml.load, "x: !custom 1")
  t.raises("unsupported tag 'tag:yaml.org,2002:set'", yaml.load, "x: !!set {a, b}")
end)

t.test("merge keys: explicit keys win, earlier sources win, order kept", function()
  -- python3: yaml.safe_load(src) gives these values (json.dumps(..., sort_keys=True))
  local src = [[
base: &base
  image: vllm/vllm-openai
  replicas: 2
  args: [--port, 8000]
decode:
  <<: *base
  replicas: 4
prefill:
  name: p
  <<: [*base, {gpu: 1, replicas: 9}]
]]
  local v = yaml.load(src)
  t.eq(json.encode(v),
    '{"base":{"args":["--port",8000],"image":"vllm/vllm-openai","replicas":2},'
    .. '"decode":{"args":["--port",8000],"image":"vllm/vllm-openai","replicas":4},'
    .. '"prefill":{"args":["--port",8000],"gpu":1,"image":"vllm/vllm-openai","name":"p","replicas":2}}')
  -- our order: explicit keys where they stand, merged keys at the '<<'
  t.eq(yaml.keys(v.prefill), { "name", "image", "replicas", "args", "gpu" })
  t.eq(yaml.keys(v.decode), { "image", "replicas", "args" })
  -- a=1 :=2 ' '=3 {=4 x=5 :=6 ' '=7 1=8 ,=9 ' '=10 <<=11
  t.raises("yaml:1:11: merge key '<<' needs a mapping or a sequence of mappings", yaml.load,
    "a: {x: 1, <<: 3}")
end)

t.test("aliases share one value; unknown anchors are an error", function()
  local v = yaml.load("a: &x [1, 2]\nb: *x\n")
  t.ok(v.a == v.b)
  t.raises("yaml:1:4: unknown anchor 'nope'", yaml.load, "a: *nope")
end)

t.test("mapping key order is recorded and used by keys, pairs and dump", function()
  local src = "zeta: 1\nalpha: 2\nmid:\n  b: 1\n  a: 2\n"
  local v = yaml.load(src)
  t.eq(yaml.keys(v), { "zeta", "alpha", "mid" })
  local seen = {}
  for k, val in yaml.pairs(v.mid) do seen[#seen + 1] = k .. "=" .. val end
  t.eq(seen, { "b=1", "a=2" })
  t.eq(yaml.dump(v), src)
  -- keys added later come after the recorded ones, sorted
  v.beta, v.aaa = 3, 4
  t.eq(yaml.keys(v), { "zeta", "alpha", "mid", "aaa", "beta" })
  v.alpha = nil
  t.eq(yaml.keys(v), { "zeta", "mid", "aaa", "beta" })
end)

t.test("errors carry name:line:column, as libyaml (and PyYAML) report them", function()
  -- python3: yaml.safe_load("a: 1\nb: [1, 2\nc: 3\n") -> expected ',' or ']', line 3 column 2
  t.raises("cfg.yaml:3:2: did not find expected ',' or ']' while parsing a flow sequence "
    .. "(started at line 2, column 4)", yaml.load, "a: 1\nb: [1, 2\nc: 3\n", "cfg.yaml")
  -- python3: yaml.safe_load("a: 1\n  b: 2\n") -> "mapping values are not allowed here",
  -- line 2, column 4; libyaml words it "... in this context"
  t.raises("yaml:2:4: mapping values are not allowed in this context", yaml.load, "a: 1\n  b: 2\n")
  t.raises("yaml:2:1: duplicate key 'a'", yaml.load, "a: 1\na: 2\n")
  t.raises("unsupported mapping key: only scalar keys", yaml.load, "? [1, 2]\n: x\n")
  t.raises("yaml:1:4: found character that cannot start any token", yaml.load, "a: @x")
  t.raises("yaml:1:5: invalid leading UTF-8 octet (byte 0xff)", yaml.load, "a: \"\xff\"")
  -- b=1 é=2 \xc3=3 ':'=4: libyaml blames the ':' that cannot continue the sequence
  t.raises("yaml:2:4: invalid trailing UTF-8 octet (byte 0x3a)", yaml.load, "a: 1\nb\u{e9}\xc3: 2")
end)

t.test("multi-document streams: load_all, and load refuses more than one", function()
  local docs = yaml.load_all("---\na: 1\n---\n- x\n...\n---\n")
  t.eq(#docs, 3)
  t.eq(docs[1], { a = 1 })
  t.eq(docs[2], { "x" })
  t.eq(docs[3], yaml.null)
  t.raises("expected one YAML document, found 2 (use yaml.load_all)", yaml.load, "a: 1\n---\nb: 2\n")
  t.eq(yaml.load(""), nil)
end)

t.test("dump quotes strings that would read back as something else", function()
  local v = { "123", "true", "yes", "~", "", "1.5", "0x10", ".inf", "null", "2026-11-29",
    "plain", "has: colon", "multi\nline\n", 7, 2.5, 1.0, true, yaml.null, math.huge, -math.huge }
  local text = yaml.dump(v)
  local back = yaml.load(text)
  t.eq(back, v)
  t.eq(math.type(back[16]), "float")
  t.ok(text:find('"yes"', 1, true), "YAML 1.1 booleans are quoted for Helm's sake")
end)

t.test("dump then load gives back an equal document, empties included", function()
  local v = yaml.load([[
name: llm-d
stack:
  guide: inference-scheduling
  replicas: 2
  ratio: 0.25
  empty_list: []
  empty_map: {}
  flags: [--enable-prefix-caching, "--max-num-seqs=256"]
  note: |
    line one
    line two
nothing: null
]])
  local back = yaml.load(yaml.dump(v))
  t.eq(back, v)
  t.ok(json.is_array(back.stack.empty_list))
  t.ok(not json.is_array(back.stack.empty_map))
  t.eq(yaml.keys(back.stack), yaml.keys(v.stack))
end)

t.test("load_file reads a file and names it in errors", function()
  local dir = t.tmpdir()
  t.write(dir .. "/plan.yaml", "runs:\n  - label: a\n  - label: b\n")
  t.eq(yaml.load_file(dir .. "/plan.yaml"), { runs = { { label = "a" }, { label = "b" } } })
  t.write(dir .. "/bad.yaml", "runs:\n  - label: a\n - label: b\n")
  t.raises(dir .. "/bad.yaml:3:2:", yaml.load_file, dir .. "/bad.yaml")
  t.raises(dir .. "/none.yaml: cannot open: No such file or directory", yaml.load_file,
    dir .. "/none.yaml")
  t.eq(#yaml.load_file(dir .. "/plan.yaml", { all = true }), 1)
end)

t.test("deep nesting is an error, not a crash", function()
  t.raises("nesting deeper than 1000 levels", yaml.load, string.rep("[", 1001) .. string.rep("]", 1001))
  local ok = yaml.load(string.rep("[", 500) .. string.rep("]", 500))
  t.eq(type(ok), "table")
end)

t.test("alias expansion is bounded: a billion laughs is refused, naming the file and node", function()
  -- by hand: a = ["lol"] is 2 nodes, each level 1 + 10 * the level below (21, 211,
  -- 2111, 21111, ...): a 13-line plan of 9 levels is 2 * 10^8 nodes to whoever walks it
  -- (yaml.dump grew past 20 GB)
  local lines = { 'a: &a ["lol"]' }
  local names = { "a", "b", "c", "d", "e", "f", "g", "h", "i" }
  for k = 2, 9 do
    local refs = {}
    for r = 1, 10 do refs[r] = "*" .. names[k - 1] end
    lines[k] = ("%s: &%s [%s]"):format(names[k], names[k], table.concat(refs, ", "))
  end
  local text = table.concat(lines, "\n") .. "\n"
  -- d (line 4) is 2111 nodes from 40 written (the root, 4 keys, 4 sequences, "lol", 30
  -- aliases): 98.1% aliased, allowed (at most 99% below 400,000 nodes); e (line 5) is
  -- 21111 nodes from 52: 99.75% aliased, refused
  t.raises("plan.yaml:5:4: excessive aliasing: this node expands to 21111 nodes through aliases, "
    .. "from 52 nodes written in the document",
    yaml.load, text, "plan.yaml")
  local ok = yaml.load(table.concat(lines, "\n", 1, 4) .. "\n", "small.yaml")
  t.eq(#ok.d, 10)
  t.ok(ok.d[1] == ok.c and ok.c[10] == ok.b) -- aliases still share one value
  -- merge keys and ordinary anchors are far below the bound
  local m = yaml.load("base: &b {x: 1, y: 2}\nr1: {<<: *b, y: 3}\nr2: {<<: *b}\n")
  t.eq({ m.r1.x, m.r1.y, m.r2.y }, { 1, 3, 2 })
end)

-- llmd.yamlout places each scalar at its own indent: a string that yaml.dump writes as a
-- literal block (it has a newline) was indented for a document of its own, so an error
-- text of two lines in experiment-summary.yaml made the file unreadable ("could not find
-- expected ':'"). Expected: the strings themselves, read back (here and by PyYAML: the
-- dumped document below gives the same values under python3 -c 'yaml.safe_load').
t.test("yamlout: strings with newlines, returns and control characters read back, at any depth", function()
  local yo = require "llmd.yamlout"
  local strs = { "deploy failed:\nError: UPGRADE FAILED: timed out", "two\r\nlines", "bell\7 and tab\t",
    "ends with newline\n", '"quoted": \\back\\slash\n', "plain: with colon", "é\n" }
  local items = {}
  for i, s in ipairs(strs) do items[i] = yo.map("setup_treatment", "t" .. i, "error", s) end
  local text = yo.dump(yo.map("experiment", "x", "treatments", items))
  local back = yaml.load(text)
  for i, s in ipairs(strs) do t.eq(back.treatments[i].error, s, ("string %d"):format(i)) end
  -- one line a key: no block scalar left in the document
  local lines = select(2, text:gsub("\n", "\n"))
  t.eq(lines, 1 + 1 + 2 * #strs, text)
end)
