/*
** main.c — the llmdlua host: runs a Lua script with llmdlua's native modules.
**
**   llmdlua [options] SCRIPT [args...]
**
** Like lua.c: everything runs inside pmain under lua_pcall, so set-up errors are
** reported like script errors; the message handler adds a traceback.
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "lauxlib.h"
#include "lfs.h"
#include "lua.h"
#include "lualib.h"

#include "modules.h"
#include "precompiled.h"

#ifndef LLMDLUA_VERSION
#define LLMDLUA_VERSION "0.0.0"
#endif

/* Exit codes, documented in the README. */
enum {
    EXIT_OK = 0,
    EXIT_SCRIPT = 1,      /* uncaught error in the script (or its set-up) */
    EXIT_USAGE = 2,       /* bad command line, script not found */
    EXIT_INTERRUPT = 130, /* stopped by SIGINT/SIGTERM/SIGHUP */
};

static const char USAGE_HEAD[] =
    "usage: llmdlua [options] SCRIPT [args...]\n"
    "\n"
    "Runs SCRIPT (./SCRIPT if it exists, else the installed lua/SCRIPT) with llmdlua's\n"
    "modules (README: Modules):\n";

static const char USAGE_TAIL[] =
    "\n"
    "options:\n"
    "  -e CODE   run CODE (before SCRIPT, if one is given)\n"
    "  -v        print the versions of llmdlua and its libraries\n"
    "  -h        print this help\n"
    "  --        stop handling options\n"
    "\n"
    "environment:\n"
    "  LLMDLUA_PATH  extra Lua module paths (';;' stands for the defaults)\n"
    "  LLMDLUA_TRACE=1  a Lua traceback with every error (else only with internal ones)\n"
    "  LLMDLUA_PRECOMPILED=0  compile every Lua file from its text (else llmdlua's own,\n"
    "                unedited, load from the bytecode built in)\n"
    "\n"
    "exit status: 0 ok, 1 script error, 2 usage error, 130 interrupted\n";

/*
** The Lua modules of ROOT/lua/llmd a script may use, as the README's Modules section
** documents them (tests/cli/test_cli.sh checks the two agree); the others are the scripts'
** own. -h lists these after the native ones (preloads, below).
*/
static const char *const LUA_MODULES[] = {
    "llmd.stattest", "llmd.loadpoints", "llmd.decision", "llmd.prom_files", "llmd.harness",
    "llmd.metrics",  "llmd.args",       "llmd.errors",   "llmd.opts",       NULL};

static int luaopen_llmd_host(lua_State *L);

static const luaL_Reg preloads[] = {
    {"llmd.host",  luaopen_llmd_host   },
    {"llmd.json",  luaopen_llmd_json   },
    {"llmd.yaml",  luaopen_llmd_yaml   },
    {"llmd.proc",  luaopen_llmd_proc   },
    {"llmd.http",  luaopen_llmd_http   },
    {"llmd.stats", luaopen_llmd_stats  },
    {"llmd.scan",  luaopen_llmd_scan   },
    {"llmd.prom",  luaopen_llmd_prom   },
    {"lfs",        luaopen_lfs_noglobal},
    {NULL,         NULL                }
};

/* The usage text, its module list from preloads and LUA_MODULES (so it names them all). */
static void print_usage(FILE *f)
{
    (void)fputs(USAGE_HEAD, f);
    int col = 0, natives = (int)(sizeof preloads / sizeof preloads[0]) - 1;
    for (int i = 0;; i++) {
        const char *name = i < natives ? preloads[i].name : LUA_MODULES[i - natives];
        if (name == NULL)
            break;
        int len = (int)strlen(name);
        if (col > 0 && col + 2 + len > 86) {
            (void)fputs(",\n", f);
            col = 0;
        } else if (col > 0) {
            (void)fputs(", ", f);
            col += 2;
        }
        if (col == 0) {
            (void)fputs("  ", f);
            col = 2;
        }
        (void)fputs(name, f);
        col += len;
    }
    (void)fputs(".\n", f);
    (void)fputs(USAGE_TAIL, f);
}

/* Command line, parsed before Lua starts. */
typedef struct Options {
    int argc;
    char **argv;
    int script; /* index of SCRIPT in argv, or 0 when there is none */
    int version;
} Options;

/*
** LuaFileSystem 1.8 sets the global 'lfs'; llmdlua adds no globals, so the previous
** value of that global is put back.
*/
int luaopen_lfs_noglobal(lua_State *L)
{
    lua_pushglobaltable(L); /* _G */
    lua_pushliteral(L, "lfs");
    lua_rawget(L, -2); /* _G, old (a raw get: strict _G raises on nil) */
    int top = lua_gettop(L);
    luaopen_lfs(L);          /* _G, old, ..., lfs: 1.8.0 leaves its metatables too */
    lua_replace(L, top + 1); /* _G, old, lfs, ... */
    lua_settop(L, top + 1);  /* _G, old, lfs */
    lua_pushliteral(L, "lfs");
    lua_pushvalue(L, top);  /* _G, old, lfs, "lfs", old */
    lua_rawset(L, top - 1); /* _G, old, lfs */
    return 1;
}

static int names_a_file(const char *text);
static int runtime_error_text(const char *msg);

/* host.names_a_file(text) -> boolean: the host's rule for an error naming the user's file */
static int l_names_a_file(lua_State *L)
{
    lua_pushboolean(L, names_a_file(luaL_checkstring(L, 1)));
    return 1;
}

/* host.runtime_error(text) -> boolean: is text one of Lua's own runtime errors without its
   position (raised in a C function: a bug, shown with a traceback), by the host's rule */
static int l_runtime_error(lua_State *L)
{
    lua_pushboolean(L, runtime_error_text(luaL_checkstring(L, 1)));
    return 1;
}

/*
** llmd.host: facts about this llmdlua — {version=, lua=, root=} — and names_a_file, the
** rule the host prints errors by, so llmd.errors reads them the same way. root is the
** install root (the folder holding lua/ and templates/), or nil when none was found.
** precompiled() -> loads, count: Lua files loaded from the built-in bytecode so far, and
** how many it holds (precompiled.h).
*/
static int luaopen_llmd_host(lua_State *L)
{
    lua_createtable(L, 0, 6);
    lua_pushcfunction(L, l_names_a_file);
    lua_setfield(L, -2, "names_a_file");
    lua_pushcfunction(L, l_runtime_error);
    lua_setfield(L, -2, "runtime_error");
    lua_pushcfunction(L, llmd_precompiled_stats);
    lua_setfield(L, -2, "precompiled");
    lua_pushliteral(L, LLMDLUA_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushliteral(L, LUA_RELEASE);
    lua_setfield(L, -2, "lua");
    lua_getfield(L, LUA_REGISTRYINDEX, "llmdlua.root");
    lua_setfield(L, -2, "root");
    return 1;
}

/* The state the signal handler stops, as lua.c's globalL: set once in main. */
static lua_State *signal_L = NULL;

/* Set by on_signal, run at the next Lua instruction: stops the script. */
static void interrupt_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    llmd_signals_taken = llmd_signals;
    lua_sethook(L, NULL, 0, 0);
    luaL_error(L, "interrupted");
}

static void on_signal(int sig)
{
    (void)sig;
    llmd_interrupted = 1;
    llmd_signals = llmd_signals + 1;
    if (signal_L != NULL) /* lua_sethook is safe in a signal handler */
        lua_sethook(signal_L, interrupt_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/*
** Does msg start with the position of a Lua chunk ("x.lua:12: ", "(command line):1: ",
** "[string \"...\"]:3: ", "stdin:2: ")? Then the error came from Lua code that failed
** (an internal error, or a script's own), not from a check that names the user's file.
*/
static size_t lua_position(const char *msg)
{
    for (const char *p = strchr(msg, ':'); p != NULL; p = strchr(p + 1, ':')) {
        size_t digits = strspn(p + 1, "0123456789");
        if (digits == 0 || p[1 + digits] != ':')
            continue;
        size_t len = (size_t)(p - msg);
        int lua = (len > 4 && strncmp(p - 4, ".lua", 4) == 0) ||
                  (len == 14 && strncmp(msg, "(command line)", 14) == 0) ||
                  strncmp(msg, "[string ", 8) == 0 || (len == 5 && strncmp(msg, "stdin", 5) == 0);
        if (!lua)
            return 0;
        size_t end = len + 2 + digits;
        return msg[end] == ' ' ? end + 1 : end;
    }
    return 0;
}

/*
** Does text start with the user's file ("plan.yaml:2:1: ...", "/data/x.json: ...",
** "(stdin):1: ...")? A native module's failure carries its Lua caller's position in
** front of that (json.read, yaml.load_file); the file is what the user needs. The name
** runs up to ':', ' ' or a newline, is followed by ": " or ":N", holds a '/' or a '.' or is
** in parentheses, and is not a Lua file. Lua has it as llmd.host.names_a_file (llmd.errors).
*/
static int names_a_file(const char *text)
{
    size_t len = strcspn(text, ": \n");
    if (len == 0 || text[len] != ':' ||
        (text[len + 1] != ' ' && !(text[len + 1] >= '0' && text[len + 1] <= '9')))
        return 0;
    if (len > 4 && strncmp(text + len - 4, ".lua", 4) == 0)
        return 0;
    if (text[0] == '(' && text[len - 1] == ')')
        return 1;
    return memchr(text, '/', len) != NULL || memchr(text, '.', len) != NULL;
}

/* Is the name text starts with (up to ": " or ":N") a path that exists? */
static int names_a_path(const char *text)
{
    char path[PATH_MAX];
    size_t len = strcspn(text, ":\n");
    if (len == 0 || len >= sizeof path)
        return 0;
    memcpy(path, text, len);
    path[len] = '\0';
    struct stat st;
    return stat(path, &st) == 0;
}

/* Is the function at the top of the stack one of Lua's standard library's (error, assert,
   io.open, a file's methods...)? */
static int is_std_function(lua_State *L)
{
    static const char *const LIBS[] = {"_G",   "string",    "table", "io",      "os",
                                       "math", "coroutine", "utf8",  "package", NULL};
    int fn = lua_gettop(L), found = 0;
    for (int i = 0; LIBS[i] != NULL && !found; i++) {
        if (i == 0)
            lua_pushglobaltable(L);
        else
            lua_getglobal(L, LIBS[i]);
        if (lua_istable(L, -1)) {
            lua_pushnil(L);
            while (!found && lua_next(L, -2) != 0) {
                found = lua_rawequal(L, -1, fn);
                lua_pop(L, 1);
            }
            if (found)
                lua_pop(L, 1); /* the key lua_next left */
        }
        lua_pop(L, 1);
    }
    if (!found && luaL_getmetatable(L, LUA_FILEHANDLE) == LUA_TTABLE &&
        lua_getfield(L, -1, "__index") == LUA_TTABLE) {
        lua_pushnil(L);
        while (!found && lua_next(L, -2) != 0) {
            found = lua_rawequal(L, -1, fn);
            lua_pop(L, 1);
        }
        if (found)
            lua_pop(L, 1);
        lua_pop(L, 1);
    }
    lua_settop(L, fn);
    return found;
}

/*
** Did our API refuse what the user's script passed it? The message starts with a position
** (pos bytes, "x.lua:12: "); by the stack, still whole in the message handler, that is
** the line of a Lua frame outside ROOT/lua (the user's script or module), and the frame
** it called, which raised, is ours: a native module's function (luaL_where(L, 1)) or a
** function in ROOT/lua that raised with error(msg, 2). Not when the user's own code
** failed (a runtime error, its own error() or assert(), a standard library's refusal):
** that keeps its traceback, as does everything raised in ROOT/lua (a bug of ours).
*/
static int api_refused(lua_State *L, const char *msg, size_t pos)
{
    lua_getfield(L, LUA_REGISTRYINDEX, "llmdlua.root");
    const char *root = lua_tostring(L, -1);
    size_t rootlen = root != NULL ? strlen(root) : 0;
    int refused = 0;
    lua_Debug ar, callee;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0)
            continue;
        char where[LUA_IDSIZE + 32];
        int n = snprintf(where, sizeof where, "%s:%d:", ar.short_src, ar.currentline);
        if (n <= 0 || (size_t)n >= sizeof where || (size_t)n > pos ||
            strncmp(msg, where, (size_t)n) != 0)
            continue;
        int ours = root != NULL && ar.source[0] == '@' &&
                   strncmp(ar.source + 1, root, rootlen) == 0 &&
                   strncmp(ar.source + 1 + rootlen, "/lua/", 5) == 0;
        /* level 1 is the function that raised: a runtime error of the user's own code */
        if (ours || level == 1 || !lua_getstack(L, level - 1, &callee) ||
            !lua_getinfo(L, "Sf", &callee))
            break;
        if (callee.what[0] == 'C')
            refused = !is_std_function(L);
        else
            refused = root != NULL && callee.source[0] == '@' &&
                      strncmp(callee.source + 1, root, rootlen) == 0 &&
                      strncmp(callee.source + 1 + rootlen, "/lua/", 5) == 0;
        lua_pop(L, 1); /* the callee */
        break;
    }
    lua_pop(L, 1);
    return refused;
}

/*
** A Lua runtime error raised inside a C function (ipairs' iterator indexing nil, a
** table.concat of a nil...) has no position: the VM adds one only for a Lua frame, and
** luaL_error only for a C function's Lua caller (none when pcall or another C function
** called it). Such a message gets the position of the nearest Lua frame, as it would have
** had. The texts are Lua 5.4's own (lvm.c, ldebug.c, ltable.c, ltablib.c, lstrlib.c,
** ldo.c); none of llmdlua's messages starts so (llmd.errors.user_text asks the same).
*/
static int runtime_error_text(const char *msg)
{
    static const char *const STARTS[] = {"attempt to ",
                                         "table index is ",
                                         "number has no integer representation",
                                         "invalid key to 'next'",
                                         "invalid value (",
                                         "wrong number of arguments to '",
                                         "invalid order function for sorting",
                                         "resulting string too large",
                                         "string length overflow",
                                         "'__index' chain too long",
                                         "'__newindex' chain too long",
                                         "C stack overflow",
                                         "stack overflow",
                                         NULL};
    for (int i = 0; STARTS[i] != NULL; i++)
        if (strncmp(msg, STARTS[i], strlen(STARTS[i])) == 0)
            return 1;
    return 0;
}

/* Pushes msg with the position of the nearest Lua frame (level 1 up) in front, or msg. */
static const char *push_with_position(lua_State *L, const char *msg)
{
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0)
            return lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, msg);
    }
    return lua_pushstring(L, msg);
}

/*
** The message main prints. A user's mistake is one line, no traceback: a check that
** raised a message naming the user's file or option (no Lua position in front, or only
** the Lua line in front of the file's name, which is dropped), our API refusing what a
** script passed it, at the script's line ("my.lua:7: stats.new: unknown option 'sketh'
** (did you mean 'sketch'?)"), or a syntax error in the script (main_chunk_failed: there
** is no stack to show). A bug (a position in ROOT/lua, a script's own runtime error or
** error(), a non-string error) gets the traceback, as does every error with
** LLMDLUA_TRACE=1. Ctrl-C is "interrupted", without where. Pushes the text.
*/
static void decide(lua_State *L, int trace)
{
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    } else if (!trace && llmd_interrupted) {
        size_t n = strlen(msg);
        if (n >= 11 && strcmp(msg + n - 11, "interrupted") == 0)
            lua_pushliteral(L, "interrupted");
        else
            lua_pushvalue(L, 1);
        return;
    } else if (lua_getfield(L, LUA_REGISTRYINDEX, "llmdlua.load_failed") != LUA_TNIL &&
               lua_rawequal(L, -1, 1)) {
        lua_pop(L, 1);
        if (!trace) { /* the script does not compile: its line says it all */
            lua_pushvalue(L, 1);
            return;
        }
    } else {
        lua_pop(L, 1);
        size_t pos = lua_position(msg);
        if (pos == 0 && runtime_error_text(msg)) {
            msg = push_with_position(L, msg); /* a bug: traceback below */
        } else if (!trace) {
            if (pos == 0 && strncmp(msg, "bad argument", 12) != 0) {
                lua_pushvalue(L, 1);
                return;
            }
            if (pos > 0 && api_refused(L, msg, pos)) {
                /* "x.lua:3: data.json:2:1: ..." names the user's file: that is what they
                   need; "x.lua:3: stats.new: ..." names our function: the line stays */
                if (names_a_file(msg + pos) && names_a_path(msg + pos))
                    lua_pushstring(L, msg + pos);
                else
                    lua_pushvalue(L, 1);
                return;
            }
            if (pos > 0 && names_a_file(msg + pos)) {
                lua_pushstring(L, msg + pos);
                return;
            }
        }
    }
    luaL_traceback(L, L, msg, 1);
}

static int trace_wanted(void)
{
    const char *trace_env = getenv("LLMDLUA_TRACE");
    return trace_env != NULL && *trace_env != '\0' && strcmp(trace_env, "0") != 0;
}

/*
** Registry "llmdlua.decided" = {error value, text}: what decide() made of an error where
** it was raised, in a callback a native module called under its own lua_pcall (a scan
** rule's function, a proc line callback...). The module raises the error value again from
** its own frame, where the callback's stack is gone; msghandler prints the text decided
** while it was whole, so an error() in a callback reads as one anywhere else. The record
** is used only when a native module's function raised the error (not error(), which a
** script calls after catching one with the same text).
*/
static int decided_text(lua_State *L)
{
    /* only an error a native module raises again: not a new one with the same text */
    lua_Debug ar;
    if (!lua_getstack(L, 1, &ar) || !lua_getinfo(L, "Sf", &ar))
        return 0;
    int module = ar.what[0] == 'C' && !is_std_function(L);
    lua_pop(L, 1);
    if (!module)
        return 0;
    if (lua_getfield(L, LUA_REGISTRYINDEX, "llmdlua.decided") != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    lua_rawgeti(L, -1, 1);
    if (!lua_rawequal(L, -1, 1)) {
        lua_pop(L, 2);
        return 0;
    }
    lua_rawgeti(L, -2, 2); /* decided, value, text */
    lua_replace(L, -3);
    lua_pop(L, 1);
    return 1;
}

/* The message handler of a callback's protected call (llmd_pcall): the error value as it
   is, with what main would print for it recorded (an inner callback's record is kept). */
static int callback_msghandler(lua_State *L)
{
    if (!decided_text(L)) {
        lua_createtable(L, 2, 0);
        int rec = lua_gettop(L);
        lua_pushvalue(L, 1);
        lua_rawseti(L, rec, 1);
        decide(L, trace_wanted()); /* (the text on top: a value or two under it) */
        lua_rawseti(L, rec, 2);
        lua_settop(L, rec);
        lua_setfield(L, LUA_REGISTRYINDEX, "llmdlua.decided");
    }
    lua_settop(L, 1);
    return 1;
}

static int msghandler(lua_State *L)
{
    int trace = trace_wanted();
    const char *msg = lua_tostring(L, 1);
    if (msg != NULL && !(llmd_interrupted && !trace) && decided_text(L))
        return 1;
    decide(L, trace);
    return 1;
}

/* The folder holding the running binary, from /proc/self/exe (not argv[0]). */
static int exe_dir(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return -1;
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    return 0;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
** Pushes the install root: the binary's folder in a build tree (it has lua/ beside
** the binary), or PREFIX/share/llmdlua for an installed bin/llmdlua. Pushes nil if
** neither exists.
*/
static void push_root(lua_State *L)
{
    char dir[PATH_MAX];
    if (exe_dir(dir, sizeof dir) == 0) {
        lua_pushfstring(L, "%s/lua", dir);
        int here = is_dir(lua_tostring(L, -1));
        lua_pop(L, 1);
        if (here) {
            lua_pushstring(L, dir);
            return;
        }
        lua_pushfstring(L, "%s/../share/llmdlua", dir);
        lua_pushfstring(L, "%s/lua", lua_tostring(L, -1));
        int installed = is_dir(lua_tostring(L, -1));
        lua_pop(L, 1);
        if (installed)
            return;
        lua_pop(L, 1);
    }
    lua_pushnil(L);
}

/*
** package.path = script folder, then $LLMDLUA_PATH, then ROOT/lua. A ';;' in
** $LLMDLUA_PATH stands for ROOT/lua there (as ';;' in LUA_PATH stands for Lua's
** defaults). package.cpath is emptied: llmdlua loads no shared objects.
*/
static void set_paths(lua_State *L, const char *script_dir, int root)
{
    lua_getglobal(L, "package"); /* package */
    /* the defaults: ROOT/lua, unless the script's own folder is that already */
    const char *r = lua_isnil(L, root) ? NULL : lua_tostring(L, root);
    if (r != NULL && script_dir != NULL && strncmp(script_dir, r, strlen(r)) == 0 &&
        strcmp(script_dir + strlen(r), "/lua") == 0)
        r = NULL;
    if (r != NULL)
        lua_pushfstring(L, "%s/lua/?.lua;%s/lua/?/init.lua", r, r); /* package, dflt */
    else
        lua_pushliteral(L, "");
    int dflt = lua_gettop(L);

    const char *env = getenv("LLMDLUA_PATH");
    if (env != NULL && *env != '\0') {
        if (strstr(env, ";;") != NULL) {
            lua_pushfstring(L, ";%s;", lua_tostring(L, dflt));
            luaL_gsub(L, env, ";;", lua_tostring(L, -1)); /* package, dflt, sep, path */
            lua_remove(L, -2);                            /* package, dflt, path */
        } else {
            lua_pushfstring(L, "%s;%s", env, lua_tostring(L, dflt)); /* package, dflt, path */
        }
    } else {
        lua_pushvalue(L, dflt); /* package, dflt, path */
    }
    if (script_dir != NULL) {
        lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", script_dir, script_dir);
        lua_insert(L, -2);
        lua_concat(L, 2); /* package, dflt, path */
    }
    /* no empty entries at either end (from ';;' at an end, or no defaults) */
    size_t n;
    const char *path = lua_tolstring(L, -1, &n);
    size_t a = strspn(path, ";");
    while (n > a && path[n - 1] == ';')
        n--;
    lua_pushlstring(L, path + a, n - a); /* package, dflt, path, path' */
    lua_remove(L, -2);
    lua_setfield(L, -3, "path"); /* package, dflt */
    lua_pop(L, 1);
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "cpath");
    /* no C module searchers: llmdlua loads no shared objects (messages stay clean) */
    lua_getfield(L, -1, "searchers"); /* package, searchers */
    lua_pushnil(L);
    lua_rawseti(L, -2, 4);
    lua_pushnil(L);
    lua_rawseti(L, -2, 3);
    lua_pop(L, 1);
    llmd_precompiled_install(L);    /* llmdlua's own files from bytecode, before Lua's searcher */
    lua_getfield(L, -1, "preload"); /* package, preload */
    luaL_setfuncs(L, preloads, 0);
    lua_pop(L, 2);
}

/* Reading an undefined global raises, so a typo cannot become a silent nil. */
static int strict_index(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TSTRING)
        return luaL_error(L, "undefined global '%s'", lua_tostring(L, 2));
    return luaL_error(L, "undefined global");
}

static void set_strict(lua_State *L)
{
    lua_pushglobaltable(L);   /* _G */
    lua_createtable(L, 0, 1); /* _G, mt */
    lua_pushcfunction(L, strict_index);
    lua_setfield(L, -2, "__index"); /* _G, mt */
    lua_setmetatable(L, -2);        /* _G */
    lua_pop(L, 1);
}

/* arg as lua.c builds it: the script at 0, its arguments from 1, options below 0. */
static void create_arg(lua_State *L, const Options *o)
{
    int base = o->script ? o->script : o->argc;
    lua_createtable(L, o->argc - base, base + 1);
    for (int i = 0; i < o->argc; i++) {
        lua_pushstring(L, o->argv[i]);
        lua_rawseti(L, -2, i - base);
    }
    lua_setglobal(L, "arg");
}

static int docall(lua_State *L, int nargs)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, msghandler);
    lua_insert(L, base);
    int status = lua_pcall(L, nargs, 0, base);
    lua_remove(L, base);
    return status;
}

/*
** The script of ROOT/lua (its *.lua files) that name most likely meant (llmd_closest, name
** taken with ".lua" where it has none), into out; 0 when none is close or the folder cannot
** be read.
*/
static int nearest_script(const char *root, const char *name, char *out, size_t outlen)
{
    char dir[PATH_MAX], want[256];
    size_t len = strlen(name);
    int with_ext = len >= 4 && strcmp(name + len - 4, ".lua") == 0;
    if (snprintf(dir, sizeof dir, "%s/lua", root) >= (int)sizeof dir ||
        snprintf(want, sizeof want, "%s%s", name, with_ext ? "" : ".lua") >= (int)sizeof want)
        return 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    enum { MAX_SCRIPTS = 64 };
    char *names[MAX_SCRIPTS + 1];
    int n = 0;
    const struct dirent *de;
    while (n < MAX_SCRIPTS && (de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l > 4 && strcmp(de->d_name + l - 4, ".lua") == 0 && de->d_name[0] != '.') {
            names[n] = strdup(de->d_name);
            if (names[n] != NULL)
                n++;
        }
    }
    closedir(d);
    names[n] = NULL;
    const char *near = llmd_closest(want, (const char *const *)names);
    int found = near != NULL && snprintf(out, outlen, "%s", near) < (int)outlen;
    for (int i = 0; i < n; i++)
        free(names[i]);
    return found;
}

/*
** Finds SCRIPT: ./SCRIPT (or the path as given) if it exists, else ROOT/lua/SCRIPT.
** Pushes the path found, or raises a usage error.
*/
static void find_script(lua_State *L, const char *name, int root)
{
    if (strcmp(name, "-") == 0 || is_file(name)) {
        lua_pushstring(L, name);
        return;
    }
    if (strchr(name, '/') == NULL && !lua_isnil(L, root)) {
        lua_pushfstring(L, "%s/lua/%s", lua_tostring(L, root), name);
        if (is_file(lua_tostring(L, -1)))
            return;
        lua_pop(L, 1);
    }
    lua_pushinteger(L, EXIT_USAGE);
    lua_setfield(L, LUA_REGISTRYINDEX, "llmdlua.exit");
    if (!lua_isnil(L, root)) {
        /* a script named without .lua ("llmdlua compare"): the one meant, said */
        size_t len = strlen(name);
        if (strchr(name, '/') == NULL && (len < 4 || strcmp(name + len - 4, ".lua") != 0)) {
            lua_pushfstring(L, "%s/lua/%s.lua", lua_tostring(L, root), name);
            int there = is_file(lua_tostring(L, -1));
            lua_pop(L, 1);
            if (there || is_file(lua_pushfstring(L, "%s.lua", name)))
                luaL_error(L,
                           "cannot find script '%s' (looked in . and %s/lua); "
                           "did you mean %s.lua? (llmdlua %s.lua --help)",
                           name, lua_tostring(L, root), name, name);
            lua_pop(L, 1);
        }
        /* a misspelt script ("llmdlua compre.lua"): the nearest of ROOT/lua's scripts, by the
           rule the options' "did you mean" follows (llmd_closest) */
        char near[256];
        if (strchr(name, '/') == NULL && nearest_script(lua_tostring(L, root), name, near, sizeof near))
            luaL_error(L,
                       "cannot find script '%s' (looked in . and %s/lua); "
                       "did you mean %s? (llmdlua %s --help)",
                       name, lua_tostring(L, root), near, near);
        luaL_error(L, "cannot find script '%s' (looked in . and %s/lua)", name,
                   lua_tostring(L, root));
    }
    luaL_error(L, "cannot find script '%s'", name);
}

static void print_version(void)
{
    char curl[400];
    printf("llmdlua %s\n", LLMDLUA_VERSION);
    printf("%s\n", LUA_RELEASE);
    printf("libyaml %s\n", yaml_get_version_string());
    printf("libcurl %s\n", llmd_curl_version(curl, sizeof curl));
}

/*
** os.exit(code [, close]) as Lua's, but the state is closed unless close is false: every
** __gc runs, so a child process a script still holds, or one whose handle an error lost (a
** Ctrl-C landing between proc.spawn and the variable it returns to), is killed and reaped
** before the exit (lproc.c), never left running behind a script that exits itself.
*/
static int l_os_exit(lua_State *L)
{
    int status;
    if (lua_isboolean(L, 1))
        status = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
    else
        status = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
    if (lua_isnoneornil(L, 2) || lua_toboolean(L, 2)) {
        signal_L = NULL; /* a Ctrl-C from here on only sets the flags */
        lua_close(L);
    }
    exit(status);
}

/* Runs inside lua_pcall; upvalue-free, the Options come as a light userdata. */
static int pmain(lua_State *L)
{
    const Options *o = (const Options *)lua_touserdata(L, 1);
    luaL_checkversion(L);
    luaL_openlibs(L);
    lua_getglobal(L, "os");
    lua_pushcfunction(L, l_os_exit);
    lua_setfield(L, -2, "exit");
    lua_settop(L, 0);

    push_root(L); /* root */
    const int root = 1;

    const char *script_dir = NULL;
    if (o->script) {
        find_script(L, o->argv[o->script], root); /* root, script */
        const char *path = lua_tostring(L, -1);
        const char *slash = strrchr(path, '/');
        if (slash != NULL)
            script_dir = lua_pushlstring(L, path, (size_t)(slash - path)); /* root, script, dir */
        else
            script_dir = ".";
    }
    set_paths(L, script_dir, root);
    create_arg(L, o);
    if (!lua_isnil(L, root)) {
        lua_pushvalue(L, root);
        lua_setfield(L, LUA_REGISTRYINDEX, "llmdlua.root");
    }
    set_strict(L);
    lua_pushcfunction(L, callback_msghandler);
    lua_setfield(L, LUA_REGISTRYINDEX, LLMD_CALLBACK_MSGH);

    /* -e chunks in order, then the script. */
    for (int i = 1; i < (o->script ? o->script : o->argc); i++) {
        if (strcmp(o->argv[i], "-e") != 0)
            continue;
        const char *code = o->argv[++i];
        if (luaL_loadbuffer(L, code, strlen(code), "=(command line)") != LUA_OK) {
            lua_pushvalue(L, -1);
            lua_setfield(L, LUA_REGISTRYINDEX, "llmdlua.load_failed");
            return lua_error(L);
        }
        lua_call(L, 0, 0); /* errors reach main's handler, which adds the traceback */
    }
    if (o->script) {
        const char *path = lua_tostring(L, 2);
        int loaded = llmd_precompiled_loadfile(L, strcmp(path, "-") == 0 ? NULL : path);
        if (loaded != LUA_OK) {
            size_t n = strlen(path);
            /* a data file given as the script (llmdlua results.json): say what was expected */
            if (loaded == LUA_ERRSYNTAX && strcmp(path, "-") != 0 &&
                (n < 4 || strcmp(path + n - 4, ".lua") != 0)) {
                lua_pushfstring(L, "%s (llmdlua runs a Lua script: is %s one?)",
                                lua_tostring(L, -1), path);
                lua_remove(L, -2);
            }
            lua_pushvalue(L, -1);
            lua_setfield(L, LUA_REGISTRYINDEX, "llmdlua.load_failed");
            return lua_error(L);
        }
        int n = o->argc - o->script - 1;
        luaL_checkstack(L, n, "too many arguments to script");
        for (int i = 1; i <= n; i++)
            lua_pushstring(L, o->argv[o->script + i]);
        lua_call(L, n, 0);
    }
    return 0;
}

/* Returns EXIT_OK, or EXIT_USAGE after printing what is wrong. */
static int parse_args(Options *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->argc = argc;
    o->argv = argv;
    int has_e = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            if (i + 1 < argc)
                o->script = i + 1;
            break;
        } else if (strcmp(a, "-e") == 0) {
            if (i + 1 >= argc) {
                (void)fputs("llmdlua: '-e' needs an argument\n", stderr);
                print_usage(stderr);
                return EXIT_USAGE;
            }
            has_e = 1;
            i++;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0) {
            o->version = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_usage(stdout);
            exit(EXIT_OK);
        } else if (a[0] == '-' && a[1] != '\0') {
            (void)fprintf(stderr, "llmdlua: unknown option '%s'\n", a);
            print_usage(stderr);
            return EXIT_USAGE;
        } else {
            o->script = i;
            break;
        }
    }
    if (!o->script && !has_e && !o->version) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/*
** Standard input, output and error open, on /dev/null where they were closed (`llmdlua x.lua
** <&-`): else the first file opened takes the lowest free descriptor, 0 to 2, and a child
** given that file as its stderr gets what its stdin's redirection put there instead, and a
** message written to "stderr" goes into a workspace file. -1 when one cannot be opened.
*/
static int open_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (got != fd) { /* (the lowest free descriptor: fd itself) */
            if (got >= 0)
                close(got);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (open_std_fds() != 0)
        return EXIT_SCRIPT; /* nowhere to say it: stderr is what failed */
    Options o;
    int rc = parse_args(&o, argc, argv);
    if (rc != EXIT_OK)
        return rc;
    if (o.version) {
        print_version();
        if (!o.script)
            return EXIT_OK;
    }

    lua_State *L = luaL_newstate();
    if (L == NULL) {
        (void)fprintf(stderr, "llmdlua: cannot create Lua state: not enough memory\n");
        return EXIT_SCRIPT;
    }
    signal_L = L;

    /* No SA_RESTART: a pending Ctrl-C interrupts poll() in proc.run. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A hang-up (the terminal or ssh session closed) stops the run as Ctrl-C does: by
       default it killed llmdlua outright, and what it had started in process groups of
       their own (autobench's server, holding its GPU and port) ran on, its workspace
       left INCOMPLETE. Under nohup (SIGHUP ignored when we start) it stays ignored. */
    struct sigaction hup;
    if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);
    /* Writing to a child that has exited must fail with EPIPE, not kill us. */
    (void)signal(SIGPIPE, SIG_IGN);
    /* Nor must a write past the file-size limit (ulimit -f): by default SIGXFSZ killed
       llmdlua in the middle of a write, with no word and a workspace left INCOMPLETE;
       ignored, the write fails with EFBIG and is an error naming the file, as a full
       disk's. (Children get the default back: proc.c.) */
    (void)signal(SIGXFSZ, SIG_IGN);

    lua_pushcfunction(L, pmain);
    lua_pushlightuserdata(L, &o);
    int status = docall(L, 1);
    rc = EXIT_OK;
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        rc = EXIT_SCRIPT;
        if (lua_getfield(L, LUA_REGISTRYINDEX, "llmdlua.exit") == LUA_TNUMBER)
            rc = (int)lua_tointeger(L, -1);
        if (msg == NULL)
            msg = "(error object is not a string)";
        /* A usage error is the user's, not the program's: no traceback. */
        int len = rc == EXIT_USAGE ? (int)strcspn(msg, "\n") : (int)strlen(msg);
        /* what the script printed first ("Workspace: ..."), then the error, also when
           both streams go to one pipe (stdout is buffered there, stderr is not) */
        (void)fflush(stdout);
        (void)fprintf(stderr, "llmdlua: %.*s\n", len, msg);
        (void)fflush(stderr);
        if (llmd_interrupted)
            rc = EXIT_INTERRUPT;
    }
    /* Closing runs every __gc: child processes still running are killed and reaped. */
    signal_L = NULL;
    lua_close(L);
    return rc;
}
