//! `toll sys`: which crossings, the sizes each sweeps, and the engine's
//! settings.

use crate::parsers::checked;
use crate::usage::usage;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct SysArgs {
    /// Crossings, comma-separated: syscall, fault, signal, wake, handoff,
    /// memory, copy (default: all).
    #[arg(long, value_name = "LIST")]
    pub only: Option<String>,
    /// Pages per mapping for the fault series (1 to 1048576 each).
    #[arg(long, default_value = toll_families::sys::DEFAULT_PAGES, value_name = "LIST",
          value_parser = checked(pages))]
    pub pages: Vec64,
    /// Bytes per memcpy for the copy series.
    #[arg(long, default_value = toll_families::sys::DEFAULT_COPY, value_name = "LIST",
          value_parser = checked(copy_sizes))]
    pub copy_sizes: Vec64,
    /// The largest working set of the memory chase (default: 4 × the
    /// last-level cache the kernel reports); sizes double from 4 KiB.
    #[arg(long, value_name = "BYTES", value_parser = checked(memory_max))]
    pub memory_max: Option<u64>,
    /// CPUs for the wake and handoff series, comma-separated (default:
    /// every CPU this process may run on).
    #[arg(long, value_name = "LIST")]
    pub cpus: Option<String>,
    /// Rounds, every size timed once a round in shuffled order (1 to 100000).
    #[arg(long, default_value_t = 10, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub trials: u32,
    /// Warm-up per size, in milliseconds (0 to 60000).
    #[arg(long, default_value_t = 100, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub warmup_ms: u64,
    /// Target length of one timed batch, in milliseconds (1 to 10000).
    #[arg(long, default_value_t = 10, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub batch_ms: u64,
    /// Print the stored run as JSON on stdout instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Draw the run to an SVG file: each figure as a dot with its CI, the
    /// handoff matrix as a heat map, the memory staircase with the cache
    /// sizes marked, the fitted series (faults, memcpy) as t(n).
    #[arg(long, value_name = "FILE.svg", value_parser = crate::parsers::svg_file())]
    pub plot: Option<PathBuf>,
}

/// A list of whole numbers, sorted, without duplicates.
#[derive(Debug, Clone)]
pub struct Vec64(pub Vec<u64>);

fn pages(flag: &str, text: &str) -> anyhow::Result<Vec64> {
    let v = toll_families::sizes::parse_bytes(text, flag).map_err(usage)?;
    if let Some(&bad) = v.iter().find(|&&p| p == 0 || p > 1 << 20) {
        return Err(usage(format!(
            "{flag} {bad}: pages per mapping are 1 to 1048576"
        )));
    }
    Ok(Vec64(v))
}

fn copy_sizes(flag: &str, text: &str) -> anyhow::Result<Vec64> {
    let v = toll_families::sizes::parse_bytes(text, flag).map_err(usage)?;
    if let Some(&bad) = v.iter().find(|&&b| b == 0) {
        return Err(usage(format!(
            "{flag} {bad}: a copy moves at least one byte"
        )));
    }
    Ok(Vec64(v))
}

fn memory_max(flag: &str, text: &str) -> anyhow::Result<u64> {
    let v = toll_families::sizes::parse_bytes(text, flag).map_err(usage)?;
    match v.as_slice() {
        [one] if *one >= 4096 => Ok(*one),
        [one] => Err(usage(format!(
            "{flag} {one}: the chase starts at 4 KiB; give 4Ki or more"
        ))),
        _ => Err(usage(format!("{flag} takes one size, not a list"))),
    }
}
