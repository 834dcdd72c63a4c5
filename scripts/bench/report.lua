-- Prints the `make bench` table from results.jsonl and checks the numbers agree.
-- Exit 1 when llmdlua and the reference disagree (a wrong number is a bug); the
-- speed and memory targets are reported, not enforced (the machine is shared).
local json = require "llmd.json"

local rows = {}
for line in io.lines(arg[1]) do
  local r = json.decode(line)
  r.floor_s, r.ours_s, r.sketch_s, r.ref_s = r.secs[1], r.secs[2], r.secs[3], r.secs[4]
  rows[#rows + 1] = r
end

local function agree(a, b, rel)
  for name, x in pairs(b) do
    if type(x) == "table" then
      local y = a[name]
      if not y or y.count ~= x.count then return false, name .. " count" end
      for _, k in ipairs { "mean", "p50", "p90", "p99" } do
        local d = math.abs(y[k] - x[k]) / math.max(math.abs(x[k]), 1e-300)
        if d > rel then return false, ("%s %s: %.17g vs %.17g"):format(name, k, y[k], x[k]) end
      end
    end
  end
  return true
end

local MB = 1e6
print("\nread back from disk:" .. (" "):rep(114) .. "| as written:")
print(("%-15s %8s | %10s | %10s %8s %13s | %10s %8s | %8s %8s | %10s %8s | %-22s | %10s %10s %10s %8s"):format(
  "shape", "MB", "floor MB/s", "llmdlua", "RSS MB", "limit MB", "python3", "RSS MB",
  "speed x", "memory x", "sketch", "RSS MB", "same numbers", "floor MB/s", "llmdlua", "python3", "speed x"))
local bad = 0
local miss = { speed = {}, ratio = {}, mem = {}, sketch = {} }
for _, r in ipairs(rows) do
  local mb = r.bytes / MB
  local ours_rate, ref_rate, floor_rate = mb / r.ours_s, mb / r.ref_s, mb / r.floor_s
  local ours_rss, ref_rss, sk_rss = r.ours.rss_kb / 1024, r.ref.rss_kb / 1024, r.sketch.rss_kb / 1024
  local limit = 32 + 8 * r.ours.kept / 1048576
  local same, why = agree(r.ours, r.ref, 1e-12)
  local sk_same, sk_why = agree(r.sketch, r.ref, 0.01 + 1e-9) -- within the sketch's 1%
  if r.shape == "prom" then sk_same = true end -- no sketch there: gauges are not compared
  if not same or not sk_same then bad = bad + 1 end
  -- targets: 300 MB/s and 20x for result files; 200 MB/s and 10x for raw scrapes
  local is_prom = r.shape == "prom"
  if ours_rate < (is_prom and 200 or 300) then miss.speed[#miss.speed + 1] = r.shape end
  if r.ref_s / r.ours_s < (is_prom and 10 or 20) then miss.ratio[#miss.ratio + 1] = r.shape end
  if ours_rss > limit then miss.mem[#miss.mem + 1] = r.shape end
  if sk_rss > 32 then miss.sketch[#miss.sketch + 1] = r.shape end
  -- as written: both tools again, on the copy
  local w, wcols = r.written, ""
  if w ~= nil and w ~= json.null then
    local w_ours, w_ref = w.secs[2], w.secs[3]
    local w_same, w_why = agree(w.ours, w.ref, 1e-12)
    if not w_same and same then
      bad = bad + 1
      same, why = false, "as written: " .. w_why
    end
    if mb / w_ours < 300 then miss.speed[#miss.speed + 1] = r.shape .. " (as written)" end
    if w_ref / w_ours < 20 then miss.ratio[#miss.ratio + 1] = r.shape .. " (as written)" end
    wcols = ("%10.0f %10.0f %10.1f %8.1f"):format(mb / w.secs[1], mb / w_ours, mb / w_ref, w_ref / w_ours)
  end
  print(("%-15s %8.1f | %10.0f | %10.0f %8.1f %13s | %10.1f %8.0f | %8.1f %8.1f | %10.0f %8.1f | %-22s | %s"):format(
    r.shape, mb, floor_rate, ours_rate, ours_rss, ("<= %.1f"):format(limit), ref_rate, ref_rss,
    r.ref_s / r.ours_s, ref_rss / ours_rss, mb / r.sketch_s, sk_rss,
    same and (sk_same and "yes (sketch within 1%)" or "sketch: " .. sk_why) or "NO: " .. why, wcols))
end
local function mark(list)
  return #list == 0 and "met on every shape" or "NOT met on " .. table.concat(list, ", ")
end
print("\ntargets:")
print("  >= 300 MB/s (raw scrapes: 200 MB/s):         " .. mark(miss.speed))
print("  >= 20x the reference (raw scrapes: 10x):     " .. mark(miss.ratio))
print("  peak RSS <= 32 MB + 8 bytes per kept sample: " .. mark(miss.mem))
print("  sketch peak RSS <= 32 MB:                    " .. mark(miss.sketch))
print(("(single-threaded; wall-clock times from this run on a shared machine, each the best of %d: "
  .. "compare ratios)"):format(rows[1] and rows[1].runs or 1))
print("(read back: each file dropped from the page cache and read once, so the kernel holds it in"
  .. " large folios;\n as written: a copy written 8 KiB at a time and still cached, in 4 KiB pages,"
  .. " which cost more to map)")
os.exit(bad == 0 and 0 or 1)
