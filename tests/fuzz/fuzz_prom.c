/*
** libFuzzer target for the Prometheus parser and aggregator: any text, strict or
** tolerant, must end in a result or a positioned error, never a crash; a strict parse
** that succeeds must also succeed tolerantly with nothing skipped; and every value read
** is the whole of its text as strtod reads it (no NUL, nothing left over). The input cut
** at its first \x01 is two scrapes of one pod, read A B A: the pod cache must give what
** reading every line in full gives (results, errors and skipped lines).
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A sample's value against its text (after the name and labels, up to a blank or the
   line's end), read independently: strtod on a terminated copy, which must take it all. */
static int check_value(void *ud, const PromSample *s)
{
    (void)ud;
    const char *v = s->raw + s->rawlen;
    while (*v == ' ' || *v == '\t')
        v++;
    size_t n = 0;
    while (v[n] != ' ' && v[n] != '\t' && v[n] != '\n' && v[n] != '\r')
        n++;
    if (n == 0 || memchr(v, '\0', n) != NULL)
        abort();
    char *buf = (char *)malloc(n + 1);
    if (buf == NULL)
        return 0;
    memcpy(buf, v, n);
    buf[n] = '\0';
    char *end;
    double d = strtod(buf, &end);
    int ok = end == buf + n && (isnan(d) ? isnan(s->value) : d == s->value);
    free(buf);
    if (!ok)
        abort();
    return 0;
}

static int same_bits(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0;
}

/* Scrapes A B A through the cache and without it, strict or tolerant: the same. wide: the
   cache's lane prom_agg_init chose for this CPU, or 0, the baseline. */
static void check_cache(const char *data, size_t size, int tolerant, int wide)
{
    const char *cut = (const char *)memchr(data, '\1', size);
    size_t la = cut ? (size_t)(cut - data) : size;
    const char *b = cut ? cut + 1 : data;
    size_t lb = cut ? size - la - 1 : size;
    PromAgg x, y;
    prom_agg_init(&x);
    prom_agg_init(&y);
    y.no_cache = 1;
    if (!wide)
        x.wide = 0;
    x.parser.tolerant = y.parser.tolerant = tolerant;
    const char *text[] = {data, b, data};
    size_t len[] = {la, lb, la};
    for (int i = 0; i < 3; i++) {
        int rx = prom_agg_add(&x, "p", text[i], len[i], i, "f");
        int ry = prom_agg_add(&y, "p", text[i], len[i], i, "f");
        if (rx != ry || (rx != 0 && strcmp(x.err, y.err) != 0) ||
            x.parser.skipped != y.parser.skipped)
            abort();
    }
    if (x.n != y.n || x.samples != y.samples || x.dropped != y.dropped)
        abort();
    for (size_t i = 0; i < x.n; i++) {
        const PromSeries *s = &x.series[i], *t = &y.series[i];
        if (strcmp(s->labels, t->labels) != 0 || s->type != t->type || s->samples != t->samples ||
            s->resets != t->resets || !same_bits(s->increase, t->increase) ||
            !same_bits(s->last_v, t->last_v) || !same_bits(s->tw_sum, t->tw_sum))
            abort();
    }
    prom_agg_free(&x);
    prom_agg_free(&y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int wide = 0; wide < 2; wide++) {
        check_cache((const char *)data, size, 0, wide);
        check_cache((const char *)data, size, 1, wide);
    }
    PromAgg strict, tolerant;
    prom_agg_init(&strict);
    prom_agg_init(&tolerant);
    tolerant.parser.tolerant = 1;
    int a = prom_agg_add(&strict, "p", (const char *)data, size, 1, "fuzz");
    int b = prom_agg_add(&tolerant, "p", (const char *)data, size, 1, "fuzz");
    if (a == 0 && (b != 0 || tolerant.parser.skipped != 0 || tolerant.n != strict.n))
        abort();
    PromParser p;
    prom_parser_init(&p);
    p.tolerant = 1;
    (void)prom_parse(&p, (const char *)data, size, check_value, NULL);
    prom_parser_free(&p);
    /* every query path on whatever came in */
    for (size_t i = 0; i < strict.n; i++) {
        (void)prom_increase(&strict, &strict.series[i]);
        char v[64];
        (void)prom_label(&strict.series[i], "le", v, sizeof v);
    }
    prom_agg_free(&strict);
    prom_agg_free(&tolerant);
    return 0;
}
