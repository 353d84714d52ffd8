//! The model a table shows, chosen afresh on every resample.
//!
//! Which model a series gets — the line, or two segments split between
//! two sizes — is itself an estimate. Near the checks' thresholds one run
//! keeps the line and the next does not; the split can land between
//! either of two neighbouring sizes; and β moves with the choice. An
//! interval that holds the choice fixed cannot see that, so two runs'
//! intervals disagree though each looked firm.
//!
//! So every resample of the round bootstrap chooses again, by the same
//! rules on its own medians: its weighted line, the lack-of-fit test
//! against the points' replicate errors, the small end (the resample's
//! difference between measured and predicted, carried with the width of
//! the whole run's interval), and where the line is rejected the split
//! searched afresh ([`super::piecewise`]). The intervals of the model the
//! table shows are taken over the α and β that each resample chose — the
//! bootstrap after model selection (B. Efron, "Estimation and accuracy
//! after model selection", JASA 109, 2014). Where every resample chooses
//! alike they are the chosen model's own intervals; where the resamples
//! disagree they span both choices, as wide as the choice is uncertain.

use super::line::weighted_least_squares;
use super::piecewise::best_split;
use super::resample::Replicates;
use crate::model::{lack_of_fit, SmallEnd};

/// The share of resamples choosing the other model from which the model
/// choice counts as split (see [`crate::fit::fit_series`]).
pub const SPLIT_CHOICE: f64 = 0.1;

/// What each resample chose.
pub(crate) struct Choices {
    /// The chosen model's α, one a resample.
    pub(crate) alphas: Vec<f64>,
    /// The chosen model's β (the large segment's for two segments).
    pub(crate) betas: Vec<f64>,
    /// The share of resamples whose checks kept the line.
    pub(crate) kept_line: f64,
}

/// Each resample's choice (see the module) over sizes `ns` with the
/// pooled variances `var` (the weights) and replicate variances `own`
/// (the lack-of-fit test's), given the whole run's `small_end` check of
/// its line `at0` (its prediction at the smallest `n`). None for a case
/// bootstrap (one round: no resample holds every point).
pub(crate) fn choose(
    ns: &[f64],
    var: &[f64],
    own: &[f64],
    reps: &Replicates,
    at0: f64,
    small_end: &SmallEnd,
) -> Option<Choices> {
    if reps.is_case() || reps.count == 0 {
        return None;
    }
    let weights: Vec<f64> = var.iter().map(|v| 1.0 / v).collect();
    let shift = small_end.measured - at0;
    let (lo, hi) = small_end.difference_ci;
    let mut out = Choices {
        alphas: Vec::with_capacity(reps.count),
        betas: Vec::with_capacity(reps.count),
        kept_line: 0.0,
    };
    let mut kept = 0usize;
    let mut predicted = vec![0.0; ns.len()];
    for r in 0..reps.count {
        let meds = reps.medians(r);
        let Some(line) = weighted_least_squares(ns, meds, &weights) else {
            continue;
        };
        for (p, &n) in predicted.iter_mut().zip(ns) {
            *p = line.at(n);
        }
        let fits = lack_of_fit(ns, meds, &predicted, own, reps.rounds()).fits;
        let d = meds[0] - predicted[0];
        let agrees = d - (shift - lo) <= 0.0 && 0.0 <= d + (hi - shift);
        let piece = if fits && agrees {
            kept += 1;
            None
        } else {
            best_split(ns, meds, var)
        };
        match piece {
            Some(p) => {
                out.alphas.push(p.alpha);
                out.betas.push(p.beta);
            }
            None => {
                out.alphas.push(line.alpha);
                out.betas.push(line.beta);
            }
        }
    }
    out.kept_line = kept as f64 / reps.count as f64;
    Some(out)
}
