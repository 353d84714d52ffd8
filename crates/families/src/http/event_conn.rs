//! One connection of the HTTP/1.1 event loop (`event_loop`): its phase,
//! its socket and parser, the times of the request on it, and, with a URL
//! file, which line's request it is sending.

use super::loop_plan::LoopPlan;
use super::response::Parser;
use super::schedule::{Schedule, Send};
use super::sock::MioStream;
use super::urls::Picker;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Constant rate: waiting for the next intended send.
    Waiting,
    /// A connect failed at once (out of sockets): the next request waits a
    /// millisecond instead of spinning.
    Backoff,
    Connecting,
    Writing,
    Reading,
    Finished,
}

pub(super) struct Conn {
    pub stream: Option<MioStream>,
    pub phase: Phase,
    pub written: usize,
    pub parser: Parser,
    /// Bytes read but not yet consumed by the parser.
    pub carry: Vec<u8>,
    /// The socket's SO_RCVLOWAT as last set.
    pub lowat: usize,
    /// Registered for writability too (after a write that would block).
    pub writable: bool,
    /// Start of this request (of its connect on a new connection).
    pub started: Instant,
    /// Constant rate: when this request should have started.
    pub intended: Instant,
    /// Constant rate: how late toll itself sent this request.
    pub lag: Duration,
    /// Constant rate: this connection's slots.
    pub schedule: Option<Schedule>,
    pub connected: Instant,
    pub written_at: Instant,
    pub first_byte: Option<Instant>,
    /// This request is on a connection that served one before.
    pub reused: bool,
    pub retried: bool,
    pub deadline: Instant,
    pub backoff_until: Instant,
    /// The request being sent, and its line of the URL file (0 without one).
    pub request: Arc<[u8]>,
    pub url: usize,
}

impl Conn {
    /// Connection `k` of the loop's plan, not yet connected.
    pub fn new(plan: &LoopPlan, k: usize, now: Instant) -> Conn {
        let schedule = plan
            .rate
            .map(|r| Schedule::new(r.first_slot(plan.start, k), r.interval));
        Conn {
            stream: None,
            phase: Phase::Waiting,
            written: 0,
            parser: Parser::new(plan.no_body),
            carry: Vec::new(),
            lowat: 1,
            writable: false,
            started: now,
            intended: now,
            lag: Duration::ZERO,
            schedule,
            connected: now,
            written_at: now,
            first_byte: None,
            reused: false,
            retried: false,
            deadline: now,
            backoff_until: now,
            request: plan.request.clone(),
            url: 0,
        }
    }

    /// Constant rate: the request about to go out is this one.
    pub fn scheduled(&mut self, send: Send) {
        self.intended = send.intended;
        self.lag = send.lag;
    }

    /// With a URL file, the next request is the line `picker` picks.
    pub fn pick(&mut self, plan: &LoopPlan, picker: Option<&mut Picker>) {
        if let (Some(m), Some(p)) = (&plan.mix, picker) {
            let u = p.pick();
            self.url = u;
            self.request = m.requests[u].clone();
            self.parser.set_no_body(m.no_body[u]);
        }
    }
}
