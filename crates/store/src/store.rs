//! The SQLite store.

use crate::{NewRun, Point, PointStatus, Run, RunRow, RunStatus, StoreError};
use std::path::{Path, PathBuf};
use toll_measure::{Sample, SeriesFit, Summary};

/// An open results database.
pub struct Store {
    conn: rusqlite::Connection,
    path: PathBuf,
}

impl Store {
    /// Where results go by default: `$TOLL_DB`, else `<data dir>/toll/toll.db`.
    pub fn default_path() -> PathBuf {
        todo!()
    }

    /// Open (creating and migrating as needed) the database at `path`.
    /// Runs left `running` by a process that no longer exists are marked partial.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        todo!()
    }

    /// Open for reading only (`toll runs`, `show`, `export` on a read-only file).
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        todo!()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Record a new run in status `running`; returns its id.
    pub fn begin_run(&self, run: &NewRun) -> Result<i64, StoreError> {
        todo!()
    }

    /// Add a series to a run; returns its id.
    pub fn add_series(&self, run_id: i64, label: &str, attrs: &serde_json::Value) -> Result<i64, StoreError> {
        todo!()
    }

    /// Add one point with all its samples, in one transaction.
    pub fn add_point(&self, series_id: i64, point: &Point) -> Result<(), StoreError> {
        todo!()
    }

    /// Store the fit of a series.
    pub fn set_fit(&self, series_id: i64, fit: &SeriesFit) -> Result<(), StoreError> {
        todo!()
    }

    /// Mark a run finished with its status, one-line summary and error.
    pub fn finish_run(&self, run_id: i64, status: RunStatus, summary: &str, error: Option<&str>) -> Result<(), StoreError> {
        todo!()
    }

    /// All runs, newest first.
    pub fn list_runs(&self) -> Result<Vec<RunRow>, StoreError> {
        todo!()
    }

    /// One whole run. `id` may be negative-free "last" handling is the CLI's job.
    pub fn load_run(&self, id: i64) -> Result<Run, StoreError> {
        todo!()
    }

    /// The newest run's id, if any.
    pub fn latest_run_id(&self) -> Result<Option<i64>, StoreError> {
        todo!()
    }

    /// Delete a run and everything under it.
    pub fn remove_run(&self, id: i64) -> Result<(), StoreError> {
        todo!()
    }
}

#[allow(dead_code)]
fn _types(_: Sample, _: Summary, _: PointStatus) {}
