-- speed38b (issue 20): the kept request order (llmd.runmodel's seq, inference-perf's log of
-- a sweep's requests) in C columns (stats.column), 8 bytes a value, not Lua tables.
-- Expected values are written by hand beside each check.
local t = require "testlib"
local stats = require "llmd.stats"
local proc = require "llmd.proc"
local rm = require "llmd.runmodel"

t.test("stats.column: a list of numbers and booleans, each read back as put", function()
  local c = stats.column()
  t.eq(#c, 0)
  t.eq(c[1], nil)
  c[1] = 1.5
  c[2] = false
  c[3] = true
  c[4] = -0.0
  c[#c + 1] = 0 / 0
  t.eq(#c, 5)
  t.eq(c[1], 1.5)
  t.eq(c[2], false)
  t.eq(c[3], true)
  t.eq(1 / c[4], -math.huge) -- (the sign of -0.0 kept)
  t.ok(c[5] ~= c[5], "a NaN number stays a number (NaN), not a boolean")
  t.eq(c[0], nil)
  t.eq(c[6], nil)
  t.eq(c.x, nil)
  c[2] = 7 -- (replaced in place)
  t.eq(c[2], 7.0)
  t.eq(#c, 5)
  -- (a hole or another type raises, naming the column)
  t.raises("stats column: index 8 out of 1..6", function() c[8] = 1 end)
  t.raises("a value is a number, false or true, got string", function() c[6] = "1" end)
  t.raises("got nil", function() c[6] = nil end)
  -- many: grows past its first block (64), every value where it was put
  local d = stats.column()
  for i = 1, 1000 do d[i] = i * 0.25 end
  t.eq(#d, 1000)
  t.eq(d[1], 0.25)
  t.eq(d[1000], 250.0)
  t.eq(tostring(d), "llmd.stats.column (1000 values)")
end)

t.test("stats.appender, reader and gather; stats.order of a column", function()
  local a, b = stats.column(), stats.column()
  local push, read = stats.appender(a, b), stats.reader(a, b)
  push(3, false)
  push(1, 10)
  push(2, true)
  t.eq({ read(1) }, { 3.0, false })
  t.eq({ read(2) }, { 1.0, 10.0 })
  t.eq(select("#", read(4)), 2)
  t.eq({ read(4) }, {})
  t.raises("got no value", function() push(1) end)
  t.eq(#a, 3, "a failed append leaves every column as it was")
  -- by key, ties by index (3, 1, 2 -> indexes 2, 3, 1), as for a table
  t.eq(stats.order(a), { 2, 3, 1 })
  t.eq(stats.order(b), nil) -- (a boolean is no key)
  -- b's numbers in order 3, 2, 1: only index 2 holds one (10)
  t.eq(stats.gather(b, { 3, 2, 1 }), { 10.0 })
  t.eq(stats.gather(a), { 3.0, 1.0, 2.0 })
  t.eq(stats.gather(a, { 2, 3, 1 }), { 1.0, 2.0, 3.0 })
  t.raises("order[1] is no index of the column (1..3)", function() stats.gather(a, { 4 }) end)
  t.raises("bad argument #1", function() stats.appender({}) end)
end)

t.test("design effects of an accumulator's kept order are those of its requests in send order", function()
  -- 200 completions added out of send order (start k at position 201 - k: the reverse)
  -- and one failure (start 50.5); in send order the latencies run 1 (starts 1..100) then 9
  -- (101..200); TTFT unknown for start 7
  local acc = rm.accumulator()
  for k = 200, 1, -1 do
    local lat = k <= 100 and 1 or 9
    acc.add_done(k, k + lat, lat, k ~= 7 and lat / 2 or nil, 0.01, 0.01, 10, 10)
  end
  acc.add { ok = false, start = 50.5, finish = 52 }
  t.eq(acc.seq.n, 200)
  t.eq(acc.seq.outcome.n, 201)
  local d = rm.sample_design_effects(acc.seq)
  local decision = require "llmd.decision"
  -- the same as design_effect of the series written out by hand in send order
  local lat, ttft, failed = {}, {}, {}
  for k = 1, 200 do
    lat[k] = k <= 100 and 1 or 9
    if k ~= 7 then ttft[#ttft + 1] = lat[k] / 2 end
    failed[#failed + 1] = 0
    if k == 50 then failed[#failed + 1] = 1 end -- (50.5 comes after 50)
  end
  t.eq(d.latency, decision.design_effect(lat))
  t.eq(d.ttft, decision.design_effect(ttft))
  t.eq(d.failed, decision.design_effect(failed))
  t.ok(d.latency > 1, "a step in send order is dependence: " .. tostring(d.latency))
  -- in the order added (the reverse) the latencies run 9 then 1: the same step, so not a
  -- check of the order by itself; a series where the order matters: every other one
  local acc2 = rm.accumulator()
  local alt = {}
  for k = 1, 200 do alt[k] = k % 2 == 0 and 9 or 1 end
  for i = 1, 200 do
    local k = (i * 7) % 200 + 1 -- (7 and 200 coprime: every start once, out of order)
    acc2.add_done(k, k + alt[k], alt[k], nil, nil, 0.01, 10, 10)
  end
  t.eq(rm.sample_design_effects(acc2.seq).latency, decision.design_effect(alt))
  -- merged into another accumulator: the same series
  local all = rm.accumulator()
  rm.merge_accumulator(all, acc)
  t.eq(all.seq.n, 200)
  t.eq(rm.sample_design_effects(all.seq).latency, d.latency)
  t.eq(rm.outcome_design_effect(all.seq.outcome), d.failed)
end)

t.test("a kept request costs at most 8 bytes a value: 100,000 requests' order", function()
  -- a child process adds 100,000 completions to an accumulator (6 values kept each: start,
  -- TTFT, latency, TPOT, and the outcome's start and flag) and reports how far its resident
  -- memory grew. The samples themselves (7 accumulators of 100,000 doubles: 5.6 MB) are
  -- in C as before; the kept order is 6 x 8 x 100,000 = 4.8 MB in columns, where Lua
  -- tables took 6 x 16 x 100,000 = 9.6 MB at least (16 bytes a value in a table's array)
  local r = proc.run({ arg[-1], "-e", [[
    local rm = require "llmd.runmodel"
    local function rss()
      local f = assert(io.open("/proc/self/status", "rb"))
      local s = f:read("a")
      f:close()
      return assert(tonumber(s:match("VmHWM:%s*(%d+)")))
    end
    collectgarbage()
    local before = rss()
    local acc = rm.accumulator()
    local add = acc.add_done
    for i = 1, 100000 do add(i, i + 1.5, 1.5, 0.25, 0.01, 0.01, 100, 100) end
    collectgarbage()
    io.write(rss() - before, " ", acc.seq.n)]] })
  t.eq(r.code, 0, r.stderr)
  local grew, n = r.stdout:match("^(%d+) (%d+)$")
  t.eq(tonumber(n), 100000)
  -- samples 5.6 MB + kept order 4.8 MB = 10.4 MB, and room for the columns' doubling,
  -- the stats' blocks (huge pages of 2 MiB) and the allocator: 13 MB (seen: 10.6 MB). The
  -- tables' 9.6 MB would make 15.2 MB at least (seen with them: 18.4 MB)
  -- (not under the sanitizer build: its allocator keeps freed blocks in quarantine, every
  -- block a column or an accumulator outgrew, and adds its shadow: 26.6 MB seen there)
  local exe = require("lfs").symlinkattributes("/proc/self/exe", "target")
  if type(exe) == "string" and exe:find("/asan/", 1, true) then return end
  t.ok(tonumber(grew) * 1024 <= 13e6, ("peak RSS grew by %s kB"):format(grew))
end)

t.test("stats.order and design_effect of many keys: by value, ties (-0.0 and 0.0) by index", function()
  -- the reference: Lua's table.sort of the indexes by (value, index), written here; the
  -- keys are few distinct values (many ties) in a scrambled order, at sizes around the
  -- merge's widths (16, 32, ...), with -0.0 and 0.0 mixed (equal keys: index order)
  local vals = { 3, -1, 0.0, -0.0, 2.5, 1e300, -1e-300, 7 }
  for _, n in ipairs { 0, 1, 15, 16, 17, 33, 100, 1000, 4097 } do
    local xs = {}
    for i = 1, n do xs[i] = vals[(i * 37 + i * i) % #vals + 1] end
    local want = {}
    for i = 1, n do want[i] = i end
    table.sort(want, function(a, b)
      if xs[a] ~= xs[b] then return xs[a] < xs[b] end
      return a < b
    end)
    t.eq(stats.order(xs), want, "n = " .. n)
    local c = stats.column()
    for i = 1, n do c[i] = xs[i] end
    t.eq(stats.order(c), want, "a column, n = " .. n)
    -- the design effect's mid-ranks sort the same way: C against llmd.decision's Lua
    local decision = require "llmd.decision"
    if n >= decision.DEFF_MIN_N then
      local cd, ld = decision.design_effect(xs), decision.design_effect_lua(xs)
      t.ok(cd == ld, ("n = %d: C %.17g, Lua %.17g"):format(n, cd, ld))
    end
  end
end)
