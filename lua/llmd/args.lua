-- llmd.args: command-line options for llmdlua scripts.
--
--   local args = require "llmd.args"
--   local o = args.parse(arg, {
--     command = "llmdlua extract.lua",
--     usage = "llmdlua extract.lua RESULTS_DIR [options]",
--     options = { harness = "NAME", json = true, warmup = "LIST" },   -- true: a flag; a string: takes a value
--     positional = { min = 1, max = 1 },
--   })
--   o.harness, o.json, o[1]
--
-- "--name value" and "--name=value"; "-h"/"--help" prints the usage and exits 0; anything
-- else unknown is a usage error (exit 2) naming it, one line ending "; see COMMAND --help".
-- An option that takes a value, given twice, is a usage error too (never the last kept
-- silently); a flag given twice is the flag.
-- spec.command (required): the command whose --help tells the options, as a user types it
-- ("llmdlua autobench.lua compare"), named by the spec, never guessed from the usage's words
-- (a lower-case argument there, "llmdlua x.lua run config", read as part of the command).
-- Dashes in names become underscores.
-- spec.taken: options the script took out of argv before (repeatable ones, "--run"),
-- named by the did-you-mean of a misspelt option all the same.
local M = {}

-- A wrong option is one line: what is wrong (with "did you mean"), and where the options are
-- told; the ~500-character usage line after it buried the line that matters (newuser47). A
-- missing or extra argument (what the usage shows: the arguments) keeps the usage line.
local function usage_error(spec, msg, with_usage)
  if with_usage then
    io.stderr:write(("%s: %s\nusage: %s\n"):format(M.script(), msg, spec.usage))
  else
    io.stderr:write(("%s: %s; see %s --help\n"):format(M.script(), msg, spec.command))
  end
  os.exit(2)
end

-- A usage line made from an option table, so that it cannot leave one out: head (the
-- script and what it needs, "llmdlua x.lua (--a DIR | --plan FILE)"), then "[--name VALUE]"
-- (or "[--flag]") for each of options (M.parse's table) that head does not name, those in
-- order first (a list of keys, as the help lists them), then any other, sorted.
function M.usage_line(head, options, order)
  local parts, done = { head }, {}
  local function add(key)
    if done[key] or options[key] == nil then return end
    done[key] = true
    local name = "--" .. key:gsub("_", "-")
    if head:find(name .. "%f[^%w%-]") then return end
    parts[#parts + 1] = options[key] == true and ("[%s]"):format(name) or ("[%s %s]"):format(name, options[key])
  end
  for _, key in ipairs(order or {}) do add(key) end
  local rest = {}
  for key in pairs(options) do if not done[key] then rest[#rest + 1] = key end end
  table.sort(rest)
  for _, key in ipairs(rest) do add(key) end
  return table.concat(parts, " ")
end

-- What to do instead of giving an option twice, where the option holds a list.
local ONCE_HINT = {
  slo = "give every SLO in one --slo, comma separated (ttft_p90_ms=500,itl_p90_ms=50)",
  warmup = "give every stage in one --warmup, comma separated (0,2-4)",
  a_warmup = "give every stage in one --a-warmup, comma separated (0,2-4)",
  b_warmup = "give every stage in one --b-warmup, comma separated (0,2-4)",
}

function M.parse(argv, spec)
  if type(spec.command) ~= "string" or spec.command == "" then
    error("args.parse: spec.command is required (the command whose --help tells the options)", 2)
  end
  local out, i = {}, 1
  local n = #argv
  -- follows[k]: the list option (a ONCE_HINT key) whose value the k-th argument came right after
  -- ("--slo ttft_p90_ms=800 tpot_p90_ms=40": the shell split one list in two; newuser55)
  local follows, list_key = {}, nil
  while i <= n do
    local a = argv[i]
    local prev_list = list_key
    list_key = nil
    if a == "-h" or a == "--help" then
      io.stdout:write("usage: " .. spec.usage .. "\n" .. (spec.help or ""))
      os.exit(0)
    elseif a == "--" then
      for j = i + 1, n do out[#out + 1] = argv[j] end
      break
    elseif a:sub(1, 2) == "--" then
      local name, value = a:match("^%-%-([^=]+)=(.*)$")
      name = name or a:sub(3)
      local key = name:gsub("%-", "_")
      local kind = spec.options[key]
      if kind == nil then
        -- a misspelt option names the one it most likely meant (llmd.opts.closest, the
        -- project's one suggestion rule): --dryrun, --a-lable
        local names = {}
        for k in pairs(spec.options) do names[#names + 1] = "--" .. k:gsub("_", "-") end
        for _, k in ipairs(spec.taken or {}) do names[#names + 1] = "--" .. k:gsub("_", "-") end
        table.sort(names)
        local near = require("llmd.opts").closest("--" .. name, names)
        usage_error(spec, "unknown option --" .. name .. (near and (" (did you mean " .. near .. "?)") or ""))
      end
      if kind == true then
        if value then usage_error(spec, "--" .. name .. " takes no value") end
        out[key] = true
      else
        if not value then
          i = i + 1
          value = argv[i]
          if value == nil then usage_error(spec, "--" .. name .. " needs a value (" .. kind .. ")") end
        end
        -- one value: a second is refused, never silently kept in place of the first (audit52 F4:
        -- --slo ttft_p90_ms=500 --slo itl_p90_ms=50 ranked by ITL alone); repeatable options
        -- are taken out of argv before (spec.taken)
        if out[key] ~= nil then
          usage_error(spec, ("--%s given twice ('%s', then '%s'): it takes one value%s"):format(name, out[key], value,
            ONCE_HINT[key] and ("; " .. ONCE_HINT[key]) or ""))
        end
        out[key] = value
        if ONCE_HINT[key] then list_key = key end
      end
    elseif a:sub(1, 1) == "-" and a ~= "-" then
      usage_error(spec, "unknown option " .. a)
    else
      out[#out + 1] = a
      if prev_list then follows[#out], list_key = prev_list, prev_list end
    end
    i = i + 1
  end
  local p = spec.positional or { min = 0, max = 0 }
  if #out < (p.min or 0) then usage_error(spec, "missing argument", true) end
  if p.max and #out > p.max then
    local extra, key = out[p.max + 1], follows[p.max + 1]
    if key then
      -- an item of a list option's value, split off by a space: say how to give the list
      local name = "--" .. key:gsub("_", "-")
      local items = { out[key] }
      for k = p.max + 1, #out do
        if follows[k] ~= key then break end
        items[#items + 1] = out[k]
      end
      for k, item in ipairs(items) do items[k] = item:gsub("^,+", ""):gsub(",+$", "") end
      usage_error(spec, ("unexpected argument %s after %s %s: %s takes one value, its items joined by commas "
        .. "with no spaces (%s %s)"):format(extra, name, out[key], name, name, table.concat(items, ",")))
    end
    usage_error(spec, "unexpected argument " .. extra, true)
  end
  return out
end

-- "0,2-4" -> {0, 2, 3, 4}; errors name the option.
function M.list_of_ints(s, what)
  local out = {}
  for part in tostring(s):gmatch("[^,]+") do
    local a, b = part:match("^%s*(%d+)%s*%-%s*(%d+)%s*$")
    if a then
      for k = tonumber(a), tonumber(b) do out[#out + 1] = k end
    elseif part:match("^%s*%d+%s*$") then
      out[#out + 1] = tonumber(part)
    else
      error(("%s: expected stage numbers or ranges like 0,2-4, got '%s'"):format(what, part), 0)
    end
  end
  return out
end

-- Option VALUE errors: exit 2 (as a usage error), one line "SCRIPT: --option: what was
-- expected, got X". Errors in the data (a file, a run) stay exit 1.

-- The running script's name for messages: "extract.lua".
function M.script()
  return (tostring(arg and arg[0] or "llmdlua"):match("[^/]+$"))
end

-- "SCRIPT: OPTION: expected EXPECTED, got 'GOT'[ (HINT)]" on stderr, exit 2.
function M.bad_value(option, expected, got, hint)
  io.stderr:write(("%s: %s: expected %s, got '%s'%s\n"):format(M.script(), option, expected, tostring(got),
    hint and (" (" .. hint .. ")") or ""))
  os.exit(2)
end

-- fn(...), whose errors are about an option's value and name the option ("--slo: ...",
-- "--warmup: ..."): such an error is "SCRIPT: message" on stderr and exit 2. fn's results.
function M.value(fn, ...)
  local r = table.pack(pcall(fn, ...))
  if not r[1] then
    local msg = require("llmd.errors").text(r[2])
    io.stderr:write(("%s: %s\n"):format(M.script(), msg))
    os.exit(2)
  end
  return table.unpack(r, 2, r.n)
end

-- The value of option as one of choices (a list of strings), else bad_value naming them
-- and the one it most likely meant.
function M.choice(option, value, choices)
  for _, c in ipairs(choices) do
    if c == value then return value end
  end
  local near = require("llmd.opts").closest(value, choices)
  local q = {}
  for i, c in ipairs(choices) do q[i] = c end
  local expected = #q > 1 and (table.concat(q, ", ", 1, #q - 1) .. " or " .. q[#q]) or q[1]
  M.bad_value(option, expected, value, near and ("did you mean " .. near .. "?"))
end

-- A number option: tonumber(value) within [lo, hi] (either nil: unbounded), else bad_value.
function M.number(option, value, lo, hi, expected)
  local v = tonumber(value)
  if not v or v ~= v or v == math.huge or v == -math.huge or (lo and v < lo) or (hi and v > hi) then
    M.bad_value(option, expected, value)
  end
  return v
end

-- A file or folder the command line names (kind: "file" or "directory") that is not there, or
-- is the other kind, is a usage error like a bad option value, in every script alike: one line
-- "SCRIPT: WHAT: no such file (expected EXPECTED)" ("a folder, not a file"), exit 2 - never exit
-- 1 in one script and 2 in another for the same mistake (newuser44). what: how the command
-- line gave it ("--plan plan.yaml", or a positional path as it is); who: the line's head when
-- not the script's name ("autobench.lua run"). Returns path.
function M.path(what, path, kind, expected, who)
  local mode = require("lfs").attributes(path, "mode")
  if mode == kind then return path end
  local function noun(m) return m == "directory" and "folder" or m end
  io.stderr:write(("%s: %s: %s (expected %s)\n"):format(who or M.script(), what,
    mode and ("a %s, not a %s"):format(noun(mode), noun(kind)) or ("no such " .. noun(kind)), expected))
  os.exit(2)
end

-- --harness NAME: a known harness's name (llmd.harness), else bad_value listing them.
function M.harness(option, value)
  if value == nil then return nil end
  local names = {}
  for _, h in ipairs(require("llmd.harness").list()) do
    if h.name == value or h.module == value or h.module == tostring(value):gsub("%-", "_") then return value end
    names[#names + 1] = h.name
  end
  M.choice(option, value, names)
end

return M
