"""The Python worker's `file` methods read what spec/wire.md says, and prove it.

Run: python3 -m pytest -q workers/python
"""
import os
import random
import struct
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import toll_file  # noqa: E402


class FileMethods(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        rng = random.Random(4)
        self.data = bytes(rng.randrange(256) for _ in range(20_000))
        self.path = os.path.join(self.dir.name, "f")
        with open(self.path, "wb") as f:
            f.write(self.data)
        self.offsets = [rng.randrange(len(self.data) - 450) for _ in range(300)]
        self.offsets_path = os.path.join(self.dir.name, "offsets.bin")
        with open(self.offsets_path, "wb") as f:
            f.write(struct.pack("<%dQ" % len(self.offsets), *self.offsets))

    def tearDown(self):
        self.dir.cleanup()

    def run_file(self, **cmd):
        return toll_file.run({"op": "file", "path": self.path, **cmd})

    def test_seq_reads_50_and_450_in_turn_and_sums_each_last_byte(self):
        reads = 2 * (len(self.data) // 500)
        ends, pos = [], 0
        for i in range(reads):
            pos += (50, 450)[i % 2]
            ends.append(pos - 1)
        want = sum(self.data[e] for e in ends)
        for method in toll_file.METHODS:
            a = self.run_file(method=method, pattern="seq", lens=[50, 450], reads=reads)
            self.assertTrue(a["ok"], a)
            self.assertEqual((a["sum"], a["sum_of"], a["reads"], a["bytes"]), (want, "last_byte", reads, pos), method)
            self.assertGreater(a["ns"], 0)

    def test_random_reads_follow_the_offsets_file(self):
        want = sum(self.data[o + 449] for o in self.offsets)
        for method in toll_file.METHODS:
            a = self.run_file(method=method, pattern="random", lens=[450], reads=300, offsets=self.offsets_path)
            self.assertEqual((a["sum"], a["bytes"]), (want, 300 * 450), method)

    def test_an_unknown_method_lists_the_methods_it_has(self):
        a = self.run_file(method="pread", pattern="seq", lens=[4], reads=1)
        self.assertEqual(a, {"ok": False, "error": "no method 'pread': the python worker has read, mmap-read, mmap-slice"})

    def test_a_missing_file_is_refused_in_one_line(self):
        a = toll_file.run({"method": "read", "path": "/nonexistent/x", "pattern": "seq", "lens": [4], "reads": 1})
        self.assertFalse(a["ok"])
        self.assertIn("No such file", a["error"])


if __name__ == "__main__":
    unittest.main()
