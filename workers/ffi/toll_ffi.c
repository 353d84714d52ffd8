/* The C side of every `toll ffi` binding: a null call and a byte sum that the
   compiler can neither inline into a caller nor elide. noinline keeps each a
   real call even where the caller is in the same translation unit or LTO
   sees both; the empty asm with a memory clobber is a side effect the
   optimiser must keep, so the null call is not folded away; the sum adds
   every byte into the total it returns, so none can be skipped. */
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
