//! A one-point figure's run-to-run term: a null system call, a wake-up, a
//! handoff is one size and no line, yet it moves between runs as a fitted
//! α does (two `toll sys` runs a minute apart here: getppid 102.6 and
//! 110.8 ns, each interval ±1%). Its interval is widened the same way
//! ([`crate::run_to_run`]): by the figure's own earlier runs on this
//! machine (DerSimonian–Laird, Student's t at their degrees of freedom),
//! with the machine's share of α as the prior and the 1% floor beneath.

use crate::run_to_run::{between, Figure, MachineShare, Run, Source, PRIOR_DF};
use crate::Summary;

/// One earlier run's figure: its value, its within-run interval and the
/// degrees of freedom that interval is read back with.
pub type Earlier = Run;

/// The figure of `summary` (the median over the rounds and its order
/// statistics interval) widened by its between-run term, learnt from
/// `earlier` (the same series' earlier runs here) and the `machine`'s
/// share of α. None where the summary has no interval (one round).
pub fn widen(
    summary: &Summary,
    earlier: &[Earlier],
    machine: Option<MachineShare>,
) -> Option<Figure> {
    let level = summary.ci_level.unwrap_or(0.95);
    if summary.count < 2 || level <= 0.0 || !summary.median.is_finite() {
        return None;
    }
    let value = summary.median;
    let within = (summary.ci_low, summary.ci_high);
    let df_within = summary.count - 1;
    let share = machine.map(|m| (m.alpha, (m.df as f64).min(PRIOR_DF)));
    let b = between(value, earlier, share);
    let add = b.half.powi(2);
    let ci = (
        value - ((value - within.0).powi(2) + add).sqrt(),
        value + ((within.1 - value).powi(2) + add).sqrt(),
    );
    Some(Figure {
        value,
        ci_within: within,
        level_within: level,
        df_within,
        ci: (ci.0.max(0.0), ci.1),
        source: match (earlier.is_empty(), machine.is_some()) {
            (false, _) => Source::History,
            (true, true) => Source::Machine,
            (true, false) => Source::Floor,
        },
        earlier_runs: earlier.len(),
        elsewhere: 0,
        sd: b.sd,
        df: b.df,
    })
}

impl Figure {
    /// This figure as an earlier run of its series, for the next one.
    pub fn earlier(&self) -> Earlier {
        (self.value, self.ci_within, Some(self.df_within))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_to_run::FLOOR;

    fn summary(values: &[f64]) -> Summary {
        Summary::of(values)
    }

    #[test]
    fn a_first_run_is_widened_by_the_floor_and_keeps_its_own_interval() {
        let s = summary(&[
            100.0, 100.2, 99.9, 100.1, 100.0, 99.8, 100.3, 100.1, 99.9, 100.0,
        ]);
        let f = widen(&s, &[], None).unwrap();
        assert_eq!(f.source, Source::Floor);
        assert_eq!(f.ci_within, (s.ci_low, s.ci_high));
        assert!((f.sd - FLOOR * s.median).abs() < 1e-9);
        assert!(f.ci.0 < s.ci_low && f.ci.1 > s.ci_high, "{:?}", f.ci);
        assert!(f.ci.1 - f.ci.0 >= 2.0 * 1.96 * f.sd - 1e-9);
    }

    #[test]
    fn earlier_runs_that_moved_widen_it_to_hold_them() {
        let s = summary(&[
            102.0, 102.5, 102.6, 102.7, 103.0, 102.4, 102.8, 102.6, 102.5, 102.9,
        ]);
        // Earlier runs 8% apart, each with a tight interval of its own.
        let earlier: Vec<Earlier> = [110.8, 102.0, 106.0, 109.0]
            .iter()
            .map(|&v| (v, (v - 0.5, v + 0.5), Some(9)))
            .collect();
        let f = widen(&s, &earlier, None).unwrap();
        assert_eq!(f.source, Source::History);
        assert_eq!(f.earlier_runs, 4);
        let mean = earlier.iter().map(|e| e.0).sum::<f64>() / 4.0;
        assert!(
            f.ci.1 > mean,
            "{:?} holds the earlier runs' mean {mean}",
            f.ci
        );
        assert!(
            f.sd > 2.0 * FLOOR * s.median,
            "sd {} learnt from the moves",
            f.sd
        );
        assert!(f.ci.0 > 0.0);
    }

    #[test]
    fn one_round_has_no_interval_to_widen() {
        assert!(widen(&summary(&[100.0]), &[], None).is_none());
    }
}
