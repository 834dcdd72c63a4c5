/*
** lscan.c — llmd.scan: json, jsonl, csv.
**
**   scan.json(src, rules [, opts]) -> {bytes=, records=, rules = {{matched=, skipped=, empty=},
*...}}
**
** src: a path ("-" for stdin; gzip is detected), an io file, or {text = s [, name =]}.
** A rule: { PATTERN, SINK [, reduce = "diffs"|"first"|"last"|"count"|"sum"|"min"|"max"]
**           [, skip = true] [, fields = {...}] [, require_fields = true] }
**   SINK is an llmd.stats accumulator (numbers go straight in, in C) or a function
**   called with each matched record: projected to fields (keys are the field paths as
**   written; absent and null fields are nil), or the whole decoded value. With
**   args = true (fields needed) the function gets the fields' values as its arguments,
**   in the order of fields, instead of a table (no table a record: issue 20).
**   A rule with fields also returns found = {n1, n2, ...}: per field, in the order of
**   fields, the records it was in (null counts: the path is there); a misspelt path is
**   0 beside matched > 0. require_fields = true makes that an error after the pass.
** On any error every accumulator is left as it was before the call.
*/
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#include "modules.h"
#include "scan.h"

#define SCANNER_MT "llmd.scan.scanner"

static const char *const RULE_KEYS[] = {"reduce", "skip", "fields", "args", "require_fields", NULL};
static const char *const REDUCERS[] = {"none", "diffs", "first", "last", "count",
                                       "sum",  "min",   "max",   NULL};

typedef struct LScan {
    Scanner s;
    ScanRule *rules;
    ScanField *fields;
    int nrules, nfields;
    uint64_t *found;   /* by field: the records it was in (absent: not; null: in) */
    int *require;      /* by rule: require_fields = true */
    StatsSaved *saved; /* one per distinct accumulator */
    Stats **saved_of;
    int nsaved;
    lua_State *L;
    int rules_idx;   /* stack index of the rules table */
    int err_pending; /* a callback's error is at the top of the stack */
    /* JSON and JSON Lines: the whole pass under one protected call (scan_in_pcall),
       each record's function called straight from the slots of that call's frame */
    int direct;
    int *slot; /* by rule: the stack index of its function (record rules), its field
                  names (for a record table) from slot + 2 on */
    int rc;    /* scan_run's */
} LScan;

/* scan.threads(n): the threads a CSV scan uses unless its options say (0: none set) */
static lua_Integer default_threads;

/* A whole number >= 1 from text (an environment variable's), or 0. */
static lua_Integer whole_number(const char *text)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    return end != text && *end == '\0' && v >= 1 && v <= 1024 ? (lua_Integer)v : 0;
}

/* opts.threads, scan.threads or LLMDLUA_THREADS, at most one per online CPU (0: none
   said, one per CPU); opts.parallel_min. */
static void csv_threads(lua_State *L, Scanner *s)
{
    lua_Integer t = default_threads;
    if (lua_istable(L, 3)) {
        if (lua_getfield(L, 3, "threads") != LUA_TNIL) {
            int isnum;
            t = lua_tointegerx(L, -1, &isnum);
            if (!isnum || t < 1)
                luaL_error(L, "scan.csv: threads must be a whole number >= 1");
        }
        if (lua_getfield(L, 3, "parallel_min") != LUA_TNIL) {
            int isnum;
            lua_Integer b = lua_tointegerx(L, -1, &isnum);
            if (!isnum || b < 1)
                luaL_error(L, "scan.csv: parallel_min must be a whole number of bytes >= 1");
            s->par_min = (size_t)b;
        }
        lua_pop(L, 2);
    }
    const char *env = getenv("LLMDLUA_THREADS");
    if (t == 0 && env != NULL && *env != '\0') {
        t = whole_number(env);
        if (t == 0)
            llmd_error(L, "LLMDLUA_THREADS=%s: expected a whole number of threads >= 1", env);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        cpus = 1;
    s->threads = t == 0 || t > cpus ? (int)cpus : (int)t;
}

static void lscan_free(LScan *ls)
{
    scan_free(&ls->s);
    for (int i = 0; i < ls->nrules; i++) {
        scan_path_free(&ls->rules[i].path);
        free(ls->rules[i].tent);
    }
    for (int i = 0; i < ls->nfields; i++)
        scan_path_free(&ls->fields[i].path);
    for (int i = 0; i < ls->nsaved; i++)
        stats_saved_free(&ls->saved[i]);
    free(ls->rules);
    free(ls->fields);
    free(ls->found);
    free(ls->require);
    ls->found = NULL;
    ls->require = NULL;
    free(ls->saved);
    free(ls->saved_of);
    free(ls->slot);
    ls->slot = NULL;
    ls->rules = NULL;
    ls->fields = NULL;
    ls->saved = NULL;
    ls->saved_of = NULL;
    ls->nrules = ls->nfields = ls->nsaved = 0;
}

static int scanner_gc(lua_State *L)
{
    lscan_free((LScan *)luaL_checkudata(L, 1, SCANNER_MT));
    return 0;
}

/* Pushes a captured value (nil for absent and null). */
static void push_value(lua_State *L, Scanner *s, const ScanValue *v)
{
    switch (v->type) {
    case VAL_TRUE:
    case VAL_FALSE:
        lua_pushboolean(L, v->type == VAL_TRUE);
        break;
    case VAL_INT:
        lua_pushinteger(L, (lua_Integer)v->i);
        break;
    case VAL_FLOAT:
        lua_pushnumber(L, (lua_Number)v->d);
        break;
    case VAL_STRING:
        lua_pushlstring(L, s->arena + v->off, v->len);
        break;
    case VAL_RAW:
        llmd_json_push_at(L, s->arena + v->off, v->len, s->name, v->start);
        break;
    default:
        lua_pushnil(L);
    }
}

/* Builds the record and calls the rule's function, under pcall (scan.c is below). */
static int call_record(lua_State *L)
{
    LScan *ls = (LScan *)lua_touserdata(L, 1);
    int rule = (int)lua_tointeger(L, 2);
    const ScanValue *whole = (const ScanValue *)lua_touserdata(L, 3);
    Scanner *s = &ls->s;
    lua_geti(L, 4, rule + 1); /* spec: argument 4 is the rules table */
    lua_rawgeti(L, -1, 2);    /* spec, fn */
    if (whole != NULL) {
        push_value(L, s, whole);
    } else if (ls->rules[rule].args) {
        const ScanRule *r = &ls->rules[rule];
        luaL_checkstack(L, r->nfields, "scan: too many fields");
        for (int k = 0; k < r->nfields; k++)
            push_value(L, s, &ls->fields[r->first_field + k].val);
        lua_call(L, r->nfields, 0);
        return 0;
    } else {
        const ScanRule *r = &ls->rules[rule];
        lua_createtable(L, 0, r->nfields); /* spec, fn, record */
        lua_getfield(L, -3, "fields");     /* spec, fn, record, names */
        for (int k = 0; k < r->nfields; k++) {
            lua_rawgeti(L, -1, k + 1); /* ..., names, name */
            push_value(L, s, &ls->fields[r->first_field + k].val);
            lua_rawset(L, -4); /* record[name] = value */
        }
        lua_pop(L, 1); /* spec, fn, record */
    }
    lua_call(L, 1, 0);
    return 0;
}

/*
** call_record without a protected call of its own (the pass has one: scan_in_pcall): the
** function and the field names from the slots, not fetched again from the rules table
** each record (issue 20: on ip_tokens that fetching and the pcall were a quarter of a
** record's cost). A callback's error leaves the pass at once, as it is.
*/
static void call_direct(lua_State *L, LScan *ls, int rule, const ScanValue *whole)
{
    Scanner *s = &ls->s;
    const ScanRule *r = &ls->rules[rule];
    int fn = ls->slot[rule];
    luaL_checkstack(L, r->nfields + 4, "scan: too many fields");
    lua_pushvalue(L, fn);
    if (whole != NULL) {
        push_value(L, s, whole);
        lua_call(L, 1, 0);
    } else if (r->args) {
        for (int k = 0; k < r->nfields; k++)
            push_value(L, s, &ls->fields[r->first_field + k].val);
        lua_call(L, r->nfields, 0);
    } else {
        lua_createtable(L, 0, r->nfields); /* fn, record */
        for (int k = 0; k < r->nfields; k++) {
            lua_pushvalue(L, fn + 2 + k); /* the name */
            push_value(L, s, &ls->fields[r->first_field + k].val);
            lua_rawset(L, -3); /* record[name] = value */
        }
        lua_call(L, 1, 0);
    }
}

static void on_record(Scanner *s, int rule, const ScanValue *whole)
{
    LScan *ls = (LScan *)s->ud;
    lua_State *L = ls->L;
    if (whole == NULL) { /* the projection: which fields the record had */
        const ScanRule *r = &ls->rules[rule];
        for (int k = r->first_field; k < r->first_field + r->nfields; k++)
            ls->found[k] += ls->fields[k].val.type != VAL_NONE;
    }
    if (ls->direct) {
        call_direct(L, ls, rule, whole);
        return;
    }
    lua_pushcfunction(L, call_record);
    lua_pushlightuserdata(L, ls);
    lua_pushinteger(L, rule);
    lua_pushlightuserdata(L, (void *)(uintptr_t)whole);
    lua_pushvalue(L, ls->rules_idx);
    if (llmd_pcall(L, 4, 0) != LUA_OK) {
        ls->err_pending = 1; /* the message stays on the stack */
        s->stop = 1;
    }
}

/* Reads the rules table at idx into ls (raises on a bad rule). */
static void read_rules(lua_State *L, LScan *ls, int idx, int format)
{
    lua_Integer n = luaL_len(L, idx);
    if (n == 0)
        llmd_usage_error(L, "scan: no rules given");
    ls->rules = (ScanRule *)calloc((size_t)n, sizeof *ls->rules);
    ls->require = (int *)calloc((size_t)n, sizeof *ls->require);
    if (ls->rules == NULL || ls->require == NULL)
        llmd_error(L, "scan: out of memory");
    int total = 0;
    char err[256];
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, idx, i); /* spec */
        if (!lua_istable(L, -1))
            llmd_usage_error(L, "scan: rule %d must be a table {pattern, sink, ...}", (int)i);
        lua_pushfstring(L, "scan: rule %d", (int)i); /* spec, where */
        llmd_check_keys(L, -2, lua_tostring(L, -1), RULE_KEYS, 1);
        lua_pop(L, 1);
        ScanRule *r = &ls->rules[ls->nrules];
        memset(r, 0, sizeof *r);
        r->path.last_at = -1;
        ls->nrules++;
        lua_rawgeti(L, -1, 1); /* spec, pattern */
        const char *pattern = lua_tostring(L, -1);
        if (pattern == NULL)
            llmd_usage_error(L, "scan: rule %d: the first item must be a path pattern", (int)i);
        if (format == SCAN_CSV) {
            if (scan_path_column(pattern, &r->path) != 0)
                llmd_error(L, "scan: out of memory");
        } else if (scan_path_parse(pattern, 0, &r->path, err, sizeof err) != 0) {
            llmd_usage_error(L, "scan: rule %d: %s", (int)i, err);
        }
        lua_pop(L, 1);
        lua_rawgeti(L, -1, 2); /* spec, sink */
        Stats *st = llmd_test_stats(L, -1);
        if (st != NULL) {
            r->sink = SINK_STATS;
            r->stats = st;
        } else if (lua_isfunction(L, -1)) {
            r->sink = SINK_RECORD;
        } else {
            luaL_error(L,
                       "scan: rule %d: the sink must be an llmd.stats accumulator or a "
                       "function (got %s)",
                       (int)i, luaL_typename(L, -1));
        }
        lua_pop(L, 1);
        lua_getfield(L, -1, "reduce");
        if (!lua_isnil(L, -1)) {
            const char *red = lua_tostring(L, -1);
            int k = 0;
            while (red != NULL && REDUCERS[k] != NULL && strcmp(REDUCERS[k], red) != 0)
                k++;
            if (red == NULL || REDUCERS[k] == NULL)
                luaL_error(L,
                           "scan: rule %d: unknown reducer '%s' (expected diffs, first, "
                           "last, count, sum, min or max)",
                           (int)i, red ? red : luaL_typename(L, -1));
            if (r->sink != SINK_STATS)
                llmd_usage_error(L, "scan: rule %d: reduce needs an llmd.stats sink", (int)i);
            if (format == SCAN_CSV && k != RED_NONE)
                llmd_usage_error(L, "scan: rule %d: CSV cells are not arrays to reduce", (int)i);
            r->reduce = k;
        }
        lua_pop(L, 1);
        lua_getfield(L, -1, "skip");
        r->skip_bad = lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (r->sink == SINK_RECORD && r->path.last_at >= 0)
            luaL_error(L,
                       "scan: rule %d: [-1] in the pattern of a function rule is not "
                       "supported (use a field such as \"items[-1]\")",
                       (int)i);
        lua_getfield(L, -1, "args");
        r->args = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, -1, "require_fields");
        ls->require[ls->nrules - 1] = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, -1, "fields"); /* spec, fields */
        if (r->args && !lua_istable(L, -1))
            llmd_usage_error(L, "scan: rule %d: args = true needs fields (the values passed)",
                             (int)i);
        if (ls->require[ls->nrules - 1] && !lua_istable(L, -1))
            llmd_usage_error(L,
                             "scan: rule %d: require_fields = true needs fields (the paths "
                             "required)",
                             (int)i);
        if (!lua_isnil(L, -1)) {
            if (r->sink != SINK_RECORD || !lua_istable(L, -1))
                llmd_usage_error(
                    L, "scan: rule %d: fields need a function sink and a list of paths", (int)i);
            int nf = (int)luaL_len(L, -1);
            r->first_field = ls->nfields;
            r->nfields = nf;
            ScanField *fs =
                (ScanField *)realloc(ls->fields, (size_t)(ls->nfields + nf) * sizeof *fs);
            if (fs == NULL)
                llmd_error(L, "scan: out of memory");
            ls->fields = fs;
            for (int k = 1; k <= nf; k++) {
                lua_rawgeti(L, -1, k); /* spec, fields, f */
                const char *fp = lua_tostring(L, -1);
                if (fp == NULL)
                    llmd_usage_error(L, "scan: rule %d: field %d must be a path string", (int)i, k);
                ScanField *f = &ls->fields[ls->nfields];
                memset(f, 0, sizeof *f);
                f->path.last_at = -1;
                ls->nfields++;
                if (format == SCAN_CSV) {
                    if (scan_path_column(fp, &f->path) != 0)
                        llmd_error(L, "scan: out of memory");
                } else if (scan_path_parse(fp, 1, &f->path, err, sizeof err) != 0) {
                    llmd_usage_error(L, "scan: rule %d, field '%s': %s", (int)i, fp, err);
                }
                f->rule = ls->nrules - 1;
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 2); /* (empty) */
        total = ls->nrules + ls->nfields;
        if (total > SCAN_MAX_MATCHERS)
            llmd_error(L, "scan: at most %d rules and fields in one pass", SCAN_MAX_MATCHERS);
    }
}

/* Saves every distinct accumulator, so a failed pass can be undone. */
static void save_stats(lua_State *L, LScan *ls)
{
    ls->saved = (StatsSaved *)calloc((size_t)ls->nrules, sizeof *ls->saved);
    ls->saved_of = (Stats **)calloc((size_t)ls->nrules, sizeof(Stats *));
    if (ls->saved == NULL || ls->saved_of == NULL)
        llmd_error(L, "scan: out of memory");
    for (int i = 0; i < ls->nrules; i++) {
        Stats *st = ls->rules[i].stats;
        if (st == NULL)
            continue;
        int seen = 0;
        for (int k = 0; k < ls->nsaved; k++)
            seen |= ls->saved_of[k] == st;
        if (seen)
            continue;
        if (stats_save(st, &ls->saved[ls->nsaved]) != STATS_OK)
            llmd_error(L, "scan: out of memory");
        ls->saved_of[ls->nsaved++] = st;
    }
}

static void restore_stats(LScan *ls)
{
    for (int k = 0; k < ls->nsaved; k++)
        stats_restore(ls->saved_of[k], &ls->saved[k]);
    ls->nsaved = 0;
}

/*
** scan_run(ls) with the rules table (argument 2) under the caller's lua_pcall: first each
** record rule's spec, function and (for a record table) its field names into this
** frame's slots (ls->slot), then the pass, whose callbacks raise as they go. For JSON
** only: the CSV pass keeps buffers of its own in locals, which an error thrown through
** it would leak, so its callbacks keep a protected call each.
*/
static int scan_in_pcall(lua_State *L)
{
    LScan *ls = (LScan *)lua_touserdata(L, 1);
    luaL_checkstack(L, 3 * ls->nrules + ls->nfields + 4, "scan: too many rules");
    ls->slot = (int *)calloc((size_t)ls->nrules, sizeof *ls->slot);
    if (ls->slot == NULL)
        return luaL_error(L, "scan: out of memory");
    for (int i = 0; i < ls->nrules; i++) {
        const ScanRule *r = &ls->rules[i];
        if (r->sink != SINK_RECORD)
            continue;
        lua_geti(L, 2, i + 1); /* spec */
        int spec = lua_gettop(L);
        lua_rawgeti(L, spec, 2); /* spec, fn */
        ls->slot[i] = spec + 1;
        if (r->nfields > 0 && !r->args) {
            lua_getfield(L, spec, "fields"); /* spec, fn, names, then each name */
            for (int k = 0; k < r->nfields; k++)
                lua_rawgeti(L, spec + 2, k + 1);
        }
    }
    ls->L = L;
    ls->direct = 1;
    ls->rc = scan_run(&ls->s);
    return 0;
}

static const char *const CSV_OPTS[] = {"name", "sep", "threads", "parallel_min", NULL};
static const char *const JSON_OPTS[] = {"name", NULL};
static const char *const SOURCE_KEYS[] = {"text", "name", NULL};

static int run(lua_State *L, int format)
{
    const char *fn = format == SCAN_CSV     ? "scan.csv"
                     : format == SCAN_JSONL ? "scan.jsonl"
                                            : "scan.json";
    if (!lua_istable(L, 2))
        return luaL_error(L, "%s: expected a list of rules as the second argument, got %s", fn,
                          luaL_typename(L, 2));
    lua_settop(L, 3);
    if (lua_istable(L, 3))
        llmd_check_keys(L, 3, fn, format == SCAN_CSV ? CSV_OPTS : JSON_OPTS, 0);
    else if (!lua_isnil(L, 3))
        return luaL_error(L, "%s: expected an options table as the third argument, got %s", fn,
                          luaL_typename(L, 3));
    if (lua_istable(L, 1) && luaL_testudata(L, 1, LUA_FILEHANDLE) == NULL)
        llmd_check_keys(L, 1, fn, SOURCE_KEYS, 0);
    const char *name = NULL;
    if (lua_istable(L, 3) && lua_getfield(L, 3, "name") == LUA_TSTRING)
        name = lua_tostring(L, -1); /* anchored in opts */
    lua_settop(L, 3);

    LScan *ls = (LScan *)lua_newuserdatauv(L, sizeof *ls, 0); /* src, rules, opts, ls */
    memset(ls, 0, sizeof *ls);
    /* no file yet: a bad argument below ends here with the __gc of a scanner scan_init
       never set up, and a descriptor 0 from the memset would close the caller's stdin */
    ls->s.fd = -1;
    luaL_setmetatable(L, SCANNER_MT);
    ls->L = L;
    ls->rules_idx = 2;

    Scanner *s = &ls->s;
    luaL_Stream *stream = (luaL_Stream *)luaL_testudata(L, 1, LUA_FILEHANDLE);
    if (lua_type(L, 1) == LUA_TSTRING) {
        const char *path = lua_tostring(L, 1);
        scan_init(s, name ? name : (strcmp(path, "-") == 0 ? "(stdin)" : path), format);
        if (scan_open_path(s, path) != 0)
            return luaL_error(L, "%s", s->err);
    } else if (stream != NULL) {
        if (stream->closef == NULL)
            return luaL_error(L, "scan: attempt to use a closed file");
        scan_init(s, name ? name : "(file)", format);
        scan_open_file(s, stream->f);
    } else if (lua_istable(L, 1)) {
        lua_getfield(L, 1, "text");
        size_t len;
        const char *text = lua_tolstring(L, -1, &len);
        if (text == NULL)
            return luaL_argerror(L, 1, "expected a path, an open file or {text = string}");
        lua_pop(L, 1); /* anchored in the src table */
        if (name == NULL && lua_getfield(L, 1, "name") == LUA_TSTRING)
            name = lua_tostring(L, -1);
        scan_init(s, name ? name : "(text)", format);
        scan_open_mem(s, text, len);
    } else {
        return luaL_argerror(L, 1, "expected a path, an open file or {text = string}");
    }
    if (format == SCAN_CSV && lua_istable(L, 3)) {
        int sep_t = lua_getfield(L, 3, "sep");
        if (sep_t != LUA_TNIL && sep_t != LUA_TSTRING)
            return luaL_error(L, "scan.csv: option sep: expected one character, got %s",
                              luaL_typename(L, -1));
        if (sep_t == LUA_TSTRING) {
            size_t n;
            const char *sep = lua_tolstring(L, -1, &n);
            if (n != 1 || *sep == '"' || *sep == '\n' || *sep == '\r')
                return luaL_error(L,
                                  "scan.csv: option sep: expected one character other than "
                                  "a quote or a line end, got '%s'",
                                  sep);
            s->sep = *sep;
        }
        lua_pop(L, 1);
    }
    if (format == SCAN_CSV)
        csv_threads(L, s);

    read_rules(L, ls, 2, format);
    s->rules = ls->rules;
    s->nrules = ls->nrules;
    s->fields = ls->fields;
    s->nfields = ls->nfields;
    ls->found = (uint64_t *)calloc((size_t)ls->nfields + 1, sizeof *ls->found);
    if (ls->found == NULL)
        llmd_error(L, "scan: out of memory");
    s->on_record = on_record;
    s->ud = ls;
    save_stats(L, ls);

    s->interrupted = &llmd_signals; /* Ctrl-C stops a long scan in C too */
    s->interrupt_base = llmd_signals_taken;
    int rc;
    if (format == SCAN_CSV) {
        rc = scan_run(s);
    } else {
        lua_pushcfunction(L, scan_in_pcall);
        lua_pushlightuserdata(L, ls);
        lua_pushvalue(L, 2);
        rc = llmd_pcall(L, 2, 0) != LUA_OK ? (ls->err_pending = 1, -1) : ls->rc;
        ls->L = L; /* (the same thread: scan_in_pcall ran in it) */
    }
    if (rc != 0) {
        restore_stats(ls);
        (void)llmd_interrupt_pending(L); /* the error says "interrupted": taken */
        if (ls->err_pending)
            return lua_error(L); /* the callback's own error */
        return luaL_error(L, "%s", s->err);
    }
    /* require_fields: a field in none of the records its rule matched is a misspelt path
       (or a file without it), an error as any failed pass, the accumulators put back */
    for (int i = 0; i < ls->nrules; i++) {
        const ScanRule *r = &ls->rules[i];
        if (!ls->require[i] || r->matched == 0)
            continue;
        for (int k = 0; k < r->nfields; k++) {
            if (ls->found[r->first_field + k] != 0)
                continue;
            restore_stats(ls);
            lua_geti(L, 2, i + 1);
            lua_getfield(L, -1, "fields");
            lua_rawgeti(L, -1, k + 1);
            return luaL_error(L,
                              "%s: scan: rule %d: field '%s' is in none of the %I records the "
                              "rule matched (a misspelt path, or a file without it; "
                              "require_fields = true)",
                              s->name, i + 1, lua_tostring(L, -1), (lua_Integer)r->matched);
        }
    }

    lua_createtable(L, 0, 3); /* ..., result */
    uint64_t bytes = s->base + s->len;
    lua_pushinteger(L, (lua_Integer)bytes);
    lua_setfield(L, -2, "bytes");
    lua_pushinteger(L, (lua_Integer)s->records);
    lua_setfield(L, -2, "records");
    lua_pushinteger(L, (lua_Integer)s->window_max);
    lua_setfield(L, -2, "window");
    if (format == SCAN_CSV) {
        lua_pushinteger(L, (lua_Integer)s->par_parts);
        lua_setfield(L, -2, "parts");
    }
    lua_createtable(L, ls->nrules, 0);
    for (int i = 0; i < ls->nrules; i++) {
        lua_createtable(L, 0, 3);
        lua_pushinteger(L, (lua_Integer)ls->rules[i].matched);
        lua_setfield(L, -2, "matched");
        lua_pushinteger(L, (lua_Integer)ls->rules[i].skipped);
        lua_setfield(L, -2, "skipped");
        lua_pushinteger(L, (lua_Integer)ls->rules[i].empty);
        lua_setfield(L, -2, "empty");
        if (ls->rules[i].nfields > 0) { /* found: per field, the records it was in */
            const ScanRule *r = &ls->rules[i];
            lua_createtable(L, r->nfields, 0);
            for (int k = 0; k < r->nfields; k++) {
                lua_pushinteger(L, (lua_Integer)ls->found[r->first_field + k]);
                lua_rawseti(L, -2, k + 1);
            }
            lua_setfield(L, -2, "found");
        }
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "rules");
    lscan_free(ls);
    return 1;
}

static int l_json(lua_State *L)
{
    return run(L, SCAN_JSON);
}

static int l_jsonl(lua_State *L)
{
    return run(L, SCAN_JSONL);
}

static int l_csv(lua_State *L)
{
    return run(L, SCAN_CSV);
}

/* scan.threads(n | nil) -> the previous setting (nil: none) */
static int l_threads(lua_State *L)
{
    lua_Integer old = default_threads, t = 0;
    if (!lua_isnoneornil(L, 1)) {
        int isnum;
        t = lua_tointegerx(L, 1, &isnum);
        if (!isnum || t < 1)
            return luaL_argerror(L, 1, "a whole number >= 1, or nil");
    }
    default_threads = t;
    if (old == 0)
        lua_pushnil(L);
    else
        lua_pushinteger(L, old);
    return 1;
}

static const luaL_Reg scan_funcs[] = {
    {"json",    l_json   },
    {"jsonl",   l_jsonl  },
    {"csv",     l_csv    },
    {"threads", l_threads},
    {NULL,      NULL     }
};

int luaopen_llmd_scan(lua_State *L)
{
    luaL_newmetatable(L, SCANNER_MT); /* mt */
    lua_pushcfunction(L, scanner_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newlib(L, scan_funcs);
    return 1;
}
