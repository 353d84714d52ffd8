/* The C worker's own test: every frame and session of spec/vectors, the
   fault injection and early ends of serve(), and, given the built worker,
   a run of it as toll drives it over every transport.
   Usage: test_wire VECTORS_DIR [WORKER]. Prints "N passed, M failed" last. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm.h"
#include "wire.h"

static int passed, failed;

static void check(int ok, const char *what, const char *name) {
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "FAIL %s: %s\n", name, what);
    }
}

static size_t unhex(const char *hex, uint8_t **out) {
    size_t n = strlen(hex) / 2;
    *out = malloc(n + 1);
    for (size_t i = 0; i < n; i++) sscanf(hex + 2 * i, "%2hhx", &(*out)[i]);
    return n;
}

/* Split a TSV line in place; returns the field count. */
static int fields(char *line, char **f, int max) {
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line; n < max; n++) {
        f[n] = p;
        p = strchr(p, '\t');
        if (!p) return n + 1;
        *p++ = 0;
    }
    return n;
}

typedef struct {
    const uint8_t *data;
    size_t len, pos, chunk;
} mem_in;

typedef struct {
    uint8_t *data;
    size_t len, cap;
} mem_out;

static ssize_t mem_read(void *ctx, void *buf, size_t n) {
    mem_in *m = ctx;
    size_t k = m->len - m->pos;
    if (k > n) k = n;
    if (m->chunk && k > m->chunk) k = m->chunk;
    memcpy(buf, m->data + m->pos, k);
    m->pos += k;
    return (ssize_t)k;
}

static ssize_t mem_write(void *ctx, const void *buf, size_t n) {
    mem_out *m = ctx;
    if (m->len + n > m->cap) {
        m->cap = (m->len + n) * 2;
        m->data = realloc(m->data, m->cap);
    }
    memcpy(m->data + m->len, buf, n);
    m->len += n;
    return (ssize_t)n;
}

static void frames(const char *dir) {
    char path[1024], *line = NULL, *f[9];
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/frames.tsv", dir);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        check(0, "cannot open frames.tsv", path);
        return;
    }
    while (getline(&line, &cap, fp) > 0) {
        if (line[0] == '#' || fields(line, f, 9) != 9) continue;
        uint8_t *bytes;
        size_t n = unhex(f[8], &bytes);
        uint32_t seq = (uint32_t)strtoul(f[4], NULL, 10), count = (uint32_t)strtoul(f[5], NULL, 10);
        if (strcmp(f[1], "request") == 0) {
            request_header h = decode_request_header(bytes);
            uint32_t kind = strcmp(f[2], "data") == 0 ? KIND_DATA : KIND_END;
            check(h.magic_ok && h.kind == kind && h.seq == seq && h.count == count, "header fields", f[0]);
            int ok = n == REQUEST_HEADER + 4 * (size_t)count;
            char *items = f[7], *end;
            for (uint32_t i = 0; ok && i < count; i++) {
                int32_t want = (int32_t)strtol(items, &end, 10), got;
                memcpy(&got, bytes + REQUEST_HEADER + 4 * i, 4);
                ok = got == want;
                items = end + 1;
            }
            check(ok, "items", f[0]);
        } else {
            uint8_t reply[REPLY_LEN];
            uint32_t status = strcmp(f[3], "ok") == 0 ? STATUS_OK : STATUS_BAD_FRAME;
            encode_reply(reply, status, seq, count, strtoll(f[6], NULL, 10));
            check(n == REPLY_LEN && memcmp(reply, bytes, REPLY_LEN) == 0, "encoded reply", f[0]);
        }
        free(bytes);
    }
    free(line);
    fclose(fp);
}

static void sessions(const char *dir) {
    char path[1024], *line = NULL, *f[3];
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/sessions.tsv", dir);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        check(0, "cannot open sessions.tsv", path);
        return;
    }
    fault none = {FAULT_NONE, 0};
    while (getline(&line, &cap, fp) > 0) {
        if (line[0] == '#' || fields(line, f, 3) != 3) continue;
        uint8_t *input, *want;
        size_t in_len = unhex(f[1], &input), want_len = unhex(f[2], &want);
        for (size_t chunk = 0; chunk <= 7; chunk += 7) {
            mem_in mi = {input, in_len, 0, chunk};
            mem_out mo = {NULL, 0, 0};
            stream in = {&mi, mem_read, mem_write, NULL, NULL}, out = {&mo, mem_read, mem_write, NULL, NULL};
            served s;
            char err[256];
            int rc = serve(&in, &out, none, &s, err, sizeof err);
            check(rc == 0 && mo.len == want_len && memcmp(mo.data, want, want_len) == 0,
                  chunk ? "output bytes (7-byte reads)" : "output bytes", f[0]);
            free(mo.data);
        }
        free(input);
        free(want);
    }
    free(line);
    fclose(fp);
}

/* Serve `input` from memory; returns serve's result, output in *mo. */
static int serve_mem(const uint8_t *input, size_t len, fault f, mem_out *mo, served *s, char *err) {
    mem_in mi = {input, len, 0, 0};
    stream in = {&mi, mem_read, mem_write, NULL, NULL}, out = {mo, mem_read, mem_write, NULL, NULL};
    return serve(&in, &out, f, s, err, 256);
}

static uint8_t *put_u32le(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint8_t *put_header(uint8_t *p, uint32_t kind, uint32_t seq, uint32_t count) {
    memcpy(p, "TOLL", 4);
    return put_u32le(put_u32le(put_u32le(p + 4, kind), seq), count);
}

/* What the vectors do not cover: a faulty worker, and streams that end early. */
static void edges(void) {
    uint8_t in[64], want[REPLY_LEN], *p = in;
    p = put_u32le(put_header(p, KIND_DATA, 0, 1), 5);
    p = put_u32le(put_u32le(put_header(p, KIND_DATA, 1, 2), 7), 0);
    p = put_header(p, KIND_END, 2, 0);
    size_t len = (size_t)(p - in);
    served s;
    char err[256];
    mem_out mo = {NULL, 0, 0};
    fault garbage = {FAULT_GARBAGE, 2};
    int rc = serve_mem(in, len, garbage, &mo, &s, err);
    encode_reply(want, STATUS_OK, 0, 1, 5);
    int ok = rc == 0 && mo.len == 3 * REPLY_LEN && memcmp(mo.data, want, REPLY_LEN) == 0;
    for (size_t i = REPLY_LEN; ok && i < 2 * REPLY_LEN; i++) ok = mo.data[i] == 0xAB;
    check(ok && s.frames == 2 && s.items == 3, "garbage:2 garbles only the 2-item frame", "fault-garbage");
    for (size_t cut = 1; cut < len; cut++) { /* every truncation is an error, never a hang or a crash */
        mo.len = 0;
        if (serve_mem(in, cut, (fault){FAULT_NONE, 0}, &mo, &s, err) != -1) {
            check(0, "a stream ending before END is an error", "truncated");
            free(mo.data);
            return;
        }
    }
    check(1, "", "truncated");
    free(mo.data);
}

/* The vectorised sum against a plain one: the 32-bit lanes' worst cases
   over more than one block, then a mix of values at ragged lengths. */
static void sums(void) {
    size_t n = 65536 * 5 / 2 + 3;
    uint8_t *b = malloc(4 * n);
    int32_t extremes[] = {INT32_MAX, INT32_MIN, -1, 0xFFFF, -0x10000};
    for (int e = 0; e < 5; e++) {
        for (size_t i = 0; i < n; i++) put_u32le(b + 4 * i, (uint32_t)extremes[e]);
        check(sum_items(b, n) == (int64_t)extremes[e] * (int64_t)n, "sum of one repeated extreme", "sum-extremes");
    }
    uint64_t s = 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005u + 1;
        put_u32le(b + 4 * i, (uint32_t)(s >> 32));
    }
    size_t cuts[] = {0, 1, 7, 8, 9, 65536, n};
    for (int c = 0; c < 7; c++) {
        int64_t plain = 0;
        for (size_t i = 0; i < cuts[c]; i++) {
            int32_t x;
            memcpy(&x, b + 4 * i, 4);
            plain += x;
        }
        check(sum_items(b, cuts[c]) == plain, "agrees with a plain sum", "sum-mixed");
    }
    free(b);
}

/* ---- end to end: the built worker, driven as toll drives it ---- */

typedef struct {
    pid_t pid;
    FILE *cmd, *ans;
    int req, rep; /* our ends of the pipes the worker has as fds 3 and 4 */
} worker;

static void start(worker *w, const char *exe, const char *fault_env) {
    int cin[2], cout[2], req[2], rep[2];
    if (pipe2(cin, O_CLOEXEC) || pipe2(cout, O_CLOEXEC) || pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC)) {
        perror("pipe2");
        exit(2);
    }
    w->pid = fork();
    if (w->pid == 0) {
        int from[4] = {cin[0], cout[1], req[0], rep[1]}, to[4] = {0, 1, 3, 4}, tmp[4];
        for (int i = 0; i < 4; i++) tmp[i] = fcntl(from[i], F_DUPFD_CLOEXEC, 10); /* clear of 0..4 */
        for (int i = 0; i < 4; i++) dup2(tmp[i], to[i]);
        if (fault_env) setenv("TOLL_WORKER_FAULT", fault_env, 1);
        signal(SIGPIPE, SIG_DFL); /* as toll (Rust) leaves it; ours is ignored */
        int null = open("/dev/null", O_WRONLY); /* its one-line reasons are noise here */
        if (null >= 0) dup2(null, 2);
        execl(exe, exe, (char *)NULL);
        _exit(127);
    }
    close(cin[0]), close(cout[1]), close(req[0]), close(rep[1]);
    w->cmd = fdopen(cin[1], "w");
    w->ans = fdopen(cout[0], "r");
    w->req = req[1];
    w->rep = rep[0];
}

static void send_line(worker *w, const char *line) {
    fprintf(w->cmd, "%s\n", line);
    fflush(w->cmd);
}

static char *recv_line(worker *w) {
    static char line[4096];
    if (!fgets(line, sizeof line, w->ans)) return strcpy(line, "(end of output)");
    line[strcspn(line, "\n")] = 0;
    return line;
}

static int wait_exit(worker *w) {
    fclose(w->cmd), fclose(w->ans), close(w->req), close(w->rep);
    int st;
    waitpid(w->pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int put_all(stream *s, const void *buf, size_t n) {
    for (const uint8_t *p = buf; n > 0;) {
        ssize_t k = s->write(s->ctx, p, n);
        if (k <= 0) return -1;
        p += k, n -= (size_t)k;
    }
    return 0;
}

static int get_all(stream *s, void *buf, size_t n) {
    for (uint8_t *p = buf; n > 0;) {
        ssize_t k = s->read(s->ctx, p, n);
        if (k <= 0) return -1;
        p += k, n -= (size_t)k;
    }
    return 0;
}

/* Send a DATA frame of `count` 123s; 0 when the reply is the right one. */
static int round_trip(stream *tx, stream *rx, uint32_t seq, uint32_t count) {
    size_t n = REQUEST_HEADER + 4 * (size_t)count;
    uint8_t *frame = malloc(n), got[REPLY_LEN], want[REPLY_LEN];
    uint8_t *q = put_header(frame, KIND_DATA, seq, count);
    for (uint32_t i = 0; i < count; i++) q = put_u32le(q, 123);
    encode_reply(want, STATUS_OK, seq, count, 123 * (int64_t)count);
    int rc = put_all(tx, frame, n) || get_all(rx, got, REPLY_LEN) || memcmp(got, want, REPLY_LEN) != 0;
    free(frame);
    return rc;
}

/* DATA frames of 0, 1, 1000 and 70000 items, then END; checks every reply and the done line. */
static void session(worker *w, stream *tx, stream *rx, const char *name) {
    static const uint32_t counts[] = {0, 1, 1000, 70000};
    int ok = 1;
    for (uint32_t seq = 0; ok && seq < 4; seq++) ok = round_trip(tx, rx, seq, counts[seq]) == 0;
    uint8_t got[REPLY_LEN], want[REPLY_LEN], end[REQUEST_HEADER];
    put_header(end, KIND_END, 4, 0);
    encode_reply(want, STATUS_OK, 4, 0, 0);
    ok = ok && put_all(tx, end, 16) == 0 && get_all(rx, got, REPLY_LEN) == 0 && memcmp(got, want, REPLY_LEN) == 0;
    check(ok, "replies", name);
    char *done = recv_line(w);
    check(strcmp(done, "{\"ok\":true,\"event\":\"done\",\"frames\":4,\"items\":71001}") == 0, done, name);
}

static void expect(worker *w, const char *want, const char *name) {
    char *got = recv_line(w);
    check(strncmp(got, want, strlen(want)) == 0, got, name);
}

static int listen_on(struct sockaddr *sa, socklen_t len) {
    int l = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0 || bind(l, sa, len) < 0 || listen(l, 1) < 0 || getsockname(l, sa, &len) < 0) {
        perror("listen");
        exit(2);
    }
    return l;
}

/* Create and initialise a shm file as the harness does; a 64 KiB ring makes big frames wrap. */
static void make_shm(const char *path, uint32_t mode) {
    uint32_t cap = 1 << 16, head[3] = {1, cap, mode};
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, 4096 + 2 * cap) < 0 || pwrite(fd, "TOLLSHM1", 8, 0) != 8 ||
        pwrite(fd, head, 12, 8) != 12) {
        perror(path);
        exit(2);
    }
    close(fd);
}

static void timed_out(int sig) {
    (void)sig;
    printf("FAIL end to end: timed out (the worker died or hung)\n%d passed, %d failed\n", passed, failed + 1);
    fflush(stdout);
    _exit(1);
}

/* spawn and ring for each unit: done, with the units made and the hops of the spec. */
static void units(worker *w) {
    const char *kinds[] = {"process", "thread"};
    for (int i = 0; i < 2; i++) {
        char cmd[160], want[160];
        snprintf(cmd, sizeof cmd, "{\"op\":\"spawn\",\"unit\":\"%s\",\"n\":50}", kinds[i]);
        send_line(w, cmd);
        snprintf(want, sizeof want, "{\"ok\":true,\"event\":\"done\",\"unit\":\"%s\",\"n\":50,\"made\":50,\"ns\":", kinds[i]);
        char *got = recv_line(w);
        check(strncmp(got, want, strlen(want)) == 0 && strstr(got, "\"mem_kb\":"), got, "e2e-spawn");
        snprintf(cmd, sizeof cmd, "{\"op\":\"ring\",\"unit\":\"%s\",\"n\":7,\"m\":13}", kinds[i]);
        send_line(w, cmd);
        got = recv_line(w);
        check(strstr(got, "\"ok\":true") && strstr(got, "\"hops\":91,"), got, "e2e-ring");
    }
    send_line(w, "{\"op\":\"ring\",\"unit\":\"thread\",\"n\":1,\"m\":5}");
    expect(w, "{\"ok\":false,\"error\":\"a ring needs", "e2e-ring-of-one");
    send_line(w, "{\"op\":\"spawn\",\"unit\":\"fiber\",\"n\":5}");
    expect(w, "{\"ok\":false,\"error\":\"unknown unit `fiber`", "e2e-unknown-unit");
}

/* file: pread and mmap, seq and random, sum every byte read (spec/wire.md, `file`). */
static void file_methods(worker *w, const char *dir) {
    char path[256], offs_path[256], cmd[800], want[64];
    unsigned char data[5000];
    uint64_t offs[3] = {7, 4000, 123}, seq_sum = 0, rnd_sum = 0;
    for (int i = 0; i < 5000; i++) data[i] = (unsigned char)(i * 7 + 3);
    for (int i = 0; i < 5000; i++) seq_sum += data[i]; /* 10 reads of 50 and 450 = all 5000 bytes */
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 450; i++) rnd_sum += data[offs[r] + (uint64_t)i];
    snprintf(path, sizeof path, "%s/file", dir);
    snprintf(offs_path, sizeof offs_path, "%s/offsets", dir);
    FILE *f = fopen(path, "wb"), *o = fopen(offs_path, "wb");
    check(f && o && fwrite(data, 1, sizeof data, f) == sizeof data && fwrite(offs, 8, 3, o) == 3, "write", "e2e-file-setup");
    fclose(f);
    fclose(o);
    const char *methods[] = {"pread", "mmap"};
    for (int m = 0; m < 2; m++) {
        snprintf(cmd, sizeof cmd,
                 "{\"op\":\"file\",\"method\":\"%s\",\"path\":\"%s\",\"pattern\":\"seq\",\"lens\":[50,450],\"reads\":20}",
                 methods[m], path);
        send_line(w, cmd);
        char *got = recv_line(w);
        snprintf(want, sizeof want, "\"sum\":%llu,\"sum_of\":\"bytes\"", (unsigned long long)seq_sum);
        check(strstr(got, "\"ok\":true") && strstr(got, "\"bytes\":5000,") && strstr(got, want), got, "e2e-file-seq");
        snprintf(cmd, sizeof cmd,
                 "{\"op\":\"file\",\"method\":\"%s\",\"path\":\"%s\",\"pattern\":\"random\",\"lens\":[450],"
                 "\"reads\":3,\"offsets\":\"%s\"}",
                 methods[m], path, offs_path);
        send_line(w, cmd);
        got = recv_line(w);
        snprintf(want, sizeof want, "\"sum\":%llu,", (unsigned long long)rnd_sum);
        check(strstr(got, "\"ok\":true") && strstr(got, want), got, "e2e-file-random");
    }
    snprintf(cmd, sizeof cmd,
             "{\"op\":\"file\",\"method\":\"mmap-read\",\"path\":\"%s\",\"pattern\":\"seq\",\"lens\":[5],\"reads\":1}", path);
    send_line(w, cmd);
    expect(w, "{\"ok\":false,\"error\":\"no method mmap-read: the c worker has pread, mmap\"}", "e2e-file-unknown-method");
    unlink(path);
    unlink(offs_path);
}

static void end_to_end(const char *exe) {
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, timed_out); /* a dead or hung worker fails the test rather than hanging it */
    alarm(30);
    worker w;
    char cmd[512], dir[] = "/tmp/toll-test-c-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    start(&w, exe, NULL);
    send_line(&w, "{\"op\":\"hello\"}");
    char *hello = recv_line(&w);
    check(strstr(hello, "\"ok\":true,\"runtime\":\"c\",\"version\":\"") && strstr(hello, "\"wire\":1") &&
              strstr(hello, "\"transports\":[\"pipe\",\"unix\",\"tcp\",\"shm\"]"),
          hello, "e2e-hello");
    send_line(&w, "{\"op\":\"nonsense\"}");
    expect(&w, "{\"ok\":false,\"error\":\"", "e2e-unknown-op");
    units(&w);
    file_methods(&w, dir);

    stream tx = {&w.req, fd_read, fd_write, NULL, NULL}, rx = {&w.rep, fd_read, fd_write, NULL, NULL};
    for (int i = 0; i < 2; i++) { /* the pipes stay open from one transfer to the next */
        send_line(&w, "{\"op\":\"transfer\",\"transport\":\"pipe\",\"read_fd\":3,\"write_fd\":4}");
        expect(&w, "{\"ok\":true,\"event\":\"ready\"}", "e2e-pipe");
        session(&w, &tx, &rx, "e2e-pipe");
    }

    struct sockaddr_un su = {.sun_family = AF_UNIX};
    snprintf(su.sun_path, sizeof su.sun_path, "%s/sock", dir);
    int l = listen_on((struct sockaddr *)&su, sizeof su);
    snprintf(cmd, sizeof cmd, "{\"op\":\"transfer\",\"transport\":\"unix\",\"path\":\"%s\"}", su.sun_path);
    send_line(&w, cmd);
    int c = accept(l, NULL, NULL);
    expect(&w, "{\"ok\":true,\"event\":\"ready\"}", "e2e-unix");
    tx.ctx = rx.ctx = &c;
    session(&w, &tx, &rx, "e2e-unix");
    close(c);
    /* A harness that hangs up mid-frame, or stops reading so the reply meets
       EPIPE (SIGPIPE unless ignored): an error answer, and the worker lives on. */
    for (int stop_reading = 0; stop_reading <= 1; stop_reading++) {
        send_line(&w, cmd);
        c = accept(l, NULL, NULL);
        expect(&w, "{\"ok\":true,\"event\":\"ready\"}", "e2e-broken");
        uint8_t frame[REQUEST_HEADER + 4];
        put_u32le(put_header(frame, KIND_DATA, 0, 1), 123);
        if (stop_reading) shutdown(c, SHUT_RD);
        put_all(&tx, frame, stop_reading ? sizeof frame : REQUEST_HEADER);
        if (!stop_reading) close(c);
        expect(&w, stop_reading ? "{\"ok\":false,\"error\":\"data channel: writing: "
                                : "{\"ok\":false,\"error\":\"data channel: ", "e2e-broken");
        if (stop_reading) close(c);
    }
    close(l);
    unlink(su.sun_path);

    struct sockaddr_in si = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    l = listen_on((struct sockaddr *)&si, sizeof si);
    snprintf(cmd, sizeof cmd, "{\"op\":\"transfer\",\"transport\":\"tcp\",\"host\":\"127.0.0.1\",\"port\":%d}",
             ntohs(si.sin_port));
    send_line(&w, cmd);
    c = accept(l, NULL, NULL);
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    expect(&w, "{\"ok\":true,\"event\":\"ready\"}", "e2e-tcp");
    session(&w, &tx, &rx, "e2e-tcp");
    close(c);
    close(l);

    for (uint32_t mode = 0; mode <= 1; mode++) {
        char path[64], err[256], name[32];
        stream in, out;
        snprintf(path, sizeof path, "%s/shm%u", dir, mode);
        snprintf(name, sizeof name, "e2e-shm-mode%u", mode);
        make_shm(path, mode);
        if (shm_connect(path, &in, &out, err, sizeof err) < 0) {
            check(0, err, name);
            continue;
        }
        /* The worker reads ring 0 and writes ring 1; we are the other end of each. */
        stream stx = {in.ctx, in.read, in.write, NULL, NULL}, srx = {out.ctx, out.read, out.write, NULL, NULL};
        snprintf(cmd, sizeof cmd, "{\"op\":\"transfer\",\"transport\":\"shm\",\"path\":\"%s\"}", path);
        send_line(&w, cmd);
        expect(&w, "{\"ok\":true,\"event\":\"ready\"}", name);
        session(&w, &stx, &srx, name);
        shm_close(&in);
        unlink(path);
    }

    send_line(&w, "{\"op\":\"transfer\",\"transport\":\"carrier-pigeon\"}");
    expect(&w, "{\"ok\":false,\"error\":\"unsupported transport: carrier-pigeon\"}", "e2e-bad-transport");
    send_line(&w, "{\"op\":\"exit\"}");
    check(wait_exit(&w) == 0, "exit answers nothing and exits 0", "e2e-exit");
    start(&w, exe, NULL);
    check(wait_exit(&w) == 0, "end of stdin exits 0", "e2e-eof");

    /* TOLL_WORKER_FAULT: the first DATA frame of >= 1000 items is not answered properly. */
    const char *faults[] = {"exit:1000", "garbage:1000"};
    for (int i = 0; i < 2; i++) {
        start(&w, exe, faults[i]);
        tx.ctx = &w.req, rx.ctx = &w.rep;
        send_line(&w, "{\"op\":\"transfer\",\"transport\":\"pipe\",\"read_fd\":3,\"write_fd\":4}");
        expect(&w, "{\"ok\":true,\"event\":\"ready\"}", faults[i]);
        check(round_trip(&tx, &rx, 0, 999) == 0, "a frame below K is answered", faults[i]);
        uint8_t got[REPLY_LEN], garbage[REPLY_LEN];
        memset(garbage, 0xAB, REPLY_LEN);
        uint8_t *frame = calloc(1, 16 + 4000);
        put_header(frame, KIND_DATA, 1, 1000);
        put_all(&tx, frame, 16 + 4000);
        free(frame);
        int got_reply = get_all(&rx, got, REPLY_LEN) == 0;
        if (i == 0) {
            check(!got_reply && wait_exit(&w) == 3, "exits with status 3 and no reply", faults[i]);
        } else {
            check(got_reply && memcmp(got, garbage, REPLY_LEN) == 0, "24 bytes of 0xAB", faults[i]);
            send_line(&w, "{\"op\":\"exit\"}");
            wait_exit(&w);
        }
    }
    rmdir(dir);
    alarm(0);
}

/* Usage: test_wire VECTORS_DIR [WORKER]: the vectors, then, given the built worker, end to end. */
int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "../../spec/vectors";
    frames(dir);
    sessions(dir);
    edges();
    sums();
    if (argc > 2) end_to_end(argv[2]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed || passed == 0;
}
