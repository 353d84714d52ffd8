/* The reference for `toll ffi`'s dlopen call at n = 0: a plain C loop
   calling toll_ffi_sum(buf, 0) — a sum of no bytes, the call toll's C worker
   makes at n = 0 — through the pointer dlsym gives, nothing else.

   usage: ffi_loop LIB --trials T [--batch-ms MS] [--warmup-ms MS]
   prints: {"lib":"LIB","per_call_ns":[t1,...]}
   build: cc -O2 ffi_loop.c -o ffi_loop -ldl
   LIB is the libtoll_ffi.so toll built (workers/ffi/toll_ffi.c), loaded
   with dlopen(RTLD_NOW | RTLD_LOCAL) as toll's C worker loads it. After a
   warm-up (--warmup-ms, default 100), each of T trials times one batch of
   K calls with CLOCK_MONOTONIC, K chosen in the warm-up so a batch lasts
   about --batch-ms (default 10): toll ffi's own defaults. The loop is the
   C worker's (workers/c/ffi.c): the pointer in a local, called K times;
   the compiler cannot see into a function dlsym found, so it keeps each
   call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

typedef unsigned long long (*sum_fn)(const unsigned char *, size_t);

static unsigned char buf[1];
static volatile unsigned long long last;

/* K calls through the pointer, each return kept as the worker keeps it. */
static void calls(sum_fn f, long k) {
    unsigned long long s = 0;
    for (long i = 0; i < k; i++) s = f(buf, 0);
    last = s;
}

int main(int argc, char **argv) {
    long trials = 10;
    double batch_ms = 10, warmup_ms = 100;
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: ffi_loop LIB --trials T [--batch-ms MS] [--warmup-ms MS]\n");
        return 2;
    }
    const char *path = argv[1];
    for (int i = 2; i < argc; i += 2) {
        if (i + 1 == argc) { fprintf(stderr, "ffi_loop: %s needs a value\n", argv[i]); return 2; }
        if (!strcmp(argv[i], "--trials")) trials = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch-ms")) batch_ms = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--warmup-ms")) warmup_ms = atof(argv[i + 1]);
        else { fprintf(stderr, "ffi_loop: unknown option %s\n", argv[i]); return 2; }
    }
    if (trials < 1 || batch_ms <= 0 || warmup_ms < 0) {
        fprintf(stderr, "ffi_loop: --trials >= 1, --batch-ms > 0, --warmup-ms >= 0\n");
        return 2;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "ffi_loop: %s\n", dlerror()); return 1; }
    sum_fn f = (sum_fn)dlsym(lib, "toll_ffi_sum");
    if (!f) { fprintf(stderr, "ffi_loop: %s lacks toll_ffi_sum\n", path); return 1; }

    /* Warm-up, doubling K until the warm-up time is spent; K is then the
       count that lasts about one batch. */
    long k = 1, done = 0;
    double start = now_ns();
    do {
        double t0 = now_ns();
        calls(f, k);
        double one = (now_ns() - t0) / k;
        done += k;
        long want = one > 0 ? (long)(batch_ms * 1e6 / one) : k * 2;
        k = want < 1 ? 1 : (want > k * 2 ? k * 2 : want);
    } while (now_ns() - start < warmup_ms * 1e6 || done < 2);
    printf("{\"lib\":\"%s\",\"per_call_ns\":[", path);
    for (long t = 0; t < trials; t++) {
        double t0 = now_ns();
        calls(f, k);
        printf("%s%.4f", t ? "," : "", (now_ns() - t0) / k);
    }
    printf("]}\n");
    return 0;
}
