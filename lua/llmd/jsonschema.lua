-- llmd.jsonschema: a JSON Schema validator for the subset pydantic's schemas use
-- (llm-d-benchmark's benchmark report schema among them).
--
--   local js = require "llmd.jsonschema"
--   local errs = js.validate(schema, value)   -- {} when valid, else {"$.run.uid: expected string", ...}
--
-- Validates: $ref (to "#/..." inside the schema), anyOf, oneOf, allOf, not, type (integer
-- = a number with no fraction, as JSON Schema says), enum, const, properties, required,
-- additionalProperties (false or a schema), items, minItems, maxItems, minimum, maximum,
-- exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern (as a Lua pattern
-- only when it is one; else an error), format "date-time" (RFC 3339). Annotations
-- (title, description, default, discriminator, examples, ...) are ignored. A keyword
-- outside this list is an error, so an unsupported schema can never pass silently.
-- Pydantic's "ge" (written where "minimum" belongs) is honoured as minimum.
local json = require "llmd.json"

local M = {}

local ANNOTATIONS = { title = true, description = true, default = true, discriminator = true, examples = true,
  ["$defs"] = true, definitions = true, ["$schema"] = true, ["$id"] = true, deprecated = true, readOnly = true,
  writeOnly = true, ["$comment"] = true }
local KNOWN = { ["$ref"] = true, anyOf = true, oneOf = true, allOf = true, ["not"] = true, type = true, enum = true,
  const = true, properties = true, required = true, additionalProperties = true, items = true, minItems = true,
  maxItems = true, minimum = true, maximum = true, exclusiveMinimum = true, exclusiveMaximum = true,
  minLength = true, maxLength = true, format = true, ge = true, le = true, pattern = true }

local function is_null(v) return v == nil or v == json.null end

local function is_array(v)
  if type(v) ~= "table" or v == json.null then return false end
  if json.is_array(v) then return true end
  if getmetatable(v) ~= nil then return false end
  return #v > 0 and next(v, #v) == nil
end

local function type_of(v)
  if is_null(v) then return "null" end
  local t = type(v)
  if t == "boolean" then return "boolean" end
  if t == "string" then return "string" end
  if t == "number" then
    if v == math.floor(v) and v == v and math.abs(v) ~= math.huge then return "integer" end
    return "number"
  end
  if t == "table" then return is_array(v) and "array" or "object" end
  return t
end

local function has_type(v, want)
  local got = type_of(v)
  if want == got then return true end
  return want == "number" and got == "integer"
end

local function equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, x in pairs(a) do if not equal(x, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

local function resolve(root, ref)
  if ref:sub(1, 2) ~= "#/" and ref ~= "#" then error("jsonschema: only local $ref are supported: " .. ref, 0) end
  local node = root
  for part in ref:sub(3):gmatch("[^/]+") do
    part = part:gsub("~1", "/"):gsub("~0", "~")
    if type(node) ~= "table" or node[part] == nil then error("jsonschema: $ref " .. ref .. " does not resolve", 0) end
    node = node[part]
  end
  return node
end

local function datetime(s)
  return s:match("^%d%d%d%d%-%d%d%-%d%d[Tt ]%d%d:%d%d:%d%d%.?%d*[Zz]$") ~= nil
    or s:match("^%d%d%d%d%-%d%d%-%d%d[Tt ]%d%d:%d%d:%d%d%.?%d*[+-]%d%d:%d%d$") ~= nil
end

local function show(v)
  if type(v) == "string" then return ("%q"):format(v) end
  if type(v) == "table" and v ~= json.null then return type_of(v) end
  return tostring(v)
end

local check

local function check_keywords(root, s, v, path, errs)
  for k in pairs(s) do
    if not KNOWN[k] and not ANNOTATIONS[k] then
      error(("jsonschema: unsupported keyword '%s' (at %s)"):format(tostring(k), path), 0)
    end
  end
  local function bad(fmt, ...) errs[#errs + 1] = path .. ": " .. fmt:format(...) end
  if s["$ref"] then check(root, resolve(root, s["$ref"]), v, path, errs) end
  if s.allOf then for _, sub in ipairs(s.allOf) do check(root, sub, v, path, errs) end end
  if s.anyOf or s.oneOf then
    local list, n, best = s.anyOf or s.oneOf, 0, nil
    for _, sub in ipairs(list) do
      local e = {}
      check(root, sub, v, path, e)
      if #e == 0 then
        n = n + 1
      else
        -- an alternative of another type says nothing; of the others, the closest says most
        local mismatch = #e == 1 and e[1]:sub(1, #path + 11) == path .. ": expected "
        if not mismatch and (not best or #e < #best) then best = e end
      end
    end
    if n == 0 then
      if best then
        for _, x in ipairs(best) do errs[#errs + 1] = x end
      else
        bad("%s matches none of the %d alternatives", show(v), #list)
      end
    elseif s.oneOf and n > 1 then
      bad("matches %d alternatives of oneOf (expected exactly one)", n)
    end
  end
  if s["not"] then
    local e = {}
    check(root, s["not"], v, path, e)
    if #e == 0 then bad("must not match the 'not' schema") end
  end
  if s.type then
    local types = type(s.type) == "table" and s.type or { s.type }
    local ok = false
    for _, ty in ipairs(types) do if has_type(v, ty) then ok = true end end
    if not ok then
      bad("expected %s, got %s", table.concat(types, " or "), type_of(v) .. (type(v) ~= "table" and
        (" " .. show(v)) or ""))
      return
    end
  end
  if s.enum then
    local ok = false
    for _, x in ipairs(s.enum) do if equal(x, v) then ok = true end end
    if not ok then
      local l = {}
      for _, x in ipairs(s.enum) do l[#l + 1] = show(x) end
      bad("%s is not one of %s", show(v), table.concat(l, ", "))
    end
  end
  if s.const ~= nil and not equal(s.const, v) then bad("expected %s, got %s", show(s.const), show(v)) end
  if type(v) == "number" then
    local min = s.minimum or s.ge
    if min and v < min then bad("%s is below the minimum %s", show(v), show(min)) end
    local max = s.maximum or s.le
    if max and v > max then bad("%s is above the maximum %s", show(v), show(max)) end
    if s.exclusiveMinimum and v <= s.exclusiveMinimum then bad("%s must be > %s", show(v), show(s.exclusiveMinimum)) end
    if s.exclusiveMaximum and v >= s.exclusiveMaximum then bad("%s must be < %s", show(v), show(s.exclusiveMaximum)) end
  end
  if type(v) == "string" then
    if s.minLength and utf8.len(v) < s.minLength then bad("shorter than %d characters", s.minLength) end
    if s.maxLength and utf8.len(v) > s.maxLength then bad("longer than %d characters", s.maxLength) end
    if s.format == "date-time" and not datetime(v) then bad("%s is not an RFC 3339 date-time", show(v)) end
    if s.pattern then error(("jsonschema: 'pattern' is not supported (at %s)"):format(path), 0) end
  end
  local ty = type_of(v)
  if ty == "object" then
    local props = s.properties or {}
    for _, r in ipairs(s.required or {}) do
      if v[r] == nil then bad("missing required '%s'", r) end
    end
    for k, x in pairs(v) do
      local sub = props[k]
      local kp = path .. "." .. tostring(k)
      if sub then
        check(root, sub, x, kp, errs)
      elseif s.additionalProperties == false then
        bad("unexpected key '%s'", tostring(k))
      elseif type(s.additionalProperties) == "table" then
        check(root, s.additionalProperties, x, kp, errs)
      end
    end
  elseif ty == "array" then
    if s.minItems and #v < s.minItems then bad("fewer than %d items", s.minItems) end
    if s.maxItems and #v > s.maxItems then bad("more than %d items", s.maxItems) end
    if type(s.items) == "table" then
      for i, x in ipairs(v) do check(root, s.items, x, ("%s[%d]"):format(path, i - 1), errs) end
    end
  end
end

check = function(root, s, v, path, errs)
  if s == true then return end
  if s == false then errs[#errs + 1] = path .. ": not allowed"; return end
  check_keywords(root, s, v, path, errs)
end

-- Every way value breaks schema, as "$.path: what", or {} when it is valid.
function M.validate(schema, value)
  local errs = {}
  check(schema, schema, value, "$", errs)
  return errs
end

return M
