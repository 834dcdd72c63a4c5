/*
** json.h — a Lua-free JSON pull parser (RFC 8259) with exact error positions.
**
** The parser hands out one token at a time and enforces the grammar, so a consumer
** (llmd.json's decoder, llmd.scan's streaming matcher) never sees malformed structure.
** Input may come whole or in windows: with final == 0, a token cut by the end of the
** window yields JSON_MORE and the caller feeds the unconsumed tail plus more bytes.
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
    JSON_KEY,    /* p.str, p.slen: an object key */
    JSON_STRING, /* p.str, p.slen: a string value */
    JSON_INT,    /* p.ival: an integer that fits in int64 */
    JSON_FLOAT,  /* p.dval: any other number, as strtod reads it */
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
    unsigned char stack[JSON_MAX_DEPTH];

    /* the current token; str stays valid until the next json_next or json_feed */
    uint64_t tok_off; /* absolute offset of the token's first byte */
    const char *str;
    size_t slen;
    int64_t ival;
    double dval;

    /* decoded strings that contain escapes are built here */
    char *scratch;
    size_t scap;

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

/* "expected a value", "expected ',' or '}'"... for the parser's current state. */
const char *json_expected(const JsonParser *p);

/*
** Checks that s[0..n) is valid UTF-8 (no overlong forms, no surrogates, nothing past
** U+10FFFF). Returns n, or the offset of the first bad byte.
*/
size_t json_utf8_valid(const char *s, size_t n);

#endif
