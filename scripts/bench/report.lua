-- Prints the `make bench` tables from results.jsonl (one line per item, then one per
-- timed run) and checks that every tool gives the same numbers.
-- Exit 1 when two tools (or two runs) disagree, or a floor or a copy did not read or
-- copy every byte: a wrong number is a bug. The goals of issue 20 are reported as met /
-- NOT met, never enforced: this is a measurement on a shared machine.
local json = require "llmd.json"

local items, order, runs = {}, {}, {}
for line in io.lines(arg[1]) do
  local r = json.decode(line)
  if r.tool == nil then
    items[r.item] = r
    order[#order + 1] = r.item
  else
    runs[#runs + 1] = r
  end
end

-- The CPU clock of the runs: bench.sh's readfloor --cpu (wait4's rusage, to 1 us), or
-- in an older results.jsonl the shell's `times` (10 ms ticks)
local rusage = #runs > 0
for _, r in ipairs(runs) do
  if r.clock ~= "rusage" then rusage = false end
end
local CLOCK = rusage and "wait4()'s rusage, to 1 us" or "the shell's times, in 10 ms ticks"
-- a single-threaded run whose wall time is over BUSY x its CPU waited for the machine
local BUSY = 1.5

-- every run of ITEM in PHASE: by tool, the fastest time, the least CPU seconds (nil when
-- a run has none, or 0 to its clock: cpu_why says why), the fastest run and the outputs
local function timings(item, phase)
  local t = { best = {}, cpu = {}, cpu_why = {}, run = {}, outs = {}, tools = {} }
  for _, r in ipairs(runs) do
    if r.item == item and r.phase == phase then
      if t.best[r.tool] == nil then
        t.tools[#t.tools + 1] = r.tool
        t.outs[r.tool] = {}
      end
      if t.best[r.tool] == nil or r.secs < t.best[r.tool] then
        t.best[r.tool], t.run[r.tool] = r.secs, r
      end
      if type(r.cpu) ~= "number" then
        t.cpu_why[r.tool] = "no CPU seconds in results.jsonl"
      elseif r.cpu <= 0 then
        t.cpu_why[r.tool] = t.cpu_why[r.tool] or "a run's CPU below its clock's resolution"
      elseif t.cpu[r.tool] == nil or r.cpu < t.cpu[r.tool] then
        t.cpu[r.tool] = r.cpu
      end
      table.insert(t.outs[r.tool], r.out)
    end
  end
  for tool in pairs(t.cpu_why) do t.cpu[tool] = nil end
  return t
end

-- the reasons the CPU figures are N/A, printed once below the tables
local na_why, na_seen = {}, {}
local function na(why)
  if not na_seen[why] then
    na_seen[why] = true
    na_why[#na_why + 1] = why
  end
  return "N/A"
end
-- the least CPU seconds of TOOL in T, or nil and why not
local function cpu_of(t, tool)
  if t.cpu[tool] then return t.cpu[tool] end
  return nil, t.cpu_why[tool] or ("no run of " .. tostring(tool))
end
-- numerator / denominator of two CPU figures, or nil, why
local function cpu_ratio(ta, a, tb, b)
  local x, why = cpu_of(ta, a)
  if not x then return nil, why end
  local y, why2 = cpu_of(tb, b)
  if not y then return nil, why2 end
  return x / y
end
-- a number in a column of WIDTH with FMT, or N/A (its reason kept for the footnote)
local function col(width, fmt, x, why)
  if x == nil then return ("%" .. width .. "s"):format(na(why or "unknown")) end
  return ("%" .. width .. fmt):format(x)
end
-- the single-threaded TOOLS of T whose fastest run waited (wall > BUSY x its CPU):
-- "llmdlua 2.2x, floor 1.8x", or nil
local function busy(t, tools)
  local s = {}
  for _, tool in ipairs(tools) do
    local r = t.run[tool]
    if r and type(r.cpu) == "number" and r.cpu > 0 and r.secs > BUSY * r.cpu then
      s[#s + 1] = ("%s %.1fx"):format(tool, r.secs / r.cpu)
    end
  end
  return #s > 0 and table.concat(s, ", ") or nil
end

local NAMES = { python = "python3 (json/csv, sorted)", numpy = "json.load + numpy", pandas = "pandas.read_csv",
  prometheus_client = "prometheus_client", handparser = "hand-written parser" }
local DENSE = { ip_tokens = true, vllm_itls = true, vllm_bench = true, csv_floats = true }
local NOT_OTHER = { floor = true, touch = true, llmdlua = true, sketch = true, threads = true }
-- the floors: read() of the files, and read() plus 8 B a kept sample written to fresh
-- memory (readfloor --touch); they give bytes, not numbers
local FLOORS = { floor = true, touch = true }
local MB = 1e6

-- Tolerances (relative), and why they are honest:
-- * counts: equal; a lost or doubled sample is a bug.
-- * percentiles: equal to the bit. Every tool but pandas converts the decimal text
--   correctly rounded (strtod, Python's float), takes the same order statistics and
--   interpolates with numpy's formula (llmd.stats copies numpy's _lerp), so any
--   difference is a bug. pandas' default converter ("high" precision xstrtod) is not
--   always correctly rounded (an ulp or two off): 1e-14 when pandas is one side.
-- * means: 1e-13. fsum is exact, llmd.stats sums with Neumaier compensation (about 2 ulp),
--   numpy sums pairwise (about log2(n) ulp, under 30 ulp here); on these positive data
--   that stays below 1e-14. A sample lost or misread by more than a few ulp moves it more.
-- * raw scrapes: sums of integer-valued counters in any order are exact; the quantile is
--   Prometheus' interpolation, which may round differently in another order: 1e-12.
-- * the sketch: within its 1 % relative error (plus 1e-9), percentiles and mean.
local function tolerance(item, key, a, b)
  if a == "sketch" or b == "sketch" then return 0.01 + 1e-9 end
  if item == "prom" then return 1e-12 end
  if key == "mean" then return 1e-13 end
  if a == "pandas" or b == "pandas" then return 1e-14 end
  return 0
end

-- the largest relative difference between two outputs; nil, why when they disagree
local function differ(item, ta, a, tb, b, worst)
  for name, x in pairs(a) do
    if type(x) == "table" then
      local y = b[name]
      if type(y) ~= "table" then return nil, ("%s has no %s"):format(tb, name) end
      if x.count ~= y.count then
        return nil, ("%s count: %s %d, %s %d"):format(name, ta, x.count, tb, y.count)
      end
      for _, k in ipairs { "mean", "p50", "p90", "p99" } do
        local d = x[k] == y[k] and 0 or math.abs(x[k] - y[k]) / math.max(math.abs(x[k]), math.abs(y[k]))
        if d > tolerance(item, k, ta, tb) then
          return nil, ("%s %s: %s %.17g, %s %.17g"):format(name, k, ta, x[k], tb, y[k])
        end
        if ta ~= "sketch" and tb ~= "sketch" and d > worst[1] then worst[1] = d end
      end
    end
  end
  for name, y in pairs(b) do
    if type(y) == "table" and a[name] == nil then return nil, ("%s has no %s"):format(ta, name) end
  end
  return true
end

local bad = {}
local function fail(fmt, ...) bad[#bad + 1] = fmt:format(...) end

-- every output of every tool in both phases against every other
local function check_numbers(item, phases)
  local outs = {}
  for _, t in ipairs(phases) do
    for _, tool in ipairs(t.tools) do
      if not FLOORS[tool] then
        for _, o in ipairs(t.outs[tool]) do outs[#outs + 1] = { tool, o } end
      end
    end
  end
  local worst = { 0 }
  for i = 1, #outs do
    for j = i + 1, #outs do
      local ok, why = differ(item, outs[i][1], outs[i][2], outs[j][1], outs[j][2], worst)
      if not ok then
        fail("%s: the numbers disagree: %s", item, why)
        return "NO: " .. why, worst[1]
      end
    end
  end
  return ("yes (%d runs)"):format(#outs), worst[1]
end

-- a goal, met by wall clock (MET, DETAIL) and by CPU (CMET, CDETAIL; CMET nil: N/A,
-- CDETAIL says why)
local goals = {}
local function goal(item, name, met, detail, cmet, cdetail)
  goals[#goals + 1] = { item = item, name = name, met = met, detail = detail, cmet = cmet, cdetail = cdetail }
end
-- a line among the goals that is not one (not counted): a figure to read beside one
local function beside(item, name, detail, cdetail)
  goals[#goals + 1] = { item = item, name = name, info = true, detail = detail, cdetail = cdetail }
end

local function names(t)
  local s = {}
  for _, tool in ipairs(t.tools) do
    if not NOT_OTHER[tool] then s[#s + 1] = tool end
  end
  return s
end
-- the fastest other tool
local function best_other(t)
  local best
  for _, tool in ipairs(names(t)) do
    if best == nil or t.best[tool] < t.best[best] then best = tool end
  end
  return best
end
-- the other tool of least CPU, or nil, why (one without a CPU figure: N/A)
local function best_other_cpu(t)
  local best
  for _, tool in ipairs(names(t)) do
    local c, why = cpu_of(t, tool)
    if not c then return nil, why end
    if best == nil or c < t.cpu[best] then best = tool end
  end
  if best == nil then return nil, "no other tool" end
  return best
end
-- the single-threaded tools of a table
local SERIAL = { "floor", "llmdlua", "touch", "sketch", "python", "numpy", "pandas", "prometheus_client",
  "handparser" }

local shapes = {}
for _, item in ipairs(order) do
  if item ~= "compare" then shapes[#shapes + 1] = item end
end

-- the tables' headings only when there are shapes (BENCH_ONLY=compare has none)
local say = #shapes > 0 and print or function() end
say(("\nread back from disk (each file dropped from the page cache, then read once); MB/s, best of %d:")
  :format(items[order[1]] and items[order[1]].runs or 0))
say(("%-15s %8s | %10s | %10s %9s | %10s %9s | %8s | %-28s %8s %8s | %s"):format("shape", "MB", "floor", "llmdlua",
  "x floor", "floor+8 B", "x floor+8", "sketch", "best other tool", "MB/s", "x best", "all other tools (MB/s)"))
-- the second floor's columns: its MB/s and llmdlua's time over its (none: "-")
local function touch_cols(mb, t)
  if not t.best.touch then return ("%10s %9s"):format("-", "-") end
  return ("%10.0f %9.1f"):format(mb / t.best.touch, t.best.llmdlua / t.best.touch)
end
-- the same by CPU: MB over the least CPU seconds, CPU over CPU
local function cpu_rate(mb, t, tool)
  local c, why = cpu_of(t, tool)
  return c and mb / c, why
end
local function touch_cpu_cols(mb, t)
  if not t.best.touch then return ("%10s %9s"):format("-", "-") end
  return col(10, ".0f", cpu_rate(mb, t, "touch")) .. " " .. col(9, ".1f", cpu_ratio(t, "llmdlua", t, "touch"))
end
-- the line under a table's row that says which runs waited, if any
local function busy_line(t, tools)
  local b = busy(t, tools)
  if b then print(("  busy: wall over %.1fx CPU in the run shown: %s"):format(BUSY, b)) end
end
local R = {}
for _, item in ipairs(shapes) do
  local it, t, w = items[item], timings(item, "read"), timings(item, "written")
  local mb = it.bytes / MB
  local rate = function(s) return mb / s end
  local best = best_other(t)
  local others = {}
  for _, tool in ipairs(names(t)) do
    local n = #t.outs[tool]
    others[#others + 1] = ("%s %.1f%s"):format(tool, rate(t.best[tool]), n < it.runs and (" (%d run)"):format(n) or "")
  end
  print(("%-15s %8.1f | %10.0f | %10.0f %9.1f | %s | %8.0f | %-28s %8.1f %8.1f | %s"):format(item, mb,
    rate(t.best.floor), rate(t.best.llmdlua), t.best.llmdlua / t.best.floor, touch_cols(mb, t), rate(t.best.sketch),
    NAMES[best] or best, rate(t.best[best]), t.best[best] / t.best.llmdlua, table.concat(others, ", ")))
  -- the same by CPU, the least of the runs (the best other tool by CPU)
  local cbest, cwhy = best_other_cpu(t)
  local cothers = {}
  for _, tool in ipairs(names(t)) do
    cothers[#cothers + 1] = ("%s %s"):format(tool, col(1, ".1f", cpu_rate(mb, t, tool)))
  end
  print(("%-15s %8s | %s | %s %s | %s | %s | %-28s %s %s | %s"):format("  by CPU", "", col(10, ".0f",
    cpu_rate(mb, t, "floor")), col(10, ".0f", cpu_rate(mb, t, "llmdlua")), col(9, ".1f",
    cpu_ratio(t, "llmdlua", t, "floor")), touch_cpu_cols(mb, t), col(8, ".0f", cpu_rate(mb, t, "sketch")),
    cbest and (NAMES[cbest] or cbest) or na(cwhy), col(8, ".1f", cbest and cpu_rate(mb, t, cbest), cwhy),
    col(8, ".1f", cbest and cpu_ratio(t, cbest, t, "llmdlua"), cwhy), table.concat(cothers, ", ")))
  busy_line(t, SERIAL)
  for _, ph in ipairs { t, w } do
    for _, o in ipairs(ph.outs.floor or {}) do
      if o.bytes ~= it.bytes then fail("%s: the floor read %d bytes of %d", item, o.bytes, it.bytes) end
    end
    for _, o in ipairs(ph.outs.touch or {}) do
      if o.bytes ~= it.bytes then fail("%s: the floor + samples read %d bytes of %d", item, o.bytes, it.bytes) end
      local kept = t.outs.llmdlua[1].kept
      if o.samples ~= kept then
        fail("%s: the floor + samples wrote %s samples, llmdlua kept %s", item, tostring(o.samples), tostring(kept))
      end
    end
  end
  R[item] = { mb = mb, t = t, w = w, best = best, cbest = cbest, cwhy = cwhy }
end
say("(x floor: llmdlua's time over read()'s; floor+8 B: read() plus 8 bytes written to fresh memory per sample"
  .. " llmdlua kept,\n in one fresh process, the least any exact tool pays; x floor+8: llmdlua's time over it;"
  .. " x best: the best other\n tool's time over llmdlua's; an other tool that took more than twice the fastest"
  .. " one's time in the first round\n runs once; \"by CPU\": bytes over the least CPU seconds of the runs, user +"
  .. " sys, children included,\n by " .. CLOCK .. ", and the ratios of those; busy: a run shown waited for"
  .. " the machine)")

say("\npeak RSS, MB, the highest of the runs (llmdlua's budget: 32 MB + 8 bytes per sample kept):")
say(("%-15s | %10s %10s %12s | %8s | %s"):format("shape", "llmdlua", "budget", "samples kept", "sketch",
  "other tools"))
for _, item in ipairs(shapes) do
  local t, w = R[item].t, R[item].w
  -- the highest peak of all the tool's runs (llmdlua's as written too)
  local rss = function(tool)
    local kb = 0
    for _, ph in ipairs { t, w } do
      for _, o in ipairs(ph.outs[tool] or {}) do kb = math.max(kb, o.rss_kb) end
    end
    return kb / 1024
  end
  local kept = t.outs.llmdlua[1].kept
  local budget = 32 + 8 * kept / 1048576
  R[item].rss, R[item].budget, R[item].kept = rss "llmdlua", budget, kept
  if t.outs.threads then R[item].rss_threads = rss "threads" end
  local others = {}
  for _, tool in ipairs(names(t)) do others[#others + 1] = ("%s %.0f"):format(tool, rss(tool)) end
  if t.outs.threads then others[#others + 1] = ("(llmdlua in threads %.1f)"):format(rss "threads") end
  print(("%-15s | %10.1f %10.1f %12d | %8.1f | %s"):format(item, rss "llmdlua", budget, kept, rss "sketch",
    table.concat(others, ", ")))
end

-- the CSV shapes in parts at once (tool "threads"): beside the single-threaded figures
local par_items = {}
for _, item in ipairs(shapes) do
  if R[item].t.best.threads then par_items[#par_items + 1] = item end
end
-- the parts a run used (scan.csv's parts: 1 when the file went serially), the least
local function parts_of(t)
  local n
  for _, o in ipairs(t.outs.threads or {}) do
    if type(o.parts) == "number" and (n == nil or o.parts < n) then n = o.parts end
  end
  return n or 1
end
if #par_items > 0 then
  print("\nCSV in parts at once (one thread per online CPU; pandas.read_csv's default C engine is"
    .. " single-threaded);\nMB/s, best of the runs; x best: the best other tool's read-back time over it:")
  print(("%-15s %8s | %10s %10s %8s %8s | %-22s %10s %10s %8s"):format("shape", "threads", "serial",
    "threads", "x serial", "x best", "as written", "serial", "threads", "x best"))
  for _, item in ipairs(par_items) do
    local r = R[item]
    local t, w, other = r.t, r.w, r.t.best[r.best]
    local wr = w.best.threads and ("%10.0f %10.0f %8.1f"):format(r.mb / w.best.llmdlua, r.mb / w.best.threads,
      other / w.best.threads) or ""
    r.parts = parts_of(t)
    print(("%-15s %8d | %10.0f %10.0f %8.2f %8.1f | %-22s %s"):format(item, r.parts, r.mb / t.best.llmdlua,
      r.mb / t.best.threads, t.best.llmdlua / t.best.threads, other / t.best.threads, "", wr))
    -- by CPU: the threads' figure is their total CPU, all threads together
    local wc = w.best.threads and ("%s %s %s"):format(col(10, ".0f", cpu_rate(r.mb, w, "llmdlua")),
      col(10, ".0f", cpu_rate(r.mb, w, "threads")), col(8, ".1f", r.cbest and cpu_ratio(t, r.cbest, w, "threads"),
        r.cwhy)) or ""
    print(("%-15s %8s | %s %s %s %s | %-22s %s"):format("  by CPU", "", col(10, ".0f", cpu_rate(r.mb, t, "llmdlua")),
      col(10, ".0f", cpu_rate(r.mb, t, "threads")), col(8, ".2f", cpu_ratio(t, "llmdlua", t, "threads")),
      col(8, ".1f", r.cbest and cpu_ratio(t, r.cbest, t, "threads"), r.cwhy), "", wc))
    busy_line(t, r.parts == 1 and { "llmdlua", "threads" } or { "llmdlua" }) -- (in 1 part: one thread)
  end
  print("(by CPU: the threads' MB/s is the bytes over the CPU seconds of all threads together, so its x serial is"
    .. " the CPU\n the serial run spends over the threads' total: 1.00 = the parts add no work; it is not a speed-up)")
end

say("\nas written (a copy written 8 KiB at a time and still cached, as a harness leaves it; MB/s; the other"
  .. " tool's time is\nits read-back one: at its speed the page layout is noise, and if anything it favours it):")
say(("%-15s | %10s | %10s %9s | %10s %9s | %-28s %8s %8s"):format("shape", "floor", "llmdlua", "x floor",
  "floor+8 B", "x floor+8", "best other tool (read back)", "MB/s", "x best"))
for _, item in ipairs(shapes) do
  local r = R[item]
  local w, tool = r.w, r.best
  if w.best.llmdlua then
    print(("%-15s | %10.0f | %10.0f %9.1f | %s | %-28s %8.1f %8.1f"):format(item, r.mb / w.best.floor,
      r.mb / w.best.llmdlua, w.best.llmdlua / w.best.floor, touch_cols(r.mb, w), NAMES[tool] or tool,
      r.mb / r.t.best[tool],
      r.t.best[tool] / w.best.llmdlua))
    local cb = r.cbest
    print(("%-15s | %s | %s %s | %s | %-28s %s %s"):format("  by CPU", col(10, ".0f", cpu_rate(r.mb, w, "floor")),
      col(10, ".0f", cpu_rate(r.mb, w, "llmdlua")), col(9, ".1f", cpu_ratio(w, "llmdlua", w, "floor")),
      touch_cpu_cols(r.mb, w), cb and (NAMES[cb] or cb) or na(r.cwhy), col(8, ".1f", cb and cpu_rate(r.mb, r.t, cb),
        r.cwhy), col(8, ".1f", cb and cpu_ratio(r.t, cb, w, "llmdlua"), r.cwhy)))
    busy_line(w, { "floor", "llmdlua", "touch" })
  else
    print(("%-15s | (a folder of small files: read back only)"):format(item))
  end
end

say("\nsame numbers (every run of every tool against every other; largest relative difference between"
  .. " exact tools):")
for _, item in ipairs(shapes) do
  local same, worst = check_numbers(item, { R[item].t, R[item].w })
  print(("%-15s | %-60s | %.2g"):format(item, same, worst))
end

-- " (busy: llmdlua 2.2x, numpy 1.6x)" when a run behind a wall-clock figure waited: each
-- {timings, tool} of PAIRS
local function waited(pairs_)
  local s = {}
  for _, p in ipairs(pairs_) do s[#s + 1] = busy(p[1], { p[2] }) end
  return #s > 0 and (" (busy: %s)"):format(table.concat(s, ", ")) or ""
end
-- the CPU side of a goal: met, detail; or nil, why (N/A)
local function by_cpu(x, why, ok, fmt, ...)
  if x == nil then return nil, why end
  return ok(x), fmt:format(x, ...)
end
local NOTIME = "(memory: the same by either clock)"

-- the goals, per shape, in the order of the issue
for _, item in ipairs(shapes) do
  local r = R[item]
  local phases = { { "", r.t } }
  if r.w.best.llmdlua then phases[2] = { " (as written)", r.w } end
  for _, p in ipairs(phases) do
    local label, t = p[1], p[2]
    local tool = item == "prom" and "handparser" or r.best
    local ctool, cwhy = r.cbest, r.cwhy
    if item == "prom" then ctool, cwhy = "handparser", nil end
    local x = r.t.best[tool] / t.best.llmdlua
    local cx, cxwhy
    if ctool then
      cx, cxwhy = cpu_ratio(r.t, ctool, t, "llmdlua")
    else
      cxwhy = cwhy
    end
    local bz = waited { { r.t, tool }, { t, "llmdlua" } }
    if item == "prom" then
      goal(item .. label, ">= 3x the hand-written parser", x >= 3, ("%.1fx%s"):format(x, bz),
        by_cpu(cx, cxwhy, function(v) return v >= 3 end, "%.1fx"))
    else
      goal(item .. label, ">= 10x the best other tool", x >= 10, ("%.1fx %s%s"):format(x, tool, bz),
        by_cpu(cx, cxwhy, function(v) return v >= 10 end, "%.1fx %s", ctool))
    end
    local f = t.best.llmdlua / t.best.floor
    goal(item .. label, "within 2x of the read() floor", f <= 2,
      ("%.1fx the floor's time%s"):format(f, waited { { t, "llmdlua" }, { t, "floor" } }),
      by_cpu(cpu_ratio(t, "llmdlua", t, "floor"), select(2, cpu_ratio(t, "llmdlua", t, "floor")),
        function(v) return v <= 2 end, "%.1fx the floor's CPU"))
    if t.best.touch then
      -- how much of that gap is the memory the samples need (not a goal: the one above stands)
      local a, awhy = cpu_ratio(t, "llmdlua", t, "touch")
      local b, bwhy = cpu_ratio(t, "touch", t, "floor")
      beside(item .. label, "beside it: read() + 8 B a sample", ("%.1fx its time; it alone is %.1fx read()'s")
        :format(t.best.llmdlua / t.best.touch, t.best.touch / t.best.floor),
        (a and b) and ("%.1fx its CPU; it alone is %.1fx read()'s"):format(a, b) or na(awhy or bwhy))
    end
    if DENSE[item] then
      local rate = r.mb / t.best.llmdlua
      local c, why = cpu_rate(r.mb, t, "llmdlua")
      goal(item .. label, "number-dense: >= 1 GB/s", rate >= 1000,
        ("%.0f MB/s%s"):format(rate, waited { { t, "llmdlua" } }),
        by_cpu(c, why, function(v) return v >= 1000 end, "%.0f MB/s"))
    end
  end
  local m = r.rss <= r.budget
  goal(item, "peak RSS <= 32 MB + 8 B a sample", m, ("%.1f of %.1f MB"):format(r.rss, r.budget), m, NOTIME)
  -- in parts at once: the same goals, said apart (the single-threaded ones above stand);
  -- by CPU, the threads' total CPU
  if r.t.best.threads then
    for _, p in ipairs { { "", r.t }, { ", as written", r.w } } do
      local label, t = (" (%d thread%s%s)"):format(r.parts or 1, r.parts == 1 and "" or "s", p[1]), p[2]
      if t.best.threads then
        local x = r.t.best[r.best] / t.best.threads
        local cx, cxwhy
        if r.cbest then
          cx, cxwhy = cpu_ratio(r.t, r.cbest, t, "threads")
        else
          cxwhy = r.cwhy
        end
        goal(item .. label, ">= 10x the best other tool", x >= 10, ("%.1fx %s"):format(x, r.best),
          by_cpu(cx, cxwhy, function(v) return v >= 10 end, "%.1fx %s (threads' total CPU)", r.cbest))
        if DENSE[item] then
          local rate = r.mb / t.best.threads
          local c, why = cpu_rate(r.mb, t, "threads")
          goal(item .. label, "number-dense: >= 1 GB/s", rate >= 1000, ("%.0f MB/s"):format(rate),
            by_cpu(c, why, function(v) return v >= 1000 end, "%.0f MB/s (threads' total CPU)"))
        end
      end
    end
    local label = (" (%d thread%s)"):format(r.parts or 1, r.parts == 1 and "" or "s")
    local mt = r.rss_threads <= r.budget
    goal(item .. label, "peak RSS <= 32 MB + 8 B a sample", mt, ("%.1f of %.1f MB"):format(r.rss_threads, r.budget),
      mt, NOTIME)
  end
  local half = timings(item, "half").outs.llmdlua
  if half then
    -- the same pods and series in half the files: the state is the same, so the peak
    -- should be too (1 MB and 10 % for the allocator's noise)
    local h = half[1].rss_kb / 1024
    local mh = r.rss <= h * 1.1 + 1
    goal(item, "memory flat in the number of files", mh,
      ("%.1f MB for all files, %.1f MB for half"):format(r.rss, h), mh, NOTIME)
  end
end

local c = items.compare
if c then
  -- a compare header with no runs of a tool is what a failed compare step leaves (say, an
  -- old binary without its templates/): said as a failed goal, not a nil index below
  local t = timings("compare", "read")
  for _, tool in ipairs { "floor", "cp", "compare" } do
    if not t.outs[tool] then
      fail("compare: no run of %s recorded (that step failed; its error is in bench's output above)", tool)
      c = nil
    end
  end
end
if c then
  local t = timings("compare", "read")
  local mb = c.bytes / MB
  for _, o in ipairs(t.outs.floor) do
    if o.bytes ~= c.bytes then fail("compare: the floor read %d bytes of %d", o.bytes, c.bytes) end
  end
  for _, tool in ipairs { "cp", "compare" } do
    for _, o in ipairs(t.outs[tool]) do
      if o.bytes ~= c.bytes then fail("compare: %s copied %d bytes of %d", tool, o.bytes, c.bytes) end
    end
  end
  -- CPU: user + sys, children included (compare.lua reads run b in a second process, and
  -- cp -r is two cp), the least of the runs; older results.jsonl kept it in the output
  for _, tool in ipairs(t.tools) do
    if not t.cpu[tool] then
      local cpu
      for _, o in ipairs(t.outs[tool]) do
        if type(o.cpu) == "number" and o.cpu > 0 and (cpu == nil or o.cpu < cpu) then cpu = o.cpu end
      end
      if cpu then t.cpu[tool], t.cpu_why[tool] = cpu, nil end
    end
  end
  -- the requests of each run, when bench.sh says (gen.py's .done)
  local reqs = ""
  if type(c.requests) == "table" and type(c.requests[1]) == "number" and type(c.requests[2]) == "number" then
    reqs = (", %d and %d requests"):format(c.requests[1], c.requests[2])
  end
  print(("\ncompare.lua of two inference-perf runs of 7 stages (per-request files of the %s shape%s, %.1f MB"
    .. " together), best of %d;\nby CPU: the least CPU seconds of the runs (user + sys, children included, by %s):")
    :format(c.shape, reqs, mb, c.runs, CLOCK))
  print(("%-42s %8s %8s %12s | %10s %8s %12s"):format("", "seconds", "MB/s", "x cp -r", "CPU s", "MB/s",
    "x cp -r"))
  for _, row in ipairs { { "floor", "read() of both runs' files" }, { "cp", "cp -r of both folders (the floor)" },
    { "compare", "compare.lua (results copied)" }, { "compare_link", "compare.lua --link" } } do
    local s = t.best[row[1]]
    print(("%-42s %8.2f %8.0f %12.2f | %s %s %s"):format(row[2], s, mb / s, s / t.best.cp,
      col(10, ".3f", cpu_of(t, row[1])), col(8, ".0f", cpu_rate(mb, t, row[1])),
      col(12, ".2f", cpu_ratio(t, row[1], t, "cp"))))
  end
  local own = t.best.compare - t.best.compare_link
  local cown = t.cpu.compare and t.cpu.compare_link and t.cpu.compare - t.cpu.compare_link
  print(("%-42s %8.2f %8s %12.2f | %s %8s %s"):format("compare.lua's own copy (copied - --link)", own, "",
    own / t.best.cp, col(10, ".3f", cown, "no CPU figure of compare.lua"), "",
    col(12, ".2f", cown and t.cpu.cp and cown / t.cpu.cp, "no CPU figure of compare.lua or cp -r")))
  -- (the shapes' tables' rule, for these rows too: a run shown whose wall time is over BUSY
  -- x its CPU waited; compare.lua's second process only adds CPU, so it is marked less often)
  busy_line(t, { "floor", "cp", "compare", "compare_link" })
  local x = t.best.compare / t.best.cp
  local cx, cwhy = cpu_ratio(t, "compare", t, "cp")
  goal("compare", "compare.lua within 2x of cp -r", x <= 2,
    ("%.2fx cp -r's time%s"):format(x, waited { { t, "compare" }, { t, "cp" } }),
    by_cpu(cx, cwhy, function(v) return v <= 2 end, "%.2fx cp -r's CPU"))
end

print("\ngoals of issue 20 (measured here, not enforced), by wall clock and by CPU:")
-- columns as wide as their longest cell (at least as wide as they were), so that a long
-- detail (a busy mark) never pushes the CPU columns of its line out of line
local wi, wn, wd = 34, 36, 44
for _, g in ipairs(goals) do
  wi, wn, wd = math.max(wi, #g.item), math.max(wn, #g.name), math.max(wd, #g.detail)
end
local GOAL_ROW = ("  %%-%ds %%-%ds %%-12s %%-%ds %%-12s %%s"):format(wi, wn, wd)
print((("  %%-%ds %%-%ds %%-12s %%-%ds %%s"):format(wi, wn, wd)):format("", "goal", "wall clock", "", "CPU"))
local met, cmet, n, cna = 0, 0, 0, 0
for _, g in ipairs(goals) do
  if not g.info then
    n = n + 1
    if g.met then met = met + 1 end
    if g.cmet == nil then
      cna = cna + 1
    elseif g.cmet then
      cmet = cmet + 1
    end
  end
  print(GOAL_ROW:format(g.item, g.name,
    g.info and "(not a goal)" or g.met and "met" or "NOT met", g.detail,
    g.info and "(not a goal)" or g.cmet == nil and "N/A" or g.cmet and "met" or "NOT met", g.cdetail))
end
print(("  %d of %d met by wall clock; %d of %d by CPU%s."):format(met, n, cmet, n,
  cna > 0 and (" (%d N/A)"):format(cna) or ""))
if #na_why > 0 then print("(N/A: " .. table.concat(na_why, "; ") .. ")") end
print("(single-threaded but where \"threads\" says; wall-clock times from this run on a shared machine, each"
  .. " the best of the runs;\n CPU: the least CPU seconds of the runs, user + sys, children included, by "
  .. CLOCK .. " (the threads' figure:\n their total CPU); busy: a run shown took over " .. BUSY
  .. "x its CPU in wall time, waiting for the machine (the CPU figure\n stands for it); compare ratios."
  .. " The as-written copy is in 4 KiB pages, which cost more to map than the large\n folios of a file read back;"
  .. " llmdlua maps no file, it reads them all with read() or pread().)")
if #bad > 0 then
  io.stderr:write("\nbench: CORRECTNESS FAILURE:\n  " .. table.concat(bad, "\n  ") .. "\n")
  os.exit(1)
end
