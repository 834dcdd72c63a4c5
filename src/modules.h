/*
** modules.h — the native modules the host registers, and the small helpers they share.
*/
#ifndef LLMD_MODULES_H
#define LLMD_MODULES_H

#include <signal.h>
#include <stddef.h>

#include "closest.h"
#include "lua.h"

int luaopen_llmd_json(lua_State *L);
int luaopen_llmd_yaml(lua_State *L);
int luaopen_llmd_proc(lua_State *L);
int luaopen_llmd_http(lua_State *L);
/* libcurl's version and TLS library, or why it cannot be loaded (lhttp.c loads it on
   first use): written to out. */
const char *llmd_curl_version(char *out, size_t size);
int luaopen_llmd_stats(lua_State *L);
int luaopen_llmd_scan(lua_State *L);
int luaopen_llmd_prom(lua_State *L);
int luaopen_lfs_noglobal(lua_State *L);

/*
** Set by the host's SIGINT/SIGTERM handler, read by long-running C loops (proc.run,
** http) so that Ctrl-C stops them and the children they started. The one mutable
** global of the program: a signal handler can reach nothing else.
*/
extern volatile sig_atomic_t llmd_interrupted;
/*
** How many SIGINT/SIGTERM arrived, and how many of them have stopped something: a long
** loop in C (scan, prom, YAML and JSON) stops while they differ, once per signal, so
** that the clean-up after an interruption (recording state) can still encode and write.
*/
extern volatile sig_atomic_t llmd_signals, llmd_signals_taken;
/* 1 when a signal has stopped nothing yet: takes it and removes the host's interrupt
   hook (the caller raises its own "interrupted" error). Else 0. */
int llmd_interrupt_pending(lua_State *L);

/* llmd.stats accumulators; llmd.scan feeds them directly. */
#define STATS_MT "llmd.stats"
struct Stats;
/* The accumulator at idx, or NULL when it is not one. */
struct Stats *llmd_test_stats(lua_State *L, int idx);

/* Decodes JSON text and pushes the value (errors name 'name'), as json.decode does. */
void llmd_json_push(lua_State *L, const char *text, size_t len, const char *name);
/* The same for a value cut from a document at byte offset start: an error names the
   document's byte (a number out of range, the one error validated text can give). */
void llmd_json_push_at(lua_State *L, const char *text, size_t len, const char *name,
                       uint64_t start);

/* Metatable names shared by llmd.json and llmd.yaml to mark decoded containers. */
#define ARRAY_MT "llmd.json.array"
#define OBJECT_MT "llmd.json.object"

/*
** lua_pcall for a callback a native module calls (a scan rule's function, a line
** callback): with the host's message handler (registry LLMD_CALLBACK_MSGH, set by main.c;
** none in the C unit tests), which leaves the error value as it is but records, while the
** callback's stack is whole, the message and traceback the host prints if the module
** raises that error again uncaught.
*/
#define LLMD_CALLBACK_MSGH "llmdlua.callback_msgh"
int llmd_pcall(lua_State *L, int nargs, int nresults);

/* luaL_error that static analysers know does not return (same message, no position). */
#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 2, 3)))
#endif
void llmd_error(lua_State *L, const char *fmt, ...);
/* luaL_error (the caller's line in front), known not to return: a caller's mistake. */
#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 2, 3)))
#endif
void llmd_usage_error(lua_State *L, const char *fmt, ...);

/*
** Options tables (a script author's mistakes, named by the caller's line and the key):
** llmd_closest: the word of list (NULL-terminated) a misspelt word most likely meant (one
** it begins, the shortest of those, else the nearest by edit distance within a third of its
** length, the shorter on a tie), or NULL.
** llmd_check_keys: every key of the table at idx must be one of keys (integer keys too when
** allow_array), else "FN: unknown option 'KEY' (did you mean 'X'?)" at the caller's line.
** llmd_opt_option: the field key of the table at idx as an index into list (def when nil),
** else "FN: option KEY: expected 'a' or 'b', got 'x'".
*/
/* llmd_closest, llmd_edit_distance: closest.h (Lua-free: the scan engine uses them too) */
void llmd_check_keys(lua_State *L, int idx, const char *fn, const char *const keys[],
                     int allow_array);
int llmd_opt_option(lua_State *L, int idx, const char *fn, const char *key, int def,
                    const char *const list[]);
/* Pushes "'a', 'b' or 'c'" for a NULL-terminated list. */
void llmd_push_choices(lua_State *L, const char *const list[]);

/* Pushes the array (is_array != 0) or object marker metatable, creating it once. */
void llmd_push_marker(lua_State *L, int is_array);
/* 1 if the table at idx carries the array marker, 2 if the object marker, else 0. */
int llmd_marker(lua_State *L, int idx);
/* Pushes the weak table that remembers the key order of decoded mappings. */
void llmd_push_keyorder(lua_State *L);

/* A growable byte buffer owned by a userdata, so that raising cannot leak it. */
typedef struct Strbuf {
    char *p;
    size_t n, cap;
} Strbuf;

/* Pushes a new empty Strbuf userdata (with __gc) and returns it. */
Strbuf *llmd_strbuf_new(lua_State *L);
/* Appends without raising (safe inside callbacks of C libraries); 0 when out of memory. */
int llmd_strbuf_append(Strbuf *b, const void *s, size_t n);
/* Appends; raises "not enough memory" on allocation failure. */
void llmd_strbuf_add(lua_State *L, Strbuf *b, const void *s, size_t n);
void llmd_strbuf_free(Strbuf *b);

/*
** Reads a whole file into a malloc'd buffer owned by a new userdata (pushed), NUL
** terminated; gzip (by its magic bytes) is decompressed. Raises "PATH: cannot open:
** <reason>" on failure, "PATH: gzip-compressed and cut short ..." on a bad gzip file.
*/
Strbuf *llmd_read_file(lua_State *L, const char *path);

/* Do the bytes start with gzip's magic (1f 8b)? */
int llmd_is_gzip(const char *p, size_t n);

/*
** The shortest decimal text that reads back (strtod) as exactly d, always with a '.'
** or an exponent so that it reads back as a float ("1.0", not "1"). Finite d only.
** Returns the length written to out (size >= 32).
*/
int llmd_format_double(char *out, size_t size, double d);

/* Writes data to path atomically (temporary file beside it, fsync, rename). 0 or errno. */
int llmd_write_atomic(const char *path, const char *data, size_t n);
/* As llmd_write_atomic, the file's mode given (0644, 0755): 0 or errno. */
int llmd_write_atomic_mode(const char *path, const char *data, size_t n, unsigned mode);
/* fsync of path, a file or a folder (opened read-only): 0 or errno. */
int llmd_fsync_path(const char *path);
/* flock(LOCK_EX|LOCK_NB) on path for the process's life: 0 taken, 1 held (holder), -1 error. */
int llmd_lock_file(const char *path, const char *text, size_t n, char *holder, size_t holderlen,
                   char *err, size_t errlen);
/* Removes lock file path when no process holds it: 1 removed, 0 held (or none), -1 error. */
int llmd_remove_stale_lock(const char *path, char *err, size_t errlen);

/* How llmd_copy_file copies: the first it may try (each falls back to the next). */
enum { LLMD_COPY_REFLINK, LLMD_COPY_RANGE, LLMD_COPY_READ };
/*
** Copies the regular file from into a new file to (created, never overwritten: an
** existing to is an error; anything but a regular file, a FIFO or a device included, is
** refused without waiting on it or reading from it): a reflink (FICLONE) where the
** filesystem shares extents, else copy_file_range in the kernel, else read and write;
** from `first` on. Nothing but the bytes is copied (mode from the umask, fresh
** timestamps). On failure (a short copy, ENOSPC, EIO, ...) to is removed and err names
** both paths: -1; else 0 with *copied the bytes and *how the way used ("reflink",
** "copy_file_range", "read").
*/
int llmd_copy_file(const char *from, const char *to, int first, unsigned long long *copied,
                   const char **how, char *err, size_t errlen);

#endif
