//! Clock calibration: the resolution of the monotonic clock and the cost of reading it.

use serde::{Deserialize, Serialize};

/// What the monotonic clock (`std::time::Instant`) can resolve on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    /// Smallest non-zero difference seen between two consecutive readings, ns.
    pub resolution_ns: f64,
    /// Median cost of one reading, ns.
    pub read_cost_ns: f64,
}

impl Clock {
    /// Measure the clock (takes a few milliseconds).
    pub fn calibrate() -> Clock {
        todo!()
    }

    /// The shortest a timed batch may last: 1000 × the resolution.
    pub fn min_batch_ns(&self) -> f64 {
        todo!()
    }
}
