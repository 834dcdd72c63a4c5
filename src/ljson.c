/*
** ljson.c — llmd.json: decode, encode, read, write, null, array, object.
**
** Decoding runs the pull parser of json.c straight into Lua values (no intermediate
** tree). Integers that fit in 64 bits become Lua integers, every other number a float
** read by strtod. Decoded arrays and objects carry the marker metatables ARRAY_MT and
** OBJECT_MT, so an empty [] and {} survive a round trip.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lauxlib.h"
#include "lua.h"

#include "json.h"
#include "modules.h"

#define PARSER_MT "llmd.json.parser"
#define ENCODE_MAX_DEPTH 1000

/* ---- decoding ---------------------------------------------------------------- */

/* The parser lives in a userdata so its scratch buffer is freed however we leave. */
typedef struct Decoder {
    JsonParser p;
    const char *name; /* for messages; anchored on the stack by the caller */
    int cut;          /* a value cut from a document (llmd_json_push_at): */
    uint64_t start;   /* where it starts there (messages name the document's byte) */
    const char *text; /* the whole document (not a cut value): for decode_error's CSV hint */
    size_t len;
} Decoder;

static int parser_gc(lua_State *L)
{
    Decoder *d = (Decoder *)luaL_checkudata(L, 1, PARSER_MT);
    json_parser_free(&d->p);
    return 0;
}

/*
** A CSV file given as JSON (json.read("tc.csv")) failed as "invalid literal, expected 'true'"
** at its first field (newuser49): an error on line 1 outside any container, in a document
** whose first line has a comma and does not open an object or an array, says what was
** expected (a JSON value) and that the text looks like CSV, with the parser's own message
** kept. Whether it does; *line_len: line 1's length to show (0: not printable).
*/
static int csv_like(const Decoder *d, size_t *line_len)
{
    if (d->cut || d->text == NULL || d->p.err_line != 1 || d->p.depth != 0)
        return 0;
    size_t i = 0, n = d->len;
    if (n >= 3 && memcmp(d->text, "\xEF\xBB\xBF", 3) == 0)
        i = 3; /* a UTF-8 byte order mark, as spreadsheets write */
    size_t begin = i;
    if (i < n && (d->text[i] == '{' || d->text[i] == '['))
        return 0;
    int comma = 0, printable = 1;
    for (; i < n && d->text[i] != '\n'; i++) {
        unsigned char c = (unsigned char)d->text[i];
        if (c == ',')
            comma = 1;
        else if ((c < 0x20 && c != '\r' && c != '\t') || c >= 0x7F)
            printable = 0;
    }
    size_t len = i - begin;
    if (len > 0 && d->text[begin + len - 1] == '\r')
        len--;
    *line_len = printable ? len : 0;
    return comma;
}

static int decode_error(lua_State *L, Decoder *d)
{
    size_t line_len;
    if (csv_like(d, &line_len)) {
        const char *b = d->text + (d->len >= 3 && memcmp(d->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0);
        char shown[64] = ""; /* (lua_pushfstring has no %.*s) */
        if (line_len > 0)
            (void)snprintf(shown, sizeof shown, ": \"%.*s%s\"",
                           (int)(line_len > 40 ? 40 : line_len), b, line_len > 40 ? "..." : "");
        return luaL_error(
            L,
            "%s:%d:%d: expected a JSON value; the text looks like CSV (line 1 is "
            "comma-separated%s), not JSON: read a CSV file with llmd.scan (scan.csv) (%s)",
            d->name, (int)d->p.err_line, (int)d->p.err_col, shown, d->p.err);
    }
    return luaL_error(L, "%s:%d:%d: %s", d->name, (int)d->p.err_line, (int)d->p.err_col, d->p.err);
}

/*
** A number beyond a double (1e999 reads as +inf, as strtod and Python's json module read
** it): JSON has no infinity, and a result file holding one is corrupt - a latency of +inf
** is no measurement. An error at the number, naming it (its first 24 characters).
*/
/* n as decimal text, in a static buffer (for one message) */
static const char *byte_text(uint64_t n)
{
    static char buf[24];
    (void)snprintf(buf, sizeof buf, "%llu", (unsigned long long)n);
    return buf;
}

static int out_of_range(lua_State *L, Decoder *d)
{
    uint64_t line, col;
    json_where(&d->p, d->p.tok_off, &line, &col);
    char num[32];
    int n = d->p.rawlen > 24 ? 24 : (int)d->p.rawlen;
    (void)snprintf(num, sizeof num, "%.*s%s", n, d->p.raw, d->p.rawlen > 24 ? "..." : "");
    if (d->cut)
        return luaL_error(L,
                          "%s: byte %s: number out of range: %s is beyond a double (about "
                          "1.8e308); JSON has no infinity, so the file is corrupt",
                          d->name, byte_text(d->start + d->p.tok_off), num);
    return luaL_error(L,
                      "%s:%d:%d: number out of range: %s is beyond a double (about 1.8e308); JSON "
                      "has no infinity, so the file is corrupt",
                      d->name, (int)line, (int)col, num);
}

static JsonTok next_token(lua_State *L, Decoder *d)
{
    if (llmd_signals != llmd_signals_taken && llmd_interrupt_pending(L))
        luaL_error(L, "%s: interrupted", d->name); /* a huge document: no Lua runs here */
    JsonTok t = json_next(&d->p);
    if (t == JSON_ERROR)
        decode_error(L, d);
    return t;
}

/* Pushes the decoded current string or key token. */
static void push_str(lua_State *L, Decoder *d)
{
    size_t n;
    const char *s = json_str(&d->p, &n);
    if (s == NULL)
        luaL_error(L, "%s: not enough memory", d->name);
    lua_pushlstring(L, s, n);
}

/* Pushes the value that starts with token t. Pushes 1. */
static void push_value(lua_State *L, Decoder *d, JsonTok t)
{
    switch (t) {
    case JSON_STRING:
        push_str(L, d);
        return;
    case JSON_NUMBER: {
        int64_t i;
        double f;
        if (json_num(&d->p, &i, &f))
            lua_pushinteger(L, (lua_Integer)i);
        else if (isinf(f))
            out_of_range(L, d);
        else
            lua_pushnumber(L, (lua_Number)f);
        return;
    }
    case JSON_TRUE:
    case JSON_FALSE:
        lua_pushboolean(L, t == JSON_TRUE);
        return;
    case JSON_NULL:
        lua_pushlightuserdata(L, NULL);
        return;
    case JSON_ARR_BEGIN: {
        luaL_checkstack(L, 3, "JSON nesting too deep");
        lua_newtable(L); /* arr */
        lua_Integer i = 0;
        while ((t = next_token(L, d)) != JSON_ARR_END) {
            push_value(L, d, t);     /* arr, v */
            lua_rawseti(L, -2, ++i); /* arr */
        }
        llmd_push_marker(L, 1); /* arr, mt */
        lua_setmetatable(L, -2);
        return;
    }
    case JSON_OBJ_BEGIN: {
        luaL_checkstack(L, 4, "JSON nesting too deep");
        lua_newtable(L); /* obj */
        while (next_token(L, d) != JSON_OBJ_END) {
            push_str(L, d);                     /* obj, key */
            push_value(L, d, next_token(L, d)); /* obj, key, v */
            lua_rawset(L, -3);                  /* obj */
        }
        llmd_push_marker(L, 0); /* obj, mt */
        lua_setmetatable(L, -2);
        return;
    }
    default:
        /* JSON_MORE cannot happen on a final window; anything else is a parser bug */
        luaL_error(L, "%s: internal error: unexpected token %d", d->name, (int)t);
    }
}

/* Decodes text[0..len) named name; pushes the value. cut: a value cut from a document
   at byte start there. */
static void decode_at(lua_State *L, const char *text, size_t len, const char *name, int cut,
                      uint64_t start)
{
    if (llmd_is_gzip(text, len)) /* read from a pipe or a Lua file, not decompressed */
        luaL_error(L, "%s: gzip-compressed; decompress it first (gunzip)", name);
    Decoder *d = (Decoder *)lua_newuserdatauv(L, sizeof *d, 0); /* decoder */
    json_parser_init(&d->p);
    d->name = name;
    d->cut = cut;
    d->start = start;
    d->text = cut ? NULL : text;
    d->len = len;
    luaL_setmetatable(L, PARSER_MT);
    json_feed(&d->p, text, len, 1);
    push_value(L, d, next_token(L, d)); /* decoder, value */
    if (next_token(L, d) != JSON_END)
        luaL_error(L, "%s: internal error: document not finished", name);
    json_parser_free(&d->p);
    lua_remove(L, -2); /* value */
}

static void decode(lua_State *L, const char *text, size_t len, const char *name)
{
    decode_at(L, text, len, name, 0, 0);
}

void llmd_json_push(lua_State *L, const char *text, size_t len, const char *name)
{
    decode(L, text, len, name);
}

void llmd_json_push_at(lua_State *L, const char *text, size_t len, const char *name, uint64_t start)
{
    decode_at(L, text, len, name, 1, start);
}

/* json.decode(text [, name]) -> value; json.null for a JSON null. */
static int l_decode(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "json");
    lua_settop(L, 2);
    decode(L, text, len, name);
    return 1;
}

/* json.read(path) -> value */
static int l_read(lua_State *L)
{
    /* a number is no path: json.read(42) said "42: cannot open" */
    if (lua_type(L, 1) != LUA_TSTRING)
        llmd_usage_error(L, "json.read: expected a file path (a string), got %s",
                         luaL_typename(L, 1));
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    Strbuf *b = llmd_read_file(L, path); /* path, buf */
    decode(L, b->p, b->n, path);         /* path, buf, value */
    llmd_strbuf_free(b);
    return 1;
}

/* ---- encoding ---------------------------------------------------------------- */

typedef struct Encoder {
    Strbuf *out;
    int indent; /* spaces per level; 0 = compact */
    int depth;
    const char *who; /* "json.encode" or "json.write": the function the script called */
    const char *path[ENCODE_MAX_DEPTH + 1]; /* keys (NULL for array slots) for messages */
    lua_Integer index[ENCODE_MAX_DEPTH + 1];
} Encoder;

static void emit(lua_State *L, Encoder *e, const char *s, size_t n)
{
    llmd_strbuf_add(L, e->out, s, n);
}

#define EMIT_LIT(L, e, s) emit(L, e, s, sizeof(s) - 1)

/* Raises "my.lua:7: json.write: <what> at $.a[3].b": a value the script passed, refused
   at the script's line by the function it called. */
static int encode_error(lua_State *L, Encoder *e, const char *what)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_where(L, 1);
    luaL_addvalue(&b);
    luaL_addstring(&b, e->who);
    luaL_addstring(&b, ": ");
    luaL_addstring(&b, what);
    luaL_addstring(&b, " at $");
    for (int i = 1; i <= e->depth; i++) {
        if (e->path[i] != NULL) {
            luaL_addchar(&b, '.');
            luaL_addstring(&b, e->path[i]);
        } else {
            lua_pushfstring(L, "[%I]", e->index[i]);
            luaL_addvalue(&b);
        }
    }
    luaL_pushresult(&b);
    return lua_error(L);
}

static void emit_string(lua_State *L, Encoder *e, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (json_utf8_valid(s, n) != n)
        encode_error(L, e, "string is not valid UTF-8");
    EMIT_LIT(L, e, "\"");
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        emit(L, e, s + run, i - run);
        run = i + 1;
        /* the short escapes JSON has, else \u00XX */
        static const char shortesc[] = "\"\"\\\\\nn\rr\tt\bb\ff";
        const char *se = NULL;
        for (size_t k = 0; k + 1 < sizeof shortesc && se == NULL; k += 2)
            if ((unsigned char)shortesc[k] == c)
                se = shortesc + k + 1;
        char esc[6] = {'\\', (char)(se ? *se : 'u'), '0', '0', hex[c >> 4], hex[c & 15]};
        size_t k = se ? 2 : 6;
        emit(L, e, esc, k);
    }
    emit(L, e, s + run, n - run);
    EMIT_LIT(L, e, "\"");
}

static void emit_newline(lua_State *L, Encoder *e, int depth)
{
    if (e->indent <= 0)
        return;
    char spaces[64];
    EMIT_LIT(L, e, "\n");
    size_t total = (size_t)depth * (size_t)e->indent;
    memset(spaces, ' ', sizeof spaces);
    while (total > 0) {
        size_t k = total < sizeof spaces ? total : sizeof spaces;
        emit(L, e, spaces, k);
        total -= k;
    }
}

typedef struct KeyRef {
    const char *s;
    size_t n;
} KeyRef;

static int keyref_cmp(const void *a, const void *b)
{
    const KeyRef *x = (const KeyRef *)a, *y = (const KeyRef *)b;
    size_t n = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->s, y->s, n);
    return c != 0 ? c : (x->n > y->n) - (x->n < y->n);
}

static void encode_value(lua_State *L, Encoder *e, int idx);

/*
** Decides how the table at idx is written: 1 array (its length), 0 object. Arrays:
** the array marker, or (unmarked) only keys 1..n. Objects: the object marker, an
** empty unmarked table, or only string keys.
*/
static int table_kind(lua_State *L, Encoder *e, int idx, lua_Integer *len)
{
    int marker = llmd_marker(L, idx);
    lua_Integer count = 0, max = 0;
    int strings = 0, others = 0;
    lua_pushnil(L);                 /* key */
    while (lua_next(L, idx) != 0) { /* key, value */
        lua_pop(L, 1);              /* key */
        if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1) {
            lua_Integer k = lua_tointeger(L, -1);
            if (k > max)
                max = k;
            count++;
        } else if (lua_type(L, -1) == LUA_TSTRING) {
            strings++;
        } else {
            others++;
        }
    }
    if (marker == 2 || (marker == 0 && count == 0)) {
        if (marker == 2 && others > 0)
            encode_error(L, e, "object key is neither a string nor a number");
        if (marker == 0 && others > 0)
            encode_error(L, e, "table key is neither a string nor a positive integer");
        return 0;
    }
    if (strings > 0 || others > 0)
        encode_error(L, e,
                     marker == 1 ? "array has a non-integer key"
                                 : "table mixes array and object keys");
    if (max != count)
        encode_error(L, e, "sparse array (keys are not 1..n)");
    *len = count;
    return 1;
}

static void encode_table(lua_State *L, Encoder *e, int idx)
{
    if (e->depth >= ENCODE_MAX_DEPTH)
        encode_error(L, e, "nesting deeper than 1000 levels (a cycle?)");
    if (llmd_signals != llmd_signals_taken && llmd_interrupt_pending(L))
        encode_error(L, e, "interrupted"); /* a huge value: no Lua runs here */
    luaL_checkstack(L, 6, "JSON nesting too deep");
    lua_Integer len = 0;
    if (table_kind(L, e, idx, &len)) {
        if (len == 0) {
            EMIT_LIT(L, e, "[]");
            return;
        }
        EMIT_LIT(L, e, "[");
        e->depth++;
        e->path[e->depth] = NULL;
        for (lua_Integer i = 1; i <= len; i++) {
            e->index[e->depth] = i - 1;
            if (i > 1)
                EMIT_LIT(L, e, ",");
            emit_newline(L, e, e->depth);
            lua_rawgeti(L, idx, i); /* v */
            encode_value(L, e, lua_gettop(L));
            lua_pop(L, 1);
        }
        e->depth--;
        emit_newline(L, e, e->depth);
        EMIT_LIT(L, e, "]");
        return;
    }

    /* Object: keys as strings, sorted, so output is stable and diffable. Number keys
       of a marked object become their decimal text; a copy anchors them. */
    lua_newtable(L); /* keys: string -> original key */
    int keys = lua_gettop(L);
    lua_Integer n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) { /* keys, k, v */
        lua_pop(L, 1);              /* keys, k */
        lua_pushvalue(L, -1);       /* keys, k, k */
        if (lua_type(L, -1) == LUA_TNUMBER) {
            if (lua_isinteger(L, -1)) {
                lua_pushfstring(L, "%I", lua_tointeger(L, -1));
            } else {
                char num[40];
                llmd_format_double(num, sizeof num, lua_tonumber(L, -1));
                lua_pushstring(L, num);
            }
            lua_replace(L, -2);
        }
        lua_pushvalue(L, -2); /* keys, k, ks, k */
        lua_rawset(L, keys);  /* keys, k */
        n++;
    }
    if (n == 0) {
        lua_pop(L, 1);
        EMIT_LIT(L, e, "{}");
        return;
    }
    KeyRef *refs = (KeyRef *)lua_newuserdatauv(L, (size_t)n * sizeof *refs, 0); /* keys, refs */
    lua_Integer k = 0;
    lua_pushnil(L);
    while (lua_next(L, keys) != 0) { /* keys, refs, ks, k */
        lua_pop(L, 1);
        refs[k].s = lua_tolstring(L, -1, &refs[k].n); /* anchored in keys */
        k++;
    }
    qsort(refs, (size_t)n, sizeof *refs, keyref_cmp);
    EMIT_LIT(L, e, "{");
    e->depth++;
    for (lua_Integer i = 0; i < n; i++) {
        e->path[e->depth] = refs[i].s;
        if (i > 0)
            EMIT_LIT(L, e, ",");
        emit_newline(L, e, e->depth);
        emit_string(L, e, refs[i].s, refs[i].n);
        if (e->indent > 0)
            EMIT_LIT(L, e, ": ");
        else
            EMIT_LIT(L, e, ":");
        lua_pushlstring(L, refs[i].s, refs[i].n); /* keys, refs, ks */
        lua_rawget(L, keys);                      /* keys, refs, k */
        lua_rawget(L, idx);                       /* keys, refs, v */
        encode_value(L, e, lua_gettop(L));
        lua_pop(L, 1);
    }
    e->depth--;
    emit_newline(L, e, e->depth);
    EMIT_LIT(L, e, "}");
    lua_pop(L, 2);
}

static void encode_value(lua_State *L, Encoder *e, int idx)
{
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        EMIT_LIT(L, e, "null");
        return;
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) == NULL) {
            EMIT_LIT(L, e, "null");
            return;
        }
        break;
    case LUA_TBOOLEAN:
        if (lua_toboolean(L, idx))
            EMIT_LIT(L, e, "true");
        else
            EMIT_LIT(L, e, "false");
        return;
    case LUA_TNUMBER: {
        char num[48];
        int n;
        if (lua_isinteger(L, idx)) {
            n = snprintf(num, sizeof num, LUA_INTEGER_FMT, lua_tointeger(L, idx));
        } else {
            double d = (double)lua_tonumber(L, idx);
            if (isnan(d))
                encode_error(L, e, "cannot encode NaN (JSON has no NaN)");
            if (isinf(d))
                encode_error(L, e, "cannot encode an infinity (JSON has none)");
            n = llmd_format_double(num, sizeof num, d);
        }
        emit(L, e, num, (size_t)n);
        return;
    }
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        emit_string(L, e, s, n);
        return;
    }
    case LUA_TTABLE:
        encode_table(L, e, idx);
        return;
    default:
        break;
    }
    lua_pushfstring(L, "cannot encode a %s value", luaL_typename(L, idx));
    encode_error(L, e, lua_tostring(L, -1));
}

/* Encodes the value at idx with the options table at opts (or none); pushes the text. */
static void encode(lua_State *L, int idx, int opts, int default_indent)
{
    Encoder *e = (Encoder *)lua_newuserdatauv(L, sizeof *e, 0); /* encoder */
    memset(e, 0, sizeof *e);
    e->indent = default_indent;
    e->who = default_indent == 0 ? "json.encode" : "json.write";
    if (opts != 0 && lua_istable(L, opts)) {
        static const char *const keys[] = {"indent", NULL};
        llmd_check_keys(L, opts, e->who, keys, 0);
        if (lua_getfield(L, opts, "indent") != LUA_TNIL) {
            lua_Integer ind = luaL_checkinteger(L, -1);
            luaL_argcheck(L, ind >= 0 && ind <= 16, opts, "indent must be in [0, 16]");
            e->indent = (int)ind;
        }
        lua_pop(L, 1);
    }
    e->out = llmd_strbuf_new(L); /* encoder, buf */
    encode_value(L, e, idx);
    lua_pushlstring(L, e->out->p, e->out->n); /* encoder, buf, text */
    llmd_strbuf_free(e->out);
    lua_remove(L, -2);
    lua_remove(L, -2); /* text */
}

/* json.encode(value [, {indent = n}]) -> text. Keys are sorted. */
static int l_encode(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_settop(L, 2);
    encode(L, 1, 2, 0);
    return 1;
}

/* json.write(path, value [, {indent = n}]): atomically; indent 2 by default. */
static int l_write(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    luaL_checkany(L, 2);
    lua_settop(L, 3);
    encode(L, 2, 3, 2); /* path, value, opts, text */
    lua_pushliteral(L, "\n");
    lua_concat(L, 2);
    size_t n;
    const char *text = lua_tolstring(L, -1, &n);
    int err = llmd_write_atomic(path, text, n);
    if (err != 0)
        return luaL_error(L, "%s: cannot write: %s", path, strerror(err));
    return 0;
}

/* json.array(t) / json.object(t): marks t (or a new table) and returns it. */
static int mark(lua_State *L, int is_array)
{
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    } else {
        luaL_checktype(L, 1, LUA_TTABLE);
        lua_settop(L, 1);
    }
    llmd_push_marker(L, is_array);
    lua_setmetatable(L, 1);
    return 1;
}

static int l_array(lua_State *L)
{
    return mark(L, 1);
}

static int l_object(lua_State *L)
{
    return mark(L, 0);
}

/* json.is_array(t) -> true for a table marked as (or decoded from) a JSON array. */
static int l_is_array(lua_State *L)
{
    lua_pushboolean(L, lua_istable(L, 1) && llmd_marker(L, 1) == 1);
    return 1;
}

static const luaL_Reg json_funcs[] = {
    {"decode",   l_decode  },
    {"encode",   l_encode  },
    {"read",     l_read    },
    {"write",    l_write   },
    {"array",    l_array   },
    {"object",   l_object  },
    {"is_array", l_is_array},
    {"null",     NULL      },
    {NULL,       NULL      }
};

int luaopen_llmd_json(lua_State *L)
{
    luaL_newmetatable(L, PARSER_MT); /* mt */
    lua_pushcfunction(L, parser_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    llmd_push_marker(L, 1);
    llmd_push_marker(L, 0);
    lua_pop(L, 2);
    luaL_newlib(L, json_funcs); /* module */
    lua_pushlightuserdata(L, NULL);
    lua_setfield(L, -2, "null");
    return 1;
}
