"""`file` (spec/wire.md) for the Python worker: E4's three ways to read a file.

- `read`: file.seek() + file.read() on a file opened as E4 did, `open(path, "rb")`
  (buffered);
- `mmap-read`: mmap.seek() + mmap.read();
- `mmap-slice`: slicing the mapping, m[a:b].

Sequential passes read on from where the last read ended (no seek), as E4's
did. Every read makes a new bytes object holding a copy of what it read, so
no read can be skipped; the worker adds up the last byte of each (`sum_of`
`last_byte`) as the proof the harness checks, one cheap step per read.
"""
import mmap
import sys
import time
from array import array
from itertools import cycle, islice

METHODS = ["read", "mmap-read", "mmap-slice"]


def seq_read(f, lens, reads):
    """file.read() or mmap.read() in turn through the file."""
    read = f.read
    s = 0
    for n in islice(cycle(lens), reads):
        s += read(n)[-1]
    return s


def seq_slice(m, lens, reads):
    s = p = 0
    for n in islice(cycle(lens), reads):
        q = p + n
        s += m[p:q][-1]
        p = q
    return s


def random_read(f, offsets, n):
    """seek() + read() on the file or the mapping."""
    seek, read = f.seek, f.read
    s = 0
    for o in offsets:
        seek(o)
        s += read(n)[-1]
    return s


def random_slice(m, offsets, n):
    s = 0
    for o in offsets:
        s += m[o : o + n][-1]
    return s


def load_offsets(path, count):
    """The harness's offsets file: little-endian uint64s."""
    offsets = array("Q")
    with open(path, "rb") as f:
        offsets.fromfile(f, count)
    if sys.byteorder != "little":
        offsets.byteswap()
    return offsets.tolist()


def run(cmd):
    """One trial: open (and map) the file, then time the reads alone."""
    method, path, pattern = cmd.get("method"), cmd.get("path"), cmd.get("pattern")
    lens, reads = cmd.get("lens"), cmd.get("reads")
    if method not in METHODS:
        return {"ok": False, "error": f"no method {method!r}: the python worker has {', '.join(METHODS)}"}
    if pattern not in ("seq", "random") or not lens or not isinstance(reads, int):
        return {"ok": False, "error": "file command lacks pattern, lens or reads"}
    try:
        offsets = load_offsets(cmd["offsets"], reads) if pattern == "random" else None
        with open(path, "rb") as f:
            m = None if method == "read" else mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            try:
                src = f if m is None else m
                t0 = time.perf_counter_ns()
                if pattern == "seq":
                    s = seq_slice(m, lens, reads) if method == "mmap-slice" else seq_read(src, lens, reads)
                elif method == "mmap-slice":
                    s = random_slice(m, offsets, lens[0])
                else:
                    s = random_read(src, offsets, lens[0])
                ns = time.perf_counter_ns() - t0
            finally:
                if m is not None:
                    m.close()
    except (OSError, KeyError, ValueError, EOFError, IndexError) as e:
        return {"ok": False, "error": f"{method}: {e}"}
    k = len(lens)
    nbytes = sum(lens) * (reads // k) + sum(lens[: reads % k])
    return {"ok": True, "event": "done", "method": method, "reads": reads, "bytes": nbytes,
            "sum": s, "sum_of": "last_byte", "ns": max(ns, 1)}
