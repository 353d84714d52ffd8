//! Each point's variance from the resamples: pooled over the points for
//! the weights of the weighted line, and a point's own where it is larger
//! for the lack-of-fit test.

use super::resample::Replicates;
use crate::quantile::median_in_place;

/// Each point's variance as the pooled relative variance times its value²:
/// timing noise grows with the time measured, and one share pooled over
/// every point is steadier than each point's own variance from a few
/// rounds, whose chance lows would win too much weight and make the
/// intervals too narrow.
pub(crate) fn pooled_variances(reps: &Replicates, centres: &[f64]) -> Vec<f64> {
    let mut relative: Vec<f64> = (0..centres.len())
        .map(|g| reps.variance_of_median(g) / centres[g].powi(2).max(1e-300))
        .filter(|r| r.is_finite())
        .collect();
    let share = if relative.is_empty() {
        0.0
    } else {
        median_in_place(&mut relative)
    };
    centres
        .iter()
        .map(|&m| variance_floor(share * m * m, m))
        .collect()
}

/// A centre's variance, floored so a point whose trials were all equal
/// (an exact synthetic series, a coarse clock) gets a finite weight.
fn variance_floor(v: f64, median: f64) -> f64 {
    let floor = (1e-6 * median.abs()).powi(2).max(1e-12);
    if v.is_finite() {
        v.max(floor)
    } else {
        floor
    }
}

/// Each point's replicate variance for the lack-of-fit test: its own
/// bootstrap variance, or the pooled one `var` where that is larger, so a
/// point noisier than the rest is judged by its own noise (a noisy machine
/// is not a curve).
pub(crate) fn replicate_variances(reps: &Replicates, var: &[f64]) -> Vec<f64> {
    (0..var.len())
        .map(|g| {
            let v = reps.variance_of_median(g);
            if v.is_finite() {
                v.max(var[g])
            } else {
                var[g]
            }
        })
        .collect()
}
