/* The C side of every `toll ffi` binding (spec/wire.md, `ffi`): one source,
   built once into libtoll_ffi.so and, for the "direct" bindings and Python's
   extension module, compiled in beside the caller. */
#ifndef TOLL_FFI_H
#define TOLL_FFI_H

#include <stddef.h>
#include <stdint.h>

/* The null call: the crossing alone. */
void toll_ffi_null(void);

/* The sum of the n bytes at p, each read: the receiver's proof of receipt. */
uint64_t toll_ffi_sum(const uint8_t *p, size_t n);

/* Proof of receipt at constant cost: 0 for n = 0, else
   n << 24 | p[0] << 16 | p[n / 2] << 8 | p[n - 1]. */
uint64_t toll_ffi_receipt(const uint8_t *p, size_t n);

/* C calling back: f(ctx) n times, one after another. The language's f
   counts its calls; that count, equal to n, is the proof of receipt. */
void toll_ffi_callback(void (*f)(void *), void *ctx, uint64_t n);

#endif
