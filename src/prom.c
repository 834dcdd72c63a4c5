/*
** prom.c — Prometheus text parsing and aggregation, as declared in prom.h.
*/
#define _GNU_SOURCE /* mremap */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "prom.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define PROM_WIDE 1
#include <immintrin.h>
#endif
#include "shown.h"

static const char *const TYPE_NAMES[] = {"untyped", "counter", "gauge",    "histogram",
                                         "summary", "info",    "stateset", "gaugehistogram"};

const char *prom_type_name(PromType t)
{
    return (unsigned)t < sizeof TYPE_NAMES / sizeof TYPE_NAMES[0] ? TYPE_NAMES[t] : "untyped";
}

/* ---- the parser -------------------------------------------------------------- */

void prom_parser_init(PromParser *p)
{
    memset(p, 0, sizeof *p);
}

static void clear_families(PromParser *p)
{
    p->nfam = 0;
    p->nnames = 0;
}

void prom_parser_free(PromParser *p)
{
    clear_families(p);
    free(p->fam);
    free(p->names);
    free(p->scratch);
    p->fam = NULL;
    p->names = NULL;
    p->scratch = NULL;
    p->capfam = p->capnames = p->scap = 0;
}

static int name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

static int label_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int label_char(char c)
{
    return label_start(c) || (c >= '0' && c <= '9');
}

static size_t skip_blanks(const char *l, size_t i, size_t n)
{
    while (i < n && (l[i] == ' ' || l[i] == '\t'))
        i++;
    return i;
}

#if defined(__GNUC__)
static int line_error(PromParser *p, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#endif

/* Records a line's error; returns -1. */
static int line_error(PromParser *p, uint64_t line, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof msg, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    (void)snprintf(p->err, sizeof p->err, "line %llu: %s", (unsigned long long)line, msg);
    return -1;
}

/* Is c one of the characters of set? (Never the NUL that ends set, which strchr finds.) */
static int in_set(char c, const char *set)
{
    return c != '\0' && strchr(set, c) != NULL;
}

/*
** A value as Prometheus writes it: a Go float, NaN, +Inf, -Inf. 0, or -1 with *bad the
** offset of the first byte that cannot belong to a number (a NUL, a letter...), or n
** when every byte could but the whole is no number ("1e", "--1").
*/
static int parse_value(const char *s, size_t n, size_t avail, double *out, size_t *bad)
{
    *bad = n;
    if (n == 0)
        return -1;
    if (json_number_in(s, n, avail, out))
        return 0;
    /* NaN, Inf and other decimal spellings Go accepts: +1, 1., .5, 1E3 (strtod reads
       them, but stops at a NUL: every byte is checked first) */
    for (size_t i = 0; i < n; i++)
        if (!in_set(s[i], "0123456789+-.eEIinfNa")) {
            *bad = i;
            return -1;
        }
    char buf[64];
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (strcmp(buf, "NaN") == 0) {
        *out = NAN;
        return 0;
    }
    if (strcmp(buf, "+Inf") == 0 || strcmp(buf, "Inf") == 0 || strcmp(buf, "+inf") == 0) {
        *out = HUGE_VAL;
        return 0;
    }
    if (strcmp(buf, "-Inf") == 0 || strcmp(buf, "-inf") == 0) {
        *out = -HUGE_VAL;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (!in_set(buf[i], "0123456789+-.eE"))
            return -1;
    char *end;
    double d = strtod(buf, &end);
    if (end != buf + n)
        return -1;
    *out = d;
    return 0;
}

static const char *const SUFFIXES[] = {"_total", "_created", "_bucket", "_sum", "_count",
                                       "_gsum",  "_gcount",  "_info",   NULL};

/* The family type of sample name n: an exact # TYPE name, or one it extends by a suffix. */
static PromType family_type(PromParser *p, const char *n, size_t nl)
{
    /* most often the family just declared */
    for (size_t k = p->nfam; k-- > 0;) {
        const PromFamily *f = &p->fam[k];
        if (f->nlen > nl || memcmp(p->names + f->name, n, f->nlen) != 0)
            continue;
        if (f->nlen == nl)
            return f->type;
        for (int s = 0; SUFFIXES[s]; s++)
            if (nl - f->nlen == strlen(SUFFIXES[s]) &&
                memcmp(n + f->nlen, SUFFIXES[s], nl - f->nlen) == 0)
                return f->type;
    }
    return PROM_UNTYPED;
}

/* "# TYPE name type", "# HELP ...", "# UNIT ...", "# EOF"; other comments are ignored.
   Returns 0, 1 for # EOF, or -1. */
static int comment(PromParser *p, const char *l, size_t n, uint64_t line)
{
    size_t i = skip_blanks(l, 1, n);
    size_t w = i;
    while (i < n && l[i] != ' ' && l[i] != '\t')
        i++;
    size_t wl = i - w;
    if (wl == 3 && memcmp(l + w, "EOF", 3) == 0)
        return 1;
    int is_type = wl == 4 && memcmp(l + w, "TYPE", 4) == 0;
    int is_meta = is_type || (wl == 4 && memcmp(l + w, "HELP", 4) == 0) ||
                  (wl == 4 && memcmp(l + w, "UNIT", 4) == 0);
    if (!is_meta)
        return 0; /* a plain comment (llm-d-benchmark's "# Pod: ..." headers too) */
    i = skip_blanks(l, i, n);
    size_t ns = i;
    if (i >= n || !name_start(l[i]))
        return line_error(p, line, "expected a metric name after '# %.*s'", (int)wl, l + w);
    while (i < n && name_char(l[i]))
        i++;
    size_t nl = i - ns;
    if (!is_type)
        return 0;
    i = skip_blanks(l, i, n);
    size_t ts = i;
    while (i < n && l[i] != ' ' && l[i] != '\t')
        i++;
    size_t tl = i - ts;
    if (skip_blanks(l, i, n) != n)
        return line_error(p, line, "unexpected text after the metric type");
    int type = -1;
    for (int k = 0; k < (int)(sizeof TYPE_NAMES / sizeof TYPE_NAMES[0]); k++)
        if (strlen(TYPE_NAMES[k]) == tl && memcmp(TYPE_NAMES[k], l + ts, tl) == 0)
            type = k;
    if (tl == 7 && memcmp(l + ts, "unknown", 7) == 0)
        type = PROM_UNTYPED;
    if (type < 0)
        return line_error(p, line,
                          "unknown metric type '%.*s' (expected counter, gauge, "
                          "histogram, summary or untyped)",
                          (int)(tl > 40 ? 40 : tl), l + ts);
    if (p->nfam == p->capfam) {
        size_t cap = p->capfam ? p->capfam * 2 : 64;
        PromFamily *f = (PromFamily *)realloc(p->fam, cap * sizeof *f);
        if (f == NULL)
            return line_error(p, line, "out of memory");
        p->fam = f;
        p->capfam = cap;
    }
    if (p->nnames + nl > p->capnames) {
        size_t cap = p->capnames ? p->capnames * 2 : 1024;
        while (cap < p->nnames + nl)
            cap *= 2;
        char *names = (char *)realloc(p->names, cap);
        if (names == NULL)
            return line_error(p, line, "out of memory");
        p->names = names;
        p->capnames = cap;
    }
    PromFamily *f = &p->fam[p->nfam];
    memcpy(p->names + p->nnames, l + ns, nl);
    f->name = p->nnames;
    p->nnames += nl;
    f->nlen = nl;
    f->type = (PromType)type;
    p->nfam++;
    return 0;
}

/* A sample line into s (label values unescaped into p->scratch; avail bytes readable
   from l). 0, or -1. */
static int sample(PromParser *p, const char *l, size_t n, size_t avail, uint64_t line,
                  PromSample *s)
{
    size_t i = 0;
    if (!name_start(l[0]))
        return line_error(p, line, "expected a metric name, found '%c'", l[0]);
    while (i < n && name_char(l[i]))
        i++;
    s->name = l;
    s->nlen = i;
    s->nlabels = 0;
    if (p->scap < n + 1) {
        char *sc = (char *)realloc(p->scratch, n + 1);
        if (sc == NULL)
            return line_error(p, line, "out of memory");
        p->scratch = sc;
        p->scap = n + 1;
    }
    size_t o = 0; /* unescaped label values never outgrow the line */
    if (i < n && l[i] == '{') {
        i++;
        for (;;) {
            i = skip_blanks(l, i, n);
            if (i < n && l[i] == '}') {
                i++;
                break;
            }
            if (i >= n || !label_start(l[i]))
                return line_error(p, line, "expected a label name or '}' at column %zu", i + 1);
            if (s->nlabels == PROM_MAX_LABELS)
                return line_error(p, line, "more than %d labels", PROM_MAX_LABELS);
            PromLabel *lab = &s->labels[s->nlabels++];
            lab->name = l + i;
            while (i < n && label_char(l[i]))
                i++;
            lab->nlen = (size_t)(l + i - lab->name);
            for (int k = 0; k < s->nlabels - 1; k++)
                if (s->labels[k].nlen == lab->nlen &&
                    !memcmp(s->labels[k].name, lab->name, lab->nlen))
                    return line_error(p, line, "duplicate label '%.*s'", (int)lab->nlen, lab->name);
            i = skip_blanks(l, i, n);
            if (i >= n || l[i] != '=')
                return line_error(p, line, "expected '=' after label '%.*s'", (int)lab->nlen,
                                  lab->name);
            i = skip_blanks(l, i + 1, n);
            if (i >= n || l[i] != '"')
                return line_error(p, line, "expected '\"' to open the value of label '%.*s'",
                                  (int)lab->nlen, lab->name);
            i++;
            lab->value = p->scratch + o;
            for (;;) {
                if (i >= n)
                    return line_error(p, line, "unterminated value of label '%.*s'", (int)lab->nlen,
                                      lab->name);
                char c = l[i++];
                if (c == '"')
                    break;
                if (c == '\\') {
                    char e = '\0';
                    if (i < n)
                        e = l[i++];
                    if (e == '\\' || e == '"')
                        c = e;
                    else if (e == 'n')
                        c = '\n';
                    else
                        return line_error(p, line,
                                          "invalid escape '\\%c' in label '%.*s' "
                                          "(expected \\\\, \\\" or \\n)",
                                          e ? e : '0', (int)lab->nlen, lab->name);
                }
                p->scratch[o++] = c;
            }
            lab->vlen = (size_t)(p->scratch + o - lab->value);
            i = skip_blanks(l, i, n);
            if (i < n && l[i] == ',') {
                i++;
                continue;
            }
            if (i < n && l[i] == '}') {
                i++;
                break;
            }
            return line_error(p, line, "expected ',' or '}' after the value of label '%.*s'",
                              (int)lab->nlen, lab->name);
        }
    }
    s->raw = l;
    s->rawlen = i;
    if (i >= n || (l[i] != ' ' && l[i] != '\t'))
        return line_error(p, line, "expected a space and a value after '%.*s'",
                          (int)(s->nlen > 60 ? 60 : s->nlen), s->name);
    i = skip_blanks(l, i, n);
    size_t vs = i;
    while (i < n && l[i] != ' ' && l[i] != '\t')
        i++;
    size_t bad;
    if (parse_value(l + vs, i - vs, avail - vs, &s->value, &bad) != 0) {
        char text[200];
        (void)shown(text, sizeof text, l + vs, i - vs);
        if (bad < i - vs) {
            char what[8];
            return line_error(
                p, line, "invalid value '%s': byte '%s' at column %zu cannot be part of a number",
                text, shown(what, sizeof what, l + vs + bad, 1), vs + bad + 1);
        }
        return line_error(p, line, "invalid value '%s' (expected a number, NaN, +Inf or -Inf)",
                          text);
    }
    i = skip_blanks(l, i, n);
    s->has_ts = 0;
    if (i < n && l[i] != '#') {
        size_t ts = i;
        while (i < n && l[i] != ' ' && l[i] != '\t')
            i++;
        if (!json_number_value(l + ts, i - ts, &s->ts)) {
            char text[200];
            return line_error(p, line, "invalid timestamp '%s' at column %zu",
                              shown(text, sizeof text, l + ts, i - ts), ts + 1);
        }
        s->has_ts = 1;
        i = skip_blanks(l, i, n);
    }
    /* an OpenMetrics exemplar ("# {...} value") is allowed and ignored */
    if (i < n && l[i] != '#')
        return line_error(p, line, "unexpected text after the sample");
    s->type = family_type(p, s->name, s->nlen);
    s->line = line;
    return 0;
}

/* Parses the lines of text[0..len), numbering from *line; # EOF sets *eof. */
static int parse_lines(PromParser *p, const char *text, size_t len, PromSampleFn fn, void *ud,
                       uint64_t *line, int *eof)
{
    PromSample s;
    const char *t = text, *end = text + len;
    while (t < end) {
        if (p->interrupted != NULL && *p->interrupted != p->interrupt_base) {
            (void)snprintf(p->err, sizeof p->err, "line %llu: interrupted",
                           (unsigned long long)*line + 1);
            return -1;
        }
        const char *nl = (const char *)memchr(t, '\n', (size_t)(end - t));
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - t);
        const char *l = t;
        t = nl ? nl + 1 : end;
        ++*line;
        if (n > 0 && l[n - 1] == '\r')
            n--;
        if (skip_blanks(l, 0, n) == n)
            continue;
        int rc;
        if (nl == NULL && l[0] != '#') {
            /* every line ends with a newline: a last one without looks cut off, and its
               value may be too (123.5 read as 12) */
            rc = line_error(p, *line,
                            "no newline at the end of the last line: the scrape "
                            "looks cut off");
        } else if (l[0] == '#') {
            rc = comment(p, l, n, *line);
            if (rc == 1) {
                *eof = 1;
                return 0; /* # EOF */
            }
        } else {
            rc = sample(p, l, n, (size_t)(end - l), *line, &s);
            if (rc == 0 && fn(ud, &s) != 0)
                return -2;
        }
        if (rc < 0) {
            if (!p->tolerant)
                return -1;
            if (p->skipped++ == 0) {
                (void)snprintf(p->first_bad, sizeof p->first_bad, "%s", p->err);
            }
        }
    }
    return 0;
}

static void parse_begin(PromParser *p)
{
    clear_families(p);
    p->skipped = 0;
}

int prom_parse(PromParser *p, const char *text, size_t len, PromSampleFn fn, void *ud)
{
    uint64_t line = 0;
    int eof = 0;
    parse_begin(p);
    return parse_lines(p, text, len, fn, ud, &line, &eof);
}

int prom_parse_fd(PromParser *p, int fd, PromSampleFn fn, void *ud)
{
    size_t cap = 1u << 20, len = 0;
    char *buf = (char *)malloc(cap);
    uint64_t line = 0;
    int eof = 0, rc = 0, done = 0;
    parse_begin(p);
    if (buf == NULL)
        return line_error(p, 0, "out of memory");
    while (!done && !eof && rc == 0) {
        if (len == cap) { /* a line longer than the buffer: grow */
            char *b = (char *)realloc(buf, cap * 2);
            if (b == NULL) {
                rc = line_error(p, line + 1, "out of memory for a line of %zu bytes", len);
                break;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = line_error(p, line + 1, "cannot read: %s", strerror(errno));
            break;
        }
        len += (size_t)r;
        done = r == 0;
        /* parse up to the last complete line; at the end, whatever is left */
        size_t upto = len;
        if (!done) {
            /* in what was just read: the bytes before it hold no newline (they are what
               is left of a line), so a long line is not searched again at every read */
            const char *last = NULL;
            for (size_t i = len; i-- > len - (size_t)r;)
                if (buf[i] == '\n') {
                    last = buf + i;
                    break;
                }
            if (last == NULL)
                continue;
            upto = (size_t)(last - buf) + 1;
        }
        rc = parse_lines(p, buf, upto, fn, ud, &line, &eof);
        memmove(buf, buf + upto, len - upto);
        len -= upto;
    }
    free(buf);
    return rc;
}

/* ---- the aggregator ---------------------------------------------------------- */

/*
** Its memory. A pod's first scrape makes ~500 series, and their tables and strings are
** new memory: on the bench VM a page fault costs several microseconds and a TLB miss a
** nested walk, and that scrape cost more in them than in its parse. So a table from
** TABLE_HUGE_AT bytes on is a mapping of its own in huge pages, the strings come from
** chunks (the first of 64 KiB, then a huge page each), and a smaller table is
** prefaulted in one call.
*/

/* Makes the whole pages of p[0, n) present and writable in one call (MADV_POPULATE_WRITE,
   Linux 5.14 on; elsewhere, or when it fails, the first writes fault them in). No byte
   changes. Only from POPULATE_AT_LEAST bytes on: below, the call costs more than the
   faults it spares. */
#define POPULATE_AT_LEAST ((size_t)16 << 10)
static void populate(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    if (n < POPULATE_AT_LEAST)
        return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t to = ((uintptr_t)p + n) & ~(page - 1);
    if (to > from)
        (void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

#define HUGE_PAGE ((size_t)2 << 20)
#define TABLE_HUGE_AT ((size_t)256 << 10) /* a table from this size on is a mapping */

#if defined(__linux__)
/* len bytes (a multiple of HUGE_PAGE), zeros, a mapping of their own aligned to a huge
   page and advised into huge pages; NULL when out of memory. */
static void *huge_map(size_t len)
{
    char *p = (char *)mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *q = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (q > p)
        (void)munmap(p, (size_t)(q - p));
    if (p + HUGE_PAGE > q)
        (void)munmap(q + len, (size_t)(p + HUGE_PAGE - q));
#ifdef MADV_HUGEPAGE
    (void)madvise(q, len, MADV_HUGEPAGE);
#endif
    return q;
}
#endif

/* A table of bytes bytes, zeros (calloc's answer), freed by table_free with the same size. */
static void *table_new(size_t bytes)
{
#if defined(__linux__)
    if (bytes >= TABLE_HUGE_AT)
        return huge_map((bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
#endif
    void *p = calloc(1, bytes);
    if (p != NULL)
        populate(p, bytes);
    return p;
}

static void table_free(void *p, size_t bytes)
{
    if (p == NULL)
        return;
#if defined(__linux__)
    if (bytes >= TABLE_HUGE_AT) {
        (void)munmap(p, (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
        return;
    }
#endif
    free(p);
}

/* The bytes a table of bytes bytes has room for: a mapping's are whole huge pages. */
static size_t table_room(size_t bytes)
{
#if defined(__linux__)
    if (bytes >= TABLE_HUGE_AT)
        return (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
#endif
    return bytes;
}

/* Table p of old bytes grown to bytes (what it held kept, the rest zeros), or NULL (p
   as it was). A mapping grows by mremap: the page tables move, not the bytes. */
static void *table_grow(void *p, size_t old, size_t bytes)
{
#if defined(__linux__)
    if (old >= TABLE_HUGE_AT) {
        size_t from = (old + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        size_t to = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *q = to == from ? p : mremap(p, from, to, MREMAP_MAYMOVE);
        return q == MAP_FAILED ? NULL : q;
    }
#endif
    void *q = table_new(bytes);
    if (q == NULL)
        return NULL;
    if (old > 0)
        memcpy(q, p, old);
    table_free(p, old);
    return q;
}

/* The head of an arena chunk (prom_agg_free's list). */
typedef struct ArenaHead {
    void *next;
    size_t map_len; /* 0: malloc's */
} ArenaHead;

void prom_agg_init(PromAgg *a)
{
    memset(a, 0, sizeof *a);
    prom_parser_init(&a->parser);
    a->t_min = HUGE_VAL;
    a->t_max = -HUGE_VAL;
    a->cache_max = PROM_CACHE_MAX;
#ifdef PROM_WIDE
    __builtin_cpu_init();
    a->wide = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
              __builtin_cpu_supports("bmi2");
#endif
}

void prom_agg_free(PromAgg *a)
{
    for (size_t i = 0; i < a->n; i++) {
        PromSeries *s = &a->series[i];
        if (s->values != NULL)
            stats_free(s->values);
    }
    table_free(a->series, a->cap * sizeof *a->series);
    table_free(a->slot, a->nslot * sizeof *a->slot);
    table_free(a->raw, a->rawcap * sizeof *a->raw);
    for (void *c = a->chunks, *next; c != NULL; c = next) {
        ArenaHead h;
        memcpy(&h, c, sizeof h);
        next = h.next;
        if (h.map_len)
            munmap(c, h.map_len);
        else
            free(c);
    }
    for (size_t i = 0; i < a->npods; i++) {
        PromPodCache *c = &a->pods[i];
        free(c->pod); /* (its positions are in the arena) */
    }
    free(a->pods);
    free(a->file);
    for (int i = 0; i < a->nmatch; i++)
        free(a->match[i]);
    free(a->match);
    free(a->key);
    free(a->names);
    free(a->name_next);
    prom_parser_free(&a->parser);
    memset(a, 0, sizeof *a);
}

/* A fast hash of n bytes, 8 at a time (a multiply-xorshift mix per word). */
static uint64_t hash_more(uint64_t h, const char *p, size_t n)
{
    const uint64_t k = 0x9E3779B97F4A7C15ULL;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w ^ ((uint64_t)n << 56)) * k;
    return h ^ (h >> 32);
}

static uint64_t fnv(const char *p, size_t n)
{
    return hash_more(0x243F6A8885A308D3ULL, p, n);
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static int matches(const PromAgg *a, const char *name, size_t nl)
{
    if (a->nmatch == 0)
        return 1;
    for (int i = 0; i < a->nmatch; i++) {
        const char *m = a->match[i];
        size_t ml = strlen(m);
        if (ml > 0 && m[ml - 1] == '*') {
            if (nl >= ml - 1 && memcmp(name, m, ml - 1) == 0)
                return 1;
            continue;
        }
        if (ml == nl && memcmp(m, name, nl) == 0)
            return 1;
        for (int s = 0; SUFFIXES[s]; s++) /* a family name takes its series too */
            if (nl == ml + strlen(SUFFIXES[s]) && memcmp(name, m, ml) == 0 &&
                memcmp(name + ml, SUFFIXES[s], nl - ml) == 0)
                return 1;
    }
    return 0;
}

static int key_reserve(PromAgg *a, size_t need)
{
    if (need <= a->kcap)
        return 0;
    size_t cap = a->kcap ? a->kcap : 256;
    while (cap < need)
        cap *= 2;
    char *k = (char *)realloc(a->key, cap);
    if (k == NULL)
        return -1;
    a->key = k;
    a->kcap = cap;
    return 0;
}

/*
** Writes pod \1 name \1 canonical labels (sorted by name, values escaped) into a->key,
** skipping the label named skip (for _created companions of buckets). Returns the
** length, and in *lab_off where the labels start, or 0 when out of memory.
*/
static size_t make_key(PromAgg *a, const char *pod, const char *name, size_t nl,
                       const PromLabel *labels, int nlabels, const char *skip, size_t *lab_off)
{
    int order[PROM_MAX_LABELS];
    for (int i = 0; i < nlabels; i++) {
        int j = i;
        while (j > 0) {
            const PromLabel *x = &labels[order[j - 1]], *y = &labels[i];
            size_t m = x->nlen < y->nlen ? x->nlen : y->nlen;
            int c = memcmp(x->name, y->name, m);
            if (c < 0 || (c == 0 && x->nlen <= y->nlen))
                break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    size_t need = strlen(pod) + nl + 4;
    for (int i = 0; i < nlabels; i++)
        need += labels[i].nlen + 2 * labels[i].vlen + 4;
    if (key_reserve(a, need + 1) != 0)
        return 0;
    char *k = a->key;
    size_t o = 0, pl = strlen(pod);
    memcpy(k, pod, pl);
    o += pl;
    k[o++] = '\1';
    memcpy(k + o, name, nl);
    o += nl;
    k[o++] = '\1';
    *lab_off = o;
    int first = 1;
    for (int i = 0; i < nlabels; i++) {
        const PromLabel *l = &labels[order[i]];
        if (skip != NULL && strlen(skip) == l->nlen && memcmp(skip, l->name, l->nlen) == 0)
            continue;
        if (!first)
            k[o++] = ',';
        first = 0;
        memcpy(k + o, l->name, l->nlen);
        o += l->nlen;
        k[o++] = '=';
        k[o++] = '"';
        for (size_t v = 0; v < l->vlen; v++) {
            char c = l->value[v];
            if (c == '\\' || c == '"') {
                k[o++] = '\\';
                k[o++] = c;
            } else if (c == '\n') {
                k[o++] = '\\';
                k[o++] = 'n';
            } else {
                k[o++] = c;
            }
        }
        k[o++] = '"';
    }
    k[o] = '\0';
    return o;
}

static int same_key(const PromSeries *s, const char *key, size_t klen)
{
    size_t pl = s->pod_len, nl = s->name_len, ll = s->labels_len;
    return pl + nl + ll + 2 == klen && memcmp(key, s->pod, pl) == 0 && key[pl] == '\1' &&
           memcmp(key + pl + 1, s->name, nl) == 0 && key[pl + 1 + nl] == '\1' &&
           memcmp(key + pl + nl + 2, s->labels, ll) == 0;
}

/* The series index for key (length klen, hash h), or SIZE_MAX. */
static size_t lookup(const PromAgg *a, const char *key, size_t klen, uint64_t h)
{
    if (a->nslot == 0)
        return (size_t)-1;
    for (size_t i = h & (a->nslot - 1);; i = (i + 1) & (a->nslot - 1)) {
        uint64_t v = a->slot[i];
        if (v == 0)
            return (size_t)-1;
        if (v >> 32 != h >> 32)
            continue;
        const PromSeries *s = &a->series[(uint32_t)v - 1];
        if (s->hash == h && same_key(s, key, klen))
            return (uint32_t)v - 1;
    }
}

/* The slot of series idx, of hash h. */
static uint64_t slot_of(uint64_t h, size_t idx)
{
    return (h >> 32 << 32) | (uint32_t)(idx + 1);
}

static int grow_slots(PromAgg *a)
{
    size_t ns = a->nslot ? a->nslot * 2 : 1024;
    uint64_t *slot = (uint64_t *)table_new(ns * sizeof *slot);
    if (slot == NULL)
        return -1;
    for (size_t k = 0; k < a->n; k++) {
        size_t i = a->series[k].hash & (ns - 1);
        while (slot[i] != 0)
            i = (i + 1) & (ns - 1);
        slot[i] = slot_of(a->series[k].hash, k);
    }
    table_free(a->slot, a->nslot * sizeof *a->slot);
    a->slot = slot;
    a->nslot = ns;
    return 0;
}

/* n bytes and a terminating 0 from a->arena (when they do not fit, a new chunk: the first
   of ARENA_CHUNK bytes, the next a huge page each; of their own when they are a large part
   of one), or NULL when out of memory. */
#define ARENA_CHUNK ((size_t)64 << 10)

/* arena_get's new chunk for need bytes (need > a->arena_left), out of its loop. */
static __attribute__((noinline)) char *arena_chunk(PromAgg *a, size_t need)
{
    size_t head = sizeof(ArenaHead);
    int own = need > (a->chunks != NULL ? HUGE_PAGE : ARENA_CHUNK) / 4;
    size_t size = own ? head + need : a->chunks != NULL ? HUGE_PAGE : ARENA_CHUNK;
    size_t map_len = 0;
    char *c;
#if defined(__linux__)
    if (size == HUGE_PAGE) {
        c = (char *)huge_map(HUGE_PAGE);
        map_len = HUGE_PAGE;
    } else
#endif
    {
        c = (char *)malloc(size);
        if (c != NULL)
            populate(c, size);
    }
    if (c == NULL)
        return NULL;
    ArenaHead h = {a->chunks, map_len};
    memcpy(c, &h, sizeof h);
    a->chunks = c;
    if (own) /* the newest chunk's free bytes stay the newest */
        return c + head;
    a->arena = c + head + need;
    a->arena_left = size - head - need;
    return c + head;
}

static inline char *arena_get(PromAgg *a, size_t n)
{
    size_t need = (n + 1 + 7) & ~(size_t)7;
    if (need > a->arena_left)
        return arena_chunk(a, need);
    char *d = a->arena;
    a->arena += need;
    a->arena_left -= need;
    return d;
}

static char *arena_dup(PromAgg *a, const char *s, size_t n)
{
    char *d = arena_get(a, n);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = (char *)malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* The raw-text hash of (the pod being added, name{labels} as written). */
static uint64_t raw_hash(const PromAgg *a, const PromSample *sm)
{
    return hash_more(a->pod_hash, sm->raw, sm->rawlen);
}

static size_t raw_lookup(const PromAgg *a, const PromSample *sm, uint64_t h)
{
    if (a->rawcap == 0)
        return (size_t)-1;
    const char *pod = a->pod;
    size_t pl = a->pod_len;
    for (size_t i = h & (a->rawcap - 1);; i = (i + 1) & (a->rawcap - 1)) {
        const PromRaw *r = &a->raw[i];
        if (r->series == 0)
            return (size_t)-1;
        if (r->hash == h && r->klen == pl + 1 + sm->rawlen && memcmp(r->key, pod, pl) == 0 &&
            memcmp(r->key + pl + 1, sm->raw, sm->rawlen) == 0)
            return r->series - 1;
    }
}

/* Remembers that this text of pod leads to series idx (a cache: failure is harmless). */
static void raw_insert(PromAgg *a, const PromSample *sm, uint64_t h, size_t idx)
{
    const char *pod = a->pod;
    if ((a->nraw + 1) * 2 > a->rawcap) {
        size_t cap = a->rawcap ? a->rawcap * 2 : 1024;
        /* a mapping: as many entries as its huge pages hold (a power of 2 as well), so
           that one more rehash into another mapping is that much further off */
        cap = table_room(cap * sizeof(PromRaw)) / sizeof(PromRaw);
        PromRaw *r = (PromRaw *)table_new(cap * sizeof *r);
        if (r == NULL)
            return;
        for (size_t k = 0; k < a->rawcap; k++) {
            if (a->raw[k].series == 0)
                continue;
            size_t i = a->raw[k].hash & (cap - 1);
            while (r[i].series != 0)
                i = (i + 1) & (cap - 1);
            r[i] = a->raw[k];
        }
        table_free(a->raw, a->rawcap * sizeof *a->raw);
        a->raw = r;
        a->rawcap = cap;
    }
    size_t pl = a->pod_len;
    char *key = arena_get(a, pl + 1 + sm->rawlen); /* terminated, though compared by length */
    if (key == NULL)
        return;
    memcpy(key, pod, pl);
    key[pl] = '\1';
    memcpy(key + pl + 1, sm->raw, sm->rawlen);
    key[pl + 1 + sm->rawlen] = '\0';
    size_t i = h & (a->rawcap - 1);
    while (a->raw[i].series != 0)
        i = (i + 1) & (a->rawcap - 1);
    a->raw[i] = (PromRaw){h, key, pl + 1 + sm->rawlen, (uint32_t)(idx + 1)};
    a->nraw++;
}

static int next_label(const char **p, const char **name, size_t *nl, const char **raw, size_t *rl);

/* Do canonical label texts a (a counter part, perhaps with le) and b (its _created) name
   the same labels, le aside? */
static int same_labels_but_le(const char *a, const char *b)
{
    const char *pa = a, *pb = b, *na, *nb, *ra, *rb;
    size_t la, lb, rla, rlb;
    for (;;) {
        int ha;
        while ((ha = next_label(&pa, &na, &la, &ra, &rla)) && la == 2 && memcmp(na, "le", 2) == 0)
            ;
        int hb = next_label(&pb, &nb, &lb, &rb, &rlb);
        if (!ha || !hb)
            return ha == hb;
        if (la != lb || rla != rlb || memcmp(na, nb, la) != 0 || memcmp(ra, rb, rla) != 0)
            return 0;
    }
}

/*
** Series c (a _created companion) moved at time t: its counters restarted. Each counter
** part of the same pod and labels (_total, _sum, _count, every _bucket) that took this
** scrape's sample as a rise gets it counted as a reset (from 0) instead; one whose sample
** comes later in the scrape is told to (pending_reset). A restart is rare, so a walk.
*/
static void created_moved(PromAgg *a, const PromSeries *c, double t)
{
    static const char *const PARTS[] = {"_total", "_sum", "_count", "_bucket", NULL};
    size_t bl = c->name_len - 8; /* less "_created" */
    for (size_t i = 0; i < a->n; i++) {
        PromSeries *s = &a->series[i];
        if (!s->counter_like || s->pod_len != c->pod_len ||
            memcmp(s->pod, c->pod, c->pod_len) != 0 || s->name_len <= bl ||
            memcmp(s->name, c->name, bl) != 0)
            continue;
        int part = 0;
        for (int k = 0; PARTS[k] && !part; k++)
            part = strcmp(s->name + bl, PARTS[k]) == 0;
        if (!part || !same_labels_but_le(s->labels, c->labels))
            continue;
        if (s->samples > 0 && s->last_t == t) {
            if (s->samples > 1 && !s->last_reset) {
                s->increase += s->prev_v; /* it rose by v - prev: it counted v from 0 */
                s->resets++;
                s->last_reset = 1;
            }
        } else {
            s->pending_reset = 1;
            s->pending_t = t;
            s->fast = 0;
        }
    }
}

static inline int update(PromAgg *a, size_t idx, double v, uint64_t line);

static int on_sample(void *ud, const PromSample *sm)
{
    PromAgg *a = (PromAgg *)ud;
    a->found = (size_t)-1;
    if (!matches(a, sm->name, sm->nlen))
        return 0;
    uint64_t rh = raw_hash(a, sm);
    size_t idx = raw_lookup(a, sm, rh);
    if (idx != (size_t)-1) {
        a->found = idx;
        return update(a, idx, sm->value, sm->line);
    }
    size_t lab_off;
    size_t klen = make_key(a, a->pod, sm->name, sm->nlen, sm->labels, sm->nlabels, NULL, &lab_off);
    if (klen == 0) {
        (void)snprintf(a->err, sizeof a->err, "out of memory");
        return 1;
    }
    uint64_t h = fnv(a->key, klen);
    idx = lookup(a, a->key, klen, h);
    if (idx == (size_t)-1) {
        if ((a->n + 1) * 2 > a->nslot && grow_slots(a) != 0)
            goto oom;
        if (a->n == a->cap) {
            size_t cap = a->cap ? a->cap * 2 : 256;
            PromSeries *sr =
                (PromSeries *)table_grow(a->series, a->cap * sizeof *sr, cap * sizeof *sr);
            if (sr == NULL)
                goto oom;
            a->series = sr;
            a->cap = cap;
        }
        PromSeries *s = &a->series[a->n];
        memset(s, 0, sizeof *s);
        s->pod = arena_dup(a, a->pod, a->pod_len);
        s->name = arena_dup(a, sm->name, sm->nlen);
        s->labels = arena_dup(a, a->key + lab_off, klen - lab_off);
        if (s->pod == NULL || s->name == NULL || s->labels == NULL)
            goto oom; /* (what was cut stays in the arena) */
        s->pod_len = a->pod_len;
        s->name_len = sm->nlen;
        s->labels_len = klen - lab_off;
        s->hash = h;
        s->type = sm->type;
        const char *nm = sm->name;
        size_t nl = sm->nlen;
        s->counter_like = (sm->type == PROM_COUNTER && !ends_with(nm, nl, "_created")) ||
                          (sm->type == PROM_HISTOGRAM &&
                           (ends_with(nm, nl, "_bucket") || ends_with(nm, nl, "_sum") ||
                            ends_with(nm, nl, "_count"))) ||
                          (sm->type == PROM_SUMMARY &&
                           (ends_with(nm, nl, "_sum") || ends_with(nm, nl, "_count")));
        s->created = !s->counter_like && nl > 8 && ends_with(nm, nl, "_created");
        size_t i = h & (a->nslot - 1);
        while (a->slot[i] != 0)
            i = (i + 1) & (a->nslot - 1);
        a->slot[i] = slot_of(h, a->n);
        idx = a->n++;
    }
    raw_insert(a, sm, rh, idx);
    a->found = idx;
    return update(a, idx, sm->value, sm->line);
oom:
    (void)snprintf(a->err, sizeof a->err, "out of memory");
    return 1;
}

/* Sample value v of series idx, read at line of the scrape being added. 0, or 1 with
   a->err. */
/* update's answer to a sample of series s at a time not after its last one. 0, or 1
   with a->err. */
static __attribute__((noinline, cold)) int out_of_order(PromAgg *a, const PromSeries *s,
                                                        uint64_t line)
{
    double t = a->t;
    if (a->parser.tolerant) {
        a->dropped++;
        return 0;
    }
    (void)snprintf(a->err, sizeof a->err,
                   "line %llu: %s: %s%s%s%s at t=%.17g %s (a series appears once per scrape, "
                   "and scrapes are added in time order)",
                   (unsigned long long)line, a->pod, s->name, *s->labels ? "{" : "", s->labels,
                   *s->labels ? "}" : "", t,
                   t == s->last_t ? "again in the same scrape" : "is older than its last sample");
    return 1;
}

/* Inline: a call per sample was a sixth of a scrape's instructions on the cache's path.
   a->samples is counted last: a store to it (a uint64_t, as the series' counts are) before
   the series' fields are read made the compiler load each of them again. */
static inline __attribute__((always_inline)) int update(PromAgg *a, size_t idx, double v,
                                                        uint64_t line)
{
    PromSeries *s = &a->series[idx];
    const double t = a->t;
    const uint64_t n = s->samples;
    if (n > 0 && t <= s->last_t)
        return out_of_order(a, s, line);
    if (isnan(v)) {
        a->nan_samples++; /* NaN says nothing about the window: not recorded */
        a->samples++;
        return 0;
    }
    int moved = 0; /* a _created companion of a counter that changed: a restart */
    const int counter_like = s->counter_like;
    if (n == 0) {
        s->first_t = t;
        s->first_v = v;
        s->min = s->max = v;
    } else {
        const double last = s->last_v;
        moved = s->created && v != last;
        s->prev_v = last;
        int reset = v < last || (s->pending_reset && s->pending_t == t);
        s->last_reset = reset;
        s->pending_reset = 0;
        if (reset) {
            s->resets++;
            s->increase += v; /* restarted from 0 */
        } else {
            s->increase += v - last;
        }
        if (!counter_like) {
            s->tw_sum += last * (t - s->last_t);
            s->tw_dur += t - s->last_t;
        }
        if (v < s->min)
            s->min = v;
        if (v > s->max)
            s->max = v;
    }
    if (!counter_like) {
        if (s->values == NULL) {
            /* from the arena (freed with it), as the series' strings */
            s->values = (Stats *)(void *)arena_get(a, sizeof *s->values - 1);
            if (s->values == NULL)
                goto oom;
            stats_init(s->values, a->gauge_sketch);
            /* room for 64 samples to start with, not stats' 256: a gauge gets one a
               scrape, and ~100 gauges a pod made 2 KiB of new memory each */
            if (stats_reserve(s->values, 64) != STATS_OK)
                goto oom;
        }
        if (stats_add(s->values, v) != STATS_OK)
            goto oom;
    }
    s->last_t = t;
    s->last_v = v;
    s->samples = n + 1;
    s->fast = counter_like && !s->created && !s->pending_reset;
    a->samples++;
    if (moved)
        created_moved(a, s, t);
    return 0;
oom:
    a->samples++;
    (void)snprintf(a->err, sizeof a->err, "out of memory");
    return 1;
}

/* The pod's position cache, made when new (NULL when out of memory). */
static PromPodCache *pod_cache(PromAgg *a, const char *pod, size_t pl)
{
    for (size_t i = 0; i < a->npods; i++)
        if (strncmp(a->pods[i].pod, pod, pl + 1) == 0)
            return &a->pods[i];
    if (a->npods == a->cappods) {
        size_t cap = a->cappods ? a->cappods * 2 : 16;
        PromPodCache *p = (PromPodCache *)realloc(a->pods, cap * sizeof *p);
        if (p == NULL)
            return NULL;
        a->pods = p;
        a->cappods = cap;
    }
    char *name = dup_n(pod, pl);
    if (name == NULL)
        return NULL;
    a->pods[a->npods] = (PromPodCache){name, NULL, 0, 0};
    return &a->pods[a->npods++];
}

/*
** Remembers text[from, v) as what comes before the value of the pod's sample k: lines
** of it before the sample line at l, whose series is idx (SIZE_MAX: none). A cache:
** failure is harmless.
*/
static void remember(PromAgg *a, size_t k, const char *from, const char *l, const char *v,
                     uint64_t lines, size_t idx)
{
    PromPodCache *c = a->cur;
    if (c == NULL)
        return;
    size_t len = (size_t)(v - from);
    if (k >= c->cap) {
        /* from the arena's huge pages (a pod's ~500 positions in 4 KiB pages were ~190
           page faults for 16 pods, more than their parse); the first room as large as
           another pod's positions (a deployment's pods scrape alike), then doubled, the
           room before left in the arena (and counted) */
        size_t cap = 256;
        if (c->cap > 0)
            cap = c->cap * 2;
        else
            for (size_t i = 0; i < a->npods; i++)
                while (cap < a->pods[i].npos)
                    cap *= 2;
        while (cap <= k)
            cap *= 2;
        if (a->cache_bytes + cap * sizeof(PromPos) > a->cache_max)
            return;
        PromPos *pos = (PromPos *)arena_get(a, cap * sizeof *pos - 1);
        if (pos == NULL)
            return;
        if (c->npos > 0)
            memcpy(pos, c->pos, c->npos * sizeof *pos);
        a->cache_bytes += cap * sizeof *pos;
        c->pos = pos;
        c->cap = cap;
    }
    while (c->npos <= k)
        c->pos[c->npos++] = (PromPos){NULL, SIZE_MAX, 0, 0, 0, 0};
    PromPos *e = &c->pos[k];
    if (e->text == NULL || len > e->cap) {
        /* room of its own from the arena, a power of 2 from 64 bytes: a position's text
           grows a few times at most, and the room it leaves stays counted. Beyond the
           budget, or out of memory: sample k has nothing cached. */
        size_t cap = 64;
        while (cap < len)
            cap *= 2;
        char *text = a->cache_bytes + cap > a->cache_max ? NULL : arena_get(a, cap - 1);
        if (text == NULL) {
            *e = (PromPos){NULL, SIZE_MAX, 0, 0, 0, 0};
            return;
        }
        a->cache_bytes += cap;
        e->text = text;
        e->cap = cap;
    }
    memcpy(e->text, from, len);
    e->len = len;
    e->line_off = (size_t)(l - from);
    e->lines = lines;
    e->series = idx == (size_t)-1 ? 0 : (uint32_t)(idx + 1);
}

/*
** Gives comment() the comment lines of [*from, upto) (whole lines, each with its
** newline, numbered from *line + 1): their # TYPE lines type the series of a sample
** parsed in full. 0, or -1 with p->err.
*/
static int replay(PromParser *p, const char **from, uint64_t *line, const char *upto)
{
    const char *t = *from;
    while (t < upto) {
        const char *nl = (const char *)memchr(t, '\n', (size_t)(upto - t));
        const char *l = t;
        size_t n = (size_t)((nl ? nl : upto) - t);
        t = nl ? nl + 1 : upto;
        ++*line;
        if (n > 0 && l[n - 1] == '\r')
            n--;
        /* no # EOF here: the scrape that gave this text went on after it */
        if (n > 0 && l[0] == '#' && comment(p, l, n, *line) < 0)
            return -1;
    }
    *from = upto;
    return 0;
}

/* The value of the d digits (1..8) in the first bytes of w (as loaded, little-endian):
   moved to the top bytes, zeros (leading zeros) below; then pairs, fours, and the eight
   (each step: the higher-order half times a power of ten). A byte less '0' that borrows
   (a non-digit after the digits) only borrows from the bytes shifted out. */
static inline __attribute__((always_inline)) uint64_t digits8(uint64_t w, size_t d)
{
    const uint64_t ones = 0x0101010101010101ULL;
    uint64_t t = (w - ones * '0') << (8 * (8 - d));
    t = t * 10 + (t >> 8);
    return ((t & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)) +
            ((t >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32))) >>
           32;
}

/* The bytes of w that are no digit, each as a set bit among its own (0: all 8 digits):
   a byte is a digit when its high nibble is 3, and still is after adding 6 (a carry out
   of a byte >= 0xFA reaches only the bytes after it: the first non-digit, the lowest
   flagged byte, is exact). */
static inline __attribute__((always_inline)) uint64_t non_digits8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0xF0F0F0F0F0F0F0F0ULL;
    return ((w & high) ^ ones * 0x30) | (((w + ones * 6) & high) ^ ones * 0x30);
}

/*
** The value at v, when it is a whole number as vLLM writes most of them (digits without a
** leading zero, then ".0" and the newline: "0.0", "3000.0"): 1 with its number in *x
** and *nl at the newline; else 0, and json_number_in reads it. Up to 15 digits the
** number is below 2^53, so the double is exact: json_number_in's own answer. Most
** values of a scrape are such; json_number_in's general path was a third of the time.
** The digits are found and added 8 bytes at a time: up to 7 in one word, 8 to 15 (the
** _created timestamps, large counters) in two; digit by digit only near the end of the
** text (8 of every 100 values of a vLLM scrape went digit by digit, 130 instructions
** each, before the second word).
*/
static inline __attribute__((always_inline)) int whole_value(const char *v, const char *end,
                                                             const char **nl, double *x)
{
    static const uint64_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    size_t d = 0;
    uint64_t m = 0;
    int known = 0; /* d and m found a word at a time */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (end - v >= 8) {
        uint64_t w;
        memcpy(&w, v, 8);
        uint64_t bad = non_digits8(w);
        if (bad != 0) {
            d = (size_t)__builtin_ctzll(bad) >> 3;
            if (d == 0)
                return 0;
            if (d <= 5) {
                /* up to 5 digits (most values): ".0\n" after them is in the same word (read
                   again with the last digit, from v + d - 1: one load, not a shift by a
                   count; no byte past the word), and the text goes on past them */
                uint32_t tail;
                memcpy(&tail, v + d - 1, 4);
                if (tail >> 8 != ('.' | '0' << 8 | '\n' << 16) || ((w & 0xFF) == '0' && d > 1))
                    return 0;
                *nl = v + d + 2;
                *x = (double)(int64_t)digits8(w, d);
                return 1;
            }
            m = digits8(w, d);
            known = 1;
        } else if (end - v >= 16) {
            uint64_t w2;
            memcpy(&w2, v + 8, 8);
            uint64_t bad2 = non_digits8(w2);
            if (bad2 == 0)
                return 0; /* 16 digits or more */
            size_t d2 = (size_t)__builtin_ctzll(bad2) >> 3;
            m = digits8(w, 8);
            if (d2 != 0)
                m = m * pow10[d2] + digits8(w2, d2);
            d = 8 + d2;
            known = 1;
        }
    }
#endif
    if (!known) /* near the end of the text: digit by digit */
        while (d < 16 && d < (size_t)(end - v) && (unsigned char)(v[d] - '0') < 10)
            m = m * 10 + (uint64_t)(v[d++] - '0');
    if (d == 0 || d > 15 || (v[0] == '0' && d > 1) || (size_t)(end - v) - d < 3)
        return 0;
    const char *p = v + d;
    if (p[0] != '.' || p[1] != '0' || p[2] != '\n')
        return 0;
    *nl = p + 2;
    *x = (double)(int64_t)m; /* (below 2^53: signed, one instruction) */
    return 1;
}

/* Where cached_run starts (the text at sample position k, the lines before it), and
   where it ended, with the samples it read (whole: as whole_value reads them). */
typedef struct CachedRun {
    const char *t;
    size_t k;
    uint64_t line, cached, whole;
} CachedRun;

/* cached_run's value that whole_value does not read: json_number_in's, up to the newline.
   1 with *x and *nl, or 0. Out of line: its call and its x in memory cost the loop
   registers. A short decimal ("259.74", "0.34": 1 to 7 digits without a leading zero, a
   point, 1 to 7 digits, the newline) is read here, a word for each part: its digits as an
   integer m (below 2^53) and f digits after the point, so m and 10^f are exact doubles and
   m / 10^f is the correctly rounded value, json_number_in's. (A memchr and json_number_in
   cost ~160 instructions a value; 1 of 25 values of a vLLM scrape is such.) */
static __attribute__((noinline)) int other_value(const char *v, const char *end, const char **nl,
                                                 double *x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    static const double pow10[8] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7};
    if (end - v >= 16) {
        uint64_t w, w2;
        memcpy(&w, v, 8);
        uint64_t bad = non_digits8(w);
        size_t d = bad != 0 ? (size_t)__builtin_ctzll(bad) >> 3 : 8;
        if (d >= 1 && d <= 7 && v[d] == '.' && (v[0] != '0' || d == 1)) {
            memcpy(&w2, v + d + 1, 8); /* (d + 9 <= 16 bytes) */
            uint64_t bad2 = non_digits8(w2);
            size_t f = bad2 != 0 ? (size_t)__builtin_ctzll(bad2) >> 3 : 8;
            if (f >= 1 && f <= 7 && v[d + 1 + f] == '\n') {
                uint64_t m = digits8(w, d) * (uint64_t)pow10[f] + digits8(w2, f);
                *x = (double)(int64_t)m / pow10[f];
                *nl = v + d + 1 + f;
                return 1;
            }
        }
    }
#endif
    const char *n = (const char *)memchr(v, '\n', (size_t)(end - v));
    if (n == NULL || n <= v || !json_number_in(v, (size_t)(n - v), (size_t)(end - v), x))
        return 0;
    *nl = n;
    return 1;
}

/* update() out of cached_run's loop, for the same reason. */
static __attribute__((noinline)) int update_out(PromAgg *a, size_t idx, double v, uint64_t line)
{
    return update(a, idx, v, line);
}

/* The baseline: memcmp. */
#define RUN_NAME cached_run_base
#define RUN_TARGET
#define RUN_SAME(t, c, n) (memcmp(t, c, n) == 0)
#define RUN_WHOLE whole_value
#include "prom_run.h"
#undef RUN_NAME
#undef RUN_TARGET
#undef RUN_SAME
#undef RUN_WHOLE

#ifdef PROM_WIDE
/*
** Are the n bytes at t those at c? The last 32-byte word, then each word before it, all
** compared and one verdict at the end: a cached run's texts differ only where it stops,
** so looking at each word's answer would cost more than it saves. No byte outside
** [0, n) is read, of the text or of the cache (the words overlap instead). memcmp did
** the same behind a call, a size dispatch and a search for the first difference.
*/
__attribute__((target("avx2"), always_inline)) static inline int same_avx2(const char *t,
                                                                           const char *c, size_t n)
{
    if (n < 32) {
        if (n < 16)
            return memcmp(t, c, n) == 0;
        __m128i x = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)t),
                                   _mm_loadu_si128((const __m128i *)(const void *)c));
        __m128i y = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(t + n - 16)),
                                   _mm_loadu_si128((const __m128i *)(const void *)(c + n - 16)));
        return _mm_movemask_epi8(_mm_and_si128(x, y)) == 0xFFFF;
    }
    __m256i eq = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(t + n - 32)),
                                   _mm256_loadu_si256((const __m256i *)(const void *)(c + n - 32)));
    for (size_t i = 0; i + 32 < n; i += 32)
        eq = _mm256_and_si256(
            eq, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(t + i)),
                                  _mm256_loadu_si256((const __m256i *)(const void *)(c + i))));
    return _mm256_testc_si256(eq, _mm256_set1_epi8(-1)); /* all equal */
}

/*
** whole_value's answer, with its digits found and added 16 bytes at a time (when 32 bytes
** of text are left, else whole_value's own): the digits moved to the end of the word,
** then pairs, fours and eights added by multiply-adds. The same values taken (1 to 15
** digits, no leading zero, ".0\n"), the same numbers (below 2^53: exact).
*/
__attribute__((target("avx2,bmi"), always_inline)) static inline int
whole_value_avx2(const char *v, const char *end, const char **nl, double *x)
{
    if (end - v < 32)
        return whole_value(v, end, nl, x);
    /* the constants from memory: set1 was two instructions and a broadcast each */
    static const uint8_t zeros[16] __attribute__((aligned(16))) = {
        '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0'};
    static const uint8_t nines[16]
        __attribute__((aligned(16))) = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    /* at + d: byte j is digit j - (16 - d), or -1 (the shuffle's 0) before the digits */
    static const int8_t at[32] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                  0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15};
    const uint8_t *z = zeros, *n9 = nines;
    __asm__("" : "+r"(z), "+r"(n9)); /* (else the compiler knows them, and broadcasts) */
    __m128i dig = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)v),
                               _mm_load_si128((const __m128i *)(const void *)z));
    unsigned digit = (unsigned)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_min_epu8(dig, _mm_load_si128((const __m128i *)(const void *)n9)), dig));
    unsigned d = (unsigned)__builtin_ctz(~digit); /* (16: all are digits) */
    if (d - 1 >= 15 || (v[0] == '0' && d > 1))
        return 0;
    uint32_t tail;
    memcpy(&tail, v + d, 4);
    if ((tail & 0xFFFFFF) != ('.' | '0' << 8 | '\n' << 16))
        return 0;
    __m128i w = _mm_shuffle_epi8(dig, _mm_loadu_si128((const __m128i *)(const void *)(at + d)));
    __m128i two =
        _mm_maddubs_epi16(w, _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1));
    __m128i four = _mm_madd_epi16(two, _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
    __m128i eight = _mm_madd_epi16(_mm_packus_epi32(four, four),
                                   _mm_setr_epi16(10000, 1, 10000, 1, 10000, 1, 10000, 1));
    uint64_t hi = (uint32_t)_mm_cvtsi128_si32(eight);
    uint64_t lo = (uint32_t)_mm_extract_epi32(eight, 1);
    *nl = v + d + 2;
    *x = (double)(int64_t)(hi * 100000000 + lo);
    return 1;
}

#define RUN_NAME cached_run_avx2
#define RUN_TARGET __attribute__((target("avx2,bmi,bmi2")))
#define RUN_SAME same_avx2
#define RUN_WHOLE whole_value_avx2
#include "prom_run.h"
#undef RUN_NAME
#undef RUN_TARGET
#undef RUN_SAME
#undef RUN_WHOLE
#endif

/*
** prom_parse with the pod's cache: the same samples to on_sample, the same errors.
** 0, -1 with p->err, or -2 with a->err.
*/
static int agg_parse(PromAgg *a, const char *text, size_t len, uint64_t line0)
{
    PromParser *p = &a->parser;
    const PromPodCache *c = a->cur;
    PromSample s;
    const char *t = text, *end = text + len;
    const char *from = text;  /* where the text before the next sample began */
    const char *typed = text; /* the comment lines before it went through comment() */
    uint64_t line = line0, from_line = line0, typed_line = line0;
    int clean = 1; /* every line since from parsed */
    size_t k = 0;  /* the next sample's position */
    /* in locals: the stores of the loop (update's) could be to them, for the compiler */
    const volatile sig_atomic_t *intr = p->interrupted;
    const sig_atomic_t intr_base = p->interrupt_base;
    const PromPos *pos = c != NULL ? c->pos : NULL; /* (remember may move them) */
    size_t npos = c != NULL ? c->npos : 0;
    uint64_t cached = 0, whole_n = 0; /* a->cached's and a->whole's, added when it ends */
    int rc_end = 0;
    parse_begin(p);
    while (t < end) {
        if (intr != NULL && *intr != intr_base) {
            (void)snprintf(p->err, sizeof p->err, "line %llu: interrupted",
                           (unsigned long long)line + 1);
            rc_end = -1;
            break;
        }
        const PromPos *e = k < npos && pos[k].text != NULL ? &pos[k] : NULL;
        if (e != NULL && t == from) {
            CachedRun r = {t, k, line, 0, 0};
#ifdef PROM_WIDE
            int rc = a->wide ? cached_run_avx2(a, pos, npos, end, intr, intr_base, &r)
                             : cached_run_base(a, pos, npos, end, intr, intr_base, &r);
#else
            int rc = cached_run_base(a, pos, npos, end, intr, intr_base, &r);
#endif
            cached += r.cached;
            whole_n += r.whole;
            if (rc != 0) {
                rc_end = -2;
                break;
            }
            if (r.k != k) { /* it read some: the next one is read in full, here */
                t = from = r.t;
                k = r.k;
                line = from_line = r.line;
                if (t >= end)
                    break;
                e = k < npos && pos[k].text != NULL ? &pos[k] : NULL;
            }
        }
        const char *nl = (const char *)memchr(t, '\n', (size_t)(end - t));
        const char *l = t;
        size_t n = (size_t)((nl ? nl : end) - t);
        t = nl ? nl + 1 : end;
        ++line;
        if (n > 0 && l[n - 1] == '\r')
            n--;
        if (skip_blanks(l, 0, n) == n)
            continue;
        int rc = 0;
        if (nl == NULL && l[0] != '#') {
            rc = line_error(p, line,
                            "no newline at the end of the last line: the scrape "
                            "looks cut off");
        } else if (l[0] == '#') {
            rc = replay(p, &typed, &typed_line, l);
            if (rc == 0)
                rc = comment(p, l, n, line);
            if (rc == 1)
                break; /* # EOF */
            typed = t;
            typed_line = line;
        } else {
            /* the same name{labels} and blanks as this position had: its value alone */
            size_t idx = (size_t)-1, vs = 0;
            int done = 0;
            if (e != NULL && e->len - e->line_off < n &&
                memcmp(l, e->text + e->line_off, e->len - e->line_off) == 0) {
                size_t i = vs = e->len - e->line_off;
                while (i < n && l[i] != ' ' && l[i] != '\t')
                    i++;
                double x;
                if (i > vs && skip_blanks(l, i, n) == n &&
                    json_number_in(l + vs, i - vs, (size_t)(end - l) - vs, &x)) {
                    done = 1;
                    cached++;
                    idx = e->series == 0 ? (size_t)-1 : e->series - 1;
                    if (idx != (size_t)-1 && update(a, idx, x, line) != 0) {
                        rc_end = -2;
                        break;
                    }
                }
            }
            if (!done) {
                rc = replay(p, &typed, &typed_line, l);
                if (rc == 0)
                    rc = sample(p, l, n, (size_t)(end - l), line, &s);
                if (rc == 0) {
                    if (on_sample(a, &s) != 0) {
                        rc_end = -2;
                        break;
                    }
                    idx = a->found;
                    vs = skip_blanks(l, s.rawlen, n);
                }
            }
            if (rc == 0) {
                if (clean) {
                    remember(a, k, from, l, l + vs, line - 1 - from_line, idx);
                    pos = c != NULL ? c->pos : NULL;
                    npos = c != NULL ? c->npos : 0;
                }
                k++;
                from = t;
                from_line = line;
                clean = 1;
            }
        }
        if (rc < 0) {
            clean = 0;
            if (!p->tolerant) {
                rc_end = -1;
                break;
            }
            if (p->skipped++ == 0)
                (void)snprintf(p->first_bad, sizeof p->first_bad, "%s", p->err);
        }
    }
    a->cached += cached;
    a->whole += whole_n;
    return rc_end;
}

int prom_agg_add(PromAgg *a, const char *pod, const char *text, size_t len, double t,
                 const char *name)
{
    return prom_agg_add_lines(a, pod, text, len, 0, t, name);
}

int prom_agg_add_lines(PromAgg *a, const char *pod, const char *text, size_t len, uint64_t line0,
                       double t, const char *name)
{
    a->pod = pod;
    a->pod_len = strlen(pod);
    a->pod_hash = fnv(pod, a->pod_len);
    a->cur = a->no_cache ? NULL : pod_cache(a, pod, a->pod_len);
    a->t = t;
    a->err[0] = '\0';
    int rc = agg_parse(a, text, len, line0);
    if (rc == -1) {
        (void)snprintf(a->err, sizeof a->err, "%.200s:%s", name, a->parser.err);
        return -1;
    }
    if (rc == -2) {
        char msg[sizeof a->err];
        (void)snprintf(msg, sizeof msg, "%.200s:%.300s", name, a->err);
        memcpy(a->err, msg, sizeof msg);
        return -1;
    }
    a->scrapes++;
    if (t < a->t_min)
        a->t_min = t;
    if (t > a->t_max)
        a->t_max = t;
    return 0;
}

int prom_agg_load(PromAgg *a, const char *path, int skip_empty)
{
    struct stat st;
    a->flen = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | (skip_empty ? O_NONBLOCK : 0));
    if (fd < 0) {
        int e = errno;
        if (skip_empty && stat(path, &st) == 0 && st.st_size == 0)
            return 1;
        (void)snprintf(a->err, sizeof a->err, "%.400s: cannot open: %s", path, strerror(e));
        return -1;
    }
    int known = fstat(fd, &st) == 0;
    if (skip_empty && known && st.st_size == 0) {
        close(fd);
        return 1;
    }
    size_t want = known && st.st_size > 0 ? (size_t)st.st_size + 2 : 4096;
    const char *why = NULL;
    for (;;) {
        if (a->fcap < want) {
            char *f = (char *)realloc(a->file, want);
            if (f == NULL) {
                why = "not enough memory";
                break;
            }
            a->file = f;
            a->fcap = want;
        }
        size_t ask = a->fcap - a->flen - 1;
        ssize_t r = read(fd, a->file + a->flen, ask);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            why = strerror(errno); /* EISDIR for a folder */
            break;
        }
        if (r == 0)
            break;
        a->flen += (size_t)r;
        /* a regular file read to the size fstat gave, short of what was asked: its end
           (no read() more to be told so: a system call a file, ~5 % of a scrape's read) */
        if (known && S_ISREG(st.st_mode) && (size_t)r < ask && a->flen == (size_t)st.st_size)
            break;
        if (a->fcap - a->flen < 2) /* it grew since fstat */
            want = a->fcap * 2;
    }
    close(fd);
    if (why != NULL) {
        (void)snprintf(a->err, sizeof a->err, "%.400s: cannot read: %s", path, why);
        a->flen = 0;
        return -1;
    }
    a->file[a->flen] = '\0';
    if (a->flen >= 2 && (unsigned char)a->file[0] == 0x1f && (unsigned char)a->file[1] == 0x8b) {
        (void)snprintf(a->err, sizeof a->err,
                       "%.400s: gzip-compressed; decompress it first (gunzip)", path);
        a->flen = 0;
        return -1;
    }
    return 0;
}

/* A metric name in prom_agg_find's index: its hash, its first and last series (index + 1;
   first 0: an empty slot). */
typedef struct PromName {
    uint64_t hash;
    uint32_t first, last;
} PromName;

/* The slot of name (length nl, hash h) in a->names: its own, or the empty one it would
   take. */
static PromName *name_slot(const PromAgg *a, const char *name, size_t nl, uint64_t h)
{
    for (size_t i = h & (a->namecap - 1);; i = (i + 1) & (a->namecap - 1)) {
        PromName *e = &a->names[i];
        if (e->first == 0)
            return e;
        const PromSeries *s = &a->series[e->first - 1];
        if (e->hash == h && s->name_len == nl && memcmp(s->name, name, nl) == 0)
            return e;
    }
}

/* Brings the index by name up to a->n series: 0, or -1 when out of memory (the index as
   it was: still right for the series it has). */
static int index_names(PromAgg *a)
{
    if (a->named == a->n || a->series == NULL) /* (no series: nothing to index) */
        return 0;
    if (a->nextcap < a->n) {
        size_t cap = a->nextcap ? a->nextcap : 256;
        while (cap < a->n)
            cap *= 2;
        uint32_t *nx = (uint32_t *)realloc(a->name_next, cap * sizeof *nx);
        if (nx == NULL)
            return -1;
        a->name_next = nx;
        a->nextcap = cap;
    }
    for (; a->named < a->n; a->named++) {
        if ((a->nnames + 1) * 2 > a->namecap) { /* at most half full */
            size_t cap = a->namecap ? a->namecap * 2 : 64;
            PromName *old = a->names, *nm = (PromName *)calloc(cap, sizeof *nm);
            if (nm == NULL)
                return -1;
            size_t oldcap = a->namecap;
            a->names = nm;
            a->namecap = cap;
            for (size_t k = 0; k < oldcap; k++)
                if (old[k].first != 0) {
                    size_t i = old[k].hash & (cap - 1);
                    while (nm[i].first != 0)
                        i = (i + 1) & (cap - 1);
                    nm[i] = old[k];
                }
            free(old);
            a->name_prev = SIZE_MAX; /* (its slot moved) */
        }
        const PromSeries *s = &a->series[a->named];
        /* a histogram's buckets come one after another: the name of the series before
           needs no hash */
        const PromSeries *b = a->named > 0 && a->name_prev != SIZE_MAX ? s - 1 : NULL;
        PromName *e = a->names + a->name_prev;
        if (b == NULL || b->name_len != s->name_len || memcmp(b->name, s->name, s->name_len) != 0) {
            uint64_t h = fnv(s->name, s->name_len);
            e = name_slot(a, s->name, s->name_len, h);
            if (e->first == 0)
                e->hash = h;
        }
        uint32_t id = (uint32_t)(a->named + 1);
        if (e->first == 0) {
            e->first = id;
            a->nnames++;
        } else {
            a->name_next[e->last - 1] = id;
        }
        e->last = id;
        a->name_next[a->named] = 0;
        a->name_prev = (size_t)(e - a->names);
    }
    return 0;
}

size_t prom_agg_find(PromAgg *a, const char *name, size_t *out, size_t max)
{
    size_t k = 0;
    if (index_names(a) != 0) { /* out of memory: every series compared */
        for (size_t i = 0; i < a->n; i++)
            if (strcmp(a->series[i].name, name) == 0) {
                if (k < max)
                    out[k] = i;
                k++;
            }
        return k;
    }
    if (a->namecap == 0)
        return 0;
    size_t nl = strlen(name);
    const PromName *e = name_slot(a, name, nl, fnv(name, nl));
    for (uint32_t id = e->first; id != 0; id = a->name_next[id - 1]) {
        if (k < max)
            out[k] = id - 1;
        k++;
    }
    return k;
}

/*
** The label at *p of canonical label text: its name and raw (still escaped) value;
** advances past it and its comma. 0 at the end.
*/
static int next_label(const char **p, const char **name, size_t *nl, const char **raw, size_t *rl)
{
    const char *l = *p;
    const char *eq = strchr(l, '=');
    if (*l == '\0' || eq == NULL || eq[1] != '"')
        return 0;
    *name = l;
    *nl = (size_t)(eq - l);
    const char *v = eq + 2;
    *raw = v;
    while (*v && *v != '"')
        v += (*v == '\\' && v[1]) ? 2 : 1;
    *rl = (size_t)(v - *raw);
    if (*v == '"')
        v++;
    if (*v == ',')
        v++;
    *p = v;
    return 1;
}

size_t prom_label(const PromSeries *s, const char *label, char *out, size_t size)
{
    const char *p = s->labels, *name, *raw;
    size_t nl, rl, want = strlen(label);
    while (next_label(&p, &name, &nl, &raw, &rl)) {
        if (nl != want || memcmp(name, label, nl) != 0)
            continue;
        size_t o = 0;
        for (size_t i = 0; i < rl && o + 1 < size; i++) {
            char c = raw[i];
            if (c == '\\' && i + 1 < rl) {
                c = raw[++i];
                if (c == 'n')
                    c = '\n';
            }
            out[o++] = c;
        }
        out[o] = '\0';
        return o;
    }
    if (size > 0)
        out[0] = '\0';
    return 0;
}

double prom_created(const PromAgg *a, const PromSeries *s)
{
    size_t nl = strlen(s->name);
    const char *base_end = NULL;
    for (int k = 0; SUFFIXES[k] && base_end == NULL; k++)
        if (k != 1 && ends_with(s->name, nl, SUFFIXES[k])) /* not _created itself */
            base_end = s->name + nl - strlen(SUFFIXES[k]);
    if (base_end == NULL)
        return NAN;
    size_t bl = (size_t)(base_end - s->name), pl = strlen(s->pod), ll = strlen(s->labels);
    /* pod \1 base_created \1 the same labels, less a bucket's le */
    char *key = (char *)malloc(pl + bl + ll + 12);
    if (key == NULL)
        return NAN;
    size_t o = 0;
    memcpy(key, s->pod, pl);
    o += pl;
    key[o++] = '\1';
    memcpy(key + o, s->name, bl);
    o += bl;
    memcpy(key + o, "_created", 8);
    o += 8;
    key[o++] = '\1';
    const char *p = s->labels, *name, *raw;
    size_t ln, rl;
    int first = 1;
    while (next_label(&p, &name, &ln, &raw, &rl)) {
        if (ln == 2 && memcmp(name, "le", 2) == 0)
            continue;
        if (!first)
            key[o++] = ',';
        first = 0;
        memcpy(key + o, name, ln + 2 + rl); /* name=" raw */
        o += ln + 2 + rl;
        key[o++] = '"';
    }
    key[o] = '\0';
    size_t idx = lookup(a, key, o, fnv(key, o));
    free(key);
    return idx == (size_t)-1 ? NAN : a->series[idx].first_v;
}

double prom_increase(const PromAgg *a, const PromSeries *s)
{
    double inc = s->increase;
    /* created inside the window, before its first scrape: it counted from 0 in the
       window, so its first value belongs to the increase too */
    double created = prom_created(a, s);
    if (!isnan(created) && created >= a->t_min && created <= s->first_t)
        inc += s->first_v;
    return inc;
}

double prom_bucket_quantile(double q, const double *le, double *cum, size_t n)
{
    if (n < 1 || !isinf(le[n - 1]) || le[n - 1] < 0)
        return NAN; /* Prometheus needs the +Inf bucket */
    /* bucket counts must not fall as bounds rise (Prometheus mends them the same way) */
    for (size_t i = 1; i < n; i++)
        if (cum[i] < cum[i - 1])
            cum[i] = cum[i - 1];
    double total = cum[n - 1];
    if (!(total > 0))
        return NAN;
    if (q < 0)
        return -HUGE_VAL;
    if (q > 1)
        return HUGE_VAL;
    double rank = q * total;
    size_t b = 0;
    while (b < n - 1 && cum[b] < rank)
        b++;
    if (b == n - 1) /* in the +Inf bucket: the highest finite bound */
        return n >= 2 ? le[n - 2] : NAN;
    if (b == 0 && le[0] <= 0)
        return le[0];
    double start = b == 0 ? 0 : le[b - 1], end = le[b];
    double below = b == 0 ? 0 : cum[b - 1], count = cum[b] - below;
    if (!(count > 0)) /* the rank sits on an empty bucket's lower edge (q = 0) */
        return start;
    return start + (end - start) * ((rank - below) / count);
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), after Howard Hinnant's
   days_from_civil (floor division: y may be -1). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y = m <= 2 ? y - 1 : y;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The k ASCII digits at s as a number, or -1. */
static int64_t digits_at(const char *s, int k)
{
    int64_t v = 0;
    for (int i = 0; i < k; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

int prom_parse_timestamp(const char *s, size_t n, int64_t *t)
{
    /* YYYY-MM-DDTHH:MM:SS then Z, or +HHMM / -HH:MM */
    if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
        return 0;
    int64_t y = digits_at(s, 4), mo = digits_at(s + 5, 2), d = digits_at(s + 8, 2);
    int64_t h = digits_at(s + 11, 2), mi = digits_at(s + 14, 2), se = digits_at(s + 17, 2);
    if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || se < 0)
        return 0;
    int64_t off = 0;
    if (n == 20 && s[19] == 'Z') {
        off = 0;
    } else if ((n == 24 || (n == 25 && s[22] == ':')) && (s[19] == '+' || s[19] == '-')) {
        int64_t oh = digits_at(s + 20, 2), om = digits_at(s + n - 2, 2);
        if (oh < 0 || om < 0)
            return 0;
        off = (oh * 3600 + om * 60) * (s[19] == '+' ? 1 : -1);
    } else {
        return 0;
    }
    *t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
    return 1;
}
