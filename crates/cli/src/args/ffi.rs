//! `toll ffi`: the runtimes and bindings, the bytes per call, and the
//! engine's settings.

use crate::parsers::checked;
use crate::usage::usage;
use clap::Args;
use std::path::PathBuf;
use toll_peers::{Pass, Touch};

#[derive(Debug, Args)]
pub struct FfiArgs {
    /// Runtimes, comma-separated: rust, c, python, go, java, node, erlang,
    /// haskell, or all; one this machine lacks is a row saying what to
    /// install.
    #[arg(long, default_value = "all", value_name = "LIST")]
    pub runtime: String,
    /// Bindings, comma-separated: direct, dlopen (rust, c); ctypes, cffi, ext
    /// (python); cgo (go); jni, ffm (java); napi (node); nif, nif-dirty
    /// (erlang); safe, unsafe (haskell). Default: every binding of the
    /// runtimes chosen.
    #[arg(long, value_name = "LIST")]
    pub binding: Option<String>,
    /// Ways of passing the bytes, comma-separated: pinned (the language's
    /// own bytes, no copy: a critical section in JNI, a slice's pointer in
    /// cgo, a bytes object in Python), copied (a copy made each call:
    /// GetByteArrayElements, C.CBytes, create_string_buffer, malloc +
    /// memcpy), string (the language's text made a C string each call:
    /// GetStringUTFChars, C.CString, s.encode(), CString::new). A way a
    /// binding does not offer is a row saying why.
    #[arg(long, default_value = "pinned", value_name = "LIST", value_parser = checked(passes))]
    pub pass: Passes,
    /// Also measure C calling back into the language: a series per binding,
    /// `runtime/binding/callback`, whose n is upcalls per call (the sizes
    /// read as counts); C calls the language's function n times, the
    /// language counts them, and β is one upcall (ctypes CFUNCTYPE, cffi's
    /// ffi.callback, PyObject_CallNoArgs, JNI CallStaticVoidMethod, an FFM
    /// upcall stub, a cgo //export, napi_call_function, a Haskell "wrapper"
    /// FunPtr; an Erlang NIF cannot call Erlang, so it sends a message per
    /// upcall). A binding that cannot call back is a row saying why.
    #[arg(long)]
    pub callback: bool,
    /// What the C side reads: receipt (n and three bytes, at constant cost,
    /// so β is the crossing's own cost per byte) or all (toll_ffi_sum reads
    /// every byte: β is then C's loop over them).
    #[arg(long, default_value = "receipt", value_name = "WHAT", value_parser = checked(touch))]
    pub touch: Touch,
    /// Bytes passed per call: a list and/or ranges (0, 1Ki, 4096:65536:4096);
    /// 0 is the null call.
    #[arg(long, default_value = toll_families::ffi::DEFAULT_SIZES, value_name = "LIST",
          allow_hyphen_values = true, value_parser = checked(bytes))]
    pub sizes: Bytes,
    /// Rounds, every size timed once a round in shuffled order (1 to 100000).
    #[arg(long, default_value_t = 10, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub trials: u32,
    /// Warm-up per size, in milliseconds (0 to 60000).
    #[arg(long, default_value_t = 100, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub warmup_ms: u64,
    /// Target length of one timed batch of calls, in milliseconds (1 to 10000).
    #[arg(long, default_value_t = 10, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub batch_ms: u64,
    /// Memory ceiling per batch, in MiB of the machine's memory (1 to
    /// 16777216): a worker that grows more is stopped and its point failed.
    #[arg(long, default_value_t = 4096, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(1..=16_777_216))]
    pub max_mem: u64,
    /// Beside each runtime's cheapest binding, the round trip of an empty
    /// message to the same runtime's worker over its cheapest link (toll
    /// transfer's, both ends on one core), and the ratio link ÷ call.
    #[arg(long)]
    pub vs_link: bool,
    /// Print the stored run as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw α per series as dots with their CIs on a log axis (with the
    /// figures dyu/ffi-overhead's README quotes as hollow diamonds), above
    /// β per binding and way (ns per KiB, ns per upcall), to an SVG file.
    #[arg(long, value_name = "FILE.svg", value_parser = crate::parsers::svg_file())]
    pub plot: Option<PathBuf>,
}

/// Bytes per call, sorted, without duplicates.
#[derive(Debug, Clone)]
pub struct Bytes(pub Vec<u64>);

/// --sizes: bytes, with no cap of toll's own (each binding's is checked
/// against the runtimes chosen).
fn bytes(flag: &str, text: &str) -> anyhow::Result<Bytes> {
    toll_families::sizes::parse_bytes(text, flag)
        .map(Bytes)
        .map_err(usage)
}

/// --pass: ways of passing, in the order toll measures them, once each.
#[derive(Debug, Clone)]
pub struct Passes(pub Vec<Pass>);

fn passes(flag: &str, text: &str) -> anyhow::Result<Passes> {
    let mut out = Vec::new();
    for w in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        if w == Pass::Callback.name() {
            return Err(usage(format!(
                "{flag} callback: a callback passes no bytes: give --callback beside --pass"
            )));
        }
        let p = Pass::parse(w).ok_or_else(|| {
            usage(format!(
                "{flag} {w}: unknown way of passing: the ways are pinned, copied, string"
            ))
        })?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    if out.is_empty() {
        return Err(usage(format!(
            "{flag} is empty: give pinned, copied and/or string, comma-separated"
        )));
    }
    out.sort();
    Ok(Passes(out))
}

fn touch(flag: &str, text: &str) -> anyhow::Result<Touch> {
    Touch::parse(text.trim()).ok_or_else(|| {
        usage(format!(
            "{flag} {text}: the C side reads `receipt` or `all`"
        ))
    })
}
