//! What a database must do for the store: the same operations on SQLite
//! (sqlite.rs) and PostgreSQL (pg.rs), in rows of text and integers. The
//! JSON inside those rows is written and read by store.rs, once for both,
//! so a run reads back the same from either.

use crate::error::StoreError;
use crate::model::{Point, RunRow};

/// One row of `runs` as stored.
pub(crate) struct RunFields {
    pub family: String,
    pub started_at: String,
    /// While the run is `running`: its last point's time, so that a run
    /// whose process was killed ends when its last point was stored.
    pub finished_at: Option<String>,
    pub status: String,
    pub summary: String,
    pub error: Option<String>,
    pub config_json: String,
    pub env_json: String,
    pub tool_version: String,
}

/// One row of `series` as stored.
pub(crate) struct SeriesFields {
    pub id: i64,
    pub label: String,
    pub attrs_json: String,
    pub fit_json: Option<String>,
}

/// One row of `points` with its samples, as stored.
pub(crate) struct PointFields {
    pub id: i64,
    pub n: i64,
    pub status: String,
    pub error: Option<String>,
    pub summary_json: Option<String>,
    pub extra_json: Option<String>,
    /// (iters, total_ns) in trial order (none in an outline).
    pub samples: Vec<(i64, i64)>,
    /// How many samples the point has stored.
    pub count: i64,
}

/// A whole run as stored: the run's row, then each series with its points.
pub(crate) struct RunRows {
    pub run: RunFields,
    pub series: Vec<(SeriesFields, Vec<PointFields>)>,
}

/// A run to insert: what `begin_run` knows, or a whole imported run.
pub(crate) struct RunInsert<'a> {
    pub fields: RunFields,
    pub pid: i64,
    pub host: &'a str,
    pub origin_json: Option<String>,
}

/// A point ready to write: its JSON already made.
pub(crate) struct PointInsert<'a> {
    pub point: &'a Point,
    pub status: &'static str,
    pub summary_json: Option<String>,
    pub extra_json: Option<String>,
}

/// A series of an imported run, ready to write.
pub(crate) struct SeriesInsert<'a> {
    pub label: &'a str,
    pub attrs_json: String,
    pub fit_json: Option<String>,
    pub points: Vec<PointInsert<'a>>,
}

/// The label, the (config, env, attrs, fit) JSON, the tool version and
/// whether the run was imported, of one earlier series.
pub(crate) type EarlierRow = (String, String, String, String, Option<String>, String, bool);

/// The operations behind `Store`. Every write that touches several rows is
/// one transaction.
pub(crate) trait Backend: Send {
    fn begin_run(&self, run: &RunInsert) -> Result<i64, StoreError>;
    fn add_series(&self, run_id: i64, label: &str, attrs_json: &str) -> Result<i64, StoreError>;
    fn set_series_attrs(&self, series_id: i64, attrs_json: &str) -> Result<(), StoreError>;
    /// Add (`None`) or replace (`Some(id)`) points, in one transaction; each
    /// entry ends with its id. A running run's `finished_at` becomes `now`.
    fn save_points(
        &self,
        series_id: i64,
        points: &mut [(Option<i64>, PointInsert)],
        now: &str,
    ) -> Result<(), StoreError>;
    fn set_fit(&self, series_id: i64, fit_json: &str) -> Result<(), StoreError>;
    fn finish_run(
        &self,
        run_id: i64,
        status: &str,
        summary: &str,
        error: Option<&str>,
        now: &str,
    ) -> Result<(), StoreError>;
    /// Runs in status `running` written by `host`: (id, pid).
    fn running_on(&self, host: &str) -> Result<Vec<(i64, i64)>, StoreError>;
    /// Mark a run whose process is gone partial, finished when its last
    /// point was stored (when it started, if it has none).
    fn mark_interrupted(&self, run_id: i64) -> Result<(), StoreError>;
    fn list_runs(&self) -> Result<Vec<RunRow>, StoreError>;
    /// Complete earlier runs' fitted series of `family` on `host` (only
    /// those labelled `label` when given), newest first, at most `max_rows`.
    fn earlier_rows(
        &self,
        family: &str,
        label: Option<&str>,
        host: &str,
        before_run: i64,
        max_rows: usize,
    ) -> Result<Vec<EarlierRow>, StoreError>;
    fn latest_run_id(&self) -> Result<Option<i64>, StoreError>;
    /// A run's tool version and fingerprint JSON (None: no such run).
    fn run_identity(&self, id: i64) -> Result<Option<(String, String)>, StoreError>;
    /// A whole run; with `samples` false, its outline: every point's
    /// samples counted, not read.
    fn load_run(&self, id: i64, samples: bool) -> Result<Option<RunRows>, StoreError>;
    /// Up to `limit` samples of a point, from trial `from` on, in trial
    /// order: (trial, iters, total_ns).
    fn samples(
        &self,
        point_id: i64,
        from: i64,
        limit: i64,
    ) -> Result<Vec<(i64, i64, i64)>, StoreError>;
    /// Delete a run; whether it was there.
    fn remove_run(&self, id: i64) -> Result<bool, StoreError>;
    /// Insert a whole run, every series, point and sample, in one
    /// transaction; returns its new id.
    fn insert_run(&self, run: &RunInsert, series: &[SeriesInsert]) -> Result<i64, StoreError>;
    /// The origin recorded for an imported run (None: measured here, or no
    /// such run).
    fn origin(&self, id: i64) -> Result<Option<String>, StoreError>;
    /// Add a board token (its SHA-256, hex); false when the name is taken.
    fn add_token(&self, name: &str, sha256: &str, now: &str) -> Result<bool, StoreError>;
    /// Remove a board token; whether it was there.
    fn remove_token(&self, name: &str) -> Result<bool, StoreError>;
    /// The name of the token with this SHA-256, if any.
    fn token_name(&self, sha256: &str) -> Result<Option<String>, StoreError>;
    /// Every token's name and when it was made.
    fn tokens(&self) -> Result<Vec<(String, String)>, StoreError>;
}
