//! The checks of a series' primary line: the small end (does the line
//! meet the measurement at the smallest `n`?), the lack-of-fit test against
//! each point's replicate error, and where either fails the two-segment
//! model's point estimate. The check types and the test itself are
//! [`crate::model`]'s; this runs them over one series and its resamples.

use super::interval::ci;
use super::line::{weighted_least_squares, Line};
use super::piecewise::best_split;
use super::resample::Replicates;
use crate::model::{lack_of_fit, ModelCheck, SmallEnd};

/// The small end, the lack-of-fit test, and the piecewise model's point
/// estimate (its CIs are filled in by the caller's bootstrap), all of the
/// weighted line `line`, the series' primary model.
pub(crate) fn model_check(
    ns: &[f64],
    medians: &[f64],
    var: &[f64],
    own: &[f64],
    line: Line,
    reps: &Replicates,
) -> ModelCheck {
    let k = ns.len();
    let weights: Vec<f64> = var.iter().map(|v| 1.0 / v).collect();
    // The small end: the measured centre at the smallest n and the line's
    // prediction there, each with its bootstrap interval, and their
    // difference, paired resample by resample: the line agrees with the
    // measurement when the difference's interval holds 0.
    let mut measured: Vec<f64> = Vec::with_capacity(reps.count);
    let mut predicted = Vec::with_capacity(reps.count);
    let mut difference = Vec::with_capacity(reps.count);
    for r in 0..reps.count {
        let w = reps.weights(r, &weights);
        if let Some(l) = weighted_least_squares(&reps.ns(r), reps.medians(r), &w) {
            let m = reps.medians(r)[0];
            measured.push(m);
            predicted.push(l.at(ns[0]));
            difference.push(m - l.at(ns[0]));
        }
    }
    let df = reps.df();
    let at0 = line.at(ns[0]);
    let measured_ci = if reps.is_case() {
        (medians[0], medians[0])
    } else {
        ci(medians[0], &mut measured, df, false)
    };
    let predicted_ci = ci(at0, &mut predicted, df, false);
    let difference_ci = if reps.is_case() {
        // Resampled whole points say nothing about one point: compare the
        // measurement with the prediction's interval.
        (predicted_ci.0 - medians[0], predicted_ci.1 - medians[0])
    } else {
        ci(medians[0] - at0, &mut difference, df, false)
    };
    let small_end = SmallEnd {
        n: ns[0],
        measured: medians[0],
        measured_ci,
        predicted_ci,
        difference_ci,
        agrees: difference_ci.0 <= 0.0 && 0.0 <= difference_ci.1,
    };

    // Lack of fit of the line against each point's replicate error.
    let predicted: Vec<f64> = ns.iter().map(|&n| line.at(n)).collect();
    let lack_of_fit = lack_of_fit(ns, medians, &predicted, own, reps.rounds());
    let line_ok = lack_of_fit.fits && small_end.agrees;
    let piecewise = if line_ok || k < 4 {
        None
    } else {
        best_split(ns, medians, var)
    };
    ModelCheck {
        rounds: reps.rounds(),
        small_end,
        lack_of_fit,
        piecewise,
        kept_line: None,
    }
}
