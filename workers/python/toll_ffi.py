"""`ffi` for toll's Python worker (spec/wire.md): calls into workers/ffi/toll_ffi.c.

Three bindings, each loaded from $TOLL_FFI_DIR, where toll built the C side:
`ctypes` (the standard library, CDLL with argtypes and restype set), `cffi`
(ABI mode, when the cffi module imports) and `ext` (the extension module toll
builds from workers/ffi/toll_ffi_py.c, the cheapest call CPython has). Each
binding is a pair of callables, null() and sum(buffer), made once; the timed
loop calls one of them `reps` times and does nothing else.
"""
import itertools
import os
import sys
import time

LIB = "libtoll_ffi.so"


def pattern(n, seed):
    """The n-byte buffer of spec/wire.md: byte i = (seed + 131*i) mod 256."""
    period = bytes((seed + 131 * i) % 256 for i in range(256))
    return (period * (n // 256 + 1))[:n]


def _dir():
    d = os.environ.get("TOLL_FFI_DIR")
    if not d:
        raise RuntimeError("TOLL_FFI_DIR is not set: toll sets it to where it built " + LIB)
    return d


def _ctypes():
    import ctypes

    lib = ctypes.CDLL(os.path.join(_dir(), LIB))
    lib.toll_ffi_null.argtypes, lib.toll_ffi_null.restype = [], None
    lib.toll_ffi_sum.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.toll_ffi_sum.restype = ctypes.c_uint64
    f = lib.toll_ffi_sum
    return lib.toll_ffi_null, lambda b: f(b, len(b))


def _cffi():
    import cffi

    ffi = cffi.FFI()
    # `const char *` takes a bytes object as it is (no copy); ABI-compatible
    # with toll_ffi.h's `const uint8_t *`.
    ffi.cdef("void toll_ffi_null(void); uint64_t toll_ffi_sum(const char *p, size_t n);")
    lib = ffi.dlopen(os.path.join(_dir(), LIB))
    f = lib.toll_ffi_sum
    return lib.toll_ffi_null, lambda b: f(b, len(b))


def _ext():
    d = _dir()
    if d not in sys.path:
        sys.path.insert(0, d)
    import toll_ffi_ext

    return toll_ffi_ext.null, toll_ffi_ext.sum


LOADERS = {"ctypes": _ctypes, "cffi": _cffi, "ext": _ext}
_loaded = {}


def binding(name):
    """The (null, sum) pair of a binding, loaded once; raises if it cannot load."""
    if name not in _loaded:
        _loaded[name] = LOADERS[name]()
    return _loaded[name]


def bindings():
    """The bindings this worker can call now, in toll's order."""
    ok = []
    for name in LOADERS:
        try:
            binding(name)
            ok.append(name)
        except Exception:  # noqa: BLE001 - a binding that cannot load is simply not offered
            pass
    return ok


def run(cmd):
    """One `ffi` command: the answer's dict."""
    name = cmd.get("binding")
    n, reps, seed = cmd.get("n"), cmd.get("reps"), cmd.get("seed")
    if not all(isinstance(v, int) and v >= 0 for v in (n, reps, seed)) or reps < 1:
        return {"ok": False, "error": "`ffi` needs whole numbers n, reps (at least 1) and seed"}
    if name not in LOADERS:
        return {"ok": False, "error": f"no binding {name}: the python worker has {', '.join(LOADERS)}"}
    try:
        null, total = binding(name)
    except Exception as e:  # noqa: BLE001 - said in one line, the worker goes on
        return {"ok": False, "error": f"{name}: {type(e).__name__}: {e}".splitlines()[0]}
    buf = pattern(n, seed)
    last = 0
    clock = time.perf_counter_ns
    # itertools.repeat, as timeit loops: range would make an int object per
    # call past 256, about 10 ns a call on the figure.
    loop = itertools.repeat(None, reps)
    # One call shape at every n, 0 included (a sum of no bytes), so the
    # line through the sizes is drawn through one kind of call.
    del null
    t0 = clock()
    for _ in loop:
        last = total(buf)
    t1 = clock()
    return {"ok": True, "event": "done", "binding": name, "n": n, "reps": reps, "ns": t1 - t0, "sum": last}
