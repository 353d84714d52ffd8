//! `toll rpc` (E3): what a null remote call costs — per stack (raw frames
//! over a unix socket or TCP, HTTP/1.1, h2c, gRPC), per path (direct, or
//! through a broker asked per call or once), blocking or pipelined.
//!
//! toll is always the client, so every server is timed from the same side;
//! the server is a child process speaking spec/rpc.md on stdin/stdout
//! ([`handle`]), which answers every call with the bytes it received and
//! reports its CPU time, so the server's CPU per call is measured apart
//! from toll's. A trial is E3's: `calls` calls (1600), timed as a whole;
//! its figure is the mean time per call, and trials (10) give that mean a
//! CI. Trials go in rounds, every (series, size) once a round, shuffled
//! after the first, so drift spreads over every cell. Each call's own
//! latency goes into a histogram for the median and p99.

pub mod client;
pub mod figures;
pub mod floor;
pub mod frame;
pub mod handle;
pub mod listen;
pub mod place;
pub mod proto;
pub mod server;
mod setup;

use crate::history::{self, Comparable};
use crate::observer::Observer;
use client::{CallError, Session};
use figures::{Cell, Figures};
use handle::ServerError;
use serde::Serialize;
use serde_json::json;
use setup::Setup;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use toll_measure::fit::fit_series;
use toll_measure::{rounds, Fingerprint, Sample, SeriesFit, Summary};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store, StoreError};

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

/// A proxy between toll and the server (built by crates/families/src/rpc_proxy.rs).
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
    pub far: Option<crate::transfer::Far>,
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

/// Why a run could not start, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum RpcError {
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{stack} to {target}: {cause}")]
    Call {
        stack: String,
        target: String,
        cause: CallError,
    },
    #[error("the {runtime} rpc server does not serve {stack} here (it serves {has}): drop {stack} from --stack")]
    Unsupported {
        runtime: ServerRuntime,
        stack: String,
        has: String,
    },
    #[error(transparent)]
    Proxy(#[from] crate::rpc_proxy::ProxyError),
    #[error("cannot start tokio: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    Link(#[from] crate::link::LinkError),
    #[error("reaching the server across the link: {0}")]
    Relay(std::io::Error),
    #[error("raw over a unix socket stays on this machine: drop --via unix, or --link/--remote")]
    FarUnix,
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

/// Run the series, storing everything as it goes. A server that cannot
/// start, a stack it lacks, or a first call that fails (a wrong stack, no
/// server) comes back as `Err` before any run is stored.
pub fn run(
    cfg: &RpcConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<RpcOutcome, RpcError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(RpcError::Runtime)?;
    let mut setup = setup::setup(cfg)?;
    let mut sessions = vec![];
    for (s, p) in cfg.series.iter().zip(&setup.plans) {
        let target = p.target.to_string();
        let session = rt
            .block_on(Session::open(p.clone()))
            .map_err(|cause| RpcError::Call {
                stack: s.stack_label(),
                target: target.clone(),
                cause,
            })?;
        sessions.push(session);
    }
    let server_line = match (&setup.server, cfg.external) {
        (Some(h), _) => format!(
            "{} server (pid {}){}: {}",
            h.runtime,
            h.pid,
            setup.place.describe(),
            h.version
        ),
        (None, Some(a)) => format!("the server at {a} (started elsewhere: no server CPU)"),
        (None, None) => String::new(),
    };
    let env = Fingerprint::capture(vec![]);
    if let Some(w) = env.busy_warning() {
        observer.warning(&w);
    }
    let run_id = store.begin_run(&NewRun {
        family: "rpc".into(),
        config: json!({
            "runtime": cfg.runtime, "server": server_line, "external": cfg.external,
            "series": cfg.series.iter().map(|s| cfg.label(s)).collect::<Vec<_>>(),
            "connections": cfg.connections, "sizes": cfg.sizes, "calls": cfg.calls,
            "trials": cfg.trials, "warmup": cfg.warmup, "timeout_ms": cfg.timeout.as_millis() as u64,
            "seed": cfg.seed, "ladder": cfg.ladder,
            "far": cfg.far.as_ref().map(crate::transfer::Far::describe),
        }),
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let result = measure(
        cfg,
        store,
        observer,
        stop,
        run_id,
        &rt,
        &mut setup,
        &mut sessions,
    );
    drop(sessions);
    drop(rt);
    let (series, failure) = match result {
        Ok(r) => r,
        Err(e) => {
            store.finish_run(run_id, RunStatus::Failed, "failed", Some(&e.to_string()))?;
            return Err(e);
        }
    };
    let interrupted = stop.load(Ordering::Relaxed);
    let measured = series
        .iter()
        .any(|s| s.points.iter().any(|p| p.result.is_ok()));
    let status = match (&failure, interrupted) {
        (Some(_), _) if !measured => RunStatus::Failed,
        (Some(_), _) | (None, true) => RunStatus::Partial,
        (None, false) => RunStatus::Complete,
    };
    let error = failure.or(interrupted.then(|| "interrupted by the user".to_string()));
    store.finish_run(run_id, status, &summary_line(&series), error.as_deref())?;
    Ok(RpcOutcome {
        run_id,
        status,
        server: server_line,
        series,
        error,
    })
}

type Measured = (Vec<RpcSeries>, Option<String>);

/// The warm-up, then the rounds; the first failed call ends the rounds
/// (the run is partial with what was measured).
#[allow(clippy::too_many_arguments)]
fn measure(
    cfg: &RpcConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
    run_id: i64,
    rt: &tokio::runtime::Runtime,
    setup: &mut Setup,
    sessions: &mut [Session],
) -> Result<Measured, RpcError> {
    let mut series = vec![];
    let mut ids = vec![];
    let mut cells: Vec<(usize, usize)> = vec![];
    for (i, s) in cfg.series.iter().enumerate() {
        let label = cfg.label(s);
        let mut attrs = json!({
            "runtime": cfg.external.map_or(cfg.runtime.to_string(), |_| "external".into()),
            "stack": s.stack.name(), "via": s.via, "path": s.path.name(),
            "lookup": match s.path { PathKind::Broker(l) => Some(l), _ => None },
            "mode": s.mode.name(), "in_flight": s.mode.in_flight(),
            "connections": cfg.connections, "per": "call", "unit": "bytes",
        });
        if let Some(far) = &cfg.far {
            attrs["far"] = far.describe();
        }
        ids.push(store.add_series(run_id, &label, &attrs)?);
        for j in 0..cfg.sizes.len() {
            cells.push((i, j));
        }
        series.push(RpcSeries {
            spec: *s,
            label,
            points: cfg
                .sizes
                .iter()
                .map(|&n| RpcPoint {
                    n,
                    result: Err("not measured".into()),
                })
                .collect(),
            fit: None,
        });
    }
    let mut state: Vec<Cell> = cells.iter().map(|_| Cell::default()).collect();
    let mut failure = None;
    // Warm-up: untimed calls on every series, at its first size.
    for (i, session) in sessions.iter_mut().enumerate() {
        if cfg.warmup == 0 || stop.load(Ordering::Relaxed) {
            break;
        }
        if let Err(e) = rt.block_on(session.trial(cfg.sizes[0], cfg.warmup)) {
            failure = Some(format!("{} warming up: {e}", series[i].label));
            break;
        }
    }
    'rounds: for round in 0..cfg.trials as usize {
        if failure.is_some() {
            break;
        }
        for k in rounds::order(cells.len(), round, cfg.seed) {
            if stop.load(Ordering::Relaxed) {
                break 'rounds;
            }
            let (si, pi) = cells[k];
            let n = cfg.sizes[pi];
            match one_trial(cfg, rt, setup, &mut sessions[si], n) {
                Ok(t) => {
                    state[k].add(t);
                    observer.trial_done(&series[si].label, u64::from(n));
                    observer.point_done(
                        &series[si].label,
                        u64::from(n),
                        &Summary::of(&state[k].per_call()),
                    );
                }
                Err(why) => {
                    let line = format!("{} at {n} B: {why}", series[si].label);
                    observer.warning(&line);
                    state[k].failed = Some(why);
                    failure = Some(line);
                    save(store, cfg, &ids, &cells, &mut state)?;
                    break 'rounds;
                }
            }
        }
        save(store, cfg, &ids, &cells, &mut state)?;
        observer.round_done("rpc", round + 1);
    }
    save(store, cfg, &ids, &cells, &mut state)?;
    for (k, &(si, pi)) in cells.iter().enumerate() {
        series[si].points[pi].result = state[k].figures();
    }
    for (s, &id) in series.iter_mut().zip(&ids) {
        let input: Vec<(f64, Vec<f64>)> = s
            .points
            .iter()
            .filter_map(|p| {
                Some((
                    f64::from(p.n),
                    p.result.as_ref().ok()?.per_call_trials.clone(),
                ))
            })
            .collect();
        if input.len() >= toll_measure::decision::MIN_SIZES {
            s.fit = fit_series(&input);
            let label = s.label.clone();
            if let Some(f) = &mut s.fit {
                let which = Comparable {
                    family: "rpc",
                    label: &label,
                    run_id,
                    cpu_model: &toll_measure::env::cpu_model(),
                    config: &[
                        ("sizes", json!(cfg.sizes)),
                        ("calls", json!(cfg.calls)),
                        (
                            "far",
                            json!(cfg.far.as_ref().map(crate::transfer::Far::describe)),
                        ),
                    ],
                    attrs: &[],
                };
                history::conclude(store, &which, id, f, &input, None)?;
            }
        }
    }
    Ok((series, failure))
}

/// One timed trial of a cell, with the server's counters read around it.
fn one_trial(
    cfg: &RpcConfig,
    rt: &tokio::runtime::Runtime,
    setup: &mut Setup,
    session: &mut Session,
    n: u32,
) -> Result<figures::TrialFigures, String> {
    let before = match setup.server.as_mut() {
        Some(h) => Some(h.stats().map_err(|e| e.to_string())?),
        None => None,
    };
    let cpu0 = server::cpu_ns();
    let t = rt.block_on(session.trial(n, cfg.calls));
    let client_cpu = server::cpu_ns().saturating_sub(cpu0);
    let t = match t {
        Ok(t) => t,
        Err(e) => {
            // A dead server says so on its control plane too.
            if let Some(h) = setup.server.as_mut() {
                if let Err(dead) = h.stats() {
                    return Err(format!("{e} ({dead})"));
                }
            }
            return Err(e.to_string());
        }
    };
    let server_cpu = match (setup.server.as_mut(), before) {
        (Some(h), Some(b)) => {
            let a = h.stats().map_err(|e| e.to_string())?;
            let answered = a.calls - b.calls;
            if answered != cfg.calls {
                return Err(format!(
                    "the server counted {answered} calls, toll made {}: it does not answer each call once",
                    cfg.calls
                ));
            }
            Some(a.cpu_ns - b.cpu_ns)
        }
        _ => None,
    };
    Ok(figures::TrialFigures {
        calls: cfg.calls,
        wall_ns: t.wall_ns,
        latencies: t.latencies,
        round_trips: t.round_trips,
        client_cpu_ns: client_cpu,
        server_cpu_ns: server_cpu,
    })
}

/// Store every cell's trials so far (replacing the last save).
fn save(
    store: &Store,
    cfg: &RpcConfig,
    ids: &[i64],
    cells: &[(usize, usize)],
    state: &mut [Cell],
) -> Result<(), StoreError> {
    for (si, &series_id) in ids.iter().enumerate() {
        let kept: Vec<usize> = (0..cells.len())
            .filter(|&k| {
                cells[k].0 == si && (!state[k].samples.is_empty() || state[k].failed.is_some())
            })
            .collect();
        let points: Vec<Point> = kept
            .iter()
            .map(|&k| {
                let c = &state[k];
                Point {
                    n: u64::from(cfg.sizes[cells[k].1]),
                    status: if c.failed.is_some() {
                        PointStatus::Failed
                    } else {
                        PointStatus::Ok
                    },
                    error: c.failed.clone(),
                    summary: (c.failed.is_none() && !c.samples.is_empty())
                        .then(|| Summary::of(&c.per_call())),
                    samples: c.samples.clone(),
                    extra: Some(c.extra()),
                }
            })
            .collect();
        let mut entries: Vec<(Option<i64>, &Point)> = kept
            .iter()
            .zip(&points)
            .map(|(&k, p)| (state[k].point_id, p))
            .collect();
        store.save_points(series_id, &mut entries)?;
        for (&k, (id, _)) in kept.iter().zip(&entries) {
            state[k].point_id = *id;
        }
    }
    Ok(())
}

/// The one-line summary `toll runs` shows.
pub fn summary_line(series: &[RpcSeries]) -> String {
    let best = series
        .iter()
        .filter_map(|s| Some((s, s.points.first()?.result.as_ref().ok()?.mean())))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        None => format!("{} series", series.len()),
        Some((s, ns)) => format!(
            "{} series; cheapest call {} {:.1} µs",
            series.len(),
            s.label,
            ns / 1e3
        ),
    }
}

/// A sample for the engine: a trial of `calls` calls that took `wall_ns`.
pub fn sample(calls: u64, wall_ns: u64) -> Sample {
    Sample {
        iters: calls,
        total_ns: wall_ns,
    }
}
