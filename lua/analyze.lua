-- llmdlua analyze.lua WORKSPACE [--quiet] [--reextract]
--
-- Re-generates the comparison report of a workspace made by compare.lua: each run's
-- metrics come from its run_state.json when they are complete (with run_model.json), and
-- are re-extracted from run-x/results/ when missing or incomplete (or with --reextract).
-- Templates are taken from WORKSPACE/templates/ when there, so edits there show up.
local args = require "llmd.args"
local cmp = require "llmd.comparison"
local json = require "llmd.json"
local lfs = require "lfs"
local ws = require "llmd.workspace"

local o = args.parse(arg, {
  usage = "llmdlua analyze.lua WORKSPACE [--quiet] [--reextract]",
  options = { quiet = true, reextract = true },
  positional = { min = 1, max = 1 },
})

local w = ws.open(o[1])
local sides, reextracted = {}, false
for _, x in ipairs { "a", "b" } do
  local state = ws.read_state(w.path, x)
  local side = not o.reextract and cmp.saved_side(w, x, state) or nil
  if not side then
    local eo = type(state.extract_options) == "table" and state.extract_options or {}
    side = cmp.extract_side(w, x, state, { require_results = true, harness = eo.harness,
      warmup = eo.warmup, percentile_method = eo.percentile_method })
    cmp.save_run(w, side)
    reextracted = true
  end
  sides[x] = side
end
-- significance tests need the samples; when a side came from saved state, reuse the
-- tests the last report made
local sig
local prev = w.path .. "/comparison.json"
if lfs.attributes(prev, "mode") == "file" then
  local doc = json.read(prev)
  sig = {}
  for _, r in ipairs(doc.perf or {}) do
    if type(r.sig) == "table" then sig[r.key] = r.sig end
  end
end
local model = cmp.report(w, sides.a, sides.b, { significance = sig })
if not o.quiet then io.write(model.text, "\n") end
io.write(("Comparison report written to: %s%s\n"):format(model.path,
  reextracted and " (metrics re-extracted from the results)" or ""))
io.write(cmp.html_line(model))
