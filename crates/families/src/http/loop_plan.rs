//! What one event loop is given: its address, its request bytes, its share
//! of the connections, requests and rate, its limits; and the counter it
//! reports progress on.

use super::sock::Endpoint;
use super::stats::{IntervalSink, RawSink, Stats};
use super::urls::{Pick, Picker};
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
    /// Where every connection goes.
    pub addr: Endpoint,
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
    /// Where each answer's latency also goes, when the run streams them.
    pub interval: Option<IntervalSink>,
    /// Where each answer's latency is also kept raw, when asked to check.
    pub raw: Option<RawSink>,
    /// --urls: every line's request, and how each request picks one.
    pub mix: Option<Mix>,
}

/// A URL file's requests as one loop sends them.
#[derive(Debug, Clone)]
pub struct Mix {
    /// Each line's request bytes (HTTP/1.1), in the file's order.
    pub requests: Arc<[Arc<[u8]>]>,
    /// Each line's request is a HEAD (its answer has no body).
    pub no_body: Arc<[bool]>,
    pub lines: usize,
    pub pick: Pick,
    /// This loop's number, and its first connection's among the run's.
    pub index: u64,
    pub first: usize,
}

impl LoopPlan {
    /// The loop's empty counts, feeding the sinks it was given.
    pub fn stats(&self) -> Stats {
        Stats::new(self.rate.is_some())
            .with_interval(self.interval.clone())
            .with_raw(self.raw.clone())
            .with_urls(self.mix.as_ref().map_or(0, |m| m.lines))
    }

    /// With a URL file, this loop's choice of each request's line.
    pub fn picker(&self) -> Option<Picker> {
        self.mix
            .as_ref()
            .map(|m| Picker::new(m.lines, m.pick, m.index, m.first))
    }
}

#[derive(Debug, Clone, Copy)]
pub struct RateShare {
    pub interval: Duration,
    /// Connection k of this loop first sends at
    /// start + phase + offset·(first + k).
    pub first: u32,
    pub offset: Duration,
    /// Zero on one machine; an agent's place in the global schedule.
    pub phase: Duration,
}

impl RateShare {
    /// This loop's connections' shares of the constant rate `rate` over
    /// `concurrency` connections in all, `first` being its first
    /// connection's number among this machine's. The global schedule sends
    /// arrival i at start + i/rate on connection i mod c (c: connections in
    /// the whole run), so each connection sends every c/rate. With agents,
    /// connection j belongs to agent j mod K: agent k's own connection l is
    /// global connection k + K·l, first sending at start + k/rate + l·K/rate.
    pub fn of(rate: f64, concurrency: usize, first: u32, shard: Option<Shard>) -> RateShare {
        let (k, of, c) = shard.map_or((0, 1, concurrency), |s| (s.index, s.of, s.connections));
        RateShare {
            interval: Duration::from_secs_f64(c as f64 / rate),
            first,
            offset: Duration::from_secs_f64(of as f64 / rate),
            phase: Duration::from_secs_f64(k as f64 / rate),
        }
    }

    /// When this loop's connection `k` first sends.
    pub fn first_slot(&self, start: Instant, k: usize) -> Instant {
        start + self.phase + self.offset * (self.first + k as u32)
    }
}

/// One agent's place in a run from `of` load agents that share
/// `connections` connections (and one arrival schedule) in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub of: usize,
    pub connections: usize,
}

/// How a load fits a run from many agents: when it starts (None: as soon as
/// it can) and its shard of the arrival schedule. `Part::default()` is a
/// single-host run.
#[derive(Debug, Clone, Default)]
pub struct Part {
    pub start: Option<Instant>,
    pub shard: Option<Shard>,
    /// Keep every latency raw too (an agent asked to check its merge).
    pub raw: Option<RawSink>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every first slot of a run's connections, over agents and their loops,
    /// then `rounds` sends each: the merged arrivals, in ns from the start.
    fn arrivals(rate: f64, conns: &[Vec<usize>], rounds: u32) -> Vec<u64> {
        let start = Instant::now();
        let (of, c) = (conns.len(), conns.iter().flatten().sum::<usize>());
        let mut out = Vec::new();
        for (index, loops) in conns.iter().enumerate() {
            let mut first = 0u32;
            for &n in loops {
                let shard = (of > 1).then_some(Shard {
                    index,
                    of,
                    connections: c,
                });
                let r = RateShare::of(rate, c, first, shard);
                for k in 0..n {
                    for m in 0..rounds {
                        let at = r.first_slot(start, k) + r.interval * m;
                        out.push((at - start).as_nanos() as u64);
                    }
                }
                first += n as u32;
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn agents_shards_merge_into_the_one_schedule() {
        // 400/s over 6 connections: one machine with two loops, and three
        // agents with 2 each (one of them on two loops).
        let one = arrivals(400.0, &[vec![3, 3]], 10);
        let three = arrivals(400.0, &[vec![2], vec![1, 1], vec![2]], 10);
        assert_eq!(one.len(), 60);
        assert_eq!(three, one, "the same arrivals");
        for (i, at) in one.iter().enumerate() {
            assert!(
                at.abs_diff(i as u64 * 2_500_000) <= 60,
                "arrival {i} at {at}"
            );
        }
        // Connections that do not divide among the agents: 5 over 2.
        let one = arrivals(100.0, &[vec![5]], 4);
        assert_eq!(arrivals(100.0, &[vec![3], vec![2]], 4), one);
    }
}
