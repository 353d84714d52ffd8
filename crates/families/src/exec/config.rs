//! What a `toll exec` run is asked (commands, parameters, run counts,
//! order, limits), what it gives back per benchmark, and why it can fail.

use super::child::{Measured, Output};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;
use toll_measure::SeriesFit;
use toll_store::{RunStatus, StoreError};

/// hyperfine's rule: measure for at least this long when `--runs` is not given.
pub const MIN_BENCH_TIME: Duration = Duration::from_secs(3);
/// Runs of `sh -c ''` behind the shell's start-up figure.
pub const SHELL_RUNS: usize = 30;

/// How many measured runs each benchmark gets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunCount {
    /// `--runs N`.
    Exact(usize),
    /// At least `min`, at most `max`, enough for [`MIN_BENCH_TIME`].
    Auto { min: usize, max: usize },
}

/// The order of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// A B C, then C B A (ABBA): neither end always goes first.
    Alternate,
    /// Each round shuffled (seeded).
    Shuffle,
}

/// How each program is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Launch {
    /// posix_spawn (glibc: a vfork-like clone, then exec): the default, as
    /// hyperfine's and a shell's.
    #[default]
    PosixSpawn,
    /// fork (toll's page tables copied, copy-on-write), then exec.
    ForkExec,
}

/// A validated `toll exec` request.
#[derive(Debug, Clone, Serialize)]
pub struct ExecConfig {
    /// The commands as written, `{name}` placeholders and all.
    pub commands: Vec<String>,
    /// Names shown instead of the commands (`--command-name`), if given.
    pub names: Vec<Option<String>>,
    pub params: Vec<Parameter>,
    /// None: no shell (`-N`); else the shell that reads each command.
    pub shell: Option<String>,
    pub warmup: usize,
    pub runs: RunCount,
    /// `--ci`: rounds until every benchmark's median CI is within this share.
    pub ci_target: Option<f64>,
    /// Bound on the whole measurement; a run still going then is killed.
    #[serde(with = "toll_measure::duration_ns", rename = "max_time_ns")]
    pub max_time: Duration,
    pub prepare: Option<String>,
    pub setup: Option<String>,
    pub cleanup: Option<String>,
    pub ignore_failure: bool,
    pub input: Option<PathBuf>,
    pub output: Output,
    pub pin: Option<usize>,
    pub order: Order,
    pub launch: Launch,
}

/// Why a measurement could not run, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    BadParameter(String),
    #[error("`{command}`: command not found{detail}: check its name or give its path")]
    NotFound { command: String, detail: String },
    #[error(
        "`{command}` failed with exit status {code}{stderr}: fix it, or pass -i to time it anyway"
    )]
    Failed {
        command: String,
        code: i32,
        stderr: String,
    },
    #[error("`{command}` ran past --max-time {limit}: raise --max-time, or give it less to do")]
    TooLong { command: String, limit: String },
    #[error("{what} `{command}` failed with exit status {code}{stderr}: fix it")]
    Hook {
        what: &'static str,
        command: String,
        code: i32,
        stderr: String,
    },
    #[error("cannot run `{command}`: {error}")]
    Spawn {
        command: String,
        error: std::io::Error,
    },
    #[error("cannot pin to CPU {cpu}: {why}")]
    Pin { cpu: usize, why: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One benchmark: a command with its parameter values filled in.
#[derive(Debug, Clone, Serialize)]
pub struct Bench {
    /// Which of the commands.
    pub template: usize,
    /// The command as run.
    pub command: String,
    /// What the report calls it.
    pub label: String,
    pub params: Vec<(String, String)>,
    /// The fitted parameter's value, when there is one.
    pub n: Option<u64>,
    /// Series key: its command and the parameters not fitted.
    pub series: usize,
    #[serde(skip)]
    pub(super) argv: Vec<String>,
}

/// The shell's own start-up, subtracted from every run.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ShellCost {
    pub wall_ns: f64,
    pub user_ns: f64,
    pub sys_ns: f64,
    pub runs: usize,
}

/// One series: a command's benchmarks over the fitted parameter.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesResult {
    pub label: String,
    /// The benchmarks (indices) in ascending `n`.
    pub benches: Vec<usize>,
    pub fit: Option<SeriesFit>,
}

/// Why the rounds ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ended {
    /// The runs asked for, or every CI within `--ci`.
    Done,
    /// `--max-time` ran out with CIs still wider than `--ci`.
    OutOfTime,
    Interrupted,
    Failed,
}

/// What a `toll exec` produced.
#[derive(Debug)]
pub struct ExecOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    pub benches: Vec<Bench>,
    /// Each benchmark's measured runs, in the order taken.
    pub runs: Vec<Vec<Measured>>,
    pub series: Vec<SeriesResult>,
    pub shell: Option<ShellCost>,
    /// Why there are no cycles and instructions, when there are none.
    pub counters_missing: Option<String>,
    /// toll's own peak resident set, KiB (see [`child::own_peak_rss_kb`]).
    pub rss_floor_kb: u64,
    pub rounds: usize,
    pub ended: Ended,
    pub elapsed: Duration,
    pub error: Option<ExecError>,
}

/// A parameter and its values, in the order given.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Parameter {
    pub name: String,
    pub values: Vec<String>,
}
