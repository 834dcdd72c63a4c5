/*
** libFuzzer target for the Prometheus parser and aggregator: any text, strict or
** tolerant, must end in a result or a positioned error, never a crash; a strict parse
** that succeeds must also succeed tolerantly with nothing skipped; and every value read
** is the whole of its text as strtod reads it (no NUL, nothing left over).
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
