/*
** test_stats.c — accumulators against a naive reference: copy, qsort, and the
** textbook formulas (numpy's linear interpolation, nearest rank, two-pass variance
** in software quad precision). Random data of many sizes, with duplicates, infinities and single
** samples; the sketch's relative-error bound on skewed and heavy-tailed data.
*/
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h> /* malloc_trim */
#endif

#include "stats.h"
#include "testhelp.h"

/* Quad precision for reference sums: GCC's __float128 on x86-64; on aarch64 long double is
   already IEEE binary128 (and __float128 does not exist there). */
#if defined(__aarch64__)
typedef long double quad;
#else
typedef __float128 quad;
#endif

static uint64_t rng = 0x243F6A8885A308D3ULL;

static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double uniform(void)
{
    return (double)(next_u64() >> 11) / 9007199254740992.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy.percentile(x, p) with method="linear", written out as numpy's code does. */
static double ref_linear(const double *sorted, size_t n, double p)
{
    double h = (p / 100.0) * (double)(n - 1);
    double lo = floor(h);
    size_t k = (size_t)lo;
    if (k >= n - 1)
        return sorted[n - 1];
    double a = sorted[k], b = sorted[k + 1], t = h - lo;
    if (a == b || t == 0)
        return a;
    if (isinf(a) || isinf(b))
        return isinf(a) && isinf(b) ? NAN : (isinf(a) ? a : b);
    double d = b - a;
    return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}

/* nearest rank: the smallest x with at least p% of the samples <= x */
static double ref_nearest(const double *sorted, size_t n, double p)
{
    for (size_t i = 0; i < n; i++)
        if (100.0 * (double)(i + 1) >= p * (double)n)
            return sorted[i];
    return sorted[n - 1];
}

/* Sample i of s as kept (floats or doubles, Stats.f32): read through stats_samples, the
   one reader that does not widen them. */
static double kept(const Stats *s, size_t i)
{
    double x;
    stats_samples(s, i, 1, &x);
    return x;
}

static int same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static double near_rel(double got, double want)
{
    if (got == want)
        return 0;
    return fabs(got - want) / fmax(fabs(want), 1e-300);
}

/*
** The sum of (v[i] - mean)^2 as stats.c forms each term (the difference and the square
** each rounded to a double), added in quad precision and rounded once to a double: the
** terms are >= 0, so the quad sum is within n 2^-113 of the exact one, far below a
** double's last bit for the counts here; the exact sum rounded once, but when it lies
** that close to a midpoint between two doubles (not so in these streams).
*/
static double exact_sq_sum(const double *v, size_t n, double mean)
{
    quad q = 0;
    for (size_t i = 0; i < n; i++) {
        double d = v[i] - mean;
        q += (quad)(d * d);
    }
    return (double)q;
}

/* The peak resident memory of this process (VmHWM, kB), or -1 where there is none. */
static long peak_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

int main(void)
{
    static const size_t sizes[] = {1, 2, 3, 4, 10, 25, 26, 100, 999, 1000, 10007, 100000};
    static const double ps[] = {0, 0.1, 1, 5, 10, 25, 33.3, 50, 66.7, 75, 90, 95, 99, 99.9, 100};

    TEST("exact percentiles equal the sort-based reference (selection and sort paths)")
    {
        int bad = 0;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            for (int kind = 0; kind < 4; kind++) {
                size_t n = sizes[si];
                double *x = malloc(n * sizeof *x), *ref = malloc(n * sizeof *ref);
                for (size_t i = 0; i < n; i++) {
                    switch (kind) {
                    case 0:
                        x[i] = uniform() * 1000 - 500;
                        break; /* spread */
                    case 1:
                        x[i] = (double)(next_u64() % 7);
                        break; /* duplicates */
                    case 2:
                        x[i] = (double)(n - i);
                        break; /* descending */
                    default:
                        x[i] = i % 17 == 3 ? HUGE_VAL : i % 19 == 5 ? -HUGE_VAL : uniform();
                    }
                }
                memcpy(ref, x, n * sizeof *x);
                qsort(ref, n, sizeof *ref, cmp_double);
                for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
                    /* a fresh accumulator per p: the first query takes the selection path */
                    Stats s;
                    stats_init(&s, 0);
                    for (size_t i = 0; i < n; i++)
                        stats_add(&s, x[i]);
                    double first = stats_percentile(&s, ps[pi], STATS_LINEAR);
                    double again = stats_percentile(&s, ps[pi], STATS_LINEAR); /* sorted now */
                    double want = ref_linear(ref, n, ps[pi]);
                    double nr = stats_percentile(&s, ps[pi], STATS_NEAREST);
                    if (!same(first, want) || !same(again, want) ||
                        !same(nr, ref_nearest(ref, n, ps[pi]))) {
                        if (bad++ < 5)
                            fprintf(stderr, "  n=%zu kind=%d p=%g: %.17g %.17g want %.17g\n", n,
                                    kind, ps[pi], first, again, want);
                    }
                    stats_free(&s);
                }
                free(x);
                free(ref);
            }
        }
        CHECK(bad == 0);
    }

    TEST("percentiles asked together (multi-selection) equal the reference")
    {
        int bad = 0;
        double out[sizeof ps / sizeof ps[0]];
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            for (int method = 0; method < 2; method++) {
                size_t n = sizes[si];
                double *x = malloc(n * sizeof *x), *ref = malloc(n * sizeof *ref);
                Stats s;
                stats_init(&s, 0);
                for (size_t i = 0; i < n; i++) {
                    x[i] = (double)(next_u64() % 1000) / 7.0;
                    stats_add(&s, x[i]);
                }
                memcpy(ref, x, n * sizeof *x);
                qsort(ref, n, sizeof *ref, cmp_double);
                int k = (int)(sizeof ps / sizeof ps[0]);
                stats_percentiles(&s, ps, out, k, method);
                for (int i = 0; i < k; i++) {
                    double want = method == STATS_LINEAR ? ref_linear(ref, n, ps[i])
                                                         : ref_nearest(ref, n, ps[i]);
                    if (!same(out[i], want) && bad++ < 5)
                        fprintf(stderr, "  n=%zu method=%d p=%g: %.17g want %.17g\n", n, method,
                                ps[i], out[i], want);
                    /* later single queries (sorting now) agree too */
                    if (!same(stats_percentile(&s, ps[i], method), want) && bad++ < 5)
                        fprintf(stderr, "  again n=%zu p=%g\n", n, ps[i]);
                }
                stats_free(&s);
                free(x);
                free(ref);
            }
        }
        CHECK(bad == 0);
    }

    TEST("the first query of a large sample (histogram) equals the reference, any sign")
    {
        /* The reference: qsort of a copy and numpy's rule written out above. Samples:
           latencies (all > 0: the bins read from the bits alone), zeros of both signs where
           the least or the greatest sample is a zero (the first zero seen is the extreme,
           the other sign lies beyond it: it must land in a bin all the same), and up to
           200 percentiles at once (more wanted bins than the histogram marks: selection). */
        static double many_ps[200];
        for (int i = 0; i < 200; i++)
            many_ps[i] = i * 0.5;
        int bad = 0;
        for (int kind = 0; kind < 4; kind++) {
            size_t n = 5000 + (size_t)kind * 7919;
            double *x = malloc(n * sizeof *x), *ref = malloc(n * sizeof *ref);
            for (size_t i = 0; i < n; i++) {
                double u = uniform();
                if (kind == 0 || kind == 3) /* latencies, log-spread */
                    x[i] = 0.014 * exp(4 * u - 2);
                else if (kind == 1) /* the least sample is +0 (first), -0 after it */
                    x[i] = i == 1 ? 0.0 : i % 50 == 7 ? -0.0 : i % 50 == 9 ? 0.0 : 1 + u;
                else /* the greatest sample is -0 (first), +0 after it */
                    x[i] = i == 1 ? -0.0 : i % 50 == 7 ? 0.0 : i % 50 == 9 ? -0.0 : -1 - u;
            }
            memcpy(ref, x, n * sizeof *x);
            qsort(ref, n, sizeof *ref, cmp_double);
            int k = kind == 3 ? 200 : 15;
            const double *qs = kind == 3 ? many_ps : ps;
            for (int method = 0; method < 2; method++) {
                Stats s;
                stats_init(&s, 0);
                CHECK(stats_add_many(&s, x, n) == STATS_OK && !s.sorted);
                double out[200];
                stats_percentiles(&s, qs, out, k, method);
                for (int i = 0; i < k; i++) {
                    double want = method == STATS_LINEAR ? ref_linear(ref, n, qs[i])
                                                         : ref_nearest(ref, n, qs[i]);
                    if (!(out[i] == want) && bad++ < 5)
                        fprintf(stderr, "  kind %d method %d p=%g: %.17g want %.17g\n", kind,
                                method, qs[i], out[i], want);
                }
                stats_free(&s);
            }
            free(x);
            free(ref);
        }
        CHECK(bad == 0);
    }

    TEST("count, sum, mean, variance, min, max against two-pass quad-precision sums")
    {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            Stats s;
            stats_init(&s, 0);
            double *x = malloc(n * sizeof *x);
            quad sum = 0; /* software quad precision: exact enough, and the same
                                   under valgrind, which computes long double as double */
            for (size_t i = 0; i < n; i++) {
                x[i] = 1e6 + uniform() * 1e-3; /* large mean, small spread: hard for naive sums */
                stats_add(&s, x[i]);
                sum += x[i];
            }
            quad mean = sum / (quad)n, ss = 0;
            for (size_t i = 0; i < n; i++)
                ss += (x[i] - mean) * (x[i] - mean);
            CHECK(s.n == n);
            CHECK(near_rel(stats_sum(&s), (double)sum) < 1e-15);
            CHECK(near_rel(stats_mean(&s), (double)mean) < 1e-15);
            CHECK(near_rel(stats_variance(&s, 0), (double)(ss / (quad)n)) < 1e-6);
            if (n > 1)
                CHECK(near_rel(stats_variance(&s, 1), (double)(ss / (quad)(n - 1))) < 1e-6);
            else
                CHECK(isnan(stats_variance(&s, 1)));
            free(x);
            stats_free(&s);
        }
    }

    TEST("add_many equals adding one at a time; with a NaN among them it adds none")
    {
        for (int mode = 0; mode < 6; mode++) { /* exact, sketch; best, plain C, SSE2 only */
            int sketch = mode & 1;
            Stats one, many;
            stats_init(&one, sketch ? 0.01 : 0);
            stats_init(&many, sketch ? 0.01 : 0);
            many.portable = mode / 2;
            double batch[300];
            int bad = 0;
            for (int round = 0; round < 200; round++) {
                size_t k = (size_t)(next_u64() % 300);
                for (size_t i = 0; i < k; i++) {
                    uint64_t r = next_u64() % 100;
                    /* ascending runs (the sorted flag), infinities, zeros and negatives */
                    batch[i] = r == 0   ? HUGE_VAL
                               : r == 1 ? -HUGE_VAL
                               : r < 50 ? (double)round + (double)i
                                        : uniform() * 200 - 100;
                    if (stats_add(&one, batch[i]) != STATS_OK)
                        bad = 1;
                }
                if (stats_add_many(&many, batch, k) != STATS_OK)
                    bad = 1;
            }
            CHECK(bad == 0);
            CHECK(one.n == many.n && one.n_pinf == many.n_pinf && one.n_ninf == many.n_ninf);
            CHECK(same(one.min, many.min) && same(one.max, many.max));
            CHECK(memcmp(&one.sum, &many.sum, sizeof one.sum) == 0);
            CHECK(memcmp(&one.comp, &many.comp, sizeof one.comp) == 0);
            if (!sketch) {
                CHECK(one.sorted == many.sorted);
                CHECK(memcmp(one.v, many.v, one.n * sizeof *one.v) == 0);
            }
            for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++)
                CHECK(same(stats_percentile(&one, ps[pi], 0), stats_percentile(&many, ps[pi], 0)));
            uint64_t n = many.n;
            double nan_batch[3] = {1, NAN, 2};
            CHECK(stats_add_many(&many, nan_batch, 3) == STATS_ENAN && many.n == n);
            stats_free(&one);
            stats_free(&many);
        }
        Stats s; /* ascending batches stay sorted; one step down unsorts */
        stats_init(&s, 0);
        double up[3] = {1, 2, 3}, more[2] = {3, 4}, down[2] = {5, 4.5};
        CHECK(stats_add_many(&s, up, 3) == STATS_OK && stats_add_many(&s, more, 2) == STATS_OK);
        CHECK(s.sorted == 1);
        CHECK(stats_add_many(&s, down, 2) == STATS_OK && s.sorted == 0);
        stats_free(&s);
    }

    TEST("add_many's one-pass lane (finite batches) is the textbook loop, bit for bit")
    {
        /* the reference: Neumaier's compensated sum with its two branches as published,
           min and max by strict comparison (the first of equal extremes stays: -0 or +0),
           sorted while no sample is below the one before; written here, not taken from
           stats.c. Streams: magnitudes far apart and both signs (each branch taken),
           signed zeros as the extremes, and ascending runs. */
        int bad = 0;
        for (int kind = 0; kind < 9; kind++) {
            Stats s;
            stats_init(&s, 0);
            /* each stream through the best lane (AVX where the CPU has it), the plain C
               one and SSE2 alone */
            s.portable = kind / 3;
            double sum = 0, comp = 0, lo = HUGE_VAL, hi = -HUGE_VAL, prev = -HUGE_VAL;
            int sorted = 1;
            size_t n = 0;
            double batch[300];
            for (int round = 0; round < 400; round++) {
                size_t k = (size_t)(next_u64() % 300);
                for (size_t i = 0; i < k; i++) {
                    uint64_t r = next_u64() % 8;
                    double zero = next_u64() & 1 ? 0.0 : -0.0;
                    if (kind % 3 == 0) /* |x| above and below |sum|, subnormals */
                        batch[i] = r == 0   ? zero
                                   : r == 1 ? ldexp(uniform() - 0.5, (int)(next_u64() % 200) - 100)
                                   : r == 2 ? 4.9e-324 * (double)(next_u64() % 5)
                                   : r < 5  ? (next_u64() & 1 ? -1 : 1) *
                                                 ldexp(1 + uniform(), (int)(next_u64() % 60))
                                           : (uniform() - 0.5) * 1e6;
                    else if (kind % 3 == 1) /* zeros of both signs and positives: min is a zero */
                        batch[i] = r < 4 ? zero : uniform() * 10;
                    else /* ascending, with a step down now and then */
                        batch[i] = (double)n + (double)i * 0.25 - (r == 0 && round % 7 == 6);
                }
                for (size_t i = 0; i < k; i++) {
                    double x = batch[i], t = sum + x;
                    if (fabs(sum) >= fabs(x))
                        comp += (sum - t) + x;
                    else
                        comp += (x - t) + sum;
                    sum = t;
                    if (x < lo)
                        lo = x;
                    if (x > hi)
                        hi = x;
                    if (sorted && x < prev)
                        sorted = 0;
                    prev = x;
                }
                if (stats_add_many(&s, batch, k) != STATS_OK)
                    bad = 1;
                n += k;
                if (memcmp(&s.sum, &sum, sizeof sum) != 0 ||
                    memcmp(&s.comp, &comp, sizeof comp) != 0 ||
                    memcmp(&s.min, &lo, sizeof lo) != 0 || memcmp(&s.max, &hi, sizeof hi) != 0 ||
                    s.sorted != sorted || s.n != n) {
                    if (bad++ == 0)
                        fprintf(stderr, "  stream %d, batch %d: differs from the reference\n", kind,
                                round);
                }
                if (kind % 3 == 2 && round == 5) /* still sorted before the first step down */
                    CHECK(s.sorted == 1);
            }
            if (kind % 3 == 1) /* the extremes here are signed zeros: both kinds were seen */
                CHECK(lo == 0 && s.min == 0);
            stats_free(&s);
        }
        CHECK(bad == 0);
        /* by hand: the first of equal extremes stays, whichever lane of two it is in */
        for (int portable = 0; portable <= 2; portable++) {
            static const double zs[][6] = {
                {1,  -0.0, 0.0,  0.0,  0.0,  0.0 },
                {1,  0.0,  -0.0, -0.0, -0.0, -0.0},
                {-1, 0.0,  -0.0, -0.0, -0.0, -0.0},
                {-1, -0.0, 0.0,  0.0,  0.0,  0.0 }
            };
            for (int z = 0; z < 4; z++) {
                Stats s;
                stats_init(&s, 0);
                s.portable = portable;
                CHECK(stats_add_many(&s, zs[z], 6) == STATS_OK);
                if (z < 2) /* the least is a zero: -0 first, then +0 first */
                    CHECK(s.min == 0 && !signbit(s.min) == (z == 1));
                else /* the greatest is a zero: +0 first, then -0 first */
                    CHECK(s.max == 0 && !signbit(s.max) == (z == 2));
                stats_free(&s);
            }
        }
    }

    TEST("the exact variance's sum of squares is the exact sum rounded once, in every lane")
    {
        /* the reference (exact_sq_sum, written here): the squared deviations from the
           accumulator's mean as stats.c forms them, summed in quad precision and rounded
           once. The sum is in four lanes (each sample's index's), each a compensated sum,
           combined at the end: held to the exact sum rounded once (not to one chain's
           bits), and the same bits through the best lane (AVX where the CPU has it), the
           plain C one and SSE2 alone. Counts with 0..3 samples past the last four, and
           fewer than four. Samples: epoch seconds (a large mean, a small spread: the
           deviations cancel most digits), both signs over 80 binary orders, latencies
           with zeros, squares over 600 binary orders. */
        int bad = 0;
        static const size_t ns[] = {3, 1001, 4002, 4003};
        double *x = malloc(4003 * sizeof *x);
        for (int kind = 0; kind < 4; kind++)
            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
                size_t n = ns[ni];
                for (size_t i = 0; i < n; i++) {
                    double u = uniform();
                    x[i] = kind == 0   ? 1.7e9 + u * 1e-3
                           : kind == 1 ? (u - 0.5) * ldexp(1, (int)(next_u64() % 80) - 40)
                           : kind == 2 ? (i % 3 == 0 ? 0.0 : 0.014 * exp(6 * u - 3))
                                       : ldexp(0.5 + u, (int)(next_u64() % 300) - 150);
                }
                double first = 0;
                for (int portable = 0; portable <= 2; portable++) {
                    Stats s;
                    stats_init(&s, 0);
                    s.portable = portable;
                    CHECK(stats_add_many(&s, x, n) == STATS_OK);
                    double want = exact_sq_sum(x, n, stats_mean(&s));
                    double var = stats_variance(&s, 0), got = s.m2_exact;
                    if (portable == 0)
                        first = got;
                    if ((memcmp(&got, &want, sizeof got) != 0 ||
                         memcmp(&got, &first, sizeof got) != 0 || !(var == got / (double)n)) &&
                        bad++ < 5)
                        fprintf(stderr, "  kind %d n %zu lane %d: %a want %a\n", kind, n, portable,
                                got, want);
                    stats_free(&s);
                }
            }
        free(x);
        CHECK(bad == 0);
        /* squares that overflow: the sum is inf, its compensation NaN, the variance
           unknown (NaN) in every lane, as one chain gave */
        for (int portable = 0; portable <= 2; portable++) {
            Stats s;
            stats_init(&s, 0);
            s.portable = portable;
            for (int i = 0; i < 9; i++)
                stats_add(&s, i % 2 ? 1e200 : -1e200);
            CHECK(isnan(stats_variance(&s, 0)));
            stats_free(&s);
        }
    }

    TEST("percentiles of a large sample through each gathering lane = a sorted copy")
    {
        /* the histogram's second pass gathers the wanted bins: eight samples at a time
           against up to 4 or up to 8 wanted bins (AVX2), else through the marks one by
           one; 1, 2, 4 and 7 percentiles ask for up to 2, 4, 8 and 14 ranks (a rank and
           the next), so every lane is taken, in every instruction set (portable 0..2).
           Positive samples only (the lanes' case), fine bins (20003 samples: a handful
           in each of the histogram's bins, so a rank and the next often fall apart),
           a count that is no multiple of 8. The reference: a sorted copy and the linear
           formula written in this file (ref_linear). */
        static const double q1[] = {50}, q2[] = {90, 99}, q4[] = {10, 50, 90, 99};
        static const double q7[] = {0.5, 5, 25, 50, 75, 95, 99.9};
        static const double *const qs[4] = {q1, q2, q4, q7};
        static const int nps[4] = {1, 2, 4, 7};
        const size_t n = 20003;
        double *sorted = (double *)malloc(n * sizeof *sorted);
        double *orig = (double *)malloc(n * sizeof *orig);
        int bad = 0;
        for (int kind = 0; kind < 2; kind++)
            for (int portable = 0; portable <= 2; portable++)
                for (int q = 0; q < 4; q++) {
                    Stats s;
                    stats_init(&s, 0);
                    s.portable = portable;
                    for (size_t i = 0; i < n; i++) {
                        double u = uniform();
                        stats_add(&s, kind == 0 ? 0.014 * exp(6 * u - 3) : 1.7e9 + u * 1e-3);
                    }
                    memcpy(sorted, s.v, n * sizeof *sorted);
                    memcpy(orig, s.v, n * sizeof *orig);
                    qsort(sorted, n, sizeof *sorted, cmp_double);
                    double out[7];
                    stats_percentiles(&s, qs[q], out, nps[q], STATS_LINEAR);
                    for (int i = 0; i < nps[q]; i++)
                        if (!same(out[i], ref_linear(sorted, n, qs[q][i])) && bad++ < 5)
                            fprintf(stderr, "  kind %d, lane %d, p%g: %.17g want %.17g\n", kind,
                                    portable, qs[q][i], out[i], ref_linear(sorted, n, qs[q][i]));
                    /* the histogram's passes answered: the samples as added (selection
                       would have moved them) */
                    CHECK(memcmp(s.v, orig, n * sizeof *orig) == 0);
                    stats_free(&s);
                }
        CHECK(bad == 0);
        free(sorted);
        free(orig);
    }

    TEST("the variance found by the percentiles' histogram pass is the exact sum rounded once")
    {
        /* stats_percentiles on a large unsorted exact sample sums the squared deviations
           in its counting pass: the same reference as above (exact_sq_sum, taken before
           the query reorders anything), every lane, positive samples (the bits'
           histogram), any sign and zeros (the keys'), a crowded one (the selection
           fallback); the percentiles against the sorted copy */
        int bad = 0;
        for (int kind = 0; kind < 15; kind++) {
            Stats s;
            stats_init(&s, 0);
            s.portable = kind / 5;
            size_t n = 2001 + (size_t)(kind & 1) * 3001;
            for (size_t i = 0; i < n; i++) {
                double u = uniform();
                double x = kind % 5 == 0   ? 1.7e9 + u * 1e-3
                           : kind % 5 == 1 ? 0.014 * exp(6 * u - 3)
                           : kind % 5 == 2 ? (u - 0.5) * ldexp(1, (int)(next_u64() % 80) - 40)
                           : kind % 5 == 3 ? (i % 3 == 0 ? 0.0 : -0.014 * exp(6 * u - 3))
                                           : (i % 100 == 0 ? u : 7.0); /* crowded */
                stats_add(&s, x);
            }
            double want = exact_sq_sum(s.v, n, stats_mean(&s)) / (double)n;
            double *sorted = (double *)malloc(n * sizeof *sorted);
            memcpy(sorted, s.v, n * sizeof *sorted);
            qsort(sorted, n, sizeof *sorted, cmp_double);
            CHECK(stats_percentiles_give_variance(&s) == 1);
            double qp[3] = {50, 90, 99}, out[3];
            stats_percentiles_variance(&s, qp, out, 3, STATS_LINEAR);
            for (int i = 0; i < 3; i++)
                if (!same(out[i], ref_linear(sorted, n, qp[i])) && bad++ < 5)
                    fprintf(stderr, "  kind %d: p%g %.17g\n", kind, qp[i], out[i]);
            CHECK(s.m2_known == 1 && stats_percentiles_give_variance(&s) == 0); /* known now */
            double got = stats_variance(&s, 0);
            if (memcmp(&got, &want, sizeof got) != 0 && bad++ < 5)
                fprintf(stderr, "  kind %d: %.17g want %.17g\n", kind, got, want);
            free(sorted);
            stats_free(&s);
        }
        CHECK(bad == 0);
        /* not offered: small, sorted, a sketch, an infinity among the samples */
        Stats s;
        stats_init(&s, 0);
        for (int i = 0; i < 1000; i++)
            stats_add(&s, (double)(i * 7919 % 1000));
        CHECK(stats_percentiles_give_variance(&s) == 0); /* 1000 samples: selection */
        for (int i = 0; i < 1000; i++)
            stats_add(&s, (double)(i * 7919 % 1000));
        CHECK(stats_percentiles_give_variance(&s) == 1);
        {
            /* the percentiles alone leave the variance for later */
            Stats c;
            stats_init(&c, 0);
            for (int i = 0; i < 2000; i++)
                stats_add(&c, (double)(i * 7919 % 2000));
            double q = 50, o;
            stats_percentiles(&c, &q, &o, 1, STATS_LINEAR);
            CHECK(o == 999.5 && c.m2_known == 0); /* the median of 0..1999: by hand */
            stats_free(&c);
        }
        stats_add(&s, HUGE_VAL);
        CHECK(stats_percentiles_give_variance(&s) == 0);
        stats_free(&s);
        stats_init(&s, 0);
        for (int i = 0; i < 2000; i++)
            stats_add(&s, (double)i);
        CHECK(stats_percentiles_give_variance(&s) == 0); /* sorted: look-ups */
        stats_free(&s);
        stats_init(&s, 0.01);
        for (int i = 0; i < 2000; i++)
            stats_add(&s, (double)(i * 7919 % 2000) + 1);
        CHECK(stats_percentiles_give_variance(&s) == 0);
        stats_free(&s);
    }

    TEST("a narrow span crowded in coarse bins is counted again in fine ones, not selected")
    {
        /* samples in [1, 2) (one binade: the histogram's 2^13 bins first), 1 in 24
           anywhere there, the rest within 2^-14 of 1.5: 1.15 M samples in one or two bins
           of 2^-13, more than the 2^20 a bin may hold, but spread over four of 2^-16.
           The percentiles against the sorted copy (numpy's rule written out), the
           variance against the quad-precision sum; and the samples still in their order
           after the query, which selection (the fallback) would have reordered */
        size_t n = 1200001;
        Stats s;
        stats_init(&s, 0);
        for (size_t i = 0; i < n; i++) {
            double u = uniform();
            stats_add(&s, i % 24 == 0 ? 1 + u : 1.5 + u * ldexp(1, -14));
        }
        double want = exact_sq_sum(s.v, n, stats_mean(&s)) / (double)n;
        double *before = (double *)malloc(n * sizeof *before);
        double *sorted = (double *)malloc(n * sizeof *sorted);
        CHECK(before != NULL && sorted != NULL);
        memcpy(before, s.v, n * sizeof *before);
        memcpy(sorted, s.v, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, cmp_double);
        CHECK(stats_percentiles_give_variance(&s) == 1);
        double qp[3] = {50, 90, 99}, out[3];
        stats_percentiles_variance(&s, qp, out, 3, STATS_LINEAR);
        for (int i = 0; i < 3; i++)
            CHECK(same(out[i], ref_linear(sorted, n, qp[i])));
        double got = stats_variance(&s, 0);
        CHECK(memcmp(&got, &want, sizeof got) == 0);
        CHECK(memcmp(before, s.v, n * sizeof *before) == 0); /* the histogram answered */
        free(before);
        free(sorted);
        stats_free(&s);
    }

    TEST("the exact variance follows the samples (kept between changes, not after)")
    {
        Stats s;
        stats_init(&s, 0);
        double a[4] = {1, 2, 3, 4}; /* population variance 1.25 (by hand) */
        stats_add_many(&s, a, 4);
        CHECK(stats_variance(&s, 0) == 1.25 && stats_variance(&s, 1) == 5.0 / 3);
        StatsSaved sv;
        CHECK(stats_save(&s, &sv) == STATS_OK);
        stats_add(&s, 10); /* {1,2,3,4,10}: mean 4, squares 9+4+1+0+36 = 50 */
        CHECK(stats_variance(&s, 0) == 10.0);
        stats_restore(&s, &sv);
        CHECK(stats_variance(&s, 0) == 1.25);
        double b[1] = {-6}; /* {1,2,3,4,-6}: mean 0.8, squares 0.04+1.44+4.84+10.24+46.24 */
        stats_add_many(&s, b, 1);
        CHECK(fabs(stats_variance(&s, 0) - 62.8 / 5) < 1e-12);
        Stats t;
        stats_init(&t, 0);
        stats_add(&t, 0.8); /* merging the mean: the sum of squares stays 62.8, n is 6 */
        CHECK(stats_merge(&s, &t) == STATS_OK && fabs(stats_variance(&s, 0) - 62.8 / 6) < 1e-12);
        stats_free(&t);
        stats_free(&s);
    }

    TEST("empty: unknown, never 0; NaN rejected; infinities placed")
    {
        Stats s;
        stats_init(&s, 0);
        CHECK(isnan(stats_mean(&s)) && isnan(stats_percentile(&s, 50, STATS_LINEAR)));
        CHECK(isnan(stats_min(&s)) && isnan(stats_max(&s)) && stats_sum(&s) == 0);
        CHECK(stats_add(&s, NAN) == STATS_ENAN && s.n == 0);
        stats_add(&s, 1);
        stats_add(&s, HUGE_VAL);
        stats_add(&s, 2);
        CHECK(stats_percentile(&s, 100, STATS_LINEAR) == HUGE_VAL);
        CHECK(stats_percentile(&s, 50, STATS_LINEAR) == 2);
        CHECK(stats_percentile(&s, 75, STATS_LINEAR) == HUGE_VAL); /* between 2 and inf */
        CHECK(stats_mean(&s) == HUGE_VAL && isnan(stats_variance(&s, 0)));
        stats_add(&s, -HUGE_VAL);
        CHECK(isnan(stats_mean(&s)) && stats_percentile(&s, 0, STATS_LINEAR) == -HUGE_VAL);
        CHECK(stats_rank(&s, 1.5) == 50.0); /* -inf and 1 of 4 */
        stats_free(&s);
    }

    TEST("merge equals adding everything to one accumulator")
    {
        Stats a, b, all;
        stats_init(&a, 0);
        stats_init(&b, 0);
        stats_init(&all, 0);
        for (int i = 0; i < 5000; i++) {
            double v = uniform() * 100;
            stats_add(i % 3 ? &a : &b, v);
            stats_add(&all, v);
        }
        CHECK(stats_merge(&a, &b) == STATS_OK);
        CHECK(a.n == all.n);
        for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++)
            CHECK(stats_percentile(&a, ps[pi], 0) == stats_percentile(&all, ps[pi], 0));
        CHECK(near_rel(stats_mean(&a), stats_mean(&all)) < 1e-14);
        CHECK(stats_merge(&a, &a) == STATS_OK && a.n == 2 * all.n);
        stats_free(&a);
        stats_free(&b);
        stats_free(&all);
    }

    TEST("sketch: every percentile within the relative error, bounded memory")
    {
        const double alphas[] = {0.01, 0.001, 0.05};
        int bad = 0;
        for (int ai = 0; ai < 3; ai++) {
            for (int dist = 0; dist < 4; dist++) {
                Stats sk, ex;
                stats_init(&sk, alphas[ai]);
                stats_init(&ex, 0);
                for (int i = 0; i < 200000; i++) {
                    double u = uniform() + 1e-12, v;
                    switch (dist) {
                    case 0:
                        v = exp(2.0 * sqrt(-2 * log(u)) * cos(6.283185307 * uniform()));
                        break;
                    case 1:
                        v = 0.001 / pow(u, 1 / 1.1);
                        break; /* Pareto, heavy tail */
                    case 2:
                        v = -(1 + 1000 * u);
                        break; /* negative */
                    default:
                        v = u < 0.1 ? 0 : 1e-6 + u * u * 30; /* zeros and a skew */
                    }
                    stats_add(&sk, v);
                    stats_add(&ex, v);
                }
                for (double p = 0; p <= 100; p += 0.5) {
                    double want = stats_percentile(&ex, p, STATS_LINEAR);
                    double got = stats_percentile(&sk, p, STATS_LINEAR);
                    if (near_rel(got, want) > alphas[ai] * (1 + 1e-9) && bad++ < 5)
                        fprintf(stderr, "  a=%g dist=%d p=%g: %.17g want %.17g\n", alphas[ai], dist,
                                p, got, want);
                    want = stats_percentile(&ex, p, STATS_NEAREST);
                    got = stats_percentile(&sk, p, STATS_NEAREST);
                    if (near_rel(got, want) > alphas[ai] * (1 + 1e-9) && bad++ < 5)
                        fprintf(stderr, "  nearest a=%g dist=%d p=%g: %.17g want %.17g\n",
                                alphas[ai], dist, p, got, want);
                }
                CHECK(sk.n == ex.n && stats_min(&sk) == stats_min(&ex));
                CHECK(near_rel(stats_mean(&sk), stats_mean(&ex)) < 1e-12);
                /* at most 2098 B buckets per sign (the double range: 2^-1074 .. 2^1024),
                   B = floor(log 2 / log gamma) + 1 a power of two, whatever the count */
                double per2 = floor(log(2) / log((1 + alphas[ai]) / (1 - alphas[ai]))) + 1;
                double bound = 2 * (2098 * per2 + 64) * 8;
                CHECK((double)stats_memory(&sk) < bound);
                stats_free(&sk);
                stats_free(&ex);
            }
        }
        CHECK(bad == 0);
    }

    TEST("sketch: each sample's estimate within the relative error, anywhere in the range")
    {
        /* The bound is the sketch's contract (stats.h): |estimate - x| <= a |x| for a
           normal x; a subnormal estimate is also rounded to a multiple of 2^-1074. Probed:
           random doubles over every exponent, the boundaries 2^(i/B) themselves and one
           ulp either side, powers of two and their neighbours, the range's ends. Also
           estimates never decrease as x grows (buckets in order). */
        static const double alphas[] = {1e-4, 0.001, 0.01, 0.0123, 0.05, 0.3, 0.5};
        int bad = 0;
        for (int ai = 0; ai < 7; ai++) {
            double a = alphas[ai];
            Stats s;
            stats_init(&s, a);
            double y = log(2) / log((1 + a) / (1 - a));
            int per2 = (int)floor(y) + 1; /* at least this many buckets per power of 2 */
            for (int t = 0; t < 60000; t++) {
                double x;
                uint64_t r = next_u64();
                if (t < 20000) { /* any positive finite double */
                    uint64_t u = r & 0x7FFFFFFFFFFFFFFFULL;
                    memcpy(&x, &u, sizeof x);
                    if (!isfinite(x) || x == 0)
                        continue;
                } else if (t < 40000) { /* near a boundary 2^(i/per2), times 2^e */
                    x = ldexp(exp2((double)(r % (uint64_t)per2) / per2),
                              (int)((r >> 20) % 2000) - 1000);
                    x = (r >> 40) % 3 == 0   ? nextafter(x, 0)
                        : (r >> 40) % 3 == 1 ? x
                                             : nextafter(x, 3);
                } else { /* powers of two, their neighbours, the ends */
                    int e = (int)(r % 2100) - 1074;
                    x = ldexp(1, e);
                    x = (r >> 30) % 3 == 0   ? nextafter(x, 0)
                        : (r >> 30) % 3 == 1 ? x
                                             : nextafter(x, HUGE_VAL);
                    if (t == 40000)
                        x = DBL_MAX;
                    if (t == 40001)
                        x = DBL_MIN;
                    if (t == 40002)
                        x = 4.9406564584124654e-324;
                    if (!isfinite(x) || x == 0)
                        continue;
                }
                double est = stats_sketch_estimate(&s, x), neg = stats_sketch_estimate(&s, -x);
                double slack = x < DBL_MIN ? ldexp(1, -1075) : 0;
                if (!(fabs(est - x) <= a * x + slack) || neg != -est) {
                    if (bad++ < 5)
                        fprintf(stderr, "  a=%g x=%.17g: estimate %.17g\n", a, x, est);
                }
                double up = nextafter(x, HUGE_VAL);
                if (isfinite(up) && stats_sketch_estimate(&s, up) < est && bad++ < 5)
                    fprintf(stderr, "  a=%g x=%.17g: the next double's estimate is below\n", a, x);
            }
            CHECK(stats_sketch_estimate(&s, 0) == 0);
            stats_free(&s);
        }
        CHECK(bad == 0);
        Stats ex;
        stats_init(&ex, 0);
        CHECK(isnan(stats_sketch_estimate(&ex, 1))); /* an exact accumulator has none */
        stats_free(&ex);
    }

    TEST("sketch from batches (the positive lane) and one at a time: percentiles within a")
    {
        /* against the exact percentiles of a sorted copy (qsort and numpy's rule written out
           above, not the exact accumulator); latencies in batches of 1..300 with, now and
           then, a batch the lane refuses (a zero, a negative, a subnormal, an infinity), and
           the same samples added one at a time: the same buckets, so the same percentiles */
        static const double alphas[] = {0.01, 0.001, 0.05};
        int bad = 0;
        for (int ai = 0; ai < 3; ai++) {
            for (int portable = 0; portable <= 2; portable++) {
                size_t n = 0, cap = 200000;
                double *x = malloc(cap * sizeof *x), batch[300];
                Stats sk, one;
                stats_init(&sk, alphas[ai]);
                stats_init(&one, alphas[ai]);
                sk.portable = portable;
                while (n + 300 < cap) {
                    size_t k = 1 + (size_t)(next_u64() % 300);
                    for (size_t i = 0; i < k; i++) {
                        double u = uniform();
                        batch[i] = 0.014 * exp(8 * u - 4);
                    }
                    uint64_t odd = next_u64() % 40;
                    if (odd < 4)
                        batch[next_u64() % k] = odd == 0   ? 0.0
                                                : odd == 1 ? -0.5
                                                : odd == 2 ? 1e-310
                                                           : HUGE_VAL;
                    CHECK(stats_add_many(&sk, batch, k) == STATS_OK);
                    for (size_t i = 0; i < k; i++)
                        stats_add(&one, batch[i]);
                    memcpy(x + n, batch, k * sizeof *x);
                    n += k;
                }
                qsort(x, n, sizeof *x, cmp_double);
                for (double p = 0; p <= 100; p += 0.25) {
                    for (int method = 0; method < 2; method++) {
                        double want = method ? ref_nearest(x, n, p) : ref_linear(x, n, p);
                        double got = stats_percentile(&sk, p, method);
                        /* an infinity's neighbour ranks interpolate to it, exactly */
                        int ok = isinf(want) ? got == want
                                             : near_rel(got, want) <= alphas[ai] * (1 + 1e-9);
                        if ((!ok || !same(got, stats_percentile(&one, p, method))) && bad++ < 5)
                            fprintf(stderr, "  a=%g p=%g m=%d: %.17g want %.17g\n", alphas[ai], p,
                                    method, got, want);
                    }
                }
                CHECK(sk.n == n && one.n == n && same(sk.min, x[0]) && same(sk.max, x[n - 1]));
                CHECK(memcmp(&sk.sum, &one.sum, sizeof sk.sum) == 0);
                stats_free(&sk);
                stats_free(&one);
                free(x);
            }
        }
        CHECK(bad == 0);
    }

    TEST("sketch variance: batches merged (Chan) within 1e-12 of quad precision, hard cases")
    {
        /* the reference: two passes in software quad precision over a copy; epoch seconds
           with a millisecond spread (a large mean, a small spread), latencies, and both
           with batches of random sizes, single adds between */
        int bad = 0;
        for (int kind = 0; kind < 2; kind++) {
            size_t n = 0, cap = 100000;
            double *x = malloc(cap * sizeof *x), batch[300];
            Stats sk;
            stats_init(&sk, 0.01);
            while (n + 300 < cap) {
                size_t k = 1 + (size_t)(next_u64() % 300);
                for (size_t i = 0; i < k; i++)
                    batch[i] =
                        kind == 0 ? 1.7e9 + uniform() * 1e-3 : 0.014 * exp(8 * uniform() - 4);
                if (next_u64() % 5 == 0) {
                    for (size_t i = 0; i < k; i++)
                        stats_add(&sk, batch[i]);
                } else {
                    CHECK(stats_add_many(&sk, batch, k) == STATS_OK);
                }
                memcpy(x + n, batch, k * sizeof *x);
                n += k;
            }
            quad sum = 0, ss = 0;
            for (size_t i = 0; i < n; i++)
                sum += x[i];
            quad mean = sum / (quad)n;
            for (size_t i = 0; i < n; i++)
                ss += (x[i] - mean) * (x[i] - mean);
            double want = (double)(ss / (quad)n), got = stats_variance(&sk, 0);
            if (!(near_rel(got, want) < 1e-12) && bad++ < 5)
                fprintf(stderr, "  kind %d: %.17g want %.17g (%.3g)\n", kind, got, want,
                        near_rel(got, want));
            stats_free(&sk);
            free(x);
        }
        CHECK(bad == 0);
    }

    TEST("sketch memory does not grow with the count; sketches merge exactly")
    {
        Stats a, b, all;
        stats_init(&a, 0.01);
        stats_init(&b, 0.01);
        stats_init(&all, 0.01);
        for (int i = 0; i < 1000000; i++) {
            double v = 1e-3 + uniform() * 10;
            stats_add(i & 1 ? &a : &b, v);
            stats_add(&all, v);
        }
        size_t mem = stats_memory(&all);
        for (int i = 0; i < 1000000; i++)
            stats_add(&all, 1e-3 + uniform() * 10);
        CHECK(stats_memory(&all) == mem);
        for (int i = 0; i < 1000000; i++)
            stats_add(&a, 1e-3 + uniform() * 10);
        stats_clear(&all);
        Stats c;
        stats_init(&c, 0.01);
        CHECK(stats_merge(&c, &a) == STATS_OK && stats_merge(&c, &b) == STATS_OK);
        CHECK(c.n == a.n + b.n);
        Stats ex;
        stats_init(&ex, 0);
        CHECK(stats_merge(&ex, &c) == STATS_EMERGE); /* exact cannot take a sketch */
        Stats other;
        stats_init(&other, 0.02);
        CHECK(stats_merge(&other, &c) == STATS_EMERGE);
        stats_free(&a);
        stats_free(&b);
        stats_free(&c);
        stats_free(&ex);
        stats_free(&other);
        stats_free(&all);
    }

    TEST("sorting a large sample (radix sort, two levels, then each bucket) equals qsort, any "
         "spread")
    {
        /* The reference is libc's qsort on a copy. Mann-Whitney sorts both samples in
           place (s.v), so s.v is compared with the reference value by value (-0 and +0
           are equal, so their order may differ). Sizes above the radix sort's 65536
           threshold; distributions: uniform, heavy-tailed (exp of a uniform: latencies),
           one value repeated, two values, negatives with zeros of both signs and
           infinities, a huge range (1e-300 .. 1e300), one bucket holding almost all (a
           crowded bucket, sorted by a radix sort of its own), gaps between clock readings
           of an epoch timestamp (a few thousand values, each repeated: second-level
           buckets of one value), the same with a few large gaps (most first-level buckets
           empty), and a crowded bucket inside a crowded bucket; the last four at a million
           samples, so that first-level buckets take the second level. The clock gaps
           without large gaps are sorted by counting (stats.c quantum_sort), the others by
           the radix sort. */
        uint64_t st = 0x853C49E6748FEA9BULL;
        int bad = 0;
        for (int kind = 0; kind < 11; kind++) {
            size_t n = kind < 7 ? 65536 + (size_t)kind * 40000 + 7 : 1000003 + (size_t)kind;
            double clock = 1771234500.25;
            double *x = malloc(n * sizeof *x), *ref = malloc(n * sizeof *ref);
            for (size_t i = 0; i < n; i++) {
                st ^= st << 13, st ^= st >> 7, st ^= st << 17;
                double u = (double)(st >> 11) / 9007199254740992.0;
                switch (kind) {
                case 0:
                    x[i] = u * 1000;
                    break;
                case 1:
                    x[i] = exp(u * 20 - 10);
                    break;
                case 2:
                    x[i] = 0.25;
                    break;
                case 3:
                    x[i] = u < 0.5 ? 1.0 : 2.0;
                    break;
                case 4:
                    x[i] = i % 97 == 0     ? -0.0
                           : i % 89 == 0   ? 0.0
                           : i % 1000 == 3 ? -HUGE_VAL
                           : i % 1000 == 4 ? HUGE_VAL
                                           : (u - 0.5) * 1e6;
                    break;
                case 5:
                    x[i] = pow(10, u * 600 - 300);
                    break;
                case 6:
                    x[i] = i % 1000 == 0 ? 1e12 : 1.0 + u * 1e-9;
                    break;
                case 7:
                case 8: {
                    /* a difference of two doubles near 1.77e9: a multiple of 2^-22 */
                    double next = clock + 0.005 + u * 0.01 + (kind == 8 && i % 300 == 0 ? 30 : 0);
                    x[i] = next - clock;
                    clock = next;
                    break;
                }
                case 9:
                    x[i] = (u - 0.5) * 1e-3;
                    break;
                default:
                    x[i] = i % 997 == 0 ? 1e15 : i % 3 == 0 ? 2.0 + u * 1e-12 : 2.0 + u * 1e-6;
                    break;
                }
            }
            memcpy(ref, x, n * sizeof *x);
            qsort(ref, n, sizeof *ref, cmp_double);
            Stats a, b;
            stats_init(&a, 0);
            stats_init(&b, 0);
            CHECK(stats_add_many(&a, x, n) == STATS_OK);
            CHECK(stats_add_many(&b, x, 1000) == STATS_OK);
            StatsMWU mw;
            int rc = stats_mann_whitney(&a, &b, &mw); /* -4: no variance (one value) */
            CHECK(rc == 0 || (kind == 2 && rc == -4));
            CHECK(a.sorted == 1);
            for (size_t i = 0; i < n; i++)
                if (!(kept(&a, i) == ref[i]) && bad++ < 5)
                    fprintf(stderr, "  kind %d: sorted[%zu] = %g, qsort = %g\n", kind, i,
                            kept(&a, i), ref[i]);
            stats_free(&a);
            stats_free(&b);
            free(x);
            free(ref);
        }
        CHECK(bad == 0);
    }

    TEST("sorting a mid-size sample (4096..65535: the radix sort unless it holds a -0.0) equals "
         "qsort, bit for bit without a -0.0")
    {
        /* The reference is libc's qsort on a copy. Without a -0.0 a sorted array of doubles
           (no NaN) is one array, bit for bit, whichever sort made it; with zeros of both
           signs their order among themselves is the sort's own (introsort's, as before the
           radix sort took these sizes), so there the values are compared and the zeros of
           each sign counted. Distributions: uniform, heavy-tailed, clock gaps (values
           repeated), one value, negatives with infinities, the same with zeros of both
           signs, three values (token counts), nine in ten samples in a narrow range (a
           crowded bucket: more than the buffer holds, sorted by a radix sort of its own);
           sizes at and around the radix sort's bounds here (4096, 65536). */
        static const size_t mid_sizes[] = {4095, 4096, 4097, 20011, 65535};
        uint64_t st = 0x2545F4914F6CDD1DULL;
        int bad = 0;
        for (int kind = 0; kind < 8; kind++)
            for (size_t z = 0; z < sizeof mid_sizes / sizeof mid_sizes[0]; z++) {
                size_t n = mid_sizes[z];
                double clock = 1771234500.25;
                double *x = malloc(n * sizeof *x), *ref = malloc(n * sizeof *ref);
                size_t neg0 = 0, pos0 = 0;
                for (size_t i = 0; i < n; i++) {
                    st ^= st << 13, st ^= st >> 7, st ^= st << 17;
                    double u = (double)(st >> 11) / 9007199254740992.0;
                    if (kind == 0) {
                        x[i] = u * 1000;
                    } else if (kind == 1) {
                        x[i] = exp(u * 20 - 10);
                    } else if (kind == 2) {
                        double next = clock + 0.005 + u * 0.01;
                        x[i] = next - clock;
                        clock = next;
                    } else if (kind == 3) {
                        x[i] = 0.5;
                    } else if (kind == 6) {
                        x[i] = (double)(1 + i % 3); /* token counts: crowded one-key buckets */
                    } else if (kind == 7) {
                        x[i] = i % 10 == 0 ? u * 1e6 : 1.0 + u * 1e-9; /* one crowded bucket */
                    } else {
                        x[i] = i % 1000 == 3              ? -HUGE_VAL
                               : i % 1000 == 4            ? HUGE_VAL
                               : i % 89 == 0              ? 0.0
                               : kind == 5 && i % 97 == 0 ? -0.0
                                                          : (u - 0.5) * 1e6;
                    }
                    if (x[i] == 0)
                        signbit(x[i]) ? neg0++ : pos0++;
                }
                memcpy(ref, x, n * sizeof *x);
                qsort(ref, n, sizeof *ref, cmp_double);
                Stats a;
                stats_init(&a, 0);
                CHECK(stats_add_many(&a, x, n) == STATS_OK);
                stats_sort(&a);
                CHECK(a.sorted == 1);
                size_t got_neg0 = 0, got_pos0 = 0;
                for (size_t i = 0; i < n; i++) {
                    double v = kept(&a, i);
                    if (v == 0)
                        signbit(v) ? got_neg0++ : got_pos0++;
                    int same = neg0 ? v == ref[i] : memcmp(&v, &ref[i], sizeof v) == 0;
                    if (!same && bad++ < 5)
                        fprintf(stderr, "  kind %d n %zu: sorted[%zu] = %a, qsort = %a\n", kind, n,
                                i, v, ref[i]);
                }
                CHECK(got_neg0 == neg0 && got_pos0 == pos0);
                CHECK(kind != 5 || neg0 > 0);
                stats_free(&a);
                free(x);
                free(ref);
            }
        CHECK(bad == 0);
    }

    /* Samples that are all multiples of one power of two over a narrow range (gaps between
       epoch clock readings) are sorted by counting (stats.c quantum_sort); Mann-Whitney
       then ranks the merged order, ties at mid-ranks. The references do not sort:
       (1) a naive count over every pair (U = #{a > b} + #{a = b} / 2) against a small
       b; (2) for two large samples, each built from integer keys k (x = k 2^-22, or a
       negative offset of it) whose counts the test keeps, U = sum over k of ca[k] *
       (#b below k + cb[k] / 2) and the tie term sum (t^3 - t), t = ca[k] + cb[k]; the
       variance and z by the textbook formulas written here. Many ties (a few thousand
       keys for 70 000 samples), zeros among them; one side with a value outside the
       range the counts allow (the radix sort's path) and one with a -0.0 (refused by
       the counting). U is a sum of halves below 2^53: compared exactly. */
    TEST("Mann-Whitney of clock gaps sorted by counting = pairwise and per-key counts, ties "
         "included")
    {
        const double q = 1.0 / 4194304.0; /* 2^-22 */
        enum { KEYS = 6000, NA = 70001, NB = 66003, NS = 2003 };
        uint64_t st = 0x5851F42D4C957F2DULL;
        int bad = 0;
        for (int kind = 0; kind < 4; kind++) {
            /* 0: both >= 0; 1: negatives too (offset -3000 keys); 2: b has one value far
               out (radix path for b); 3: a has a -0.0 (radix path for a) */
            double off = kind == 1 ? -3000.0 : 0.0;
            uint64_t *ca = calloc(KEYS, sizeof *ca), *cb = calloc(KEYS, sizeof *cb);
            double *xa = malloc(NA * sizeof *xa), *xb = malloc(NB * sizeof *xb);
            for (size_t i = 0; i < NA; i++) {
                st ^= st << 13, st ^= st >> 7, st ^= st << 17;
                size_t k = (size_t)(st >> 11) % (KEYS - 1000); /* a: keys 0 .. 4999 */
                ca[k]++;
                xa[i] = ((double)k + off) * q;
            }
            for (size_t i = 0; i < NB; i++) {
                st ^= st << 13, st ^= st >> 7, st ^= st << 17;
                size_t k = 1000 + (size_t)(st >> 11) % (KEYS - 1000); /* b: 1000 .. 5999 */
                cb[k]++;
                xb[i] = ((double)k + off) * q;
            }
            if (kind == 2) { /* b's greatest sample becomes 1000 s: above every key */
                cb[KEYS - 1]--;
                for (size_t i = 0; i < NB; i++)
                    if (xb[i] == (KEYS - 1 + off) * q) {
                        xb[i] = 1000.0;
                        break;
                    }
            }
            if (kind == 3) /* a +0.0 of a (key 0 with offset 0) becomes -0.0: equal to it */
                for (size_t i = 0; i < NA; i++)
                    if (xa[i] == 0.0) {
                        xa[i] = -0.0;
                        break;
                    }
            /* (2) per-key counts: b below key k, then U and the tie term */
            double u_ref = 0, tie_ref = 0, below = 0;
            for (size_t k = 0; k < KEYS; k++) {
                u_ref += (double)ca[k] * (below + (double)cb[k] / 2);
                double t = (double)(ca[k] + cb[k]);
                tie_ref += t * t * t - t;
                below += (double)cb[k];
            }
            /* (kind 2: the 1000 s sample is above every sample of a and tied with none:
               it adds nothing to U nor to the tie term, and counts in n2) */
            double n1 = NA, n2 = NB, n = n1 + n2;
            double var_ref = n1 * n2 / 12.0 * ((n + 1.0) - tie_ref / (n * (n - 1.0)));
            double z_ref = (u_ref - n1 * n2 / 2.0) / sqrt(var_ref);
            Stats a, b, s;
            stats_init(&a, 0);
            stats_init(&b, 0);
            stats_init(&s, 0);
            CHECK(stats_add_many(&a, xa, NA) == STATS_OK);
            CHECK(stats_add_many(&b, xb, NB) == STATS_OK);
            CHECK(stats_add_many(&s, xb, NS) == STATS_OK);
            StatsMWU mw;
            CHECK(stats_mann_whitney(&a, &b, &mw) == STATS_OK);
            if (mw.u != u_ref || near_rel(mw.var, var_ref) > 1e-12 || near_rel(mw.z, z_ref) > 1e-9)
                bad++, fprintf(stderr, "  kind %d: u %.1f (want %.1f), var %.17g (want %.17g)\n",
                               kind, mw.u, u_ref, mw.var, var_ref);
            /* (1) pairwise, against the first NS samples of b */
            double u_pairs = 0;
            for (size_t i = 0; i < NA; i++)
                for (size_t j = 0; j < NS; j++)
                    u_pairs += xa[i] > xb[j] ? 1.0 : xa[i] == xb[j] ? 0.5 : 0.0;
            CHECK(stats_mann_whitney(&a, &s, &mw) == STATS_OK);
            if (mw.u != u_pairs)
                bad++, fprintf(stderr, "  kind %d: u %.1f, pairwise %.1f\n", kind, mw.u, u_pairs);
            /* every sample still there, in order: the sorted a and b against their keys */
            size_t at = 0;
            for (size_t k = 0; k < KEYS; k++)
                for (uint64_t c = 0; c < ca[k]; c++, at++)
                    if (!(kept(&a, at) == ((double)k + off) * q) && bad++ < 5)
                        fprintf(stderr, "  kind %d: a sorted[%zu] = %.17g, want key %zu\n", kind,
                                at, kept(&a, at), k);
            at = 0;
            for (size_t k = 0; k < KEYS; k++)
                for (uint64_t c = 0; c < cb[k]; c++, at++)
                    if (!(kept(&b, at) == ((double)k + off) * q) && bad++ < 5)
                        fprintf(stderr, "  kind %d: b sorted[%zu] = %.17g, want key %zu\n", kind,
                                at, kept(&b, at), k);
            CHECK(a.sorted == 1 && b.sorted == 1 && (kind != 2 || kept(&b, NB - 1) == 1000.0));
            stats_free(&a);
            stats_free(&b);
            stats_free(&s);
            free(ca);
            free(cb);
            free(xa);
            free(xb);
        }
        CHECK(bad == 0);
    }

    /* The samples of a large accumulator move, from 16 MiB on, into a mapping of its own
       that grows by mremap (stats.c resize_v): every sample must survive each move. The
       samples are 0..n-1 in a scrambled order (7 * i mod n: 7 is prime to n), so the
       sorted reference is i itself (no sort here to trust) and the sum n(n-1)/2. */
    TEST("samples past 16 MiB keep every value through each growth: one by one, in "
         "batches, merged into a small accumulator, then cleared and reused")
    {
        const size_t n = 3000000; /* 24 MB: malloc, then mapped 16 MiB, then 32 MiB */
        double *ref = malloc(n * sizeof *ref), *batch = malloc(1000 * sizeof *batch);
        for (size_t i = 0; i < n; i++)
            ref[i] = (double)i;
        Stats one, many, small;
        stats_init(&one, 0);
        stats_init(&many, 0);
        stats_init(&small, 0);
        int bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += stats_add(&one, (double)(7 * i % n)) != STATS_OK;
        for (size_t i = 0; i < n; i += 1000) {
            for (size_t j = 0; j < 1000; j++)
                batch[j] = (double)(7 * (i + j) % n);
            bad += stats_add_many(&many, batch, 1000) != STATS_OK;
        }
        for (int i = 0; i < 10; i++)
            bad += stats_add(&small, -1.0 - i) != STATS_OK;
        CHECK(bad == 0);
        /* the mapped path was taken (map_len marks it), and it holds them all */
        CHECK(one.map_len >= n * sizeof(double) && one.cap >= n);
        CHECK(one.n == n && many.n == n);
        size_t moved = 0; /* each sample where it was added, before any query reorders */
        double *got_one = malloc(n * sizeof *got_one), *got_many = malloc(n * sizeof *got_many);
        stats_samples(&one, 0, n, got_one); /* (kept as floats: integers below 2^24) */
        stats_samples(&many, 0, n, got_many);
        for (size_t i = 0; i < n; i++)
            moved += got_one[i] != (double)(7 * i % n);
        CHECK(moved == 0);
        CHECK(memcmp(got_one, got_many, n * sizeof(double)) == 0);
        free(got_one);
        free(got_many);
        CHECK(stats_sum(&one) == (double)n * (double)(n - 1) / 2);
        CHECK(stats_merge(&small, &one) == STATS_OK && small.n == n + 10);
        for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
            CHECK(same(stats_percentile(&one, ps[pi], 0), ref_linear(ref, n, ps[pi])));
            CHECK(same(stats_percentile(&many, ps[pi], 1), ref_nearest(ref, n, ps[pi])));
        }
        /* merged: the ten negatives first, then 0..n-1 */
        CHECK(stats_percentile(&small, 0, 0) == -10.0 &&
              stats_percentile(&small, 100, 0) == n - 1.0);
        /* the median of the n + 10 merged samples by numpy's formula, by hand: rank
           (n + 9) / 2 = 1500004.5 of the sorted -10..n-1, whose rank k holds k - 10 */
        CHECK(stats_percentile(&small, 50, 0) == 1499994.5);
        stats_clear(&one);
        CHECK(one.n == 0 && one.map_len == 0 && one.v == NULL);
        CHECK(stats_add(&one, 2.5) == STATS_OK && stats_percentile(&one, 50, 0) == 2.5);
        stats_free(&one);
        stats_free(&many);
        stats_free(&small);
        free(ref);
        free(batch);
    }

    /* stats.c quantum_sort (samples that are multiples of one power of two over a narrow
       range, sorted by counting) has an AVX2 lane, chosen where the CPU has it, and the
       plain C one (portable = 1). Each must give back exactly the samples a sorted copy
       holds (libc's qsort on a copy; zeros compared by their sign too: a -0.0 coming
       back as +0.0 is wrong). Sizes from 65536 (the threshold of counting) up, random
       and no multiple of 4 (the lanes' tails). Kinds: clock gaps (multiples of 2^-22 of
       an epoch clock, hundreds of samples a value); small integers with duplicates,
       negatives and +0.0; negatives only; multiples of 2^-20 but one sample that is only
       a multiple of 2^-22, placed in each lane of a step, in a later block of the AVX2
       pass and in the tail (missed, it would come back as another value); a -0.0 at
       those places among the small integers (counting must give up, the radix sort's
       path: it would write the zero back as +0.0); the range at exactly
       n / 8 multiples and at one more (the limit of counting); multiples of 2^40 near
       2^60; clock gaps with a subnormal at the end; clock gaps whose accumulator's least
       or greatest sample is made stale (the sort takes them as guesses only: under ASan,
       `make check`, a count written outside its block would show). */
    TEST("quantum sort: every lane gives back the samples of a sorted copy, bit for bit")
    {
        static const size_t at[] = {0, 2, 4095, 4097, 8194, 8195, 8196, 65536, 65537};
        const size_t nat = sizeof at / sizeof at[0];
        int bad = 0;
        for (int kind = 0; kind < 10 + 2 * (int)nat; kind++)
            for (int portable = 0; portable <= 1; portable++) {
                uint64_t draw = next_u64();
                size_t n = 65536 + 3 + (size_t)(draw % 40000);
                if (kind == 5 || kind == 6)
                    n = 80000; /* n / 8 = 10000 values */
                else if (kind == 0 || kind == 7 || kind >= 8 + 2 * (int)nat)
                    n += 400000; /* 0.01 s of 2^-22 s: 41 944 values */
                double *x = malloc(n * sizeof *x), *ref = malloc(n * sizeof *ref);
                double clock = 1771234500.25;
                for (size_t i = 0; i < n; i++) {
                    double u = uniform();
                    if (kind == 0 || kind == 7 || kind >= 8 + 2 * (int)nat) {
                        double next = clock + 0.005 + u * 0.01;
                        x[i] = next - clock;
                        clock = next;
                    } else if (kind == 1 || kind >= 8 + (int)nat) {
                        x[i] = i % 50 == 0 ? 0.0 : (double)((int)(u * 2001) - 1000);
                    } else if (kind == 2) {
                        x[i] = -1.5 - (double)(int)(u * 3000) * 0.25;
                    } else if (kind == 3) {
                        x[i] = ldexp(1, 60) + (double)(int)(u * 4000) * ldexp(1, 40);
                    } else if (kind == 4) {
                        x[i] = (double)(int)(u * 5000) * 0.125 - 100;
                    } else if (kind == 5 || kind == 6) {
                        x[i] = i == 0   ? 0.0
                               : i == 1 ? (kind == 5 ? 10000.0 : 10001.0)
                                        : (double)(int)(u * 10000);
                    } else {
                        x[i] = 0.5 + (double)(int)(u * 1500) * ldexp(1, -20);
                    }
                }
                if (kind == 7)
                    x[n - 1] = 0x1p-1060; /* subnormal: not counted */
                if (kind >= 8 && kind < 8 + 2 * (int)nat) {
                    size_t where = at[(size_t)(kind - 8) % nat] % n;
                    if (where == 0 && (kind - 8) / (int)nat == 0)
                        where = n - 1; /* the very last: the scalar tail */
                    /* one sample a multiple of 2^-22 only, then a -0.0 */
                    x[where] = (kind - 8) / (int)nat == 0 ? 0.5 + 3 * ldexp(1, -22) : -0.0;
                }
                memcpy(ref, x, n * sizeof *x);
                qsort(ref, n, sizeof *ref, cmp_double);
                /* the zeros of each sign in order within the zeros: qsort may mix them */
                size_t z0 = 0, nz = 0, neg = 0;
                while (z0 < n && ref[z0] < 0)
                    z0++;
                for (size_t i = z0; i < n && ref[i] == 0; i++)
                    nz++, neg += signbit(ref[i]) != 0;
                for (size_t i = 0; i < nz; i++)
                    ref[z0 + i] = i < neg ? -0.0 : 0.0;
                Stats s;
                stats_init(&s, 0);
                s.portable = portable;
                CHECK(stats_add_many(&s, x, n) == STATS_OK);
                if (kind == 8 + 2 * (int)nat)
                    s.min += 0.001; /* stale: the samples below it must still be counted */
                else if (kind == 9 + 2 * (int)nat)
                    s.max -= 0.001; /* and those above */
                stats_sort(&s);
                CHECK(s.sorted == 1);
                size_t zs = 0, zneg = 0; /* the sort's zeros: as many -0.0 first */
                for (size_t i = 0; i < n; i++) {
                    double xi = kept(&s, i);
                    if (xi == 0) {
                        zneg += signbit(xi) != 0;
                        zs++;
                        continue;
                    }
                    if (memcmp(&xi, &ref[i], sizeof ref[i]) != 0 && bad++ < 5)
                        fprintf(stderr, "  kind %d, lane %d, n %zu: [%zu] %.17g want %.17g\n", kind,
                                portable, n, i, xi, ref[i]);
                }
                if ((zs != nz || zneg != neg) && bad++ < 5)
                    fprintf(stderr, "  kind %d, lane %d: %zu zeros (%zu -0.0), want %zu (%zu)\n",
                            kind, portable, zs, zneg, nz, neg);
                stats_free(&s);
                free(x);
                free(ref);
            }
        CHECK(bad == 0);
    }

    /* The sort needs no copy of the samples (stats.c radix_place): memory stays at 8
       bytes a sample. Measured as the peak resident memory (VmHWM, reset through
       /proc/self/clear_refs, Linux) while 4 M clock gaps (32 MB, sorted by counting:
       stats.c quantum_sort, 41 944 counts of 4 bytes) are sorted: a scratch copy would
       add 32 MB; the counts are at most half a byte a sample. */
    TEST("sorting 4 M samples in place: the peak memory grows by less than a quarter of them")
    {
        const size_t n = 4000000;
        Stats s;
        stats_init(&s, 0);
        double clock = 1771234500.25;
        uint64_t st = 0x9E3779B97F4A7C15ULL;
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
            st ^= st << 13, st ^= st >> 7, st ^= st << 17;
            double next = clock + 0.005 + (double)(st >> 11) / 9007199254740992.0 * 0.01;
            bad += stats_add(&s, next - clock) != STATS_OK;
            clock = next;
        }
        CHECK(bad == 0);
#if defined(__GLIBC__)
        malloc_trim(0); /* blocks freed by earlier tests: not resident (else one could
                           hold a scratch copy without the peak growing) */
#endif
        /* gaps of epoch timestamps: kept as floats, widened by the sort; the widening's
           4 bytes a sample are not the sort's scratch, so they come first */
        CHECK(s.f32 == 1);
        stats_widen(&s);
        FILE *cr = fopen("/proc/self/clear_refs", "w");
        long before = -1, after = -1;
        if (cr != NULL && fputs("5", cr) >= 0 && fclose(cr) == 0) {
            before = peak_kb();
            stats_sort(&s);
            after = peak_kb();
        } else if (cr != NULL) {
            fclose(cr);
        }
        if (before < 0 || after < 0) {
            fprintf(stderr, "  (no /proc/self/clear_refs or VmHWM: the peak is not measured)\n");
        } else {
            CHECK(after - before < (long)(n * sizeof(double) / 4 / 1024));
        }
        CHECK(s.sorted == 1);
        size_t down = 0;
        for (size_t i = 1; i < n; i++)
            down += s.v[i] < s.v[i - 1];
        CHECK(down == 0);
        stats_free(&s);
    }

    /* stats_reserve (stats.load reads a dump's samples straight into v): the room is
       there at once, in the block stats_add would have grown (malloc'd below 2 MiB, one
       huge page, a mapping of its own from there: map_len; 3 MiB is one since that was
       lowered from 4 MiB), and samples added afterwards land in it
       without a move; a sketch keeps no samples (nothing reserved); room past SIZE_MAX
       bytes is refused. Expected by hand: the values written are 0.5 .. k - 0.5, whose
       sum is k^2 / 2 and linear median k / 2 (numpy's rule on 0.5, 1.5, ...). */
    TEST("stats_reserve gives the room at once, in the block samples then go into")
    {
        const size_t rooms[] = {0, 1000, ((size_t)3 << 20) / sizeof(double),
                                ((size_t)5 << 20) / sizeof(double)};
        for (size_t ri = 0; ri < sizeof rooms / sizeof rooms[0]; ri++) {
            size_t k = rooms[ri];
            Stats s;
            stats_init(&s, 0);
            CHECK(stats_reserve(&s, k) == STATS_OK && s.cap >= k && s.n == 0);
            CHECK(k * sizeof(double) >= ((size_t)2 << 20) ? s.map_len >= k * sizeof(double)
                                                          : s.map_len == 0);
            double *v = s.v;
            for (size_t i = 0; i < k; i++)
                v[i] = (double)i + 0.5; /* as stats.load fills it, then sets n */
            s.n = k;
            s.f32 = 0; /* doubles, as stats.load writes them */
            s.sum = (double)k * (double)k / 2;
            s.sorted = 1;
            if (k > 0)
                s.min = 0.5, s.max = (double)k - 0.5;
            CHECK(stats_reserve(&s, k / 2) == STATS_OK && s.v == v); /* room already */
            if (k > 0) {
                CHECK(stats_percentile(&s, 50, STATS_LINEAR) == (double)k / 2);
                size_t cap = s.cap;
                for (size_t i = k; i < cap; i++)
                    CHECK(stats_add(&s, (double)i + 0.5) == STATS_OK && s.v == v);
                CHECK(s.n == cap && stats_percentile(&s, 50, STATS_LINEAR) == (double)cap / 2);
            }
            stats_free(&s);
        }
        Stats k;
        stats_init(&k, 0.01);
        CHECK(stats_reserve(&k, 1000) == STATS_OK && k.v == NULL && k.cap == 0);
        stats_free(&k);
        Stats big;
        stats_init(&big, 0);
        CHECK(stats_reserve(&big, SIZE_MAX / 4) == STATS_ENOMEM && big.v == NULL);
        stats_free(&big);
    }

    /* stats_block_grow, the growth of Stats.v and of stats.column's values: a block doubled
       from 64 bytes to 8 MiB keeps what it held each time (word i is i, written as it grew);
       malloc'd (map_len 0) below map_from, a mapping of its own from there (map_len the room,
       at least the bytes asked: whole 4 KiB pages where map_from is 128 KiB, a column's;
       whole 2 MiB ones where it is 2 MiB, Stats.v's), grown in place or moved by mremap, not
       copied into fresh pages (issue 20); shrunk below map_from it is malloc'd again, its
       first bytes kept. Expected by hand. */
    TEST("stats_block_grow keeps a growing block's words, mapped from map_from on")
    {
        const size_t froms[] = {(size_t)128 << 10, (size_t)2 << 20};
        for (size_t fi = 0; fi < 2; fi++) {
            size_t from = froms[fi], unit = fi ? ((size_t)2 << 20) : 4096;
            uint64_t *p = NULL;
            size_t map_len = 0, got = 0, used = 0, bad = 0;
            for (size_t bytes = 64; bytes <= ((size_t)8 << 20); bytes *= 2) {
                p = stats_block_grow(p, &map_len, used, bytes, from, &got);
                CHECK(p != NULL && got >= bytes);
                if (p == NULL)
                    break;
                for (size_t i = 0; i < used / sizeof *p; i++)
                    bad += p[i] != i;
                for (size_t i = used / sizeof *p; i < bytes / sizeof *p; i++)
                    p[i] = i;
                used = bytes;
                if (bytes < from)
                    CHECK(map_len == 0 && got == bytes);
                else
                    CHECK(map_len == got && got % unit == 0);
            }
            CHECK(bad == 0);
            if (p != NULL) {
                p = stats_block_grow(p, &map_len, 1000, 1000, from, &got);
                CHECK(p != NULL && map_len == 0 && got == 1000);
                for (size_t i = 0; p != NULL && i < 1000 / sizeof *p; i++)
                    bad += p[i] != i;
                CHECK(bad == 0);
                stats_block_free(p, map_len);
            }
        }
    }

    TEST("design effect: Geyer's initial positive sequence on the centred mid-ranks, by hand")
    {
        double tau = 0;
        /* by hand: 1 2 3 4 -> ranks -1.5 -0.5 0.5 1.5, c0 = 5, rho_1 = (0.75 - 0.25 + 0.75)
           / 5 = 0.25; lags up to min(2, n - 2) = 2: one pair, tau = -1 + 2 (1 + 0.25) = 1.5 */
        double up[] = {1, 2, 3, 4};
        CHECK(stats_design_effect(up, 4, 2000, &tau) == STATS_OK && tau == 1.5);
        /* ties: 1 1 2 2 -> mid-ranks 1.5 1.5 3.5 3.5, centred -1 -1 1 1, c0 = 4, rho_1 =
           (1 - 1 + 1) / 4 = 0.25: 1.5 again */
        double tied[] = {1, 1, 2, 2};
        CHECK(stats_design_effect(tied, 4, 2000, &tau) == STATS_OK && tau == 1.5);
        /* 10 runs of 10 equal values (3,1,5,2,6,4,9,7,10,8): python3 with numpy (the same
           definition, tests36 (test_design_effect.lua)'s header) gives 27.148484848 */
        double runs[100];
        const double vals[] = {3, 1, 5, 2, 6, 4, 9, 7, 10, 8};
        for (int i = 0; i < 100; i++)
            runs[i] = vals[i / 10];
        CHECK(stats_design_effect(runs, 100, 2000, &tau) == STATS_OK &&
              fabs(tau - 27.148484848) < 1e-8);
        /* neighbours that differ by 37 or -64 (i * 37 mod 101): rho_1 = -0.4045 (python3),
           tau below 1 (the caller takes max(1, tau)) */
        double perm[100];
        for (int i = 0; i < 100; i++)
            perm[i] = (double)((i + 1) * 37 % 101);
        CHECK(stats_design_effect(perm, 100, 2000, &tau) == STATS_OK && tau < 1);
    }

    TEST("design effect: Geyer's sum on the centred mid-ranks; ties, NaN, order")
    {
        /* x_i = (i 7919) mod 101, i = 1..250, and blocks of 10 with ties
           ((i // 10) mod 13 + (i 37 mod 7) / 10, i = 1..300): tau by /usr/bin/python3 + numpy
           from the definition (argsort mid-ranks, np.dot lagged sums): 1.0535681367804968
           (3 pairs of lags), 25.848518402041172; at max lag 3, 6.44813945967931 */
        double c[250], a[300], tau = 0;
        for (int i = 1; i <= 250; i++)
            c[i - 1] = (double)((i * 7919) % 101);
        for (int i = 1; i <= 300; i++)
            a[i - 1] = (i / 10) % 13 + (double)(i * 37 % 7) / 10;
        CHECK(stats_design_effect(c, 250, 2000, &tau) == STATS_OK &&
              fabs(tau - 1.0535681367804968) < 1e-12);
        CHECK(stats_design_effect(a, 300, 2000, &tau) == STATS_OK &&
              fabs(tau - 25.848518402041172) < 1e-11);
        CHECK(stats_design_effect(a, 300, 3, &tau) == STATS_OK &&
              fabs(tau - 6.44813945967931) < 1e-12);
        /* lags past the first four (stats.c lag_sums sums them four at a time, the
           shorter ones' last terms after): 1..n increasing, n = 9 (lags up to 5 read, the
           sums of lags 4 and 5 shorter than the pass over four), 30 (pairs of lags up to
           12, 13); 5 5 6 6 7 7 8 8 9 9 9 (ties). Expected by /usr/bin/python3 + numpy as
           above: 3.166666666666666, 10.436262513904335, 3.8396226415094343 */
        double inc[30], ties[11] = {5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 9};
        for (int i = 0; i < 30; i++)
            inc[i] = i + 1;
        CHECK(stats_design_effect(inc, 9, 2000, &tau) == STATS_OK &&
              fabs(tau - 3.166666666666666) < 1e-12);
        CHECK(stats_design_effect(inc, 30, 2000, &tau) == STATS_OK &&
              fabs(tau - 10.436262513904335) < 1e-12);
        CHECK(stats_design_effect(ties, 11, 2000, &tau) == STATS_OK &&
              fabs(tau - 3.8396226415094343) < 1e-12);
        double flat[5] = {2, 2, 2, 2, 2};
        CHECK(stats_design_effect(flat, 5, 2000, &tau) == 1);
        a[17] = NAN;
        CHECK(stats_design_effect(a, 300, 2000, &tau) == STATS_ENAN);
        double keys[5] = {3.5, 1, 2, 1, -0.5};
        size_t perm[5];
        CHECK(stats_order(keys, 5, perm) == STATS_OK && perm[0] == 4 && perm[1] == 1 &&
              perm[2] == 3 && perm[3] == 2 && perm[4] == 0);
        keys[2] = NAN;
        CHECK(stats_order(keys, 5, perm) == STATS_ENAN);
    }

    TEST("order and design effect from 1024 values (the radix sort): ties of -0.0 and 0.0 by index")
    {
        /* x_i = ((i 7919) mod 101 - 50) / 4, i = 0..2999, its zeros -0.0 at odd i, +-1e300 at
           i mod 997 = 5 (+ at odd i), +inf at 1234, -inf at 2345. By /usr/bin/python3:
           perm = sorted(range(n), key=(x[i], i)) (-0.0 == 0.0: a tie, by index), sum of
           (k + 1) perm[k] = 6769226234, perm starts 2345, 1002, 2996 and ends 5, 1999,
           1234, its zeros at 1486..1515 alternating +0.0 (i = 16 first) and -0.0; tau of the
           mid-ranks (numpy, the definition as above) 1.0534306211070974 */
        enum { N = 3000 };
        static double x[N];
        static size_t perm[N];
        for (int i = 0; i < N; i++) {
            double v = (double)((i * 7919) % 101 - 50) * 0.25;
            if (v == 0 && i % 2 == 1)
                v = -0.0;
            if (i % 997 == 5)
                v = i % 2 ? 1e300 : -1e300;
            x[i] = i == 1234 ? INFINITY : i == 2345 ? -INFINITY : v;
        }
        CHECK(stats_order(x, N, perm) == STATS_OK);
        unsigned long long sum = 0;
        for (size_t k = 0; k < N; k++)
            sum += (unsigned long long)(k + 1) * perm[k];
        CHECK(sum == 6769226234ULL);
        CHECK(perm[0] == 2345 && perm[1] == 1002 && perm[2] == 2996 && perm[N - 3] == 5 &&
              perm[N - 2] == 1999 && perm[N - 1] == 1234);
        CHECK(perm[1486] == 16 && !signbit(x[perm[1486]]) && signbit(x[perm[1487]]) &&
              x[perm[1515]] == 0 && x[perm[1516]] != 0);
        double tau = 0;
        CHECK(stats_design_effect(x, N, 2000, &tau) == STATS_OK &&
              fabs(tau - 1.0534306211070974) < 1e-12);
    }

    TEST("value design effect: Geyer's sum on the values centred on their mean, not their ranks")
    {
        /* expected values by /usr/bin/python3 + numpy with tests/sim/mean_deff_coverage.py's
           value_deff (x - x.mean(), np.dot lagged sums, lags up to min(max_lag, n - 2)) */
        double c[250], a[300], s[200], tau = 0;
        for (int i = 1; i <= 250; i++)
            c[i - 1] = (double)((i * 7919) % 101);
        for (int i = 1; i <= 300; i++)
            a[i - 1] = (i / 10) % 13 + (double)(i * 37 % 7) / 10;
        CHECK(stats_value_design_effect(c, 250, 2000, &tau) == STATS_OK &&
              fabs(tau - 1.054480445739663) < 1e-12);
        /* (the ranks' of the same series: 25.848518402041172, above) */
        CHECK(stats_value_design_effect(a, 300, 2000, &tau) == STATS_OK &&
              fabs(tau - 27.0478821205708) < 1e-11);
        CHECK(stats_value_design_effect(a, 300, 3, &tau) == STATS_OK &&
              fabs(tau - 6.498922602702303) < 1e-12);
        /* 200 waits of 1 but 10 of 100 together (a queue's long waits, requests 51-60) */
        for (int i = 0; i < 200; i++)
            s[i] = i >= 50 && i < 60 ? 100 : 1;
        CHECK(stats_value_design_effect(s, 200, 2000, &tau) == STATS_OK &&
              fabs(tau - 9.502631578947371) < 1e-11);
        /* by hand: 1 2 3 4 centred -1.5 -0.5 0.5 1.5, as the ranks: 1.5 */
        double up[] = {1, 2, 3, 4};
        CHECK(stats_value_design_effect(up, 4, 2000, &tau) == STATS_OK && fabs(tau - 1.5) < 1e-15);
        double flat[5] = {2, 2, 2, 2, 2};
        CHECK(stats_value_design_effect(flat, 5, 2000, &tau) == 1);
        /* 200 equal values whose mean rounds off them (0.01: 0.010000000000000007 by
           python's sum / 200): no spread, not residues of one sign (tau 2n) */
        double same[200];
        for (int i = 0; i < 200; i++)
            same[i] = 0.01;
        CHECK(stats_value_design_effect(same, 200, 2000, &tau) == 1);
        a[17] = NAN;
        CHECK(stats_value_design_effect(a, 300, 2000, &tau) == STATS_ENAN);
        CHECK(stats_value_design_effect(a, 0, 2000, &tau) == 1);
    }

    TEST("percentile design effects: the indicator 1{x <= v} at the nearest rank, ties, min n, no "
         "spread")
    {
        /* issue 20 (speed46a): llmd.decision.quantile_design_effects in C. Expected values by
           /usr/bin/python3 + numpy, tests/data/seqstats.py quantile_deff (v = np.sort(x)[max(1,
           ceil(n p / 100)) - 1], value_deff of (x <= v)); 1 where it gives 1.0 */
        static const double p5[] = {50, 90, 95, 99, 99.9};
        double x[200], d[5];
        /* x_i = (7919 i) mod 101, 1000 more at i = 41..60, 500 more at i = 121..130: long
           waits in two blocks */
        for (int i = 1; i <= 200; i++)
            x[i - 1] = (double)((i * 7919) % 101) + (i >= 41 && i <= 60 ? 1000 : 0) +
                       (i >= 121 && i <= 130 ? 500 : 0);
        CHECK(stats_quantile_design_effects(x, 200, p5, 5, 100, 2000, d) == STATS_OK);
        CHECK(fabs(d[0] - 2.2097059705970628) < 1e-12 && fabs(d[1] - 17.829999999999767) < 1e-11 &&
              fabs(d[2] - 8.410526315789548) < 1e-12 && d[3] == 1 && d[4] == 1);
        /* at n = 100 (min n) the sum: 2.9600000000000004, 6.955555555555554; at 99 none, 1
           (the sum would give p90 6.068686868686878) */
        CHECK(stats_quantile_design_effects(x, 100, p5, 2, 100, 2000, d) == STATS_OK);
        CHECK(fabs(d[0] - 2.9600000000000004) < 1e-12 && fabs(d[1] - 6.955555555555554) < 1e-12);
        CHECK(stats_quantile_design_effects(x, 99, p5, 5, 100, 2000, d) == STATS_OK);
        CHECK(d[0] == 1 && d[1] == 1 && d[2] == 1 && d[3] == 1 && d[4] == 1);
        /* ties at the rank: t_i = floor(i / 4) mod 10, i = 1..120 (each value 12 times, in
           runs of 4). p55: rank 66 of the twelve 5s at 61..72, v = 5 and all twelve below it:
           10.125000000000002 (1{x < v} would give 10.5333, the first 66 by rank 10.4333);
           p50 (rank 60, the last 4) 10.533333333333333, p90 3.7111111111111112; p95, p99.9:
           v = 9, the largest, every x <= v: no spread, 1 */
        static const double pt[] = {50, 55, 90, 95, 99.9};
        double tie[120];
        for (int i = 1; i <= 120; i++)
            tie[i - 1] = (double)((i / 4) % 10);
        CHECK(stats_quantile_design_effects(tie, 120, pt, 5, 100, 2000, d) == STATS_OK);
        CHECK(fabs(d[0] - 10.533333333333333) < 1e-12 && fabs(d[1] - 10.125000000000002) < 1e-12 &&
              fabs(d[2] - 3.7111111111111112) < 1e-12 && d[3] == 1 && d[4] == 1);
        /* all equal: every indicator 1, 1 */
        double same[150];
        for (int i = 0; i < 150; i++)
            same[i] = 2.5;
        CHECK(stats_quantile_design_effects(same, 150, p5, 5, 100, 2000, d) == STATS_OK);
        CHECK(d[0] == 1 && d[1] == 1 && d[2] == 1 && d[3] == 1 && d[4] == 1);
        /* no value at the rank: none (NaN) for n = 0 or a percentile above 100; p 0 reads
           rank 1, as the Lua's max(1, ...) */
        static const double odd[] = {100.5, 0, 100};
        CHECK(stats_quantile_design_effects(x, 0, p5, 5, 100, 2000, d) == STATS_OK && isnan(d[0]) &&
              isnan(d[4]));
        CHECK(stats_quantile_design_effects(x, 200, odd, 3, 100, 2000, d) == STATS_OK &&
              isnan(d[0]) && d[1] >= 1 && d[2] == 1);
        /* a NaN among the values: none known */
        x[17] = NAN;
        CHECK(stats_quantile_design_effects(x, 200, p5, 5, 100, 2000, d) == STATS_ENAN);
    }

    /* Samples kept as floats (Stats.f32) while each is exactly one: the boundaries of
       "exactly a float" (by hand: a float has 24 significant bits, exponents down to
       2^-149, up to FLT_MAX), each read back as the double it was. */
    TEST("kept as floats while exact: the boundaries, -0, and NaN refused as before")
    {
        const double fit[] = {16777216.0 /* 2^24 */,
                              16777215.0,
                              (double)0.1f,
                              -0.0,
                              0x1p-149 /* the least float subnormal */,
                              0x1.8p-140,
                              (double)FLT_MAX,
                              -(double)FLT_MAX,
                              0x1.fffffep-1,
                              1771.25};
        const double wide[] = {16777217.0 /* 2^24 + 1 */,
                               0.1,
                               0x1p-150,
                               4.9e-324,
                               (double)FLT_MAX * 2,
                               0x1.fffffe1p-1,
                               1771234500.0065};
        for (size_t i = 0; i < sizeof fit / sizeof fit[0]; i++) {
            for (int way = 0; way < 2; way++) { /* stats_add, then stats_add_many */
                Stats s;
                stats_init(&s, 0);
                double xs[3] = {1, fit[i], 2}, got[3];
                CHECK((way ? stats_add_many(&s, xs, 3)
                           : (stats_add(&s, 1) | stats_add(&s, fit[i]) | stats_add(&s, 2))) ==
                      STATS_OK);
                CHECK(s.f32 == 1 && s.n == 3);
                stats_samples(&s, 0, 3, got);
                CHECK(memcmp(got, xs, sizeof xs) == 0); /* bits: -0 stays -0 */
                stats_free(&s);
            }
        }
        for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
            for (int way = 0; way < 2; way++) {
                Stats s;
                stats_init(&s, 0);
                double xs[3] = {1, wide[i], 2}, got[3];
                CHECK((way ? stats_add_many(&s, xs, 3)
                           : (stats_add(&s, 1) | stats_add(&s, wide[i]) | stats_add(&s, 2))) ==
                      STATS_OK);
                CHECK(s.f32 == 0 && s.n == 3);
                stats_samples(&s, 0, 3, got);
                CHECK(memcmp(got, xs, sizeof xs) == 0);
                CHECK(got[1] == wide[i] && memcmp(s.v, xs, sizeof xs) == 0);
                stats_free(&s);
            }
        }
        /* a NaN is refused and changes nothing, the floats kept as floats */
        Stats s;
        stats_init(&s, 0);
        double xs[4] = {0.5, 0.25, NAN, 0.1};
        CHECK(stats_add(&s, 0.5) == STATS_OK && stats_add(&s, NAN) == STATS_ENAN);
        CHECK(stats_add_many(&s, xs, 4) == STATS_ENAN && s.n == 1 && s.f32 == 1);
        CHECK(stats_add_many(&s, xs, 2) == STATS_OK && s.n == 3 && s.f32 == 1);
        CHECK(stats_mean(&s) == 1.25 / 3);
        stats_free(&s);
    }

    /* The same samples kept as floats and (widened before the first) as doubles give the
       same bits in every reader, in every lane (portable 0, 1, 2); and a store that
       widens mid-way (a 0.1 after 5000 floats) holds them all, in order. The expected
       values are ref_linear on the sorted samples and a sum in long double (tested
       against the doubles' own path by the tests above). */
    TEST("floats or doubles, the same bits: percentiles, variance, MWU, rank, merge; "
         "widened mid-way")
    {
        const size_t n = 200000;
        double *xs = malloc(n * sizeof *xs), *sorted = malloc(n * sizeof *sorted);
        double clock = 1771234500.0; /* gaps of epoch timestamps: multiples of 2^-22 */
        for (size_t i = 0; i < n; i++) {
            double next = clock + 0.001 + floor(uniform() * 0.02 * 4194304.0) / 4194304.0;
            xs[i] = next - clock;
            clock = next;
        }
        memcpy(sorted, xs, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, cmp_double);
        const double pq[] = {0, 1, 25, 50, 90, 99, 99.9, 100};
        int bad = 0;
        for (int portable = 0; portable <= 2; portable++) {
            Stats f, d, w;
            stats_init(&f, 0);
            stats_init(&d, 0);
            stats_init(&w, 0);
            f.portable = d.portable = w.portable = portable;
            stats_widen(&d); /* doubles from the first sample */
            CHECK(stats_add_many(&f, xs, n) == STATS_OK && f.f32 == 1);
            CHECK(stats_add_many(&d, xs, n) == STATS_OK && d.f32 == 0);
            /* widened mid-way, in batches and one by one */
            CHECK(stats_add_many(&w, xs, 5000) == STATS_OK && w.f32 == 1);
            CHECK(stats_add(&w, 0.1) == STATS_OK && w.f32 == 0);
            CHECK(stats_add_many(&w, xs + 5000, n - 5000) == STATS_OK && w.n == n + 1);
            double got[4];
            stats_samples(&w, 4998, 4, got);
            CHECK(got[0] == xs[4998] && got[1] == xs[4999] && got[2] == 0.1 && got[3] == xs[5000]);
            /* the first query of a large sample: histogram over the floats, with the
               variance in its pass; f stays floats */
            double out_f[8], out_d[8];
            stats_percentiles_variance(&f, pq, out_f, 8, STATS_LINEAR);
            stats_percentiles_variance(&d, pq, out_d, 8, STATS_LINEAR);
            CHECK(f.f32 == 1);
            for (int i = 0; i < 8; i++) {
                bad += !same(out_f[i], out_d[i]);
                bad += !same(out_f[i], ref_linear(sorted, n, pq[i]));
            }
            CHECK(memcmp(&f.m2_exact, &d.m2_exact, sizeof(double)) == 0);
            CHECK(stats_variance(&f, 1) == stats_variance(&d, 1));
            CHECK(stats_sum(&f) == stats_sum(&d) && stats_mean(&f) == stats_mean(&d));
            long double ld = 0;
            for (size_t i = 0; i < n; i++)
                ld += xs[i];
            CHECK(fabs((double)ld - stats_sum(&f)) <= 1e-12 * (double)ld);
            /* the variance alone (no percentile pass) over the floats */
            Stats f2, d2;
            stats_init(&f2, 0);
            stats_init(&d2, 0);
            f2.portable = d2.portable = portable;
            stats_widen(&d2);
            CHECK(stats_add_many(&f2, xs, n - 3) == STATS_OK &&
                  stats_add_many(&d2, xs, n - 3) == 0);
            double v1 = stats_variance(&f2, 0), v2 = stats_variance(&d2, 0);
            CHECK(memcmp(&v1, &v2, sizeof v1) == 0 && f2.f32 == 1);
            /* merged and ranged from floats into an accumulator of either kind */
            Stats m;
            stats_init(&m, 0);
            CHECK(stats_merge(&m, &f2) == STATS_OK && m.n == n - 3 && m.f32 == 1);
            CHECK(stats_add_range(&m, &w, 4999, 3) == STATS_OK && m.f32 == 0 && m.n == n);
            stats_samples(&m, n - 4, 4, got);
            CHECK(got[0] == xs[n - 4] && got[1] == xs[4999] && got[2] == 0.1 && got[3] == xs[5000]);
            /* the readers that widen (MWU sorts: these samples have too many values for
               counts, so they are widened and sorted as doubles) and rank, which does not */
            StatsMWU a, b;
            CHECK(stats_mann_whitney(&f, &w, &a) == STATS_OK && f.f32 == 0);
            CHECK(stats_mann_whitney(&d, &w, &b) == STATS_OK);
            CHECK(a.u == b.u && a.z == b.z && a.p == b.p);
            CHECK(stats_rank(&f2, sorted[n / 2]) == stats_rank(&d2, sorted[n / 2]) && f2.f32 == 1);
            for (int i = 0; i < 8; i++)
                bad += !same(stats_percentile(&f, pq[i], STATS_LINEAR), out_d[i]);
            stats_free(&f);
            stats_free(&d);
            stats_free(&w);
            stats_free(&f2);
            stats_free(&d2);
            stats_free(&m);
        }
        CHECK(bad == 0);
        free(xs);
        free(sorted);
    }

    /*
    ** Sorted as floats (stats.c quantum_sort on the float store): the samples back bit for
    ** bit as a sort of the same samples kept as doubles gives them (a twin widened from
    ** the first sample), and as qsort orders them (the reference); no widening where the
    ** counting sort applies, a widening where it does not (a -0.0 among +0.0: then the
    ** double sort places them, as it always did; values too fine for counts). Kinds, n =
    ** 100 000 (counts allowed: at most n / 8 = 12 500 values): 0 clock gaps of 2^-22 s
    ** less 3000 of them (negatives, +0.0, ties: 10 000 values); 1 the same with -0.0 at
    ** three places; 2 float subnormals k 2^-149, of both signs (normal doubles); 3
    ** uniform floats in [0, 1) (too many values: widened). Then the sorted store widened
    ** by a sample that is not a float (4/3, above every one: still sorted) and asked
    ** again; and Mann-Whitney of the floats against doubles, read as kept.
    */
    TEST("floats sorted as floats: the double sort's samples, bit for bit; widened after")
    {
        const size_t n = 100000;
        const int keeps[] = {1, 0, 1, 0}; /* f32 after the sort */
        const double pq[] = {0, 1, 25, 50, 90, 99, 99.9, 100};
        double *xs = malloc(n * sizeof *xs), *ref = malloc(n * sizeof *ref);
        int bad = 0;
        for (int kind = 0; kind < 4; kind++)
            for (int portable = 0; portable <= 2; portable++) {
                for (size_t i = 0; i < n; i++) {
                    double k = floor(uniform() * 10000);
                    xs[i] = kind <= 1   ? ldexp(k - 3000, -22)
                            : kind == 2 ? ldexp(k - 5000, -149)
                                        : (double)(float)uniform();
                    if (kind == 1 && (i == 7 || i == n / 2 || i == n - 1))
                        xs[i] = -0.0;
                }
                memcpy(ref, xs, n * sizeof *ref);
                qsort(ref, n, sizeof *ref, cmp_double);
                Stats f, d, g, gd;
                stats_init(&f, 0);
                stats_init(&d, 0);
                stats_init(&g, 0);
                stats_init(&gd, 0);
                f.portable = d.portable = g.portable = gd.portable = portable;
                stats_widen(&d);
                stats_widen(&gd);
                CHECK(stats_add_many(&f, xs, n) == STATS_OK && f.f32 == 1 && f.sorted == 0);
                CHECK(stats_add_many(&d, xs, n) == STATS_OK && d.f32 == 0);
                /* the other sample of the test: 80 000 of xs in another order, kept both
                   ways (enough to be sorted by counting too) */
                for (size_t i = 0; i < 80000; i++) {
                    CHECK(stats_add(&g, xs[i * 7919 % n]) == STATS_OK);
                    CHECK(stats_add(&gd, xs[i * 7919 % n]) == STATS_OK);
                }
                CHECK(g.f32 == 1);
                stats_sort(&f);
                stats_sort(&d);
                if (f.f32 != keeps[kind] && bad++ < 5)
                    fprintf(stderr, "  kind %d, lane %d: f32 %d after the sort, want %d\n", kind,
                            portable, f.f32, keeps[kind]);
                CHECK(f.sorted == 1);
                size_t zneg = 0, rneg = 0;
                for (size_t i = 0; i < n; i++) {
                    double a = kept(&f, i), b = kept(&d, i);
                    zneg += a == 0 && signbit(a);
                    rneg += ref[i] == 0 && signbit(ref[i]);
                    if ((memcmp(&a, &b, sizeof a) != 0 || !(a == ref[i])) && bad++ < 5)
                        fprintf(stderr,
                                "  kind %d, lane %d: [%zu] %.17g, doubles %.17g, qsort %.17g\n",
                                kind, portable, i, a, b, ref[i]);
                }
                CHECK(zneg == rneg && zneg == (kind == 1 ? 3u : 0u));
                for (int i = 0; i < 8; i++) {
                    double a = stats_percentile(&f, pq[i], STATS_LINEAR);
                    double b = stats_percentile(&d, pq[i], STATS_NEAREST);
                    bad += !same(a, stats_percentile(&d, pq[i], STATS_LINEAR));
                    bad += !same(a, ref_linear(ref, n, pq[i]));
                    bad += !same(stats_percentile(&f, pq[i], STATS_NEAREST), b);
                    bad += !same(b, ref_nearest(ref, n, pq[i]));
                }
                CHECK(f.f32 == keeps[kind]); /* the look-ups read the floats */
                StatsMWU m1, m2, m3;
                CHECK(stats_mann_whitney(&f, &g, &m1) == STATS_OK);
                CHECK(stats_mann_whitney(&d, &gd, &m2) == STATS_OK);
                CHECK(stats_mann_whitney(&g, &d, &m3) == STATS_OK);
                CHECK(m1.u == m2.u && m1.z == m2.z && m1.p == m2.p && m1.var == m2.var);
                CHECK(m3.u == (double)n * (double)g.n - m1.u);
                CHECK(f.f32 == keeps[kind] && (keeps[kind] == 0 || g.f32 == 1));
                /* widened after the sort: the same samples, one more, still sorted */
                CHECK(stats_add(&f, 4.0 / 3) == STATS_OK && f.f32 == 0 && f.sorted == 1);
                CHECK(stats_add(&d, 4.0 / 3) == STATS_OK && d.sorted == 1);
                CHECK(memcmp(f.v, d.v, (n + 1) * sizeof *f.v) == 0);
                for (int i = 0; i < 8; i++)
                    bad += !same(stats_percentile(&f, pq[i], STATS_LINEAR),
                                 stats_percentile(&d, pq[i], STATS_LINEAR));
                CHECK(stats_percentile(&f, 100, STATS_LINEAR) == 4.0 / 3);
                stats_free(&f);
                stats_free(&d);
                stats_free(&g);
                stats_free(&gd);
            }
        CHECK(bad == 0);
        free(xs);
        free(ref);
    }

    /* issue 20: an unknown variance of samples held as runs (a loaded dump, compare.lua's
       whole-run ITL) is summed over the runs, none written out: the same bits as over the
       samples written out in sorted order (the code that reads samples), and within 1e-13
       of the two-pass quad-precision sum (exact_sq_sum); runs longer than a chunk (1024),
       counts not a multiple of the 4 lanes; floats (kept as f32) and doubles */
    TEST("stats_variance_runs: the variance of held runs, the same bits as written out")
    {
        int bad = 0;
        for (int round = 0; round < 24; round++) {
            int f32 = round % 2;
            size_t nr = 1 + (size_t)(next_u64() % (round < 4 ? 3 : 2000));
            double *val = malloc(nr * sizeof *val);
            uint64_t *end = malloc(nr * sizeof *end);
            uint64_t n = 0;
            double x = 1e-3 + uniform();
            for (size_t i = 0; i < nr; i++) {
                x += 1e-4 + uniform() * 1e-2;
                val[i] = f32 ? (double)(float)x : x;
                n += 1 + next_u64() % (i % 7 == 0 ? 3000 : 40);
                end[i] = n;
            }
            double *w = malloc(n * sizeof *w);
            for (size_t i = 0, at = 0; i < nr; at = end[i], i++)
                for (uint64_t k = at; k < end[i]; k++)
                    w[k] = val[i];
            Stats full;
            stats_init(&full, 0);
            CHECK(stats_add_many(&full, w, (size_t)n) == STATS_OK);
            bad += full.f32 != f32;
            StatsRuns r = {val, end, nr};
            for (int ddof = 0; ddof <= 1; ddof++) {
                Stats held = full; /* its sums and kind; its samples never read */
                held.m2_known = 0;
                full.m2_known = 0;
                double want = stats_variance(&full, ddof),
                       got = stats_variance_runs(&held, &r, ddof);
                bad += memcmp(&want, &got, sizeof want) != 0 || !held.m2_known;
                quad sum = 0, ss = 0;
                for (uint64_t k = 0; k < n; k++)
                    sum += w[k];
                quad mean = sum / (quad)n;
                for (uint64_t k = 0; k < n; k++)
                    ss += (w[k] - mean) * (w[k] - mean);
                if (n > (uint64_t)ddof)
                    bad += near_rel(got, (double)(ss / (quad)(n - (uint64_t)ddof))) > 1e-13;
                else
                    bad += !isnan(got);
            }
            stats_free(&full);
            free(w);
            free(val);
            free(end);
        }
        CHECK(bad == 0);
    }

    /* stats_save, samples added, widened, restored: the saved samples as they are now */
    TEST("save and restore across a widening")
    {
        Stats s;
        StatsSaved sv;
        stats_init(&s, 0);
        double xs[3] = {3, 1, 2}, got[3];
        CHECK(stats_add_many(&s, xs, 3) == STATS_OK && stats_save(&s, &sv) == STATS_OK);
        CHECK(stats_add(&s, 0.1) == STATS_OK && s.f32 == 0);
        stats_restore(&s, &sv);
        stats_saved_free(&sv);
        CHECK(s.n == 3 && s.f32 == 0);
        stats_samples(&s, 0, 3, got);
        CHECK(memcmp(got, xs, sizeof xs) == 0 && stats_percentile(&s, 50, STATS_LINEAR) == 2);
        stats_free(&s);
    }

    return test_report();
}
