//! The fit's bootstrap over rounds: each resample draws whole rounds with
//! replacement and keeps, per `n`, the mean and the centre of the values it
//! drew — k numbers a resample, whatever the number of trials, so memory is
//! bounded by the sizes of the sweep (see [`crate::fit::fit_series`]).

use crate::bootstrap;
use fastrand::Rng;

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

/// The trials of one `n`, in round order.
pub(crate) struct Group {
    pub(crate) n: f64,
    pub(crate) trials: Vec<f64>,
}

/// Finite samples grouped by `n`, ascending, equal `n` merged.
pub(crate) fn groups(points: &[(f64, Vec<f64>)]) -> Vec<Group> {
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

/// A point's centre: the 20% trimmed mean of its trials (the mean of the
/// middle 60%). It shrugs off a wild trial as a median does, and unlike a
/// median of ten values its bootstrap distribution is smooth, so the
/// intervals built on it keep their 95%.
pub(crate) fn centre(values: &mut [f64]) -> f64 {
    values.sort_unstable_by(f64::total_cmp);
    let trim = values.len() / 5;
    let kept = &values[trim..values.len() - trim];
    kept.iter().sum::<f64>() / kept.len() as f64
}

/// The bootstrap's resamples, kept as per-`n` means and medians (k values a
/// resample, whatever the number of trials).
pub(crate) struct Replicates {
    pub(crate) count: usize,
    k: usize,
    /// `count × k` means, row by row.
    means: Vec<f64>,
    /// `count × k` medians, row by row.
    medians: Vec<f64>,
    /// `count × k` sample counts (least squares over every sample is
    /// least squares over the means weighted by their counts).
    counts: Vec<f64>,
    /// Case bootstrap (one round): `count × k` indices of the groups drawn.
    cases: Option<Vec<usize>>,
    ns: Vec<f64>,
    rounds: usize,
}

impl Replicates {
    pub(crate) fn draw(groups: &[Group]) -> Replicates {
        let k = groups.len();
        let count = resamples_for(k);
        let rounds = groups.iter().map(|g| g.trials.len()).max().unwrap_or(0);
        let mut rng = Rng::with_seed(bootstrap::SEED);
        let mut reps = Replicates {
            count,
            k,
            means: Vec::with_capacity(count * k),
            medians: Vec::with_capacity(count * k),
            counts: Vec::with_capacity(count * k),
            cases: None,
            ns: groups.iter().map(|g| g.n).collect(),
            rounds,
        };
        if rounds <= 1 {
            // One value per n: resample whole points.
            let mut cases = Vec::with_capacity(count * k);
            for _ in 0..count {
                for _ in 0..k {
                    let g = rng.usize(..k);
                    cases.push(g);
                    reps.means.push(groups[g].trials[0]);
                    reps.medians.push(groups[g].trials[0]);
                    reps.counts.push(1.0);
                }
            }
            reps.cases = Some(cases);
            return reps;
        }
        let mut picked: Vec<usize> = Vec::with_capacity(rounds);
        let mut values: Vec<f64> = Vec::new();
        for _ in 0..count {
            picked.clear();
            picked.extend((0..rounds).map(|_| rng.usize(..rounds)));
            for g in groups {
                values.clear();
                for &r in &picked {
                    let v = match g.trials.get(r) {
                        Some(v) => *v,
                        None => g.trials[rng.usize(..g.trials.len())],
                    };
                    values.push(v);
                }
                reps.means
                    .push(values.iter().sum::<f64>() / values.len() as f64);
                reps.counts.push(g.trials.len() as f64);
                reps.medians.push(centre(&mut values));
            }
        }
        reps
    }

    pub(crate) fn is_case(&self) -> bool {
        self.cases.is_some()
    }

    /// Degrees of freedom behind the intervals: rounds − 1, or for a case
    /// bootstrap, points − 2.
    pub(crate) fn df(&self) -> usize {
        match &self.cases {
            Some(_) => self.k.saturating_sub(2).max(1),
            None => self.rounds.saturating_sub(1).max(1),
        }
    }

    /// Rounds behind the resamples (trials at the fullest point).
    pub(crate) fn rounds(&self) -> usize {
        self.rounds
    }

    pub(crate) fn means(&self, r: usize) -> &[f64] {
        &self.means[r * self.k..(r + 1) * self.k]
    }

    pub(crate) fn medians(&self, r: usize) -> &[f64] {
        &self.medians[r * self.k..(r + 1) * self.k]
    }

    pub(crate) fn counts(&self, r: usize) -> Vec<f64> {
        self.counts[r * self.k..(r + 1) * self.k].to_vec()
    }

    /// The `n` of each value of resample `r`.
    pub(crate) fn ns(&self, r: usize) -> Vec<f64> {
        match &self.cases {
            Some(c) => c[r * self.k..(r + 1) * self.k]
                .iter()
                .map(|&g| self.ns[g])
                .collect(),
            None => self.ns.clone(),
        }
    }

    /// The weight of each value of resample `r`.
    pub(crate) fn weights(&self, r: usize, weights: &[f64]) -> Vec<f64> {
        match &self.cases {
            Some(c) => c[r * self.k..(r + 1) * self.k]
                .iter()
                .map(|&g| weights[g])
                .collect(),
            None => weights.to_vec(),
        }
    }

    /// The bootstrap variance of group `g`'s median (NaN for a case bootstrap).
    pub(crate) fn variance_of_median(&self, g: usize) -> f64 {
        if self.is_case() || self.count < 2 {
            return f64::NAN;
        }
        let v: Vec<f64> = (0..self.count)
            .map(|r| self.medians[r * self.k + g])
            .collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64
    }
}
