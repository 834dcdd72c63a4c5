/*
** scanhelp.h — what the scanner's unit tests (test_scan.c, test_csvpar.c) set up alike:
** a strict accumulator rule, a scratch file and its bytes. Include after testhelp.h.
*/
#ifndef LLMD_SCANHELP_H
#define LLMD_SCANHELP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scan.h"
#include "stats.h"

/* rule: every number at pattern (a CSV column's name for SCAN_CSV, else a JSON path)
   into st, an exact accumulator set up here, strictly (a value that is no number is an
   error). 0, or -1 with err (a JSON path that does not parse, out of memory). */
static inline int test_stats_rule(ScanRule *rule, Stats *st, int format, const char *pattern,
                                  char *err, size_t errlen)
{
    stats_init(st, 0);
    memset(rule, 0, sizeof *rule);
    if (format == SCAN_CSV) {
        if (scan_path_column(pattern, &rule->path) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    } else if (scan_path_parse(pattern, 0, &rule->path, err, errlen) != 0) {
        return -1;
    }
    rule->sink = SINK_STATS;
    rule->stats = st;
    return 0;
}

/* A scanner with one such rule: t->s named name reading format, its rule t->rule at
   pattern into t->st (test_stats_rule). Its input is opened next (scan_open_*), then
   scan_run; test_one_rule_free frees all three. 0, or -1 with err. */
typedef struct TestScan {
    Scanner s;
    ScanRule rule;
    Stats st;
} TestScan;

static inline int test_one_rule(TestScan *t, const char *name, int format, const char *pattern,
                                char *err, size_t errlen)
{
    if (test_stats_rule(&t->rule, &t->st, format, pattern, err, errlen) != 0)
        return -1;
    scan_init(&t->s, name, format);
    t->s.rules = &t->rule;
    t->s.nrules = 1;
    return 0;
}

static inline void test_one_rule_free(TestScan *t)
{
    scan_free(&t->s);
    scan_path_free(&t->rule.path);
    stats_free(&t->st);
}

/* A new empty file named after stem ("/tmp/llmdlua-test-x-XXXXXX"), its name in path
   (cap bytes). 0, or -1 (the folder is not there, or not writable). */
static inline int test_temp_file(char *path, size_t cap, const char *stem)
{
    snprintf(path, cap, "%s", stem);
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* path holds doc[0..n) and nothing else; a failed write ends the test program. */
static inline void test_write_file(const char *path, const void *doc, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(doc, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

#endif
