/*
** csv_rows.h — the CSV lane's rows, compiled once per instruction set: scan.c defines
** CSV_ROWS_TARGET (the target attribute), CSV_ROWS_HW (1 where the target has popcnt
** and BMI), CSV_ROW_NAME, CSV_QUOTED_NAME, CSV_FLAT_NAME and CSV_NUMBERS_NAME (the
** functions), then includes this file.
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
** CSV_FLAT_NAME's stops in a chunk with a quote, from r (an offset in the chunk) on,
** until there are need of them or the chunk ends: those outside quoted fields into
** stop[0 ..), the line ends among them as the bits of so[] (from block r / 64 on), and
** *bad not 0 when a quote is out of place or a line end is inside quotes (see there).
** Returns how many. A function of its own, its tests of the quotes' places in fewer
** steps (the stops and quotes as one mask, sq): inlined there among that function's
** values, the loop went to the stack and back in each block (half of requests.csv's
** blocks hold a quote); callgrind counts 4.7 % fewer instructions in the lane there
** (AVX2). A block inside quotes with no quote keeps its branch: the same steps for
** every block removed most mispredicted branches (callgrind's model) but added 40 %
** to the lane's instructions, and did not change the AVX-512 lane's share of the time.
*/
CSV_ROWS_TARGET static __attribute__((noinline)) size_t CSV_QUOTED_NAME(const CsvLane *ln, size_t r,
                                                                        size_t need, uint32_t *stop,
                                                                        uint64_t *so,
                                                                        uint64_t *bad_out)
{
    const uint64_t *seps = ln->seps, *others = ln->others, *quotes = ln->quotes;
    size_t nblk = (ln->len + 63) / 64, b0 = r / 64, blk = b0, got = 0;
    uint64_t from = ~0ULL << (r % 64), start = 1ULL << (r % 64);
    uint64_t q = quotes[blk] & from, ot = others[blk] & from, sp = seps[blk] & from;
    /* carried from the block before: inq, all ones when it ended inside quotes; pend,
       1 when its last byte closed them; carry, 1 when that byte was a stop or a quote */
    uint64_t inq = 0, pend = 0, carry = 0, bad = 0;
#if CSV_ROWS_HW == 2
    const __m512i places = _mm512_load_si512((const void *)csv_places);
#endif
    for (;;) { /* (at most 63 more than need) */
        uint64_t w = sp | ot;
        if (q == 0 && inq != 0) { /* all inside a quoted field (pend is 0: no quote
                                     closed the last block) */
            bad |= ot;
            so[blk - b0] = carry = 0;
        } else {
#if CSV_ROWS_HW == 2
            /* the prefix XOR as a carry-less product by all ones */
            uint64_t in = (uint64_t)_mm_cvtsi128_si64(
                _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)q), _mm_set1_epi8(-1), 0));
#else
            uint64_t in = q;
            in ^= in << 1;
            in ^= in << 2;
            in ^= in << 4;
            in ^= in << 8;
            in ^= in << 16;
            in ^= in << 32;
#endif
            in ^= inq;
            inq = 0 - (in >> 63);
            uint64_t close = q & ~in, open = q ^ close;
            w &= ~(in | q);
            /* a line end inside quotes; an opening quote after a stop, at p, or right
               after a closing one (""); a closing one before a stop or an opening one
               (the next block's first byte for the last: pend). The quotes alternate,
               opening and closing: the byte before an opening one is a closing one if
               a quote, the byte after a closing one an opening one, hence the stops
               and the quotes together (sq) in each test */
            uint64_t sq = w | q;
            bad |= (ot & in & ~q) | (open & ~((sq << 1) | carry | start)) |
                   (close & ~((sq >> 1) | 1ULL << 63)) | (pend & ~sq);
            pend = close >> 63;
            carry = sq >> 63;
            so[blk - b0] = ot & w;
#if CSV_ROWS_HW == 2
            got += csv_put_stops_avx512(stop + got, w, (uint32_t)(64 * blk), places);
#else
            /* one at a time (none in most blocks of a long quoted text) */
            for (uint32_t at = (uint32_t)(64 * blk); w != 0; w &= w - 1)
                stop[got++] = at + (uint32_t)__builtin_ctzll(w);
#endif
        }
        if (got >= need || ++blk >= nblk)
            break;
        q = quotes[blk];
        ot = others[blk];
        sp = seps[blk];
        start = 0;
    }
    *bad_out = bad;
    return got;
}

/*
** Rows from p (at most most of them), for number rules: the index's stops outside
** quoted fields (its separators and line ends, not the quotes) taken in order into
** flat[1..] (flat[0]: the one before p), all of a run of rows at once, with no branch
** per field. In a run of rows of ncols fields, each ending in "\n" (or each in "\r\n",
** as the first one does), row k's stops are flat[1 + k per .. (k + 1) per] (per = ncols
** + crlf) and its field c lies between flat[k per + c] and flat[k per + c + 1]: each
** rule's column of cells goes to json_number_cells in one call (a quoted cell is no
** number there: csv_lane_row reads its row). The run ends before the first row whose
** stop at ncols - 1 is not its line end (a field too many or too few, a blank line, a
** line end of the other kind), and is refused when its line ends outside quotes are
** more than its rows, or a quote is out of place (not at a field's start, nor closing
** it, nor doubled), or a line end is inside quotes (lines to count). The fields inside
** quotes are those between an odd and an even quote, counted from p (a row's start is
** outside them): the prefix XOR of the quotes' bits. Returns how many rows' cells were
** all numbers (their values in the batches from kb, *pos after them), 0 when none
** (csv_lane_row reads the next ones), or -1 when the index does not hold a row from p.
*/
CSV_ROWS_TARGET static inline __attribute__((always_inline)) int
CSV_FLAT_NAME(const Scanner *s, const CsvLane *ln, CsvBatch *bt, const int *col_of, int ncols,
              uint32_t *flat, int most, int kb, size_t *pos)
{
    size_t p = *pos;
    if (p < ln->base || p - ln->base >= ln->len)
        return -1;
    size_t r = p - ln->base, nblk = (ln->len + 63) / 64, b0 = r / 64, blk = b0;
    const char *bb = s->buf + ln->base;
    uint32_t *stop = flat + 1;
    flat[0] = (uint32_t)r - 1;
    /* the stops of most rows: ncols each, one more for a "\r\n" (the first row end in
       this block says which; (ncols + 1) each when it lies further on) */
    uint64_t first_end = ln->others[blk] & (~0ULL << (r % 64));
    size_t per_row = (size_t)ncols +
                     (first_end == 0 || bb[64 * blk + (size_t)__builtin_ctzll(first_end)] == '\r');
    size_t need = (size_t)most * per_row, got = 0;
    uint64_t so[CSV_LANE_CHUNK / 64 + 1]; /* the line ends outside quotes, from block b0 */
    uint64_t bad = 0;
    if (ln->quoted) {
        got = CSV_QUOTED_NAME(ln, r, need, stop, so, &bad);
    } else {
        uint64_t w = (ln->seps[blk] | ln->others[blk]) & (~0ULL << (r % 64));
#if CSV_ROWS_HW == 2
        const __m512i places = _mm512_load_si512((const void *)csv_places);
#endif
        for (;;) { /* (at most 63 more than need) */
            uint32_t at = (uint32_t)(64 * blk);
#if CSV_ROWS_HW == 2
            got += csv_put_stops_avx512(stop + got, w, at, places);
#elif CSV_ROWS_HW
            /* six at a time, whatever w holds (tzcnt of 0 is 64: written, not counted):
               a 64-byte block of number rows mostly holds five or six stops */
            size_t cnt = (size_t)__builtin_popcountll(w);
            uint32_t *o = stop + got;
            do {
#pragma GCC unroll 6
                for (int k = 0; k < 6; k++) {
                    o[k] = at + (uint32_t)_tzcnt_u64(w);
                    w = _blsr_u64(w);
                }
                o += 6;
            } while (w != 0);
            got += cnt;
#else
            for (; w != 0; w &= w - 1)
                stop[got++] = at + (uint32_t)__builtin_ctzll(w);
#endif
            if (got >= need || ++blk >= nblk)
                break;
            w = ln->seps[blk] | ln->others[blk];
        }
    }
    if (got < (size_t)ncols)
        return -1;
    if (bad != 0)
        return 0;
    int crlf = bb[stop[ncols - 1]] == '\r';
    size_t per = (size_t)ncols + (size_t)crlf, rows = got / per;
    if (rows > (size_t)most)
        rows = (size_t)most;
    char end = crlf ? '\r' : '\n';
    size_t k = 0;
    if (ncols > 1 && !crlf) { /* the usual rows: a look at each row's end */
        const uint32_t *e = stop + ncols - 1;
        /* four at a time, one branch (then the row that is not, if one is) */
        for (; k + 4 <= rows; k += 4, e += 4 * per)
            if (((bb[e[0]] ^ '\n') | (bb[e[per]] ^ '\n') | (bb[e[2 * per]] ^ '\n') |
                 (bb[e[3 * per]] ^ '\n')) != 0)
                break;
        for (; k < rows && bb[*e] == '\n'; k++, e += per)
            ;
    } else {
        for (const uint32_t *e = stop + ncols - 1; k < rows; k++, e += per) {
            if (bb[*e] != end || (ncols == 1 && e[0] == e[-1] + 1)) /* (a blank line) */
                break;
            if (crlf && (e[1] != e[0] + 1 || bb[e[1]] != '\n'))
                break;
        }
    }
    if (k == 0)
        return 0;
    /* the line ends outside quotes from p to the run's last stop: one per row */
    size_t last = stop[k * per - 1], b1 = last / 64, cnt = 0;
    const uint64_t *ends = ln->quoted ? so : ln->others + b0; /* from block b0 on */
    uint64_t o = ends[0] & (~0ULL << (r % 64));
#if CSV_ROWS_HW
    size_t nb = b1 - b0; /* the blocks before the last one's */
    if (nb > 0) {        /* four a turn (a run of number rows spans some 128) */
        size_t i = 1;
        cnt = (size_t)__builtin_popcountll(o);
        for (; i + 4 <= nb; i += 4)
            cnt += (size_t)(__builtin_popcountll(ends[i]) + __builtin_popcountll(ends[i + 1]) +
                            __builtin_popcountll(ends[i + 2]) + __builtin_popcountll(ends[i + 3]));
        for (; i < nb; i++)
            cnt += (size_t)__builtin_popcountll(ends[i]);
        o = ends[nb];
    }
#else
    for (size_t i = 0; i < b1 - b0; o = ends[++i])
        cnt += csv_popcount(o);
#endif
    o &= (2ULL << (last % 64)) - 1;
    cnt += CSV_ROWS_HW ? (size_t)__builtin_popcountll(o) : csv_popcount(o);
    if (cnt != k * (1 + (size_t)crlf))
        return 0;
    size_t first = k;
    for (int m = 0; m < s->nrules && first > 0; m++)
        first = json_number_cells(s->buf, s->len, ln->base, flat + col_of[m], per, first,
                                  bt->v + (size_t)m * CSV_BATCH + kb);
    if (first > 0)
        *pos = ln->base + stop[first * per - 1] + 1;
    return (int)first;
}

/*
** The lane's rows from *pos when every rule is a number rule, while it takes them:
** each rule's cell is cut from the row's stops, the cells no rule reads are not looked
** at; every rule's value of a row goes in the same slot of its batch (a NaN where a
** bad cell is skipped). The number of rows taken (*pos after them, *line counted on),
** or -1 on error. (matched and records are counted by the caller.)
*/
CSV_ROWS_TARGET __attribute__((noinline)) static long
CSV_NUMBERS_NAME(Scanner *s, CsvLane *lane, CsvBatch *bt, const int *col_of, int ncols,
                 CsvIndexFn index, uint32_t *stops, size_t *pos, uint64_t *line)
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
    uint32_t *flat = stops + (size_t)CSV_ROWS * stride; /* CSV_FLAT_NAME's */
    unsigned flat_backoff = 0, flat_skip = 0;           /* batches of rows it leaves */
    CsvLane ln = *lane;                                 /* in registers */
    CsvQuoted q = {0, 0, 0};
    uint64_t at_line = *line; /* the next row's first line */
    long taken = 0, rc = 0;
    int done = 0, more = 1; /* done: rules with a row's value when an error stops it */
    char sep = s->sep;
    /* up to CSV_ROWS rows found first (their stops one after the other in stops), then
       their cells read rule by rule: fewer values live across each call */
    uint64_t row_line[CSV_ROWS], row_quoted[CSV_ROWS], row_doubled[CSV_ROWS];
    while (more) {
        /* a batch with room for fewer than CSV_ROWS rows goes in first, so that each
           run below may take CSV_ROWS rows (bounded by the batch's room instead, a run
           was cut in two at each batch's end, as at each chunk's) */
        if (CSV_BATCH - kb < CSV_ROWS) {
            int full = kb;
            kb = 0;
            if (csv_flush_rows(s, bt, full) != 0) {
                rc = -1;
                goto out;
            }
        }
        int nrow = 0, most = CSV_ROWS;
        /* plain rows, all of a run at once; when they are not (quoted fields, say), the
           next rows row by row, more of them each time */
        int got = 0;
        if (flat_skip > 0) {
            flat_skip--;
        } else {
            /* less than half a chunk indexed from p, and more of the window after it:
               index from p first. Else the run stops at the chunk's end after a few rows,
               and a call for a few rows costs each rule nearly what one for CSV_ROWS
               does (json_number_cells' set-up and a turn of eight cells, per rule): on
               csv_floats a quarter of the runs were of one row, half of 64 or fewer.
               Indexing up to half a chunk again (~0.1 TSC tick a byte there, ~400 at
               most) costs about what one run cut short does */
            if (p >= ln.base && ln.base + ln.len - p < CSV_LANE_CHUNK / 2 && ln.base + ln.len < n) {
                ln.len = index(&ln, b, p, n, sep);
                ln.base = p;
            }
            got = CSV_FLAT_NAME(s, &ln, bt, col_of, ncols, flat, most, kb, &p);
            if (got < 0 && ln.base != p) { /* index from this row */
                ln.len = index(&ln, b, p, n, sep);
                ln.base = p;
                got = CSV_FLAT_NAME(s, &ln, bt, col_of, ncols, flat, most, kb, &p);
            }
            if (got > 0)
                flat_backoff = 0;
            else if (flat_backoff < 64)
                flat_backoff = flat_backoff == 0 ? 1 : 2 * flat_backoff;
            flat_skip = flat_backoff;
        }
        if (got > 0) {
            at_line += (uint64_t)got;
            taken += got;
            kb += got;
            continue;
        }
        while (nrow < most) {
            uint32_t *st = stops + (size_t)nrow * stride;
            size_t next = CSV_ROW_NAME(b, n, sep, &ln, p, ncols, nwalk, st, &q);
            if (next == CSV_UNINDEXED && ln.base != p) {
                if (nrow > 0) /* the rows found so far are counted from the index's base */
                    break;
                ln.len = index(&ln, b, p, n, sep); /* index from this row */
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
        /* the cells that are plain numbers, rule by rule, a column of rows in one call;
           from the first row with one that is not (first), row by row again, as csv_row
           reads them */
        int first = nrow;
        for (int m = 0; m < nr; m++)
            first = (int)json_number_cells(b, n, ln.base, stops + col_of[m], stride, (size_t)first,
                                           bt->v + (size_t)m * CSV_BATCH + kb);
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
    }
    if (kb == CSV_BATCH) { /* full (not after a run: the loop's start flushes it), and
                              csv_row adds the next value to it */
        kb = 0;
        if (csv_flush_rows(s, bt, CSV_BATCH) != 0)
            rc = -1;
    }
out:
    for (int m = 0; m < nr; m++)
        bt->n[m] = kb + (m < done); /* those go in too, as one stats_add each would */
    *lane = ln;
    *pos = p;
    *line = at_line;
    return rc < 0 ? rc : taken;
}
