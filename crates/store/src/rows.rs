//! The rows a backend reads, made into the model's records once for both
//! backends: a whole run, or its outline (every point's samples left in
//! the store, each point's place and count kept so they can be read a
//! chunk at a time).

use crate::backend::RunRows;
use crate::error::StoreError;
use crate::model::{Point, PointRef, PointStatus, Run, RunStatus, Series};
use std::path::Path;
use toll_measure::Sample;

/// `text` as the JSON of `what`, or the store is corrupt.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(
    path: &Path,
    what: &str,
    text: &str,
) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
        path: path.to_path_buf(),
        detail: format!("{what}: {e}"),
    })
}

/// Run `id` from its rows, in today's shape (decided where it was stored
/// undecided), and where each point's samples are.
pub(crate) fn run(
    path: &Path,
    id: i64,
    rows: RunRows,
) -> Result<(Run, Vec<Vec<PointRef>>), StoreError> {
    let r = rows.run;
    let mut refs = Vec::with_capacity(rows.series.len());
    let mut series = Vec::with_capacity(rows.series.len());
    for (s, points) in rows.series {
        refs.push(
            points
                .iter()
                .map(|p| PointRef {
                    id: p.id,
                    count: u64::try_from(p.count).unwrap_or(0),
                })
                .collect(),
        );
        series.push(Series {
            id: s.id,
            label: s.label,
            attrs: parse(path, "series attributes", &s.attrs_json)?,
            fit: s.fit_json.map(|f| parse(path, "fit", &f)).transpose()?,
            points: points
                .into_iter()
                .map(|p| {
                    Ok(Point {
                        n: p.n as u64,
                        status: if p.status == "ok" {
                            PointStatus::Ok
                        } else {
                            PointStatus::Failed
                        },
                        error: p.error,
                        summary: p
                            .summary_json
                            .map(|s| parse(path, "point summary", &s))
                            .transpose()?,
                        samples: p
                            .samples
                            .into_iter()
                            .map(|(iters, total_ns)| Sample {
                                iters: iters as u64,
                                total_ns: total_ns as u64,
                            })
                            .collect(),
                        extra: p
                            .extra_json
                            .map(|e| {
                                let mut v = parse(path, "point extra", &e)?;
                                crate::upgrade::point_extra(&mut v);
                                Ok::<_, StoreError>(v)
                            })
                            .transpose()?,
                    })
                })
                .collect::<Result<_, StoreError>>()?,
        });
    }
    let mut run = Run {
        id,
        family: r.family,
        started_at: r.started_at,
        // A running run's is its last point's time, not an end.
        finished_at: r.finished_at.filter(|_| r.status != "running"),
        status: RunStatus::parse(&r.status),
        summary: r.summary,
        error: r.error,
        config: {
            let mut c = parse(path, "run config", &r.config_json)?;
            crate::upgrade::config(&mut c);
            c
        },
        env: parse(path, "environment", &r.env_json)?,
        tool_version: r.tool_version,
        series,
    };
    crate::upgrade::decide(&mut run);
    Ok((run, refs))
}
