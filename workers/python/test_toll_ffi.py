"""The Python worker's `ffi` bindings return the sums of spec/vectors/ffi.tsv,
and the receipts of spec/vectors/ffi_receipt.tsv for every way each offers;
their callbacks count every upcall.

The C side is built here as toll builds it (cc -O2 -fPIC -shared): the
library for ctypes and cffi, the extension module for `ext`. cffi is
skipped, and says how to get it, where it does not import.

Run: python3 -m pytest -q workers/python
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FFI_SRC = os.path.join(HERE, "..", "ffi")
VECTORS = os.path.join(HERE, "..", "..", "spec", "vectors", "ffi.tsv")
RECEIPTS = os.path.join(HERE, "..", "..", "spec", "vectors", "ffi_receipt.tsv")
WAYS = {"ctypes": ("pinned", "copied", "string"), "cffi": ("pinned", "copied", "string"), "ext": ("pinned", "string")}
sys.path.insert(0, HERE)
import toll_ffi  # noqa: E402

BUILD = tempfile.mkdtemp(prefix="toll-ffi-test-")


def setUpModule():
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc):
        raise unittest.SkipTest("no C compiler: apt-get install gcc")
    src = lambda f: os.path.join(FFI_SRC, f)  # noqa: E731
    flags = [cc, "-O2", "-fPIC", "-shared", "-Wall"]
    subprocess.run(flags + ["-o", os.path.join(BUILD, toll_ffi.LIB), src("toll_ffi.c")], check=True)
    include = sysconfig.get_paths()["include"]
    if os.path.exists(os.path.join(include, "Python.h")):
        out = os.path.join(BUILD, "toll_ffi_ext.so")
        subprocess.run(flags + ["-I" + include, "-I" + FFI_SRC, "-o", out, src("toll_ffi_py.c"), src("toll_ffi.c")], check=True)
    os.environ["TOLL_FFI_DIR"] = BUILD


def tearDownModule():
    shutil.rmtree(BUILD, ignore_errors=True)


def vectors():
    with open(VECTORS) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]
    return [(name, int(n), int(seed), int(total)) for name, n, seed, total in rows]


def receipts():
    with open(RECEIPTS) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]
    return [(name, int(n), int(seed), int(b), int(s)) for name, n, seed, b, s in rows]


class SumVectors(unittest.TestCase):
    def check(self, binding):
        self.check_sums(binding)
        self.check_receipts(binding)
        self.check_callbacks(binding)

    def check_callbacks(self, binding):
        for n in (0, 1, 2, 1000):
            a = toll_ffi.run({"op": "ffi", "binding": binding, "pass": "callback", "n": n, "reps": 3, "seed": 0})
            self.assertTrue(a["ok"], a)
            self.assertEqual(a["count"], n, f"{binding} callback, n = {n}")

    def check_receipts(self, binding):
        checked = 0
        for way in WAYS[binding]:
            for name, n, seed, in_bytes, in_string in receipts():
                cmd = {"op": "ffi", "binding": binding, "pass": way, "touch": "receipt", "n": n, "reps": 3, "seed": seed}
                a = toll_ffi.run(cmd)
                self.assertTrue(a["ok"], a)
                self.assertEqual(a["receipt"], in_string if way == "string" else in_bytes, f"{binding} {way} {name}")
                checked += 1
            a = toll_ffi.run({"op": "ffi", "binding": binding, "pass": way, "touch": "all", "n": 1000, "reps": 1, "seed": 42})
            value = toll_ffi.string(1000, 42).encode() if way == "string" else toll_ffi.pattern(1000, 42)
            self.assertEqual(a["sum"], sum(value), f"{binding} {way} sum")
        self.assertGreaterEqual(checked, 8 * len(WAYS[binding]))

    def check_sums(self, binding):
        checked = 0
        for name, n, seed, total in vectors():
            a = toll_ffi.run({"op": "ffi", "binding": binding, "n": n, "reps": 3, "seed": seed})
            self.assertTrue(a["ok"], a)
            self.assertEqual(a["sum"], total, f"{binding} {name}")
            self.assertGreater(a["ns"], 0)
            checked += 1
        self.assertGreaterEqual(checked, 8)

    def test_the_pattern_is_the_spec_s(self):
        for name, n, seed, total in vectors():
            self.assertEqual(sum(toll_ffi.pattern(n, seed)), total, name)

    def test_ctypes(self):
        self.check("ctypes")

    def test_cffi(self):
        try:
            import cffi  # noqa: F401
        except ImportError:
            self.skipTest("cffi does not import: pip install cffi")
        self.check("cffi")

    def test_ext(self):
        if not os.path.exists(os.path.join(BUILD, "toll_ffi_ext.so")):
            self.skipTest("no Python.h to build the extension against: apt-get install python3-dev")
        self.check("ext")

    def test_a_way_it_lacks_is_refused_naming_those_it_has(self):
        if not os.path.exists(os.path.join(BUILD, "toll_ffi_ext.so")):
            self.skipTest("no Python.h to build the extension against: apt-get install python3-dev")
        a = toll_ffi.run({"op": "ffi", "binding": "ext", "pass": "copied", "touch": "receipt", "n": 0, "reps": 1, "seed": 0})
        self.assertEqual(a, {"ok": False, "error": "ext passes callback, pinned, string and touches all or receipt, not copied and receipt"})

    def test_a_binding_it_lacks_is_refused_naming_those_it_has(self):
        a = toll_ffi.run({"op": "ffi", "binding": "jni", "n": 0, "reps": 1, "seed": 0})
        self.assertEqual(a, {"ok": False, "error": "no binding jni: the python worker has ctypes, cffi, ext"})


if __name__ == "__main__":
    unittest.main()
