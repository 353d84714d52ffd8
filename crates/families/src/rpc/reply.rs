//! One call's reply on each stack, read and checked: raw's length, an
//! HTTP/1.1 reply's status and `toll-received` header, an h2 stream's, and
//! gRPC's status and message through tonic over the same hyper connection.

use super::call::{check_raw, io_err, mismatch, CallError, Io};
use super::config::Stack;
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
    let _ = res.into_body().collect().await.map_err(h2_err)?;
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
