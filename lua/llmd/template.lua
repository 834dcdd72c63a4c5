-- llmd.template: the small template language of every report and generated script.
--
--   local template = require "llmd.template"
--   local text = template.render_file("templates/comparison_report.md", model)
--   local tpl = template.compile(source, "name for errors"); tpl(model)
--
-- Syntax (documented in the README):
--   {{ expr }}                     the value, as text (nil is an error: use | default(...))
--   {{ expr | filter | f(arg) }}   filters, left to right; the value is the first argument
--   {% if expr %} {% elif expr %} {% else %} {% end %}
--   {% for x in list %} {% end %}        in order; loop.index (1-based), loop.first, loop.last
--   {% for k, v in map %} {% end %}      keys sorted
--   {# a comment #}
-- A line holding nothing but one {% %} or {# #} tag disappears with its newline, so
-- control lines leave no blank lines behind.
--
-- Escaping is a property of the output format (M.FORMATS; render_file takes it from the
-- file name): in .md every {{ }} is Markdown-escaped (H.md), in .html HTML-escaped, in
-- .sh made one quoted shell word with no control character (safe in a comment and in
-- code), unless the last filter already makes the value safe there (md/cell, html,
-- sh/comment) or is `raw`, or the value is template.safe(text) (markup the model built).
--
-- Expressions are Lua expressions over the model: literals, names, a.b, a[i], arithmetic,
-- comparison (~= or !=), and/or/not, # and .., and calls of the helper functions below by
-- name. Nothing else can be called, so a template cannot run commands, read files or
-- reach the string library: it only sees the model it is given.
local metrics = require "llmd.metrics"

local M = {}

-- Helpers, callable by name in expressions and usable as filters ------------------------

local H = {}
M.helpers = H

local group = metrics.group_thousands

-- a number with `d` decimals (default 0) and thousands separators; nil -> "N/A"
function H.num(v, d)
  if v == nil then return "N/A" end
  if type(v) ~= "number" then return tostring(v) end
  if v == math.huge then return "+inf" elseif v == -math.huge then return "-inf" end
  local s = ("%." .. (d or 0) .. "f"):format(v)
  -- a value that rounds to zero is "0.0", never "-0.0" (a gap of -1e-15 between two equal
  -- figures is no direction)
  if s:find("^%-[0.]+$") then s = s:sub(2) end
  return group(s)
end

-- a count with its noun: count(1, "stage") -> "1 stage", count(3, "stage") -> "3 stages",
-- count(1, "pod") -> "1 pod"; plural given where "s" is not it: count(2, "query", "queries")
function H.count(n, word, plural)
  return ("%s %s"):format(H.num(n), n == 1 and word or (plural or word .. "s"))
end

-- signed: "+1.5", "-0.3"; nil -> "N/A". A zero is never signed negative, and a figure is never
-- printed as a zero it is not: one that rounds to zero at d decimals takes up to two more to
-- show its first digit, with its sign ("-0.01" for -0.012 at 1, so a change reads the way its
-- delta does, never "-0.0"); zero, float noise (|v| < 1e-9) and a figure still zero at d + 2
-- decimals read "+0.0" (no change at the decimals printed).
function H.signed(v, d)
  if v == nil then return "N/A" end
  local s = H.num(v, d)
  if v == v and not s:find("[1-9]") then
    if math.abs(v) >= 1e-9 then
      for more = 1, 2 do
        local t = H.num(v, (d or 0) + more)
        if t:find("[1-9]") then return (v > 0 and "+" or "") .. t end
      end
    end
    return "+" .. s
  end
  if v > 0 then return "+" .. s end
  return s
end

-- a signed percentage: "+12.3 %"
function H.pct(v, d)
  if v == nil then return "N/A" end
  return H.signed(v, d or 1) .. " %"
end

function H.fmt(v, spec)
  if v == nil then return "N/A" end
  return (spec or "%s"):format(v)
end

-- the catalogue's printing of a metric: metric(value, key [, reason])
function H.metric(v, key, reason)
  return metrics.format(key, v, reason)
end

-- value or "N/A (reason)"
function H.na(v, reason)
  if v == nil then return metrics.na(reason) end
  return v
end

function H.default(v, d)
  if v == nil or v == "" then return d end
  return v
end

-- milliseconds as seconds
function H.s(v)
  if v == nil then return nil end
  return v / 1000
end

function H.round(v, d)
  if v == nil then return nil end
  local m = 10 ^ (d or 0)
  return math.floor(v * m + 0.5) / m
end

function H.upper(v) return tostring(v):upper() end
function H.lower(v) return tostring(v):lower() end
function H.trim(v) return (tostring(v):gsub("^%s+", ""):gsub("%s+$", "")) end

-- Escaping, one function per output format -------------------------------------------------
-- A value printed by {{ }} is escaped for the template's format (see M.FORMATS) unless the
-- last filter already makes it safe there, or it is a M.safe value.

-- control characters but tab and newline, shown as "?" (no terminal escape sequences)
local CONTROL = "[%z\1-\8\11-\31\127]"

-- Markdown text: one line (newlines become spaces), no table break (|), no HTML or
-- autolink (< before a letter, / ! ?, backslash-escaped: "\<n>" is read as "<n>" by a
-- renderer and stays legible in a terminal, where an HTML entity (&lt;) would not), no
-- entity (&), no link or code span ([ ] `), no emphasis (*, and _ where it can open or close
-- one: not between two letters or digits, so that ttft_p90_ms stays as it is), no heading or
-- quote at its start; backslashes kept literal. (A label b*star* read as "b" and an italic
-- "star".) ~ is left alone: a single one does not strike through in CommonMark.
function H.md(v)
  if v == nil then return "N/A" end
  local t = tostring(v):gsub("\r\n", " "):gsub("[\r\n]", " "):gsub(CONTROL, "?")
  t = t:gsub("[\\`|%[%]&*]", "\\%0") -- & could start an entity (&lt;) and change the text
  t = t:gsub("()_", function(i)
    if t:sub(i - 1, i - 1):match("%w") and t:sub(i + 1, i + 1):match("%w") then return "_" end
    return "\\_"
  end)
  -- < starts raw HTML or an autolink only before a letter, / ! or ? ("<= 200 ms" stays)
  t = t:gsub("<([%a/!?])", "\\<%1"):gsub("<$", "\\<")
  return (t:gsub("^([#>])", "\\%1"))
end

-- safe in a Markdown table cell (the same as md)
H.cell = H.md

-- HTML text or attribute value
function H.html(v)
  if v == nil then return "N/A" end
  local map = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;" }
  return (tostring(v):gsub(CONTROL, "?"):gsub("[&<>\"']", map))
end

-- the value as it is: for text the model built as markup of this format already
function H.raw(v) return v end

function H.len(v)
  if type(v) == "table" or type(v) == "string" then return #v end
  return 0
end

function H.join(list, sep)
  local out = {}
  for i, v in ipairs(list or {}) do out[i] = tostring(v) end
  return table.concat(out, sep or ", ")
end

-- POSIX shell single-quoting
function H.sh(v)
  v = tostring(v == nil and "" or v)
  if v:match("^[%w%./_%-=:,@%%+]+$") then return v end
  return "'" .. v:gsub("'", "'\\''") .. "'"
end

-- one shell word, for text whose place in a script is not known (a comment or code):
-- control characters written as \n, \t, \xNN, then quoted when needed, so no newline
-- can end a comment and nothing can run
local function shell_text(v)
  local t = tostring(v == nil and "" or v):gsub("[%z\1-\31\127]", function(c)
    if c == "\n" then return "\\n" elseif c == "\t" then return "\\t" end
    return ("\\x%02x"):format(c:byte())
  end)
  return H.sh(t)
end

-- every line prefixed (for text shown commented in a script); safe for any text: each
-- line of it, \r and NUL included, stays inside a comment
function H.comment(text, prefix)
  prefix = prefix or "# "
  local out = {}
  for line in (tostring(text or ""):gsub("%z", "?") .. "\n"):gmatch("(.-)\n") do
    out[#out + 1] = (prefix .. line):gsub("%s+$", "")
  end
  if out[#out] == prefix:gsub("%s+$", "") then out[#out] = nil end
  return table.concat(out, "\n")
end

function H.indent(text, n)
  local pad = (" "):rep(n or 2)
  return (tostring(text):gsub("\n", "\n" .. pad))
end

function H.json(v)
  return require("llmd.json").encode(v)
end

-- an epoch as "2026-11-29 16:12:00 UTC"
function H.date(t, spec)
  if t == nil then return "unknown" end
  return os.date(spec or "!%Y-%m-%d %H:%M:%S UTC", math.floor(t))
end

-- Output formats: how {{ }} escapes, and which last filters make a value safe there.
M.FORMATS = {
  markdown = { escape = H.md, safe = { md = true, cell = true, raw = true } },
  html = { escape = H.html, safe = { html = true, raw = true } },
  shell = { escape = shell_text, safe = { sh = true, comment = true, raw = true } },
  text = { safe = {} },
}

-- The format of a template file, by its name: .md (markdown), .html/.htm, .sh; else text.
function M.format_of(path)
  path = tostring(path):lower()
  if path:match("%.md$") or path:match("%.markdown$") then return "markdown" end
  if path:match("%.html?$") then return "html" end
  if path:match("%.sh$") then return "shell" end
  return "text"
end

-- A value the model built as markup of the template's format: printed as it is.
local SAFE = {}
SAFE.__index = SAFE
SAFE.__tostring = function(v) return v.text end
SAFE.__concat = function(a, b) return tostring(a) .. tostring(b) end
function M.safe(text) return setmetatable({ text = tostring(text) }, SAFE) end

-- Expressions ------------------------------------------------------------------------------

local KEYWORDS = { ["and"] = true, ["or"] = true, ["not"] = true, ["true"] = true, ["false"] = true, ["nil"] = true }
-- operators, two characters before one ("<=" before "<"); "!=" is read as "~="
local OPS2 = { ["=="] = true, ["~="] = true, ["!="] = true, ["<="] = true, [">="] = true, [".."] = true,
  ["//"] = true }
local OPS1 = {}
for c in ("<>+-*/%^#()[].,"):gmatch(".") do OPS1[c] = true end

-- Tokens of an expression: {kind = "name" | "num" | "str" | "op" | "kw", text =}
-- (each token found by an anchored pattern at its first character: a template's
-- expressions were lexed a character at a time, a fifth of a comparison's report phase)
local function lex(src, err)
  local toks, n = {}, #src
  local i = src:find("%S") or n + 1
  while i <= n do
    local c = src:sub(i, i)
    local w = src:match("^[%a_][%w_]*", i)
    if w then
      toks[#toks + 1] = { kind = KEYWORDS[w] and "kw" or "name", text = w }
    elseif c:find("^%d") then
      w = src:match("^%d+%.?%d*[eE][%+%-]?%d+", i) or src:match("^%d+%.?%d*", i)
      toks[#toks + 1] = { kind = "num", text = w }
    elseif c == '"' or c == "'" then
      local j = i + 1
      while j <= n and src:sub(j, j) ~= c do
        if src:sub(j, j) == "\\" then j = j + 1 end
        j = j + 1
      end
      if j > n then err("unfinished string") end
      w = src:sub(i, j)
      toks[#toks + 1] = { kind = "str", text = w }
    else
      w = src:sub(i, i + 1)
      if not OPS2[w] then
        w = c
        if not OPS1[w] then err(("unexpected '%s'"):format(c)) end
      end
      toks[#toks + 1] = { kind = "op", text = w == "!=" and "~=" or w }
    end
    i = src:find("%S", i + #w) or n + 1
  end
  return toks
end

-- Lua source of one expression (no filters), checking that only helpers are called.
local function expr_source(src, err)
  local toks = lex(src, err)
  if #toks == 0 then err("empty expression") end
  local out = {}
  for k, tk in ipairs(toks) do
    local prev = toks[k - 1]
    local callee = prev and (prev.kind == "name" or prev.text == ")" or prev.text == "]")
    if tk.kind == "op" and tk.text == "(" and callee then
      local before = toks[k - 2]
      if prev.kind ~= "name" or not H[prev.text] or (before and before.text == ".") then
        err("only helper functions can be called (" .. (prev.text) .. "(...) is not one)")
      end
      out[#out] = "H." .. prev.text
    end
    out[#out + 1] = tk.text
  end
  return table.concat(out, " ")
end

-- Splits "a | f(x, '|') | g" at top-level bars.
local function split_filters(src)
  if not src:find("|", 1, true) then return { src } end
  local parts, depth, quote, start = {}, 0, nil, 1
  for i = 1, #src do
    local c = src:sub(i, i)
    if quote then
      if c == quote and src:sub(i - 1, i - 1) ~= "\\" then quote = nil end
    elseif c == '"' or c == "'" then
      quote = c
    elseif c == "(" or c == "[" then
      depth = depth + 1
    elseif c == ")" or c == "]" then
      depth = depth - 1
    elseif c == "|" and depth == 0 then
      parts[#parts + 1] = src:sub(start, i - 1)
      start = i + 1
    end
  end
  parts[#parts + 1] = src:sub(start)
  return parts
end

local function compile_expr(src, err)
  local parts = split_filters(src)
  local code = "(" .. expr_source(parts[1], err) .. ")"
  local last
  for k = 2, #parts do
    local f = parts[k]:match("^%s*(.-)%s*$")
    local name, args = f:match("^([%a_][%w_]*)%s*(%b())$")
    name = name or f:match("^([%a_][%w_]*)$")
    if not name then err(("bad filter '%s' (expected name or name(args))"):format(f)) end
    if not H[name] then err(("unknown filter '%s'"):format(name)) end
    local inner = args and args:sub(2, -2):match("^%s*(.-)%s*$") or ""
    code = ("H.%s(%s%s)"):format(name, code, inner ~= "" and (", " .. expr_source(inner, err)) or "")
    last = name
  end
  local fn, lerr = load("local _ENV, H = ...; return " .. code, "=expression", "t", {})
  if not fn then err("cannot read the expression: " .. tostring(lerr):gsub("^%[.-%]:%d+: ", "")) end
  return fn, last
end

-- Parsing ----------------------------------------------------------------------------------

-- The tag when a line holds nothing but one {% %} or {# #} tag.
local function tag_only(line)
  local only = line:match("^%s*(%b{})%s*$")
  if only and (only:match("^{%%.*%%}$") or only:match("^{#.*#}$")) and not only:sub(3, -3):find("[{}]") then
    return only
  end
end

-- Drops a line that holds only one {% %} / {# #} tag, with its newline.
local function strip_tag_lines(text)
  local out = {}
  for line, nl in text:gmatch("([^\n]*)(\n?)") do
    if line == "" and nl == "" then break end
    local only = tag_only(line)
    if only then
      out[#out + 1] = only -- the tag, without the line's newline
    else
      out[#out + 1] = line .. nl
    end
  end
  return table.concat(out)
end

-- Compiles source into a function(model) -> text. Errors: "name:line: message".
-- opts.format: "markdown", "html", "shell" or "text" (no escaping; the default).
function M.compile(source, name, opts)
  name = name or "template"
  local fmt = M.FORMATS[opts and opts.format or "text"]
  if not fmt then error(("unknown template format '%s'"):format(tostring(opts.format)), 2) end
  local src = strip_tag_lines(source)
  -- each piece of the stripped text maps back to its line in the source
  local line_of
  do
    local orig_lines = {}
    for l in (source .. "\n"):gmatch("([^\n]*)\n") do orig_lines[#orig_lines + 1] = l end
    local map, pos = {}, 1
    for i, l in ipairs(orig_lines) do
      local only = tag_only(l)
      local len = only and #only or #l + 1
      map[#map + 1] = { from = pos, to = pos + len - 1, line = i }
      pos = pos + len
    end
    -- (a binary search: a scan from the first line for every tag made compiling a
    -- template quadratic in its length, ~40 % of a comparison's report phase)
    line_of = function(offset)
      local lo, hi = 1, #map
      while lo <= hi do
        local mid = (lo + hi) // 2
        local m = map[mid]
        if offset < m.from then
          hi = mid - 1
        elseif offset > m.to then
          lo = mid + 1
        else
          return m.line
        end
      end
      return #orig_lines
    end
  end

  local root = { kind = "block", body = {} }
  local stack = { root }
  local function cur() return stack[#stack] end
  local function push_node(n) local b = cur(); b.body[#b.body + 1] = n end
  local i = 1
  while i <= #src do
    local s = src:find("{[{%%#]", i)
    if not s then
      push_node { kind = "text", text = src:sub(i) }
      break
    end
    if s > i then push_node { kind = "text", text = src:sub(i, s - 1) } end
    local line = line_of(s)
    local function err(msg) error(("%s:%d: %s"):format(name, line, msg), 0) end
    local open = src:sub(s, s + 1)
    local close = open == "{{" and "}}" or open == "{%" and "%}" or "#}"
    local e = src:find(close, s + 2, true)
    if not e then err("unclosed " .. open) end
    local body = src:sub(s + 2, e - 1):match("^%s*(.-)%s*$")
    i = e + 2
    -- a comment that starts a line takes its closing line's newline with it
    if open == "{#" and (s == 1 or src:sub(s - 1, s - 1) == "\n") and src:sub(i, i) == "\n" then i = i + 1 end
    if open == "{{" then
      local fn, last = compile_expr(body, err)
      push_node { kind = "out", fn = fn, src = body, line = line, escape = not fmt.safe[last] and fmt.escape or nil }
    elseif open == "{%" then
      local kw, rest = body:match("^(%a+)%s*(.*)$")
      if kw == "if" then
        local first = { fn = compile_expr(rest, err), src = rest, body = {} }
        local node = { kind = "if", branches = { first }, line = line }
        push_node(node)
        stack[#stack + 1] = { kind = "if", node = node, body = node.branches[1].body }
      elseif kw == "elif" or kw == "else" then
        local top = cur()
        if top.kind ~= "if" or top.has_else then err(kw .. " without an open if") end
        local br = { body = {} }
        if kw == "elif" then
          br.fn, br.src = compile_expr(rest, err), rest
        else
          if rest ~= "" then err("else takes nothing") end
          top.has_else = true
        end
        top.node.branches[#top.node.branches + 1] = br
        top.body = br.body
      elseif kw == "for" then
        local a, b, what = rest:match("^([%a_][%w_]*)%s*,%s*([%a_][%w_]*)%s+in%s+(.+)$")
        if not a then
          a, what = rest:match("^([%a_][%w_]*)%s+in%s+(.+)$")
        end
        if not a then err("expected 'for name in expr' or 'for key, value in expr'") end
        local node = { kind = "for", k = b and a or nil, v = b or a, fn = compile_expr(what, err), src = what,
          body = {}, line = line }
        push_node(node)
        stack[#stack + 1] = { kind = "for", node = node, body = node.body }
      elseif kw == "end" then
        if #stack == 1 then err("end without an open if or for") end
        stack[#stack] = nil
      else
        err(("unknown tag '%s' (expected if, elif, else, for or end)"):format(kw or body))
      end
    end
  end
  if #stack > 1 then
    local top = stack[#stack]
    error(("%s:%d: %s not closed with {%% end %%}"):format(name, top.node.line, top.kind), 0)
  end

  local function eval(fn, scope, src_text, line)
    local ok, v = pcall(fn, scope, H)
    if not ok then
      error(("%s:%d: in '%s': %s"):format(name, line, src_text, tostring(v):gsub("^expression:%d+: ", "")), 0)
    end
    return v
  end

  local function run(nodes, scope, out)
    for _, n in ipairs(nodes) do
      if n.kind == "text" then
        out[#out + 1] = n.text
      elseif n.kind == "out" then
        local v = eval(n.fn, scope, n.src, n.line)
        if v == nil then
          error(("%s:%d: '%s' is nil (use | default(...) for optional values)"):format(name, n.line, n.src), 0)
        end
        if getmetatable(v) == SAFE then
          out[#out + 1] = v.text
        else
          local text = type(v) == "number" and H.num(v, math.type(v) == "float" and 2 or 0) or tostring(v)
          out[#out + 1] = n.escape and n.escape(text) or text
        end
      elseif n.kind == "if" then
        for _, br in ipairs(n.branches) do
          if not br.fn or eval(br.fn, scope, br.src, n.line) then
            run(br.body, scope, out)
            break
          end
        end
      elseif n.kind == "for" then
        local list = eval(n.fn, scope, n.src, n.line)
        if list ~= nil and type(list) ~= "table" then
          error(("%s:%d: '%s' is a %s, not a list or map"):format(name, n.line, n.src, type(list)), 0)
        end
        local items = {}
        if list and n.k then
          local keys = {}
          for k in pairs(list) do keys[#keys + 1] = k end
          table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
          for _, k in ipairs(keys) do items[#items + 1] = { k, list[k] } end
        elseif list then
          for idx, v in ipairs(list) do items[idx] = { idx, v } end
        end
        for idx, it in ipairs(items) do
          local inner = setmetatable({ loop = { index = idx, first = idx == 1, last = idx == #items } },
            { __index = scope })
          if n.k then inner[n.k] = it[1] end
          inner[n.v] = it[2]
          run(n.body, inner, out)
        end
      end
    end
  end

  return function(model)
    local scope = setmetatable({}, { __index = model })
    local out = {}
    run(root.body, scope, out)
    return table.concat(out)
  end
end

function M.render(source, model, name, opts)
  return M.compile(source, name, opts)(model)
end

-- Renders a template file, escaping for its format (M.format_of its name, or opts.format).
function M.render_file(path, model, opts)
  local f, err = io.open(path, "rb")
  if not f then error(path .. ": cannot read the template: " .. tostring(err), 0) end
  local src = f:read("a")
  f:close()
  return M.compile(src, path, { format = opts and opts.format or M.format_of(path) })(model)
end

return M
