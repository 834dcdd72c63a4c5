/*
** test_prom.c — the Prometheus core: histogram_quantile on hand-computed cases (the
** algorithm as Prometheus documents it), strict and tolerant parsing, and series
** identity independent of label order.
*/
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"
#include "testhelp.h"

static int count_fn(void *ud, const PromSample *s)
{
    (void)s;
    (*(int *)ud)++;
    return 0;
}

static int value_fn(void *ud, const PromSample *s)
{
    *(double *)ud = s->value;
    return 0;
}

/* ---- the pod cache against the full parse ------------------------------------- */

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static unsigned rnd(unsigned n)
{
    return test_rnd(&rng, n);
}

/* A value as exporters write it: 12, 12.0, 12.000000000000002, 1.2e+01... */
static void put_value(char *out, size_t cap, double v)
{
    switch (rnd(5)) {
    case 0:
        (void)snprintf(out, cap, "%.0f", v);
        break;
    case 1:
        (void)snprintf(out, cap, "%.1f", v);
        break;
    case 2:
        (void)snprintf(out, cap, "%.17g", v * 1.0000000000000002);
        break;
    case 3:
        (void)snprintf(out, cap, "%.3e", v);
        break;
    default:
        (void)snprintf(out, cap, "%g", v);
    }
}

#define MAXL 64

/*
** Scrape step of a pod: vLLM-like families in a fixed order, values rising (now and then
** a reset, a moving _created), and with odds in mutate percent the changes a cache must
** notice: reordered, dropped, duplicated, relabelled and new lines, NaN and infinities,
** timestamps, CRLF, extra blanks, tabs, another HELP text, # EOF, and malformed lines.
** With sticky, the changes are drawn the same for every scrape of the pod (a bad line
** that stays where it is, scrape after scrape).
*/
static size_t make_scrape(char *out, size_t cap, int pod, int step, int mutate, unsigned sticky)
{
    static const char *const base[] = {
        "# HELP c_total Requests.",
        "# TYPE c_total counter",
        "c_total{e=\"0\",m=\"x\"} C",
        "c_total{e=\"1\",m=\"x\"} C",
        "# TYPE c_created gauge",
        "c_created{e=\"0\",m=\"x\"} T",
        "c_created{e=\"1\",m=\"x\"} T",
        "# HELP g A gauge.",
        "# TYPE g gauge",
        "g{e=\"0\"} G",
        "# TYPE h histogram",
        "h_bucket{le=\"0.1\"} B",
        "h_bucket{le=\"1\"} B",
        "h_bucket{le=\"+Inf\"} B",
        "h_sum C",
        "h_count B",
        "h_created T",
        "# TYPE s summary",
        "s{quantile=\"0.5\"} G",
        "s_sum C",
        "s_count C",
        "u G",
    };
    char lines[MAXL][200];
    int n = 0;
    double scale = step < 6 || pod == 1 ? 1 : 0.25; /* pod 0 restarts at step 6 */
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        const char *b = base[i];
        size_t bl = strlen(b);
        if (b[0] == '#' ||
            (b[bl - 1] != 'C' && b[bl - 1] != 'G' && b[bl - 1] != 'B' && b[bl - 1] != 'T')) {
            (void)snprintf(lines[n++], sizeof lines[0], "%s", b);
            continue;
        }
        char v[64];
        char kind = b[bl - 1];
        double x = kind == 'C'   ? scale * (100.0 * step + 7 * (double)i)
                   : kind == 'B' ? scale * (10.0 * step + (double)i)
                   : kind == 'T' ? (pod == 0 && step >= 6 ? 1700000900.0 : 1700000000.0)
                                 : (double)rnd(1000) / 8;
        put_value(v, sizeof v, x);
        (void)snprintf(lines[n++], sizeof lines[0], "%.*s%s", (int)(bl - 1), b, v);
    }
    uint64_t saved = rng;
    if (sticky)
        rng = 0x2545F4914F6CDD1DULL * (sticky + (unsigned)pod);
    for (int m = 0; m < 14; m++) {
        if ((int)rnd(100) >= mutate)
            continue;
        int k = (int)rnd((unsigned)n);
        char *l = lines[k];
        char tmp[200];
        switch (m) {
        case 0: /* two lines change places */
            if (k + 1 < n) {
                memcpy(tmp, l, sizeof tmp);
                memcpy(l, lines[k + 1], sizeof tmp);
                memcpy(lines[k + 1], tmp, sizeof tmp);
            }
            break;
        case 1: /* a line disappears */
            memmove(lines[k], lines[k + 1], (size_t)(n - k - 1) * sizeof lines[0]);
            n--;
            break;
        case 2: /* a line appears twice */
            if (n < MAXL) {
                memmove(lines[k + 1], lines[k], (size_t)(n - k) * sizeof lines[0]);
                n++;
            }
            break;
        case 3: /* a label changes its value */
        {
            char *q = strstr(l, "m=\"x\"");
            if (q != NULL)
                q[3] = 'y';
            break;
        }
        case 4: /* a new series, with or without its # TYPE */
            if (n + 2 <= MAXL) {
                memmove(lines[k + 2], lines[k], (size_t)(n - k) * sizeof lines[0]);
                n += 2;
                (void)snprintf(lines[k], sizeof lines[0], "# TYPE new%d_total %s", step % 3,
                               rnd(2) ? "counter" : "gauge");
                (void)snprintf(lines[k + 1], sizeof lines[0], "new%d_total{k=\"%u\"} %d", step % 3,
                               rnd(3), 5 * step);
            }
            break;
        case 5: /* NaN, +Inf, -Inf */
        case 6: /* a timestamp */
        case 7: /* CRLF, or a blank at the end */
        case 8: /* two blanks or a tab before the value */
        {
            char *sp = l[0] == '#' ? NULL : strrchr(l, ' ');
            if (sp == NULL)
                break;
            static const char *const odd[] = {"NaN", "+Inf", "-Inf"};
            size_t room = sizeof lines[0] - (size_t)(sp - l);
            if (m == 5)
                (void)snprintf(sp + 1, room - 1, "%s", odd[rnd(3)]);
            else if (m == 6)
                (void)strcat(l, " 1700000000000");
            else if (m == 7)
                (void)strcat(l, rnd(2) ? "\r" : " ");
            else {
                (void)snprintf(tmp, 64, "%s", sp + 1);
                (void)snprintf(sp, room, "%s%s", rnd(2) ? "  " : "\t", tmp);
            }
            break;
        }
        case 9: /* another HELP text */
            (void)snprintf(l, sizeof lines[0], "# HELP g Step %d.", step);
            break;
        case 10: /* the end */
            if (rnd(4) == 0)
                (void)snprintf(l, sizeof lines[0], "# EOF");
            break;
        case 11: /* a value that is no number */
        {
            char *sp = l[0] == '#' ? NULL : strrchr(l, ' ');
            if (sp != NULL)
                (void)strcat(sp, "x");
            break;
        }
        case 12: /* a label left open */
        {
            char *q = strchr(l, '}');
            if (q != NULL && l[0] != '#')
                *q = ' ';
            break;
        }
        default: /* a type nobody knows */
            if (l[0] == '#' && strncmp(l, "# TYPE", 6) == 0)
                (void)strcat(l, "x");
            break;
        }
    }
    if (sticky)
        rng = saved ^ rng;
    size_t o = (size_t)snprintf(out, cap, "# Timestamp: %d\n# Pod: p%d\n\n", step, pod);
    for (int i = 0; i < n && o < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s\n", lines[i]);
    return o < cap ? o : cap;
}

static int same_double(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0;
}

/* Do two aggregators hold the same series with the same numbers, bit for bit? */
static int same_agg(const PromAgg *a, const PromAgg *b)
{
    if (a->n != b->n || a->samples != b->samples || a->nan_samples != b->nan_samples ||
        a->dropped != b->dropped || a->scrapes != b->scrapes)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const PromSeries *x = &a->series[i], *y = &b->series[i];
        if (strcmp(x->pod, y->pod) || strcmp(x->name, y->name) || strcmp(x->labels, y->labels) ||
            x->type != y->type || x->counter_like != y->counter_like || x->samples != y->samples ||
            x->resets != y->resets || !same_double(x->first_t, y->first_t) ||
            !same_double(x->first_v, y->first_v) || !same_double(x->last_t, y->last_t) ||
            !same_double(x->last_v, y->last_v) || !same_double(x->min, y->min) ||
            !same_double(x->max, y->max) || !same_double(x->increase, y->increase) ||
            !same_double(x->tw_sum, y->tw_sum) || !same_double(x->tw_dur, y->tw_dur) ||
            (x->values == NULL) != (y->values == NULL) ||
            (x->values != NULL &&
             (x->values->n != y->values->n || !same_double(x->values->sum, y->values->sum))) ||
            !same_double(prom_increase(a, x), prom_increase(b, y)))
            return 0;
    }
    return 1;
}

int main(void)
{
    TEST("bucket quantiles: interpolation, the +Inf bucket, empty and mended buckets")
    {
        double le[] = {0.1, 0.5, 1.0, HUGE_VAL};
        double cum[] = {0, 4, 4, 5};
        /* rank 2.5 in (0.1, 0.5] holding 4: 0.1 + 0.4 * 2.5 / 4 */
        CHECK(fabs(prom_bucket_quantile(0.5, le, cum, 4) - 0.35) < 1e-15);
        CHECK(prom_bucket_quantile(0.95, le, cum, 4) == 1.0); /* in +Inf: highest bound */
        CHECK(prom_bucket_quantile(0, le, cum, 4) == 0.0);
        double c2[] = {2, 1, 6, 8}; /* a falling count is mended to 2: cum 2 2 6 8 */
        /* rank 0.5 * 8 = 4 in (0.5, 1] holding 4 (2..6): 0.5 + 0.5 * (4 - 2) / 4 */
        CHECK(fabs(prom_bucket_quantile(0.5, le, c2, 4) - 0.75) < 1e-15);
        double zero[] = {0, 0, 0, 0};
        CHECK(isnan(prom_bucket_quantile(0.5, le, zero, 4)));
        double inf_only[] = {HUGE_VAL}, c3[] = {3};
        CHECK(isnan(prom_bucket_quantile(0.5, inf_only, c3, 1)));
        double no_inf[] = {0.1, 0.5}, c4[] = {1, 2};
        CHECK(isnan(prom_bucket_quantile(0.5, no_inf, c4, 2)));
    }

    TEST("series by name: every series of a name in insertion order, queries between adds")
    {
        /* the truth is the plain scan (every series' name compared with strcmp) over the
           same aggregator: prom_agg_find's index must give the same indices in the same
           order. 3 pods x 120 names (the index's table grows past 64 and 128 slots), each
           name with 3 series one after another (as a histogram's buckets come) except
           every 7th name, whose series are apart (one now, one a scrape later); queried
           after each add, so the index is extended by the series made since. Names of 8
           prefixes: the slots a grown table gives them differ with their hashes. */
        static char text[120 * 3 * 40];
        int ok = 1;
        for (char pre = 'a'; pre < 'i' && ok; pre++) {
            PromAgg a;
            prom_agg_init(&a);
            for (int r = 0; r < 4 && ok; r++) {
                size_t o = 0;
                for (int m = 0; m < 120; m++)
                    for (int k = 0; k < (m % 7 == 0 ? 1 : 3); k++)
                        o += (size_t)snprintf(text + o, sizeof text - o, "%c%d{k=\"%d\"} %d\n", pre,
                                              m, m % 7 == 0 ? r : k, r);
                char pod[8];
                (void)snprintf(pod, sizeof pod, "p%d", r % 3);
                CHECK(prom_agg_add(&a, pod, text, o, 1000 + 15 * r, "f") == 0);
                for (int m = 0; m <= 120 && ok; m++) { /* (the 121st: no such name) */
                    char name[8];
                    (void)snprintf(name, sizeof name, "%c%d", pre, m);
                    size_t want[64], got[64], nw = 0;
                    for (size_t i = 0; i < a.n; i++)
                        if (strcmp(a.series[i].name, name) == 0 && nw < 64)
                            want[nw++] = i;
                    size_t ng = prom_agg_find(&a, name, got, 64);
                    ok = ng == nw && memcmp(got, want, nw * sizeof *got) == 0 &&
                         prom_agg_find(&a, name, NULL, 0) == nw && (m < 120 || nw == 0);
                    if (!ok)
                        fprintf(stderr, "after scrape %d, %s: %zu series, found %zu\n", r, name, nw,
                                ng);
                }
            }
            ok = ok && prom_agg_find(&a, "a", NULL, 0) == 0 && prom_agg_find(&a, "", NULL, 0) == 0;
            prom_agg_free(&a);
        }
        CHECK(ok);
        PromAgg e;
        prom_agg_init(&e);
        CHECK(prom_agg_find(&e, "a1", NULL, 0) == 0); /* nothing added */
        prom_agg_free(&e);
    }

    TEST("strict parsing stops at the first bad line; tolerant counts and goes on")
    {
        PromParser p;
        prom_parser_init(&p);
        int n = 0;
        const char *text = "a 1\nb{x=\"1\" 2\nc 3\n";
        CHECK(prom_parse(&p, text, strlen(text), count_fn, &n) == -1 && n == 1);
        CHECK(strncmp(p.err, "line 2: expected ',' or '}'", 27) == 0);
        p.tolerant = 1;
        n = 0;
        CHECK(prom_parse(&p, text, strlen(text), count_fn, &n) == 0 && n == 2 && p.skipped == 1);
        prom_parser_free(&p);
    }

    TEST("series identity ignores label order; increases handle resets")
    {
        PromAgg a;
        prom_agg_init(&a);
        const char *s1 = "# TYPE c_total counter\nc_total{a=\"1\",b=\"2\"} 10\n";
        const char *s2 = "# TYPE c_total counter\nc_total{b=\"2\",a=\"1\"} 4\n";
        const char *s3 = "# TYPE c_total counter\nc_total{a=\"1\",b=\"2\"} 6\n";
        CHECK(prom_agg_add(&a, "p", s1, strlen(s1), 0, "s1") == 0);
        CHECK(prom_agg_add(&a, "p", s2, strlen(s2), 15, "s2") == 0);
        CHECK(prom_agg_add(&a, "p", s3, strlen(s3), 30, "s3") == 0);
        CHECK(a.n == 1);
        /* 10 -> 4 (reset: +4) -> 6 (+2) */
        CHECK(a.series[0].resets == 1 && prom_increase(&a, &a.series[0]) == 6.0);
        char v[16];
        CHECK(prom_label(&a.series[0], "b", v, sizeof v) == 1 && strcmp(v, "2") == 0);
        CHECK(prom_agg_add(&a, "p", s3, strlen(s3), 30, "again") == -1);
        prom_agg_free(&a);
    }

    TEST("values: a NUL or any byte outside the number grammar is refused, with its column")
    {
        /* the case: strtod stopped at the NUL, read 1000000, and the counter's
           increase came out as 1,000,100 instead of 100 */
        PromAgg a;
        prom_agg_init(&a);
        static const char s1[] = "# TYPE c_total counter\nc_total 1000000\n";
        static const char s2[] = "# TYPE c_total counter\nc_total 1000000\0\0\0\0\0\0\0"
                                 "1000100\n";
        CHECK(prom_agg_add(&a, "p", s1, sizeof s1 - 1, 0, "s1") == 0);
        CHECK(prom_agg_add(&a, "p", s2, sizeof s2 - 1, 15, "s2") == -1);
        /* "c_total " is 8 bytes: the value starts at column 9, its 8th byte is the NUL */
        CHECK(strstr(a.err, "s2:line 2: invalid value '1000000\\x00") == a.err);
        CHECK(strstr(a.err, "byte '\\x00' at column 16 cannot be part of a number") != NULL);
        prom_agg_free(&a);

        /* every byte c in "x 1c5\n": a number only for a digit (1c5), '.' (1.5) and e/E
           (1e5); the values by hand */
        PromParser p;
        prom_parser_init(&p);
        for (int c = 0; c < 256; c++) {
            char text[8] = "x 1c5\n";
            text[3] = (char)c;
            double got = -1;
            int rc = prom_parse(&p, text, 6, value_fn, &got);
            if (c >= '0' && c <= '9')
                CHECK(rc == 0 && got == 105 + 10 * (c - '0'));
            else if (c == '.')
                CHECK(rc == 0 && got == 1.5);
            else if (c == 'e' || c == 'E')
                CHECK(rc == 0 && got == 1e5);
            else if (c == ' ' || c == '\t')
                CHECK(rc == 0 && got == 1); /* 5 is the timestamp */
            else if (c == '#')
                CHECK(rc == -1 && strstr(p.err, "invalid value '1#5'") != NULL);
            else if (c == '\n' || c == '\r')
                CHECK(rc == -1); /* a cut line "5" */
            else if (memchr("+-IinfNa", c, 8) != NULL)
                CHECK(rc == -1 && strstr(p.err, "cannot be part") == NULL);
            else
                CHECK(rc == -1 && strstr(p.err, "at column 4 cannot be part of a number") != NULL);
        }
        prom_parser_free(&p);
    }

    TEST("parsing stops when the interrupt flag is set, tolerant or not")
    {
        static volatile sig_atomic_t stop = 1;
        PromParser p;
        prom_parser_init(&p);
        p.interrupted = &stop;
        p.tolerant = 1;
        int n = 0;
        const char *text = "a 1\nb 2\n";
        CHECK(prom_parse(&p, text, strlen(text), count_fn, &n) == -1 && n == 0);
        CHECK_STR(p.err, "line 1: interrupted");
        stop = 0;
        CHECK(prom_parse(&p, text, strlen(text), count_fn, &n) == 0 && n == 2);
        prom_parser_free(&p);
    }

    TEST("the pod cache gives what the full parse gives: numbers, errors, skipped lines; "
         "in both of its compares")
    {
        /* 3 settings x 200 runs of 3 pods x 12 scrapes; the truth is the same aggregator
           reading every line in full (no_cache), as before the cache. Each run twice: with
           the cache's baseline lane (memcmp, the scalar whole_value), and with the lane
           prom_agg_init chose for this CPU (AVX2 where it has it: the same answers). */
        static char k1[] = "c", k2[] = "h_*";
        char *keep[] = {k1, k2};
        static char text[16384];
        uint64_t hits = 0, lines = 0, failed = 0, skipped = 0;
        for (int setting = 0; setting < 6; setting++)
            for (int run = 0; run < 200; run++) {
                PromAgg a, b;
                prom_agg_init(&a);
                prom_agg_init(&b);
                b.no_cache = 1;
                if (setting >= 3) /* the baseline lane */
                    a.wide = 0;
                if (run % 3 == 0) /* a budget that runs out in the first scrapes */
                    a.cache_max = 14000;
                a.parser.tolerant = b.parser.tolerant = setting % 3 == 1;
                if (setting % 3 == 2) {
                    a.match = b.match = keep;
                    a.nmatch = b.nmatch = 2;
                }
                int mutate = run < 20 ? 0 : run < 100 ? 3 : 12;
                int ok = 1;
                for (int step = 0; step < 12 && ok; step++)
                    for (int pod = 0; pod < 3 && ok; pod++) {
                        size_t len = make_scrape(text, sizeof text, pod, step, mutate,
                                                 run % 2 ? 0 : (unsigned)run + 1);
                        char pn[8];
                        (void)snprintf(pn, sizeof pn, "p%d", pod);
                        double t = 1000 + 15 * step;
                        int ra = prom_agg_add(&a, pn, text, len, t, "f");
                        int rb = prom_agg_add(&b, pn, text, len, t, "f");
                        ok = ra == rb && (ra == 0 || strcmp(a.err, b.err) == 0) &&
                             a.parser.skipped == b.parser.skipped &&
                             (a.parser.skipped == 0 ||
                              strcmp(a.parser.first_bad, b.parser.first_bad) == 0) &&
                             same_agg(&a, &b);
                        if (!ok)
                            fprintf(stderr, "setting %d run %d pod %d step %d: %d %d\n%s\n%s\n%s",
                                    setting, run, pod, step, ra, rb, a.err, b.err, text);
                        failed += ra != 0;
                        skipped += a.parser.skipped;
                    }
                CHECK(ok);
                CHECK(a.cache_bytes <= a.cache_max);
                hits += a.cached;
                lines += a.samples;
                if (setting % 3 == 2)
                    a.match = b.match = NULL, a.nmatch = b.nmatch = 0;
                prom_agg_free(&a);
                prom_agg_free(&b);
            }
        /* the fast paths ran, and so did the errors */
        CHECK(hits > lines / 2);
        CHECK(failed > 100 && skipped > 100);
    }

    TEST("whole-number values on the cache's path read as strtod reads them; near misses as before")
    {
        /* A gauge scraped three times: the first scrape fills the pod's cache, the next two
           read their value on its path (whole_value for "digits.0\n", json_number_in for
           the rest). The truth for a valid value is libc's strtod of its text; for every
           value, the same aggregator reading every line in full (no_cache). Every other
           run has a comment line after the values, so that 32 bytes follow them: the AVX2
           lane's whole_value reads 16 at a time there (and the scalar one below that); each
           run also goes through the baseline lane (c), which must count the same values
           whole. */
        static const char *const tails[] = {".0\n",   ".0\n", ".0\n",   ".0\n", ".00\n", ".5\n",
                                            ".0\r\n", "\n",   ".0e0\n", ".\n",  ".01\n"};
        uint64_t whole = 0, valid = 0, wrong = 0;
        for (int run = 0; run < 4000; run++) {
            char value[40], text[3][160];
            unsigned nd = 1 + rnd(17); /* 16 and 17 digits: past whole_value's 15 */
            size_t k = 0;
            for (unsigned i = 0; i < nd; i++)
                value[k++] = (char)('0' + (i == 0 && rnd(4) != 0 ? 1 + rnd(9) : rnd(10)));
            const char *tail = tails[rnd(sizeof tails / sizeof tails[0])];
            (void)snprintf(value + k, sizeof value - k, "%s", tail);
            (void)snprintf(text[0], sizeof text[0], "# TYPE g gauge\ng{e=\"0\"} 1.0\nh 2.0\n");
            const char *after = run % 2 ? "# and 32 bytes or more after the values\n" : "";
            for (int j = 1; j < 3; j++)
                (void)snprintf(text[j], sizeof text[j], "# TYPE g gauge\ng{e=\"0\"} %sh 2.0\n%s",
                               value, after);
            PromAgg a, b, c;
            prom_agg_init(&a);
            prom_agg_init(&b);
            prom_agg_init(&c);
            b.no_cache = 1;
            c.wide = 0;
            int ok = 1;
            for (int j = 0; j < 3 && ok; j++) {
                int ra = prom_agg_add(&a, "p", text[j], strlen(text[j]), 1000 + 15 * j, "f");
                int rb = prom_agg_add(&b, "p", text[j], strlen(text[j]), 1000 + 15 * j, "f");
                int rc = prom_agg_add(&c, "p", text[j], strlen(text[j]), 1000 + 15 * j, "f");
                ok = ra == rb && ra == rc && (ra == 0 || strcmp(a.err, b.err) == 0) &&
                     same_agg(&a, &b) && same_agg(&c, &b) && a.whole == c.whole &&
                     a.cached == c.cached;
            }
            if (!ok)
                fprintf(stderr, "value '%s': %s / %s\n", value, a.err, b.err);
            CHECK(ok);
            /* JSON's grammar: no leading zero; the tails ".0\n", ".00\n", ".5\n", ".01\n",
               ".0e0\n" make a number of it */
            int json_ok = (value[0] != '0' || nd == 1) && strchr(tail, '\r') == NULL &&
                          strcmp(tail, "\n") != 0 && strcmp(tail, ".\n") != 0;
            if (json_ok) {
                valid++;
                double want = strtod(value, NULL);
                size_t at[1];
                CHECK(prom_agg_find(&a, "g", at, 1) == 1);
                if (a.series[at[0]].last_v != want) {
                    wrong++;
                    fprintf(stderr, "value '%s': %.17g, strtod %.17g\n", value,
                            a.series[at[0]].last_v, want);
                }
            }
            whole += a.whole;
            prom_agg_free(&a);
            prom_agg_free(&b);
            prom_agg_free(&c);
        }
        CHECK(wrong == 0);
        /* both paths ran: whole numbers (two scrapes each, plus the "h 2.0" lines), and the
           rest */
        CHECK(whole > 4000 && valid > 2000);
    }

    return test_report();
}
