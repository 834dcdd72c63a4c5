/*
** lprom.c — llmd.prom: parse, each, aggregator.
**
**   local samples, info = prom.parse(text [, {tolerant = true, name = "scrape"}])
**   prom.each(text, function(sample) ... end [, opts]); prom.each_file(path, fn [, opts])
**   local agg = prom.aggregator{ match = {"vllm:*"}, gauge_sketch = 0.01 }
**   agg:add(pod, text, t); agg:add_file(pod, path, t)
**   local header, warning = agg:read_scrape(path); agg:add_read(pod, t, path)
**   local read, pod, timestamp, warning = agg:read_raw(path); agg:add_read(pod, t, path)
**   agg:counter_total(name, {mode = "increase" | "max" | "last", by = {"pod", ...}})
**   agg:gauge_summary(name [, {by = ...}]); agg:histogram_quantile(name, q [, {by = ...}])
**   agg:histogram_mean(name); agg:ratio(numerator, denominator); agg:series(name)
**
** Unknown is nil: a metric never scraped, a ratio over a zero denominator, a quantile
** with no observations.
*/
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
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
                if (m == NULL)
                    llmd_error(L, "prom.aggregator: match[%d] must be a metric name", i);
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

static void add_text(lua_State *L, PromAgg *a, const char *pod, const char *text, size_t len,
                     double t, const char *name)
{
    if (!(t == t) || isinf(t))
        llmd_error(L, "%s: the scrape time must be a finite number of seconds", name);
    a->parser.interrupt_base = llmd_signals_taken;
    if (prom_agg_add(a, pod, text, len, t, name) != 0) {
        (void)llmd_interrupt_pending(L); /* the error says "interrupted": taken */
        llmd_error(L, "%s", a->err);
    }
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
** ... "\n"): where they end. The values of the keys Pod and Timestamp (the text after the
** colon and one space, if any, up to the newline; the last line of a key wins) in pod and
** ts, NULL when absent.
*/
typedef struct HeaderField {
    const char *p;
    size_t n;
} HeaderField;

static const char *scrape_header(const char *f, const char *end, HeaderField *pod, HeaderField *ts)
{
    const char *h = f;
    pod->p = ts->p = NULL;
    pod->n = ts->n = 0;
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
    }
    return h;
}

/* Pushes the text after "\n# Warning: " in f (up to its newline), or nil: collect_metrics.sh's
   failed scrape. Found by its W, a rare letter in scrapes. */
static void push_warning(lua_State *L, const char *f, size_t flen)
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
        lua_pushlstring(L, w, (size_t)((nl ? nl : end) - w));
    } else {
        lua_pushnil(L);
    }
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
    lua_pushlstring(L, a->file,
                    (size_t)(scrape_header(a->file, a->file + a->flen, &pod, &ts) - a->file));
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
    (void)scrape_header(a->file, a->file + a->flen, &pod, &ts);
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
static void suggest_total(lua_State *L, const PromAgg *a, const char *fn, const char *name)
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
static void suggest_name(lua_State *L, const PromAgg *a, const char *fn, const char *name)
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
static void refuse_non_gauge(lua_State *L, const PromAgg *a, const char *name, const size_t *idx,
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
static void refuse_non_counter(lua_State *L, const PromAgg *a, const char *name, const size_t *idx,
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

static const luaL_Reg prom_funcs[] = {
    {"parse",      l_parse     },
    {"each",       l_each      },
    {"each_file",  l_each_file },
    {"aggregator", l_aggregator},
    {NULL,         NULL        }
};

static const luaL_Reg agg_methods[] = {
    {"add",                l_add               },
    {"add_file",           l_add_file          },
    {"read_scrape",        l_read_scrape       },
    {"read_raw",           l_read_raw          },
    {"add_read",           l_add_read          },
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
    luaL_newmetatable(L, AGG_MT); /* mt */
    lua_pushcfunction(L, agg_gc);
    lua_setfield(L, -2, "__gc");
    luaL_newlib(L, agg_methods);    /* mt, methods */
    lua_setfield(L, -2, "__index"); /* mt */
    lua_pop(L, 1);
    luaL_newlib(L, prom_funcs);
    return 1;
}
