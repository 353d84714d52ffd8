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
mod config;
pub mod data;
pub mod native;
pub mod plan;
pub mod report;
pub mod storage;
mod sweep;
mod trial;

pub use config::*;

use crate::observer::Observer;
use data::Located;
use plan::{Pattern, Reads, SumOf};
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering};
use toll_measure::Fingerprint;
use toll_peers::{Launch, Runtime};
use toll_store::{NewRun, RunStatus, Store};

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
    let scratch = toll_peers::scratch::path(&format!("file-{run_id}"))
        .map_err(config::io_err("making toll's temporary directory"))?;
    let result = sweep::measure(
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
    use super::cache::Cache;
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
