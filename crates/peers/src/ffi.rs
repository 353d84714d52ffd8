//! `ffi` in the Rust worker (spec/wire.md): `reps` calls timed with the
//! monotonic clock. "direct" calls Rust functions the compiler may not
//! inline (the same functions as workers/ffi/toll_ffi.c, in Rust); "dlopen"
//! calls toll_ffi.c itself, through the pointers dlsym gives for
//! `$TOLL_FFI_DIR/libtoll_ffi.so`. Each passes the bytes one of three ways
//! (`pass`: the slice itself, a copy made each call, a `CString` made from a
//! `&str` each call) to the sum or the receipt (`touch`), or is called back
//! (`pass` "callback": an `extern "C" fn` counting through its context
//! pointer, n times per call). The pattern, its
//! sum and receipt are here too (from `runtime::ways`), so toll checks an
//! answer against the same definition the workers follow.

use crate::runtime::{Pass, Touch};
use serde_json::{json, Value};
use std::ffi::CString;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Instant;

pub use crate::runtime::{answer_key, expected, pattern_byte, string_byte, way_receipt, way_sum};

/// The sum of the pattern's first `n` bytes.
pub fn pattern_sum(n: u64, seed: u64) -> u64 {
    way_sum(Pass::Pinned, n, seed)
}

/// The byte sum, every byte read.
#[inline(never)]
extern "C" fn rust_sum(p: *const u8, n: usize) -> u64 {
    // SAFETY: the callers pass a live buffer of n bytes.
    let bytes = unsafe { std::slice::from_raw_parts(p, n) };
    black_box(bytes.iter().map(|&b| u64::from(b)).sum())
}

/// toll_ffi_receipt in Rust: n and three bytes, at constant cost.
#[inline(never)]
extern "C" fn rust_receipt(p: *const u8, n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    // SAFETY: the callers pass a live buffer of n bytes.
    let b = |i: usize| u64::from(unsafe { *p.add(i) });
    black_box((n as u64) << 24 | b(0) << 16 | b(n / 2) << 8 | b(n - 1))
}

/// toll_ffi_callback in Rust: `f(ctx)` n times.
#[inline(never)]
extern "C" fn rust_callback(f: UpcallFn, ctx: *mut libc::c_void, n: u64) {
    for _ in 0..n {
        f(black_box(ctx));
    }
}

/// The upcall: counts itself in the u64 its context points to.
extern "C" fn count_upcall(ctx: *mut libc::c_void) {
    // SAFETY: `callbacks` passes a live, unshared u64.
    unsafe { *ctx.cast::<u64>() += 1 }
}

type SumFn = unsafe extern "C" fn(*const u8, usize) -> u64;
type UpcallFn = extern "C" fn(*mut libc::c_void);
type CallbackFn = unsafe extern "C" fn(UpcallFn, *mut libc::c_void, u64);

/// toll_ffi_sum, toll_ffi_receipt and toll_ffi_callback from
/// `$TOLL_FFI_DIR`'s library, loaded once.
type Lib = (SumFn, SumFn, CallbackFn);

fn library() -> Result<Lib, String> {
    static LIB: OnceLock<Result<Lib, String>> = OnceLock::new();
    LIB.get_or_init(|| {
        let dir = std::env::var("TOLL_FFI_DIR").map_err(|_| {
            "TOLL_FFI_DIR is not set: toll sets it to where it built libtoll_ffi.so".to_string()
        })?;
        open(std::path::Path::new(&dir))
    })
    .clone()
}

/// Load `dir`'s libtoll_ffi.so (kept loaded for the process' life).
fn open(dir: &std::path::Path) -> Result<Lib, String> {
    let path = dir.join(crate::runtime::FFI_LIB);
    let c_path = CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: a NUL-terminated path.
    let lib = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if lib.is_null() {
        return Err(format!("cannot load {}", path.display()));
    }
    let sym = |name: &str| {
        let c = CString::new(name).expect("no NUL in a symbol name");
        // SAFETY: a live handle and a NUL-terminated name.
        unsafe { libc::dlsym(lib, c.as_ptr()) }
    };
    let (sum, receipt, callback) = (
        sym("toll_ffi_sum"),
        sym("toll_ffi_receipt"),
        sym("toll_ffi_callback"),
    );
    if sum.is_null() || receipt.is_null() || callback.is_null() {
        return Err(
            "libtoll_ffi.so lacks toll_ffi_sum, toll_ffi_receipt or toll_ffi_callback".into(),
        );
    }
    // SAFETY: the symbols of workers/ffi/toll_ffi.h, with these signatures.
    unsafe {
        Ok((
            std::mem::transmute::<*mut libc::c_void, SumFn>(sum),
            std::mem::transmute::<*mut libc::c_void, SumFn>(receipt),
            std::mem::transmute::<*mut libc::c_void, CallbackFn>(callback),
        ))
    }
}

/// The bindings this worker can call now: `dlopen` only when the library loads.
pub fn bindings() -> Vec<&'static str> {
    match library() {
        Ok(_) => vec!["direct", "dlopen"],
        Err(_) => vec!["direct"],
    }
}

/// One `ffi` command's answer.
pub fn run(cmd: &Value) -> Value {
    run_with(cmd, &library)
}

/// [`run`] with the library found by `library`.
fn run_with(cmd: &Value, library: &dyn Fn() -> Result<Lib, String>) -> Value {
    let binding = cmd.get("binding").and_then(Value::as_str).unwrap_or("");
    let get = |k: &str| cmd.get(k).and_then(Value::as_u64);
    let (Some(n), Some(reps), Some(seed)) = (get("n"), get("reps"), get("seed")) else {
        return json!({"ok": false, "error": "`ffi` needs whole numbers n, reps and seed"});
    };
    if reps == 0 {
        return json!({"ok": false, "error": "`ffi` needs reps of at least 1"});
    }
    let word = |k: &str, absent: &'static str| cmd.get(k).and_then(Value::as_str).unwrap_or(absent);
    let (Some(pass), Some(touch)) = (
        Pass::parse(word("pass", "pinned")),
        Touch::parse(word("touch", "all")),
    ) else {
        return json!({"ok": false, "error": "`ffi` takes pass pinned, copied, string or callback and touch all or receipt"});
    };
    let Ok(len) = usize::try_from(n) else {
        return json!({"ok": false, "error": format!("n = {n} does not fit in memory here")});
    };
    let (sum, receipt, callback): Lib = match binding {
        "direct" => (rust_sum, rust_receipt, rust_callback),
        "dlopen" => match library() {
            Ok(l) => l,
            Err(why) => return json!({"ok": false, "error": format!("dlopen: {why}")}),
        },
        other => {
            return json!({"ok": false, "error": format!("no binding {other}: the rust worker has direct, dlopen")})
        }
    };
    if pass == Pass::Callback {
        let (ns, count) = callbacks(callback, n, reps);
        return json!({"ok": true, "event": "done", "binding": binding, "n": n, "reps": reps, "ns": ns, "count": count});
    }
    let f = match touch {
        Touch::All => sum,
        Touch::Receipt => receipt,
    };
    let mut buf: Vec<u8> = Vec::new();
    if buf.try_reserve_exact(len).is_err() {
        return json!({"ok": false, "limit": true, "error": format!("cannot allocate {n} bytes")});
    }
    buf.extend((0..n).map(|i| crate::runtime::way_byte(pass, seed, i)));
    let (ns, last) = match pass {
        Pass::Pinned => calls(reps, || {
            // SAFETY: toll_ffi.h's function; the buffer outlives the call,
            // and with n = 0 its pointer is not read.
            unsafe { f(black_box(buf.as_ptr()), len) }
        }),
        Pass::Copied => calls(reps, || {
            let copy = black_box(&buf).to_vec();
            // SAFETY: as above, the copy lives until after the call.
            unsafe { f(copy.as_ptr(), len) }
        }),
        Pass::Callback => unreachable!("answered above"),
        Pass::String => {
            let text = String::from_utf8(buf).expect("the string way's bytes are ASCII");
            calls(reps, || {
                let c = CString::new(black_box(text.as_str())).expect("no NUL in the text");
                // SAFETY: as above; the CString holds len bytes and a NUL.
                unsafe { f(c.as_ptr().cast(), len) }
            })
        }
    };
    let key = crate::runtime::answer_key(pass, touch);
    json!({"ok": true, "event": "done", "binding": binding, "n": n, "reps": reps, "ns": ns, key: last})
}

/// `reps` calls of `callback`, each calling back `n` times, timed: (ns,
/// the last call's count of its upcalls).
fn callbacks(callback: CallbackFn, n: u64, reps: u64) -> (u64, u64) {
    let mut count = 0u64;
    calls(reps, || {
        count = 0;
        // SAFETY: toll_ffi.h's function; the count outlives the call.
        unsafe { callback(count_upcall, black_box(&raw mut count).cast(), n) };
        count
    })
}

/// `reps` calls of `call`, timed: (ns, the last return). One call shape at
/// every n, 0 included, so the line through the sizes is drawn through one
/// kind of call.
fn calls(reps: u64, mut call: impl FnMut() -> u64) -> (u64, u64) {
    let mut last = 0;
    let t0 = Instant::now();
    (0..reps).for_each(|_| last = call());
    (t0.elapsed().as_nanos() as u64, last)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// spec/vectors/ffi.tsv: (n, seed, sum) rows.
    fn vectors() -> Vec<(u64, u64, u64)> {
        include_str!("../../../spec/vectors/ffi.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let f: Vec<u64> = l.split('\t').skip(1).map(|x| x.parse().unwrap()).collect();
                (f[0], f[1], f[2])
            })
            .collect()
    }

    #[test]
    fn the_closed_form_and_the_direct_binding_pass_the_sum_vectors() {
        let v = vectors();
        assert!(v.len() >= 8);
        for (n, seed, sum) in v {
            assert_eq!(
                pattern_sum(n, seed),
                sum,
                "closed form, n = {n}, seed = {seed}"
            );
            let a =
                run(&json!({"op": "ffi", "binding": "direct", "n": n, "reps": 3, "seed": seed}));
            assert_eq!(a["ok"], true, "{a}");
            assert_eq!(a["sum"], sum, "direct, n = {n}, seed = {seed}");
        }
    }

    /// spec/vectors/ffi_receipt.tsv: (n, seed, bytes, string) rows.
    fn receipt_vectors() -> Vec<(u64, u64, u64, u64)> {
        include_str!("../../../spec/vectors/ffi_receipt.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let f: Vec<u64> = l.split('\t').skip(1).map(|x| x.parse().unwrap()).collect();
                (f[0], f[1], f[2], f[3])
            })
            .collect()
    }

    /// Every way of `binding` answers the receipt vectors, and sums the pattern.
    fn every_way_passes_the_receipt_vectors(binding: &str, lib: &dyn Fn() -> Result<Lib, String>) {
        for (n, seed, bytes, string) in receipt_vectors() {
            for pass in Pass::ALL {
                let want = if pass == Pass::String { string } else { bytes };
                let cmd = json!({"binding": binding, "pass": pass.name(), "touch": "receipt", "n": n, "reps": 3, "seed": seed});
                let a = run_with(&cmd, lib);
                assert_eq!(a["receipt"], want, "{binding} {pass}, n = {n}: {a}");
                let cmd = json!({"binding": binding, "pass": pass.name(), "touch": "all", "n": n, "reps": 1, "seed": seed});
                let a = run_with(&cmd, lib);
                assert_eq!(
                    a["sum"],
                    way_sum(pass, n, seed),
                    "{binding} {pass} sum, n = {n}: {a}"
                );
            }
        }
    }

    #[test]
    fn every_way_of_the_direct_binding_passes_the_receipt_vectors() {
        every_way_passes_the_receipt_vectors("direct", &library);
        counts_every_upcall("direct", &library);
    }

    /// The callback's count is n, for every n of the counts' checks.
    fn counts_every_upcall(binding: &str, lib: &dyn Fn() -> Result<Lib, String>) {
        for n in [0u64, 1, 2, 1000] {
            let cmd = json!({"binding": binding, "pass": "callback", "n": n, "reps": 3, "seed": 0});
            let a = run_with(&cmd, lib);
            assert_eq!(a["count"], n, "{binding} callback, n = {n}: {a}");
        }
    }

    /// The shared library toll builds, called through dlopen, sums every vector.
    #[test]
    fn the_dlopen_binding_passes_the_sum_vectors() {
        let ffi = crate::Runtime::Rust
            .prepare_ffi(&mut |_| {})
            .expect("a C compiler builds libtoll_ffi.so");
        let dir = ffi
            .launch
            .env
            .iter()
            .find(|(k, _)| k == "TOLL_FFI_DIR")
            .map(|(_, v)| std::path::PathBuf::from(v))
            .unwrap();
        let lib = open(&dir).unwrap();
        for (n, seed, sum) in vectors() {
            let cmd = json!({"binding": "dlopen", "n": n, "reps": 3, "seed": seed});
            let a = run_with(&cmd, &|| Ok(lib));
            assert_eq!(a["sum"], sum, "dlopen, n = {n}, seed = {seed}: {a}");
        }
        every_way_passes_the_receipt_vectors("dlopen", &|| Ok(lib));
        counts_every_upcall("dlopen", &|| Ok(lib));
    }

    #[test]
    fn bad_commands_are_refused_in_one_line() {
        let a = run(&json!({"binding": "ctypes", "n": 1, "reps": 1, "seed": 0}));
        assert_eq!(
            a["error"],
            "no binding ctypes: the rust worker has direct, dlopen"
        );
        let a = run(&json!({"binding": "direct", "n": 1, "reps": 0, "seed": 0}));
        assert_eq!(a["ok"], false);
        let a = run(&json!({"binding": "direct", "pass": "lent", "n": 1, "reps": 1, "seed": 0}));
        assert_eq!(a["ok"], false, "{a}");
    }
}
