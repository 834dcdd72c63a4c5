/*
** scan.c — the streaming scanner declared in scan.h.
**
** The JSON engine keeps, for every open depth, the set of matchers (rules and
** record fields) whose path prefix matches the path down to there, as a 64-bit mask.
** A value whose mask is empty costs one test; a matcher whose whole path matched
** acts on the value: a number goes into its accumulator, an array into its reducer,
** a record starts collecting its fields, a container is captured as raw text.
*/
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "closest.h"
#include "scan.h"
#include "shown.h"

#define WINDOW (4u << 20) /* the initial window; it grows for longer tokens */
#define READ_CHUNK (128u << 10)

/* ---- paths ------------------------------------------------------------------- */

void scan_path_free(ScanPath *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->steps[i].key);
    free(p->steps);
    p->steps = NULL;
    p->n = 0;
}

int scan_path_column(const char *name, ScanPath *out)
{
    memset(out, 0, sizeof *out);
    out->last_at = -1;
    out->steps = calloc(1, sizeof *out->steps);
    if (out->steps == NULL || (out->steps[0].key = strdup(name)) == NULL) {
        free(out->steps);
        out->steps = NULL;
        return -1;
    }
    out->steps[0].klen = strlen(name);
    out->n = 1;
    return 0;
}

#if defined(__GNUC__)
static int path_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#endif

static int path_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(err, errlen, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    return -1;
}

static int push_step(ScanPath *p, int kind, const char *key, size_t klen, int64_t index)
{
    ScanStep *st = (ScanStep *)realloc(p->steps, (size_t)(p->n + 1) * sizeof *st);
    if (st == NULL)
        return -1;
    p->steps = st;
    ScanStep *s = &st[p->n];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->index = index;
    if (key != NULL) {
        s->key = (char *)malloc(klen + 1);
        if (s->key == NULL)
            return -1;
        memcpy(s->key, key, klen);
        s->key[klen] = '\0';
        s->klen = klen;
    }
    p->n++;
    return 0;
}

int scan_path_parse(const char *text, int relative, ScanPath *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->last_at = -1;
    const char *t = text;
    if (relative && *t == '#') {
        out->length_of = 1;
        t++;
    }
    if (!relative) {
        if (*t != '$')
            return path_error(err, errlen, "path '%s' must start with '$'", text);
        t++;
    } else if (*t != '[' && *t != '\0') {
        /* a relative path starts with a bare member name */
        size_t n = strcspn(t, ".[");
        if (n == 0 || push_step(out, STEP_KEY, t, n, 0) != 0)
            goto bad;
        t += n;
    }
    while (*t) {
        if (*t == '.') {
            t++;
            if (*t == '*') {
                if (push_step(out, STEP_ANY_KEY, NULL, 0, 0) != 0)
                    goto oom;
                t++;
                continue;
            }
            size_t n = strcspn(t, ".[");
            if (n == 0)
                goto bad;
            if (push_step(out, STEP_KEY, t, n, 0) != 0)
                goto oom;
            t += n;
        } else if (*t == '[') {
            t++;
            if (t[0] == '*' && t[1] == ']') {
                if (push_step(out, STEP_ANY_INDEX, NULL, 0, 0) != 0)
                    goto oom;
                t += 2;
            } else if (t[0] == '-') {
                if (t[1] != '1' || t[2] != ']') {
                    scan_path_free(out);
                    return path_error(err, errlen,
                                      "path '%s': only [-1] (the last element) counts from the end",
                                      text);
                }
                if (out->last_at >= 0) {
                    scan_path_free(out);
                    return path_error(err, errlen, "path '%s': at most one [-1]", text);
                }
                out->last_at = out->n;
                if (push_step(out, STEP_LAST, NULL, 0, 0) != 0)
                    goto oom;
                t += 3;
            } else if (*t >= '0' && *t <= '9') {
                int64_t v = 0;
                while (*t >= '0' && *t <= '9') {
                    if (v > INT64_MAX / 10 - 10)
                        goto bad;
                    v = v * 10 + (*t++ - '0');
                }
                if (*t++ != ']')
                    goto bad;
                if (push_step(out, STEP_INDEX, NULL, 0, v) != 0)
                    goto oom;
            } else if (*t == '"' || *t == '\'') {
                char q = *t++;
                size_t cap = strlen(t) + 1, n = 0;
                char *key = (char *)malloc(cap);
                if (key == NULL)
                    goto oom;
                while (*t && *t != q) {
                    if (*t == '\\' && (t[1] == q || t[1] == '\\'))
                        t++;
                    key[n++] = *t++;
                }
                if (*t != q || t[1] != ']') {
                    free(key);
                    goto bad;
                }
                t += 2;
                int rc = push_step(out, STEP_KEY, key, n, 0);
                free(key);
                if (rc != 0)
                    goto oom;
            } else {
                goto bad;
            }
        } else {
            goto bad;
        }
    }
    if (out->length_of && out->n == 0)
        goto bad;
    return 0;
bad:
    scan_path_free(out);
    return path_error(
        err, errlen,
        "bad path '%s' at position %d (expected .key, [\"key\"], .*, [N], [*] or [-1])", text,
        (int)(t - text) + 1);
oom:
    scan_path_free(out);
    return path_error(err, errlen, "out of memory");
}

/* ---- input ------------------------------------------------------------------- */

void scan_init(Scanner *s, const char *name, int format)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->format = format;
    s->fd = -1;
    s->sep = ',';
    json_parser_init(&s->p);
    s->p.multi = format == SCAN_JSONL;
}

#if defined(__GNUC__)
static int fail(Scanner *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif

static int fail(Scanner *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(s->err, sizeof s->err, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    return -1;
}

/*
** The window of a large file is a mapping of its own in transparent huge pages (where
** the kernel gives them, THP "madvise" or "always"): its first 2 MiB are one fault,
** not one a 4 KiB page the reads first write (about 30 us each in this project's VMs).
** And it is never malloc's: glibc raises its mmap threshold to the size of a mapped
** block freed, so a freed 4 MiB window sent every later block under 4 MiB (a scan's
** samples before they reach stats' own mapping at 2 MiB) to the heap, grown by copies
** into new pages (make bench's 200 MB CSV of full-precision floats read in two parts,
** whose cuts are found in a window freed first: 2437 faults, 2020 without it). Small
** inputs (a folder of scrapes) keep malloc's window: a huge page cleared for each small
** file would cost more than the pages it saves.
*/
#define WINDOW_MAP_FROM (16u << 20) /* inputs at least this long: a mapped window */

static void release_window(Scanner *s)
{
    if (s->own_buf == 2)
        (void)munmap(s->buf - s->lead, s->cap + s->lead);
    else if (s->own_buf)
        free(s->buf - s->lead);
    s->buf = NULL;
    s->own_buf = 0;
    s->lead = 0;
}

/*
** Where in its allocation (64-byte aligned) the window starts when it holds len bytes
** before the next read: a read of a regular file lands at fgot's place in a 64-byte
** line. The kernel copies a read from the page cache at about a third of the speed
** when its destination sits 1-15 bytes off its source's place in a line (measured on
** this project's AMD VM: 128 KiB reads of a cached 500 MB file, perf cpu-clock in
** copy_to_iter 424 samples aligned, ~1,800 at 1, 3, 7 or 8 bytes off, 660 at 16); the
** kept bytes of a cut token moved to the window's start left it a few bytes off at
** nearly every read, a third of make bench's ip_tokens CPU.
*/
static size_t lead_for(const Scanner *s, size_t len)
{
    if (s->gz != NULL || s->fp != NULL || s->fsize == 0)
        return 0; /* (no page cache read to line up with) */
    return (size_t)((s->fgot - len) & 63);
}

static int alloc_window(Scanner *s, size_t cap)
{
    void *b = NULL;
    int own = 1;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (s->fsize >= WINDOW_MAP_FROM && s->gz == NULL) {
        b = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED)
            b = NULL;
        else {
            (void)madvise(b, cap, MADV_HUGEPAGE); /* only advice: a kernel without it ignores it */
            own = 2;
        }
    }
#endif
    if (b == NULL && posix_memalign(&b, 4096, cap) != 0)
        return fail(s, "%s: out of memory for a %zu-byte window", s->name, cap);
    size_t lead = lead_for(s, s->len);
    if (s->len > 0)
        memcpy((char *)b + lead, s->buf, s->len);
    release_window(s);
    s->buf = (char *)b + lead;
    s->cap = cap - lead;
    s->own_buf = own;
    s->lead = lead;
    if (cap > s->window_max)
        s->window_max = cap;
    return 0;
}

int scan_open_path(Scanner *s, const char *path)
{
    if (strcmp(path, "-") == 0) {
        s->fd = dup(0);
    } else {
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (s->fd < 0)
        return fail(s, "%s: cannot open: %s", path, strerror(errno));
    /* gzip, by its magic bytes, whatever the name says; standard input and pipes cannot
       be peeked at, so zlib reads them: it decompresses gzip and passes anything else
       through as it is (its "transparent" reading) */
    unsigned char magic[2];
    int is_stdin = strcmp(path, "-") == 0;
    ssize_t m = is_stdin ? -1 : pread(s->fd, magic, 2, 0);
    int unseekable = is_stdin || (m < 0 && errno == ESPIPE);
    if ((m == 2 && magic[0] == 0x1f && magic[1] == 0x8b) || unseekable) {
        int fd2 = dup(s->fd);
        gzFile gz = fd2 >= 0 ? gzdopen(fd2, "rb") : NULL;
        if (gz == NULL) {
            if (fd2 >= 0)
                close(fd2);
            return fail(s, "%s: cannot open as gzip", path);
        }
        gzbuffer(gz, 1u << 18);
        s->gz = gz;
        return 0;
    }
    /* a regular file: read as long as it is now, with pread() from fgot on (else, as
       any other, with read() to its end) */
    struct stat st;
    if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size <= SIZE_MAX) {
        s->fsize = (uint64_t)st.st_size;
        (void)posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    return 0;
}

static int check_interrupt(Scanner *s)
{
    if (s->interrupted != NULL && *s->interrupted != s->interrupt_base)
        return fail(s, "%s: interrupted", s->name);
    return 0;
}

void scan_open_file(Scanner *s, FILE *fp)
{
    s->fp = fp;
}

void scan_open_mem(Scanner *s, const char *text, size_t len)
{
    s->mem = text;
    s->memlen = len;
}

/* The error of a regular file that ended before its size when opened: byte at is the
   first one gone. -1. */
static int shrank(Scanner *s, uint64_t at)
{
    return fail(s, "%s: the file shrank while it was being read (byte %llu is gone): no result",
                s->name, (unsigned long long)at);
}

/* Reads more input after buf[0..len). Returns bytes read, 0 at the end, -1 on error. */
static ssize_t read_more(Scanner *s, char *into, size_t room)
{
    if (s->gz != NULL) {
        int r = gzread((gzFile)s->gz, into, (unsigned)(room > INT32_MAX ? INT32_MAX : room));
        int code = Z_OK;
        const char *msg = gzerror((gzFile)s->gz, &code);
        /* a cut gzip file ends in a plain 0 and Z_BUF_ERROR: the data read so far is not
           the whole file, however complete its last line looks */
        if (msg != NULL && strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ": ") != NULL)
            msg = strstr(msg, ": ") + 2; /* zlib names the descriptor; we name the file */
        if (r < 0 || (code != Z_OK && code != Z_STREAM_END))
            return fail(s, "%s: cannot decompress: %s%s", s->name, msg ? msg : "zlib error",
                        code == Z_BUF_ERROR ? " (the file is truncated)" : "");
        return r;
    }
    if (s->fp != NULL) {
        size_t r = fread(into, 1, room, s->fp);
        if (r == 0 && ferror(s->fp))
            return fail(s, "%s: cannot read: %s", s->name, strerror(errno));
        return (ssize_t)r;
    }
    if (s->fsize > 0) { /* a regular file: up to its size when opened (a part: its end) */
        if (s->fgot >= s->fsize)
            return 0;
        if (room > s->fsize - s->fgot)
            room = (size_t)(s->fsize - s->fgot);
    }
    for (;;) {
        ssize_t r =
            s->fsize > 0 ? pread(s->fd, into, room, (off_t)s->fgot) : read(s->fd, into, room);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return fail(s, "%s: cannot read: %s", s->name, strerror(errno));
        if (r == 0 && s->fgot < s->fsize)
            return shrank(s, s->fgot);
        s->fgot += (uint64_t)r;
        return r;
    }
}

/*
** A large input's accumulators that will be large, moved into their own huge-page
** mapping early. Samples below 2 MiB are malloc'd (stats.c): a large column's first
** 1-2 MiB of them were 4 KiB pages faulted one at a time as written, 200-260 faults a
** column (about 30 us each in this project's VMs: 7 ms a column, 10-15 % of reading a
** 200 MB CSV of full-precision floats; twice as many read in parts, each part's column
** its own). So once SIZE_HINT_AT bytes of a file of WINDOW_MAP_FROM bytes or more are
** read, each rule's exact accumulator whose pace so far comes to SIZE_HINT_SAMPLES
** samples or more over the whole input is given room for 2 MiB of them (stats_reserve:
** the same samples, the same results; a mapping's pages are faulted as written, 2 MiB
** at a time, so resident memory grows by at most one huge page past the samples, as it
** does past 2 MiB anyway). A guess that proves wrong (the values all near the start;
** an accumulator's samples from before the scan count in its pace) holds at most 2 MiB
** an accumulator. That CSV: 2020 faults in two parts, 1201 in one, now 498 and 465.
** An accumulator with no sample yet at that point (its values after another array's, as
** `vllm bench serve`'s itls after its ttfts: 2 MB of them in a 500 MB file) is judged
** the same way from where its samples begin: SIZE_HINT_AT bytes later, on its pace
** there. Judged only at the first point, the ITLs' first 1 MiB were 256 faults of 4 KiB
** (about 40 us each here: 10 ms, 4 % of reading that file) and a copy.
*/
#define SIZE_HINT_AT (256u << 10)
#define SIZE_HINT_SAMPLES ((uint64_t)1 << 19) /* 4 MiB of samples: a mapping's 2 MiB is half */
#define SIZE_HINT_ROOM (((size_t)2 << 20) / sizeof(double))

/* rules[m]'s exact accumulator, or NULL (size_hint's) */
static Stats *hint_stats(const Scanner *s, int m)
{
    Stats *st = s->rules[m].sink == SINK_STATS ? s->rules[m].stats : NULL;
    return st == NULL || st->sketch ? NULL : st;
}

/* Room for 2 MiB of samples when n samples in read bytes come to SIZE_HINT_SAMPLES or
   more over all bytes: n all / read >= SIZE_HINT_SAMPLES, without overflow (n, read <
   2^40 here) */
static void hint_room(Stats *st, uint64_t n, uint64_t read, uint64_t all)
{
    if ((double)n * (double)all >= (double)SIZE_HINT_SAMPLES * (double)read)
        (void)stats_reserve(st, SIZE_HINT_ROOM); /* (no room: it grows as before) */
}

static void size_hint(Scanner *s)
{
    if (s->fsize < WINDOW_MAP_FROM || s->gz != NULL)
        return;
    if (s->hint_at == 0) { /* the first read: from here */
        s->hint_from = s->base;
        s->hint_at = s->base + SIZE_HINT_AT;
        return;
    }
    if (s->hint_at != UINT64_MAX) {
        if (s->base < s->hint_at)
            return;
        s->hint_at = UINT64_MAX;
        for (int m = 0; m < s->nrules; m++) {
            Stats *st = hint_stats(s, m);
            if (st != NULL && st->n == 0)
                s->hint_late |= 1ULL << m;
            else if (st != NULL)
                hint_room(st, st->n, s->base - s->hint_from, s->fsize - s->hint_from);
        }
        return;
    }
    /* the late ones: from their first samples on */
    for (uint64_t late = s->hint_late; late != 0; late &= late - 1) {
        int m = __builtin_ctzll(late);
        uint64_t bit = 1ULL << m;
        Stats *st = hint_stats(s, m);
        if (st == NULL) { /* (made a sketch meanwhile: nothing to size) */
            s->hint_late &= ~bit;
        } else if ((s->hint_seen & bit) == 0) {
            if (st->n > 0) {
                s->hint_seen |= bit;
                s->hint_late_from[m] = s->base;
                s->hint_late_n[m] = st->n;
            }
        } else if (s->base - s->hint_late_from[m] >= SIZE_HINT_AT) {
            s->hint_late &= ~bit;
            if (st->n > s->hint_late_n[m]) /* (cleared meanwhile: no pace to judge) */
                hint_room(st, st->n - s->hint_late_n[m], s->base - s->hint_late_from[m],
                          s->fsize - s->hint_late_from[m]);
        }
    }
}

/*
** Makes room and reads: the bytes from keep on are moved to the start of the window
** (the unconsumed token, or a container being captured), then more input follows.
** rescan is how many bytes at the end of the window the caller will read again from
** their start (a token, or a CSV row, that the window cut): once that passes
** READ_CHUNK, at least as many new bytes are read, so that a long token is read again
** a logarithmic number of times, not once per chunk (a 1 GiB string on a pipe took
** minutes). Returns 0, or -1 on error.
*/
static int refill(Scanner *s, size_t keep, size_t rescan)
{
    if (s->mem != NULL) /* memory input is whole: the parser saw final = 1 */
        return fail(s, "%s: internal error: refill of memory input", s->name);
    if (check_interrupt(s) != 0)
        return -1;
    if (keep > 0 || s->len == 0) { /* the kept bytes move: to where the read lines up */
        size_t left = s->len - keep, lead = lead_for(s, left);
        if (left > s->cap + s->lead - lead) /* (a full window: no room to line it up) */
            lead = 0;
        char *at = s->buf - s->lead + lead;
        memmove(at, s->buf + keep, left);
        s->cap = s->cap + s->lead - lead;
        s->buf = at;
        s->lead = lead;
        s->len = left;
        s->base += keep;
    }
    size_hint(s);
    size_t chunk = s->read_max ? s->read_max : READ_CHUNK;
    /* the window's length to reach (or the end of input, or a full window) */
    size_t target = rescan >= READ_CHUNK ? s->len + rescan : chunk;
    size_t whole = s->cap + s->lead; /* the allocation's */
    if ((s->cap - s->len < READ_CHUNK / 4 || s->cap < target) &&
        alloc_window(s, whole < WINDOW ? WINDOW : whole * 2) != 0)
        return -1;
    s->refills++;
    while (s->len < s->cap && !s->eof) {
        size_t room = s->cap - s->len;
        ssize_t r = read_more(s, s->buf + s->len, room < chunk ? room : chunk);
        if (r < 0)
            return -1;
        if (r == 0)
            s->eof = 1;
        s->len += (size_t)r;
        if (s->len >= target)
            break;
    }
    return 0;
}

/* ---- the JSON engine --------------------------------------------------------- */

static const ScanPath *path_of(const Scanner *s, int m)
{
    return m < s->nrules ? &s->rules[m].path : &s->fields[m - s->nrules].path;
}

static int anchor_of(const Scanner *s, int m)
{
    return m < s->nrules ? 0 : s->anchor[m];
}

/* "$.a[3].b": the path down to depth d, for messages. */
static void where_path(const Scanner *s, int d, char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "$");
    for (int i = 1; i <= d && n < size; i++) {
        const ScanFrame *par = &s->frames[i - 1];
        if (par->is_array)
            n += (size_t)snprintf(out + n, size - n, "[%lld]", (long long)(par->index - 1));
        else
            n += (size_t)snprintf(out + n, size - n, ".%s", s->frames[i].key);
    }
}

/*
** The column of the byte at off, in characters as the whole file in memory gives it: the
** parser counts characters while the line's start is in the window, and bytes after; a
** regular file read in pieces counts them again from the line's start (on an error
** only). col as the parser gave it if that cannot be read.
*/
static uint64_t column_at(Scanner *s, uint64_t off, uint64_t col)
{
    uint64_t from = s->p.line_start;
    if (s->fsize == 0 || from >= s->p.base || off < from)
        return col;
    unsigned char b[1 << 14];
    uint64_t chars = 1;
    while (from < off) {
        size_t want = off - from < sizeof b ? (size_t)(off - from) : sizeof b;
        ssize_t r = pread(s->fd, b, want, (off_t)from);
        if (r <= 0)
            return col;
        for (ssize_t i = 0; i < r; i++)
            chars += (b[i] & 0xC0) != 0x80;
        from += (uint64_t)r;
    }
    return chars;
}

static int value_error(Scanner *s, int d, const char *what)
{
    uint64_t line, col;
    char path[200];
    json_where(&s->p, s->p.tok_off, &line, &col);
    col = column_at(s, s->p.tok_off, col);
    where_path(s, d, path, sizeof path);
    return fail(s, "%s:%llu:%llu: %s: %s (byte %llu)", s->name, (unsigned long long)line,
                (unsigned long long)col, path, what, (unsigned long long)s->p.tok_off);
}

static const char *type_name(JsonTok t)
{
    switch (t) {
    case JSON_STRING:
        return "a string";
    case JSON_NUMBER:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    case JSON_OBJ_BEGIN:
        return "an object";
    default:
        return "an array";
    }
}

/* A number beyond a double (1e999 reads as +inf): JSON has no infinity, the file is
   corrupt; an error at the number, as json.decode's. */
static int out_of_range(Scanner *s, int d)
{
    char what[200];
    int n = s->p.rawlen > 24 ? 24 : (int)s->p.rawlen;
    (void)snprintf(what, sizeof what,
                   "number out of range: %.*s%s is beyond a double (about 1.8e308); JSON has no "
                   "infinity, so the file is corrupt",
                   n, s->p.raw, s->p.rawlen > 24 ? "..." : "");
    return value_error(s, d, what);
}

/* The current number token's value into *x: 0, or -1 (out_of_range) when beyond a double. */
static int token_number(Scanner *s, int d, double *x)
{
    int64_t i;
    double v;
    if (json_num(&s->p, &i, &v)) {
        *x = (double)i;
        return 0;
    }
    *x = v;
    if (isinf(v))
        return out_of_range(s, d);
    return 0;
}

static int add_stat(Scanner *s, ScanRule *r, double x)
{
    int rc = stats_add(r->stats, x);
    if (rc == STATS_ENOMEM)
        return fail(s, "%s: out of memory adding samples", s->name);
    return 0;
}

/* A value for rule r's accumulator: held back while r's [-1] is undecided. */
static int emit(Scanner *s, ScanRule *r, double x)
{
    if (r->path.last_at < 0)
        return add_stat(s, r, x);
    if (r->ntent == r->tcap) {
        size_t cap = r->tcap ? r->tcap * 2 : 16;
        double *t = (double *)realloc(r->tent, cap * sizeof *t);
        if (t == NULL)
            return fail(s, "%s: out of memory", s->name);
        r->tent = t;
        r->tcap = cap;
    }
    r->tent[r->ntent++] = x;
    return 0;
}

static int arena_add(Scanner *s, const char *p, size_t n, size_t *off)
{
    if (s->acap - s->alen < n + 1) {
        size_t cap = s->acap ? s->acap : 4096;
        while (cap - s->alen < n + 1)
            cap *= 2;
        char *a = (char *)realloc(s->arena, cap);
        if (a == NULL)
            return fail(s, "%s: out of memory", s->name);
        s->arena = a;
        s->acap = cap;
    }
    memcpy(s->arena + s->alen, p, n);
    s->arena[s->alen + n] = '\0';
    *off = s->alen;
    s->alen += n + 1;
    return 0;
}

/* The current scalar token as a value (strings copied into the arena); d its depth. */
static int scalar_value(Scanner *s, int d, JsonTok t, ScanValue *v)
{
    memset(v, 0, sizeof *v);
    switch (t) {
    case JSON_NULL:
        v->type = VAL_NULL;
        return 0;
    case JSON_TRUE:
        v->type = VAL_TRUE;
        return 0;
    case JSON_FALSE:
        v->type = VAL_FALSE;
        return 0;
    case JSON_NUMBER:
        v->type = json_num(&s->p, &v->i, &v->d) ? VAL_INT : VAL_FLOAT;
        if (v->type == VAL_FLOAT && isinf(v->d))
            return out_of_range(s, d);
        return 0;
    default: {
        size_t n;
        const char *str = json_str(&s->p, &n);
        if (str == NULL)
            return fail(s, "%s: out of memory", s->name);
        v->type = VAL_STRING;
        v->len = n;
        return arena_add(s, str, n, &v->off);
    }
    }
}

static void clear_fields(Scanner *s, const ScanRule *r)
{
    for (int f = r->first_field; f < r->first_field + r->nfields; f++)
        s->fields[f].val.type = VAL_NONE;
}

/* Calls back with rule r's record; 0, or -1 when the callback failed. */
static int deliver(Scanner *s, int r, const ScanValue *whole)
{
    s->on_record(s, r, whole);
    if (s->stop)
        return fail(s, "%s: stopped by a record callback", s->name);
    return 0;
}

static uint64_t advance(Scanner *s, uint64_t parent, int d, const char *key, size_t klen,
                        int64_t index);

/* For the array at depth d: what its elements carry, when the index does not matter. */
static void array_plan(Scanner *s, ScanFrame *f, int d)
{
    f->max_index = -1;
    f->has_last = 0;
    for (uint64_t b = f->active; b; b &= b - 1) {
        int m = __builtin_ctzll(b);
        const ScanPath *path = path_of(s, m);
        int k = d - anchor_of(s, m);
        if (k >= 0 && k < path->n) {
            if (path->steps[k].kind == STEP_INDEX && path->steps[k].index > f->max_index)
                f->max_index = path->steps[k].index;
            if (path->steps[k].kind == STEP_LAST)
                f->has_last = 1;
        }
    }
    f->fixed = f->max_index < 0;
    /* the elements no [N] names (all of them when the array is fixed) */
    f->child_active = f->active ? advance(s, f->active, d + 1, NULL, 0, INT64_MIN) : 0;
    f->child_end = f->child_num = 0;
    for (uint64_t b = f->child_active; b; b &= b - 1) {
        int m = __builtin_ctzll(b);
        if (d + 1 - anchor_of(s, m) != path_of(s, m)->n)
            continue; /* goes deeper: nothing to do with a number element */
        f->child_end |= 1ULL << m;
        const ScanRule *r = m < s->nrules ? &s->rules[m] : NULL;
        if (r != NULL && r->sink == SINK_STATS && r->reduce == RED_NONE && r->path.last_at < 0)
            f->child_num |= 1ULL << m;
    }
}

/*
** For the object at depth d: the member names its matchers go on with, each once, with
** the matchers each one advances (a record's fields share their first names: "info" for
** ten of them). Any name (a [*] over members), or more names than JsonKeys holds: every
** member is looked at, and advanced one matcher at a time.
*/
static void object_plan(Scanner *s, ScanFrame *f, int d)
{
    f->keys.n = 0;
    f->keys.lens = 0;
    for (uint64_t b = f->active; b; b &= b - 1) {
        int m = __builtin_ctzll(b);
        const ScanPath *path = path_of(s, m);
        int k = d - anchor_of(s, m);
        if (k < 0 || k >= path->n)
            continue;
        const ScanStep *st = &path->steps[k];
        if (st->kind == STEP_ANY_KEY) {
            f->keys.n = -1; /* every member is looked at */
            return;
        }
        if (st->kind != STEP_KEY)
            continue; /* ([N], [*] and [-1] name no member) */
        int i = 0;
        while (i < f->keys.n &&
               (f->keys.len[i] != st->klen || memcmp(f->keys.key[i], st->key, st->klen) != 0))
            i++;
        if (i == f->keys.n) {
            if (i == JSON_KEYS_MAX) {
                f->keys.n = -1;
                return;
            }
            f->keys.key[i] = st->key;
            f->keys.len[i] = st->klen;
            f->keys.lens |= 1ULL << (st->klen & 63);
            f->key_mask[i] = 0;
            f->keys.n++;
        }
        f->key_mask[i] |= 1ULL << m;
    }
}

/* The matchers of object frame f (keys.n >= 0) that its member called key goes on with:
   advance's answer, from the names object_plan listed. */
static uint64_t member_mask(const ScanFrame *f, const char *key, size_t klen)
{
    for (int i = 0; i < f->keys.n; i++)
        if (f->keys.len[i] == klen && memcmp(f->keys.key[i], key, klen) == 0)
            return f->key_mask[i];
    return 0;
}

/* A scalar or a container begins at depth d; active is its matcher mask. */
static int value_begin(Scanner *s, int d, uint64_t active, JsonTok t)
{
    int container = t == JSON_OBJ_BEGIN || t == JSON_ARR_BEGIN;
    ScanFrame *f = container ? &s->frames[d] : NULL;
    if (f != NULL) {
        f->active = active;
        f->reduce = f->lens = f->capture = f->records = 0;
        f->start = s->p.tok_off;
        f->index = 0;
        f->is_array = t == JSON_ARR_BEGIN;
    }
    for (uint64_t bits = active; bits; bits &= bits - 1) {
        int m = __builtin_ctzll(bits);
        const ScanPath *path = path_of(s, m);
        if (d - anchor_of(s, m) != path->n)
            continue;
        if (m < s->nrules) {
            ScanRule *r = &s->rules[m];
            r->matched++;
            if (r->sink == SINK_STATS) {
                if (r->reduce != RED_NONE && t == JSON_ARR_BEGIN && f != NULL) {
                    f->reduce |= 1ULL << m;
                    r->red_n = 0;
                    r->red_acc = 0;
                } else if (r->reduce == RED_NONE && t == JSON_NUMBER) {
                    double x;
                    if (token_number(s, d, &x) != 0 || emit(s, r, x) != 0)
                        return -1;
                } else if (r->skip_bad) {
                    r->skipped++;
                } else if (r->reduce == RED_NONE && t == JSON_ARR_BEGIN) {
                    /* the likeliest slip: the array itself matched where its numbers
                       were meant; the two ways to read them, with this path's [*] */
                    char at[200], what[400];
                    where_path(s, d, at, sizeof at);
                    (void)snprintf(what, sizeof what,
                                   "found an array, expected a number (rule %d): to read its "
                                   "numbers, match its elements with [*] (%s[*]) or give the rule "
                                   "a reducer (reduce = \"sum\", \"max\", \"diffs\", ...)",
                                   m + 1, at);
                    return value_error(s, d, what);
                } else {
                    char what[120];
                    (void)snprintf(
                        what, sizeof what, "found %s, expected %s (rule %d)", type_name(t),
                        r->reduce != RED_NONE ? "an array of numbers to reduce" : "a number",
                        m + 1);
                    return value_error(s, d, what);
                }
            } else if (r->nfields > 0) {
                clear_fields(s, r);
                if (f == NULL) {
                    if (deliver(s, m, NULL) != 0) /* a scalar: none of its fields exist */
                        return -1;
                } else {
                    f->records |= 1ULL << m;
                    s->open_records++;
                    for (int k = r->first_field; k < r->first_field + r->nfields; k++) {
                        s->anchor[s->nrules + k] = d;
                        f->active |= 1ULL << (s->nrules + k);
                    }
                }
            } else if (f == NULL) {
                ScanValue v;
                if (scalar_value(s, d, t, &v) != 0 || deliver(s, m, &v) != 0)
                    return -1;
            } else {
                f->records |= 1ULL << m;
                f->capture |= 1ULL << m;
                s->open_records++;
                s->open_captures++;
            }
        } else {
            ScanField *fl = &s->fields[m - s->nrules];
            if (fl->path.length_of) {
                if (t == JSON_ARR_BEGIN && f != NULL)
                    f->lens |= 1ULL << m;
                else
                    fl->val.type = VAL_NONE;
            } else if (f == NULL) {
                if (scalar_value(s, d, t, &fl->val) != 0)
                    return -1;
            } else {
                f->capture |= 1ULL << m;
                s->open_captures++;
            }
        }
    }
    if (f != NULL && f->is_array)
        array_plan(s, f, d);
    else if (f != NULL)
        object_plan(s, f, d);
    return 0;
}

/* One number into rule r's reduction. */
static int reduce_number(Scanner *s, ScanRule *r, double x)
{
    switch (r->reduce) {
    case RED_DIFFS:
        if (r->red_n > 0 && emit(s, r, x - r->red_prev) != 0)
            return -1;
        r->red_prev = x;
        break;
    case RED_FIRST:
        if (r->red_n == 0)
            r->red_acc = x;
        break;
    case RED_LAST:
        r->red_acc = x;
        break;
    case RED_SUM:
        r->red_acc += x;
        break;
    case RED_MIN:
        if (r->red_n == 0 || x < r->red_acc)
            r->red_acc = x;
        break;
    case RED_MAX:
        if (r->red_n == 0 || x > r->red_acc)
            r->red_acc = x;
        break;
    default:
        break;
    }
    r->red_n++;
    return 0;
}

/* An element of an array that rules in mask reduce. */
static int reduce_element(Scanner *s, int d, uint64_t mask, JsonTok t)
{
    for (; mask; mask &= mask - 1) {
        int m = __builtin_ctzll(mask);
        ScanRule *r = &s->rules[m];
        if (t != JSON_NUMBER) {
            if (r->skip_bad) {
                r->skipped++;
                continue;
            }
            char what[120];
            (void)snprintf(what, sizeof what,
                           "found %s in an array to reduce, expected a number (rule %d)",
                           type_name(t), m + 1);
            return value_error(s, d, what);
        }
        double x;
        if (token_number(s, d, &x) != 0 || reduce_number(s, r, x) != 0)
            return -1;
    }
    return 0;
}

/*
** The rest of an array of numbers at once (json_next_numbers), after its element
** `par` just took: into the reductions of the array and the accumulators every element
** feeds. Only for arrays whose elements carry nothing else (see scan_json).
*/
static int number_lane(Scanner *s, ScanFrame *par)
{
    enum { BATCH = 256 };
    double xs[BATCH], diffs[BATCH];
    size_t k;
    do {
        k = json_next_numbers(&s->p, xs, BATCH);
        par->index += (int64_t)k;
        for (uint64_t b = par->reduce; b && k > 0; b &= b - 1) {
            ScanRule *r = &s->rules[__builtin_ctzll(b)];
            if (r->reduce == RED_DIFFS && r->path.last_at < 0 && r->red_n > 0) {
                /* the common reduction, straight into the accumulator (each difference
                   from the batch itself, not through red_prev: two at a time with SSE2,
                   the same subtractions) */
                diffs[0] = xs[0] - r->red_prev;
                size_t i = 1;
#if defined(__SSE2__)
                for (; i + 2 <= k; i += 2)
                    _mm_storeu_pd(diffs + i,
                                  _mm_sub_pd(_mm_loadu_pd(xs + i), _mm_loadu_pd(xs + i - 1)));
#endif
                for (; i < k; i++)
                    diffs[i] = xs[i] - xs[i - 1];
                r->red_prev = xs[k - 1];
                r->red_n += k;
                if (stats_add_many(r->stats, diffs, k) != 0)
                    return fail(s, "%s: out of memory adding samples", s->name);
                continue;
            }
            if (r->reduce == RED_LAST || r->reduce == RED_FIRST || r->reduce == RED_COUNT) {
                /* reduce_number's effect of k numbers, without a look at each */
                if (r->reduce == RED_LAST || (r->reduce == RED_FIRST && r->red_n == 0))
                    r->red_acc = xs[r->reduce == RED_LAST ? k - 1 : 0];
                r->red_n += k;
                continue;
            }
            for (size_t i = 0; i < k; i++)
                if (reduce_number(s, r, xs[i]) != 0)
                    return -1;
        }
        for (uint64_t b = par->child_num; b && k > 0; b &= b - 1) {
            ScanRule *r = &s->rules[__builtin_ctzll(b)];
            r->matched += k;
            if (stats_add_many(r->stats, xs, k) != 0)
                return fail(s, "%s: out of memory adding samples", s->name);
        }
    } while (k == BATCH);
    return 0;
}

static int reduce_end(Scanner *s, uint64_t mask)
{
    for (; mask; mask &= mask - 1) {
        ScanRule *r = &s->rules[__builtin_ctzll(mask)];
        int rc = 0;
        switch (r->reduce) {
        case RED_COUNT:
            rc = emit(s, r, (double)r->red_n);
            break;
        case RED_SUM:
            rc = emit(s, r, r->red_acc);
            break;
        case RED_DIFFS:
            if (r->red_n < 2)
                r->empty++;
            break;
        default:
            if (r->red_n == 0)
                r->empty++;
            else
                rc = emit(s, r, r->red_acc);
        }
        if (rc != 0)
            return -1;
    }
    return 0;
}

/*
** A new element starts in the array at depth d: values that matchers with a [-1] at
** this array collected from the previous element were not from the last one.
*/
static void last_reset(Scanner *s, int d, uint64_t active)
{
    for (; active; active &= active - 1) {
        int m = __builtin_ctzll(active);
        const ScanPath *path = path_of(s, m);
        if (path->last_at < 0 || d - anchor_of(s, m) != path->last_at)
            continue;
        if (m < s->nrules) {
            s->rules[m].ntent = 0;
        } else {
            /* fields below this element: clear what the previous element set */
            s->fields[m - s->nrules].val.type = VAL_NONE;
        }
    }
}

/* The array at depth d ends: values held for its last element are now certain. */
static int last_flush(Scanner *s, int d, uint64_t active)
{
    for (active &= s->rule_bits; active; active &= active - 1) {
        int m = __builtin_ctzll(active);
        ScanRule *r = &s->rules[m];
        if (r->path.last_at != d)
            continue;
        for (size_t i = 0; i < r->ntent; i++)
            if (add_stat(s, r, r->tent[i]) != 0)
                return -1;
        r->ntent = 0;
    }
    return 0;
}

/* The container at depth d ends; end is the absolute offset just past it. */
static int value_end(Scanner *s, int d, uint64_t end)
{
    ScanFrame *f = &s->frames[d];
    if (f->reduce && reduce_end(s, f->reduce) != 0)
        return -1;
    for (uint64_t b = f->lens; b; b &= b - 1) {
        ScanValue *v = &s->fields[__builtin_ctzll(b) - s->nrules].val;
        v->type = VAL_INT;
        v->i = f->index;
    }
    if (f->capture) {
        ScanValue raw;
        memset(&raw, 0, sizeof raw);
        raw.type = VAL_RAW;
        raw.len = (size_t)(end - f->start);
        raw.start = f->start;
        if (arena_add(s, s->buf + (f->start - s->base), raw.len, &raw.off) != 0)
            return -1;
        for (uint64_t b = f->capture; b; b &= b - 1) {
            int m = __builtin_ctzll(b);
            s->open_captures--;
            if (m >= s->nrules)
                s->fields[m - s->nrules].val = raw;
            else if (deliver(s, m, &raw) != 0)
                return -1;
        }
    }
    for (uint64_t b = f->records & ~f->capture; b; b &= b - 1)
        if (deliver(s, __builtin_ctzll(b), NULL) != 0)
            return -1;
    if (f->records) {
        s->open_records -= __builtin_popcountll(f->records);
        if (s->open_records == 0)
            s->alen = 0;
    }
    if (f->is_array && last_flush(s, d, f->active) != 0)
        return -1;
    return 0;
}

static int parse_error(Scanner *s)
{
    return fail(s, "%s:%llu:%llu: %s (byte %llu)", s->name, (unsigned long long)s->p.err_line,
                (unsigned long long)column_at(s, s->p.err_off, s->p.err_col), s->p.err,
                (unsigned long long)s->p.err_off);
}

/* After JSON_MORE: keeps the unconsumed token (and any container being captured), reads
   more and feeds the parser. 0, or -1 with the error set. */
static int feed_more(Scanner *s)
{
    size_t keep = s->p.pos;
    if (s->open_captures > 0)
        for (int d = 0; d < s->depth; d++)
            if (s->frames[d].capture && s->frames[d].start - s->base < keep)
                keep = (size_t)(s->frames[d].start - s->base);
    size_t unconsumed = s->p.pos - keep;
    if (refill(s, keep, s->len - s->p.pos) != 0)
        return -1;
    s->p.base = s->base;
    json_feed(&s->p, s->buf, s->len, s->eof);
    s->p.pos = unconsumed;
    return 0;
}

/* The next token, reading more input as needed. */
static JsonTok next_token(Scanner *s)
{
    for (;;) {
        JsonTok t = json_next(&s->p);
        if (t != JSON_MORE)
            return t == JSON_ERROR ? (parse_error(s), JSON_ERROR) : t;
        if (feed_more(s) != 0)
            return JSON_ERROR;
    }
}

/* Through the container just opened, which no rule looks into, to its end (read and
   validated by the parser alone, without a token coming back here). 0, or -1. */
static int skip_container(Scanner *s)
{
    int depth = s->p.depth;
    s->p.lazy = 1;
    for (;;) {
        JsonTok t = json_skip(&s->p, depth);
        if ((t == JSON_OBJ_END || t == JSON_ARR_END) && s->p.depth < depth)
            return 0;
        if (t == JSON_ERROR)
            return parse_error(s);
        if (t == JSON_END)
            return fail(s, "%s: internal error: the document ended inside a container", s->name);
        if (t == JSON_MORE && feed_more(s) != 0)
            return -1;
    }
}

/*
** Between two members of the object at depth d: the next member whose name a matcher
** goes on with (other members are passed over by the parser), or the object's end.
*/
static JsonTok next_member(Scanner *s, int d)
{
    const JsonKeys *keys = &s->frames[d - 1].keys;
    for (;;) {
        JsonTok t = json_skip_members(&s->p, d, keys);
        if (t == JSON_ERROR)
            return parse_error(s), JSON_ERROR;
        if (t == JSON_MORE) {
            if (feed_more(s) != 0)
                return JSON_ERROR;
            continue;
        }
        return t; /* a KEY at d, the object's end, or JSON_END */
    }
}

/* Matchers of parent mask that a child with this member name (or index) advances. */
static uint64_t advance(Scanner *s, uint64_t parent, int d, const char *key, size_t klen,
                        int64_t index)
{
    uint64_t child = 0;
    for (; parent; parent &= parent - 1) {
        int m = __builtin_ctzll(parent);
        const ScanPath *path = path_of(s, m);
        int k = d - 1 - anchor_of(s, m);
        if (k < 0 || k >= path->n)
            continue;
        const ScanStep *st = &path->steps[k];
        int ok;
        switch (st->kind) {
        case STEP_KEY:
            ok = key != NULL && st->klen == klen && memcmp(st->key, key, klen) == 0;
            break;
        case STEP_ANY_KEY:
            ok = key != NULL;
            break;
        case STEP_INDEX:
            ok = key == NULL && st->index == index;
            break;
        default: /* [*] and [-1] */
            ok = key == NULL;
        }
        if (ok)
            child |= 1ULL << m;
    }
    return child;
}

/* An array whose elements nobody watches: the parser need not read its numbers' values
   (lazy). */
static int elements_unwatched(const ScanFrame *f)
{
    return f->is_array && f->fixed && f->child_active == 0 && f->reduce == 0;
}

static int scan_json(Scanner *s)
{
    uint64_t member_active = 0;
    int after_key = 0; /* the token just read was a key: its value comes next */
    for (;;) {
        int d = s->depth;
        /* between the members of an object whose member names are known */
        JsonTok t = d > 0 && !after_key && s->frames[d - 1].keys.n >= 0 &&
                            !s->frames[d - 1].is_array && !s->one_by_one
                        ? next_member(s, d)
                        : next_token(s);
        after_key = t == JSON_KEY;
        if (t == JSON_ERROR)
            return -1;
        if (t == JSON_END)
            return 0;
        if (t == JSON_KEY) {
            ScanFrame *par = &s->frames[d - 1];
            ScanFrame *f = &s->frames[d];
            size_t n = 0;
            const char *k = par->active ? json_str(&s->p, &n) : NULL;
            if (par->active && k == NULL)
                return fail(s, "%s: out of memory", s->name);
            member_active = !par->active       ? 0
                            : par->keys.n >= 0 ? member_mask(par, k, n)
                                               : advance(s, par->active, d, k, n, 0);
            s->p.lazy = member_active == 0; /* nobody watches this member's value */
            if (par->active) {
                size_t c = n < sizeof f->key - 1 ? n : sizeof f->key - 1;
                memcpy(f->key, k, c);
                f->key[c] = '\0';
            }
            continue;
        }
        if (t == JSON_OBJ_END || t == JSON_ARR_END) {
            d = --s->depth;
            ScanFrame *f = &s->frames[d];
            if (d > 0) { /* back in the parent: are its next values watched? */
                s->p.lazy = elements_unwatched(&s->frames[d - 1]);
            } else {
                s->p.lazy = 0;
            }
            if ((f->reduce | f->lens | f->capture | f->records) || (f->is_array && f->active)) {
                if (value_end(s, d, s->p.base + s->p.pos) != 0)
                    return -1;
            }
            if (d == 0)
                s->records++;
            continue;
        }
        /* a value begins at depth d */
        uint64_t active;
        if (d == 0) {
            active = s->rule_bits;
        } else {
            ScanFrame *par = &s->frames[d - 1];
            if (par->is_array) {
                int64_t idx = par->index++;
                if (par->reduce && reduce_element(s, d, par->reduce, t) != 0)
                    return -1;
                if (par->has_last && idx > 0)
                    last_reset(s, d - 1, par->active);
                if (par->fixed || idx > par->max_index) { /* past every [N] */
                    active = par->child_active;
                    /* a number element: only the matchers ending here act on it */
                    if (t == JSON_NUMBER && par->child_end == par->child_num && !par->has_last &&
                        (par->child_num | par->reduce) != 0 && !s->one_by_one) {
                        /* the common case: numbers straight into accumulators, and the
                           numbers after this one in the fast lane */
                        if (par->child_num != 0) {
                            double x;
                            if (token_number(s, d, &x) != 0)
                                return -1;
                            for (uint64_t b = par->child_num; b; b &= b - 1) {
                                ScanRule *r = &s->rules[__builtin_ctzll(b)];
                                r->matched++;
                                if (add_stat(s, r, x) != 0)
                                    return -1;
                            }
                        }
                        if (number_lane(s, par) != 0)
                            return -1;
                        continue;
                    }
                } else {
                    active = par->active ? advance(s, par->active, d, NULL, 0, idx) : 0;
                }
            } else {
                active = member_active;
            }
        }
        if (t == JSON_OBJ_BEGIN || t == JSON_ARR_BEGIN) {
            if (active == 0 && d > 0 && !s->one_by_one) { /* nothing in it concerns a rule */
                if (skip_container(s) != 0)
                    return -1;
                s->p.lazy = elements_unwatched(&s->frames[d - 1]); /* as at its end */
                continue;
            }
            if (value_begin(s, d, active, t) != 0)
                return -1;
            s->depth++;
            ScanFrame *f = &s->frames[d];
            s->p.lazy = elements_unwatched(f);
        } else {
            if (active && value_begin(s, d, active, t) != 0)
                return -1;
            if (d == 0)
                s->records++;
        }
    }
}

/* ---- CSV --------------------------------------------------------------------- */

static int scan_csv(Scanner *s);
static int csv_parts(const Scanner *s);
static int csv_parallel(Scanner *s, int nparts);

/* The pass itself, over input made ready by scan_run. */
static int scan_pass(Scanner *s)
{
    /* gzip not decompressed on the way in (an open io file, text in memory): said as
       such, not as "unexpected byte 0x1F" */
    if (s->gz == NULL && s->base == 0 && s->len >= 2 && (unsigned char)s->buf[0] == 0x1f &&
        (unsigned char)s->buf[1] == 0x8b)
        return fail(s, "%s: gzip-compressed; decompress it first (gunzip)", s->name);
    if (s->format == SCAN_CSV)
        return scan_csv(s);
    s->frames = (ScanFrame *)calloc(JSON_MAX_DEPTH + 1, sizeof *s->frames);
    if (s->frames == NULL)
        return fail(s, "%s: out of memory", s->name);
    json_feed(&s->p, s->buf, s->len, s->eof);
    return scan_json(s);
}

int scan_run(Scanner *s)
{
    for (int i = 0; i < s->nrules; i++)
        s->rule_bits |= 1ULL << i;
    s->par_parts = 1; /* (also when the first read fails) */
    if (s->format == SCAN_CSV) {
        /* in parts at once when it pays; any failure there (a cut inside quotes, a
           bad cell, the file shrank) and the serial scan below gives the result, and
           its message */
        int n = csv_parts(s);
        if (n > 1 && csv_parallel(s, n) == 0)
            return 0;
        s->err[0] = '\0';
    }
    if (s->mem != NULL) { /* whole in memory */
        s->buf = (char *)(uintptr_t)s->mem;
        s->len = s->memlen;
        s->eof = 1;
    } else if (alloc_window(s, WINDOW) != 0 || refill(s, 0, 0) != 0) {
        return -1;
    }
    return scan_pass(s);
}

void scan_free(Scanner *s)
{
    if (s->gz != NULL)
        gzclose((gzFile)s->gz);
    s->gz = NULL;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    release_window(s);
    free(s->frames);
    s->frames = NULL;
    free(s->arena);
    s->arena = NULL;
    s->alen = s->acap = 0;
    json_parser_free(&s->p);
}

/* ---- CSV (RFC 4180) ------------------------------------------------------------ */

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__SSE2__)
/* The bytes of the 16 at p that are sep, '"', '\n' or '\r', as bits. */
static inline unsigned csv_hits16(const char *p, char sep)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(sep)), _mm_cmpeq_epi8(v, _mm_set1_epi8('"'))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))));
    return (unsigned)_mm_movemask_epi8(hit);
}
#endif

/* The offset of the first byte at or after i that is sep, '"', '\n' or '\r' (n if none). */
static size_t csv_stop(const char *b, size_t i, size_t n, char sep)
{
#if defined(__SSE2__)
    for (; i + 16 <= n; i += 16) {
        unsigned m = csv_hits16(b + i, sep);
        if (m != 0)
            return i + (size_t)__builtin_ctz(m);
    }
#endif
    while (i < n && b[i] != sep && b[i] != '"' && b[i] != '\n' && b[i] != '\r')
        i++;
    return i;
}

/*
** The separators, quotes and line ends of a window as bits, 64 bytes at a time: rows
** of short fields then cost a bit scan per field instead of a vector loop each. bits
** covers the 64 bytes from at (valid only while the window holds the same bytes).
*/
typedef struct CsvBits {
    size_t at;
    uint64_t bits;
    int valid;
} CsvBits;

/* The offset of the first separator, quote, \r or \n at or after i (n if none). */
static size_t csv_stop_bits(CsvBits *cb, const char *b, size_t i, size_t n, char sep)
{
#if defined(__SSE2__)
    for (;;) {
        if (!cb->valid || i < cb->at || i - cb->at >= 64) {
            if (i + 64 > n)
                return csv_stop(b, i, n, sep);
            uint64_t bits = 0;
            for (unsigned k = 0; k < 4; k++)
                bits |= (uint64_t)csv_hits16(b + i + (size_t)16 * k, sep) << (16 * k);
            cb->at = i;
            cb->bits = bits;
            cb->valid = 1;
        }
        uint64_t m = cb->bits >> (i - cb->at);
        if (m != 0)
            return i + (size_t)__builtin_ctzll(m);
        i = cb->at + 64;
    }
#else
    (void)cb;
    return csv_stop(b, i, n, sep);
#endif
}

/* In a quoted field, from i: the offset of the next quote (n if none before n), with
   the line feeds passed on the way added to *lines. */
static size_t csv_next_quote(const char *b, size_t i, size_t n, uint64_t *lines)
{
#if defined(__SSE2__)
    const __m128i vq = _mm_set1_epi8('"'), vn = _mm_set1_epi8('\n');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
        unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq));
        unsigned nl = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vn));
        if (q != 0)
            nl &= (1u << __builtin_ctz(q)) - 1;
        if (nl != 0) /* rare: a field over several lines */
            *lines += (uint64_t)__builtin_popcount(nl);
        if (q != 0)
            return i + (size_t)__builtin_ctz(q);
    }
#endif
    for (; i < n && b[i] != '"'; i++)
        if (b[i] == '\n')
            ++*lines;
    return i;
}

/* A field of the current row: a span of the window (between the quotes, if quoted). */
typedef struct CsvField {
    const char *p;
    size_t len;
    int quoted;
    int doubled; /* holds "" (an escaped quote) */
} CsvField;

/*
** hint = "; the text looks like JSON (it starts with '{'), not CSV: ..." when the file given
** to scan.csv starts as JSON does ('{' or '[' first, after a byte order mark and blank
** space, where its start is still in the buffer), else "" (newuser50b F14: json.read says
** a CSV file looks like CSV; this is the reverse).
*/
static void json_like_hint(const Scanner *s, char *hint, size_t size)
{
    const char *b = s->buf;
    hint[0] = '\0';
    if (s->base != 0)
        return;
    size_t k = s->len >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (k < s->len && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r' || b[k] == '\n'))
        k++;
    if (k < s->len && (b[k] == '{' || b[k] == '['))
        (void)snprintf(hint, size,
                       "; the text looks like JSON (it starts with '%c'), not CSV: read a JSON "
                       "file with json.read or llmd.scan (scan.json)",
                       b[k]);
}

/*
** A quote inside an unquoted field, at buf[at] in the record from buf[from], on line
** `line`: the error names its column (in characters, as JSON's errors count them) and
** byte, and says when the file looks like JSON (json_like_hint).
*/
static int csv_stray_quote(Scanner *s, size_t from, size_t at, uint64_t line)
{
    const char *b = s->buf;
    size_t start = at;
    while (start > from && b[start - 1] != '\n')
        start--;
    unsigned long long col = 1;
    for (size_t k = start; k < at; k++)
        col += ((unsigned char)b[k] & 0xC0) != 0x80; /* not a UTF-8 continuation byte */
    char hint[160];
    json_like_hint(s, hint, sizeof hint);
    uint64_t byte = s->base + at;
    return fail(s, "%s:%llu:%llu: a quote inside an unquoted field (byte %llu)%s", s->name,
                (unsigned long long)line, col, (unsigned long long)byte, hint);
}

/*
** Reads one record starting at buf[*pos] into spans of the window. Returns 1 with a
** record, 0 at the end of input, -2 when the record is cut by the end of the window
** (read more and call again from the same *pos), -1 on a syntax error.
*/
static int csv_record(Scanner *s, CsvBits *cb, size_t *pos, CsvField **fields, int *nf, int *capf,
                      uint64_t *line)
{
    const char *b = s->buf;
    size_t i = *pos, n = s->len;
    uint64_t lines = 0;
    if (i >= n)
        return s->eof ? 0 : -2;
    *nf = 0;
    for (;;) {
        if (*nf == *capf) {
            int cap = *capf ? *capf * 2 : 32;
            CsvField *f = (CsvField *)realloc(*fields, (size_t)cap * sizeof *f);
            if (f == NULL)
                return fail(s, "%s: out of memory", s->name);
            *fields = f;
            *capf = cap;
        }
        CsvField *f = &(*fields)[(*nf)++];
        memset(f, 0, sizeof *f);
        if (i < n && b[i] == '"') {
            f->quoted = 1;
            f->p = b + ++i;
            for (;;) {
                uint64_t before = lines;
                size_t q = csv_next_quote(b, i, n, &lines);
                if (q >= n)
                    return s->eof ? fail(s, "%s:%llu: unterminated quoted field", s->name,
                                         (unsigned long long)*line + (unsigned long long)before)
                                  : -2;
                i = q + 1;
                if (i < n && b[i] == '"') { /* "" is a quote */
                    f->doubled = 1;
                    i++;
                    continue;
                }
                if (i >= n && !s->eof)
                    return -2;
                break;
            }
            f->len = (size_t)(b + i - 1 - f->p);
            if (i < n && b[i] != s->sep && b[i] != '\n' && b[i] != '\r')
                return fail(s,
                            "%s:%llu: unexpected '%c' after a quoted field (expected '%c' or "
                            "the end of the line)",
                            s->name, (unsigned long long)*line + (unsigned long long)lines, b[i],
                            s->sep);
        } else {
            size_t j = csv_stop_bits(cb, b, i, n, s->sep);
            if (j < n && b[j] == '"')
                return csv_stray_quote(s, *pos, j, *line + lines);
            if (j >= n && !s->eof)
                return -2;
            f->p = b + i;
            f->len = j - i;
            i = j;
        }
        if (i < n && b[i] == s->sep) {
            i++;
            continue;
        }
        /* end of record: \n, \r\n, or the end of input */
        if (i < n && b[i] == '\r')
            i++;
        if (i < n && b[i] == '\n')
            i++;
        else if (i >= n && !s->eof)
            return -2;
        lines++;
        break;
    }
    *pos = i;
    *line += lines;
    return 1;
}

/* A field's text into the arena (undoubling ""); *off is where, *len its length (it
   may hold NUL bytes). */
static int csv_text(Scanner *s, const CsvField *f, size_t *off, size_t *len)
{
    *len = f->len;
    if (!f->doubled)
        return arena_add(s, f->p, f->len, off);
    if (arena_add(s, f->p, f->len, off) != 0)
        return -1;
    char *t = s->arena + *off;
    size_t o = 0;
    for (size_t k = 0; k < f->len; k++) {
        t[o++] = f->p[k];
        if (f->p[k] == '"')
            k++; /* the second quote of "" */
    }
    t[o] = '\0';
    s->alen = *off + o + 1;
    *len = o;
    return 0;
}

/*
** A whole field as a number (blanks around it allowed, NaN refused): 1, or 0 with *bad
** the offset in p[0..n) of the first byte that cannot belong to a number (a NUL, a
** letter...), or n when every byte could but the whole is no number ("1e", "--1").
*/
static int csv_number(const char *p, size_t n, size_t avail, double *out, size_t *bad)
{
    size_t lead = 0;
    *bad = n;
    while (lead < n && (p[lead] == ' ' || p[lead] == '\t'))
        lead++;
    while (n > lead && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n == lead)
        return 0;
    if (json_number_in(p + lead, n - lead, avail - lead, out)) /* the window goes on */
        return 1;
    /* other spellings strtod takes: +1, .5, 1., inf, infinity; not hex, not nan. strtod
       stops at a NUL and reads what comes before it: every byte is checked first */
    for (size_t i = lead; i < n; i++)
        if (p[i] == '\0' || strchr("0123456789+-.eEiInNfFtTyY", p[i]) == NULL) {
            *bad = i;
            return 0;
        }
    char buf[128];
    if (n - lead >= sizeof buf)
        return 0;
    memcpy(buf, p + lead, n - lead);
    buf[n - lead] = '\0';
    char *end;
    double d = strtod(buf, &end);
    if (end != buf + (n - lead) || d != d)
        return 0;
    *out = d;
    return 1;
}

/*
** The fast lane for rows (after the header): the separators, quotes and line ends of
** the window as bits, 64 bytes at a time, each byte looked at once; a row of plain
** fields then costs a bit scan per field, whatever the fields hold, and the fields no
** rule reads are passed over without another look. A row with a quote, a blank line,
** a wrong field count or a row cut by the end of the window goes through csv_record
** (the reference, which also makes the messages) instead.
*/

/* The separators (sep) and other stops ('"', '\n', '\r') of 64 bytes, bit k for byte k;
   the quotes among the others. */
typedef struct CsvMasks {
    uint64_t sep, other, quote;
} CsvMasks;

/* The bytes of the 8 at p equal to one of the patterns' bytes, as 0x80 in each (SWAR). */
static inline uint64_t csv_eq8(uint64_t v, const uint64_t *pats, int npats)
{
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7FULL;
    uint64_t m = 0;
    for (int k = 0; k < npats; k++) {
        uint64_t x = v ^ pats[k];               /* a zero byte where v has the pattern's byte */
        m |= ~(((x & low7) + low7) | x | low7); /* exact: 0x80 in each zero byte */
    }
    return m;
}

/* The 0x80 bits of m (one per byte) gathered into the low 8 bits, byte k to bit k. */
static inline unsigned csv_gather8(uint64_t m)
{
    return (unsigned)(((m >> 7) * 0x0102040810204080ULL) >> 56);
}

/* The stops of the 64 bytes at p in plain C, 8 at a time. */
static inline CsvMasks csv_masks_portable(const char *p, char sep)
{
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t vsep = ones * (unsigned char)sep;
    const uint64_t pats[3] = {ones * '"', ones * '\n', ones * '\r'};
    CsvMasks m = {0, 0, 0};
    for (unsigned k = 0; k < 8; k++) {
        uint64_t v;
        memcpy(&v, p + (size_t)8 * k, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v); /* p[k] in byte k from the low end, as below */
#endif
        m.sep |= (uint64_t)csv_gather8(csv_eq8(v, &vsep, 1)) << (8 * k);
        m.other |= (uint64_t)csv_gather8(csv_eq8(v, pats, 3)) << (8 * k);
        m.quote |= (uint64_t)csv_gather8(csv_eq8(v, pats, 1)) << (8 * k);
    }
    return m;
}

#if defined(__SSE2__)
static inline CsvMasks csv_masks_sse2(const char *p, char sep)
{
    const __m128i vs = _mm_set1_epi8(sep), vq = _mm_set1_epi8('"'), vn = _mm_set1_epi8('\n'),
                  vr = _mm_set1_epi8('\r');
    CsvMasks m = {0, 0, 0};
    for (unsigned k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + (size_t)16 * k));
        __m128i q = _mm_cmpeq_epi8(v, vq);
        __m128i o = _mm_or_si128(q, _mm_or_si128(_mm_cmpeq_epi8(v, vn), _mm_cmpeq_epi8(v, vr)));
        m.sep |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vs)) << (16 * k);
        m.other |= (uint64_t)(unsigned)_mm_movemask_epi8(o) << (16 * k);
        m.quote |= (uint64_t)(unsigned)_mm_movemask_epi8(q) << (16 * k);
    }
    return m;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define CSV_WIDE_SIMD 1
#include <immintrin.h>

__attribute__((target("avx2"))) static inline CsvMasks csv_masks_avx2(const char *p, char sep)
{
    const __m256i vs = _mm256_set1_epi8(sep), vq = _mm256_set1_epi8('"'),
                  vn = _mm256_set1_epi8('\n'), vr = _mm256_set1_epi8('\r');
    __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    __m256i qlo = _mm256_cmpeq_epi8(lo, vq), qhi = _mm256_cmpeq_epi8(hi, vq);
    __m256i olo =
        _mm256_or_si256(qlo, _mm256_or_si256(_mm256_cmpeq_epi8(lo, vn), _mm256_cmpeq_epi8(lo, vr)));
    __m256i ohi =
        _mm256_or_si256(qhi, _mm256_or_si256(_mm256_cmpeq_epi8(hi, vn), _mm256_cmpeq_epi8(hi, vr)));
    CsvMasks m;
    m.sep = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, vs)) |
            (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, vs)) << 32;
    m.other = (uint32_t)_mm256_movemask_epi8(olo) | (uint64_t)(uint32_t)_mm256_movemask_epi8(ohi)
                                                        << 32;
    m.quote = (uint32_t)_mm256_movemask_epi8(qlo) | (uint64_t)(uint32_t)_mm256_movemask_epi8(qhi)
                                                        << 32;
    return m;
}
#endif
#endif

/* The lane indexes this many bytes of the window at a time. */
#define CSV_LANE_CHUNK 8192u

/* The lane's index: the stops of the chunk b[base .. base + len) as bits (csv_index.h). */
typedef struct CsvLane {
    size_t base, len; /* len 0, base SIZE_MAX: nothing indexed */
    uint64_t *seps;   /* CSV_LANE_CHUNK / 64 + 1 words each */
    uint64_t *others;
    uint64_t *quotes; /* the quotes among the others */
    int quoted;       /* a quote somewhere in the chunk */
} CsvLane;

/* One index function per instruction set (csv_index.h); csv_impl picks one. */
typedef size_t (*CsvIndexFn)(CsvLane *, const char *, size_t, size_t, char);

#define CSV_INDEX_NAME csv_index_portable
#define CSV_INDEX_TARGET
#define CSV_INDEX_MASKS csv_masks_portable
#include "csv_index.h"
#undef CSV_INDEX_NAME
#undef CSV_INDEX_TARGET
#undef CSV_INDEX_MASKS

#if defined(__SSE2__)
#define CSV_INDEX_NAME csv_index_sse2
#define CSV_INDEX_TARGET
#define CSV_INDEX_MASKS csv_masks_sse2
#include "csv_index.h"
#undef CSV_INDEX_NAME
#undef CSV_INDEX_TARGET
#undef CSV_INDEX_MASKS
#endif

#ifdef CSV_WIDE_SIMD
#define CSV_INDEX_NAME csv_index_avx2_all
#define CSV_INDEX_TARGET __attribute__((target("avx2")))
#define CSV_INDEX_MASKS csv_masks_avx2
#include "csv_index.h"
#undef CSV_INDEX_NAME
#undef CSV_INDEX_TARGET
#undef CSV_INDEX_MASKS

/*
** csv_index.h's index with AVX2, in fewer steps: the line ends and quotes found by one
** table lookup (PSHUFB by the low four bits: '"', '\n' and '\r' are the only bytes equal
** to their entry; a byte with the high bit set looks up 0), and the quotes' bits made
** only for a chunk that has one (most have none), in a second pass over it; a chunk
** that ends inside a block (the window's end) goes to csv_index_avx2_all.
*/
__attribute__((target("avx2"))) static size_t csv_index_avx2(CsvLane *ln, const char *b,
                                                             size_t from, size_t n, char sep)
{
    size_t len = n - from > CSV_LANE_CHUNK ? CSV_LANE_CHUNK : n - from;
    if (len % 64 != 0) /* the window's end */
        return csv_index_avx2_all(ln, b, from, n, sep);
    uint64_t *seps = ln->seps, *others = ln->others;
    const char *p = b + from;
    const __m256i vs = _mm256_set1_epi8(sep), vq = _mm256_set1_epi8('"');
    const __m256i stops = _mm256_setr_epi8(1, 0, '"', 0, 0, 0, 0, 0, 0, 0, '\n', 0, 0, '\r', 0, 0,
                                           1, 0, '"', 0, 0, 0, 0, 0, 0, 0, '\n', 0, 0, '\r', 0, 0);
    __m256i quote = _mm256_setzero_si256();
    size_t k = 0, nk = len / 64;
    for (; k < nk; k++) {
        __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)(p + 64 * k));
        __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 64 * k + 32));
        __m256i olo = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(stops, lo), lo);
        __m256i ohi = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(stops, hi), hi);
        quote = _mm256_or_si256(
            quote, _mm256_or_si256(_mm256_cmpeq_epi8(lo, vq), _mm256_cmpeq_epi8(hi, vq)));
        seps[k] = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, vs)) |
                  (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, vs)) << 32;
        others[k] = (uint32_t)_mm256_movemask_epi8(olo) |
                    (uint64_t)(uint32_t)_mm256_movemask_epi8(ohi) << 32;
    }
    ln->quoted = !_mm256_testz_si256(quote, quote);
    if (ln->quoted) { /* a quote: the quotes' bits too */
        uint64_t *quotes = ln->quotes;
        for (size_t j = 0; j < k; j++) {
            __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)(p + 64 * j));
            __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 64 * j + 32));
            quotes[j] = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, vq)) |
                        (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, vq)) << 32;
        }
    }
    seps[k] = others[k] = ln->quotes[k] = 0;
    return len;
}

/*
** csv_index_avx2 with AVX-512 (F, BW): a 64-byte block in one register, its separators,
** line ends and quotes compared straight into mask registers (the line ends and quotes
** by the same table lookup, which PSHUFB does in each 16-byte lane), the quotes' bits
** with the rest (one more compare and store: no second pass). A chunk that ends inside
** a block goes to csv_index_avx2_all, as there.
*/
__attribute__((target("avx512f,avx512bw"))) static size_t
csv_index_avx512(CsvLane *ln, const char *b, size_t from, size_t n, char sep)
{
    size_t len = n - from > CSV_LANE_CHUNK ? CSV_LANE_CHUNK : n - from;
    if (len % 64 != 0) /* the window's end */
        return csv_index_avx2_all(ln, b, from, n, sep);
    uint64_t *seps = ln->seps, *others = ln->others, *quotes = ln->quotes, any = 0;
    const char *p = b + from;
    const __m512i vs = _mm512_set1_epi8(sep), vq = _mm512_set1_epi8('"');
    const __m512i stops = _mm512_broadcast_i32x4(
        _mm_setr_epi8(1, 0, '"', 0, 0, 0, 0, 0, 0, 0, '\n', 0, 0, '\r', 0, 0));
    size_t k = 0, nk = len / 64;
    for (; k < nk; k++) {
        __m512i v = _mm512_loadu_si512((const void *)(p + 64 * k));
        uint64_t q = _mm512_cmpeq_epi8_mask(v, vq);
        seps[k] = _mm512_cmpeq_epi8_mask(v, vs);
        others[k] = _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(stops, v), v);
        quotes[k] = q;
        any |= q;
    }
    ln->quoted = any != 0;
    seps[k] = others[k] = quotes[k] = 0;
    return len;
}
#endif

/* How many bits of x are set (no popcnt instruction without -m flags). */
static inline unsigned csv_popcount(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (unsigned)((x * 0x0101010101010101ULL) >> 56);
}

/*
** csv_lane_row for a row the 64 bytes from its start (r, an offset in the chunk of bb)
** do not hold: its stops block by block. The row end's offset (or its first quote's),
** -1 when the chunk ends first (index again from the row), or -2 when the row has
** another number of fields.
*/
static long csv_lane_walk(const CsvLane *ln, const char *bb, size_t r, int ncols, uint32_t *stops)
{
    size_t nblk = (ln->len + 63) / 64, blk = r / 64;
    uint64_t o = ln->others[blk] & (~0ULL << (r % 64));
    while (o == 0) {
        if (++blk >= nblk)
            return -1;
        o = ln->others[blk];
    }
    size_t jb = blk, j = 64 * jb + (size_t)__builtin_ctzll(o);
    if (bb[j] == '"') /* a quoted field: csv_lane_quoted */
        return (long)j;
    int c = 1;
    blk = r / 64;
    for (uint64_t w = ln->seps[blk] & (~0ULL << (r % 64));; w = ln->seps[++blk]) {
        if (blk == jb)
            w &= (1ULL << (j % 64)) - 1;
        for (; w != 0; w &= w - 1) {
            if (c == ncols)
                return -2; /* too many */
            stops[c++] = (uint32_t)(64 * blk + (size_t)__builtin_ctzll(w));
        }
        if (blk == jb)
            break;
    }
    return c == ncols ? (long)j : -2;
}

/* The quoted fields of a lane row (bit c for field c), those holding "", and the line
   feeds inside them. */
typedef struct CsvQuoted {
    uint64_t quoted, doubled;
    unsigned lines;
} CsvQuoted;

/* The first stop at or after at in the chunk: a bit of a or b (b may be NULL), or
   SIZE_MAX when the chunk holds none. */
static inline __attribute__((always_inline)) size_t
csv_next_stop(const uint64_t *a, const uint64_t *b, size_t at, size_t len)
{
    size_t nblk = (len + 63) / 64, blk = at / 64;
    if (blk >= nblk)
        return SIZE_MAX;
    uint64_t w = (a[blk] | (b ? b[blk] : 0)) & (~0ULL << (at % 64));
    while (w == 0) {
        if (++blk >= nblk)
            return SIZE_MAX;
        w = a[blk] | (b ? b[blk] : 0);
    }
    return 64 * blk + (size_t)__builtin_ctzll(w);
}

/*
** csv_lane_row for a row with a quoted field, from r (an offset in the chunk of bb),
** field by field as csv_record reads it, from the index: the stops (for a quoted
** field, the one after its closing quote) and *q. The row end's offset, -1 when the
** chunk ends first (index again from the row), or -2 when csv_record must read the row
** (its field count is not the header's, a quote out of place, more than 64 fields).
*/
static long csv_lane_quoted(const CsvLane *ln, const char *bb, char sep, size_t r, int ncols,
                            uint32_t *stops, CsvQuoted *q)
{
    size_t len = ln->len, pos = r;
    uint64_t quoted = 0, doubled = 0;
    unsigned lines = 0;
    if (ncols > 64)
        return -2;
    for (int c = 0;; c++) {
        size_t stop;
        if (pos >= len)
            return -1;
        if (bb[pos] == '"') { /* to the closing quote: quotes and line ends are stops */
            quoted |= 1ULL << c;
            size_t at = pos + 1;
            for (;;) {
                at = csv_next_stop(ln->others, NULL, at, len);
                if (at == SIZE_MAX || at + 1 >= len) /* the byte after it is not indexed */
                    return -1;
                if (bb[at] == '"') {
                    if (bb[at + 1] != '"')
                        break;
                    doubled |= 1ULL << c; /* "" is a quote */
                    at += 2;
                    continue;
                }
                lines += bb[at] == '\n';
                at++;
            }
            stop = at + 1;
            if (bb[stop] != sep && bb[stop] != '\n' && bb[stop] != '\r')
                return -2; /* something after the closing quote */
        } else {
            stop = csv_next_stop(ln->seps, ln->others, pos, len);
            if (stop == SIZE_MAX)
                return -1;
            if (bb[stop] == '"') /* a quote inside an unquoted field */
                return -2;
        }
        stops[c + 1] = (uint32_t)stop;
        if (bb[stop] != sep) { /* the line end */
            if (c != ncols - 1)
                return -2;
            q->quoted = quoted;
            q->doubled = doubled;
            q->lines = lines;
            return (long)stop;
        }
        if (c == ncols - 1) /* a field too many */
            return -2;
        pos = stop + 1;
    }
}

/* The spans of a lane row's fields (stops and q as csv_lane_row gives them) into
   f[0..ncols). */
static void csv_lane_fields(CsvField *f, const char *bb, const uint32_t *stops, const CsvQuoted *q,
                            int ncols)
{
    for (int c = 0; c < ncols; c++) {
        uint32_t at = stops[c] + 1; /* stops[0] + 1 wraps to 0 for a chunk's first row */
        f[c].p = bb + at;
        f[c].len = stops[c + 1] - at;
        f[c].quoted = f[c].doubled = 0;
        if (c < 64 && (q->quoted >> c & 1)) { /* between the quotes */
            f[c].p++;
            f[c].len -= 2;
            f[c].quoted = 1;
            f[c].doubled = (int)(q->doubled >> c & 1);
        }
    }
}

static int same_text(const CsvField *f, const char *key, size_t klen)
{
    return !f->doubled && f->len == klen && memcmp(f->p, key, klen) == 0;
}

/* Values for the accumulators wait here, CSV_BATCH per rule, and go in with one
   stats_add_many: the same samples in the same order as one stats_add each. */
#define CSV_BATCH 256

typedef struct CsvBatch {
    double *v; /* nrules * CSV_BATCH */
    int *n;
    int holes; /* a cell skipped by the lane left a NaN (a value no cell gives) */
} CsvBatch;

static int csv_flush(Scanner *s, CsvBatch *bt, int m)
{
    int k = bt->n[m];
    double *v = bt->v + (size_t)m * CSV_BATCH;
    bt->n[m] = 0;
    if (bt->holes) { /* the skipped cells' places go */
        int o = 0;
        for (int i = 0; i < k; i++)
            if (v[i] == v[i])
                v[o++] = v[i];
        k = o;
    }
    if (k > 0 && stats_add_many(s->rules[m].stats, v, (size_t)k) == STATS_ENOMEM)
        return fail(s, "%s: out of memory adding samples", s->name);
    return 0;
}

static int csv_flush_all(Scanner *s, CsvBatch *bt)
{
    for (int m = 0; m < s->nrules; m++)
        if (csv_flush(s, bt, m) != 0)
            return -1;
    bt->holes = 0;
    return 0;
}

/* A batch of k rows in every rule's column (csv_rows.h's lanes, when it is full): their
   counts set, then flushed. */
static int csv_flush_rows(Scanner *s, CsvBatch *bt, int k)
{
    for (int m = 0; m < s->nrules; m++)
        bt->n[m] = k;
    return csv_flush_all(s, bt);
}

/* A cell of a number rule that is not a plain JSON-style number: blanks around it,
   another spelling strtod takes, or no number (skipped, or the error). 1 with *x, 0
   skipped, -1 on error. */
static int csv_cell_number(Scanner *s, ScanRule *ru, const CsvField *cell, uint64_t row_line,
                           size_t row_start, double *x)
{
    size_t bad = 0;
    if (!cell->quoted &&
        csv_number(cell->p, cell->len, (size_t)(s->buf + s->len - cell->p), x, &bad))
        return 1;
    if (ru->skip_bad) {
        ru->skipped++;
        return 0;
    }
    char text[200], what[8];
    (void)shown(text, sizeof text, cell->p, cell->len);
    if (!cell->quoted && bad < cell->len)
        return fail(s,
                    "%s:%llu:%zu: column '%s': expected a number, found '%s' "
                    "(byte '%s' cannot be part of a number)",
                    s->name, (unsigned long long)row_line,
                    (size_t)(cell->p + bad - (s->buf + row_start)) + 1, ru->path.steps[0].key, text,
                    shown(what, sizeof what, cell->p + bad, 1));
    return fail(s, "%s:%llu: column '%s': expected a number, found '%s'", s->name,
                (unsigned long long)row_line, ru->path.steps[0].key, text);
}

/* A column the header lacks: the error, with the header's name it most likely meant
   (llmd_closest, the options checks' rule: "did you mean 'ttft_ms'?"), else the header's
   columns (as many as the message holds). -1. */
static int no_column(Scanner *s, const CsvField *fields, int nf, const char *key, uint64_t row_line)
{
    char head[200];
    int n = snprintf(head, sizeof head, "%s:%llu: no column '%s' in the header", s->name,
                     (unsigned long long)row_line, key);
    if (n < 0 || (size_t)n >= sizeof head)
        return fail(s, "%s", head);
    char hint[160];
    json_like_hint(s, hint, sizeof hint);
    if (hint[0] != '\0') /* a JSON file's first line, not a header: no "did you mean '['" */
        return fail(s, "%s%s", head, hint);
    /* the header's names as strings (a name with an escaped quote as it is written) */
    size_t bytes = (size_t)(nf + 1) * sizeof(char *);
    for (int c = 0; c < nf; c++)
        bytes += fields[c].len + 1;
    char **names = malloc(bytes);
    if (names == NULL)
        return fail(s, "%s", head);
    char *at = (char *)(names + nf + 1);
    for (int c = 0; c < nf; c++) {
        memcpy(at, fields[c].p, fields[c].len);
        at[fields[c].len] = '\0';
        names[c] = at;
        at += fields[c].len + 1;
    }
    names[nf] = NULL;
    const char *near = llmd_closest(key, (const char *const *)names);
    if (near != NULL) {
        (void)fail(s, "%s (did you mean '%s'?)", head, near);
    } else {
        /* "its columns: 'a', 'b', ..." while they fit, the rest counted */
        char list[300];
        size_t k = 0;
        int shown = 0;
        for (; shown < nf; shown++) {
            int w =
                snprintf(list + k, sizeof list - k, "%s'%s'", shown > 0 ? ", " : "", names[shown]);
            if (w < 0 || (size_t)w >= sizeof list - k - 24) {
                list[k] = '\0';
                break;
            }
            k += (size_t)w;
        }
        if (shown < nf)
            (void)snprintf(list + k, sizeof list - k, "%s%d more", shown > 0 ? " and " : "",
                           nf - shown);
        (void)fail(s, "%s (its columns: %s)", head, list);
    }
    free(names);
    return -1;
}

/* The header row: each rule's and field's column. 0, or -1 with the error. */
static int csv_header(Scanner *s, const CsvField *fields, int nf, int *col_of, uint64_t row_line)
{
    for (int m = 0; m < s->nrules + s->nfields; m++) {
        const ScanPath *p = path_of(s, m);
        col_of[m] = -1;
        for (int c = 0; c < nf; c++) {
            if (!same_text(&fields[c], p->steps[0].key, p->steps[0].klen))
                continue;
            if (col_of[m] >= 0)
                return fail(
                    s, "%s:%llu: column '%s' appears twice in the header (columns %d and %d)",
                    s->name, (unsigned long long)row_line, p->steps[0].key, col_of[m] + 1, c + 1);
            col_of[m] = c;
        }
        if (col_of[m] < 0)
            return no_column(s, fields, nf, p->steps[0].key, row_line);
    }
    return 0;
}

/* A data row's fields to the rules: numbers into batches, records to their sink. */
static int csv_row(Scanner *s, CsvBatch *bt, const CsvField *fields, const int *col_of,
                   uint64_t row_line, size_t row_start)
{
    for (int m = 0; m < s->nrules; m++) {
        ScanRule *ru = &s->rules[m];
        const CsvField *cell = &fields[col_of[m]];
        ru->matched++;
        if (ru->sink == SINK_STATS) {
            double x = 0;
            if (!cell->quoted &&
                json_number_in(cell->p, cell->len, (size_t)(s->buf + s->len - cell->p), &x)) {
                /* the common case: the whole cell is a number */
            } else {
                int r = csv_cell_number(s, ru, cell, row_line, row_start, &x);
                if (r <= 0) {
                    if (r < 0)
                        return -1;
                    continue;
                }
            }
            int k = bt->n[m]++;
            bt->v[(size_t)m * CSV_BATCH + (size_t)k] = x;
            if (k + 1 == CSV_BATCH && csv_flush(s, bt, m) != 0)
                return -1;
            continue;
        }
        /* a record: its fields as numbers when they read as numbers, else strings; the
           accumulators are up to date when the callback runs */
        if (csv_flush_all(s, bt) != 0)
            return -1;
        s->alen = 0;
        for (int k = ru->first_field; k < ru->first_field + ru->nfields; k++) {
            ScanValue *v = &s->fields[k].val;
            const CsvField *fc = &fields[col_of[s->nrules + k]];
            size_t bad;
            memset(v, 0, sizeof *v);
            if (fc->len == 0 && !fc->quoted) {
                v->type = VAL_NONE;
            } else if (!fc->quoted &&
                       csv_number(fc->p, fc->len, (size_t)(s->buf + s->len - fc->p), &v->d, &bad)) {
                v->type = VAL_FLOAT;
            } else {
                v->type = VAL_STRING;
                if (csv_text(s, fc, &v->off, &v->len) != 0)
                    return -1;
            }
        }
        if (deliver(s, m, NULL) != 0)
            return -1;
    }
    return 0;
}

/* The lane's rows (csv_rows.h), once per instruction set; csv_impl picks them. */
#define CSV_UNINDEXED SIZE_MAX /* csv_lane_row: the index does not reach the row's end */
#define CSV_ROWS 128           /* csv_lane_numbers finds this many rows, then reads their cells */
typedef long (*CsvNumbersFn)(Scanner *, CsvLane *, CsvBatch *, const int *, int, CsvIndexFn,
                             uint32_t *, size_t *, uint64_t *);

#ifdef CSV_WIDE_SIMD
/* The places of a 64-byte block, 0..63 (csv_put_stops_avx512 packs those of the stops) */
static const unsigned char csv_places[64] __attribute__((aligned(64))) = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

/*
** The stops of w (a block's bits: bit i for offset at + i) into o[0 ..), in order, with
** AVX-512 VBMI2: the places of w's bits packed to the front by one compress, widened to
** 32 bits and offset by at, 16 at a time (one turn but in blocks of more than 16
** stops); how many. o must have room for 15 more than the count (csv_stops_size).
*/
__attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt,bmi,bmi2"))) static inline
    __attribute__((always_inline)) size_t
    csv_put_stops_avx512(uint32_t *o, uint64_t w, uint32_t at, __m512i places)
{
    size_t cnt = (size_t)__builtin_popcountll(w);
    __m512i packed = _mm512_maskz_compress_epi8(w, places);
    __m512i base = _mm512_set1_epi32((int)at);
    _mm512_storeu_si512(
        (void *)o, _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(packed)), base));
    if (cnt > 16) {
        _mm512_storeu_si512(
            (void *)(o + 16),
            _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(packed, 1)), base));
        if (cnt > 32) {
            _mm512_storeu_si512(
                (void *)(o + 32),
                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(packed, 2)), base));
            _mm512_storeu_si512(
                (void *)(o + 48),
                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(packed, 3)), base));
        }
    }
    return cnt;
}
#endif

#define CSV_ROWS_TARGET
#define CSV_ROWS_HW 0
#define CSV_ROW_NAME csv_lane_row
#define CSV_FLAT_NAME csv_lane_flat
#define CSV_QUOTED_NAME csv_lane_quoted_stops
#define CSV_NUMBERS_NAME csv_lane_numbers
#include "csv_rows.h"
#undef CSV_ROWS_TARGET
#undef CSV_ROWS_HW
#undef CSV_ROW_NAME
#undef CSV_FLAT_NAME
#undef CSV_QUOTED_NAME
#undef CSV_NUMBERS_NAME

#ifdef CSV_WIDE_SIMD
#define CSV_ROWS_TARGET __attribute__((target("popcnt,bmi,bmi2")))
#define CSV_ROWS_HW 1
#define CSV_ROW_NAME csv_lane_row_bmi
#define CSV_FLAT_NAME csv_lane_flat_bmi
#define CSV_QUOTED_NAME csv_lane_quoted_stops_bmi
#define CSV_NUMBERS_NAME csv_lane_numbers_bmi
#include "csv_rows.h"
#undef CSV_ROWS_TARGET
#undef CSV_ROWS_HW
#undef CSV_ROW_NAME
#undef CSV_FLAT_NAME
#undef CSV_QUOTED_NAME
#undef CSV_NUMBERS_NAME

#define CSV_ROWS_TARGET                                                                            \
    __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt,bmi,bmi2,pclmul")))
#define CSV_ROWS_HW 2
#define CSV_ROW_NAME csv_lane_row_avx512
#define CSV_FLAT_NAME csv_lane_flat_avx512
#define CSV_QUOTED_NAME csv_lane_quoted_stops_avx512
#define CSV_NUMBERS_NAME csv_lane_numbers_avx512
#include "csv_rows.h"
#undef CSV_ROWS_TARGET
#undef CSV_ROWS_HW
#undef CSV_ROW_NAME
#undef CSV_FLAT_NAME
#undef CSV_QUOTED_NAME
#undef CSV_NUMBERS_NAME
#endif

/* The index and row functions for this scan: plain C when the tests ask, else the
   widest the JSON reader uses (json_simd: chosen at start-up from the CPU, or by the
   tests). */
typedef struct CsvImpl {
    CsvIndexFn index;
    CsvNumbersFn numbers;
} CsvImpl;

static CsvImpl csv_impl(const Scanner *s)
{
    const char *simd = json_simd(NULL);
    CsvImpl im = {csv_index_portable, csv_lane_numbers};
    if (s->portable || strcmp(simd, "portable") == 0)
        return im;
#ifdef CSV_WIDE_SIMD
    __builtin_cpu_init();
    if (strcmp(simd, "avx512") == 0 && __builtin_cpu_supports("avx512vbmi2") &&
        __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("pclmul") &&
        __builtin_cpu_supports("popcnt")) {
        im.index = csv_index_avx512;
        im.numbers = csv_lane_numbers_avx512;
        return im;
    }
    if ((strcmp(simd, "avx2") == 0 || strcmp(simd, "avx512") == 0) &&
        __builtin_cpu_supports("popcnt")) {
        im.index = csv_index_avx2;
        im.numbers = csv_lane_numbers_bmi;
        return im;
    }
#endif
#if defined(__SSE2__)
    im.index = csv_index_sse2;
#endif
    return im;
}

/* The row at *pos through the lane (indexing from it when the index ends before the
   row does): 1 with its stops and *pos after it, else 0 (see csv_lane_row). */
static inline __attribute__((always_inline)) int csv_lane_take(const char *b, size_t n, char sep,
                                                               CsvLane *ln, CsvIndexFn index,
                                                               size_t *pos, int ncols,
                                                               uint32_t *stops, CsvQuoted *q)
{
    size_t next = csv_lane_row(b, n, sep, ln, *pos, ncols, ncols - 1, stops, q);
    if (next == CSV_UNINDEXED && ln->base != *pos) {
        ln->len = index(ln, b, *pos, n, sep);
        ln->base = *pos;
        next = csv_lane_row(b, n, sep, ln, *pos, ncols, ncols - 1, stops, q);
    }
    if (next == 0 || next == CSV_UNINDEXED)
        return 0;
    *pos = next;
    return 1;
}

/* The header of a CSV scanned in parts (csv_parallel): its fields, each rule's column,
   and the offset after it. */
typedef struct CsvHeader {
    int ncols;
    int *col_of;  /* nrules + nfields */
    uint64_t end; /* (in the file) */
} CsvHeader;

/* The room for csv_pass's stops: a lane row's, then csv_lane_flat's (with room for 64
   more). */
static size_t csv_stops_size(int ncols)
{
    return (((size_t)ncols + 1) * CSV_ROWS * 2 + 72) * sizeof(uint32_t);
}

/*
** One pass over the CSV in s's window: the whole file, or one part of it. pre: a part
** after the first, which starts at a row, with the header known; hdr: the header only
** (the pass stops after it and says it there).
*/
static int csv_pass(Scanner *s, const CsvHeader *pre, CsvHeader *hdr)
{
    CsvField *fields = NULL;
    int nf = 0, capf = 0, ncols = 0;
    size_t pos = 0, row_start = 0;
    uint64_t line = 1, row_line;
    int rc = 0, header_done = 0, bom_done = 0;
    int nm = s->nrules + s->nfields;
    CsvBits bits = {0, 0, 0};
    CsvLane lane = {SIZE_MAX, 0, NULL, NULL, NULL, 0};
    lane.seps = (uint64_t *)calloc((size_t)3 * (CSV_LANE_CHUNK / 64 + 1), sizeof *lane.seps);
    uint32_t *stops = NULL;                   /* lane rows' (ncols + 1 each), then flat */
    unsigned lane_backoff = 0, lane_skip = 0; /* rows to leave to the long way */
    CsvImpl impl = csv_impl(s);
    CsvIndexFn index = impl.index;
    int numbers_only = s->nfields == 0; /* every rule adds numbers to an accumulator */
    for (int m = 0; m < s->nrules; m++)
        numbers_only &= s->rules[m].sink == SINK_STATS;
    CsvBatch bt;
    bt.holes = 0;
    bt.v = (double *)malloc((size_t)(s->nrules > 0 ? s->nrules : 1) * CSV_BATCH * sizeof *bt.v);
    bt.n = (int *)calloc((size_t)(s->nrules > 0 ? s->nrules : 1), sizeof *bt.n);
    int *col_of = (int *)calloc((size_t)(nm > 0 ? nm : 1), sizeof *col_of);
    if (col_of == NULL || bt.v == NULL || bt.n == NULL || lane.seps == NULL) {
        rc = fail(s, "%s: out of memory", s->name);
        goto done;
    }
    lane.others = lane.seps + CSV_LANE_CHUNK / 64 + 1;
    lane.quotes = lane.others + CSV_LANE_CHUNK / 64 + 1;
    if (pre != NULL) {
        header_done = bom_done = 1;
        ncols = pre->ncols;
        memcpy(col_of, pre->col_of, (size_t)nm * sizeof *col_of);
        stops = (uint32_t *)malloc(csv_stops_size(ncols));
        if (stops == NULL) {
            rc = fail(s, "%s: out of memory", s->name);
            goto done;
        }
    }
    for (;;) {
        row_line = line;
        row_start = pos;
        if (header_done && !s->one_by_one && lane_skip > 0) {
            lane_skip--; /* this row goes the long way, as the last the lane refused */
        } else if (header_done && !s->one_by_one) {
            long taken = 0;
            if (numbers_only) {
                taken = impl.numbers(s, &lane, &bt, col_of, ncols, index, stops, &pos, &line);
                if (taken < 0) {
                    rc = -1;
                    goto done_rows;
                }
                for (int m = 0; m < s->nrules; m++)
                    s->rules[m].matched += (uint64_t)taken;
                s->records += (uint64_t)taken;
            }
            /* rows while the lane takes them */
            CsvQuoted q = {0, 0, 0};
            while (!numbers_only && fields != NULL &&
                   csv_lane_take(s->buf, s->len, s->sep, &lane, index, &pos, ncols, stops, &q)) {
                taken++;
                s->records++;
                csv_lane_fields(fields, s->buf + lane.base, stops, &q, ncols);
                if (csv_row(s, &bt, fields, col_of, line, row_start) != 0) {
                    rc = -1;
                    goto done_rows;
                }
                line += 1 + q.lines;
                q.quoted = q.doubled = 0;
                q.lines = 0;
                row_start = pos;
            }
            if (taken) {
                if (taken >= 8)
                    lane_backoff = 0;
                continue;
            }
            /* the row goes the long way (the index stays while the window does), and
               so do the next ones, more of them each time the lane takes too few rows
               to pay for trying (rows over 8 KiB, quoted rows of more than 64 fields) */
            lane_backoff = lane_backoff == 0 ? 1 : lane_backoff < 4096 ? 2 * lane_backoff : 4096;
            lane_skip = lane_backoff;
        }
        /* a UTF-8 byte-order mark before the header (spreadsheets write one) is not
           text; only at the very start (not after a blank line, whatever the reads) */
        if (!bom_done && s->base + pos > 0)
            bom_done = 1;
        if (!bom_done && (s->len - pos >= 3 || s->eof)) {
            if (s->len - pos >= 3 && memcmp(s->buf + pos, "\xEF\xBB\xBF", 3) == 0)
                pos += 3;
            bom_done = 1;
        }
        int r = csv_record(s, &bits, &pos, &fields, &nf, &capf, &line);
        if (r == -2) {      /* the row is cut: keep it, read more (refill grows the window) */
            bits.valid = 0; /* the window's bytes move */
            lane.base = SIZE_MAX;
            lane.len = 0;
            if (refill(s, pos, s->len - pos) != 0) {
                rc = -1;
                break;
            }
            pos = 0;
            line = row_line;
            continue;
        }
        if (r <= 0) {
            rc = r;
            if (r == 0 && !header_done && nm > 0) /* nothing named can be found */
                rc = fail(s, "%s: empty: no header row with the columns the rules name", s->name);
            break;
        }
        if (nf == 1 && fields[0].len == 0 && !fields[0].quoted)
            continue; /* a blank line */
        if (!header_done) {
            header_done = 1;
            ncols = nf;
            if (csv_header(s, fields, nf, col_of, row_line) != 0) {
                rc = -1;
                break;
            }
            if (hdr != NULL) {
                hdr->ncols = ncols;
                memcpy(hdr->col_of, col_of, (size_t)nm * sizeof *col_of);
                hdr->end = s->base + pos;
                break;
            }
            stops = (uint32_t *)malloc(csv_stops_size(ncols));
            if (stops == NULL) {
                rc = fail(s, "%s: out of memory", s->name);
                break;
            }
            continue;
        }
        if (nf != ncols) {
            rc = fail(s, "%s:%llu: %d fields, the header has %d", s->name,
                      (unsigned long long)row_line, nf, ncols);
            break;
        }
        s->records++;
        if (csv_row(s, &bt, fields, col_of, row_line, row_start) != 0) {
            rc = -1;
            break;
        }
        for (int c = 0; c < nf; c++) /* the lane sets only the spans */
            fields[c].quoted = fields[c].doubled = 0;
    }
done_rows:
    /* what the batches hold goes in whatever the outcome, as one stats_add each would
       have (the caller undoes a failed pass) */
    if (rc == 0) {
        rc = csv_flush_all(s, &bt);
    } else {
        char keep[sizeof s->err];
        memcpy(keep, s->err, sizeof keep);
        (void)csv_flush_all(s, &bt);
        memcpy(s->err, keep, sizeof keep);
    }
done:
    free(fields);
    free(col_of);
    free(lane.seps);
    free(stops);
    free(bt.v);
    free(bt.n);
    return rc;
}

/* ---- CSV in parts, at once ------------------------------------------------------ */

/* At most this many parts: past it memory bandwidth, not the cores, bounds the scan */
#define CSV_MAX_PARTS 8
#define CUT_READ (64u << 10) /* the bytes read at a time to find a cut's line feed */

/* A part of a CSV scanned in a thread of its own (the first part in the caller's). */
typedef struct CsvPart {
    Scanner w;            /* its scanner: its window reads the part */
    const CsvHeader *pre; /* parts after the first: the header */
    CsvHeader *hdr;       /* the header's pass: the header found, then the cuts */
    uint64_t *cut;
    int nparts, np;
    pthread_t tid;
    int started, rc;
} CsvPart;

/*
** The cuts of w's file (size w->fsize) into at most nparts parts: after the first line
** feed from each nparts-th of the bytes after the header (at from), read CUT_READ bytes
** at a time into w's window; cut[0] = 0, cut[np] the end. np, or -1 with w->err (the
** file shrank, or cannot be read).
*/
static int csv_cuts(Scanner *w, uint64_t from, int nparts, uint64_t *cut)
{
    int np = 1;
    uint64_t size = w->fsize, body = size - from;
    cut[0] = 0;
    for (int k = 1; k < nparts; k++) {
        uint64_t at = from + body / (uint64_t)nparts * (uint64_t)k, c = 0;
        while (c == 0 && at < size) {
            w->fgot = at;
            w->fsize = size;
            ssize_t r = read_more(w, w->buf, CUT_READ);
            if (r < 0)
                return -1;
            if (r == 0) /* (cannot be: read_more says the file shrank) */
                break;
            const char *nl = (const char *)memchr(w->buf, '\n', (size_t)r);
            if (nl != NULL)
                c = at + (uint64_t)(nl - w->buf) + 1;
            at += (uint64_t)r;
        }
        if (c == 0 || c >= size)
            break;
        if (c > cut[np - 1])
            cut[np++] = c;
    }
    cut[np] = size;
    return np;
}

/* w: a scanner for the bytes [from, to) of s's file, with the rules rules; its window is
   made and filled by csv_part_run. */
static void csv_part_scanner(Scanner *w, const Scanner *s, uint64_t from, uint64_t to,
                             ScanRule *rules)
{
    memset(w, 0, sizeof *w);
    w->name = s->name;
    w->format = SCAN_CSV;
    w->fd = s->fd; /* (s's: pread() at the part's own offsets) */
    w->fsize = to;
    w->fgot = from;
    w->base = from;
    w->read_max = s->read_max;
    w->portable = s->portable;
    w->sep = s->sep;
    w->rules = rules;
    w->nrules = s->nrules;
    w->rule_bits = s->rule_bits;
    w->interrupted = s->interrupted;
    w->interrupt_base = s->interrupt_base;
    w->par_parts = 1;
}

/* A part's pass over its window, or (hdr) the header's and the cuts. 0, or -1. */
static int csv_part_run(CsvPart *pt)
{
    Scanner *w = &pt->w;
    if (alloc_window(w, WINDOW) != 0 || refill(w, 0, 0) != 0)
        return -1;
    if (pt->hdr == NULL)
        return csv_pass(w, pt->pre, NULL);
    if (csv_pass(w, NULL, pt->hdr) != 0 || pt->hdr->ncols == 0)
        return -1;
    pt->np = csv_cuts(w, pt->hdr->end, pt->nparts, pt->cut);
    return pt->np < 0 ? -1 : 0;
}

static void *csv_part_main(void *arg)
{
    CsvPart *pt = (CsvPart *)arg;
    pt->rc = csv_part_run(pt);
    return NULL;
}

/*
** How many parts to scan s in at once: 1 (serial) unless it is a regular file of at
** least par_min bytes whose every rule adds numbers to an exact accumulator of its
** own (a sketch keeps no samples to add in file order; two columns into one
** accumulator interleave by batches; a record callback is Lua).
*/
static int csv_parts(const Scanner *s)
{
    if (s->fsize == 0 || s->gz != NULL || s->one_by_one || s->nfields > 0 || s->nrules == 0 ||
        s->threads == 1)
        return 1;
    if (s->fsize < (s->par_min ? s->par_min : SCAN_PAR_MIN))
        return 1;
    for (int m = 0; m < s->nrules; m++) {
        const ScanRule *r = &s->rules[m];
        if (r->sink != SINK_STATS || r->stats == NULL || r->stats->sketch)
            return 1;
        for (int k = 0; k < m; k++)
            if (s->rules[k].stats == r->stats)
                return 1;
    }
    long n = s->threads > 0 ? s->threads : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > CSV_MAX_PARTS ? CSV_MAX_PARTS : (int)n;
}

/*
** src's samples after dst's, as the serial scan adds them (stats_add_many gives the
** same bits whatever the batches), a block (CSV_MERGE_BLOCK bytes, at addresses aligned
** to it) at a time; the whole blocks of src added are handed back on the way, so that a
** part's samples are not held twice. Whole huge pages: a part's samples lie in huge
** pages (stats.c), and handing back half of one splits it first. With 1 MiB blocks at
** 4 KiB pages, csv_floats (200 MB, 2 parts) spent 35 ms more CPU in the merge (perf:
** exact_pairs_avx at 6.7 ns a sample there, 1 ns in the scan), a quarter of the whole
** scan's; the peak RSS is the same (93.5 MB).
*/
#define CSV_MERGE_BLOCK ((size_t)2 << 20)
static int csv_merge_samples(Stats *dst, Stats *src)
{
    /* (src's samples as it keeps them: 4 bytes each as floats, else 8) */
    const size_t size = src->f32 ? sizeof(float) : sizeof(double);
    const size_t slice = CSV_MERGE_BLOCK / size, block = CSV_MERGE_BLOCK;
    const char *base = (const char *)src->v;
    uintptr_t gone = ((uintptr_t)base + block - 1) & ~(uintptr_t)(block - 1); /* whole ones */
    for (size_t i = 0; i < src->n; i += slice) {
        size_t k = src->n - i < slice ? src->n - i : slice;
        if (stats_add_range(dst, src, i, k) != STATS_OK)
            return -1;
        uintptr_t upto = (uintptr_t)(base + (i + k) * size) & ~(uintptr_t)(block - 1);
        if (upto > gone) {
            (void)madvise((void *)gone, (size_t)(upto - gone), MADV_DONTNEED);
            gone = upto;
        }
    }
    return 0;
}

/* fn(arg) in a new thread that takes no asynchronous signal (Ctrl-C): the calling thread
   does, and the parts see the counter it sets. 1 when started. */
static int csv_thread(pthread_t *tid, void *(*fn)(void *), void *arg)
{
    sigset_t block, old;
    sigfillset(&block);
    sigdelset(&block, SIGBUS);
    sigdelset(&block, SIGSEGV);
    sigdelset(&block, SIGFPE);
    sigdelset(&block, SIGILL);
    int masked = pthread_sigmask(SIG_BLOCK, &block, &old) == 0;
    int started = pthread_create(tid, NULL, fn, arg) == 0;
    if (masked)
        (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
    return started;
}

/* The samples of the parts after the first, in file order, into the rules' accumulators
   from .. to - 1 (csv_merge_samples). */
typedef struct CsvMerge {
    Scanner *s;
    Stats *own; /* np * nrules: part k's of rule m at k * nrules + m */
    int np, from, to, rc;
} CsvMerge;

static void *csv_merge_rules(void *arg)
{
    CsvMerge *mg = (CsvMerge *)arg;
    int nr = mg->s->nrules;
    mg->rc = 0;
    for (int m = mg->from; m < mg->to && mg->rc == 0; m++)
        for (int k = 1; k < mg->np && mg->rc == 0; k++)
            mg->rc = csv_merge_samples(mg->s->rules[m].stats, &mg->own[k * nr + m]);
    return NULL;
}

/* The window a part's scanner made (it shares s's descriptor, which stays open). */
static void csv_part_free(Scanner *w)
{
    release_window(w);
}

/*
** s, a large CSV file, in nparts parts at once: cut after a line feed near each
** nparts-th of the rows, the first part scanned here into the rules' accumulators,
** the others each in a thread into exact accumulators of their own, whose samples
** then follow in file order. Each part is read into a window of its own, with pread()
** from its own offsets, up to the file's size when opened (an end before it: the file
** shrank). A cut is a guess (a quoted field may hold a line feed): it holds when the
** part before it reads to its end without an error, which then ends a row there; the
** first part starts at the file's start. Any error, any part: the accumulators are put
** back and the caller scans the file serially (its result and its messages are the
** reference). 0 when done, 1 for the serial scan.
*/
static int csv_parallel(Scanner *s, int nparts)
{
    int nr = s->nrules, rc = 1, nsaved = 0;
    CsvPart *pt = (CsvPart *)calloc((size_t)nparts, sizeof *pt);
    ScanRule *rules = (ScanRule *)calloc((size_t)nparts * (size_t)nr, sizeof *rules);
    Stats *own = (Stats *)calloc((size_t)nparts * (size_t)nr, sizeof *own);
    StatsSaved *saved = (StatsSaved *)calloc((size_t)nr, sizeof *saved);
    int *col_of = (int *)calloc((size_t)nr, sizeof *col_of);
    uint64_t cut[CSV_MAX_PARTS + 1];
    int np = 1;
    if (pt == NULL || rules == NULL || own == NULL || saved == NULL || col_of == NULL)
        goto out;
    for (int i = 0; i < nparts * nr; i++)
        stats_init(&own[i], 0);

    /* the header, as the serial scan reads it, and the cuts */
    CsvHeader hdr = {0, col_of, 0};
    memcpy(rules, s->rules, (size_t)nr * sizeof *rules);
    csv_part_scanner(&pt[0].w, s, 0, s->fsize, rules);
    pt[0].hdr = &hdr;
    pt[0].cut = cut;
    pt[0].nparts = nparts;
    int found = csv_part_run(&pt[0]);
    csv_part_free(&pt[0].w);
    if (found != 0 || pt[0].np < 2)
        goto out;
    np = pt[0].np;
    pt[0].hdr = NULL;
    if (s->on_cuts != NULL)
        s->on_cuts(s, cut, np);

    for (int m = 0; m < nr; m++, nsaved++)
        if (stats_save(s->rules[m].stats, &saved[m]) != STATS_OK)
            goto out;
    for (int k = 0; k < np; k++) {
        ScanRule *rk = rules + (size_t)k * (size_t)nr;
        memcpy(rk, s->rules, (size_t)nr * sizeof *rk);
        for (int m = 0; m < nr; m++) {
            rk[m].matched = rk[m].skipped = rk[m].empty = 0;
            rk[m].tent = NULL;
            rk[m].ntent = rk[m].tcap = 0;
            if (k > 0) {
                own[k * nr + m].portable = s->rules[m].stats->portable;
                rk[m].stats = &own[k * nr + m];
            }
        }
        csv_part_scanner(&pt[k].w, s, cut[k], cut[k + 1], rk);
        pt[k].pre = k > 0 ? &hdr : NULL;
    }
    for (int k = 1; k < np; k++) {
        pt[k].rc = -1;
        pt[k].started = csv_thread(&pt[k].tid, csv_part_main, &pt[k]);
    }
    pt[0].rc = csv_part_run(&pt[0]);
    int ok = pt[0].rc == 0;
    size_t windows = 0; /* the parts' windows, held at once */
    for (int k = 0; k < np; k++) {
        if (k > 0 && pt[k].started)
            (void)pthread_join(pt[k].tid, NULL);
        ok &= (k == 0 || pt[k].started) && pt[k].rc == 0;
        windows += pt[k].w.window_max;
        csv_part_free(&pt[k].w);
    }
    if (windows > s->window_max)
        s->window_max = windows;
    if (!ok)
        goto out;
    /* every part read to its end: the cuts were rows' ends. The samples follow, each
       rule's in a thread of their own where there are two rules or more (their
       accumulators are apart, csv_parts saw to it) */
    CsvMerge half[2] = {
        {s, own, np, 0,      nr / 2, -1},
        {s, own, np, nr / 2, nr,     -1}
    };
    pthread_t helper;
    int helped = nr >= 2 && csv_thread(&helper, csv_merge_rules, &half[1]);
    if (!helped)
        half[0].to = nr;
    (void)csv_merge_rules(&half[0]);
    if (helped)
        (void)pthread_join(helper, NULL);
    if (half[0].rc != 0 || (helped && half[1].rc != 0))
        goto out;
    for (int k = 0; k < np; k++) {
        for (int m = 0; m < nr; m++) {
            const ScanRule *rk = &rules[k * nr + m];
            s->rules[m].matched += rk->matched;
            s->rules[m].skipped += rk->skipped;
            s->rules[m].empty += rk->empty;
        }
        s->records += pt[k].w.records;
        s->refills += pt[k].w.refills;
    }
    s->base = cut[np]; /* all read (the bytes a scan counts: base + len) */
    s->eof = 1;
    s->par_parts = np;
    rc = 0;
out:
    for (int m = 0; m < nsaved; m++) {
        if (rc != 0)
            stats_restore(s->rules[m].stats, &saved[m]);
        else
            stats_saved_free(&saved[m]);
    }
    if (own != NULL)
        for (int i = 0; i < nparts * nr; i++)
            stats_free(&own[i]);
    free(own);
    free(rules);
    free(saved);
    free(col_of);
    free(pt);
    return rc;
}

/* A CSV in one pass (scan_run tried it in parts first, when that pays). */
static int scan_csv(Scanner *s)
{
    return csv_pass(s, NULL, NULL);
}
