//! A `toll file` run's sweep in rounds: every (series, point) cell once a round,
//! each trial checked against the file's known sums and stored, the cells'
//! figures and fits saved as they come.

use super::cache::Residency;
use super::config::*;
use super::plan::{Reads, SumOf};
use super::trial::{Readers, Trial};
use crate::history::{self, Comparable};
use crate::observer::Observer;
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use toll_measure::fit::fit_series;
use toll_measure::rounds;
use toll_measure::{Sample, Summary};
use toll_peers::{Launch, Runtime};
use toll_store::{Point, PointStatus, Store, StoreError};

/// One cell's trials so far.
#[derive(Default)]
struct Cell {
    samples: Vec<Sample>,
    resident: Vec<Residency>,
    failed: Option<String>,
    point_id: Option<i64>,
}

/// The rounds: every (series, point) cell once a round, each trial stored.
#[allow(clippy::too_many_arguments)]
pub(super) fn measure(
    cfg: &FileConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
    run_id: i64,
    file: &File,
    offsets: &[u64],
    expected: &HashMap<(Reads, SumOf), u64>,
    scratch: &Path,
    launches: BTreeMap<Runtime, Launch>,
) -> Result<Vec<FileSeries>, FileError> {
    let offsets_path = if !launches.is_empty() && !offsets.is_empty() {
        std::fs::create_dir_all(scratch).map_err(io_err("making a scratch directory"))?;
        let p = scratch.join("offsets.bin");
        let bytes: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
        std::fs::write(&p, bytes).map_err(io_err("writing the random offsets"))?;
        Some(p)
    } else {
        None
    };
    let mut readers = Readers {
        launches,
        peers: BTreeMap::new(),
        versions: BTreeMap::new(),
    };
    // Other processes' share of the CPUs while the rounds run (the readers
    // are toll's own): a row measured beside them is tagged busy.
    let others = toll_measure::env::OthersBusy::start(&[]);
    let mut series: Vec<FileSeries> = vec![];
    let mut series_ids = vec![];
    let mut cells: Vec<(usize, usize)> = vec![];
    for (m, p, c) in cfg.series() {
        let points: Vec<FilePoint> = cfg
            .points(p)
            .into_iter()
            .map(|reads| FilePoint {
                reads,
                result: Err("not measured".into()),
            })
            .collect();
        let s = FileSeries {
            method: m,
            pattern: p,
            cache: c,
            points,
            fit: None,
        };
        let version = readers.version(m.runtime);
        let attrs = json!({
            "runtime": m.runtime.name(), "method": m.name, "pattern": p, "cache": c,
            "runtime_version": version, "per": "read", "unit": "bytes",
            "sum_of": sum_of(m.runtime).name(),
        });
        series_ids.push(store.add_series(run_id, &s.label(), &attrs)?);
        for j in 0..s.points.len() {
            cells.push((series.len(), j));
        }
        series.push(s);
    }
    let mut state: Vec<Cell> = cells.iter().map(|_| Cell::default()).collect();
    let trial = Trial {
        cfg,
        file,
        offsets,
        offsets_path: offsets_path.as_deref(),
        expected,
    };
    'rounds: for round in 0..cfg.trials as usize {
        for k in rounds::order(cells.len(), round, cfg.seed) {
            if stop.load(Ordering::Relaxed) {
                break 'rounds;
            }
            if state[k].failed.is_some() {
                continue;
            }
            let (si, pi) = cells[k];
            let s = &series[si];
            match trial.one(&mut readers, s.method, s.cache, &s.points[pi].reads) {
                Ok((sample, resident)) => {
                    state[k].samples.push(sample);
                    state[k].resident.push(resident);
                    let per_read = per_read(&state[k].samples);
                    let n = s.points[pi].reads.mean_len();
                    observer.trial_done(&s.label(), n);
                    observer.point_done(&s.label(), n, &Summary::of(&per_read));
                }
                Err(why) => {
                    observer.warning(&format!(
                        "{} at {} B: {why}",
                        s.label(),
                        s.points[pi].reads.mean_len()
                    ));
                    state[k].failed = Some(why);
                }
            }
        }
        save(store, &series, &series_ids, &cells, &mut state)?;
        observer.round_done("file", round + 1);
    }
    save(store, &series, &series_ids, &cells, &mut state)?;
    let ours: Vec<u32> = readers.peers.values().map(|p| p.pid()).collect();
    let (others_busy, _) = others.share(&ours);
    readers.close();
    for (k, &(si, pi)) in cells.iter().enumerate() {
        series[si].points[pi].result = figures(&state[k], &series[si].points[pi].reads);
    }
    for (s, &id) in series.iter_mut().zip(&series_ids) {
        let fit_input: Vec<(f64, Vec<f64>)> = s
            .points
            .iter()
            .filter_map(|p| {
                let f = p.result.as_ref().ok()?;
                Some((p.reads.mean_len() as f64, f.per_read_trials.clone()))
            })
            .collect();
        if cfg.sizes.is_some() && fit_input.len() >= toll_measure::decision::MIN_SIZES {
            s.fit = fit_series(&fit_input);
            let label = s.label();
            if let Some(f) = &mut s.fit {
                let which = Comparable {
                    family: "file",
                    label: &label,
                    run_id,
                    cpu_model: &toll_measure::env::cpu_model(),
                    config: &[
                        ("sizes", json!(cfg.sizes)),
                        ("file_size", json!(cfg.file.size)),
                        ("reads", json!(cfg.reads)),
                    ],
                    attrs: &[],
                };
                history::conclude(store, &which, id, f, &fit_input, Some(others_busy))?;
            }
        }
    }
    Ok(series)
}

fn per_read(samples: &[Sample]) -> Vec<f64> {
    samples.iter().map(Sample::per_op_ns).collect()
}

/// A cell's figures, or why it has none.
fn figures(cell: &Cell, reads: &Reads) -> Result<Figures, String> {
    if let Some(why) = &cell.failed {
        return Err(why.clone());
    }
    if cell.samples.is_empty() {
        return Err("not measured (interrupted)".into());
    }
    let totals: Vec<f64> = cell.samples.iter().map(|s| s.total_ns as f64).collect();
    Ok(Figures {
        per_read: Summary::of(&per_read(&cell.samples)),
        per_read_trials: per_read(&cell.samples),
        total: Summary::of(&totals),
        bytes: reads.bytes(),
        resident: cell.resident.iter().map(Residency::fraction).collect(),
    })
}

/// Store every cell's trials so far (replacing the last save).
fn save(
    store: &Store,
    series: &[FileSeries],
    ids: &[i64],
    cells: &[(usize, usize)],
    state: &mut [Cell],
) -> Result<(), StoreError> {
    for (si, &series_id) in ids.iter().enumerate() {
        let mine: Vec<usize> = (0..cells.len()).filter(|&k| cells[k].0 == si).collect();
        let points: Vec<Point> = mine
            .iter()
            .filter(|&&k| !state[k].samples.is_empty() || state[k].failed.is_some())
            .map(|&k| {
                let c = &state[k];
                let reads = &series[si].points[cells[k].1].reads;
                Point {
                    n: reads.mean_len(),
                    status: if c.failed.is_some() {
                        PointStatus::Failed
                    } else {
                        PointStatus::Ok
                    },
                    error: c.failed.clone(),
                    summary: (c.failed.is_none()).then(|| Summary::of(&per_read(&c.samples))),
                    samples: c.samples.clone(),
                    extra: Some(json!({
                        "reads": reads.count, "lens": reads.lens, "bytes": reads.bytes(),
                        "resident_pages": c.resident.iter().map(|r| r.resident).collect::<Vec<_>>(),
                        "pages": c.resident.first().map(|r| r.pages),
                    })),
                }
            })
            .collect();
        let kept: Vec<usize> = mine
            .iter()
            .copied()
            .filter(|&k| !state[k].samples.is_empty() || state[k].failed.is_some())
            .collect();
        let mut entries: Vec<(Option<i64>, &Point)> = kept
            .iter()
            .zip(&points)
            .map(|(&k, p)| (state[k].point_id, p))
            .collect();
        store.save_points(series_id, &mut entries)?;
        for (&k, (id, _)) in kept.iter().zip(&entries) {
            state[k].point_id = *id;
        }
    }
    Ok(())
}
