//! The C worker: workers/c, compiled with the machine's C compiler on first
//! use and cached by source and compiler version.

use super::cache::{build_lock, keyed_dir, write_sources};
use super::launch::Launch;
use super::toolchain::{find_tool, Toolchain};
use crate::error::PeerError;
use std::process::Command;

pub(super) const INSTALL: &str = "apt-get install gcc";

const SOURCES: [(&str, &str); 13] = [
    ("worker.c", include_str!("../../../../workers/c/worker.c")),
    ("wire.c", include_str!("../../../../workers/c/wire.c")),
    ("wire.h", include_str!("../../../../workers/c/wire.h")),
    ("shm.c", include_str!("../../../../workers/c/shm.c")),
    ("shm.h", include_str!("../../../../workers/c/shm.h")),
    ("units.c", include_str!("../../../../workers/c/units.c")),
    ("units.h", include_str!("../../../../workers/c/units.h")),
    ("file.c", include_str!("../../../../workers/c/file.c")),
    ("file.h", include_str!("../../../../workers/c/file.h")),
    ("ffi.c", include_str!("../../../../workers/c/ffi.c")),
    ("ffi.h", include_str!("../../../../workers/c/ffi.h")),
    (
        "toll_ffi.c",
        include_str!("../../../../workers/ffi/toll_ffi.c"),
    ),
    (
        "toll_ffi.h",
        include_str!("../../../../workers/ffi/toll_ffi.h"),
    ),
];

/// `$CC`, else `cc`.
pub(crate) fn detect() -> Result<Toolchain, PeerError> {
    find_tool("c", "CC", "cc", INSTALL).map_err(|e| match e {
        PeerError::MissingToolchain {
            peer,
            tool,
            install,
        } => PeerError::MissingToolchain {
            peer,
            tool: format!("a C compiler ({tool})"),
            install,
        },
        other => other,
    })
}

pub(super) fn prepare(cc: Toolchain, note: &mut dyn FnMut(&str)) -> Result<Launch, PeerError> {
    let mut parts: Vec<&str> = SOURCES.iter().map(|(_, s)| *s).collect();
    parts.push(&cc.version);
    let dir = keyed_dir("c", &parts);
    let exe = dir.join("toll-worker-c");
    let _built = build_lock(&dir)?;
    if !exe.is_file() {
        note(&format!(
            "compiling the C worker with {} -O2 (first use; cached after)",
            cc.program.display()
        ));
        let src = dir.join("src");
        write_sources(&src, &SOURCES)?;
        // Build beside the target and rename, so concurrent runs never see half a binary.
        let tmp = dir.join(format!("toll-worker-c.{}", std::process::id()));
        let out = Command::new(&cc.program)
            .current_dir(&src)
            .args(["-O2", "-std=gnu11", "-Wall", "-Wextra", "-pthread", "-o"])
            .arg(&tmp)
            .args([
                "worker.c",
                "wire.c",
                "shm.c",
                "units.c",
                "file.c",
                "ffi.c",
                "toll_ffi.c",
                "-ldl",
            ])
            .output()
            .map_err(|e| PeerError::io(format!("running {}", cc.program.display()), e))?;
        if !out.status.success() {
            let log = String::from_utf8_lossy(&out.stderr);
            let first = log
                .lines()
                .find(|l| l.contains("error"))
                .unwrap_or("compiler failed");
            return Err(PeerError::BuildFailed {
                peer: "c",
                detail: first.trim().to_string(),
            });
        }
        std::fs::rename(&tmp, &exe)
            .map_err(|e| PeerError::io(format!("installing {}", exe.display()), e))?;
    }
    Ok(Launch {
        program: exe,
        args: vec![],
        toolchain: ("cc".into(), cc.version),
        env: Vec::new(),
    })
}
