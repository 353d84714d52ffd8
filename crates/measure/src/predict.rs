//! The model as a design aid: t(n) from a stored fit, with an interval.
//!
//! A fit stores α and β each with its 95% interval but not their
//! covariance (its round bootstrap is not kept), so the interval of
//! α + β·n cannot be the exact joint one. toll adds the intervals end to
//! end instead: [α_lo + β_lo·n, α_hi + β_hi·n] for n ≥ 0. Whatever the
//! covariance, that holds the joint interval (α and β at their extremes
//! together), so it errs wide — the conservative choice for a figure that
//! someone designs with.
//!
//! When the straight line does not describe the points and the fit holds
//! the two-segment model (see [`crate::model::Piecewise`]), the prediction
//! comes from the segment `n` falls in; the small segment's slope has no
//! stored interval, so its share of the interval is α's alone.

use crate::series::SeriesFit;
use serde::{Deserialize, Serialize};

/// Which model a prediction came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    /// The straight line α + β·n (the fit's primary, weighted line).
    Line,
    /// The piecewise model's small-size segment (n at or below the break).
    PiecewiseSmall,
    /// The piecewise model's large-size segment (n above the break).
    PiecewiseLarge,
}

/// A predicted time at one n.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// The n asked about.
    pub n: f64,
    /// Predicted time, ns.
    pub time_ns: f64,
    /// Conservative 95% interval of it, ns (see the module's note).
    pub ci_ns: (f64, f64),
    /// The model it came from.
    pub model: Model,
    /// Whether the straight line describes the measured points.
    pub line_fits: bool,
}

/// How the interval is made, in words for the report.
pub const CI_METHOD: &str = "α's and β's 95% intervals added end to end (no covariance of α and β is stored): conservative, at least as wide as the joint interval";

/// Predict t(`n`) from `fit`: the piecewise model when the line does not
/// fit and one is stored, else the line.
pub fn predict(fit: &SeriesFit, n: f64) -> Prediction {
    // A cost is never negative: each interval's lower end is cut at 0
    // (which loses no coverage), so t(n)'s is never below 0 either.
    let lo = |x: f64| x.max(0.0);
    let line_fits = fit.line_fits();
    let piecewise = fit.check.as_ref().and_then(|c| c.piecewise.as_ref());
    let (time_ns, ci_ns, model) = match piecewise {
        Some(p) if !line_fits => {
            if n <= p.break_n {
                let t = p.alpha + p.beta_small * n;
                let ci = (
                    lo(p.alpha_ci.0) + p.beta_small * n,
                    p.alpha_ci.1 + p.beta_small * n,
                );
                (t, ci, Model::PiecewiseSmall)
            } else {
                let at_break = p.beta_small * p.break_n;
                let past = n - p.break_n;
                let t = p.alpha + at_break + p.beta * past;
                let ci = (
                    lo(p.alpha_ci.0) + at_break + lo(p.beta_ci.0) * past,
                    p.alpha_ci.1 + at_break + p.beta_ci.1 * past,
                );
                (t, ci, Model::PiecewiseLarge)
            }
        }
        _ => {
            let f = fit.primary();
            let ci = (
                lo(f.alpha_ci.0) + lo(f.beta_ci.0) * n,
                f.alpha_ci.1 + f.beta_ci.1 * n,
            );
            (f.predict(n), ci, Model::Line)
        }
    };
    Prediction {
        n,
        // A line through noisy points can dip below 0 far out: a time is
        // never negative, and the interval (cut at 0) still holds it.
        time_ns: lo(time_ns),
        ci_ns: (lo(ci_ns.0.min(ci_ns.1)), lo(ci_ns.0.max(ci_ns.1))),
        model,
        line_fits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LackOfFit, ModelCheck, Piecewise, SmallEnd};
    use crate::series::{Fit, FitMethod};

    fn line(alpha: f64, alpha_ci: (f64, f64), beta: f64, beta_ci: (f64, f64)) -> Fit {
        Fit {
            method: FitMethod::WeightedLeastSquares,
            alpha,
            alpha_ci,
            beta,
            beta_ci,
            r2: 0.99,
            n_half: None,
        }
    }

    fn fit(check: Option<ModelCheck>) -> SeriesFit {
        let f = line(5000.0, (4800.0, 5200.0), 2.0, (1.9, 2.1));
        SeriesFit {
            least_squares: f.clone(),
            robust: f.clone(),
            weighted: Some(f),
            nonlinear: false,
            check,
            run_to_run: None,
            decision: None,
        }
    }

    fn check(fits: bool, piecewise: Option<Piecewise>) -> ModelCheck {
        ModelCheck {
            rounds: 10,
            small_end: SmallEnd {
                n: 0.0,
                measured: 5000.0,
                measured_ci: (4900.0, 5100.0),
                predicted_ci: (4800.0, 5200.0),
                difference_ci: (-100.0, 100.0),
                agrees: true,
            },
            lack_of_fit: LackOfFit {
                chi2: 1.0,
                df: 3,
                p: if fits { 0.5 } else { 1e-9 },
                worst_miss: 0.0,
                worst_at: 0.0,
                fits,
                largest: None,
            },
            piecewise,
            kept_line: None,
        }
    }

    #[test]
    fn the_line_with_its_intervals_end_to_end() {
        let p = predict(&fit(None), 100_000.0);
        assert_eq!(p.model, Model::Line);
        assert_eq!(p.time_ns, 5000.0 + 2.0 * 100_000.0);
        assert_eq!(p.ci_ns, (4800.0 + 190_000.0, 5200.0 + 210_000.0));
        assert!(p.line_fits);
        assert_eq!(predict(&fit(None), 0.0).ci_ns, (4800.0, 5200.0));
    }

    #[test]
    fn a_curve_uses_the_segment_n_falls_in() {
        let pw = Piecewise {
            alpha: 4000.0,
            alpha_ci: (3900.0, 4100.0),
            beta_small: 1.0,
            beta: 3.0,
            beta_ci: (2.8, 3.2),
            break_n: 10_000.0,
            split: (8000.0, 12_000.0),
        };
        let f = fit(Some(check(false, Some(pw))));
        let small = predict(&f, 5000.0);
        assert_eq!(small.model, Model::PiecewiseSmall);
        assert_eq!(small.time_ns, 9000.0);
        assert_eq!(small.ci_ns, (8900.0, 9100.0));
        let large = predict(&f, 20_000.0);
        assert_eq!(large.model, Model::PiecewiseLarge);
        assert_eq!(large.time_ns, 4000.0 + 10_000.0 + 30_000.0);
        assert_eq!(
            large.ci_ns,
            (3900.0 + 10_000.0 + 28_000.0, 4100.0 + 10_000.0 + 32_000.0)
        );
        assert!(!large.line_fits);
        // A line that does not fit, with no piecewise model: the line, flagged.
        let bare = predict(&fit(Some(check(false, None))), 100.0);
        assert_eq!((bare.model, bare.line_fits), (Model::Line, false));
    }
}
