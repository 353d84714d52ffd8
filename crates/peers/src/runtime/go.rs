//! The Go worker: workers/go, built with `go build` on first use and cached by
//! source and Go version. Its `ffi` binding is cgo (workers/go/ffi_cgo.go,
//! which includes workers/ffi/toll_ffi.c): Go builds it when it finds a C
//! compiler (`$CC`, else gcc), and leaves it out, cgo off, when it does not.

use super::cache::{build_lock, keyed_dir, write_sources};
use super::launch::Launch;
use super::toolchain::{find_tool, output_line, Toolchain};
use crate::error::PeerError;
use std::process::Command;

pub(super) const INSTALL: &str = "apt-get install golang-go (or a release from https://go.dev/dl)";

/// The worker's files, and the shared C side beside them where ffi_cgo.go's
/// `-I${SRCDIR}/../ffi` finds it (the repository's layout).
const SOURCES: [(&str, &str); 9] = [
    ("go/go.mod", include_str!("../../../../workers/go/go.mod")),
    ("go/main.go", include_str!("../../../../workers/go/main.go")),
    ("go/wire.go", include_str!("../../../../workers/go/wire.go")),
    (
        "go/units.go",
        include_str!("../../../../workers/go/units.go"),
    ),
    ("go/ffi.go", include_str!("../../../../workers/go/ffi.go")),
    (
        "go/ffi_cgo.go",
        include_str!("../../../../workers/go/ffi_cgo.go"),
    ),
    (
        "go/ffi_callback_cgo.go",
        include_str!("../../../../workers/go/ffi_callback_cgo.go"),
    ),
    (
        "ffi/toll_ffi.c",
        include_str!("../../../../workers/ffi/toll_ffi.c"),
    ),
    (
        "ffi/toll_ffi.h",
        include_str!("../../../../workers/ffi/toll_ffi.h"),
    ),
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
    tool.version = output_line(&tool.program, &["version"]);
    Ok(tool)
}

pub(super) fn prepare(go: Toolchain, note: &mut dyn FnMut(&str)) -> Result<Launch, PeerError> {
    let mut parts: Vec<&str> = SOURCES.iter().map(|(_, s)| *s).collect();
    parts.push(&go.version);
    let dir = keyed_dir("go", &parts);
    let exe = dir.join("toll-worker-go");
    let _built = build_lock(&dir)?;
    if !exe.is_file() {
        note("building the Go worker with go build (first use; cached after)");
        let src = dir.join("src");
        for sub in ["go", "ffi"] {
            write_sources(&src.join(sub), &[])?;
        }
        write_sources(&src, &SOURCES)?;
        let src = src.join("go");
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
        env: Vec::new(),
    })
}

/// The Go RPC server (workers/go-rpc, spec/rpc.md): a module of its own, with
/// grpc-go. Its modules come from the module cache, which scripts/setup fills
/// (`go mod download`), so a build needs no network after setup.
const RPC_SOURCES: [(&str, &str); 4] = [
    ("go.mod", include_str!("../../../../workers/go-rpc/go.mod")),
    ("go.sum", include_str!("../../../../workers/go-rpc/go.sum")),
    (
        "main.go",
        include_str!("../../../../workers/go-rpc/main.go"),
    ),
    (
        "stacks.go",
        include_str!("../../../../workers/go-rpc/stacks.go"),
    ),
];

/// Build the Go RPC server on first use (cached by source and Go version).
pub(super) fn prepare_rpc(go: Toolchain, note: &mut dyn FnMut(&str)) -> Result<Launch, PeerError> {
    let mut parts: Vec<&str> = RPC_SOURCES.iter().map(|(_, s)| *s).collect();
    parts.push(&go.version);
    let dir = keyed_dir("go-rpc", &parts);
    let exe = dir.join("toll-rpc-go");
    let _built = build_lock(&dir)?;
    if !exe.is_file() {
        note("building the Go RPC server with go build (first use, a minute or so; cached after)");
        let src = dir.join("src");
        write_sources(&src, &RPC_SOURCES)?;
        let tmp = dir.join(format!("toll-rpc-go.{}", std::process::id()));
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
            return Err(PeerError::BuildFailed {
                peer: "go rpc server",
                detail: build_failure(&String::from_utf8_lossy(&out.stderr)),
            });
        }
        std::fs::rename(&tmp, &exe)
            .map_err(|e| PeerError::io(format!("installing {}", exe.display()), e))?;
    }
    Ok(Launch {
        program: exe,
        args: vec![],
        toolchain: ("go".into(), go.version),
        env: Vec::new(),
    })
}

/// The line of go build's output that says what failed (not its progress
/// lines), with the fix when the modules could not be fetched.
fn build_failure(log: &str) -> String {
    let line = log
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("go: downloading"))
        .unwrap_or("go build failed")
        .to_string();
    let offline = [
        "dial tcp",
        "proxy.golang.org",
        "missing go.sum entry",
        "lookup",
        "GOPROXY=off",
    ];
    if offline.iter().any(|w| log.contains(w)) {
        format!(
            "{line} (its modules are not in the module cache: run scripts/setup, or `go mod download` in workers/go-rpc, once with network)"
        )
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_build_failure_names_the_error_not_the_downloads() {
        let log = "go: downloading google.golang.org/grpc v1.84.0\nmain.go:3:2: undefined: x\n";
        assert_eq!(super::build_failure(log), "main.go:3:2: undefined: x");
        let offline = "go: downloading google.golang.org/grpc v1.84.0\nstacks.go:12:2: google.golang.org/grpc@v1.84.0: Get \"https://proxy.golang.org/x\": dial tcp: lookup proxy.golang.org: no such host\n";
        let said = super::build_failure(offline);
        assert!(said.starts_with("stacks.go:12:2"), "{said}");
        assert!(said.contains("go mod download"), "{said}");
    }
}
