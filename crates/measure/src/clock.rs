//! Clock calibration: the resolution of the monotonic clock and the cost of reading it.

use crate::quantile::median_in_place;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// What the monotonic clock (`std::time::Instant`) can resolve on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    /// Smallest non-zero difference seen between two consecutive readings, ns.
    pub resolution_ns: f64,
    /// Median cost of one reading, ns.
    pub read_cost_ns: f64,
}

/// Tries at catching the clock ticking over.
const RESOLUTION_TRIES: usize = 10_000;
/// Readings per batch when costing a reading.
const READS_PER_BATCH: u32 = 1_000;
/// Batches when costing a reading; the median batch is kept.
const READ_BATCHES: usize = 51;
/// Calibration stops early past this budget (a coarse clock ticks slowly).
const BUDGET: Duration = Duration::from_millis(50);

impl Clock {
    /// Measure the clock (takes a few milliseconds).
    ///
    /// The resolution is the smallest non-zero step between two consecutive
    /// `Instant::now()` readings over many tries; on a fine-grained clock this
    /// is bounded below by the cost of a reading itself, which is what a timed
    /// region can actually resolve. The read cost is the median over batches
    /// of (batch time / readings per batch).
    pub fn calibrate() -> Clock {
        Clock {
            resolution_ns: resolution_ns(),
            read_cost_ns: read_cost_ns(),
        }
    }

    /// The shortest a timed batch may last: 1000 × the resolution.
    pub fn min_batch_ns(&self) -> f64 {
        1000.0 * self.resolution_ns
    }
}

fn resolution_ns() -> f64 {
    let start = Instant::now();
    let mut best = Duration::MAX;
    for done in 1..=RESOLUTION_TRIES {
        let t0 = Instant::now();
        let mut t1 = Instant::now();
        while t1 == t0 {
            t1 = Instant::now();
        }
        best = best.min(t1 - t0);
        // A coarse clock makes every try wait a whole tick: a few suffice.
        if done >= 3 && start.elapsed() > BUDGET {
            break;
        }
    }
    (best.as_nanos() as f64).max(1.0)
}

fn read_cost_ns() -> f64 {
    let start = Instant::now();
    let mut per_read = Vec::with_capacity(READ_BATCHES);
    for _ in 0..READ_BATCHES {
        let t0 = Instant::now();
        for _ in 0..READS_PER_BATCH {
            black_box(Instant::now());
        }
        per_read.push(t0.elapsed().as_nanos() as f64 / f64::from(READS_PER_BATCH));
        if per_read.len() >= 5 && start.elapsed() > BUDGET {
            break;
        }
    }
    median_in_place(&mut per_read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_gives_plausible_figures() {
        let clock = Clock::calibrate();
        // Any clock a benchmark can use resolves better than 20 ms and costs
        // less than 10 µs to read; both are at least a nanosecond.
        assert!(
            clock.resolution_ns >= 1.0 && clock.resolution_ns < 2e7,
            "{clock:?}"
        );
        assert!(
            clock.read_cost_ns > 0.0 && clock.read_cost_ns < 1e4,
            "{clock:?}"
        );
    }

    #[test]
    fn min_batch_is_a_thousand_ticks() {
        let clock = Clock {
            resolution_ns: 25.0,
            read_cost_ns: 20.0,
        };
        assert_eq!(clock.min_batch_ns(), 25_000.0);
    }
}
