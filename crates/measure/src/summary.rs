//! Summary statistics of one point's samples.

use serde::{Deserialize, Serialize};

/// Counts of Tukey outliers (mild: beyond 1.5 IQR; severe: beyond 3 IQR).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outliers {
    pub low_severe: u32,
    pub low_mild: u32,
    pub high_mild: u32,
    pub high_severe: u32,
}

/// Summary of a set of per-operation times (ns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub count: usize,
    pub median: f64,
    pub mean: f64,
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    /// Median absolute deviation (raw, not scaled).
    pub mad: f64,
    /// 95% bootstrap confidence interval of the median.
    pub ci_low: f64,
    pub ci_high: f64,
    /// Coefficient of variation, stddev / mean.
    pub cv: f64,
    pub outliers: Outliers,
    /// Set when the spread is too wide to trust the median.
    pub too_noisy: bool,
}

impl Summary {
    /// Summarise `values` (must not be empty).
    pub fn of(values: &[f64]) -> Summary {
        todo!()
    }
}
