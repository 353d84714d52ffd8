#!/usr/bin/env python3
"""toll's Python worker: spec/wire.md over stdin/stdout, standard library only.

The harness starts it, says `hello`, then asks for `transfer`s over a pipe
(two anonymous pipes it inherits as fds 3 and 4), a unix socket or loopback
TCP; each transfer serves request frames until END, answering each with the
sum of its int32 items.
"""
import json
import os
import platform
import socket
import struct
import sys
from array import array

REQUEST_MAGIC = b"TOLL"
REPLY_MAGIC = b"TOLR"
HEADER = struct.Struct("<4sIII")  # magic, kind, seq, count
REPLY = struct.Struct("<4sIIIq")  # magic, status, seq, count, sum
DATA, END = 1, 2
OK, BAD_FRAME = 0, 1
BUF = 256 * 1024
LITTLE = sys.byteorder == "little"


def parse_fault(text):
    """TOLL_WORKER_FAULT: `exit:K` exits instead of answering the first DATA frame
    of K or more items; `garbage:K` answers it with 24 bytes of 0xAB."""
    kind, _, k = (text or "").partition(":")
    if kind in ("exit", "garbage") and k.isdigit():
        return kind, int(k)
    return None, 0


class Reader:
    """Frames are parsed out of one big buffer, so a small frame costs one read."""

    def __init__(self, read_into):
        self.read_into = read_into
        self.buf = bytearray(BUF)
        self.view = memoryview(self.buf)
        self.start = self.end = 0

    def fill(self):
        if self.start:
            self.buf[: self.end - self.start] = self.buf[self.start : self.end]
            self.end -= self.start
            self.start = 0
        n = self.read_into(self.view[self.end :])
        self.end += n
        return n > 0

    def take(self, n):
        """The next n bytes, or None at a clean end of stream."""
        while self.end - self.start < n:
            if not self.fill():
                if self.end == self.start:
                    return None
                raise EOFError("data channel closed inside a frame")
        s = self.start
        self.start += n
        return self.buf[s : s + n]

    def sum_items(self, count):
        left, total = count * 4, 0
        while left:
            if self.end - self.start < 4 and not self.fill():
                raise EOFError("data channel closed inside a frame")
            take = min(left, (self.end - self.start) // 4 * 4)
            items = array("i")
            items.frombytes(self.view[self.start : self.start + take])
            if not LITTLE:
                items.byteswap()
            total += sum(items)
            self.start += take
            left -= take
        return total


def serve(read_into, write, fault=(None, 0)):
    """Serve frames until END or a bad frame; returns (frames, items)."""
    reader = Reader(read_into)
    frames = items = expected = 0
    while True:
        raw = reader.take(HEADER.size)
        if raw is None:
            raise EOFError("data channel closed before the END frame")
        magic, kind, seq, count = HEADER.unpack(raw)
        if magic != REQUEST_MAGIC or kind not in (DATA, END) or seq != expected:
            write(REPLY.pack(REPLY_MAGIC, BAD_FRAME, seq, 0, 0))
            return frames, items
        if kind == END:
            write(REPLY.pack(REPLY_MAGIC, OK, seq, 0, 0))
            return frames, items
        if fault[0] == "exit" and count >= fault[1]:
            os._exit(3)
        total = reader.sum_items(count)
        if fault[0] == "garbage" and count >= fault[1]:
            write(b"\xab" * REPLY.size)
        else:
            write(REPLY.pack(REPLY_MAGIC, OK, seq, count, total))
        frames += 1
        items += count
        expected = (expected + 1) & 0xFFFFFFFF


def write_all(fd):
    def write(data):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]

    return write


def connect(cmd):
    """Open the data channel a transfer command names: (read_into, write, close)."""
    transport = cmd.get("transport")
    if transport == "pipe":
        # Inherited from toll (fds 3 and 4); they stay open for the next transfer.
        rfd, wfd = int(cmd["read_fd"]), int(cmd["write_fd"])
        return (lambda b: os.readv(rfd, [b])), write_all(wfd), (lambda: None)
    if transport == "unix":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(cmd["path"])
    elif transport == "tcp":
        sock = socket.create_connection((cmd["host"], int(cmd["port"])))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    else:
        raise ValueError(f"unsupported transport {transport!r}: this worker speaks pipe, unix, tcp")
    return sock.recv_into, sock.sendall, sock.close


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def transfer(cmd, fault):
    try:
        read_into, write, close = connect(cmd)
    except (OSError, ValueError, KeyError) as e:
        return {"ok": False, "error": f"cannot connect: {e}"}
    answer({"ok": True, "event": "ready"})
    try:
        frames, items = serve(read_into, write, fault)
    except (OSError, EOFError) as e:
        return {"ok": False, "error": f"data channel: {e}"}
    finally:
        close()
    return {"ok": True, "event": "done", "frames": frames, "items": items}


def main():
    fault = parse_fault(os.environ.get("TOLL_WORKER_FAULT"))
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            cmd = json.loads(line)
        except ValueError as e:
            answer({"ok": False, "error": f"not JSON: {e}"})
            continue
        op = cmd.get("op")
        if op == "hello":
            answer({
                "ok": True, "runtime": "python", "version": platform.python_version(), "wire": 1,
                "pid": os.getpid(), "ops": ["transfer"], "transports": ["pipe", "unix", "tcp"],
            })
        elif op == "transfer":
            answer(transfer(cmd, fault))
        elif op == "exit":
            return 0
        else:
            answer({"ok": False, "error": f"unknown op {op!r}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
