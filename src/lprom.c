/*
** lprom.c — llmd.prom: parse, each, aggregator.
**
**   local samples, info = prom.parse(text [, {tolerant = true, name = "scrape"}])
**   prom.each(text, function(sample) ... end [, opts]); prom.each_file(path, fn [, opts])
**   local agg = prom.aggregator{ match = {"vllm:*"}, gauge_sketch = 0.01 }
**   agg:add(pod, text, t); agg:add_file(pod, path, t)
**   local header, warning = agg:read_scrape(path); agg:add_read(pod, t, path)
**   local read, pod, timestamp, warning = agg:read_raw(path); agg:add_read(pod, t, path)
**   local info, issue = agg:read_dir(dir, {readable =, on_scrape =, max_skew =})
**   prom.parse_timestamp("2026-02-16T09:20:32+0000") -> 1771233632
**   agg:counter_total(name, {mode = "increase" | "max" | "last", by = {"pod", ...}})
**   agg:gauge_summary(name [, {by = ...}]); agg:histogram_quantile(name, q [, {by = ...}])
**   agg:histogram_mean(name); agg:ratio(numerator, denominator); agg:series(name)
**
** Unknown is nil: a metric never scraped, a ratio over a zero denominator, a quantile
** with no observations.
*/
#define _GNU_SOURCE /* qsort_r */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"

#include "modules.h"
#include "prom.h"

#define AGG_MT "llmd.prom.aggregator"
#define PARSER_MT "llmd.prom.parser"
#define MAX_BY 8

static const char *const MODES[] = {"increase", "max", "last", NULL};
static const char *const PARSE_OPTS[] = {"tolerant", "name", NULL};
static const char *const FILE_OPTS[] = {"tolerant", NULL};
static const char *const AGG_OPTS[] = {"match", "gauge_sketch", "tolerant", NULL};
static const char *const COUNTER_OPTS[] = {"mode", "by", NULL};
static const char *const BY_OPTS[] = {"by", NULL};

/* ---- parsing ----------------------------------------------------------------- */

static int parser_gc(lua_State *L)
{
    prom_parser_free((PromParser *)luaL_checkudata(L, 1, PARSER_MT));
    return 0;
}

static void push_sample(lua_State *L, const PromSample *s)
{
    lua_createtable(L, 0, 6);
    lua_pushlstring(L, s->name, s->nlen);
    lua_setfield(L, -2, "name");
    lua_createtable(L, 0, s->nlabels);
    for (int i = 0; i < s->nlabels; i++) {
        lua_pushlstring(L, s->labels[i].name, s->labels[i].nlen);
        lua_pushlstring(L, s->labels[i].value, s->labels[i].vlen);
        lua_rawset(L, -3);
    }
    lua_setfield(L, -2, "labels");
    lua_pushnumber(L, s->value);
    lua_setfield(L, -2, "value");
    if (s->has_ts) {
        lua_pushnumber(L, s->ts);
        lua_setfield(L, -2, "timestamp");
    }
    lua_pushstring(L, prom_type_name(s->type));
    lua_setfield(L, -2, "type");
    lua_pushinteger(L, (lua_Integer)s->line);
    lua_setfield(L, -2, "line");
}

typedef struct ParseCtx {
    lua_State *L;
    int out; /* the samples table, or 0 to call the function at fn */
    int fn;
    lua_Integer n;
    int failed;
} ParseCtx;

static int collect(void *ud, const PromSample *s)
{
    ParseCtx *c = (ParseCtx *)ud;
    lua_State *L = c->L;
    if (c->out != 0) {
        push_sample(L, s);
        lua_rawseti(L, c->out, ++c->n);
        return 0;
    }
    lua_pushvalue(L, c->fn);
    push_sample(L, s);
    if (llmd_pcall(L, 1, 0) != LUA_OK) {
        c->failed = 1; /* the error stays on the stack */
        return 1;
    }
    return 0;
}

/* After a parse: raises the callback's or the parse's error, else pushes {skipped =,
   first_error =} and frees the parser. */
static void finish_parse(lua_State *L, PromParser *p, const ParseCtx *c, int rc, const char *name)
{
    if (c->failed)
        lua_error(L); /* the callback's error, as it is */
    if (rc == -1) {
        (void)llmd_interrupt_pending(L); /* if the error says "interrupted": taken */
        llmd_error(L, "%s: %s", name, p->err);
    }
    lua_createtable(L, 0, 2); /* info */
    lua_pushinteger(L, (lua_Integer)p->skipped);
    lua_setfield(L, -2, "skipped");
    if (p->skipped > 0) {
        lua_pushstring(L, p->first_bad);
        lua_setfield(L, -2, "first_error");
    }
    prom_parser_free(p);
}

/* Runs the parse with the options at opts; the result table (if any) at out. */
static int run_parse(lua_State *L, int opts, int out, int fn)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *name = "prometheus text";
    PromParser *p = (PromParser *)lua_newuserdatauv(L, sizeof *p, 0);
    prom_parser_init(p);
    p->interrupted = &llmd_signals; /* Ctrl-C stops a long text too */
    p->interrupt_base = llmd_signals_taken;
    luaL_setmetatable(L, PARSER_MT);
    int pidx = lua_gettop(L);
    if (opts != 0 && lua_istable(L, opts)) {
        llmd_check_keys(L, opts, fn == 0 ? "prom.parse" : "prom.each", PARSE_OPTS, 0);
        lua_getfield(L, opts, "tolerant");
        p->tolerant = lua_toboolean(L, -1);
        lua_getfield(L, opts, "name");
        if (lua_isstring(L, -1))
            name = lua_tostring(L, -1); /* anchored in opts */
        lua_pop(L, 2);
    }
    ParseCtx c = {L, out, fn, 0, 0};
    int rc = prom_parse(p, text, len, collect, &c);
    finish_parse(L, p, &c, rc, name); /* ..., parser, info */
    lua_remove(L, pidx);
    return 1;
}

/* prom.parse(text [, opts]) -> samples, {skipped =, first_error =} */
static int l_parse(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_settop(L, 2);
    lua_newtable(L); /* text, opts, samples */
    run_parse(L, 2, 3, 0);
    return 2;
}

/* prom.each(text, fn [, opts]) -> {skipped =, ...}: fn(sample) for each sample, in order */
static int l_each(lua_State *L)
{
    luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 3);
    run_parse(L, 3, 0, 2);
    return 1;
}

/*
** prom.each_file(path, fn [, opts]) -> {skipped =, ...}: fn(sample) per sample, reading
** the file in pieces: memory stays bounded whatever its size.
*/
static int l_each_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 3);
    PromParser *p = (PromParser *)lua_newuserdatauv(L, sizeof *p, 0);
    prom_parser_init(p);
    p->interrupted = &llmd_signals; /* Ctrl-C stops a long text too */
    p->interrupt_base = llmd_signals_taken;
    luaL_setmetatable(L, PARSER_MT);
    if (lua_istable(L, 3)) {
        llmd_check_keys(L, 3, "prom.each_file", FILE_OPTS, 0);
        lua_getfield(L, 3, "tolerant");
        p->tolerant = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        llmd_error(L, "%s: cannot open: %s", path, strerror(errno));
    ParseCtx c = {L, 0, 2, 0, 0};
    int rc = prom_parse_fd(p, fd, collect, &c);
    close(fd);
    finish_parse(L, p, &c, rc, path);
    return 1;
}

/* ---- the aggregator ---------------------------------------------------------- */

static PromAgg *check_agg(lua_State *L)
{
    return (PromAgg *)luaL_checkudata(L, 1, AGG_MT);
}

static int agg_gc(lua_State *L)
{
    prom_agg_free(check_agg(L));
    return 0;
}

/* prom.aggregator([{match = {...}, gauge_sketch = rel_err, tolerant = bool}]) */
static int l_aggregator(lua_State *L)
{
    lua_settop(L, 1);
    PromAgg *a = (PromAgg *)lua_newuserdatauv(L, sizeof *a, 0);
    prom_agg_init(a);
    a->parser.interrupted = &llmd_signals;
    luaL_setmetatable(L, AGG_MT);
    if (lua_istable(L, 1)) {
        llmd_check_keys(L, 1, "prom.aggregator", AGG_OPTS, 0);
        if (lua_getfield(L, 1, "match") == LUA_TTABLE) {
            int n = (int)luaL_len(L, -1);
            a->match = (char **)calloc((size_t)(n ? n : 1), sizeof(char *));
            if (a->match == NULL)
                llmd_error(L, "prom.aggregator: out of memory");
            for (int i = 1; i <= n; i++) {
                lua_rawgeti(L, -1, i);
                const char *m = lua_tostring(L, -1);
                /* (else: llmd_error does not return, but an analyser that does not see
                   its noreturn, cppcheck without __GNUC__, took m for NULL at strdup) */
                if (m == NULL)
                    llmd_error(L, "prom.aggregator: match[%d] must be a metric name", i);
                else
                    a->match[a->nmatch] = strdup(m);
                if (a->match[a->nmatch] == NULL)
                    llmd_error(L, "prom.aggregator: out of memory");
                a->nmatch++;
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
        if (lua_getfield(L, 1, "gauge_sketch") != LUA_TNIL) {
            double alpha = (double)luaL_checknumber(L, -1);
            if (!(alpha >= STATS_SKETCH_MIN_ALPHA && alpha <= STATS_SKETCH_MAX_ALPHA))
                llmd_error(L, "prom.aggregator: gauge_sketch must be in [0.0001, 0.5]");
            a->gauge_sketch = alpha;
        }
        lua_pop(L, 1);
        lua_getfield(L, 1, "tolerant");
        a->parser.tolerant = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    return 1;
}

/* Adds text, which followed line0 lines of plain comments (a header), as prom_agg_add_lines;
   raises its error. */
static void add_text_at(lua_State *L, PromAgg *a, const char *pod, const char *text, size_t len,
                        uint64_t line0, double t, const char *name)
{
    if (!(t == t) || isinf(t))
        llmd_error(L, "%s: the scrape time must be a finite number of seconds", name);
    a->parser.interrupt_base = llmd_signals_taken;
    if (prom_agg_add_lines(a, pod, text, len, line0, t, name) != 0) {
        (void)llmd_interrupt_pending(L); /* the error says "interrupted": taken */
        llmd_error(L, "%s", a->err);
    }
}

static void add_text(lua_State *L, PromAgg *a, const char *pod, const char *text, size_t len,
                     double t, const char *name)
{
    add_text_at(L, a, pod, text, len, 0, t, name);
}

/* agg:add(pod, text, t [, name]) -> skipped lines */
static int l_add(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *pod = luaL_checkstring(L, 2);
    size_t len;
    const char *text = luaL_checklstring(L, 3, &len);
    double t = (double)luaL_checknumber(L, 4);
    const char *name = luaL_optstring(L, 5, pod);
    add_text(L, a, pod, text, len, t, name);
    lua_pushinteger(L, (lua_Integer)a->parser.skipped);
    return 1;
}

/* agg:add_file(pod, path, t) -> skipped lines */
static int l_add_file(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *pod = luaL_checkstring(L, 2);
    const char *path = luaL_checkstring(L, 3);
    double t = (double)luaL_checknumber(L, 4);
    lua_settop(L, 4);
    Strbuf *b = llmd_read_file(L, path);
    add_text(L, a, pod, b->p, b->n, t, path);
    llmd_strbuf_free(b);
    lua_pushinteger(L, (lua_Integer)a->parser.skipped);
    return 1;
}

/*
** The leading "# Key: value" lines of a scrape file f[0..end) (each "# " [A-Za-z0-9]+ ":"
** ... "\n"): where they end, and how many (in *lines). The values of the keys Pod and Timestamp
*(the text after the
** colon and one space, if any, up to the newline; the last line of a key wins) in pod and
** ts, NULL when absent.
*/
typedef struct HeaderField {
    const char *p;
    size_t n;
} HeaderField;

static const char *scrape_header(const char *f, const char *end, HeaderField *pod, HeaderField *ts,
                                 uint64_t *lines)
{
    const char *h = f;
    pod->p = ts->p = NULL;
    pod->n = ts->n = 0;
    *lines = 0;
    for (;;) {
        const char *p = h + 2;
        if (end - h < 3 || h[0] != '#' || h[1] != ' ')
            break;
        while (p < end &&
               ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            p++;
        if (p == h + 2 || p == end || *p != ':')
            break;
        const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            break;
        size_t kl = (size_t)(p - (h + 2));
        HeaderField *v = kl == 3 && memcmp(h + 2, "Pod", 3) == 0         ? pod
                         : kl == 9 && memcmp(h + 2, "Timestamp", 9) == 0 ? ts
                                                                         : NULL;
        if (v != NULL) {
            const char *at = p + 1 < nl && p[1] == ' ' ? p + 2 : p + 1;
            v->p = at;
            v->n = (size_t)(nl - at);
        }
        h = nl + 1;
        ++*lines;
    }
    return h;
}

/* The text after "\n# Warning: " in f (up to its newline; its length in *wl), or NULL:
   collect_metrics.sh's failed scrape. Found by its W, a rare letter in scrapes. */
static const char *find_warning(const char *f, size_t flen, size_t *wl)
{
    const char *end = f + flen, *w = NULL;
    for (const char *q = f + 3; flen >= 12 && q < end; q++) {
        q = (const char *)memchr(q, 'W', (size_t)(end - q));
        if (q == NULL)
            break;
        if (end - q >= 9 && memcmp(q - 3, "\n# Warning: ", 12) == 0) {
            w = q + 9;
            break;
        }
    }
    if (w != NULL) {
        const char *nl = (const char *)memchr(w, '\n', (size_t)(end - w));
        *wl = (size_t)((nl ? nl : end) - w);
    }
    return w;
}

/* Pushes find_warning's text, or nil. */
static void push_warning(lua_State *L, const char *f, size_t flen)
{
    size_t wl = 0;
    const char *w = find_warning(f, flen, &wl);
    if (w != NULL)
        lua_pushlstring(L, w, wl);
    else
        lua_pushnil(L);
}

/*
** agg:read_scrape(path [, with_text]) -> header, warning [, text]: reads the file of one
** llm-d-benchmark raw scrape into the aggregator's buffer, for agg:add_read. header: its
** leading "# Key: value" lines (each ending with a newline); warning: the text after
** "# Warning: " when a line says the scrape failed, else nil; text: the whole file.
*/
static int l_read_scrape(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *path = luaL_checkstring(L, 2);
    int with_text = lua_toboolean(L, 3);
    a->loaded = 0;
    if (prom_agg_load(a, path, 0) != 0)
        llmd_error(L, "%s", a->err);
    a->loaded = 1;
    HeaderField pod, ts;
    uint64_t lines;
    lua_pushlstring(
        L, a->file,
        (size_t)(scrape_header(a->file, a->file + a->flen, &pod, &ts, &lines) - a->file));
    push_warning(L, a->file, a->flen);
    if (!with_text)
        return 2;
    lua_pushlstring(L, a->file, a->flen);
    return 3;
}

/*
** agg:read_raw(path [, with_text]) -> read, pod, timestamp, warning [, text]: read_scrape
** for prom_files.read_raw_dir, a call per file. read: false for a 0-byte file (not read,
** nothing else returned); pod and timestamp: the header's Pod and Timestamp values (nil
** when absent), no other header line becoming a Lua string.
*/
static int l_read_raw(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *path = luaL_checkstring(L, 2);
    int with_text = lua_toboolean(L, 3);
    a->loaded = 0;
    int rc = prom_agg_load(a, path, 1);
    if (rc < 0)
        llmd_error(L, "%s", a->err);
    if (rc == 1) {
        lua_pushboolean(L, 0);
        return 1;
    }
    a->loaded = 1;
    HeaderField pod, ts;
    uint64_t lines;
    (void)scrape_header(a->file, a->file + a->flen, &pod, &ts, &lines);
    lua_pushboolean(L, 1);
    if (pod.p != NULL)
        lua_pushlstring(L, pod.p, pod.n);
    else
        lua_pushnil(L);
    if (ts.p != NULL)
        lua_pushlstring(L, ts.p, ts.n);
    else
        lua_pushnil(L);
    push_warning(L, a->file, a->flen);
    if (!with_text)
        return 4;
    lua_pushlstring(L, a->file, a->flen);
    return 5;
}

/* agg:add_read(pod, t, name) -> skipped lines: adds the scrape agg:read_scrape read
   (once) */
static int l_add_read(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *pod = luaL_checkstring(L, 2);
    double t = (double)luaL_checknumber(L, 3);
    const char *name = luaL_checkstring(L, 4);
    if (!a->loaded)
        llmd_error(L, "%s: agg:add_read without a file read by agg:read_scrape", name);
    a->loaded = 0; /* added once */
    add_text(L, a, pod, a->file, a->flen, t, name);
    lua_pushinteger(L, (lua_Integer)a->parser.skipped);
    return 1;
}

/* ---- a folder of raw scrapes ------------------------------------------------- */

#define SCRAPES_MT "llmd.prom.scrapes"
#define HUGE_T 0x80000000u /* in ScrapeFile.pod: an epoch beyond an integer */

/* A <pod>_<epoch>_metrics.log file: 16 bytes, its name rebuilt from pod and epoch unless
   that cannot give it back (an epoch with a leading zero, or beyond an integer). */
typedef struct ScrapeFile {
    int64_t t;     /* the epoch (INT64_MAX when HUGE_T: read from the name, as a float) */
    uint32_t pod;  /* the pod's index (after sort_files: its rank by name), | HUGE_T */
    uint32_t name; /* 1 + where the name is kept in names; 0: none kept */
} ScrapeFile;

/* read_dir's state, a userdata: what it holds is freed by its __gc if a callback raises. */
typedef struct ScrapeList {
    DIR *dir;
    ScrapeFile *files;
    size_t n, cap;
    char *pods; /* pod names, each NUL-terminated */
    size_t podlen, podcap;
    size_t *pod_at; /* where each pod's name starts */
    uint32_t *rank; /* pod index -> rank by name */
    uint32_t *by_rank;
    unsigned char *seen; /* by rank: a scrape of the pod was added */
    size_t npods, cappods;
    uint32_t *slot; /* hash of pod names: index + 1 */
    size_t nslot;
    char *names;
    size_t nameslen, namescap;
    char *path;
    size_t pathcap;
} ScrapeList;

static void scrapes_free(ScrapeList *s)
{
    if (s->dir != NULL)
        (void)closedir(s->dir);
    free(s->files);
    free(s->pods);
    free(s->pod_at);
    free(s->rank);
    free(s->by_rank);
    free(s->seen);
    free(s->slot);
    free(s->names);
    free(s->path);
    memset(s, 0, sizeof *s);
}

static int scrapes_gc(lua_State *L)
{
    scrapes_free((ScrapeList *)luaL_checkudata(L, 1, SCRAPES_MT));
    return 0;
}

/* Makes room for need items of size bytes at *p (capacity *cap); 0, or -1 out of memory. */
static int reserve(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static uint64_t name_hash(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
    return h;
}

/* The index of pod p[0..n), added if new; SIZE_MAX out of memory. */
static size_t pod_index(ScrapeList *s, const char *p, size_t n)
{
    if (2 * (s->npods + 1) > s->nslot) {
        size_t ns = s->nslot ? s->nslot * 2 : 64;
        uint32_t *slot = (uint32_t *)calloc(ns, sizeof *slot);
        if (slot == NULL)
            return SIZE_MAX;
        for (size_t i = 0; i < s->npods; i++) {
            const char *q = s->pods + s->pod_at[i];
            size_t h = (size_t)name_hash(q, strlen(q)) & (ns - 1);
            while (slot[h] != 0)
                h = (h + 1) & (ns - 1);
            slot[h] = (uint32_t)(i + 1);
        }
        free(s->slot);
        s->slot = slot;
        s->nslot = ns;
    }
    size_t h = (size_t)name_hash(p, n) & (s->nslot - 1);
    while (s->slot[h] != 0) {
        const char *q = s->pods + s->pod_at[s->slot[h] - 1];
        if (strncmp(q, p, n) == 0 && q[n] == '\0')
            return s->slot[h] - 1;
        h = (h + 1) & (s->nslot - 1);
    }
    if (s->npods >= HUGE_T - 1 ||
        reserve((void **)&s->pod_at, &s->cappods, s->npods + 1, sizeof *s->pod_at) != 0 ||
        reserve((void **)&s->pods, &s->podcap, s->podlen + n + 1, 1) != 0)
        return SIZE_MAX;
    memcpy(s->pods + s->podlen, p, n);
    s->pods[s->podlen + n] = '\0';
    s->pod_at[s->npods] = s->podlen;
    s->podlen += n + 1;
    s->slot[h] = (uint32_t)(s->npods + 1);
    return s->npods++;
}

/*
** Is name <pod>_<epoch>_metrics.log (as the Lua pattern "^(.+)_(%d+)_metrics%.log$" reads
** it: the epoch is the digits before the suffix, all of them, after a '_'; the pod at
** least a byte)? 1 with the pod's length and the epoch's digits.
*/
static int scrape_name(const char *name, size_t n, size_t *pl, const char **ts, size_t *tl)
{
    static const char SUFFIX[] = "_metrics.log";
    const size_t sl = sizeof SUFFIX - 1;
    if (n < sl + 3 || memcmp(name + n - sl, SUFFIX, sl) != 0)
        return 0;
    size_t e = n - sl, b = e;
    while (b > 0 && name[b - 1] >= '0' && name[b - 1] <= '9')
        b--;
    if (b == e || b < 2 || name[b - 1] != '_')
        return 0;
    *pl = b - 1;
    *ts = name + b;
    *tl = e - b;
    return 1;
}

/* The epoch of digits ts[0..tl) as Lua's tonumber reads it: 1 with *t an integer, or 0
   (beyond one: a float, *d). */
static int epoch_of(const char *ts, size_t tl, int64_t *t, double *d)
{
    uint64_t v = 0;
    for (size_t i = 0; i < tl; i++) {
        unsigned dg = (unsigned)(ts[i] - '0');
        if (v > (UINT64_C(0x7FFFFFFFFFFFFFFF) - dg) / 10) {
            char buf[400];
            (void)snprintf(buf, sizeof buf, "%.*s", (int)(tl < 399 ? tl : 399), ts);
            *d = tl < 399 ? strtod(buf, NULL) : HUGE_VAL;
            return 0;
        }
        v = v * 10 + dg;
    }
    *t = (int64_t)v;
    return 1;
}

/* The name of file f (into the list's path buffer after its first at bytes): its length,
   or SIZE_MAX out of memory. */
static size_t file_name(ScrapeList *s, const ScrapeFile *f, size_t at)
{
    if (f->name != 0) {
        const char *nm = s->names + f->name - 1;
        size_t n = strlen(nm);
        if (reserve((void **)&s->path, &s->pathcap, at + n + 1, 1) != 0)
            return SIZE_MAX;
        memcpy(s->path + at, nm, n + 1);
        return n;
    }
    const char *pod = s->pods + s->pod_at[s->by_rank[f->pod & ~HUGE_T]];
    size_t pl = strlen(pod);
    if (reserve((void **)&s->path, &s->pathcap, at + pl + 40, 1) != 0)
        return SIZE_MAX;
    /* pod "_" epoch "_metrics.log", by hand: snprintf was a third of the list's cost */
    char digits[24], *d = digits + sizeof digits;
    uint64_t t = (uint64_t)f->t; /* (digits: never negative) */
    do {
        *--d = (char)('0' + t % 10);
        t /= 10;
    } while (t != 0);
    size_t dn = (size_t)(digits + sizeof digits - d);
    char *o = s->path + at;
    memcpy(o, pod, pl + 1); /* (its NUL too, overwritten by the '_') */
    o[pl] = '_';
    memcpy(o + pl + 1, d, dn);
    memcpy(o + pl + 1 + dn, "_metrics.log", 13);
    return pl + 1 + dn + 12;
}

/* File f's epoch as a number (a huge one, beyond int64, as tonumber reads its digits). */
static double epoch_number(const ScrapeList *s, const ScrapeFile *f)
{
    if (!(f->pod & HUGE_T))
        return (double)f->t;
    size_t pl = 0, tl = 0;
    const char *ts = NULL, *nm = s->names + f->name - 1;
    int64_t t;
    double d = HUGE_VAL;
    if (!scrape_name(nm, strlen(nm), &pl, &ts, &tl)) /* (a listed name: never) */
        return d;
    (void)epoch_of(ts, tl, &t, &d);
    return d;
}

/* Pushes file f's epoch as Lua's tonumber of its digits: an integer unless it is huge. */
static void push_epoch(lua_State *L, const ScrapeList *s, const ScrapeFile *f)
{
    if (!(f->pod & HUGE_T))
        lua_pushinteger(L, (lua_Integer)f->t);
    else
        lua_pushnumber(L, epoch_number(s, f));
}

/* Time order, then the pod's name (strcmp: Lua's string order in the C locale), then the
   name (two names of one pod and time: leading zeros). */
static int file_cmp(const void *x, const void *y, void *ud)
{
    const ScrapeFile *a = (const ScrapeFile *)x, *b = (const ScrapeFile *)y;
    const ScrapeList *s = (const ScrapeList *)ud;
    if ((a->pod & HUGE_T) || (b->pod & HUGE_T)) {
        if (!(a->pod & HUGE_T) || !(b->pod & HUGE_T)) /* an integer is below every float */
            return (a->pod & HUGE_T) ? 1 : -1;
        double da = epoch_number(s, a), db = epoch_number(s, b);
        if (da != db)
            return da < db ? -1 : 1;
    } else if (a->t != b->t) {
        return a->t < b->t ? -1 : 1;
    }
    uint32_t ra = a->pod & ~HUGE_T, rb = b->pod & ~HUGE_T;
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (a->name == 0 || b->name == 0)
        return a->name == b->name ? 0 : a->name == 0 ? -1 : 1;
    return strcmp(s->names + a->name - 1, s->names + b->name - 1);
}

static const char *const READ_DIR_OPTS[] = {"readable", "on_scrape", "max_skew", NULL};

/* Sorts pod indices by name. */
static int pod_cmp(const void *x, const void *y, void *ud)
{
    const ScrapeList *s = (const ScrapeList *)ud;
    return strcmp(s->pods + s->pod_at[*(const uint32_t *)x],
                  s->pods + s->pod_at[*(const uint32_t *)y]);
}

/* Lists dir (its path in s->path[0..dl), a '/' after it) into s, calling the function at
   stack index readable (0: none) with each candidate's path. */
static void list_scrapes(lua_State *L, ScrapeList *s, const char *dir, size_t dl, int readable)
{
    s->dir = opendir(dir);
    if (s->dir == NULL)
        llmd_error(L, "%s: cannot list the folder: %s", dir, strerror(errno));
    for (;;) {
        if (llmd_signals != llmd_signals_taken && llmd_interrupt_pending(L))
            luaL_error(L, "%s: interrupted", dir);
        errno = 0;
        const struct dirent *de = readdir(s->dir);
        if (de == NULL) {
            if (errno != 0)
                llmd_error(L, "%s: cannot list the folder: %s", dir, strerror(errno));
            break;
        }
        const char *nm = de->d_name, *ts;
        size_t n = strlen(nm), pl, tl;
        if (!scrape_name(nm, n, &pl, &ts, &tl))
            continue;
        if (readable != 0) {
            if (reserve((void **)&s->path, &s->pathcap, dl + 1 + n + 1, 1) != 0)
                llmd_error(L, "%s: out of memory", dir);
            memcpy(s->path + dl + 1, nm, n + 1);
            lua_pushvalue(L, readable);
            lua_pushstring(L, s->path);
            lua_call(L, 1, 1); /* (s->dir stays open: a folder's entries are its state) */
            int ok = lua_toboolean(L, -1);
            lua_pop(L, 1);
            if (!ok)
                continue;
        }
        int64_t t = 0;
        double d;
        int whole = epoch_of(ts, tl, &t, &d);
        int keep = !whole || (tl > 1 && ts[0] == '0');
        size_t pi = pod_index(s, nm, pl);
        if (pi == SIZE_MAX ||
            reserve((void **)&s->files, &s->cap, s->n + 1, sizeof *s->files) != 0 ||
            (keep && (s->nameslen + n + 1 >= UINT32_MAX ||
                      reserve((void **)&s->names, &s->namescap, s->nameslen + n + 1, 1) != 0)))
            llmd_error(L, "%s: out of memory for the list of its files", dir);
        uint32_t at = 0;
        if (keep) {
            memcpy(s->names + s->nameslen, nm, n + 1);
            at = (uint32_t)s->nameslen + 1;
            s->nameslen += n + 1;
        }
        s->files[s->n++] =
            (ScrapeFile){whole ? t : INT64_MAX, (uint32_t)pi | (whole ? 0 : HUGE_T), at};
    }
    (void)closedir(s->dir);
    s->dir = NULL;
    /* pods by name; each file's pod as its rank */
    s->rank = (uint32_t *)malloc((s->npods ? s->npods : 1) * sizeof *s->rank);
    s->by_rank = (uint32_t *)malloc((s->npods ? s->npods : 1) * sizeof *s->by_rank);
    s->seen = (unsigned char *)calloc(s->npods ? s->npods : 1, 1);
    if (s->rank == NULL || s->by_rank == NULL || s->seen == NULL)
        llmd_error(L, "%s: out of memory for the list of its files", dir);
    for (size_t i = 0; i < s->npods; i++)
        s->by_rank[i] = (uint32_t)i;
    qsort_r(s->by_rank, s->npods, sizeof *s->by_rank, pod_cmp, s);
    for (size_t r = 0; r < s->npods; r++)
        s->rank[s->by_rank[r]] = (uint32_t)r;
    for (size_t i = 0; i < s->n; i++)
        s->files[i].pod = s->rank[s->files[i].pod & ~HUGE_T] | (s->files[i].pod & HUGE_T);
    if (s->n > 1) /* (an empty folder has no list: qsort of NULL is undefined, even of 0) */
        qsort_r(s->files, s->n, sizeof *s->files, file_cmp, s);
}

/* Pushes {file =, pod =, t =} of file f (name, pod) for info.failed, at the end of the
   table at index failed; returns it on the stack. */
static void push_failed(lua_State *L, int failed, const ScrapeList *s, const ScrapeFile *f,
                        const char *name, const char *pod)
{
    lua_createtable(L, 0, 4);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "file");
    lua_pushstring(L, pod);
    lua_setfield(L, -2, "pod");
    push_epoch(L, s, f);
    lua_setfield(L, -2, "t");
    lua_pushvalue(L, -1);
    lua_rawseti(L, failed, (lua_Integer)luaL_len(L, failed) + 1);
}

/*
** agg:read_dir(dir [, {readable = fn, on_scrape = fn, max_skew = s}]) -> info [, issue]:
** prom_files.read_raw_dir's reading, in C, which says what to make of what it returns.
** Lists dir's <pod>_<epoch>_metrics.log files (readable(path) false leaves one out) and
** reads them, in time order, then by pod, into the aggregator. A 0-byte file is a failed
** scrape, {file =, pod =, t =, empty = true} in info.failed. The header's Pod must be the
** name's, its Timestamp readable and at most max_skew seconds from the name's epoch:
** else the reading stops there with issue {kind = "pod" | "stamp" | "skew", path =,
** pod =, header_pod =, stamp =, header_t =, t =}. A file with a "# Warning: " line is a
** failed scrape {file =, pod =, t =, reason = its text}, not added; the others are added
** (their header lines skipped, counted in line numbers), then on_scrape(pod, t, text,
** path). info: {files =, scrapes =, failed =, pods = {the names of pods with a scrape
** added, sorted}, start =, finish = (the first and last file's epoch)}.
*/
static int l_read_dir(lua_State *L)
{
    PromAgg *a = check_agg(L);
    size_t dl;
    const char *dir = luaL_checklstring(L, 2, &dl);
    lua_settop(L, 3);
    if (lua_isnil(L, 3)) {
        lua_newtable(L);
        lua_replace(L, 3);
    }
    luaL_checktype(L, 3, LUA_TTABLE);
    llmd_check_keys(L, 3, "agg:read_dir", READ_DIR_OPTS, 0);
    int readable = lua_getfield(L, 3, "readable") == LUA_TNIL ? 0 : 4;
    int on_scrape = lua_getfield(L, 3, "on_scrape") == LUA_TNIL ? 0 : 5;
    if (readable != 0)
        luaL_checktype(L, 4, LUA_TFUNCTION);
    if (on_scrape != 0)
        luaL_checktype(L, 5, LUA_TFUNCTION);
    lua_getfield(L, 3, "max_skew");
    double max_skew = (double)luaL_optnumber(L, -1, HUGE_VAL);
    lua_pop(L, 1); /* dir, opts, readable, on_scrape */
    ScrapeList *s = (ScrapeList *)lua_newuserdatauv(L, sizeof *s, 0); /* 6 */
    memset(s, 0, sizeof *s);
    luaL_setmetatable(L, SCRAPES_MT);
    if (reserve((void **)&s->path, &s->pathcap, dl + 2, 1) != 0)
        llmd_error(L, "%s: out of memory", dir);
    memcpy(s->path, dir, dl);
    s->path[dl] = '/';
    s->path[dl + 1] = '\0';
    list_scrapes(L, s, dir, dl, readable);
    lua_createtable(L, 0, 0); /* 7: info.failed */
    const int failed = 7;
    lua_Integer scrapes = 0;
    char stamp[64]; /* the last Timestamp parsed (a round's pods share it) */
    size_t stamp_n = SIZE_MAX;
    int stamp_ok = 0;
    int64_t stamp_t = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (llmd_signals != llmd_signals_taken && llmd_interrupt_pending(L))
            luaL_error(L, "%s: interrupted", dir);
        const ScrapeFile *f = &s->files[i];
        if (file_name(s, f, dl + 1) == SIZE_MAX)
            llmd_error(L, "%s: out of memory", dir);
        const char *path = s->path, *name = s->path + dl + 1;
        const char *pod = s->pods + s->pod_at[s->by_rank[f->pod & ~HUGE_T]];
        size_t pl = strlen(pod);
        a->loaded = 0;
        int rc = prom_agg_load(a, path, 1);
        if (rc < 0)
            llmd_error(L, "%s", a->err);
        if (rc == 1) { /* 0 bytes */
            push_failed(L, failed, s, f, name, pod);
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, "empty");
            lua_pop(L, 1);
            continue;
        }
        HeaderField hp, hs;
        uint64_t hlines;
        const char *body = scrape_header(a->file, a->file + a->flen, &hp, &hs, &hlines);
        const char *kind = NULL;
        int64_t ht = 0;
        if (hp.p != NULL && (hp.n != pl || memcmp(hp.p, pod, pl) != 0)) {
            kind = "pod";
        } else if (hs.p != NULL) {
            if (hs.n == stamp_n && memcmp(hs.p, stamp, hs.n) == 0) {
                ht = stamp_t;
            } else {
                stamp_ok = prom_parse_timestamp(hs.p, hs.n, &stamp_t);
                ht = stamp_t;
                stamp_n = hs.n <= sizeof stamp ? hs.n : SIZE_MAX;
                if (stamp_n != SIZE_MAX)
                    memcpy(stamp, hs.p, hs.n);
            }
            /* |header - name| > max_skew, exactly: an epoch from 2^62 on is far from any
               Timestamp's (below 2^39 in magnitude) */
            if (!stamp_ok)
                kind = "stamp";
            else if ((f->pod & HUGE_T) || f->t >= INT64_C(1) << 62 ||
                     (double)(ht > f->t ? ht - f->t : f->t - ht) > max_skew)
                kind = "skew";
        }
        if (kind != NULL) {
            lua_createtable(L, 0, 7); /* ..., failed, issue */
            lua_pushstring(L, kind);
            lua_setfield(L, -2, "kind");
            lua_pushstring(L, path);
            lua_setfield(L, -2, "path");
            lua_pushstring(L, pod);
            lua_setfield(L, -2, "pod");
            push_epoch(L, s, f);
            lua_setfield(L, -2, "t");
            if (hp.p != NULL) {
                lua_pushlstring(L, hp.p, hp.n);
                lua_setfield(L, -2, "header_pod");
            }
            if (hs.p != NULL) {
                lua_pushlstring(L, hs.p, hs.n);
                lua_setfield(L, -2, "stamp");
            }
            if (kind[1] == 'k') { /* skew */
                lua_pushinteger(L, (lua_Integer)ht);
                lua_setfield(L, -2, "header_t");
            }
            lua_pushnil(L);
            lua_insert(L, -2); /* ..., failed, nil, issue */
            return 2;
        }
        size_t wl = 0;
        const char *w = find_warning(a->file, a->flen, &wl);
        if (w != NULL) { /* a line "# Warning: ..." (collect_metrics.sh's failed scrape) */
            push_failed(L, failed, s, f, name, pod);
            lua_pushlstring(L, w, wl);
            lua_setfield(L, -2, "reason");
            lua_pop(L, 1);
            continue;
        }
        add_text_at(L, a, pod, body, (size_t)(a->file + a->flen - body), hlines, epoch_number(s, f),
                    path);
        if (on_scrape != 0) {
            lua_pushvalue(L, on_scrape);
            lua_pushstring(L, pod);
            push_epoch(L, s, f);
            lua_pushlstring(L, a->file, a->flen);
            lua_pushstring(L, path);
            lua_call(L, 4, 0);
        }
        scrapes++;
        s->seen[f->pod & ~HUGE_T] = 1;
    }
    lua_createtable(L, 0, 6); /* ..., failed, info */
    lua_pushinteger(L, (lua_Integer)s->n);
    lua_setfield(L, -2, "files");
    lua_pushinteger(L, scrapes);
    lua_setfield(L, -2, "scrapes");
    lua_pushvalue(L, failed);
    lua_setfield(L, -2, "failed");
    lua_createtable(L, 0, 0);
    lua_Integer k = 0;
    for (size_t r = 0; r < s->npods; r++)
        if (s->seen[r]) {
            lua_pushstring(L, s->pods + s->pod_at[s->by_rank[r]]);
            lua_rawseti(L, -2, ++k);
        }
    lua_setfield(L, -2, "pods");
    if (s->n > 0) {
        push_epoch(L, s, &s->files[0]);
        lua_setfield(L, -2, "start");
        push_epoch(L, s, &s->files[s->n - 1]);
        lua_setfield(L, -2, "finish");
    }
    scrapes_free(s); /* now, not at the next collection */
    return 1;
}

/* Reads opts.by (at idx) into names; returns how many. */
static int read_by(lua_State *L, int idx, const char **names)
{
    int n = 0;
    if (idx == 0 || !lua_istable(L, idx))
        return 0;
    if (lua_getfield(L, idx, "by") == LUA_TTABLE) {
        int k = (int)luaL_len(L, -1);
        if (k > MAX_BY)
            llmd_error(L, "prom: at most %d labels in 'by'", MAX_BY);
        for (int i = 1; i <= k; i++) {
            lua_rawgeti(L, -1, i);
            names[n] = lua_tostring(L, -1);
            if (names[n] == NULL)
                llmd_error(L, "prom: 'by' must list label names");
            lua_pop(L, 1); /* anchored in the by table, in opts */
            n++;
        }
    }
    lua_pop(L, 1);
    return n;
}

/* Pushes the group key of series s: its values of the by labels ("pod": the pod),
   joined with ','. */
static void push_group(lua_State *L, const PromSeries *s, const char **by, int nby)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; i < nby; i++) {
        if (i > 0)
            luaL_addchar(&b, ',');
        if (strcmp(by[i], "pod") == 0) {
            luaL_addstring(&b, s->pod);
        } else {
            char v[512];
            prom_label(s, by[i], v, sizeof v);
            luaL_addstring(&b, v);
        }
    }
    luaL_pushresult(&b);
}

/*
** A name that has no series but whose counterpart with (or without) the _total suffix
** has: a mistake with a known fix, raised rather than answered with nil ("never
** scraped"). Counters are exposed as NAME_total (client_golang, OpenMetrics).
*/
static void suggest_total(lua_State *L, PromAgg *a, const char *fn, const char *name)
{
    size_t nl = strlen(name);
    char alt[512];
    if (nl + 7 > sizeof alt)
        return;
    if (nl > 6 && strcmp(name + nl - 6, "_total") == 0) {
        memcpy(alt, name, nl - 6);
        alt[nl - 6] = '\0';
    } else {
        memcpy(alt, name, nl);
        memcpy(alt + nl, "_total", 7);
    }
    if (prom_agg_find(a, alt, NULL, 0) > 0)
        llmd_usage_error(L, "%s: no series named '%s' (did you mean '%s'?)", fn, name, alt);
}

/* The series of name as a Lua array of indices + 1 (pushed); returns the count. */
static size_t find_series(lua_State *L, PromAgg *a, const char *fn, const char *name, size_t **out)
{
    size_t n = prom_agg_find(a, name, NULL, 0);
    if (n == 0)
        suggest_total(L, a, fn, name);
    size_t *idx = (size_t *)lua_newuserdatauv(L, (n ? n : 1) * sizeof *idx, 0);
    prom_agg_find(a, name, idx, n);
    *out = idx;
    return n;
}

/*
** A name with no series while a scraped one is a likely typo of it (one it begins, or at
** most 2 edits away, by llmd_closest's rule): raised at the script's line, as an options
** table's misspelt key is. A name further away is a metric this scrape may simply not
** have (vLLM renames between versions: gpu_prefix_cache_* became prefix_cache_*), so
** the caller's nil ("never scraped") stands.
*/
static void suggest_name(lua_State *L, PromAgg *a, const char *fn, const char *name)
{
    if (a->n == 0)
        return;
    const char **names = (const char **)lua_newuserdatauv(L, (a->n + 1) * sizeof *names, 0);
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++)
        names[k++] = a->series[i].name;
    names[k] = NULL;
    const char *near = llmd_closest(name, names);
    if (near != NULL &&
        (strncmp(near, name, strlen(name)) == 0 || llmd_edit_distance(name, near) <= 2))
        llmd_usage_error(L, "%s: no series named '%s' (did you mean '%s'?)", fn, name, near);
    lua_pop(L, 1);
}

/*
** gauge_summary of series that are not a gauge's (a counter, a histogram's or a summary's
** cumulative series) would summarise running totals as if they were levels: refused at the
** script's line, naming the metric, its type and what to call instead.
*/
static void refuse_non_gauge(lua_State *L, PromAgg *a, const char *name, const size_t *idx,
                             size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const PromSeries *s = &a->series[idx[i]];
        if (!s->counter_like)
            continue;
        const char *type = prom_type_name((PromType)s->type);
        if (s->type == PROM_HISTOGRAM) {
            size_t nl = strlen(name);
            size_t base = nl;
            const char *suffixes[] = {"_bucket", "_count", "_sum"};
            for (size_t j = 0; j < 3; j++) {
                size_t sl = strlen(suffixes[j]);
                if (nl > sl && strcmp(name + nl - sl, suffixes[j]) == 0)
                    base = nl - sl;
            }
            lua_pushlstring(L, name, base);
            llmd_usage_error(L,
                             "agg:gauge_summary: '%s' is a series of a histogram, not a gauge; "
                             "call agg:histogram_quantile('%s', q) or agg:histogram_mean('%s')",
                             name, lua_tostring(L, -1), lua_tostring(L, -1));
        }
        llmd_usage_error(L,
                         "agg:gauge_summary: '%s' is a %s, not a gauge (its values only add up); "
                         "call agg:counter_total('%s') for its increase over the run",
                         name, s->type == PROM_SUMMARY ? "summary's running total" : type, name);
    }
}

/*
** counter_total of a gauge's series (a gauge, a gauge histogram's) or of a counter's
** NAME_created time (vLLM types it a gauge; OpenMetrics a counter's series) would add up
** levels or timestamps as if they were counts, a number that means nothing: refused at
** the script's line, naming the metric, its type and what to call instead (NAME_total
** when it was scraped, else gauge_summary).
*/
static void refuse_non_counter(lua_State *L, PromAgg *a, const char *name, const size_t *idx,
                               size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const PromSeries *s = &a->series[idx[i]];
        int gauge = s->type == PROM_GAUGE || s->type == PROM_GAUGEHISTOGRAM;
        if (!gauge && !(s->type == PROM_COUNTER && s->created))
            continue;
        const char *type = s->type == PROM_GAUGEHISTOGRAM ? "gauge histogram's series"
                                                          : prom_type_name((PromType)s->type);
        size_t nl = strlen(name);
        if (s->created) {
            lua_pushlstring(L, name, nl - strlen("_created"));
            lua_pushliteral(L, "_total");
            lua_concat(L, 2); /* ..., NAME_total */
            if (prom_agg_find(a, lua_tostring(L, -1), NULL, 0) > 0)
                llmd_usage_error(L,
                                 "agg:counter_total: '%s' is a counter's creation time (TYPE %s), "
                                 "not a count (did you mean '%s'?)",
                                 name, type, lua_tostring(L, -1));
            lua_pop(L, 1);
            if (!gauge)
                llmd_usage_error(L,
                                 "agg:counter_total: '%s' is a counter's creation time (TYPE %s), "
                                 "not a count; a total of it means nothing",
                                 name, type);
        }
        llmd_usage_error(L,
                         "agg:counter_total: '%s' is a %s, not a counter (its values are levels, "
                         "not counts: a total of them means nothing); call "
                         "agg:gauge_summary('%s') for its levels over the run",
                         name, type, name);
    }
}

/* Pushes nil and why the metric has no value (a wrong suffix raised in find_series). */
static int push_never_scraped(lua_State *L, const char *name)
{
    lua_pushnil(L);
    lua_pushfstring(L, "%s: never scraped", name);
    return 2;
}

static double series_value(const PromAgg *a, const PromSeries *s, int mode)
{
    return mode == 0 ? prom_increase(a, s) : mode == 1 ? s->max : s->last_v;
}

/*
** agg:counter_total(name [, {mode =, by =}]) -> the sum over pods and label sets (nil and
** why when the metric was never scraped); with by, a table group -> sum.
*/
static int l_counter_total(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *name = luaL_checkstring(L, 2);
    int opts = lua_istable(L, 3) ? 3 : 0;
    int mode = 0;
    if (opts) {
        llmd_check_keys(L, opts, "agg:counter_total", COUNTER_OPTS, 0);
        mode = llmd_opt_option(L, opts, "agg:counter_total", "mode", 0, MODES);
    }
    const char *by[MAX_BY];
    int nby = read_by(L, opts, by);
    size_t *idx;
    size_t n = find_series(L, a, "agg:counter_total", name, &idx);
    if (n == 0) {
        suggest_name(L, a, "agg:counter_total", name);
        return push_never_scraped(L, name);
    }
    refuse_non_counter(L, a, name, idx, n);
    if (nby == 0) {
        double total = 0;
        for (size_t i = 0; i < n; i++)
            total += series_value(a, &a->series[idx[i]], mode);
        lua_pushnumber(L, total);
        return 1;
    }
    lua_newtable(L); /* ..., result */
    for (size_t i = 0; i < n; i++) {
        const PromSeries *s = &a->series[idx[i]];
        push_group(L, s, by, nby); /* result, key */
        lua_pushvalue(L, -1);
        double prev = lua_rawget(L, -3) == LUA_TNUMBER ? (double)lua_tonumber(L, -1) : 0;
        lua_pop(L, 1);
        lua_pushnumber(L, prev + series_value(a, s, mode));
        lua_rawset(L, -3);
    }
    return 1;
}

static void set_num(lua_State *L, const char *k, double v)
{
    if (!isnan(v)) {
        lua_pushnumber(L, v);
        lua_setfield(L, -2, k);
    }
}

/*
** With by (nby labels): pushes a table group -> what push(L, a, gi, k, ud) pushes for the
** series of that group (gi[0..k), in the order of idx[0..n)), leaving out a group for
** which it pushes nil.
*/
typedef void (*GroupPush)(lua_State *L, PromAgg *a, const size_t *gi, size_t k, void *ud);
static void push_by_group(lua_State *L, PromAgg *a, const size_t *idx, size_t n, const char **by,
                          int nby, GroupPush push, void *ud)
{
    /* collect the indices of each group, in a Lua table of arrays */
    lua_newtable(L); /* groups: key -> {i, ...} */
    int groups = lua_gettop(L);
    for (size_t i = 0; i < n; i++) {
        push_group(L, &a->series[idx[i]], by, nby); /* key */
        lua_pushvalue(L, -1);
        if (lua_rawget(L, groups) != LUA_TTABLE) { /* key, list? */
            lua_pop(L, 1);
            lua_newtable(L);
            lua_pushvalue(L, -2);
            lua_pushvalue(L, -2);
            lua_rawset(L, groups); /* key, list */
        }
        lua_pushinteger(L, (lua_Integer)idx[i]);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
        lua_pop(L, 2);
    }
    lua_newtable(L); /* groups, result */
    int result = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, groups) != 0) { /* ..., result, key, list */
        size_t k = lua_rawlen(L, -1);
        size_t *gi = (size_t *)lua_newuserdatauv(L, k * sizeof *gi, 0); /* ..., key, list, ud */
        for (size_t j = 0; j < k; j++) {
            lua_rawgeti(L, -2, (lua_Integer)j + 1);
            gi[j] = (size_t)lua_tointeger(L, -1);
            lua_pop(L, 1);
        }
        push(L, a, gi, k, ud); /* ..., key, list, ud, value */
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
        } else {
            lua_pushvalue(L, -4);
            lua_insert(L, -2);
            lua_rawset(L, result); /* result[key] = value */
        }
        lua_pop(L, 2); /* ..., result, key */
    }
    lua_remove(L, groups); /* ..., result */
}

/* Pushes the summary of the gauge series idx[0..n) (a GroupPush). */
static void push_gauge(lua_State *L, PromAgg *a, const size_t *idx, size_t n, void *ud)
{
    (void)ud;
    Stats all;
    stats_init(&all, a->gauge_sketch);
    double tw_sum = 0, tw_dur = 0;
    for (size_t i = 0; i < n; i++) {
        const PromSeries *s = &a->series[idx[i]];
        if (s->values != NULL && stats_merge(&all, s->values) != STATS_OK) {
            stats_free(&all);
            llmd_error(L, "prom: out of memory");
        }
        tw_sum += s->tw_sum;
        tw_dur += s->tw_dur;
    }
    lua_createtable(L, 0, 10);
    lua_pushinteger(L, (lua_Integer)all.n);
    lua_setfield(L, -2, "count");
    lua_pushinteger(L, (lua_Integer)n);
    lua_setfield(L, -2, "series");
    set_num(L, "mean", stats_mean(&all));
    set_num(L, "min", stats_min(&all));
    set_num(L, "max", stats_max(&all));
    static const double ps[] = {50, 90, 95, 99};
    static const char *const keys[] = {"p50", "p90", "p95", "p99"};
    double out[4];
    stats_percentiles(&all, ps, out, 4, STATS_LINEAR);
    for (int i = 0; i < 4; i++)
        set_num(L, keys[i], out[i]);
    set_num(L, "time_weighted_mean", tw_dur > 0 ? tw_sum / tw_dur : NAN);
    stats_free(&all);
}

/*
** agg:gauge_summary(name [, {by =}]) -> {count=, series=, mean=, min=, max=, p50=, p90=,
** p95=, p99=, time_weighted_mean=}, pooled over every series (nil and why when never
** scraped); with by, a table group -> summary.
*/
static int l_gauge_summary(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *name = luaL_checkstring(L, 2);
    int opts = lua_istable(L, 3) ? 3 : 0;
    if (opts)
        llmd_check_keys(L, opts, "agg:gauge_summary", BY_OPTS, 0);
    const char *by[MAX_BY];
    int nby = read_by(L, opts, by);
    size_t *idx;
    size_t n = find_series(L, a, "agg:gauge_summary", name, &idx);
    if (n == 0) {
        suggest_name(L, a, "agg:gauge_summary", name);
        return push_never_scraped(L, name);
    }
    refuse_non_gauge(L, a, name, idx, n);
    if (nby == 0)
        push_gauge(L, a, idx, n, NULL);
    else
        push_by_group(L, a, idx, n, by, nby, push_gauge, NULL);
    return 1;
}

typedef struct Bucket {
    double le, count;
} Bucket;

static int bucket_cmp(const void *x, const void *y)
{
    double a = ((const Bucket *)x)->le, b = ((const Bucket *)y)->le;
    return (a > b) - (a < b);
}

/* The quantile over the bucket series idx[0..n) (already of one group). */
static double group_quantile(lua_State *L, PromAgg *a, const size_t *idx, size_t n, double q)
{
    Bucket *bk = (Bucket *)lua_newuserdatauv(L, (n ? n : 1) * sizeof *bk, 0);
    size_t nb = 0;
    for (size_t i = 0; i < n; i++) {
        const PromSeries *s = &a->series[idx[i]];
        char le[128];
        size_t ll = prom_label(s, "le", le, sizeof le);
        if (ll == 0)
            continue;
        double bound;
        if (strcmp(le, "+Inf") == 0 || strcmp(le, "Inf") == 0 || strcmp(le, "inf") == 0)
            bound = HUGE_VAL;
        else {
            char *end;
            bound = strtod(le, &end);
            /* the whole value (a NUL in it would stop strtod early), not cut to fit */
            if (end != le + ll || ll + 1 >= sizeof le)
                llmd_error(L, "prom: %s has a bucket bound le=\"%s\" that is not a number", s->name,
                           le);
        }
        double inc = prom_increase(a, s);
        size_t j = 0;
        while (j < nb && bk[j].le != bound)
            j++;
        if (j == nb) {
            bk[nb].le = bound;
            bk[nb].count = 0;
            nb++;
        }
        bk[j].count += inc; /* summed over pods and other labels */
    }
    qsort(bk, nb, sizeof *bk, bucket_cmp);
    double *le = (double *)lua_newuserdatauv(L, (nb ? nb : 1) * 2 * sizeof(double), 0);
    double *cum = le + nb;
    for (size_t i = 0; i < nb; i++) {
        le[i] = bk[i].le;
        cum[i] = bk[i].count;
    }
    double r = prom_bucket_quantile(q, le, cum, nb);
    lua_pop(L, 2);
    return r;
}

/* Pushes the quantile *(double *)q over the bucket series idx[0..n), nil when there were
   no observations (a GroupPush). */
static void push_quantile(lua_State *L, PromAgg *a, const size_t *idx, size_t n, void *q)
{
    double r = group_quantile(L, a, idx, n, *(const double *)q);
    if (isnan(r))
        lua_pushnil(L);
    else
        lua_pushnumber(L, r);
}

/*
** agg:histogram_quantile(name, q [, {by =}]) -> the q-quantile (q in [0, 1]) of the
** observations made during the window, from the bucket increases of every pod, as
** Prometheus' histogram_quantile (nil when there were none); with by, group -> value.
*/
static int l_histogram_quantile(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *name = luaL_checkstring(L, 2);
    double q = (double)luaL_checknumber(L, 3);
    luaL_argcheck(L, q >= 0 && q <= 1, 3, "quantile must be in [0, 1]");
    int opts = lua_istable(L, 4) ? 4 : 0;
    if (opts)
        llmd_check_keys(L, opts, "agg:histogram_quantile", BY_OPTS, 0);
    const char *by[MAX_BY];
    int nby = read_by(L, opts, by);
    lua_pushfstring(L, "%s_bucket", name);
    size_t *idx;
    size_t n = find_series(L, a, "agg:histogram_quantile", lua_tostring(L, -1), &idx);
    size_t nl = strlen(name);
    if (n == 0 && nl > 7 && strcmp(name + nl - 7, "_bucket") == 0 &&
        prom_agg_find(a, name, NULL, 0) > 0) {
        lua_pushlstring(L, name, nl - 7); /* lua_pushfstring has no %.*s */
        llmd_usage_error(L,
                         "agg:histogram_quantile: no histogram named '%s' (did you mean '%s'? its "
                         "series are NAME_bucket)",
                         name, lua_tostring(L, -1));
    }
    if (n == 0) {
        lua_pushnil(L);
        return 1;
    }
    if (nby == 0)
        push_quantile(L, a, idx, n, &q);
    else
        push_by_group(L, a, idx, n, by, nby, push_quantile, &q);
    return 1;
}

/* Sums the increases of name's series; returns how many series there were. */
static size_t sum_increase(lua_State *L, PromAgg *a, const char *fn, const char *name,
                           double *total)
{
    size_t *idx;
    size_t n = find_series(L, a, fn, name, &idx);
    *total = 0;
    for (size_t i = 0; i < n; i++)
        *total += prom_increase(a, &a->series[idx[i]]);
    lua_pop(L, 1);
    return n;
}

/* agg:histogram_mean(name) -> increase of name_sum / increase of name_count, or nil */
static int l_histogram_mean(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *name = luaL_checkstring(L, 2);
    double sum, count;
    lua_pushfstring(L, "%s_sum", name);
    size_t ns = sum_increase(L, a, "agg:histogram_mean", lua_tostring(L, -1), &sum);
    lua_pushfstring(L, "%s_count", name);
    size_t nc = sum_increase(L, a, "agg:histogram_mean", lua_tostring(L, -1), &count);
    if (ns == 0 || nc == 0 || !(count > 0))
        lua_pushnil(L);
    else
        lua_pushnumber(L, sum / count);
    return 1;
}

/* agg:ratio(numerator, denominator) -> sum of increases / sum of increases, or nil
   when the denominator did not increase (unknown, not 0 %, not NaN) */
static int l_ratio(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *num = luaL_checkstring(L, 2), *den = luaL_checkstring(L, 3);
    double x, y;
    size_t nn = sum_increase(L, a, "agg:ratio", num, &x);
    size_t nd = sum_increase(L, a, "agg:ratio", den, &y);
    if (nn == 0 || nd == 0 || !(y > 0))
        lua_pushnil(L);
    else
        lua_pushnumber(L, x / y);
    return 1;
}

/* agg:series(name) -> { {pod=, labels=, samples=, first=, last=, min=, max=, resets=,
   increase=, created=, first_t=, last_t=}, ... } */
static int l_series(lua_State *L)
{
    PromAgg *a = check_agg(L);
    const char *name = luaL_checkstring(L, 2);
    size_t *idx;
    size_t n = find_series(L, a, "agg:series", name, &idx);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        const PromSeries *s = &a->series[idx[i]];
        lua_createtable(L, 0, 12);
        lua_pushstring(L, s->pod);
        lua_setfield(L, -2, "pod");
        lua_pushstring(L, s->labels);
        lua_setfield(L, -2, "labels");
        lua_pushstring(L, prom_type_name((PromType)s->type));
        lua_setfield(L, -2, "type");
        lua_pushinteger(L, (lua_Integer)s->samples);
        lua_setfield(L, -2, "samples");
        lua_pushinteger(L, (lua_Integer)s->resets);
        lua_setfield(L, -2, "resets");
        if (s->samples > 0) {
            set_num(L, "first", s->first_v);
            set_num(L, "last", s->last_v);
            set_num(L, "min", s->min);
            set_num(L, "max", s->max);
            set_num(L, "first_t", s->first_t);
            set_num(L, "last_t", s->last_t);
            set_num(L, "increase", prom_increase(a, s));
        }
        set_num(L, "created", prom_created(a, s));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* agg:names() -> the metric names seen, sorted */
static int l_names(lua_State *L)
{
    PromAgg *a = check_agg(L);
    lua_newtable(L); /* set */
    for (size_t i = 0; i < a->n; i++) {
        lua_pushstring(L, a->series[i].name);
        lua_pushboolean(L, 1);
        lua_rawset(L, -3);
    }
    lua_newtable(L); /* set, list */
    lua_pushnil(L);
    while (lua_next(L, -3) != 0) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, (lua_Integer)lua_rawlen(L, -3) + 1);
    }
    lua_getglobal(L, "table");
    lua_getfield(L, -1, "sort");
    lua_pushvalue(L, -3);
    lua_call(L, 1, 0);
    lua_pop(L, 1);
    return 1;
}

/* agg:info() -> {scrapes=, samples=, series=, nan_samples=, dropped=, start=, finish=} */
static int l_info(lua_State *L)
{
    PromAgg *a = check_agg(L);
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, (lua_Integer)a->scrapes);
    lua_setfield(L, -2, "scrapes");
    lua_pushinteger(L, (lua_Integer)a->samples);
    lua_setfield(L, -2, "samples");
    lua_pushinteger(L, (lua_Integer)a->n);
    lua_setfield(L, -2, "series");
    lua_pushinteger(L, (lua_Integer)a->nan_samples);
    lua_setfield(L, -2, "nan_samples");
    lua_pushinteger(L, (lua_Integer)a->dropped);
    lua_setfield(L, -2, "dropped");
    if (a->scrapes > 0) {
        lua_pushnumber(L, a->t_min);
        lua_setfield(L, -2, "start");
        lua_pushnumber(L, a->t_max);
        lua_setfield(L, -2, "finish");
    }
    return 1;
}

/* prom.parse_timestamp(s) -> Unix seconds, or nil: a raw scrape's header Timestamp,
   "2026-02-16T09:20:32+0000" (date +%Y-%m-%dT%H:%M:%S%z; the offset's colon optional) or
   "...Z" */
static int l_parse_timestamp(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    int64_t t;
    if (prom_parse_timestamp(s, n, &t))
        lua_pushinteger(L, (lua_Integer)t);
    else
        lua_pushnil(L);
    return 1;
}

static const luaL_Reg prom_funcs[] = {
    {"parse",           l_parse          },
    {"each",            l_each           },
    {"each_file",       l_each_file      },
    {"aggregator",      l_aggregator     },
    {"parse_timestamp", l_parse_timestamp},
    {NULL,              NULL             }
};

static const luaL_Reg agg_methods[] = {
    {"add",                l_add               },
    {"add_file",           l_add_file          },
    {"read_scrape",        l_read_scrape       },
    {"read_raw",           l_read_raw          },
    {"add_read",           l_add_read          },
    {"read_dir",           l_read_dir          },
    {"counter_total",      l_counter_total     },
    {"gauge_summary",      l_gauge_summary     },
    {"histogram_quantile", l_histogram_quantile},
    {"histogram_mean",     l_histogram_mean    },
    {"ratio",              l_ratio             },
    {"series",             l_series            },
    {"names",              l_names             },
    {"info",               l_info              },
    {NULL,                 NULL                }
};

int luaopen_llmd_prom(lua_State *L)
{
    luaL_newmetatable(L, PARSER_MT); /* mt */
    lua_pushcfunction(L, parser_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newmetatable(L, SCRAPES_MT); /* mt */
    lua_pushcfunction(L, scrapes_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newmetatable(L, AGG_MT); /* mt */
    lua_pushcfunction(L, agg_gc);
    lua_setfield(L, -2, "__gc");
    luaL_newlib(L, agg_methods);    /* mt, methods */
    lua_setfield(L, -2, "__index"); /* mt */
    lua_pop(L, 1);
    luaL_newlib(L, prom_funcs);
    return 1;
}
