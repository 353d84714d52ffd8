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
