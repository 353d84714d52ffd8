//! The SQLite backend: one file, rollback journal, one transaction per
//! point, so a crash loses at most the point being measured and the file is
//! always sound. The schema version and toll's mark live in the file header.

use crate::backend::{
    Backend, EarlierRow, PointFields, PointInsert, RunFields, RunInsert, RunRows, SeriesFields,
    SeriesInsert,
};
use crate::error::StoreError;
use crate::migrate::{self, Dialect, APPLICATION_ID};
use crate::model::{RunRow, RunStatus};
use rusqlite::{
    params, Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An open SQLite results file.
pub(crate) struct Sqlite {
    conn: Connection,
    path: PathBuf,
}

fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Whether the file is toll's: marked so, or still empty.
///
/// The mark and the tables are read in one read transaction: read apart,
/// another process creating the store could commit between the two reads,
/// and the file would look unmarked yet not empty — not toll's.
fn is_toll(conn: &Connection) -> rusqlite::Result<bool> {
    let tx = conn.unchecked_transaction()?;
    let app: i64 = tx.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let tables: i64 = tx.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
    tx.commit()?;
    Ok(app == APPLICATION_ID || (app == 0 && tables == 0))
}

/// Apply every step past the current version, all in one transaction.
///
/// The transaction is IMMEDIATE and the version is read again inside it:
/// two processes creating one new store at once would otherwise both see
/// version 0, and the second would fail on "table runs already exists".
/// The second now waits for the first (the busy timeout) and finds the
/// schema made.
fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    if version(conn)? >= migrate::LATEST {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let from = version(&tx)?;
    if from >= migrate::LATEST {
        return tx.commit();
    }
    for step in migrate::steps(Dialect::Sqlite, from) {
        tx.execute_batch(&step)?;
    }
    tx.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {};",
        migrate::LATEST
    ))?;
    tx.commit()
}

impl Sqlite {
    fn err(&self, e: rusqlite::Error) -> StoreError {
        StoreError::from_sqlite(&self.path, e)
    }

    /// Open (creating the file and its directory, and migrating, as needed).
    pub fn open(path: &Path) -> Result<Sqlite, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|cause| {
                // A file where a directory must go says only "File exists".
                let cause = match dir.ancestors().find(|a| a.is_file()) {
                    Some(file) => std::io::Error::other(format!(
                        "{} is a file, not a directory",
                        file.display()
                    )),
                    None => cause,
                };
                StoreError::CreateDir {
                    path: dir.to_path_buf(),
                    cause,
                }
            })?;
        }
        let conn = Connection::open(path).map_err(|e| StoreError::from_sqlite(path, e))?;
        let mut db = Sqlite {
            conn,
            path: path.to_path_buf(),
        };
        db.check()?;
        migrate(&mut db.conn).map_err(|e| StoreError::from_sqlite(path, e))?;
        Ok(db)
    }

    /// Open for reading only; a file of an older schema cannot be read so.
    pub fn open_read_only(path: &Path) -> Result<Sqlite, StoreError> {
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| StoreError::from_sqlite(path, e))?;
        let db = Sqlite {
            conn,
            path: path.to_path_buf(),
        };
        if db.check()? < migrate::LATEST {
            return Err(StoreError::ReadOnly {
                path: path.to_path_buf(),
            });
        }
        Ok(db)
    }

    /// Refuse a file that is not toll's, or from a newer toll; set the
    /// connection up. Returns the schema version found.
    fn check(&self) -> Result<i64, StoreError> {
        self.conn
            .busy_timeout(Duration::from_secs(5))
            .map_err(|e| self.err(e))?;
        if !is_toll(&self.conn).map_err(|e| self.err(e))? {
            return Err(StoreError::NotToll {
                path: self.path.clone(),
            });
        }
        self.conn
            .execute_batch("PRAGMA foreign_keys = ON;")
            .map_err(|e| self.err(e))?;
        let found = version(&self.conn).map_err(|e| self.err(e))?;
        if found > migrate::LATEST {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found,
                known: migrate::LATEST,
            });
        }
        Ok(found)
    }

    fn insert_run_row(&self, tx: &Connection, run: &RunInsert) -> Result<i64, StoreError> {
        let f = &run.fields;
        tx.execute(
            "INSERT INTO runs (family, started_at, finished_at, status, summary, error, config_json,
                               env_json, tool_version, pid, host, origin_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                f.family,
                f.started_at,
                f.finished_at,
                f.status,
                f.summary,
                f.error,
                f.config_json,
                f.env_json,
                f.tool_version,
                run.pid,
                run.host,
                run.origin_json
            ],
        )
        .map_err(|e| self.err(e))?;
        Ok(tx.last_insert_rowid())
    }

    /// Write one point and its samples inside `tx`; returns its id.
    fn write_point(
        &self,
        tx: &Transaction,
        series_id: i64,
        id: Option<i64>,
        p: &PointInsert,
    ) -> Result<i64, StoreError> {
        let n = p.point.n as i64;
        let point_id = match id {
            Some(pid) => {
                tx.execute(
                    "UPDATE points SET n = ?2, status = ?3, error = ?4, summary_json = ?5, extra_json = ?6 WHERE id = ?1",
                    params![pid, n, p.status, p.point.error, p.summary_json, p.extra_json],
                )
                .map_err(|e| self.err(e))?;
                tx.execute("DELETE FROM samples WHERE point_id = ?1", params![pid])
                    .map_err(|e| self.err(e))?;
                pid
            }
            None => {
                tx.execute(
                    "INSERT INTO points (series_id, n, status, error, summary_json, extra_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![series_id, n, p.status, p.point.error, p.summary_json, p.extra_json],
                )
                .map_err(|e| self.err(e))?;
                tx.last_insert_rowid()
            }
        };
        let mut stmt = tx
            .prepare_cached(
                "INSERT INTO samples (point_id, trial, iters, total_ns) VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(|e| self.err(e))?;
        for (trial, s) in p.point.samples.iter().enumerate() {
            stmt.execute(params![
                point_id,
                trial as i64,
                s.iters as i64,
                s.total_ns as i64
            ])
            .map_err(|e| self.err(e))?;
        }
        Ok(point_id)
    }

    fn load_points(&self, series_id: i64, samples: bool) -> Result<Vec<PointFields>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, n, status, error, summary_json, extra_json,
                        (SELECT count(*) FROM samples WHERE point_id = points.id)
                 FROM points WHERE series_id = ?1 ORDER BY n, id",
            )
            .map_err(|e| self.err(e))?;
        let rows: Vec<PointFields> = stmt
            .query_map([series_id], |r| {
                Ok(PointFields {
                    id: r.get(0)?,
                    n: r.get(1)?,
                    status: r.get(2)?,
                    error: r.get(3)?,
                    summary_json: r.get(4)?,
                    extra_json: r.get(5)?,
                    samples: Vec::new(),
                    count: r.get(6)?,
                })
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        if !samples {
            return Ok(rows);
        }
        let mut samples = self
            .conn
            .prepare("SELECT iters, total_ns FROM samples WHERE point_id = ?1 ORDER BY trial")
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|mut p| {
                p.samples = samples
                    .query_map([p.id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .map_err(|e| self.err(e))?
                    .collect::<Result<_, _>>()
                    .map_err(|e| self.err(e))?;
                Ok(p)
            })
            .collect()
    }
}

impl Backend for Sqlite {
    fn begin_run(&self, run: &RunInsert) -> Result<i64, StoreError> {
        self.insert_run_row(&self.conn, run)
    }

    fn add_series(&self, run_id: i64, label: &str, attrs_json: &str) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO series (run_id, label, attrs_json) VALUES (?1, ?2, ?3)",
                params![run_id, label, attrs_json],
            )
            .map_err(|e| self.err(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    fn set_series_attrs(&self, series_id: i64, attrs_json: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE series SET attrs_json = ?2 WHERE id = ?1",
                params![series_id, attrs_json],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    fn save_points(
        &self,
        series_id: i64,
        points: &mut [(Option<i64>, PointInsert)],
        now: &str,
    ) -> Result<(), StoreError> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        for (id, p) in points.iter_mut() {
            *id = Some(self.write_point(&tx, series_id, *id, p)?);
        }
        tx.execute(
            "UPDATE runs SET finished_at = ?2 WHERE status = 'running'
             AND id = (SELECT run_id FROM series WHERE id = ?1)",
            params![series_id, now],
        )
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))
    }

    fn set_fit(&self, series_id: i64, fit_json: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE series SET fit_json = ?2 WHERE id = ?1",
                params![series_id, fit_json],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    fn finish_run(
        &self,
        run_id: i64,
        status: &str,
        summary: &str,
        error: Option<&str>,
        now: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE runs SET status = ?2, summary = ?3, error = ?4, finished_at = ?5 WHERE id = ?1",
                params![run_id, status, summary, error, now],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    fn running_on(&self, host: &str) -> Result<Vec<(i64, i64)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, pid FROM runs WHERE status = 'running' AND host = ?1")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([host], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    fn mark_interrupted(&self, run_id: i64) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE runs SET status = 'partial', finished_at = COALESCE(finished_at, started_at),
                 error = 'interrupted: the process measuring it stopped'
                 WHERE id = ?1 AND status = 'running'",
                params![run_id],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    fn list_runs(&self) -> Result<Vec<RunRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, family, started_at, status, summary, host FROM runs ORDER BY id DESC",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(RunRow {
                    id: r.get(0)?,
                    family: r.get(1)?,
                    started_at: r.get(2)?,
                    status: RunStatus::parse(&r.get::<_, String>(3)?),
                    summary: r.get(4)?,
                    host: r.get(5)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    fn earlier_rows(
        &self,
        family: &str,
        label: Option<&str>,
        host: &str,
        before_run: i64,
        max_rows: usize,
    ) -> Result<Vec<EarlierRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT s.label, r.config_json, r.env_json, s.attrs_json, s.fit_json,
                        r.tool_version, r.origin_json IS NOT NULL
                 FROM series s JOIN runs r ON s.run_id = r.id
                 WHERE r.family = ?1 AND (?2 IS NULL OR s.label = ?2) AND r.host = ?3 AND r.id < ?4
                   AND r.status = 'complete'
                   AND (s.fit_json IS NOT NULL OR s.attrs_json LIKE '%\"figure\":%')
                 ORDER BY r.id DESC LIMIT ?5",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(
                params![family, label, host, before_run, max_rows as i64],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                    ))
                },
            )
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    fn run_identity(&self, id: i64) -> Result<Option<(String, String)>, StoreError> {
        self.conn
            .query_row(
                "SELECT tool_version, env_json FROM runs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    fn latest_run_id(&self) -> Result<Option<i64>, StoreError> {
        self.conn
            .query_row("SELECT max(id) FROM runs", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    fn load_run(&self, id: i64, samples: bool) -> Result<Option<RunRows>, StoreError> {
        let run = self
            .conn
            .query_row(
                "SELECT family, started_at, finished_at, status, summary, error, config_json, env_json, tool_version
                 FROM runs WHERE id = ?1",
                [id],
                |r| {
                    Ok(RunFields {
                        family: r.get(0)?,
                        started_at: r.get(1)?,
                        finished_at: r.get(2)?,
                        status: r.get(3)?,
                        summary: r.get(4)?,
                        error: r.get(5)?,
                        config_json: r.get(6)?,
                        env_json: r.get(7)?,
                        tool_version: r.get(8)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))?;
        let Some(run) = run else {
            return Ok(None);
        };
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, label, attrs_json, fit_json FROM series WHERE run_id = ?1 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let series: Vec<SeriesFields> = stmt
            .query_map([id], |r| {
                Ok(SeriesFields {
                    id: r.get(0)?,
                    label: r.get(1)?,
                    attrs_json: r.get(2)?,
                    fit_json: r.get(3)?,
                })
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))?;
        let series = series
            .into_iter()
            .map(|s| {
                let points = self.load_points(s.id, samples)?;
                Ok((s, points))
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(Some(RunRows { run, series }))
    }

    fn samples(
        &self,
        point_id: i64,
        from: i64,
        limit: i64,
    ) -> Result<Vec<(i64, i64, i64)>, StoreError> {
        self.conn
            .prepare_cached(
                "SELECT trial, iters, total_ns FROM samples
                 WHERE point_id = ?1 AND trial >= ?2 ORDER BY trial LIMIT ?3",
            )
            .map_err(|e| self.err(e))?
            .query_map(params![point_id, from, limit], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.err(e))
    }

    fn remove_run(&self, id: i64) -> Result<bool, StoreError> {
        self.conn
            .execute("DELETE FROM runs WHERE id = ?1", [id])
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }

    fn insert_run(&self, run: &RunInsert, series: &[SeriesInsert]) -> Result<i64, StoreError> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let run_id = self.insert_run_row(&tx, run)?;
        for s in series {
            tx.execute(
                "INSERT INTO series (run_id, label, attrs_json, fit_json) VALUES (?1, ?2, ?3, ?4)",
                params![run_id, s.label, s.attrs_json, s.fit_json],
            )
            .map_err(|e| self.err(e))?;
            let series_id = tx.last_insert_rowid();
            for p in &s.points {
                self.write_point(&tx, series_id, None, p)?;
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(run_id)
    }

    fn origin(&self, id: i64) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT origin_json FROM runs WHERE id = ?1", [id], |r| {
                r.get::<_, Option<String>>(0)
            })
            .optional()
            .map(Option::flatten)
            .map_err(|e| self.err(e))
    }

    fn add_token(&self, name: &str, sha256: &str, now: &str) -> Result<bool, StoreError> {
        self.conn
            .execute(
                "INSERT INTO board_tokens (name, token_sha256, created_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (name) DO NOTHING",
                params![name, sha256, now],
            )
            .map(|n| n == 1)
            .map_err(|e| self.err(e))
    }

    fn remove_token(&self, name: &str) -> Result<bool, StoreError> {
        self.conn
            .execute("DELETE FROM board_tokens WHERE name = ?1", [name])
            .map(|n| n == 1)
            .map_err(|e| self.err(e))
    }

    fn token_name(&self, sha256: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT name FROM board_tokens WHERE token_sha256 = ?1",
                [sha256],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    fn tokens(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT name, created_at FROM board_tokens ORDER BY name")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }
}
