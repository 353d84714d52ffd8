//! One event loop (one thread) owning its share of the connections: each
//! connection a small state machine on mio, the request bytes shared and
//! written as they are, the response parsed as it streams in. Nothing per
//! request touches another thread: counts go to this loop's own Stats, and
//! progress is one relaxed store to this loop's own counter.
//!
//! Reads land in one buffer per loop; a connection keeps only the bytes the
//! parser has not consumed yet (part of a head). While a long
//! Content-Length body streams in, the socket's SO_RCVLOWAT is raised to
//! what is left of it (up to `LOWAT_MAX`), so the loop is woken once per
//! `LOWAT_MAX` bytes instead of once per segment: on loopback each wake-up
//! of an idle load generator is work done on the server's core. For the
//! same reason, with several requests in flight and nothing ready, the loop
//! naps on a timer instead of sleeping until the next answer (`coalesce`).
//!
//! At a constant rate each connection keeps to its own slots (`schedule`),
//! and the loop wakes for the next one on a timerfd (`timer`), since
//! epoll's millisecond timeout would send a request due sooner late.

use super::coalesce::Coalesce;
use super::event_conn::{Conn, Phase};
pub use super::loop_plan::{Counter, LoopPlan, RateShare};
use super::lowat::{set_lowat, wake_after};
use super::response::{feed_carried, Response};
use super::schedule::Schedule;
use super::sock::MioStream;
use super::stamp;
use super::stats::{Answered, Stats};
use super::timer::{self, Timer};
use super::urls::Picker;
use mio::{Events, Interest, Poll, Token};
use std::io::{ErrorKind, Write};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The loop's read buffer.
const READ_BUF: usize = 256 * 1024;
const TIMEOUT_SCAN: Duration = Duration::from_millis(5);

/// A request this long or shorter leaves in one segment whatever the path's
/// MSS (at least 536 bytes), so Nagle's algorithm cannot hold any of it
/// back (an answered request leaves nothing unacknowledged): TCP_NODELAY,
/// one system call per connection, is only set for longer requests.
const ONE_SEGMENT: usize = 536;

/// Run one loop to its end; its counts.
pub fn run(plan: &LoopPlan, stop: &AtomicBool, progress: &Counter) -> std::io::Result<Stats> {
    let mut poll = Poll::new()?;
    let mut events = Events::with_capacity(1024);
    let mut lp = Loop {
        plan,
        stats: plan.stats(),
        issued: 0,
        conns: Vec::with_capacity(plan.connections),
        progress,
        backoffs: 0,
        scratch: vec![0u8; READ_BUF].into_boxed_slice(),
        coalesce: Coalesce::new(
            Some(plan.coalesce)
                .filter(|_| plan.connections >= 2 && plan.rate.is_none())
                .unwrap_or_default(),
            plan.connections,
        ),
        picker: plan.picker(),
    };
    if !plan.coalesce.is_zero() || plan.rate.is_some() {
        // Naps of microseconds and sends on their slots: without this a
        // timer may fire 50 µs late.
        let _ = nix::sys::prctl::set_timerslack(1);
    }
    // Without a timerfd, epoll's timeout still wakes the loop, a little late.
    let mut timer = match plan.rate {
        Some(_) => Timer::new(poll.registry()).ok(),
        None => None,
    };
    let now = Instant::now();
    for k in 0..plan.connections {
        lp.conns.push(Conn::new(plan, k, now));
    }
    for k in 0..plan.connections {
        lp.start_next(&mut poll, k, now);
    }
    let mut next_scan = now + TIMEOUT_SCAN;
    // --spin: until then, poll without sleeping.
    let mut spin_until = now;
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let now = Instant::now();
        if plan.deadline.is_some_and(|d| now >= d) {
            break;
        }
        if lp.conns.iter().all(|c| c.phase == Phase::Finished) {
            break;
        }
        let mut wait = next_scan.saturating_duration_since(now);
        if let Some(d) = plan.deadline {
            wait = wait.min(d.saturating_duration_since(now));
        }
        if plan.rate.is_some() || lp.backoffs > 0 {
            let mut due: Option<Instant> = None;
            for c in &lp.conns {
                let at = match c.phase {
                    Phase::Waiting => c.schedule.as_ref().and_then(Schedule::due),
                    Phase::Backoff => Some(c.backoff_until),
                    _ => None,
                };
                if let Some(at) = at {
                    due = Some(due.map_or(at, |d| d.min(at)));
                }
            }
            if let Some(due) = due {
                wait = wait.min(due.saturating_duration_since(now));
                if let Some(t) = &mut timer {
                    t.wake_by(due, now);
                }
            }
        }
        if now < spin_until {
            wait = Duration::ZERO;
        }
        // Look before napping: a nap is only in place of a sleep.
        let nap = if wait.is_zero() {
            None
        } else {
            lp.coalesce.nap()
        };
        if nap.is_some() {
            wait = Duration::ZERO;
        }
        if let Err(e) = poll.poll(&mut events, Some(wait)) {
            if e.kind() == ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if let Some(d) = nap.filter(|_| events.is_empty()) {
            std::thread::sleep(d);
            if let Err(e) = poll.poll(&mut events, Some(Duration::ZERO)) {
                if e.kind() != ErrorKind::Interrupted {
                    return Err(e);
                }
            }
            lp.coalesce.after_nap();
        }
        if !events.is_empty() && !plan.spin.is_zero() {
            spin_until = Instant::now() + plan.spin;
        }
        for ev in events.iter() {
            if ev.token() == timer::TOKEN {
                if let Some(t) = &mut timer {
                    t.fired();
                }
                continue;
            }
            lp.on_event(&mut poll, ev.token().0);
        }
        let now = Instant::now();
        if plan.rate.is_some() || lp.backoffs > 0 {
            for k in 0..lp.conns.len() {
                let c = &mut lp.conns[k];
                if c.phase == Phase::Waiting {
                    if let Some(send) = c.schedule.as_mut().and_then(|s| s.take_due(now)) {
                        c.scheduled(send);
                        lp.begin(&mut poll, k, now);
                    }
                } else if c.phase == Phase::Backoff && c.backoff_until <= now {
                    lp.backoffs -= 1;
                    lp.start_next(&mut poll, k, now);
                }
            }
        }
        if now >= next_scan {
            lp.expire(&mut poll, now);
            next_scan = now + TIMEOUT_SCAN;
        }
    }
    // Requests in flight at the deadline or an interrupt are not counted.
    for c in &mut lp.conns {
        if let Some(mut s) = c.stream.take() {
            let _ = poll.registry().deregister(&mut s);
        }
    }
    progress.0.store(lp.stats.complete, Ordering::Relaxed);
    Ok(lp.stats)
}

struct Loop<'a> {
    plan: &'a LoopPlan,
    stats: Stats,
    issued: u64,
    conns: Vec<Conn>,
    progress: &'a Counter,
    /// Connections in Backoff.
    backoffs: usize,
    /// Where every read of this loop lands.
    scratch: Box<[u8]>,
    coalesce: Coalesce,
    /// With a URL file: which line each request sends.
    picker: Option<Picker>,
}

impl Loop<'_> {
    fn more_allowed(&self, now: Instant) -> bool {
        self.plan.requests.is_none_or(|n| self.issued < n)
            && self.plan.deadline.is_none_or(|d| now < d)
    }

    /// Issue this connection's next request, or finish it.
    fn start_next(&mut self, poll: &mut Poll, k: usize, now: Instant) {
        if !self.more_allowed(now) {
            self.close(poll, k);
            self.conns[k].phase = Phase::Finished;
            return;
        }
        self.issued += 1;
        let c = &mut self.conns[k];
        if let Some(s) = &mut c.schedule {
            match s.free(now) {
                Some(send) => c.scheduled(send),
                None => {
                    c.phase = Phase::Waiting;
                    return;
                }
            }
        }
        self.begin(poll, k, now);
    }

    /// Send the request: on the open connection, or on a new one.
    fn begin(&mut self, poll: &mut Poll, k: usize, now: Instant) {
        let want_server = self.stats.doc_len.is_none();
        let timeout = self.plan.timeout;
        let c = &mut self.conns[k];
        c.started = now;
        if c.schedule.is_none() {
            c.intended = now;
        }
        c.written = 0;
        c.carry.clear();
        c.first_byte = None;
        c.retried = false;
        c.deadline = now + timeout;
        c.pick(self.plan, self.picker.as_mut());
        c.parser.reset(want_server);
        if c.stream.is_some() {
            c.reused = true;
            c.phase = Phase::Writing;
            self.write(poll, k);
        } else {
            self.connect(poll, k, now);
        }
    }

    fn connect(&mut self, poll: &mut Poll, k: usize, now: Instant) {
        let c = &mut self.conns[k];
        c.reused = false;
        c.started = now;
        c.lowat = 1;
        match MioStream::connect(&self.plan.addr) {
            Ok(mut s) => {
                stamp::enable(s.as_raw_fd());
                if c.request.len() > ONE_SEGMENT {
                    s.set_nodelay();
                }
                // Readable only: the request is written at once (on loopback
                // the handshake is done when connect returns), and
                // writability is asked for only if a write would block.
                if poll
                    .registry()
                    .register(&mut s, Token(k), Interest::READABLE)
                    .is_err()
                {
                    self.stats.fail_exception += 1;
                    self.stats.url_failed(c.url);
                    c.phase = Phase::Backoff;
                    c.backoff_until = now + Duration::from_millis(1);
                    self.backoffs += 1;
                    return;
                }
                c.stream = Some(s);
                c.phase = Phase::Connecting;
                c.writable = false;
                self.on_connect(poll, k, false);
            }
            Err(_) => {
                self.stats.fail_connect += 1;
                self.stats.url_failed(c.url);
                c.phase = Phase::Backoff;
                c.backoff_until = now + Duration::from_millis(1);
                self.backoffs += 1;
            }
        }
    }

    fn on_event(&mut self, poll: &mut Poll, k: usize) {
        if k >= self.conns.len() {
            return;
        }
        match self.conns[k].phase {
            Phase::Connecting => self.on_connect(poll, k, true),
            Phase::Writing => self.write(poll, k),
            Phase::Reading => self.read(poll, k),
            Phase::Waiting | Phase::Backoff | Phase::Finished => {}
        }
    }

    /// The socket became writable (or failed) while connecting. The write
    /// itself says which: a socket still connecting refuses it with
    /// EAGAIN, a failed connect with its error (two system calls fewer per
    /// connection than asking SO_ERROR and the peer's address first).
    /// `event`: called for an event, not straight after connect (where a
    /// failure is left to the error event the socket will raise, so a
    /// refused connect does not recurse into the next one).
    fn on_connect(&mut self, poll: &mut Poll, k: usize, event: bool) {
        let now = Instant::now();
        let c = &mut self.conns[k];
        let Some(s) = c.stream.as_mut() else { return };
        let request = c.request.clone();
        loop {
            match s.write(&request) {
                Ok(n) => {
                    c.connected = now;
                    c.written = n;
                    c.phase = Phase::Writing;
                    self.wrote(poll, k);
                    return;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    self.want_writable(poll, k);
                    return;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) if !event => return,
                Err(_) => {
                    self.stats.fail_connect += 1;
                    self.stats.url_failed(c.url);
                    self.close(poll, k);
                    self.start_next(poll, k, now);
                    return;
                }
            }
        }
    }

    fn write(&mut self, poll: &mut Poll, k: usize) {
        let request = self.conns[k].request.clone();
        loop {
            let c = &mut self.conns[k];
            if c.written == request.len() {
                break;
            }
            let Some(s) = c.stream.as_mut() else { return };
            match s.write(&request[c.written..]) {
                Ok(n) => c.written += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    self.want_writable(poll, k);
                    return;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    self.lost_connection(poll, k, false);
                    return;
                }
            }
        }
        self.wrote(poll, k);
    }

    /// Some of the request went out: when all of it has, wait for the answer.
    fn wrote(&mut self, poll: &mut Poll, k: usize) {
        let c = &mut self.conns[k];
        if c.written < c.request.len() {
            self.write(poll, k);
            return;
        }
        c.written_at = Instant::now();
        c.phase = Phase::Reading;
        // No read now: the answer cannot be there yet, and its arrival
        // raises a readable event (a system call saved per request).
    }

    fn read(&mut self, poll: &mut Poll, k: usize) {
        loop {
            let c = &mut self.conns[k];
            let Some(s) = c.stream.as_mut() else { return };
            match stamp::recv(s.as_raw_fd(), &mut self.scratch) {
                Ok((0, _)) => {
                    if let Some(r) = c.parser.eof() {
                        let now = Instant::now();
                        self.finish(poll, k, r, now, now);
                    } else {
                        let got_bytes = c.first_byte.is_some();
                        self.lost_connection(poll, k, got_bytes);
                    }
                    return;
                }
                Ok((n, stamped)) => {
                    let read_at = Instant::now();
                    // When the bytes arrived, not when this loop read them.
                    let now = match stamped {
                        Some(t) => stamp::arrived(&t, read_at, c.written_at),
                        None => read_at,
                    };
                    if c.first_byte.is_none() {
                        c.first_byte = Some(now);
                    }
                    self.stats.total_bytes += n as u64;
                    match feed_carried(&mut c.parser, &mut c.carry, &self.scratch[..n]) {
                        Ok(None) => {}
                        Ok(Some(r)) => {
                            if c.lowat != 1 && set_lowat(s, 1) {
                                c.lowat = 1;
                            }
                            self.finish(poll, k, r, now, read_at);
                            return;
                        }
                        Err(_) => {
                            self.receive_failed(poll, k);
                            return;
                        }
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    let want = wake_after(c.parser.body_left());
                    if want != c.lowat && set_lowat(s, want) {
                        c.lowat = want;
                    }
                    return;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    let got_bytes = c.first_byte.is_some();
                    self.lost_connection(poll, k, got_bytes);
                    return;
                }
            }
        }
    }

    /// The connection broke. A keep-alive connection the server closed
    /// before answering is reopened and the request sent again, once.
    fn lost_connection(&mut self, poll: &mut Poll, k: usize, got_bytes: bool) {
        let now = Instant::now();
        let c = &self.conns[k];
        if c.reused && !got_bytes && !c.retried {
            self.stats.reconnects += 1;
            self.close(poll, k);
            let c = &mut self.conns[k];
            c.retried = true;
            c.written = 0;
            c.carry.clear();
            self.connect(poll, k, now);
            self.conns[k].retried = true;
            return;
        }
        self.receive_failed(poll, k);
    }

    fn receive_failed(&mut self, poll: &mut Poll, k: usize) {
        self.stats.fail_receive += 1;
        self.stats.url_failed(self.conns[k].url);
        self.close(poll, k);
        self.start_next(poll, k, Instant::now());
    }

    /// The answer ended at `now` (its arrival) and was read at `read_at`.
    fn finish(&mut self, poll: &mut Poll, k: usize, r: Response, now: Instant, read_at: Instant) {
        let c = &self.conns[k];
        let keep = self.plan.keep_alive && !r.close;
        self.coalesce
            .answered(now.saturating_duration_since(c.intended), now != read_at);
        self.stats.record_url(
            c.url,
            Answered {
                status: r.status,
                body_len: r.body_len,
                server: r.server,
                keep,
                reused: c.reused,
                intended: c.intended,
                lag: c.lag,
                started: c.started,
                connected: c.connected,
                written: c.written_at,
                first_byte: c.first_byte.unwrap_or(now),
                end: now,
                stamped: now != read_at,
            },
            self.plan.variable_length,
        );
        self.progress
            .0
            .store(self.stats.complete, Ordering::Relaxed);
        if !keep {
            self.close(poll, k);
        }
        self.start_next(poll, k, read_at);
    }

    /// Requests past the -s timeout: counted, their connections dropped.
    fn expire(&mut self, poll: &mut Poll, now: Instant) {
        for k in 0..self.conns.len() {
            let c = &self.conns[k];
            let busy = matches!(c.phase, Phase::Connecting | Phase::Writing | Phase::Reading);
            if busy && c.deadline <= now {
                self.stats.timeouts += 1;
                self.stats.url_failed(c.url);
                if c.phase == Phase::Connecting {
                    self.stats.fail_connect += 1;
                } else {
                    self.stats.fail_receive += 1;
                }
                self.close(poll, k);
                self.start_next(poll, k, now);
            }
        }
    }

    /// A write would block: be woken when the socket is writable (once per
    /// connection; epoll reports it at once if it already is).
    fn want_writable(&mut self, poll: &mut Poll, k: usize) {
        let c = &mut self.conns[k];
        if let (false, Some(s)) = (c.writable, c.stream.as_mut()) {
            let both = Interest::READABLE | Interest::WRITABLE;
            c.writable = poll.registry().reregister(s, Token(k), both).is_ok();
        }
    }

    /// Close the connection. Closing the socket takes it out of epoll's
    /// set, so it is not deregistered first (a system call per closed
    /// connection saved).
    fn close(&mut self, _poll: &mut Poll, k: usize) {
        self.conns[k].stream = None;
    }
}
