-- The KV-cache section's every number against an independent computation: tests/data/kv_ref.py
-- reads the same results folder with prometheus_client's parser and numpy (increases with
-- Prometheus' reset rule, pooled usage statistics, each pod's covered window) and prints its
-- figures; llmd.kvcache.analyze must give the same, on the fixtures' scrapes and on synthetic
-- ones with restarts, failed scrapes, pods that come or go, and data-parallel engines.
-- Which window the totals cover, and the restarts, must be said: a short delta is never silent.
local t = require "testlib"
local kvcache = require "llmd.kvcache"

local T0 = 1771234000

-- A results folder whose metrics/raw holds the scrapes of spec: { times = {offsets in s},
-- pods = { name = { [i] = scrape } } }, scrape i of a pod being "fail" (collect_metrics.sh's
-- warning line), "" (an empty file), nil/false (no file: the pod was not scraped then) or
-- { hits =, queries =, pre =, succ =, usage =, created = (the counters' _created, default
-- T0 - 1000), engines = (default 1: each engine's series get the values given, engine e's
-- times e) }, written in vLLM's 0.0.4 text with its # TYPE lines.
local function scrapes(spec)
  local root = t.tmpdir()
  local raw = root .. "/metrics/raw"
  t.mkdir(raw)
  for pod, list in pairs(spec.pods) do
    for i, off in ipairs(spec.times) do
      local s = list[i]
      local ts = T0 + off + (spec.shift and spec.shift[pod] or 0)
      local path = ("%s/%s_%d_metrics.log"):format(raw, pod, ts)
      local head = { "# Timestamp: " .. os.date("!%Y-%m-%dT%H:%M:%S+0000", ts), "# Pod: " .. pod, "# PodIP: 10.0.0.1",
        "# Source: prometheus_metrics", "" }
      if s == "fail" then
        head[#head + 1] = "# Warning: Failed to collect metrics from pod " .. pod .. " (curl exit 7)"
        t.write(path, table.concat(head, "\n") .. "\n\n")
      elseif s == "" then
        t.write(path, "")
      elseif s then
        local L = head
        local function counter(name, v, reason)
          if v == nil then return end
          L[#L + 1] = "# TYPE vllm:" .. name .. "_total counter"
          for e = 1, s.engines or 1 do
            local lab = ('engine="%d",%smodel_name="m"'):format(e - 1, reason and ('finished_reason="stop",') or "")
            L[#L + 1] = ("vllm:%s_total{%s} %.1f"):format(name, lab, v * e)
          end
          L[#L + 1] = "# TYPE vllm:" .. name .. "_created gauge"
          for e = 1, s.engines or 1 do
            local lab = ('engine="%d",%smodel_name="m"'):format(e - 1, reason and ('finished_reason="stop",') or "")
            L[#L + 1] = ("vllm:%s_created{%s} %.1f"):format(name, lab, s.created or (T0 - 1000))
          end
        end
        if s.usage then
          L[#L + 1] = "# TYPE vllm:kv_cache_usage_perc gauge"
          for e = 1, s.engines or 1 do
            L[#L + 1] = ('vllm:kv_cache_usage_perc{engine="%d",model_name="m"} %s'):format(e - 1, s.usage * e)
          end
        end
        counter("prefix_cache_queries", s.queries)
        counter("prefix_cache_hits", s.hits)
        counter("num_preemptions", s.pre)
        counter("request_success", s.succ, true)
        t.write(path, table.concat(L, "\n") .. "\n\n")
      end
    end
  end
  return root
end

-- a pod's scrapes from columns: { hits = {...}, queries = {...}, ... } -> { [i] = scrape }
local function pod(cols, extra)
  local out, n = {}, 0
  for _, v in pairs(cols) do if type(v) == "table" then n = math.max(n, #v) end end
  for i = 1, n do
    local s = {}
    for k, v in pairs(cols) do
      if type(v) == "table" then s[k] = v[i] else s[k] = v end
    end
    if extra and extra[i] ~= nil then s = extra[i] end
    out[i] = s
  end
  return out
end

-- analyze root (with a run of ok completed requests) beside kv_ref.py's figures of it: each
-- figure equal within 1e-9 relative; the windows and restarts by pod too
local function audit(root, ok)
  local run = { overall = { values = { requests_ok = ok or 0, requests_failed = 0, input_tokens_total = 1e9 } } }
  local kv = kvcache.analyze(root, run)
  local ref = t.data_json("kv_ref.py", root)
  local function same(got, want, what)
    if want == nil or want == require("llmd.json").null then
      t.eq(got, nil, what)
    else
      t.near(got, want, math.abs(want) * 1e-9, what)
    end
  end
  return kv, ref, same
end

t.test("KV audit: the fixtures' scrapes, every figure as the independent reading gives it", function()
  local root = t.tmpdir()
  t.mkdir(root .. "/metrics")
  t.copy_tree(t.fixtures() .. "/prometheus/synthetic-raw", root .. "/metrics/raw")
  t.mkdir(root .. "/metrics/processed")
  t.copy(t.fixtures() .. "/metrics-summary/synthetic-metrics_summary.json",
    root .. "/metrics/processed/metrics_summary.json")
  -- (105 completed: vLLM's request count over the scrapes, so no figure is held back as other traffic)
  local kv, ref, same = audit(root, 105)
  same(kv.hits, ref.hits, "hits")
  same(kv.queries, ref.queries, "queries")
  same(kv.hit_rate_pct, ref.hit_rate_pct, "hit rate")
  same(kv.preemptions, ref.preemptions, "preemptions")
  same(kv.vllm_requests, ref.requests, "requests")
  same(kv.usage.mean, ref.usage.mean, "usage mean")
  same(kv.usage.p90, ref.usage.p90, "usage p90")
  same(kv.usage.max, ref.usage.max, "usage max")
  same(kv.sum_of_max.hits, ref.hits_max_sum, "sum of max")
  -- the processed summary beside them (written by llm-d-benchmark's own process_metrics.py from
  -- these scrapes): its sum of max, which the raw scrapes' must equal, and its time average
  same(kv.sum_of_max.summary_hits, ref.summary.sum_of_max["vllm:prefix_cache_hits_total"], "summary's sum of max")
  same(kv.sum_of_max.summary_hits, kv.sum_of_max.hits, "the raw scrapes' sum of max is the summary's")
  same(kv.time_avg.mean, ref.summary.hit_rate_mean, "time-averaged hit rate")
end)



-- the scenarios: p1 and p2 over 5 rounds 15 s apart (p2 a different mix), then what changes
local TIMES = { 0, 15, 30, 45, 60 }
local P1 = { hits = { 0, 300, 800, 1500, 2100 }, queries = { 0, 1000, 2000, 3000, 4000 }, pre = { 0, 0, 1, 1, 2 },
  succ = { 0, 10, 20, 30, 40 }, usage = { 0.1, 0.4, 0.5, 0.6, 0.2 } }
local P2 = { hits = { 0, 100, 150, 400, 500 }, queries = { 0, 900, 1800, 2600, 3300 }, pre = { 0, 1, 1, 3, 3 },
  succ = { 0, 8, 17, 25, 33 }, usage = { 0.05, 0.3, 0.45, 0.7, 0.1 } }

local SCEN = {
  clean = { pods = { p1 = pod(P1), p2 = pod(P2) } },
  -- p1 restarts between rounds 3 and 4: its counters fall to what the new process counted
  reset_drop = { pods = { p1 = pod { hits = { 0, 300, 800, 200, 900 }, queries = { 0, 1000, 2000, 500, 1500 },
    pre = { 0, 0, 1, 0, 1 }, succ = { 0, 10, 20, 4, 14 }, usage = P1.usage,
    created = nil }, p2 = pod(P2) } },
  -- p1 restarts and its new process counts past the old values before the next scrape: only
  -- _created moving says so
  reset_created = { pods = { p1 = (function()
    local p = pod { hits = { 0, 300, 800, 1500, 2100 }, queries = { 0, 1000, 2000, 3000, 4000 },
      pre = { 0, 0, 1, 1, 2 }, succ = { 0, 10, 20, 30, 40 }, usage = P1.usage }
    for i = 4, 5 do p[i].created = T0 + 40 end
    return p
  end)(), p2 = pod(P2) } },
  -- p2's third scrape failed
  gap_mid = { pods = { p1 = pod(P1), p2 = pod(P2, { [3] = "fail" }) } },
  -- p2's first scrape failed; its last
  gap_first = { pods = { p1 = pod(P1), p2 = pod(P2, { [1] = "fail" }) } },
  gap_last = { pods = { p1 = pod(P1), p2 = pod(P2, { [5] = "" }) } },
  -- p2 not scraped after round 3 (the pod went away)
  gone = { pods = { p1 = pod(P1), p2 = pod(P2, { [4] = false, [5] = false }) } },
  -- p3 appears at round 3, its counters created inside the window (counted from 0)
  late_created = { pods = { p1 = pod(P1), p2 = pod(P2), p3 = pod({ hits = { 0, 0, 50, 80, 120 },
    queries = { 0, 0, 100, 200, 300 }, pre = { 0, 0, 0, 0, 1 }, succ = { 0, 0, 2, 4, 6 }, usage = { 0, 0, 0.2, 0.3, 0.4 },
    created = T0 + 20 }, { [1] = false, [2] = false }) } },
  -- p3 appears at round 3 with counters created before the window (no scrape said what it
  -- counted before its first)
  late_old = { pods = { p1 = pod(P1), p2 = pod(P2), p3 = pod({ hits = { 0, 0, 50, 80, 120 },
    queries = { 0, 0, 100, 200, 300 }, pre = { 0, 0, 0, 0, 1 }, succ = { 0, 0, 2, 4, 6 }, usage = { 0, 0, 0.2, 0.3, 0.4 } },
    { [1] = false, [2] = false }) } },
  -- two data-parallel engines on p1
  dp = { pods = { p1 = pod(P1, nil), p2 = pod(P2) }, engines = 2 },
  -- p2 scraped 4 s after p1 in every round (a round's pods need not share a second)
  skew = { pods = { p1 = pod(P1), p2 = pod(P2) }, shift = { p2 = 4 } },
}

for name, sc in pairs(SCEN) do
  t.test("KV audit: " .. name .. ": hits, queries, hit rate, preemptions, requests, usage as kv_ref.py", function()
    if sc.engines then for _, s in ipairs(sc.pods.p1) do s.engines = sc.engines end end
    local root = scrapes { times = TIMES, pods = sc.pods, shift = sc.shift }
    local kv, ref, same = audit(root, 73)
    for _, f in ipairs { { "hits", "hits" }, { "queries", "queries" }, { "hit_rate_pct", "hit_rate_pct" },
      { "preemptions", "preemptions" }, { "vllm_requests", "requests" } } do
      local got = kv[f[1]]
      if got == nil and kv.na then io.stderr:write(name, " ", f[1], " N/A: ", tostring(kv.na[f[1]]), "\n") end
      same(got, ref[f[2]], name .. " " .. f[1])
    end
    same(kv.usage.mean, ref.usage.mean, name .. " usage mean")
    same(kv.usage.p90, ref.usage.p90, name .. " usage p90")
    same(kv.usage.max, ref.usage.max, name .. " usage max")
    -- (on main the dp case's was each engine's largest value summed, 2,100 + 4,200 + 500 = 6,800,
    -- not the processed summary's figure it is said to be, 4,200 + 500 = 4,700)
    same(kv.sum_of_max.hits, ref.hits_max_sum, name .. " sum of max")
    -- the timeline (its points' usage and hit rate), where every pod is in every round
    if name == "clean" or name == "reset_drop" or name == "reset_created" or name == "dp" then
      t.eq(#kv.timeline, #ref.rounds, name)
      for i, r in ipairs(ref.rounds) do
        local pt = kv.timeline[i]
        same(pt.t, r.t, name .. " point t " .. i)
        same(pt.usage_pct, r.usage_pct, name .. " point usage " .. i)
        same(pt.hit_rate_pct, r.hit_rate_pct, name .. " point hit rate " .. i)
      end
    end
  end)
end

-- a scenario's folder analyzed with a run that completed ok requests (nil: no harness count)
local function analyzed(name, ok)
  local sc = SCEN[name]
  local root = scrapes { times = TIMES, pods = sc.pods, shift = sc.shift }
  local run = { overall = { values = { requests_ok = ok, requests_failed = 0, input_tokens_total = 1e9 } } }
  return kvcache.analyze(root, run), t.data_json("kv_ref.py", root), root
end

t.test("KV: a counter restart is summed across as Prometheus' increase() does, and said", function()
  -- the harness completed what vLLM counted (the reference's request total), so no other check speaks
  for _, name in ipairs { "reset_drop", "reset_created" } do
    local _, ref = analyzed(name, nil)
    local kv = analyzed(name, math.tointeger(ref.requests))
    t.near(kv.hits, ref.hits, 0, name)
    t.eq(ref.pods.p1.resets, 1, name)
    t.eq(kv.scope, nil, name)
    -- (on main: no line says the counters restarted, or how the totals take it)
    t.contains(table.concat(kv.notes, "\n"), "vLLM's counters restarted during the scrapes (a value fell, or its "
      .. "_created time moved: the process restarted) on pod p1 (1 restart): each total adds a counter's increase "
      .. "before a restart to what it counted from 0 after it, as Prometheus' increase() does; what it counted between "
      .. "its last scrape before a restart and the restart is in no scrape, so the totals may miss up to 15 s of that "
      .. "pod's counts (the longest gap between its scrapes read)", name)
  end
  -- p1's scrape after the one before its restart failed: the restart lies anywhere in 30 s
  local p1 = pod({ hits = { 0, 300, 800, 0, 700 }, queries = { 0, 1000, 2000, 0, 1500 }, succ = { 0, 10, 20, 0, 12 } },
    { [4] = "fail" })
  local root = scrapes { times = TIMES, pods = { p1 = p1, p2 = pod(P2) } }
  local ref = t.data_json("kv_ref.py", root)
  local kv = kvcache.analyze(root, { overall = { values = { requests_ok = math.tointeger(ref.requests) } } })
  t.near(kv.hits, ref.hits, 0)
  t.contains(table.concat(kv.notes, "\n"), "on pod p1 (1 restart): each total adds")
  t.contains(table.concat(kv.notes, "\n"), "may miss up to 30 s of that pod's counts (the longest gap between its "
    .. "scrapes read)")
  kv = analyzed("clean", 73)
  t.ok(not table.concat(kv.notes, "\n"):find("restarted", 1, true), "no restart, no line")
end)

t.test("KV: a pod's counters missing from the first or last scrapes: the covered window named, never a silent "
  .. "short delta", function()
  -- each case: the pod and its window by the reference (kv_ref.py), the words of why
  local cases = {
    gap_first = { "p2", "its scrape at +0 s failed" },
    gap_last = { "p2", "its scrape at +60 s failed" },
    gone = { "p2", "no scrape of it after then" },
    late_old = { "p3", "no scrape of it before then, and its counters were not created during the window" },
  }
  for name, c in pairs(cases) do
    -- no harness count to bound what is missing: the totals are the covered window's, said on
    -- each figure (scope: no rate compares the runs on them), and no per-request figure
    local kv, ref = analyzed(name, nil)
    local w = ref.pods[c[1]]
    local short = ("%s's only from +%d s to +%d s (%s)"):format(c[1], w.from - T0, w.to - T0, c[2])
    t.eq(kv.scope, "covers part of the scrapes: " .. short, name)
    t.near(kv.hits, ref.hits, 0, name)
    t.contains(table.concat(kv.warnings, "\n"), "a pod's counters cover only part of the scrapes' +0 s to +60 s, "
      .. short .. ": what it counted outside that is in no total, and nothing here bounds how much that is (vLLM's "
      .. "vllm:request_success_total against the harness's completed requests cannot be checked), so the totals and "
      .. "the rates are those of the window covered", name)
    -- vLLM's request count short of the harness's completed requests: its own check speaks, and the window's line too
    kv = analyzed(name, math.tointeger(ref.requests) + 8)
    t.eq(kv.hits_per_request, nil, name)
    t.contains(table.concat(kv.warnings, "\n"), short .. ": what it counted outside that is in no total, and nothing "
      .. "here bounds how much that is (vLLM's vllm:request_success_total against the harness's completed requests is "
      .. "off, see above)", name)
    -- vLLM's request count over the scrapes has every request the harness completed: the part
    -- outside held none of them, so the figures stand, and the window is said
    kv = analyzed(name, math.tointeger(ref.requests))
    t.eq(kv.scope, nil, name)
    t.near(kv.hits_per_request, ref.hits / ref.requests, 1e-9, name)
    t.contains(table.concat(kv.notes, "\n"), short .. ": what it counted outside that is in no total, but vLLM's "
      .. ("vllm:request_success_total over the scrapes (%d) counts the harness's %d completed requests (within 1 %%), "
      .. "so the figures stand for the run"):format(ref.requests, ref.requests), name)
  end
  -- a gap inside the window, a pod created during it, pods scraped 4 s apart: nothing short
  for _, name in ipairs { "gap_mid", "late_created", "skew", "clean" } do
    local kv = analyzed(name, nil)
    t.eq(kv.short_window, nil, name)
    t.eq(kv.scope, nil, name)
  end
end)

t.test("KV: the sum of max of data-parallel engines is the processed summary's (largest engine), and says so", function()
  local kv, ref = analyzed("dp", 0)
  -- (kv_ref.py: p1's engines pooled, 4,200, and p2's 500)
  t.near(kv.sum_of_max.hits, ref.hits_max_sum, 0)
  local _, why = kvcache.sum_of_max_text(kv.sum_of_max, kv.hits)
  t.contains(why, "On 1 pod with several data-parallel engines (label sets) it takes the largest engine's value, not "
    .. "their sum")
  t.contains(why, "understates this run's traffic")
end)

t.test("compare: a pod's counters short of the window, nothing to bound it: each KV figure says the window, no rate "
  .. "orders the runs", function()
  local json = require "llmd.json"
  -- two runs of the vLLM synthetic results (7 completed, 1 failed), scrapes without vLLM's
  -- request counter (so nothing checks what the scrapes cover): a's p2 lost its first scrape
  local function run(pods)
    for _, p in pairs(pods) do
      for _, s in pairs(p) do if type(s) == "table" then s.succ = nil end end
    end
    local root = scrapes { times = TIMES, pods = pods }
    t.write(root .. "/synthetic-vllm_bench_serve_save_detailed.json",
      t.read(t.fixtures() .. "/vllm-benchmark/synthetic-vllm_bench_serve_save_detailed.json"))
    return root
  end
  local a, b = run { p1 = pod(P1), p2 = pod(P2, { [1] = "fail" }) }, run { p1 = pod(P1), p2 = pod(P2) }
  -- (B's results saved again, the same figures in other bytes: two runs' files are never byte
  -- for byte one another's, and compare.lua refuses a pair that shares one)
  t.resave(b .. "/synthetic-vllm_bench_serve_save_detailed.json")
  local ws, r = t.compare { "--a", a, "--a-label", "short", "--b", b, "--b-label", "whole" }
  t.eq(r.code, 0, r.stderr)
  local rows = {}
  for _, x in ipairs(json.read(ws .. "/comparison.json").kv.rows) do rows[x.key] = x end
  local scope = "covers part of the scrapes: p2's only from +15 s to +60 s (its scrape at +0 s failed)"
  for _, k in ipairs { "hits", "queries", "hit_rate_pct", "preemptions" } do
    t.eq(rows[k].a_scope, scope, k)
    t.eq(rows[k].b_scope, nil, k)
  end
  t.eq(rows.hit_rate_pct.verdict, "not comparable (untested)")
  t.eq(rows.misses_per_request.a, nil)
  t.eq(rows.misses_per_request.a_na:match("^a pod's counters cover only part of the scrapes'") ~= nil, true,
    rows.misses_per_request.a_na)
  local md = t.read(ws .. "/comparison_report.md")
  t.contains(md, "- short: a pod's counters cover only part of the scrapes' +0 s to +60 s, p2's only from +15 s to "
    .. "+60 s (its scrape at +0 s failed): what it counted outside that is in no total")
end)

t.test("KV: each pod's counter window in run_model.json's kv: its lists [] even when empty", function()
  local json = require "llmd.json"
  local kv = analyzed("gap_first", nil)
  local text = json.encode(kv.counter_windows)
  -- p2's window before its start: one failed scrape, no scrape without the counters ([], never {})
  t.contains(text, '"without":[]')
  local p2 = kv.counter_windows[2]
  t.eq({ p2.pod, p2.from - T0, p2.to - T0, p2.start_gap, p2.end_gap, #p2.before.failed }, { "p2", 15, 60, true, false,
    1 })
end)

t.test("KV: the sum of max's 'before the window' counts what the increase leaves out, by the same rule", function()
  -- every pod's first scrape failed, and p3's counters were created between it and the first
  -- scrape read (at +10 s): the increase leaves p3's first value out (created before the first
  -- scrape read), so the hits before are p1's 300, p2's 100 and p3's 50 (kv_ref.py's window rule;
  -- on main p3's 50 was neither in the increase nor before it)
  local p3 = pod({ hits = { 0, 50, 80, 120, 200 }, queries = { 0, 100, 200, 300, 400 }, succ = { 0, 1, 2, 3, 4 },
    created = T0 + 10 }, { [1] = "fail" })
  local root = scrapes { times = TIMES, pods = { p1 = pod(P1, { [1] = "fail" }), p2 = pod(P2, { [1] = "fail" }),
    p3 = p3 } }
  local kv = kvcache.analyze(root, { overall = { values = { requests_ok = 0 } } })
  local ref = t.data_json("kv_ref.py", root)
  t.near(kv.hits, ref.hits, 0)
  -- (sum of max 2,100 + 500 + 200 = 2,800 against the increases 1,800 + 400 + 150 = 2,350: the 450 before)
  t.near(kv.sum_of_max.hits - kv.hits, 450, 0)
  t.near(kv.sum_of_max.hits_before, 450, 0)
end)
