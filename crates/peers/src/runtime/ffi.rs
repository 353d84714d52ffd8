//! The C side of `toll ffi` (workers/ffi): libtoll_ffi.so, and a runtime's
//! own glue (`glue`), compiled with the machine's C compiler on first use
//! and cached by source and compiler (and runtime) version like the workers;
//! a worker finds them through `TOLL_FFI_DIR` in its environment.

use super::cache::{build_lock, keyed_dir, write_sources};
use super::ffi_glue::{self as glue, compile, Glue};
use super::launch::Launch;
use super::toolchain::Toolchain;
use crate::error::PeerError;
use std::path::Path;

const TOLL_FFI_C: &str = include_str!("../../../../workers/ffi/toll_ffi.c");
const TOLL_FFI_H: &str = include_str!("../../../../workers/ffi/toll_ffi.h");

/// The library's file name in `TOLL_FFI_DIR`.
pub const LIB: &str = "libtoll_ffi.so";

/// A runtime's worker, ready for `ffi`, and the bindings whose part could
/// not be built here (name, why).
#[derive(Debug, Clone)]
pub struct FfiLaunch {
    pub launch: Launch,
    /// The C compiler's (tool, version), stored with the run.
    pub cc: (String, String),
    pub unbuilt: Vec<(&'static str, String)>,
}

/// Build the C side a worker calls into a cache directory and set
/// `TOLL_FFI_DIR` for `launch`: the library, and the glue `runtime`'s own
/// bindings need (Python's extension module, the JNI stub, the N-API addon,
/// the NIF), each cached by its sources and the compiler's and runtime's
/// versions. A glue that cannot be built here is listed in `unbuilt`.
pub(super) fn prepare(
    cc: Toolchain,
    mut launch: Launch,
    runtime: &str,
    glue: Glue,
    note: &mut dyn FnMut(&str),
) -> Result<FfiLaunch, PeerError> {
    let sources = glue::sources(glue);
    let mut key: Vec<&str> = vec![TOLL_FFI_C, TOLL_FFI_H, &cc.version, &launch.toolchain.1];
    key.extend(sources.iter().map(|(_, text)| *text));
    let dir = keyed_dir(&format!("ffi-{runtime}"), &key);
    let _built = build_lock(&dir)?;
    build_lib(&cc, &dir, note)?;
    let unbuilt = glue::build(glue, &cc, &launch, &dir, note);
    launch.env.push(("TOLL_FFI_DIR".into(), dir.into()));
    Ok(FfiLaunch {
        launch,
        cc: ("cc".into(), cc.version),
        unbuilt,
    })
}

/// The C library in `dir` (a runtime's): compiled once per source and
/// compiler into a directory every runtime shares, and linked (hard, or
/// copied across file systems) into `dir` beside the runtime's glue, so a
/// first `toll ffi` over eight runtimes compiles it once, says so once,
/// and caches one build.
fn build_lib(cc: &Toolchain, dir: &Path, note: &mut dyn FnMut(&str)) -> Result<(), PeerError> {
    // The glue includes the header and, for some, compiles the source in.
    write_sources(
        dir,
        &[("toll_ffi.c", TOLL_FFI_C), ("toll_ffi.h", TOLL_FFI_H)],
    )?;
    if dir.join(LIB).is_file() {
        return Ok(());
    }
    let shared = keyed_dir("ffi-lib", &[TOLL_FFI_C, TOLL_FFI_H, &cc.version]);
    {
        // Taken after the runtime's own lock, never before: no two builds
        // wait on each other.
        let _built = build_lock(&shared)?;
        if !shared.join(LIB).is_file() {
            note(&format!(
                "compiling workers/ffi/toll_ffi.c into {LIB} with {} -O2 (first use; cached after)",
                cc.program.display()
            ));
            write_sources(
                &shared,
                &[("toll_ffi.c", TOLL_FFI_C), ("toll_ffi.h", TOLL_FFI_H)],
            )?;
            compile(cc, &shared, &["toll_ffi.c"], LIB).map_err(|detail| {
                PeerError::BuildFailed {
                    peer: "ffi",
                    detail,
                }
            })?;
        }
    }
    let (from, to) = (shared.join(LIB), dir.join(LIB));
    std::fs::hard_link(&from, &to)
        .or_else(|_| std::fs::copy(&from, &to).map(|_| ()))
        .map_err(|e| PeerError::io(format!("placing {LIB} in {}", dir.display()), e))
}
