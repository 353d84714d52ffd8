//! Finding a runtime's toolchain on this machine: a tool looked up through
//! PATH (or the environment variable that names another), and what it says
//! of its version. The runtimes' leaves call these before they build.

use crate::error::PeerError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A toolchain found on this machine.
#[derive(Debug, Clone)]
pub struct Toolchain {
    pub program: PathBuf,
    /// What the tool says of its version (first line).
    pub version: String,
}

/// A toolchain looked up by name (an environment variable may name another),
/// or the error that says how to install it.
pub(super) fn find_tool(
    peer: &'static str,
    var: &str,
    default: &str,
    install: &'static str,
) -> Result<Toolchain, PeerError> {
    let name = std::env::var(var).unwrap_or_else(|_| default.into());
    let program = find_in_path(&name).ok_or_else(|| PeerError::MissingToolchain {
        peer,
        tool: format!("`{name}`"),
        install,
    })?;
    let version = version_of(&program);
    Ok(Toolchain { program, version })
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
pub(crate) fn version_of(program: &Path) -> String {
    output_line(program, &["--version"])
}

/// The first line a tool prints (on stdout, else stderr) when run with `args`.
pub(crate) fn output_line(program: &Path, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
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
