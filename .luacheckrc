-- luacheck configuration: Lua 5.4, no globals in the library.
std = "lua54"
max_line_length = 120
files["tests/lua/run.lua"] = { globals = {} }
