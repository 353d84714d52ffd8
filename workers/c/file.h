/* file (spec/wire.md) for the C worker: pread and mmap, the floor for the
   native methods. */
#ifndef TOLL_FILE_H
#define TOLL_FILE_H
#include <stddef.h>

#define FILE_METHODS_JSON "[\"pread\",\"mmap\"]"

/* One trial: `reads` reads of `path` by `method`, the lengths taken in turn
   from lens[0..nlens), sequential from offset 0 (`random` = 0) or at the
   little-endian uint64 offsets in the file `offsets` (`random` = 1). Writes
   the one-line JSON answer (without the newline) to `out`; returns 0, or -1
   when the answer is an error. */
int file_run(const char *method, const char *path, int random, const long *lens, int nlens, long reads,
             const char *offsets, char *out, size_t len);
#endif
