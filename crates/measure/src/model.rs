//! Whether the straight line `t(n) = α + β·n` describes what was measured,
//! and the model that does when it does not.
//!
//! A fit can look firm and be wrong: a pipe's 64 KiB buffer puts a staircase
//! of wake-ups above it, and a line through the whole sweep then makes α an
//! extrapolation that no bootstrap over trials can see is off. So every fit
//! carries three checks, all computed from the same round bootstrap as its
//! confidence intervals (see [`crate::fit::fit_series`]):
//!
//! - **the small end**: the time measured at the smallest `n` (usually 0),
//!   with its CI, against the line's prediction there (α when `n` is 0):
//!   the interval of their difference, paired resample by resample, must
//!   hold 0;
//! - **lack of fit**: the points' distances from the line, each divided by
//!   its own replicate error (the bootstrap variance of its median), summed:
//!   a χ² statistic on k − 2 degrees of freedom (the classical lack-of-fit
//!   test against pure error, as in Draper & Smith, *Applied Regression
//!   Analysis*, ch. 2). The line is rejected when p < [`LACK_OF_FIT_P`] *and*
//!   some point misses it, beyond two of its own standard errors, by more
//!   than [`MATERIAL_MISS`] of its own value, so neither a very precise
//!   sweep is failed for a curvature nobody would design around, nor a noisy
//!   one for its noise;
//! - **a piecewise line** when either check fails (or the knee rule of
//!   [`crate::fit::is_nonlinear`] calls the points a curve): two least-squares lines
//!   over the per-`n` medians (weighted by their replicate error), split
//!   where the residual is smallest — α from the small-size segment, β from
//!   the large one, and the break between them (a pipe's buffer size, a
//!   cache's) — with CIs from the same bootstrap (see [`crate::fit`]'s `piecewise`).
//!
//! Which of the two a table shows is itself an estimate; every resample of
//! the bootstrap makes the choice afresh, and the shown model's intervals
//! count it (see [`crate::fit`]'s `choice`).

use serde::{Deserialize, Serialize};

/// A line is rejected only below this p-value of the lack-of-fit test.
pub const LACK_OF_FIT_P: f64 = 0.001;

/// …and only when some point misses it by more than this share of its value.
pub const MATERIAL_MISS: f64 = 0.05;

/// The checks of one fitted series, of its primary (weighted) line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCheck {
    /// Rounds (trials per point) behind the fit; the bootstrap resamples them.
    pub rounds: usize,
    /// The smallest `n` as measured against the line's prediction there.
    pub small_end: SmallEnd,
    /// The lack-of-fit test of the line.
    pub lack_of_fit: LackOfFit,
    /// The two-segment model, when the line does not describe the points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub piecewise: Option<Piecewise>,
    /// The share of the bootstrap's resamples whose own checks kept the
    /// line (see [`crate::fit`]'s `choice`): 1 or 0 where every resample chose
    /// alike; between, the shown model's intervals span both choices.
    /// Absent for one round (nothing to resample) and in older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_line: Option<f64>,
}

impl ModelCheck {
    /// The straight line describes the points: no lack of fit, and it agrees
    /// with what was measured at the small end.
    pub fn line_fits(&self) -> bool {
        self.lack_of_fit.fits && self.small_end.agrees
    }
}

/// The time measured at the smallest `n` against the line's prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmallEnd {
    /// The smallest `n` of the series.
    pub n: f64,
    /// Median time measured there, ns.
    pub measured: f64,
    /// 95% CI of that median (round bootstrap).
    pub measured_ci: (f64, f64),
    /// 95% CI of the line's prediction at `n` (α's CI when `n` is 0).
    pub predicted_ci: (f64, f64),
    /// 95% CI of measured − predicted, paired resample by resample.
    pub difference_ci: (f64, f64),
    /// That interval holds 0: the line describes the small end.
    pub agrees: bool,
}

/// The lack-of-fit test: χ² = Σ (median − line)² / var(median).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LackOfFit {
    /// The statistic.
    pub chi2: f64,
    /// Degrees of freedom, points − 2.
    pub df: usize,
    /// Upper-tail probability of χ² on `df` degrees of freedom.
    pub p: f64,
    /// The largest miss of a point's centre from the line beyond two of its
    /// standard errors, as a share of that centre.
    pub worst_miss: f64,
    /// Where that miss is.
    pub worst_at: f64,
    /// The line is not rejected (see the module's rule).
    pub fits: bool,
    /// The size the line misses most, as a share of the point's centre
    /// (signed: above 0 when the point lies above the line), and the
    /// share its own 95% noise spans either side (two standard errors):
    /// what a person reads the fit by. None in runs stored before them.
    #[serde(default)]
    pub largest: Option<LargestMiss>,
}

/// The size a line misses most, and by how much beside its own noise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LargestMiss {
    /// The size, n.
    pub at: f64,
    /// (median − line) ÷ median.
    pub share: f64,
    /// 2 × the median's standard error ÷ median.
    pub noise: f64,
}

/// Two lines: α and a slope over the small sizes, β over the large ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Piecewise {
    /// Intercept of the small-size segment, ns.
    pub alpha: f64,
    /// Its 95% CI.
    pub alpha_ci: (f64, f64),
    /// Slope of the small-size segment, ns per unit.
    pub beta_small: f64,
    /// Slope of the large-size segment, ns per unit.
    pub beta: f64,
    /// Its 95% CI.
    pub beta_ci: (f64, f64),
    /// Where the segments meet (their crossing, kept between the last small
    /// and the first large `n`).
    pub break_n: f64,
    /// The last `n` of the small segment and the first of the large one.
    pub split: (f64, f64),
}

/// The lack-of-fit test of a line over `medians` at `ns`, which it puts
/// at `predicted`, against each point's replicate variance `own`; `rounds`
/// behind the medians (with one there is no replicate error, and no test).
pub(crate) fn lack_of_fit(
    ns: &[f64],
    medians: &[f64],
    predicted: &[f64],
    own: &[f64],
    rounds: usize,
) -> LackOfFit {
    let k = ns.len();
    let chi2: f64 = (0..k)
        .map(|g| (medians[g] - predicted[g]).powi(2) / own[g])
        .sum();
    let df = k.saturating_sub(2);
    // The worst miss counts only beyond two of the point's own standard
    // errors: a miss within its noise is no evidence of a curve.
    let (worst_at, worst_miss) = (0..k)
        .map(|g| {
            let beyond = ((medians[g] - predicted[g]).abs() - 2.0 * own[g].sqrt()).max(0.0);
            (ns[g], beyond / medians[g].abs().max(1e-9))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((ns.first().copied().unwrap_or(0.0), 0.0));
    let largest = (0..k)
        .map(|g| {
            let centre = medians[g].abs().max(1e-9);
            LargestMiss {
                at: ns[g],
                share: (medians[g] - predicted[g]) / centre,
                noise: 2.0 * own[g].max(0.0).sqrt() / centre,
            }
        })
        .max_by(|a, b| a.share.abs().total_cmp(&b.share.abs()));
    let p = if rounds >= 2 && df > 0 {
        chi2_upper_tail(chi2, df)
    } else {
        1.0
    };
    LackOfFit {
        chi2,
        df,
        p,
        worst_miss,
        worst_at,
        fits: !(p < LACK_OF_FIT_P && worst_miss > MATERIAL_MISS),
        largest,
    }
}

/// Upper tail of the χ² distribution with `df` degrees of freedom at `x`:
/// Q(df/2, x/2), the regularized upper incomplete gamma function, by its
/// series below a + 1 and its continued fraction above (Numerical Recipes,
/// 3rd ed., §6.2).
pub fn chi2_upper_tail(x: f64, df: usize) -> f64 {
    if df == 0 || !x.is_finite() {
        return if x.is_finite() { 1.0 } else { 0.0 };
    }
    if x <= 0.0 {
        return 1.0;
    }
    let a = df as f64 / 2.0;
    let x = x / 2.0;
    let ln_prefix = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        // P(a, x) by its series; Q = 1 − P.
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..500 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        (1.0 - sum * ln_prefix.exp()).clamp(0.0, 1.0)
    } else {
        // Q(a, x) by Lentz's continued fraction.
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..500 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (ln_prefix.exp() * h).clamp(0.0, 1.0)
    }
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let mut s = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        s += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + s.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chi2_tail_matches_tables() {
        // Critical values from standard χ² tables.
        for (x, df, p) in [
            (3.841, 1, 0.05),
            (6.635, 1, 0.01),
            (5.991, 2, 0.05),
            (18.307, 10, 0.05),
            (23.209, 10, 0.01),
            (29.588, 10, 0.001),
            (124.342, 100, 0.05),
        ] {
            let got = chi2_upper_tail(x, df);
            assert!(
                (got - p).abs() < 0.02 * p,
                "χ²({df}) at {x}: {got}, want {p}"
            );
        }
        assert_eq!(chi2_upper_tail(0.0, 3), 1.0);
        assert!(chi2_upper_tail(1e6, 3) < 1e-12);
        assert!((chi2_upper_tail(2.0, 2) - (-1.0f64).exp()).abs() < 1e-12);
    }

    #[test]
    fn the_largest_miss_is_named_with_its_own_noise_even_within_it() {
        // The line misses n = 1000 by 9% (43.7 against 40.0), inside that
        // point's noise (its standard error 3): no miss beyond the noise,
        // but the size it misses most is still named, with the share.
        let ns = [0.0, 1000.0, 2000.0, 4000.0];
        let medians = [30.0, 43.7, 50.0, 70.0];
        let predicted = [30.0, 40.0, 50.0, 70.0];
        let own = [1.0, 9.0, 1.0, 1.0];
        let l = lack_of_fit(&ns, &medians, &predicted, &own, 10);
        assert_eq!(l.worst_miss, 0.0, "within two standard errors");
        let m = l.largest.unwrap();
        assert_eq!(m.at, 1000.0);
        assert!((m.share - 3.7 / 43.7).abs() < 1e-12, "{m:?}");
        assert!((m.noise - 6.0 / 43.7).abs() < 1e-12, "{m:?}");
        assert!(m.share.abs() < m.noise);
    }

    #[test]
    fn ln_gamma_is_right_at_known_points() {
        assert!(ln_gamma(1.0).abs() < 1e-12);
        assert!((ln_gamma(5.0) - 24.0f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }
}
