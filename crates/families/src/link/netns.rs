//! Network namespaces as toll uses them: made with iproute2's `ip`, named
//! after the pid that made them (`toll-<pid>-<n>-near|far`) so a later run can
//! tell a killed run's leftovers from a live run's, and entered by one thread
//! at a time (`setns` moves only the calling thread, so a socket made there
//! lives in the namespace while the rest of toll stays where it is).

use super::error::LinkError;
use std::fs::File;
use std::io;
use std::process::Command;

/// Where `ip netns add` leaves its handles.
const NETNS_DIR: &str = "/run/netns";
/// Every namespace toll makes starts with this.
const PREFIX: &str = "toll-";

/// Run `program args…`; its stderr's first line becomes the error.
pub(super) fn run(program: &str, args: &[&str]) -> Result<(), LinkError> {
    let out = Command::new(program).args(args).output().map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            LinkError::MissingTool {
                tool: program.into(),
            }
        } else {
            LinkError::Io {
                context: format!("running {program}"),
                cause: e,
            }
        }
    })?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.contains("Operation not permitted") || first.contains("Permission denied") {
        return Err(LinkError::NotPermitted);
    }
    Err(LinkError::Command {
        command: format!("{program} {}", args.join(" ")),
        detail: first.trim().to_string(),
    })
}

/// A name for this process's `n`-th namespace of kind `end`.
pub(super) fn name(n: u32, end: &str) -> String {
    format!("{PREFIX}{}-{n}-{end}", std::process::id())
}

/// The pid a toll namespace's name carries.
fn owner(name: &str) -> Option<u32> {
    name.strip_prefix(PREFIX)?.split('-').next()?.parse().ok()
}

/// Delete the namespaces (and so their veths) of toll runs that are gone:
/// a killed run cannot clean up after itself, so the next one does.
pub(super) fn sweep_stale() {
    let Ok(dir) = std::fs::read_dir(NETNS_DIR) else {
        return;
    };
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(pid) = owner(&name) {
            if !toll_peers::process_alive(pid) {
                let _ = run("ip", &["netns", "del", &name]);
            }
        }
    }
}

/// Run `f` on a thread that has entered namespace `ns`; sockets `f` makes
/// belong to `ns` and keep working from any thread afterwards.
pub(super) fn within<T: Send>(ns: &str, f: impl FnOnce() -> io::Result<T> + Send) -> io::Result<T> {
    let handle = File::open(format!("{NETNS_DIR}/{ns}"))?;
    std::thread::scope(|s| {
        s.spawn(move || {
            nix::sched::setns(&handle, nix::sched::CloneFlags::CLONE_NEWNET)
                .map_err(io::Error::from)?;
            f()
        })
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("a thread inside the namespace panicked")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_pid_that_made_them() {
        let n = name(3, "far");
        assert_eq!(owner(&n), Some(std::process::id()));
        assert!(n.ends_with("-3-far"));
        assert_eq!(owner("toll-x-1-near"), None);
        assert_eq!(owner("other-12-1-near"), None);
    }
}
