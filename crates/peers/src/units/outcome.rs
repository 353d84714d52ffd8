//! What making units gives back, whatever the unit: the measure of a
//! `spawn` that made them all, or the limit that stopped it part way.

use std::time::Duration;

/// What a `spawn` measured.
pub struct Spawned {
    pub elapsed: Duration,
    pub mem_kb: i64,
    /// Units that marked themselves ready: the ready counter, not the request.
    pub made: u64,
}

/// Why units could not all be made.
pub struct Limit {
    pub created: u64,
    pub reason: String,
}
