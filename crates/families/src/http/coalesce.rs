//! Coalesced wake-ups for an HTTP/1.1 event loop (`--coalesce`).
//!
//! A loop that sleeps in epoll is woken by each answer the server writes,
//! and with the server on the same host that wake-up is work on the
//! server's core (on a VM: an inter-processor interrupt, a VM exit). When
//! several requests are in flight and nothing is ready, the loop can
//! instead nap on its own timer: answers that arrive meanwhile wake nobody,
//! and the loop takes them together when the nap ends.
//!
//! The kernel stamps each answer's arrival (`stamp`), so a nap does not
//! lengthen the latencies reported; where the kernel will not stamp, an
//! answer's end is when it is read, up to one nap late. Either way the
//! connection's next request goes out up to one nap late. When the server
//! is the bottleneck that costs nothing: the request would have waited as
//! long in the server's queue, and the answers come back as fast. When it
//! is not, it costs a closed loop throughput. The loop cannot tell the two
//! apart by looking, only by trying, so it does (`Probe`): it alternates
//! stretches of answers at its nap and at a longer one, and keeps the
//! longer nap only where the answers' latency fell by about what the nap
//! added (the wait moved from the server's queue into toll's). Otherwise
//! it steps back down, never below an eighth of the recent mean latency
//! (the rule before probing: at most ~6% of a closed loop's throughput),
//! and never above `--coalesce`.
//!
//! A nap is a miss when it found fewer than four answers (it saved at most
//! a few wake-ups and cost a timer's, which on a VM is about as dear) or
//! every answer in flight (the server then sat idle for part of it): the
//! naps that follow are skipped, more of them after each miss, so a slow
//! server, or a loop with only a few requests in flight, gets ordinary
//! sleeps.

use std::time::Duration;

/// Naps shorter than this are not worth a timer.
const SHORTEST: Duration = Duration::from_micros(1);
/// The longest nap while answers come unstamped, when a nap is added to
/// the latencies reported.
pub const UNSTAMPED_MOST: Duration = Duration::from_micros(10);
/// After the k-th miss in a row, 2^k nap chances are skipped (k at most this).
const MAX_BACKOFF: u32 = 6;
/// A nap that finds fewer answers than this is a miss (as is one that
/// finds every answer in flight).
const MIN_FOUND: u32 = 4;
/// Answers per stretch of a probe, after those of the last nap drain.
const STRETCH: u32 = 256;
/// Pairs of stretches (the nap, the longer one) per decision.
const PAIRS: u32 = 8;

/// Trying a longer nap: stretches of answers alternate between the loop's
/// nap (`low`) and a longer one (`high`); after `PAIRS` pairs the loop
/// keeps `high` if the latency fell by at least half of what it added.
#[derive(Default)]
struct Probe {
    /// In a `high` stretch.
    high: bool,
    /// Answers still to let pass before counting (those sent at the other
    /// nap).
    drain: u32,
    /// Answers counted in this stretch and their latencies' sum.
    n: u32,
    sum_ns: u64,
    /// The mean latency of the last `low` stretch.
    low_mean: u64,
    pairs: u32,
    /// Sum over pairs of (low stretch's mean − high stretch's mean).
    fell_ns: i64,
}

pub struct Coalesce {
    /// The longest nap (--coalesce); zero: never nap.
    most: Duration,
    /// Recent mean latency, in ns: a moving average over about 16 answers.
    mean_ns: u64,
    /// Nap chances still to skip after a miss.
    skip: u32,
    /// A nap was taken and is yet to be judged by what it found.
    napped: bool,
    /// Answers since the last nap ended.
    since: u32,
    /// Misses in a row.
    misses: u32,
    /// The last answer carried the kernel's arrival stamp.
    stamped: bool,
    /// Requests in flight on this loop (its connections).
    in_flight: u32,
    /// The nap the loop has settled on, in ns; 0 before the first answer.
    level_ns: u64,
    probe: Probe,
}

impl Coalesce {
    /// `in_flight`: the loop's connections, each with a request out.
    pub fn new(most: Duration, in_flight: usize) -> Coalesce {
        Coalesce {
            most,
            mean_ns: 0,
            skip: 0,
            napped: false,
            since: 0,
            misses: 0,
            stamped: false,
            in_flight: in_flight.min(u32::MAX as usize) as u32,
            level_ns: 0,
            probe: Probe::default(),
        }
    }

    /// An answer came `latency` after its request was due; `stamped`: its
    /// end is the kernel's arrival stamp, not the time it was read.
    pub fn answered(&mut self, latency: Duration, stamped: bool) {
        self.stamped = stamped;
        let x = latency.as_nanos().min(u64::MAX as u128) as u64;
        self.mean_ns = if self.mean_ns == 0 {
            x
        } else {
            self.mean_ns - self.mean_ns / 16 + x / 16
        };
        if self.most.is_zero() {
            return;
        }
        self.since = self.since.saturating_add(1);
        if self.level_ns == 0 {
            self.level_ns = self.least();
        }
        self.count(x);
    }

    /// The shortest nap the loop keeps to: an eighth of the recent mean
    /// latency, or `--coalesce` if less.
    fn least(&self) -> u64 {
        (self.mean_ns / 8).min(self.most_ns())
    }

    fn most_ns(&self) -> u64 {
        let most = if self.stamped {
            self.most
        } else {
            self.most.min(UNSTAMPED_MOST)
        };
        most.as_nanos().min(u64::MAX as u128) as u64
    }

    /// The two naps a probe compares: the loop's, and half again as long
    /// (at `--coalesce`: two thirds of it, and it).
    fn pair(&self) -> (u64, u64) {
        let (least, most) = (self.least(), self.most_ns());
        let level = self.level_ns.max(least).min(most);
        let high = (level + level / 2).min(most);
        if high > level {
            (level, high)
        } else {
            ((level - level / 3).max(least), level)
        }
    }

    /// One answer's latency into the probe's stretch.
    fn count(&mut self, x: u64) {
        let p = &mut self.probe;
        if p.drain > 0 {
            p.drain -= 1;
            return;
        }
        p.n += 1;
        p.sum_ns = p.sum_ns.saturating_add(x);
        if p.n < STRETCH {
            return;
        }
        let mean = p.sum_ns / p.n as u64;
        p.n = 0;
        p.sum_ns = 0;
        p.drain = self.in_flight;
        if !p.high {
            p.low_mean = mean;
            p.high = true;
            return;
        }
        p.high = false;
        p.fell_ns = p.fell_ns.saturating_add(p.low_mean as i64 - mean as i64);
        p.pairs += 1;
        if p.pairs < PAIRS {
            return;
        }
        let (low, high) = self.pair();
        // A nap of d makes an answer wait d/2 on average before its
        // connection's next request goes out.
        let added = (high - low) as i64 / 2 * PAIRS as i64;
        let fell = self.probe.fell_ns;
        self.level_ns = if added > 0 && fell * 2 >= added {
            high
        } else {
            (low - low / 3).max(self.least())
        };
        self.probe.pairs = 0;
        self.probe.fell_ns = 0;
    }

    /// Nothing is ready and the loop would sleep: how long to nap instead,
    /// or None to sleep until an event.
    pub fn nap(&mut self) -> Option<Duration> {
        if self.most.is_zero() || self.mean_ns == 0 {
            return None;
        }
        if self.napped {
            self.napped = false;
            self.judge();
        }
        if self.skip > 0 {
            self.skip -= 1;
            return None;
        }
        let (low, high) = self.pair();
        let d = Duration::from_nanos(if self.probe.high { high } else { low });
        (d >= SHORTEST).then_some(d)
    }

    /// A nap was taken: the answers the loop takes until it would sleep
    /// again are what the nap found.
    pub fn after_nap(&mut self) {
        self.napped = true;
        self.since = 0;
    }

    fn judge(&mut self) {
        if self.since >= MIN_FOUND && self.since < self.in_flight {
            self.misses = 0;
        } else {
            self.misses = (self.misses + 1).min(MAX_BACKOFF);
            self.skip = 1 << self.misses;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn no_nap_when_off_or_before_any_answer() {
        let mut c = Coalesce::new(Duration::ZERO, 20);
        for _ in 0..10_000 {
            c.answered(us(400), true);
        }
        assert_eq!(c.nap(), None);
        let mut c = Coalesce::new(us(10), 20);
        assert_eq!(c.nap(), None);
        c.answered(us(400), true);
        assert_eq!(c.nap(), Some(us(10)));
    }

    #[test]
    fn the_first_nap_is_an_eighth_of_the_latency() {
        let mut c = Coalesce::new(us(100), 20);
        for _ in 0..100 {
            c.answered(us(40), true);
        }
        assert_eq!(c.nap(), Some(us(5)));
        // A fast server: an eighth of 4 µs is under the shortest nap.
        let mut c = Coalesce::new(us(100), 20);
        c.answered(us(4), true);
        assert_eq!(c.nap(), None);
    }

    /// Runs a closed loop of 20 connections against a model of a server
    /// for `answers`, each answer's latency given by `latency` of the nap
    /// in effect; the nap the loop settles on.
    fn settle(most: Duration, answers: u32, latency: impl Fn(u64) -> u64) -> Duration {
        let mut c = Coalesce::new(most, 20);
        let mut nap = 0;
        for _ in 0..answers / MIN_FOUND {
            // Each nap finds MIN_FOUND answers.
            for _ in 0..MIN_FOUND {
                c.answered(Duration::from_nanos(latency(nap)), true);
            }
            nap = c.nap().map_or(0, |d| d.as_nanos() as u64);
            c.after_nap();
        }
        Duration::from_nanos(c.level_ns)
    }

    /// A little deterministic noise, ±8 µs, so no stretch is exact.
    fn jitter(k: u64) -> u64 {
        (k.wrapping_mul(2_654_435_761) >> 7) % 16_000
    }

    #[test]
    fn a_bottleneck_server_takes_the_nap_up_to_the_cap() {
        // One worker serving 20 connections, 12 µs each: a request waits
        // 240 µs in all, less whatever toll held it back (half a nap).
        let k = std::cell::Cell::new(0u64);
        let settled = settle(us(100), 200_000, |nap| {
            k.set(k.get() + 1);
            240_000 - nap / 2 + jitter(k.get()) - 8_000
        });
        assert_eq!(settled, us(100));
    }

    #[test]
    fn an_idle_server_keeps_the_nap_at_an_eighth_of_the_latency() {
        // A server that holds each answer 320 µs on its own thread: a nap
        // only adds to the cycle.
        let k = std::cell::Cell::new(0u64);
        let settled = settle(us(100), 200_000, |_| {
            k.set(k.get() + 1);
            320_000 + jitter(k.get()) - 8_000
        });
        assert!(settled >= us(38) && settled <= us(60), "{settled:?}");
    }

    #[test]
    fn unstamped_answers_keep_naps_short() {
        let mut c = Coalesce::new(us(100), 20);
        for _ in 0..200 {
            c.answered(us(1000), true);
        }
        assert_eq!(c.nap(), Some(us(100)));
        c.answered(us(1000), false);
        assert_eq!(c.nap(), Some(UNSTAMPED_MOST));
        for _ in 0..20_000 {
            c.answered(us(1000), false);
            assert!(c.nap().unwrap() <= UNSTAMPED_MOST);
        }
        c.answered(us(1000), true);
        assert!(c.nap().unwrap() > UNSTAMPED_MOST);
    }

    #[test]
    fn naps_that_find_few_answers_or_all_skip_more_chances_and_a_find_resets() {
        let mut c = Coalesce::new(us(10), 20);
        c.answered(us(400), true);
        let skipped = |c: &mut Coalesce| {
            let mut n = 0;
            while c.nap().is_none() {
                n += 1;
                assert!(n < 1000, "never naps again");
            }
            n
        };
        let found = |c: &mut Coalesce, n: u32| {
            c.after_nap();
            for _ in 0..n {
                c.answered(us(400), true);
            }
        };
        // A nap that found nothing, then one that found three answers.
        assert!(c.nap().is_some());
        found(&mut c, 0);
        assert_eq!(skipped(&mut c), 2);
        found(&mut c, MIN_FOUND - 1);
        assert_eq!(skipped(&mut c), 4);
        for _ in 0..10 {
            found(&mut c, 0);
            skipped(&mut c);
        }
        // Every answer in flight: the server sat idle.
        found(&mut c, 20);
        assert_eq!(skipped(&mut c), 1 << MAX_BACKOFF);
        // Enough found, and not all: the next chance naps.
        found(&mut c, MIN_FOUND);
        assert!(c.nap().is_some());
        found(&mut c, 19);
        assert!(c.nap().is_some());
        found(&mut c, 0);
        assert_eq!(skipped(&mut c), 2);
    }
}
