/* The shared-memory transport of spec/wire.md: two byte rings in one file. */
#ifndef TOLL_SHM_H
#define TOLL_SHM_H

#include "wire.h"

/* Map the harness's file; `in` reads ring 0 (requests), `out` writes ring 1
   (replies). Returns 0, or -1 with a reason in err. */
int shm_connect(const char *path, stream *in, stream *out, char *err, size_t errlen);

/* Unmap what shm_connect mapped. */
void shm_close(stream *in);

#endif
