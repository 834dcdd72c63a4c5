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

t.test("a release deployed before the deploy started is not taken, whatever its offset", function()
  -- 20:07:31+02:00 is 18:07:31 UTC: before a deploy started at 20:00:00Z (the text compare said after)
  t.eq(k8s.deployed_since("2026-12-06T20:07:31.5+02:00", "2026-12-06T20:00:00Z"), false)
  -- 13:07:31-05:00 is 18:07:31 UTC: after a deploy started at 18:00:00Z (the text compare said before)
  t.eq(k8s.deployed_since("2026-12-06T13:07:31-05:00", "2026-12-06T18:00:00Z"), true)
  t.eq(k8s.deployed_since("2026-12-06T18:00:00.9Z", "2026-12-06T18:00:00Z"), true, "the same second counts")
  t.eq(k8s.deployed_since("garbage", "2026-12-06T18:00:00Z"), false)
end)
