#!/usr/bin/env python3
"""toll's Python worker: spec/wire.md over stdin/stdout, standard library only.

The harness starts it, says `hello`, then asks for `transfer`s over a pipe
(two anonymous pipes it inherits as fds 3 and 4), a unix socket or loopback
TCP; each transfer serves request frames until END, answering each with the
sum of its int32 items. `spawn` and `ring` are in toll_units.py, `file` in
toll_file.py, `ffi` in toll_ffi.py.
"""
import io
import json
import os
import platform
import socket
import struct
import sys
from array import array

import toll_ffi
import toll_file
import toll_units

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
    if kind in ("exit", "garbage") and k.isdecimal():
        return kind, int(k)
    return None, 0


def compact(buf, start, end):
    """Move the unread bytes buf[start:end] to the front; the new (start, end)."""
    if start:
        buf[: end - start] = buf[start:end]
    return 0, end - start


def sum_ints(chunk):
    """The sum of a memoryview of little-endian int32s."""
    if LITTLE and len(chunk) <= 4096:  # for a few items, a cast view is the cheapest
        return sum(chunk.cast("i"))
    items = array("i")  # in bulk, an array sums faster than a cast view
    items.frombytes(chunk)
    if not LITTLE:
        items.byteswap()
    return sum(items)


def sum_streaming(read_into, buf, view, start, end, size):
    """Sum the next `size` bytes of items as they arrive; (sum, start, end)."""
    total = 0
    while size:
        if end - start < 4:
            start, end = compact(buf, start, end)
            n = read_into(view[end:])
            if not n:
                raise EOFError("data channel closed inside a frame")
            end += n
            continue
        take = min(size, (end - start) & ~3)
        total += sum_ints(view[start : start + take])
        start += take
        size -= take
    return total, start, end


def serve(read_into, write, fault=(None, 0)):
    """Serve frames until END or a bad frame; returns (frames, items).

    Frames are parsed out of one big buffer, so a small frame costs one read,
    and items are summed as they stream past. The loop keeps its state in
    locals: this is the hot path toll measures.
    """
    buf = bytearray(BUF)
    view = memoryview(buf)
    start = end = frames = items = expected = 0
    fault_kind, fault_k = fault
    unpack_header, header_size, pack_reply = HEADER.unpack_from, HEADER.size, REPLY.pack
    while True:
        while end - start < header_size:
            if start == end:  # everything consumed, as after each small frame
                start = end = 0
            else:
                start, end = compact(buf, start, end)
            n = read_into(view[end:])
            if not n:
                raise EOFError("data channel closed " + ("before the END frame" if end == 0 else "inside a frame"))
            end += n
        magic, kind, seq, count = unpack_header(buf, start)
        start += header_size
        if magic != REQUEST_MAGIC or kind not in (DATA, END) or seq != expected:
            # After a bad frame the stream cannot be trusted: answer it and stop.
            write(pack_reply(REPLY_MAGIC, BAD_FRAME, seq, 0, 0))
            return frames, items
        if kind == END:
            write(pack_reply(REPLY_MAGIC, OK, seq, 0, 0))
            return frames, items
        if fault_kind == "exit" and count >= fault_k:
            os._exit(3)
        size = count * 4
        if end - start >= size:  # the common case: the whole payload came with the header
            total = sum_ints(view[start : start + size])
            start += size
        else:
            total, start, end = sum_streaming(read_into, buf, view, start, end, size)
        if fault_kind == "garbage" and count >= fault_k:
            write(b"\xab" * REPLY.size)
        else:
            write(pack_reply(REPLY_MAGIC, OK, seq, count, total))
        frames += 1
        items += count
        expected = (expected + 1) & 0xFFFFFFFF


def write_all(fd):
    """A write to fd that finishes what a short write() leaves (one write() as a rule)."""

    def write(data):
        n = os.write(fd, data)
        while n < len(data):
            data = data[n:]
            n = os.write(fd, data)

    return write


def connect(cmd):
    """Open the data channel a transfer command names: (read_into, write, close)."""
    transport = cmd.get("transport")
    if transport == "pipe":
        # Inherited from toll (fds 3 and 4); they stay open for the next transfer.
        rfd, wfd = int(cmd["read_fd"]), int(cmd["write_fd"])
        return io.FileIO(rfd, "rb", closefd=False).readinto, write_all(wfd), (lambda: None)
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
    """One line on the control plane; a refusal's reason goes to stderr too."""
    if not obj["ok"]:
        print(f"toll-worker-python: {obj['error']}", file=sys.stderr, flush=True)
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def transfer(cmd, fault):
    try:
        read_into, write, close = connect(cmd)
    except KeyError as e:
        return {"ok": False, "error": f"transfer command lacks {e}"}
    except (OSError, ValueError) as e:
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
        op = cmd.get("op") if isinstance(cmd, dict) else None
        if op == "hello":
            answer({
                "ok": True, "runtime": "python", "version": platform.python_version(), "wire": 1,
                "pid": os.getpid(), "ops": ["transfer", "spawn", "ring", "file", "ffi"], "transports": ["pipe", "unix", "tcp"],
                "units": toll_units.UNITS, "file_methods": toll_file.METHODS, "bindings": toll_ffi.bindings(),
            })
        elif op == "transfer":
            answer(transfer(cmd, fault))
        elif op in ("spawn", "ring"):
            n = cmd.get("n")
            if fault[0] == "exit" and isinstance(n, int) and n >= fault[1]:
                os._exit(3)
            unit = cmd.get("unit")
            answer(toll_units.spawn(unit, n) if op == "spawn" else toll_units.ring(unit, n, cmd.get("m")))
        elif op == "file":
            answer(toll_file.run(cmd))
        elif op == "ffi":
            answer(toll_ffi.run(cmd))
        elif op == "exit":
            return 0
        else:
            answer({"ok": False, "error": f"unknown op {op!r}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
