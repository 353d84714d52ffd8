//! What a `toll spawn` or `toll ring` run is asked (ops, sizes, targets),
//! what each point and series gives back, and why a run can fail.

use super::target::Target;
use serde::Serialize;
use toll_measure::{SeriesFit, Summary};
use toll_peers::{Ceiling, PeerError};
use toll_store::{RunStatus, StoreError};

/// E2's spawn sizes.
pub const DEFAULT_SPAWN_NS: &str = "1000,10000,100000,300000";
/// E2's ring sizes.
pub const DEFAULT_RING_NS: &str = "100,1000,10000";
/// E2's rounds of the ring.
pub const DEFAULT_ROUNDS: u64 = 1000;
/// A knee is where the cost per unit reaches this multiple of its lowest so far.
pub const KNEE_FACTOR: f64 = 2.0;

/// Which experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "op")]
pub enum UnitOp {
    Spawn,
    /// The token goes round `m` times.
    Ring {
        m: u64,
    },
}

impl UnitOp {
    /// The family name, as stored.
    pub fn family(self) -> &'static str {
        match self {
            UnitOp::Spawn => "spawn",
            UnitOp::Ring { .. } => "ring",
        }
    }

    /// What one timed operation of a point is: a unit made, or a hop.
    pub fn per(self) -> &'static str {
        match self {
            UnitOp::Spawn => "unit",
            UnitOp::Ring { .. } => "hop",
        }
    }
}

/// A validated `toll spawn` / `toll ring` request.
#[derive(Debug, Clone)]
pub struct UnitsConfig {
    pub op: UnitOp,
    pub ns: Vec<u64>,
    pub targets: Vec<Target>,
    pub trials: u32,
    pub ceiling: Ceiling,
}

/// Why a run could not start, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum UnitsError {
    #[error(transparent)]
    Peer(#[from] PeerError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The figures of one measured point.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    /// ns per unit made (spawn) or per hop (ring), one value per trial.
    pub per_op: Summary,
    /// ns of a whole trial.
    pub total: Summary,
    /// ns of each trial, as measured.
    pub trials_ns: Vec<f64>,
    /// Median memory growth per unit, kB (spawn only; None when not measured).
    pub mem_kb_per_unit: Option<f64>,
    /// How the worker measured memory (spec/wire.md, `mem_how`).
    pub mem_how: Option<String>,
    /// Why a spawn's memory per unit is not given.
    pub mem_note: Option<String>,
}

/// One N of a series: its figures, or why it failed.
#[derive(Debug, Clone, Serialize)]
pub struct UnitPoint {
    pub n: u64,
    pub result: Result<Figures, String>,
}

/// One (runtime, unit) series.
#[derive(Debug, Clone, Serialize)]
pub struct UnitSeries {
    pub target: Target,
    pub points: Vec<UnitPoint>,
    /// t(N) = α + β·N over the measured points: total spawn time, or the
    /// time of one round of the ring.
    pub fit: Option<SeriesFit>,
    /// (N, ratio) where the cost per unit first reached KNEE_FACTOR× its lowest.
    pub knee: Option<(f64, f64)>,
    /// Share of all CPUs that other processes kept busy while the series
    /// was measured (see `toll_measure::env::OthersBusy`).
    pub others_busy: f64,
    /// The busiest of them, with its share of one CPU.
    pub busiest: Option<(String, f64)>,
}

impl UnitSeries {
    /// Other processes kept the machine busy while this series was measured.
    pub fn busy(&self) -> bool {
        self.others_busy > toll_measure::env::BUSY_SHARE
    }

    /// The smallest N that failed, with its reason.
    pub fn first_failure(&self) -> Option<(u64, &str)> {
        self.points
            .iter()
            .find_map(|p| p.result.as_ref().err().map(|e| (p.n, e.as_str())))
    }
}

/// What a run produced.
#[derive(Debug)]
pub struct UnitsOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    pub series: Vec<UnitSeries>,
    /// Why the run stopped early, if it did.
    pub error: Option<UnitsError>,
}
