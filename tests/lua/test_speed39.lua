-- speed39 (issue 20): a large input's scan faults its samples and its window in 2 MiB
-- pages, not 4 KiB ones (about 30 us each in this project's VMs): the window of a file
-- of 16 MiB or more is a mapping of its own, and an accumulator on pace for 512 Ki
-- samples or more moves into its huge-page mapping after the first 256 KiB read.
-- Expected values are written by hand beside each check.
local t = require "testlib"
local scan = require "llmd.scan"
local stats = require "llmd.stats"

-- minor page faults of this process so far (/proc/self/stat, field 10)
local function minflt()
  local f = assert(io.open("/proc/self/stat", "rb"))
  local s = f:read("a")
  f:close()
  -- (the fields after the command name, which is in parentheses and may hold spaces)
  local rest = s:match("%) (.*)$")
  local fields = {}
  for w in rest:gmatch("%S+") do fields[#fields + 1] = w end
  return tonumber(fields[8]) -- (field 10 of the line; 3 is the first after the name)
end

local function thp()
  local f = io.open("/sys/kernel/mm/transparent_hugepage/enabled", "rb")
  if not f then return false end
  local s = f:read("a")
  f:close()
  return s:find("%[always%]") ~= nil or s:find("%[madvise%]") ~= nil
end

-- A CSV of rows "i,i/4,i*3" (20-byte rows on average) past 20 MiB, written once.
local function big_csv()
  local dir = t.tmpdir()
  local path = dir .. "/big.csv"
  local f = assert(io.open(path, "wb"))
  f:write("a,b,c\n")
  local rows, parts = 1000000, {}
  for i = 1, rows do
    parts[#parts + 1] = ("%d,%.2f,%d\n"):format(i, i / 4, i * 3)
    if #parts == 10000 then
      f:write(table.concat(parts))
      parts = {}
    end
  end
  f:write(table.concat(parts))
  f:close()
  return path, rows
end

t.test("a 20 MiB CSV's three columns of 10^6 numbers cost few page faults (huge pages); the same numbers", function()
  local exe = require("lfs").symlinkattributes("/proc/self/exe", "target")
  local path, rows = big_csv()
  local size = require("lfs").attributes(path, "size")
  t.ok(size >= 16 * 1024 * 1024, "the file is large enough for a mapped window: " .. size)
  local a, b, c = stats.new(), stats.new(), stats.new()
  local before = minflt()
  scan.csv(path, { { "a", a }, { "b", b }, { "c", c } }, { threads = 1 })
  local faults = minflt() - before
  -- the numbers, whatever the memory: 10^6 each; sums n(n+1)/2 = 500000500000, a quarter
  -- of it 125000125000, three times it 1500001500000 (exact in doubles)
  t.eq({ a:count(), b:count(), c:count() }, { rows, rows, rows })
  t.eq({ a:sum(), b:sum(), c:sum() }, { 500000500000.0, 125000125000.0, 1500001500000.0 })
  t.eq({ a:min(), a:max(), b:max() }, { 1.0, 1000000.0, 250000.0 })
  -- the faults: 3 x 8 MB of samples in 2 MiB pages are 12 or so, and the first 256 KiB's
  -- samples (about 13,000 rows, 3 x 100 KB) 80 of 4 KiB; before, each column's first
  -- 1-2 MiB of samples were 4 KiB pages, 256 or more a column (about 800 in all). Only
  -- where the kernel gives huge pages, and not under the sanitizer build (its allocator
  -- maps and faults memory its own way).
  if thp() and not (type(exe) == "string" and exe:find("/asan/", 1, true)) then
    t.ok(faults < 400, ("%d page faults reading 3 columns of 10^6 numbers (expected < 400)"):format(faults))
  end
end)

t.test("a large JSON array's samples: the same numbers with the early room as without", function()
  -- 2 x 10^6 numbers in one array (past 16 MiB), into one accumulator, and the same
  -- numbers from memory (no file: no size known, so no early room) into another: the
  -- same count, sum and percentiles, bit for bit
  local dir = t.tmpdir()
  local path = dir .. "/big.json"
  local f = assert(io.open(path, "wb"))
  f:write("{\"x\": [")
  local parts = {}
  local n = 2000000
  for i = 1, n do
    parts[#parts + 1] = ("%s%.6f"):format(i > 1 and ", " or "", i / 1024)
    if #parts == 10000 then
      f:write(table.concat(parts))
      parts = {}
    end
  end
  f:write(table.concat(parts), "]}\n")
  f:close()
  local x = stats.new()
  scan.json(path, { { "$.x[*]", x } })
  local g = assert(io.open(path, "rb"))
  local text = g:read("a")
  g:close()
  local y = stats.new()
  scan.json({ text = text }, { { "$.x[*]", y } })
  t.eq(x:count(), n)
  t.eq(x:count(), y:count())
  t.eq(x:sum(), y:sum())
  -- (i / 1024 to 6 places: i = 1024 is 1.000000; the largest 2000000 / 1024 = 1953.125)
  t.eq(x:max(), 1953.125)
  local px, py = x:percentiles { 10, 50, 90, 99 }, y:percentiles { 10, 50, 90, 99 }
  t.eq(px, py)
end)

