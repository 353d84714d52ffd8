//! The Haskell worker (optional): workers/haskell, built with GHC on first use
//! and cached by source and GHC version. Used when `ghc` is on the machine.
//! GHC compiles workers/ffi/toll_ffi.c in for its `ffi` bindings (Ffi.hs).

use super::cache::{build_lock, keyed_dir, write_sources};
use super::launch::Launch;
use super::toolchain::{find_tool, output_line, Toolchain};
use crate::error::PeerError;
use std::process::Command;

pub(super) const INSTALL: &str = "apt-get install ghc";

/// The worker's modules, and the shared C side GHC compiles in for Ffi.hs's
/// `foreign import ccall`s, in the repository's layout.
const SOURCES: [(&str, &str); 8] = [
    (
        "TollWorker.hs",
        include_str!("../../../../workers/haskell/TollWorker.hs"),
    ),
    ("Ffi.hs", include_str!("../../../../workers/haskell/Ffi.hs")),
    (
        "../ffi/toll_ffi.c",
        include_str!("../../../../workers/ffi/toll_ffi.c"),
    ),
    (
        "../ffi/toll_ffi.h",
        include_str!("../../../../workers/ffi/toll_ffi.h"),
    ),
    (
        "Wire.hs",
        include_str!("../../../../workers/haskell/Wire.hs"),
    ),
    (
        "Units.hs",
        include_str!("../../../../workers/haskell/Units.hs"),
    ),
    (
        "Json.hs",
        include_str!("../../../../workers/haskell/Json.hs"),
    ),
    (
        "Socket.hs",
        include_str!("../../../../workers/haskell/Socket.hs"),
    ),
];

/// `$TOLL_GHC`, else `ghc` on PATH.
pub(super) fn detect() -> Result<Toolchain, PeerError> {
    let mut ghc = find_tool("haskell", "TOLL_GHC", "ghc", INSTALL)?;
    ghc.version = output_line(&ghc.program, &["--numeric-version"]);
    ghc.version = format!("ghc {}", ghc.version);
    Ok(ghc)
}

pub(super) fn prepare(ghc: Toolchain, note: &mut dyn FnMut(&str)) -> Result<Launch, PeerError> {
    let mut parts: Vec<&str> = SOURCES.iter().map(|(_, s)| *s).collect();
    parts.push(&ghc.version);
    let dir = keyed_dir("haskell", &parts);
    let exe = dir.join("toll-worker-haskell");
    let _built = build_lock(&dir)?;
    if !exe.is_file() {
        note("building the Haskell worker with ghc -O2 (first use; cached after)");
        let src = dir.join("src/haskell");
        write_sources(&dir.join("src/ffi"), &[])?;
        write_sources(&src, &SOURCES)?;
        let tmp = dir.join(format!("toll-worker-haskell.{}", std::process::id()));
        let out = Command::new(&ghc.program)
            .current_dir(&src)
            .args(["-O2", "-v0", "-rtsopts", "-outputdir"])
            .arg(dir.join(format!("obj.{}", std::process::id())))
            .arg("-o")
            .arg(&tmp)
            .args(["TollWorker.hs", "../ffi/toll_ffi.c"])
            .output()
            .map_err(|e| PeerError::io(format!("running {}", ghc.program.display()), e))?;
        let _ = std::fs::remove_dir_all(dir.join(format!("obj.{}", std::process::id())));
        if !out.status.success() {
            let log = String::from_utf8_lossy(&out.stderr);
            return Err(PeerError::BuildFailed {
                peer: "haskell",
                detail: log
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("ghc failed")
                    .trim()
                    .to_string(),
            });
        }
        std::fs::rename(&tmp, &exe)
            .map_err(|e| PeerError::io(format!("installing {}", exe.display()), e))?;
    }
    Ok(Launch {
        program: exe,
        args: vec![],
        toolchain: ("ghc".into(), ghc.version),
        env: Vec::new(),
    })
}
