/* The references for `toll sys`: one plain C loop per crossing, written as
   lmbench writes its loops (a timed loop of N operations; N calibrated so a
   batch lasts about --batch-ms; several batches; the median of their ns
   per operation, as lmbench's benchmp reports), each doing the work toll's
   probe does (crates/families/src/sys/probes.rs, pairs.rs) and nothing
   more.

   usage: sys [-b BATCH_MS] [-n BATCHES] [-w WARMUP_MS] [-a] CROSSING [ARGS]
     syscall                  syscall(SYS_getppid), which libc does not cache
     vdso                     clock_gettime(CLOCK_MONOTONIC) (the vDSO)
     fault-touch PAGES        mmap PAGES anonymous pages (huge pages off),
                              write a byte to each, munmap; per mapping
     mmap PAGES               the same without the writes; per mapping
     signal                   raise(SIGURG) to this thread, a counting handler
     signal-proc CPU_A CPU_B  a signal to a child on CPU_B (sigwaitinfo) and
                              one back (sigwaitinfo); per round trip
     wake-futex CPU_A CPU_B   a thread on CPU_B woken through a futex word and
                              answering the same way; per round trip
     wake-pipe CPU_A CPU_B    a byte over a pipe to a thread and back
     wake-pipe-proc CPU_A CPU_B  the same to a child process
     handoff CPU_A CPU_B      one cache line passed by compare-and-swap, each
                              side spinning for its turn; per one-way handoff
     chase BYTES              dependent loads in one random cycle through a
                              line in every 64 bytes (huge pages asked for)
     memcpy BYTES             memcpy between two touched buffers; per copy
   prints: the median ns per operation over the batches, one number; with
   -a every batch's ns per operation after it on the same line.
   build: cc -O2 -o sys sys.c -lpthread
   The timing side runs on CPU_A (pinned) where a crossing names CPUs;
   the one-party crossings run where the scheduler puts them, as toll's do.
   Defaults: -b 10 -n 11 (lmbench's TRIES) -w 100. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#define RELAX() __builtin_ia32_pause()
#else
#define RELAX() __asm__ volatile("" ::: "memory")
#endif

static double batch_ms = 10, warmup_ms = 100;
static int batches = 11, show_all = 0;

static void die(const char *what) {
    perror(what);
    exit(1);
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void pin(int cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) < 0) die("sched_setaffinity");
}

/* One batch: `n` operations, timed inside; returns the batch's ns. */
typedef double (*batch_f)(uint64_t n, void *state);

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* lmbench's benchmp, reduced: grow n until a batch lasts batch_ms (and
   keep running until warmup_ms have passed), then time `batches` batches
   of n; the median ns per operation. `per` operations count as one (a
   handoff's round trip is two handoffs). */
static void measure(batch_f f, void *state, double per) {
    uint64_t n = 1;
    double spent = 0, t;
    for (;;) {
        t = f(n, state);
        spent += t;
        if (t >= batch_ms * 1e6 && spent >= warmup_ms * 1e6) break;
        if (t < batch_ms * 1e6) {
            double grow = t > 0 ? batch_ms * 1e6 / t : 16;
            n = (uint64_t)(n * (grow > 16 ? 16 : grow < 1.1 ? 1.1 : grow)) + 1;
        }
    }
    double *v = malloc(batches * sizeof *v);
    if (!v) die("malloc");
    for (int i = 0; i < batches; i++) v[i] = f(n, state) / (n * per);
    double *sorted = malloc(batches * sizeof *v);
    if (!sorted) die("malloc");
    memcpy(sorted, v, batches * sizeof *v);
    qsort(sorted, batches, sizeof *sorted, by_value);
    double median = batches % 2 ? sorted[batches / 2]
                                : (sorted[batches / 2 - 1] + sorted[batches / 2]) / 2;
    printf("%.4f", median);
    if (show_all)
        for (int i = 0; i < batches; i++) printf(" %.4f", v[i]);
    printf("\n");
    free(v);
    free(sorted);
}

/* syscall, vdso */

static double b_syscall(uint64_t n, void *s) {
    (void)s;
    double t = now_ns();
    for (uint64_t i = 0; i < n; i++) syscall(SYS_getppid);
    return now_ns() - t;
}

static double b_vdso(uint64_t n, void *s) {
    (void)s;
    struct timespec ts;
    double t = now_ns();
    for (uint64_t i = 0; i < n; i++) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        __asm__ volatile("" : : "r"(&ts) : "memory");
    }
    return now_ns() - t;
}

/* fault-touch, mmap */

struct mapping {
    size_t pages, page;
    int touch;
};

static double b_map(uint64_t n, void *s) {
    struct mapping *m = s;
    size_t len = m->pages * m->page;
    /* An inaccessible page first: the mappings land beside it, never merged
       into a neighbouring mapping of the same kind (as toll's probe). */
    void *guard = mmap(NULL, m->page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    double t = now_ns();
    for (uint64_t i = 0; i < n; i++) {
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) die("mmap");
        if (m->touch) {
            madvise(p, len, MADV_NOHUGEPAGE);
            for (size_t k = 0; k < m->pages; k++) ((volatile char *)p)[k * m->page] = 1;
        }
        munmap(p, len);
    }
    t = now_ns() - t;
    if (guard != MAP_FAILED) munmap(guard, m->page);
    return t;
}

/* signal */

static volatile sig_atomic_t handled;

static void on_signal(int sig) {
    (void)sig;
    handled++;
}

static double b_signal(uint64_t n, void *s) {
    (void)s;
    double t = now_ns();
    for (uint64_t i = 0; i < n; i++) raise(SIGURG);
    return now_ns() - t;
}

/* signal-proc: the child waits for SIGUSR1 and answers with SIGUSR2. */

struct sigproc {
    pid_t child;
    sigset_t answer;
};

static double b_sigproc(uint64_t n, void *s) {
    struct sigproc *p = s;
    double t = now_ns();
    for (uint64_t i = 0; i < n; i++) {
        kill(p->child, SIGUSR1);
        while (sigwaitinfo(&p->answer, NULL) != SIGUSR2) {
        }
    }
    return now_ns() - t;
}

/* wake-futex: 0 the echo's turn is over, 1 the echo is asked, 2 it ends. */

struct futexes {
    _Atomic uint32_t word;
    int cpu_b;
};

static void futex(_Atomic uint32_t *w, int op, uint32_t val) {
    syscall(SYS_futex, (uint32_t *)w, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static void *futex_echo(void *s) {
    struct futexes *f = s;
    pin(f->cpu_b);
    for (;;) {
        uint32_t v;
        while ((v = atomic_load_explicit(&f->word, memory_order_acquire)) == 0)
            futex(&f->word, FUTEX_WAIT, 0);
        if (v == 2) return NULL;
        atomic_store_explicit(&f->word, 0, memory_order_release);
        futex(&f->word, FUTEX_WAKE, 1);
    }
}

static double b_futex(uint64_t n, void *s) {
    struct futexes *f = s;
    double t = now_ns();
    for (uint64_t i = 0; i < n; i++) {
        atomic_store_explicit(&f->word, 1, memory_order_release);
        futex(&f->word, FUTEX_WAKE, 1);
        while (atomic_load_explicit(&f->word, memory_order_acquire) == 1)
            futex(&f->word, FUTEX_WAIT, 1);
    }
    return now_ns() - t;
}

/* wake-pipe, wake-pipe-proc: one byte there and back. */

struct pipes {
    int there[2], back[2];
    int cpu_b;
};

static void echo_loop(struct pipes *p) {
    char c;
    while (read(p->there[0], &c, 1) == 1 && write(p->back[1], &c, 1) == 1) {
    }
}

static void *pipe_echo(void *s) {
    struct pipes *p = s;
    pin(p->cpu_b);
    echo_loop(p);
    return NULL;
}

static double b_pipe(uint64_t n, void *s) {
    struct pipes *p = s;
    char c = 'x';
    double t = now_ns();
    for (uint64_t i = 0; i < n; i++)
        if (write(p->there[1], &c, 1) != 1 || read(p->back[0], &c, 1) != 1) die("pipe");
    return now_ns() - t;
}

/* handoff: each side moves a shared counter on when it has its parity. */

struct handoff {
    _Alignas(128) _Atomic uint64_t line;
    _Alignas(128) _Atomic uint64_t end;
    _Atomic int quit;
    int cpu_b;
};

static void *handoff_other(void *s) {
    struct handoff *h = s;
    pin(h->cpu_b);
    while (!atomic_load_explicit(&h->quit, memory_order_relaxed)) {
        uint64_t v = atomic_load_explicit(&h->line, memory_order_acquire);
        if (v % 2 == 1 && v < atomic_load_explicit(&h->end, memory_order_relaxed))
            atomic_compare_exchange_strong_explicit(&h->line, &v, v + 1, memory_order_acq_rel,
                                                    memory_order_relaxed);
        else
            RELAX();
    }
    return NULL;
}

static double b_handoff(uint64_t n, void *s) {
    struct handoff *h = s;
    uint64_t start = atomic_load_explicit(&h->line, memory_order_acquire);
    uint64_t end = start + 2 * n;
    atomic_store_explicit(&h->end, end, memory_order_relaxed);
    double t = now_ns();
    for (;;) {
        uint64_t v = atomic_load_explicit(&h->line, memory_order_acquire);
        if (v >= end) break;
        if (v % 2 == 0)
            atomic_compare_exchange_strong_explicit(&h->line, &v, v + 1, memory_order_acq_rel,
                                                    memory_order_relaxed);
        else
            RELAX();
    }
    return now_ns() - t;
}

/* chase: Sattolo's shuffle of the lines, one cycle, as toll builds it. */

struct chase {
    size_t *next;
    size_t at;
};

static double b_chase(uint64_t n, void *s) {
    struct chase *c = s;
    size_t i = c->at;
    double t = now_ns();
    for (uint64_t k = 0; k < n; k++) i = c->next[i];
    t = now_ns() - t;
    c->at = i;
    return t;
}

/* memcpy */

struct copy {
    char *src, *dst;
    size_t n;
};

static double b_memcpy(uint64_t n, void *s) {
    struct copy *c = s;
    /* In registers: the barrier's memory clobber would otherwise reload
       them from the struct every copy. */
    char *dst = c->dst, *src = c->src;
    size_t len = c->n;
    double t = now_ns();
    for (uint64_t i = 0; i < n; i++) {
        memcpy(dst, src, len);
        __asm__ volatile("" : : "r"(dst), "r"(src) : "memory");
    }
    return now_ns() - t;
}

static long arg(int ac, char **av, int i, const char *what) {
    if (i >= ac) {
        fprintf(stderr, "sys: %s needs %s\n", av[optind], what);
        exit(2);
    }
    char *end;
    long v = strtol(av[i], &end, 10);
    if (*end || v < 0) {
        fprintf(stderr, "sys: %s is not %s\n", av[i], what);
        exit(2);
    }
    return v;
}

int main(int ac, char **av) {
    int o;
    while ((o = getopt(ac, av, "b:n:w:a")) != -1) switch (o) {
            case 'b': batch_ms = atof(optarg); break;
            case 'n': batches = atoi(optarg); break;
            case 'w': warmup_ms = atof(optarg); break;
            case 'a': show_all = 1; break;
            default: return 2;
        }
    if (optind >= ac || batches < 1) {
        fprintf(stderr, "usage: sys [-b BATCH_MS] [-n BATCHES] [-w WARMUP_MS] [-a] CROSSING [ARGS]\n");
        return 2;
    }
    const char *what = av[optind];
    int a = optind + 1;
    if (!strcmp(what, "syscall")) {
        measure(b_syscall, NULL, 1);
    } else if (!strcmp(what, "vdso")) {
        measure(b_vdso, NULL, 1);
    } else if (!strcmp(what, "fault-touch") || !strcmp(what, "mmap")) {
        struct mapping m = {(size_t)arg(ac, av, a, "a page count"), (size_t)sysconf(_SC_PAGESIZE),
                            !strcmp(what, "fault-touch")};
        if (m.pages < 1) m.pages = 1;
        measure(b_map, &m, 1);
    } else if (!strcmp(what, "signal")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGURG, &sa, NULL) < 0) die("sigaction");
        measure(b_signal, NULL, 1);
    } else if (!strcmp(what, "signal-proc")) {
        int ca = arg(ac, av, a, "a CPU"), cb = arg(ac, av, a + 1, "a CPU");
        struct sigproc p;
        sigset_t both;
        sigemptyset(&p.answer);
        sigaddset(&p.answer, SIGUSR2);
        both = p.answer;
        sigaddset(&both, SIGUSR1);
        sigprocmask(SIG_BLOCK, &both, NULL);
        pin(ca);
        pid_t parent = getpid();
        p.child = fork();
        if (p.child < 0) die("fork");
        if (p.child == 0) {
            sigset_t ask;
            sigemptyset(&ask);
            sigaddset(&ask, SIGUSR1);
            pin(cb);
            for (;;)
                if (sigwaitinfo(&ask, NULL) == SIGUSR1) kill(parent, SIGUSR2);
        }
        measure(b_sigproc, &p, 1);
        kill(p.child, SIGKILL);
        waitpid(p.child, NULL, 0);
    } else if (!strcmp(what, "wake-futex")) {
        int ca = arg(ac, av, a, "a CPU"), cb = arg(ac, av, a + 1, "a CPU");
        static struct futexes f;
        f.cpu_b = cb;
        pthread_t echo;
        pin(ca);
        if (pthread_create(&echo, NULL, futex_echo, &f)) die("pthread_create");
        measure(b_futex, &f, 1);
        atomic_store(&f.word, 2);
        futex(&f.word, FUTEX_WAKE, 1);
        pthread_join(echo, NULL);
    } else if (!strcmp(what, "wake-pipe") || !strcmp(what, "wake-pipe-proc")) {
        int ca = arg(ac, av, a, "a CPU"), cb = arg(ac, av, a + 1, "a CPU");
        struct pipes p;
        p.cpu_b = cb;
        if (pipe(p.there) < 0 || pipe(p.back) < 0) die("pipe");
        pin(ca);
        if (!strcmp(what, "wake-pipe")) {
            pthread_t echo;
            if (pthread_create(&echo, NULL, pipe_echo, &p)) die("pthread_create");
            measure(b_pipe, &p, 1);
            close(p.there[1]);
            pthread_join(echo, NULL);
        } else {
            pid_t child = fork();
            if (child < 0) die("fork");
            if (child == 0) {
                close(p.there[1]);
                close(p.back[0]);
                pin(cb);
                echo_loop(&p);
                _exit(0);
            }
            close(p.there[0]);
            close(p.back[1]);
            measure(b_pipe, &p, 1);
            close(p.there[1]);
            waitpid(child, NULL, 0);
        }
    } else if (!strcmp(what, "handoff")) {
        int ca = arg(ac, av, a, "a CPU"), cb = arg(ac, av, a + 1, "a CPU");
        static struct handoff h;
        h.cpu_b = cb;
        pthread_t other;
        pin(ca);
        if (pthread_create(&other, NULL, handoff_other, &h)) die("pthread_create");
        measure(b_handoff, &h, 2);
        atomic_store(&h.quit, 1);
        pthread_join(other, NULL);
    } else if (!strcmp(what, "chase")) {
        size_t bytes = arg(ac, av, a, "a byte count");
        size_t stride = 64 / sizeof(size_t), lines = bytes / 64 < 2 ? 2 : bytes / 64;
        size_t len = lines * 64, huge = 2 << 20;
        size_t huge_len = (len + huge - 1) / huge * huge, map_len = huge_len + huge;
        char *map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) die("mmap");
        char *aligned = (char *)(((uintptr_t)map + huge - 1) / huge * huge);
        madvise(aligned, huge_len, MADV_HUGEPAGE);
        size_t *next = (size_t *)aligned, *order = malloc(lines * sizeof *order);
        if (!order) die("malloc");
        for (size_t i = 0; i < lines; i++) order[i] = i;
        uint64_t x = (0x9e3779b9ULL ^ bytes) | 1;
        for (size_t i = lines - 1; i >= 1; i--) {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            size_t r = (x * 0x2545f4914f6cdd1dULL) % i, tmp = order[i];
            order[i] = order[r];
            order[r] = tmp;
        }
        for (size_t k = 0; k < lines; k++) next[order[k] * stride] = order[(k + 1) % lines] * stride;
        free(order);
        struct chase c = {next, 0};
        measure(b_chase, &c, 1);
        if (c.at == (size_t)-1) puts("");  /* keeps the chase's result live */
    } else if (!strcmp(what, "memcpy")) {
        /* Laid out as toll lays them (its COPY_PAGE): the source at the
           start of a page, the destination half a page past the end of the
           source's pages, in one allocation — not wherever malloc puts two
           small blocks (across a cache line or not, 4 KiB apart or not). */
        struct copy c;
        c.n = arg(ac, av, a, "a byte count");
        size_t page = 4096, pages = (c.n + page - 1) / page * page;
        if (!pages) pages = page;
        char *mem = calloc(page + pages + page / 2 + (c.n ? c.n : 1), 1);
        if (!mem) die("calloc");
        c.src = mem + (page - (uintptr_t)mem % page) % page;
        c.dst = c.src + pages + page / 2;
        for (size_t i = 0; i < c.n; i++) c.src[i] = (char)i;
        measure(b_memcpy, &c, 1);
    } else {
        fprintf(stderr, "sys: unknown crossing %s\n", what);
        return 2;
    }
    return 0;
}
