/* `ffi` (spec/wire.md): calls into workers/ffi/toll_ffi.c, timed. */
#ifndef TOLL_WORKER_FFI_H
#define TOLL_WORKER_FFI_H

#include <stddef.h>

/* The bindings this worker can call now: "direct" always, "dlopen" when
   $TOLL_FFI_DIR holds libtoll_ffi.so. */
void ffi_bindings_json(char *out, size_t len);

/* One `ffi` command: fills `out` with the answer line's JSON. pass is
   "pinned" or "copied", touch "all" or "receipt". */
void ffi_run(const char *binding, const char *pass, const char *touch, long n, long reps, long seed, char *out,
             size_t len);

#endif
