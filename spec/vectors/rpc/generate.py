#!/usr/bin/env python3
"""Writes vectors.tsv from spec/rpc.md's definitions of the raw frames and the
gRPC messages.

Run from anywhere: python3 spec/vectors/rpc/generate.py. The output is
committed; servers' tests read it, never this script.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_FRAME = 64 << 20  # spec/rpc.md: a longer frame is a broken stream
FILL = b"x"  # payload bytes carry no meaning; toll's client sends these


def raw_request(n):
    return struct.pack("<I", n) + FILL * n


def raw_reply(n):
    return struct.pack("<I", n)


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def payload(n):
    # Payload{bytes data = 1}: proto3 leaves an empty field out entirely.
    return b"" if n == 0 else b"\x0a" + varint(n) + FILL * n


def ack(n):
    # Ack{uint32 received = 1}
    return b"" if n == 0 else b"\x08" + varint(n)


ROWS = [
    # name, stack, what, n, bytes, expect
    ("raw-request-0", "raw", "request", 0, raw_request(0), "reply raw-reply-0"),
    ("raw-reply-0", "raw", "reply", 0, raw_reply(0), "-"),
    ("raw-request-5", "raw", "request", 5, raw_request(5), "reply raw-reply-5"),
    ("raw-reply-5", "raw", "reply", 5, raw_reply(5), "-"),
    ("raw-request-300", "raw", "request", 300, raw_request(300), "reply raw-reply-300"),
    ("raw-reply-300", "raw", "reply", 300, raw_reply(300), "-"),
    # Pipelined: three frames back to back in one write; replies in order.
    ("raw-pipelined-0-5-0", "raw", "request", 5, raw_request(0) + raw_request(5) + raw_request(0),
     "reply raw-replies-0-5-0"),
    ("raw-replies-0-5-0", "raw", "reply", 5, raw_reply(0) + raw_reply(5) + raw_reply(0), "-"),
    # One byte over the limit: the server closes the connection, no reply.
    ("raw-request-oversize", "raw", "request", MAX_FRAME + 1, struct.pack("<I", MAX_FRAME + 1), "close"),
    ("grpc-payload-0", "grpc", "request", 0, payload(0), "reply grpc-ack-0"),
    ("grpc-ack-0", "grpc", "reply", 0, ack(0), "-"),
    ("grpc-payload-5", "grpc", "request", 5, payload(5), "reply grpc-ack-5"),
    ("grpc-ack-5", "grpc", "reply", 5, ack(5), "-"),
    ("grpc-payload-300", "grpc", "request", 300, payload(300), "reply grpc-ack-300"),
    ("grpc-ack-300", "grpc", "reply", 300, ack(300), "-"),
]


def main():
    with open(os.path.join(HERE, "vectors.tsv"), "w") as f:
        f.write("# name\tstack\twhat\tn\texpect\thex\n")
        for name, stack, what, n, data, expect in ROWS:
            f.write(f"{name}\t{stack}\t{what}\t{n}\t{expect}\t{data.hex() or '-'}\n")


if __name__ == "__main__":
    main()
