/*
** libFuzzer target for the JSON pull parser: any input must end in JSON_END or a
** positioned JSON_ERROR, never a crash or undefined behaviour; decoded strings are
** valid UTF-8; and the same input fed in small windows gives the same tokens and
** the same error offset. Arrays of numbers read with json_next_numbers (the scanner's
** lane) and containers passed over with json_skip give the same numbers and the same
** error offset with every instruction set as with the plain C path. The input split at
** ',' and '\n' into cells also goes through json_number_cells, with every instruction
** set: each cell as json_number_in reads it.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static uint64_t run(const uint8_t *data, size_t size, size_t window, uint64_t *err_off)
{
    JsonParser p;
    json_parser_init(&p);
    uint64_t h = 1469598103934665603ULL;
    size_t consumed = 0, end = window ? (window < size ? window : size) : size;
    for (;;) {
        p.base = consumed;
        json_feed(&p, (const char *)data + consumed, end - consumed, end == size);
        JsonTok t;
        while ((t = json_next(&p)) > JSON_END) {
            h = (h ^ (uint64_t)t) * 1099511628211ULL;
            if (t == JSON_STRING || t == JSON_KEY) {
                size_t n;
                const char *s = json_str(&p, &n);
                if (s == NULL || json_utf8_valid(s, n) != n)
                    abort(); /* validated strings decode to valid UTF-8 */
                for (size_t i = 0; i < n; i++)
                    h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
            } else if (t == JSON_NUMBER) {
                int64_t i;
                double d;
                if (json_num(&p, &i, &d)) {
                    h ^= (uint64_t)i;
                } else {
                    uint64_t bits;
                    memcpy(&bits, &d, sizeof bits);
                    h ^= bits;
                }
                h *= 1099511628211ULL;
            }
        }
        if (t == JSON_ERROR) {
            *err_off = p.err_off;
            h ^= 0xE;
            break;
        }
        if (t == JSON_END)
            break;
        consumed += p.pos;
        end = end + (window ? window : 1) < size ? end + (window ? window : 1) : size;
    }
    json_parser_free(&p);
    return h;
}

/* json_number_cells over the cells of data (between ',' and '\n'), in data itself (a
   read outside it is ASan's), against json_number_in cell by cell. */
static void cells(const uint8_t *data, size_t size)
{
    enum { MAXC = 256 };
    static const char *const sets[] = {"avx512", "avx2", "sse2", "portable"};
    uint32_t stops[MAXC + 1];
    size_t nst = 0;
    stops[nst++] = UINT32_MAX; /* the one before the first cell */
    for (size_t i = 0; i < size && nst <= MAXC; i++)
        if (data[i] == ',' || data[i] == '\n')
            stops[nst++] = (uint32_t)i;
    size_t count = nst - 1;
    const char *best = json_simd(NULL), *b = (const char *)data;
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        if (json_simd(sets[s]) == NULL)
            continue;
        double got[MAXC];
        size_t n = json_number_cells(b, size, 0, stops, 1, count, got);
        if (n > count)
            abort();
        for (size_t k = 0; k <= n && k < count; k++) {
            uint32_t from = stops[k] + 1;
            double want;
            int ok = json_number_in(b + from, stops[k + 1] - from, size - from, &want);
            if (k < n ? !ok || memcmp(&want, &got[k], sizeof want) != 0 : ok)
                abort();
        }
    }
    if (json_simd(best) == NULL)
        abort();
}

/* The numbers of the input as the scanner reads arrays (json_next_numbers after each
   number, 7 at a time), hashed, with the error offset in *err_off. */
static uint64_t run_numbers(const uint8_t *data, size_t size, uint64_t *err_off)
{
    JsonParser p;
    json_parser_init(&p);
    json_feed(&p, (const char *)data, size, 1);
    uint64_t h = 1469598103934665603ULL;
    JsonTok t;
    while ((t = json_next(&p)) > JSON_END) {
        if (t != JSON_NUMBER)
            continue;
        int64_t i;
        double d, xs[7];
        if (json_num(&p, &i, &d))
            d = (double)i;
        size_t m = 1;
        xs[0] = d;
        do {
            for (size_t k = 0; k < m; k++) {
                uint64_t bits;
                memcpy(&bits, &xs[k], sizeof bits);
                h = (h ^ bits) * 1099511628211ULL;
            }
        } while ((m = json_next_numbers(&p, xs, 7)) > 0);
    }
    if (t == JSON_ERROR)
        *err_off = p.err_off;
    json_parser_free(&p);
    return h ^ (uint64_t)t;
}

/* The input with every container passed over by json_skip (lazy, as the scanner passes
   over what no rule reads): the last token and the error offset. */
static uint64_t run_skip(const uint8_t *data, size_t size, uint64_t *err_off)
{
    JsonParser p;
    json_parser_init(&p);
    json_feed(&p, (const char *)data, size, 1);
    p.lazy = 1;
    JsonTok t = json_next(&p);
    while (t > JSON_END)
        t = t == JSON_ARR_BEGIN || t == JSON_OBJ_BEGIN ? json_skip(&p, p.depth) : json_next(&p);
    if (t == JSON_ERROR)
        *err_off = p.err_off;
    json_parser_free(&p);
    return (uint64_t)t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t e1 = UINT64_MAX, e2 = UINT64_MAX;
    uint64_t whole = run(data, size, 0, &e1);
    size_t window = size ? 1 + data[0] % 7 : 1;
    uint64_t windowed = run(data, size, window, &e2);
    if (whole != windowed || e1 != e2)
        abort();
    /* each instruction set against the plain C path */
    static const char *const sets[] = {"avx512", "avx2", "sse2"};
    const char *best = json_simd(NULL);
    uint64_t ne = UINT64_MAX, se = UINT64_MAX;
    json_simd("portable");
    uint64_t nums = run_numbers(data, size, &ne), skip = run_skip(data, size, &se);
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        if (json_simd(sets[k]) == NULL)
            continue;
        uint64_t ne2 = UINT64_MAX, se2 = UINT64_MAX;
        if (run_numbers(data, size, &ne2) != nums || ne2 != ne ||
            run_skip(data, size, &se2) != skip || se2 != se)
            abort();
    }
    json_simd(best);
    cells(data, size);
    return 0;
}
