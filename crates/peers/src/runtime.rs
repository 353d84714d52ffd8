//! The registry of runtimes that can be a peer: how to find each toolchain,
//! build the worker (cached, rebuilt when its source changes) and start it.

use crate::transport::Transport;
use crate::PeerError;
use std::ffi::OsString;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;

/// A language runtime with a worker.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    /// Built into `toll` itself (`toll worker`).
    Rust,
    /// workers/c, compiled with the machine's C compiler.
    C,
    /// workers/python, run by python3.
    Python,
}

/// How to start a prepared worker.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// (tool, version) for the environment fingerprint.
    pub toolchain: (String, String),
}

const C_SOURCES: [(&str, &str); 5] = [
    ("worker.c", include_str!("../../../workers/c/worker.c")),
    ("wire.c", include_str!("../../../workers/c/wire.c")),
    ("wire.h", include_str!("../../../workers/c/wire.h")),
    ("shm.c", include_str!("../../../workers/c/shm.c")),
    ("shm.h", include_str!("../../../workers/c/shm.h")),
];
const PYTHON_WORKER: &str = include_str!("../../../workers/python/toll_worker.py");

impl Runtime {
    /// Every runtime, in the order toll measures them.
    pub const ALL: [Runtime; 3] = [Runtime::Rust, Runtime::C, Runtime::Python];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Rust => "rust",
            Runtime::C => "c",
            Runtime::Python => "python",
        }
    }

    /// The transports its worker speaks.
    pub fn transports(self) -> &'static [Transport] {
        match self {
            Runtime::Rust | Runtime::C => &Transport::ALL,
            Runtime::Python => &[Transport::Pipe, Transport::Unix, Transport::Tcp],
        }
    }

    /// Find the toolchain and build the worker if needed.
    pub fn prepare(self) -> Result<Launch, PeerError> {
        match self {
            Runtime::Rust => {
                let exe = std::env::current_exe()
                    .map_err(|e| PeerError::io("finding the toll executable", e))?;
                Ok(Launch {
                    program: exe,
                    args: vec!["worker".into()],
                    toolchain: ("toll".into(), env!("CARGO_PKG_VERSION").into()),
                })
            }
            Runtime::C => prepare_c(),
            Runtime::Python => prepare_python(),
        }
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Runtime {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Runtime::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| {
                let valid: Vec<_> = Runtime::ALL.iter().map(|r| r.name()).collect();
                format!("unknown peer `{s}`: valid peers are {}", valid.join(", "))
            })
    }
}

/// Where built workers are cached: `$TOLL_CACHE_DIR`, else `<cache dir>/toll`.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("TOLL_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| dirs::cache_dir().map(|d| d.join("toll")))
        .unwrap_or_else(|| std::env::temp_dir().join("toll-cache"))
}

/// `name` resolved through PATH (or as given, when it holds a slash).
pub fn find_in_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if name.contains('/') {
        let p = PathBuf::from(name);
        return executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| executable(p))
}

/// The first line a tool prints for `--version`.
fn version_of(program: &Path) -> String {
    Command::new(program)
        .arg("--version")
        .output()
        .ok()
        .map(|o| {
            let text = if o.stdout.is_empty() {
                o.stderr
            } else {
                o.stdout
            };
            String::from_utf8_lossy(&text)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_default()
}

/// A cache directory keyed by the sources and the toolchain's version.
fn keyed_dir(kind: &str, parts: &[&str]) -> PathBuf {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    parts.hash(&mut h);
    cache_dir().join(format!("{kind}-{:016x}", h.finish()))
}

fn write_sources(dir: &Path, files: &[(&str, &str)]) -> Result<(), PeerError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| PeerError::io(format!("creating the worker cache {}", dir.display()), e))?;
    for (name, text) in files {
        std::fs::write(dir.join(name), text)
            .map_err(|e| PeerError::io(format!("writing {}", dir.join(name).display()), e))?;
    }
    Ok(())
}

fn prepare_c() -> Result<Launch, PeerError> {
    let cc_name = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let cc = find_in_path(&cc_name).ok_or_else(|| PeerError::MissingToolchain {
        peer: "c",
        tool: format!("a C compiler (`{cc_name}`)"),
        install: "apt-get install gcc",
    })?;
    let version = version_of(&cc);
    let mut parts: Vec<&str> = C_SOURCES.iter().map(|(_, s)| *s).collect();
    parts.push(&version);
    let dir = keyed_dir("c", &parts);
    let exe = dir.join("toll-worker-c");
    if !exe.is_file() {
        let src = dir.join("src");
        write_sources(&src, &C_SOURCES)?;
        // Build beside the target and rename, so concurrent runs never see half a binary.
        let tmp = dir.join(format!("toll-worker-c.{}", std::process::id()));
        let out = Command::new(&cc)
            .current_dir(&src)
            .args(["-O2", "-std=gnu11", "-Wall", "-Wextra", "-o"])
            .arg(&tmp)
            .args(["worker.c", "wire.c", "shm.c"])
            .output()
            .map_err(|e| PeerError::io(format!("running {}", cc.display()), e))?;
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
        toolchain: ("cc".into(), version),
    })
}

fn prepare_python() -> Result<Launch, PeerError> {
    let name = std::env::var("TOLL_PYTHON").unwrap_or_else(|_| "python3".into());
    let python = find_in_path(&name).ok_or_else(|| PeerError::MissingToolchain {
        peer: "python",
        tool: format!("`{name}`"),
        install: "apt-get install python3",
    })?;
    let version = version_of(&python);
    let dir = keyed_dir("python", &[PYTHON_WORKER]);
    let script = dir.join("toll_worker.py");
    if !script.is_file() {
        write_sources(&dir, &[("toll_worker.py", PYTHON_WORKER)])?;
    }
    Ok(Launch {
        program: python,
        args: vec!["-u".into(), script.into()],
        toolchain: ("python3".into(), version),
    })
}
