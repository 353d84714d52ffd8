//! What a `toll http` run is asked (`HttpConfig`, validated) and what its
//! load gives back (`LoadOutcome`).

use super::request::RequestSpec;
use super::stats::Stats;
use super::target::Target;
use super::urls::UrlSet;
use std::time::Duration;
use toll_measure::Sample;

/// A validated `toll http` run.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub target: Target,
    pub spec: RequestSpec,
    pub concurrency: usize,
    /// -n; None: until the time limit.
    pub requests: Option<u64>,
    /// -t or --duration.
    pub time_limit: Option<Duration>,
    pub threads: usize,
    /// -s: a request not answered in this time is counted failed.
    pub timeout: Duration,
    pub variable_length: bool,
    /// --rate: requests per second, an open model.
    pub rate: Option<f64>,
    /// --http2: h2c with prior knowledge, or h2 by ALPN over TLS.
    pub http2: bool,
    /// --streams: HTTP/2 streams in flight on each connection.
    pub streams: usize,
    /// --insecure: accept any server certificate.
    pub insecure: bool,
    /// --spin: how long an HTTP/1.1 event loop polls before it sleeps.
    pub spin: Duration,
    /// --coalesce: the longest nap of an HTTP/1.1 event loop in place of a
    /// sleep while requests are in flight (zero: off).
    pub coalesce: Duration,
    /// --io: which system interface a plain HTTP/1.1 closed loop uses.
    pub io: Io,
    /// --urls: the requests of a URL file (`target` and `spec` are its
    /// first line's); None: the one URL.
    pub urls: Option<UrlSet>,
}

/// --io: how a plain HTTP/1.1 closed loop talks to the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Io {
    /// epoll: measured to cost no more CPU than io_uring (`uring_loop`).
    #[default]
    Epoll,
    /// io_uring, asked for: the kernel must have what the loop needs.
    IoUring,
    /// io_uring where it applies and the kernel has what it needs, epoll
    /// elsewhere (`TOLL_HTTP_IO=io_uring`: a preference, not a demand).
    IoUringWherePossible,
}

impl Io {
    /// The default from `TOLL_HTTP_IO` (io_uring or epoll; unset: epoll).
    pub fn from_env() -> Io {
        match std::env::var("TOLL_HTTP_IO").as_deref() {
            Ok("io_uring") => Io::IoUringWherePossible,
            _ => Io::Epoll,
        }
    }
}

/// What a load run measured.
#[derive(Debug)]
pub struct LoadOutcome {
    pub stats: Stats,
    pub elapsed: Duration,
    /// Completed requests per 1-second interval (the last may be shorter).
    pub intervals: Vec<Sample>,
    /// Completed requests per 100 ms (`FINE_TICK`) interval, for the rate over
    /// time: (end of the interval since the load's start, requests).
    pub fine: Vec<(Duration, u64)>,
    pub interrupted: bool,
    /// This process's CPU time (user + system, all threads) from the start
    /// of the load to its end: what generating it cost, beside the server.
    /// None where the load came from elsewhere (agents).
    pub generator_cpu: Option<Duration>,
    /// What the load's loops were built on: "io_uring", "epoll" or "tokio"
    /// (HTTP/2, TLS); None from agents.
    pub io: Option<&'static str>,
}
