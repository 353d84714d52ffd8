//! What a `toll rpc` run is asked (stacks, paths, modes, sizes, where the
//! server runs), what each series gives back, and why a run can fail.

use super::figures::Figures;
use serde::Serialize;
use std::net::SocketAddr;
use std::time::Duration;
use toll_measure::SeriesFit;
use toll_store::RunStatus;

/// A stack: what a call is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stack {
    Raw,
    Http1,
    H2,
    Grpc,
}

impl Stack {
    pub const ALL: [Stack; 4] = [Stack::Raw, Stack::Http1, Stack::H2, Stack::Grpc];

    pub fn name(self) -> &'static str {
        match self {
            Stack::Raw => "raw",
            Stack::Http1 => "http1",
            Stack::H2 => "h2",
            Stack::Grpc => "grpc",
        }
    }

    pub fn parse(s: &str) -> Option<Stack> {
        Stack::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// The socket under `raw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    Tcp,
    Unix,
}

/// When a broker path asks the broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lookup {
    PerCall,
    Once,
}

/// A proxy between toll and the server (built by [`super::proxy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProxyKind {
    Haproxy,
    Nginx,
}

/// The way from toll to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PathKind {
    Direct,
    Broker(Lookup),
    Proxy(ProxyKind),
}

impl PathKind {
    /// `direct`, `broker-per-call`, `haproxy`.
    pub fn name(self) -> &'static str {
        match self {
            PathKind::Direct => "direct",
            PathKind::Broker(Lookup::PerCall) => "broker-per-call",
            PathKind::Broker(Lookup::Once) => "broker-once",
            PathKind::Proxy(ProxyKind::Haproxy) => "haproxy",
            PathKind::Proxy(ProxyKind::Nginx) => "nginx",
        }
    }
}

/// Which language's server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerRuntime {
    Rust,
    Go,
    Python,
}

impl std::fmt::Display for ServerRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ServerRuntime::Rust => "rust",
            ServerRuntime::Go => "go",
            ServerRuntime::Python => "python",
        })
    }
}

/// How calls are made: one at a time, or K outstanding per connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Mode {
    Blocking,
    Pipelined(u32),
}

impl Mode {
    pub fn in_flight(self) -> u32 {
        match self {
            Mode::Blocking => 1,
            Mode::Pipelined(k) => k,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Blocking => "blocking",
            Mode::Pipelined(_) => "pipelined",
        }
    }
}

/// One series: a stack on a path in a mode.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SeriesSpec {
    pub stack: Stack,
    pub via: Via,
    pub path: PathKind,
    pub mode: Mode,
}

impl SeriesSpec {
    /// `raw-unix`, `grpc`: the stack as the ladder names it.
    pub fn stack_label(&self) -> String {
        match self.via {
            Via::Unix => format!("{}-unix", self.stack.name()),
            Via::Tcp => self.stack.name().to_string(),
        }
    }
}

/// A validated `toll rpc` request.
#[derive(Debug, Clone)]
pub struct RpcConfig {
    pub runtime: ServerRuntime,
    /// A server already running (one stack, direct): no server is started.
    pub external: Option<SocketAddr>,
    pub series: Vec<SeriesSpec>,
    pub connections: u32,
    /// Payload bytes per call, one point each.
    pub sizes: Vec<u32>,
    /// Calls per trial (E3: 1600).
    pub calls: u64,
    pub trials: u32,
    /// Untimed calls per series before the first round.
    pub warmup: u64,
    /// A call not answered within this fails the run.
    pub timeout: Duration,
    pub seed: u64,
    /// The no-argument run: E3's table.
    pub ladder: bool,
    /// The servers across an emulated link or on a far host (None: here).
    pub far: Option<crate::far::Far>,
}

impl RpcConfig {
    /// `rust/grpc/broker-per-call/pipelined-8`.
    pub fn label(&self, s: &SeriesSpec) -> String {
        let mut l = format!(
            "{}/{}/{}/{}",
            self.external
                .map_or(self.runtime.to_string(), |_| "server".into()),
            s.stack_label(),
            s.path.name(),
            s.mode.name()
        );
        if let Mode::Pipelined(k) = s.mode {
            l.push_str(&format!("-{k}"));
        }
        if self.connections > 1 {
            l.push_str(&format!("-c{}", self.connections));
        }
        l
    }
}

/// One measured point of a series.
#[derive(Debug, Clone, Serialize)]
pub struct RpcPoint {
    pub n: u32,
    pub result: Result<Figures, String>,
}

/// One series' points and, over several sizes, its fit.
#[derive(Debug, Clone, Serialize)]
pub struct RpcSeries {
    pub spec: SeriesSpec,
    pub label: String,
    pub points: Vec<RpcPoint>,
    pub fit: Option<SeriesFit>,
}

/// What a run produced.
#[derive(Debug)]
pub struct RpcOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    pub server: String,
    pub series: Vec<RpcSeries>,
    pub error: Option<String>,
}
