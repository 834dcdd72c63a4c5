-- helm's info.first_deployed carries the deploying client's own offset; llmdlua's records are
-- UTC ("Z"). Whether a release was first deployed since a deploy started decides whether an
-- interrupted deploy's teardown takes it as this run's: comparing the two as text took a
-- release deployed at 19:07 UTC (written "20:07+02:00") as after a deploy started at 20:00 UTC.
-- Expected seconds from python3's datetime.fromisoformat(...).timestamp() (independent).
local t = require "testlib"
local k8s = require "llmd.k8s"

t.test("utc_seconds reads RFC 3339 with any offset, as python's datetime does", function()
  t.eq(k8s.utc_seconds("2026-12-06T20:07:31.123456789+02:00"), 1796580451)
  t.eq(k8s.utc_seconds("2026-12-06T18:07:31Z"), 1796580451)
  t.eq(k8s.utc_seconds("2024-02-29T23:59:59-05:30"), 1709270999)
  t.eq(k8s.utc_seconds("1970-01-01T00:00:00Z"), 0)
  t.eq(k8s.utc_seconds("2000-03-01T00:00:00+00:00"), 951868800)
  t.eq(k8s.utc_seconds("yesterday"), nil)
  t.eq(k8s.utc_seconds("2026-12-06T20:07:31"), nil, "no zone: not known, nothing claimed")
end)

-- harden56: each time stamp is truncated to its precision (creationTimestamp to the second,
-- helm's first_deployed to the nanosecond, llmdlua's deploy start to the microsecond, older
-- records to the second), so it names a span; made after the deploy started only when its span
-- begins where the start's ends, before only when it ends where the start's begins, otherwise
-- "same": an object created in the second a deploy started may be someone else's made just
-- before it. Expected classes from python3 (datetime.fromisoformat for the second, Decimal for
-- the fraction, the two spans compared as above), written here by hand.
t.test("made_since: after, before, or too close to tell, by the precision of each stamp", function()
  local S = "2026-12-06T18:00:00.123456Z" -- (a deploy's start as llmdlua records it now)
  t.eq(k8s.made_since("2026-12-06T18:00:00Z", S), "same", "created in the start's second: either came first")
  t.eq(k8s.made_since("2026-12-06T18:00:01Z", "2026-12-06T18:00:00.999999Z"), "after", "the next second")
  t.eq(k8s.made_since("2026-12-06T17:59:59Z", "2026-12-06T18:00:00.000001Z"), "before")
  t.eq(k8s.made_since("2026-12-06T18:00:00.123457Z", S), "after", "helm's, a microsecond later")
  t.eq(k8s.made_since("2026-12-06T18:00:00.1234565Z", S), "same", "within the start's microsecond")
  t.eq(k8s.made_since("2026-12-06T20:00:00.2+02:00", S), "after", "18:00:00.2 UTC")
  t.eq(k8s.made_since("2026-12-06T13:00:00.12345+02:00", S), "before", "11:00 UTC")
  -- an older record's start, to the second
  t.eq(k8s.made_since("2026-12-06T18:00:00.9Z", "2026-12-06T18:00:00Z"), "same", "the same second: not told")
  t.eq(k8s.made_since("2026-12-06T18:00:00Z", "2026-12-06T18:00:00Z"), "same")
  t.eq(k8s.made_since("2026-12-06T18:00:01Z", "2026-12-06T18:00:00Z"), "after", "strictly later: the deploy's")
  t.eq(k8s.made_since("garbage", S), nil, "unreadable: nothing claimed")
  t.eq(k8s.made_since(S, "yesterday"), nil)
end)

t.test("a release deployed before the deploy started is not taken, whatever its offset", function()
  -- 20:07:31+02:00 is 18:07:31 UTC: before a deploy started at 20:00:00Z (the text compare said after)
  t.eq(k8s.made_since("2026-12-06T20:07:31.5+02:00", "2026-12-06T20:00:00Z"), "before")
  -- 13:07:31-05:00 is 18:07:31 UTC: after a deploy started at 18:00:00Z (the text compare said before)
  t.eq(k8s.made_since("2026-12-06T13:07:31-05:00", "2026-12-06T18:00:00Z"), "after")
end)

t.test("utc_now: RFC 3339 UTC to the microsecond, the wall clock's (as python's time.time() reads it)", function()
  local now = k8s.utc_now()
  t.ok(now:match("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.%d%d%d%d%d%dZ$"), now)
  local r = require("llmd.proc").run { "/usr/bin/python3", "-c", "import time; print(int(time.time()))" }
  t.ok(math.abs(k8s.utc_seconds(now) - tonumber(r.stdout)) <= 2, now .. " against " .. r.stdout)
end)
