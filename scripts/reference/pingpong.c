/* The reference toll's overhead is measured against: a minimal ping-pong.
   The parent writes N int32s (all 123) in one write(); the child reads them
   all through a 256 KiB buffer, sums them, and writes back the 8-byte sum;
   the parent reads it and checks it. Nothing else.

   usage: pingpong --via pipe|unix|tcp --items N --iters I --trials T --pin same|split|none
   prints: {"via":..,"items":N,"pin":..,"iters":I,"per_op_ns":[t1,...]}     build: cc -O2
   --pin same: both on CPU 0; split: parent CPU 0, child CPU 1 (0 and 1 meaning
   the first and second CPU this process may run on); none: left to the scheduler.
   After a warm-up (>= 100 ms and >= iters/10 round trips), each of T trials
   times I round trips with CLOCK_MONOTONIC. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUF (256 * 1024)

static void die(const char *what) {
    perror(what);
    exit(1);
}

static int nth_cpu(int nth) { /* the nth CPU this process may run on */
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) die("sched_getaffinity");
    for (int c = 0, seen = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed) && seen++ == nth) return c;
    fprintf(stderr, "pingpong: --pin split needs two CPUs; this process may use one\n");
    exit(2);
}

static void pin_to(int cpu) { /* -1: stay where the scheduler puts us */
    cpu_set_t one;
    if (cpu < 0) return;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) < 0) die("sched_setaffinity");
}

static void write_all(int fd, const void *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) die("write");
        p = (const char *)p + w;
        n -= (size_t)w;
    }
}

static void read_all(int fd, void *p, size_t n) {
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0) die("read");
        if (r == 0) { fprintf(stderr, "pingpong: the child hung up\n"); exit(1); }
        p = (char *)p + r;
        n -= (size_t)r;
    }
}

static void child(int in, int out, size_t bytes) {
    char *buf = malloc(BUF);
    for (;;) {
        int64_t sum = 0;
        size_t left = bytes, have = 0; /* `have`: bytes of a split item carried over */
        while (left > 0) {
            ssize_t r = read(in, buf + have, (left < BUF - have ? left : BUF - have));
            if (r == 0) exit(0); /* the parent is done */
            if (r < 0) die("read");
            left -= (size_t)r;
            size_t n = have + (size_t)r, whole = n / 4 * 4;
            for (size_t i = 0; i < whole; i += 4) {
                int32_t v;
                memcpy(&v, buf + i, 4);
                sum += v;
            }
            have = n - whole;
            memmove(buf, buf + whole, have);
        }
        write_all(out, &sum, sizeof sum);
    }
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    const char *via = "pipe", *pin = "none";
    long items = 1, iters = 1000, trials = 10;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 == argc) { fprintf(stderr, "pingpong: %s needs a value\n", argv[i]); return 2; }
        if (!strcmp(argv[i], "--via")) via = argv[i + 1];
        else if (!strcmp(argv[i], "--items")) items = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--iters")) iters = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--trials")) trials = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--pin")) pin = argv[i + 1];
        else { fprintf(stderr, "pingpong: unknown option %s\n", argv[i]); return 2; }
    }
    if (items < 1 || items > (1L << 28) || iters < 1 || trials < 1) {
        fprintf(stderr, "pingpong: need 1 <= items <= 2^28, iters >= 1, trials >= 1\n");
        return 2;
    }
    int same = !strcmp(pin, "same"), split = !strcmp(pin, "split");
    if (!same && !split && strcmp(pin, "none")) { fprintf(stderr, "pingpong: unknown --pin %s (same, split, none)\n", pin); return 2; }
    signal(SIGPIPE, SIG_IGN); /* a peer gone is reported by write(), not a silent death */
    int p_in, p_out, c_in, c_out; /* parent reads p_in, writes p_out; child likewise */
    if (!strcmp(via, "pipe")) {
        int a[2], b[2];
        if (pipe(a) < 0 || pipe(b) < 0) die("pipe");
        p_out = a[1], c_in = a[0], c_out = b[1], p_in = b[0];
    } else if (!strcmp(via, "unix")) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) die("socketpair");
        p_in = p_out = sv[0], c_in = c_out = sv[1];
    } else if (!strcmp(via, "tcp")) {
        int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof sa;
        if (l < 0 || bind(l, (struct sockaddr *)&sa, len) < 0 || listen(l, 1) < 0 ||
            getsockname(l, (struct sockaddr *)&sa, &len) < 0) die("listen");
        int c = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(c, (struct sockaddr *)&sa, len) < 0) die("connect");
        int s = accept(l, NULL, NULL);
        if (s < 0) die("accept");
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        close(l);
        p_in = p_out = c, c_in = c_out = s;
    } else {
        fprintf(stderr, "pingpong: unknown --via %s (pipe, unix, tcp)\n", via);
        return 2;
    }
    int parent_cpu = same || split ? nth_cpu(0) : -1, child_cpu = split ? nth_cpu(1) : parent_cpu;
    size_t bytes = (size_t)items * 4;
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) { /* each side closes the other's ends, so either sees the other go (EOF, EPIPE) */
        close(p_in);
        if (p_out != p_in) close(p_out);
        pin_to(child_cpu);
        child(c_in, c_out, bytes);
    }
    close(c_in);
    if (c_out != c_in) close(c_out);
    pin_to(parent_cpu);
    int32_t *msg = malloc(bytes);
    for (long i = 0; i < items; i++) msg[i] = 123;
    int64_t sum, want = 123 * (int64_t)items;
    double *per_op = malloc(trials * sizeof *per_op), warm_until = now_ns() + 100e6;
    for (long i = 0; now_ns() < warm_until || i < iters / 10; i++) {
        write_all(p_out, msg, bytes);
        read_all(p_in, &sum, sizeof sum);
        if (sum != want) { fprintf(stderr, "pingpong: bad sum %lld\n", (long long)sum); return 1; }
    }
    for (long t = 0; t < trials; t++) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++) {
            write_all(p_out, msg, bytes);
            read_all(p_in, &sum, sizeof sum);
            if (sum != want) { fprintf(stderr, "pingpong: bad sum %lld\n", (long long)sum); return 1; }
        }
        per_op[t] = (now_ns() - t0) / iters;
    }
    close(p_out); /* the child reads end of file and exits */
    waitpid(pid, NULL, 0);
    printf("{\"via\":\"%s\",\"items\":%ld,\"pin\":\"%s\",\"iters\":%ld,\"per_op_ns\":[", via, items, pin, iters);
    for (long t = 0; t < trials; t++) printf("%s%.1f", t ? "," : "", per_op[t]);
    printf("]}\n");
    return 0;
}
