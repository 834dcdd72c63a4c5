/*
** libFuzzer target for llmd.scan's engine (JSON, JSON Lines, CSV): the first byte picks
** the format and the read size; scanning the rest whole and through tiny reads must end
** alike (tests/fuzz/differential.h), and never crash.
*/
#include "differential.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int format = data[0] % 3 == 0 ? SCAN_JSON : data[0] % 3 == 1 ? SCAN_JSONL : SCAN_CSV;
    size_t read_max = 1 + (data[0] >> 2) % 7;
    char why[600];
    if (scan_differential(data + 1, size - 1, format, read_max, why, sizeof why) != 0) {
        fprintf(stderr, "differential: %s\n", why);
        abort();
    }
    return 0;
}
