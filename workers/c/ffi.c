/* `ffi` (spec/wire.md): `reps` calls into workers/ffi/toll_ffi.c, timed with
   CLOCK_MONOTONIC. "direct" calls the copy compiled into this worker (its
   own translation unit, and noinline, so each is a real call); "dlopen"
   calls through pointers taken from $TOLL_FFI_DIR/libtoll_ffi.so. The
   bytes go "pinned" (the buffer itself) or "copied" (malloc + memcpy each
   call, freed after); C has no "string" way of its own: a C string is
   already a char *. touch "all" calls toll_ffi_sum, "receipt"
   toll_ffi_receipt. pass "callback" calls toll_ffi_callback, which calls
   a plain C function of this worker back n times; it counts them. */
#define _GNU_SOURCE
#include "ffi.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "toll_ffi.h"

typedef uint64_t (*sum_fn)(const uint8_t *, size_t);
typedef void (*callback_fn)(void (*)(void *), void *, uint64_t);

static callback_fn lcallback;

/* The shared library's sum and receipt (and callback), loaded once; 0 when
   it is not there. */
static int load(sum_fn *sum, sum_fn *receipt, char *why, size_t len) {
    static void *lib;
    static sum_fn lsum, lreceipt;
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
        lsum = (sum_fn)dlsym(lib, "toll_ffi_sum");
        lreceipt = (sum_fn)dlsym(lib, "toll_ffi_receipt");
        lcallback = (callback_fn)dlsym(lib, "toll_ffi_callback");
        if (!lsum || !lreceipt || !lcallback) {
            snprintf(why, len, "libtoll_ffi.so lacks toll_ffi_sum, toll_ffi_receipt or toll_ffi_callback");
            lib = NULL;
            return 0;
        }
    }
    *sum = lsum;
    *receipt = lreceipt;
    return 1;
}

void ffi_bindings_json(char *out, size_t len) {
    sum_fn s, r;
    char why[256];
    snprintf(out, len, load(&s, &r, why, sizeof why) ? "[\"direct\",\"dlopen\"]" : "[\"direct\"]");
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* reps calls of f on n bytes: the buffer itself, or (copied) a malloc'd
   copy made each call and freed after. The last return, or ~0 when a copy
   could not be allocated. */
static uint64_t calls(sum_fn f, int copied, const uint8_t *buf, size_t n, long reps) {
    uint64_t last = 0;
    if (!copied) {
        for (long r = 0; r < reps; r++) last = f(buf, n);
        return last;
    }
    for (long r = 0; r < reps; r++) {
        uint8_t *copy = malloc(n ? n : 1);
        if (!copy) return ~(uint64_t)0;
        memcpy(copy, buf, n);
        last = f(copy, n);
        free(copy);
    }
    return last;
}

/* The upcall: counts itself in the uint64_t its context points to. */
static void count_upcall(void *ctx) { ++*(uint64_t *)ctx; }

/* reps calls of cb, each calling back n times: the last call's count. */
static uint64_t callbacks(callback_fn cb, uint64_t n, long reps) {
    uint64_t count = 0;
    for (long r = 0; r < reps; r++) {
        count = 0;
        cb(count_upcall, &count, n);
    }
    return count;
}

void ffi_run(const char *binding, const char *pass, const char *touch, long n, long reps, long seed, char *out,
             size_t len) {
    sum_fn sum = toll_ffi_sum, receipt = toll_ffi_receipt;
    char why[512];
    if (n < 0 || reps < 1 || seed < 0) {
        snprintf(out, len, "{\"ok\":false,\"error\":\"ffi needs n >= 0, reps >= 1 and seed >= 0\"}");
        return;
    }
    if (strcmp(binding, "dlopen") == 0) {
        if (!load(&sum, &receipt, why, sizeof why)) {
            snprintf(out, len, "{\"ok\":false,\"error\":\"dlopen: %s\"}", why);
            return;
        }
    } else if (strcmp(binding, "direct") != 0) {
        snprintf(out, len, "{\"ok\":false,\"error\":\"no binding %s: the c worker has direct, dlopen\"}", binding);
        return;
    }
    if (strcmp(pass, "callback") == 0) {
        callback_fn cb = strcmp(binding, "direct") == 0 ? toll_ffi_callback : lcallback;
        uint64_t t0 = now_ns(), count = callbacks(cb, (uint64_t)n, reps), t1 = now_ns();
        snprintf(out, len,
                 "{\"ok\":true,\"event\":\"done\",\"binding\":\"%s\",\"n\":%ld,\"reps\":%ld,\"ns\":%llu,\"count\":%llu}",
                 binding, n, reps, (unsigned long long)(t1 - t0), (unsigned long long)count);
        return;
    }
    int copied = strcmp(pass, "copied") == 0, all = strcmp(touch, "all") == 0;
    if ((!copied && strcmp(pass, "pinned") != 0) || (!all && strcmp(touch, "receipt") != 0)) {
        snprintf(out, len,
                 "{\"ok\":false,\"error\":\"the c worker passes pinned or copied (a C string is already a char *) "
                 "or calls back, and touches all or receipt, not %s and %s\"}",
                 pass, touch);
        return;
    }
    uint8_t *buf = malloc(n ? (size_t)n : 1);
    if (!buf) {
        snprintf(out, len, "{\"ok\":false,\"limit\":true,\"error\":\"cannot allocate %ld bytes\"}", n);
        return;
    }
    for (long i = 0; i < n; i++) buf[i] = (uint8_t)((uint64_t)seed + 131u * (uint64_t)i);
    /* "direct" calls through a pointer to the function compiled in here,
       which the compiler resolves to a plain call (toll_ffi.c is another
       translation unit, its functions noinline); "dlopen" through the
       pointer dlsym gave. One call shape at every n, 0 included. */
    sum_fn f = all ? sum : receipt;
    int direct = strcmp(binding, "direct") == 0;
    uint64_t last, t0 = now_ns();
    if (direct)
        last = all ? calls(toll_ffi_sum, copied, buf, (size_t)n, reps)
                   : calls(toll_ffi_receipt, copied, buf, (size_t)n, reps);
    else
        last = calls(f, copied, buf, (size_t)n, reps);
    uint64_t t1 = now_ns();
    free(buf);
    if (copied && last == ~(uint64_t)0) {
        snprintf(out, len, "{\"ok\":false,\"limit\":true,\"error\":\"cannot allocate a copy of %ld bytes\"}", n);
        return;
    }
    snprintf(out, len, "{\"ok\":true,\"event\":\"done\",\"binding\":\"%s\",\"n\":%ld,\"reps\":%ld,\"ns\":%llu,\"%s\":%llu}",
             binding, n, reps, (unsigned long long)(t1 - t0), all ? "sum" : "receipt", (unsigned long long)last);
}
