#!/usr/bin/env python3
"""E4 as a plain Python script: its three ways to read a file, outside toll.

file.seek()+read(), mmap.seek()+read() and mmap slicing m[a:b], over the
sequential pass (50- and 450-byte reads in turn through the whole file)
and 200,000 random 450-byte reads, with the file's pages evicted
(posix_fadvise DONTNEED) before each cold trial or read once before each
warm one. Each read's last byte is added up, as toll's Python worker does,
so both do the same work. Prints one JSON line: ns per read of each trial
for every (method, pattern).

usage: e4.py FILE cold|warm TRIALS [READS] [METHOD/PATTERN]
(the last: one cell alone, e.g. read/seq)
"""
import json
import mmap
import os
import random
import sys
import time
from itertools import cycle, islice


def evict(path):
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


def main():
    path, cache, trials = sys.argv[1], sys.argv[2], int(sys.argv[3])
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 200_000
    only = sys.argv[5] if len(sys.argv) > 5 else None
    size = os.path.getsize(path)
    rng = random.Random(2010)
    offsets = [rng.randrange(size - 450 + 1) for _ in range(count)]
    seq_reads = size // 500 * 2 + (1 if size % 500 >= 50 else 0)
    out = {}
    for trial in range(trials):
        for method in ("read", "mmap-read", "mmap-slice"):
            for pattern in ("seq", "random"):
                if only and only != f"{method}/{pattern}":
                    continue
                if cache == "cold":
                    evict(path)
                else:
                    warm(path)
                with open(path, "rb") as f:
                    m = None if method == "read" else mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                    src = f if m is None else m
                    s = 0
                    t0 = time.perf_counter_ns()
                    if pattern == "seq" and method == "mmap-slice":
                        p = 0
                        for n in islice(cycle((50, 450)), seq_reads):
                            s += m[p : p + n][-1]
                            p += n
                    elif pattern == "seq":
                        read = src.read
                        for n in islice(cycle((50, 450)), seq_reads):
                            s += read(n)[-1]
                    elif method == "mmap-slice":
                        for o in offsets:
                            s += m[o : o + 450][-1]
                    else:
                        seek, read = src.seek, src.read
                        for o in offsets:
                            seek(o)
                            s += read(450)[-1]
                    ns = time.perf_counter_ns() - t0
                    if m is not None:
                        m.close()
                reads = seq_reads if pattern == "seq" else count
                out.setdefault(f"{method}/{pattern}", []).append(ns / reads)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
