-- llmd.charts: the report's charts. Lua only prepares each chart's data, from the
-- comparison model and the two runs: a data file and the gnuplot variables the chart's
-- template reads. gnuplot draws it, from an editable template templates/charts/NAME.gp,
-- as SVG on its standard output; nothing here draws.
--
--   local charts = require "llmd.charts"
--   local list = charts.prepare(model, side_a, side_b)  -- { {name=, title=, available=, reason=,
--                                                       --    notes=, data=, vars=}, ... }
--   charts.render(list, templates_dir, out_dir)         -- writes out_dir/NAME.dat and NAME.svg
--   local p = charts.start(list, templates_dir, out_dir, gp) -- the same, gnuplot in the background:
--   charts.finish({ p })                                -- waits; charts.abort(p) stops it
--
-- A chart without data is not drawn: available = false and reason, one sentence saying why.
-- The variables every template gets: datafile ('NAME.dat', gnuplot runs in out_dir),
-- style_file (templates_dir/charts/style.gp), title, label_a, label_b, plus the chart's own
-- (named at the top of each template). Text given to gnuplot is one line of valid UTF-8 in
-- single-quoted pieces, where gnuplot interprets nothing, a ' as "'" (M.gp_string); gnuplot's SVG
-- terminal writes '<' and '&' as entities, render the '>' of "]]>" (checked by
-- tests/lua/test_charts.lua).
local exitstatus = require "llmd.exitstatus"
local lfs = require "lfs"
local proc = require "llmd.proc"
local decision = require "llmd.decision"
local host = require "llmd.host"
local lp = require "llmd.loadpoints"
local metrics = require "llmd.metrics"
local rm = require "llmd.runmodel"
local stats = require "llmd.stats"
local ws = require "llmd.workspace"

local M = {}

M.NAMES = { "latency_throughput", "latency_cdf", "achieved_offered", "kv_cache", "errors" }
-- templates drawing a chart of one of those names where its data calls for another picture
-- (latency_throughput of runs with one load point each: latency_points.gp)
M.EXTRA_TEMPLATES = { "latency_points" }

M.NO_GNUPLOT = "Charts need gnuplot (Debian package gnuplot-nox; scripts/install-deps.sh installs it), "
  .. "and it is not on PATH: the report has its tables only."

-- Text for gnuplot and the SVG it writes: one line, no control characters, valid UTF-8
-- (an invalid byte becomes '?').
function M.clean_text(s)
  s = tostring(s):gsub("[%z\1-\31\127]+", " ")
  local out, i = {}, 1
  while i <= #s do
    local n, bad = utf8.len(s, i)
    if n then out[#out + 1] = s:sub(i); break end
    out[#out + 1] = s:sub(i, bad - 1) .. "?"
    i = bad + 1
  end
  return table.concat(out)
end

-- A gnuplot string expression for any text: single-quoted pieces, where gnuplot interprets
-- nothing (no backslash escape, no `command` or @macro substitution: a double-quoted string
-- runs a `command` in it), each ' between them as "'", joined by gnuplot's `.`. (Not the
-- doubled quote: gnuplot 5.4 refuses a string that starts with one, x = '''b'''.)
function M.gp_string(s)
  local parts = {}
  for piece, quote in M.clean_text(s):gmatch("([^']*)('?)") do
    if piece ~= "" then parts[#parts + 1] = "'" .. piece .. "'" end
    if quote ~= "" then parts[#parts + 1] = [["'"]] end
  end
  if #parts == 0 then return "''" end
  return table.concat(parts, " . ")
end

local function finite(v)
  return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge
end

-- A number for gnuplot or a data file; unknown is NaN (gnuplot skips the point).
function M.gp_number(v)
  if not finite(v) then return "NaN" end
  if math.type(v) == "integer" then return tostring(v) end
  -- the shortest text that reads back as the same number
  for _, f in ipairs { "%.15g", "%.16g" } do
    local s = f:format(v)
    if tonumber(s) == v then return s end
  end
  return ("%.17g"):format(v)
end

-- Text broken at spaces into lines of at most width characters (a longer word is cut),
-- at most max_lines of them, the last ending in "..." when the text goes on. One line is
-- the string itself; more are { lines = {...} }, which gnuplot gets joined by newlines.
function M.wrap(text, width, max_lines)
  text = M.clean_text(text):gsub("^%s+", ""):gsub("%s+$", "")
  local function len(x) return utf8.len(x) end
  local function cut(x, n) return x:sub(1, (utf8.offset(x, n + 1) or #x + 1) - 1) end
  local lines, cur = {}, ""
  local rest = text
  while rest ~= "" do
    local word, after = rest:match("^(%S+)%s*(.*)$")
    local joined = cur == "" and word or (cur .. " " .. word)
    if len(joined) <= width then
      cur, rest = joined, after
    elseif cur ~= "" then
      lines[#lines + 1], cur = cur, ""
    else -- one word longer than a line
      lines[#lines + 1] = cut(word, width)
      rest = word:sub(#lines[#lines] + 1) .. (after ~= "" and (" " .. after) or "")
    end
    if #lines == max_lines then break end
  end
  if #lines < max_lines and cur ~= "" then lines[#lines + 1], cur = cur, "" end
  if rest ~= "" or cur ~= "" then -- more than fits: the last line says so
    local last = lines[#lines]
    if len(last) > width - 3 then last = cut(last, width - 3) end
    lines[#lines] = last .. "..."
  end
  if #lines <= 1 then return lines[1] or "" end
  return { lines = lines }
end

local function gp_value(v)
  if type(v) == "string" then return M.gp_string(v) end
  if type(v) == "table" and v.lines then
    local parts = {}
    for i, l in ipairs(v.lines) do parts[i] = M.gp_string(l) end
    return table.concat(parts, ' . "\\n" . ')
  end
  if type(v) == "boolean" then return v and "1" or "0" end
  return M.gp_number(v)
end

-- The gnuplot commands that set vars ({ {name, value}, ... }; a value that is a table is
-- an array, but for M.wrap's { lines = ... }, one string of several lines), joined by "; ".
function M.preamble(vars)
  local out = {}
  for _, nv in ipairs(vars) do
    local name, v = nv[1], nv[2]
    assert(name:match("^[%a_][%w_]*$"), "bad gnuplot variable name")
    if type(v) == "table" and not v.lines then
      assert(#v > 0, "an empty gnuplot array: " .. name)
      local items = {}
      for i, x in ipairs(v) do items[i] = gp_value(x) end
      out[#out + 1] = ("array %s[%d] = [%s]"):format(name, #v, table.concat(items, ", "))
    else
      out[#out + 1] = ("%s = %s"):format(name, gp_value(v))
    end
  end
  return table.concat(out, "; ")
end

-- Data files: one row a line, blocks (gnuplot's `index`) separated by two blank lines;
-- each block ({name =, row...}, a row {n =, cells...}) after a comment line naming it
-- (a label may be anybody's text: no line end in it).
function M.data_text(header, blocks)
  local out = { "# " .. header }
  for b, rows in ipairs(blocks) do
    if b > 1 then out[#out + 1] = "\n" end
    out[#out + 1] = "# " .. rows.name:gsub("[%c]", " ")
    local list = #rows > 0 and rows or { { n = 1 } } -- an empty block would end the file early
    for _, r in ipairs(list) do
      local cells = {}
      for i = 1, r.n do cells[i] = M.gp_number(r[i]) end -- nil (unknown) is NaN
      out[#out + 1] = table.concat(cells, " ")
    end
  end
  return table.concat(out, "\n") .. "\n"
end
local data_text = M.data_text

local function row(n, ...)
  local r = { n = n }
  for i = 1, n do r[i] = select(i, ...) end
  return r
end

-- Load points -------------------------------------------------------------------------------

-- Is point p ({index, ...}) a rate load whose successful answers fell short of its load
-- because requests failed, not from overload (s: the run's llmd.loadpoints.saturation)? The
-- decision layer's own reading, llmd.loadpoints.point_unsustained's "short" (the saturation
-- search's answered_short: the failed ones make up the shortfall), so the chart's triangle
-- ("failures, not overload") is never drawn at a point the Verdict and the tables call
-- unjudged (an open-loop client's sends behind the offered rate, answered in pace: fixi49)
-- or saturated. false where the saturation is unknown for want of data.
function M.failures_shortfall(s, p)
  if type(s) ~= "table" or type(p) ~= "table" then return false end
  return lp.point_unsustained(s, p) == "short"
end

-- How a latency chart marks load point p of a run whose saturation is sat
-- (llmd.loadpoints.saturation): saturated = true at or past its saturation point (a ring, as
-- the ladder's Saturated column), failures = true where failed requests, not overload, held
-- its achieved rate down (M.failures_shortfall: a triangle, never a ring); nil where not.
-- compare.lua's chart and treatments.lua's alike.
function M.point_marks(sat, p)
  return lp.point_saturated(sat, p) or nil, M.failures_shortfall(sat, p) or nil
end

-- The run's load points: model.load_points[x] when the comparison model has them (the
-- decision layer), else the measured stages. Each: {offered=, load_type = "rate" |
-- "concurrency" | "unknown", achieved_rps=, output_tps=, values = {metric key = number},
-- saturated = true at or past the run's saturation point (model.saturation, the decision
-- layer's; never from the stages alone), unsustained = why the tests leave it out
-- ("saturated", "unjudged", "short": llmd.decision.point_unsustained, their one rule), nil
-- where they keep it}.
function M.load_points(model, side)
  local mp = type(model.load_points) == "table" and model.load_points[side.x] or nil
  local sat = type(model.saturation) == "table" and type(model.saturation[side.x]) == "table"
    and model.saturation[side.x] or nil
  local out = {}
  if type(mp) == "table" then
    for _, p in ipairs(mp) do
      local v = type(p.values) == "table" and p.values or {}
      local q = {
        index = type(p.index) == "number" and p.index or nil,
        stages = type(p.stages) == "table" and p.stages or nil,
        offered = finite(p.offered) and p.offered or nil, load_type = p.load_type or "unknown",
        achieved_rps = finite(p.achieved_rps) and p.achieved_rps or nil,
        output_tps = finite(p.output_tps) and p.output_tps or nil,
        -- the repeats' 95 % intervals per metric key (llmd.loadpoints' ci), and how many
        ci = type(p.ci) == "table" and p.ci or nil, repeats = type(p.repeats) == "number" and p.repeats or nil,
        -- what the saturation search judged the point by (llmd.loadpoints.pace_of, drain_of)
        pace = type(p.pace) == "table" and p.pace or nil, drain = type(p.drain) == "table" and p.drain or nil,
        -- what its failed requests were (llmd.loadpoints.failure_cause: the failures note)
        failure_kinds = type(p.failure_kinds) == "table" and p.failure_kinds or nil,
        -- end-to-end latency under either name (latency_pX_ms, e2e_pX_ms)
        values = setmetatable({}, { __index = function(_, k)
          local x = v[k]
          local rest = x == nil and type(k) == "string" and k:match("^latency_(.+)$")
          if rest then x = v["e2e_" .. rest] end
          return x
        end }),
      }
      q.saturated, q.failures = M.point_marks(sat, q)
      q.unsustained = decision.point_unsustained(sat, q, side.run, #mp)
      -- (answered short in bursts of server errors, kept in: its dependence no queue's)
      q.kept_bursts = decision.point_kept_bursts(sat, q, side.run, #mp) or nil
      out[#out + 1] = q
    end
    return out
  end
  for _, st in ipairs(side.run.stages or {}) do
    if not st.warmup then
      local v = st.metrics and st.metrics.values or {}
      out[#out + 1] = {
        offered = st.rate or st.concurrency,
        load_type = st.rate and "rate" or st.concurrency and "concurrency" or "unknown",
        achieved_rps = finite(v.throughput_req_s) and v.throughput_req_s or nil,
        output_tps = finite(v.throughput_tok_s) and v.throughput_tok_s or nil,
        values = v, stages = { st.index },
      }
    end
  end
  -- a single run without stages is one load point: its overall figures
  if #out == 0 and side.run.overall then
    local v = side.run.overall.values
    if finite(v.throughput_req_s) then
      out[1] = { load_type = "unknown", achieved_rps = v.throughput_req_s,
        output_tps = finite(v.throughput_tok_s) and v.throughput_tok_s or nil, values = v }
    end
  end
  table.sort(out, M.load_order)
  return out
end

-- The order a run's load points are joined in on a load curve: by offered load (the
-- achieved rate where the offered is unknown), never by achieved rate alone: a saturated
-- point at a higher load that achieved less than the load below it would fold the line back
-- (newuser50c N3: 160/s → 158.43 req/s at 226 ms, then 200/s → 154.82 req/s at 1859 ms).
-- compare.lua's charts and treatments.lua's load-curve chart share it. A table.sort "less".
function M.load_order(p, q)
  local a, b = p.offered or p.achieved_rps or 0, q.offered or q.achieved_rps or 0
  return a < b
end

-- The caption's line for run side's load points marked as failures (M.failures_shortfall),
-- in the words of its max sustained throughput; nil where it has none among pts.
local function failures_note(model, side, pts)
  local n = {}
  for _, p in ipairs(pts) do
    if p.failures then n[#n + 1] = p.index and tostring(p.index) or "?" end
  end
  if #n == 0 then return nil end
  local s = type(model.saturation) == "table" and model.saturation[side.x] or {}
  local f = s.cause == "failures" and s or type(s.failures) == "table" and s.failures or nil
  local why = f and f.reason or nil
  -- what the files say the marked points' failures were (llmd.loadpoints.failure_cause):
  -- "not overload" only where they name every cause
  local causes = {}
  for _, p in ipairs(pts) do
    if p.failures then causes[#causes + 1] = lp.failure_cause(p) or false end
  end
  local kind = lp.failures_cause_kind(causes)
  local what = kind == "unknown" and "failed requests, whose cause the files do not record, held the achieved rate "
    .. "down (whether that was overload is unknown)" or ("failed requests%s held the achieved rate down, not overload")
    :format(kind == "errors_timeouts" and " (errors, and timeouts within the limit)" or "")
  return ("%s: the triangle%s at load point%s %s: %s, so %s not marked saturated%s."):format(side.label,
    #n == 1 and "" or "s", #n == 1 and "" or "s", table.concat(n, ", "), what,
    #n == 1 and "it is" or "they are", type(why) == "string" and (" (" .. why .. ")") or "")
end

-- Charts ------------------------------------------------------------------------------------

-- A chart's start. Where the runs measured different workloads (the banner's "Not the same
-- workload"), its title says so and its first note what differs: a chart travels alone (a
-- screenshot, a slide), and two workloads' curves on one axis read as two configurations'.
local function base(name, title, A, B)
  local oa, ob = type(A.run) == "table" and A.run.overall, type(B.run) == "table" and B.run.overall
  local differ = {}
  if type(oa) == "table" and type(ob) == "table" then
    -- what the report's banner and verdict read (token lengths, model, a stated
    -- workload); the token lengths alone where the runs' load points cannot be read
    local ok, wm = pcall(decision.workload_match, A, B, lp.points(A.run), lp.points(B.run))
    differ = ok and decision.measure_difference_texts(wm) or decision.token_difference_texts(oa, ob)
  end
  return { name = name, title = title, available = false, notes = {}, differ = #differ > 0 and differ or nil,
    vars = { { "title", title }, { "label_a", A.label }, { "label_b", B.label } } }
end

-- A drawn chart of runs that sent different requests (c.differ, from base): "(NOT the same
-- workload)" in its title, in the picture and the report, and what differs as its first note.
local function mark_workload(c)
  if not c.differ or c.marked then return end
  c.marked = true
  c.title = c.title .. " (NOT the same workload)"
  for _, v in ipairs(c.vars) do
    if v[1] == "title" then v[2] = c.title end
  end
  table.insert(c.notes, 1, ("Not the same workload (%s): the runs measured different workloads, so these curves "
    .. "differ by workload as well as by configuration."):format(table.concat(c.differ, "; ")))
end

local function add(c, name, v) c.vars[#c.vars + 1] = { name, v } end

-- The spread of positive values calls for a log scale (largest / smallest > 20).
function M.wide(values)
  local lo, hi
  for _, v in ipairs(values) do
    if finite(v) and v > 0 then
      lo, hi = math.min(lo or v, v), math.max(hi or v, v)
    end
  end
  return lo ~= nil and hi / lo > 20
end
local wide = M.wide

local function slo_for(model, keys)
  for _, s in ipairs(type(model.slo) == "table" and model.slo or {}) do
    for _, k in ipairs(keys) do
      if s.key == k and finite(s.max) then return s.max end
    end
  end
  return nil
end

local function max_of(vals)
  local m
  for _, v in ipairs(vals) do m = math.max(m or v, v) end
  return m
end
local function min_of(vals)
  local m
  for _, v in ipairs(vals) do m = math.min(m or v, v) end
  return m
end

-- "above" or "below" when the SLO threshold slo lies too far from a panel's values vals to
-- stretch its axis to it (log: beyond a decade; linear: beyond their span, or half the
-- largest value when the span is smaller), else nil.
local function far_from(slo, vals, log)
  if not finite(slo) or #vals == 0 then return nil end
  local lo, hi = min_of(vals), max_of(vals)
  if log then
    if slo > hi * 10 then return "above" end
    if slo < lo / 10 then return "below" end
    return nil
  end
  local span = math.max(hi - lo, math.abs(hi) / 2)
  if slo > hi + span then return "above" end
  if slo < lo - span then return "below" end
  return nil
end

-- The SLO's own words (its text, "TTFT p90 <= 200 ms"), else its threshold in ms.
local function slo_text(model, max)
  for _, s in ipairs(type(model.slo) == "table" and model.slo or {}) do
    if s.max == max and type(s.text) == "string" then return s.text end
  end
  return metrics.format("ttft_p90_ms", max)
end

-- A capacity k (llmd.loadpoints.capacity) that is only a bound, on the axis field ("rps" or
-- "tps"): its figure there and 1 for a lower bound (at least it: never violated, the last
-- load before saturation, ...; in tok/s the fewest delivered at its load or above, floor_tps,
-- as the Headline reads it), -1 for an upper one (below the lowest load, which already failed
-- an SLO); nil, 0 for an estimate, an unknown capacity or none. The latency charts mark it as
-- what it is (compare.lua's and treatments.lua's alike).
function M.capacity_bound(k, field)
  if type(k) ~= "table" then return nil, 0 end
  local v
  if decision.capacity_is_bound(k) then
    if field == "rps" then v = k.rps else v = finite(k.floor_tps) and k.floor_tps or k.output_tps end
    return finite(v) and v or nil, finite(v) and 1 or 0
  elseif k.kind == "below_lowest" then
    if field == "rps" then v = k.lowest_rps else v = k.lowest_tps end
    return finite(v) and v or nil, finite(v) and -1 or 0
  end
  return nil, 0
end

-- The ends of a capacity range from repeats (k.interval, llmd.loadpoints.capacity_interval) on
-- the axis field ("rps" or "tps"): lo, hi (math.huge: no upper end; read back from
-- comparison.json, an unbounded end is the string "+inf").
function M.interval_ends(iv, field)
  local lo, hi
  if field == "rps" then lo, hi = iv.lo, iv.hi else lo, hi = iv.lo_tps, iv.hi_tps end
  if hi == "+inf" then hi = math.huge end
  return lo, hi
end

-- Is capacity k drawn with the range its repeats allow (k.interval), as the Capacity table
-- gives it beside the figure: an estimate's, and a lower bound's where the range says more
-- than the bound ("≥ 3.82 by the means; the repeats allow 3.12–4.94"; not "≥ 5.69" beside
-- "≥ 5.69", which the table leaves out: llmd.report's capacity_text)?
local function repeats_range(k)
  if type(k) ~= "table" or type(k.interval) ~= "table" then return false end
  if k.kind == "interpolated" then return true end
  if not decision.capacity_is_bound(k) then return false end
  local lo, hi = M.interval_ends(k.interval, "rps")
  return finite(lo) and not (hi == math.huge and finite(k.rps) and lo >= k.rps - 1e-9)
end

-- The span of a capacity k of one run per load that its loads' 95 % intervals widen beyond its
-- measured bracket (k.noise, llmd.loadpoints.capacity_noise: what the Headline gives as "with
-- each load's 95 % interval: ..." and the Verdict orders by, decision.capacity_span, within
-- the run's ceiling) on the axis field ("rps" or "tps"): lo, hi (math.huge: no upper end); nil
-- where k has repeats (k.interval), no such span, or one no wider than its bracket (a bound
-- whose span starts at the bound: the bound says it all).
function M.noise_span(k, field)
  if type(k) ~= "table" or type(k.noise) ~= "table" or k.interval ~= nil then return nil end
  local lo, hi = M.interval_ends(k.noise, field)
  if not finite(lo) or not (finite(hi) or hi == math.huge) then return nil end
  local ceil = field == "rps" and k.ceiling_rps or k.ceiling_tps
  if finite(ceil) and hi > ceil then hi = math.max(lo, ceil) end
  if k.kind == "interpolated" then
    local blo, bhi = k["last_passing_" .. field], k["first_failing_" .. field]
    if finite(blo) and finite(bhi) and math.abs(lo - math.min(blo, bhi)) < 1e-9
      and math.abs(hi - math.max(blo, bhi)) < 1e-9 then
      return nil
    end
    return lo, hi
  end
  local b, dir = M.capacity_bound(k, field)
  if dir == 1 and finite(b) and lo < b - 1e-9 then return lo, hi end
  return nil
end
local noise_span = M.noise_span

-- The caption's line for run label's capacity k when it is only a bound (M.capacity_bound),
-- in its own words (k.text; total: "in total " where the chart is per GPU; bracket: the chart
-- draws its measured bracket up to its ceiling along the top, or with repeats the range they
-- allow, compare.lua's); nil otherwise.
function M.bound_note(k, label, total, bracket)
  local _, dir = M.capacity_bound(k, "rps")
  if dir == 1 then
    -- k.text carries its own parentheses: quoted after a comma, never nested in more
    return ("%s's capacity is only a lower bound, %s%s: drawn as a dashed line marked \"≥\" with an arrow to the "
      .. "right, as it may lie anywhere past it%s."):format(label, total or "", tostring(k.text
        or (k.kind == "never_violated" and "at least its highest load"
        or k.kind == "last_passing" and "at least its last load that met the SLOs"
        or k.kind == "last_sustained" and "at least its last load known to be sustained"
        or "at least its last load before saturation")),
      -- (with repeats, the range they allow: the note on the range says what it is)
      (bracket and repeats_range(k)) and " (the bracket along the top: the range its repeats allow)"
      or (bracket and finite(k.ceiling_rps)) and (type(k.ceiling_failing) == "number"
        -- (its ceiling the first load that failed above an unknown one, lp.capacity: fixh43)
        and (" (up to load point %d, which failed the SLOs: the bracket along the top)"):format(k.ceiling_failing)
        or " (up to the most any of its loads achieved: the bracket along the top)") or "")
  elseif dir == -1 then
    return ("%s's capacity is only an upper bound, %s%s: drawn as a dashed line marked \"<\" with an arrow to the "
      .. "left, as it lies somewhere below its lowest load."):format(label, total or "",
      tostring(k.text or ("below its lowest load (" .. decision.capacity_below_note(k) .. ")")))
  end
  return nil
end

-- The verdict's kinds that name a higher run (llmd.report's verdict): any other names none.
M.VERDICT_NAMES = { winner = true, ordered = true }

-- Where the Verdict names no winner, the caption's first line says so in its words: a chart
-- whose curves or capacity marks lie apart reads as a ranking alone (a screenshot, a slide),
-- and the runs' single measurements are not one.
function M.verdict_note(model, c)
  local v = type(model) == "table" and type(model.verdict) == "table" and model.verdict or nil
  if not v or type(v.kind) ~= "string" or M.VERDICT_NAMES[v.kind] then return end
  local text = type(v.text) == "string" and v.text or v.kind
  local first = text:match("^(.-%.)%s") or text
  -- (a chart of different workloads says what differs in its own first line, mark_workload:
  -- the Verdict's "the workloads differ (...)" says "(as above)" instead of the same list twice)
  if c.differ then
    local d = "(" .. table.concat(c.differ, "; ") .. ")"
    local i = first:find(d, 1, true)
    if i then first = first:sub(1, i - 1) .. "(as above)" .. first:sub(i + #d) end
  end
  table.insert(c.notes, 1, ("The Verdict names no winner: %s Read no order between the runs from the picture: it "
    .. "shows what was measured, not an order."):format(first))
end

-- The caption's line for an SLO on a latency the panels do not draw (an NTPOT SLO beside
-- TTFT, TPOT and E2E): which SLO, what is drawn instead, and where the report shows that
-- latency at each load (the Load Curves' column of it, report.curve_columns), since the
-- capacity marks are read within it too (newuser44: the line said only that it was not drawn).
function M.undrawn_slo_note(model, sl, labels)
  local text = ("The SLO %s is not drawn: the panels show %s."):format(tostring(sl.text or sl.key),
    table.concat(labels, ", "))
  local col
  for _, x in ipairs(type(model.curve_columns) == "table" and model.curve_columns or {}) do
    if x.key == sl.key then col = x.label end
  end
  local name = metrics.has(sl.key) and metrics.get(sl.key).label or sl.key
  if col then
    return text .. (" Read %s at each load in the Load Curves' %s column; the capacity marks are read within this "
      .. "SLO too."):format(name, col)
  end
  return text .. " The capacity marks are read within this SLO too."
end

-- 1. Latency percentiles against achieved throughput, one line per run.
function M.latency_throughput(model, A, B)
  local c = base("latency_throughput", "Latency against achieved throughput", A, B)
  local pts = { a = M.load_points(model, A), b = M.load_points(model, B) }
  if #pts.a < 2 and #pts.b < 2 then
    -- no curve: what decides a comparison of one load point each is drawn instead
    return M.latency_points(model, A, B, c, pts)
  end
  -- per GPU where both runs' accelerator counts are known and differ (model.gpu_counts, as
  -- the Headline's per-GPU rows and the verdict then read them; treatments.lua's charts
  -- alike): each run's achieved throughputs and capacity divided by its own count, else the
  -- run with more hardware lies further right beside a verdict per GPU; where a count is
  -- unknown, a note says the chart is on totals
  local gc = type(model.gpu_counts) == "table" and finite(model.gpu_counts.a) and finite(model.gpu_counts.b)
    and model.gpu_counts.a ~= model.gpu_counts.b and model.gpu_counts or nil
  local function per(x) return gc and gc[x] or 1 end
  local function gpus(n) return ("%g GPU%s"):format(n, n == 1 and "" or "s") end
  -- x: achieved output tok/s and achieved req/s, each where the load points have it
  local X = { { col = 1, field = "output_tps", label = "achieved output throughput (tok/s)", cap = "output_tps" },
    { col = 2, field = "achieved_rps", label = "achieved request throughput (req/s)", cap = "rps" } }
  if gc then
    X[1].label, X[2].label = "achieved output throughput per GPU (tok/s per GPU)",
      "achieved request throughput per GPU (req/s per GPU)"
    c.title = "Latency against achieved throughput per GPU"
    for _, v in ipairs(c.vars) do
      if v[1] == "title" then v[2] = c.title end
      if v[1] == "label_a" then v[2] = ("%s (%s)"):format(A.label, gpus(gc.a)) end
      if v[1] == "label_b" then v[2] = ("%s (%s)"):format(B.label, gpus(gc.b)) end
    end
    c.notes[#c.notes + 1] = ("Per GPU: each run's achieved throughput and capacity divided by its GPUs (%s %s, %s %s), "
      .. "as the Headline's per-GPU rows and the verdict read them; on totals the run with more hardware would lie "
      .. "further right. The latencies are at each run's own total load."):format(A.label, gpus(gc.a), B.label,
      gpus(gc.b))
  else
    local g = type(model.per_gpu) == "table" and model.per_gpu or {}
    local ga, gb = type(g.a) == "table" and g.a.gpus or nil, type(g.b) == "table" and g.b.gpus or nil
    if (ga or gb) and ga ~= gb then
      c.notes[#c.notes + 1] = ("On totals, not per GPU: %s ran on %s and %s on %s, so the run with more hardware may "
        .. "lie further right (give %s for a chart per GPU)."):format(A.label,
        ga and gpus(ga) or "an unknown number of GPUs", B.label, gb and gpus(gb) or "an unknown number of GPUs",
        -- (a plan's comparison: the plan's way, runs.X.info, newuser48 F7)
        model.plan_gpus and "runs.a.info and runs.b.info: {gpus: N} in the plan, or gpus: N in the info files"
          or "gpus: N in the info files")
    end
  end
  local function has_x(p) return p.output_tps or p.achieved_rps end
  local cols, labels, logs, slos, has_a, has_b = {}, {}, {}, {}, {}, {}
  local ymins, ymaxs = {}, {}
  local chosen, chosen_keys = {}, {}
  -- one panel per latency (TTFT, TPOT or ITL, E2E) at the percentile both runs have
  -- (llmd.loadpoints.latency_columns, the ladder's columns too): vLLM's benchmark often
  -- records p50, p95 and p99 and no p90
  local usable = function(p, key) return finite(p.values[key]) and has_x(p) ~= nil end
  for i, col in ipairs(lp.latency_columns({ pts.a, pts.b }, usable, model.slo)) do
    local vals = {}
    for _, x in ipairs { "a", "b" } do
      for _, p in ipairs(pts[x]) do
        if usable(p, col.key) then vals[#vals + 1] = p.values[col.key] end
      end
    end
    local ha, hb = col.has[1], col.has[2]
    chosen[i] = col.key
    chosen_keys[#chosen_keys + 1] = col.key
    cols[#cols + 1] = 2 + i
    labels[#labels + 1] = col.label .. " (ms)"
    logs[#logs + 1] = wide(vals)
    local alias = col.key:match("^latency_(.+)$")
    local slo = slo_for(model, { col.key, alias and ("e2e_" .. alias) or nil })
    -- the SLO's line is drawn where the panel's range can take it in without flattening the
    -- curves (gnuplot stretches the axis to it): within a decade of the values on a log
    -- axis, within their span (or half the largest value) beyond them on a linear one. An
    -- SLO far beyond every value is said in a note instead: an arrow at a value outside the
    -- axis is drawn outside the panel, over the tick labels or the title
    local far = far_from(slo, vals, logs[#logs])
    if far then
      c.notes[#c.notes + 1] = far == "above"
        and ("The SLO %s is not drawn in the %s panel: it lies far above every value there (the highest %s), "
          .. "so every load point shown meets it."):format(slo_text(model, slo), col.label,
          metrics.format(col.key, max_of(vals)))
        or ("The SLO %s is not drawn in the %s panel: it lies far below every value there (the lowest %s), "
          .. "so no load point shown meets it."):format(slo_text(model, slo), col.label,
          metrics.format(col.key, min_of(vals)))
      slo = nil
    end
    slos[#slos + 1] = slo or 0 / 0
    -- a log panel's range, for its 1-2-5 labels (M.log_range; NaN: gnuplot's own)
    local ylo, yhi = nil, nil
    if logs[#logs] then ylo, yhi = M.log_range(vals, slo) end
    ymins[#ymins + 1], ymaxs[#ymaxs + 1] = ylo or 0 / 0, yhi or 0 / 0
    has_a[#has_a + 1], has_b[#has_b + 1] = ha, hb
    if not col.common then
      c.notes[#c.notes + 1] = ("%s: only %s has values (no %s percentile is known in both runs)."):format(
        labels[#labels], ha and A.label or B.label, col.family_label)
    end
  end
  if #cols == 0 then
    c.reason = "Neither run has TTFT, TPOT/ITL or end-to-end latency percentiles per load point."
    return c
  end
  -- an x axis is drawn when every panel has a point on it (gnuplot refuses an empty plot)
  local xs = {}
  for _, xd in ipairs(X) do
    local all = true
    for _, key in ipairs(chosen_keys) do
      local any = false
      for _, x in ipairs { "a", "b" } do
        for _, p in ipairs(pts[x]) do
          if finite(p.values[key]) and p[xd.field] then any = true end
        end
      end
      all = all and any
    end
    if all then
      xs[#xs + 1] = xd
    else
      c.notes[#c.notes + 1] = ("Not drawn against %s: the load points lack it.")
        :format(xd.label:match("^achieved (.*)$"))
    end
  end
  if #xs == 0 then
    c.reason = "No latency is known at a load point whose achieved throughput is known."
    return c
  end
  -- a point's repeats' 95 % interval of panel key's value (llmd.loadpoints.ci_of; an
  -- end-to-end latency under either name), drawn as a bar on it; nil, nil where none
  local function ci_ends(p, key)
    if not key then return nil, nil end
    local ci = lp.ci_of(p, key)
    local alias = key:match("^latency_(.+)$")
    if ci == nil and alias then ci = lp.ci_of(p, "e2e_" .. alias) end
    if type(ci) == "table" and finite(ci.lo) and finite(ci.hi) and not ci.identical then return ci.lo, ci.hi end
    return nil, nil
  end
  local blocks, any_sat, any_fail, any_ci = {}, false, false, false
  for _, x in ipairs { "a", "b" } do
    local rows = { name = "run " .. x }
    for _, p in ipairs(pts[x]) do
      local l1, h1 = ci_ends(p, chosen[1])
      local l2, h2 = ci_ends(p, chosen[2])
      local l3, h3 = ci_ends(p, chosen[3])
      if l1 or l2 or l3 then any_ci = true end
      local v = p.values
      -- saturated: at or past the run's saturation point, as the ladder's Saturated column
      -- and the achieved-offered chart's rings (a ring here too); failures: its achieved
      -- rate fell short from failed requests, not overload (M.failures_shortfall), never
      -- ringed, marked as such
      rows[#rows + 1] = row(14, p.output_tps and p.output_tps / per(x), p.achieved_rps and p.achieved_rps / per(x),
        chosen[1] and v[chosen[1]],
        chosen[2] and v[chosen[2]], chosen[3] and v[chosen[3]], p.offered, p.saturated and 1 or 0,
        p.failures and 1 or 0, l1, h1, l2, h2, l3, h3)
      if p.saturated then any_sat = true end
      if p.failures then any_fail = true end
    end
    blocks[#blocks + 1] = rows
  end
  c.data = data_text("output_tok_s achieved_req_s latency1_ms latency2_ms latency3_ms offered saturated failures "
    .. "ci1_lo ci1_hi ci2_lo ci2_hi ci3_lo ci3_hi", blocks)
  add(c, "saturated", any_sat)
  add(c, "intervals", any_ci)
  if any_ci then
    c.notes[#c.notes + 1] = "The bars on the points are each load's repeats' 95 % interval of its value (Student t); a "
      .. "point without one has no repeats (or identical ones): one draw, whose noise the chart cannot show."
  end
  add(c, "failures", any_fail)
  for _, s in ipairs { A, B } do
    c.notes[#c.notes + 1] = failures_note(model, s, pts[s.x])
  end
  -- capacity markers: only where the SLOs are crossed between two load points (a run that
  -- never violated them, or still met them at its last load before saturation, has a lower
  -- bound, said in a note, not drawn as a capacity)
  local cap = type(model.capacity) == "table" and model.capacity or {}
  local function capacity(x, field)
    local k = cap[x]
    if type(k) ~= "table" or (k.kind ~= nil and k.kind ~= "interpolated") then return 0 / 0 end
    return finite(k[field]) and k[field] / per(x) or 0 / 0
  end
  -- where the capacity lies, drawn as a bar in a lane of its run around its figure (an estimate): the
  -- Headline's own range, one definition for both. With repeats at every load point
  -- (k.interval, llmd.loadpoints.capacity_interval), the range the repeats allow: the
  -- measured loads around the capacities on the means and on both ends of the repeats' 95 %
  -- intervals (never the means' bracket alone, which is narrower and would read as more
  -- certain than the Headline); else the measured bracket, from the last load that met the
  -- SLOs to the first that failed one. The field's ends: rps -> interval lo / hi or
  -- last_passing_rps / first_failing_rps, output_tps -> interval lo_tps / hi_tps or
  -- last_passing_tps / first_failing_tps. NaN where there is none; an upper end without a
  -- limit (math.huge: the good end of the repeats only a lower bound) is open: the band
  -- reaches the right edge (open = 1).
  local function band(x, field)
    local k = cap[x]
    local b, dir = M.capacity_bound(k, field)
    local nlo, nhi = noise_span(k, field)
    if nlo then
      -- one run per load, its loads' 95 % intervals wider than the measured bracket: the span
      -- the Verdict orders by (decision.capacity_span), never the narrower bracket (fixe46: a
      -- bracket 7.48-8.39 drawn closed beside "7.48 or more" in the Headline and Verdict)
      if nhi == math.huge then return nlo / per(x), 0 / 0, 1 end
      return nlo / per(x), nhi / per(x), 0
    elseif dir == 1 and finite(b) and repeats_range(k) then
      -- with repeats, the range they allow (the Capacity table's, from a load below the bound
      -- where its repeats' bad ends fail there), never the bracket from the bound alone
      local lo, hi = M.interval_ends(k.interval, field)
      if not finite(lo) then return 0 / 0, 0 / 0, 0 end
      if hi == math.huge then return lo / per(x), 0 / 0, 1 end
      return lo / per(x), finite(hi) and hi / per(x) or 0 / 0, 0
    elseif dir == 1 and finite(b) then
      -- a lower bound below a ceiling (the most any load achieved, which it cannot exceed):
      -- the measured bracket from the bound to it
      local hi = field == "rps" and k.ceiling_rps or k.ceiling_tps
      if finite(hi) and hi > b then return b / per(x), hi / per(x), 0 end
      return 0 / 0, 0 / 0, 0
    end
    if type(k) ~= "table" or k.kind ~= "interpolated" then return 0 / 0, 0 / 0, 0 end
    local lo, hi
    if type(k.interval) == "table" then
      lo, hi = M.interval_ends(k.interval, field)
    else
      lo, hi = k["last_passing_" .. field], k["first_failing_" .. field]
      -- (in tok/s the first failing point may deliver fewer: the band from the lower)
      if finite(lo) and finite(hi) and hi < lo then lo, hi = hi, lo end
    end
    if not finite(lo) then return 0 / 0, 0 / 0, 0 end
    if hi == math.huge then return lo / per(x), 0 / 0, 1 end
    return lo / per(x), finite(hi) and hi / per(x) or 0 / 0, 0
  end
  for _, s in ipairs { A, B } do
    local note = M.bound_note(cap[s.x], s.label, gc and "in total " or "", true)
    c.notes[#c.notes + 1] = note
  end
  local drawn = {}
  for _, key in ipairs(chosen_keys) do
    drawn[key] = true
    local alias = key:match("^latency_(.+)$")
    if alias then drawn["e2e_" .. alias] = true end
  end
  for _, sl in ipairs(type(model.slo) == "table" and model.slo or {}) do
    if type(sl.key) == "string" and sl.key:match("_ms$") and not drawn[sl.key] then
      c.notes[#c.notes + 1] = M.undrawn_slo_note(model, sl, labels)
    end
  end
  local xcol, xlabel, cap_a, cap_b = {}, {}, {}, {}
  local lo_a, hi_a, lo_b, hi_b, open_a, open_b = {}, {}, {}, {}, {}, {}
  -- a capacity that is only a bound: its mark per axis (NaN: none) and its side (1: at least,
  -- -1: below, 0: none), drawn as a bound, never as an estimate nor left out (a run whose
  -- capacity is not drawn beside one whose is reads as the worse)
  local bnd, bnd_dir = { a = {}, b = {} }, { a = 0, b = 0 }
  for j, xd in ipairs(xs) do
    xcol[j], xlabel[j] = xd.col, xd.label
    cap_a[j], cap_b[j] = capacity("a", xd.cap), capacity("b", xd.cap)
    lo_a[j], hi_a[j], open_a[j] = band("a", xd.cap == "rps" and "rps" or "tps")
    lo_b[j], hi_b[j], open_b[j] = band("b", xd.cap == "rps" and "rps" or "tps")
    for _, x in ipairs { "a", "b" } do
      local b, dir = M.capacity_bound(cap[x], xd.cap == "rps" and "rps" or "tps")
      bnd[x][j] = finite(b) and b / per(x) or 0 / 0
      bnd_dir[x] = dir ~= 0 and dir or bnd_dir[x]
    end
  end
  -- the key says which band each run's is, and a note under the chart what it covers
  local band_name = {}
  for _, s in ipairs { A, B } do
    local k = cap[s.x]
    local repeats = repeats_range(k)
    local widened = not repeats and noise_span(k, "rps") ~= nil
    band_name[s.x] = repeats and "range from repeats" or widened and "span with each load's 95 % interval"
      or "measured bracket"
    if widened then
      local lo, hi = noise_span(k, "rps")
      local num, unit = require("llmd.template").helpers.num, gc and " req/s per GPU" or " req/s"
      local span = hi == math.huge and (num(lo / per(s.x), 2) .. unit .. " or more, no upper end")
        or (num(lo / per(s.x), 2) .. "–" .. num(hi / per(s.x), 2) .. unit)
      c.notes[#c.notes + 1] = ("%s's band along the top of the panels is the span each load's own 95 %% interval "
        .. "leaves its capacity (%s), as in the Headline and the Verdict, not its measured bracket alone: one run "
        .. "per load%s."):format(s.label, span, hi == math.huge and ", drawn open to the right edge" or "")
    end
    if repeats then
      local drawn_on, missing_on = {}, {}
      for j, xd in ipairs(xs) do
        local lo = s.x == "a" and lo_a[j] or lo_b[j]
        local axis = xd.cap == "rps" and "req/s" or "tok/s"
        if lo == lo then drawn_on[#drawn_on + 1] = axis else missing_on[#missing_on + 1] = axis end
      end
      -- (per GPU: the Headline's per-GPU range, each end divided by the run's GPUs)
      local pk = gc and type(model.capacity.per_gpu) == "table" and model.capacity.per_gpu[s.x] or nil
      local itext = pk and type(pk.interval) == "table" and pk.interval.text or k.interval.text
      local range = type(itext) == "string" and (" (" .. itext .. ")") or ""
      if #drawn_on == 0 then
        c.notes[#c.notes + 1] = ("%s's range from repeats%s is not drawn: the output tok/s of the loads around it "
          .. "are unknown."):format(s.label, range)
      else
        c.notes[#c.notes + 1] = ("%s's bracket along the top of the panels (|---|, over a faint tint) is the range "
          .. "its repeats allow the capacity, as in the Headline%s: "
          .. "the measured loads around the capacities on the means and on both ends of the repeats' 95 %% intervals, "
          .. "not a 95 %% interval; %s%s."):format(s.label, range, k.kind == "interpolated"
          and "the dotted line is the means' estimate" or "the dashed line marked \"≥\" is the means' lower bound",
          #missing_on > 0 and ("; not drawn against %s, whose figures at those loads are unknown")
            :format(table.concat(missing_on, ", ")) or "")
      end
    end
  end
  add(c, "x_col", xcol)
  add(c, "x_label", xlabel)
  add(c, "cap_a", cap_a)
  add(c, "cap_b", cap_b)
  add(c, "cap_a_lo", lo_a)
  add(c, "cap_a_hi", hi_a)
  add(c, "cap_b_lo", lo_b)
  add(c, "cap_b_hi", hi_b)
  add(c, "cap_a_open", open_a)
  add(c, "cap_b_open", open_b)
  add(c, "bound_a", bnd.a)
  add(c, "bound_b", bnd.b)
  add(c, "bound_a_dir", bnd_dir.a)
  add(c, "bound_b_dir", bnd_dir.b)
  add(c, "band_a", band_name.a)
  add(c, "band_b", band_name.b)
  add(c, "panel_col", cols)
  add(c, "panel_label", labels)
  add(c, "panel_log", logs)
  add(c, "panel_slo", slos)
  add(c, "panel_ymin", ymins)
  add(c, "panel_ymax", ymaxs)
  add(c, "panel_has_a", has_a)
  add(c, "panel_has_b", has_b)
  M.verdict_note(model, c)
  c.available = true
  return c
end

local CDF_PANELS = {
  { "ttft_ms", "TTFT (ms)", "requests" }, { "tpot_ms", "TPOT (ms)", "requests" },
  { "itl_ms", "inter-token latency (ms)", "token gaps" }, { "e2e_ms", "end-to-end latency (ms)", "requests" },
}

-- Appends to rows the rows of cdf, a per-request quantile grid (run.cdf: {ttft_ms =
-- {{q, value}, ...}, tpot_ms =, itl_ms =, e2e_ms =}), at the quantiles qs: {q, ttft_ms,
-- tpot_ms, itl_ms, e2e_ms}, unknown (NaN) where the grid has no value at q.
function M.cdf_rows(rows, cdf, qs)
  local by = {}
  for _, p in ipairs(CDF_PANELS) do
    by[p[1]] = {}
    for _, qv in ipairs(cdf[p[1]] or {}) do by[p[1]][qv[1]] = qv[2] end
  end
  for _, q in ipairs(qs) do
    rows[#rows + 1] = row(5, q, by.ttft_ms[q], by.tpot_ms[q], by.itl_ms[q], by.e2e_ms[q])
  end
  return rows
end

-- One dot of a one-point chart (M.latency_points; treatments.lua's view): the value of
-- panel k's metric at load point p (nil: none), its repeats' 95 % interval's ends (the value
-- itself where there is none) and 1 where there is one; a dot without a bar is listed in
-- no_ci[id] ({label, why}), a missing value in no_value[id] (the panel's label), for
-- M.point_notes.
function M.point_dot(p, k, id, no_ci, no_value)
  local v = p and p.values[k.key]
  local ci = p and p.ci and p.ci[k.key]
  if finite(v) and type(ci) == "table" and finite(ci.lo) and finite(ci.hi) and not ci.identical then
    return v, ci.lo, ci.hi, 1
  end
  if not finite(v) then
    no_value[id] = no_value[id] or {}
    no_value[id][#no_value[id] + 1] = k.label
  else
    no_ci[id] = no_ci[id] or {}
    no_ci[id][#no_ci[id] + 1] = { label = k.label, why = (p.repeats or 1) < 2 and "one run, no interval"
      or (type(ci) == "table" and ci.identical) and "repeats identical, no spread to estimate" or "no interval" }
  end
  return v, v, v, 0
end

-- The notes under a one-point chart (M.latency_points; treatments.lua's view), for each of
-- who ({id =, label =, measured = it has a load point}): a dot without a bar, said once
-- where one reason holds for all its dots ("B: one run, no interval"), else per metric ("A,
-- Error rate: repeats identical, ..."); a missing value's "N/A", and why. no_ci[id]: {label,
-- why} per dot without a bar; no_value[id]: the labels of the panels it has no value for;
-- nkeys: the panels.
function M.point_notes(notes, who, no_ci, no_value, nkeys)
  for _, s in ipairs(who) do
    local list = no_ci[s.id]
    if list then
      -- (one run: no metric of it has an interval; identical repeats are one metric's matter)
      local same = list[1].why == "one run, no interval" or #list == nkeys
      for _, x in ipairs(list) do same = same and x.why == list[1].why end
      if same then
        notes[#notes + 1] = ("%s: %s (a dot without a bar)."):format(s.label, list[1].why)
      else
        for _, x in ipairs(list) do
          notes[#notes + 1] = ("%s, %s: %s (a dot without a bar)."):format(s.label, x.label, x.why)
        end
      end
    end
  end
  for _, s in ipairs(who) do
    local list = no_value[s.id]
    if list and not s.measured then
      notes[#notes + 1] = ("%s: no measured load point, so N/A in the chart."):format(s.label)
    elseif list then
      notes[#notes + 1] = ("%s: no %s at its load point, so N/A in the chart."):format(s.label,
        table.concat(list, ", "))
    end
  end
end

-- 1b. Each run measured one load point (possibly repeated): no curve, so the latency chart
-- draws what decides the comparison, side by side per metric: each run's value (the mean of
-- its repeats) with the repeats' 95 % confidence interval as an error bar (llmd.loadpoints'
-- ci: Student t, clipped at 0). The metrics: those the SLOs name, where a run has them; else
-- TTFT and TPOT (ITL without TPOT) at the percentile the tables and the Verdict read (p90,
-- the no-SLO latencies' keys; else the percentile both runs have: llmd.loadpoints.
-- latency_columns), never another one beside a Verdict on p90 (a chart of p95 pointed the
-- other way from the tables' p90: newuser43). Drawn by templates/charts/latency_points.gp into the
-- latency chart's own file (c: the chart latency_throughput started; pts: its load points).
M.POINT_PANELS_MAX = 4

-- The panels of a one-load-point view of runs whose load points are lists (one a run, each
-- of at most one point): the SLOs' metrics first, where a run has them (an end-to-end SLO
-- may be spelt e2e_*: the load points' key is latency_*), then TTFT and TPOT/ITL where no
-- SLO names their family, at the percentile of prefer where every run has it ({{key =},
-- ...}: the Verdict's keys, model.no_slo_latency's rows; default the tables' order, p90
-- first), else the percentile they share (llmd.loadpoints.latency_columns); at most
-- POINT_PANELS_MAX. Returns { {key =, label =, slo = the SLO's threshold or nil, slo_text =} }.
function M.point_keys(slo, lists, prefer)
  local function usable(p, key) return p ~= nil and finite(p.values[key]) end
  local function any_has(key)
    for _, l in ipairs(lists) do if usable(l[1], key) then return true end end
    return false
  end
  local keys, seen = {}, {}
  for _, sl in ipairs(type(slo) == "table" and slo or {}) do
    local key = type(sl.key) == "string" and metrics.canonical(sl.key) or nil
    if key and metrics.has(key) and not seen[key] and any_has(key) then
      seen[key] = true
      keys[#keys + 1] = { key = key, label = metrics.get(key).label, slo = finite(sl.max) and sl.max or nil,
        slo_text = sl.text }
    end
  end
  local named = {}
  for _, k in ipairs(keys) do named[k.key:match("^(%a+)_") or ""] = true end
  for _, col in ipairs(lp.latency_columns(lists, usable, prefer)) do
    local fam = col.key:match("^(%a+)_")
    local taken = named[fam] or (fam == "itl" and named.tpot) or (fam == "tpot" and named.itl)
    if col.family ~= "e2e" and not taken then keys[#keys + 1] = { key = col.key, label = col.label } end
  end
  while #keys > M.POINT_PANELS_MAX do keys[#keys] = nil end
  return keys
end

function M.latency_points(model, A, B, c, pts)
  c.title = "At the one load point: each run's value with its repeats' 95 % intervals"
  for _, v in ipairs(c.vars) do
    if v[1] == "title" then v[2] = c.title end
  end
  if #pts.a == 0 and #pts.b == 0 then
    c.reason = "Neither run has a measured load point."
    return c
  end
  -- the panels: the SLOs' metrics, then TTFT and TPOT/ITL at p95 where both have it
  -- (the Verdict's latencies without an SLO: llmd.report's no_slo_latency rows)
  local nl = type(model.no_slo_latency) == "table" and type(model.no_slo_latency.rows) == "table"
    and model.no_slo_latency.rows or nil
  local prefer
  for _, r in ipairs(nl or {}) do
    if type(r.key) == "string" then
      prefer = prefer or {}
      prefer[#prefer + 1] = { key = r.key }
    end
  end
  local keys = M.point_keys(model.slo, { pts.a, pts.b }, prefer)
  if #keys == 0 then
    c.reason = "Neither run has TTFT, TPOT/ITL or an SLO's metric at its load point."
    return c
  end
  -- one block per panel and run (A at x = 1, B at x = 2): value, the interval's ends (the
  -- value itself where there is no interval) and whether there is one
  local blocks, labels, slos, ymax, fmts = {}, {}, {}, {}, {}
  local no_ci, no_value = {}, {}
  for i, k in ipairs(keys) do
    local unit = metrics.get(k.key).unit
    -- (a figure as the tables print it; a count's "%d" as a number gnuplot can format)
    fmts[i] = metrics.get(k.key).format == "%d" and "%.0f" or metrics.get(k.key).format
    labels[i] = ("%s (%s)"):format(k.label, unit)
    local top, vals = 0, {}
    for j, s in ipairs { A, B } do
      local v, lo, hi, has = M.point_dot(pts[s.x][1], k, s.x, no_ci, no_value)
      blocks[#blocks + 1] = { name = ("panel %d run %s"):format(i, s.x), row(5, j, v, lo, hi, has) }
      if finite(hi) then top = math.max(top, hi) end
      vals[#vals + 1] = v
    end
    -- the figures beside the SLO's line with the decimals that show their side of it, as the
    -- tables print them (metrics.decimals_apart: "35.41" under a line at 35.4, never "35.4")
    local d = tonumber(fmts[i]:match("^%%%.(%d)f$"))
    if d and k.slo then fmts[i] = "%." .. metrics.decimals_apart(vals, k.slo, d) .. "f" end
    -- the SLO's line where it is no farther than the values' span would stretch the axis
    local slo = k.slo
    if slo and top > 0 and slo > 3 * top then
      c.notes[#c.notes + 1] = ("The SLO %s is not drawn in the %s panel: it lies far above both values, so both "
        .. "meet it."):format(tostring(k.slo_text or slo), k.label)
      slo = nil
    end
    slos[i] = slo or 0 / 0
    ymax[i] = M.axis_max(math.max(top, slo or 0) * 1.1)
  end
  c.data = data_text("x value ci_lo ci_hi has_ci", blocks)
  -- the x axis names each run with its load, on two lines: "3.6 req/s offered" and "3 repeats"
  local function load_of(s)
    local p = pts[s.x][1]
    if not p then return "no load point", "" end
    local load = p.load_type == "concurrency" and p.offered and ("concurrency %g"):format(p.offered)
      or p.offered and ("%g req/s offered"):format(p.offered)
      or p.achieved_rps and metrics.format("throughput_req_s", p.achieved_rps) or "load unknown"
    local n = p.repeats or 1
    return load, n == 1 and "1 run" or (n .. " repeats")
  end
  add(c, "run_a", M.wrap(A.label, 24, 1))
  add(c, "run_b", M.wrap(B.label, 24, 1))
  add(c, "load_a", { lines = { load_of(A) } })
  add(c, "load_b", { lines = { load_of(B) } })
  add(c, "panel_label", labels)
  add(c, "panel_slo", slos)
  add(c, "panel_ymax", ymax)
  add(c, "panel_fmt", fmts)
  c.notes[#c.notes + 1] = "Each run measured one load point: each dot is its value there (the mean of its repeats), "
    .. "each bar the repeats' 95 % confidence interval of that mean (Student t). Bars apart are a difference beyond "
    .. "the repeats' noise; bars that overlap may still differ: the Performance Results table's test of each metric "
    .. "decides."
  M.point_notes(c.notes, { { id = "a", label = A.label, measured = pts.a[1] ~= nil },
    { id = "b", label = B.label, measured = pts.b[1] ~= nil } }, no_ci, no_value, #keys)
  local pa, pb = pts.a[1], pts.b[1]
  local same = lp.same_load(pa, pb)
  if pa and pb and pa.offered and pb.offered and not same then
    c.notes[#c.notes + 1] = ("Not the same load: %s was measured at %s and %s at %s, so these values differ by "
      .. "load as well as by configuration."):format(A.label, (load_of(A)), B.label, (load_of(B)))
  end
  M.verdict_note(model, c)
  c.template = "latency_points"
  c.available = true
  return c
end

-- 2. CDFs of the per-request latencies, at the loads the comparison compares them: a
-- run's latencies pooled over all its load points mix its loads (and an overload's queue)
-- into one curve, and two runs of one server then differ by the loads' mix and the
-- saturated points' luck, a difference the tables refuse. Each panel pools the load points
-- both runs measured at the same load (llmd.decision.paired_points) that both sustained (the
-- tests' rule, llmd.decision.point_unsustained: not saturated, not past a load whose
-- saturation could not be judged, not answered short with failures in bursts) and whose
-- requests are not too dependent to test (the tables' rule:
-- llmd.decision.dependence_reason on the points' design effects), each load weighted
-- equally (so both runs' curves mix the same loads), each from its stages' quantile grids
-- (st.cdf, from the harness reader's accumulators: no second pass).

-- The share (%) of a quantile grid at or below x, linear between the grid's points from
-- the last point at or below x; the grid as M.mix_grids keeps it: its shares q[1..n] and
-- values v[1..n] (not decreasing) apart. That point is found by bisection where the
-- values are sorted (checked not decreasing, none NaN: those at or below x are the first
-- ones), else by walking the grid from its start: the same point either way. (A mix asks
-- each grid for 60 shares a quantile: walked, the CDF charts of two 7-stage runs took 0.3
-- CPU-s, most of the report's Lua; issue 20.)
local function grid_share(g, x)
  local q, v, n = g.q, g.v, g.n
  if x < v[1] then return 0 end
  local i = 1
  if g.sorted then
    local j = n
    while i < j do
      local m = (i + j + 1) // 2
      if v[m] <= x then i = m else j = m - 1 end
    end
  else
    while i < n and v[i + 1] <= x do i = i + 1 end
  end
  if i == n then return q[i] end
  return q[i] + (q[i + 1] - q[i]) * (x - v[i]) / (v[i + 1] - v[i])
end

-- A quantile grid ({{q, v}, ...}) as grid_share reads it.
local function grid_apart(g)
  local q, v, sorted = {}, {}, true
  for i, qv in ipairs(g) do
    q[i], v[i] = qv[1], qv[2]
    if v[i] ~= v[i] or (i > 1 and v[i] < v[i - 1]) then sorted = false end
  end
  return { q = q, v = v, n = #g, sorted = sorted }
end

-- The quantile grid (at qs) of a mixture of grids ({{grid, weight}, ...}, the weights
-- summing to 1): at each q the least x whose mixed share reaches q (bisection).
function M.mix_grids(parts, qs)
  if #parts == 1 then
    local by = {}
    for _, qv in ipairs(parts[1][1]) do by[qv[1]] = qv[2] end
    local out = {}
    for _, q in ipairs(qs) do if by[q] then out[#out + 1] = { q, by[q] } end end
    return out
  end
  local lo, hi = math.huge, -math.huge
  for _, pt in ipairs(parts) do
    lo, hi = math.min(lo, pt[1][1][2]), math.max(hi, pt[1][#pt[1]][2])
  end
  local grids, weights = {}, {}
  for k, pt in ipairs(parts) do grids[k], weights[k] = pt[1], pt[2] end
  -- in C (stats.mix_grids: the same operations in the same order, so the same bits; issue 20:
  -- in Lua these bisections were the most CPU of a comparison's report, 0.1 s of two 7-stage
  -- runs, while the gnuplots waited for them); nil where a value is not a number: then here
  local bisected = stats.mix_grids(grids, weights, qs, lo, hi, 60, 1e-9)
  if bisected then
    local out = {}
    for j, q in ipairs(qs) do out[#out + 1] = { q, q <= 0 and lo or bisected[j] or hi } end
    return out
  end
  for k, pt in ipairs(parts) do grids[k] = grid_apart(pt[1]) end
  local function share(x)
    local f = 0
    for k = 1, #grids do f = f + weights[k] * grid_share(grids[k], x) end
    return f
  end
  local out = {}
  for _, q in ipairs(qs) do
    local a, b = lo, hi
    if q <= 0 then
      b = lo
    else
      for _ = 1, 60 do
        local m = (a + b) / 2
        if share(m) >= q - 1e-9 then b = m else a = m end
      end
    end
    out[#out + 1] = { q, b }
  end
  return out
end

-- A load point's quantile grid parts for one kind ({{grid, weight within the point}, ...})
-- and its sample count, or nil: its stages' grids (its repeats weighted by their counts);
-- a run whose one load point is its one measured stage has it as the whole run's.
function M.point_grids(run, p, name, n_points)
  local got, n = {}, 0
  -- (a point without stages: the whole run's figures, M.load_points)
  local idxs = p.stages and #p.stages > 0 and p.stages or { false }
  for _, idx in ipairs(idxs) do
    local g, c
    for _, st in ipairs(run.stages or {}) do
      if st.index == idx and st.cdf and st.cdf[name] and #st.cdf[name] > 0 then
        g, c = st.cdf[name], st.cdf_count and st.cdf_count[name]
      end
    end
    if not g and n_points == 1 and #idxs == 1 and run.cdf and run.cdf[name] and #run.cdf[name] > 0 then
      g, c = run.cdf[name], run.cdf_count and run.cdf_count[name]
    end
    if not g or not finite(c) or c <= 0 then return nil end
    got[#got + 1], n = { g, c }, n + c
  end
  if #got == 0 then return nil end
  for _, x in ipairs(got) do x[2] = x[2] / n end
  return got, n
end
local point_grids = M.point_grids

-- The quantile grid (at qs) of the requests at several load points, each load point weighed
-- equally (so that curves mixing the same loads compare like with like, whatever each one's
-- request count there), its stages within it by their counts: loads = {point_grids' parts,
-- ...}. nil without any.
function M.mix_loads(loads, qs)
  local mix = {}
  for _, pt in ipairs(loads) do
    for _, g in ipairs(pt) do mix[#mix + 1] = { g[1], g[2] / #loads } end
  end
  if #mix == 0 then return nil end
  return M.mix_grids(mix, qs)
end

-- A load point's load as the CDF charts name it ("2/s", "concurrency 8"; a run's one point
-- whose load is unknown: M.CDF_ONE_POINT).
M.CDF_ONE_POINT = "its one load point"
local ONE_POINT = M.CDF_ONE_POINT
function M.cdf_load_text(p)
  if not p.offered then return ONE_POINT end
  return p.load_type == "concurrency" and ("concurrency %g"):format(p.offered) or ("%g/s"):format(p.offered)
end
local load_text = M.cdf_load_text

-- Why a load is left out of a CDF as not sustained (llmd.decision.point_unsustained's
-- answer), in the chart's words; treatments.cdf_chart's too.
M.UNSUSTAINED_WORDS = { saturated = "saturated", unjudged = "past a load whose saturation could not be judged",
  short = "answered short, failed requests in bursts making up the rest" }
local UNSUSTAINED_WORDS = M.UNSUSTAINED_WORDS

function M.latency_cdf(model, A, B)
  local c = base("latency_cdf", "Latency distributions (per-request CDF)", A, B)
  local ca, cb = A.run.cdf, B.run.cdf
  if not ca and not cb then
    local saved = false
    for _, s in ipairs { A, B } do
      local src = s.run.overall and s.run.overall.source or {}
      if src.ttft_p90_ms == rm.PER_REQUEST or src.latency_p90_ms == rm.PER_REQUEST then saved = true end
    end
    c.reason = saved and ("The saved run models have no latency quantile grid (they predate the charts): "
      .. "`llmdlua analyze.lua WORKSPACE --reextract` reads the results again.")
      or "Neither run kept per-request data, so there are no latency distributions to draw."
    return c
  end
  model = model or {}
  local pa, pb = M.load_points(model, A), M.load_points(model, B)
  -- a run without load points is one: its whole run's grid (point_grids)
  if #pa == 0 then pa = { { load_type = "unknown", values = {} } } end
  if #pb == 0 then pb = { { load_type = "unknown", values = {} } } end
  local one_sided = not (ca and cb)
  local paired = {}
  if one_sided then
    -- one run's distribution alone (nothing to set beside it), at the loads it sustained
    for _, p in ipairs(ca and pa or pb) do paired[#paired + 1] = ca and { a = p } or { b = p } end
  elseif #pa == 1 and #pb == 1 then
    -- the one load point of each, as the tables compare them
    paired[1] = { a = pa[1], b = pb[1] }
    local x, y = pa[1], pb[1]
    if x.offered and y.offered and not lp.same_load(x, y) then
      c.notes[#c.notes + 1] = ("Not the same load: %s was measured at %s and %s at %s, so these distributions "
        .. "differ by load as well as by configuration."):format(A.label, load_text(x), B.label, load_text(y))
    end
  else
    paired = decision.paired_points(pa, pb)
  end
  -- the loads both runs measured and sustained, by the tests' rule (load_points' unsustained,
  -- llmd.decision.point_unsustained): the others by why, in the order first met
  local sustained, over, over_why = {}, {}, {}
  local function left_as(why, text)
    if not over[why] then over[why] = {}; over_why[#over_why + 1] = why end
    over[why][#over[why] + 1] = text
  end
  local short_points = {}
  for _, pr in ipairs(paired) do
    local ua, ub = pr.a and pr.a.unsustained, pr.b and pr.b.unsustained
    if ua == "short" then short_points[#short_points + 1] = pr.a end
    if ub == "short" then short_points[#short_points + 1] = pr.b end
    if one_sided and (ua or ub) or ua and ua == ub then
      left_as(ua or ub, load_text(pr.a or pr.b))
    elseif ua or ub then
      -- (in which run, where both measured it and one sustained it, or each for its own reason)
      if ua then left_as(ua, ("%s in %s"):format(load_text(pr.a), A.label)) end
      if ub then left_as(ub, ("%s in %s"):format(load_text(pr.b), B.label)) end
    else
      sustained[#sustained + 1] = pr
    end
  end
  local over_texts, over_at = {}, {}
  for _, why in ipairs(over_why) do
    over_texts[#over_texts + 1] = ("%s: %s"):format(UNSUSTAINED_WORDS[why], table.concat(over[why], ", "))
    over_at[#over_at + 1] = ("%s at %s"):format(UNSUSTAINED_WORDS[why], table.concat(over[why], ", "))
  end
  local both = one_sided and "it" or "both runs"
  -- (every load left out for a short answer whose failures were not timeouts: what the files
  -- say they were, not a queue: decision.SHORT_BURST_WORDS, fixl45)
  local short_kind = #over_why == 1 and over_why[1] == "short" and decision.points_failures_kind(short_points)
  local w = short_kind and short_kind ~= "timeouts" and decision.SHORT_BURST_WORDS[short_kind]
  if #sustained == 0 then
    c.reason = #over_why > 0 and ("No load %s sustained (%s): %s, so %s."):format(both, table.concat(over_at, "; "),
        w and ("the failures were %s, and %s, a load the tests leave out whatever the failures' cause"):format(
          w.cause, w.latency)
        or (#over_why == 1 and over_why[1] == "saturated") and "past saturation a latency measures the queue, which "
          .. "grows with time" or decision.LATENCY_UNSUSTAINED,
        w and (one_sided and "its distribution is not drawn" or "their distributions are not compared")
        or one_sided and "its distribution describes the overload" or "their distributions are not comparable")
      or "The runs measured no load point at the same load, so their distributions would compare different loads."
    return c
  end
  -- (the repeats' test takes each repeat's figure, never its requests: no dependence rule)
  local repeats = (#pa > 1 or #pb > 1) and decision.any_repeats(pa, pb)
  local qs = rm.CDF_GRID
  local cols, labels, ylabels, logs, grids = {}, {}, {}, {}, { a = {}, b = {} }
  local loads_of, left_of, names_of, has_a, has_b = {}, {}, {}, {}, {}
  local any_dependent = false
  for i, p in ipairs(CDF_PANELS) do
    local kind = rm.CDF_KINDS[i][1]
    local parts, used, dependent, missing = { a = {}, b = {} }, {}, {}, false
    local dep_bursts = {}
    -- (a latency neither run has is no panel)
    local any = (ca and ca[p[1]] and #ca[p[1]] > 0) or (cb and cb[p[1]] and #cb[p[1]] > 0)
    for _, pr in ipairs(any and sustained or {}) do
      local ga, na, gb, nb
      if pr.a then ga, na = point_grids(A.run, pr.a, p[1], #pa) end
      if pr.b then gb, nb = point_grids(B.run, pr.b, p[1], #pb) end
      if one_sided and (ga or gb) then
        used[#used + 1] = load_text(pr.a or pr.b)
        if ga then parts.a[#parts.a + 1] = ga else parts.b[#parts.b + 1] = gb end
      elseif not (ga and gb) then
        missing = true
      else
        -- (ITL: the requests' count, as its test declusters the gaps to one unit a request)
        if kind == "itl" then
          na, nb = pr.a.values.requests_ok or na, pr.b.values.requests_ok or nb
        end
        local d = decision.u_design_effect(decision.point_deff(A.run, pr.a, kind, #pa),
          decision.point_deff(B.run, pr.b, kind, #pb))
        if not repeats and decision.dependence_reason(na, nb, d) then
          dependent[#dependent + 1] = load_text(pr.a)
          if pr.a.kept_bursts or pr.b.kept_bursts then dep_bursts[#dep_bursts + 1] = load_text(pr.a) end
        else
          used[#used + 1] = load_text(pr.a)
          parts.a[#parts.a + 1], parts.b[#parts.b + 1] = ga, gb
        end
      end
    end
    local left = {}
    for _, x in ipairs(over_texts) do left[#left + 1] = x end
    if #dependent > 0 then
      -- (by what the loads were: a queue, or bursts of server errors kept in, decision.pair_kept_bursts)
      local queue = {}
      for _, x in ipairs(dependent) do
        local burst = false
        for _, y in ipairs(dep_bursts) do burst = burst or y == x end
        if not burst then queue[#queue + 1] = x end
      end
      if #queue > 0 then
        left[#left + 1] = ("too dependent to test (neighbouring requests alike, the queue's doing): %s")
          :format(table.concat(queue, ", "))
      end
      if #dep_bursts > 0 then
        left[#left + 1] = ("too dependent to test (neighbouring requests alike, at a load answered short in bursts of "
          .. "server errors): %s"):format(table.concat(dep_bursts, ", "))
      end
    end
    if missing then left[#left + 1] = "a run without this latency's per-request data there" end
    if #used > 0 then
      local vals = {}
      for _, x in ipairs { "a", "b" } do
        -- each load point weighs 1 / #used, its stages within it by their counts
        if #parts[x] > 0 then
          grids[x][p[1]] = M.mix_loads(parts[x], qs)
          for _, qv in ipairs(grids[x][p[1]]) do
            if qv[1] >= 1 and qv[1] <= 99 then vals[#vals + 1] = qv[2] end
          end
        end
      end
      has_a[#has_a + 1], has_b[#has_b + 1] = #parts.a > 0, #parts.b > 0
      cols[#cols + 1] = i + 1
      loads_of[#loads_of + 1], left_of[#left_of + 1] = table.concat(used, ", "), left
      names_of[#names_of + 1] = (p[2]:gsub(" %(ms%)$", ""):gsub("^%l", string.upper))
      labels[#labels + 1] = loads_of[#loads_of] == ONE_POINT and p[2] or ("%s at %s"):format(p[2], loads_of[#loads_of])
      ylabels[#ylabels + 1] = ("share of %s at or below (%%)"):format(p[3])
      logs[#logs + 1] = wide(vals)
    elseif #dependent > 0 or missing then
      any_dependent = any_dependent or #dependent > 0
      c.notes[#c.notes + 1] = ("%s is not drawn: no load %s sustained has it to compare (%s)."):format(
        (p[2]:gsub(" %(ms%)$", "")), both, table.concat(left, "; "))
    end
  end
  if #cols == 0 and #c.notes > 0 and not any_dependent then
    -- a run model saved before the stages kept their grids: its stages' figures are per-request ones
    for _, x in ipairs { A, B } do
      local per_stage, has_grid = false, false
      for _, st in ipairs(x.run.stages or {}) do
        local src = st.metrics and st.metrics.source or {}
        if src.ttft_p90_ms == rm.PER_REQUEST or src.latency_p90_ms == rm.PER_REQUEST then per_stage = true end
        if st.cdf then has_grid = true end
      end
      if per_stage and not has_grid then
        c.reason = ("%s's saved run model has no quantile grid per load point (saved before the chart drew the "
          .. "loads both runs sustained): `llmdlua analyze.lua WORKSPACE --reextract` reads the results again.")
          :format(x.label)
        c.notes = {}
        return c
      end
    end
    c.reason = ("The per-request data is not split by load point (read as a whole), so no distribution at a load "
      .. "%s sustained can be drawn: pooled over every load, saturated ones included, it would mix the loads and "
      .. "the overload."):format(both)
    c.notes = {}
    return c
  end
  if #cols == 0 then
    c.reason = #c.notes > 0 and ("At the loads %s sustained no latency can be drawn: %s"):format(both,
      table.concat(c.notes, " ")) or "The runs' per-request data holds no latency samples."
    c.notes = {}
    return c
  end
  local same = true
  for k = 2, #loads_of do same = same and loads_of[k] == loads_of[1] end
  c.title = same and loads_of[1] == ONE_POINT and c.title
    or same and ("Latency distributions (per-request CDF) at %s offered, loads %s sustained"):format(loads_of[1], both)
    or ("Latency distributions (per-request CDF) at loads %s sustained (each panel's own)"):format(both)
  for _, v in ipairs(c.vars) do
    if v[1] == "title" then v[2] = c.title end
  end
  -- one note per set of panels pooling the same loads with the same left out
  local groups, by_key = {}, {}
  for k, left in ipairs(left_of) do
    local text = table.concat(left, "; ")
    local key = loads_of[k] .. "|" .. text
    if not by_key[key] then
      by_key[key] = { names = {}, loads = loads_of[k], text = text }
      groups[#groups + 1] = by_key[key]
    end
    local names = by_key[key].names
    names[#names + 1] = names_of[k]
  end
  for _, g in ipairs(groups) do
    if g.loads ~= ONE_POINT then
      c.notes[#c.notes + 1] = ("%s: the requests at %s offered%s, each load weighted equally%s; left out%s."):format(
        same and "Every panel" or table.concat(g.names, ", "), g.loads,
        g.loads:find(",", 1, true) and " pooled" or "",
        one_sided and "" or ", as the Performance Results' tests compare them",
        #g.text > 0 and (": " .. g.text) or ": none")
    end
  end
  for _, s in ipairs { { A, ca }, { B, cb } } do
    if not s[2] then
      c.notes[#c.notes + 1] = ("%s: no per-request data, so no distribution."):format(s[1].label)
    end
  end
  local blocks = {}
  for _, x in ipairs { "a", "b" } do
    local rows = { name = "run " .. x }
    M.cdf_rows(rows, grids[x], qs)
    blocks[#blocks + 1] = rows
  end
  c.data = data_text("percentile ttft_ms tpot_ms itl_ms e2e_ms", blocks)
  add(c, "panel_col", cols)
  add(c, "panel_label", labels)
  add(c, "panel_ylabel", ylabels)
  add(c, "panel_log", logs)
  add(c, "panel_has_a", has_a)
  add(c, "panel_has_b", has_b)
  c.available = true
  return c
end

-- 3. Achieved against offered load, per load point.
function M.achieved_offered(model, A, B)
  local c = base("achieved_offered", "Achieved against offered load", A, B)
  local types, blocks, n, any_sat, any_fail = {}, {}, 0, false, false
  local xmax, ymax = 0, 0
  for _, s in ipairs { A, B } do
    local rows = { name = "run " .. s.x }
    for _, p in ipairs(M.load_points(model, s)) do
      if p.offered and p.achieved_rps then
        -- saturated (ringed) as the ladder's Saturated column; failures: short of the
        -- offered rate from failed requests, not overload, which the tables never mark
        -- saturated (M.failures_shortfall): a marker of its own
        rows[#rows + 1] = row(4, p.offered, p.achieved_rps, p.saturated and 1 or 0, p.failures and 1 or 0)
        xmax, ymax = math.max(xmax, p.offered), math.max(ymax, p.achieved_rps)
        if p.saturated then any_sat = true end
        if p.failures then any_fail = true end
        types[p.load_type] = true
        n = n + 1
      end
    end
    blocks[#blocks + 1] = rows
    if #rows == 0 then c.notes[#c.notes + 1] = ("%s: no load point with both an offered and an achieved rate.")
      :format(s.label) end
  end
  if n == 0 then
    c.reason = "No load point of either run states its offered load (and achieved rate), so there is nothing to plot."
    return c
  end
  if types.rate and types.concurrency then
    c.reason = "One run was driven by request rate and the other by concurrency, so their offered loads share no axis."
    return c
  end
  c.data = data_text("offered achieved_req_s saturated failures", blocks)
  add(c, "xlabel", types.concurrency and "offered concurrency (requests in flight)" or "offered load (req/s)")
  add(c, "diagonal", types.concurrency == nil)
  add(c, "saturated", any_sat)
  add(c, "failures", any_fail)
  for _, s in ipairs { A, B } do
    c.notes[#c.notes + 1] = failures_note(model, s, M.load_points(model, s))
  end
  -- the axes end a margin beyond the highest point (gnuplot's own autoscale ends at the
  -- point where it falls on a tic, a single load point always), so that the last
  -- markers are drawn inside the plot, whole; y reaches the diagonal's end where drawn
  xmax, ymax = M.axis_max(xmax), M.axis_max(ymax)
  if types.concurrency == nil then ymax = math.max(ymax, xmax) end
  add(c, "xmax", xmax)
  add(c, "ymax", ymax)
  c.available = true
  return c
end

-- The end of an axis from 0 that shows v inside the plot: v and a margin of M.AXIS_MARGIN
-- (8 %) of it; 1 when v is not positive.
M.AXIS_MARGIN = 0.08
function M.axis_max(v)
  if not (finite(v) and v > 0) then return 1 end
  return v * (1 + M.AXIS_MARGIN)
end

-- The y range of a log panel of values vals (and its SLO slo, drawn inside it: a number or
-- nil): from the lowest to the highest of them, widened on each side by half of
-- M.AXIS_MARGIN of its decades (a log axis' margin is a share of its decades, not of its top
-- value), so that style.gp's set_log_ytics labels the steps between decades; nil, nil where
-- a value is not positive or none is known. latency_throughput's and treatments.lua's
-- latency charts alike.
function M.log_range(vals, slo)
  local lo, hi
  for _, v in ipairs(vals) do
    if finite(v) then lo, hi = math.min(lo or v, v), math.max(hi or v, v) end
  end
  if finite(slo) and slo > 0 then lo, hi = math.min(lo or slo, slo), math.max(hi or slo, slo) end
  if not (lo and lo > 0) then return nil, nil end
  local f = (hi / lo) ^ (M.AXIS_MARGIN / 2)
  if f == 1 then f = 10 ^ (M.AXIS_MARGIN / 2) end -- (one value: a share of a decade about it)
  return lo / f, hi * f
end

-- What the kv_cache chart's points are (llmd.kvcache.timeline_collector): usage is the mean
-- of every engine's series, so a pod of two data-parallel engines counts twice.
M.KV_NOTE = "Each point is one round of scrapes of every pod then running: usage is the mean over the engines "
  .. "of those pods (data-parallel ranks count one each), the hit rate hits / queries since the previous point, "
  .. "summed over pods."

-- 4. KV-cache usage and prefix-cache hit rate over time, from the raw scrapes.
function M.kv_cache(_, A, B)
  local c = base("kv_cache", "KV cache over time", A, B)
  local blocks, ha, hb = {}, { false, false }, { false, false }
  for _, s in ipairs { A, B } do
    local tl = type(s.kv) == "table" and s.kv.timeline or nil
    local rows = { name = "run " .. s.x }
    for _, p in ipairs(type(tl) == "table" and tl or {}) do
      rows[#rows + 1] = row(3, p.t, p.usage_pct, p.hit_rate_pct)
      local h = s == A and ha or hb
      if finite(p.usage_pct) then h[1] = true end
      if finite(p.hit_rate_pct) then h[2] = true end
    end
    if #rows == 0 then
      c.notes[#c.notes + 1] = ("%s: no raw vLLM scrapes (metrics/raw/*_metrics.log).") :format(s.label)
    end
    blocks[#blocks + 1] = rows
  end
  local cols, labels, has_a, has_b = {}, {}, {}, {}
  for i, l in ipairs { "KV-cache usage (%)", "prefix-cache hit rate (%)" } do
    if ha[i] or hb[i] then
      cols[#cols + 1], labels[#labels + 1], has_a[#has_a + 1], has_b[#has_b + 1] = i + 1, l, ha[i], hb[i]
    end
  end
  if #cols == 0 then
    c.reason = "Neither run has raw vLLM scrapes with KV-cache usage or prefix-cache counters over time."
    return c
  end
  c.data = data_text("seconds usage_pct hit_rate_pct", blocks)
  add(c, "panel_col", cols)
  add(c, "panel_label", labels)
  add(c, "panel_has_a", has_a)
  add(c, "panel_has_b", has_b)
  c.notes[#c.notes + 1] = M.KV_NOTE
  for _, s in ipairs { A, B } do
    local note = type(s.kv) == "table" and s.kv.timeline_note or nil
    if type(note) == "string" then c.notes[#c.notes + 1] = ("%s: %s."):format(s.label, note) end
    -- scrapes that count other traffic (or part of the run): its curves are the server's
    local scope = type(s.kv) == "table" and s.kv.scope or nil
    if type(scope) == "string" then
      c.notes[#c.notes + 1] = ("%s: the scrapes' figures, not the run's alone (%s)."):format(s.label, scope)
    end
  end
  c.available = true
  return c
end

M.MAX_CAUSES = 10
-- characters of a cause's line beside the bars (12 pt sans in 45 % of 900 px)
M.CAUSE_WIDTH = 56

-- 5. Failed requests by cause, both runs.
function M.errors(_, A, B)
  local c = base("errors", "Failed requests by cause", A, B)
  local by, order = {}, {}
  for _, s in ipairs { A, B } do
    for _, e in ipairs(s.run.errors or {}) do
      local k = e.cause
      if not by[k] then by[k] = { cause = k, a = 0, b = 0 }; order[#order + 1] = by[k] end
      by[k][s.x] = by[k][s.x] + (e.count or 0)
    end
  end
  if #order == 0 then
    c.reason = "No failed requests in either run, so there is no error chart."
    return c
  end
  table.sort(order, function(p, q)
    if p.a + p.b ~= q.a + q.b then return p.a + p.b > q.a + q.b end
    return p.cause < q.cause
  end)
  if #order > M.MAX_CAUSES then
    local other = { cause = ("%d other causes"):format(#order - M.MAX_CAUSES + 1), a = 0, b = 0 }
    for i = M.MAX_CAUSES, #order do other.a, other.b = other.a + order[i].a, other.b + order[i].b end
    for i = #order, M.MAX_CAUSES, -1 do order[i] = nil end
    order[M.MAX_CAUSES] = other
  end
  local rows, causes, max_count, lines = { name = "cause a_count b_count" }, {}, 0, 1
  for i, e in ipairs(order) do
    max_count = math.max(max_count, e.a, e.b)
    rows[#rows + 1] = row(3, i, e.a, e.b)
    -- the cause in full where two lines beside the bars hold it (the left 45 % of the chart)
    causes[i] = M.wrap(e.cause, M.CAUSE_WIDTH, 2)
    if type(causes[i]) == "table" then lines = math.max(lines, #causes[i].lines) end
  end
  c.data = data_text("index a_count b_count", { rows })
  add(c, "cause_lines", lines)
  add(c, "cause", causes)
  add(c, "max_count", max_count)
  c.available = true
  return c
end

-- The charts whose data comes from the comparison model; the others' from the two sides
-- alone (their functions ignore the model), so they can be drawn while the model is built.
M.NEEDS_MODEL = { latency_throughput = true, latency_cdf = true, achieved_offered = true }

-- The caption lines that need the model, of the charts drawn without it (their pictures do
-- not wait for it; M.model_notes adds these once it is built). Where the error rate's row
-- names no winner (no test finds a difference, or none was made), the failures chart says
-- so first, as the latency chart says the Verdict's (M.verdict_note): bars of unequal height
-- in an A/A pair read as an order on a slide (newuser44/verify44).
function M.errors_order_note(model, c)
  local er
  for _, r in ipairs(type(model) == "table" and model.perf or {}) do
    if r.key == "error_rate_pct" then er = r end
  end
  if not er or er.winner then return end
  local why = type(er.verdict_text) == "string" and er.verdict_text ~= "" and er.verdict_text
    or type(er.verdict) == "string" and er.verdict or "untested"
  if type(er.evidence) == "string" and er.evidence ~= "" then why = why .. "; " .. er.evidence end
  table.insert(c.notes, 1, ("The Error rate row names no winner (%s). Read no order between the runs from the bars: "
    .. "they show the failures each run counted, not an order."):format(why))
end

function M.model_notes(model, list)
  for _, c in ipairs(list) do
    if c.name == "errors" and c.available then M.errors_order_note(model, c) end
  end
end

-- Every chart of the comparison, in order; available or with the reason it is left out.
-- names: only these (in this order); default M.NAMES.
function M.prepare(model, A, B, names)
  local out = {}
  for _, name in ipairs(names or M.NAMES) do out[#out + 1] = M[name](model, A, B) end
  return out
end

-- Rendering ------------------------------------------------------------------------------------

-- gnuplot's path, or nil.
function M.gnuplot()
  return proc.which("gnuplot")
end

local function tail(text, n)
  local lines = {}
  for l in tostring(text or ""):gmatch("[^\n]+") do
    if l:match("%S") then lines[#lines + 1] = l end
  end
  return table.concat(lines, " | ", math.max(1, #lines - (n or 3) + 1))
end

-- Removes out_dir/NAME.svg and NAME.dat of the charts not drawn this time, so that the
-- folder never shows a picture the report no longer has.
function M.remove_stale(list, out_dir)
  for _, c in ipairs(list) do
    if not c.svg then
      os.remove(out_dir .. "/" .. c.name .. ".svg")
      os.remove(out_dir .. "/" .. c.name .. ".dat")
    end
  end
end

M.TIMEOUT = 60

-- The temporary files gnuplot's output goes to while it runs, and the data it reads (in
-- out_dir, removed by M.finish or M.abort; a dot name never matches a chart's).
local function part_paths(out_dir, name)
  return out_dir .. "/." .. name .. ".svg.part", out_dir .. "/." .. name .. ".err.part",
    "." .. name .. ".dat.part"
end

-- One gnuplot for many charts (M.session): each chart's SVG to a file of its own (set
-- output), its variables and template after a prologue that puts gnuplot back as it starts,
-- then a line on its standard error saying the chart was drawn. gnuplot reads its commands
-- as a script file (/dev/stdin), so the first error ends it: the charts not said to be
-- drawn are drawn again alone (finish_job), which says what went wrong exactly as a gnuplot
-- of their own would. A gnuplot's start is ~40 ms of CPU (its 82 libraries' relocations):
-- one start a report instead of one a chart (issue 20).
local DRAWN = "llmdlua: chart drawn: "

-- What `reset session` leaves to the next chart, put back (gnuplot 5.4): a multiplot left
-- open; the SVG terminal's options and its pen (colour mode, width), which it carries from
-- one plot to the next (the next chart's first <g> said the last colour drawn); and the
-- plain text gnuplot last estimated the width of (a label of several lines), which a plot
-- whose title it does not estimate (a key's, on a terminal without enhanced text) gets as
-- its SVG <title> (the treatments report's key took the last bar chart's tic label). The
-- terminal's options are set to their defaults (enhanced text among them), then, into
-- /dev/null and from gnuplot's own settings (`reset session`: settings, variables,
-- functions, the init files read again), a plot whose one text is an empty title (the
-- estimate's text then empty, as in a new gnuplot) and gnuplot's test page (which ends with
-- the pen as a new gnuplot has it); then `reset session` again. What it still leaves (set linetype,
-- set encoding, set decimalsign, set locale, the SVG terminal's background) only a template
-- other than the shipped ones could change: those get a gnuplot of their own
-- (shared_template). tests/lua/test_charts.lua checks every shipped template's chart drawn
-- after the others is the one drawn alone, byte for byte.
local PROLOGUE = table.concat({ "unset multiplot", "set output '/dev/null'",
  "set terminal svg linewidth 1 dashlength 1 butt fontscale 1", "reset session",
  "unset border; unset tics; unset key; plot [0:1] [0:1] 2 title ''", "test", "reset session" }, "\n") .. "\n"

-- Starts the one gnuplot of M.session's charts (its working folder out_dir, where the charts
-- and their data are), idle until M.start gives it a chart. nil where it cannot be started
-- (M.start then starts a gnuplot a chart, which says why).
function M.session(gp, out_dir)
  ws.mkdir_p(out_dir)
  local out, err = out_dir .. "/.gnuplot.out.part", out_dir .. "/.gnuplot.err.part"
  local spawned, p = pcall(proc.spawn, { gp, "/dev/stdin" },
    { cwd = out_dir, stdin = { pipe = true }, stdout = { file = out }, stderr = { file = err } })
  if not spawned then
    os.remove(out)
    os.remove(err)
    -- (a Ctrl-C during the spawn; any other failure is M.start's to meet again)
    if tostring(p):match("interrupted$") then error(p, 0) end
    return nil
  end
  return { session = true, p = p, out_dir = out_dir, out = out, err = err, open = true, drawn = {} }
end

-- Gives the session job j's chart (j.vars_line: its variables); false where gnuplot
-- ended before it read it (it failed: the chart is drawn alone).
local function session_feed(s, j)
  if not s.open then return false end
  local text = PROLOGUE .. "set output " .. M.gp_string(j.out:match("[^/]*$")) .. "\n" .. j.vars_line .. "\n"
    .. "load " .. M.gp_string(j.tpl) .. "\nunset multiplot\nset output '/dev/null'\nunset print\n"
    .. "print " .. M.gp_string(DRAWN .. j.c.name) .. "\n"
  local fed = s.p:feed(text, M.TIMEOUT, true)
  if not fed then s.open = false end
  return fed
end

-- Ends a session once its charts are given: its input closed, gnuplot waited for (within
-- M.TIMEOUT), the charts it said it drew in s.drawn, its own files removed.
local function session_close(s)
  if s.closed then return end
  s.closed = true
  if s.open then
    s.open = false
    pcall(s.p.feed, s.p, "", M.TIMEOUT)
  end
  local st = s.p:wait(M.TIMEOUT)
  if not st then s.p:kill(1) end
  for line in (ws.read_text(s.err) or ""):gmatch("[^\n]+") do
    if line:sub(1, #DRAWN) == DRAWN then s.drawn[line:sub(#DRAWN + 1)] = true end
  end
  os.remove(s.out)
  os.remove(s.err)
end

-- Stops a session's gnuplot and removes its files (its charts' are their jobs').
local function session_abort(s)
  if not s or s.closed then return end
  s.closed, s.open = true, false
  pcall(s.p.kill, s.p, 0)
  os.remove(s.out)
  os.remove(s.err)
end

-- The shipped chart templates' text, by name (host.root/templates/charts/NAME).
local shipped = {}

-- May the chart template tpl (and the style.gp it loads, style) share a gnuplot with other
-- charts? Only where both are the shipped ones, or copies of them as they are (a
-- workspace's templates/): what gnuplot carries from one chart to the next that the
-- prologue does not put back, they never change (checked by tests/lua/test_charts.lua:
-- every chart drawn after another is the one drawn alone, byte for byte). A template edited
-- may change anything: it gets a gnuplot of its own, as every chart did before.
local function shared_template(tpl, style)
  for _, path in ipairs { tpl, style } do
    local name = path:match("[^/]*$")
    if shipped[name] == nil then shipped[name] = ws.read_text(host.root .. "/templates/charts/" .. name) or false end
    if not shipped[name] or ws.read_text(path) ~= shipped[name] then return false end
  end
  return true
end

-- Stops the gnuplots M.start started and not yet finished, and removes their files.
function M.abort(pending)
  if not pending then return end
  session_abort(pending.session)
  for _, j in ipairs(pending.jobs) do
    if not j.done then
      j.done = true
      if j.p then pcall(j.p.kill, j.p, 1) end
      os.remove(j.out)
      os.remove(j.err)
    end
    os.remove(j.out_dir .. "/" .. j.dat)
  end
end

-- The template finder of M.start's templates (a folder, or a function), by absolute path
-- (gnuplot runs in out_dir).
local function template_finder(templates)
  local find = templates
  if type(templates) == "string" then find = function(name) return templates .. "/" .. name end end
  return function(name)
    local p = find(name)
    if p:sub(1, 1) ~= "/" then return lfs.currentdir() .. "/" .. p end
    return p
  end
end

-- Starts the gnuplot (M.session) that will draw the report's charts into out_dir, before
-- their data is known: its start, most of its time on a few charts (0.1 s on an idle
-- machine, 0.4 s on a busy one: issue 20), is spent beside the caller's other work. M.start
-- gives it the charts (given as its idle); M.finish ends it, M.abort_idle stops it. nil
-- without gp.
function M.spawn_idle(out_dir, gp)
  if not gp then return nil end
  return M.session(gp, out_dir)
end

-- Stops M.spawn_idle's gnuplot (if not yet ended) and removes its files.
function M.abort_idle(idle)
  session_abort(idle)
end

-- Starts drawing the available charts of list with gnuplot (path gp) into out_dir: writes
-- NAME.dat (the data) and gives the charts to one gnuplot in the background (M.session;
-- a chart whose template is not the shipped one gets a gnuplot of its own), so the caller
-- goes on meanwhile: the report's charts are drawn while its model is built.
-- templates: a folder holding charts/NAME.gp (chart.template when set: one template
-- drawing several charts, each of its own name) and charts/style.gp, or a function
-- ("charts/NAME.gp") -> path. idle (optional): M.spawn_idle's gnuplot, given the charts
-- (and, given to several M.start's, all of theirs) instead of starting another. Returns
-- what M.finish takes (M.finish ends the gnuplot). A template that is missing is an error
-- naming it (the gnuplots already started are stopped).
function M.start(list, templates, out_dir, gp, idle)
  ws.mkdir_p(out_dir)
  local find = template_finder(templates)
  local style = find("charts/style.gp")
  local pending = { jobs = {} }
  if idle and idle.out_dir ~= out_dir then
    M.abort_idle(idle)
    idle = nil
  end
  pending.session = idle or nil
  local ok, err = pcall(function()
    for _, c in ipairs(list) do
      if c.available then
        mark_workload(c)
        local tpl = find("charts/" .. (c.template or c.name) .. ".gp")
        if lfs.attributes(tpl, "mode") ~= "file" then
          error(("%s: no such chart template (expected gnuplot commands for the %s chart)"):format(tpl, c.name), 0)
        end
        -- the data under a temporary name until every chart is drawn (M.finish): a
        -- template gnuplot rejects leaves NAME.dat as it was, beside its NAME.svg
        local out, errf, dat = part_paths(out_dir, c.name)
        ws.write_text(out_dir .. "/" .. dat, c.data)
        local vars = { { "datafile", dat }, { "style_file", style } }
        for _, v in ipairs(c.vars) do vars[#vars + 1] = v end
        -- the SVG goes into a temporary file that M.finish reads back: only ws.write_text
        -- writes the chart's file, so a full disk is reported as such, never as a short
        -- picture (a gnuplot that cannot be started so, or whose output is not a whole SVG,
        -- draws again in the foreground, through a pipe: see finish_job)
        local j = { c = c, tpl = tpl, out = out, err = errf, dat = dat, out_dir = out_dir, started = proc.now(),
          vars_line = M.preamble(vars) }
        j.argv = { gp, "-e", j.vars_line, tpl }
        pending.jobs[#pending.jobs + 1] = j
        -- the session's gnuplot draws it (started here for the first chart it may draw), else
        -- one of its own is started. (A chart the session's gnuplot did not take, it ended
        -- before: it failed, and finish_job draws the chart again in the foreground, which
        -- says why.)
        if shared_template(tpl, style) then
          if pending.session == nil then pending.session = M.session(gp, out_dir) or false end
          if pending.session and session_feed(pending.session, j) then
            j.session, j.err = pending.session, pending.session.err
          end
        end
        local spawned, p = true, nil
        if not j.session then
          spawned, p = pcall(proc.spawn, j.argv, { cwd = out_dir, stdout = { file = out }, stderr = { file = errf } })
        end
        if j.session then
          j.p = nil
        elseif spawned then
          j.p = p
        elseif tostring(p):match("interrupted$") then
          -- a Ctrl-C during the spawn (raised as it returned: its handle is lost, and killed
          -- when the state closes, llmdlua's os.exit) is no gnuplot that failed to start
          error(p, 0)
        else
          os.remove(out)
          os.remove(errf)
        end
      end
    end
  end)
  if not ok then
    M.abort(pending)
    error(err, 0)
  end
  return pending
end

-- Waits for one of M.start's gnuplots (within M.TIMEOUT of its start) and writes its SVG:
-- chart.svg (the SVG text) and chart.file ("charts/NAME.svg"). A gnuplot that fails or
-- writes no SVG is an error naming the template.
local function finish_job(j)
  local st, svg, err
  local again = not j.p
  if j.session then
    -- drawn where the session's gnuplot said so, its SVG whole; else drawn again, alone
    session_close(j.session)
    svg = ws.read_text(j.out)
    os.remove(j.out)
    again = not (j.session.drawn[j.c.name] and svg and svg:find("</svg>", 1, true))
    st, err = { ok = true }, ""
  elseif j.p then
    st = j.p:wait(math.max(0, M.TIMEOUT - (proc.now() - j.started)))
    if not st then
      j.p:kill(1)
      st = { ok = false, timed_out = true }
    end
    svg, err = ws.read_text(j.out), ws.read_text(j.err) or ""
    os.remove(j.out)
    os.remove(j.err)
    -- anything but a whole SVG (a template error, or a disk that filled under gnuplot's
    -- output): drawn again below, the way it always was, which says what went wrong
    again = not st.timed_out and not (st.ok and svg and svg:find("</svg>", 1, true))
  end
  j.done = true
  if again then
    local r = proc.run(j.argv, { cwd = j.out_dir, stdout = "capture", stderr = "capture", timeout = M.TIMEOUT })
    st, svg, err = r, r.stdout or "", r.stderr or ""
  end
  local c, tpl = j.c, j.tpl
  if not st.ok then
    local how = st.timed_out and ("timed out after %d s"):format(M.TIMEOUT)
      or st.code and ("exit code " .. tostring(st.code)) or st.signal and ("signal " .. st.signal)
      or exitstatus.text(st)
    -- (the report's reason: gnuplot's last line, not the variables it echoes before it)
    j.short = ("%s: gnuplot failed (%s)%s"):format(tpl, how, err:match("%S") and (": " .. tail(err, 1)) or "")
    error(("%s: gnuplot failed (%s): %s"):format(tpl, how, tail(err)), 0)
  elseif not svg:find("<svg", 1, true) or not svg:find("</svg>", 1, true) then
    j.short = ("%s: gnuplot wrote no SVG on its standard output (the template must `set terminal svg` "
      .. "and leave `set output` alone)"):format(tpl)
    error(("%s: gnuplot wrote no SVG on its standard output (the template must `set terminal svg` "
      .. "and leave `set output` alone)%s"):format(tpl, err ~= "" and (": " .. tail(err)) or ""), 0)
  else
    -- gnuplot escapes < and & but not the > of "]]>", which XML forbids in text (a
    -- label may hold it); gnuplot's own markup never holds that sequence
    svg = svg:gsub("%]%]>", "]]&gt;")
    c.svg = svg
    c.file = "charts/" .. c.name .. ".svg"
  end
end

-- Puts a drawn chart's files in place (after every chart of M.finish was drawn): NAME.dat
-- (renamed from its temporary name) and NAME.svg.
local function put_job(j)
  local dat = j.out_dir .. "/" .. j.c.name .. ".dat"
  local ok, err = os.rename(j.out_dir .. "/" .. j.dat, dat)
  if not ok then error(("%s: cannot be written: %s"):format(dat, tostring(err)), 0) end
  ws.write_text(j.out_dir .. "/" .. j.c.name .. ".svg", j.c.svg)
end

-- Waits for the gnuplots of one or more M.start's, in the order of the charts' names
-- (order: a list of names; default the order they were started), and writes their SVGs
-- and data, only once every one of them was drawn: all or nothing, so a template gnuplot
-- rejects changes no chart file. The first that failed is raised (the others are stopped
-- and their files removed). With opts.keep_going, a chart gnuplot fails to draw is left
-- out instead, the others written: its available = false, reason saying what gnuplot said,
-- and failed = the whole error; returns the list of those charts ({} when all were drawn).
-- (A file that cannot be written, or a Ctrl-C, is raised all the same.)
function M.finish(pendings, order, opts)
  local keep_going = opts and opts.keep_going
  local jobs, sessions = {}, {}
  for _, pending in ipairs(pendings) do
    for _, j in ipairs(pending.jobs) do jobs[#jobs + 1] = j end
    if pending.session then sessions[#sessions + 1] = pending.session end
  end
  if order then
    local at = {}
    for i, name in ipairs(order) do at[name] = i end
    table.sort(jobs, function(x, y) return (at[x.c.name] or math.huge) < (at[y.c.name] or math.huge) end)
  end
  local failed = {}
  local ok, err = pcall(function()
    for _, j in ipairs(jobs) do
      if not keep_going then
        finish_job(j)
      else
        local drawn, why = pcall(finish_job, j)
        if not drawn then
          if not j.short or tostring(why):match("interrupted$") then error(why, 0) end
          local c = j.c
          c.available, c.svg, c.file, c.failed = false, nil, nil, tostring(why)
          c.reason = ("gnuplot could not draw it: %s."):format(j.short)
          os.remove(j.out_dir .. "/" .. j.dat)
          failed[#failed + 1] = c
        end
      end
    end
    for _, j in ipairs(jobs) do
      if j.c.svg then put_job(j) end
    end
    -- (a session given no chart: its gnuplot ends now)
    for _, session in ipairs(sessions) do session_close(session) end
  end)
  if not ok then
    for _, session in ipairs(sessions) do session_abort(session) end
    M.abort({ jobs = jobs })
    error(err, 0)
  end
  return failed
end

-- Draws the available charts with gnuplot (path gp) into out_dir: NAME.dat (the data) and
-- NAME.svg, M.start then M.finish (templates as M.start's). Sets chart.svg (the SVG text)
-- and chart.file ("charts/NAME.svg"). A template that gnuplot rejects is an error naming it.
function M.render(list, templates, out_dir, gp)
  M.finish({ M.start(list, templates, out_dir, gp) })
  M.remove_stale(list, out_dir)
  return list
end

-- Printed, is a chart of this SVG (its viewBox, gnuplot's canvas) larger on a page turned
-- sideways? Only one wider than the 900 units of the one-column charts (latency_throughput's
-- two columns of panels, 1220 wide; the one-load-point panels side by side, 400 each): on a
-- Letter or A4 page upright its 12-unit labels printed at about 5 pt (fixd46: the 6-panel chart
-- was unreadable). The page areas (pt) the report's print CSS gives a chart, room left for its
-- heading and notes: upright 540 x 600, sideways 736 x 432 (its max-height, 6 in); sideways
-- where that scales the canvas up. false where the SVG has no viewBox.
function M.print_landscape(svg)
  local w, h = tostring(svg):match('viewBox="%s*[-%d.]+%s+[-%d.]+%s+([%d.]+)%s+([%d.]+)%s*"')
  w, h = tonumber(w), tonumber(h)
  if not (w and h and w > 0 and h > 0) or w <= 1000 then return false end
  return math.min(736 / w, 432 / h) > math.min(540 / w, 600 / h)
end

-- For the report templates: { list = charts (each with name, title, available, reason,
-- notes, file, svg_inline, print_landscape: M.print_landscape), available = any drawn, note =
-- why there are none (or nil) }.
function M.section(list, note)
  local html = require "llmd.html"
  local any = false
  for i, c in ipairs(list) do
    if c.svg then
      c.svg_inline = html.inline_svg(c.svg, ("c%d-"):format(i), c.title)
      c.print_landscape = M.print_landscape(c.svg)
      any = true
    end
    c.drawn = c.svg ~= nil
    c.notes_text = table.concat(c.notes, " ")
  end
  return { list = list, available = any, note = note }
end

return M
