//! Plain HTTP/1.1 closed-loop load on io_uring (`--io`): the same
//! connections, parser, stamps, naps and counts as the epoll loop
//! (`event_loop`), in fewer system calls.
//!
//! Each connection lives in a registered (direct) file slot. A request on
//! a new connection is one linked chain (`uring_ops::connect`): close the
//! old socket, make the new one in the slot, ask for arrival stamps,
//! connect, send, receive; on a kept-alive one it is send then receive.
//! The ~7 system calls the epoll loop makes for a closed connection
//! (socket, setsockopt, connect, epoll_ctl, write, recvmsg, close) become
//! one `io_uring_enter`, plus a share of the wait.
//!
//! Each chain is handed to the kernel by itself, as soon as it is made,
//! and its request starts then. Handing several over in one enter costs
//! less CPU still (about a fifth less, measured with connections closed),
//! but the kernel then runs their handshakes one after another before any
//! request is sent, and each request would be timed from before the
//! handshakes of the chains ahead of it: toll's own work, counted as the
//! server's latency. The connect completes in the same enter (on
//! loopback; task work runs as the enter returns, COOP_TASKRUN), so the
//! connect and the send are seen, and timed, at once.
//!
//! The answers' completions wait as task work until the loop enters the
//! kernel, and the ring's flags show that some are waiting without a
//! system call: a nap (`coalesce`) is a sleep taken only when none are.
//!
//! Times: an answer's first byte and end are the kernel's arrival stamps
//! of the reads, as in the epoll loop; a connect and a send are timed when
//! the loop sees them complete, never after the answer's first byte.
//!
//! Kernels without what this needs (5.19's socket op, 6.7's socket options
//! by io_uring), or that refuse io_uring (`kernel.io_uring_disabled`,
//! seccomp), get the epoll loop: `uring_ops::refusal` says why.
//! `TOLL_IO_URING_REFUSED=why` acts as a refusal, for tests.

use super::coalesce::Coalesce;
use super::loop_plan::{Counter, LoopPlan};
use super::lowat::wake_after;
use super::response::{feed_carried, Parser, Response};
use super::stamp;
use super::stats::{Answered, Stats};
use super::uring_ops::{self as ops, tag, Done, Recv, CANCEL, CONNECT, RECV, SEND};
use io_uring::{opcode, squeue, types, IoUring};
use nix::libc;
use std::io::{self, ErrorKind};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Busy,
    /// A connect failed: the next request waits a millisecond.
    Backoff,
    Finished,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failed {
    Connect,
    Receive,
}

struct Conn {
    recv: Box<Recv>,
    /// A socket is in this connection's slot.
    open: bool,
    /// The socket in the slot serves the next request (kept alive).
    keep: bool,
    state: State,
    /// Operations submitted whose completion is still to come.
    pending: u32,
    failed: Option<Failed>,
    /// Cancelled for the -s timeout.
    expired: bool,
    /// The connect (on a new connection) completed.
    connected_ok: bool,
    parser: Parser,
    carry: Vec<u8>,
    started: Instant,
    /// Before the enter that handed this request to the kernel: no byte of
    /// its answer arrived before.
    submitted: Instant,
    connected: Instant,
    written_at: Instant,
    first_byte: Option<Instant>,
    reused: bool,
    retried: bool,
    deadline: Instant,
    backoff_until: Instant,
}

struct Loop<'a> {
    plan: &'a LoopPlan,
    ring: IoUring,
    stats: Stats,
    issued: u64,
    conns: Vec<Conn>,
    progress: &'a Counter,
    backoffs: usize,
    coalesce: Coalesce,
    addr: (libc::sockaddr_storage, libc::socklen_t),
    domain: i32,
    stamps: bool,
    /// Completions taken from the ring, each with when the loop first saw
    /// it (both clocks), in order.
    inbox: std::collections::VecDeque<Done>,
}

/// Run one loop to its end; its counts.
pub fn run(plan: &LoopPlan, stop: &AtomicBool, progress: &Counter) -> io::Result<Stats> {
    let n = plan.connections;
    // --unix-socket runs on epoll (load_part never picks this loop for it).
    let super::sock::Endpoint::Tcp(addr) = plan.addr else {
        return Err(io::Error::other("the io_uring loop connects over TCP only"));
    };
    let entries = ((n * 8).next_power_of_two() as u32).clamp(64, 32768);
    let ring = ops::ring(entries)?;
    ring.submitter().register_files_sparse(n.max(1) as u32)?;
    let now = Instant::now();
    let len = ops::buf_len(n);
    let mut lp = Loop {
        plan,
        ring,
        stats: plan.stats(),
        issued: 0,
        conns: Vec::with_capacity(n),
        progress,
        backoffs: 0,
        coalesce: Coalesce::new(
            Some(plan.coalesce).filter(|_| n >= 2).unwrap_or_default(),
            n,
        ),
        addr: ops::sockaddr(addr),
        domain: match addr {
            SocketAddr::V4(_) => libc::AF_INET,
            SocketAddr::V6(_) => libc::AF_INET6,
        },
        stamps: stamp::keep_on(),
        inbox: std::collections::VecDeque::new(),
    };
    if !plan.coalesce.is_zero() {
        let _ = nix::sys::prctl::set_timerslack(1);
    }
    for _ in 0..n {
        lp.conns.push(Conn {
            // SAFETY: msghdr and iovec are plain data; zero is empty.
            recv: Recv::new(len),
            open: false,
            keep: false,
            state: State::Busy,
            pending: 0,
            failed: None,
            expired: false,
            connected_ok: false,
            parser: Parser::new(plan.no_body),
            carry: Vec::new(),
            started: now,
            submitted: now,
            connected: now,
            written_at: now,
            first_byte: None,
            reused: false,
            retried: false,
            deadline: now,
            backoff_until: now,
        });
    }
    for k in 0..n {
        lp.start_next(k, now)?;
    }
    let result = lp.drive(stop);
    lp.drain();
    result?;
    progress.0.store(lp.stats.complete, Ordering::Relaxed);
    Ok(lp.stats)
}

impl Loop<'_> {
    fn drive(&mut self, stop: &AtomicBool) -> io::Result<()> {
        let mut next_scan = Instant::now() + ops::TIMEOUT_SCAN;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            let now = Instant::now();
            if self.plan.deadline.is_some_and(|d| now >= d) {
                return Ok(());
            }
            if self.conns.iter().all(|c| c.state == State::Finished) {
                return Ok(());
            }
            let mut wait = next_scan.saturating_duration_since(now);
            if let Some(d) = self.plan.deadline {
                wait = wait.min(d.saturating_duration_since(now));
            }
            if self.backoffs > 0 {
                for c in self.conns.iter().filter(|c| c.state == State::Backoff) {
                    wait = wait.min(c.backoff_until.saturating_duration_since(now));
                }
            }
            let in_flight = self.conns.iter().any(|c| c.pending > 0);
            // Look before napping: a nap is only in place of a sleep. Work
            // the kernel has for the loop (completions to post) shows in
            // the ring's flags without a system call.
            let ready = !self.inbox.is_empty()
                || !self.ring.completion().is_empty()
                || self.ring.submission().taskrun();
            let nap = if ready || !in_flight || wait.is_zero() {
                None
            } else {
                self.coalesce.nap()
            };
            if let Some(d) = nap {
                // Answers arriving meanwhile wake nobody: their completions
                // wait as task work for the enter after the nap.
                std::thread::sleep(d.min(wait));
                self.enter(0, Duration::ZERO)?;
                self.coalesce.after_nap();
            } else if ready {
                self.enter(0, Duration::ZERO)?;
            } else {
                self.enter(1, wait)?;
            }
            self.take();
            while let Some(d) = self.inbox.pop_front() {
                self.completed(d)?;
            }
            let now = Instant::now();
            if self.backoffs > 0 {
                for k in 0..self.conns.len() {
                    let c = &self.conns[k];
                    if c.state == State::Backoff && c.backoff_until <= now {
                        self.backoffs -= 1;
                        self.conns[k].state = State::Busy;
                        self.start_next(k, now)?;
                    }
                }
            }
            if now >= next_scan {
                self.expire(now)?;
                next_scan = now + ops::TIMEOUT_SCAN;
            }
        }
    }

    /// Submit what is queued and wait for `want` completions or `wait`.
    fn enter(&mut self, want: usize, wait: Duration) -> io::Result<()> {
        let ts = types::Timespec::from(wait);
        let args = types::SubmitArgs::new().timespec(&ts);
        match self.ring.submitter().submit_with_args(want, &args) {
            Ok(_) => Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::ETIME) => Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Ok(()),
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Make room for `n` entries in the submission queue (a chain must go
    /// to the kernel whole: a link cut at a submission's end breaks it).
    fn room(&mut self, n: usize) -> io::Result<()> {
        let free = {
            let sq = self.ring.submission();
            sq.capacity() - sq.len()
        };
        if free < n {
            self.ring.submit()?;
        }
        Ok(())
    }

    /// Queue one entry (after `room` for its chain).
    fn push(&mut self, e: squeue::Entry) -> io::Result<()> {
        // SAFETY: every buffer an entry points at (the request, the
        // address, a connection's boxed receive state, ON) stays in place
        // until its completion is reaped or the loop drained.
        unsafe { self.ring.submission().push(&e) }
            .map_err(|_| io::Error::other("io_uring submission queue full"))
    }

    fn more_allowed(&self, now: Instant) -> bool {
        self.plan.requests.is_none_or(|n| self.issued < n)
            && self.plan.deadline.is_none_or(|d| now < d)
    }

    /// Issue this connection's next request, or finish it.
    fn start_next(&mut self, k: usize, now: Instant) -> io::Result<()> {
        if !self.more_allowed(now) {
            self.conns[k].state = State::Finished;
            return Ok(());
        }
        self.issued += 1;
        self.begin(k, now)
    }

    fn begin(&mut self, k: usize, now: Instant) -> io::Result<()> {
        let want_server = self.stats.doc_len.is_none();
        let c = &mut self.conns[k];
        c.started = now;
        c.carry.clear();
        c.first_byte = None;
        c.retried = false;
        c.failed = None;
        c.expired = false;
        c.deadline = now + self.plan.timeout;
        c.parser.reset(want_server);
        c.reused = c.open && c.keep;
        self.send_chain(k)
    }

    /// The request's chain: on a new connection from its socket.
    fn send_chain(&mut self, k: usize) -> io::Result<()> {
        self.room(8)?;
        let c = &mut self.conns[k];
        c.state = State::Busy;
        c.connected_ok = c.reused;
        let fresh = !c.reused;
        if fresh {
            let ops = ops::connect(
                k,
                c.open,
                self.domain,
                &self.addr,
                self.stamps,
                self.plan.request.len(),
            );
            c.open = true;
            c.recv.new_socket();
            c.pending += 1;
            for e in ops {
                self.push(e)?;
            }
        }
        self.push(ops::send(k, &self.plan.request))?;
        self.conns[k].pending += 1;
        self.recv(k)?;
        // Each chain goes to the kernel by itself, and the request starts
        // then: the kernel does a connect's handshake (on loopback) as it
        // takes it, and a chain handed over with others would be timed
        // from before their handshakes. The same enter runs what completed
        // (connect, send), so they are seen, and timed, at once.
        let at = Instant::now();
        let c = &mut self.conns[k];
        c.started = at;
        c.submitted = at;
        self.enter(0, Duration::ZERO)?;
        self.take();
        Ok(())
    }

    /// Queue a receive (`Recv::ops`).
    fn recv(&mut self, k: usize) -> io::Result<()> {
        self.room(2)?;
        let c = &mut self.conns[k];
        let ops = c.recv.ops(k, wake_after(c.parser.body_left()));
        c.pending += 1;
        for e in ops {
            self.push(e)?;
        }
        Ok(())
    }

    /// Move what the ring completed to the inbox, seen now.
    fn take(&mut self) {
        // The two clocks read together: a stamp is placed by how long
        // before this its bytes arrived.
        let seen = Instant::now();
        let real = stamp::real_now();
        for c in self.ring.completion() {
            let (data, res) = (c.user_data(), c.result());
            self.inbox.push_back(Done {
                data,
                res,
                seen,
                real,
            });
        }
    }

    fn completed(&mut self, d: Done) -> io::Result<()> {
        let (k, op, res, now) = ((d.data >> 8) as usize, d.data as u8, d.res, d.seen);
        let Some(c) = self.conns.get_mut(k) else {
            return Ok(());
        };
        if matches!(op, CONNECT | SEND | RECV | CANCEL) {
            c.pending = c.pending.saturating_sub(1);
        }
        if res < 0 && res != -libc::ECANCELED && c.failed.is_none() {
            c.failed = Some(match op {
                SEND | RECV => Failed::Receive,
                _ if c.connected_ok => Failed::Receive,
                _ => Failed::Connect,
            });
        }
        if res >= 0 && c.failed.is_none() && !c.expired {
            match op {
                CONNECT => {
                    c.connected = now;
                    c.connected_ok = true;
                }
                SEND => c.written_at = now,
                RECV => return self.received(k, res as usize, now, &d.real),
                _ => {}
            }
        }
        if res == -libc::ECANCELED && op != CANCEL && c.failed.is_none() && !c.expired {
            // Cancelled by a short send breaking the link.
            c.failed = Some(Failed::Receive);
        }
        self.settle(k, now)
    }

    /// With nothing of the connection's in flight, act on its failure or
    /// expiry.
    fn settle(&mut self, k: usize, now: Instant) -> io::Result<()> {
        let c = &self.conns[k];
        if c.pending > 0 || c.state != State::Busy {
            return Ok(());
        }
        if c.expired {
            self.stats.timeouts += 1;
            if c.connected_ok {
                self.stats.fail_receive += 1;
            } else {
                self.stats.fail_connect += 1;
            }
            self.conns[k].keep = false;
            return self.start_next(k, now);
        }
        match c.failed {
            Some(Failed::Connect) => {
                self.stats.fail_connect += 1;
                let c = &mut self.conns[k];
                c.keep = false;
                c.state = State::Backoff;
                c.backoff_until = now + Duration::from_millis(1);
                self.backoffs += 1;
                Ok(())
            }
            Some(Failed::Receive) => {
                let got_bytes = c.first_byte.is_some();
                self.lost_connection(k, got_bytes, now)
            }
            None => Ok(()),
        }
    }

    fn received(
        &mut self,
        k: usize,
        n: usize,
        read_at: Instant,
        real: &libc::timespec,
    ) -> io::Result<()> {
        let c = &mut self.conns[k];
        if n == 0 {
            return match c.parser.eof() {
                Some(r) => self.finish(k, r, read_at, read_at),
                None => {
                    let got_bytes = c.first_byte.is_some();
                    self.lost_connection(k, got_bytes, read_at)
                }
            };
        }
        let stamped = c.recv.stamp();
        let at = match stamped {
            Some(t) => stamp::place(&t, real, read_at, c.submitted),
            None => read_at,
        };
        if c.first_byte.is_none() {
            c.first_byte = Some(at);
        }
        self.stats.total_bytes += n as u64;
        let (parser, carry, buf) = (&mut c.parser, &mut c.carry, &c.recv.buf[..n]);
        match feed_carried(parser, carry, buf) {
            Ok(None) => self.recv(k),
            Ok(Some(r)) => self.finish(k, r, at, read_at),
            Err(_) => self.receive_failed(k, read_at),
        }
    }

    /// The connection broke. A keep-alive connection the server closed
    /// before answering is reopened and the request sent again, once.
    fn lost_connection(&mut self, k: usize, got_bytes: bool, now: Instant) -> io::Result<()> {
        let c = &mut self.conns[k];
        if c.reused && !got_bytes && !c.retried {
            self.stats.reconnects += 1;
            c.retried = true;
            c.reused = false;
            c.failed = None;
            c.carry.clear();
            c.started = now;
            return self.send_chain(k);
        }
        self.receive_failed(k, now)
    }

    fn receive_failed(&mut self, k: usize, now: Instant) -> io::Result<()> {
        self.stats.fail_receive += 1;
        self.conns[k].keep = false;
        self.start_next(k, now)
    }

    /// The answer ended at `end` (its arrival) and was read at `read_at`.
    fn finish(&mut self, k: usize, r: Response, end: Instant, read_at: Instant) -> io::Result<()> {
        let c = &self.conns[k];
        let keep = self.plan.keep_alive && !r.close;
        self.coalesce
            .answered(end.saturating_duration_since(c.started), end != read_at);
        let first_byte = c.first_byte.unwrap_or(end);
        let written = c.written_at.min(first_byte).max(c.started);
        let connected = if c.reused {
            c.started
        } else {
            c.connected.min(written).max(c.started)
        };
        self.stats.record(
            Answered {
                status: r.status,
                body_len: r.body_len,
                server: r.server,
                keep,
                reused: c.reused,
                intended: c.started,
                lag: Duration::ZERO,
                started: c.started,
                connected,
                written,
                first_byte,
                end,
                stamped: end != read_at,
            },
            self.plan.variable_length,
        );
        self.progress
            .0
            .store(self.stats.complete, Ordering::Relaxed);
        self.conns[k].keep = keep;
        self.start_next(k, read_at)
    }

    /// Requests past the -s timeout: their operations cancelled; counted
    /// when the cancellations complete.
    fn expire(&mut self, now: Instant) -> io::Result<()> {
        for k in 0..self.conns.len() {
            let c = &mut self.conns[k];
            if c.state == State::Busy && c.pending > 0 && !c.expired && c.deadline <= now {
                c.expired = true;
                c.pending += 1;
                let e = opcode::AsyncCancel2::new(
                    types::CancelBuilder::fd(types::Fixed(k as u32)).all(),
                );
                self.room(1)?;
                self.push(e.build().user_data(tag(k, CANCEL)))?;
            }
        }
        Ok(())
    }

    /// Cancel whatever is in flight and wait for it: the kernel must be done
    /// with the buffers before they are freed.
    fn drain(&mut self) {
        let mut left: u32 = self.conns.iter().map(|c| c.pending).sum();
        if left == 0 {
            return;
        }
        let e = opcode::AsyncCancel2::new(types::CancelBuilder::any().all());
        left += 1;
        if self.room(1).is_err()
            || self
                .push(e.build().user_data(tag(usize::MAX >> 8, CANCEL)))
                .is_err()
        {
            return;
        }
        let until = Instant::now() + ops::DRAIN;
        loop {
            self.take();
            for d in self.inbox.drain(..) {
                if matches!(d.data as u8, CONNECT | SEND | RECV | CANCEL) {
                    left = left.saturating_sub(1);
                }
            }
            if left == 0 || Instant::now() >= until {
                break;
            }
            if self.enter(1, Duration::from_millis(50)).is_err() {
                break;
            }
        }
        if left > 0 {
            // The kernel still holds buffers: leak them rather than free
            // memory it may write.
            for c in self.conns.drain(..) {
                std::mem::forget(c.recv);
            }
        }
    }
}
