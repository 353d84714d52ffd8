//! `toll transfer` (E1): what it costs to send n int32 items to a peer process
//! over each kind of link, fitted as t(n) = α + β·n.

use crate::observer::Observer;
use crate::placement::{last_cpu, Pin, Placement, PlacementError};
use serde::Serialize;
use serde_json::json;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use toll_measure::{fit::fit_series, Engine, EngineConfig, Fingerprint, SeriesFit, Summary};
use toll_peers::{Launch, Peer, PeerError, Runtime, Transport};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store, StoreError};

/// Bytes per item.
pub const ITEM_BYTES: u64 = 4;
/// E1's sizes: 0, 10000, …, 100000 items.
pub const DEFAULT_SIZES: &str = "0:100000:10000";

/// A validated `toll transfer` request.
#[derive(Debug, Clone, Serialize)]
pub struct TransferConfig {
    pub sizes: Vec<u64>,
    pub peers: Vec<Runtime>,
    /// None: every transport each peer supports.
    pub transports: Option<Vec<Transport>>,
    pub pin: Pin,
    pub spin: bool,
    pub engine: EngineConfig,
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
}

/// One measured series.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesResult {
    pub label: String,
    pub peer: Runtime,
    pub transport: Transport,
    pub points: Vec<(u64, Summary)>,
    pub fit: Option<SeriesFit>,
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
    for &peer in &cfg.peers {
        match &cfg.transports {
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
        launches.push((peer, peer.prepare_noting(&mut |m| observer.note(m))?));
    }
    let toolchains = launches.iter().map(|(_, l)| l.toolchain.clone()).collect();
    let env = Fingerprint::capture(toolchains);
    if let Some(w) = env.busy_warning() {
        observer.warning(&w);
    }
    let engine = Engine::new(cfg.engine.clone());
    let run_id = store.begin_run(&NewRun {
        family: "transfer".into(),
        config: json!({
            "sizes": cfg.sizes, "peers": cfg.peers.iter().map(|p| p.name()).collect::<Vec<_>>(),
            "transports": pairs.iter().map(|(p, t)| format!("{p}/{t}")).collect::<Vec<_>>(),
            "pin": cfg.pin, "spin": cfg.spin, "engine": cfg.engine,
            "placement": placement, "clock": engine.clock,
            "item_bytes": ITEM_BYTES, "item_value": toll_peers::frame::ITEM_VALUE,
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
    };
    let result = launches.into_iter().try_for_each(|(runtime, launch)| {
        let transports: Vec<Transport> = pairs
            .iter()
            .filter(|(r, _)| *r == runtime)
            .map(|(_, t)| *t)
            .collect();
        sweep.peer(runtime, launch, &transports)
    });
    let series = std::mem::take(&mut sweep.results);
    let _ = std::fs::remove_dir_all(&scratch);

    let interrupted = stop.load(Ordering::Relaxed);
    let measured = series.iter().any(|s| !s.points.is_empty());
    let status = match (&result, interrupted) {
        (Err(_), _) if !measured => RunStatus::Failed,
        (Err(_), _) | (Ok(()), true) => RunStatus::Partial,
        (Ok(()), false) => RunStatus::Complete,
    };
    let error_text = match &result {
        Err(e) => Some(e.to_string()),
        Ok(()) if interrupted => Some("interrupted by the user".to_string()),
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
}

impl Sweep<'_> {
    fn keep_going(&self) -> bool {
        !self.stop.load(Ordering::Relaxed)
    }

    /// Start one peer and measure it over each of `transports`.
    fn peer(
        &mut self,
        runtime: Runtime,
        launch: Launch,
        transports: &[Transport],
    ) -> Result<(), TransferError> {
        if !self.keep_going() {
            return Ok(());
        }
        let mut peer = self
            .placement
            .spawn_on_peer_cpu(|| Peer::start(runtime, launch))??;
        for &transport in transports {
            if !self.keep_going() {
                break;
            }
            self.series(&mut peer, transport)?;
        }
        peer.close();
        Ok(())
    }

    /// One series: every size over one transport; the fit is stored even when
    /// the series stops early.
    fn series(&mut self, peer: &mut Peer, transport: Transport) -> Result<(), TransferError> {
        let runtime = peer.runtime();
        let label = format!("{runtime}/{transport}");
        let p = self.placement;
        let attrs = json!({
            "peer": runtime.name(), "transport": transport.name(),
            "peer_version": peer.hello.version, "unit": "items", "item_bytes": ITEM_BYTES,
            "pin": p.pin, "harness_cpu": p.harness_cpu, "peer_cpu": p.peer_cpu,
            "spin": self.cfg.spin && transport == Transport::Shm,
        });
        let series_id = self.store.add_series(self.run_id, &label, &attrs)?;
        self.observer.series_started(&label, self.cfg.sizes.len());
        let mut points: Vec<(u64, Summary)> = Vec::new();
        let mut fit_input: Vec<(f64, Vec<f64>)> = Vec::new();
        let peer_pid = peer.pid();
        let measured = self.points(
            peer,
            transport,
            series_id,
            &label,
            &mut points,
            &mut fit_input,
        );
        if self.placement.pin == Pin::None {
            // Unpinned: record where the scheduler last ran each end.
            let observed = json!({"harness_cpu": last_cpu(0), "peer_cpu": last_cpu(peer_pid)});
            let mut attrs = attrs;
            attrs["observed_last_cpu"] = observed;
            self.store.set_series_attrs(series_id, &attrs)?;
        }
        let fit = fit_series(&fit_input);
        if let Some(f) = &fit {
            self.store.set_fit(series_id, f)?;
        }
        self.results.push(SeriesResult {
            label,
            peer: runtime,
            transport,
            points,
            fit,
        });
        measured
    }

    /// Measure each size in turn; a failed point is stored as failed and ends the series.
    fn points(
        &mut self,
        peer: &mut Peer,
        transport: Transport,
        series_id: i64,
        label: &str,
        points: &mut Vec<(u64, Summary)>,
        fit_input: &mut Vec<(f64, Vec<f64>)>,
    ) -> Result<(), TransferError> {
        let mut session = peer.transfer(transport, self.scratch, self.cfg.spin)?;
        for &n in &self.cfg.sizes {
            if !self.keep_going() {
                break;
            }
            session.set_items(n as u32);
            let keep_going = || !self.stop.load(Ordering::Relaxed);
            match self
                .engine
                .measure(&mut |iters| session.round_trips(iters), &keep_going)
            {
                Ok(samples) if samples.is_empty() => break,
                Ok(samples) => {
                    let per_op: Vec<f64> = samples.iter().map(|s| s.per_op_ns()).collect();
                    let summary = Summary::of(&per_op);
                    let point = Point {
                        n,
                        status: PointStatus::Ok,
                        error: None,
                        summary: Some(summary.clone()),
                        samples,
                        extra: None,
                    };
                    self.store.add_point(series_id, &point)?;
                    self.observer.point_done(label, n, &summary);
                    fit_input.push((n as f64, per_op));
                    points.push((n, summary));
                }
                Err(e) => {
                    let point = Point {
                        n,
                        status: PointStatus::Failed,
                        error: Some(e.to_string()),
                        summary: None,
                        samples: vec![],
                        extra: None,
                    };
                    self.store.add_point(series_id, &point)?;
                    return Err(e.into());
                }
            }
        }
        session.finish()?;
        Ok(())
    }
}

/// The one-line summary `toll runs` shows.
pub fn summary_line(series: &[SeriesResult]) -> String {
    let fitted: Vec<_> = series
        .iter()
        .filter_map(|s| s.fit.as_ref().map(|f| (s, f)))
        .collect();
    if fitted.is_empty() {
        return format!("{} series, no fit", series.len());
    }
    let (fast, ff) = fitted
        .iter()
        .min_by(|a, b| a.1.primary().alpha.total_cmp(&b.1.primary().alpha))
        .expect("non-empty");
    let (wide, wf) = fitted
        .iter()
        .min_by(|a, b| a.1.primary().beta.total_cmp(&b.1.primary().beta))
        .expect("non-empty");
    format!(
        "{} series; lowest α {} {:.1} µs; lowest β {} {:.3} ns/item",
        series.len(),
        fast.label,
        ff.primary().alpha / 1e3,
        wide.label,
        wf.primary().beta
    )
}
