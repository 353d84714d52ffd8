//! The Go worker: workers/go, built with `go build` on first use and cached by
//! source and Go version.

use super::{find_tool, keyed_dir, write_sources, Launch, Toolchain};
use crate::PeerError;
use std::process::Command;

pub(super) const INSTALL: &str = "apt-get install golang-go (or a release from https://go.dev/dl)";

const SOURCES: [(&str, &str); 4] = [
    ("go.mod", include_str!("../../../../workers/go/go.mod")),
    ("main.go", include_str!("../../../../workers/go/main.go")),
    ("wire.go", include_str!("../../../../workers/go/wire.go")),
    ("units.go", include_str!("../../../../workers/go/units.go")),
];

/// `$TOLL_GO`, else `go` on PATH, else the usual /usr/local/go.
pub(super) fn detect() -> Result<Toolchain, PeerError> {
    let mut tool = find_tool("go", "TOLL_GO", "go", INSTALL).or_else(|e| {
        let local = std::path::Path::new("/usr/local/go/bin/go");
        if std::env::var_os("TOLL_GO").is_none() && local.is_file() {
            find_tool("go", "TOLL_GO", "/usr/local/go/bin/go", INSTALL)
        } else {
            Err(e)
        }
    })?;
    tool.version = super::output_line(&tool.program, &["version"]);
    Ok(tool)
}

pub(super) fn prepare(go: Toolchain, note: &mut dyn FnMut(&str)) -> Result<Launch, PeerError> {
    let mut parts: Vec<&str> = SOURCES.iter().map(|(_, s)| *s).collect();
    parts.push(&go.version);
    let dir = keyed_dir("go", &parts);
    let exe = dir.join("toll-worker-go");
    if !exe.is_file() {
        note("building the Go worker with go build (first use; cached after)");
        let src = dir.join("src");
        write_sources(&src, &SOURCES)?;
        let tmp = dir.join(format!("toll-worker-go.{}", std::process::id()));
        let out = Command::new(&go.program)
            .current_dir(&src)
            .args(["build", "-o"])
            .arg(&tmp)
            .arg(".")
            .env("GOFLAGS", "-mod=mod")
            .env("GOTOOLCHAIN", "local")
            .output()
            .map_err(|e| PeerError::io(format!("running {}", go.program.display()), e))?;
        if !out.status.success() {
            let log = String::from_utf8_lossy(&out.stderr);
            return Err(PeerError::BuildFailed {
                peer: "go",
                detail: log
                    .lines()
                    .next()
                    .unwrap_or("go build failed")
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
        toolchain: ("go".into(), go.version),
    })
}
