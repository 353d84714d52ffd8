//! The cost model `t(n) = α + β·n`: least squares, a robust and a weighted
//! fit, with CIs, and the checks that say whether a line is the right model.
//!
//! Least squares is the textbook fit over every sample; the robust one is
//! the Theil–Sen estimator (H. Theil 1950; P. K. Sen 1968) over the per-`n`
//! centres (each size's 20% trimmed mean of its trials): β is the median of
//! the slopes between every two points, α the median of t − β·n. A trimmed
//! centre shrugs off wild trials at one `n`, and Theil–Sen up to ~29% wild
//! points, where one straggler at a large `n` can tilt least squares. Each
//! confidence interval is the estimate ± Student's t times its standard
//! error from a bootstrap over rounds (see [`fit_series`]);
//! [`crate::model`] holds the checks.
//!
//! The maths lives in leaf modules that never import this one: `line`
//! (the estimators), `resample` (the round bootstrap), `variance`,
//! `interval` (an estimate's CI from its resamples), `check` (the small
//! end and lack of fit), `piecewise` (the two-segment model), `choice`
//! (the model each resample chooses), `knee` (the knee rule) and `steps`
//! (a staircase's levels, for the memory chase). What a
//! fitted series holds is the crate's `series` module, below this one and the
//! modules that widen and decide it. This module is the orchestrator:
//! [`fit_series`] runs them in order over one series.

mod check;
mod choice;
mod interval;
mod knee;
mod line;
mod piecewise;
mod resample;
mod steps;
mod variance;

pub use crate::series::{Fit, FitMethod, SeriesFit};
pub use choice::SPLIT_CHOICE;
pub use interval::t_quantile_95;
pub use knee::{cost_knee, is_nonlinear, KNEE_P, NONLINEAR_MIN_POINTS};
pub use resample::{resamples_for, FIT_RESAMPLES};
pub use steps::{steps, Step};

use check::model_check;
use interval::ci;
use line::{least_squares, r2, theil_sen, weighted_least_squares, Line};
use piecewise::best_split;
use resample::{centre, groups, Replicates};
use variance::{pooled_variances, replicate_variances};

/// The two-segment model fitted by itself, for a series whose break may
/// lie anywhere (a load sweep's latency against offered rate): the split
/// of `xs` (ascending) with the least total residual of `ys` weighted by
/// 1/`var`, two points at least on each side, its crossing kept between
/// them. CIs are left at the point estimates. None under four points.
pub fn two_segments(xs: &[f64], ys: &[f64], var: &[f64]) -> Option<crate::model::Piecewise> {
    piecewise::split_below(xs, ys, var, f64::INFINITY)
}

/// Fewest sizes a line is fitted through: two sizes fix a line exactly and
/// leave nothing to check it against.
pub const MIN_SIZES: usize = 3;

/// Fit a series: `points` holds, for each `n`, the per-op times of its
/// trials, trial i of every `n` measured in round i (the engine measures
/// every size once per round). Returns None with fewer than three distinct `n`
/// ([`MIN_SIZES`]): two sizes fix a line and leave nothing to test it by.
///
/// Non-finite values are ignored and entries with equal `n` are merged.
///
/// - **Least squares** runs over every sample.
/// - **Robust**: Theil–Sen over the per-`n` centres (each the 20% trimmed
///   mean of its trials). One estimator for the figure and its CI, and
///   memory bounded by the number of sizes (k²/2 slopes), whatever the
///   number of trials.
/// - **Weighted**: least squares over the centres, weighted by the inverse
///   of each centre's variance (the pooled relative bootstrap variance
///   times its centre², see `variance`), so a noisy point pulls less.
///
/// Intervals come from a **round bootstrap**: the rounds are resampled with
/// replacement — a round keeps its value at every `n` together, so slow
/// drift of the machine and model error widen the intervals, not only the
/// scatter within a point — every line is refitted to each resample, and
/// the interval is the estimate ± Student's t (rounds − 1 degrees of
/// freedom) times the resamples' standard deviation (see `ci`). A size with fewer trials
/// than the others draws the missing ones from its own trials. With a single
/// round there is nothing to resample across rounds, so whole points are
/// resampled instead (a case bootstrap). Seeded: the same points always give
/// the same intervals. The same resamples give the [`ModelCheck`](crate::model::ModelCheck).
pub fn fit_series(points: &[(f64, Vec<f64>)]) -> Option<SeriesFit> {
    let groups = groups(points);
    if groups.len() < MIN_SIZES {
        return None;
    }
    let xs: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.trials.iter().map(|_| g.n))
        .collect();
    let ys: Vec<f64> = groups
        .iter()
        .flat_map(|g| g.trials.iter().copied())
        .collect();
    let ns: Vec<f64> = groups.iter().map(|g| g.n).collect();
    let medians: Vec<f64> = groups
        .iter()
        .map(|g| centre(&mut g.trials.clone()))
        .collect();
    let ols = least_squares(&xs, &ys)?;
    let ts = theil_sen(&ns, &medians, &mut Vec::new())?;

    let reps = Replicates::draw(&groups);
    let var = pooled_variances(&reps, &medians);
    let weights: Vec<f64> = var.iter().map(|v| 1.0 / v).collect();
    let wls = weighted_least_squares(&ns, &medians, &weights)?;

    let own = replicate_variances(&reps, &var);
    let mut check = model_check(&ns, &medians, &var, &own, wls, &reps);
    // The knee rule reads slopes off the medians without their noise: it
    // counts only where the lack-of-fit test also sees more than noise
    // (p < 0.05), so a flat, noisy series is not called a curve while its
    // own checks, and the resamples, keep the line.
    let knee = is_nonlinear(&ns, &medians) && check.lack_of_fit.p < KNEE_P;
    let nonlinear = knee || !check.line_fits();
    if nonlinear && check.piecewise.is_none() {
        // The knee rule called it a curve where the checks did not: the
        // table says `curve`, so it shows the model that goes with it.
        check.piecewise = best_split(&ns, &medians, &var);
    }
    let choices = choice::choose(&ns, &var, &own, &reps, wls.at(ns[0]), &check.small_end);

    // Every line refitted on every resample.
    let (mut ols_r, mut ts_r, mut wls_r) = (vec![], vec![], vec![]);
    let mut scratch = Vec::new();
    for r in 0..reps.count {
        let (means, meds) = (reps.means(r), reps.medians(r));
        let counts: Vec<f64> = reps.counts(r);
        if let Some(l) = weighted_least_squares(&reps.ns(r), means, &counts) {
            ols_r.push(l);
        }
        if let Some(l) = theil_sen(&reps.ns(r), meds, &mut scratch) {
            ts_r.push(l);
        }
        if let Some(l) = weighted_least_squares(&reps.ns(r), meds, &reps.weights(r, &weights)) {
            wls_r.push(l);
        }
    }
    let df = reps.df();
    let cis = |lines: &[Line], est: Line| {
        let mut a: Vec<f64> = lines.iter().map(|l| l.alpha).collect();
        let mut b: Vec<f64> = lines.iter().map(|l| l.beta).collect();
        [
            ci(est.alpha, &mut a, df, false),
            ci(est.beta, &mut b, df, false),
        ]
    };
    // The model the table shows takes its intervals over each resample's
    // own choice of model (see `choice`).
    let mut wls_cis = cis(&wls_r, wls);
    if let Some(mut c) = choices {
        check.kept_line = Some(c.kept_line);
        // Where nine resamples in ten or more chose alike, the few others
        // are stragglers, not a second model: the robust spread. Where they
        // truly split, the standard deviation, which spans both models.
        let robust = !(SPLIT_CHOICE..=1.0 - SPLIT_CHOICE).contains(&c.kept_line);
        let mut betas = c.betas.clone();
        match check.piecewise.as_mut() {
            Some(p) => {
                p.alpha_ci = ci(p.alpha, &mut c.alphas, df, robust);
                p.beta_ci = ci(p.beta, &mut betas, df, robust);
            }
            None => {
                wls_cis = [
                    ci(wls.alpha, &mut c.alphas, df, robust),
                    ci(wls.beta, &mut betas, df, robust),
                ]
            }
        }
    }
    Some(SeriesFit {
        least_squares: fit(FitMethod::LeastSquares, ols, cis(&ols_r, ols), &xs, &ys),
        robust: fit(FitMethod::TheilSen, ts, cis(&ts_r, ts), &xs, &ys),
        weighted: Some(fit(FitMethod::WeightedLeastSquares, wls, wls_cis, &xs, &ys)),
        nonlinear,
        check: Some(check),
        run_to_run: None,
        decision: None,
    })
}

fn fit(method: FitMethod, line: Line, cis: [(f64, f64); 2], xs: &[f64], ys: &[f64]) -> Fit {
    // Only when β is clearly positive: on a flat series, noise in β would give
    // a meaningless, huge n½.
    let n_half =
        (line.alpha > 0.0 && line.beta > 0.0 && cis[1].0 > 0.0).then(|| line.alpha / line.beta);
    Fit {
        method,
        alpha: line.alpha,
        alpha_ci: cis[0],
        beta: line.beta,
        beta_ci: cis[1],
        r2: r2(xs, ys, line),
        n_half,
    }
}

#[cfg(test)]
mod coverage_tests;
#[cfg(test)]
mod tests;
