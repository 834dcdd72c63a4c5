-- llmdlua extract.lua RESULTS_DIR|FILE [--harness NAME] [--json] [--warmup 0,1] [--slo LIST]
--                      [--percentile-method linear|nearest] [--sketch REL_ERR] [--tolerant]
--                      [--br 0.2|0.1 [--out DIR] [--info FILE]]
--
-- Reads a benchmark's results folder (or one result file) with the harness mapping that recognises it and
-- prints the run model: overall metrics (each with its source), the load stages, error
-- causes and warnings; or, with --json, the same as JSON. Exit 1 when the run failed its
-- health checks (no results, no successful request, the harness stopped early); a run
-- whose files disagree with themselves has status "warnings" and exits 0.
-- With --br, writes llm-d-benchmark benchmark reports instead, one per load point, into
-- --out (default .), with what --info says of the stack.
local args = require "llmd.args"
local harness = require "llmd.harness"
local json = require "llmd.json"
local metrics = require "llmd.metrics"
local rm = require "llmd.runmodel"

local o = args.parse(arg, {
  command = "llmdlua extract.lua",
  usage = "llmdlua extract.lua RESULTS_DIR|FILE [--harness NAME] [--json] [--warmup LIST] [--slo LIST] "
    .. "[--percentile-method linear|nearest] [--sketch REL_ERR] [--tolerant] [--br 0.2|0.1 [--out DIR] [--info FILE]]",
  help = [[
  --harness NAME            read the results as this harness's (when a folder holds several)
  --json                    print the run model as JSON
  --warmup LIST             stage indexes to leave out of the totals, e.g. 0 or 0,1 or 0-2
                            (numbered from 0 in time order, as in compare.lua --help)
  --slo LIST                latency limits, e.g. ttft_p90_ms=200,tpot_p90_ms=50: goodput, the
                            completed requests meeting every limit (per-request data only)
  --percentile-method M     for metrics computed from per-request data: linear (numpy's
                            default, vLLM's) or nearest (nearest rank, guidellm's)
  --sketch REL_ERR          bounded memory for huge per-request files (e.g. 0.01)
  --tolerant                a result file that cannot be read (empty, truncated, a stage
                            missing) is left out with a warning instead of stopping
  --br VERSION              write llm-d-benchmark benchmark reports (0.2 or 0.1), one per
                            load point, named benchmark_report_v0.2,_<native file>.yaml
  --out DIR                 where --br writes them (default: the current folder)
  --info FILE               YAML or JSON with what you know of the stack (guide, model,
                            hardware, gateway, llmd_version, decode_image), for --br
  FILE                      one result file: read as the only file of its folder
]],
  options = { harness = "NAME", json = true, warmup = "LIST", slo = "LIST", percentile_method = "METHOD",
    sketch = "REL_ERR",
    br = "VERSION", out = "DIR", info = "FILE", tolerant = true },
  positional = { min = 1, max = 1 },
})

-- option values: a wrong one is one line and exit 2 (llmd.args); errors in the data exit 1
local opts = { harness = args.harness("--harness", o.harness), tolerant = o.tolerant,
  -- where --tolerant's warning of a file left out goes here (extract writes no report): an
  -- unreadable file's error says so
  tolerant_warning = o.br and "on stderr" or o.json and "in the JSON's warnings"
    or "under Warnings in extract.lua's output" }
local where = o[1]
local mode = require("lfs").attributes(where, "mode")
if mode == nil then
  -- neither a folder nor a file: say so, not "no such folder" of a path named like a file; a
  -- usage error (exit 2), as a missing path is in every script (llmd.args.path)
  io.stderr:write(("extract.lua: %s: no such file or folder (expected a benchmark results folder or one result file)\n")
    :format(where))
  os.exit(2)
end
if mode == "file" then
  -- one result file: its folder, with every other file ignored
  opts.file = where
  where = where:match("^(.*)/[^/]*$") or "."
  if where == "" then where = "/" end
end
if o.warmup then
  opts.warmup = args.value(args.list_of_ints, o.warmup, "--warmup")
  opts.warmup_option = "--warmup " .. o.warmup
end
if o.slo then
  -- goodput against these limits (harness.extract's slo); a bad list is a bad option value (exit 2)
  local ok, slo = pcall(require("llmd.decision").parse_slo, o.slo, "--slo")
  if not ok then
    io.stderr:write(args.script(), ": ", tostring(slo), "\n")
    os.exit(2)
  end
  opts.slo = slo
end
if o.percentile_method then
  opts.percentile_method = args.choice("--percentile-method", o.percentile_method, { "linear", "nearest" })
end
if o.sketch then
  -- the bounds llmd.stats takes (stats.new{sketch =})
  opts.sketch = args.number("--sketch", o.sketch, 0.0001, 0.5, "a relative error in [0.0001, 0.5], e.g. 0.01")
end

if o.br and o.br ~= "0.2" and o.br ~= "0.1" then
  io.stderr:write(("extract.lua: --br: expected 0.2 or 0.1, got %s\n"):format(o.br))
  os.exit(2)
end
if (o.out or o.info) and not o.br then
  io.stderr:write("extract.lua: --out and --info go with --br\n")
  os.exit(2)
end

-- a --warmup naming a stage the run does not have is a bad option value too (exit 2), as
-- in compare.lua; anything else harness.extract raises is about the data (exit 1)
local xok, run = pcall(harness.extract, where, opts)
if not xok then
  if type(run) == "table" and run.code == harness.BAD_WARMUP then
    io.stderr:write(args.script(), ": ", tostring(run), "\n")
    os.exit(2)
  end
  error(run, 0)
end
-- the prefix-cache figures from the run's vLLM scrapes, as the report has them
if not run.no_results and not opts.file then
  local kvcache = require "llmd.kvcache"
  kvcache.put(run, kvcache.analyze(where, run, opts))
end

if o.br then
  local br = require "llmd.br"
  local info = o.info and require("llmd.workspace").read_info(o.info) or nil
  if run.no_results then
    -- an error in the data: "llmdlua: ..." as every script's (README: Running scripts), naming
    -- the folder (the reason does: "no benchmark results under DIR ...", then what was looked for)
    local why = table.concat(run.reasons, "; ")
    if not why:find(where, 1, true) then why = where .. ": " .. why end
    io.stdout:flush()
    io.stderr:write("llmdlua: no benchmark report written: ", why, "\n")
    os.exit(1)
  end
  local list = br.write(o.out or ".", run, { version = o.br, stack = info })
  -- the run's warnings (a file --tolerant left out, figures its files disagree on), which no
  -- report written here carries: on stderr, as opts.tolerant_warning says
  for _, x in ipairs(run.warnings) do io.stderr:write("warning: ", x, "\n") end
  for _, r in ipairs(list) do
    io.write(r.path, "\n")
    for _, d in ipairs(r.dropped) do io.stderr:write(("warning: %s: %s\n"):format(r.name, d)) end
  end
  -- what no report can carry (the per-request times of a pace), once for all of them
  local lost = br.cannot_carry(run)
  if lost then io.stderr:write("note: the benchmark reports cannot carry everything: ", lost, "\n") end
  -- (as without --br: a run whose files disagree with themselves, status "warnings", exits 0)
  os.exit(run.status == "failed" and 1 or 0)
end

if o.json then
  io.write(json.encode(rm.to_plain(run), { indent = 2 }), "\n")
  if run.status == "failed" then
    -- exit 1 says why on stderr too (what was looked for, when nothing was recognised): the
    -- JSON's reasons are for a program, and a redirected stdout shows nothing
    local why = table.concat(run.reasons, "; ")
    if not why:find(o[1], 1, true) then why = o[1] .. ": " .. why end
    io.stdout:flush()
    io.stderr:write("llmdlua: ", why, "\n")
    os.exit(1)
  end
  os.exit(0)
end

local function w(...) io.write(string.format(...), "\n") end
local function val(set, key)
  local v, why = rm.get(set, key)
  return metrics.format(key, v, why)
end

if run.no_results then
  -- no results at all: not a report headed "<harness> results in DIR" on stdout, but the
  -- reason on stderr, exit 1, as compare.lua's --a says it (newuser47 F6); where the folder
  -- holds another harness's results (a wrong --harness), that is the one line: what the
  -- named harness looks for is beside the point
  local why = table.concat(run.reasons, "; ")
  if why:find(": it holds [^\n]* results %(leave %-%-harness out") then why = why:gsub("\nlooked for: .*$", "") end
  if not why:find(o[1], 1, true) then why = o[1] .. ": " .. why end
  io.stdout:flush()
  io.stderr:write("llmdlua: ", why, "\n")
  os.exit(1)
end
w("%s results in %s", run.harness .. (run.tool and (" (" .. run.tool .. ")") or ""), run.dir)
if run.version then w("version: %s", run.version) end
w("status: %s%s", run.status, #run.reasons > 0 and (" - " .. table.concat(run.reasons, "; ")) or "")
w("files: %d (%s%s)", #run.files, run.files[1] or "", #run.files > 1 and ", ..." or "")
w("token counts: %s", run.token_source or "unknown")
if run.warmup_stages and #run.warmup_stages > 0 then
  local t = {}
  for _, i in ipairs(run.warmup_stages) do t[#t + 1] = tostring(i) end
  w("warm-up stages left out of the totals: %s", table.concat(t, ", "))
end
w("")
w("Overall")
for _, m in ipairs(metrics.list) do
  local src = run.overall.source[m.key]
  local method = run.overall.method[m.key]
  w("  %-36s %-40s %s", m.label, val(run.overall, m.key),
    src and (src .. (method and (", " .. method) or "")) or "")
end
if #run.stages > 0 then
  w("")
  w("Stages")
  -- achieved/s is the catalogue's request throughput (completed / duration), the rate
  -- saturation is judged by; sent/s, where the harness records it, the rate requests went out
  local sent = false
  for _, st in ipairs(run.stages) do if st.send_rate then sent = true end end
  local function rate(r) return r and ("%.2f"):format(r) or "N/A" end
  w("  %5s %-14s %10s%s %9s %8s %8s %12s %12s %12s %12s", "stage", "load", "achieved/s",
    sent and (" %8s"):format("sent/s") or "", "duration", "ok", "failed", "out tok/s", "TTFT mean", "TTFT p90",
    "E2E p90")
  for _, st in ipairs(run.stages) do
    local load = st.rate and ("rate " .. metrics.format("throughput_req_s", st.rate, nil, { bare = true }))
      or st.concurrency and ("conc " .. tostring(st.concurrency)) or "?"
    local v = st.metrics.values
    local function b(key)
      if v[key] == nil then return "N/A" end
      return metrics.format(key, v[key], nil, { bare = true })
    end
    w("  %5s %-14s %10s%s %9s %8s %8s %12s %12s %12s %12s", tostring(st.index) .. (st.warmup and "*" or ""),
      load, rate(st.achieved_rate), sent and (" %8s"):format(rate(st.send_rate)) or "",
      st.duration and ("%.1f s"):format(st.duration) or "N/A", b("requests_ok"), b("requests_failed"),
      b("throughput_tok_s"), b("ttft_mean_ms"), b("ttft_p90_ms"), b("latency_p90_ms"))
  end
  if run.warmup_stages and #run.warmup_stages > 0 then w("  (* warm-up)") end
end
if #run.stages == 0 then
  -- no stage: why, one line (not a table that is silently missing)
  w("")
  w("Stages: none (%s)", run.stages_why or "the results hold no load stage, only whole-run data")
end
if run.overall.goodput then
  -- goodput against --slo: the completed requests that met every limit, over the measured window
  local g = run.overall.goodput
  w("")
  if g.unknown then
    w("Goodput: N/A (%s)", g.unknown)
  else
    w("Goodput: %d of %d requests met every limit (%s)%s", g.good, g.total, o.slo,
      g.duration_s and (", %.3f req/s over %.1f s"):format(g.good / g.duration_s, g.duration_s) or "")
  end
end
if #run.errors > 0 then
  w("")
  w("Errors")
  for _, e in ipairs(run.errors) do
    w("  %6d  %s", e.count, e.cause)
    if e.example ~= "" and e.example ~= e.cause then
      w("          e.g. %s", (e.example:gsub("%s+", " "):sub(1, 160)))
    end
  end
end
if #run.warnings > 0 then
  w("")
  w("Warnings")
  for _, x in ipairs(run.warnings) do w("  - %s", x) end
end
os.exit(run.status == "failed" and 1 or 0)
