//! toll's side of a call, one kind of connection per stack: `raw` and
//! `http1` are ordered streams (requests written back to back, replies read
//! in order, so K in flight is pipelining), `h2` and `grpc` multiplex K
//! streams on one hyper HTTP/2 connection (grpc adds tonic's framing,
//! codec and status on the same connection, so grpc − h2 is gRPC's own
//! cost). Every reply is checked: the server must have received n bytes.
//!
//! `raw` in blocking mode is the floor, on blocking sockets ([`blocking`]).
//!
//! The HTTP/1.1 client is written out (httparse reads the replies) because
//! hyper's client sends one request at a time per connection, and E3's
//! non-blocking calls need several in flight.

use super::blocking::{self, Blocking, BlockingSocket};
use super::call::{io_err, mismatch, same_server, CallError, Io, Target, Trial};
use super::config::{Lookup, Stack};
use super::frame;
use super::proto::Payload;
use super::reply::{grpc_call, h2_call, http_reply, raw_reply, H2};
use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::collections::VecDeque;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};

async fn open(target: &Target) -> Result<Box<dyn Io>, CallError> {
    let err = |e: std::io::Error| CallError::Connect {
        target: target.to_string(),
        why: e.to_string(),
    };
    Ok(match target {
        Target::Tcp(a) => {
            let s = TcpStream::connect(a).await.map_err(err)?;
            s.set_nodelay(true).map_err(err)?;
            Box::new(s)
        }
        Target::Unix(p) => Box::new(UnixStream::connect(p).await.map_err(err)?),
    })
}

/// A kept-open connection to the broker, asked before calls.
pub struct Broker {
    addr: SocketAddr,
    stream: TcpStream,
    ask: Vec<u8>,
}

impl Broker {
    pub async fn connect(addr: SocketAddr, stack: Stack) -> Result<Broker, CallError> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|e| CallError::Connect {
                target: format!("the broker at {addr}"),
                why: e.to_string(),
            })?;
        let _ = stream.set_nodelay(true);
        Ok(Broker {
            addr,
            stream,
            ask: frame::message(stack.name()),
        })
    }

    /// One round trip: which server to call.
    pub async fn lookup(&mut self) -> Result<SocketAddr, CallError> {
        self.stream.write_all(&self.ask).await.map_err(io_err)?;
        let mut head = [0u8; 4];
        self.stream.read_exact(&mut head).await.map_err(io_err)?;
        let n = u32::from_le_bytes(head);
        if n > frame::MAX_MESSAGE {
            return Err(CallError::Protocol(format!(
                "the broker sent a {n}-byte answer: not toll's broker"
            )));
        }
        let mut text = vec![0u8; n as usize];
        self.stream.read_exact(&mut text).await.map_err(io_err)?;
        if text.is_empty() {
            return Err(CallError::NoServer(self.addr));
        }
        String::from_utf8_lossy(&text).parse().map_err(|_| {
            CallError::Protocol(format!(
                "the broker answered `{}`, not host:port",
                String::from_utf8_lossy(&text)
            ))
        })
    }
}

/// How a series calls: one of these per series, kept for the whole run.
#[derive(Debug, Clone)]
pub struct Plan {
    pub stack: Stack,
    /// The server, or the broker to ask for it.
    pub target: Target,
    pub broker: Option<(SocketAddr, Lookup)>,
    pub connections: u32,
    pub in_flight: u32,
    pub timeout: Duration,
}

/// A connection of one stack.
enum Conn {
    /// raw, blocking: the floor.
    Blocking(Blocking),
    /// raw or http1: replies in order.
    Ordered {
        io: Box<dyn Io>,
        http: bool,
        buf: Vec<u8>,
        brokers: Vec<Broker>,
    },
    H2 {
        send: SendRequest<Full<Bytes>>,
        brokers: Vec<Broker>,
    },
    Grpc {
        grpc: tonic::client::Grpc<H2>,
        brokers: Vec<Broker>,
    },
}

/// The connections of a series.
pub struct Session {
    plan: Plan,
    conns: Vec<Conn>,
    /// The server's address as the connections reached it.
    server: Target,
}

impl Session {
    /// Connect (asking the broker first where there is one) and make one
    /// checked null call on each connection, so a wrong stack or a dead
    /// server is found before anything is timed.
    pub async fn open(plan: Plan) -> Result<Session, CallError> {
        let mut conns = vec![];
        let mut server = plan.target.clone();
        let floor = plan.stack == Stack::Raw && plan.in_flight <= 1;
        for _ in 0..plan.connections {
            let mut brokers = vec![];
            if let Some((addr, lookup)) = plan.broker {
                let mut b = Broker::connect(addr, plan.stack).await?;
                server = Target::Tcp(with_timeout(plan.timeout, b.lookup()).await?);
                if floor {
                    let broker = match lookup {
                        Lookup::PerCall => Some((
                            addr,
                            BlockingSocket::open(&Target::Tcp(addr), plan.timeout)?,
                            frame::message(plan.stack.name()),
                        )),
                        Lookup::Once => None,
                    };
                    let io = BlockingSocket::open(&server, plan.timeout)?;
                    conns.push(Conn::Blocking(Blocking { io, broker }));
                    continue;
                }
                let keep = match lookup {
                    Lookup::PerCall => plan.in_flight.max(1) as usize,
                    Lookup::Once => 0,
                };
                if keep > 0 {
                    brokers.push(b);
                    for _ in 1..keep {
                        brokers.push(Broker::connect(addr, plan.stack).await?);
                    }
                }
            }
            if floor {
                let io = BlockingSocket::open(&server, plan.timeout)?;
                conns.push(Conn::Blocking(Blocking { io, broker: None }));
                continue;
            }
            let io = open(&server).await?;
            let c = match plan.stack {
                Stack::Raw | Stack::Http1 => Conn::Ordered {
                    io,
                    http: plan.stack == Stack::Http1,
                    buf: Vec::with_capacity(4096),
                    brokers,
                },
                Stack::H2 => {
                    let (send, conn) = hyper::client::conn::http2::handshake(
                        TokioExecutor::new(),
                        TokioIo::new(io),
                    )
                    .await
                    .map_err(|e| mismatch(Stack::H2, &format!("no HTTP/2 handshake ({e})")))?;
                    tokio::spawn(conn);
                    Conn::H2 { send, brokers }
                }
                Stack::Grpc => {
                    let (send, conn) = hyper::client::conn::http2::handshake(
                        TokioExecutor::new(),
                        TokioIo::new(io),
                    )
                    .await
                    .map_err(|e| mismatch(Stack::Grpc, &format!("no HTTP/2 handshake ({e})")))?;
                    tokio::spawn(conn);
                    let origin = format!("http://{server}").parse().map_err(|_| {
                        CallError::Protocol(format!("{server} is not an HTTP origin"))
                    })?;
                    Conn::Grpc {
                        grpc: tonic::client::Grpc::with_origin(H2(send), origin),
                        brokers,
                    }
                }
            };
            conns.push(c);
        }
        let mut s = Session {
            plan,
            conns,
            server,
        };
        // The probe: one null call per connection, checked. A server that
        // hangs up on the first call is one that did not understand it.
        let stack = s.plan.stack;
        s.trial(0, s.conns.len() as u64)
            .await
            .map_err(|e| match e {
                CallError::Closed => mismatch(stack, "it hung up on the first call"),
                e => e,
            })?;
        Ok(s)
    }

    /// The server the calls reach.
    pub fn server(&self) -> &Target {
        &self.server
    }

    /// `calls` calls of `n` bytes, shared out over the connections, each
    /// with `in_flight` outstanding.
    pub async fn trial(&mut self, n: u32, calls: u64) -> Result<Trial, CallError> {
        if matches!(self.conns.first(), Some(Conn::Blocking(_))) {
            return self.trial_blocking(n, calls);
        }
        let conns = std::mem::take(&mut self.conns);
        let k = conns.len().max(1) as u64;
        let per = calls / k;
        let extra = calls % k;
        let payload = Payload {
            data: Bytes::from(vec![0u8; n as usize]),
        };
        let plan = Arc::new(self.plan.clone());
        let server = match &self.server {
            Target::Tcp(a) => Some(*a),
            Target::Unix(_) => None,
        };
        let start = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for (i, c) in conns.into_iter().enumerate() {
            let mine = per + u64::from((i as u64) < extra);
            let plan = plan.clone();
            let payload = payload.clone();
            tasks.spawn(async move {
                let mut c = c;
                let r = c.run(&plan, server, payload, n, mine).await;
                (i, c, r)
            });
        }
        let mut back: Vec<Option<Conn>> = (0..k).map(|_| None).collect();
        let mut out = Trial::default();
        let mut first_err = None;
        while let Some(joined) = tasks.join_next().await {
            let Ok((i, c, r)) = joined else {
                first_err.get_or_insert(CallError::Protocol("a connection's task panicked".into()));
                continue;
            };
            back[i] = Some(c);
            match r {
                Ok((lat, rt)) => {
                    out.latencies.extend(lat);
                    out.round_trips += rt;
                }
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        out.wall_ns = start.elapsed().as_nanos() as u64;
        self.conns = back.into_iter().flatten().collect();
        match first_err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

impl Session {
    /// The floor's trial: on this thread for one connection, else a thread each.
    fn trial_blocking(&mut self, n: u32, calls: u64) -> Result<Trial, CallError> {
        let server = match &self.server {
            Target::Tcp(a) => Some(*a),
            Target::Unix(_) => None,
        };
        let floors: Vec<&mut Blocking> = self
            .conns
            .iter_mut()
            .filter_map(|c| match c {
                Conn::Blocking(b) => Some(b),
                _ => None,
            })
            .collect();
        blocking::trial(floors, server, self.plan.timeout, n, calls)
    }
}

async fn with_timeout<T>(
    t: Duration,
    f: impl Future<Output = Result<T, CallError>>,
) -> Result<T, CallError> {
    tokio::time::timeout(t, f)
        .await
        .unwrap_or(Err(CallError::Timeout(t)))
}

impl Conn {
    /// `calls` calls on this connection: (latencies, round trips).
    async fn run(
        &mut self,
        plan: &Plan,
        server: Option<SocketAddr>,
        payload: Payload,
        n: u32,
        calls: u64,
    ) -> Result<(Vec<u64>, u64), CallError> {
        let t = plan.timeout;
        let k = plan.in_flight.max(1) as u64;
        match self {
            Conn::Blocking(b) => b.run(&frame::call(n), n, calls, server, t),
            Conn::Ordered {
                io,
                http,
                buf,
                brokers,
            } => {
                let request = if *http {
                    let mut r = format!(
                        "POST /call HTTP/1.1\r\nHost: {}\r\nContent-Length: {n}\r\n\r\n",
                        server.map_or("localhost".to_string(), |a| a.to_string())
                    )
                    .into_bytes();
                    r.resize(r.len() + n as usize, 0);
                    r
                } else {
                    frame::call(n)
                };
                let mut lat = Vec::with_capacity(calls as usize);
                let mut sent: VecDeque<Instant> = VecDeque::with_capacity(k as usize);
                let mut trips = 0;
                let mut issued = 0;
                while lat.len() < calls as usize {
                    // Keep k outstanding; a per-call look-up goes before each send.
                    while issued < calls && (sent.len() as u64) < k {
                        let at = Instant::now();
                        if let Some(b) = brokers.first_mut() {
                            same_server(with_timeout(t, b.lookup()).await?, server)?;
                            trips += 1;
                        }
                        with_timeout(t, async { io.write_all(&request).await.map_err(io_err) })
                            .await?;
                        sent.push_back(at);
                        issued += 1;
                        trips += 1;
                    }
                    if *http {
                        with_timeout(t, http_reply(io, buf, n)).await?;
                    } else {
                        with_timeout(t, raw_reply(io, n)).await?;
                    }
                    let at = sent.pop_front().expect("a call in flight");
                    lat.push(at.elapsed().as_nanos() as u64);
                }
                Ok((lat, trips))
            }
            Conn::H2 { send, brokers } => {
                let uri: hyper::Uri = format!(
                    "http://{}/call",
                    server.map_or("localhost".to_string(), |a| a.to_string())
                )
                .parse()
                .expect("a valid URI");
                let send = send.clone();
                fan_out(k, calls, brokers, server, t, move |_| {
                    let mut send = send.clone();
                    let uri = uri.clone();
                    let body = payload.data.clone();
                    async move { h2_call(&mut send, uri, body, n).await }
                })
                .await
            }
            Conn::Grpc { grpc, brokers } => {
                let grpc = grpc.clone();
                fan_out(k, calls, brokers, server, t, move |_| {
                    let mut g = grpc.clone();
                    let p = payload.clone();
                    async move { grpc_call(&mut g, p, n).await }
                })
                .await
            }
        }
    }
}

/// k tasks on one multiplexed connection, each calling until `calls` are made.
async fn fan_out<F, Fut>(
    k: u64,
    calls: u64,
    brokers: &mut Vec<Broker>,
    server: Option<SocketAddr>,
    t: Duration,
    call: F,
) -> Result<(Vec<u64>, u64), CallError>
where
    F: Fn(u64) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Result<(), CallError>> + Send,
{
    let left = Arc::new(AtomicU64::new(calls));
    let mut tasks = tokio::task::JoinSet::new();
    let mut mine = std::mem::take(brokers);
    for i in 0..k.min(calls.max(1)) {
        let left = left.clone();
        let call = call.clone();
        let mut broker = if mine.is_empty() {
            None
        } else {
            Some(mine.remove(0))
        };
        tasks.spawn(async move {
            let mut lat = vec![];
            let mut trips = 0u64;
            let mut res = Ok(());
            while left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| v.checked_sub(1))
                .is_ok()
            {
                let at = Instant::now();
                if let Some(b) = broker.as_mut() {
                    match with_timeout(t, b.lookup())
                        .await
                        .and_then(|a| same_server(a, server))
                    {
                        Ok(()) => trips += 1,
                        Err(e) => {
                            res = Err(e);
                            break;
                        }
                    }
                }
                if let Err(e) = with_timeout(t, call(i)).await {
                    res = Err(e);
                    break;
                }
                trips += 1;
                lat.push(at.elapsed().as_nanos() as u64);
            }
            (broker, lat, trips, res)
        });
    }
    // Brokers of tasks not started this time (fewer calls than K) are kept.
    brokers.append(&mut mine);
    let mut lat = Vec::with_capacity(calls as usize);
    let mut trips = 0;
    let mut err = None;
    while let Some(j) = tasks.join_next().await {
        match j {
            Ok((b, l, tr, r)) => {
                if let Some(b) = b {
                    brokers.push(b);
                }
                lat.extend(l);
                trips += tr;
                if let Err(e) = r {
                    err.get_or_insert(e);
                }
            }
            Err(_) => {
                err.get_or_insert(CallError::Protocol("a call's task panicked".into()));
            }
        }
    }
    match err {
        Some(e) => Err(e),
        None => Ok((lat, trips)),
    }
}
