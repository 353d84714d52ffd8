//! The knee rule: whether a series' centres bend away from one line (a
//! poor fit, or slopes at the two ends that differ threefold), and where a
//! cost per unit rises past a factor of its lowest.
//!
//! Read off the centres alone, without their noise: [`crate::fit::fit_series`]
//! lets the rule call a curve only where the lack-of-fit test also sees more
//! than noise ([`KNEE_P`]).

use super::line::{least_squares, r2};

/// The lack-of-fit p-value below which the knee rule may call a series a
/// curve (see [`crate::fit::fit_series`]).
pub const KNEE_P: f64 = 0.05;

/// Points needed before a series may be called nonlinear.
pub const NONLINEAR_MIN_POINTS: usize = 4;

/// The rule behind [`crate::fit::SeriesFit::nonlinear`], over the per-`n` centres
/// `medians` (with `ns` ascending; [`crate::fit::fit_series`] passes each size's 20%
/// trimmed mean). With at least [`NONLINEAR_MIN_POINTS`] distinct `n`,
/// the series is nonlinear when either
///
/// - **poor fit**: the least-squares line through the centres has R² < 0.9
///   *and* misses some centre by more than 10% of the largest centre; or
/// - **knee**: the least-squares slope over the last third of the points
///   (at least two) is more than 3× the slope over the first third, or the
///   first more than 3× the last (negative slopes count as 0), *and* that
///   change of slope, carried over the whole range of `n`, amounts to more
///   than 10% of the largest centre.
///
/// The 10% materiality guards keep a flat, noisy series (β ≈ 0, where R² and
/// slope ratios are pure noise) from being called a curve.
pub fn is_nonlinear(ns: &[f64], medians: &[f64]) -> bool {
    let k = ns.len().min(medians.len());
    if k < NONLINEAR_MIN_POINTS {
        return false;
    }
    let (ns, medians) = (&ns[..k], &medians[..k]);
    let Some(line) = least_squares(ns, medians) else {
        return false;
    };
    let scale = medians.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let material = 0.10 * scale;
    let worst_miss = ns
        .iter()
        .zip(medians)
        .map(|(&n, &m)| (m - (line.alpha + line.beta * n)).abs())
        .fold(0.0, f64::max);
    let poor_fit = r2(ns, medians, line) < 0.9 && worst_miss > material;

    let third = k.div_ceil(3).max(2);
    let first = least_squares(&ns[..third], &medians[..third]);
    let last = least_squares(&ns[k - third..], &medians[k - third..]);
    let knee = match (first, last) {
        (Some(first), Some(last)) => {
            let (a, b) = (first.beta.max(0.0), last.beta.max(0.0));
            let span = ns[k - 1] - ns[0];
            a.max(b) > 3.0 * a.min(b) && (b - a).abs() * span > material
        }
        _ => false,
    };
    poor_fit || knee
}

/// Where the cost per unit rises: the first `n` whose median cost per unit
/// is at least `factor` times the lowest median at any smaller `n` (E2's
/// Squeak spawn rose 8× past 20,000). `points` are (n, median cost per unit),
/// in increasing `n`. Returns (n, ratio).
pub fn cost_knee(points: &[(f64, f64)], factor: f64) -> Option<(f64, f64)> {
    let mut lowest = f64::INFINITY;
    for &(n, cost) in points {
        if lowest.is_finite() && lowest > 0.0 && cost / lowest >= factor {
            return Some((n, cost / lowest));
        }
        lowest = lowest.min(cost);
    }
    None
}
