//! `toll transfer` (E1): what it costs to send n int32 items to a peer process
//! over each kind of link, fitted as t(n) = α + β·n.

use crate::history::{self, Comparable};
use crate::link::{self, Link, LinkError, LinkSpec};
use crate::observer::Observer;
use crate::placement::{last_cpu, Pin, Placement, PlacementError};
use serde::Serialize;
use serde_json::json;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use toll_measure::env::OthersBusy;
use toll_measure::rounds::{self, Stop, Verdict};
use toll_measure::{
    fit::fit_series, Engine, EngineConfig, Fingerprint, Sample, SeriesFit, Summary,
};
use toll_peers::{Agent, Launch, Peer, PeerError, Runtime, TcpRoute, Transport};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store, StoreError};

/// Bytes per item.
pub const ITEM_BYTES: u64 = 4;
/// The default sweep: sizes near 0, where α is measured rather than
/// extrapolated, and across E1's range, where β is.
pub const DEFAULT_SIZES: &str = "0,1,10,100,1k,4k,10k:100k:10k";
/// E1's own sizes (`--sizes e1`): 0, 10000, …, 100000 items.
pub const E1_SIZES: &str = "0:100000:10000";

/// A validated `toll transfer` request.
#[derive(Debug, Clone, Serialize)]
pub struct TransferConfig {
    pub sizes: Vec<u64>,
    pub peers: Vec<Runtime>,
    /// None: every transport each peer supports.
    pub transports: Option<Vec<Transport>>,
    pub pin: Pin,
    pub spin: bool,
    /// `engine.trials` is the number of rounds always taken.
    pub engine: EngineConfig,
    /// `--ci`: more rounds until every point's CI half-width is within this
    /// share of its median.
    pub ci_target: Option<f64>,
    /// `--max-time`: the most one series may spend on rounds past the minimum.
    pub max_time: std::time::Duration,
    /// Where the peer runs when it is not a child of toll on this machine.
    pub far: Option<Far>,
}

/// A peer elsewhere: started by `toll agent` there, over TCP only.
#[derive(Debug, Clone, Serialize)]
pub enum Far {
    /// `--remote HOST` (ssh) or `--remote-cmd CMD`: the launcher that runs
    /// `toll agent` on the far host, and this machine's address as the far
    /// host reaches it (`--remote-addr`; None: the agent's ssh client or route).
    Agent {
        launcher: String,
        addr: Option<std::net::IpAddr>,
    },
    /// `--link SPEC`: in the far namespace of a link toll builds for the run.
    Link(LinkSpec),
}

impl Far {
    /// How the far end is recorded with the run and its series.
    pub fn describe(&self) -> serde_json::Value {
        match self {
            Far::Agent { launcher, .. } => json!({"remote": launcher}),
            Far::Link(spec) => json!({"link": spec.to_string()}),
        }
    }
}

/// Why a transfer could not run, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error(transparent)]
    Peer(#[from] PeerError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Placement(#[from] PlacementError),
    #[error("the {peer} peer does not support the {transport} transport (it supports {supported}): drop it from --via or pick another --peer")]
    Unsupported {
        peer: Runtime,
        transport: Transport,
        supported: String,
    },
    #[error("--spin with --pin same would have both ends spin on one core: use --pin split or drop --spin")]
    SpinOnOneCore,
    #[error("--spin applies only to the shm transport: add --via shm")]
    SpinWithoutShm,
    #[error("cannot make a scratch directory: {0}")]
    Scratch(std::io::Error),
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error("a peer on another host or across a link speaks tcp only, not {0}: use --via tcp")]
    FarTransport(Transport),
}

/// One measured series.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesResult {
    pub label: String,
    pub peer: Runtime,
    pub transport: Transport,
    pub points: Vec<(u64, Summary)>,
    pub fit: Option<SeriesFit>,
    /// Rounds taken.
    pub rounds: usize,
    /// Sizes whose CI missed the `--ci` target when time ran out.
    pub missed: Vec<u64>,
    /// Share of all CPUs that other processes kept busy while the series
    /// was measured (see `toll_measure::env::OthersBusy`).
    pub others_busy: f64,
    /// The busiest of them, with its share of one CPU.
    pub busiest: Option<(String, f64)>,
    /// Why a size failed, when one did (the sizes after it were not tried).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl SeriesResult {
    /// Other processes kept the machine busy while this series was measured.
    pub fn busy(&self) -> bool {
        self.others_busy > toll_measure::env::BUSY_SHARE
    }
}

/// What a run produced.
#[derive(Debug)]
pub struct TransferOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    pub placement: Placement,
    pub series: Vec<SeriesResult>,
    /// Why the run stopped early, if it did.
    pub error: Option<TransferError>,
}

/// The (peer, transport) pairs a config asks for, checked against what each peer speaks.
pub fn plan(cfg: &TransferConfig) -> Result<Vec<(Runtime, Transport)>, TransferError> {
    let mut pairs = Vec::new();
    if cfg.far.is_some() {
        if let Some(t) = cfg
            .transports
            .iter()
            .flatten()
            .find(|t| **t != Transport::Tcp)
        {
            return Err(TransferError::FarTransport(*t));
        }
    }
    let tcp_only = [Transport::Tcp];
    let transports = match (&cfg.far, &cfg.transports) {
        (Some(_), _) => Some(&tcp_only[..]),
        (None, t) => t.as_deref(),
    };
    for &peer in &cfg.peers {
        match transports {
            None => pairs.extend(peer.transports().iter().map(|&t| (peer, t))),
            Some(ts) => {
                for &t in ts {
                    if !peer.transports().contains(&t) {
                        let supported: Vec<_> =
                            peer.transports().iter().map(|t| t.name()).collect();
                        return Err(TransferError::Unsupported {
                            peer,
                            transport: t,
                            supported: supported.join(", "),
                        });
                    }
                    pairs.push((peer, t));
                }
            }
        }
    }
    if cfg.spin {
        if cfg.pin == Pin::Same {
            return Err(TransferError::SpinOnOneCore);
        }
        if !pairs.iter().any(|(_, t)| *t == Transport::Shm) {
            return Err(TransferError::SpinWithoutShm);
        }
    }
    Ok(pairs)
}

/// Run a transfer sweep, storing everything as it goes. Setup errors (a
/// missing toolchain, a bad placement) come back as `Err` before any run is
/// stored; a failure mid-run comes back in the outcome, with the run partial.
pub fn run(
    cfg: &TransferConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<TransferOutcome, TransferError> {
    let pairs = plan(cfg)?;
    let placement = Placement::choose(cfg.pin)?;
    let mut launches = Vec::new();
    for &peer in &cfg.peers {
        let launch = match &cfg.far {
            // The agent prepares the worker over there.
            Some(far) => Launch {
                program: "toll agent".into(),
                args: vec![],
                toolchain: (
                    format!("{peer} peer via toll agent"),
                    far.describe().to_string(),
                ),
                env: Vec::new(),
            },
            None => peer.prepare_noting(&mut |m| observer.note(m))?,
        };
        launches.push((peer, launch));
    }
    // Built before the run is stored: a link that cannot be built stores nothing.
    let link = match &cfg.far {
        Some(Far::Link(spec)) => Some(std::sync::Arc::new(link::build(spec)?)),
        _ => None,
    };
    let toolchains = launches.iter().map(|(_, l)| l.toolchain.clone()).collect();
    let env = Fingerprint::capture(toolchains);
    if let Some(w) = env.busy_warning() {
        observer.warning(&w);
    }
    let cpu_model = env.cpu_model.clone();
    let engine = Engine::new(cfg.engine.clone());
    let run_id = store.begin_run(&NewRun {
        family: "transfer".into(),
        config: json!({
            "sizes": cfg.sizes, "peers": cfg.peers.iter().map(|p| p.name()).collect::<Vec<_>>(),
            "transports": pairs.iter().map(|(p, t)| format!("{p}/{t}")).collect::<Vec<_>>(),
            "pin": cfg.pin, "spin": cfg.spin, "engine": cfg.engine,
            "placement": placement, "clock": engine.clock,
            "item_bytes": ITEM_BYTES, "item_value": toll_peers::frame::ITEM_VALUE,
            "far": cfg.far.as_ref().map(Far::describe),
        }),
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let scratch = std::env::temp_dir().join(format!("toll-{}-{run_id}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(TransferError::Scratch)?;

    let mut sweep = Sweep {
        cfg,
        store,
        run_id,
        engine: &engine,
        placement,
        scratch: &scratch,
        observer,
        stop,
        results: vec![],
        cpu_model: &cpu_model,
        link: link.clone(),
    };
    // A peer that dies (or cannot start) ends its own series only: they
    // are stored partial with the reason, and the other peers go on. Any
    // other failure (the store, the placement, a link) ends the run.
    let mut peer_errors: Vec<TransferError> = Vec::new();
    let mut result = Ok(());
    let peers = launches.len();
    for (i, (runtime, launch)) in launches.into_iter().enumerate() {
        let transports: Vec<Transport> = pairs
            .iter()
            .filter(|(r, _)| *r == runtime)
            .map(|(_, t)| *t)
            .collect();
        match sweep.peer(runtime, launch, &transports) {
            Ok(()) => {}
            Err(e @ TransferError::Peer(_)) => {
                if i + 1 < peers && sweep.keep_going() {
                    sweep
                        .observer
                        .warning(&format!("{e}; the other peers go on"));
                }
                peer_errors.push(e);
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let peer_failures: Vec<String> = peer_errors.iter().map(ToString::to_string).collect();
    if result.is_ok() && !peer_errors.is_empty() {
        result = Err(peer_errors.remove(0));
    }
    let series = std::mem::take(&mut sweep.results);
    let _ = std::fs::remove_dir_all(&scratch);
    drop(link);

    let interrupted = stop.load(Ordering::Relaxed);
    let measured = series.iter().any(|s| !s.points.is_empty());
    // A size that failed leaves its series short: the run is not complete.
    let failures: Vec<&str> = series.iter().filter_map(|s| s.failure.as_deref()).collect();
    let status = match (&result, interrupted) {
        (_, _) if !measured => RunStatus::Failed,
        (Err(_), _) | (Ok(()), true) => RunStatus::Partial,
        (Ok(()), false) if !failures.is_empty() => RunStatus::Partial,
        (Ok(()), false) => RunStatus::Complete,
    };
    let error_text = match &result {
        Err(_) if !peer_failures.is_empty() => Some(peer_failures.join("; ")),
        Err(e) => Some(e.to_string()),
        Ok(()) if interrupted => Some("interrupted by the user".to_string()),
        Ok(()) if !failures.is_empty() => Some(failures.join("; ")),
        Ok(()) => None,
    };
    store.finish_run(
        run_id,
        status,
        &summary_line(&series),
        error_text.as_deref(),
    )?;
    Ok(TransferOutcome {
        run_id,
        status,
        placement,
        series,
        error: result.err(),
    })
}

/// Words as one shell command line (the agent's launcher is run by `sh -c`).
fn shell_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@".contains(c))
            {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One run's sweep: everything a series needs, so each level is one method.
struct Sweep<'a> {
    cfg: &'a TransferConfig,
    store: &'a Store,
    run_id: i64,
    engine: &'a Engine,
    placement: Placement,
    scratch: &'a Path,
    observer: &'a mut dyn Observer,
    stop: &'a AtomicBool,
    results: Vec<SeriesResult>,
    /// The machine's CPU model: earlier runs on another CPU are not history.
    cpu_model: &'a str,
    /// The link built for `--link`, whose far end runs the peers.
    link: Option<std::sync::Arc<Link>>,
}

impl Sweep<'_> {
    fn keep_going(&self) -> bool {
        !self.stop.load(Ordering::Relaxed)
    }

    /// Start one peer and measure it over each of `transports`, their
    /// rounds interleaved (a round of each series in turn, each on fresh
    /// channels), so a spell of a busy machine lands on a few rounds of
    /// every series rather than on all the rounds of one, and the state a
    /// channel starts in is drawn anew each round.
    fn peer(
        &mut self,
        runtime: Runtime,
        launch: Launch,
        transports: &[Transport],
    ) -> Result<(), TransferError> {
        if !self.keep_going() {
            return Ok(());
        }
        let mut peer = match &self.cfg.far {
            None => self
                .placement
                .spawn_on_peer_cpu(|| Peer::start(runtime, launch))??,
            Some(far) => self.far_peer(far, runtime)?,
        };
        let mut running = Vec::new();
        for &transport in transports {
            running.push(self.begin(&peer, transport)?);
        }
        let peer_pid = peer.pid();
        let others = OthersBusy::start(&[peer_pid]);
        let mut failed: Option<TransferError> = None;
        'rounds: while running.iter().any(|r| !r.done) {
            for r in running.iter_mut().filter(|r| !r.done) {
                if !self.keep_going() {
                    break 'rounds;
                }
                if let Err(e) = self.round(&mut peer, r) {
                    failed = Some(e);
                    break 'rounds;
                }
            }
        }
        let (others_busy, busiest) = others.share(&[peer_pid]);
        let last_cpu_peer = (self.placement.pin == Pin::None).then(|| last_cpu(peer_pid));
        for r in running {
            self.conclude(r, others_busy, &busiest, last_cpu_peer)?;
        }
        if let Some(e) = failed {
            return Err(e);
        }
        peer.close();
        Ok(())
    }

    /// Start `runtime`'s worker at the far end through `toll agent` there.
    fn far_peer(&mut self, far: &Far, runtime: Runtime) -> Result<Peer, TransferError> {
        let (launcher, addr) = match (far, &self.link) {
            (Far::Agent { launcher, addr }, _) => (launcher.clone(), *addr),
            (Far::Link(_), Some(link)) => {
                let toll = std::env::current_exe()
                    .map_err(|e| PeerError::io("finding toll's own path", e))?;
                let mut words = link.launcher();
                words.push(toll.display().to_string());
                words.push("agent".into());
                (shell_words(&words), None)
            }
            (Far::Link(_), None) => unreachable!("the link is built before the sweep"),
        };
        self.observer
            .note(&format!("starting toll agent: {launcher}"));
        let agent = self
            .placement
            .spawn_on_peer_cpu(|| Agent::launch(&launcher))??;
        let route = match &self.link {
            // The far end connects to the near namespace, whose relay
            // (the link's delay) forwards to the harness on loopback.
            Some(link) => {
                let link = link.clone();
                TcpRoute {
                    bind: std::net::Ipv4Addr::LOCALHOST.into(),
                    advertise: std::sync::Arc::new(move |at| link.to_near(at)),
                }
            }
            None => agent.route(addr)?,
        };
        Ok(agent.start_worker(runtime, route)?)
    }

    /// A series begins: stored, with nothing measured yet.
    fn begin(&mut self, peer: &Peer, transport: Transport) -> Result<Running, TransferError> {
        let runtime = peer.runtime();
        let label = format!("{runtime}/{transport}");
        let p = self.placement;
        let spin = self.cfg.spin && transport == Transport::Shm;
        let mut attrs = json!({
            "peer": runtime.name(), "transport": transport.name(),
            "peer_version": peer.hello.version, "unit": "items", "item_bytes": ITEM_BYTES,
            "pin": p.pin, "harness_cpu": p.harness_cpu, "peer_cpu": p.peer_cpu,
            "spin": spin,
        });
        if let Some(far) = &self.cfg.far {
            attrs["far"] = far.describe();
        }
        let series_id = self.store.add_series(self.run_id, &label, &attrs)?;
        self.observer.series_started(&label, self.cfg.sizes.len());
        let k = self.cfg.sizes.len();
        Ok(Running {
            runtime,
            transport,
            label,
            series_id,
            attrs,
            spin,
            iters: vec![None; k],
            samples: vec![Vec::new(); k],
            ids: vec![None; k],
            seed: (self.run_id as u64) << 16 ^ series_id as u64,
            spent: std::time::Duration::ZERO,
            rounds: 0,
            missed: Vec::new(),
            done: false,
            failed_at: None,
            error: None,
        })
    }

    /// One round of a series over a fresh session: every size once, in
    /// this round's order ([`rounds`]); round 0 calibrates each size first.
    /// Stores the points after it and asks the stopping rule whether the
    /// series is done. A failure stores what was measured (the size that
    /// failed as failed) and ends the series.
    fn round(&mut self, peer: &mut Peer, r: &mut Running) -> Result<(), TransferError> {
        let started = std::time::Instant::now();
        let outcome = self.sizes_once(peer, r);
        r.spent += started.elapsed();
        if let Err(e) = outcome {
            r.done = true;
            r.error = Some(e.to_string());
            return Err(e);
        }
        if !self.keep_going() {
            r.done = true;
            return Ok(());
        }
        r.rounds += 1;
        self.save(r.series_id, &mut r.ids, &r.samples, None, None)?;
        self.observer.round_done(&r.label, r.rounds);
        let stop_rule = Stop {
            min_rounds: self.cfg.engine.trials as usize,
            ci_target: self.cfg.ci_target,
            max_time: self.cfg.max_time,
        };
        let so_far: Vec<Summary> = r.samples.iter().map(|s| Summary::of(&per_op(s))).collect();
        match stop_rule.after(r.rounds, r.spent, &so_far) {
            Verdict::More => {}
            Verdict::Done => r.done = true,
            Verdict::OutOfTime(missed) => {
                r.missed = missed.into_iter().map(|i| self.cfg.sizes[i]).collect();
                r.done = true;
            }
        }
        Ok(())
    }

    /// Every size of `r` once over a session of its own; a stop request
    /// leaves the round short (its samples are kept).
    fn sizes_once(&mut self, peer: &mut Peer, r: &mut Running) -> Result<(), TransferError> {
        let sizes = &self.cfg.sizes;
        let mut session = peer.transfer(r.transport, self.scratch, self.cfg.spin)?;
        // After round 0 (whose calibration warms each size up), one untimed
        // batch at the largest size warms the fresh channel: TCP's window
        // and buffers grow to it before a trial counts.
        let largest = (0..sizes.len()).max_by_key(|&i| sizes[i]);
        if let Some(k) = largest.and_then(|i| r.iters[i].map(|k| (i, k))) {
            session.set_items(sizes[k.0] as u32);
            if let Err(e) = session.round_trips(k.1) {
                r.failed_at = Some(k.0);
                return Err(e.into());
            }
        }
        let mut last_save = std::time::Instant::now();
        for i in rounds::order(sizes.len(), r.rounds, r.seed) {
            if !self.keep_going() {
                break;
            }
            session.set_items(sizes[i] as u32);
            let keep_going = || !self.stop.load(Ordering::Relaxed);
            let result = match r.iters[i] {
                // Round 0: warm the size up and size its batches first.
                None => match self
                    .engine
                    .calibrate(&mut |n| session.round_trips(n), &keep_going)
                {
                    Ok(Some(k)) => {
                        r.iters[i] = Some(k);
                        self.engine.trial(&mut |n| session.round_trips(n), k)
                    }
                    Ok(None) => break,
                    Err(e) => Err(e),
                },
                // One untimed round trip settles the new size (and the
                // fresh channel), then the trial.
                Some(k) => session
                    .round_trips(1)
                    .and_then(|_| self.engine.trial(&mut |n| session.round_trips(n), k)),
            };
            match result {
                Ok(sample) => {
                    r.samples[i].push(sample);
                    self.observer.trial_done(&r.label, sizes[i]);
                    // A kill loses at most this much measuring.
                    if last_save.elapsed() >= SAVE_EVERY {
                        self.save(r.series_id, &mut r.ids, &r.samples, None, None)?;
                        last_save = std::time::Instant::now();
                    }
                }
                Err(e) => {
                    r.failed_at = Some(i);
                    return Err(e.into());
                }
            }
        }
        session.finish()?;
        Ok(())
    }

    /// A series is over: its points summarised, fitted (the fit is stored
    /// even when the series stopped early) and kept for the table.
    fn conclude(
        &mut self,
        mut r: Running,
        others_busy: f64,
        busiest: &Option<(String, f64)>,
        last_cpu_peer: Option<Option<usize>>,
    ) -> Result<(), TransferError> {
        // What it measured, the size that failed (if one did) as failed.
        let error = r.error.take();
        let failure = r.failed_at.map(|i| {
            format!(
                "{} at n = {}: {}",
                r.label,
                self.cfg.sizes[i],
                error.as_deref().unwrap_or("failed")
            )
        });
        self.save(r.series_id, &mut r.ids, &r.samples, r.failed_at, error)?;
        let Running {
            label,
            mut attrs,
            series_id,
            spin,
            ..
        } = r;
        let mut points: Vec<(u64, Summary)> = Vec::new();
        let mut fit_input: Vec<(f64, Vec<f64>)> = Vec::new();
        for (i, &n) in self.cfg.sizes.iter().enumerate() {
            if Some(i) == r.failed_at || r.samples[i].is_empty() {
                continue;
            }
            let values = per_op(&r.samples[i]);
            let summary = Summary::of(&values);
            self.observer.point_done(&label, n, &summary);
            fit_input.push((n as f64, values));
            points.push((n, summary));
        }
        if let Some(peer_cpu) = last_cpu_peer {
            // Unpinned: record where the scheduler last ran each end.
            attrs["observed_last_cpu"] = json!({"harness_cpu": last_cpu(0), "peer_cpu": peer_cpu});
        }
        attrs["rounds"] = json!(r.rounds);
        attrs["others_busy"] = json!(others_busy);
        if let Some(b) = busiest {
            attrs["busiest"] = json!(b);
        }
        self.store.set_series_attrs(series_id, &attrs)?;
        let p = self.placement;
        let mut fit = fit_series(&fit_input);
        if let Some(f) = &mut fit {
            let which = Comparable {
                family: "transfer",
                label: &label,
                run_id: self.run_id,
                cpu_model: self.cpu_model,
                config: &[("sizes", json!(self.cfg.sizes))],
                // A far peer's history is its own; a local one's has no "far".
                attrs: &match &self.cfg.far {
                    None => vec![("pin", json!(p.pin)), ("spin", json!(spin))],
                    Some(far) => vec![
                        ("pin", json!(p.pin)),
                        ("spin", json!(spin)),
                        ("far", far.describe()),
                    ],
                },
            };
            history::conclude(
                self.store,
                &which,
                series_id,
                f,
                &fit_input,
                Some(others_busy),
            )?;
        }
        self.results.push(SeriesResult {
            label,
            peer: r.runtime,
            transport: r.transport,
            points,
            fit,
            rounds: r.rounds,
            missed: r.missed,
            others_busy,
            busiest: busiest.clone(),
            failure,
        });
        Ok(())
    }
}

/// A series between its rounds: what it has measured so far.
struct Running {
    runtime: Runtime,
    transport: Transport,
    label: String,
    series_id: i64,
    attrs: serde_json::Value,
    spin: bool,
    /// Each size's batch length, once calibrated.
    iters: Vec<Option<u64>>,
    /// Each size's trials, one a round.
    samples: Vec<Vec<Sample>>,
    /// Stored point ids, so each save replaces the last.
    ids: Vec<Option<i64>>,
    /// Seeds the rounds' order.
    seed: u64,
    /// Time its own rounds took (the others' do not count against
    /// `--max-time`).
    spent: std::time::Duration,
    rounds: usize,
    /// Sizes whose CI missed the `--ci` target when time ran out.
    missed: Vec<u64>,
    done: bool,
    failed_at: Option<usize>,
    error: Option<String>,
}

impl Sweep<'_> {
    /// Store every size measured so far (the one at `failed_at` as failed,
    /// with `error`), replacing what the last round stored.
    fn save(
        &self,
        series_id: i64,
        ids: &mut [Option<i64>],
        samples: &[Vec<Sample>],
        failed_at: Option<usize>,
        error: Option<String>,
    ) -> Result<(), TransferError> {
        let points: Vec<(usize, Point)> = self
            .cfg
            .sizes
            .iter()
            .enumerate()
            .filter(|(i, _)| !samples[*i].is_empty() || Some(*i) == failed_at)
            .map(|(i, &n)| {
                let failed = Some(i) == failed_at;
                let point = Point {
                    n,
                    status: if failed {
                        PointStatus::Failed
                    } else {
                        PointStatus::Ok
                    },
                    error: if failed { error.clone() } else { None },
                    summary: (!failed).then(|| Summary::of(&per_op(&samples[i]))),
                    samples: samples[i].clone(),
                    extra: None,
                };
                (i, point)
            })
            .collect();
        let mut entries: Vec<(Option<i64>, &Point)> =
            points.iter().map(|(i, p)| (ids[*i], p)).collect();
        self.store.save_points(series_id, &mut entries)?;
        for ((i, _), (id, _)) in points.iter().zip(&entries) {
            ids[*i] = *id;
        }
        Ok(())
    }
}

/// How often a series' points are saved while its rounds go on (and after
/// every round): a crash or a kill loses at most this much measuring.
const SAVE_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

fn per_op(samples: &[Sample]) -> Vec<f64> {
    samples.iter().map(|s| s.per_op_ns()).collect()
}

/// The one-line summary `toll runs` shows: the lowest α and β among the
/// series' stored decisions that can be told from 0.
pub fn summary_line(series: &[SeriesResult]) -> String {
    let decided: Vec<_> = series
        .iter()
        .filter_map(|s| Some((s, s.fit.as_ref()?.decision.as_ref()?)))
        .collect();
    if decided.is_empty() {
        return format!("{} series, no fit", series.len());
    }
    let lowest = |f: fn(&toll_measure::decision::Decision) -> Option<f64>| {
        decided
            .iter()
            .filter_map(|(s, d)| Some((s.label.as_str(), f(d)?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    };
    let mut out = format!("{} series", series.len());
    if let Some((label, a)) = lowest(|d| d.alpha.shown()) {
        out.push_str(&format!("; lowest α {label} {:.1} µs", a / 1e3));
    }
    if let Some((label, b)) = lowest(|d| d.beta.shown()) {
        out.push_str(&format!("; lowest β {label} {b:.3} ns/item"));
    }
    out
}
