//! One call's reply on each stack, read and checked: raw's length, an
//! HTTP/1.1 reply's status and `toll-received` header, an h2 stream's, and
//! gRPC's status and message through tonic over the same hyper connection.

use super::call::{check_raw, io_err, mismatch, CallError, Io};
use super::config::Stack;
use super::frame::MAX_FRAME;
use super::proto::{Ack, Payload, CALL_PATH};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http2::SendRequest;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::AsyncReadExt;

pub(super) async fn raw_reply(io: &mut Box<dyn Io>, n: u32) -> Result<(), CallError> {
    let mut head = [0u8; 4];
    io.read_exact(&mut head).await.map_err(io_err)?;
    check_raw(head, n)
}

/// One HTTP/1.1 reply: 200, `toll-received: n`, its body skipped.
pub(super) async fn http_reply(
    io: &mut Box<dyn Io>,
    buf: &mut Vec<u8>,
    n: u32,
) -> Result<(), CallError> {
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 16];
        let mut res = httparse::Response::new(&mut headers);
        match res.parse(buf) {
            Ok(httparse::Status::Complete(head)) => {
                let code = res.code.unwrap_or(0);
                let header = |name: &str| {
                    res.headers
                        .iter()
                        .find(|h| h.name.eq_ignore_ascii_case(name))
                        .and_then(|h| std::str::from_utf8(h.value).ok())
                        .map(|v| v.trim().to_string())
                };
                let body: usize = header("content-length")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                let received = header("toll-received");
                if code != 200 {
                    return Err(CallError::Protocol(format!(
                        "POST /call answered {code}: not a toll http1 server? check --stack"
                    )));
                }
                if received.as_deref() != Some(n.to_string().as_str()) {
                    return Err(CallError::Protocol(format!(
                        "POST /call answered toll-received: {}, not {n}",
                        received.unwrap_or_else(|| "(none)".into())
                    )));
                }
                while buf.len() < head + body {
                    read_more(io, buf).await?;
                }
                buf.drain(..head + body);
                return Ok(());
            }
            Ok(httparse::Status::Partial) => read_more(io, buf).await?,
            Err(e) => {
                return Err(mismatch(
                    Stack::Http1,
                    &format!("its answer is not HTTP/1.1 ({e})"),
                ))
            }
        }
    }
}

pub(super) async fn read_more(io: &mut Box<dyn Io>, buf: &mut Vec<u8>) -> Result<(), CallError> {
    let mut chunk = [0u8; 4096];
    let k = io.read(&mut chunk).await.map_err(io_err)?;
    if k == 0 {
        return Err(if buf.is_empty() {
            CallError::Closed
        } else {
            CallError::Protocol("the server closed the connection mid-answer".into())
        });
    }
    buf.extend_from_slice(&chunk[..k]);
    Ok(())
}

pub(super) async fn h2_call(
    send: &mut SendRequest<Full<Bytes>>,
    uri: hyper::Uri,
    body: Bytes,
    n: u32,
) -> Result<(), CallError> {
    let req = hyper::Request::post(uri)
        .body(Full::new(body))
        .expect("a valid request");
    send.ready().await.map_err(h2_err)?;
    let res = send.send_request(req).await.map_err(h2_err)?;
    let status = res.status();
    let received = res
        .headers()
        .get("toll-received")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    // Read and dropped as it comes, never gathered: a server that is not
    // toll's (`--server`) may send any length, and a reply cannot be longer
    // than the largest payload toll sends.
    let mut body = res.into_body();
    let mut got = 0usize;
    while let Some(frame) = body.frame().await {
        got += frame.map_err(h2_err)?.data_ref().map_or(0, |d| d.len());
        if got > MAX_FRAME as usize {
            return Err(CallError::Protocol(format!(
                "POST /call answered with more than {MAX_FRAME} bytes: not a toll h2 server? check --stack"
            )));
        }
    }
    if status != 200 {
        return Err(CallError::Protocol(format!(
            "POST /call answered {status}: not a toll h2 server? check --stack"
        )));
    }
    match received {
        Some(r) if r == n.to_string() => Ok(()),
        Some(r) => Err(CallError::Protocol(format!(
            "POST /call answered toll-received: {r}, not {n}"
        ))),
        None => Err(mismatch(Stack::H2, "its 200 has no toll-received header")),
    }
}

pub(super) fn h2_err(e: hyper::Error) -> CallError {
    if e.is_closed() || e.is_canceled() {
        return CallError::Closed;
    }
    mismatch(Stack::H2, &format!("HTTP/2 failed ({e})"))
}

pub(super) async fn grpc_call(
    g: &mut tonic::client::Grpc<H2>,
    p: Payload,
    n: u32,
) -> Result<(), CallError> {
    g.ready().await.map_err(h2_err)?;
    let path = hyper::http::uri::PathAndQuery::from_static(CALL_PATH);
    let codec = tonic_prost::ProstCodec::<Payload, Ack>::default();
    let ack = g
        .unary(tonic::Request::new(p), path, codec)
        .await
        .map_err(|s| match s.code() {
            tonic::Code::Unavailable | tonic::Code::Cancelled => CallError::Closed,
            _ => mismatch(
                Stack::Grpc,
                &format!("the call failed: {} ({})", s.message(), s.code()),
            ),
        })?
        .into_inner();
    if ack.received != n {
        return Err(CallError::Protocol(format!(
            "the server acked {} bytes, not {n}",
            ack.received
        )));
    }
    Ok(())
}

/// hyper's HTTP/2 connection as tonic's client transport.
#[derive(Clone)]
pub(super) struct H2(pub(super) SendRequest<tonic::body::Body>);

impl tower_service::Service<hyper::Request<tonic::body::Body>> for H2 {
    type Response = hyper::Response<hyper::body::Incoming>;
    type Error = hyper::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, hyper::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), hyper::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: hyper::Request<tonic::body::Body>) -> Self::Future {
        Box::pin(self.0.send_request(req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::body::{Body, Frame, SizeHint};
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use std::convert::Infallible;

    /// A body of `left` bytes in 1 MiB frames, made as it is read.
    struct Endless {
        left: usize,
    }

    impl Body for Endless {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            if self.left == 0 {
                return Poll::Ready(None);
            }
            let n = self.left.min(1 << 20);
            self.left -= n;
            Poll::Ready(Some(Ok(Frame::data(Bytes::from(vec![0u8; n])))))
        }

        fn size_hint(&self) -> SizeHint {
            SizeHint::with_exact(self.left as u64)
        }
    }

    /// A server that is not toll's answers a call with more bytes than any
    /// payload toll sends: the call fails with that said, having dropped
    /// the body as it came instead of gathering it.
    #[tokio::test(flavor = "current_thread")]
    async fn an_h2_reply_longer_than_any_payload_is_refused() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (s, _) = listener.accept().await.unwrap();
            let svc = hyper::service::service_fn(|_req| async {
                let res = hyper::Response::builder()
                    .header("toll-received", "1")
                    .body(Endless {
                        left: MAX_FRAME as usize + (2 << 20),
                    })
                    .unwrap();
                Ok::<_, Infallible>(res)
            });
            let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(s), svc)
                .await;
        });
        let io = TokioIo::new(tokio::net::TcpStream::connect(addr).await.unwrap());
        let (mut send, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
            .await
            .unwrap();
        tokio::spawn(conn);
        let uri: hyper::Uri = format!("http://{addr}{CALL_PATH}").parse().unwrap();
        let e = h2_call(&mut send, uri, Bytes::from_static(b"x"), 1)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("more than"), "{e}");
    }
}
