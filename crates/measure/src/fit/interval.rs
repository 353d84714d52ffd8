//! The 95% interval of an estimate from its bootstrap replicates: the
//! estimate ± Student's t times their spread.
//!
//! A percentile interval of a bootstrap over ten rounds is too narrow (it
//! cannot see past the spread of ten values); the t factor on the rounds'
//! degrees of freedom is the small-sample correction.

use crate::bootstrap::{self, interval};
use crate::quantile::median_in_place;

/// Student's t quantile for a two-sided 95% interval on `df` degrees of
/// freedom (from the standard table; 1.96 + 2.4/df past 30).
pub fn t_quantile_95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        _ => 1.96 + 2.4 / df as f64,
    }
}

/// The 95% interval of an estimate from its bootstrap replicates: the
/// estimate ± t·(their standard deviation), with Student's t on `df`
/// degrees of freedom (the rounds less one). A percentile interval of a
/// bootstrap over ten rounds is too narrow (it cannot see past the spread
/// of ten values); the t factor is the small-sample correction. With no
/// spread in the replicates the interval is the estimate itself. `robust`
/// takes their spread by the median absolute deviation instead of the
/// standard deviation (see the body).
pub(crate) fn ci(estimate: f64, replicates: &mut Vec<f64>, df: usize, robust: bool) -> (f64, f64) {
    replicates.retain(|x| x.is_finite());
    if replicates.len() < 2 {
        return (estimate, estimate);
    }
    let sd = if robust {
        // By the median absolute deviation, scaled to a normal σ: a few
        // resamples whose own checks chose the other model (2–3% where the
        // line plainly fits) would inflate a standard deviation and make a
        // 95% interval cover 99% (checked two-sided in the coverage tests).
        let mut sorted = replicates.clone();
        let centre = median_in_place(&mut sorted);
        let mut dev: Vec<f64> = replicates.iter().map(|x| (x - centre).abs()).collect();
        1.4826 * median_in_place(&mut dev)
    } else {
        let mean = replicates.iter().sum::<f64>() / replicates.len() as f64;
        (replicates.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (replicates.len() - 1) as f64)
            .sqrt()
    };
    let half = t_quantile_95(df) * sd;
    if !half.is_finite() {
        return interval(replicates, bootstrap::LEVEL);
    }
    (estimate - half, estimate + half)
}
