/* toll's C worker: the control plane of spec/wire.md on stdin/stdout, serving
   transfers over inherited pipes, unix sockets, loopback TCP and shared memory;
   spawn and ring are in units.c, file in file.c, ffi in ffi.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ffi.h"
#include "file.h"
#include "shm.h"
#include "units.h"
#include "wire.h"

/* Where the value of "key" starts in a flat JSON object, or NULL. A match
   must be followed by a colon, so a string value equal to a key is skipped. */
static const char *json_value(const char *line, const char *key) {
    char pat[64];
    size_t n = (size_t)snprintf(pat, sizeof pat, "\"%s\"", key);
    for (const char *p = strstr(line, pat); p; p = strstr(p + 1, pat)) {
        const char *v = p + n;
        while (*v == ' ' || *v == '\t') v++;
        if (*v++ != ':') continue;
        while (*v == ' ' || *v == '\t') v++;
        return v;
    }
    return NULL;
}

/* The string value of "key" (escapes \" and \\ only; tiny, for toll's flat commands). */
static int json_str(const char *line, const char *key, char *out, size_t len) {
    const char *p = json_value(line, key);
    if (!p || *p++ != '"') return 0;
    size_t i = 0;
    for (; *p && *p != '"' && i + 1 < len; p++) {
        if (*p == '\\' && p[1]) p++;
        out[i++] = *p;
    }
    out[i] = 0;
    return *p == '"';
}

/* The number value of "key", or -1. */
static long json_num(const char *line, const char *key) {
    const char *p = json_value(line, key);
    return (p && *p >= '0' && *p <= '9') ? strtol(p, NULL, 10) : -1;
}

static void answer(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* {"ok":false,"error":"<what><detail>"} on stdout; the same reason on stderr. */
static void answer_error(const char *what, const char *detail) {
    fprintf(stderr, "toll-worker-c: %s%s\n", what, detail);
    printf("{\"ok\":false,\"error\":\"%s", what);
    for (const char *p = detail; *p; p++) {
        if (*p == '"' || *p == '\\') putchar('\\');
        if ((unsigned char)*p >= 0x20) putchar(*p);
    }
    answer("\"}");
}

static int connect_socket(const char *line, const char *transport, char *err, size_t errlen) {
    char buf[512], service[24] = "";
    long port = 0;
    int fd;
    if (strcmp(transport, "unix") == 0) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (!json_str(line, "path", buf, sizeof buf) || strlen(buf) >= sizeof sa.sun_path) {
            snprintf(err, errlen, "transfer command lacks a usable `path`");
            return -1;
        }
        strcpy(sa.sun_path, buf);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) goto fail;
        return fd;
    }
    port = json_num(line, "port");
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
    if (!json_str(line, "host", buf, sizeof buf) || port <= 0 || port > 65535) {
        snprintf(err, errlen, "transfer command lacks `host` or `port`");
        return -1;
    }
    snprintf(service, sizeof service, "%ld", port);
    if (getaddrinfo(buf, service, &hints, &ai) != 0) {
        snprintf(err, errlen, "cannot resolve %.64s", buf);
        return -1;
    }
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0, saved = errno;
    freeaddrinfo(ai);
    errno = saved;
    if (!ok) goto fail;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
fail:
    snprintf(err, errlen, "cannot connect to %.200s%s%s: %s", buf, port > 0 ? ":" : "", port > 0 ? service : "",
             strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
}

static void transfer(const char *line, fault f) {
    char transport[16], path[512], err[256] = "";
    int rfd = -1, wfd = -1, is_shm = 0, is_pipe = 0;
    stream in, out;
    if (!json_str(line, "transport", transport, sizeof transport)) {
        answer_error("transfer command lacks `transport`", "");
        return;
    }
    if (strcmp(transport, "pipe") == 0) {
        /* Inherited from toll (fds 3 and 4); they stay open for the next transfer. */
        rfd = (int)json_num(line, "read_fd");
        wfd = (int)json_num(line, "write_fd");
        if (rfd < 0 || wfd < 0) {
            answer_error("transfer command lacks `read_fd` or `write_fd`", "");
            return;
        }
        is_pipe = 1;
    } else if (strcmp(transport, "unix") == 0 || strcmp(transport, "tcp") == 0) {
        rfd = wfd = connect_socket(line, transport, err, sizeof err);
        if (rfd < 0) {
            answer_error("", err);
            return;
        }
    } else if (strcmp(transport, "shm") == 0) {
        if (!json_str(line, "path", path, sizeof path) || shm_connect(path, &in, &out, err, sizeof err) < 0) {
            answer_error("shm: ", err[0] ? err : "transfer command lacks `path`");
            return;
        }
        is_shm = 1;
    } else {
        answer_error("unsupported transport: ", transport);
        return;
    }
    if (!is_shm) {
        in = (stream){&rfd, fd_read, fd_write, NULL, NULL};
        out = (stream){&wfd, fd_read, fd_write, NULL, NULL};
    }
    answer("{\"ok\":true,\"event\":\"ready\"}");
    served s;
    int rc = serve(&in, &out, f, &s, err, sizeof err);
    if (is_shm) {
        shm_close(&in);
    } else if (!is_pipe) {
        close(rfd);
        if (wfd != rfd) close(wfd);
    }
    if (rc < 0)
        answer_error("data channel: ", err);
    else
        answer("{\"ok\":true,\"event\":\"done\",\"frames\":%llu,\"items\":%llu}", (unsigned long long)s.frames,
               (unsigned long long)s.items);
}

/* The numbers of the array value of "key" (at most `max`), or -1. */
static int json_nums(const char *line, const char *key, long *out, int max) {
    const char *p = json_value(line, key);
    if (!p || *p++ != '[') return -1;
    int n = 0;
    for (;;) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ']') return n;
        if (*p < '0' || *p > '9' || n == max) return -1;
        out[n++] = strtol(p, (char **)&p, 10);
    }
}

/* One `file` trial (file.c). */
static void file(const char *line) {
    char method[32] = "", pattern[16] = "", path[4096] = "", offsets[4096] = "", out[512];
    long lens[16];
    json_str(line, "method", method, sizeof method);
    json_str(line, "pattern", pattern, sizeof pattern);
    int nlens = json_nums(line, "lens", lens, 16), random = strcmp(pattern, "random") == 0;
    if (!json_str(line, "path", path, sizeof path) || nlens < 1 || (!random && strcmp(pattern, "seq") != 0) ||
        (random && !json_str(line, "offsets", offsets, sizeof offsets))) {
        answer_error("file command lacks path, pattern, lens or offsets", "");
        return;
    }
    file_run(method, path, random, lens, nlens, json_num(line, "reads"), offsets, out, sizeof out);
    answer("%s", out);
}

/* spawn and ring; exit:K makes the worker exit instead when n >= K. */
static void units(const char *op, const char *line, fault f) {
    char unit[64] = "", out[512];
    long n = json_num(line, "n"), m = json_num(line, "m");
    json_str(line, "unit", unit, sizeof unit);
    if (f.kind == FAULT_EXIT && n >= (long)f.k) exit(3);
    if (strcmp(op, "spawn") == 0)
        units_spawn(unit, n, out, sizeof out);
    else
        units_ring(unit, n, m, out, sizeof out);
    answer("%s", out);
}

/* One `ffi` command (ffi.c). */
static void ffi(const char *line) {
    char binding[32] = "", pass[32] = "pinned", touch[32] = "all", out[512];
    json_str(line, "binding", binding, sizeof binding);
    json_str(line, "pass", pass, sizeof pass);
    json_str(line, "touch", touch, sizeof touch);
    ffi_run(binding, pass, touch, json_num(line, "n"), json_num(line, "reps"), json_num(line, "seed"), out,
            sizeof out);
    answer("%s", out);
}

#ifdef __clang__
#define COMPILER "clang " __clang_version__
#else
#define COMPILER "gcc " __VERSION__
#endif

int main(void) {
    /* A harness gone mid-transfer must yield an error answer (EPIPE), not a silent death. */
    signal(SIGPIPE, SIG_IGN);
    fault f = fault_from_env();
    char *line = NULL, op[32], bindings[64];
    ffi_bindings_json(bindings, sizeof bindings);
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        if (!json_str(line, "op", op, sizeof op)) {
            answer_error("command has no `op`", "");
        } else if (strcmp(op, "hello") == 0) {
            answer("{\"ok\":true,\"runtime\":\"c\",\"version\":\"%s\",\"wire\":1,\"pid\":%d,"
                   "\"ops\":[\"transfer\",\"spawn\",\"ring\",\"file\",\"ffi\"],\"bindings\":%s,\"file_methods\":" FILE_METHODS_JSON ",\"transports\":[\"pipe\",\"unix\",\"tcp\",\"shm\"],"
                   "\"units\":" UNITS_JSON "}",
                   COMPILER, (int)getpid(), bindings);
        } else if (strcmp(op, "spawn") == 0 || strcmp(op, "ring") == 0) {
            units(op, line, f);
        } else if (strcmp(op, "file") == 0) {
            file(line);
        } else if (strcmp(op, "ffi") == 0) {
            ffi(line);
        } else if (strcmp(op, "transfer") == 0) {
            transfer(line, f);
        } else if (strcmp(op, "exit") == 0) {
            break;
        } else {
            answer_error("unknown op: ", op);
        }
    }
    free(line);
    return 0;
}
