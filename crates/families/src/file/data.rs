//! The file `toll file` reads: E4's file of random bytes, made once in a
//! directory toll owns and reused, or a user's own file, opened read-only
//! and never written.
//!
//! Every check a user can fail is made here, before a run is stored: a
//! missing file, a directory, a file toll may not read, one too short for a
//! single read, and not enough free space to make toll's own.

use super::storage;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The seed of E4's file's bytes: the same file on every machine.
pub const FILE_SEED: u64 = 2010;
/// Free space kept beyond the file when making it.
const SPARE_BYTES: u64 = 64 << 20;

/// Which file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// toll's own file of `size` random bytes in `dir` (made when missing).
    Own { dir: PathBuf, size: u64 },
    /// A user's file, read-only.
    User(PathBuf),
}

/// Why the file cannot be used, each with its fix.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    #[error("--file {0}: no such file: give the path of an existing file (or leave --file out to use toll's own)")]
    Missing(PathBuf),
    #[error("--file {0} is a directory: give a regular file")]
    Directory(PathBuf),
    #[error("--file {0} is not a regular file: give a regular file")]
    NotRegular(PathBuf),
    #[error("--file {path}: cannot open it for reading ({cause}): give a file you may read, or run as a user who may")]
    Unreadable { path: PathBuf, cause: io::Error },
    #[error("{path} holds {size} bytes, fewer than one read of {read} bytes: give a larger file, or read sizes (--sizes) of at most {size}")]
    TooShort { path: PathBuf, size: u64, read: u64 },
    #[error("not enough free space in {dir} for the {size}-byte file ({free} bytes free, {need} needed): free some space, pass --dir on another filesystem, or a smaller --file-size")]
    NoSpace {
        dir: PathBuf,
        size: u64,
        free: u64,
        need: u64,
    },
    #[error(
        "cannot make toll's file in {dir}: {cause}: pass --dir with a directory you may write"
    )]
    Make { dir: PathBuf, cause: io::Error },
}

/// A file ready to measure.
#[derive(Debug, Clone)]
pub struct Located {
    pub path: PathBuf,
    pub size: u64,
    /// toll's own file (as opposed to a user's).
    pub own: bool,
    /// toll's own file, still to be made.
    pub to_make: bool,
}

/// The default directory of toll's own file: `file/` in toll's cache
/// directory (`$TOLL_CACHE_DIR`, else the user's cache directory), beside
/// the built workers.
pub fn default_dir() -> PathBuf {
    toll_peers::runtime::cache_dir().join("file")
}

/// The name of toll's own file of `size` bytes.
pub fn own_name(size: u64) -> String {
    format!("e4-{size}.bin")
}

/// Check the file without writing anything; `longest_read` is the largest
/// read any trial makes.
pub fn locate(source: &Source, longest_read: u64) -> Result<Located, DataError> {
    let located = match source {
        Source::User(path) => {
            let meta = match std::fs::metadata(path) {
                Ok(m) => m,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(DataError::Missing(path.clone()))
                }
                Err(cause) => {
                    return Err(DataError::Unreadable {
                        path: path.clone(),
                        cause,
                    })
                }
            };
            if meta.is_dir() {
                return Err(DataError::Directory(path.clone()));
            }
            if !meta.is_file() {
                return Err(DataError::NotRegular(path.clone()));
            }
            File::open(path).map_err(|cause| DataError::Unreadable {
                path: path.clone(),
                cause,
            })?;
            Located {
                path: path.clone(),
                size: meta.len(),
                own: false,
                to_make: false,
            }
        }
        Source::Own { dir, size } => {
            let path = dir.join(own_name(*size));
            let have = std::fs::metadata(&path)
                .ok()
                .filter(|m| m.is_file() && m.len() == *size)
                .is_some();
            if !have {
                let probe = existing_ancestor(dir);
                let free = storage::free_bytes(&probe).map_err(|cause| DataError::Make {
                    dir: dir.clone(),
                    cause,
                })?;
                let need = size.saturating_add(SPARE_BYTES);
                if free < need {
                    return Err(DataError::NoSpace {
                        dir: dir.clone(),
                        size: *size,
                        free,
                        need,
                    });
                }
            }
            Located {
                path,
                size: *size,
                own: true,
                to_make: !have,
            }
        }
    };
    if located.size < longest_read {
        return Err(DataError::TooShort {
            path: located.path,
            size: located.size,
            read: longest_read,
        });
    }
    Ok(located)
}

/// The nearest directory at or above `dir` that exists (statvfs needs one).
fn existing_ancestor(dir: &Path) -> PathBuf {
    let mut d = dir;
    loop {
        if d.is_dir() {
            return d.to_path_buf();
        }
        match d.parent() {
            Some(p) if !p.as_os_str().is_empty() => d = p,
            _ => return PathBuf::from("."),
        }
    }
}

/// Make toll's own file when it is missing: random bytes from a fixed seed,
/// written beside the target, synced (so its pages are clean and can be
/// evicted) and renamed into place, so a half-written file is never reused.
pub fn make(located: &Located) -> Result<(), DataError> {
    if !located.to_make {
        return Ok(());
    }
    let dir = located.path.parent().unwrap_or(Path::new("."));
    let fail = |cause| DataError::Make {
        dir: dir.to_path_buf(),
        cause,
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let tmp = dir.join(format!(
        ".{}.{}",
        own_name(located.size),
        std::process::id()
    ));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        let mut rng = fastrand::Rng::with_seed(FILE_SEED);
        let mut buf = vec![0u8; 1 << 20];
        let mut left = located.size;
        while left > 0 {
            rng.fill(&mut buf);
            let n = left.min(buf.len() as u64) as usize;
            f.write_all(&buf[..n])?;
            left -= n as u64;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, &located.path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("toll-data-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn toll_makes_its_file_once_and_reuses_it() {
        let dir = scratch("own");
        let src = Source::Own {
            dir: dir.join("sub"),
            size: 3 << 20,
        };
        let l = locate(&src, 450).unwrap();
        assert!(l.own && l.to_make);
        make(&l).unwrap();
        let bytes = std::fs::read(&l.path).unwrap();
        assert_eq!(bytes.len(), 3 << 20);
        assert!(bytes.iter().any(|&b| b != bytes[0]), "random bytes");
        let again = locate(&src, 450).unwrap();
        assert!(!again.to_make, "reused");
        assert_eq!(std::fs::read(&again.path).unwrap(), bytes, "same seed");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_user_file_is_checked_before_anything_is_read() {
        let dir = scratch("user");
        let missing = locate(&Source::User(dir.join("nope")), 1).unwrap_err();
        assert!(matches!(missing, DataError::Missing(_)), "{missing}");
        let d = locate(&Source::User(dir.clone()), 1).unwrap_err();
        assert!(d.to_string().contains("is a directory"), "{d}");
        std::fs::write(dir.join("small"), b"0123456789").unwrap();
        let short = locate(&Source::User(dir.join("small")), 450).unwrap_err();
        assert_eq!(
            short.to_string(),
            format!(
                "{} holds 10 bytes, fewer than one read of 450 bytes: give a larger file, or read sizes (--sizes) of at most 10",
                dir.join("small").display()
            )
        );
        let ok = locate(&Source::User(dir.join("small")), 10).unwrap();
        assert_eq!((ok.size, ok.own, ok.to_make), (10, false, false));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_larger_than_the_free_space_is_refused_before_writing() {
        let dir = scratch("space");
        let e = locate(
            &Source::Own {
                dir: dir.clone(),
                size: 1 << 60,
            },
            450,
        )
        .unwrap_err();
        assert!(matches!(e, DataError::NoSpace { .. }), "{e}");
        assert!(e.to_string().contains("free some space"), "{e}");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "nothing written"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
