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
//! connection's next request goes out up to one nap late, which costs a
//! closed loop throughput when the server is not the bottleneck, so the nap
//! is kept to an eighth of the loop's recent mean latency (and to
//! `--coalesce`).
//! A nap after which nothing is ready was wasted: the naps that follow are
//! skipped, more of them after each miss, so a slow server gets ordinary
//! sleeps.

use std::time::Duration;

/// Naps shorter than this are not worth a timer.
const SHORTEST: Duration = Duration::from_micros(1);
/// The longest nap while answers come unstamped, when a nap is added to
/// the latencies reported.
pub const UNSTAMPED_MOST: Duration = Duration::from_micros(10);
/// After the k-th miss in a row, 2^k nap chances are skipped (k at most this).
const MAX_BACKOFF: u32 = 6;

pub struct Coalesce {
    /// The longest nap (--coalesce); zero: never nap.
    most: Duration,
    /// Recent mean latency, in ns: a moving average over about 16 answers.
    mean_ns: u64,
    /// Nap chances still to skip after a miss.
    skip: u32,
    /// Misses in a row.
    misses: u32,
    /// The last answer carried the kernel's arrival stamp.
    stamped: bool,
}

impl Coalesce {
    pub fn new(most: Duration) -> Coalesce {
        Coalesce {
            most,
            mean_ns: 0,
            skip: 0,
            misses: 0,
            stamped: false,
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
    }

    /// Nothing is ready and the loop would sleep: how long to nap instead,
    /// or None to sleep until an event.
    pub fn nap(&mut self) -> Option<Duration> {
        if self.most.is_zero() || self.mean_ns == 0 {
            return None;
        }
        if self.skip > 0 {
            self.skip -= 1;
            return None;
        }
        let most = if self.stamped {
            self.most
        } else {
            self.most.min(UNSTAMPED_MOST)
        };
        let d = most.min(Duration::from_nanos(self.mean_ns / 8));
        (d >= SHORTEST).then_some(d)
    }

    /// After a nap: whether anything was ready when it ended.
    pub fn after_nap(&mut self, found: bool) {
        if found {
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
        let mut c = Coalesce::new(Duration::ZERO);
        c.answered(us(400), true);
        assert_eq!(c.nap(), None);
        let mut c = Coalesce::new(us(10));
        assert_eq!(c.nap(), None);
        c.answered(us(400), true);
        assert_eq!(c.nap(), Some(us(10)));
    }

    #[test]
    fn the_nap_is_at_most_an_eighth_of_the_recent_latency() {
        let mut c = Coalesce::new(us(10));
        for _ in 0..200 {
            c.answered(us(40), true);
        }
        let d = c.nap().unwrap();
        assert!(d <= us(5) && d > us(4), "{d:?}");
        // A fast server: an eighth of 4 µs is under the shortest nap.
        for _ in 0..400 {
            c.answered(us(4), true);
        }
        assert_eq!(c.nap(), None);
        // Slow answers again: back to the cap.
        for _ in 0..400 {
            c.answered(us(1000), true);
        }
        assert_eq!(c.nap(), Some(us(10)));
    }

    #[test]
    fn unstamped_answers_keep_naps_short() {
        let mut c = Coalesce::new(us(50));
        for _ in 0..200 {
            c.answered(us(1000), true);
        }
        assert_eq!(c.nap(), Some(us(50)));
        c.answered(us(1000), false);
        assert_eq!(c.nap(), Some(UNSTAMPED_MOST));
        c.answered(us(1000), true);
        assert_eq!(c.nap(), Some(us(50)));
    }

    #[test]
    fn misses_skip_more_chances_each_time_and_a_hit_resets() {
        let mut c = Coalesce::new(us(10));
        c.answered(us(400), true);
        let skipped = |c: &mut Coalesce| {
            let mut n = 0;
            while c.nap().is_none() {
                n += 1;
                assert!(n < 1000, "never naps again");
            }
            n
        };
        assert!(c.nap().is_some());
        c.after_nap(false);
        assert_eq!(skipped(&mut c), 2);
        c.after_nap(false);
        assert_eq!(skipped(&mut c), 4);
        for _ in 0..10 {
            c.after_nap(false);
            skipped(&mut c);
        }
        c.after_nap(false);
        assert_eq!(skipped(&mut c), 1 << MAX_BACKOFF);
        c.after_nap(true);
        assert!(c.nap().is_some());
        c.after_nap(false);
        assert_eq!(skipped(&mut c), 2);
    }
}
