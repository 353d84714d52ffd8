/* file (spec/wire.md) for the C worker: `pread` into a buffer and `mmap`
   (the bytes summed where they lie in the mapping). The file is opened, the
   mapping made and the offsets loaded before the clock starts; every byte
   read is summed (`sum_of` `bytes`), so no read can be skipped. */
#define _GNU_SOURCE
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The sum of n bytes; with SSE2 (every x86-64), psadbw adds 16 at a time. */
static uint64_t sum_bytes(const unsigned char *p, size_t n) {
    uint64_t s = 0;
    size_t i = 0;
#ifdef __SSE2__
    __m128i acc = _mm_setzero_si128(), zero = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16) acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_loadu_si128((const __m128i *)(p + i)), zero));
    uint64_t lanes[2];
    _mm_storeu_si128((__m128i *)lanes, acc);
    s = lanes[0] + lanes[1];
#endif
    for (; i < n; i++) s += p[i];
    return s;
}

/* {"ok":false,"error":"<what>: <detail>"}, quotes and control bytes kept out of the string. */
static int fail(char *out, size_t len, const char *what, const char *detail) {
    char text[400];
    size_t j = 0;
    snprintf(text, sizeof text, "%s: %s", what, detail);
    for (const char *p = text; *p && j + 2 < sizeof text; p++)
        if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20) text[j++] = *p;
    text[j] = 0;
    snprintf(out, len, "{\"ok\":false,\"error\":\"%s\"}", text);
    return -1;
}

/* Read exactly n bytes at off (a regular file gives them in one call unless
   it ends first). */
static int pread_all(int fd, unsigned char *buf, size_t n, off_t off) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, off + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

int file_run(const char *method, const char *path, int random, const long *lens, int nlens, long reads,
             const char *offsets, char *out, size_t len) {
    int use_mmap = strcmp(method, "mmap") == 0;
    if (!use_mmap && strcmp(method, "pread") != 0) {
        snprintf(out, len, "{\"ok\":false,\"error\":\"no method %.32s: the c worker has pread, mmap\"}", method);
        return -1;
    }
    if (nlens < 1 || reads < 0) return fail(out, len, method, "file command lacks lens or reads");
    long max = 0;
    for (int i = 0; i < nlens; i++) {
        if (lens[i] < 1) return fail(out, len, method, "a read length below 1");
        if (lens[i] > max) max = lens[i];
    }
    uint64_t *offs = NULL;
    if (random) {
        FILE *f = fopen(offsets, "rb");
        offs = malloc(sizeof *offs * (size_t)(reads ? reads : 1));
        if (!f || !offs || fread(offs, sizeof *offs, (size_t)reads, f) != (size_t)reads) {
            if (f) fclose(f);
            free(offs);
            return fail(out, len, "cannot read the offsets", offsets);
        }
        fclose(f);
        /* The file is little-endian; so is every machine toll runs on. */
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        free(offs);
        return fail(out, len, path, strerror(errno));
    }
    struct stat st;
    fstat(fd, &st);
    unsigned char *map = NULL, *buf = NULL;
    if (use_mmap) {
        map = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
        if (map == MAP_FAILED) {
            close(fd);
            free(offs);
            return fail(out, len, "mmap", strerror(errno));
        }
    } else {
        buf = malloc((size_t)max);
    }
    uint64_t sum = 0, bytes = 0, pos = 0;
    int bad = 0;
    uint64_t t0 = now_ns();
    for (long i = 0; i < reads && !bad; i++) {
        size_t n = (size_t)lens[i % nlens];
        uint64_t off = random ? offs[i] : pos;
        if (off + n > (uint64_t)st.st_size) {
            bad = 1;
        } else if (use_mmap) {
            sum += sum_bytes(map + off, n);
        } else if (pread_all(fd, buf, n, (off_t)off) < 0) {
            bad = 1;
        } else {
            sum += sum_bytes(buf, n);
        }
        pos += n;
        bytes += n;
    }
    uint64_t ns = now_ns() - t0;
    if (map) munmap(map, (size_t)st.st_size);
    free(buf);
    free(offs);
    close(fd);
    if (bad) return fail(out, len, method, "a read passed the end of the file");
    snprintf(out, len,
             "{\"ok\":true,\"event\":\"done\",\"method\":\"%s\",\"reads\":%ld,\"bytes\":%llu,\"sum\":%llu,"
             "\"sum_of\":\"bytes\",\"ns\":%llu}",
             method, reads, (unsigned long long)bytes, (unsigned long long)sum, (unsigned long long)(ns ? ns : 1));
    return 0;
}
