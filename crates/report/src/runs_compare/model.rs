//! What a comparison is made of, shared by the whole comparison and the
//! comparison of one series: its rules, and one series' and one point's
//! results.

use serde::{Deserialize, Serialize};
use toll_measure::change::{ParamChange, PointChange, Verdict};

/// The rules of one comparison.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    /// Significance level of the Mann–Whitney test.
    pub alpha: f64,
    /// Smallest change of a median that counts, as a share (0.05: 5%).
    pub threshold: f64,
    /// Compare latencies that end at the kernel's arrival stamp with ones
    /// that end at the client's read (`--mixed-latency`).
    #[serde(default)]
    pub mixed_latency: bool,
}

/// One point of a series in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointComparison {
    pub n: u64,
    /// None when a side has no times at this point (then `note` says why).
    pub change: Option<PointChange>,
    pub verdict: Option<Verdict>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// α and β of a fitted series in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitComparison {
    pub alpha_ns: ParamChange,
    /// ns per unit of n.
    pub beta_ns: ParamChange,
    /// Whether the straight line describes the points, in A and in B.
    pub line_fits: (bool, bool),
}

/// One series present in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesComparison {
    pub label: String,
    pub points: Vec<PointComparison>,
    /// Sizes measured in one run only.
    pub only_in_a: Vec<u64>,
    pub only_in_b: Vec<u64>,
    /// Both runs have a fit.
    pub fit: Option<FitComparison>,
}
