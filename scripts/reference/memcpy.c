/* The reference for the shared-memory link's per-byte cost: memcpy alone.
   For each size, copies one buffer of N bytes into another, again and
   again, on one core; nothing else. Both buffers are reused, as toll's
   shared region is, so a message that fits in the cache stays there.

   usage: memcpy --bytes N[,N...] --trials T [--batch-ms MS] [--warmup-ms MS] [--pin same|none]
                 [--op copy|copy+sum] [--ring BYTES]
   prints: {"pin":..,"cpu":C,"op":..,"bytes":[N,...],"per_copy_ns":[[t1,...],...],"ns_per_byte":[...]}
   build: cc -O2 -I workers/c memcpy.c workers/c/wire.c
   --op copy+sum: each copy is followed by the C worker's own exact sum of
   the copy's int32 items (wire.c's sum_items), which is what one crossing
   of the shared-memory ring must do at least: the sender's copy into the
   ring, then the peer's read of every item where it lies.
   --ring BYTES: each copy lands where the last one ended in a destination
   of BYTES (split where it wraps; a copy longer than BYTES streams
   through it piece by piece, each piece summed with copy+sum before the
   next is copied), as consecutive frames do in
   toll's shared-memory ring (1 MiB: 1048576), instead of at its start: the
   same work over the ring's whole footprint rather than one message's.
   --pin same (the default): on the first CPU this process may run on, the
   CPU `toll transfer --pin same` puts both its ends on; none: left to the
   scheduler. Per size, after a warm-up (--warmup-ms, default 100), each of
   T trials times one batch of K copies with CLOCK_MONOTONIC, K chosen in
   the warm-up so a batch lasts about --batch-ms (default 10): toll
   transfer's own defaults. ns_per_byte is each size's median per copy over
   N (0 for N = 0); the slope across sizes is the caller's to fit. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "wire.h"

#define MOST_SIZES 256

static void die(const char *what) {
    perror(what);
    exit(1);
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int first_cpu(void) {
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) die("sched_getaffinity");
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed)) {
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            if (sched_setaffinity(0, sizeof one, &one) < 0) die("sched_setaffinity");
            return c;
        }
    return -1;
}

/* K copies of n bytes. The empty asm says dst was read and memory changed,
   so the compiler can neither drop a copy nor merge two. */
static void copies(char *dst, const char *src, size_t n, long k) {
    for (long i = 0; i < k; i++) {
        memcpy(dst, src, n);
        __asm__ volatile("" : : "r"(dst), "r"(src) : "memory");
    }
}

/* --ring: the destination's size (0: each copy at its start) and where
   the next copy lands in it. */
static size_t ring_bytes, ring_at;

/* One copy of n bytes into the ring, from where the last one ended, in
   pieces that stop where the ring wraps (a copy longer than the ring
   streams through it, as a large message does through toll's); with `sum`,
   each piece is then summed where it lies, as the peer sums what it is
   handed; the sum is returned. */
static int64_t ring_copy(char *dst, const char *src, size_t n, int sum) {
    int64_t total = 0;
    for (size_t done = 0; done < n;) {
        size_t piece = n - done < ring_bytes - ring_at ? n - done : ring_bytes - ring_at;
        memcpy(dst + ring_at, src + done, piece);
        __asm__ volatile("" : : "r"(dst), "r"(src) : "memory");
        if (sum) total += sum_items((const uint8_t *)dst + ring_at, piece / 4);
        done += piece;
        ring_at = (ring_at + piece) % ring_bytes;
    }
    return total;
}

static void ring_copies(char *dst, const char *src, size_t n, long k) {
    for (long i = 0; i < k; i++) ring_copy(dst, src, n, 0);
}

/* As ring_copies, each copy then summed where it lies; the sums go to
   `sink`. */
static volatile int64_t sink;
static void ring_copies_summed(char *dst, const char *src, size_t n, long k) {
    int64_t total = 0;
    for (long i = 0; i < k; i++) total += ring_copy(dst, src, n, 1);
    sink = total;
}

/* The same at dst's start every time. */
static void copies_summed(char *dst, const char *src, size_t n, long k) {
    int64_t total = 0;
    for (long i = 0; i < k; i++) {
        memcpy(dst, src, n);
        __asm__ volatile("" : : "r"(dst), "r"(src) : "memory");
        total += sum_items((const uint8_t *)dst, n / 4);
    }
    sink = total;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long sizes[MOST_SIZES], n_sizes = 0, trials = 10;
    double batch_ms = 10, warmup_ms = 100;
    const char *pin = "same", *op = "copy";
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 == argc) { fprintf(stderr, "memcpy: %s needs a value\n", argv[i]); return 2; }
        if (!strcmp(argv[i], "--bytes")) {
            for (char *s = argv[i + 1], *end; *s; s = *end ? end + 1 : end) {
                if (n_sizes == MOST_SIZES) { fprintf(stderr, "memcpy: at most %d sizes\n", MOST_SIZES); return 2; }
                sizes[n_sizes] = strtol(s, &end, 10);
                if (end == s || sizes[n_sizes] < 0 || (*end && *end != ',')) {
                    fprintf(stderr, "memcpy: --bytes takes byte counts like 0,4000,400000, not %s\n", argv[i + 1]);
                    return 2;
                }
                n_sizes++;
            }
        } else if (!strcmp(argv[i], "--trials")) trials = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch-ms")) batch_ms = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--warmup-ms")) warmup_ms = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--pin")) pin = argv[i + 1];
        else if (!strcmp(argv[i], "--op")) op = argv[i + 1];
        else if (!strcmp(argv[i], "--ring")) ring_bytes = (size_t)atol(argv[i + 1]);
        else { fprintf(stderr, "memcpy: unknown option %s\n", argv[i]); return 2; }
    }
    if (n_sizes == 0 || trials < 1 || batch_ms <= 0 || warmup_ms < 0) {
        fprintf(stderr, "usage: memcpy --bytes N[,N...] --trials T [--batch-ms MS] [--warmup-ms MS] [--pin same|none]\n");
        return 2;
    }
    void (*run)(char *, const char *, size_t, long) = copies;
    if (!strcmp(op, "copy+sum")) run = ring_bytes ? ring_copies_summed : copies_summed;
    else if (!strcmp(op, "copy")) run = ring_bytes ? ring_copies : copies;
    else { fprintf(stderr, "memcpy: --op is copy or copy+sum, not %s\n", op); return 2; }
    int cpu = -1;
    if (!strcmp(pin, "same")) cpu = first_cpu();
    else if (strcmp(pin, "none")) { fprintf(stderr, "memcpy: --pin is same or none, not %s\n", pin); return 2; }

    long most = 1;
    for (long s = 0; s < n_sizes; s++)
        if (sizes[s] > most) most = sizes[s];
    char *src = aligned_alloc(4096, (most + 4095) / 4096 * 4096);
    if (ring_bytes % 4) {
        fprintf(stderr, "memcpy: --ring %zu must be a multiple of 4 (whole items)\n", ring_bytes);
        return 2;
    }
    size_t dst_bytes = ring_bytes ? ring_bytes : (size_t)most;
    char *dst = aligned_alloc(4096, (dst_bytes + 4095) / 4096 * 4096);
    double *times = malloc(trials * sizeof *times);
    if (!src || !dst || !times) die("aligned_alloc");
    for (long i = 0; i + 4 <= most; i += 4) { int32_t v = 123; memcpy(src + i, &v, 4); }
    memset(dst, 0, dst_bytes); /* touched, so no first-copy page faults are timed */

    printf("{\"pin\":\"%s\",\"cpu\":%d,\"op\":\"%s\",\"ring\":%zu,\"bytes\":[", pin, cpu, op, ring_bytes);
    for (long s = 0; s < n_sizes; s++) printf("%s%ld", s ? "," : "", sizes[s]);
    printf("],\"per_copy_ns\":[");
    double *medians = malloc(n_sizes * sizeof *medians);
    for (long s = 0; s < n_sizes; s++) {
        size_t n = (size_t)sizes[s];
        /* Warm-up, doubling K until the warm-up time is spent; K is then
           the count that lasts about one batch. */
        long k = 1, done = 0;
        double start = now_ns(), spent;
        do {
            double t0 = now_ns();
            run(dst, src, n, k);
            double one = (now_ns() - t0) / k;
            done += k;
            long want = one > 0 ? (long)(batch_ms * 1e6 / one) : k * 2;
            k = want < 1 ? 1 : (want > k * 2 ? k * 2 : want);
            spent = now_ns() - start;
        } while (spent < warmup_ms * 1e6 || done < 2);
        printf("%s[", s ? "," : "");
        for (long t = 0; t < trials; t++) {
            double t0 = now_ns();
            run(dst, src, n, k);
            times[t] = (now_ns() - t0) / k;
            printf("%s%.3f", t ? "," : "", times[t]);
        }
        printf("]");
        qsort(times, trials, sizeof *times, by_value);
        medians[s] = trials % 2 ? times[trials / 2] : (times[trials / 2 - 1] + times[trials / 2]) / 2;
    }
    printf("],\"ns_per_byte\":[");
    for (long s = 0; s < n_sizes; s++)
        printf("%s%.6f", s ? "," : "", sizes[s] ? medians[s] / sizes[s] : 0.0);
    printf("]}\n");
    return 0;
}
