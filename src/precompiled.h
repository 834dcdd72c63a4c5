/*
** precompiled.h — llmdlua's own Lua files, compiled to Lua bytecode when the binary was
** built, and the loader that uses them.
**
** make compiles every .lua file under lua/ (scripts/precompile.lua, run by a first build of the
** binary without them) and links the bytecode in beside the text it was compiled from. A
** module or script whose file holds exactly that text, byte for byte, is loaded from the
** bytecode: no parsing, which was most of a process's start (a comparison's reader
** compiled ~80 M instructions of modules before reading a byte). Any other file, one the
** user edited included, is compiled from its text as before: what the file says always
** runs. Either way the chunk is named after the file it was found in ("@path"), with the
** same line numbers, so messages and tracebacks are the same.
*/
#ifndef LLMD_PRECOMPILED_H
#define LLMD_PRECOMPILED_H

#include <stddef.h>

#include "lua.h"

typedef struct Precompiled {
    const char *source; /* the file's text, as it was compiled */
    size_t source_len;
    const char *code; /* string.dump of it, debug information kept */
    size_t code_len;
    /* code[name_at, name_end): the chunk name as dumped (its length, then its bytes),
       replaced by the file's own name when loaded */
    size_t name_at, name_end;
} Precompiled;

/* build/precompiled_data.c (src/precompiled_none.c for the first build: none) */
extern const Precompiled llmd_precompiled[];
extern const size_t llmd_precompiled_count;

/*
** Puts the precompiled searcher in package.searchers, before Lua's own one (which then
** loads whatever it does not: another text, a file it cannot read). Not with
** LLMDLUA_PRECOMPILED=0 in the environment. The package table is on the top of the stack.
*/
void llmd_precompiled_install(lua_State *L);

/* luaL_loadfile(L, path), from the bytecode when the file holds its text (and the
   searcher is installed). */
int llmd_precompiled_loadfile(lua_State *L, const char *path);

/* host.precompiled() -> loads, count: the chunks this process loaded from bytecode so far,
   and how many the binary holds (0 when LLMDLUA_PRECOMPILED=0). */
int llmd_precompiled_stats(lua_State *L);

#endif
