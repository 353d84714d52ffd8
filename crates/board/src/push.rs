//! `toll push RUN --to URL`: send a stored run (its JSON export) to a
//! board's `POST /api/runs` with a bearer token, over HTTP/1.1 (hyper).
//! The board's reply is read up to [`REPLY_LIMIT`]: a board answers a push
//! in a few hundred bytes, so anything larger is not one.

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper_util::rt::TokioIo;
use std::time::Duration;

/// How long connecting and the whole exchange may take.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The largest reply read from a board.
pub const REPLY_LIMIT: usize = 1 << 20;

/// Why a push did not land; each message names the fix. Nothing is changed
/// on either side when it fails.
#[derive(Debug, thiserror::Error)]
pub enum PushError {
    #[error("--to {0}: not a board URL: give http://HOST:PORT (the address `toll board` printed)")]
    BadUrl(String),
    #[error("--to {0}: toll pushes over plain http:// only: reach an https board through its TLS proxy's http side, or an ssh tunnel")]
    NotHttp(String),
    #[error("no token: pass --token or set TOLL_TOKEN (the board's keeper makes one with `toll board token add NAME`)")]
    NoToken,
    #[error("the board at {0} is not reachable ({1}): start it with `toll board`, or check --to")]
    Unreachable(String, String),
    #[error("the board at {url} refused the token ({detail}): check --token or TOLL_TOKEN")]
    Unauthorized { url: String, detail: String },
    #[error("the board at {url} rejected the run ({status}): {detail}")]
    Rejected {
        url: String,
        status: u16,
        detail: String,
    },
    #[error(
        "the board at {0} did not answer within {1} s: try again, or check that it is a toll board"
    )]
    TimedOut(String, u64),
    #[error("the board at {0} answered with more than {1} bytes (a board's answer is a few hundred): check that --to is a toll board")]
    ReplyTooLarge(String, usize),
}

/// What the board answered to a push that landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    /// The run's number on the board.
    pub id: i64,
    /// Its page, absolute.
    pub url: String,
    /// Whether the board held the run already (it answered with that run).
    pub existing: bool,
}

/// Push `body` (a run's JSON export) to the board at `to` with `token`.
pub fn push(body: Vec<u8>, to: &str, token: &str) -> Result<Pushed, PushError> {
    if token.trim().is_empty() {
        return Err(PushError::NoToken);
    }
    let base = to.trim_end_matches('/');
    let uri: http::Uri = base.parse().map_err(|_| PushError::BadUrl(to.into()))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some("https") => return Err(PushError::NotHttp(to.into())),
        _ => return Err(PushError::BadUrl(to.into())),
    }
    let host = uri
        .host()
        .ok_or_else(|| PushError::BadUrl(to.into()))?
        .to_string();
    let port = uri.port_u16().unwrap_or(80);
    let authority = uri.authority().map(|a| a.to_string()).unwrap_or_default();
    let path = format!("{}/api/runs", uri.path().trim_end_matches('/'));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| PushError::Unreachable(to.into(), e.to_string()))?;
    let exchange = async {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let stream = tokio::net::TcpStream::connect((host, port))
            .await
            .map_err(|e| PushError::Unreachable(to.into(), e.to_string()))?;
        let (mut send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| PushError::Unreachable(to.into(), e.to_string()))?;
        tokio::spawn(conn);
        let req = http::Request::post(path.as_str())
            .header(http::header::HOST, authority.as_str())
            .header(
                http::header::AUTHORIZATION,
                format!("Bearer {}", token.trim()),
            )
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|_| PushError::BadUrl(to.into()))?;
        let resp = send
            .send_request(req)
            .await
            .map_err(|e| PushError::Unreachable(to.into(), e.to_string()))?;
        let status = resp.status().as_u16();
        let too_large = || PushError::ReplyTooLarge(to.into(), REPLY_LIMIT);
        let declared = resp
            .headers()
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > REPLY_LIMIT as u64) {
            return Err(too_large());
        }
        let text = match Limited::new(resp.into_body(), REPLY_LIMIT).collect().await {
            Ok(b) => String::from_utf8_lossy(&b.to_bytes()).into_owned(),
            Err(e) if e.is::<LengthLimitError>() => return Err(too_large()),
            // A reply cut short: its status still says what happened.
            Err(_) => String::new(),
        };
        Ok::<_, PushError>((status, text))
    };
    let (status, text) = rt
        .block_on(async { tokio::time::timeout(TIMEOUT, exchange).await })
        .map_err(|_| PushError::TimedOut(to.into(), TIMEOUT.as_secs()))??;
    let answer: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let detail = answer
        .get("error")
        .and_then(|e| e.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| text.chars().take(200).collect());
    match status {
        200 | 201 => {
            let id =
                answer
                    .get("id")
                    .and_then(|v| v.as_i64())
                    .ok_or_else(|| PushError::Rejected {
                        url: to.into(),
                        status,
                        detail: "the answer has no run id: is this a toll board?".into(),
                    })?;
            Ok(Pushed {
                id,
                url: format!("{base}/runs/{id}"),
                // An older board stores every push (201).
                existing: status == 200,
            })
        }
        401 => Err(PushError::Unauthorized {
            url: to.into(),
            detail,
        }),
        _ => Err(PushError::Rejected {
            url: to.into(),
            status,
            detail,
        }),
    }
}
