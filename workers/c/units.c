/* spawn and ring (spec/wire.md) for the C worker: OS processes (fork; the ring
   passes the token through pipes) and OS threads (pthreads; the ring passes it
   through a futex per unit). */
#define _GNU_SOURCE
#include "units.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A "Name:   1234 kB" field of a /proc file, or -1. */
static long proc_kb(const char *file, const char *name) {
    FILE *f = fopen(file, "r");
    if (!f) return -1;
    char line[256];
    long v = -1;
    size_t len = strlen(name);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, name, len) == 0 && line[len] == ':') {
            v = atol(line + len + 1);
            break;
        }
    }
    fclose(f);
    return v;
}

static long rss_kb(void) { return proc_kb("/proc/self/status", "VmRSS"); }

static long system_used_kb(void) {
    return proc_kb("/proc/meminfo", "MemTotal") - proc_kb("/proc/meminfo", "MemAvailable");
}

/* Why the kernel refused another task: errno, and the limits it usually means. */
static void limit_reason(int err, char *out, size_t len) {
    struct rlimit nproc;
    char ulimit_u[24] = "unlimited";
    if (getrlimit(RLIMIT_NPROC, &nproc) == 0 && nproc.rlim_cur != RLIM_INFINITY)
        snprintf(ulimit_u, sizeof ulimit_u, "%llu", (unsigned long long)nproc.rlim_cur);
    long pid_max = -1, threads_max = -1;
    FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
    if (f) {
        if (fscanf(f, "%ld", &pid_max) != 1) pid_max = -1;
        fclose(f);
    }
    f = fopen("/proc/sys/kernel/threads-max", "r");
    if (f) {
        if (fscanf(f, "%ld", &threads_max) != 1) threads_max = -1;
        fclose(f);
    }
    snprintf(out, len, "%s (kernel.pid_max is %ld, kernel.threads-max %ld, ulimit -u %s)", strerror(err), pid_max,
             threads_max, ulimit_u);
}

static void limit_answer(char *out, size_t len, long created, long n, const char *reason) {
    snprintf(out, len, "{\"ok\":false,\"limit\":true,\"created\":%ld,\"error\":\"created %ld of %ld units: %s\"}",
             created, created, n, reason);
}

static void read_all(int fd, char *buf, size_t len) {
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, buf + got, len - got);
        if (r > 0)
            got += (size_t)r;
        else if (r == 0 || errno != EINTR)
            return;
    }
}

/* ---- processes ---- */

static int spawn_processes(long n, char *out, size_t len) {
    int ready[2], gate[2];
    if (pipe(ready) < 0 || pipe(gate) < 0) {
        snprintf(out, len, "{\"ok\":false,\"error\":\"pipe: %s\"}", strerror(errno));
        return -1;
    }
    pid_t *pids = malloc(sizeof(pid_t) * (size_t)n);
    long m0 = system_used_kb(), created = 0;
    int fail = 0;
    uint64_t t0 = now_ns();
    for (; created < n; created++) {
        pid_t pid = fork();
        if (pid == 0) {
            /* The unit: say it is ready, then wait for the gate to close. */
            close(gate[1]);
            close(ready[0]);
            char c = 'r';
            if (write(ready[1], &c, 1) < 0) _exit(1);
            while (read(gate[0], &c, 1) < 0 && errno == EINTR) {
            }
            _exit(0);
        }
        if (pid < 0) {
            fail = errno;
            break;
        }
        pids[created] = pid;
    }
    close(ready[1]);
    long made = 0; /* the bytes the units wrote */
    if (!fail) {
        /* Each unit writes one byte; read them in large chunks. */
        char buf[4096];
        while (made < n) {
            ssize_t r = read(ready[0], buf, n - made < (long)sizeof buf ? (size_t)(n - made) : sizeof buf);
            if (r > 0)
                made += r;
            else if (r == 0 || errno != EINTR)
                break;
        }
    }
    uint64_t t1 = now_ns();
    long m1 = system_used_kb();
    close(gate[1]);
    close(gate[0]);
    close(ready[0]);
    for (long i = 0; i < created; i++) waitpid(pids[i], NULL, 0);
    free(pids);
    if (fail) {
        char reason[256];
        limit_reason(fail, reason, sizeof reason);
        limit_answer(out, len, created, n, reason);
        return -1;
    }
    snprintf(out, len,
             "{\"ok\":true,\"event\":\"done\",\"unit\":\"process\",\"n\":%ld,\"made\":%ld,\"ns\":%llu,"
             "\"mem_kb\":%ld,\"mem_how\":\"system\"}",
             n, made, (unsigned long long)(t1 - t0), m1 - m0);
    return 0;
}

static int ring_processes(long n, long m, char *out, size_t len) {
    int first[2], done[2];
    if (pipe(first) < 0 || pipe(done) < 0) {
        snprintf(out, len, "{\"ok\":false,\"error\":\"pipe: %s\"}", strerror(errno));
        return -1;
    }
    uint64_t last = (uint64_t)n * (uint64_t)m;
    pid_t *pids = malloc(sizeof(pid_t) * (size_t)n);
    long created = 0;
    int fail = 0, in = first[0];
    for (; created < n; created++) {
        int next[2] = {-1, first[1]};
        if (created + 1 < n && pipe(next) < 0) {
            fail = errno;
            break;
        }
        pid_t pid = fork();
        if (pid == 0) {
            /* Unit `created`: read from `in`, write to next[1] (or to `done`). */
            close(done[0]);
            if (next[0] >= 0) close(next[0]);
            if (next[1] != first[1]) close(first[1]);
            uint64_t v;
            for (long k = 0; k < m; k++) {
                read_all(in, (char *)&v, sizeof v);
                v++;
                if (v == last) {
                    if (write(done[1], &v, sizeof v) < 0) _exit(1);
                    _exit(0);
                }
                if (write(next[1], &v, sizeof v) != sizeof v) _exit(1);
            }
            _exit(0);
        }
        if (pid < 0) {
            fail = errno;
            if (next[0] >= 0) {
                close(next[0]);
                close(next[1]);
            }
            break;
        }
        pids[created] = pid;
        close(in);
        if (next[0] >= 0) close(next[1]);
        in = next[0];
    }
    close(done[1]);
    uint64_t hops = 0, t0 = 0, t1 = 0;
    if (!fail) {
        uint64_t token = 0;
        t0 = now_ns();
        if (write(first[1], &token, sizeof token) == sizeof token) read_all(done[0], (char *)&hops, sizeof hops);
        t1 = now_ns();
    }
    if (in >= 0) close(in);
    close(first[1]);
    close(done[0]);
    for (long i = 0; i < created; i++) waitpid(pids[i], NULL, 0);
    free(pids);
    if (fail) {
        char reason[256];
        limit_reason(fail, reason, sizeof reason);
        limit_answer(out, len, created, n, reason);
        return -1;
    }
    snprintf(out, len,
             "{\"ok\":true,\"event\":\"done\",\"unit\":\"process\",\"n\":%ld,\"m\":%ld,\"hops\":%llu,\"ns\":%llu}", n,
             m, (unsigned long long)hops, (unsigned long long)(t1 - t0));
    return 0;
}

/* ---- threads ---- */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t all_ready, opened;
    long ready, n;
    int open;
} gate_t;

static void *waiting_thread(void *arg) {
    gate_t *g = arg;
    pthread_mutex_lock(&g->mu);
    if (++g->ready == g->n) pthread_cond_signal(&g->all_ready);
    while (!g->open) pthread_cond_wait(&g->opened, &g->mu);
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

static int spawn_threads(long n, char *out, size_t len) {
    gate_t g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, n, 0};
    pthread_t *ts = malloc(sizeof(pthread_t) * (size_t)n);
    long m0 = rss_kb(), created = 0;
    int fail = 0;
    uint64_t t0 = now_ns();
    for (; created < n; created++) {
        int rc = pthread_create(&ts[created], NULL, waiting_thread, &g);
        if (rc != 0) {
            fail = rc;
            break;
        }
    }
    pthread_mutex_lock(&g.mu);
    while (!fail && g.ready < n) pthread_cond_wait(&g.all_ready, &g.mu);
    pthread_mutex_unlock(&g.mu);
    uint64_t t1 = now_ns();
    long m1 = rss_kb();
    pthread_mutex_lock(&g.mu);
    long made = g.ready;
    g.open = 1;
    pthread_cond_broadcast(&g.opened);
    pthread_mutex_unlock(&g.mu);
    for (long i = 0; i < created; i++) pthread_join(ts[i], NULL);
    free(ts);
    if (fail) {
        char reason[256];
        limit_reason(fail, reason, sizeof reason);
        limit_answer(out, len, created, n, reason);
        return -1;
    }
    snprintf(out, len,
             "{\"ok\":true,\"event\":\"done\",\"unit\":\"thread\",\"n\":%ld,\"made\":%ld,\"ns\":%llu,"
             "\"mem_kb\":%ld,\"mem_how\":\"rss\"}",
             n, made, (unsigned long long)(t1 - t0), m1 - m0);
    return 0;
}

/* One mailbox per unit, on its own cache line: `seq` counts the messages
   put in it (the futex word), `token` holds the last one. */
typedef struct {
    _Atomic uint32_t seq;
    uint64_t token;
} __attribute__((aligned(64))) mailbox;

typedef struct {
    mailbox *boxes, *done;
    long n, m, i;
    uint64_t last;
} ring_unit;

static void post(mailbox *b, uint64_t v) {
    b->token = v;
    atomic_fetch_add_explicit(&b->seq, 1, memory_order_release);
    syscall(SYS_futex, &b->seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Wait for message number `seen + 1` in `b`; returns its token. */
static uint64_t take(mailbox *b, uint32_t seen) {
    uint32_t s;
    while ((s = atomic_load_explicit(&b->seq, memory_order_acquire)) == seen)
        syscall(SYS_futex, &b->seq, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
    return b->token;
}

static void *ring_thread(void *arg) {
    ring_unit *u = arg;
    mailbox *mine = &u->boxes[u->i], *next = &u->boxes[(u->i + 1) % u->n];
    for (long k = 0; k < u->m; k++) {
        uint64_t v = take(mine, (uint32_t)k) + 1;
        if (v == u->last) {
            post(u->done, v);
            break;
        }
        post(next, v);
    }
    return NULL;
}

static int ring_threads(long n, long m, char *out, size_t len) {
    mailbox *boxes = aligned_alloc(64, sizeof(mailbox) * (size_t)(n + 1));
    memset(boxes, 0, sizeof(mailbox) * (size_t)(n + 1));
    ring_unit *units = malloc(sizeof(ring_unit) * (size_t)n);
    pthread_t *ts = malloc(sizeof(pthread_t) * (size_t)n);
    uint64_t last = (uint64_t)n * (uint64_t)m;
    long created = 0;
    int fail = 0;
    for (; created < n; created++) {
        units[created] = (ring_unit){boxes, &boxes[n], n, m, created, last};
        int rc = pthread_create(&ts[created], NULL, ring_thread, &units[created]);
        if (rc != 0) {
            fail = rc;
            break;
        }
    }
    uint64_t hops = 0, t0 = 0, t1 = 0;
    if (!fail) {
        t0 = now_ns();
        post(&boxes[0], 0);
        hops = take(&boxes[n], 0);
        t1 = now_ns();
    } else {
        /* Let the units made run out: hand each the token it ends on. */
        for (long i = 0; i < created; i++) {
            units[i].m = 1;
            post(&boxes[i], last - 1);
        }
    }
    for (long i = 0; i < created; i++) pthread_join(ts[i], NULL);
    free(ts);
    free(units);
    free(boxes);
    if (fail) {
        char reason[256];
        limit_reason(fail, reason, sizeof reason);
        limit_answer(out, len, created, n, reason);
        return -1;
    }
    snprintf(out, len, "{\"ok\":true,\"event\":\"done\",\"unit\":\"thread\",\"n\":%ld,\"m\":%ld,\"hops\":%llu,\"ns\":%llu}",
             n, m, (unsigned long long)hops, (unsigned long long)(t1 - t0));
    return 0;
}

int units_spawn(const char *unit, long n, char *out, size_t len) {
    if (n < 1) {
        snprintf(out, len, "{\"ok\":false,\"error\":\"spawn needs n of at least 1\"}");
        return -1;
    }
    if (strcmp(unit, "process") == 0) return spawn_processes(n, out, len);
    if (strcmp(unit, "thread") == 0) return spawn_threads(n, out, len);
    snprintf(out, len, "{\"ok\":false,\"error\":\"unknown unit `%.40s`: the c worker has process, thread\"}", unit);
    return -1;
}

int units_ring(const char *unit, long n, long m, char *out, size_t len) {
    if (n < 2 || m < 1) {
        snprintf(out, len, "{\"ok\":false,\"error\":\"a ring needs n of at least 2 and m of at least 1\"}");
        return -1;
    }
    if (strcmp(unit, "process") == 0) return ring_processes(n, m, out, len);
    if (strcmp(unit, "thread") == 0) return ring_threads(n, m, out, len);
    snprintf(out, len, "{\"ok\":false,\"error\":\"unknown unit `%.40s`: the c worker has process, thread\"}", unit);
    return -1;
}
