//! The cache of built workers: where it lives, one directory per worker keyed
//! by its sources and toolchain version (a change to either rebuilds), and
//! writing the sources into it.

use crate::error::PeerError;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Where built workers are cached: `$TOLL_CACHE_DIR`, else `<cache dir>/toll`.
pub use toll_measure::cache::cache_dir;

/// A cache directory keyed by the sources and the toolchain's version.
pub(super) fn keyed_dir(kind: &str, parts: &[&str]) -> PathBuf {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    parts.hash(&mut h);
    cache_dir().join(format!("{kind}-{:016x}", h.finish()))
}

/// Writes each `(name, text)` into `dir`, creating it first.
pub(super) fn write_sources(dir: &Path, files: &[(&str, &str)]) -> Result<(), PeerError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| PeerError::io(format!("creating the worker cache {}", dir.display()), e))?;
    for (name, text) in files {
        std::fs::write(dir.join(name), text)
            .map_err(|e| PeerError::io(format!("writing {}", dir.join(name).display()), e))?;
    }
    Ok(())
}

/// Held while a worker is built into its cache directory: an exclusive
/// `flock` on `DIR/.lock`, so two builds of one worker — two threads of
/// one process (a test binary's tests in parallel) or two tolls — never
/// write the same sources or output at once; the second waits, then finds
/// the worker built. Released when dropped.
pub(super) struct BuildLock(#[allow(dead_code)] std::fs::File);

/// Take `dir`'s build lock, creating the directory first.
pub(super) fn build_lock(dir: &Path) -> Result<BuildLock, PeerError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| PeerError::io(format!("creating the worker cache {}", dir.display()), e))?;
    let path = dir.join(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| PeerError::io(format!("opening {}", path.display()), e))?;
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: flock on a descriptor this function owns, open until the
        // lock is dropped; it blocks until the other build has finished.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(BuildLock(file));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(PeerError::io(format!("locking {}", path.display()), e));
        }
    }
}
