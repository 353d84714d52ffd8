/* bench-exec's stamping program: writes the CLOCK_MONOTONIC time at which
 * main() began and the time just before it ends, one line per run, to the
 * file named by its first argument (O_APPEND, one write), after sleeping
 * the microseconds given by its second (0: none, a `true`). The gap from
 * one run's end stamp to the next run's start stamp is everything the
 * timing tool does between two runs, plus the exit and the next exec,
 * which every tool pays alike: bench-exec compares the gaps of toll and
 * hyperfine, measured run by run instead of inferred from whole wall
 * times. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
    long long start = now_ns();
    if (argc < 3)
        return 2;
    long us = atol(argv[2]);
    if (us > 0) {
        struct timespec d = {us / 1000000, (us % 1000000) * 1000};
        nanosleep(&d, NULL);
    }
    char line[64];
    int fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0)
        return 1;
    long long end = now_ns();
    int n = snprintf(line, sizeof line, "%lld %lld\n", start, end);
    if (write(fd, line, n) != n)
        return 1;
    return 0;
}
