/* The C side of every `toll ffi` binding: a null call, a byte sum and a
   receipt that the compiler can neither inline into a caller nor elide. noinline keeps each a
   real call even where the caller is in the same translation unit or LTO
   sees both; the empty asm with a memory clobber is a side effect the
   optimiser must keep, so the null call is not folded away; the sum adds
   every byte into the total it returns, so none can be skipped; the receipt
   reads three bytes whatever n is, so a call's cost per byte is the
   crossing's own (a copy, an encoding), not a loop's on the C side; the
   callback calls the language back n times, so a call's cost per upcall
   is the upcall's own. */
#include "toll_ffi.h"

__attribute__((noinline, visibility("default"))) void toll_ffi_null(void) {
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline, visibility("default"))) uint64_t toll_ffi_sum(const uint8_t *p, size_t n) {
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) s += p[i];
    __asm__ volatile("" ::: "memory");
    return s;
}

__attribute__((noinline, visibility("default"))) uint64_t toll_ffi_receipt(const uint8_t *p, size_t n) {
    __asm__ volatile("" ::: "memory");
    if (n == 0) return 0;
    return ((uint64_t)n << 24) | ((uint64_t)p[0] << 16) | ((uint64_t)p[n / 2] << 8) | (uint64_t)p[n - 1];
}

__attribute__((noinline, visibility("default"))) void toll_ffi_callback(void (*f)(void *), void *ctx, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        f(ctx);
        __asm__ volatile("" ::: "memory");
    }
}
