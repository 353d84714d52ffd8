//! The delay relay: a store-and-forward TCP relay that holds every chunk it
//! reads for the link's one-way delay (± jitter) before writing it on, in
//! order and byte for byte.
//!
//! Why toll's own and not Toxiproxy: this kernel has no netem, so latency has
//! to come from user space either way, and Toxiproxy's latency toxic does the
//! same thing (delay each chunk it reads, ± jitter) from a Go process driven
//! over an HTTP API. Built in, the relay needs nothing installed, lives and
//! dies with the `Link` that made it (no process to leak after a crash), and
//! can open its listening side in one network namespace and its far side in
//! another (see `netns::within`), which is what lets the harness in the
//! machine's own namespace reach the far namespace at all.
//!
//! What it models and what it does not: each direction is delayed
//! separately, so a round trip pays the delay twice, and a stream's chunks
//! keep flowing while earlier ones wait (propagation delay, not a stop-and-
//! wait link). A chunk never leaves before the one read ahead of it (TCP does
//! not reorder, so neither does the link), so jitter only ever stretches a
//! gap. The rate is not the relay's job: tbf on both veth ends paces the
//! bytes, and the relay's queue is bounded ([`QUEUE_CHUNKS`] chunks), so a
//! slow link pushes back on the sender instead of filling toll's memory.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The most bytes read (and so held) as one chunk.
const CHUNK: usize = 64 * 1024;
/// Chunks queued per direction before the relay stops reading.
const QUEUE_CHUNKS: usize = 64;

/// Opens the relay's far side for each accepted connection.
pub(super) type Connect = Arc<dyn Fn() -> io::Result<TcpStream> + Send + Sync>;

/// A running relay: accepts on its listener, connects on with `connect`.
pub(super) struct Relay {
    addr: SocketAddr,
    /// A second handle on the listening socket, to wake the accept at Drop.
    listener: TcpListener,
    stop: Arc<AtomicBool>,
    /// The sockets of every connection still relayed, to shut down when the
    /// relay is dropped (a connection's leave when both its directions end).
    open: Arc<Open>,
    accept: Option<JoinHandle<()>>,
}

/// How long one chunk is held.
#[derive(Clone, Copy)]
struct Hold {
    delay: Duration,
    jitter: Duration,
}

impl Relay {
    /// Relay every connection `listener` accepts to a fresh `connect()`.
    pub(super) fn start(
        listener: TcpListener,
        connect: Connect,
        delay: Duration,
        jitter: Duration,
    ) -> io::Result<Relay> {
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let open: Arc<Open> = Arc::default();
        let hold = Hold { delay, jitter };
        let handle = listener.try_clone()?;
        let (stop2, open2) = (stop.clone(), open.clone());
        let accept = std::thread::Builder::new()
            .name("toll-link-relay".into())
            .spawn(move || {
                // Ends when Drop shuts the listener down (accept then fails).
                while let Ok((near, _)) = listener.accept() {
                    if stop2.load(Ordering::Relaxed) {
                        break;
                    }
                    let Ok(far) = connect() else {
                        let _ = near.shutdown(Shutdown::Both);
                        continue;
                    };
                    let _ = pair(near, far, hold, &open2);
                }
            })?;
        Ok(Relay {
            addr,
            listener: handle,
            stop,
            open,
            accept: Some(accept),
        })
    }

    /// Where it listens.
    pub(super) fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// The relayed connections' sockets, by connection number.
#[derive(Default)]
struct Open {
    count: AtomicU64,
    pairs: Mutex<HashMap<u64, (TcpStream, TcpStream)>>,
}

/// Counts a connection's ended directions; the second takes it off the list.
struct Ends {
    id: u64,
    ended: AtomicU8,
    open: Arc<Open>,
}

impl Ends {
    fn one_ended(&self) {
        if self.ended.fetch_add(1, Ordering::AcqRel) == 1 {
            self.open
                .pairs
                .lock()
                .expect("relay sockets")
                .remove(&self.id);
        }
    }
}

/// Start both directions of one relayed connection.
fn pair(a: TcpStream, b: TcpStream, hold: Hold, open: &Arc<Open>) -> io::Result<()> {
    a.set_nodelay(true)?;
    b.set_nodelay(true)?;
    let id = open.count.fetch_add(1, Ordering::Relaxed);
    open.pairs
        .lock()
        .expect("relay sockets")
        .insert(id, (a.try_clone()?, b.try_clone()?));
    let ends = Arc::new(Ends {
        id,
        ended: AtomicU8::new(0),
        open: open.clone(),
    });
    direction(a.try_clone()?, b.try_clone()?, hold, ends.clone())?;
    direction(b, a, hold, ends)
}

/// One direction: a reader that stamps each chunk with when it may leave,
/// and a writer that sends it then.
fn direction(mut from: TcpStream, to: TcpStream, hold: Hold, ends: Arc<Ends>) -> io::Result<()> {
    let (tx, rx) = sync_channel::<Option<(Instant, Vec<u8>)>>(QUEUE_CHUNKS);
    let from_writer = from.try_clone()?;
    std::thread::Builder::new()
        .name("toll-link-read".into())
        .spawn(move || {
            let mut rng = fastrand::Rng::new();
            let mut last = Instant::now();
            loop {
                let mut buf = vec![0u8; CHUNK];
                let n = match from.read(&mut buf) {
                    Ok(0) | Err(_) => 0,
                    Ok(n) => n,
                };
                if n == 0 {
                    let _ = tx.send(None);
                    return;
                }
                buf.truncate(n);
                let due = (Instant::now() + hold.sample(&mut rng)).max(last);
                last = due;
                if tx.send(Some((due, buf))).is_err() {
                    return;
                }
            }
        })?;
    std::thread::Builder::new()
        .name("toll-link-write".into())
        .spawn(move || {
            write_out(rx, to, from_writer);
            ends.one_ended();
        })?;
    Ok(())
}

/// Send each chunk when it is due; at the end of the stream pass the end on
/// (half-close), and on a write error stop both sides.
fn write_out(rx: Receiver<Option<(Instant, Vec<u8>)>>, mut to: TcpStream, from: TcpStream) {
    // The kernel may wake a sleeping thread up to its timer slack late (50 µs
    // by default), which on a 0.1 ms link would be half the delay again: ask
    // for the least. (Best effort: on failure the sleeps are only coarser.)
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer and changes this thread only.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
    while let Ok(item) = rx.recv() {
        let Some((due, chunk)) = item else {
            let _ = to.shutdown(Shutdown::Write);
            return;
        };
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        if to.write_all(&chunk).is_err() {
            let _ = from.shutdown(Shutdown::Both);
            let _ = to.shutdown(Shutdown::Both);
            return;
        }
    }
}

impl Hold {
    /// delay + U(−jitter, +jitter), never below zero.
    fn sample(&self, rng: &mut fastrand::Rng) -> Duration {
        if self.jitter.is_zero() {
            return self.delay;
        }
        let j = self.jitter.as_secs_f64() * (2.0 * rng.f64() - 1.0);
        Duration::from_secs_f64((self.delay.as_secs_f64() + j).max(0.0))
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Shutting a listening socket down wakes its blocked accept (Linux).
        // SAFETY: `self.listener` keeps the descriptor open.
        unsafe { libc::shutdown(self.listener.as_raw_fd(), libc::SHUT_RDWR) };
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
        for (_, (a, b)) in self.open.pairs.lock().expect("relay sockets").drain() {
            let _ = a.shutdown(Shutdown::Both);
            let _ = b.shutdown(Shutdown::Both);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An echo server on loopback; the relay in front of it, delay 20 ms.
    #[test]
    fn a_round_trip_pays_the_delay_both_ways_and_bytes_arrive_in_order() {
        let echo = TcpListener::bind("127.0.0.1:0").unwrap();
        let target = echo.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut s, _) = echo.accept().unwrap();
            let mut r = s.try_clone().unwrap();
            let _ = io::copy(&mut r, &mut s);
        });
        let connect: Connect = Arc::new(move || TcpStream::connect(target));
        let relay = Relay::start(
            TcpListener::bind("127.0.0.1:0").unwrap(),
            connect,
            Duration::from_millis(20),
            Duration::ZERO,
        )
        .unwrap();
        let mut c = TcpStream::connect(relay.addr()).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let t0 = Instant::now();
        c.write_all(b"x").unwrap();
        let mut one = [0u8; 1];
        c.read_exact(&mut one).unwrap();
        assert!(
            t0.elapsed() >= Duration::from_millis(40),
            "{:?}",
            t0.elapsed()
        );
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let writer = {
            let mut c = c.try_clone().unwrap();
            let data = data.clone();
            std::thread::spawn(move || c.write_all(&data).unwrap())
        };
        let mut back = vec![0u8; data.len()];
        c.read_exact(&mut back).unwrap();
        writer.join().unwrap();
        assert!(back == data, "bytes changed or reordered on the way");
        drop(relay);
        // Once dropped, the relayed connection is closed.
        assert_eq!(c.read(&mut one).unwrap_or(0), 0);
    }

    #[test]
    fn a_closed_connection_leaves_no_sockets_behind() {
        let sink = TcpListener::bind("127.0.0.1:0").unwrap();
        let target = sink.local_addr().unwrap();
        std::thread::spawn(move || {
            while let Ok((mut s, _)) = sink.accept() {
                let _ = io::copy(&mut s, &mut io::sink());
            }
        });
        let connect: Connect = Arc::new(move || TcpStream::connect(target));
        let relay = Relay::start(
            TcpListener::bind("127.0.0.1:0").unwrap(),
            connect,
            Duration::from_millis(1),
            Duration::ZERO,
        )
        .unwrap();
        for _ in 0..5 {
            let mut c = TcpStream::connect(relay.addr()).unwrap();
            c.write_all(b"hello").unwrap();
        }
        let open = || relay.open.pairs.lock().unwrap().len();
        let deadline = Instant::now() + Duration::from_secs(10);
        while open() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(open(), 0, "closed connections are still held");
    }

    #[test]
    fn jitter_stays_within_its_bounds() {
        let hold = Hold {
            delay: Duration::from_millis(10),
            jitter: Duration::from_millis(3),
        };
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..1000 {
            let d = hold.sample(&mut rng);
            assert!(d >= Duration::from_millis(7) && d <= Duration::from_millis(13));
        }
    }
}
