//! One timed batch: what the engine keeps for every trial.

use serde::{Deserialize, Serialize};

/// A timed batch of `iters` identical operations that took `total_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Operations in the batch.
    pub iters: u64,
    /// Wall-clock nanoseconds for the whole batch.
    pub total_ns: u64,
}

impl Sample {
    /// Nanoseconds per operation.
    pub fn per_op_ns(&self) -> f64 {
        self.total_ns as f64 / self.iters.max(1) as f64
    }
}
