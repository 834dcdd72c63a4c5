/*
** json.h — a Lua-free JSON pull parser (RFC 8259) with exact error positions.
**
** The parser hands out one token at a time and enforces the whole grammar (strings
** with their escapes and UTF-8, numbers, literals, structure), so a consumer never
** sees malformed input. Tokens are lazy: a string or number token is a raw span of
** the input, converted only when the consumer asks (json_str, json_num), so a
** streaming scan pays for what it uses.
**
** Input may come whole or in windows: with final == 0, a token cut by the end of the
** window yields JSON_MORE, and the caller feeds the unconsumed tail plus more bytes.
**
**   JsonParser p;
**   json_parser_init(&p);
**   json_feed(&p, text, len, 1);
**   for (JsonTok t; (t = json_next(&p)) > JSON_END;) ...
**   if (t == JSON_ERROR) ... p.err, p.err_line, p.err_col, p.err_off
**   json_parser_free(&p);
*/
#ifndef LLMD_JSON_H
#define LLMD_JSON_H

#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 1000

typedef enum JsonTok {
    JSON_ERROR = -1,
    JSON_MORE = 0, /* the window ends inside a token: feed more input */
    JSON_END = 1,  /* the input is complete and so is the document */
    JSON_OBJ_BEGIN,
    JSON_OBJ_END,
    JSON_ARR_BEGIN,
    JSON_ARR_END,
    JSON_KEY,    /* an object key: json_str */
    JSON_STRING, /* a string value: json_str */
    JSON_NUMBER, /* json_num */
    JSON_TRUE,
    JSON_FALSE,
    JSON_NULL,
} JsonTok;

typedef struct JsonParser {
    /* the window */
    const char *buf;
    size_t len, pos;
    int final;
    uint64_t base; /* absolute offset of buf[0] */

    /* position: lines change only in whitespace, so they are counted there */
    uint64_t line;       /* 1-based */
    uint64_t line_start; /* absolute offset of the line's first byte */

    /* structure */
    int depth;
    int state;
    int multi; /* accept several top-level values in a row (JSON Lines) */
    int lazy;  /* the consumer will not ask for the next values: numbers are only
                  validated (json_num then reads them the slow way), and one beyond a
                  double (1e999) is an error there, since no reader will see it */
    unsigned char stack[JSON_MAX_DEPTH];

    /* the current token: a raw span of the window, valid until the next json_next
       or json_feed. Strings: the bytes between the quotes; numbers: the number. */
    uint64_t tok_off; /* absolute offset of the token's first byte */
    const char *raw;
    size_t rawlen;
    int escaped;  /* a string token holds escapes: json_str decodes it */
    int integral; /* a number token has no fraction and no exponent */
    /* a number token's value as read while validating it: mant * 10^exp10 */
    uint64_t mant;
    long exp10;
    int neg;
    int exact_digits; /* mant holds every significant digit (at most 19) */

    /* decoded strings with escapes, and long numbers, are built here */
    char *scratch;
    size_t scap;

    /* duplicate keys: the names read so far in every open object (their bytes, one
       entry each, in order); per open object, where its entries start, a 64-bit filter
       of their hashes, and whether they are also in the hash table (objects with many
       keys: entry index + 1 per slot, 0 is free) */
    char *kbytes;
    size_t kblen, kbcap;
    struct JsonKeyEntry *kent;
    size_t nkent, kentcap;
    size_t *kslot;
    size_t nkslot, nintable;
    struct JsonKeyObject *kobj; /* by depth, grown as objects open deeper */
    int kobjcap;
    int klayouts; /* depths below this one may hold key layouts (see json.c) */

    /* the error, when json_next returned JSON_ERROR */
    char err[160];
    uint64_t err_off, err_line, err_col;
} JsonParser;

void json_parser_init(JsonParser *p);
void json_parser_free(JsonParser *p);

/*
** Sets the next window. After JSON_MORE, pass the bytes from buf + pos on (they were
** not consumed) followed by new input, with base advanced by pos.
*/
void json_feed(JsonParser *p, const char *buf, size_t len, int final);

JsonTok json_next(JsonParser *p);
/*
** Keys: an object holding the same name twice (after decoding escapes) is an error at
** the second, naming the key and where the first was, whichever way it is read
** (json_next, json_skip, json_skip_members): one rule for every consumer.
*/

/*
** Reads on through the container whose contents are at depth (p->depth just after its
** OBJ_BEGIN or ARR_BEGIN) to its end, validating everything as json_next does but
** returning no token in between: returns its OBJ_END or ARR_END, or JSON_MORE (feed
** more input and call again), JSON_ERROR or JSON_END as json_next would.
*/
JsonTok json_skip(JsonParser *p, int depth);

/* The member names a consumer watches in an object, for json_skip_members. */
#define JSON_KEYS_MAX 8
typedef struct JsonKeys {
    int n;
    const char *key[JSON_KEYS_MAX];
    size_t len[JSON_KEYS_MAX];
    uint64_t lens; /* bit len[k] % 64 set for each k: most other names are passed over on
                      their length alone */
} JsonKeys;

/*
** In the object whose members are at depth (p->depth inside it), between two members:
** reads on past the members whose names are not in keys (their values validated as
** json_skip does, none returned), and returns the first KEY whose name is in keys or
** holds an escape (the caller decodes it and decides), the object's OBJ_END, or
** JSON_MORE, JSON_ERROR, JSON_END as json_next would.
*/
JsonTok json_skip_members(JsonParser *p, int depth, const JsonKeys *keys);

/*
** The decoded bytes of the current KEY or STRING token (the raw span itself when it
** holds no escape, else a decoding in scratch). NULL only when out of memory.
*/
const char *json_str(JsonParser *p, size_t *len);

/*
** The value of the current NUMBER token: returns 1 and sets *i when the number is
** integral and fits in int64, else returns 0 and sets *d (as strtod reads it).
*/
int json_num(JsonParser *p, int64_t *i, double *d);

/*
** The fast lane for arrays of numbers: right after a NUMBER element of an array, reads
** the elements that follow while they are numbers, into out[0..max) (each as json_num
** gives it, as a double), and returns how many. It stops before anything else (the
** array's end, another kind of value, a bad or cut number, the window's end) and leaves
** the parser where json_next goes on from, so errors are reported as json_next reports
** them. Returns 0 when the parser is not after an array element, or lazy.
*/
size_t json_next_numbers(JsonParser *p, double *out, size_t max);
/*
** The instruction set strings (and numbers passed over) are scanned with: "avx512",
** "avx2" or "sse2" on x86-64 (the best this CPU has, chosen at start-up), "portable"
** (plain C) elsewhere, or on x86-64 when asked for. With want, switches to that one if
** the CPU has it (the tests compare them) and returns its name, else returns NULL and
** changes nothing.
*/
const char *json_simd(const char *want);
/*
** Converts valid JSON number text s[0..n) to the double strtod gives, fast in the
** common cases (see json.c for why the fast path is exact).
*/
double json_strtod(const char *s, size_t n);

/* 1 with *out = the value strtod gives when s[0..n) is exactly JSON's number grammar,
   else 0 (*out untouched): validation and conversion in one pass. */
int json_number_value(const char *s, size_t n, double *out);
/* The same, where avail >= n bytes from s may be read (faster: digits 8 at a time). */
int json_number_in(const char *s, size_t n, size_t avail, double *out);
/*
** Cells of numbers, many in one call (a CSV column): cell k is buf[base + stops[k stride]
** + 1 .. base + stops[k stride + 1]) (the offsets wrap: stops[0] may be UINT32_MAX, for a
** cell at base), each cell ending after the one before, buf[0..n) readable. Each goes
** into out[k] as json_number_in reads it; returns how many were numbers before the first
** that is not (count when all were).
*/
size_t json_number_cells(const char *buf, size_t n, size_t base, const uint32_t *stops,
                         size_t stride, size_t count, double *out);

/* The 1-based line and column (in characters when the line is in the window) of the
   absolute offset off, which must lie on the parser's current line. */
void json_where(const JsonParser *p, uint64_t off, uint64_t *line, uint64_t *col);

/* "expected a value", "expected ',' or '}'"... for the parser's current state. */
const char *json_expected(const JsonParser *p);

/*
** Checks that s[0..n) is valid UTF-8 (no overlong forms, no surrogates, nothing past
** U+10FFFF). Returns n, or the offset of the first bad byte.
*/
size_t json_utf8_valid(const char *s, size_t n);

#endif
