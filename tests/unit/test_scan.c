/*
** test_scan.c — the scanner's window handling: every document below, scanned through
** reads of 1 to 7 bytes (a refill at every possible cut), and from a file (read with
** read(), and mapped), must end exactly as it does scanned whole; plus path parsing.
** The whole-input results themselves are checked against numpy by
** tests/lua/test_scan.lua.
*/
#include <math.h>
#include <signal.h>
#include <unistd.h>

#include "../fuzz/differential.h"
#include "testhelp.h"
#include "scanhelp.h"

static const char *const JSON_DOCS[] = {
    "[{\"a\": [1, 2.5, 4], \"b\": [true, null], \"c\": [\"x\\u00e9\", 3]}, 7, -2e-3]",
    "{\"a\": [1e300, 0.1, 0.2], \"k\": [{\"c\": 5}, {\"c\": \"s\"}]}",
    "[{\"b\": 1}, {\"b\": 2}, {\"b\": [3]}]",
    "[{\"a\": [\"long string with \\\"escapes\\\" and \\\\ more\", 1, 2]}, {\"c\": [[1], {}]}]",
    "  [ 1 , 2 , { \"a\" : [ 10 , 20 , 30 ] , \"c\" : [ 1.5 , 2.5 ] } ]  ",
    "[1, 2, {\"a\": [1, 2,]}]",     /* malformed: trailing comma */
    "[1, 2, {\"a\": [1, 2]",        /* truncated */
    "[\"\xe2\x82\xac\", \"\xff\"]", /* invalid UTF-8 */
    "[12345678901234567890123, 0.000000000000000000000000001234, 9007199254740993]",
    /* arrays of numbers (the fast lane) and what makes it stop */
    "[1, 2, 3, 4.5, -0, -0.0, 1e400, -1e400, 12345678901234567890123, 0.1e-5, 7, 1E+2]",
    "[\n  1,\n  2,\n\t3 ,\r\n 4\n]",
    "{\"a\": [[1, 2, 4, 8], [0.5, 0.25], [3], [], [1e308, -1e308]], \"b\": [9, 8]}",
    "[1, 2, \"s\", 3, null, 4, [5, 6], {\"c\": 7}, 8]",
    "{\"b\": [1, 2, 3, 01, 5]}",
    "{\"b\": [1, 2, 3, 1., 5]}",
    "{\"b\": [1, 2,\n 3, -, 5]}",
    "{\"b\": [1, 2, 3 4]}",
    "{\"b\": [1, 2, 3,, 5]}",
    "{\"b\": [1, 2,\n 3, 4e]}",
    "{\"b\": [1, 2, \"s\", 3, true, 4, [5], 6, -0, 1e999, 2.5e-3]}",
    "{\"a\": [[1, 2, x]]}",
    "{\"b\": [0, -0, 0.0, -0.0, 9007199254740993, -9007199254740993, 9223372036854775807, "
    "-9223372036854775808, 9223372036854775808, 18446744073709551615, 18446744073709551616, "
    "12345678901234567890, 1e22, 1e23, -1e-7, 5e-324, 2.5e-320, 1.7976931348623157e308, "
    "1e309, 1e99999, 1e100000, 1e-100000, 1e1000000, 1e-0000000000001, 0.1e1, "
    "0.00000000000000000000012345678901234567, "
    "123.456e-2, 4E+0, 7e-0, 0.30000000000000004]}",
    "[{\"d\": [1, 2, 3, 4, 5]}, {\"d\": [7]}, {\"d\": []}, {\"d\": [1, \"x\", 3, 4]}, "
    "{\"d\": [2, 3, [4], 5, 6.5]}, {\"d\": [1, 2, 3, 4 5]}]",
    "[{\"d\": [1, 2, 3, 4, 5], \"c\": [8, 9, 10]}, {\"d\": [-1, -2]}]",
    /* containers no rule looks into, inside ones they do (skipped by the parser) */
    "[{\"x\": [1, [2, {\"y\": 3}]], \"a\": 1}, {\"q\": {\"r\": [1, 2], \"s\": \"t\"}, "
    "\"d\": [1, 2, 3]}, {\"e\": {}, \"f\": [], \"a\": 2}]",
    "{\"k\": [{\"z\": {\"w\": [1, 2, {\"v\": null}]}, \"c\": 4}], \"b\": [1, 5]}",
    "[{\"x\": [1, 2, }], \"a\": 1}]",
    "[{\"x\": {\"y\": 01}}, {\"a\": 3}]",
    "[{\"x\": {\"y\": [1, 2",
    "[{\"x\": {\"y\": \"\\q\"}}]",
    "{\"b\": [1, 2, 0e]}",
    "{\"b\": [1, 2, -a]}",
    "{\"b\": [1, 2, 1.2.3]}",
    "{\"b\": [1, 2, 1e5e5]}",
    "{\"b\": [1, 2, 3, 4,",
    "{\"b\": [1, 2, 3, 4",
    "{\"b\": [\n  0.01340012300463521,\n  0.022420150674464068,\n  1e5\n],\n\"c\": 1}",
    /* members nobody watches in objects whose watched names are known (the records
       here: a, b, c, d), passed over by the parser; names with escapes come back */
    "[{\"\\u0061\": 5, \"x\": {\"a\": 1}, \"\\u0063\": [6, 7], \"b\\u0000\": 1, \"ab\": 2}]",
    "[ { \"x\" : 1 , \"\" : [ ] , \"a\" : 2 , \"a\" : 3 , \"y\" : \"\\\"a\\\"\" } , { } ]",
    "[{\"x\": 01, \"a\": 1}]",
    "[{\"x\": \"\\q\", \"a\": 1}]",
    "[{\"x\" 1, \"a\": 2}]",
    "[{\"x\": 1 \"a\": 2}]",
    "[{\"x\": 1,}]",
    "[{\"x\": [1, 2], \"y\": tru, \"a\": 1}]",
    "[{\"x\": \"abc",
    "[{\"x\": {\"a\": [1, 2]}, \"y\": null, \"d\": [1, 2], \"z\": [], \"c\": [0.5]}, {\"q\": 1}]",
    /* duplicate keys: an error wherever they are (a watched member, one passed over, a
       container skipped whole, an object with many members), never two values routed */
    "{\"b\": [1, 2], \"b\": [3]}",
    "[{\"a\": 1, \"x\": 2, \"x\": 3}]",
    "[{\"q\": {\"r\": [1, {\"s\": 1, \"s\": 2}]}, \"a\": 1}]",
    "[{\"a\": 1}, {\"a\": 2, \"\\u0061\": 3}]",
    "[{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,"
    "\"k10\":0,\"k11\":1,\"k12\":2,\"k13\":3,\"k14\":4,\"k15\":5,\"k16\":6,\"k17\":7,\"k18\":8,"
    "\"k19\":9,\"k20\":0,\"k21\":1,\"k22\":2,\"k23\":3,\"k24\":4,\"k25\":5,\"a\":1,\"k3\":0}]",
    /* arrays of numbers in members nobody watches (passed over by the parser's lane for
       them, validated, not converted): well formed, then each kind of bad number */
    "[{\"x\": [1771234500.4412345, 1771234500.45, -0.5, 0, -0, 1e5, 2.5E-3, "
    "123456789012345678901234567890123456.5], \"a\": 1}, {\"x\": [1,\n 2,\n 3]}]",
    "[{\"x\": [1771234500.4412345, 1771234500.45, 01, 1771234500.4412345], \"a\": 1}]",
    "[{\"x\": [1771234500.4412345,\n 1771234500.45,\n 1., 1771234500.4412345], \"a\": 1}]",
    "[{\"x\": [1771234500.4412345, 1771234500.45, 1.2.3, 1771234500.4412345], \"a\": 1}]",
    "[{\"x\": [1771234500.4412345, 1771234500.45, 1e5e5, 1771234500.4412345], \"a\": 1}]",
    "[{\"x\": [1771234500.4412345, 1771234500.45 1771234500.4412345], \"a\": 1}]",
    "[{\"x\": [1771234500.4412345, 1771234500.45,, 1771234500.4412345], \"a\": 1}]",
    "[{\"x\": [1771234500.4412345, -, 1771234500.4412345, 1771234500.4412345], \"a\": 1}]",
    /* text in other scripts: sequences one after another, cut anywhere by the reads */
    "[{\"x\": \"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xc3\xa9\xc3\xa8 "
    "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\", \"a\": 1}]",
    "[{\"x\": \"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\xe8\xaa\x9e\", \"a\": 1}]",
};

static const char *const JSONL_DOCS[] = {
    "{\"a\": [1, 2]}\n\n{\"a\": [3, 5, 9]}\n{\"c\": [1, 2]}\n",
    "[1]\n[2, 3]\n{\"a\": [1, 2]\n", /* truncated last line */
};

static const char *const CSV_DOCS[] = {
    "a,b,c\n1,2,3\n4.5,\"x, y\",6\n",
    "a,b,c\r\n\"1\",\"say \"\"hi\"\"\nthere\",3\r\n7,8,9",
    "a,b,c\n1,2\n",     /* short row */
    "a,b,c\n1,\"2,3\n", /* unterminated quote */
    "c,b,a\n,,\n-1e3,+2,.5\n",
    /* longer than the 64-byte blocks the separators are found in: fields and quoted
       fields (with separators, line ends and "" inside) across block boundaries */
    "a,b,c,text\n1.25,2,3,\"one, \"\"two\"\"\nthree\"\n4,5,6,plain words here and there\r\n"
    "7,8.5,9,\"a much longer quoted field, with commas, that crosses a block, \"\"ok\"\"\"\n\n"
    "10,11,12,\"\"\n13,14,15,x\n16,17,18,\"multi\nline\nfield\"\n19,20,21,end\n",
    "a,b,c,text\n1,2,3,some words to get past the first block of sixty four bytes\n"
    "4,5,6,more words\n7,8,9,and then a quote\"inside\n",
    "a,b,c,text\n1,2,3,some words to get past the first block of sixty four bytes\n"
    "4,5,6,\"quoted\"x,\n",
    "a,b,c,text\n1,2,3,some words to get past the first block of sixty four bytes\n"
    "4,5,6,\"never\nclosed, \"\"at all\n7,8,9\n",
    "a,b,c,text\n1,2,3,some words to get past the first block of sixty four bytes\n4,5\n",
    /* a byte-order mark only counts at the start: after a blank line it is the header
       (found by the fuzzer: reads of 1 byte skipped it there) */
    "\n\xEF\xBB\xBF",
    "\xEF\xBB\xBF"
    "a,b,c\n1,2,3\n",
};

/* A scratch file for the documents written out (file_differential), made in main. */
static char scratch[64];

/* Every document of docs, through reads of 1 to 7 bytes, from memory and from a file
   (read; a CSV also in parts): 0 when all agree with whole. */
static int all_agree(const char *const *docs, size_t n, int format)
{
    char why[600];
    int bad = 0;
    for (size_t d = 0; d < n; d++)
        for (size_t r = 1; r <= 7; r++) {
            const uint8_t *doc = (const uint8_t *)docs[d];
            if (scan_differential(doc, strlen(docs[d]), format, r, why, sizeof why) ||
                file_differential(doc, strlen(docs[d]), format, scratch, r, why, sizeof why)) {
                fprintf(stderr, "  doc %zu, reads of %zu: %s\n", d, r, why);
                bad = 1;
            }
        }
    return bad;
}

/* The random documents below come from this state (testhelp.h's test_rnd). */
static uint64_t rng_state = 88172645463325252ULL;
static unsigned rnd(unsigned n)
{
    return test_rnd(&rng_state, n);
}

/* Appends one random CSV cell to out: a number in one of the spellings writers use, an
   empty cell, or text, quoted or not (quoted: separators, line ends, "" and NULs in it). */
static size_t random_cell(char *out, int text_only)
{
    static const char *const nums[] = {"266.35052309161983",
                                       "16.381057690427514",
                                       "4443.520234150636",
                                       "512",
                                       "-0",
                                       "1e999",
                                       "  7.25 ",
                                       "+3",
                                       ".5",
                                       "inf",
                                       "0.1",
                                       "2.2250738585072014e-308",
                                       "-1.5E+3",
                                       "9007199254740993",
                                       "1."};
    static const char *const texts[] = {
        "ok", "plain words", "x",
        "a much longer piece of text that goes past a 64-byte block "
        "of the input without any separator in it at all"};
    size_t n = 0;
    unsigned k = rnd(100);
    if (!text_only && k < 70)
        return (size_t)sprintf(out, "%s", nums[rnd(sizeof nums / sizeof nums[0])]);
    if (k < 75)
        return 0;
    if (k < 88)
        return (size_t)sprintf(out, "%s", texts[rnd(sizeof texts / sizeof texts[0])]);
    out[n++] = '"';
    for (unsigned i = 0, len = rnd(90); i < len; i++) {
        static const char pool[] = "ab ,\n\r\"9.";
        char c = pool[rnd(sizeof pool - 1)];
        if (rnd(200) == 0)
            c = '\0';
        out[n++] = c;
        if (c == '"')
            out[n++] = '"';
    }
    out[n++] = '"';
    return n;
}

/* A number cell as result writers put them: '-'?, 1..21 integer digits, and a point
   with 1..19 more now and then none (full-precision floats, integers, some too long for
   the lanes). */
static size_t random_number(char *out)
{
    size_t n = 0;
    if (rnd(8) == 0)
        out[n++] = '-';
    unsigned il = rnd(4) == 0 ? 1 + rnd(21) : 1 + rnd(5), fl = rnd(6) == 0 ? 0 : 1 + rnd(19);
    for (unsigned d = 0; d < il; d++)
        out[n++] = (char)('0' + (d == 0 && il > 1 ? 1 + rnd(9) : rnd(10)));
    if (fl > 0) {
        out[n++] = '.';
        for (unsigned d = 0; d < fl; d++)
            out[n++] = (char)('0' + rnd(10));
    }
    return n;
}

/* A random CSV document with columns a, b, c among others (some docs with a BOM, CRLF,
   blank lines, no final line end; a few with a row of the wrong width or a stray
   quote, which must fail alike everywhere; some 70 columns wide, where a row is longer
   than the 64 bytes the lane looks at first and has more separators than a word has
   bits; a third number-dense, with other cells only now and then, so that runs of plain
   rows cross blocks and chunks). Returns its length. */
static size_t random_csv(char *doc, size_t cap, int rows)
{
    static const char *const heads[] = {"a,b,c", "id,a,status,b,c,n", "c,text,b,a", "a,b,c,z"};
    int h = (int)rnd(5), ncols = h == 0 ? 3 : h == 1 ? 6 : h == 4 ? 70 : 4;
    int crlf = rnd(3) == 0, bad = rnd(8) == 0, dense = rnd(3) == 0;
    size_t n = 0;
    if (rnd(4) == 0)
        n += (size_t)sprintf(doc + n, "\xEF\xBB\xBF");
    if (h == 4) { /* a at column 1, b at 34, c at 70 */
        for (int c = 0; c < ncols; c++)
            n += (size_t)sprintf(doc + n, "%s%s", c ? "," : "",
                                 c == 0    ? "a"
                                 : c == 33 ? "b"
                                 : c == 69 ? "c"
                                           : "w");
        n += (size_t)sprintf(doc + n, "%s", crlf ? "\r\n" : "\n");
    } else {
        n += (size_t)sprintf(doc + n, "%s%s", heads[h], crlf ? "\r\n" : "\n");
    }
    for (int r = 0; r < rows && n + 4096 < cap; r++) {
        int width = ncols;
        if (bad && rnd(rows) == 0)
            width += rnd(2) ? 1 : -1;
        for (int c = 0; c < width; c++) {
            if (c > 0)
                doc[n++] = ',';
            int is_text = (h == 1 && (c == 0 || c == 2 || c == 5)) || (h == 2 && c == 1) ||
                          (h == 3 && c == 3) || (h == 4 && c % 7 == 5);
            if (dense && rnd(300) != 0)
                n += random_number(doc + n);
            else
                n += random_cell(doc + n, is_text);
            if (bad && rnd(4000) == 0)
                doc[n++] = '"';
        }
        if (rnd(dense ? 400 : 40) == 0)
            n += (size_t)sprintf(doc + n, crlf ? "\r\n" : "\n"); /* a blank line */
        if (r + 1 < rows || rnd(2))
            n += (size_t)sprintf(doc + n, crlf ? "\r\n" : "\n");
    }
    return n;
}

/* Scans text for one strict accumulator rule (a CSV column name or a JSON path), whole
   (read_max 0) or through reads of read_max bytes: 0 with *sum, or -1 with the error
   in err; *refills is how many times the window was refilled. */
static int scan_one(int format, const char *pattern, const char *text, size_t len, size_t read_max,
                    double *sum, uint64_t *refills, char *err, size_t errlen)
{
    TestScan t;
    const char *name = format == SCAN_CSV ? "t.csv" : "t.json";
    if (test_one_rule(&t, name, format, pattern, err, errlen) != 0)
        return -1;
    FILE *fp = NULL;
    if (read_max == 0) {
        scan_open_mem(&t.s, text, len);
    } else {
        fp = fmemopen((void *)(uintptr_t)text, len, "r");
        scan_open_file(&t.s, fp);
        t.s.read_max = read_max;
    }
    int rc = scan_run(&t.s);
    snprintf(err, errlen, "%s", rc != 0 ? t.s.err : "");
    *sum = stats_sum(&t.st);
    *refills = t.s.refills;
    test_one_rule_free(&t);
    if (fp != NULL)
        fclose(fp);
    return rc;
}

/* The sums of CSV columns cols[0..ncols) of doc, whole (a read of 0) and through each
   read size, in every instruction set the CPU has and in plain C, against want: 1 when
   any differs (each said on stderr), else 0; *runs counts the scans. */
static int csv_sums_everywhere(const char *doc, size_t n, const char *const *cols,
                               const double *want, int ncols, const size_t *reads, size_t nreads,
                               int *runs)
{
    static const char *const simd[] = {"avx512", "avx2", "sse2", "portable"};
    const char *best = json_simd(NULL);
    int bad = 0;
    *runs = 0;
    for (size_t l = 0; l < sizeof simd / sizeof simd[0]; l++) {
        if (json_simd(simd[l]) == NULL)
            continue;
        for (size_t r = 0; r < nreads; r++)
            for (int c = 0; c < ncols; c++) {
                double sum;
                uint64_t refills;
                char err[256];
                int rc =
                    scan_one(SCAN_CSV, cols[c], doc, n, reads[r], &sum, &refills, err, sizeof err);
                (*runs)++;
                if (rc != 0 || sum != want[c]) {
                    fprintf(stderr, "  %s, reads of %zu, column %s: rc %d, sum %.17g %s\n", simd[l],
                            reads[r], cols[c], rc, sum, err);
                    bad = 1;
                }
            }
    }
    if (json_simd(best) == NULL)
        bad = 1;
    return bad;
}

/* One CSV column y of text through a strict accumulator rule, as scan_one. */
static int csv_column(const char *text, size_t len, double *sum, char *err, size_t errlen)
{
    uint64_t refills;
    return scan_one(SCAN_CSV, "y", text, len, 0, sum, &refills, err, errlen);
}

/* ---- a JSON file that shrinks while it is read ------------------------------------ */

/* What the shrink test's record callback does: counts records, and at record number
   `at` cuts the file at path to cut_to bytes, as another program rewriting it would. */
typedef struct Cutter {
    const char *path;
    off_t cut_to;
    int at, records;
} Cutter;

static void cut_on_record(Scanner *s, int rule, const ScanValue *whole)
{
    (void)rule;
    (void)whole;
    Cutter *c = (Cutter *)s->ud;
    if (++c->records == c->at && truncate(c->path, c->cut_to) != 0)
        s->stop = 1;
}

/* The line-up test's record callback: counts records, and those at which the bytes
   the last read put in the window did not end at their file offset's place in a 64-byte
   line (the window's end against fgot: the next read goes there) */
static void lined_up_on_record(Scanner *s, int rule, const ScanValue *whole)
{
    (void)rule;
    (void)whole;
    unsigned *seen = (unsigned *)s->ud;
    seen[0]++;
    if ((((uintptr_t)(s->buf + s->len)) - (uintptr_t)s->fgot) % 64 != 0)
        seen[1]++;
}

/* A document of one shape, about 256 KiB (64 pages of 4 KiB), for the rules in
   shrink_rules: 0 numbers, 1 objects with members passed over, 2 records with fields,
   3 captured objects, 4 [-1] and a reduction, 5 JSON Lines, 6 numbers of 600 digits
   (strtod's slow path), 7 a record (first) and an accumulator on the same long number,
   8 one long string with escapes; 9 a CSV (the serial scan). */
static size_t shrink_doc(int shape, char *doc, size_t cap)
{
    size_t n = 0;
    if (shape == 9) {
        n += (size_t)sprintf(doc, "a,b,t\n");
        for (int i = 0; n + 64 < cap; i++)
            n += (size_t)sprintf(doc + n, "%d,%d.25,\"x,\"\"%d\"\"\"\n", i, i, i);
        return n;
    }
    if (shape == 8) {
        n += (size_t)sprintf(doc, "{\"s\": \"");
        while (n + 64 < cap - 64)
            n += (size_t)sprintf(doc + n, "ab\\\"cd\\u00e9 ");
        return n + (size_t)sprintf(doc + n, "\", \"x\": 1}");
    }
    if (shape != 5)
        doc[n++] = '[';
    for (int i = 0; n + 1024 < cap; i++) {
        const char *sep = shape == 5 ? "" : i ? "," : "";
        if (shape == 0)
            n += (size_t)sprintf(doc + n, "%s%d.5", sep, i);
        else if (shape == 6 || shape == 7) {
            n += (size_t)sprintf(doc + n, "%s%d.", sep, i);
            for (int k = 0; k < 600; k++)
                doc[n++] = (char)('0' + (i + k) % 10);
        } else
            n += (size_t)sprintf(doc + n,
                                 "%s{\"a\": %d, \"s\": \"t\\\"%d\", \"skip\": {\"u\": [1, "
                                 "{\"w\": \"z\"}]}, \"v\": [%d, 2.5, %d]}%s",
                                 sep, i, i, i, i * 2, shape == 5 ? "\n" : "");
    }
    if (shape != 5)
        doc[n++] = ']';
    return n;
}

/* The rules (and fields) of shape in shrink_doc: how many rules; records go to
   cut_on_record. */
static int shrink_rules(int shape, ScanRule *rules, ScanField *fields, int *nfields, Stats *st)
{
    static const char *const paths[][2] = {
        {"$[*]",       NULL    },
        {"$[*].a",     NULL    },
        {"$[*]",       NULL    },
        {"$[*].skip",  NULL    },
        {"$[*].v[-1]", "$[*].v"},
        {"$.v[*]",     "$.a"   },
        {"$[*]",       NULL    },
        {"$[*]",       "$[*]"  },
        {"$.s",        "$.x"   }
    };
    char err[256];
    *nfields = 0;
    if (shape == 9) {
        CHECK(test_stats_rule(&rules[0], &st[0], SCAN_CSV, "b", err, sizeof err) == 0);
        return 1;
    }
    int nr = paths[shape][1] != NULL ? 2 : 1;
    for (int m = 0; m < nr; m++)
        CHECK(test_stats_rule(&rules[m], &st[m], SCAN_JSON, paths[shape][m], err, sizeof err) == 0);
    if (shape == 2 || shape == 3 || shape == 7 || shape == 8)
        rules[0].sink = SINK_RECORD; /* 3, 7, 8: the value itself (raw text of a container) */
    if (shape == 4)
        rules[1].reduce = RED_DIFFS;
    if (shape == 2) { /* fields a, s and #v */
        static const char *const names[] = {"a", "s", "#v"};
        rules[0].first_field = 0;
        rules[0].nfields = 3;
        for (int k = 0; k < 3; k++) {
            memset(&fields[k], 0, sizeof fields[k]);
            CHECK(scan_path_parse(names[k], 1, &fields[k].path, err, sizeof err) == 0);
            fields[k].rule = 0;
        }
        *nfields = 3;
    }
    return nr;
}

int main(void)
{
    if (test_temp_file(scratch, sizeof scratch, "/tmp/llmdlua-test-scan-XXXXXX") != 0) {
        fprintf(stderr, "cannot make a file in /tmp\n");
        return 2;
    }

    TEST("JSON: whole and windowed scans agree at every cut")
    {
        CHECK(!all_agree(JSON_DOCS, sizeof JSON_DOCS / sizeof JSON_DOCS[0], SCAN_JSON));
    }

    TEST("JSON Lines: whole and windowed scans agree at every cut")
    {
        CHECK(!all_agree(JSONL_DOCS, sizeof JSONL_DOCS / sizeof JSONL_DOCS[0], SCAN_JSONL));
    }

    TEST("CSV: whole, windowed and in parts, scans agree at every cut")
    {
        /* the files in 2 and 3 parts too (file_differential): some documents go in
           parts, others fall back (too few rows to cut, a cut inside quotes, an error) */
        int in_parts = differential_parts[1], serial = differential_parts[0];
        CHECK(!all_agree(CSV_DOCS, sizeof CSV_DOCS / sizeof CSV_DOCS[0], SCAN_CSV));
        CHECK(differential_parts[1] > in_parts && differential_parts[0] > serial);
    }

    TEST("CSV: random documents agree whole, windowed, by the reference splitter, in plain C")
    {
        /* the fast lane (rows of plain fields from an index of the separators) against
           csv_record (every row) and the plain-C block classifier against SSE2; rows of
           quoted text with separators, line ends, "" and NULs; reads of every size from
           1 byte to past the lane's 8 KiB chunks, so rows straddle each window's end;
           every fifth document also from a file, read, and in parts (file_differential:
           many go in parts, with rows across the parts' windows) */
        static char doc[1 << 17];
        static const size_t reads[] = {1, 3, 7, 64, 100, 1000, 4095, 4097, 8191, 8193, 17000};
        /* the lane's index, rows and cells for each instruction set the CPU has, the
           widest first (the others: SSE2, and plain C, also through s.portable) */
        static const char *const simd[] = {"avx512", "avx2", "sse2", "portable"};
        const char *best = json_simd(NULL);
        char why[600];
        int bad = 0, failed = 0, levels = 0, in_parts = differential_parts[1];
        for (size_t l = 0; l < sizeof simd / sizeof simd[0]; l++) {
            if (json_simd(simd[l]) == NULL)
                continue;
            levels++;
            for (int d = 0; d < 300 && !bad; d++) {
                size_t n = random_csv(doc, sizeof doc, 1 + (int)rnd(d < 250 ? 40 : 400));
                size_t r = reads[d % (sizeof reads / sizeof reads[0])];
                if (scan_differential((const uint8_t *)doc, n, SCAN_CSV, r, why, sizeof why) ||
                    (d % 5 == 0 && file_differential((const uint8_t *)doc, n, SCAN_CSV, scratch, r,
                                                     why, sizeof why))) {
                    fprintf(stderr, "  %s: doc %d (%zu bytes), reads of %zu: %s\n", simd[l], d, n,
                            r, why);
                    bad = 1;
                }
                Outcome o;
                run_once((const uint8_t *)doc, n, SCAN_CSV, 0, 0, 0, &o);
                failed += o.rc != 0;
            }
        }
        CHECK(json_simd(best) != NULL);
        CHECK(!bad && levels >= 1);
        /* both kinds occur: most documents scan, the few with a bad row fail */
        CHECK(failed > 5 * levels && failed < 150 * levels);
        CHECK(differential_parts[1] - in_parts > 20 * levels);
    }

    TEST("paths parse, and bad ones are refused with the place")
    {
        ScanPath p;
        char err[256];
        CHECK(scan_path_parse("$.a[*][3].b[\"x.y\"].*[-1]", 0, &p, err, sizeof err) == 0);
        CHECK(p.n == 7 && p.steps[0].kind == STEP_KEY && p.steps[1].kind == STEP_ANY_INDEX &&
              p.steps[2].kind == STEP_INDEX && p.steps[2].index == 3 &&
              p.steps[4].kind == STEP_KEY && strcmp(p.steps[4].key, "x.y") == 0 &&
              p.steps[5].kind == STEP_ANY_KEY && p.steps[6].kind == STEP_LAST && p.last_at == 6);
        scan_path_free(&p);
        CHECK(scan_path_parse("#info.times", 1, &p, err, sizeof err) == 0 && p.length_of &&
              p.n == 2);
        scan_path_free(&p);
        CHECK(scan_path_parse("$", 0, &p, err, sizeof err) == 0 && p.n == 0);
        scan_path_free(&p);
        CHECK(scan_path_parse("$.a[", 0, &p, err, sizeof err) != 0 &&
              strstr(err, "at position 5") != NULL); /* the end, after "[" */
        CHECK(scan_path_parse("a.b", 0, &p, err, sizeof err) != 0 &&
              strstr(err, "must start with '$'") != NULL);
        CHECK(scan_path_parse("$[-1][-1]", 0, &p, err, sizeof err) != 0 &&
              strstr(err, "at most one [-1]") != NULL);
    }

    TEST("CSV numbers: a NUL or any byte outside the number grammar is refused, with its place")
    {
        /* the case: strtod stopped at the NUL and read 2 */
        double sum;
        char err[512];
        static const char nul[] = "x,y\n1,2\0"
                                  "999\n";
        CHECK(csv_column(nul, sizeof nul - 1, &sum, err, sizeof err) == -1);
        CHECK_STR(err, "t.csv:2:4: column 'y': expected a number, found '2\\x00999' (byte "
                       "'\\x00' cannot be part of a number)");
        /* every byte c in "2c999": a number only for a digit (2c999), '.' (2.999) and
           e/E (2e999, +inf); the values by hand */
        for (int c = 0; c < 256; c++) {
            char text[16] = "y\n2";
            text[3] = (char)c;
            memcpy(text + 4, "999\n", 5);
            int rc = csv_column(text, 8, &sum, err, sizeof err);
            if (c >= '0' && c <= '9') {
                CHECK(rc == 0 && sum == 20999 + 1000 * (c - '0'));
            } else if (c == '.') {
                CHECK(rc == 0 && sum == 2.999);
            } else if (c == 'e' || c == 'E') {
                CHECK(rc == 0 && sum == HUGE_VAL);
            } else if (c == '\n' || c == '\r') {
                CHECK(rc == 0 && sum == 2 + 999); /* two rows */
            } else if (c == ',' || c == '"') {
                CHECK(rc == -1); /* a second field, or a stray quote */
            } else {
                int letter = memchr("+-iInNfFtTyY", c, 12) != NULL;
                CHECK(rc == -1);
                /* the place: line 2, column 2 of "2c999", unless c could belong to some
                   number (then the text is named, without a column) */
                CHECK(strncmp(err, letter ? "t.csv:2: column 'y'" : "t.csv:2:2: column 'y'",
                              letter ? 19 : 21) == 0);
            }
        }
    }

    TEST("CSV lane: rows across 64-byte blocks and 8 KiB chunks, CRLF, 70 columns, by hand")
    {
        /* row k (1..600): k, k/2, a plain text of k % 150 bytes, then 66 more columns of
           k % 3, then k, CRLF: rows from 80 to 370 bytes, so they start everywhere in a
           block and cross every chunk's end; and the last without a line end. Sums by
           hand: a and z are 1 + ... + 600 = 180300, b half that, m (k % 3) is 200 * 3 =
           600 (200 of each 0, 1, 2). Whole, and through reads of 1, 63, 64, 65, 4097 and
           8193 bytes; for each instruction set and in plain C. */
        static char doc[1 << 19];
        size_t n = (size_t)sprintf(doc, "a,b,text");
        for (int c = 0; c < 66; c++)
            n += (size_t)sprintf(doc + n, ",%s", c == 40 ? "m" : "w");
        n += (size_t)sprintf(doc + n, ",z\r\n");
        for (int k = 1; k <= 600; k++) {
            n += (size_t)sprintf(doc + n, "%d,%.1f,", k, k / 2.0);
            for (int i = 0; i < k % 150; i++)
                doc[n++] = (char)('a' + i % 26);
            for (int c = 0; c < 66; c++)
                n += (size_t)sprintf(doc + n, ",%d", k % 3);
            n += (size_t)sprintf(doc + n, ",%d%s", k, k < 600 ? "\r\n" : "");
        }
        static const char *const cols[] = {"a", "b", "m", "z"};
        static const double want[] = {180300, 90150, 600, 180300};
        static const size_t reads[] = {0, 1, 63, 64, 65, 4097, 8193};
        int runs;
        int bad = csv_sums_everywhere(doc, n, cols, want, 4, reads, sizeof reads / sizeof reads[0],
                                      &runs);
        CHECK(!bad && runs >= 2 * 6 * 4);
    }

    TEST("CSV lane: blocks of 33 to 64 stops (empty fields), quoted rows among them, by hand")
    {
        /* row k (1..400): k, 98 empty fields (the first "x" in quotes in every third row:
           those take the quoted path), k, 98 empty fields: blocks of 64 separators, where the lanes
           write the stops of a block 16 at a time (more than 32 there), rows starting
           everywhere in a block. Sums by hand: a and z are 1 + ... + 400 = 80200. Whole,
           and through reads of 1, 64, 65 and 8193 bytes; for each instruction set and in
           plain C. */
        static char doc[1 << 17];
        size_t n = (size_t)sprintf(doc, "a");
        for (int c = 0; c < 98; c++)
            n += (size_t)sprintf(doc + n, ",e%d", c);
        n += (size_t)sprintf(doc + n, ",z");
        for (int c = 0; c < 98; c++)
            n += (size_t)sprintf(doc + n, ",f%d", c);
        doc[n++] = '\n';
        for (int k = 1; k <= 400; k++) {
            n += (size_t)sprintf(doc + n, k % 3 == 0 ? "%d,\"x\"" : "%d,", k);
            for (int c = 0; c < 98; c++)
                doc[n++] = ',';
            n += (size_t)sprintf(doc + n, "%d", k);
            for (int c = 0; c < 98; c++)
                doc[n++] = ',';
            doc[n++] = '\n';
        }
        static const char *const cols[] = {"a", "z"};
        static const double want[] = {80200, 80200};
        static const size_t reads[] = {0, 1, 64, 65, 8193};
        int runs;
        int bad = csv_sums_everywhere(doc, n, cols, want, 2, reads, sizeof reads / sizeof reads[0],
                                      &runs);
        CHECK(!bad && runs >= 2 * 5 * 2);
    }

    TEST("CSV lane: every byte but the stops is text to the index, in every instruction set")
    {
        /* the AVX2 index finds '"', '\n' and '\r' by a table of sixteen (the byte's low
           four bits): the bytes that share those bits ('*', ':', '-', '=', 'B', 'J', 'M',
           high-bit bytes...) and NUL must stay text. Row k (1..300): k, a text of all
           256 byte values but ',', '"', '\n' and '\r' from a place that moves with k,
           then k + 0.25, '\n' (rows of 258 bytes and more: across blocks and chunks).
           Sums by hand: a = 1 + ... + 300 = 45150, c = 45150 + 300 * 0.25 = 45225.
           Whole and through reads of 4097 and 8193 bytes. */
        static char doc[1 << 18];
        size_t n = (size_t)sprintf(doc, "a,text,c\n");
        for (int k = 1; k <= 300; k++) {
            n += (size_t)sprintf(doc + n, "%d,", k);
            for (int i = 0; i < 256; i++) {
                unsigned char ch = (unsigned char)(i + k);
                if (ch != ',' && ch != '"' && ch != '\n' && ch != '\r')
                    doc[n++] = (char)ch;
            }
            n += (size_t)sprintf(doc + n, ",%d.25\n", k);
        }
        static const char *const cols[] = {"a", "c"};
        static const double want[] = {45150, 45225};
        static const size_t reads[] = {0, 4097, 8193};
        int runs;
        int bad = csv_sums_everywhere(doc, n, cols, want, 2, reads, sizeof reads / sizeof reads[0],
                                      &runs);
        CHECK(!bad && runs >= 2 * 3 * 2);
    }

    TEST("CSV lane: a short or long row at each row of a run fails at its line, in every "
         "instruction set")
    {
        /* 200 rows of three numbers (LF or CRLF; 4 or 5 to a 64-byte block, or, with a
           fourth field of 80 bytes of text, one row over two blocks: blocks with no line
           end among them), row j (0..199) replaced by a row of one field too few then one
           of 1 ("1.5,2.5" and "3.5": their stops are a row's, the line end where a row's
           end is looked for, so that only the count of the line ends refuses them), or
           by a row of one field too many. Each scan fails at row j's line, j + 2 (the
           header is line 1), with the splitter's message (by hand); any other outcome is
           said. */
        static char doc[65536];
        static const char *const simd[] = {"avx512", "avx2", "sse2", "portable"};
        static const char pad[] = ",xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                  "xxxxxxxxxxxxxxxxxxx";
        const char *best = json_simd(NULL);
        int bad = 0, runs = 0;
        for (size_t l = 0; l < sizeof simd / sizeof simd[0]; l++) {
            if (json_simd(simd[l]) == NULL)
                continue;
            for (int v = 0; v < 8; v++) {
                const char *nl = v & 1 ? "\r\n" : "\n";
                int longrow = v >> 1 & 1, wide = v >> 2; /* wide: the field of text */
                const char *p = wide ? pad : "";
                for (int j = 0; j < 200; j++) {
                    size_t n = (size_t)sprintf(doc, "a,b,c%s%s", wide ? ",d" : "", nl);
                    for (int k = 0; k < 200; k++) {
                        if (k != j)
                            n += (size_t)sprintf(doc + n, "%d.5,%d.25,-%d.125%s%s", k, k, k, p, nl);
                        else if (longrow)
                            n += (size_t)sprintf(doc + n, "1,2,3,4%s%s", p, nl);
                        else if (wide)
                            n += (size_t)sprintf(doc + n, "1.5,2.5,3.5%s4.5%s", nl, nl);
                        else
                            n += (size_t)sprintf(doc + n, "1.5,2.5%s3.5%s", nl, nl);
                    }
                    double sum;
                    uint64_t refills;
                    char err[256], want[64];
                    int rc = scan_one(SCAN_CSV, "a", doc, n, 0, &sum, &refills, err, sizeof err);
                    snprintf(want, sizeof want, "t.csv:%d: %d fields, the header has %d", j + 2,
                             3 + wide + (longrow ? 1 : -1), 3 + wide);
                    runs++;
                    if (rc != -1 || strcmp(err, want) != 0) {
                        if (bad++ < 5)
                            fprintf(stderr, "  %s, v %d, row %d: rc %d '%s'\n", simd[l], v, j, rc,
                                    rc ? err : "");
                    }
                }
            }
        }
        CHECK(json_simd(best) != NULL);
        CHECK(bad == 0 && runs >= 2 * 8 * 200);
    }

    TEST("CSV lane: an empty cell is no number (an error, never 0), a short row fails")
    {
        /* messages and places by hand: line 3 holds the empty b (column a around it
           reads fine: 1 + 3 + 5), line 5 has 1 field; the skipped cells of rules with
           skip are compared with the reference splitter by the random documents */
        double sum;
        char err[256];
        uint64_t refills;
        static const char empty[] = "a,b\n1,2\n3,\n5,6\n";
        CHECK(scan_one(SCAN_CSV, "a", empty, sizeof empty - 1, 0, &sum, &refills, err,
                       sizeof err) == 0 &&
              sum == 9);
        CHECK(scan_one(SCAN_CSV, "b", empty, sizeof empty - 1, 0, &sum, &refills, err,
                       sizeof err) == -1);
        CHECK_STR(err, "t.csv:3: column 'b': expected a number, found ''");
        /* rows with quoted fields go through the lane too: the line feeds inside quotes
           count (row 2 is on lines 3-4, so the bad cell is on line 5, byte 8 of its
           row), and a quoted number is text, not a number (by hand) */
        static const char quoted[] = "a,y\n1,2\n\"multi\nline\",3\n\"q\"\"q\",x\n";
        CHECK(scan_one(SCAN_CSV, "y", quoted, sizeof quoted - 1, 0, &sum, &refills, err,
                       sizeof err) == -1);
        CHECK_STR(err, "t.csv:5:8: column 'y': expected a number, found 'x' (byte 'x' cannot "
                       "be part of a number)");
        static const char qnum[] = "a,y\r\n1,2\r\n3,\"4\"\r\n";
        CHECK(scan_one(SCAN_CSV, "y", qnum, sizeof qnum - 1, 0, &sum, &refills, err, sizeof err) ==
              -1);
        CHECK_STR(err, "t.csv:3: column 'y': expected a number, found '4'");
        static const char shortrow[] = "a,b\r\n1,2\r\n3,4\r\n\r\n5\r\n7,8\r\n";
        CHECK(scan_one(SCAN_CSV, "a", shortrow, sizeof shortrow - 1, 0, &sum, &refills, err,
                       sizeof err) == -1);
        CHECK_STR(err, "t.csv:5: 1 fields, the header has 2");
    }

    TEST("CSV lane: quotes out of place, at every offset in a 64-byte block, fail as the "
         "reference splitter says")
    {
        /* 40 plain rows, then a row whose text field (not read by any rule) holds one of
           the texts below, after a field of 0..70 bytes of padding (so that its quotes
           fall at every place of a block and across blocks), then 10 more rows: the whole
           scan, the
           windowed one, the reference splitter (row by row) and plain C must end alike,
           messages and all (scan_differential). Some texts are fine ("" inside quotes, a
           field across blocks, a line feed inside quotes, which moves the line of the
           bad number after it), the others malformed (by RFC 4180: a byte after a
           closing quote, a quote inside an unquoted field). */
        static const char *const text[] = {
            "\"x\"y", "x\"y", "\"x\" ", "\"x\"\"y\"", "\"\"", "\"a\nb\"", "\"x\"\"\"", "\"\"\"x\"",
            "\"x,y\"z", "ab\"\"", "\"x\"\",\"y\"", "\"x\r\ny\"", "x\"y,z\"w", "\"x\"y,\"z\"",
            /* line feeds in a block of a long quoted field that holds no quote */
            "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"
            "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"",
            "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n"
            "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\""};
        static char doc[8192];
        char why[600];
        int bad = 0, failed = 0, cases = 0;
        for (size_t t = 0; t < sizeof text / sizeof text[0] && !bad; t++)
            for (int pad = 0; pad <= 70 && !bad; pad++)
                for (int v = 0; v < 4 && !bad; v++) {
                    int crlf = v & 1, plain = v >> 1; /* plain: no quote in the rows after */
                    const char *nl = crlf ? "\r\n" : "\n";
                    size_t n = (size_t)sprintf(doc, "a,u,t,b,c%s", nl);
                    for (int r = 0; r < 40; r++)
                        n += (size_t)sprintf(doc + n, "%d.25,,\"w,%d\",1.5,-%d%s", r, r, r, nl);
                    n += (size_t)sprintf(doc + n, "7,%.*s,%s,8,9%s", pad,
                                         "pppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
                                         "pppppppppppppppp",
                                         text[t], nl);
                    for (int r = 0; r < 10; r++) /* the 8th malformed: its line */
                        n += (size_t)sprintf(doc + n, "%d,,%s%s,2,3%s", r,
                                             plain ? "zzzzzzzzzzzzzzzzzzzz" : "\"z\"",
                                             r == 7 ? "\"q" : "", nl);
                    cases++;
                    if (scan_differential((const uint8_t *)doc, n, SCAN_CSV, 100, why,
                                          sizeof why)) {
                        fprintf(stderr, "  text %zu, pad %d, v %d: %s\n", t, pad, v, why);
                        bad = 1;
                    }
                    Outcome o;
                    run_once((const uint8_t *)doc, n, SCAN_CSV, 0, 0, 0, &o);
                    failed += o.rc != 0;
                }
        CHECK(!bad && cases == 16 * 71 * 4);
        /* every one fails: at its own row, or at the 8th after it */
        CHECK(failed == cases);
    }

    TEST("CSV lane: in one column, blank lines are no records, with a rule or none")
    {
        /* runs of 40 rows of the numbers 1..40 (LF, then CRLF), a blank line between and
           after them: 80 records whatever the rules, and the sum 2 * 820 = 1640 (by
           hand) where the column is read */
        static char doc[2048];
        for (int crlf = 0; crlf < 2; crlf++) {
            const char *nl = crlf ? "\r\n" : "\n";
            size_t n = (size_t)sprintf(doc, "x%s", nl);
            for (int run = 0; run < 2; run++) {
                for (int v = 1; v <= 40; v++)
                    n += (size_t)sprintf(doc + n, "%d%s", v, nl);
                n += (size_t)sprintf(doc + n, "%s", nl);
            }
            for (int nrules = 0; nrules < 2; nrules++) {
                TestScan t;
                char err[64];
                CHECK(test_one_rule(&t, "t.csv", SCAN_CSV, "x", err, sizeof err) == 0);
                scan_open_mem(&t.s, doc, n);
                t.s.nrules = nrules;
                CHECK(scan_run(&t.s) == 0);
                CHECK(t.s.records == 80);
                CHECK(t.st.n == (nrules ? 80u : 0u) && stats_sum(&t.st) == (nrules ? 1640 : 0));
                test_one_rule_free(&t);
            }
        }
    }

    TEST("a long token through small reads is read again a logarithmic number of times")
    {
        /* a 4 MiB string, then [1, 2, 3]; and a CSV row with a 4 MiB quoted field. Read
           4 KiB at a time, the window used to be refilled, and the token parsed again
           from its start, once per read: 1024 times (quadratic). Now 32 reads of 4 KiB
           reach READ_CHUNK (128 KiB), then every refill at least doubles what is read:
           about 32 + log2(4 MiB / 128 KiB) = 37 refills. */
        size_t big = 4u << 20;
        char *doc = malloc(big + 64);
        CHECK(doc != NULL);
        size_t n = (size_t)sprintf(doc, "{\"a\": \"");
        memset(doc + n, 'x', big);
        n += big;
        n += (size_t)sprintf(doc + n, "\", \"v\": [1, 2, 3]}");
        double sum;
        uint64_t refills;
        char err[512];
        CHECK(scan_one(SCAN_JSON, "$.v[*]", doc, n, 4096, &sum, &refills, err, sizeof err) == 0);
        CHECK(sum == 6 && refills < 64);
        n = (size_t)sprintf(doc, "x,y\n\"");
        memset(doc + n, 'x', big);
        n += big;
        n += (size_t)sprintf(doc + n, "\",2\n3,4\n");
        CHECK(scan_one(SCAN_CSV, "y", doc, n, 4096, &sum, &refills, err, sizeof err) == 0);
        CHECK(sum == 6 && refills < 64);
        free(doc);
    }

    TEST("a scan stops when the interrupt flag is set: at a read, of an open file or a path")
    {
        static volatile sig_atomic_t stop = 1;
        static const char doc[] = "{\"v\": [1, 2, 3]}";
        Scanner s;
        scan_init(&s, "t.json", SCAN_JSON);
        FILE *fp = fmemopen((void *)(uintptr_t)doc, sizeof doc - 1, "r");
        scan_open_file(&s, fp);
        s.interrupted = &stop;
        CHECK(scan_run(&s) == -1);
        CHECK_STR(s.err, "t.json: interrupted");
        scan_free(&s);
        fclose(fp);
        /* a file of 12 MB by its path: the flag is seen at a read (every 128 KiB) */
        char path[] = "/tmp/llmdlua-test-scan-XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        FILE *out = fdopen(fd, "w");
        fputs("[", out);
        for (int i = 0; i < 3000000; i++)
            fputs(i ? ",1.5" : "1.5", out);
        fputs("]", out);
        fclose(out);
        char err[512];
        Stats st;
        ScanRule rule;
        CHECK(test_stats_rule(&rule, &st, SCAN_JSON, "$[*]", err, sizeof err) == 0);
        for (int flag = 0; flag < 2; flag++) {
            stop = (sig_atomic_t)flag;
            scan_init(&s, "big.json", SCAN_JSON);
            CHECK(scan_open_path(&s, path) == 0 && s.fsize > 0);
            s.rules = &rule;
            s.nrules = 1;
            s.interrupted = &stop;
            int rc = scan_run(&s);
            /* without the flag all 3,000,000 values; with it, an error before the end */
            CHECK(flag ? rc == -1 && strcmp(s.err, "big.json: interrupted") == 0
                       : rc == 0 && st.n == 3000000);
            scan_free(&s);
        }
        stats_free(&st);
        scan_path_free(&rule.path);
        unlink(path);
    }

    TEST("a JSON file that shrank: an error naming it and the byte, nothing held")
    {
        /* as test_csvpar.c's test of a CSV, for every path of the JSON scan: each shape
           of shrink_doc, opened, then cut (to nothing, to 3 pages, to 3 pages and 5
           bytes) before the scan, or to 2 pages by a record callback at the 10th
           record during it (then in the first 2 pages). The scan fails with the
           message below, naming a byte at or after the cut and before the old end (the
           end comes before the size the file had when opened); make check runs this
           under ASan, and LeakSanitizer finds anything a pass held when it failed */
        static char doc[256 << 10];
        char path[64];
        CHECK(test_temp_file(path, sizeof path, "/tmp/llmdlua-test-shrink-XXXXXX") == 0);
        long page = sysconf(_SC_PAGESIZE);
        int runs = 0, failed = 0;
        for (int shape = 0; shape < 10; shape++) {
            size_t n = shrink_doc(shape, doc, sizeof doc);
            int records = shape == 2 || shape == 3 || shape == 7;
            for (int mode = 0; mode < 4; mode += 1 + (mode == 2 && !records)) {
                /* 0: to nothing, 1: 3 pages, 2: inside a page, 3: 2 pages, by a callback
                   during the scan */
                off_t cut = mode == 0   ? 0
                            : mode == 1 ? 3 * page
                            : mode == 2 ? 3 * page + 5
                                        : 2 * page;
                test_write_file(path, doc, n);
                Stats st[2];
                stats_init(&st[0], 0); /* (again with their rules) */
                stats_init(&st[1], 0);
                ScanRule rules[2];
                ScanField fields[3];
                int nfields;
                int nr = shrink_rules(shape, rules, fields, &nfields, st);
                Cutter c = {path, cut, mode == 3 ? 10 : -1, 0};
                Scanner s;
                const char *name = shape == 9 ? "t.csv" : "t.json";
                scan_init(&s, name, shape == 9 ? SCAN_CSV : shape == 5 ? SCAN_JSONL : SCAN_JSON);
                CHECK(scan_open_path(&s, path) == 0 && s.fsize == n);
                if (mode != 3)
                    CHECK(truncate(path, cut) == 0);
                s.rules = rules;
                s.nrules = nr;
                s.fields = fields;
                s.nfields = nfields;
                s.on_record = cut_on_record;
                s.ud = &c;
                int rc = scan_run(&s);
                char want[96];
                size_t wl = (size_t)snprintf(
                    want, sizeof want, "%s: the file shrank while it was being read (byte ", name);
                char *end = NULL;
                unsigned long long byte =
                    strncmp(s.err, want, wl) == 0 ? strtoull(s.err + wl, &end, 10) : 0;
                int ok = rc == -1 && end != NULL && strcmp(end, " is gone): no result") == 0 &&
                         byte >= (unsigned long long)cut && byte < n;
                if (!ok)
                    fprintf(stderr, "  shape %d, mode %d (cut at %lld): rc %d, '%s'\n", shape, mode,
                            (long long)cut, rc, s.err);
                failed += !ok;
                runs++;
                scan_free(&s);
                for (int m = 0; m < nr; m++) {
                    scan_path_free(&rules[m].path);
                    free(rules[m].tent);
                }
                stats_free(&st[0]);
                stats_free(&st[1]);
                for (int k = 0; k < nfields; k++)
                    scan_path_free(&fields[k].path);
            }
        }
        CHECK(failed == 0 && runs == 33); /* 10 shapes, 3 of them with records */
        unlink(path);
    }

    TEST("each read of a regular file lands at its offset's place in a 64-byte line")
    {
        /* the kernel copies a read 3-4x slower when its destination is 1-15 bytes off
           its source's place in a line; the bytes kept from a cut token used to go to
           the window's start, a few bytes off at nearly every read. shrink_doc's
           records (256 KiB), read 1000, 4093 and 128 Ki bytes at a time: after every
           read the window's end is at fgot's place (mod 64) at every record */
        static char doc[256u << 10];
        size_t n = shrink_doc(2, doc, sizeof doc);
        const char *path = scratch;
        test_write_file(path, doc, n);
        static const size_t reads[] = {1000, 4093, 0};
        for (size_t k = 0; k < sizeof reads / sizeof *reads; k++) {
            Stats st[2];
            stats_init(&st[0], 0);
            stats_init(&st[1], 0);
            ScanRule rules[2];
            ScanField fields[3];
            int nfields;
            int nr = shrink_rules(2, rules, fields, &nfields, st);
            unsigned seen[2] = {0, 0};
            Scanner s;
            scan_init(&s, "t.json", SCAN_JSON);
            CHECK(scan_open_path(&s, path) == 0 && s.fsize == n);
            s.read_max = reads[k];
            s.rules = rules;
            s.nrules = nr;
            s.fields = fields;
            s.nfields = nfields;
            s.on_record = lined_up_on_record;
            s.ud = seen;
            int rc = scan_run(&s);
            if (rc != 0 || seen[1] != 0)
                fprintf(stderr, "  reads of %zu: rc %d '%s', %u of %u records off the line\n",
                        reads[k], rc, s.err, seen[1], seen[0]);
            CHECK(rc == 0 && seen[0] > 1000 && seen[1] == 0);
            scan_free(&s);
            scan_path_free(&rules[0].path);
            free(rules[0].tent);
            stats_free(&st[0]);
            stats_free(&st[1]);
            for (int f = 0; f < nfields; f++)
                scan_path_free(&fields[f].path);
        }
    }

    TEST("a file that grew after it was opened: the bytes it had then")
    {
        /* read to its size at open: "[1, 2]" sums to 3 and "y\n1\n2\n3\n4\n" to 10 (by
           hand) whatever is appended before the scan; read to its new end, the JSON would
           fail ("[1, 2], 4]") and the CSV sum to 15. The CSV also in 2 parts (parallel_min
           1; the cut after "3\n", at byte 8 of 10, by hand) */
        static const char *const docs[2][2] = {
            {"[1, 2]",          ", 4]"},
            {"y\n1\n2\n3\n4\n", "5\n" }
        };
        for (int k = 0; k < 3; k++) {
            int csv = k > 0, parts = k == 2;
            test_write_file(scratch, docs[csv][0], strlen(docs[csv][0]));
            Scanner s;
            scan_init(&s, "t", csv ? SCAN_CSV : SCAN_JSON);
            CHECK(scan_open_path(&s, scratch) == 0 && s.fsize > 0);
            FILE *f = fopen(scratch, "ab");
            CHECK(f != NULL && fputs(docs[csv][1], f) >= 0 && fclose(f) == 0);
            Stats st;
            ScanRule rule;
            char err[64];
            CHECK(test_stats_rule(&rule, &st, s.format, csv ? "y" : "$[*]", err, sizeof err) == 0);
            s.rules = &rule;
            s.nrules = 1;
            s.threads = parts ? 2 : 1;
            s.par_min = 1;
            int rc = scan_run(&s);
            if (rc != 0)
                fprintf(stderr, "  %s%s: %s\n", csv ? "CSV" : "JSON", parts ? " in parts" : "",
                        s.err);
            CHECK(rc == 0 && st.n == (csv ? 4u : 2u) && stats_sum(&st) == (csv ? 10 : 3));
            CHECK(s.par_parts == (parts ? 2 : 1));
            scan_free(&s);
            scan_path_free(&rule.path);
            stats_free(&st);
        }
    }

    unlink(scratch);
    return test_report();
}
