/*
** test_csvpar.c — a large CSV file scanned in parts at once (scan.c's csv_parallel: each
** part read into a window of its own with pread()) against the serial scan of the same
** file, which is the reference: the same return
** code and message, records and per-rule counts, and the accumulators bit for bit
** (every kept sample in file order, the compensated sum and its compensation, min,
** max, sortedness). The files are random: full-precision floats, integers, quoted text
** with separators, "" and line feeds (many near the cuts, so that a cut often falls
** inside a quoted field and the scan must fall back), CRLF, blank lines, a BOM, no
** final line end, bad cells (skipped, or the error), wrong row widths, read in pieces
** of every size so that rows cross the windows' ends. The size limit is lowered for
** them (par_min); the default one is checked on its own. A file cut before or while it
** is read gives the serial scan's message.
*/
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "scan.h"
#include "stats.h"
#include "testhelp.h"
#include "scanhelp.h"

static uint64_t seed = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(unsigned n)
{
    return test_rnd(&seed, n);
}

/* A random double as Python's repr writes it (17 significant digits), or an integer. */
static size_t random_value(char *out)
{
    if (rnd(4) == 0)
        return (size_t)sprintf(out, "%u", rnd(100000));
    double x = (double)rnd(1u << 30) / (double)(1u << 20) * pow(10, (int)rnd(7) - 3);
    return (size_t)sprintf(out, "%.17g", rnd(10) == 0 ? -x : x);
}

/* Quoted text: separators, "" and line feeds (LF or CRLF) among letters. */
static size_t random_quoted(char *out, int crlf)
{
    size_t n = 0;
    out[n++] = '"';
    unsigned len = rnd(30);
    for (unsigned i = 0; i < len; i++) {
        unsigned k = rnd(12);
        if (k == 0)
            n += (size_t)sprintf(out + n, "%s", crlf ? "\r\n" : "\n");
        else if (k == 1)
            n += (size_t)sprintf(out + n, "\"\"");
        else if (k == 2)
            out[n++] = ',';
        else
            out[n++] = (char)('a' + rnd(26));
    }
    out[n++] = '"';
    return n;
}

typedef struct Shape {
    int crlf, bom, last_nl, quoted_pct, bad_cell, bad_width, blank_pct;
} Shape;

/* A CSV with columns a, b, t (text), c, d: rows of numbers, t often quoted. */
static size_t random_csv(char *doc, size_t cap, int rows, const Shape *sh)
{
    const char *nl = sh->crlf ? "\r\n" : "\n";
    size_t n = 0;
    if (sh->bom)
        n += (size_t)sprintf(doc, "\xEF\xBB\xBF");
    n += (size_t)sprintf(doc + n, "a,b,t,c,d%s", nl);
    for (int r = 0; r < rows && n + 512 < cap; r++) {
        for (int c = 0; c < 5; c++) {
            if (c > 0)
                doc[n++] = ',';
            if (c == 2)
                n += (int)rnd(100) < sh->quoted_pct ? random_quoted(doc + n, sh->crlf)
                                                    : (size_t)sprintf(doc + n, "x%u", rnd(99));
            else if (sh->bad_cell && rnd((unsigned)rows * 4) == 0)
                n += (size_t)sprintf(doc + n, "1.5x");
            else
                n += random_value(doc + n);
        }
        if (sh->bad_width && rnd((unsigned)rows) == 0)
            n += (size_t)sprintf(doc + n, ",9");
        if ((int)rnd(100) < sh->blank_pct)
            n += (size_t)sprintf(doc + n, "%s", nl);
        if (r + 1 < rows || sh->last_nl)
            n += (size_t)sprintf(doc + n, "%s", nl);
    }
    return n;
}

#define NR 4
static const char *const COLS[NR] = {"a", "b", "c", "d"};

/* What a scan gave. */
typedef struct Outcome {
    int rc, parts;
    uint64_t refills;
    char err[512];
    uint64_t records, matched[NR], skipped[NR];
    Stats st[NR];
} Outcome;

/* What scan_file does besides: reads read_max bytes at a time (0: the default); when
   cut_at_cuts, once the parts' cuts are known, cuts the file to cut[cut_part] + cut_plus
   (cut_part np or more: the end; -1: the middle of the last part), as another program
   rewriting it would. */
typedef struct Extra {
    size_t read_max;
    int cut_at_cuts, cut_part;
    long long cut_plus;
    const char *path;
    uint64_t cut_to; /* (where it was cut) */
    int np;          /* (into how many parts) */
} Extra;
static Extra extra;

static void cut_on_cuts(Scanner *s, const uint64_t *cut, int np)
{
    (void)s;
    extra.np = np;
    int k = extra.cut_part < np ? extra.cut_part : np;
    if (extra.cut_part < 0)
        extra.cut_to = cut[np - 1] + (cut[np] - cut[np - 1]) / 2;
    else
        extra.cut_to = (uint64_t)((long long)cut[k] + extra.cut_plus);
    if (truncate(extra.path, (off_t)extra.cut_to) != 0)
        extra.cut_to = UINT64_MAX;
}

/*
** path scanned for nrules of the columns a, b, c, d (skip: with skip = true), each into
** an exact accumulator that holds `before` samples first; threads 1 is the serial scan;
** with extra's settings.
*/
static void scan_file(const char *path, int nrules, int skip, int threads, size_t par_min,
                      int portable, int before, Outcome *o)
{
    ScanRule rules[NR];
    memset(o, 0, sizeof *o);
    memset(rules, 0, sizeof rules);
    for (int m = 0; m < nrules; m++) {
        char err[64];
        CHECK(test_stats_rule(&rules[m], &o->st[m], SCAN_CSV, COLS[m], err, sizeof err) == 0);
        o->st[m].portable = portable;
        for (int i = 0; i < before; i++)
            (void)stats_add(&o->st[m], 1000.25 + i);
        rules[m].skip_bad = skip;
    }
    Scanner s;
    scan_init(&s, "t.csv", SCAN_CSV);
    if (scan_open_path(&s, path) != 0) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    s.rules = rules;
    s.nrules = nrules;
    s.threads = threads;
    s.par_min = par_min;
    s.portable = portable;
    s.read_max = extra.read_max;
    if (extra.cut_at_cuts) {
        extra.path = path;
        s.on_cuts = cut_on_cuts;
    }
    o->rc = scan_run(&s);
    o->parts = s.par_parts;
    o->refills = s.refills;
    snprintf(o->err, sizeof o->err, "%s", o->rc ? s.err : "");
    o->records = s.records;
    for (int m = 0; m < nrules; m++) {
        o->matched[m] = rules[m].matched;
        o->skipped[m] = rules[m].skipped;
        scan_path_free(&rules[m].path);
    }
    scan_free(&s);
}

static void outcome_free(Outcome *o, int nrules)
{
    for (int m = 0; m < nrules; m++)
        stats_free(&o->st[m]);
}

static int same_bits(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0;
}

/* sample i of s as a double, however s keeps it (4 or 8 bytes: stats.h, f32) */
static double sample_at(const Stats *s, size_t i)
{
    double d;
    stats_samples(s, i, 1, &d);
    return d;
}

/* the samples of x and y the same, bit for bit (whichever way each keeps them) */
static int same_samples(const Stats *x, const Stats *y)
{
    for (size_t i = 0; i < x->n; i++)
        if (!same_bits(sample_at(x, i), sample_at(y, i)))
            return 0;
    return 1;
}

/* a and b the same: 0, else a line saying where they differ. */
static int same_outcome(const Outcome *a, const Outcome *b, int nrules, const char *what)
{
    const char *diff = NULL;
    if (a->rc != b->rc || strcmp(a->err, b->err) != 0)
        diff = "rc or message";
    else if (a->rc == 0 && a->records != b->records)
        diff = "records";
    for (int m = 0; m < nrules && diff == NULL; m++) {
        const Stats *x = &a->st[m], *y = &b->st[m];
        if (a->rc == 0 && (a->matched[m] != b->matched[m] || a->skipped[m] != b->skipped[m]))
            diff = "matched or skipped";
        else if (x->n != y->n || x->n_pinf != y->n_pinf || x->n_ninf != y->n_ninf)
            diff = "count";
        else if (!same_samples(x, y))
            diff = "samples (in file order)";
        else if (!same_bits(x->sum, y->sum) || !same_bits(x->comp, y->comp))
            diff = "compensated sum";
        else if (!same_bits(x->min, y->min) || !same_bits(x->max, y->max))
            diff = "min or max";
        else if (x->sorted != y->sorted)
            diff = "sortedness";
    }
    if (diff != NULL)
        fprintf(stderr, "%s: %s differ (serial: rc %d '%s'; parts: rc %d '%s')\n", what, diff,
                a->rc, a->err, b->rc, b->err);
    return diff == NULL;
}

int main(void)
{
    char path[64]; /* in memory if it can be: 64 MiB are written */
    if (test_temp_file(path, sizeof path, "/dev/shm/llmdlua-test-csvpar-XXXXXX") != 0 &&
        test_temp_file(path, sizeof path, "/tmp/llmdlua-test-csvpar-XXXXXX") != 0)
        return 2;
    static char doc[1 << 20];

    TEST("random CSVs in 2, 3 and 4 parts: the serial scan's outcome bit for bit")
    {
        /* each document once serially, then in 2, 3 and 4 parts (par_min 1: any size),
           SSE2/AVX2 and plain C, read 128 KiB at a time (the default) or, every other
           document, in pieces of 1 to 61 bytes (small documents), 512 to 3511 or 4096
           to 12287, so that rows cross the ends of every part's window; counted: how
           many went through in parts and how many fell back (a cut inside a quoted
           field, an error), both must happen */
        int bad = 0, in_parts = 0, fell_back = 0, failed = 0;
        for (int d = 0; d < 400; d++) {
            Shape sh;
            sh.crlf = rnd(3) == 0;
            sh.bom = rnd(4) == 0;
            sh.last_nl = rnd(3) != 0;
            sh.quoted_pct = d % 4 == 0 ? 0 : d % 4 == 1 ? 2 : d % 4 == 2 ? 20 : 60;
            sh.bad_cell = rnd(6) == 0;
            sh.bad_width = rnd(10) == 0;
            sh.blank_pct = rnd(3) == 0 ? 5 : 0;
            int rows = d < 40 ? (int)rnd(8) : 50 + (int)rnd(3000);
            size_t n = random_csv(doc, sizeof doc, rows, &sh);
            test_write_file(path, doc, n);
            int nrules = 1 + (int)rnd(NR), skip = rnd(2), before = rnd(3) == 0 ? 3 : 0;
            int portable = rnd(4) == 0;
            size_t piece = d < 40 ? 1 + (size_t)d % 61 : 512 + (size_t)d * 37 % 3000;
            extra.read_max = d % 4 == 1 ? piece : d % 4 == 3 ? 4096 + (size_t)d * 37 % 8192 : 0;
            Outcome serial;
            scan_file(path, nrules, skip, 1, 1, portable, before, &serial);
            failed += serial.rc != 0;
            for (int threads = 2; threads <= 4; threads++) {
                Outcome par;
                scan_file(path, nrules, skip, threads, 1, portable, before, &par);
                char what[64];
                snprintf(what, sizeof what, "document %d, %d threads", d, threads);
                bad += !same_outcome(&serial, &par, nrules, what);
                in_parts += par.parts > 1;
                fell_back += par.parts == 1;
                CHECK(par.parts <= threads);
                outcome_free(&par, nrules);
            }
            outcome_free(&serial, nrules);
        }
        extra.read_max = 0;
        CHECK(bad == 0);
        CHECK(in_parts > 300 && fell_back > 100 && failed > 20);
        fprintf(stderr, "(%d scans in parts, %d fell back; %d documents fail)\n", in_parts,
                fell_back, failed);
    }

    TEST("a quoted field with line feeds across the cut: the serial result, not in parts")
    {
        /* 2000 rows "i,i,xi,i,i"; row 1001's text is one quoted field of 2000 lines
           "1,2,x,3,4" (20 KB: rows, were it not for the quotes) in the middle of the
           file, where the cut into 2 parts lands. By hand: 2000 records, a's sum
           2000 * 2001 / 2 = 2001000. */
        size_t n = (size_t)sprintf(doc, "a,b,t,c,d\n");
        for (int i = 1; i <= 2000; i++) {
            if (i != 1001) {
                n += (size_t)sprintf(doc + n, "%d,%d,x%d,%d,%d\n", i, i, i, i, i);
                continue;
            }
            n += (size_t)sprintf(doc + n, "%d,%d,\"", i, i);
            for (int k = 0; k < 2000; k++)
                n += (size_t)sprintf(doc + n, "1,2,x,3,4\n");
            n += (size_t)sprintf(doc + n, "\",%d,%d\n", i, i);
        }
        double sum = 2001000;
        int records = 2000;
        test_write_file(path, doc, n);
        Outcome serial, par;
        scan_file(path, 1, 0, 1, 1, 0, 0, &serial);
        scan_file(path, 1, 0, 2, 1, 0, 0, &par);
        CHECK(serial.rc == 0 && serial.records == (uint64_t)records);
        CHECK(stats_sum(&serial.st[0]) == sum);
        CHECK(same_outcome(&serial, &par, 1, "quoted across the cut"));
        CHECK(par.parts == 1); /* the first part ended inside the quotes: serial */
        outcome_free(&serial, 1);
        outcome_free(&par, 1);
        /* the same rows without the quote: in 2 parts */
        n = (size_t)sprintf(doc, "a,b,t,c,d\n");
        for (int i = 1; i <= 2000; i++)
            n += (size_t)sprintf(doc + n, "%d,%d,x%d,%d,%d\n", i, i, i, i, i);
        test_write_file(path, doc, n);
        scan_file(path, 1, 0, 2, 1, 0, 0, &par);
        CHECK(par.rc == 0 && par.parts == 2 && par.records == 2000);
        CHECK(stats_sum(&par.st[0]) == 2001000); /* 2000 * 2001 / 2, by hand */
        outcome_free(&par, 1);
    }

    TEST("a bad cell in the last part: the serial message, its line, accumulators restored")
    {
        /* 3000 rows of "i,1.5"; row 2500 (line 2501) has b = "2.5x". Both scans fail
           with the same message at line 2501 column 9 (by hand: "2500,2.5" is 8 bytes); the
           accumulators hold what the serial scan left in them (the 3 samples from
           before, then the rows up to the error; lscan.c puts them back): had the first
           part's samples not been taken out before the fallback, they would be there
           twice */
        size_t n = (size_t)sprintf(doc, "a,b,t,c,d\n");
        for (int i = 1; i <= 3000; i++)
            n += (size_t)sprintf(doc + n, "%d,%s,x,1,1\n", i, i == 2500 ? "2.5x" : "1.5");
        test_write_file(path, doc, n);
        for (int threads = 2; threads <= 4; threads++) {
            Outcome serial, par;
            scan_file(path, 2, 0, 1, 1, 0, 3, &serial);
            scan_file(path, 2, 0, threads, 1, 0, 3, &par);
            CHECK(same_outcome(&serial, &par, 2, "bad cell"));
            CHECK_STR(par.err, "t.csv:2501:9: column 'b': expected a number, found '2.5x' (byte "
                               "'x' cannot be part of a number)");
            CHECK(par.parts == 1 && par.st[1].n >= 3 && par.st[1].n < 3 + 2500);
            outcome_free(&serial, 2);
            outcome_free(&par, 2);
        }
    }

    TEST("a file that shrank after it was opened: the serial scan's message, no result")
    {
        /* 3000 rows "i,1.25,x,1,1": 46903 bytes (by hand: 10 of header, 12 a row and
           10893 digits), opened, then cut before the scan, anywhere (to nothing, inside
           the header, inside a row, at a row's end, at the cuts into 2 or 3 parts near
           1/2, 1/3 and 2/3 of the file, one byte short of the end): read with pread(),
           a part meets the end before its own, the parts give way, and the serial scan
           says which byte is gone first, the cut; the accumulator holds what it held */
        size_t n = (size_t)sprintf(doc, "a,b,t,c,d\n");
        for (int i = 1; i <= 3000; i++)
            n += (size_t)sprintf(doc + n, "%d,1.25,x,1,1\n", i);
        CHECK(n == 46903);
        /* the cuts into 2 parts: 23463; into 3: 15655 and 31287; a row ends at 3997
           (Python: the first line feed after 10 + 46893 // np * k, plus 1) */
        static const size_t cuts[] = {0, 5, 4000, 3997, 15655, 23463, 31287, 46902};
        for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
            for (int threads = 1; threads <= 3; threads++) {
                char want[128];
                snprintf(want, sizeof want,
                         "t.csv: the file shrank while it was being read (byte %zu is gone): "
                         "no result",
                         cuts[c]);
                test_write_file(path, doc, n);
                TestScan t;
                char err[64];
                CHECK(test_one_rule(&t, "t.csv", SCAN_CSV, "b", err, sizeof err) == 0);
                (void)stats_add(&t.st, 7);
                CHECK(scan_open_path(&t.s, path) == 0 && t.s.fsize == n);
                CHECK(truncate(path, (off_t)cuts[c]) == 0);
                t.s.threads = threads;
                t.s.par_min = 1;
                CHECK(scan_run(&t.s) == -1 && t.s.par_parts == 1);
                CHECK_STR(t.s.err, want);
                CHECK(t.st.n >= 1 && sample_at(&t.st, 0) == 7); /* (lscan.c puts the rest back) */
                test_one_rule_free(&t);
            }
        }
    }

    TEST("a file cut between the parts' cuts and their reads: the serial scan's message")
    {
        /* the file of the test above, in 2 or 3 parts, each read in pieces of 4 KiB or
           128 KiB; once the cuts are known (on_cuts), the file is cut: at the second
           part's start (the first reads to its end, the next finds nothing), a byte
           before it (inside the first part's last row), 3 bytes after it, in the middle
           of the last part, one byte short of the end. The scan falls back to the
           serial one, whose message names the cut; the 3 samples from before are
           still there, the first part's rows are not kept twice (the serial scan adds
           them again: restored, then added once up to the end) */
        size_t n = (size_t)sprintf(doc, "a,b,t,c,d\n");
        for (int i = 1; i <= 3000; i++)
            n += (size_t)sprintf(doc + n, "%d,1.25,x,1,1\n", i);
        struct {
            int part;
            long long plus;
        } const at[] = {
            {1,  0 },
            {1,  -1},
            {1,  3 },
            {-1, 0 },
            {9,  -1}
        };
        int runs = 0;
        for (size_t a = 0; a < sizeof at / sizeof *at; a++) {
            for (int k = 0; k < 4; k++) {
                int threads = 2 + k % 2;
                test_write_file(path, doc, n);
                extra.cut_at_cuts = 1;
                extra.cut_part = at[a].part;
                extra.cut_plus = at[a].plus;
                extra.read_max = k < 2 ? 4096 : 0;
                extra.cut_to = UINT64_MAX;
                extra.np = 0;
                Outcome o;
                scan_file(path, 2, 0, threads, 1, 0, 3, &o);
                extra.cut_at_cuts = 0;
                extra.read_max = 0;
                char want[128];
                snprintf(want, sizeof want,
                         "t.csv: the file shrank while it was being read (byte %llu is gone): "
                         "no result",
                         (unsigned long long)extra.cut_to);
                int ok = extra.np == threads && extra.cut_to < n && o.rc == -1 && o.parts == 1 &&
                         strcmp(o.err, want) == 0 && o.st[0].n >= 3 && o.st[0].n <= 3 + 3000;
                if (!ok)
                    fprintf(stderr, "  cut %zu, %d threads: %d parts, cut to %llu: rc %d '%s'\n", a,
                            threads, extra.np, (unsigned long long)extra.cut_to, o.rc, o.err);
                CHECK(ok);
                /* the accumulators: the 3 samples from before, then at most every row once */
                for (int i = 0; i < 3; i++)
                    CHECK(sample_at(&o.st[0], i) == 1000.25 + i &&
                          sample_at(&o.st[1], i) == 1000.25 + i);
                for (size_t i = 3; i < o.st[0].n; i++)
                    CHECK(sample_at(&o.st[0], i) == (double)(i - 2) &&
                          sample_at(&o.st[1], i) == 1.25);
                outcome_free(&o, 2);
                runs++;
            }
        }
        CHECK(runs == 20);
    }

    TEST("each part reads its own window: rows across its ends, as many reads as pieces")
    {
        /* 3000 rows "i,1.25,x,1,1" (46903 bytes) in 2 parts read 1000 bytes at a time: the
           rows (12 to 15 bytes) cross the windows' ends in both parts; the samples are the
           serial scan's; each part's window is filled 1000 bytes at a time (the header's
           pass is not counted): the parts are bytes [0, 23463) and [23463, 46903)
           (Python, as above), 24 refills each, the last finding the part's end */
        size_t n = (size_t)sprintf(doc, "a,b,t,c,d\n");
        for (int i = 1; i <= 3000; i++)
            n += (size_t)sprintf(doc + n, "%d,1.25,x,1,1\n", i);
        test_write_file(path, doc, n);
        extra.read_max = 1000;
        Outcome serial, par;
        scan_file(path, 2, 0, 1, 1, 0, 0, &serial);
        scan_file(path, 2, 0, 2, 1, 0, 0, &par);
        extra.read_max = 0;
        CHECK(serial.rc == 0 && par.rc == 0 && par.parts == 2 && par.records == 3000);
        CHECK(same_outcome(&serial, &par, 2, "read 1000 bytes at a time"));
        CHECK(stats_sum(&par.st[0]) == 4501500); /* 3000 * 3001 / 2, by hand */
        CHECK(par.refills == 48);
        outcome_free(&serial, 2);
        outcome_free(&par, 2);
    }

    TEST("tiny files, a header alone, a sketch, one accumulator for two columns: serial")
    {
        Outcome o;
        test_write_file(path, "a,b,t,c,d\n", 10);
        scan_file(path, 2, 0, 2, 1, 0, 0, &o);
        CHECK(o.rc == 0 && o.parts == 1 && o.records == 0 && o.st[0].n == 0);
        outcome_free(&o, 2);
        test_write_file(path, "a,b,t,c,d\n1,2,x,3,4\n", 20);
        scan_file(path, 2, 0, 2, 1, 0, 0, &o);
        CHECK(o.rc == 0 && o.parts == 1 && o.records == 1 && stats_sum(&o.st[1]) == 2);
        outcome_free(&o, 2);
        /* 3000 rows, but below the default size limit (64 MiB): serial */
        size_t n = (size_t)sprintf(doc, "a,b,t,c,d\n");
        for (int i = 1; i <= 3000; i++)
            n += (size_t)sprintf(doc + n, "%d,1,x,1,1\n", i);
        test_write_file(path, doc, n);
        scan_file(path, 1, 0, 2, 0, 0, 0, &o);
        CHECK(o.rc == 0 && o.parts == 1 && stats_sum(&o.st[0]) == 4501500); /* 3000*3001/2 */
        outcome_free(&o, 1);
        scan_file(path, 1, 0, 2, 1, 0, 0, &o); /* the same file, the limit lowered */
        CHECK(o.rc == 0 && o.parts == 2 && stats_sum(&o.st[0]) == 4501500);
        outcome_free(&o, 1);
        scan_file(path, 3, 0, 64, 1, 0, 0, &o); /* 8 parts at most */
        CHECK(o.rc == 0 && o.parts == 8 && stats_sum(&o.st[0]) == 4501500 && o.st[2].n == 3000);
        outcome_free(&o, 3);

        /* a sketch, and one accumulator for two columns: serial */
        Stats sk, one;
        stats_init(&sk, 0.01);
        stats_init(&one, 0);
        for (int k = 0; k < 2; k++) {
            ScanRule rules[2];
            memset(rules, 0, sizeof rules);
            for (int m = 0; m < 2; m++) {
                CHECK(scan_path_column(COLS[m], &rules[m].path) == 0);
                rules[m].sink = SINK_STATS;
                rules[m].stats = k == 0 ? &sk : &one;
            }
            Scanner s;
            scan_init(&s, "t.csv", SCAN_CSV);
            CHECK(scan_open_path(&s, path) == 0 && s.fsize == n);
            s.rules = rules;
            s.nrules = k == 0 ? 1 : 2;
            s.threads = 2;
            s.par_min = 1;
            CHECK(scan_run(&s) == 0 && s.par_parts == 1);
            scan_free(&s);
            for (int m = 0; m < 2; m++)
                scan_path_free(&rules[m].path);
        }
        CHECK(sk.n == 3000 && one.n == 6000 && stats_sum(&one) == 4501500 + 3000);
        stats_free(&sk);
        stats_free(&one);
    }

    TEST("the default size limit: 64 MiB and more in parts, less serially")
    {
        /* rows of 256 bytes: "i," then 253 x's and a line feed; column a only */
        static char row[300];
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        fputs("a,t\n", f);
        size_t n = 4, rows = 0;
        double sum = 0;
        while (n < SCAN_PAR_MIN) {
            int k = sprintf(row, "%zu,", rows % 1000);
            memset(row + k, 'x', (size_t)(255 - k));
            row[255] = '\n';
            fwrite(row, 1, 256, f);
            sum += (double)(rows % 1000);
            n += 256;
            rows++;
        }
        fclose(f);
        Outcome o;
        scan_file(path, 1, 0, 2, 0, 0, 0, &o);
        CHECK(o.rc == 0 && o.parts == 2 && o.records == rows && stats_sum(&o.st[0]) == sum);
        outcome_free(&o, 1);
        CHECK(truncate(path, (off_t)(n - 256)) == 0); /* one row less: under the limit */
        scan_file(path, 1, 0, 2, 0, 0, 0, &o);
        CHECK(o.rc == 0 && o.parts == 1 && o.records == rows - 1);
        outcome_free(&o, 1);
    }

    unlink(path);
    return test_report();
}
