-- llmd.html: what the self-contained HTML report needs beyond the template engine.
--
--   local html = require "llmd.html"
--   html.inline_svg(svg_text, "c1-")   -- an SVG file's text, fit to sit inside an HTML page
--
-- The report is one file that works offline and as an attachment: inline CSS and inline
-- SVG, no script, nothing fetched. gnuplot's SVG is a standalone XML document and may,
-- from an edited template, carry a script (its `mouse` option) or links to other files;
-- inline_svg keeps the drawing and drops the rest.
local M = {}

local ESC = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;" }

-- Text for HTML text or an attribute value.
function M.escape(s)
  return (tostring(s):gsub("[&<>\"']", ESC))
end

-- Whether a tag's text has word after a white-space character, where an attribute's name
-- starts (the rewrites below need %s before it: on* lower-cased, id).
local function after_space(tag, word)
  local i = tag:find(word, 2, true)
  while i do
    if tag:find("^%s", i - 1) then return true end
    i = tag:find(word, i + 1, true)
  end
  return false
end

-- text:gsub("<[%a][^<>]*>", f) for an f that always returns a string, by plain searches
-- (issue 20: the pattern tried every character of the drawing, most of them path data
-- inside tags, one bracket class at a time): a tag is a "<" and a letter up to the first
-- ">" when no "<" comes before it; else that "<" is text and the search goes on after it.
-- (gt: the first ">" after the last place looked from, false for none: kept while it is
-- ahead, so that many "<" before one ">", or none, cost one search, not one each)
local function each_tag(text, f)
  local out, n, pos, at, gt = {}, 0, 1, 1, 0
  while true do
    local s = text:find("<", at, true)
    if not s then break end
    local e = false
    if text:find("^%a", s + 1) then
      if gt and gt < s + 2 then gt = text:find(">", s + 2, true) or false end
      e = gt
    end
    local lt = e and text:find("<", s + 2, true)
    if e and not (lt and lt < e) then
      out[n + 1], out[n + 2], n = text:sub(pos, s - 1), f(text:sub(s, e)), n + 2
      pos, at = e + 1, e + 1
    else
      at = s + 1
    end
  end
  out[n + 1] = text:sub(pos)
  return table.concat(out)
end

-- The SVG element of svg text, without what an inline SVG must not have or need:
-- the XML declaration, the DOCTYPE, comments, <script> elements, on* event attributes,
-- and links to anything but the drawing's own elements (href not starting with '#').
-- Element ids (and the '#id' / url(#id) references to them) get prefix, so that several
-- charts in one page never share an id. title, when given, replaces the drawing's first
-- <title> (gnuplot's "Gnuplot") and becomes its accessible name. Raises when there is no
-- <svg ...> ... </svg>.
function M.inline_svg(text, prefix, title)
  local s = text:find("<svg[%s>]")
  local e = select(2, text:find(".*</svg>"))
  if not s or not e then error("inline_svg: not an SVG document (no <svg ...> ... </svg>)", 2) end
  local svg = text:sub(s, e)
  -- (each pattern only where a plain search finds its start: gnuplot writes none of them)
  if svg:find("<!--", 1, true) then svg = svg:gsub("<!%-%-.-%-%->", "") end
  if svg:find("<![CDATA[", 1, true) then svg = svg:gsub("<!%[CDATA%[.-%]%]>", "") end
  -- script elements, whatever their case, with their content
  if svg:lower():find("<script", 1, true) then
    svg = svg:gsub("<[Ss][Cc][Rr][Ii][Pp][Tt][^>]-/>", "")
    svg = svg:gsub("<[Ss][Cc][Rr][Ii][Pp][Tt].-</[Ss][Cc][Rr][Ii][Pp][Tt]%s*>", "")
    svg = svg:gsub("<[Ss][Cc][Rr][Ii][Pp][Tt][^>]*>.*$", "</svg>") -- an unclosed one: cut the rest
  end
  -- inside tags only: event handlers and outside links
  local function clean_tag(tag)
    -- each rewrite only where its word is (a plain search first: most tags have none; "on"
    -- and "id" only after a space, where an attribute's name can start: gnuplot's tags hold
    -- "polygon", "font" and "width" but no handler)
    local low = tag:lower()
    if after_space(low, "on") then
      tag = tag:gsub("%s[Oo][Nn][%w_%-]*%s*=%s*\"[^\"]*\"", "")
      tag = tag:gsub("%s[Oo][Nn][%w_%-]*%s*=%s*'[^']*'", "")
    end
    if low:find("href", 1, true) then
      tag = tag:gsub("%s([%w:]*[Hh][Rr][Ee][Ff])%s*=%s*([\"'])(.-)%2", function(name, q, v)
        if v:sub(1, 1) == "#" then return (" %s=%s#%s%s%s"):format(name, q, prefix, v:sub(2), q) end
        return ""
      end)
    end
    if after_space(tag, "id") then tag = tag:gsub("(%sid%s*=%s*)([\"'])", "%1%2" .. prefix:gsub("%%", "%%%%")) end
    if tag:find("url(", 1, true) then
      tag = tag:gsub("url%(%s*['\"]?[^#'\")%s][^)]*%)", "none") -- url(...) of another file
      tag = tag:gsub("url%(#", "url(#" .. prefix:gsub("%%", "%%%%"))
    end
    return tag
  end
  svg = each_tag(svg, clean_tag)
  if title then
    local t = M.escape(title)
    svg = svg:gsub("^<svg", '<svg role="img" aria-label="' .. t:gsub("%%", "%%%%") .. '"', 1)
    svg = svg:gsub("<title>.-</title>", "<title>" .. t:gsub("%%", "%%%%") .. "</title>", 1)
  end
  return svg
end

return M
