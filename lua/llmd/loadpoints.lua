-- llmd.loadpoints: a run's measured stages as load points, and what a load curve says:
-- repeats and their confidence intervals, saturation, the value at a load (interpolated),
-- the ladder of two runs paired by load (offered, where every point's is known), capacity
-- at an SLO.
--
--   local lp = require "llmd.loadpoints"
--   local pts = lp.points(run)                 -- ordered by offered load
--   local sat = lp.saturation(pts)
--   local v, interpolated = lp.at(pts, 50.0, "ttft_p90_ms")
--   local rows = lp.ladder(pts_a, pts_b)
--   local cap = lp.capacity(pts, slo)          -- slo: llmd.decision.parse_slo's list
--
-- Used by the two-run report (llmd.report) and by any N-way comparison: nothing here
-- knows about "A" and "B" beyond the ladder's two columns.
local metrics = require "llmd.metrics"
local stattest = require "llmd.stattest"
local json = require "llmd.json"
-- (a signed percentage as every text prints it: never "-0.0 %", template.helpers.pct)
local function pct_text(v) return require("llmd.template").helpers.pct(v) end
-- The change from a to b said with the verb its sign takes, as printed (one decimal): "grew
-- +1.2 %", "fell 0.4 %", "stayed level (+0.0 %)" (audit50 M5: "throughput grew -0.4 %"). From
-- 0 no percentage measures it: "grew from 0", "stayed level (0 at both)" (a latency p50 of 0 ms
-- at the lower level made an infinite or NaN change, which ("%.1f") printed as no number).
local function change_text(a, b)
  if a == 0 then
    if b == 0 then return "stayed level (0 at both)" end
    return b > 0 and "grew from 0" or "fell from 0"
  end
  local v = (b / a - 1) * 100
  local r = tonumber(("%.1f"):format(v))
  if r > 0 then return "grew " .. pct_text(v) end
  if r < 0 then return "fell " .. pct_text(-v):gsub("^%+", "") end
  return "stayed level (+0.0 %)"
end

local M = {}

-- Measurements of one run whose offered loads differ by at most this (relative) are
-- repeats of one load point.
M.REPEAT_TOLERANCE = 0.01
-- Rate-based loads: saturated when the achieved rate falls below this share of the offered.
M.SATURATION_SHARE = 0.95
-- Concurrency-based loads: saturated when throughput grows by less than this while
-- latency keeps growing.
M.PLATEAU_GROWTH = 0.05

-- A script's mistake in the run it passes (a table without stages: {} or an extract's
-- JSON output read back in the wrong shape) is an error at its line naming the argument,
-- not "attempt to index a nil value" inside this file.
local function check_run(run, fn)
  if type(run) == "table" and type(run.stages) == "table" then return end
  error(("loadpoints.%s: argument 1 (run): expected a run from llmd.harness.extract (a table with "
    .. "a 'stages' list), got %s"):format(fn, type(run) == "table" and "a table without 'stages'" or type(run)), 3)
end

local function finite(x) return type(x) == "number" and x == x and math.abs(x) ~= math.huge end

-- The least evidence a saturation call needs at a load point, from the 5 % margin the rule
-- reads (1 / (1 - SATURATION_SHARE) = 20): at least this many completed requests per run
-- of the point. With fewer, one request more or less moves the achieved rate (completed /
-- window) by more than 5 %, so a point below the share says nothing: its saturation is
-- "too few requests to judge", never a call. (Not a window against the latency: past
-- saturation the latency grows with the queue, the very thing the call is about.)
M.MIN_SATURATION_REQUESTS = 20

-- The load a stage was driven at: "rate", offered rate; "concurrency", offered users; or
-- "unknown", nil.
function M.offered(st)
  if finite(st.rate) and st.rate > 0 then return "rate", st.rate end
  if finite(st.concurrency) and st.concurrency > 0 then return "concurrency", st.concurrency end
  return "unknown", nil
end

local function close(x, y, tol)
  return math.abs(x - y) <= (tol or M.REPEAT_TOLERANCE) * math.max(math.abs(x), math.abs(y))
end
M.close = close

-- Are p and q (load points, or anything with load_type and offered) one offered load: the
-- same axis, both loads known, within M.REPEAT_TOLERANCE of each other? The one rule of every
-- place that compares "one offered load": the workload match's pairing, the treatments'
-- tests of max sustained points (at two loads a kept-up point's throughput is its sending
-- rate, so their repeats' test compares the loads, not the configurations: audit51b D2),
-- the charts' "Not the same load" notes.
function M.same_load(p, q)
  return p ~= nil and q ~= nil and type(p.offered) == "number" and type(q.offered) == "number"
    and p.load_type == q.load_type and close(p.offered, q.offered)
end

-- The achieved request rate of a stage: the catalogue's request throughput (completed /
-- duration), which llmd.harness also gives as st.achieved_rate; else st.achieved_rate (a
-- run model read back from run_model.json). Never a harness's send rate (st.send_rate).
local function achieved(st)
  local v = st.metrics.values.throughput_req_s
  if finite(v) then return v end
  if finite(st.achieved_rate) then return st.achieved_rate end
  return nil
end

-- Rate-based loads: an achieved rate more than this (relative) above the offered one, plus
-- what Poisson arrivals explain (3 standard deviations of a Poisson count of
-- offered x duration arrivals, 3 / sqrt(offered x duration), when the duration is known),
-- cannot be: a server does not complete requests that were never sent.
M.OVERSHOOT = 0.10

-- nil when stage st's achieved rate can be true of its offered rate; else
-- {offered =, achieved =, allowed = relative tolerance, text = "achieved 2,262.45 req/s
-- at an offered 10/s: the file's rates cannot both be right"}.
function M.overshoot(st)
  local kind, load = M.offered(st)
  if kind ~= "rate" then return nil end
  local ach = achieved(st)
  if not ach then return nil end
  local allowed = M.OVERSHOOT
  local dur = finite(st.duration) and st.duration or st.metrics.values.duration_s
  if finite(dur) and dur > 0 then allowed = allowed + 3 / math.sqrt(load * dur) end
  if ach <= load * (1 + allowed) then return nil end
  return { offered = load, achieved = ach, allowed = allowed,
    text = ("achieved %s req/s at an offered %g/s: the file's rates cannot both be right")
      :format(metrics.group_thousands(("%.2f"):format(ach)), load) }
end

-- Adds a data check (run.checks, and a line in run.warnings, which the report lists) for
-- every measured stage whose achieved rate is above its offered rate by more than
-- M.overshoot allows, naming the stage, its file and both rates.
function M.check_rates(run)
  check_run(run, "check_rates")
  run.checks = run.checks or {}
  for _, st in ipairs(run.stages) do
    local o = not st.warmup and M.overshoot(st)
    if o then
      local text = ("load point at %g req/s offered (stage %d%s): %s (more than %.0f %% above the offered "
        .. "rate)"):format(o.offered, st.index, st.file and (", file " .. st.file) or "", o.text, o.allowed * 100)
      run.warnings[#run.warnings + 1] = text
      run.checks[#run.checks + 1] = { key = "throughput_req_s", kind = "achieved_above_offered", stage = st.index,
        file = st.file, offered = o.offered, achieved = o.achieved, text = text }
    end
  end
end

-- Why a run has no load point (M.points gave none): its results hold no load stage (a
-- per-request file alone says nothing of the load it was driven at), or every stage is
-- warm-up. nil when it has a measured stage.
function M.no_points_why(run)
  check_run(run, "no_points_why")
  if #run.stages == 0 then
    return "no load stage in the results, only whole-run data, which does not say the load"
  end
  for _, st in ipairs(run.stages) do if not st.warmup then return nil end end
  return "every stage is marked warm-up"
end

-- The client's cap on requests in flight at a load point (its stages' st.client_cap, which the
-- readers set: vLLM's --max-concurrency, inference-perf's num_workers x worker_max_concurrency):
-- "none" where the client sent with no cap, or with one its requests in flight never reached
-- (the stage's pace.max_in_flight below it: the cap held nothing back); the cap, a number, where
-- they reached it; nil where a stage does not say, where whether they reached it is not known
-- (no per-request times: a cap far above the load is common, and a guess would set runs apart
-- that are alike), or where the stages differ. A cap the sends reach holds requests in
-- the client, and a harness times a request from when the client lets it go (vLLM's from when its
-- semaphore does), so a capped run's TTFT leaves out a wait an uncapped run's includes: two runs
-- whose caps differ measure different things (llmd.decision.workload_match, paired_points;
-- audit51b C1: one server, B capped at 10, "B's TTFT p90 96 % lower", p = 8.3e-04).
function M.client_cap(stages)
  local cap
  for _, st in ipairs(stages or {}) do
    local c = st.client_cap
    if c ~= "none" and type(c) ~= "number" then return nil end
    if type(c) == "number" then
      local most = type(st.pace) == "table" and st.pace.max_in_flight
      if type(most) ~= "number" then return nil end
      if most < c then c = "none" end
    end
    if cap ~= nil and cap ~= c then return nil end
    cap = c
  end
  return cap
end

-- The load points of a run's measured stages. Stages of one load type whose offered
-- loads are within REPEAT_TOLERANCE are repeats of one point: its values are the means
-- over the repeats (a metric unknown in one repeat is unknown for the point), with
-- ci[key] = llmd.stattest.mean_ci over the repeats when there are 2 or more.
-- Repeats that are replays of one recording (fake56: the fake cluster's stage taken again was
-- its recording with every latency 0.01 % longer; a tool that re-serves a saved run does the
-- same): the same requests' latencies, identical or all scaled by one constant, so every
-- latency figure of the repeat (each family's mean and percentiles) is the other's times one
-- factor. Two real repeats differ by sampling noise: a percentile of n requests moves by about
-- sqrt(q (1 - q) / n) / density, a few % at a few thousand requests, each figure its own way,
-- so their ratios spread by far more than M.REPLAY_TOLERANCE over at least
-- M.REPLAY_MIN_FIGURES figures (with fewer, a chance agreement is not rare enough to call).
-- The tolerance, 0.02 %: a scaled copy's ratios differ only by rounding, at most 1e-4 apart
-- for figures written to 4 significant digits (full floats: 1e-15), while repeats 0.1 %
-- apart in one figure (test_treatments' 200.9, 201, 201.1 ms) are still measurements.
-- Such repeats are no evidence of spread: a copy counts as no repeat. (Their request rates,
-- where both say one, agree within the tolerance too: the same requests, the same pace.)
M.REPLAY_TOLERANCE = 2e-4
M.REPLAY_MIN_FIGURES = 6
local function latency_figure(k)
  return k:match("^%a+_p[%d]+_ms$") ~= nil or k:match("^%a+_mean_ms$") ~= nil
end
function M.scaled_copy(a, b)
  local va = type(a.metrics) == "table" and a.metrics.values or nil
  local vb = type(b.metrics) == "table" and b.metrics.values or nil
  if type(va) ~= "table" or type(vb) ~= "table" then return false end
  local lo, hi, n = math.huge, -math.huge, 0
  for k, x in pairs(va) do
    local y = vb[k]
    if type(k) == "string" and latency_figure(k) and finite(x) and finite(y) and x > 0 and y > 0 then
      local r = y / x
      lo, hi, n = math.min(lo, r), math.max(hi, r), n + 1
    end
  end
  if not (n >= M.REPLAY_MIN_FIGURES and hi / lo - 1 <= M.REPLAY_TOLERANCE) then return false end
  -- (the same requests also complete at one rate: repeats whose latencies agree but whose
  -- request rates differ beyond the tolerance are measurements that differ, not copies)
  local ra, rb = va.throughput_req_s, vb.throughput_req_s
  if finite(ra) and finite(rb) and ra > 0 and rb > 0 then
    return math.abs(rb / ra - 1) <= M.REPLAY_TOLERANCE
  end
  return true
end

-- The loads of run whose repeats are copies of one recording (M.points' p.replayed), and the
-- sentence that says it ("run B's repeats at 2, 4 req/s are copies of one recording: ..."), or
-- nil. label: the run's name.
function M.replayed_text(run, label)
  local loads, unit = {}, nil
  for _, p in ipairs(M.points(run)) do
    if p.replayed then
      loads[#loads + 1] = p.offered and ("%g"):format(p.offered) or "an unknown load"
      unit = unit or (p.load_type == "concurrency" and "concurrent users" or "req/s")
    end
  end
  if #loads == 0 then return nil end
  return ("%s's repeats at %s %s are copies of one recording (every latency figure of a repeat the other's "
    .. "times one factor, within %g %%): no spread to estimate; each such load is read as measured once (no "
    .. "interval, no test from its repeats)"):format(label, table.concat(loads, ", "), unit, M.REPLAY_TOLERANCE * 100)
end

function M.points(run)
  check_run(run, "points")
  local drop_copies = false
  for _, c in ipairs(type(run.checks) == "table" and run.checks or {}) do
    if type(c) == "table" and c.kind == "replayed_repeats" then drop_copies = true end
  end
  local groups, measured = {}, {}
  for _, st in ipairs(run.stages) do if not st.warmup then measured[#measured + 1] = st end end
  for _, st in ipairs(run.stages) do
    if not st.warmup then
      local kind, load = M.offered(st)
      local g
      if load then
        for _, x in ipairs(groups) do
          if x.load_type == kind and close(x.offered, load) then g = x; break end
        end
      end
      if not g then
        g = { load_type = kind, offered = load, stages = {} }
        groups[#groups + 1] = g
      end
      g.stages[#g.stages + 1] = st
    end
  end
  local points = {}
  for _, g in ipairs(groups) do
    -- a repeat that is a scaled copy of one kept before it (M.scaled_copy) is left out: the
    -- load is read as measured by the distinct ones (no interval, no test from copies)
    -- (only in a run the comparison has checked and found such copies in, its data check
    -- kind "replayed_repeats": llmd.comparison.check_replayed_repeats; elsewhere they are
    -- found, p.replayed, but kept)
    local kept, copies = {}, 0
    for _, st in ipairs(g.stages) do
      local copy = false
      for _, k in ipairs(kept) do
        if M.scaled_copy(k, st) then copy = true; break end
      end
      if copy then copies = copies + 1 end
      if not copy or not drop_copies then kept[#kept + 1] = st end
    end
    g.stages = kept
    local p = { load_type = g.load_type, offered = g.offered, repeats = #g.stages, values = {}, na = {},
      ci = nil, stages = {}, replayed = copies > 0 and copies or nil }
    for i, st in ipairs(g.stages) do p.stages[i] = st.index end
    -- why the offered load is unknown, as the results say (the Load Curves' Offered cell)
    if not p.offered then p.offered_why = g.stages[1].offered_why end
    for _, st in ipairs(g.stages) do -- (a data check: M.check_rates)
      local o = M.overshoot(st)
      -- (the stage as its folder numbers it: treatments.lua renumbers a repeat's stages)
      if o and not p.overshoot then p.overshoot = { stage = st.folder_index or st.index, text = o.text } end
      -- a file whose per-request data disagrees with its own count (cut short): a data check
      if st.count_check and not p.count_check then
        p.count_check = { stage = st.folder_index or st.index, text = st.count_check }
      end
    end
    -- the pace of answers against sends (llmd.runmodel.pace, from per-request data),
    -- summed over the point's repeats: only where every one of them has it
    -- (counts summed, rates the mean of the repeats', as the achieved rate's)
    local pace = { sends = 0, answered = 0, succeeded = 0, send_rps = 0, answer_rps = 0, success_rps = 0 }
    for _, st in ipairs(g.stages) do
      local x = st.pace
      local whole = type(x) == "table"
      for k in pairs(pace) do whole = whole and finite(x[k]) end
      if not whole then
        pace = nil
        break
      end
      for k in pairs(pace) do pace[k] = pace[k] + x[k] end
    end
    if pace then
      for _, k in ipairs { "send_rps", "answer_rps", "success_rps" } do pace[k] = pace[k] / #g.stages end
      -- the most the successful answers' rate can be by the scatter of the finish times
      -- (llmd.runmodel.pace's slope_lo): the mean of the repeats' (unbounded where one
      -- repeat's slope cannot be told from none); nil from a save without slopes
      local hi = 0
      for _, st in ipairs(g.stages) do
        local x = st.pace
        if not (finite(x.slope_lo) and x.answered > 0) then
          hi = nil
          break
        end
        if x.slope_lo <= 0 or not hi or hi == math.huge then
          hi = math.huge
        else
          hi = hi + x.send_rps / x.slope_lo * x.succeeded / x.answered
        end
      end
      if hi == math.huge then pace.unbounded = true elseif hi then pace.success_hi_rps = hi / #g.stages end
      -- every repeat sent on its own schedule, no concurrency cap (llmd.harness.vllm_benchmark)
      local open, unknown = true, nil
      for _, st in ipairs(g.stages) do
        open = open and st.pace.open_loop == true
        if type(st.pace.cap_unknown) == "string" then unknown = unknown or st.pace.cap_unknown end
      end
      pace.open_loop = open or nil
      -- a repeat whose files do not say whether its client's cap held its sends back (a vLLM
      -- file without max_concurrency, inference-perf's workers not stated): unknown, with
      -- the words why (fixj50)
      pace.cap_unknown = not open and unknown or nil
    end
    p.pace = pace
    -- (a rate ladder's only: on a concurrency ladder the cap is the load itself)
    p.client_cap = p.load_type == "rate" and M.client_cap(g.stages) or nil
    -- a one-run point's per-request samples and their design effects in send order
    -- (llmd.runmodel.fill: set.samples, set.sample_deff), for the uncertainty of a
    -- percentile that decides an SLO (M.percentile_ci); a run of one measured stage whose
    -- per-request data was read as a whole has them as the whole run's
    if #g.stages == 1 then
      local m = g.stages[1].metrics or {}
      local src = m.samples and m or (#measured == 1 and run.overall and run.overall.samples and run.overall) or nil
      if src then
        p.per_request = { samples = src.samples, deff = src.sample_deff }
      else
        -- (read back from a workspace: the intervals compare.lua saved, M.stage_percentile_cis)
        -- (and the design effects saved beside them, which a mean's saved before fixa45 is
        -- widened by: M.mean_ci)
        local saved, deff = m.percentile_ci, m.sample_deff
        if not saved and #measured == 1 and run.overall then
          saved, deff = run.overall.percentile_ci, run.overall.sample_deff
        end
        if saved then p.per_request = { saved = saved, deff = deff } end
      end
    end
    -- the drain-reduced rate's figures (llmd.runmodel.DRAIN_BASIS), one record a repeat:
    -- only where every repeat has one (M.drain_of)
    local drains = {}
    for _, st in ipairs(g.stages) do
      local x = st.drain
      if type(x) ~= "table" or not (finite(x.completed) and finite(x.window_s) and finite(x.least_latency_s)) then
        drains = nil
        break
      end
      drains[#drains + 1] = x
    end
    p.drain = drains
    -- what its failed requests were (llmd.runmodel.error_kind), summed over its repeats: a
    -- repeat whose files give no kinds counts its failures as unknown (M.failure_cause)
    -- (each repeat's own too, in repeat order, as its figures' samples: M.ceiling reads them)
    local kinds, per_repeat = { timeout = 0, error = 0, unknown = 0 }, {}
    for j, st in ipairs(g.stages) do
      local k = st.failure_kinds
      if type(k) == "table" and finite(k.timeout) and finite(k.error) and finite(k.unknown) then
        for key in pairs(kinds) do kinds[key] = kinds[key] + k[key] end
        per_repeat[j] = { timeout = k.timeout, error = k.error, unknown = k.unknown }
      else
        local failed = st.metrics and st.metrics.values and st.metrics.values.requests_failed
        kinds.unknown = kinds.unknown + (finite(failed) and failed or 0)
        per_repeat[j] = { timeout = 0, error = 0, unknown = finite(failed) and failed or 0 }
      end
    end
    p.failure_kinds, p.repeat_failure_kinds = kinds, per_repeat
    -- each repeat's failed and finished requests and its failures' design effect in send order
    -- (llmd.runmodel's sample_deff.failed; 1 where unknown), for the error rate's interval of a
    -- repeated point (M.repeats_error_ends); nil unless every repeat gives both counts
    if #g.stages >= 2 then
      local rc = { failed = {}, total = {}, deff = {} }
      for j, st in ipairs(g.stages) do
        local v = st.metrics and st.metrics.values or {}
        local f, ok = v.requests_failed, v.requests_ok
        if not (finite(f) and finite(ok) and f >= 0 and ok >= 0) then rc = nil; break end
        local d = st.metrics.sample_deff and st.metrics.sample_deff.failed
        rc.failed[j], rc.total[j], rc.deff[j] = f, f + ok, finite(d) and math.max(1, d) or 1
      end
      p.repeat_counts = rc
    end
    -- and by cause (llmd.runmodel.stage_causes), summed over its repeats by cause, most first;
    -- a repeat whose reader grouped no causes per stage counts its failures as "cause not
    -- recorded", as its kinds count them unknown
    local rm = require "llmd.runmodel"
    local causes = rm.error_groups()
    for _, st in ipairs(g.stages) do
      local list = rm.stage_causes(st)
      if type(list) == "table" then
        for _, e in ipairs(list) do
          if type(e) == "table" and type(e.cause) == "string" and finite(e.count) then causes.merge(e) end
        end
      else
        local failed = st.metrics and st.metrics.values and st.metrics.values.requests_failed
        if finite(failed) and failed > 0 then
          causes.merge { cause = "cause not recorded (the results give no causes per load point)", count = failed,
            example = "" }
        end
      end
    end
    p.errors = json.array(causes.list())
    for _, m in ipairs(metrics.list) do
      local xs, why = {}, nil
      for _, st in ipairs(g.stages) do
        local v = st.metrics.values[m.key]
        if v == nil then why = st.metrics.na[m.key] or "unknown"; break end
        xs[#xs + 1] = v
      end
      if why then
        p.na[m.key] = why
        -- a figure unknown but bracketed in every repeat that lacks it (llmd.runmodel.put_bounds):
        -- the point's mean lies between the means of the repeats' ends (a known figure is
        -- both ends), for an SLO to judge the point on (M.slo_verdict); never its figure
        local lo, hi = 0, 0
        for _, st in ipairs(g.stages) do
          local v = st.metrics.values[m.key]
          local b = v == nil and st.metrics.bounds and st.metrics.bounds[m.key] or nil
          if finite(v) then
            lo, hi = lo + v, hi + v
          elseif b and finite(b.lo) and finite(b.hi) then
            lo, hi = lo + b.lo, hi + b.hi
          else
            lo = nil
            break
          end
        end
        if lo then
          p.bounds = p.bounds or {}
          p.bounds[m.key] = { lo = lo / #g.stages, hi = hi / #g.stages }
          -- repeated: the bracket the point is judged on is its repeats', said last and as
          -- theirs, never one repeat's own mean and bracket alone (fixh43: "its mean 11.00 ms ...
          -- 11.01 to 11.02 ms" beside a point judged on 11.0132 to 11.0222 ms)
          if #g.stages > 1 then
            local unknown = 0
            for _, st in ipairs(g.stages) do
              if st.metrics.values[m.key] == nil then unknown = unknown + 1 end
            end
            -- (the bracket's ends with the digits of the Load Curves cell that shows it, one
            -- more than its column's 2: "11.010 ms", beside "N/A (11.010–11.019)", fixb44)
            p.na[m.key] = ("%s unknown in %d of its %d repeats (the first such repeat's: %s); the mean of its "
              .. "repeats lies between %.3f %s and %.3f %s"):format(m.label, unknown, #g.stages, why,
              p.bounds[m.key].lo, m.unit, p.bounds[m.key].hi, m.unit)
          end
        end
      else
        local s = 0
        for _, x in ipairs(xs) do s = s + x end
        p.values[m.key] = s / #xs
        local all_finite = true
        for _, x in ipairs(xs) do if not finite(x) then all_finite = false end end
        if #xs >= 2 and all_finite then
          p.ci = p.ci or {}
          -- every metric of the catalogue (latency, rate, tokens, error share) is >= 0:
          -- an interval reaching below 0 is clipped there, and says so
          p.ci[m.key] = stattest.mean_ci(xs, nil, 0)
          p.ci[m.key].samples = xs
        end
      end
    end
    -- the error rate's interval is the one the capacity and the verdict read (M.repeats_error_ends:
    -- the repeats' requests pooled, where their failures do not differ beyond chance), so that
    -- every chart, table and comparison.json field drawn from p.ci shows that interval and not
    -- the Student t one of the repeats' shares (task intervals55: a 2-repeat t-interval of 7.5 %
    -- and 9.2 % reads 0 to 18.9 %, the verdict's 6.0 to 11.2 %). The t-interval is kept in
    -- t_interval; basis says which it is ("pooled requests"; "repeats" where the t-interval stays).
    local eci = p.ci and p.ci.error_rate_pct
    if eci then
      local e = M.repeats_error_ends(p)
      eci.basis = e and "pooled requests" or "repeats"
      if e then
        eci.t_interval = { lo = eci.lo, hi = eci.hi, t_lo = eci.t_lo, clipped = eci.clipped, identical = eci.identical }
        eci.lo, eci.hi, eci.t_lo, eci.clipped, eci.identical = e.lo, e.hi, nil, nil, nil
        eci.pooled = e.pooled
      end
    end
    -- the achieved rate: the catalogue's, else the harness's (mean over repeats)
    local ach, n = 0, 0
    for _, st in ipairs(g.stages) do
      local a = achieved(st)
      if a then ach, n = ach + a, n + 1 end
    end
    p.achieved_rps = n == #g.stages and n > 0 and ach / n or nil
    p.output_tps = p.values.throughput_tok_s
    -- the throughput the point sustained (M.THROUGHPUT_DEFINITION): where its pace decides
    -- its saturation, the rate successful answers came back at, free of the drain the
    -- harness's achieved rate carries (completed / first request to last answer, which the
    -- last answers' own latency lengthens: 30 s answers read 12 of 20 req/s kept up with);
    -- output tok/s the same way, its tokens per completed request at that rate. The
    -- harness's own figures stay in harness_rps / harness_tps, shown beside it.
    p.harness_rps, p.harness_tps = p.achieved_rps, p.output_tps
    -- where there is no pace but the repeats' drain-reduced rates are known (M.drain_of:
    -- vLLM without --save-detailed, inference-perf's stage files), that rate: completed
    -- successes / (window - least latency), the same drain left out as the saturation
    -- judgement leaves out; else the harness's achieved rate
    local x, dr = M.pace_of(p), M.drain_of(p)
    local rates
    if x then
      p.rate_basis, p.achieved_rps, rates = "pace", x.success_rps, {}
      for _, st in ipairs(g.stages) do rates[#rates + 1] = st.pace.success_rps end
      -- compared with a run whose files give the drain-reduced rate only (run.rate_like,
      -- set by llmd.comparison: M.like_basis): this run's figure on that basis, from its
      -- own window and least latency, so that the two rank like with like (the pace, kept
      -- in p.rate_like.pace_rps, still judges its saturation)
      local like = run.rate_like and M.like_rates(g.stages, run.rate_like)
      if like then
        p.rate_like = { pace_rps = x.success_rps, basis = run.rate_like }
        rates, p.achieved_rps = like, 0
        for _, r in ipairs(like) do p.achieved_rps = p.achieved_rps + r / #like end
        p.rate_like.rps = p.achieved_rps
      end
    elseif dr and dr.least_kind ~= "none" then
      -- (its lower bound where the files bound the least latency only by a percentile:
      -- M.drain_rates; none at all: the harness's own rate, completed / window, as it is)
      p.rate_basis, p.achieved_rps, rates = "drain", dr.rps, {}
      for _, r in ipairs(p.drain) do rates[#rates + 1] = M.drain_rates(r) end
    elseif p.achieved_rps ~= nil then
      -- the harness's own rate, as it is (a concurrency load; statistics that bound neither
      -- the pace nor the least latency, as vLLM files without e2e percentiles): said, never
      -- left nil, which read as unknown (newuser52 #9: repeated vLLM runs' points had none)
      p.rate_basis = "harness"
    end
    if rates then
      local per_req = finite(p.output_tps) and finite(p.harness_rps) and p.harness_rps > 0
        and p.output_tps / p.harness_rps or nil
      p.output_tps = per_req and p.achieved_rps * per_req or nil
      -- no request completed (every one failed), known: no output token came back, 0 tok/s
      if not p.output_tps and p.values.requests_ok == 0 and p.achieved_rps == 0 then p.output_tps = 0 end
      if not p.output_tps then
        p.na.throughput_tok_s = p.na.throughput_tok_s or "output tok/s or the achieved rate unknown"
      end
      -- repeats: the interval of their own rates, not of the drain-biased ones
      local xs = rates
      if p.ci and p.ci.throughput_req_s and #xs >= 2 then
        p.ci.throughput_req_s = stattest.mean_ci(xs, nil, 0)
        p.ci.throughput_req_s.samples = xs
      end
      if p.ci and p.ci.throughput_tok_s then
        -- each repeat's output tok/s at its own rate (its tokens per completed request); the
        -- point's figure is their mean, as every figure of repeats is, so that the whole-run
        -- row (llmd.report's run_figure), its Welch test and the ladder read one number.
        -- Where a repeat's is unknown, no interval: never the harness's rates left in its
        -- place for a test to read beside a row that shows the throughput
        local ts, whole = {}, per_req ~= nil
        for i, st in ipairs(g.stages) do
          local a, t = achieved(st), st.metrics.values.throughput_tok_s
          ts[i] = finite(a) and a > 0 and finite(t) and xs[i] * t / a or nil
          whole = whole and ts[i] ~= nil
        end
        if whole then
          p.ci.throughput_tok_s = stattest.mean_ci(ts, nil, 0)
          p.ci.throughput_tok_s.samples = ts
          p.output_tps = p.ci.throughput_tok_s.mean
        else
          p.ci.throughput_tok_s = nil
        end
      end
    end
    -- each repeat's own rate, on the point's basis (the pace's, the drain-reduced, else the
    -- harness's achieved rate), in repeat order: for a run's ceiling, which leaves a crashed
    -- repeat out (M.ceiling); nil where one is unknown or the point has one run
    if #g.stages >= 2 then
      local each = rates
      if not each then
        each = {}
        for i, st in ipairs(g.stages) do each[i] = achieved(st) end
      end
      local whole = #each == #g.stages
      for i = 1, #g.stages do whole = whole and finite(each[i]) end
      p.repeat_rps = whole and each or nil
    end
    p.error_rate_pct = p.values.error_rate_pct
    p.duration_s = p.values.duration_s
    local ok, failed = p.values.requests_ok, p.values.requests_failed
    p.requests = ok and (ok + (failed or 0) + (p.values.requests_incomplete or 0)) or nil
    -- 1000 / TPOT p50, else 1000 / TPOT mean where the files have no p50: which one,
    -- in interactivity_basis ("tpot_p50_ms" | "tpot_mean_ms"), so that the label can say
    local basis = p.values.tpot_p50_ms ~= nil and "tpot_p50_ms" or "tpot_mean_ms"
    local tpot = p.values[basis]
    p.interactivity_tps_per_user = finite(tpot) and tpot > 0 and 1000 / tpot or nil
    p.interactivity_basis = p.interactivity_tps_per_user and basis or nil
    -- goodput, where the harness counted it against the SLOs (llmd.runmodel)
    local good, total, dur = 0, 0, 0
    for _, st in ipairs(g.stages) do
      local gp = st.metrics.goodput
      -- a one-stage run whose per-request data was read as a whole (inference-perf)
      if not gp and #measured == 1 and run.overall then gp = run.overall.goodput end
      local d = gp and (gp.duration_s or st.metrics.values.duration_s)
      -- (a repeat's requests without a value for an SLO: unknown, and why)
      if gp and type(gp.unknown) == "string" then p.goodput_why = gp.unknown end
      if not (gp and gp.total and d) then good = nil; break end
      good, total, dur = good + gp.good, total + gp.total, dur + d
    end
    if good and dur > 0 and total > 0 then
      p.goodput_rps = good / dur
      p.slo_attainment_pct = good / total * 100
      -- (where the throughput is the answers' pace, goodput is that pace's share of good
      -- answers, not good / a window the drain lengthens: M.THROUGHPUT_DEFINITION)
      if p.rate_basis == "pace" then p.goodput_rps = M.pace_of(p).answer_rps * good / total end
      -- (read on the other run's drain-reduced basis: its share of good successes, as there)
      if p.rate_like and finite(ok) and ok > 0 then
        p.goodput_rps = p.rate_like.rps * math.min(good / (ok * #g.stages), 1)
      end
      -- (the drain-reduced rate counts successes: goodput is its share of good ones)
      if p.rate_basis == "drain" and dr.completed > 0 then
        p.goodput_rps = dr.rps * math.min(good / dr.completed, 1)
      end
    end
    points[#points + 1] = p
  end
  local one_kind = #points > 0
  for _, p in ipairs(points) do
    if not p.offered or p.load_type ~= points[1].load_type then one_kind = false end
  end
  table.sort(points, function(x, y)
    if one_kind then return x.offered < y.offered end
    local ax, ay = x.achieved_rps or -1, y.achieved_rps or -1
    if ax ~= ay then return ax < ay end
    return x.stages[1] < y.stages[1]
  end)
  for i, p in ipairs(points) do p.index = i end
  return points
end

-- Why load point p (index i) has too few completed requests to be called saturated
-- (M.MIN_SATURATION_REQUESTS), or nil. An unknown count is not held against it.
-- The highest achieved rate among points[1..n] (n: all of them when nil); nil when none is
-- known. Saturation's max sustained (the points before it) and a run's ceiling (all).
local function max_achieved(points, n)
  local best
  for j = 1, n or #points do
    local r = points[j].achieved_rps
    if r and (not best or r > best) then best = r end
  end
  return best
end

-- A run's ceiling, the most it achieved at any load (saturated ones included), where a
-- repeat that crashed at a load (M.crashed_repeats: it failed more requests than the
-- error-rate limit, opts.slo's or FAILURES_PCT, where another repeat of that load stayed
-- within it) is left out of that load's figure: the mean of the other repeats, where it is
-- higher than the mean of all (a crashed repeat's successes are no measure of what the
-- server can do, and would pull the ceiling down, so that another run could be ordered
-- above this one "beyond its ceiling" only because of a crash); not a repeat that timed out
-- more of its requests than that limit (timed_out_repeat): that is the server's overload at
-- that load, which the ceiling measures. Returns the ceiling in
-- req/s (nil where no point's rate is known) and in output tok/s (nil where a point's is
-- unknown: the most is then unknown too; its tok/s lies on the line between two load
-- points, never above both), and, where a crash was left out of the load that sets the
-- req/s ceiling, {point =, offered =, crashed = {{n = the repeat's number, pct = its share
-- failed}, ...}, mean_rps = the mean of all its repeats, cause = the kind of that load's failures,
-- llmd.decision.failures_kind} (M.ceiling_crash_text says it beside the figure).
function M.ceiling(points, opts)
  local limit = M.error_limit(opts)
  local best, best_tps, left_out
  -- Did repeat k of load point p, pct % of its requests failed, time out more of them than the
  -- limit allows (M.timed_out's rule, on the repeat: its own kinds, p.repeat_failure_kinds,
  -- else its load's)? Then it is no crash but the server's overload, a measure of the server
  -- like any other repeat of that load: it counts toward the ceiling (fixb46; before, it was
  -- left out as a crashed one is, and the ceiling was the other repeats' mean alone).
  local function timed_out_repeat(p, k, pct)
    local each = type(p.repeat_failure_kinds) == "table" and p.repeat_failure_kinds[k]
    local to, e, u = M.failure_counts({ failure_kinds = each or p.failure_kinds })
    return to + e + u > 0 and pct * to / (to + e + u) > limit.pct
  end
  for _, p in ipairs(points) do
    local r, t = p.achieved_rps, p.output_tps
    local errs = p.ci and p.ci.error_rate_pct and p.ci.error_rate_pct.samples
    local c = errs and M.crashed_repeats({ repeats_failed_pct = errs }, limit)
    if c then
      local kept = {}
      for _, x in ipairs(c) do
        if not timed_out_repeat(p, x.n, x.pct) then kept[#kept + 1] = x end
      end
      c = #kept > 0 and kept or nil
    end
    local out
    if c then
      local gone = {}
      for _, x in ipairs(c) do gone[x.n] = true end
      -- the mean of the other repeats' figures xs (nil where xs is not one a repeat)
      local function others(xs)
        if type(xs) ~= "table" or #xs ~= #errs then return nil end
        local sum, n = 0, 0
        for k, v in ipairs(xs) do
          if not gone[k] then sum, n = sum + v, n + 1 end
        end
        return n > 0 and sum / n or nil
      end
      local rc = others(p.repeat_rps)
      if rc and r and rc > r then
        local list = {}
        for k, x in ipairs(c) do list[k] = { n = x.n, pct = x.pct } end
        -- (what its failures were, as its files say: llmd.decision.failures_kind, so that a
        -- repeat that timed out is not said to have crashed)
        out = { point = p.index, offered = p.offered, crashed = list, mean_rps = r,
          cause = require("llmd.decision").failures_kind(p) }
        r = rc
      end
      local tc = others(p.ci.throughput_tok_s and p.ci.throughput_tok_s.samples)
      if tc and finite(t) and tc > t then t = tc end
    end
    if r and (not best or r > best) then best, left_out = r, out end
    if best_tps ~= false then
      if type(t) ~= "number" or t ~= t then
        best_tps = false
      elseif not best_tps or t > best_tps then
        best_tps = t
      end
    end
  end
  return best, best_tps or nil, left_out
end

-- The fewest output tok/s delivered at points[from] or at any load point after it (the
-- loads above it), or nil where one of theirs is unknown: a lower bound's floor in tok/s.
-- The capacity of a bound lies at its point's load or above, and past it a load may
-- deliver fewer tok/s (fewer output tokens per request there) even as its req/s rise.
local function min_output_tps_from(points, from)
  local least
  for j = from, #points do
    local v = points[j].output_tps
    if type(v) ~= "number" or v ~= v then return nil end
    if not least or v < least then least = v end
  end
  return least
end

-- The position of point p in points.
local function position(points, p)
  for j, q in ipairs(points) do if q == p then return j end end
  return #points
end

-- answered: the failed requests make up its shortfall (they were answered, with an error:
-- the answered rate is judged, M.saturation), so they count too: a point where every request
-- failed is a failures point, not one of too few requests.
local function too_thin(p, i, answered)
  local n = p.values.requests_ok
  if answered and finite(n) and finite(p.values.requests_failed) then n = n + p.values.requests_failed end
  if finite(n) and n < M.MIN_SATURATION_REQUESTS then
    return ("load point %d completed %g request%s%s, fewer than the %d a saturation call needs, as one request more "
      .. "or less moves its achieved rate by more than %.0f %%"):format(i, n, n == 1 and "" or "s",
      (p.repeats or 1) > 1 and " per repeat" or "", M.MIN_SATURATION_REQUESTS, (1 - M.SATURATION_SHARE) * 100)
  end
  return nil
end

local function points_text(list)
  local xs = {}
  for i, w in ipairs(list) do xs[i] = tostring(w.point) end
  if #xs == 1 then return "load point " .. xs[1] end
  return "load points " .. table.concat(xs, ", ", 1, #xs - 1) .. " and " .. xs[#xs]
end

local function thin_result(why)
  return { none = true, unknown = true, few = true, reason = "too few requests to judge saturation: " .. why }
end

-- What a load point's throughput (req/s, and output tok/s) is, wherever it is ranked: max
-- sustained, capacity, the load ladder, the charts, treatments.lua. Said once, in "How these
-- figures are defined".
M.THROUGHPUT_DEFINITION = "the throughput of a load point (req/s, and the output tok/s with it) is, where its "
  .. "per-request start and finish times are known (rate-based loads), its pace: the rate requests were sent at over "
  .. "the slope of their answers' times on their sends', times the share that succeeded, read as its saturation is "
  .. "(which leaves out the last requests' own latency); where only the window and the latencies are known "
  .. "(vLLM without --save-detailed, inference-perf's stage files), the drain-reduced rate: successful requests / "
  .. "(the window - the least latency), read as its saturation is too; where the files hold latency statistics only "
  .. "(vLLM without latencies, inferencemax, guidellm without its requests, benchmark reports of vLLM, inferencemax or "
  .. "inference-perf), the least latency is their minimum, else at most their lowest e2e percentile P (p5 or below) "
  .. "and the rate its lower bound, (successful requests - those that may lie below P) / (the window - P) or "
  .. "successful requests / the window where higher; else the harness's own rate, as where a guidellm warmup moved its "
  .. "window's start past the first request, or a benchmark report of guidellm does not say where its window started; "
  .. "output tok/s is that rate times its output tokens per completed request. It is the figure max sustained "
  .. "throughput, the capacity, the load ladder and the charts rank, and what this report's sentences mean by "
  .. "achieved. The harness's own rate (completed requests / first request to last answer) is shown "
  .. "beside it, as \"Harness req/s (completed / window)\": its window ends one request latency after the last "
  .. "request, so a server that kept up with 60 s of requests answered in 20 s each reads 75 % of the offered "
  .. "rate, and of two servers that keep up with the same load the one with the longer answers reads lower. At "
  .. "concurrency-based loads, or without either figure, the throughput is the harness's own rate"

-- How the pace of a load point is read, as its texts say it.
M.PACE_SPAN = "the sends over their middle 80 %, the answers by the slope of their times on the sends', which no "
  .. "latency, long or spread, moves"

-- A rate-based point's pace (llmd.runmodel.pace: per-request data), where it decides its
-- saturation: at least MIN_SATURATION_REQUESTS requests sent, every rate known. The
-- achieved rate counts completions over the whole window, first request to last answer,
-- which ends one request latency after the last request: a server that kept up achieves
-- N / (S + E2E) of the N / S offered, 75 % with 60 s of requests and 20 s answers. The
-- rate answers came back at against the rate requests were sent at (the sends' rate over
-- their middle, divided by the slope of the finish times on the start times) carries no
-- such drain, no spread of the latencies, nor the arrivals' own noise (the same requests).
-- nil: judged by the achieved rate against the offered.
function M.pace_of(p)
  local x = p.pace
  if p.load_type ~= "rate" or type(x) ~= "table" or not finite(x.sends) or x.sends < M.MIN_SATURATION_REQUESTS
    or not (finite(x.send_rps) and finite(x.answer_rps) and finite(x.success_rps)) then
    return nil
  end
  return x
end

-- The rate a paced point's answers are held to (pace: M.pace_of(p)): the rate its requests
-- were sent at, unless the sends themselves fell behind the offered rate, below
-- SATURATION_SHARE of it by more than Poisson arrivals explain (3 standard deviations of a
-- rate read off the middle 80 % of n arrivals, 3 / sqrt(0.8 (n - 1)), n over the repeats):
-- then the offered rate. A client that sends only as answers free a slot (vLLM's
-- --max-concurrency, inference-perf's workers) keeps its sends in step with the answers
-- whatever the server does: answers keeping pace with such sends say nothing of the load
-- asked for (kubecon-na-2025_vllm stage 4: 122.59 req/s offered, 106.49 sent). Where the
-- files do not show such a cap held the sends back (no cap, one never reached, or one the
-- files do not state: pace.open_loop, pace.cap_unknown), saturation_of reads answers that
-- kept pace with the sends as unjudged instead. Returns the rate and, where it is the
-- offered one, true.
function M.pace_reference(p, pace)
  if M.sends_behind(pace.send_rps, p.offered, pace.sends, require("llmd.runmodel").PACE_SHARE) then
    return p.offered, true
  end
  return pace.send_rps, false
end

-- What a rate-based point's server answered successfully and what that is set against, as
-- its saturation reads it (M.saturation): its pace's successful answers against the sends
-- (M.pace_reference, or the offered rate where the sends fell behind it), else its
-- drain-reduced rate against its reference, else its achieved rate against the offered.
-- Returns the rate, the reference rate, the reference's word ("sent" | "offered") and the
-- most the files allow the rate to be: the same, but for a drain-reduced rate read from
-- statistics only, a lower bound, whose upper end is its rps_hi (nil where the files bound
-- it by nothing: completed / window alone). nil for a point driven by concurrency, or
-- without the figures.
function M.answered_against(p)
  if type(p) ~= "table" or p.load_type ~= "rate" then return nil end
  local pace = M.pace_of(p)
  if pace then
    local ref, offered = M.pace_reference(p, pace)
    return pace.success_rps, ref, offered and "offered" or "sent", pace.success_rps
  end
  local d = M.drain_of(p)
  if d and finite(d.ref_rps) and d.ref_rps > 0 then
    return d.rps, d.ref_rps, d.ref_basis, finite(d.rps_hi) and d.rps_hi or nil
  end
  if finite(p.achieved_rps) and finite(p.offered) and p.offered > 0 then
    return p.achieved_rps, p.offered, "offered", p.achieved_rps
  end
  return nil
end

-- The share of what a rate-based point was sent that its server answered successfully
-- (M.answered_against): the share and the most the files allow it to be. nil as there.
function M.answered_share(p)
  local rps, ref, _, hi = M.answered_against(p)
  if not rps then return nil end
  return rps / ref, hi and hi / ref or nil
end

-- Did n requests sent at rate sent (read over share of their times) fall behind the offered
-- rate, below SATURATION_SHARE of it by more than Poisson arrivals explain (3 / sqrt(share
-- (n - 1)))? (M.pace_reference; M.drain_of, whose stage files' send rate is to be trusted
-- only where it is the offered one: a client behind its schedule sent less than asked for.)
function M.sends_behind(sent, offered, n, share)
  local noise = 3 / math.sqrt(share * (n - 1))
  return sent < offered * math.min(M.SATURATION_SHARE, 1 - noise)
end

-- How the drain-reduced rate is read, as its texts say it.
M.DRAIN_SPAN = "completed / (window - least latency), the harness's rate without the latency every request "
  .. "carries, as the files have no per-request start times"
-- The chance, at most, that a server that kept up drains for as long as a run did past its
-- last request (M.drain_of's queue test) below which the drain is read as a queue.
M.QUEUE_CHANCE = 0.05

-- One stage's drain-reduced rate (x: its record, llmd.runmodel.DRAIN_BASIS) as two bounds,
-- lo and hi (nil where unbounded); nil where its window is no longer than its least latency.
-- Where the least latency L_min is known (per-request latencies, or the file's min) both
-- are completed / (window - L_min). From statistics only (llmd.runmodel.drain_from_stats),
-- the least latency is at most the file's lowest e2e percentile P (L_min <= P), so:
-- * hi = completed / (window - P) >= completed / (window - L_min): a rate it cannot exceed.
--   A shortfall of hi is a shortfall of the drain-reduced rate itself (then, as there, only
--   a queue's evidence makes it saturation); hi alone never says "kept up", as it may
--   overstate a server that fell behind (its queue puts P above L_min).
-- * lo = (completed - below) / (window - P): at least completed - below successes (below:
--   at most that many lie under P) finished between the first request + P and the window's
--   end, so the server answered at lo or faster over that span, which an overloaded server
--   cannot (at most its own rate); or completed / window, the harness's rate (L_min >= 0:
--   at most the drain-reduced rate), where that is higher (P a high percentile). lo
--   reaching the share says "kept up"; a shortfall of lo alone is no saturation: lo can be
--   as low as (1 - q) of the rate of a server that kept up (its P a median: half of it), the
--   bound below the truth that must never read as overload, as completed / window, the old
--   rule, did for long answers.
-- Nothing bounds L_min (no e2e statistic, or none at p5 or below: vLLM's defaults): lo is
-- completed / window, hi unknown (nil): reaching the share still says "kept up" (L_min >= 0),
-- a shortfall is N/A (M.bound_text), never "saturated" from answer length.
-- Where the files give the send span S (inference-perf's load_summary.send_duration), no
-- span of the answers is shorter than S: the last request, sent S after the first, is
-- answered at least L_min after it, and the first answer comes no sooner than L_min after
-- the first request, so window - L_min >= S in any file true to itself; one with
-- window - L_min < S contradicts itself (its window cannot have held these requests), and
-- it is not the files' to say by how much the window is short. So each bound's span is at
-- least S (M.drain_span): the rate is at most completed / S, never above the rate the
-- requests were sent at (sends / S), as no server answers a stage's requests faster than
-- they were sent; lo at most hi. (The answers' true span is at least S, so completed / S is
-- still a rate they did not exceed.)
function M.drain_span(x, d)
  local s = x.send_span_s
  if finite(s) and s > 0 and d < s then return s end
  return d
end
function M.drain_rates(x)
  local span = x.window_s - x.least_latency_s
  if not (finite(span) and span > 0 and finite(x.completed)) then return nil end
  if x.least_kind == "none" then return x.completed / M.drain_span(x, x.window_s), nil end
  local hi = x.completed / M.drain_span(x, span)
  if x.least_kind == "percentile" then
    return math.min(math.max(x.completed - (x.below or 0), x.completed * span / x.window_s, 0) / span, hi), hi
  end
  return hi, hi
end

-- Like for like (audit50 M4): a paced run's throughput (its answers' pace, from per-request
-- start and finish times) against a run whose files give only the drain-reduced rate,
-- completed / (window - least latency), is no comparison of servers: for long requests the
-- drain-reduced rate carries the spread of the latencies the last requests happened to have
-- (window - L_min = send span + L_last - L_min), so the same requests read 4.47 req/s paced
-- and 3.93 drain-reduced (60 s of requests at 4 req/s answered in 16-25 s: python3 over the
-- files; the pace is no excess: those 240 requests went out over 53.1 s, 4.50 req/s, Poisson
-- arrivals ahead of the nominal 4, and a pace is held to its sends' rate, llmd.runmodel.pace),
-- a gap larger than many a difference between servers. Where one run's throughput
-- is paced and the other's drain-reduced, the paced run's is read on the other's basis, from
-- its own figures: each repeat's successes, its window (the harness's duration, the other's
-- window too) and its least latency as the other's files bound it (M.like_basis): their
-- minimum, or their lowest e2e percentile P (the paced run's own P, the same rule: its
-- lower bound, M.drain_rates). Both then carry the same drain, which a difference between
-- them no longer is. The ranked figure only: whether a load kept up is still judged by
-- the pace (the better evidence of a queue); the pace stays in p.rate_like.pace_rps, said
-- beside the figures (llmd.report). The basis of a run: {kind = "min" | "percentile", q
-- (percentile), label, other (the other run's label)}; nil where the two need no change.
function M.like_basis(pa, pb)
  local function basis(points)
    local b
    for _, p in ipairs(points) do
      if p.load_type == "rate" then
        local d = M.drain_of(p)
        local k = M.pace_of(p) and "pace" or d and d.least_kind ~= "none" and "drain" or "other"
        if b and b.kind ~= k then return nil end
        b = b or { kind = k }
        if k == "drain" then
          -- the loosest bound of the least latency among its points (M.drain_of's rule)
          local lk = d.least_kind or "min"
          if lk == "percentile" and (not b.least or b.least == "min" or (d.least_q or 0) > (b.q or 0)) then
            b.least, b.q, b.label = "percentile", d.least_q, d.least_label
          elseif not b.least then
            b.least = "min"
          end
        end
      end
    end
    return b
  end
  local a, b = basis(pa), basis(pb)
  if not (a and b) then return nil, nil end
  local function like(x) return { kind = x.least, q = x.q, label = x.label } end
  if a.kind == "pace" and b.kind == "drain" then return like(b), nil end
  if b.kind == "pace" and a.kind == "drain" then return nil, like(a) end
  return nil, nil
end

-- Each repeat's drain-reduced rate on basis (M.like_basis) from its paced stage's own
-- figures (llmd.runmodel.pace: least_s and the low e2e percentiles; the stage's window,
-- duration_s; its successes); nil where a stage lacks one (a workspace saved before them).
function M.like_rates(stages, basis)
  local rm = require "llmd.runmodel"
  local out = {}
  for _, st in ipairs(stages) do
    local x, v = st.pace, st.metrics and st.metrics.values or {}
    if type(x) ~= "table" or not finite(x.least_s) then return nil end
    local rec
    if basis.kind == "percentile" then
      local pq = finite(basis.q) and x[rm.like_key(basis.q)]
      if not finite(pq) then return nil end
      rec = rm.drain_from_stats(x.succeeded, v.duration_s, { { basis.q, pq, basis.label } })
    else
      rec = rm.drain_from_stats(x.succeeded, v.duration_s, nil, x.least_s)
    end
    local lo = rec and M.drain_rates(rec)
    if not finite(lo) then return nil end
    out[#out + 1] = lo
  end
  return out
end

-- A rate-based point's drain-reduced rate, where its files have no per-request start times
-- (no M.pace_of) but give the window, the completed requests and their least latency
-- (llmd.runmodel.DRAIN_BASIS): completed / (window - L_min). nil: judged by the achieved rate.
-- Why it is sound (checked by a simulation, tests/lua/test_saturation.lua):
-- * The first answer cannot come before the first request + L_min, so window - L_min is at
--   least the span from the first answer to the last: the rate is at most the rate the
--   answers came back over their span, and at most the rate requests were sent (the window
--   is the send span plus at least the last request's own latency, >= L_min).
-- * A server that kept up with latencies all about L (20 s after 60 s of requests) has
--   window = send span + L: the rate is the send rate, where the achieved rate, N / (S + L),
--   reads 75 % of it. The latency's level is gone; its spread is not: the drain past the last
--   request is a latency of the last requests, between L_min and L_max.
-- * Overloaded (offered above the server's rate mu), answers come at mu from the first one,
--   at L_min after the first request, to the last: the rate is about mu.
-- So a rate at 95 % or more of the rate requests were offered kept up (its answers came at
-- least that fast). The offered rate: the rate requests were sent (sends / send span) where
-- inference-perf says they kept to their schedule (no request sent more than 5 % of the span
-- late: a Poisson schedule's own rate, 5 % off the nominal in one run of 600 requests) and
-- that rate is not behind the nominal by more than Poisson noise (M.sends_behind), else
-- the nominal (a client that fell behind its schedule is a load not delivered, as before).
-- A rate below it is a queue, or a spread of the latencies that the last requests happened
-- to carry, or (inference-perf) requests sent slower than offered. Which, from the files:
-- * completed / send span (the rate with no drain at all) short too: not the drain's doing;
-- * inference-perf (stage summaries): a queue when the drain d (window - send span) is one a
--   server that kept up makes with a chance of at most QUEUE_CHANCE: d needs one of the
--   requests sent in the last (L_max - d) s, or the last, to be at least d slow, which for
--   independent latencies has a chance of at most (send rate * (L_max - d) + 1) * the share
--   of latencies >= d (bounded by the percentiles). Under a queue the last requests waited
--   longest, d is about L_max, and the chance about 1 / N (the bound: 1 - the top percentile);
-- * vLLM (latencies in the order sent, no start times): a queue when the last tenth of the
--   requests were slower than latencies in no order would put them, by a chance of about
--   QUEUE_CHANCE at most (a rank-sum test whose z is divided by the square root of the
--   latencies' design effect in send order, their trend taken out: llmd.harness.
--   vllm_benchmark; tests/sim/fixa37_sim.py);
-- * else unknown (.spread): a wrong "saturated" is worse than N/A with why.
-- Files with statistics only (llmd.runmodel.drain_from_stats): rps is the lower bound of
-- M.drain_rates, rps_hi the upper (nil: unknown), least_kind ("min" | "percentile" |
-- "none", the loosest of the repeats'), least_label, least_q, below; a shortfall is read as
-- M.saturation says (the upper bound's, and never a queue's evidence: N/A).
-- {rps, rps_hi, ref_rps, ref_basis ("sent" | "offered"), completed, repeats, sent_rps (completed /
-- send span, where known), chance, chance_kind ("drain" | "trend", where known), drain_s,
-- trend_last, trend_deff (the most of the repeats' design effects), least_s, most_s, late_s
-- (the most a request was sent behind its schedule, where known), achieved_rps (the
-- harness's, p.achieved_rps)}
function M.drain_of(p)
  local xs = p.drain
  if p.load_type ~= "rate" or M.pace_of(p) or type(xs) ~= "table" or #xs == 0 or not finite(p.offered) then
    return nil
  end
  local r = { rps = 0, rps_hi = 0, completed = 0, repeats = #xs, sent_rps = 0, chance = 0,
    achieved_rps = p.harness_rps or p.achieved_rps,
    least_s = math.huge, most_s = -math.huge, ref_rps = 0, ref_basis = "sent" }
  local rank = { min = 1, percentile = 2, none = 3 }
  for _, x in ipairs(xs) do
    local lo, hi = M.drain_rates(x)
    if not lo then return nil end
    r.rps = r.rps + lo / #xs
    if r.rps_hi and hi then r.rps_hi = r.rps_hi + hi / #xs else r.rps_hi = nil end
    -- (files with statistics only: the loosest bound of the repeats' least latency)
    if x.stats_only then
      local k = x.least_kind
      if not r.least_kind or (rank[k] or 3) > rank[r.least_kind] then
        r.least_kind, r.least_label, r.least_q = k, x.least_label, x.least_q
        r.least_why = x.least_why
      end
      r.below = math.max(r.below or 0, x.below or 0)
    end
    r.completed = r.completed + x.completed
    r.least_s, r.most_s = math.min(r.least_s, x.least_latency_s), math.max(r.most_s, x.most_latency_s or -math.huge)
    local sspan = finite(x.send_span_s) and x.send_span_s > 0 and x.send_span_s or nil
    if r.sent_rps and sspan then r.sent_rps = r.sent_rps + x.completed / sspan / #xs else r.sent_rps = nil end
    local send_rate = sspan and finite(x.sends) and x.sends / sspan or nil
    if finite(x.schedule_delay_max_s) then r.late_s = math.max(r.late_s or 0, x.schedule_delay_max_s) end
    if send_rate and finite(x.schedule_delay_max_s) and x.schedule_delay_max_s <= (1 - M.SATURATION_SHARE) * sspan
      and not M.sends_behind(send_rate, p.offered, x.sends, 1) then
      r.ref_rps = r.ref_rps + send_rate / #xs
    else
      r.ref_basis = "offered"
    end
    local c
    if finite(x.trend_chance) then
      c, r.chance_kind, r.trend_last = x.trend_chance, "trend", x.trend_last
      if finite(x.trend_deff) then
        r.trend_deff = math.max(r.trend_deff or 1, x.trend_deff)
        -- (fewer than 100 latencies alike to their neighbours: the bound, not a measure,
        -- llmd.decision.deff_unmeasured)
        if require("llmd.decision").deff_unmeasured(x.completed, x.trend_deff) then r.trend_unmeasured = true end
      end
    elseif finite(x.drain_s) and finite(x.tail_share) and finite(x.most_latency_s) then
      c = math.min(1, ((send_rate or p.offered) * math.max(x.most_latency_s - x.drain_s, 0) + 1) * x.tail_share)
      r.chance_kind, r.drain_s = "drain", math.min(r.drain_s or math.huge, x.drain_s)
    end
    if r.chance and c then r.chance = math.max(r.chance, c) else r.chance = nil end
  end
  if r.ref_basis == "offered" then
    r.ref_rps = p.offered
    -- the nominal rate is no rate the requests went out at where they were sent at random
    -- (x.arrivals: llmd.harness.vllm_benchmark): the relative standard deviation of the mean
    -- of the repeats' send rates, each about 1 / sqrt(shape x (sends - 1))
    local var, said = 0, true
    for _, x in ipairs(xs) do
      local a = x.arrivals
      if type(a) ~= "table" or not (finite(a.shape) and a.shape > 0 and finite(a.sends) and a.sends >= 2) then
        var = nil
        break
      end
      var = var + 1 / (a.shape * (a.sends - 1))
      if not a.said then said = false end
      r.arrival_shape = r.arrival_shape and math.min(r.arrival_shape, a.shape) or a.shape
      -- (what the files leave unsaid of the sends, and what would tell: the harness's words)
      r.arrival_unsaid, r.arrival_tell = r.arrival_unsaid or a.unsaid, r.arrival_tell or a.tell
    end
    if var then r.arrival_sd, r.arrival_said = math.sqrt(var) / #xs, said end
  end
  if not r.chance then r.chance_kind = nil end
  return r
end

-- How many standard deviations of the arrivals' own noise (M.drain_of's arrival_sd) a
-- drain-reduced rate read against the nominal rate may fall short by before the shortfall is
-- more than the arrivals explain (as M.sends_behind reads sends).
M.ARRIVAL_Z = 3
-- The chance at most, that a server that kept up puts its last requests this high among its
-- latencies, below which a queue is read where the shortfall is within the arrivals' noise
-- (M.arrival_noise): there the trend test is the only evidence, and one at QUEUE_CHANCE's
-- level is chance-level once the many points of many runs are read (audit53 F2: p = 0.042 at
-- 7 req/s called a queue where the requests went out at 6.34 and the server kept up).
M.QUEUE_CHANCE_ALONE = 0.001

-- Is a drain-reduced rate read against the nominal offered rate (d: M.drain_of) short of it
-- by no more than the arrivals' own noise (ARRIVAL_Z standard deviations), so that the sends,
-- not the server, may account for the shortfall? rps: another rate read against the nominal
-- one (completed / send span, d.sent_rps), else d.rps. The one rule of every file whose
-- requests went out at random with no send times or schedule to say at what rate: vLLM
-- without --save-detailed, inference-perf's stage files without load_summary.schedule_delay
-- (llmd.harness.*: the stage's drain.arrivals).
function M.arrival_noise(d, rps)
  rps = rps or d.rps
  return d.ref_basis == "offered" and finite(d.arrival_sd) and d.arrival_sd > 0
    and rps >= d.ref_rps * (1 - M.ARRIVAL_Z * d.arrival_sd) or false
end

local function index_list(list)
  local l = {}
  for _, i in ipairs(list) do l[#l + 1] = { point = i } end
  return l
end

-- Is a shortfall of a point's drain-reduced rate (d: M.drain_of of it) no drain's doing:
-- completed / send span short too, or a chance of at most QUEUE_CHANCE that a server that
-- kept up drains as long (or puts its last requests this high among its latencies)? false:
-- it could be the latencies' spread.
function M.drain_queue(d)
  -- (sends short of the nominal rate by what the arrivals' noise explains are no queue's
  -- evidence either: satur54, inference-perf without schedule_delay, 2 req/s sent at 1.81)
  if d.sent_rps and d.sent_rps < M.SATURATION_SHARE * d.ref_rps and not M.arrival_noise(d, d.sent_rps) then
    return true
  end
  -- (a shortfall the arrivals' noise explains: only a trend test beyond doubt, M.arrival_noise)
  return d.chance ~= nil and d.chance <= (M.arrival_noise(d) and M.QUEUE_CHANCE_ALONE or M.QUEUE_CHANCE)
end

-- How files with statistics only bound the least latency (d: M.drain_of), as the texts say
-- it: "its least latency at most the file's e2e p0.1, 15.01 s"; "" where it is known.
local function least_text(d)
  local one = d.repeats == 1
  if d.least_kind == "min" then
    return one and (", the least latency the file's min, %.4g s"):format(d.least_s)
      or ", the least latency each file's min"
  elseif d.least_kind == "percentile" then
    return (", the least latency at most %s e2e %s%s"):format(one and "the file's" or "each file's",
      d.least_label, one and (", %.4g s"):format(d.least_s) or "")
  end
  return ""
end

-- "the drain-reduced rate was 9.613 req/s (80.1 % of the 12 req/s requests were sent at,
-- below 95 %; completed / (window - least latency), ...)"; where the files bound the least
-- latency only by a percentile (d.rps_hi above d.rps, M.drain_rates), "at most" its upper
-- bound, the one a shortfall is read from.
-- A share (in %) said beside "below 95 %" (M.SATURATION_SHARE): with one decimal, or as many
-- more as keep it below the share, so that 94.975 % never prints as "95.0 %, below 95 %"
-- (audit47 F5); at most 4.
function M.below_share_text(x)
  local lim = M.SATURATION_SHARE * 100
  if not (type(x) == "number" and x < lim) then return ("%.1f"):format(x) end
  for d = 1, 4 do
    local t = ("%." .. d .. "f"):format(x)
    if tonumber(t) < lim then return t end
  end
  return ("%.4f"):format(x)
end

local function drain_rate_text(d, only)
  local hi = d.rps_hi and d.rps_hi > d.rps
  local v = hi and d.rps_hi or d.rps
  return ("the drain-reduced rate was %s%.4g req/s (%s %% of %s, below %d %%; %s%s)"):format(
    hi and "at most " or only and "only " or "", v, M.below_share_text(v / d.ref_rps * 100), d.ref_basis == "sent"
      and ("the %.4g req/s requests were sent at, on their schedule"):format(d.ref_rps) or "the offered",
    M.SATURATION_SHARE * 100, M.DRAIN_SPAN, least_text(d))
end

-- Why a point's saturation is unknown where its files, with statistics only, bound its
-- drain-reduced rate too loosely (M.drain_rates): the lower bound below SATURATION_SHARE of
-- the reference, the upper one not (i: its index).
function M.bound_text(p, d, i)
  local st = p.stages and #p.stages == 1 and (" (stage %d)"):format(p.stages[1]) or ""
  local share = M.SATURATION_SHARE * 100
  if not d.rps_hi and d.least_why then
    -- a window whose start the files do not place at the first request sent (guidellm's
    -- after a warmup, or a benchmark report of guidellm, which does not say): its least
    -- latency cannot be taken out, so completed / window is all there is (audit53 F1)
    return ("point %d%s: at %g req/s offered completed / window was %.4g req/s (%s %% of the offered, below %d "
      .. "%%), but that window also counts the last requests' own latency, and %s: long answers alone could put it "
      .. "there, so whether the server kept up is unknown"):format(i, st, p.offered, d.rps,
        M.below_share_text(d.rps / d.ref_rps * 100), share, d.least_why)
  end
  if not d.rps_hi then
    -- nothing bounds the least latency (least_kind "none"): only completed / window, which
    -- long answers alone put below the share
    return ("point %d%s: at %g req/s offered completed / window was %.4g req/s (%s %% of the offered, below %d "
      .. "%%), but that window also counts the last requests' own latency, and the files give no least latency to "
      .. "take out (%s), so long answers alone could put it there: whether the server kept up is unknown; vLLM's "
      .. "--percentile-metrics with e2el and --metric-percentiles with 0.1 (or --save-detailed) would tell")
      :format(i, st, p.offered, d.rps, M.below_share_text(d.rps / d.ref_rps * 100), share, d.least_label
        and ("no e2e percentile at p5 or below, only from %s up"):format(d.least_label) or "no e2e latency statistic")
  end
  return ("point %d%s: at %g req/s offered the drain-reduced rate (%s) was between %.4g and %.4g req/s (%.1f to "
    .. "%.1f %% of the offered), as the files bound the least latency only by their e2e %s%s, below which up to "
    .. "%d of %d successes may lie: whether it reached %d %% is unknown; the files' minimum e2e latency, a lower "
    .. "percentile (vLLM: --metric-percentiles with 0.1) or per-request latencies would tell"):format(i, st,
    p.offered, M.DRAIN_SPAN, d.rps, d.rps_hi, d.rps / d.ref_rps * 100, d.rps_hi / d.ref_rps * 100, d.least_label,
    d.repeats == 1 and (" (%.4g s)"):format(d.least_s) or "", d.below or 0, math.floor(d.completed / d.repeats),
    share)
end

-- How likely a server that kept up is to look like d (M.drain_of) did, as the texts say it.
local function chance_text(d, bound)
  if d.chance_kind == "trend" then
    -- (their dependence in send order allowed for: llmd.harness.vllm_benchmark)
    return ("latencies in no particular order%s rank the last %d requests this high with a chance of %.2g"):format(
      d.trend_unmeasured and (", as alike to their neighbours in send order as these are, too few (fewer than %d) "
        .. "to measure how much, so taken as all alike,"):format(require("llmd.decision").DEFF_MIN_N)
      or d.trend_deff and d.trend_deff > 1 and (", as alike as these are to their neighbours in send order (a design "
        .. "effect of %.3g),"):format(d.trend_deff) or "", d.trend_last, d.chance)
  end
  return ("a server that kept up drains as long as this (%.4g s past the last request, its latencies %.4g to %.4g s) "
    .. "with a chance of %s%.2g"):format(d.drain_s, d.least_s, d.most_s, bound and "at most " or "", d.chance)
end

-- The reason a rate-based point saturated by its drain-reduced rate (d: M.drain_of(p)).
function M.drain_text(p, d)
  local why
  if d.sent_rps and d.sent_rps < M.SATURATION_SHARE * d.ref_rps then
    why = ("even completed / send span, with no drain at all, was only %.4g req/s (%.1f %%): %s"):format(d.sent_rps,
      d.sent_rps / d.ref_rps * 100, d.late_s and d.late_s > 0 and ("requests were sent slower than offered, up to "
        .. "%.4g s behind their schedule"):format(d.late_s) or "requests were sent, or answered, slower than offered")
  else
    why = "a queue: the last requests were among the slowest; " .. chance_text(d, true)
  end
  return ("at %g req/s offered %s; %s"):format(p.offered, drain_rate_text(d, true), why)
end

-- Why a point's saturation is unknown where its drain-reduced rate fell short by what could
-- be the latencies' spread (i: its index).
local function arrival_text(d)
  if not M.arrival_noise(d) then return "" end
  local short = (1 - d.rps / d.ref_rps) * 100
  return ("; the files hold no send times, so the rate the requests went out at is known only as the nominal, which "
    .. "%s arrivals%s miss by %.1f %% (one standard deviation) by chance alone, and %.1f %% short is within %d "
    .. "of them: the sends, not the server, may account for it"):format(
    d.arrival_shape == 1 and "Poisson" or ("gamma-spaced (burstiness %g)"):format(d.arrival_shape),
    d.arrival_said and "" or (" (%s)"):format(d.arrival_unsaid
      or "the file states no burstiness: vLLM's Poisson before --burstiness"),
    d.arrival_sd * 100, short, M.ARRIVAL_Z)
end

function M.spread_text(p, d, i)
  local st = p.stages and #p.stages == 1 and (" (stage %d)"):format(p.stages[1]) or ""
  local noise = arrival_text(d)
  if noise ~= "" and not d.least_kind then
    return ("point %d%s: at %g req/s offered %s%s; %s, above %g, the level a queue's evidence needs where the "
      .. "arrivals explain the shortfall, so whether the server kept up there is unknown; %s would tell"):format(i,
      st, p.offered, drain_rate_text(d), noise,
      d.chance and chance_text(d) or "the files do not say how the latencies ran in send order",
      M.QUEUE_CHANCE_ALONE, d.arrival_tell or "per-request start times (vLLM's --save-detailed)")
  end
  if d.least_kind then
    -- statistics only: no order of the latencies, no send times, no most latency
    return ("point %d%s: at %g req/s offered %s, but files with latency statistics only cannot tell a queue from "
      .. "the latencies' spread (they hold no order of the latencies and no send times), so whether the server "
      .. "kept up there is unknown; per-request latencies (vLLM's --save-detailed, inference-perf's per-request "
      .. "file) would tell"):format(i, st, p.offered, drain_rate_text(d) .. noise)
  end
  return ("point %d%s: at %g req/s offered %s, but the files cannot tell a queue from the latencies' spread (%.4g to "
    .. "%.4g s): %s, above %g, so whether the server kept up there is unknown; per-request start times (inference-"
    .. "perf's per-request file, vLLM's --save-detailed) would tell"):format(i, st, p.offered, drain_rate_text(d),
    d.least_s, d.most_s, d.chance and chance_text(d) or "the files do not say how long it drained past the last "
    .. "request", M.QUEUE_CHANCE)
end

-- Where the achieved rate alone (the rule without per-request data) would have called
-- points[1..upto] saturated and the drain-reduced rate did not: said, so that the report's
-- verdict is not read against its ladder's achieved rates without why. "" where none.
function M.old_rule_note(points, upto)
  local list = {}
  for j = 1, upto do
    local q = points[j]
    local d = M.drain_of(q)
    local a = d and d.achieved_rps
    if d and d.rps >= M.SATURATION_SHARE * d.ref_rps and finite(a) and a < M.SATURATION_SHARE * q.offered then
      list[#list + 1] = ("%d (%.1f %%)"):format(j, a / q.offered * 100)
    end
  end
  if #list == 0 then return "" end
  return ("; the achieved rate, first request to last answer, was below %d %% of the offered at load point%s %s, "
    .. "but it also counts the last requests' own latency (the drain): judged by the drain-reduced rate, %s kept up")
    :format(M.SATURATION_SHARE * 100, #list == 1 and "" or "s", table.concat(list, ", "),
      #list == 1 and "it" or "they")
end

-- The points the saturation search could not judge on their own that a higher load, which
-- clearly kept up, settled (M.saturation's resolved: {{point =, offered =, by =,
-- by_offered =}, ...}), as the reasons say it: "; load point 3 (30 req/s offered) could not
-- be judged on its own, but load point 4, at 40 req/s offered, kept up with its successful
-- requests alone, so the server kept up with the lower load too". "" where none.
function M.resolved_note(points, resolved)
  local parts = {}
  for _, r in ipairs(resolved or {}) do
    parts[#parts + 1] = ("load point %d (%g req/s offered) could not be judged on its own, but load point %d, at %g "
      .. "req/s offered, kept up with its successful requests alone, so the server kept up with the lower load too")
      :format(r.point, r.offered, r.by, r.by_offered)
  end
  if #parts == 0 or not points then return "" end
  return "; " .. table.concat(parts, "; ")
end

-- Where a saturated run's limit lies when a load below its saturation point could not be
-- judged (s: M.saturation with unjudged = {point =, points =, offered =, before_rps =,
-- reason =}): "load point 5 (10 req/s offered) could not be judged; the max sustained
-- throughput lies between 7.936 req/s, the most up to load point 4, the last known to be
-- sustained, and 9.559 req/s, the most at any load". why: with the unjudged point's reason
-- (the saturation's own reason); else the short form beside a figure. nil without one.
function M.unjudged_note(s, why)
  local u = type(s) == "table" and s.unjudged
  if type(u) ~= "table" then return nil end
  local rate = function(v) return metrics.format("throughput_req_s", v) end
  local which = #u.points == 1 and ("load point %d (%g req/s offered)"):format(u.point, u.offered)
    or points_text(index_list(u.points))
  if not why then
    return ("%s could not be judged, load point %d saturated"):format(which, s.point)
  end
  return ("%s could not be judged (%s); load point %d clearly saturated, so the max sustained throughput lies "
    .. "between %s, the most up to load point %d, the last known to be sustained, and %s, the most at any load")
    :format(which, u.reason, s.point, rate(s.max_sustained_rps), s.sustained_upto, rate(s.ceiling_rps))
end

-- "every load point kept up: ..." where some point is judged by its drain-reduced rate
-- (paced, drained: the indices judged by the pace and by the drain-reduced rate; skip: a
-- set of indices settled by a higher load instead, M.resolved_note, left out of both).
function M.kept_up_text(points, paced, drained, skip)
  skip = skip or {}
  local share = M.SATURATION_SHARE * 100
  local parts, other = {}, {}
  local judged = {}
  local function keep(list)
    local l = {}
    for _, i in ipairs(list) do if not skip[i] then l[#l + 1] = i; judged[i] = true end end
    return l
  end
  paced, drained = keep(paced), keep(drained)
  for i = 1, #points do if not judged[i] and not skip[i] then other[#other + 1] = i end end
  local whole = #drained == #points
  if #paced > 0 then
    parts[#parts + 1] = ("answers came back at %d %% or more of the rate requests were sent (%s) at %s"):format(share,
      M.PACE_SPAN, points_text(index_list(paced)))
  end
  if #drained > 0 then
    -- (where files with statistics only bound the least latency by a percentile P, the rate's
    -- lower bound: M.drain_rates)
    local bounded, unbounded
    for _, i in ipairs(drained) do
      local d = M.drain_of(points[i])
      if d and d.least_kind == "percentile" then bounded = d end
      if d and d.least_kind == "none" then unbounded = true end
    end
    parts[#parts + 1] = ("the drain-reduced rate was %d %% or more of the rate requests were offered at (%s%s%s)%s")
      :format(share, M.DRAIN_SPAN, bounded and ("; where the files bound the least latency only by their e2e %s, P, "
        .. "its lower bound: (completed - the successes that may lie below P) / (window - P), or completed / window "
        .. "where higher"):format(bounded.least_label)
        or "", unbounded and "; where the files give no least latency, completed / window, a lower bound" or "",
      whole and "" or " at " .. points_text(index_list(drained)))
  end
  if #other > 0 then
    parts[#parts + 1] = ("the achieved rate was at least %d %% of the offered at %s"):format(share,
      points_text(index_list(other)))
  end
  return "every load point kept up: " .. table.concat(parts, "; ")
end

-- Did a rate-based load point's successful answers fall short of its load (short), and did
-- its answers with the failed ones counted keep up (answered_kept_up)? A failed request was
-- answered, not left unsent or late: where the failed ones make up the shortfall (the
-- answered rate, achieved / (1 - error share), keeps up), saturation_of reads the cause as
-- failures, not overload. Returns short, answered_kept_up, answered (req/s, or nil), and the
-- pace and drain it was read by (M.pace_of, M.drain_of; nil where not), and the answers'
-- pace without the timed-out requests (req/s; nil without a pace).
local function shortfall(p)
  local err = p.values and p.values.error_rate_pct
  -- a request that timed out was not answered: the client gave up waiting for it
  -- (M.failure_cause), so only the other failures count with the successes as answered
  -- (t: the timed-out share of the requests, in %; none timed out: every failure answered)
  local fc = M.failure_cause(p)
  local t = fc and fc.timeout_pct or 0
  -- (every request failed: answered where no more than the share's complement timed out)
  local all_failed = err and err >= 100 and t <= (1 - M.SATURATION_SHARE) * 100
  local answered = err and err > 0 and err < 100 and p.achieved_rps * (100 - t) / (100 - err) or nil
  local answered_kept_up = err and err > 0 and (err >= 100 and all_failed
    or err < 100 and answered >= M.SATURATION_SHARE * p.offered)
  local short = p.achieved_rps < M.SATURATION_SHARE * p.offered
  local pace = M.pace_of(p)
  local answer_rps
  if pace then
    -- per-request data: the answers against the sends between the first answer and the
    -- last request, a span that carries no request's own latency (M.pace_of)
    -- (against the offered rate where the sends fell behind it: M.pace_reference); the
    -- failures' share of the answers' pace taken as theirs of the requests, less the
    -- timed-out ones
    local ref = M.pace_reference(p, pace)
    short = pace.success_rps < M.SATURATION_SHARE * ref
    local failed_rps = pace.answer_rps - pace.success_rps
    answer_rps = err and err > 0 and pace.success_rps + failed_rps * (err - t) / err or pace.answer_rps
    answered_kept_up = err and err > 0 and (err >= 100 and all_failed
      or err < 100 and answer_rps >= M.SATURATION_SHARE * ref)
  end
  local drain = M.drain_of(p)
  if drain then
    -- no per-request start times: the drain-reduced rate (M.drain_of), where the
    -- achieved rate's window also counts the last requests' own latency
    short = drain.rps < M.SATURATION_SHARE * drain.ref_rps
    answered_kept_up = err and err > 0 and (err >= 100 and all_failed
      or err < 100 and drain.rps * (100 - t) / (100 - err) >= M.SATURATION_SHARE * drain.ref_rps)
  end
  return short, answered_kept_up, answered, pace, drain, answer_rps
end

-- Where the load curve saturates: {point =, offered =, achieved_rps =, max_sustained_rps =,
-- reason =} or {none = true, max_sustained_rps =, near = {indices}, reason =} (near: rate
-- loads, points whose repeats' 95 % interval of the achieved rate reaches below the share). Rate-based loads: the first
-- point whose achieved rate falls below SATURATION_SHARE of its offered rate; concurrency:
-- the first point whose throughput grows by less than PLATEAU_GROWTH over the previous
-- one while end-to-end latency (p50, else TTFT p50) keeps growing. Max sustained
-- throughput: the highest achieved rate before the saturation point, and before the first
-- point whose shortfall was failed requests where one lies below it (that point's achieved
-- rate counts only the requests that succeeded: a load the run did not sustain). ceiling_rps
-- (saturated): the highest achieved rate at any load, saturated ones included, a crashed
-- repeat left out (M.ceiling; ceiling_left_out says where it set the ceiling). The
-- server's true sustainable rate lies between the two: the load points' spacing, not the
-- server, puts max_sustained_rps where it is within that range. A rate-based point whose
-- shortfall is made up by failed requests (answered, with an error) is no saturation: a
-- failure of the SLO (the error rate), not overload, so the search goes on past it to the
-- first point that is overloaded, and that result carries failures = the first such point's
-- {point =, offered =, failed_pct =, reason =}. When no later point is overloaded, the
-- result is that first failures point itself, with cause = "failures" and failed_pct: the
-- run stopped delivering there, but from errors, not overload (M.point_saturated and the
-- capacity treat it as not saturated). Failures are an error-rate matter: a failures point
-- is one that kept up (its answered rate) but failed more requests than the error-rate
-- limit (M.error_limit(opts): opts.slo's error_rate_pct, else FAILURES_PCT; M.failing), with
-- limit = that limit; a load whose failed requests stay within it was sustained, and is
-- listed in failed_within ({point =, offered =, failed_pct =, short = its successful rate
-- alone fell short, answered_rps =}, with limit) for the texts to say beside the figure
-- (M.sustained_failure_notes).
-- Where a one-run failures point's share of failed requests is above the error-rate limit
-- (M.failing) as measured, but its exact 95 % interval (M.error_ci: Clopper-Pearson on the
-- failures' effective sample) reaches down within it: {lo, hi} (in %), said beside the cut
-- (", but its exact 95 % interval, 3.079 % to 8.517 %, leaves it unclear whether it stays within
-- the 5 % failure limit", M.failures_unclear_text); nil where it fails for certain, or is repeated
-- (its repeats' spread is what M.crashed_repeats reads), or its counts are unknown. fixb52:
-- the default 5 % limit compared as an exact number read 16 failures of 300 as failed for
-- certain.
function M.failures_unclear(p, opts)
  if (p.repeats or 1) >= 2 then return nil end
  local lo, hi = M.error_ci(p)
  local limit = M.error_limit(opts).pct
  if not (lo and limit) or lo > limit then return nil end
  return { lo = lo, hi = hi }
end

-- The words of M.failures_unclear's u beside the failures point of limit l (M.error_limit's).
function M.failures_unclear_text(u, l)
  if type(u) ~= "table" then return "" end
  return (" its exact 95 %% interval, %.4g %% to %.4g %%, leaves it unclear whether it stays within %s"):format(u.lo,
    u.hi,
    l and not l.given and ("the %g %% failure limit"):format(l.pct) or (l and l.text or "the error-rate limit"))
end

local function saturation_of(points, opts)
  if #points == 0 then return { none = true, reason = "no measured load point" } end
  local kind = points[1].load_type
  for _, p in ipairs(points) do
    if p.load_type ~= kind then kind = "mixed" end
  end
  -- a point whose file disagrees with itself about its requests (cut short: the Data
  -- checks say so) is no measurement of a load: nothing is read from the curve
  for i, p in ipairs(points) do
    if p.count_check then
      return { none = true, unknown = true, count_check = true, reason = ("point %d (stage %d): %s, so its file "
        .. "disagrees with itself about its requests and its load is unknown; see the Data checks"):format(i,
        p.count_check.stage, p.count_check.text) }
    end
  end
  local function max_before(i) return max_achieved(points, i - 1) end
  -- the ceiling (the most at any load), a crashed repeat left out (M.ceiling)
  local ceil_rps, _, ceil_out = M.ceiling(points, opts)
  if kind == "rate" then
    local failures -- the first point that failed more requests than the limit (cause = "failures")
    local within = {} -- sustained points that failed requests, within the limit
    -- a point that cannot be judged (too few requests, a shortfall the latencies' spread or
    -- the pace's scatter may explain) does not end the search: a later point, at a higher
    -- load, that clearly kept up (its successful requests alone at 95 % or more) shows the
    -- server kept up with this lower one too (pending: the first such point's unknown
    -- result, more: the unjudged points above it, resolved: those a later point settled).
    -- Where no later point settles it, a later point that clearly saturated bounds the limit
    -- (M.unjudged_note): it lies between the last load known to be sustained and the most the
    -- run achieved at any load, the unjudged points in between widening that range; with no
    -- such point (or no load known to be sustained below it) the result stays unknown: the
    -- max sustained throughput could lie there, or anywhere above.
    local pending, resolved = nil, {}
    local function unjudged(i, res)
      if not pending then
        res.sustained_upto = i - 1
        pending = { point = i, offered = points[i].offered, result = res, more = {} }
      else
        pending.more[#pending.more + 1] = i
      end
    end
    for i, p in ipairs(points) do
      if not p.achieved_rps then
        -- (the point's stage, as the Data checks name it: "point 1 (stage 3)")
        -- (the loads below it, or below an unjudged one under it, are the ones known to be
        -- sustained: sustained_upto, as for a point that could not be judged, so that no test
        -- or whole-run figure reads it, or any load above it, as sustained)
        local st = p.stages and #p.stages == 1 and (" (stage %d)"):format(p.stages[1]) or ""
        return { none = true, unknown = true, sustained_upto = pending and pending.point - 1 or i - 1,
          reason = ("point %d%s: achieved rate unknown%s"):format(i, st,
            p.na.throughput_req_s and (" (" .. p.na.throughput_req_s .. ")") or "") }
      end
      if p.overshoot then -- neither "saturated" nor "never saturated" can be read from such a point
        return { none = true, unknown = true, sustained_upto = pending and pending.point - 1 or i - 1,
          reason = ("point %d (stage %d): %s"):format(i, p.overshoot.stage, p.overshoot.text) }
      end
      local err = p.values and p.values.error_rate_pct
      local short, answered_kept_up, answered, pace, drain, answer_rps = shortfall(p)
      local thin = short and too_thin(p, i, answered_kept_up)
      if thin then
        unjudged(i, thin_result(thin))
        goto next_point
      end
      -- failures are an error-rate matter (M.failing: the error-rate SLO's limit, else
      -- FAILURES_PCT): a load that kept up but failed more than that is one the run did not
      -- sustain (a failures point); within it, the load was sustained, its share said beside
      -- the figure (failed_within), never "never saturated" alone
      -- what its failures were (M.failure_cause): more timed out than the limit allows is the
      -- overload itself (tout), read below as saturated, never as failures
      local fc, tout = M.failure_cause(p), M.timed_out(p, opts)
      local over = (answered_kept_up or not short) and not tout and M.failing(p, opts) or nil
      if over and not failures then
        -- a failure of the SLO, not saturation: the search goes on past it (a higher load
        -- may still be overloaded); the first such point is kept for the texts. Each
        -- repeat's share of failed requests: one crashed repeat among clean ones is not the
        -- mean spread over all of them
        local ci = p.ci and p.ci.error_rate_pct
        local how = short and ("only %.4g req/s succeeded (%.1f %%), but with the failed ones %s req/s were answered, "
          .. "so the shortfall is %s"):format(p.achieved_rps, p.achieved_rps / p.offered * 100,
          answered and ("%.4g"):format(answered) or "all offered", M.failures_cause_text(fc))
          or ("%.4g req/s succeeded (%.1f %%): it kept up, but failed them"):format(p.achieved_rps,
          p.achieved_rps / p.offered * 100)
        if pace then
          how = short and ("successful answers came back at only %.4g req/s against requests sent at %.4g (%s), "
            .. "but with the failed ones at %.4g, so the shortfall is %s"):format(
            pace.success_rps, pace.send_rps, M.PACE_SPAN, answer_rps, M.failures_cause_text(fc))
            or ("successful answers came back at %.4g req/s against requests sent at %.4g (%s): it kept up, but "
            .. "failed them"):format(pace.success_rps, pace.send_rps, M.PACE_SPAN)
        end
        failures = { point = i, offered = p.offered, achieved_rps = p.achieved_rps,
          max_sustained_rps = max_before(i), ceiling_rps = ceil_rps, ceiling_left_out = ceil_out, cause = "failures",
          failed_pct = err, failure_cause = fc, repeats_failed_pct = ci and ci.samples, limit = M.error_limit(opts),
          unclear = M.failures_unclear(p, opts),
          reason = ("at %g req/s offered %.4g %% of the requests failed, more than %s: %s"):format(p.offered, err,
            M.error_limit(opts).text, how) }
      elseif short and not answered_kept_up and drain and not tout
        and not (drain.rps_hi and drain.rps_hi < M.SATURATION_SHARE * drain.ref_rps) then
        -- files with statistics only, whose least latency only a percentile bounds: the
        -- rate's lower bound fell short, its upper bound did not (M.drain_rates): unknown,
        -- never "saturated" from a bound below the truth. Like any point that cannot be
        -- judged it does not end the search: a higher load whose lower bound reaches the
        -- share kept up, and settles this one (resolved)
        unjudged(i, { none = true, unknown = true, bound = true, basis = "drain", reason = M.bound_text(p, drain, i) })
        goto next_point
      elseif short and not answered_kept_up and drain and not tout and not M.drain_queue(drain) then
        -- short only by a drain that a server that kept up could have made (M.drain_of):
        -- unknown, never a wrong "saturated"
        unjudged(i, { none = true, unknown = true, spread = true, basis = "drain",
          reason = M.spread_text(p, drain, i) })
        goto next_point
      elseif short and not answered_kept_up and pace and not tout and (pace.open_loop or pace.cap_unknown)
        and select(2, M.pace_reference(p, pace)) and pace.success_rps >= M.SATURATION_SHARE * pace.send_rps then
        -- sends behind the offered rate (by more than Poisson arrivals explain, M.sends_behind)
        -- from a client with no concurrency cap, whose answers kept pace with them: the server
        -- answered all it was sent, so the shortfall is the client's, or its arrivals' chance
        -- (fixi49: 5 repeats at 6 req/s, pooled sends 5.476, 3.3 standard deviations low, slope
        -- 1.000), not an overload; unknown, and a higher load that clearly kept up settles it.
        -- Where the file does not say whether the client had a cap (cap_unknown: a vLLM file
        -- without max_concurrency), the sends may have been held back by one (the server's
        -- doing) or not (the client's): unknown too, the reason says why, rather than a
        -- saturation that rests on a cap no file states (fixj50)
        local client = pace.open_loop and "the client sent on its own schedule, with no concurrency cap holding it "
          .. "back, so the load asked for was not delivered" or ("whether a concurrency cap of the client held the "
          .. "sends back is unknown (%s): a cap reached would have held them back as the answers slowed (the server's "
          .. "doing), else they fell behind on the client's own schedule, so the load asked for may not have been "
          .. "delivered"):format(pace.cap_unknown)
        unjudged(i, { none = true, unknown = true, sends = true, cap_unknown = pace.cap_unknown and true or nil,
          basis = "pace",
          reason = ("at load point %d (%g req/s offered) requests went out at only %.4g req/s (%s %% of the "
            .. "offered, below %d %% by more than Poisson arrivals explain), but answers came back at %.4g req/s, "
            .. "%.1f %% of the sends (%s): %s, and whether the server sustains it is not shown"):format(i,
            p.offered, pace.send_rps, M.below_share_text(pace.send_rps / p.offered * 100), M.SATURATION_SHARE * 100,
            pace.success_rps, pace.success_rps / pace.send_rps * 100, M.PACE_SPAN, client) })
        goto next_point
      elseif short and not answered_kept_up or tout then
        -- (tout: more timed out than the limit allows, the overload itself, whatever the rate)
        -- the answers' pace is a slope through scattered finish times (llmd.runmodel.pace):
        -- a shortfall within 2 standard errors of it may be that scatter, not a queue
        local ref = pace and M.pace_reference(p, pace)
        if pace and not tout
          and (pace.unbounded or pace.success_hi_rps and pace.success_hi_rps >= M.SATURATION_SHARE * ref) then
          -- (what is uncertain is whether the shortfall passes the margin, not whether a queue
          -- grows: audit47 F5, 600 requests whose pace's upper end was 95.3 % of the sends, its
          -- slope's lower end 1.05, read "too few requests ... may be that scatter, not a queue";
          -- the call stays unjudged, as the rule asks a shortfall beyond 2 standard errors)
          local r = thin_result(("at load point %d (%g req/s offered) answers came back at %.4g req/s against %.4g "
            .. "(%s %%, below %d %%), but the scatter of its requests' latencies about that pace allows %s within 2 "
            .. "standard errors, so whether the shortfall passes the %d %% margin is uncertain"):format(i, p.offered,
            pace.success_rps, ref, M.below_share_text(pace.success_rps / ref * 100), M.SATURATION_SHARE * 100,
            pace.unbounded and "any rate" or ("up to %.4g req/s, %.1f %%,"):format(pace.success_hi_rps,
              pace.success_hi_rps / ref * 100), math.floor((1 - M.SATURATION_SHARE) * 100 + 0.5)))
          r.reason = r.reason:gsub("^too few requests to judge saturation: ", "saturation not judged: ")
          unjudged(i, r)
          goto next_point
        end
        -- an unjudged point below this saturated one (and no failures point below it): the
        -- limit lies between the loads below the unjudged point, known to be sustained, and
        -- the most achieved at any load; unknown where no load below it is known sustained
        local open = pending and not (failures and failures.point < pending.point) and pending or nil
        if open and open.point == 1 then return open.result end
        -- max sustained: before the first load it did not sustain, this one or a failures
        -- point below it (its achieved rate counts only the requests that succeeded), or
        -- the first unjudged point
        local cut = open and open.point or failures and failures.point or i
        local unjudged_at
        if open then
          unjudged_at = { point = open.point, offered = open.offered, points = json.array { open.point },
            before_rps = max_before(i), reason = open.result.reason }
          for _, j in ipairs(open.more) do unjudged_at.points[#unjudged_at.points + 1] = j end
        end
        local res = { point = i, offered = p.offered, achieved_rps = p.achieved_rps,
          max_sustained_rps = max_before(cut), sustained_upto = open and open.point - 1 or nil,
          unjudged = unjudged_at,
          ceiling_rps = ceil_rps, ceiling_left_out = ceil_out, failures = failures,
          failed_within = #within > 0 and within or nil, limit = #within > 0 and M.error_limit(opts) or nil,
          basis = pace and "pace" or drain and "drain" or "achieved",
          cause = tout and "timeouts" or nil, timed_out_pct = tout and tout.timeout_pct or nil,
          reason = (not short and ("at %g req/s offered"):format(p.offered)
            or pace and select(2, M.pace_reference(p, pace)) and ("at %g req/s offered requests went out at "
            .. "only %.4g req/s and answers came back at %.4g (%s %% of the offered, below %d %%; %s): the sends "
            .. "fell behind the offered rate, by more than Poisson arrivals explain, so the load asked for was not "
            .. "sustained, however the answers kept pace with the sends"):format(p.offered, pace.send_rps,
            pace.success_rps, M.below_share_text(pace.success_rps / p.offered * 100), M.SATURATION_SHARE * 100,
            M.PACE_SPAN)
            or pace and ("at %g req/s offered answers came back at only %.4g req/s against requests sent at "
            .. "%.4g (%s %%, below %d %%; %s)"):format(p.offered, pace.success_rps, pace.send_rps,
            M.below_share_text(pace.success_rps / pace.send_rps * 100), M.SATURATION_SHARE * 100, M.PACE_SPAN)
            or drain and M.drain_text(p, drain)
            or ("at %g req/s offered only %.4g req/s were achieved (%s %%, below %d %%)"):format(p.offered,
            p.achieved_rps, M.below_share_text(p.achieved_rps / p.offered * 100), M.SATURATION_SHARE * 100))
            .. (tout and ("%s%.4g %% of the requests timed out, more than %s: %s"):format(short and "; " or " ",
              tout.timeout_pct, M.error_limit(opts).text, M.TIMEOUT_TEXT)
              -- (fewer, within the limit: never answered, so they made up none of the shortfall)
              or fc and fc.timeout_pct > 0 and ("; %.4g %% of the requests timed out (never answered, so not "
              .. "counted with the answers)"):format(fc.timeout_pct) or "")
            .. (failures and ("; the shortfall at load point %d (%g req/s offered), below it, was %s"):format(
              failures.point, failures.offered, M.failures_cause_text(failures.failure_cause,
              ("failed requests (%.4g %% of them failed)"):format(failures.failed_pct))) or "")
            .. M.old_rule_note(points, i - 1) .. M.resolved_note(points, resolved),
          resolved = #resolved > 0 and resolved or nil }
        if unjudged_at then res.reason = res.reason .. "; " .. M.unjudged_note(res, true) end
        return res
      elseif not failures and finite(err) and err > 0 then
        -- sustained, with failed requests within the limit: said beside the figure
        -- (each repeat's share too: a mean within the limit can be one crashed repeat's)
        local ci = p.ci and p.ci.error_rate_pct
        within[#within + 1] = { point = i, offered = p.offered, failed_pct = err, short = short or nil,
          answered_rps = short and answered or nil, repeats_failed_pct = ci and ci.samples, failure_cause = fc }
      end
      -- clearly kept up (its successful requests alone): settles the unjudged point below
      -- (and every unjudged point between the two)
      if pending and not short then
        resolved[#resolved + 1] = { point = pending.point, offered = pending.offered, by = i, by_offered = p.offered }
        for _, j in ipairs(pending.more) do
          resolved[#resolved + 1] = { point = j, offered = points[j].offered, by = i, by_offered = p.offered }
        end
        pending = nil
      end
      ::next_point::
    end
    -- an unjudged point no higher load settled: unknown (where no failures point below it
    -- already ends the loads sustained)
    if pending and not (failures and failures.point < pending.point) then return pending.result end
    -- no overload: a run cut by failed requests (cause = "failures") is said as such
    if failures then
      failures.failed_within = #within > 0 and within or nil
      if #resolved > 0 then
        failures.resolved = resolved
        failures.reason = failures.reason .. M.resolved_note(points, resolved)
      end
      return failures
    end
    -- by the means; where repeats give an interval whose lower end is below the share,
    -- that point may have saturated: listed, so that "never saturated" is not said alone
    -- (a point whose shortfall is its failed requests, within the limit, is short by them,
    -- not by a spread of its repeats: its answered rate kept up)
    local near, answered_at = {}, {}
    for _, w in ipairs(within) do if w.short then answered_at[#answered_at + 1] = w end end
    local paced, drained, skip = {}, {}, {}
    local function drained_by(p) return M.drain_of(p) ~= nil end
    for i, p in ipairs(points) do
      if M.pace_of(p) then paced[#paced + 1] = i elseif drained_by(p) then drained[#drained + 1] = i end
    end
    for _, r in ipairs(resolved) do skip[r.point] = true end
    for _, p in ipairs(points) do
      local c = p.ci and p.ci.throughput_req_s
      -- (a point judged by its pace pools its repeats' answers and sends: their achieved
      -- rates' interval carries each window's drain, which the pace leaves out; likewise
      -- the drain-reduced rate; not where nothing bounds the least latency: that rate is
      -- completed / window, the harness's, its repeats' interval the one to read)
      local d = drained_by(p) and M.drain_of(p)
      if M.pace_of(p) or d and d.least_kind ~= "none" then c = nil end
      local by_failures = false
      for _, w in ipairs(answered_at) do if points[w.point] == p then by_failures = true end end
      if c and not by_failures and c.lo < M.SATURATION_SHARE * p.offered then near[#near + 1] = p.index end
    end
    return { none = true, max_sustained_rps = max_before(#points + 1), near = #near > 0 and near or nil,
      failed_within = #within > 0 and within or nil, limit = #within > 0 and M.error_limit(opts) or nil,
      basis = #paced == #points and "pace" or #drained == #points and "drain"
        or #paced + #drained == 0 and "achieved" or "mixed",
      reason = ((#drained > 0 or #resolved > 0) and M.kept_up_text(points, paced, drained, skip)
        or #paced == #points and ("every load point kept up: answers came back at %d %% or more of the rate "
        .. "requests were sent (%s)"):format(M.SATURATION_SHARE * 100, M.PACE_SPAN)
        or #paced > 0 and ("every load point kept up: answers came back at %d %% or more of the rate requests were "
        .. "sent (%s) at %s, and the achieved rate was at least %d %% of the offered at the others"):format(
          M.SATURATION_SHARE * 100, M.PACE_SPAN, points_text((function()
            local l = {}
            for _, i in ipairs(paced) do l[#l + 1] = { point = i } end
            return l
          end)()), M.SATURATION_SHARE * 100)
        or ("every load point achieved at least %d %% of its offered rate"):format(M.SATURATION_SHARE * 100))
        .. (#answered_at > 0 and (", counting the failed requests, which were answered, at %s (where %s failed, "
          .. "within %s)"):format(points_text(answered_at), (function()
            local top = 0
            for _, w in ipairs(answered_at) do top = math.max(top, w.failed_pct) end
            return (#answered_at > 1 and "up to %.4g %%" or "%.4g %%"):format(top)
          end)(), M.error_limit(opts).text) or "")
        .. (#near > 0 and (" by its mean; the 95 %% confidence interval of the repeats reaches below that at "
          .. "load point%s %s"):format(#near == 1 and "" or "s", table.concat(near, ", ")) or "")
        .. M.old_rule_note(points, #points) .. M.resolved_note(points, resolved),
      resolved = #resolved > 0 and resolved or nil }
  elseif kind == "concurrency" then
    -- a level that timed out more of its requests than the error-rate limit allows
    -- (M.timed_out) is the overload itself, as at a rate-based load: saturated there, cause
    -- "timeouts", whatever its throughput did (the users that gave up sent again at once, so
    -- the level's successes can still grow while a third of its requests time out)
    -- a level that failed more requests than the error-rate limit allows otherwise (M.failing:
    -- errors, or failures of no recorded kind) is one the run did not sustain, whatever its
    -- throughput did, as at a rate-based load: a failures point (cause "failures"; the first
    -- such level is kept, failures), the search going on past it (a higher level may still
    -- plateau or time out); the levels before it are the ones sustained. (fixb46: a level with
    -- 17.6 % 503s, concurrency 32, was the max sustained throughput.) Failed requests within
    -- the limit are said beside the figure (within, failed_within).
    local failures, within = nil, {}
    local function failures_at(i)
      local q = points[i]
      local err = q.values and q.values.error_rate_pct
      if failures or not finite(err) or err <= 0 then return end
      local fc = M.failure_cause(q)
      local ci = q.ci and q.ci.error_rate_pct
      if not M.failing(q, opts) then
        within[#within + 1] = { point = i, offered = q.offered, load_type = "concurrency", failed_pct = err,
          repeats_failed_pct = ci and ci.samples, failure_cause = fc }
        return
      end
      failures = { point = i, offered = q.offered, load_type = "concurrency", achieved_rps = q.achieved_rps,
        max_sustained_rps = max_before(i), ceiling_rps = ceil_rps, ceiling_left_out = ceil_out, cause = "failures",
        failed_pct = err, failure_cause = fc, repeats_failed_pct = ci and ci.samples, limit = M.error_limit(opts),
        unclear = M.failures_unclear(q, opts),
        reason = ("at concurrency %g %.4g %% of the requests failed, more than %s: a load not sustained whatever its "
          .. "throughput, %s"):format(q.offered, err, M.error_limit(opts).text, M.failures_cause_text(fc)) }
    end
    -- a saturated result r (a plateau or timeouts at level i) cut at a failures level below it
    local function with_failures(r)
      if failures then
        r.failures, r.max_sustained_rps = failures, max_before(failures.point)
        r.reason = r.reason .. ("; at concurrency %g, below it, %.4g %% of the requests failed, more than %s: %s")
          :format(failures.offered, failures.failed_pct, failures.limit.text,
            M.failures_cause_text(failures.failure_cause))
      end
      r.failed_within = #within > 0 and within or nil
      r.limit = #within > 0 and M.error_limit(opts) or nil
      return r
    end
    -- the result where no level saturated: the first failures level, else none
    local function unsaturated(r)
      if failures then
        failures.failed_within = #within > 0 and within or nil
        return failures
      end
      return with_failures(r)
    end
    local function timed_out_at(i)
      local tout = M.timed_out(points[i], opts)
      if not tout then return nil end
      local q = points[i]
      return with_failures { point = i, offered = q.offered, achieved_rps = q.achieved_rps,
        max_sustained_rps = max_before(i), ceiling_rps = ceil_rps, ceiling_left_out = ceil_out, cause = "timeouts",
        timed_out_pct = tout.timeout_pct,
        reason = ("at concurrency %g %.4g %% of the requests timed out, more than %s: %s"):format(q.offered,
          tout.timeout_pct, M.error_limit(opts).text, M.TIMEOUT_TEXT) }
    end
    if #points < 2 then
      if timed_out_at(1) then return timed_out_at(1) end
      failures_at(1)
      return failures
        or { none = true, unknown = true, reason = "one concurrency level: saturation needs at least two" }
    end
    local function lat(p) return p.values.latency_p50_ms or p.values.ttft_p50_ms end
    local function lat_label(p) return p.values.latency_p50_ms and "end-to-end latency p50" or "TTFT p50" end
    -- steps whose throughput grew by less than PLATEAU_GROWTH while latency did not grow:
    -- no plateau by the rule, but no "grew by at least 5 % at every step" either
    local flat = {}
    for i = 1, #points do
      local timed_out = timed_out_at(i)
      if timed_out then return timed_out end
      failures_at(i)
      if i == 1 then goto next_level end
      local p, q = points[i - 1], points[i]
      if not (p.achieved_rps and q.achieved_rps and lat(p) and lat(q)) then
        return { none = true, unknown = true,
          reason = ("point %d or %d: throughput or latency unknown"):format(i - 1, i) }
      end
      if q.achieved_rps < p.achieved_rps * (1 + M.PLATEAU_GROWTH) and lat(q) > lat(p) then
        local thin = too_thin(p, i - 1) or too_thin(q, i)
        if thin then return thin_result(thin) end
        return with_failures { point = i, offered = q.offered, achieved_rps = q.achieved_rps,
          max_sustained_rps = max_before(i), ceiling_rps = ceil_rps, ceiling_left_out = ceil_out,
          reason = ("from concurrency %g to %g throughput %s while latency %s"):format(
            p.offered, q.offered, change_text(p.achieved_rps, q.achieved_rps),
            change_text(lat(p), lat(q))) }
      end
      if q.achieved_rps < p.achieved_rps * (1 + M.PLATEAU_GROWTH) then
        flat[#flat + 1] = ("from concurrency %g to %g throughput %s and %s %s"):format(p.offered,
          q.offered, change_text(p.achieved_rps, q.achieved_rps), lat_label(q),
          change_text(lat(p), lat(q)))
      end
      ::next_level::
    end
    if #flat > 0 then
      return unsaturated { none = true, max_sustained_rps = max_before(#points + 1), flat = flat,
        reason = ("no step of concurrency grew throughput by less than %d %% while latency grew (%s; a plateau "
          .. "whose latency does not grow is no queue)"):format(M.PLATEAU_GROWTH * 100, table.concat(flat, "; ")) }
    end
    return unsaturated { none = true, max_sustained_rps = max_before(#points + 1),
      reason = ("throughput grew by at least %d %% at every step of concurrency"):format(M.PLATEAU_GROWTH * 100) }
  end
  return { none = true, unknown = true,
    reason = kind == "mixed" and "the load points mix rate- and concurrency-based loads"
      or "the offered load is unknown (the results do not say what rate or concurrency was asked for)" }
end

-- "a, b and c" of the strings in list
local function and_list(list)
  if #list == 1 then return list[1] end
  return table.concat(list, ", ", 1, #list - 1) .. " and " .. list[#list]
end

-- Which repeats crashed (M.crashed_repeats' c) as a max sustained row's note says it:
-- "repeat 2: 61 % failed, the others 0 and 0 %".
local function crashed_text(c)
  local parts, others = {}, {}
  for _, r in ipairs(c) do parts[#parts + 1] = ("repeat %d: %.3g %% failed"):format(r.n, r.pct) end
  for i, v in ipairs(c.others) do others[i] = ("%.3g"):format(v) end
  return ("%s, the other%s %s %%"):format(table.concat(parts, "; "), #others == 1 and "" or "s", and_list(others))
end

-- A rate-based point that answered at least SATURATION_SHARE (95 %) of what it was sent, but
-- less than this share, is "mildly overloaded": the lower half of the 5 % the saturation rule
-- allows for noise (a server that keeps up answers what it gets, 100 %, by its pace, which no
-- latency moves), at the edge of its limit, its latencies there perhaps already a queue's.
-- Marked wherever such a point is read (treatments.lua's common load, every max sustained
-- throughput: M.saturation's edge), the rule itself unchanged.
M.MILD_OVERLOAD_SHARE = 0.975

-- Is rate-based point p mildly overloaded (M.MILD_OVERLOAD_SHARE)? Its answered share and the
-- most the files allow it (M.answered_share), or nil: not where the files bound the share by
-- nothing above (a drain-reduced rate from completed / window alone), nor outside the band.
function M.mild_overload(p)
  local sh, hi = M.answered_share(p)
  if sh and hi and sh >= M.SATURATION_SHARE and hi < M.MILD_OVERLOAD_SHARE then return sh, hi end
  return nil
end

-- The share as the outputs print it: "96.6" or "95.6-96.2" (the files' bounds).
function M.share_text(sh, hi)
  local pct = ("%.1f"):format(sh * 100)
  if hi and ("%.1f"):format(hi * 100) ~= pct then pct = ("%s-%.1f"):format(pct, hi * 100) end
  return pct
end

-- The z of a two-sided 95 % interval (the normal's 97.5th percentile, scipy.stats.norm.ppf).
M.RATE_Z = 1.959963984540054

-- The noise of a load point's throughput r (req/s; p.achieved_rps where nil): the 95 %
-- interval of a rate read off the n successes behind it (summed over its repeats), a count
-- of arrivals in its window, Poisson: sd r / sqrt(n) (audit40: u81's 9.771 req/s at 9 offered,
-- a point that kept up, is its own send rate, 135 requests, +-8.6 % a standard deviation);
-- but a paced point that kept pace (answered, failed or not, at least SATURATION_SHARE of its
-- sends: its answers' rate its sends' over the slope of its finish times, about 1,
-- llmd.runmodel.pace) has its rate read off the middle PACE_SHARE of its sends, (n - 1)
-- PACE_SHARE / span: sd r / sqrt(PACE_SHARE (n - 1)) per repeat, as M.pace_reference counts it (audit41: 4000 Poisson
-- ladders, 480 requests at 8 req/s, sd 0.412 against r / sqrt(n)'s 0.365, which covered 91.7 %);
-- its rate is its successes', the sends' rate times the share k of its n sends that succeeded,
-- each a request that failed or not by chance: the binomial noise of that share, relative
-- variance (n - k) / (n k), adds to the sends' (fixc42, tests/sim/fixc42_paced_fail.py: 20000
-- points of 480 sends at 8 req/s, 10 % failing, covered 94.7 % with it, 93.8 % without, 92.1 %
-- by the successes' count). Kept pace is read of its answers against M.pace_reference, as
-- M.saturation's answered_kept_up reads them, not of its successes (M.answered_share): a
-- shortfall of failures is no queue, its rate still the sends' thinned. Widened to the repeats' own 95 %
-- interval of the rate where the point was repeated and its repeats' rates differ beyond that
-- count's noise (M.repeat_rates_differ; where that cannot be told too), not where they agree
-- (task interval56), nor where with_repeats is false. {lo, hi, n (the requests counted), repeats
-- (the point's, 1 where measured once), basis ("requests": the count's; "repeats": widened to
-- the repeats' spread)}; nil where the count is unknown.
function M.rate_interval(p, r, with_repeats)
  r = r or p.achieved_rps
  if not finite(r) then return nil end
  local n, eff
  local pace = M.pace_of(p)
  if p.rate_basis == "pace" and pace then
    n = pace.succeeded
    if finite(n) and n > 0 and pace.answer_rps >= M.SATURATION_SHARE * M.pace_reference(p, pace) then
      local sends = pace.sends
      eff = 1 / (1 / (require("llmd.runmodel").PACE_SHARE * (sends - (p.repeats or 1))) + (sends - n) / (sends * n))
    end
  elseif p.rate_basis == "drain" then
    local d = M.drain_of(p)
    n = d and d.completed
  end
  local ok = p.values and p.values.requests_ok
  if not finite(n) and finite(ok) then n = ok * (p.repeats or 1) end
  if not finite(n) or n <= 0 then return nil end
  if not (eff and eff > 0) then eff = n end
  local half = M.RATE_Z * r / math.sqrt(eff)
  local lo, hi = math.max(r - half, 0), r + half
  local c = with_repeats ~= false and p.ci and p.ci.throughput_req_s
  local basis = "requests"
  if c and finite(c.lo) and finite(c.hi) then
    local h = M.repeat_rates_differ(c.samples, eff)
    if not (h and not h.differ) then
      lo, hi, basis = math.min(lo, c.lo), math.max(hi, c.hi), "repeats"
    end
  end
  return { lo = lo, hi = hi, n = n, repeats = p.repeats or 1, basis = basis }
end

-- Do a load point's repeats' rates xs (each repeat's, p.ci.throughput_req_s.samples) differ
-- beyond the noise of the requests they were counted from (eff: the point's count, as
-- M.rate_interval reads it, summed over the repeats)? Cochran's Q (stattest.means_heterogeneity)
-- over the rates, each with the standard error of a count, r_j / sqrt(n_j), n_j = eff r_j /
-- sum(r): the repeats of a load run equally long, so each one's count is its share of the
-- point's by its rate. The one rule by which M.rate_interval keeps a repeated point's rate on
-- its requests' count (they agree: the count says how far the rate can be from its truth) or
-- widens it to the repeats' Student-t interval (they differ: a slower node in one repeat, and
-- their spread is the noise). Not the wider of the two always: from 2 repeats t_0.975 is 12.7,
-- and that interval covered the true rate at the max sustained throughput's load 99.5 % of the
-- time, median half-width 2.0 req/s against this rule's 0.60 (98.1 %), neither naming an A/A
-- winner (task interval56, tests/sim/interval56_rate.py; its figures, a slower node in one
-- repeat among them, in tests/lua/test_rate_interval.lua). {q, df, p,
-- differ = p < llmd.decision.ALPHA}; nil where it cannot be told (fewer than 2 repeats, a rate
-- or the count unknown, a rate of 0 or below: then the wider interval stays).
function M.repeat_rates_differ(xs, eff, alpha)
  if type(xs) ~= "table" or #xs < 2 or not (finite(eff) and eff > 0) then return nil end
  local sum = 0
  for _, x in ipairs(xs) do
    if not (finite(x) and x > 0) then return nil end
    sum = sum + x
  end
  local ses = {}
  for j, x in ipairs(xs) do ses[j] = math.sqrt(x * sum / eff) end
  local h = stattest.means_heterogeneity(xs, ses)
  if not h then return nil end
  h.differ = h.p < (alpha or require("llmd.decision").ALPHA)
  return h
end

-- The noise of a saturation's figures (s: saturation_of's result on points, its max
-- sustained figure read at points[fig]): {sustained = M.rate_interval of that point (nil
-- where unknown or there is no figure), ceiling_hi = the upper end of the interval of the
-- load point that sets the ceiling (M.ceiling: where a crashed repeat was left out there, by
-- the count alone), ceiling_n = its count; nil where unknown}. decision.sustained_order
-- orders two runs only beyond it. (The ceiling's own point: a thin point below it, 15 req/s
-- from 10 requests, is no measure of the most the run can do beside a saturated load of
-- 1000 requests at 16.)
local function saturation_noise(points, s, fig)
  local out = { sustained = fig and M.rate_interval(points[fig], s.max_sustained_rps) or nil }
  local c = s.ceiling_rps
  if finite(c) then
    for _, p in ipairs(points) do
      local left = s.ceiling_left_out and s.ceiling_left_out.point == p.index
      if left or p.achieved_rps == c then
        local x = left and M.rate_interval(p, c, false) or M.rate_interval(p)
        if x then out.ceiling_hi, out.ceiling_n = x.hi, x.n end
        break
      end
    end
  end
  return out
end

-- Where the load curve saturates (saturation_of, above), and whether the load point its max
-- sustained throughput is read at was mildly overloaded (edge = {point =, offered =, share =,
-- share_hi =, share_text =}, M.mild_overload): the figure is then at the edge of the limit,
-- said beside it (M.sustained_failure_notes), however the 95 % rule counts it as kept up.
-- The saturation rule in words, by the points' load type (as saturation_of reads it): a rate
-- sweep saturates where the achieved rate falls behind the offered load; a concurrency sweep
-- has no offered rate to fall behind (its users wait for their answers), it saturates where
-- throughput stops growing with concurrency while latency grows, or a level times out more
-- than the limit (fixj45: a concurrency sweep's Verdict said the rate rule).
function M.saturation_rule(points)
  local kind = points and points[1] and points[1].load_type
  for _, p in ipairs(points or {}) do
    if p.load_type ~= kind then kind = "mixed" end
  end
  if kind == "rate" then return "before the achieved rate falls behind the offered load" end
  if kind == "concurrency" then
    return ("before throughput stops growing with concurrency: a step that adds less than %d %% throughput while "
      .. "latency grows, or a level whose timeouts pass the error-rate limit"):format(M.PLATEAU_GROWTH * 100)
  end
  return nil
end

function M.saturation(points, opts)
  local s = saturation_of(points, opts)
  s.rule = M.saturation_rule(points)
  local m = s.max_sustained_rps
  local fig
  if finite(m) then
    local upto = s.point and s.cause ~= "failures" and s.point - 1 or #points
    if s.sustained_upto then upto = math.min(upto, s.sustained_upto) end
    for j = 1, upto do
      local p = points[j]
      if p.achieved_rps == m then
        fig = j
        local sh, hi = M.mild_overload(p)
        if sh then
          s.edge = { point = j, offered = p.offered, share = sh, share_hi = hi, share_text = M.share_text(sh, hi) }
        end
        break
      end
    end
  end
  if #points > 0 then s.noise = saturation_noise(points, s, fig) end
  -- the rate-based loads whose successful answers fell short, made up by failed requests
  -- (M.point_unsustained): their failures may be the overload's own (client timeouts of a
  -- queue that grows), which one run cannot tell from a server's errors
  local short_by = {}
  for i, p in ipairs(points) do
    if p.load_type == "rate" and finite(p.offered) and finite(p.achieved_rps) and not p.count_check
      and not p.overshoot then
      local short, answered_kept_up = shortfall(p)
      if short and answered_kept_up then short_by[#short_by + 1] = p.index or i end
    end
  end
  if #short_by > 0 then s.answered_short = require("llmd.json").array(short_by) end
  return s
end

-- Is load point p (one of the points s was found on) one its run is not known to have
-- sustained, so that a test across runs must leave it out? "saturated" at or past its
-- saturation point (M.point_saturated); "unjudged" at or past a load whose saturation could
-- not be judged (s.sustained_upto, s.unjudged); "short" where its successful answers fell
-- short of its load and only its failed requests made up the rest (s.answered_short): the
-- run's own counts read those failures as errors, not overload, yet a queue's client
-- timeouts are answered the same way, and how many of them an overloaded queue throws varies
-- between runs far beyond what one run's counts show (audit43: 2 to 49 of 600 at one load
-- over 26 runs of one server). nil where it was sustained.
-- A saturation unknown with no sustained_upto (a file that disagrees with itself about its
-- requests, loads that mix rate and concurrency) leaves every rate-based point "unjudged":
-- unknown stays unknown, so the tests leave them out and a whole-run figure over them is not
-- comparable, never pooled as sustained (satur54: before, every such point read as sustained).
-- Concurrency levels are not: a closed loop's latency is its level's steady state, no queue that
-- grows with time, and one level alone (saturation "needs at least two") would leave nothing to
-- compare; nor loads of no known rate (vLLM's --request-rate inf, inference-perf's per-request
-- file alone), which pair with no other run's load in any test.
function M.point_unsustained(s, p)
  if type(s) ~= "table" or not p.index then return nil end
  if M.point_saturated(s, p) then return "saturated" end
  if s.unknown and type(s.sustained_upto) == "number" and p.index > s.sustained_upto then return "unjudged" end
  if s.unknown and s.sustained_upto == nil and p.load_type == "rate" then return "unjudged" end
  if type(s.unjudged) == "table" and type(s.unjudged.point) == "number" and p.index >= s.unjudged.point then
    return "unjudged"
  end
  for _, i in ipairs(type(s.answered_short) == "table" and s.answered_short or {}) do
    if i == p.index then return "short" end
  end
  return nil
end

-- The shares of failed requests in the repeats of a saturation's failures point (s: M.saturation
-- with cause "failures"), where they differ: "0, 0 and 30 % in its 3 repeats" (one crashed
-- repeat among clean ones, which the point's mean spreads over all of them); nil where the
-- point has one run, or every repeat failed the same share.
-- (M.failed_lowest_text names a crashed repeat instead, as the cut row does: crashed_text)
function M.failed_repeats_text(s)
  local each = s and s.repeats_failed_pct
  if not each or #each < 2 then return nil end
  local differ = false
  for _, x in ipairs(each) do if x ~= each[1] then differ = true end end
  if not differ then return nil end
  local xs = {}
  for i, x in ipairs(each) do xs[i] = ("%.3g"):format(x) end
  return ("%s and %s %% in its %d repeats"):format(table.concat(xs, ", ", 1, #xs - 1), xs[#xs], #xs)
end

-- The crashed repeats of a load point (x: a saturation's failures point or one of its
-- failed_within, with repeats_failed_pct = each repeat's share of failed requests, in repeat
-- order; limit: M.error_limit's): those that failed more than the limit where another repeat
-- of that load stayed within it, {{n = the repeat's number (from 1), pct =}, ...,
-- others = {the other repeats' shares}, repeats = how many}; nil where there is none (one
-- run, or every repeat failed alike, over or within the limit).
function M.crashed_repeats(x, limit)
  local each = type(x) == "table" and x.repeats_failed_pct
  local max = type(limit) == "table" and limit.pct
  if type(each) ~= "table" or #each < 2 or type(max) ~= "number" then return nil end
  local out, others = {}, {}
  for k, v in ipairs(each) do
    if v > max then out[#out + 1] = { n = k, pct = v } else others[#others + 1] = v end
  end
  if #out == 0 or #others == 0 then return nil end
  out.others, out.repeats = others, #each
  return out
end

-- What a treatment's status says beside "ok" where a repeat crashed (M.crashed_repeats) at
-- the load that cut its max sustained throughput (s: M.saturation, its failures point) or at
-- a load it sustained by the mean (failed_within): "1 of 3 repeats failed 61 % at 40 req/s";
-- nil where none did.
function M.crashed_repeats_text(s)
  if type(s) ~= "table" then return nil end
  local list = {}
  local f = s.cause == "failures" and s or s.failures
  if type(f) == "table" and f.point then list[#list + 1] = { f, f.limit } end
  for _, w in ipairs(type(s.failed_within) == "table" and s.failed_within or {}) do
    list[#list + 1] = { w, s.limit or (type(f) == "table" and f.limit) }
  end
  local out = {}
  for _, x in ipairs(list) do
    local c = M.crashed_repeats(x[1], x[2])
    if c then
      local shares = {}
      for i, r in ipairs(c) do shares[i] = ("%.3g"):format(r.pct) end
      out[#out + 1] = ("%d of %d repeats failed %s %% at %s"):format(#c, c.repeats, and_list(shares),
        x[1].load_type == "concurrency" and M.load_text("concurrency", x[1].offered)
        or ("%g req/s"):format(x[1].offered))
    end
  end
  if #out == 0 then return nil end
  return table.concat(out, "; ")
end

-- Is a run past its saturation at the achieved rate rps (s: M.saturation of its points)?
-- Above its max sustained throughput (more than REPEAT_TOLERANCE above it) when it
-- saturated; never when it did not, or when its saturation is unknown. A latency measured
-- there is an overloaded server's, of a queue that grew for the length of the test. Only for
-- an achieved rate that is no load point's own (interpolated): a measured point is past
-- saturation by its place on the load axis (M.point_saturated), whatever its achieved rate,
-- which past saturation is flat (every overload achieves about the max sustained rate).
function M.saturated_at(s, rps)
  if not s or not s.point or s.unknown or s.cause == "failures" then return false end
  -- (above a load that could not be judged: past the most achieved below the saturation
  -- point, as the load between is not known to be either)
  local m = type(s.unjudged) == "table" and s.unjudged.before_rps or s.max_sustained_rps
  -- saturated with no sustained figure (at its lowest load, or not a finite number): past it
  if type(m) ~= "number" or m ~= m or math.abs(m) == math.huge then return true end
  return rps > m and not M.close(rps, m)
end

-- Is load point p (one of the points s was found on) at or past its run's saturation point?
-- The harness raised its load there and the achieved rate no longer rose with it, so its
-- latency measures the queue, not the server; never when the run did not saturate or its
-- saturation is unknown.
function M.point_saturated(s, p)
  -- a shortfall made up by failed requests (cause "failures") is not overload
  if not s or not s.point or s.unknown or s.cause == "failures" or not p.index then return false end
  return p.index >= s.point
end

-- Did a run keep up with every load it was sent (s: M.saturation of points)? Rate-based loads
-- only, none saturated, no failures point (cause "failures" has a point), its saturation
-- known, and no point whose repeats' interval reaches below the share (near). A server that
-- keeps up answers what it gets: its throughput is the rate it was sent, times the share that
-- succeeded, so between two such runs a throughput difference is their load generators'.
-- (At concurrency-based loads the server sets the rate: never here.)
function M.kept_up_everywhere(s, points)
  if not s or not s.none or s.unknown or s.near or s.point or #points == 0 then return false end
  for _, p in ipairs(points) do
    if p.load_type ~= "rate" then return false end
  end
  return true
end

-- The rate a rate-based point's requests went out at, where its files say it: its pace's send
-- rate (the mean of its repeats'), else the drain-reduced rate's reference where that is the
-- sends' (inference-perf's stage files, on schedule); nil where only the offered rate is known.
function M.sent_rps(p)
  local x = M.pace_of(p)
  if x then return x.send_rps end
  local d = M.drain_of(p)
  if d and d.ref_basis == "sent" then return d.ref_rps end
  return nil
end

-- The independent variable the runs' load points are paired by: the harness's own, the
-- load it set and the server did not choose: "rate" (the offered request rate) when every
-- point of every run (lists: each run's M.points) was driven by a rate with that rate known
-- (finite: vllm-benchmark's "inf" is no offered rate), "concurrency" (offered users) when
-- every one was driven by concurrency with its level known; else "achieved" (the achieved
-- request rate: a run with no load point, an unknown offered load, or runs that mix rate
-- and concurrency). Past saturation a run's achieved rate is flat, and a run with failed
-- requests achieves less than it was offered (the achieved rate counts completed requests):
-- two points of about the same achieved rate can be two very different loads, and pairing
-- by the offered load keeps like with like.
function M.axis(lists)
  local kind
  for _, pts in ipairs(lists) do
    if #pts == 0 then return "achieved" end
    for _, p in ipairs(pts) do
      if not finite(p.offered) or (p.load_type ~= "rate" and p.load_type ~= "concurrency") then return "achieved" end
      kind = kind or p.load_type
      if p.load_type ~= kind then return "achieved" end
    end
  end
  return kind or "achieved"
end

-- Point p's load on axis (M.axis): its offered load, or its achieved rate.
function M.load_of(p, axis)
  if axis == "rate" or axis == "concurrency" then return p.offered end
  return p.achieved_rps
end

-- A load on axis as the report says it: "concurrency 8", "12 req/s offered", "9.95 req/s"
-- (achieved).
function M.load_text(axis, x)
  if axis == "concurrency" then return ("concurrency %g"):format(x) end
  if axis == "rate" then return ("%g req/s offered"):format(x) end
  return metrics.format("throughput_req_s", x)
end

-- Is load x on axis past the run's saturation (s: M.saturation of points)? On the offered
-- axis: above the offered load of its last point before saturation (more than
-- REPEAT_TOLERANCE), toward or past its saturated point; a run saturated at its lowest load
-- is past it everywhere. On the achieved axis: M.saturated_at.
function M.saturated_on(s, points, axis, x)
  if axis ~= "rate" and axis ~= "concurrency" then return M.saturated_at(s, x) end
  if not s or not s.point or s.unknown or s.cause == "failures" then return false end
  local last = points[s.point - 1]
  if not (last and finite(last.offered)) then return true end
  return x > last.offered and not close(x, last.offered)
end

-- The points whose key passes keep, ordered by it (ties: by index).
local function sorted_by(points, key, keep)
  local out = {}
  for _, p in ipairs(points) do if keep(p[key]) then out[#out + 1] = p end end
  table.sort(out, function(x, y)
    if x[key] ~= y[key] then return x[key] < y[key] end
    return x.index < y.index
  end)
  return out
end

local function known(v) return v ~= nil end

-- A load point's field or value: "achieved_rps", "output_tps", ... or a catalogue key.
local function field(p, key)
  if p[key] ~= nil and type(p[key]) == "number" then return p[key] end
  return p.values[key]
end
M.field = field

-- The repeats' 95 % interval of a point's field (M.field's key): p.ci is keyed by the
-- catalogue, and the point's own rates are kept under the catalogue's rate keys, on the
-- point's basis (M.points: the pace's, the drain-reduced, else the harness's, its mean the
-- figure itself), so that a whisker drawn on output_tps is the noise of that very figure.
-- nil where the point was measured once or its repeats give none.
M.CI_KEYS = { achieved_rps = "throughput_req_s", output_tps = "throughput_tok_s" }
function M.ci_of(p, key)
  return type(p) == "table" and p.ci and p.ci[M.CI_KEYS[key] or key] or nil
end

-- Points with a known load on axis, ordered by it (ties: by index): the offered load on
-- a rate or concurrency axis, else the achieved rate.
local function by_load(points, axis)
  if axis == "rate" or axis == "concurrency" then return sorted_by(points, "offered", finite) end
  return sorted_by(points, "achieved_rps", known)
end

-- The value of key at load x on axis (M.axis; default "achieved", x an achieved rate): a
-- measured point's own value when one is there (within REPEAT_TOLERANCE), else
-- interpolated linearly in that load between the neighbouring points; nil outside the
-- measured range or when a neighbour lacks it. Returns value, interpolated (bool), and the
-- measured point (not interpolated) or the two points it was interpolated between (lower,
-- higher); where nil, a second value says why when there is more to say than "not
-- measured there".
-- On the achieved axis the neighbours are neighbours in load order (the points' order),
-- never in achieved order: where the achieved rate falls as the load rises (failed
-- requests, overload), a point of a higher load has a lower achieved rate, and sorting by
-- it would interpolate between loads that are not neighbours. So x is placed only where
-- the run achieved it once: at one point's own rate, or inside one pair of load neighbours
-- whose achieved rate rises from one to the other. Where x lies between two load
-- neighbours whose achieved rate does not rise, or the run achieved it at more than one
-- load, the value is nil with the reason.
function M.at(points, x, key, axis)
  if axis == "rate" or axis == "concurrency" then
    local s = by_load(points, axis)
    if #s == 0 then return nil end
    local function load(p) return M.load_of(p, axis) end
    for _, p in ipairs(s) do
      if close(load(p), x) and field(p, key) ~= nil then return field(p, key), false, p end
    end
    for i = 2, #s do
      local lo, hi = s[i - 1], s[i]
      if x >= load(lo) and x <= load(hi) then
        local vl, vh = field(lo, key), field(hi, key)
        if not (finite(vl) and finite(vh)) then return nil end
        if load(hi) == load(lo) then return (vl + vh) / 2, true, lo, hi end
        local t = (x - load(lo)) / (load(hi) - load(lo))
        return vl + t * (vh - vl), true, lo, hi
      end
    end
    return nil
  end
  -- the achieved axis: the points in load order (M.points' order), those with a rate
  local s = {}
  for _, p in ipairs(points) do if p.achieved_rps ~= nil then s[#s + 1] = p end end
  if #s == 0 then return nil end
  -- every place the run achieved x: a point's own rate, or the inside of a pair of load
  -- neighbours (beyond REPEAT_TOLERANCE from both ends)
  local own, inside = {}, {}
  for _, p in ipairs(s) do
    if close(p.achieved_rps, x) then own[#own + 1] = p end
  end
  for i = 2, #s do
    local lo, hi = s[i - 1], s[i]
    local a, b = lo.achieved_rps, hi.achieved_rps
    if x >= math.min(a, b) and x <= math.max(a, b) and not close(a, x) and not close(b, x) then
      inside[#inside + 1] = { lo, hi }
    end
  end
  if #own + #inside == 0 then return nil end
  local function pair_text(pr)
    return ("load points %d and %d (%.4g then %.4g req/s)"):format(pr[1].index, pr[2].index, pr[1].achieved_rps,
      pr[2].achieved_rps)
  end
  if #own + #inside > 1 then
    local where = {}
    for _, p in ipairs(own) do where[#where + 1] = ("load point %d"):format(p.index) end
    for _, pr in ipairs(inside) do where[#where + 1] = "between " .. pair_text(pr) end
    return nil, ("the achieved rate is not increasing in load order: the run achieved %.4g req/s at more than "
      .. "one load (%s), so the rate does not say which load"):format(x, table.concat(where, "; "))
  end
  if #own == 1 then
    local v = field(own[1], key)
    if v ~= nil then return v, false, own[1] end
    return nil
  end
  local lo, hi = inside[1][1], inside[1][2]
  if hi.achieved_rps <= lo.achieved_rps then
    return nil, ("the achieved rate is not increasing in load order between %s: the load rose and the rate fell, "
      .. "so no value is interpolated across it"):format(pair_text(inside[1]))
  end
  local vl, vh = field(lo, key), field(hi, key)
  if not (finite(vl) and finite(vh)) then return nil end
  local t = (x - lo.achieved_rps) / (hi.achieved_rps - lo.achieved_rps)
  return vl + t * (vh - vl), true, lo, hi
end

-- The measured range of achieved rates as a short text: "3.485 req/s" when its ends are
-- within REPEAT_TOLERANCE, else "1.02–183.4 req/s".
-- On the offered axis (axis "rate" or "concurrency"): "concurrency 1–64", "2–12 req/s offered".
function M.range_text(lo, hi, axis)
  if axis == "concurrency" then
    return close(lo, hi) and M.load_text(axis, lo) or ("concurrency %g–%g"):format(lo, hi)
  end
  if axis == "rate" then return close(lo, hi) and M.load_text(axis, lo) or ("%g–%g req/s offered"):format(lo, hi) end
  if close(lo, hi) then return metrics.format("throughput_req_s", lo) end
  return ("%s–%s"):format(metrics.format("throughput_req_s", lo, nil, { bare = true }),
    metrics.format("throughput_req_s", hi))
end

-- The share of failed requests above which a load point is not a load its run sustained
-- (M.failing): the saturation rule's margin (1 - SATURATION_SHARE, 5 %), the shortfall that
-- makes a rate sweep's point saturated when its requests go unanswered.
M.FAILURES_PCT = (1 - M.SATURATION_SHARE) * 100

-- The share of failed requests a load may have and still count as sustained (M.failing):
-- {pct =, given = true where the error-rate SLO (opts.slo) sets it, text = "the error-rate
-- SLO's 1 %" | "5 %, the error-rate limit used when no error-rate SLO is given"}.
function M.error_limit(opts)
  for _, s in ipairs(opts and opts.slo or {}) do
    if s.key == "error_rate_pct" and not s.default then
      return { pct = s.max, given = true, text = ("the error-rate SLO's %g %%"):format(s.max) }
    end
  end
  return { pct = tonumber(("%.10g"):format(M.FAILURES_PCT)), given = false,
    text = ("%g %%, the error-rate limit used when no error-rate SLO is given"):format(M.FAILURES_PCT) }
end

-- The limits a capacity is read within (M.capacity, M.capacity_interval, M.meets for the
-- ladder's marks): the SLOs given, and, where none of them is an error-rate SLO, the default
-- failure limit (FAILURES_PCT of the requests), the one max sustained throughput applies
-- (M.error_limit), so that the two headline figures count the same loads as sustained: a run
-- that failed 7 % of its requests at a load is no more within its capacity there than it
-- sustained that load. That limit is marked default = true: an unknown error rate is not
-- held against a load (as M.failing), where an error-rate SLO's would leave it unknown. An
-- error-rate SLO given replaces it for both figures. slo itself where it has one (or is
-- empty: no SLO, no capacity).
M.DEFAULT_LIMIT_TEXT = ("Error rate ≤ %g %% by default"):format(M.FAILURES_PCT)
function M.capacity_slo(slo)
  if not slo or #slo == 0 then return slo end
  for _, s in ipairs(slo) do
    if s.key == "error_rate_pct" then return slo end
  end
  local out = {}
  for i, s in ipairs(slo) do out[i] = s end
  out[#out + 1] = { key = "error_rate_pct", max = tonumber(("%.10g"):format(M.FAILURES_PCT)), default = true,
    text = M.DEFAULT_LIMIT_TEXT }
  return out
end

-- The limit an SLO puts on key (slo: a --slo list; the default failure limit counts for the
-- error rate, M.capacity_slo), or nil: what a figure of key printed beside it is read against
-- (metrics.format's opts.limit).
function M.slo_limit(slo, key)
  for _, s in ipairs(M.capacity_slo(slo) or {}) do
    if s.key == key then return s.max end
  end
  return nil
end

-- What failed requests did to a max sustained throughput (s: M.saturation), said beside its
-- figure in every output (compare.lua's and treatments.lua's): a list of clauses, empty
-- where no load up to the cut failed a request (and none below saturation went unjudged:
-- M.unjudged_note's short form). "3.333 % of the requests failed at load
-- point 1, within 5 %, the error-rate limit used when no error-rate SLO is given"; where
-- failures cut it (cause "failures", or s.failures below an overload): "then 8 % failed at
-- load point 3 (30 req/s offered), more than the error-rate SLO's 1 %".
function M.sustained_failure_notes(s)
  local out = {}
  if type(s) ~= "table" then return out end
  local w = s.failed_within
  if type(w) == "table" and #w > 0 then
    local top, top_w = 0, nil
    for _, x in ipairs(w) do
      if not top_w or x.failed_pct > top then top, top_w = x.failed_pct, x end
    end
    local limit = s.limit or (s.failures and s.failures.limit)
    -- the mean's repeats where they failed different shares ("0, 14.5 and 0 % in its 3
    -- repeats"), of the load point whose share is said
    local each = M.failed_repeats_text(top_w)
    out[#out + 1] = ("%s%.4g %% of the requests failed at %s%s, within %s"):format(#w > 1 and "up to " or "", top,
      points_text(w), each and (" (" .. (#w > 1 and ("load point %d: "):format(top_w.point) or "") .. each .. ")")
      or "", limit and limit.text or "the error-rate limit")
  end
  -- a max sustained point mildly overloaded (M.saturation's edge): the figure is at the edge
  if type(s.edge) == "table" then
    out[#out + 1] = ("mildly overloaded there: answered %s %% of its sends at load point %d (%g req/s offered), "
      .. "kept up by the %d %% rule but below %g %%, at the edge of its limit"):format(s.edge.share_text,
      s.edge.point, s.edge.offered, M.SATURATION_SHARE * 100, M.MILD_OVERLOAD_SHARE * 100)
  end
  -- a load below the saturation point that could not be judged (M.unjudged_note): the figure
  -- is the last load known to be sustained, the limit may lie up to the ceiling
  out[#out + 1] = M.unjudged_note(s)
  local f = s.cause == "failures" and s or s.failures
  if type(f) == "table" and f.point and f.point > 1 and f.limit then
    -- a repeat that crashed there, among clean ones: which, and its share (the mean spreads
    -- it over all of them)
    local c = M.crashed_repeats(f, f.limit)
    -- (a concurrency level's failures point says its level: load_type)
    out[#out + 1] = ("then %.4g %% failed at load point %d (%s%s), %smore than %s%s"):format(f.failed_pct,
      f.point, M.load_text(f.load_type == "concurrency" and "concurrency" or "rate", f.offered),
      c and ("; " .. crashed_text(c)) or "", f.unclear and "as measured " or "", f.limit.text,
      f.unclear and (", but" .. M.failures_unclear_text(f.unclear, f.limit)) or "")
  end
  return out
end

-- A max sustained figure's ceiling (s.ceiling_rps, "up to X, its most at any load") read at a
-- load where a repeat failed beyond the limit among clean ones, left out of it (M.ceiling's
-- left_out, s.ceiling_left_out): ": load point 3's mean leaving out repeat 2, which crashed
-- there (61 % of its requests failed; 31.867 with it)" (said as the cut's note names the
-- repeat; fmt(req/s) -> the caller's figure, per GPU where its ceiling is, else "%.5g"); "which
-- crashed" only where the files say errors, else what they say (o.cause,
-- llmd.decision.FAILURE_WORDS: "which timed out there, a queue near capacity"); "" for any
-- other ceiling.
function M.ceiling_crash_text(s, fmt)
  local o = type(s) == "table" and s.ceiling_left_out
  if type(o) ~= "table" or type(o.crashed) ~= "table" then return "" end
  local c = o.crashed
  local who, shares = {}, {}
  for i, r in ipairs(c) do who[i], shares[i] = ("%d"):format(r.n), ("%.3g %%"):format(r.pct) end
  local which = require("llmd.decision").failure_words(o.cause).which
  return (": load point %d's mean leaving out repeat%s %s, %s (%s of %s requests failed; %s with %s)"):format(o.point,
    #c == 1 and "" or "s", and_list(who), which, and_list(shares), #c == 1 and "its" or "their",
    fmt and fmt(o.mean_rps) or ("%.5g"):format(o.mean_rps), #c == 1 and "it" or "them")
end

-- text with first (a clause of the caller's, or nil) and then notes (M.sustained_failure_notes)
-- in brackets after it, "X (first; note; ...)", or text alone when there is none: the one
-- way compare.lua's and treatments.lua's tables put them beside a max sustained figure.
function M.with_notes(text, first, notes)
  local parts = { first }
  for _, n in ipairs(notes) do parts[#parts + 1] = n end
  if #parts == 0 then return text end
  return ("%s (%s)"):format(text, table.concat(parts, "; "))
end

-- Why a run sustained no load for its failed requests (s: M.saturation whose failures point,
-- its own or the one below its overload, is its lowest): "3.333 % of requests failed at the
-- lowest load, more than the error-rate SLO's 1 %, so no load was sustained within it;
-- failed requests, not overload"; with each repeat's share where they differ. nil for any
-- other saturation.
function M.failed_lowest_text(s)
  if type(s) ~= "table" or s.unknown then return nil end
  -- (the failures point itself, or the one below a later overload)
  local f = s.cause == "failures" and s or s.failures
  if type(f) ~= "table" or f.point ~= 1 then return nil end
  -- (a repeat that crashed there among clean ones named, as the row of a load that cut the
  -- figure names it: "repeat 3: 30 % failed, the others 0 and 0 %"; else each repeat's share)
  local c = M.crashed_repeats(f, f.limit)
  local each = c and (" (" .. crashed_text(c) .. ")") or M.failed_repeats_text(f)
  if each and not c then each = ", " .. each end
  -- (the share as measured, "3.333 %", never rounded to "3 %")
  if f.unclear then
    return ("%.4g %% of requests failed at the lowest load%s, as measured more than %s, but%s, so no load is known "
      .. "to be sustained within it; %s"):format(f.failed_pct, each or "", f.limit and f.limit.text
      or "the error-rate limit", M.failures_unclear_text(f.unclear, f.limit), M.failures_cause_text(f.failure_cause))
  end
  return ("%.4g %% of requests failed at the lowest load%s, more than %s, so no load was sustained within it; "
    .. "%s"):format(f.failed_pct, each or "", f.limit and f.limit.text or "the error-rate limit",
    M.failures_cause_text(f.failure_cause))
end

-- Why load point p is a failures point, a load its run did not sustain although it kept
-- up with it (its latencies are of the requests that succeeded only), or nil: more of its
-- requests failed than the error-rate SLO allows (opts.slo: llmd.decision.parse_slo's list,
-- its error_rate_pct), or, without that SLO, more than FAILURES_PCT. An unknown error rate
-- is not held against it.
function M.failing(p, opts)
  local err = p.values and p.values.error_rate_pct
  if not finite(err) or err <= 0 then return nil end
  for _, s in ipairs(opts and opts.slo or {}) do
    if s.key == "error_rate_pct" and not s.default then
      if err > s.max then
        return ("%.4g %% of its requests failed, more than the error-rate SLO allows (%g %%)"):format(err, s.max)
      end
      return nil
    end
  end
  if err > M.FAILURES_PCT then
    return ("%.4g %% of its requests failed (more than %g %%)"):format(err, M.FAILURES_PCT)
  end
  return nil
end

-- The counts of load point p's failures by kind (p.failure_kinds): timed out, errors, of no
-- recorded kind; 0 each where the files give none. (llmd.decision.failures_kind reads them too.)
function M.failure_counts(p)
  local k = type(p.failure_kinds) == "table" and p.failure_kinds or {}
  return tonumber(k.timeout) or 0, tonumber(k.error) or 0, tonumber(k.unknown) or 0
end

-- What load point p's failed requests were, as its files say (p.failure_kinds: M.points,
-- llmd.runmodel.error_kind): {timeout_pct =, error_pct =, unknown_pct =}, shares of all its
-- requests (in %, summing to its error rate), each kind's share of its failures times that
-- rate; every failure unknown where the files give no kinds. nil without failures.
function M.failure_cause(p)
  local err = p.values and p.values.error_rate_pct
  if not finite(err) or err <= 0 then return nil end
  local t, e, u = M.failure_counts(p)
  local n = t + e + u
  if n <= 0 then return { timeout_pct = 0, error_pct = 0, unknown_pct = err } end
  return { timeout_pct = err * t / n, error_pct = err * e / n, unknown_pct = err * u / n }
end

-- Did load point p time out more of its requests than the error-rate limit (opts: M.error_limit)
-- allows? Then its failures are the overload itself (the server did not answer them in time),
-- never "failed requests, not overload": the saturation search reads it as saturated, with
-- cause "timeouts". Returns the failure_cause record, or nil.
function M.timed_out(p, opts)
  local fc = M.failure_cause(p)
  if fc and fc.timeout_pct > 0 and fc.timeout_pct > M.error_limit(opts).pct then return fc end
  return nil
end

M.TIMEOUT_TEXT = "requests timed out: the load was beyond what it served in time"

-- What the failed requests that cut a load were, as the files say (fc: M.failure_cause's
-- record, or a list of them, one a load point, false for one unknown): "errors" where the
-- files name every failure's cause and none timed out (the server answered them with an
-- error, or could not be reached), "errors_timeouts" where some timed out, within the limit
-- (more is overload: M.timed_out), "unknown" where they record no cause for some.
function M.failures_cause_kind(fc)
  local list = type(fc) == "table" and fc.unknown_pct == nil and fc or { fc }
  if #list == 0 then return "unknown" end
  local timeout = false
  for _, x in ipairs(list) do
    if type(x) ~= "table" or not finite(x.unknown_pct) or x.unknown_pct > 0 then return "unknown" end
    if finite(x.timeout_pct) and x.timeout_pct > 0 then timeout = true end
  end
  return timeout and "errors_timeouts" or "errors"
end

-- The words for failed requests that cut a load rather than overload (fc: as
-- M.failures_cause_kind's): "failed requests, not overload" only where the files name every
-- failure's cause; where they record none for some, "... whose cause the files do not record,
-- so whether it was overload is unknown", never "not overload" without evidence. prefix: the
-- words before (default "failed requests"). One record's shares are said: the unknown one,
-- the timed-out one.
function M.failures_cause_text(fc, prefix)
  prefix = prefix or "failed requests"
  local kind = M.failures_cause_kind(fc)
  local one = type(fc) == "table" and fc.unknown_pct ~= nil and fc or nil
  if kind == "unknown" then
    return ("%s whose cause the files do not record%s, so whether it was overload is unknown"):format(prefix,
      one and (one.error_pct > 0 or one.timeout_pct > 0) and (" (for %.4g %% of the requests)"):format(one.unknown_pct)
      or "")
  elseif kind == "errors_timeouts" then
    return ("%s (errors; %s timed out, within the limit), not overload"):format(prefix,
      one and ("%.4g %% of the requests"):format(one.timeout_pct) or "some")
  end
  return prefix .. ", not overload"
end

-- The first of points (in load order) that its run did not sustain: its saturation point,
-- the first point whose shortfall was failed requests (the saturation search's cause
-- "failures"), or the first failures point (M.failing, opts.slo); #points + 1 when every
-- point was sustained. Where the saturation is unknown because a point could not be judged
-- (M.saturation's sustained_upto: the points below it were judged sustained), that point:
-- the loads below it are the ones the run is known to have sustained; else nil.
-- A second value says whether that point is one that failed requests (not its saturation).
-- unsustained (the run's, optional: llmd.decision.point_unsustained with its run model,
-- unsustained(p)): a point it names (answered short, its failures in bursts: a queue timing
-- requests out) is one that failed requests, too, as the tests across runs leave it out.
local function first_unsustained(points, s, opts, unsustained)
  if not s or (s.unknown and not s.sustained_upto) then return nil end
  local cut, failing = #points + 1, false
  if s.point then cut, failing = s.point, s.cause == "failures" end
  -- (a saturated run with a load below its saturation point that could not be judged, too)
  if s.sustained_upto then cut = math.min(cut, s.sustained_upto + 1) end
  if s.failures and s.failures.point and s.failures.point < cut then cut, failing = s.failures.point, true end
  for i = 1, cut - 1 do
    if M.failing(points[i], opts) or (unsustained and unsustained(points[i])) then return i, true end
  end
  return cut, failing
end

-- The common load of several runs (runs: {{points =, saturation = M.saturation(points),
-- unsustained = (optional) function(p), first_unsustained's}, ...}), the one load at which
-- their latencies are compared (treatments.lua's latency at
-- the common load, compare.lua's Summary at a matched load), on the runs' load axis (M.axis:
-- the offered rate or concurrency when every run was driven by it, else the achieved rate):
-- the lowest of their max sustained loads (each run's highest load before the first load
-- it did not sustain: its saturation point, or a failures point, where more requests failed
-- than the error-rate SLO in opts.slo allows, else more than FAILURES_PCT, whose latencies
-- are of the requests that succeeded only (M.failing); on the offered axis the offered load
-- of its last point before that, or of its highest point when it sustained every one; else
-- the highest achieved rate up to there; a run whose saturation is unknown, the points
-- below the one that could not be judged: first_unsustained), the highest load every run
-- is known to have sustained, so that no
-- latency compared there is an overloaded or failing server's, when it lies within every
-- run's measured range (at least every run's lowest load, or within REPEAT_TOLERANCE of it,
-- as repeats of one load are); else the highest load inside every run's measured range (the
-- lowest of their highest), where some run is past its saturation (M.saturated_on says
-- which), fails requests, or its saturation is unknown. Returns {load =, axis =, rps = (the
-- achieved axis: load; else nil), sustained = bool}, or nil and why: {unknown = true} when a
-- run has no known load, else {ranges = {{lo =, hi =}, ...}, axis =} (in the runs' order)
-- when no load lies within every run's measured range. A run's value there is M.at's (on
-- that axis): measured, or interpolated between two measured loads. failing (sustained
-- only): a run whose sustained loads end there ends them below a point that failed requests.
function M.common_load(runs, opts)
  local lists = {}
  for i, r in ipairs(runs) do lists[i] = r.points end
  local axis = #runs > 0 and M.axis(lists) or "achieved"
  local top, floor, sustained = math.huge, 0, math.huge
  local ranges, ends = {}, {}
  for i, r in ipairs(runs) do
    local lo, hi
    for _, p in ipairs(r.points) do
      local x = M.load_of(p, axis)
      if finite(x) then
        lo = math.min(lo or x, x)
        hi = math.max(hi or x, x)
      end
    end
    if not lo then return nil, { unknown = true } end
    ranges[i] = { lo = lo, hi = hi }
    top, floor = math.min(top, hi), math.max(floor, lo)
    -- the points before the first it did not sustain (saturated, or failing requests)
    local cut, failing = first_unsustained(r.points, r.saturation, opts, r.unsustained)
    local m
    if cut and axis == "achieved" then
      m = max_achieved(r.points, cut - 1)
    elseif cut then
      -- the points are ordered by offered load (one load type): the last one sustained
      local last = r.points[cut - 1]
      m = last and last.offered
    end
    sustained = sustained and finite(m) and math.min(sustained, m) or nil
    ends[i] = { m = m, failing = failing }
  end
  if #runs == 0 then return nil, { unknown = true } end
  local function within(x) return x >= floor or close(x, floor) end
  local function res(x, sus)
    return { load = x, axis = axis, rps = axis == "achieved" and x or nil, sustained = sus }
  end
  if sustained and within(sustained) then
    local r = res(sustained, true)
    for _, e in ipairs(ends) do if e.failing and e.m == sustained then r.failing = true end end
    return r
  end
  if within(top) then return res(top, false) end
  return nil, { ranges = ranges, axis = axis }
end

M.LADDER_KEYS = { "achieved_rps", "output_tps", "ttft_p50_ms", "ttft_p90_ms", "ttft_p99_ms", "tpot_p90_ms",
  "itl_p90_ms", "latency_p90_ms", "error_rate_pct" }

-- The latency columns of a load curve (the ladder's, the latency chart's panels): TTFT,
-- TPOT (else ITL) and end-to-end latency, each at one percentile. A harness records the
-- percentiles it was asked for (vLLM's benchmark: often p50, p95 and p99, no p90), so the
-- percentile is chosen from the data: the first of PERCENTILE_ORDER that every run has (the
-- same percentile on both sides, never p95 against p90); where none is shared, the first
-- that any run has (common = false: one side has no such value). Families no run has any
-- percentile of are left out.
M.PERCENTILE_ORDER = { "p90", "p95", "p99", "p50", "p999" }
M.LATENCY_FAMILIES = {
  { name = "ttft", label = "TTFT", prefixes = { "ttft" }, labels = { "TTFT" } },
  { name = "tpot", label = "TPOT/ITL", prefixes = { "tpot", "itl" }, labels = { "TPOT", "ITL" } },
  { name = "e2e", label = "E2E latency", prefixes = { "latency" }, labels = { "E2E latency" }, short = { "E2E" } },
}
local PCT_LABEL = { p50 = "p50", p90 = "p90", p95 = "p95", p99 = "p99", p999 = "p99.9" }

-- lists: each run's points; has(p, key): does point p have a value for key (default: a
-- finite M.field). Returns { {family =, key =, label = "TTFT p95" ("E2E latency p95"), short =
-- ("E2E p95"), pct = "p95", has = {run 1, run 2, ...}, common = every run has it}, ... } in the
-- order of LATENCY_FAMILIES. slo (optional, the comparison's SLO list {{key =}, ...}): a
-- family's percentile an SLO names comes first when every run has it, so that a table or
-- panel shows the figure the SLO is judged on (an SLO on TTFT p99 with p90 known too: p99).
function M.latency_columns(lists, has, slo)
  has = has or function(p, key) return finite(field(p, key)) end
  local wanted = {}
  for _, s in ipairs(type(slo) == "table" and slo or {}) do
    if type(s.key) == "string" then
      -- (an end-to-end SLO may be spelt e2e_p99_ms; the load points' field is latency_p99_ms)
      wanted[(s.key:gsub("^e2e_", "latency_"))] = true
    end
  end
  local out = {}
  for _, fam in ipairs(M.LATENCY_FAMILIES) do
    local cands, first = {}, {}
    for i, prefix in ipairs(fam.prefixes) do
      for _, pct in ipairs(M.PERCENTILE_ORDER) do
        local c = { key = prefix .. "_" .. pct .. "_ms", label = fam.labels[i] .. " " .. PCT_LABEL[pct],
          short = (fam.short or fam.labels)[i] .. " " .. PCT_LABEL[pct], pct = pct }
        if wanted[c.key] then first[#first + 1] = c else cands[#cands + 1] = c end
      end
    end
    for i = #first, 1, -1 do table.insert(cands, 1, first[i]) end
    local first_any
    for _, c in ipairs(cands) do
      local runs, all, any = {}, true, false
      for r, pts in ipairs(lists) do
        runs[r] = false
        for _, p in ipairs(pts) do
          if has(p, c.key) then runs[r] = true; break end
        end
        all, any = all and runs[r], any or runs[r]
      end
      local col = { family = fam.name, family_label = fam.label, key = c.key, label = c.label, short = c.short,
        pct = c.pct, has = runs, common = all }
      if all then first_any = col; break end
      if any and not first_any then first_any = col end
    end
    if first_any then out[#out + 1] = first_any end
  end
  return out
end

-- Two runs' load curves paired by load, on their load axis (M.axis: the offered rate or
-- concurrency when both runs were driven by it, else the achieved rate): one row per load
-- point of either run (points of both within REPEAT_TOLERANCE share a row), ordered by that
-- load. Each row is {load =, axis =, rps = (the achieved axis: the load), a =, b =}; each
-- side is {point =, offered =, values = {key = v}, interpolated = bool} with the run's own
-- point, or its values interpolated at the row's load within its measured range, or
-- {outside = true} beyond it, or {na_reason = why} within its range where M.at places no
-- value there and says why (the achieved axis: the run achieved that rate at more than one
-- load, or its rate fell between two load neighbours), never left to read as outside.
function M.ladder(pa, pb, keys)
  keys = keys or M.LADDER_KEYS
  local axis = M.axis { pa, pb }
  local rows = {}
  local function add(p, side)
    local x = M.load_of(p, axis)
    for _, r in ipairs(rows) do
      if not r[side] and close(r.load, x) then
        r[side] = p
        -- a row both runs measured: its load is the mean of the two, the same either way round
        r.load = (r.load + x) / 2
        return
      end
    end
    rows[#rows + 1] = { load = x, [side] = p }
  end
  for _, p in ipairs(by_load(pa, axis)) do add(p, "a") end
  for _, p in ipairs(by_load(pb, axis)) do add(p, "b") end
  table.sort(rows, function(x, y) return x.load < y.load end)
  local out = {}
  for _, r in ipairs(rows) do
    local row = { load = r.load, axis = axis, rps = axis == "achieved" and r.load or nil }
    for side, pts in pairs { a = pa, b = pb } do
      local own = r[side]
      local cell = { values = {} }
      if own then
        cell.point, cell.offered, cell.load_type, cell.interpolated = own.index, own.offered, own.load_type, false
        for _, k in ipairs(keys) do cell.values[k] = field(own, k) end
      else
        local any, why = false, nil
        for _, k in ipairs(keys) do
          local v, w = M.at(pts, r.load, k, axis)
          if v == nil and type(w) == "string" then why = why or w end
          if k == "achieved_rps" then v = axis ~= "achieved" and v or nil end
          cell.values[k] = v
          if v ~= nil and k ~= "achieved_rps" then any = true end
        end
        -- the rate itself on the achieved axis: the row's, when the other values could be placed there
        local s = by_load(pts, axis)
        local inside = #s > 0 and r.load >= M.load_of(s[1], axis) and r.load <= M.load_of(s[#s], axis)
        if inside and any then
          cell.interpolated = true
          if axis == "achieved" then cell.values.achieved_rps = r.load end
        elseif inside and why then
          -- within the run's range, but no value can be placed at this load: N/A and why
          cell.na_reason = why
          cell.values = nil
        else
          cell.outside = true
          cell.values = nil
        end
      end
      row[side] = cell
    end
    out[#out + 1] = row
  end
  return out
end

-- The bracket point p holds of key where its figure is unknown (M.points' p.bounds, from
-- llmd.runmodel.put_bounds: inference-perf's summary NTPOT with 0-token successes counted as
-- 0), {lo =, hi =}, or nil.
function M.bounds_of(p, key)
  local b = type(p) == "table" and type(p.bounds) == "table" and p.bounds[key] or nil
  return type(b) == "table" and finite(b.lo) and finite(b.hi) and b or nil
end

-- Does point p meet SLO s (its figure at most s.max)? true or false; nil where unknown. Where
-- the figure is unknown but bracketed (M.bounds_of), the bracket decides when it lies wholly on
-- one side of the limit (its upper end within it: met; its lower end beyond it: failed), and is
-- returned second; a limit inside the bracket leaves it unknown.
function M.slo_verdict(p, s)
  local v = field(p, s.key)
  if v ~= nil then return v <= s.max end
  local b = M.bounds_of(p, s.key)
  if b and b.hi <= s.max then return true, b end
  if b and b.lo > s.max then return false, b end
  return nil
end

-- Does point p meet every SLO? true, false and the keys that fail, or nil and the
-- unknown key. The default failure limit (M.capacity_slo: default = true) does not hold an
-- unknown error rate against a point, as M.failing does not. A bracketed figure is judged on
-- its bracket (M.slo_verdict).
local function meets(p, slo)
  local failing = {}
  for _, s in ipairs(slo) do
    local ok = M.slo_verdict(p, s)
    if ok == nil and not s.default then return nil, s.key end
    if ok == false then failing[#failing + 1] = s.key end
  end
  return #failing == 0, failing
end
M.meets = meets

-- Capacity at the SLOs: the throughput (M.THROUGHPUT_DEFINITION; and output tok/s) at the
-- highest load at which every SLO holds, and never more than the run sustained. Interpolated linearly between
-- the last passing and the first failing load point (in the order of offered load) only
-- when both are before saturation (sat: M.saturation(points), computed when not given),
-- where the achieved rate still tracks the offered load: past it, the achieved rate is
-- what the server could push through an overload, not a load it sustained. When the SLOs
-- hold up to the last point before saturation, the capacity is that point's achieved
-- rate (the max sustained throughput) as a lower bound: the crossing lies somewhere
-- between it and the saturated point, unmeasured.
-- When the first failing point (before saturation) achieved no more than the last passing
-- one (its failed requests lowered the achieved rate), the achieved rate does not rise
-- between them and no crossing is interpolated: kind "last_passing", a lower bound at the
-- last passing point's rate.
-- A saturation unknown at a point that could not be judged (M.saturation's sustained_upto)
-- bounds it as a saturated point does: kind "last_sustained", at least the highest achieved
-- rate below that point, never a crossing interpolated into or past it.
-- {rps =, output_tps =, kind = "interpolated" | "never_violated" | "saturated" |
-- "last_sustained" | "last_passing" | "below_lowest" | "unknown", bound = "lower" for
-- never_violated, saturated, last_sustained and last_passing,
-- ceiling_rps (saturated) = the highest achieved rate at any load (M.ceiling: a crashed
-- repeat left out), which the capacity cannot exceed; a bound's output tok/s (output_tps:
-- its load point's own) spans floor_tps
-- (the fewest delivered at that point or any load above it, where the capacity may lie:
-- past it fewer output tokens per request can leave a higher load with fewer tok/s) to
-- ceiling_tps (saturated, last_passing: the most delivered at any load; nil, no upper end,
-- where it never failed), each nil where a point's tok/s is unknown, limiting = key,
-- first_failing = the first failing point's index and first_failing_rps its achieved rate,
-- last_passing_rps (interpolated) = the achieved rate of the last point that met every SLO
-- (last_passing_tps and first_failing_tps: the two points' output tok/s), load_type,
-- passing_offered = the offered load of the point that met every SLO at the bracket's lower
-- end (interpolated, bounds), failing_offered = that of the first failing point
-- (interpolated, below_lowest; saturated and last_sustained where that point failed an SLO),
-- failing_unsustained = true where that failing point is past the run's saturation or could
-- not be judged (saturated, last_sustained, or below_lowest at a lowest load already past it:
-- its latencies may be a queue's, whose length is the arrivals' luck, llmd.decision.capacity_touch_at),
-- offered (interpolated, when both points' offered loads are known and of one type) = the
-- offered load at the crossing, on the same line as rps (the
-- reason says it), failed_slos (below_lowest) = the SLOs it failed at its lowest load, in
-- words ("TTFT p90 ≤ 200.0 ms"), reason =}. An interpolated figure is an estimate: the
-- measurements place the capacity only between last_passing_rps and first_failing_rps
-- (llmd.decision.capacity_bracket).
-- SLO metrics as the report's tables name them ("TTFT p90", not ttft_p90_ms), for reasons
-- (slo, where given: the default failure limit of M.capacity_slo is named as such, "Error
-- rate (the default 5 % failure limit)", never as if an error-rate SLO had been given)
local function labels(keys, slo)
  local default = {}
  for _, s in ipairs(slo or {}) do
    if s.default then default[s.key] = s end
  end
  local t = {}
  for i, k in ipairs(type(keys) == "table" and keys or { keys }) do
    t[i] = metrics.has(k) and metrics.get(k).label or tostring(k)
    if default[k] then t[i] = ("%s (the default %g %% failure limit)"):format(t[i], default[k].max) end
  end
  return table.concat(t, ", ")
end

-- A run that fails the SLOs at one load and meets them at a higher one (noise, a warm-up
-- that reached the lowest load, a server restarted mid-run): its load points do not cross
-- the limits once, so no capacity can be read from them, neither "below the lowest load"
-- (a higher load met them) nor a crossing between a passing and a failing point (a higher
-- one met them again). Every point is looked at, saturated ones too (the load was offered
-- to it all the same); a point whose SLO metrics are unknown says nothing. Returns nil when
-- no failing point is followed by a passing one, else {kind = "non_monotone", passed =
-- {indices}, failed = {indices}, passed_rps = {achieved rates}, failed_rps = {...},
-- failing = the SLO keys failed at the first failing point, limiting = the first of them,
-- reason = what is true, in words}.
-- past_from (fixh40): the first point past saturation (M.saturated_from): a point there that met
-- the SLOs is listed as saturated (saturated = {indices}, saturated_rps), not among those that met
-- them, and not among the loads to repeat (repeats past saturation cannot place a capacity).
-- Nor does it make the run non-monotone (fixk45): a capacity is read only at loads the run
-- sustained, and past saturation the latencies are a queue's, whose length grows with the
-- run's duration, or the survivors' of the requests that timed out (queue_sim.py --timeout 1,
-- seed 2007: TTFT mean failed at 8 req/s offered and met at 8.5, saturated, 6.834 req/s
-- achieved): meeting the SLOs there says nothing of noise at the loads below it. Only a
-- sustained load that met them above one that failed reopens the crossing; saturated passes
-- are then listed beside it.
local function non_monotone(points, slo, past_from)
  local passed, failed, failing = {}, {}, nil
  local sat_passed = {}
  local reopened = false
  -- every SLO failed at some failing point, each once, in the SLOs' order: named, never
  -- "failed one" where several SLOs apply
  local failed_keys, seen = {}, {}
  for i, p in ipairs(points) do
    local ok, detail = meets(p, slo)
    if ok == true and past_from and i >= past_from then
      sat_passed[#sat_passed + 1] = p
    elseif ok == true then
      passed[#passed + 1] = p
      if #failed > 0 then reopened = true end
    elseif ok == false then
      failed[#failed + 1] = p
      failed[p] = detail -- (what this point failed, for the texts below)
      failing = failing or detail
      for _, k in ipairs(detail) do seen[k] = true end
    end
  end
  for _, s in ipairs(slo) do if seen[s.key] then failed_keys[#failed_keys + 1] = s.key end end
  if not reopened then return nil end
  local function idx(ps)
    local out = {}
    for i, p in ipairs(ps) do out[i] = p.index end
    return out
  end
  local function rates(ps)
    local out = {}
    for i, p in ipairs(ps) do out[i] = p.achieved_rps end
    return out
  end
  -- "load points 2 and 3 (20 and 30 req/s achieved)"
  local function said(ps)
    local function join(xs)
      if #xs == 1 then return xs[1] end
      return table.concat(xs, ", ", 1, #xs - 1) .. " and " .. xs[#xs]
    end
    local is, rs = {}, {}
    for _, p in ipairs(ps) do
      is[#is + 1] = tostring(p.index)
      rs[#rs + 1] = p.achieved_rps and ("%.4g"):format(p.achieved_rps) or "unknown"
    end
    return ("%s %s (%s req/s achieved)"):format(#ps == 1 and "load point" or "load points", join(is), join(rs))
  end
  local the = #slo == 1 and "the SLO" or "every SLO"
  local rps = function(ps)
    local r = rates(ps)
    for i, x in ipairs(r) do r[i] = ("%.4g"):format(x) end
    return table.concat(r, ", ")
  end
  -- the failing points grouped by the SLOs each failed, so that no point is said to fail an
  -- SLO it met ("failed Error rate at 8.99 req/s, failed Error rate and TTFT p99 at 29.97,
  -- 39.96 req/s", never "failed Error rate, TTFT p99 at 8.99, 29.97, 39.96")
  local groups, order = {}, {}
  for _, p in ipairs(failed) do
    local k = labels(failed[p], slo)
    if not groups[k] then groups[k], order[#order + 1] = {}, k end
    local g = groups[k]
    g[#g + 1] = p
  end
  local brief_failed = ("failed %s at %s req/s"):format(#slo == 1 and "it" or labels(failed_keys, slo), rps(failed))
  local detail_failed = ("failed %s at %s"):format(labels(failed_keys, slo), said(failed))
  if #order > 1 then
    local b, d = {}, {}
    for i, k in ipairs(order) do
      local words = k:gsub(", ", " and ")
      b[i] = ("failed %s at %s req/s"):format(words, rps(groups[k]))
      d[i] = ("%s at %s"):format(words, said(groups[k]))
    end
    brief_failed = table.concat(b, ", ")
    detail_failed = "failed " .. table.concat(d, ", and ")
  end
  if #sat_passed > 0 then
    brief_failed = ("%s, saturated at %s req/s"):format(brief_failed, rps(sat_passed))
    detail_failed = ("%s, and was past saturation at %s (meeting %s there places no capacity)")
      :format(detail_failed, said(sat_passed), #slo == 1 and "it" or "them")
  end
  local function offered(ps)
    local out = {}
    for i, p in ipairs(ps) do out[i] = p.offered end
    return out
  end
  -- (passed_offered, failed_offered: the same points' offered loads: where a
  -- range from repeats whose end is non-monotone leaves an order open, llmd.decision.same_load_pass_fail)
  return { kind = "non_monotone", passed = idx(passed), failed = idx(failed), passed_rps = rates(passed),
    passed_offered = offered(passed), failed_offered = offered(failed),
    saturated = #sat_passed > 0 and idx(sat_passed) or nil,
    saturated_rps = #sat_passed > 0 and rates(sat_passed) or nil,
    failed_rps = rates(failed), failing = failing, limiting = failing[1],
    first_failing = failed[1].index, first_failing_rps = failed[1].achieved_rps,
    -- "met the SLO at 20, 30 req/s, failed it at 10 req/s" (for a table cell)
    brief = ("met %s at %s req/s, %s"):format(the, rps(passed), brief_failed),
    -- "met the SLO at load points 2 and 3 (20 and 30 req/s achieved) and failed TTFT p90 at ..."
    detail = ("met %s at %s and %s"):format(the, said(passed), detail_failed),
    reason = ("non-monotone: the run met %s at %s and %s; a load that met %s lies above one that "
      .. "failed, so its load points do not cross %s once and no capacity can be read from them (noise or a "
      .. "warm-up can do this: repeat those loads)"):format(the, said(passed), detail_failed,
      #slo == 1 and "it" or "them", #slo == 1 and "its limit" or "the limits") }
end

-- The SLOs among slo whose keys are in keys, as one phrase in the SLOs' order: "TTFT p90 ≤
-- 200.0 ms and Error rate ≤ 1.00 %" (each SLO's own text, llmd.decision.parse_slo's).
local function slo_texts(slo, keys)
  local want, out = {}, {}
  for _, k in ipairs(keys) do want[k] = true end
  for _, s in ipairs(slo) do
    if want[s.key] then out[#out + 1] = s.text or labels(s.key) end
  end
  return #out > 0 and table.concat(out, " and ") or nil
end

-- What settles the SLO metrics unknown at a load point (missing: capacity_of's list): an NTPOT
-- unknown only because inference-perf's summary counts 0-token requests as 0 is settled by its
-- per-request file, never by measuring again (another summary counts them the same way).
local function settle_unknown(missing)
  local ip = require "llmd.harness.inference_perf"
  for _, m in ipairs(missing) do
    if not ip.zero_counted(m.na) then return "measure it again to find the capacity" end
  end
  return "inference-perf's per-request file (per_request_lifecycle_metrics.json), which lets the 0-token "
    .. "requests be left out, settles it (measuring it again would not: another summary counts them the same way)"
end

-- A bracket lo to hi with the limit lim inside it, as the texts quote them (metrics.format),
-- with enough decimals to tell the three apart (fixh43: "11.01 inside 11.01 to 11.02 ms"):
-- lo, hi and, where more than the catalogue's decimals were needed, the limit's own (else nil:
-- the SLO's text says it).
local function apart_digits(key, lo, hi, lim)
  local a, b = metrics.format(key, lo), metrics.format(key, hi)
  local bare = metrics.format(key, lim)
  if a ~= bare and b ~= bare then return a, b, nil end
  local unit = metrics.format(key, lim):sub(#metrics.format(key, lim, nil, { bare = true }) + 1)
  local f = "%." .. metrics.decimals_apart({ lo, hi }, lim, 3, 8) .. "f"
  return f:format(lo) .. unit, f:format(hi) .. unit, f:format(lim) .. unit
end

local function capacity_of(points, slo, sat)
  if not slo or #slo == 0 then return { kind = "unknown", reason = "no SLO given" } end
  if #points == 0 then return { kind = "unknown", reason = "no measured load point" } end
  sat = sat or M.saturation(points, { slo = slo })
  if sat.count_check then return { kind = "unknown", reason = sat.reason } end
  -- the most the run achieved at any load, in req/s and tok/s, a crashed repeat left out
  -- (M.ceiling, within the same error-rate limit as the max sustained throughput)
  local ceil_rps, ceil_tps, ceil_out = M.ceiling(points, { slo = slo })
  -- within the default failure limit too, where no error-rate SLO is given: the loads the max
  -- sustained throughput counts as sustained (M.capacity_slo)
  slo = M.capacity_slo(slo)
  -- the first point past saturation (#points + 1 when none is, or when it is unknown; a
  -- shortfall of failed requests is no saturation: that point is judged by the SLOs)
  local limit = sat.cause ~= "failures" and sat.point or #points + 1
  -- a saturation unknown at a point that could not be judged (M.saturation's
  -- sustained_upto): no crossing is read at or past that point either, as at a saturated
  -- one; the capacity is at least the last load known to be sustained
  -- (or saturated above such a point: M.saturation's unjudged)
  local unjudged = sat.sustained_upto and sat.sustained_upto < #points and sat.sustained_upto + 1 <= limit
  if unjudged then limit = sat.sustained_upto + 1 end
  -- every SLO metric unknown at some load point before saturation, each said once with
  -- the points that lack it and the run's reason (the first point's): {key, points, na}
  local missing, by_key = {}, {}
  for i, p in ipairs(points) do
    if i >= limit then break end
    for _, s in ipairs(slo) do
      if M.slo_verdict(p, s) == nil and not s.default then
        local m = by_key[s.key]
        if not m then
          m = { key = s.key, points = {}, na = p.na[s.key] or "not measured" }
          -- (bracketed, the limit inside the bracket: the files record the metric, M.slo_verdict)
          local b = M.bounds_of(p, s.key)
          if b then
            m.bracketed = true
            local lo, hi, lim = apart_digits(s.key, b.lo, b.hi, s.max)
            m.na = ("%s; the limit, %s, lies inside that bracket (%s to %s), so whether load point %d met it is "
              .. "unknown"):format(m.na, lim and ("%s ≤ %s"):format(labels(s.key), lim) or s.text or labels(s.key),
              lo, hi, p.index or i)
          end
          by_key[s.key] = m
          missing[#missing + 1] = m
        end
        m.points[#m.points + 1] = i
      end
    end
  end
  if #missing > 0 then
    local parts, first = {}, math.huge
    for _, m in ipairs(missing) do
      m.every = #m.points == math.min(limit - 1, #points)
      local where = m.every and (#m.points > 1 and "at every load point" or "")
        or (#m.points == 1 and "at load point " or "at load points ") .. table.concat(m.points, ", ")
      parts[#parts + 1] = ("%s unknown%s: %s"):format(labels(m.key, slo), where ~= "" and (" " .. where) or "", m.na)
      first = math.min(first, m.points[1])
    end
    local unknown = table.concat(parts, "; ")
    -- Every load below the first point with an SLO metric unknown met every SLO (and the
    -- known points cross the limits once): the capacity, the throughput at the highest load
    -- at which every SLO holds, is at least the highest of theirs whatever the unknown point measured:
    -- a lower bound, as "last_passing" (a TTFT p90 left null in one stage file no longer
    -- hides that the loads below it held the SLO). Below a failing point, or at the lowest
    -- load, an unknown point leaves the capacity unknown.
    local best_p
    for j = 1, first - 1 do
      local p = points[j]
      if meets(p, slo) ~= true or not p.achieved_rps then best_p = nil; break end
      if not best_p or p.achieved_rps > best_p.achieved_rps then best_p = p end
    end
    if best_p and not non_monotone(points, slo) then
      local failed_at, q, q_detail
      for j = first + 1, #points do
        local ok, detail = meets(points[j], slo)
        if ok == false then
          failed_at = ("; load point %d violates %s"):format(points[j].index, labels(detail, slo))
          q, q_detail = points[j], detail
          break
        end
      end
      -- A load that failed above the unknown one (fixh43): the capacity, the throughput at the
      -- highest load that meets every SLO, lies below that load, so where its achieved rate is
      -- above the bound's it is the capacity's upper end (ceiling_rps, ceiling_failing = its
      -- index; in tok/s the most delivered from the bound's point up to it), never the most
      -- at any load (verify43: 104.24 req/s at load point 6 above a fail at point 4's 92.19).
      local c_rps, c_tps, c_failing, floor_tps = ceil_rps, ceil_tps, nil, nil
      local from = position(points, best_p)
      if q and finite(q.achieved_rps) and q.achieved_rps > best_p.achieved_rps then
        c_rps, c_failing = q.achieved_rps, q.index
        local top, low = nil, nil
        for j = from, position(points, q) do
          local t = points[j].output_tps
          if not finite(t) then top, low = nil, nil; break end
          top, low = math.max(top or t, t), math.min(low or t, t)
        end
        c_tps, floor_tps = top, low
      end
      return { kind = "last_passing", bound = "lower", rps = best_p.achieved_rps, output_tps = best_p.output_tps,
        ceiling_rps = c_rps, ceiling_tps = c_tps, ceiling_left_out = not c_failing and ceil_out or nil,
        ceiling_failing = c_failing,
        first_failing = q and q.index, first_failing_rps = q and q.achieved_rps,
        first_failing_tps = q and q.output_tps, limiting = q_detail and q_detail[1], failing = q_detail,
        floor_tps = floor_tps or min_output_tps_from(points, from), load_type = best_p.load_type,
        passing_offered = best_p.offered, failing_offered = q and q.offered, unknown_at = missing,
        reason = ("every SLO holds up to load point %d (%.4g req/s achieved); %s%s. The capacity is at least "
          .. "%.4g req/s, whatever load point %d measured%s; %s"):format(
          points[first - 1].index, points[first - 1].achieved_rps, unknown, failed_at or "", best_p.achieved_rps,
          points[first].index, c_failing and (", and below load point %d's %.4g req/s, where it failed"):format(
            q.index, q.achieved_rps) or "", settle_unknown(missing)) }
    end
    return { kind = "unknown", missing = missing, reason = unknown }
  end
  local nm = non_monotone(points, slo, M.saturated_from(sat))
  if nm then return nm end
  local last
  for i, p in ipairs(points) do
    if i >= limit then break end
    local ok, detail = meets(p, slo)
    if not p.achieved_rps then
      return { kind = "unknown", reason = ("load point %d: achieved rate unknown%s"):format(i,
        p.na.throughput_req_s and (" (" .. p.na.throughput_req_s .. ")") or "") }
    end
    if not ok then
      if not last then
        return { kind = "below_lowest", limiting = detail[1], failing = detail, failed_slos = slo_texts(slo, detail),
          lowest_rps = p.achieved_rps,
          lowest_tps = p.output_tps, load_type = p.load_type, failing_offered = p.offered,
          first_failing = p.index, first_failing_rps = p.achieved_rps,
          reason = ("the lowest load point (%.4g req/s achieved) already violates %s"):format(p.achieved_rps,
            labels(detail, slo)) }
      end
      -- failed requests (or noise) left p with a lower achieved rate than last: the achieved
      -- rate does not rise between them, so no crossing can be read on it; the capacity is
      -- at least last's rate (a lower bound, kind "last_passing"), unmeasured above
      if p.achieved_rps <= last.achieved_rps then
        local err = field(p, "error_rate_pct")
        return { kind = "last_passing", bound = "lower", rps = last.achieved_rps, output_tps = last.output_tps,
          ceiling_rps = ceil_rps, ceiling_tps = ceil_tps, ceiling_left_out = ceil_out,
          floor_tps = min_output_tps_from(points, position(points, last)), load_type = last.load_type,
          passing_offered = last.offered,
          first_failing = p.index, first_failing_rps = p.achieved_rps, limiting = detail[1], failing = detail,
          reason = ("every SLO holds up to load point %d (%.4g req/s achieved); load point %d violates %s there, and "
            .. "achieved only %.4g req/s%s, no more than load point %d, so the achieved rate does not rise between "
            .. "them and no crossing can be interpolated on it. The capacity is at least %.4g req/s; measure loads "
            .. "between these two points to find it"):format(last.index, last.achieved_rps, p.index,
            labels(detail, slo), p.achieved_rps,
            finite(err) and err > 0 and (" (%.4g %% of its requests failed)"):format(err) or "", last.index,
            last.achieved_rps) }
      end
      -- the fraction of the way from last to p where the first SLO is crossed
      local t, limiting = 1, detail[1]
      for _, s in ipairs(slo) do
        -- (a figure judged on its bracket, M.slo_verdict: its upper end, where the crossing
        -- comes soonest, never a capacity read above what the bracket allows)
        local vl, vf = field(last, s.key), field(p, s.key)
        local bl, bf = vl == nil and M.bounds_of(last, s.key), vf == nil and M.bounds_of(p, s.key)
        if bl then vl = bl.hi end
        if bf then vf = bf.hi end
        -- (an error rate unknown at either point, under the default failure limit, which
        -- does not hold it against a point: where p failed that limit and last's is
        -- unknown, no line runs between them, and the crossing is taken at last)
        if vf ~= nil and vf > s.max then
          local ts = vl ~= nil and vf ~= math.huge and vf ~= vl and (s.max - vl) / (vf - vl) or 0
          if ts < t then t, limiting = ts, s.key end
        end
      end
      -- each figure on the line between the two points' own, at the crossing: the output
      -- tok/s too, which falls between them where it falls with load (fewer tokens per request
      -- at the higher load), never held at the last passing point's
      local function lerp(k)
        local a, b = field(last, k), field(p, k)
        if not (finite(a) and finite(b)) then return finite(a) and a or nil end
        return a + t * (b - a)
      end
      -- the offered load at the crossing, on the same line (the two points are neighbours in
      -- offered load): what to drive the run at to sit at its capacity
      local offered_at, where = nil, ""
      if finite(last.offered) and finite(p.offered) and last.load_type == p.load_type
        and (p.load_type == "rate" or p.load_type == "concurrency") then
        offered_at = last.offered + t * (p.offered - last.offered)
        where = p.load_type == "rate"
          and (" (%g and %g req/s offered), at about %.4g req/s offered"):format(last.offered, p.offered, offered_at)
          or (" (concurrency %g and %g), at about concurrency %.4g"):format(last.offered, p.offered, offered_at)
      end
      return { kind = "interpolated", rps = lerp("achieved_rps"), output_tps = lerp("output_tps"),
        limiting = limiting, between = { last.index, p.index }, first_failing = p.index,
        first_failing_rps = p.achieved_rps, last_passing_rps = last.achieved_rps,
        last_passing_tps = last.output_tps, first_failing_tps = p.output_tps,
        load_type = p.load_type, passing_offered = last.offered, failing_offered = p.offered, offered = offered_at,
        reason = ("%s crosses its limit between load points %d and %d%s"):format(labels(limiting, slo), last.index,
          p.index, where) }
    end
    last = p
  end
  if limit <= #points then
    local q = points[limit]
    local ok, detail = meets(q, slo)
    local fails = ok == false and ("; it violates %s there"):format(labels(detail, slo)) or ""
    -- what the saturation rule judged there (M.saturation): its timeouts, or the answered
    -- rate against what it reads it against (M.answered_against: the sends, not the offered,
    -- where the client sent more than offered; main said "only 8.754 of 8.5 req/s offered")
    local rps, ref, ref_word = M.answered_against(q)
    local sat_text = sat.point == limit and sat.cause == "timeouts" and finite(sat.timed_out_pct)
      and ("%.4g %% of its requests timed out, more than %s"):format(sat.timed_out_pct,
        M.error_limit({ slo = slo }).text)
      or rps and rps < ref and ("it achieved %.4g of the " .. (ref_word == "offered" and "%g" or "%.4g")
        .. " req/s %s"):format(rps, ref, ref_word)
      or "its throughput had stopped growing"
    if unjudged then
      sat_text = "whether the run kept up there is unknown: see its max sustained throughput"
    end
    if not last then
      if ok == false then
        return { kind = "below_lowest", limiting = detail[1], failing = detail, failed_slos = slo_texts(slo, detail),
          lowest_rps = q.achieved_rps,
          lowest_tps = q.output_tps, load_type = q.load_type, failing_offered = q.offered,
          first_failing = q.index, first_failing_rps = q.achieved_rps, failing_unsustained = true,
          reason = ("the lowest load point (%.4g req/s achieved) already violates %s"):format(q.achieved_rps or 0,
            labels(detail, slo)) }
      end
      return { kind = "unknown", reason = (unjudged and "the lowest load point could not be judged (%s), so no load "
        .. "is known to have been sustained to read a capacity from" or "the lowest load point had already saturated: "
        .. "%s, so no load was sustained to read a capacity from"):format(sat_text) }
    end
    -- the highest achieved rate before saturation (the max sustained throughput), its tok/s
    local best, best_tps, best_p
    for j = 1, limit - 1 do
      local p = points[j]
      if not best or p.achieved_rps > best then best, best_tps, best_p = p.achieved_rps, p.output_tps, p end
    end
    -- that figure is the max sustained throughput unless a failures point below saturation
    -- cut that lower (the exception where a capacity passes it: no error-rate SLO); then it
    -- is said as what it is, never "the max sustained throughput" beside another figure
    local what_best = "the max sustained throughput"
    local cut = sat.failures
    if cut and finite(sat.max_sustained_rps) and sat.max_sustained_rps < best then
      what_best = ("the highest achieved rate before saturation (above the max sustained throughput, %.4g req/s, "
        .. "which failed requests at load point %d cut)"):format(sat.max_sustained_rps, cut.point)
    end
    -- what the run delivered at most, at any load: the capacity cannot be above it (M.ceiling)
    local ceiling = ceil_rps
    -- the bound's words: its figure is the last load's before saturation, or where a load
    -- below it achieved more (the rate dipped), that load's, named (bound_note; main said
    -- "the last load before saturation" beside another point's figure, audit37 #4)
    local bound_note = best_p ~= points[limit - 1]
      and ("the most before saturation, at load point %d"):format(position(points, best_p)) or nil
    if bound_note then what_best = ("%s, load point %d's"):format(what_best, position(points, best_p)) end
    if unjudged then
      what_best = "the last load known to be sustained"
      bound_note = bound_note and ("the most before the load that could not be judged, at load point %d"):format(
        position(points, best_p))
    end
    return { kind = unjudged and "last_sustained" or "saturated", bound = "lower", rps = best, output_tps = best_tps,
      ceiling_rps = ceiling, ceiling_left_out = ceil_out, bound_note = bound_note,
      ceiling_tps = ceil_tps, floor_tps = min_output_tps_from(points, position(points, best_p)),
      load_type = best_p.load_type, passing_offered = best_p.offered,
      first_failing = ok == false and q.index or nil, first_failing_rps = ok == false and q.achieved_rps or nil,
      failing_offered = ok == false and q.offered or nil, limiting = ok == false and detail[1] or nil,
      failing_unsustained = ok == false or nil,
      reason = ("every SLO holds up to load point %d (%.4g req/s achieved); load point %d %s (%s)%s. "
        .. "The capacity is at least %.4g req/s, %s; measure loads between these two points to find it"):format(
        limit - 1, points[limit - 1].achieved_rps, limit, unjudged and "could not be judged" or "had saturated",
        sat_text, fails, best, what_best) }
  end
  -- its tok/s, as every bound's: the point its req/s figure is read at, its own (no longer
  -- the most at any load: a lower load that delivered more tok/s, more tokens per request,
  -- is not the capacity's load), from the fewest at that load or above it (floor_tps)
  local best, best_p
  for _, p in ipairs(points) do
    if not best or p.achieved_rps > best then best, best_p = p.achieved_rps, p end
  end
  return { kind = "never_violated", bound = "lower", rps = best, output_tps = best_p.output_tps,
    floor_tps = min_output_tps_from(points, position(points, best_p)),
    load_type = best_p.load_type, passing_offered = best_p.offered,
    reason = "every load point meets every SLO: the capacity is at least the highest load measured" }
end

-- The noise of a capacity's ends as rates (c: M.capacity's result on points, with its repeats'
-- range or its intervals' noise where it has one, c.interval or c.noise: call it once the span
-- is final): {fig_lo, fig_n = the lower end of the 95 % interval (M.rate_interval) of the load
-- point where the capacity's span (decision.capacity_span) starts, the most achieved at or
-- below that start, scaled to it, and its count (fig_repeats: that point's repeats); top_hi,
-- top_n = the upper end of the interval of the load point where the span ends (the least
-- achieved at or above that end, scaled to it: the load it already failed at), and its count;
-- ceiling_hi, ceiling_n = the upper end of its ceiling point's (as saturation_noise's); each
-- nil where unknown}, nil where all are, and for a capacity that is neither a bound nor an
-- estimate. decision.capacity_evidence orders a run
-- above another's ceiling only beyond it (decision.gap_noise, the rule
-- decision.sustained_order uses). (fixg40 read the figure's noise at the figure's own load and
-- llmd.report then again at the span's start; a gap read from the span's lower end against the
-- figure's interval mixed two loads' rates: 5.84 req/s against 8.24's lower end 7.50, a
-- half-width of 1.66 req/s, so 10 vs 20 slots at ttft_mean_ms=500 read "cannot say". One
-- computation now, at the span: the measured bracket's lower end where nothing widens it.)
function M.capacity_rate_noise(points, c)
  if not (c and (c.bound or c.kind == "interpolated")) then return nil end
  local lo, hi = require("llmd.decision").capacity_span(c)
  local out = {}
  if finite(hi) then
    local at
    for _, p in ipairs(points) do
      if finite(p.achieved_rps) and p.achieved_rps >= hi and (not at or p.achieved_rps < at.achieved_rps) then
        at = p
      end
    end
    local x = at and at.achieved_rps > 0 and M.rate_interval(at)
    if x then out.top_hi, out.top_n = hi * x.hi / at.achieved_rps, x.n end
  end
  if finite(lo) then
    local at
    for _, p in ipairs(points) do
      if finite(p.achieved_rps) and p.achieved_rps <= lo and (not at or p.achieved_rps > at.achieved_rps) then
        at = p
      end
    end
    local x = at and at.achieved_rps > 0 and M.rate_interval(at)
    if x then out.fig_lo, out.fig_n, out.fig_repeats = lo * x.lo / at.achieved_rps, x.n, x.repeats end
  end
  if finite(c.ceiling_rps) then
    local sn = saturation_noise(points, { ceiling_rps = c.ceiling_rps, ceiling_left_out = c.ceiling_left_out })
    out.ceiling_hi, out.ceiling_n = sn.ceiling_hi, sn.ceiling_n
  end
  return (out.fig_lo or out.top_hi or out.ceiling_hi) and out or nil
end

-- The capacity at the SLOs (capacity_of); its rate noise is M.capacity_rate_noise's, once its
-- span is known (llmd.report, llmd.treatments).
-- Every load point whose SLO metric was judged on its bracket (M.slo_verdict) is said in c's
-- reason, with the bracket and which side of the limit it lies on, and listed in
-- c.judged_on_bounds ({point, key, lo, hi, met}): the figure itself stays N/A.
function M.capacity(points, slo, sat)
  local c = capacity_of(points, slo, sat)
  if not slo or #slo == 0 then return c end
  local by, order = {}, {}
  for i, p in ipairs(points) do
    for _, s in ipairs(M.capacity_slo(slo)) do
      local ok, b = M.slo_verdict(p, s)
      if b then
        if not by[s.key] then by[s.key], order[#order + 1] = { s = s, at = {} }, s.key end
        local e = by[s.key]
        e.at[#e.at + 1] = { point = p.index or i, key = s.key, lo = b.lo, hi = b.hi, met = ok }
      end
    end
  end
  if #order == 0 then return c end
  local list, texts = {}, {}
  for _, k in ipairs(order) do
    local e, each, at = by[k], {}, {}
    for _, x in ipairs(e.at) do
      list[#list + 1] = x
      at[#at + 1] = tostring(x.point)
      each[#each + 1] = ("%s to %s at load point %d (%s)"):format(metrics.format(k, x.lo), metrics.format(k, x.hi),
        x.point, x.met and "wholly within the limit: met" or "wholly beyond the limit: failed")
    end
    texts[#texts + 1] = ("%s, N/A at load point%s %s, was judged there on its bracket of the figure against %s: %s")
      :format(labels(k), #at > 1 and "s" or "", table.concat(at, ", "), e.s.text or labels(k),
      table.concat(each, ", "))
  end
  c.judged_on_bounds = json.array(list)
  c.reason = ("%s; %s"):format(tostring(c.reason), table.concat(texts, ". "))
  return c
end

-- What each kind of capacity (M.capacity) gives, the one list every reader of a capacity
-- branches on (M.bracket, M.bracket_tps; llmd.decision's bounds and the kinds two capacities
-- are ordered by; llmd.report's kinds with a figure): "estimate", a figure interpolated
-- between the last load that met every SLO and the first that failed one; "lower", a lower
-- bound, its figure up (the note says which bound); "below", below the lowest load tried, no
-- figure. Any other kind (unknown, non_monotone) gives neither a figure nor a bracket.
M.CAPACITY_KINDS = {
  interpolated = { gives = "estimate" },
  never_violated = { gives = "lower", note = "never violated" },
  saturated = { gives = "lower", note = "the last load before saturation" },
  last_sustained = { gives = "lower", note = "the last load known to be sustained" },
  last_passing = { gives = "lower", note = "the last load that met the SLOs" },
  below_lowest = { gives = "below" },
}

-- What capacity c's kind gives (M.CAPACITY_KINDS): "estimate", "lower", "below" or nil.
function M.capacity_gives(c)
  local k = c and M.CAPACITY_KINDS[c.kind]
  return k and k.gives or nil
end

-- Does capacity c have a figure (an estimate or a lower bound; below the lowest load and
-- the unknown kinds have none)?
function M.capacity_has_figure(c)
  local g = M.capacity_gives(c)
  return g == "estimate" or g == "lower"
end

-- Are capacities ca and cb both below their lowest loads? Each lies anywhere from 0 up to
-- its lowest load's rate, so no gap between the two is a figure of either run.
function M.both_below_lowest(ca, cb)
  return ca ~= nil and cb ~= nil and ca.kind == "below_lowest" and cb.kind == "below_lowest"
end

-- The measured bracket of a capacity, [lo, hi): what the load points place it in, whatever
-- an interpolation says. Interpolated: from the last load that met every SLO
-- (last_passing_rps) to the first that failed one (first_failing_rps); the figure between
-- them is an estimate. A lower bound (never violated, saturated): from its figure up,
-- math.huge. Below the lowest load: from 0 up to that load. A capacity built without its
-- load points (no last_passing_rps) keeps its figure. nil, nil for any other kind
-- (unknown, non-monotone).
function M.bracket(c)
  local gives = M.capacity_gives(c)
  if gives == "estimate" then
    return c.last_passing_rps or c.rps, c.first_failing_rps or c.rps
  elseif gives == "lower" then
    return c.rps, math.huge
  elseif gives == "below" then
    return 0, c.lowest_rps or math.huge
  end
  return nil, nil
end

-- The same bracket in output tok/s, from the same load points' output throughput; nil,
-- nil where a load point's tok/s is unknown, and for the kinds M.bracket has none of. An
-- estimate's is the two points' tok/s in order, lower first: the first failing point may
-- deliver fewer tok/s than the last passing one (fewer output tokens per request there),
-- and a range is never given high end first. A lower bound's runs from its floor_tps (the
-- fewest tok/s at its load point or above: never its own point's tok/s alone, which a
-- higher load, where the capacity may lie, can fall below) up, math.huge, as its req/s
-- bracket runs up: its ceiling (ceiling_tps) caps it where the spans are read
-- (M.capacity_interval, llmd.decision.capacity_span).
function M.bracket_tps(c)
  local lo, hi
  local gives = M.capacity_gives(c)
  if gives == "estimate" then
    lo, hi = c.last_passing_tps, c.first_failing_tps
    if type(lo) == "number" and type(hi) == "number" and hi < lo then lo, hi = hi, lo end
  elseif gives == "lower" then
    lo, hi = c.floor_tps, math.huge
  elseif gives == "below" then
    lo, hi = 0, c.lowest_tps
  end
  if type(lo) ~= "number" or type(hi) ~= "number" then return nil, nil end
  return lo, hi
end

-- The SLO metric that decides capacity c, identical in every repeat at a load point that
-- decides it (the two points an interpolated capacity lies between, the lowest point of one
-- below it): such repeats give no spread to estimate, and the 95 % interval they give has
-- width 0, which would read as certainty; not an error rate whose interval its repeats' pooled
-- requests give (M.repeats_error_ends). {key =, point =, n =, value =} or nil.
local function identical_at(points, c)
  local where, keys = {}, {}
  if c.kind == "interpolated" and c.between then
    where, keys = { c.between[1], c.between[2] }, { c.limiting }
  elseif c.kind == "below_lowest" then
    where, keys = { c.first_failing }, c.failing or { c.limiting }
  end
  for _, i in ipairs(where) do
    local p = points[i]
    for _, k in ipairs(keys) do
      local ci = p and p.ci and p.ci[k]
      -- (an error rate read on its repeats' requests pooled has its interval from their counts,
      -- however alike their shares: M.repeats_error_ends, review54)
      local pooled = k == "error_rate_pct" and p and M.repeats_error_ends(p)
      if ci and ci.identical and not pooled then return { key = k, point = i, n = ci.n, value = ci.mean } end
    end
  end
  return nil
end

-- The points with each SLO metric at one end of its interval: ends[i] = {key = {lo =, hi =}}
-- (bound "lo" or "hi"), the other fields the point's own (M.capacity_interval: the repeats'
-- intervals; M.capacity_noise: one run's percentile intervals). A metric without ends keeps
-- the point's figure.
local function at_bound(points, ends, bound)
  local out = {}
  for i, p in ipairs(points) do
    local q = setmetatable({ values = setmetatable({}, { __index = p.values }) }, { __index = p })
    for key, e in pairs(ends[i] or {}) do
      q.values[key] = e[bound]
      if type(p[key]) == "number" then q[key] = e[bound] end
    end
    out[i] = q
  end
  return out
end

-- The range of the capacity that the repeats allow, when every load point has 2 or more:
-- the capacity on the upper ends of the SLO metrics' 95 % confidence intervals (each point
-- as bad as its repeats allow: the low end) and on their lower ends (as good: the high
-- end), each widened to include the capacity of the means. A point-wise band, not a
-- simultaneous one; the achieved rates are the points' means. Never narrower than what the
-- load points measured: each of the three capacities (the means', the low end's, the high
-- end's) is known only within its measured bracket (M.bracket), and the range covers the
-- three brackets, so that no order is read from repeats that the loads measured cannot
-- support (two interpolated figures between the same two loads are not told apart by
-- their repeats). Returns {lo =, hi =, low = capacity at the upper ends, high = capacity
-- at the lower ends}, lo and hi in req/s: lo is 0 when the low end violates the SLOs at
-- the lowest load, hi is math.huge when the high end is only a lower bound (never
-- violated, or still met at the last point before saturation); an end whose load points
-- do not cross the limits once (non-monotone) leaves that side open (0, math.huge); top =
-- the highest achieved rate measured, bottom the lowest; lo_tps, hi_tps the same range in output tok/s (the
-- three brackets read off the same load points' tok/s, a bound's up to the most its run
-- delivered at any load, as in req/s; nil where one is unknown). nil and
-- why when a point has one run only (no spread to use), a capacity is unknown or
-- non-monotone, or the SLO metric that decides the capacity is the same value in every
-- repeat of a point that decides it (no spread to estimate: "repeats identical: TTFT p90
-- is 250.0 ms in each of the 3 repeats of load point 1, no spread to estimate"). sign: the
-- loads where each of M.SIGN_MIN_REPEATS or more repeats lay on one side of an SLO, which then
-- held at both ends ({point, key, offered, repeats, side = "fail" | "meet"}; nil: none).
local ends_span

function M.capacity_interval(points, slo, cap)
  if not slo or #slo == 0 or #points == 0 then return nil, "no SLO or no load point" end
  local single = 0
  for _, p in ipairs(points) do if (p.repeats or 1) < 2 then single = single + 1 end end
  if single == #points then return nil, "one run per load" end
  if single > 0 then
    return nil, ("%d of %d load points with one run only"):format(single, #points)
  end
  -- saturation is read off the achieved rates (the means), the same for both ends
  local sat = M.saturation(points, { slo = slo })
  cap = cap or M.capacity(points, slo, sat)
  -- (each end within the default failure limit too, as the capacity: M.capacity_slo)
  slo = M.capacity_slo(slo)
  if cap.kind == "unknown" or cap.kind == "non_monotone" then return nil, cap.reason end
  local same = identical_at(points, cap)
  if same then
    return nil, ("repeats identical: %s is %s in each of the %d repeats of load point %d, no spread to estimate")
      :format(labels(same.key), metrics.format(same.key, same.value), same.n, same.point)
  end
  -- the points with each SLO metric at one end of its interval (a metric without an
  -- interval, e.g. infinite in a repeat, keeps its mean)
  -- A point past saturation whose mean is above an SLO fails it at both ends, as a one-run
  -- point's percentile does there (M.capacity_noise): its queue grew for as long as the load
  -- was offered, so its repeats' spread measures how long each one ran, not the noise of a
  -- latency the server holds; a t-interval clipped at 0 (16 req/s, TTFT p90s of 4145, 5247
  -- and 10369 ms: -1662 to 14837 ms) would count it as meeting 500 ms, a load that met the
  -- SLO above one that clearly failed it, and leave the range open above (audit40 #1).
  local past_from = M.saturated_from(sat)
  local ends, sign = {}, {}
  for i, p in ipairs(points) do
    ends[i] = {}
    for _, s in ipairs(slo) do
      local e = M.repeats_ends(p, s.key, s.max, past_from and i >= past_from)
      ends[i][s.key] = e
      if e and e.sign then
        sign[#sign + 1] = { point = i, key = s.key, offered = p.offered, repeats = #p.ci[s.key].samples,
          side = e.lo > s.max and "fail" or "meet" }
      end
    end
  end
  local bad_pts, good_pts = at_bound(points, ends, "hi"), at_bound(points, ends, "lo")
  local low, high = M.capacity(bad_pts, slo, sat), M.capacity(good_pts, slo, sat)
  if low.kind == "unknown" or high.kind == "unknown" then return nil, low.reason or high.reason end
  local r = ends_span(cap, low, high, points, past_from and { M.ceiling(points, { slo = slo }) })
  -- each load's side of the SLOs on both ends ({offered, load_type, bad = met at the upper ends
  -- (true, false, nil: unknown), good = met at the lower ends, past = past saturation}): which
  -- loads' repeats leave an order open (llmd.decision.same_load_pass_fail)
  r.ends = {}
  for i, p in ipairs(points) do
    r.ends[i] = { offered = p.offered, load_type = p.load_type, bad = (meets(bad_pts[i], slo)),
      good = (meets(good_pts[i], slo)), past = past_from ~= nil and i >= past_from or nil }
  end
  -- (the loads whose every repeat lay on one side of an SLO, which held at both ends: M.repeats_ends)
  r.sign = #sign > 0 and sign or nil
  return r
end

-- The fewest repeats whose every figure on one side of an SLO settles that side by themselves
-- (M.repeats_ends): with k independent repeats, all k above the limit when the median of the
-- run-to-run figure is at or below it has chance 2^-k at most (a sign test), 3.1 % for 5, under
-- the one-sided 5 % test. A queue near or past capacity makes the repeats' spread skewed and
-- wide (TTFT p90 at 10 req/s on 20 slots of tests/data/queue_sim.py: 2,362 to 7,319 ms, numpy),
-- so that a t-interval clipped at 0 straddles a 500 ms SLO however plainly every repeat failed
-- it (task fixe46); the sign test needs no shape of that spread.
M.SIGN_MIN_REPEATS = 5

-- The ends {lo, hi} of a repeated load point p's SLO metric key (limit max) that the capacity
-- range from repeats reads (M.capacity_interval, M.capacity_noise): its repeats' 95 %
-- t-interval (p.ci), or nil where it has none. past: p lies at or past its run's saturation
-- (M.saturated_from), where a mean above the SLO fails it at both ends: its queue grew for as
-- long as the load was offered, so its repeats' spread measures how long each one ran, not the
-- noise of a latency the server holds; a t-interval clipped at 0 (16 req/s, TTFT p90s of 4145,
-- 5247 and 10369 ms: -1662 to 14837 ms) would count it as meeting 500 ms, a load that met the
-- SLO above one that clearly failed it (audit40 #1). And where every one of M.SIGN_MIN_REPEATS
-- or more repeats lies on one side of the SLO, that side holds at both ends (a sign test): the
-- good end is then the best repeat, above the limit, or the bad end the worst, within it. sign
-- = true in the ends so changed.
function M.repeats_ends(p, key, max, past)
  local c = p.ci and p.ci[key] or nil
  local v = field(p, key)
  if not (c and type(c.lo) == "number" and type(max) == "number") then return c end
  local hi = type(c.hi) == "number" and c.hi or v
  if past and type(v) == "number" and v > max and c.lo <= max then
    return { lo = v, hi = math.max(hi or v, v) }
  end
  -- the error rate: its repeats' pooled requests (M.repeats_error_ends), not the t-interval of
  -- their shares, where their failures do not vary between repeats beyond chance
  if key == "error_rate_pct" then
    local e = M.repeats_error_ends(p)
    if e then return e end
  end
  local xs = c.samples
  if type(xs) == "table" and #xs >= M.SIGN_MIN_REPEATS and (c.lo <= max and hi > max) then
    local least, most = math.huge, -math.huge
    for _, x in ipairs(xs) do
      if type(x) ~= "number" then return c end
      least, most = math.min(least, x), math.max(most, x)
    end
    if least > max then return { lo = least, hi = math.max(hi, least), sign = true } end
    if most <= max then return { lo = math.min(c.lo, most), hi = most, sign = true } end
  end
  return c
end

-- The first load point of a saturation (M.saturation) past which no load was sustained, or
-- nil where the run did not saturate, its saturation is unknown, or its shortfall was failed
-- requests (no overload: M.point_saturated).
function M.saturated_from(sat)
  if not sat or not sat.point or sat.unknown or sat.cause == "failures" then return nil end
  return sat.point
end

-- The range three capacities (cap, the figures'; low, on the SLO metrics' bad ends; high,
-- on their good ends) leave room for: M.capacity_interval's, and M.capacity_noise's.
-- ceil: {rps, tps} the most the run achieved at any load (M.ceiling), where it saturated:
-- an end left open above by a non-monotone capacity stops there, as a bound's does (no
-- capacity lies past the loads the run sustained; audit40 #1); nil: open.
-- The load point of points that met the SLOs last before the first that failed them in a
-- non-monotone capacity c (M.capacity's: passed, first_failing, by point index), or nil.
local function last_pass_before(points, c)
  local best
  for _, i in ipairs(c.passed or {}) do
    if c.first_failing and i < c.first_failing and (not best or i > best) then best = i end
  end
  if not best then return nil end
  for _, p in ipairs(points) do
    if p.index == best and type(p.achieved_rps) == "number" then return p end
  end
end

-- The first load point of points that failed the SLOs in a non-monotone capacity c
-- (M.capacity's first_failing, by point index), or nil.
local function first_fail_of(points, c)
  if not c.first_failing then return nil end
  for _, p in ipairs(points) do
    if p.index == c.first_failing and type(p.achieved_rps) == "number" then return p end
  end
end

ends_span = function(cap, low, high, points, ceil)
  local lo, hi = math.huge, -math.huge
  -- the same three brackets in output tok/s (the chart's tok/s axis); nil where one is unknown
  local lo_tps, hi_tps = math.huge, -math.huge
  for _, c in ipairs { cap, low, high } do
    local l, h = M.bracket(c)
    local lt, ht = M.bracket_tps(c)
    -- an end that does not cross the limits once gives no capacity: the range is open on
    -- its side (the bad end's from 0, the good end's up)
    if l == nil then
      l, h = c == low and 0 or lo, c == high and math.huge or hi
      lt, ht = c == low and 0 or lo_tps, c == high and math.huge or hi_tps
      -- (the bad ends' reading non-monotone: a load that met the SLOs even at its bad end, below
      -- the first that failed them there, is still a load the run is known to sustain, the range's
      -- floor as an interpolated capacity's last passing load is (audit46: 24 slots met TTFT p90
      -- at 6.13 req/s with its interval 112-117 ms, under 500, yet its range began at 0 because
      -- a load above, unclear, failed at its bad end and a higher one passed))
      local floor = c == low and c.kind == "non_monotone" and last_pass_before(points, c) or nil
      if floor then l, lt = floor.achieved_rps, floor.output_tps or lt end
      -- (the good ends' reading non-monotone: a load that failed the SLOs even at its good end
      -- failed them for certain, and no capacity lies above a load the run certainly did not
      -- meet them at (the README's "highest load at which every SLO holds"): the range ends
      -- there, as a failing lowest load's does, and a pass above it only at its good end (a
      -- wide interval, a queue's few independent requests) is the non-monotone note beside it
      -- (audit49 F4: a 0.6 s TTFT floor failed 500 ms at 4 and 6 req/s with intervals of 673 to
      -- 724 ms, yet its range ran to 7.93 req/s, as its 8 req/s, 3,345 ms from about 8
      -- independent requests, met it at its interval's lower end))
      local cut = c == high and c.kind == "non_monotone" and first_fail_of(points, c) or nil
      if cut then
        h, ht = math.max(l, cut.achieved_rps), lt and type(cut.output_tps) == "number" and math.max(lt, cut.output_tps)
          or ht
        c.cut = { point = cut.index, rps = cut.achieved_rps, offered = cut.offered }
      elseif c == high and ceil then
        h = type(ceil[1]) == "number" and math.max(l, ceil[1]) or h
        ht = type(ceil[2]) == "number" and lt and math.max(lt, ceil[2]) or ht
      end
    end
    -- a lower bound whose run saturated or failed the SLOs above it (ceiling_rps: the most it
    -- achieved at any load) is at most that: the range never reaches above the loads measured;
    -- in tok/s likewise at the most it delivered at any load (ceiling_tps)
    if type(c.ceiling_rps) == "number" and h > c.ceiling_rps then h = math.max(l, c.ceiling_rps) end
    if type(c.ceiling_tps) == "number" and lt and ht > c.ceiling_tps then ht = math.max(lt, c.ceiling_tps) end
    lo, hi = math.min(lo, l), math.max(hi, h)
    if lo_tps and lt then
      lo_tps, hi_tps = math.min(lo_tps, lt), math.max(hi_tps, ht)
    else
      lo_tps, hi_tps = nil, nil
    end
  end
  -- (bottom: the lowest achieved rate measured, which a range open below runs past)
  local bottom
  for _, p in ipairs(points) do
    if type(p.achieved_rps) == "number" and (not bottom or p.achieved_rps < bottom) then bottom = p.achieved_rps end
  end
  return { lo = lo, hi = hi, low = low, high = high, top = max_achieved(points), bottom = bottom, lo_tps = lo_tps,
    hi_tps = hi_tps }
end

-- The uncertainty of a one-run load point's pass or fail against a percentile SLO --------------
-- A percentile measured once is one draw: at the loads where a server's queue starts to
-- build, the TTFT p90 of one minute of requests swings by hundreds of ms from one minute to
-- the next (the same server twice, another seed: 480 ms at 8 req/s in one run, 530 ms in the
-- other), and a capacity read off which side of the SLO each such figure fell is noise
-- (issue capa38: the same server named a winner in 1 of 5 pairs). So where the SLOs are
-- weighed to order two runs, each percentile SLO metric of a load point measured once carries
-- a distribution-free 95 % confidence interval (M.percentile_ci): the order statistics of
-- its requests at ranks n q -+ z sqrt(n deff q (1 - q)), the binomial interval of the rank
-- with the effective sample size n / deff (deff: the design effect of that latency in send
-- order, llmd.decision.design_effect: queued neighbours are alike). A point is known to meet
-- the SLO only where the interval's upper end does, and to fail it only where its lower end
-- is above it; a point whose interval straddles the SLO is unclear, and orders nothing.
-- (Task capa39: the design effect is read on the latencies as they are, not less their
-- straight line in send order as the vLLM queue test reads it (llmd.harness.vllm_benchmark,
-- Hamed & Rao). That test asks whether the queue grew, so a growing queue's trend is its
-- effect, not its noise. Here the question is how far this percentile would differ in
-- another run of the same load: near capacity a minute's queue swells and drains at random,
-- over as long as the load lasts, so the trend one run shows is its draw of the queue, the
-- very noise the interval is for; only a trend that every run repeats (a warm-up from an
-- empty server) is not, and that is small beside it. tests/sim/capa39_deff.py, 60 seeds a
-- load of queue_sim.py's server: a run's percentile varies as a design effect 4 to 6 times
-- the one it estimates would say (20 slots at 8 req/s, TTFT p90: 58 against 13, detrended
-- 11), so these intervals are narrow, not wide, where they decide, and detrending narrows
-- them further. Power comes from the design instead: the Verdict says which (M.unclear_loads).)
-- (Task calib39, capa39_deff.py --coverage, 200 seeds a load on 20 and 24 slots: a told
-- interval holds the median over the seeds in 93-99 % of runs up to rho 0.6, TTFT p90's in
-- 77-80 % at 0.7, 64-72 % at 0.84, 18-26 % at 0.9. Two gates from one run were tried and
-- not kept: no interval where the design effect is above 2 or 3 covers worse (a calm minute
-- near capacity has a small design effect and a low percentile), and none above 0.6 of the
-- run's most achieved rate covers 94 % but ordered 10 against 20 slots in 4 of 20 pairs,
-- 19 without (tests/sim/capa38_sim.py). README says how to read such a point.)
M.SLO_CI_Z = 1.959964
-- (Task cover40: a better one-run variance was tried first: batch means and overlapping
-- batch means of the percentile's indicator in send order, batches of n^(1/2) and n^(2/3)
-- requests, alone or as the larger of theirs and Geyer's design effect with the interval
-- widened by Student's t for the batches' degrees of freedom. Over 200 seeds a load on 20
-- slots and 120 on 24 (tests/sim/capa39_deff.py --batch) none reached 90 % for TTFT p90 at
-- rho 0.77 (62-83 %) or 0.84 (60-86 %): a minute's queue swings as slowly as the minute
-- lasts, and no batch inside it sees more of that than Geyer's sequence does. So the
-- interval is kept, and the points it is known to run narrow at are marked instead:
-- M.interval_coverage.)
-- (Task study51, tests/sim/study51_remedy.py and study51_decide.py: Geyer's initial monotone
-- sequence, 5 batch means with Student's t, the largest design effect of a load and its ladder
-- neighbours, a floor of an M/M/1 relaxation time at achieved / ceiling, 6x above
-- M.NARROW_SHARE, and an upward trend leaving a load unjudged. Those that reach 90 % at rho 0.85
-- widen or tell nothing there, and lost power: 10 against 20 slots ordered in 14 of 20 pairs
-- as it is, 7 with the batch means, 1 with the neighbours'; no A/A winner either way. README.)
-- A one-run load point's interval runs narrow near its run's capacity: at or above this
-- share of the run's ceiling (the most it achieved at any load, a lower bound of its
-- capacity, so that achieved / ceiling is an upper bound of its utilisation), its
-- percentile's interval is marked "narrow_near_capacity"; below it, where the intervals
-- covered 93-99 % in capa39_deff.py (rho up to 0.6), "nominal".
M.NARROW_SHARE = 0.6
-- The worst a one-run design effect was measured to understate the run-to-run one: about 6x
-- (tests/sim/capa39_deff.py; README's coverage table), so an interval may be sqrt(6) too narrow.
M.WORST_DEFF_RATIO = 6

-- Each one-run load point's SLO interval coverage, by point index: "nominal" |
-- "narrow_near_capacity" (M.NARROW_SHARE); nil for a repeated point (its repeats' spread
-- is its interval), one without per-request data (no interval) or whose achieved rate, or
-- its run's ceiling, is unknown.
--
-- fixh40: a narrow interval only matters where it could change pass or fail. So a point is marked
-- only where (1) its run saturated (sat, M.saturation's with the SLOs: else the "ceiling" is just
-- the top load offered, and the top 40 % of any ladder read as near capacity, even 100 slots at
-- rho 0.17), and (2) its interval of some percentile or mean SLO metric (M.slo_ci), widened
-- about the figure by sqrt(M.WORST_DEFF_RATIO) (the worst understatement measured: README's
-- coverage table), would reach across that SLO. A mean's interval (M.mean_ci, its values' design
-- effect) runs narrow near capacity as a percentile's does (audit41's meancov.py: 40 seeds on
-- 20 slots, TTFT mean's covered 65 % at rho 0.74, 33 % at 0.84, with the ranks'; with the values'
-- own no better, capa39_deff.py --meancov). slo: the SLOs; without them
-- (or where no percentile or mean SLO is set) no point is marked.
function M.interval_coverage(points, slo, sat)
  local out, top = {}, max_achieved(points)
  local saturated = sat and sat.point and not sat.unknown
  local widen = math.sqrt(M.WORST_DEFF_RATIO)
  for i, p in ipairs(points) do
    if (p.repeats or 1) < 2 and p.per_request and top and top > 0 and type(p.achieved_rps) == "number" then
      local near = saturated and p.achieved_rps >= M.NARROW_SHARE * top
      local crosses = false
      if near then
        for _, x in ipairs(slo or {}) do
          local v = field(p, x.key)
          if M.interval_key(x.key) and type(v) == "number" and x.max then
            local lo, hi = M.slo_ci(p, x.key)
            -- (an interval that cannot be told is no narrow one: capacity_noise leaves it open)
            if type(lo) == "number" and type(hi) == "number" then
              local wlo, whi = v - widen * (v - lo), v + widen * (hi - v)
              if wlo <= x.max and whi > x.max then crosses = true end
            end
          end
        end
      end
      out[i] = crosses and "narrow_near_capacity" or "nominal"
    end
  end
  return out
end
-- The fewest effective requests (requests / design effect) a percentile's interval is read
-- from: fewer, and the design effect itself is underestimated (llmd.decision.MIN_EFFECTIVE,
-- the same rule as the latency tests'): the interval is unknown, open on both sides.
M.SLO_CI_MIN_EFFECTIVE = 50

-- The sample kind and the percentile (0-100) of a percentile SLO key ("ttft_p90_ms" ->
-- "ttft", 90), nil for any other key (a mean, the error rate).
local PCT_OF = {}
for _, x in ipairs(metrics.PCTS) do PCT_OF[x[1]] = x[2] end
local KIND_OF = { ttft = "ttft", tpot = "tpot", itl = "itl", latency = "latency", ntpot = "ntpot" }
function M.percentile_key(key)
  local prefix, pname = tostring(metrics.canonical(key)):match("^(%a+)_(p%d+)_ms$")
  local kind = prefix and KIND_OF[prefix]
  if not (kind and PCT_OF[pname]) then return nil end
  return kind, PCT_OF[pname]
end

-- The design effect a sample kind's interval reads from a set's sample_deff (llmd.runmodel
-- fill): the token gaps' (ITL) their own, the requests their clusters (itl_gaps:
-- llmd.runmodel.gap_design_effect; the TPOTs' where a set has no such one), every other
-- kind's its requests'. nil where unknown. mean: a mean's, and whose it is: the values' own
-- (kind .. "_mean", ITL's itl_gaps_mean: llmd.decision.value_design_effect) and "values"; where
-- a set has none (a run model saved before fixj44) the ranks' above and "ranks" (task fixa45:
-- the ranks' understates how much a queue's mean varies, tests/sim/capa39_deff.py --meancov).
-- key: a percentile's SLO key (ttft_p90_ms): the larger of the ranks' and its indicator's
-- (llmd.decision.quantile_deff_key, "ttft_p90": llmd.decision.quantile_design_effect) and
-- "indicator", as the rows' effects read it (llmd.decision.sample_effect, task fixe45); where a
-- set has none (its values not all numbers) the ranks' alone (task fixg46: with the ranks' alone
-- 20 slots at 8 req/s read TTFT p90 118-282 ms, design effect 1.83, where its indicator's 5.90
-- leaves 27 effective requests, too few to say; an interval a run model saved so is marked
-- "ranks": saved_pct). ITL's keeps its gaps'.
function M.sample_deff(sd, kind, mean, key)
  if not sd then return nil end
  if mean then
    local own = sd[(kind == "itl" and "itl_gaps" or kind) .. "_mean"]
    if own then return own, "values" end
    local d = M.sample_deff(sd, kind)
    return d, d and "ranks" or nil
  end
  if kind == "itl" then return sd.itl_gaps or sd.itl end
  local d = sd[kind]
  local qk = key and require("llmd.decision").quantile_deff_key(key)
  if not qk then return d end
  if type(sd[qk]) == "number" then return math.max(d or 1, sd[qk]), "indicator" end
  return d
end

-- What a sample kind's n counts, in words: ITL's are token gaps, every other kind's requests.
function M.sample_unit(kind)
  return kind == "itl" and "token gaps" or "requests"
end

-- Why n samples of kind at design effect deff carry too few independent ones for an interval.
-- (llmd.decision.carry_text: where fewer than 100 are alike to their neighbours, that their
-- dependence is unmeasured; required here, as decision requires this module)
local function too_few(n, kind, deff)
  return ("its %d %s %s"):format(n, M.sample_unit(kind), require("llmd.decision").carry_text(n, deff))
end

-- A mean's interval e as a run model saved it (M.stage_percentile_cis; v the figure) read with
-- the values' own design effect: one saved before fixa45 (no e.mean_deff) was read with the
-- ranks' (e.deff), so where the saved stage has both (sd: its sample_deff, llmd.runmodel
-- latency_deff) its half-width grows by sqrt(values' / ranks') (v -+ z sd sqrt(deff / n) is
-- symmetric but for the clip at 0: the half-width is e.hi - v), and it is unknown below
-- M.SLO_CI_MIN_EFFECTIVE; without them it stays the ranks', marked "ranks". A copy; e itself
-- where it says whose it is.
local function saved_mean(e, v, sd, kind)
  if e.mean_deff then return e end
  local out = {}
  for k, x in pairs(e) do out[k] = x end
  out.mean_deff = "ranks"
  local own, ranks = sd and sd[kind .. "_mean"], sd and sd[kind]
  if not (own and ranks and ranks > 0 and e.n and e.deff) then return out end
  local d = math.max(1, e.deff * own / ranks)
  if e.lo ~= nil and e.hi ~= nil then
    local h = (e.hi - v) * math.sqrt(d / e.deff)
    out.lo, out.hi = math.max(0, v - h), v + h
  elseif e.n / d >= M.SLO_CI_MIN_EFFECTIVE then
    -- (too few with the ranks', enough with the values': no spread was saved to widen)
    return out
  end
  out.deff, out.mean_deff = d, "values"
  if e.n / d < M.SLO_CI_MIN_EFFECTIVE then out.lo, out.hi, out.why = nil, nil, too_few(e.n, kind, d) end
  return out
end

-- A percentile's interval e as a run model saved it (M.stage_percentile_cis; key its SLO key)
-- read with its indicator's design effect too (M.sample_deff): one saved before fixg46 (no
-- e.pct_deff) was read with the ranks' alone, so where the saved stage has its indicator's (sd)
-- and that is no larger, it stands ("indicator"); where larger and too few effective requests
-- remain (M.SLO_CI_MIN_EFFECTIVE) it is unknown; else it stays, marked "ranks" (its order
-- statistics are not saved to widen it). A copy; e itself where it says whose it is, where it
-- is unknown already, and for a kind without an indicator's (ITL).
local function saved_pct(e, sd, kind, key)
  local qk = require("llmd.decision").quantile_deff_key(key)
  if e.pct_deff or e.lo == nil or not qk then return e end
  local out = {}
  for k, x in pairs(e) do out[k] = x end
  local q = sd and sd[qk]
  if type(q) == "number" and type(e.deff) == "number" and q <= e.deff then
    out.pct_deff = "indicator"
  elseif type(q) == "number" and type(e.n) == "number" and e.n / q < M.SLO_CI_MIN_EFFECTIVE then
    out.deff, out.pct_deff = q, "indicator"
    out.lo, out.hi, out.why = nil, nil, too_few(e.n, kind, q)
  else
    out.pct_deff = "ranks"
  end
  return out
end

-- What M.percentile_ci and M.mean_ci share for point p's SLO metric key (value v, sample
-- kind; mean: a mean's, M.sample_deff's): an answer already known, packed ({lo, hi, info} or
-- {nil, nil, why[, info]}: the interval a run model read back from its workspace saved,
-- analyze.lua's; no per-request samples; fewer effective requests than
-- M.SLO_CI_MIN_EFFECTIVE), or nil, the samples' accumulator and info: {n = their count, deff =
-- their design effect (at least 1), mean_deff = "values" | "ranks" for a mean, pct_deff =
-- "indicator" | "ranks" for a percentile (whose design effect it is, M.sample_deff)}.
-- (newuser50c N9: "(a summary file)" misnamed inference-perf's stage files, which hold each
-- load's statistics, and nested a third parenthesis in the Pareto text that quotes it)
local NO_REQUESTS_WHY = "no per-request data to tell its uncertainty: its result files hold statistics of each load "
  .. "point, not its requests"
M.NO_REQUESTS_WHY = NO_REQUESTS_WHY
local function ci_source(p, key, kind, v, mean)
  local pr = p.per_request
  if pr and pr.saved then
    local e = pr.saved[key]
    if type(e) ~= "table" or (e.lo == nil and e.why == nil) then
      return table.pack(nil, nil, NO_REQUESTS_WHY)
    end
    if mean then e = saved_mean(e, v, pr.deff, kind) else e = saved_pct(e, pr.deff, kind, key) end
    -- (its requests and design effect where saved: what compare.lua said of the point)
    local info = e.n and { n = e.n, deff = e.deff, mean_deff = e.mean_deff, pct_deff = e.pct_deff } or nil
    if e.lo == nil then return table.pack(nil, nil, e.why, info) end
    return table.pack(math.min(e.lo, v), math.max(e.hi or math.huge, v), info or {})
  end
  local acc = pr and pr.samples and pr.samples[kind]
  if not acc or acc:count() == 0 then
    return table.pack(nil, nil, NO_REQUESTS_WHY)
  end
  local n = acc:count()
  local d, of = M.sample_deff(pr.deff, kind, mean, key)
  -- (of: nil where no design effect is known at all, 1 then, neither the ranks' nor the values'
  -- nor the indicator's)
  local info = { n = n, deff = math.max(1, d or 1), mean_deff = mean and of or nil,
    pct_deff = not mean and of or nil }
  if n / info.deff < M.SLO_CI_MIN_EFFECTIVE then
    -- (fewer than 100 requests alike to their neighbours: unmeasured, llmd.decision.carry_text;
    -- ITL's gaps by their requests' TPOTs, whose design effect theirs is built on)
    local decision = require "llmd.decision"
    local tp = kind == "itl" and pr.samples.tpot and pr.deff and pr.deff.tpot
    local rn = tp and pr.samples.tpot:count()
    if tp and decision.deff_unmeasured(rn, tp) then
      return table.pack(nil, nil, ("its %d token gaps come from %d requests that %s"):format(n, rn,
        decision.carry_text(rn, tp)), info)
    end
    return table.pack(nil, nil, too_few(n, kind, info.deff), info)
  end
  return nil, acc, info
end

-- The 95 % interval of point p's percentile SLO metric key (M.SLO_CI_Z): lo, hi in the
-- metric's unit (ms), always around the point's own figure (a harness's percentile method
-- can put it a hair outside the order statistics'): the order statistics at ranks
-- floor(n q - h) and ceil(n q + h), h = z sqrt(n deff q (1 - q)) (1-based); 0 and math.huge
-- where a rank falls off the sample (below 1, above n). nil, nil and why where it cannot be
-- told: no per-request samples (a summary file), or fewer effective requests than
-- M.SLO_CI_MIN_EFFECTIVE (then info too, after why). info: {n =, deff =}.
function M.percentile_ci(p, key)
  local kind, pct = M.percentile_key(key)
  local v = field(p, key)
  if not kind or type(v) ~= "number" then return nil, nil, "not a percentile" end
  local early, acc, info = ci_source(p, key, kind, v)
  if early then return table.unpack(early, 1, early.n) end
  local n, deff = info.n, info.deff
  local q = pct / 100
  local h = M.SLO_CI_Z * math.sqrt(n * deff * q * (1 - q))
  -- (the order statistics at ranks n q -+ h rounded outward, 1-based: the lower end's rank
  -- down, the upper end's up, so that the interval is never narrower than the binomial one;
  -- a rank off the sample leaves that end unbounded. Order statistic k is the nearest-rank
  -- percentile at 100 (k - 1/2) / n: ceil(k - 1/2) = k, clear of rounding either way.)
  local lo, hi = 0, math.huge
  local rl, ru = math.floor(n * q - h), math.ceil(n * q + h)
  if rl >= 1 then lo = acc:percentile(100 * (rl - 0.5) / n, "nearest") * 1000 end
  if ru <= n then hi = acc:percentile(100 * (ru - 0.5) / n, "nearest") * 1000 end
  return math.min(lo, v), math.max(hi, v), info
end

-- The sample kind of a mean latency SLO key ("ttft_mean_ms" -> "ttft", "ntpot_mean_ms" ->
-- "ntpot"), nil for any other key (a percentile). A point without those samples (a summary
-- file) has no interval, and says why (M.mean_ci).
function M.mean_key(key)
  local prefix = tostring(metrics.canonical(key)):match("^(%a+)_mean_ms$")
  return prefix and KIND_OF[prefix] or nil
end

-- The 95 % interval of point p's mean SLO metric key, as M.percentile_ci gives a
-- percentile's (the same returns and the same fewest effective requests): v -+ z sd /
-- sqrt(n / deff), sd the requests' sample standard deviation (ddof 1), deff the design effect
-- of their values in send order (M.sample_deff's mean one: llmd.decision.value_design_effect;
-- info.mean_deff "values"), the lower end clipped at 0; a run model saved without it reads
-- the ranks' (the percentile's; info.mean_deff "ranks"). Without an interval a one-run load
-- point's pass or fail of a mean SLO was its point estimate's: two runs of one server ordered
-- by which side of the SLO their noise put one load (task fixf40, test_capacity_mean_slo.lua).
-- (Task fixa45: the ranks' design effect understates a mean's, as fixj44 found for the rows:
-- tests/sim/capa39_deff.py --meancov, 20 slots, 200 seeds a load, TTFT mean's interval wholly
-- below the mean over the seeds, a load read as meeting an SLO it fails: README's table.)
function M.mean_ci(p, key)
  local kind = M.mean_key(key)
  local v = field(p, key)
  if not kind or type(v) ~= "number" then return nil, nil, "not a mean" end
  local early, acc, info = ci_source(p, key, kind, v, true)
  if early then return table.unpack(early, 1, early.n) end
  local var = acc:variance(1)
  if not finite(var) then
    return nil, nil, "its requests' spread is unknown (an infinite sample)", info
  end
  -- (samples in seconds, the metric in ms)
  local h = M.SLO_CI_Z * math.sqrt(var * info.deff / info.n) * 1000
  return math.max(0, v - h), v + h, info
end

-- Is key an SLO metric whose one-run interval these give (a percentile or a mean of
-- per-request samples)? Its sample kind, nil otherwise.
function M.interval_key(key)
  return M.percentile_key(key) or M.mean_key(key)
end

-- The 95 % interval of a one-run load point p's error rate (in %, as error_rate_pct): the exact
-- binomial (Clopper-Pearson) interval of its failed requests among its finished ones
-- (stattest.clopper_pearson, at the level of the latency intervals, M.SLO_CI_Z's 95 %), read
-- on the effective sample: k / deff failures of n / deff, deff the failure indicator's design
-- effect in send order (llmd.runmodel's sample_deff.failed, the one the error rate's row test
-- reads: llmd.decision.count_test), so that failures in bursts widen it; where no design effect
-- is known (files with counts only) they are taken as independent (deff 1), the least noise a
-- count carries. Always around the point's own figure. A share compared with its limit as an
-- exact number reads noise as a verdict (audit51 F3: one server failing 0.8 % of its requests
-- at random, 300 a load, P(>= 4 of 300) = 0.22, read as failing a 1 % SLO, and A/A pairs named
-- a winner): a point is known to fail the limit only where the interval's lower end is above
-- it, to meet it only where its upper end is within it. Returns lo, hi and info {n, deff,
-- failed}; nil, nil and why where the counts are unknown.
function M.error_ci(p)
  local v = p.values or {}
  local k, ok = v.requests_failed, v.requests_ok
  if not (finite(k) and finite(ok) and k >= 0 and ok >= 0 and k + ok > 0) then
    return nil, nil, "the counts of its failed and completed requests are unknown"
  end
  local n = k + ok
  local d = p.per_request and p.per_request.deff and p.per_request.deff.failed
  d = finite(d) and math.max(1, d) or 1
  local lo, hi = stattest.clopper_pearson(k / d, n / d, 1 - stattest.normal_two_sided(M.SLO_CI_Z))
  local e = finite(v.error_rate_pct) and v.error_rate_pct or k / n * 100
  return math.min(lo * 100, e), math.max(hi * 100, e), { n = n, deff = d, failed = k }
end

-- The design effect of a load point's repeats' failures in send order, one for all of them
-- (failed: each repeat's failed requests; deff: each one's llmd.runmodel sample_deff.failed, nil
-- or below 1 read as 1): the mean of the measured ones weighted by their failures. A repeat
-- without a failure measures none (its design effect reads 1), yet where the repeats are alike
-- (what M.repeats_failures_differ tests, and what pooling them assumes) they share one: read on
-- its own, a repeat of 0 of 120 beside one of 11 of 120 in bursts of design effect 9.9 was a
-- 120-request certainty against 1.1 of 12.1, "a crash" at p = 8.7e-04, where failures in bursts
-- of 5 (3 % of requests, tests/sim/audit53_harness.py --fail-burst 5) leave a repeat of 120 with
-- none about half the time (task intervals55). 1 where no repeat failed.
function M.repeats_deff(failed, deff)
  local sw, sd = 0, 0
  for j = 1, #failed do
    local d = deff and deff[j]
    d = finite(d) and math.max(1, d) or 1
    if failed[j] > 0 then sw, sd = sw + failed[j], sd + failed[j] * d end
  end
  return sw > 0 and sd / sw or 1
end

-- Do a load point's repeats fail beyond chance of one another: the one rule that both the error
-- rate's interval of a repeated point (M.repeats_error_ends: pooled requests or the repeats'
-- t-interval) and the error-rate row's test (llmd.decision.failure_dispersion: pooled counts or the
-- repeats' rates) read, so that they never disagree (task intervals55: the row test read the raw
-- counts, this interval the effective ones, and on failures in bursts one said "pool" where the
-- other said "differ"). failed, total: each repeat's failed and finished requests; deff (optional):
-- each repeat's failures' design effect in send order (llmd.runmodel's sample_deff.failed), read
-- as their one (M.repeats_deff). Pearson's chi-square on the 2 x k table of the counts divided by
-- it (stattest.heterogeneity): failures that come in bursts of design effect d make a count vary d
-- times as much as independent ones, so d times fewer requests carry its information (the design
-- effect's own meaning, as M.error_ci reads one run's); on the raw counts bursts within their noise
-- read as a crash. Returns stattest.heterogeneity's {x2, df, p, share} with differ = p < alpha
-- (llmd.decision.ALPHA where nil) and deff = the one design effect read, or nil where it cannot be
-- told (fewer than 2 repeats with a request, no failure, or nothing but failures).
function M.repeats_failures_differ(failed, total, deff, alpha)
  local d = M.repeats_deff(failed, deff)
  local ek, en = {}, {}
  for j = 1, #failed do ek[j], en[j] = failed[j] / d, total[j] / d end
  local h = #ek >= 2 and stattest.heterogeneity(ek, en) or nil
  if not h then return nil end
  h.differ, h.deff = h.p < (alpha or require("llmd.decision").ALPHA), d
  return h
end

-- The 95 % interval of a repeated load point p's error rate (in %) from its repeats' requests
-- pooled (p.repeat_counts): the exact binomial (Clopper-Pearson) interval of all their failures
-- among all their finished requests, read on their effective sample (divided by their failures'
-- design effect in send order, one for all repeats: M.repeats_deff), as M.error_ci reads one run's. Not the Student t
-- interval of the repeats' shares: with 2 repeats that is their mean -+ 12.7 x their standard
-- error, from one degree of freedom, and leaves a share of 8 % of 600 requests "allowed" to be
-- within 5 % (task power54: on rate ladders of 2 repeats, 8 % failures against none named no
-- winner in 56 of 56 verdicts), whereas the count of failures says how far a share can be from
-- its truth where requests fail independently. Only where they do, as far as the repeats show:
-- where the repeats' failures differ beyond chance (stattest.heterogeneity, chi-square on the
-- effective counts, p < llmd.decision.ALPHA: a crash in one repeat) the repeats' spread is the
-- noise, and nil is returned (the t-interval stays, as the error rate's row test then leaves the
-- pooled counts: llmd.decision.failure_dispersion). Always around the point's own figure.
-- {lo, hi, pooled = {failed, total, eff_n}} or nil (no counts, fewer than 2 repeats, no finished
-- request, no failed one, or the repeats differ).
function M.repeats_error_ends(p)
  local rc = p.repeat_counts
  if not (rc and #rc.failed >= 2) then return nil end
  -- (each repeat's counts over the repeats' one design effect, M.repeats_deff)
  local d = M.repeats_deff(rc.failed, rc.deff)
  local k, n = 0, 0
  for j = 1, #rc.failed do
    k, n = k + rc.failed[j] / d, n + rc.total[j] / d
  end
  -- (no failure in any repeat: their shares are identical zeros, met as before; the pooled
  -- interval would reach 5 % below 72 requests, 0 of 60 up to 5.96 %, which the repeats'
  -- identical figures were never read to allow)
  if n <= 0 or k <= 0 then return nil end
  local h = M.repeats_failures_differ(rc.failed, rc.total, rc.deff)
  if h and h.differ then return nil end
  local lo, hi = stattest.clopper_pearson(k, n, 1 - stattest.normal_two_sided(M.SLO_CI_Z))
  local e = field(p, "error_rate_pct")
  e = finite(e) and e or k / n * 100
  local f, t = 0, 0
  for j = 1, #rc.failed do f, t = f + rc.failed[j], t + rc.total[j] end
  return { lo = math.min(lo * 100, e), hi = math.max(hi * 100, e), pooled = { failed = f, total = t, eff_n = n } }
end

-- The 95 % interval of point p's SLO metric key: M.percentile_ci's, M.mean_ci's, or for the
-- error rate M.error_ci's.
function M.slo_ci(p, key)
  if key == "error_rate_pct" then return M.error_ci(p) end
  if M.mean_key(key) then return M.mean_ci(p, key) end
  return M.percentile_ci(p, key)
end

-- Every percentile latency of a stage's metric set (llmd.runmodel set) with its 95 %
-- interval (M.percentile_ci), as a run model saves them (llmd.runmodel.to_plain), so that
-- analyze.lua weighs a saved run as compare.lua did: {key = {lo, hi (nil: unbounded), n,
-- deff} or {why}}; nil without per-request samples.
function M.stage_percentile_cis(set)
  if not (set and set.samples) then return nil end
  local out, any = {}, false
  local p = { values = set.values or {}, per_request = { samples = set.samples, deff = set.sample_deff } }
  for _, m in ipairs(metrics.list) do
    if M.interval_key(m.key) and type(p.values[m.key]) == "number" then
      local lo, hi, info, more = M.slo_ci(p, m.key)
      if lo then
        out[m.key] = { lo = lo, hi = hi ~= math.huge and hi or nil, n = info.n, deff = info.deff,
          mean_deff = info.mean_deff, pct_deff = info.pct_deff }
      else
        -- (its requests and their design effect too, where it has requests: what a longer load
        -- would need, M.unclear_loads)
        local kind = M.interval_key(m.key)
        local acc = set.samples[kind]
        local n = acc and acc:count() or 0
        local mean = M.mean_key(m.key) ~= nil
        local d, of = M.sample_deff(set.sample_deff, kind, mean, m.key)
        out[m.key] = { why = info, n = n > 0 and n or nil, deff = n > 0 and (more and more.deff or d) or nil,
          mean_deff = n > 0 and mean and of or nil, pct_deff = n > 0 and not mean and of or nil }
      end
      any = true
    end
  end
  return any and out or nil
end

-- The capacity each run's one-run load points leave room for, their percentile SLO metrics'
-- uncertainty weighed (M.percentile_ci): as M.capacity_interval, the capacity on the upper
-- ends (low: each point as bad as its interval allows) and on the lower ends (high), and the
-- range {lo, hi, low, high, lo_tps, hi_tps, top} the three brackets cover; an interval that
-- cannot be told (no per-request data) is open on both sides (0 to unbounded: the point
-- may meet or fail the SLO). unclear = the points ({point = index, key, reason, n, deff;
-- n and deff absent where unknown}) whose
-- interval of an SLO metric straddles its SLO, or is unknown, with why; pct_deff = "ranks" where a
-- percentile SLO's took the ranks' alone (a run model saved before fixg46); mean_deff = "ranks" where
-- a mean SLO's interval took the ranks' design effect at some point (M.mean_ci). nil where no SLO
-- is a percentile, or
-- every load point was repeated (the repeats' range, M.capacity_interval, weighs that).
-- How far (in %, either way) a one-run load point's percentile or mean of a summary file (no
-- per-request data, its noise unknown) may lie from what its server gives at that load, for
-- ordering two capacities (M.capacity_noise's band): two runs may then differ by 1.1^2 - 1 =
-- 21 %, twice the widest swing of one server with itself seen in the audit's A/A pairs (task
-- fixn50, /tmp/audit50-f3, queue_sim.py, 60-240 requests a load: TTFT p90 212.9 against 193.0
-- ms at 1 req/s, 10.3 %). Its 20 aggregate-only A/A pairs and 10 BR pairs: the 25 % gap rule
-- alone named 5 winners at TTFT p90 <= 200 / 113 ms and mean <= 176 / 178 ms; with the band,
-- at those and at p90 <= 205 / 210 and mean <= 177 ms too, a band of 2 % (the practical
-- threshold) named 2, of 5 % or 10 % none. So only a latency
-- well beyond the limit on one side and well within it on the other, or one that rose past
-- saturation (a fail at both ends), orders them. Not a measured noise: a sound rule for
-- figures whose noise is unknown; per-request data or repeats measure it.
M.UNKNOWN_NOISE_BAND = 10

function M.capacity_noise(points, slo, cap, opts)
  if not slo or #slo == 0 or #points == 0 then return nil end
  local coverage = M.interval_coverage(points, slo, M.saturation(points, { slo = slo }))
  -- (an error-rate SLO given weighs its one-run points' failures by their exact binomial
  -- interval, M.error_ci, as a latency SLO weighs its percentile's: a share compared with its
  -- limit as an exact number reads noise as pass or fail, audit51 F3; and so does the default
  -- failure limit of M.capacity_slo where no error-rate SLO is given (fixb52: one server failing
  -- 5 % of its requests at random, 300 a load, read "A sustains more load" in 3 of 20 A/A pairs,
  -- a load at 16 of 300 failed "for certain"): a load whose interval straddles it is unclear)
  local pkeys = {}
  for _, x in ipairs(M.capacity_slo(slo)) do
    if M.interval_key(x.key) or x.key == "error_rate_pct" then pkeys[#pkeys + 1] = x end
  end
  if #pkeys == 0 then return nil end
  local single = 0
  for _, p in ipairs(points) do if (p.repeats or 1) < 2 then single = single + 1 end end
  if single == 0 then return nil end
  local sat = M.saturation(points, { slo = slo })
  cap = cap or M.capacity(points, slo, sat)
  if cap.kind == "unknown" or cap.kind == "non_monotone" then return nil end
  local ends, unclear = {}, {}
  -- (a point the saturation search put past saturation, by its own evidence: its queue grows
  -- with the time it is offered, so a percentile measured above the SLO there fails it, however
  -- few independent requests its queued latencies carry; else a server far past its capacity,
  -- at 30x the SLO, could never be known to fail, and its run's range would run past its
  -- ceiling)
  local past_from = M.saturated_from(sat)
  local nominal_fail, ranks_mean, ranks_pct = false, false, false
  -- (few[i][key]: point i's interval of key unknown for its few requests; cands: each point's
  -- ends to weigh for the unclear list, once those are settled)
  local few, cands = {}, {}
  for i, p in ipairs(points) do
    ends[i], few[i] = {}, {}
    for _, x in ipairs(pkeys) do
      local lo, hi, why, info
      if (p.repeats or 1) >= 2 then
        -- (past saturation, a mean above the SLO fails it; every repeat on one side: M.repeats_ends)
        local c = M.repeats_ends(p, x.key, x.max, past_from and i >= past_from)
        lo, hi = c and c.lo or field(p, x.key), c and c.hi or field(p, x.key)
      else
        lo, hi, why, info = M.slo_ci(p, x.key)
        -- (a known interval: its {n, deff} in why's place)
        if type(why) == "table" then why, info = nil, why end
        -- (one that cannot be told for its few requests: M.SLO_CI_MIN_EFFECTIVE, below)
        if lo == nil and type(info) == "table" and info.n then few[i][x.key] = true end
        if info and info.mean_deff == "ranks" and field(p, x.key) ~= nil then ranks_mean = true end
        if info and info.pct_deff == "ranks" and field(p, x.key) ~= nil then ranks_pct = true end
        -- (opts.open_narrow: an interval known to run narrow near capacity counted as
        -- unknown, open on both sides: what the order would be without them; not past a load
        -- whose nominal interval already failed an SLO, where the capacity is bounded without
        -- them and an unknown above it would only read as a load that met the SLOs above one
        -- that failed)
        -- (an error rate's exact interval runs narrow nowhere: its counts are binomial, the
        -- failures' bursts in its design effect)
        if opts and opts.open_narrow and lo and coverage[i] == "narrow_near_capacity" and not nominal_fail
          and x.key ~= "error_rate_pct" then
          lo, hi, why = nil, nil, "its interval may be narrow near capacity"
        end
        if lo and coverage[i] == "nominal" and lo > x.max then nominal_fail = true end
        local v = field(p, x.key)
        if past_from and i >= past_from and type(v) == "number" and v > x.max and (lo == nil or lo <= x.max) then
          lo, hi, why = v, math.max(hi or v, v), nil
        end
      end
      -- (an error rate whose counts are unknown keeps its figure at both ends, as before: no
      -- interval to weigh, M.error_ci)
      if field(p, x.key) ~= nil and not (x.key == "error_rate_pct" and lo == nil) then
        if lo == nil then lo, hi = 0, math.huge end
        ends[i][x.key] = { lo = lo, hi = hi }
        cands[#cands + 1] = { point = i, x = x, reason = why or (x.default and ("its failures' 95 %% interval "
          .. "straddles the limit: unclear whether it stays within the %g %% failure limit"):format(x.max))
          or "its interval straddles the SLO", n = info and info.n, deff = info and info.deff }
      end
    end
  end
  -- A load whose interval cannot be told for too few requests (M.SLO_CI_MIN_EFFECTIVE: 30
  -- requests at concurrency 1, whose TTFT p90 has no upper end, P(Bin(30, 0.9) <= 29) = 1 -
  -- 0.9^30 = 0.958 < 0.975), whose figure meets the SLO, below a load that met it for certain
  -- (its interval's upper end within the limit, told from enough requests or repeats) is no
  -- possible failure: a server that met the SLO at a higher load does not fail it at a lower
  -- one for want of requests to tell (task fixn50, audit50 F1: c=1 and c=2 far inside 500 ms,
  -- every request of c=1 under 112.5 ms, put a capacity's low end at 0 and turned "k3-b
  -- sustains more load, +24.7 % to +25.6 %" into "cannot say", with advice at c=8 and c=16).
  -- It counts at its figure on both ends. A figure beyond the limit stays unknown there (a true
  -- non-monotone reading, fixg49's rule), as does one with no certain pass above it.
  -- So is a load whose error rate meets its limit (the error-rate SLO's or the default 5 %) as
  -- measured though its interval reaches above it (0 failures of 30 reach 11.6 %), below a load
  -- that met that limit for certain (fixb52: with the default limit weighed so, a ladder's small
  -- low loads, every request answered, made every capacity's range start at 0).
  for i, p in ipairs(points) do
    for _, x in ipairs(pkeys) do
      local v = field(p, x.key)
      if (few[i][x.key] or x.key == "error_rate_pct") and type(v) == "number" and v <= x.max
        and ends[i][x.key] and type(p.achieved_rps) == "number" then
        for j, q in ipairs(points) do
          local e = ends[j][x.key]
          if j ~= i and e and not few[j][x.key] and e.hi <= x.max and type(q.achieved_rps) == "number"
            and q.achieved_rps > p.achieved_rps then
            ends[i][x.key] = { lo = math.min(ends[i][x.key].lo, v), hi = v }
            break
          end
        end
      end
    end
  end
  for _, c in ipairs(cands) do
    local e = ends[c.point][c.x.key]
    if e.lo <= c.x.max and e.hi > c.x.max and not (unclear[#unclear] and unclear[#unclear].point == c.point) then
      unclear[#unclear + 1] = { point = c.point, key = c.x.key, reason = c.reason, n = c.n, deff = c.deff }
    end
  end
  -- a one-run point with no per-request data at all (a summary file): its percentile's
  -- uncertainty is unknown, not wide; no range is made up for it (unknown = why, said
  -- beside a capacity that orders nothing on such points: llmd.decision.capacity_evidence)
  -- Its capacity is still bounded by what no small latency difference can move (task fixn50,
  -- audit50 F3: an A/A pair of aggregate-only files, TTFT p90 212.9 against 193.0 ms at 1 req/s
  -- and flat up to 4 req/s, read "+192.7 %" at a 200 ms SLO: below saturation latency is flat
  -- in load, so a few per cent move pass and fail across the whole ladder). band = the range
  -- {lo, hi (nil: no upper end), lo_tps, hi_tps} of the capacity with each such point's SLO metric anywhere within
  -- M.UNKNOWN_NOISE_BAND % of its figure (v / (1 + b) to v (1 + b)), the other points' ends as
  -- above (their intervals, their repeats'), and a point past saturation whose figure fails
  -- an SLO failing it at both ends (its queue grew: the latency rose with load, no noise).
  -- llmd.decision.capacity_evidence orders such a capacity only where the bands are apart.
  -- (not of the error rate: its counts give its exact interval, M.error_ci, per-request data
  -- or not)
  local unknown
  for i, p in ipairs(points) do
    local latency = false
    for _, x in ipairs(pkeys) do
      latency = latency or x.key ~= "error_rate_pct" and type(field(p, x.key)) == "number"
    end
    if (p.repeats or 1) < 2 and not p.per_request and latency then
      unknown = unknown or ("load point %d has no per-request data to tell its percentiles' uncertainty (a summary "
        .. "file)"):format(i)
      local b = 1 + M.UNKNOWN_NOISE_BAND / 100
      for _, x in ipairs(pkeys) do
        local v = field(p, x.key)
        if type(v) == "number" and x.key ~= "error_rate_pct" then
          local e = { lo = v / b, hi = v * b }
          if past_from and i >= past_from and v > x.max then e.lo = v end
          ends[i][x.key] = e
        end
      end
    end
  end
  if unknown then
    local band = ends_span(cap, M.capacity(at_bound(points, ends, "hi"), slo, sat),
      M.capacity(at_bound(points, ends, "lo"), slo, sat), points, past_from and { M.ceiling(points, { slo = slo }) })
    -- (an end with no bound, nil: JSON has no infinity; lo_tps nil where a tok/s is unknown, hi_tps
    -- nil beside it where it has no upper end)
    local function fin(v) return v ~= math.huge and v or nil end
    return { unknown = unknown, band = { lo = band.lo, hi = fin(band.hi), lo_tps = band.lo_tps,
      hi_tps = band.lo_tps and fin(band.hi_tps) or nil } }
  end
  local low, high = M.capacity(at_bound(points, ends, "hi"), slo, sat),
    M.capacity(at_bound(points, ends, "lo"), slo, sat)
  local r = ends_span(cap, low, high, points, past_from and { M.ceiling(points, { slo = slo }) })
  -- (a list, [] in comparison.json and treatments.json where no point is unclear, as json.array
  -- marks one: an unmarked empty table encodes as {})
  r.unclear = json.array(unclear)
  -- each one-run point's interval coverage (M.interval_coverage), by point
  local cov = {}
  for i, p in ipairs(points) do
    if coverage[i] then
      -- (past_saturation: at or past the saturation point, where a figure above the SLO fails it
      -- whatever its interval)
      cov[#cov + 1] = { point = i, offered = p.offered, load_type = p.load_type, achieved_rps = p.achieved_rps,
        interval_coverage = coverage[i], past_saturation = past_from and i >= past_from or nil }
    end
  end
  r.coverage = json.array(cov)
  -- (a mean SLO's interval at some one-run point from the ranks' design effect, its values' own
  -- not saved: too narrow, which the capacity's cells say, M.mean_ci)
  r.mean_deff = ranks_mean and "ranks" or nil
  -- (and a percentile SLO's from the ranks' alone, its indicator's not saved: M.sample_deff)
  r.pct_deff = ranks_pct and "ranks" or nil
  return r
end

-- What would settle the loads a capacity is unclear at ---------------------------------------
-- The loads whose pass or fail of a percentile (or, repeated, any) SLO metric the evidence
-- leaves open, each with the remedy its own figures point to, for the Verdict's advice where
-- two capacities cannot be ordered (llmd.report's settle_text). points: one run's load
-- points; unclear: its lp.capacity_noise unclear list (one-run points; nil: none). Each
-- entry: {point, key, value, offered, load_type, remedy, ...}:
-- - remedy "repeats", few = true: a one-run point with fewer effective requests than its
--   interval needs (M.SLO_CI_MIN_EFFECTIVE): n, deff. Not a longer load: near capacity the
--   queue's swings last as long as the load does, and in tests/sim/capa38_sim.py loads 3
--   times as long ordered 24 slots above 20 in 0, 1 and 1 of 10 pairs (TTFT p90 <= 500 ms,
--   <= 1000 ms, E2E p90 <= 3000 ms) against 1, 1 and 7 of 20 with 1-minute loads;
-- - remedy "repeats": a one-run point whose interval straddles the SLO (lo, hi): one run has
--   no spread of its own to weigh, and in tests/sim/capa39_deff.py a minute's TTFT p90 near
--   capacity varies between runs 2 to 3 times as much as its requests' interval says, so only
--   repeats measure it (3 repeats a load ordered 0, 4 and 3 of 8 such pairs);
-- - remedy "more repeats": a repeated point whose repeats' 95 % interval (lo, hi; Student t)
--   straddles the SLO: repeats, and need = the fewest repeats (at most M.SETTLE_MAX_REPEATS)
--   whose interval would clear the SLO on their mean's side with M.SETTLE_POWER % chance if
--   their mean and spread (sd) are the truth (stattest.t_interval_power: the noncentral t).
--   Not the count whose interval, mean and sd as now, just clears it: the next repeats' mean
--   and sd vary, and that count clears it about half the time or a little more (fixd43: mean
--   2042.3 ms, sd 1372.5 ms against 500 ms, 2 repeats: 6 "would clear it", 60 % of draws in
--   a numpy simulation; 9 clear it in 84 %). nil where the mean lies too close to the SLO for
--   that (the capacity lies at this load);
-- - remedy "repeats", pooled = {failed, total}: a repeated point's error rate read on its repeats'
--   requests pooled (M.repeats_error_ends) whose interval (lo, hi) straddles the limit: more
--   requests at that load;
-- - remedy "per-request data": a one-run point of a summary file (its noise unknown).
M.SETTLE_MAX_REPEATS = 10
-- The repeats a "more repeats" advice asks for are sized on the upper confidence limit, at this
-- level (%), of the spread their repeats measured (stattest.sd_upper), not on the measured one
-- (task power54): from 2 repeats the spread is one degree of freedom, and sized on it as measured,
-- 38 such claims of compare.lua on audit53's rate ladders (20 against 25 slots, 30 s loads, TTFT
-- p90 <= 500 ms, 20 pairs) cleared the SLO in 36 % of numpy draws of the same server, not the 80 %
-- they said (tests/sim/power54_settle.py); on the upper 80 % limit 32 of them need more than 10
-- repeats, and the 6 left cleared in 66 % (on the 90 % limit none is left). The mean's own noise
-- is not in it: the count stays "if their mean is truly as measured".
M.SETTLE_SD_CONFIDENCE = 80
-- The chance (power, %) with which the repeats or loads a "to settle it" asks for settle it if
-- the truth is as measured (here, and llmd.decision.noise_settle_text's longer loads).
M.SETTLE_POWER = 80
-- How many repeats of a load, each as long as its repeats were, a repeated point's error rate
-- read on its repeats' requests pooled (M.repeats_error_ends' pooled = {failed, total, eff_n})
-- needs, so that that pooled interval clears limit (%) on its share's side with M.SETTLE_POWER %
-- chance if its share is truly as measured and its failures as bursty (their design effect,
-- total / eff_n, as measured): the fewest r in repeats + 1 .. M.SETTLE_MAX_ERROR_REPEATS whose
-- effective requests, floor(r x total / repeats / d), give stattest.cp_power >= M.SETTLE_POWER
-- / 100 at the interval's level. Unlike a latency's repeats (sized on their spread's upper
-- confidence limit, M.SETTLE_SD_CONFIDENCE), the count's noise follows from the share itself:
-- nothing but the share is estimated. Returns r and its requests in all (r x the repeats' mean
-- length), or nil where no such r is (the share too close to the limit: the capacity lies near
-- this load). Checked by simulation: tests/sim/intervals55_error_settle.py.
function M.error_repeats_needed(pooled, repeats, limit)
  if not (pooled and pooled.total and pooled.total > 0 and pooled.eff_n and pooled.eff_n > 0 and repeats
    and repeats >= 1 and type(limit) == "number") then
    return nil
  end
  local q, lim = pooled.failed / pooled.total, limit / 100
  if not (q > 0 and q < 1 and lim > 0 and lim < 1) or q == lim then return nil end
  local d = math.max(1, pooled.total / pooled.eff_n)
  local per = pooled.total / repeats
  local level = 1 - stattest.normal_two_sided(M.SLO_CI_Z)
  for r = repeats + 1, M.SETTLE_MAX_ERROR_REPEATS do
    local n = math.floor(r * per / d)
    if n >= 1 and stattest.cp_power(n, q, lim, level) >= M.SETTLE_POWER / 100 then
      return r, math.floor(r * per + 0.5)
    end
  end
  return nil
end

-- The most repeats (of the length measured) an error rate's advice asks for: more than a
-- latency's M.SETTLE_MAX_REPEATS, as a count's noise does not last as long as the load does (a
-- longer load narrows it as repeats do), and a share 1 to 2 points from a 5 % limit needs
-- thousands of requests (30 of 480 against 5 %: 12 repeats of 240, 26 of 480 more than 50:
-- tests/sim/intervals55_error_settle.py).
M.SETTLE_MAX_ERROR_REPEATS = 50
-- sat: the run's M.saturation (nil: none is known, no point is past it).
function M.unclear_loads(points, slo, unclear, sat)
  local out = {}
  local function entry(i, key)
    local p = points[i]
    return { point = i, key = key, value = field(p, key), offered = p.offered, load_type = p.load_type }
  end
  for _, u in ipairs(unclear or {}) do
    local p = points[u.point]
    if p and (p.repeats or 1) < 2 then
      local e = entry(u.point, u.key)
      local lo, hi, _, info = M.slo_ci(p, u.key)
      local pr, kind = p.per_request or {}, M.interval_key(u.key)
      -- its requests and their design effect: the interval's (info: a mean's its values' own,
      -- M.mean_ci), from its samples, or as a saved workspace keeps them (M.stage_percentile_cis)
      local n, deff
      if type(info) == "table" and info.n then
        n, deff = info.n, info.deff
      elseif pr.saved and type(pr.saved[u.key]) == "table" then
        n, deff = pr.saved[u.key].n, pr.saved[u.key].deff
      elseif pr.samples and kind and pr.samples[kind] then
        n, deff = pr.samples[kind]:count(), M.sample_deff(pr.deff, kind, M.mean_key(u.key) ~= nil, u.key)
      end
      if lo then
        e.remedy, e.lo, e.hi = "repeats", lo, hi
      elseif n and n > 0 then
        e.remedy, e.few, e.n, e.deff = "repeats", true, n, math.max(1, deff or 1)
      else
        e.remedy = "per-request data"
      end
      out[#out + 1] = e
    end
  end
  -- (a repeated point past saturation whose mean is above an SLO fails it, whatever its
  -- repeats' spread: M.capacity_interval; more repeats there settle nothing)
  local past_from = M.saturated_from(sat)
  for i, p in ipairs(points) do
    if (p.repeats or 1) >= 2 then
      for _, x in ipairs(slo or {}) do
        local c, v = p.ci and p.ci[x.key], field(p, x.key)
        -- (nor where every one of enough repeats lies on one side: M.repeats_ends)
        local ends = M.repeats_ends(p, x.key, x.max, past_from and i >= past_from)
        local settled = ends and (ends.lo > x.max or ends.hi <= x.max)
        if ends and ends.pooled and not settled and type(v) == "number" then
          -- (an error rate read on its repeats' requests pooled, M.repeats_error_ends: more
          -- requests at that load narrow it, repeats or a longer load alike, as one run's)
          local e = entry(i, x.key)
          e.remedy, e.lo, e.hi, e.pooled = "repeats", ends.lo, ends.hi, ends.pooled
          e.repeats = p.repeat_counts and #p.repeat_counts.failed or p.repeats
          e.need, e.need_requests = M.error_repeats_needed(ends.pooled, e.repeats, x.max)
          out[#out + 1] = e
          break
        elseif c and type(v) == "number" and not c.identical and c.lo <= x.max and c.hi > x.max and not settled then
          local e = entry(i, x.key)
          e.remedy, e.lo, e.hi, e.repeats, e.sd = "more repeats", c.lo, c.hi, c.n, c.sd
          -- (a lower end clipped at 0: the t-interval's own, for the text to say so, audit47 F6)
          e.t_lo = c.clipped and c.t_lo or nil
          -- the fewest repeats r whose t-interval clears the SLO on the mean's side with
          -- M.SETTLE_POWER % chance if the mean is truly as measured and the spread at the
          -- upper M.SETTLE_SD_CONFIDENCE % confidence limit of the measured one (sd_plan)
          local gap = math.abs(v - x.max)
          local function need(sd)
            for r = c.n + 1, M.SETTLE_MAX_REPEATS do
              if gap > 0 and sd > 0 and stattest.t_interval_power(gap, sd, r) >= M.SETTLE_POWER / 100 then return r end
            end
          end
          if gap > 0 and c.sd > 0 then
            e.sd_plan = stattest.sd_upper(c.sd, c.n, M.SETTLE_SD_CONFIDENCE / 100)
            e.need = need(e.sd_plan)
            -- (none at that spread, where the measured one would have given a count: the
            -- repeats' spread, not the mean's closeness to the limit, leaves it unsized)
            e.spread_limited = not e.need and need(c.sd) ~= nil or nil
          end
          out[#out + 1] = e
          break
        end
      end
    end
  end
  table.sort(out, function(a, b) return a.point < b.point end)
  return out
end

-- One end of a capacity range (M.capacity_interval's low or high) as the outputs keep it:
-- where the capacity on that end first fails (what "at any load" and "even at its lowest
-- load" rest on), and the loads of its bracket (what llmd.decision.capacity_touch reads:
-- whether two runs' intervals lie on opposite sides of the SLOs at the same load).
function M.interval_end(c)
  return { kind = c.kind, limiting = c.limiting, first_failing = c.first_failing,
    first_failing_rps = c.first_failing_rps, passed = c.passed, rps = c.rps, last_passing_rps = c.last_passing_rps,
    passing_offered = c.passing_offered, failing_offered = c.failing_offered, load_type = c.load_type,
    failing_unsustained = c.failing_unsustained, failed = c.failed, passed_offered = c.passed_offered,
    failed_offered = c.failed_offered, cut = c.cut }
end

-- Do two capacity ranges (M.capacity_interval) leave room for the same capacity?
function M.overlap(x, y)
  return not (x.hi < y.lo or y.hi < x.lo)
end

return M
