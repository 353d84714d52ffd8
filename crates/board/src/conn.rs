//! The board's connections, accepted here rather than by `axum::serve`
//! (which takes no server options), so that each one is bounded: a client
//! has [`Limits::header`] to send a request's head — hyper's header read
//! timeout, which also ends a keep-alive connection left idle that long —
//! a connection that moves no byte for [`Limits::idle`] while none of its
//! requests is being answered (a stalled reader) is closed, and one client
//! address holds at most [`Limits::per_address`] connections: more are
//! closed at accept, so one client holding hundreds of half-sent requests
//! cannot use up the board's file descriptors for everyone else.

use axum::Router;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower_service::Service;

/// How long one connection may take over each part of its life.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// To send a request's head, from the connection's start or the end of
    /// the previous answer.
    pub header: Duration,
    /// Without a byte read or written, while no request is being answered.
    pub idle: Duration,
    /// Connections open at once from one client address.
    pub per_address: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header: Duration::from_secs(5),
            idle: Duration::from_secs(30),
            per_address: 64,
        }
    }
}

/// How long a stop waits for answers under way.
const GRACE: Duration = Duration::from_secs(5);
/// How long, once stopping, a connection may move nothing before it is
/// closed.
const STOP_IDLE: Duration = Duration::from_millis(200);

/// Serve `router` on `listener` until `stop` completes, then let answers
/// under way finish (for up to [`GRACE`]).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stop: impl Future<Output = ()>,
) {
    let open = Open::default();
    let (stopping, stop_seen) = watch::channel(false);
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut stop => break,
            r = listener.accept() => match r {
                Ok(s) => s,
                Err(e) => {
                    // Out of descriptors or memory: wait for connections to
                    // end rather than spin; a client's own failure is no
                    // reason to wait.
                    if !matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
                    ) {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    continue;
                }
            },
        };
        // Over its address's share: closed before a byte is read.
        let Some(slot) = open.take(peer.ip(), limits.per_address) else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(
            stream,
            router.clone(),
            limits,
            slot,
            stop_seen.clone(),
        ));
    }
    drop(listener);
    drop(stop_seen);
    let _ = stopping.send(true);
    let _ = tokio::time::timeout(GRACE, stopping.closed()).await;
}

/// One connection, until it ends, breaks a limit, or the board stops.
async fn connection(
    stream: TcpStream,
    router: Router,
    limits: Limits,
    _slot: Slot,
    mut stop: watch::Receiver<bool>,
) {
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: activity.clone(),
    });
    let answering = activity.clone();
    let service = service_fn(move |req| {
        let busy = Busy::enter(&answering);
        let mut router = router.clone();
        async move {
            let _busy = busy;
            router.call(req).await
        }
    });
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header)
        .serve_connection(io, service);
    tokio::pin!(conn);
    let mut tick = tokio::time::interval((limits.idle / 4).max(Duration::from_millis(10)));
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = stop.changed(), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
                tick = tokio::time::interval(STOP_IDLE);
            }
            _ = tick.tick() => {
                // Stopping, a connection that is not answering and has
                // moved nothing for a moment (a half-sent request) is not
                // waited for.
                let idle = if stopping { STOP_IDLE } else { limits.idle };
                if activity.idle_for() >= idle {
                    // Dropping the connection closes its socket.
                    return;
                }
            }
        }
    }
}

/// Connections open per client address.
#[derive(Default, Clone)]
struct Open(Arc<Mutex<HashMap<IpAddr, usize>>>);

impl Open {
    /// One more connection from `ip`, unless it has `cap` open already.
    fn take(&self, ip: IpAddr, cap: usize) -> Option<Slot> {
        // An IPv4 client on a dual-stack socket is the same client.
        let ip = ip.to_canonical();
        let mut open = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(ip).or_insert(0);
        if *n >= cap {
            return None;
        }
        *n += 1;
        Some(Slot {
            open: self.clone(),
            ip,
        })
    }
}

/// A connection's place in its address's count, given back when it ends.
struct Slot {
    open: Open,
    ip: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// When a connection last moved a byte, and how many of its requests are
/// being answered (a page made on the blocking pool moves none meanwhile).
struct Activity {
    start: Instant,
    last_ms: AtomicU64,
    busy: AtomicUsize,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            start: Instant::now(),
            last_ms: AtomicU64::new(0),
            busy: AtomicUsize::new(0),
        }
    }

    fn touch(&self) {
        let now = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(now, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        if self.busy.load(Ordering::Relaxed) > 0 {
            return Duration::ZERO;
        }
        self.start
            .elapsed()
            .saturating_sub(Duration::from_millis(self.last_ms.load(Ordering::Relaxed)))
    }
}

/// A request being answered; the idle clock starts again when it is.
struct Busy(Arc<Activity>);

impl Busy {
    fn enter(a: &Arc<Activity>) -> Busy {
        a.busy.fetch_add(1, Ordering::Relaxed);
        Busy(a.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The socket, noting each read or write that moves a byte.
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_share_and_gets_it_back() {
        let open = Open::default();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let held: Vec<Slot> = (0..3).map(|_| open.take(a, 3).unwrap()).collect();
        assert!(open.take(a, 3).is_none(), "a fourth from one address");
        // The same client seen through a dual-stack socket.
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert!(open.take(mapped, 3).is_none());
        assert!(open.take(b, 3).is_some(), "another address has its own");
        drop(held);
        assert!(open.take(a, 3).is_some());
        assert!(open.0.lock().unwrap().is_empty(), "counts given back");
    }

    #[test]
    fn a_connection_answering_a_request_is_not_idle() {
        let a = Arc::new(Activity::new());
        std::thread::sleep(Duration::from_millis(20));
        assert!(a.idle_for() >= Duration::from_millis(20));
        let busy = Busy::enter(&a);
        assert_eq!(a.idle_for(), Duration::ZERO);
        drop(busy);
        // The idle clock starts again at the answer's end.
        assert!(a.last_ms.load(Ordering::Relaxed) >= 20);
    }
}
