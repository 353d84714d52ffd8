//! Store errors: each names the problem and the fix.

/// What went wrong with the results database.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
}
