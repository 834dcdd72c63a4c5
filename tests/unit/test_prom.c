/*
** test_prom.c — the Prometheus core: histogram_quantile on hand-computed cases (the
** algorithm as Prometheus documents it), strict and tolerant parsing, and series
** identity independent of label order.
*/
#include <math.h>
#include <signal.h>
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

    return test_report();
}
