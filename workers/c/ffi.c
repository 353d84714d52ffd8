/* `ffi` (spec/wire.md): `reps` calls into workers/ffi/toll_ffi.c, timed with
   CLOCK_MONOTONIC. "direct" calls the copy compiled into this worker (its
   own translation unit, and noinline, so each is a real call); "dlopen"
   calls through pointers taken from $TOLL_FFI_DIR/libtoll_ffi.so. */
#define _GNU_SOURCE
#include "ffi.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "toll_ffi.h"

typedef void (*null_fn)(void);
typedef uint64_t (*sum_fn)(const uint8_t *, size_t);

/* The shared library's two functions, loaded once; 0 when it is not there. */
static int load(null_fn *null, sum_fn *sum, char *why, size_t len) {
    static void *lib;
    static null_fn lnull;
    static sum_fn lsum;
    if (!lib) {
        const char *dir = getenv("TOLL_FFI_DIR");
        char path[4096];
        if (!dir) {
            snprintf(why, len, "TOLL_FFI_DIR is not set: toll sets it to where it built libtoll_ffi.so");
            return 0;
        }
        snprintf(path, sizeof path, "%s/libtoll_ffi.so", dir);
        lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            snprintf(why, len, "%s", dlerror());
            return 0;
        }
        lnull = (null_fn)dlsym(lib, "toll_ffi_null");
        lsum = (sum_fn)dlsym(lib, "toll_ffi_sum");
        if (!lnull || !lsum) {
            snprintf(why, len, "libtoll_ffi.so lacks toll_ffi_null or toll_ffi_sum");
            lib = NULL;
            return 0;
        }
    }
    *null = lnull;
    *sum = lsum;
    return 1;
}

void ffi_bindings_json(char *out, size_t len) {
    null_fn n;
    sum_fn s;
    char why[256];
    snprintf(out, len, load(&n, &s, why, sizeof why) ? "[\"direct\",\"dlopen\"]" : "[\"direct\"]");
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void ffi_run(const char *binding, long n, long reps, long seed, char *out, size_t len) {
    null_fn null = NULL;
    sum_fn sum = NULL;
    char why[512];
    if (n < 0 || reps < 1 || seed < 0) {
        snprintf(out, len, "{\"ok\":false,\"error\":\"ffi needs n >= 0, reps >= 1 and seed >= 0\"}");
        return;
    }
    if (strcmp(binding, "dlopen") == 0) {
        if (!load(&null, &sum, why, sizeof why)) {
            snprintf(out, len, "{\"ok\":false,\"error\":\"dlopen: %s\"}", why);
            return;
        }
    } else if (strcmp(binding, "direct") != 0) {
        snprintf(out, len, "{\"ok\":false,\"error\":\"no binding %s: the c worker has direct, dlopen\"}", binding);
        return;
    }
    uint8_t *buf = malloc(n ? (size_t)n : 1);
    if (!buf) {
        snprintf(out, len, "{\"ok\":false,\"limit\":true,\"error\":\"cannot allocate %ld bytes\"}", n);
        return;
    }
    for (long i = 0; i < n; i++) buf[i] = (uint8_t)((uint64_t)seed + 131u * (uint64_t)i);
    /* Four loops, so "direct" is a plain call the compiler emits as such
       (toll_ffi.c is another translation unit), and "dlopen" a call through
       the pointer dlsym gave. */
    int direct = strcmp(binding, "direct") == 0;
    uint64_t last = 0, t0 = now_ns();
    /* One call shape at every n, 0 included (a sum of no bytes): the line
       through the sizes is drawn through one kind of call. */
    (void)null;
    if (direct)
        for (long r = 0; r < reps; r++) last = toll_ffi_sum(buf, (size_t)n);
    else
        for (long r = 0; r < reps; r++) last = sum(buf, (size_t)n);
    uint64_t t1 = now_ns();
    free(buf);
    snprintf(out, len, "{\"ok\":true,\"event\":\"done\",\"binding\":\"%s\",\"n\":%ld,\"reps\":%ld,\"ns\":%llu,\"sum\":%llu}",
             binding, n, reps, (unsigned long long)(t1 - t0), (unsigned long long)last);
}
