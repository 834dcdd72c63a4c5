/*
** json.c — the JSON pull parser declared in json.h.
*/
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "json.c reads 8 bytes at a time as little-endian words (x86-64, aarch64)"
#endif

enum {
    ST_VALUE,       /* a value: at the start, after ':' and after ',' in an array */
    ST_FIRST_VALUE, /* after '[': a value or ']' */
    ST_FIRST_KEY,   /* after '{': a key or '}' */
    ST_KEY,         /* after ',' in an object */
    ST_COLON,       /* after a key */
    ST_NEXT,        /* after a value in a container: ',' or the closing bracket */
    ST_DONE,        /* after the top-level value */
};

void json_parser_init(JsonParser *p)
{
    memset(p, 0, sizeof *p);
    p->line = 1;
    p->state = ST_VALUE;
}

static void key_layouts_free(JsonParser *p);

void json_parser_free(JsonParser *p)
{
    free(p->scratch);
    p->scratch = NULL;
    p->scap = 0;
    free(p->kbytes);
    free(p->kent);
    free(p->kslot);
    key_layouts_free(p);
    free(p->kobj);
    p->kobj = NULL;
    p->kobjcap = p->klayouts = 0;
    p->kbytes = NULL;
    p->kent = NULL;
    p->kslot = NULL;
    p->kblen = p->kbcap = p->nkent = p->kentcap = p->nkslot = p->nintable = 0;
}

void json_feed(JsonParser *p, const char *buf, size_t len, int final)
{
    p->buf = buf;
    p->len = len;
    p->pos = 0;
    p->final = final;
}

const char *json_expected(const JsonParser *p)
{
    int in_obj = p->depth > 0 && p->stack[p->depth - 1] == '{';
    switch (p->state) {
    case ST_VALUE:
        return "expected a value";
    case ST_FIRST_VALUE:
        return "expected a value or ']'";
    case ST_FIRST_KEY:
        return "expected a string key or '}'";
    case ST_KEY:
        return "expected a string key";
    case ST_COLON:
        return "expected ':'";
    case ST_NEXT:
        return in_obj ? "expected ',' or '}'" : "expected ',' or ']'";
    default:
        return "expected end of input";
    }
}

/* Column in characters (UTF-8 lead bytes) when the line start is in the window. */
static uint64_t column_of(const JsonParser *p, uint64_t off)
{
    if (p->line_start < p->base || off < p->line_start)
        return off - p->line_start + 1;
    uint64_t col = 1;
    for (uint64_t i = p->line_start; i < off && i - p->base < p->len; i++)
        if (((unsigned char)p->buf[i - p->base] & 0xC0) != 0x80)
            col++;
    return col;
}

void json_where(const JsonParser *p, uint64_t off, uint64_t *line, uint64_t *col)
{
    *line = p->line;
    *col = column_of(p, off);
}

#if defined(__GNUC__)
static JsonTok fail(JsonParser *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#endif

static JsonTok fail(JsonParser *p, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    /* clang-tidy 14 reports va_start'ed lists as uninitialised here: a false positive */
    (void)vsnprintf(p->err, sizeof p->err, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    p->err_off = p->base + at;
    p->err_line = p->line;
    p->err_col = column_of(p, p->err_off);
    p->pos = at;
    return JSON_ERROR;
}

/* "'x'" for a printable ASCII byte, "byte 0xNN" otherwise. */
static const char *describe(char *out, size_t size, unsigned char c)
{
    if (c >= 0x20 && c < 0x7F)
        (void)snprintf(out, size, "'%c'", c);
    else
        (void)snprintf(out, size, "byte 0x%02X", c);
    return out;
}

/* Python's json module writes NaN, Infinity and -Infinity for numbers JSON cannot hold (a
** mean of no samples, say): where a value cannot start with 'N' or 'I', the message says
** what it likely is. Read off that one byte, never the bytes after it, so the message and
** its place are the same whichever way the input is cut into windows. */
#define PYTHON_LITERAL_HINT                                                                        \
    " (NaN or Infinity? JSON has neither: Python's json module writes them for an undefined or "   \
    "infinite number, and the file's writer made invalid JSON)"

static JsonTok unexpected(JsonParser *p, size_t at)
{
    char what[16];
    unsigned char c = (unsigned char)p->buf[at];
    int hint = (p->state == ST_VALUE || p->state == ST_FIRST_VALUE) && (c == 'N' || c == 'I');
    return fail(p, at, "unexpected %s, %s%s", describe(what, sizeof what, c), json_expected(p),
                hint ? PYTHON_LITERAL_HINT : "");
}

/* The window ended inside a token at 'start': ask for more, or fail at the end. */
static JsonTok cut(JsonParser *p, size_t start, const char *what)
{
    if (!p->final) {
        p->pos = start;
        return JSON_MORE;
    }
    return fail(p, p->len, "unexpected end of input %s", what);
}

/*
** Length of the UTF-8 sequence at s (1..4) if valid, 0 if invalid, -1 if cut short: the
** continuation bytes are checked in order (a cut one first says -1), then the value's
** range (no overlong form, no surrogate, nothing past U+10FFFF), which the lead byte
** and the first continuation byte decide.
*/
static inline int utf8_seq(const unsigned char *s, size_t avail)
{
    unsigned c = s[0];
    int n = c < 0x80                 ? 1
            : c >= 0xC2 && c <= 0xDF ? 2
            : c >= 0xE0 && c <= 0xEF ? 3
            : c >= 0xF0 && c <= 0xF4 ? 4
                                     : 0;
    if (n <= 1)
        return n;
    for (int k = 1; k < n; k++) {
        if ((size_t)k >= avail)
            return -1;
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    }
    unsigned s1 = s[1];
    if ((c == 0xE0 && s1 < 0xA0) || (c == 0xED && s1 > 0x9F) || (c == 0xF0 && s1 < 0x90) ||
        (c == 0xF4 && s1 > 0x8F))
        return 0; /* overlong, a surrogate, past U+10FFFF */
    return n;
}

size_t json_utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        int k = utf8_seq(u + i, n - i);
        if (k <= 0)
            return i;
        i += (size_t)k;
    }
    return n;
}

static int scratch_reserve(JsonParser *p, size_t need)
{
    if (need <= p->scap)
        return 0;
    size_t cap = p->scap ? p->scap : 256;
    while (cap < need)
        cap *= 2;
    char *s = (char *)realloc(p->scratch, cap);
    if (s == NULL)
        return -1;
    p->scratch = s;
    p->scap = cap;
    return 0;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/*
** A \\uXXXX escape at buf[i]: 1 and *cp when complete and valid, -1 when the bytes
** there cannot be one, 0 when the window ends before it is complete.
*/
static int escape_u(const JsonParser *p, size_t i, unsigned *cp)
{
    static const char pre[] = "\\u";
    for (size_t k = 0; k < 6; k++) {
        if (i + k >= p->len)
            return p->final ? -1 : 0;
        char c = p->buf[i + k];
        int ok = k < 2 ? c == pre[k] : isxdigit((unsigned char)c) != 0;
        if (!ok)
            return -1;
    }
    return hex4(p->buf + i + 2, cp) == 0 ? 1 : -1;
}

/* The characters that may follow a backslash, but for 'u'. */
static const unsigned char simple_escape[256] = {
    ['"'] = 1, ['\\'] = 1, ['/'] = 1, ['b'] = 1, ['f'] = 1, ['n'] = 1, ['r'] = 1, ['t'] = 1};

#if defined(__SSE2__)
#include <emmintrin.h>

/* Bit i set when byte i of the 16 at p needs a look: '"', '\\', < 0x20 or >= 0x80. */
static unsigned special16(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    __m128i c = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, b), c)) |
           (unsigned)_mm_movemask_epi8(v); /* the high bit: non-ASCII */
}
#endif

/*
** The same for 8 bytes, in plain C (SWAR): 0x80 in each byte that needs a look. A
** borrow may also flag bytes above a flagged one, never below it, so the lowest flag
** is exact.
*/
static uint64_t special8(uint64_t v)
{
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
    uint64_t has_q = (q - ones) & ~q & high;
    uint64_t has_b = (b - ones) & ~b & high;
    uint64_t has_ctl = (v - ones * 0x20) & ~v & high;
    return has_q | has_b | has_ctl | (v & high);
}

#if defined(__SSE2__)
/* The quotes, backslashes, control bytes and non-ASCII bytes of 64 bytes as bit masks. */
typedef struct Masks64 {
    uint64_t quote, bslash, other; /* other: a control or non-ASCII byte */
} Masks64;

static inline Masks64 masks64_sse2(const unsigned char *p)
{
    Masks64 m = {0, 0, 0};
    for (unsigned k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + (size_t)16 * k));
        uint64_t q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
        uint64_t bs = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
        /* signed: bytes >= 0x80 are negative, below 0x20 too */
        uint64_t o = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
        m.quote |= q << (16 * k);
        m.bslash |= bs << (16 * k);
        m.other |= o << (16 * k);
    }
    return m;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define JSON_WIDE_SIMD 1
#include <cpuid.h>
#include <immintrin.h>

__attribute__((target("avx2,bmi,bmi2"))) static inline Masks64 masks64_avx2(const unsigned char *p)
{
    __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\'),
                  space = _mm256_set1_epi8(0x20);
    Masks64 m;
    m.quote = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, quote)) |
              (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, quote)) << 32;
    m.bslash = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, bslash)) |
               (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, bslash)) << 32;
    /* signed: bytes >= 0x80 are negative, below 0x20 too */
    m.other = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(space, lo)) |
              (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(space, hi)) << 32;
    return m;
}

__attribute__((target("avx512f,avx512bw,bmi,bmi2"))) static inline Masks64
masks64_avx512(const unsigned char *p)
{
    __m512i v = _mm512_loadu_si512((const void *)p);
    Masks64 m;
    m.quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    m.bslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    m.other = _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(0x20)); /* signed, as above */
    /* The bit arithmetic on these belongs in general registers: left to itself GCC
       does it in mask registers, with a round trip each time (twice as slow on strings
       full of escapes). So: the masks go to general registers here, and the wide loops
       are built for BMI too, or GCC uses the mask registers for its and-not. */
    __asm__("" : "+r"(m.quote), "+r"(m.bslash), "+r"(m.other));
    return m;
}
#endif

/*
** The escaped bytes of a block: a run of backslashes escapes every second byte after its
** start, and the byte after the run when the run is odd. Adding a run's start bit to the
** backslash mask carries through the run, so (bs + starts) ^ bs is each run with the
** byte after it; runs starting on even bits escape the odd bits of that span and the
** other way round. *carry: in, byte 0 is escaped (by the previous block); out, the same
** for the next block (an odd-started run that reaches bit 63 escapes bit 64).
*/
static inline uint64_t escaped64(uint64_t bs, int *carry)
{
    const uint64_t even = 0x5555555555555555ULL, odd = ~even;
    uint64_t in = (uint64_t)(*carry != 0);
    bs &= ~in; /* an escaped backslash starts nothing */
    uint64_t starts = bs & ~(bs << 1);
    uint64_t sum_even = bs + (starts & even), sum_odd;
    *carry = __builtin_add_overflow(bs, starts & odd, &sum_odd);
    return (((sum_even ^ bs) & odd) | ((sum_odd ^ bs) & even)) | in;
}

/* One block loop per instruction set (json_blocks.h), the best the CPU has chosen at
   start-up: strings written by harnesses are long, and hold JSON inside JSON. */
#define BLOCKS_NAME blocks64_sse2
#define BLOCKS_TARGET
#define BLOCKS_MASKS masks64_sse2
#include "json_blocks.h"
#undef BLOCKS_NAME
#undef BLOCKS_TARGET
#undef BLOCKS_MASKS

#ifdef JSON_WIDE_SIMD
#define BLOCKS_NAME blocks64_avx2
#define BLOCKS_TARGET __attribute__((target("avx2,bmi,bmi2")))
#define BLOCKS_MASKS masks64_avx2
#include "json_blocks.h"
#undef BLOCKS_NAME
#undef BLOCKS_TARGET
#undef BLOCKS_MASKS
#define BLOCKS_NAME blocks64_avx512
#define BLOCKS_TARGET __attribute__((target("avx512f,avx512bw,bmi,bmi2")))
#define BLOCKS_MASKS masks64_avx512
#include "json_blocks.h"
#undef BLOCKS_NAME
#undef BLOCKS_TARGET
#undef BLOCKS_MASKS
#endif

typedef size_t (*Blocks64Fn)(const unsigned char *, size_t, size_t, int *, int *);
static const struct {
    const char *name, *cpu; /* cpu: for __builtin_cpu_supports */
    Blocks64Fn fn;
} block_scanners[] = {
#ifdef JSON_WIDE_SIMD
    {"avx512",   "avx512bw", blocks64_avx512},
    {"avx2",     "avx2",     blocks64_avx2  },
#endif
    {"sse2",     NULL,       blocks64_sse2  },
    {"portable", NULL,       NULL           }, /* never chosen: the tests ask for it */
};
enum { N_SCANNERS = sizeof block_scanners / sizeof block_scanners[0] };
static int block_scanner = N_SCANNERS - 2;
static int simd_lanes = 1; /* block_scanners[block_scanner].fn != NULL, in one load */
#ifdef JSON_WIDE_SIMD
static int wide_numbers = 0; /* json_next_numbers' AVX2 lane: with "avx2" or "avx512",
                                 and LZCNT */
static int wide_skip = 0;    /* json_skip's block lane with AVX-512: with "avx512" */
static int wide_cells = 0;   /* json_number_cells' AVX2 lane: the same, and LZCNT; 2: the
                                AVX-512 lane, with "avx512" (and VL, DQ, CD) */
#endif

#ifdef JSON_WIDE_SIMD
/* LZCNT (CPUID 0x80000001, ECX bit 5: "ABM" on AMD): every AVX2 CPU has it, but asked
   (__builtin_cpu_supports does not know it under clang). */
static int cpu_lzcnt(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(0x80000001, &a, &b, &c, &d) && (c & 1u << 5) != 0;
}
#endif

/* Makes scanner k the one in use. */
static void use_scanner(int k)
{
    block_scanner = k;
    simd_lanes = block_scanners[k].fn != NULL;
#ifdef JSON_WIDE_SIMD
    wide_numbers = block_scanners[k].cpu != NULL && cpu_lzcnt();
    wide_skip = strcmp(block_scanners[k].name, "avx512") == 0;
    wide_cells = wide_numbers;
    if (wide_cells && strcmp(block_scanners[k].name, "avx512") == 0 &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd") &&
        __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni"))
        wide_cells = 2; /* (DQ: VCVTQQ2PD; CD: VPLZCNTQ; VBMI: VPERMB; GFNI: GF2P8AFFINEQB) */
#endif
}

/* The SIMD lanes are on (not "portable"). */
static inline int simd_on(void)
{
    return simd_lanes;
}

static int cpu_has(const char *feature)
{
    if (feature == NULL)
        return 1; /* the baseline */
#ifdef JSON_WIDE_SIMD
    __builtin_cpu_init();
    /* both wide loops are also compiled for BMI1/2 (see masks64_avx512) */
    int bmi = __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    if (strcmp(feature, "avx512bw") == 0)
        return bmi && __builtin_cpu_supports("avx512bw");
    if (strcmp(feature, "avx2") == 0)
        return bmi && __builtin_cpu_supports("avx2");
#endif
    return 0;
}

__attribute__((constructor)) static void block_scanner_init(void)
{
    for (int k = 0; k < N_SCANNERS; k++)
        if (cpu_has(block_scanners[k].cpu)) {
            use_scanner(k);
            return;
        }
}

const char *json_simd(const char *want)
{
    if (want == NULL)
        return block_scanners[block_scanner].name;
    for (int k = 0; k < N_SCANNERS; k++)
        if (strcmp(want, block_scanners[k].name) == 0 && cpu_has(block_scanners[k].cpu)) {
            use_scanner(k);
            return block_scanners[k].name;
        }
    return NULL;
}
#else
/* Without SSE2 (aarch64, or x86 built with -mno-sse2) every path is the portable one. */
static inline int simd_on(void)
{
    return 0;
}

const char *json_simd(const char *want)
{
    return want == NULL || strcmp(want, "portable") == 0 ? "portable" : NULL;
}
#endif

/*
** From i, skips plain bytes and the simple escapes (\" \\ \/ \b \f \n \r \t) of a
** string; returns the offset of the first byte the caller must handle: the closing
** quote, a control or non-ASCII byte, a backslash starting \u or an invalid escape, or
** one whose escape is past the window (n if none). Sets *escaped when it skipped one.
*/
static size_t next_special(const unsigned char *b, size_t i, size_t n, int *escaped)
{
#if defined(__SSE2__)
    int carry;
    if (!simd_on())
        goto portable;
    i = block_scanners[block_scanner].fn(b, i, n, escaped, &carry);
    if (carry < 0)
        return i;
    if (carry) { /* the byte at i is escaped by the backslash before it */
        if (i >= n || !simple_escape[b[i]])
            return i - 1;
        *escaped = 1;
        i++;
    }
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
        unsigned bs = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
        unsigned stop = special16(b + i) & ~bs;
        if ((bs | stop) == 0) {
            i += 16;
            continue;
        }
        size_t next = 16;
        while (bs != 0) {
            unsigned k = (unsigned)__builtin_ctz(bs);
            if (stop & ((1u << k) - 1))
                break; /* a quote or the like comes first */
            if (i + k + 1 >= n || !simple_escape[b[i + k + 1]])
                return i + k; /* \u, an invalid escape, or the window ends */
            *escaped = 1;
            bs &= ~(1u << k);
            if (k + 1 < 16) { /* the escaped byte is no quote nor backslash of its own */
                bs &= ~(1u << (k + 1));
                stop &= ~(1u << (k + 1));
            } else {
                next = 17; /* it was the next block's first byte */
            }
        }
        if (stop != 0)
            return i + (size_t)__builtin_ctz(stop);
        i += next;
    }
portable:
#else
    (void)escaped; /* the portable loop below stops at every backslash */
#endif
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, b + i, 8);
        uint64_t m = special8(v);
        if (m != 0) /* little-endian: the first byte is the lowest */
            return i + (size_t)(__builtin_ctzll(m) >> 3);
    }
    while (i < n && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' && b[i] < 0x80)
        i++;
    return i;
}

static JsonTok parse_string_from(JsonParser *p, size_t i);

/*
** A string starting at the quote at p->pos: validates escapes, control bytes and
** UTF-8, and sets raw/rawlen to the bytes between the quotes (escaped says whether
** json_str must decode them). Advances pos past the closing quote. Inline for the
** common short string (keys, names): a quote within 32 bytes with nothing before it
** to look at; the rest in parse_string_from.
*/
static inline JsonTok parse_string(JsonParser *p)
{
    size_t start = p->pos, i = start + 1;
#if defined(__SSE2__)
    const unsigned char *b = (const unsigned char *)p->buf;
    for (int k = 0; k < 2 && i + 16 <= p->len && simd_on(); k++) {
        unsigned m = special16(b + i);
        if (m == 0) {
            i += 16;
            continue;
        }
        i += (size_t)__builtin_ctz(m);
        if (b[i] == '"') {
            p->raw = p->buf + start + 1;
            p->rawlen = i - start - 1;
            p->escaped = 0;
            p->pos = i + 1;
            return JSON_STRING;
        }
        break; /* nothing before i needs a look: go on from there */
    }
#endif
    return parse_string_from(p, i);
}

/* The rest of parse_string: the string's bytes before i are plain. */
static JsonTok parse_string_from(JsonParser *p, size_t i)
{
    const unsigned char *b = (const unsigned char *)p->buf;
    size_t start = p->pos, n = p->len;
    int escaped = 0;

    for (;;) {
        i = next_special(b, i, n, &escaped);
        if (i >= n)
            return cut(p, start, "in a string");
        unsigned c = b[i];
        if (c == '"') {
            p->raw = p->buf + start + 1;
            p->rawlen = i - start - 1;
            p->escaped = escaped;
            p->pos = i + 1;
            return JSON_STRING;
        }
        if (c < 0x20) {
            char what[16];
            return fail(p, i, "unescaped control character %s in a string",
                        describe(what, sizeof what, (unsigned char)c));
        }
        if (c >= 0x80) { /* one sequence after another while they follow each other
                            (text in another script), without a trip through next_special */
            do {
                int k = utf8_seq(b + i, n - i);
                if (k < 0)
                    return cut(p, start, "in a string");
                if (k == 0)
                    return fail(p, i, "invalid UTF-8 byte 0x%02X in a string", b[i]);
                i += (size_t)k;
            } while (i < n && b[i] >= 0x80);
            continue;
        }
        /* c == '\\' */
        escaped = 1;
        if (i + 1 >= n)
            return cut(p, start, "in a string");
        char e = (char)b[i + 1];
        if (simple_escape[(unsigned char)e]) {
            i += 2;
            continue;
        }
        if (e != 'u') {
            char what[16];
            return fail(p, i, "invalid escape '\\%s' in a string",
                        describe(what, sizeof what, (unsigned char)e));
        }
        unsigned cp;
        int h = escape_u(p, i, &cp);
        if (h == 0)
            return cut(p, start, "in a string");
        if (h < 0)
            return fail(p, i, "invalid \\u escape: expected 4 hexadecimal digits");
        size_t esc = i;
        i += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return fail(p, esc, "invalid \\u escape: lone low surrogate \\u%04X", cp);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned lo = 0;
            h = escape_u(p, i, &lo);
            if (h == 0)
                return cut(p, start, "in a string");
            if (h < 0 || lo < 0xDC00 || lo > 0xDFFF)
                return fail(p, esc,
                            "invalid \\u escape: high surrogate \\u%04X not followed by a "
                            "low surrogate",
                            cp);
            i += 6;
        }
    }
}

const char *json_str(JsonParser *p, size_t *len)
{
    if (!p->escaped) {
        *len = p->rawlen;
        return p->raw;
    }
    /* decoding never makes a string longer */
    if (scratch_reserve(p, p->rawlen + 1) != 0)
        return NULL;
    const char *r = p->raw, *end = p->raw + p->rawlen;
    char *o = p->scratch;
    while (r < end) {
        const char *bs = (const char *)memchr(r, '\\', (size_t)(end - r));
        size_t run = bs ? (size_t)(bs - r) : (size_t)(end - r);
        memcpy(o, r, run);
        o += run;
        r += run;
        if (r >= end)
            break;
        char e = r[1];
        if (e != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            *o++ = to[strchr(from, e) - from];
            r += 2;
            continue;
        }
        unsigned cp = 0, lo = 0xDC00; /* validated already: hex4 cannot fail here */
        (void)hex4(r + 2, &cp);
        r += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) { /* validated: a low surrogate follows */
            (void)hex4(r + 2, &lo);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            r += 6;
        }
        o += put_utf8(o, cp);
    }
    *len = (size_t)(o - p->scratch);
    return p->scratch;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static inline int take_digits(const char *s, size_t n, size_t *i, uint64_t *m, int *sig);
static size_t skip_digits(const char *s, size_t n, size_t i);
static double compose(uint64_t m, long e, int neg, const char *s, size_t n);
static double slow_strtod(const char *s, size_t n);

/*
** The end of the JSON number at s[i..n) (after any '-') in its common form, digits
** with at most one point and no exponent, from one look at the 32 bytes from i (SSE2):
** the first byte a digit, no leading zero, the point neither first nor last, the byte
** after it no 'e'; *pointed says whether it has the point. 0 when the look cannot tell
** (fewer than 32 bytes left, another form, or no number): the caller goes the long
** way, which also says what is wrong. The end is inside the window (before i + 32).
*/
static inline __attribute__((always_inline)) size_t number_look(const char *s, size_t i, size_t n,
                                                                int *pointed)
{
#if defined(__SSE2__)
    if (i + 32 <= n && simd_on()) {
        uint32_t digit = 0, point = 0;
        for (unsigned k = 0; k < 2; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i + (size_t)16 * k));
            __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
            __m128i is_digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
            digit |= (uint32_t)_mm_movemask_epi8(is_digit) << (16 * k);
            point |= (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('.'))) << (16 * k);
        }
        uint32_t other = ~(digit | point);
        if (other != 0) {
            unsigned len = (unsigned)__builtin_ctz(other);
            uint32_t pt = point & ((1u << len) - 1);
            if ((digit & 1) && (s[i] != '0' || !(digit & 2)) && (pt & (pt - 1)) == 0 &&
                pt != 1u << (len - 1) && (s[i + len] | 0x20) != 'e') {
                *pointed = pt != 0;
                return i + len;
            }
        }
    }
#else
    (void)s, (void)i, (void)n, (void)pointed;
#endif
    return 0;
}

/* The error for the number at b[start..end) beyond a double (as json.decode's reader
   says it; its first 24 bytes shown) */
static JsonTok beyond_double(JsonParser *p, size_t start, size_t end)
{
    int len = end - start > 24 ? 24 : (int)(end - start);
    return fail(p, start,
                "number out of range: %.*s%s is beyond a double (about 1.8e308); JSON has no "
                "infinity, so the file is corrupt",
                len, p->buf + start, end - start > 24 ? "..." : "");
}

/*
** A number starting at p->pos: validates the grammar, and reads its value on the way
** (mant, exp10, neg) when it has at most 19 significant digits; raw/rawlen are its text.
*/
static __attribute__((noinline)) JsonTok parse_number(JsonParser *p)
{
    const char *b = p->buf;
    size_t start = p->pos, i = start, n = p->len;
    int integral = 1, sig = 0, exact = 1;
    uint64_t m = 0;
    long e = 0;

    p->neg = b[i] == '-';
    if (p->neg)
        i++;
    if (p->lazy) {
        /* its value is not wanted (a member passed over, say): validated in one look
           when it has the common form, not read digit by digit (json_num, if asked,
           reads the text: exact_digits 0) */
        int pointed;
        size_t end = number_look(b, i, n, &pointed);
        if (end != 0) {
            p->raw = b + start;
            p->rawlen = end - start;
            p->integral = !pointed;
            p->mant = 0;
            p->exp10 = 0;
            p->exact_digits = 0;
            p->pos = end;
            return JSON_NUMBER;
        }
    }
    if (i >= n)
        return cut(p, start, "in a number");
    if (b[i] == '0') {
        i++;
        if (i < n && is_digit(b[i]))
            return fail(p, start, "invalid number: leading zero");
    } else if (is_digit(b[i])) {
        if (p->lazy || take_digits(b, n, &i, &m, &sig) != 0) {
            exact = 0;
            i = skip_digits(b, n, i);
        }
    } else {
        char what[16];
        return fail(p, i, "invalid number: unexpected %s, expected a digit%s",
                    describe(what, sizeof what, (unsigned char)b[i]),
                    b[i] == 'I' && i == start + 1 ? PYTHON_LITERAL_HINT : "");
    }
    if (i < n && b[i] == '.') {
        integral = 0;
        size_t f = ++i;
        if (i >= n)
            return cut(p, start, "in a number");
        if (!is_digit(b[i])) {
            char what[16];
            return fail(p, i, "invalid number: unexpected %s, expected a digit after '.'",
                        describe(what, sizeof what, (unsigned char)b[i]));
        }
        if (p->lazy)
            exact = 0;
        if (exact && m == 0) /* 0.000ddd: these zeros are not significant */
            while (i < n && b[i] == '0')
                i++;
        if (!exact || take_digits(b, n, &i, &m, &sig) != 0) {
            exact = 0;
            i = skip_digits(b, n, i);
        }
        e -= (long)(i - f);
    }
    long xe = 0; /* the exponent as written (capped) */
    if (i < n && (b[i] == 'e' || b[i] == 'E')) {
        integral = 0;
        i++;
        int eneg = 0;
        if (i < n && (b[i] == '+' || b[i] == '-'))
            eneg = b[i++] == '-';
        if (i >= n)
            return cut(p, start, "in a number");
        if (!is_digit(b[i])) {
            char what[16];
            return fail(p, i, "invalid number: unexpected %s, expected a digit in the exponent",
                        describe(what, sizeof what, (unsigned char)b[i]));
        }
        long x = 0;
        for (; i < n && is_digit(b[i]); i++)
            if (x < 100000)
                x = x * 10 + (b[i] - '0');
        if (x >= 100000)
            exact = 0;
        xe = eneg ? -x : x;
        e += xe;
    }
    /* The number may go on in the next window. */
    if (i >= n && !p->final)
        return cut(p, start, "in a number");
    /* Passed over (lazy), a number beyond a double is an error here, where it is: no
       reader will see it (one that reads its numbers says so itself, with its place).
       A number below 10^k with k digits before its point is below 10^308 (less than the
       largest double, about 1.8e308) when k + its exponent <= 308: with an exponent below
       100, only one of more than 308 - 99 bytes can be beyond; strtod decides. */
    if ((i - start > 308 - 99 || xe > 99) && p->lazy && isinf(json_strtod(b + start, i - start)))
        return beyond_double(p, start, i);
    p->raw = b + start;
    p->rawlen = i - start;
    p->integral = integral;
    p->mant = m;
    p->exp10 = e;
    p->exact_digits = exact;
    p->pos = i;
    return JSON_NUMBER;
}

int json_num(JsonParser *p, int64_t *iv, double *dv)
{
    uint64_t limit = p->neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (p->integral && p->exact_digits && p->exp10 == 0) {
        if (p->mant <= limit) {
            *iv = p->neg ? (int64_t)(0 - p->mant) : (int64_t)p->mant;
            return 1;
        }
    } else if (p->integral) {
        /* not read while validated (lazy, or long): read the integer from its text */
        uint64_t v = 0;
        size_t d = (size_t)p->neg;
        for (; d < p->rawlen; d++) {
            unsigned digit = (unsigned)(p->raw[d] - '0');
            if (v > (limit - digit) / 10)
                break;
            v = v * 10 + digit;
        }
        if (d == p->rawlen) {
            *iv = p->neg ? (int64_t)(0 - v) : (int64_t)v;
            return 1;
        }
    }
    *dv = p->exact_digits ? compose(p->mant, p->exp10, p->neg, p->raw, p->rawlen)
                          : json_strtod(p->raw, p->rawlen);
    return 0;
}

/* Skips JSON whitespace from i, counting lines; returns the first other offset. */
static size_t skip_ws_run(JsonParser *p, size_t i)
{
    const char *b = p->buf;
    size_t n = p->len;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) {
        if (b[i] == '\n') {
            p->line++;
            p->line_start = p->base + i + 1;
        }
        i++;
    }
    return i;
}

/* The same, inline for the common cases: no whitespace, or one space (", " and ": "). */
static inline size_t skip_ws(JsonParser *p, size_t i)
{
    const unsigned char *b = (const unsigned char *)p->buf;
    if (i < p->len && b[i] > ' ')
        return i;
    if (i + 1 < p->len && b[i] == ' ' && b[i + 1] > ' ')
        return i + 1;
    return skip_ws_run(p, i);
}

/* ---- plain decimals without a digit loop --------------------------------------- */

static unsigned leading_digits(uint64_t v);
static inline __attribute__((always_inline)) uint64_t digits8_value(uint64_t v);
static inline __attribute__((always_inline)) double compose_decimal(uint64_t m, unsigned b, int neg,
                                                                    const char *s, size_t n);
/* 5^-b for b = 0..21 (read_decimal's plain decimals): the top half of pow5_table's, and
   129 + its exp2 - b in the place of a double's exponent (see decimal_pow5_row). Filled
   by pow5_init. */
typedef struct DecimalPow5 {
    uint64_t hi, field;
} DecimalPow5;
static DecimalPow5 decimal_pow5_table[22];
#ifdef JSON_WIDE_SIMD
/* The AVX2 number lane's rows: 5^-b's top half, and the power of two that places a
   double made of the product's top 63 bits (2^(129 + exp2 - b), a double's exponent
   field of decimal_pow5_table's field). By the number's integer digits a = 1..15 (b =
   19 - a there): the row's address from a, which the lane has shifted already; and the
   "0.0ddd" shape's b = 20. */
typedef struct LanePow5 {
    uint64_t hi;
    double scale;
} LanePow5;
/* All the lane's tables in one place, so that its loop reaches them from one base
   register (not an address made for each table, each number); filled by pow5_init */
typedef struct LaneWide {
    unsigned char up[16][16]; /* moved_up's rows */
    LanePow5 pow5_by_a[16];   /* (by a, as up: one scaled index for both) */
    unsigned char keep[64];   /* keep_digits */
    double pow2_neg[64];      /* 2^-l for l = 0..63 (the normalising shift undone) */
    /* by a (the first byte that is no digit: 0..32, or 64 when none of the 32 is), the
       ends (the comma's place) the lane takes, bit text_end: 1 <= a <= 15 integer digits,
       1 <= text_end <= 20, and the point (a < text_end) not last (a + 1 != text_end) */
    uint32_t ends[65];
    LanePow5 pow5_20;
} LaneWide;
static LaneWide lane_wide __attribute__((aligned(64)));
#endif
static inline __attribute__((always_inline)) int decimal_pow5_row(uint64_t m, const DecimalPow5 *t,
                                                                  int neg, double *out);

/*
** Most numbers in result files are plain decimals, as Python's repr and JSON writers
** put them: "0.010576083642505457", "1771234500.0014184", "284.16168687987954", "445".
** read_decimal takes those with at most 19 digits in all (a before the point, b after
** it) and no exponent in a fixed sequence, without a loop: the two runs' lengths from
** a digit mask of the 32 bytes from the first digit (SSE2; leading_digits elsewhere);
** the integer part moved one byte up over the point (its first byte becomes a leading
** zero), which makes the a + 1 + b <= 20 bytes one run of digits worth
** int 10^b + fraction; that run converted 8 digits at a time (SSE2: multiply-adds of
** neighbouring lanes; elsewhere digits8_value on 8-byte words), scaled by powers of
** ten for where it ends. Anything else goes to the loop in read_number, which also
** says what is wrong. It reads only forwards: DECIMAL_AHEAD bytes from the number's
** start must be readable.
*/
#define DECIMAL_AHEAD 48

static const uint64_t pow10_u64[20] = {1ULL,
                                       10ULL,
                                       100ULL,
                                       1000ULL,
                                       10000ULL,
                                       100000ULL,
                                       1000000ULL,
                                       10000000ULL,
                                       100000000ULL,
                                       1000000000ULL,
                                       10000000000ULL,
                                       100000000000ULL,
                                       1000000000000ULL,
                                       10000000000000ULL,
                                       100000000000000ULL,
                                       1000000000000000ULL,
                                       10000000000000000ULL,
                                       100000000000000000ULL,
                                       1000000000000000000ULL,
                                       10000000000000000000ULL};

/* 10^k as doubles, exact for k <= 22 (Clinger's fast path). */
static const double pow10_f64[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/*
** The value of the run of digits at bytes 0 .. len - 1 (1 <= len <= 20, less than 10^19)
** of the words w0, w1, w2 (bytes 0..23, each digit's byte 0..9; bytes from len on are
** ignored), in plain C.
*/
static inline __attribute__((always_inline)) uint64_t run_value(uint64_t w0, uint64_t w1,
                                                                uint64_t w2, unsigned len)
{
    if (len > 16) /* the last len - 16 digits moved to the top of their word */
        return digits8_value(w0) * pow10_u64[len - 8] + digits8_value(w1) * pow10_u64[len - 16] +
               digits8_value(w2 << (192 - 8 * len));
    if (len > 8)
        return digits8_value(w0) * pow10_u64[len - 8] + digits8_value(w1 << (128 - 8 * len));
    return digits8_value(w0 << (64 - 8 * len));
}

#if defined(__SSE2__) && defined(__x86_64__)
/* For a run ending at byte len (17..20), at [len - 17]: the 16-bit weights of bytes
   16..23, 10^(len - 1 - k) for byte k < len, else 0; the weights of the first and the
   second 8 digits, 10^(len - 8) and 10^(len - 16). One line, one address. */
typedef struct RunTail {
    int16_t w[8];
    uint64_t first, second;
} RunTail;
static const RunTail run_tails[4] __attribute__((aligned(16))) = {
    {{1, 0, 0, 0, 0, 0, 0, 0},       1000000000ULL,    10ULL   },
    {{10, 1, 0, 0, 0, 0, 0, 0},      10000000000ULL,   100ULL  },
    {{100, 10, 1, 0, 0, 0, 0, 0},    100000000000ULL,  1000ULL },
    {{1000, 100, 10, 1, 0, 0, 0, 0}, 1000000000000ULL, 10000ULL}
};
/* 16 bytes from 16 - c: c bytes of 0xFF, then zeros (0 <= c <= 16). */
static const unsigned char first_bytes[32] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                              0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

/*
** The run of len digits (17 <= len <= 20, less than 10^19) at bytes 0..len - 1 of t0
** (bytes 0..15) and t1 (16..31), each digit 0..9, with SSE2: pairs, fours and eights of
** digits by multiply-adding neighbouring 16-bit lanes (pmaddwd), the last len - 16
** digits weighted by where the run ends.
*/
static inline __attribute__((always_inline)) uint64_t run_value_sse2(__m128i t0, __m128i t1,
                                                                     unsigned len)
{
    const __m128i z = _mm_setzero_si128();
    const __m128i k10 = _mm_set1_epi32(10 | 1 << 16), k100 = _mm_set1_epi32(100 | 1 << 16);
    const __m128i k10000 = _mm_setr_epi16(10000, 1, 10000, 1, 1, 1, 1, 1);
    const RunTail *tail = &run_tails[len - 17];
    __m128i w = _mm_load_si128((const __m128i *)(const void *)tail->w);
    __m128i p0 = _mm_madd_epi16(_mm_unpacklo_epi8(t0, z), k10); /* pairs of bytes 0..7 */
    __m128i p1 = _mm_madd_epi16(_mm_unpackhi_epi8(t0, z), k10); /* 8..15 */
    __m128i p2 = _mm_madd_epi16(_mm_unpacklo_epi8(t1, z), w);   /* 16..17, 18..19, 0, 0 */
    __m128i q = _mm_madd_epi16(_mm_packs_epi32(p0, p1), k100);  /* fours of 0..15 */
    /* eights of 0..7 and 8..15, then the tail's two parts summed */
    __m128i r = _mm_madd_epi16(_mm_packs_epi32(q, p2), k10000);
    uint64_t c01 = (uint64_t)_mm_cvtsi128_si64(r);
    uint64_t c2 = (uint32_t)_mm_cvtsi128_si32(_mm_unpackhi_epi64(r, r));
    return (c01 & 0xFFFFFFFFULL) * tail->first + (c01 >> 32) * tail->second + c2;
}
/*
** The value of the usual decimal (read_decimal's SSE2 shape: a = 1..15 integer digits, a
** point, end = 17..20 bytes in all) whose bytes less '0' are t0 (0..15) and t1 (16..31);
** neg: a '-' before them, at text[0] (text[0 .. neg + end) is the number, for strtod).
*/
static inline __attribute__((always_inline)) double
usual_value_sse2(__m128i t0, __m128i t1, unsigned a, unsigned end, int neg, const char *text)
{
    /* bytes 0 .. a (the integer part and the point) take the byte before them */
    __m128i sel = _mm_loadu_si128((const __m128i *)(const void *)(first_bytes + 15 - a));
    t0 = _mm_xor_si128(t0, _mm_and_si128(_mm_xor_si128(t0, _mm_slli_si128(t0, 1)), sel));
    return compose_decimal(run_value_sse2(t0, t1, end), end - a - 1, neg, text, (size_t)neg + end);
}
#endif

/* The offset of the first non-digit at or after p[k], read 8 bytes at a time and no
   further than offset 24 (then 24 or a little past it: too long for read_decimal_c). */
static inline __attribute__((always_inline)) unsigned digit_run(const unsigned char *p, unsigned k)
{
    unsigned c;
    do {
        uint64_t v;
        memcpy(&v, p + k, 8);
        c = leading_digits(v);
        k += c;
    } while (c == 8 && k < 24);
    return k;
}

/*
** The plain decimal at s[i..n), DECIMAL_AHEAD bytes readable from s + i, in plain C:
** returns the offset just past it with *out set as read_number sets it, or 0 when
** read_number's loop must read it (another shape, more than 19 digits, an exponent, a
** number going past n, or not a number at all). bounded: n may be less than the bytes
** readable (else the number's end, at most 24 bytes on, is before n).
*/
static inline __attribute__((always_inline)) size_t
read_decimal_c(const char *s, size_t i, size_t n, int bounded, int as_json_num, double *out)
{
    const unsigned char *p = (const unsigned char *)s + i;
    int neg = *p == '-';
    p += neg;
    unsigned k = digit_run(p, 0);
    unsigned a = k; /* 24 (too long) when all of the 24 bytes are digits */
    unsigned point = k < 20 && p[k] == '.', b = 0;
    if (point)
        b = digit_run(p, k + 1) - k - 1;
    unsigned end = a + point + b;
    if (a == 0 || (point && b == 0) || (p[0] == '0' && a > 1) || (p[end] | 0x20) == 'e' ||
        (bounded && i + (size_t)neg + end > n))
        return 0;
    if (a + b > 19) {
        /* "0.000ddd": the zeros after the point are not significant (20 or 21 digits in
           all; 0.00123 written with 17 significant digits has 20) */
        if (a != 1 || p[0] != '0' || b > 21)
            return 0;
        unsigned z = 0;
        while (z < b && p[2 + z] == '0')
            z++;
        if (b - z > 19)
            return 0;
        uint64_t m = 0;
        if (z < b) {
            uint64_t w0, w1, w2; /* the significant digits: 24 bytes from p + 2 + z */
            memcpy(&w0, p + 2 + z, 8);
            memcpy(&w1, p + 10 + z, 8);
            memcpy(&w2, p + 18 + z, 8);
            m = run_value(w0 ^ 0x3030303030303030ULL, w1 ^ 0x3030303030303030ULL,
                          w2 ^ 0x3030303030303030ULL, b - z);
        }
        *out = compose_decimal(m, b, neg, s + i, (size_t)neg + end);
        return i + (size_t)neg + end;
    }
    uint64_t w0, w1, w2;
    memcpy(&w0, p, 8);
    memcpy(&w1, p + 8, 8);
    memcpy(&w2, p + 16, 8);
    w0 ^= 0x3030303030303030ULL; /* digits are now 0..9 */
    w1 ^= 0x3030303030303030ULL;
    w2 ^= 0x3030303030303030ULL;
    if (point) {
        /* bytes 0 .. a (the integer part and the point) take the byte before them */
        if (a < 8) {
            uint64_t low = (2ULL << (8 * a + 7)) - 1;
            w0 ^= (w0 ^ (w0 << 8)) & low;
        } else if (a < 16) {
            uint64_t low = (2ULL << (8 * (a - 8) + 7)) - 1;
            w1 ^= (w1 ^ (w1 << 8 | w0 >> 56)) & low;
            w0 <<= 8;
        } else {
            uint64_t low = (2ULL << (8 * (a - 16) + 7)) - 1;
            w2 ^= (w2 ^ (w2 << 8 | w1 >> 56)) & low;
            w1 = w1 << 8 | w0 >> 56;
            w0 <<= 8;
        }
    }
    uint64_t m = run_value(w0, w1, w2, end);
    if (!point && as_json_num) { /* (double) of the uint64 rounds as strtod does; -0 is 0 */
        *out = neg && m != 0 ? -(double)m : (double)m;
    } else if (a + b <= 15) {
        /* m < 10^15 < 2^53 and 10^b exact: one correctly rounded division (Clinger's
           path). Which way this goes depends only on the number's length, so the branch
           predictor learns a file's shape ("123.0" in scrapes; compose_decimal's
           truncated 5^-b cannot decide such exact values and leaves them to compose). */
        double d = (double)m / pow10_f64[b];
        *out = neg ? -d : d;
    } else {
        *out = compose_decimal(m, b, neg, s + i, (size_t)neg + end);
    }
    return i + (size_t)neg + end;
}

#if defined(__SSE2__) && defined(__x86_64__)
/* read_decimal_c out of line: what the SSE2 lane leaves to it stays out of its loop. */
static __attribute__((noinline)) size_t
read_decimal_other(const char *s, size_t i, size_t n, int bounded, int as_json_num, double *out)
{
    return read_decimal_c(s, i, n, bounded, as_json_num, out);
}
#endif

/*
** read_decimal_c's number, with SSE2 (where compiled) when simd: the usual shape here,
** anything else by read_decimal_c.
*/
static inline __attribute__((always_inline)) size_t
read_decimal(const char *s, size_t i, size_t n, int bounded, int as_json_num, int simd, double *out)
{
#if defined(__SSE2__) && defined(__x86_64__)
    if (simd) {
        const unsigned char *p = (const unsigned char *)s + i;
        int neg = 0;
        if (*p == '-') {
            neg = 1;
            p++;
        }
        const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
        __m128i t0 = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), zero);
        __m128i t1 = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)), zero);
        uint64_t d0 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t0, nine), t0));
        uint64_t d1 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t1, nine), t1));
        uint64_t other = ~(d0 | d1 << 16); /* bits 32 on are set: a, f <= 32 */
        unsigned a = (unsigned)__builtin_ctzll(other);
        unsigned f = (unsigned)__builtin_ctzll(other >> (a + 1)); /* digits after byte a */
        unsigned end = a + 1 + f;
        /* the usual shape: 1..15 digits, a point, digits to 17..20 bytes in all (so
           f >= 1), no exponent */
        if (p[a] == '.' && a - 1 < 15 && end - 17 < 4 && (p[0] != '0' || a == 1) &&
            (p[end] | 0x20) != 'e' && (!bounded || i + (size_t)neg + end <= n)) {
            *out = usual_value_sse2(t0, t1, a, end, neg, s + i);
            return i + (size_t)neg + end;
        }
        /* short numbers, as in scrapes ("1234.0", "0.25", "17"): at most 15 digits, so
           m < 2^53, in t0's 16 bytes; one correctly rounded division by an exact 10^b
           (Clinger's path) */
        unsigned point = p[a] == '.';
        unsigned b = point ? f : 0;
        end = point ? end : a;
        if (a - 1 < 15 && a + b <= 15 && (b != 0 || !point) && (p[0] != '0' || a == 1) &&
            (p[end] | 0x20) != 'e' && (!bounded || i + (size_t)neg + end <= n)) {
            if (point) {
                __m128i sel =
                    _mm_loadu_si128((const __m128i *)(const void *)(first_bytes + 15 - a));
                t0 =
                    _mm_xor_si128(t0, _mm_and_si128(_mm_xor_si128(t0, _mm_slli_si128(t0, 1)), sel));
            }
            uint64_t m = run_value((uint64_t)_mm_cvtsi128_si64(t0),
                                   (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(t0, t0)), 0, end);
            if (!point && as_json_num) { /* as read_decimal_c: -0 is 0 */
                *out = neg && m != 0 ? -(double)m : (double)m;
            } else {
                double d = (double)m / pow10_f64[b];
                *out = neg ? -d : d;
            }
            return i + (size_t)neg + end;
        }
        return read_decimal_other(s, i, n, bounded, as_json_num, out);
    }
#else
    (void)simd;
#endif
    return read_decimal_c(s, i, n, bounded, as_json_num, out);
}

/*
** The JSON number at s[i..n) (i < n), validated and converted in one pass: returns the
** offset just past it and sets *out to the value strtod gives (with as_json_num, an
** integer as json_num gives it, so "-0" is +0), or returns 0 when the text there does
** not start with a number. Digits are read 8 at a time up to avail >= n; bytes from n
** on may be read but never taken (s[n] is no digit when avail > n). Used by the fast
** lane and json_number_in; simd as for read_decimal.
*/
static inline __attribute__((always_inline)) size_t
read_number(const char *s, size_t i, size_t n, size_t avail, int as_json_num, int simd, double *out)
{
    if (avail - i >= DECIMAL_AHEAD) {
        size_t end = read_decimal(s, i, n, avail > n, as_json_num, simd, out);
        if (end != 0)
            return end;
    }
    size_t start = i;
    int neg = 0, sig = 0, exact = 1, integral = 1;
    uint64_t m = 0;
    long e = 0;
    if (s[i] == '-') {
        neg = 1;
        i++;
    }
    if (i >= n || !is_digit(s[i]))
        return 0;
    if (s[i] == '0') {
        if (++i < n && is_digit(s[i]))
            return 0; /* a leading zero */
    } else if (take_digits(s, avail, &i, &m, &sig) != 0) {
        exact = 0;
        i = skip_digits(s, avail, i);
    }
    if (i < n && s[i] == '.') {
        integral = 0;
        size_t f = ++i;
        if (exact && m == 0) /* 0.000ddd: these zeros are not significant */
            while (i < n && s[i] == '0')
                i++;
        if (!exact || take_digits(s, avail, &i, &m, &sig) != 0) {
            exact = 0;
            i = skip_digits(s, avail, i);
        }
        if (i == f)
            return 0; /* no digit after the point */
        e -= (long)(i - f);
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        integral = 0;
        i++;
        int eneg = 0;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        size_t d = i;
        long x = 0;
        for (; i < n && is_digit(s[i]); i++)
            if (x < 100000)
                x = x * 10 + (s[i] - '0');
        if (i == d)
            return 0;
        if (x >= 100000)
            exact = 0;
        e += eneg ? -x : x;
    }
    if (!exact) /* more than 19 significant digits, or a huge exponent */
        *out = slow_strtod(s + start, i - start);
    else if (integral && as_json_num) /* (double) of the uint64 rounds as strtod does */
        *out = neg && m != 0 ? -(double)m : (double)m;
    else
        *out = compose(m, e, neg, s + start, i - start);
    return i;
}

#ifdef JSON_WIDE_SIMD
/*
** json_next_numbers' lane with AVX2 (and SSSE3's pmaddubsw), chosen at run time: from a
** comma at pos, while the elements are ", number" or ",number" with the number in the
** shape below and a comma right after it, converts them into *op (up to o_end) and
** returns the offset of the comma after the last one (pos when it took none), with
** *last the start of the last. The shape: 1..15 integer digits (no leading zero), then
** either nothing or a point and 1 or more digits, 20 bytes at most. One look at the 32
** bytes from the number's start gives its runs; the integer part is moved one byte up
** over the point (or the comma after an integer), so that with the bytes from the end
** on cleared, bytes 0..19 are one run of digits (byte 0 a zero) worth
** V = sum of d_k 10^(19 - k) = m 10^(20 - end) < 10^19, m the number's digits read as an
** integer; the number is m 10^-f = V 10^-(19 - a), one fixed sum of products for every
** length ("0.0ddd" with up to 20 digits after the point is read from the point on:
** V 10^-20). Anything else is left to the caller's loop. The number's end is the next
** comma, from a mask of a 64-byte block's commas (usual_numbers_sep); the bytes up to n
** must be readable, and the lane takes nothing within 128 bytes of n (the caller's loop
** does). The values are checked against strtod in test_json.
*/
/* 64 bytes: 32 of 0x0F, then 32 zeros; 32 bytes from 32 - k anded with text keep the
   values of its digits at bytes 0..k - 1 (a digit's low four bits) and clear the rest */
static const unsigned char keep_digits[64] = {
    0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F,
    0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F};

/* pshufb indexes that move bytes 0 .. a - 1 one byte up over byte a (the point, or the
   comma after an integer) and clear byte 0: row a, for a = 1..15 */
static const unsigned char moved_up[16][16] __attribute__((aligned(16))) = {
    {0x80, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0x80, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0x80, 0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0x80, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0x80, 0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0x80, 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0x80, 0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0x80, 0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15},
    {0x80, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15},
    {0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15},
    {0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,  11, 12, 13, 14, 15},
    {0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,  10, 12, 13, 14, 15},
    {0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,  10, 11, 13, 14, 15},
    {0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,  10, 11, 12, 14, 15},
    {0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,  10, 11, 12, 13, 15},
    {0x80, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,  10, 11, 12, 13, 14}
};

/* run20_avx2's multipliers, made once by its caller (and kept in registers there) */
typedef struct Run20K {
    __m128i k10, k10_tail, k100, k10000;
} Run20K;

__attribute__((target("avx2,bmi,bmi2"))) static inline Run20K run20_constants(void)
{
    Run20K k;
    k.k10 = _mm_set1_epi16(10 | 1 << 8);
    k.k10_tail = _mm_setr_epi16(10 | 1 << 8, 10 | 1 << 8, 0, 0, 0, 0, 0, 0);
    k.k100 = _mm_set1_epi32(100 | 1 << 16);
    k.k10000 = _mm_setr_epi16(10000, 1, 10000, 1, 1, 0, 0, 0);
    return k;
}

/* The run of digits at bytes 0..19 of t0 (0..15) and t1 (16..31), each 0..9, as one
   integer less than 10^19 (so byte 0 must be 0 when all are digits): pairs, fours and
   eights of digits by pmaddubsw and pmaddwd of neighbours; bytes 20.. are ignored. The
   eights and the last four are joined in general registers, e0 10^12 + e1 10^4 + c, the
   two multiplies side by side (not e0 10^8 + e1 by pmuludq, then 10^4 more: one multiply
   after the other). With lane_store's steps, the lane took about 5 % less time per
   number (numconv6's A/B under load: 0.86-1.00 of the time before, never more; each of
   the two alone 1-5 %). */
__attribute__((target("avx2,bmi,bmi2"))) static inline __attribute__((always_inline)) uint64_t
run20_avx2(__m128i t0, __m128i t1, const Run20K *k)
{
    __m128i q0 = _mm_madd_epi16(_mm_maddubs_epi16(t0, k->k10), k->k100);      /* fours: 0..15 */
    __m128i q1 = _mm_madd_epi16(_mm_maddubs_epi16(t1, k->k10_tail), k->k100); /* 16..19 */
    __m128i r = _mm_madd_epi16(_mm_packs_epi32(q0, q1), k->k10000); /* eights e0, e1; four c */
    uint64_t e01 = (uint64_t)_mm_cvtsi128_si64(r); /* e0 in the low half, e1 in the high */
    uint64_t c = (uint32_t)_mm_extract_epi32(r, 2);
    return (e01 & 0xFFFFFFFFULL) * 1000000000000ULL + (e01 >> 32) * 10000ULL + c;
}

/*
** The end of the number at p (the offset of the first byte that is no digit and no
** point, at most 32) from its 32 bytes less '0' (t); 0 when it is no number JSON allows
** followed by a comma (no digit first, a leading zero, more than one point, no digit
** after one). The end comes from one mask, so that the next number's start waits for
** nothing more: the checks are branches, foreseen.
*/
__attribute__((target("avx2,bmi,bmi2"))) static inline unsigned
lane_number_end(const unsigned char *p, __m256i t, __m256i nine)
{
    const __m256i dot = _mm256_set1_epi8('.' - '0');
    uint64_t digit = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(t, nine), t));
    uint64_t point = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(t, dot));
    unsigned end = (unsigned)__builtin_ctzll(~(digit | point)); /* bits 32.. are set */
    uint64_t in = point & ((1ULL << end) - 1);                  /* its points */
    unsigned a = (unsigned)__builtin_ctzll(~digit);             /* digits before the first point */
    if (p[end] != ',' || a == 0 || (in != 0 && (in != 1ULL << a || a + 1 == end)) ||
        (p[0] == '0' && a > 1))
        return 0;
    return end;
}

/*
** *o = v 10^-b as compose_decimal gives it, for the lane: decimal_pow5_row's steps (its
** exponent placed by multiplies, see below), the rest by compose
** (what compose_decimal does after decimal_pow5). Inlined in each of the lane's two
** shapes, so that the "0.0ddd" one's b = 20 is a constant there (its table row a fixed
** address). The count of v's leading zeros is LZCNT (not BSR and a subtraction from 63),
** and without decimal_pow5_row's test of the product's low half: the lane's b is 4..20,
** never 0, so 5^-b has no end in binary and its truncation T is below it; the exact
** value is then above the computed one (and the sticky bit right) even when the low half
** is 0, and an exactly halfway value (such as 562949953421312.0625, 2^49 + 1/16) is
** computed just below it, with P's low 9 bits all ones: compose decides.
*/
static inline __attribute__((always_inline)) void
lane_store(double *o, uint64_t v, unsigned b, const LanePow5 *row, const LaneWide *tb,
           const unsigned char *p, size_t text_end)
{
    if (__builtin_expect(v != 0, 1)) { /* (a zero's 0.0 made aside too) */
        int l = __builtin_clzll(v);
        unsigned __int128 pr = (unsigned __int128)(v << l) * row->hi;
        uint64_t hi = (uint64_t)(pr >> 64);
        if (__builtin_expect(((hi + 1) & 0x1FF) != 0, 1)) { /* straight on, compose aside */
            /* the exponent placed by two multiplies by powers of two, each exact (the
               values are normal doubles, 10^-20 and more): the very bits of adding
               field - l 2^52 to the double's (as decimal_pow5_row does), in three
               instructions fewer a number */
            double d = (double)(int64_t)((hi >> 1) | 1);
            *o = d * row->scale * tb->pow2_neg[l];
            return;
        }
    }
    *o = compose(v, -(long)b, 0, (const char *)p, text_end);
}

/* The commas among the 64 bytes at p, one bit a byte (bit k: p[k]). */
__attribute__((target("avx2,bmi,bmi2"))) static inline __attribute__((always_inline)) uint64_t
commas64_avx2(const char *p, __m256i comma)
{
    __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    uint64_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x0, comma));
    uint64_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x1, comma));
    return lo | hi << 32;
}

/*
** The lane's loop for one separator. Each number's bounds come from the commas of the
** 64-byte blocks from pos on (one compare and mask a block), not from the number before:
** its end is the next comma, so the next number's start waits only for the bit after
** the last in that mask (one BLSR and TZCNT), and the loads and reading of neighbouring
** numbers overlap (the out-of-order core has independent work). A number's bytes are
** then checked against the shape (digits, at most one point, not last; the comma at
** its end is known), the checks branches, foreseen. The bytes up to n are readable: a
** block is taken only when the one after it is in them too, so that a number whose
** comma is in the block (its start in it or the one before) has its 36 bytes.
*/
__attribute__((target("avx2,bmi,bmi2,lzcnt"))) static inline __attribute__((always_inline)) size_t
usual_numbers_sep(const char *s, size_t pos, size_t n, double **op, double *o_end, size_t *last,
                  const size_t sep)
{
    if (n < 128 || pos > n - 128)
        return pos;
    /* a byte x is no digit when x + 0x50 > -119 as a signed byte: '0'..'9' become
       -128..-119 and every other byte more (one add and one comparison, no NOT after the
       mask: its first set bit is the first non-digit, and an empty mask counts 64) */
    __m256i bias = _mm256_set1_epi8(0x50), last_digit = _mm256_set1_epi8(-119);
    __m256i comma = _mm256_set1_epi8(',');
    Run20K k = run20_constants();
    /* kept in registers (GCC would build them again, or load them, for every number) */
    __asm__("" : "+x"(bias), "+x"(last_digit), "+x"(comma));
    __asm__("" : "+x"(k.k10), "+x"(k.k10_tail), "+x"(k.k100), "+x"(k.k10000));
    const LaneWide *tb = &lane_wide; /* (in a register: one base for every table) */
    __asm__("" : "+r"(tb));
    double *o = *op, *o_start = o;
    const char *c = s + pos; /* the comma before the next number */
    /* the block at q (q + 128 <= n), and cm its commas after c (bit k: q[k]) */
    const char *q = c, *q_last = s + (n - 128);
    uint64_t cm = commas64_avx2(q, comma) & ~1ULL;
    for (; o < o_end; o++) { /* *c is a comma */
        /* the next comma in a later block: its commas */
        if (cm == 0) {
            if (q + 64 > q_last)
                break;
            q += 64;
            cm = commas64_avx2(q, comma);
        }
        /* the comma after the number (q + 64 when none in the block: then the number is
           too long for the lane) */
        const char *next = q + _tzcnt_u64(cm);
        const unsigned char *p = (const unsigned char *)c + sep;
        size_t text_end = (size_t)(next - (const char *)p); /* huge when next < p */
        /* the byte before the number (the separator's last) and the number's first
           three in one word: " 0.0" (",0.0" with sep 1, where *c is the comma) checks
           the separator and the "0.0ddd" shape in one comparison */
        uint32_t head;
        memcpy(&head, p - 1, 4);
        if (head == ((sep == 2 ? ' ' : ',') | '0' << 8 | '.' << 16 | (uint32_t)'0' << 24)) {
            /* "0.0ddd": the f <= 20 digits after the point alone, from byte 2 (a zero
               first), all up to the comma: m 10^-f = V 10^-20. The bytes kept and the
               halves loaded from the comma's place alone, so that the reading waits
               for no mask of the number's own (its checks beside it, foreseen) */
            size_t f = text_end - 2;
            if (f - 1 >= 20)
                break;
            const unsigned char *keep = tb->keep + 34 - text_end;
            __m128i t0 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(p + 2)),
                                       _mm_loadu_si128((const __m128i *)(const void *)keep));
            __m128i t1 = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(p + 18)),
                                       _mm_loadu_si128((const __m128i *)(const void *)(keep + 16)));
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + 2));
            uint32_t nd = (uint32_t)_mm256_movemask_epi8(
                _mm256_cmpgt_epi8(_mm256_add_epi8(x, bias), last_digit));
            if (_bzhi_u32(nd, (unsigned)f) != 0) /* a non-digit before the comma */
                break;
            lane_store(o, run20_avx2(t0, t1, &k), 20, &tb->pow5_20, tb, p, text_end);
        } else {
            /* the separator first, foreseen */
            if ((c[1] == ' ') != (sep == 2))
                break;
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
            uint64_t nd = (uint32_t)_mm256_movemask_epi8(
                _mm256_cmpgt_epi8(_mm256_add_epi8(x, bias), last_digit));
            /* the first non-digit: the point, or the comma (a = text_end) */
            size_t a = _tzcnt_u64(nd); /* 64 when all 32 are digits */
            /* the non-digits before the comma: none, or one point (at a) not last. An
               integer's end is a <= 15: the bound of 20 bytes needs no look at which it
               is (end, the bytes kept, does). With none, a is the comma's place (text_end
               <= 20: the comma is in the 32 bytes), and with one, p[a] is no comma (next
               is the first after c): so p[a] | 2 is '.' for a point or that comma alone
               (',' is 0x2C, '.' 0x2E), one test for both cases */
            uint64_t in = _bzhi_u64(nd, (unsigned)text_end);
            /* the bounds of a and text_end, and the point not last, in one look at a's
               row of ends (text_end <= 20 first: the row's bit is then the end's) */
            if (text_end > 20 || (tb->ends[a] >> text_end & 1) == 0 || _blsr_u64(in) != 0 ||
                (p[a] | 2) != '.' || (p[0] == '0' && a > 1))
                break;
            /* the bytes before the comma kept (its place alone: no wait for the mask) */
            __m256i t = _mm256_and_si256(
                x, _mm256_loadu_si256((const __m256i *)(const void *)(tb->keep + 32 - text_end)));
            /* bytes 0 .. a (the integer part and the point, or the comma's place, cleared)
               take the byte before them: one shuffle (the point's own value is overwritten) */
            __m128i lo = _mm_shuffle_epi8(_mm256_castsi256_si128(t),
                                          _mm_load_si128((const __m128i *)(const void *)tb->up[a]));
            lane_store(o, run20_avx2(lo, _mm256_extracti128_si256(t, 1), &k), 19 - a,
                       &tb->pow5_by_a[a], tb, p, text_end);
        }
        c = next;
        cm = _blsr_u64(cm);
    }
    if (o != o_start) { /* the last number's start: after the comma before c (once here, not
                           a register in the loop) */
        const char *b = c - 1;
        while (*b != ',')
            b--;
        *last = (size_t)(b + sep - s);
    }
    *op = o;
    return (size_t)(c - s);
}

/* usual_numbers_sep compiled for each separator, ", " and "," (the first one's); the
   bytes up to n are readable */
__attribute__((target("avx2,bmi,bmi2,lzcnt"))) static size_t
usual_numbers_avx2(const char *s, size_t pos, size_t n, double **op, double *o_end, size_t *last)
{
    if (s[pos + 1] == ' ')
        return usual_numbers_sep(s, pos, n, op, o_end, last, 2);
    return usual_numbers_sep(s, pos, n, op, o_end, last, 1);
}

/*
** json_skip's lane with AVX2, as usual_numbers_avx2 but validating only: from a comma at
** pos, while the elements are ", number" or ",number" (as the first) with a comma right
** after, the number a run of digits (no leading zero), with or without a point and
** digits, 32 bytes at most; returns the offset of the comma after the last (pos when
** none), with *last the start of the last. 48 bytes from pos + 2 must be readable.
*/
__attribute__((target("avx2,bmi,bmi2"))) static inline __attribute__((always_inline)) size_t
skip_usual_sep(const char *s, size_t pos, size_t lane_end, size_t *last, const size_t sep)
{
    __m256i zero = _mm256_set1_epi8('0'), nine = _mm256_set1_epi8(9);
    __asm__("" : "+x"(zero), "+x"(nine));
    size_t at = *last;
    /* as in usual_numbers_sep: a number and its separator take at most 34 bytes */
    enum { SKIP_STEP = 34 };
    while (pos < lane_end) {
        size_t left = (lane_end - pos - 1) / SKIP_STEP + 1;
        for (; left > 0; left--) { /* s[pos] is a comma */
            /* the separator as the first, foreseen: the start waits only for pos */
            if ((s[pos + 1] == ' ') != (sep == 2))
                goto done;
            size_t j = pos + sep;
            const unsigned char *p = (const unsigned char *)s + j;
            __m256i t = _mm256_sub_epi8(_mm256_loadu_si256((const __m256i *)(const void *)p), zero);
            unsigned text_end = lane_number_end(p, t, nine);
            if (text_end == 0)
                goto done;
            at = j;
            pos = j + text_end;
        }
    }
done:
    *last = at;
    return pos;
}

/* skip_usual_sep compiled for each separator, ", " and "," (the first one's) */
__attribute__((target("avx2,bmi,bmi2"))) static size_t
skip_usual_avx2(const char *s, size_t pos, size_t lane_end, size_t *last)
{
    if (s[pos + 1] == ' ')
        return skip_usual_sep(s, pos, lane_end, last, 2);
    return skip_usual_sep(s, pos, lane_end, last, 1);
}

/*
** The check of one block of skip_blocks_* from its masks (bit k: byte k of the 64 from
** pos, a comma): digits d, points pt, commas c, spaces sp, '0's z. Returns l, the offset
** of the block's last comma before any byte of another kind, with *st the numbers' first
** bytes before it; 0 when the block is refused (or holds no whole number).
*/
__attribute__((target("bmi,bmi2"))) static inline __attribute__((always_inline)) unsigned
skip_block_check(uint64_t d, uint64_t pt, uint64_t c, uint64_t sp, uint64_t z, uint64_t *st)
{
    /* the commas before the first byte of another kind (all, when there is none) */
    uint64_t cs = _bzhi_u64(c, (unsigned)_tzcnt_u64(~(d | pt | c | sp)));
    unsigned l = 63 - (unsigned)__builtin_clzll(cs); /* cs has bit 0: p[0] is a comma */
    uint64_t low = _bzhi_u64(~0ULL, l);              /* bits 0 .. l - 1 */
    uint64_t cl = c & low, pl = pt & low, sl = sp & low;
    uint64_t first = sl != 0 ? cl << 2 : cl << 1; /* the numbers' first bytes */
    uint64_t bad = (first & ~d)                   /* a digit first */
                   | (((first & z) << 1) & d)     /* no leading zero */
                   | ((pl << 1) & ~d)             /* a digit after a point */
                   | ((d + (pl << 1)) & ~d & pt); /* one point */
    if (bad != 0 || (sl != 0 && sl != cl << 1))
        return 0;
    *st = first;
    return l;
}

/* A block of 64 bytes of a run of numbers, classified: digits, points, commas, spaces and
   '0's, one bit a byte (the lanes below; the constants are theirs, kept in registers). */
typedef struct NumMasks {
    uint64_t d, pt, c, sp, z;
} NumMasks;

__attribute__((target("avx2,bmi,bmi2"))) static inline __attribute__((always_inline)) NumMasks
num_masks_avx2(const unsigned char *p, __m256i zero, __m256i nine, __m256i dot, __m256i comma,
               __m256i space)
{
    __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    __m256i t0 = _mm256_sub_epi8(v0, zero), t1 = _mm256_sub_epi8(v1, zero);
    NumMasks m;
    m.d = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(t0, nine), t0)) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(t1, nine), t1))
              << 32;
    m.pt = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, dot)) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, dot)) << 32;
    m.c = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, comma)) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, comma)) << 32;
    m.sp = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, space)) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, space)) << 32;
    m.z = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, zero)) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, zero)) << 32;
    return m;
}

/* num_masks_avx2 with AVX-512 (BW): each class compared straight into a mask */
__attribute__((target("avx512f,avx512bw,bmi,bmi2"))) static inline __attribute__((always_inline))
NumMasks
num_masks_avx512(const unsigned char *p, __m512i zero, __m512i nine, __m512i dot, __m512i comma,
                 __m512i space)
{
    __m512i v = _mm512_loadu_si512((const void *)p);
    __m512i t = _mm512_sub_epi8(v, zero);
    NumMasks m;
    m.d = _mm512_cmple_epu8_mask(t, nine);
    m.pt = _mm512_cmpeq_epi8_mask(v, dot);
    m.c = _mm512_cmpeq_epi8_mask(v, comma);
    m.sp = _mm512_cmpeq_epi8_mask(v, space);
    m.z = _mm512_testn_epi8_mask(t, t);
    /* the bit arithmetic in general registers (see masks64_avx512) */
    __asm__("" : "+r"(m.d), "+r"(m.pt), "+r"(m.c), "+r"(m.sp), "+r"(m.z));
    return m;
}

/*
** json_skip's block lane, for long arrays of plain numbers passed over: from a comma at
** pos, 64 bytes at a time. A block's bytes are classified into bit masks (digits,
** points, commas, spaces, '0's) and the whole block is validated at once up to its
** last comma L before any other byte: every number between its commas is the JSON
** grammar's "int frac?" with no sign and no exponent (a digit first, no leading zero,
** at most one point, a digit after it), and the separators all "," or all ", " (so a
** point also has a digit before it, and a number ends in one: after its first byte, a
** digit, come only digits and points, each followed by a digit). Two points in one are
** found by adding a bit just after each point to the digit mask: the carry runs
** through the digits after the point and lands on the first byte that is no digit,
** which must not be a point. A block that fails any check is left to the lane above,
** number by number (the plain C path says what is wrong), so this lane only passes
** what the grammar takes. Returns the comma after the last number passed (pos when
** none), with *last its start; 64 bytes from each pos < lane_end must be readable.
*/
__attribute__((target("avx2,bmi,bmi2"))) static size_t
skip_blocks_avx2(const char *s, size_t pos, size_t lane_end, size_t *last)
{
    __m256i zero = _mm256_set1_epi8('0'), nine = _mm256_set1_epi8(9);
    __m256i dot = _mm256_set1_epi8('.'), comma = _mm256_set1_epi8(',');
    __m256i space = _mm256_set1_epi8(' ');
    __asm__("" : "+x"(zero), "+x"(nine), "+x"(dot), "+x"(comma), "+x"(space));
    while (pos < lane_end) { /* s[pos] is a comma */
        const unsigned char *p = (const unsigned char *)s + pos;
        NumMasks m = num_masks_avx2(p, zero, nine, dot, comma, space);
        uint64_t st;
        unsigned l = skip_block_check(m.d, m.pt, m.c, m.sp, m.z, &st);
        if (l == 0)
            break;
        *last = pos + 63 - (unsigned)__builtin_clzll(st);
        pos += l;
    }
    return pos;
}

/*
** The run lane in front of skip_blocks_*: there each block starts at the comma the last
** one ended on, so that the next load waits for the whole check of the block before it
** (a chain of some twenty cycles a block). Here the blocks follow one another, 64 bytes
** apart whatever they hold, and what a check needs from the block before comes as
** carries: its last commas (a number's first byte, or its space, may be in this block),
** its last point (the digit that must follow it), its last first byte if a zero (no
** digit may follow it), and the carry of d + (points << 1) (a run of digits after a
** point that reaches the block's end: the next byte that is no digit must be no point).
** A block is taken only when it holds nothing but digits, points, commas and the
** spaces of the separator, which is ", " throughout or "," throughout (as at the first
** comma), and passes the checks of skip_block_check on all its bytes; the lane then
** stops at the last comma of the blocks taken, and skip_blocks_* goes on from there.
*/
typedef struct SkipRun {
    uint64_t c, pt, fz; /* the block before's commas, points, zeros first in a number */
    unsigned char add;  /* the carry out of its d + (points << 1) */
} SkipRun;

/* The faults of a block (0: none) from its masks, as skip_block_check's, with the
   carries k from the block before (updated for the next when there is none: k stays the
   last block taken's). sep: 1 or 2. */
__attribute__((target("bmi,bmi2"))) static inline __attribute__((always_inline)) uint64_t
skip_run_block(uint64_t d, uint64_t pt, uint64_t c, uint64_t sp, uint64_t z, unsigned sep,
               SkipRun *k)
{
    uint64_t first = sep == 2 ? c << 2 | k->c >> 62 : c << 1 | k->c >> 63;
    uint64_t spaces = sep == 2 ? c << 1 | k->c >> 63 : 0; /* where the spaces must be */
    uint64_t fz = first & z, after_pt = pt << 1 | k->pt >> 63;
    unsigned long long sum;
    unsigned char add = _addcarry_u64(k->add, d, after_pt, &sum);
    uint64_t bad = ~(d | pt | c | sp)              /* another byte */
                   | (sp ^ spaces)                 /* the separator */
                   | (first & ~d)                  /* a digit first */
                   | ((fz << 1 | k->fz >> 63) & d) /* no leading zero */
                   | (after_pt & ~d)               /* a digit after a point */
                   | (sum & ~d & pt);              /* one point */
    if (bad != 0)
        return bad;
    k->c = c;
    k->pt = pt;
    k->fz = fz;
    k->add = add;
    return 0;
}

/* Where the run lane stopped, the blocks from pos taken up to q (q - 64 the last, with
   commas kc): at their last comma (pos when none), with *last the start of the number
   before it. Found once here, not for each block. */
static inline size_t skip_run_end(const char *s, size_t pos, size_t q, uint64_t kc, unsigned sep,
                                  size_t *last)
{
    if (q == pos)
        return pos;
    size_t lastc = q - 1 - (unsigned)__builtin_clzll(kc); /* kc != 0: a block taken has one */
    if (lastc > pos) {        /* (pos itself when the one block taken has no other comma) */
        size_t j = lastc - 1; /* back over the number (digits and points) to its comma */
        while (s[j] != ',')
            j--;
        *last = j + sep;
    }
    return lastc;
}

/* skip_run_avx2's loop for one separator (a constant where inlined: no test of it, nor
   room taken by it, in each block) */
__attribute__((target("avx2,bmi,bmi2"))) static inline __attribute__((always_inline)) size_t
skip_run_avx2_sep(const char *s, size_t pos, size_t lane_end, size_t *last, const unsigned sep)
{
    __m256i zero = _mm256_set1_epi8('0'), nine = _mm256_set1_epi8(9);
    __m256i dot = _mm256_set1_epi8('.'), comma = _mm256_set1_epi8(',');
    __m256i space = _mm256_set1_epi8(' ');
    __asm__("" : "+x"(zero), "+x"(nine), "+x"(dot), "+x"(comma), "+x"(space));
    SkipRun k = {0, 0, 0, 0};
    size_t q = pos;
    for (; q < lane_end; q += 64) {
        const unsigned char *p = (const unsigned char *)s + q;
        NumMasks m = num_masks_avx2(p, zero, nine, dot, comma, space);
        /* (a block with no comma holds a number of 64 bytes or more, which could be beyond
           a double: left to the plain path, which checks) */
        if (m.c == 0 || skip_run_block(m.d, m.pt, m.c, m.sp, m.z, sep, &k) != 0)
            break;
    }
    return skip_run_end(s, pos, q, k.c, sep, last);
}

__attribute__((target("avx2,bmi,bmi2"))) static size_t skip_run_avx2(const char *s, size_t pos,
                                                                     size_t lane_end, size_t *last)
{
    if (s[pos + 1] == ' ') /* s[pos] is a comma */
        return skip_run_avx2_sep(s, pos, lane_end, last, 2);
    return skip_run_avx2_sep(s, pos, lane_end, last, 1);
}

/* skip_run_avx2 with AVX-512 (BW): each class of bytes compared straight into a mask */
__attribute__((target("avx512f,avx512bw,bmi,bmi2"))) static inline __attribute__((always_inline))
size_t
skip_run_avx512_sep(const char *s, size_t pos, size_t lane_end, size_t *last, const unsigned sep)
{
    __m512i zero = _mm512_set1_epi8('0'), nine = _mm512_set1_epi8(9);
    __m512i dot = _mm512_set1_epi8('.'), comma = _mm512_set1_epi8(',');
    __m512i space = _mm512_set1_epi8(' ');
    __asm__("" : "+v"(zero), "+v"(nine), "+v"(dot), "+v"(comma), "+v"(space));
    SkipRun k = {0, 0, 0, 0};
    size_t q = pos;
    for (; q < lane_end; q += 64) {
        NumMasks m = num_masks_avx512((const unsigned char *)s + q, zero, nine, dot, comma, space);
        /* (a block with no comma holds a number of 64 bytes or more, which could be beyond
           a double: left to the plain path, which checks) */
        if (m.c == 0 || skip_run_block(m.d, m.pt, m.c, m.sp, m.z, sep, &k) != 0)
            break;
    }
    return skip_run_end(s, pos, q, k.c, sep, last);
}

__attribute__((target("avx512f,avx512bw,bmi,bmi2"))) static size_t
skip_run_avx512(const char *s, size_t pos, size_t lane_end, size_t *last)
{
    if (s[pos + 1] == ' ') /* s[pos] is a comma */
        return skip_run_avx512_sep(s, pos, lane_end, last, 2);
    return skip_run_avx512_sep(s, pos, lane_end, last, 1);
}

/*
** skip_blocks_avx2 with AVX-512 (BW), with "avx512": the block in one register, each
** class of bytes compared straight into a 64-bit mask (no halves to put together), the
** same check (issue 20: the per-token timestamps passed over in ip_tokens' chunk_times).
*/
__attribute__((target("avx512f,avx512bw,bmi,bmi2"))) static size_t
skip_blocks_avx512(const char *s, size_t pos, size_t lane_end, size_t *last)
{
    __m512i zero = _mm512_set1_epi8('0'), nine = _mm512_set1_epi8(9);
    __m512i dot = _mm512_set1_epi8('.'), comma = _mm512_set1_epi8(',');
    __m512i space = _mm512_set1_epi8(' ');
    __asm__("" : "+v"(zero), "+v"(nine), "+v"(dot), "+v"(comma), "+v"(space));
    while (pos < lane_end) { /* s[pos] is a comma */
        NumMasks m =
            num_masks_avx512((const unsigned char *)s + pos, zero, nine, dot, comma, space);
        uint64_t st;
        unsigned l = skip_block_check(m.d, m.pt, m.c, m.sp, m.z, &st);
        if (l == 0)
            break;
        *last = pos + 63 - (unsigned)__builtin_clzll(st);
        pos += l;
    }
    return pos;
}
#endif

/*
** One element of json_next_numbers the long way, from i (just after an element): the
** separator with any whitespace, and the number. Returns the offset past the number,
** with its value in *out and its start in *at; or 0 where the lane stops, with *at and
** *state the position and state json_next_numbers leaves. Out of line: the lane's
** loop keeps its registers.
*/
static __attribute__((noinline)) size_t next_number_slow(JsonParser *p, size_t i, double *out,
                                                         size_t *at, int *state)
{
    const char *b = p->buf;
    size_t n = p->len;
    *state = ST_NEXT;
    if (i < n && b[i] == ',') { /* the comma right after the number */
        i++;
    } else {
        i = skip_ws(p, i);
        if (i >= n || b[i] != ',') {
            *at = i;
            return 0;
        }
        i++;
    }
    if (i < n && (unsigned char)b[i] <= ' ') /* ", " and the like */
        i = skip_ws(p, i);
    *at = i;
    *state = ST_VALUE;
    if (i >= n)
        return 0;
    size_t end = read_number(b, i, n, n, 1, simd_on(), out);
    /* beyond a double (1e999: +inf): json_next reads it too, as a token, so that the
       reader that wanted it can say where it is (its value is the same) */
    if (end == 0 || (end >= n && !p->final) || isinf(*out))
        return 0; /* json_next reads it (says what is wrong, or waits for the rest) */
    *state = ST_NEXT;
    return end;
}

/* json_next_numbers' loop, compiled once with the SSE2 lane and once in plain C. */
static inline __attribute__((always_inline)) size_t next_numbers(JsonParser *p, double *out,
                                                                 size_t max, int simd)
{
    /* the position in a local, and the parser's fields written once at the end (stores
       to them in the loop cost as much as the loop's own work) */
    const char *b = p->buf;
    size_t n = p->len, pos = p->pos, last = SIZE_MAX;
    size_t lane_end = n > 2 + DECIMAL_AHEAD ? n - (1 + DECIMAL_AHEAD) : 0;
    int state = ST_NEXT;
    double *o = out, *o_end = out + max;
    while (o < o_end) {
#ifdef JSON_WIDE_SIMD
        if (simd && wide_numbers && pos < lane_end && b[pos] == ',') {
            pos = usual_numbers_avx2(b, pos, n, &o, o_end, &last);
            if (o == o_end)
                break;
        }
#endif
        /* most often: "," or ", " and a plain decimal, well inside the window */
        if (pos < lane_end && b[pos] == ',') { /* pos + 2 + DECIMAL_AHEAD <= n */
            size_t j = pos + 1 + (b[pos + 1] == ' ');
            size_t end = read_decimal(b, j, n, 0, 1, simd, o);
            if (end != 0) {
                last = j;
                pos = end;
                o++;
                continue;
            }
        }
        size_t at;
        size_t end = next_number_slow(p, pos, o, &at, &state);
        if (end == 0) {
            pos = at;
            break;
        }
        last = at;
        pos = end;
        o++;
    }
    p->pos = pos;
    p->state = state;
    if (state == ST_VALUE)
        p->tok_off = p->base + pos;
    else if (last != SIZE_MAX)
        p->tok_off = p->base + last;
    return (size_t)(o - out);
}

size_t json_next_numbers(JsonParser *p, double *out, size_t max)
{
    if (p->state != ST_NEXT || p->lazy || p->depth == 0 || p->stack[p->depth - 1] != '[')
        return 0;
#if defined(__SSE2__) && defined(__x86_64__)
    if (simd_on())
        return next_numbers(p, out, max, 1);
#endif
    return next_numbers(p, out, max, 0);
}

/* How many of the 8 bytes of v (little-endian: the first is the low byte) are digits
   before the first other byte. */
static unsigned leading_digits(uint64_t v)
{
    uint64_t t = v ^ 0x3030303030303030ULL; /* a digit's byte is now 0..9 */
    /* high bit set in each byte that is not: >= 10 once 0x76 is added (no carry: the
       byte's own high bit is taken out first and put back with the or) */
    uint64_t other =
        (((t & 0x7F7F7F7F7F7F7F7FULL) + 0x7676767676767676ULL) | t) & 0x8080808080808080ULL;
    return other ? (unsigned)__builtin_ctzll(other) >> 3 : 8;
}

/* The value of 8 digit values (0..9 in each byte; the first, most significant, in the
   low byte). */
static inline __attribute__((always_inline)) uint64_t digits8_value(uint64_t v)
{
    v = v * 10 + (v >> 8); /* pairs of digits in every other byte */
    v = ((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32)) +
         ((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32))) >>
        32;
    return v;
}

/*
** Adds the digits at s[*i..] to the mantissa *m, 8 at a time where the window allows.
** Returns -1 when there are more than 19 significant digits (the caller falls back to
** strtod). The caller skips leading zeros: every digit here counts as significant.
*/
static inline int take_digits(const char *s, size_t n, size_t *i, uint64_t *m, int *sig)
{
    static const uint64_t p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    size_t k = *i;
    while (k + 8 <= n) {
        uint64_t v;
        memcpy(&v, s + k, 8);
        unsigned c = leading_digits(v);
        if (c == 0)
            break;
        if (*sig + (int)c > 19)
            return -1;
        /* the c digits as the last c of 8 (the bytes shifted in are zeros) */
        uint64_t d = (v - 0x3030303030303030ULL) << (8 * (8 - c));
        *m = (c == 8 ? 100000000ULL : p10[c]) * *m + digits8_value(d);
        *sig += (int)c;
        k += c;
        if (c < 8) {
            *i = k;
            return 0;
        }
    }
    for (; k < n && is_digit(s[k]); k++) {
        if (++*sig > 19)
            return -1;
        *m = *m * 10 + (uint64_t)(s[k] - '0');
    }
    *i = k;
    return 0;
}

int json_number_in(const char *s, size_t n, size_t avail, double *out)
{
    double d;
    if (avail > n && is_digit(s[n]))
        avail = n; /* a digit right after: read no further than n */
    if (n == 0)
        return 0;
#if defined(__SSE2__) && defined(__x86_64__)
    if (simd_on()) {
        if (read_number(s, 0, n, avail, 0, 1, &d) != n)
            return 0;
        *out = d;
        return 1;
    }
#endif
    if (read_number(s, 0, n, avail, 0, 0, &d) != n)
        return 0;
    *out = d;
    return 1;
}

int json_number_value(const char *s, size_t n, double *out)
{
    return json_number_in(s, n, n, out);
}

/* ---- CSV cells of numbers, many in one call ------------------------------------ */

/* json_number_cells in plain C: each cell as json_number_in reads it (read_number inlined:
   no call, no registers saved a cell). */
static size_t number_cells_portable(const char *buf, size_t n, size_t base, const uint32_t *stops,
                                    size_t stride, size_t count, double *out)
{
    const uint32_t *st = stops;
    for (size_t k = 0; k < count; k++, st += stride) {
        uint32_t from = st[0] + 1, len = st[1] - from;
        const char *s = buf + base + from;
        size_t avail = n - base - from;
        if (avail > len && is_digit(s[len]))
            avail = len; /* a digit right after: read no further than the cell */
        if (len == 0 || read_number(s, 0, len, avail, 0, 0, out + k) != len)
            return k;
    }
    return count;
}

#if defined(__SSE2__) && defined(__x86_64__)
/* A cell json_number_cells' lane does not take, as json_number_in reads it: 1 when it
   is a number (*out set). Out of the loop: the lane keeps its registers. */
static __attribute__((noinline)) int number_cell_other(const char *buf, size_t n, size_t base,
                                                       const uint32_t *st, double *out, int simd)
{
    uint32_t from = st[0] + 1, len = st[1] - from;
    const char *s = buf + base + from;
    size_t avail = n - base - from;
    if (avail > len && is_digit(s[len]))
        avail = len; /* a digit right after: read no further than the cell */
    return len != 0 && read_number(s, 0, len, avail, 0, simd, out) == len;
}

/* 32 bytes of 0, then 32 of 0xFF: the 16 bytes from 32 - k are 0xFF at the places k and
   after of a 32-byte window's first half, those from 48 - k of its second half. */
static const unsigned char cell_from[64] __attribute__((aligned(64))) = {
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

/* A number of L bytes (its digits and point) right-aligned in a window of 32 places:
   its places (32 - L .. 31), its first and last (which must be digits), both with bit 40
   when L is refused (0 or more than 20); bit 63 when it must have a point (19 digits
   or more); how far back from its end its first byte is (1 for L = 0, which has none:
   the cell's "-"). */
typedef struct CellShape {
    uint64_t places, edges, point;
    int back;
    unsigned char run[2]; /* 32 less the run's first place: without a point, with one */
} CellShape;
#define CELL_SHAPE(L)                                                                              \
    {                                                                                              \
        ((0xFFFFFFFFULL << (32 - (L))) & 0xFFFFFFFFULL) | ((L) == 0 || (L) > 20 ? 1ULL << 40 : 0), \
            (1ULL << (32 - (L))) | 1ULL << 31 | ((L) == 0 || (L) > 20 ? 1ULL << 40 : 0),           \
            (L) > 18 ? 1ULL << 63 : 0, (L) == 0 ? 1 : (L),                                         \
        {                                                                                          \
            (L), (L) == 0 ? 0 : (L)-1                                                              \
        }                                                                                          \
    }
static const CellShape cell_shapes[22] = {
    CELL_SHAPE(0),  CELL_SHAPE(1),  CELL_SHAPE(2),  CELL_SHAPE(3),  CELL_SHAPE(4),  CELL_SHAPE(5),
    CELL_SHAPE(6),  CELL_SHAPE(7),  CELL_SHAPE(8),  CELL_SHAPE(9),  CELL_SHAPE(10), CELL_SHAPE(11),
    CELL_SHAPE(12), CELL_SHAPE(13), CELL_SHAPE(14), CELL_SHAPE(15), CELL_SHAPE(16), CELL_SHAPE(17),
    CELL_SHAPE(18), CELL_SHAPE(19), CELL_SHAPE(20), CELL_SHAPE(21)};
#undef CELL_SHAPE

/*
** Cells of the usual shapes, each read from its end: "[-]digits.digits" with at most 19
** digits, "[-]digits" with at most 18, no leading zero ("0.25" and "0" are fine), the
** cell ending 32 bytes or more into buf. The 32 bytes before the cell's end (the cell
** and what comes before it: nothing after it is read) less '0' make a window in which
** the number is right-aligned: places s = 32 - L .. 31, L its length without the sign.
** The places in it that are no digit say where the point is (dp) and whether anything
** else is there. The integer part moves one place up over the point (as in
** usual_value_sse2), which leaves the digits one run ending at place 31 (from place
** s + 1 with a point, s without): m, the number without its point, 19 digits at most,
** at places 13 .. 31. Its value from fixed weights (no length to look up): pairs, fours
** and eights of digits by multiply-adding neighbouring lanes, the places before the
** run weighted 0 or zeroed; then m = eights[8..15] 10^16 + eights[16..23] 10^8 +
** eights[24..31], and the value m 10^-(digits after the point) by compose_decimal.
** Reads cells k .. count - 1 until one is not of these shapes; returns its index (count
** when there is none): json_number_cells reads that one as json_number_in does, out of
** this loop (no call in it: its constants stay in registers).
*/
static size_t number_cells_sse2(const char *buf, size_t base, const uint32_t *stops, size_t stride,
                                size_t k, size_t count, double *out)
{
    const unsigned char *b = (const unsigned char *)buf + base;
    const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
    const __m128i k100 = _mm_set1_epi32(100 | 1 << 16), k10000 = _mm_set1_epi32(10000 | 1 << 16);
    const __m128i k10 = _mm_set1_epi32(10 | 1 << 16), z = _mm_setzero_si128();
    const uint32_t *st = stops + k * stride;
    for (; k < count; k++, st += stride) {
        uint32_t to = st[1], len = to - st[0] - 1;
        if (base + to < 32 || len - 1 >= 21)
            return k;
        {
            const unsigned char *e = b + to, *c = e - len;
            unsigned neg = c[0] == '-';
            unsigned L = len - neg; /* the digits and the point: 1..21 */
            __m128i lo =
                _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(e - 32)), zero);
            __m128i hi =
                _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(e - 16)), zero);
            uint64_t digit =
                (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(lo, nine), lo)) |
                (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(hi, nine), hi))
                    << 16;
            const CellShape *sh = &cell_shapes[L];
            uint64_t other = sh->places & ~digit; /* no digit: the point, or refused */
            /* the point's place (0: none) */
            unsigned dp = (unsigned)__builtin_ctzll(other | 1ULL << 32) & 31;
            unsigned point = other != 0, s = 32 - L;
            /* refused: more than one byte that is no digit, the first or last byte no
               digit ("-" and a length of 21 too: their places and edges have bit 40), an
               integer of 19 digits or more (other 0, other - 1 all ones), one that is no
               point, a leading zero before a digit */
            uint64_t bad = (other & (other - 1)) | (other & sh->edges) | ((other - 1) & sh->point) |
                           (uint64_t)((e[(int)dp - 32] != '.') & point) |
                           ((uint64_t)(e[-sh->back] == '0') & (digit >> (s + 1)));
            if (bad != 0)
                return k;
            {
                /* the places from s on; then those up to the point take the one before
                   them (the place s, zero) */
                lo = _mm_and_si128(
                    lo, _mm_loadu_si128((const __m128i *)(const void *)(cell_from + 32 - s)));
                hi = _mm_and_si128(
                    hi, _mm_loadu_si128((const __m128i *)(const void *)(cell_from + 48 - s)));
                __m128i up_lo = _mm_slli_si128(lo, 1);
                __m128i up_hi = _mm_or_si128(_mm_slli_si128(hi, 1), _mm_srli_si128(lo, 15));
                __m128i after_lo =
                    _mm_loadu_si128((const __m128i *)(const void *)(cell_from + 31 - dp));
                __m128i after_hi =
                    _mm_loadu_si128((const __m128i *)(const void *)(cell_from + 47 - dp));
                lo = _mm_xor_si128(up_lo, _mm_and_si128(after_lo, _mm_xor_si128(lo, up_lo)));
                hi = _mm_xor_si128(up_hi, _mm_and_si128(after_hi, _mm_xor_si128(hi, up_hi)));
                __m128i p0 = _mm_madd_epi16(_mm_unpacklo_epi8(hi, z), k10); /* 16..23 */
                __m128i p1 = _mm_madd_epi16(_mm_unpackhi_epi8(hi, z), k10); /* 24..31 */
                __m128i p2 = _mm_madd_epi16(_mm_unpackhi_epi8(lo, z), k10); /* 8..15 */
                __m128i q0 = _mm_madd_epi16(_mm_packs_epi32(p0, p1), k100); /* fours */
                __m128i q1 = _mm_madd_epi16(_mm_packs_epi32(p2, p2), k100);
                __m128i r = _mm_madd_epi16(_mm_packs_epi32(q1, q0), k10000); /* 8, 8, 16, 24 */
                uint64_t x = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(r, r));
                uint64_t top = (uint32_t)_mm_cvtsi128_si32(r);
                uint64_t m =
                    top * 10000000000000000ULL + (x & 0xFFFFFFFFULL) * 100000000ULL + (x >> 32);
                if (point) {
                    out[k] = compose_decimal(m, 31 - dp, (int)neg, (const char *)c, len);
                } else { /* m < 10^18 < 2^63: the conversion rounds as strtod does */
                    double d = (double)(int64_t)m;
                    out[k] = neg ? -d : d;
                }
            }
        }
    }
    return count;
}

#ifdef JSON_WIDE_SIMD
/* For number_cells_avx2, by the point's place dp (31 - dp digits after it, up to 21):
   decimal_pow5's 5^-(31 - dp) (its top half), and the power of two its field adds, as
   doubles (the second negative); and 2^-l for l = 0..63. Filled by pow5_init. */
typedef struct CellPow5 {
    uint64_t hi, pad;
    double scale[2];
} CellPow5;
/* All its tables in one place (one base register in its loop), copies of cell_shapes
   and cell_from among them; and 10^16 (a multiplication by it from memory). */
typedef struct CellWide {
    /* cell_shapes' fields, each in an array of its own (indexed by L, scaled by 8) */
    uint64_t places[22], edges[22], point[22];
    unsigned char run[22][2];
    unsigned char from[64];
    CellPow5 pow5[32];
    double unscale[64];
    uint64_t e16;
    /* number_cells_avx512's: each byte's classes, by the byte (bytes of 63 or more as 63):
       bit 0 a digit, 1 the point, 2 "-", 3 "0"; the bytes of the classes' masks
       (cell_pair_load, cell_checks); each byte's source for the places moved up */
    unsigned char classes[64], select[64], gather[64], up[64];
    /* number_cells_avx512's groups of eight: decimal_pow5_table's hi and field by b (the
       digits after the point), eight to a register (b 22 and 23: 0, never asked) */
    uint64_t group_hi[24], group_field[24];
} CellWide;
static CellWide cell_wide __attribute__((aligned(64)));

/*
** number_cells_sse2 with AVX2, BMI1/2 and LZCNT: the window in one register (and again
** one byte earlier: the places moved up), its digits, points and zeros as three masks,
** the pairs weighted by maddubs (0 before the run), the eights summed to halves of m
** in the register; decimal_pow5's step with the power of two and the sign as two
** multiplications (exact: the result is a normal double), and where it cannot decide,
** the cell is left to json_number_cells (no call in this loop).
*/
__attribute__((target("avx2,bmi,bmi2,lzcnt"))) static size_t
number_cells_avx2(const char *buf, size_t base, const uint32_t *stops, size_t stride, size_t k,
                  size_t count, double *out)
{
    const unsigned char *b = (const unsigned char *)buf + base,
                        *lim = (const unsigned char *)buf + 33;
    __m256i zero = _mm256_set1_epi8('0'), nine = _mm256_set1_epi8(9);
    __m256i point_byte = _mm256_set1_epi8('.' - '0');
    __m256i k10 = _mm256_set1_epi16(1 << 8 | 10); /* bytes 10, 1 */
    __m256i k100 = _mm256_set1_epi32(100 | 1 << 16), k10000 = _mm256_set1_epi32(10000 | 1 << 16);
    __m256i k1e8 = _mm256_set1_epi64x(100000000);
    /* in registers for the whole loop (GCC would make them again in each turn) */
    __asm__("" : "+x"(zero), "+x"(nine), "+x"(point_byte), "+x"(k10));
    __asm__("" : "+x"(k100), "+x"(k10000), "+x"(k1e8));
    const CellWide *tb = &cell_wide;
    const uint32_t *st = stops + k * stride;
    double *o = out + k, *o_end = out + count;
    /* the cells end one after the other: when the first ends 33 bytes or more into buf,
       so do the rest */
    if (o != o_end && b + st[1] < lim)
        return k;
    for (; o != o_end; o++, st += stride) {
        uint32_t from = st[0] + 1, to = st[1], len = to - from;
        const unsigned char *c = b + from, *e = b + to;
        if (len - 1 >= 21)
            break;
        unsigned neg = c[0] == '-';
        size_t L = len - neg; /* the digits and the point: 0..21 */
        __m256i t =
            _mm256_sub_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(e - 32)), zero);
        __m256i up =
            _mm256_sub_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(e - 33)), zero);
        uint64_t digit =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(t, nine), t));
        uint64_t points = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(t, point_byte));
        uint64_t zeros =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(t, _mm256_setzero_si256()));
        uint64_t other = tb->places[L] & ~digit; /* no digit: the point, or refused */
        /* refused: more than one byte that is no digit, one that is no point, the first
           or last byte no digit ("-" and a length of 21 too: their places and edges have
           bit 40), a leading zero before a digit, an integer of 19 digits or more (other
           0, other - 1 all ones) */
        uint64_t bad = _blsr_u64(other) | (other & ~points) | ((other - 1) & tb->point[L]) |
                       (tb->edges[L] & (other | (zeros & (digit >> 1))));
        if (bad != 0)
            break;
        unsigned dp = (unsigned)_tzcnt_u64(other) & 31; /* the point's place (0: none) */
        unsigned point = other != 0;
        /* places up to the point take the one before them */
        __m256i after = _mm256_loadu_si256((const __m256i *)(const void *)(tb->from + 31 - dp));
        t = _mm256_blendv_epi8(up, t, after);
        /* pairs, weighted 0 before the run; fours; eights 0, 8, 0, 8 | 16, 24, 16, 24;
           sixteens 0..15 and 16..31 in the first 8 bytes of each half */
        __m256i w = _mm256_and_si256(
            k10, _mm256_loadu_si256((const __m256i *)(const void *)(tb->from + tb->run[L][point])));
        __m256i q = _mm256_madd_epi16(_mm256_maddubs_epi16(t, w), k100);
        __m256i r = _mm256_madd_epi16(_mm256_packs_epi32(q, q), k10000);
        r = _mm256_add_epi64(_mm256_mul_epu32(r, k1e8), _mm256_srli_epi64(r, 32));
        uint64_t m = (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(r)) * tb->e16 +
                     (uint64_t)_mm_cvtsi128_si64(_mm256_extracti128_si256(r, 1));
        if (point) { /* decimal_pow5 (m 0: l 64, the shift 0, lo 0: refused) */
            const CellPow5 *t5 = &tb->pow5[dp];
            uint64_t l = _lzcnt_u64(m);
            unsigned __int128 p = (unsigned __int128)(m << (l & 63)) * t5->hi;
            uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
            if (((hi + 1) & 0x1FF) == 0 || lo == 0)
                break;
            *o = (double)(int64_t)((hi >> 1) | 1) * t5->scale[neg] * tb->unscale[l];
        } else { /* m < 10^18 < 2^63: the conversion rounds as strtod does */
            double d = (double)(int64_t)m;
            *o = neg ? -d : d;
        }
    }
    return (size_t)(o - out);
}

/* number_cells_avx512's constants, in registers for its whole loop (or loaded from the
   stack: not made again from general registers in each turn, port 5's work). */
typedef struct CellConsts {
    __m512i zero, k10, k100, k10000, k1e8, e16lo, e16hi;
    __m512i b63, bitrev; /* bytes of 63; each byte's bits reversed (GF2P8AFFINEQB) */
    __m512i classes, select, gather, dp, sz; /* CellWide's; the quadwords of two classes */
    __m512i up;                              /* CellWide's up */
    /* cell_checks' (in 32-bit lanes): 1, 31, 32, -2 (all ones but bit 0), all ones, 128,
       bit 11, bit 31 */
    __m256i d1, d31, d32, dm2, dall, d128, d2048, dmin;
    __m512i firsts, seconds, low32, low9, one, sixteen; /* cell_turn's */
} CellConsts;

/*
** number_cells_avx512's masks of a turn's four pairs of cells, by cell_pair_load: each
** pair's classes (digit, point, "-", "0") of each byte moved to bits, byte f of each
** quadword those of class f of the quadword's bytes (last first); the cells' lengths (0:
** refused), a byte each (pair j's A in byte 2 j, B in 2 j + 1). cell_checks gathers the
** bits of the eight cells, class by class, in vectors: no mask register, no general
** register on the way (mask registers' words, moved through general registers into a
** vector, took more of port 5 than anything else in the turn).
*/
typedef struct CellMasks {
    __m512i bits[4];
    uint64_t lens;
    __mmask64 keep[4], run[4]; /* cell_checks' answers, for the mask registers */
} CellMasks;

/*
** One pair of number_cells_avx512's turn: the cells between sp[0] and sp[1] (A) and
** between sp[stride] and sp[stride + 1] (B), both ending 33 bytes or more into the
** buffer. Their windows in the halves of one register (*t: the bytes less '0'; *up: the
** same one byte earlier, the places moved up), their classes' bits into mk->bits[j] and
** their lengths into mk->lens (clear before pair 0).
*/
__attribute__((
    target("avx512f,avx512bw,avx512vl,avx512vbmi,gfni,avx2,bmi,bmi2,lzcnt"))) static inline
    __attribute__((always_inline)) void
    cell_pair_load(const unsigned char *b, const uint32_t *sp, size_t stride, const CellConsts *c,
                   __m512i *t, __m512i *up, CellMasks *mk, int j)
{
    uint32_t ta = sp[1], tb2 = sp[stride + 1];
    uint32_t la = ta - sp[0] - 1, lb = tb2 - sp[stride] - 1; /* with the sign */
    /* "d.d" .. 20 digits and point, and a sign; any other length as 0, which has no
       bytes, hence no point: refused by cell_checks */
    la = la - 3 < 19 ? la : 0;
    lb = lb - 3 < 19 ? lb : 0;
    const unsigned char *ea = b + ta, *eb = b + tb2;
    __m512i x = _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)(ea - 32))),
        _mm256_loadu_si256((const __m256i *)(const void *)(eb - 32)), 1);
    /* the classes by a table, the bytes of 63 or more as 63 (no class); each quadword as
       a matrix of bits, its bytes' class f in byte f (bit i: byte 7 - i) */
    __m512i cls = _mm512_permutexvar_epi8(_mm512_min_epu8(x, c->b63), c->classes);
    mk->bits[j] = _mm512_gf2p8affine_epi64_epi8(c->select, cls, 0);
    mk->lens |= (uint64_t)(la | lb << 8) << (16 * j);
    *t = _mm512_sub_epi8(x, c->zero);
    /* each half's places moved up one (place 0 keeps its byte: it is never in a cell of
       21 bytes or fewer) */
    *up = _mm512_permutexvar_epi8(c->up, *t);
}

/*
** The checks of a turn's eight cells (mk's masks), each in a 32-bit lane (cell k in lane
** k: pair j's A in lane 2 j, B in 2 j + 1; shifts by one place cannot carry a bit into
** another cell). Sets mk->keep (the places after the point: their own byte; those up to
** it take the one before) and mk->run (the run of digits and the moved point, from the
** place after the first), and *info: a cell's byte in each lane, the digits after its
** point (b = 31 - the point's place, 0..20) in bits 0..4 and its sign in bit 7. Returns
** not 0 when a cell is of another shape: no point or two, a byte that is no digit and no
** point, the first or last byte no digit, a leading zero before a digit, 21 places (a
** length of 21 without a sign: bit 11).
*/
__attribute__((target("avx512f,avx512bw,avx512vl,avx512cd,avx512vbmi,gfni,avx2"))) static inline
    __attribute__((always_inline)) int
    cell_checks(CellMasks *mk, const CellConsts *c, __m256i *info)
{
    /* class f of cells 0..3 in bytes 16 f .. 16 f + 15 of b01, of 4..7 in b47's; digits
       and points in dp (cells 0..7 in each half), signs and zeros in sz, their bits in
       the bytes' order */
    __m512i b03 = _mm512_permutex2var_epi8(mk->bits[0], c->gather, mk->bits[1]);
    __m512i b47 = _mm512_permutex2var_epi8(mk->bits[2], c->gather, mk->bits[3]);
    __m512i dp =
        _mm512_gf2p8affine_epi64_epi8(_mm512_permutex2var_epi64(b03, c->dp, b47), c->bitrev, 0);
    __m512i sz =
        _mm512_gf2p8affine_epi64_epi8(_mm512_permutex2var_epi64(b03, c->sz, b47), c->bitrev, 0);
    const __m256i digit = _mm512_castsi512_si256(dp), point = _mm512_extracti64x4_epi64(dp, 1);
    const __m256i sign = _mm512_castsi512_si256(sz), zero = _mm512_extracti64x4_epi64(sz, 1);
    /* the last len places of each cell's 32 */
    __m256i len = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)mk->lens));
    const __m256i span = _mm256_sllv_epi32(c->dall, _mm256_sub_epi32(c->d32, len));
    __m256i lead = _mm256_andnot_si256(_mm256_slli_epi32(span, 1), span); /* first bytes */
    __m256i neg = _mm256_and_si256(sign, lead);
    __m256i places = _mm256_xor_si256(span, neg); /* the digits and the point */
    __m256i first = _mm256_andnot_si256(_mm256_slli_epi32(places, 1), places);
    __m256i pt = _mm256_and_si256(point, places);
    __m256i b = _mm256_lzcnt_epi32(pt); /* the one point's, else 32 (none) or less (two) */
    /* no point (b = 32), or more than one (pt not a power of two) */
    __m256i bad =
        _mm256_or_si256(_mm256_srli_epi32(b, 5), _mm256_and_si256(pt, _mm256_sub_epi32(pt, c->d1)));
    bad = _mm256_or_si256(bad, _mm256_andnot_si256(_mm256_or_si256(digit, point), places));
    bad = _mm256_or_si256(bad, _mm256_and_si256(places, c->d2048));
    bad = _mm256_or_si256(bad, _mm256_andnot_si256(digit, _mm256_or_si256(first, c->dmin)));
    bad = _mm256_or_si256(
        bad, _mm256_and_si256(_mm256_and_si256(zero, first), _mm256_srli_epi32(digit, 1)));
    /* the places after the point's (31 - b): 0xFFFFFFFE << (31 - b) */
    _mm256_storeu_si256((__m256i *)(void *)mk->keep,
                        _mm256_sllv_epi32(c->dm2, _mm256_sub_epi32(c->d31, b)));
    _mm256_storeu_si256((__m256i *)(void *)mk->run, _mm256_andnot_si256(first, places));
    *info = _mm256_mask_or_epi32(b, _mm256_test_epi32_mask(neg, neg), b, c->d128);
    return !_mm256_testz_si256(bad, bad);
}

/*
** Pair j of a turn whose cells passed cell_checks: the places up to the point moved up,
** those before the run cleared (by mask registers), the pairs and fours of both cells:
** A's places 0..15 in the first 128-bit lane, 16..31 in the second, B's in the third and
** fourth (number_cells_avx512 makes the eights of two pairs in one register, and m of
** four pairs at once).
*/
__attribute__((target("avx512f,avx512bw"))) static inline __attribute__((always_inline)) __m512i
cell_pair_fours(__m512i t, __m512i up, const CellMasks *mk, int j, const CellConsts *c)
{
    /* the masks loaded from cell_checks' stores (GCC took them out of the vector word by
       word, through general registers, which is port 5's work as the moves to mask
       registers are: loads use other ports) */
    __mmask64 keep, run;
    __asm__("kmovq %1, %0" : "=k"(keep) : "m"(mk->keep[j]));
    __asm__("kmovq %1, %0" : "=k"(run) : "m"(mk->run[j]));
    __m512i x = _mm512_maskz_mov_epi8(run, _mm512_mask_blend_epi8(keep, up, t));
    return _mm512_madd_epi16(_mm512_maddubs_epi16(x, c->k10), c->k100);
}

/*
** One turn of number_cells_avx512: the cells of pairs at p0 .. p3 (A at p, B at p +
** stride), their values' bits into *out; -1 when one is of another shape, else the
** cells whose value the product cannot decide (bit k: cell k).
*/
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd,avx512vbmi,gfni,avx2,bmi,bmi2,"
                      "lzcnt"))) static inline __attribute__((always_inline)) int
cell_turn(const unsigned char *b, const uint32_t *p0, const uint32_t *p1, const uint32_t *p2,
          const uint32_t *p3, size_t s0, size_t s1, size_t s2, size_t s3, const CellConsts *c,
          const CellWide *tb, __m512i *out)
{
    __m512i t0, t1, t2, t3, u0, u1, u2, u3;
    CellMasks mk;
    mk.lens = 0;
    cell_pair_load(b, p0, s0, c, &t0, &u0, &mk, 0);
    cell_pair_load(b, p1, s1, c, &t1, &u1, &mk, 1);
    cell_pair_load(b, p2, s2, c, &t2, &u2, &mk, 2);
    cell_pair_load(b, p3, s3, c, &t3, &u3, &mk, 3);
    __m256i info8;
    if (cell_checks(&mk, c, &info8)) /* (a column of integers, say) */
        return -1;
    __m512i r0 = cell_pair_fours(t0, u0, &mk, 0, c), r1 = cell_pair_fours(t1, u1, &mk, 1, c);
    __m512i r2 = cell_pair_fours(t2, u2, &mk, 2, c), r3 = cell_pair_fours(t3, u3, &mk, 3, c);
    /* the eights of two pairs in one register: in each 128-bit lane (16 places of
       a cell), the first pair's two eights in its first quadword, the second's in
       its second (the low 32 bits the first eight); of those, the eight cells'
       places 0..15 (hi) and 16..31 (lo), in order, each made a sixteen; m = hi
       10^16 + lo, hi less than 10^4 (the run starts at place 12 or after), by
       10^16's two 32-bit halves (VPMULLQ takes three times as long): each step
       once for the eight cells, not in each pair's register */
    __m512i e01 = _mm512_madd_epi16(_mm512_packs_epi32(r0, r1), c->k10000);
    __m512i e23 = _mm512_madd_epi16(_mm512_packs_epi32(r2, r3), c->k10000);
    __m512i hi = _mm512_permutex2var_epi64(e01, c->firsts, e23);
    __m512i lo = _mm512_permutex2var_epi64(e01, c->seconds, e23);
    hi = _mm512_add_epi64(_mm512_mul_epu32(hi, c->k1e8), _mm512_srli_epi64(hi, 32));
    lo = _mm512_add_epi64(_mm512_mul_epu32(lo, c->k1e8), _mm512_srli_epi64(lo, 32));
    __m512i m =
        _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(hi, c->e16lo),
                                          _mm512_slli_epi64(_mm512_mul_epu32(hi, c->e16hi), 32)),
                         lo);
    /* each cell's info in a quadword: b in bits 0..4 (the tables' index: VPERMT2Q
       reads bits 0..3 of it, VPERMQ 0..2), the sign in bit 7 */
    __m512i info = _mm512_cvtepu32_epi64(info8);
    __mmask8 past15 = _mm512_test_epi64_mask(info, c->sixteen);
    __m512i hi5 = _mm512_mask_blend_epi64(
        past15,
        _mm512_permutex2var_epi64(_mm512_loadu_si512(tb->group_hi), info,
                                  _mm512_loadu_si512(tb->group_hi + 8)),
        _mm512_permutexvar_epi64(info, _mm512_loadu_si512(tb->group_hi + 16)));
    __m512i field = _mm512_mask_blend_epi64(
        past15,
        _mm512_permutex2var_epi64(_mm512_loadu_si512(tb->group_field), info,
                                  _mm512_loadu_si512(tb->group_field + 8)),
        _mm512_permutexvar_epi64(info, _mm512_loadu_si512(tb->group_field + 16)));
    /* decimal_pow5 in each lane (m 0: l 64, w 0, lo 0: refused) */
    __m512i l = _mm512_lzcnt_epi64(m);
    __m512i w = _mm512_sllv_epi64(m, l);
    __m512i wh = _mm512_srli_epi64(w, 32), th = _mm512_srli_epi64(hi5, 32);
    __m512i ll = _mm512_mul_epu32(w, hi5), lh = _mm512_mul_epu32(w, th);
    __m512i hl = _mm512_mul_epu32(wh, hi5), hh = _mm512_mul_epu32(wh, th);
    __m512i mid = _mm512_add_epi64(
        _mm512_srli_epi64(ll, 32),
        _mm512_add_epi64(_mm512_and_si512(lh, c->low32), _mm512_and_si512(hl, c->low32)));
    __m512i top =
        _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(mid, 32)),
                         _mm512_add_epi64(_mm512_srli_epi64(lh, 32), _mm512_srli_epi64(hl, 32)));
    /* the low half, (mid << 32) | (ll & low32), is 0; or the top half's low 9 bits
       are all ones */
    __mmask8 undecided = _mm512_testn_epi64_mask(_mm512_or_si512(mid, ll), c->low32) |
                         _mm512_testn_epi64_mask(_mm512_add_epi64(top, c->one), c->low9);
    __m512d d = _mm512_cvtepi64_pd(_mm512_or_si512(_mm512_srli_epi64(top, 1), c->one));
    __m512i bits = _mm512_add_epi64(
        _mm512_castpd_si512(d),
        _mm512_sub_epi64(_mm512_add_epi64(field, _mm512_slli_epi64(_mm512_srli_epi64(info, 7), 63)),
                         _mm512_slli_epi64(l, 52)));
    *out = bits;
    return undecided;
}

/*
** number_cells_avx2 with AVX-512 (F, BW, VL, DQ, CD, VBMI) and GFNI, for the usual cells
** of a column of floats ("[-]digits.digits", 1..19 digits): eight cells a turn
** (cell_turn), as four pairs (cell_pair_load, cell_checks, cell_pair_fours) and their
** eight m in one register, converted as decimal_pow5 does in eight lanes: the 64-bit
** products of 64-bit halves from 32-bit ones (the top half and whether the low one is
** 0), the conversion of (P >> 1) | 1 to a double, and the power of two, the sign and the
** shift of m added to its bits; the last cells (fewer than eight) in a turn of their own
** after the loop (the loop's turns then need no look at how many are left: fewer
** general registers, no spills), those missing not stored (a CSV lane's run of rows is
** often no multiple of eight). From the first turn
** with a cell of another shape (an integer, say), number_cells_avx2 reads the rest (its
** return is this one's); a cell whose value the product cannot decide (a tie?) ends it
** there, as there: json_number_cells reads it.
*/
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd,avx512vbmi,gfni,avx2,bmi,bmi2,"
                      "lzcnt"))) static size_t
number_cells_avx512(const char *buf, size_t base, const uint32_t *stops, size_t stride, size_t k,
                    size_t count, double *out)
{
    const unsigned char *b = (const unsigned char *)buf + base,
                        *lim = (const unsigned char *)buf + 33;
    CellConsts c;
    const CellWide *tb = &cell_wide;
    c.zero = _mm512_set1_epi8('0');
    c.k10 = _mm512_set1_epi16(1 << 8 | 10); /* bytes 10, 1 */
    c.k100 = _mm512_set1_epi32(100 | 1 << 16);
    c.k10000 = _mm512_set1_epi32(10000 | 1 << 16);
    c.k1e8 = _mm512_set1_epi64(100000000);
    c.e16lo = _mm512_set1_epi64((long long)(10000000000000000ULL & 0xFFFFFFFFULL));
    c.e16hi = _mm512_set1_epi64((long long)(10000000000000000ULL >> 32));
    c.b63 = _mm512_set1_epi8(63);
    c.bitrev = _mm512_set1_epi64((long long)0x8040201008040201ULL);
    c.classes = _mm512_loadu_si512(tb->classes);
    c.select = _mm512_loadu_si512(tb->select);
    c.gather = _mm512_loadu_si512(tb->gather);
    c.up = _mm512_loadu_si512(tb->up);
    c.dp = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    c.sz = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    /* in registers for the whole loop (GCC would make some again in each turn) */
    __asm__("" : "+v"(c.zero), "+v"(c.k10), "+v"(c.k100), "+v"(c.k10000), "+v"(c.k1e8));
    __asm__("" : "+v"(c.e16lo), "+v"(c.e16hi), "+v"(c.b63), "+v"(c.bitrev));
    __asm__("" : "+v"(c.classes), "+v"(c.select), "+v"(c.gather), "+v"(c.dp), "+v"(c.sz));
    __asm__("" : "+v"(c.up));
    c.d1 = _mm256_set1_epi32(1);
    c.d31 = _mm256_set1_epi32(31);
    c.d32 = _mm256_set1_epi32(32);
    c.dm2 = _mm256_set1_epi32(-2);
    c.dall = _mm256_set1_epi32(-1);
    c.d128 = _mm256_set1_epi32(128);
    c.d2048 = _mm256_set1_epi32(1 << 11);
    c.dmin = _mm256_set1_epi32(INT32_MIN);
    __asm__("" : "+v"(c.d1), "+v"(c.d31), "+v"(c.d32), "+v"(c.dm2), "+v"(c.dall));
    __asm__("" : "+v"(c.d128), "+v"(c.d2048), "+v"(c.dmin));
    /* the quadwords with the cells' eights (of pairs 0 and 1, then 2 and 3 from 8 on):
       cells 0, 1 (pair 0's), 2, 3 (pair 1's), ... of places 0..15, of 16..31 */
    c.firsts = _mm512_setr_epi64(0, 4, 1, 5, 8, 12, 9, 13);
    c.seconds = _mm512_setr_epi64(2, 6, 3, 7, 10, 14, 11, 15);
    c.low32 = _mm512_set1_epi64(0xFFFFFFFFLL);
    c.low9 = _mm512_set1_epi64(0x1FF);
    c.one = _mm512_set1_epi64(1);
    c.sixteen = _mm512_set1_epi64(16);
    __asm__("" : "+v"(c.firsts), "+v"(c.seconds), "+v"(c.low32), "+v"(c.low9), "+v"(c.one));
    __asm__("" : "+v"(c.sixteen));
    const uint32_t *st = stops + k * stride;
    /* the cells end one after the other: when the first ends 33 bytes or more into buf,
       so do the rest */
    if (k < count && b + st[1] < lim)
        return k;
    __m512i bits;
    int undecided;
    for (; count - k >= 8; k += 8, st += 8 * stride) {
        undecided = cell_turn(b, st, st + 2 * stride, st + 4 * stride, st + 6 * stride, stride,
                              stride, stride, stride, &c, tb, &bits);
        if (undecided != 0)
            goto stop;
        _mm512_storeu_si512(out + k, bits);
    }
    if (k < count) {
        /* the last (up to 7) cells: a lone one is paired with itself (stride 0) and the
           missing pairs repeat the first, their values not stored: no stop past count is
           read */
        size_t left = count - k, s0 = left >= 2 ? stride : 0;
        size_t s1 = left >= 4 ? stride : left == 3 ? 0 : s0;
        size_t s2 = left >= 6 ? stride : left == 5 ? 0 : s0;
        size_t s3 = left == 7 ? 0 : s0;
        const uint32_t *p1 = left >= 3 ? st + 2 * stride : st;
        const uint32_t *p2 = left >= 5 ? st + 4 * stride : st;
        const uint32_t *p3 = left >= 7 ? st + 6 * stride : st;
        __mmask8 take = (__mmask8)((1u << left) - 1);
        undecided = cell_turn(b, st, p1, p2, p3, s0, s1, s2, s3, &c, tb, &bits);
        if (undecided > 0)
            undecided &= take;
        if (undecided != 0)
            goto stop;
        _mm512_mask_storeu_epi64(out + k, take, bits);
        return count;
    }
    return k;
stop:
    if (undecided < 0) /* (a column of integers, say) */
        return number_cells_avx2(buf, base, stops, stride, k, count, out);
    /* json_number_cells reads the first one it cannot decide */
    unsigned first = (unsigned)__builtin_ctz((unsigned)undecided);
    _mm512_mask_storeu_epi64(out + k, (__mmask8)((1u << first) - 1), bits);
    return k + first;
}
#endif
#endif

size_t json_number_cells(const char *buf, size_t n, size_t base, const uint32_t *stops,
                         size_t stride, size_t count, double *out)
{
#if defined(__SSE2__) && defined(__x86_64__)
    if (simd_on()) { /* the lane, and the cells it leaves one by one */
        for (size_t k = 0;; k++) {
#ifdef JSON_WIDE_SIMD
            if (wide_cells > 1)
                k = number_cells_avx512(buf, base, stops, stride, k, count, out);
            else if (wide_cells)
                k = number_cells_avx2(buf, base, stops, stride, k, count, out);
            else
#endif
                k = number_cells_sse2(buf, base, stops, stride, k, count, out);
            if (k == count || !number_cell_other(buf, n, base, stops + k * stride, out + k, 1))
                return k;
        }
    }
#endif
    return number_cells_portable(buf, n, base, stops, stride, count, out);
}

/* The offset of the first non-digit at or after i. */
static size_t skip_digits(const char *s, size_t n, size_t i)
{
    while (i + 8 <= n) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        unsigned c = leading_digits(v);
        i += c;
        if (c < 8)
            return i;
    }
    while (i < n && is_digit(s[i]))
        i++;
    return i;
}

/* strtod on a copy (it needs a terminated string). */
static double slow_strtod(const char *s, size_t n)
{
    char small[512];
    if (n < sizeof small) {
        memcpy(small, s, n);
        small[n] = '\0';
        return strtod(small, NULL);
    }
    char *copy = (char *)malloc(n + 1);
    if (copy == NULL)
        return strtod("nan", NULL); /* cannot happen for valid JSON of sane size */
    memcpy(copy, s, n);
    copy[n] = '\0';
    double d = strtod(copy, NULL);
    free(copy);
    return d;
}

/*
** Exactly strtod's result, faster. The number is m * 10^e with m the (at most 19)
** significant digits. Two fast paths, each exact, in compose():
**
** 1. m <= 2^53 and |e| <= 22: m and 10^|e| are exact doubles, and one IEEE
**    multiplication or division rounds correctly (Clinger's fast path).
**
** 2. Otherwise m * 5^e * 2^e from a 128-bit truncation of 5^e (Eisel and Lemire's
**    method, see pow5_scale): the product's top 64 bits give the 53-bit significand and
**    the rounding bit; the truncations' error is bounded, and when it could change the
**    rounding (the bits that decide it are within the error of a boundary) or the
**    result is subnormal or overflows, the number goes to strtod.
**
** Everything else (more digits) goes to strtod. The unit tests compare this with
** strtod on millions of random, near-halfway and exactly halfway cases.
*/
double json_strtod(const char *s, size_t n)
{
    double d;
    return json_number_value(s, n, &d) ? d : slow_strtod(s, n);
}

/*
** 5^q for q in [POW5_MIN, POW5_MAX] as 128-bit significands (top bit set) truncated:
** 5^q = (hi 2^64 + lo + d) 2^exp2 with 0 <= d < 1. Built once at start-up from exact
** big-integer arithmetic: 5^q by repeated multiplication, 5^-k as floor(2^N / 5^k) by
** repeated division (floor(floor(x / a) / b) = floor(x / ab), so it is exact too).
** Below 1e-343 even 19 digits make a subnormal, above 1e308 an overflow: strtod's.
*/
#define POW5_MIN (-342)
#define POW5_MAX 308
#define BIG_LIMBS 48 /* 1536 bits: 2^POW5_DIV and 5^308 (716 bits) fit */
#define POW5_DIV 1400

typedef struct Pow5 {
    uint64_t hi, lo;
    int exp2;
} Pow5;
static Pow5 pow5_table[POW5_MAX - POW5_MIN + 1];

/* Bits pos .. pos + 31 of x (zeros outside it; pos may be negative). */
static uint32_t big_bits32(const uint32_t *x, int pos)
{
    int i = pos >= 0 ? pos / 32 : -((31 - pos) / 32); /* floor(pos / 32) */
    uint64_t lo = i >= 0 && i < BIG_LIMBS ? x[i] : 0;
    uint64_t hi = i + 1 >= 0 && i + 1 < BIG_LIMBS ? x[i + 1] : 0;
    return (uint32_t)(((hi << 32) | lo) >> (pos - 32 * i));
}

/* The top 128 bits of the big number x (little-endian 32-bit limbs) into t; t->exp2 is
   the weight of t's last bit, less scale. */
static void big_top128(const uint32_t *x, int scale, Pow5 *t)
{
    int top = BIG_LIMBS - 1;
    while (top > 0 && x[top] == 0)
        top--;
    int bits = 32 * top + (32 - __builtin_clz(x[top])); /* x's bit length */
    int low = bits - 128;                               /* the lowest of the 128 bits */
    t->hi = (uint64_t)big_bits32(x, low + 96) << 32 | big_bits32(x, low + 64);
    t->lo = (uint64_t)big_bits32(x, low + 32) << 32 | big_bits32(x, low);
    t->exp2 = bits - 128 - scale;
}

__attribute__((constructor)) static void pow5_init(void)
{
    uint32_t x[BIG_LIMBS];
    memset(x, 0, sizeof x);
    x[0] = 1;
    for (int q = 0; q <= POW5_MAX; q++) { /* x = 5^q */
        big_top128(x, 0, &pow5_table[q - POW5_MIN]);
        uint64_t carry = 0;
        for (int i = 0; i < BIG_LIMBS; i++) {
            uint64_t v = (uint64_t)x[i] * 5 + carry;
            x[i] = (uint32_t)v;
            carry = v >> 32;
        }
    }
    memset(x, 0, sizeof x);
    x[POW5_DIV / 32] = 1u << (POW5_DIV % 32);
    for (int k = 1; k <= -POW5_MIN; k++) { /* x = floor(2^POW5_DIV / 5^k) */
        uint64_t rem = 0;
        for (int i = BIG_LIMBS - 1; i >= 0; i--) {
            uint64_t v = (rem << 32) | x[i];
            x[i] = (uint32_t)(v / 5);
            rem = v % 5;
        }
        big_top128(x, POW5_DIV, &pow5_table[-k - POW5_MIN]);
    }
    for (int b = 0; b < 22; b++) {
        const Pow5 *t = &pow5_table[-b - POW5_MIN];
        decimal_pow5_table[b].hi = t->hi;
        decimal_pow5_table[b].field = (uint64_t)(int64_t)(129 + t->exp2 - b) << 52;
#ifdef JSON_WIDE_SIMD
        cell_wide.pow5[31 - b].hi = t->hi;
        cell_wide.pow5[31 - b].scale[0] = ldexp(1.0, 129 + t->exp2 - b);
        cell_wide.pow5[31 - b].scale[1] = -ldexp(1.0, 129 + t->exp2 - b);
        cell_wide.group_hi[b] = decimal_pow5_table[b].hi;
        cell_wide.group_field[b] = decimal_pow5_table[b].field;
#endif
    }
#ifdef JSON_WIDE_SIMD
    for (int a = 1; a < 16; a++) {
        const Pow5 *t = &pow5_table[-(19 - a) - POW5_MIN];
        lane_wide.pow5_by_a[a].hi = t->hi;
        lane_wide.pow5_by_a[a].scale = ldexp(1.0, 129 + t->exp2 - (19 - a));
    }
    lane_wide.pow5_20.hi = pow5_table[-20 - POW5_MIN].hi;
    lane_wide.pow5_20.scale = ldexp(1.0, 129 + pow5_table[-20 - POW5_MIN].exp2 - 20);
    for (int l = 0; l < 64; l++)
        lane_wide.pow2_neg[l] = ldexp(1.0, -l);
    memcpy(lane_wide.up, moved_up, sizeof moved_up);
    memcpy(lane_wide.keep, keep_digits, sizeof keep_digits);
    for (unsigned a = 1; a <= 15; a++)
        for (unsigned end = 1; end <= 20; end++)
            if (a + 1 != end)
                lane_wide.ends[a] |= 1u << end;
#endif
#ifdef JSON_WIDE_SIMD
    for (int l = 0; l < 64; l++)
        cell_wide.unscale[l] = ldexp(1.0, -l);
    for (int L = 0; L < 22; L++) {
        cell_wide.places[L] = cell_shapes[L].places;
        cell_wide.edges[L] = cell_shapes[L].edges;
        cell_wide.point[L] = cell_shapes[L].point;
        cell_wide.run[L][0] = cell_shapes[L].run[0];
        cell_wide.run[L][1] = cell_shapes[L].run[1];
    }
    memcpy(cell_wide.from, cell_from, sizeof cell_from);
    for (int d = '0'; d <= '9'; d++)
        cell_wide.classes[d] = 1;
    cell_wide.classes['.'] = 2;
    cell_wide.classes['-'] = 4;
    cell_wide.classes['0'] |= 8;
    for (int q = 0; q < 8; q++) /* each quadword's bytes 0..3 ask for class 0..3 */
        for (int f = 0; f < 4; f++)
            cell_wide.select[8 * q + f] = (unsigned char)(1u << f);
    /* class f of cell c (of four: pair c / 2's A or B), the quadwords of its 32 bytes
       in order, to bytes 16 f + 4 c .. 16 f + 4 c + 3 */
    for (int i = 0; i < 64; i++) /* each byte of a 32-byte half from the one before */
        cell_wide.up[i] = (unsigned char)(i % 32 == 0 ? i : i - 1);
    for (int f = 0; f < 4; f++)
        for (int c = 0; c < 4; c++)
            for (int i = 0; i < 4; i++)
                cell_wide.gather[16 * f + 4 * c + i] =
                    (unsigned char)(64 * (c / 2) + 8 * (4 * (c % 2) + i) + f);
    cell_wide.e16 = 10000000000000000ULL;
#endif
}

/*
** m * 10^q (m > 0) correctly rounded into *out, or 0 when this cannot be sure (then
** strtod decides). With m shifted left until its top bit is set (w) and T the
** truncated 5^q, the 192-bit product w T sits in [2^190, 2^192); hi, its top 64 bits,
** holds the 53-bit significand and the rounding bit in its top 54 bits, and what is
** below them decides between rounding down and up. The exact product exceeds the
** computed one by less than one unit of hi using T's top half only, by less than two
** units of lo using all of T: the result is taken only when that cannot carry into
** the significand, and an exactly halfway computed value (tie, or just above one?)
** with an even significand is left to strtod.
*/
static inline __attribute__((always_inline)) int pow5_scale(uint64_t m, long q, int neg,
                                                            double *out)
{
    if (q < POW5_MIN || q > POW5_MAX)
        return 0;
    const Pow5 *t = &pow5_table[q - POW5_MIN];
    int l = __builtin_clzll(m);
    uint64_t w = m << l;
    unsigned __int128 p = (unsigned __int128)w * t->hi;
    uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
    if ((hi & 0x1FF) == 0x1FF) { /* one more unit of hi could carry: use T's low half */
        unsigned __int128 p2 = (unsigned __int128)w * t->lo;
        uint64_t add = (uint64_t)(p2 >> 64);
        lo += add;
        if (lo < add) {
            if (hi == UINT64_MAX)
                return 0;
            hi++;
        }
        if ((hi & 0x1FF) == 0x1FF && lo >= UINT64_MAX - 1)
            return 0;
    }
    int shift = (int)(hi >> 63) + 9;
    uint64_t sig = hi >> shift; /* 54 bits: the significand and the rounding bit */
    if (lo == 0 && (hi & ((UINT64_C(1) << shift) - 1)) == 0 && (sig & 3) == 1)
        return 0; /* halfway as computed: a tie goes to even, anything above goes up */
    sig = (sig + (sig & 1)) >> 1;
    /* the value is sig 2^e2 (sig may have reached 2^53: then 2^52 2^(e2 + 1)) */
    long e2 = (long)shift + 1 + 128 - l + t->exp2 + q;
    unsigned carry = (unsigned)(sig >> 53); /* no branch: it goes either way at random */
    sig >>= carry;
    e2 += carry;
    long biased = e2 + 52 + 1023;
    if (biased < 1 || biased > 2046)
        return 0;
    uint64_t bits =
        ((uint64_t)biased << 52) | (sig & ((UINT64_C(1) << 52) - 1)) | ((uint64_t)(neg != 0) << 63);
    memcpy(out, &bits, sizeof bits);
    return 1;
}

/*
** m 10^-b (negated if neg) for 0 < m < 10^19 and b <= 21 (t: b's row of
** decimal_pow5_table), as pow5_scale computes it, in
** fewer steps: with w = m 2^l (top bit set) and 5^-b = (T 2^64 + lo) 2^e, m 10^-b is
** about P 2^(128 - l + e - b), P the top 64 bits of w T. Rounding P to 53 bits is the
** conversion of P / 2 to a double, with its last bit set as a sticky bit: the exact
** value is above P 2^64 (lo, the low half of the product, is not 0 here), so no tie
** can come out; the conversion also carries into the exponent. The power of two is
** then added to the exponent field (table: 129 + e - b there). Returns 0 when the low
** half of 5^-b could carry into the bits that decide (P's low 9 bits all ones) or the
** product's low half is 0 (a tie may be exact): then pow5_scale decides.
*/
static inline __attribute__((always_inline)) int decimal_pow5_row(uint64_t m, const DecimalPow5 *t,
                                                                  int neg, double *out)
{
    int l = __builtin_clzll(m);
    unsigned __int128 p = (unsigned __int128)(m << l) * t->hi;
    uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
    if (((hi + 1) & 0x1FF) == 0 || lo == 0)
        return 0;
    double d = (double)(int64_t)((hi >> 1) | 1);
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    bits += t->field - ((uint64_t)l << 52) + ((uint64_t)(neg != 0) << 63);
    memcpy(out, &bits, sizeof bits);
    return 1;
}

/* decimal_pow5_row for 10^-b (b <= 21) */
static inline __attribute__((always_inline)) int decimal_pow5(uint64_t m, unsigned b, int neg,
                                                              double *out)
{
    return decimal_pow5_row(m, &decimal_pow5_table[b], neg, out);
}

/*
** m * 10^-b (negated if neg; b <= 21), as compose gives it, for read_decimal. No
** Clinger's path for m <= 2^53 here: fewer instructions, but which way a 16- or
** 17-digit number goes is a coin toss for the branch predictor (half the numbers of
** vllm_itls and requests_floats mispredicted; 27% more user CPU).
*/
static inline __attribute__((always_inline)) double compose_decimal(uint64_t m, unsigned b, int neg,
                                                                    const char *s, size_t n)
{
    if (m == 0)
        return neg ? -0.0 : 0.0;
    double d;
    if (decimal_pow5(m, b, neg, &d))
        return d;
    return compose(m, -(long)b, neg, s, n);
}

/* m * 10^e (negated if neg), exactly as strtod reads s[0..n), which it came from. */
static double compose(uint64_t m, long e, int neg, const char *s, size_t n)
{
    if (m == 0)
        return neg ? -0.0 : 0.0;
    if (m <= (UINT64_C(1) << 53) && e >= -22 && e <= 22) {
        double d = (double)m;
        d = e >= 0 ? d * pow10_f64[e] : d / pow10_f64[-e];
        return neg ? -d : d;
    }
    double d;
    if (pow5_scale(m, e, neg, &d))
        return d;
    return slow_strtod(s, n);
}

/* ---- duplicate keys ---------------------------------------------------------- */

typedef struct JsonKeyEntry {
    uint64_t hash;     /* of the name */
    size_t off, len;   /* the name in kbytes */
    uint64_t at, line; /* the absolute offset of its opening quote, and its line */
} JsonKeyEntry;

/* A key of a layout: its name in the layout's bytes, its hash, and where the open
   object's key that matched it is (for the message about a later duplicate). */
typedef struct JsonLayoutKey {
    size_t off, len;
    uint64_t hash;
    uint64_t at, line;
} JsonLayoutKey;

/*
** The keys, in order, of an object at a depth that had to be checked key by key: records
** repeat their keys in the same order, and while an object's keys are those of a layout
** so far, they are all different (the layout's are), with no hashing and nothing
** remembered but where they are. At the first key that differs, the keys so far become
** entries as key_check makes them, and the object is checked as usual. A depth keeps a
** few layouts, told apart by their first key (records hold several kinds of objects at
** one depth: guidellm's "info", "input_metrics", "output_metrics").
*/
typedef struct JsonKeyLayout {
    char *bytes;
    size_t blen, bcap;
    JsonLayoutKey *keys;
    size_t n, cap;
} JsonKeyLayout;

/* A layout is kept of objects with up to this many keys (records, not maps). */
#define LAYOUT_MAX 256
#define LAYOUTS 4 /* per depth */
#define KEYS_DIVERGED SIZE_MAX

/* An open object's keys: its first entry, a filter of its names' hashes (a bit each),
   and whether its entries are in the hash table too; how many keys matched the layout it
   follows (KEYS_DIVERGED once one did not: then its keys are entries). */
typedef struct JsonKeyObject {
    size_t base;
    uint64_t filter;
    int big;
    size_t matched;
    int follows;           /* its layout, when matched > 0 */
    int victim;            /* the layout a new one replaces next */
    int closed;            /* objects closed at this depth (the first makes no layout: a small
                              document's objects are mostly one of a kind) */
    JsonKeyLayout *layout; /* LAYOUTS of them, or NULL: kept from one object to the next */
} JsonKeyObject;

/* An object with more keys than this goes into the hash table; below, its own entries
   are looked through when the filter says a name may be there already. */
#define KEYS_SMALL 24

/* Names of up to 16 bytes (most) take two loads that may overlap and two independent
   multiplications; longer ones a chain over their words. */
static inline uint64_t key_hash(const char *s, size_t n)
{
    uint64_t a = 0, b = n;
    if (n > 16) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            uint64_t v;
            memcpy(&v, s + i, 8);
            a = (a ^ v) * 0xBF58476D1CE4E5B9ULL;
            a ^= a >> 31;
        }
        uint64_t v;
        memcpy(&v, s + n - 8, 8);
        b ^= v;
    } else if (n >= 8) {
        memcpy(&a, s, 8);
        uint64_t v;
        memcpy(&v, s + n - 8, 8);
        b ^= v;
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        a = (uint64_t)x | (uint64_t)y << 32;
    } else if (n > 0) {
        const unsigned char *u = (const unsigned char *)s;
        a = (uint64_t)u[0] | (uint64_t)u[n / 2] << 8 | (uint64_t)u[n - 1] << 16;
    }
    uint64_t h = (a ^ 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL ^
                 (b ^ 0xC2B2AE3D27D4EB4FULL) * 0x94D049BB133111EBULL;
    return h ^ (h >> 32);
}

/* The table's home slot of a name in the object whose entries start at obj. */
static size_t key_home(const JsonParser *p, uint64_t hash, size_t obj)
{
    return (size_t)(hash ^ (obj * 0x9E3779B97F4A7C15ULL)) & (p->nkslot - 1);
}

/* Puts entry e of the object whose entries start at obj into the table. */
static void key_place(JsonParser *p, size_t e, size_t obj)
{
    size_t mask = p->nkslot - 1, i = key_home(p, p->kent[e].hash, obj);
    while (p->kslot[i] != 0)
        i = (i + 1) & mask;
    p->kslot[i] = e + 1;
}

/* Room in the table for more entries (at most half full). 0, or -1 out of memory. */
static int key_table_reserve(JsonParser *p, size_t more)
{
    if ((p->nintable + more) * 2 <= p->nkslot)
        return 0;
    size_t n = p->nkslot ? p->nkslot : 256;
    while ((p->nintable + more) * 2 > n)
        n *= 2;
    size_t *t = (size_t *)calloc(n, sizeof *t);
    if (t == NULL)
        return -1;
    free(p->kslot);
    p->kslot = t;
    p->nkslot = n;
    /* in order, so that removal (last in, first out) stays exact */
    for (int d = 0; d < p->depth; d++) {
        if (p->stack[d] != '{' || !p->kobj[d].big)
            continue;
        size_t end = p->nkent;
        for (int k = d + 1; k < p->depth; k++)
            if (p->stack[k] == '{') {
                end = p->kobj[k].base;
                break;
            }
        for (size_t e = p->kobj[d].base; e < end; e++)
            key_place(p, e, p->kobj[d].base);
    }
    return 0;
}

/* Takes the entries of the object (from obj on) out of the table, last first: each is
   where its probe sequence first finds it. */
static void key_unplace(JsonParser *p, size_t obj)
{
    size_t mask = p->nkslot - 1;
    for (size_t e = p->nkent; e-- > obj;) {
        size_t i = key_home(p, p->kent[e].hash, obj);
        while (p->kslot[i] != e + 1)
            i = (i + 1) & mask;
        p->kslot[i] = 0;
    }
    p->nintable -= p->nkent - obj;
}

/* Room for one more entry and its name. 0, or -1 out of memory. */
static int key_reserve(JsonParser *p, size_t namelen)
{
    if (p->nkent == p->kentcap) {
        size_t cap = p->kentcap ? p->kentcap * 2 : 64;
        JsonKeyEntry *k = (JsonKeyEntry *)realloc(p->kent, cap * sizeof *k);
        if (k == NULL)
            return -1;
        p->kent = k;
        p->kentcap = cap;
    }
    if (p->kbytes == NULL || p->kbcap - p->kblen < namelen) {
        size_t cap = p->kbcap ? p->kbcap : 1024;
        while (cap - p->kblen < namelen)
            cap *= 2;
        char *b = (char *)realloc(p->kbytes, cap);
        if (b == NULL)
            return -1;
        p->kbytes = b;
        p->kbcap = cap;
    }
    return 0;
}

static __attribute__((noinline, cold)) JsonTok
key_duplicate(JsonParser *p, size_t at, const char *name, size_t n, const JsonKeyEntry *e)
{
    char shown[64]; /* at most 40 bytes of the name, then "..." */
    size_t o = 0, k = 0;
    for (; k < n && o < 40; k++) {
        unsigned char c = (unsigned char)name[k];
        if ((c >= 0x20 && c < 0x7F && c != '"' && c != '\\') || c >= 0x80)
            shown[o++] = (char)c;
        else
            o += (size_t)snprintf(shown + o, sizeof shown - o, "\\u%04X", c);
    }
    if (k < n) {
        memcpy(shown + o, "...", 3);
        o += 3;
    }
    shown[o] = '\0';
    return fail(p, at, "duplicate key \"%s\" in an object (first at line %llu, byte %llu)", shown,
                (unsigned long long)e->line, (unsigned long long)e->at);
}

/* Whether a[0..n) and b[0..n) are the same bytes: names are short, and a call to
   memcmp costs more than comparing them in words. */
static inline int same_name(const char *a, const char *b, size_t n)
{
    uint64_t x, y;
    if (n >= 8) { /* 8 bytes at a time, the last 8 overlapping */
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y)
                return 0;
        }
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4 && n < 8) {
        uint32_t x4, y4, u4, v4;
        memcpy(&x4, a, 4);
        memcpy(&y4, b, 4);
        memcpy(&u4, a + n - 4, 4);
        memcpy(&v4, b + n - 4, 4);
        return ((x4 ^ y4) | (u4 ^ v4)) == 0;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* Adds the name (its hash h, its quote at the absolute offset abs_at on line) to the
   entries of the object at depth d, known not to hold it yet. JSON_KEY, or an error at
   offset at when out of memory. */
static inline __attribute__((always_inline)) JsonTok key_insert(JsonParser *p, int d, size_t at,
                                                                const char *name, size_t n,
                                                                uint64_t h, uint64_t abs_at,
                                                                uint64_t line)
{
    size_t obj = p->kobj[d].base;
    p->kobj[d].filter |= 1ULL << (h >> 58);
    /* into the table too when the object is big (all its entries, the first time) */
    size_t add = p->kobj[d].big ? 1 : p->nkent + 1 - obj > KEYS_SMALL ? p->nkent + 1 - obj : 0;
    if (add > 0 && key_table_reserve(p, add) != 0)
        return fail(p, at, "out of memory for the keys of an object");
    JsonKeyEntry *e = &p->kent[p->nkent];
    e->hash = h;
    e->off = p->kblen;
    e->len = n;
    e->at = abs_at;
    e->line = line;
    memcpy(p->kbytes + p->kblen, name, n);
    p->kblen += n;
    p->nkent++;
    if (add > 0) {
        for (size_t k = p->nkent - add; k < p->nkent; k++)
            key_place(p, k, obj);
        p->nintable += add;
        p->kobj[d].big = 1;
    }
    return JSON_KEY;
}

/* The object at depth d leaves its layout at its key-th key: the keys before become
   entries. JSON_KEY, or an error at offset at when out of memory. */
static __attribute__((noinline)) JsonTok key_diverge(JsonParser *p, int d, size_t at)
{
    JsonKeyObject *o = &p->kobj[d];
    size_t matched = o->matched;
    o->matched = KEYS_DIVERGED;
    if (matched == 0)
        return JSON_KEY; /* (no layout followed yet) */
    const JsonKeyLayout *l = &o->layout[o->follows];
    for (size_t k = 0; k < matched; k++) {
        const JsonLayoutKey *lk = &l->keys[k];
        if (key_reserve(p, lk->len) != 0)
            return fail(p, at, "out of memory for the keys of an object");
        if (key_insert(p, d, at, l->bytes + lk->off, lk->len, lk->hash, lk->at, lk->line) !=
            JSON_KEY)
            return JSON_ERROR;
    }
    return JSON_KEY;
}

static void key_layouts_free(JsonParser *p)
{
    for (int d = 0; d < p->klayouts; d++) {
        JsonKeyLayout *l = p->kobj[d].layout;
        for (int k = 0; l != NULL && k < LAYOUTS; k++) {
            free(l[k].bytes);
            free(l[k].keys);
        }
        free(l);
    }
}

/* The layout at depth d whose first key is name[0..n), or -1. */
static inline int key_layout_of(const JsonKeyObject *o, const char *name, size_t n)
{
    for (int k = 0; o->layout != NULL && k < LAYOUTS; k++) {
        const JsonKeyLayout *l = &o->layout[k];
        if (l->n > 0 && l->keys[0].len == n && same_name(l->bytes + l->keys[0].off, name, n))
            return k;
    }
    return -1;
}

/* The object at depth d, which left its layout, closes: its keys become a layout (in
   place of the one with the same first key, else of the oldest). */
static __attribute__((noinline)) void key_relayout(JsonParser *p, int d)
{
    JsonKeyObject *o = &p->kobj[d];
    size_t base = o->base, n = p->nkent - base;
    if (n == 0 || n > LAYOUT_MAX || o->closed++ == 0)
        return;
    if (o->layout == NULL) {
        o->layout = (JsonKeyLayout *)calloc(LAYOUTS, sizeof *o->layout);
        if (o->layout == NULL)
            return;
        if (p->klayouts < d + 1)
            p->klayouts = d + 1;
    }
    int k = key_layout_of(o, p->kbytes + p->kent[base].off, p->kent[base].len);
    if (k < 0) {
        k = o->victim;
        o->victim = (k + 1) % LAYOUTS;
    }
    JsonKeyLayout *l = &o->layout[k];
    l->n = 0; /* (empty when memory is short: the next object checks every key) */
    size_t bytes = p->kblen - p->kent[base].off;
    if (l->bcap < bytes || l->bytes == NULL) { /* (never NULL: names may all be "") */
        char *b = (char *)realloc(l->bytes, bytes ? bytes : 1);
        if (b == NULL)
            return;
        l->bytes = b;
        l->bcap = bytes ? bytes : 1;
    }
    if (l->cap < n) {
        JsonLayoutKey *keys = (JsonLayoutKey *)realloc(l->keys, n * sizeof *keys);
        if (keys == NULL)
            return;
        l->keys = keys;
        l->cap = n;
    }
    memcpy(l->bytes, p->kbytes + p->kent[base].off, bytes);
    for (size_t i = 0; i < n; i++) {
        const JsonKeyEntry *e = &p->kent[base + i];
        l->keys[i].off = e->off - p->kent[base].off;
        l->keys[i].len = e->len;
        l->keys[i].hash = e->hash;
    }
    l->blen = bytes;
    l->n = n;
}

/* key_check for a key that does not follow a layout: through the entries. */
static __attribute__((noinline)) JsonTok key_check_entries(JsonParser *p, size_t at,
                                                           const char *name, size_t n)
{
    int d = p->depth - 1;
    JsonKeyObject *o = &p->kobj[d];
    if (o->matched != KEYS_DIVERGED && key_diverge(p, d, at) != JSON_KEY)
        return JSON_ERROR;
    if (key_reserve(p, n) != 0)
        return fail(p, at, "out of memory for the keys of an object");
    size_t obj = o->base;
    uint64_t h = key_hash(name, n);
    if (o->big) {
        size_t mask = p->nkslot - 1;
        for (size_t i = key_home(p, h, obj); p->kslot[i] != 0; i = (i + 1) & mask) {
            size_t k = p->kslot[i] - 1;
            const JsonKeyEntry *e = &p->kent[k];
            if (k >= obj && e->hash == h && e->len == n && same_name(p->kbytes + e->off, name, n))
                return key_duplicate(p, at, name, n, e);
        }
    } else if (o->filter & (1ULL << (h >> 58))) { /* maybe there: look */
        for (size_t k = obj; k < p->nkent; k++) {
            const JsonKeyEntry *e = &p->kent[k];
            if (e->hash == h && e->len == n && same_name(p->kbytes + e->off, name, n))
                return key_duplicate(p, at, name, n, e);
        }
    }
    return key_insert(p, d, at, name, n, h, p->base + at, p->line);
}

/*
** The key just read (raw/rawlen, escaped; its quote at offset at) in the object at the
** top of the stack: remembered, or an error when the object already has it. Inline for
** the common case, a key following its object's layout.
*/
static inline __attribute__((always_inline)) JsonTok key_check(JsonParser *p, size_t at)
{
    size_t n = p->rawlen;
    const char *name = p->escaped ? json_str(p, &n) : p->raw;
    if (name == NULL)
        return fail(p, at, "out of memory for the keys of an object");
    JsonKeyObject *o = &p->kobj[p->depth - 1];
    size_t k = o->matched;
    JsonLayoutKey *lk = NULL;
    if (k == 0) { /* the first key: the layout that starts with it, if any */
        int l = key_layout_of(o, name, n);
        if (l >= 0) {
            o->follows = l;
            lk = &o->layout[l].keys[0];
        }
    } else if (k != KEYS_DIVERGED && k < o->layout[o->follows].n) {
        JsonKeyLayout *l = &o->layout[o->follows];
        lk = &l->keys[k];
        if (lk->len != n || !same_name(l->bytes + lk->off, name, n))
            lk = NULL;
    }
    if (lk == NULL)
        return key_check_entries(p, at, name, n);
    /* the layout's next key: none before it is this one */
    lk->at = p->base + at;
    lk->line = p->line;
    o->matched = k + 1;
    return JSON_KEY;
}

/* The object at depth p->depth (just closed) forgets its keys. */
static inline void key_pop(JsonParser *p)
{
    int d = p->depth;
    size_t base = p->kobj[d].base;
    if (p->kobj[d].matched == KEYS_DIVERGED)
        key_relayout(p, d);
    if (p->kobj[d].big)
        key_unplace(p, base);
    if (p->nkent > base) {
        p->kblen = p->kent[base].off;
        p->nkent = base;
    }
}

static JsonTok parse_literal(JsonParser *p, const char *word, size_t wlen, JsonTok tok)
{
    size_t start = p->pos, avail = p->len - start;
    uint32_t have, want;
    memcpy(&want, word + wlen - 4, 4);
    if (avail >= wlen && (memcpy(&have, p->buf + start + wlen - 4, 4), have == want) &&
        p->buf[start] == word[0]) { /* the common case: the whole word (4 or 5 bytes) */
        p->pos = start + wlen;
        return tok;
    }
    size_t k = avail < wlen ? avail : wlen;
    if (memcmp(p->buf + start, word, k) != 0 || (k < wlen && p->final)) {
        size_t j = 0;
        while (j < k && p->buf[start + j] == word[j])
            j++;
        if (j == avail)
            return fail(p, p->len, "unexpected end of input in a literal, expected '%s'", word);
        return fail(p, start, "invalid literal, expected '%s'", word);
    }
    if (k < wlen)
        return cut(p, start, "in a literal");
    p->pos = start + wlen;
    return tok;
}

/* After a complete value: the container expects ',' or its end, the top level is done. */
static JsonTok value_done(JsonParser *p, JsonTok t)
{
    p->state = p->depth == 0 ? ST_DONE : ST_NEXT;
    return t;
}

/* Room for the keys of an object at p->depth. 0, or -1 out of memory. */
static __attribute__((noinline)) int key_objects_grow(JsonParser *p)
{
    int cap = p->kobjcap ? p->kobjcap * 2 : 16;
    while (cap <= p->depth) /* the first object may open deep in arrays */
        cap *= 2;
    if (cap > JSON_MAX_DEPTH)
        cap = JSON_MAX_DEPTH;
    JsonKeyObject *o = (JsonKeyObject *)realloc(p->kobj, (size_t)cap * sizeof *o);
    if (o == NULL)
        return -1;
    memset(o + p->kobjcap, 0, (size_t)(cap - p->kobjcap) * sizeof *o); /* empty layouts */
    p->kobj = o;
    p->kobjcap = cap;
    return 0;
}

static JsonTok open_container(JsonParser *p, char kind)
{
    if (p->depth >= JSON_MAX_DEPTH)
        return fail(p, p->pos, "nesting deeper than %d levels", JSON_MAX_DEPTH);
    if (kind == '{' && p->depth >= p->kobjcap && key_objects_grow(p) != 0)
        return fail(p, p->pos, "out of memory for the keys of an object");
    if (kind == '{') {
        p->kobj[p->depth].base = p->nkent;
        p->kobj[p->depth].filter = 0;
        p->kobj[p->depth].big = 0;
        p->kobj[p->depth].matched = 0;
    }
    p->stack[p->depth++] = (unsigned char)kind;
    p->pos++;
    p->state = kind == '{' ? ST_FIRST_KEY : ST_FIRST_VALUE;
    return kind == '{' ? JSON_OBJ_BEGIN : JSON_ARR_BEGIN;
}

static JsonTok close_container(JsonParser *p)
{
    char kind = (char)p->stack[--p->depth];
    if (kind == '{')
        key_pop(p);
    p->pos++;
    return value_done(p, kind == '{' ? JSON_OBJ_END : JSON_ARR_END);
}

static JsonTok parse_value(JsonParser *p, char c)
{
    JsonTok t;
    switch (c) {
    case '{':
    case '[':
        return open_container(p, c);
    case '"':
        t = parse_string(p);
        return t == JSON_STRING ? value_done(p, t) : t;
    case 't':
        t = parse_literal(p, "true", 4, JSON_TRUE);
        break;
    case 'f':
        t = parse_literal(p, "false", 5, JSON_FALSE);
        break;
    case 'n':
        t = parse_literal(p, "null", 4, JSON_NULL);
        break;
    default:
        if (c == '-' || is_digit(c))
            t = parse_number(p);
        else
            return unexpected(p, p->pos);
    }
    return t > JSON_END ? value_done(p, t) : t;
}

/* parse_value inline for the values most members hold, strings and numbers: no call,
   nor parse_number's registers saved, per value (2% of the instructions of a scan of
   guidellm's or inference-perf's files, which are mostly members passed over). */
static inline __attribute__((always_inline)) JsonTok value_at(JsonParser *p, char c)
{
    JsonTok t;
    if (c == '"') {
        t = parse_string(p);
        return t == JSON_STRING ? value_done(p, t) : t;
    }
    if (is_digit(c) || c == '-') {
        t = parse_number(p);
        return t > JSON_END ? value_done(p, t) : t;
    }
    return parse_value(p, c);
}

/* json_next's body, inline in json_next and json_skip. */
static inline __attribute__((always_inline)) JsonTok next_core(JsonParser *p)
{
    for (;;) {
        /* whitespace, counting lines */
        const char *b = p->buf;
        size_t i = skip_ws(p, p->pos), n = p->len;
        p->pos = i;
        if (i >= n) {
            if (!p->final)
                return JSON_MORE;
            if (p->state == ST_DONE)
                return JSON_END;
            if (p->state == ST_VALUE && p->depth == 0 && p->multi)
                return JSON_END; /* JSON Lines: no further document */
            return fail(p, n, "unexpected end of input, %s", json_expected(p));
        }
        char c = b[i];
        p->tok_off = p->base + i;
        switch (p->state) {
        case ST_DONE:
            if (!p->multi)
                return unexpected(p, i);
            p->state = ST_VALUE;
            continue;
        case ST_NEXT:
            if (c == ',') {
                int in_object = p->stack[p->depth - 1] == '{';
                p->state = in_object ? ST_KEY : ST_VALUE;
                /* what follows the comma, without going round the loop again */
                i = skip_ws(p, i + 1);
                p->pos = i;
                if (i >= n)
                    continue;
                c = b[i];
                p->tok_off = p->base + i;
                if (in_object)
                    goto key;
                return value_at(p, c);
            }
            if (c == (p->stack[p->depth - 1] == '{' ? '}' : ']'))
                return close_container(p);
            return unexpected(p, i);
        case ST_COLON:
            if (c != ':')
                return unexpected(p, i);
            p->pos++;
            p->state = ST_VALUE;
            continue;
        case ST_FIRST_KEY:
            if (c == '}')
                return close_container(p);
            /* fall through */
        case ST_KEY:
        key : {
            if (c != '"')
                return unexpected(p, i);
            JsonTok t = parse_string(p);
            if (t != JSON_STRING)
                return t;
            if (key_check(p, i) != JSON_KEY)
                return JSON_ERROR;
            /* the colon, when it comes right after the key (a missing one is reported
               by the next call, as usual) */
            if (p->pos < n && b[p->pos] == ':') {
                p->pos++;
                p->state = ST_VALUE;
            } else {
                p->state = ST_COLON;
            }
            return JSON_KEY;
        }
        case ST_FIRST_VALUE:
            if (c == ']')
                return close_container(p);
            /* fall through */
        default:
            return value_at(p, c);
        }
    }
}

JsonTok json_next(JsonParser *p)
{
    return next_core(p);
}

/*
** The end of the JSON number at s[i..n) (validated, not converted), or 0 when the text
** there is no number: the grammar parse_number enforces, digits 8 at a time.
*/
static inline size_t number_end(const char *s, size_t i, size_t n)
{
    size_t start = i;
    if (s[i] == '-' && ++i >= n)
        return 0;
    int pointed;
    size_t end = number_look(s, i, n, &pointed);
    if (end != 0)
        return end;
    if (s[i] == '0') {
        if (++i < n && is_digit(s[i]))
            return 0; /* a leading zero */
    } else if (is_digit(s[i])) {
        i = skip_digits(s, n, i + 1);
    } else {
        return 0;
    }
    if (i < n && s[i] == '.') {
        size_t f = ++i;
        i = skip_digits(s, n, i);
        if (i == f)
            return 0;
    }
    if (i < n && (s[i] | 0x20) == 'e') {
        int eneg = 0;
        if (++i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        size_t d = i;
        i = skip_digits(s, n, i);
        if (i == d || (!eneg && i - d > 2))
            return 0; /* (an exponent of 100 or more: next_core reads it, see below) */
    }
    /* one that could be beyond a double is left to next_core, which says so when it is
       passed over (lazy): one of more than 308 - 99 bytes, or with an exponent of 100 or
       more (a number below 10^k with k digits before its point is below 10^308 when
       k + its exponent <= 308) */
    return i - start > 308 - 99 ? 0 : i;
}

/*
** json_skip's lane for arrays of numbers: right after a NUMBER element, passes over the
** ", number" that follow (validated, not converted) without a trip through next_core
** for each. It stops before anything else (the array's end, another kind of value, a
** bad or cut number, the window's end) with the parser where next_core goes on from, so
** errors are found and reported there, as without the lane.
*/
static __attribute__((noinline)) void skip_numbers(JsonParser *p)
{
    const char *b = p->buf;
    size_t n = p->len;
#ifdef JSON_WIDE_SIMD
    size_t lane_end = n > 2 + DECIMAL_AHEAD ? n - (1 + DECIMAL_AHEAD) : 0;
    size_t block_end = n > 64 ? n - 64 : 0; /* skip_blocks_avx2 reads 64 bytes */
#endif
    for (;;) {
#ifdef JSON_WIDE_SIMD
        if (wide_numbers && p->pos < lane_end && b[p->pos] == ',') {
            size_t last = SIZE_MAX, pos = p->pos;
            if (pos < block_end) /* long runs 64 bytes apart, the rest as before */
                pos = wide_skip ? skip_run_avx512(b, pos, block_end, &last)
                                : skip_run_avx2(b, pos, block_end, &last);
            if (pos < block_end)
                pos = wide_skip ? skip_blocks_avx512(b, pos, block_end, &last)
                                : skip_blocks_avx2(b, pos, block_end, &last);
            /* what a block refused, number by number for a while (an array of numbers
               with exponents, say, would have every block refused); then blocks again */
            size_t upto = pos < block_end ? pos + 512 : lane_end;
            pos = skip_usual_avx2(b, pos, upto < lane_end ? upto : lane_end, &last);
            if (last != SIZE_MAX) {
                p->tok_off = p->base + last;
                p->pos = pos;
            }
        }
#endif
        size_t i = skip_ws(p, p->pos);
        if (i >= n || b[i] != ',') {
            p->pos = i;
            return;
        }
        i = skip_ws(p, i + 1);
        size_t end = i < n ? number_end(b, i, n) : 0;
        if (end == 0 || (end >= n && !p->final)) {
            p->pos = i; /* after the comma: next_core reads what is there */
            p->state = ST_VALUE;
            return;
        }
        p->tok_off = p->base + i;
        p->pos = end;
    }
}

JsonTok json_skip(JsonParser *p, int depth)
{
    for (;;) {
        JsonTok t = next_core(p);
        if (t == JSON_NUMBER && p->depth > 0 && p->stack[p->depth - 1] == '[')
            skip_numbers(p);
        if (t <= JSON_END || ((t == JSON_OBJ_END || t == JSON_ARR_END) && p->depth < depth))
            return t;
    }
}

JsonTok json_skip_members(JsonParser *p, int depth, const JsonKeys *keys)
{
    p->lazy = 1;
    for (;;) {
        if (p->depth > depth) { /* in a member's value: through it, as json_skip goes */
            JsonTok t = json_skip(p, depth + 1);
            if (t <= JSON_END)
                return t; /* more input, or an error */
            continue;
        }
        JsonTok t = next_core(p);
        if (t <= JSON_END || p->depth < depth)
            return t;
        if (t == JSON_KEY && p->depth == depth) {
            if (p->escaped)
                return t;
            if ((keys->lens >> (p->rawlen & 63) & 1) == 0)
                continue; /* no name of its length: passed over without a compare */
            for (int k = 0; k < keys->n; k++)
                if (keys->len[k] == p->rawlen && memcmp(keys->key[k], p->raw, p->rawlen) == 0)
                    return t;
        }
    }
}
