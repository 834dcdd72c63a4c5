/* The floor for `make bench`: read() whole files into a page-aligned buffer. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: readfloor FILE...\n");
        return 2;
    }
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, 1 << 20) != 0)
        return 1;
    unsigned long long total = 0, x = 0;
    for (int i = 1; i < argc; i++) {
        int fd = open(argv[i], O_RDONLY);
        if (fd < 0) {
            perror(argv[i]);
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
    printf("%llu %llu\n", total, x);
    free(buf);
    return 0;
}
