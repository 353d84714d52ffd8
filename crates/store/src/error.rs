//! Store errors: each one line that names the problem and the fix.

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
    #[error("database {} is a directory: name a file in it (--db {}/toll.db) or another file with --db PATH or TOLL_DB", .path.display(), .path.display())]
    IsDirectory { path: PathBuf },
    #[error("database {} was written by a newer toll (schema {found}, this toll knows {known}): upgrade toll, or use --db PATH", .path.display())]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("cannot create {}: {cause}; pick another place with --db PATH or TOLL_DB", .path.display())]
    CreateDir {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("no run {0}: see `toll runs`")]
    NoSuchRun(i64),
    /// SQLite's text is in the message, not also a `source` that `{:#}`
    /// would print again.
    #[error("database {}: {cause}", .path.display())]
    Sqlite {
        path: PathBuf,
        cause: rusqlite::Error,
    },
    #[error("database {}: a stored record does not parse ({detail}): the file may be damaged", .path.display())]
    Corrupt { path: PathBuf, detail: String },
    #[error("--db {url}: not a PostgreSQL URL toll can use ({detail}): write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")]
    BadUrl { url: String, detail: String },
    #[error("--db {url}: this toll connects to PostgreSQL without TLS, so sslmode={mode} cannot be met: use sslmode=disable or prefer on a trusted network, or reach the server through an ssh tunnel")]
    TlsUnsupported { url: String, mode: String },
    #[error("cannot reach PostgreSQL at {url}: {cause}: start the server, or check the host and port in --db or TOLL_DB")]
    Unreachable { url: String, cause: String },
    #[error("PostgreSQL at {url} refused the connection: {cause}: check the user, password and database in --db or TOLL_DB")]
    Refused { url: String, cause: String },
    #[error("PostgreSQL database {url} is not toll's (it has tables of its own and no toll_schema): give toll an empty database of its own (createdb toll) in --db or TOLL_DB")]
    NotTollDatabase { url: String },
    /// A PostgreSQL database without toll's tables, opened to read: nothing
    /// stored there yet.
    #[error("no runs stored yet in {url} (toll's tables are not there): measure something into it first, e.g. `toll transfer --db {url}`")]
    NoTables { url: String },
    /// The server's text is in the message, not also a `source`.
    #[error("PostgreSQL {url}: {cause}")]
    Postgres { url: String, cause: String },
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
            Some(C::CannotOpen) if path.is_dir() => StoreError::IsDirectory { path },
            Some(C::CannotOpen) => StoreError::CannotOpen { path },
            _ => StoreError::Sqlite { path, cause: e },
        }
    }
}
