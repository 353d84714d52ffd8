//! toll's temporary files, all under one directory per toll process:
//! `$TMPDIR/toll-<uid>/<pid>-<start>/`, where `<start>` is the process's
//! start time (/proc/PID/stat, in clock ticks since boot).
//!
//! A toll that ends normally, or on SIGINT, SIGTERM or SIGHUP, removes its
//! own directory; one killed outright cannot, so every toll sweeps, when it
//! starts, the directories whose owner is gone. The start time in the name
//! keeps a process that got a dead toll's pid from passing for its owner.
//! The parent directory is per user and only its user writes it, so one
//! user's sweep never meets another's files. Both are 0711, not 0700: a
//! server toll starts as root serves its files from its workers running as
//! another user (Apache's www-data), who must be able to pass through.

use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static OWN: OnceLock<PathBuf> = OnceLock::new();

/// Passable by all, listed and written by the owner only.
const MODE: u32 = 0o711;

/// The parent of every toll's directory, for this user.
pub fn root() -> PathBuf {
    std::env::temp_dir().join(format!("toll-{}", uid()))
}

/// This process's temporary directory, made on first use.
pub fn dir() -> io::Result<PathBuf> {
    if let Some(d) = OWN.get() {
        return Ok(d.clone());
    }
    let root = private_root()?;
    let me = std::process::id();
    let start = start_time(me).ok_or_else(|| io::Error::other("cannot read /proc/self/stat"))?;
    let d = root.join(format!("{me}-{start}"));
    make(&d)?;
    Ok(OWN.get_or_init(|| d).clone())
}

/// A fresh path `name` inside this process's directory (whatever was left
/// there under that name is removed).
pub fn path(name: &str) -> io::Result<PathBuf> {
    let p = dir()?.join(name);
    let _ = std::fs::remove_dir_all(&p);
    let _ = std::fs::remove_file(&p);
    Ok(p)
}

/// Remove this process's directory, if it made one (at exit).
pub fn remove() {
    if let Some(d) = OWN.get() {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Remove the directories whose owner has ended; returns how many.
pub fn sweep() -> usize {
    let Ok(entries) = std::fs::read_dir(root()) else {
        return 0;
    };
    let mut swept = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some((pid, start)) = owner(&name.to_string_lossy()) else {
            continue;
        };
        if !owner_alive(pid, start) && std::fs::remove_dir_all(e.path()).is_ok() {
            swept += 1;
        }
    }
    swept
}

/// The owner `(pid, start)` a directory's name gives.
fn owner(name: &str) -> Option<(u32, u64)> {
    let (pid, start) = name.split_once('-')?;
    Some((pid.parse().ok()?, start.parse().ok()?))
}

/// Whether `pid` is still the process that started at `start`.
fn owner_alive(pid: u32, start: u64) -> bool {
    let signalable = match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), None) {
        Ok(()) => true,
        Err(e) => e == nix::errno::Errno::EPERM,
    };
    signalable && start_time(pid) == Some(start)
}

/// A process's start time, in clock ticks since boot (field 22 of
/// /proc/PID/stat, the 20th after the parenthesised name).
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

fn uid() -> u32 {
    // SAFETY: getuid cannot fail and touches no memory of ours.
    unsafe { nix::libc::getuid() }
}

/// The per-user parent; one that is not this user's own directory (a
/// link, another user's, or one others may write) is refused.
fn private_root() -> io::Result<PathBuf> {
    let root = root();
    make(&root)?;
    check_owned(&root)?;
    Ok(root)
}

/// Make `dir` (if need be) with [`MODE`], whatever the umask.
fn make(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::DirBuilder::new().mode(MODE).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let m = std::fs::symlink_metadata(dir)?;
    if m.is_dir() && m.uid() == uid() && m.mode() & 0o777 != MODE {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(MODE))?;
    }
    Ok(())
}

fn check_owned(root: &Path) -> io::Result<()> {
    let m = std::fs::symlink_metadata(root)?;
    if !m.is_dir() || m.uid() != uid() || m.mode() & 0o022 != 0 {
        return Err(io::Error::other(format!(
            "{} is not a directory that only this user writes: remove it, or set TMPDIR to another directory",
            root.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_swept_only_when_its_owner_is_gone() {
        let own = dir().unwrap();
        assert!(own.is_dir());
        // Passable by a server's workers running as another user.
        for d in [&own, &root()] {
            assert_eq!(std::fs::metadata(d).unwrap().mode() & 0o777, MODE);
        }
        let me = std::process::id();
        let start = start_time(me).unwrap();
        assert_eq!(
            own.file_name().unwrap().to_string_lossy(),
            format!("{me}-{start}")
        );
        // A dead process: a child that has been reaped.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let gone = root().join(format!("{dead}-1"));
        // This process under another start time: its pid was reused.
        let reused = root().join(format!("{me}-{}", start + 1));
        for d in [&gone, &reused] {
            std::fs::create_dir_all(d.join("sub")).unwrap();
            std::fs::write(d.join("sub/data.sock"), b"x").unwrap();
        }
        sweep();
        assert!(!gone.exists() && !reused.exists());
        assert!(own.is_dir(), "a living owner's directory is kept");
        let p = path("x").unwrap();
        assert_eq!(p.parent(), Some(own.as_path()));
    }

    #[test]
    fn names_that_are_not_an_owner_are_left_alone() {
        assert_eq!(owner("123-456"), Some((123, 456)));
        assert_eq!(owner("cache"), None);
        assert_eq!(owner("12-x"), None);
        assert!(owner_alive(
            std::process::id(),
            start_time(std::process::id()).unwrap()
        ));
    }
}
