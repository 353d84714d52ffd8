//! The C side of `toll ffi` (workers/ffi): libtoll_ffi.so, and for Python
//! the extension module, compiled with the machine's C compiler on first use
//! and cached by source and compiler (and Python) version like the workers;
//! a worker finds them through `TOLL_FFI_DIR` in its environment.

use super::cache::{keyed_dir, write_sources};
use super::launch::Launch;
use super::toolchain::Toolchain;
use crate::error::PeerError;
use std::path::Path;
use std::process::Command;

const TOLL_FFI_C: &str = include_str!("../../../../workers/ffi/toll_ffi.c");
const TOLL_FFI_H: &str = include_str!("../../../../workers/ffi/toll_ffi.h");
const TOLL_FFI_PY_C: &str = include_str!("../../../../workers/ffi/toll_ffi_py.c");

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
/// `TOLL_FFI_DIR` for `launch`: the library, and for Python (`python`: its
/// interpreter is `launch.program`) the extension module too.
pub(super) fn prepare(
    cc: Toolchain,
    mut launch: Launch,
    python: bool,
    note: &mut dyn FnMut(&str),
) -> Result<FfiLaunch, PeerError> {
    let mut unbuilt = Vec::new();
    let dir = if python {
        let dir = keyed_dir(
            "ffi-python",
            &[
                TOLL_FFI_C,
                TOLL_FFI_H,
                TOLL_FFI_PY_C,
                &cc.version,
                &launch.toolchain.1,
            ],
        );
        build_lib(&cc, &dir, note)?;
        if let Err(why) = build_python_ext(&cc, &launch.program, &dir, note) {
            unbuilt.push(("ext", why));
        }
        dir
    } else {
        let dir = keyed_dir("ffi", &[TOLL_FFI_C, TOLL_FFI_H, &cc.version]);
        build_lib(&cc, &dir, note)?;
        dir
    };
    launch.env.push(("TOLL_FFI_DIR".into(), dir.into()));
    Ok(FfiLaunch {
        launch,
        cc: ("cc".into(), cc.version),
        unbuilt,
    })
}

/// Run the compiler in `dir` to make `out` (renamed into place, so a
/// concurrent run never loads half a library); its first error line if it fails.
fn compile(cc: &Toolchain, dir: &Path, args: &[&str], out: &str) -> Result<(), String> {
    let tmp = format!("{out}.{}", std::process::id());
    let run = Command::new(&cc.program)
        .current_dir(dir)
        .args(["-O2", "-fPIC", "-shared", "-Wall", "-o", &tmp])
        .args(args)
        .output()
        .map_err(|e| format!("running {}: {e}", cc.program.display()))?;
    if !run.status.success() {
        let log = String::from_utf8_lossy(&run.stderr);
        let first = log
            .lines()
            .find(|l| l.contains("error"))
            .unwrap_or("compiler failed");
        return Err(first.trim().to_string());
    }
    std::fs::rename(dir.join(&tmp), dir.join(out)).map_err(|e| format!("installing {out}: {e}"))
}

fn build_lib(cc: &Toolchain, dir: &Path, note: &mut dyn FnMut(&str)) -> Result<(), PeerError> {
    if dir.join(LIB).is_file() {
        return Ok(());
    }
    note(&format!(
        "compiling workers/ffi/toll_ffi.c into {LIB} with {} -O2 (first use; cached after)",
        cc.program.display()
    ));
    write_sources(
        dir,
        &[("toll_ffi.c", TOLL_FFI_C), ("toll_ffi.h", TOLL_FFI_H)],
    )?;
    compile(cc, dir, &["toll_ffi.c"], LIB).map_err(|detail| PeerError::BuildFailed {
        peer: "ffi",
        detail,
    })
}

/// toll_ffi_ext.so against `python`'s own headers; why not, when they are missing.
fn build_python_ext(
    cc: &Toolchain,
    python: &Path,
    dir: &Path,
    note: &mut dyn FnMut(&str),
) -> Result<(), String> {
    const EXT: &str = "toll_ffi_ext.so";
    if dir.join(EXT).is_file() {
        return Ok(());
    }
    let include = Command::new(python)
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['include'])",
        ])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    if include.is_empty() || !Path::new(&include).join("Python.h").is_file() {
        return Err(format!(
            "{} has no Python.h (in `{include}`) to build the extension module against",
            python.display()
        ));
    }
    note("compiling the Python extension module toll_ffi_ext (first use; cached after)");
    write_sources(dir, &[("toll_ffi_py.c", TOLL_FFI_PY_C)]).map_err(|e| e.to_string())?;
    compile(
        cc,
        dir,
        &[&format!("-I{include}"), "toll_ffi_py.c", "toll_ffi.c"],
        EXT,
    )
}
