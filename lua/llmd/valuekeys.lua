-- llmd.valuekeys: a values key misspelt in an override, found before anything deploys.
--
--   local vk = require "llmd.valuekeys"
--   local base = vk.base_trees(plan_deploy)      -- {{tree =, from =}, ...}: the values the plan names
--   local lines = vk.problems(sets, opts)        -- one line per key that is most likely a typo
--
-- Helm takes any key in a values override, whether the chart reads it or not: `decode.replicsa:
-- 2` deploys the chart's own decode.replicas, and a comparison of two setups that differ only
-- there compares one configuration with itself (newuserd51). A key of an override is refused
-- when it is absent from every values tree it is checked against and within a letter or two of
-- a key those trees hold at the same path (an edit distance of a fifth of its length, at least
-- 1, a swap of two neighbouring letters counting 1; case and '-' / '_' alone; keys of 3
-- characters or fewer only by case, '-' / '_' or a swap). The trees: the values the plan names
-- (its deploy.values files, a local chart's values.yaml, its deploy.values_override and
-- deploy.set: what the override goes over), and the other overrides compared with it (the other
-- setup treatments, the other run): a key one of them sets. A key the base has wins; between two
-- overrides alone the key more of them set is the likely one, and two set by as many are named
-- together (either may be the typo). A genuinely new key is kept by listing it, dotted, under
-- the plan's deploy.new_values_keys.
local lfs = require "lfs"
local yaml = require "llmd.yaml"

local M = {}

local function is_map(v)
  if type(v) ~= "table" then return false end
  if getmetatable(v) and require("llmd.json").is_array(v) then return false end
  return #v == 0 and next(v) ~= nil
end

local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  return ks
end

-- The key of list most likely meant by key (absent from it), or nil: see the header (the
-- rule is llmd.opts.near's; this is its threshold: a fifth of the key's length, at least 1;
-- a key of 3 characters or fewer only by case, '-' / '_' or a swap of two neighbouring
-- letters, never another letter: dp beside tp is another key).
function M.near(key, list)
  local opts = require "llmd.opts"
  return opts.near(key, list, function(k, w)
    if #k > 3 then return math.max(1, #k // 5) end
    -- (a swap: as long, and two plain edits apart, one swap apart)
    local function norm(x) return (x:lower():gsub("_", "-")) end
    return #k == #w and opts.distance(norm(k), norm(w)) == 2 and 1 or 0
  end)
end

-- The leaf paths of a values tree: lists of keys, a path ending where its value is no mapping.
function M.paths(tree, prefix, out)
  out = out or {}
  prefix = prefix or {}
  for _, k in ipairs(sorted_keys(tree)) do
    local p = { table.unpack(prefix) }
    p[#p + 1] = tostring(k)
    if is_map(tree[k]) then M.paths(tree[k], p, out) else out[#out + 1] = p end
  end
  return out
end

-- helm --set's key (`a.b\.c[0].d`) as a path of keys ({"a", "b.c", "d"}: list indices dropped).
function M.set_path(key)
  local out, cur, i = {}, "", 1
  key = tostring(key)
  while i <= #key do
    local c = key:sub(i, i)
    if c == "\\" and i < #key then cur = cur .. key:sub(i + 1, i + 1); i = i + 1
    elseif c == "." then out[#out + 1] = cur; cur = ""
    elseif c == "[" then
      local j = key:find("]", i, true)
      if not j then cur = cur .. c else i = j end
    else cur = cur .. c end
    i = i + 1
  end
  out[#out + 1] = cur
  return out
end

-- A tree from paths (each {keys..., value}).
function M.tree_of(paths)
  local t = {}
  for _, p in ipairs(paths) do
    local node = t
    for i = 1, #p - 1 do
      if type(node[p[i]]) ~= "table" then node[p[i]] = {} end
      node = node[p[i]]
    end
  end
  return t
end

-- The values a deploy d (a plan's deploy:, its paths already from the plan's folder) names,
-- that an override goes over: each deploy.values file (from guide_dir) that reads as YAML, the
-- values.yaml of a chart that is a folder (helm reads a local chart's defaults from it), the
-- plan's deploy.values_override and deploy.set (without_own: not those two, for a compare
-- plan's run, whose own overrides they are). {{tree =, from =}, ...}; what cannot be read is
-- left out (said where it is used: llmd.cluster.guide_file_problems).
function M.base_trees(d, without_own)
  local out = {}
  if type(d) ~= "table" then return out end
  local dir = type(d.guide_dir) == "string" and d.guide_dir or "."
  local function at(p) return p:sub(1, 1) == "/" and p or (dir .. "/" .. p) end
  local values = type(d.values) == "string" and { d.values } or (type(d.values) == "table" and d.values or {})
  for _, v in ipairs(values) do
    if type(v) == "string" then
      local ok, t = pcall(yaml.load_file, at(v))
      if ok and is_map(t) then out[#out + 1] = { tree = t, from = at(v) } end
    end
  end
  if type(d.chart) == "string" and lfs.attributes(at(d.chart), "mode") == "directory" then
    local f = at(d.chart) .. "/values.yaml"
    local ok, t = pcall(yaml.load_file, f)
    if ok and is_map(t) then out[#out + 1] = { tree = t, from = f } end
  end
  if without_own then return out end
  if is_map(d.values_override) then out[#out + 1] = { tree = d.values_override, from = "deploy.values_override" } end
  if is_map(d.set) then
    local paths = {}
    for k in pairs(d.set) do
      local p = M.set_path(k)
      p[#p + 1] = true
      paths[#paths + 1] = p
    end
    out[#out + 1] = { tree = M.tree_of(paths), from = "deploy.set" }
  end
  return out
end

-- The keys of tree at path p (its first n keys), as a set; {} where it has none there.
local function kids(tree, p, n)
  local node = tree
  for i = 1, n do
    if not is_map(node) then return {} end
    node = node[p[i]]
  end
  local out = {}
  if is_map(node) then for k in pairs(node) do out[tostring(k)] = true end end
  return out
end

local function has(tree, p)
  local node = tree
  for i = 1, #p do
    if not is_map(node) or node[p[i]] == nil then return false end
    node = node[p[i]]
  end
  return true
end

-- The lines refusing the keys of sets that are most likely typos. sets: {{who =, tree =,
-- base = {{tree =, from =}, ...}, allowed =}, ...} (who names the override: "setup treatment
-- two", "runs.b.deploy"); opts: where (the file the overrides are in, to begin each line),
-- allowed (a set of dotted paths kept as new keys; a set's own allowed wins), keep (the refusal
-- and how to keep a new key, added to each line). Each line names the file, the override, the
-- key and the key most likely meant.
function M.problems(sets, opts)
  opts = opts or {}
  local allowed = opts.allowed or {}
  local lines, paired = {}, {}
  local function dotted(p, n) return table.concat(p, ".", 1, n or #p) end
  local function setters(p, except)
    local l = {}
    for _, s in ipairs(sets) do if s ~= except and has(s.tree, p) then l[#l + 1] = s end end
    return l
  end
  local function names(l)
    local n = {}
    for i, s in ipairs(l) do n[i] = s.who end
    return table.concat(n, ", ")
  end
  for _, s in ipairs(sets) do
    for _, p in ipairs(M.paths(s.tree)) do
      for j = 1, #p do
        local key = p[j]
        local base, peer = {}, {}
        for _, b in ipairs(s.base or {}) do for k in pairs(kids(b.tree, p, j - 1)) do base[k] = b.from end end
        for _, o in ipairs(sets) do
          if o ~= s then for k in pairs(kids(o.tree, p, j - 1)) do peer[k] = true end end
        end
        if base[key] or peer[key] then goto deeper end
        do
          local here = { table.unpack(p, 1, j) }
          local ok = s.allowed or allowed
          if ok[dotted(here)] or ok[dotted(p)] then break end
          local meant = M.near(key, sorted_keys(base))
          local mp = { table.unpack(p, 1, j - 1) }
          if meant then
            mp[#mp + 1] = meant
            lines[#lines + 1] = ("%s: %s: %s is not a key of the values it overrides (did you mean %s? %s has it)")
              :format(opts.where, s.who, dotted(here), dotted(mp), base[meant])
            break
          end
          meant = M.near(key, sorted_keys(peer))
          if not meant then break end
          mp[#mp + 1] = meant
          -- (the other key listed as new: this one is no typo of it)
          if ok[dotted(mp)] then break end
          local theirs, ours = setters(mp, s), setters(here)
          if #theirs > #ours then
            lines[#lines + 1] = ("%s: %s: %s is a letter or two from %s, which more of them set (%s; %s: %s) "
              .. "(did you mean %s?)"):format(opts.where, s.who, dotted(here), dotted(mp), names(theirs),
              dotted(here), names(ours), dotted(mp))
          elseif #theirs == #ours then
            local id = table.concat({ dotted(here), dotted(mp) }, "\0")
            local di = table.concat({ dotted(mp), dotted(here) }, "\0")
            if not paired[di] then
              paired[id] = true
              lines[#lines + 1] = ("%s: %s sets %s and %s sets %s, a letter or two apart, and no values file the "
                .. "plan names has either: one is most likely misspelt (did you mean %s in %s, or %s in %s?)"):format(
                opts.where, names(ours), dotted(here), names(theirs), dotted(mp), dotted(mp), names(ours),
                dotted(here), names(theirs))
            end
          end
          break
        end
        ::deeper::
      end
    end
  end
  if #lines > 0 and opts.keep then
    for i, l in ipairs(lines) do lines[i] = l .. "; " .. opts.keep end
  end
  return lines
end

return M
