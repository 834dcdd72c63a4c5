/*
** stats.h — Lua-free numeric accumulators: count, sum, mean, min, max, variance and
** percentiles, exact (every sample kept: 4 bytes each while every one is exactly a
** float, 8 from the first that is not) or as a bounded-memory sketch
** with a guaranteed relative error.
**
** Unknown results are NaN here (the Lua binding turns them into nil): the mean or a
** percentile of no samples, the variance of samples that include an infinity.
**
** Percentile methods:
** - STATS_LINEAR: numpy's default ("linear", Hyndman & Fan type 7): the sorted
**   samples x[0..n-1], h = (p/100)(n-1), interpolated between x[floor(h)] and the
**   next, with numpy's own lerp (so results agree bit for bit). vLLM, AIPerf and
**   inference-perf report these.
** - STATS_NEAREST: nearest rank: x[ceil(p/100 n) - 1] (x[0] for p = 0), which is
**   what guidellm's searchsorted over the cumulative distribution picks.
**
** Sketch mode (DDSketch-style): a sample x > 0 is counted in bucket
** k = ceil(log(x) / log(g)), g = 2^(1/B) with B = floor(log 2 / log((1 + a)/(1 - a))) + 1
** buckets per power of two, so that g < (1 + a)/(1 - a); the bucket's value 2 g^k / (g + 1)
** is within relative error (g - 1)/(g + 1) < a of every x it holds (normal doubles; a
** subnormal estimate is rounded to a multiple of 2^-1074). The bucket is found from the
** double's bits: the exponent gives B buckets, a table indexed by the top mantissa bits
** the bucket at the slice's start and the one boundary a slice can hold; no log. Negative
** samples use a mirrored store, zeros and infinities are counted apart, and min, max,
** count, sum and mean stay exact, the variance as a running one does (Welford's update,
** batches merged by Chan et al.'s formula, both on the samples less the first one, so
** that a large mean costs no digits of a small spread). The buckets cover the whole
** double range, so memory is bounded (2098 B buckets of 8 bytes at most per sign,
** ~590 KB for a = 1%, B = 35) whatever the number of samples. A percentile is the
** method's interpolation between the estimates of its two neighbouring ranks, clamped to
** [min, max]: for samples of one sign it is within relative error a of the exact
** percentile.
*/
#ifndef LLMD_STATS_H
#define LLMD_STATS_H

#include <stddef.h>
#include <stdint.h>

enum { STATS_LINEAR = 0, STATS_NEAREST = 1 };
enum { STATS_OK = 0, STATS_ENAN = -1, STATS_ENOMEM = -2, STATS_EMERGE = -3 };

#define STATS_SKETCH_MIN_ALPHA 1e-4
#define STATS_SKETCH_MAX_ALPHA 0.5

typedef struct StatsStore {
    uint64_t *count; /* count[i] is bucket off + i */
    int32_t off;
    int32_t len;
} StatsStore;

/* Dumped raw between processes (lstats.c): a new field that holds an address goes into
   STATS_POINTER_FIELDS there (a static assertion on the size says so). */
typedef struct Stats {
    int sketch;   /* 0: exact */
    int portable; /* tests: 1 the plain-C loops where SSE2 is there, 2 SSE2 without AVX */
    uint64_t n;   /* every sample, infinities included */
    uint64_t n_pinf, n_ninf;
    double shift;     /* sketch: the first finite sample */
    double mean, m2;  /* sketch: of x - shift over the finite samples (Welford, Chan) */
    double sum, comp; /* Neumaier-compensated sum of the finite samples */
    double min, max;

    /* exact */
    double *v;
    size_t cap;
    /* map_len 0: v is malloc'd. Else v is an anonymous mapping of map_len bytes of its
       own (large samples, in huge pages), grown by mremap and released by munmap. No
       file is ever mapped (stats.load reads a dump's samples into v) */
    size_t map_len;
    int sorted;   /* v is sorted */
    int queries;  /* percentile queries since the last change */
    int m2_known; /* m2_exact holds the samples' sum of squared deviations */
    /* 1: v holds the samples as floats, ((float *)v)[0..n), each exactly its double
       (latencies that are differences of epoch timestamps are: multiples of 2^-22 s
       below 4 s); the first sample that is not widens them in place, once (stats_widen).
       cap counts doubles all the same: v's block always has room to widen */
    int f32;
    double m2_exact;

    /* sketch */
    double alpha;  /* relative error */
    int32_t per2;  /* buckets per power of two */
    int sub_shift; /* sub[] is indexed by a mantissa's bits above this one */
    uint64_t *sub; /* per slice of mantissas: its first bucket and boundary (stats.c) */
    StatsStore pos, neg;
    uint64_t zeros;
} Stats;

/* alpha = 0: exact; else a sketch with that relative error (checked by the caller). */
void stats_init(Stats *s, double alpha);
void stats_free(Stats *s);
/* Empties s, keeping its mode. */
void stats_clear(Stats *s);

/* The samples as doubles in v from here on (exact mode; nothing when they are already):
   widened in place, in their order, the same values. A reader of v outside stats.c
   calls it first; the functions here call it themselves where they need it. */
void stats_widen(Stats *s);

/* out[0..k) = s's samples from..from+k-1 (0-based, in range; exact) as doubles, however
   they are kept: the one way to read them without widening them. */
void stats_samples(const Stats *s, size_t from, size_t k, double *out);

/* Adds src's samples from..from+k-1 (0-based, in range; src exact) to dst, as
   stats_add_many of them would: read as they are kept, src unchanged. */
int stats_add_range(Stats *dst, const Stats *src, size_t from, size_t k);

/* Room for cap samples (exact mode; a sketch keeps none): v as stats_add grows it, n and
   the samples unchanged. STATS_OK, or STATS_ENOMEM. For a caller that fills v[n..cap)
   itself (stats.load reads a dump's samples there, no copy in between): it writes
   doubles and sets f32 to 0, or floats and sets it to 1 (on an empty accumulator). */
int stats_reserve(Stats *s, size_t cap);

/* A growing array's block (Stats.v, stats.column's values): p (NULL at first) of which the
   first used bytes are kept, grown to at least bytes; *map_len as Stats.map_len (0:
   malloc'd; else a mapping of that length), updated: a mapping of its own from map_from
   bytes on, grown by mremap (in huge pages where map_from is 2 MiB or more, Stats.v's;
   else in 4 KiB pages); *got the room it has.
   NULL when memory is short (p and *map_len as they were). stats_block_free gives it
   back. */
void *stats_block_grow(void *p, size_t *map_len, size_t used, size_t bytes, size_t map_from,
                       size_t *got);
void stats_block_free(void *p, size_t map_len);

int stats_add(Stats *s, double x);
/* Adds xs[0..k) as k stats_add calls would; with a NaN among them, adds none. */
int stats_add_many(Stats *s, const double *xs, size_t k);
/* Adds src's samples to dst: exact + exact, sketch + sketch (same alpha) or
   sketch + exact. An exact dst cannot take a sketch (STATS_EMERGE). */
int stats_merge(Stats *dst, const Stats *src);

double stats_sum(const Stats *s);
double stats_mean(const Stats *s);
/* Variance with ddof 0 (population) or 1 (sample); NaN when unknown. */
double stats_variance(Stats *s, int ddof);
double stats_min(const Stats *s);
double stats_max(const Stats *s);

/* p in [0, 100]. May reorder the samples (exact mode). NaN when empty. */
double stats_percentile(Stats *s, double p, int method);
/*
** Several percentiles at once: out[i] for ps[i]. On unsorted exact samples one
** multi-selection finds every rank needed (O(n log k)) instead of a sort.
*/
void stats_percentiles(Stats *s, const double *ps, double *out, int k, int method);
/*
** stats_percentiles, and the variance's sum of squared deviations (stats_variance then
** looks it up): in the percentiles' own pass over the samples when
** stats_percentiles_give_variance(s) says there is one (a large unsorted exact sample,
** first query, the variance not known yet), summed in the samples' present order: a
** caller that wants both asks for the percentiles first then, and the variance costs no
** pass of its own, the same bits. (Elsewhere the variance is left for later.)
*/
void stats_percentiles_variance(Stats *s, const double *ps, double *out, int k, int method);
int stats_percentiles_give_variance(const Stats *s);
/* Sorts the kept samples now (exact mode; nothing for a sketch): every percentile query
   after it is a look-up, for a caller about to ask many. Floats stay floats where they
   are sorted by counting (else widened first): read them with stats_samples. */
void stats_sort(Stats *s);

/*
** Mann-Whitney U test of two exact accumulators (sorts both): u is the U statistic of a
** (pairs (x in a, y in b) with x > y, ties counting 1/2), z its normal approximation
** with the tie correction (no continuity correction, as scipy's method="asymptotic",
** use_continuity=False), p the two-sided p-value erfc(|z|/sqrt 2), and effect
** u / (n1 n2), the probability that a sample of a exceeds one of b. Returns
** STATS_EMERGE for a sketch (it keeps no samples) and -4 when either is empty or
** every sample ties (z is undefined).
*/
typedef struct StatsMWU {
    double u, z, p, effect;
    double var; /* the variance of u under the null, with the tie correction */
} StatsMWU;
int stats_mann_whitney(Stats *a, Stats *b, StatsMWU *out);

/* Sorted samples held as runs of a value (lstats.c: a loaded dump of runs, not yet written
   out as samples): val[i] from rank end[i-1] (0 for i = 0) to end[i] - 1; end ascends, its
   last the number of samples. */
typedef struct StatsRuns {
    double *val;
    uint64_t *end;
    size_t nr;
} StatsRuns;

/*
** src's samples from..from+k-1 (exact, kept as floats) taken as stats_add_range of them
** into an empty accumulator would take them, without copying them: out (empty, exact;
** its portable is kept) gets their count, sum, extremes, order and the variance's sum of
** squared deviations in their order; then the range is counted (as quantum_sort counts
** it) and given as runs (val and end malloc'd), out's samples held so (v NULL); src is left
** as it is. 0; -1 when the range cannot be (fewer than 2^16 samples, not floats, a NaN or
** an infinity, values too fine to count, memory short): out unchanged.
*/
int stats_range_runs(const Stats *src, size_t from, size_t k, Stats *out, StatsRuns *runs);
/* stats_percentile of the sorted samples the runs hold (the same steps, the same bits). */
double stats_percentile_runs(const StatsRuns *r, double p, int method);
/* stats_variance of s whose sorted samples the runs r hold, none written out (the same bits
   as over them written out; its sum of squared deviations kept, as stats_variance's). */
double stats_variance_runs(Stats *s, const StatsRuns *r, int ddof);
/* stats_mann_whitney where a side's sorted samples are held as runs (ra, rb; NULL: that
   side's own samples, sorted first as there): the same sums in the same order. */
int stats_mann_whitney_runs(Stats *a, const StatsRuns *ra, Stats *b, const StatsRuns *rb,
                            StatsMWU *out);

/* The percentage of samples <= x (0..100); NaN when empty. */
double stats_rank(Stats *s, double x);

/* A sketch's estimate of a finite sample x: its bucket's value (0 for 0), as a percentile
   landing in that bucket reports it before clamping. NaN for an exact accumulator or when
   memory is short. */
double stats_sketch_estimate(Stats *s, double x);

/*
** A saved state, to undo the additions of a failed pass: stats_save, then either
** stats_restore (back to the saved state) or stats_saved_free. Exact mode keeps the
** samples added since and drops them on restore (the first n must not have been
** reordered by a percentile query in between; restore leaves them unsorted).
*/
typedef struct StatsSaved {
    Stats s;
    uint64_t *pos, *neg; /* sketch: copies of the buckets */
} StatsSaved;
int stats_save(const Stats *s, StatsSaved *sv);
void stats_restore(Stats *s, StatsSaved *sv);
void stats_saved_free(StatsSaved *sv);

/* Bytes of sample or bucket memory held. */
size_t stats_memory(const Stats *s);

/*
** The design effect of the n values xs in their order (llmd.decision.design_effect has the
** why): their mid-ranks, centred (rank - (n + 1) / 2), r[0..n-1]; c0 = sum of r[t]^2;
** rho(k) = sum over t < n - k of r[t] r[t + k], over c0; tau = -1 + 2 sum of
** G(m) = rho(2m) + rho(2m + 1) (rho(0) = 1) for m = 0, 1, ... while 2m + 1 <= min(max_lag,
** n - 2) and G(m) > 0 (Geyer's initial positive sequence). Every sum is taken in index
** order, one rounding an operation, as the Lua that this replaces did, so that *tau is
** bit for bit that Lua's (the caller takes max(1, tau)). Returns STATS_OK, 1 when every
** value ties (c0 = 0: no tau), STATS_ENAN for a NaN among xs, STATS_ENOMEM.
*/
int stats_design_effect(const double *xs, size_t n, size_t max_lag, double *tau);

/*
** The same sum on the values themselves, centred on their mean (xs[t] - sum / n, the sum in
** index order), not their ranks: how far their order inflates the variance of their mean
** (llmd.decision.value_design_effect has the why). Returns STATS_OK, 1 when every value is
** the same (or c0 = 0), STATS_ENAN for a NaN, STATS_ENOMEM.
*/
int stats_value_design_effect(const double *xs, size_t n, size_t max_lag, double *tau);

/*
** Each percentile's design effect of the n values xs in their order (llmd.decision
** quantile_design_effects has the why): for pcts[j], v the value at the nearest rank
** max(1, ceil(n * pcts[j] / 100)) (1-based) and stats_value_design_effect's sum (max_lag)
** on the indicator series 1{xs[t] <= v}; d[j] = that tau where above 1, else 1 (1 too
** where n < min_n: no sum), NaN where there is no such rank (n = 0, pcts[j] above 100).
** Returns STATS_OK, STATS_ENAN for a NaN among xs (d unset), STATS_ENOMEM.
*/
int stats_quantile_design_effects(const double *xs, size_t n, const double *pcts, size_t np,
                                  size_t min_n, size_t max_lag, double *d);

/* The order of the n keys: perm[0..n-1] the indexes (0-based) sorted by key, ties by
   index. STATS_ENAN for a NaN key (no order), STATS_ENOMEM. */
int stats_order(const double *keys, size_t n, size_t *perm);

/* A quantile grid as llmd.charts mixes them: n >= 1 points, shares q[0..n-1] (%) and
   values v[0..n-1]; sorted: the values do not decrease and none is NaN (stats_grid_sorted). */
typedef struct StatsGrid {
    const double *q, *v;
    size_t n;
    int sorted;
} StatsGrid;

/* Do the n values v not decrease, none NaN? (A grid's point at or below x is then found by
   bisection, else by walking the grid from its start: the same point either way.) */
int stats_grid_sorted(const double *v, size_t n);

/*
** The quantile grid of a mixture of the k grids g (weights w, summing to 1), as
** llmd.charts.mix_grids computed it in Lua, bit for bit: for each share qs[j] > 0, iters
** halvings of [a, b] = [lo, hi]: m = (a + b) / 2, f = the sum in grid order of w[i] times
** grid i's share at or below m (0 below its first value, its last share from its last value
** on, else linear from the last point at or below m: q + (q' - q) * (m - v) / (v' - v)),
** each operation rounded once; b = m where f >= qs[j] - tol, else a = m. out[j] = b and
** moved[j] = 1 where b moved; moved[j] = 0 (out[j] unset) where it stayed at hi, or qs[j] is
** not above 0 (the caller takes lo or hi as it has them).
*/
void stats_mix_grids(const StatsGrid *g, const double *w, size_t k, double lo, double hi,
                     const double *qs, size_t nq, int iters, double tol, double *out,
                     unsigned char *moved);

#endif
