/* The C worker's own test: every frame and session of spec/vectors.
   Usage: test_wire VECTORS_DIR. Prints "N passed, M failed". */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            stream in = {&mi, mem_read, mem_write}, out = {&mo, mem_read, mem_write};
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

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "../../spec/vectors";
    frames(dir);
    sessions(dir);
    printf("%d passed, %d failed\n", passed, failed);
    return failed || passed == 0;
}
