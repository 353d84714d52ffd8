//! Has it changed? One point's times in two runs, and one fitted line in two
//! runs, compared the way Go's benchstat compares benchmarks.
//!
//! A point changed when two things hold: the Mann–Whitney U test tells the
//! two sets of times apart at the chosen significance level (it assumes no
//! shape of the times, only independent trials; see [`crate::mann_whitney`]),
//! and the change of the median is at least the noise threshold. The change
//! is printed as the ratio of medians; its interval is the Hodges–Lehmann
//! ratio's, distribution-free, from the same Mann–Whitney distribution
//! ([`crate::hodges_lehmann`]), with the level it earns at these counts
//! (3 trials a side: 90%) — never a bootstrap's 95% claimed from 3 trials.
//!
//! A fitted series' α and β — the model its table printed, its stored
//! decision — are compared through each run's *own* 95% interval (never
//! one widened by history, which may hold the very pair being compared),
//! plus how far this machine moves between two runs of the same thing: the
//! between-run σ learnt from earlier runs (each run's run-to-run term is
//! learnt from the runs before it, never from itself), which two repeat
//! runs (an A/A pair) differ by with variance 2σ². Each interval is read
//! as estimate ± t₀.₉₇₅(df) standard errors (the factor the fit made it
//! with, df its rounds − 1), by its wider side (which errs wide), so B − A
//! has standard error √(s_A² + s_B² + 2σ²). A point is judged against the
//! same between-run σ as well as the Mann–Whitney test
//! ([`PointChange::of_runs`]), and a comparison corrects for the number of
//! judgements it makes ([`bh_level`]).

use crate::hodges_lehmann;
use crate::mann_whitney::{self, MannWhitney};
use crate::mean_ci::{t975, t_p_two_sided};
use crate::run_to_run::within_se;
use serde::{Deserialize, Serialize};

/// z of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

fn level_95() -> f64 {
    0.95
}

/// One point's times in run A (the base) against run B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointChange {
    /// Trials in A and in B.
    pub count: (usize, usize),
    /// Median of A and of B, ns.
    pub median: (f64, f64),
    /// median(B) / median(A) − 1.
    pub change: f64,
    /// Interval of that change (Hodges–Lehmann's, see the module): it
    /// holds the change at `change_level`.
    pub change_ci: (f64, f64),
    /// The interval's exact level: 0.95 where the counts allow it, less
    /// where they do not (3 trials a side: 0.90), 0 with no interval.
    #[serde(default = "level_95")]
    pub change_level: f64,
    /// The Mann–Whitney U test of A against B.
    pub test: MannWhitney,
    /// The smallest p-value these counts can give (complete separation):
    /// at or above the significance level, no change can ever be shown.
    pub min_p: f64,
    /// The p of the change against this machine's between-run noise as
    /// well as each run's own (see [`PointChange::of_runs`]); None where
    /// the series has no run-to-run term to judge by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_run_to_run: Option<f64>,
}

/// What a comparison says about one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The test cannot tell the runs apart ("~").
    Same,
    /// Told apart, but the change is below the threshold.
    UnderThreshold,
    /// B is slower by at least the threshold.
    Slower,
    /// B is faster by at least the threshold.
    Faster,
    /// Told apart within the two runs, but by no more than this machine
    /// moves between runs of the same thing: not a change of the code's.
    RunToRun,
}

impl Verdict {
    /// The word printed for it.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Same => "~",
            Verdict::UnderThreshold => "under threshold",
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::RunToRun => "~ run-to-run",
        }
    }
}

impl PointChange {
    /// Compare the per-operation times `a` (base) and `b`; None when either
    /// is empty or A's median is not positive.
    pub fn of(a: &[f64], b: &[f64]) -> Option<PointChange> {
        PointChange::of_runs(a, b, None)
    }

    /// As [`PointChange::of`], and judged against this machine's between-run
    /// noise too: `between_share` is the standard deviation of this point's
    /// time between runs, as a share of it (the series' run-to-run term).
    /// Two runs differ by that much with no change of code, so the change
    /// of the log medians is tested against √(se_A² + se_B² + 2·share²),
    /// each run's own error that of its log median (1.2533·σ/√n, σ by the
    /// median absolute deviation): `p_run_to_run`.
    pub fn of_runs(a: &[f64], b: &[f64], between_share: Option<f64>) -> Option<PointChange> {
        let mut c = PointChange::of_samples(a, b)?;
        c.p_run_to_run = between_share.filter(|s| s.is_finite()).map(|share| {
            let log_se2 = |v: &[f64]| {
                let logs: Vec<f64> = v.iter().filter(|x| **x > 0.0).map(|x| x.ln()).collect();
                if logs.len() < 2 {
                    return f64::INFINITY;
                }
                let m = crate::quantile::median_in_place(&mut logs.clone());
                let mut dev: Vec<f64> = logs.iter().map(|x| (x - m).abs()).collect();
                let sd = 1.4826 * crate::quantile::median_in_place(&mut dev);
                (1.2533 * sd).powi(2) / logs.len() as f64
            };
            let se = (log_se2(a) + log_se2(b) + 2.0 * share * share).sqrt();
            let d = (1.0 + c.change).ln();
            if se > 0.0 && se.is_finite() {
                (2.0 * crate::mann_whitney::normal_upper_tail(d.abs() / se)).min(1.0)
            } else {
                1.0
            }
        });
        Some(c)
    }

    /// The p the comparison judges: the larger of the Mann–Whitney p and,
    /// where known, the run-to-run one — a change is called only when both
    /// the runs' own noise and the machine's between runs are passed.
    pub fn p(&self) -> f64 {
        self.test.p.max(self.p_run_to_run.unwrap_or(0.0))
    }

    fn of_samples(a: &[f64], b: &[f64]) -> Option<PointChange> {
        let test = mann_whitney::test(a, b)?;
        let median = |v: &[f64]| crate::quantile::median_in_place(&mut v.to_vec());
        let (ma, mb) = (median(a), median(b));
        if ma.is_nan() || ma <= 0.0 || !mb.is_finite() {
            return None;
        }
        let ratio = mb / ma;
        // The interval always holds the printed change (HL's estimate and
        // the ratio of medians differ a little); without one, the change alone.
        let (lo, hi, level) = match hodges_lehmann::ratio(a, b) {
            Some(hl) => (hl.lo.min(ratio), hl.hi.max(ratio), hl.level),
            None => (ratio, ratio, 0.0),
        };
        Some(PointChange {
            count: (a.len(), b.len()),
            median: (ma, mb),
            change: ratio - 1.0,
            change_ci: (lo - 1.0, hi - 1.0),
            change_level: level,
            test,
            min_p: min_p(a.len(), b.len()),
            p_run_to_run: None,
        })
    }

    /// The verdict at significance level `alpha` (a p below it is called)
    /// with noise threshold `threshold` (a share: 0.05 is 5%).
    pub fn verdict(&self, alpha: f64, threshold: f64) -> Verdict {
        if self.test.p >= alpha {
            Verdict::Same
        } else if self.p_run_to_run.is_some_and(|p| p >= alpha) {
            Verdict::RunToRun
        } else if self.change.abs() < threshold {
            Verdict::UnderThreshold
        } else if self.change > 0.0 {
            Verdict::Slower
        } else {
            Verdict::Faster
        }
    }
}

/// The Benjamini–Hochberg cut for p-values `ps` at false-discovery rate
/// `q`: every p below the returned level is called. Of m judgements sorted
/// by p, the largest k with p₍ₖ₎ ≤ k·q/m is found and p₍₁₎…p₍ₖ₎ are called;
/// with none, nothing is. When nothing changed at all, a call happens in at
/// most a share q of comparisons, however many judgements each makes
/// (Benjamini & Hochberg 1995; valid for independent and positively
/// dependent tests).
pub fn bh_level(ps: &[f64], q: f64) -> f64 {
    let mut sorted: Vec<f64> = ps.iter().copied().filter(|p| p.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let m = sorted.len() as f64;
    let k = sorted
        .iter()
        .enumerate()
        .rev()
        .find(|(i, p)| **p <= (*i as f64 + 1.0) * q / m)
        .map(|(_, p)| *p);
    // Strictly above the k-th p, below the next one.
    k.map_or(0.0, |p| p * (1.0 + 1e-12) + f64::MIN_POSITIVE)
}

/// The smallest two-sided p of the exact test for groups of `n1` and `n2`:
/// 2 / C(n1 + n2, n1), capped at 1.
pub fn min_p(n1: usize, n2: usize) -> f64 {
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    // C(n1 + n2, n1) as a product, in floating point (it only needs to be
    // compared with a significance level).
    let k = n1.min(n2);
    let n = n1 + n2;
    let c = (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64);
    (2.0 / c).min(1.0)
}

/// One parameter (α or β) of a line in run A against run B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamChange {
    /// The estimate in A and in B.
    pub value: (f64, f64),
    /// B − A.
    pub difference: f64,
    /// 95% interval of B − A (see the module's note on the method).
    pub difference_ci: (f64, f64),
    /// Two-sided p of B − A against 0 (Student's t at the Welch–
    /// Satterthwaite degrees of freedom of its parts).
    #[serde(default = "p_one")]
    pub p: f64,
    /// The change is called: its p passes the comparison's level (after
    /// the correction for the number of judgements, see `toll compare`).
    pub significant: bool,
}

fn p_one() -> f64 {
    1.0
}

impl ParamChange {
    /// Compare estimate `a` with interval `a_ci` against `b` with `b_ci`,
    /// each read as ±1.96 standard errors.
    pub fn of(a: f64, a_ci: (f64, f64), b: f64, b_ci: (f64, f64)) -> ParamChange {
        ParamChange::of_runs(a, a_ci, None, b, b_ci, None, 0.0)
    }

    /// Compare two runs' estimates `a` and `b` by their own intervals (each
    /// made with t₀.₉₇₅ on `a_df`, `b_df` degrees of freedom, and read back
    /// so; None: 1.96) plus the machine's between-run standard deviation
    /// `between_sd` (see the module). The interval of B − A is t₀.₉₇₅ at
    /// the Welch–Satterthwaite degrees of freedom of the parts (the
    /// between-run part counted as known) times their combined error.
    pub fn of_runs(
        a: f64,
        a_ci: (f64, f64),
        a_df: Option<usize>,
        b: f64,
        b_ci: (f64, f64),
        b_df: Option<usize>,
        between_sd: f64,
    ) -> ParamChange {
        let (sa, sb) = (
            within_se(a, a_ci, a_df).powi(2),
            within_se(b, b_ci, b_df).powi(2),
        );
        let between = 2.0 * between_sd.powi(2);
        let var = sa + sb + between;
        let part = |v: f64, df: Option<usize>| match df {
            Some(d) if v > 0.0 => v * v / d.max(1) as f64,
            _ => 0.0,
        };
        let denom = part(sa, a_df) + part(sb, b_df);
        let df = if denom > 0.0 {
            var * var / denom
        } else {
            f64::INFINITY
        };
        let s = var.sqrt();
        let k = if df.is_finite() {
            t975((df.floor() as usize).max(1))
        } else {
            Z95
        };
        let d = b - a;
        let ci = (d - k * s, d + k * s);
        let p = if s > 0.0 {
            t_p_two_sided(d / s, df)
        } else if d == 0.0 {
            1.0
        } else {
            0.0
        };
        ParamChange {
            value: (a, b),
            difference: d,
            difference_ci: ci,
            p,
            significant: ci.0 > 0.0 || ci.1 < 0.0,
        }
    }

    /// The difference as a share of A's value (None when A's is 0).
    pub fn relative(&self) -> Option<(f64, (f64, f64))> {
        let a = self.value.0.abs();
        (a > 0.0).then(|| {
            (
                self.difference / a,
                (self.difference_ci.0 / a, self.difference_ci.1 / a),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tight times around `centre`: ±0.5% in a fixed pattern.
    fn tight(centre: f64, k: usize) -> Vec<f64> {
        (0..k)
            .map(|i| centre * (1.0 + 0.001 * ((i * 7 % 11) as f64 - 5.0)))
            .collect()
    }

    #[test]
    fn a_ten_percent_change_in_tight_samples_is_slower() {
        let a = tight(1000.0, 10);
        let b = tight(1100.0, 10);
        let c = PointChange::of(&a, &b).unwrap();
        assert!((c.change - 0.10).abs() < 1e-9, "{c:?}");
        assert!(c.change_ci.0 > 0.05 && c.change_ci.1 < 0.15, "{c:?}");
        assert!(c.test.exact && c.test.p < 1e-4, "{c:?}");
        assert_eq!(c.verdict(0.05, 0.0), Verdict::Slower);
        assert_eq!(c.verdict(0.05, 0.05), Verdict::Slower);
        assert_eq!(c.verdict(0.05, 0.15), Verdict::UnderThreshold);
        let back = PointChange::of(&b, &a).unwrap();
        assert_eq!(back.verdict(0.05, 0.05), Verdict::Faster);
    }

    #[test]
    fn identical_distributions_are_the_same() {
        let a = tight(1000.0, 10);
        let c = PointChange::of(&a, &a).unwrap();
        assert_eq!(c.change, 0.0);
        assert_eq!(c.test.p, 1.0);
        assert_eq!(c.verdict(0.05, 0.0), Verdict::Same);
        assert_eq!(Verdict::Same.word(), "~");
    }

    #[test]
    fn a_shift_beyond_the_runs_own_noise_is_significant_and_an_aa_pair_is_not() {
        // Start-up 20.9 ms [20.5, 21.3] in A; B grew 6 ms, [24.5, 25.8]; the
        // machine moves 1% between runs.
        let c = ParamChange::of_runs(
            20.9e6,
            (20.5e6, 21.3e6),
            None,
            25.1e6,
            (24.5e6, 25.8e6),
            None,
            0.21e6,
        );
        assert!(c.significant && c.difference_ci.0 > 0.0, "{c:?}");
        // The same within-run noise, no shift: never significant.
        let aa = ParamChange::of_runs(
            20.9e6,
            (20.5e6, 21.3e6),
            None,
            21.0e6,
            (20.6e6, 21.4e6),
            None,
            0.21e6,
        );
        assert!(!aa.significant, "{aa:?}");
        // A machine that moves 15% between runs hides the same shift.
        let noisy = ParamChange::of_runs(
            20.9e6,
            (20.5e6, 21.3e6),
            None,
            25.1e6,
            (24.5e6, 25.8e6),
            None,
            3.1e6,
        );
        assert!(!noisy.significant, "{noisy:?}");
    }

    #[test]
    fn three_trials_a_side_can_never_show_a_change() {
        // C(6, 3) = 20 arrangements: the best p is 2/20.
        assert!((min_p(3, 3) - 0.1).abs() < 1e-12);
        assert!((min_p(10, 10) - 2.0 / 184_756.0).abs() < 1e-15);
        let c = PointChange::of(&tight(1000.0, 3), &tight(2000.0, 3)).unwrap();
        assert_eq!(c.verdict(0.05, 0.0), Verdict::Same);
        assert!((c.test.p - c.min_p).abs() < 1e-12);
        assert_eq!(min_p(0, 4), 1.0);
    }

    #[test]
    fn parameter_changes_add_their_variances() {
        // ±1.96 around each: standard errors of 1, difference 10 ± 1.96·√2.
        let c = ParamChange::of(
            100.0,
            (100.0 - Z95, 100.0 + Z95),
            110.0,
            (110.0 - Z95, 110.0 + Z95),
        );
        assert!((c.difference - 10.0).abs() < 1e-12);
        let half = Z95 * 2f64.sqrt();
        assert!((c.difference_ci.0 - (10.0 - half)).abs() < 1e-9);
        assert!((c.difference_ci.1 - (10.0 + half)).abs() < 1e-9);
        assert!(c.significant);
        let (rel, (lo, hi)) = c.relative().unwrap();
        assert!((rel - 0.1).abs() < 1e-12 && lo < rel && rel < hi);
        // Overlapping wide intervals: not told apart.
        let c = ParamChange::of(100.0, (80.0, 120.0), 105.0, (85.0, 125.0));
        assert!(!c.significant);
        assert!(ParamChange::of(0.0, (0.0, 0.0), 1.0, (1.0, 1.0))
            .relative()
            .is_none());
    }
}
