/*
** differential.h — scan a document whole (from memory) and through tiny reads (a
** refill every few bytes): both must end alike — same status, same error byte offset
** (or message, for CSV), accumulators equal bit for bit, the same records delivered.
** Used by tests/unit/test_scan.c and tests/fuzz/fuzz_scan.c.
*/
#ifndef LLMD_DIFFERENTIAL_H
#define LLMD_DIFFERENTIAL_H

#define _GNU_SOURCE /* fmemopen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "stats.h"

/* the accumulator rules: 4 over paths shared by many documents, $.b[*] whose elements
   carry nothing else (the fast lane for arrays of numbers), and $[*].d[*] whose second
   element is also a record's field (the lane after an [N]) */
#define NSTAT 6
#define NFIELD 5

typedef struct Outcome {
    int rc;
    char err[512];
    char full[512]; /* the whole message */
    uint64_t n[NSTAT];
    double sum[NSTAT];
    uint64_t samples; /* a hash of the exact accumulators' samples, in order */
    uint64_t records, hash;
    int parts; /* how many parts the scan read at once (not compared) */
} Outcome;

static void hash_bytes(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ b[i]) * 1099511628211ULL;
}

static void on_rec(Scanner *s, int rule, const ScanValue *whole)
{
    Outcome *o = (Outcome *)s->ud;
    o->records++;
    hash_bytes(&o->hash, &rule, sizeof rule);
    const ScanValue *vals = whole;
    int n = 1;
    if (whole == NULL) {
        n = s->rules[rule].nfields;
    }
    for (int i = 0; i < n; i++) {
        const ScanValue *v = whole ? vals : &s->fields[s->rules[rule].first_field + i].val;
        hash_bytes(&o->hash, &v->type, sizeof v->type);
        if (v->type == VAL_INT)
            hash_bytes(&o->hash, &v->i, sizeof v->i);
        if (v->type == VAL_FLOAT)
            hash_bytes(&o->hash, &v->d, sizeof v->d);
        if (v->type == VAL_STRING || v->type == VAL_RAW)
            hash_bytes(&o->hash, s->arena + v->off, v->len);
    }
}

/* Runs the fixed rule set over data, whole (read_max 0, memory) or read_max at a time;
   or, with path (a file holding data), over the file as scan_open_path opens it, read
   read_max at a time (0: the default); one_by_one: every token through the scanner (no
   fast lane, no skipping; for CSV every row through the reference splitter); portable:
   CSV rows split by the plain-C code; records 0: without the record rule (CSV: only
   number rules, the lane's own path); parts 0: rule 4 into a sketch, else every
   accumulator exact (as a CSV in parts needs) and a CSV file in at most parts parts at
   once, whatever its size (1: serially). */
static void run_source(const uint8_t *data, size_t size, const char *path, int parts, int format,
                       size_t read_max, int one_by_one, int portable, int records, Outcome *o)
{
    memset(o, 0, sizeof *o);
    o->hash = o->samples = 1469598103934665603ULL;
    Stats st[NSTAT];
    for (int i = 0; i < NSTAT; i++)
        stats_init(&st[i], i == 3 && parts == 0 ? 0.01 : 0);
    ScanRule rules[NSTAT + 1];
    ScanField fields[NFIELD];
    memset(rules, 0, sizeof rules);
    memset(fields, 0, sizeof fields);
    char err[256];
    const char *pat[NSTAT], *fpat[NFIELD];
    if (format == SCAN_CSV) {
        pat[0] = "a", pat[1] = "b", pat[2] = "c", pat[3] = "a", pat[4] = "c", pat[5] = "b";
        fpat[0] = "a", fpat[1] = "b", fpat[2] = "c", fpat[3] = "a", fpat[4] = "c";
    } else {
        pat[0] = "$[*]", pat[1] = "$.a[*]", pat[2] = "$[-1].b", pat[3] = "$.*[*].c";
        pat[4] = "$.b[*]", pat[5] = "$[*].d[*]";
        fpat[0] = "a", fpat[1] = "#b", fpat[2] = "c[0]", fpat[3] = "c[-1]", fpat[4] = "d[1]";
    }
    int nr = 0, nf = 0;
    for (int i = 0; i < NSTAT; i++, nr++) {
        ScanRule *r = &rules[nr];
        if (format == SCAN_CSV) {
            r->path.steps = calloc(1, sizeof *r->path.steps);
            r->path.steps[0].key = strdup(pat[i]);
            r->path.steps[0].klen = strlen(pat[i]);
            r->path.n = 1;
            r->path.last_at = -1;
        } else if (scan_path_parse(pat[i], 0, &r->path, err, sizeof err) != 0) {
            abort();
        }
        r->sink = SINK_STATS;
        r->stats = &st[i];
        r->skip_bad = 1;
        r->reduce = (format != SCAN_CSV && i == 1) ? RED_DIFFS : RED_NONE;
    }
    ScanRule *rec = &rules[nr++];
    rec->sink = SINK_RECORD;
    rec->first_field = 0;
    rec->nfields = NFIELD;
    if (format == SCAN_CSV) {
        rec->path.steps = calloc(1, sizeof *rec->path.steps);
        rec->path.steps[0].key = strdup("a");
        rec->path.steps[0].klen = 1;
        rec->path.n = 1;
        rec->path.last_at = -1;
    } else if (scan_path_parse("$[*]", 0, &rec->path, err, sizeof err) != 0) {
        abort();
    }
    for (int i = 0; i < NFIELD; i++, nf++) {
        fields[nf].rule = nr - 1;
        if (format == SCAN_CSV) {
            fields[nf].path.steps = calloc(1, sizeof *fields[nf].path.steps);
            fields[nf].path.steps[0].key = strdup(fpat[i]);
            fields[nf].path.steps[0].klen = strlen(fpat[i]);
            fields[nf].path.n = 1;
            fields[nf].path.last_at = -1;
        } else if (scan_path_parse(fpat[i], 1, &fields[nf].path, err, sizeof err) != 0) {
            abort();
        }
    }

    Scanner s;
    scan_init(&s, "doc", format);
    FILE *fp = NULL;
    if (path != NULL) {
        if (scan_open_path(&s, path) != 0)
            abort();
        s.threads = parts > 0 ? parts : 1;
        s.par_min = 1;
        s.read_max = read_max;
    } else if (read_max == 0) {
        scan_open_mem(&s, (const char *)data, size);
    } else {
        fp = fmemopen((void *)(uintptr_t)data, size, "r");
        if (fp == NULL) /* fmemopen refuses size 0 */
            scan_open_mem(&s, (const char *)data, size);
        else
            scan_open_file(&s, fp);
        s.read_max = read_max;
    }
    s.one_by_one = one_by_one;
    s.portable = portable;
    s.rules = rules;
    s.nrules = records ? nr : nr - 1;
    s.fields = fields;
    s.nfields = records ? nf : 0;
    s.on_record = on_rec;
    s.ud = o;
    o->rc = scan_run(&s);
    o->parts = s.par_parts;
    if (o->rc != 0) {
        /* JSON errors carry "(byte N)": compare that; CSV messages carry the line */
        const char *b = strstr(s.err, "(byte ");
        snprintf(o->err, sizeof o->err, "%s", b ? b : s.err);
        snprintf(o->full, sizeof o->full, "%s", s.err);
    }
    for (int i = 0; i < NSTAT; i++) {
        o->n[i] = st[i].n;
        o->sum[i] = stats_sum(&st[i]);
        /* the samples as doubles, however each keeps them (4 or 8 bytes: stats.h, f32) */
        for (size_t j = 0; !st[i].sketch && j < st[i].n; j++) {
            double x;
            stats_samples(&st[i], j, 1, &x);
            hash_bytes(&o->samples, &x, sizeof x);
        }
        stats_free(&st[i]);
    }
    scan_free(&s);
    if (fp != NULL)
        fclose(fp);
    for (int i = 0; i < nr; i++) {
        scan_path_free(&rules[i].path);
        free(rules[i].tent);
    }
    for (int i = 0; i < nf; i++)
        scan_path_free(&fields[i].path);
}

static void run_rules(const uint8_t *data, size_t size, int format, size_t read_max, int one_by_one,
                      int portable, int records, Outcome *o)
{
    run_source(data, size, NULL, 0, format, read_max, one_by_one, portable, records, o);
}

static void run_once(const uint8_t *data, size_t size, int format, size_t read_max, int one_by_one,
                     int portable, Outcome *o)
{
    run_rules(data, size, format, read_max, one_by_one, portable, 1, o);
}

/* Do a and b end alike? full: compare whole error messages, not only the offsets. */
static int outcomes_agree(const Outcome *a, const Outcome *b, int full, char *why, size_t whylen)
{
    const char *ea = full ? a->full : a->err, *eb = full ? b->full : b->err;
    if (a->rc != b->rc || strcmp(ea, eb) != 0) {
        snprintf(why, whylen, "status %d '%.200s' vs %d '%.200s'", a->rc, ea, b->rc, eb);
        return 0;
    }
    if (a->rc == 0) {
        for (int i = 0; i < NSTAT; i++)
            if (a->n[i] != b->n[i] || memcmp(&a->sum[i], &b->sum[i], sizeof a->sum[i]) != 0) {
                snprintf(why, whylen, "rule %d: %llu/%.17g vs %llu/%.17g", i + 1,
                         (unsigned long long)a->n[i], a->sum[i], (unsigned long long)b->n[i],
                         b->sum[i]);
                return 0;
            }
        if (a->samples != b->samples) {
            snprintf(why, whylen, "the samples kept differ");
            return 0;
        }
        if (a->records != b->records || a->hash != b->hash) {
            snprintf(why, whylen, "records %llu vs %llu (or their values differ)",
                     (unsigned long long)a->records, (unsigned long long)b->records);
            return 0;
        }
    }
    return 1;
}

/*
** 0 when the whole run, the windowed run, the whole run token by token (without the
** fast lane for arrays of numbers nor the skipping of unwatched containers; CSV: every
** row by the reference splitter) and, for CSV, the whole run split by the plain-C code
** all agree; else 1 with why.
*/
static int scan_differential(const uint8_t *data, size_t size, int format, size_t read_max,
                             char *why, size_t whylen)
{
    Outcome a, b, c;
    run_once(data, size, format, 0, 0, 0, &a);
    run_once(data, size, format, read_max, 0, 0, &b);
    if (!outcomes_agree(&a, &b, 0, why, whylen))
        return 1;
    run_once(data, size, format, 0, 1, 0, &c);
    if (!outcomes_agree(&a, &c, 1, why, whylen)) {
        size_t used = strlen(why);
        snprintf(why + used, whylen - used, " (fast paths vs token by token)");
        return 1;
    }
    if (format == SCAN_CSV) {
        run_once(data, size, format, 0, 0, 1, &c);
        if (!outcomes_agree(&a, &c, 1, why, whylen)) {
            size_t used = strlen(why);
            snprintf(why + used, whylen - used, " (SSE2 vs plain C)");
            return 1;
        }
        /* number rules only: the lane's rows to the accumulators without csv_row */
        static const char *const how[] = {"whole", "windowed", "by the reference splitter",
                                          "in plain C"};
        run_rules(data, size, format, 0, 0, 0, 0, &a);
        for (int k = 1; k < 4; k++) {
            run_rules(data, size, format, k == 1 ? read_max : 0, k == 2, k == 3, 0, &b);
            if (!outcomes_agree(&a, &b, k != 1, why, whylen)) {
                size_t used = strlen(why);
                snprintf(why + used, whylen - used, " (number rules only: whole vs %s)", how[k]);
                return 1;
            }
        }
    }
    return 0;
}

/* file_differential's scans of a CSV that went in parts (2 or more), and that did not
   (a cut inside quotes, an error, too few line feeds), since the program started */
static int differential_parts[2];

/*
** 0 when data, written to the file at path, ends alike read in pieces of read_max bytes
** (and of the default size) and scanned from memory whole (the reference); for a CSV
** also with number rules only into exact accumulators, the file in 2 and in 3 parts at
** once (each part read into its own window, in pieces of read_max bytes and of the
** default size) against the serial file and memory whole; else 1 with why. Messages are
** compared whole: the scanner names the input "doc" in each case.
*/
static inline int file_differential(const uint8_t *data, size_t size, int format, const char *path,
                                    size_t read_max, char *why, size_t whylen)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    static const char *const how[] = {"read in pieces", "read"};
    Outcome a, b;
    run_once(data, size, format, 0, 0, 0, &a);
    for (int k = 0; k < 2; k++) {
        run_source(data, size, path, 0, format, k == 0 ? read_max : 0, 0, 0, 1, &b);
        if (!outcomes_agree(&a, &b, 1, why, whylen)) {
            size_t used = strlen(why);
            snprintf(why + used, whylen - used, " (memory whole vs the file %s)", how[k]);
            return 1;
        }
    }
    if (format != SCAN_CSV)
        return 0;
    /* in parts: number rules only, every accumulator exact */
    run_source(data, size, NULL, 1, format, 0, 0, 0, 0, &a);
    for (int k = 0; k < 5; k++) {
        /* the file serially, then in 2 and 3 parts read in pieces and whole */
        int parts = k == 0 ? 1 : 2 + (k - 1) / 2;
        run_source(data, size, path, parts, format, k % 2 ? read_max : 0, 0, 0, 0, &b);
        if (k > 0)
            differential_parts[b.parts > 1]++;
        if (!outcomes_agree(&a, &b, 1, why, whylen)) {
            size_t used = strlen(why);
            snprintf(why + used, whylen - used,
                     " (number rules only: memory whole vs the file %s%s%s)",
                     k == 0       ? "serially"
                     : parts == 2 ? "in 2 parts"
                                  : "in 3 parts",
                     k % 2 ? ", read in pieces" : "", b.parts > 1 ? ", which went in parts" : "");
            return 1;
        }
    }
    return 0;
}

#endif
