/*
** stats.c — numeric accumulators, as declared in stats.h.
*/
#if defined(__linux__)
#define _GNU_SOURCE /* mremap */
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "stats.h"

/* The lanes of the variance's sum of squared deviations (SqLanes): four, as the vector
   loops hold them. */
enum { SQ_LANES = 4 };

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/*
** Large blocks of samples in transparent huge pages where the kernel gives them on
** request (THP mode "madvise", as on this project's machines, or "always"): each 2 MiB
** page is one fault and one clear instead of 512, and in a virtual machine each fault
** costs a trip through the hypervisor. At 20 M kept samples the faults were a third of
** the time, in the kernel. A page is faulted when first written, so resident memory
** grows by at most one huge page past the samples written. A kernel without it ignores
** the advice (not checked: it is only advice). The mapping begins at one huge page: from
** 4 MiB on, the malloc'd 2 MiB before it were 512 faults of 4 KiB per block, three
** quarters of a CSV's faults of three columns (about 15 us each in this project's VMs,
** a tenth of the read); from 2 MiB on, half of them are gone, and a block that grows
** into a mapping is at least half full (its samples' 1 MiB of it), as a doubled one is.
** What the kernel still spends on a large run is the first write to the samples
** themselves (clear_page_erms under do_huge_pmd_anonymous_page: 33-48 % of a 500 MB
** number-dense scan's time in perf, nearly all from exact_pairs_avx): in these VMs
** (Firecracker, PVM, free page reporting of 8 MiB blocks) memory the guest has freed
** is handed back to the host, which backs it again when it is next written, about
** 1-6 ms a 2 MiB page (84 MB of samples: 36-250 ms by load; 6 ms for memory this
** process freed a moment before). No block is allocated twice here for reuse to save:
** only fewer bytes kept, or the pages written ahead by another core, would.
*/
#define HUGE_PAGE ((size_t)2 << 20)
#define V_MAP_AT_LEAST HUGE_PAGE  /* v from this size on is in huge pages */
#define BLOCK_PAGE ((size_t)4096) /* a mapping below V_MAP_AT_LEAST: a multiple of this */

/* The advice for the whole pages within p[0..bytes), from V_MAP_AT_LEAST bytes on. On a
   mapping of its own that is all of it (and it stays one mapping, mremap can move it). */
static void advise_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t to = ((uintptr_t)p + bytes) & ~(page - 1);
    if (bytes >= V_MAP_AT_LEAST && to > from)
        (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
/*
** The SSE2 loops of add_many and the variance are also compiled for AVX, chosen at run
** time: the same operations (so the same bits) in the three-operand encoding, without
** the register copies SSE2's two operands need (a fifth of those loops). portable: 0
** the best the CPU has, 1 plain C, 2 SSE2 without AVX (for the tests).
*/
#define STATS_AVX 1
static int cpu_avx = -1;

static int use_avx(int portable)
{
    if (portable != 0)
        return 0;
    if (cpu_avx < 0) {
        __builtin_cpu_init();
        cpu_avx = __builtin_cpu_supports("avx") != 0;
    }
    return cpu_avx;
}

/* The same for AVX2 (hist_gather's integer lanes, four 64-bit bins at once). */
#define STATS_AVX2 1
#include <immintrin.h>
static int cpu_avx2 = -1;

static int use_avx2(int portable)
{
    if (portable != 0)
        return 0;
    if (cpu_avx2 < 0) {
        __builtin_cpu_init();
        cpu_avx2 = __builtin_cpu_supports("avx2") != 0;
    }
    return cpu_avx2;
}
#endif

/* ---- sorting and selection of doubles (no NaN is ever stored) ---------------- */

static void insertion_sort(double *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static void sift_down(double *a, size_t root, size_t n)
{
    for (;;) {
        size_t c = 2 * root + 1;
        if (c >= n)
            return;
        if (c + 1 < n && a[c + 1] > a[c])
            c++;
        if (a[root] >= a[c])
            return;
        double t = a[root];
        a[root] = a[c];
        a[c] = t;
        root = c;
    }
}

static void heap_sort(double *a, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, i, n);
    for (size_t i = n; i-- > 1;) {
        double t = a[0];
        a[0] = a[i];
        a[i] = t;
        sift_down(a, 0, i);
    }
}

/* Median of three as pivot; returns the split point of a Hoare partition. */
static size_t partition(double *a, size_t n)
{
    size_t mid = n / 2;
    if (a[mid] < a[0]) {
        double t = a[mid];
        a[mid] = a[0];
        a[0] = t;
    }
    if (a[n - 1] < a[0]) {
        double t = a[n - 1];
        a[n - 1] = a[0];
        a[0] = t;
    }
    if (a[n - 1] < a[mid]) {
        double t = a[n - 1];
        a[n - 1] = a[mid];
        a[mid] = t;
    }
    double pivot = a[mid];
    size_t i = 0, j = n - 1;
    for (;;) {
        while (a[i] < pivot)
            i++;
        while (a[j] > pivot)
            j--;
        if (i >= j)
            return j + 1;
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
    }
}

/* Introsort: quicksort, heap sort when recursion goes too deep, insertion at the end. */
static void intro_sort(double *a, size_t n, int budget)
{
    while (n > 24) {
        if (budget-- == 0) {
            heap_sort(a, n);
            return;
        }
        size_t k = partition(a, n);
        /* recurse into the smaller side, loop on the larger */
        if (k < n - k) {
            intro_sort(a, k, budget);
            a += k;
            n -= k;
        } else {
            intro_sort(a + k, n - k, budget);
            n = k;
        }
    }
    insertion_sort(a, n);
}

static void intro_sort_all(double *a, size_t n)
{
    int budget = 2;
    for (size_t m = n; m > 1; m >>= 1)
        budget += 2;
    intro_sort(a, n, budget);
}

static inline uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* An order-preserving integer key of a double (no NaN): negatives reversed. */
static uint64_t key_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    /* negatives: every bit flipped; the others: the sign bit set. No branch. */
    return u ^ ((0 - (u >> 63)) | (1ULL << 63));
}

/* Bits of the key range split at the first level of the radix sort, and at the second. */
#define RADIX1_BITS 11
#define RADIX2_BITS 11
/* A second-level bucket of at most this many samples is sorted by insertion. */
#define RADIX_SMALL 32
/* A first-level bucket of more samples than this (a crowded one) is sorted by a radix
   sort of its own, over its own narrower range of keys. */
#define RADIX_HOT ((size_t)1 << 16)

/* Sorts the second-level buckets of b that may hold different keys (ends[k] is where
   bucket k ends): by insertion when small, else unless every sample is equal. */
static void sort_runs(double *b, const size_t *ends, size_t nb)
{
    size_t from = 0;
    for (size_t k = 0; k < nb; k++) {
        size_t to = ends[k], m = to - from;
        if (m > RADIX_SMALL) {
            size_t q = from + 1;
            while (q < to && b[q] == b[from])
                q++;
            if (q < to)
                intro_sort_all(b + from, m);
        } else if (m > 1) {
            insertion_sort(b + from, m);
        }
        from = to;
    }
}

/*
** A radix pass's digit of x: (key - least key) >> shift. When every sample is >= +0 the
** key is the bits plus 2^63, so the digit is (bits - base) >> shift, base the least key
** less 2^63: no look at the sign (nonneg).
*/
static inline size_t digit_of(double x, uint64_t base, int shift, int nonneg)
{
    return (size_t)(((nonneg ? bits_of(x) : key_of(x)) - base) >> shift);
}

/* count[digit + 1]++ for every sample of a[0..n) (the loop chosen once, for nonneg). */
static void radix_count(const double *a, size_t n, uint64_t base, int shift, int nonneg,
                        size_t *count)
{
    if (nonneg) {
        for (size_t i = 0; i < n; i++)
            count[digit_of(a[i], base, shift, 1) + 1]++;
    } else {
        for (size_t i = 0; i < n; i++)
            count[digit_of(a[i], base, shift, 0) + 1]++;
    }
}

/* Each sample of a[0..n) to out[at[digit]++], in order (a stable pass). */
static void radix_move(const double *a, size_t n, uint64_t base, int shift, int nonneg, size_t *at,
                       double *out)
{
    if (nonneg) {
        for (size_t i = 0; i < n; i++)
            out[at[digit_of(a[i], base, shift, 1)]++] = a[i];
    } else {
        for (size_t i = 0; i < n; i++)
            out[at[digit_of(a[i], base, shift, 0)]++] = a[i];
    }
}

/*
** Puts every sample of a[0..n) into its first-level bucket, in place: start[b] is where
** bucket b begins (start[nb] = n); on return start[b] is where it ends. In rounds over
** the buckets: each sample of a bucket's part not yet placed goes to the head of its own
** bucket (swapped with the sample there, which waits for the next round), so every swap
** places one sample for good (n swaps in all), and the swaps of a round do not wait on
** each other's loads (following a cycle from sample to sample would: a cache miss each).
** next: nb + 1 cursors (each bucket's head).
*/
static void radix_place(double *a, uint64_t base, int shift, int nonneg, size_t *start, size_t nb,
                        size_t *next)
{
    memcpy(next, start, (nb + 1) * sizeof *next);
    for (int left = 1; left;) {
        left = 0;
        for (size_t b = 0; b < nb; b++) {
            size_t end = start[b + 1];
            for (size_t it = next[b]; it < end; it++) {
                double x = a[it];
                size_t to = next[digit_of(x, base, shift, nonneg)]++;
                a[it] = a[to];
                a[to] = x;
            }
            left |= next[b] != end;
        }
    }
    memcpy(start, next, nb * sizeof *start); /* next[b] = start[b + 1] by now */
}

/*
** Sorts a (no NaN) by two levels of radix on the keys (a double's bits as an ordered
** integer), less the least key: the top RADIX1_BITS bits of the range spread the samples
** into their buckets, in place (radix_place: a pass to count and one to swap them; no
** scratch copy of the samples, whose fresh pages the kernel would have to clear first,
** the largest cost of the sort where memory is handed back to a hypervisor), then each
** of those buckets, which is in the cache, is spread by the next bits (about as many
** second-level buckets as it has samples) into a small buffer and written back to a in
** its place, where the few samples of each second-level bucket are sorted alone (nothing
** to do when such a bucket is one key; one insertion sort over the buffer when none
** holds more than a few; latencies read off a clock repeat values, which cost nothing
** more). Two streaming passes and one scattered one over the samples instead of ~log2(n)
** passes of quicksort's partitions with their mispredicted comparisons; a crowded bucket
** gets a radix sort of its own range. Returns -1, changing nothing, when there is no
** memory for the buckets' counts, or when no_neg_zero is set and a holds a -0.0 (the
** radix puts every -0.0 before every +0.0, where introsort leaves them in an order of its
** own: without a -0.0 the sorted array is one and the same, bit for bit, whichever sort
** made it). hot: a first-level bucket of more samples is crowded (RADIX_HOT, or less to
** keep the buffer small: it is at most hot samples).
*/
static int radix_sort(double *a, size_t n, int no_neg_zero, size_t hot)
{
    /* the keys' range from a itself, not from the accumulator's min and max: -0.0 sorts
       below a minimum of +0.0, and a bucket below the first would be written outside */
    uint64_t kmin = UINT64_MAX, kmax = 0, neg_zero = 0;
    const uint64_t neg_zero_key = key_of(-0.0);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key_of(a[i]);
        kmin = k < kmin ? k : kmin;
        kmax = k > kmax ? k : kmax;
        neg_zero |= k == neg_zero_key;
    }
    if (no_neg_zero && neg_zero)
        return -1;
    if (n < 2 || kmin == kmax)
        return 0; /* one key: sorted */
    uint64_t range = kmax - kmin, sign = 1ULL << 63;
    int nonneg = kmin >= sign; /* every sample >= +0 */
    uint64_t base = nonneg ? kmin - sign : kmin;
    int bits = 0;
    while (bits < 64 && (range >> bits) != 0)
        bits++;
    int s1 = bits > RADIX1_BITS ? bits - RADIX1_BITS : 0;
    size_t nb = (size_t)(range >> s1) + 1;
    size_t *start = (size_t *)calloc(nb + 1, sizeof *start);
    size_t *next = (size_t *)malloc((nb + 1) * sizeof *next);
    size_t *ends = (size_t *)malloc((((size_t)1 << RADIX2_BITS) + 1) * sizeof *ends);
    double *buf = NULL;
    if (start == NULL || next == NULL || ends == NULL)
        goto fail;
    radix_count(a, n, base, s1, nonneg, start);
    size_t most = 0;
    for (size_t b = 0; b < nb; b++) {
        most = start[b + 1] > most ? start[b + 1] : most;
        start[b + 1] += start[b]; /* start[b]: where bucket b begins */
    }
    buf = (double *)malloc((most < hot ? most : hot) * sizeof *buf);
    if (buf == NULL)
        goto fail;
    radix_place(a, base, s1, nonneg, start, nb, next); /* start[b]: its end now */
    size_t from = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t to = start[b], m = to - from;
        double *src = a + from;
        from = to;
        if (s1 == 0 || m <= 1) { /* one key a bucket */
        } else if (m <= RADIX_SMALL) {
            insertion_sort(src, m);
        } else if (m > hot) {
            if (radix_sort(src, m, 0, hot) != 0)
                intro_sort_all(src, m);
        } else {
            /* the second level: into buf by the next bits (about as many buckets as
               samples, RADIX2_BITS at most), the buckets' ends counted, then back */
            int bits2 = 0;
            while (bits2 < RADIX2_BITS && bits2 < s1 && ((size_t)2 << bits2) <= m)
                bits2++;
            int s2 = s1 - bits2;
            size_t nb2 = (size_t)1 << bits2, fullest = 0;
            memset(ends, 0, (nb2 + 1) * sizeof *ends);
            radix_count(src, m, base + ((uint64_t)b << s1), s2, nonneg, ends);
            for (size_t k = 0; k < nb2; k++) {
                fullest = ends[k + 1] > fullest ? ends[k + 1] : fullest;
                ends[k + 1] += ends[k];
            }
            radix_move(src, m, base + ((uint64_t)b << s1), s2, nonneg, ends, buf);
            if (s2 > 0 && fullest > RADIX_SMALL)
                sort_runs(buf, ends, nb2); /* ends[k]: where bucket k ends */
            else if (s2 > 0)
                insertion_sort(buf, m); /* only the few of a bucket are out of order */
            memcpy(src, buf, m * sizeof *src);
        }
    }
    free(buf);
    free(ends);
    free(next);
    free(start);
    return 0;
fail:
    free(buf);
    free(ends);
    free(next);
    free(start);
    return -1;
}

/* Below this many samples (and from RADIX_MID_MIN) the radix sort is taken only where it
   gives introsort's very bits: when no -0.0 is among them (a stage's accumulator of a
   run of many short requests holds tens of thousands of samples, which introsort's
   mispredicted partitions took over 3 % of compare.lua's CPU in; issue 20). */
#define RADIX_ANY_MIN ((size_t)1 << 16)
#define RADIX_MID_MIN ((size_t)1 << 12)
/* Their crowded buckets (RADIX_HOT): a bucket of a few values each repeated thousands of
   times (token counts) would otherwise take a buffer of up to n samples, fresh pages at
   the process's peak (introsort takes none) */
#define RADIX_MID_HOT ((size_t)1 << 11)

static void sort_doubles(double *a, size_t n)
{
    if (n >= RADIX_ANY_MIN && radix_sort(a, n, 0, RADIX_HOT) == 0)
        return;
    if (n >= RADIX_MID_MIN && n < RADIX_ANY_MIN && radix_sort(a, n, 1, RADIX_MID_HOT) == 0)
        return;
    intro_sort_all(a, n);
}

/* A quantum sort's counts: at most one per this many samples (4 bytes each: half a byte
   a sample at most, beside the samples' 8). */
#define QUANTUM_SAMPLES_PER_VALUE 8

/* a[i] of samples kept as floats (f32) or doubles, as a double: the quantum sort's passes
   read and write either store (Stats.f32) as the same doubles, so they decide and write
   the same; f32 is a constant where the loops are inlined */
static inline __attribute__((always_inline)) double kept_load(const void *a, size_t i, int f32)
{
    return f32 ? (double)((const float *)a)[i] : ((const double *)a)[i];
}

/* a[i] = x, x exactly a float when f32 (a sample of a written back) */
static inline __attribute__((always_inline)) void kept_store(void *a, size_t i, double x, int f32)
{
    if (f32)
        ((float *)a)[i] = (float)x;
    else
        ((double *)a)[i] = x;
}

/* quantum_sort's first pass so far: the least exponent of a sample's lowest set bit
   (INT32_MAX while every sample is +0.0), the least and greatest samples. */
typedef struct QuantumScan {
    int e;
    double lo, hi;
} QuantumScan;

/* Too many multiples of 2^e for counts in the samples' range (or a scale that would
   overflow). Grows true as e falls: checking the least e found is checking every one. */
static int quantum_too_fine(int e, double span_hint, size_t cap)
{
    return e < -1000 || ldexp(span_hint, -e) > (double)cap;
}

/* quantum_sort's first pass over a[from..n), from *st on: -1 on a sample that cannot be
   counted (-0.0 would come back as +0.0; subnormals, infinities, NaN) or on too fine a
   quantum (then at once), else 0. */
static inline __attribute__((always_inline)) int quantum_scan_in(const void *a, size_t from,
                                                                 size_t n, int f32,
                                                                 double span_hint, size_t cap,
                                                                 QuantumScan *st)
{
    const uint64_t sign = 1ULL << 63, frac = (1ULL << 52) - 1;
    int e = st->e;
    double lo = st->lo, hi = st->hi;
    for (size_t i = from; i < n; i++) {
        double x = kept_load(a, i, f32);
        uint64_t u = bits_of(x), mag = u & ~sign;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        if (mag == 0) {
            if (u != 0)
                return -1; /* -0.0 */
            continue;
        }
        int ex = (int)(mag >> 52);
        if (ex == 0 || ex == 2047)
            return -1; /* subnormal, infinite or NaN */
        int low = ex - 1075 + __builtin_ctzll((mag & frac) | (1ULL << 52));
        if (low < e) {
            e = low;
            if (quantum_too_fine(e, span_hint, cap))
                return -1;
        }
    }
    st->e = e;
    st->lo = lo;
    st->hi = hi;
    return 0;
}

static int quantum_scan(const void *a, size_t from, size_t n, int f32, double span_hint, size_t cap,
                        QuantumScan *st)
{
    if (f32)
        return quantum_scan_in(a, from, n, 1, span_hint, cap, st);
    return quantum_scan_in(a, from, n, 0, span_hint, cap, st);
}

/* The samples a[from..n) counted, k = (x - lo) * scale each (exact: see quantum_sort). */
static void quantum_count(const void *a, size_t from, size_t n, int f32, double lo, double scale,
                          uint32_t *count)
{
    if (f32) {
        for (size_t i = from; i < n; i++)
            count[(size_t)((kept_load(a, i, 1) - lo) * scale)]++;
    } else {
        for (size_t i = from; i < n; i++)
            count[(size_t)((kept_load(a, i, 0) - lo) * scale)]++;
    }
}

/* The samples written back in order from their counts, from a[at] and count[from] on:
   count[k] times lo + k q, for k from from to nv. */
static void quantum_write(void *a, size_t at, int f32, const uint32_t *count, size_t from,
                          size_t nv, double lo, double q)
{
    for (size_t k = from; k < nv; k++) {
        uint32_t c = count[k];
        if (c == 0)
            continue;
        double x = lo + (double)k * q;
        for (uint32_t j = 0; j < c; j++)
            kept_store(a, at++, x, f32);
    }
}

#ifdef STATS_AVX2
/* quantum_scan_avx2 looks at its running least e (to give up early) every this many
   samples. */
#define QUANTUM_BLOCK 4096

/* a[i..i+4) as doubles (kept_load four at a time: floats widened, exactly) */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) __m256d
kept_load4(const void *a, size_t i, int f32)
{
    if (f32)
        return _mm256_cvtps_pd(_mm_loadu_ps((const float *)a + i));
    return _mm256_loadu_pd((const double *)a + i);
}

/*
** quantum_scan_avx2's counting on the way, which saves a read of every sample: the
** counts of nv multiples of 2^e from lo, where lo is the accumulator's least sample and
** e the first block's least low bit (guesses: checked against the whole pass after it),
** each block counted once it is scanned (in the cache) and found no finer than 2^e; ok
** falls to 0 when one is (the counts are then of no use). The samples after the last
** step of four are not counted.
*/
typedef struct QuantumGuess {
    uint32_t *count;
    size_t nv;
    double lo, scale;
    int e, ok;
} QuantumGuess;

/* g's counts of a[from..to), to - from a multiple of 4, four at a time; the indexes kept
   within the counts (a wrong guess of lo must not write outside them: its counts are
   dropped). */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
quantum_count_guess(const void *a, size_t from, size_t to, int f32, const QuantumGuess *g)
{
    const __m256d vlo = _mm256_set1_pd(g->lo), vs = _mm256_set1_pd(g->scale);
    const __m128i top = _mm_set1_epi32((int)(g->nv - 1)), zero = _mm_setzero_si128();
    uint32_t *count = g->count;
    for (size_t i = from; i < to; i += 4) {
        __m256d x = kept_load4(a, i, f32);
        __m128i k = _mm256_cvttpd_epi32(_mm256_mul_pd(_mm256_sub_pd(x, vlo), vs));
        k = _mm_min_epi32(_mm_max_epi32(k, zero), top);
        count[(uint32_t)_mm_cvtsi128_si32(k)]++;
        count[(uint32_t)_mm_extract_epi32(k, 1)]++;
        count[(uint32_t)_mm_extract_epi32(k, 2)]++;
        count[(uint32_t)_mm_extract_epi32(k, 3)]++;
    }
}

/*
** quantum_scan with AVX2, four samples a step, with the same outcome: the scalar loop's
** minimum and maximum and its least exponent are each a chain of dependent steps, one a
** sample (and the exponent's a branch); here they are four lanes' running minimums.
** A sample's lowest set bit: p = m & -m of its significand m (the hidden bit included:
** 1 <= p <= 2^52), as a double by adding it to 2^52's bits and subtracting 2^52 (exact:
** 2^52 + p <= 2^53 is an integer a double holds), whose exponent field is 1023 + ctz(m);
** so ex + that field is the scalar's low + 2098. +0.0's lanes are all ones (no bit: not
** counted), the bad samples are flagged in lanes and looked at once a block. g: counting
** on the way (NULL: none).
*/
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) int
quantum_scan_avx2_in(const void *a, size_t n, int f32, double span_hint, size_t cap,
                     QuantumScan *st, QuantumGuess *g)
{
    const __m256i sign = _mm256_set1_epi64x((long long)(1ULL << 63));
    const __m256i frac = _mm256_set1_epi64x((long long)((1ULL << 52) - 1));
    const __m256i hidden = _mm256_set1_epi64x(1LL << 52);
    const __m256i big = _mm256_set1_epi64x(0x4330000000000000LL); /* 2^52's bits */
    const __m256i limit = /* DBL_MAX's bits less 2^52, the sign bit flipped */
        _mm256_set1_epi64x((long long)((0x7FEFFFFFFFFFFFFFULL - (1ULL << 52)) ^ (1ULL << 63)));
    const __m256d two52 = _mm256_set1_pd(0x1p52);
    const __m256i zero = _mm256_setzero_si256();
    __m256d vlo = _mm256_set1_pd(st->lo), vhi = _mm256_set1_pd(st->hi);
    __m256i vkey = _mm256_set1_epi32(-1), vbad = zero;
    size_t i = 0;
    while (n - i >= 4) {
        size_t from = i, end = n - i < QUANTUM_BLOCK ? i + (n - i) / 4 * 4 : i + QUANTUM_BLOCK;
        for (; i < end; i += 4) {
            __m256d x = kept_load4(a, i, f32);
            __m256i u = _mm256_castpd_si256(x);
            vlo = _mm256_min_pd(x, vlo);
            vhi = _mm256_max_pd(x, vhi);
            __m256i mag = _mm256_andnot_si256(sign, u);
            __m256i m = _mm256_or_si256(_mm256_and_si256(mag, frac), hidden);
            __m256i p = _mm256_and_si256(m, _mm256_sub_epi64(zero, m));
            __m256d pd = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(big, p)), two52);
            __m256i key = _mm256_add_epi64(_mm256_srli_epi64(mag, 52),
                                           _mm256_srli_epi64(_mm256_castpd_si256(pd), 52));
            __m256i pz = _mm256_cmpeq_epi64(u, zero);                /* +0.0 */
            vkey = _mm256_min_epu32(vkey, _mm256_or_si256(key, pz)); /* keys < 2^32: low halves */
            /* but for +0.0, mag - 2^52 <= DBL_MAX's bits - 2^52 unsigned (the sign bits
               flipped, a signed comparison) */
            __m256i off = _mm256_xor_si256(_mm256_sub_epi64(mag, hidden), sign);
            vbad = _mm256_or_si256(vbad, _mm256_andnot_si256(pz, _mm256_cmpgt_epi64(off, limit)));
        }
        if (!_mm256_testz_si256(vbad, vbad))
            return -1; /* -0.0, subnormal, infinite or NaN */
        uint32_t k[8];
        _mm256_storeu_si256((__m256i *)(void *)k, vkey);
        uint32_t least = k[0] < k[2] ? k[0] : k[2], l2 = k[4] < k[6] ? k[4] : k[6];
        least = l2 < least ? l2 : least;
        if (least != UINT32_MAX && (int)least - 2098 < st->e) {
            st->e = (int)least - 2098;
            if (quantum_too_fine(st->e, span_hint, cap))
                return -1;
        }
        if (g != NULL && g->ok && st->e < g->e)
            g->ok = 0;
        if (g != NULL && g->ok)
            quantum_count_guess(a, from, i, f32, g);
    }
    double l[4], h[4];
    _mm256_storeu_pd(l, vlo);
    _mm256_storeu_pd(h, vhi);
    for (int j = 0; j < 4; j++) {
        st->lo = l[j] < st->lo ? l[j] : st->lo;
        st->hi = h[j] > st->hi ? h[j] : st->hi;
    }
    return quantum_scan(a, i, n, f32, span_hint, cap, st);
}

__attribute__((target("avx2"))) static int quantum_scan_avx2(const void *a, size_t n, int f32,
                                                             double span_hint, size_t cap,
                                                             QuantumScan *st, QuantumGuess *g)
{
    if (f32)
        return quantum_scan_avx2_in(a, n, 1, span_hint, cap, st, g);
    return quantum_scan_avx2_in(a, n, 0, span_hint, cap, st, g);
}

/* quantum_count four samples a step: their four counts' indexes in one conversion (the
   same truncation of the same exact products; below 2^31: at most n / 8 values). */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
quantum_count_avx2_in(const void *a, size_t n, int f32, double lo, double scale, uint32_t *count)
{
    const __m256d vlo = _mm256_set1_pd(lo), vs = _mm256_set1_pd(scale);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d x = kept_load4(a, i, f32);
        __m128i k = _mm256_cvttpd_epi32(_mm256_mul_pd(_mm256_sub_pd(x, vlo), vs));
        count[(uint32_t)_mm_cvtsi128_si32(k)]++;
        count[(uint32_t)_mm_extract_epi32(k, 1)]++;
        count[(uint32_t)_mm_extract_epi32(k, 2)]++;
        count[(uint32_t)_mm_extract_epi32(k, 3)]++;
    }
    quantum_count(a, i, n, f32, lo, scale, count);
}

__attribute__((target("avx2"))) static void
quantum_count_avx2(const void *a, size_t n, int f32, double lo, double scale, uint32_t *count)
{
    if (f32)
        quantum_count_avx2_in(a, n, 1, lo, scale, count);
    else
        quantum_count_avx2_in(a, n, 0, lo, scale, count);
}

/* quantum_write with a value's run written four at a time (clock gaps: hundreds a value),
   its last four past its end but for the last run of a: the next runs write over them. */
__attribute__((target("avx2"))) static void quantum_write_avx2(void *a, size_t n, int f32,
                                                               const uint32_t *count, size_t nv,
                                                               double lo, double q)
{
    size_t at = 0, k = 0;
    for (; k < nv; k++) {
        uint32_t c = count[k];
        if (c == 0)
            continue;
        if (at + c + 3 >= n)
            break; /* a run that ends within 3 of a's end: the rest one by one */
        double x = lo + (double)k * q;
        if (f32) {
            __m128 v = _mm_set1_ps((float)x);
            for (uint32_t j = 0; j < c; j += 4)
                _mm_storeu_ps((float *)a + at + j, v);
        } else {
            __m256d v = _mm256_set1_pd(x);
            for (uint32_t j = 0; j < c; j += 4)
                _mm256_storeu_pd((double *)a + at + j, v);
        }
        at += c;
    }
    quantum_write(a, at, f32, count, k, nv, lo, q);
}
#endif

/*
** Sorts a by counting, when every sample is a multiple of one power of two q and the
** samples' range holds few multiples of q (at most n / QUANTUM_SAMPLES_PER_VALUE): gaps
** between clock readings are such samples (two epoch timestamps near 1.8e9 s differ by a
** multiple of 2^-22 s, so 20 M inter-token latencies under 1 s take at most 4 M values).
** One pass finds q (the least of the samples' lowest set bits) and the range, one counts
** the samples of each multiple, one writes them back in order. Exact: a sample x is lo +
** k q with k an integer below 2^53, and both (x - lo) * (1 / q) and lo + k q are exact
** in doubles, so each sample comes back as the same double (-0.0, subnormals, infinities
** and NaN are left to the radix sort). a holds floats when f32 (Stats.f32), read as the
** doubles they are: the same passes decide the same, and each lo + k q written back is a
** sample, a float. No -0.0 is left: equal samples are then the same bits, so the order is
** any sort's, bit for bit. lo_hint, hi_hint: the accumulator's least and greatest
** samples, only to give up early on samples of fine-grained values (their range is
** measured again here). The passes in AVX2 where the CPU has it (portable: 0, as Stats'
** field; the same samples back either way). Returns 0 when sorted, -1 when a is
** unchanged.
*/
/* The counts as runs (quantum_sort's runs): count[k] samples of lo + k q, for k < nv, each
   run's value and end (the samples up to it) in r (malloc'd). 0, or -1 when memory is short. */
static int quantum_runs(const uint32_t *count, size_t nv, double lo, double q, StatsRuns *r)
{
    size_t nr = 0;
    for (size_t k = 0; k < nv; k++)
        nr += count[k] != 0;
    double *val = (double *)malloc((nr ? nr : 1) * sizeof *val);
    uint64_t *end = (uint64_t *)malloc((nr ? nr : 1) * sizeof *end);
    if (val == NULL || end == NULL) {
        free(val);
        free(end);
        return -1;
    }
    uint64_t at = 0;
    size_t i = 0;
    for (size_t k = 0; k < nv; k++) {
        if (count[k] == 0)
            continue;
        at += count[k];
        val[i] = lo + (double)k * q;
        end[i++] = at;
    }
    *r = (StatsRuns){val, end, nr};
    return 0;
}

static int quantum_sort_to(void *a, size_t n, int f32, double lo_hint, double hi_hint, int portable,
                           StatsRuns *runs);

static int quantum_sort(void *a, size_t n, int f32, double lo_hint, double hi_hint, int portable)
{
    return quantum_sort_to(a, n, f32, lo_hint, hi_hint, portable, NULL);
}

/* quantum_sort; with runs, a is left as it is and its sorted samples are given as runs
   instead (quantum_runs; -1, a unchanged, when memory is short) */
static int quantum_sort_to(void *a, size_t n, int f32, double lo_hint, double hi_hint, int portable,
                           StatsRuns *runs)
{
    size_t cap = n / QUANTUM_SAMPLES_PER_VALUE;
    double span_hint = hi_hint - lo_hint;
    if (n > UINT32_MAX || cap == 0 || !(span_hint >= 0 && span_hint < HUGE_VAL))
        return -1;
    QuantumScan st = {INT32_MAX, HUGE_VAL, -HUGE_VAL};
#ifdef STATS_AVX2
    int wide = use_avx2(portable);
    if (wide) {
        /* the quantum guessed from the first block, the range from the accumulator's
           extremes: counted in the first pass, and written back when the guesses hold
           (then the counts are the ones the pass after it would find) */
        QuantumScan first = st;
        QuantumGuess g = {NULL, 0, lo_hint, 0, 0, 1};
        if (quantum_scan_avx2(a, n < QUANTUM_BLOCK ? n : QUANTUM_BLOCK, f32, span_hint, cap, &first,
                              NULL) != 0)
            return -1;
        if (first.e != INT32_MAX && first.e <= 1000 && span_hint > 0) {
            g.e = first.e;
            g.scale = ldexp(1.0, -g.e);
            g.nv = (size_t)(span_hint * g.scale) + 1; /* <= cap + 1: first.e not too fine */
            g.count = (uint32_t *)calloc(g.nv, sizeof *g.count);
        }
        if (quantum_scan_avx2(a, n, f32, span_hint, cap, &st, g.count != NULL ? &g : NULL) != 0) {
            free(g.count);
            return -1;
        }
        if (g.count != NULL && g.ok && st.e == g.e && bits_of(st.lo) == bits_of(lo_hint) &&
            bits_of(st.hi) == bits_of(hi_hint)) {
            quantum_count(a, n / 4 * 4, n, f32, st.lo, g.scale, g.count); /* the last few */
            int rc = 0;
            if (runs != NULL)
                rc = quantum_runs(g.count, g.nv, st.lo, ldexp(1.0, g.e), runs);
            else
                quantum_write_avx2(a, n, f32, g.count, g.nv, st.lo, ldexp(1.0, g.e));
            free(g.count);
            return rc;
        }
        free(g.count); /* a guess missed: counted again below */
    } else if (quantum_scan(a, 0, n, f32, span_hint, cap, &st) != 0) {
        return -1;
    }
#else
    (void)portable;
    if (quantum_scan(a, 0, n, f32, span_hint, cap, &st) != 0)
        return -1;
#endif
    int e = st.e;
    double lo = st.lo, hi = st.hi;
    if (runs != NULL && (e == INT32_MAX || lo == hi)) {
        uint32_t one = (uint32_t)n; /* (every sample lo: one run) */
        return quantum_runs(&one, 1, lo, 0, runs);
    }
    if (e == INT32_MAX || lo == hi)
        return 0; /* every sample +0.0, or all one value */
    if (e > 1000)
        return -1;
    double q = ldexp(1.0, e), scale = ldexp(1.0, -e), span = (hi - lo) * scale;
    if (!(span <= (double)cap))
        return -1;
    size_t nv = (size_t)span + 1;
    uint32_t *count = (uint32_t *)calloc(nv, sizeof *count);
    if (count == NULL)
        return -1;
    int rc = 0;
#ifdef STATS_AVX2
    if (wide)
        quantum_count_avx2(a, n, f32, lo, scale, count);
    else
        quantum_count(a, 0, n, f32, lo, scale, count);
#else
    quantum_count(a, 0, n, f32, lo, scale, count);
#endif
    if (runs != NULL)
        rc = quantum_runs(count, nv, lo, q, runs);
#ifdef STATS_AVX2
    else if (wide)
        quantum_write_avx2(a, n, f32, count, nv, lo, q);
#endif
    else
        quantum_write(a, 0, f32, count, 0, nv, lo, q);
    free(count);
    return rc;
}

/* quantum_sort of s's samples as they are kept (floats or doubles): 0 when sorted, -1
   when unchanged. */
static int quantum_sort_kept(Stats *s)
{
    return quantum_sort(s->v, (size_t)s->n, s->f32, s->min, s->max, s->portable);
}

/* Sorts s's samples (exact, no NaN): by counting where they allow (quantum_sort, on the
   floats themselves when they are kept so), else by radix or introsort, as doubles (the
   floats widened first: -0.0 and +0.0 then fall where they always did). */
static void sort_samples(Stats *s)
{
    size_t n = (size_t)s->n;
    if (n >= ((size_t)1 << 16) && quantum_sort_kept(s) == 0)
        return;
    stats_widen(s);
    sort_doubles(s->v, n);
}

/* Rearranges a so that a[k] is the k-th smallest, smaller ones before it. */
static void select_kth(double *a, size_t n, size_t k)
{
    while (n > 24) {
        size_t s = partition(a, n);
        if (k < s) {
            n = s;
        } else {
            a += s;
            k -= s;
            n -= s;
        }
    }
    insertion_sort(a, n);
}

/* Rearranges a so that a[r] is the r-th smallest for every r in ranks[0..nr), which
   is sorted and is used (rebased) as scratch. */
static void select_ranks(double *a, size_t n, uint64_t *ranks, size_t nr)
{
    while (nr > 0) {
        if (n <= 24) {
            insertion_sort(a, n);
            return;
        }
        size_t s = partition(a, n), k = 0;
        while (k < nr && ranks[k] < s)
            k++;
        for (size_t i = k; i < nr; i++)
            ranks[i] -= s;
        /* recurse on the smaller group of ranks, loop on the other */
        if (k < nr - k) {
            select_ranks(a, s, ranks, k);
            a += s;
            n -= s;
            ranks += k;
            nr -= k;
        } else {
            select_ranks(a + s, n - s, ranks + k, nr - k);
            n = s;
            nr = k;
        }
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ---- samples kept as floats (Stats.f32) ------------------------------------------ */

/* Doubles read from a float store a chunk at a time (a multiple of 4: the variance's
   lanes go on from one chunk to the next as over the doubles, so the same bits). */
#define F32_CHUNK 1024

/* x is exactly a float (an infinity is; a NaN is not), without converting one that is
   out of a float's range. */
static inline int is_float(double x)
{
    if (isinf(x))
        return 1;
    return fabs(x) <= FLT_MAX && (double)(float)x == x;
}

/* d[0..m) = f[0..m), exactly. */
static void widen_floats(const float *f, double *d, size_t m)
{
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 4 <= m; i += 4) {
        __m128 x = _mm_loadu_ps(f + i);
        _mm_storeu_pd(d + i, _mm_cvtps_pd(x));
        _mm_storeu_pd(d + i + 2, _mm_cvtps_pd(_mm_movehl_ps(x, x)));
    }
#endif
    for (; i < m; i++)
        d[i] = (double)f[i];
}

#define HIST_BITS 16
/* A narrow span's bins (min and max less than HIST_NARROW binades apart): 2^13 bins,
   32 KiB of counts, stay in the first-level cache, where 2^16 (256 KiB) do not: its
   counting pass scatters into the cache, not the second level (a summary of make
   bench's 8.1 M ITLs in 7-8 ms, not 10.8; of its 4 M inference-perf gaps in 3.4, not
   5.7). Its bins are 8 times as wide: when one it wants is crowded, the samples are
   counted again in 2^16 bins before selection (one pass more, only then). A wider span
   (zeros with positive samples span a thousand binades and more) keeps 2^16 bins. */
#define HIST_BITS_NARROW 13
#define HIST_NARROW 64

/*
** count[(key - kmin) >> shift]++ for every sample. When every sample is > 0 (lo, the
** least, is), a key is the bits plus 2^63, so the bin is (bits - bits(lo)) >> shift:
** the sign needs no look.
*/
static void hist_count(const double *a, size_t n, double lo, uint64_t kmin, int shift,
                       uint32_t *count)
{
    size_t i = 0;
    if (lo > 0) {
        uint64_t base = bits_of(lo);
        for (; i + 4 <= n; i += 4) {
            count[(bits_of(a[i]) - base) >> shift]++;
            count[(bits_of(a[i + 1]) - base) >> shift]++;
            count[(bits_of(a[i + 2]) - base) >> shift]++;
            count[(bits_of(a[i + 3]) - base) >> shift]++;
        }
        for (; i < n; i++)
            count[(bits_of(a[i]) - base) >> shift]++;
        return;
    }
    for (; i < n; i++)
        count[(key_of(a[i]) - kmin) >> shift]++;
}

#ifdef STATS_AVX2
/*
** hist_gather's loop for samples > 0 with AVX2, while 8 remain, when at most NW bins are
** wanted (their numbers in wb[0..NW), repeated to fill them): eight samples' bins at
** once, each compared with every wanted one, and only when one of the eight is wanted
** are they taken one by one, in order, through the marks. Returns the index of the first
** sample left.
*/
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) size_t
gather_wanted(const double *a, size_t n, uint64_t base, int shift, const uint64_t *wb, int nw,
              const uint8_t *mark, uint64_t *at, double *g)
{
    const __m256i vb = _mm256_set1_epi64x((long long)base);
    const __m128i sh = _mm_cvtsi32_si128(shift);
    __m256i w[8];
#pragma GCC unroll 8
    for (int j = 0; j < nw; j++)
        w[j] = _mm256_set1_epi64x((long long)wb[j]);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)(a + i));
        __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(a + i + 4));
        __m256i b0 = _mm256_srl_epi64(_mm256_sub_epi64(x0, vb), sh);
        __m256i b1 = _mm256_srl_epi64(_mm256_sub_epi64(x1, vb), sh);
        __m256i hit = _mm256_or_si256(_mm256_cmpeq_epi64(b0, w[0]), _mm256_cmpeq_epi64(b1, w[0]));
#pragma GCC unroll 8
        for (int j = 1; j < nw; j++)
            hit = _mm256_or_si256(
                hit, _mm256_or_si256(_mm256_cmpeq_epi64(b0, w[j]), _mm256_cmpeq_epi64(b1, w[j])));
        if (_mm256_testz_si256(hit, hit)) /* mostly: the wanted bins are a few small ones */
            continue;
        for (size_t j = i; j < i + 8; j++) {
            unsigned m = mark[(bits_of(a[j]) - base) >> shift];
            if (m)
                g[at[m - 1]++] = a[j];
        }
    }
    return i;
}

__attribute__((target("avx2"))) static size_t gather_avx2(const double *a, size_t n, uint64_t base,
                                                          int shift, const uint64_t *wb, int nw,
                                                          const uint8_t *mark, uint64_t *at,
                                                          double *g)
{
    uint64_t w[8];
    for (int j = 0; j < 8; j++)
        w[j] = wb[j < nw ? j : 0];
    if (nw <= 4)
        return gather_wanted(a, n, base, shift, w, 4, mark, at, g);
    return gather_wanted(a, n, base, shift, w, 8, mark, at, g);
}
#endif

/*
** Gathers the samples whose bin has a mark (the wanted bin's number, 1..255; 0: not
** wanted) at at[mark - 1]++ of g. The bins as hist_count finds them; the nw wanted ones
** are also wb[0..nw).
*/
static void hist_gather(const double *a, size_t n, double lo, uint64_t kmin, int shift,
                        const uint8_t *mark, uint64_t *at, double *g, const uint64_t *wb, int nw,
                        int portable)
{
    size_t i = 0;
    if (lo > 0) {
        uint64_t base = bits_of(lo);
#ifdef STATS_AVX2
        if (nw <= 8 && use_avx2(portable))
            i = gather_avx2(a, n, base, shift, wb, nw, mark, at, g);
#else
        (void)wb;
        (void)nw;
        (void)portable;
#endif
        for (; i + 4 <= n; i += 4) {
            unsigned m0 = mark[(bits_of(a[i]) - base) >> shift];
            unsigned m1 = mark[(bits_of(a[i + 1]) - base) >> shift];
            unsigned m2 = mark[(bits_of(a[i + 2]) - base) >> shift];
            unsigned m3 = mark[(bits_of(a[i + 3]) - base) >> shift];
            if ((m0 | m1 | m2 | m3) == 0) /* mostly: the wanted bins are a few small ones */
                continue;
            if (m0)
                g[at[m0 - 1]++] = a[i];
            if (m1)
                g[at[m1 - 1]++] = a[i + 1];
            if (m2)
                g[at[m2 - 1]++] = a[i + 2];
            if (m3)
                g[at[m3 - 1]++] = a[i + 3];
        }
        for (; i < n; i++) {
            unsigned m = mark[(bits_of(a[i]) - base) >> shift];
            if (m)
                g[at[m - 1]++] = a[i];
        }
        return;
    }
    for (; i < n; i++) {
        unsigned m = mark[(key_of(a[i]) - kmin) >> shift];
        if (m)
            g[at[m - 1]++] = a[i];
    }
}

/* The variance's sum of squared deviations, asked of hist_ranks' counting pass: want it,
   from mean (the accumulator's), in the lane portable picks; done once it is in m2. */
typedef struct HistSq {
    int want, portable, done;
    double mean, m2;
} HistSq;

static void hist_count_all(const double *a, const float *f, size_t n, double lo, uint64_t kmin,
                           int shift, uint32_t *count, HistSq *sq);

/*
** vals[i] = the ranks[i]-th smallest of a[0..n) (or of f[0..n), floats, when f is not
** NULL: read a chunk at a time as doubles) (ranks sorted, unique), by histogram:
** one streaming pass counts the samples in 2^bits bins spanning [min, max] by their
** keys, a second gathers only the bins that hold a wanted rank, and those few are
** sorted. a is not changed. Returns 0, -2 when a wanted bin is too crowded (most
** samples equal, say) or more than 255 bins are wanted, or -1 when memory is short: the
** caller selects instead. When sq->want, the counting pass also sums the squared deviations
** (sum_sq_dev's, the same bits: a has its samples in order) while the samples are in
** registers anyway, and sets sq->done, whatever it returns after that pass.
*/
static int hist_ranks_in(const double *a, const float *f, size_t n, double lo, double hi,
                         const uint64_t *ranks, size_t nr, double *vals, HistSq *sq, int bits)
{
    /* the zeros' keys from -0 to +0 whichever of them the extremes are: the first zero
       seen is the least (or greatest) sample, and the other sign lies on its other side */
    uint64_t kmin = key_of(lo == 0 ? -0.0 : lo), range = key_of(hi == 0 ? 0.0 : hi) - kmin;
    int shift = 0;
    while ((range >> shift) >= (1ULL << bits))
        shift++;
    size_t nb = (size_t)(range >> shift) + 1;
    uint32_t *count = (uint32_t *)calloc(nb, sizeof *count);
    if (count == NULL || n > UINT32_MAX) {
        free(count);
        return -1;
    }
    hist_count_all(a, f, n, lo, kmin, shift, count, sq);
    /* the bin of each rank, and how many samples lie in bins before it */
    size_t *bin = (size_t *)malloc(nr * sizeof *bin);
    uint64_t *before = (uint64_t *)malloc(nr * sizeof *before);
    uint64_t *at = (uint64_t *)malloc(nr * sizeof *at);
    uint64_t *wanted = (uint64_t *)malloc(nr * sizeof *wanted); /* the wanted bins */
    uint8_t *mark = NULL;
    double *g = NULL;
    int crowded = 0;
    if (bin == NULL || before == NULL || at == NULL || wanted == NULL)
        goto fail;
    uint64_t cum = 0, gathered = 0;
    size_t r = 0, nwanted = 0;
    for (size_t b = 0; b < nb && r < nr; b++) {
        while (r < nr && ranks[r] < cum + count[b]) {
            bin[r] = b;
            before[r] = cum;
            if (r == 0 || bin[r - 1] != b) {
                gathered += count[b];
                nwanted++;
            }
            r++;
        }
        cum += count[b];
    }
    if (r < nr) /* every rank is below n = the bins' total: cannot be, but say so */
        goto fail;
    if (gathered > (n / 32 > (1u << 20) ? n / 32 : (1u << 20)) || nwanted > 255) {
        crowded = 1;
        goto fail; /* a crowded bin: finer bins, or selection, do better */
    }
    /* gather the wanted bins, each at its own offset */
    g = (double *)malloc((size_t)(gathered ? gathered : 1) * sizeof *g);
    mark = (uint8_t *)calloc(nb, sizeof *mark);
    if (g == NULL || mark == NULL)
        goto fail;
    uint64_t from = 0;
    unsigned w = 0;
    for (size_t i = 0; i < nr; i++)
        if (i == 0 || bin[i - 1] != bin[i]) {
            at[w] = from;
            wanted[w] = bin[i];
            mark[bin[i]] = (uint8_t)++w;
            from += count[bin[i]];
        }
    if (f == NULL) {
        hist_gather(a, n, lo, kmin, shift, mark, at, g, wanted, (int)w, sq->portable);
    } else {
        double d[F32_CHUNK];
        for (size_t o = 0; o < n; o += F32_CHUNK) {
            size_t m = n - o < F32_CHUNK ? n - o : F32_CHUNK;
            widen_floats(f + o, d, m);
            hist_gather(d, m, lo, kmin, shift, mark, at, g, wanted, (int)w, sq->portable);
        }
    }
    from = 0;
    for (size_t i = 0; i < nr; i++) {
        if (i == 0 || bin[i - 1] != bin[i]) {
            if (i > 0)
                from += count[bin[i - 1]];
            sort_doubles(g + from, count[bin[i]]);
        }
        vals[i] = g[from + (ranks[i] - before[i])];
    }
    free(mark);
    free(g);
    free(bin);
    free(before);
    free(at);
    free(wanted);
    free(count);
    return 0;
fail:
    free(mark);
    free(g);
    free(bin);
    free(before);
    free(at);
    free(wanted);
    free(count);
    return crowded ? -2 : -1;
}

/* hist_ranks_in in the bins the span calls for (HIST_BITS_NARROW, then HIST_BITS when a
   wanted bin is crowded there): 0, or -1 (crowded in 2^16 bins, or out of memory) */
static int hist_ranks(const double *a, const float *f, size_t n, double lo, double hi,
                      const uint64_t *ranks, size_t nr, double *vals, HistSq *sq)
{
    uint64_t range = key_of(hi == 0 ? 0.0 : hi) - key_of(lo == 0 ? -0.0 : lo);
    if ((range >> 52) >= HIST_NARROW)
        return hist_ranks_in(a, f, n, lo, hi, ranks, nr, vals, sq, HIST_BITS) == 0 ? 0 : -1;
    int r = hist_ranks_in(a, f, n, lo, hi, ranks, nr, vals, sq, HIST_BITS_NARROW);
    if (r != -2)
        return r;
    /* the squared deviations were summed in the first pass (sq->done): counted alone */
    HistSq again = *sq;
    again.want = 0;
    return hist_ranks_in(a, f, n, lo, hi, ranks, nr, vals, &again, HIST_BITS) == 0 ? 0 : -1;
}

/* ---- accumulators ------------------------------------------------------------ */

void stats_init(Stats *s, double alpha)
{
    memset(s, 0, sizeof *s);
    s->min = HUGE_VAL;
    s->max = -HUGE_VAL;
    s->sorted = 1;
    s->f32 = !(alpha > 0); /* floats until a sample is not one */
    if (alpha > 0) {
        s->sketch = 1;
        s->alpha = alpha;
        /* more buckets per power of two than log 2 / log gamma (by a margin that keeps
           the rounding of what follows inside the bound), so that g = 2^(1/B) < gamma */
        double y = log(2) / log((1 + alpha) / (1 - alpha));
        s->per2 = (int32_t)floor(y * (1 + 1e-9)) + 1;
        /* slices of mantissas narrower than the least gap between two boundaries
           (2^(1/B) - 1, at 1), less the two ulps their rounding may take from it */
        double gap = exp2(1.0 / s->per2) - 1;
        int bits = 1;
        while (ldexp(1, -bits) + ldexp(1, -50) >= gap)
            bits++;
        s->sub_shift = 52 - bits;
    }
}

void stats_block_free(void *p, size_t map_len)
{
    if (map_len)
        (void)munmap(p, map_len);
    else
        free(p);
}

/* Gives back v's block: unmapped when it is a mapping, else freed. */
static void release_v(Stats *s)
{
    stats_block_free(s->v, s->map_len);
    s->v = NULL;
    s->map_len = 0;
}

/* The bytes the n samples take in v: 4 each as floats, else 8. */
static size_t kept_bytes(const Stats *s)
{
    return (size_t)s->n * (s->f32 ? sizeof(float) : sizeof(double));
}

/*
** A block grows to room for bytes, its first used bytes kept (stats.h). Small: realloc'd.
** From map_from bytes on (Linux): an anonymous mapping of its own, which grows by mremap,
** moving page tables rather than samples. From V_MAP_AT_LEAST (Stats.v's): in huge pages.
** Below it (stats.column's): in 4 KiB pages, resident only where written, as malloc's are
** (a huge page is resident whole once touched: a doubled block's room would be). Not
** malloc's block with the advice on part of it: that splits the block's mapping, and
** glibc's realloc then cannot mremap it and copies, holding both copies at once. A
** mapping's pages go back to the kernel when it is freed, where malloc's heap reuses freed
** memory without a fault: sample arrays grown and freed while others are (stats_add_range's
** merges) are malloc'd below 2 MiB (mapped from 128 KiB, reading a run of per-token arrays
** took a quarter more page faults and 8 % more CPU); a comparison's columns, which grow side
** by side and are kept, are not.
*/
void *stats_block_grow(void *p, size_t *map_len, size_t used, size_t bytes, size_t map_from,
                       size_t *got)
{
#if defined(__linux__)
    if (bytes >= map_from && bytes <= SIZE_MAX - HUGE_PAGE) {
        int huge = map_from >= V_MAP_AT_LEAST;
        size_t unit = huge ? HUGE_PAGE : BLOCK_PAGE;
        size_t len = (bytes + unit - 1) & ~(unit - 1);
        void *q;
        if (*map_len) {
            q = mremap(p, *map_len, len, MREMAP_MAYMOVE);
            if (q == MAP_FAILED)
                return NULL;
        } else {
            q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (q == MAP_FAILED)
                return NULL;
            if (huge)
                advise_huge(q, len); /* before the copy: it is the first write */
            if (used)
                memcpy(q, p, used);
            stats_block_free(p, *map_len);
        }
        *map_len = len;
        *got = len;
        return q;
    }
#endif
    void *q;
    if (*map_len) {
        q = malloc(bytes);
        if (q == NULL)
            return NULL;
        memcpy(q, p, used);
        stats_block_free(p, *map_len);
    } else {
        q = realloc(p, bytes);
        if (q == NULL)
            return NULL;
    }
    *map_len = 0;
    *got = bytes;
    return q;
}

/* v to room for cap doubles (cap >= n): stats_block_grow. */
static int resize_v(Stats *s, size_t cap)
{
    size_t got;
    if (cap > SIZE_MAX / sizeof *s->v)
        return STATS_ENOMEM;
    void *v = stats_block_grow(s->v, &s->map_len, kept_bytes(s), cap * sizeof *s->v, V_MAP_AT_LEAST,
                               &got);
    if (v == NULL)
        return STATS_ENOMEM;
    s->v = (double *)v;
    s->cap = got / sizeof *s->v;
    return STATS_OK;
}

void stats_free(Stats *s)
{
    release_v(s);
    free(s->pos.count);
    free(s->neg.count);
    free(s->sub);
    s->v = NULL;
    s->sub = NULL;
    s->pos.count = s->neg.count = NULL;
    s->cap = 0;
    s->pos.len = s->neg.len = 0;
}

void stats_clear(Stats *s)
{
    double alpha = s->sketch ? s->alpha : 0;
    int portable = s->portable;
    stats_free(s);
    stats_init(s, alpha);
    s->portable = portable;
}

/* Widened in place (Stats.f32). */
void stats_widen(Stats *s)
{
    if (!s->f32)
        return;
    s->f32 = 0;
    /* from the last: the double v[i] covers floats 2i and 2i + 1, both read by then
       (cap >= n doubles: the room is there) */
    const float *f = (const float *)(const void *)s->v;
    for (size_t i = (size_t)s->n; i-- > 0;)
        s->v[i] = (double)f[i];
}

void stats_samples(const Stats *s, size_t from, size_t k, double *out)
{
    if (s->f32)
        widen_floats((const float *)(const void *)s->v + from, out, k);
    else if (k)
        memcpy(out, s->v + from, k * sizeof *out);
}

static int reserve(Stats *s, size_t k);

int stats_add_range(Stats *dst, const Stats *src, size_t from, size_t k)
{
    if (!src->f32)
        return stats_add_many(dst, src->v + from, k);
    if (!dst->sketch && reserve(dst, k) != STATS_OK) /* all the room first, as for one batch */
        return STATS_ENOMEM;
    /* in chunks: stats_add_many of a batch is that of its samples one after the other */
    double d[F32_CHUNK];
    for (size_t at = 0; at < k; at += F32_CHUNK) {
        size_t m = k - at < F32_CHUNK ? k - at : F32_CHUNK;
        stats_samples(src, from + at, m, d);
        int rc = stats_add_many(dst, d, m);
        if (rc != STATS_OK)
            return rc;
    }
    return STATS_OK;
}

int stats_range_runs(const Stats *src, size_t from, size_t k, Stats *out, StatsRuns *runs)
{
    if (src->sketch || !src->f32 || k < ((size_t)1 << 16) || from + k > (size_t)src->n ||
        k > UINT32_MAX)
        return -1;
    float *f = (float *)(void *)src->v + from;
    /* t takes the range as an empty accumulator would, its block the range itself: each
       chunk is read out (stats_samples) before stats_add_many writes it back where it was,
       as the same floats (every one is a float: src keeps floats), so nothing moves and
       no fresh memory is written; the sums, extremes, order and count are the add's own */
    Stats t;
    stats_init(&t, 0);
    t.portable = out->portable;
    t.v = (double *)(void *)f;
    t.cap = k;
    if (stats_add_range(&t, src, from, k) != STATS_OK || !t.f32 || t.n != k)
        return -1; /* (a NaN: nothing added, the range as it was) */
    /* the variance in the samples' file order, as the copy's first stats_variance */
    (void)stats_variance(&t, 1);
    if (!t.m2_known)
        return -1; /* (an infinity: left to the copy) */
    /* counted, the counts given as runs: the range itself is left as it is */
    StatsRuns r;
    if (quantum_sort_to(f, k, 1, t.min, t.max, t.portable, &r) != 0)
        return -1;
    t.v = NULL;
    t.cap = 0;
    t.map_len = 0;
    t.sorted = 1;
    t.queries = 0;
    t.portable = out->portable;
    *out = t;
    *runs = r;
    return 0;
}

/* x into the compensated sum *sum + *comp (Neumaier: the compensation keeps the low
   bits a plain sum would lose). The textbook adds (big - t) + small, big the operand of
   larger magnitude: that is the exact rounding error of s + x, a representable number,
   and so is Knuth's TwoSum below, computed without comparing magnitudes. Both give the
   same bits whenever s + x is finite (when it overflows the sum is inf and sum + comp NaN
   either way). Six operations and no select: in SSE2 the select costs more than they. */
static inline void neumaier_add(double *sum, double *comp, double x)
{
    double s = *sum, t = s + x, xv = t - s;
    *comp += (s - (t - xv)) + (x - xv);
    *sum = t;
}

/* The finite part of the running moments. */
static void moments_add(Stats *s, double x)
{
    neumaier_add(&s->sum, &s->comp, x);
    if (!s->sketch)
        return; /* the variance of kept samples is computed from them, two-pass */
    /* Welford over the finite samples, less the first */
    uint64_t nf = s->n - s->n_pinf - s->n_ninf;
    if (nf == 1)
        s->shift = x;
    double y = x - s->shift, d = y - s->mean;
    s->mean += d / (double)nf;
    s->m2 += d * (y - s->mean);
}

static int store_add(StatsStore *st, int32_t k, uint64_t c)
{
    if (st->len == 0) {
        st->count = (uint64_t *)calloc(64, sizeof *st->count);
        if (st->count == NULL)
            return STATS_ENOMEM;
        st->off = k - 32;
        st->len = 64;
    }
    if (k < st->off || k >= st->off + st->len) {
        int32_t lo = k < st->off ? k : st->off;
        int32_t hi = k >= st->off + st->len ? k + 1 : st->off + st->len;
        int32_t grow = (hi - lo) / 2 + 16; /* room on both sides, amortised */
        int32_t nlo = lo - (k < st->off ? grow : 0);
        int32_t nhi = hi + (k >= st->off + st->len ? grow : 0);
        uint64_t *c2 = (uint64_t *)calloc((size_t)(nhi - nlo), sizeof *c2);
        if (c2 == NULL)
            return STATS_ENOMEM;
        memcpy(c2 + (st->off - nlo), st->count, (size_t)st->len * sizeof *c2);
        free(st->count);
        st->count = c2;
        st->off = nlo;
        st->len = nhi - nlo;
    }
    st->count[k - st->off] += c;
    return STATS_OK;
}

#define FRAC_BITS 52
#define FRAC_MASK ((1ULL << FRAC_BITS) - 1)

/*
** The sketch's buckets from a double's bits. x = 2^e m, 1 <= m < 2, is in bucket
** k = e B + j, j the number of boundaries b_i = 2^(i/B) (0 <= i < B) below m: bucket k
** holds (g^(k-1), g^k], g = 2^(1/B) (j = B is the next power's bucket 0: the same k).
** The boundaries' mantissas cut [1, 2) into B pieces; 2^M slices of it by the top M bits
** of the mantissa, each narrower than any piece, hold one boundary at most. sub[slice] is
** the number of boundaries below the slice's start << 52 | (2^52 - 1 - the fraction bits
** of the one inside it; 0 if none), so that adding a fraction f of the slice carries into
** bit 52 exactly when f is above that boundary: j = (sub[slice] + f) >> 52, one look-up,
** one addition. The boundaries are exp2(i / B) rounded (an ulp from the true ones, inside
** the margin B was chosen with). Built on the first sample; B <= 3466 fits the 12 bits
** above 52.
*/
static int sketch_map(Stats *s)
{
    size_t nsub = (size_t)1 << (FRAC_BITS - s->sub_shift);
    uint64_t *sub = (uint64_t *)malloc(nsub * sizeof *sub);
    if (sub == NULL)
        return STATS_ENOMEM;
    int32_t i = 0;  /* boundaries below the slice's start */
    uint64_t b = 0; /* b_i's fraction bits (b_0 = 1: none) */
    for (size_t k = 0; k < nsub; k++) {
        uint64_t start = (uint64_t)k << s->sub_shift, end = start + (1ULL << s->sub_shift);
        while (i < s->per2 && b < start) {
            i++;
            b = i < s->per2 ? bits_of(exp2((double)i / s->per2)) & FRAC_MASK : FRAC_MASK;
        }
        sub[k] = (uint64_t)i << FRAC_BITS | (FRAC_MASK - (i < s->per2 && b < end ? b : FRAC_MASK));
    }
    s->sub = sub;
    return STATS_OK;
}

/* The bucket of a positive normal double's bits u (sub built). */
static inline int32_t sketch_key(const Stats *s, uint64_t u)
{
    uint64_t frac = u & FRAC_MASK;
    int32_t j = (int32_t)((s->sub[frac >> s->sub_shift] + frac) >> FRAC_BITS);
    return ((int32_t)(u >> FRAC_BITS) - 1023) * s->per2 + j;
}

/* The sketch bucket of |x| > 0, finite (sub built): subnormals scaled up by 2^64, which
   is exact and moves the bucket by 64 B. */
static int32_t bucket_of(const Stats *s, double ax)
{
    if (ax >= DBL_MIN)
        return sketch_key(s, bits_of(ax));
    return sketch_key(s, bits_of(ax * 0x1p64)) - 64 * s->per2;
}

/* 2 g^k / (g + 1): 2^e times that of bucket j = k - e B, 0 <= j < B. */
static double bucket_value(const Stats *s, int32_t k)
{
    int32_t e = k / s->per2, j = k % s->per2;
    if (j < 0) {
        j += s->per2;
        e--;
    }
    double g = exp2(1.0 / s->per2);
    return ldexp(2 * exp2((double)j / s->per2) / (g + 1), e);
}

static int sketch_add(Stats *s, double x, uint64_t c)
{
    if (s->sub == NULL && sketch_map(s) != STATS_OK)
        return STATS_ENOMEM;
    if (x == 0) {
        s->zeros += c;
        return STATS_OK;
    }
    if (x > 0)
        return store_add(&s->pos, bucket_of(s, x), c);
    return store_add(&s->neg, bucket_of(s, -x), c);
}

/* Room for k more samples (exact mode), the capacity doubling. */
static int reserve(Stats *s, size_t k)
{
    if (s->cap - s->n >= k)
        return STATS_OK;
    size_t cap = s->cap ? s->cap : 256;
    while (cap - s->n < k)
        cap *= 2;
    return resize_v(s, cap);
}

int stats_reserve(Stats *s, size_t cap)
{
    if (s->sketch || cap <= s->cap)
        return STATS_OK;
    if (cap > SIZE_MAX / sizeof *s->v)
        return STATS_ENOMEM;
    return resize_v(s, cap);
}

int stats_add(Stats *s, double x)
{
    if (isnan(x))
        return STATS_ENAN;
    if (!s->sketch) {
        if (reserve(s, 1) != STATS_OK)
            return STATS_ENOMEM;
        if (s->f32 && !is_float(x))
            stats_widen(s);
        if (s->f32) {
            float *f = (float *)(void *)s->v;
            f[s->n] = (float)x;
            if (s->sorted && s->n > 0 && x < (double)f[s->n - 1])
                s->sorted = 0;
        } else {
            s->v[s->n] = x;
            if (s->sorted && s->n > 0 && x < s->v[s->n - 1])
                s->sorted = 0;
        }
        s->queries = 0;
        s->m2_known = 0;
    } else if (isfinite(x)) {
        int rc = sketch_add(s, x, 1);
        if (rc != STATS_OK)
            return rc;
    }
    s->n++;
    if (x < s->min)
        s->min = x;
    if (x > s->max)
        s->max = x;
    if (isinf(x)) {
        if (x > 0)
            s->n_pinf++;
        else
            s->n_ninf++;
        return STATS_OK;
    }
    moments_add(s, x);
    return STATS_OK;
}

static int has_nan(const double *xs, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (isnan(xs[i]))
            return 1;
    return 0;
}

/* The least of xs[0..k) (k > 0) by strict comparison, the first of equal ones kept. */
static double first_min(const double *xs, size_t k)
{
    double m = xs[0];
    for (size_t i = 1; i < k; i++)
        m = xs[i] < m ? xs[i] : m;
    return m;
}

static double first_max(const double *xs, size_t k)
{
    double m = xs[0];
    for (size_t i = 1; i < k; i++)
        m = xs[i] > m ? xs[i] : m;
    return m;
}

#if defined(__SSE2__)
/* add_finite_exact's running state across its two-at-a-time loop. */
typedef struct ExactPairs {
    double sum, comp, lo, hi;
    int sorted;
    int exact; /* kept as floats: every one so far is exactly its float */
} ExactPairs;

/*
** add_finite_exact's loop, two samples at a time from xs[1] while two remain (k >= 3):
** the copy to v, the order against the sample before each, and the extremes lane by
** lane (MINPD keeps its second operand when equal: which of -0 and +0 is the least is
** settled by the caller); the sum stays one sample at a time. e holds the state after
** xs[0] (lo = hi = xs[0]); returns the index of the first sample left.
*/
static inline __attribute__((always_inline)) size_t exact_pairs(const double *xs, size_t k,
                                                                double *v, float *f, ExactPairs *e)
{
    double sum = e->sum, comp = e->comp;
    __m128d vlo = _mm_set1_pd(e->lo), vhi = vlo;
    __m128d ok = _mm_castsi128_pd(_mm_set1_epi32(-1)), ex = ok;
    size_t i = 1;
    for (; i + 2 <= k; i += 2) {
        __m128d x2 = _mm_loadu_pd(xs + i), before = _mm_loadu_pd(xs + i - 1);
        if (f) { /* as floats, and whether each comes back the same */
            __m128 x2f = _mm_cvtpd_ps(x2);
            _mm_storel_pi((__m64 *)(void *)(f + i), x2f);
            ex = _mm_and_pd(ex, _mm_cmpeq_pd(_mm_cvtps_pd(x2f), x2));
        } else {
            _mm_storeu_pd(v + i, x2);
        }
        ok = _mm_and_pd(ok, _mm_cmpge_pd(x2, before));
        vlo = _mm_min_pd(vlo, x2);
        vhi = _mm_max_pd(vhi, x2);
        neumaier_add(&sum, &comp, _mm_cvtsd_f64(x2));
        neumaier_add(&sum, &comp, _mm_cvtsd_f64(_mm_unpackhi_pd(x2, x2)));
    }
    e->sorted &= _mm_movemask_pd(ok) == 3;
    e->exact &= _mm_movemask_pd(ex) == 3;
    double l2[2], h2[2];
    _mm_storeu_pd(l2, vlo);
    _mm_storeu_pd(h2, vhi);
    e->lo = l2[1] < l2[0] ? l2[1] : l2[0];
    e->hi = h2[1] > h2[0] ? h2[1] : h2[0];
    e->sum = sum;
    e->comp = comp;
    return i;
}

static size_t exact_pairs_sse2(const double *xs, size_t k, double *v, ExactPairs *e)
{
    return exact_pairs(xs, k, v, NULL, e);
}

static size_t exact_pairs_sse2_f32(const double *xs, size_t k, float *f, ExactPairs *e)
{
    return exact_pairs(xs, k, NULL, f, e);
}

#ifdef STATS_AVX
/*
** exact_pairs with AVX, four samples at a time while four remain (k >= 5): the copy,
** order and extremes in one register each; the sum as neumaier_add makes it, in two
** steps: the running sums one after the other (the chain that takes the time), then
** the four compensation terms at once from them, lane by lane the very operations of
** neumaier_add (the same bits), added to comp in order.
*/
__attribute__((target("avx"))) static inline __attribute__((always_inline)) size_t
exact_quads_avx(const double *xs, size_t k, double *v, float *f, ExactPairs *e)
{
    double sum = e->sum, comp = e->comp;
    __m256d vlo = _mm256_set1_pd(e->lo), vhi = vlo;
    __m256d ok = _mm256_castsi256_pd(_mm256_set1_epi32(-1)), ex = ok;
    size_t i = 1;
    for (; i + 4 <= k; i += 4) {
        __m256d x = _mm256_loadu_pd(xs + i), before = _mm256_loadu_pd(xs + i - 1);
        if (f) {
            __m128 xf = _mm256_cvtpd_ps(x);
            _mm_storeu_ps(f + i, xf);
            ex = _mm256_and_pd(ex, _mm256_cmp_pd(_mm256_cvtps_pd(xf), x, _CMP_EQ_OQ));
        } else {
            _mm256_storeu_pd(v + i, x);
        }
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(x, before, _CMP_GE_OS));
        vlo = _mm256_min_pd(vlo, x);
        vhi = _mm256_max_pd(vhi, x);
        __m128d xl = _mm256_castpd256_pd128(x), xh = _mm256_extractf128_pd(x, 1);
        double s0 = sum, s1 = s0 + _mm_cvtsd_f64(xl),
               s2 = s1 + _mm_cvtsd_f64(_mm_unpackhi_pd(xl, xl));
        double s3 = s2 + _mm_cvtsd_f64(xh), s4 = s3 + _mm_cvtsd_f64(_mm_unpackhi_pd(xh, xh));
        __m256d sv = _mm256_setr_pd(s0, s1, s2, s3), t = _mm256_setr_pd(s1, s2, s3, s4);
        __m256d xv = _mm256_sub_pd(t, sv);
        __m256d err = _mm256_add_pd(_mm256_sub_pd(sv, _mm256_sub_pd(t, xv)), _mm256_sub_pd(x, xv));
        __m128d el = _mm256_castpd256_pd128(err), eh = _mm256_extractf128_pd(err, 1);
        comp += _mm_cvtsd_f64(el);
        comp += _mm_cvtsd_f64(_mm_unpackhi_pd(el, el));
        comp += _mm_cvtsd_f64(eh);
        comp += _mm_cvtsd_f64(_mm_unpackhi_pd(eh, eh));
        sum = s4;
    }
    e->sorted &= _mm256_movemask_pd(ok) == 15;
    e->exact &= _mm256_movemask_pd(ex) == 15;
    double l4[4], h4[4];
    _mm256_storeu_pd(l4, vlo);
    _mm256_storeu_pd(h4, vhi);
    double lo = l4[0], hi = h4[0];
    for (int j = 1; j < 4; j++) {
        lo = l4[j] < lo ? l4[j] : lo;
        hi = h4[j] > hi ? h4[j] : hi;
    }
    e->lo = lo;
    e->hi = hi;
    e->sum = sum;
    e->comp = comp;
    return i;
}

__attribute__((target("avx"))) static size_t exact_pairs_avx(const double *xs, size_t k, double *v,
                                                             ExactPairs *e)
{
    return exact_quads_avx(xs, k, v, NULL, e);
}

__attribute__((target("avx"))) static size_t exact_pairs_avx_f32(const double *xs, size_t k,
                                                                 float *f, ExactPairs *e)
{
    return exact_quads_avx(xs, k, NULL, f, e);
}
#endif
#endif

/*
** The common case of stats_add_many, exact mode: k > 0 samples, room reserved. In one
** pass: kept, order, extremes and the compensated sum, each with the very operations of
** the general loop (the same bits; test_stats holds it to the textbook). Returns 0, s
** unchanged but the room past its samples, when a sample is a NaN or an infinity: the
** batch's own extremes catch an infinity, the sum a NaN (it stays NaN from there on).
*/
static int add_finite_exact(Stats *s, const double *xs, size_t k)
{
    /* kept as floats (f) or doubles (v): the batch taken only when each is a float */
    const int as_float = s->f32;
    float *f = as_float ? (float *)(void *)s->v + s->n : NULL;
    double *v = as_float ? NULL : s->v + s->n;
    double prev = s->n == 0 ? -HUGE_VAL : as_float ? (double)f[-1] : v[-1];
    double sum = s->sum, comp = s->comp, x = xs[0];
    double lo = x, hi = x; /* the batch's own extremes, from its first sample */
    int sorted = s->sorted & (x >= prev), exact = 1;
    if (as_float) {
        exact = is_float(x);
        f[0] = exact ? (float)x : 0;
    } else {
        v[0] = x;
    }
    prev = x;
    neumaier_add(&sum, &comp, x);
    size_t i = 1;
#if defined(__SSE2__)
    if (s->portable != 1 && k >= 3) {
        ExactPairs e = {sum, comp, x, x, sorted, exact};
#ifdef STATS_AVX
        if (use_avx(s->portable))
            i = as_float ? exact_pairs_avx_f32(xs, k, f, &e) : exact_pairs_avx(xs, k, v, &e);
        else
            i = as_float ? exact_pairs_sse2_f32(xs, k, f, &e) : exact_pairs_sse2(xs, k, v, &e);
#else
        i = as_float ? exact_pairs_sse2_f32(xs, k, f, &e) : exact_pairs_sse2(xs, k, v, &e);
#endif
        sum = e.sum;
        comp = e.comp;
        lo = e.lo;
        hi = e.hi;
        sorted = e.sorted;
        exact = e.exact;
        prev = xs[i - 1];
    }
#endif
    for (; i < k; i++) {
        x = xs[i];
        if (as_float) {
            int ok = is_float(x);
            f[i] = ok ? (float)x : 0;
            exact &= ok;
        } else {
            v[i] = x;
        }
        sorted &= x >= prev;
        prev = x;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        neumaier_add(&sum, &comp, x);
    }
    if (isnan(sum) || isinf(lo) || isinf(hi) || !exact)
        return 0;
    /* equal extremes are the same bits but for -0 and +0: the first of them counts */
    if (lo == 0)
        lo = first_min(xs, k);
    if (hi == 0)
        hi = first_max(xs, k);
    s->min = lo < s->min ? lo : s->min;
    s->max = hi > s->max ? hi : s->max;
    s->sum = sum;
    s->comp = comp;
    s->sorted = sorted;
    s->queries = 0;
    s->m2_known = 0;
    s->n += k;
    return 1;
}

/*
** The common case of stats_add_many, sketch mode: k > 0 samples, all positive normal
** doubles (latencies). Returns 0, s unchanged, for any other batch (the one at a time
** loop takes it), or when memory is short. Three passes over the batch, which is in the
** cache: its extremes and plain sum (two at a time where SSE2 is), which also tell
** whether it qualifies and how far the buckets must reach, so that the store is grown
** once before; the compensated sum and the buckets, one sample at a time; and the
** squared deviations from the batch's mean, merged into the running moments.
*/
static int add_positive_sketch(Stats *s, const double *xs, size_t k)
{
    uint64_t na = s->n - s->n_pinf - s->n_ninf; /* finite samples before */
    double c = na > 0 ? s->shift : xs[0];
    double lo = xs[0], hi = xs[0], bsum = 0; /* bsum: of x - c */
    size_t i = 0;
#if defined(__SSE2__)
    if (s->portable != 1 && k >= 2) {
        __m128d vlo = _mm_set1_pd(xs[0]), vhi = vlo, vs = _mm_setzero_pd(), vc = _mm_set1_pd(c);
        for (; i + 2 <= k; i += 2) {
            __m128d x2 = _mm_loadu_pd(xs + i);
            vlo = _mm_min_pd(vlo, x2);
            vhi = _mm_max_pd(vhi, x2);
            vs = _mm_add_pd(vs, _mm_sub_pd(x2, vc));
        }
        double l2[2], h2[2], s2[2];
        _mm_storeu_pd(l2, vlo);
        _mm_storeu_pd(h2, vhi);
        _mm_storeu_pd(s2, vs);
        lo = l2[1] < l2[0] ? l2[1] : l2[0]; /* no zero here when it counts: the same bits */
        hi = h2[1] > h2[0] ? h2[1] : h2[0];
        bsum = s2[0] + s2[1];
    }
#endif
    for (; i < k; i++) {
        lo = xs[i] < lo ? xs[i] : lo;
        hi = xs[i] > hi ? xs[i] : hi;
        bsum += xs[i] - c;
    }
    /* a NaN makes the sum NaN; an infinity, a zero, a negative or a subnormal shows in
       the extremes */
    if (!(lo >= DBL_MIN && hi <= DBL_MAX && fabs(bsum) <= DBL_MAX))
        return 0;
    if (s->sub == NULL && sketch_map(s) != STATS_OK)
        return 0;
    int32_t klo = sketch_key(s, bits_of(lo)), khi = sketch_key(s, bits_of(hi));
    if (store_add(&s->pos, klo, 0) != STATS_OK || store_add(&s->pos, khi, 0) != STATS_OK)
        return 0;
    uint64_t *count = s->pos.count;
    const uint64_t *sub = s->sub;
    int shift = s->sub_shift;
    int32_t per2 = s->per2, base = 1023 * per2 + s->pos.off;
    double sum = s->sum, comp = s->comp;
    for (i = 0; i < k; i++) {
        double x = xs[i];
        neumaier_add(&sum, &comp, x);
        uint64_t u = bits_of(x), frac = u & FRAC_MASK;
        int32_t j = (int32_t)((sub[frac >> shift] + frac) >> FRAC_BITS);
        count[(int32_t)(u >> FRAC_BITS) * per2 + j - base]++;
    }
    /* the batch's own mean and squared deviations, less c (corrected two-pass: the sum
       of the deviations takes out what the plain sum's rounding left in the mean) */
    double kd = (double)k, bmean = bsum / kd, dsum = 0, sq = 0;
    i = 0;
#if defined(__SSE2__)
    if (s->portable != 1) {
        __m128d m = _mm_set1_pd(bmean), vc = _mm_set1_pd(c), vd = _mm_setzero_pd(), vq = vd;
        for (; i + 2 <= k; i += 2) {
            __m128d d = _mm_sub_pd(_mm_sub_pd(_mm_loadu_pd(xs + i), vc), m);
            vd = _mm_add_pd(vd, d);
            vq = _mm_add_pd(vq, _mm_mul_pd(d, d));
        }
        double d2[2], q2[2];
        _mm_storeu_pd(d2, vd);
        _mm_storeu_pd(q2, vq);
        dsum = d2[0] + d2[1];
        sq = q2[0] + q2[1];
    }
#endif
    for (; i < k; i++) {
        double d = (xs[i] - c) - bmean;
        dsum += d;
        sq += d * d;
    }
    double bm2 = sq - dsum * dsum / kd;
    bmean += dsum / kd;
    /* into the running moments (Chan et al., as stats_merge) */
    s->shift = c;
    double d = bmean - s->mean, nt = (double)(na + k);
    s->mean += d * kd / nt;
    s->m2 += (bm2 > 0 ? bm2 : 0) + d * d * (double)na * kd / nt;
    s->sum = sum;
    s->comp = comp;
    s->min = lo < s->min ? lo : s->min;
    s->max = hi > s->max ? hi : s->max;
    s->n += k;
    return 1;
}

int stats_add_many(Stats *s, const double *xs, size_t k)
{
    if (k == 0)
        return STATS_OK;
    if (!s->sketch) {
        if (reserve(s, k) != STATS_OK)
            return has_nan(xs, k) ? STATS_ENAN : STATS_ENOMEM;
        if (add_finite_exact(s, xs, k))
            return STATS_OK;
        /* not all floats (or an infinity, which the loop below takes as doubles) */
        if (s->f32 && !has_nan(xs, k)) {
            stats_widen(s);
            if (add_finite_exact(s, xs, k))
                return STATS_OK;
        }
    }
    if (s->sketch && add_positive_sketch(s, xs, k))
        return STATS_OK;
    if (has_nan(xs, k))
        return STATS_ENAN; /* nothing added */
    if (s->sketch) {
        for (size_t i = 0; i < k; i++) {
            int rc = stats_add(s, xs[i]);
            if (rc != STATS_OK)
                return rc;
        }
        return STATS_OK;
    }
    /* exact, with infinities: the general loop */
    s->queries = 0;
    s->m2_known = 0;
    double lo = s->min, hi = s->max, sum = s->sum, comp = s->comp;
    memcpy(s->v + s->n, xs, k * sizeof *xs);
    if (s->sorted) {
        double prev = s->n > 0 ? s->v[s->n - 1] : -HUGE_VAL;
        for (size_t i = 0; i < k && s->sorted; i++) {
            s->sorted = xs[i] >= prev;
            prev = xs[i];
        }
    }
    for (size_t i = 0; i < k; i++) {
        double x = xs[i];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        if (isinf(x)) {
            if (x > 0)
                s->n_pinf++;
            else
                s->n_ninf++;
            continue;
        }
        neumaier_add(&sum, &comp, x);
    }
    s->min = lo;
    s->max = hi;
    s->sum = sum;
    s->comp = comp;
    s->n += k;
    return STATS_OK;
}

int stats_merge(Stats *dst, const Stats *src)
{
    /* compatibility does not depend on what either holds */
    if (src->sketch && (!dst->sketch || dst->alpha != src->alpha))
        return STATS_EMERGE;
    if (src->n == 0)
        return STATS_OK;
    if (dst == src) { /* s:merge(s): from a copy, since adding changes the source */
        Stats copy;
        stats_init(&copy, src->sketch ? src->alpha : 0);
        int rc = stats_merge(&copy, src);
        if (rc == STATS_OK)
            rc = stats_merge(dst, &copy);
        stats_free(&copy);
        return rc;
    }
    if (!src->sketch) {
        if (!dst->sketch && dst->cap - dst->n < src->n &&
            resize_v(dst, dst->n + src->n) != STATS_OK)
            return STATS_ENOMEM;
        return stats_add_range(dst, src, 0, (size_t)src->n);
    }
    for (int32_t i = 0; i < src->pos.len; i++)
        if (src->pos.count[i] && store_add(&dst->pos, src->pos.off + i, src->pos.count[i]) != 0)
            return STATS_ENOMEM;
    for (int32_t i = 0; i < src->neg.len; i++)
        if (src->neg.count[i] && store_add(&dst->neg, src->neg.off + i, src->neg.count[i]) != 0)
            return STATS_ENOMEM;
    dst->zeros += src->zeros;
    /* combine the moments (Chan et al.) */
    uint64_t na = dst->n - dst->n_pinf - dst->n_ninf, nb = src->n - src->n_pinf - src->n_ninf;
    if (nb > 0 && na == 0) {
        dst->shift = src->shift;
        dst->mean = src->mean;
        dst->m2 = src->m2;
    } else if (nb > 0) { /* the means less their own shifts: the shifts' difference first */
        double d = (src->shift - dst->shift) + (src->mean - dst->mean), nt = (double)(na + nb);
        dst->mean += d * (double)nb / nt;
        dst->m2 += src->m2 + d * d * (double)na * (double)nb / nt;
    }
    if (nb > 0) {
        neumaier_add(&dst->sum, &dst->comp, src->sum);
        dst->comp += src->comp;
    }
    dst->n += src->n;
    dst->n_pinf += src->n_pinf;
    dst->n_ninf += src->n_ninf;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    return STATS_OK;
}

double stats_sum(const Stats *s)
{
    if (s->n_pinf && s->n_ninf)
        return NAN;
    if (s->n_pinf)
        return HUGE_VAL;
    if (s->n_ninf)
        return -HUGE_VAL;
    return s->sum + s->comp;
}

double stats_mean(const Stats *s)
{
    if (s->n == 0)
        return NAN;
    if (s->n_pinf || s->n_ninf)
        return stats_sum(s);
    /* the compensated sum is more accurate than Welford's running mean */
    return (s->sum + s->comp) / (double)s->n;
}

/*
** x >= +0 into the compensated sum *sum + *comp >= +0: neumaier_add's operations, with
** the larger magnitude found by MAXSD and the smaller by MINSD, since both are >= +0
** (equal ones are the same bits: no -0 is ever among them). The same bits as the
** textbook, infinities and NaN included.
*/
static inline void nonneg_add(double *sum, double *comp, double x)
{
    double s = *sum, t = s + x;
    double big = s > x ? s : x, small = x < s ? x : s;
    *comp += (big - t) + small;
    *sum = t;
}

/*
** The variance's sum of squared deviations in SQ_LANES lanes: the square of v[i] - mean
** into lane i % 4 with nonneg_add, the lanes then combined by sq_total. Four independent
** chains of additions where one, a sample at a time, took an addition's latency a sample
** (sum_sq_dev alone: 1.8 -> 1.1 ns a sample). Each instruction set below does the same
** operations lane by lane, so every one gives the same bits. The terms are all >= 0, so
** nothing cancels: each lane's compensated sum and their combination are as accurate as
** one chain (the exact sum rounded once but in extreme cases), and the bits may differ
** from one chain's only where that one was not the exact sum rounded once.
*/
typedef struct SqLanes {
    double s[SQ_LANES], c[SQ_LANES];
} SqLanes;

/* The sum of the lanes: the compensations added, then each lane's sum into the first
   with nonneg_add, whose compensation takes each combining addition's rounding error. */
static double sq_total(const SqLanes *q)
{
    double hi = q->s[0], lo = q->c[0];
    for (int j = 1; j < SQ_LANES; j++)
        lo += q->c[j];
    for (int j = 1; j < SQ_LANES; j++)
        nonneg_add(&hi, &lo, q->s[j]);
    return hi + lo;
}

#if defined(__SSE2__)
/* nonneg_add lane by lane (MAXPD, MINPD: nonneg_add's selects, lane by lane). */
static inline __attribute__((always_inline)) void nonneg_add2(__m128d *s, __m128d *c, __m128d x)
{
    __m128d t = _mm_add_pd(*s, x);
    *c = _mm_add_pd(*c, _mm_add_pd(_mm_sub_pd(_mm_max_pd(*s, x), t), _mm_min_pd(x, *s)));
    *s = t;
}

/* The squares of a[0..4) less m into the lanes, two a register. */
static inline __attribute__((always_inline)) void sq_add4(__m128d *s01, __m128d *c01, __m128d *s23,
                                                          __m128d *c23, const double *a, __m128d m)
{
    __m128d d01 = _mm_sub_pd(_mm_loadu_pd(a), m), d23 = _mm_sub_pd(_mm_loadu_pd(a + 2), m);
    nonneg_add2(s01, c01, _mm_mul_pd(d01, d01));
    nonneg_add2(s23, c23, _mm_mul_pd(d23, d23));
}

/* sum_sq_dev's loop, four samples at a time while four remain, into q (on from what it
   holds). Returns the index of the first sample left. */
static size_t sq_quads_sse2(const double *v, size_t n, double mean, SqLanes *q)
{
    __m128d m = _mm_set1_pd(mean), s01 = _mm_loadu_pd(q->s), c01 = _mm_loadu_pd(q->c);
    __m128d s23 = _mm_loadu_pd(q->s + 2), c23 = _mm_loadu_pd(q->c + 2);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        sq_add4(&s01, &c01, &s23, &c23, v + i, m);
    _mm_storeu_pd(q->s, s01);
    _mm_storeu_pd(q->s + 2, s23);
    _mm_storeu_pd(q->c, c01);
    _mm_storeu_pd(q->c + 2, c23);
    return i;
}

#ifdef STATS_AVX
/* nonneg_add2 four lanes a register. */
__attribute__((target("avx"))) static inline __attribute__((always_inline)) void
nonneg_add4(__m256d *s, __m256d *c, __m256d x)
{
    __m256d t = _mm256_add_pd(*s, x);
    *c = _mm256_add_pd(*c,
                       _mm256_add_pd(_mm256_sub_pd(_mm256_max_pd(*s, x), t), _mm256_min_pd(x, *s)));
    *s = t;
}

__attribute__((target("avx"))) static size_t sq_quads_avx(const double *v, size_t n, double mean,
                                                          SqLanes *q)
{
    __m256d m = _mm256_set1_pd(mean), vs = _mm256_loadu_pd(q->s), vc = _mm256_loadu_pd(q->c);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d d = _mm256_sub_pd(_mm256_loadu_pd(v + i), m);
        nonneg_add4(&vs, &vc, _mm256_mul_pd(d, d));
    }
    _mm256_storeu_pd(q->s, vs);
    _mm256_storeu_pd(q->c, vc);
    return i;
}
#endif
#endif

/* (v[i] - mean)^2 into q's lanes, on from what they hold (sample i into lane i % 4: n a
   multiple of 4 but for the last part of a sample); four at a time where SSE2 is (each
   lane as the scalar operation rounds it). */
static void sq_lanes_add(const double *v, size_t n, double mean, int portable, SqLanes *q)
{
    size_t i = 0;
#if defined(__SSE2__)
    if (portable != 1) {
#ifdef STATS_AVX
        i = use_avx(portable) ? sq_quads_avx(v, n, mean, q) : sq_quads_sse2(v, n, mean, q);
#else
        i = sq_quads_sse2(v, n, mean, q);
#endif
    }
#else
    (void)portable;
#endif
    for (; i < n; i++) {
        double d = v[i] - mean;
        nonneg_add(&q->s[i % SQ_LANES], &q->c[i % SQ_LANES], d * d);
    }
}

/* The compensated sum of (v[i] - mean)^2, in lanes. */
static double sum_sq_dev(const double *v, size_t n, double mean, int portable)
{
    SqLanes q = {{0}, {0}};
    sq_lanes_add(v, n, mean, portable, &q);
    return sq_total(&q);
}

/* sum_sq_dev of s's samples, as they are kept: floats a chunk at a time, widened (the
   same sums: the lanes go on from chunk to chunk). */
static double samples_sq_dev(const Stats *s, double mean)
{
    if (!s->f32)
        return sum_sq_dev(s->v, (size_t)s->n, mean, s->portable);
    SqLanes q = {{0}, {0}};
    double d[F32_CHUNK];
    const float *f = (const float *)(const void *)s->v;
    for (size_t at = 0, n = (size_t)s->n; at < n; at += F32_CHUNK) {
        size_t m = n - at < F32_CHUNK ? n - at : F32_CHUNK;
        widen_floats(f + at, d, m);
        sq_lanes_add(d, m, mean, s->portable, &q);
    }
    return sq_total(&q);
}

/* hist_count's bin of x: when every sample is > 0 (nonneg) its bits less base's, else
   its key less base (kmin). */
static inline size_t hist_bin(double x, uint64_t base, int shift, int nonneg)
{
    return (size_t)(((nonneg ? bits_of(x) : key_of(x)) - base) >> shift);
}

#if defined(__SSE2__)
/*
** hist_count and sum_sq_dev's loop in one pass, four samples at a time while four
** remain: the bins of each, and their squared deviations from mean into q's lanes as
** sum_sq_dev's loops do (the same bits). Returns the index of the first sample left.
*/
static inline __attribute__((always_inline)) size_t hist_sq_quads(const double *a, size_t n,
                                                                  uint64_t base, int shift,
                                                                  int nonneg, uint32_t *count,
                                                                  double mean, SqLanes *q)
{
    __m128d m = _mm_set1_pd(mean), s01 = _mm_loadu_pd(q->s), c01 = _mm_loadu_pd(q->c);
    __m128d s23 = _mm_loadu_pd(q->s + 2), c23 = _mm_loadu_pd(q->c + 2);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        /* unrolled: GCC's -O2 kept the loop, its counter and branch (3 instructions a
           sample more) */
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++)
            count[hist_bin(a[i + j], base, shift, nonneg)]++;
        sq_add4(&s01, &c01, &s23, &c23, a + i, m);
    }
    _mm_storeu_pd(q->s, s01);
    _mm_storeu_pd(q->s + 2, s23);
    _mm_storeu_pd(q->c, c01);
    _mm_storeu_pd(q->c + 2, c23);
    return i;
}

static size_t hist_sq_quads_sse2(const double *a, size_t n, uint64_t base, int shift, int nonneg,
                                 uint32_t *count, double mean, SqLanes *q)
{
    if (nonneg)
        return hist_sq_quads(a, n, base, shift, 1, count, mean, q);
    return hist_sq_quads(a, n, base, shift, 0, count, mean, q);
}

#ifdef STATS_AVX
/* hist_sq_quads with the four lanes in one register. */
__attribute__((target("avx"))) static inline __attribute__((always_inline)) size_t
hist_sq_quads_avx_in(const double *a, size_t n, uint64_t base, int shift, int nonneg,
                     uint32_t *count, double mean, SqLanes *q)
{
    __m256d m = _mm256_set1_pd(mean), vs = _mm256_loadu_pd(q->s), vc = _mm256_loadu_pd(q->c);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++)
            count[hist_bin(a[i + j], base, shift, nonneg)]++;
        __m256d d = _mm256_sub_pd(_mm256_loadu_pd(a + i), m);
        nonneg_add4(&vs, &vc, _mm256_mul_pd(d, d));
    }
    _mm256_storeu_pd(q->s, vs);
    _mm256_storeu_pd(q->c, vc);
    return i;
}

__attribute__((target("avx"))) static size_t hist_sq_quads_avx(const double *a, size_t n,
                                                               uint64_t base, int shift, int nonneg,
                                                               uint32_t *count, double mean,
                                                               SqLanes *q)
{
    if (nonneg)
        return hist_sq_quads_avx_in(a, n, base, shift, 1, count, mean, q);
    return hist_sq_quads_avx_in(a, n, base, shift, 0, count, mean, q);
}
#endif
#endif

/*
** hist_count, and sum_sq_dev's sum of the squared deviations from sq->mean in the same
** pass (each sample read once for both): four at a time where SSE2 is (in one register
** where the CPU has AVX), the rest one at a time with nonneg_add, as sum_sq_dev.
*/
static void hist_count_sq(const double *a, size_t n, double lo, uint64_t kmin, int shift,
                          uint32_t *count, const HistSq *sq, SqLanes *q)
{
    int nonneg = lo > 0;
    uint64_t base = nonneg ? bits_of(lo) : kmin;
    double mean = sq->mean;
    size_t i = 0;
#if defined(__SSE2__)
    if (sq->portable != 1) {
#ifdef STATS_AVX
        i = use_avx(sq->portable) ? hist_sq_quads_avx(a, n, base, shift, nonneg, count, mean, q)
                                  : hist_sq_quads_sse2(a, n, base, shift, nonneg, count, mean, q);
#else
        i = hist_sq_quads_sse2(a, n, base, shift, nonneg, count, mean, q);
#endif
    }
#endif
    for (; i < n; i++) {
        count[hist_bin(a[i], base, shift, nonneg)]++;
        double d = a[i] - mean;
        nonneg_add(&q->s[i % SQ_LANES], &q->c[i % SQ_LANES], d * d);
    }
}

/* hist_ranks_in's counting pass over a[0..n), or f[0..n) a chunk at a time (the lanes on
   from chunk to chunk: the same bits), with the squared deviations when sq->want (then
   in sq->m2, and sq->done set). */
static void hist_count_all(const double *a, const float *f, size_t n, double lo, uint64_t kmin,
                           int shift, uint32_t *count, HistSq *sq)
{
    SqLanes q = {{0}, {0}};
    if (f == NULL) {
        if (sq->want)
            hist_count_sq(a, n, lo, kmin, shift, count, sq, &q);
        else
            hist_count(a, n, lo, kmin, shift, count);
    } else {
        double d[F32_CHUNK];
        for (size_t o = 0; o < n; o += F32_CHUNK) {
            size_t m = n - o < F32_CHUNK ? n - o : F32_CHUNK;
            widen_floats(f + o, d, m);
            if (sq->want)
                hist_count_sq(d, m, lo, kmin, shift, count, sq, &q);
            else
                hist_count(d, m, lo, kmin, shift, count);
        }
    }
    if (sq->want) {
        sq->m2 = sq_total(&q);
        sq->done = 1;
    }
}

double stats_variance(Stats *s, int ddof)
{
    if (s->n_pinf || s->n_ninf || s->n <= (uint64_t)ddof)
        return NAN;
    double m2 = s->m2;
    if (!s->sketch && !s->m2_known) {
        /* every sample is here: two passes (as numpy does) with a compensated sum, which
           keeps the digits a running update loses on large values with a small spread
           (epoch timestamps); kept until the samples change */
        s->m2_exact = samples_sq_dev(s, stats_mean(s));
        s->m2_known = 1;
    }
    if (!s->sketch)
        m2 = s->m2_exact;
    double v = m2 / (double)(s->n - (uint64_t)ddof);
    return v < 0 ? 0 : v;
}

/*
** stats_variance of s whose sorted samples the runs r hold (not written out): the sum of
** squared deviations over them in that order, as samples_sq_dev takes them once written
** out (each value as the float written when s->f32), made a chunk at a time from the runs
** (F32_CHUNK, a multiple of 4: the lanes go on as over the whole block), so the same bits
** without a block of n samples (issue 20: compare.lua's whole-run ITL, 20 M samples a run,
** was written out for its variance alone, 80 MB of fresh memory a run). Kept as
** stats_variance keeps it.
*/
double stats_variance_runs(Stats *s, const StatsRuns *r, int ddof)
{
    if (s->sketch || s->m2_known || s->n_pinf || s->n_ninf || s->n <= (uint64_t)ddof)
        return stats_variance(s, ddof);
    double mean = stats_mean(s), d[F32_CHUNK];
    SqLanes q = {{0}, {0}};
    size_t m = 0;
    uint64_t at = 0;
    for (size_t i = 0; i < r->nr; i++) {
        double x = s->f32 ? (double)(float)r->val[i] : r->val[i];
        for (uint64_t c = r->end[i] - at; c > 0;) {
            size_t take = F32_CHUNK - m < c ? F32_CHUNK - m : (size_t)c;
            for (size_t j = 0; j < take; j++)
                d[m + j] = x;
            m += take;
            c -= take;
            if (m == F32_CHUNK) {
                sq_lanes_add(d, m, mean, s->portable, &q);
                m = 0;
            }
        }
        at = r->end[i];
    }
    sq_lanes_add(d, m, mean, s->portable, &q);
    s->m2_exact = sq_total(&q);
    s->m2_known = 1;
    return stats_variance(s, ddof);
}

double stats_min(const Stats *s)
{
    return s->n ? s->min : NAN;
}

double stats_max(const Stats *s)
{
    return s->n ? s->max : NAN;
}

/* numpy's _lerp: a + (b - a) t, computed from b's side when t >= 0.5. Infinite
   neighbours give the limit (numpy would give NaN). */
static double lerp(double a, double b, double t)
{
    if (a == b || t == 0)
        return a;
    if (isinf(a) || isinf(b)) {
        if (isinf(a) && isinf(b))
            return NAN; /* -inf .. +inf: no value */
        return isinf(a) ? a : b;
    }
    double d = b - a;
    return t >= 0.5 ? b - d * (1 - t) : a + d * t;
}

/* The sample of rank r (0-based) in sketch order, as estimated. */
static double sketch_at(const Stats *s, uint64_t r)
{
    if (r < s->n_ninf)
        return -HUGE_VAL;
    r -= s->n_ninf;
    for (int32_t i = s->neg.len; i-- > 0;) {
        uint64_t c = s->neg.count[i];
        if (r < c)
            return -bucket_value(s, s->neg.off + i);
        r -= c;
    }
    if (r < s->zeros)
        return 0;
    r -= s->zeros;
    for (int32_t i = 0; i < s->pos.len; i++) {
        uint64_t c = s->pos.count[i];
        if (r < c)
            return bucket_value(s, s->pos.off + i);
        r -= c;
    }
    return HUGE_VAL;
}

static double clamp(const Stats *s, double x)
{
    return x < s->min ? s->min : x > s->max ? s->max : x;
}

/* The sample of rank r (0-based); sorts or selects as the queries go. */
static double exact_at(Stats *s, uint64_t r, int need_next, double *next)
{
    if (!s->sorted && s->queries == 0)
        stats_widen(s); /* selected in place, as doubles */
    if (!s->sorted && s->queries == 0 && !need_next) {
        select_kth(s->v, s->n, r);
        s->queries++;
        return s->v[r];
    }
    if (!s->sorted && s->queries == 0 && need_next) {
        /* one query: select r, the next is the least of what lies above it */
        select_kth(s->v, s->n, r);
        double m = HUGE_VAL;
        for (size_t i = r + 1; i < s->n; i++)
            if (s->v[i] < m)
                m = s->v[i];
        *next = r + 1 < s->n ? m : s->v[r];
        s->queries++;
        return s->v[r];
    }
    if (!s->sorted) {
        sort_samples(s);
        s->sorted = 1;
    }
    if (need_next) /* sorted: read as kept (floats or doubles) */
        *next = kept_load(s->v, r + 1 < s->n ? r + 1 : r, s->f32);
    return kept_load(s->v, r, s->f32);
}

/*
** The nearest rank of percentile p in n samples, ceil(p n / 100), for p as the decimal the
** caller wrote: a product within its rounding error (3 roundings, at most 4 epsilon of it)
** of an integer is that integer. 99.9 is stored a little above 99.9, so taken as the
** double it is, 99.9 of 1000 would be ceil(999.00000000000006) = 1000 (numpy's
** inverted_cdf: 0.999 x 1000 = 999.0000000000001); 999 of the 1000 values are at or below
** the 999th, 99.9 % of them, so the 99.9th percentile is it. A product that is not an
** integer is at least 1/(100 x 10^d) (d decimals of p) from one: far beyond that error.
*/
static double nearest_rank(double p, double n)
{
    double r = p * n / 100.0;
    double k = nearbyint(r);
    if (fabs(r - k) <= 4 * DBL_EPSILON * fabs(r))
        return k;
    return ceil(r);
}

double stats_percentile(Stats *s, double p, int method)
{
    if (s->n == 0)
        return NAN;
    if (!s->sketch && !s->sorted && s->n > 1024) { /* histogram, then sort: see there */
        double out;
        stats_percentiles(s, &p, &out, 1, method);
        return out;
    }
    if (method == STATS_NEAREST) {
        double r = nearest_rank(p, (double)s->n);
        uint64_t k = r < 1 ? 0 : (uint64_t)r - 1;
        if (k >= s->n)
            k = s->n - 1;
        return s->sketch ? clamp(s, sketch_at(s, k)) : exact_at(s, k, 0, NULL);
    }
    double h = (p / 100.0) * (double)(s->n - 1);
    double lo = floor(h);
    uint64_t k = (uint64_t)lo;
    if (k >= s->n - 1)
        return s->sketch ? clamp(s, sketch_at(s, s->n - 1)) : exact_at(s, s->n - 1, 0, NULL);
    double a, b;
    if (s->sketch) {
        a = clamp(s, sketch_at(s, k));
        b = clamp(s, sketch_at(s, k + 1));
    } else {
        a = exact_at(s, k, 1, &b);
    }
    return lerp(a, b, h - lo);
}

/* The rank(s) percentile p needs: lo, and lo + 1 when interpolating. */
static uint64_t rank_lo(const Stats *s, double p, int method, double *t)
{
    *t = 0;
    if (method == STATS_NEAREST) {
        double r = nearest_rank(p, (double)s->n);
        uint64_t k = r < 1 ? 0 : (uint64_t)r - 1;
        return k >= s->n ? s->n - 1 : k;
    }
    double h = (p / 100.0) * (double)(s->n - 1), lo = floor(h);
    uint64_t k = (uint64_t)lo;
    if (k >= s->n - 1)
        return s->n - 1;
    *t = h - lo;
    return k;
}

static double value_of_rank(const uint64_t *ranks, const double *vals, size_t nr, uint64_t r)
{
    size_t lo = 0, hi = nr;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (ranks[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return vals[lo];
}

static void percentiles(Stats *s, const double *ps, double *out, int k, int method, int with_m2);

void stats_percentiles(Stats *s, const double *ps, double *out, int k, int method)
{
    percentiles(s, ps, out, k, method, 0);
}

void stats_percentiles_variance(Stats *s, const double *ps, double *out, int k, int method)
{
    percentiles(s, ps, out, k, method, 1);
}

/* stats_percentiles; with_m2: the variance's sum of squared deviations too, in the same
   pass when there is one, before the samples are reordered when not */
static void percentiles(Stats *s, const double *ps, double *out, int k, int method, int with_m2)
{
    /* The first query of a large sample reads its ranks in two streaming passes (no
       memory but a histogram); a second one sorts it (in place), after which every
       query is a lookup. */
    if (!s->sketch && !s->sorted && s->n > 1024 && s->queries > 0) {
        if (s->n >= ((uint64_t)1 << 16) && quantum_sort_kept(s) == 0) {
            s->sorted = 1; /* as kept: floats stay floats */
        } else {
            stats_widen(s); /* the radix sort's in place, on doubles */
            if (radix_sort(s->v, (size_t)s->n, 0, RADIX_HOT) == 0)
                s->sorted = 1;
        }
    }
    if (!s->sketch && !s->sorted && s->n > 1024 && k >= 1) {
        s->queries++;
        /* every rank any of the percentiles needs, found in two streaming passes */
        uint64_t *ranks = (uint64_t *)malloc((size_t)k * 2 * sizeof *ranks);
        double *vals = (double *)malloc((size_t)k * 2 * sizeof *vals);
        if (ranks != NULL && vals != NULL) {
            size_t nr = 0;
            for (int i = 0; i < k; i++) {
                double t;
                uint64_t lo = rank_lo(s, ps[i], method, &t);
                ranks[nr++] = lo;
                if (lo + 1 < s->n)
                    ranks[nr++] = lo + 1;
            }
            qsort(ranks, nr, sizeof *ranks, cmp_u64);
            size_t u = 0;
            for (size_t i = 0; i < nr; i++)
                if (u == 0 || ranks[u - 1] != ranks[i])
                    ranks[u++] = ranks[i];
            /* the variance's pass rides along when asked and not known (one pass less
               for a summary, which asks for the percentiles first) */
            HistSq sq = {with_m2 && !s->m2_known && s->n_pinf == 0 && s->n_ninf == 0, s->portable,
                         0, stats_mean(s), 0};
            const float *f = s->f32 ? (const float *)(const void *)s->v : NULL;
            int hr = hist_ranks(f ? NULL : s->v, f, s->n, s->min, s->max, ranks, u, vals, &sq);
            if (sq.done) {
                s->m2_exact = sq.m2;
                s->m2_known = 1;
            }
            if (hr == 0) {
                for (int i = 0; i < k; i++) {
                    double t;
                    uint64_t lo = rank_lo(s, ps[i], method, &t);
                    double a = value_of_rank(ranks, vals, u, lo);
                    out[i] = t == 0 ? a : lerp(a, value_of_rank(ranks, vals, u, lo + 1), t);
                }
                free(ranks);
                free(vals);
                return;
            }
            /* crowded: select those ranks in place instead (the variance first, when it
               was asked and the histogram did not count: selection reorders) */
            if (sq.want && !sq.done) {
                s->m2_exact = samples_sq_dev(s, sq.mean);
                s->m2_known = 1;
            }
            stats_widen(s);
            select_ranks(s->v, s->n, ranks, u);
            free(ranks);
            free(vals);
            s->sorted = 1; /* the wanted ranks are in place: read them as if sorted */
            for (int i = 0; i < k; i++)
                out[i] = stats_percentile(s, ps[i], method);
            s->sorted = 0;
            s->queries = 1;
            return;
        }
        free(ranks);
        free(vals);
    }
    for (int i = 0; i < k; i++)
        out[i] = stats_percentile(s, ps[i], method);
}

int stats_percentiles_give_variance(const Stats *s)
{
    return !s->sketch && !s->sorted && s->n > 1024 && s->queries == 0 && !s->m2_known &&
           s->n_pinf == 0 && s->n_ninf == 0;
}

/* (The readers of sorted samples read them as kept: floats stay floats.) */
static void ensure_sorted(Stats *s)
{
    if (!s->sorted) {
        sort_samples(s);
        s->sorted = 1;
    }
}

void stats_sort(Stats *s)
{
    if (!s->sketch)
        ensure_sorted(s);
}

/*
** The Mann-Whitney merge over a[0..na) and b[0..nb), both sorted, each kept as floats
** (fa, fb) or doubles: each run of equal values gets the mean rank of its positions; *r1
** sums a's ranks, *tie accumulates t^3 - t. fa and fb are constants where it is inlined.
*/
static inline __attribute__((always_inline)) void mwu_merge(const void *a, size_t na, int fa,
                                                            const void *b, size_t nb, int fb,
                                                            double *r1_out, double *tie_out)
{
    size_t i = 0, j = 0;
    double r1 = 0.0, tie = 0.0, pos = 0.0;
    while (i < na || j < nb) {
        double x = (j >= nb || (i < na && kept_load(a, i, fa) <= kept_load(b, j, fb)))
                       ? kept_load(a, i, fa)
                       : kept_load(b, j, fb);
        size_t ca = 0, cb = 0;
        while (i < na && kept_load(a, i, fa) == x) {
            i++;
            ca++;
        }
        while (j < nb && kept_load(b, j, fb) == x) {
            j++;
            cb++;
        }
        double t = (double)(ca + cb);
        double mean_rank = pos + (t + 1.0) / 2.0;
        r1 += (double)ca * mean_rank;
        tie += t * t * t - t;
        pos += t;
    }
    *r1_out = r1;
    *tie_out = tie;
}

/* U, its variance and the rest from the merge's sums (one body for both merges) */
static int mwu_finish(size_t na, size_t nb, double r1, double tie, StatsMWU *out)
{
    double n1 = (double)na, n2 = (double)nb, n = n1 + n2;
    double u = r1 - n1 * (n1 + 1.0) / 2.0;
    double var = n1 * n2 / 12.0 * ((n + 1.0) - tie / (n * (n - 1.0)));
    if (!(var > 0.0))
        return -4;
    out->u = u;
    out->var = var;
    out->z = (u - n1 * n2 / 2.0) / sqrt(var);
    out->p = erfc(fabs(out->z) / sqrt(2.0));
    out->effect = u / (n1 * n2);
    return STATS_OK;
}

int stats_mann_whitney(Stats *a, Stats *b, StatsMWU *out)
{
    if (a->sketch || b->sketch)
        return STATS_EMERGE;
    if (a->n == 0 || b->n == 0)
        return -4;
    ensure_sorted(a);
    ensure_sorted(b);
    /* one merge over both sorted arrays, read as kept */
    size_t na = (size_t)a->n, nb = (size_t)b->n;
    double r1, tie;
    if (a->f32 && b->f32)
        mwu_merge(a->v, na, 1, b->v, nb, 1, &r1, &tie);
    else if (a->f32)
        mwu_merge(a->v, na, 1, b->v, nb, 0, &r1, &tie);
    else if (b->f32)
        mwu_merge(a->v, na, 0, b->v, nb, 1, &r1, &tie);
    else
        mwu_merge(a->v, na, 0, b->v, nb, 0, &r1, &tie);
    return mwu_finish(na, nb, r1, tie, out);
}

/* ---- sorted samples held as runs of a value (StatsRuns) ------------------------ */

/* The sample of rank k (0-based, < n) of the runs: the run whose end is the first above k. */
static double runs_at(const StatsRuns *r, uint64_t k)
{
    size_t lo = 0, hi = r->nr - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->end[mid] > k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return r->val[lo];
}

double stats_percentile_runs(const StatsRuns *r, double p, int method)
{
    uint64_t n = r->nr ? r->end[r->nr - 1] : 0;
    if (n == 0)
        return NAN;
    /* stats_percentile's own steps on sorted samples, each rank read from the runs */
    if (method == STATS_NEAREST) {
        double rr = nearest_rank(p, (double)n);
        uint64_t k = rr < 1 ? 0 : (uint64_t)rr - 1;
        if (k >= n)
            k = n - 1;
        return runs_at(r, k);
    }
    double h = (p / 100.0) * (double)(n - 1);
    double lo = floor(h);
    uint64_t k = (uint64_t)lo;
    if (k >= n - 1)
        return runs_at(r, n - 1);
    return lerp(runs_at(r, k), runs_at(r, k + 1), h - lo);
}

/* One side of mwu_merge_sides: sorted samples as kept (r NULL), or runs (i a run's index). */
typedef struct MwuSide {
    const void *v;
    int f32;
    const StatsRuns *r;
    size_t i, n;
} MwuSide;

static double side_peek(const MwuSide *s)
{
    return s->r ? s->r->val[s->i] : kept_load(s->v, s->i, s->f32);
}

/* How many samples equal x come next, taken (runs of equal values, 0 and -0 alike, count as one) */
static size_t side_take(MwuSide *s, double x)
{
    size_t c = 0;
    if (s->r) {
        for (; s->i < s->n && s->r->val[s->i] == x; s->i++)
            c += (size_t)(s->r->end[s->i] - (s->i ? s->r->end[s->i - 1] : 0));
        return c;
    }
    for (; s->i < s->n && kept_load(s->v, s->i, s->f32) == x; s->i++)
        c++;
    return c;
}

int stats_mann_whitney_runs(Stats *a, const StatsRuns *ra, Stats *b, const StatsRuns *rb,
                            StatsMWU *out)
{
    if (a->sketch || b->sketch)
        return STATS_EMERGE;
    if (a->n == 0 || b->n == 0)
        return -4;
    if (ra == NULL)
        ensure_sorted(a);
    if (rb == NULL)
        ensure_sorted(b);
    MwuSide sa = {a->v, a->f32, ra, 0, ra ? ra->nr : (size_t)a->n};
    MwuSide sb = {b->v, b->f32, rb, 0, rb ? rb->nr : (size_t)b->n};
    /* mwu_merge's steps, a value's samples on each side counted from runs or samples */
    double r1 = 0.0, tie = 0.0, pos = 0.0;
    while (sa.i < sa.n || sb.i < sb.n) {
        double x = (sb.i >= sb.n || (sa.i < sa.n && side_peek(&sa) <= side_peek(&sb)))
                       ? side_peek(&sa)
                       : side_peek(&sb);
        size_t ca = side_take(&sa, x), cb = side_take(&sb, x);
        double t = (double)(ca + cb);
        double mean_rank = pos + (t + 1.0) / 2.0;
        r1 += (double)ca * mean_rank;
        tie += t * t * t - t;
        pos += t;
    }
    return mwu_finish((size_t)a->n, (size_t)b->n, r1, tie, out);
}

double stats_rank(Stats *s, double x)
{
    if (s->n == 0)
        return NAN;
    uint64_t le = 0;
    if (!s->sketch) {
        double d[F32_CHUNK]; /* read as kept (floats or doubles) */
        for (size_t at = 0, n = (size_t)s->n; at < n; at += F32_CHUNK) {
            size_t m = n - at < F32_CHUNK ? n - at : F32_CHUNK;
            stats_samples(s, at, m, d);
            for (size_t i = 0; i < m; i++)
                le += d[i] <= x;
        }
    } else if (x >= HUGE_VAL) {
        le = s->n;
    } else {
        le = s->n_ninf;
        if (x > -HUGE_VAL) {
            for (int32_t i = 0; i < s->neg.len; i++)
                if (-bucket_value(s, s->neg.off + i) <= x)
                    le += s->neg.count[i];
            if (x >= 0)
                le += s->zeros;
            for (int32_t i = 0; i < s->pos.len; i++)
                if (bucket_value(s, s->pos.off + i) <= x)
                    le += s->pos.count[i];
        }
    }
    return 100.0 * (double)le / (double)s->n;
}

double stats_sketch_estimate(Stats *s, double x)
{
    if (!s->sketch || !isfinite(x) || (s->sub == NULL && sketch_map(s) != STATS_OK))
        return NAN;
    if (x == 0)
        return 0;
    return x > 0 ? bucket_value(s, bucket_of(s, x)) : -bucket_value(s, bucket_of(s, -x));
}

size_t stats_memory(const Stats *s)
{
    return s->cap * sizeof(double) + ((size_t)s->pos.len + (size_t)s->neg.len) * sizeof(uint64_t);
}

static uint64_t *dup_counts(const StatsStore *st)
{
    if (st->len == 0)
        return NULL;
    uint64_t *c = (uint64_t *)malloc((size_t)st->len * sizeof *c);
    if (c != NULL)
        memcpy(c, st->count, (size_t)st->len * sizeof *c);
    return c;
}

int stats_save(const Stats *s, StatsSaved *sv)
{
    memset(sv, 0, sizeof *sv);
    sv->s = *s;
    if (s->sketch) {
        sv->pos = dup_counts(&s->pos);
        sv->neg = dup_counts(&s->neg);
        if ((s->pos.len && sv->pos == NULL) || (s->neg.len && sv->neg == NULL)) {
            stats_saved_free(sv);
            return STATS_ENOMEM;
        }
    }
    return STATS_OK;
}

void stats_restore(Stats *s, StatsSaved *sv)
{
    double *v = s->v;
    size_t cap = s->cap, map_len = s->map_len;
    int f32 = s->f32;       /* widened since or not: the first n samples are as v keeps them now */
    uint64_t *sub = s->sub; /* the same for the same alpha; maybe built since */
    if (s->sketch) {
        free(s->pos.count);
        free(s->neg.count);
    }
    *s = sv->s;
    s->sub = sub;
    if (s->sketch) {
        s->pos.count = sv->pos;
        s->neg.count = sv->neg;
        sv->pos = sv->neg = NULL;
    } else {
        s->v = v;
        s->cap = cap;
        s->map_len = map_len;
        s->f32 = f32;
        s->sorted = s->n <= 1;
        s->queries = 0;
        s->m2_known = 0;
    }
}

void stats_saved_free(StatsSaved *sv)
{
    free(sv->pos);
    free(sv->neg);
    sv->pos = sv->neg = NULL;
}

typedef struct KeyIndex {
    double v;
    size_t i;
} KeyIndex;

/* A KeyIndex's radix key: its value's key_of, -0.0 as +0.0 (equal to it under <, as the
   merge sort compares them) */
static uint64_t key_index_key(const KeyIndex *e)
{
    return key_of(e->v == 0 ? 0.0 : e->v);
}

/*
** kv[0..n-1] sorted as sort_key_index sorts them (below), by a stable LSD radix sort of
** the keys less the least one, KEY_RADIX_BITS a pass, through tmp (n entries), a pass
** skipped where every entry has the same digit; -1 (kv as it was) when there is no
** memory for the counts. Stable too, with the same ties, so the same entries in the same
** places; a few streaming passes instead of log2(n / 16) merges with
** their mispredicted comparisons (issue 20: this sort, of each stage's latencies for the
** design effects and of the starts for the stages' windows, was 8 % of reading a run of
** 300,000 short requests).
*/
#define KEY_RADIX_BITS 11
static int radix_key_index(KeyIndex *kv, KeyIndex *tmp, size_t n)
{
    const size_t nd = (size_t)1 << KEY_RADIX_BITS, mask = nd - 1;
    uint64_t kmin = UINT64_MAX, kmax = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key_index_key(&kv[i]);
        kmin = k < kmin ? k : kmin;
        kmax = k > kmax ? k : kmax;
    }
    if (n < 2 || kmin == kmax)
        return 0; /* one key: sorted, ties in their order */
    int bits = 1; /* kmax > kmin: at least one bit (and one pass, which the analyzer cannot see) */
    while (bits < 64 && ((kmax - kmin) >> bits) != 0)
        bits++;
    int passes = (bits + KEY_RADIX_BITS - 1) / KEY_RADIX_BITS;
    size_t *count = calloc((size_t)passes * nd, sizeof *count);
    if (count == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key_index_key(&kv[i]) - kmin;
        for (int p = 0; p < passes; p++)
            count[(size_t)p * nd + ((k >> (p * KEY_RADIX_BITS)) & mask)]++;
    }
    KeyIndex *from = kv, *to = tmp;
    for (int p = 0; p < passes; p++) {
        size_t *c = count + (size_t)p * nd, at = 0;
        int one = 0;
        for (size_t d = 0; d < nd; d++) {
            size_t m = c[d];
            one = one || m == n;
            c[d] = at; /* where digit d's entries begin */
            at += m;
        }
        if (one)
            continue;
        int shift = p * KEY_RADIX_BITS;
        for (size_t i = 0; i < n; i++) {
            size_t d = (size_t)(((key_index_key(&from[i]) - kmin) >> shift) & mask);
            to[c[d]++] = from[i];
        }
        KeyIndex *t = from;
        from = to;
        to = t;
    }
    if (from != kv)
        memcpy(kv, from, n * sizeof *kv);
    free(count);
    return 0;
}

/*
** kv[0..n-1] sorted by value, ties (-0.0 and 0.0 among them) in the order they are in:
** from n = 1024 radix_key_index's, else a merge sort, bottom up, runs of 16 first by
** insertion, through tmp (n entries). Stable, so entries made in index order come out
** by value, then index. (qsort with a comparator of both was 2 % of a comparison's
** instructions: a call a comparison, issue 20.)
*/
static void sort_key_index(KeyIndex *kv, KeyIndex *tmp, size_t n)
{
    if (n >= 1024 && radix_key_index(kv, tmp, n) == 0)
        return;
    const size_t run = 16;
    for (size_t lo = 0; lo < n; lo += run) {
        size_t hi = lo + run < n ? lo + run : n;
        for (size_t i = lo + 1; i < hi; i++) {
            KeyIndex x = kv[i];
            size_t j = i;
            while (j > lo && x.v < kv[j - 1].v) {
                kv[j] = kv[j - 1];
                j--;
            }
            kv[j] = x;
        }
    }
    KeyIndex *from = kv, *to = tmp;
    for (size_t w = run; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) /* the right one only when strictly less: stable */
                to[o++] = from[b].v < from[a].v ? from[b++] : from[a++];
            while (a < mid)
                to[o++] = from[a++];
            while (b < hi)
                to[o++] = from[b++];
        }
        KeyIndex *t = from;
        from = to;
        to = t;
    }
    if (from != kv)
        memcpy(kv, from, n * sizeof *kv);
}

/* kv[0..n-1] = (xs[i], i) sorted by value, then index; NULL (errno-free) on NaN or
   memory short, *err saying which */
static KeyIndex *sorted_keys(const double *xs, size_t n, int *err)
{
    KeyIndex *kv = n <= SIZE_MAX / (2 * sizeof *kv)
                       ? malloc((n ? n : 1) * 2 * sizeof *kv) /* (and the merge's room after) */
                       : NULL;
    if (kv == NULL) {
        *err = STATS_ENOMEM;
        return NULL;
    }
    int in_order = 1;
    for (size_t i = 0; i < n; i++) {
        if (isnan(xs[i])) {
            free(kv);
            *err = STATS_ENAN;
            return NULL;
        }
        kv[i].v = xs[i];
        kv[i].i = i;
        in_order = in_order && (i == 0 || !(xs[i] < xs[i - 1]));
    }
    /* already by value (ties, -0.0 and 0.0 among them, in index order): as the stable sort
       leaves them (a log's starts in the order they were sent: no pass over them) */
    if (!in_order)
        sort_key_index(kv, kv + n, n);
    return kv;
}

int stats_order(const double *keys, size_t n, size_t *perm)
{
    int err = STATS_OK;
    KeyIndex *kv = sorted_keys(keys, n, &err);
    if (kv == NULL)
        return err;
    for (size_t k = 0; k < n; k++)
        perm[k] = kv[k].i;
    free(kv);
    return STATS_OK;
}

/*
** The sums of r's lagged products for the lags from .. from + 3: c[j] = the sum over t of
** r[t] * r[t + from + j] (t + from + j < n), each added up in t's order, as a loop of its
** own over that one lag adds it, so the same bits. The four in one pass: each sum is a
** chain of additions, one waiting on the one before, which leaves the CPU idle between
** them; four chains side by side cost about what one does (geyer_tau, which asks for the
** lags one after another, was ~3 % of compare.lua's CPU on a run of many requests).
*/
static void lag_sums(const double *r, size_t n, size_t from, double c[4])
{
    double c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    size_t all = n > from + 3 ? n - (from + 3) : 0; /* t below it: every lag has its term */
    const double *r0 = r + from;
    for (size_t t = 0; t < all; t++) {
        double x = r[t];
        c0 = c0 + x * r0[t];
        c1 = c1 + x * r0[t + 1];
        c2 = c2 + x * r0[t + 2];
        c3 = c3 + x * r0[t + 3];
    }
    c[0] = c0;
    c[1] = c1;
    c[2] = c2;
    c[3] = c3;
    for (size_t j = 0; j < 3; j++) /* the shorter lags' last terms */
        for (size_t t = all; t + from + j < n; t++)
            c[j] = c[j] + r[t] * r[t + from + j];
}

/* Geyer's initial positive sequence sum of the centred series r[0..n-1] (stats_design_effect
   has the sums): STATS_OK and *tau, or 1 where c0 = 0 (no tau) */
static int geyer_tau(const double *r, size_t n, size_t max_lag, double *tau)
{
    double c[4]; /* the sums of lags have .. have + 3 (lag 0's: c0) */
    size_t have = 0;
    lag_sums(r, n, 0, c);
    double c0 = c[0];
    if (!(c0 > 0))
        return 1;
    size_t maxlag = n >= 2 && n - 2 < max_lag ? n - 2 : max_lag;
    if (n < 2)
        maxlag = 0;
    double sum = -1;
    for (size_t m = 0; 2 * m + 1 <= maxlag; m++) {
        double g = 0;
        for (size_t lag = 2 * m; lag <= 2 * m + 1; lag++) {
            double rho = 1;
            if (lag > 0) {
                if (lag >= have + 4) {
                    have = lag; /* (lags come in pairs from 0: lag is a multiple of 4) */
                    lag_sums(r, n, have, c);
                }
                rho = c[lag - have] / c0;
            }
            g = lag == 2 * m ? rho : g + rho;
        }
        if (g <= 0)
            break;
        sum = sum + 2 * g;
    }
    *tau = sum;
    return STATS_OK;
}

int stats_design_effect(const double *xs, size_t n, size_t max_lag, double *tau)
{
    int err = STATS_OK;
    KeyIndex *kv = sorted_keys(xs, n, &err);
    if (kv == NULL)
        return err;
    double *r = malloc((n ? n : 1) * sizeof *r);
    if (r == NULL) {
        free(kv);
        return STATS_ENOMEM;
    }
    /* mid-ranks (1-based ranks i..j of a run of ties: (i + j) / 2), centred */
    double centre = (double)(n + 1) / 2;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && kv[j + 1].v == kv[i].v)
            j++;
        double mid = (double)((i + 1) + (j + 1)) / 2 - centre;
        for (size_t k = i; k <= j; k++)
            r[kv[k].i] = mid;
        i = j + 1;
    }
    free(kv);
    int rc = geyer_tau(r, n, max_lag, tau);
    free(r);
    return rc;
}

int stats_value_design_effect(const double *xs, size_t n, size_t max_lag, double *tau)
{
    double sum = 0;
    int same = 1;
    for (size_t t = 0; t < n; t++) {
        if (isnan(xs[t]))
            return STATS_ENAN;
        sum = sum + xs[t];
        same = same && xs[t] == xs[0];
    }
    /* every value the same: no spread (their mean's rounding would leave residues of one
       sign, perfectly correlated: tau near 2n) */
    if (same)
        return 1;
    double *r = malloc((n ? n : 1) * sizeof *r);
    if (r == NULL)
        return STATS_ENOMEM;
    double mean = n ? sum / (double)n : 0;
    for (size_t t = 0; t < n; t++)
        r[t] = xs[t] - mean;
    int rc = geyer_tau(r, n, max_lag, tau);
    free(r);
    return rc;
}

int stats_quantile_design_effects(const double *xs, size_t n, const double *pcts, size_t np,
                                  size_t min_n, size_t max_lag, double *d)
{
    for (size_t t = 0; t < n; t++)
        if (isnan(xs[t]))
            return STATS_ENAN;
    /* each percentile's 0-based rank (SIZE_MAX: none), as the Lua read it: sorted[max(1,
       nearest_rank(p, n))] (a NaN rank is no larger than 1 there either) */
    size_t *rank = malloc((np ? np : 1) * sizeof *rank);
    uint64_t *want = malloc((np ? np : 1) * sizeof *want);
    double *sel = NULL, *ind = NULL;
    int rc = STATS_ENOMEM;
    if (rank == NULL || want == NULL)
        goto done;
    size_t nw = 0;
    for (size_t j = 0; j < np; j++) {
        double k = nearest_rank(pcts[j], (double)n);
        if (!(k >= 1))
            k = 1;
        rank[j] = k <= (double)n ? (size_t)k - 1 : SIZE_MAX;
        if (rank[j] != SIZE_MAX)
            want[nw++] = rank[j];
    }
    if (n >= min_n && nw > 0) {
        /* the values at those ranks, by selection on a copy (the order of xs is the
           series'); a -0 or +0 picked among equal ones gives the same indicator */
        qsort(want, nw, sizeof *want, cmp_u64);
        size_t u = 0;
        for (size_t j = 0; j < nw; j++)
            if (u == 0 || want[j] != want[u - 1])
                want[u++] = want[j];
        sel = malloc((n ? n : 1) * sizeof *sel);
        ind = malloc((n ? n : 1) * sizeof *ind);
        if (sel == NULL || ind == NULL)
            goto done;
        memcpy(sel, xs, n * sizeof *sel);
        select_ranks(sel, n, want, u);
    }
    for (size_t j = 0; j < np; j++) {
        d[j] = NAN;
        if (rank[j] == SIZE_MAX)
            continue;
        d[j] = 1;
        if (n < min_n)
            continue;
        double v = sel[rank[j]], tau = 0;
        for (size_t t = 0; t < n; t++)
            ind[t] = xs[t] <= v ? 1 : 0;
        int r = stats_value_design_effect(ind, n, max_lag, &tau);
        if (r < 0) {
            rc = r;
            goto done;
        }
        if (r == STATS_OK && tau > 1)
            d[j] = tau;
    }
    rc = STATS_OK;
done:
    free(ind);
    free(sel);
    free(want);
    free(rank);
    return rc;
}

int stats_grid_sorted(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(v[i]) || (i > 0 && v[i] < v[i - 1]))
            return 0;
    return 1;
}

/* The share (%) of grid g at or below x (stats_mix_grids has the rule). */
static double grid_share(const StatsGrid *g, double x)
{
    const double *q = g->q, *v = g->v;
    size_t last = g->n - 1, i = 0;
    if (x < v[0])
        return 0;
    if (g->sorted) {
        size_t j = last;
        while (i < j) {
            size_t m = (i + j + 1) / 2;
            if (v[m] <= x)
                i = m;
            else
                j = m - 1;
        }
    } else {
        while (i < last && v[i + 1] <= x)
            i++;
    }
    if (i == last)
        return q[i];
    return q[i] + (q[i + 1] - q[i]) * (x - v[i]) / (v[i + 1] - v[i]);
}

void stats_mix_grids(const StatsGrid *g, const double *w, size_t k, double lo, double hi,
                     const double *qs, size_t nq, int iters, double tol, double *out,
                     unsigned char *moved)
{
    for (size_t j = 0; j < nq; j++) {
        moved[j] = 0;
        if (!(qs[j] > 0))
            continue;
        double a = lo, b = hi, target = qs[j] - tol;
        for (int it = 0; it < iters; it++) {
            double m = (a + b) / 2, f = 0;
            for (size_t i = 0; i < k; i++)
                f = f + w[i] * grid_share(&g[i], m);
            if (f >= target) {
                b = m;
                moved[j] = 1;
            } else {
                a = m;
            }
        }
        out[j] = b;
    }
}
