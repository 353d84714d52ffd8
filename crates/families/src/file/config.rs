//! What a `toll file` run is asked (file, methods, patterns, sizes, cache
//! state), what each series gives back, and why a run can fail.

use super::cache::Cache;
use super::data::{self, Located};
use super::native;
use super::plan::{self, Pattern, Reads, SumOf};
use super::storage::Storage;
use serde::Serialize;
use toll_measure::{SeriesFit, Summary};
use toll_peers::{PeerError, Runtime};
use toll_store::{RunStatus, StoreError};

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

pub(super) fn io_err(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> FileError {
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
