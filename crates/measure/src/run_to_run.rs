//! Run-to-run variation: what a confidence interval from one run cannot see.
//!
//! A run's round bootstrap sees how the machine moved *during* the run. Run
//! the same sweep again a minute later and the machine has moved further —
//! a neighbour's load, where the hypervisor put the vCPU, the frequency —
//! so on a small VM two runs' α differ by more than either run's interval
//! (five back-to-back runs of a bare C ping-pong on one core spread over a
//! few percent here). An interval that claims to say where α lies must be
//! as wide as that, no narrower.
//!
//! So every fitted series carries a between-run term, and its α and β
//! intervals are widened by it:
//!
//! - **from history**, when the store holds earlier complete runs of the
//!   same series on this machine (same host, CPU, placement and sizes): the
//!   between-run variance is the method-of-moments (DerSimonian–Laird)
//!   estimate over those runs and this one — the variance of their
//!   estimates less the mean of their own within-run variances, floored at
//!   zero;
//! - **a floor** in every case: a standard deviation of [`FLOOR`] of the
//!   estimate, the least a run can move on a quiet machine (criterion's
//!   noise threshold plays the same part), and all there is for a series'
//!   first run.
//!
//! Each interval half becomes √(half² + (1.96·σ_run)²); the within-run
//! intervals are kept beside (`alpha_ci_within`, `beta_ci_within`).

use crate::fit::SeriesFit;
use serde::{Deserialize, Serialize};

/// The least between-run standard deviation, as a share of the estimate.
pub const FLOOR: f64 = 0.01;

/// Where a between-run term came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Earlier runs of the series on this machine (and the floor beneath).
    History,
    /// The floor alone: no earlier runs to learn from.
    Floor,
}

/// The between-run term of one fitted series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunToRun {
    /// Where it came from.
    pub source: Source,
    /// Earlier runs behind it (0 with the floor alone).
    pub earlier_runs: usize,
    /// Between-run standard deviation of α, ns.
    pub alpha_sd: f64,
    /// Between-run standard deviation of β, ns per unit.
    pub beta_sd: f64,
    /// α's 95% CI from this run alone.
    pub alpha_ci_within: (f64, f64),
    /// β's 95% CI from this run alone.
    pub beta_ci_within: (f64, f64),
}

/// The model a table shows for a series, as a point of its history: α and
/// β with their within-run 95% CIs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// α, ns.
    pub alpha: f64,
    /// α's within-run 95% CI.
    pub alpha_ci: (f64, f64),
    /// β, ns per unit.
    pub beta: f64,
    /// β's within-run 95% CI.
    pub beta_ci: (f64, f64),
}

impl Estimate {
    /// What the tables show of a stored fit: the line when it describes the
    /// points, else the piecewise model; the within-run CIs, not widened.
    pub fn of(fit: &SeriesFit) -> Estimate {
        let within = fit.run_to_run.as_ref();
        let piece = fit.check.as_ref().and_then(|c| c.piecewise.as_ref());
        let (alpha, alpha_ci, beta, beta_ci) = match piece {
            Some(p) if !fit.line_fits() => (p.alpha, p.alpha_ci, p.beta, p.beta_ci),
            _ => {
                let f = fit.primary();
                (f.alpha, f.alpha_ci, f.beta, f.beta_ci)
            }
        };
        Estimate {
            alpha,
            alpha_ci: within.map_or(alpha_ci, |w| w.alpha_ci_within),
            beta,
            beta_ci: within.map_or(beta_ci, |w| w.beta_ci_within),
        }
    }
}

/// The between-run standard deviation of one quantity over runs given as
/// (estimate, within-run 95% CI), this run last: the method-of-moments
/// estimate, never below the floor's share of this run's estimate.
fn between_sd(runs: &[(f64, (f64, f64))]) -> f64 {
    let (current, _) = *runs.last().expect("this run");
    let floor = FLOOR * current.abs();
    if runs.len() < 2 {
        return floor;
    }
    let k = runs.len() as f64;
    let mean = runs.iter().map(|r| r.0).sum::<f64>() / k;
    let spread = runs.iter().map(|r| (r.0 - mean).powi(2)).sum::<f64>() / (k - 1.0);
    let within = runs
        .iter()
        .map(|(_, (lo, hi))| ((hi - lo) / (2.0 * 1.96)).powi(2))
        .filter(|v| v.is_finite())
        .sum::<f64>()
        / k;
    (spread - within).max(0.0).sqrt().max(floor)
}

/// Widen a fresh fit's intervals by the between-run term learnt from
/// `earlier` (the same series' earlier runs on this machine, any order).
pub fn widen(fit: &mut SeriesFit, earlier: &[Estimate]) {
    let now = Estimate::of(fit);
    let alphas: Vec<(f64, (f64, f64))> = earlier
        .iter()
        .chain(std::iter::once(&now))
        .map(|e| (e.alpha, e.alpha_ci))
        .collect();
    let betas: Vec<(f64, (f64, f64))> = earlier
        .iter()
        .chain(std::iter::once(&now))
        .map(|e| (e.beta, e.beta_ci))
        .collect();
    let (alpha_sd, beta_sd) = (between_sd(&alphas), between_sd(&betas));
    let wider = |est: f64, (lo, hi): (f64, f64), sd: f64| {
        let add = (1.96 * sd).powi(2);
        (
            est - ((est - lo).powi(2) + add).sqrt(),
            est + ((hi - est).powi(2) + add).sqrt(),
        )
    };
    for f in [
        Some(&mut fit.least_squares),
        Some(&mut fit.robust),
        fit.weighted.as_mut(),
    ]
    .into_iter()
    .flatten()
    {
        f.alpha_ci = wider(f.alpha, f.alpha_ci, alpha_sd);
        f.beta_ci = wider(f.beta, f.beta_ci, beta_sd);
        if f.beta_ci.0 <= 0.0 {
            f.n_half = None;
        }
    }
    if let Some(p) = fit.check.as_mut().and_then(|c| c.piecewise.as_mut()) {
        p.alpha_ci = wider(p.alpha, p.alpha_ci, alpha_sd);
        p.beta_ci = wider(p.beta, p.beta_ci, beta_sd);
    }
    fit.run_to_run = Some(RunToRun {
        source: if earlier.is_empty() {
            Source::Floor
        } else {
            Source::History
        },
        earlier_runs: earlier.len(),
        alpha_sd,
        beta_sd,
        alpha_ci_within: now.alpha_ci,
        beta_ci_within: now.beta_ci,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::fit_series;

    fn line(alpha: f64, beta: f64, wobble: f64) -> SeriesFit {
        let points: Vec<(f64, Vec<f64>)> = [0.0, 10.0, 100.0, 1000.0]
            .iter()
            .map(|&n| {
                let t = alpha + beta * n;
                (
                    n,
                    (0..10)
                        .map(|i| t * (1.0 + wobble * (i % 3) as f64))
                        .collect(),
                )
            })
            .collect();
        fit_series(&points).unwrap()
    }

    #[test]
    fn a_first_run_gets_the_floor_and_keeps_its_own_interval_beside() {
        let mut fit = line(1000.0, 2.0, 0.0001);
        let before = fit.primary().alpha_ci;
        widen(&mut fit, &[]);
        let r = fit.run_to_run.clone().unwrap();
        assert_eq!(r.source, Source::Floor);
        assert_eq!(r.alpha_ci_within, before);
        assert!((r.alpha_sd - FLOOR * fit.primary().alpha).abs() < 1e-9);
        let (lo, hi) = fit.primary().alpha_ci;
        assert!(
            lo < before.0 && hi > before.1,
            "{lo}..{hi} wider than {before:?}"
        );
        // ±1.96 floors at least.
        assert!(hi - lo >= 2.0 * 1.96 * r.alpha_sd - 1e-9);
    }

    #[test]
    fn history_that_moves_more_than_the_floor_widens_the_interval_to_cover_it() {
        let earlier: Vec<Estimate> = [900.0, 1100.0, 950.0, 1050.0]
            .iter()
            .map(|&a| Estimate {
                alpha: a,
                alpha_ci: (a - 1.0, a + 1.0),
                beta: 2.0,
                beta_ci: (1.99, 2.01),
            })
            .collect();
        let mut fit = line(1000.0, 2.0, 0.0001);
        widen(&mut fit, &earlier);
        let r = fit.run_to_run.clone().unwrap();
        assert_eq!((r.source, r.earlier_runs), (Source::History, 4));
        // The five αs have a standard deviation of ~79 ns.
        assert!(r.alpha_sd > 70.0 && r.alpha_sd < 90.0, "{}", r.alpha_sd);
        let (lo, hi) = fit.primary().alpha_ci;
        for a in [900.0, 1100.0] {
            assert!(lo < a && a < hi, "{a} in {lo}..{hi}");
        }
        // β did not move between runs: only the floor.
        assert!((r.beta_sd - FLOOR * fit.primary().beta).abs() < 1e-6);
    }

    #[test]
    fn history_within_each_runs_own_noise_adds_nothing_past_the_floor() {
        // Estimates that differ by less than their own intervals.
        let earlier: Vec<Estimate> = [999.0, 1001.0]
            .iter()
            .map(|&a| Estimate {
                alpha: a,
                alpha_ci: (a - 50.0, a + 50.0),
                beta: 2.0,
                beta_ci: (1.9, 2.1),
            })
            .collect();
        assert_eq!(
            between_sd(&[
                (earlier[0].alpha, earlier[0].alpha_ci),
                (earlier[1].alpha, earlier[1].alpha_ci),
                (1000.0, (950.0, 1050.0))
            ]),
            FLOOR * 1000.0
        );
    }
}
