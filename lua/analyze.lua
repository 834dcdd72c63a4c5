-- llmdlua analyze.lua WORKSPACE [--quiet] [--reextract] [--slo LIST] [--min-effect PCT]
--
-- Re-generates the comparison report of a workspace made by compare.lua: each run's
-- metrics come from its run_state.json when they are complete (with run_model.json), and
-- are re-extracted from run-x/results/ when missing or incomplete (or with --reextract).
-- Templates are taken from WORKSPACE/templates/ when there, so edits there show up.
-- --slo and --min-effect as in compare.lua, each for its report only: without it, the
-- comparison's own SLO (compare.lua's) and practical threshold apply again.
local args = require "llmd.args"
local cmp = require "llmd.comparison"
local json = require "llmd.json"
local lfs = require "lfs"
local ws = require "llmd.workspace"

local o = args.parse(arg, {
  command = "llmdlua analyze.lua",
  usage = "llmdlua analyze.lua WORKSPACE [--quiet] [--reextract] [--slo LIST] [--min-effect PCT]",
  options = { quiet = true, reextract = true, slo = "LIST", min_effect = "PCT" },
  positional = { min = 1, max = 1 },
})

local decision = require "llmd.decision"
-- option values: a wrong one is one line and exit 2 (llmd.args); errors in the data exit 1
local min_effect = o.min_effect and args.number("--min-effect", o.min_effect, 0, nil, "a percentage >= 0")
if o.slo then args.value(decision.parse_slo, o.slo, "--slo") end
-- a folder the command line names that is not there: a usage error (exit 2, llmd.args.path)
args.path(o[1], (o[1]:gsub("(.)/+$", "%1")), "directory", "a comparison workspace")
-- one process writing the workspace at a time (a compare.lua --resume still making it, another
-- analyze.lua): taken before it is read, so that one still being made is said to be in use,
-- not "incomplete" (what is not a workspace is ws.open's to say)
-- (only a comparison's workspace: none is made in any other folder)
if ws.kind(o[1]) == "comparison" then
  local lok, lerr = ws.lock(o[1], "analyze.lua")
  -- a workspace it cannot write (another user's, chmod -w, a read-only mount): said with how to
  -- analyze it anyway, whether the lock file was the first thing it could not write or the
  -- folder's (a lock file left writable in a read-only folder), or a folder in it the report
  -- writes into (charts/: a `chmod u+w` without -R leaves it read-only), checked before anything
  -- is written, never a temporary file's name as the reason
  if lok then
    local why
    lok, why = ws.writable(o[1])
    if not lok then lerr = ("%s: cannot write in this workspace: %s"):format(o[1], why) end
  end
  if lok and lfs.attributes(o[1] .. "/charts", "mode") == "directory" then
    local why
    lok, why = ws.writable(o[1] .. "/charts")
    if not lok then lerr = ("%s: cannot write in this workspace's charts/ folder: %s"):format(o[1], why) end
  end
  if not lok then
    if lerr:find("Permission denied$") or lerr:find("Read%-only file system$") then
      lerr = lerr .. "; " .. ws.read_only_advice(o[1])
    end
    io.stderr:write("analyze.lua: ", lerr, "\n")
    os.exit(2)
  end
end
local wok, w = pcall(ws.open, o[1], { slo = o.slo })
if not wok then
  -- a folder that is no comparison's workspace (a results folder, an experiment's) is a wrong
  -- argument: a usage error (exit 2), as compare.lua --resume says of the same mistake; one
  -- that is a comparison's, incomplete or broken, is an error in the data (exit 1)
  if ws.kind(o[1]) ~= "comparison" and not ws.incomplete(o[1]) then
    local e = tostring(w)
    if not lfs.attributes(o[1] .. "/experiment-state.json") then
      e = ("%s: not a comparison workspace (no run-a/ and run-b/ of compare.lua's beside its report or plan); "
        .. "analyze.lua re-generates the report of one compare.lua made - two results folders are compared with "
        .. "llmdlua compare.lua --a DIR --b DIR"):format((o[1]:gsub("(.)/+$", "%1")))
    end
    require("llmd.errors").exit(e, 2)
  end
  error(w, 0)
end
-- a Ctrl-C says what it left: which files this run had re-written, which are the last
-- report's (llmd.comparison.interrupted_analyze), never a bare "interrupted"
local before = cmp.report_snapshot(w.path)
local regenerated = false
local chart_failures = {} -- the charts gnuplot failed to draw (the report written without them)
local ok, err = pcall(function()
  local prev = w.path .. "/comparison.json"
  local doc = lfs.attributes(prev, "mode") == "file" and json.read(prev) or nil
  -- the practical threshold: --min-effect, else the comparison's own (compare.lua's, which
  -- comparison.json keeps as comparison_min_effect across analyze.lua runs: an analyze.lua
  -- --min-effect holds for its own report only, as its --slo does; tidy55), else (a workspace
  -- of an older llmdlua, which does not record it) the last report's
  local last_me = doc and type(doc.min_effect) == "number" and doc.min_effect or nil
  local own_me, own_me_by
  if doc and type(doc.comparison_min_effect) == "number" then
    own_me = doc.comparison_min_effect
    own_me_by = type(doc.comparison_min_effect_by) == "string" and doc.comparison_min_effect_by or "the comparison's"
  elseif last_me then
    own_me, own_me_by = last_me,
      "the last report's (its comparison.json, of an older llmdlua, does not record the comparison's own)"
  end
  if not min_effect and own_me then
    min_effect = own_me
    if last_me and last_me ~= own_me then
      io.stderr:write(("analyze.lua: note: the last report applied a practical threshold of %s %% (an analyze.lua "
        .. "--min-effect, which holds for its own report only); this one applies the comparison's own again, %s %% "
        .. "(%s); to apply another, give --min-effect\n"):format(decision.thr_num(last_me), decision.thr_num(own_me),
        own_me_by))
    end
  end
  local states = { a = ws.read_state(w.path, "a"), b = ws.read_state(w.path, "b") }
  -- a workspace copied or moved: its states and saved run models name the folder it was made
  -- in (run-x/results there, which run_state.json keeps saying); below they are read as this
  -- folder's, so that the report and run_comparison.sh name this copy, never the original
  local was = {}
  for _, x in ipairs { "a", "b" } do
    local rp = states[x].results_path
    local from = type(rp) == "string" and rp:match("^(.+)/run%-" .. x .. "/results$")
    if from and from ~= w.path then was[#was + 1] = from end
  end
  -- the SLOs: --slo, else the comparison's own (the one compare.lua applied, which
  -- comparison.json keeps as comparison_slo across analyze.lua runs: an analyze.lua --slo holds
  -- for its own report only, newuser54 #2), else (a workspace of an older llmdlua, which does
  -- not record it) the last report's, else the info files'
  local function listed(v, where)
    -- (in the report's order: the order they were given in)
    local m = {}
    for _, s in ipairs(v) do
      if type(s) == "table" and s.key then m[#m + 1] = { key = s.key, max = s.max } end
    end
    return decision.parse_slo(m, where)
  end
  local last = doc and type(doc.slo) == "table" and listed(doc.slo, prev .. ": slo") or nil
  local own, own_by
  if doc and type(doc.comparison_slo) == "table" then
    own = listed(doc.comparison_slo, prev .. ": comparison_slo")
    own_by = type(doc.comparison_slo_by) == "string" and doc.comparison_slo_by or "the comparison's"
  elseif states.a.slo_by and states.a.slo_by == states.b.slo_by and not states.a.slo_from then
    -- (an older workspace made with --plan: its runs record the SLO their comparison held them to)
    own = cmp.resolve_slo({ state = states.a }, { state = states.b })
    if last and decision.same_slo(last, own) then own = last end
    own_by = states.a.slo_by == "plan" and "the plan's slo:" or "compare.lua's --slo"
  elseif last then
    own, own_by = last,
      "the last report's (its comparison.json, of an older llmdlua, does not record the comparison's own)"
  end
  local slo
  if o.slo then
    slo = decision.parse_slo(o.slo, "--slo")
  elseif own then
    slo = own
    if last and not decision.same_slo(last, own) then
      io.stderr:write(("analyze.lua: note: the last report applied %s (an analyze.lua --slo, which holds for its "
        .. "own report only); this one applies the comparison's own SLO again, %s (%s); to apply another, give "
        .. "--slo\n"):format(#last > 0 and decision.slo_phrase(last) or "no SLO",
        #own > 0 and decision.slo_phrase(own) or "no SLO", own_by))
    end
  end
  slo = cmp.resolve_slo({ state = states.a }, { state = states.b }, { slo = slo })
  -- goodput is counted while reading the results: other SLOs than the saved ones re-read them
  local function same_slo(state)
    local saved = state.goodput_slo or ""
    return saved == decision.slo_phrase(slo)
  end
  local sides, reextracted = {}, false
  for _, x in ipairs { "a", "b" } do
    local state = states[x]
    local side = not o.reextract and same_slo(state) and cmp.saved_side(w, x, state) or nil
    if not side then
      local eo = type(state.extract_options) == "table" and state.extract_options or {}
      side = cmp.extract_side(w, x, state, { require_results = true, harness = eo.harness,
        warmup = eo.warmup, percentile_method = eo.percentile_method, slo = slo,
        tolerant = eo.tolerant })
      cmp.save_run(w, side)
      reextracted = true
    end
    sides[x] = side
  end
  -- the two runs judged by one rule: where one side was read now (or saved since) and the
  -- other was saved under an older one (llmd.comparison.old_saturation), the older is read
  -- again from its results, else its figures would be set against the other's by another
  -- rule; where its results cannot be read, the report says the rules differ
  for _, pair in ipairs { { "a", "b" }, { "b", "a" } } do
    local old, other = sides[pair[1]], sides[pair[2]]
    if old.old_saturation and not other.old_saturation then
      local state = states[pair[1]]
      local eo = type(state.extract_options) == "table" and state.extract_options or {}
      local ok2, side = pcall(cmp.extract_side, w, pair[1], state, { require_results = true, harness = eo.harness,
        warmup = eo.warmup, percentile_method = eo.percentile_method, slo = slo, tolerant = eo.tolerant })
      -- (a Ctrl-C is not taken for unreadable results: it stops analyze.lua, below)
      if not ok2 and tostring(side):match("interrupted$") then error(side, 0) end
      if ok2 then
        io.stderr:write(("analyze.lua: %s (%s): %s; read again from its results, as %s is judged by the current "
          .. "rule\n"):format(old.label or pair[1], pair[1], old.old_saturation, other.label or pair[2]))
        cmp.save_run(w, side)
        sides[pair[1]], reextracted = side, true
      else
        old.run.mixed_rule = ("%s's figures are judged by an older rule than %s's (its results could not be read "
          .. "again: %s)"):format(old.label or pair[1], other.label or pair[2], tostring(side))
      end
    end
  end
  for _, x in ipairs { "a", "b" } do
    local side = sides[x]
    -- a side from its saved model whose run-x/results is no longer in the workspace (deleted,
    -- or a link to a folder gone): its figures cannot be read again, and the report would
    -- name the results as if read; said in one line here and in the report's Results row
    -- (newuser52 #9: run-b/results deleted, the report made from the saved model, said nowhere)
    local rdir = ws.run_dir(w, x) .. "/results"
    if side.run.model_only == nil and lfs.attributes(rdir, "mode") ~= "directory"
      and lfs.attributes(ws.run_dir(w, x) .. "/run_model.json", "mode") == "file" then
      side.run.model_only = ("run-%s/results is not in the workspace: its figures are the saved run-%s/run_model.json "
        .. "and run_state.json, not read again from results"):format(x, x)
      io.stderr:write(("analyze.lua: note: %s (%s): %s\n"):format(side.label or x, x, side.run.model_only))
    end
    if side.old_saturation then
      -- (said on stderr too: the report's Data checks are read after its verdict)
      io.stderr:write(("analyze.lua: warning: %s (%s): %s; %s reads the results again and judges saturation by the "
        .. "pace or the drain-reduced rate\n"):format(side.label or x, x, side.old_saturation,
        cmp.reextract_command(w.path)))
    end
    if side.run.gpus_stale then
      -- (one line; the report's Data checks and per-GPU cells say it too)
      io.stderr:write(("analyze.lua: warning: %s (%s): %s\n"):format(side.label or x, x, side.run.gpus_stale))
    end
    -- (saved as it was; read as this folder's: its commands, shell words, are left to
    -- run_comparison.sh, which writes them "$COMPARISON_DIR"/...)
    for _, from in ipairs(was) do
      cmp.swap_paths(side.state, from, w.path, { [side.state.commands or false] = true })
      cmp.swap_paths(side.run, from, w.path, {})
      cmp.swap_paths(side.kv, from, w.path, {})
    end
  end
  -- significance tests need the samples; when a side came from saved state, reuse the
  -- tests the last report made
  local sig
  if doc then
    sig = {}
    for _, r in ipairs(doc.perf or {}) do
      if type(r.sig) == "table" then sig[r.key] = r.sig end
      -- (and why a row's samples were not tested: too dependent, overloaded)
      if not sig[r.key] and type(r.untested_why) == "string" then sig[r.key] = { untested_why = r.untested_why } end
    end
    -- the summary's test at the highest load both runs measured
    if type(doc.matched_point) == "table" then sig._matched_point = doc.matched_point end
  end
  -- what the last report found of the two runs' files (compare.lua's words, naming the user's
  -- folders), said again; else the same check as compare.lua's (the same files, or the same
  -- figures) on the workspace's copies, whichever way it was made (--a/--b, --plan, --resume):
  -- llmd.comparison.report runs it
  local identical = doc and type(doc.identical) == "string" and doc.identical or nil
  if identical then
    local t = { identical }
    for _, from in ipairs(was) do cmp.swap_paths(t, from, w.path, {}) end
    identical = t[1]
  end
  if identical then io.stderr:write("analyze.lua: warning: ", identical, "\n") end
  local model = cmp.report(w, sides.a, sides.b, { significance = sig, slo = slo, min_effect = min_effect,
    identical = identical, prog = "analyze.lua", slo_where = o.slo and "--slo" or nil, workspace_was = was,
    slo_own = own, slo_own_by = own_by, min_effect_own = own_me, min_effect_own_by = own_me_by })
  regenerated = true
  cmp.say_left_out(model, "analyze.lua") -- (as compare.lua says them)
  if not o.quiet then io.write(model.text, "\n") end
  io.write(("Comparison report written to: %s%s\n"):format(model.path,
    reextracted and " (metrics re-extracted from the results)" or ""))
  io.write(cmp.html_line(model))
  -- the workspace's templates that are not this version's (older copies, or edits): said
  -- once, never rewritten (fixd46: a workspace made before fixh45 drew the one-point cap)
  local note = cmp.templates_note(w, cmp.templates_differ(w))
  if note then io.write(note, "\n") end
  chart_failures = model.chart_failures
end)
if not ok then
  -- (a Ctrl-C not yet raised, the error being another's, is taken now: it would cut this short)
  if tostring(err):match("interrupted$") or require("llmd.proc").take_interrupt() then
    io.stdout:flush()
    -- (the options that shape the report, to give again: --quiet does not)
    local given = {}
    if o.reextract then given[#given + 1] = "--reextract" end
    if o.slo then given[#given + 1], given[#given + 2] = "--slo", o.slo end
    if o.min_effect then given[#given + 1], given[#given + 2] = "--min-effect", o.min_effect end
    io.stderr:write(cmp.interrupted_analyze(w.path, before, regenerated, given), "\n")
    os.exit(130)
  end
  error(err, 0)
end
-- a chart gnuplot failed to draw (a template edited wrong): the report is written without
-- it, and says why; the exit status says it failed
if #(chart_failures or {}) > 0 then
  for _, f in ipairs(chart_failures) do io.stderr:write("analyze.lua: error: ", f, "\n") end
  os.exit(1)
end
