-- An option that takes one value, given twice, is refused in every script by the one rule of
-- llmd.args.parse (audit52 F4: --slo ttft_p90_ms=500 --slo itl_p90_ms=50 kept the last and
-- ranked by ITL alone; a second --out won likewise). Expected lines written by hand.
local t = require "testlib"
local proc = require "llmd.proc"

local LLMDLUA = t.root() .. "/llmdlua"
local VLLM = t.root() .. "/tests/fixtures/kubecon-na-2025_vllm"

local SLO_TWICE = "--slo given twice ('ttft_p90_ms=500', then 'itl_p90_ms=50'): it takes one value; give every "
  .. "SLO in one --slo, comma separated (ttft_p90_ms=500,itl_p90_ms=50)"

t.test("--slo given twice: one line saying to give every SLO in one --slo, exit 2, nothing written", function()
  local cwd = t.tmpdir()
  for _, c in ipairs {
    { "compare.lua", { "--a", VLLM, "--b", VLLM, "--parent", cwd } },
    { "treatments.lua", { "--run", "a=" .. VLLM, "--run", "b=" .. VLLM, "--out", cwd .. "/o" } },
    { "extract.lua", { VLLM } },
    { "analyze.lua", { cwd } },
  } do
    local argv = { LLMDLUA, t.root() .. "/lua/" .. c[1] }
    for _, a in ipairs(c[2]) do argv[#argv + 1] = a end
    for _, a in ipairs { "--slo", "ttft_p90_ms=500", "--slo=itl_p90_ms=50", "--quiet" } do argv[#argv + 1] = a end
    if c[1] == "extract.lua" then argv[#argv] = nil end
    local r = proc.run(argv, { cwd = cwd })
    local cmd = c[1] == "treatments.lua" and "llmdlua treatments.lua" or ("llmdlua " .. c[1])
    t.eq({ r.code, r.stderr, r.stdout }, { 2, ("%s: %s; see %s --help\n"):format(c[1], SLO_TWICE, cmd), "" }, c[1])
  end
  t.eq(proc.run({ "ls", "-A", cwd }).stdout, "", "nothing written")
end)

t.test("--out given twice is refused too; a flag given twice is the flag", function()
  local cwd = t.tmpdir()
  local r = proc.run({ LLMDLUA, t.root() .. "/lua/treatments.lua", "--run", "a=" .. VLLM, "--out", "x", "--out", "y" },
    { cwd = cwd })
  t.eq({ r.code, r.stderr }, { 2, "treatments.lua: --out given twice ('x', then 'y'): it takes one value; see llmdlua "
    .. "treatments.lua --help\n" })
  r = proc.run({ LLMDLUA, t.root() .. "/lua/extract.lua", VLLM, "--json", "--json" }, { cwd = cwd })
  t.eq(r.code, 0, r.stderr)
  -- (--run, repeatable by its help, stays repeatable)
  r = proc.run({ LLMDLUA, t.root() .. "/lua/treatments.lua", "--run", "a=" .. VLLM, "--run", "b=" .. VLLM, "--out",
    cwd .. "/o", "--quiet" }, { cwd = cwd })
  t.eq(r.code, 0, r.stderr)
end)

-- newuser55: "--slo ttft_p90_ms=800 tpot_p90_ms=40" (the list split by a space) said only
-- "unexpected argument tpot_p90_ms=40"; the line now says to join the items with commas and
-- gives the joined list. Expected line written by hand.
t.test("--slo list split by a space: the extra argument's line says to join the items with commas", function()
  local cwd = t.tmpdir()
  local r = proc.run({ LLMDLUA, t.root() .. "/lua/compare.lua", "--a", VLLM, "--b", VLLM, "--parent", cwd,
    "--slo", "ttft_p90_ms=800,", "tpot_p90_ms=40", "itl_p90_ms=30" }, { cwd = cwd })
  t.eq({ r.code, r.stderr, r.stdout }, { 2, "compare.lua: unexpected argument tpot_p90_ms=40 after --slo "
    .. "ttft_p90_ms=800,: --slo takes one value, its items joined by commas with no spaces (--slo "
    .. "ttft_p90_ms=800,tpot_p90_ms=40,itl_p90_ms=30); see llmdlua compare.lua --help\n", "" })
  -- an extra argument after a value that is no list keeps the usage line
  r = proc.run({ LLMDLUA, t.root() .. "/lua/compare.lua", "--a", VLLM, "--b", VLLM, "extra" }, { cwd = cwd })
  t.eq(r.code, 2)
  t.ok(r.stderr:find("^compare.lua: unexpected argument extra\nusage: "), r.stderr)
  t.eq(proc.run({ "ls", "-A", cwd }).stdout, "", "nothing written")
end)
