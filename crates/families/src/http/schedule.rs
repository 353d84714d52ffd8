//! One connection's place in the constant-rate schedule (`--rate`, wrk2's
//! open model). Each request has a slot, its *intended* start; the
//! corrected latency is timed from the slot, so a server that stalls cannot
//! hide the queue it built behind the stall.
//!
//! The correction only means something if the generator keeps to the slots
//! itself: a request that toll sends late for its own reasons (it waited
//! for the wrong slot, its timer fired late, its loop was busy) is timed
//! from the slot too, and the lag is blamed on the server. So the slot a
//! waiting connection wakes for lives here, beside the one it was given —
//! they were once apart, and every other request went out a whole interval
//! late — and how late each request really went out (`lag`) is kept, so a
//! slow generator can be told from a slow server.

use std::time::{Duration, Instant};

/// The slots of one connection: `first`, `first + interval`, …
#[derive(Debug, Clone)]
pub struct Schedule {
    next: Instant,
    interval: Duration,
    /// The slot of the request waiting for its start, if one is.
    waiting: Option<Instant>,
}

/// A request the connection sends now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Send {
    /// Its slot: where the corrected latency is timed from.
    pub intended: Instant,
    /// How late toll sent it after both its slot had come and the
    /// connection was free: toll's own delay, not the server's.
    pub lag: Duration,
}

impl Schedule {
    pub fn new(first: Instant, interval: Duration) -> Schedule {
        Schedule {
            next: first,
            interval,
            waiting: None,
        }
    }

    /// The connection is free at `now` for its next request: send it now
    /// when its slot has come (a server slower than the interval makes
    /// every slot come early), else wait until `due()`.
    pub fn free(&mut self, now: Instant) -> Option<Send> {
        let slot = self.next;
        self.next += self.interval;
        if slot <= now {
            self.waiting = None;
            return Some(Send {
                intended: slot,
                lag: Duration::ZERO,
            });
        }
        self.waiting = Some(slot);
        None
    }

    /// When the waiting request should go out: the loop's next wake-up.
    pub fn due(&self) -> Option<Instant> {
        self.waiting
    }

    /// At `now`: the waiting request, if its slot has come.
    pub fn take_due(&mut self, now: Instant) -> Option<Send> {
        let slot = self.waiting.filter(|s| *s <= now)?;
        self.waiting = None;
        Some(Send {
            intended: slot,
            lag: now - slot,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    /// What a loop with a perfect timer does on one connection against a
    /// server that answers every request in `service`: for each request
    /// (intended start, actual send, answer).
    fn simulate(
        interval: Duration,
        service: Duration,
        n: usize,
    ) -> Vec<(Instant, Instant, Instant)> {
        let t0 = Instant::now();
        let mut s = Schedule::new(t0 + ms(10), interval);
        let mut now = t0;
        let mut out = Vec::new();
        while out.len() < n {
            let send = match s.free(now) {
                Some(send) => send,
                None => {
                    // The loop sleeps until the due slot and wakes there.
                    now = s.due().expect("a waiting request has a slot");
                    s.take_due(now).expect("due at its slot")
                }
            };
            let answered = now + service;
            out.push((send.intended, now, answered));
            now = answered;
        }
        out
    }

    #[test]
    fn a_fast_server_is_sent_every_request_on_its_slot() {
        // 200 µs answers, one request per 5 ms: corrected = uncorrected.
        let runs = simulate(ms(5), us(200), 50);
        for (k, (intended, sent, answered)) in runs.iter().enumerate() {
            assert_eq!(sent, intended, "request {k} left late");
            assert_eq!(*answered - *intended, us(200), "request {k}");
        }
        // The slots are the schedule's: 5 ms apart.
        for w in runs.windows(2) {
            assert_eq!(w[1].0 - w[0].0, ms(5));
        }
    }

    #[test]
    fn a_slow_server_builds_a_queue_the_correction_counts() {
        // 7 ms answers, one request per 5 ms: each request starts 2 ms later
        // than the one before relative to its slot, and the corrected
        // latency says so while the uncorrected one stays at 7 ms.
        let runs = simulate(ms(5), ms(7), 20);
        for (k, (intended, sent, answered)) in runs.iter().enumerate() {
            assert_eq!(*answered - *sent, ms(7), "uncorrected, request {k}");
            assert_eq!(
                *answered - *intended,
                ms(7) + ms(2) * k as u32,
                "corrected, request {k}"
            );
        }
    }

    #[test]
    fn the_wait_is_for_the_slot_given_not_the_next() {
        let t0 = Instant::now();
        let mut s = Schedule::new(t0 + ms(1), ms(5));
        assert_eq!(s.free(t0), None);
        assert_eq!(s.due(), Some(t0 + ms(1)));
        assert_eq!(s.take_due(t0 + us(999)), None, "not before its slot");
        let late = s.take_due(t0 + ms(1) + us(30)).unwrap();
        assert_eq!(late.intended, t0 + ms(1));
        assert_eq!(late.lag, us(30), "toll's own delay");
        assert_eq!(s.due(), None);
        // Free again well before the next slot: wait for t0 + 6 ms.
        assert_eq!(s.free(t0 + ms(2)), None);
        assert_eq!(s.due(), Some(t0 + ms(6)));
    }

    #[test]
    fn a_request_held_up_by_the_server_is_not_toll_lag() {
        let t0 = Instant::now();
        let mut s = Schedule::new(t0, ms(5));
        let first = s.free(t0).unwrap();
        assert_eq!((first.intended, first.lag), (t0, Duration::ZERO));
        // The answer came 12 ms later: the next slot (5 ms) has passed, so
        // the request goes at once; its wait is in the corrected latency,
        // and none of it is toll's.
        let second = s.free(t0 + ms(12)).unwrap();
        assert_eq!((second.intended, second.lag), (t0 + ms(5), Duration::ZERO));
    }
}
