/*
** precompiled.c — loading llmdlua's own Lua files from the bytecode built into the binary
** (precompiled.h), when the file found holds the very text it was compiled from.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lauxlib.h"
#include "lua.h"

#include "precompiled.h"

/* Registry key (by address): how many chunks were loaded from bytecode; absent when the
   searcher is not installed (LLMDLUA_PRECOMPILED=0). */
static const char LOADS_KEY = 'p';

/*
** The entry whose text the file at path holds, byte for byte, or NULL: no entry of its
** size, another text, or a file that cannot be read (the caller then loads it as Lua
** would, and says why if it cannot). Plain C: nothing raises while buf is held.
*/
static const Precompiled *match(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    struct stat st;
    const Precompiled *found = NULL;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        (void)fclose(f);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    size_t i = 0;
    while (i < llmd_precompiled_count && llmd_precompiled[i].source_len != size)
        i++;
    if (i == llmd_precompiled_count) { /* the usual answer for an edited file: no read */
        (void)fclose(f);
        return NULL;
    }
    char *buf = malloc(size + 1);
    /* size + 1 asked, size read: the file ends where stat said (it did not grow) */
    if (buf != NULL && fread(buf, 1, size + 1, f) == size) {
        for (; i < llmd_precompiled_count && found == NULL; i++) {
            const Precompiled *p = &llmd_precompiled[i];
            if (p->source_len == size && memcmp(p->source, buf, size) == 0)
                found = p;
        }
    }
    free(buf);
    (void)fclose(f);
    return found;
}

/* lua_load's reader over the pieces of a chunk: the dump's head, the new name, the rest. */
typedef struct Pieces {
    const char *p[3];
    size_t n[3];
    int i;
} Pieces;

static const char *read_pieces(lua_State *L, void *ud, size_t *size)
{
    Pieces *pc = (Pieces *)ud;
    (void)L;
    while (pc->i < 3) {
        int i = pc->i++;
        if (pc->n[i] > 0) {
            *size = pc->n[i];
            return pc->p[i];
        }
    }
    *size = 0;
    return NULL;
}

/*
** Pushes the chunk p, named chunkname (as lua_load names a text chunk): its dump with the
** name it was dumped under replaced, in the dump's own encoding (the length + 1, 7 bits a
** byte, most significant first, the last byte's top bit set; then the bytes). Returns
** lua_load's status (LUA_OK, or an error message pushed).
*/
static int load_code(lua_State *L, const Precompiled *p, const char *chunkname)
{
    size_t len = strlen(chunkname);
    unsigned char size[16];
    int n = 0;
    size_t x = len + 1;
    do {
        size[sizeof size - ++n] = (unsigned char)(x & 0x7f);
        x >>= 7;
    } while (x != 0);
    size[sizeof size - 1] |= 0x80;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addlstring(&b, (const char *)size + sizeof size - n, (size_t)n);
    luaL_addlstring(&b, chunkname, len);
    luaL_pushresult(&b); /* name */
    size_t name_len;
    const char *name = lua_tolstring(L, -1, &name_len);
    Pieces pc = {
        {p->code,    name,     p->code + p->name_end    },
        {p->name_at, name_len, p->code_len - p->name_end},
        0
    };
    int rc = lua_load(L, read_pieces, &pc, chunkname, "b"); /* name, chunk */
    lua_remove(L, -2);
    if (rc == LUA_OK) {
        lua_rawgetp(L, LUA_REGISTRYINDEX, &LOADS_KEY);
        lua_Integer loads = lua_tointeger(L, -1);
        lua_pop(L, 1);
        lua_pushinteger(L, loads + 1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &LOADS_KEY);
    }
    return rc;
}

/*
** Pushes the file at path's chunk from bytecode and returns 1, or returns 0 (nothing
** pushed) when it has no precompiled text or the bytecode does not load (then Lua's own
** loading does it, from the text).
*/
static int load_precompiled(lua_State *L, const char *path)
{
    const Precompiled *p = match(path);
    if (p == NULL)
        return 0;
    lua_pushfstring(L, "@%s", path);
    int rc = load_code(L, p, lua_tostring(L, -1)); /* "@path", chunk or message */
    lua_remove(L, -2);
    if (rc != LUA_OK) {
        lua_pop(L, 1);
        return 0;
    }
    return 1;
}

/*
** package.searchers entry: the module's file as package.searchpath finds it along
** package.path (Lua's own searcher's file), from bytecode: its chunk and the file name,
** as Lua's searcher returns them. Nothing otherwise: Lua's searcher, next, loads the
** text or says why the module is not found (this one adds nothing to that message).
*/
static int searcher(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_getfield(L, lua_upvalueindex(1), "searchpath"); /* searchpath */
    if (!lua_isfunction(L, -1))
        return 0;
    lua_pushstring(L, name);
    lua_getfield(L, lua_upvalueindex(1), "path"); /* searchpath, name, path */
    if (!lua_isstring(L, -1))
        return 0;
    lua_call(L, 2, 1); /* filename or nil */
    const char *file = lua_tostring(L, -1);
    if (file == NULL || !load_precompiled(L, file))
        return 0;
    lua_insert(L, -2); /* chunk, filename */
    return 2;
}

void llmd_precompiled_install(lua_State *L)
{
    const char *off = getenv("LLMDLUA_PRECOMPILED");
    if (off != NULL && strcmp(off, "0") == 0)
        return;
    lua_pushinteger(L, 0);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &LOADS_KEY);
    lua_getfield(L, -1, "searchers"); /* package, searchers */
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = n; i >= 2; i--) { /* make room at 2: after the preloads */
        lua_rawgeti(L, -1, i);
        lua_rawseti(L, -2, i + 1);
    }
    lua_pushvalue(L, -2); /* package, searchers, package */
    lua_pushcclosure(L, searcher, 1);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 1); /* package */
}

int llmd_precompiled_loadfile(lua_State *L, const char *path)
{
    int on = lua_rawgetp(L, LUA_REGISTRYINDEX, &LOADS_KEY) != LUA_TNIL;
    lua_pop(L, 1);
    if (on && path != NULL && load_precompiled(L, path))
        return LUA_OK;
    return luaL_loadfile(L, path);
}

int llmd_precompiled_stats(lua_State *L)
{
    int on = lua_rawgetp(L, LUA_REGISTRYINDEX, &LOADS_KEY) != LUA_TNIL; /* loads */
    if (!on) {
        lua_pop(L, 1);
        lua_pushinteger(L, 0);
    }
    lua_pushinteger(L, on ? (lua_Integer)llmd_precompiled_count : 0);
    return 2;
}
