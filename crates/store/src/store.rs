//! The SQLite store: one transaction per point, so a crash loses at most the
//! point being measured, and the file is always sound.

use crate::migrate;
use crate::{EarlierFit, NewRun, Point, PointStatus, Run, RunRow, RunStatus, Series, StoreError};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};
use std::time::Duration;
use toll_measure::{Sample, SeriesFit};

/// An open results database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

fn parse_status(s: &str) -> RunStatus {
    match s {
        "running" => RunStatus::Running,
        "complete" => RunStatus::Complete,
        "partial" => RunStatus::Partial,
        _ => RunStatus::Failed,
    }
}

fn hostname() -> String {
    nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Whether a process of this host still runs (EPERM: it does, as another user).
fn pid_alive(pid: i64) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    !matches!(
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
        Err(nix::errno::Errno::ESRCH)
    )
}

impl Store {
    /// Where results go by default: `$TOLL_DB`, else `<data dir>/toll/toll.db`.
    pub fn default_path() -> PathBuf {
        std::env::var_os("TOLL_DB")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs::data_dir().map(|d| d.join("toll").join("toll.db")))
            .unwrap_or_else(|| PathBuf::from("toll.db"))
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        StoreError::from_sqlite(&self.path, e)
    }

    /// Open (creating and migrating as needed) the database at `path`.
    /// Runs left `running` by a process of this host that no longer exists
    /// are marked partial.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|cause| StoreError::CreateDir {
                path: dir.to_path_buf(),
                cause,
            })?;
        }
        let conn = Connection::open(path).map_err(|e| StoreError::from_sqlite(path, e))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.check()?;
        migrate::migrate(&mut store.conn).map_err(|e| StoreError::from_sqlite(path, e))?;
        store.mark_stale_runs()?;
        Ok(store)
    }

    /// Open for reading only (`toll runs`, `show`, `export` on a read-only file).
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| StoreError::from_sqlite(path, e))?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        let found = store.check()?;
        if found < migrate::LATEST {
            return Err(StoreError::ReadOnly {
                path: path.to_path_buf(),
            });
        }
        Ok(store)
    }

    /// Refuse a file that is not toll's, or from a newer toll; set the
    /// connection up. Returns the schema version found.
    fn check(&self) -> Result<i64, StoreError> {
        self.conn
            .busy_timeout(Duration::from_secs(5))
            .map_err(|e| self.err(e))?;
        if !migrate::is_toll(&self.conn).map_err(|e| self.err(e))? {
            return Err(StoreError::NotToll {
                path: self.path.clone(),
            });
        }
        self.conn
            .execute_batch("PRAGMA foreign_keys = ON;")
            .map_err(|e| self.err(e))?;
        let found = migrate::version(&self.conn).map_err(|e| self.err(e))?;
        if found > migrate::LATEST {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found,
                known: migrate::LATEST,
            });
        }
        Ok(found)
    }

    fn mark_stale_runs(&self) -> Result<(), StoreError> {
        let host = hostname();
        let mut stmt = self
            .conn
            .prepare("SELECT id, pid FROM runs WHERE status = 'running' AND host = ?1")
            .map_err(|e| self.err(e))?;
        let stale: Vec<i64> = stmt
            .query_map([&host], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
            .map_err(|e| self.err(e))?
            .filter_map(Result::ok)
            .filter(|(_, pid)| *pid != i64::from(std::process::id()) && !pid_alive(*pid))
            .map(|(id, _)| id)
            .collect();
        for id in stale {
            self.conn
                .execute(
                    "UPDATE runs SET status = 'partial', finished_at = ?2,
                     error = 'interrupted: the process measuring it stopped' WHERE id = ?1",
                    params![id, crate::time::now()],
                )
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Record a new run in status `running`; returns its id.
    pub fn begin_run(&self, run: &NewRun) -> Result<i64, StoreError> {
        let env = serde_json::to_string(&run.env).expect("fingerprint serialises");
        self.conn
            .execute(
                "INSERT INTO runs (family, started_at, status, config_json, env_json, tool_version, pid, host)
                 VALUES (?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7)",
                params![
                    run.family,
                    crate::time::now(),
                    run.config.to_string(),
                    env,
                    run.tool_version,
                    std::process::id(),
                    hostname()
                ],
            )
            .map_err(|e| self.err(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Add a series to a run; returns its id.
    pub fn add_series(
        &self,
        run_id: i64,
        label: &str,
        attrs: &serde_json::Value,
    ) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO series (run_id, label, attrs_json) VALUES (?1, ?2, ?3)",
                params![run_id, label, attrs.to_string()],
            )
            .map_err(|e| self.err(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Replace a series' attributes (e.g. to add what was observed while measuring).
    pub fn set_series_attrs(
        &self,
        series_id: i64,
        attrs: &serde_json::Value,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE series SET attrs_json = ?2 WHERE id = ?1",
                params![series_id, attrs.to_string()],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
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
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        for (id, point) in points.iter_mut() {
            let status = match point.status {
                PointStatus::Ok => "ok",
                PointStatus::Failed => "failed",
            };
            let summary = point
                .summary
                .as_ref()
                .map(|s| serde_json::to_string(s).expect("summary serialises"));
            let extra = point.extra.as_ref().map(|e| e.to_string());
            let point_id = match *id {
                Some(pid) => {
                    tx.execute(
                        "UPDATE points SET n = ?2, status = ?3, error = ?4, summary_json = ?5, extra_json = ?6 WHERE id = ?1",
                        params![pid, point.n as i64, status, point.error, summary, extra],
                    )
                    .map_err(|e| self.err(e))?;
                    tx.execute("DELETE FROM samples WHERE point_id = ?1", params![pid])
                        .map_err(|e| self.err(e))?;
                    pid
                }
                None => {
                    tx.execute(
                        "INSERT INTO points (series_id, n, status, error, summary_json, extra_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        params![series_id, point.n as i64, status, point.error, summary, extra],
                    )
                    .map_err(|e| self.err(e))?;
                    tx.last_insert_rowid()
                }
            };
            *id = Some(point_id);
            let mut stmt = tx
                .prepare_cached(
                    "INSERT INTO samples (point_id, trial, iters, total_ns) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(|e| self.err(e))?;
            for (trial, s) in point.samples.iter().enumerate() {
                stmt.execute(params![
                    point_id,
                    trial as i64,
                    s.iters as i64,
                    s.total_ns as i64
                ])
                .map_err(|e| self.err(e))?;
            }
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// Store the fit of a series.
    pub fn set_fit(&self, series_id: i64, fit: &SeriesFit) -> Result<(), StoreError> {
        let json = serde_json::to_string(fit).expect("fit serialises");
        self.conn
            .execute(
                "UPDATE series SET fit_json = ?2 WHERE id = ?1",
                params![series_id, json],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Mark a run finished with its status, one-line summary and error.
    pub fn finish_run(
        &self,
        run_id: i64,
        status: RunStatus,
        summary: &str,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE runs SET status = ?2, summary = ?3, error = ?4, finished_at = ?5 WHERE id = ?1",
                params![run_id, status.as_str(), summary, error, crate::time::now()],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// All runs, newest first.
    pub fn list_runs(&self) -> Result<Vec<RunRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, family, started_at, status, summary FROM runs ORDER BY id DESC")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(RunRow {
                    id: r.get(0)?,
                    family: r.get(1)?,
                    started_at: r.get(2)?,
                    status: parse_status(&r.get::<_, String>(3)?),
                    summary: r.get(4)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The fits of series `label` in earlier complete runs of `family` on
    /// this host whose CPU model is `cpu_model`, newest first (at most
    /// `limit`), each with its run's config and the series' attributes, for
    /// the caller to keep the comparable ones. Fits that do not parse are
    /// skipped: history is advice, never a reason to fail a run.
    pub fn earlier_fits(
        &self,
        family: &str,
        label: &str,
        cpu_model: &str,
        before_run: i64,
        limit: usize,
    ) -> Result<Vec<EarlierFit>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.config_json, r.env_json, s.attrs_json, s.fit_json
                 FROM series s JOIN runs r ON s.run_id = r.id
                 WHERE r.family = ?1 AND s.label = ?2 AND r.host = ?3 AND r.id < ?4
                   AND r.status = 'complete' AND s.fit_json IS NOT NULL
                 ORDER BY r.id DESC",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![family, label, hostname(), before_run], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (config, env, attrs, fit) = row.map_err(|e| self.err(e))?;
            let env: serde_json::Value = serde_json::from_str(&env).unwrap_or_default();
            if env.get("cpu_model").and_then(|v| v.as_str()) != Some(cpu_model) {
                continue;
            }
            let (Ok(mut config), Ok(attrs), Ok(fit)) = (
                serde_json::from_str(&config),
                serde_json::from_str(&attrs),
                serde_json::from_str::<SeriesFit>(&fit),
            ) else {
                continue;
            };
            crate::upgrade::config(&mut config);
            out.push(EarlierFit { config, attrs, fit });
            if out.len() == limit {
                break;
            }
        }
        Ok(out)
    }

    /// The newest run's id, if any.
    pub fn latest_run_id(&self) -> Result<Option<i64>, StoreError> {
        self.conn
            .query_row("SELECT max(id) FROM runs", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    fn parse<T: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        text: &str,
    ) -> Result<T, StoreError> {
        serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
            path: self.path.clone(),
            detail: format!("{what}: {e}"),
        })
    }

    /// One whole run: its series, points and every sample.
    pub fn load_run(&self, id: i64) -> Result<Run, StoreError> {
        type RunFields = (
            String,
            String,
            Option<String>,
            String,
            String,
            Option<String>,
            String,
            String,
            String,
        );
        let row: Option<RunFields> = self
            .conn
            .query_row(
                "SELECT family, started_at, finished_at, status, summary, error, config_json, env_json, tool_version
                 FROM runs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?)),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        let (family, started_at, finished_at, status, summary, error, config, env, tool_version) =
            row.ok_or(StoreError::NoSuchRun(id))?;
        Ok(Run {
            id,
            family,
            started_at,
            finished_at,
            status: parse_status(&status),
            summary,
            error,
            config: {
                let mut c = self.parse("run config", &config)?;
                crate::upgrade::config(&mut c);
                c
            },
            env: self.parse("environment", &env)?,
            tool_version,
            series: self.load_series(id)?,
        })
    }

    fn load_series(&self, run_id: i64) -> Result<Vec<Series>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, label, attrs_json, fit_json FROM series WHERE run_id = ?1 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<(i64, String, String, Option<String>)> = stmt
            .query_map([run_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(id, label, attrs, fit)| {
                Ok(Series {
                    id,
                    label,
                    attrs: self.parse("series attributes", &attrs)?,
                    fit: fit.map(|f| self.parse("fit", &f)).transpose()?,
                    points: self.load_points(id)?,
                })
            })
            .collect()
    }

    fn load_points(&self, series_id: i64) -> Result<Vec<Point>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, n, status, error, summary_json, extra_json FROM points WHERE series_id = ?1 ORDER BY n, id")
            .map_err(|e| self.err(e))?;
        type PointFields = (
            i64,
            i64,
            String,
            Option<String>,
            Option<String>,
            Option<String>,
        );
        let rows: Vec<PointFields> = stmt
            .query_map([series_id], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        let mut samples = self
            .conn
            .prepare("SELECT iters, total_ns FROM samples WHERE point_id = ?1 ORDER BY trial")
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(id, n, status, error, summary, extra)| {
                let samples: Vec<Sample> = samples
                    .query_map([id], |r| {
                        Ok(Sample {
                            iters: r.get::<_, i64>(0)? as u64,
                            total_ns: r.get::<_, i64>(1)? as u64,
                        })
                    })
                    .map_err(|e| self.err(e))?
                    .collect::<Result<_, _>>()
                    .map_err(|e| self.err(e))?;
                Ok(Point {
                    n: n as u64,
                    status: if status == "ok" {
                        PointStatus::Ok
                    } else {
                        PointStatus::Failed
                    },
                    error,
                    summary: summary
                        .map(|s| self.parse("point summary", &s))
                        .transpose()?,
                    samples,
                    extra: extra.map(|e| self.parse("point extra", &e)).transpose()?,
                })
            })
            .collect()
    }

    /// Delete a run and everything under it.
    pub fn remove_run(&self, id: i64) -> Result<(), StoreError> {
        let n = self
            .conn
            .execute("DELETE FROM runs WHERE id = ?1", [id])
            .map_err(|e| self.err(e))?;
        if n == 0 {
            return Err(StoreError::NoSuchRun(id));
        }
        Ok(())
    }
}
