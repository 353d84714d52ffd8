//! What one event loop is given: its address, its request bytes, its share
//! of the connections, requests and rate, its limits; and the counter it
//! reports progress on.

use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A counter on its own cache line, written by one loop, sampled by the
/// progress display.
#[repr(align(128))]
#[derive(Debug, Default)]
pub struct Counter(pub AtomicU64);

/// What one loop is to do.
#[derive(Debug, Clone)]
pub struct LoopPlan {
    pub addr: SocketAddr,
    pub request: Arc<[u8]>,
    pub connections: usize,
    /// This loop's share of -n; None: until the deadline.
    pub requests: Option<u64>,
    pub deadline: Option<Instant>,
    pub timeout: Duration,
    pub keep_alive: bool,
    pub no_body: bool,
    pub variable_length: bool,
    /// Constant rate: the interval between one connection's intended sends,
    /// and this loop's first connection's offset in the global schedule.
    pub rate: Option<RateShare>,
    pub start: Instant,
    /// Poll this long after the last event before sleeping (0: sleep at once).
    pub spin: Duration,
    /// The longest nap in place of a sleep while requests are in flight
    /// (0: sleep until an event).
    pub coalesce: Duration,
}

#[derive(Debug, Clone, Copy)]
pub struct RateShare {
    pub interval: Duration,
    /// Connection k of this loop first sends at start + offsets·(first + k).
    pub first: u32,
    pub offset: Duration,
}
