//! A precise wake-up for an HTTP/1.1 event loop at a constant rate.
//!
//! epoll's timeout counts whole milliseconds (mio rounds a shorter wait up
//! to one), so a loop that sleeps in epoll until its next request's slot
//! sends a request due in 30 µs up to a millisecond late, unless an answer
//! happens to wake it first: at a low rate, nearly every request. A
//! timerfd in the same poll wakes the loop at the slot itself (with the
//! thread's timer slack at 1 ns).

use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};
use rustix::fd::{AsRawFd, OwnedFd};
use rustix::time::{
    timerfd_create, timerfd_settime, Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags,
    Timespec,
};
use std::time::{Duration, Instant};

/// The timer's token in the loop's poll: above every connection's.
pub const TOKEN: Token = Token(usize::MAX - 1);

pub struct Timer {
    fd: OwnedFd,
    /// When it is set to fire (None: disarmed or fired).
    armed: Option<Instant>,
}

impl Timer {
    /// A disarmed timer, registered with `registry` under `TOKEN`.
    pub fn new(registry: &Registry) -> std::io::Result<Timer> {
        let fd = timerfd_create(
            TimerfdClockId::Monotonic,
            TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
        )?;
        registry.register(&mut SourceFd(&fd.as_raw_fd()), TOKEN, Interest::READABLE)?;
        Ok(Timer { fd, armed: None })
    }

    /// Make sure the loop wakes by `at`. An earlier wake-up already set is
    /// kept: the loop sets the next one when it fires.
    pub fn wake_by(&mut self, at: Instant, now: Instant) {
        if self.armed.is_some_and(|a| a <= at) {
            return;
        }
        let d = at.saturating_duration_since(now);
        if d.is_zero() {
            // Due already: the loop does not sleep.
            return;
        }
        let spec = Itimerspec {
            it_interval: timespec(Duration::ZERO),
            it_value: timespec(d),
        };
        if timerfd_settime(&self.fd, TimerfdTimerFlags::empty(), &spec).is_ok() {
            self.armed = Some(at);
        }
    }

    /// It fired: take its count, so the next firing is a new event.
    pub fn fired(&mut self) {
        let mut count = [0u8; 8];
        let _ = rustix::io::read(&self.fd, &mut count);
        self.armed = None;
    }
}

fn timespec(d: Duration) -> Timespec {
    Timespec {
        tv_sec: d.as_secs() as _,
        tv_nsec: d.subsec_nanos() as _,
    }
}
