//! The seed experiments and their presets (full, quick, test), what one
//! experiment's run is given (the store, the observer, the stop flag, the
//! web servers), and how its CPU affinity is kept.

use crate::observer::Observer;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use toll_store::Store;

/// One of the five seed experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Experiment {
    E1,
    E2,
    E3,
    E4,
    E5,
}

impl Experiment {
    pub const ALL: [Experiment; 5] = [
        Experiment::E1,
        Experiment::E2,
        Experiment::E3,
        Experiment::E4,
        Experiment::E5,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Experiment::E1 => "E1",
            Experiment::E2 => "E2",
            Experiment::E3 => "E3",
            Experiment::E4 => "E4",
            Experiment::E5 => "E5",
        }
    }

    /// The experiment's title in docs/EXPERIMENTS.md.
    pub fn title(self) -> &'static str {
        match self {
            Experiment::E1 => "transfer time over a link (MathLink, ~1999–2004)",
            Experiment::E2 => "process spawn and the process ring (Erlang, Squeak, Haskell, 2007)",
            Experiment::E3 => "null-RPC overhead (Ninf, NetSolve, Condor MW, early 2000s)",
            Experiment::E4 => {
                "many sequential and random reads: plain reads or mmap? (Python, 2010)"
            }
            Experiment::E5 => "web server throughput with ab, and a C vs JVM loop (2004)",
        }
    }
}

/// An experiment name that is none of E1…E5 or all.
#[derive(Debug, thiserror::Error)]
#[error("unknown experiment `{0}`: valid ones are E1, E2, E3, E4, E5, all (or a comma-separated list, e.g. E1,E5)")]
pub struct UnknownExperiment(pub String);

/// `E1`, `e5`, `all`, or a comma-separated list of them, in E1…E5 order
/// without repeats.
pub fn parse_experiments(text: &str) -> Result<Vec<Experiment>, UnknownExperiment> {
    let mut out = Vec::new();
    let names: Vec<&str> = text.split(',').map(str::trim).collect();
    for name in &names {
        let picked: Vec<Experiment> = match name.to_ascii_uppercase().as_str() {
            "ALL" => Experiment::ALL.to_vec(),
            "E1" => vec![Experiment::E1],
            "E2" => vec![Experiment::E2],
            "E3" => vec![Experiment::E3],
            "E4" => vec![Experiment::E4],
            "E5" => vec![Experiment::E5],
            _ => return Err(UnknownExperiment(name.to_string())),
        };
        out.extend(picked);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// How much of each design to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// The experiment's own sizes and trials.
    Full,
    /// `--quick`: smaller sizes and fewer trials; all five in about 5 minutes.
    Quick,
    /// The tests': the smallest run that still exercises every row.
    Test,
}

impl Preset {
    pub fn name(self) -> &'static str {
        match self {
            Preset::Full => "full",
            Preset::Quick => "quick",
            Preset::Test => "test",
        }
    }

    /// Pick the value for this preset.
    pub fn pick<T>(self, full: T, quick: T, test: T) -> T {
        match self {
            Preset::Full => full,
            Preset::Quick => quick,
            Preset::Test => test,
        }
    }
}

/// What every experiment runs with.
pub struct Ctx<'a> {
    pub store: &'a Store,
    pub observer: &'a mut dyn Observer,
    pub stop: &'a Arc<AtomicBool>,
    pub preset: Preset,
    /// A directory of toll's for generated files (configs, the loop's
    /// binaries), removed by the caller.
    pub scratch: PathBuf,
    /// The first loopback port of E5's servers (`--port`); None: free
    /// ports the system picks.
    pub port: Option<u16>,
}

impl Ctx<'_> {
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// The reason of a row not measured because the run was interrupted.
pub const INTERRUPTED: &str = "not measured: interrupted";

/// The CPUs this thread may use, put back when dropped: a family that pins
/// toll (`--pin`) leaves it pinned, and the next family in the same
/// process would inherit one CPU (and its workers with it).
pub struct KeepAffinity(Option<nix::sched::CpuSet>);

impl KeepAffinity {
    pub fn now() -> KeepAffinity {
        KeepAffinity(nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).ok())
    }
}

impl Drop for KeepAffinity {
    fn drop(&mut self) {
        if let Some(set) = &self.0 {
            let _ = nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), set);
        }
    }
}
