-- llmd.report_layout: how the comparison report's top reads, not what it decides.
--
-- The Headline's cells hold a figure and everything that qualifies it ("≥ 92.21 req/s (the
-- last load before saturation)", an N/A with its reason, evidence of several hundred
-- characters). A reader deciding in a minute needs the figure; the qualification must stay
-- one glance away, never dropped. apply(model) adds, beside every text the model already has
-- (comparison.json keeps those whole):
--   row.a_short, b_short, delta_short, pct_short, evidence_short: the cell as shown, the
--     text itself where it is short, else its lead (the figure before its parenthesis, the
--     evidence's first clause); row.note_n: the number of the row's note when any cell was
--     shortened (row.a_cut, ... say which)
--   model.headline_notes: {{n =, label =, parts = {{who =, text =}}}}: each shortened row's
--     cells in full, in the order of its columns (nothing is lost: the full text, not what
--     was cut from it)
--   model.summary_lines: the Summary: the decision (the Verdict's lead clause), the load each
--     configuration sustains within its SLOs (the Verdict's own headline row, short), the
--     caveats that qualify it, each a few words; model.summary (the long text) moves to the
--     Evidence section, which the last line links to.
local M = {}

-- a cell of a figure at most this long (characters) is shown whole; longer, its lead
M.CELL_MAX = 32
-- an Evidence cell at most this long is shown whole; longer, its first clause if that is
-- at most this long, else only the note's number
M.EVIDENCE_MAX = 50

local function ulen(s) return utf8.len(s) or #s end

-- The first of the separators seps at parenthesis depth 0 (outside "(...)" and "[...]"):
-- its position, and the separator.
local function first_at_depth0(text, seps)
  local depth = 0
  for i = 1, #text do
    local c = text:sub(i, i)
    if c == "(" or c == "[" then
      -- a separator " (" opens a parenthesis at depth 0: found before it counts
      if depth == 0 then
        for _, s in ipairs(seps) do
          if s == " (" and text:sub(i - 1, i) == " (" then return i - 1, s end
        end
      end
      depth = depth + 1
    elseif c == ")" or c == "]" then
      depth = math.max(depth - 1, 0)
    elseif depth == 0 then
      for _, s in ipairs(seps) do
        if s ~= " (" and text:sub(i, i + #s - 1) == s then return i, s end
      end
    end
  end
  return nil
end

-- A figure's cell: the text, or its lead where it is long (the part before the first
-- parenthesis or clause at depth 0). Returns the short text and whether it was cut.
function M.short_figure(text)
  text = tostring(text or "")
  if ulen(text) <= M.CELL_MAX then return text, false end
  for _, seps in ipairs { { " (" }, { "; " }, { ", " } } do
    local i = first_at_depth0(text, seps)
    if i and i > 1 then
      local head = text:sub(1, i - 1)
      if ulen(head) <= M.CELL_MAX then return head, true end
    end
  end
  return text, false -- (no short lead: shown whole, never a cut inside a figure)
end

-- An Evidence cell: the text, or its first clause (before ": " or "; " at depth 0), else
-- nothing but the note's number.
function M.short_evidence(text)
  text = tostring(text or "")
  if ulen(text) <= M.EVIDENCE_MAX then return text, false end
  for _, seps in ipairs { { ": ", "; ", " (" }, { ", " } } do
    local i = first_at_depth0(text, seps)
    if i and i > 1 then
      local head = text:sub(1, i - 1)
      if ulen(head) <= M.EVIDENCE_MAX then return head, true end
    end
  end
  return "", true
end

-- The Verdict's lead: its text up to the first ": " or ". " at depth 0 ("vllm+chunked-prefix
-- sustains more load within TTFT p90 ≤ 200.0 ms", "Cannot say which sustains more load"),
-- after the simulated cluster's prefix, which the caller says otherwise.
-- With it, the Verdict's second sentence where it says how sure, in a few words ("Untested (one
-- run per load), but the measured loads order them", "Shown by the repeats at every load
-- point: ..."), else nil: a warning, the latencies or what to measure next stay in the Verdict.
function M.verdict_lead(text)
  text = tostring(text or "")
  text = text:gsub("^Simulated cluster, not a measurement %b(): ", "")
  local i = first_at_depth0(text, { ": ", ". " })
  local lead = i and text:sub(1, i - 1) or text:gsub("%.$", "")
  local j = first_at_depth0(text, { ". " })
  local second = j and text:sub(j + 2)
  if second then
    local k = first_at_depth0(second, { ". " })
    second = k and second:sub(1, k - 1) or second:gsub("%.$", "")
    if not (second:match("^Untested") or second:match("^Shown")) or ulen(second) > 120 then second = nil end
  end
  return lead, second
end

local function add_notes(model)
  local notes = {}
  local a_who = tostring(model.a and model.a.label or "A") .. " (A)"
  local b_who = tostring(model.b and model.b.label or "B") .. " (B)"
  for _, r in ipairs(model.headline or {}) do
    r.a_short, r.a_cut = M.short_figure(r.a_text)
    r.b_short, r.b_cut = M.short_figure(r.b_text)
    r.delta_short, r.delta_cut = M.short_figure(r.delta_text)
    r.pct_short, r.pct_cut = M.short_figure(r.pct_text)
    r.evidence_short, r.evidence_cut = M.short_evidence(r.evidence)
    if r.a_cut or r.b_cut or r.delta_cut or r.pct_cut or r.evidence_cut then
      local n = #notes + 1
      r.note_n = n
      local parts = {}
      local function part(cut, who, text)
        if cut then parts[#parts + 1] = { who = who, text = tostring(text) } end
      end
      part(r.a_cut, a_who, r.a_text)
      part(r.b_cut, b_who, r.b_text)
      part(r.delta_cut, "Delta (B − A)", r.delta_text)
      part(r.pct_cut, "Change", r.pct_text)
      part(r.evidence_cut, "Evidence", r.evidence)
      notes[n] = { n = n, label = r.label, parts = parts }
    end
  end
  model.headline_notes = notes
end

-- The caveats that qualify the decision, a few words each (their full text is in the
-- banners above the Summary, the Verdict and the Evidence section).
local function caveats(model)
  local c = {}
  if model.simulated then c[#c + 1] = "simulated cluster: recorded results replayed, not a measurement" end
  if model.identical then c[#c + 1] = "the same results in both folders" end
  if model.config_mismatch then c[#c + 1] = "results that do not match their benchmark config" end
  if model.broken and #model.broken > 0 then c[#c + 1] = "a broken run" end
  for _, x in ipairs { "a", "b" } do
    local run = model[x] or {}
    if run.status == "failed" then c[#c + 1] = ("run %s failed"):format(tostring(run.label)) end
    if run.partial then c[#c + 1] = ("run %s is a partial run"):format(tostring(run.label)) end
    if run.left_out and #run.left_out > 0 then
      c[#c + 1] = ("result files of %s left out (--tolerant)"):format(tostring(run.label))
    end
  end
  local wm = model.workload_match or {}
  if wm.same == false then
    c[#c + 1] = tostring(model.workload_title or "not the same workload"):gsub("%.$", "")
  end
  if model.mixed_requests and #model.mixed_requests > 0 then c[#c + 1] = "two workloads in one run" end
  if model.gpus_differ then c[#c + 1] = "different accelerator counts: compare per GPU" end
  if model.rate_like then c[#c + 1] = "throughput put on one basis" end
  -- the Verdict's own warnings ("Warning: like for like not verified: ..."), their lead
  for w in tostring(model.verdict and model.verdict.text or ""):gmatch("Warning: ([^.]+)") do
    local lead = w:match("^(.-): ") or w
    c[#c + 1] = lead
  end
  return c
end

local function summary_lines(model)
  local lines = {}
  local v = model.verdict or {}
  local lead, sure = M.verdict_lead(v.text)
  if model.simulated then lead = "(simulated cluster, not a measurement) " .. lead end
  lines[#lines + 1] = { label = "Decision", text = lead .. "." .. (sure and (" " .. sure .. ".") or "") }
  -- the row the Verdict reads (capacity at the SLOs, per GPU where the counts differ, max
  -- sustained throughput without SLOs), and max sustained throughput beside a capacity
  local by = {}
  for _, r in ipairs(model.headline or {}) do by[r.key] = r end
  local keys = {}
  local lead_key = v.headline_row or (by.capacity and #(model.slo or {}) > 0 and "capacity") or "max_sustained"
  keys[#keys + 1] = lead_key
  if lead_key ~= "max_sustained" and lead_key ~= "max_sustained_per_gpu" then
    keys[#keys + 1] = lead_key:match("per_gpu$") and "max_sustained_per_gpu" or "max_sustained"
  end
  local a_label, b_label = tostring(model.a and model.a.label or "A"), tostring(model.b and model.b.label or "B")
  for _, k in ipairs(keys) do
    local r = by[k]
    if r then
      local delta = ""
      if r.delta_short ~= "" and not tostring(r.delta_short):match("^N/A") then
        delta = ("; B − A %s%s"):format(r.delta_short, (r.pct_short ~= "" and not r.pct_short:match("^N/A"))
          and (" (" .. r.pct_short .. ")") or "")
      end
      -- (its evidence in full in the row's note, which the line points to: its first clause
      -- alone, "one run per load, no interval", would read as no evidence where the loads order them)
      lines[#lines + 1] = { label = r.label, note_n = r.note_n,
        text = ("%s %s, %s %s%s"):format(a_label, r.a_short, b_label, r.b_short, delta) }
    end
  end
  local c = caveats(model)
  if #c > 0 then lines[#lines + 1] = { label = "Caveats", text = table.concat(c, "; ") .. "." } end
  model.summary_lines = lines
end

-- Which of the two throughput columns to quote, said once under the Headline: the Load
-- Curves give both, ~9 % apart on the demo pair, and the Performance Results one beside the other.
M.THROUGHPUT_QUOTE = "Which throughput to quote: Throughput req/s (and Output tok/s), the rate the capacity, "
  .. "max sustained throughput, the Load Ladder and the charts use: the pace at which answers came back while "
  .. "the load ran, or, where the files have no per-request times, the harness's rate without the drain at its "
  .. "end (How these figures are defined). Harness req/s (completed / window; \"harness\" in the Performance "
  .. "Results) is the harness's own rate: its window ends one answer's latency after the last request, so it "
  .. "reads lower the longer the answers take; it is there to check against the harness's own report, not to "
  .. "quote. At concurrency-based loads, or where the files allow neither, the two are the same figure."

function M.apply(model)
  model.throughput_quote = M.THROUGHPUT_QUOTE
  add_notes(model)
  summary_lines(model)
  return model
end

return M
