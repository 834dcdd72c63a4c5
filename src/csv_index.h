/*
** csv_index.h — the CSV lane's index of a chunk, compiled once per instruction set:
** scan.c defines CSV_INDEX_NAME (the function), CSV_INDEX_TARGET (its target
** attribute) and CSV_INDEX_MASKS (a CsvMasks function for the 64 bytes at p), then
** includes this file.
**
** Indexes b[from .. from + CSV_LANE_CHUNK) (or up to n) into ln 64 bytes at a time, each
** byte looked at once: block k's separators as the bits of seps[k], its quotes and line
** ends as those of others[k], its quotes also as those of quotes[k] (bit i for byte
** from + 64 k + i); the word after the last block is 0 in all; ln->quoted says whether
** there is a quote. Returns how many bytes it indexed.
*/
CSV_INDEX_TARGET static size_t CSV_INDEX_NAME(CsvLane *ln, const char *b, size_t from, size_t n,
                                              char sep)
{
    uint64_t *seps = ln->seps, *others = ln->others, *quotes = ln->quotes, any = 0;
    size_t len = n - from > CSV_LANE_CHUNK ? CSV_LANE_CHUNK : n - from;
    const char *p = b + from;
    size_t k = 0, off = 0;
    for (; off + 64 <= len; off += 64, k++) {
        CsvMasks m = CSV_INDEX_MASKS(p + off, sep);
        seps[k] = m.sep;
        others[k] = m.other;
        quotes[k] = m.quote;
        any |= m.quote;
    }
    if (off < len) { /* the chunk ends inside a block */
        CsvMasks m;
        if (from + off + 64 <= n) {
            m = CSV_INDEX_MASKS(p + off, sep);
        } else { /* the window's last bytes: copied, never read past n */
            char tail[64];
            memset(tail, sep == 'a' ? 'b' : 'a', sizeof tail);
            memcpy(tail, p + off, n - from - off);
            m = CSV_INDEX_MASKS(tail, sep);
        }
        uint64_t keep = (1ULL << (len - off)) - 1;
        seps[k] = m.sep & keep;
        others[k] = m.other & keep;
        quotes[k] = m.quote & keep;
        any |= quotes[k];
        k++;
    }
    seps[k] = others[k] = quotes[k] = 0;
    ln->quoted = any != 0;
    return len;
}
