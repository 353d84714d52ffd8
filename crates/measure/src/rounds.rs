//! The order in which a sweep measures its points: interleaved rounds.
//!
//! Measuring each size in one go (all trials of n = 0, then all of n = 1000,
//! …) lets slow drift of the machine — a neighbour's load, a frequency
//! change, a warming cache — tilt the fitted line, since the small sizes
//! all come early and the large ones late. Measured in rounds, every size
//! once per round, drift spreads over every point, and the fit's round
//! bootstrap (see [`crate::fit::fit_series`]) turns it into width of the
//! intervals instead of bias. The first round goes in ascending order (it
//! follows each point's calibration, and a peer that fails at some size
//! fails there having measured every smaller one); later rounds are
//! shuffled, seeded, so a run is repeatable.
//!
//! With a target (`--ci`), rounds go on past the minimum until every point's
//! 95% CI half-width is within the target share of its median, or the time
//! runs out ([`Stop`]).

use crate::summary::Summary;
use fastrand::Rng;
use std::time::Duration;

/// The order of round `round` over `k` points (indices into the sweep).
pub fn order(k: usize, round: usize, seed: u64) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..k).collect();
    if round > 0 {
        let mut rng = Rng::with_seed(seed ^ (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        rng.shuffle(&mut idx);
    }
    idx
}

/// When a sweep of rounds may stop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stop {
    /// Rounds always taken.
    pub min_rounds: usize,
    /// The CI half-width wanted, as a share of the median (0.02 for 2%);
    /// None: stop after `min_rounds`.
    pub ci_target: Option<f64>,
    /// Time allowed for one series' rounds once the target is set.
    pub max_time: Duration,
}

/// What the stopping rule says after a round.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Take another round.
    More,
    /// Every point met the target, or no target was set.
    Done,
    /// Out of time: these point indices missed the target.
    OutOfTime(Vec<usize>),
}

impl Stop {
    /// Decide after `rounds` rounds taking `elapsed`, given each point's
    /// summary so far.
    pub fn after(&self, rounds: usize, elapsed: Duration, points: &[Summary]) -> Verdict {
        if rounds < self.min_rounds {
            return Verdict::More;
        }
        let Some(target) = self.ci_target else {
            return Verdict::Done;
        };
        let missed: Vec<usize> = points
            .iter()
            .enumerate()
            .filter(|(_, s)| half_width(s) > target)
            .map(|(i, _)| i)
            .collect();
        if missed.is_empty() {
            Verdict::Done
        } else if elapsed >= self.max_time {
            Verdict::OutOfTime(missed)
        } else {
            Verdict::More
        }
    }
}

/// A point's 95% CI half-width as a share of its median (infinite with
/// fewer than two trials).
pub fn half_width(s: &Summary) -> f64 {
    if s.count < 2 || s.median == 0.0 {
        return f64::INFINITY;
    }
    0.5 * (s.ci_high - s.ci_low) / s.median.abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_round_ascends_and_later_ones_are_shuffled_and_repeatable() {
        assert_eq!(order(5, 0, 7), vec![0, 1, 2, 3, 4]);
        let r1 = order(20, 1, 7);
        let mut sorted = r1.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>(), "a permutation");
        assert_ne!(r1, sorted, "shuffled");
        assert_eq!(r1, order(20, 1, 7), "seeded");
        assert_ne!(r1, order(20, 2, 7), "each round its own order");
    }

    #[test]
    fn the_stopping_rule() {
        let tight = Summary::of(&[100.0, 100.5, 99.5, 100.2, 99.8, 100.1]);
        let wide = Summary::of(&[100.0, 150.0, 60.0, 120.0, 80.0, 140.0]);
        let fixed = Stop {
            min_rounds: 3,
            ci_target: None,
            max_time: Duration::from_secs(1),
        };
        assert_eq!(
            fixed.after(2, Duration::ZERO, std::slice::from_ref(&wide)),
            Verdict::More
        );
        assert_eq!(
            fixed.after(3, Duration::ZERO, std::slice::from_ref(&wide)),
            Verdict::Done
        );
        let sure = Stop {
            ci_target: Some(0.02),
            ..fixed
        };
        assert_eq!(
            sure.after(3, Duration::ZERO, std::slice::from_ref(&tight)),
            Verdict::Done
        );
        assert_eq!(
            sure.after(3, Duration::ZERO, &[tight.clone(), wide.clone()]),
            Verdict::More
        );
        assert_eq!(
            sure.after(9, Duration::from_secs(2), &[tight, wide]),
            Verdict::OutOfTime(vec![1])
        );
        assert!(half_width(&Summary::of(&[5.0])).is_infinite());
    }
}
