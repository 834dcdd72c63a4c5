/* The floor for `make bench`: read() a whole file into a page-aligned buffer. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: readfloor FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    void *buf = NULL;
    if (fd < 0 || posix_memalign(&buf, 4096, 1 << 20) != 0) {
        perror(argv[1]);
        return 1;
    }
    unsigned long long total = 0, x = 0;
    ssize_t r;
    while ((r = read(fd, buf, 1 << 20)) > 0) {
        total += (unsigned long long)r;
        x += ((unsigned char *)buf)[r - 1]; /* touch the data */
    }
    printf("%llu %llu\n", total, x);
    close(fd);
    free(buf);
    return r < 0;
}
