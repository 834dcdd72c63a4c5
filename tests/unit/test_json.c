/*
** test_json.c — the JSON pull parser: tokens, numbers, strings, errors and their
** positions, streaming windows.
**
** Expected numbers come from Python: json.loads(text) for values and
** float.hex(...) / repr(...) for the exact doubles; positions are counted by hand
** (1-based line and column).
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "testhelp.h"

/* Runs the parser over text (whole) and returns the last token (END or ERROR). */
static JsonTok run_all(JsonParser *p, const char *text)
{
    json_parser_init(p);
    json_feed(p, text, strlen(text), 1);
    JsonTok t;
    while ((t = json_next(p)) > JSON_END)
        ;
    return t;
}

/* Expects an error with this message prefix at line:col. */
static int error_is(const char *text, const char *msg, int line, int col)
{
    JsonParser p;
    JsonTok t = run_all(&p, text);
    int ok = t == JSON_ERROR && strncmp(p.err, msg, strlen(msg)) == 0 &&
             p.err_line == (uint64_t)line && p.err_col == (uint64_t)col;
    if (!ok)
        fprintf(stderr, "  for %s: got tok %d \"%s\" at %d:%d\n", text, (int)t, p.err,
                (int)p.err_line, (int)p.err_col);
    json_parser_free(&p);
    return ok;
}

/* The current number token as an integer: 1 when it is one and equals want. */
static int int_is(JsonParser *p, int64_t want)
{
    int64_t i;
    double d;
    return json_num(p, &i, &d) == 1 && i == want;
}

/* The current number token as a float: 1 when it is one and equals want exactly. */
static int float_is(JsonParser *p, double want)
{
    int64_t i;
    double d;
    return json_num(p, &i, &d) == 0 && (d == want || (isnan(d) && isnan(want)));
}

/* The decoded current string token equals want[0..n). */
static int str_is(JsonParser *p, const char *want, size_t n)
{
    size_t len;
    const char *s = json_str(p, &len);
    return s != NULL && len == n && memcmp(s, want, n) == 0;
}

/* The first value token of text; p must have been initialised (its scratch is reused). */
static JsonTok first(JsonParser *p, const char *text)
{
    json_parser_free(p);
    json_parser_init(p);
    json_feed(p, text, strlen(text), 1);
    return json_next(p);
}

/*
** A naive reference for a JSON string literal's body (after the opening quote): decodes
** simple escapes and \u00XX (the only \u the generator writes), rejects anything else.
** Returns the decoded length, or -1 when the literal is invalid.
*/
static long naive_decode(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"')
            return i == n - 1 ? (long)o : -1; /* the closing quote must end the input */
        if (c < 0x20)
            return -1;
        if (c != '\\') {
            out[o++] = (char)c;
            continue;
        }
        if (++i >= n)
            return -1;
        switch (s[i]) {
        case '"':
            out[o++] = '"';
            break;
        case '\\':
            out[o++] = '\\';
            break;
        case '/':
            out[o++] = '/';
            break;
        case 'b':
            out[o++] = '\b';
            break;
        case 'f':
            out[o++] = '\f';
            break;
        case 'n':
            out[o++] = '\n';
            break;
        case 'r':
            out[o++] = '\r';
            break;
        case 't':
            out[o++] = '\t';
            break;
        case 'u':
            if (i + 4 >= n || strncmp(s + i + 1, "00e9", 4) != 0)
                return -1;
            out[o++] = (char)0xC3;
            out[o++] = (char)0xA9;
            i += 4;
            break;
        default:
            return -1;
        }
    }
    return -1; /* no closing quote */
}

/* Random escape-dense string literals: the scanner's verdict and decoding agree with
   naive_decode. Returns how many disagreed. */
static int escape_dense_agree(void)
{
    static const char *const pieces[] = {
        "a",        "bc",       "\\\"",          "\\\\", "\\n", "\\t",  "\\/", "\\u00e9",
        "\xc3\xa9", "\\\\\\\"", "xyz0123456789", " ",    "\\x", "\x01", "\"",  "\\"};
    uint64_t st = 12345;
    char lit[2048], want[2048];
    int bad = 0;
    for (int k = 0; k < 200000; k++) {
        size_t n = 0;
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        /* shift the literal across 16- and 64-byte block edges */
        size_t pad = k % 2 ? st % 19 : st % 71;
        lit[n++] = '[';
        for (size_t q = 0; q < pad; q++)
            lit[n++] = ' ';
        lit[n++] = '"';
        size_t body = n;
        /* long ones too: backslash runs that cross the scanner's 64-byte blocks */
        int count = 1 + (int)((st >> 8) % (k % 3 ? 24 : 90));
        for (int j = 0; j < count; j++) {
            st ^= st << 13, st ^= st >> 7, st ^= st << 17;
            /* mostly valid pieces; the last four (invalid) only now and then */
            size_t pi = (st >> 20) % 100 < 97 ? (st >> 30) % 12 : 12 + (st >> 30) % 4;
            size_t len = strlen(pieces[pi]);
            memcpy(lit + n, pieces[pi], len);
            n += len;
        }
        lit[n++] = '"';
        long wl = naive_decode(lit + body, n - body, want);
        lit[n++] = ']';
        JsonParser q;
        json_parser_init(&q);
        json_feed(&q, lit, n, 1);
        JsonTok t = json_next(&q);
        if (t == JSON_ARR_BEGIN)
            t = json_next(&q);
        if (t == JSON_STRING)
            t = json_next(&q) == JSON_ARR_END && json_next(&q) == JSON_END ? JSON_STRING
                                                                           : JSON_ERROR;
        int ok = wl >= 0 ? t == JSON_STRING : t == JSON_ERROR;
        if (ok && wl >= 0) {
            /* decode again: the verdict above consumed the token */
            json_parser_free(&q);
            json_parser_init(&q);
            json_feed(&q, lit, n, 1);
            json_next(&q);
            json_next(&q);
            size_t gl;
            const char *got = json_str(&q, &gl);
            ok = got != NULL && gl == (size_t)wl && memcmp(got, want, gl) == 0;
        }
        if (!ok && bad++ < 5)
            fprintf(stderr, "  literal %.*s: want %s\n", (int)n, lit,
                    wl >= 0 ? "valid" : "an error");
        json_parser_free(&q);
    }
    return bad;
}

/* ---- duplicate keys: random documents against a naive check ---- */

typedef struct DupGen {
    char buf[1 << 16];
    size_t n;
    uint64_t rnd;
    long first_dup; /* offset of the first key repeating one of its object's, or -1 */
    long first_at;  /* and of the key it repeats */
} DupGen;

static unsigned dup_rand(DupGen *g, unsigned m)
{
    g->rnd = g->rnd * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(g->rnd >> 33) % m;
}

static void dup_put(DupGen *g, const char *s)
{
    size_t k = strlen(s);
    if (g->n + k < sizeof g->buf)
        memcpy(g->buf + g->n, s, k), g->n += k;
}

/* A value at depth d: objects draw names from a small set (plain or with \u escapes:
   "a" and "\u0061" are one name), some with many members (the hash table's path). */
static void dup_value(DupGen *g, int d)
{
    unsigned kind = d > 4 ? 0 : dup_rand(g, 4);
    if (kind == 0) {
        dup_put(g, dup_rand(g, 2) ? "1" : "\"s\"");
    } else if (kind == 1) {
        dup_put(g, "[");
        unsigned n = dup_rand(g, 4);
        for (unsigned i = 0; i < n; i++) {
            if (i)
                dup_put(g, ",");
            dup_value(g, d + 1);
        }
        dup_put(g, "]");
    } else {
        int big = dup_rand(g, 8) == 0;
        unsigned names = big ? 200 : 6, n = big ? 20 + dup_rand(g, 60) : dup_rand(g, 5);
        unsigned seen[80];
        long seen_at[80];
        dup_put(g, "{");
        for (unsigned i = 0; i < n; i++) {
            if (i)
                dup_put(g, ", ");
            unsigned name = dup_rand(g, names);
            for (unsigned j = 0; j < i; j++)
                if (seen[j] == name && g->first_dup < 0) {
                    g->first_dup = (long)g->n;
                    g->first_at = seen_at[j];
                }
            seen[i] = name;
            seen_at[i] = (long)g->n;
            char key[32];
            if (dup_rand(g, 3) == 0) /* the first letter escaped */
                snprintf(key, sizeof key, "\"\\u%04x%u\":", 'k', name);
            else
                snprintf(key, sizeof key, "\"k%u\":", name);
            dup_put(g, key);
            dup_value(g, d + 1);
        }
        dup_put(g, "}");
    }
}

/* ---- arrays of numbers passed over by json_skip: random documents ---- */

typedef struct SkipOutcome {
    JsonTok t;
    uint64_t off, line, col;
    char err[160];
} SkipOutcome;

/* Reads doc[0..n) to its end: token by token (way 0), or with json_skip over the outer
   array after its '[' (way 1), or json_skip fed windows of 5 bytes (way 2). */
static void skip_run(const char *doc, size_t n, int way, SkipOutcome *o)
{
    JsonParser p;
    json_parser_init(&p);
    size_t consumed = 0, end = way == 2 ? 0 : n;
    int skipping = 0;
    JsonTok t;
    for (;;) {
        if (way == 2)
            end = end + 5 < n ? end + 5 : n;
        p.base = consumed;
        json_feed(&p, doc + consumed, end - consumed, end == n);
        for (;;) {
            if (skipping == 1) {
                t = json_skip(&p, 1);
                if (t == JSON_ARR_END && p.depth == 0)
                    skipping = 2;
            } else {
                t = json_next(&p);
                if (t == JSON_ARR_BEGIN && way > 0 && skipping == 0 && p.depth == 1)
                    skipping = 1;
            }
            if (t <= JSON_END)
                break;
        }
        if (t != JSON_MORE)
            break;
        consumed += p.pos;
    }
    o->t = t;
    o->off = p.err_off;
    o->line = p.err_line;
    o->col = p.err_col;
    snprintf(o->err, sizeof o->err, "%s", t == JSON_ERROR ? p.err : "");
    json_parser_free(&p);
}

/*
** Records: arrays of objects repeating one key layout per depth (as result files do), so
** that the parser's layout cache is exercised: most records follow it, some stop early,
** go on past it, swap a key for another name (one of the layout's or not), or repeat a
** key (first, last, anywhere), with nested records in values. lay[d][0..nlay[d]) is the
** layout at depth d.
*/
static void dup_record(DupGen *g, int d, const unsigned lay[4][12], const unsigned *nlay)
{
    unsigned names[40], n = nlay[d];
    for (unsigned i = 0; i < n; i++)
        names[i] = lay[d][i];
    unsigned what = dup_rand(g, 120);
    if (what == 0 && n > 0) /* a prefix */
        n = dup_rand(g, n);
    else if (what == 1) /* longer: more keys, names of the layout's or new ones */
        for (unsigned extra = 1 + dup_rand(g, 4); extra > 0 && n < 30; extra--)
            names[n++] = dup_rand(g, 3) ? 50 + dup_rand(g, 40) : lay[d][dup_rand(g, nlay[d])];
    else if (what == 2 && n > 0) /* a key swapped for another name */
        names[dup_rand(g, n)] = dup_rand(g, 2) ? 90 + dup_rand(g, 5) : lay[d][dup_rand(g, nlay[d])];
    else if (what == 3 && n > 0 && n < 30) { /* a key repeated: first, last or anywhere */
        unsigned at = dup_rand(g, 3) == 0 ? n : 1 + dup_rand(g, n);
        unsigned from = dup_rand(g, 3) == 0 ? 0 : dup_rand(g, at);
        for (unsigned i = n; i > at; i--)
            names[i] = names[i - 1];
        names[at] = names[from];
        n++;
    } else if (what == 4 && n > 1) { /* two keys swapped: the layout left, no repeat */
        unsigned a = dup_rand(g, n), b = dup_rand(g, n), t = names[a];
        names[a] = names[b];
        names[b] = t;
    }
    long at[40];
    dup_put(g, "{");
    for (unsigned i = 0; i < n; i++) {
        if (i)
            dup_put(g, ", ");
        at[i] = (long)g->n;
        for (unsigned j = 0; j < i; j++)
            if (names[j] == names[i] && g->first_dup < 0) {
                g->first_dup = (long)g->n;
                g->first_at = at[j];
            }
        /* names short and long, alike but at their start or their end (every way names
           are compared) */
        char name[40], key[64];
        unsigned nm = names[i];
        if (nm % 7 == 5)
            snprintf(name, sizeof name, "key%u", nm);
        else if (nm % 7 == 6)
            snprintf(name, sizeof name, "%u_key", nm);
        else if (nm % 4 == 0)
            snprintf(name, sizeof name, "k%u", nm);
        else if (nm % 4 == 1)
            snprintf(name, sizeof name, "response_%u", nm);
        else if (nm % 4 == 2)
            snprintf(name, sizeof name, "%u_metric_name", nm);
        else
            snprintf(name, sizeof name, "a_much_longer_key_name_%u", nm);
        if (dup_rand(g, 6) == 0) /* the first letter escaped: the same name */
            snprintf(key, sizeof key, "\"\\u%04x%s\":", name[0], name + 1);
        else
            snprintf(key, sizeof key, "\"%s\":", name);
        dup_put(g, key);
        if (d < 3 && dup_rand(g, 8) == 0) { /* a nested record, or an array of them */
            if (dup_rand(g, 2)) {
                dup_record(g, d + 1, lay, nlay);
            } else {
                dup_put(g, "[");
                for (unsigned k = dup_rand(g, 4); k > 0; k--) {
                    dup_record(g, d + 1, lay, nlay);
                    if (k > 1)
                        dup_put(g, ",");
                }
                dup_put(g, "]");
            }
        } else {
            dup_put(g, dup_rand(g, 2) ? "1.5" : "\"v\"");
        }
    }
    dup_put(g, "}");
}

/* "d.ddde[+-]X" (printf's %e) as a plain decimal into out ("ddd.ddd", "0.000ddd" or
   "ddd000"), written by hand from its digits and exponent. */
static void plain_from_e(const char *e, char *out)
{
    char digits[64];
    size_t nd = 0, o = 0;
    if (*e == '-')
        out[o++] = *e++;
    for (; *e != 'e' && *e != 'E'; e++)
        if (*e != '.')
            digits[nd++] = *e;
    long x = strtol(e + 1, NULL, 10); /* the first digit's weight is 10^x */
    if (x < 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (long z = 0; z < -x - 1; z++)
            out[o++] = '0';
        memcpy(out + o, digits, nd);
        o += nd;
    } else {
        for (size_t d = 0; d < nd || d <= (size_t)x; d++) {
            if (d == (size_t)x + 1)
                out[o++] = '.';
            out[o++] = d < nd ? digits[d] : '0';
        }
    }
    out[o] = '\0';
}

/* m 10^-k as a plain decimal into out, by hand: m's digits with a point k from the end. */
static void plain_from_int(uint64_t m, int k, char *out)
{
    char digits[32];
    int nd = sprintf(digits, "%llu", (unsigned long long)m), o = 0;
    if (k >= nd) {
        out[o++] = '0';
        out[o++] = '.';
        for (int z = 0; z < k - nd; z++)
            out[o++] = '0';
        o += sprintf(out + o, "%s", digits);
    } else {
        memcpy(out, digits, (size_t)(nd - k));
        o = nd - k;
        if (k > 0)
            o += sprintf(out + o, ".%s", digits + nd - k);
    }
    out[o] = '\0';
}

/* 1 when json_number_in reads t with 64 bytes readable (the lane's reach) as strtod does;
   else prints it (the first few times: *bad counts). */
static int lane_agrees(const char *t, long *bad)
{
    char buf[64];
    size_t n = strlen(t);
    memset(buf, ',', sizeof buf);
    memcpy(buf, t, n);
    double want = strtod(t, NULL), got = -1;
    if (json_number_in(buf, n, sizeof buf, &got) == 1 && memcmp(&got, &want, sizeof got) == 0)
        return 1;
    if ((*bad)++ < 5)
        fprintf(stderr, "  %s: json_number_in(%s) = %a, strtod %a\n", json_simd(NULL), t, got,
                want);
    return 0;
}

/*
** A random JSON number into out (NUL-terminated), returning its length: ilen integer
** digits (the first 1..9, or any digit when ilen is 1), a point and flen fraction digits
** when flen > 0, the first z of them zeros; '-' first when neg; with ex, an exponent
** ("e-7", "E+12", "e0"...) after.
*/
static size_t decimal_text(uint64_t *rs, char *out, unsigned ilen, unsigned flen, unsigned z,
                           int neg, int ex)
{
    size_t n = 0;
    if (neg)
        out[n++] = '-';
    for (unsigned d = 0; d < ilen; d++)
        out[n++] = (char)('0' + (d == 0 && ilen > 1 ? 1 + test_rnd(rs, 9) : test_rnd(rs, 10)));
    if (flen > 0) {
        out[n++] = '.';
        for (unsigned d = 0; d < flen; d++)
            out[n++] = (char)('0' + (d < z ? 0 : test_rnd(rs, 10)));
    }
    if (ex) {
        static const char *const form[] = {"e", "E", "e-", "E+", "e+", "E-"};
        n += (size_t)sprintf(out + n, "%s%u", form[test_rnd(rs, 6)], test_rnd(rs, 40));
    }
    out[n] = '\0';
    return n;
}

/* The double json_next_numbers and json_num give for number text t: strtod's, but +0 for
   an integer zero (json_num reads "-0" as the integer 0). */
static double lane_value(const char *t)
{
    double d = strtod(t, NULL);
    return d == 0 && strpbrk(t, ".eE") == NULL ? 0.0 : d;
}

/*
** Reads the array of numbers doc[0..len) with json_next and json_next_numbers (max at a
** time), whole (step 0) or through windows that end 1..step bytes further each time,
** each copied into a heap buffer of exactly its size (ASan sees any read past a
** window). Stores the numbers into got (at most cap) and returns how many, or -1 when
** the document does not end cleanly.
*/
static long numbers_through_windows(const char *doc, size_t len, size_t step, size_t max,
                                    uint64_t *rs, double *got, size_t cap)
{
    JsonParser p;
    json_parser_init(&p);
    size_t consumed = 0, end = 0, k = 0;
    char *win = NULL;
    long result = -1;
    for (;;) {
        end = step == 0 ? len : end + 1 + test_rnd(rs, (unsigned)step);
        if (end > len)
            end = len;
        free(win);
        win = malloc(end - consumed + 1);
        memcpy(win, doc + consumed, end - consumed);
        p.base = consumed;
        json_feed(&p, win, end - consumed, end == len);
        JsonTok t;
        while ((t = json_next(&p)) > JSON_END) {
            if (t != JSON_NUMBER)
                continue;
            int64_t iv;
            double dv;
            if (k < cap)
                got[k++] = json_num(&p, &iv, &dv) ? (double)iv : dv;
            size_t m;
            while (k + max <= cap && (m = json_next_numbers(&p, got + k, max)) > 0)
                k += m;
        }
        if (t == JSON_END)
            result = (long)k;
        if (t == JSON_END || t == JSON_ERROR)
            break;
        consumed += p.pos;
    }
    free(win);
    json_parser_free(&p);
    return result;
}

/*
** As numbers_through_windows, and checks where the parser says the last number read
** starts (tok_off, which an error about it names) after each token and each batch of
** json_next_numbers: *wrong_at counts those that are not starts[k - 1], the start of
** the last number stored, nor (a batch that stopped at the window's end waiting for the
** next value) a place after it up to starts[k], where that value is awaited.
*/
static long numbers_and_starts(const char *doc, size_t len, size_t step, size_t max, uint64_t *rs,
                               double *got, size_t cap, const size_t *starts, size_t *wrong_at)
{
    JsonParser p;
    json_parser_init(&p);
    size_t consumed = 0, end = 0, k = 0;
    char *win = NULL;
    long result = -1;
    for (;;) {
        end = step == 0 ? len : end + 1 + test_rnd(rs, (unsigned)step);
        if (end > len)
            end = len;
        free(win);
        win = malloc(end - consumed + 1);
        memcpy(win, doc + consumed, end - consumed);
        p.base = consumed;
        json_feed(&p, win, end - consumed, end == len);
        JsonTok t;
        while ((t = json_next(&p)) > JSON_END) {
            if (t != JSON_NUMBER)
                continue;
            int64_t iv;
            double dv;
            if (k < cap)
                got[k++] = json_num(&p, &iv, &dv) ? (double)iv : dv;
            *wrong_at += p.tok_off != starts[k - 1];
            size_t m;
            while (k + max <= cap && (m = json_next_numbers(&p, got + k, max)) > 0) {
                k += m;
                *wrong_at += p.tok_off != starts[k - 1] &&
                             (k >= cap || p.tok_off <= starts[k - 1] || p.tok_off > starts[k]);
            }
        }
        if (t == JSON_END)
            result = (long)k;
        if (t == JSON_END || t == JSON_ERROR)
            break;
        consumed += p.pos;
    }
    free(win);
    json_parser_free(&p);
    return result;
}

/*
** As skip_run's way 1 (json_skip over the outer array after its '['), through windows
** that end 1..step bytes further each time (step 0: whole), each copied into a heap
** buffer of exactly its size (ASan sees any read past a window).
*/
static void skip_through_windows(const char *doc, size_t n, size_t step, uint64_t *rs,
                                 SkipOutcome *o)
{
    JsonParser p;
    json_parser_init(&p);
    size_t consumed = 0, end = 0;
    int skipping = 0;
    char *win = NULL;
    JsonTok t;
    for (;;) {
        end = step == 0 ? n : end + 1 + test_rnd(rs, (unsigned)step);
        if (end > n)
            end = n;
        free(win);
        win = malloc(end - consumed + 1);
        memcpy(win, doc + consumed, end - consumed);
        p.base = consumed;
        json_feed(&p, win, end - consumed, end == n);
        for (;;) {
            if (skipping == 1) {
                t = json_skip(&p, 1);
                if (t == JSON_ARR_END && p.depth == 0)
                    skipping = 2;
            } else {
                t = json_next(&p);
                if (t == JSON_ARR_BEGIN && skipping == 0 && p.depth == 1)
                    skipping = 1;
            }
            if (t <= JSON_END)
                break;
        }
        if (t != JSON_MORE)
            break;
        consumed += p.pos;
    }
    free(win);
    o->t = t;
    o->off = p.err_off;
    o->line = p.err_line;
    o->col = p.err_col;
    snprintf(o->err, sizeof o->err, "%s", t == JSON_ERROR ? p.err : "");
    json_parser_free(&p);
}

/* The instruction sets json_simd can choose, best first ("portable": none). */
static const char *const simd_sets[] = {"avx512", "avx2", "sse2", "portable"};
enum { N_SIMD_SETS = sizeof simd_sets / sizeof simd_sets[0] };

/*
** Reads the array doc[0..len) (in a heap buffer of exactly len bytes) whole: with skip,
** passed over as the scanner passes over an array no rule reads (lazy, json_skip);
** else with json_next and json_next_numbers (max at a time), its numbers into got (at
** most cap). Returns how many numbers were read (0 with skip) and JSON_END, or -1 with
** the error ("line:col (offset): message") in err.
*/
static long numbers_or_error(const char *doc, size_t len, int skip, size_t max, double *got,
                             size_t cap, char *err, size_t errsize)
{
    JsonParser p;
    json_parser_init(&p);
    char *buf = malloc(len);
    memcpy(buf, doc, len);
    json_feed(&p, buf, len, 1);
    size_t k = 0;
    JsonTok t;
    if (skip) {
        p.lazy = 1;
        t = json_next(&p);
        if (t == JSON_ARR_BEGIN)
            t = json_skip(&p, 1);
        while (t > JSON_END)
            t = json_next(&p);
    } else {
        while ((t = json_next(&p)) > JSON_END) {
            if (t != JSON_NUMBER)
                continue;
            int64_t iv;
            double dv;
            if (k < cap)
                got[k++] = json_num(&p, &iv, &dv) ? (double)iv : dv;
            size_t m;
            while (k + max <= cap && (m = json_next_numbers(&p, got + k, max)) > 0)
                k += m;
        }
    }
    long result = (long)k;
    err[0] = '\0';
    if (t != JSON_END) {
        snprintf(err, errsize, "%llu:%llu (%llu): %s", (unsigned long long)p.err_line,
                 (unsigned long long)p.err_col, (unsigned long long)p.err_off, p.err);
        result = -1;
    }
    free(buf);
    json_parser_free(&p);
    return result;
}

/*
** doc passed over as the scanner passes over what no rule reads (lazy: json_skip through
** each container, or json_skip_members through each object with members), fed window
** bytes at a time (0: whole) from a heap buffer of exactly its length: the offset of the
** error, its message in err, or -1 when there is none.
*/
static long long skip_error(const char *doc, size_t window, int members, char *err, size_t errsize)
{
    size_t size = strlen(doc);
    char *data = malloc(size);
    memcpy(data, doc, size);
    JsonParser p;
    json_parser_init(&p);
    p.lazy = 1;
    static const JsonKeys none = {0, {NULL}, {0}, 0};
    size_t consumed = 0, end = window && window < size ? window : size;
    int depth = 0, obj = 0; /* the container being passed over (its contents' depth) */
    JsonTok t;
    for (;;) {
        p.base = consumed;
        json_feed(&p, data + consumed, end - consumed, end == size);
        for (;;) {
            if (depth > 0) {
                t = obj && members ? json_skip_members(&p, depth, &none) : json_skip(&p, depth);
                if (t == JSON_OBJ_END || t == JSON_ARR_END) {
                    depth = 0;
                    continue;
                }
            } else {
                t = json_next(&p);
                if (t == JSON_ARR_BEGIN || t == JSON_OBJ_BEGIN) {
                    depth = p.depth;
                    obj = t == JSON_OBJ_BEGIN;
                    continue;
                }
            }
            if (t <= JSON_END)
                break;
        }
        if (t != JSON_MORE)
            break;
        consumed += p.pos;
        end = end + (window ? window : 1) < size ? end + (window ? window : 1) : size;
    }
    long long off = -1;
    err[0] = '\0';
    if (t == JSON_ERROR) {
        off = (long long)p.err_off;
        snprintf(err, errsize, "%s", p.err);
    }
    json_parser_free(&p);
    free(data);
    return off;
}

/*
** A random number in one of the shapes json_next_numbers' lanes take or just miss into
** out, returning its length: "0.0ddd" with 1..23 digits after the point (the lane: up
** to 20), "0.ddd", 1..17 integer digits with 0..21 after a point, or none; or a
** neighbour of a random double, or the midpoint between two (near and exactly halfway
** cases), written out in full with 15..19 significant digits.
*/
static size_t lane_number(uint64_t *rs, char *out)
{
    unsigned kind = test_rnd(rs, 6);
    if (kind == 0) { /* "0.0ddd": leading zeros after the point, then any digits */
        unsigned flen = 1 + test_rnd(rs, 23), z = 1 + test_rnd(rs, flen);
        return decimal_text(rs, out, 1, flen, z, 0, 0);
    }
    if (kind == 1) { /* "0.ddd" */
        size_t n = decimal_text(rs, out, 1, 1 + test_rnd(rs, 21), 0, 0, 0);
        out[0] = '0';
        return n;
    }
    if (kind <= 3) { /* ddd, ddd.ddd */
        unsigned ilen = 1 + test_rnd(rs, 17), flen = test_rnd(rs, 3) == 0 ? 0 : test_rnd(rs, 22);
        return decimal_text(rs, out, ilen, flen, 0, 0, 0);
    }
    /* a double from 2^-14 to 2^53 (the exponent field 1009..1075), or a midpoint */
    uint64_t bitsv = ((uint64_t)test_rnd(rs, 1u << 26) << 26 | test_rnd(rs, 1u << 26)) |
                     (uint64_t)(1009 + test_rnd(rs, 67)) << 52;
    double d;
    memcpy(&d, &bitsv, sizeof d);
    char e[64];
    int digits = 15 + (int)test_rnd(rs, 5);
    if (kind == 4) {
        snprintf(e, sizeof e, "%.*e", digits - 1, d);
    } else {
        long double mid = ((long double)d + (long double)nextafter(d, HUGE_VAL)) / 2;
        snprintf(e, sizeof e, "%.*Le", digits - 1, mid);
    }
    plain_from_e(e, out);
    return strlen(out);
}

/* 1 when s[0..n) is a number by JSON's grammar, checked by hand (the reference for the
   cell tests): -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int grammar_number(const char *s, size_t n)
{
    size_t i = 0, d;
    if (i < n && s[i] == '-')
        i++;
    if (i < n && s[i] == '0')
        i++;
    else if (i < n && s[i] >= '1' && s[i] <= '9')
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    else
        return 0;
    if (i < n && s[i] == '.') {
        for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9';)
            i++;
        if (i == d)
            return 0;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        for (d = i; i < n && s[i] >= '0' && s[i] <= '9';)
            i++;
        if (i == d)
            return 0;
    }
    return i == n;
}

/*
** A random CSV cell for json_number_cells' lanes into out (NUL-terminated), returning its
** length: a plain decimal of every length up to 24 bytes with the point at any place or
** none ("0.000ddd" too), signed or not; lane_number's shapes, neighbours of doubles and
** midpoints; exact ties (2^53 + odd) 5^k 10^-k; an exponent; or one of those with a byte
** changed (a second point, a leading zero, a sign, a letter, a space...) or cut short,
** which may or may not still be a number (grammar_number says).
*/
static size_t cell_text(uint64_t *rs, char *out)
{
    unsigned kind = test_rnd(rs, 16);
    size_t n;
    int neg = test_rnd(rs, 4) == 0;
    if (kind < 7) { /* T = 1..24 bytes of digits and point: the point at place a or none */
        unsigned T = 1 + test_rnd(rs, 24), a = test_rnd(rs, T + 1);
        unsigned il = a == 0 || a >= T - 1 ? T : a, fl = a == 0 || a >= T - 1 ? 0 : T - a - 1;
        unsigned z = 0;
        if (il == 1 && fl > 0 && test_rnd(rs, 3) == 0) /* "0.000ddd" */
            z = test_rnd(rs, fl + 1);
        n = decimal_text(rs, out, il, fl, z, neg, 0);
        if (z > 0 || (il == 1 && test_rnd(rs, 4) == 0))
            out[neg] = '0';
    } else if (kind < 10) {
        n = (size_t)neg;
        out[0] = '-';
        n += lane_number(rs, out + n);
    } else if (kind == 10) { /* an exact tie, or next to one */
        uint64_t m = (1ULL << 53) + 2 * test_rnd(rs, 3000) + 1;
        int k = (int)test_rnd(rs, 5);
        for (int j = 0; j < k; j++)
            m *= 5;
        m += test_rnd(rs, 3) == 0 ? test_rnd(rs, 3) : 0;
        out[0] = '-';
        plain_from_int(m, k, out + neg);
        n = strlen(out);
    } else if (kind == 11) {
        n = decimal_text(rs, out, 1 + test_rnd(rs, 6), test_rnd(rs, 12), 0, neg, 1);
    } else { /* a plain decimal with a byte changed, or cut */
        static const char swap[] = "0.-+e /a\"9";
        unsigned T = 2 + test_rnd(rs, 21), a = test_rnd(rs, T);
        n = decimal_text(rs, out, a == 0 ? T : a, a == 0 ? 0 : T - a, 0, neg, 0);
        if (kind == 15)
            n = test_rnd(rs, (unsigned)n + 1);
        else
            out[test_rnd(rs, (unsigned)n)] = swap[test_rnd(rs, sizeof swap - 1)];
        out[n] = '\0';
    }
    return n;
}

int main(void)
{
    JsonParser p;
    json_parser_init(&p);

    TEST("token sequence of a nested document")
    {
        const char *text = "{\"a\": [1, 2.5, \"x\", true, false, null], \"b\": {}}";
        JsonTok want[] = {JSON_OBJ_BEGIN, JSON_KEY,     JSON_ARR_BEGIN, JSON_NUMBER,
                          JSON_NUMBER,    JSON_STRING,  JSON_TRUE,      JSON_FALSE,
                          JSON_NULL,      JSON_ARR_END, JSON_KEY,       JSON_OBJ_BEGIN,
                          JSON_OBJ_END,   JSON_OBJ_END, JSON_END};
        json_parser_init(&p);
        json_feed(&p, text, strlen(text), 1);
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            CHECK(json_next(&p) == want[i]);
        json_parser_free(&p);
    }

    TEST("integers stay integers within int64, beyond become floats")
    {
        CHECK(first(&p, "9223372036854775807") == JSON_NUMBER && int_is(&p, INT64_MAX));
        CHECK(first(&p, "-9223372036854775808") == JSON_NUMBER && int_is(&p, INT64_MIN));
        /* 2**63 does not fit: float 9.223372036854776e18 (Python: float(2**63)) */
        CHECK(first(&p, "9223372036854775808") == JSON_NUMBER &&
              float_is(&p, 9223372036854775808.0));
        CHECK(first(&p, "9007199254740993") == JSON_NUMBER && int_is(&p, 9007199254740993LL));
        CHECK(first(&p, "-0") == JSON_NUMBER && int_is(&p, 0));
        CHECK(first(&p, "1.0") == JSON_NUMBER && float_is(&p, 1.0));
        CHECK(first(&p, "1e2") == JSON_NUMBER && float_is(&p, 100.0));
    }

    TEST("a number validated lazily reads back the same, integer or float")
    {
        const char *nums[] = {"42", "-9223372036854775808", "12345678901234567890", "0.25", "1e3",
                              "-0"};
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
            JsonParser q, r;
            json_parser_init(&q);
            json_parser_init(&r);
            r.lazy = 1;
            json_feed(&q, nums[k], strlen(nums[k]), 1);
            json_feed(&r, nums[k], strlen(nums[k]), 1);
            CHECK(json_next(&q) == JSON_NUMBER && json_next(&r) == JSON_NUMBER);
            int64_t i1 = 0, i2 = 0;
            double d1 = 0, d2 = 0;
            int k1 = json_num(&q, &i1, &d1), k2 = json_num(&r, &i2, &d2);
            CHECK(k1 == k2 && i1 == i2 && memcmp(&d1, &d2, sizeof d1) == 0);
            json_parser_free(&q);
            json_parser_free(&r);
        }
    }

    TEST("floats are read exactly (strtod), including long mantissas")
    {
        /* float.hex(0.1) == '0x1.999999999999ap-4' */
        CHECK(first(&p, "0.1") == JSON_NUMBER && float_is(&p, 0x1.999999999999ap-4));
        /* 0.1 written with 70 digits still rounds to the same double */
        CHECK(first(&p, "0.1000000000000000055511151231257827021181583404541015625000000000000") ==
                  JSON_NUMBER &&
              float_is(&p, 0x1.999999999999ap-4));
        json_parser_free(&p);
        /* float.hex(2.2250738585072014e-308) == '0x1.0000000000000p-1022' */
        CHECK(first(&p, "2.2250738585072014e-308") == JSON_NUMBER && float_is(&p, 0x1p-1022));
        CHECK(first(&p, "-1.5E+3") == JSON_NUMBER && float_is(&p, -1500.0));
        CHECK(first(&p, "1e400") == JSON_NUMBER && float_is(&p, HUGE_VAL));
    }

    TEST("json_number_value takes JSON's number grammar exactly, and nothing else")
    {
        /* RFC 8259 section 6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
        static const char *const good[] = {"0",
                                           "-0",
                                           "7",
                                           "-12",
                                           "0.5",
                                           "10.25",
                                           "1e5",
                                           "1E+5",
                                           "2e-3",
                                           "-0.0e0",
                                           "0.000000000000000000000000001",
                                           "123456789012345678901234567890",
                                           "1e99999999999999999999",
                                           "-1e-99999999999999999999",
                                           "1e0000000000000000000000001"};
        static const char *const bad[] = {"",   "-",  "01",  "-01",  "1.",   ".5",
                                          "+1", "1e", "1e+", "1.e3", "0x1",  "1.5x",
                                          " 1", "1 ", "inf", "NaN",  "1..2", "--1"};
        for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
            double d = -1, want = strtod(good[k], NULL);
            CHECK(json_number_value(good[k], strlen(good[k]), &d) == 1);
            CHECK(memcmp(&d, &want, sizeof d) == 0);
        }
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            double d = 42;
            CHECK(json_number_value(bad[k], strlen(bad[k]), &d) == 0 && d == 42);
        }
    }

    TEST("json_strtod equals strtod bit for bit (random and midpoint cases)")
    {
        /* The reference is glibc's strtod itself; the cases cover both fast paths,
           their boundaries (2^53, 19 digits, exponent 22, subnormals, overflow), exact
           ties and near-halfway cases, and the fallback. */
        uint64_t state = 0x9E3779B97F4A7C15ULL;
        char buf[96];
        long bad = 0, cases = 0;
        for (int k = 0; k < 3000000; k++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            int digits = 1 + (int)(state % 21); /* 1..21 significant digits */
            int point = (int)((state >> 8) % (uint64_t)(digits + 1));
            int exp = (int)((state >> 16) % 71) - 35; /* -35..35 */
            int with_exp = (state >> 24) & 1, neg = (state >> 25) & 1;
            size_t n = 0;
            if (neg)
                buf[n++] = '-';
            uint64_t r = state;
            for (int d = 0; d < digits; d++) {
                if (d == point && d > 0)
                    buf[n++] = '.';
                r = r * 6364136223846793005ULL + 1442695040888963407ULL;
                int digit = (int)((r >> 33) % 10);
                if (d == 0 && digit == 0 && digits > 1)
                    digit = 1 + (int)((r >> 40) % 9);
                buf[n++] = (char)('0' + digit);
            }
            if (with_exp)
                n += (size_t)snprintf(buf + n, sizeof buf - n, "e%d", exp);
            buf[n] = '\0';
            double want = strtod(buf, NULL), got = json_strtod(buf, n), one = 0;
            cases++;
            if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 5)
                fprintf(stderr, "  json_strtod(%s) = %a, strtod = %a\n", buf, got, want);
            /* the one-pass reader (CSV and Prometheus values) too */
            if ((!json_number_value(buf, n, &one) || memcmp(&want, &one, sizeof want) != 0) &&
                bad++ < 5)
                fprintf(stderr, "  json_number_value(%s) = %a, strtod = %a\n", buf, one, want);
            /* the parser's own path (value read while validating) must agree too */
            JsonParser q;
            json_parser_init(&q);
            json_feed(&q, buf, n, 1);
            if (json_next(&q) != JSON_NUMBER) {
                if (bad++ < 5)
                    fprintf(stderr, "  not a number token: %s\n", buf);
            } else {
                int64_t iv;
                double dv;
                if (json_num(&q, &iv, &dv)) {
                    long long want_i = strtoll(buf, NULL, 10);
                    if ((long long)iv != want_i && bad++ < 5)
                        fprintf(stderr, "  json_num(%s) = %lld, strtoll = %lld\n", buf,
                                (long long)iv, want_i);
                } else if (memcmp(&want, &dv, sizeof want) != 0 && bad++ < 5) {
                    fprintf(stderr, "  json_num(%s) = %a, strtod = %a\n", buf, dv, want);
                }
            }
            json_parser_free(&q);
        }
        /* midpoints: odd integers above 2^53 are halfway between two doubles, and
           scaled by powers of ten they stay near halfway, where the 128-bit product's
           error bound decides whether strtod must be asked */
        for (uint64_t m = (1ULL << 53) - 50; m < (1ULL << 53) + 5000; m++) {
            for (int e = -27; e <= 27; e += 9) {
                int len = snprintf(buf, sizeof buf, "%llue%d", (unsigned long long)m, e);
                double want = strtod(buf, NULL), got = json_strtod(buf, (size_t)len);
                cases++;
                if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 5)
                    fprintf(stderr, "  json_strtod(%s) = %a, strtod = %a\n", buf, got, want);
            }
        }
        /* exact ties: (2^53 + odd) 5^k 10^-k = (2^53 + odd) / 2^k lies halfway between two
           doubles; and the same scaled up by 10^j */
        for (uint64_t odd = 1; odd < 4000; odd += 2) {
            uint64_t m = (1ULL << 53) + odd;
            for (int k = 0; k <= 3; k++, m *= 5) {
                int len = snprintf(buf, sizeof buf, "%llue-%d", (unsigned long long)m, k);
                double want = strtod(buf, NULL), got = json_strtod(buf, (size_t)len);
                cases++;
                if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 5)
                    fprintf(stderr, "  json_strtod(%s) = %a, strtod = %a\n", buf, got, want);
            }
        }
        /* the whole exponent range: random doubles written with 15 to 19 digits (the
           round trip and its neighbours), and the midpoints between neighbouring doubles
           (exact in x87 long double; under valgrind, which has none, merely other cases)
           with 17 to 19 digits, the hardest to round */
        for (int k = 0; k < 1000000; k++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            uint64_t bitsv = state & 0x7FFFFFFFFFFFFFFFULL;
            double d;
            memcpy(&d, &bitsv, sizeof d);
            if (!isfinite(d) || d == 0)
                continue;
            int digits = 15 + (int)((state >> 60) % 5);
            int len;
            if (k % 2) {
                len = snprintf(buf, sizeof buf, "%.*e", digits - 1, d);
            } else {
                long double mid = ((long double)d + (long double)nextafter(d, HUGE_VAL)) / 2;
                len = snprintf(buf, sizeof buf, "%.*Le", digits - 1, mid);
            }
            double want = strtod(buf, NULL), got = json_strtod(buf, (size_t)len);
            cases++;
            if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 5)
                fprintf(stderr, "  json_strtod(%s) = %a, strtod = %a\n", buf, got, want);
        }
        CHECK(bad == 0);
        CHECK(cases > 3900000);
    }

    TEST("plain decimals of every length, anywhere in a buffer: json_number_in equals strtod "
         "(SIMD lane and plain C)")
    {
        /* The reference is glibc's strtod on the same text. 1..21 integer digits, 0..21
           fraction digits, signs, "0.000ddd" (leading zeros that count towards no
           limit), exponents; each at every offset of a heap buffer of exactly CAP bytes
           (ASan sees a read past it), so that both the lane (48 bytes readable from the
           number) and the loop read it, followed by bytes that end it or would go on
           with it (not part of s[0..n), which json_number_in must not take). */
        enum { CAP = 72 };
        static const char after[] = ",] \n}.eE-5+";
        const char *best = json_simd(NULL);
        uint64_t rs = 0x2545F4914F6CDD1DULL;
        long bad = 0, cases = 0, lane = 0;
        char text[96];
        for (int mode = 0; mode < 2; mode++) {
            CHECK(json_simd(mode == 0 ? best : "portable") != NULL);
            for (unsigned ilen = 1; ilen <= 21; ilen++)
                for (unsigned flen = 0; flen <= 21; flen++)
                    for (unsigned variant = 0; variant < 4; variant++) {
                        /* 0 plain, 1 negative, 2 zero integer part and leading zeros after the
                           point (all zeros: "0.000", "-0.00"), 3 an exponent */
                        unsigned il = variant == 2 ? 1 : ilen;
                        if (variant == 2 && ilen > 1)
                            continue;
                        unsigned z = variant == 2 ? test_rnd(&rs, flen + 1) : 0;
                        int neg = variant == 1 || (variant >= 2 && test_rnd(&rs, 2));
                        for (size_t off = 0;; off++) {
                            size_t len = decimal_text(&rs, text, il, flen, z, neg, variant == 3);
                            if (variant == 2 && il == 1)
                                text[neg] = '0';
                            if (off + len > CAP)
                                break;
                            char *buf = malloc(CAP);
                            for (size_t j = 0; j < CAP; j++)
                                buf[j] = "0123456789.,- e"[test_rnd(&rs, 15)];
                            memcpy(buf + off, text, len);
                            if (off + len < CAP)
                                buf[off + len] = after[test_rnd(&rs, sizeof after - 1)];
                            double want = strtod(text, NULL), got = -1;
                            int ok = json_number_in(buf + off, len, CAP - off, &got);
                            cases++;
                            lane += CAP - off >= 48;
                            if ((!ok || memcmp(&got, &want, sizeof got) != 0) && bad++ < 5)
                                fprintf(stderr,
                                        "  %s: json_number_in(%s) at %zu = %d %a, strtod %a\n",
                                        json_simd(NULL), text, off, ok, got, want);
                            free(buf);
                        }
                    }
        }
        CHECK(bad == 0 && cases > 130000 && lane > 60000);
        CHECK(json_simd(best) != NULL);
    }

    TEST("the decimal lane equals strtod on near-halfway and exactly halfway decimals")
    {
        /* As the json_strtod test above, written as plain decimals (which the lane
           reads): odd integers above 2^53 (halfway between two doubles) scaled by 10^-k;
           exact ties (2^53 + odd) 5^k 10^-k = (2^53 + odd) / 2^k; and random doubles and
           the midpoints between neighbours (exact in x87 long double) with 15 to 19
           digits, from 1e-4 to 1e19. With the SIMD lane and in plain C. */
        const char *best = json_simd(NULL);
        uint64_t state = 0xD1B54A32D192ED03ULL;
        long bad = 0, cases = 0;
        char e[64], t[64];
        for (int mode = 0; mode < 2; mode++) {
            CHECK(json_simd(mode == 0 ? best : "portable") != NULL);
            for (uint64_t m = (1ULL << 53) - 50; m < (1ULL << 53) + 2000; m++)
                for (int k = 0; k <= 19; k += 1 + (int)(m % 3)) {
                    plain_from_int(m, k, t);
                    cases += lane_agrees(t, &bad);
                }
            for (uint64_t odd = 1; odd < 4000; odd += 2) {
                uint64_t m = (1ULL << 53) + odd;
                for (int k = 0; k <= 4; k++, m *= 5) {
                    plain_from_int(m, k, t);
                    cases += lane_agrees(t, &bad);
                }
            }
            for (int k = 0; k < 300000; k++) {
                state ^= state << 13, state ^= state >> 7, state ^= state << 17;
                /* 2^-14 .. 2^63: the exponent field 1009 .. 1086 */
                uint64_t bitsv = (state & 0x000FFFFFFFFFFFFFULL) | (1009 + state % 78) << 52;
                double d;
                memcpy(&d, &bitsv, sizeof d);
                int digits = 15 + (int)((state >> 60) % 5);
                if (k % 2) {
                    snprintf(e, sizeof e, "%.*e", digits - 1, d);
                } else {
                    long double mid = ((long double)d + (long double)nextafter(d, HUGE_VAL)) / 2;
                    snprintf(e, sizeof e, "%.*Le", digits - 1, mid);
                }
                plain_from_e(e, t);
                cases += lane_agrees(t, &bad);
            }
        }
        CHECK(bad == 0 && cases > 600000);
        CHECK(json_simd(best) != NULL);
    }

    TEST("json_number_cells: columns of CSV cells, each as strtod reads it, on every "
         "instruction set, anywhere in a buffer; stops at the first cell that is no number")
    {
        /* Rows of ncols cells, ',' between them and '\n' after, with stops as the CSV
           lane makes them (the one before the row, its separators, its line end; offsets
           from base, the first row's first stop wrapping to UINT32_MAX), in a heap buffer
           of exactly the text's size (ASan sees a read outside it). The cells are plain
           decimals and integers of every length (1..21 integer digits, 0..21 fraction
           digits, signs, "0.000ddd", exponents) made by decimal_text, whose values are
           strtod's on the same text, and now and then one of the texts below, which are
           no JSON number (by hand): the count returned must be the first of those in the
           column read. Cells with 48 bytes readable from their start take the decimal
           lane, those nearer the buffer's end the loop (both counted, so that the test
           cannot pass without either). */
        static const char *const bad[] = {
            "01",   "00",    "-01.5", "00.5", "1.",    ".5",          "-.5",  "-",
            "--1",  "+1.5",  "1.2.3", "1..2", "1-2",   "1.5-",        "0x1",  " 1.5",
            "1.5 ", "1,5",   "",      "-0.",  "1e",    "1.5e+",       "1.e5", "0123.4",
            "9.9.", "12a.5", "1.5a",  "a1.5", "1.\"5", "-0012345.678"};
        enum { ROWS = 40, MAXCOLS = 4 };
        const char *best = json_simd(NULL);
        static const char *const sets[] = {"avx512", "avx2", "sse2", "portable"};
        uint64_t rs = 0x9E3779B97F4A7C15ULL;
        long wrong = 0, cells = 0, laned = 0, near = 0, stopped = 0;
        char text[64];
        for (size_t si = 0; si < sizeof sets / sizeof sets[0]; si++) {
            if (json_simd(sets[si]) == NULL)
                continue; /* not on this CPU */
            for (int round = 0; round < 4000; round++) {
                int ncols = 1 + (int)test_rnd(&rs, MAXCOLS), nrows = 1 + (int)test_rnd(&rs, ROWS);
                size_t stride = (size_t)ncols + 1, base = test_rnd(&rs, 40), cap = 0;
                static char doc[ROWS * MAXCOLS * 64 + 64];
                static uint32_t stops[ROWS * (MAXCOLS + 1)];
                static double want[ROWS * MAXCOLS];
                static int isnum[ROWS * MAXCOLS];
                for (size_t j = 0; j < base; j++)
                    doc[cap++] = "0123456789.,-\n"[test_rnd(&rs, 14)];
                for (int r = 0; r < nrows; r++) {
                    stops[(size_t)r * stride] = (uint32_t)(cap - base) - 1;
                    for (int c = 0; c < ncols; c++) {
                        int k = r * ncols + c;
                        size_t len;
                        if (test_rnd(&rs, 60) == 0) {
                            const char *t = bad[test_rnd(&rs, sizeof bad / sizeof bad[0])];
                            len = strlen(t);
                            memcpy(text, t, len + 1);
                            isnum[k] = 0;
                        } else {
                            unsigned variant = test_rnd(&rs, 8); /* mostly plain */
                            unsigned il = variant == 6 ? 1 : 1 + test_rnd(&rs, 21);
                            unsigned fl = test_rnd(&rs, 22);
                            unsigned z = variant == 6 ? test_rnd(&rs, fl + 1) : 0;
                            len = decimal_text(&rs, text, il, fl, z,
                                               variant == 5 || test_rnd(&rs, 4) == 0, variant == 7);
                            if (variant == 6)
                                text[text[0] == '-'] = '0';
                            want[k] = strtod(text, NULL);
                            isnum[k] = 1;
                        }
                        memcpy(doc + cap, text, len);
                        cap += len;
                        doc[cap] = c + 1 < ncols ? ',' : '\n';
                        stops[(size_t)r * stride + (size_t)c + 1] = (uint32_t)(cap - base);
                        cap++;
                    }
                }
                char *buf = malloc(cap);
                memcpy(buf, doc, cap);
                int col = (int)test_rnd(&rs, (unsigned)ncols);
                double got[ROWS];
                size_t n =
                    json_number_cells(buf, cap, base, stops + col, stride, (size_t)nrows, got);
                size_t first_bad = (size_t)nrows;
                for (int r = 0; r < nrows; r++)
                    if (!isnum[r * ncols + col]) {
                        first_bad = (size_t)r;
                        break;
                    }
                stopped += first_bad < (size_t)nrows;
                if (n != first_bad && wrong++ < 5)
                    fprintf(stderr, "  %s: json_number_cells took %zu cells, want %zu\n",
                            json_simd(NULL), n, first_bad);
                for (size_t r = 0; r < n && r < first_bad; r++) {
                    int k = (int)r * ncols + col;
                    uint32_t from = stops[r * stride + (size_t)col] + 1;
                    uint32_t to = stops[r * stride + (size_t)col + 1];
                    cells++;
                    laned += cap - (base + from) >= 48;
                    near += cap - (base + from) < 48;
                    if (memcmp(&got[r], &want[k], sizeof want[k]) != 0 && wrong++ < 5)
                        fprintf(stderr, "  %s: json_number_cells(%.*s) = %a, strtod %a\n",
                                json_simd(NULL), (int)(to - from), buf + base + from, got[r],
                                want[k]);
                }
                free(buf);
            }
        }
        CHECK(wrong == 0 && cells > 100000 && laned > 50000 && near > 5000 && stopped > 1000);
        CHECK(json_simd(best) != NULL);
    }

    TEST("json_number_cells' lanes, each instruction set: every length and place of the "
         "point, signs, leading zeros, ties, refused and changed cells; each as strtod reads it")
    {
        /* Columns of cell_text's cells (',' after each, '\n' after every 5th), the stops as
           the CSV lane makes them (stride 1: cell k between stops[k] and stops[k + 1]),
           after a prefix of 0..24 random digits, points and signs (what the first cells'
           windows see), each column in a heap buffer of exactly its size (ASan sees a
           read outside it). json_number_cells stops at each cell that is no number and is
           called again after it. The references: grammar_number (by hand) for which cells
           are numbers, glibc's strtod for their values. Counted: the cells of the lanes'
           shapes (plain, at most 20 bytes of digits and point) that end 33 bytes or more
           into the buffer, by length and place of the point, so that every one is seen
           (the test cannot pass without them), and those ending nearer its start. */
        enum { CELLS = 300, COLUMNS = 240 };
        const char *best = json_simd(NULL);
        uint64_t rs = 0xC0FFEE123456789BULL;
        static char texts[CELLS][32];
        static size_t lens[CELLS];
        static uint32_t stops[CELLS + 1];
        static double want[CELLS], got[CELLS];
        static int isnum[CELLS];
        static long seen[21][21];
        char *doc = malloc((size_t)CELLS * 32 + 64);
        long wrong = 0, numbers = 0, refused = 0, near = 0, sets = 0;
        for (int col = 0; col < COLUMNS; col++) {
            size_t cap = 0, base = test_rnd(&rs, 25);
            for (size_t j = 0; j < base; j++)
                doc[cap++] = "0123456789.-"[test_rnd(&rs, 12)];
            for (int k = 0; k < CELLS; k++) {
                stops[k] = (uint32_t)(cap - base) - 1;
                lens[k] = cell_text(&rs, texts[k]);
                isnum[k] = grammar_number(texts[k], lens[k]);
                want[k] = isnum[k] ? strtod(texts[k], NULL) : 0;
                memcpy(doc + cap, texts[k], lens[k]);
                cap += lens[k];
                doc[cap++] = k % 5 == 4 ? '\n' : ',';
            }
            stops[CELLS] = (uint32_t)(cap - base) - 1;
            char *buf = malloc(cap);
            memcpy(buf, doc, cap);
            for (int k = 0; k < CELLS; k++) { /* the lanes' shapes: [-]d+(.d+)?, <= 20 */
                const char *t = texts[k] + (texts[k][0] == '-');
                size_t T = lens[k] - (size_t)(t != texts[k]);
                const char *pt = memchr(t, '.', T);
                if (!isnum[k] || T > 20 || strpbrk(t, "eE") != NULL)
                    continue;
                if (base + stops[k + 1] < 33)
                    near++;
                else
                    seen[T][pt ? (size_t)(pt - t) : 0]++;
            }
            for (int si = 0; si < N_SIMD_SETS; si++) {
                if (json_simd(simd_sets[si]) == NULL)
                    continue; /* not on this CPU */
                sets += col == 0;
                for (size_t k = 0; k < CELLS;) {
                    size_t took =
                        json_number_cells(buf, cap, base, stops + k, 1, CELLS - k, got + k);
                    for (size_t j = k; j < k + took; j++) {
                        numbers++;
                        if ((!isnum[j] || memcmp(&got[j], &want[j], sizeof got[j]) != 0) &&
                            wrong++ < 5)
                            fprintf(stderr, "  %s: json_number_cells(%s) = %a, strtod %a%s\n",
                                    json_simd(NULL), texts[j], got[j], want[j],
                                    isnum[j] ? "" : " (no number)");
                    }
                    k += took;
                    if (k < CELLS) { /* refused */
                        refused++;
                        if (isnum[k] && wrong++ < 5)
                            fprintf(stderr, "  %s: json_number_cells refused %s\n", json_simd(NULL),
                                    texts[k]);
                        k++;
                    }
                }
            }
            free(buf);
        }
        long missing = 0;
        for (int T = 1; T <= 20; T++)
            for (int a = 0; a < T - 1; a++) /* a: the integer digits before the point, 0: none */
                if (seen[T][a] < 3 && missing++ < 5)
                    fprintf(stderr, "  length %d, point after %d digits: %ld cells\n", T, a,
                            seen[T][a]);
        CHECK(wrong == 0 && missing == 0 && sets >= 2);
        CHECK(numbers > 150000 && refused > 20000 && near > 150);
        CHECK(json_simd(best) != NULL);
        free(doc);
    }

    TEST("json_number_cells in pairs (the AVX-512 lane takes two cells a turn): each kind of "
         "cell beside each other kind, on every instruction set; each as strtod reads it")
    {
        /* Every ordered pair (X, Y) of the cells below, as a column X, Y, X, Y, X (so a
           pair is read both ways round, and a last cell is alone), after 0..40 bytes of
           digits, points and signs (what the first windows see: cells near the buffer's
           start go to the loop), in a heap buffer of exactly its size (ASan sees a read
           outside it). The cells: the lanes' shapes (17 significant digits as Python's
           repr writes them, 19 digits with a point: the longest the lanes take, 18-digit
           integers, "0.000ddd", signs, zeros), what they must leave to the loop (19- and
           20-digit integers, 20 digits with a point, an exact tie 2^53 + 1 as "....0",
           exponents, subnormals, the largest double) and what is no number. The
           references: grammar_number (by hand) for which cells are numbers, glibc's
           strtod for their values; json_number_cells stops at each cell that is no
           number and is called again after it. */
        static const char *const kinds[] = {"284.16168687987954",
                                            "4.894268139540813",
                                            "1028.090444090083",
                                            "-0.10576083642505457",
                                            "0.5",
                                            "0",
                                            "-0",
                                            "-0.0",
                                            "7",
                                            "-12.5",
                                            "445",
                                            "123456789012345678",
                                            "-987654321098765432",
                                            "1234567890123456.789",
                                            "12345678901234567.89",
                                            "0.000001234567890123",
                                            "100000000000000000.5",
                                            "9007199254740993.0",
                                            "9007199254740993",
                                            "0.30000000000000004",
                                            "1771234500.0014184",
                                            "0.000",
                                            "1234567890123456789",
                                            "12345678901234567890",
                                            "0.1234567890123456789",
                                            "1.7976931348623157e308",
                                            "4.9e-324",
                                            "2.2250738585072011e-308",
                                            "1e5",
                                            "1.5E+3",
                                            "01",
                                            "1.",
                                            ".5",
                                            "-",
                                            "",
                                            "1.2.3",
                                            "1-2",
                                            "+1",
                                            "00.5",
                                            "-01.5",
                                            "1.5a",
                                            " 1",
                                            "12a.5",
                                            "0123456789012345.6",
                                            "12.",
                                            "-12.",
                                            ".55",
                                            "-.55",
                                            "1234567890.12345678."};
        enum { NK = sizeof kinds / sizeof kinds[0], PER = 5 };
        const char *best = json_simd(NULL);
        uint64_t rs = 0x5DEECE66DULL;
        char *doc = malloc(64 + PER * 40);
        long wrong = 0, numbers = 0, refused = 0, columns = 0;
        for (int x = 0; x < NK; x++)
            for (int y = 0; y < NK; y++) {
                size_t cap = 0, base = test_rnd(&rs, 41);
                uint32_t stops[PER + 1];
                const char *texts[PER];
                double want[PER], got[PER];
                int isnum[PER];
                for (size_t j = 0; j < base; j++)
                    doc[cap++] = "0123456789.-"[test_rnd(&rs, 12)];
                for (int k = 0; k < PER; k++) {
                    texts[k] = kinds[k % 2 == 0 ? x : y];
                    size_t len = strlen(texts[k]);
                    stops[k] = (uint32_t)(cap - base) - 1;
                    isnum[k] = grammar_number(texts[k], len);
                    want[k] = isnum[k] ? strtod(texts[k], NULL) : 0;
                    memcpy(doc + cap, texts[k], len);
                    cap += len;
                    doc[cap++] = k == PER - 1 ? '\n' : ',';
                }
                stops[PER] = (uint32_t)(cap - base) - 1;
                char *buf = malloc(cap);
                memcpy(buf, doc, cap);
                for (int si = 0; si < N_SIMD_SETS; si++) {
                    if (json_simd(simd_sets[si]) == NULL)
                        continue; /* not on this CPU */
                    columns++;
                    for (size_t k = 0; k < PER;) {
                        size_t took =
                            json_number_cells(buf, cap, base, stops + k, 1, PER - k, got + k);
                        for (size_t j = k; j < k + took; j++) {
                            numbers++;
                            if ((!isnum[j] || memcmp(&got[j], &want[j], sizeof got[j]) != 0) &&
                                wrong++ < 5)
                                fprintf(stderr, "  %s: json_number_cells(%s) = %a, strtod %a%s\n",
                                        json_simd(NULL), texts[j], got[j], want[j],
                                        isnum[j] ? "" : " (no number)");
                        }
                        k += took;
                        if (k < PER) { /* refused */
                            refused++;
                            if (isnum[k] && wrong++ < 5)
                                fprintf(stderr, "  %s: json_number_cells refused %s\n",
                                        json_simd(NULL), texts[k]);
                            k++;
                        }
                    }
                }
                free(buf);
            }
        CHECK(wrong == 0 && columns >= 2 * NK * NK);
        CHECK(numbers > 2 * NK * NK && refused > NK * NK);
        CHECK(json_simd(best) != NULL);
        free(doc);
    }

    TEST("json_number_cells in groups of eight (the AVX-512 lane converts eight cells a "
         "turn): each kind of cell at each place of a group; each as strtod reads it")
    {
        /* Columns of 16 cells of the lanes' shapes, each column a rotation of the list
           below (so every kind lands in every lane of a group, beside the others: signs,
           1 to 18 digits after the point, 19 digits, "0.000ddd", values of 0 and exact
           ties that the product cannot decide), and one cell at place j (0..15) of
           another kind: each of the shapes again, integers, exponents, 20 or 21 bytes,
           and what is no number. After 33..60 bytes of digits, points and signs (each
           cell ends 33 bytes or more into the buffer: with AVX-512, the groups of eight
           take every column, as they take a column of floats), in a heap buffer of
           exactly its size (ASan sees a read outside it). The references: grammar_number
           (by hand) for which cells are numbers, glibc's strtod for their values;
           json_number_cells stops at each cell that is no number and is called again
           after it. */
        static const char *const lane[] = {"284.16168687987954",
                                           "-4.894268139540813",
                                           "1028.090444090083",
                                           "-0.10576083642505457",
                                           "0.5",
                                           "-12.5",
                                           "1234567890123456.789",
                                           "12345678901234567.89",
                                           "0.000001234567890123",
                                           "9007199254740993.0",
                                           "0.30000000000000004",
                                           "-1771234500.0014184",
                                           "-0.0",
                                           "0.000",
                                           "-99.999999999999999",
                                           "0.123456789012345678",
                                           "5.0",
                                           "-9999999999999999.9",
                                           "0.1234567890123456",
                                           "-3.1415926535897932",
                                           "0.00000000000000001"};
        static const char *const other[] = {"0",
                                            "-0",
                                            "7",
                                            "445",
                                            "123456789012345678",
                                            "1234567890123456789",
                                            "1e5",
                                            "1.5E+3",
                                            "0.1234567890123456789",
                                            "12345678901234567890.5",
                                            "01",
                                            "1.",
                                            ".5",
                                            "-",
                                            "",
                                            "1.2.3",
                                            "1-2",
                                            "+1",
                                            "00.5",
                                            "-01.5",
                                            "1.5a",
                                            " 1",
                                            "12a.5",
                                            "--1.5",
                                            "1.5-",
                                            "0123456789012345.6"};
        enum { NL = sizeof lane / sizeof lane[0], NO = sizeof other / sizeof other[0] };
        enum { PER = 16 };
        const char *best = json_simd(NULL);
        uint64_t rs = 0x2545F4914F6CDD1DULL;
        char *doc = malloc(64 + PER * 40);
        long wrong = 0, numbers = 0, refused = 0, columns = 0;
        for (int y = 0; y < NL + NO; y++)
            for (int j = 0; j < PER; j++)
                for (int rot = 0; rot < NL; rot++) {
                    size_t cap = 0, base = 33 + test_rnd(&rs, 28);
                    uint32_t stops[PER + 1];
                    const char *texts[PER];
                    double want[PER], got[PER];
                    int isnum[PER];
                    for (size_t i = 0; i < base; i++)
                        doc[cap++] = "0123456789.-"[test_rnd(&rs, 12)];
                    for (int k = 0; k < PER; k++) {
                        texts[k] = k != j ? lane[(k + rot) % NL] : y < NL ? lane[y] : other[y - NL];
                        size_t len = strlen(texts[k]);
                        stops[k] = (uint32_t)(cap - base) - 1;
                        isnum[k] = grammar_number(texts[k], len);
                        want[k] = isnum[k] ? strtod(texts[k], NULL) : 0;
                        memcpy(doc + cap, texts[k], len);
                        cap += len;
                        doc[cap++] = k % 5 == 4 ? '\n' : ',';
                    }
                    stops[PER] = (uint32_t)(cap - base) - 1;
                    char *buf = malloc(cap);
                    memcpy(buf, doc, cap);
                    for (int si = 0; si < N_SIMD_SETS; si++) {
                        if (json_simd(simd_sets[si]) == NULL)
                            continue; /* not on this CPU */
                        columns++;
                        for (size_t k = 0; k < PER;) {
                            size_t took =
                                json_number_cells(buf, cap, base, stops + k, 1, PER - k, got + k);
                            for (size_t i = k; i < k + took; i++) {
                                numbers++;
                                if ((!isnum[i] || memcmp(&got[i], &want[i], sizeof got[i]) != 0) &&
                                    wrong++ < 5)
                                    fprintf(stderr,
                                            "  %s: json_number_cells(%s) = %a, strtod %a%s "
                                            "(cell %zu of the column)\n",
                                            json_simd(NULL), texts[i], got[i], want[i],
                                            isnum[i] ? "" : " (no number)", i);
                            }
                            k += took;
                            if (k < PER) { /* refused */
                                refused++;
                                if (isnum[k] && wrong++ < 5)
                                    fprintf(stderr, "  %s: json_number_cells refused %s\n",
                                            json_simd(NULL), texts[k]);
                                k++;
                            }
                        }
                    }
                    free(buf);
                }
        CHECK(wrong == 0 && columns >= 2L * (NL + NO) * PER * NL);
        CHECK(numbers > 2L * (NL + NO) * PER * NL * (PER - 1) && refused > NO * PER * NL);
        CHECK(json_simd(best) != NULL);
        free(doc);
    }

    TEST("json_number_in: the lane refuses what the grammar refuses, and takes s[0..n) only")
    {
        /* in a buffer with 48 bytes readable, where the lane reads */
        static const char *const bad_text[] = {"01.5",
                                               "00.5",
                                               "1.",
                                               ".5",
                                               "-.5",
                                               "-",
                                               "--1",
                                               "1.e5",
                                               "+1.5",
                                               "0x1",
                                               "-01",
                                               "1.5e",
                                               "1.5e+",
                                               "0.5.5",
                                               "1,5",
                                               "- 1.5",
                                               "01.234567890123456",
                                               "-00.12345678901234567",
                                               "012345678901234567",
                                               "1234567890123456.",
                                               ".1234567890123456789"};
        /* text, n, and the value of text[0..n) by hand */
        static const struct {
            const char *text;
            size_t n;
            double want;
        } prefix[] = {
            {"12.5",                2,  12.0          },
            {"1.25e3",              4,  1.25          },
            {"0.10576083642505457", 5,  0.105         },
            {"-3.75,1",             5,  -3.75         },
            {"1771234500.0014184",  14, 1771234500.001}
        };
        const char *best = json_simd(NULL);
        for (int mode = 0; mode < 2; mode++) {
            CHECK(json_simd(mode == 0 ? best : "portable") != NULL);
            char buf[64];
            for (size_t k = 0; k < sizeof bad_text / sizeof bad_text[0]; k++) {
                memset(buf, ',', sizeof buf);
                memcpy(buf, bad_text[k], strlen(bad_text[k]));
                double d = 42;
                CHECK(json_number_in(buf, strlen(bad_text[k]), sizeof buf, &d) == 0 && d == 42);
            }
            for (size_t k = 0; k < sizeof prefix / sizeof prefix[0]; k++) {
                memset(buf, ',', sizeof buf);
                memcpy(buf, prefix[k].text, strlen(prefix[k].text));
                double d = 42;
                CHECK(json_number_in(buf, prefix[k].n, sizeof buf, &d) == 1 && d == prefix[k].want);
            }
        }
        CHECK(json_simd(best) != NULL);
    }

    TEST("arrays of numbers through json_next_numbers, whole and in windows: each equals strtod")
    {
        /* Random numbers of every shape (as above) in an array, separated by ", ", ",",
           ",\n    " or " , "; read whole and through windows of 1..9 and 1..300 bytes
           (numbers cut by a window's end), in batches of 1, 7 and 256, with the SIMD
           lane and in plain C. Each value must equal strtod on its text (json_num's
           integer zero is +0). */
        enum { COUNT = 4000 };
        static const char *const sep[] = {", ", ",", ",\n    ", " , "};
        char *doc = malloc(COUNT * 64 + 16);
        double *want = malloc(COUNT * sizeof *want), *got = malloc(COUNT * sizeof *got);
        uint64_t rs = 0x9E3779B97F4A7C15ULL;
        size_t len = 0;
        doc[len++] = '[';
        for (unsigned k = 0; k < COUNT; k++) {
            char text[96];
            unsigned kind = test_rnd(&rs, 8), ilen = 1 + test_rnd(&rs, 21),
                     flen = test_rnd(&rs, 22);
            if (kind < 4) { /* the common shapes: "0.0ddd" and "ddd.ddd", 17 digits */
                ilen = kind < 2 ? 1 : 1 + test_rnd(&rs, 10);
                flen = kind < 2 ? 16 + test_rnd(&rs, 4) : 17 - ilen + test_rnd(&rs, 2);
            }
            if (kind == 4) /* "0.000ddd", "0.000" */
                ilen = 1;
            unsigned z = kind < 2 ? test_rnd(&rs, 4) : kind == 4 ? test_rnd(&rs, flen + 1) : 0;
            size_t n = decimal_text(&rs, text, ilen, flen, z, test_rnd(&rs, 6) == 0, kind == 7);
            if (kind < 2 || kind == 4)
                text[text[0] == '-'] = '0';
            want[k] = lane_value(text);
            if (k > 0)
                len += (size_t)sprintf(doc + len, "%s",
                                       sep[test_rnd(&rs, 8) < 5 ? 0 : test_rnd(&rs, 4)]);
            memcpy(doc + len, text, n);
            len += n;
        }
        doc[len++] = ']';
        const char *best = json_simd(NULL);
        static const size_t steps[] = {0, 9, 300}, maxes[] = {1, 7, 256};
        int bad_runs = 0;
        for (int si = 0; si < N_SIMD_SETS; si++) {
            if (json_simd(simd_sets[si]) == NULL)
                continue; /* this CPU has not got it */
            for (size_t s = 0; s < 3; s++)
                for (size_t mx = 0; mx < 3; mx++) {
                    memset(got, 0, COUNT * sizeof *got);
                    long k =
                        numbers_through_windows(doc, len, steps[s], maxes[mx], &rs, got, COUNT);
                    size_t wrong = 0;
                    for (size_t j = 0; j < COUNT && k == COUNT; j++)
                        if (memcmp(&got[j], &want[j], sizeof got[j]) != 0 && wrong++ == 0)
                            fprintf(stderr, "  %s step %zu max %zu: number %zu = %a, want %a\n",
                                    json_simd(NULL), steps[s], maxes[mx], j, got[j], want[j]);
                    if (k != COUNT || wrong != 0) {
                        fprintf(stderr, "  %s step %zu max %zu: %ld numbers, %zu wrong\n",
                                json_simd(NULL), steps[s], maxes[mx], k, wrong);
                        bad_runs++;
                    }
                }
        }
        CHECK(bad_runs == 0);
        CHECK(json_simd(best) != NULL);
        free(doc);
        free(want);
        free(got);
    }

    TEST("json_next_numbers' lanes, each instruction set: every shape they take or just miss, "
         "near and exactly halfway, equals strtod")
    {
        /* Long arrays of the numbers lane_number makes (the AVX2 lane's "0.0ddd" and
           "ddd.ddd" shapes up to their limits and just past them, midpoints between
           doubles), mostly with ", " or "," between them (the lanes' separators),
           sometimes another; read whole and through windows, in batches of 1, 7 and
           256, with each instruction set this CPU has. The reference: glibc's strtod on
           each number's text. */
        enum { COUNT = 60000 };
        static const char *const sep[] = {", ", ",", ",\n", " , ", ",  "};
        char *doc = malloc((size_t)COUNT * 48 + 16);
        double *want = malloc(COUNT * sizeof *want), *got = malloc(COUNT * sizeof *got);
        uint64_t rs = 0x8BADF00DDEADBEEFULL;
        size_t len = 0;
        doc[len++] = '[';
        for (unsigned k = 0; k < COUNT; k++) {
            char text[96];
            size_t n = lane_number(&rs, text);
            want[k] = lane_value(text);
            if (k > 0) {
                unsigned r = test_rnd(&rs, 64);
                const char *sp = sep[r < 40 ? 0 : r < 60 ? 1 : 2 + r % 3];
                memcpy(doc + len, sp, strlen(sp));
                len += strlen(sp);
            }
            memcpy(doc + len, text, n);
            len += n;
        }
        doc[len++] = ']';
        const char *best = json_simd(NULL);
        static const size_t steps[] = {0, 300}, maxes[] = {1, 7, 256};
        int bad_runs = 0, sets = 0;
        for (int si = 0; si < N_SIMD_SETS; si++) {
            if (json_simd(simd_sets[si]) == NULL)
                continue;
            sets++;
            for (size_t s = 0; s < 2; s++)
                for (size_t mx = 0; mx < 3; mx++) {
                    memset(got, 0, COUNT * sizeof *got);
                    long k =
                        numbers_through_windows(doc, len, steps[s], maxes[mx], &rs, got, COUNT);
                    size_t wrong = 0;
                    for (size_t j = 0; j < COUNT && k == COUNT; j++)
                        if (memcmp(&got[j], &want[j], sizeof got[j]) != 0 && wrong++ < 3)
                            fprintf(stderr, "  %s step %zu max %zu: number %zu = %a, want %a\n",
                                    json_simd(NULL), steps[s], maxes[mx], j, got[j], want[j]);
                    if (k != COUNT || wrong != 0) {
                        fprintf(stderr, "  %s step %zu max %zu: %ld numbers, %zu wrong\n",
                                json_simd(NULL), steps[s], maxes[mx], k, wrong);
                        bad_runs++;
                    }
                }
        }
        CHECK(bad_runs == 0 && sets >= 2);
        CHECK(json_simd(best) != NULL);
        free(doc);
        free(want);
        free(got);
    }

    TEST("json_next_numbers' lanes on exactly halfway decimals (X.dddd with 15 integer digits, "
         "the only ties the AVX2 lane's 20 bytes can hold): round to even as strtod")
    {
        /* X + k/16 for odd k and 2^49 <= X < 10^15 is exactly halfway between two doubles
           (their spacing there is 1/8) and written "X.dddd" in 20 bytes, the AVX2 lane's
           longest shape; such a tie is 5^-4 times the digits, and 5^-4's truncated
           binary value makes the lane's product fall just below it, so the lane must
           leave it to compose (its low-bits test). Beside each tie its neighbours one
           unit of the last digit away, and an exact value below 2^49 (spacing 1/16).
           The reference: glibc's strtod on each text; two checked by hand (Python:
           float.hex(562949953421312.0625) is '0x1.0000000000000p+49', the even one
           of 2^49 and 2^49 + 1/8; 562949953421312.1875 gives '0x1.0000000000002p+49',
           2^49 + 1/4). */
        enum { COUNT = 40000 };
        char *doc = malloc((size_t)COUNT * 24 + 16);
        double *want = malloc(COUNT * sizeof *want), *got = malloc(COUNT * sizeof *got);
        uint64_t rs = 0x5EEDF00D12345678ULL;
        const uint64_t lo49 = 562949953421312ULL; /* 2^49 */
        size_t len = 0;
        unsigned ties = 0;
        doc[len++] = '[';
        for (unsigned k = 0; k < COUNT; k++) {
            char text[32];
            uint64_t r = (uint64_t)test_rnd(&rs, 1u << 30) << 20 | test_rnd(&rs, 1u << 20);
            unsigned odd = 2 * test_rnd(&rs, 8) + 1, kind = k < 2 ? 0 : test_rnd(&rs, 4);
            uint64_t x = k < 2 ? lo49 : lo49 + r % (1000000000000000ULL - lo49);
            if (k < 2) /* 2^49 + 1/16 and 2^49 + 3/16 */
                odd = 2 * k + 1;
            unsigned frac = odd * 625; /* odd / 16 in four digits */
            if (kind == 1)
                frac -= 1;
            else if (kind == 2)
                frac += 1;
            else if (kind == 3) /* below 2^49: exact, 1/16 apart */
                x = 100000000000000ULL + r % (lo49 - 100000000000000ULL);
            ties += kind == 0;
            int n = snprintf(text, sizeof text, "%llu.%04u", (unsigned long long)x, frac);
            want[k] = strtod(text, NULL);
            if (k > 0) {
                const char *sp = test_rnd(&rs, 2) ? ", " : ",";
                memcpy(doc + len, sp, strlen(sp));
                len += strlen(sp);
            }
            memcpy(doc + len, text, (size_t)n);
            len += (size_t)n;
        }
        doc[len++] = ']';
        CHECK(want[0] == 562949953421312.0 && want[1] == 562949953421312.25);
        const char *best = json_simd(NULL);
        int bad_runs = 0, sets = 0;
        for (int si = 0; si < N_SIMD_SETS; si++) {
            if (json_simd(simd_sets[si]) == NULL)
                continue;
            sets++;
            memset(got, 0, COUNT * sizeof *got);
            long k = numbers_through_windows(doc, len, 0, 256, &rs, got, COUNT);
            size_t wrong = 0;
            for (size_t j = 0; j < COUNT && k == COUNT; j++)
                if (memcmp(&got[j], &want[j], sizeof got[j]) != 0 && wrong++ < 3)
                    fprintf(stderr, "  %s: number %zu = %a, want %a\n", json_simd(NULL), j, got[j],
                            want[j]);
            if (k != COUNT || wrong != 0) {
                fprintf(stderr, "  %s: %ld numbers, %zu wrong\n", json_simd(NULL), k, wrong);
                bad_runs++;
            }
        }
        CHECK(bad_runs == 0 && sets >= 2 && ties > COUNT / 5);
        CHECK(json_simd(best) != NULL);
        free(doc);
        free(want);
        free(got);
    }

    TEST("json_next_numbers' AVX2 lane, which finds each number's end from 64-byte blocks of "
         "commas: arrays of arrays, numbers across block edges, gaps longer than a block")
    {
        /* Arrays of 1..40 numbers in an outer array (as vllm's itls), each with one
           separator throughout (", " or ","), "], [" or "],[" between them; the numbers
           mostly the lane's shapes (lane_number: "0.0ddd" and "ddd.ddd" to their limits
           and just past them), so that their commas fall at every place of a block and
           the next comma is often past ']' or in the block after; sometimes a run of
           60..70 spaces before a comma (no comma in the block: the lane must stop and
           the slow path read on). Read whole and through windows of 1..9 and 1..300
           bytes (the lane's blocks near a window's end), in batches of 1, 7 and 256, with
           each instruction set. The reference: strtod on each number's text, and the
           offset of its first byte for tok_off after each batch. */
        enum { COUNT = 40000 };
        char *doc = malloc((size_t)COUNT * 120 + 16);
        double *want = malloc(COUNT * sizeof *want), *got = malloc(COUNT * sizeof *got);
        size_t *starts = malloc(COUNT * sizeof *starts);
        uint64_t rs = 0xC0FFEE1234567ULL;
        size_t len = 0, k = 0;
        doc[len++] = '[';
        while (k < COUNT) {
            if (k > 0)
                len += (size_t)sprintf(doc + len, "%s", test_rnd(&rs, 2) ? "], [" : "],[");
            else
                doc[len++] = '[';
            const char *sep = test_rnd(&rs, 2) ? ", " : ",";
            unsigned n_in = 1 + test_rnd(&rs, 40);
            for (unsigned i = 0; i < n_in && k < COUNT; i++, k++) {
                char text[96];
                size_t n = lane_number(&rs, text);
                if (i > 0) {
                    if (test_rnd(&rs, 50) == 0) { /* a gap longer than a block */
                        unsigned sp = 60 + test_rnd(&rs, 11);
                        memset(doc + len, ' ', sp);
                        len += sp;
                    }
                    len += (size_t)sprintf(doc + len, "%s", sep);
                }
                want[k] = lane_value(text);
                starts[k] = len;
                memcpy(doc + len, text, n);
                len += n;
            }
        }
        doc[len++] = ']';
        doc[len++] = ']';
        const char *best = json_simd(NULL);
        static const size_t steps[] = {0, 9, 300}, maxes[] = {1, 7, 256};
        int bad_runs = 0, sets = 0;
        for (int si = 0; si < N_SIMD_SETS; si++) {
            if (json_simd(simd_sets[si]) == NULL)
                continue;
            sets++;
            for (size_t s = 0; s < 3; s++)
                for (size_t mx = 0; mx < 3; mx++) {
                    memset(got, 0, COUNT * sizeof *got);
                    size_t wrong_at = 0;
                    long got_n = numbers_and_starts(doc, len, steps[s], maxes[mx], &rs, got, COUNT,
                                                    starts, &wrong_at);
                    size_t wrong = 0;
                    for (size_t j = 0; j < COUNT && got_n == COUNT; j++)
                        if (memcmp(&got[j], &want[j], sizeof got[j]) != 0 && wrong++ < 3)
                            fprintf(stderr, "  %s step %zu max %zu: number %zu = %a, want %a\n",
                                    json_simd(NULL), steps[s], maxes[mx], j, got[j], want[j]);
                    if (got_n != COUNT || wrong != 0 || wrong_at != 0) {
                        fprintf(stderr,
                                "  %s step %zu max %zu: %ld numbers, %zu wrong, %zu wrong "
                                "starts\n",
                                json_simd(NULL), steps[s], maxes[mx], got_n, wrong, wrong_at);
                        bad_runs++;
                    }
                }
        }
        CHECK(bad_runs == 0 && sets >= 2);
        CHECK(json_simd(best) != NULL);
        free(doc);
        free(want);
        free(got);
        free(starts);
    }

    TEST("arrays of numbers with one fault: every instruction set, read or passed over, fails "
         "with the plain C path's error, or reads the same")
    {
        /* A long array of lane-shaped numbers with one element replaced by a fault (or a
           near miss that is valid JSON) somewhere, the rest left as is; read with
           json_next_numbers and passed over with json_skip, with each instruction set.
           The reference is the portable path (the loop of read_number and number_end,
           proven above against the grammar): the same error text and position, or the
           same numbers. */
        static const char *const faults[] = {"01.5",
                                             "00.5",
                                             "0123",
                                             "00",
                                             "1.",
                                             "0.",
                                             ".5",
                                             "1.5.5",
                                             "0.0.1",
                                             "1..5",
                                             "-",
                                             "1.5e",
                                             "0.0e",
                                             "1e5",
                                             "0.0e-5",
                                             "1.5E+3",
                                             "-0.5",
                                             "-0",
                                             "1,,2",
                                             "1 2",
                                             "1, ,2",
                                             "0.00000000000000000000001",
                                             "0.0000000000000000000001",
                                             "123456789012345678901",
                                             "1.23456789012345678901234",
                                             "0",
                                             "0.0",
                                             "0.000",
                                             "9",
                                             "+1",
                                             "1.5x",
                                             "\"1.5\"",
                                             "1.5]",
                                             "[1.5]",
                                             "null",
                                             "1 ,2",
                                             "1,\n2",
                                             "1, 2"};
        enum { COUNT = 40, TRIALS = 6 };
        const char *best = json_simd(NULL);
        uint64_t rs = 0x0123456789ABCDEFULL;
        double *got = malloc(4096 * sizeof *got), *ref = malloc(4096 * sizeof *ref);
        char doc[4096], text[96], err[200], ref_err[200];
        long bad = 0, cases = 0, errors = 0;
        for (size_t fi = 0; fi < sizeof faults / sizeof faults[0]; fi++)
            for (int trial = 0; trial < TRIALS; trial++) {
                unsigned at = test_rnd(&rs, COUNT);
                size_t len = 0;
                doc[len++] = '[';
                for (unsigned k = 0; k < COUNT; k++) {
                    if (k > 0) {
                        doc[len++] = ',';
                        if (test_rnd(&rs, 4))
                            doc[len++] = ' ';
                    }
                    const char *t = text;
                    size_t n;
                    if (k == at) {
                        t = faults[fi];
                        n = strlen(t);
                    } else {
                        n = lane_number(&rs, text);
                        if (n > 20)
                            n = decimal_text(&rs, text, 1 + test_rnd(&rs, 9), 8, 0, 0, 0);
                    }
                    memcpy(doc + len, t, n);
                    len += n;
                }
                doc[len++] = ']';
                for (int skip = 0; skip < 2; skip++) {
                    CHECK(json_simd("portable") != NULL);
                    long rn =
                        numbers_or_error(doc, len, skip, 7, ref, 4096, ref_err, sizeof ref_err);
                    errors += rn < 0;
                    for (int si = 0; si < N_SIMD_SETS; si++) {
                        if (json_simd(simd_sets[si]) == NULL)
                            continue;
                        long gn = numbers_or_error(doc, len, skip, 7, got, 4096, err, sizeof err);
                        cases++;
                        if (gn != rn || strcmp(err, ref_err) != 0 ||
                            (gn > 0 && memcmp(got, ref, (size_t)gn * sizeof *got) != 0)) {
                            if (bad++ < 5)
                                fprintf(stderr,
                                        "  %s skip %d fault \"%s\": %ld \"%s\", want %ld \"%s\"\n",
                                        json_simd(NULL), skip, faults[fi], gn, err, rn, ref_err);
                        }
                    }
                }
            }
        /* 19 of the 38 are faults (the first 16, "+1", "1.5x", "1.5]"), each failing both
           ways in each trial */
        CHECK(bad == 0 && cases > 600 && errors == 19 * TRIALS * 2);
        CHECK(json_simd(best) != NULL);
        free(got);
        free(ref);
    }

    TEST("long arrays of numbers, one separator throughout, with faults a 64-byte block must "
         "refuse: every instruction set passes over and reads them as the plain C path does")
    {
        /* json_skip's block lane validates 64 bytes of ", number" at a time; it must take
           exactly what the grammar takes. Arrays of 10..150 numbers (lane shapes, short
           integers, numbers no lane takes), all separated by ", " or all by ",", with no
           fault in a third of them, else one or two of the faults below (each a rule of
           the block check, or a near miss that is valid JSON), passed over with json_skip
           whole and through windows, and read with json_next_numbers. The reference is
           the portable path (read_number and number_end's plain loops, proven above
           against the grammar and strtod): the same outcome, error text and position,
           and the same numbers. */
        static const char *const faults[] = {
            "1.2.3", "0.0.1", "1..5",   "01",    "00",    "01.5",  "1.",      ".5",
            "0.",    "1,,2",  "1, ,2",  "1 ,2",  "1  ,2", "1,  2", "- 1",     "1.5x",
            "1.5]",  "+1",    "1 2",    "1.,2",  "0.,1",  "1,.5",  "-01",     "1e",
            "-",     "1.5e+", "0x1",    "1,\n2", "1,\t2", "0",     "0.0",     "10",
            "-1.5",  "1e5",   "2.5E-3", "-0",    "1, 2",  "1,2",   "100.001", "0.5"};
        enum { NFAULTS = sizeof faults / sizeof faults[0], DOCS = 1500 };
        const char *best = json_simd(NULL);
        uint64_t rs = 0x5EEDB10CULL;
        double *got = malloc(4096 * sizeof *got), *ref = malloc(4096 * sizeof *ref);
        char *doc = malloc(8192), text[96], err[200], ref_err[200];
        long bad = 0, errors = 0, valid = 0, cases = 0;
        for (int di = 0; di < DOCS && bad < 5; di++) {
            const char *sep = test_rnd(&rs, 2) ? ", " : ",";
            unsigned count = 10 + test_rnd(&rs, 141), nf = test_rnd(&rs, 3);
            unsigned at0 = test_rnd(&rs, count), at1 = test_rnd(&rs, count);
            size_t len = 0;
            doc[len++] = '[';
            for (unsigned k = 0; k < count; k++) {
                if (k > 0)
                    len += (size_t)sprintf(doc + len, "%s", sep);
                size_t n;
                if ((nf >= 1 && k == at0) || (nf == 2 && k == at1)) {
                    const char *f = faults[test_rnd(&rs, NFAULTS)];
                    n = strlen(f);
                    memcpy(text, f, n);
                } else if (test_rnd(&rs, 4) == 0) {
                    n = (size_t)sprintf(text, "%u", test_rnd(&rs, 1000));
                } else {
                    n = lane_number(&rs, text);
                }
                memcpy(doc + len, text, n);
                len += n;
            }
            doc[len++] = ']';
            SkipOutcome want, have;
            CHECK(json_simd("portable") != NULL);
            skip_through_windows(doc, len, 0, &rs, &want);
            long rn = numbers_or_error(doc, len, 0, 64, ref, 4096, ref_err, sizeof ref_err);
            errors += want.t == JSON_ERROR;
            valid += want.t == JSON_END;
            for (int si = 0; si < N_SIMD_SETS; si++) {
                if (json_simd(simd_sets[si]) == NULL)
                    continue;
                for (int w = 0; w < 3; w++) {
                    skip_through_windows(doc, len, w == 0 ? 0 : w == 1 ? 300 : 90, &rs, &have);
                    cases++;
                    if (have.t != want.t || strcmp(have.err, want.err) != 0 ||
                        have.off != want.off || have.line != want.line || have.col != want.col) {
                        if (bad++ < 5)
                            fprintf(stderr,
                                    "  %s skip doc %d window %d: %d %s at %llu, want %d "
                                    "%s at %llu\n",
                                    simd_sets[si], di, w, (int)have.t, have.err,
                                    (unsigned long long)have.off, (int)want.t, want.err,
                                    (unsigned long long)want.off);
                    }
                }
                long gn = numbers_or_error(doc, len, 0, 64, got, 4096, err, sizeof err);
                if (gn != rn || strcmp(err, ref_err) != 0 ||
                    (gn > 0 && memcmp(got, ref, (size_t)gn * sizeof *got) != 0)) {
                    if (bad++ < 5)
                        fprintf(stderr, "  %s read doc %d: %ld \"%s\", want %ld \"%s\"\n",
                                simd_sets[si], di, gn, err, rn, ref_err);
                }
            }
        }
        /* both outcomes well exercised: a third of the documents have no fault, and about
           half the faults are valid JSON */
        CHECK(bad == 0 && errors > DOCS / 4 && valid > DOCS / 3 && cases > DOCS * 6);
        CHECK(json_simd(best) != NULL);
        free(doc);
        free(got);
        free(ref);
    }

    TEST("long runs of numbers passed over 64 bytes apart (the run lane): a fault or a near "
         "miss across every place of a block's end is found where the plain C path finds it")
    {
        /* json_skip passes over long arrays of plain numbers in blocks 64 bytes apart,
           each checked with carries from the one before (a number's first byte, its
           space, the digit after a point, a leading zero's next byte, a second point
           after a run of digits may be in the next block). So each fault below is put
           with its first byte at every offset from 3 before to 3 after the ends of the
           first four blocks from the lane's start (the comma after the first number),
           after plain numbers of random lengths and before 300 more bytes of them. Valid
           (1) or not (0): Python's json.loads("[1" + sep + f + sep + "2]"), the same with
           either separator. Every instruction set passes over the document whole and
           through windows with the plain C path's outcome (error text and position), and
           that outcome is an error exactly for the faults Python refuses. */
        static const struct {
            const char *text;
            int valid;
        } faults[] = {
            {"1.2.3",                  0},
            {"0.0.1",                  0},
            {"1..5",                   0},
            {"01",                     0},
            {"00",                     0},
            {"01.5",                   0},
            {"1.",                     0},
            {".5",                     0},
            {"0.",                     0},
            {"1,,2",                   0},
            {"1, ,2",                  0},
            {"1 ,2",                   1},
            {"1,  2",                  1},
            {"1.5x",                   0},
            {"1.5]",                   0},
            {"+1",                     0},
            {"1.,2",                   0},
            {"0.,1",                   0},
            {"1,.5",                   0},
            {"-01",                    0},
            {"1e",                     0},
            {"-",                      0},
            {"0x1",                    0},
            {"1,\n2",                  1},
            {"12.34.5",                0},
            {"10.5.",                  0},
            {"1.2e3",                  1},
            {"-1.5",                   1},
            {"0",                      1},
            {"0.0",                    1},
            {"10",                     1},
            {"1e5",                    1},
            {"-0",                     1},
            {"100.001",                1},
            {"0.5",                    1},
            {"1,2",                    1},
            {"1, 2",                   1},
            {"98765432109876543210.5", 1}
        };
        enum { NFAULTS = sizeof faults / sizeof faults[0] };
        const char *best = json_simd(NULL);
        uint64_t rs = 0x64B10C5ULL;
        char *doc = malloc(1024), num[32];
        long bad = 0, cases = 0;
        for (int si = 0; si < 2; si++) {
            const char *sep = si == 0 ? ", " : ",";
            size_t sl = strlen(sep);
            for (size_t fi = 0; fi < NFAULTS; fi++)
                for (int blk = 1; blk <= 4; blk++)
                    for (int k = -3; k <= 3; k++) {
                        /* the lane starts at doc[2] (after "[1"); the fault at doc[at] */
                        size_t at = 2 + (size_t)(64 * blk + k), len = 0;
                        len += (size_t)sprintf(doc, "[1");
                        while (at - len - 2 * sl > 22) {
                            size_t n = (size_t)sprintf(num, "%u", 1 + test_rnd(&rs, 999999999));
                            if (test_rnd(&rs, 2))
                                n += (size_t)sprintf(num + n, ".%u", test_rnd(&rs, 99999999));
                            len += (size_t)sprintf(doc + len, "%s%s", sep, num);
                        }
                        /* the last one's length takes the fault to doc[at] */
                        len += (size_t)sprintf(doc + len, "%s", sep);
                        size_t fill = at - len - sl;
                        for (size_t j = 0; j < fill; j++)
                            doc[len++] =
                                (char)(j == 0 ? '1' + test_rnd(&rs, 9) : '0' + test_rnd(&rs, 10));
                        len += (size_t)sprintf(doc + len, "%s", sep);
                        CHECK(len == at);
                        len += (size_t)sprintf(doc + len, "%s", faults[fi].text);
                        while (len < at + 300)
                            len += (size_t)sprintf(doc + len, "%s%u.%u", sep, test_rnd(&rs, 100000),
                                                   test_rnd(&rs, 100000000));
                        doc[len++] = ']';
                        SkipOutcome want, have;
                        CHECK(json_simd("portable") != NULL);
                        skip_through_windows(doc, len, 0, &rs, &want);
                        if ((want.t == JSON_END) != faults[fi].valid && bad++ < 5)
                            fprintf(stderr, "  portable: \"%s\" gives %d (%s)\n", faults[fi].text,
                                    (int)want.t, want.err);
                        for (int ss = 0; ss < N_SIMD_SETS; ss++) {
                            if (json_simd(simd_sets[ss]) == NULL)
                                continue;
                            for (int w = 0; w < 2; w++) {
                                skip_through_windows(doc, len, w == 0 ? 0 : 200, &rs, &have);
                                cases++;
                                if ((have.t != want.t || strcmp(have.err, want.err) != 0 ||
                                     have.off != want.off || have.col != want.col) &&
                                    bad++ < 5)
                                    fprintf(stderr,
                                            "  %s sep '%s' \"%s\" at block %d%+d window %d: "
                                            "%d %s at %llu, want %d %s at %llu\n",
                                            simd_sets[ss], sep, faults[fi].text, blk, k, w,
                                            (int)have.t, have.err, (unsigned long long)have.off,
                                            (int)want.t, want.err, (unsigned long long)want.off);
                            }
                        }
                    }
        }
        CHECK(bad == 0 && cases >= 2 * NFAULTS * 4 * 7 * 2 * 2);
        CHECK(json_simd(best) != NULL);
        free(doc);
    }

    TEST("escape-dense strings: each block scanner (SSE2, AVX2, AVX-512) agrees with a naive "
         "decoder")
    {
        static const char *const simd[] = {"avx512", "avx2", "sse2", "portable"};
        const char *best = json_simd(NULL);
        int tried = 0;
        for (size_t si = 0; si < sizeof simd / sizeof simd[0]; si++) {
            if (json_simd(simd[si]) == NULL)
                continue; /* this CPU has not got it */
            tried++;
            CHECK(strcmp(json_simd(NULL), simd[si]) == 0);
            CHECK(escape_dense_agree() == 0);
        }
        CHECK(tried >= 1 && json_simd(best) != NULL);
    }

    TEST("the block scanner chosen at start-up is the best the CPU has")
    {
        /* independently of __builtin_cpu_supports: /proc/cpuinfo's flags */
        FILE *f = fopen("/proc/cpuinfo", "r");
        char line[8192];
        int avx2 = 0, avx512bw = 0;
        while (f != NULL && fgets(line, sizeof line, f) != NULL)
            if (strncmp(line, "flags", 5) == 0) {
                avx2 = strstr(line, " avx2") != NULL;
                avx512bw = strstr(line, " avx512bw") != NULL;
                break;
            }
        if (f != NULL)
            fclose(f);
#if defined(__x86_64__)
        /* valgrind (tests/run.sh under $VALGRIND) offers no AVX-512 whatever /proc says */
        const char *want = avx512bw ? "avx512" : avx2 ? "avx2" : "sse2";
        CHECK(strcmp(json_simd(NULL), want) == 0 ||
              (getenv("VALGRIND") != NULL && strcmp(json_simd(NULL), "avx2") == 0));
#else
        (void)avx2, (void)avx512bw;
        CHECK(strcmp(json_simd(NULL), "portable") == 0);
#endif
        CHECK(json_simd("no-such-set") == NULL);
    }

    TEST("strings: escapes, surrogate pairs, raw UTF-8, zero-copy when plain")
    {
        const char *plain = "\"hello\"";
        size_t len;
        CHECK(first(&p, plain) == JSON_STRING && json_str(&p, &len) == plain + 1 && len == 5);
        CHECK(first(&p, "\"a\\n\\t\\\"\\\\\\/\\b\\f\\r\"") == JSON_STRING &&
              str_is(&p, "a\n\t\"\\/\b\f\r", 9));
        /* json.loads('"\\ud83d\\ude00"').encode() == b'\xf0\x9f\x98\x80' */
        CHECK(first(&p, "\"\\ud83d\\ude00\"") == JSON_STRING && str_is(&p, "\xf0\x9f\x98\x80", 4));
        CHECK(first(&p, "\"\\u00e9\\u0000\"") == JSON_STRING && str_is(&p, "\xc3\xa9\0", 3));
        CHECK(first(&p, "\"caf\xc3\xa9\"") == JSON_STRING && str_is(&p, "caf\xc3\xa9", 5));
        json_parser_free(&p);
    }

    TEST("grammar errors name what was expected, at line:column")
    {
        CHECK(error_is("{\"a\": 1,\n  \"b\" 2}", "unexpected '2', expected ':'", 2, 7));
        CHECK(error_is("[1, 2", "unexpected end of input, expected ',' or ']'", 1, 6));
        CHECK(error_is("[1,]", "unexpected ']', expected a value", 1, 4));
        CHECK(error_is("{\"a\":1,}", "unexpected '}', expected a string key", 1, 8));
        CHECK(error_is("{a:1}", "unexpected 'a', expected a string key or '}'", 1, 2));
        CHECK(error_is("", "unexpected end of input, expected a value", 1, 1));
        CHECK(error_is("1 2", "unexpected '2', expected end of input", 1, 3));
        CHECK(error_is("[tru]", "invalid literal, expected 'true'", 1, 2));
        CHECK(error_is("nul", "unexpected end of input in a literal", 1, 4));
        CHECK(error_is("[01]", "invalid number: leading zero", 1, 2));
        CHECK(error_is("-", "unexpected end of input in a number", 1, 2));
        CHECK(error_is("1.", "unexpected end of input in a number", 1, 3));
        CHECK(error_is("1.e5", "invalid number: unexpected 'e', expected a digit after '.'", 1, 3));
        CHECK(error_is("[1e+]", "invalid number: unexpected ']', expected a digit in the exponent",
                       1, 5));
        CHECK(error_is("[+1]", "unexpected '+', expected a value", 1, 2));
        CHECK(error_is("\"abc", "unexpected end of input in a string", 1, 5));
        CHECK(error_is("\"a\tb\"", "unescaped control character byte 0x09 in a string", 1, 3));
        CHECK(error_is("\"\\x\"", "invalid escape '\\'x'' in a string", 1, 2));
        CHECK(error_is("\"\\ud800\"", "invalid \\u escape: high surrogate \\uD800", 1, 2));
        CHECK(error_is("\"\\udc00\"", "invalid \\u escape: lone low surrogate", 1, 2));
        CHECK(error_is("\"\\u12g4\"", "invalid \\u escape: expected 4 hexadecimal digits", 1, 2));
    }

    TEST("Python's NaN and Infinity: the message says what they likely are")
    {
        /* json.dumps(float("nan")) == "NaN" (Python writes these by default); columns by hand: "{"
           is column 1, the 12-character key in quotes 2-15, ":" 16, " " 17, "N" 18 */
        CHECK(error_is(
            "{\"mean_ttft_ms\": NaN}",
            "unexpected 'N', expected a value (NaN or Infinity? JSON has neither: Python's json", 1,
            18));
        CHECK(error_is("[1.5, Infinity]", "unexpected 'I', expected a value (NaN or Infinity?", 1,
                       7));
        CHECK(error_is("[Infinity]", "unexpected 'I', expected a value or ']' (NaN or Infinity?", 1,
                       2));
        /* -Infinity: at the 'I', where a digit was expected, as for any other byte there */
        CHECK(error_is("[-Infinity]",
                       "invalid number: unexpected 'I', expected a digit (NaN or Infinity?", 1, 3));
        /* the message is read off the one byte: the same when the input comes in pieces */
        CHECK(error_is("[-I", "invalid number: unexpected 'I', expected a digit (NaN or Infinity?",
                       1, 3));
        /* other bytes, and 'N' where a key is expected, keep the plain message */
        CHECK(error_is("[+1]", "unexpected '+', expected a value", 1, 2));
        CHECK(error_is("[-x]", "invalid number: unexpected 'x', expected a digit", 1, 3));
        CHECK(error_is("{NaN: 1}", "unexpected 'N', expected a string key or '}'", 1, 2));
    }

    TEST("invalid UTF-8 is an error at the offending byte; columns count characters")
    {
        /* overlong "/" (C0 AF), a lone continuation byte, a surrogate (ED A0 80),
           a code point past U+10FFFF (F4 90 80 80), a truncated sequence */
        CHECK(error_is("\"\xc0\xaf\"", "invalid UTF-8 byte 0xC0 in a string", 1, 2));
        CHECK(error_is("\"ab\x80\"", "invalid UTF-8 byte 0x80 in a string", 1, 4));
        CHECK(error_is("\"\xed\xa0\x80\"", "invalid UTF-8 byte 0xED in a string", 1, 2));
        CHECK(error_is("\"\xf4\x90\x80\x80\"", "invalid UTF-8 byte 0xF4 in a string", 1, 2));
        CHECK(error_is("\"\xe2\x82\"", "invalid UTF-8 byte 0xE2 in a string", 1, 2));
        /* the same after valid sequences read one after another (columns by hand: the
           quote is 1, each character one more) */
        CHECK(error_is("\"\xe2\x82\xac\xe2\x82\xac\xed\xa0\x80\"",
                       "invalid UTF-8 byte 0xED in a string", 1, 4));
        CHECK(error_is("\"\xc3\xa9\x80\"", "invalid UTF-8 byte 0x80 in a string", 1, 3));
        CHECK(error_is("\"\xe6\x97\xa5\xe6\x9c\xac\xff\"", "invalid UTF-8 byte 0xFF in a string", 1,
                       4));
        CHECK(error_is("\"\xc3\xa9 a\xc0\xaf\"", "invalid UTF-8 byte 0xC0 in a string", 1, 5));
        {
            /* 30 three-byte characters (past the 64-byte blocks), then a cut one */
            char doc[128] = "\"";
            for (int k = 0; k < 30; k++)
                strcat(doc, "\xe6\x97\xa5");
            strcat(doc, "\xe6\x97\"");
            CHECK(error_is(doc, "invalid UTF-8 byte 0xE6 in a string", 1, 32));
        }
        /* "é" is two bytes but one column: the ']' expected-error lands on column 6 */
        CHECK(error_is("[\"\xc3\xa9\" 1]", "unexpected '1', expected ',' or ']'", 1, 6));
        CHECK(error_is("\xef\xbb\xbf{}", "unexpected byte 0xEF, expected a value", 1, 1));
    }

    TEST("nesting deeper than the limit is an error, not a crash")
    {
        size_t n = JSON_MAX_DEPTH + 1;
        char *deep = malloc(2 * n + 1);
        memset(deep, '[', n);
        memset(deep + n, ']', n);
        deep[2 * n] = '\0';
        JsonParser q;
        CHECK(run_all(&q, deep) == JSON_ERROR && strstr(q.err, "nesting deeper") != NULL);
        json_parser_free(&q);
        deep[0] = ' '; /* exactly the limit */
        deep[2 * n - 1] = ' ';
        CHECK(run_all(&q, deep) == JSON_END);
        json_parser_free(&q);
        free(deep);
        /* the first object deep inside arrays (the keys' state grows to its depth at
           once): its keys are checked there like anywhere */
        static const size_t depths[] = {15, 16, 17, 40, 500, JSON_MAX_DEPTH - 1};
        for (size_t k = 0; k < sizeof depths / sizeof depths[0]; k++) {
            size_t d = depths[k];
            char *doc = malloc(2 * d + 32);
            memset(doc, '[', d);
            strcpy(doc + d, "{\"a\": 1, \"a\": 2}");
            memset(doc + d + 16, ']', d);
            doc[2 * d + 16] = '\0';
            CHECK(run_all(&q, doc) == JSON_ERROR && strstr(q.err, "duplicate key \"a\"") != NULL &&
                  q.err_off == d + 9);
            json_parser_free(&q);
            doc[d + 10] = 'b'; /* {"a": 1, "b": 2} */
            CHECK(run_all(&q, doc) == JSON_END);
            json_parser_free(&q);
            free(doc);
        }
    }

    TEST("a document fed one byte at a time gives the same tokens")
    {
        const char *text = "{\"key\\u00e9\": [12345, -6.5e-3, \"long string \\\" here\", null]}";
        JsonTok whole[32];
        int n = 0;
        json_parser_init(&p);
        json_feed(&p, text, strlen(text), 1);
        while ((whole[n] = json_next(&p)) > JSON_END)
            n++;
        json_parser_free(&p);

        /* windows grow one byte at a time; an unconsumed tail is fed again */
        size_t len = strlen(text), consumed = 0, end = 0;
        int k = 0, mismatch = 0;
        json_parser_init(&p);
        for (;;) {
            int final = end == len;
            p.base = consumed;
            json_feed(&p, text + consumed, end - consumed, final);
            JsonTok t;
            while ((t = json_next(&p)) > JSON_END) {
                if (k >= n || t != whole[k])
                    mismatch = 1;
                if (t == JSON_NUMBER && !p.integral && !float_is(&p, -6.5e-3))
                    mismatch = 1;
                k++;
            }
            if (t == JSON_END || t == JSON_ERROR) {
                CHECK(t == JSON_END);
                break;
            }
            consumed += p.pos;
            end++;
        }
        CHECK(!mismatch && k == n);
        json_parser_free(&p);
    }

    TEST("duplicate keys: an error at the second, naming it and the first, however read")
    {
        CHECK(error_is("{\"v\": 1, \"v\": 2}",
                       "duplicate key \"v\" in an object (first at line 1, byte 1)", 1, 10));
        /* escapes decoded: \u0061b is ab; the same name at other depths or in sibling
           objects is no duplicate */
        CHECK(error_is("{\"ab\": 1,\n \"\\u0061b\": 2}", "duplicate key \"ab\"", 2, 2));
        CHECK(run_all(&p, "{\"a\": {\"a\": {\"a\": 1}}, \"b\": [{\"a\": 1}, {\"a\": 2}]}") ==
              JSON_END);
        json_parser_free(&p);
        CHECK(error_is("[{\"a\": [{\"b\": 1}], \"a\": 2}]", "duplicate key \"a\"", 1, 20));
        /* the empty name, in records that repeat it (offsets by python3's str.index) */
        CHECK(error_is("[{\"\": 1}, {\"\": 1}, {\"\": 1},\n {\"\": 1, \"\": 2}]",
                       "duplicate key \"\" in an object (first at line 2, byte 30)", 2, 10));
        /* random documents: the parser, whole, through json_skip and fed in windows of
           7 bytes, fails exactly where a naive O(n^2) check over each object's names
           finds the first repeat, and nowhere else */
        int bad = 0, dups = 0;
        int record_dups = 0;
        for (int r = 0; r < 3000 && bad < 5; r++) {
            static DupGen g;
            g.n = 0;
            g.rnd = (uint64_t)r * 2654435761u + 1;
            g.first_dup = g.first_at = -1;
            dup_put(&g, "[");
            if (r % 2) {
                dup_value(&g, 0);
            } else { /* records repeating a layout per depth, from 1 to 12 keys */
                unsigned lay[4][12], nlay[4];
                for (int d = 0; d < 4; d++) {
                    nlay[d] = 1 + dup_rand(&g, 12);
                    for (unsigned i = 0; i < nlay[d]; i++)
                        lay[d][i] = (unsigned)d * 12 + i;
                }
                for (unsigned k = 2 + dup_rand(&g, 12); k > 0; k--) {
                    dup_record(&g, 0, lay, nlay);
                    if (k > 1)
                        dup_put(&g, ",");
                }
            }
            dup_put(&g, "]");
            dups += g.first_dup >= 0;
            record_dups += g.first_dup >= 0 && r % 2 == 0;
            for (int way = 0; way < 3; way++) {
                json_parser_init(&p);
                JsonTok t;
                if (way == 2) { /* windows of 7 bytes, the unconsumed tail fed again */
                    size_t consumed = 0, end = 0;
                    for (;;) {
                        end = end + 7 < g.n ? end + 7 : g.n;
                        p.base = consumed;
                        json_feed(&p, g.buf + consumed, end - consumed, end == g.n);
                        while ((t = json_next(&p)) > JSON_END)
                            ;
                        if (t != JSON_MORE)
                            break;
                        consumed += p.pos;
                    }
                } else {
                    json_feed(&p, g.buf, g.n, 1);
                    t = json_next(&p); /* [ */
                    if (way == 1)
                        t = json_skip(&p, 1);
                    while (t > JSON_END)
                        t = json_next(&p);
                }
                char first[64]; /* where the message says the first one is */
                snprintf(first, sizeof first, "(first at line 1, byte %ld)", g.first_at);
                int ok = g.first_dup < 0 ? t == JSON_END
                                         : t == JSON_ERROR && p.err_off == (uint64_t)g.first_dup &&
                                               strncmp(p.err, "duplicate key", 13) == 0 &&
                                               strstr(p.err, first) != NULL;
                if (!ok) {
                    fprintf(stderr, "  doc %d way %d: want %ld, got %d at %llu: %s\n", r, way,
                            g.first_dup, (int)t, (unsigned long long)p.err_off, p.err);
                    bad++;
                }
                json_parser_free(&p);
            }
        }
        CHECK(bad == 0 && dups > 500 && dups < 2500);   /* both outcomes well exercised */
        CHECK(record_dups > 300 && record_dups < 1200); /* in records too */
    }

    TEST("arrays of numbers passed over by json_skip end exactly as json_next reads them")
    {
        /* valid numbers (short, timestamp-long, past 32 bytes, exponents) and bad ones,
           between separators good and bad, across lines; the outcome (end, or the error's
           message, offset, line and column) must not depend on how the array is read */
        static const char *const good[] = {"0",
                                           "-0",
                                           "7",
                                           "-12",
                                           "0.5",
                                           "-0.25",
                                           "1771234500.4412345",
                                           "0.013400123004635213",
                                           "1e5",
                                           "2.5E-3",
                                           "-1E+2",
                                           "123456789012345678901234567890123456.5",
                                           "1234567890123456789012345678901234567890",
                                           "0.000000000000000000000000000001"};
        static const char *const bad[] = {
            "01",   "1.",    ".5",      "-",    "1.2.3",
            "1e",   "1e+",   "--1",     "1..2", "0x10",
            "-01",  "1.e5",  "1e5e5",   "+1",   "1.5-2",
            "tru",  "00",    "1.5e3.2", "-a",   "12345678901234567890.1.2",
            "0.5x", "\"s\"", "[1]",     "{}",   "null"};
        static const char *const sep[] = {", ", ",", ",\n  ", " ,\n", ",\r\n\t", " , "};
        static const char *const bad_sep[] = {",,", " ", "\n", ", ,", ":"};
        int bad_runs = 0, errors = 0;
        uint64_t rnd = 7;
        const char *best = json_simd(NULL);
        /* with the SIMD lane and the plain C one ("portable"), 2000 documents each */
        for (int r = 0; r < 4000 && bad_runs < 5; r++) {
            if (r % 2000 == 0)
                CHECK(json_simd(r == 0 ? best : "portable") != NULL);
            char doc[4096];
            size_t n = 0;
            doc[n++] = '[';
            unsigned count = (unsigned)((rnd = rnd * 6364136223846793005ULL + 1) >> 33) % 60;
            for (unsigned i = 0; i < count && n < sizeof doc - 200; i++) {
                rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
                unsigned x = (unsigned)(rnd >> 33);
                const char *sp = i == 0 ? "" : x % 97 == 0 ? bad_sep[x / 97 % 5] : sep[x / 7 % 6];
                const char *v = x % 89 == 0 ? bad[x / 89 % 25] : good[x / 3 % 14];
                n += (size_t)snprintf(doc + n, sizeof doc - n, "%s%s", sp, v);
            }
            n += (size_t)snprintf(doc + n, sizeof doc - n, "]");
            if (r % 5 == 0) /* cut short somewhere */
                n = 1 + (size_t)(rnd >> 40) % n;
            SkipOutcome o[3];
            for (int way = 0; way < 3; way++)
                skip_run(doc, n, way, &o[way]);
            errors += o[0].t == JSON_ERROR;
            for (int way = 1; way < 3; way++)
                if (o[way].t != o[0].t || strcmp(o[way].err, o[0].err) != 0 ||
                    (o[0].t == JSON_ERROR && (o[way].off != o[0].off || o[way].line != o[0].line ||
                                              o[way].col != o[0].col))) {
                    fprintf(stderr, "  doc %d way %d: %d %s at %llu:%llu vs %d %s at %llu:%llu\n",
                            r, way, (int)o[way].t, o[way].err, (unsigned long long)o[way].line,
                            (unsigned long long)o[way].col, (int)o[0].t, o[0].err,
                            (unsigned long long)o[0].line, (unsigned long long)o[0].col);
                    bad_runs++;
                }
        }
        CHECK(bad_runs == 0 && errors > 800 && errors < 3200); /* both outcomes exercised */
        CHECK(json_simd(best) != NULL);
    }

    TEST("JSON Lines mode accepts several top-level values")
    {
        json_parser_init(&p);
        p.multi = 1;
        const char *text = "{\"a\":1}\n{\"a\":2}\n\n[3]\n";
        json_feed(&p, text, strlen(text), 1);
        int ints = 0;
        JsonTok t;
        while ((t = json_next(&p)) > JSON_END)
            ints += t == JSON_NUMBER;
        CHECK(t == JSON_END && ints == 3 && p.line == 5);
        json_parser_free(&p);
    }

    TEST("a number beyond a double passed over (lazy) is an error at it, every lane and window")
    {
        /* A number no reader sees (the scanner passes over what no rule reads) used to be
           checked for syntax alone: 1e999 passed. Now it is the error a reader gives, at
           its first byte, whichever lane passes over its array and however the input is
           windowed. Values by Python's float(): 1.7976931348623158e308, 0.0001e312,
           100e306, 309 ones (1.11e308) and 0e999999 are doubles; 1.7976931348623159e308,
           1000e306, 309 nines, -2e308 and 0.00001e314 are inf. */
        static char long_run[2048], long_int[2048], nines[400], ones[400], fine[1024];
        size_t n = 0;
        n += (size_t)snprintf(long_run + n, sizeof long_run - n, "{\"skip\": [");
        for (int k = 0; k < 150; k++)
            n += (size_t)snprintf(long_run + n, sizeof long_run - n, "%d.5, ", k);
        (void)snprintf(long_run + n, sizeof long_run - n, "1e999, 3]}");
        memset(nines, '9', 309);
        memset(ones, '1', 309);
        n = (size_t)snprintf(long_int, sizeof long_int, "[");
        for (int k = 0; k < 60; k++)
            n += (size_t)snprintf(long_int + n, sizeof long_int - n, "%d.25, ", 1000 + k);
        n += (size_t)snprintf(long_int + n, sizeof long_int - n, "%s", nines);
        for (int k = 0; k < 40; k++) /* (so that a lane running over blocks goes past it) */
            n += (size_t)snprintf(long_int + n, sizeof long_int - n, ", %d.5", 2000 + k);
        (void)snprintf(long_int + n, sizeof long_int - n, "]");
        (void)snprintf(fine, sizeof fine,
                       "{\"a\": [1.7976931348623158e308, 0.0001e312, 100e306, %s, 0e999999, "
                       "-1.7976931348623157e308, 1e-999], \"b\": {\"c\": 100e306}}",
                       ones);
        struct {
            const char *doc, *num;
        } cases[] = {
            {"[1, 1e999]",                                "1e999"                 },
            {"{\"a\": {\"b\": [2.5, -2e308]}, \"c\": 1}", "-2e308"                },
            {"{\"x\": 1.7976931348623159e308, \"y\": 1}", "1.7976931348623159e308"},
            {"[[1000e306]]",                              "1000e306"              },
            {"{\"q\": [0.00001e314]}",                    "0.00001e314"           },
            {long_run,                                    "1e999"                 },
            {long_int,                                    nines                   },
            {fine,                                        NULL                    },
        };
        static const size_t windows[] = {0, 1, 2, 3, 7, 64};
        const char *best = json_simd(NULL);
        long bad = 0, runs = 0;
        char err[200];
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            long long want =
                cases[c].num ? (long long)(strstr(cases[c].doc, cases[c].num) - cases[c].doc) : -1;
            for (int si = 0; si < N_SIMD_SETS; si++) {
                if (json_simd(simd_sets[si]) == NULL)
                    continue;
                for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++)
                    for (int members = 0; members < 2; members++) {
                        long long got =
                            skip_error(cases[c].doc, windows[w], members, err, sizeof err);
                        runs++;
                        int ok = got == want &&
                                 (want < 0 || strncmp(err, "number out of range: ", 21) == 0);
                        if (!ok && bad++ < 5)
                            fprintf(stderr,
                                    "  %s window %zu members %d case %zu: %lld \"%s\", want %lld\n",
                                    json_simd(NULL), windows[w], members, c, got, err, want);
                    }
            }
        }
        CHECK(json_simd(best) != NULL);
        CHECK(bad == 0 && runs >= 8 * 6 * 2 * 2);
        /* the whole message, as json.decode's reader words it (its first 24 bytes shown) */
        CHECK(skip_error("[1e999]", 0, 0, err, sizeof err) == 1 &&
              strcmp(err, "number out of range: 1e999 is beyond a double (about 1.8e308); JSON has "
                          "no infinity, so the file is corrupt") == 0);
        const char *cut = "number out of range: 999999999999999999999999... is beyond a double";
        CHECK(skip_error(long_int, 0, 0, err, sizeof err) > 0 &&
              strncmp(err, cut, strlen(cut)) == 0);
        /* read (not lazy), the number is a token: its reader says where it is, with its path */
        CHECK(first(&p, "[1e999]") == JSON_ARR_BEGIN && json_next(&p) == JSON_NUMBER &&
              json_next(&p) == JSON_ARR_END && json_next(&p) == JSON_END);
        json_parser_free(&p);
    }

    TEST("utf8 validator agrees on edge cases")
    {
        CHECK(json_utf8_valid("\xf4\x8f\xbf\xbf", 4) == 4); /* U+10FFFF */
        CHECK(json_utf8_valid("\xef\xbf\xbf", 3) == 3);     /* U+FFFF */
        CHECK(json_utf8_valid("a\xe0\x80\x80", 4) == 1);    /* overlong 3-byte NUL */
        CHECK(json_utf8_valid("ab\xff", 3) == 2);
    }

    json_parser_free(&p);
    return test_report();
}
