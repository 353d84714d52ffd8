/* Single-producer single-consumer byte rings in a shared file; a blocked side
   sleeps on a futex (or spins, in mode 1). The layout is spec/wire.md's. */
#define _GNU_SOURCE
#include "shm.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DATA_OFFSET 4096
#define SPINS_PER_CHECK (1u << 20)

typedef struct {
    uint8_t *base;
    size_t len, capacity;
    int spin;
    pid_t parent;
} region;

typedef struct {
    region *reg;
    int index;
} ring;

/* One mapped file and its two rings; `reg` first, so a ring finds its mapping. */
typedef struct {
    region reg;
    ring rings[2];
} mapping;

static _Atomic uint64_t *u64_at(ring *r, size_t off) {
    return (_Atomic uint64_t *)(r->reg->base + 64 + 256 * r->index + off);
}
static _Atomic uint32_t *u32_at(ring *r, size_t off) {
    return (_Atomic uint32_t *)(r->reg->base + 64 + 256 * r->index + off);
}
#define WRITE_POS(r) u64_at(r, 0)
#define READ_POS(r) u64_at(r, 64)
#define DATA_SEQ(r) u32_at(r, 128)
#define READER_WAITING(r) u32_at(r, 132)
#define SPACE_SEQ(r) u32_at(r, 192)
#define WRITER_WAITING(r) u32_at(r, 196)

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static uint8_t *data(ring *r) { return r->reg->base + DATA_OFFSET + r->reg->capacity * r->index; }

static void futex_wake(_Atomic uint32_t *word) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static int partner_alive(ring *r) { return getppid() == r->reg->parent; }

/* Block until *pos differs from seen_pos; -1 when the harness is gone. */
static int wait_moved(ring *r, _Atomic uint32_t *word, _Atomic uint32_t *waiting, _Atomic uint64_t *pos,
                      uint64_t seen_pos) {
    if (r->reg->spin) {
        for (uint32_t spins = 1; atomic_load(pos) == seen_pos; spins++) {
            cpu_relax();
            if (spins % SPINS_PER_CHECK == 0 && !partner_alive(r)) return -1;
        }
        return 0;
    }
    uint32_t seen = atomic_load(word);
    atomic_store(waiting, 1);
    if (atomic_load(pos) != seen_pos) {
        atomic_store(waiting, 0);
        return 0;
    }
    struct timespec timeout = {0, 100 * 1000 * 1000};
    long rc = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, &timeout, NULL, 0);
    atomic_store(waiting, 0);
    if (rc < 0 && errno == ETIMEDOUT && atomic_load(pos) == seen_pos && !partner_alive(r)) return -1;
    return 0;
}

static ssize_t ring_write(void *ctx, const void *buf, size_t n) {
    ring *r = ctx;
    size_t cap = r->reg->capacity;
    for (;;) {
        uint64_t w = atomic_load(WRITE_POS(r)), rd = atomic_load(READ_POS(r));
        size_t space = cap - (size_t)(w - rd);
        if (space == 0) {
            if (wait_moved(r, SPACE_SEQ(r), WRITER_WAITING(r), READ_POS(r), rd) < 0) {
                errno = EPIPE;
                return -1;
            }
            continue;
        }
        size_t k = n < space ? n : space, off = (size_t)w & (cap - 1);
        size_t first = k < cap - off ? k : cap - off;
        memcpy(data(r) + off, buf, first);
        memcpy(data(r), (const uint8_t *)buf + first, k - first);
        atomic_store(WRITE_POS(r), w + k);
        atomic_fetch_add(DATA_SEQ(r), 1);
        if (atomic_load(READER_WAITING(r)) == 1) futex_wake(DATA_SEQ(r));
        return (ssize_t)k;
    }
}

/* Wait for published bytes: the first's offset in the data area, and how
   many follow it there before the area ends; 0, or -1 when the harness is gone. */
static int published(ring *r, size_t *off, size_t *n) {
    size_t cap = r->reg->capacity;
    for (;;) {
        uint64_t rd = atomic_load(READ_POS(r)), w = atomic_load(WRITE_POS(r));
        if (w == rd) {
            if (wait_moved(r, DATA_SEQ(r), READER_WAITING(r), WRITE_POS(r), w) < 0) {
                errno = EPIPE;
                return -1;
            }
            continue;
        }
        *off = (size_t)rd & (cap - 1);
        size_t avail = (size_t)(w - rd), to_end = cap - *off;
        *n = avail < to_end ? avail : to_end;
        return 0;
    }
}

/* Hand n bytes back to the producer. */
static void ring_consume(void *ctx, size_t n) {
    ring *r = ctx;
    atomic_store(READ_POS(r), atomic_load(READ_POS(r)) + n);
    atomic_fetch_add(SPACE_SEQ(r), 1);
    if (atomic_load(WRITER_WAITING(r)) == 1) futex_wake(SPACE_SEQ(r));
}

/* The published bytes in place, valid until consumed. */
static const uint8_t *ring_peek(void *ctx, size_t *n) {
    ring *r = ctx;
    size_t off;
    return published(r, &off, n) < 0 ? NULL : data(r) + off;
}

static ssize_t ring_read(void *ctx, void *buf, size_t n) {
    size_t avail;
    const uint8_t *p = ring_peek(ctx, &avail);
    if (!p) return -1;
    size_t k = n < avail ? n : avail;
    memcpy(buf, p, k);
    ring_consume(ctx, k);
    return (ssize_t)k;
}

int shm_connect(const char *path, stream *in, stream *out, char *err, size_t errlen) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *base = len >= DATA_OFFSET ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    close(fd);
    if (base == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot map it", path);
        return -1;
    }
    uint32_t version, capacity, mode;
    memcpy(&version, base + 8, 4);
    memcpy(&capacity, base + 12, 4);
    memcpy(&mode, base + 16, 4);
    if (memcmp(base, "TOLLSHM1", 8) != 0 || version != 1 || capacity == 0 || (capacity & (capacity - 1)) != 0 ||
        len < DATA_OFFSET + 2 * (size_t)capacity) {
        snprintf(err, errlen, "%s: not a toll shared-memory file of version 1", path);
        munmap(base, len);
        return -1;
    }
    mapping *m = malloc(sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        munmap(base, len);
        return -1;
    }
    m->reg = (region){base, len, capacity, mode == 1, getppid()};
    m->rings[0] = (ring){&m->reg, 0};
    m->rings[1] = (ring){&m->reg, 1};
    *in = (stream){&m->rings[0], ring_read, ring_write, ring_peek, ring_consume};
    *out = (stream){&m->rings[1], ring_read, ring_write, ring_peek, ring_consume};
    return 0;
}

void shm_close(stream *in) {
    mapping *m = (mapping *)((ring *)in->ctx)->reg; /* reg is the mapping's first member */
    munmap(m->reg.base, m->reg.len);
    free(m);
}
