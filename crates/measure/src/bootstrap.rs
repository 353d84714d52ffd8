//! Percentile bootstrap.
//!
//! Efron's percentile bootstrap (Efron & Tibshirani, *An Introduction to the
//! Bootstrap*, 1993, ch. 13), the method criterion.rs uses for its confidence
//! intervals: resample the data with replacement, recompute the statistic on
//! each resample, and read the interval off the percentiles of those values.
//! The generator is seeded with a constant so the same samples always give the
//! same interval.

use crate::quantile::quantile;
use fastrand::Rng;

/// Seed of every bootstrap in this crate, so results are reproducible.
pub const SEED: u64 = 0x7011_b007_5eed;

/// Confidence level of every interval toll reports.
pub const LEVEL: f64 = 0.95;

/// The central `level` interval of bootstrap replicates `stats` (reordered):
/// their (1−level)/2 and 1−(1−level)/2 percentiles, linearly interpolated.
/// NaN replicates are ignored; with none left the interval is (NaN, NaN).
pub fn interval(stats: &mut Vec<f64>, level: f64) -> (f64, f64) {
    stats.retain(|x| !x.is_nan());
    stats.sort_unstable_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    (quantile(stats, tail), quantile(stats, 1.0 - tail))
}

/// Percentile-bootstrap interval of `statistic` over `values`: `resamples`
/// resamples of the same size drawn with replacement from `rng`. The
/// statistic may reorder the resample it is given.
pub fn percentile_ci(
    values: &[f64],
    resamples: usize,
    level: f64,
    rng: &mut Rng,
    mut statistic: impl FnMut(&mut [f64]) -> f64,
) -> (f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mut buf = vec![0.0; values.len()];
    let mut stats = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for slot in buf.iter_mut() {
            *slot = values[rng.usize(..values.len())];
        }
        stats.push(statistic(&mut buf));
    }
    interval(&mut stats, level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_takes_the_central_percentiles() {
        let mut stats: Vec<f64> = (0..=1000).map(f64::from).collect();
        stats.reverse();
        let (lo, hi) = interval(&mut stats, 0.95);
        assert!(
            (lo - 25.0).abs() < 1e-9 && (hi - 975.0).abs() < 1e-9,
            "({lo}, {hi})"
        );
        assert_eq!(interval(&mut vec![f64::NAN, 2.0], 0.95), (2.0, 2.0));
        let (lo, hi) = interval(&mut Vec::new(), 0.95);
        assert!(lo.is_nan() && hi.is_nan());
    }

    #[test]
    fn percentile_ci_of_the_mean_matches_its_standard_error() {
        // Mean of 0..100: the standard error is ≈ 2.9, so the 95% interval
        // should be about ±5.7 around 49.5.
        let values: Vec<f64> = (0..100).map(f64::from).collect();
        let mut rng = Rng::with_seed(SEED);
        let (lo, hi) = percentile_ci(&values, 4000, 0.95, &mut rng, |v| {
            v.iter().sum::<f64>() / v.len() as f64
        });
        assert!(
            (43.0..46.0).contains(&lo) && (53.0..56.0).contains(&hi),
            "({lo}, {hi})"
        );
    }
}
