//! The blocking raw-socket client, the ladder's floor: `raw` with one call
//! outstanding, timed as the C reference (scripts/reference/pingpong.c)
//! times — blocking sockets, one write and one read per call, a thread per
//! connection, no async runtime between the call and the socket. A read or
//! write past `--timeout` is a stall (SO_RCVTIMEO / SO_SNDTIMEO).

use super::call::{check_raw, io_err, same_server, CallError, Target, Trial};
use super::frame;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// A blocking socket of the floor: raw, one call outstanding.
pub enum BlockingSocket {
    Tcp(std::net::TcpStream),
    Unix(std::os::unix::net::UnixStream),
}

impl BlockingSocket {
    pub(super) fn open(target: &Target, t: Duration) -> Result<BlockingSocket, CallError> {
        let err = |e: std::io::Error| CallError::Connect {
            target: target.to_string(),
            why: e.to_string(),
        };
        let p = match target {
            Target::Tcp(a) => {
                let s = std::net::TcpStream::connect_timeout(a, t).map_err(err)?;
                s.set_nodelay(true).map_err(err)?;
                BlockingSocket::Tcp(s)
            }
            Target::Unix(p) => {
                BlockingSocket::Unix(std::os::unix::net::UnixStream::connect(p).map_err(err)?)
            }
        };
        let timeouts = match &p {
            BlockingSocket::Tcp(s) => s
                .set_read_timeout(Some(t))
                .and(s.set_write_timeout(Some(t))),
            BlockingSocket::Unix(s) => s
                .set_read_timeout(Some(t))
                .and(s.set_write_timeout(Some(t))),
        };
        timeouts.map_err(err)?;
        Ok(p)
    }

    fn write_all(&mut self, b: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        match self {
            BlockingSocket::Tcp(s) => s.write_all(b),
            BlockingSocket::Unix(s) => s.write_all(b),
        }
    }

    fn read_exact(&mut self, b: &mut [u8]) -> std::io::Result<()> {
        use std::io::Read;
        match self {
            BlockingSocket::Tcp(s) => s.read_exact(b),
            BlockingSocket::Unix(s) => s.read_exact(b),
        }
    }
}

/// A blocking call's failure: a read or write past its timeout is a stall.
fn blocking_err(t: Duration) -> impl Fn(std::io::Error) -> CallError {
    move |e| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => CallError::Timeout(t),
        _ => io_err(e),
    }
}

/// The floor's connection: its socket and, per call, the broker's.
pub struct Blocking {
    pub(super) io: BlockingSocket,
    pub(super) broker: Option<(SocketAddr, BlockingSocket, Vec<u8>)>,
}

impl Blocking {
    /// `calls` calls one after the other: (latencies, round trips).
    pub(super) fn run(
        &mut self,
        request: &[u8],
        n: u32,
        calls: u64,
        server: Option<SocketAddr>,
        t: Duration,
    ) -> Result<(Vec<u64>, u64), CallError> {
        let err = blocking_err(t);
        let mut lat = Vec::with_capacity(calls as usize);
        let mut trips = 0;
        for _ in 0..calls {
            let at = Instant::now();
            if let Some((addr, b, ask)) = self.broker.as_mut() {
                b.write_all(ask).map_err(&err)?;
                let mut head = [0u8; 4];
                b.read_exact(&mut head).map_err(&err)?;
                let k = u32::from_le_bytes(head).min(frame::MAX_MESSAGE);
                let mut text = vec![0u8; k as usize];
                b.read_exact(&mut text).map_err(&err)?;
                let got: SocketAddr = String::from_utf8_lossy(&text)
                    .parse()
                    .map_err(|_| CallError::NoServer(*addr))?;
                same_server(got, server)?;
                trips += 1;
            }
            self.io.write_all(request).map_err(&err)?;
            let mut head = [0u8; 4];
            self.io.read_exact(&mut head).map_err(&err)?;
            check_raw(head, n)?;
            lat.push(at.elapsed().as_nanos() as u64);
            trips += 1;
        }
        Ok((lat, trips))
    }
}

/// The floor's trial: on this thread for one connection, else a thread each.
pub(super) fn trial(
    mut floors: Vec<&mut Blocking>,
    server: Option<SocketAddr>,
    t: Duration,
    n: u32,
    calls: u64,
) -> Result<Trial, CallError> {
    let k = floors.len().max(1) as u64;
    let (per, extra) = (calls / k, calls % k);
    let request = frame::call(n);
    let start = Instant::now();
    let results: Vec<Result<(Vec<u64>, u64), CallError>> = if floors.len() == 1 {
        vec![floors[0].run(&request, n, calls, server, t)]
    } else {
        std::thread::scope(|sc| {
            let handles: Vec<_> = floors
                .iter_mut()
                .enumerate()
                .map(|(i, b)| {
                    let mine = per + u64::from((i as u64) < extra);
                    let request = &request;
                    sc.spawn(move || b.run(request, n, mine, server, t))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(CallError::Protocol("a connection's thread panicked".into()))
                    })
                })
                .collect()
        })
    };
    let wall_ns = start.elapsed().as_nanos() as u64;
    let mut out = Trial {
        wall_ns,
        ..Trial::default()
    };
    for r in results {
        let (lat, trips) = r?;
        out.latencies.extend(lat);
        out.round_trips += trips;
    }
    Ok(out)
}
