/*
** The floor for `make bench`: read() whole files into a page-aligned buffer.
**
**   readfloor FILE...            reads them, prints bytes and a checksum (JSON)
**   readfloor --drop FILE...     first drops each file's pages from the page cache
**                                (posix_fadvise DONTNEED), so the read brings it back
**                                as a file read from disk
**   readfloor --rewrite SRC DST  copies SRC to DST in 8 KiB writes, as a program that
**                                writes its results a piece at a time leaves it cached
**
** How a file came into the page cache changes what mapping it costs: read back from
** disk, the kernel keeps it in large folios (a few map calls per MB); written 8 KiB at
** a time and still cached, in 4 KiB pages (one each). `make bench` measures both.
*/
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    if (argc == 4 && strcmp(argv[1], "--rewrite") == 0)
        return rewrite(argv[2], argv[3]);
    if (argc > 1 && strcmp(argv[1], "--drop") == 0)
        drop = 1, first = 2;
    if (argc <= first) {
        fprintf(stderr, "usage: readfloor [--drop] FILE... | readfloor --rewrite SRC DST\n");
        return 2;
    }
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, 1 << 20) != 0)
        return 1;
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
        }
        close(fd);
        if (r < 0)
            return 1;
    }
    printf("{\"bytes\":%llu,\"sum\":%llu}\n", total, x);
    free(buf);
    return 0;
}
