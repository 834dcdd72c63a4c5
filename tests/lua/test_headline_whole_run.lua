-- The Headline's whole-run row (output tok/s per GPU) over loads that are not like for like:
-- no Delta or Change a reader could quote (newuser56: "351.20 | 199.13 | -152.1 tok/s | -43.3 %"
-- over different load ladders, flagged only by a note marker, read as "4 GPUs give 43 % less
-- per GPU"). Over the same ladder the figure compares and keeps its Change.
local t = require "testlib"
local ipsynth = require "ipsynth"
local proc = require "llmd.proc"

-- Two inference-perf runs (ipsynth: one server, one request at a time, 0.02 s each in lo,
-- 0.025 s in hi: 50 and 40 req/s at most, so no load here overloads either), 60 requests a
-- load, 2 GPUs each (info files), SLO E2E p90 <= 500 ms (every load meets it).
local function pair(rates_a, rates_b)
  local d = t.tmpdir()
  local function stages(rates, svc)
    local out = {}
    for _, r in ipairs(rates) do out[#out + 1] = { rate = r, n = 60, latency = ipsynth.queue(svc) } end
    return out
  end
  local a = ipsynth.run(d .. "/a", stages(rates_a, 0.02), { summary = true })
  local b = ipsynth.run(d .. "/b", stages(rates_b, 0.025), { summary = true })
  t.write(d .. "/a.yaml", "gpus: 2\n")
  t.write(d .. "/b.yaml", "gpus: 2\n")
  local c = t.compare_ab(a, b, { "--a-label", "lo", "--b-label", "hi", "--harness", "inference-perf",
    "--a-info", d .. "/a.yaml", "--b-info", d .. "/b.yaml", "--slo", "latency_p90_ms=500" })
  c.a, c.b = a, b
  c.csv = t.read(c.ws .. "/comparison.csv")
  return c
end

local function headline(doc, key)
  for _, x in ipairs(doc.headline) do if x.key == key then return x end end
end

-- python3 over the stage files: the run's output tok/s pooled as README defines it (output
-- tokens, 8 a request, over the time each stage's drain-reduced rate gives it: window less its
-- least latency, summed), per GPU (2).
local PER_GPU = [[
import json, sys, glob
for d in sys.argv[1:]:
    t = out = 0
    for f in sorted(glob.glob(d + "/stage_*_lifecycle_metrics.json")):
        s = json.load(open(f))
        t += s["benchmark_time_seconds"] - s["successes"]["latency"]["request_latency"]["min"]
        out += 8 * s["successes"]["count"]
    print(repr(out / t / 2))
]]

local function per_gpu(c)
  local r = proc.run { "/usr/bin/python3", "-c", PER_GPU, c.a, c.b }
  t.eq(r.code, 0, r.stderr)
  local a, b = r.stdout:match("^(%S+)\n(%S+)")
  return tonumber(a), tonumber(b)
end

t.test("fixc56: whole-run tok/s per GPU over different load ladders: not comparable, no Change", function()
  -- lo driven at 2 and 4 req/s, hi at 2, 4 and 8: hi's whole-run figure pools a load lo never
  -- ran, so its higher tok/s says nothing of the setups
  local c = pair({ 2, 4 }, { 2, 4, 8 })
  local h = headline(c.json, "output_tps_per_gpu")
  local ea, eb = per_gpu(c)
  -- the figures stay, each the python3 one
  t.near(h.a, ea, 1e-9)
  t.near(h.b, eb, 1e-9)
  local why = "not comparable (whole-run figures over different loads)"
  t.eq({ h.delta_text, h.pct_text }, { why, why })
  t.eq(h.evidence, "whole-run figure over different loads: not like for like")
  -- the Headline's cells: no percentage, no signed delta, the reason one note away
  local row = t.table_rows(c.md, "Headline", true)["Output tok/s per GPU (whole run)"]
  t.eq({ row[4], row[5] }, { "not comparable [" .. h.note_n .. "]", "not comparable [" .. h.note_n .. "]" })
  t.contains(c.md, "   - Change: " .. why)
  t.contains(t.read(c.ws .. "/comparison_report.html"), "<li>Change: " .. why .. "</li>")
  -- the CSV: not comparable, no delta or change, and no "B - A ... %" in its note
  local r = t.csv_row(c.csv, "output_tps_per_gpu")
  t.eq({ r[5], r[6], r[7] }, { "", "", "not comparable" })
  t.ok(not r[11]:find("B - A", 1, true), r[11])
  t.ok(not r[11]:find("%d %%"), r[11])
end)

t.test("fixc56: whole-run tok/s per GPU over one ladder on the same GPUs: its Change, untested", function()
  local c = pair({ 2, 4 }, { 2, 4 })
  local h = headline(c.json, "output_tps_per_gpu")
  local ea, eb = per_gpu(c)
  t.near(h.a, ea, 1e-9)
  t.near(h.b, eb, 1e-9)
  -- (its value from python3's figures, one decimal as the cell shows it)
  local pct = (eb - ea) / ea * 100
  t.eq(h.pct_text, ("%+.1f %%"):format(pct):gsub("^%+%-", "-"):gsub("^%-0%.0 ", "+0.0 "))
  t.eq(h.evidence, "one whole-run figure per run: untested")
end)

