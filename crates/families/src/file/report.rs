//! What `toll file`'s report shows, taken from a run's config and outcome:
//! the report crate renders it (`toll_report::file`), and cannot name this
//! family's types, so the view carries plain values. The words for the
//! reads and the cache states are here too: `--dry-run` says them as well.

use super::cache::Cache;
use super::config::{e4_figure, FileConfig, FileOutcome, FilePoint, FileSeries};
use super::describe_file;
use super::plan::Pattern;
use toll_report::file::{self as view_of, FileFigures, FileView};

/// The report's view of a finished run.
pub fn view(cfg: &FileConfig, outcome: &FileOutcome) -> FileView {
    let mut file = cfg.file.clone();
    file.to_make = false;
    FileView {
        file: describe_file(&file),
        made_file: outcome.made_file,
        storage: outcome.storage.describe(),
        reads: describe_reads(cfg),
        cache: describe_cache(cfg),
        trials: cfg.trials,
        sweep: cfg.sizes.is_some(),
        series: outcome.series.iter().map(|s| series(cfg, s)).collect(),
    }
}

fn series(cfg: &FileConfig, s: &FileSeries) -> view_of::FileSeries {
    view_of::FileSeries {
        label: s.label(),
        runtime: s.method.runtime.to_string(),
        method: s.method.name.to_string(),
        pattern: s.pattern.to_string(),
        cache: s.cache.to_string(),
        points: s.points.iter().map(point).collect(),
        fit: s.fit.clone(),
        e4: s
            .points
            .first()
            .and_then(|p| e4_figure(&s.method, s.pattern, s.cache, &p.reads, cfg.file.size)),
    }
}

fn point(p: &FilePoint) -> view_of::FilePoint {
    view_of::FilePoint {
        bytes: p.reads.mean_len(),
        reads: p.reads.count,
        result: p
            .result
            .as_ref()
            .map_err(Clone::clone)
            .map(|f| FileFigures {
                resident: f.resident.clone(),
                per_read: f.per_read.clone(),
                total: f.total.clone(),
                mb_per_s: f.mb_per_s(),
            }),
    }
}

/// What a trial reads, in words.
pub fn describe_reads(cfg: &FileConfig) -> String {
    let mut parts = vec![];
    for &p in &cfg.patterns {
        let points = cfg.points(p);
        let text = match (&cfg.sizes, p) {
            (None, Pattern::Seq) => format!(
                "seq = {} reads of 50 and 450 bytes in turn through the file",
                points[0].count
            ),
            (None, Pattern::Random) => format!(
                "random = {} reads of 450 bytes at random offsets (seed {})",
                points[0].count, cfg.seed
            ),
            (Some(ns), _) => format!(
                "{p} = {}{} reads of each of {} bytes{}",
                if p == Pattern::Seq { "up to " } else { "" },
                cfg.reads,
                ns.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
                if p == Pattern::Random {
                    format!(" (seed {})", cfg.seed)
                } else {
                    String::new()
                }
            ),
        };
        parts.push(text);
    }
    parts.join("; ")
}

/// The cache states asked for, in words.
pub fn describe_cache(cfg: &FileConfig) -> String {
    cfg.caches
        .iter()
        .map(|c| match c {
            Cache::Cold if cfg.drop_caches => "cold = the page cache dropped before each trial",
            Cache::Cold => "cold = the file's pages evicted (posix_fadvise) before each trial",
            Cache::Warm => "warm = the file read once first",
        })
        .collect::<Vec<_>>()
        .join(", ")
}
