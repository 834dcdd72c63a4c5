/*
** lyaml.c — llmd.yaml: load, load_file, load_all, dump, keys, pairs, null.
**
** Loading walks libyaml's event stream into Lua values:
** - plain scalars resolve by the YAML 1.2 core schema (null, bool, int in decimal,
**   0o octal and 0x hex, float with .inf/.nan); quoted scalars stay strings;
** - null is llmd.yaml.null (the same value as llmd.json.null), so keys with null
**   values are kept and a loaded document converts to JSON faithfully;
** - anchors and aliases share one Lua value; merge keys (<<) copy missing keys;
** - mappings and sequences carry llmd.json's object/array markers, and the key order
**   of every mapping is remembered (yaml.keys, yaml.pairs, and dump uses it).
*/
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "lauxlib.h"
#include "lua.h"

#include "json.h"
#include "modules.h"

#define LOADER_MT "llmd.yaml.loader"
#define DUMPER_MT "llmd.yaml.dumper"
#define MAX_DEPTH 1000

#define TAG_PREFIX "tag:yaml.org,2002:"

/* ---- loading ----------------------------------------------------------------- */

typedef struct Loader {
    yaml_parser_t parser;
    yaml_event_t event;
    int parser_ok, has_event;
    const char *name; /* anchored by the caller */
    const char *text; /* the input, for positions of encoding errors */
    size_t len;
    int depth;
    uint64_t nodes; /* nodes read, each alias once */
} Loader;

static int loader_gc(lua_State *L)
{
    Loader *ld = (Loader *)luaL_checkudata(L, 1, LOADER_MT);
    if (ld->has_event)
        yaml_event_delete(&ld->event);
    if (ld->parser_ok)
        yaml_parser_delete(&ld->parser);
    ld->has_event = ld->parser_ok = 0;
    return 0;
}

static int error_at(lua_State *L, Loader *ld, const yaml_mark_t *m, const char *msg)
{
    return luaL_error(L, "%s:%d:%d: %s", ld->name, (int)m->line + 1, (int)m->column + 1, msg);
}

static void next_event(lua_State *L, Loader *ld)
{
    if (llmd_signals != llmd_signals_taken && llmd_interrupt_pending(L))
        luaL_error(L, "%s: interrupted", ld->name); /* no Lua runs here to see the hook */
    if (ld->has_event) {
        yaml_event_delete(&ld->event);
        ld->has_event = 0;
    }
    if (!yaml_parser_parse(&ld->parser, &ld->event)) {
        yaml_parser_t *p = &ld->parser;
        const char *problem = p->problem ? p->problem : "invalid YAML";
        if (p->context != NULL)
            lua_pushfstring(L, "%s %s (started at line %d, column %d)", problem, p->context,
                            (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
        else
            lua_pushstring(L, problem);
        if (p->error == YAML_MEMORY_ERROR)
            luaL_error(L, "%s: not enough memory", ld->name);
        if (p->error == YAML_READER_ERROR) {
            /* the reader reports a byte offset, not a mark: count lines up to it */
            yaml_mark_t m = {0, 0, 0};
            for (size_t i = 0; i < p->problem_offset && i < ld->len; i++) {
                if (ld->text[i] == '\n') {
                    m.line++;
                    m.column = 0;
                } else if (((unsigned char)ld->text[i] & 0xC0) != 0x80) {
                    m.column++;
                }
            }
            if (p->problem_value >= 0) {
                char msg[200];
                (void)snprintf(msg, sizeof msg, "%s (byte 0x%02x)", problem,
                               (unsigned)p->problem_value);
                lua_pushstring(L, msg);
            }
            error_at(L, ld, &m, lua_tostring(L, -1));
        }
        error_at(L, ld, &p->problem_mark, lua_tostring(L, -1));
    }
    ld->has_event = 1;
}

static int is_tag(const yaml_char_t *tag, const char *name)
{
    return tag != NULL && strncmp((const char *)tag, TAG_PREFIX, sizeof TAG_PREFIX - 1) == 0 &&
           strcmp((const char *)tag + sizeof TAG_PREFIX - 1, name) == 0;
}

static int is_one_of(const char *s, size_t n, const char *const *words)
{
    for (; *words; words++)
        if (strlen(*words) == n && memcmp(s, *words, n) == 0)
            return 1;
    return 0;
}

static const char *const NULL_WORDS[] = {"", "~", "null", "Null", "NULL", NULL};
static const char *const TRUE_WORDS[] = {"true", "True", "TRUE", NULL};
static const char *const FALSE_WORDS[] = {"false", "False", "FALSE", NULL};
static const char *const INF_WORDS[] = {".inf", ".Inf", ".INF", NULL};
static const char *const NAN_WORDS[] = {".nan", ".NaN", ".NAN", NULL};

static int all_chars(const char *s, size_t n, const char *set)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\0' || strchr(set, s[i]) == NULL)
            return 0;
    return 1;
}

/* Core schema int: [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+. Pushes it; 0 if not an int. */
static int push_int(lua_State *L, const char *s, size_t n)
{
    char buf[80];
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    int base = 10;
    const char *digits = buf;
    if (n > 2 && buf[0] == '0' && buf[1] == 'o' && all_chars(buf + 2, n - 2, "01234567")) {
        base = 8;
        digits = buf + 2;
    } else if (n > 2 && buf[0] == '0' && buf[1] == 'x' &&
               all_chars(buf + 2, n - 2, "0123456789abcdefABCDEF")) {
        base = 16;
        digits = buf + 2;
    } else {
        size_t k = (buf[0] == '-' || buf[0] == '+') ? 1 : 0;
        if (!all_chars(buf + k, n - k, "0123456789"))
            return 0;
    }
    errno = 0;
    char *end;
    long long v = strtoll(digits, &end, base);
    if (errno == ERANGE || *end != '\0') {
        /* Out of 64-bit range: the nearest float, as other YAML readers give. */
        if (base != 10)
            return 0;
        lua_pushnumber(L, strtod(buf, NULL));
        return 1;
    }
    lua_pushinteger(L, (lua_Integer)v);
    return 1;
}

/* Core schema float. Pushes it; 0 if not a float. */
static int push_float(lua_State *L, const char *s, size_t n)
{
    size_t k = (n > 0 && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (is_one_of(s + k, n - k, INF_WORDS)) {
        lua_pushnumber(L, s[0] == '-' ? -HUGE_VAL : HUGE_VAL);
        return 1;
    }
    if (is_one_of(s, n, NAN_WORDS)) {
        lua_pushnumber(L, NAN);
        return 1;
    }
    /* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
    size_t i = k, int_digits = 0, frac_digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, int_digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, frac_digits++;
    }
    if (int_digits == 0 && frac_digits == 0)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            i++;
        size_t exp_digits = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, exp_digits++;
        if (exp_digits == 0)
            return 0;
    }
    if (i != n || n >= 400)
        return 0;
    char buf[400];
    memcpy(buf, s, n);
    buf[n] = '\0';
    lua_pushnumber(L, strtod(buf, NULL));
    return 1;
}

/* Pushes the value of a plain scalar under the core schema. */
static void resolve_plain(lua_State *L, const char *s, size_t n)
{
    if (is_one_of(s, n, NULL_WORDS))
        lua_pushlightuserdata(L, NULL);
    else if (is_one_of(s, n, TRUE_WORDS))
        lua_pushboolean(L, 1);
    else if (is_one_of(s, n, FALSE_WORDS))
        lua_pushboolean(L, 0);
    else if (!push_int(L, s, n) && !push_float(L, s, n))
        lua_pushlstring(L, s, n);
}

static void push_scalar(lua_State *L, Loader *ld)
{
    yaml_event_t *ev = &ld->event;
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const yaml_char_t *tag = ev->data.scalar.tag;
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;

    if (tag == NULL || strcmp((const char *)tag, "!") == 0) {
        if (plain && tag == NULL)
            resolve_plain(L, s, n);
        else
            lua_pushlstring(L, s, n);
        return;
    }
    if (is_tag(tag, "str")) {
        lua_pushlstring(L, s, n);
        return;
    }
    int ok = 0;
    if (is_tag(tag, "int"))
        ok = push_int(L, s, n);
    else if (is_tag(tag, "float"))
        ok = push_int(L, s, n) || push_float(L, s, n);
    else if (is_tag(tag, "bool")) {
        ok = is_one_of(s, n, TRUE_WORDS) || is_one_of(s, n, FALSE_WORDS);
        if (ok)
            lua_pushboolean(L, is_one_of(s, n, TRUE_WORDS));
    } else if (is_tag(tag, "null")) {
        ok = is_one_of(s, n, NULL_WORDS);
        if (ok)
            lua_pushlightuserdata(L, NULL);
    } else {
        lua_pushfstring(L, "unsupported tag '%s'", (const char *)tag);
        error_at(L, ld, &ev->start_mark, lua_tostring(L, -1));
    }
    if (ok && is_tag(tag, "float") && lua_isinteger(L, -1)) {
        lua_Number f = (lua_Number)lua_tointeger(L, -1);
        lua_pop(L, 1);
        lua_pushnumber(L, f);
    }
    if (!ok) {
        lua_pushfstring(L, "'%s' is not a valid %s", s, (const char *)tag + sizeof TAG_PREFIX - 1);
        error_at(L, ld, &ev->start_mark, lua_tostring(L, -1));
    }
}

/* Pushes the anchor name of the current node event, or nothing (returns 0). */
static int push_anchor(lua_State *L, Loader *ld)
{
    const yaml_char_t *a = NULL;
    yaml_event_t *ev = &ld->event;
    if (ev->type == YAML_SCALAR_EVENT)
        a = ev->data.scalar.anchor;
    else if (ev->type == YAML_SEQUENCE_START_EVENT)
        a = ev->data.sequence_start.anchor;
    else if (ev->type == YAML_MAPPING_START_EVENT)
        a = ev->data.mapping_start.anchor;
    if (a == NULL)
        return 0;
    lua_pushstring(L, (const char *)a);
    return 1;
}

static void check_collection_tag(lua_State *L, Loader *ld, const yaml_char_t *tag, const char *kind)
{
    if (tag == NULL || strcmp((const char *)tag, "!") == 0 || is_tag(tag, kind))
        return;
    lua_pushfstring(L, "unsupported tag '%s'", (const char *)tag);
    error_at(L, ld, &ld->event.start_mark, lua_tostring(L, -1));
}

static uint64_t load_node(lua_State *L, Loader *ld, int anchors);
static void push_keys(lua_State *L, int idx);

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
** Aliases share one Lua value, so loading is cheap whatever they expand to; but whoever
** walks the result (yaml.dump, a plan's validation) visits every expansion: 13 lines of
** "billion laughs" expand to 10^9 nodes. As go-yaml (yaml.v3) and so Kubernetes and
** Helm do, a node that expands to many nodes through aliases is refused: up to 400,000
** nodes 99% may come from aliases, above 4,000,000 only 10%, linearly in between.
** expanded: the node's size with every alias expanded; the document's own nodes so far
** are ld->nodes.
*/
static void check_aliasing(lua_State *L, Loader *ld, uint64_t expanded, const yaml_mark_t *m)
{
    if (expanded <= 1000 || expanded <= ld->nodes || expanded - ld->nodes <= 100)
        return;
    double aliased = (double)(expanded - ld->nodes) / (double)expanded;
    double e = (double)expanded;
    double allowed = e <= 4e5 ? 0.99 : e >= 4e6 ? 0.10 : 0.99 - 0.89 * (e - 4e5) / 3.6e6;
    if (aliased <= allowed)
        return;
    char msg[200];
    (void)snprintf(msg, sizeof msg,
                   "excessive aliasing: this node expands to %s%llu nodes through aliases, "
                   "from %llu nodes written in the document (a \"billion laughs\"?)",
                   expanded == UINT64_MAX ? "more than " : "", (unsigned long long)expanded,
                   (unsigned long long)ld->nodes);
    error_at(L, ld, m, msg);
}

/* The anchored collection at idx expands to this many nodes (counts: the table beside
   anchors, keyed by the collection itself). */
static void note_anchored(lua_State *L, int anchors, int idx, uint64_t expanded)
{
    lua_pushvalue(L, idx);
    lua_pushnumber(L, (lua_Number)expanded);
    lua_rawset(L, anchors + 1);
}

/*
** Merges the mapping(s) at src into map: keys map does not have yet are copied and
** remembered in merged (so an explicit key later may override them), and appended to
** order. A sequence of mappings merges in order: earlier ones win.
*/
static void merge_into(lua_State *L, Loader *ld, int map, int order, int merged, int src,
                       const yaml_mark_t *mark)
{
    int kind = lua_istable(L, src) ? llmd_marker(L, src) : 0;
    if (kind == 1) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, src);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, src, i); /* item */
            merge_into(L, ld, map, order, merged, lua_gettop(L), mark);
            lua_pop(L, 1);
        }
        return;
    }
    if (kind != 2)
        error_at(L, ld, mark, "merge key '<<' needs a mapping or a sequence of mappings");
    /* in src's own key order, so merged keys keep it */
    push_keys(L, src); /* srcorder */
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i); /* srcorder, k */
        lua_pushvalue(L, -1);
        if (lua_rawget(L, map) == LUA_TNIL) { /* srcorder, k, nil */
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_rawget(L, src); /* srcorder, k, v */
            lua_pushvalue(L, -2);
            lua_insert(L, -2);  /* srcorder, k, k, v */
            lua_rawset(L, map); /* srcorder, k */
            lua_pushvalue(L, -1);
            lua_pushboolean(L, 1);
            lua_rawset(L, merged);                                        /* srcorder, k */
            lua_rawseti(L, order, (lua_Integer)lua_rawlen(L, order) + 1); /* srcorder */
        } else {
            lua_pop(L, 2); /* srcorder */
        }
    }
    lua_pop(L, 1);
}

/* Pushes the mapping that starts with the current event; returns its expanded size. */
static uint64_t load_mapping(lua_State *L, Loader *ld, int anchors)
{
    yaml_mark_t start = ld->event.start_mark;
    uint64_t expanded = 1;
    lua_newtable(L); /* map */
    int map = lua_gettop(L);
    llmd_push_marker(L, 0);
    lua_setmetatable(L, map);
    int anchored = push_anchor(L, ld);
    if (anchored) { /* map, anchor */
        lua_pushvalue(L, map);
        lua_rawset(L, anchors); /* map */
    }
    lua_newtable(L); /* map, order */
    lua_newtable(L); /* map, order, merged */
    int order = map + 1, merged = map + 2;

    for (;;) {
        next_event(L, ld);
        if (ld->event.type == YAML_MAPPING_END_EVENT)
            break;
        yaml_mark_t key_mark = ld->event.start_mark;
        yaml_event_t *ev = &ld->event;
        int is_merge = ev->type == YAML_SCALAR_EVENT && ev->data.scalar.tag == NULL &&
                       ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                       ev->data.scalar.length == 2 && memcmp(ev->data.scalar.value, "<<", 2) == 0;
        if (is_merge) {
            next_event(L, ld);
            expanded = add_sat(expanded, load_node(L, ld, anchors)); /* map, order, merged, src */
            merge_into(L, ld, map, order, merged, lua_gettop(L), &key_mark);
            lua_pop(L, 1);
            continue;
        }
        expanded = add_sat(expanded, load_node(L, ld, anchors)); /* map, order, merged, key */
        int kt = lua_type(L, -1);
        if (kt == LUA_TTABLE)
            error_at(L, ld, &key_mark, "unsupported mapping key: only scalar keys are supported");
        if (kt == LUA_TLIGHTUSERDATA)
            error_at(L, ld, &key_mark, "unsupported mapping key: null");
        if (kt == LUA_TNUMBER && lua_tonumber(L, -1) != lua_tonumber(L, -1))
            error_at(L, ld, &key_mark, "unsupported mapping key: NaN");
        lua_pushvalue(L, -1);
        if (lua_rawget(L, map) != LUA_TNIL) { /* ..., key, old */
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, merged) == LUA_TNIL) { /* ..., key, nil */
                lua_pushfstring(L, "duplicate key '%s'", luaL_tolstring(L, -2, NULL));
                error_at(L, ld, &key_mark, lua_tostring(L, -1));
            }
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_pushnil(L);
            lua_rawset(L, merged); /* an explicit key overrides a merged one, in place */
        } else {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_rawseti(L, order, (lua_Integer)lua_rawlen(L, order) + 1);
        }
        next_event(L, ld);
        expanded =
            add_sat(expanded, load_node(L, ld, anchors)); /* map, order, merged, key, value */
        lua_rawset(L, map);                               /* map, order, merged */
    }
    check_aliasing(L, ld, expanded, &start);
    if (anchored)
        note_anchored(L, anchors, map, expanded);
    lua_pop(L, 1);         /* map, order */
    llmd_push_keyorder(L); /* map, order, keyorder */
    lua_pushvalue(L, map);
    lua_pushvalue(L, order);
    lua_rawset(L, -3); /* map, order, keyorder */
    lua_pop(L, 2);     /* map */
    return expanded;
}

/* Pushes the node that starts with the current event; returns how many nodes it is with
   every alias in it expanded. */
static uint64_t load_node(lua_State *L, Loader *ld, int anchors)
{
    yaml_event_t *ev = &ld->event;
    luaL_checkstack(L, 8, "YAML nesting too deep");
    ld->nodes++;
    switch (ev->type) {
    case YAML_ALIAS_EVENT: {
        lua_pushstring(L, (const char *)ev->data.alias.anchor);
        if (lua_rawget(L, anchors) == LUA_TNIL) {
            lua_pushfstring(L, "unknown anchor '%s'", (const char *)ev->data.alias.anchor);
            error_at(L, ld, &ev->start_mark, lua_tostring(L, -1));
        }
        if (!lua_istable(L, -1))
            return 1;
        lua_pushvalue(L, -1);
        int known = lua_rawget(L, anchors + 1) == LUA_TNUMBER; /* value, count */
        lua_Number n = lua_tonumber(L, -1);
        lua_pop(L, 1);
        /* an alias inside its own anchor's node (a cycle) counts once */
        return !known ? 1 : n >= 1.8e19 ? UINT64_MAX : (uint64_t)n;
    }
    case YAML_SCALAR_EVENT:
        push_scalar(L, ld);       /* value */
        if (push_anchor(L, ld)) { /* value, anchor */
            lua_pushvalue(L, -2);
            lua_rawset(L, anchors); /* value */
        }
        return 1;
    case YAML_SEQUENCE_START_EVENT: {
        check_collection_tag(L, ld, ev->data.sequence_start.tag, "seq");
        if (++ld->depth > MAX_DEPTH)
            error_at(L, ld, &ev->start_mark, "nesting deeper than 1000 levels");
        yaml_mark_t start = ev->start_mark;
        uint64_t expanded = 1;
        lua_newtable(L); /* seq */
        llmd_push_marker(L, 1);
        lua_setmetatable(L, -2);
        int anchored = push_anchor(L, ld);
        if (anchored) { /* seq, anchor */
            lua_pushvalue(L, -2);
            lua_rawset(L, anchors); /* seq */
        }
        lua_Integer i = 0;
        for (;;) {
            next_event(L, ld);
            if (ld->event.type == YAML_SEQUENCE_END_EVENT)
                break;
            expanded = add_sat(expanded, load_node(L, ld, anchors)); /* seq, v */
            lua_rawseti(L, -2, ++i);                                 /* seq */
        }
        check_aliasing(L, ld, expanded, &start);
        if (anchored)
            note_anchored(L, anchors, lua_gettop(L), expanded);
        ld->depth--;
        return expanded;
    }
    case YAML_MAPPING_START_EVENT: {
        check_collection_tag(L, ld, ev->data.mapping_start.tag, "map");
        if (++ld->depth > MAX_DEPTH)
            error_at(L, ld, &ev->start_mark, "nesting deeper than 1000 levels");
        uint64_t expanded = load_mapping(L, ld, anchors);
        ld->depth--;
        return expanded;
    }
    default:
        error_at(L, ld, &ev->start_mark, "unexpected YAML event");
    }
    return 0; /* not reached */
}

/* Loads every document of text into a new array (pushed). */
static void load_documents(lua_State *L, const char *text, size_t len, const char *name)
{
    if (llmd_is_gzip(text, len)) /* read from a pipe or a Lua file, not decompressed */
        luaL_error(L, "%s: gzip-compressed; decompress it first (gunzip)", name);
    Loader *ld = (Loader *)lua_newuserdatauv(L, sizeof *ld, 0); /* loader */
    memset(ld, 0, sizeof *ld);
    luaL_setmetatable(L, LOADER_MT);
    if (!yaml_parser_initialize(&ld->parser))
        luaL_error(L, "%s: not enough memory", name);
    ld->parser_ok = 1;
    ld->name = name;
    ld->text = text;
    ld->len = len;
    yaml_parser_set_input_string(&ld->parser, (const unsigned char *)text, len);
    yaml_parser_set_encoding(&ld->parser, YAML_UTF8_ENCODING);

    lua_newtable(L); /* loader, docs */
    int docs = lua_gettop(L);
    lua_Integer n = 0;
    next_event(L, ld); /* STREAM_START */
    for (;;) {
        next_event(L, ld);
        if (ld->event.type == YAML_STREAM_END_EVENT)
            break;
        /* DOCUMENT_START: every document has its own anchors */
        lua_newtable(L); /* loader, docs, anchors */
        lua_newtable(L); /* loader, docs, anchors, counts (expanded sizes of anchored nodes) */
        next_event(L, ld);
        load_node(L, ld, lua_gettop(L) - 1); /* loader, docs, anchors, counts, value */
        lua_rawseti(L, docs, ++n);           /* loader, docs, anchors, counts */
        lua_pop(L, 2);
        next_event(L, ld); /* DOCUMENT_END */
    }
    lua_remove(L, -2); /* docs */
}

static void load_single(lua_State *L, const char *text, size_t len, const char *name)
{
    load_documents(L, text, len, name); /* docs */
    lua_Unsigned n = lua_rawlen(L, -1);
    if (n > 1)
        luaL_error(L, "%s: expected one YAML document, found %d (use yaml.load_all)", name, (int)n);
    lua_rawgeti(L, -1, 1); /* docs, doc (nil for an empty stream) */
    lua_remove(L, -2);
}

/* yaml.load(text [, name]) -> value (nil for an empty stream), or every document */
static int load_text(lua_State *L, int all)
{
    size_t len;
    /* a number is not YAML text: yaml.load(5) returning 5 would hide the caller's mistake
       (the README's rule: arguments are not converted) */
    if (lua_type(L, 1) != LUA_TSTRING)
        llmd_usage_error(L, "%s: expected YAML text (a string), got %s",
                         all ? "yaml.load_all" : "yaml.load", luaL_typename(L, 1));
    const char *text = luaL_checklstring(L, 1, &len);
    const char *name = luaL_optstring(L, 2, "yaml");
    lua_settop(L, 2);
    if (all)
        load_documents(L, text, len, name);
    else
        load_single(L, text, len, name);
    return 1;
}

static int l_load(lua_State *L)
{
    return load_text(L, 0);
}

/* yaml.load_all(text [, name]) -> { doc1, doc2, ... } */
static int l_load_all(lua_State *L)
{
    return load_text(L, 1);
}

/* yaml.load_file(path) -> value; yaml.load_file(path, {all = true}) -> documents */
static int l_load_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int all = 0;
    if (lua_istable(L, 2)) {
        static const char *const keys[] = {"all", NULL};
        llmd_check_keys(L, 2, "yaml.load_file", keys, 0);
        lua_getfield(L, 2, "all");
        all = lua_toboolean(L, -1);
    }
    lua_settop(L, 1);
    Strbuf *b = llmd_read_file(L, path); /* path, buf */
    if (all)
        load_documents(L, b->p, b->n, path);
    else
        load_single(L, b->p, b->n, path);
    llmd_strbuf_free(b);
    return 1;
}

/* ---- key order --------------------------------------------------------------- */

static int compare_keys(lua_State *L)
{
    int ta = lua_type(L, 1), tb = lua_type(L, 2);
    if (ta != tb)
        lua_pushboolean(L, ta < tb);
    else if (ta == LUA_TNUMBER || ta == LUA_TSTRING)
        lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
    else
        lua_pushboolean(L, !lua_toboolean(L, 1) && lua_toboolean(L, 2));
    return 1;
}

/*
** Pushes the keys of the table at idx as an array: the recorded order for the keys
** still present, then any others sorted (numbers, then strings).
*/
static void push_keys(lua_State *L, int idx)
{
    lua_newtable(L); /* keys */
    int keys = lua_gettop(L);
    lua_newtable(L); /* keys, seen */
    lua_Integer n = 0;
    llmd_push_keyorder(L);
    lua_pushvalue(L, idx);
    lua_rawget(L, -2); /* keys, seen, keyorder, order */
    if (lua_istable(L, -1)) {
        lua_Integer m = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer i = 1; i <= m; i++) {
            lua_rawgeti(L, -1, i); /* ..., k */
            lua_pushvalue(L, -1);
            if (lua_rawget(L, idx) != LUA_TNIL) { /* ..., k, v */
                lua_pop(L, 1);
                lua_pushvalue(L, -1);
                lua_pushboolean(L, 1);
                lua_rawset(L, keys + 1);
                lua_rawseti(L, keys, ++n);
            } else {
                lua_pop(L, 2);
            }
        }
    }
    lua_pop(L, 2); /* keys, seen */
    lua_Integer first_rest = n + 1;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) { /* keys, seen, k, v */
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, keys + 1) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_rawseti(L, keys, ++n);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1); /* keys */
    if (n >= first_rest + 1) {
        /* sort the unrecorded tail with table.sort semantics on a copy */
        lua_newtable(L); /* keys, tail */
        for (lua_Integer i = first_rest; i <= n; i++) {
            lua_rawgeti(L, keys, i);
            lua_rawseti(L, -2, i - first_rest + 1);
        }
        lua_getglobal(L, "table");
        lua_getfield(L, -1, "sort"); /* keys, tail, table, sort */
        lua_remove(L, -2);
        lua_pushvalue(L, -2);
        lua_pushcfunction(L, compare_keys);
        lua_call(L, 2, 0); /* keys, tail */
        for (lua_Integer i = first_rest; i <= n; i++) {
            lua_rawgeti(L, -1, i - first_rest + 1);
            lua_rawseti(L, keys, i);
        }
        lua_pop(L, 1);
    }
}

/* yaml.keys(t) -> array of t's keys in document order (others sorted after). */
static int l_keys(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    push_keys(L, 1);
    return 1;
}

static int pairs_next(lua_State *L)
{
    /* upvalues: table, keys; state: index */
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(3)) + 1;
    for (;; i++) {
        if (lua_rawgeti(L, lua_upvalueindex(2), i) == LUA_TNIL)
            return 0;
        lua_pushvalue(L, -1);
        if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) {
            lua_pushinteger(L, i);
            lua_replace(L, lua_upvalueindex(3));
            return 2;
        }
        lua_pop(L, 2);
    }
}

/* for k, v in yaml.pairs(t): in document order. */
static int l_pairs(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    push_keys(L, 1); /* t, keys */
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, pairs_next, 3);
    return 1;
}

/* ---- dumping ----------------------------------------------------------------- */

typedef struct Dumper {
    yaml_emitter_t emitter;
    yaml_event_t event;
    int emitter_ok;
    Strbuf out; /* filled by the write handler, which must not raise */
    int depth;
} Dumper;

static void dumper_free(Dumper *d)
{
    if (d->emitter_ok)
        yaml_emitter_delete(&d->emitter);
    d->emitter_ok = 0;
    llmd_strbuf_free(&d->out);
}

static int dumper_gc(lua_State *L)
{
    dumper_free((Dumper *)luaL_checkudata(L, 1, DUMPER_MT));
    return 0;
}

/* libyaml's output callback: must not raise. */
static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    return llmd_strbuf_append((Strbuf *)data, buffer, size);
}

/* Emits the prepared event (yaml_emitter_emit takes ownership of it). */
static void emit(lua_State *L, Dumper *d, int ok)
{
    if (!ok)
        luaL_error(L, "yaml.dump: not enough memory");
    if (!yaml_emitter_emit(&d->emitter, &d->event))
        luaL_error(L, "yaml.dump: %s",
                   d->emitter.problem ? d->emitter.problem : "cannot emit YAML");
}

/* Would a plain scalar with this text read back as something other than a string, by
   the core schema or by YAML 1.1 readers (Helm, older PyYAML)? */
static int needs_quotes(const char *s, size_t n)
{
    static const char *const YAML11[] = {"y",   "Y",   "yes", "Yes", "YES", "n",  "N",
                                         "no",  "No",  "NO",  "on",  "On",  "ON", "off",
                                         "Off", "OFF", "=",   "<<",  NULL};
    if (n == 0 || is_one_of(s, n, NULL_WORDS) || is_one_of(s, n, TRUE_WORDS) ||
        is_one_of(s, n, FALSE_WORDS) || is_one_of(s, n, YAML11))
        return 1;
    char c = s[0];
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')
        return all_chars(s, n, "0123456789abcdefABCDEFxXoO_.:+-eEinfINFNa");
    return 0;
}

static void emit_scalar(lua_State *L, Dumper *d, const char *s, size_t n, int quote)
{
    yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
    if (json_utf8_valid(s, n) != n)
        luaL_error(L, "yaml.dump: string is not valid UTF-8");
    if (quote)
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    else if (memchr(s, '\n', n) != NULL)
        style = YAML_LITERAL_SCALAR_STYLE;
    emit(L, d,
         yaml_scalar_event_initialize(&d->event, NULL, NULL, (yaml_char_t *)(uintptr_t)s, (int)n,
                                      !quote, 1, style));
}

static int format_number(lua_State *L, int idx, char *out, size_t size)
{
    if (lua_isinteger(L, idx))
        return snprintf(out, size, LUA_INTEGER_FMT, lua_tointeger(L, idx));
    double v = (double)lua_tonumber(L, idx);
    if (isnan(v))
        return snprintf(out, size, ".nan");
    if (isinf(v))
        return snprintf(out, size, v < 0 ? "-.inf" : ".inf");
    return llmd_format_double(out, size, v);
}

static void dump_node(lua_State *L, Dumper *d, int idx);

static int is_sequence(lua_State *L, int idx)
{
    int marker = llmd_marker(L, idx);
    if (marker != 0)
        return marker == 1;
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx), count = 0;
    if (n == 0)
        return 0;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        count++;
    }
    return count == n;
}

static void dump_table(lua_State *L, Dumper *d, int idx)
{
    if (++d->depth > MAX_DEPTH)
        luaL_error(L, "yaml.dump: nesting deeper than 1000 levels (a cycle?)");
    luaL_checkstack(L, 6, "YAML nesting too deep");
    if (is_sequence(L, idx)) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
        emit(L, d,
             yaml_sequence_start_event_initialize(&d->event, NULL, NULL, 1,
                                                  n == 0 ? YAML_FLOW_SEQUENCE_STYLE
                                                         : YAML_BLOCK_SEQUENCE_STYLE));
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, i);
            dump_node(L, d, lua_gettop(L));
            lua_pop(L, 1);
        }
        emit(L, d, yaml_sequence_end_event_initialize(&d->event));
    } else {
        push_keys(L, idx); /* keys */
        int keys = lua_gettop(L);
        lua_Integer n = (lua_Integer)lua_rawlen(L, keys);
        emit(L, d,
             yaml_mapping_start_event_initialize(&d->event, NULL, NULL, 1,
                                                 n == 0 ? YAML_FLOW_MAPPING_STYLE
                                                        : YAML_BLOCK_MAPPING_STYLE));
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, keys, i); /* keys, k */
            int t = lua_type(L, -1);
            if (t != LUA_TSTRING && t != LUA_TNUMBER && t != LUA_TBOOLEAN)
                luaL_error(L, "yaml.dump: cannot dump a mapping key of type %s",
                           luaL_typename(L, -1));
            dump_node(L, d, lua_gettop(L));
            lua_rawget(L, idx); /* keys, v */
            dump_node(L, d, lua_gettop(L));
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        emit(L, d, yaml_mapping_end_event_initialize(&d->event));
    }
    d->depth--;
}

static void dump_node(lua_State *L, Dumper *d, int idx)
{
    char num[48];
    if (llmd_signals != llmd_signals_taken && llmd_interrupt_pending(L))
        luaL_error(L, "yaml.dump: interrupted"); /* a huge value: no Lua runs here */
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        emit_scalar(L, d, "null", 4, 0);
        return;
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, idx) == NULL) {
            emit_scalar(L, d, "null", 4, 0);
            return;
        }
        break;
    case LUA_TBOOLEAN:
        if (lua_toboolean(L, idx))
            emit_scalar(L, d, "true", 4, 0);
        else
            emit_scalar(L, d, "false", 5, 0);
        return;
    case LUA_TNUMBER: {
        int n = format_number(L, idx, num, sizeof num);
        emit_scalar(L, d, num, (size_t)n, 0);
        return;
    }
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        emit_scalar(L, d, s, n, needs_quotes(s, n));
        return;
    }
    case LUA_TTABLE:
        dump_table(L, d, idx);
        return;
    default:
        break;
    }
    luaL_error(L, "yaml.dump: cannot dump a %s value", luaL_typename(L, idx));
}

/* yaml.dump(value) -> text; mappings in their recorded (else sorted) key order. */
static int l_dump(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_settop(L, 1);
    Dumper *d = (Dumper *)lua_newuserdatauv(L, sizeof *d, 0); /* value, dumper */
    memset(d, 0, sizeof *d);
    luaL_setmetatable(L, DUMPER_MT);
    if (!yaml_emitter_initialize(&d->emitter))
        return luaL_error(L, "yaml.dump: not enough memory");
    d->emitter_ok = 1;
    yaml_emitter_set_output(&d->emitter, write_handler, &d->out);
    yaml_emitter_set_unicode(&d->emitter, 1);
    yaml_emitter_set_indent(&d->emitter, 2);
    yaml_emitter_set_width(&d->emitter, -1);
    emit(L, d, yaml_stream_start_event_initialize(&d->event, YAML_UTF8_ENCODING));
    emit(L, d, yaml_document_start_event_initialize(&d->event, NULL, NULL, NULL, 1));
    dump_node(L, d, 1);
    emit(L, d, yaml_document_end_event_initialize(&d->event, 1));
    emit(L, d, yaml_stream_end_event_initialize(&d->event));
    lua_pushlstring(L, d->out.p ? d->out.p : "", d->out.n);
    dumper_free(d);
    return 1;
}

static const luaL_Reg yaml_funcs[] = {
    {"load",      l_load     },
    {"load_all",  l_load_all },
    {"load_file", l_load_file},
    {"dump",      l_dump     },
    {"keys",      l_keys     },
    {"pairs",     l_pairs    },
    {"null",      NULL       },
    {NULL,        NULL       }
};

int luaopen_llmd_yaml(lua_State *L)
{
    luaL_newmetatable(L, LOADER_MT); /* mt */
    lua_pushcfunction(L, loader_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newmetatable(L, DUMPER_MT); /* mt */
    lua_pushcfunction(L, dumper_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newlib(L, yaml_funcs); /* module */
    lua_pushlightuserdata(L, NULL);
    lua_setfield(L, -2, "null");
    return 1;
}
