#!/usr/bin/env python3
"""Writes frames.tsv, sessions.tsv and ffi.tsv from spec/wire.md's definitions.

Run from anywhere: python3 spec/vectors/generate.py. The output is committed;
workers' tests read it, never this script.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
REQ_MAGIC, REP_MAGIC = b"TOLL", b"TOLR"
KINDS = {"data": 1, "end": 2}
STATUS = {"ok": 0, "bad_frame": 1}


def request(kind, seq, items):
    return REQ_MAGIC + struct.pack("<III", KINDS[kind], seq, len(items)) + struct.pack(f"<{len(items)}i", *items)


def reply(status, seq, count, total):
    return REP_MAGIC + struct.pack("<IIIq", STATUS[status], seq, count, total)


FRAMES = [
    ("request-empty", "request", "data", 0, []),
    ("request-one", "request", "data", 1, [123]),
    ("request-three", "request", "data", 2, [123, 123, 123]),
    ("request-signed", "request", "data", 3, [1, -2, 2147483647, -2147483648]),
    ("request-end", "request", "end", 4, []),
]
REPLIES = [
    ("reply-empty", "ok", 0, 0, 0),
    ("reply-one", "ok", 1, 1, 123),
    ("reply-three", "ok", 2, 3, 369),
    ("reply-signed", "ok", 3, 4, 1 - 2 + 2147483647 - 2147483648),
    ("reply-end", "ok", 4, 0, 0),
    ("reply-bad", "bad_frame", 9, 0, 0),
    ("reply-big-sum", "ok", 5, 1048576, 123 * 1048576),
]

SESSIONS = [
    (
        "three-then-end",
        [request("data", 0, [123] * 3), request("data", 1, []), request("data", 2, [123] * 10), request("end", 3, [])],
        [reply("ok", 0, 3, 369), reply("ok", 1, 0, 0), reply("ok", 2, 10, 1230), reply("ok", 3, 0, 0)],
    ),
    (
        "bad-magic",
        [request("data", 0, [123]), b"XOLL" + struct.pack("<III", 1, 1, 0)],
        [reply("ok", 0, 1, 123), reply("bad_frame", 1, 0, 0)],
    ),
    (
        "bad-seq",
        [request("data", 0, [7]), request("data", 5, [7])],
        [reply("ok", 0, 1, 7), reply("bad_frame", 5, 0, 0)],
    ),
    (
        "bad-kind",
        [REQ_MAGIC + struct.pack("<III", 9, 0, 0)],
        [reply("bad_frame", 0, 0, 0)],
    ),
    (
        "large",
        [request("data", 0, [123] * 20000), request("end", 1, [])],
        [reply("ok", 0, 20000, 123 * 20000), reply("ok", 1, 0, 0)],
    ),
]


# `ffi`: (name, n, seed); byte i of the buffer is (seed + 131·i) mod 256.
FFI = [
    ("null", 0, 0),
    ("one-zero", 1, 0),
    ("one", 1, 7),
    ("two-wraps", 2, 200),
    ("period", 256, 93),
    ("thousand", 1000, 42),
    ("past-64k", 65539, 255),
    ("mebibyte", 1 << 20, 9),
]


def ffi_sum(n, seed):
    """The sum of the pattern's n bytes, byte by byte (toll's own is closed-form)."""
    return sum((seed + 131 * i) % 256 for i in range(n))


def main():
    with open(os.path.join(HERE, "frames.tsv"), "w") as f:
        f.write("# name\ttype\tkind\tstatus\tseq\tcount\tsum\titems\thex\n")
        for name, typ, kind, seq, items in FRAMES:
            items_s = ",".join(map(str, items)) or "-"
            f.write(f"{name}\t{typ}\t{kind}\t-\t{seq}\t{len(items)}\t-\t{items_s}\t{request(kind, seq, items).hex()}\n")
        for name, status, seq, count, total in REPLIES:
            f.write(f"{name}\treply\t-\t{status}\t{seq}\t{count}\t{total}\t-\t{reply(status, seq, count, total).hex()}\n")
    with open(os.path.join(HERE, "sessions.tsv"), "w") as f:
        f.write("# name\tinput_hex\toutput_hex\n")
        for name, ins, outs in SESSIONS:
            f.write(f"{name}\t{b''.join(ins).hex()}\t{b''.join(outs).hex()}\n")


def write_ffi():
    with open(os.path.join(HERE, "ffi.tsv"), "w") as f:
        f.write("# name\tn\tseed\tsum  (byte i = (seed + 131*i) mod 256; sum of the n bytes)\n")
        for name, n, seed in FFI:
            f.write(f"{name}\t{n}\t{seed}\t{ffi_sum(n, seed)}\n")


def ffi_receipt(data):
    """toll_ffi_receipt: 0 for no bytes, else n << 24 | first << 16 | middle << 8 | last."""
    n = len(data)
    return 0 if n == 0 else n << 24 | data[0] << 16 | data[n // 2] << 8 | data[n - 1]


def ffi_bytes(n, seed):
    return bytes((seed + 131 * i) % 256 for i in range(n))


def ffi_string(n, seed):
    """The string way's text: byte i = 1 + ((seed + 131*i) mod 256) mod 127, ASCII without NUL."""
    return bytes(1 + b % 127 for b in ffi_bytes(n, seed))


def write_ffi_receipt():
    with open(os.path.join(HERE, "ffi_receipt.tsv"), "w") as f:
        f.write("# name\tn\tseed\tbytes\tstring  (toll_ffi_receipt of the pattern's n bytes, and of the string way's n characters)\n")
        for name, n, seed in FFI:
            f.write(f"{name}\t{n}\t{seed}\t{ffi_receipt(ffi_bytes(n, seed))}\t{ffi_receipt(ffi_string(n, seed))}\n")


if __name__ == "__main__":
    main()
    write_ffi()
    write_ffi_receipt()
