-- llmd.opts: a script author's options tables, checked. The Lua modules' twin of
-- llmd_check_keys / llmd_closest in src/lutil.c: one rule for every options table.
--
--   local opts = require "llmd.opts"
--   opts.check(o, { "harness", "warmup" }, "harness.extract")   -- raises at the caller's caller
--   opts.closest("harnes", { "harness", "file" })                -- "harness"
local M = {}

-- Levenshtein distance between two strings (bytes).
function M.distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

-- Edit distance with a swap of two neighbouring letters counting 1 (optimal string
-- alignment): `replicsa` is 1 from `replicas`, where M.distance counts 2.
function M.swap_distance(a, b)
  local d = {}
  for i = 0, #a do d[i] = { [0] = i } end
  for j = 0, #b do d[0][j] = j end
  for i = 1, #a do
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      local v = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and a:byte(i) == b:byte(j - 1) and a:byte(i - 1) == b:byte(j) then
        v = math.min(v, d[i - 2][j - 2] + 1)
      end
      d[i][j] = v
    end
  end
  return d[#a][#b]
end

-- The one near-miss rule (a key absent from a mapping that a key beside it was most likely
-- meant to be): the word of list other than key nearest to it by M.swap_distance, case and
-- '-' / '_' set aside, when that distance is at most within(key, word) (the caller's
-- threshold: llmd.valuekeys.near for a values key, llmd.experiment.near_miss for a workload
-- key); the list's first on a tie; nil when none is that close.
function M.near(key, list, within)
  local function norm(x) return (x:lower():gsub("_", "-")) end
  local best, best_d
  for _, w in ipairs(list) do
    if w ~= key then
      local d = M.swap_distance(norm(key), norm(w))
      if d <= within(key, w) and (not best_d or d < best_d) then best, best_d = w, d end
    end
  end
  return best
end

-- The word of list a misspelt word most likely meant: one it begins (3 characters or
-- more), the shortest of those (`treatment` means `treatments`, not
-- `treatment_max_attempts`), else the nearest by edit distance within a third of its
-- length (at least 1), the shorter on a tie; the list's first on a tie of both; nil when
-- none is close. The distance counts a swap of two neighbouring letters as 1 edit
-- (M.swap_distance): `lable` is 1 from `label`, which plain Levenshtein puts 2 away, beyond a
-- five-letter word's reach (newuser55: no suggestion, and a second line about label missing).
-- The same rule as llmd_closest in C.
function M.closest(word, list)
  word = tostring(word)
  local prefix, best, best_d
  for _, w in ipairs(list) do
    if #word >= 3 and w:sub(1, #word) == word then
      if not prefix or #w < #prefix then prefix = w end
    elseif not prefix then
      local d = M.swap_distance(word, w)
      if d <= math.max(1, #word // 3) and (not best_d or d < best_d or d == best_d and #w < #best) then
        best, best_d = w, d
      end
    end
  end
  return prefix or best
end

-- Raises "WHO: unknown option 'KEY' (did you mean 'X'?)" (or "(expected a, b or c)") for a
-- key of t that allowed does not list. level is error()'s, counted from the caller of
-- check: 2 (the default) names the line that called the function that calls check.
function M.check(t, allowed, who, level)
  if t == nil then return end
  if type(t) ~= "table" then
    error(("%s: expected an options table, got %s"):format(who, type(t)), (level or 2) + 1)
  end
  local known = {}
  for _, k in ipairs(allowed) do known[k] = true end
  local bad = {}
  for k in pairs(t) do
    if not known[k] then bad[#bad + 1] = k end
  end
  if #bad == 0 then return end
  table.sort(bad, function(x, y) return tostring(x) < tostring(y) end)
  local k = bad[1]
  local msg
  if type(k) ~= "string" then
    msg = ("%s: unknown option %s (options are named by strings)"):format(who, tostring(k))
  else
    local near = M.closest(k, allowed)
    if near then
      msg = ("%s: unknown option '%s' (did you mean '%s'?)"):format(who, k, near)
    else
      local q = {}
      for i, a in ipairs(allowed) do q[i] = "'" .. a .. "'" end
      local choices = #q > 1 and table.concat(q, ", ", 1, #q - 1) .. " or " .. q[#q] or q[1]
      msg = ("%s: unknown option '%s' (expected %s)"):format(who, k, choices)
    end
  end
  error(msg, (level or 2) + 1)
end

return M
