/*
** lutil.c — helpers shared by the native modules: container markers, owned buffers,
** whole-file reads and atomic writes.
*/
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"

#include "modules.h"

#define STRBUF_MT "llmd.strbuf"

volatile sig_atomic_t llmd_interrupted = 0;
volatile sig_atomic_t llmd_signals = 0, llmd_signals_taken = 0;

int llmd_interrupt_pending(lua_State *L)
{
    sig_atomic_t n = llmd_signals;
    if (n == llmd_signals_taken)
        return 0;
    llmd_signals_taken = n;
    lua_sethook(L, NULL, 0, 0);
    return 1;
}

static const char KEYORDER_KEY = 'k';

void llmd_error(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_error(L);
    abort(); /* not reached: lua_error does not return */
}

void llmd_push_marker(lua_State *L, int is_array)
{
    const char *name = is_array ? ARRAY_MT : OBJECT_MT;
    if (luaL_newmetatable(L, name)) { /* mt */
        lua_pushstring(L, is_array ? "array" : "object");
        lua_setfield(L, -2, "__json"); /* mt */
    }
}

int llmd_marker(lua_State *L, int idx)
{
    int kind = 0;
    if (!lua_getmetatable(L, idx))
        return 0;
    luaL_getmetatable(L, ARRAY_MT); /* mt, array_mt */
    if (lua_rawequal(L, -1, -2))
        kind = 1;
    lua_pop(L, 1);
    luaL_getmetatable(L, OBJECT_MT); /* mt, object_mt */
    if (lua_rawequal(L, -1, -2))
        kind = 2;
    lua_pop(L, 2);
    return kind;
}

void llmd_push_keyorder(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &KEYORDER_KEY) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_newtable(L);                                  /* t */
    lua_createtable(L, 0, 1);                         /* t, mt */
    lua_pushliteral(L, "k");                          /* t, mt, "k" */
    lua_setfield(L, -2, "__mode");                    /* t, mt */
    lua_setmetatable(L, -2);                          /* t */
    lua_pushvalue(L, -1);                             /* t, t */
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEYORDER_KEY); /* t */
}

void llmd_strbuf_free(Strbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

static int strbuf_gc(lua_State *L)
{
    llmd_strbuf_free((Strbuf *)luaL_checkudata(L, 1, STRBUF_MT));
    return 0;
}

Strbuf *llmd_strbuf_new(lua_State *L)
{
    Strbuf *b = (Strbuf *)lua_newuserdatauv(L, sizeof *b, 0);
    memset(b, 0, sizeof *b);
    if (luaL_newmetatable(L, STRBUF_MT)) {
        lua_pushcfunction(L, strbuf_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return b;
}

int llmd_strbuf_append(Strbuf *b, const void *s, size_t n)
{
    if (b->cap - b->n < n + 1) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n < n + 1) {
            if (cap > ((size_t)-1) / 2)
                return 0;
            cap *= 2;
        }
        char *p = (char *)realloc(b->p, cap);
        if (p == NULL)
            return 0;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 1;
}

void llmd_strbuf_add(lua_State *L, Strbuf *b, const void *s, size_t n)
{
    if (!llmd_strbuf_append(b, s, n))
        luaL_error(L, "not enough memory");
}

Strbuf *llmd_read_file(lua_State *L, const char *path)
{
    Strbuf *b = llmd_strbuf_new(L);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        luaL_error(L, "%s: cannot open: %s", path, strerror(errno));
        return b; /* not reached: luaL_error does not return */
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        luaL_error(L, "%s: cannot read: is a directory", path);
    }
    size_t want = (st.st_size > 0 ? (size_t)st.st_size : 0) + 1;
    b->p = (char *)malloc(want + 1);
    if (b->p == NULL) {
        close(fd);
        luaL_error(L, "%s: not enough memory to read %zu bytes", path, want);
        return b; /* not reached */
    }
    b->cap = want + 1;
    for (;;) {
        if (b->cap - b->n < 2) {
            char *p = (char *)realloc(b->p, b->cap * 2);
            if (p == NULL) {
                close(fd);
                luaL_error(L, "%s: not enough memory", path);
                return b; /* not reached */
            }
            b->p = p;
            b->cap *= 2;
        }
        ssize_t r = read(fd, b->p + b->n, b->cap - b->n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            luaL_error(L, "%s: cannot read: %s", path, strerror(e));
            return b; /* not reached */
        }
        if (r == 0)
            break;
        b->n += (size_t)r;
    }
    close(fd);
    b->p[b->n] = '\0';
    return b;
}

int llmd_format_double(char *out, size_t size, double d)
{
    /* Any decimal of at most DBL_DIG (15) digits survives a round trip through a normal
       double, so for normal numbers the first of %.15g, %.16g, %.17g that reads back is
       the shortest; subnormals have fewer digits of precision and start from 1. */
    int n = 0;
    for (int prec = fabs(d) < DBL_MIN ? 1 : DBL_DIG; prec <= 17; prec++) {
        n = snprintf(out, size, "%.*g", prec, d);
        if (strtod(out, NULL) == d)
            break;
    }
    if (strpbrk(out, ".eEn") == NULL)
        n += snprintf(out + n, size - (size_t)n, ".0");
    return n;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int llmd_write_atomic(const char *path, const char *data, size_t n)
{
    size_t len = strlen(path);
    char *tmp = (char *)malloc(len + 16);
    if (tmp == NULL)
        return ENOMEM;
    /* The temporary file lives in the target's folder so rename() is atomic. */
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    memcpy(tmp, path, dirlen);
    (void)snprintf(tmp + dirlen, len + 16 - dirlen, ".%s.XXXXXX", path + dirlen);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return e;
    }
    int e = write_all(fd, data, n);
    if (e == 0 && fchmod(fd, 0644) != 0)
        e = errno;
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && e == 0)
        e = errno;
    if (e == 0 && rename(tmp, path) != 0)
        e = errno;
    if (e != 0)
        unlink(tmp);
    free(tmp);
    if (e == 0) {
        /* Make the rename itself durable. */
        char *dir = strndup(path, dirlen ? dirlen : 1);
        if (dir != NULL) {
            if (dirlen == 0)
                dir[0] = '.';
            int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd >= 0) {
                (void)fsync(dfd);
                close(dfd);
            }
            free(dir);
        }
    }
    return e;
}
