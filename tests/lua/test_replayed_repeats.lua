-- (fake56) Repeats of a load that are replays of one recording: the fake cluster made a stage
-- taken again from its recording with every latency 0.01 % longer, and the comparison read
-- them as repeats: 95 % intervals of zero width ("-47.7 % to -47.7 %"), p = 1.3e-05. Such
-- repeats are no evidence of spread (llmd.loadpoints.scaled_copy): the load is read as
-- measured once, and the run's Data checks and the Verdict say so. Real repeats (each figure
-- moved its own way by sampling noise) stay repeats.
-- The runs: the kubecon vLLM fixture's stages 0-2 (1, 31.4 and 61.79 req/s: python3 over its
-- load_summary.requested_rate; saved again in other bytes), then stages 1 and 2 again as main's fake wrote them (every
-- latency figure x 1.0001, schedule delays 37 us later, the send rate 0.01 % lower), or
-- moved by a different factor each (1 + ((j x 7) mod 11 - 5) / 100: up to 5 % either way).
local t = require "testlib"
local json = require "llmd.json"
local harness = require "llmd.harness"
local lp = require "llmd.loadpoints"

local KUBECON = t.fixtures() .. "/inference-perf/kubecon-na-2025_vllm"

-- the folder: stages 0-2 as recorded, stages 3 and 4 made of 1 and 2 by factor(j) for the
-- j-th figure (in the order of the keys sorted)
local function run_with_again(factor)
  local dir = t.tmpdir() .. "/again"
  t.mkdir(dir)
  for i = 0, 2 do
    local n = ("stage_%d_lifecycle_metrics.json"):format(i)
    t.write(dir .. "/" .. n, t.read(KUBECON .. "/" .. n))
    -- (saved again in other bytes, the same figures: a file byte for byte the other run's is
    -- refused as copied from its folder, llmd.comparison.check_shared_files)
    t.resave(dir .. "/" .. n)
  end
  for i, from in ipairs { 1, 2 } do
    local d = json.read(("%s/stage_%d_lifecycle_metrics.json"):format(KUBECON, from))
    local j = 0
    local fams = {}
    for k in pairs(d.successes.latency) do fams[#fams + 1] = k end
    table.sort(fams)
    for _, fam in ipairs(fams) do
      local ks = {}
      for k in pairs(d.successes.latency[fam]) do ks[#ks + 1] = k end
      table.sort(ks)
      for _, k in ipairs(ks) do
        j = j + 1
        d.successes.latency[fam][k] = d.successes.latency[fam][k] * factor(j)
      end
    end
    for k, v in pairs(d.load_summary.schedule_delay) do d.load_summary.schedule_delay[k] = v + 37e-6 end
    d.load_summary.achieved_rate = d.load_summary.achieved_rate * (1 - 1e-4)
    t.write(("%s/stage_%d_lifecycle_metrics.json"):format(dir, 2 + i), json.encode(d))
  end
  return dir
end

local function copies() return 1.0001 end
local function noisy(j) return 1 + ((j * 7) % 11 - 5) / 100 end

t.test("repeats that are one recording scaled by one factor are read as measured once, and said", function()
  local run = harness.extract(run_with_again(copies))
  -- found (the copies kept until the comparison's check says them)
  for _, p in ipairs(lp.points(run)) do t.eq(p.replayed, p.offered > 1 and 1 or nil, "replayed at " .. p.offered) end
  local text = "run B's repeats at 31.4, 61.79 req/s are copies of one recording (every latency figure of a repeat "
    .. "the other's times one factor, within 0.02 %): no spread to estimate; each such load is read as measured once "
    .. "(no interval, no test from its repeats)"
  t.eq(lp.replayed_text(run, "run B"), text)
  require("llmd.comparison").check_replayed_repeats(run, { label = "B" })
  t.eq(run.checks[#run.checks].kind, "replayed_repeats")
  t.eq(run.checks[#run.checks].text, text)
  t.eq(run.status, "warnings")
  local pts = lp.points(run)
  t.eq(#pts, 3)
  for _, p in ipairs(pts) do
    -- (main: the points at 31.4 and 61.79 req/s had 2 repeats each, a zero-width interval)
    t.eq(p.repeats, 1, "repeats at " .. p.offered)
  end
  -- real repeats, each figure moved its own way: two repeats at each of those loads
  local run2 = harness.extract(run_with_again(noisy))
  for _, p in ipairs(lp.points(run2)) do
    t.eq(p.repeats, p.offered > 1 and 2 or 1, "repeats at " .. p.offered)
    t.eq(p.replayed, nil)
  end
  t.eq(lp.replayed_text(run2, "run B"), nil)
end)

t.test("the comparison's Data checks and Verdict say a run's repeats are copies of one recording", function()
  local c = t.compare_ab(KUBECON, run_with_again(copies), { "--b-label", "again" })
  t.contains(c.md, "run again's repeats at 31.4, 61.79 req/s are copies of one recording")
  t.contains(c.md, "Run again's repeats at 31.4, 61.79 req/s are copies of one recording (every latency figure of a "
    .. "repeat the other's times one factor, within 0.02 %): no spread to estimate; each such load is read as measured "
    .. "once (no interval, no test from its repeats) (see Data checks).")
  t.lacks(c.md, "own result files hold figures that do not agree")
end)
