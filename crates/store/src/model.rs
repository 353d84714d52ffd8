//! The records the store reads and writes.

use serde::{Deserialize, Serialize};
use toll_measure::{Fingerprint, Sample, SeriesFit, Summary};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Still being measured (or its process died; `Store::open` marks such runs partial).
    Running,
    Complete,
    /// Stopped early (Ctrl-C, a peer that died): the points measured so far are kept.
    Partial,
    Failed,
}

impl RunStatus {
    /// The word stored and shown for this status.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
            RunStatus::Partial => "partial",
            RunStatus::Failed => "failed",
        }
    }

    /// The status a stored word names; an unknown word reads as failed.
    pub(crate) fn parse(s: &str) -> RunStatus {
        match s {
            "running" => RunStatus::Running,
            "complete" => RunStatus::Complete,
            "partial" => RunStatus::Partial,
            _ => RunStatus::Failed,
        }
    }
}

/// Whether a point was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PointStatus {
    Ok,
    Failed,
}

/// What is known about a run when it starts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NewRun {
    pub family: String,
    pub config: serde_json::Value,
    pub env: Fingerprint,
    pub tool_version: String,
}

/// A series' fit in an earlier run, with what it was measured under.
#[derive(Debug, Clone)]
pub struct EarlierFit {
    /// The series' label.
    pub label: String,
    /// The run's configuration.
    pub config: serde_json::Value,
    /// The series' attributes (placement, unit, …).
    pub attrs: serde_json::Value,
    pub fit: SeriesFit,
    /// The store it was measured into, when it is not this one: read from
    /// the machine's record of runs (`crate::record`).
    pub elsewhere: Option<String>,
}

/// An earlier run's figure of a one-point series (see `Store::earlier_figures`).
#[derive(Debug, Clone)]
pub struct EarlierFigure {
    /// The series' label.
    pub label: String,
    /// The run's configuration.
    pub config: serde_json::Value,
    /// The series' attributes (its `figure` among them).
    pub attrs: serde_json::Value,
    pub figure: toll_measure::run_to_run::Figure,
    /// The store it was measured into, when it is not this one.
    pub elsewhere: Option<String>,
}

/// One line of `toll runs`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRow {
    pub id: i64,
    pub family: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub status: RunStatus,
    pub summary: String,
    /// The machine it was measured on (its hostname).
    #[serde(default)]
    pub host: String,
}

/// One measured point of a series.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Point {
    pub n: u64,
    pub status: PointStatus,
    pub error: Option<String>,
    pub summary: Option<Summary>,
    pub samples: Vec<Sample>,
    /// Family-specific figures of the point (spawn: memory per unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<serde_json::Value>,
}

/// One series of a run (for transfer: one peer over one transport).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Series {
    pub id: i64,
    pub label: String,
    /// Family-specific attributes (peer, transport, placement, unit of n, …).
    pub attrs: serde_json::Value,
    pub fit: Option<SeriesFit>,
    pub points: Vec<Point>,
}

/// A whole stored run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    pub id: i64,
    pub family: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub status: RunStatus,
    pub summary: String,
    pub error: Option<String>,
    pub config: serde_json::Value,
    pub env: Fingerprint,
    pub tool_version: String,
    pub series: Vec<Series>,
}

/// Where one point's samples are in the store, for
/// [`Store::samples`](crate::Store::samples): its row, and how many it
/// holds (numbered 0 to `count` − 1 in trial order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointRef {
    pub id: i64,
    pub count: u64,
}

/// A run without its samples, from
/// [`Store::load_outline`](crate::Store::load_outline): `points[s][p]`
/// says where the samples of `run.series[s].points[p]` are.
#[derive(Debug, Clone)]
pub struct Outline {
    pub run: Run,
    pub points: Vec<Vec<PointRef>>,
}

#[cfg(test)]
mod tests {
    /// Found by fuzz/fuzz_targets/run_json.rs: serde_json's default float
    /// parser read 1.5369223372036853 back as 1.536922337203685, so a run
    /// stored or exported and read back was not quite the run measured
    /// (the workspace now asks for serde_json's `float_roundtrip`).
    #[test]
    fn figures_read_back_bit_for_bit() {
        for x in [
            1.5369223372036853_f64,
            0.1 + 0.2,
            2.2250738585072014e-308,
            1.7976931348623157e308,
            5e-324,
        ] {
            let text = serde_json::to_string(&x).unwrap();
            let back: f64 = serde_json::from_str(&text).unwrap();
            assert_eq!(back.to_bits(), x.to_bits(), "{text}");
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                v.as_f64().map(f64::to_bits),
                Some(x.to_bits()),
                "{text} as a Value"
            );
        }
    }
}
