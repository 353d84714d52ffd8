//! The cost model `t(n) = α + β·n`: least squares and a robust fit, with CIs.

use serde::{Deserialize, Serialize};

/// How a line was fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FitMethod {
    LeastSquares,
    TheilSen,
}

/// One fitted line with 95% confidence intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    pub method: FitMethod,
    pub alpha: f64,
    pub alpha_ci: (f64, f64),
    pub beta: f64,
    pub beta_ci: (f64, f64),
    pub r2: f64,
    /// α/β when both are positive.
    pub n_half: Option<f64>,
}

impl Fit {
    /// Predicted time at `n`.
    pub fn predict(&self, n: f64) -> f64 {
        self.alpha + self.beta * n
    }
}

/// Both fits of one series, plus a flag when a straight line does not fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesFit {
    pub least_squares: Fit,
    pub robust: Fit,
    /// Set when the line fits poorly (a knee or curve).
    pub nonlinear: bool,
}

/// Fit a series: `points` holds, for each `n`, the per-op times of its trials.
/// Returns None with fewer than two distinct `n`.
pub fn fit_series(points: &[(f64, Vec<f64>)]) -> Option<SeriesFit> {
    todo!()
}
