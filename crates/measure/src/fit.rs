//! The cost model `t(n) = α + β·n`: least squares and a robust fit, with CIs.
//!
//! Every trial is a data point. Least squares is the textbook fit; the robust
//! one is the Theil–Sen estimator (H. Theil 1950; P. K. Sen 1968): β is the
//! median of the slopes between every two samples at different `n`, α the
//! median of t − β·n. It shrugs off up to ~29% wild samples, where one
//! straggler at a large `n` can tilt least squares. Confidence intervals come
//! from a stratified percentile bootstrap (see [`fit_series`]).

use crate::bootstrap::{self, interval};
use crate::quantile::median_in_place;
use fastrand::Rng;
use serde::{Deserialize, Serialize};

/// How a line was fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FitMethod {
    /// Ordinary least squares over every sample.
    LeastSquares,
    /// Theil–Sen: median of pairwise slopes, median intercept.
    TheilSen,
}

/// One fitted line with 95% confidence intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// The estimator that produced this line.
    pub method: FitMethod,
    /// Fixed cost per crossing, α (the intercept), ns.
    pub alpha: f64,
    /// 95% bootstrap confidence interval of α.
    pub alpha_ci: (f64, f64),
    /// Cost per unit of `n`, β (the slope), ns.
    pub beta: f64,
    /// 95% bootstrap confidence interval of β.
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
    /// Ordinary least squares.
    pub least_squares: Fit,
    /// Theil–Sen.
    pub robust: Fit,
    /// Set when the line fits poorly (a knee or curve); see [`is_nonlinear`].
    pub nonlinear: bool,
}

/// Bootstrap resamples behind every CI of a fit.
pub const FIT_RESAMPLES: usize = 1000;

/// Beyond this many pairs of samples at different `n`, bootstrap replicates of
/// Theil–Sen are computed on the per-`n` medians of each resample instead of
/// all pairs, so a fit stays well under a second however many trials it has.
pub const MAX_BOOTSTRAP_PAIRS: usize = 20_000;

/// A straight line `alpha + beta·n`.
#[derive(Debug, Clone, Copy)]
struct Line {
    alpha: f64,
    beta: f64,
}

/// The trials of one `n`.
struct Group {
    n: f64,
    trials: Vec<f64>,
}

/// Fit a series: `points` holds, for each `n`, the per-op times of its trials.
/// Returns None with fewer than two distinct `n`.
///
/// Non-finite values are ignored and entries with equal `n` are merged. The
/// 95% intervals on α and β, for both methods, come from a stratified
/// bootstrap: [`FIT_RESAMPLES`] times, every `n` keeps its number of trials,
/// drawn with replacement from its own trials; both lines are refitted and the
/// 2.5th and 97.5th percentiles of α and β are the interval. Seeded, so the
/// same points always give the same intervals. When every `n` has a single
/// trial there is nothing to resample within an `n`, so whole points are
/// resampled instead (a case bootstrap).
pub fn fit_series(points: &[(f64, Vec<f64>)]) -> Option<SeriesFit> {
    let groups = groups(points);
    if groups.len() < 2 {
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
    let ols = least_squares(&xs, &ys)?;
    let ts = theil_sen(&xs, &ys, &mut Vec::new())?;
    let [ols_ci, ts_ci] = bootstrap_cis(&groups);

    let ns: Vec<f64> = groups.iter().map(|g| g.n).collect();
    let medians: Vec<f64> = groups
        .iter()
        .map(|g| median_in_place(&mut g.trials.clone()))
        .collect();
    Some(SeriesFit {
        least_squares: fit(FitMethod::LeastSquares, ols, ols_ci, &xs, &ys),
        robust: fit(FitMethod::TheilSen, ts, ts_ci, &xs, &ys),
        nonlinear: is_nonlinear(&ns, &medians),
    })
}

/// Points needed before a series may be called nonlinear.
pub const NONLINEAR_MIN_POINTS: usize = 4;

/// The rule behind [`SeriesFit::nonlinear`], over the per-`n` medians `m`
/// (with `ns` ascending). With at least [`NONLINEAR_MIN_POINTS`] distinct `n`,
/// the series is nonlinear when either
///
/// - **poor fit**: the least-squares line through the medians has R² < 0.9
///   *and* misses some median by more than 10% of the largest median; or
/// - **knee**: the least-squares slope over the last third of the points
///   (at least two) is more than 3× the slope over the first third, or the
///   first more than 3× the last (negative slopes count as 0), *and* that
///   change of slope, carried over the whole range of `n`, amounts to more
///   than 10% of the largest median.
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
    let len = xs.len() as f64;
    let mean_x = xs.iter().sum::<f64>() / len;
    let mean_y = ys.iter().sum::<f64>() / len;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (x, y) in xs.iter().zip(ys) {
        sxy += (x - mean_x) * (y - mean_y);
        sxx += (x - mean_x) * (x - mean_x);
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

/// Bootstrap intervals `[(α CI, β CI) of least squares, (α CI, β CI) of Theil–Sen]`.
fn bootstrap_cis(groups: &[Group]) -> [[(f64, f64); 2]; 2] {
    let mut rng = Rng::with_seed(bootstrap::SEED);
    let whole_points = groups.iter().all(|g| g.trials.len() == 1);
    let samples: usize = groups.iter().map(|g| g.trials.len()).sum();
    let same_n: usize = groups.iter().map(|g| g.trials.len().pow(2)).sum();
    let ts_on_medians = (samples * samples - same_n) / 2 > MAX_BOOTSTRAP_PAIRS;

    let (mut xs, mut ys, mut mx, mut my, mut scratch) = (vec![], vec![], vec![], vec![], vec![]);
    let mut replicates: [Vec<f64>; 4] = Default::default();
    for _ in 0..FIT_RESAMPLES {
        xs.clear();
        ys.clear();
        mx.clear();
        my.clear();
        if whole_points {
            for _ in 0..groups.len() {
                let g = &groups[rng.usize(..groups.len())];
                xs.push(g.n);
                ys.push(g.trials[0]);
            }
        } else {
            for g in groups {
                let start = ys.len();
                for _ in 0..g.trials.len() {
                    xs.push(g.n);
                    ys.push(g.trials[rng.usize(..g.trials.len())]);
                }
                if ts_on_medians {
                    mx.push(g.n);
                    my.push(median_in_place(&mut ys[start..]));
                }
            }
        }
        let ts = if ts_on_medians {
            theil_sen(&mx, &my, &mut scratch)
        } else {
            theil_sen(&xs, &ys, &mut scratch)
        };
        // A case resample may hold a single n: it tells nothing, skip it.
        for (i, line) in [least_squares(&xs, &ys), ts].into_iter().enumerate() {
            if let Some(line) = line {
                replicates[2 * i].push(line.alpha);
                replicates[2 * i + 1].push(line.beta);
            }
        }
    }
    let [a, b, c, d] = replicates.map(|mut r| interval(&mut r, bootstrap::LEVEL));
    [[a, b], [c, d]]
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
