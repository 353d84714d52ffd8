//! One call as both clients see it: where its server is, what a trial of
//! calls measured, how a call fails, and the checks every reply must pass.
//! The async client ([`super::client`]) and the blocking one
//! ([`super::blocking`]) share these, so neither imports the other's parts.

use super::config::Stack;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

/// Where a stack's server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Tcp(SocketAddr),
    Unix(PathBuf),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Tcp(a) => write!(f, "{a}"),
            Target::Unix(p) => write!(f, "unix:{}", p.display()),
        }
    }
}

/// Why a call failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CallError {
    #[error(
        "cannot connect to {target} ({why}): is the server running? start it, or check the address"
    )]
    Connect { target: String, why: String },
    #[error("no answer within {0:?}: the server stalled (a longer --timeout if it is only slow)")]
    Timeout(Duration),
    #[error("the server closed the connection: it stopped or died")]
    Closed,
    #[error("{0}")]
    Protocol(String),
    #[error("the broker at {0} has no server of this stack registered")]
    NoServer(SocketAddr),
}

pub(super) fn io_err(e: std::io::Error) -> CallError {
    use std::io::ErrorKind::*;
    match e.kind() {
        UnexpectedEof | ConnectionReset | BrokenPipe | ConnectionAborted => CallError::Closed,
        _ => CallError::Protocol(format!("i/o error: {e}")),
    }
}

/// One trial's measurements.
#[derive(Debug, Clone, Default)]
pub struct Trial {
    pub wall_ns: u64,
    /// Every call's latency, ns, send to checked reply.
    pub latencies: Vec<u64>,
    /// Client round trips made: calls plus broker look-ups.
    pub round_trips: u64,
}

pub(super) fn mismatch(stack: Stack, detail: &str) -> CallError {
    CallError::Protocol(format!(
        "not a `{}` server: {detail} (is it a server of another stack? check --stack)",
        stack.name()
    ))
}

/// The broker's answer must be the server this connection reached.
pub(super) fn same_server(got: SocketAddr, server: Option<SocketAddr>) -> Result<(), CallError> {
    match server {
        Some(s) if s != got => Err(CallError::Protocol(format!(
            "the broker named {got}, but this connection reached {s}: one server per stack is supported"
        ))),
        _ => Ok(()),
    }
}

/// A raw reply must be the length sent.
pub(super) fn check_raw(head: [u8; 4], n: u32) -> Result<(), CallError> {
    let got = u32::from_le_bytes(head);
    if got == n {
        return Ok(());
    }
    if &head == b"HTTP" {
        return Err(mismatch(
            Stack::Raw,
            "it answered `HTTP…`, an HTTP/1.1 server",
        ));
    }
    Err(mismatch(
        Stack::Raw,
        &format!("it said {got} bytes were received, not {n}"),
    ))
}

/// A connection of any stream kind (TCP or unix), boxed.
pub(super) trait Io: AsyncRead + AsyncWrite + Send + Unpin {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}
