//! `toll file` (E4): what it costs to read a file by seek + read, pread,
//! mmap (copying or in place) and io_uring, sequentially or at random, with
//! the page cache cold or warm.
//!
//! One series per (runtime, method, pattern, cache state); one point per
//! read size (E4's own reads are one point: the sequential pass's mean read
//! is 250 bytes, the random reads' 450). A trial is one pass of the reads;
//! before each, toll puts the file in the cache state asked for and counts
//! its resident pages (stored with the trial). Trials go in rounds, every
//! (series, point) once a round, shuffled after the first
//! ([`toll_measure::rounds`]), so drift spreads over every cell. The reader
//! holds the stopwatch: toll itself for the Rust methods, the worker's
//! monotonic clock for Python's and C's. With `--sizes`, each series is
//! fitted as t(n) = α + β·n per read: α the cost of a read, β of a byte.

pub mod cache;
pub mod data;
pub mod native;
pub mod plan;
pub mod storage;
mod trial;

use crate::history::{self, Comparable};
use crate::observer::Observer;
use cache::{Cache, Residency};
use data::Located;
use plan::{Pattern, Reads, SumOf};
use serde::Serialize;
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use storage::Storage;
use toll_measure::fit::fit_series;
use toll_measure::rounds;
use toll_measure::{Fingerprint, Sample, SeriesFit, Summary};
use toll_peers::{Launch, PeerError, Runtime};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store, StoreError};
use trial::{Readers, Trial};

/// The runtimes with file methods, in the order toll measures them.
pub const RUNTIMES: [Runtime; 3] = [Runtime::Rust, Runtime::C, Runtime::Python];

/// The methods of `runtime` (none for runtimes without file methods).
pub fn methods(runtime: Runtime) -> &'static [&'static str] {
    match runtime {
        Runtime::Rust => &native::METHODS,
        // E4's three: file.seek()+read(), mmap.seek()+read(), m[a:b].
        Runtime::Python => &["read", "mmap-read", "mmap-slice"],
        Runtime::C => &["pread", "mmap"],
        _ => &[],
    }
}

/// How `runtime`'s methods prove they read the bytes.
pub fn sum_of(runtime: Runtime) -> SumOf {
    match runtime {
        Runtime::Python => SumOf::LastByte,
        _ => SumOf::Bytes,
    }
}

/// One way to read: a runtime's method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Method {
    pub runtime: Runtime,
    pub name: &'static str,
}

impl Method {
    /// `python/mmap-slice`.
    pub fn label(&self) -> String {
        format!("{}/{}", self.runtime, self.name)
    }
}

/// A validated `toll file` request.
#[derive(Debug, Clone)]
pub struct FileConfig {
    pub file: Located,
    pub methods: Vec<Method>,
    pub patterns: Vec<Pattern>,
    /// Read sizes to sweep; None: E4's reads.
    pub sizes: Option<Vec<u64>>,
    pub caches: Vec<Cache>,
    /// Trials (rounds) per point.
    pub trials: u32,
    /// Random reads per trial, and the most sequential reads of a sweep's size.
    pub reads: u64,
    /// Seeds the random offsets and the rounds' order.
    pub seed: u64,
    /// Cold: also drop the machine's page cache (root).
    pub drop_caches: bool,
}

impl FileConfig {
    /// The points of a pattern: E4's reads, or one per size.
    pub fn points(&self, pattern: Pattern) -> Vec<Reads> {
        let size = self.file.size;
        match &self.sizes {
            None => vec![match pattern {
                Pattern::Seq => Reads::e4_seq(size),
                Pattern::Random => {
                    Reads::sized(Pattern::Random, plan::E4_RANDOM_LEN, self.reads, size)
                }
            }],
            Some(ns) => ns
                .iter()
                .map(|&n| Reads::sized(pattern, n, self.reads, size))
                .collect(),
        }
    }

    /// The longest read any trial makes.
    pub fn longest_read(&self) -> u64 {
        match &self.sizes {
            None => plan::E4_RANDOM_LEN,
            Some(ns) => ns.iter().copied().max().unwrap_or(1),
        }
    }

    /// Every series: method × pattern × cache.
    pub fn series(&self) -> Vec<(Method, Pattern, Cache)> {
        let mut out = vec![];
        for &m in &self.methods {
            for &p in &self.patterns {
                for &c in &self.caches {
                    out.push((m, p, c));
                }
            }
        }
        out
    }
}

/// E4's figure for a cell, when E4 measured it: (the figure, its unit).
/// E4 dropped the cache before every test, so only cold Python cells have
/// one; its sequential totals are for a 100,000,000-byte file.
pub fn e4_figure(
    m: &Method,
    pattern: Pattern,
    cache: Cache,
    reads: &Reads,
    file_size: u64,
) -> Option<(f64, &'static str)> {
    if m.runtime != Runtime::Python || cache != Cache::Cold {
        return None;
    }
    let i = ["read", "mmap-read", "mmap-slice"]
        .iter()
        .position(|n| *n == m.name)?;
    match pattern {
        Pattern::Seq if reads.lens == plan::E4_SEQ_LENS && file_size == plan::E4_FILE_SIZE => {
            Some(([501.0, 492.0, 169.0][i], "ms"))
        }
        Pattern::Random if reads.lens == [plan::E4_RANDOM_LEN] => {
            Some(([18.1, 10.8, 10.3][i], "µs"))
        }
        _ => None,
    }
}

/// Why a run could not start, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error(transparent)]
    Peer(#[from] PeerError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Data(#[from] data::DataError),
    #[error("{context}: {cause}")]
    Io {
        context: String,
        cause: std::io::Error,
    },
}

fn io_err(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> FileError {
    let context = context.into();
    move |cause| FileError::Io { context, cause }
}

/// The figures of one measured point.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    /// ns per read: their summary, and each trial's in the order taken.
    pub per_read: Summary,
    pub per_read_trials: Vec<f64>,
    /// ns of a whole pass, one value per trial.
    pub total: Summary,
    /// Bytes one pass reads.
    pub bytes: u64,
    /// The file's resident share before each trial, 0 to 1.
    pub resident: Vec<f64>,
}

impl Figures {
    /// MB/s (10⁶ bytes) at the median pass.
    pub fn mb_per_s(&self) -> f64 {
        if self.total.median <= 0.0 {
            return 0.0;
        }
        self.bytes as f64 / self.total.median * 1e3
    }
}

/// One point of a series: its reads, and its figures or why it failed.
#[derive(Debug, Clone, Serialize)]
pub struct FilePoint {
    pub reads: Reads,
    pub result: Result<Figures, String>,
}

/// One (method, pattern, cache) series.
#[derive(Debug, Clone, Serialize)]
pub struct FileSeries {
    pub method: Method,
    pub pattern: Pattern,
    pub cache: Cache,
    pub points: Vec<FilePoint>,
    /// t(n) = α + β·n per read, over the sizes (a sweep only).
    pub fit: Option<SeriesFit>,
}

impl FileSeries {
    /// `rust/pread/random/cold`.
    pub fn label(&self) -> String {
        format!("{}/{}/{}", self.method.label(), self.pattern, self.cache)
    }
}

/// What a run produced.
#[derive(Debug)]
pub struct FileOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    pub storage: Storage,
    /// toll made its file in this run.
    pub made_file: bool,
    pub series: Vec<FileSeries>,
    /// Why the run is not complete: the first failed point, or the interruption.
    pub error: Option<String>,
}

/// One cell's trials so far.
#[derive(Default)]
struct Cell {
    samples: Vec<Sample>,
    resident: Vec<Residency>,
    failed: Option<String>,
    point_id: Option<i64>,
}

/// Run a file sweep, storing everything as it goes. A missing toolchain or
/// an unusable file comes back as `Err` before any run is stored.
pub fn run(
    cfg: &FileConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<FileOutcome, FileError> {
    let mut launches: BTreeMap<Runtime, Launch> = BTreeMap::new();
    for m in &cfg.methods {
        if m.runtime != Runtime::Rust && !launches.contains_key(&m.runtime) {
            let l = m.runtime.prepare_noting(&mut |n| observer.note(n))?;
            launches.insert(m.runtime, l);
        }
    }
    if cfg.file.to_make {
        observer.note(&format!(
            "making toll's file: {} random bytes in {} (once; reused after)",
            cfg.file.size,
            cfg.file.path.display()
        ));
    }
    data::make(&cfg.file)?;
    let path = cfg.file.path.clone();
    let file = File::open(&path).map_err(io_err(format!("opening {}", path.display())))?;
    let storage = storage::of(&path);

    // The random offsets, shared by every method and size, and the sums each
    // point's reads must give, computed before any trial (toll's own
    // mapping is gone before the cache is prepared).
    let longest_random = cfg
        .patterns
        .contains(&Pattern::Random)
        .then(|| cfg.longest_read());
    let offsets = longest_random
        .map(|len| plan::random_offsets(cfg.seed, cfg.reads, len, cfg.file.size))
        .unwrap_or_default();
    let expected = expected_sums(cfg, &file, &offsets)?;

    let toolchains = launches.values().map(|l| l.toolchain.clone()).collect();
    let env = Fingerprint::capture(toolchains);
    if let Some(w) = env.busy_warning() {
        observer.warning(&w);
    }
    let run_id = store.begin_run(&NewRun {
        family: "file".into(),
        config: json!({
            "file": path, "file_size": cfg.file.size, "own_file": cfg.file.own,
            "methods": cfg.methods.iter().map(Method::label).collect::<Vec<_>>(),
            "patterns": cfg.patterns, "sizes": cfg.sizes, "caches": cfg.caches,
            "trials": cfg.trials, "reads": cfg.reads, "seed": cfg.seed,
            "drop_caches": cfg.drop_caches, "storage": storage,
            "page_size": cache::page_size(), "io_uring_batch": native::URING_BATCH,
        }),
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let scratch = std::env::temp_dir().join(format!("toll-file-{}-{run_id}", std::process::id()));
    let result = measure(
        cfg, store, observer, stop, run_id, &file, &offsets, &expected, &scratch, launches,
    );
    let _ = std::fs::remove_dir_all(&scratch);
    let series = match result {
        Ok(s) => s,
        Err(e) => {
            store.finish_run(run_id, RunStatus::Failed, "failed", Some(&e.to_string()))?;
            return Err(e);
        }
    };
    let interrupted = stop.load(Ordering::Relaxed);
    let failure = series.iter().find_map(|s| {
        s.points.iter().find_map(|p| {
            p.result
                .as_ref()
                .err()
                .map(|e| format!("{} at {} B: {e}", s.label(), p.reads.mean_len()))
        })
    });
    let measured = series
        .iter()
        .any(|s| s.points.iter().any(|p| p.result.is_ok()));
    let status = match (&failure, interrupted) {
        (Some(_), _) if !measured => RunStatus::Failed,
        (Some(_), _) | (None, true) => RunStatus::Partial,
        (None, false) => RunStatus::Complete,
    };
    let error = failure.or(interrupted.then(|| "interrupted by the user".to_string()));
    store.finish_run(run_id, status, &summary_line(&series), error.as_deref())?;
    Ok(FileOutcome {
        run_id,
        status,
        storage,
        made_file: cfg.file.to_make,
        series,
        error,
    })
}

/// The checksum each (reads, kind) must give, from one mapping of the file.
fn expected_sums(
    cfg: &FileConfig,
    file: &File,
    offsets: &[u64],
) -> Result<HashMap<(Reads, SumOf), u64>, FileError> {
    // SAFETY: a read-only mapping of the file, dropped before any trial.
    let map = unsafe { memmap2::Mmap::map(file) }.map_err(io_err("mapping the file"))?;
    let mut out = HashMap::new();
    for (m, p, _) in cfg.series() {
        for reads in cfg.points(p) {
            let kind = sum_of(m.runtime);
            out.entry((reads.clone(), kind))
                .or_insert_with(|| plan::expected_sum(&map, &reads, offsets, kind));
        }
    }
    Ok(out)
}

impl std::hash::Hash for Reads {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.pattern, &self.lens, self.count).hash(state);
    }
}

/// The rounds: every (series, point) cell once a round, each trial stored.
#[allow(clippy::too_many_arguments)]
fn measure(
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
                history::conclude(store, &which, id, f, &fit_input, None)?;
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

/// The one-line summary `toll runs` shows.
pub fn summary_line(series: &[FileSeries]) -> String {
    let best = series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .filter_map(move |p| Some((s, p.result.as_ref().ok()?.per_read.median)))
        })
        .filter(|(s, _)| s.pattern == Pattern::Random)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        None => format!("{} series", series.len()),
        Some((s, ns)) => format!(
            "{} series; cheapest random read {} {:.2} µs",
            series.len(),
            s.label(),
            ns / 1e3
        ),
    }
}

/// Where toll's own file would go, for `--dry-run` and the heading.
pub fn describe_file(f: &Located) -> String {
    match (f.own, f.to_make) {
        (true, true) => format!(
            "{} (toll's; to be made, {} bytes)",
            f.path.display(),
            f.size
        ),
        (true, false) => format!("{} (toll's, {} bytes)", f.path.display(), f.size),
        (false, _) => format!("{} ({} bytes, read-only)", f.path.display(), f.size),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e4s_figures_go_beside_e4s_cells_only() {
        let py = |name| Method {
            runtime: Runtime::Python,
            name,
        };
        let seq = Reads::e4_seq(plan::E4_FILE_SIZE);
        let random = Reads::sized(Pattern::Random, 450, 200_000, plan::E4_FILE_SIZE);
        let fig = |m, p, c, r: &Reads, size| e4_figure(&m, p, c, r, size);
        let big = plan::E4_FILE_SIZE;
        assert_eq!(
            fig(py("read"), Pattern::Seq, Cache::Cold, &seq, big),
            Some((501.0, "ms"))
        );
        assert_eq!(
            fig(py("mmap-slice"), Pattern::Random, Cache::Cold, &random, big),
            Some((10.3, "µs"))
        );
        // E4 dropped the cache: no figure for warm cells, other runtimes,
        // another file's sequential pass or another read size.
        assert_eq!(fig(py("read"), Pattern::Seq, Cache::Warm, &seq, big), None);
        let c = Method {
            runtime: Runtime::C,
            name: "pread",
        };
        assert_eq!(fig(c, Pattern::Random, Cache::Cold, &random, big), None);
        let small = Reads::e4_seq(1 << 20);
        assert_eq!(
            fig(py("read"), Pattern::Seq, Cache::Cold, &small, 1 << 20),
            None
        );
        let sized = Reads::sized(Pattern::Random, 4096, 1000, big);
        assert_eq!(
            fig(py("read"), Pattern::Random, Cache::Cold, &sized, big),
            None
        );
    }

    #[test]
    fn every_runtime_with_file_methods_names_them() {
        assert_eq!(methods(Runtime::Rust).len(), 5);
        assert_eq!(methods(Runtime::C), &["pread", "mmap"]);
        assert_eq!(
            methods(Runtime::Python),
            &["read", "mmap-read", "mmap-slice"]
        );
        assert!(methods(Runtime::Go).is_empty());
        assert_eq!(sum_of(Runtime::Python), SumOf::LastByte);
    }
}
