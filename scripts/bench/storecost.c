/*
** What an exact reader of number-dense files must pay beside read(), measured apart
** (issue 20): keeping 8 B a sample in several kinds of memory, finding the separators,
** and reading the digits of CSV floats with SIMD but without correct rounding. `make
** bench` runs `storecost simd` on csv_floats as a third floor ("parse" in results.jsonl).
**
**   storecost MODE N FILE   read() FILE into one reused 1 MiB buffer and, in step with
**                           the bytes read, write N doubles (8 B a sample) into an array:
**     read      no array: read() alone (the floor)
**     grow      malloc'd array, doubled with realloc as it fills (a plain exact tool)
**     huge      one anonymous mapping of N doubles, madvise(MADV_HUGEPAGE) (stats.c's way)
**     small     the same mapping, MADV_NOHUGEPAGE: a fault per 4 KiB page
**     prefault  the same mapping, MAP_POPULATE: faulted before the clock starts
**     seps      huge, and each buffer passed over 32 bytes at a time (AVX2) counting the
**               separators (',' and newline): the least any parser must do beside read()
**               and the stores, to find where the numbers are
**     naive     huge, and a CSV parse with no rounding at all: per byte, digits into a
**               64-bit integer, and at each separator of the first 3 columns the integer
**               stored as a double (not the value: the cheapest scalar touch of each digit)
**     simd      huge, and a CSV parse as a SIMD parser does it, without correct rounding:
**               separators found 64 bytes at a time (AVX2 masks), and each number of the
**               first 3 columns read 16 digits at a time (SSSE3 multiply-adds) into an
**               integer part and a fraction, stored as ip + frac * 10^-k in one multiply
**               (not always the nearest double: an exact parser does at least this much)
** (naive and simd take N only as the size of the array: they store what they find.)
** Prints one JSON line: mode, bytes read, samples stored, a checksum (no store is dead),
** and the wall-clock, user and sys seconds of the read loop (STORECOST_SUM=1: the sum of
** the samples on stderr, for a check by hand against numpy).
** By hand: cc -O2 -o storecost scripts/bench/storecost.c; storecost MODE N FILE
*/
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double tv(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

/* the separators (',' and newline) in b[0..n), 32 bytes at a time */
__attribute__((target("avx2,popcnt"))) static size_t seps(const char *b, size_t n)
{
    const __m256i comma = _mm256_set1_epi8(','), nl = _mm256_set1_epi8('\n');
    size_t c = 0, i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(b + i));
        __m256i m = _mm256_or_si256(_mm256_cmpeq_epi8(x, comma), _mm256_cmpeq_epi8(x, nl));
        c += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(m));
    }
    for (; i < n; i++)
        c += b[i] == ',' || b[i] == '\n';
    return c;
}

/* 16 bytes right-aligned: the first k bytes of s moved to the end of 16, zeros before */
static unsigned char ralign[17][16];

__attribute__((target("avx2,bmi,popcnt"))) static unsigned long long digits16(const char *s, int k)
{
    /* (callers keep 16 bytes readable from s) */
    __m128i x = _mm_loadu_si128((const __m128i *)s);
    x = _mm_shuffle_epi8(_mm_sub_epi8(x, _mm_set1_epi8('0')), _mm_loadu_si128((const __m128i *)ralign[k]));
    x = _mm_maddubs_epi16(x, _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1));
    x = _mm_madd_epi16(x, _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
    x = _mm_packus_epi32(x, x);
    x = _mm_madd_epi16(x, _mm_setr_epi16(10000, 1, 10000, 1, 10000, 1, 10000, 1));
    unsigned long long hi = (unsigned)_mm_cvtsi128_si32(x), lo = (unsigned)_mm_extract_epi32(x, 1);
    return hi * 100000000ull + lo;
}

static const double negpow[17] = {1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8,
                                  1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16};

/* simd: the numbers of the first 3 columns in complete rows b[0..n) into v; the column
   and the start of the row's field carried in *col (b starts at a row) */
__attribute__((target("avx2,bmi,popcnt"))) static size_t simd_rows(const char *b, size_t n, double *v,
                                                                 size_t w, size_t cap)
{
    const __m256i comma = _mm256_set1_epi8(','), nl = _mm256_set1_epi8('\n'),
                  dot = _mm256_set1_epi8('.');
    int col = 0;
    size_t start = 0, dotat = SIZE_MAX;
    for (size_t i = 0; i < n; i += 64) { /* (b has 64 readable bytes past n) */
        __m256i a = _mm256_loadu_si256((const __m256i *)(b + i)),
                c = _mm256_loadu_si256((const __m256i *)(b + i + 32));
        unsigned long long sep =
            (unsigned)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(a, comma), _mm256_cmpeq_epi8(a, nl))) |
            (unsigned long long)(unsigned)_mm256_movemask_epi8(
                _mm256_or_si256(_mm256_cmpeq_epi8(c, comma), _mm256_cmpeq_epi8(c, nl)))
                << 32;
        if (n - i < 64)
            sep &= (1ull << (n - i)) - 1;
        unsigned long long dots = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, dot)) |
                                  (unsigned long long)(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(c, dot))
                                      << 32;
        while (sep) {
            size_t end = i + (size_t)__builtin_ctzll(sep);
            /* the dot before this separator, if any, in this block or the last one */
            unsigned long long before = dots & ((1ull << (end - i)) - 1);
            if (before)
                dotat = i + 63 - (size_t)__builtin_clzll(before);
            if ((unsigned)col < 3 && w < cap) {
                double x;
                if (dotat != SIZE_MAX && dotat > start && dotat < end) {
                    int il = (int)(dotat - start), fl = (int)(end - dotat - 1);
                    if (il > 16)
                        il = 16;
                    if (fl > 16)
                        fl = 16;
                    x = (double)digits16(b + start, il) + (double)digits16(b + dotat + 1, fl) * negpow[fl];
                } else {
                    int il = (int)(end - start);
                    x = (double)digits16(b + start, il > 16 ? 16 : il);
                }
                v[w++] = x;
            }
            col = b[end] == '\n' ? 0 : col + 1;
            start = end + 1;
            sep &= sep - 1;
        }
        if (dots) /* (for a field that ends in the next block) */
            dotat = i + 63 - (size_t)__builtin_clzll(dots);
    }
    return w;
}

/* naive: the state of the scalar parse across buffers */
struct naive {
    unsigned long long m;
    int col;
    size_t w;
};

static void naive(struct naive *st, const char *b, size_t n, double *v, size_t cap)
{
    unsigned long long m = st->m;
    int col = st->col;
    size_t w = st->w;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned char)b[i] - '0';
        if (d < 10) {
            m = m * 10 + d;
        } else if (b[i] == ',' || b[i] == '\n') {
            if ((unsigned)col < 3 && w < cap)
                v[w++] = (double)m;
            col = b[i] == '\n' ? 0 : col + 1;
            m = 0;
        }
    }
    st->m = m, st->col = col, st->w = w;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: storecost read|grow|huge|small|prefault|seps|naive|simd N FILE\n");
        return 2;
    }
    const char *mode = argv[1];
    char *e;
    size_t n = strtoull(argv[2], &e, 10);
    if (e == argv[2] || *e != '\0' || n > ((size_t)1 << 40)) {
        fprintf(stderr, "storecost: N '%s': expected a count of samples\n", argv[2]);
        return 2;
    }
    struct stat st;
    if (stat(argv[3], &st) != 0) {
        perror(argv[3]);
        return 1;
    }
    double all = (double)st.st_size;
    char *buf = aligned_alloc(4096, (1 << 20) + 8192); /* (a row carried over, 64 B read past) */
    double *v = NULL;
    size_t cap = 0, len = (n * sizeof(double) + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
    int grow = strcmp(mode, "grow") == 0;
    int sep = !strcmp(mode, "seps"), nai = !strcmp(mode, "naive"), sim = !strcmp(mode, "simd");
    if ((sep || sim) && !__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "storecost: mode %s needs AVX2, which this CPU does not have\n", mode);
        return 2;
    }
    for (int k = 0; k <= 16; k++)
        for (int j = 0; j < 16; j++)
            ralign[k][j] = j >= 16 - k ? (unsigned char)(j - (16 - k)) : 0x80;
    if (sep || nai || sim || !strcmp(mode, "huge") || !strcmp(mode, "small") || !strcmp(mode, "prefault")) {
        int fl = MAP_PRIVATE | MAP_ANONYMOUS | (!strcmp(mode, "prefault") ? MAP_POPULATE : 0);
        v = mmap(NULL, len, PROT_READ | PROT_WRITE, fl, -1, 0);
        if (v == MAP_FAILED)
            return 1;
        (void)madvise(v, len, !strcmp(mode, "small") ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
        cap = n;
    } else if (!grow && strcmp(mode, "read") != 0) {
        fprintf(stderr, "storecost: unknown mode %s\n", mode);
        return 2;
    }
    if (strcmp(mode, "read") == 0)
        n = 0;
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    double t0 = now();
    int fd = open(argv[3], O_RDONLY);
    if (fd < 0)
        return 1;
    size_t total = 0, w = 0;
    unsigned long long x = 0;
    struct naive ns = {0, -100, 0}; /* (the header row: col < 0, never stored) */
    ssize_t r;
    size_t carry = 0;
    while ((r = read(fd, buf + carry, 1 << 20)) > 0) {
        total += (size_t)r;
        x += (unsigned char)buf[r - 1];
        if (sep)
            x += seps(buf, (size_t)r);
        if (sim) { /* the complete rows; the rest moved to the front for the next read */
            size_t have = carry + (size_t)r, from = 0, cut = have;
            while (cut > 0 && buf[cut - 1] != '\n')
                cut--;
            if (total == (size_t)r) /* (the header row) */
                while (from < cut && buf[from++] != '\n')
                    ;
            ns.w = simd_rows(buf + from, cut - from, v, ns.w, cap);
            memmove(buf, buf + cut, have - cut);
            carry = have - cut;
            continue;
        }
        if (nai) { /* its own stores, not the proportional ones below */
            naive(&ns, buf, (size_t)r, v, cap);
            continue;
        }
        size_t upto = total >= (size_t)all ? n : (size_t)((double)n * (double)total / all);
        if (grow && upto > cap) {
            size_t nc = cap ? cap : 4096;
            while (nc < upto)
                nc *= 2;
            double *nv = realloc(v, nc * sizeof *v);
            if (!nv)
                return 1;
            v = nv, cap = nc;
        }
        for (; w < upto; w++)
            v[w] = (double)w;
    }
    close(fd);
    if (sim && carry > 0) { /* a last row with no newline */
        buf[carry] = '\n';
        ns.w = simd_rows(buf, carry + 1, v, ns.w, cap);
    }
    double t1 = now();
    getrusage(RUSAGE_SELF, &r1);
    if (nai || sim)
        n = ns.w;
    if (getenv("STORECOST_SUM") != NULL && v != NULL) { /* a check by hand: the values' sum */
        double sum = 0;
        for (size_t k = 0; k < n; k++)
            sum += v[k];
        fprintf(stderr, "storecost: sum of %zu samples %.17g\n", n, sum);
    }
    if (n)
        x += (unsigned long long)v[n - 1] + (unsigned long long)v[n / 2];
    printf("{\"mode\":\"%s\",\"bytes\":%zu,\"samples\":%zu,\"sum\":%llu,\"wall\":%.6f,\"user\":%.6f,"
           "\"sys\":%.6f}\n",
           mode, total, n, x, t1 - t0, tv(r1.ru_utime) - tv(r0.ru_utime), tv(r1.ru_stime) - tv(r0.ru_stime));
    if (grow)
        free(v);
    else if (v != NULL)
        (void)munmap(v, len);
    free(buf);
    return 0;
}
