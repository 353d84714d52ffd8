//! The server side of each stack (spec/rpc.md): accept on loopback, answer
//! every call with the bytes it carried, count it. Nothing else is done per
//! call, so a call's time is the stack's own.
//!
//! `raw` is the ladder's floor, so it is served as the C reference serves
//! (scripts/reference/pingpong.c): blocking sockets, a thread per
//! connection, one read and one write per call. An async runtime costs a
//! readiness poll and a wake-up on each side of every call; http1, h2 and
//! grpc pay it because the servers people deploy with them (hyper, tonic)
//! are async, so the ladder's raw → http1 step includes it.

use super::frame;
use super::proto::{Ack, Payload, CALL_PATH};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A fault for the tests (`TOLL_RPC_SERVER_FAULT`): the server exits, or
/// stops answering, once it has answered this many calls.
#[derive(Debug, Clone, Copy)]
pub enum Fault {
    ExitAfter(u64),
    StallAfter(u64),
}

impl Fault {
    /// `exit-after:N` or `stall-after:N`.
    pub fn parse(text: &str) -> Option<Fault> {
        let (kind, n) = text.split_once(':')?;
        let n = n.parse().ok()?;
        match kind {
            "exit-after" => Some(Fault::ExitAfter(n)),
            "stall-after" => Some(Fault::StallAfter(n)),
            _ => None,
        }
    }
}

/// What every stack shares: the calls answered, the broker's registry.
pub struct Counters {
    calls: AtomicU64,
    fault: Option<Fault>,
    registry: Mutex<HashMap<String, Vec<String>>>,
    next: AtomicUsize,
}

impl Counters {
    pub fn new(fault: Option<Fault>) -> Counters {
        Counters {
            calls: AtomicU64::new(0),
            fault,
            registry: Mutex::new(HashMap::new()),
            next: AtomicUsize::new(0),
        }
    }

    /// Calls answered so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// Count one call about to be answered (and play the test fault, if any).
    async fn answer(&self) {
        let done = self.calls.fetch_add(1, Ordering::Relaxed);
        match self.fault {
            Some(Fault::ExitAfter(n)) if done >= n => std::process::exit(3),
            Some(Fault::StallAfter(n)) if done >= n => std::future::pending::<()>().await,
            _ => {}
        }
    }

    /// [`Counters::answer`] for a blocking server's thread.
    fn answer_blocking(&self) {
        let done = self.calls.fetch_add(1, Ordering::Relaxed);
        match self.fault {
            Some(Fault::ExitAfter(n)) if done >= n => std::process::exit(3),
            Some(Fault::StallAfter(n)) if done >= n => loop {
                std::thread::park();
            },
            _ => {}
        }
    }

    pub fn register(&self, stack: &str, addr: &str) {
        let mut r = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        r.entry(stack.to_string())
            .or_default()
            .push(addr.to_string());
    }

    /// A server of `stack`, round robin; empty when none is registered.
    fn pick(&self, stack: &str) -> String {
        let r = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        match r.get(stack) {
            Some(v) if !v.is_empty() => {
                v[self.next.fetch_add(1, Ordering::Relaxed) % v.len()].clone()
            }
            _ => String::new(),
        }
    }
}

/// raw over TCP: an accepting thread, a thread per connection.
pub fn raw_tcp(l: std::net::TcpListener, c: Arc<Counters>) {
    for s in l.incoming() {
        let Ok(s) = s else { return };
        let _ = s.set_nodelay(true);
        let c = c.clone();
        std::thread::spawn(move || raw_conn(s, &c));
    }
}

/// raw over a unix socket, the same way.
pub fn raw_unix(l: std::os::unix::net::UnixListener, c: Arc<Counters>) {
    for s in l.incoming() {
        let Ok(s) = s else { return };
        let c = c.clone();
        std::thread::spawn(move || raw_conn(s, &c));
    }
}

/// Frames in, lengths out, in order; replies to every frame already read
/// go out in one write, so a pipelining client is answered in batches.
fn raw_conn<S: std::io::Read + std::io::Write>(s: S, c: &Counters) {
    use std::io::Read;
    let mut s = std::io::BufReader::with_capacity(64 << 10, s);
    let mut out = Vec::with_capacity(4096);
    let mut sink = vec![0u8; 64 << 10];
    loop {
        let mut head = [0u8; 4];
        if s.read_exact(&mut head).is_err() {
            return;
        }
        let Some(n) = frame::length(head) else { return };
        let mut left = n as usize;
        while left > 0 {
            let k = left.min(sink.len());
            if s.read_exact(&mut sink[..k]).is_err() {
                return;
            }
            left -= k;
        }
        c.answer_blocking();
        out.extend_from_slice(&frame::reply(n));
        if s.buffer().is_empty() {
            if s.get_mut().write_all(&out).is_err() {
                return;
            }
            out.clear();
        }
    }
}

/// The body's length, read to its end.
async fn body_len(body: Incoming) -> Result<u64, hyper::Error> {
    let mut body = body;
    let mut n = 0u64;
    while let Some(f) = body.frame().await {
        if let Ok(d) = f?.into_data() {
            n += d.len() as u64;
        }
    }
    Ok(n)
}

/// http1 and h2: `POST /call` answered with `toll-received`, anything else 404.
async fn http_call(
    req: Request<Incoming>,
    c: Arc<Counters>,
) -> Result<Response<Empty<Bytes>>, Infallible> {
    let mut res = Response::new(Empty::new());
    if req.method() != hyper::Method::POST || req.uri().path() != "/call" {
        *res.status_mut() = StatusCode::NOT_FOUND;
        return Ok(res);
    }
    let Ok(n) = body_len(req.into_body()).await else {
        *res.status_mut() = StatusCode::BAD_REQUEST;
        return Ok(res);
    };
    c.answer().await;
    res.headers_mut()
        .insert("toll-received", hyper::header::HeaderValue::from(n));
    Ok(res)
}

pub async fn http1(l: TcpListener, c: Arc<Counters>) {
    while let Ok((s, _)) = l.accept().await {
        let _ = s.set_nodelay(true);
        let c = c.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |r| http_call(r, c.clone()));
            let _ = hyper::server::conn::http1::Builder::new()
                .pipeline_flush(true)
                .serve_connection(TokioIo::new(s), svc)
                .await;
        });
    }
}

pub async fn h2(l: TcpListener, c: Arc<Counters>) {
    while let Ok((s, _)) = l.accept().await {
        let _ = s.set_nodelay(true);
        let c = c.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |r| http_call(r, c.clone()));
            let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(s), svc)
                .await;
        });
    }
}

/// The gRPC method: the payload's length back.
#[derive(Clone)]
struct Null(Arc<Counters>);

impl tonic::server::UnaryService<Payload> for Null {
    type Response = Ack;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<tonic::Response<Ack>, tonic::Status>> + Send>,
    >;

    fn call(&mut self, req: tonic::Request<Payload>) -> Self::Future {
        let c = self.0.clone();
        Box::pin(async move {
            let received = req.into_inner().data.len() as u32;
            c.answer().await;
            Ok(tonic::Response::new(Ack { received }))
        })
    }
}

/// gRPC over h2c: tonic's server codec on hyper's HTTP/2 connection.
pub async fn grpc(l: TcpListener, c: Arc<Counters>) {
    while let Ok((s, _)) = l.accept().await {
        let _ = s.set_nodelay(true);
        let c = c.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
                let c = c.clone();
                async move {
                    if req.uri().path() != CALL_PATH {
                        let st = tonic::Status::unimplemented(format!(
                            "no method {}: this server serves {CALL_PATH}",
                            req.uri().path()
                        ));
                        return Ok::<_, Infallible>(st.into_http::<tonic::body::Body>());
                    }
                    let mut g = tonic::server::Grpc::new(tonic_prost::ProstCodec::default());
                    Ok(g.unary(Null(c), req).await)
                }
            });
            let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(s), svc)
                .await;
        });
    }
}

/// The broker (spec/rpc.md, E3's MetaServer): a stack's name in, a
/// registered server's `host:port` out, on one connection as long as the
/// client keeps it.
pub async fn broker(l: TcpListener, c: Arc<Counters>) {
    while let Ok((s, _)) = l.accept().await {
        let _ = s.set_nodelay(true);
        let c = c.clone();
        tokio::spawn(async move {
            let mut s = BufReader::new(s);
            loop {
                let mut head = [0u8; 4];
                if s.read_exact(&mut head).await.is_err() {
                    return;
                }
                let n = u32::from_le_bytes(head);
                if n > frame::MAX_MESSAGE {
                    return;
                }
                let mut name = vec![0u8; n as usize];
                if s.read_exact(&mut name).await.is_err() {
                    return;
                }
                let addr = c.pick(&String::from_utf8_lossy(&name));
                if s.get_mut().write_all(&frame::message(&addr)).await.is_err() {
                    return;
                }
            }
        });
    }
}
