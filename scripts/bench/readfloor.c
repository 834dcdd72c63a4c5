/*
** The floor for `make bench`: read() whole files into a page-aligned buffer.
**
**   readfloor FILE...            reads them, prints bytes and a checksum (JSON)
**   readfloor --drop FILE...     first drops each file's pages from the page cache
**                                (posix_fadvise DONTNEED), so the read brings it back
**                                as a file read from disk
**   readfloor --rewrite SRC DST  copies SRC to DST in 8 KiB writes, as a program that
**                                writes its results a piece at a time leaves it cached
**   readfloor --touch N FILE...  reads them as above and, as it goes, writes N doubles
**                                (8 B a sample kept) into fresh memory of its own
**   readfloor --cpu OUT CMD ARG...  runs CMD as it is (its output untouched, its exit
**                                status returned) and writes to OUT its wall-clock and CPU
**                                seconds: "wall cpu user sys"
**
** --cpu is the bench's clock. The shell's `times` counts CPU in clock ticks (10 ms), as
** long as a 50 MB run; wait4() gives the reaped process's rusage, its own reaped children
** included (RUSAGE_BOTH), in microseconds, and the kernel keeps user + sys equal to the
** task's run time, which it counts in nanoseconds (cputime_adjust), so the sum is good to
** the microsecond; only the split between user and sys is sampled at the tick. The wall
** time is CLOCK_MONOTONIC from before the fork to after the reap: no shell or date(1) in it.
**
** The second floor (--touch) is what no exact tool can go below: it must read the bytes
** and keep each sample, and the first write to fresh memory costs a fault (in a VM
** that hands freed memory back to its host, the host backs it again: 1-6 ms a 2 MiB
** page on the bench VM). read() alone writes no fresh memory. The samples go where
** llmdlua keeps a large column (stats.c): an anonymous mapping advised into huge pages,
** written in order, in step with the bytes read.
**
** How a file came into the page cache changes what mapping it costs: read back from
** disk, the kernel keeps it in large folios (a few map calls per MB); written 8 KiB at
** a time and still cached, in 4 KiB pages (one each). `make bench` measures both.
*/
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE, MAP_ANONYMOUS */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

/* --cpu: CMD's wall-clock and CPU seconds into OUT; CMD's exit status (128 + a signal) */
static int clocked(const char *out, char **cmd)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("readfloor: --cpu: fork");
        return 1;
    }
    if (pid == 0) {
        execvp(cmd[0], cmd);
        fprintf(stderr, "readfloor: --cpu: cannot run '%s': %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            perror("readfloor: --cpu: wait4");
            return 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    double user = seconds(ru.ru_utime), sys = seconds(ru.ru_stime);
    FILE *f = fopen(out, "w");
    if (f == NULL || fprintf(f, "%.6f %.6f %.6f %.6f\n", wall, user + sys, user, sys) < 0 ||
        fclose(f) != 0) {
        perror(out);
        return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int rewrite(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0) {
        perror(in < 0 ? src : dst);
        return 1;
    }
    char buf[8192];
    ssize_t r;
    while ((r = read(in, buf, sizeof buf)) > 0) {
        for (ssize_t done = 0; done < r;) {
            ssize_t w = write(out, buf + done, (size_t)(r - done));
            if (w < 0) {
                perror(dst);
                return 1;
            }
            done += w;
        }
    }
    if (r < 0) {
        perror(src);
        return 1;
    }
    close(in);
    if (fsync(out) != 0 || close(out) != 0) { /* written back: no writeback during the runs */
        perror(dst);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int first = 1, drop = 0;
    unsigned long long want = 0; /* --touch: the samples to write */
    if (argc == 4 && strcmp(argv[1], "--rewrite") == 0)
        return rewrite(argv[2], argv[3]);
    if (argc > 3 && strcmp(argv[1], "--cpu") == 0)
        return clocked(argv[2], argv + 3);
    if (argc > 1 && strcmp(argv[1], "--drop") == 0)
        drop = 1, first = 2;
    else if (argc > 2 && strcmp(argv[1], "--touch") == 0) {
        char *end;
        errno = 0;
        want = strtoull(argv[2], &end, 10);
        if (errno != 0 || end == argv[2] || *end != '\0' || argv[2][0] == '-') {
            fprintf(stderr, "readfloor: --touch '%s': expected a count of samples\n", argv[2]);
            return 2;
        }
        first = 3;
    }
    if (argc <= first) {
        fprintf(stderr,
                "usage: readfloor [--drop | --touch N] FILE... | readfloor --rewrite SRC DST"
                " | readfloor --cpu OUT CMD [ARG...]\n");
        return 2;
    }
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, 1 << 20) != 0)
        return 1;
    /* the samples' memory, and the bytes of all files (to write them in step) */
    double *v = NULL;
    size_t vlen = 0;
    unsigned long long all = 0, written = 0;
    if (want > 0) {
        for (int i = first; i < argc; i++) {
            struct stat st;
            if (stat(argv[i], &st) != 0) {
                perror(argv[i]);
                return 1;
            }
            all += (unsigned long long)st.st_size;
        }
        const size_t huge = (size_t)2 << 20;
        if (want > (SIZE_MAX - huge) / sizeof *v) {
            fprintf(stderr, "readfloor: --touch %llu: too many samples\n", want);
            return 2;
        }
        vlen = ((size_t)want * sizeof *v + huge - 1) & ~(huge - 1);
        void *m = mmap(NULL, vlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            perror("readfloor: --touch");
            return 1;
        }
#ifdef MADV_HUGEPAGE
        (void)madvise(m, vlen, MADV_HUGEPAGE); /* as stats.c advises a large column */
#endif
        v = (double *)m;
    }
    unsigned long long total = 0, x = 0;
    for (int i = first; i < argc; i++) {
        int fd = open(argv[i], O_RDONLY);
        if (fd < 0) {
            perror(argv[i]);
            return 1;
        }
        if (drop && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) {
            fprintf(stderr, "%s: cannot drop from the page cache\n", argv[i]);
            return 1;
        }
        ssize_t r;
        while ((r = read(fd, buf, 1 << 20)) > 0) {
            total += (unsigned long long)r;
            x += ((unsigned char *)buf)[r - 1]; /* touch the data */
            if (want > 0) {                     /* the samples these bytes hold, in proportion */
                unsigned long long upto =
                    total >= all ? want
                                 : (unsigned long long)((double)want * (double)total / (double)all);
                for (; written < upto; written++)
                    v[written] = (double)written;
            }
        }
        close(fd);
        if (r < 0)
            return 1;
    }
    for (; written < want; written++) /* (a file that shrank meanwhile) */
        v[written] = (double)written;
    if (want > 0) /* what was written, read back: the stores are not dead */
        x += (unsigned long long)v[want - 1] + (unsigned long long)v[want / 2];
    printf("{\"bytes\":%llu,\"sum\":%llu,\"samples\":%llu}\n", total, x, want);
    if (v != NULL)
        (void)munmap(v, vlen);
    free(buf);
    return 0;
}
