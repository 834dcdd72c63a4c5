-- llmd.http against a small server on 127.0.0.1 that the test starts (httpd.py);
-- no other network is used. Expected values are what httpd.py is written to send.
local t = require "testlib"
local http = require "llmd.http"
local json = require "llmd.json"
local proc = require "llmd.proc"

local dir = t.tmpdir()
local portfile = dir .. "/port"
-- The server runs in the background; its output goes to a file so run() returns.
proc.run({ "sh", "-c", 'python3 "$1" "$2" >"$2.log" 2>&1 &', "sh", t.here() .. "/httpd.py", portfile })
local port
for _ = 1, 200 do
  local f = io.open(portfile)
  if f then port = f:read("n"); f:close(); break end
  proc.run({ "sleep", "0.05" })
end
assert(port, "the test HTTP server did not start")
local base = "http://127.0.0.1:" .. port

t.test("get: status, body, headers (lower-case, repeats joined), elapsed", function()
  local r = http.get(base .. "/echo?x=1", { headers = { ["X-Test"] = "yes" } })
  t.eq(r.status, 200)
  local e = json.decode(r.body)
  t.eq(e.method, "GET")
  t.eq(e.path, "/echo?x=1")
  t.eq(e.headers["x-test"], "yes")
  t.eq(r.headers["content-type"], "application/json")
  t.eq(r.headers["x-multi"], "a, b")
  t.ok(r.elapsed >= 0)
end)

t.test("post and request send bodies and methods", function()
  local r = http.post(base .. "/echo", '{"prompt":"hi"}', { headers = { "Content-Type: application/json" } })
  local e = json.decode(r.body)
  t.eq(e.method, "POST")
  t.eq(e.body, '{"prompt":"hi"}')
  t.eq(e.headers["content-type"], "application/json")
  e = json.decode(http.request { url = base .. "/echo", method = "PUT", body = "b" }.body)
  t.eq(e.method, "PUT")
  t.eq(e.body, "b")
end)

t.test("HTTP error statuses are returned, not raised", function()
  local r = http.get(base .. "/status/404")
  t.eq(r.status, 404)
  t.eq(r.body, "status body")
  t.eq(http.get(base .. "/status/503").status, 503)
end)

t.test("redirects are followed only when asked", function()
  t.eq(http.get(base .. "/redirect").status, 302)
  local r = http.get(base .. "/redirect", { follow = true })
  t.eq(r.status, 200)
  t.eq(r.url, base .. "/echo")
end)

t.test("transport failures raise with curl's message", function()
  -- port 1 on loopback: nothing listens there
  t.raises("http GET http://127.0.0.1:1/: Couldn't connect to server", http.get, "http://127.0.0.1:1/")
  t.raises("http GET " .. base .. "/slow: timed out", http.get, base .. "/slow", { timeout = 0.3 })
  t.raises("http GET nope://x: Unsupported protocol", http.get, "nope://x")
  t.raises("timeout must be a number of seconds", http.get, base, { timeout = "soon" })
end)

t.test("stream delivers server-sent events as they arrive", function()
  local events = {}
  local r = http.stream(base .. "/sse", { sse = true }, function(ev) events[#events + 1] = ev end)
  t.eq(r.status, 200)
  t.eq(r.aborted, false)
  t.eq(events, {
    { event = "message", data = '{"n": 1}' },
    { event = "message", data = '{"n": 2}' },
    { event = "usage", data = "line1\nline2", id = "7" },
    -- the HTML spec's "last event ID" persists until the next id field
    { event = "message", data = "three", id = "7" },
    { event = "message", data = "[DONE]", id = "7" },
  })
end)

t.test("stream: raw chunks, stopping early, and callback errors", function()
  local got = {}
  http.stream(base .. "/sse", {}, function(c) got[#got + 1] = c end)
  t.ok(table.concat(got):find("data: [DONE]", 1, true))
  local n = 0
  local r = http.stream(base .. "/sse", { sse = true }, function() n = n + 1; return false end)
  t.eq(n, 1)
  t.eq(r.aborted, true)
  t.raises("boom", http.stream, base .. "/sse", { sse = true }, function() error("boom") end)
  -- a POST body turns a stream into a POST, as an OpenAI completion request needs
  local body = {}
  http.stream(base .. "/echo", { body = "x=1" }, function(c) body[#body + 1] = c end)
  t.eq(json.decode(table.concat(body)).method, "POST")
end)

t.test("the server is stopped at the end", function()
  t.eq(http.get(base .. "/quit").body, "bye")
end)
