-- luacheck configuration: Lua 5.4, no globals anywhere.
std = "lua54"
max_line_length = 120
-- tests hold expected texts verbatim, however long they are
files["tests"] = { max_line_length = false }
