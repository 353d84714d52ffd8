//! The ratio of two sets of times, with a bootstrap CI.
//!
//! Paired: run i of both commands was taken in the same round (toll runs
//! commands interleaved), so a round is resampled whole and drift of the
//! machine during the comparison widens the interval instead of biasing it.
//! Unpaired (a stored baseline against today's runs): each side is
//! resampled on its own. The statistic is the ratio of medians; the seed is
//! fixed, so the same times always give the same interval.

use crate::bootstrap::{interval, LEVEL, SEED};
use crate::quantile::median_in_place;
use fastrand::Rng;

/// Resamples behind a ratio's interval.
pub const RATIO_RESAMPLES: usize = 2000;

/// median(`other`) / median(`base`) with its 95% interval; None when
/// either is empty or the base median is not positive.
pub fn median_ratio(base: &[f64], other: &[f64], paired: bool) -> Option<(f64, f64, f64)> {
    if base.is_empty() || other.is_empty() {
        return None;
    }
    let m = |v: &[f64]| median_in_place(&mut v.to_vec());
    let (mb, mo) = (m(base), m(other));
    if mb.is_nan() || mb <= 0.0 || !mo.is_finite() {
        return None;
    }
    let paired = paired && base.len() == other.len();
    let mut rng = Rng::with_seed(SEED);
    let (mut bb, mut ob) = (vec![0.0; base.len()], vec![0.0; other.len()]);
    let mut stats = Vec::with_capacity(RATIO_RESAMPLES);
    for _ in 0..RATIO_RESAMPLES {
        if paired {
            for (b, o) in bb.iter_mut().zip(ob.iter_mut()) {
                let i = rng.usize(..base.len());
                (*b, *o) = (base[i], other[i]);
            }
        } else {
            bb.iter_mut()
                .for_each(|b| *b = base[rng.usize(..base.len())]);
            ob.iter_mut()
                .for_each(|o| *o = other[rng.usize(..other.len())]);
        }
        let d = median_in_place(&mut bb);
        if d > 0.0 {
            stats.push(median_in_place(&mut ob) / d);
        }
    }
    let (lo, hi) = interval(&mut stats, LEVEL);
    Some((mo / mb, lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_ratio_lies_in_its_interval() {
        let base: Vec<f64> = (0..30).map(|i| 100.0 + (i % 5) as f64).collect();
        let other: Vec<f64> = base.iter().map(|v| v * 2.0).collect();
        let (r, lo, hi) = median_ratio(&base, &other, true).unwrap();
        assert_eq!(r, 2.0);
        // Paired, every round's ratio is exactly 2 — but medians of a
        // resample need not pair up, so the interval is narrow, not a point.
        assert!(lo <= 2.0 && 2.0 <= hi && hi - lo < 0.1, "[{lo}, {hi}]");
        let (r, lo, hi) = median_ratio(&base, &other, false).unwrap();
        assert_eq!(r, 2.0);
        assert!(lo <= 2.0 && 2.0 <= hi, "[{lo}, {hi}]");
        assert!(median_ratio(&[], &other, true).is_none());
        assert!(median_ratio(&[0.0], &[1.0], true).is_none());
    }

    #[test]
    fn paired_rounds_cancel_drift() {
        // Both commands drift upwards together, 1% a round: the paired
        // interval stays tight around 1.5, the unpaired one is wider.
        let base: Vec<f64> = (0..40).map(|i| 100.0 * 1.01f64.powi(i)).collect();
        let other: Vec<f64> = base.iter().map(|v| v * 1.5).collect();
        let (_, plo, phi) = median_ratio(&base, &other, true).unwrap();
        let (_, ulo, uhi) = median_ratio(&base, &other, false).unwrap();
        assert!(
            phi - plo < uhi - ulo,
            "paired [{plo}, {phi}] unpaired [{ulo}, {uhi}]"
        );
    }
}
