//! The foreign-function bindings each runtime's worker offers for `toll ffi`
//! (spec/wire.md, `ffi`): the catalog toll checks `--binding` against, and
//! what to install when a binding's part is missing (`Runtime::bindings`
//! picks a runtime's row). Adding a binding is a
//! row here and its call in the runtime's worker (docs/guide/ffi.md).

use super::ways::{Pass, Way};

/// `isize::MAX`: a Rust slice's, C's `ptrdiff_t`'s and CPython's
/// `Py_ssize_t`'s limit on one buffer.
const ISIZE_MAX: u64 = isize::MAX as u64;

/// One way a runtime calls into workers/ffi/toll_ffi.c.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    /// Its name on the command line and the wire (`ctypes`).
    pub name: &'static str,
    /// What the call goes through, for the table's legend.
    pub how: &'static str,
    /// The most bytes one call can pass, and what sets that limit.
    pub max_bytes: u64,
    pub max_why: &'static str,
    /// What to install when the worker does not offer it ("" when nothing
    /// beyond the runtime and a C compiler is needed).
    pub install: &'static str,
    /// `--pass copied` and `--pass string` here (`pinned` is `how`).
    pub copied: Way,
    pub string: Way,
    /// A lower limit on one call's string than `max_bytes`, and what sets it.
    pub string_max: Option<(u64, &'static str)>,
    /// `--callback`: what C calls back into each upcall, or why it cannot.
    pub callback: Way,
}

impl Binding {
    /// How this binding passes bytes `pass`, or why it does not.
    pub fn way(&self, pass: Pass) -> Way {
        match pass {
            Pass::Pinned => Way::Offered(self.how),
            Pass::Copied => self.copied,
            Pass::String => self.string,
            Pass::Callback => self.callback,
        }
    }

    /// The most bytes one call can pass `pass` (upcalls, for the callback),
    /// and what sets that limit.
    pub fn limit(&self, pass: Pass) -> (u64, &'static str) {
        match (pass, self.string_max) {
            (Pass::Callback, _) => (u64::MAX, "a uint64_t count of upcalls"),
            (Pass::String, Some(l)) => l,
            _ => (self.max_bytes, self.max_why),
        }
    }
}

/// A way a worker has not been taught yet.
const NOT_YET: Way = Way::Not("not offered yet by this worker");

const fn binding(name: &'static str, how: &'static str, max_why: &'static str) -> Binding {
    Binding {
        name,
        how,
        max_bytes: ISIZE_MAX,
        max_why,
        install: "",
        copied: NOT_YET,
        string: NOT_YET,
        string_max: None,
        callback: NOT_YET,
    }
}

/// The native ways (C, Rust): malloc and memcpy each call; a C string is
/// already the bytes.
const NATIVE_COPIED: Way = Way::Offered("malloc + memcpy of the bytes each call, then free");

const RUST_CALLBACK: Way = Way::Offered(
    "an extern \"C\" fn pointer, called back n times by toll_ffi_callback, counting through its context pointer",
);

const RUST_STRING: Way = Way::Offered(
    "CString::new of a &str each call (a copy, checked for NUL, with a NUL added), then dropped",
);

pub(super) const RUST: [Binding; 2] = [
    Binding {
        copied: NATIVE_COPIED,
        string: RUST_STRING,
        callback: RUST_CALLBACK,
        ..binding(
            "direct",
            "a Rust function behind #[inline(never)] (the same functions as toll_ffi.c, in Rust)",
            "a slice",
        )
    },
    Binding {
        copied: NATIVE_COPIED,
        string: RUST_STRING,
        callback: RUST_CALLBACK,
        ..binding(
            "dlopen",
            "libtoll_ffi.so through dlopen/dlsym function pointers",
            "a slice",
        )
    },
];

const C_CALLBACK: Way = Way::Offered(
    "a plain C function pointer, called back n times by toll_ffi_callback, counting through its context pointer",
);

const C_STRING: Way = Way::Not("a C string is already a char *: passing it is the pinned way");

pub(super) const C: [Binding; 2] = [
    Binding {
        copied: NATIVE_COPIED,
        string: C_STRING,
        callback: C_CALLBACK,
        ..binding(
            "direct",
            "toll_ffi.c compiled into the worker, a noinline call in another translation unit",
            "ptrdiff_t",
        )
    },
    Binding {
        copied: NATIVE_COPIED,
        string: C_STRING,
        callback: C_CALLBACK,
        ..binding(
            "dlopen",
            "libtoll_ffi.so through dlopen/dlsym function pointers",
            "ptrdiff_t",
        )
    },
];

const PY_STRING: Way = Way::Offered("a str encoded each call (s.encode()), passed as char *");

pub(super) const PYTHON: [Binding; 3] = [
    Binding {
        copied: Way::Offered("ctypes.create_string_buffer(b) each call (a copy into a ctypes array)"),
        string: PY_STRING,
        callback: Way::Offered("a Python function made a C function pointer once (ctypes.CFUNCTYPE): each upcall takes the GIL and builds the arguments' Python objects"),
        ..binding(
            "ctypes",
            "ctypes.CDLL(libtoll_ffi.so) with argtypes and restype set, a bytes object passed as char * (no copy)",
            "a Py_ssize_t",
        )
    },
    Binding {
        install: "pip install cffi",
        copied: Way::Offered("ffi.new(\"char[]\", b) each call (a copy into cffi-owned memory)"),
        string: PY_STRING,
        callback: Way::Offered("a Python function made a C function pointer once (ffi.callback, ABI mode: a libffi closure)"),
        ..binding(
            "cffi",
            "cffi's ABI mode, ffi.dlopen(libtoll_ffi.so), a bytes object passed as const char * (no copy)",
            "a Py_ssize_t",
        )
    },
    Binding {
        install: "apt-get install python3-dev",
        copied: Way::Not("an extension module reads a bytes object in place (the buffer protocol): there is no copy of its own to price"),
        string: Way::Offered("a str read by PyUnicode_AsUTF8AndSize (its UTF-8 made once and cached in the str; an ASCII str's own bytes)"),
        callback: Way::Offered("a Python callable called from C by PyObject_CallNoArgs (vectorcall) each upcall"),
        ..binding(
            "ext",
            "a C extension module toll builds from workers/ffi/toll_ffi_py.c (METH_NOARGS, METH_O), a bytes object through the buffer protocol",
            "a Py_ssize_t",
        )
    },
];

pub(super) const GO: [Binding; 1] = [Binding {
    install: "apt-get install gcc (cgo needs a C compiler when toll builds the Go worker)",
    copied: Way::Offered("C.CBytes(b) each call (malloc + copy), then C.free"),
    string: Way::Offered("C.CString(s) of a Go string each call (malloc + copy + NUL), then C.free"),
    callback: Way::Offered("an //export Go function called from C: each upcall switches from the C stack to a goroutine's and back (cgocallback)"),
    ..binding(
        "cgo",
        "cgo: toll_ffi.c compiled into the Go worker, a slice's own bytes passed (unsafe.Pointer(&b[0]), no copy)",
        "a Go slice",
    )
}];

pub(super) const JAVA: [Binding; 2] = [
    Binding {
        max_bytes: i32::MAX as u64 - 8,
        install: "a full JDK, with include/jni.h (e.g. apt-get install openjdk-25-jdk-headless)",
        copied: Way::Offered("a byte[] through GetByteArrayElements (a copy on HotSpot), released with JNI_ABORT"),
        string: Way::Offered("a String through GetStringUTFChars (modified UTF-8, a copy), then ReleaseStringUTFChars"),
        callback: Way::Offered("a static Java method called from C by CallStaticVoidMethod (its jmethodID looked up once), the thread already attached"),
        ..binding(
            "jni",
            "JNI native methods (workers/ffi/toll_ffi_jni.c), a byte[] through GetPrimitiveArrayCritical (pinned: the GC waits)",
            "a Java byte[]: 2^31 - 1 less the VM's header words",
        )
    },
    Binding {
        install: "a JDK 22 or newer (e.g. apt-get install openjdk-25-jdk-headless, or point JAVA_HOME at one)",
        copied: Way::Offered("a byte[] copied into a confined Arena's segment each call (arena.allocateFrom), the arena closed after"),
        string: Way::Offered("a String made a C string in a confined Arena each call (arena.allocateFrom(s), UTF-8 + NUL)"),
        callback: Way::Offered("an upcall stub (Linker.upcallStub) of a static method handle, made once"),
        ..binding(
            "ffm",
            "java.lang.foreign downcall handles on libtoll_ffi.so, an off-heap MemorySegment made once",
            "a MemorySegment's long size",
        )
    },
];

pub(super) const NODE: [Binding; 1] = [Binding {
    max_bytes: 1 << 32,
    copied: Way::Offered("Buffer.from(buffer) each call (a copy made in JS), read in place"),
    string: Way::Offered("a JS string copied out as UTF-8 into a malloc'd buffer each call (napi_get_value_string_utf8), freed after"),
    string_max: Some(((1 << 29) - 24, "a V8 string: (2^29 - 24) characters on 64-bit V8")),
    callback: Way::Offered("a JS function called from C by napi_call_function each upcall, inside one handle scope"),
    install: "apt-get install libnode-dev (node's headers, node_api.h)",
    ..binding(
        "napi",
        "an N-API addon toll builds with cc from workers/ffi/toll_ffi_napi.c, passed a Buffer (read in place)",
        "a Node Buffer: buffer.constants.MAX_LENGTH, 2^32 on Node 20",
    )
}];

const ERLANG_STRING: Way = Way::Not(
    "an Erlang string is a list of characters: passing one is the copied way (a list flattened by enif_inspect_iolist_as_binary)",
);

/// A NIF cannot call Erlang code: the nearest thing is a message.
const ERLANG_CALLBACK: Way = Way::Offered(
    "not a call: a NIF cannot call Erlang code, so C sends the calling process a message (enif_send) per upcall, and the process receives them after",
);

pub(super) const ERLANG: [Binding; 2] = [
    Binding {
        install: "apt-get install erlang-dev (erl_nif.h)",
        copied: Way::Offered("a list of bytes flattened into a new binary each call (enif_inspect_iolist_as_binary)"),
        string: ERLANG_STRING,
        callback: ERLANG_CALLBACK,
        ..binding(
            "nif",
            "a NIF toll builds from workers/ffi/toll_ffi_nif.c, on a normal scheduler, passed a binary (read in place, enif_inspect_binary)",
            "an Erlang binary",
        )
    },
    Binding {
        install: "apt-get install erlang-dev (erl_nif.h)",
        copied: Way::Not("the dirty scheduler's move is priced with the pinned way; the copy with binding nif"),
        string: ERLANG_STRING,
        callback: Way::Not("the dirty scheduler's move is priced with the pinned way; the messages a NIF sends in place of a callback with binding nif"),
        ..binding(
            "nif-dirty",
            "the same NIF on a dirty CPU scheduler (ERL_NIF_DIRTY_JOB_CPU_BOUND): the process moves to a dirty scheduler thread and back each call",
            "an Erlang binary",
        )
    },
];

const HS_COPIED: Way = Way::Offered(
    "the buffer copied into a fresh allocaBytes buffer each call (copyBytes: what useAsCStringLen does)",
);
const HS_STRING: Way =
    Way::Offered("a String marshalled each call (withCStringLen, the locale's encoding)");

pub(super) const HASKELL: [Binding; 2] = [
    Binding {
        copied: HS_COPIED,
        string: HS_STRING,
        callback: Way::Offered("a Haskell function made a FunPtr once (foreign import ccall \"wrapper\"): each upcall enters the RTS, takes a capability and runs the function as a new Haskell thread (rts_evalIO)"),
        ..binding(
            "safe",
            "foreign import ccall safe: the RTS saves the thread's state and releases its capability around the call; an allocaBytes buffer (pinned) made once",
            "a Ptr and a CSize",
        )
    },
    Binding {
        copied: HS_COPIED,
        string: HS_STRING,
        callback: Way::Not("an unsafe foreign call may not call back into Haskell (the RTS is not ready for it): a callback needs the safe binding"),
        ..binding(
            "unsafe",
            "foreign import ccall unsafe: a plain C call from Haskell code; an allocaBytes buffer (pinned) made once",
            "a Ptr and a CSize",
        )
    },
];
