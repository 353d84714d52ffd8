//! The PostgreSQL backend's reads and writes: every [`Backend`] call as
//! PostgreSQL's SQL, several rows in one transaction, a point's samples in
//! one statement.
//!
//! Connecting and the schema are the parent module's; this adds only
//! statements over an open connection.

use super::Postgres;
use crate::backend::{
    Backend, EarlierRow, PointFields, PointInsert, RunFields, RunInsert, RunRows, SeriesFields,
    SeriesInsert,
};
use crate::error::StoreError;
use crate::model::{RunRow, RunStatus};
use postgres::GenericClient;
use std::collections::HashMap;

impl Postgres {
    fn insert_run_row(
        &self,
        c: &mut impl GenericClient,
        run: &RunInsert,
    ) -> Result<i64, StoreError> {
        let f = &run.fields;
        c.query_one(
            "INSERT INTO runs (family, started_at, finished_at, status, summary, error, config_json,
                               env_json, tool_version, pid, host, origin_json)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
            &[
                &f.family,
                &f.started_at,
                &f.finished_at,
                &f.status,
                &f.summary,
                &f.error,
                &f.config_json,
                &f.env_json,
                &f.tool_version,
                &run.pid,
                &run.host,
                &run.origin_json,
            ],
        )
        .map(|r| r.get(0))
        .map_err(|e| self.err(e))
    }

    /// Write one point and its samples (one statement for all of them).
    fn write_point(
        &self,
        c: &mut impl GenericClient,
        series_id: i64,
        id: Option<i64>,
        p: &PointInsert,
    ) -> Result<i64, StoreError> {
        let n = p.point.n as i64;
        let point_id: i64 = match id {
            Some(pid) => {
                c.execute(
                    "UPDATE points SET n = $2, status = $3, error = $4, summary_json = $5, extra_json = $6 WHERE id = $1",
                    &[&pid, &n, &p.status, &p.point.error, &p.summary_json, &p.extra_json],
                )
                .map_err(|e| self.err(e))?;
                c.execute("DELETE FROM samples WHERE point_id = $1", &[&pid])
                    .map_err(|e| self.err(e))?;
                pid
            }
            None => c
                .query_one(
                    "INSERT INTO points (series_id, n, status, error, summary_json, extra_json)
                     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                    &[
                        &series_id,
                        &n,
                        &p.status,
                        &p.point.error,
                        &p.summary_json,
                        &p.extra_json,
                    ],
                )
                .map_err(|e| self.err(e))?
                .get(0),
        };
        if !p.point.samples.is_empty() {
            let trials: Vec<i64> = (0..p.point.samples.len() as i64).collect();
            let iters: Vec<i64> = p.point.samples.iter().map(|s| s.iters as i64).collect();
            let total: Vec<i64> = p.point.samples.iter().map(|s| s.total_ns as i64).collect();
            c.execute(
                "INSERT INTO samples (point_id, trial, iters, total_ns)
                 SELECT $1, t, i, ns FROM unnest($2::bigint[], $3::bigint[], $4::bigint[]) AS u(t, i, ns)",
                &[&point_id, &trials, &iters, &total],
            )
            .map_err(|e| self.err(e))?;
        }
        Ok(point_id)
    }

    fn execute(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<u64, StoreError> {
        self.client().execute(sql, params).map_err(|e| self.err(e))
    }
}

impl Backend for Postgres {
    fn begin_run(&self, run: &RunInsert) -> Result<i64, StoreError> {
        self.insert_run_row(&mut *self.client(), run)
    }

    fn add_series(&self, run_id: i64, label: &str, attrs_json: &str) -> Result<i64, StoreError> {
        self.client()
            .query_one(
                "INSERT INTO series (run_id, label, attrs_json) VALUES ($1, $2, $3) RETURNING id",
                &[&run_id, &label, &attrs_json],
            )
            .map(|r| r.get(0))
            .map_err(|e| self.err(e))
    }

    fn set_series_attrs(&self, series_id: i64, attrs_json: &str) -> Result<(), StoreError> {
        self.execute(
            "UPDATE series SET attrs_json = $2 WHERE id = $1",
            &[&series_id, &attrs_json],
        )
        .map(|_| ())
    }

    fn save_points(
        &self,
        series_id: i64,
        points: &mut [(Option<i64>, PointInsert)],
        now: &str,
    ) -> Result<(), StoreError> {
        let mut client = self.client();
        let mut tx = client.transaction().map_err(|e| self.err(e))?;
        for (id, p) in points.iter_mut() {
            *id = Some(self.write_point(&mut tx, series_id, *id, p)?);
        }
        tx.execute(
            "UPDATE runs SET finished_at = $2 WHERE status = 'running'
             AND id = (SELECT run_id FROM series WHERE id = $1)",
            &[&series_id, &now],
        )
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))
    }

    fn set_fit(&self, series_id: i64, fit_json: &str) -> Result<(), StoreError> {
        self.execute(
            "UPDATE series SET fit_json = $2 WHERE id = $1",
            &[&series_id, &fit_json],
        )
        .map(|_| ())
    }

    fn finish_run(
        &self,
        run_id: i64,
        status: &str,
        summary: &str,
        error: Option<&str>,
        now: &str,
    ) -> Result<(), StoreError> {
        self.execute(
            "UPDATE runs SET status = $2, summary = $3, error = $4, finished_at = $5 WHERE id = $1",
            &[&run_id, &status, &summary, &error, &now],
        )
        .map(|_| ())
    }

    fn running_on(&self, host: &str) -> Result<Vec<(i64, i64)>, StoreError> {
        let rows = self
            .client()
            .query(
                "SELECT id, pid FROM runs WHERE status = 'running' AND host = $1",
                &[&host],
            )
            .map_err(|e| self.err(e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn mark_interrupted(&self, run_id: i64) -> Result<(), StoreError> {
        self.execute(
            "UPDATE runs SET status = 'partial', finished_at = COALESCE(finished_at, started_at),
             error = 'interrupted: the process measuring it stopped'
             WHERE id = $1 AND status = 'running'",
            &[&run_id],
        )
        .map(|_| ())
    }

    fn list_runs(&self) -> Result<Vec<RunRow>, StoreError> {
        let rows = self
            .client()
            .query(
                "SELECT id, family, started_at, status, summary, host FROM runs ORDER BY id DESC",
                &[],
            )
            .map_err(|e| self.err(e))?;
        Ok(rows
            .iter()
            .map(|r| RunRow {
                id: r.get(0),
                family: r.get(1),
                started_at: r.get(2),
                status: RunStatus::parse(r.get(3)),
                summary: r.get(4),
                host: r.get(5),
            })
            .collect())
    }

    fn earlier_rows(
        &self,
        family: &str,
        label: Option<&str>,
        host: &str,
        before_run: i64,
        max_rows: usize,
    ) -> Result<Vec<EarlierRow>, StoreError> {
        let rows = self
            .client()
            .query(
                "SELECT s.label, r.config_json, r.env_json, s.attrs_json, s.fit_json,
                        r.tool_version, r.origin_json IS NOT NULL
                 FROM series s JOIN runs r ON s.run_id = r.id
                 WHERE r.family = $1 AND ($2::text IS NULL OR s.label = $2) AND r.host = $3 AND r.id < $4
                   AND r.status = 'complete'
                   AND (s.fit_json IS NOT NULL OR s.attrs_json LIKE '%\"figure\":%')
                 ORDER BY r.id DESC LIMIT $5",
                &[&family, &label, &host, &before_run, &(max_rows as i64)],
            )
            .map_err(|e| self.err(e))?;
        Ok(rows
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    r.get(1),
                    r.get(2),
                    r.get(3),
                    r.get(4),
                    r.get(5),
                    r.get(6),
                )
            })
            .collect())
    }

    fn run_identity(&self, id: i64) -> Result<Option<(String, String)>, StoreError> {
        self.client()
            .query_opt(
                "SELECT tool_version, env_json FROM runs WHERE id = $1",
                &[&id],
            )
            .map(|r| r.map(|r| (r.get(0), r.get(1))))
            .map_err(|e| self.err(e))
    }

    fn latest_run_id(&self) -> Result<Option<i64>, StoreError> {
        self.client()
            .query_one("SELECT max(id) FROM runs", &[])
            .map(|r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Three queries for the whole run (runs, series, points with their
    /// samples gathered into arrays), not one per point: the server may be
    /// across a network.
    fn load_run(&self, id: i64, samples: bool) -> Result<Option<RunRows>, StoreError> {
        let mut client = self.client();
        let mut tx = client
            .build_transaction()
            .read_only(true)
            .isolation_level(postgres::IsolationLevel::RepeatableRead)
            .start()
            .map_err(|e| self.err(e))?;
        let Some(r) = tx
            .query_opt(
                "SELECT family, started_at, finished_at, status, summary, error, config_json, env_json, tool_version
                 FROM runs WHERE id = $1",
                &[&id],
            )
            .map_err(|e| self.err(e))?
        else {
            return Ok(None);
        };
        let run = RunFields {
            family: r.get(0),
            started_at: r.get(1),
            finished_at: r.get(2),
            status: r.get(3),
            summary: r.get(4),
            error: r.get(5),
            config_json: r.get(6),
            env_json: r.get(7),
            tool_version: r.get(8),
        };
        let series = tx
            .query(
                "SELECT id, label, attrs_json, fit_json FROM series WHERE run_id = $1 ORDER BY id",
                &[&id],
            )
            .map_err(|e| self.err(e))?;
        // An outline counts each point's samples instead of gathering them.
        let gathered = if samples {
            "coalesce(array_agg(sa.iters ORDER BY sa.trial) FILTER (WHERE sa.trial IS NOT NULL), '{}'),
             coalesce(array_agg(sa.total_ns ORDER BY sa.trial) FILTER (WHERE sa.trial IS NOT NULL), '{}'),
             count(sa.trial)"
        } else {
            "'{}'::bigint[], '{}'::bigint[], count(sa.trial)"
        };
        let points = tx
            .query(
                &format!(
                    "SELECT p.id, p.series_id, p.n, p.status, p.error, p.summary_json, p.extra_json, {gathered}
                     FROM points p JOIN series s ON p.series_id = s.id
                     LEFT JOIN samples sa ON sa.point_id = p.id
                     WHERE s.run_id = $1
                     GROUP BY p.id ORDER BY p.n, p.id"
                ),
                &[&id],
            )
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        let mut by_series: HashMap<i64, Vec<PointFields>> = HashMap::new();
        for p in &points {
            let iters: Vec<i64> = p.get(7);
            let total: Vec<i64> = p.get(8);
            by_series.entry(p.get(1)).or_default().push(PointFields {
                id: p.get(0),
                n: p.get(2),
                status: p.get(3),
                error: p.get(4),
                summary_json: p.get(5),
                extra_json: p.get(6),
                samples: iters.into_iter().zip(total).collect(),
                count: p.get(9),
            });
        }
        let series = series
            .iter()
            .map(|s| {
                let id: i64 = s.get(0);
                (
                    SeriesFields {
                        id,
                        label: s.get(1),
                        attrs_json: s.get(2),
                        fit_json: s.get(3),
                    },
                    by_series.remove(&id).unwrap_or_default(),
                )
            })
            .collect();
        Ok(Some(RunRows { run, series }))
    }

    fn samples(
        &self,
        point_id: i64,
        from: i64,
        limit: i64,
    ) -> Result<Vec<(i64, i64, i64)>, StoreError> {
        self.client()
            .query(
                "SELECT trial, iters, total_ns FROM samples
                 WHERE point_id = $1 AND trial >= $2 ORDER BY trial LIMIT $3",
                &[&point_id, &from, &limit],
            )
            .map(|rows| {
                rows.iter()
                    .map(|r| (r.get(0), r.get(1), r.get(2)))
                    .collect()
            })
            .map_err(|e| self.err(e))
    }

    fn remove_run(&self, id: i64) -> Result<bool, StoreError> {
        self.execute("DELETE FROM runs WHERE id = $1", &[&id])
            .map(|n| n > 0)
    }

    fn insert_run(&self, run: &RunInsert, series: &[SeriesInsert]) -> Result<i64, StoreError> {
        let mut client = self.client();
        let mut tx = client.transaction().map_err(|e| self.err(e))?;
        let run_id = self.insert_run_row(&mut tx, run)?;
        for s in series {
            let series_id: i64 = tx
                .query_one(
                    "INSERT INTO series (run_id, label, attrs_json, fit_json) VALUES ($1, $2, $3, $4) RETURNING id",
                    &[&run_id, &s.label, &s.attrs_json, &s.fit_json],
                )
                .map_err(|e| self.err(e))?
                .get(0);
            for p in &s.points {
                self.write_point(&mut tx, series_id, None, p)?;
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(run_id)
    }

    fn origin(&self, id: i64) -> Result<Option<String>, StoreError> {
        self.client()
            .query_opt("SELECT origin_json FROM runs WHERE id = $1", &[&id])
            .map(|r| r.and_then(|r| r.get(0)))
            .map_err(|e| self.err(e))
    }

    fn add_token(&self, name: &str, sha256: &str, now: &str) -> Result<bool, StoreError> {
        self.client()
            .execute(
                "INSERT INTO board_tokens (name, token_sha256, created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (name) DO NOTHING",
                &[&name, &sha256, &now],
            )
            .map(|n| n == 1)
            .map_err(|e| self.err(e))
    }

    fn remove_token(&self, name: &str) -> Result<bool, StoreError> {
        self.client()
            .execute("DELETE FROM board_tokens WHERE name = $1", &[&name])
            .map(|n| n == 1)
            .map_err(|e| self.err(e))
    }

    fn token_name(&self, sha256: &str) -> Result<Option<String>, StoreError> {
        self.client()
            .query_opt(
                "SELECT name FROM board_tokens WHERE token_sha256 = $1",
                &[&sha256],
            )
            .map(|r| r.map(|r| r.get(0)))
            .map_err(|e| self.err(e))
    }

    fn tokens(&self) -> Result<Vec<(String, String)>, StoreError> {
        self.client()
            .query(
                "SELECT name, created_at FROM board_tokens ORDER BY name",
                &[],
            )
            .map(|rows| rows.iter().map(|r| (r.get(0), r.get(1))).collect())
            .map_err(|e| self.err(e))
    }
}
