"""`ffi` for toll's Python worker (spec/wire.md): calls into workers/ffi/toll_ffi.c.

Three bindings, each loaded from $TOLL_FFI_DIR, where toll built the C side:
`ctypes` (the standard library, CDLL with argtypes and restype set), `cffi`
(ABI mode, when the cffi module imports) and `ext` (the extension module toll
builds from workers/ffi/toll_ffi_py.c, the cheapest call CPython has).

Each binding is a table of callables made once, one per (way, touch): the
way is how Python code hands the value to C — "pinned", a bytes object
passed as it is (no copy); "copied", the bytes copied into memory the
binding owns each call (ctypes.create_string_buffer, cffi's ffi.new);
"string", a str encoded each call (s.encode(); the extension module reads
the str itself) — and the touch is the C function called: toll_ffi_sum
("all") or toll_ffi_receipt. The value is made once per command; the timed
loop calls one callable `reps` times and does nothing else.

"callback" goes the other way: toll_ffi_callback calls a Python function
back n times (made a C function pointer once: ctypes.CFUNCTYPE, cffi's
ffi.callback; the extension module calls a Python callable itself), the
function counts its calls, and the count is the answer.
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


def string(n, seed):
    """The string way's text: character i = 1 + (pattern byte i mod 127), ASCII without NUL."""
    return pattern(n, seed).translate(bytes(1 + b % 127 for b in range(256))).decode("ascii")


def _ways(f, copy):
    """The ways of a binding whose C function f takes (char *, size_t); copy(b) is its copy."""

    def pinned(b):
        return f(b, len(b))

    def copied(b):
        return f(copy(b), len(b))

    def encoded(s):
        e = s.encode()
        return f(e, len(e))

    return {"pinned": pinned, "copied": copied, "string": encoded}


def _counted(down, wrap):
    """The callback way: down(upcall, n) makes C call `upcall` back n times;
    wrap(f) is the binding's C function pointer of f, made once. The count."""
    count = 0

    def up(_ctx):
        nonlocal count
        count += 1

    upcall = wrap(up)  # kept alive as long as the way is

    def callback(n):
        nonlocal count
        count = 0
        down(upcall, n)
        return count

    return callback


def _ctypes():
    import ctypes

    lib = ctypes.CDLL(os.path.join(_dir(), LIB))
    lib.toll_ffi_null.argtypes, lib.toll_ffi_null.restype = [], None
    ways = {}
    for touch, f in (("all", lib.toll_ffi_sum), ("receipt", lib.toll_ffi_receipt)):
        f.argtypes, f.restype = [ctypes.c_char_p, ctypes.c_size_t], ctypes.c_uint64
        for way, call in _ways(f, ctypes.create_string_buffer).items():
            ways[way, touch] = call
    upcall = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    cb = lib.toll_ffi_callback
    cb.argtypes, cb.restype = [upcall, ctypes.c_void_p, ctypes.c_uint64], None
    ways["callback", None] = _counted(lambda f, n: cb(f, None, n), upcall)
    return ways


def _cffi():
    import cffi

    ffi = cffi.FFI()
    # `const char *` takes a bytes object as it is (no copy); ABI-compatible
    # with toll_ffi.h's `const uint8_t *`.
    ffi.cdef(
        "void toll_ffi_null(void); uint64_t toll_ffi_sum(const char *p, size_t n);"
        " uint64_t toll_ffi_receipt(const char *p, size_t n);"
        " void toll_ffi_callback(void (*f)(void *), void *ctx, uint64_t n);"
    )
    lib = ffi.dlopen(os.path.join(_dir(), LIB))
    ways = {}
    for touch, f in (("all", lib.toll_ffi_sum), ("receipt", lib.toll_ffi_receipt)):
        for way, call in _ways(f, lambda b: ffi.new("char[]", b)).items():
            ways[way, touch] = call
    cb = lib.toll_ffi_callback
    ways["callback", None] = _counted(lambda f, n: cb(f, ffi.NULL, n), ffi.callback("void(void *)"))
    return ways


def _ext():
    d = _dir()
    if d not in sys.path:
        sys.path.insert(0, d)
    import toll_ffi_ext as e

    # No "copied": the module reads a bytes object in place; a copy would be
    # the caller's, not the binding's.
    return {
        ("pinned", "all"): e.sum,
        ("pinned", "receipt"): e.receipt,
        ("string", "all"): e.sum_str,
        ("string", "receipt"): e.receipt_str,
        # The module calls a Python callable itself: no argument to pass it.
        ("callback", None): _counted(e.callback, lambda up: lambda: up(None)),
    }


LOADERS = {"ctypes": _ctypes, "cffi": _cffi, "ext": _ext}
_loaded = {}


def binding(name):
    """The {(way, touch): call} table of a binding, loaded once; raises if it cannot load."""
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
    way, touch = cmd.get("pass", "pinned"), cmd.get("touch", "all")
    try:
        ways = binding(name)
    except Exception as e:  # noqa: BLE001 - said in one line, the worker goes on
        return {"ok": False, "error": f"{name}: {type(e).__name__}: {e}".splitlines()[0]}
    call = ways.get((way, None if way == "callback" else touch))
    if call is None:
        has = sorted({w for w, _ in ways})
        return {"ok": False, "error": f"{name} passes {', '.join(has)} and touches all or receipt, not {way} and {touch}"}
    value = {"string": string, "callback": lambda n, _: n}.get(way, pattern)(n, seed)
    last = 0
    clock = time.perf_counter_ns
    # itertools.repeat, as timeit loops: range would make an int object per
    # call past 256, about 10 ns a call on the figure.
    loop = itertools.repeat(None, reps)
    # One call shape at every n, 0 included (no bytes), so the line through
    # the sizes is drawn through one kind of call.
    t0 = clock()
    for _ in loop:
        last = call(value)
    t1 = clock()
    key = "count" if way == "callback" else "receipt" if touch == "receipt" else "sum"
    return {"ok": True, "event": "done", "binding": name, "n": n, "reps": reps, "ns": t1 - t0, key: last}
