/*
** prom.h — Lua-free Prometheus text exposition (0.0.4, and the OpenMetrics features
** vLLM emits) parsing, and an aggregator over many scrapes of many pods.
**
** Series identity is (pod, metric name, full label set); label order does not matter.
** Counter-like series (counters, histogram _bucket/_sum/_count, summary _sum/_count)
** keep first/last/min/max, resets (a drop in value) and the increase over the window
** with reset handling: the sum of rises, and after a drop the new value (the counter
** restarted from 0) — Prometheus' increase() without extrapolation. A counter whose
** _created time lies inside the window counts its first value too: it started at 0
** within the window (a pod that appears late). A _created companion that moves between
** scrapes also marks a reset (the process restarted), even when the value did not drop.
** Gauges keep their samples (or a sketch) for percentiles, and a time-weighted mean (each
** value held until the next).
*/
#ifndef LLMD_PROM_H
#define LLMD_PROM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

typedef enum PromType {
    PROM_UNTYPED = 0,
    PROM_COUNTER,
    PROM_GAUGE,
    PROM_HISTOGRAM,
    PROM_SUMMARY,
    PROM_INFO,
    PROM_STATESET,
    PROM_GAUGEHISTOGRAM,
} PromType;

const char *prom_type_name(PromType t);

typedef struct PromLabel {
    const char *name, *value; /* value unescaped; both valid during the callback */
    size_t nlen, vlen;
} PromLabel;

#define PROM_MAX_LABELS 64

typedef struct PromSample {
    const char *name;
    size_t nlen;
    PromLabel labels[PROM_MAX_LABELS];
    int nlabels;
    double value;
    int has_ts;
    double ts;     /* as written: milliseconds in 0.0.4, seconds in OpenMetrics */
    PromType type; /* of the family the sample belongs to (by # TYPE) */
    uint64_t line;
    const char *raw; /* the name and labels exactly as written */
    size_t rawlen;
} PromSample;

/* Return non-zero to stop the parse (the caller set its own error). */
typedef int (*PromSampleFn)(void *ud, const PromSample *s);

typedef struct PromFamily {
    size_t name; /* offset of the name in the parser's names */
    size_t nlen;
    PromType type;
} PromFamily;

typedef struct PromParser {
    int tolerant;     /* skip malformed lines (counted) instead of failing */
    uint64_t skipped; /* lines skipped in tolerant mode */
    char first_bad[256];
    PromFamily *fam; /* # TYPE lines of the current text */
    size_t nfam, capfam;
    char *names; /* their names, one after another */
    size_t nnames, capnames;
    char *scratch; /* unescaped label values */
    size_t scap;
    char err[256];
    /* a signal handler's counter: when it differs from interrupt_base (checked at every
       line) the parse fails with "interrupted", tolerant or not */
    const volatile sig_atomic_t *interrupted;
    sig_atomic_t interrupt_base;
} PromParser;

void prom_parser_init(PromParser *p);
void prom_parser_free(PromParser *p);
/* Parses text[0..len), calling fn per sample. 0, -1 with p->err, or -2 if fn stopped. */
int prom_parse(PromParser *p, const char *text, size_t len, PromSampleFn fn, void *ud);
/* The same over an open file, read in 1 MiB pieces cut at line ends: memory stays
   bounded by the longest line, whatever the file's size. */
int prom_parse_fd(PromParser *p, int fd, PromSampleFn fn, void *ud);

/* ---- the aggregator ---------------------------------------------------------- */

typedef struct PromSeries {
    char *pod, *name, *labels; /* labels canonical: a="x",b="y" sorted by name */
    size_t pod_len, name_len, labels_len;
    uint64_t hash;
    int type;
    int counter_like;
    int created; /* a _created companion (by name: 0.0.4 types it as a gauge of its own) */
    uint64_t samples, resets;
    double first_t, first_v, last_t, last_v, min, max, increase;
    /* counters: the value before the last sample, whether that sample was a reset, and a
       reset announced by the _created companion before this series' sample came */
    double prev_v, pending_t;
    int last_reset, pending_reset;
    /* counter-like, no _created companion, sampled, no reset pending: a sample later in
       time that does not fall moves only increase, max and the last sample (update's
       answer too; cached_run's path takes it without update) */
    int fast;
    double tw_sum, tw_dur; /* gauges: sum of value x time held, and the time */
    Stats *values;         /* gauges: every sample (or a sketch) */
} PromSeries;

typedef struct PromRaw {
    uint64_t hash;
    char *key; /* pod \1 name{labels} as written */
    size_t klen;
    uint32_t series; /* index + 1; 0: an empty slot */
} PromRaw;

/*
** The k-th sample of a pod's last scrape: the text from the end of the sample line
** before it up to its value (comment and blank lines, then name{labels} and the blanks
** after them), and the series it led to.
*/
typedef struct PromPos {
    char *text; /* NULL: nothing known (and len SIZE_MAX, longer than any text); in the
                   aggregator's arena */
    size_t len, cap;
    size_t line_off; /* where the sample line starts in text */
    uint64_t lines;  /* the lines before it in text */
    uint32_t series; /* index + 1; 0: a name that match leaves out */
} PromPos;

/*
** A pod's scrapes repeat the same lines in the same order, values aside. Where the next
** bytes of a scrape are the text its next sample position had last time, each line in
** them reads as it did then (a line's parse depends on its bytes alone: the # TYPE
** lines only type series not seen before), so only the value is read. Elsewhere a sample
** line that begins with the same name{labels} and blanks still skips the label parse.
*/
typedef struct PromPodCache {
    char *pod;
    PromPos *pos; /* in the aggregator's arena */
    size_t npos, cap;
} PromPodCache;

/* The bytes the pod caches may hold together: a few hundred pods of vLLM scrapes (a pod
   per scrape would otherwise keep every scrape). */
#define PROM_CACHE_MAX ((size_t)16 << 20)

typedef struct PromAgg {
    PromSeries *series;
    size_t n, cap;
    /* hash table of series: index + 1 in the low half, the hash's high half above (a
       miss, as every new series is, reads no series); 0: empty */
    uint64_t *slot;
    size_t nslot;
    /* a cache from the text as written (pod, name{labels}) to the series */
    struct PromRaw *raw;
    size_t nraw, rawcap;
    char **match; /* name filters: exact, or a prefix ending in '*' */
    int nmatch;
    double gauge_sketch; /* 0: exact gauges */
    PromParser parser;
    double t_min, t_max;
    uint64_t scrapes, samples, nan_samples;
    uint64_t dropped; /* tolerant: duplicate or out-of-order samples left out */
    PromPodCache *pods;
    size_t npods, cappods;
    int no_cache;    /* read every line in full (the tests' truth for the cache) */
    int wide;        /* the cache's compare in AVX2 (prom_agg_init: when the CPU has it), else
                        memcmp (the tests choose both) */
    uint64_t cached; /* samples whose labels the cache spared parsing */
    uint64_t whole;  /* of those, values read as whole_value reads them */
    size_t cache_bytes, cache_max; /* what the pod caches hold, and may (PROM_CACHE_MAX) */
    /* prom_agg_find's index of the series by name, made by the first query and extended
       by the next ones to the series made since (an add pays nothing for it): per name
       its hash, first and last series (index + 1), chained in insertion order by
       name_next (index + 1; 0: the last) */
    struct PromName *names;
    size_t nnames, namecap; /* names in use, slots (a power of 2; 0: no index) */
    size_t name_prev;       /* the slot of series[named - 1]'s name (SIZE_MAX: moved) */
    uint32_t *name_next;
    size_t named, nextcap; /* series indexed (series[0..named)), name_next's room */
    char *file;            /* prom_agg_load's text: one buffer, the size of the largest file */
    size_t flen, fcap;
    int loaded; /* Lua: a file read and not yet added */
    /* during add */
    const char *pod;
    size_t pod_len;
    uint64_t pod_hash;
    PromPodCache *cur; /* the pod's cache, or NULL (out of memory) */
    size_t found;      /* the series of the sample the callback took (SIZE_MAX: none) */
    double t;
    char *key;
    size_t kcap;
    /* the series' strings (pod, name, labels), the raw keys, the pod caches' texts and
       the gauges' Stats: cut from chunks freed together (prom_agg_free), not a malloc
       and a free each (a vLLM pod's first scrape makes ~500 series, each with 5 strings) */
    char *arena;       /* the free bytes of the newest chunk */
    size_t arena_left; /* how many */
    void *chunks;      /* the chunks, each headed by its link to the one before (prom.c) */
    char err[512];
} PromAgg;

void prom_agg_init(PromAgg *a);
void prom_agg_free(PromAgg *a);
/* Adds one scrape of one pod at time t (seconds). 0, or -1 with a->err. */
int prom_agg_add(PromAgg *a, const char *pod, const char *text, size_t len, double t,
                 const char *name);
/* prom_agg_add of text that followed line0 lines of plain comments (a raw scrape's header:
   they change nothing but the line numbers of errors). */
int prom_agg_add_lines(PromAgg *a, const char *pod, const char *text, size_t len, uint64_t line0,
                       double t, const char *name);
/* llm-d-benchmark's header Timestamp, "2026-02-16T09:20:32+0000" (date +%Y-%m-%dT%H:%M:%S%z;
   the offset's colon optional) or "...Z", in s[0..n): 1 with Unix seconds in *t, else 0. */
int prom_parse_timestamp(const char *s, size_t n, int64_t *t);
/* Reads the file at path into a->file[0..a->flen) (NUL-terminated, reusing the buffer of
   the last call). 0, or -1 with a->err naming the file. With skip_empty, a file of 0 bytes
   (by its size: one that cannot be opened too, and a FIFO, which is not waited for) is not
   read: 1, a->flen 0. */
int prom_agg_load(PromAgg *a, const char *path, int skip_empty);
/* The series of a metric name, in insertion order: indices into a->series (an index by
   name, extended as it goes: hence not const). */
size_t prom_agg_find(PromAgg *a, const char *name, size_t *out, size_t max);
/* A label's value in a series' canonical label text ("" when absent). */
size_t prom_label(const PromSeries *s, const char *label, char *out, size_t size);
/* The value of series s's _created companion (NaN when none was scraped). */
double prom_created(const PromAgg *a, const PromSeries *s);
/* Is the increase of s complete from its start (created within the window)? */
double prom_increase(const PromAgg *a, const PromSeries *s);

/* Prometheus histogram_quantile over (upper bound, cumulative count) pairs sorted by
   bound, the last +Inf: NaN when there are no observations or no +Inf bucket. */
double prom_bucket_quantile(double q, const double *le, double *cum, size_t n);

#endif
