/*
** lhttp.c — llmd.http: request, get, post, stream (with server-sent events).
**
** Transport failures (no connection, timeout, TLS) raise with curl's message; an HTTP
** status is an outcome and comes back in the result. A Lua callback never runs with
** curl's frames below a longjmp: it runs under lua_pcall, and its error is raised
** after curl_easy_perform has returned.
*/
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CURL_DISABLE_TYPECHECK /* the calls below go through pointers */
#include <curl/curl.h>

#include "lauxlib.h"
#include "lua.h"

#include "modules.h"

/*
** libcurl is loaded when llmd.http is first required, not linked: linked, it and the
** thirty libraries it pulls in (TLS, Kerberos, LDAP, SSH...) cost about 6 ms at every
** start of llmdlua, HTTP or not, a twentieth of a whole 500 MB scan.
*/
#define LIBCURL "libcurl.so.4"
static struct {
    void *lib;
    CURLcode (*global_init)(long);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    curl_version_info_data *(*version_info)(CURLversion);
} curl_api;

/* The function name in lib, into *slot (a function pointer); 0 when lib has none. */
static int curl_sym(void *lib, const char *name, void *slot, const char **missing)
{
    void *f = dlsym(lib, name);
    if (f == NULL) {
        *missing = name;
        return 0;
    }
    memcpy(slot, &f, sizeof f); /* POSIX: a function's address from dlsym */
    return 1;
}

/* Loads libcurl once. NULL, or why it cannot be used. */
static const char *curl_load(void)
{
    static char why[300];
    if (curl_api.lib != NULL)
        return NULL;
    if (why[0] != '\0')
        return why;
    const char *name = getenv("LLMDLUA_LIBCURL"); /* another build of libcurl */
    if (name == NULL || name[0] == '\0')
        name = LIBCURL;
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *err = dlerror();
        (void)snprintf(why, sizeof why, "cannot load %s (%s)", name, err ? err : "no reason given");
        return why;
    }
    const char *missing = NULL;
    if (!curl_sym(lib, "curl_global_init", &curl_api.global_init, &missing) ||
        !curl_sym(lib, "curl_global_cleanup", &curl_api.global_cleanup, &missing) ||
        !curl_sym(lib, "curl_easy_init", &curl_api.easy_init, &missing) ||
        !curl_sym(lib, "curl_easy_cleanup", &curl_api.easy_cleanup, &missing) ||
        !curl_sym(lib, "curl_easy_setopt", &curl_api.easy_setopt, &missing) ||
        !curl_sym(lib, "curl_easy_getinfo", &curl_api.easy_getinfo, &missing) ||
        !curl_sym(lib, "curl_easy_perform", &curl_api.easy_perform, &missing) ||
        !curl_sym(lib, "curl_easy_strerror", &curl_api.easy_strerror, &missing) ||
        !curl_sym(lib, "curl_slist_append", &curl_api.slist_append, &missing) ||
        !curl_sym(lib, "curl_slist_free_all", &curl_api.slist_free_all, &missing) ||
        !curl_sym(lib, "curl_version_info", &curl_api.version_info, &missing)) {
        (void)snprintf(why, sizeof why, "%s has no %s", name, missing);
        dlclose(lib);
        return why;
    }
    curl_api.lib = lib;
    return NULL;
}

#undef curl_easy_setopt /* curl.h's own macros: three arguments, checked */
#undef curl_easy_getinfo
#define curl_global_init curl_api.global_init
#define curl_global_cleanup curl_api.global_cleanup
#define curl_easy_init curl_api.easy_init
#define curl_easy_cleanup curl_api.easy_cleanup
#define curl_easy_setopt curl_api.easy_setopt
#define curl_easy_getinfo curl_api.easy_getinfo
#define curl_easy_perform curl_api.easy_perform
#define curl_easy_strerror curl_api.easy_strerror
#define curl_slist_append curl_api.slist_append
#define curl_slist_free_all curl_api.slist_free_all

const char *llmd_curl_version(char *out, size_t size)
{
    const char *why = curl_load();
    if (why != NULL) {
        (void)snprintf(out, size, "not available: %s", why);
    } else {
        const curl_version_info_data *cv = curl_api.version_info(CURLVERSION_NOW);
        (void)snprintf(out, size, "%s (%s)", cv->version,
                       cv->ssl_version ? cv->ssl_version : "no TLS");
    }
    return out;
}

#define STATE_MT "llmd.http.state"
#define REQUEST_MT "llmd.http.request"

typedef struct Request {
    CURL *curl;
    struct curl_slist *headers;
    Strbuf body;    /* the response body (not for stream) */
    Strbuf hdrs;    /* the last response's header lines */
    Strbuf pending; /* stream: bytes of an unfinished SSE line */
    Strbuf data;    /* stream: the data lines of the event being read */
    Strbuf event, id;
    lua_State *L;
    int fn; /* stack index of the stream callback, 0 for none */
    int sse;
    int failed;  /* a callback raised; its error is at the top of the stack */
    int aborted; /* a callback returned false */
    int oom;
    char errbuf[CURL_ERROR_SIZE];
} Request;

static void request_free(Request *r)
{
    if (r->curl != NULL)
        curl_easy_cleanup(r->curl);
    r->curl = NULL;
    curl_slist_free_all(r->headers);
    r->headers = NULL;
    llmd_strbuf_free(&r->body);
    llmd_strbuf_free(&r->hdrs);
    llmd_strbuf_free(&r->pending);
    llmd_strbuf_free(&r->data);
    llmd_strbuf_free(&r->event);
    llmd_strbuf_free(&r->id);
}

static int request_gc(lua_State *L)
{
    request_free((Request *)luaL_checkudata(L, 1, REQUEST_MT));
    return 0;
}

static int state_gc(lua_State *L)
{
    (void)L;
    curl_global_cleanup();
    return 0;
}

/* Calls the stream callback with the value on top of the stack; 0 stops the transfer. */
static int deliver(Request *r)
{
    lua_State *L = r->L;
    lua_pushvalue(L, r->fn); /* value, fn */
    lua_insert(L, -2);       /* fn, value */
    if (llmd_pcall(L, 1, 1) != LUA_OK) {
        r->failed = 1;
        return 0;
    }
    int go_on = !(lua_isboolean(L, -1) && !lua_toboolean(L, -1));
    lua_pop(L, 1);
    if (!go_on)
        r->aborted = 1;
    return go_on;
}

/* One line of an event stream (without its end of line). 0 stops the transfer. */
static int sse_line(Request *r, const char *s, size_t n)
{
    lua_State *L = r->L;
    if (n == 0) { /* dispatch */
        int ok = 1;
        if (r->data.n > 0 || r->event.n > 0) {
            lua_createtable(L, 0, 3);
            size_t dn = r->data.n;
            if (dn > 0 && r->data.p[dn - 1] == '\n')
                dn--; /* the last data line's newline is not part of the data */
            lua_pushlstring(L, r->data.p ? r->data.p : "", dn);
            lua_setfield(L, -2, "data");
            lua_pushlstring(L, r->event.n ? r->event.p : "message", r->event.n ? r->event.n : 7);
            lua_setfield(L, -2, "event");
            if (r->id.n > 0) {
                lua_pushlstring(L, r->id.p, r->id.n);
                lua_setfield(L, -2, "id");
            }
            ok = deliver(r);
        }
        r->data.n = r->event.n = 0;
        return ok;
    }
    if (s[0] == ':')
        return 1; /* a comment */
    const char *colon = (const char *)memchr(s, ':', n);
    size_t fl = colon ? (size_t)(colon - s) : n;
    const char *v = colon ? colon + 1 : s + n;
    size_t vl = (size_t)(s + n - v);
    if (vl > 0 && v[0] == ' ')
        v++, vl--;
    int ok = 1;
    if (fl == 4 && memcmp(s, "data", 4) == 0)
        ok = llmd_strbuf_append(&r->data, v, vl) && llmd_strbuf_append(&r->data, "\n", 1);
    else if (fl == 5 && memcmp(s, "event", 5) == 0)
        ok = (r->event.n = 0, llmd_strbuf_append(&r->event, v, vl));
    else if (fl == 2 && memcmp(s, "id", 2) == 0)
        ok = (r->id.n = 0, llmd_strbuf_append(&r->id, v, vl));
    if (!ok)
        r->oom = 1;
    return ok;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
    Request *r = (Request *)ud;
    size_t n = size * nmemb;
    if (r->fn == 0) {
        if (!llmd_strbuf_append(&r->body, ptr, n)) {
            r->oom = 1;
            return 0;
        }
        return n;
    }
    if (!r->sse) {
        lua_pushlstring(r->L, ptr, n);
        return deliver(r) ? n : 0;
    }
    /* split into lines (LF, CRLF or CR) */
    const char *p = ptr, *end = ptr + n;
    while (p < end) {
        const char *q = p;
        while (q < end && *q != '\n' && *q != '\r')
            q++;
        if (q == end) {
            if (!llmd_strbuf_append(&r->pending, p, (size_t)(end - p))) {
                r->oom = 1;
                return 0;
            }
            break;
        }
        int ok;
        if (r->pending.n > 0) {
            ok = llmd_strbuf_append(&r->pending, p, (size_t)(q - p));
            ok = ok && sse_line(r, r->pending.p, r->pending.n);
            r->pending.n = 0;
        } else {
            ok = sse_line(r, p, (size_t)(q - p));
        }
        if (!ok)
            return 0;
        /* CRLF is one line end; a CR at the very end of a chunk may be followed by LF */
        if (*q == '\r' && q + 1 < end && q[1] == '\n')
            q++;
        p = q + 1;
    }
    return n;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *ud)
{
    Request *r = (Request *)ud;
    size_t n = size * nmemb;
    if (n >= 5 && memcmp(ptr, "HTTP/", 5) == 0)
        r->hdrs.n = 0; /* a new response (after a redirect or 100-continue) */
    if (!llmd_strbuf_append(&r->hdrs, ptr, n)) {
        r->oom = 1;
        return 0;
    }
    return n;
}

static int on_progress(void *ud, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    (void)ud, (void)a, (void)b, (void)c, (void)d;
    return llmd_interrupted != 0;
}

/* Pushes the headers of the last response: lower-case name -> value (repeats joined). */
static void push_headers(lua_State *L, const Strbuf *h)
{
    lua_newtable(L);
    const char *p = h->p, *end = h->p + h->n;
    while (p != NULL && p < end) {
        const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *colon = (const char *)memchr(p, ':', (size_t)(le - p));
        if (colon != NULL && colon > p && memcmp(p, "HTTP/", 5) != 0) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            for (const char *k = p; k < colon; k++)
                luaL_addchar(&b, (char)tolower((unsigned char)*k));
            luaL_pushresult(&b); /* t, name */
            const char *v = colon + 1, *ve = le;
            while (v < ve && (*v == ' ' || *v == '\t'))
                v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
                ve--;
            lua_pushvalue(L, -1);
            if (lua_rawget(L, -3) == LUA_TSTRING) { /* t, name, old */
                lua_pushliteral(L, ", ");
                lua_pushlstring(L, v, (size_t)(ve - v));
                lua_concat(L, 3); /* t, name, joined */
            } else {
                lua_pop(L, 1);
                lua_pushlstring(L, v, (size_t)(ve - v)); /* t, name, value */
            }
            lua_rawset(L, -3); /* t */
        }
        p = nl ? nl + 1 : end;
    }
}

static double opt_seconds(lua_State *L, int opts, const char *name)
{
    double v = 0;
    if (opts != 0 && lua_getfield(L, opts, name) != LUA_TNIL) {
        if (!lua_isnumber(L, -1) || lua_tonumber(L, -1) < 0)
            luaL_error(L, "http: %s must be a number of seconds >= 0", name);
        v = (double)lua_tonumber(L, -1);
    }
    if (opts != 0)
        lua_pop(L, 1);
    return v;
}

static int opt_bool(lua_State *L, int opts, const char *name, int dflt)
{
    int v = dflt;
    if (opts != 0 && lua_getfield(L, opts, name) != LUA_TNIL)
        v = lua_toboolean(L, -1);
    if (opts != 0)
        lua_pop(L, 1);
    return v;
}

/*
** Performs a request. url and method anchored by the caller; body at body_idx (or 0);
** opts table at opts (or 0); callback at fn (or 0). Pushes the result table.
*/
static int perform(lua_State *L, const char *method, const char *url, int body_idx, int opts,
                   int fn)
{
    Request *r = (Request *)lua_newuserdatauv(L, sizeof *r, 0); /* request */
    memset(r, 0, sizeof *r);
    luaL_setmetatable(L, REQUEST_MT);
    r->L = L;
    r->fn = fn;
    r->curl = curl_easy_init();
    if (r->curl == NULL)
        return luaL_error(L, "http %s %s: cannot initialise curl", method, url);
    CURL *c = r->curl;

    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "llmdlua/" LLMDLUA_VERSION);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    if (strcmp(method, "GET") != 0)
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (body_idx != 0 && !lua_isnil(L, body_idx)) {
        size_t n;
        const char *b = luaL_checklstring(L, body_idx, &n);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, b);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
    }

    double timeout = opt_seconds(L, opts, "timeout");
    double connect = opt_seconds(L, opts, "connect_timeout");
    if (timeout > 0)
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(timeout * 1000));
    if (connect > 0)
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(connect * 1000));
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, (long)opt_bool(L, opts, "follow", 0));
    if (opt_bool(L, opts, "insecure", 0)) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    r->sse = fn != 0 && opt_bool(L, opts, "sse", 0);
    if (opts != 0) {
        if (lua_getfield(L, opts, "ca_file") == LUA_TSTRING)
            curl_easy_setopt(c, CURLOPT_CAINFO, lua_tostring(L, -1)); /* curl copies it */
        lua_pop(L, 1);
        if (lua_getfield(L, opts, "headers") == LUA_TTABLE) { /* headers */
            lua_pushnil(L);
            while (lua_next(L, -2) != 0) { /* headers, k, v */
                if (lua_type(L, -2) == LUA_TSTRING)
                    lua_pushfstring(L, "%s: %s", lua_tostring(L, -2), luaL_checkstring(L, -1));
                else
                    lua_pushvalue(L, -1); /* a list of "Name: value" */
                struct curl_slist *h = curl_slist_append(r->headers, luaL_checkstring(L, -1));
                if (h == NULL)
                    return luaL_error(L, "http: not enough memory");
                r->headers = h;
                lua_pop(L, 2); /* headers, k */
            }
            curl_easy_setopt(c, CURLOPT_HTTPHEADER, r->headers);
        }
        lua_pop(L, 1);
    }

    CURLcode rc = curl_easy_perform(c);
    if (r->failed)
        return lua_error(L); /* the callback's error */
    if (r->oom)
        return luaL_error(L, "http %s %s: not enough memory", method, url);
    if (rc == CURLE_ABORTED_BY_CALLBACK && llmd_interrupted) {
        (void)llmd_interrupt_pending(L); /* this error is the signal's: not raised twice */
        return luaL_error(L, "interrupted");
    }
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && r->aborted)) {
        if (rc == CURLE_OPERATION_TIMEDOUT)
            return luaL_error(L, "http %s %s: timed out (%s)", method, url, r->errbuf);
        return luaL_error(L, "http %s %s: %s%s%s%s", method, url, curl_easy_strerror(rc),
                          r->errbuf[0] ? " (" : "", r->errbuf, r->errbuf[0] ? ")" : "");
    }
    if (r->sse && r->pending.n > 0) { /* a last line without an end of line */
        sse_line(r, r->pending.p, r->pending.n);
        if (r->failed)
            return lua_error(L);
    }

    long status = 0;
    double total = 0;
    char *eff = NULL;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &total);
    curl_easy_getinfo(c, CURLINFO_EFFECTIVE_URL, &eff);
    lua_createtable(L, 0, 6); /* request, result */
    lua_pushinteger(L, status);
    lua_setfield(L, -2, "status");
    if (fn == 0) {
        lua_pushlstring(L, r->body.p ? r->body.p : "", r->body.n);
        lua_setfield(L, -2, "body");
    } else {
        lua_pushboolean(L, r->aborted);
        lua_setfield(L, -2, "aborted");
    }
    push_headers(L, &r->hdrs);
    lua_setfield(L, -2, "headers");
    lua_pushnumber(L, total);
    lua_setfield(L, -2, "elapsed");
    lua_pushstring(L, eff ? eff : url);
    lua_setfield(L, -2, "url");
    request_free(r);
    return 1;
}

static const char *const HTTP_OPTS[] = {"headers",  "timeout", "connect_timeout", "follow",
                                        "insecure", "ca_file", "method",          NULL};
static const char *const STREAM_OPTS[] = {"headers",  "timeout", "connect_timeout", "follow",
                                          "insecure", "ca_file", "method",          "body",
                                          "sse",      NULL};
static const char *const REQUEST_OPTS[] = {
    "url",    "body",     "headers", "timeout", "connect_timeout",
    "follow", "insecure", "ca_file", "method",  NULL};

static int opts_index(lua_State *L, int idx, const char *fn, const char *const keys[])
{
    if (lua_isnoneornil(L, idx))
        return 0;
    luaL_checktype(L, idx, LUA_TTABLE);
    llmd_check_keys(L, idx, fn, keys, 0);
    return idx;
}

static const char *method_of(lua_State *L, int opts, const char *dflt)
{
    const char *m = dflt;
    if (opts != 0 && lua_getfield(L, opts, "method") == LUA_TSTRING)
        m = lua_tostring(L, -1); /* anchored in opts */
    if (opts != 0)
        lua_pop(L, 1);
    return m;
}

/* http.get(url [, opts]) -> {status=, body=, headers=, elapsed=, url=} */
static int l_get(lua_State *L)
{
    const char *url = luaL_checkstring(L, 1);
    int opts = opts_index(L, 2, "http.get", HTTP_OPTS);
    lua_settop(L, 2);
    return perform(L, method_of(L, opts, "GET"), url, 0, opts, 0);
}

/* http.post(url, body [, opts]) */
static int l_post(lua_State *L)
{
    const char *url = luaL_checkstring(L, 1);
    luaL_checkstring(L, 2);
    int opts = opts_index(L, 3, "http.post", HTTP_OPTS);
    lua_settop(L, 3);
    return perform(L, method_of(L, opts, "POST"), url, 2, opts, 0);
}

/* http.request{url =, method =, body =, headers =, timeout =, ...} */
static int l_request(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    llmd_check_keys(L, 1, "http.request", REQUEST_OPTS, 0);
    lua_settop(L, 1);
    lua_getfield(L, 1, "url"); /* opts, url */
    const char *url = lua_tostring(L, 2);
    if (url == NULL)
        return luaL_error(L, "http.request: 'url' is missing");
    lua_getfield(L, 1, "body"); /* opts, url, body */
    return perform(L, method_of(L, 1, lua_isnil(L, 3) ? "GET" : "POST"), url, 3, 1, 0);
}

/*
** http.stream(url, opts, fn) -> {status=, headers=, elapsed=, aborted=}
** fn(chunk) for each chunk of the body, or fn{event=, data=, id=} per server-sent
** event with opts.sse = true. Returning false from fn stops the transfer.
*/
static int l_stream(lua_State *L)
{
    const char *url = luaL_checkstring(L, 1);
    int opts = opts_index(L, 2, "http.stream", STREAM_OPTS);
    luaL_checktype(L, 3, LUA_TFUNCTION);
    lua_settop(L, 3);
    if (opts != 0)
        lua_getfield(L, opts, "body"); /* url, opts, fn, body */
    else
        lua_pushnil(L);
    return perform(L, method_of(L, opts, lua_isnil(L, 4) ? "GET" : "POST"), url, 4, opts, 3);
}

static const luaL_Reg http_funcs[] = {
    {"get",     l_get    },
    {"post",    l_post   },
    {"request", l_request},
    {"stream",  l_stream },
    {NULL,      NULL     }
};

int luaopen_llmd_http(lua_State *L)
{
    const char *why = curl_load();
    if (why != NULL)
        return luaL_error(L,
                          "llmd.http: %s: install Debian's libcurl4 (scripts/install-deps.sh), "
                          "or name another libcurl in LLMDLUA_LIBCURL",
                          why);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return luaL_error(L, "llmd.http: cannot initialise libcurl");
    /* curl's global state lives as long as the module: cleaned up by this userdata */
    lua_newuserdatauv(L, 1, 0); /* state */
    luaL_newmetatable(L, STATE_MT);
    lua_pushcfunction(L, state_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, STATE_MT);
    luaL_newmetatable(L, REQUEST_MT); /* mt */
    lua_pushcfunction(L, request_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newlib(L, http_funcs);
    return 1;
}
