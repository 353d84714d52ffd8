//! The store: the same records on either backend, chosen by the name given
//! to `Store::open` — a file path for SQLite, a `postgres://` URL for a
//! team's shared PostgreSQL. Callers never see which.

use crate::backend::{Backend, PointInsert, RunFields, RunInsert, SeriesInsert};
use crate::error::StoreError;
use crate::model::{NewRun, Outline, Point, PointRef, PointStatus, Run, RunRow, RunStatus};
use crate::pg::Postgres;
use crate::sqlite::Sqlite;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use toll_measure::{Sample, SeriesFit};

/// An open results database.
pub struct Store {
    pub(crate) db: Box<dyn Backend>,
    /// The file, or the URL with its password hidden.
    pub(crate) path: PathBuf,
    /// Keys merged into the config of every run begun from now on (`toll
    /// replicate` tags each family's runs with its experiment).
    tags: Mutex<serde_json::Map<String, serde_json::Value>>,
}

fn point_status(p: &Point) -> &'static str {
    match p.status {
        PointStatus::Ok => "ok",
        PointStatus::Failed => "failed",
    }
}

fn point_insert(point: &Point) -> PointInsert<'_> {
    PointInsert {
        point,
        status: point_status(point),
        summary_json: point
            .summary
            .as_ref()
            .map(|s| serde_json::to_string(s).expect("summary serialises")),
        extra_json: point.extra.as_ref().map(|e| e.to_string()),
    }
}

pub(crate) fn hostname() -> String {
    nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Whether a process of this host still runs (EPERM: it does, as another user).
fn pid_alive(pid: i64) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    pid > 0
        && !matches!(
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
            Err(nix::errno::Errno::ESRCH)
        )
}

/// Whether `name` is a PostgreSQL URL (`postgres://…` or `postgresql://…`)
/// rather than a file path.
pub fn is_postgres_url(name: &Path) -> bool {
    let lower = name.to_string_lossy().to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// How to name the store at `name` in a message: the path, or the URL with
/// its password hidden.
pub fn display_name(name: &Path) -> String {
    if is_postgres_url(name) {
        crate::pg::redact(&name.to_string_lossy())
    } else {
        name.display().to_string()
    }
}

impl Store {
    /// Where results go by default: `$TOLL_DB`, else `<data dir>/toll/toll.db`.
    /// `$TOLL_DB` may be a `postgres://` URL.
    pub fn default_path() -> PathBuf {
        std::env::var_os("TOLL_DB")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs::data_dir().map(|d| d.join("toll").join("toll.db")))
            .unwrap_or_else(|| PathBuf::from("toll.db"))
    }

    /// Open (creating and migrating as needed) the database at `path`: a
    /// SQLite file, or a PostgreSQL database when `path` is a `postgres://`
    /// URL. Runs left `running` by a process of this host that no longer
    /// exists are marked partial.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let store = if is_postgres_url(path) {
            let pg = Postgres::open(&path.to_string_lossy(), true)?;
            Store {
                path: PathBuf::from(pg.display_url()),
                db: Box::new(pg),
                tags: Mutex::default(),
            }
        } else {
            Store {
                db: Box::new(Sqlite::open(path)?),
                path: path.to_path_buf(),
                tags: Mutex::default(),
            }
        };
        store.mark_stale_runs()?;
        Ok(store)
    }

    /// Open for reading only (`toll runs`, `show`, `export` on a read-only
    /// file). A PostgreSQL store is opened as by [`Store::open`], without
    /// creating its tables.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        if is_postgres_url(path) {
            let pg = Postgres::open(&path.to_string_lossy(), false)?;
            return Ok(Store {
                path: PathBuf::from(pg.display_url()),
                db: Box::new(pg),
                tags: Mutex::default(),
            });
        }
        Ok(Store {
            db: Box::new(Sqlite::open_read_only(path)?),
            path: path.to_path_buf(),
            tags: Mutex::default(),
        })
    }

    /// Open a store that already holds toll's tables, for a command that
    /// reads (and may remove) runs: `None` when there is none yet (no file;
    /// a PostgreSQL database without toll's tables), so that reading never
    /// creates anything. A read-only file is opened read-only.
    pub fn open_if_present(path: &Path) -> Result<Option<Store>, StoreError> {
        if is_postgres_url(path) {
            return match Postgres::open(&path.to_string_lossy(), false) {
                Ok(pg) => {
                    let store = Store {
                        path: PathBuf::from(pg.display_url()),
                        db: Box::new(pg),
                        tags: Mutex::default(),
                    };
                    store.mark_stale_runs()?;
                    Ok(Some(store))
                }
                Err(StoreError::NoTables { .. }) => Ok(None),
                Err(e) => Err(e),
            };
        }
        if !path.exists() {
            return Ok(None);
        }
        match Store::open(path) {
            Err(StoreError::ReadOnly { .. }) => Store::open_read_only(path).map(Some),
            other => other.map(Some),
        }
    }

    /// A run whose process stopped (SIGKILL, a crash) is marked partial
    /// by the next toll that opens the store on its host, with a summary
    /// of what it holds.
    fn mark_stale_runs(&self) -> Result<(), StoreError> {
        let me = i64::from(std::process::id());
        for (id, pid) in self.db.running_on(&hostname())? {
            if pid != me && !pid_alive(pid) {
                self.db.mark_interrupted(id)?;
                // Its summary, from what it holds (its process never wrote one).
                if let Ok(run) = self.load_run(id) {
                    self.db.finish_run(
                        id,
                        RunStatus::Partial.as_str(),
                        &held(&run),
                        run.error.as_deref(),
                        run.finished_at.as_deref().unwrap_or(&run.started_at),
                    )?;
                }
            }
        }
        Ok(())
    }

    /// The database file, or the PostgreSQL URL without its password.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Record a new run in status `running`; returns its id.
    pub fn begin_run(&self, run: &NewRun) -> Result<i64, StoreError> {
        let host = hostname();
        let mut config = run.config.clone();
        let tags = self.tags.lock().unwrap_or_else(|e| e.into_inner());
        if let (Some(obj), false) = (config.as_object_mut(), tags.is_empty()) {
            obj.extend(tags.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        drop(tags);
        self.db.begin_run(&RunInsert {
            fields: RunFields {
                family: run.family.clone(),
                started_at: crate::time::now(),
                finished_at: None,
                status: RunStatus::Running.as_str().into(),
                summary: String::new(),
                error: None,
                config_json: config.to_string(),
                env_json: serde_json::to_string(&run.env).expect("fingerprint serialises"),
                tool_version: run.tool_version.clone(),
            },
            pid: i64::from(std::process::id()),
            host: &host,
            origin_json: None,
        })
    }

    /// Merge `key: value` into the config of every run begun from now on;
    /// `None` removes the key.
    pub fn tag_runs(&self, key: &str, value: Option<serde_json::Value>) {
        let mut tags = self.tags.lock().unwrap_or_else(|e| e.into_inner());
        match value {
            Some(v) => tags.insert(key.to_string(), v),
            None => tags.remove(key),
        };
    }

    /// Add a series to a run; returns its id.
    pub fn add_series(
        &self,
        run_id: i64,
        label: &str,
        attrs: &serde_json::Value,
    ) -> Result<i64, StoreError> {
        self.db.add_series(run_id, label, &attrs.to_string())
    }

    /// Replace a series' attributes (e.g. to add what was observed while measuring).
    pub fn set_series_attrs(
        &self,
        series_id: i64,
        attrs: &serde_json::Value,
    ) -> Result<(), StoreError> {
        self.db.set_series_attrs(series_id, &attrs.to_string())
    }

    /// Add one point with all its samples, in one transaction.
    pub fn add_point(&self, series_id: i64, point: &Point) -> Result<(), StoreError> {
        self.save_points(series_id, &mut [(None, point)])
            .map(|_| ())
    }

    /// Add or replace several points of a series, with all their samples, in
    /// one transaction: a sweep measured in rounds saves every point after
    /// each round, so a crash loses at most the round under way. An entry
    /// with `Some(id)` replaces that stored point; `None` adds one and the
    /// entry gets its new id.
    pub fn save_points(
        &self,
        series_id: i64,
        points: &mut [(Option<i64>, &Point)],
    ) -> Result<(), StoreError> {
        let mut rows: Vec<(Option<i64>, PointInsert)> = points
            .iter()
            .map(|(id, p)| (*id, point_insert(p)))
            .collect();
        self.db
            .save_points(series_id, &mut rows, &crate::time::now())?;
        for ((id, _), (new, _)) in points.iter_mut().zip(rows) {
            *id = new;
        }
        Ok(())
    }

    /// Store the fit of a series.
    pub fn set_fit(&self, series_id: i64, fit: &SeriesFit) -> Result<(), StoreError> {
        let json = serde_json::to_string(fit).expect("fit serialises");
        self.db.set_fit(series_id, &json)
    }

    /// Mark a run finished with its status, one-line summary and error.
    pub fn finish_run(
        &self,
        run_id: i64,
        status: RunStatus,
        summary: &str,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        self.db
            .finish_run(run_id, status.as_str(), summary, error, &crate::time::now())?;
        // The machine's record of runs (`crate::record`), read by runs into
        // other stores.
        let imported = !matches!(self.run_origin(run_id), Ok(None));
        if crate::record::admits(status, imported) {
            if let Ok(o) = self.load_outline(run_id) {
                crate::record::remember(&o.run, &hostname(), &self.path);
            }
        }
        Ok(())
    }

    /// All runs, newest first.
    pub fn list_runs(&self) -> Result<Vec<RunRow>, StoreError> {
        self.db.list_runs()
    }

    /// The newest run's id, if any.
    pub fn latest_run_id(&self) -> Result<Option<i64>, StoreError> {
        self.db.latest_run_id()
    }

    fn parse<T: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        text: &str,
    ) -> Result<T, StoreError> {
        crate::rows::parse(&self.path, what, text)
    }

    /// One whole run: its series, points and every sample.
    pub fn load_run(&self, id: i64) -> Result<Run, StoreError> {
        let rows = self
            .db
            .load_run(id, true)?
            .ok_or(StoreError::NoSuchRun(id))?;
        crate::rows::run(&self.path, id, rows).map(|(run, _)| run)
    }

    /// A run without its samples — every point's `samples` empty, the rest
    /// as [`Store::load_run`] reads it — and where each point's samples
    /// are, to be read a chunk at a time with [`Store::samples`]: what a
    /// view that must not hold a large run's samples at once starts from.
    pub fn load_outline(&self, id: i64) -> Result<Outline, StoreError> {
        let rows = self
            .db
            .load_run(id, false)?
            .ok_or(StoreError::NoSuchRun(id))?;
        let (run, points) = crate::rows::run(&self.path, id, rows)?;
        Ok(Outline { run, points })
    }

    /// Up to `limit` of a point's samples in trial order, from the
    /// `from`-th (counted from 0) on: fewer at its end, none past it or
    /// once its run is removed.
    pub fn samples(
        &self,
        point: PointRef,
        from: u64,
        limit: usize,
    ) -> Result<Vec<Sample>, StoreError> {
        let rows = self.db.samples(
            point.id,
            i64::try_from(from).unwrap_or(i64::MAX),
            i64::try_from(limit).unwrap_or(i64::MAX),
        )?;
        Ok(rows
            .into_iter()
            .map(|(_, iters, total_ns)| Sample {
                iters: iters as u64,
                total_ns: total_ns as u64,
            })
            .collect())
    }

    /// Delete a run and everything under it.
    pub fn remove_run(&self, id: i64) -> Result<(), StoreError> {
        if self.db.remove_run(id)? {
            Ok(())
        } else {
            Err(StoreError::NoSuchRun(id))
        }
    }

    /// Store a whole run measured elsewhere (`toll import`), in one
    /// transaction: it keeps its machine's fingerprint and host, times,
    /// status, every series, fit, point and sample, gets a new id, and
    /// records `origin` (where it came from; an object gets `imported_at`
    /// added). A run that was still
    /// `running` when it was exported is stored partial: nothing here will
    /// finish it.
    pub fn import_run(&self, run: &Run, origin: &serde_json::Value) -> Result<i64, StoreError> {
        // Decided once, here, where the export carried no decision (the
        // fits alone copied: the run may hold millions of samples).
        let fits = crate::upgrade::decided_fits(run);
        let (status, error) = match run.status {
            RunStatus::Running => (
                RunStatus::Partial,
                Some(
                    run.error
                        .clone()
                        .unwrap_or_else(|| "exported while still running".into()),
                ),
            ),
            s => (s, run.error.clone()),
        };
        let series: Vec<SeriesInsert> = run
            .series
            .iter()
            .zip(&fits)
            .map(|(s, fit)| SeriesInsert {
                label: &s.label,
                attrs_json: s.attrs.to_string(),
                fit_json: fit
                    .as_ref()
                    .map(|f| serde_json::to_string(f).expect("fit serialises")),
                points: s.points.iter().map(point_insert).collect(),
            })
            .collect();
        let mut origin = origin.clone();
        if let Some(o) = origin.as_object_mut() {
            o.insert("imported_at".into(), crate::time::now().into());
        }
        self.db.insert_run(
            &RunInsert {
                fields: RunFields {
                    family: run.family.clone(),
                    started_at: run.started_at.clone(),
                    finished_at: run.finished_at.clone(),
                    status: status.as_str().into(),
                    summary: run.summary.clone(),
                    error,
                    config_json: run.config.to_string(),
                    env_json: serde_json::to_string(&run.env).expect("fingerprint serialises"),
                    tool_version: run.tool_version.clone(),
                },
                // No process of this host measures it: never marked stale.
                pid: 0,
                host: &run.env.hostname,
                origin_json: Some(origin.to_string()),
            },
            &series,
        )
    }

    /// Where an imported run came from, as recorded by [`Store::import_run`];
    /// `None` for a run measured into this store.
    pub fn run_origin(&self, id: i64) -> Result<Option<serde_json::Value>, StoreError> {
        self.db
            .origin(id)?
            .map(|o| self.parse("run origin", &o))
            .transpose()
    }

    /// Record a `toll board` write token by its SHA-256 (lowercase hex);
    /// false when a token of that name exists already.
    pub fn add_token(&self, name: &str, sha256: &str) -> Result<bool, StoreError> {
        self.db.add_token(name, sha256, &crate::time::now())
    }

    /// Forget a board token; whether there was one of that name.
    pub fn remove_token(&self, name: &str) -> Result<bool, StoreError> {
        self.db.remove_token(name)
    }

    /// Which token, by name, has this SHA-256.
    pub fn token_name(&self, sha256: &str) -> Result<Option<String>, StoreError> {
        self.db.token_name(sha256)
    }

    /// Every board token: its name and when it was made.
    pub fn tokens(&self) -> Result<Vec<(String, String)>, StoreError> {
        self.db.tokens()
    }
}

/// The summary of a run closed by another process: what it holds.
fn held(run: &Run) -> String {
    let points = run.series.iter().flat_map(|s| &s.points);
    let measured = points
        .clone()
        .filter(|p| p.status == PointStatus::Ok && !p.samples.is_empty())
        .count();
    let of = points.count();
    match (run.series.len(), measured) {
        (0, _) | (_, 0) => "stopped before any point was measured".into(),
        (k, m) => {
            let labels: Vec<&str> = run.series.iter().map(|s| s.label.as_str()).collect();
            let shown = if k <= 3 {
                labels.join(", ")
            } else {
                format!("{}, …", labels[..3].join(", "))
            };
            format!("{k} series ({shown}), {m} of {of} points measured before its process stopped")
        }
    }
}
