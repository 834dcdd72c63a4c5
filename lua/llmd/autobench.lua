-- llmd.autobench: cross-framework serving-config search (SGLang, vLLM, TensorRT-LLM,
-- TokenSpeed): cookbook configs, their validation, bounded candidate lists, server
-- commands, and the comparison of normalised result rows.
--
--   local ab = require "llmd.autobench"
--   local cfg, err = ab.load(path)                   -- nil, "config must be a mapping"; unreadable: raises
--   local errs = ab.validate(cfg, { help = ab.read_help_dir(dir) })  -- { "<msg>", ... } in the validator's order
--   local list = ab.candidates(cfg, "vllm")          -- { {flags = ordered map, keys = {...}}, ... }
--   local cmd = ab.render(cfg, "vllm", list[1])      -- POSIX-quoted command line
--   local rows = ab.read_rows(path)                  -- JSONL, errors name path:line
--   ab.check_row(row)                                -- no row, a malformed number: path:line: ...
--   local md, csv = ab.summary(rows), ab.csv(rows)
--
-- The behaviour (messages, candidate order, ranking, tables) follows the llm-serving
-- auto-benchmark toolchain described in ../shared/reference/autobench.md.
local json = require "llmd.json"
local yaml = require "llmd.yaml"
local lfs = require "lfs"

local M = {}

M.FRAMEWORKS = { "sglang", "vllm", "tensorrt_llm", "tokenspeed" }
M.MODEL_POSITIONAL = { vllm = true, tensorrt_llm = true, tokenspeed = true }
M.SEQ_KEY = { sglang = "context_length", vllm = "max_model_len", tensorrt_llm = "max_seq_len",
  tokenspeed = "max_model_len" }
M.HELP_HINTS = { sglang = { "sglang", "launch" }, vllm = { "vllm", "serve" },
  tensorrt_llm = { "trtllm", "serve" }, tokenspeed = { "tokenspeed", "serve" } }

-- The flags each framework's server accepts (config keys, underscores).
local function set(list)
  local s = {}
  for w in list:gmatch("%S+") do s[w] = true end
  return s
end
M.STATIC_FLAGS = {
  sglang = set [[attention_backend chunked_prefill_size context_length decode_attention_backend dllm_algorithm
    dtype enable_multimodal enable_symm_mem ep_size host kv_cache_dtype max_running_requests mem_fraction_static
    model_loader_extra_config model_path moe_runner_backend nnodes port pp_size prefill_attention_backend
    reasoning_parser schedule_policy tool_call_parser tp_size trust_remote_code]],
  vllm = set [[block_size dtype enable_chunked_prefill enable_prefix_caching gpu_memory_utilization host
    kv_cache_dtype long_prefill_token_threshold max_long_partial_prefills max_model_len max_num_batched_tokens
    max_num_partial_prefills max_num_seqs pipeline_parallel_size port tensor_parallel_size trust_remote_code]],
  tensorrt_llm = set [[backend ep_size extra_llm_api_options free_gpu_memory_fraction host
    kv_cache_free_gpu_memory_fraction max_batch_size max_num_tokens max_seq_len port pp_size tp_size
    trust_remote_code]],
  tokenspeed = set [[attention_backend attn_tp_size chunked_prefill_size comm_fusion_max_num_tokens
    disable_cuda_graph_padding dtype enable_allreduce_fusion enable_expert_parallel enable_mla_l1_5_cache
    enable_prefix_caching gpu_memory_utilization host kv_cache_dtype max_model_len max_num_seqs max_prefill_tokens
    max_total_tokens mla_chunk_multiplier moe_backend moe_tp_size port quantization reasoning_parser
    speculative_algorithm speculative_config speculative_draft_model_path speculative_num_draft_tokens
    speculative_num_steps tensor_parallel_size tool_call_parser trust_remote_code]],
}

M.SLA_KEYS = { "max_p50_ttft_ms", "max_p50_tpot_ms", "min_success_rate", "max_p50_e2e_ms" }
M.SLA_DEPRECATED = {
  max_p99_ttft_ms = "max_p50_ttft_ms", max_p99_tpot_ms = "max_p50_tpot_ms", max_p99_e2e_ms = "max_p50_e2e_ms",
  max_ttft_ms = "max_p50_ttft_ms", max_tpot_ms = "max_p50_tpot_ms", max_e2e_ms = "max_p50_e2e_ms",
}

local function is_map(v) return type(v) == "table" and not json.is_array(v) and (next(v) == nil or #v == 0) end
local function is_list(v) return type(v) == "table" and (json.is_array(v) or (#v > 0)) end
local function is_int(v) return math.type(v) == "integer" end

-- Python's str() of a scalar, as the toolchain prints values.
function M.pystr(v)
  if v == nil or v == json.null then return "None" end
  if v == true then return "True" elseif v == false then return "False" end
  if math.type(v) == "float" then
    if v == math.huge then return "inf" elseif v == -math.huge then return "-inf" end
    return json.encode(v)
  end
  return tostring(v)
end

-- Python's repr() of a scalar (strings quoted).
function M.pyrepr(v)
  if type(v) == "string" then
    if v:find("'", 1, true) and not v:find('"', 1, true) then return '"' .. v .. '"' end
    return "'" .. v:gsub("\\", "\\\\"):gsub("'", "\\'") .. "'"
  end
  return M.pystr(v)
end

-- shlex.quote
function M.quote(s)
  s = tostring(s)
  if s == "" then return "''" end
  if s:match("^[%w@%%+=:,./_%-]+$") then return s end
  return "'" .. s:gsub("'", "'\"'\"'") .. "'"
end

-- shlex.join
function M.join(tokens)
  local q = {}
  for i, tk in ipairs(tokens) do q[i] = M.quote(tk) end
  return table.concat(q, " ")
end

-- shlex.split, POSIX mode: quotes and backslashes.
function M.split(s)
  local out, cur, i, n, have = {}, {}, 1, #s, false
  while i <= n do
    local c = s:sub(i, i)
    if c:match("%s") then
      if have then out[#out + 1] = table.concat(cur); cur, have = {}, false end
    elseif c == "'" then
      local j = s:find("'", i + 1, true)
      if not j then error("no closing quotation in: " .. s, 0) end
      cur[#cur + 1] = s:sub(i + 1, j - 1)
      have, i = true, j
    elseif c == '"' then
      local j = i + 1
      while j <= n and s:sub(j, j) ~= '"' do
        if s:sub(j, j) == "\\" and s:sub(j + 1, j + 1):match('["\\$`]') then j = j + 1 end
        cur[#cur + 1] = s:sub(j, j)
        j = j + 1
      end
      if j > n then error("no closing quotation in: " .. s, 0) end
      have, i = true, j
    elseif c == "\\" and i < n then
      cur[#cur + 1] = s:sub(i + 1, i + 1)
      have, i = true, i + 1
    else
      cur[#cur + 1] = c
      have = true
    end
    i = i + 1
  end
  if have then out[#out + 1] = table.concat(cur) end
  return out
end

-- Ordered maps: { keys = {...}, map = {...} } from a YAML mapping, in document order.
local function ordered(t)
  local keys = {}
  for _, k in ipairs(yaml.keys(t)) do keys[#keys + 1] = k end
  return { keys = keys, map = t }
end

local function copy_flags(o)
  local keys, map = {}, {}
  for i, k in ipairs(o.keys) do keys[i] = k; map[k] = o.map[k] end
  return { keys = keys, map = map }
end

local function same_flags(a, b)
  for k, v in pairs(a.map) do if b.map[k] ~= v then return false end end
  for k, v in pairs(b.map) do if a.map[k] ~= v then return false end end
  return true
end

-- Bounded candidates of framework fw: the base first, then the cartesian product of the
-- search space in file order (last key fastest), duplicates dropped, at most `limit`.
function M.candidates(cfg, fw, limit)
  local sec = cfg.frameworks[fw]
  limit = limit or M.limit(cfg)
  local base = ordered(is_map(sec.base_server_flags) and sec.base_server_flags or {})
  local list = { copy_flags(base) }
  local space = is_map(sec.search_space) and ordered(sec.search_space) or { keys = {}, map = {} }
  local values = {}
  for i, k in ipairs(space.keys) do
    local v = space.map[k]
    values[i] = is_list(v) and v or { v }
  end
  if #list >= limit then return list end
  if #space.keys == 0 then return list end
  for _, v in ipairs(values) do if #v == 0 then return list end end
  local idx = {}
  for i = 1, #space.keys do idx[i] = 1 end
  while true do
    local c = copy_flags(base)
    for i, k in ipairs(space.keys) do
      if c.map[k] == nil then c.keys[#c.keys + 1] = k end
      c.map[k] = values[i][idx[i]]
    end
    local dup = false
    for _, e in ipairs(list) do if same_flags(e, c) then dup = true; break end end
    if not dup then list[#list + 1] = c end
    if #list >= limit then break end
    -- next combination, last key fastest
    local i = #space.keys
    while i >= 1 do
      idx[i] = idx[i] + 1
      if idx[i] <= #values[i] then break end
      idx[i] = 1
      i = i - 1
    end
    if i == 0 then break end
  end
  return list
end

function M.limit(cfg)
  local s = cfg.search
  if not is_map(s) then return 1 end
  local v = s.max_candidates_per_framework
  if is_int(v) and v >= 1 then return v end
  return 1
end

function M.flag_name(fw, key)
  if fw == "tensorrt_llm" then return "--" .. key end
  return "--" .. key:gsub("_", "-")
end

-- The command line of a candidate, as the toolchain renders it.
function M.render(cfg, fw, cand)
  local tokens = M.split(cfg.frameworks[fw].server_command)
  if M.MODEL_POSITIONAL[fw] then tokens[#tokens + 1] = tostring(cfg.model and cfg.model.name) end
  for _, k in ipairs(cand.keys) do
    local v = cand.map[k]
    -- null and false leave the flag out; true is a bare flag
    if v ~= nil and v ~= json.null and v ~= false then
      tokens[#tokens + 1] = M.flag_name(fw, k)
      if v ~= true then tokens[#tokens + 1] = M.pystr(v) end
    end
  end
  return M.join(tokens), tokens
end

-- Help snapshots --------------------------------------------------------------------------

-- { fw = set of flag names } from every *.txt under dir whose name has the framework's
-- hints; a framework whose captures hold no flag is left out (falls back to the static list).
function M.read_help_dir(dir)
  local files = {}
  local function walk(d)
    for n in lfs.dir(d) do
      if n ~= "." and n ~= ".." then
        local p = d .. "/" .. n
        local mode = lfs.attributes(p, "mode")
        if mode == "directory" then walk(p) elseif mode == "file" and n:match("%.txt$") then files[#files + 1] = p end
      end
    end
  end
  if lfs.attributes(dir, "mode") ~= "directory" then error(dir .. ": no such folder (--help-dir)", 0) end
  walk(dir)
  table.sort(files)
  local help = {}
  for _, fw in ipairs(M.FRAMEWORKS) do
    local flags, any = {}, false
    for _, p in ipairs(files) do
      local base = p:match("[^/]+$"):lower()
      local all = true
      for _, h in ipairs(M.HELP_HINTS[fw]) do if not base:find(h, 1, true) then all = false end end
      if all then
        local f = assert(io.open(p, "rb"))
        local text = f:read("a")
        f:close()
        for flag in text:gmatch("%-%-([%w][%w_%-]*)") do flags[flag] = true; any = true end
      end
    end
    if any then help[fw] = flags end
  end
  return help
end

local function flag_known(fw, key, help)
  if not M.STATIC_FLAGS[fw][key] then return false end
  local h = help and help[fw]
  if not h then return true end
  local name = M.flag_name(fw, key):sub(3)
  return h[name] or h[(name:gsub("%-", "_"))] or h[(name:gsub("_", "-"))] or false
end

-- Validation -------------------------------------------------------------------------------

-- Errors of a loaded config, in the toolchain's order. opts.help: read_help_dir's result.
function M.validate(cfg, opts)
  opts = opts or {}
  local errs = {}
  local function e(msg) errs[#errs + 1] = msg end
  if cfg.schema_version ~= 1 then e("schema_version must be 1") end
  if not (is_map(cfg.model) and cfg.model.name ~= nil and cfg.model.name ~= json.null and cfg.model.name ~= "") then
    e("model.name must be set")
  end
  if not (is_map(cfg.source) and cfg.source.kind == "llm_serving_cookbook") then
    e("source.kind must be one of ['llm_serving_cookbook']")
  end
  local ds = is_map(cfg.dataset) and cfg.dataset or {}
  local required = 0
  local il, ol = ds.input_len, ds.output_len
  local function listy(v) return is_list(v) or (type(v) == "table" and json.is_array(v)) end
  if not listy(il) or not listy(ol) then
    e("dataset.input_len and dataset.output_len must be lists")
  elseif #il ~= #ol then
    e("dataset.input_len and dataset.output_len must be aligned")
  elseif #il == 0 then
    e("dataset.input_len and dataset.output_len must not be empty")
  else
    for i = 1, #il do
      local total = (tonumber(il[i]) or 0) + (tonumber(ol[i]) or 0)
      if total > required then required = total end
    end
  end
  local limit = 1
  if not is_map(cfg.search) then
    e("search must be a mapping")
  else
    local v = cfg.search.max_candidates_per_framework
    if v == nil then v = 0 end
    if not is_int(v) then
      e("search.max_candidates_per_framework must be an integer")
    elseif v < 1 then
      e("search.max_candidates_per_framework must be positive")
    else
      limit = v
    end
  end
  local fws = cfg.frameworks
  if not is_map(fws) then
    e("frameworks must be a mapping")
    return errs
  end
  local enabled = {}
  for _, fw in ipairs(M.FRAMEWORKS) do
    local sec = fws[fw]
    -- (enabled: only true or false: "no" is a string in YAML 1.2, and was read as enabled; the
    -- section is not checked further, as it is not known whether it is meant)
    local bool_bad = is_map(sec) and sec.enabled ~= nil and require("llmd.cluster").bool_problem(sec.enabled)
    if sec == nil then
      e("missing frameworks." .. fw)
    elseif bool_bad then
      e(("frameworks.%s.enabled must be true or false (%s)"):format(fw,
        (bool_bad:gsub("^expected true or false, ", ""))))
    elseif not (is_map(sec) and sec.enabled == false) then
      sec = is_map(sec) and sec or {}
      local ok = true
      if not is_map(sec.base_server_flags) then e(fw .. ": base_server_flags must be a mapping"); ok = false end
      if sec.search_space ~= nil and not is_map(sec.search_space) then
        e(fw .. ": search_space must be a mapping"); ok = false
      end
      if type(sec.server_command) ~= "string" then e(fw .. ": server_command must be a string") end
      local keys, seen = {}, {}
      for _, part in ipairs { sec.base_server_flags, sec.search_space } do
        if is_map(part) then
          for _, k in ipairs(yaml.keys(part)) do
            if not seen[k] then seen[k] = true; keys[#keys + 1] = k end
          end
        end
      end
      for _, k in ipairs(keys) do
        if not flag_known(fw, k, opts.help) then e(("%s: unknown or unsupported server flag '%s'"):format(fw, k)) end
      end
      -- a flag's value no, off, yes or on: a string in YAML 1.2 (llmdlua would render --flag no)
      -- but false or true to the upstream tool's PyYAML (no flag, or a bare --flag): refused,
      -- naming the key, as the two would run other servers (mend54 #4)
      for _, part in ipairs { "base_server_flags", "search_space" } do
        if is_map(sec[part]) then
          for _, k in ipairs(yaml.keys(sec[part])) do
            local v = sec[part][k]
            for _, c in ipairs(part == "search_space" and is_list(v) and v or { v }) do
              local b = require("llmd.cluster").yaml11_bool(c, true)
              if b ~= nil then
                e(("frameworks.%s.%s.%s: '%s' is a string to llmdlua, which reads YAML 1.2, and would be rendered %s "
                  .. "%s, but %s to the upstream tool (PyYAML reads YAML 1.1), which %s: write %s"):format(fw, part,
                  k, c, M.flag_name(fw, k), M.quote(c), tostring(b),
                  b and ("renders a bare " .. M.flag_name(fw, k)) or "leaves the flag out", tostring(b)))
              end
            end
          end
        end
      end
      if fw == "tensorrt_llm" then
        if sec.backend_policy ~= "fixed_pytorch" then e("tensorrt_llm: backend_policy must be fixed_pytorch") end
        if not (is_map(sec.base_server_flags) and sec.base_server_flags.backend == "pytorch") then
          e("tensorrt_llm: base backend must be pytorch")
        end
        if is_map(sec.search_space) and sec.search_space.backend ~= nil then
          e("tensorrt_llm: backend must not appear in search_space")
        end
      end
      if ok and type(sec.server_command) == "string" then
        for _, c in ipairs(M.candidates(cfg, fw, limit)) do
          local cmd = M.render(cfg, fw, c)
          if cmd == "" then e(fw .. ": rendered an empty command") end
        end
      end
      enabled[#enabled + 1] = fw
    end
  end
  for _, fw in ipairs(enabled) do
    local sec = fws[fw]
    local key = M.SEQ_KEY[fw]
    local base = is_map(sec.base_server_flags) and sec.base_server_flags or {}
    local v = base[key]
    if v == nil then v = fw == "sglang" and required or 0 end
    if not is_int(v) then
      e(("%s: base %s is not an integer"):format(fw, key))
    elseif v < required then
      e(("%s: base %s (%d) is smaller than the largest dataset scenario (%d)"):format(fw, key, v, required))
    end
    local sv = is_map(sec.search_space) and sec.search_space[key]
    if sv ~= nil and sv ~= false then
      for _, c in ipairs(is_list(sv) and sv or { sv }) do
        if not is_int(c) then
          e(("%s: search_space %s candidate %s is not an integer"):format(fw, key, M.pyrepr(c)))
        elseif c < required then
          e(("%s: search_space %s candidate %d is smaller than the largest dataset scenario (%d)")
            :format(fw, key, c, required))
        end
      end
    end
  end
  local sla = is_map(cfg.benchmark) and cfg.benchmark.sla or nil
  if sla == nil then sla = cfg.sla end
  if is_map(sla) then
    local allowed = {}
    for _, k in ipairs(M.SLA_KEYS) do allowed[k] = true end
    for _, k in ipairs(yaml.keys(sla)) do
      if M.SLA_DEPRECATED[k] then
        e(("sla: '%s' is deprecated; use '%s' (see references/result-schema.md)"):format(k, M.SLA_DEPRECATED[k]))
      elseif not allowed[k] then
        local l = {}
        for i, x in ipairs(M.SLA_KEYS) do l[i] = "'" .. x .. "'" end
        e(("sla: unknown key '%s'; allowed keys are [%s]"):format(k, table.concat(l, ", ")))
      end
    end
  end
  return errs
end

-- The keys of the config's `run:` block (llmdlua's own; see README "Serving-config search").
M.RUN_KEYS = { "port", "ready_timeout", "ready_paths", "benchmark_timeout", "max_concurrency", "client_command",
  "env", "check_port_owner" }

-- Errors of the config's `run:` block: unknown keys and values of the wrong kind.
function M.validate_run(cfg)
  local errs = {}
  local r = cfg.run
  if r == nil then return errs end
  if not is_map(r) then return { "run must be a mapping" } end
  local allowed = {}
  for _, k in ipairs(M.RUN_KEYS) do allowed[k] = true end
  local function pos_int(v) return is_int(v) and v >= 1 end
  local function conc(v) return v == json.null or pos_int(v) end
  for _, k in ipairs(yaml.keys(r)) do
    local v = r[k]
    local bad
    if not allowed[k] then
      errs[#errs + 1] = ("run: unknown key '%s'; allowed keys are [%s]"):format(k, table.concat(M.RUN_KEYS, ", "))
    elseif k == "port" then
      if not (pos_int(v) and v <= 65535) then bad = "an integer port in [1, 65535]" end
    elseif k == "ready_timeout" or k == "benchmark_timeout" then
      if not (type(v) == "number" and v > 0) then bad = "a number of seconds > 0" end
    elseif k == "ready_paths" then
      local ok = is_list(v)
      for _, x in ipairs(ok and v or {}) do if type(x) ~= "string" or x:sub(1, 1) ~= "/" then ok = false end end
      if not ok then bad = "a list of paths like /health" end
    elseif k == "max_concurrency" then
      local ok = conc(v)
      if is_list(v) then
        ok = true
        for _, x in ipairs(v) do if not conc(x) then ok = false end end
      end
      if not ok then bad = "an integer >= 1, null (unbounded), or a list of them" end
    elseif k == "check_port_owner" then
      if type(v) ~= "boolean" then bad = "true or false" end
    elseif k == "client_command" then
      if type(v) ~= "string" or v:match("^%s*$") then
        bad = "a command line (a string)"
      elseif not (v:find("{base_url}", 1, true) or v:find("{port}", 1, true)) then
        -- a client not told the candidate's server measures another: vllm bench serve's
        -- default is 127.0.0.1:8000, whatever listens there (an earlier run's server, a
        -- colleague's), and its figures would be recorded as this candidate's
        errs[#errs + 1] = "run.client_command must tell the client which server to benchmark, by {base_url} (or "
          .. "{port}): without it the client measures whatever answers at its own default address, and its figures "
          .. "would be recorded as each candidate's"
      end
    elseif k == "env" then
      local ok = is_map(v)
      for _, x in pairs(ok and v or {}) do if type(x) ~= "string" and type(x) ~= "number" then ok = false end end
      if not ok then bad = "a mapping of variable names to strings" end
    end
    if bad then
      local got = type(v) == "table" and (is_list(v) and "a list" or "a mapping") or M.pyrepr(v)
      errs[#errs + 1] = ("run.%s must be %s (got %s)"):format(k, bad, got)
    end
  end
  return errs
end

-- Loads a config: the table, or nil and the single load error.
-- A config that cannot be read (no such file, not YAML) raises one line naming the file and
-- where ("cfg.yaml:3:1: did not find expected key ..."), as every reader does; one that reads
-- but is not a mapping is the validator's finding: nil, "config must be a mapping".
function M.load(path)
  local ok, v = pcall(yaml.load_file, path)
  if not ok then error(require("llmd.errors").text(v), 0) end
  if not is_map(v) then return nil, "config must be a mapping" end
  return v
end

-- The *.yaml then *.yml files a path names (a file, or a folder searched recursively).
function M.config_paths(paths)
  local out, seen = {}, {}
  local function add(p) if not seen[p] then seen[p] = true; out[#out + 1] = p end end
  for _, p in ipairs(paths) do
    local mode = lfs.attributes(p, "mode")
    if mode == "directory" then
      local found = {}
      local function walk(d, ext)
        for n in lfs.dir(d) do
          if n ~= "." and n ~= ".." then
            local q = d .. "/" .. n
            local m = lfs.attributes(q, "mode")
            if m == "directory" then walk(q, ext) elseif n:sub(-#ext) == ext then found[#found + 1] = q end
          end
        end
      end
      walk(p:gsub("/+$", ""), ".yaml")
      walk(p:gsub("/+$", ""), ".yml")
      for _, q in ipairs(found) do add(q) end
    else
      add(p)
    end
  end
  table.sort(out)
  return out
end

-- Result rows -------------------------------------------------------------------------------

-- The rows of a results file (JSON lines), each with _line and _file. A last line with no
-- end of line that is not JSON is an append cut short (a kill, a full disk: autobench.lua
-- run appends whole lines and undoes a failed one, but a kill can still stop a write half
-- way): left out with a note on stderr, its measurement not there, never a stop on "invalid
-- JSON" that keeps every good row from being read. Any other line that is not JSON stops.
function M.read_rows(path)
  local f, err = io.open(path, "rb")
  if not f then error(("%s: cannot read: %s"):format(path, err), 0) end
  local data = f:read("a")
  f:close()
  if not data then error(("%s: cannot read"):format(path), 0) end
  local rows, n = {}, 0
  for line, nl in data:gmatch("([^\n]*)(\n?)") do
    if line == "" and nl == "" then break end
    n = n + 1
    if line:match("%S") then
      local name = path .. ":" .. n
      local ok, v = pcall(json.decode, line, name)
      if not ok and nl == "" then
        io.stderr:write(("note: %s:%d: an unfinished last row (no end of line, not JSON: an append cut short, "
          .. "by a kill or a full disk) is left out; autobench.lua run measures it again\n"):format(path, n))
        break
      end
      if not ok then
        -- the decoder says "<name>:1:<column>: what"; one position is enough
        local msg = tostring(v)
        if msg:sub(1, #name + 1) == name .. ":" then
          local col, rest = msg:sub(#name + 2):match("^%d+:(%d+): (.*)$")
          if col then msg = rest .. " (column " .. col .. ")" end
        end
        error(("%s:%d: invalid JSON: %s"):format(path, n, msg), 0)
      end
      if type(v) ~= "table" or json.is_array(v) then
        error(("%s:%d: expected a JSON object"):format(path, n), 0)
      end
      v._line, v._file = n, path
      rows[#rows + 1] = v
    end
  end
  return rows
end

-- The numbers compare reads (and ranks by), each {block, key, upper bound or nil}: a row
-- whose value is not a number, is negative or above the bound is malformed. A rate of
-- success is a fraction (0..1), a latency, a throughput, a length or a count is >= 0.
M.ROW_NUMBERS = {
  { "metrics", "request_throughput" }, { "metrics", "output_token_throughput" },
  { "metrics", "total_token_throughput" },
  { "metrics", "p50_ttft_ms" }, { "metrics", "mean_ttft_ms" }, { "metrics", "p99_ttft_ms" },
  { "metrics", "p50_tpot_ms" }, { "metrics", "mean_tpot_ms" }, { "metrics", "p99_tpot_ms" },
  { "metrics", "p50_e2e_ms" }, { "metrics", "mean_e2e_ms" }, { "metrics", "p99_e2e_ms" },
  { "metrics", "success_rate", 1 }, { "metrics", "mean_accept_length" },
  { "metrics", "pre_scheduler_ms" }, { "metrics", "prefix_cache_hit_rate" },
  { "spec_decode", "mean_accept_length" }, { "phase_metrics", "pre_scheduler_ms" },
  { "cache", "prefix_cache_hit_rate" }, { "hardware", "gpu_count" },
  { "sla", "max_p50_ttft_ms" }, { "sla", "max_p50_tpot_ms" }, { "sla", "max_p50_e2e_ms" },
  { "sla", "min_success_rate", 1 },
}

-- Raises "FILE:LINE: BLOCK.KEY: expected ..., got X" for a row (from read_rows) whose
-- numbers compare reads are malformed: a string ("fast"), a boolean, a negative value, a
-- rate above 1, a block that is not an object. Absent and null are fine (unknown).
function M.check_row(row)
  local where = ("%s:%d"):format(row._file or "?", row._line or 0)
  -- a JSON object of another kind (an inference-perf stage file, a config) is no row: the
  -- toolchain would list it as framework "unknown" and say nothing. A row names its
  -- framework, candidate_id or status (every row the toolchain's tests and its older copy
  -- write has all three; a row missing one or two stays accepted, as upstream reads it)
  local function has(k) local v = row[k]; return v ~= nil and v ~= json.null and v ~= "" end
  if not (has("framework") or has("candidate_id") or has("status")) then
    local keys = {}
    for k in pairs(row) do
      if type(k) == "string" and k:sub(1, 1) ~= "_" then keys[#keys + 1] = k end
    end
    table.sort(keys)
    local shown = {}
    for i = 1, math.min(#keys, 4) do shown[i] = keys[i] end
    error(("%s: not an autobench results row: it has no framework, candidate_id or status (%s); expected one "
      .. "JSON row per candidate and scenario, as autobench.lua run writes"):format(where,
      #keys == 0 and "an empty object" or ("its keys: " .. table.concat(shown, ", ") .. (#keys > 4
      and (", ... (%d in all)"):format(#keys) or ""))), 0)
  end
  local function bad(field, what, v)
    local got
    if type(v) == "string" then got = ("the string %q"):format(v)
    elseif type(v) == "number" then got = M.pystr(v)
    elseif type(v) == "table" then got = json.is_array(v) and "an array" or "an object"
    else got = ("%s (%s)"):format(type(v), tostring(v)) end
    error(("%s: %s: expected %s, got %s"):format(where, field, what, got), 0)
  end
  for _, f in ipairs(M.ROW_NUMBERS) do
    local blk = row[f[1]]
    if blk ~= nil and blk ~= json.null and (type(blk) ~= "table" or json.is_array(blk)) then
      bad(f[1], "an object", blk)
    end
    local v = type(blk) == "table" and blk[f[2]] or nil
    if v ~= nil and v ~= json.null then
      local field = f[1] .. "." .. f[2]
      local want = f[3] and ("a number in [0, %s]"):format(f[3]) or "a number >= 0"
      if f[2] == "gpu_count" then want = "a whole number >= 0" end
      if type(v) ~= "number" or v ~= v or v < 0 or (f[3] and v > f[3])
        or (f[2] == "gpu_count" and v ~= math.floor(v)) then
        bad(field, want, v)
      end
    end
  end
end

local function get(t, ...)
  for _, k in ipairs { ... } do
    if type(t) ~= "table" then return nil end
    t = t[k]
  end
  if t == json.null then return nil end
  return t
end
M.get = get

local function truthy_bool(v)
  if v == true then return true end
  if type(v) == "string" then
    local l = v:lower()
    return l == "1" or l == "true" or l == "yes" or l == "y"
  end
  if type(v) == "number" then return v ~= 0 end
  return false
end

function M.passed(row) return truthy_bool(get(row, "sla", "passed")) end

function M.scenario(row)
  for _, k in ipairs { "scenario", "scenario_name", "dataset_scenario", "dataset_name", "kind" } do
    local v = get(row, "workload", k)
    if v ~= nil and v ~= false and v ~= "" and v ~= 0 then return tostring(v) end
  end
  local v = row.scenario
  if v ~= nil and v ~= json.null and v ~= false and v ~= "" then return tostring(v) end
  return "default"
end

function M.framework(row)
  local v = row.framework
  if v == nil or v == json.null or v == "" then return "unknown" end
  return tostring(v)
end

local function metric(row, k) local v = get(row, "metrics", k); return type(v) == "number" and v or nil end

-- a latency of 0 is not measured (README: no token can come back in 0 ms; vLLM writes 0
-- for a TPOT of no request with two output tokens, numpy of an empty list "or 0", as
-- autobench_run reads it), so unknown, never the best: the rank key and the cells read it
-- as absent, the SLA check as unknown (harden52: a TPOT of 0, of a server answering with
-- empty text, passed max_p50_tpot_ms and won its scenario)
local function unmeasured(k, v) return v == 0 and k:match("_ms$") ~= nil end
local function latency_metric(row, k)
  local v = metric(row, k)
  if unmeasured(k, v) then return nil end
  return v
end

local function latency(row, what)
  return latency_metric(row, "p50_" .. what .. "_ms") or latency_metric(row, "mean_" .. what .. "_ms")
end

-- The SLA as the tables show it: True, False, or "unknown (N/A)" where M.recompute_sla found
-- a metric the SLA needs unknown and no check failed (never counted as passing). own
-- (llmdlua's summary and CSV, not the toolchain's): a skipped row was never measured, so its
-- SLA is N/A with why, never the False the toolchain writes (newuser49 #6: "sglang ... False"
-- read as "sglang failed the SLA").
function M.sla_cell(row, own)
  if row._sla_unknown then return "unknown (N/A)" end
  if own and row.status == "skipped" then
    local why = type(row.failure_reason) == "string" and row.failure_reason or ""
    if why:find("not in --frameworks", 1, true) then return "N/A (skipped by --frameworks)" end
    return "N/A (skipped: not run)"
  end
  return M.passed(row)
end

-- The rank key: higher is better, compared in order.
function M.rank_key(row)
  local gpus = get(row, "hardware", "gpu_count")
  return {
    row.status == "ok" and 1 or 0, M.passed(row) and 1 or 0,
    metric(row, "request_throughput") or 0, metric(row, "output_token_throughput") or 0,
    -(latency(row, "ttft") or 1e30), -(latency(row, "tpot") or 1e30),
    -(type(gpus) == "number" and gpus or 1e30),
  }
end

local function greater(a, b)
  for i = 1, #a do
    if a[i] ~= b[i] then return a[i] > b[i] end
  end
  return false
end

-- Recomputes each row's sla.passed from its metrics and the SLA (the row's own thresholds,
-- overridden by sla). Returns the notes for rows whose stored flag disagreed.
-- Whether no known metric of the row is past a limit of th (unknown ones not checked).
local function within(row, th)
  for _, e in ipairs { { "p50_ttft_ms", "max_p50_ttft_ms" }, { "p50_tpot_ms", "max_p50_tpot_ms" },
    { "p50_e2e_ms", "max_p50_e2e_ms" } } do
    local v, limit = metric(row, e[1]), th[e[2]]
    if type(limit) == "number" and v and not unmeasured(e[1], v) and v > limit then return false end
  end
  local sr, limit = metric(row, "success_rate"), th.min_success_rate
  return not (type(limit) == "number" and sr and sr < limit)
end

function M.recompute_sla(rows, sla)
  local notes = {}
  for _, row in ipairs(rows) do
    local th = {}
    for _, k in ipairs(M.SLA_KEYS) do
      local v = (sla and sla[k]) or get(row, "sla", k)
      if type(v) == "number" then th[k] = v end
    end
    if next(th) and row.status == "ok" then
      local ok, why, unknown = true, {}, {}
      local function need(cond, msg) if not cond then ok = false; why[#why + 1] = msg end end
      -- a metric the SLA needs that is unknown (absent, null, a TTFT of 0) makes the SLA
      -- unknown, not failed: no check is made of it, and the row is not counted as passing
      local function known(k, what)
        local v = metric(row, k)
        if v == nil then
          unknown[#unknown + 1] = ("%s unknown (N/A: %s in the row)"):format(what,
            get(row, "metrics", k) == nil and get(row, "metrics") ~= nil and rawget(row.metrics, k) == json.null
            and "null" or "absent")
        elseif unmeasured(k, v) then
          unknown[#unknown + 1] = ("%s unknown (N/A: 0, which means not measured)"):format(what)
          v = nil
        end
        return v
      end
      local function at_most(k, limit, what)
        if not limit then return end
        local v = known(k, what)
        if v ~= nil then need(v <= limit, ("%s %s > %s"):format(what, M.pystr(v), M.pystr(limit))) end
      end
      at_most("p50_ttft_ms", th.max_p50_ttft_ms, "p50 TTFT ms")
      at_most("p50_tpot_ms", th.max_p50_tpot_ms, "p50 TPOT ms")
      at_most("p50_e2e_ms", th.max_p50_e2e_ms, "p50 E2E ms")
      if th.min_success_rate then
        local sr = known("success_rate", "success rate")
        if sr ~= nil then
          need(sr >= th.min_success_rate, ("success rate %s < %s"):format(M.pystr(sr), M.pystr(th.min_success_rate)))
        end
      end
      local stored = get(row, "sla", "passed")
      if ok and #unknown > 0 then
        -- no check failed, but not every one could be made
        notes[#notes + 1] = ("%s:%d: %s %s: SLA unknown (N/A): %s; %s, and the row is not counted as passing")
          :format(row._file or "?", row._line or 0, M.framework(row), tostring(row.candidate_id),
          table.concat(unknown, "; "), stored ~= nil and ("the stored sla.passed (%s) is not used"):format(
          M.pystr(stored)) or "no sla.passed stored")
        if type(row.sla) ~= "table" then row.sla = {} end
        row.sla.passed, row._sla_unknown = nil, table.concat(unknown, "; ")
      elseif stored ~= nil and truthy_bool(stored) ~= ok then
        -- the user's --sla with other limits than the row's own: the stored flag was right
        -- for the row's limits, it is the limits that differ
        local other, own_th = {}, {}
        for _, k in ipairs(M.SLA_KEYS) do
          local own = get(row, "sla", k)
          own_th[k] = own
          if sla and type(sla[k]) == "number" and sla[k] ~= own then
            other[#other + 1] = ("%s=%s (the row's own: %s)"):format(k, M.pystr(sla[k]),
              type(own) == "number" and M.pystr(own) or "none")
          end
        end
        if #other > 0 and within(row, own_th) == truthy_bool(stored) then
          notes[#notes + 1] = ("%s:%d: %s %s: --sla sets other limits than the row was run with (%s): %s against "
            .. "them%s, where the stored sla.passed (%s) was against the row's own"):format(
            row._file or "?", row._line or 0, M.framework(row), tostring(row.candidate_id), table.concat(other, ", "),
            ok and "passes" or "fails", #why > 0 and (" (" .. table.concat(why, "; ") .. ")") or "", M.pystr(stored))
        else
          notes[#notes + 1] = ("%s:%d: %s %s: the stored sla.passed (%s) disagrees with its metrics; using %s%s")
            :format(row._file or "?", row._line or 0, M.framework(row), tostring(row.candidate_id), M.pystr(stored),
            ok and "True" or "False", #why > 0 and (" (" .. table.concat(why, "; ") .. ")") or "")
        end
      end
      -- the limits it failed, for the summary's Reason column
      row._sla_why = (not ok and #why > 0) and table.concat(why, "; ") or nil
      if not (ok and #unknown > 0) then
        if type(row.sla) ~= "table" then row.sla = {} end
        row.sla.passed = ok
      end
    end
  end
  return notes
end

-- Winners per (framework, scenario): ok and SLA-passing rows, the best rank; first wins ties.
function M.winners(rows)
  local best, order = {}, {}
  for _, row in ipairs(rows) do
    if row.status == "ok" and M.passed(row) then
      local key = M.framework(row) .. "\0" .. M.scenario(row)
      local cur = best[key]
      if not cur then
        best[key] = row
        order[#order + 1] = key
      elseif greater(M.rank_key(row), M.rank_key(cur)) then
        best[key] = row
      end
    end
  end
  local out = {}
  for _, k in ipairs(order) do out[#out + 1] = best[k] end
  return out
end

-- Markdown cells: None empty, floats with 2 decimals, booleans True/False.
function M.cell(v)
  if v == nil or v == json.null then return "" end
  local s
  if math.type(v) == "float" then s = ("%.2f"):format(v)
  elseif v == true then s = "True" elseif v == false then s = "False"
  else s = tostring(v) end
  return (s:gsub("|", "\\|"):gsub("\r?\n", "<br>"))
end

local function first(...)
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if v ~= nil and v ~= json.null then return v end
  end
end

local function accept_len(row)
  return first(get(row, "spec_decode", "mean_accept_length"), metric(row, "mean_accept_length"))
end
local function pre_sched(row)
  return first(get(row, "phase_metrics", "pre_scheduler_ms"), metric(row, "pre_scheduler_ms"))
end
local function cache_hit(row)
  return first(get(row, "cache", "prefix_cache_hit_rate"), metric(row, "prefix_cache_hit_rate"))
end
local function server_cmd(row) return first(row.server_command, row.launch_command) end

local function artifacts(row)
  local a = row.artifacts
  if type(a) ~= "table" then return nil end
  local parts = {}
  for _, k in ipairs { "raw_result", "server_log", "benchmark_log", "summary" } do
    local v = a[k]
    if v ~= nil and v ~= json.null and v ~= "" then parts[#parts + 1] = k .. ": " .. tostring(v) end
  end
  if #parts == 0 then return nil end
  return table.concat(parts, "<br>")
end

local function row_line(n, cells)
  local t = {}
  for i = 1, n do t[i] = M.cell(cells[i]) end
  return "| " .. table.concat(t, " | ") .. " |"
end

-- rows grouped by key(row), in input order within a group; the keys sorted
local function group_by(rows, key)
  local groups, keys = {}, {}
  for _, r in ipairs(rows) do
    local k = key(r)
    if not groups[k] then groups[k] = {}; keys[#keys + 1] = k end
    table.insert(groups[k], r)
  end
  table.sort(keys)
  return groups, keys
end

-- Where the server of each ranked row's command crashed in another row of the results: the
-- toolchain picks per scenario (reference/autobench.md section 7), so a command whose server
-- ran out of memory under summarization can be chat's best, with nothing said of it; a user
-- deploying it for both gets a server that dies. Returns note(row): nil, or "its server ran
-- out of memory under summarization (r.jsonl:4)" (a row with server_exit or
-- server_engine_dead, or status oom, of the same framework and server command; the candidate
-- id where a row has no command).
function M.crash_notes(rows)
  local by = {}
  local function key(r)
    local c = server_cmd(r)
    if c ~= nil and c ~= "" then return M.framework(r) .. "\0cmd\0" .. tostring(c) end
    return M.framework(r) .. "\0id\0" .. tostring(r.candidate_id)
  end
  for _, r in ipairs(rows) do
    local ex = get(r, "server_exit")
    if r.status == "oom" or (r.status ~= "ok" and (type(ex) == "table" or r.server_engine_dead == true)) then
      local what
      if r.status == "oom" then what = "ran out of memory"
      elseif r.server_engine_dead == true then what = "lost its engine (it died; the API server went on)"
      elseif type(ex) == "table" and math.type(ex.code) then what = ("exited (code %d)"):format(ex.code)
      elseif type(ex) == "table" and math.type(ex.signal) then what = ("was killed (signal %d)"):format(ex.signal)
      else what = "exited" end
      local k = key(r)
      by[k] = by[k] or {}
      table.insert(by[k], ("its server %s under %s (%s:%d)"):format(what, M.scenario(r), r._file or "?", r._line or 0))
    end
  end
  return function(row)
    local list = by[key(row)]
    if not list then return nil end
    return table.concat(list, "; ")
  end
end

-- A candidate's repeats: its ok rows of the same framework, scenario, id and server command
-- (M.evidence's rule: an id is only a place in one search). Returns reps(row) -> list.
local function repeats_of(rows)
  local by = {}
  local function key(r)
    local c = server_cmd(r)
    return table.concat({ M.framework(r), M.scenario(r), tostring(r.candidate_id), c ~= nil and tostring(c) or "" },
      "\0")
  end
  for _, r in ipairs(rows) do
    if r.status == "ok" then
      local k = key(r)
      by[k] = by[k] or {}
      table.insert(by[k], r)
    end
  end
  -- (also the groups themselves and their key, for M.evidence: one rule of what a repeat is)
  return function(r) return by[key(r)] or { r } end, by, key
end

-- The typical request throughput of a pick: the mean of its repeats with the 95 % t-interval
-- (llmd.stattest.mean_ci, floored at 0) and the range; the toolchain's Req/s is the picked
-- row's own figure, of a candidate measured several times its best row (newuser49 #5: 25.01
-- req/s shown where the mean of 3 was 17.73). Returns the text and n.
function M.typical_rps(reps)
  local xs = {}
  for _, x in ipairs(reps) do
    local v = metric(x, "request_throughput")
    if v then xs[#xs + 1] = v end
  end
  if #xs == 0 then return "N/A (no request throughput measured)", 0 end
  if #xs == 1 then return ("%.2f (one measurement: no spread)"):format(xs[1]), 1 end
  local ci = require("llmd.stattest").mean_ci(xs, 0.95, 0)
  if ci.identical then return ("%.2f (%d repeats, all equal)"):format(ci.mean, #xs), #xs end
  return ("%.2f (%d repeats, 95 %% CI %.2f to %.2f; range %.2f to %.2f)"):format(ci.mean, #xs, ci.lo, ci.hi,
    ci.min, ci.max), #xs
end

-- A lone rank 1's evidence across frameworks: the other frameworks measured in its scenario
-- (ok rows) that have no row within the SLA are named; "no other framework measured" only
-- when none was
local function lone(rows, sc, fw)
  local n, order = {}, {}
  for _, r in ipairs(rows) do
    local f = M.framework(r)
    if r.status == "ok" and M.scenario(r) == sc and f ~= fw then
      if not n[f] then order[#order + 1] = f end
      n[f] = (n[f] or 0) + 1
    end
  end
  if #order == 0 then return "no other framework measured in this scenario" end
  table.sort(order)
  local parts = {}
  for i, f in ipairs(order) do parts[i] = ("%s (%d %s)"):format(f, n[f], n[f] == 1 and "row" or "rows") end
  return ("%s measured in this scenario, but no row within the SLA: nothing to weigh it against"):format(
    table.concat(parts, ", "))
end

-- The Evidence of a scenario's rank 1 across frameworks: rank 1 against rank 2, or, alone,
-- why alone and the test of its pick within its framework (newuser49 #5: "no other framework
-- measured" said nothing of the repeats' "no clear difference" within vllm)
local function rank1_evidence(rows, ev, sc, fw, alone)
  if not alone then return ev[sc .. ", across frameworks"] or "" end
  local pick = ev[("%s, %s"):format(sc, fw)]
  return lone(rows, sc, fw) .. (pick and ("; its pick within %s: %s"):format(fw, pick) or "")
end

M.TYPICAL_HEADER = "Req/s mean of repeats (95 % CI)"
M.TYPICAL_NOTE = "Req/s and the figures beside it are each pick's own row, as the toolchain's summary shows "
  .. "them: of a candidate measured several times, its best row. `" .. M.TYPICAL_HEADER .. "` is the typical "
  .. "figure: the mean of the candidate's ok rows in that scenario (same command), with its 95 % t-interval and "
  .. "range; the Evidence column says whether the repeats carry the choice."

-- opts.evidence: M.evidence's by_where (the choice of each framework's best command and of
-- each scenario's rank 1, in words): an Evidence column beside each such row, so that the
-- markdown never names a best without saying how sure it is (a best row by any margin, of
-- single measurements, is the toolchain's rule). Without it, the toolchain's summary byte
-- for byte.
-- Whether rows a mock server answered are among rows (autobench_run's row.simulated, from its
-- log's first line): "the rows of vllm vllm-0 came from WHAT: their figures are the mock's, not
-- a measurement of MODEL.", or nil. The summary says it first, and autobench.lua compare on
-- stdout where the summary goes to a file (tidy55: stdout said nothing).
function M.simulated_text(rows)
  local sim_what, sim_cands, sim_models = {}, {}, {}
  for _, r in ipairs(rows) do
    if type(r.simulated) == "string" then
      if not sim_what[r.simulated] then sim_what[r.simulated] = true; sim_what[#sim_what + 1] = r.simulated end
      local c = ("%s %s"):format(tostring(r.framework), tostring(r.candidate_id))
      if not sim_cands[c] then sim_cands[c] = true; sim_cands[#sim_cands + 1] = c end
      local m = type(r.model) == "string" and r.model or nil
      if m and not sim_models[m] then sim_models[m] = true; sim_models[#sim_models + 1] = m end
    end
  end
  if #sim_what == 0 then return nil end
  return ("the rows of %s came from %s: their figures are the mock's, not a measurement of %s."):format(
    table.concat(sim_cands, ", "), table.concat(sim_what, "; "),
    #sim_models > 0 and table.concat(sim_models, ", ") or "the model")
end

function M.summary(rows, opts)
  local ev = opts and opts.evidence
  -- (beside each pick: its server crashed in another row; with the Evidence column only)
  local crashed = ev and M.crash_notes(rows) or function() end
  local function with_crash(r, text)
    local c = crashed(r)
    if not c then return text end
    return ("%s, yet picked here as the toolchain picks, per scenario; %s"):format(c, text)
  end
  local L = { "# Benchmark Summary", "" }
  -- rows a mock server answered (autobench_run's row.simulated, from its log's first line):
  -- said first, as compare.lua says a simulated cluster (newuser54 F4)
  local sim = M.simulated_text(rows)
  if sim then
    L[#L + 1] = "**Simulated, not a measurement**: " .. sim
    L[#L + 1] = ""
  end
  local reps = repeats_of(rows)
  if #rows == 0 then
    L[#L + 1] = "No rows found."
    return table.concat(L, "\n") .. "\n"
  end
  local win = M.winners(rows)
  -- (above the tables, which rank single best rows: what the repeats say of each choice that
  -- has them, M.evidence's readings; a reader of the tables alone would deploy the best row's)
  local readings = ev and opts.readings or {}
  if #readings > 0 then
    L[#L + 1] = "## What The Repeats Say"
    L[#L + 1] = ""
    for _, text in ipairs(readings) do L[#L + 1] = "- " .. text:sub(1, 1):upper() .. text:sub(2) .. "." end
    L[#L + 1] = ""
  end
  L[#L + 1] = "## Best Commands By Framework"
  L[#L + 1] = ""
  -- (an empty table is not "no best": said in words; the toolchain's summary leaves it empty)
  local none = ev and #win == 0 and ("No candidate passed the SLA (an ok row within every limit), so there is no "
    .. "best command and no rank: see Failed Or SLA-Failing Candidates below for each one's reason.") or nil
  if none then
    L[#L + 1] = none
    L[#L + 1] = ""
  elseif ev then
    L[#L + 1] = M.TYPICAL_NOTE
    L[#L + 1] = ""
  end
  local by_fw, fws = group_by(win, M.framework)
  for _, fw in ipairs(fws) do
    L[#L + 1] = "### `" .. fw .. "`"
    L[#L + 1] = ""
    L[#L + 1] = "| Scenario | Candidate | Status | SLA | Req/s |" .. (ev and (" " .. M.TYPICAL_HEADER .. " |") or "")
      .. " Output tok/s | Total tok/s | P50 TTFT ms "
      .. "| P50 TPOT ms | Success rate | Accept len | Pre-scheduler ms | Cache hit | GPUs | Server command "
      .. "| Artifacts |" .. (ev and " Evidence |" or "")
    L[#L + 1] = "| --- | --- | --- | --- | ---: |" .. (ev and " ---: |" or "")
      .. " ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
      .. "| --- | --- |" .. (ev and " --- |" or "")
    local list = by_fw[fw]
    local idx = {}
    for i, r in ipairs(list) do idx[r] = i end
    table.sort(list, function(a, b)
      local sa, sb = M.scenario(a), M.scenario(b)
      if sa ~= sb then return sa < sb end
      return idx[a] < idx[b]
    end)
    for _, r in ipairs(list) do
      local cells = {
        M.scenario(r), r.candidate_id, r.status, M.sla_cell(r, ev), metric(r, "request_throughput"),
        metric(r, "output_token_throughput"), metric(r, "total_token_throughput"), latency(r, "ttft"),
        latency(r, "tpot"), metric(r, "success_rate"), accept_len(r), pre_sched(r), cache_hit(r),
        get(r, "hardware", "gpu_count"), server_cmd(r), artifacts(r),
        ev and with_crash(r, ev[("%s, %s"):format(M.scenario(r), fw)]
          or "no other candidate measured to weigh it against"),
      }
      if ev then table.insert(cells, 6, (M.typical_rps(reps(r)))) end
      L[#L + 1] = row_line(ev and 18 or 16, cells)
    end
    L[#L + 1] = ""
  end
  L[#L + 1] = "## Cross-Framework Best Comparison"
  L[#L + 1] = ""
  if none then
    L[#L + 1] = "No candidate passed the SLA: nothing to rank."
    L[#L + 1] = ""
  end
  L[#L + 1] = "| Scenario | Rank | Framework | Candidate | SLA | Req/s |"
    .. (ev and (" " .. M.TYPICAL_HEADER .. " |") or "") .. " Output tok/s | P50 TTFT ms | P50 TPOT ms "
    .. "| Accept len | Pre-scheduler ms | Cache hit | GPUs | Server command |" .. (ev and " Evidence |" or "")
  L[#L + 1] = "| --- | ---: | --- | --- | --- | ---: |" .. (ev and " ---: |" or "")
    .. " ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |" .. (ev and " --- |" or "")
  local by_sc, scs = group_by(win, M.scenario)
  for _, sc in ipairs(scs) do
    local list = M.sort_by_rank(by_sc[sc])
    for rank, r in ipairs(list) do
      local cells = {
        sc, rank, M.framework(r), r.candidate_id, M.sla_cell(r, ev), metric(r, "request_throughput"),
        metric(r, "output_token_throughput"), latency(r, "ttft"), latency(r, "tpot"), accept_len(r), pre_sched(r),
        cache_hit(r), get(r, "hardware", "gpu_count"), server_cmd(r),
        -- (rank 1 against rank 2: the place the summary's rank names)
        ev and (rank > 1 and (crashed(r) or "") or with_crash(r, rank1_evidence(rows, ev, sc, M.framework(r),
          #list == 1))),
      }
      if ev then table.insert(cells, 7, (M.typical_rps(reps(r)))) end
      L[#L + 1] = row_line(ev and 16 or 14, cells)
    end
  end
  L[#L + 1] = ""
  local failed, seen, scenarios, wheres = {}, {}, {}, {}
  for _, r in ipairs(rows) do
    if not (r.status == "ok" and M.passed(r)) then
      -- a candidate skipped by policy is one row in every results file of the same config:
      -- listed once (with evidence only: the toolchain's summary repeats it), with every
      -- scenario it was left out of (newuser49 #6: "chat" only, though left out of each) and
      -- every row it stands for (it named the first alone)
      local key = ev and r.status == "skipped" and table.concat({ M.framework(r), tostring(r.candidate_id),
        tostring(r.failure_reason) }, "\0")
      if key and seen[key] then
        local list, sc = scenarios[seen[key]], M.scenario(r)
        if not list[sc] then list[sc] = true; list[#list + 1] = sc end
        table.insert(wheres[seen[key]], r)
      else
        failed[#failed + 1] = r
        if key then
          seen[key] = r
          scenarios[r] = { M.scenario(r), [M.scenario(r)] = true }
          wheres[r] = { r }
        end
      end
    end
  end
  -- the rows a line of the table stands for, by file: "rep1.jsonl:1, 2; rep2.jsonl:1, 2"
  local function results_rows(r)
    local files, lines = {}, {}
    for _, x in ipairs(wheres[r] or { r }) do
      if x._file then
        if not lines[x._file] then files[#files + 1], lines[x._file] = x._file, {} end
        table.insert(lines[x._file], tostring(x._line or 0))
      end
    end
    if #files == 0 then return nil end
    local parts = {}
    for i, f in ipairs(files) do parts[i] = f .. ":" .. table.concat(lines[f], ", ") end
    return table.concat(parts, "; ")
  end
  if #failed > 0 then
    L[#L + 1] = ""
    L[#L + 1] = "## Failed Or SLA-Failing Candidates"
    L[#L + 1] = ""
    L[#L + 1] = "This table records tried configs that were not selected. They either failed, were skipped by "
      .. "policy, or completed without passing the SLA."
    L[#L + 1] = ""
    -- with evidence (results files compared), each row's server command too: one candidate id
    -- run under two configs (vllm-0 with --max-num-seqs 1 and 4) is told apart by it, as in
    -- the tables above; and its scenario and where it was read (file:line): a candidate whose
    -- server ran out of memory while loading fails every scenario of every results file with
    -- one reason, rows that read alike without them (newuser45). The toolchain's own summary
    -- keeps its 5 columns.
    L[#L + 1] = "| Framework | Candidate | Status | SLA | Reason |"
      .. (ev and " Server command | Scenario | Results row |" or "")
    L[#L + 1] = "| --- | --- | --- | --- | --- |" .. (ev and " --- | --- | --- |" or "")
    for _, r in ipairs(failed) do
      L[#L + 1] = row_line(ev and 8 or 5, { M.framework(r), r.candidate_id, r.status, M.sla_cell(r, ev),
        -- (an unknown SLA says which metric it lacked)
        -- (with evidence, a missed SLA names the limit it failed)
        (r.failure_reason == nil or r.failure_reason == json.null or r.failure_reason == "") and (r._sla_unknown
        and ("SLA unknown: " .. r._sla_unknown) or (ev and r._sla_why and ("SLA failed: " .. r._sla_why)))
        or r.failure_reason, server_cmd(r), scenarios[r] and table.concat(scenarios[r], ", ") or M.scenario(r),
        results_rows(r) })
    end
  end
  return table.concat(L, "\n") .. "\n"
end

-- Stable sort by rank key, best first.
function M.sort_by_rank(list)
  local dec = {}
  for i, r in ipairs(list) do dec[i] = { r = r, k = M.rank_key(r), i = i } end
  table.sort(dec, function(a, b)
    if greater(a.k, b.k) then return true end
    if greater(b.k, a.k) then return false end
    return a.i < b.i
  end)
  local out = {}
  for i, d in ipairs(dec) do out[i] = d.r end
  return out
end

M.CSV_COLUMNS = { "framework", "scenario", "candidate_id", "status", "sla_passed", "request_throughput",
  "output_token_throughput", "p50_ttft_ms", "p50_tpot_ms", "mean_ttft_ms", "mean_tpot_ms", "p99_ttft_ms",
  "p99_tpot_ms", "mean_accept_length", "pre_scheduler_ms", "prefix_cache_hit_rate", "gpu_count", "server_command",
  "failure_reason" }

-- opts.notes: a last column llmdlua_note, not in the toolchain's CSV: for each pick (a
-- framework's best command in a scenario) that it is one, its typical request throughput
-- (the mean of its repeats, as the summary's column) and the evidence for it (opts.evidence:
-- M.evidence's by_where), and, for an ok row, where its server command crashed in another row
-- (M.crash_notes). Every number column keeps the toolchain's meaning: that row's own figure.
-- sla_passed stays a column of True and False: a row whose SLA is not known to pass or fail
-- has it empty (as the toolchain's CSV writes a None), with why in llmdlua_note ("sla_passed:
-- N/A (skipped by --frameworks)", "sla_passed: unknown (N/A): p50 TTFT ms ..."): with notes,
-- a skipped row (never measured: M.sla_cell's own), not the toolchain's False; in either form
-- a row whose SLA needs a metric it lacks (M.recompute_sla).
function M.csv(rows, opts)
  local function field(v)
    if v == nil or v == json.null then return "" end
    local s = M.pystr(v)
    if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
    return s
  end
  local crashed = opts and opts.notes and M.crash_notes(rows)
  local picks = {}
  if crashed then
    -- (the summary's picks: each framework's best per scenario, and each scenario's rank 1)
    local ev, reps, readings = opts.evidence or {}, repeats_of(rows), opts.readings or {}
    local win = M.winners(rows)
    local by_sc = {}
    for _, w in ipairs(win) do
      local sc = M.scenario(w)
      by_sc[sc] = by_sc[sc] or {}
      table.insert(by_sc[sc], w)
    end
    for _, w in ipairs(win) do
      local sc, fw = M.scenario(w), M.framework(w)
      local typ, n = M.typical_rps(reps(w))
      local list = M.sort_by_rank(by_sc[sc])
      -- (first what the repeats say of the choice, where they say something: the pick is the
      -- toolchain's, by its best row)
      local parts = {}
      for _, where in ipairs { ("%s, %s"):format(sc, fw), list[1] == w and (sc .. ", across frameworks") or nil } do
        if readings[where] then parts[#parts + 1] = readings[where] end
      end
      -- (where the repeats' means order the choice the other way, the row is not called the
      -- framework's pick: it is its best row, which the toolchain's rule picks)
      parts[#parts + 1] = (readings[("%s, %s\0other way"):format(sc, fw)]
        and "%s's best row for %s (the toolchain's rule picks it%s)" or "%s's pick for %s (by the toolchain's rule%s)")
        :format(fw, sc, n > 1 and (", its best of %d repeats"):format(n) or "")
        .. ("; %s: %s"):format(M.TYPICAL_HEADER, typ)
      parts[#parts + 1] = ("evidence: %s"):format(ev[("%s, %s"):format(sc, fw)]
        or "no other candidate measured to weigh it against")
      if list[1] == w then
        -- (alone: why, the pick's own evidence being said just before)
        parts[#parts + 1] = ("rank 1 in %s: %s"):format(sc, #list == 1 and lone(rows, sc, fw)
          or ev[sc .. ", across frameworks"] or "")
      end
      picks[w] = table.concat(parts, "; ")
    end
  end
  local lines = { table.concat(M.CSV_COLUMNS, ",") .. (crashed and ",llmdlua_note" or "") }
  for _, r in ipairs(M.sort_by_rank(rows)) do
    local sla, sla_note = M.sla_cell(r, crashed and true), nil
    if type(sla) == "string" then
      sla_note = ("sla_passed: %s%s"):format(sla, r._sla_unknown and (": " .. r._sla_unknown) or "")
      sla = nil
    end
    local vals = {
      M.framework(r), M.scenario(r), r.candidate_id, r.status, sla,
      metric(r, "request_throughput"),
      metric(r, "output_token_throughput"), metric(r, "p50_ttft_ms"), metric(r, "p50_tpot_ms"),
      metric(r, "mean_ttft_ms"), metric(r, "mean_tpot_ms"), metric(r, "p99_ttft_ms"), metric(r, "p99_tpot_ms"),
      accept_len(r), pre_sched(r), cache_hit(r), get(r, "hardware", "gpu_count"), server_cmd(r), r.failure_reason,
    }
    local t = {}
    for i = 1, #M.CSV_COLUMNS do t[i] = field(vals[i]) end
    -- (an ok row only: a failed row's own reason is in failure_reason)
    if crashed then
      local c = r.status == "ok" and crashed(r) or nil
      local note = picks[r] and (c and (c .. ", yet picked here as the toolchain picks, per scenario; " .. picks[r])
        or picks[r]) or c
      if sla_note then note = note and (sla_note .. "; " .. note) or sla_note end
      t[#M.CSV_COLUMNS + 1] = field(note)
    end
    lines[#lines + 1] = table.concat(t, ",")
  end
  return table.concat(lines, "\r\n") .. "\r\n"
end

-- Plans --------------------------------------------------------------------------------------

M.DISPOSITIONS = { selected = true, ["user-excluded"] = true, unsupported = true, ["environment-gap"] = true }

-- Is the framework's server CLI there? nil, or why not.
function M.environment_gap(cmd)
  local proc = require "llmd.proc"
  local tokens = M.split(cmd)
  local exe = tokens[1]
  if not exe then return "no server command" end
  local path = exe:find("/") and exe or proc.which(exe)
  if not path then return ("'%s' is not installed here (not found in PATH)"):format(exe) end
  if (exe:match("^python") or exe:match("/python[%d.]*$")) and tokens[2] == "-m" and tokens[3] then
    local mod = tokens[3]:match("^[%w_]+")
    local probe = ("import importlib.util,sys; sys.exit(importlib.util.find_spec(%q) is None)"):format(mod)
    local r = proc.run({ path, "-c", probe }, { stderr = "null" })
    if not r.ok then return ("the Python module '%s' is not installed for %s"):format(mod, exe) end
  end
  return nil
end

-- The benchmark client `run` uses unless the config's run.client_command says otherwise
-- (placeholders: see llmd.autobench_run).
M.DEFAULT_CLIENT = "vllm bench serve --backend openai --base-url {base_url} --endpoint {endpoint} --model {model} "
  .. "--tokenizer {tokenizer} --dataset-name random --random-input-len {input_len} --random-output-len {output_len} "
  .. "--num-prompts {num_prompts} {max_concurrency_flag} {extra_body_flag} --percentile-metrics ttft,tpot,itl,e2el "
  .. "--metric-percentiles 50,99 --save-result --result-dir {result_dir} --result-filename {result_file}"

function M.client_command(cfg)
  local r = is_map(cfg.run) and cfg.run or {}
  return type(r.client_command) == "string" and r.client_command or M.DEFAULT_CLIENT
end

-- The bounded candidate list of every framework with its disposition. opts.frameworks: a
-- comma list (the others are user-excluded); opts.gap: function(cmd) -> reason (tests).
-- A framework whose server CLI, or the benchmark client, is not installed is an
-- environment gap: nothing of it can be measured here.
function M.plan(path, opts)
  opts = opts or {}
  local cfg, err = M.load(path)
  if not cfg then error(path .. ": " .. err, 0) end
  local errs = M.validate(cfg)
  local fatal = {}
  for _, e in ipairs(M.validate_run(cfg)) do fatal[#fatal + 1] = path .. ": " .. e end
  for _, e in ipairs(errs) do
    -- the TensorRT-LLM backend rule makes candidates unsupported, not the plan impossible
    if not e:match("^tensorrt_llm: .*backend") then fatal[#fatal + 1] = path .. ": " .. e end
  end
  if #fatal > 0 then error(table.concat(fatal, "\n"), 0) end
  local wanted
  if opts.frameworks then
    wanted = {}
    for f in opts.frameworks:gmatch("[^,%s]+") do
      local known = false
      for _, fw in ipairs(M.FRAMEWORKS) do if fw == f then known = true end end
      if not known then
        error(("--frameworks: unknown framework '%s' (known: %s)"):format(f, table.concat(M.FRAMEWORKS, ", ")), 0)
      end
      wanted[f] = true
    end
  end
  local gap_of = opts.gap or M.environment_gap
  local client_gap = gap_of(M.client_command(cfg))
  if client_gap then client_gap = "the benchmark client: " .. client_gap end
  local limit = M.limit(cfg)
  local entries, per = {}, {}
  for _, fw in ipairs(M.FRAMEWORKS) do
    local sec = cfg.frameworks[fw]
    local info = { framework = fw, limit = limit, candidates = {} }
    per[#per + 1] = info
    if sec.enabled == false or (wanted and not wanted[fw]) then
      info.disposition = "user-excluded"
      info.reason = sec.enabled == false and "disabled in the config" or "not in --frameworks"
      entries[#entries + 1] = { framework = fw, disposition = info.disposition, reason = info.reason }
    else
      local gap = gap_of(sec.server_command) or client_gap
      for i, c in ipairs(M.candidates(cfg, fw, limit)) do
        local cmdline = M.render(cfg, fw, c)
        local flags = json.object {}
        for _, k in ipairs(c.keys) do flags[k] = c.map[k] end
        local e = {
          framework = fw, candidate_id = ("%s-%d"):format(fw, i - 1), index = i - 1, baseline = i == 1,
          disposition = "selected", reason = "", server_command = cmdline, flags = flags,
          model = cfg.model.name, gpu_count = is_map(cfg.hardware) and cfg.hardware.gpu_count or nil,
        }
        if fw == "tensorrt_llm" and c.map.backend ~= "pytorch" then
          e.disposition = "unsupported"
          e.reason = ("TensorRT-LLM is run only with the PyTorch backend (this candidate asks for backend %s); "
            .. "it is not translated to another backend"):format(M.pyrepr(c.map.backend))
        elseif gap then
          e.disposition, e.reason = "environment-gap", gap
        end
        info.candidates[#info.candidates + 1] = e
        entries[#entries + 1] = e
      end
    end
  end
  return { config = cfg, path = path, entries = entries, frameworks = per }
end

function M.plan_text(plan)
  local out = {}
  for _, info in ipairs(plan.frameworks) do
    if info.disposition then
      out[#out + 1] = ("# %s: %s (%s)"):format(info.framework, info.disposition, info.reason)
    else
      out[#out + 1] = ("# %s (%d candidates, limit %d)"):format(info.framework, #info.candidates, info.limit)
      for _, e in ipairs(info.candidates) do
        local note = e.disposition ~= "selected" and ("   # " .. e.disposition .. ": " .. e.reason) or ""
        out[#out + 1] = e.server_command .. note
      end
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- "--sla max_p50_ttft_ms=1500,min_success_rate=0.99", or a config file's benchmark.sla.
function M.parse_sla(s)
  if lfs.attributes(s, "mode") == "file" then
    local cfg, err = M.load(s)
    if not cfg then error(s .. ": " .. err, 0) end
    local sla = is_map(cfg.benchmark) and cfg.benchmark.sla or cfg.sla
    if not is_map(sla) then error(s .. ": no benchmark.sla", 0) end
    return sla
  end
  local out = {}
  for part in s:gmatch("[^,]+") do
    local k, v = part:match("^%s*([%w_]+)%s*=%s*([%d.eE+-]+)%s*$")
    if not k or not tonumber(v) then error(("--sla: '%s' is not KEY=NUMBER"):format(part), 0) end
    local ok = false
    for _, a in ipairs(M.SLA_KEYS) do if a == k then ok = true end end
    if not ok then
      -- (a misspelt key gets the one it most likely meant, as other options do: newuser49)
      local near = not M.SLA_DEPRECATED[k] and require("llmd.opts").closest(k, M.SLA_KEYS) or nil
      error(("--sla: unknown key '%s'%s (allowed: %s)%s"):format(k,
        near and (" (did you mean %s?)"):format(near) or "", table.concat(M.SLA_KEYS, ", "),
        M.SLA_DEPRECATED[k] and ("; use " .. M.SLA_DEPRECATED[k]) or ""), 0)
    end
    local n = tonumber(v)
    if n < 0 or n ~= n or n == math.huge or (k == "min_success_rate" and n > 1) then
      error(("--sla: %s: expected %s, got '%s'"):format(k,
        k == "min_success_rate" and "a fraction in [0, 1]" or "a limit >= 0", v), 0)
    end
    out[k] = n
  end
  return out
end

-- How sure each choice is ------------------------------------------------------------------
-- The toolchain's summary names a best command per framework and scenario, and ranks the
-- frameworks, from single measurements: a row beats another by any margin, and of a
-- candidate measured several times its best row counts. M.evidence says, for every such
-- choice, which criterion of the rank key decided it and whether the measurements carry
-- it: with repeats (rows of the same framework, scenario and candidate) Welch's t-test on the
-- repeat values (their logs: decision.sized_repeat_test), Holm-adjusted over every test of the call
-- (llmd.decision's rules:
-- ALPHA, and MIN_EFFECT as the practical threshold); with one measurement on a side the
-- choice is untested. It also says when the two rows are not like for like (GPU counts
-- or workload lengths differ): such a choice gets its figures and why they are unlike, but
-- no test and no verdict. Returns a list of lines (text, no markdown).

-- the rank key's criteria, by position (M.rank_key)
local CRITERIA = {
  [3] = { name = "request throughput", unit = "req/s", get = function(r) return metric(r, "request_throughput") end },
  [4] = { name = "output throughput", unit = "tok/s",
    get = function(r) return metric(r, "output_token_throughput") end },
  [5] = { name = "TTFT (p50, else mean)", unit = "ms", get = function(r) return latency(r, "ttft") end },
  [6] = { name = "TPOT (p50, else mean)", unit = "ms", get = function(r) return latency(r, "tpot") end },
}

local function num(v) return ("%.2f"):format(v) end

-- the first place where two rank keys differ, or nil
local function deciding(ka, kb)
  for i = 1, #ka do
    if ka[i] ~= kb[i] then return i end
  end
end

-- what differs between the two rows' set-ups that a comparison of their figures ignores
local function unlike(a, b)
  local out = {}
  local ga, gb = get(a, "hardware", "gpu_count"), get(b, "hardware", "gpu_count")
  if type(ga) == "number" and type(gb) == "number" and ga ~= gb then
    out[#out + 1] = ("%s vs %s GPUs: the figures are not per GPU"):format(M.pystr(ga), M.pystr(gb))
  end
  for _, k in ipairs { "input_len", "output_len" } do
    local va, vb = get(a, "workload", k), get(b, "workload", k)
    if type(va) == "number" and type(vb) == "number" and va ~= vb then
      out[#out + 1] = ("%s %s vs %s: not the same workload"):format(k, M.pystr(va), M.pystr(vb))
    end
  end
  return out
end

function M.evidence(rows)
  local d = require "llmd.decision"
  -- every ok row of a candidate in a scenario: its repeats
  -- (a candidate is its command: an id is only its place in one search, and the same id in
  -- another results file may be another command, never a repeat of this one)
  local _, reps, cand = repeats_of(rows)
  local function cmd(r) local c = server_cmd(r); return c ~= nil and tostring(c) or "" end
  local cmds_of = {} -- framework and id -> the commands rows give it
  for _, r in ipairs(rows) do
    local id = M.framework(r) .. "\0" .. tostring(r.candidate_id)
    cmds_of[id] = cmds_of[id] or {}
    cmds_of[id][cmd(r)] = true
  end
  -- an id with several commands is named with its command
  local function label(r)
    local n = 0
    for _ in pairs(cmds_of[M.framework(r) .. "\0" .. tostring(r.candidate_id)] or {}) do n = n + 1 end
    if n > 1 then return ("%s %s (`%s`)"):format(M.framework(r), tostring(r.candidate_id), cmd(r)) end
    return ("%s %s"):format(M.framework(r), tostring(r.candidate_id))
  end
  local items, tests = {}, {}
  -- one choice: row w ranked above row r (each a candidate's best row)
  local function choice(where, w, r)
    local it = { where = where, w = w, r = r, notes = unlike(w, r) }
    local k = deciding(M.rank_key(w), M.rank_key(r))
    -- a tie of the best rows: the repeats' request throughput still says whether they differ
    local c = k and CRITERIA[k] or (k == nil and CRITERIA[3]) or nil
    it.k, it.c = k, c
    if c then
      local xs, ys = {}, {}
      for _, x in ipairs(reps[cand(w)] or {}) do xs[#xs + 1] = c.get(x) end
      for _, y in ipairs(reps[cand(r)] or {}) do ys[#ys + 1] = c.get(y) end
      it.xs, it.ys = xs, ys
      local function mean(t) local s = 0; for _, v in ipairs(t) do s = s + v end; return s / #t end
      if #xs > 0 and #ys > 0 then
        it.mx, it.my = mean(xs), mean(ys)
        it.eff = d.effect_pct(it.my, it.mx)
      end
      -- a difference between unlike set-ups is no evidence for the choice: such a pair is
      -- not tested, and stays out of the Holm family, so it changes no other line's p
      if #xs >= 2 and #ys >= 2 and #it.notes == 0 then
        -- the decision layer's test on repeats: Welch, or the exact Mann-Whitney test where a
        -- side's repeats are all one value; one that cannot reach alpha stays out of the family.
        -- With the difference's 95 % interval over the repeats on the test's scale, the logs where
        -- every value is above 0 (decision.sized_repeat_test, audit50b F6: a p on the raw values
        -- beside a log ratio's interval disagreed), as compare's rows: a clear difference only
        -- where all of it is beyond the threshold
        it.test = d.sized_repeat_test(xs, ys)
        if d.can_decide(it.test) then
          it.id = ("welch:%d:%s"):format(#items + 1, where)
          tests[#tests + 1] = { id = it.id, p = it.test.p }
        end
      end
    end
    items[#items + 1] = it
  end
  local win = M.winners(rows)
  -- within a framework: its best candidate against the next best other candidate
  for _, w in ipairs(win) do
    local best = {}
    for k, list in pairs(reps) do
      local top = M.sort_by_rank(list)[1]
      if k ~= cand(w) and M.framework(top) == M.framework(w) and M.scenario(top) == M.scenario(w) then
        best[#best + 1] = top
      end
    end
    table.sort(best, function(a, b)
      local ia, ib = tostring(a.candidate_id), tostring(b.candidate_id)
      if ia ~= ib then return ia < ib end
      return cmd(a) < cmd(b)
    end)
    local runner = M.sort_by_rank(best)[1]
    if runner then choice(("%s, %s"):format(M.scenario(w), M.framework(w)), w, runner) end
  end
  -- across frameworks: rank 1 against rank 2 of each scenario
  local by_sc = {}
  for _, w in ipairs(win) do
    local sc = M.scenario(w)
    by_sc[sc] = by_sc[sc] or {}
    table.insert(by_sc[sc], w)
  end
  local scs = {}
  for sc in pairs(by_sc) do scs[#scs + 1] = sc end
  table.sort(scs)
  for _, sc in ipairs(scs) do
    local list = M.sort_by_rank(by_sc[sc])
    if #list >= 2 then choice(sc .. ", across frameworks", list[1], list[2]) end
  end
  local fam = #tests > 0 and d.family(tests) or nil
  local L = {}
  for _, it in ipairs(items) do
    local head = ("%s: %s ranks above %s"):format(it.where, label(it.w), label(it.r))
    local why, unlike_said
    -- what the repeats say, for a choice by a criterion c with figures on both sides
    local function weigh(c)
      local n = ("%d and %d measurement%s"):format(#it.xs, #it.ys, (#it.xs == 1 and #it.ys == 1) and " each" or "s")
      if #it.xs == 1 and #it.ys == 1 then n = "one measurement each" end
      -- (the higher figure above the lower, whichever is which: decision.magnitude)
      local apart = ("%.1f %% apart"):format(d.magnitude(it.eff or 0))
      local fig
      if #it.xs > 1 or #it.ys > 1 then
        -- the toolchain ranks by each candidate's best row; the means are what the repeats
        -- carry, and they may order the two the other way
        local bw, br = c.get(it.w), c.get(it.r)
        if it.k ~= nil and it.mx ~= it.my and bw ~= br and (bw > br) ~= (it.mx > it.my) then
          apart = apart .. "; the means order them the other way"
        end
        fig = ("best rows %s vs %s %s (the toolchain's rule), means of the repeats %s vs %s %s (%s)"):format(
          num(bw), num(br), c.unit, num(it.mx), num(it.my), c.unit, apart)
      else
        fig = ("%s vs %s %s (%s)"):format(num(it.mx), num(it.my), c.unit, apart)
      end
      local small = it.eff and d.magnitude(it.eff) < d.MIN_EFFECT
      local verdict
      -- (what the repeats say of the choice, in a few words, for the line above the summary's
      -- tables: it.open, why they leave it open, or it.clear; it.p, the test's p as said)
      if #it.notes > 0 then
        it.open = "not like for like (" .. table.concat(it.notes, "; ") .. ")"
        -- the measured figures and why they are unlike; no verdict either way
        verdict = ("%s; not like for like: %s; no verdict (a difference between unlike set-ups is no evidence "
          .. "for the choice)"):format(n, table.concat(it.notes, "; "))
        unlike_said = true
      elseif it.test and it.test.identical then
        verdict = "identical in every repeat: no difference"
        it.open = "identical in every repeat"
      elseif it.test and it.test.p and not d.can_decide(it.test) then
        verdict = ("no clear difference (%s, p = %s; %d and %d repeats can give no p below %s: it cannot show a "
          .. "difference)"):format(d.test_name(it.test), d.fmt_p(it.test.p), #it.xs, #it.ys, d.fmt_p(it.test.p_min))
        it.open = ("p = %s (%d and %d repeats can give no p below %s: too few to show a difference)"):format(
          d.fmt_p(it.test.p), #it.xs, #it.ys, d.fmt_p(it.test.p_min))
      elseif it.test and it.test.p then
        local p = fam.adjusted[it.id]
        -- (Welch's on the log values where they are what it read: its interval is theirs too)
        local ptxt = ("%s %s"):format(it.test.test == "welch" and (it.test.scale == "log" and "Welch on the log values,"
          or "Welch") or d.test_name(it.test), d.p_is(it.test.p))
        if fam.size > 1 then ptxt = ptxt .. (", %s after Holm over %d tests"):format(d.fmt_p(p), fam.size) end
        it.p = d.p_is(it.test.p) .. (fam.size > 1 and (", %s after Holm over %d tests"):format(d.fmt_p(p), fam.size)
          or "")
        if p >= d.ALPHA then
          -- (with the estimate and its interval, on the test's scale: an interval that takes in 0
          -- beside the p that finds no difference, audit50b F6)
          local e = it.test.row_effect
          local est = e and e.pct and e.lo and e.hi and ("; %s %s against %s %s, 95 %% interval %s to %s"):format(
            label(it.r), d.pct_near(e.pct, d.MIN_EFFECT), label(it.w), e.where or "over the repeats",
            d.pct_near(e.lo, d.MIN_EFFECT), d.pct_near(e.hi, d.MIN_EFFECT)) or ""
          verdict = ("no clear difference (%s; %s%s)"):format(ptxt, n, est)
          it.open = it.p
        elseif small and it.test.row_effect and d.effect_size(it.test, it.test.row_effect, nil, label(it.w),
          label(it.r)) == "small" then
          -- (negligible only where the whole 95 % interval is within the threshold too, as
          -- decision.effect_size's "small": wording54)
          local e = it.test.row_effect
          local ends = e.lo and e.hi and (", 95 %% interval %s to %s"):format(d.pct_near(e.lo, d.MIN_EFFECT),
            d.pct_near(e.hi, d.MIN_EFFECT)) or ""
          verdict = ("negligible: within the %g %% practical threshold at both ends of the 95 %% interval (%s; %s%s)")
            :format(d.MIN_EFFECT, ptxt, n, ends)
          it.open = ("%s, but %.1f %% apart, within the %g %% practical threshold at both ends of its 95 %% interval")
            :format(it.p, d.magnitude(it.eff), d.MIN_EFFECT)
        elseif small then
          -- (within the threshold by the estimate, the interval reaching beyond it, or none)
          local _, note = nil, nil
          if it.test.row_effect then
            _, note = d.effect_size(it.test, it.test.row_effect, nil, label(it.w), label(it.r))
          end
          verdict = ("not shown to differ by the %g %% practical threshold (%s; %s): %s"):format(d.MIN_EFFECT, ptxt, n,
            note or ("%.1f %% apart, within it by the figures, but with no interval of that difference, so it may be "
            .. "beyond it: no winner"):format(d.magnitude(it.eff)))
          it.open = ("%s, but %.1f %% apart, within the %g %% practical threshold by the estimate only: its 95 %% "
            .. "interval reaches beyond it"):format(it.p, d.magnitude(it.eff), d.MIN_EFFECT)
        else
          -- significant, the estimate past the threshold: a clear difference only where the
          -- whole interval is beyond it too (decision.effect_size, the Verdict's rule); an
          -- estimate of 3.9 % whose interval reaches to 0.8 % may not matter
          local size, note = "beyond", nil
          if it.test.row_effect then
            size, note = d.effect_size(it.test, it.test.row_effect, nil, label(it.w), label(it.r))
          end
          local e = it.test.row_effect
          if size == "unsure" and e and e.lo and e.hi and e.pct then
            -- (in words of their own: the estimate, its interval on the test's scale, and that
            -- the interval reaches within the threshold; decision.effect_size's sentence read
            -- "but by less than the 2 % practical threshold could be (...)", audit50b F6)
            local lo = e.pct > 0 and label(it.w) or label(it.r)
            note = ("%s's values are lower (%s %s against %s %s, 95 %% interval %s to %s), but the interval reaches "
              .. "within the %g %% practical threshold%s, so the difference may be too small to matter: no winner")
              :format(lo, label(it.r), d.pct_near(e.pct, d.MIN_EFFECT), label(it.w), e.where or "over the repeats",
                d.pct_near(e.lo, d.MIN_EFFECT), d.pct_near(e.hi, d.MIN_EFFECT), d.MIN_EFFECT, e.pct < 0
                and (" (a fall reaches it at %+.2f %%)"):format(d.fall_threshold(d.MIN_EFFECT)) or "")
          end
          if size == "beyond" then
            verdict = ("a clear difference (%s; %s)"):format(ptxt, n)
            it.clear = true
          else
            it.open = ("%s, but the 95 %% interval reaches within the %g %% practical threshold"):format(it.p,
              d.MIN_EFFECT)
            verdict = ("not shown to differ by the %g %% practical threshold (%s; %s): %s"):format(d.MIN_EFFECT,
              ptxt, n, note)
          end
        end
      else
        verdict = ("untested: %s, no repeats to test"):format(n)
        it.open = "untested: a side measured once"
        if small then
          verdict = verdict .. ("; below the %g %% practical threshold: no practical difference even if real")
            :format(d.MIN_EFFECT)
        end
      end
      return fig .. ": " .. verdict
    end
    if it.k == nil then
      why = ": a tie on every criterion of the best rows (the first row read is listed first)"
      if it.c and (#it.xs > 1 or #it.ys > 1) and #it.xs > 0 and #it.ys > 0 then
        why = why .. "; " .. it.c.name .. ": " .. weigh(it.c)
      end
    elseif it.k == 2 then
      why = it.r._sla_unknown and ("by the SLA: %s is not known to pass it (SLA unknown (N/A): %s)"):format(
        label(it.r), it.r._sla_unknown) or ("by the SLA: %s does not pass it"):format(label(it.r))
    elseif it.k == 7 then
      why = ("by fewer GPUs (%s vs %s) at equal throughput and latency"):format(
        M.pystr(get(it.w, "hardware", "gpu_count")), M.pystr(get(it.r, "hardware", "gpu_count")))
    elseif it.c and (#it.xs == 0 or #it.ys == 0) then
      why = ("by %s: unknown for %s (the toolchain ranks a missing value last)"):format(it.c.name,
        label(#it.xs == 0 and it.w or it.r))
    elseif it.c then
      why = ("by %s, "):format(it.c.name) .. weigh(it.c)
    else
      why = "by its status"
    end
    local line = head .. (why:sub(1, 1) == ":" and "" or " ") .. why
    if #it.notes > 0 and not unlike_said then line = line .. "; not like for like: " .. table.concat(it.notes, "; ") end
    L[#L + 1] = line
    -- by the choice's place, for the summary's tables (M.summary's opts.evidence)
    L.by_where = L.by_where or {}
    L.by_where[it.where] = line:sub(#it.where + 3)
  end
  -- What the repeats say of each choice that has them (a side measured more than once), in one
  -- line for above the summary's tables, which rank single best rows (newuser52 #2: the tables
  -- named vllm-0 by its best row, 30.67 req/s, while the means of 3 repeats were 25.00 against
  -- vllm-1's 29.27, p = 0.263; only the Evidence column said so). Where the repeats leave the
  -- choice open: "no clear winner"; where they carry it: the pick; where they clearly favour
  -- the other: that one, never the best row's. By where, and in order (L.readings).
  L.readings = {}
  for _, it in ipairs(items) do
    if it.c and it.mx and (#it.xs > 1 or #it.ys > 1) and (it.open or it.clear) then
      local sc, fw = M.scenario(it.w), M.framework(it.w)
      local scope = it.where:match(", across frameworks$") and (sc .. " across frameworks")
        or ("%s within %s"):format(sc, fw)
      local over = #it.xs == #it.ys and ("%d repeats"):format(#it.xs)
        or ("%d and %d %s"):format(#it.xs, #it.ys, (#it.xs > 1 and #it.ys > 1) and "repeats" or "measurements")
      local bw, br = it.c.get(it.w), it.c.get(it.r)
      local rows_said = ("the summary's tables rank single best rows (%s vs %s %s), not these means"):format(num(bw),
        num(br), it.c.unit)
      -- (the higher mean is the better for throughput, the lower for a latency: the rank key's sign)
      local higher_better = it.k == nil or it.k <= 4
      local w_ahead = it.mx ~= it.my and ((it.mx > it.my) == higher_better)
      local text
      if it.open then
        text = ("no clear winner for %s: %s vs %s, means %s vs %s %s over %s, %s; %s"):format(scope, label(it.w),
          label(it.r), num(it.mx), num(it.my), it.c.unit, over, it.open, rows_said)
      elseif w_ahead then
        text = ("%s: the repeats carry %s over %s, means %s vs %s %s over %s, %s (a clear difference)"):format(scope,
          label(it.w), label(it.r), num(it.mx), num(it.my), it.c.unit, over, it.p)
      else
        text = ("%s: the repeats favour %s, not %s the tables show: means %s vs %s %s over %s, %s (a clear "
          .. "difference); %s"):format(scope, label(it.r), label(it.w), num(it.my), num(it.mx), it.c.unit, over,
          it.p, rows_said)
      end
      L.readings[#L.readings + 1] = text
      L.readings[it.where] = text
      if it.mx ~= it.my and not w_ahead then L.readings[it.where .. "\0other way"] = true end
    end
  end
  -- a pick whose server crashed in another row (M.crash_notes) says so on its line, or on a
  -- line of its own where there was no other candidate to weigh it against
  local crashed = M.crash_notes(rows)
  for _, w in ipairs(win) do
    local c = crashed(w)
    if c then
      local where = ("%s, %s"):format(M.scenario(w), M.framework(w))
      local text = ("%s, yet picked here as the toolchain picks, per scenario"):format(c)
      local found
      for i, line in ipairs(L) do
        if line:sub(1, #where + 2) == where .. ": " then L[i] = line .. "; " .. text; found = true end
      end
      if not found then
        L[#L + 1] = ("%s: %s is the best (no other candidate measured to weigh it against); %s"):format(where,
          label(w), text)
      end
    end
  end
  return L
end

return M
