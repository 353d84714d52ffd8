//! Store errors: each one line that names the problem and the fix.
//!
//! An underlying error is written into the message, where the fix can
//! follow it, and is not also given as the error's source: `toll` prints
//! the whole chain (`{:#}`), which would say the OS's text twice.

use std::path::PathBuf;

/// What went wrong with the results database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{} is not a toll database: pick another file with --db PATH or TOLL_DB", .path.display())]
    NotToll { path: PathBuf },
    #[error("database {} is read-only: make it writable, or pick another file with --db PATH or TOLL_DB", .path.display())]
    ReadOnly { path: PathBuf },
    #[error("database {} is locked by another process: wait for it to finish, or use --db PATH", .path.display())]
    Locked { path: PathBuf },
    #[error("cannot open database {}: check the path, or pick another file with --db PATH or TOLL_DB", .path.display())]
    CannotOpen { path: PathBuf },
    #[error("database {} was written by a newer toll (schema {found}, this toll knows {known}): upgrade toll, or use --db PATH", .path.display())]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("cannot create {}: {error}; pick another place with --db PATH or TOLL_DB", .path.display())]
    CreateDir {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("no run {0}: see `toll runs`")]
    NoSuchRun(i64),
    #[error("database {}: {error}", .path.display())]
    Sqlite {
        path: PathBuf,
        error: rusqlite::Error,
    },
    #[error("database {}: a stored record does not parse ({detail}): the file may be damaged", .path.display())]
    Corrupt { path: PathBuf, detail: String },
}

impl StoreError {
    /// Name a SQLite error for what it means to a user of `path`.
    pub(crate) fn from_sqlite(path: &std::path::Path, e: rusqlite::Error) -> StoreError {
        use rusqlite::ErrorCode as C;
        let path = path.to_path_buf();
        match e.sqlite_error_code() {
            Some(C::ReadOnly) => StoreError::ReadOnly { path },
            Some(C::DatabaseBusy | C::DatabaseLocked) => StoreError::Locked { path },
            Some(C::NotADatabase) => StoreError::NotToll { path },
            Some(C::CannotOpen) => StoreError::CannotOpen { path },
            _ => StoreError::Sqlite { path, error: e },
        }
    }
}
