//! Summary statistics of one point's samples.

use crate::quantile::{median_in_place, quantile, sorted};
use crate::sample::Sample;
use crate::{median_ci, outliers};
use serde::{Deserialize, Serialize};

// Counted in every summary; also reachable here, where it was first defined.
pub use crate::outliers::Outliers;

/// Noise threshold on the confidence interval: its half-width as a share of
/// the median.
pub const MAX_CI_HALF_WIDTH: f64 = 0.10;

/// Noise threshold on the coefficient of variation.
pub const MAX_CV: f64 = 0.25;

/// Summary of a set of per-operation times (ns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of values summarised.
    pub count: usize,
    /// Median (linear interpolation between the middle two for an even count).
    pub median: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator; 0 for one value).
    pub stddev: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Median absolute deviation (raw, not scaled).
    pub mad: f64,
    /// Lower end of the median's confidence interval, from order statistics
    /// (the whole range below six values; see [`median_ci`](crate::median_ci)).
    pub ci_low: f64,
    /// Upper end of the median's confidence interval.
    pub ci_high: f64,
    /// The coverage that interval has: 0.95 or a little more from six
    /// values on, less below (three values: 0.75, five: 0.9375), 0 for one
    /// value (no interval). None in runs stored before it was kept, whose
    /// level is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_level: Option<f64>,
    /// Coefficient of variation, stddev / mean.
    pub cv: f64,
    /// Tukey outliers, counted and kept.
    pub outliers: Outliers,
    /// Set when the spread is too wide to trust the median.
    pub too_noisy: bool,
}

impl Summary {
    /// Summarise `values` (must not be empty).
    ///
    /// - median, mean, sample stddev, min, max;
    /// - MAD: the median of |x − median|, unscaled (multiply by 1.4826 for a
    ///   normal-consistent σ estimate);
    /// - CI: the median's exact 95% interval from order statistics
    ///   ([`median_ci`](crate::median_ci)); one value gives (v, v);
    /// - cv = stddev / mean (0 when the mean is 0);
    /// - outliers by Tukey's fences ([`outliers`]);
    /// - `too_noisy` by [`Summary::is_too_noisy`].
    ///
    /// An empty slice gives a Summary with `count` 0, zeros elsewhere and
    /// `too_noisy` set (zeros, not NaN, so it still round-trips through
    /// JSON): the same in debug and release builds, so the tests, which run
    /// in debug, check what users run.
    pub fn of(values: &[f64]) -> Summary {
        if values.is_empty() {
            return Summary::empty();
        }
        let count = values.len();
        let sorted = sorted(values);
        let median = quantile(&sorted, 0.5);
        let mean = values.iter().sum::<f64>() / count as f64;
        let stddev = if count > 1 {
            let ss: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
            (ss / (count - 1) as f64).sqrt()
        } else {
            0.0
        };
        let mut deviations: Vec<f64> = values.iter().map(|v| (v - median).abs()).collect();
        let mad = median_in_place(&mut deviations);
        let (ci_low, ci_high) = median_ci::median_ci(values);
        let ci_level = median_ci::level(count);
        let cv = if mean == 0.0 {
            0.0
        } else {
            stddev / mean.abs()
        };
        Summary {
            count,
            median,
            mean,
            stddev,
            min: sorted[0],
            max: sorted[count - 1],
            mad,
            ci_low,
            ci_high,
            ci_level: Some(ci_level),
            cv,
            outliers: outliers::count(&sorted),
            // One value has no spread to judge: it is not to be trusted.
            too_noisy: count < 2 || Summary::is_too_noisy(median, ci_low, ci_high, cv),
        }
    }

    /// Summarise a point's samples as the families do: the time per
    /// operation of each batch that did any (a round of `toll http` in
    /// which no request completed has none). None when no batch did.
    pub fn of_samples(samples: &[Sample]) -> Option<Summary> {
        let per_op: Vec<f64> = samples
            .iter()
            .filter(|s| s.iters > 0)
            .map(Sample::per_op_ns)
            .collect();
        (!per_op.is_empty()).then(|| Summary::of(&per_op))
    }

    /// The rule behind `too_noisy`: the median cannot be trusted when the
    /// 95% CI's half-width exceeds [`MAX_CI_HALF_WIDTH`] (10%) of the median,
    /// or when cv exceeds [`MAX_CV`] (0.25).
    ///
    /// This follows the practice of criterion.rs, which reports every estimate
    /// with a bootstrap CI and treats differences inside a noise threshold as
    /// noise, and of hyperfine, which warns when the spread of the runs makes
    /// the result unreliable rather than silently printing a mean. A ±10%
    /// interval is wider than any difference worth reporting; a cv above 25%
    /// means single trials routinely land a quarter off the mean, typically
    /// from a busy machine or frequency scaling.
    pub fn is_too_noisy(median: f64, ci_low: f64, ci_high: f64, cv: f64) -> bool {
        let half_width = (ci_high - ci_low) / 2.0;
        half_width > MAX_CI_HALF_WIDTH * median.abs() || cv > MAX_CV
    }

    fn empty() -> Summary {
        Summary {
            count: 0,
            median: 0.0,
            mean: 0.0,
            stddev: 0.0,
            min: 0.0,
            max: 0.0,
            mad: 0.0,
            ci_low: 0.0,
            ci_high: 0.0,
            ci_level: Some(0.0),
            cv: 0.0,
            outliers: Outliers::default(),
            too_noisy: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn known_values() {
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.count, 8);
        assert_eq!(s.median, 4.5);
        assert_eq!(s.mean, 5.0);
        // Σ(x − 5)² = 32, over n − 1 = 7.
        assert!(close(s.stddev, (32.0f64 / 7.0).sqrt()));
        assert_eq!((s.min, s.max), (2.0, 9.0));
        // |x − 4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 → median 0.5.
        assert_eq!(s.mad, 0.5);
        assert!(close(s.cv, s.stddev / 5.0));
        assert!(s.ci_low <= s.median && s.median <= s.ci_high);
        assert!(s.ci_low >= 2.0 && s.ci_high <= 9.0);
        // Q1 = 4, Q3 = 5.5, IQR = 1.5: 9 lies past the mild fence at 7.75.
        assert_eq!(
            s.outliers,
            Outliers {
                high_mild: 1,
                ..Outliers::default()
            }
        );
    }

    #[test]
    fn one_value() {
        let s = Summary::of(&[123.0]);
        assert_eq!(
            (s.median, s.mean, s.stddev, s.mad, s.cv),
            (123.0, 123.0, 0.0, 0.0, 0.0)
        );
        assert_eq!((s.ci_low, s.ci_high), (123.0, 123.0));
        // No interval from one value, and nothing to trust it by.
        assert_eq!(s.ci_level, Some(0.0));
        assert!(s.too_noisy);
    }

    #[test]
    fn the_level_is_the_order_statistics_true_coverage() {
        let level = |n: usize| Summary::of(&vec![1.0; n]).ci_level.unwrap();
        assert_eq!(level(3), 0.75);
        assert_eq!(level(5), 0.9375);
        assert!(level(6) >= 0.95 && level(10) >= 0.95);
    }

    #[test]
    fn tight_samples_are_trusted() {
        let v: Vec<f64> = (0..10).map(|i| 1000.0 + f64::from(i)).collect();
        let s = Summary::of(&v);
        assert!(!s.too_noisy, "{s:?}");
        assert!(s.ci_high - s.ci_low < 10.0);
    }

    #[test]
    fn wide_spread_is_too_noisy() {
        let v = [
            100.0, 150.0, 60.0, 200.0, 90.0, 130.0, 70.0, 180.0, 110.0, 95.0,
        ];
        let s = Summary::of(&v);
        assert!(s.cv > MAX_CV);
        assert!(s.too_noisy);
    }

    #[test]
    fn too_noisy_rule_on_each_criterion() {
        // Half-width exactly 10% is fine; just past it is not.
        assert!(!Summary::is_too_noisy(100.0, 90.0, 110.0, 0.0));
        assert!(Summary::is_too_noisy(100.0, 89.0, 111.0, 0.0));
        assert!(!Summary::is_too_noisy(100.0, 99.0, 101.0, 0.25));
        assert!(Summary::is_too_noisy(100.0, 99.0, 101.0, 0.26));
        assert!(!Summary::is_too_noisy(0.0, 0.0, 0.0, 0.0));
    }

    #[test]
    fn outliers_are_counted_not_dropped() {
        let mut v = vec![10.0; 9];
        v.extend([10.5, 9.5, 11.0, 9.0, 50.0]);
        let s = Summary::of(&v);
        assert_eq!(s.count, 14);
        assert_eq!(s.max, 50.0);
        assert!(s.outliers.high_severe >= 1, "{:?}", s.outliers);
        // One straggler moves the mean, not the median.
        assert_eq!(s.median, 10.0);
        assert!(s.mean > 12.0);
    }

    #[test]
    fn zeros_and_json_round_trip() {
        let s = Summary::of(&[0.0, 0.0, 0.0]);
        assert_eq!((s.cv, s.too_noisy), (0.0, false));
        let back: Summary = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn samples_are_summarised_per_operation_without_empty_batches() {
        let s = |iters, total_ns| Sample { iters, total_ns };
        let got = Summary::of_samples(&[s(10, 1000), s(0, 5000), s(4, 800)]).unwrap();
        assert_eq!(got, Summary::of(&[100.0, 200.0]));
        assert_eq!(Summary::of_samples(&[s(0, 7)]), None);
        assert_eq!(Summary::of_samples(&[]), None);
    }

    #[test]
    fn empty_is_flagged_not_a_panic() {
        let s = Summary::of(&[]);
        assert_eq!(s.count, 0);
        assert!(s.too_noisy);
        assert_eq!((s.median, s.ci_low, s.ci_high), (0.0, 0.0, 0.0));
        let back: Summary = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }
}
