-- A counter family summed over pods that one pod lacks: the sum is the other pods' alone, so
-- where that pod served requests the run's total is unknown (N/A naming the pod and why), and
-- so is every figure built on it; a pod that served nothing is left out, and said. audit52 F3:
-- B's pod p2 had no prefix-cache counters but served half of B's requests: B's totals were p1's
-- alone, its hit rate 50.0 % "higher in B", its cached tokens per request p1's hits over both
-- pods' requests. Counter values below are written here; expected figures by hand.
local t = require "testlib"
local kvcache = require "llmd.kvcache"

-- a results folder whose metrics/raw holds 3 scrapes (t0, +40 s, +120 s) of each pod of pods:
-- {name = {metric = {v0, v1, v2} or false (absent)}}
local function scrapes(pods)
  local root = t.tmpdir()
  local raw = root .. "/metrics/raw"
  t.mkdir(raw)
  local t0 = 1771234000
  for name, series in pairs(pods) do
    for k, ts in ipairs { t0, t0 + 40, t0 + 120 } do
      local lines = { 'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25' }
      for _, metric in ipairs { "prefix_cache_queries_total", "prefix_cache_hits_total", "num_preemptions_total",
        "request_success_total" } do
        local v = series[metric]
        if v then
          lines[#lines + 1] = ('vllm:%s{engine="0",model_name="m"} %.1f'):format(metric, v[k])
          lines[#lines + 1] = ('vllm:%s{engine="0",model_name="m"} 1771233000.5'):format(
            metric:gsub("_total$", "_created"))
        end
      end
      t.write(("%s/%s_%d_metrics.log"):format(raw, name, ts), table.concat(lines, "\n") .. "\n")
    end
  end
  return root
end

local P1 = { prefix_cache_queries_total = { 0, 60000, 120000 }, prefix_cache_hits_total = { 0, 30000, 60000 },
  num_preemptions_total = { 0, 1, 2 }, request_success_total = { 0, 100, 224 } }
-- (448 completed = p1's 224 + p2's 224; 200 input tokens a request, 89,600 in all)
local RUN = { overall = { values = { requests_ok = 448, requests_failed = 0, input_tokens_total = 89600 } } }

t.test("a pod that served requests without the prefix-cache counters: the run's prefix figures are N/A naming it",
  function()
    local kv = kvcache.analyze(scrapes { p1 = P1, p2 = { num_preemptions_total = { 0, 0, 1 },
      request_success_total = { 0, 100, 224 } } }, RUN)
    t.eq(kv.available, true, kv.reason)
    -- (on main: hits 60,000 and queries 120,000, p1's alone, hit rate 50 %, 133.9 cached tokens a request)
    for _, f in ipairs { "hits", "queries", "misses", "hit_rate_pct", "misses_per_request", "hits_per_request",
      "cached_share_pct" } do
      t.eq(kv[f], nil, f)
      t.eq(kv.na[f], "pod p2 has no vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total, and p2 finished 224 "
        .. "requests by its vllm:request_success_total: the run's total is unknown, as the other pods' counters hold "
        .. "only their part", f)
    end
    t.eq(kv.sum_of_max, nil)
    -- nor is the hit rate over time (the chart's): every point's unknown, and the chart's note says why
    t.eq(#kv.timeline, 3)
    for _, pt in ipairs(kv.timeline) do t.eq(pt.hit_rate_pct, nil) end
    t.contains(kv.timeline_note, "no prefix-cache hit rate over time: pod p2 has no vllm:prefix_cache_hits_total")
    -- the preemptions, which both pods count, are read: 2 + 1 = 3, per 1,000 completed 3 / 448 x 1000
    t.near(kv.preemptions, 3, 0)
    t.near(kv.preemptions_per_1k, 3 / 448 * 1000, 1e-9)
  end)

t.test("a pod without the preemption counter, or without its requests counter: those totals N/A, naming it", function()
  local p2 = { prefix_cache_queries_total = { 0, 40000, 80000 }, prefix_cache_hits_total = { 0, 10000, 20000 },
    request_success_total = { 0, 100, 224 } }
  local kv = kvcache.analyze(scrapes { p1 = P1, p2 = p2 }, RUN)
  -- the prefix figures known (by hand: hits 80,000, queries 200,000, 40 %), the preemptions not
  t.near(kv.hit_rate_pct, 40, 1e-12)
  t.eq(kv.preemptions, nil)
  t.eq(kv.na.preemptions, "pod p2 has no vllm:num_preemptions_total, and p2 finished 224 requests by its "
    .. "vllm:request_success_total: the run's total is unknown, as the other pods' counters hold only their part")
  t.eq(kv.na.preemptions_per_1k, kv.na.preemptions)
  -- p2 without vllm:request_success_total: whether it served is unknown, so every family it
  -- lacks is unknown, and the scrapes' request count (the coverage check) is too
  local p2b = { prefix_cache_queries_total = { 0, 40000, 80000 }, prefix_cache_hits_total = { 0, 10000, 20000 },
    num_preemptions_total = { 0, 0, 0 } }
  kv = kvcache.analyze(scrapes { p1 = P1, p2 = p2b }, RUN)
  t.eq(kv.vllm_requests, nil)
  t.near(kv.hits, 80000, 0)
  t.eq(kv.hits_per_request, nil)
  t.contains(kv.na.hits_per_request, "pod p2 has no vllm:request_success_total, and p2 has no "
    .. "vllm:request_success_total either, so whether it served requests is unknown")
end)

t.test("a pod that served nothing and lacks a counter is left out of its total, and said", function()
  local kv = kvcache.analyze(scrapes { p1 = P1, p3 = { request_success_total = { 5, 5, 5 } } },
    { overall = { values = { requests_ok = 224, requests_failed = 0, input_tokens_total = 224 * 300 } } })
  -- p1's figures are the run's: 60,000 / 120,000 = 50 %, 2 preemptions (by hand)
  t.near(kv.hit_rate_pct, 50, 1e-12)
  t.near(kv.preemptions, 2, 0)
  t.near(kv.hits_per_request, 60000 / 224, 1e-9, tostring(kv.na.hits_per_request))
  t.contains(table.concat(kv.notes, "\n"), "pod p3 has no vllm:prefix_cache_hits_total / "
    .. "vllm:prefix_cache_queries_total and finished no request, its vllm:request_success_total not rising: left out "
    .. "of their total")
end)

-- The same rule on llm-d-benchmark's processed summary alone (metrics_summary.json, no raw
-- scrapes): its "sum of max" of the prefix-cache pair sums the pods that have it, and its
-- time-averaged hit rate pools their per-scrape ratios. The fixture's summary (2 pods) with pod
-- wq7tz's prefix-cache metrics taken out; expected figures from tests/data/kv_ref.py (python3
-- json on the same file).
local json = require "llmd.json"
local WQ = "qwen-qwen3-0-6b-decode-6f9c7d5b8-wq7tz"
local function summary_run(edit)
  local root = t.tmpdir()
  t.mkdir(root .. "/metrics/processed")
  local d = json.read(t.fixtures() .. "/metrics-summary/synthetic-metrics_summary.json")
  edit(d[WQ].metrics)
  json.write(root .. "/metrics/processed/metrics_summary.json", d)
  return root
end
local function no_prefix(m)
  for _, k in ipairs { "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total",
    "vllm:prefix_cache_hits_created", "vllm:prefix_cache_queries_created", "vllm:prefix_cache_hit_rate" } do
    m[k] = nil
  end
end

t.test("processed summary: a pod that finished requests without the prefix-cache pair makes its sum of max and "
  .. "time-averaged hit rate N/A, naming it", function()
  local root = summary_run(no_prefix)
  local ref = t.data_json("kv_ref.py", root).summary
  -- (the reference: wq7tz lacks the pair, its vllm:request_success_total's largest value 49)
  t.eq(ref.lacking["vllm:prefix_cache_hits_total"][WQ], 49.0)
  local kv = kvcache.analyze(root, RUN)
  -- (on main: sum of max 46,480 / 58,628, k2x9p's alone, and the time average shown)
  t.eq(kv.sum_of_max, nil)
  t.eq(kv.time_avg, nil)
  local why = ("in %s/metrics/processed/metrics_summary.json, pod %s has no vllm:prefix_cache_hits_total / "
    .. "vllm:prefix_cache_queries_total, and finished requests, its vllm:request_success_total reaching 49: a sum "
    .. "over the pods is the other pods' part alone, so it is unknown"):format(root, WQ)
  t.eq(kv.time_avg_why, "no time-averaged hit rate: " .. why)
  t.eq(kv.notes[1], "the processed summary's \"sum of max\" and time-averaged hit rate are not shown: " .. why)
  -- a pod lacking one of the pair counts as lacking it
  kv = kvcache.analyze(summary_run(function(m) m["vllm:prefix_cache_queries_total"] = nil end), RUN)
  t.eq(kv.sum_of_max, nil)
  t.contains(kv.time_avg_why, "pod " .. WQ .. " has no vllm:prefix_cache_queries_total, and finished requests")
end)

t.test("processed summary: a pod without the pair that finished no request is left out of the sum, and said",
  function()
  local root = summary_run(function(m)
    no_prefix(m)
    for k, v in pairs(m["vllm:request_success_total"]) do
      if type(v) == "number" then m["vllm:request_success_total"][k] = 0 end
    end
  end)
  local ref = t.data_json("kv_ref.py", root).summary
  local kv = kvcache.analyze(root, RUN)
  -- k2x9p's largest values alone (the reference: 46,480 / 58,628)
  t.near(kv.sum_of_max.hits, ref.sum_of_max["vllm:prefix_cache_hits_total"], 0)
  t.near(kv.sum_of_max.queries, ref.sum_of_max["vllm:prefix_cache_queries_total"], 0)
  t.near(kv.time_avg.mean, ref.hit_rate_mean, 1e-12)
  t.eq(kv.notes[1], ("in %s/metrics/processed/metrics_summary.json, pod %s has no vllm:prefix_cache_hits_total / "
    .. "vllm:prefix_cache_queries_total and finished no request, its vllm:request_success_total 0 in every scrape: "
    .. "left out of the summary's sum"):format(root, WQ))
end)
