//! The glue a runtime's bindings need beside libtoll_ffi.so, each built
//! from its source in workers/ffi against the runtime's own headers: Python's
//! extension module, Java's JNI stub, Node's N-API addon, Erlang's NIF. (Go's cgo compiles toll_ffi.c into the Go worker, so it
//! needs none here.) A glue whose headers are missing is not an error: its
//! binding is reported missing, with why.

use super::cache::write_sources;
use super::launch::Launch;
use super::toolchain::Toolchain;
use std::path::Path;
use std::process::Command;

const TOLL_FFI_PY_C: &str = include_str!("../../../../workers/ffi/toll_ffi_py.c");
const TOLL_FFI_JNI_C: &str = include_str!("../../../../workers/ffi/toll_ffi_jni.c");
const TOLL_FFI_NAPI_C: &str = include_str!("../../../../workers/ffi/toll_ffi_napi.c");
const TOLL_FFI_NIF_C: &str = include_str!("../../../../workers/ffi/toll_ffi_nif.c");

/// The glue a runtime's bindings need built beside libtoll_ffi.so (each
/// runtime picks its own in `prepare_ffi`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Glue {
    /// Nothing: the C side is compiled into the worker, or loaded as it is.
    None,
    /// Python's extension module (binding `ext`).
    PythonExt,
    /// Java's JNI stub (binding `jni`; `ffm` needs JDK 22+).
    Jni,
    /// Node's N-API addon (binding `napi`).
    Napi,
    /// Erlang's NIF (binding `nif`).
    Nif,
}

/// The glue sources `glue` needs (file name, text): part of its cache key.
pub(super) fn sources(glue: Glue) -> Vec<(&'static str, &'static str)> {
    match glue {
        Glue::PythonExt => vec![("toll_ffi_py.c", TOLL_FFI_PY_C)],
        Glue::Jni => vec![("toll_ffi_jni.c", TOLL_FFI_JNI_C)],
        Glue::Napi => vec![("toll_ffi_napi.c", TOLL_FFI_NAPI_C)],
        Glue::Nif => vec![("toll_ffi_nif.c", TOLL_FFI_NIF_C)],
        Glue::None => vec![],
    }
}

/// Build `glue` into `dir` (libtoll_ffi.so's sources are there):
/// the bindings that could not be built, with why.
pub(super) fn build(
    glue: Glue,
    cc: &Toolchain,
    launch: &Launch,
    dir: &Path,
    note: &mut dyn FnMut(&str),
) -> Vec<(&'static str, String)> {
    let mut unbuilt = Vec::new();
    match glue {
        Glue::PythonExt => {
            if let Err(why) = python_ext(cc, &launch.program, dir, note) {
                unbuilt.push(("ext", why));
            }
        }
        Glue::Jni => {
            if let Err(why) = java_jni(cc, &launch.program, dir, note) {
                unbuilt.push(("jni", why));
            }
            let major = super::java::major(&launch.toolchain.1).unwrap_or(0);
            if major < super::java::FFM_MAJOR {
                unbuilt.push((
                    "ffm",
                    format!("needs JDK 22+ (java.lang.foreign), this is JDK {major}"),
                ));
            }
        }
        Glue::Napi => {
            if let Err(why) = node_addon(cc, &launch.program, dir, note) {
                unbuilt.push(("napi", why));
            }
        }
        Glue::Nif => {
            if let Err(why) = erlang_nif(cc, &launch.program, dir, note) {
                unbuilt.push(("nif-dirty", why.clone()));
                unbuilt.push(("nif", why));
            }
        }
        Glue::None => {}
    }
    unbuilt
}

/// toll_ffi_nif.so against the OTP install's erl_nif.h (`erl` asked for
/// its root: erlang-base has no headers, erlang-dev adds them).
fn erlang_nif(
    cc: &Toolchain,
    erl: &Path,
    dir: &Path,
    note: &mut dyn FnMut(&str),
) -> Result<(), String> {
    const OUT: &str = "toll_ffi_nif.so";
    if dir.join(OUT).is_file() {
        return Ok(());
    }
    let root = Command::new(erl)
        .args([
            "-noshell",
            "-eval",
            "io:format(\"~s\", [code:root_dir()]), halt().",
        ])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let include = Path::new(&root).join("usr/include");
    if !include.join("erl_nif.h").is_file() {
        return Err(format!("the OTP install at `{root}` has no erl_nif.h"));
    }
    note("compiling the NIF toll_ffi_nif.so with cc (first use; cached after)");
    write_sources(dir, &sources(Glue::Nif)).map_err(|e| e.to_string())?;
    compile(
        cc,
        dir,
        &[
            &format!("-I{}", include.display()),
            "toll_ffi_nif.c",
            "toll_ffi.c",
        ],
        OUT,
    )
}

/// toll_ffi_napi.node against node's headers: beside its prefix (`node` is
/// its bin/node), else where distributions put them (libnode-dev).
fn node_addon(
    cc: &Toolchain,
    node: &Path,
    dir: &Path,
    note: &mut dyn FnMut(&str),
) -> Result<(), String> {
    const OUT: &str = "toll_ffi_napi.node";
    if dir.join(OUT).is_file() {
        return Ok(());
    }
    let node = std::fs::canonicalize(node).unwrap_or_else(|_| node.to_path_buf());
    let beside = node
        .parent()
        .and_then(Path::parent)
        .map(|p| p.join("include/node"));
    let include = beside
        .into_iter()
        .chain(["/usr/include/node".into(), "/usr/local/include/node".into()])
        .find(|d: &std::path::PathBuf| d.join("node_api.h").is_file())
        .ok_or_else(|| "node's headers (node_api.h) are not on this machine".to_string())?;
    note("compiling the N-API addon toll_ffi_napi.node with cc (first use; cached after)");
    write_sources(dir, &sources(Glue::Napi)).map_err(|e| e.to_string())?;
    compile(
        cc,
        dir,
        &[
            &format!("-I{}", include.display()),
            "toll_ffi_napi.c",
            "toll_ffi.c",
        ],
        OUT,
    )
}

/// libtoll_ffi_jni.so against the JDK's own jni.h (`java` is its bin/java).
fn java_jni(
    cc: &Toolchain,
    java: &Path,
    dir: &Path,
    note: &mut dyn FnMut(&str),
) -> Result<(), String> {
    const OUT: &str = "libtoll_ffi_jni.so";
    if dir.join(OUT).is_file() {
        return Ok(());
    }
    let home = java
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("/"));
    let include = home.join("include");
    if !include.join("jni.h").is_file() {
        return Err(format!(
            "the JDK at {} has no include/jni.h",
            home.display()
        ));
    }
    note("compiling the JNI glue libtoll_ffi_jni.so (first use; cached after)");
    write_sources(dir, &sources(Glue::Jni)).map_err(|e| e.to_string())?;
    let inc = format!("-I{}", include.display());
    let inc_linux = format!("-I{}", include.join("linux").display());
    compile(
        cc,
        dir,
        &[&inc, &inc_linux, "toll_ffi_jni.c", "toll_ffi.c"],
        OUT,
    )
}

/// Run the compiler in `dir` to make `out` (renamed into place, so a
/// concurrent run never loads half a library); its first error line if it fails.
pub(super) fn compile(cc: &Toolchain, dir: &Path, args: &[&str], out: &str) -> Result<(), String> {
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

/// toll_ffi_ext.so against `python`'s own headers; why not, when they are missing.
fn python_ext(
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
    write_sources(dir, &sources(Glue::PythonExt)).map_err(|e| e.to_string())?;
    compile(
        cc,
        dir,
        &[&format!("-I{include}"), "toll_ffi_py.c", "toll_ffi.c"],
        EXT,
    )
}
