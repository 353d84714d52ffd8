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

use crate::bootstrap::{self, interval};
use crate::choice;
use crate::decision::{Decision, MIN_SIZES};
use crate::model::{lack_of_fit, ModelCheck, SmallEnd};
use crate::piecewise::best_split;
use crate::quantile::median_in_place;
use crate::resample::{centre, Group, Replicates};
use crate::run_to_run::RunToRun;
use serde::{Deserialize, Serialize};

/// How a line was fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FitMethod {
    /// Ordinary least squares over every sample.
    LeastSquares,
    /// Theil–Sen: median of pairwise slopes, median intercept.
    TheilSen,
    /// Least squares over the per-`n` centres (20% trimmed means), weighted
    /// by their precision.
    WeightedLeastSquares,
}

/// One fitted line with 95% confidence intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// The estimator that produced this line.
    pub method: FitMethod,
    /// Fixed cost per crossing, α (the intercept), ns.
    pub alpha: f64,
    /// 95% confidence interval of α: α ± t·(its bootstrap standard error).
    pub alpha_ci: (f64, f64),
    /// Cost per unit of `n`, β (the slope), ns.
    pub beta: f64,
    /// 95% confidence interval of β: β ± t·(its bootstrap standard error).
    pub beta_ci: (f64, f64),
    /// 1 − SS_res/SS_tot of this line over every sample (0 when SS_tot is 0).
    pub r2: f64,
    /// α/β when α is positive and β's whole CI is above 0.
    pub n_half: Option<f64>,
}

impl Fit {
    /// Predicted time at `n`.
    pub fn predict(&self, n: f64) -> f64 {
        self.alpha + self.beta * n
    }
}

/// Both fits of one series, plus a flag when a straight line does not fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesFit {
    /// Ordinary least squares over every sample.
    pub least_squares: Fit,
    /// Theil–Sen over the per-`n` centres (20% trimmed means).
    pub robust: Fit,
    /// Least squares over the per-`n` centres, each weighted by the inverse
    /// of its replicate variance (absent in runs stored before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weighted: Option<Fit>,
    /// Set when the line fits poorly (a knee or curve); see [`is_nonlinear`]
    /// and [`ModelCheck::line_fits`].
    pub nonlinear: bool,
    /// The small end, the lack-of-fit test and the piecewise model (absent
    /// in runs stored before they existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<ModelCheck>,
    /// The between-run term the CIs were widened by, with the within-run
    /// CIs (absent in runs stored before it existed, whose CIs are
    /// within-run): see [`crate::run_to_run`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_to_run: Option<RunToRun>,
    /// The model, verdict and figures every view shows, decided once when
    /// the series was stored (absent in runs stored before it existed,
    /// which are decided as they are read): see [`crate::decision`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
}

impl SeriesFit {
    /// The model the tables print: the weighted line over the centres, or
    /// Theil–Sen in runs stored before the weighted fit existed.
    pub fn primary(&self) -> &Fit {
        self.weighted.as_ref().unwrap_or(&self.robust)
    }

    /// The straight line describes the points (true for runs stored before
    /// the checks existed, which cannot tell).
    pub fn line_fits(&self) -> bool {
        !self.nonlinear && self.check.as_ref().is_none_or(ModelCheck::line_fits)
    }
}

/// Bootstrap resamples behind every CI of a fit (fewer for very long sweeps:
/// see [`resamples_for`]).
pub const FIT_RESAMPLES: usize = 1000;

/// A fit's bootstrap does about this many pairwise slopes at most, so a
/// sweep of a thousand sizes still fits in a second or two.
const SLOPE_BUDGET: usize = 200_000_000;

/// Resamples for a series of `k` sizes: [`FIT_RESAMPLES`], fewer (at least
/// 200) when Theil–Sen's k²/2 slopes per resample would pass the budget.
pub fn resamples_for(k: usize) -> usize {
    let pairs = (k * k.saturating_sub(1) / 2).max(1);
    (SLOPE_BUDGET / pairs).clamp(200, FIT_RESAMPLES)
}

/// A straight line `alpha + beta·n`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line {
    pub(crate) alpha: f64,
    pub(crate) beta: f64,
}

impl Line {
    pub(crate) fn at(self, n: f64) -> f64 {
        self.alpha + self.beta * n
    }
}

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
///   times its centre², see `pooled_variances`), so a noisy point pulls less.
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
/// the same intervals. The same resamples give the [`ModelCheck`].
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
    // own choice of model (see [`crate::choice`]).
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
fn ci(estimate: f64, replicates: &mut Vec<f64>, df: usize, robust: bool) -> (f64, f64) {
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

/// Each point's variance as the pooled relative variance times its value²:
/// timing noise grows with the time measured, and one share pooled over
/// every point is steadier than each point's own variance from a few
/// rounds, whose chance lows would win too much weight and make the
/// intervals too narrow.
fn pooled_variances(reps: &Replicates, centres: &[f64]) -> Vec<f64> {
    let mut relative: Vec<f64> = (0..centres.len())
        .map(|g| reps.variance_of_median(g) / centres[g].powi(2).max(1e-300))
        .filter(|r| r.is_finite())
        .collect();
    let share = if relative.is_empty() {
        0.0
    } else {
        median_in_place(&mut relative)
    };
    centres
        .iter()
        .map(|&m| variance_floor(share * m * m, m))
        .collect()
}

/// A centre's variance, floored so a point whose trials were all equal
/// (an exact synthetic series, a coarse clock) gets a finite weight.
fn variance_floor(v: f64, median: f64) -> f64 {
    let floor = (1e-6 * median.abs()).powi(2).max(1e-12);
    if v.is_finite() {
        v.max(floor)
    } else {
        floor
    }
}

/// The small end, the lack-of-fit test, and the piecewise model's point
/// estimate (its CIs are filled in by the caller's bootstrap), all of the
/// weighted line `line`, the series' primary model.
fn model_check(
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

/// Each point's replicate variance for the lack-of-fit test: its own
/// bootstrap variance, or the pooled one `var` where that is larger, so a
/// point noisier than the rest is judged by its own noise (a noisy machine
/// is not a curve).
fn replicate_variances(reps: &Replicates, var: &[f64]) -> Vec<f64> {
    (0..var.len())
        .map(|g| {
            let v = reps.variance_of_median(g);
            if v.is_finite() {
                v.max(var[g])
            } else {
                var[g]
            }
        })
        .collect()
}

/// The share of resamples choosing the other model from which the model
/// choice counts as split (see [`fit_series`]).
pub const SPLIT_CHOICE: f64 = 0.1;

/// The lack-of-fit p-value below which the knee rule may call a series a
/// curve (see [`fit_series`]).
pub const KNEE_P: f64 = 0.05;

/// Points needed before a series may be called nonlinear.
pub const NONLINEAR_MIN_POINTS: usize = 4;

/// The rule behind [`SeriesFit::nonlinear`], over the per-`n` centres
/// `medians` (with `ns` ascending; [`fit_series`] passes each size's 20%
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

/// Finite samples grouped by `n`, ascending, equal `n` merged.
fn groups(points: &[(f64, Vec<f64>)]) -> Vec<Group> {
    let mut sorted: Vec<&(f64, Vec<f64>)> = points.iter().filter(|(n, _)| n.is_finite()).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut groups: Vec<Group> = Vec::new();
    for (n, trials) in sorted {
        let finite = trials.iter().copied().filter(|t| t.is_finite());
        match groups.last_mut() {
            Some(g) if g.n == *n => g.trials.extend(finite),
            _ => groups.push(Group {
                n: *n,
                trials: finite.collect(),
            }),
        }
    }
    groups.retain(|g| !g.trials.is_empty());
    groups
}

/// Ordinary least squares; None unless `xs` holds two different values.
fn least_squares(xs: &[f64], ys: &[f64]) -> Option<Line> {
    weighted_least_squares(xs, ys, &vec![1.0; xs.len()])
}

/// Theil–Sen over every pair with different x; `slopes` is scratch space.
/// None unless `xs` holds two different values.
fn theil_sen(xs: &[f64], ys: &[f64], slopes: &mut Vec<f64>) -> Option<Line> {
    slopes.clear();
    for i in 0..xs.len() {
        for j in i + 1..xs.len() {
            if xs[i] != xs[j] {
                slopes.push((ys[j] - ys[i]) / (xs[j] - xs[i]));
            }
        }
    }
    if slopes.is_empty() {
        return None;
    }
    let beta = median_in_place(slopes);
    slopes.clear();
    slopes.extend(xs.iter().zip(ys).map(|(x, y)| y - beta * x));
    Some(Line {
        alpha: median_in_place(slopes),
        beta,
    })
}

/// 1 − SS_res/SS_tot of `line` over the points; 0 when SS_tot is 0.
fn r2(xs: &[f64], ys: &[f64], line: Line) -> f64 {
    let mean_y = ys.iter().sum::<f64>() / ys.len() as f64;
    let ss_tot: f64 = ys.iter().map(|y| (y - mean_y).powi(2)).sum();
    if ss_tot == 0.0 {
        return 0.0;
    }
    let ss_res: f64 = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - line.alpha - line.beta * x).powi(2))
        .sum();
    1.0 - ss_res / ss_tot
}

/// Least squares with a weight per point; None unless two different `xs`
/// carry weight.
pub(crate) fn weighted_least_squares(xs: &[f64], ys: &[f64], ws: &[f64]) -> Option<Line> {
    let sw: f64 = ws.iter().sum();
    if sw.is_nan() || sw <= 0.0 || !sw.is_finite() {
        return None;
    }
    let mean_x = xs.iter().zip(ws).map(|(x, w)| x * w).sum::<f64>() / sw;
    let mean_y = ys.iter().zip(ws).map(|(y, w)| y * w).sum::<f64>() / sw;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for ((x, y), w) in xs.iter().zip(ys).zip(ws) {
        sxy += w * (x - mean_x) * (y - mean_y);
        sxx += w * (x - mean_x) * (x - mean_x);
    }
    if sxx <= 0.0 || !sxx.is_finite() {
        return None;
    }
    let beta = sxy / sxx;
    Some(Line {
        alpha: mean_y - beta * mean_x,
        beta,
    })
}

#[cfg(test)]
#[path = "fit_tests.rs"]
mod tests;

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
