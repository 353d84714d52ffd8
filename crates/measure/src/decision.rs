//! One decision per series, made once when the series is stored.
//!
//! A fitted series can be read several ways — the straight line or the two
//! segments, the line's α or the segments', a verdict from the checks, the
//! knee rule, the points' spread and the machine's load — and when every
//! view made that reading for itself, one run showed different models and
//! verdicts in its table, `toll show`, the report, the board and `toll
//! compare`. So the reading is made here, once, when a family stores the
//! fit ([`decide`]), and kept inside the fit ([`SeriesFit::decision`]);
//! every view renders what is stored. Runs stored before the decision
//! existed get it when they are read, from the same function.
//!
//! The figures are positive quantities — a fixed cost, a cost per unit —
//! so their intervals are the computed ones intersected with [0, ∞): a
//! true value is never negative, so cutting the negative part loses no
//! coverage. Where the interval reaches 0 the figure is [`Sign::NearZero`]
//! and is printed `≈ 0`; where all of it lies below 0 the line does not
//! reach the small end ([`Sign::BelowZero`]) and no figure is printed.

pub use crate::fit::MIN_SIZES;
pub use crate::series::decision::{Decision, Figure, ModelKind, Sign, Verdict, FIT_LEVEL};

use crate::series::run_to_run::RunToRun;
use crate::series::SeriesFit;
use crate::summary::Summary;

/// What a series was measured under, beside its fit.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// β is a cost per unit of work (spawn, ring), where an interval
    /// reaching 0 is noise rather than a flat link.
    pub per_unit: bool,
    /// The share of the CPUs other processes used while it was measured.
    pub others_busy: Option<f64>,
    /// Each measured size with its summary.
    pub points: Vec<(f64, Summary)>,
}

/// Decide a fitted series (see the module) and keep the decision in it.
pub fn decide(fit: &mut SeriesFit, ctx: &Context) {
    fit.decision = Some(decision(fit, ctx));
}

/// The decision on `fit` under `ctx`, without storing it.
pub fn decision(fit: &SeriesFit, ctx: &Context) -> Decision {
    let line = fit.primary();
    let piece = (!fit.line_fits())
        .then(|| fit.check.as_ref().and_then(|c| c.piecewise.as_ref()))
        .flatten();
    // The run's own intervals: the run-to-run term keeps them for the model
    // the tables show (the line's, or the two segments' where the line
    // does not fit).
    let within = fit.run_to_run.as_ref();
    let own = |ci: (f64, f64), w: fn(&RunToRun) -> (f64, f64)| within.map_or(ci, w);
    let (model, alpha, beta) = match piece {
        Some(p) => (
            ModelKind::TwoSegments,
            Figure::new(p.alpha, p.alpha_ci, own(p.alpha_ci, |w| w.alpha_ci_within)),
            Figure::new(p.beta, p.beta_ci, own(p.beta_ci, |w| w.beta_ci_within)),
        ),
        None => (
            ModelKind::Line,
            Figure::new(
                line.alpha,
                line.alpha_ci,
                own(line.alpha_ci, |w| w.alpha_ci_within),
            ),
            Figure::new(
                line.beta,
                line.beta_ci,
                own(line.beta_ci, |w| w.beta_ci_within),
            ),
        ),
    };
    let noisy_sizes: Vec<f64> = ctx
        .points
        .iter()
        .filter(|(_, s)| s.too_noisy)
        .map(|(n, _)| *n)
        .collect();
    let beta_reaches_zero = beta.sign != Sign::Positive;
    let verdict = if !fit.line_fits() {
        Verdict::Curve
    } else if beta_reaches_zero {
        if ctx.per_unit {
            Verdict::Noisy
        } else {
            Verdict::Flat
        }
    } else if !noisy_sizes.is_empty() {
        Verdict::Noisy
    } else {
        Verdict::Ok
    };
    let largest = ctx.points.iter().map(|(n, _)| *n).fold(f64::NAN, f64::max);
    let at_largest = largest.is_finite().then(|| {
        let t = match model {
            ModelKind::Line => line.predict(largest),
            ModelKind::TwoSegments => ctx
                .points
                .iter()
                .find(|(n, _)| *n == largest)
                .map_or(f64::NAN, |(_, s)| s.median),
        };
        (largest, t)
    });
    let n_half = match (alpha.shown(), beta.shown()) {
        (Some(a), Some(b)) => Some(a / b),
        _ => None,
    };
    Decision {
        model,
        verdict,
        busy: ctx.others_busy.is_some_and(|b| b > crate::env::BUSY_SHARE),
        alpha,
        beta,
        break_n: piece.map(|p| p.break_n),
        n_half,
        at_largest: at_largest.filter(|(_, t)| t.is_finite()),
        noisy_sizes,
        widened: within.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::fit_series;

    fn series(f: impl Fn(f64) -> f64, ns: &[f64], wobble: f64) -> Vec<(f64, Vec<f64>)> {
        ns.iter()
            .map(|&n| {
                let t = f(n);
                (
                    n,
                    (0..10u64)
                        .map(|i| {
                            // A fixed scatter, different at every size.
                            let h =
                                (i + 1).wrapping_mul(n as u64 + 7).wrapping_mul(2654435761) % 1000;
                            t * (1.0 + wobble * (h as f64 / 500.0 - 1.0))
                        })
                        .collect(),
                )
            })
            .collect()
    }

    fn ctx(points: &[(f64, Vec<f64>)]) -> Context {
        Context {
            per_unit: false,
            others_busy: Some(0.0),
            points: points.iter().map(|(n, v)| (*n, Summary::of(v))).collect(),
        }
    }

    #[test]
    fn a_clean_line_is_ok_with_positive_figures() {
        let pts = series(
            |n| 1000.0 + 2.0 * n,
            &[0.0, 10.0, 100.0, 1000.0, 5000.0],
            0.002,
        );
        let fit = fit_series(&pts).unwrap();
        let d = decision(&fit, &ctx(&pts));
        assert_eq!(
            (d.model, d.verdict, d.busy),
            (ModelKind::Line, Verdict::Ok, false)
        );
        assert_eq!(d.alpha.sign, Sign::Positive);
        assert!(
            d.alpha.ci.0 < 1000.0 && 1000.0 < d.alpha.ci.1,
            "{:?}",
            d.alpha
        );
        assert!((d.n_half.unwrap() - 500.0).abs() < 50.0);
        assert_eq!(d.words(), "ok");
        let (n, t) = d.at_largest.unwrap();
        assert_eq!(n, 5000.0);
        assert!((t - 11000.0).abs() < 100.0, "{t}");
    }

    #[test]
    fn a_cost_that_cannot_be_told_from_zero_is_near_zero_never_negative() {
        // β = 0 with noise: its interval straddles 0.
        let pts = series(|_| 5000.0, &[0.0, 10.0, 100.0, 1000.0, 2000.0], 0.02);
        let fit = fit_series(&pts).unwrap();
        let d = decision(&fit, &ctx(&pts));
        assert_eq!(d.beta.sign, Sign::NearZero);
        assert!(d.beta.ci.0 >= 0.0 && d.beta.within_ci.0 >= 0.0);
        assert_eq!(d.verdict, Verdict::Flat);
        assert!(d.n_half.is_none());
        let per_unit = Context {
            per_unit: true,
            ..ctx(&pts)
        };
        assert_eq!(decision(&fit, &per_unit).verdict, Verdict::Noisy);
    }

    #[test]
    fn a_staircase_is_a_curve_with_its_break_and_the_measured_end() {
        let step = |n: f64| {
            if n < 3000.0 {
                1000.0 + n
            } else {
                40_000.0 + 10.0 * n
            }
        };
        let ns: Vec<f64> = (0..12).map(|i| f64::from(i) * 1000.0).collect();
        let pts = series(step, &ns, 0.001);
        let fit = fit_series(&pts).unwrap();
        let d = decision(&fit, &ctx(&pts));
        assert_eq!(
            (d.model, d.verdict),
            (ModelKind::TwoSegments, Verdict::Curve)
        );
        assert!(d.break_n.is_some());
        assert!(d.words().starts_with("curve, break ≈ "), "{}", d.words());
        let (n, t) = d.at_largest.unwrap();
        assert_eq!(n, 11000.0);
        assert!((t - step(11000.0)).abs() / step(11000.0) < 0.01);
    }

    #[test]
    fn busy_comes_first_in_the_words() {
        let pts = series(|n| 1000.0 + 2.0 * n, &[0.0, 10.0, 100.0, 1000.0], 0.002);
        let fit = fit_series(&pts).unwrap();
        let busy = Context {
            others_busy: Some(0.5),
            ..ctx(&pts)
        };
        assert_eq!(decision(&fit, &busy).words(), "busy; ok");
    }
}
