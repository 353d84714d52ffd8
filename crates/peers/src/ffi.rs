//! `ffi` in the Rust worker (spec/wire.md): `reps` calls timed with the
//! monotonic clock. "direct" calls Rust functions the compiler may not
//! inline (the same loop as workers/ffi/toll_ffi.c, in Rust); "dlopen" calls
//! toll_ffi.c itself, through the pointers dlsym gives for
//! `$TOLL_FFI_DIR/libtoll_ffi.so`. The pattern and its sum are here too, so
//! toll checks an answer against the same definition the workers follow.

use serde_json::{json, Value};
use std::ffi::CString;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Instant;

/// Byte `i` of the buffer for `seed`: (seed + 131·i) mod 256.
pub fn pattern_byte(seed: u64, i: u64) -> u8 {
    (seed.wrapping_add(i.wrapping_mul(131)) & 0xff) as u8
}

/// The sum of the pattern's first `n` bytes, in closed form: 131 is odd, so
/// every 256 bytes run through 0..=255 once (32640), then the rest.
pub fn pattern_sum(n: u64, seed: u64) -> u64 {
    let rest: u64 = (0..n % 256).map(|i| u64::from(pattern_byte(seed, i))).sum();
    (n / 256) * 32640 + rest
}

/// The byte sum, every byte read.
#[inline(never)]
fn rust_sum(bytes: &[u8]) -> u64 {
    black_box(bytes.iter().map(|&b| u64::from(b)).sum())
}

type NullFn = unsafe extern "C" fn();
type SumFn = unsafe extern "C" fn(*const u8, usize) -> u64;

/// toll_ffi_null and toll_ffi_sum from `$TOLL_FFI_DIR`'s library, loaded once.
fn library() -> Result<(NullFn, SumFn), String> {
    static LIB: OnceLock<Result<(NullFn, SumFn), String>> = OnceLock::new();
    LIB.get_or_init(|| {
        let dir = std::env::var("TOLL_FFI_DIR").map_err(|_| {
            "TOLL_FFI_DIR is not set: toll sets it to where it built libtoll_ffi.so".to_string()
        })?;
        open(std::path::Path::new(&dir))
    })
    .clone()
}

/// Load `dir`'s libtoll_ffi.so (kept loaded for the process' life).
fn open(dir: &std::path::Path) -> Result<(NullFn, SumFn), String> {
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
    let (null, sum) = (sym("toll_ffi_null"), sym("toll_ffi_sum"));
    if null.is_null() || sum.is_null() {
        return Err("libtoll_ffi.so lacks toll_ffi_null or toll_ffi_sum".into());
    }
    // SAFETY: the symbols of workers/ffi/toll_ffi.h, with these signatures.
    unsafe {
        Ok((
            std::mem::transmute::<*mut libc::c_void, NullFn>(null),
            std::mem::transmute::<*mut libc::c_void, SumFn>(sum),
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
fn run_with(cmd: &Value, library: &dyn Fn() -> Result<(NullFn, SumFn), String>) -> Value {
    let binding = cmd.get("binding").and_then(Value::as_str).unwrap_or("");
    let get = |k: &str| cmd.get(k).and_then(Value::as_u64);
    let (Some(n), Some(reps), Some(seed)) = (get("n"), get("reps"), get("seed")) else {
        return json!({"ok": false, "error": "`ffi` needs whole numbers n, reps and seed"});
    };
    if reps == 0 {
        return json!({"ok": false, "error": "`ffi` needs reps of at least 1"});
    }
    let Ok(len) = usize::try_from(n) else {
        return json!({"ok": false, "error": format!("n = {n} does not fit in memory here")});
    };
    let lib = match binding {
        "direct" => None,
        "dlopen" => match library() {
            Ok(l) => Some(l),
            Err(why) => return json!({"ok": false, "error": format!("dlopen: {why}")}),
        },
        other => {
            return json!({"ok": false, "error": format!("no binding {other}: the rust worker has direct, dlopen")})
        }
    };
    let mut buf: Vec<u8> = Vec::new();
    if buf.try_reserve_exact(len).is_err() {
        return json!({"ok": false, "limit": true, "error": format!("cannot allocate {n} bytes")});
    }
    buf.extend((0..n).map(|i| pattern_byte(seed, i)));
    let mut last = 0u64;
    let t0 = Instant::now();
    // One call shape at every n, 0 included (a sum of no bytes): the line
    // through the sizes is drawn through one kind of call.
    match lib {
        None => (0..reps).for_each(|_| last = rust_sum(black_box(&buf))),
        // SAFETY: toll_ffi.h's function; the buffer outlives every call, and
        // with n = 0 its pointer is not read.
        Some((_, sum)) => (0..reps).for_each(|_| {
            let p = black_box(buf.as_ptr());
            last = unsafe { sum(p, len) };
        }),
    }
    let ns = t0.elapsed().as_nanos() as u64;
    json!({"ok": true, "event": "done", "binding": binding, "n": n, "reps": reps, "ns": ns, "sum": last})
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
    }
}
