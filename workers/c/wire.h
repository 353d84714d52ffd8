/* The data plane of spec/wire.md: frames and the serve loop. */
#ifndef TOLL_WIRE_H
#define TOLL_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REQUEST_HEADER 16
#define REPLY_LEN 24
#define KIND_DATA 1
#define KIND_END 2
#define STATUS_OK 0
#define STATUS_BAD_FRAME 1

/* A byte stream: a pipe, a socket, or a shared-memory ring. A ring also
   lends its bytes in place (peek, then consume), so serve() sums items
   where the harness wrote them; streams without peek are read into a buffer. */
typedef struct {
    void *ctx;
    ssize_t (*read)(void *ctx, void *buf, size_t n);   /* >0 bytes, 0 at end, <0 error */
    ssize_t (*write)(void *ctx, const void *buf, size_t n);
    const uint8_t *(*peek)(void *ctx, size_t *n);      /* waits for >0 bytes; NULL on error */
    void (*consume)(void *ctx, size_t n);              /* hands n peeked bytes back */
} stream;

typedef struct {
    uint64_t frames, items;
} served;

/* TOLL_WORKER_FAULT, for tests: exit:K exits (3) instead of answering the
   first DATA frame of K or more items; garbage:K answers it with 24 bytes of 0xAB. */
typedef struct {
    enum { FAULT_NONE, FAULT_EXIT, FAULT_GARBAGE } kind;
    uint64_t k;
} fault;

fault fault_from_env(void);

typedef struct {
    int magic_ok;
    uint32_t kind, seq, count;
} request_header;

request_header decode_request_header(const uint8_t in[REQUEST_HEADER]);
void encode_reply(uint8_t out[REPLY_LEN], uint32_t status, uint32_t seq, uint32_t count, int64_t sum);

/* Serve frames until END (answered) or a bad frame (answered BAD_FRAME).
   Returns 0, or -1 with a reason in err. */
int serve(stream *in, stream *out, fault f, served *result, char *err, size_t errlen);

/* The sum of n little-endian int32 items at p (the reply's sum). */
int64_t sum_items(const uint8_t *p, size_t n);

/* Streams over file descriptors. */
ssize_t fd_read(void *ctx, void *buf, size_t n);
ssize_t fd_write(void *ctx, const void *buf, size_t n);

#endif
