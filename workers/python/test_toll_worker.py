"""The Python worker passes spec/vectors and does real transfers as toll would.

Run: python3 -m pytest -q workers/python   (or: cd workers/python && python3 -m unittest)
"""
import fcntl
import io
import json
import os
import platform
import socket
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import toll_worker as w  # noqa: E402

VECTORS = os.path.join(HERE, "..", "..", "spec", "vectors")


def rows(name):
    with open(os.path.join(VECTORS, name)) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]


def reader_of(data, chunk=None):
    """read_into over bytes, at most `chunk` bytes per call (as a pipe may)."""
    src = io.BytesIO(data)

    def read_into(buf):
        n = len(buf) if chunk is None else min(len(buf), chunk)
        got = src.read(n)
        buf[: len(got)] = got
        return len(got)

    return read_into


def request(kind, seq, items=()):
    return w.HEADER.pack(w.REQUEST_MAGIC, kind, seq, len(items)) + struct.pack(f"<{len(items)}i", *items)


class Vectors(unittest.TestCase):
    def test_frames(self):
        frames = rows("frames.tsv")
        self.assertGreaterEqual(len(frames), 10)
        for name, typ, kind, status, seq, count, total, items, hx in frames:
            data = bytes.fromhex(hx)
            if typ == "request":
                magic, k, s, c = w.HEADER.unpack_from(data)
                kinds = {"data": w.DATA, "end": w.END}
                self.assertEqual((magic, k, s, c), (w.REQUEST_MAGIC, kinds[kind], int(seq), int(count)), name)
                want = [] if items == "-" else [int(v) for v in items.split(",")]
                self.assertEqual(list(struct.unpack(f"<{c}i", data[w.HEADER.size :])), want, name)
                self.assertEqual(w.sum_ints(memoryview(data)[w.HEADER.size :]), sum(want), name)
            else:
                st = {"ok": w.OK, "bad_frame": w.BAD_FRAME}[status]
                self.assertEqual(w.REPLY.pack(w.REPLY_MAGIC, st, int(seq), int(count), int(total)), data, name)

    def test_sessions(self):
        sessions = rows("sessions.tsv")
        self.assertGreaterEqual(len(sessions), 4)
        for name, in_hex, out_hex in sessions:
            for chunk in (None, 7, 1):
                out = bytearray()
                w.serve(reader_of(bytes.fromhex(in_hex), chunk), out.extend)
                self.assertEqual(out.hex(), out_hex, f"{name} (chunk {chunk})")


class Serve(unittest.TestCase):
    STREAM = request(w.DATA, 0, [5]) + request(w.DATA, 1, [7, 0]) + request(w.END, 2)

    def test_garbage_fault_garbles_only_the_frame_at_k_items(self):
        out = bytearray()
        self.assertEqual(w.serve(reader_of(self.STREAM), out.extend, ("garbage", 2)), (2, 3))
        self.assertEqual(out[:24], w.REPLY.pack(w.REPLY_MAGIC, w.OK, 0, 1, 5))
        self.assertEqual(out[24:48], b"\xab" * 24)

    def test_a_stream_ending_before_end_is_an_error(self):
        for cut in range(len(self.STREAM)):
            with self.assertRaises(EOFError, msg=f"cut at {cut}"):
                w.serve(reader_of(self.STREAM[:cut]), bytearray().extend)

    def test_fault_parsing(self):
        self.assertEqual(w.parse_fault("exit:2000"), ("exit", 2000))
        self.assertEqual(w.parse_fault("garbage:0"), ("garbage", 0))
        for nonsense in (None, "", "exit", "exit:x", "boom:3"):
            self.assertEqual(w.parse_fault(nonsense), (None, 0))


class Harness:
    """What toll does: start the worker (data pipes at fds 3 and 4), talk JSON lines."""

    def __init__(self, fault=None):
        env = dict(os.environ)
        env.pop("TOLL_WORKER_FAULT", None)
        env.pop("TOLL_FFI_DIR", None)
        if fault:
            env["TOLL_WORKER_FAULT"] = fault
        req_r, self.req = os.pipe()
        self.rep, rep_w = os.pipe()
        # Lift the worker's ends clear of 3 and 4, so placing them there cannot clobber either.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (req_r, rep_w)]
        for fd in (req_r, rep_w):
            os.close(fd)
        place = "import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); " \
                "os.execv(sys.executable, [sys.executable] + sys.argv[3:])"
        self.p = subprocess.Popen(
            [sys.executable, "-c", place, *map(str, high), os.path.join(HERE, "toll_worker.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            pass_fds=high, env=env,
        )
        for fd in high:
            os.close(fd)

    def send(self, obj):
        self.p.stdin.write(json.dumps(obj) + "\n")
        self.p.stdin.flush()

    def recv(self):
        return json.loads(self.p.stdout.readline())

    def wait(self):
        for f in (self.p.stdin, self.p.stdout):
            f.close()
        os.close(self.req)
        os.close(self.rep)
        return self.p.wait(timeout=10)

    def close(self):
        self.send({"op": "exit"})
        assert self.wait() == 0

    def pipe_transfer(self):
        """Start a transfer over the inherited pipes; (read_exact, write) for our ends."""
        self.send({"op": "transfer", "transport": "pipe", "read_fd": 3, "write_fd": 4})
        assert self.recv() == {"ok": True, "event": "ready"}

        def read_exact(n):
            buf = b""
            while len(buf) < n:
                got = os.read(self.rep, n - len(buf))
                if not got:
                    raise EOFError
                buf += got
            return buf

        return read_exact, w.write_all(self.req)


def reader_of_socket(conn):
    def read_exact(n):
        buf = b""
        while len(buf) < n:
            got = conn.recv(n - len(buf))
            if not got:
                raise EOFError
            buf += got
        return buf

    return read_exact


COUNTS = (0, 1, 1000, 70000)


def round_trips(test, read_exact, write):
    """DATA frames of COUNTS items (all 123), then END; checks every reply."""
    for seq, count in enumerate(COUNTS):
        write(request(w.DATA, seq, [123] * count))
        test.assertEqual(w.REPLY.unpack(read_exact(w.REPLY.size)), (w.REPLY_MAGIC, w.OK, seq, count, 123 * count))
    write(request(w.END, len(COUNTS)))
    test.assertEqual(w.REPLY.unpack(read_exact(w.REPLY.size)), (w.REPLY_MAGIC, w.OK, len(COUNTS), 0, 0))


DONE = {"ok": True, "event": "done", "frames": len(COUNTS), "items": sum(COUNTS)}


class EndToEnd(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def test_hello(self):
        h = Harness()
        h.send({"op": "hello"})
        hello = h.recv()
        self.assertEqual(hello, {
            "ok": True, "runtime": "python", "version": platform.python_version(), "wire": 1,
            "pid": h.p.pid, "ops": ["transfer", "spawn", "ring", "file", "ffi"], "transports": ["pipe", "unix", "tcp"],
            "units": ["thread", "asyncio-task"], "file_methods": ["read", "mmap-read", "mmap-slice"],
            # No TOLL_FFI_DIR here: no library to call, so no binding offered (test_toll_ffi.py has them).
            "bindings": [],
        })
        for bad in ({"op": "nonsense"}, [1], {"op": "transfer", "transport": "shm", "path": "/x"},
                    {"op": "transfer", "transport": "unix"}):
            h.send(bad)
            self.assertFalse(h.recv()["ok"], bad)
        h.close()

    def test_end_of_stdin_exits(self):
        self.assertEqual(Harness().wait(), 0)

    def test_pipe_transfer(self):
        h = Harness()
        for _ in range(2):  # the pipes stay open from one transfer to the next
            round_trips(self, *h.pipe_transfer())
            self.assertEqual(h.recv(), DONE)
        h.close()

    def socket_transfer(self, listener, cmd):
        h = Harness()
        h.send(cmd)
        conn, _ = listener.accept()
        with conn:
            self.assertEqual(h.recv(), {"ok": True, "event": "ready"})
            round_trips(self, reader_of_socket(conn), conn.sendall)
            self.assertEqual(h.recv(), DONE)
        # A harness that hangs up mid-frame: an error answer, and the worker lives on.
        h.send(cmd)
        conn, _ = listener.accept()
        self.assertEqual(h.recv(), {"ok": True, "event": "ready"})
        conn.sendall(w.HEADER.pack(w.REQUEST_MAGIC, w.DATA, 0, 1000))
        conn.close()
        answer = h.recv()
        self.assertFalse(answer["ok"])
        self.assertIn("data channel", answer["error"])
        h.close()

    def test_unix_transfer(self):
        path = os.path.join(self.dir.name, "sock")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as lst:
            lst.bind(path)
            lst.listen(1)
            self.socket_transfer(lst, {"op": "transfer", "transport": "unix", "path": path})

    def test_tcp_transfer(self):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as lst:
            lst.bind(("127.0.0.1", 0))
            lst.listen(1)
            port = lst.getsockname()[1]
            self.socket_transfer(lst, {"op": "transfer", "transport": "tcp", "host": "127.0.0.1", "port": port})

    def test_fault_exit(self):
        h = Harness(fault="exit:1000")
        read_exact, write = h.pipe_transfer()
        write(request(w.DATA, 0, [123] * 999))
        self.assertEqual(w.REPLY.unpack(read_exact(w.REPLY.size))[4], 123 * 999)
        write(request(w.DATA, 1, [123] * 1000))
        with self.assertRaises(EOFError):
            read_exact(w.REPLY.size)
        self.assertEqual(h.wait(), 3)

    def test_fault_garbage(self):
        h = Harness(fault="garbage:1000")
        read_exact, write = h.pipe_transfer()
        write(request(w.DATA, 0, [123] * 999))
        self.assertEqual(w.REPLY.unpack(read_exact(w.REPLY.size))[4], 123 * 999)
        write(request(w.DATA, 1, [123] * 1000))
        self.assertEqual(read_exact(w.REPLY.size), b"\xab" * 24)
        write(request(w.END, 2))
        read_exact(w.REPLY.size)
        self.assertEqual(h.recv(), {"ok": True, "event": "done", "frames": 2, "items": 1999})
        h.close()


if __name__ == "__main__":
    unittest.main()


# ---- spawn and ring ----

import pytest  # noqa: E402
import toll_units  # noqa: E402


@pytest.mark.parametrize("unit", toll_units.UNITS)
def test_spawn_makes_every_unit_and_reports_time_and_memory(unit):
    a = toll_units.spawn(unit, 200)
    assert a["ok"] and a["event"] == "done" and a["n"] == 200 and a["made"] == 200, a
    assert a["ns"] > 0 and isinstance(a["mem_kb"], int) and a["mem_how"] == "rss"


@pytest.mark.parametrize("unit", toll_units.UNITS)
def test_ring_hops_are_n_times_m(unit):
    a = toll_units.ring(unit, 7, 13)
    assert a["ok"] and a["hops"] == 91 and a["ns"] > 0, a


def test_units_refuse_what_they_cannot_do():
    assert "a ring needs" in toll_units.ring("thread", 1, 5)["error"]
    assert "spawn needs" in toll_units.spawn("thread", 0)["error"]
    a = toll_units.spawn("fiber", 3)
    assert not a["ok"] and "thread, asyncio-task" in a["error"]
