/*
** csv_rows.h — the CSV lane's rows, compiled once per instruction set: scan.c defines
** CSV_ROWS_TARGET (the target attribute), CSV_ROWS_HW (1 where the target has popcnt
** and BMI), CSV_ROW_NAME and CSV_NUMBERS_NAME (the two functions), then includes this
** file.
*/

/*
** One row of plain fields at window offset i, from the lane's index: its stops
** (offsets from ln->base: stops[0] the one before the row, stops[1 .. ncols - 1] its
** separators, stops[ncols] its line end; field c lies between stops[c] and stops[c + 1];
** of the separators only the first nwalk are certain to be there; a row with quoted
** fields sets *q, which must be clear before, see csv_lane_quoted); returns the offset
** after its line end, or 0 when the row is not for this lane (a quote, a field count not
** the header's, a blank line, a line end the window may cut: csv_record reads it), or
** CSV_UNINDEXED when the index does not reach the row's end.
*/
CSV_ROWS_TARGET static inline __attribute__((always_inline)) size_t
CSV_ROW_NAME(const char *b, size_t n, char sep, const CsvLane *ln, size_t i, int ncols, int nwalk,
             uint32_t *stops, CsvQuoted *q)
{
    size_t r = i - ln->base;
    if (i < ln->base || r >= ln->len)
        return CSV_UNINDEXED;
    /* the 64 bytes from the row's start: their separators, and line ends and quotes */
    size_t blk = r / 64;
    unsigned sh = (unsigned)(r % 64);
    uint64_t ow = (ln->others[blk] >> sh) | ((ln->others[blk + 1] << 1) << (63 - sh));
    size_t j;
    int quoted = 0;
    stops[0] = (uint32_t)r - 1;
    if (ow != 0 && ncols <= 64) { /* the row's end is among them: no branch per field */
        uint64_t sw = (ln->seps[blk] >> sh) | ((ln->seps[blk + 1] << 1) << (63 - sh));
        unsigned end = (unsigned)__builtin_ctzll(ow);
        uint64_t w = sw & ((1ULL << end) - 1); /* the row's separators */
        j = r + end;
        if (b[ln->base + j] == '"') {
            quoted = 1;
            goto quoted_row;
        }
        unsigned cnt = CSV_ROWS_HW ? (unsigned)__builtin_popcountll(w) : csv_popcount(w);
        if (cnt != (unsigned)ncols - 1) /* a separator too many, or too few */
            return 0;
        for (int c = 1; c <= nwalk; c++) {
            stops[c] = (uint32_t)r + (uint32_t)__builtin_ctzll(w);
            w &= w - 1;
        }
    } else {
        long e = csv_lane_walk(ln, b + ln->base, r, ncols, stops);
        if (e < 0)
            return e == -1 ? CSV_UNINDEXED : 0;
        j = (size_t)e;
        quoted = b[ln->base + j] == '"';
    }
quoted_row:
    if (quoted) { /* fields in quotes: one by one */
        long e = csv_lane_quoted(ln, b + ln->base, sep, r, ncols, stops, q);
        if (e < 0)
            return e == -1 ? CSV_UNINDEXED : 0;
        j = (size_t)e;
    }
    stops[ncols] = (uint32_t)j;
    j += ln->base;
    char ch = b[j];
    if (ch == '"' || j == i) /* a quote; a blank line */
        return 0;
    if (ch == '\r') {
        if (j + 1 >= n) /* a \n may follow in the next read */
            return 0;
        if (b[j + 1] == '\n')
            j++;
    }
    return j + 1;
}

/*
** The lane's rows from *pos when every rule is a number rule, while it takes them and
** they start before until: each rule's cell is cut from the row's stops, the cells no
** rule reads are not looked at; every rule's value of a row goes in the same slot of
** its batch (a NaN where a bad cell is skipped). The number of rows taken (*pos after
** them, *line counted on), or -1 on error. (matched and records are counted by the
** caller.)
*/
CSV_ROWS_TARGET __attribute__((noinline)) static long
CSV_NUMBERS_NAME(Scanner *s, CsvLane *lane, CsvBatch *bt, const int *col_of, int ncols,
                 CsvIndexFn index, uint32_t *stops, size_t until, size_t *pos, uint64_t *line)
{
    int nr = s->nrules, nwalk = 0;
    for (int m = 0; m < nr; m++) /* the separators up to the last cell read */
        if (col_of[m] + 1 > nwalk)
            nwalk = col_of[m] + 1;
    if (nwalk > ncols - 1)
        nwalk = ncols - 1;
    /* the rules' batches in step: as many values in each */
    int kb = nr > 0 ? bt->n[0] : 0;
    for (int m = 1; m < nr; m++)
        if (bt->n[m] != kb) {
            if (csv_flush_all(s, bt) != 0)
                return -1;
            kb = 0;
            break;
        }
    const char *b = s->buf;
    size_t n = s->len, p = *pos, stride = (size_t)ncols + 1;
    CsvLane ln = *lane; /* in registers */
    CsvQuoted q = {0, 0, 0};
    uint64_t at_line = *line; /* the next row's first line */
    long taken = 0, rc = 0;
    int done = 0, more = 1; /* done: rules with a row's value when an error stops it */
    char sep = s->sep;
    /* up to CSV_ROWS rows found first (their stops one after the other in stops), then
       their cells read rule by rule: fewer values live across each call */
    uint64_t row_line[CSV_ROWS], row_quoted[CSV_ROWS], row_doubled[CSV_ROWS];
    while (more && p < until) { /* (mapped pages due back: checked every CSV_ROWS rows) */
        int nrow = 0, most = CSV_BATCH - kb < CSV_ROWS ? CSV_BATCH - kb : CSV_ROWS;
        while (nrow < most) {
            uint32_t *st = stops + (size_t)nrow * stride;
            size_t next = CSV_ROW_NAME(b, n, sep, &ln, p, ncols, nwalk, st, &q);
            if (next == CSV_UNINDEXED && ln.base != p) {
                if (nrow > 0) /* the rows found so far are counted from the index's base */
                    break;
                ln.len = index(ln.seps, ln.others, b, p, n, sep); /* index from this row */
                ln.base = p;
                next = CSV_ROW_NAME(b, n, sep, &ln, p, ncols, nwalk, st, &q);
            }
            if (next == 0 || next == CSV_UNINDEXED) {
                more = 0;
                break;
            }
            row_line[nrow] = at_line++;
            row_quoted[nrow] = q.quoted;
            if (q.quoted != 0) { /* and the line feeds inside its quotes */
                row_doubled[nrow] = q.doubled;
                at_line += q.lines;
                q.quoted = q.doubled = 0;
                q.lines = 0;
            }
            p = next;
            nrow++;
        }
        if (nrow == 0)
            break;
        const char *bb = b + ln.base;
        size_t avail = n - ln.base;
        /* the cells that are plain numbers, rule by rule; from the first row with one
           that is not (first), row by row again, as csv_row reads them */
        int first = nrow;
        for (int m = 0; m < nr; m++) {
            const uint32_t *st = stops + col_of[m];
            double *v = bt->v + (size_t)m * CSV_BATCH + kb;
            for (int k = 0; k < first; k++, st += stride) {
                uint32_t at = st[0] + 1, len = st[1] - at;
                if (!json_number_in(bb + at, len, avail - at, v + k)) {
                    first = k;
                    break;
                }
            }
        }
        for (int k = first; k < nrow; k++) {
            double *v = bt->v + kb + k;
            for (int m = 0; m < nr; m++, v += CSV_BATCH) {
                int c = col_of[m];
                const uint32_t *st = stops + (size_t)k * stride + c;
                uint32_t at = st[0] + 1, len = st[1] - at;
                if (json_number_in(bb + at, len, avail - at, v))
                    continue;
                CsvField cell = {bb + at, len, 0, 0};
                if (c < 64 && (row_quoted[k] >> c & 1)) { /* between the quotes */
                    cell.p++;
                    cell.len -= 2;
                    cell.quoted = 1;
                    cell.doubled = (int)(row_doubled[k] >> c & 1);
                }
                size_t row = ln.base + (uint32_t)(stops[(size_t)k * stride] + 1); /* its start */
                int r2 = csv_cell_number(s, &s->rules[m], &cell, row_line[k], row, v);
                if (r2 < 0) {
                    rc = -1;
                    done = m;
                    kb += k;
                    taken += k;
                    p = row;
                    at_line = row_line[k];
                    goto out;
                }
                if (r2 == 0) {
                    *v = NAN; /* skipped */
                    bt->holes = 1;
                }
            }
        }
        taken += nrow;
        kb += nrow;
        if (kb == CSV_BATCH) {
            for (int m = 0; m < nr; m++)
                bt->n[m] = kb;
            kb = 0;
            if (csv_flush_all(s, bt) != 0) {
                rc = -1;
                goto out;
            }
        }
    }
out:
    for (int m = 0; m < nr; m++)
        bt->n[m] = kb + (m < done); /* those go in too, as one stats_add each would */
    *lane = ln;
    *pos = p;
    *line = at_line;
    return rc < 0 ? rc : taken;
}
