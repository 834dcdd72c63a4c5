/*
** lutil.c — helpers shared by the native modules: container markers, owned buffers,
** whole-file reads, atomic writes and file copies.
*/
#define _GNU_SOURCE /* copy_file_range */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#if defined(__linux__)
#include <linux/fs.h> /* FICLONE */
#include <sys/ioctl.h>
#endif

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

void llmd_push_choices(lua_State *L, const char *const list[])
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; list[i] != NULL; i++) {
        if (i > 0)
            luaL_addstring(&b, list[i + 1] == NULL ? " or " : ", ");
        luaL_addchar(&b, '\'');
        luaL_addstring(&b, list[i]);
        luaL_addchar(&b, '\'');
    }
    luaL_pushresult(&b);
}

void llmd_check_keys(lua_State *L, int idx, const char *fn, const char *const keys[],
                     int allow_array)
{
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) {
            const char *k = lua_tostring(L, -1);
            int known = 0;
            for (size_t i = 0; keys[i] != NULL && !known; i++)
                known = strcmp(k, keys[i]) == 0;
            if (known)
                continue;
            const char *near = llmd_closest(k, keys);
            if (near != NULL)
                luaL_error(L, "%s: unknown option '%s' (did you mean '%s'?)", fn, k, near);
            llmd_push_choices(L, keys);
            luaL_error(L, "%s: unknown option '%s' (expected %s)", fn, k, lua_tostring(L, -1));
        }
        if (allow_array && lua_isinteger(L, -1))
            continue;
        luaL_error(L, "%s: unknown option %s (options are named by strings)", fn,
                   luaL_tolstring(L, -1, NULL));
    }
}

int llmd_opt_option(lua_State *L, int idx, const char *fn, const char *key, int def,
                    const char *const list[])
{
    int t = lua_getfield(L, idx, key);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return def;
    }
    if (t == LUA_TSTRING) {
        const char *v = lua_tostring(L, -1);
        for (int i = 0; list[i] != NULL; i++)
            if (strcmp(v, list[i]) == 0) {
                lua_pop(L, 1);
                return i;
            }
    }
    const char *got =
        t == LUA_TSTRING ? lua_pushfstring(L, "'%s'", lua_tostring(L, -1)) : luaL_typename(L, -1);
    llmd_push_choices(L, list);
    return luaL_error(L, "%s: option %s: expected %s, got %s", fn, key, lua_tostring(L, -1), got);
}

void llmd_usage_error(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    luaL_where(L, 1);
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    lua_error(L);
    abort(); /* not reached: lua_error does not return */
}

int llmd_pcall(lua_State *L, int nargs, int nresults)
{
    int base = lua_gettop(L) - nargs; /* the function's index */
    /* (a slot more than the caller made room for; lua_checkstack does not raise) */
    if (!lua_checkstack(L, 1))
        return lua_pcall(L, nargs, nresults, 0);
    if (lua_getfield(L, LUA_REGISTRYINDEX, LLMD_CALLBACK_MSGH) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return lua_pcall(L, nargs, nresults, 0);
    }
    lua_insert(L, base);
    int rc = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    return rc;
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

int llmd_is_gzip(const char *p, size_t n)
{
    return n >= 2 && (unsigned char)p[0] == 0x1f && (unsigned char)p[1] == 0x8b;
}

/*
** Inflates the gzip data in b (one member or several, as `cat a.gz b.gz` makes) in
** place of it. 0, or -1 with err set (corrupt, cut short, out of memory).
*/
static int gunzip_strbuf(Strbuf *b, const char *path, char *err, size_t errlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        (void)snprintf(err, errlen, "%s: gzip-compressed; cannot start zlib", path);
        return -1;
    }
    size_t cap = b->n * 2 + 4096, n = 0;
    char *out = (char *)malloc(cap);
    z.next_in = (Bytef *)b->p;
    int rc = Z_OK, nomem = out == NULL;
    size_t left = b->n;
    while (!nomem) {
        if (cap - n < 2) {
            char *grown = cap > ((size_t)-1) / 2 ? NULL : (char *)realloc(out, cap * 2);
            if (grown == NULL) {
                nomem = 1;
                break;
            }
            out = grown;
            cap *= 2;
        }
        uInt in_now = left > UINT_MAX ? UINT_MAX : (uInt)left;
        uInt out_now = cap - n - 1 > UINT_MAX ? UINT_MAX : (uInt)(cap - n - 1);
        z.avail_in = in_now;
        z.next_out = (Bytef *)out + n;
        z.avail_out = out_now;
        rc = inflate(&z, Z_NO_FLUSH);
        left -= in_now - z.avail_in;
        n += out_now - z.avail_out;
        if (rc == Z_STREAM_END) {
            if (left == 0)
                break;
            rc = inflateReset(&z); /* the next member */
        }
        if (rc == Z_BUF_ERROR && left == 0 && z.avail_out > 0)
            break; /* input ran out inside a member: cut short */
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            break;
    }
    inflateEnd(&z);
    if (nomem) {
        free(out);
        (void)snprintf(err, errlen, "%s: gzip-compressed; not enough memory to decompress it",
                       path);
        return -1;
    }
    if (rc != Z_STREAM_END) {
        free(out);
        (void)snprintf(err, errlen, "%s: gzip-compressed and %s (byte %zu of %zu)", path,
                       rc == Z_BUF_ERROR || rc == Z_OK ? "cut short (truncated?)"
                                                       : "corrupt: cannot decompress",
                       b->n - left, b->n);
        return -1;
    }
    out[n] = '\0';
    free(b->p);
    b->p = out;
    b->n = n;
    b->cap = cap;
    return 0;
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
    /* gzip, by its magic bytes whatever the name says: decompressed, as llmd.scan does */
    if (llmd_is_gzip(b->p, b->n)) {
        char err[4096 + 128];
        if (gunzip_strbuf(b, path, err, sizeof err) != 0)
            luaL_error(L, "%s", err);
    }
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

/*
** The lock files this process holds (llmd_lock_file), removed when it exits (exit(), a return
** from main: every normal end, an error's and a Ctrl-C's too), each only while the path still
** names the file this process locked: a lock file it did not take is never removed. A crash
** or kill -9 leaves the file, which then holds no lock (the kernel let it go).
*/
#define HELD_MAX 16
static struct {
    char *path;
    int fd;
} held[HELD_MAX];
static int held_n;

/* flock(fd, LOCK_EX | LOCK_NB), again where a signal interrupted it: 0 taken, else -1 with
   errno (EWOULDBLOCK: another process holds it); llmd_lock_file's and
   llmd_remove_stale_lock's one way to take a lock. */
static int lock_now(int fd)
{
    int r;
    do {
        r = flock(fd, LOCK_EX | LOCK_NB);
    } while (r != 0 && errno == EINTR);
    return r;
}

/* Whether the descriptor fd is the file path names now (same device and inode). */
static int same_file(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

static void remove_held(void)
{
    for (int i = 0; i < held_n; i++) {
        /* (unlinked while still locked: a process that opened it meanwhile finds, once it
           gets the lock, that the path no longer names its file, and opens the path again) */
        if (same_file(held[i].fd, held[i].path))
            (void)unlink(held[i].path);
    }
}

static void remember_held(const char *path, int fd)
{
    static int registered;
    if (held_n >= HELD_MAX)
        return; /* (the file stays, as before: it holds no lock once this process ends) */
    char *copy = strdup(path);
    if (copy == NULL)
        return;
    if (!registered) {
        if (atexit(remove_held) != 0) {
            free(copy);
            return;
        }
        registered = 1;
    }
    held[held_n].path = copy;
    held[held_n].fd = fd;
    held_n++;
}

/*
** An exclusive lock on the file path for the rest of this process's life: flock(LOCK_EX |
** LOCK_NB) on a descriptor opened O_CLOEXEC and never closed, so the kernel lets it go when
** the process ends, however it ends (never a stale lock), and no child started by exec
** holds it. Taken, the file then holds text (who holds it), and it is removed when this
** process exits (remove_held). Returns 0 taken, 1 held by another process (holder: what the
** file says, maybe "" while its holder is starting), -1 an error (err says it).
*/
int llmd_lock_file(const char *path, const char *text, size_t n, char *holder, size_t holderlen,
                   char *err, size_t errlen)
{
    /* A folder is locked itself (its descriptor, read-only): nothing is written into it, and
       the holder says nothing (""). An output folder of the user's gets no lock file. */
    struct stat st;
    int dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    int fd;
    for (int tries = 0;; tries++) {
        /* (a lock file is never followed through a symbolic link: taking it truncates the
           file and writes the holder in, so a link placed where the lock goes - by another
           user, in a shared folder - would empty whatever file it named, with this
           process's rights) */
        fd = dir ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                 : open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd < 0) {
            int e = errno;
            struct stat ls;
            if (!dir && e == ELOOP && lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode))
                (void)snprintf(err, errlen,
                               "%s: cannot open: it is a symbolic link (a lock file is never "
                               "followed: remove it if it is yours)",
                               path);
            else
                (void)snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
            return -1;
        }
        if (lock_now(fd) != 0) {
            int e = errno;
            if (e == EWOULDBLOCK) {
                size_t got = 0;
                while (!dir && holderlen > 0 && got < holderlen - 1) {
                    ssize_t rd = pread(fd, holder + got, holderlen - 1 - got, (off_t)got);
                    if (rd < 0 && errno == EINTR)
                        continue;
                    if (rd <= 0)
                        break;
                    got += (size_t)rd;
                }
                if (holderlen > 0)
                    holder[got] = '\0';
                close(fd);
                return 1;
            }
            (void)snprintf(err, errlen, "%s: cannot lock: %s", path, strerror(e));
            close(fd);
            return -1;
        }
        /* taken, but maybe on a file its last holder removed as it ended (opened before that,
           locked after): not the path's file any more, so the path is opened again */
        if (dir || same_file(fd, path) || tries >= 100)
            break;
        close(fd);
    }
    if (dir)
        return 0; /* (fd stays open: the lock lasts as long as the process) */
    int e = ftruncate(fd, 0) != 0 ? errno : 0;
    if (e == 0)
        e = write_all(fd, text, n);
    if (e != 0) {
        (void)snprintf(err, errlen, "%s: cannot write: %s", path, strerror(e));
        close(fd);
        return -1;
    }
    remember_held(path, fd);
    return 0; /* (fd stays open: the lock lasts as long as the process) */
}

/*
** Removes the lock file path when no process holds its lock (one a kill -9 or a crash left:
** only its holder's normal end removes it, so those of runs never run again piled up). The
** lock is taken first (flock, LOCK_NB) and the file removed only while the path still names
** the file locked, then let go: a process that opened it meanwhile and locks it after finds
** the path no longer names its file, and opens the path again (llmd_lock_file), as after a
** holder's own removal. A symbolic link is never followed (nor removed). Returns 1 removed,
** 0 held by a live process (or not a lock file of this kind: a link, gone meanwhile), -1 an
** error (err says it).
*/
int llmd_remove_stale_lock(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT || e == ELOOP)
            return 0;
        (void)snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;
    }
    if (lock_now(fd) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return 0;
        (void)snprintf(err, errlen, "%s: cannot lock: %s", path, strerror(e));
        return -1;
    }
    int removed = 0;
    if (same_file(fd, path)) {
        if (unlink(path) == 0)
            removed = 1;
        else if (errno != ENOENT) {
            int e = errno;
            (void)snprintf(err, errlen, "%s: cannot remove: %s", path, strerror(e));
            close(fd);
            return -1;
        }
    }
    close(fd); /* (lets the lock go) */
    return removed;
}

int llmd_write_atomic(const char *path, const char *data, size_t n)
{
    return llmd_write_atomic_mode(path, data, n, 0644);
}

/* Opens path (a file or a folder) read-only and fsyncs it: 0 or errno. */
int llmd_fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = fsync(fd) != 0 ? errno : 0;
    if (close(fd) != 0 && e == 0)
        e = errno;
    return e;
}

int llmd_write_atomic_mode(const char *path, const char *data, size_t n, unsigned mode)
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
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return e;
    }
    int e = write_all(fd, data, n);
    if (e == 0 && fchmod(fd, (mode_t)mode) != 0)
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

/* Errors after which copy_file_range is not for these files (old kernels, other
   filesystems, special files): the plain copy goes on from where it stopped. */
static int range_unsupported(int e)
{
    return e == EXDEV || e == ENOSYS || e == EINVAL || e == EOPNOTSUPP || e == ENOTSUP ||
           e == EBADF || e == EPERM || e == ETXTBSY;
}

/* Copies in to out by read and write from their current offsets: 0 or errno; *n grows
   by what was written. *side: 'r' when reading failed, else 'w'. */
static int copy_plain(int in, int out, unsigned long long *n, char *side)
{
    size_t cap = 1u << 20;
    /* Each read lands at its file offset's place in a 64-byte line (the buffer 64-byte
       aligned, the bytes at the offset's residue in it), and the write goes out from
       there: the kernel copies a read from the page cache, and a write into it, at up to
       1.5x the cost when the two sides sit a few bytes apart in their lines (malloc's
       large blocks start 16 bytes into a page; see src/scan.c). Measured: a cached
       100 MB file copied by read and write, CPU -7..-25 % in 7 of 7 paired runs. */
    void *b0 = NULL;
    char *buf = posix_memalign(&b0, 64, cap + 64) == 0 ? (char *)b0 : NULL;
    if (buf == NULL)
        return ENOMEM;
    off_t at = lseek(in, 0, SEEK_CUR); /* (past what copy_file_range copied: any byte) */
    int e = 0;
    for (;;) {
        size_t lead = at >= 0 ? (size_t)(at & 63) : 0;
        ssize_t r = read(in, buf + lead, cap);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            e = errno;
            *side = 'r';
            break;
        }
        if (r == 0)
            break;
        if (at >= 0)
            at += (off_t)r;
        e = write_all(out, buf + lead, (size_t)r);
        if (e != 0) {
            *side = 'w';
            break;
        }
        *n += (unsigned long long)r;
        if (llmd_signals != llmd_signals_taken) {
            e = EINTR;
            break;
        }
    }
    free(buf);
    return e;
}

int llmd_copy_file(const char *from, const char *to, int first, unsigned long long *copied,
                   const char **how, char *err, size_t errlen)
{
    *copied = 0;
    *how = "read";
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer (forever, for a results
       file nobody writes), a device may wait for its hardware; the open returns at once
       and the fstat below refuses anything but a regular file before a byte is read */
    int in = open(from, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (in < 0) {
        (void)snprintf(err, errlen, "%s: cannot read (copying to %s): %s", from, to,
                       strerror(errno));
        return -1;
    }
    struct stat st;
    int bad = fstat(in, &st) != 0 ? errno : 0;
    if (bad != 0 || !S_ISREG(st.st_mode)) {
        (void)snprintf(err, errlen, "%s: cannot copy to %s: %s", from, to,
                       bad != 0               ? strerror(bad)
                       : S_ISDIR(st.st_mode)  ? "is a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe), not a regular file"
                       : S_ISCHR(st.st_mode)  ? "a character device, not a regular file"
                       : S_ISBLK(st.st_mode)  ? "a block device, not a regular file"
                       : S_ISSOCK(st.st_mode) ? "a socket, not a regular file"
                                              : "not a regular file");
        close(in);
        return -1;
    }
    /* a regular file: blocking reads again (O_NONBLOCK means nothing to it on Linux, but
       the copy must not depend on that) */
    int fl = fcntl(in, F_GETFL);
    if (fl < 0 || fcntl(in, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        (void)snprintf(err, errlen, "%s: cannot read (copying to %s): %s", from, to,
                       strerror(errno));
        close(in);
        return -1;
    }
    /* exclusively: an existing file (or a link planted there) is never written through */
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (out < 0) {
        (void)snprintf(err, errlen, "%s: cannot create (copying %s): %s", to, from,
                       strerror(errno));
        close(in);
        return -1;
    }
    int e = 0;
    char side = 'w';
    int done = 0;
#if defined(__linux__) && defined(FICLONE)
    if (first <= LLMD_COPY_REFLINK && st.st_size > 0 && ioctl(out, FICLONE, in) == 0) {
        *copied = (unsigned long long)st.st_size;
        *how = "reflink";
        done = 1;
    }
#endif
#if defined(__linux__)
    if (!done && first <= LLMD_COPY_RANGE) {
        *how = "copy_file_range";
        for (;;) {
            ssize_t r = copy_file_range(in, NULL, out, NULL, (size_t)1 << 26, 0);
            if (r < 0 && errno == EINTR && llmd_signals == llmd_signals_taken)
                continue;
            if (r < 0 && range_unsupported(errno)) {
                *how = *copied > 0 ? "copy_file_range" : "read";
                break; /* the plain copy goes on from the offsets reached */
            }
            if (r < 0) {
                e = errno;
                break;
            }
            if (r == 0) { /* the end, or a file whose size the filesystem does not know
                             (/proc): the plain copy reads on to make sure */
                break;
            }
            *copied += (unsigned long long)r;
            if (llmd_signals != llmd_signals_taken) {
                e = EINTR;
                break;
            }
        }
    }
#endif
    if (!done && e == 0) {
        unsigned long long before = *copied;
        e = copy_plain(in, out, copied, &side);
        if (*copied > before && strcmp(*how, "copy_file_range") != 0)
            *how = "read";
    }
    if (!done && e == 0 && *copied < (unsigned long long)st.st_size) {
        (void)snprintf(err, errlen,
                       "%s: short copy to %s: %llu of %lld bytes (the file shrank while it was "
                       "copied)",
                       from, to, *copied, (long long)st.st_size);
        e = -1;
    }
    if (close(out) != 0 && e == 0)
        e = errno;
    close(in);
    if (e == 0)
        return 0;
    if (e > 0) {
        if (side == 'r')
            (void)snprintf(err, errlen, "%s: cannot read (copying to %s): %s", from, to,
                           e == EINTR ? "interrupted" : strerror(e));
        else
            (void)snprintf(err, errlen, "%s: cannot write (copying %s): %s", to, from,
                           e == EINTR ? "interrupted" : strerror(e));
    }
    unlink(to); /* created here: never a partial copy left under its name */
    return -1;
}
