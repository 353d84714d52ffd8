//! Opening the results database named by --db, $TOLL_DB or the default.

use crate::usage::usage;
use std::path::{Path, PathBuf};
use toll_store::{Store, StoreError};

fn path(db: Option<&Path>) -> PathBuf {
    db.map(Path::to_path_buf)
        .unwrap_or_else(Store::default_path)
}

/// Open for writing (a measuring run, `toll rm`).
pub fn open(db: Option<&Path>) -> anyhow::Result<Store> {
    Ok(Store::open(&path(db))?)
}

/// Open for reading; a read-only file is fine here.
pub fn open_for_reading(db: Option<&Path>) -> anyhow::Result<Store> {
    let p = path(db);
    match Store::open(&p) {
        Err(StoreError::ReadOnly { .. }) => Ok(Store::open_read_only(&p)?),
        other => Ok(other?),
    }
}

/// A run named on the command line: a number, or `last`.
pub fn run_id(store: &Store, text: Option<&str>) -> anyhow::Result<i64> {
    match text {
        None | Some("last") => store.latest_run_id()?.ok_or_else(|| {
            usage("no runs stored yet: measure something first, e.g. `toll transfer`")
        }),
        Some(t) => t.parse::<i64>().ok().filter(|id| *id > 0).ok_or_else(|| {
            usage(format!(
                "bad run id `{t}`: give a number from `toll runs`, or `last`"
            ))
        }),
    }
}
