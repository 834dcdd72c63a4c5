/*
** lstats.c — llmd.stats: numeric accumulators (see stats.h for the definitions).
**
**   local s = stats.new()                          -- exact
**   local k = stats.new{ sketch = 0.01 }           -- bounded memory, 1% relative error
**   local g = stats.new{ method = "nearest" }      -- guidellm's nearest-rank percentiles
**   s:add(x); s:add_many{...}; s:percentile(90); s:summary{50, 90, 99}
**   local add = stats.adder(s1, s2); add(x1, x2)  -- several accumulators in one call
**   local add, totals = stats.request_adder{e2e = s1, ttft = s2, ...}  -- per-request latencies
**   s:percentiles{50, 90, 99}; s:sort()
**   stats.design_effect({x1, x2, ...}, max_lag)     -- a series' dependence in its order
**   stats.value_design_effect({x1, ...}, max_lag)   -- the same of the values, for a mean
**   stats.quantile_design_effects(xs, {50, 90}, min_n, max_lag) -- its percentiles'
**   local c = stats.column(); c[#c + 1] = x         -- a list of numbers (or booleans) in C
**   s:dump(path [, {release = true}]); stats.load(path)
**
** Unknown values are nil, never 0: the mean, min, max and percentiles of an empty
** accumulator, a variance over infinite samples, a sample stddev of one sample.
*/
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lauxlib.h"
#include "lua.h"

#include "modules.h"
#include "stats.h"

static const char *const METHODS[] = {"linear", "nearest", NULL};

/*
** Userdata layout: the Stats plus the accumulator's default percentile method, and runs
** held: a loaded dump of runs (stats.load) keeps its sorted samples as the runs it was
** (held.nr of them, 16 bytes each, in malloc'd val and end) until a function needs them
** one by one; check_lstats writes them out then (s.v, as load wrote them before). The
** functions that read no sample one by one (count, sum, mean, min, max, a known variance,
** percentile, mann_whitney) answer from the runs, the same bits (stats_percentile_runs,
** stats_mann_whitney_runs), through peek_lstats. compare.lua's parent loads run b's
** per-load-point token gaps so and asks only those of them: writing them out was 10 M
** samples of fresh memory (0.3-0.4 of its CPU-s on the bench VM, each page a fault in the
** host), for 46,000 values.
*/
typedef struct LStats {
    Stats s;
    int method;
    StatsRuns held; /* nr 0: none held (val and end NULL) */
} LStats;

static void held_free(LStats *ls)
{
    free(ls->held.val);
    free(ls->held.end);
    ls->held.val = NULL;
    ls->held.end = NULL;
    ls->held.nr = 0;
}

static void fill_held(void *v, int f32, const StatsRuns *r);

/*
** The runs held written out as the accumulator's samples (as stats.load wrote them before:
** a block of stats_reserve's, floats when the dumped one kept floats), the runs freed.
** Raises "not enough memory" with the runs still held (the accumulator as it was).
*/
static void write_out_held(lua_State *L, LStats *ls)
{
    Stats room;
    stats_init(&room, 0);
    if (stats_reserve(&room, (size_t)ls->s.n) != STATS_OK) {
        luaL_error(L, "llmd.stats: not enough memory for the %I samples of a loaded accumulator",
                   (lua_Integer)ls->s.n);
        return;
    }
    fill_held(room.v, ls->s.f32, &ls->held);
    ls->s.v = room.v;
    ls->s.cap = room.cap;
    ls->s.map_len = room.map_len;
    held_free(ls);
}

struct Stats *llmd_test_stats(lua_State *L, int idx)
{
    LStats *ls = (LStats *)luaL_testudata(L, idx, STATS_MT);
    if (ls != NULL && ls->held.nr != 0)
        write_out_held(L, ls);
    return ls ? &ls->s : NULL;
}

/*
** The accumulator at idx, else the usual "bad argument" error. Every function of the
** module holds the metatable as its upvalue 1 (luaopen_llmd_stats): comparing with it
** costs a fraction of luaL_checkudata's look-up of the metatable by name in the
** registry, which a per-request reader paid on every add (issue 20: ~7 adds a request).
*/
static LStats *peek_lstats(lua_State *L, int idx)
{
    void *p = lua_touserdata(L, idx);
    if (p != NULL && lua_getmetatable(L, idx)) {
        /* the tables' addresses, not lua_rawequal: under callgrind that call (two index
           look-ups and luaV_equalobj) was 40 % of this check */
        int same = lua_topointer(L, -1) == lua_topointer(L, lua_upvalueindex(1));
        lua_pop(L, 1);
        if (same)
            return (LStats *)p;
    }
    return (LStats *)luaL_checkudata(L, idx, STATS_MT); /* (its error, or a match) */
}

/* The same, its samples written out when runs are held (LStats): for every function that
   reads them one by one, or changes them. */
static LStats *check_lstats(lua_State *L, int idx)
{
    LStats *ls = peek_lstats(L, idx);
    if (ls->held.nr != 0)
        write_out_held(L, ls);
    return ls;
}

static Stats *check_stats(lua_State *L, int idx)
{
    return &check_lstats(L, idx)->s;
}

/* The Stats at idx as it is, runs held or not: for the functions that answer from either. */
static Stats *peek_stats(lua_State *L, int idx)
{
    return &peek_lstats(L, idx)->s;
}

static void push_known(lua_State *L, double v)
{
    if (isnan(v))
        lua_pushnil(L);
    else
        lua_pushnumber(L, (lua_Number)v);
}

static int stats_gc(lua_State *L)
{
    LStats *ls = peek_lstats(L, 1);
    held_free(ls);
    stats_free(&ls->s);
    return 0;
}

static const char *const NEW_KEYS[] = {"sketch", "method", NULL};

/*
** A method argument (arg of fn): "linear" or "nearest", def when absent; anything else is
** "FN: method: expected 'linear' or 'nearest', got 'x'" at the caller's line.
*/
static int check_method(lua_State *L, int arg, const char *fn, int def)
{
    if (lua_isnoneornil(L, arg))
        return def;
    if (lua_type(L, arg) == LUA_TSTRING)
        for (int i = 0; METHODS[i] != NULL; i++)
            if (strcmp(lua_tostring(L, arg), METHODS[i]) == 0)
                return i;
    const char *got = lua_type(L, arg) == LUA_TSTRING
                          ? lua_pushfstring(L, "'%s'", lua_tostring(L, arg))
                          : luaL_typename(L, arg);
    llmd_push_choices(L, METHODS);
    return luaL_error(L, "%s: method: expected %s, got %s", fn, lua_tostring(L, -1), got);
}

/* A number argument: a Lua number only (a string such as "12" is refused, not converted). */
static lua_Number check_num(lua_State *L, int arg, const char *fn, const char *what)
{
    if (lua_type(L, arg) != LUA_TNUMBER) {
        if (lua_type(L, arg) == LUA_TSTRING)
            luaL_error(L, "%s: %s: expected a number, got the string '%s'", fn, what,
                       lua_tostring(L, arg));
        luaL_error(L, "%s: %s: expected a number, got %s", fn, what, luaL_typename(L, arg));
    }
    return lua_tonumber(L, arg);
}

/* The number at idx as an error message shows it: NaN as "NaN (not a number)", not the C
   library's "-nan" or "nan" (by its sign bit, which 0/0 sets on x86). */
static const char *number_text(lua_State *L, int idx)
{
    if (lua_type(L, idx) == LUA_TNUMBER && isnan((double)lua_tonumber(L, idx)))
        return lua_pushliteral(L, "NaN (not a number)");
    return luaL_tolstring(L, idx, NULL);
}

/* stats.new([{sketch = rel_err, method = "linear" | "nearest"}]) */
static int l_new(lua_State *L)
{
    double alpha = 0;
    int method = STATS_LINEAR;
    if (!lua_isnoneornil(L, 1)) {
        if (!lua_istable(L, 1))
            return luaL_error(L, "stats.new: expected an options table or nothing, got %s",
                              luaL_typename(L, 1));
        llmd_check_keys(L, 1, "stats.new", NEW_KEYS, 0);
        int t = lua_getfield(L, 1, "sketch");
        if (t != LUA_TNIL) {
            if (t != LUA_TNUMBER)
                return luaL_error(L,
                                  "stats.new: option sketch: expected a relative error such as "
                                  "0.01, got %s",
                                  t == LUA_TSTRING ? lua_pushfstring(L, "'%s'", lua_tostring(L, -1))
                                                   : luaL_typename(L, -1));
            alpha = (double)lua_tonumber(L, -1);
            if (!(alpha >= STATS_SKETCH_MIN_ALPHA && alpha <= STATS_SKETCH_MAX_ALPHA))
                return luaL_error(L,
                                  "stats.new: option sketch: expected a relative error in "
                                  "[0.0001, 0.5], got %s",
                                  number_text(L, -1));
        }
        lua_pop(L, 1);
        method = llmd_opt_option(L, 1, "stats.new", "method", STATS_LINEAR, METHODS);
    }
    LStats *ls = (LStats *)lua_newuserdatauv(L, sizeof *ls, 0);
    stats_init(&ls->s, alpha);
    ls->method = method;
    ls->held = (StatsRuns){NULL, NULL, 0};
    luaL_setmetatable(L, STATS_MT);
    return 1;
}

static void add_one(lua_State *L, Stats *s, lua_Number x, int arg)
{
    int rc = stats_add(s, (double)x);
    if (rc == STATS_ENAN)
        luaL_error(L, "%s: NaN cannot be summarised (filter it out, or it is a bug upstream)",
                   arg == 2 ? "s:add" : "s:add_many");
    if (rc == STATS_ENOMEM)
        luaL_error(L, "stats: not enough memory for %I samples", (lua_Integer)s->n + 1);
}

/* s:add(x) -> s */
static int l_add(lua_State *L)
{
    Stats *s = check_stats(L, 1);
    add_one(L, s, check_num(L, 2, "s:add", "x"), 2);
    lua_settop(L, 1);
    return 1;
}

/*
** stats.adder(s1, s2, ...) -> add(x1, x2, ...): adds x1 to s1, x2 to s2, ... in one call,
** skipping each x that is nil or false, as `if x then s:add(x) end` would (the same
** errors: a non-number, NaN). For a reader that adds a request's values to the same
** accumulators millions of times (llmd.runmodel's accumulator): the accumulators are
** checked once here, not on every add, and one call replaces one per value (issue 20:
** ~7 adds a request were a third of inference-perf's per-request callback). Upvalue 1
** of add: their Stats pointers; 2...: the accumulators themselves, kept alive.
*/
typedef struct Adder {
    int n;
    Stats *s[];
} Adder;

static int adder_add(lua_State *L)
{
    const Adder *a = (const Adder *)lua_touserdata(L, lua_upvalueindex(1));
    int n = lua_gettop(L) < a->n ? lua_gettop(L) : a->n;
    for (int k = 1; k <= n; k++) {
        int t = lua_type(L, k);
        if (t == LUA_TNUMBER) /* (the usual case first: one look-up, not three) */
            add_one(L, a->s[k - 1], lua_tonumber(L, k), 2);
        else if (lua_toboolean(L, k))
            check_num(L, k, "s:add", "x"); /* (raises) */
    }
    return 0;
}

static int l_adder(lua_State *L)
{
    int n = lua_gettop(L);
    if (n < 1 || n > 200)
        return luaL_error(L, "stats.adder: expected 1 to 200 accumulators, got %d", n);
    Adder *a = (Adder *)lua_newuserdatauv(L, sizeof *a + (size_t)n * sizeof(Stats *), 0);
    a->n = n;
    for (int k = 1; k <= n; k++)
        a->s[k - 1] = check_stats(L, k);
    lua_insert(L, 1); /* adder, s1, ..., sn: the closure's upvalues */
    lua_pushcclosure(L, adder_add, n + 1);
    return 1;
}

/*
** s emptied, as stats_clear does, but an exact one keeps its sample memory for the next
** record's value (issue 20: freeing and allocating one sample's room each request was
** ~400 instructions, a twelfth of inference-perf's per-request callback).
*/
static void empty_keeping(Stats *s)
{
    if (s->n == 0)
        return;
    if (s->sketch) {
        stats_clear(s);
        return;
    }
    double *v = s->v;
    size_t cap = s->cap, map_len = s->map_len;
    int portable = s->portable;
    stats_init(s, 0);
    s->v = v;
    s->cap = cap;
    s->map_len = map_len;
    s->portable = portable;
}

/*
** stats.request_adder{e2e =, e2e_all =, ttft =, tpot =, ntpot =, in_len =, out_len =,
**                     last =} -> add, totals
** A reader's per-request latencies computed and added in C (issue 20: computed in Lua,
** with the counts and the window, they were half of inference-perf's per-request cost).
** Every key is optional (an accumulator each). add(start, finish, first, last, times,
** tokens, in_tok, out_tok), for a completed request, with the usual definitions:
**   e2e = finish - start (into e2e and e2e_all); with times (token times) > 1:
**   ttft = first - start, and with tokens > 1 too, tpot = (last - first) / (tokens - 1);
**   ntpot = e2e / tokens, none when tokens is not a number > 0 (unknown, not 0:
**   inference-perf's 0 would pull the NTPOT figures down); in_tok, out_tok (token
**   counts, nil or false when unknown) into in_len and out_len.
** With last = an accumulator (a scan rule's "last" reduction of the token times), the
** last token time is its largest sample, taken as s:take_max() takes it (s emptied once
** the request is added; argument 4 is not read): one call a request fewer.
** It returns e2e, ttft and tpot (nil when not computed), each exactly as Lua's arithmetic
** on the same values gives it (the reader keeps them in send order: the design effects).
** Anything it does not take as it is (start or finish not a number, a needed token time
** missing or not a number, a count that is neither a number nor nil/false, an integer
** beyond 2^53, a NaN) adds nothing, takes nothing and returns
** false: the caller's own code then handles (or refuses) that request. totals() ->
** {count =, zero_tokens = (requests with tokens not > 0), first = (the least start),
** last = (the greatest finish), in_tok =, in_missing =, out_tok =, out_missing =}: the
** sums are Lua's (integers while every count is one), first and last the values given.
*/
enum { RQ_E2E, RQ_E2E_ALL, RQ_TTFT, RQ_TPOT, RQ_NTPOT, RQ_IN, RQ_OUT, RQ_LAST, RQ_N };
static const char *const REQUEST_KEYS[] = {"e2e",    "e2e_all", "ttft", "tpot", "ntpot",
                                           "in_len", "out_len", "last", NULL};

/* A Lua number as it was given: integer or float (Lua's arithmetic keeps the kind). */
typedef struct ReqNum {
    int isint;
    lua_Integer i;
    double d; /* the value as a double (exact for an integer: |i| <= 2^53) */
} ReqNum;

typedef struct RequestAdder {
    Stats *s[RQ_N]; /* NULL: that value is not kept (RQ_LAST: none given) */
    lua_Integer count, zero_tokens, in_missing, out_missing;
    int have_window;
    ReqNum first, last, in_sum, out_sum;
} RequestAdder;

#define REQ_EXACT_INT ((lua_Integer)1 << 53)

/* The number at k into *x: 1; nil or false: 0; anything else (or an integer a double
   does not hold exactly): -1. */
static int req_num(lua_State *L, int k, ReqNum *x)
{
    if (lua_type(L, k) == LUA_TNUMBER) {
        if (lua_isinteger(L, k)) {
            x->isint = 1;
            x->i = lua_tointeger(L, k);
            if (x->i > REQ_EXACT_INT || x->i < -REQ_EXACT_INT)
                return -1;
            x->d = (double)x->i;
        } else {
            x->isint = 0;
            x->d = (double)lua_tonumber(L, k);
            if (isnan(x->d))
                return -1;
        }
        return 1;
    }
    return lua_toboolean(L, k) ? -1 : 0;
}

/* a - b as Lua computes it: integers stay integers (within 2^53 each, no overflow). */
static ReqNum req_sub(ReqNum a, ReqNum b)
{
    ReqNum r;
    r.isint = a.isint && b.isint;
    r.i = r.isint ? a.i - b.i : 0;
    r.d = r.isint ? (double)r.i : a.d - b.d;
    return r;
}

/* *sum = *sum + x as Lua computes it (integers wrap around, as Lua's do). */
static void req_add(ReqNum *sum, ReqNum x)
{
    if (sum->isint && x.isint) {
        sum->i = (lua_Integer)((lua_Unsigned)sum->i + (lua_Unsigned)x.i);
        return;
    }
    sum->d = (sum->isint ? (double)sum->i : sum->d) + x.d;
    sum->isint = 0;
}

static void req_push(lua_State *L, ReqNum x)
{
    if (x.isint)
        lua_pushinteger(L, x.i);
    else
        lua_pushnumber(L, (lua_Number)x.d);
}

static void req_stat(lua_State *L, Stats *s, double x)
{
    if (s != NULL && stats_add(s, x) == STATS_ENOMEM)
        luaL_error(L, "stats: not enough memory for %I samples", (lua_Integer)s->n + 1);
}

static int request_add(lua_State *L)
{
    RequestAdder *a = (RequestAdder *)lua_touserdata(L, lua_upvalueindex(1));
    ReqNum start, finish, first, last, times, tokens, in, out;
    int in_k = req_num(L, 7, &in), out_k = req_num(L, 8, &out);
    if (req_num(L, 1, &start) != 1 || req_num(L, 2, &finish) != 1 || in_k < 0 || out_k < 0)
        return lua_pushboolean(L, 0), 1;
    int times_k = req_num(L, 5, &times);
    if (times_k < 0)
        return lua_pushboolean(L, 0), 1;
    /* tokens: a number, else 0 (`type(tokens) == "number" and tokens or 0`) */
    if (lua_type(L, 6) != LUA_TNUMBER) {
        tokens.isint = 1;
        tokens.i = 0;
        tokens.d = 0;
    } else if (req_num(L, 6, &tokens) != 1) {
        return lua_pushboolean(L, 0), 1;
    }
    int streamed = times_k == 1 && times.d > 1, with_tpot = streamed && tokens.d > 1;
    ReqNum e2e = req_sub(finish, start), ttft = {0, 0, 0}, span;
    double tpot = 0, ntpot = tokens.d > 0 ? e2e.d / tokens.d : 0;
    if (streamed) {
        if (req_num(L, 3, &first) != 1)
            return lua_pushboolean(L, 0), 1;
        ttft = req_sub(first, start);
        if (with_tpot) {
            const Stats *ls = a->s[RQ_LAST];
            if (ls != NULL && ls->n > 0) { /* (its value is a float, as take_max gives it) */
                last.isint = 0;
                last.d = ls->max;
            } else if (ls != NULL || req_num(L, 4, &last) != 1) {
                return lua_pushboolean(L, 0), 1;
            }
            span = req_sub(last, first);
            /* tokens - 1: an integer when tokens is one, as in Lua */
            tpot = span.d / (tokens.isint ? (double)(tokens.i - 1) : tokens.d - 1);
        }
    }
    if (isnan(e2e.d) || isnan(ttft.d) || isnan(tpot) || isnan(ntpot) || (in_k && isnan(in.d)) ||
        (out_k && isnan(out.d)))
        return lua_pushboolean(L, 0), 1;
    req_stat(L, a->s[RQ_E2E], e2e.d);
    req_stat(L, a->s[RQ_E2E_ALL], e2e.d);
    if (streamed)
        req_stat(L, a->s[RQ_TTFT], ttft.d);
    if (with_tpot)
        req_stat(L, a->s[RQ_TPOT], tpot);
    if (tokens.d > 0)
        req_stat(L, a->s[RQ_NTPOT], ntpot);
    if (in_k)
        req_stat(L, a->s[RQ_IN], in.d);
    if (out_k)
        req_stat(L, a->s[RQ_OUT], out.d);
    if (a->s[RQ_LAST] != NULL)
        empty_keeping(a->s[RQ_LAST]);
    a->count++;
    if (!(tokens.d > 0))
        a->zero_tokens++;
    if (in_k)
        req_add(&a->in_sum, in);
    else
        a->in_missing++;
    if (out_k)
        req_add(&a->out_sum, out);
    else
        a->out_missing++;
    if (!a->have_window) {
        a->first = start;
        a->last = finish;
        a->have_window = 1;
    } else {
        if (start.d < a->first.d)
            a->first = start;
        if (finish.d > a->last.d)
            a->last = finish;
    }
    req_push(L, e2e);
    if (streamed)
        req_push(L, ttft);
    else
        lua_pushnil(L);
    if (with_tpot)
        lua_pushnumber(L, (lua_Number)tpot);
    else
        lua_pushnil(L);
    return 3;
}

static int request_totals(lua_State *L)
{
    const RequestAdder *a = (const RequestAdder *)lua_touserdata(L, lua_upvalueindex(1));
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, a->count);
    lua_setfield(L, -2, "count");
    lua_pushinteger(L, a->zero_tokens);
    lua_setfield(L, -2, "zero_tokens");
    if (a->have_window) {
        req_push(L, a->first);
        lua_setfield(L, -2, "first");
        req_push(L, a->last);
        lua_setfield(L, -2, "last");
    }
    req_push(L, a->in_sum);
    lua_setfield(L, -2, "in_tok");
    lua_pushinteger(L, a->in_missing);
    lua_setfield(L, -2, "in_missing");
    req_push(L, a->out_sum);
    lua_setfield(L, -2, "out_tok");
    lua_pushinteger(L, a->out_missing);
    lua_setfield(L, -2, "out_missing");
    return 1;
}

static int l_request_adder(lua_State *L)
{
    if (!lua_istable(L, 1))
        return luaL_error(L,
                          "stats.request_adder: expected a table of accumulators {e2e =, "
                          "ttft =, ...}, got %s",
                          luaL_typename(L, 1));
    llmd_check_keys(L, 1, "stats.request_adder", REQUEST_KEYS, 0);
    lua_settop(L, 1);
    RequestAdder *a = (RequestAdder *)lua_newuserdatauv(L, sizeof *a, 1); /* t, a */
    memset(a, 0, sizeof *a);
    a->in_sum.isint = a->out_sum.isint = 1;
    lua_createtable(L, RQ_N, 0); /* t, a, kept: the accumulators, alive as long as a */
    for (int k = 0; k < RQ_N; k++) {
        if (lua_getfield(L, 1, REQUEST_KEYS[k]) != LUA_TNIL) {
            a->s[k] = llmd_test_stats(L, -1);
            if (a->s[k] == NULL)
                return luaL_error(L,
                                  "stats.request_adder: %s: expected an llmd.stats accumulator, "
                                  "got %s",
                                  REQUEST_KEYS[k], luaL_typename(L, -1));
        }
        lua_rawseti(L, 3, k + 1);
    }
    lua_setiuservalue(L, 2, 1); /* t, a */
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, request_add, 1);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, request_totals, 1);
    return 2;
}

/*
** s:add_many{x1, x2, ...} -> s: the numbers copied out of the table first, then added
** in one stats_add_many call (its batch lanes: the same bits as adding them one by one
** in exact mode; in a sketch, the same as C callers such as scan get). Nothing is added
** when an element is not a number or is NaN.
*/
static int l_add_many(lua_State *L)
{
    Stats *s = check_stats(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 2);
    if (n <= 0) {
        lua_settop(L, 1);
        return 1;
    }
    if ((lua_Unsigned)n > (size_t)-1 / sizeof(double))
        return luaL_error(L, "stats: not enough memory for %I samples", n);
    /* a userdata: collected with the rest on an error */
    double *xs = (double *)lua_newuserdatauv(L, (size_t)n * sizeof *xs, 0);
    int top = lua_gettop(L), raw = !lua_getmetatable(L, 2); /* no metatable: no __index */
    if (!raw)
        lua_pop(L, 1);
    /* the elements pushed 32 at a time, popped together */
    luaL_checkstack(L, 32, "add_many");
    for (lua_Integer i = 1; i <= n; i++) {
        int ok;
        if (raw)
            lua_rawgeti(L, 2, i);
        else
            lua_geti(L, 2, i);
        lua_Number x = lua_tonumberx(L, -1, &ok);
        if (!ok || lua_type(L, -1) != LUA_TNUMBER)
            return luaL_error(L, "s:add_many: element %I is a %s, not a number", i,
                              luaL_typename(L, -1));
        if (isnan(x))
            return luaL_error(L,
                              "s:add_many: element %I: NaN cannot be summarised (filter it "
                              "out, or it is a bug upstream)",
                              i);
        xs[i - 1] = (double)x;
        if ((i & 31) == 0)
            lua_settop(L, top);
    }
    lua_settop(L, top);
    int rc = stats_add_many(s, xs, (size_t)n);
    if (rc == STATS_ENOMEM)
        return luaL_error(L, "stats: not enough memory for %I samples", (lua_Integer)s->n + n);
    if (rc != STATS_OK) /* a NaN: cannot be, it was looked for */
        return luaL_argerror(L, 2,
                             "NaN cannot be summarised (filter it out, or it is a bug upstream)");
    lua_settop(L, 1);
    return 1;
}

static int l_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)peek_stats(L, 1)->n);
    return 1;
}

static int l_sum(lua_State *L)
{
    push_known(L, stats_sum(peek_stats(L, 1)));
    return 1;
}

static int l_mean(lua_State *L)
{
    push_known(L, stats_mean(peek_stats(L, 1)));
    return 1;
}

static int l_min(lua_State *L)
{
    push_known(L, stats_min(peek_stats(L, 1)));
    return 1;
}

static int l_max(lua_State *L)
{
    push_known(L, stats_max(peek_stats(L, 1)));
    return 1;
}

/*
** s:take_max() -> the largest sample (nil when empty), and s emptied: s:max() then
** s:clear() in one call, for a reader that collects one value a record into s (a scan
** rule's "last" reduction) and takes it at the record's callback (issue 20: three
** calls a request were a tenth of inference-perf's per-request cost).
*/
static int l_take_max(lua_State *L)
{
    Stats *s = check_stats(L, 1);
    push_known(L, stats_max(s));
    empty_keeping(s);
    return 1;
}

/* The variance (ddof) of the accumulator at idx, its samples never written out for it:
   from the runs held (stats_variance_runs, the same bits as over the samples written out),
   else as it is. */
static double variance_of(lua_State *L, int idx, int ddof)
{
    LStats *ls = peek_lstats(L, idx);
    if (ls->held.nr != 0)
        return stats_variance_runs(&ls->s, &ls->held, ddof);
    return stats_variance(&ls->s, ddof);
}

/* s:variance([ddof = 0]) */
static int l_variance(lua_State *L)
{
    lua_Integer ddof = luaL_optinteger(L, 2, 0);
    luaL_argcheck(L, ddof == 0 || ddof == 1, 2, "ddof must be 0 (population) or 1 (sample)");
    push_known(L, variance_of(L, 1, (int)ddof));
    return 1;
}

/* s:stddev() -> the population standard deviation (ddof 0, numpy's default) */
static int l_stddev(lua_State *L)
{
    push_known(L, sqrt(variance_of(L, 1, 0)));
    return 1;
}

/* s:sample_stddev() -> the sample standard deviation (ddof 1) */
static int l_sample_stddev(lua_State *L)
{
    push_known(L, sqrt(variance_of(L, 1, 1)));
    return 1;
}

static double check_p(lua_State *L, int arg, const char *fn)
{
    lua_Number p = check_num(L, arg, fn, "p");
    if (!(p >= 0 && p <= 100))
        luaL_error(L, "%s: p: expected a percentile in [0, 100], got %s", fn, number_text(L, arg));
    return (double)p;
}

/* s:percentile(p [, "linear" | "nearest"]) -> number, or nil when empty */
static int l_percentile(lua_State *L)
{
    LStats *ls = peek_lstats(L, 1);
    double p = check_p(L, 2, "s:percentile");
    int method = check_method(L, 3, "s:percentile", ls->method);
    push_known(L, ls->held.nr != 0 ? stats_percentile_runs(&ls->held, p, method)
                                   : stats_percentile(&ls->s, p, method));
    return 1;
}

/* s:percentile_rank(x) -> the percentage of samples <= x, or nil when empty */
static int l_percentile_rank(lua_State *L)
{
    Stats *s = check_stats(L, 1);
    lua_Number x = check_num(L, 2, "s:percentile_rank", "x");
    if (x != x)
        luaL_error(L, "s:percentile_rank: NaN has no rank");
    push_known(L, stats_rank(s, (double)x));
    return 1;
}

/*
** stats.mann_whitney(a, b) -> {u=, z=, p=, effect=, var=, n1=, n2=, test=} or nil and a reason
** (u: a's U; var: its variance under the null, tie-corrected, as z divides by)
** (an empty side, every sample tied). Sketches keep no samples: an error.
*/
static int l_mann_whitney(lua_State *L)
{
    LStats *la = peek_lstats(L, 1), *lb = peek_lstats(L, 2);
    Stats *a = &la->s, *b = &lb->s;
    if (a->sketch || b->sketch)
        return luaL_error(L, "mann_whitney needs exact accumulators (a sketch keeps no samples)");
    StatsMWU r;
    int rc = la->held.nr == 0 && lb->held.nr == 0
                 ? stats_mann_whitney(a, b, &r)
                 : stats_mann_whitney_runs(a, la->held.nr ? &la->held : NULL, b,
                                           lb->held.nr ? &lb->held : NULL, &r);
    if (rc != STATS_OK) {
        lua_pushnil(L);
        lua_pushstring(L,
                       a->n == 0 || b->n == 0 ? "no samples on one side" : "every sample is tied");
        return 2;
    }
    lua_createtable(L, 0, 8);
    lua_pushnumber(L, r.u);
    lua_setfield(L, -2, "u");
    lua_pushnumber(L, r.z);
    lua_setfield(L, -2, "z");
    lua_pushnumber(L, r.p);
    lua_setfield(L, -2, "p");
    lua_pushnumber(L, r.effect);
    lua_setfield(L, -2, "effect");
    lua_pushnumber(L, r.var);
    lua_setfield(L, -2, "var");
    lua_pushinteger(L, (lua_Integer)a->n);
    lua_setfield(L, -2, "n1");
    lua_pushinteger(L, (lua_Integer)b->n);
    lua_setfield(L, -2, "n2");
    lua_pushliteral(L, "Mann-Whitney U, two-sided, normal approximation with tie correction");
    lua_setfield(L, -2, "test");
    return 1;
}

/* The n numbers of the array at idx into a new buffer; NULL (with nothing left to free)
   when an element is not a number or memory is short: the caller falls back to Lua. */
static double *read_numbers(lua_State *L, int idx, lua_Integer n)
{
    double *xs = malloc((size_t)(n > 0 ? n : 1) * sizeof *xs);
    if (xs == NULL)
        return NULL;
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, idx, i) != LUA_TNUMBER) {
            lua_pop(L, 1);
            free(xs);
            return NULL;
        }
        xs[i - 1] = (double)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    return xs;
}

/*
** stats.column() -> a column: values kept in their order as C doubles (8 bytes each, where
** a Lua table's array takes 16 and up to twice that as it grows: issue 20, a run's kept
** request order of 30,000 requests was 5 MB of tables). It is indexed as a Lua list:
** c[#c + 1] = v appends, c[i] = v (1 <= i <= #c) replaces, c[i] gives the value (nil
** outside 1..#c), #c the count. A value is a number, false or true (the booleans kept as
** NaNs of their own payloads, a NaN number as the canonical one: each reads back as it was
** put). Anything else, or an index past #c + 1, raises.
*/
#define COLUMN_MT "llmd.stats.column"
#define COLUMNS_MAX 16 /* the most columns an appender or reader takes */
/* A column's values from this size on are a mapping of their own, grown by mremap, not
   realloc'd: a comparison's columns grow side by side, each to the whole run's requests,
   and glibc's realloc copied each doubling into pages never written before (issue 20: in
   compare.lua of two runs of 300,000 requests, with the sample arrays then grown the same
   way, those copies were 44 % of the page faults). */
#define COLUMN_MAP_FROM ((size_t)128 << 10)
typedef struct Column {
    double *v;
    size_t n, cap;
    size_t map_len; /* as Stats.map_len (stats_block_grow, from COLUMN_MAP_FROM bytes on) */
} Column;

/* the booleans' NaNs (a quiet NaN with a payload no arithmetic gives) */
static const uint64_t COLUMN_FALSE = 0x7ff8000000c0f000ULL, COLUMN_TRUE = 0x7ff8000000c0f001ULL;

static double column_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static uint64_t column_raw(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static int column_gc(lua_State *L)
{
    Column *c = (Column *)luaL_checkudata(L, 1, COLUMN_MT);
    stats_block_free(c->v, c->map_len);
    c->v = NULL;
    c->n = c->cap = c->map_len = 0;
    return 0;
}

static int l_column(lua_State *L)
{
    Column *c = (Column *)lua_newuserdatauv(L, sizeof *c, 0);
    c->v = NULL;
    c->n = c->cap = c->map_len = 0;
    luaL_setmetatable(L, COLUMN_MT);
    return 1;
}

/* pushes value i (0-based, < c->n) of c */
static void column_push(lua_State *L, const Column *c, size_t i)
{
    uint64_t b = column_raw(c->v[i]);
    if (b == COLUMN_FALSE || b == COLUMN_TRUE)
        lua_pushboolean(L, b == COLUMN_TRUE);
    else
        lua_pushnumber(L, (lua_Number)c->v[i]);
}

/* the value at arg as a column keeps it, or the error */
static double column_value(lua_State *L, int arg)
{
    int t = lua_type(L, arg);
    if (t == LUA_TNUMBER) {
        double d = (double)lua_tonumber(L, arg);
        return isnan(d) ? (double)NAN : d; /* (never a boolean's payload) */
    }
    if (t == LUA_TBOOLEAN)
        return column_bits(lua_toboolean(L, arg) ? COLUMN_TRUE : COLUMN_FALSE);
    luaL_error(L, "stats column: a value is a number, false or true, got %s",
               luaL_typename(L, arg));
    return 0;
}

/* c grown to room for at least size values (its n kept), or the error naming need (the values
   asked for); nothing where it has that room */
static void column_grow(lua_State *L, Column *c, size_t size, size_t need)
{
    size_t got = 0;
    if (size <= c->cap)
        return;
    double *v = size <= SIZE_MAX / sizeof *v
                    ? stats_block_grow(c->v, &c->map_len, c->n * sizeof *v, size * sizeof *v,
                                       COLUMN_MAP_FROM, &got)
                    : NULL;
    if (v == NULL) {
        luaL_error(L, "stats column: not enough memory for %I values", (lua_Integer)need);
        return;
    }
    c->v = v;
    c->cap = got / sizeof *v;
}

/* room in c for value i (1-based), or the error: doubling, so n appends cost O(n) */
static void column_reserve(lua_State *L, Column *c, size_t i)
{
    if (i > c->cap) {
        size_t cap = c->cap ? (c->cap <= SIZE_MAX / 2 ? c->cap * 2 : SIZE_MAX) : 64;
        column_grow(L, c, cap < i ? i : cap, i);
    }
}

/* c[i] = the value at arg (i 1-based, at most c->n + 1), or the error */
static void column_put(lua_State *L, Column *c, lua_Integer i, int arg)
{
    double d = column_value(L, arg);
    column_reserve(L, c, (size_t)i);
    c->v[i - 1] = d;
    if ((size_t)i > c->n)
        c->n = (size_t)i;
}

static int column_index(lua_State *L)
{
    Column *c = (Column *)luaL_checkudata(L, 1, COLUMN_MT);
    int ok;
    lua_Integer i = lua_tointegerx(L, 2, &ok);
    if (!ok || i < 1 || (lua_Unsigned)i > c->n)
        return 0;
    column_push(L, c, (size_t)i - 1);
    return 1;
}

static int column_newindex(lua_State *L)
{
    Column *c = (Column *)luaL_checkudata(L, 1, COLUMN_MT);
    int ok;
    lua_Integer i = lua_tointegerx(L, 2, &ok);
    if (!ok || i < 1 || (lua_Unsigned)i > c->n + 1)
        return luaL_error(L,
                          "stats column: index %s out of 1..%I (a column is appended to in order)",
                          luaL_tolstring(L, 2, NULL), (lua_Integer)c->n + 1);
    column_put(L, c, i, 3);
    return 0;
}

/*
** stats.appender(c1, ..., ck) -> append: append(v1, ..., vk) puts vi at the end of ci, in
** one call (a request's values kept without a metamethod call each: issue 20, those were
** a seventh of a comparison's instructions). stats.reader(c1, ..., ck) -> read: read(i)
** -> c1[i], ..., ck[i] (nil outside 1..#ci).
*/
/* An appender's or reader's columns: upvalue 1 of its closure, the columns themselves
   upvalues 2.. (which keep them alive); one look-up a call, not one a column. */
typedef struct Columns {
    int k;
    Column *c[COLUMNS_MAX];
} Columns;

static int column_append(lua_State *L)
{
    const Columns *cs = (const Columns *)lua_touserdata(L, lua_upvalueindex(1));
    int k = cs->k;
    double d[COLUMNS_MAX];
    /* every value checked and every column's room made before any is appended: an error
       leaves them all as they were */
    for (int j = 0; j < k; j++) {
        int t = lua_type(L, j + 1);
        if (t == LUA_TNUMBER) {
            d[j] = (double)lua_tonumber(L, j + 1);
            if (isnan(d[j]))
                d[j] = (double)NAN;
        } else {
            d[j] = column_value(L, j + 1); /* (a boolean, or the error) */
        }
        Column *c = cs->c[j];
        if (c->n == c->cap)
            column_reserve(L, c, c->n + 1);
    }
    for (int j = 0; j < k; j++) {
        Column *c = cs->c[j];
        c->v[c->n++] = d[j];
    }
    return 0;
}

static int column_read(lua_State *L)
{
    const Columns *cs = (const Columns *)lua_touserdata(L, lua_upvalueindex(1));
    int k = cs->k;
    int ok;
    lua_Integer i = lua_tointegerx(L, 1, &ok);
    luaL_argcheck(L, ok, 1, "an index is an integer");
    luaL_checkstack(L, k, "stats reader");
    for (int j = 0; j < k; j++) {
        const Column *c = cs->c[j];
        if (i >= 1 && (lua_Unsigned)i <= c->n)
            column_push(L, c, (size_t)i - 1);
        else
            lua_pushnil(L);
    }
    return k;
}

static int column_closure(lua_State *L, lua_CFunction f)
{
    int k = lua_gettop(L);
    luaL_argcheck(L, k >= 1 && k <= COLUMNS_MAX, 1, "1 to 16 columns");
    Columns *cs = (Columns *)lua_newuserdatauv(L, sizeof *cs, 0);
    cs->k = k;
    for (int j = 1; j <= k; j++)
        cs->c[j - 1] = (Column *)luaL_checkudata(L, j, COLUMN_MT);
    lua_insert(L, 1);
    lua_pushcclosure(L, f, k + 1);
    return 1;
}

static int l_appender(lua_State *L)
{
    return column_closure(L, column_append);
}

static int l_reader(lua_State *L)
{
    return column_closure(L, column_read);
}

/*
** stats.gather(c[, order[, as_column]]) -> a table of c's numbers at order's indexes (a list,
** or a column: stats.order's), in that order (1..#c without it), the booleans (false:
** unknown) left out; with as_column a column of them (C doubles, no Lua table: what
** stats.design_effect and the others read as they read a table, issue 20).
*/
static int l_gather(lua_State *L)
{
    const Column *c = (const Column *)luaL_checkudata(L, 1, COLUMN_MT);
    int has_order = !lua_isnoneornil(L, 2);
    const Column *oc = has_order ? (const Column *)luaL_testudata(L, 2, COLUMN_MT) : NULL;
    if (has_order && oc == NULL)
        luaL_checktype(L, 2, LUA_TTABLE);
    int as_column = lua_toboolean(L, 3);
    lua_Integer n = !has_order   ? (lua_Integer)c->n
                    : oc != NULL ? (lua_Integer)oc->n
                                 : (lua_Integer)lua_rawlen(L, 2);
    Column *out = NULL;
    if (as_column) {
        out = (Column *)lua_newuserdatauv(L, sizeof *out, 0); /* ..., out */
        out->v = NULL;
        out->n = out->cap = out->map_len = 0;
        luaL_setmetatable(L, COLUMN_MT);
        out->v = malloc((size_t)(n > 0 ? n : 1) * sizeof *out->v); /* (freed with out) */
        if (out->v == NULL)
            return luaL_error(L, "stats.gather: not enough memory for %I values", n);
        out->cap = (size_t)(n > 0 ? n : 1);
    } else {
        lua_createtable(L, (int)(n < INT_MAX ? n : INT_MAX), 0);
    }
    lua_Integer got = 0;
    for (lua_Integer k = 1; k <= n; k++) {
        lua_Integer i = k;
        if (has_order) {
            int ok;
            if (oc != NULL) {
                double d = oc->v[k - 1];
                ok = d >= 1 && d <= (double)c->n && d == floor(d);
                i = ok ? (lua_Integer)d : 0;
            } else {
                lua_rawgeti(L, 2, k);
                i = lua_tointegerx(L, -1, &ok);
                lua_pop(L, 1);
            }
            if (!ok || i < 1 || (lua_Unsigned)i > c->n)
                return luaL_error(L, "stats.gather: order[%I] is no index of the column (1..%I)", k,
                                  (lua_Integer)c->n);
        }
        uint64_t b = column_raw(c->v[i - 1]);
        if (b == COLUMN_FALSE || b == COLUMN_TRUE)
            continue;
        if (out != NULL) {
            out->v[out->n++] = c->v[i - 1];
        } else {
            lua_pushnumber(L, (lua_Number)c->v[i - 1]);
            lua_rawseti(L, -2, ++got);
        }
    }
    return 1;
}

/*
** stats.place_rows(cols, los, all, seq_max, sink) -> nothing: a per-request reader's kept
** rows (llmd.harness.inference_perf: each request's start, finish, TTFT (true: a failure,
** false: none), TPOT, NTPOT, input and output tokens (false: none), and its token gaps'
** offset and count in all, the pass's pooled gaps; cols = those nine stats.columns) placed
** in their load points and added to each one's accumulators, in C (issue 20: the same
** loop in Lua, a call or more a request into C, was a sixth of compare.lua's CPU on a run
** of 300,000 short requests). A row goes to the last stage i whose least start los[i]
** (false: none) is at most its start. sink(i) -> g, pace is called once for each stage
** that rows land in, in the order of their first rows, before any row is added: g.acc a
** llmd.runmodel.accumulator (without goodput), pace its pace accumulators
** (llmd.runmodel.pace_accumulators). Every accumulator and column is first given room
** for all it will take (a first pass counts it): grown once, where growing a value at a
** time left each doubling's old block free in the heap (6 MB of compare.lua's peak RSS on
** that run). Each row is then added as acc.add (a failure) or
** acc.add_done (its token counts back as integers where they are whole), the pace's
** adder, and acc.itl:add_range(all, goff + 1, goff + gn) (g.gaps_ok = false where the
** range is past all), exactly as the Lua loop did: the same samples in the same order,
** the same counts, sums (integers while every count is one), window and kept order (up
** to seq_max requests, as acc.seq), written back to the tables at the end.
*/
enum { PR_START, PR_FINISH, PR_TTFT, PR_TPOT, PR_NTPOT, PR_IN, PR_OUT, PR_GOFF, PR_GN, PR_N };
enum { PS_E2E, PS_E2E_ALL, PS_TTFT, PS_TPOT, PS_NTPOT, PS_IN, PS_OUT, PS_ITL, PS_N };
static const char *const PLACE_STATS[PS_N] = {"e2e",   "e2e_all", "ttft",    "tpot",
                                              "ntpot", "in_len",  "out_len", "itl"};
static const char *const PLACE_SEQ[] = {"start", "ttft", "latency", "tpot", "ntpot"};
static const char *const PLACE_PACE[] = {"starts", "ends", "oks", "lats", "ok_starts", "ok_lats"};

#define PLACE_STAGES 32 /* the stages whose records place_rows keeps on the C stack */
typedef struct PlaceSink {
    int used, gaps_bad, in_known, out_known, have_first, have_last;
    Stats *s[PS_N], *pace[6];
    Column *seq[5], *outcome[2];
    lua_Integer seq_n, out_n, ok, failed;
    ReqNum in_tok, out_tok, first, last;
    int g; /* the stack slots of sink(i)'s g, its acc and pace (kept there, alive, to the end) */
} PlaceSink;

static void place_add(lua_State *L, Stats *s, double x)
{
    add_one(L, s, x, 2); /* (s:add's errors, as the accumulators' adder raised them) */
}

static void place_push(lua_State *L, Column *c, double d)
{
    if (c->n == c->cap)
        column_reserve(L, c, c->n + 1);
    c->v[c->n++] = d;
}

/* the field of the table at idx as a ReqNum (a number: integer or float; else 0, absent) */
static int place_num(lua_State *L, int idx, const char *k, ReqNum *x)
{
    int has = lua_getfield(L, idx, k) == LUA_TNUMBER;
    x->isint = has && lua_isinteger(L, -1);
    x->i = x->isint ? lua_tointeger(L, -1) : 0;
    x->d = x->isint ? (double)x->i : has ? (double)lua_tonumber(L, -1) : 0;
    lua_pop(L, 1);
    return has;
}

static Column *place_column(lua_State *L, int idx, const char *k)
{
    lua_getfield(L, idx, k);
    Column *c = (Column *)luaL_testudata(L, -1, COLUMN_MT);
    if (c == NULL)
        luaL_error(L, "stats.place_rows: the sink's %s is no stats column", k);
    lua_pop(L, 1);
    return c;
}

static Stats *place_stats(lua_State *L, int idx, const char *k)
{
    lua_getfield(L, idx, k);
    Stats *s = llmd_test_stats(L, -1);
    if (s == NULL)
        luaL_error(L, "stats.place_rows: the sink's %s is no accumulator", k);
    lua_pop(L, 1);
    return s;
}

/* sink(i)'s g, g.acc and pace, left on the stack (p->g is g's slot), and their parts in *p */
static void place_open(lua_State *L, PlaceSink *p, lua_Integer i)
{
    luaL_checkstack(L, 8, "stats.place_rows");
    lua_pushvalue(L, 5);
    lua_pushinteger(L, i);
    lua_call(L, 1, 2); /* g, pace */
    int g = lua_gettop(L) - 1, pace = g + 1;
    luaL_checktype(L, g, LUA_TTABLE);
    luaL_checktype(L, pace, LUA_TTABLE);
    lua_getfield(L, g, "acc"); /* g, pace, acc */
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_rotate(L, pace, 1); /* g, acc, pace */
    int acc = g + 1;
    pace = g + 2;
    p->g = g;
    for (int k = 0; k < PS_N; k++)
        p->s[k] = place_stats(L, acc, PLACE_STATS[k]);
    for (int k = 0; k < 6; k++)
        p->pace[k] = place_stats(L, pace, PLACE_PACE[k]);
    lua_getfield(L, acc, "seq");
    luaL_checktype(L, -1, LUA_TTABLE);
    int seq = lua_gettop(L);
    for (int k = 0; k < 5; k++)
        p->seq[k] = place_column(L, seq, PLACE_SEQ[k]);
    lua_getfield(L, seq, "outcome");
    luaL_checktype(L, -1, LUA_TTABLE);
    p->outcome[0] = place_column(L, -1, "start");
    p->outcome[1] = place_column(L, -1, "failed");
    ReqNum x;
    place_num(L, -1, "n", &x);
    p->out_n = x.i;
    place_num(L, seq, "n", &x);
    p->seq_n = x.i;
    place_num(L, acc, "ok", &x);
    p->ok = x.i;
    place_num(L, acc, "failed", &x);
    p->failed = x.i;
    place_num(L, acc, "in_tok", &p->in_tok);
    place_num(L, acc, "out_tok", &p->out_tok);
    p->have_first = place_num(L, acc, "first", &p->first);
    p->have_last = place_num(L, acc, "last", &p->last);
    lua_getfield(L, acc, "in_known");
    p->in_known = lua_toboolean(L, -1);
    lua_getfield(L, acc, "out_known");
    p->out_known = lua_toboolean(L, -1);
    lua_settop(L, pace); /* g, acc, pace stay */
    p->used = 1;
}

/* the sink's counts, sums, window and kept order back into its tables (g, acc: slot p->g on) */
static void place_close(lua_State *L, const PlaceSink *p)
{
    int t = lua_gettop(L), acc = p->g + 1;
    if (p->gaps_bad) {
        lua_pushboolean(L, 0);
        lua_setfield(L, p->g, "gaps_ok");
    }
    lua_pushinteger(L, p->ok);
    lua_setfield(L, acc, "ok");
    lua_pushinteger(L, p->failed);
    lua_setfield(L, acc, "failed");
    req_push(L, p->in_tok);
    lua_setfield(L, acc, "in_tok");
    req_push(L, p->out_tok);
    lua_setfield(L, acc, "out_tok");
    lua_pushboolean(L, p->in_known);
    lua_setfield(L, acc, "in_known");
    lua_pushboolean(L, p->out_known);
    lua_setfield(L, acc, "out_known");
    if (p->have_first) {
        req_push(L, p->first);
        lua_setfield(L, acc, "first");
    }
    if (p->have_last) {
        req_push(L, p->last);
        lua_setfield(L, acc, "last");
    }
    lua_getfield(L, acc, "seq");
    lua_pushinteger(L, p->seq_n);
    lua_setfield(L, -2, "n");
    lua_getfield(L, -1, "outcome");
    lua_pushinteger(L, p->out_n);
    lua_setfield(L, -2, "n");
    lua_settop(L, t);
}

/* a token count back from a column's double: an integer where it is whole (as
   math.tointeger gives it), else the float */
static ReqNum place_count(double d)
{
    ReqNum x;
    lua_Integer i;
    x.d = d;
    x.isint = floor(d) == d && lua_numbertointeger(d, &i);
    x.i = x.isint ? i : 0;
    return x;
}

static void place_window(PlaceSink *p, double start, double finish)
{
    if (!p->have_first || start < p->first.d) {
        p->first.isint = 0;
        p->first.d = start;
        p->have_first = 1;
    }
    if (!p->have_last || finish > p->last.d) {
        p->last.isint = 0;
        p->last.d = finish;
        p->have_last = 1;
    }
}

/* a stage of place_rows: its least start, what it will take (counted first) and its sink */
typedef struct PlaceStage {
    double lo;
    int has_lo;
    size_t rows, want[PS_N]; /* want[PS_E2E]: its successes */
    lua_Integer next;        /* the stage met after it (0: none) */
    /* its token gaps: all's samples g_lo..g_end-1 while g_one (one range, in file order);
       g_runs: taken as runs of that range (stats_range_runs), not copied */
    size_t g_lo, g_end;
    int g_one, g_runs;
    PlaceSink sink;
} PlaceStage;

/* the stage a start is placed in (1..nb: the last whose least start is at most it), or 0 */
static lua_Integer place_stage(const PlaceStage *st, lua_Integer nb, double start)
{
    lua_Integer i = nb;
    while (i >= 1 && !(st[i - 1].has_lo && start >= st[i - 1].lo))
        i--;
    return i;
}

static void place_stats_room(lua_State *L, Stats *s, size_t more)
{
    if (more > 0 && stats_reserve(s, s->n + more) != STATS_OK)
        luaL_error(L, "stats: not enough memory for %I samples",
                   (lua_Integer)s->n + (lua_Integer)more);
}

/* room in c for more values beyond its n (exactly: place_rows knows its counts), or the error */
static void place_column_room(lua_State *L, Column *c, size_t more)
{
    if (more > 0)
        column_grow(L, c, c->n + more, c->n + more);
}

/* room in a stage's accumulators and columns for what it will take (place_rows' counts) */
static void place_reserve(lua_State *L, PlaceStage *g, lua_Integer seq_max)
{
    PlaceSink *p = &g->sink;
    size_t ok = g->want[PS_E2E], rows = g->rows;
    lua_Integer seq_room = seq_max - p->seq_n, out_room = seq_max - p->out_n;
    size_t seq_k = seq_room <= 0 ? 0 : (size_t)seq_room < ok ? (size_t)seq_room : ok;
    size_t out_k = out_room <= 0 ? 0 : (size_t)out_room < rows ? (size_t)out_room : rows;
    for (int k = 0; k < 5; k++)
        place_column_room(L, p->seq[k], seq_k);
    place_column_room(L, p->outcome[0], out_k);
    place_column_room(L, p->outcome[1], out_k);
    place_stats_room(L, p->s[PS_E2E], ok);
    place_stats_room(L, p->s[PS_E2E_ALL], rows);
    for (int k = PS_TTFT; k < PS_N; k++)
        place_stats_room(L, p->s[k], g->want[k]);
    place_stats_room(L, p->pace[0], rows);
    place_stats_room(L, p->pace[1], rows);
    place_stats_room(L, p->pace[2], ok);
    place_stats_room(L, p->pace[3], rows);
    place_stats_room(L, p->pace[4], ok);
    place_stats_room(L, p->pace[5], ok);
}

/*
** A stage's token gaps taken as runs of all's range of them (stats_range_runs: counted, no
** copy, the range left as it is), else copied (stats_add_range of the range, as the rows
** would have added it, when the range cannot be counted).
*/
static void place_gap_runs(lua_State *L, Stats *all, PlaceStage *g)
{
    LStats *ls = (LStats *)(void *)g->sink.s[PS_ITL]; /* (its Stats is the first member) */
    size_t k = g->g_end - g->g_lo;
    Stats out;
    stats_init(&out, 0);
    out.portable = ls->s.portable;
    StatsRuns runs;
    int rc = stats_range_runs(all, g->g_lo, k, &out, &runs);
    if (rc == 0) {
        stats_free(&ls->s);
        ls->s = out;
        ls->held = runs;
        return;
    }
    rc = stats_add_range(&ls->s, all, g->g_lo, k);
    if (rc == STATS_ENOMEM)
        luaL_error(L, "stats:add_range: not enough memory");
    if (rc != STATS_OK)
        luaL_error(L, "stats:add_range: a sample cannot be summarised (NaN)");
}

/* qsort's order of doubles (no NaN, no zero among them: place_small_runs checks) */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
** A small stage's gaps (all's range lo..lo+k-1, in file order, as place_rows left them) as
** sorted runs in r (malloc'd), from a sorted copy: 0, or -1 (r empty) when one is 0, not
** finite or subnormal (a -0.0 among them could not be kept apart from 0 bit for bit by the
** merge below), or memory is short.
*/
static int place_small_runs(const Stats *all, size_t lo, size_t k, StatsRuns *r)
{
    *r = (StatsRuns){NULL, NULL, 0};
    double *d = (double *)malloc((k ? k : 1) * sizeof *d);
    double *val = (double *)malloc((k ? k : 1) * sizeof *val);
    uint64_t *end = (uint64_t *)malloc((k ? k : 1) * sizeof *end);
    int ok = d != NULL && val != NULL && end != NULL;
    if (ok)
        stats_samples(all, lo, k, d);
    for (size_t i = 0; ok && i < k; i++)
        ok = isnormal(d[i]);
    if (!ok) {
        free(d);
        free(val);
        free(end);
        return -1;
    }
    qsort(d, k, sizeof *d, cmp_double);
    size_t nr = 0;
    for (size_t i = 0; i < k; i++) {
        if (nr == 0 || d[i] != val[nr - 1])
            val[nr++] = d[i];
        end[nr - 1] = (uint64_t)i + 1;
    }
    free(d);
    *r = (StatsRuns){val, end, nr};
    return 0;
}

/*
** all's samples, when every one is in a stage whose gaps are one range (held as runs by
** place_gap_runs, or a small stage's range, which all still holds in file order), held as
** those runs merged (the sorted samples, as all would be once sorted: equal values are the
** same bits, no -0.0 among them) and its block freed: no sort of its own, no write-out.
** Its count, sums, extremes and a variance it knows stay as they are. Else all is left as
** it is (sorted when asked).
*/
static void place_all_runs(Stats *all, PlaceStage *st, lua_Integer nb)
{
    LStats *la = (LStats *)(void *)all;
    if (all->sketch || !all->f32 || la->held.nr != 0 || all->n == 0 || nb > PLACE_STAGES)
        return;
    StatsRuns view[PLACE_STAGES], own[PLACE_STAGES];
    size_t pos[PLACE_STAGES] = {0}, covered = 0, most = 0;
    int ok = 1;
    for (lua_Integer i = 1; i <= nb; i++) {
        PlaceStage *g = &st[i - 1];
        const LStats *ls = (const LStats *)(const void *)g->sink.s[PS_ITL];
        view[i - 1] = own[i - 1] = (StatsRuns){NULL, NULL, 0};
        if (!g->sink.used || g->g_end == g->g_lo)
            continue; /* (no gaps) */
        if (g->g_runs && ls->held.nr != 0)
            view[i - 1] = ls->held;
        else if (ok && !g->g_runs && g->g_one &&
                 place_small_runs(all, g->g_lo, g->g_end - g->g_lo, &own[i - 1]) == 0)
            view[i - 1] = own[i - 1];
        else
            ok = 0;
        covered += g->g_end - g->g_lo;
        most += view[i - 1].nr;
    }
    double *val = NULL;
    uint64_t *end = NULL;
    if (ok && covered == (size_t)all->n) {
        val = (double *)malloc((most ? most : 1) * sizeof *val);
        end = (uint64_t *)malloc((most ? most : 1) * sizeof *end);
    }
    if (val != NULL && end != NULL) {
        size_t nr = 0;
        uint64_t total = 0;
        for (;;) {
            /* the least value at the stages' heads, and how many samples of it they hold */
            double x = HUGE_VAL;
            int any = 0;
            for (lua_Integer i = 0; i < nb; i++) {
                if (pos[i] == view[i].nr)
                    continue;
                double v = view[i].val[pos[i]];
                if (!any || v < x)
                    x = v;
                any = 1;
            }
            if (!any)
                break;
            for (lua_Integer i = 0; i < nb; i++) {
                size_t k = pos[i];
                if (k == view[i].nr || view[i].val[k] != x)
                    continue;
                total += view[i].end[k] - (k > 0 ? view[i].end[k - 1] : 0);
                pos[i] = k + 1;
            }
            val[nr] = x;
            end[nr] = total;
            nr++;
        }
        Stats keep = *all;
        stats_free(all);
        keep.v = NULL;
        keep.cap = 0;
        keep.map_len = 0;
        keep.sorted = 1;
        keep.queries = 0;
        *all = keep;
        la->held = (StatsRuns){val, end, nr};
    } else {
        free(val);
        free(end);
    }
    for (lua_Integer i = 0; i < nb; i++) {
        free(own[i].val);
        free(own[i].end);
    }
}

static int l_place_rows(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    Stats *all = lua_toboolean(L, 3) ? check_stats(L, 3) : NULL;
    lua_Integer seq_max = luaL_checkinteger(L, 4);
    luaL_checktype(L, 5, LUA_TFUNCTION);
    int gap_runs = lua_toboolean(L, 6);
    lua_settop(L, 5);
    const Column *c[PR_N];
    for (int k = 0; k < PR_N; k++) {
        lua_rawgeti(L, 1, k + 1);
        c[k] = (const Column *)luaL_checkudata(L, -1, COLUMN_MT); /* (kept alive by cols) */
        lua_pop(L, 1);
        if (c[k]->n != c[0]->n)
            return luaL_error(L, "stats.place_rows: column %d has %I rows, column 1 %I", k + 1,
                              (lua_Integer)c[k]->n, (lua_Integer)c[0]->n);
    }
    lua_Integer nb = (lua_Integer)lua_rawlen(L, 2);
    if (nb < 0 || nb > 1000000)
        return luaL_error(L, "stats.place_rows: %I stages", nb);
    /* each stage's least start, sink and counts: here up to PLACE_STAGES stages, else in a
       userdata (slot 6) */
    PlaceStage here[PLACE_STAGES], *st = here;
    if (nb > PLACE_STAGES)
        st = (PlaceStage *)lua_newuserdatauv(L, (size_t)nb * sizeof *st, 0);
    else
        lua_pushnil(L); /* 6 */
    memset(st, 0, (size_t)(nb > PLACE_STAGES ? nb : PLACE_STAGES) * sizeof *st);
    for (lua_Integer i = 1; i <= nb; i++) {
        int t = lua_rawgeti(L, 2, i);
        if (t == LUA_TNUMBER)
            st[i - 1].lo = (double)lua_tonumber(L, -1), st[i - 1].has_lo = 1;
        else if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1))
            st[i - 1].has_lo = 0;
        else
            return luaL_error(L, "stats.place_rows: los[%I] is a number or false, got %s", i,
                              luaL_typename(L, -1));
        lua_pop(L, 1);
    }
    double all_n = all != NULL ? (double)all->n : 0;
    size_t n = c[0]->n;
    /* a first pass counts what each stage will take, so that every accumulator and column
       is grown once, to its size (issue 20: grown a value at a time, each doubling left
       its old block free in the heap, and a comparison's peak RSS grew with them); its
       sinks are met in the order their first rows come, as the Lua loop met them */
    lua_Integer met = 0, last_met = 0;
    for (size_t r = 0; r < n; r++) {
        double start = c[PR_START]->v[r];
        uint64_t sb = column_raw(start);
        if (sb == COLUMN_FALSE || sb == COLUMN_TRUE)
            return luaL_error(L, "stats.place_rows: row %I has no numeric start",
                              (lua_Integer)r + 1);
        lua_Integer i = place_stage(st, nb, start);
        if (i < 1)
            continue;
        PlaceStage *g = &st[i - 1];
        if (g->rows++ == 0) {
            if (last_met)
                st[last_met - 1].next = i;
            else
                met = i;
            last_met = i;
        }
        uint64_t tb = column_raw(c[PR_TTFT]->v[r]);
        if (tb == COLUMN_TRUE)
            continue;
        g->want[PS_E2E]++;
        g->want[PS_TTFT] += tb != COLUMN_FALSE;
        g->want[PS_TPOT] += column_raw(c[PR_TPOT]->v[r]) != COLUMN_FALSE;
        g->want[PS_NTPOT] += column_raw(c[PR_NTPOT]->v[r]) != COLUMN_FALSE;
        g->want[PS_IN] += column_raw(c[PR_IN]->v[r]) != COLUMN_FALSE;
        g->want[PS_OUT] += column_raw(c[PR_OUT]->v[r]) != COLUMN_FALSE;
        double goff = c[PR_GOFF]->v[r], gn = c[PR_GN]->v[r];
        if (all != NULL && gn > 0 && goff + gn <= all_n) {
            /* (one range while each row's gaps follow the last one's) */
            if (g->want[PS_ITL] == 0)
                g->g_one = 1, g->g_lo = (size_t)goff, g->g_end = (size_t)goff;
            if ((size_t)goff != g->g_end || (double)(size_t)goff != goff)
                g->g_one = 0;
            g->g_end = (size_t)goff + (size_t)gn;
            g->want[PS_ITL] += (size_t)gn;
        }
    }
    for (lua_Integer i = met; i >= 1; i = st[i - 1].next) {
        PlaceStage *g = &st[i - 1];
        place_open(L, &g->sink, i);
        /* gap_runs: a stage's gaps that are one range of many exact floats, into an empty
           exact accumulator, are taken as runs after the rows (place_gap_runs), not copied */
        Stats *itl = g->sink.s[PS_ITL];
        g->g_runs = gap_runs && g->g_one && !all->sketch && all->f32 &&
                    g->want[PS_ITL] >= ((size_t)1 << 16) && !itl->sketch && itl->n == 0 &&
                    ((LStats *)(void *)itl)->held.nr == 0;
        if (g->g_runs)
            g->want[PS_ITL] = 0; /* (no room for them) */
        place_reserve(L, g, seq_max);
    }
    for (size_t r = 0; r < n; r++) {
        double start = c[PR_START]->v[r];
        lua_Integer i = place_stage(st, nb, start);
        if (i < 1)
            continue;
        PlaceSink *p = &st[i - 1].sink;
        double finish = c[PR_FINISH]->v[r], e2e = finish - start;
        uint64_t tb = column_raw(c[PR_TTFT]->v[r]);
        if (tb == COLUMN_TRUE) { /* a failure: acc.add{ok = false, ...}, then its pace */
            place_window(p, start, finish);
            p->failed++;
            if (p->out_n + 1 <= seq_max) {
                p->out_n++;
                place_push(L, p->outcome[0], start);
                place_push(L, p->outcome[1], 1);
            }
            place_add(L, p->s[PS_E2E_ALL], HUGE_VAL);
            place_add(L, p->pace[0], start);
            place_add(L, p->pace[1], finish);
            place_add(L, p->pace[3], e2e);
            continue;
        }
        double ttft = c[PR_TTFT]->v[r], tpot = c[PR_TPOT]->v[r], ntpot = c[PR_NTPOT]->v[r];
        int has_ttft = tb != COLUMN_FALSE, has_tpot = column_raw(tpot) != COLUMN_FALSE,
            has_ntpot = column_raw(ntpot) != COLUMN_FALSE;
        int has_in = column_raw(c[PR_IN]->v[r]) != COLUMN_FALSE,
            has_out = column_raw(c[PR_OUT]->v[r]) != COLUMN_FALSE;
        ReqNum in = place_count(c[PR_IN]->v[r]), out = place_count(c[PR_OUT]->v[r]);
        /* acc.add_done(start, finish, e2e, ttft, tpot, ntpot, in, out) */
        if (p->seq_n + 1 <= seq_max) {
            p->seq_n++;
            place_push(L, p->seq[0], start);
            place_push(L, p->seq[1], has_ttft ? ttft : column_bits(COLUMN_FALSE));
            place_push(L, p->seq[2], isnan(e2e) ? (double)NAN : e2e);
            place_push(L, p->seq[3], tpot);
            place_push(L, p->seq[4], ntpot);
        }
        if (p->out_n + 1 <= seq_max) {
            p->out_n++;
            place_push(L, p->outcome[0], start);
            place_push(L, p->outcome[1], 0);
        }
        place_window(p, start, finish);
        p->ok++;
        if (has_in)
            req_add(&p->in_tok, in);
        else
            p->in_known = 0;
        if (has_out)
            req_add(&p->out_tok, out);
        else
            p->out_known = 0;
        place_add(L, p->s[PS_E2E], e2e);
        place_add(L, p->s[PS_E2E_ALL], e2e);
        if (has_ttft)
            place_add(L, p->s[PS_TTFT], ttft);
        if (has_tpot)
            place_add(L, p->s[PS_TPOT], tpot);
        if (has_ntpot)
            place_add(L, p->s[PS_NTPOT], ntpot);
        if (has_in)
            place_add(L, p->s[PS_IN], in.d);
        if (has_out)
            place_add(L, p->s[PS_OUT], out.d);
        double goff = c[PR_GOFF]->v[r], gn = c[PR_GN]->v[r];
        if (all != NULL && gn > 0) {
            if (goff + gn <= all_n && st[i - 1].g_runs) {
                /* (taken after the rows: place_gap_runs) */
            } else if (goff + gn <= all_n) {
                int rc = stats_add_range(p->s[PS_ITL], all, (size_t)goff, (size_t)gn);
                if (rc == STATS_ENOMEM)
                    return luaL_error(L, "stats:add_range: not enough memory");
                if (rc != STATS_OK)
                    return luaL_error(L, "stats:add_range: a sample cannot be summarised (NaN)");
            } else {
                p->gaps_bad = 1;
            }
        }
        place_add(L, p->pace[0], start);
        place_add(L, p->pace[1], finish);
        place_add(L, p->pace[2], finish);
        place_add(L, p->pace[3], e2e);
        place_add(L, p->pace[4], start);
        place_add(L, p->pace[5], e2e);
    }
    for (lua_Integer i = 1; i <= nb; i++)
        if (st[i - 1].g_runs)
            place_gap_runs(L, all, &st[i - 1]);
    if (gap_runs && all != NULL)
        place_all_runs(all, st, nb);
    for (lua_Integer i = 1; i <= nb; i++)
        if (st[i - 1].sink.used)
            place_close(L, &st[i - 1].sink);
    return 0;
}

static int column_len(lua_State *L)
{
    Column *c = (Column *)luaL_checkudata(L, 1, COLUMN_MT);
    lua_pushinteger(L, (lua_Integer)c->n);
    return 1;
}

static int column_tostring(lua_State *L)
{
    Column *c = (Column *)luaL_checkudata(L, 1, COLUMN_MT);
    lua_pushfstring(L, COLUMN_MT " (%I values)", (lua_Integer)c->n);
    return 1;
}

static const luaL_Reg column_meta[] = {
    {"__gc",       column_gc      },
    {"__close",    column_gc      },
    {"__index",    column_index   },
    {"__newindex", column_newindex},
    {"__len",      column_len     },
    {"__tostring", column_tostring},
    {NULL,         NULL           }
};

/* The numbers of the list at idx (a table, or a column: its values, none a boolean), or
   NULL where one is not a number (or memory is short). */
static double *read_list(lua_State *L, int idx, lua_Integer *n)
{
    Column *c = (Column *)luaL_testudata(L, idx, COLUMN_MT);
    if (c == NULL) {
        *n = (lua_Integer)lua_rawlen(L, idx);
        return read_numbers(L, idx, *n);
    }
    *n = (lua_Integer)c->n;
    double *xs = malloc((c->n > 0 ? c->n : 1) * sizeof *xs);
    if (xs == NULL)
        return NULL;
    for (size_t k = 0; k < c->n; k++) {
        uint64_t b = column_raw(c->v[k]);
        if (b == COLUMN_FALSE || b == COLUMN_TRUE) {
            free(xs);
            return NULL;
        }
        xs[k] = c->v[k];
    }
    return xs;
}

/* The design effect fn computes (stats_design_effect or stats_value_design_effect) of the
   numbers in the list or column at 1, up to the lag at 2, as its Lua function returns it. */
static int push_design_effect(lua_State *L, int (*fn)(const double *, size_t, size_t, double *))
{
    luaL_argcheck(L, lua_istable(L, 1) || luaL_testudata(L, 1, COLUMN_MT), 1, "a list or a column");
    lua_Integer max_lag = luaL_checkinteger(L, 2);
    lua_Integer n = 0;
    double *xs = read_list(L, 1, &n);
    if (xs == NULL)
        return 0;
    double tau = 0;
    int rc = fn(xs, (size_t)n, max_lag > 0 ? (size_t)max_lag : 0, &tau);
    free(xs);
    if (rc < 0)
        return 0;
    if (rc == STATS_OK && tau > 1)
        lua_pushnumber(L, (lua_Number)tau);
    else
        lua_pushinteger(L, 1);
    return 1;
}

/*
** stats.design_effect(xs, max_lag) -> max(1, tau) of the numbers xs (a list or a column;
** stats_design_effect),
** as llmd.decision.design_effect computed it in Lua: the integer 1 where tau is not above
** 1 or every value ties, else tau. nil where a value is NaN or not a number (or memory is
** short): the caller's Lua does what it did.
*/
static int l_design_effect(lua_State *L)
{
    return push_design_effect(L, stats_design_effect);
}

/*
** stats.value_design_effect(xs, max_lag) -> the same of the values (stats_value_design_effect):
** the integer 1 where tau is not above 1 or every value is the mean, else tau; nil where a
** value is NaN or not a number (or memory is short).
*/
static int l_value_design_effect(lua_State *L)
{
    return push_design_effect(L, stats_value_design_effect);
}

/*
** stats.quantile_design_effects(xs, pcts, min_n, max_lag) -> a list: for each percentile p
** of pcts, the design effect of its indicator series in xs's order (xs: a list or a column;
** stats_quantile_design_effects): tau where above 1, else the integer 1 (also below min_n
** values), as llmd.decision.value_design_effect returns it for the indicator; nil where xs
** has no value at its rank. nil (no list) where a value is NaN or not a number, or memory
** is short: no percentile's is known.
*/
static int l_quantile_design_effects(lua_State *L)
{
    luaL_argcheck(L, lua_istable(L, 1) || luaL_testudata(L, 1, COLUMN_MT), 1, "a list or a column");
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer min_n = luaL_checkinteger(L, 3), max_lag = luaL_checkinteger(L, 4);
    lua_Integer np = (lua_Integer)lua_rawlen(L, 2);
    double *pcts = read_numbers(L, 2, np);
    if (pcts == NULL)
        return luaL_argerror(L, 2, "percentiles (numbers)");
    double *d = malloc((size_t)(np > 0 ? np : 1) * sizeof *d);
    lua_Integer n = 0;
    double *xs = d == NULL ? NULL : read_list(L, 1, &n);
    int rc = xs == NULL ? STATS_ENOMEM
                        : stats_quantile_design_effects(xs, (size_t)n, pcts, (size_t)np,
                                                        min_n > 0 ? (size_t)min_n : 0,
                                                        max_lag > 0 ? (size_t)max_lag : 0, d);
    free(xs);
    free(pcts);
    if (rc != STATS_OK) {
        free(d);
        return 0;
    }
    lua_createtable(L, (int)(np < INT_MAX ? np : INT_MAX), 0);
    for (lua_Integer j = 0; j < np; j++) {
        if (isnan(d[j]))
            continue;
        if (d[j] == 1)
            lua_pushinteger(L, 1);
        else
            lua_pushnumber(L, (lua_Number)d[j]);
        lua_rawseti(L, -2, j + 1);
    }
    free(d);
    return 1;
}

/* The grid at the top of the stack ({{q, v}, ...}, at least one point) into q and v (room
   for max points); its point count, or 0 where it is not such a list of numbers. */
static size_t read_grid(lua_State *L, double *q, double *v, size_t max)
{
    if (!lua_istable(L, -1))
        return 0;
    size_t n = (size_t)lua_rawlen(L, -1);
    if (n == 0 || n > max)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int ok = lua_rawgeti(L, -1, (lua_Integer)i + 1) == LUA_TTABLE; /* ..., grid, point */
        int qok = ok && lua_rawgeti(L, -1, 1) == LUA_TNUMBER;          /* ..., point, q */
        int vok = ok && lua_rawgeti(L, -2, 2) == LUA_TNUMBER;          /* ..., point, q, v */
        if (qok && vok) {
            q[i] = (double)lua_tonumber(L, -2);
            v[i] = (double)lua_tonumber(L, -1);
        }
        lua_pop(L, 1 + (ok ? 2 : 0)); /* ..., grid */
        if (!qok || !vok)
            return 0;
    }
    return n;
}

/*
** stats.mix_grids(grids, weights, qs, lo, hi, iters, tol) -> a list: for each share of qs,
** the value llmd.charts.mix_grids bisects for it (stats_mix_grids: the same operations in
** the same order, so bit for bit its Lua's), or false where that stayed at hi or the share
** is not above 0 (the caller takes its own lo or hi: either may be an integer). grids: a list
** of quantile grids {{q, v}, ...} of at least one point each; weights: a number a grid. nil
** where any of them is not so (the caller's Lua does what it did). Its scratch memory is a
** userdata: nothing is lost if a push raises.
*/
static int l_mix_grids(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    double lo = (double)luaL_checknumber(L, 4), hi = (double)luaL_checknumber(L, 5);
    lua_Integer iters = luaL_checkinteger(L, 6);
    double tol = (double)luaL_checknumber(L, 7);
    luaL_argcheck(L, iters >= 0 && iters <= INT_MAX, 6, "a count of halvings");
    size_t k = (size_t)lua_rawlen(L, 1), nq = (size_t)lua_rawlen(L, 3), points = 0;
    if (k == 0 || (size_t)lua_rawlen(L, 2) != k)
        return 0;
    for (size_t i = 1; i <= k; i++) {
        if (lua_rawgeti(L, 1, (lua_Integer)i) != LUA_TTABLE) {
            lua_pop(L, 1);
            return 0;
        }
        size_t n = (size_t)lua_rawlen(L, -1);
        lua_pop(L, 1);
        if (n > (size_t)INT_MAX - points)
            return 0;
        points += n;
    }
    if (nq > (size_t)INT_MAX)
        return 0;
    size_t room = (2 * points + k + 2 * nq) * sizeof(double) + k * sizeof(StatsGrid) + nq;
    double *mem = (double *)lua_newuserdatauv(L, room > 0 ? room : 1, 0); /* ..., scratch */
    double *w = mem, *qs = w + k, *out = qs + nq, *pts = out + nq;
    StatsGrid *g = (StatsGrid *)(pts + 2 * points);
    unsigned char *moved = (unsigned char *)(g + k);
    size_t used = 0;
    for (size_t i = 0; i < k; i++) {
        double *q = pts + used, *v = pts + points + used; /* (shares, then values) */
        lua_rawgeti(L, 1, (lua_Integer)i + 1);            /* ..., scratch, grid */
        size_t n = read_grid(L, q, v, points - used);
        lua_pop(L, 1);
        if (n == 0)
            return 0;
        g[i].q = q;
        g[i].v = v;
        g[i].n = n;
        g[i].sorted = stats_grid_sorted(g[i].v, n);
        used += n;
        if (lua_rawgeti(L, 2, (lua_Integer)i + 1) != LUA_TNUMBER)
            return 0;
        w[i] = (double)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    for (size_t j = 0; j < nq; j++) {
        if (lua_rawgeti(L, 3, (lua_Integer)j + 1) != LUA_TNUMBER)
            return 0;
        qs[j] = (double)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    stats_mix_grids(g, w, k, lo, hi, qs, nq, (int)iters, tol, out, moved);
    lua_createtable(L, (int)(nq < INT_MAX ? nq : INT_MAX), 0); /* ..., scratch, out */
    for (size_t j = 0; j < nq; j++) {
        if (moved[j])
            lua_pushnumber(L, (lua_Number)out[j]);
        else
            lua_pushboolean(L, 0);
        lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
    return 1;
}

/*
** stats.order(keys) -> the indexes 1..#keys sorted by their key, ties by index, as a column
** (stats.column: order[k], #order; what stats.gather takes as its order): a run's requests
** in send order, 300,000 of them, of which its callers read a few (the stages' first
** starts) or pass it to stats.gather whole, were a Lua table of as many entries (issue 20).
** nil where a key is NaN or not a number (or memory is short).
*/
static int l_order(lua_State *L)
{
    if (luaL_testudata(L, 1, COLUMN_MT) == NULL)
        luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n;
    double *keys = read_list(L, 1, &n);
    if (keys == NULL)
        return 0;
    size_t *perm = malloc((size_t)(n > 0 ? n : 1) * sizeof *perm);
    if (perm == NULL || stats_order(keys, (size_t)n, perm) != STATS_OK) {
        free(perm);
        free(keys);
        return 0;
    }
    free(keys);
    Column *out = (Column *)lua_newuserdatauv(L, sizeof *out, 0);
    out->v = NULL;
    out->n = out->cap = out->map_len = 0;
    luaL_setmetatable(L, COLUMN_MT);
    out->v = malloc((size_t)(n > 0 ? n : 1) * sizeof *out->v); /* (freed with out) */
    if (out->v == NULL) {
        free(perm);
        return 0;
    }
    out->cap = (size_t)(n > 0 ? n : 1);
    for (lua_Integer k = 0; k < n; k++)
        out->v[k] = (double)perm[k] + 1;
    out->n = (size_t)n;
    free(perm);
    return 1;
}

static void set_known(lua_State *L, const char *key, double v)
{
    if (!isnan(v)) {
        lua_pushnumber(L, (lua_Number)v);
        lua_setfield(L, -2, key);
    }
}

/* The n percentiles of the table at idx into ps, each checked to be in [0, 100]; errors
   name the method fname asked of (summary, percentiles). */
static void read_percentiles(lua_State *L, int idx, lua_Integer n, double *ps, const char *fname)
{
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, idx, i);
        int ok;
        lua_Number p = lua_tonumberx(L, -1, &ok);
        if (!ok || !(p >= 0 && p <= 100))
            luaL_error(L, "bad argument #1 to '%s' (element %I must be a percentile in [0, 100])",
                       fname, i);
        lua_pop(L, 1);
        ps[i - 1] = (double)p;
    }
}

/*
** s:summary([{50, 90, 99}] [, method]) -> {count=, sum=, mean=, min=, max=, stddev=,
** sample_stddev=, p50=, p90=, p99=, method=, relative_error= (sketch only)}.
** Unknown values are absent (nil). Keys of fractional percentiles: p99.9.
*/
static int l_summary(lua_State *L)
{
    LStats *ls = check_lstats(L, 1);
    Stats *s = &ls->s;
    int method = check_method(L, 3, "s:summary", ls->method);
    lua_createtable(L, 0, 12); /* summary */
    lua_pushinteger(L, (lua_Integer)s->n);
    lua_setfield(L, -2, "count");
    set_known(L, "sum", stats_sum(s));
    set_known(L, "mean", stats_mean(s));
    set_known(L, "min", stats_min(s));
    set_known(L, "max", stats_max(s));
    lua_pushstring(L, METHODS[method]);
    lua_setfield(L, -2, "method");
    if (s->sketch) {
        lua_pushnumber(L, s->alpha);
        lua_setfield(L, -2, "relative_error");
    }
    /* the variance first, unless the percentiles' pass finds it too (a query may reorder
       the samples: the variance is summed in their order) */
    int late = lua_istable(L, 2) && stats_percentiles_give_variance(s);
    if (!late) {
        set_known(L, "stddev", sqrt(stats_variance(s, 0)));
        set_known(L, "sample_stddev", sqrt(stats_variance(s, 1)));
    }
    if (lua_istable(L, 2)) {
        lua_Integer n = luaL_len(L, 2);
        if (n > 64)
            return luaL_error(L, "bad argument #1 to 'summary' (at most 64 percentiles)");
        double ps[64], out[64];
        read_percentiles(L, 2, n, ps, "summary");
        /* asked together: one multi-selection rather than a sort */
        if (late)
            stats_percentiles_variance(s, ps, out, (int)n, method);
        else
            stats_percentiles(s, ps, out, (int)n, method);
        for (lua_Integer i = 0; i < n; i++) {
            char key[40];
            if (ps[i] == floor(ps[i]))
                (void)snprintf(key, sizeof key, "p%d", (int)ps[i]);
            else
                (void)snprintf(key, sizeof key, "p%g", ps[i]);
            set_known(L, key, out[i]);
        }
    }
    if (late) {
        set_known(L, "stddev", sqrt(stats_variance(s, 0)));
        set_known(L, "sample_stddev", sqrt(stats_variance(s, 1)));
    }
    return 1;
}

/*
** s:percentiles({p1, p2, ...} [, method]) -> {v1, v2, ...}: the percentiles asked
** together (on unsorted samples, one multi-selection: see stats_percentiles), each at
** its p's index; an empty table when there are no samples. Unlike summary, no other
** statistic is computed.
*/
static int l_percentiles(lua_State *L)
{
    LStats *ls = peek_lstats(L, 1); /* (runs held: each a look-up in them, as s:percentile) */
    luaL_checktype(L, 2, LUA_TTABLE);
    int method = check_method(L, 3, "s:percentiles", ls->method);
    lua_Integer n = luaL_len(L, 2);
    if (n < 0 || n > INT_MAX / 2)
        return luaL_error(L, "bad argument #1 to 'percentiles' (too many percentiles)");
    double *ps = (double *)lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * 2 * sizeof *ps, 0);
    double *out = ps + n;
    read_percentiles(L, 2, n, ps, "percentiles");
    for (lua_Integer i = 0; i < n && ls->held.nr != 0; i++)
        out[i] = stats_percentile_runs(&ls->held, ps[i], method);
    if (n > 0 && ls->held.nr == 0)
        stats_percentiles(&ls->s, ps, out, (int)n, method);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 0; i < n; i++) {
        if (!isnan(out[i])) {
            lua_pushnumber(L, (lua_Number)out[i]);
            lua_rawseti(L, -2, i + 1);
        }
    }
    return 1;
}

/* s:sort() -> s: sorts the kept samples now (a sketch keeps none: nothing to do), so that
   every percentile query after it is a look-up (a caller about to ask many). */
static int l_sort(lua_State *L)
{
    LStats *ls = peek_lstats(L, 1);
    if (ls->held.nr == 0) /* (runs held are sorted: written out only when needed) */
        stats_sort(check_stats(L, 1));
    lua_settop(L, 1);
    return 1;
}

/* s:values(max) -> the kept samples in ascending order, a new table; nil when there are
   more than max of them (a caller wanting a few: an exact test on a small sample) or the
   accumulator is a sketch (it keeps none). */
static int l_values(lua_State *L)
{
    Stats *s = check_stats(L, 1);
    lua_Integer max = luaL_checkinteger(L, 2);
    if (s->sketch || max < 0 || s->n > (uint64_t)max) {
        lua_pushnil(L);
        return 1;
    }
    stats_sort(s);
    lua_createtable(L, (int)s->n, 0);
    for (uint64_t i = 0; i < s->n; i++) {
        double x;
        stats_samples(s, (size_t)i, 1, &x); /* as kept: floats are not widened */
        lua_pushnumber(L, x);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* s:merge(other) -> s: adds other's samples. */
static int l_merge(lua_State *L)
{
    Stats *dst = check_stats(L, 1), *src = check_stats(L, 2);
    int rc = stats_merge(dst, src);
    if (rc == STATS_EMERGE) {
        if (!dst->sketch)
            return luaL_error(L, "stats:merge: an exact accumulator cannot take a sketch's "
                                 "samples (merge into a sketch instead)");
        return luaL_error(L, "stats:merge: sketches of different relative errors (%f, %f)",
                          dst->alpha, src->alpha);
    }
    if (rc == STATS_ENOMEM)
        return luaL_error(L, "stats:merge: not enough memory");
    lua_settop(L, 1);
    return 1;
}

/* s:relative_error() -> the sketch's relative error, or nil for an exact accumulator */
static int l_relative_error(lua_State *L)
{
    Stats *s = check_stats(L, 1);
    if (s->sketch)
        lua_pushnumber(L, s->alpha);
    else
        lua_pushnil(L);
    return 1;
}

/*
** s:add_range(src, i, j) -> s: adds src's samples i..j (1-based) in the order src holds
** them: the order they were added, until a percentile, a sort or a test is asked of src
** (which sorts it). A per-request reader pools every request's token gaps in one
** accumulator as the scanner reduces them, then hands each load point its requests'
** gaps, each request's a range (llmd.harness.inference_perf). src must be exact.
*/
static int l_add_range(lua_State *L)
{
    Stats *s = check_stats(L, 1), *src = check_stats(L, 2);
    lua_Integer i = luaL_checkinteger(L, 3), j = luaL_checkinteger(L, 4);
    if (src->sketch)
        return luaL_error(L, "stats:add_range: a sketch keeps no samples to take a range of");
    if (s == src)
        return luaL_error(L, "stats:add_range: an accumulator cannot take a range of its own");
    if (j < i) {
        lua_settop(L, 1);
        return 1;
    }
    if (i < 1 || (lua_Unsigned)j > src->n)
        return luaL_error(L, "stats:add_range: samples %I to %I of %I", i, j, (lua_Integer)src->n);
    int rc = stats_add_range(s, src, (size_t)(i - 1), (size_t)(j - i + 1));
    if (rc == STATS_ENOMEM)
        return luaL_error(L, "stats:add_range: not enough memory");
    if (rc != STATS_OK)
        return luaL_error(L, "stats:add_range: a sample cannot be summarised (NaN)");
    lua_settop(L, 1);
    return 1;
}

static int l_clear(lua_State *L)
{
    stats_clear(check_stats(L, 1));
    lua_settop(L, 1);
    return 1;
}

/* s:memory() -> bytes held for samples or buckets (or runs held: 16 bytes a run) */
static int l_memory(lua_State *L)
{
    LStats *ls = peek_lstats(L, 1);
    lua_pushinteger(L, (lua_Integer)(stats_memory(&ls->s) +
                                     ls->held.nr * (sizeof *ls->held.val + sizeof *ls->held.end)));
    return 1;
}

/*
** s:dump(path) and stats.load(path): the accumulator's whole state in a file and back,
** for a child process handing its accumulators to its parent (compare.lua reads the two
** runs at once). Everything is kept as it was: the samples in their order (4 bytes each
** while they are kept as floats, Stats.f32, and loaded so), the sums and moments, sorted
** or not, so a loaded accumulator answers every query with the
** same bits as the one dumped. The format is this build's own memory layout (a check
** of the magic and the layout's size refuses another build's file): a file for
** the same binary to read back, never an exchange format. load reads the samples with
** pread() straight into the accumulator's own block (stats_reserve: as stats_add would
** grow it, a mapping of its own in huge pages for many), no copy in between, and maps
** nothing: a file cut short before or while it is read is an error naming it and the
** byte where it ended, never a SIGBUS, and once loaded the file may go. A sorted
** accumulator of many samples and few values is dumped as runs of a value instead (see
** write_runs), which load writes back in their order.
*/
static const char DUMP_MAGIC[8] = {'l', 'l', 'm', 'd', 's', 't', 'a', 't'};

/*
** The fields of Stats that hold addresses. A dump carries the dumping process's
** addresses in them: l_load sets every one of them again (to blocks of its own, or
** NULL), from this list. The assertion ties the list to the struct: a field added to
** Stats (or to StatsStore) changes sizeof(Stats) on a 64-bit build (an 8-byte pointer
** cannot hide in its one 4-byte hole), and the build stops here until the field is
** looked at: listed below if it holds an address (and given its block in dump and
** load), and the size updated.
*/
#define STATS_POINTER_FIELDS(X) X(v) X(sub) X(pos.count) X(neg.count)
#define STATS_SIZE_64 200

_Static_assert(sizeof(void *) != 8 || sizeof(Stats) == STATS_SIZE_64,
               "Stats changed: list its pointer fields in STATS_POINTER_FIELDS (lstats.c), "
               "then update STATS_SIZE_64");

static int write_block(FILE *f, const void *p, size_t n)
{
    return n == 0 || fwrite(p, 1, n, f) == n;
}

/*
** With {release = true} the samples' memory is given back as they are written, a block
** (DUMP_RELEASE bytes, at addresses aligned to it: whole huge pages) at a time, when
** they lie in a mapping of their own (large samples): the file's new pages are then
** the pages just released, not fresh memory. On a VM that hands free memory back to
** its host, fresh memory costs a fault in the host per page (measured on the 2-core
** bench VM: handing over 80 MB from a buffer kept took 0.15-0.23 CPU-s, releasing it as
** written 0.02-0.03). Once the file is open the accumulator is empty afterwards, whether the
** dump succeeded or not (a failed write may have lost samples already): for a process
** handing its samples over just before it ends (llmd.parallel's child).
*/
#define DUMP_RELEASE ((size_t)2 << 20)
static const char *const DUMP_KEYS[] = {"release", NULL};

/* The samples as they are kept (4 bytes each as floats, Stats.f32, else 8), as load reads
   them back. */
static int write_samples(FILE *f, Stats *s, int release)
{
    size_t bytes = (size_t)s->n * (s->f32 ? sizeof(float) : sizeof(double));
#if defined(__linux__) && defined(MADV_DONTNEED)
    if (release && s->map_len != 0) {
        const char *p = (const char *)s->v;
        uintptr_t freed = ((uintptr_t)p + DUMP_RELEASE - 1) & ~(uintptr_t)(DUMP_RELEASE - 1);
        for (size_t at = 0; at < bytes;) {
            size_t k = bytes - at < DUMP_RELEASE ? bytes - at : DUMP_RELEASE;
            if (fwrite(p + at, 1, k, f) != k)
                return 0;
            at += k;
            /* the whole aligned blocks now written (stdio holds a copy of any rest) */
            uintptr_t upto = ((uintptr_t)p + at) & ~(uintptr_t)(DUMP_RELEASE - 1);
            if (upto > freed) {
                (void)madvise((void *)freed, upto - freed, MADV_DONTNEED);
                freed = upto;
            }
        }
        return 1;
    }
#else
    (void)release;
#endif
    return write_block(f, s->v, bytes);
}

/*
** A sorted exact accumulator of many samples and few values is dumped as runs: each
** value (its 8 bytes as they are) and how many times it follows (8 bytes), after the
** header and the number of runs. Token gaps are such samples: the differences of
** timestamps (doubles near 1.7e9, so multiples of 2^-22 s) of a 500 MB inference-perf
** run are 10 M samples of some 46 000 values, 0.7 MB of runs instead of 80 MB of
** samples, which the child no longer writes into the page cache nor the parent copies
** out of it (issue 20: compare.lua's hand-over). The loaded accumulator is the same,
** bit for bit: the samples are written back in their order. A dump of runs has a
** magic of its own; anything else (unsorted, a sketch, few samples, more than one run
** per RUNS_SHARE samples) is dumped as before.
*/
static const char DUMP_RUNS_MAGIC[8] = {'l', 'l', 'm', 'd', 'r', 'u', 'n', 's'};
#define RUNS_MIN_SAMPLES ((uint64_t)1 << 16)
#define RUNS_SHARE 8

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/*
** The end of the run of v[i] in v[0..n): the first index past it. A run is one value bit
** for bit: for any but 0 (0 and -0 are equal, not the same bits) that is one equal to
** v[i] (no NaN in an exact accumulator), compared four at a time. The samples are read
** in order, once (a galloping search a run, in a pass that counted them and another that
** wrote them, took twice the time: each step waited on memory).
*/
static size_t run_end(const double *v, size_t n, size_t i)
{
    double x = v[i];
    size_t j = i + 1;
    if (x == 0) {
        uint64_t b = bits_of(x);
        while (j < n && bits_of(v[j]) == b)
            j++;
        return j;
    }
#if defined(__SSE2__)
    __m128d w = _mm_set1_pd(x);
    for (; j + 4 <= n; j += 4) {
        __m128d e0 = _mm_cmpeq_pd(_mm_loadu_pd(v + j), w);
        __m128d e1 = _mm_cmpeq_pd(_mm_loadu_pd(v + j + 2), w);
        if (_mm_movemask_pd(_mm_and_pd(e0, e1)) != 3)
            break;
    }
#endif
    while (j < n && v[j] == x)
        j++;
    return j;
}

/* write_runs' state: the run being counted (its value's bits, its length), the runs so
   far, and a buffer of finished ones (k pairs). */
typedef struct RunsOut {
    FILE *f;
    uint64_t val, len, runs, most;
    size_t k;
    uint64_t buf[2 * 2048];
} RunsOut;

/* The run being counted put in the buffer (written when full): 1, 0 when it is one run
   too many, -1 on an error. */
static int put_run(RunsOut *o)
{
    if (++o->runs > o->most)
        return 0;
    o->buf[2 * o->k] = o->val;
    o->buf[2 * o->k + 1] = o->len;
    if (++o->k == sizeof o->buf / sizeof o->buf[0] / 2) {
        if (!write_block(o->f, o->buf, o->k * 2 * sizeof *o->buf))
            return -1;
        o->k = 0;
    }
    return 1;
}

/*
** Writes s's samples as runs (after the header, which dump has written), the number of
** runs first, a buffer of them at a time; gives up when there are more than one a
** RUNS_SHARE samples (or not sorted, a sketch, few samples). 1 when written, 0 when
** given up (the file is then as it was before the call, at its end), -1 on an error.
** Samples kept as floats are read as kept, a chunk at a time as doubles (stats_samples):
** nothing widens; a run that goes on past a chunk's end goes on in the next.
*/
static int write_runs(FILE *f, const Stats *s)
{
    enum { CHUNK = 2048 };
    double d[CHUNK];
    size_t n = (size_t)s->n;
    if (s->sketch || !s->sorted || s->n < RUNS_MIN_SAMPLES)
        return 0;
    RunsOut *o = (RunsOut *)malloc(sizeof *o);
    if (o == NULL)
        return -1;
    o->f = f;
    o->val = o->len = o->runs = 0;
    o->most = n / RUNS_SHARE;
    o->k = 0;
    long at = ftell(f);
    int rc = at < 0 || !write_block(f, &o->runs, sizeof o->runs) ? -1 : 1; /* (its place) */
    for (size_t from = 0; from < n && rc == 1;) {
        size_t m = n - from < CHUNK ? n - from : CHUNK;
        const double *v = s->v + from;
        if (s->f32) {
            stats_samples(s, from, m, d);
            v = d;
        }
        for (size_t i = 0; i < m && rc == 1;) {
            size_t j = run_end(v, m, i);
            uint64_t b = bits_of(v[i]);
            if (o->len > 0 && b == o->val) { /* the run of the chunk before goes on */
                o->len += j - i;
            } else {
                if (o->len > 0)
                    rc = put_run(o);
                o->val = b;
                o->len = j - i;
            }
            i = j;
        }
        from += m;
    }
    if (rc == 1 && o->len > 0)
        rc = put_run(o);
    if (rc == 1 && o->k > 0 && !write_block(f, o->buf, o->k * 2 * sizeof *o->buf))
        rc = -1;
    uint64_t runs = o->runs;
    free(o);
    if (rc == 0) /* back to before the count: the samples as they are */
        return fflush(f) == 0 && ftruncate(fileno(f), (off_t)at) == 0 && fseek(f, at, SEEK_SET) == 0
                   ? 0
                   : -1;
    if (rc < 0)
        return -1;
    return fseek(f, at, SEEK_SET) == 0 && write_block(f, &runs, sizeof runs) ? 1 : -1;
}

/* The runs held (a loaded dump of runs, or stats.place_rows' gaps) written as write_runs
   writes a sorted accumulator's: their number, then each value's bits and its length. 1, or
   -1 on an error. */
static int write_held(FILE *f, const StatsRuns *r)
{
    uint64_t nr = (uint64_t)r->nr, at = 0, buf[2 * 2048];
    if (!write_block(f, &nr, sizeof nr))
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < r->nr; i++) {
        buf[2 * k] = bits_of(r->val[i]);
        buf[2 * k + 1] = r->end[i] - at;
        at = r->end[i];
        if (++k == sizeof buf / sizeof buf[0] / 2) {
            if (!write_block(f, buf, k * 2 * sizeof *buf))
                return -1;
            k = 0;
        }
    }
    return k == 0 || write_block(f, buf, k * 2 * sizeof *buf) ? 1 : -1;
}

static int l_dump(lua_State *L)
{
    LStats *ls = peek_lstats(L, 1);
    int held = ls->held.nr != 0 && !ls->s.sketch && ls->s.sorted; /* dumped as its runs */
    if (ls->held.nr != 0 && !held)
        ls = check_lstats(L, 1);
    const char *path = luaL_checkstring(L, 2);
    int release = 0;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        llmd_check_keys(L, 3, "s:dump", DUMP_KEYS, 0);
        lua_getfield(L, 3, "release");
        release = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    Stats *s = &ls->s;
    uint64_t layout = (uint64_t)sizeof *ls;
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return luaL_error(L, "%s: cannot write: %s", path, strerror(errno));
    int ok = write_block(f, DUMP_MAGIC, sizeof DUMP_MAGIC) &&
             write_block(f, &layout, sizeof layout) && write_block(f, ls, sizeof *ls);
    int runs = !ok ? 0 : held ? write_held(f, &ls->held) : write_runs(f, s);
    if (runs == 1) /* the magic that says so */
        ok = fseek(f, 0, SEEK_SET) == 0 && write_block(f, DUMP_RUNS_MAGIC, sizeof DUMP_RUNS_MAGIC);
    else if (runs < 0)
        ok = 0;
    else if (ok && !s->sketch)
        ok = write_samples(f, s, release);
    if (ok && s->sketch)
        ok = write_block(f, s->pos.count, (size_t)s->pos.len * sizeof *s->pos.count) &&
             write_block(f, s->neg.count, (size_t)s->neg.len * sizeof *s->neg.count);
    int e = ok ? 0 : errno;
    if (fclose(f) != 0 && e == 0)
        e = errno;
    if (!ok && e == 0)
        e = EIO;
    if (release) {
        held_free(ls);
        stats_clear(s);
    }
    if (e != 0) {
        (void)remove(path);
        return luaL_error(L, "%s: cannot write: %s", path, strerror(e));
    }
    lua_settop(L, 1);
    return 1;
}

/* A dump's header: the magic, the layout's size, then the LStats as it was in memory. */
typedef struct DumpHead {
    char magic[sizeof DUMP_MAGIC];
    uint64_t layout;
    LStats ls;
} DumpHead;
#define DUMP_HEAD_BYTES (sizeof DUMP_MAGIC + sizeof(uint64_t) + sizeof(LStats))

/* len bytes at off of fd into p, pread() after pread() (on through EINTR and short
   reads): *got of them, fewer when the file ends first. 0, or -1 (errno) for a read
   that fails. */
static int read_at(int fd, void *p, size_t len, uint64_t off, size_t *got)
{
    *got = 0;
    while (*got < len) {
        ssize_t r = pread(fd, (char *)p + *got, len - *got, (off_t)(off + *got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return 0;
}

/*
** Reads the body of a dump (bytes bytes after its header, to byte end) into the blocks
** a (a_len bytes) and b (the rest), and checks that nothing follows. 0; else -1 with the
** message in msg: a read that fails, a file that ended early or went on past end (cut or
** written to while it was read).
*/
static int read_body(int fd, const char *path, const char *what, void *a, size_t a_len, void *b,
                     size_t bytes, char *msg, size_t size)
{
    uint64_t end = (uint64_t)DUMP_HEAD_BYTES + bytes;
    size_t got = 0, more = 0;
    char extra = 0;
    int rc = read_at(fd, a, a_len, DUMP_HEAD_BYTES, &got);
    if (rc == 0 && got == a_len && bytes > a_len) {
        rc = read_at(fd, b, bytes - a_len, DUMP_HEAD_BYTES + a_len, &more);
        got += more;
    }
    if (rc == 0 && got == bytes)
        rc = read_at(fd, &extra, 1, end, &more);
    if (rc != 0)
        (void)snprintf(msg, size, "%s: cannot read: %s", path, strerror(errno));
    else if (got != bytes)
        (void)snprintf(msg, size,
                       "%s: cut short at byte %llu while it was read: its header says %s, to "
                       "byte %llu",
                       path, (unsigned long long)(DUMP_HEAD_BYTES + got), what,
                       (unsigned long long)end);
    else if (more != 0)
        (void)snprintf(msg, size,
                       "%s: longer than its header says: it went on past byte %llu while it was "
                       "read",
                       path, (unsigned long long)end);
    return rc == 0 && got == bytes && more == 0 ? 0 : -1;
}

/*
** c copies of x at o (a run of a dump of runs written back: hundreds a value): fill_run for
** samples kept as doubles, fill_run_f32 for those kept as floats (Stats.f32). One body for
** both, so that the two element types can never fill differently. (T is a type name, which
** cannot be parenthesised where it declares o: hence the NOLINT range.)
*/
/* NOLINTBEGIN(bugprone-macro-parentheses) */
#define DEFINE_FILL_RUN(name, T)                                                                   \
    static void name(T *o, uint64_t c, T x)                                                        \
    {                                                                                              \
        uint64_t k = 0;                                                                            \
        for (; k + 4 <= c; k += 4) {                                                               \
            o[k] = x;                                                                              \
            o[k + 1] = x;                                                                          \
            o[k + 2] = x;                                                                          \
            o[k + 3] = x;                                                                          \
        }                                                                                          \
        for (; k < c; k++)                                                                         \
            o[k] = x;                                                                              \
    }
DEFINE_FILL_RUN(fill_run, double)
DEFINE_FILL_RUN(fill_run_f32, float)
#undef DEFINE_FILL_RUN
/* NOLINTEND(bugprone-macro-parentheses) */

/* The samples the runs r hold written at v, in their order: as floats when f32. */
static void fill_held(void *v, int f32, const StatsRuns *r)
{
    uint64_t at = 0;
    for (size_t i = 0; i < r->nr; i++) {
        uint64_t c = r->end[i] - at;
        if (f32)
            fill_run_f32((float *)v + at, c, (float)r->val[i]);
        else
            fill_run((double *)v + at, c, r->val[i]);
        at = r->end[i];
    }
}

/*
** Reads the runs of a dump of runs (runs of them from byte off, to byte end) into out
** (its val and end malloc'd here, each run's end the count of samples up to it), the n
** samples they must add up to, a buffer of them at a time; checks that nothing follows.
** Each value must be a float when f32 (the dumped accumulator kept them so). 0; else -1
** with the message in msg (as read_body's, and a file whose runs do not add up), out
** freed.
*/
static int read_runs(int fd, const char *path, const char *what, int f32, uint64_t n, uint64_t runs,
                     uint64_t off, StatsRuns *out, char *msg, size_t size)
{
    enum { PAIRS = 4096 };
    uint64_t end = off + runs * 2 * sizeof(uint64_t), at = 0;
    uint64_t *buf = (uint64_t *)malloc((size_t)PAIRS * 2 * sizeof *buf);
    double *val = (double *)malloc((size_t)runs * sizeof *val);
    uint64_t *ends = (uint64_t *)malloc((size_t)runs * sizeof *ends);
    if (buf == NULL || val == NULL || ends == NULL) {
        free(buf);
        free(val);
        free(ends);
        (void)snprintf(msg, size, "%s: not enough memory to read it", path);
        return -1;
    }
    int rc = 0;
    for (uint64_t r = 0; r < runs && rc == 0;) {
        size_t k = runs - r < PAIRS ? (size_t)(runs - r) : PAIRS, got;
        uint64_t from = off + r * 2 * sizeof *buf;
        if (read_at(fd, buf, k * 2 * sizeof *buf, from, &got) != 0) {
            (void)snprintf(msg, size, "%s: cannot read: %s", path, strerror(errno));
            rc = -1;
        } else if (got != k * 2 * sizeof *buf) {
            (void)snprintf(msg, size,
                           "%s: cut short at byte %llu while it was read: its header says %s, to "
                           "byte %llu",
                           path, (unsigned long long)from + got, what, (unsigned long long)end);
            rc = -1;
        }
        for (size_t j = 0; j < k && rc == 0; j++) {
            uint64_t c = buf[2 * j + 1];
            if (c == 0 || c > n - at) {
                rc = -1;
                break;
            }
            double x;
            memcpy(&x, &buf[2 * j], sizeof x);
            if (f32 && !(isinf(x) || (fabs(x) <= FLT_MAX && (double)(float)x == x))) {
                rc = -1; /* not a float: not what was dumped */
                break;
            }
            at += c;
            val[r + j] = x;
            ends[r + j] = at;
        }
        if (rc != 0 && msg[0] == '\0')
            (void)snprintf(msg, size, "%s: damaged: its runs do not add up to its header's %s",
                           path, what);
        r += k;
    }
    if (rc == 0 && at != n) {
        (void)snprintf(msg, size, "%s: damaged: its runs do not add up to its header's %s", path,
                       what);
        rc = -1;
    }
    if (rc == 0) {
        char extra;
        size_t more;
        if (read_at(fd, &extra, 1, end, &more) != 0) {
            (void)snprintf(msg, size, "%s: cannot read: %s", path, strerror(errno));
            rc = -1;
        } else if (more != 0) {
            (void)snprintf(msg, size,
                           "%s: longer than its header says: it went on past byte %llu while it "
                           "was read",
                           path, (unsigned long long)end);
            rc = -1;
        }
    }
    free(buf);
    if (rc != 0) {
        free(val);
        free(ends);
        return -1;
    }
    *out = (StatsRuns){val, ends, (size_t)runs};
    return 0;
}

/*
** The dump in fd (path: for the messages) into ls, an empty exact accumulator collected
** with whatever it holds on an error. 0, or -1 with the one-line message in msg.
*/
static int load_dump(int fd, const char *path, LStats *ls, char *msg, size_t size)
{
    DumpHead head;
    Stats *h = &head.ls.s;
    size_t got;
    struct stat st;
    if (fstat(fd, &st) != 0 || read_at(fd, &head, DUMP_HEAD_BYTES, 0, &got) != 0) {
        (void)snprintf(msg, size, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    /* a file that begins as a dump does and ends before its header's end was cut short;
       anything else is not one */
    size_t magic_got = got < sizeof DUMP_MAGIC ? got : sizeof DUMP_MAGIC;
    int dump = memcmp(head.magic, DUMP_MAGIC, magic_got) == 0 ||
               memcmp(head.magic, DUMP_RUNS_MAGIC, magic_got) == 0;
    /* a dump of runs: its header goes on with the number of runs */
    int runs =
        got >= sizeof DUMP_MAGIC && memcmp(head.magic, DUMP_RUNS_MAGIC, sizeof DUMP_MAGIC) == 0;
    size_t head_bytes = DUMP_HEAD_BYTES + (runs ? sizeof(uint64_t) : 0);
    uint64_t nruns = 0;
    if (runs && got == DUMP_HEAD_BYTES) {
        size_t more;
        if (read_at(fd, &nruns, sizeof nruns, DUMP_HEAD_BYTES, &more) != 0) {
            (void)snprintf(msg, size, "%s: cannot read: %s", path, strerror(errno));
            return -1;
        }
        got += more;
    }
    if (dump && got >= offsetof(DumpHead, ls) && head.layout != (uint64_t)sizeof(LStats)) {
        (void)snprintf(msg, size,
                       "%s: dumped by another build of llmdlua (a layout of %llu bytes, this "
                       "one's is %zu): dump it again with this one",
                       path, (unsigned long long)head.layout, sizeof(LStats));
        return -1;
    }
    if (dump && got < head_bytes) {
        (void)snprintf(msg, size,
                       "%s: cut short at byte %zu: a stats:dump file's header alone is %zu bytes",
                       path, got, head_bytes);
        return -1;
    }
    /* (a sketch's buckets are uint64_t, a sample a double: 8 bytes each either way; a run
       two such) */
    uint64_t items = 0;
    if (dump && runs) {
        items = 2 * nruns;
        dump = h->sketch == 0 && h->sorted && nruns <= h->n && (nruns != 0) == (h->n != 0) &&
               (head.ls.method == STATS_LINEAR || head.ls.method == STATS_NEAREST) &&
               h->n <= (SIZE_MAX - head_bytes) / (2 * sizeof(double));
    } else if (dump) {
        items = h->sketch ? (uint64_t)h->pos.len + (uint64_t)h->neg.len : h->n;
        dump = (h->sketch == 0 || (h->sketch == 1 && h->pos.len >= 0 && h->neg.len >= 0)) &&
               (head.ls.method == STATS_LINEAR || head.ls.method == STATS_NEAREST) &&
               items <= (SIZE_MAX - DUMP_HEAD_BYTES) / sizeof(double);
    }
    if (!dump) {
        (void)snprintf(msg, size, "%s: not an accumulator dumped by this llmdlua (stats:dump)",
                       path);
        return -1;
    }
    /* the samples as the dumped accumulator kept them: 4 bytes each as floats */
    size_t bytes = (size_t)items * (!runs && !h->sketch && h->f32 ? sizeof(float) : sizeof(double));
    uint64_t end = (uint64_t)head_bytes + bytes;
    char what[64];
    if (runs)
        (void)snprintf(what, sizeof what, "%llu samples in %llu runs", (unsigned long long)h->n,
                       (unsigned long long)nruns);
    else if (h->sketch)
        (void)snprintf(what, sizeof what, "%d + %d sketch buckets", (int)h->pos.len,
                       (int)h->neg.len);
    else
        (void)snprintf(what, sizeof what, "%llu samples", (unsigned long long)h->n);
    if ((uint64_t)st.st_size != end) {
        if ((uint64_t)st.st_size < end)
            (void)snprintf(msg, size,
                           "%s: cut short at byte %llu: its header says %s, to byte %llu", path,
                           (unsigned long long)st.st_size, what, (unsigned long long)end);
        else
            (void)snprintf(msg, size,
                           "%s: longer than its header says: %s end at byte %llu, the file at "
                           "%llu",
                           path, what, (unsigned long long)end, (unsigned long long)st.st_size);
        return -1;
    }
    /* the blocks are this process's: the header's addresses were the dumping one's */
#define STATS_RESET_POINTER(field) h->field = NULL;
    STATS_POINTER_FIELDS(STATS_RESET_POINTER)
#undef STATS_RESET_POINTER
    if (!h->sketch && runs) {
        /* held as runs (LStats), written out as samples when a function needs them */
        msg[0] = '\0';
        if (read_runs(fd, path, what, h->f32 != 0, h->n, nruns, head_bytes, &ls->held, msg, size) !=
            0)
            return -1;
        h->cap = 0;
        h->map_len = 0;
        h->f32 = h->f32 != 0; /* written out as the dumping one kept them */
        h->pos.len = h->neg.len = 0;
    } else if (!h->sketch) {
        /* into the accumulator's own block, which it keeps (freed with it on an error) */
        if (stats_reserve(&ls->s, (size_t)h->n) != STATS_OK) {
            (void)snprintf(msg, size, "%s: not enough memory for its %s", path, what);
            return -1;
        }
        msg[0] = '\0';
        if (read_body(fd, path, what, ls->s.v, bytes, NULL, bytes, msg, size) != 0)
            return -1;
        h->v = ls->s.v;
        h->cap = ls->s.cap;
        h->map_len = ls->s.map_len;
        h->f32 = h->f32 != 0; /* kept as the dumping one kept them */
        h->pos.len = h->neg.len = 0;
    } else {
        size_t pos_len = (size_t)h->pos.len * sizeof *h->pos.count;
        void *pos = pos_len ? malloc(pos_len) : NULL;
        void *neg = bytes > pos_len ? malloc(bytes - pos_len) : NULL;
        int rc = -1;
        if ((pos_len && pos == NULL) || (bytes > pos_len && neg == NULL))
            (void)snprintf(msg, size, "%s: not enough memory for its %s", path, what);
        else
            rc = read_body(fd, path, what, pos, pos_len, neg, bytes, msg, size);
        if (rc != 0) {
            free(pos);
            free(neg);
            return -1;
        }
        h->pos.count = (uint64_t *)pos;
        h->neg.count = (uint64_t *)neg;
        h->cap = 0;
        h->map_len = 0;
    }
    ls->s = *h; /* (sub, the sketch's bucket table, is built again on the next sample) */
    ls->method = head.ls.method;
    return 0;
}

static int l_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    LStats *ls = (LStats *)lua_newuserdatauv(L, sizeof *ls, 0);
    stats_init(&ls->s, 0);
    ls->method = STATS_LINEAR;
    ls->held = (StatsRuns){NULL, NULL, 0};
    luaL_setmetatable(L, STATS_MT); /* collected (freed) with whatever it holds on an error */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return luaL_error(L, "%s: cannot read: %s", path, strerror(errno));
    char msg[PATH_MAX + 256];
    int rc = load_dump(fd, path, ls, msg, sizeof msg);
    (void)close(fd);
    if (rc != 0)
        return luaL_error(L, "%s", msg);
    return 1;
}

static int l_tostring(lua_State *L)
{
    LStats *ls = peek_lstats(L, 1);
    Stats *s = &ls->s;
    if (s->sketch)
        lua_pushfstring(L, "llmd.stats (sketch %f, %I samples)", s->alpha, (lua_Integer)s->n);
    else
        lua_pushfstring(L, "llmd.stats (exact, %I samples)", (lua_Integer)s->n);
    return 1;
}

static const luaL_Reg stats_funcs[] = {
    {"new",                     l_new                    },
    {"mann_whitney",            l_mann_whitney           },
    {"design_effect",           l_design_effect          },
    {"value_design_effect",     l_value_design_effect    },
    {"quantile_design_effects", l_quantile_design_effects},
    {"order",                   l_order                  },
    {"mix_grids",               l_mix_grids              },
    {"column",                  l_column                 },
    {"appender",                l_appender               },
    {"reader",                  l_reader                 },
    {"gather",                  l_gather                 },
    {"place_rows",              l_place_rows             },
    {"adder",                   l_adder                  },
    {"request_adder",           l_request_adder          },
    {"load",                    l_load                   },
    {NULL,                      NULL                     }
};

static const luaL_Reg stats_methods[] = {
    {"add",             l_add            },
    {"add_many",        l_add_many       },
    {"count",           l_count          },
    {"sum",             l_sum            },
    {"mean",            l_mean           },
    {"min",             l_min            },
    {"max",             l_max            },
    {"variance",        l_variance       },
    {"stddev",          l_stddev         },
    {"sample_stddev",   l_sample_stddev  },
    {"percentile",      l_percentile     },
    {"percentile_rank", l_percentile_rank},
    {"summary",         l_summary        },
    {"percentiles",     l_percentiles    },
    {"sort",            l_sort           },
    {"values",          l_values         },
    {"merge",           l_merge          },
    {"add_range",       l_add_range      },
    {"relative_error",  l_relative_error },
    {"clear",           l_clear          },
    {"take_max",        l_take_max       },
    {"memory",          l_memory         },
    {"dump",            l_dump           },
    {NULL,              NULL             }
};

static const luaL_Reg stats_meta[] = {
    {"__gc",       stats_gc  },
    {"__close",    stats_gc  },
    {"__len",      l_count   },
    {"__tostring", l_tostring},
    {"__index",    NULL      },
    {NULL,         NULL      }
};

int luaopen_llmd_stats(lua_State *L)
{
    /* every function gets the metatable as upvalue 1 (check_lstats) */
    luaL_newmetatable(L, STATS_MT); /* mt */
    lua_pushvalue(L, -1);
    luaL_setfuncs(L, stats_meta, 1);
    luaL_newlibtable(L, stats_methods); /* mt, methods */
    lua_pushvalue(L, -2);
    luaL_setfuncs(L, stats_methods, 1);
    lua_setfield(L, -2, "__index");  /* mt */
    luaL_newmetatable(L, COLUMN_MT); /* mt, column mt */
    luaL_setfuncs(L, column_meta, 0);
    lua_pop(L, 1);
    luaL_newlibtable(L, stats_funcs); /* mt, module */
    lua_pushvalue(L, -2);
    luaL_setfuncs(L, stats_funcs, 1);
    lua_remove(L, -2); /* module */
    return 1;
}
