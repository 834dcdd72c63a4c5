-- treatments.lua per GPU (session 36): a first per GPU checked against every other treatment,
-- not only the next; per-GPU figures in the charts when GPU counts differ; an experiment of
-- tp1 against tp2 end to end; warnings naming folders relative to the --results folder or
-- the workspace; the one-point chart's names rotated.
local t = require "testlib"
local tr = require "llmd.treatments"

local function find(text, s, what)
  t.ok(text:find(s, 1, true), (what or "") .. ": want «" .. s .. "» in:\n" .. text)
end
local function lacks(text, s, what)
  t.ok(not text:find(s, 1, true), (what or "") .. ": want no «" .. s .. "» in:\n" .. text)
end

-- A hand-made treatment: {offered = achieved req/s, TTFT p90 ms} per load point, one run each.
local function treat(label, pts, gpus)
  local stages = {}
  for _, p in ipairs(pts) do
    stages[#stages + 1] = { rate = p[1], values = { throughput_req_s = p[1], ttft_p90_ms = p[2], error_rate_pct = 0 } }
  end
  local run = t.run_of(stages)
  return { label = label, run = run, runs = { run }, dirs = { label }, status = "ok", reasons = {}, gpus = gpus }
end

t.test("1: capacity per GPU: a first per GPU must be ahead of every other treatment, not only the next", function()
  -- TTFT p90 <= 100 ms, each capacity interpolated between its last passing and first failing
  -- load (by hand):
  --   x, 1 GPU: 10 (50 ms) .. 20 (150 ms): 10 + 50/100 x 10 = 15 per GPU, bracket 10..20
  --   y, 2 GPUs: 10 (50 ms) .. 16 (150 ms): 10 + 0.5 x 6 = 13, 6.5 per GPU, bracket 5..8
  --   z, 1 GPU: 2 (50 ms) .. 30 (1450 ms): 2 + 50/1400 x 28 = 3 per GPU, bracket 2..30
  -- per GPU x above y (x met the SLO at 10, y failed at 8), but z's bracket 2..30 holds x's
  -- 10..20: the loads cannot order x and z, so no first per GPU. On main: "x first per GPU"
  -- (checked against y only) and the Verdict line "per GPU, x comes first".
  local x = treat("x", { { 10, 50 }, { 20, 150 } }, 1)
  local y = treat("y", { { 10, 50 }, { 16, 150 } }, 2)
  local z = treat("z", { { 2, 50 }, { 30, 1450 } }, 1)
  local m = tr.model({ x, y, z }, { slo = require("llmd.decision").parse_slo("ttft_p90_ms=100") })
  local per = m.cost.per_gpu
  t.eq({ per[1].label, per[2].label, per[3].label }, { "x", "y", "z" })
  t.near(per[1].value, 15, 1e-9)
  t.near(per[2].value, 6.5, 1e-9)
  t.near(per[3].value, 3, 1e-9)
  t.eq(m.cost.best_per_gpu, nil)
  find(m.cost.text, "x above y per GPU: untested, but the measured loads order them: x met the SLO at 10.000 req/s "
    .. "per GPU, y already failed it at 8.000 req/s per GPU")
  find(m.cost.text, "x is not shown ahead of z per GPU: untested, and the measured loads cannot order them: x "
    .. "between 10.000 req/s and 20.000 req/s per GPU, z between 2.000 req/s and 30.000 req/s per GPU")
  lacks(m.cost.text, "first per GPU")
  lacks(m.verdict_line, "comes first")
  -- z failing at 9 req/s (200 ms) instead: 2 + 50/150 x 7 = 4.333 per GPU, its bracket 2..9
  -- below x's 10: x is first per GPU, ahead of y and of z
  z = treat("z", { { 2, 50 }, { 9, 200 } }, 1)
  m = tr.model({ x, y, z }, { slo = require("llmd.decision").parse_slo("ttft_p90_ms=100") })
  t.eq(m.cost.best_per_gpu, "x")
  lacks(m.cost.text, "not shown ahead")
  find(m.verdict_line, "per GPU, x comes first")
end)
