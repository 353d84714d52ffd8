//! `toll file`'s flags (E4): which file, which readers, which reads, which
//! cache state.

use clap::Args;
use std::path::PathBuf;

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
    #[arg(long, value_name = "BYTES", default_value = "100M")]
    pub file_size: String,
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
    #[arg(long, default_value = "seq,random", value_name = "LIST")]
    pub pattern: String,
    /// Sweep the read size instead of E4's reads, e.g. 64,512,4Ki,64Ki:
    /// fits α (per read) and β (per byte) for each method.
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub sizes: Option<String>,
    /// Random reads per trial (E4: 200000); with --sizes, also the most
    /// sequential reads per trial (1 to 100000000).
    #[arg(
        long,
        default_value = "200000",
        value_name = "N",
        allow_hyphen_values = true
    )]
    pub reads: String,
    /// Cache state before each trial: cold (the file's pages evicted, as
    /// E4), warm (read once first), or both.
    #[arg(long, default_value = "both", value_name = "STATE")]
    pub cache: String,
    /// Cold trials also drop the machine's whole page cache (root only).
    #[arg(long)]
    pub drop_caches: bool,
    /// Trials per point, in rounds: every point once a round (1 to 1000).
    #[arg(
        long,
        default_value = "5",
        value_name = "N",
        allow_hyphen_values = true
    )]
    pub trials: String,
    /// Seed of the random offsets (the same offsets for every method).
    #[arg(long, default_value = "2010", value_name = "N")]
    pub seed: u64,
    /// Print the stored run as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw µs per read against the read size, one line per series, to an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The plot's axes: log where the values span decades (auto), or
    /// linear or log throughout.
    #[arg(long, default_value = "auto", value_name = "SCALE",
          value_parser = ["auto", "linear", "log"])]
    pub plot_scale: String,
}
