/* Frames and the buffered serve loop of spec/wire.md. */
#include "wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF (256 * 1024)

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

request_header decode_request_header(const uint8_t in[REQUEST_HEADER]) {
    request_header h;
    h.magic_ok = memcmp(in, "TOLL", 4) == 0;
    h.kind = get_u32(in + 4);
    h.seq = get_u32(in + 8);
    h.count = get_u32(in + 12);
    return h;
}

void encode_reply(uint8_t out[REPLY_LEN], uint32_t status, uint32_t seq, uint32_t count, int64_t sum) {
    memcpy(out, "TOLR", 4);
    put_u32(out + 4, status);
    put_u32(out + 8, seq);
    put_u32(out + 12, count);
    uint64_t s = (uint64_t)sum;
    for (int i = 0; i < 8; i++) out[16 + i] = (uint8_t)(s >> (8 * i));
}

fault fault_from_env(void) {
    fault f = {FAULT_NONE, 0};
    const char *v = getenv("TOLL_WORKER_FAULT");
    if (!v) return f;
    if (strncmp(v, "exit:", 5) == 0) {
        f.kind = FAULT_EXIT;
        f.k = strtoull(v + 5, NULL, 10);
    } else if (strncmp(v, "garbage:", 8) == 0) {
        f.kind = FAULT_GARBAGE;
        f.k = strtoull(v + 8, NULL, 10);
    }
    return f;
}

ssize_t fd_read(void *ctx, void *buf, size_t n) {
    ssize_t r;
    do r = read(*(int *)ctx, buf, n);
    while (r < 0 && errno == EINTR);
    return r;
}

ssize_t fd_write(void *ctx, const void *buf, size_t n) {
    ssize_t r;
    do r = write(*(int *)ctx, buf, n);
    while (r < 0 && errno == EINTR);
    return r;
}

static int write_all(stream *out, const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t w = out->write(out->ctx, p, n);
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

typedef struct {
    stream *in;
    uint8_t *buf;
    size_t start, end;
} reader;

/* Read more, keeping unconsumed bytes: 1 read, 0 end of stream, -1 error. */
static int fill(reader *r) {
    if (r->start == r->end) {
        r->start = r->end = 0;
    } else if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    ssize_t n = r->in->read(r->in->ctx, r->buf + r->end, BUF - r->end);
    if (n < 0) return -1;
    r->end += (size_t)n;
    return n > 0;
}

int serve(stream *in, stream *out, fault f, served *result, char *err, size_t errlen) {
    reader r = {in, malloc(BUF), 0, 0};
    uint32_t expected = 0;
    int rc = -1;
    result->frames = result->items = 0;
    if (!r.buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (;;) {
        while (r.end - r.start < REQUEST_HEADER) {
            int got = fill(&r);
            if (got <= 0) {
                snprintf(err, errlen, got < 0 ? "reading: %s" : "data channel closed before the END frame",
                         strerror(errno));
                goto done;
            }
        }
        request_header h = decode_request_header(r.buf + r.start);
        r.start += REQUEST_HEADER;
        uint8_t reply[REPLY_LEN];
        int bad = !h.magic_ok || (h.kind != KIND_DATA && h.kind != KIND_END) || h.seq != expected;
        if (bad || h.kind == KIND_END) {
            /* Either way the transfer is over: after a bad frame the stream cannot be trusted. */
            encode_reply(reply, bad ? STATUS_BAD_FRAME : STATUS_OK, h.seq, 0, 0);
            rc = write_all(out, reply, REPLY_LEN);
            if (rc < 0) snprintf(err, errlen, "writing: %s", strerror(errno));
            goto done;
        }
        if (f.kind == FAULT_EXIT && h.count >= f.k) _exit(3);
        uint64_t left = (uint64_t)h.count * 4;
        int64_t sum = 0;
        while (left > 0) {
            if (r.end - r.start < 4) {
                int got = fill(&r);
                if (got <= 0) {
                    snprintf(err, errlen, got < 0 ? "reading: %s" : "data channel closed inside a frame",
                             strerror(errno));
                    goto done;
                }
                continue;
            }
            size_t avail = (r.end - r.start) / 4 * 4;
            size_t take = left < avail ? (size_t)left : avail;
            const uint8_t *p = r.buf + r.start;
            for (size_t i = 0; i < take; i += 4) sum += (int32_t)get_u32(p + i); /* compiles to one load */
            r.start += take;
            left -= take;
        }
        if (f.kind == FAULT_GARBAGE && h.count >= f.k)
            memset(reply, 0xAB, REPLY_LEN);
        else
            encode_reply(reply, STATUS_OK, h.seq, h.count, sum);
        if (write_all(out, reply, REPLY_LEN) < 0) {
            snprintf(err, errlen, "writing: %s", strerror(errno));
            goto done;
        }
        result->frames++;
        result->items += h.count;
        expected++;
    }
done:
    free(r.buf);
    return rc;
}
