"""The Python worker passes spec/vectors and does a real transfer as toll would.

Run: python3 -m pytest -q workers/python   (or python3 -m unittest from this directory)
"""
import io
import json
import os
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
        return [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]


def reader_of(data, chunk=None):
    """read_into over bytes, at most `chunk` bytes per call (as a pipe may)."""
    src = io.BytesIO(data)

    def read_into(buf):
        n = len(buf) if chunk is None else min(len(buf), chunk)
        got = src.read(n)
        buf[: len(got)] = got
        return len(got)

    return read_into


class Vectors(unittest.TestCase):
    def test_frames(self):
        frames = rows("frames.tsv")
        self.assertGreaterEqual(len(frames), 10)
        for name, typ, kind, status, seq, count, total, items, hx in frames:
            data = bytes.fromhex(hx)
            if typ == "request":
                magic, k, s, c = w.HEADER.unpack(data[: w.HEADER.size])
                self.assertEqual((magic, k, s, c), (w.REQUEST_MAGIC, {"data": w.DATA, "end": w.END}[kind], int(seq), int(count)), name)
                want = [] if items == "-" else [int(v) for v in items.split(",")]
                self.assertEqual(list(struct.unpack(f"<{c}i", data[w.HEADER.size :])), want, name)
            else:
                st = {"ok": w.OK, "bad_frame": w.BAD_FRAME}[status]
                self.assertEqual(w.REPLY.pack(w.REPLY_MAGIC, st, int(seq), int(count), int(total)), data, name)

    def test_sessions(self):
        sessions = rows("sessions.tsv")
        self.assertGreaterEqual(len(sessions), 4)
        for name, in_hex, out_hex in sessions:
            for chunk in (None, 7):
                out = bytearray()
                w.serve(reader_of(bytes.fromhex(in_hex), chunk), out.extend)
                self.assertEqual(out.hex(), out_hex, f"{name} (chunk {chunk})")

    def test_stream_ending_early_is_an_error(self):
        frame = w.HEADER.pack(w.REQUEST_MAGIC, w.DATA, 0, 2) + struct.pack("<2i", 1, 2)
        with self.assertRaises(EOFError):
            w.serve(reader_of(frame), bytearray().extend)


class Harness:
    """What toll does: start the worker, talk JSON lines, open the data channel."""

    def __init__(self, fds=None):
        worker = [sys.executable, os.path.join(HERE, "toll_worker.py")]
        fds = fds or {}
        if fds:  # the shell puts each inherited pipe end at its number, as toll does
            moves = " ".join(f"{target}>&{fd}" for target, fd in fds.items())
            worker = ["bash", "-c", 'exec "$@" ' + moves, "bash", *worker]
        self.p = subprocess.Popen(worker, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  pass_fds=tuple(fds.values()))

    def send(self, obj):
        self.p.stdin.write(json.dumps(obj) + "\n")
        self.p.stdin.flush()

    def recv(self):
        return json.loads(self.p.stdout.readline())

    def close(self):
        self.send({"op": "exit"})
        assert self.p.wait(timeout=10) == 0


def round_trips(test, read_exact, write):
    seq = 0
    for count in (0, 1, 1000, 70000):
        write(w.HEADER.pack(w.REQUEST_MAGIC, w.DATA, seq, count) + struct.pack(f"<{count}i", *([123] * count)))
        test.assertEqual(w.REPLY.unpack(read_exact(w.REPLY.size)), (w.REPLY_MAGIC, w.OK, seq, count, 123 * count))
        seq += 1
    write(w.HEADER.pack(w.REQUEST_MAGIC, w.END, seq, 0))
    test.assertEqual(w.REPLY.unpack(read_exact(w.REPLY.size))[:3], (w.REPLY_MAGIC, w.OK, seq))
    return seq


class EndToEnd(unittest.TestCase):
    def test_hello(self):
        h = Harness()
        h.send({"op": "hello"})
        hello = h.recv()
        self.assertEqual((hello["ok"], hello["runtime"], hello["wire"]), (True, "python", 1))
        self.assertEqual(hello["transports"], ["pipe", "unix", "tcp"])
        h.send({"op": "nonsense"})
        self.assertFalse(h.recv()["ok"])
        h.close()

    def test_unix_transfer(self):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "s")
        lst = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        lst.bind(path)
        lst.listen(1)
        h = Harness()
        h.send({"op": "transfer", "transport": "unix", "path": path})
        conn, _ = lst.accept()
        self.assertEqual(h.recv(), {"ok": True, "event": "ready"})

        def read_exact(n):
            buf = b""
            while len(buf) < n:
                buf += conn.recv(n - len(buf))
            return buf

        frames = round_trips(self, read_exact, conn.sendall)
        self.assertEqual(h.recv(), {"ok": True, "event": "done", "frames": frames, "items": 71001})
        h.close()

    def test_pipe_transfer(self):
        # As toll does: two anonymous pipes, the worker's ends at fds 3 and 4.
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        h = Harness(fds={3: req_r, 4: rep_w})
        os.close(req_r)
        os.close(rep_w)
        for _ in range(2):  # the pipes stay open from one transfer to the next
            h.send({"op": "transfer", "transport": "pipe", "read_fd": 3, "write_fd": 4})
            self.assertEqual(h.recv(), {"ok": True, "event": "ready"})

            def read_exact(n):
                buf = b""
                while len(buf) < n:
                    buf += os.read(rep_r, n - len(buf))
                return buf

            frames = round_trips(self, read_exact, w.write_all(req_w))
            self.assertEqual(h.recv()["frames"], frames)
        h.close()

if __name__ == "__main__":
    unittest.main()
