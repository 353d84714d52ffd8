//! `toll file`'s flags (E4): which file, which readers, which reads, which
//! cache state.

use super::plot_scale::PlotScale;
use crate::parsers::{checked, whole_in, List, Sizes};
use crate::usage::usage;
use crate::values::list;
use clap::Args;
use std::path::PathBuf;
use toll_families::file::cache::Cache;
use toll_families::file::plan::{self, Pattern};

/// The largest file toll makes: 1 TiB (the free-space check comes first).
const MAX_FILE_SIZE: u64 = 1 << 40;

/// `toll file`: which file, which readers, which reads, which cache state.
#[derive(Debug, Args)]
pub struct FileArgs {
    /// Read this file (opened read-only, never written) instead of toll's own.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["dir", "file_size"])]
    pub file: Option<PathBuf>,
    /// Where toll keeps its own file of random bytes, made once and reused
    /// (default: file/ in toll's cache directory, $TOLL_CACHE_DIR or ~/.cache/toll).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Size of toll's own file, e.g. 100M (E4's), 4Mi.
    #[arg(long, value_name = "BYTES", default_value = "100M", value_parser = checked(file_size))]
    pub file_size: u64,
    /// Runtimes, comma-separated: rust (in toll), c, python, or all (every
    /// one of them this machine has).
    #[arg(long, default_value = "all", value_name = "LIST")]
    pub runtime: String,
    /// Methods, comma-separated; each is measured on every chosen runtime
    /// that has it. rust: read, pread, mmap-copy, mmap-slice, io_uring;
    /// c: pread, mmap; python: read, mmap-read, mmap-slice (E4's three).
    /// Default: all of each runtime's.
    #[arg(long, value_name = "LIST")]
    pub method: Option<String>,
    /// Patterns, comma-separated: seq (E4: 50- and 450-byte reads in turn
    /// through the file), random (E4: 450-byte reads at seeded random offsets).
    #[arg(long, default_value = "seq,random", value_name = "LIST",
          value_parser = checked(patterns))]
    pub pattern: List<Pattern>,
    /// Sweep the read size instead of E4's reads, e.g. 64,512,4Ki,64Ki:
    /// fits α (per read) and β (per byte) for each method.
    #[arg(long, value_name = "LIST", allow_hyphen_values = true,
          value_parser = checked(read_sizes))]
    pub sizes: Option<Sizes>,
    /// Random reads per trial (E4: 200000); with --sizes, also the most
    /// sequential reads per trial (1 to 100000000).
    #[arg(
        long,
        default_value = "200000",
        value_name = "N",
        allow_hyphen_values = true,
        value_parser = whole_in::<u64>(1, 100_000_000)
    )]
    pub reads: u64,
    /// Cache state before each trial: cold (the file's pages evicted, as
    /// E4), warm (read once first), or both.
    #[arg(long, default_value = "both", value_name = "STATE", value_parser = checked(caches))]
    pub cache: List<Cache>,
    /// Cold trials also drop the machine's whole page cache (root only).
    #[arg(long)]
    pub drop_caches: bool,
    /// Trials per point, in rounds: every point once a round (1 to 1000).
    #[arg(
        long,
        default_value = "5",
        value_name = "N",
        allow_hyphen_values = true,
        value_parser = whole_in::<u32>(1, 1000)
    )]
    pub trials: u32,
    /// Seed of the random offsets (the same offsets for every method).
    #[arg(long, default_value = "2010", value_name = "N")]
    pub seed: u64,
    /// Print the stored run as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw µs per read against the read size, one line per series, to an SVG file.
    #[arg(long, value_name = "FILE.svg", value_parser = crate::parsers::svg_file())]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub scale: PlotScale,
}

/// --file-size: bytes, more than none and at most [`MAX_FILE_SIZE`].
fn file_size(flag: &str, text: &str) -> anyhow::Result<u64> {
    plan::parse_bytes(flag, text, MAX_FILE_SIZE).map_err(|e| match e {
        plan::BytesError::Zero { .. } => usage(format!(
            "{flag} 0 makes an empty file: give a size such as 100M (E4's) or 4Mi"
        )),
        e => usage(e.to_string()),
    })
}

/// --sizes: read sizes, a list and/or ranges.
fn read_sizes(flag: &str, text: &str) -> anyhow::Result<Sizes> {
    plan::parse_read_sizes(flag, text).map_err(|e| usage(e.to_string()))
}

/// --pattern: each named once, in the order given.
fn patterns(flag: &str, text: &str) -> anyhow::Result<List<Pattern>> {
    let mut out = vec![];
    for p in list(text, flag)? {
        let p = Pattern::parse(p).ok_or_else(|| {
            usage(format!(
                "unknown pattern `{p}` in {flag}: give seq, random or both (seq,random)"
            ))
        })?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    Ok(out)
}

/// --cache: cold, warm or both.
fn caches(flag: &str, text: &str) -> anyhow::Result<List<Cache>> {
    match text.trim() {
        "cold" => Ok(vec![Cache::Cold]),
        "warm" => Ok(vec![Cache::Warm]),
        "both" => Ok(vec![Cache::Cold, Cache::Warm]),
        other => Err(usage(format!("{flag} `{other}`: give cold, warm or both"))),
    }
}
