-- llmd.yamlout: YAML written in a chosen key order (benchmark reports, experiment
-- summaries), block style, as PyYAML's safe_dump(sort_keys=False) lays it out.
--
--   local yo = require "llmd.yamlout"
--   local doc = yo.map("version", "0.2", "run", yo.map("uid", "ab12"), "skipped", nil)
--   yo.dump(doc)   --> "version: '0.2'\nrun:\n  uid: ab12\n"
--
-- yo.map(k1, v1, k2, v2, ...) keeps the order given and drops nil values; plain Lua
-- tables are written with sorted keys, arrays as block sequences. Strings that would
-- read back as something else are quoted (through llmd.yaml's own quoting); floats
-- always carry a '.' (1.0e-07, not 1e-07), so YAML 1.1 readers (PyYAML) read a float.
local yaml = require "llmd.yaml"
local json = require "llmd.json"

local M = {}

local OM = {}

function M.map(...)
  local n = select("#", ...)
  local m = setmetatable({ k = {}, v = {} }, OM)
  for i = 1, n, 2 do
    local k, v = select(i, ...)
    if v ~= nil then
      m.k[#m.k + 1] = k
      m.v[#m.v + 1] = v
    end
  end
  return m
end

-- Adds a key at the end (nil values are dropped).
function M.set(m, k, v)
  if v == nil then return m end
  for i, x in ipairs(m.k) do
    if x == k then m.v[i] = v; return m end
  end
  m.k[#m.k + 1] = k
  m.v[#m.v + 1] = v
  return m
end

function M.is_map(v) return getmetatable(v) == OM end

-- The shortest decimal that reads back to the same double, always with a '.'.
function M.float(v)
  if v ~= v then return ".nan" end
  if v == math.huge then return ".inf" end
  if v == -math.huge then return "-.inf" end
  local s
  for prec = 15, 17 do
    s = ("%." .. prec .. "g"):format(v)
    if tonumber(s) == v then break end
  end
  if not s:find("[%.eEn]") then
    s = s .. ".0"
  elseif s:find("e") and not s:find("%.") then
    s = s:gsub("e", ".0e")
  end
  return s
end

local ESC = { ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r", ['"'] = '\\"', ["\\"] = "\\\\" }

-- s as a YAML double-quoted scalar on one line.
local function dquote(s)
  return '"' .. s:gsub('[%c"\\]', function(c) return ESC[c] or ("\\x%02X"):format(c:byte()) end) .. '"'
end

local function scalar(v)
  if v == nil or v == json.null then return "null" end
  local t = type(v)
  if t == "boolean" then return v and "true" or "false" end
  if t == "number" then
    if math.type(v) == "integer" then return tostring(v) end
    return M.float(v)
  end
  if t == "string" then
    local s = yaml.dump(v):gsub("\n$", "")
    -- a string yaml.dump writes on several lines (a literal block, for a newline in it)
    -- is indented for a document of its own, not for its place here: one double-quoted
    -- line instead, its newlines and other control characters escaped
    if s:find("\n", 1, true) then return dquote(v) end
    return s
  end
  error("yamlout: cannot write a " .. t, 3)
end

local function is_array(v)
  if type(v) ~= "table" or M.is_map(v) then return false end
  if json.is_array(v) then return true end
  return #v > 0 and next(v, #v) == nil
end

local function entries(v)
  if M.is_map(v) then return v.k, v.v end
  local ks = {}
  for k in pairs(v) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  local vs = {}
  for i, k in ipairs(ks) do vs[i] = v[k] end
  return ks, vs
end

local function empty(v)
  if M.is_map(v) then return #v.k == 0 end
  return next(v) == nil
end

local emit

local function emit_map(out, v, indent)
  local ks, vs = entries(v)
  for i, k in ipairs(ks) do
    local x = vs[i]
    local key = scalar(tostring(k))
    if type(x) == "table" and x ~= json.null and not empty(x) then
      out[#out + 1] = indent .. key .. ":\n"
      -- sequences under a key are not indented further (PyYAML's default)
      emit(out, x, is_array(x) and indent or (indent .. "  "))
    elseif type(x) == "table" and x ~= json.null then
      out[#out + 1] = indent .. key .. (is_array(x) and ": []\n" or ": {}\n")
    else
      out[#out + 1] = indent .. key .. ": " .. scalar(x) .. "\n"
    end
  end
end

local function emit_seq(out, v, indent)
  for _, x in ipairs(v) do
    if type(x) == "table" and x ~= json.null and not empty(x) then
      local sub = {}
      emit(sub, x, indent .. "  ")
      -- the first line goes after the dash
      local text = table.concat(sub)
      out[#out + 1] = indent .. "- " .. text:sub(#indent + 3)
    elseif type(x) == "table" and x ~= json.null then
      out[#out + 1] = indent .. (is_array(x) and "- []\n" or "- {}\n")
    else
      out[#out + 1] = indent .. "- " .. scalar(x) .. "\n"
    end
  end
end

emit = function(out, v, indent)
  if is_array(v) then emit_seq(out, v, indent) else emit_map(out, v, indent) end
end

function M.dump(v)
  if type(v) ~= "table" or v == json.null then return scalar(v) .. "\n" end
  if empty(v) then return is_array(v) and "[]\n" or "{}\n" end
  local out = {}
  emit(out, v, "")
  return table.concat(out)
end

-- A plain Lua value (ordered maps become tables) for validation or comparison.
function M.plain(v)
  if type(v) ~= "table" or v == json.null then return v end
  if M.is_map(v) then
    local t = json.object {}
    for i, k in ipairs(v.k) do t[k] = M.plain(v.v[i]) end
    return t
  end
  local t = {}
  for k, x in pairs(v) do t[k] = M.plain(x) end
  if is_array(v) then return json.array(t) end
  return t
end

return M
