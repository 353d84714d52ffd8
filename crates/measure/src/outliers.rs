//! Tukey fences.
//!
//! Tukey's boxplot rule (J. W. Tukey, *Exploratory Data Analysis*, 1977), as
//! criterion.rs classifies its samples: with quartiles Q1, Q3 and
//! IQR = Q3 − Q1, a value beyond 1.5·IQR outside the quartiles is a mild
//! outlier, beyond 3·IQR a severe one. Quartiles are linearly interpolated
//! ([`crate::quantile::quantile`]). Outliers are counted, never dropped.

use crate::quantile::quantile;
use serde::{Deserialize, Serialize};

/// Counts of Tukey outliers (mild: beyond 1.5 IQR; severe: beyond 3 IQR).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outliers {
    /// Below Q1 − 3·IQR.
    pub low_severe: u32,
    /// Between Q1 − 3·IQR and Q1 − 1.5·IQR.
    pub low_mild: u32,
    /// Between Q3 + 1.5·IQR and Q3 + 3·IQR.
    pub high_mild: u32,
    /// Above Q3 + 3·IQR.
    pub high_severe: u32,
}

impl Outliers {
    /// All outliers, mild and severe, on both sides.
    pub fn total(&self) -> u32 {
        self.low_severe + self.low_mild + self.high_mild + self.high_severe
    }
}

/// The four fences computed from the quartiles of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fences {
    /// Q1 − 3·IQR: below it a value is a severe low outlier.
    pub low_severe: f64,
    /// Q1 − 1.5·IQR: below it a value is (at least) a mild low outlier.
    pub low_mild: f64,
    /// Q3 + 1.5·IQR: above it a value is (at least) a mild high outlier.
    pub high_mild: f64,
    /// Q3 + 3·IQR: above it a value is a severe high outlier.
    pub high_severe: f64,
}

impl Fences {
    /// The fences of already **sorted** values (all NaN when empty).
    pub fn of(sorted: &[f64]) -> Fences {
        let q1 = quantile(sorted, 0.25);
        let q3 = quantile(sorted, 0.75);
        let iqr = q3 - q1;
        Fences {
            low_severe: q1 - 3.0 * iqr,
            low_mild: q1 - 1.5 * iqr,
            high_mild: q3 + 1.5 * iqr,
            high_severe: q3 + 3.0 * iqr,
        }
    }

    /// Count the values beyond each fence (values need not be sorted).
    pub fn count(&self, values: &[f64]) -> Outliers {
        let mut out = Outliers::default();
        for &v in values {
            if v < self.low_severe {
                out.low_severe += 1;
            } else if v < self.low_mild {
                out.low_mild += 1;
            } else if v > self.high_severe {
                out.high_severe += 1;
            } else if v > self.high_mild {
                out.high_mild += 1;
            }
        }
        out
    }
}

/// Count Tukey outliers in already **sorted** values.
pub fn count(sorted: &[f64]) -> Outliers {
    Fences::of(sorted).count(sorted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_from_interpolated_quartiles() {
        // Q1 = 3.25, Q3 = 7.75, IQR = 4.5.
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        let f = Fences::of(&v);
        assert_eq!(f.low_mild, 3.25 - 6.75);
        assert_eq!(f.high_mild, 7.75 + 6.75);
        assert_eq!(f.low_severe, 3.25 - 13.5);
        assert_eq!(f.high_severe, 7.75 + 13.5);
        assert_eq!(count(&v), Outliers::default());
    }

    #[test]
    fn classifies_mild_and_severe_on_both_sides() {
        // 10..=29 plus five strays: 25 values, Q1 = 14, Q3 = 26, IQR = 12;
        // fences −22 / −4 / 44 / 62.
        let mut v: Vec<f64> = (10..=29).map(f64::from).collect();
        v.extend([-40.0, -5.0, 45.0, 50.0, 120.0]);
        v.sort_unstable_by(f64::total_cmp);
        let f = Fences::of(&v);
        assert_eq!(
            (f.low_severe, f.low_mild, f.high_mild, f.high_severe),
            (-22.0, -4.0, 44.0, 62.0)
        );
        assert_eq!(
            count(&v),
            Outliers {
                low_severe: 1,
                low_mild: 1,
                high_mild: 2,
                high_severe: 1,
            }
        );
    }

    #[test]
    fn identical_values_have_no_outliers_and_empty_is_safe() {
        assert_eq!(count(&[5.0; 9]), Outliers::default());
        assert_eq!(count(&[]), Outliers::default());
    }
}
