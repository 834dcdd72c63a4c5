/*
** libFuzzer target for the Prometheus parser and aggregator: any text, strict or
** tolerant, must end in a result or a positioned error, never a crash; a strict parse
** that succeeds must also succeed tolerantly with nothing skipped.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
