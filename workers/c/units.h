/* spawn and ring (spec/wire.md) for the C worker. Each writes its one-line
   JSON answer (without the newline) to `out` and returns 0, or -1 when the
   answer is an error. */
#ifndef TOLL_UNITS_H
#define TOLL_UNITS_H
#include <stddef.h>

#define UNITS_JSON "[\"process\",\"thread\"]"

int units_spawn(const char *unit, long n, char *out, size_t len);
int units_ring(const char *unit, long n, long m, char *out, size_t len);
#endif
