//! Warm-up, batch sizing and trials for one point of a sweep.

use crate::{Clock, Sample};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How hard to measure each point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineConfig {
    /// Timed trials per point (each one batch).
    pub trials: u32,
    /// Warm-up time per point before any trial is kept.
    pub warmup: Duration,
    /// Target duration of one timed batch (raised to 1000 × clock resolution if shorter).
    pub batch_time: Duration,
    /// Upper bound on operations per batch.
    pub max_iters: u64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        todo!()
    }
}

/// The engine for one run: a calibrated clock and a config.
#[derive(Debug, Clone)]
pub struct Engine {
    pub clock: Clock,
    pub config: EngineConfig,
}

impl Engine {
    /// An engine with a freshly calibrated clock.
    pub fn new(config: EngineConfig) -> Engine {
        todo!()
    }

    /// Measure one point. `probe(iters)` performs `iters` operations and returns
    /// how long they took. The engine warms up, picks a batch size so one batch
    /// lasts at least `batch_time` (and ≥ 1000× the clock resolution), then runs
    /// `trials` batches. `keep_going()` is polled between batches; when it
    /// returns false the samples so far are returned.
    pub fn measure<E>(
        &self,
        probe: &mut dyn FnMut(u64) -> Result<Duration, E>,
        keep_going: &dyn Fn() -> bool,
    ) -> Result<Vec<Sample>, E> {
        todo!()
    }
}
